"""Quick switching from Python (ABI 0.12, Agora's QuickSwitchChannel):
preload_channel and update_preload_channel_token through an embedded server.
An audience preloads two channels, each with a host sending its own tone, and
switches between them (leave_channel, then join_channel of the other with the
same uid): each join goes on its preloaded signaling connection and the
channel's host is heard at once. The Python counterpart of
Tests/AgoraishIntegrationTests/LoopbackQuickSwitchTests.swift; the hosts,
tones and listening are test_connections.py's."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

import pytest

import agoraish
from abuse_support import APP as TOKEN_APP, CERT, token_channel_server
from agoraish.token import RtcTokenBuilder, Role_Subscriber
from peers import EventLog
from support import TIMEOUT
from test_connections import APP, RATE, Recorder, expect_error, frequency, listen, tone

#: Each channel's host: its uid and the frequency of its tone.
HOSTS: Dict[str, Tuple[int, float]] = {"qs-a": (11, 440.0), "qs-b": (21, 1000.0)}
VIEWER_UID = 7
#: What the engine logs when a join goes on its preloaded connection.
CARRIED = "the preloaded connection carries the join"


class Viewer(Recorder):
    """The viewer's events that matter here, into an EventLog."""

    def on_first_remote_audio_decoded(self, uid, elapsed):
        self.log.add("on_first_remote_audio_decoded", [uid, elapsed])

    def on_error(self, err, msg):
        self.log.add("on_error", [err, msg])


def log_count(engine: agoraish.RtcEngine, text: str, count: int) -> int:
    """Waits (at most TIMEOUT) until the engine's log file holds `text` `count` times; returns how often it does."""
    path = Path(engine.log_file)
    deadline = time.monotonic() + TIMEOUT
    while True:
        found = path.read_text(encoding="utf-8", errors="replace").count(text)
        if found >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def viewer(make_engine, server_url: str, app_id: str = APP) -> Tuple[agoraish.RtcEngine, EventLog]:
    """An audience in live broadcasting that only listens (external sink at RATE)."""
    log = EventLog("viewer")
    engine = make_engine(Viewer(log), app_id=app_id, server_url=server_url)
    engine.set_channel_profile(agoraish.ChannelProfile.LIVE_BROADCASTING)
    engine.set_client_role(agoraish.ClientRole.AUDIENCE)
    engine.enable_local_audio(False)
    engine.set_external_audio_sink(True, RATE, 1)
    return engine, log


@pytest.fixture
def hosts(make_engine, channel_server) -> Iterator[List[agoraish.RtcEngine]]:
    """A broadcaster in each channel of HOSTS, each pushing its tone (external
    source, 48 kHz) 10 ms every 10 ms until the test ends."""
    engines, logs = [], []
    for channel, (uid, _) in HOSTS.items():
        log = EventLog(channel)
        engine = make_engine(Recorder(log), app_id=APP, server_url=channel_server.url)
        engine.set_channel_profile(agoraish.ChannelProfile.LIVE_BROADCASTING)
        engine.set_client_role(agoraish.ClientRole.BROADCASTER)
        engine.set_external_audio_source(True, 48000, 1)
        engine.join_channel(None, channel, uid=uid)
        engines.append(engine)
        logs.append(log)
    for log, (channel, (uid, _)) in zip(logs, HOSTS.items()):
        log.wait("on_join_channel_success", channel, uid)
    seconds = [tone(hz, 1.0) for _, hz in HOSTS.values()]  # whole periods: each second loops
    stop = threading.Event()

    def push() -> None:
        start, k = time.monotonic(), 0
        while not stop.is_set():
            at = (k % 100) * 480
            for engine, pcm in zip(engines, seconds):
                engine.push_external_audio_frame(pcm[at:at + 480])
            k += 1
            delay = start + k / 100 - time.monotonic()
            if delay > 0:
                time.sleep(delay)

    pusher = threading.Thread(target=push, name="hosts-pusher")
    pusher.start()
    try:
        yield engines
    finally:
        stop.set()
        pusher.join()


def test_a_preloaded_channel_is_heard_right_after_each_switch(make_engine, channel_server, hosts):
    v, log = viewer(make_engine, channel_server.url)
    v.preload_channel(None, "qs-a", VIEWER_UID)
    v.preload_channel("", "qs-b", VIEWER_UID)
    time.sleep(0.5)  # the server accepts both preloads; the hosts' audio flows

    # Into qs-a, then back and forth: each join on its preloaded connection, each host heard.
    order = ["qs-a", "qs-b", "qs-a", "qs-b"]
    for step, channel in enumerate(order):
        host_uid, hz = HOSTS[channel]
        if step:
            v.leave_channel()
            log.wait("on_leave_channel", count=step)
        decoded_before = log.count("on_first_remote_audio_decoded")
        joined_at = time.monotonic()
        v.join_channel(None, channel, uid=VIEWER_UID)
        (heard,) = listen([v], 900)  # the sink is pulled as a host would; decoding follows the pulls
        index = log.wait("on_first_remote_audio_decoded", count=decoded_before + 1)
        uid = log.snapshot()[index][1][0]
        delay = log.time_of(index) - joined_at
        assert uid == host_uid, f"{channel}: first audio of {uid}"
        assert delay < 0.5, f"{channel}: first audio {delay * 1000:.0f} ms after the join"
        assert abs(frequency(heard) - hz) < 20, f"{channel} plays {hz} Hz: {frequency(heard)} Hz"
        log.wait("on_join_channel_success", channel, VIEWER_UID, count=order[:step + 1].count(channel))
        log.wait("on_user_joined", host_uid, count=order[:step + 1].count(channel))
    assert log_count(v, CARRIED, len(order)) == len(order), "every join went on its preloaded connection"
    assert log.count("on_error") == 0, log.snapshot()

    # A uid that was not preloaded: a join of its own, heard as well.
    v.leave_channel()
    log.wait("on_leave_channel", count=len(order))
    v.join_channel(None, "qs-a", uid=VIEWER_UID + 1)
    (heard,) = listen([v], 900)
    log.wait("on_join_channel_success", "qs-a", VIEWER_UID + 1)
    assert abs(frequency(heard) - HOSTS["qs-a"][1]) < 20
    assert log_count(v, CARRIED, 0) == len(order), "a join on a connection of its own"


