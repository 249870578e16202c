"""Channels end to end: engines in this process and in a child process, on an embedded server.

Each test asserts every callback each engine received, in order, with the
values include/agoraish.h and docs/protocol.md document. An exact list taken
after an engine's own last event also shows what it did *not* receive: the
server sends a connection its messages in order, so a notice that should not
exist would have arrived before that last event.
"""

from __future__ import annotations

import ctypes
import gc
import math
import re
import threading
import time
import weakref
from typing import List

import pytest

import agoraish
from agoraish import AgoraishError, ChannelProfile, ClientRole, ConnectionState, _ffi
from conftest import APP_ID
from peers import ANY, ELAPSED, LEAVE_STATS_AUDIO_FIELDS, Between, expect_events, join_both
from support import TIMEOUT

CONNECTING = ("on_connection_state_changed", [2, 0])
CONNECTED = ("on_connection_state_changed", [3, 1])
LEFT = ("on_connection_state_changed", [1, 5])
CALL_ID = re.compile(r"^01234567-(\d+)-(\d{13})$")


def joined(channel: str, uid) -> tuple:
    return ("on_join_channel_success", [channel, uid, ELAPSED])


def user_joined(uid) -> tuple:
    return ("on_user_joined", [uid, ELAPSED])


def offline(uid, reason: int) -> tuple:
    return ("on_user_offline", [uid, reason])


def role_changed(old: int, new: int) -> tuple:
    return ("on_client_role_changed", [old, new])


def leave_stats(user_count: int, duration=ANY, min_tx_packets: int = 2) -> tuple:
    """on_leave_channel: at least the join and the leave went out, the joined and left answers came in."""
    return ("on_leave_channel", [{
        "duration": duration, "tx_bytes": Between(1, 10**6), "rx_bytes": Between(1, 10**6),
        "tx_packets": Between(min_tx_packets, 10**4), "rx_packets": Between(2, 10**4), "user_count": user_count,
        **LEAVE_STATS_AUDIO_FIELDS,
    }])


def leave(peer) -> None:
    """Leaves and waits for DISCONNECTED."""
    before = peer.log.count("on_leave_channel")
    peer.call("leave_channel")
    peer.log.wait("on_leave_channel", count=before + 1)
    peer.log.wait("on_connection_state_changed", 1, 5, count=before + 1)


