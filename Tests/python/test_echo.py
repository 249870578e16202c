"""The echo test (Agora's startEchoTest / stopEchoTest) through the embedded server, from Python.

One engine with an external audio source and sink starts an echo test with a
2 s interval, pushes 1 s of a 440 Hz tone then silence, and pulls what it
hears every 10 ms for 4 s: the tone comes back about 2 s after it was pushed
and lasts about 1 s. The test's private channel is not reported (no
on_join_channel_success, no on_leave_channel); a join during the test is
refused (-17); after stop_echo_test a normal join works.

With a certificate (ABI 0.9: start_echo_test_with_config, the probe's token):
the server checks the join of an echo test or a last-mile probe like any
join, for the channel it names and uid 0. A token built for that channel and
uid 0 lets the echo come back and the probe measure; no token, one for
another channel or uid, or an expired one makes the join fail: FAILED with
INVALID_TOKEN (TOKEN_EXPIRED after on_request_token). A refused echo test
stays started (nothing echoed) until stop_echo_test; a refused probe reports
on_lastmile_probe_result UNAVAILABLE at once and ends.
"""

from __future__ import annotations

import array
import math
import threading
import time
from typing import Any, Callable, List, Optional, Tuple

import pytest

import agoraish
from abuse_support import APP, CERT, build_token
from agoraish import ConnectionChangedReason, ConnectionState, EchoTestConfiguration, LastmileProbeConfig
MBPS = 1_000_000
RATE = 48000
CHUNK = RATE // 100  # 10 ms
AMPLITUDE = 8000
FREQUENCY = 440
INTERVAL_S = 2
#: Pulls (10 ms each) whose RMS is above this are loud: the tone's RMS is about 5657.
LOUD_RMS = 1000
TIMEOUT = 15.0


class Events(agoraish.EventHandler):
    """Records the channel events of one engine; `wait_for` blocks until one matches."""

    def __init__(self) -> None:
        self.events: List[Tuple[str, tuple]] = []
        self.cond = threading.Condition()

    def _add(self, name: str, *args: Any) -> None:
        with self.cond:
            self.events.append((name, args))
            self.cond.notify_all()

    def on_join_channel_success(self, channel, uid, elapsed):
        self._add("join", channel, uid)

    def on_rejoin_channel_success(self, channel, uid, elapsed):
        self._add("rejoin", channel, uid)

    def on_leave_channel(self, stats):
        self._add("leave")

    def on_connection_state_changed(self, state, reason):
        self._add("state", state, reason)

    def on_request_token(self):
        self._add("request_token")

    def on_error(self, err, msg):
        self._add("error", err, msg)

    def on_lastmile_quality(self, quality):
        self._add("quality", quality)

    def on_lastmile_probe_result(self, result):
        self._add("result", result)

    def clear(self) -> None:
        with self.cond:
            self.events.clear()

    def named(self, name: str) -> List[tuple]:
        with self.cond:
            return [args for n, args in self.events if n == name]

    def wait_for(self, what: str, match: Callable[[str, tuple], bool]) -> None:
        with self.cond:
            ok = self.cond.wait_for(lambda: any(match(n, a) for n, a in self.events), TIMEOUT)
            events = list(self.events)
        assert ok, f"no {what} in {TIMEOUT} s; events: {events}"


def tone_chunk(index: int) -> array.array:
    """The `index`-th 10 ms chunk of the 440 Hz tone."""
    start = index * CHUNK
    return array.array(
        "h", (int(AMPLITUDE * math.sin(2 * math.pi * FREQUENCY * (start + j) / RATE)) for j in range(CHUNK)))


def rms(data: bytes) -> float:
    samples = array.array("h")
    samples.frombytes(data)
    return math.sqrt(sum(s * s for s in samples) / len(samples))


