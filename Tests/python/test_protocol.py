"""The signaling protocol of docs/protocol.md, spoken directly with the `websockets` package.

A third-party client is written from docs/protocol.md alone; these tests hold
the server to that page: replies and notices field by field, errors with their
codes and reasons, resume, drops, and that a misbehaving client disturbs
nobody else. /metrics and /status (docs/server.md) are read over HTTP.
"""

from __future__ import annotations

import base64
import hashlib
import inspect
import json
import os
import re
import socket
import struct
import time
from typing import Any, Dict, Iterator, List, Optional

import pytest
import websockets.exceptions
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

import agoraish
from support import TIMEOUT, http_get

APP = "0123456789abcdef0123456789abcdef"
MAX_MESSAGE = 4096
KEEPALIVE_MS = 2000
DROP_MS = 20000
CALL_ID = re.compile(r"^01234567-(\d+)-(\d{13})$")
RESUME_TOKEN = re.compile(r"^[A-Za-z0-9+/]{32}$")
#: websockets >= 17.1 wants `legacy=True` to hand out the connection directly.
OPEN = {"open_timeout": TIMEOUT, "proxy": None, **({"legacy": True} if "legacy" in inspect.signature(connect).parameters
                                                    else {})}


class Client:
    """One signaling connection: JSON requests with increasing ids, replies and notices in order."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.ws: ClientConnection = connect(f"{url}/v1/signal", close_timeout=2, compression=None,
                                           ping_interval=None, **OPEN)
        self.next_id = 0

    def send(self, message: Any) -> None:
        """Sends a dict as JSON, or str/bytes as they are."""
        self.ws.send(json.dumps(message) if isinstance(message, dict) else message)

    def recv(self, timeout: float = TIMEOUT) -> Dict[str, Any]:
        message = json.loads(self.ws.recv(timeout=timeout))
        assert message.pop("v") == 1, message
        return message

    def request(self, type_: str, **fields: Any) -> Dict[str, Any]:
        """Sends a request and returns the next message, which must answer it."""
        self.next_id += 1
        self.send({"v": 1, "type": type_, "id": self.next_id, **fields})
        reply = self.recv()
        assert reply.get("id") == self.next_id, f"expected the answer to {type_} #{self.next_id}, got {reply}"
        return reply

    def join(self, channel: str, uid: int = 0, **fields: Any) -> Dict[str, Any]:
        reply = self.request("join", app_id=APP, channel=channel, uid=uid, **fields)
        assert reply["type"] == "joined", reply
        return reply

    def quiet(self) -> None:
        """Nothing arrived unasked: the answer to a ping is the next message."""
        reply = self.request("ping")
        assert reply["type"] == "pong", f"unexpected message before the pong: {reply}"

    def closed_with(self) -> int:
        """Waits for the server to close the connection; returns the close code."""
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                self.ws.recv(timeout=TIMEOUT)
        return closed.value.rcvd.code if closed.value.rcvd else -1

    def break_tcp(self) -> None:
        """Ends the TCP connection without a closing handshake."""
        self.ws.socket.shutdown(socket.SHUT_RDWR)
        self.ws.close_socket()

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:
            pass


@pytest.fixture
def server() -> Iterator[agoraish.ChannelServer]:
    config = {"limits": {"max_message_bytes": MAX_MESSAGE, "joins_per_second_per_address": 10000},
              "timeouts": {"keepalive_ms": KEEPALIVE_MS, "drop_timeout_ms": DROP_MS}}
    with agoraish.ChannelServer(http_port=-1, config_json=config) as s:
        yield s


@pytest.fixture
def client(server):
    """Opens clients to the test's server; closes them afterwards."""
    opened: List[Client] = []

    def make(url: Optional[str] = None) -> Client:
        c = Client(url or server.url)
        opened.append(c)
        return c

    yield make
    for c in opened:
        c.close()


def now_ms() -> int:
    return int(time.time() * 1000)


