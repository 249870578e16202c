"""Reconnection end to end: a server process that dies and comes back, and links that break.

The server is the agoraish-server binary, run as a child process on a fixed
free port so that it can be killed (SIGKILL) and started again on the same
port. Links are broken with a TCP proxy between an engine and the server,
which can cut its connections or stop forwarding on them.

Timings that matter (docs/protocol.md, Timers): reconnect backoff 250 ms,
500 ms, 1 s, 2 s, 4 s; onConnectionLost after 10 s without a working link;
the engine gives a link up after 8 s without any message from the server.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import List, Optional

import pytest

import agoraish
from peers import ANY, ELAPSED, LEAVE_STATS_AUDIO_FIELDS, EventLog, expect_events, join_both
from support import SERVER_CLI, TIMEOUT, http_get

LOST_TIMEOUT = 10.0
SILENCE_TIMEOUT = 8.0

RECONNECTING = ("on_connection_state_changed", [4, 2])
REJOINED = ("on_connection_state_changed", [3, 15])


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """agoraish-server as a child process; its stdout lines are kept (one key=value line per event)."""

    def __init__(self, port: int, http_port: int, log_path: Path, *extra: str) -> None:
        self.port, self.http_port, self.extra = port, http_port, extra
        self.log_path = log_path
        self.lines: List[str] = []
        self.process: Optional[subprocess.Popen] = None
        self._cond = threading.Condition()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> None:
        assert self.process is None or self.process.poll() is not None
        with self._cond:
            self.lines.clear()
        self.process = subprocess.Popen(
            [str(SERVER_CLI), "--port", str(self.port), "--http-port", str(self.http_port),
             "--accept-unknown-apps", *self.extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
        )
        threading.Thread(target=self._read, args=(self.process,), daemon=True).start()
        self.wait_line(f"listening on ws://127.0.0.1:{self.port}")

    def _read(self, process: subprocess.Popen) -> None:
        assert process.stdout is not None
        with open(self.log_path, "a", encoding="utf-8") as copy:
            for line in process.stdout:
                copy.write(line)
                with self._cond:
                    self.lines.append(line.rstrip("\n"))
                    self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def wait_line(self, text: str, count: int = 1) -> None:
        def seen() -> bool:
            return sum(text in line for line in self.lines) >= count or (
                self.process is not None and self.process.poll() is not None)

        with self._cond:
            self._cond.wait_for(seen, TIMEOUT)
            found = sum(text in line for line in self.lines)
        assert found >= count, f"server printed no {text!r}: {self.lines}"

    def kill(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(TIMEOUT)

    def status(self) -> dict:
        code, _, body = http_get(self.http_port, "/status")
        assert code == 200, body
        return json.loads(body)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def server_process(tmp_path):
    if not SERVER_CLI.exists():
        pytest.fail(f"{SERVER_CLI} is missing: build it (swift build)")
    server = ServerProcess(free_port(), free_port(), tmp_path / "server.log")
    server.start()
    yield server
    server.stop()


class TcpProxy:
    """Forwards 127.0.0.1:<port> to a target; can cut or freeze the connections it carries.

    `cut()` closes every current connection (both ends see the link break);
    `freeze()` keeps them open but drops everything they carry from then on.
    New connections are forwarded normally either way.
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.connections: List[dict] = []
        self.accepted = 0
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=TIMEOUT)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            connection = {"sockets": (client, upstream), "frozen": False}
            with self._lock:
                self.connections.append(connection)
                self.accepted += 1
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(connection, source, sink), daemon=True).start()

    def _pump(self, connection: dict, source: socket.socket, sink: socket.socket) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if not connection["frozen"]:
                    sink.sendall(data)
        except OSError:
            pass
        for s in connection["sockets"]:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        with self._lock:
            current, self.connections = self.connections, []
        for connection in current:
            for s in connection["sockets"]:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()

    def freeze(self) -> None:
        with self._lock:
            for connection in self.connections:
                connection["frozen"] = True

    def close(self) -> None:
        self.listener.close()
        self.cut()


@pytest.fixture
def proxy(channel_server):
    """A TcpProxy in front of the embedded channel server, closed after the test (before its peers)."""
    tcp_proxy = TcpProxy(channel_server.signaling_port)
    yield tcp_proxy
    tcp_proxy.close()


