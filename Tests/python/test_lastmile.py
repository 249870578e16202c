"""The last-mile test and probe (ABI 0.7) through the embedded server, from Python.

- start_lastmile_probe_test at 1 Mbps each way on loopback reports
  on_lastmile_quality (after the uplink phase), then on_lastmile_probe_result:
  COMPLETE, no loss to speak of, the probed rate delivered each way; the
  probe's private channel is not reported, and a call can start afterwards.
- With the engine's sending capped at 400 kbps (rtc.network_simulation_send),
  an uplink probe at 1 Mbps measures about 400 kbps.
- enable_lastmile_test reports on_lastmile_quality repeatedly (EXCELLENT or
  GOOD on loopback) until disable_lastmile_test; the -5 rules of the header
  hold (one test or probe at a time, none during an echo test; in a channel a probe
  runs beside the call and the quality test does not start).
"""

from __future__ import annotations

import ctypes
import inspect
import threading
import time
from typing import Any, Callable, List, Tuple

import pytest

import agoraish
from agoraish import AgoraishError, LastmileProbeConfig, LastmileProbeResultState, QualityType

EINVAL, EREFUSED = -2, -5
MBPS = 1_000_000
#: The probe reports about 5 s after its start (2 s each way, plus the setup).
RESULT_TIMEOUT_S = 10.0
#: Two quality reports of enable_lastmile_test must arrive within this, from the call.
QUALITY_WINDOW_S = 6.0
#: Loopback: no loss, a short round trip.
GOOD_QUALITIES = (QualityType.EXCELLENT, QualityType.GOOD)
#: The engine's sending capped at 400 kbps behind a 300 ms queue, no loss.
CAPPED_UPLINK = {
    "rtc.network_simulation_send": {
        "loss_percent": 0, "delay_ms": 10, "jitter_ms": 0, "seed": 1, "bandwidth_kbps": 400, "queue_ms": 300,
    }
}


class Events(agoraish.EventHandler):
    """Records the last-mile and channel events of one engine, in order."""

    def __init__(self) -> None:
        self.events: List[Tuple[str, tuple]] = []
        self.cond = threading.Condition()

    def _add(self, name: str, *args: Any) -> None:
        with self.cond:
            self.events.append((name, args))
            self.cond.notify_all()

    def on_lastmile_quality(self, quality):
        self._add("quality", quality)

    def on_lastmile_probe_result(self, result):
        self._add("result", result)

    def on_join_channel_success(self, channel, uid, elapsed):
        self._add("join", channel, uid)

    def on_leave_channel(self, stats):
        self._add("leave")

    def named(self, name: str) -> List[tuple]:
        with self.cond:
            return [args for n, args in self.events if n == name]

    def order(self) -> List[str]:
        with self.cond:
            return [n for n, _ in self.events]

    def wait_until(self, what: str, done: Callable[[], bool], timeout: float) -> None:
        with self.cond:
            ok = self.cond.wait_for(done, timeout)
            events = list(self.events)
        assert ok, f"no {what} in {timeout} s; events: {events}"

    def wait_count(self, name: str, count: int, timeout: float) -> None:
        self.wait_until(f"{count} x {name}", lambda: sum(1 for n, _ in self.events if n == name) >= count, timeout)


def refused(call: Callable[..., Any], *args: Any) -> int:
    with pytest.raises(AgoraishError) as info:
        call(*args)
    return info.value.code


def wait_disconnected(engine: agoraish.RtcEngine, timeout: float = 5.0) -> None:
    """Until the probe's private channel has been left (the engine leaves it after reporting)."""
    deadline = time.monotonic() + timeout
    while engine.get_connection_state() != agoraish.ConnectionState.DISCONNECTED:
        assert time.monotonic() < deadline, f"still {engine.get_connection_state().name} after the probe"
        time.sleep(0.05)


def within(value: int, expected: int, fraction: float) -> bool:
    return abs(value - expected) <= expected * fraction