def test_join_ping_leave(client):
    alice, bob = client(), client()
    before = now_ms()
    joined = alice.join("demo", 1001)
    assert set(joined) == {"type", "id", "uid", "session", "resume_token", "call_id", "profile", "role", "users",
                           "keepalive_ms", "drop_timeout_ms", "server_time_ms"} | ({"media", "streams"} & set(joined))
    assert (joined["uid"], joined["profile"], joined["role"], joined["users"]) == (1001, 0, 1, [])
    assert (joined["keepalive_ms"], joined["drop_timeout_ms"]) == (KEEPALIVE_MS, DROP_MS)
    assert joined["session"] >= 1 and RESUME_TOKEN.match(joined["resume_token"])
    match = CALL_ID.match(joined["call_id"])
    assert match and int(match.group(1)) == joined["session"]
    assert before - 1000 <= joined["server_time_ms"] <= now_ms() + 1000
    assert "token_expire_ts" not in joined, "testing mode: no expiry"

    joined_bob = bob.join("demo", 0)  # the server picks a free uid
    bob_uid = joined_bob["uid"]
    assert 0 < bob_uid < 2**32 and bob_uid != 1001
    assert joined_bob["users"] == [{"uid": 1001}]
    assert joined_bob["session"] > joined["session"], "sessions are numbered in increasing order"
    assert alice.recv() == {"type": "user_joined", "uid": bob_uid}, "a notice has no id"

    pong = bob.request("ping")
    assert pong["type"] == "pong" and abs(pong["server_time_ms"] - now_ms()) < 2000
    bob.send({"v": 1, "type": "ping", "id": "not an integer"})
    assert "id" not in bob.recv(), "a non-integer id is ignored"
    bob.send({"v": 1, "type": "ping", "id": 7.0})
    assert bob.recv()["id"] == 7

    assert bob.request("leave") == {"type": "left", "id": bob.next_id}
    assert alice.recv() == {"type": "user_offline", "uid": bob_uid, "reason": 0}
    again = bob.join("demo", 1002)  # the connection stays open for another join
    assert again["users"] == [{"uid": 1001}]
    assert alice.recv() == {"type": "user_joined", "uid": 1002}


def test_accounts(client):
    alice, registrar, carol = client(), client(), client()
    alice.join("accounts", 1001)
    registered = registrar.request("register_account", app_id=APP, account="carol@example")
    uid = registered["uid"]
    assert registered == {"type": "account_registered", "id": 1, "uid": uid, "account": "carol@example"}
    assert registrar.request("register_account", app_id=APP, account="carol@example")["uid"] == uid

    joined = carol.join("accounts", account="carol@example")
    assert (joined["uid"], joined["account"], joined["users"]) == (uid, "carol@example", [{"uid": 1001}])
    assert alice.recv() == {"type": "user_info", "uid": uid, "account": "carol@example"}
    assert alice.recv() == {"type": "user_joined", "uid": uid, "account": "carol@example"}
    late = client().join("accounts", 1003)
    assert late["users"] == [{"uid": 1001}, {"uid": uid, "account": "carol@example"}]


def test_roles_in_live_broadcasting(client):
    host, viewer, guest = client(), client(), client()
    host.join("show", 10, profile=1, role=1)
    assert viewer.join("show", 30, profile=1, role=2)["users"] == [{"uid": 10}]
    assert guest.join("show", 20, profile=1, role=2)["users"] == [{"uid": 10}], "audience is not listed"
    host.quiet()
    assert guest.request("set_role", role=1) == {"type": "role_changed", "id": 2, "old": 2, "new": 1}
    assert host.recv() == viewer.recv() == {"type": "user_joined", "uid": 20}
    assert guest.request("set_role", role=1) == {"type": "role_changed", "id": 3, "old": 1, "new": 1}
    assert guest.request("set_role", role=2)["new"] == 2
    assert host.recv() == viewer.recv() == {"type": "user_offline", "uid": 20, "reason": 2}
    mismatch = client().request("join", app_id=APP, channel="show", uid=40)  # profile 0 by default
    assert (mismatch["type"], mismatch["code"], mismatch["reason"]) == ("error", -5, "profile_mismatch")
    guest.request("leave")
    host.quiet()
    viewer.quiet()