def assert_the_tone_comes_back(engine: agoraish.RtcEngine) -> None:
    """Pushes 1 s of tone then silence and pulls every 10 ms for 4 s: the tone
    comes back INTERVAL_S later, about as long as it was pushed."""
    silence = array.array("h", bytes(2 * CHUNK))
    loud: List[int] = []
    start = time.monotonic()
    for i in range(400):
        engine.push_external_audio_frame(tone_chunk(i) if i < 100 else silence)
        if rms(engine.pull_playback_audio_frame(CHUNK)) > LOUD_RMS:
            loud.append(i)
        delay = start + (i + 1) / 100 - time.monotonic()
        if delay > 0:
            time.sleep(delay)

    assert loud, "the tone never came back"
    # Pushed from 0 to 1 s, heard back 2 s later (plus the path and the jitter buffer).
    assert 190 <= loud[0] < 260, f"first loud pull at {loud[0] * 10} ms"
    assert 80 <= len(loud) <= 115, f"{len(loud)} loud pulls for 100 pushed"
    assert loud[-1] - loud[0] <= 130, f"loud from {loud[0] * 10} to {loud[-1] * 10} ms"


def token(channel: str, *, uid: int = 0, expire: int = 3600, issue_ts: Optional[int] = None) -> str:
    """An AccessToken2 for APP (certificate CERT), `channel` and `uid`, from `agoraish-token build`."""
    return build_token(channel, uid=uid, expire=expire, issue_ts=issue_ts)


@pytest.fixture
def cert_server():
    """A server where APP has the certificate CERT: every join needs a valid token, echo tests and probes too."""
    server = agoraish.ChannelServer(config_json={"apps": [{"app_id": APP, "certificate": CERT}]})
    server.start()
    yield server
    server.release()


def is_state(state: ConnectionState, reason: Optional[ConnectionChangedReason] = None) -> Callable[[str, tuple], bool]:
    return lambda n, a: n == "state" and a[0] == state and (reason is None or a[1] == reason)


def test_the_echo_test_plays_the_users_own_audio_back_after_the_interval(tmp_path):
    events = Events()
    with agoraish.ChannelServer() as server:
        engine = agoraish.RtcEngine(APP, events, server_url=server.url, log_file=str(tmp_path / "echo.log"))
        try:
            engine.set_external_audio_source(True, RATE, 1)
            engine.set_external_audio_sink(True, RATE, 1)
            engine.start_echo_test(INTERVAL_S)
            with pytest.raises(agoraish.AgoraishError) as refused:
                engine.join_channel("", "during-echo", uid=7)
            assert refused.value.code == -17, "a join during the echo test"
            events.wait_for("CONNECTED for the echo test",
                            lambda n, a: n == "state" and a[0] == agoraish.ConnectionState.CONNECTED)
            time.sleep(0.5)  # the media transport binds with STUN

            # One second of tone, then silence; a pull every 10 ms for four seconds.
            assert_the_tone_comes_back(engine)

            engine.stop_echo_test()
            with pytest.raises(agoraish.AgoraishError) as stopped:
                engine.stop_echo_test()
            assert stopped.value.code == -5, "stop_echo_test twice"
            events.wait_for("DISCONNECTED after stop_echo_test",
                            lambda n, a: n == "state" and a[0] == agoraish.ConnectionState.DISCONNECTED)
            assert events.named("join") == [] and events.named("rejoin") == [], "the echo test's join was reported"
            assert events.named("leave") == [], "the echo test's leave was reported"

            # A normal call afterwards is reported as usual.
            engine.join_channel("", "after-echo", uid=7)
            events.wait_for("on_join_channel_success after the echo test", lambda n, a: n == "join")
            assert events.named("join") == [("after-echo", 7)]
            engine.leave_channel()
            events.wait_for("on_leave_channel after the call", lambda n, a: n == "leave")
            assert len(events.named("leave")) == 1
        finally:
            engine.release()


