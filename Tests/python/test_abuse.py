"""Abuse budgets of the standalone agoraish-server (docs/server.md, Limits and abuse).

Each test runs an attack against the real server binary (`.build/debug/agoraish-server`,
a child process with a JSON config of small budgets) from one loopback address,
and beside it a legitimate signaling client from another (127.0.0.1): the
attacker is throttled, closed or refused, and the legitimate client keeps being
answered quickly. Budgets are per remote address, so the attackers bind
127.0.0.2 and up (all of 127.0.0.0/8 is loopback on Linux).

What is measured: reply times of the legitimate client (join, ping, GET /status),
the server's RSS (/proc/PID/status) and open descriptors (/proc/PID/fd), the
refusal counters and gauges of /metrics, and the close codes the attackers see.
"""

from __future__ import annotations

import base64
import errno
import hashlib
import inspect
import json
import os
import re
import resource
import selectors
import socket
import struct
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from media_client import start_server
from support import ROOT, SERVER_CLI, TIMEOUT

TOKEN_CLI = ROOT / ".build" / "debug" / "agoraish-token"
APP = "0123456789abcdef0123456789abcdef"
CERT = "fedcba9876543210fedcba9876543210"
OTHER_CERT = "00112233445566778899aabbccddeeff"
LEGIT = "127.0.0.1"
ATTACKER = "127.0.0.2"
#: A legitimate client's join, ping and GET /status must each be answered within this, in seconds.
FAST = 0.100

#: websockets >= 17.1 wants `legacy=True` to hand out the connection directly.
LEGACY = {"legacy": True} if "legacy" in inspect.signature(connect).parameters else {}

pytestmark = pytest.mark.skipif(not SERVER_CLI.exists() or not TOKEN_CLI.exists(),
                                reason="needs `swift build --product agoraish-server` and agoraish-token")


# --------------------------------------------------------------------------
# The server process
# --------------------------------------------------------------------------


class Server:
    """agoraish-server with APP (certificate CERT) and the given limits and
    timeouts, on free loopback ports. Its log lines are read by a thread (a
    full stdout pipe would stall the server) and kept for failure messages."""

    def __init__(self, directory: Path, limits: Optional[Dict[str, int]] = None,
                 timeouts: Optional[Dict[str, int]] = None, admin_token: Optional[str] = None) -> None:
        config: Dict[str, Any] = {"apps": [{"app_id": APP, "certificate": CERT}],
                                  "limits": limits or {}, "timeouts": timeouts or {}}
        if admin_token:
            config["admin"] = {"token": admin_token}
        self.admin_token = admin_token
        path = directory / "server.json"
        path.write_text(json.dumps(config))
        self.proc, self.url, http = start_server(SERVER_CLI, "--config", path, "--port", "0", "--http-port", "0",
                                                 "--media-workers", "1")
        assert http
        self.http_port = http
        self.port = int(self.url.rsplit(":", 1)[1])
        self.pid = self.proc.pid
        self.log: List[str] = []
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        for line in self.proc.stdout:
            self.log.append(line.rstrip())
            del self.log[:-200]

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()

    def rss_kib(self) -> int:
        """The server's resident set size in KiB."""
        text = Path(f"/proc/{self.pid}/status").read_text()
        return int(re.search(r"^VmRSS:\s+(\d+) kB", text, re.M).group(1))

    def open_fds(self) -> int:
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def http(self, path: str, token: Optional[str] = None, source: str = LEGIT) -> Tuple[int, bytes]:
        """(status, body) of GET `path` on the HTTP port, with the admin token
        configured (or `token`); a raw HTTP/1.1 request, Connection: close."""
        token = token if token is not None else self.admin_token
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        with tcp(source, self.http_port) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}\r\n".encode())
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        return int(head.split(b" ", 2)[1]), body

    def metrics(self) -> Dict[str, float]:
        status, body = self.http("/metrics")
        assert status == 200, (status, body)
        out: Dict[str, float] = {}
        for line in body.decode().splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                out[name] = float(value)
        return out

    def refusals(self, reason: str) -> float:
        return self.metrics().get(f'agoraish_refusals_total{{reason="{reason}"}}', 0.0)

    def wait_for(self, what: str, predicate, timeout: float = TIMEOUT, interval: float = 0.05):
        """Polls `predicate()` until it returns something true; fails with `what` otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {timeout}s for {what}; server log tail:\n" + "\n".join(self.log[-20:]))
            time.sleep(interval)


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator:
    started: List[Server] = []

    def make(**kwargs: Any) -> Server:
        s = Server(tmp_path, **kwargs)
        started.append(s)
        return s

    yield make
    for s in started:
        s.stop()


_tokens: Dict[Tuple[str, str, str], str] = {}


def token(channel: str, *, account: Optional[str] = None, cert: str = CERT) -> str:
    """An AccessToken2 for APP from `agoraish-token build`: uid 0 (any uid) or `account`; cached."""
    key = (channel, account or "", cert)
    if key not in _tokens:
        who = ["--account", account] if account is not None else ["--uid", "0"]
        out = subprocess.run([str(TOKEN_CLI), "build", "--format", "007", "--app-id", APP, "--app-certificate", cert,
                              "--channel", channel, *who, "--role", "publisher", "--expire", "3600"],
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        _tokens[key] = out.stdout.strip()
    return _tokens[key]


# --------------------------------------------------------------------------
# Clients: a legitimate one (the websockets package), raw ones for attacks
# --------------------------------------------------------------------------


def tcp(source: str, port: int, timeout: float = TIMEOUT) -> socket.socket:
    """A TCP connection to 127.0.0.1:port from the loopback address `source`."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind((source, 0))
        s.settimeout(timeout)
        s.connect(("127.0.0.1", port))
    except BaseException:
        s.close()
        raise
    return s