def test_resume_after_the_connection_closes(client, server):
    alice, bob = client(), client()
    alice.join("resume", 1)
    joined = bob.join("resume", 2)
    alice.recv()  # user_joined 2
    resume = {"session": joined["session"], "resume_token": joined["resume_token"]}

    bob.close()  # a clean close keeps the session for drop_timeout_ms
    alice.quiet()
    bob2 = client()
    resumed = bob2.request("resume", **resume)
    # The media credentials of the session come again (a restarted server may have a new media port).
    assert set(resumed) - {"streams", "media"} == {"type", "id", "uid", "session", "role", "users", "server_time_ms"}
    assert (resumed["type"], resumed["uid"], resumed["session"], resumed["role"], resumed["users"]) == (
        "resumed", 2, joined["session"], 1, [{"uid": 1}])
    alice.quiet()

    bob2.break_tcp()  # no closing handshake this time
    alice.quiet()
    bob3 = client()
    assert bob3.request("resume", **resume)["type"] == "resumed"
    alice.quiet()
    bob3.quiet()

    # Resuming elsewhere while the old connection is open closes the old one with 4002.
    bob4 = client()
    assert bob4.request("resume", **resume)["type"] == "resumed"
    assert bob3.closed_with() == 4002
    alice.quiet()

    # Wrong credentials: -113, and the server does not say which part was wrong.
    for wrong in ({**resume, "resume_token": "A" * 32}, {**resume, "session": resume["session"] + 100}):
        error = client().request("resume", **wrong)
        assert (error["type"], error["code"], error["reason"]) == ("error", -113, "unknown_session")
    assert bob4.request("resume", **resume)["code"] == -17, "this connection already carries the session"

    # After leave the session is gone.
    bob4.request("leave")
    assert alice.recv() == {"type": "user_offline", "uid": 2, "reason": 0}
    assert client().request("resume", **resume)["code"] == -113


def test_an_embedded_server_on_loopback_takes_the_joins_of_its_own_engines():
    # Every client of an embedded server on loopback shares 127.0.0.1: the
    # per-address budgets are the server-wide ones (joins: 1000 a second),
    # where a standalone server allows one address 20 joins a second.
    with agoraish.ChannelServer() as embedded:
        clients = [Client(embedded.url) for _ in range(60)]
        try:
            for i, c in enumerate(clients):
                joined = c.join("many-joins", 5000 + i)
                assert joined.get("type") == "joined", (i, joined)
        finally:
            for c in clients:  # each has unread notices of the others: no closing handshake
                c.break_tcp()
    # A limit the host sets keeps its value.
    with agoraish.ChannelServer(config_json={"limits": {"joins_per_second_per_address": 5}}) as strict:
        clients = [Client(strict.url) for _ in range(8)]
        try:
            answers = [c.request("join", app_id=APP, channel="strict", uid=6000 + i) for i, c in enumerate(clients)]
        finally:
            for c in clients:
                c.break_tcp()
        refused = [a for a in answers if a.get("type") == "error"]
        assert refused and all(a["reason"] == "too_often" for a in refused), answers


def test_same_uid_login_kicks_the_first(client):
    alice, first, second = client(), client(), client()
    alice.join("twice", 1)
    first.join("twice", 42)
    assert alice.recv() == {"type": "user_joined", "uid": 42}
    second.join("twice", 42)
    assert first.recv() == {"type": "kicked", "code": -17, "reason": "same_uid_login", "connection_reason": 19}
    assert first.closed_with() == 4001
    assert alice.recv() == {"type": "user_offline", "uid": 42, "reason": 0}
    assert alice.recv() == {"type": "user_joined", "uid": 42}
    alice.quiet()


def error_of(reply: Dict[str, Any]) -> tuple:
    assert reply["type"] == "error", reply
    return reply["code"], reply["reason"]