def test_three_users_in_two_processes(channel_server, make_peer):
    url = channel_server.url
    a = make_peer(url, "a")
    b = make_peer(url, "b")
    c = make_peer(url, "c", remote=True)
    for peer in (a, b, c):
        assert peer.call("get_connection_state") == ConnectionState.DISCONNECTED
        with pytest.raises(AgoraishError) as error:
            peer.call("get_call_id")
        assert error.value.code == -113, "no call yet"

    # A lets the server choose its uid.
    t_join_a = time.monotonic()
    a.call("join_channel", None, "demo", None, 0)
    a_success = a.log.wait("on_join_channel_success")
    uid_a = a.log.events[a_success][1][1]
    assert 0 < uid_a < 2**32
    expect_events(a.log, [CONNECTING, CONNECTED, joined("demo", uid_a)])
    assert a.call("get_connection_state") == ConnectionState.CONNECTED

    # B joins with a uid of its own (and some info nobody else sees).
    b.call("join_channel", "", "demo", "private info", 4242)
    b.log.wait("on_user_joined", uid_a)
    a.log.wait("on_user_joined", 4242)

    # C, in another process, joins with an account.
    c.call("join_channel_with_user_account", None, "demo", "carol")
    c.log.wait_count(6)
    uid_c = c.log.events[1][1][0]
    a.log.wait("on_user_joined", uid_c)
    b.log.wait("on_user_joined", uid_c)

    first, second = sorted([uid_a, 4242])
    expect_events(b.log, [CONNECTING, CONNECTED, joined("demo", 4242), user_joined(uid_a),
                          ("on_user_info_updated", [uid_c, [uid_c, "carol"]]), user_joined(uid_c)])
    expect_events(c.log, [CONNECTING, ("on_local_user_registered", [uid_c, "carol"]), CONNECTED,
                          joined("demo", uid_c), user_joined(first), user_joined(second)])
    expect_events(a.log, [CONNECTING, CONNECTED, joined("demo", uid_a), user_joined(4242),
                          ("on_user_info_updated", [uid_c, [uid_c, "carol"]]), user_joined(uid_c)])

    # Accounts: what each engine has learned.
    for peer in (a, b, c):
        assert peer.call("get_user_info_by_uid", uid_c) == [uid_c, "carol"]
        assert peer.call("get_user_info_by_user_account", "carol") == [uid_c, "carol"]
        with pytest.raises(AgoraishError) as error:
            peer.call("get_user_info_by_uid", 4242)  # B has no account
        assert error.value.code == -2
    assert isinstance(a.engine.get_user_info_by_uid(uid_c), agoraish.UserInfo)

    # Call ids: one per session, "<app id[:8]>-<session>-<server ms>".
    ids = [peer.call("get_call_id") for peer in (a, b, c)]
    sessions = [int(CALL_ID.match(i).group(1)) for i in ids]  # type: ignore[union-attr]
    assert sessions == sorted(sessions) and len(set(sessions)) == 3, ids

    # Leaving: C, then B; A stays a little over a second so its duration counts.
    leave(c)
    a.log.wait("on_user_offline", uid_c)
    b.log.wait("on_user_offline", uid_c)
    leave(b)
    a.log.wait("on_user_offline", 4242)
    delay = 1.2 - (time.monotonic() - a.log.time_of(a_success))
    if delay > 0:
        time.sleep(delay)  # lets wall time pass on purpose: A's call must last a whole second
    t_leave_a = time.monotonic()
    leave(a)
    t_left_a = a.log.time_of(len(a.log.events) - 2)
    duration_a = Between(math.floor(t_leave_a - a.log.time_of(a_success)), math.floor(t_left_a - t_join_a))

    expect_events(c.log, [CONNECTING, ("on_local_user_registered", [uid_c, "carol"]), CONNECTED,
                          joined("demo", uid_c), user_joined(first), user_joined(second),
                          leave_stats(user_count=3, duration=0), LEFT])
    expect_events(b.log, [CONNECTING, CONNECTED, joined("demo", 4242), user_joined(uid_a),
                          ("on_user_info_updated", [uid_c, [uid_c, "carol"]]), user_joined(uid_c),
                          offline(uid_c, 0), leave_stats(user_count=2), LEFT])
    expect_events(a.log, [CONNECTING, CONNECTED, joined("demo", uid_a), user_joined(4242),
                          ("on_user_info_updated", [uid_c, [uid_c, "carol"]]), user_joined(uid_c),
                          offline(uid_c, 0), offline(4242, 0), leave_stats(user_count=1, duration=duration_a), LEFT])
    assert a.log.events[-2][1][0]["duration"] >= 1

    for peer, call_id in zip((a, b, c), ids):
        assert peer.call("get_connection_state") == ConnectionState.DISCONNECTED
        assert peer.call("get_call_id") == call_id, "the last call's id stays readable"
        with pytest.raises(AgoraishError) as error:
            peer.call("leave_channel")
        assert error.value.code == -18


def test_roles_in_live_broadcasting(channel_server, make_peer):
    url = channel_server.url
    host = make_peer(url, "host")
    viewer = make_peer(url, "viewer")
    guest = make_peer(url, "guest", remote=True)  # the one who changes role
    for peer in (host, viewer, guest):
        peer.call("set_channel_profile", ChannelProfile.LIVE_BROADCASTING)
    for peer in (viewer, guest):
        peer.call("set_client_role", ClientRole.AUDIENCE)  # the default (as Agora's): unchanged, no event
    host.call("set_client_role", ClientRole.BROADCASTER)  # before joining: reported at once
    host.log.wait("on_client_role_changed", 2, 1)

    host.call("join_channel", None, "show", None, 10)
    host.log.wait("on_join_channel_success")
    viewer.call("join_channel", None, "show", None, 30)
    viewer.log.wait("on_user_joined", 10)
    guest.call("join_channel", None, "show", None, 20)
    guest.log.wait("on_user_joined", 10)

    guest.call("set_client_role", ClientRole.BROADCASTER)
    guest.log.wait("on_client_role_changed", 2, 1)
    host.log.wait("on_user_joined", 20)
    viewer.log.wait("on_user_joined", 20)

    guest.call("set_client_role", ClientRole.AUDIENCE)
    guest.log.wait("on_client_role_changed", 1, 2)
    host.log.wait("on_user_offline", 20)
    viewer.log.wait("on_user_offline", 20)

    # Audience members leave unseen.
    leave(viewer)
    leave(guest)
    leave(host)

    start = [CONNECTING, CONNECTED]
    expect_events(host.log, [role_changed(2, 1), *start, joined("show", 10), user_joined(20), offline(20, 2),
                             leave_stats(1), LEFT])
    expect_events(viewer.log, [*start, joined("show", 30), user_joined(10), user_joined(20),
                               offline(20, 2), leave_stats(2), LEFT])
    expect_events(guest.log, [*start, joined("show", 20), user_joined(10), role_changed(2, 1),
                              role_changed(1, 2), leave_stats(2), LEFT])


