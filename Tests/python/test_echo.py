"""The echo test (Agora's startEchoTest / stopEchoTest) through the embedded server, from Python.

One engine with an external audio source and sink starts an echo test with a
2 s interval, pushes 1 s of a 440 Hz tone then silence, and pulls what it
hears every 10 ms for 4 s: the tone comes back about 2 s after it was pushed
and lasts about 1 s. The test's private channel is not reported (no
on_join_channel_success, no on_leave_channel); a join during the test is
refused (-17); after stop_echo_test a normal join works.
"""

from __future__ import annotations

import array
import math
import threading
import time
from typing import Any, Callable, List, Tuple

import pytest

import agoraish

APP = "0123456789abcdef0123456789abcdef"
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