#: (label, message, needs a joined connection, (code, reason), whether the reply has the id 99)
BAD_MESSAGES = [
    ("invalid JSON", "{not json", False, (-2, "malformed"), False),
    ("a JSON array", "[1, 2]", False, (-2, "malformed"), False),
    ("a JSON scalar", "42", False, (-2, "malformed"), False),
    ("a binary message", b"\x00\x01binary", False, (-2, "malformed"), False),
    ("no v", {"type": "ping", "id": 99}, False, (-4, "unsupported_version"), True),
    ("v 2", {"v": 2, "type": "ping", "id": 99}, False, (-4, "unsupported_version"), True),
    ("v as a string", {"v": "1", "type": "ping", "id": 99}, False, (-4, "unsupported_version"), True),
    ("no type", {"v": 1, "id": 99}, False, (-2, "bad_field:type"), True),
    ("type not a string", {"v": 1, "type": 5, "id": 99}, False, (-2, "bad_field:type"), True),
    ("unknown type", {"v": 1, "type": "dance", "id": 99}, False, (-2, "unknown_type:dance"), True),
    ("join twice", {"v": 1, "type": "join", "id": 99, "app_id": APP, "channel": "x"}, True, (-17, "already_joined"), True),
    ("join without app_id", {"v": 1, "type": "join", "id": 99, "channel": "x"}, False, (-2, "bad_field:app_id"), True),
    ("join without channel", {"v": 1, "type": "join", "id": 99, "app_id": APP}, False, (-2, "bad_field:channel"), True),
    ("join with a numeric token", {"v": 1, "type": "join", "id": 99, "app_id": APP, "channel": "x", "token": 7},
     False, (-2, "bad_field:token"), True),
    ("join with uid -1", {"v": 1, "type": "join", "id": 99, "app_id": APP, "channel": "x", "uid": -1},
     False, (-2, "bad_field:uid"), True),
    ("join with uid 2**32", {"v": 1, "type": "join", "id": 99, "app_id": APP, "channel": "x", "uid": 2**32},
     False, (-2, "bad_field:uid"), True),
    ("join with uid 2.5", {"v": 1, "type": "join", "id": 99, "app_id": APP, "channel": "x", "uid": 2.5},
     False, (-2, "bad_field:uid"), True),
    ("join with profile 2", {"v": 1, "type": "join", "id": 99, "app_id": APP, "channel": "x", "profile": 2},
     False, (-2, "bad_field:profile"), True),
    ("join with role 3", {"v": 1, "type": "join", "id": 99, "app_id": APP, "channel": "x", "role": 3},
     False, (-2, "bad_field:role"), True),
    ("join with an empty account", {"v": 1, "type": "join", "id": 99, "app_id": APP, "channel": "x", "account": ""},
     False, (-134, "invalid_user_account"), True),
    ("join with an account and a uid",
     {"v": 1, "type": "join", "id": 99, "app_id": APP, "channel": "x", "account": "a", "uid": 5},
     False, (-2, "bad_field:uid"), True),
    ("join with an empty app id", {"v": 1, "type": "join", "id": 99, "app_id": "", "channel": "x"},
     False, (-101, "invalid_app_id"), True),
    ("join a bad channel name", {"v": 1, "type": "join", "id": 99, "app_id": APP, "channel": "bad/name"},
     False, (-102, "invalid_channel_name"), True),
    ("join a 64-byte channel name", {"v": 1, "type": "join", "id": 99, "app_id": APP, "channel": "c" * 64},
     False, (-102, "invalid_channel_name"), True),
    ("set_role before join", {"v": 1, "type": "set_role", "id": 99, "role": 2}, False, (-113, "not_in_channel"), True),
    ("leave before join", {"v": 1, "type": "leave", "id": 99}, False, (-113, "not_in_channel"), True),
    ("renew_token before join", {"v": 1, "type": "renew_token", "id": 99, "token": "t"}, False,
     (-113, "not_in_channel"), True),
    ("set_role 3", {"v": 1, "type": "set_role", "id": 99, "role": 3}, True, (-2, "bad_field:role"), True),
    ("set_role without role", {"v": 1, "type": "set_role", "id": 99}, True, (-2, "bad_field:role"), True),
    ("renew_token without token", {"v": 1, "type": "renew_token", "id": 99}, True, (-2, "bad_field:token"), True),
    ("resume without session", {"v": 1, "type": "resume", "id": 99, "resume_token": "x"}, False,
     (-2, "bad_field:session"), True),
    ("resume session 0", {"v": 1, "type": "resume", "id": 99, "session": 0, "resume_token": "x"}, False,
     (-2, "bad_field:session"), True),
    ("register an empty account", {"v": 1, "type": "register_account", "id": 99, "app_id": APP, "account": ""},
     False, (-134, "invalid_user_account"), True),
    ("register without app_id", {"v": 1, "type": "register_account", "id": 99, "account": "a"}, False,
     (-2, "bad_field:app_id"), True),
]