def visible_users(log: EventLog, since: int = 0) -> set:
    """The remote users an engine sees, replaying its user events."""
    users: set = set()
    for name, args in log.snapshot()[since:]:
        if name == "on_user_joined":
            users.add(args[0])
        elif name == "on_user_offline":
            users.discard(args[0])
    return users


def test_server_killed_and_restarted_then_down_for_long(server_process, make_peer):
    url = server_process.url
    a = make_peer(url, "a")
    b = make_peer(url, "b", remote=True)
    a.call("join_channel", None, "phoenix", None, 0)
    a.log.wait("on_join_channel_success")
    b.call("join_channel", None, "phoenix", None, 0)
    b.log.wait("on_user_joined")
    a.log.wait("on_user_joined")
    uid_a = a.log.of("on_join_channel_success")[0][1][1]
    uid_b = b.log.of("on_join_channel_success")[0][1][1]
    assert visible_users(a.log) == {uid_b} and visible_users(b.log) == {uid_a}
    start_a, start_b = len(a.log.events), len(b.log.events)

    # 1. The server dies: both engines reconnect by themselves.
    server_process.kill()
    a.log.wait("on_connection_state_changed", 4, 2)
    b.log.wait("on_connection_state_changed", 4, 2)
    assert a.call("get_connection_state") == agoraish.ConnectionState.RECONNECTING
    server_process.start()
    for peer, uid in ((a, uid_a), (b, uid_b)):
        peer.log.wait("on_rejoin_channel_success", "phoenix", uid)
    a.log.wait_until(lambda events: visible_users(a.log) == {uid_b}, "A to see B again")
    b.log.wait_until(lambda events: visible_users(b.log) == {uid_a}, "B to see A again")
    status = server_process.status()
    assert [sorted((u["uid"], u["connected"]) for u in c["users"]) for c in status["channels"]] == [
        sorted([(uid_a, True), (uid_b, True)])], "the same uids, in the restarted server"

    # The engine that rejoined first found the other missing (dropped), then saw it join;
    # the other found the first already there. Nobody left on purpose.
    after = {p.name: p.log.since(start) for p, start in ((a, start_a), (b, start_b))}
    for peer, other in ((a, uid_b), (b, uid_a)):
        head = after[peer.name][:3]
        assert head == [RECONNECTING, REJOINED, ("on_rejoin_channel_success", ["phoenix", ANY, ELAPSED])]
        tail = after[peer.name][3:]
        assert tail in ([], [("on_user_offline", [other, 1]), ("on_user_joined", [other, ELAPSED])]), tail
    assert sorted(len(events) for events in after.values()) == [3, 5], after

    # 2. The server dies and stays down past the lost timeout: onConnectionLost, once; then it comes back.
    mark_a, mark_b = len(a.log.events), len(b.log.events)
    before_kill = time.monotonic()
    server_process.kill()
    for peer in (a, b):
        peer.log.wait("on_connection_state_changed", 4, 2, count=2)
    for peer in (a, b):
        index = peer.log.wait("on_connection_lost", timeout=LOST_TIMEOUT + TIMEOUT)
        waited = peer.log.time_of(index) - before_kill
        assert waited >= LOST_TIMEOUT - 0.01, f"{peer.name}: lost {waited:.2f}s after the link broke"
    server_process.start()
    a.log.wait("on_rejoin_channel_success", count=2, timeout=TIMEOUT + 5)
    b.log.wait("on_rejoin_channel_success", count=2, timeout=TIMEOUT + 5)
    a.log.wait_until(lambda events: visible_users(a.log) == {uid_b}, "A to see B again")
    b.log.wait_until(lambda events: visible_users(b.log) == {uid_a}, "B to see A again")
    for peer, mark in ((a, mark_a), (b, mark_b)):
        events = peer.log.since(mark)
        assert events[:4] == [RECONNECTING, ("on_connection_lost", []), REJOINED,
                              ("on_rejoin_channel_success", ["phoenix", ANY, ELAPSED])], events
        assert peer.log.count("on_connection_lost") == 1
    assert a.call("get_connection_state") == b.call("get_connection_state") == agoraish.ConnectionState.CONNECTED