def test_switch_channel_goes_on_the_preloaded_connection(make_engine, channel_server, hosts):
    v, log = viewer(make_engine, channel_server.url)
    v.preload_channel(None, "qs-b", VIEWER_UID)
    v.join_channel(None, "qs-a", uid=VIEWER_UID)
    log.wait("on_join_channel_success", "qs-a", VIEWER_UID)
    time.sleep(0.3)  # the preload is accepted meanwhile
    v.switch_channel(None, "qs-b")
    log.wait("on_leave_channel")
    log.wait("on_join_channel_success", "qs-b", VIEWER_UID)
    (heard,) = listen([v], 900)
    assert abs(frequency(heard) - HOSTS["qs-b"][1]) < 20
    assert log_count(v, CARRIED, 1) == 1


def test_preload_errors_are_exceptions(make_engine, channel_server):
    e = make_engine(app_id=APP, server_url=channel_server.url)
    error = expect_error(-8, lambda: e.update_preload_channel_token("007abc"))  # nothing preloaded
    assert error.operation == "update_preload_channel_token" and error.error_code == agoraish.ErrorCode.INVALID_STATE
    error = expect_error(-102, lambda: e.preload_channel(None, "bad/name", VIEWER_UID))
    assert error.operation == "preload_channel" and error.error_code == agoraish.ErrorCode.INVALID_CHANNEL_NAME
    expect_error(-102, lambda: e.preload_channel(None, "", VIEWER_UID))
    expect_error(-102, lambda: e.preload_channel(None, "x" * 64, VIEWER_UID))
    expect_error(-2, lambda: e.preload_channel("t" * 2049, "ok", VIEWER_UID))  # at most 2048 bytes
    expect_error(-2, lambda: e.preload_channel("\u00e9" * 1024 + "t", "ok", VIEWER_UID))  # 2049 bytes in UTF-8
    expect_error(-2, lambda: e.preload_channel(None, None, VIEWER_UID))  # type: ignore[arg-type]
    expect_error(-2, lambda: e.preload_channel("\udcff", "ok", VIEWER_UID))  # not UTF-8
    expect_error(-2, lambda: e.preload_channel(None, b"ok\xff", VIEWER_UID))
    expect_error(-2, lambda: e.preload_channel(None, "ok\0", VIEWER_UID))
    expect_error(-2, lambda: e.preload_channel(None, "ok", -1))
    expect_error(-2, lambda: e.preload_channel(None, "ok", 2**32))
    with pytest.raises(TypeError):
        e.preload_channel(None, "ok", "7")  # type: ignore[arg-type]
    expect_error(-8, lambda: e.update_preload_channel_token(None))  # the refused calls kept nothing

    e.preload_channel("t" * 2048, "ok", 0)
    e.preload_channel(None, "ok", 2**32 - 1)
    e.preload_channel(b"007abc", b"ok", VIEWER_UID)
    for token in (None, "", "007abc", "t" * 2048):
        e.update_preload_channel_token(token)
    expect_error(-2, lambda: e.update_preload_channel_token("t" * 2049))
    expect_error(-2, lambda: e.update_preload_channel_token("\udcff"))
    assert e.get_connection_state() == agoraish.ConnectionState.DISCONNECTED, "preloading joins nothing"

    # ws:// to a host other than loopback may not carry tokens: -5, after the arguments.
    remote = make_engine(app_id=APP, server_url="ws://10.99.0.1:7450")
    expect_error(-5, lambda: remote.preload_channel(None, "ok", VIEWER_UID))
    expect_error(-102, lambda: remote.preload_channel(None, "bad/name", VIEWER_UID))
    expect_error(-8, lambda: remote.update_preload_channel_token("007abc"))

    e.release()
    expect_error(-7, lambda: e.preload_channel(None, "ok", VIEWER_UID))
    expect_error(-7, lambda: e.update_preload_channel_token(None))


def test_update_preload_channel_token_makes_a_refused_preload_good(make_engine):
    # A server that checks tokens: the preload's token is refused, the updated one accepted.
    with token_channel_server() as server:
        log = EventLog("viewer")
        v = make_engine(Viewer(log), app_id=TOKEN_APP, server_url=server.url)
        good = RtcTokenBuilder.build_token_with_uid(TOKEN_APP, CERT, "qs-token", VIEWER_UID, Role_Subscriber, 600)
        v.preload_channel("not-a-token", "qs-token", VIEWER_UID)
        assert log_count(v, f"preload of qs-token as {VIEWER_UID} refused: -110", 1) == 1
        v.update_preload_channel_token(good)
        time.sleep(0.3)  # checked again, and accepted
        v.set_channel_profile(agoraish.ChannelProfile.LIVE_BROADCASTING)
        v.set_client_role(agoraish.ClientRole.AUDIENCE)
        v.join_channel(good, "qs-token", uid=VIEWER_UID)
        log.wait("on_join_channel_success", "qs-token", VIEWER_UID)
        assert log_count(v, CARRIED, 1) == 1, "the join went on the preloaded connection"
        assert log.count("on_error") == 0, log.snapshot()
        v.release()  # before its server