def test_asking_for_the_current_role_while_connected(channel_server, make_peer):
    peer = make_peer(channel_server.url, "p")
    peer.call("set_channel_profile", ChannelProfile.LIVE_BROADCASTING)
    peer.call("join_channel", None, "same-role", None, 0)
    peer.log.wait("on_join_channel_success")
    peer.call("set_client_role", ClientRole.AUDIENCE)  # already audience (the default)
    peer.call("set_client_role", ClientRole.BROADCASTER)  # a marker: its event comes after any for the first call
    peer.log.wait("on_client_role_changed", 2, 1)
    # Before joining an unchanged role is not reported; connected it is not either.
    assert peer.log.of("on_client_role_changed") == [role_changed(2, 1)]


def test_profile_mismatch_fails_with_on_error(channel_server, make_peer):
    url = channel_server.url
    live = make_peer(url, "live")
    live.call("set_channel_profile", ChannelProfile.LIVE_BROADCASTING)
    live.call("join_channel", None, "mixed", None, 1)
    live.log.wait("on_join_channel_success")
    other = make_peer(url, "other")  # communication, the default
    other.call("join_channel", None, "mixed", None, 2)
    other.log.wait("on_connection_state_changed", 5)
    assert other.call("get_connection_state") == ConnectionState.FAILED
    leave(other)
    expect_events(other.log, [CONNECTING, ("on_error", [5, "profile_mismatch"]),
                              ("on_connection_state_changed", [5, 10]),
                              ("on_leave_channel", [{"duration": 0, "tx_bytes": ANY, "rx_bytes": ANY,
                                                     "tx_packets": ANY, "rx_packets": ANY, "user_count": 0,
                                                     **LEAVE_STATS_AUDIO_FIELDS}]),
                              LEFT])
    leave(live)
    expect_events(live.log, [CONNECTING, CONNECTED, joined("mixed", 1), leave_stats(1), LEFT])


def test_same_uid_joining_twice_replaces_the_first(channel_server, make_peer):
    url = channel_server.url
    watcher = make_peer(url, "watcher")
    first = make_peer(url, "first")
    second = make_peer(url, "second", remote=True)
    watcher.call("join_channel", None, "twice", None, 1)
    watcher.log.wait("on_join_channel_success")
    first.call("join_channel", None, "twice", None, 777)
    first.log.wait("on_user_joined", 1)
    watcher.log.wait("on_user_joined", 777)

    second.call("join_channel", None, "twice", None, 777)
    first.log.wait("on_connection_state_changed", 5, 19)
    second.log.wait("on_user_joined", 1)
    watcher.log.wait("on_user_joined", 777, count=2)
    assert first.call("get_connection_state") == ConnectionState.FAILED

    leave(first)
    leave(second)
    leave(watcher)
    # Replaced, the first engine reports its own failure alone (the watcher is
    # still there: no on_user_offline for it) and does not reconnect; its leave
    # is local (no leave message: the server closed the link).
    expect_events(first.log, [CONNECTING, CONNECTED, joined("twice", 777), user_joined(1),
                              ("on_connection_state_changed", [5, 19]), leave_stats(1, min_tx_packets=1), LEFT])
    expect_events(second.log, [CONNECTING, CONNECTED, joined("twice", 777), user_joined(1), leave_stats(2), LEFT])
    expect_events(watcher.log, [CONNECTING, CONNECTED, joined("twice", 1), user_joined(777), offline(777, 0),
                                user_joined(777), offline(777, 0), leave_stats(1), LEFT])