def test_echo_test_arguments_and_states(tmp_path):
    events = Events()
    with agoraish.ChannelServer() as server:
        engine = agoraish.RtcEngine(APP, events, server_url=server.url, log_file=str(tmp_path / "echo.log"))
        try:
            for interval in (0, 1, 11, -1):
                with pytest.raises(agoraish.AgoraishError) as bad:
                    engine.start_echo_test(interval)
                assert bad.value.code == -2, interval
            with pytest.raises(agoraish.AgoraishError) as not_running:
                engine.stop_echo_test()
            assert not_running.value.code == -5
            engine.start_echo_test(10)
            with pytest.raises(agoraish.AgoraishError) as twice:
                engine.start_echo_test(2)
            assert twice.value.code == -5
            engine.stop_echo_test()
        finally:
            engine.release()
        engine.release()
        with pytest.raises(agoraish.AgoraishError) as released:
            engine.start_echo_test(2)
        assert released.value.code == -7
        with pytest.raises(agoraish.AgoraishError) as released:
            engine.stop_echo_test()
        assert released.value.code == -7


@pytest.mark.parametrize("before", ["leave_channel", "stop_echo_test"])
def test_an_echo_test_started_while_a_leave_is_pending_is_not_reported(tmp_path, before):
    events = Events()
    with agoraish.ChannelServer() as server:
        engine = agoraish.RtcEngine(APP, events, server_url=server.url, log_file=str(tmp_path / "echo.log"))
        try:
            if before == "leave_channel":
                engine.join_channel("", "before-echo", uid=7)
                events.wait_for("on_join_channel_success", lambda n, a: n == "join")
                engine.leave_channel()
            else:
                engine.start_echo_test(2)
                events.wait_for("CONNECTED", lambda n, a: n == "state" and a[0] == agoraish.ConnectionState.CONNECTED)
                engine.stop_echo_test()
            engine.start_echo_test(2)  # at once: the leave is still pending
            calls = 1 if before == "leave_channel" else 0
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline and len(events.named("leave")) < calls:
                time.sleep(0.05)
            time.sleep(1)  # the echo test's join has had time to arrive
            engine.stop_echo_test()
            time.sleep(1)  # and its leave
            assert len(events.named("join")) == calls, events.events
            assert len(events.named("leave")) == calls, events.events
        finally:
            engine.release()


# -- with a certificate: the token of the echo test and of the probe (ABI 0.9) ------------