class Client:
    """A legitimate signaling connection: JSON requests with increasing ids, each answer timed."""

    def __init__(self, server: Server, source: str = LEGIT) -> None:
        self.ws: ClientConnection = connect(f"{server.url}/v1/signal", sock=tcp(source, server.port),
                                            close_timeout=2, compression=None, ping_interval=None,
                                            open_timeout=TIMEOUT, proxy=None, **LEGACY)
        self.next_id = 0
        self.last_elapsed = 0.0

    def recv(self, timeout: float = TIMEOUT) -> Dict[str, Any]:
        message = json.loads(self.ws.recv(timeout=timeout))
        assert message.pop("v") == 1, message
        return message

    def request(self, type_: str, **fields: Any) -> Dict[str, Any]:
        """Sends a request and returns the answer (notices before it are skipped); times it in `last_elapsed`."""
        self.next_id += 1
        started = time.perf_counter()
        self.ws.send(json.dumps({"v": 1, "type": type_, "id": self.next_id, **fields}))
        while True:
            reply = self.recv()
            if reply.get("id") == self.next_id:
                self.last_elapsed = time.perf_counter() - started
                return reply
            assert "id" not in reply, f"expected the answer to {type_} #{self.next_id}, got {reply}"

    def join(self, channel: str, uid: int = 0, **fields: Any) -> Dict[str, Any]:
        fields.setdefault("token", token(channel, account=fields.get("account")))
        reply = self.request("join", app_id=APP, channel=channel, uid=uid, **fields)
        assert reply["type"] == "joined", reply
        return reply

    def closed_with(self, timeout: float = TIMEOUT) -> int:
        """Waits for the server to close the connection; returns the close code (-1: none)."""
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                self.ws.recv(timeout=timeout)
        return closed.value.rcvd.code if closed.value.rcvd else -1

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:
            pass


def error_of(reply: Dict[str, Any]) -> Tuple[int, str]:
    assert reply["type"] == "error", reply
    return reply["code"], reply["reason"]