@pytest.mark.parametrize("label,message,joined,expected,has_id", BAD_MESSAGES, ids=[m[0] for m in BAD_MESSAGES])
def test_bad_message_gets_its_error_and_disturbs_nobody(client, label, message, joined, expected, has_id):
    good, bad = client(), client()
    good.join("calm", 1)
    if joined:
        bad.join("calm", 2)
        assert good.recv() == {"type": "user_joined", "uid": 2}
    bad.send(message)
    reply = bad.recv()
    assert error_of(reply) == expected
    assert ("id" in reply) == has_id and reply.get("id", 99) == 99
    bad.quiet()  # the connection goes on
    good.quiet()
    if not joined:
        # A refused join changed nothing: the connection can still join.
        assert bad.join("calm", 3)["users"] == [{"uid": 1}]
        assert good.recv() == {"type": "user_joined", "uid": 3}


def test_oversized_message_closes_with_1009_and_disturbs_nobody(client):
    good, bad = client(), client()
    good.join("big", 1)
    bad.join("big", 2)
    assert good.recv() == {"type": "user_joined", "uid": 2}
    at_limit = json.dumps({"v": 1, "type": "ping", "id": 5, "pad": ""})
    at_limit = at_limit[:-2] + "x" * (MAX_MESSAGE - len(at_limit)) + '"}'
    assert len(at_limit.encode()) == MAX_MESSAGE
    bad.send(at_limit)
    assert bad.recv()["type"] == "pong", "a message of exactly max_message_bytes is fine"
    bad.send(at_limit[:-2] + 'x"}')
    assert bad.closed_with() == 1009
    good.quiet()  # the session waits to be resumed: nobody sees it go