def test_with_a_certificate_the_echo_test_needs_a_token_for_its_channel_and_uid_0(cert_server, tmp_path):
    events = Events()
    engine = agoraish.RtcEngine(APP, events, server_url=cert_server.url, log_file=str(tmp_path / "echo.log"))
    try:
        engine.set_external_audio_source(True, RATE, 1)
        engine.set_external_audio_sink(True, RATE, 1)
        now = int(time.time())
        refused = {
            "start_echo_test (no token)": None,
            "no token": EchoTestConfiguration(),
            "another channel's token": EchoTestConfiguration(token=token("elsewhere")),
            "a token for uid 5": EchoTestConfiguration(token=token("echo", uid=5)),
            "a token for echo, channel_id echo-room": EchoTestConfiguration(token=token("echo"), channel_id="echo-room"),
            "an expired token": EchoTestConfiguration(token=token("echo", issue_ts=now - 100, expire=50)),
        }
        for name, config in refused.items():
            events.clear()
            if config is None:
                engine.start_echo_test(INTERVAL_S)
            else:
                engine.start_echo_test_with_config(config)
            reason = (ConnectionChangedReason.TOKEN_EXPIRED if name == "an expired token"
                      else ConnectionChangedReason.INVALID_TOKEN)
            events.wait_for(f"FAILED({reason.name}) for {name}", is_state(ConnectionState.FAILED, reason))
            assert engine.get_connection_state() == ConnectionState.FAILED, name
            # The refused test stays started (nothing is echoed) until stop_echo_test.
            with pytest.raises(agoraish.AgoraishError) as running:
                engine.start_echo_test_with_config(EchoTestConfiguration(token=token("echo")))
            assert running.value.code == -5, name
            engine.stop_echo_test()
            events.wait_for(f"DISCONNECTED after {name}", is_state(ConnectionState.DISCONNECTED))
            assert events.named("request_token") == ([()] if name == "an expired token" else []), name
            assert events.named("join") == [] and events.named("leave") == [], (name, events.events)
            assert not any(a[0] == ConnectionState.CONNECTED for a in events.named("state")), (name, events.events)

        # A token for the default channel name ("echo") and uid 0.
        events.clear()
        engine.start_echo_test_with_config(EchoTestConfiguration(token=token("echo"), interval_in_seconds=INTERVAL_S))
        events.wait_for("CONNECTED with a token for echo", is_state(ConnectionState.CONNECTED))
        engine.stop_echo_test()
        events.wait_for("DISCONNECTED", is_state(ConnectionState.DISCONNECTED))

        # A token for a channel of the host's naming: the echo comes back.
        events.clear()
        engine.start_echo_test_with_config(EchoTestConfiguration(
            enable_audio=True, enable_video=False, token=token("echo-room"), channel_id="echo-room",
            interval_in_seconds=INTERVAL_S))
        events.wait_for("CONNECTED with a token for echo-room", is_state(ConnectionState.CONNECTED))
        time.sleep(0.5)  # the media transport binds with STUN
        assert_the_tone_comes_back(engine)
        engine.stop_echo_test()
        events.wait_for("DISCONNECTED after the echo", is_state(ConnectionState.DISCONNECTED))
        assert events.named("join") == [] and events.named("leave") == [], events.events
        assert events.named("error") == [], events.events
    finally:
        engine.release()


def test_with_a_certificate_the_probe_needs_a_token_for_its_channel_and_uid_0(cert_server, tmp_path):
    events = Events()
    engine = agoraish.RtcEngine(APP, events, server_url=cert_server.url, log_file=str(tmp_path / "probe.log"))
    try:
        both = dict(probe_uplink=True, probe_downlink=True, expected_uplink_bitrate=MBPS,
                    expected_downlink_bitrate=MBPS)
        refused = {
            "no token": LastmileProbeConfig(**both),
            "a token for probe-room, channel_id probe": LastmileProbeConfig(**both, token=token("probe-room")),
            "a token for uid 9": LastmileProbeConfig(**both, token=token("probe", uid=9)),
        }
        for name, config in refused.items():
            events.clear()
            start = time.monotonic()
            engine.start_lastmile_probe_test(config)
            events.wait_for(f"on_lastmile_probe_result for {name}", lambda n, a: n == "result")
            took = time.monotonic() - start
            [(result,)] = events.named("result")
            assert result.state == agoraish.LastmileProbeResultState.UNAVAILABLE, (name, result)
            assert took < 3.0, f"{name}: the refused probe reported after {took:.1f} s"
            failed = [a for a in events.named("state") if a[0] == ConnectionState.FAILED]
            assert failed == [(ConnectionState.FAILED, ConnectionChangedReason.INVALID_TOKEN)], (name, events.events)
            assert events.named("quality") == [], (name, events.events)
            events.wait_for(f"DISCONNECTED after {name}", is_state(ConnectionState.DISCONNECTED))
            with pytest.raises(agoraish.AgoraishError) as ended:
                engine.stop_lastmile_probe_test()
            assert ended.value.code == -5, f"{name}: the refused probe did not end"

        # The quality test presents no token: refused, one UNKNOWN quality, and it ends.
        events.clear()
        engine.enable_lastmile_test()
        events.wait_for("on_lastmile_quality of the refused last-mile test", lambda n, a: n == "quality")
        assert events.named("quality") == [(agoraish.QualityType.UNKNOWN,)], events.events
        events.wait_for("DISCONNECTED after the refused last-mile test", is_state(ConnectionState.DISCONNECTED))
        with pytest.raises(agoraish.AgoraishError) as ended:
            engine.disable_lastmile_test()
        assert ended.value.code == -5

        # A token for the probe's channel and uid 0: the probe measures.
        events.clear()
        engine.start_lastmile_probe_test(LastmileProbeConfig(**both, token=token("probe-room"), channel_id="probe-room"))
        events.wait_for("on_lastmile_probe_result with a token", lambda n, a: n == "result")
        [(result,)] = events.named("result")
        assert result.state == agoraish.LastmileProbeResultState.COMPLETE, result
        for report in (result.uplink_report, result.downlink_report):
            assert report.packet_loss_rate <= 2 and abs(report.available_bandwidth - MBPS) <= MBPS * 0.2, result
        assert [a for a in events.named("state") if a[0] == ConnectionState.FAILED] == [], events.events
        assert len(events.named("quality")) == 1, events.events
        events.wait_for("DISCONNECTED after the probe", is_state(ConnectionState.DISCONNECTED))

        # The default channel name: a token for "probe".
        events.clear()
        engine.start_lastmile_probe_test(LastmileProbeConfig(probe_uplink=True, probe_downlink=False,
                                                             expected_uplink_bitrate=MBPS, token=token("probe")))
        events.wait_for("on_lastmile_probe_result with a token for probe", lambda n, a: n == "result")
        [(result,)] = events.named("result")
        assert result.state == agoraish.LastmileProbeResultState.COMPLETE, result
        assert events.named("join") == [] and events.named("leave") == [], events.events
    finally:
        engine.release()