def test_a_cut_link_resumes_and_nobody_notices(channel_server, make_peer, proxy):
    watcher = make_peer(channel_server.url, "watcher")
    traveller = make_peer(proxy.url, "traveller")
    join_both(watcher, traveller, "tunnel")
    call_id = traveller.call("get_call_id")

    proxy.cut()
    traveller.log.wait("on_connection_state_changed", 3, 15)
    assert proxy.accepted == 2, "one reconnection"
    assert traveller.call("get_call_id") == call_id, "the same session, resumed"
    leave_traveller = traveller.log.count("on_leave_channel")
    traveller.call("leave_channel")
    traveller.log.wait("on_leave_channel", count=leave_traveller + 1)
    watcher.log.wait("on_user_offline", 2)

    # The watcher saw nothing of the break: its next event is the traveller's quit.
    expect_events(watcher.log, [("on_connection_state_changed", [2, 0]), ("on_connection_state_changed", [3, 1]),
                                ("on_join_channel_success", ["tunnel", 1, ELAPSED]),
                                ("on_user_joined", [2, ELAPSED]), ("on_user_offline", [2, 0])])
    traveller.log.wait("on_connection_state_changed", 1, 5)
    expect_events(traveller.log, [
        ("on_connection_state_changed", [2, 0]), ("on_connection_state_changed", [3, 1]),
        ("on_join_channel_success", ["tunnel", 2, ELAPSED]), ("on_user_joined", [1, ELAPSED]),
        RECONNECTING, REJOINED, ("on_rejoin_channel_success", ["tunnel", 2, ELAPSED]),
        ("on_leave_channel", [{"duration": ANY, "tx_bytes": ANY, "rx_bytes": ANY, "tx_packets": ANY,
                               "rx_packets": ANY, "user_count": 2, **LEAVE_STATS_AUDIO_FIELDS}]),
        ("on_connection_state_changed", [1, 5])])


def test_a_silent_link_is_given_up_after_8_seconds_and_resumed(channel_server, make_peer, proxy):
    watcher = make_peer(channel_server.url, "watcher")
    quiet = make_peer(proxy.url, "quiet")
    join_both(watcher, quiet, "hush")

    frozen_at = time.monotonic()
    proxy.freeze()  # nothing passes any more, but the connection stays open
    # A silent link is reported as KEEP_ALIVE_TIMEOUT (14), not INTERRUPTED.
    index = quiet.log.wait("on_connection_state_changed", 4, 14, timeout=SILENCE_TIMEOUT + TIMEOUT)
    gave_up = quiet.log.time_of(index) - frozen_at
    assert SILENCE_TIMEOUT - 2.5 <= gave_up <= SILENCE_TIMEOUT + 2.5, f"gave the link up after {gave_up:.1f}s"
    quiet.log.wait("on_rejoin_channel_success")
    assert quiet.call("get_connection_state") == agoraish.ConnectionState.CONNECTED

    quiet.call("leave_channel")
    watcher.log.wait("on_user_offline", 2)
    assert watcher.log.of("on_user_offline") == [("on_user_offline", [2, 0])], "no drop was seen"
    assert quiet.log.of("on_user_offline", "on_connection_lost") == []


def test_embedded_server_stop_and_start_again(make_peer):
    server = agoraish.ChannelServer(signaling_port=free_port())
    with server:
        a, b = make_peer(server.url, "a"), make_peer(server.url, "b")
        join_both(a, b, "restart")
        start_a, start_b = len(a.log.events), len(b.log.events)

        server.stop()  # every connection closes: the engines start reconnecting
        a.log.wait("on_connection_state_changed", 4, 2)
        b.log.wait("on_connection_state_changed", 4, 2)
        assert not server.running
        server.start()  # the same fixed port
        for peer, uid in ((a, 1), (b, 2)):
            peer.log.wait("on_rejoin_channel_success", "restart", uid)
        a.log.wait_until(lambda events: visible_users(a.log) == {2}, "A to see B")
        b.log.wait_until(lambda events: visible_users(b.log) == {1}, "B to see A")
        for peer, start in ((a, start_a), (b, start_b)):
            assert peer.log.since(start)[:3] == [RECONNECTING, REJOINED,
                                                 ("on_rejoin_channel_success", ["restart", ANY, ELAPSED])]
            assert peer.log.of("on_connection_lost", "on_error", "on_leave_channel") == []