def test_register_local_user_account_then_join_with_it(channel_server, make_peer):
    url = channel_server.url
    dave = make_peer(url, "dave")
    with pytest.raises(AgoraishError) as error:
        dave.call("register_local_user_account", "another-app-id", "dave")
    assert error.value.code == -2
    dave.call("register_local_user_account", APP_ID, "dave")
    dave.log.wait("on_local_user_registered")
    uid = dave.log.events[0][1][0]
    assert 0 < uid < 2**32
    assert dave.call("get_user_info_by_user_account", "dave") == [uid, "dave"]
    dave.call("register_local_user_account", APP_ID, "dave")  # known now: answered at once
    dave.log.wait("on_local_user_registered", count=2)

    # Another engine of the same app learns the same uid for the account.
    eve = make_peer(url, "eve", remote=True)
    eve.call("register_local_user_account", APP_ID, "dave")
    eve.log.wait("on_local_user_registered")
    assert eve.log.events[0] == ("on_local_user_registered", [uid, "dave"])

    dave.call("join_channel_with_user_account", None, "accounts", "dave")
    dave.log.wait("on_join_channel_success")
    assert dave.call("get_connection_state") == ConnectionState.CONNECTED
    leave(dave)
    registered = ("on_local_user_registered", [uid, "dave"])
    expect_events(dave.log, [registered, registered, CONNECTING, registered, CONNECTED, joined("accounts", uid),
                             leave_stats(1), LEFT])


def test_switch_channel_as_audience(channel_server, make_peer):
    url = channel_server.url
    one, two, viewer = make_peer(url, "one"), make_peer(url, "two"), make_peer(url, "viewer")
    for peer in (one, two, viewer):
        peer.call("set_channel_profile", ChannelProfile.LIVE_BROADCASTING)
    for host in (one, two):
        host.call("set_client_role", ClientRole.BROADCASTER)
    one.call("join_channel", None, "first", None, 1)
    two.call("join_channel", None, "second", None, 2)
    one.log.wait("on_join_channel_success")
    two.log.wait("on_join_channel_success")

    viewer.call("set_client_role", ClientRole.AUDIENCE)
    viewer.call("join_channel", None, "first", None, 55)
    viewer.log.wait("on_user_joined", 1)
    first_call = viewer.call("get_call_id")
    viewer.call("switch_channel", None, "second")
    viewer.log.wait("on_user_joined", 2)
    assert viewer.call("get_connection_state") == ConnectionState.CONNECTED
    second_call = viewer.call("get_call_id")
    assert second_call != first_call

    with pytest.raises(AgoraishError) as error:
        viewer.call("switch_channel", None, "bad/name")
    assert error.value.code == -102
    leave(viewer)
    leave(one)
    leave(two)
    expect_events(viewer.log, [CONNECTING, CONNECTED, joined("first", 55), user_joined(1),
                               leave_stats(2), LEFT, CONNECTING, CONNECTED, joined("second", 55), user_joined(2),
                               leave_stats(2), LEFT])
    for peer, channel, uid in ((one, "first", 1), (two, "second", 2)):
        expect_events(peer.log, [role_changed(2, 1), CONNECTING, CONNECTED, joined(channel, uid), leave_stats(1), LEFT])


def test_synchronous_errors(channel_server, make_peer):
    peer = make_peer(channel_server.url, "p")

    def code(method: str, *args) -> int:
        with pytest.raises(AgoraishError) as error:
            peer.call(method, *args)
        return error.value.code

    assert code("leave_channel") == -18
    assert code("renew_token", "007abc") == -113
    assert code("switch_channel", None, "x") == -113
    assert code("get_call_id") == -113
    assert code("join_channel", None, "bad/name", None, 0) == -102
    assert code("join_channel", None, "a" * 64, None, 0) == -102
    assert code("join_channel_with_user_account", None, "ok", "") == -134
    assert code("join_channel_with_user_account", None, "ok", "x" * 256) == -134
    assert code("set_channel_profile", 5) == -2
    assert code("set_client_role", 0) == -2

    peer.call("join_channel", None, "sync", None, 0)
    assert code("join_channel", None, "sync", None, 0) == -17
    assert code("join_channel_with_user_account", None, "sync", "acct") == -17
    assert code("set_channel_profile", ChannelProfile.COMMUNICATION) == -5
    peer.log.wait("on_join_channel_success")
    assert code("join_channel", None, "other", None, 0) == -17
    assert code("set_channel_profile", ChannelProfile.LIVE_BROADCASTING) == -5
    assert code("switch_channel", None, "other") == -5, "not audience in live broadcasting"
    assert code("renew_token", "") == -2
    leave(peer)
    assert code("leave_channel") == -18
    peer.call("set_channel_profile", ChannelProfile.LIVE_BROADCASTING)  # allowed again