def handshake(key: str) -> bytes:
    return (f"GET /v1/signal HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()


def raw_websocket(source: str, port: int, rcvbuf: Optional[int] = None) -> socket.socket:
    """A TCP socket from `source` after a successful opening handshake on /v1/signal, done by hand."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)  # before connect: it sets the window
    s.bind((source, 0))
    s.settimeout(TIMEOUT)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(handshake(key))
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)  # byte by byte: nothing after the head is consumed
        assert chunk, head
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
    assert b"Sec-WebSocket-Accept: " + accept in head, head
    return s


def frame(opcode: int, payload: bytes) -> bytes:
    """A masked, final client frame."""
    size = len(payload)
    if size < 126:
        head = bytes([0x80 | opcode, 0x80 | size])
    elif size < 65536:
        head = bytes([0x80 | opcode, 0x80 | 126]) + struct.pack("!H", size)
    else:
        head = bytes([0x80 | opcode, 0x80 | 127]) + struct.pack("!Q", size)
    key = os.urandom(4)
    stream = (key * (size // 4 + 1))[:size]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(stream, "big")).to_bytes(size, "big") if size else b""
    return head + key + masked


def text(message: Dict[str, Any]) -> bytes:
    return frame(1, json.dumps(message, separators=(",", ":")).encode())


class FrameReader:
    """Parses the server's (unmasked) frames out of the bytes of a raw socket."""

    def __init__(self, s: socket.socket) -> None:
        self.s = s
        self.buffer = b""
        self.ended: Optional[str] = None  # "eof" or "reset" once the TCP connection ended

    def _fill(self) -> bool:
        while True:
            try:
                chunk = self.s.recv(65536)
                break
            except socket.timeout:
                continue  # the socket's timeout may be short (a sending thread shares it)
            except OSError as e:  # reset by the server, or closed here
                self.ended = "reset" if e.errno == errno.ECONNRESET else f"error {e}"
                return False
        if not chunk:
            self.ended = "eof"
            return False
        self.buffer += chunk
        return True

    def next(self) -> Optional[Tuple[int, bytes]]:
        """(opcode, payload) of the next frame, or None once the connection has ended."""
        while True:
            if len(self.buffer) >= 2:
                size, at = self.buffer[1] & 0x7F, 2
                if size == 126 and len(self.buffer) >= 4:
                    size, at = struct.unpack("!H", self.buffer[2:4])[0], 4
                elif size == 127 and len(self.buffer) >= 10:
                    size, at = struct.unpack("!Q", self.buffer[2:10])[0], 10
                if (self.buffer[1] & 0x7F) < 126 or at > 2:
                    if len(self.buffer) >= at + size:
                        opcode, payload = self.buffer[0] & 0x0F, self.buffer[at:at + size]
                        self.buffer = self.buffer[at + size:]
                        return opcode, payload
            if not self._fill():
                return None


def close_code_of(payload: bytes) -> int:
    return struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005


def worst(samples: List[float]) -> str:
    return f"{max(samples) * 1000:.1f} ms (of {len(samples)})"


class Flooder:
    """A raw WebSocket from `source` that sends as fast as TCP takes it, in a
    thread, and reads the server's frames in another: the replies by kind, the
    close code, how the TCP connection ended."""

    def __init__(self, source: str, port: int, batch: bytes, rcvbuf: Optional[int] = None) -> None:
        self.sock = raw_websocket(source, port, rcvbuf=rcvbuf)
        self.batch = batch
        self.sent_batches = 0
        self.send_error: Optional[BaseException] = None
        self.replies: Counter = Counter()
        self.close_code: Optional[int] = None
        self.closed_at: Optional[float] = None
        self.started = time.monotonic()
        self.stop = threading.Event()
        self.reader = FrameReader(self.sock)
        self.threads = [threading.Thread(target=self._send, daemon=True)]
        if rcvbuf is None:
            self.threads.append(threading.Thread(target=self._read, daemon=True))
        for t in self.threads:
            t.start()

    def _send(self) -> None:
        self.sock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                self.sock.sendall(self.batch)
                self.sent_batches += 1
            except socket.timeout:
                continue  # the server has stopped reading: TCP pushes back
            except OSError as e:
                self.send_error = e
                return

    def _read(self) -> None:
        while True:
            got = self.reader.next()
            if got is None:
                break
            opcode, payload = got
            if opcode == 8:
                self.close_code = close_code_of(payload)
                break
            if opcode == 10:
                self.replies["ws_pong"] += 1
            elif opcode == 1:
                message = json.loads(payload)
                kind = message["type"]
                self.replies[kind if kind != "error" else f"error {message['code']} {message['reason']}"] += 1
        self.closed_at = time.monotonic()

    def finish(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(timeout=TIMEOUT)
        self.sock.close()


def complex_message(size: int = 16000) -> bytes:
    """A JSON object of about `size` bytes with hundreds of members (past max_message_keys)."""
    members, n = {"v": 1, "type": "ping"}, 0
    while len(json.dumps(members)) < size - 40:
        members[f"k{n:05d}"] = "x" * 20
        n += 1
    return json.dumps(members, separators=(",", ":")).encode()


# --------------------------------------------------------------------------
# 1. A flood of messages: throttled, then closed with 4008
# --------------------------------------------------------------------------

RATE, BURST, THROTTLE_CLOSE_MS = 50, 100, 3000


def test_message_flood_is_throttled_then_closed_and_others_stay_fast(make_server):
    server = make_server(limits={"messages_per_second": RATE, "message_burst": BURST},
                         timeouts={"throttle_close_ms": THROTTLE_CLOSE_MS})
    costly = complex_message()
    assert len(costly) <= 16 * 1024, "under max_message_bytes: refused for its members, not its size"
    pings = b"".join(text({"v": 1, "type": "ping", "id": i}) for i in range(10))
    flooder = Flooder(ATTACKER, server.port, pings + frame(1, costly) + frame(9, b"ws ping"))
    legit: List[Client] = []
    try:
        server.wait_for("the flooder to be throttled", lambda: server.refusals("message_rate") >= 1, timeout=5)
        throttled_at = time.monotonic()

        # The legitimate client, meanwhile: joins, pings, /status.
        joins, pings_rtt, status = [], [], []
        for i in range(5):
            c = Client(server)
            legit.append(c)
            c.join("flood", 100 + i)
            joins.append(c.last_elapsed)
        for _ in range(30):
            assert legit[0].request("ping")["type"] == "pong"
            pings_rtt.append(legit[0].last_elapsed)
        for _ in range(5):
            started = time.perf_counter()
            code, body = server.http("/status")
            status.append(time.perf_counter() - started)
            assert code == 200 and json.loads(body)["user_count"] == 5
        measured_for = time.monotonic() - throttled_at
        assert flooder.close_code is None, "the measurements ran while the flood went on"
        print(f"\nflood: join worst {worst(joins)}, ping worst {worst(pings_rtt)}, /status worst {worst(status)}, "
              f"measured {measured_for:.2f}s into the throttle")
        assert max(joins) < FAST, f"join answered in {worst(joins)}"
        assert max(pings_rtt) < FAST, f"ping answered in {worst(pings_rtt)}"
        assert max(status) < FAST, f"/status answered in {worst(status)}"

        # Held back for throttle_close_ms without a pause: closed with 4008.
        server.wait_for("the flooder to be closed", lambda: flooder.closed_at, timeout=THROTTLE_CLOSE_MS / 1000 + 5)
        elapsed = flooder.closed_at - flooder.started
        assert flooder.close_code == 4008, (flooder.close_code, flooder.reader.ended, flooder.replies)
        assert elapsed >= THROTTLE_CLOSE_MS / 1000, f"closed after {elapsed:.2f}s"
        # What the flooder got through: no more than its budget allowed (1 per ping, WebSocket
        # ping or pong; 1 + 15 per 16 KB message), give or take one burst of debt for WebSocket pings.
        got = flooder.replies
        complex_errors = got["error -2 too_complex"]
        assert got["pong"] > 0 and complex_errors > 0 and got["ws_pong"] > 0, got
        assert set(got) == {"pong", "ws_pong", "error -2 too_complex"}, got
        spent = got["pong"] + got["ws_pong"] + complex_errors * (1 + len(costly) // 1024)
        allowed = 2 * BURST + RATE * elapsed + 16
        print(f"flood: closed with 4008 after {elapsed:.2f}s; replies {dict(got)}; spent {spent} of {allowed:.0f} "
              f"allowed; sent {flooder.sent_batches} batches of {len(flooder.batch)} bytes")
        assert spent <= allowed, (spent, allowed, got)

        m = server.metrics()
        assert m['agoraish_refusals_total{reason="message_rate"}'] >= 1
        assert m['agoraish_refusals_total{reason="message_rate_closed"}'] == 1
        assert m['agoraish_refusals_total{reason="too_complex"}'] == complex_errors
        assert m["agoraish_signaling_connections"] == 5, "the flooder's connection is gone, the others remain"
        for c in legit:
            assert c.request("ping")["type"] == "pong"
    finally:
        flooder.finish()
        for c in legit:
            c.close()