def test_a_probe_measures_loopback_both_ways_then_a_call_starts(channel_server, make_engine):
    events = Events()
    engine = make_engine(events, server_url=channel_server.url)
    start = time.monotonic()
    engine.start_lastmile_probe_test(LastmileProbeConfig(
        probe_uplink=True, probe_downlink=True, expected_uplink_bitrate=MBPS, expected_downlink_bitrate=MBPS))
    events.wait_count("result", 1, RESULT_TIMEOUT_S)
    took = time.monotonic() - start

    order = events.order()
    assert "quality" in order and order.index("quality") < order.index("result"), order
    qualities = [q for (q,) in events.named("quality")]
    assert all(q in GOOD_QUALITIES for q in qualities), qualities
    [(result,)] = events.named("result")
    assert isinstance(result, agoraish.LastmileProbeResult)
    assert result.state == LastmileProbeResultState.COMPLETE, result
    for name, report in (("uplink", result.uplink_report), ("downlink", result.downlink_report)):
        assert isinstance(report, agoraish.LastmileProbeOneWayResult)
        assert 0 <= report.packet_loss_rate <= 2, (name, result)
        assert within(report.available_bandwidth, MBPS, 0.2), (name, result)
    assert result.rtt >= 0, result
    assert took <= RESULT_TIMEOUT_S, took

    # The probe ended itself (nothing to stop) and leaves its private channel;
    # then a call starts as usual.
    wait_disconnected(engine)
    assert refused(engine.stop_lastmile_probe_test) == EREFUSED
    engine.join_channel(None, "after-probe", uid=7)
    events.wait_count("join", 1, RESULT_TIMEOUT_S)
    # Every event of the probe came before this join: its channel was not reported.
    assert events.named("join") == [("after-probe", 7)], events.events
    assert events.named("leave") == [], events.events
    assert len(events.named("result")) == 1, "one result per probe"
    engine.leave_channel()
    events.wait_count("leave", 1, RESULT_TIMEOUT_S)


def test_a_capped_uplink_is_measured_at_its_cap(channel_server, make_engine):
    events = Events()
    engine = make_engine(events, server_url=channel_server.url)
    engine.set_parameters(CAPPED_UPLINK)
    engine.start_lastmile_probe_test(LastmileProbeConfig(
        probe_uplink=True, probe_downlink=False, expected_uplink_bitrate=MBPS))
    events.wait_count("result", 1, RESULT_TIMEOUT_S)
    [(result,)] = events.named("result")
    assert result.state == LastmileProbeResultState.COMPLETE, result
    assert within(result.uplink_report.available_bandwidth, 400_000, 0.2), result
    # The downlink was not probed.
    assert result.downlink_report == agoraish.LastmileProbeOneWayResult(), result