def test_values_python_cannot_pass_to_c_are_invalid_arguments(channel_server, make_peer):
    engine = make_peer(channel_server.url, "p").engine
    for call in (
        lambda: engine.join_channel(None, "ch", None, 2**32),
        lambda: engine.join_channel(None, "ch", None, -1),
        lambda: engine.join_channel(None, "with\0nul", None, 0),
        lambda: engine.join_channel_with_user_account(None, "ch", "a\udcff"),
        lambda: engine.get_user_info_by_uid(-1),
        lambda: engine.set_client_role(2**31),
    ):
        with pytest.raises(AgoraishError) as error:
            call()
        assert error.value.code == -2
    with pytest.raises(TypeError):
        engine.join_channel(None, 42, None, 0)  # type: ignore[arg-type]
    assert engine.get_connection_state() == ConnectionState.DISCONNECTED, "nothing reached the library"


def test_channel_callbacks_survive_gc_and_exceptions(channel_server, make_engine, monkeypatch):
    seen: List[tuple] = []
    done = threading.Event()
    unraisable: List[object] = []
    monkeypatch.setattr("sys.unraisablehook", unraisable.append)

    class Handler(agoraish.EventHandler):
        def on_connection_state_changed(self, state, reason):
            seen.append((state, reason))
            raise RuntimeError("a bug in the host's callback")

        def on_join_channel_success(self, channel, uid, elapsed):
            seen.append((channel, uid))
            done.set()

    handler = Handler()
    alive = weakref.ref(handler)
    engine = make_engine(handler, server_url=channel_server.url)
    del handler
    gc.collect()
    engine.join_channel(None, "gc", None, 9)
    gc.collect()
    assert done.wait(TIMEOUT)
    assert alive() is not None
    assert seen == [(ConnectionState.CONNECTING, 0), (ConnectionState.CONNECTED, 1), ("gc", 9)]
    assert [type(u.exc_value) for u in unraisable] == [RuntimeError, RuntimeError]  # type: ignore[attr-defined]
    assert all("on_connection_state_changed" in u.err_msg for u in unraisable)  # type: ignore[attr-defined]


def test_a_0_1_event_handler_gets_no_channel_callbacks(channel_server, make_peer, tmp_path):
    # A host built against ABI 0.1 passes the smaller table; what lies beyond
    # struct_size must never be called, even when it looks like callbacks.
    watcher = make_peer(channel_server.url, "watcher")
    watcher.call("join_channel", None, "old-host", None, 1)
    watcher.log.wait("on_join_channel_success")

    called: List[str] = []
    api = threading.Event()
    keep = [
        _ffi.ApiCallExecutedCallback(lambda e, u, err, a, r: api.set()),
        _ffi.JoinChannelSuccessCallback(lambda *args: called.append("join")),
        _ffi.UserJoinedCallback(lambda *args: called.append("user_joined")),
        _ffi.ConnectionStateChangedCallback(lambda *args: called.append("state")),
        _ffi.LeaveChannelCallback(lambda *args: called.append("leave")),
    ]
    table = _ffi.EventHandlerTable(
        struct_size=_ffi.AGORAISH_EVENT_HANDLER_SIZE_0_1, on_api_call_executed=keep[0],
        on_join_channel_success=keep[1], on_user_joined=keep[2], on_connection_state_changed=keep[3],
        on_leave_channel=keep[4],
    )
    config = _ffi.EngineConfig(struct_size=ctypes.sizeof(_ffi.EngineConfig), app_id=APP_ID.encode(),
                               event_handler=ctypes.pointer(table), server_url=channel_server.url.encode(),
                               log_file=str(tmp_path / "old.log").encode())
    old = _ffi.agoraish_engine_create(ctypes.byref(config))
    assert old, _ffi.agoraish_get_last_error()
    try:
        assert _ffi.agoraish_engine_join_channel(old, None, b"old-host", None, 2) == 0
        watcher.log.wait("on_user_joined", 2)
        assert _ffi.agoraish_engine_leave_channel(old) == 0
        watcher.log.wait("on_user_offline", 2, 0)  # the old host's leave reached the server
        assert _ffi.agoraish_engine_set_log_filter(old, 0x0F) == 0
        assert api.wait(TIMEOUT)
    finally:
        assert _ffi.agoraish_engine_release(old, 1) == 0
    assert called == []