def test_fragmented_message_over_the_limit_closes_with_1009(client):
    bad = client()
    try:
        bad.ws.send(iter(["x" * (MAX_MESSAGE // 2), "y" * (MAX_MESSAGE // 2), "z"]))  # three fragments
    except websockets.exceptions.ConnectionClosed as closed:
        # The server may close before the last fragment is written.
        assert closed.rcvd is not None and closed.rcvd.code == 1009
        return
    assert bad.closed_with() == 1009


def test_drops_after_silence_and_after_a_broken_link():
    config = {"timeouts": {"keepalive_ms": 200, "drop_timeout_ms": 1000}}
    with agoraish.ChannelServer(config_json=config) as server:
        alice, silent, gone = Client(server.url), Client(server.url), Client(server.url)
        try:
            alice.join("drops", 1)
            silent.join("drops", 2)
            joined = gone.join("drops", 3)
            gone.break_tcp()
            # Alice pings every keepalive; the other two are dropped after the timeout, with reason 1.
            offline: List[Dict[str, Any]] = []
            started = time.monotonic()
            while len(offline) < 2 and time.monotonic() - started < 1.0 + TIMEOUT:
                alice.send({"v": 1, "type": "ping"})
                tick = time.monotonic() + 0.2
                try:
                    while time.monotonic() < tick:
                        message = alice.recv(timeout=max(0.0, tick - time.monotonic()))
                        if message["type"] == "user_offline":
                            offline.append(message)
                except TimeoutError:
                    pass
            dropped_after = time.monotonic() - started
            assert sorted(offline, key=lambda m: m["uid"]) == [
                {"type": "user_offline", "uid": 2, "reason": 1}, {"type": "user_offline", "uid": 3, "reason": 1}]
            assert dropped_after >= 0.9, f"dropped after {dropped_after:.2f}s, before drop_timeout_ms"
            assert silent.closed_with() == 4000
            late = Client(server.url)
            try:
                error = late.request("resume", session=joined["session"], resume_token=joined["resume_token"])
                assert error_of(error) == (-113, "unknown_session"), "the resume window has passed"
            finally:
                late.close()
        finally:
            for c in (alice, silent, gone):
                c.close()


def test_handshake_errors(server):
    with pytest.raises(InvalidStatus) as wrong_path:
        connect(f"{server.url}/v1/other", **OPEN)
    assert wrong_path.value.response.status_code == 404
    with pytest.raises(InvalidStatus) as query:
        connect(f"{server.url}/v1/signal?x=1", **OPEN)
    assert query.value.response.status_code == 404
    code, _, _ = http_get(server.signaling_port, "/v1/signal")  # not an upgrade
    assert code == 400


def metric(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, flags=re.M)
    assert match, f"no sample {name} in:\n{text}"
    return float(match.group(1))


def test_metrics_and_status(client, server):
    alice, bob, carol = client(), client(), client()
    alice.join("metered", 1)
    bob.join("metered", 2, profile=0, role=2)
    assert alice.recv()["type"] == "user_joined"
    carol.join("metered", account="carol@example")
    for other in (alice, bob):
        assert [other.recv()["type"], other.recv()["type"]] == ["user_info", "user_joined"]
    client().request("join", app_id=APP, channel="bad/name")
    broken = client()
    broken.send("{not json")
    broken.recv()
    bob.request("leave")
    bob.join("other", 2, role=2)  # audience asked in a communication channel: a broadcaster all the same

    code, content_type, body = http_get(server.http_port, "/metrics")
    assert code == 200 and content_type.startswith("text/plain; version=0.0.4")
    text = body.decode()
    assert metric(text, "agoraish_channels") == 2
    assert metric(text, "agoraish_users") == 3
    assert metric(text, "agoraish_joins_total") == 4
    assert metric(text, 'agoraish_join_rejections_total{code="-102"}') == 1
    assert metric(text, 'agoraish_leaves_total{reason="0"}') == 1
    assert metric(text, "agoraish_protocol_errors_total") == 1
    assert metric(text, "agoraish_signaling_connections") == 5
    # The histogram times the first join of each connection (bob's second join is not counted).
    assert metric(text, 'agoraish_join_latency_seconds_bucket{le="+Inf"}') == 3
    assert metric(text, "agoraish_join_latency_seconds_count") == 3
    assert metric(text, "agoraish_join_latency_seconds_sum") >= 0
    buckets = [float(v) for v in re.findall(r'^agoraish_join_latency_seconds_bucket\{le="[^"]+"\} (\S+)$', text, re.M)]
    assert len(buckets) == 12 and buckets == sorted(buckets), "cumulative buckets"
    for name in ("agoraish_channels", "agoraish_users", "agoraish_join_latency_seconds"):
        assert f"# TYPE {name} " in text and f"# HELP {name} " in text

    code, content_type, body = http_get(server.http_port, "/status")
    assert code == 200 and content_type.startswith("application/json")
    status = json.loads(body)
    assert (status["channel_count"], status["user_count"], status["connection_count"]) == (2, 3, 5)
    assert status["version"] == agoraish.get_version()[0]
    carol_uid = next(u["uid"] for c in status["channels"] for u in c["users"] if u.get("account"))
    assert status["channels"] == [
        {"app_id": APP, "channel": "metered", "profile": 0, "users": sorted([
            {"uid": 1, "role": 1, "connected": True, "client": "native"},
            {"uid": carol_uid, "role": 1, "connected": True, "account": "carol@example", "client": "native"}],
            key=lambda u: u["uid"])},
        {"app_id": APP, "channel": "other", "profile": 0,
         "users": [{"uid": 2, "role": 1, "connected": True, "client": "native"}]},
    ]

    assert http_get(server.http_port, "/nothing")[0] == 404
    assert http_get(server.http_port, "/metrics?x=1")[0] == 404
    assert http_get(server.http_port, "/metrics", method="POST")[0] == 405


# --------------------------------------------------------------------------
# Framing, below the websockets package: raw frames on a TCP socket
# --------------------------------------------------------------------------


def raw_connection(port: int) -> socket.socket:
    """A TCP socket after a successful opening handshake on /v1/signal."""
    s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /v1/signal HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(4096)
        assert chunk, head
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    expected = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
    assert b"Sec-WebSocket-Accept: " + expected in head, head
    return s


def frame(opcode: int, payload: bytes, *, mask: bool = True, fin: bool = True, rsv: int = 0) -> bytes:
    out = bytes([(0x80 if fin else 0) | rsv << 4 | opcode])
    size = len(payload)
    bit = 0x80 if mask else 0
    if size < 126:
        out += bytes([bit | size])
    elif size < 65536:
        out += bytes([bit | 126]) + struct.pack("!H", size)
    else:
        out += bytes([bit | 127]) + struct.pack("!Q", size)
    if mask:
        key = os.urandom(4)
        out += key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))
    else:
        out += payload
    return out


def read_frame(s: socket.socket) -> tuple:
    """(opcode, payload) of the next frame from the server (which never masks)."""
    def exactly(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = s.recv(n - len(data))
            assert chunk, "the server closed TCP without a close frame"
            data += chunk
        return data

    b0, b1 = exactly(2)
    assert b1 & 0x80 == 0, "server frames are not masked"
    size = b1 & 0x7F
    if size == 126:
        size = struct.unpack("!H", exactly(2))[0]
    elif size == 127:
        size = struct.unpack("!Q", exactly(8))[0]
    return b0 & 0x0F, exactly(size)


def close_code(s: socket.socket) -> int:
    """Reads frames up to the server's close frame; returns its status code."""
    while True:
        opcode, payload = read_frame(s)
        if opcode == 8:
            return struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005


PING = json.dumps({"v": 1, "type": "ping", "id": 1}).encode()


@pytest.mark.parametrize("label,data,code", [
    ("unmasked frame", frame(1, PING, mask=False), 1002),
    ("reserved bit", frame(1, PING, rsv=4), 1002),
    ("unknown opcode", frame(3, b"x"), 1002),
    ("control frame over 125 bytes", frame(9, b"p" * 126), 1002),
    ("fragmented control frame", frame(9, b"p", fin=False), 1002),
    ("continuation without a message", frame(0, PING), 1002),
    ("text that is not UTF-8", frame(1, b'{"v":1,"type":"ping","x":"\xff"}'), 1007),
    ("close with a one-byte payload", frame(8, b"\x03"), 1002),
    ("client close 4321 is echoed", frame(8, struct.pack("!H", 4321) + b"bye"), 4321),
    ("client close without a code gets 1000", frame(8, b""), 1000),
])
def test_framing(server, label, data, code):
    s = raw_connection(server.signaling_port)
    try:
        s.sendall(frame(9, b"hello"))  # a WebSocket ping gets a pong
        assert read_frame(s) == (10, b"hello")
        s.sendall(frame(1, PING[:10], fin=False) + frame(0, PING[10:]))  # fragmented text is reassembled
        opcode, payload = read_frame(s)
        assert opcode == 1 and json.loads(payload)["type"] == "pong"
        s.sendall(data)
        assert close_code(s) == code
    finally:
        s.close()