def test_the_last_mile_test_reports_quality_until_disabled(channel_server, make_engine):
    events = Events()
    engine = make_engine(events, server_url=channel_server.url)
    probe = LastmileProbeConfig(probe_uplink=True, probe_downlink=True,
                                expected_uplink_bitrate=MBPS, expected_downlink_bitrate=MBPS)
    assert refused(engine.disable_lastmile_test) == EREFUSED, "not running"
    assert refused(engine.stop_lastmile_probe_test) == EREFUSED, "no probe"

    start = time.monotonic()
    engine.enable_lastmile_test()
    # One test or probe at a time, and no echo test meanwhile.
    assert refused(engine.enable_lastmile_test) == EREFUSED, "twice"
    assert refused(engine.start_lastmile_probe_test, probe) == EREFUSED, "a probe during the test"
    assert refused(engine.stop_lastmile_probe_test) == EREFUSED, "the test is no probe"
    assert refused(engine.start_echo_test, 2) == EREFUSED, "an echo test during the test"
    bad = LastmileProbeConfig(probe_uplink=True, probe_downlink=False, expected_uplink_bitrate=99_999)
    assert refused(engine.start_lastmile_probe_test, bad) == EINVAL, "a bad config is -2 first"

    events.wait_count("quality", 2, QUALITY_WINDOW_S - (time.monotonic() - start))
    qualities = [q for (q,) in events.named("quality")]
    assert all(q in GOOD_QUALITIES for q in qualities), qualities
    assert events.named("result") == [], "the test reports no probe result"

    engine.disable_lastmile_test()
    count = len(events.named("quality"))
    assert refused(engine.disable_lastmile_test) == EREFUSED, "twice"
    time.sleep(3.0)  # longer than a cycle of the test
    assert len(events.named("quality")) <= count + 1, "reports went on after disable_lastmile_test (one may be in flight)"

    # During an echo test and in a channel, neither starts.
    engine.start_echo_test(2)
    assert refused(engine.enable_lastmile_test) == EREFUSED, "during an echo test"
    assert refused(engine.start_lastmile_probe_test, probe) == EREFUSED, "a probe during an echo test"
    engine.stop_echo_test()
    engine.join_channel(None, "after-lastmile-test", uid=8)
    events.wait_count("join", 1, RESULT_TIMEOUT_S)
    assert refused(engine.enable_lastmile_test) == EREFUSED, "in a channel"
    # A probe runs beside the call, in a private connection of its own.
    engine.start_lastmile_probe_test(probe)
    assert refused(engine.start_lastmile_probe_test, probe) == EREFUSED, "a second probe"
    assert refused(engine.start_echo_test, 2) == EREFUSED, "an echo test during the probe"
    engine.stop_lastmile_probe_test()
    assert refused(engine.stop_lastmile_probe_test) == EREFUSED
    assert refused(engine.disable_lastmile_test) == EREFUSED
    engine.leave_channel()
    events.wait_count("leave", 1, RESULT_TIMEOUT_S)
    assert events.named("join") == [("after-lastmile-test", 8)], "the test's own channel was reported"


def test_a_join_ends_the_last_mile_test(channel_server, make_engine):
    events = Events()
    engine = make_engine(events, server_url=channel_server.url)
    engine.enable_lastmile_test()
    engine.join_channel(None, "ends-the-test", uid=9)
    assert refused(engine.disable_lastmile_test) == EREFUSED, "the join ended it"
    events.wait_count("join", 1, RESULT_TIMEOUT_S)
    assert events.named("join") == [("ends-the-test", 9)]
    engine.leave_channel()
    events.wait_count("leave", 1, RESULT_TIMEOUT_S)