def test_echo_test_configuration_arguments(tmp_path):
    events = Events()
    with agoraish.ChannelServer() as server:
        engine = agoraish.RtcEngine(APP, events, server_url=server.url, log_file=str(tmp_path / "echo.log"))
        try:
            bad = {
                "interval 1": (EchoTestConfiguration(interval_in_seconds=1), -2),
                "interval 11": (EchoTestConfiguration(interval_in_seconds=11), -2),
                "no medium": (EchoTestConfiguration(enable_audio=False), -2),
                "a bad channel": (EchoTestConfiguration(channel_id="no/slash"), -2),
                "a channel of 64 bytes": (EchoTestConfiguration(channel_id="c" * 64), -2),
                "video": (EchoTestConfiguration(enable_video=True), -4),
                "video alone": (EchoTestConfiguration(enable_audio=False, enable_video=True), -4),
            }
            for name, (config, code) in bad.items():
                with pytest.raises(agoraish.AgoraishError) as info:
                    engine.start_echo_test_with_config(config)
                assert info.value.code == code, name
            with pytest.raises(agoraish.AgoraishError) as info:
                engine.start_echo_test_with_config(EchoTestConfiguration(interval_in_seconds=2**31))
            assert info.value.code == -2, "an interval C cannot take"
            for wrong in (None, 2, {"interval_in_seconds": 2}):
                with pytest.raises(TypeError):
                    engine.start_echo_test_with_config(wrong)  # type: ignore[arg-type]
            with pytest.raises(TypeError):
                engine.start_echo_test_with_config(EchoTestConfiguration(token=5))  # type: ignore[arg-type]
            assert EchoTestConfiguration() == EchoTestConfiguration(True, False, None, None, 2), "the defaults"
            assert "EchoTestConfiguration" in agoraish.__all__
            # No certificate: the token is carried, not checked.
            engine.start_echo_test_with_config(EchoTestConfiguration(token="007-not-checked", channel_id="mine"))
            events.wait_for("CONNECTED", is_state(ConnectionState.CONNECTED))
            engine.stop_echo_test()
        finally:
            engine.release()
        with pytest.raises(agoraish.AgoraishError) as released:
            engine.start_echo_test_with_config(EchoTestConfiguration())
        assert released.value.code == -7