def test_rtc_stats_reads_only_the_fields_the_library_filled():
    from agoraish.engine import _rtc_stats

    raw = _ffi.RtcStats(struct_size=ctypes.sizeof(_ffi.RtcStats), duration=3, tx_bytes=10, rx_bytes=20,
                        tx_packets=1, rx_packets=2, user_count=4)
    assert _rtc_stats(ctypes.pointer(raw)) == agoraish.RtcStats(3, 10, 20, 1, 2, 4)
    raw.struct_size = _ffi.RtcStats.rx_bytes.offset  # an older, shorter struct
    assert _rtc_stats(ctypes.pointer(raw)) == agoraish.RtcStats(3, 10, 0, 0, 0, 0)
    assert _rtc_stats(None) == agoraish.RtcStats()


def test_server_url_and_ports(channel_server):
    assert re.fullmatch(r"ws://127\.0\.0\.1:\d+", channel_server.url)
    assert channel_server.signaling_port == int(channel_server.url.rsplit(":", 1)[1])
    assert 0 < channel_server.http_port < 65536
    assert channel_server.running
    assert "ws://127.0.0.1:" in repr(channel_server)


def test_channel_server_lifecycle():
    server = agoraish.ChannelServer(config_json={"timeouts": {"keepalive_ms": 500}})
    assert not server.running
    with pytest.raises(AgoraishError) as error:
        server.url
    assert error.value.code == -3
    with server:
        assert server.running and server.http_port == 0
        with pytest.raises(AgoraishError) as error:
            server.start()
        assert error.value.code == -8
        server.stop()
        assert not server.running
        server.start()
        assert server.running
    assert server.released
    server.release()  # idempotent
    with pytest.raises(AgoraishError) as error:
        server.start()
    assert error.value.code == -7
    for bad in ({"signaling_port": -1}, {"http_port": 70000}, {"config_json": "not json"},
                {"config_json": {"no_such_key": 1}}):
        with pytest.raises(AgoraishError) as error:
            agoraish.ChannelServer(**bad)  # type: ignore[arg-type]
        assert error.value.code == -2, bad


def test_unreferenced_server_is_released_by_gc():
    server = agoraish.ChannelServer().start()
    handle = server.handle
    del server
    gc.collect()
    assert _ffi.agoraish_server_start(handle) == -7


def test_releasing_an_engine_in_a_channel_leaves_it(channel_server, make_peer):
    stayer, quitter = make_peer(channel_server.url, "stayer"), make_peer(channel_server.url, "quitter")
    join_both(stayer, quitter, "release")
    quitter.engine.release()  # no leave_channel first
    stayer.log.wait("on_user_offline", 2)
    assert stayer.log.of("on_user_offline") == [offline(2, 0)], "a quit, not a drop"


def test_a_killed_process_is_dropped_after_the_drop_timeout(make_peer):
    config = {"timeouts": {"keepalive_ms": 250, "drop_timeout_ms": 1500}}
    with agoraish.ChannelServer(config_json=config) as server:
        stayer = make_peer(server.url, "stayer")
        victim = make_peer(server.url, "victim", remote=True)
        join_both(stayer, victim, "kill")
        time.sleep(2.0)  # wall time on purpose, past drop_timeout_ms: keepalives (every 250 ms) hold both in
        assert stayer.log.of("on_user_offline") == []
        victim.process.kill()
        killed_at = time.monotonic()
        index = stayer.log.wait("on_user_offline", 2)
        assert stayer.log.events[index] == offline(2, 1), "dropped, not quit"
        assert stayer.log.time_of(index) - killed_at >= 1.5 - 0.25 - 0.1, "not before drop_timeout_ms of silence"
        assert stayer.call("get_connection_state") == ConnectionState.CONNECTED