def test_probe_configs_are_checked_in_python_and_in_the_library(make_engine):
    engine = make_engine()
    for config in (
        LastmileProbeConfig(False, False, MBPS, MBPS),
        LastmileProbeConfig(True, False, 0),
        LastmileProbeConfig(True, False, 5_000_001),
        LastmileProbeConfig(False, True, MBPS, 99_999),
        LastmileProbeConfig(True, True, 2**32 - 1, MBPS),
        LastmileProbeConfig(True, True, -1, MBPS),  # does not fit a C unsigned int
    ):
        assert refused(engine.start_lastmile_probe_test, config) == EINVAL, config
    with pytest.raises(TypeError):
        engine.start_lastmile_probe_test(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        engine.start_lastmile_probe_test({"probe_uplink": True})  # type: ignore[arg-type]
    engine.release()
    for call, args in ((engine.start_lastmile_probe_test, (LastmileProbeConfig(True, False, MBPS),)),
                       (engine.stop_lastmile_probe_test, ()), (engine.enable_lastmile_test, ()),
                       (engine.disable_lastmile_test, ())):
        assert refused(call, *args) == -7, call.__name__


def test_the_types_and_enum_are_agoras():
    assert {m.name: int(m) for m in LastmileProbeResultState} == {
        "COMPLETE": 1, "INCOMPLETE_NO_BWE": 2, "UNAVAILABLE": 3,
    }
    for name in ("LastmileProbeConfig", "LastmileProbeOneWayResult", "LastmileProbeResult",
                 "LastmileProbeResultState"):
        assert name in agoraish.__all__ and getattr(agoraish, name) is getattr(agoraish.engine, name)
    empty = agoraish.LastmileProbeResult()
    assert empty.state == LastmileProbeResultState.UNAVAILABLE and empty.rtt == 0
    assert empty.uplink_report == empty.downlink_report == agoraish.LastmileProbeOneWayResult(0, 0, 0)


def test_the_callbacks_are_on_the_handler_and_in_the_table_after_fallback():
    from agoraish import _ffi
    from agoraish.engine import _CALLBACKS

    assert list(inspect.signature(agoraish.EventHandler.on_lastmile_quality).parameters) == ["self", "quality"]
    assert list(inspect.signature(agoraish.EventHandler.on_lastmile_probe_result).parameters) == ["self", "result"]
    assert agoraish.EventHandler().on_lastmile_quality(QualityType.GOOD) is None
    assert agoraish.EventHandler().on_lastmile_probe_result(agoraish.LastmileProbeResult()) is None
    names = [spec.name for spec in _CALLBACKS]
    at = names.index("on_lastmile_quality")
    assert names[at - 1:at + 2] == [
        "on_remote_subscribe_fallback_to_audio_only", "on_lastmile_quality", "on_lastmile_probe_result"]
    assert [name for name, _ in _ffi.EventHandlerTable._fields_ if name.startswith("on_")] == names


def test_the_callbacks_convert_and_copy_through_the_c_table(make_engine):
    from agoraish import _ffi

    class Recorder(agoraish.EventHandler):
        def __init__(self) -> None:
            self.events: List[tuple] = []

        def on_lastmile_quality(self, quality):
            self.events.append(("quality", quality))

        def on_lastmile_probe_result(self, result):
            self.events.append(("result", result))

    handler = Recorder()
    engine = make_engine(handler)
    table = engine._keepalive.table
    assert table.on_lastmile_quality and table.on_lastmile_probe_result
    raw = _ffi.LastmileProbeResult()
    raw.struct_size = ctypes.sizeof(raw)
    raw.state = _ffi.AGORAISH_LASTMILE_PROBE_RESULT_INCOMPLETE_NO_BWE
    raw.uplink_report.packet_loss_rate, raw.uplink_report.jitter, raw.uplink_report.available_bandwidth = 1, 2, 3
    raw.downlink_report.packet_loss_rate = 100
    raw.rtt = 2**32 - 1
    # Through the C function pointers the library calls.
    table.on_lastmile_quality(None, None, 2)
    table.on_lastmile_quality(None, None, 42)
    table.on_lastmile_probe_result(None, None, ctypes.pointer(raw))
    raw.state, raw.rtt = 1, 5  # the handler got a copy
    table.on_lastmile_probe_result(None, None, None)
    # A result of an older, smaller struct: fields past struct_size keep the defaults.
    raw.struct_size = 8
    table.on_lastmile_probe_result(None, None, ctypes.pointer(raw))
    assert handler.events == [
        ("quality", QualityType.GOOD),
        ("quality", 42),  # a value the header does not list stays an int
        ("result", agoraish.LastmileProbeResult(LastmileProbeResultState.INCOMPLETE_NO_BWE,
                                                agoraish.LastmileProbeOneWayResult(1, 2, 3),
                                                agoraish.LastmileProbeOneWayResult(100, 0, 0), 2**32 - 1)),
        ("result", agoraish.LastmileProbeResult()),
        ("result", agoraish.LastmileProbeResult(LastmileProbeResultState.COMPLETE)),
    ]
    assert type(handler.events[0][1]) is QualityType
    assert type(handler.events[2][1].state) is LastmileProbeResultState


def test_callbacks_not_overridden_are_not_installed(make_engine):
    engine = make_engine(agoraish.EventHandler())
    table = engine._keepalive.table
    assert not table.on_lastmile_quality
    assert not table.on_lastmile_probe_result
