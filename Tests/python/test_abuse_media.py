"""Attacks on the media plane of the standalone agoraish-server: consent
freshness (RFC 7675), reflection through a candidate address, replayed
binding requests, a genuine address change, and last-mile probes within their
budget (docs/media-plane.md, MediaRouter.swift).

Each test runs beside a legitimate call: two members of a channel, one sending
SRTP audio (payload type 111) every 20 ms from a thread, the other receiving;
the receiver must keep receiving throughout (no gap over `MAX_GAP`).

Every UDP socket of a member is an `Endpoint`: a thread reads it, answers the
server's consent checks (unless told not to), unprotects SRTP/SRTCP with the
member's downlink keys and records each datagram (time, kind, size), so a test
can say what reached which socket and when. The server runs with consent checks
every 300 ms and a 1.5 s consent timeout (a JSON config, `--config`). The
server process, STUN and SRTP helpers are media_client.py's.

The last section holds regression tests for two faults these attacks found:
a candidate whose one consent check was lost was never checked again, and
only the last 16 transaction ids were remembered (now 64).
"""

from __future__ import annotations

import inspect
import json
import os
import socket
import struct
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pylibsrtp
import pytest
from websockets.sync.client import connect

from media_client import APP, ServerProcess, _stun, consent_answer, rtp, srtp_session, stun_binding_request
from support import SERVER_CLI, TIMEOUT

CONSENT_INTERVAL_MS = 300
CONSENT_TIMEOUT_MS = 1500
PROBE_AMPLIFICATION = 3
MAX_PROBE_BITRATE = 5_000_000
#: The legitimate call's receiver may go this long without audio (s): far below the consent timeout, above
#: what a loaded 2-core machine (a Swift build beside) delays a Python sender thread.
MAX_GAP = 0.4
#: Last-mile probe packets: payload type 127, 1200 bytes before SRTP (docs/protocol.md, probe_downlink).
PROBE_PT = 127
PROBE_SIZE = 1200
AUDIO_PT = 111
STUN_COOKIE = b"\x21\x12\xa4\x42"

#: websockets >= 17.1 wants `legacy=True` to hand out the connection directly (as test_abuse.py).
LEGACY = {"legacy": True} if "legacy" in inspect.signature(connect).parameters else {}

pytestmark = pytest.mark.skipif(not SERVER_CLI.exists(), reason="needs `swift build --product agoraish-server`")


# --------------------------------------------------------------------------
# The server process
# --------------------------------------------------------------------------


class Server(ServerProcess):
    """agoraish-server with any app id, short consent timers and the probe
    limits, on free loopback ports, two media workers (so datagrams of some
    channels cross to the second worker's ring). Its log is drained by a thread."""

    def __init__(self, directory: Path) -> None:
        config = {"accept_unknown_apps": True,
                  "timeouts": {"consent_interval_ms": CONSENT_INTERVAL_MS, "consent_timeout_ms": CONSENT_TIMEOUT_MS},
                  "limits": {"probe_amplification": PROBE_AMPLIFICATION,
                             "max_probe_bitrate_per_address": MAX_PROBE_BITRATE}}
        super().__init__(SERVER_CLI, directory / "server.json", config, "--media-workers", "2")

    def metrics(self) -> Dict[str, float]:
        return super().metrics(timeout=TIMEOUT)

    def drops(self, reason: str) -> float:
        return self.metrics().get(f'agoraish_media_drops_total{{reason="{reason}"}}', 0.0)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path)
    yield s
    s.stop()


# --------------------------------------------------------------------------
# Members and their sockets
# --------------------------------------------------------------------------


class Signaling:
    """A joined signaling connection; a thread keeps reading what else comes."""

    def __init__(self, url: str, uid: int, channel: str, **extra: Any) -> None:
        self.ws = connect(url + "/v1/signal", open_timeout=TIMEOUT, proxy=None, **LEGACY)
        self.ws.send(json.dumps({"v": 1, "type": "join", "id": 1, "app_id": APP, "channel": channel, "uid": uid,
                                 **extra}))
        while True:
            m = json.loads(self.ws.recv(timeout=TIMEOUT))
            if m.get("id") == 1:
                assert m["type"] == "joined", m
                self.joined = m
                break
        self.messages: List[dict] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for text in self.ws:
                self.messages.append(json.loads(text))
        except Exception:  # closed
            pass

    def send(self, **message: Any) -> None:
        self.ws.send(json.dumps({"v": 1, **message}))

    def close(self) -> None:
        self.ws.close()


class Member:
    """A participant: its signaling connection, SRTP contexts (uplink and
    downlink keys of its `joined.media`) and the UDP endpoints it opens."""

    def __init__(self, server: Server, uid: int, channel: str, **extra: Any) -> None:
        self.signaling = Signaling(server.url, uid, channel, **extra)
        media = self.signaling.joined["media"]
        self.tx = srtp_session(media["srtp_profile"], media["uplink_key"], outbound=True)
        self.rx = srtp_session(media["srtp_profile"], media["downlink_key"], outbound=False)
        # libsrtp contexts are not thread-safe; a member's endpoints and senders share them.
        self.tx_lock = threading.Lock()
        self.rx_lock = threading.Lock()
        self.media = media
        self.server = (media["host"], media["port"])
        self.ufrag, self.pwd = media["ice_ufrag"], media["ice_pwd"]
        self.endpoints: List[Endpoint] = []
        self.seq = 0

    def endpoint(self, answer: bool = True) -> "Endpoint":
        e = Endpoint(self, answer)
        self.endpoints.append(e)
        return e

    def srtp_proven_endpoint(self, ssrc: int) -> "Endpoint":
        """A new endpoint that answers no consent check, bound by SRTP proof: a fresh binding request
        answered, then one SRTP packet of `ssrc` (a last-mile probe packet: it proves the address and is
        forwarded nowhere)."""
        e = self.endpoint(answer=False)
        e.ask()
        e.send(self.next_rtp(ssrc, b"\0" * 40, PROBE_PT))
        return e

    def protect(self, plain: bytes) -> bytes:
        with self.tx_lock:
            return self.tx.protect(plain)

    def next_rtp(self, ssrc: int, payload: bytes, pt: int) -> bytes:
        """The member's next SRTP packet of `ssrc` (sequence numbers shared by all its streams: fine for tests)."""
        with self.tx_lock:
            self.seq += 1
            return self.tx.protect(rtp(self.seq, ssrc, payload, pt=pt))

    def close(self) -> None:
        for e in self.endpoints:
            e.close()
        self.signaling.close()


class Endpoint:
    """A UDP socket of a member on 127.0.0.1, read by a thread. Each datagram
    is recorded as (monotonic time, kind, wire size, detail): kind "check" (a
    binding request from the server, a consent check; detail: the bytes),
    "stun_ok" (a binding success; detail: transaction id), "stun" (other STUN),
    "rtp" (detail: (payload type, SSRC)), "rtcp", or "bad" (did not unprotect).
    Consent checks are answered while `answer` is set."""

    def __init__(self, member: Optional[Member], answer: bool = True) -> None:
        self.member = member
        self.answer = answer
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.port = self.sock.getsockname()[1]
        self.events: List[Tuple[float, str, int, Any]] = []
        self.sent_bytes = 0
        #: Of which SRTP and SRTCP (what the server counts for the probe budget).
        self.sent_srtp = 0
        self.answered = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def send(self, data: bytes) -> None:
        assert self.member is not None
        self.sock.sendto(data, self.member.server)
        self.sent_bytes += len(data)
        if data[0] >= 128:
            self.sent_srtp += len(data)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                data, _ = self.sock.recvfrom(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            now = time.monotonic()
            kind, detail = self._classify(data)
            if kind == "check" and self.answer and self.member is not None:
                self.send(consent_answer(data, self.member.pwd))
                self.answered += 1
            self.events.append((now, kind, len(data), detail))

    def _classify(self, data: bytes) -> Tuple[str, Any]:
        if len(data) >= 20 and data[0] < 4 and data[4:8] == STUN_COOKIE:
            if data[0:2] == b"\x00\x01":
                return "check", data
            if data[0:2] == b"\x01\x01":
                return "stun_ok", data[8:20]
            return "stun", data[0:2]
        if self.member is None or not 128 <= data[0] <= 191:
            return "bad", None
        try:
            with self.member.rx_lock:
                if 192 <= data[1] <= 223:
                    self.member.rx.unprotect_rtcp(data)
                    return "rtcp", None
                plain = self.member.rx.unprotect(data)
        except pylibsrtp.Error:
            return "bad", None
        return "rtp", (plain[1] & 0x7F, struct.unpack("!I", plain[8:12])[0])

    # What arrived.

    def rtp(self, pt: Optional[int] = None, since: float = 0.0, until: float = float("inf")) -> List[float]:
        """Arrival times of RTP (of payload type `pt`) in [since, until)."""
        return [t for t, k, _, d in list(self.events)
                if k == "rtp" and since <= t < until and (pt is None or d[0] == pt)]

    def of_kind(self, kind: str, since: float = 0.0) -> List[Tuple[float, str, int, Any]]:
        return [e for e in list(self.events) if e[1] == kind and e[0] >= since]

    def after(self, since: float) -> List[Tuple[float, str, int, Any]]:
        return [e for e in list(self.events) if e[0] >= since]

    # Binding.

    def request(self) -> Tuple[bytes, bytes]:
        """A fresh binding request of the member (a new transaction id); returns (bytes, transaction id)."""
        assert self.member is not None
        r = stun_binding_request(self.member.ufrag, self.member.pwd)
        return r, r[8:20]

    def wait_answered(self, tid: bytes, timeout: float = 2.0) -> None:
        """Until the binding success of transaction `tid` has arrived here."""
        deadline = time.monotonic() + timeout
        while not any(d == tid for _, k, _, d in list(self.events) if k == "stun_ok"):
            assert time.monotonic() < deadline, f"no binding success for {tid.hex()} on port {self.port}"
            time.sleep(0.005)

    def ask(self, timeout: float = 2.0) -> Tuple[bytes, bytes]:
        """Sends a fresh binding request and waits for its success here, nothing more (an address
        that answers no consent check is a candidate only); returns (request, transaction id)."""
        request, tid = self.request()
        self.send(request)
        self.wait_answered(tid, timeout)
        return request, tid

    def bind(self, timeout: float = 2.0) -> bytes:
        """Sends a fresh binding request and waits for its success and, when
        answering, for the consent check that follows (answered: this socket is
        the media address once the answer arrives). Returns the request."""
        checks = len(self.of_kind("check"))
        request, _ = self.ask(timeout)
        if self.answer:
            deadline = time.monotonic() + timeout
            while len(self.of_kind("check")) <= checks:
                assert time.monotonic() < deadline, f"no consent check on port {self.port}"
                time.sleep(0.005)
            time.sleep(0.05)  # the answer reaches the server
        return request

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=1)
        self.sock.close()


def max_gap(times: List[float], start: float, end: float) -> float:
    """The longest stretch of [start, end] without an arrival."""
    points = [start] + sorted(t for t in times if start <= t <= end) + [end]
    return max(b - a for a, b in zip(points, points[1:]))


class Call:
    """The legitimate call: a sender and a receiver in channel "call". A thread
    sends one SRTP audio packet every 20 ms; both sockets answer consent checks."""

    SSRC = 0x5EED0001

    def __init__(self, server: Server) -> None:
        self.sender = Member(server, 1001, "call")
        self.receiver = Member(server, 1002, "call")
        self.out = self.sender.endpoint()
        self.inbox = self.receiver.endpoint()
        self.out.bind()
        self.inbox.bind()
        self.packets = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._send, daemon=True)
        self.started = time.monotonic()
        self._thread.start()
        deadline = time.monotonic() + 2
        while not self.inbox.rtp(AUDIO_PT):
            assert time.monotonic() < deadline, "the legitimate call carries no audio"
            time.sleep(0.01)
        self.started = self.inbox.rtp(AUDIO_PT)[0]

    def _send(self) -> None:
        payload = b"\xfc" + bytes(range(60))
        due = time.monotonic()
        while not self._stop.is_set():
            self.out.send(self.sender.next_rtp(self.SSRC, payload, AUDIO_PT))
            self.packets += 1
            due += 0.020
            time.sleep(max(0.0, due - time.monotonic()))

    def check(self) -> str:
        """Stops the sender and asserts the receiver got audio throughout; returns a summary."""
        end = time.monotonic()
        self._stop.set()
        self._thread.join(timeout=1)
        got = self.inbox.rtp(AUDIO_PT, since=self.started, until=end)
        expected = (end - self.started) / 0.020
        gap = max_gap(got, self.started, end)
        assert gap <= MAX_GAP, f"the legitimate call's receiver got no audio for {gap * 1000:.0f} ms"
        assert len(got) >= 0.85 * expected, f"the legitimate call's receiver got {len(got)} of ~{expected:.0f}"
        return f"legitimate call: {len(got)} audio packets in {end - self.started:.2f}s, longest gap {gap * 1000:.0f} ms"

    def close(self) -> None:
        self._stop.set()
        self.sender.close()
        self.receiver.close()


@pytest.fixture
def call(server: Server) -> Iterator[Call]:
    c = Call(server)
    yield c
    c.close()


# --------------------------------------------------------------------------
# 1. Consent freshness
# --------------------------------------------------------------------------


def test_consent_timeout_stops_media_to_a_socket_that_never_answers(server, call):
    silent = Member(server, 3, "call")
    quiet = silent.srtp_proven_endpoint(0x51)
    bound_at = time.monotonic()
    attentive = Member(server, 4, "call")
    listening = attentive.endpoint(answer=True)
    listening.bind()
    listening_from = time.monotonic()

    time.sleep((CONSENT_TIMEOUT_MS + 1000) / 1000 + 0.3)
    limit = bound_at + (CONSENT_TIMEOUT_MS + 1000) / 1000
    got = quiet.rtp(AUDIO_PT)
    assert got and got[0] < bound_at + 0.5, "the silent socket never received media (SRTP did not bind it)"
    assert got[-1] <= limit, f"media still reached the silent socket {got[-1] - bound_at:.2f}s after it was bound"
    # Nothing at all is sent there any more: no media, no consent checks.
    assert quiet.after(limit) == [], quiet.after(limit)
    checks = quiet.of_kind("check", since=bound_at)
    assert len(checks) >= 3, f"{len(checks)} consent checks reached the silent socket"
    # Every consent_interval ±20 %, from the server's 100 ms timer (and a loaded machine's lateness).
    spacing = [b[0] - a[0] for a, b in zip(checks, checks[1:])]
    assert all(0.8 * CONSENT_INTERVAL_MS / 1000 - 0.02 <= s <= 1.2 * CONSENT_INTERVAL_MS / 1000 + 0.2
               for s in spacing), spacing
    expired_after = got[-1] - bound_at
    m = server.metrics()
    assert m["agoraish_media_consent_expired_total"] == 1
    # The socket that answers keeps receiving.
    now = time.monotonic()
    heard = listening.rtp(AUDIO_PT, since=listening_from)
    assert max_gap(heard, listening_from + 0.1, now) <= MAX_GAP
    assert listening.answered >= 3

    # After expiry SRTP proof no longer binds: a fresh request, unanswered, then SRTP.
    quiet.ask()
    deadline = time.monotonic() + 1
    while not quiet.of_kind("check", since=limit):
        assert time.monotonic() < deadline, "no consent check for the new candidate"
        time.sleep(0.005)
    check = quiet.of_kind("check", since=limit)[0][3]
    quiet.send(silent.next_rtp(0x51, b"\0" * 40, PROBE_PT))
    time.sleep(0.5)
    retry = time.monotonic()
    assert quiet.rtp(since=limit) == [], "SRTP re-bound an address whose consent had expired"
    # Only an answer to the check binds it again (a late answer still counts).
    quiet.send(consent_answer(check, silent.pwd))
    quiet.answer = True
    time.sleep(0.4)
    back = quiet.rtp(AUDIO_PT, since=retry)
    assert back, "the answered consent check did not bind the address again"
    print(f"\nconsent: bound by SRTP, last media {expired_after:.2f}s later (timeout {CONSENT_TIMEOUT_MS} ms, "
          f"{len(checks)} unanswered checks, {min(spacing) * 1000:.0f}-{max(spacing) * 1000:.0f} ms apart); "
          f"re-bound by an answered check after {back[0] - retry:.3f}s; {call.check()}")
    silent.close()
    attentive.close()


# --------------------------------------------------------------------------
# 2. Reflection through a candidate address
# --------------------------------------------------------------------------


def test_a_victim_made_candidate_receives_only_stun_not_probes(server, call):
    # Attacker 1 has its own consented address and sends a little; attacker 2 has none.
    attacker = Member(server, 66, "reflect", probe=True)
    own = attacker.endpoint(answer=True)
    own.bind()
    for _ in range(20):
        own.send(attacker.next_rtp(0xA77, b"\0" * 150, PROBE_PT))
    loner = Member(server, 67, "reflect", probe=True)
    victims = [Endpoint(attacker, answer=False), Endpoint(loner, answer=False)]
    time.sleep(0.1)
    budget_before = server.drops("probe_budget")
    started = time.monotonic()
    for victim in victims:
        # The attacker's request, from the victim's address, as small as the server takes (the
        # reflection ratio is worst): USERNAME the bare ufrag, integrity, fingerprint.
        tid = os.urandom(12)
        ufrag = victim.member.ufrag.encode()
        username = struct.pack("!HH", 0x0006, len(ufrag)) + ufrag + bytes(-len(ufrag) % 4)
        victim.send(_stun(0x0001, tid, username, victim.member.pwd))
        victim.wait_answered(tid)
    for m in (attacker, loner):
        m.signaling.send(type="probe_downlink", id=2, bitrate=5_000_000, duration_ms=2000)
    time.sleep(2.4)

    wanted = 2 * 5_000_000 // 8 // PROBE_SIZE
    lines = []
    for name, victim, member, sockets in (("attacker", victims[0], attacker, [own, victims[0]]),
                                          ("loner", victims[1], loner, [victims[1]])):
        received = sum(size for _, _, size, _ in victim.events)
        kinds = sorted({k for _, k, _, _ in victim.events})
        sent = sum(s.sent_bytes for s in sockets)
        ratio = received / sent
        lines.append(f"{name}: victim got {received} B ({', '.join(kinds)}) for {sent} B sent, ratio {ratio:.3f}")
        assert kinds and set(kinds) <= {"stun_ok", "check"}, f"the victim got {kinds}, not only STUN"
        assert received <= PROBE_AMPLIFICATION * sent, lines[-1]
    # The attacker's own consented address got probes only within 3x what it sent (server counts 1200 B a probe).
    probes = own.rtp(PROBE_PT, since=started)
    probe_wire = sum(size for t, k, size, d in own.events if k == "rtp" and d[0] == PROBE_PT)
    lines.append(f"attacker's own address: {len(probes)} probes ({probe_wire} B on the wire) for "
                 f"{own.sent_bytes} B sent, ratio {probe_wire / own.sent_bytes:.2f}")
    assert len(probes) * PROBE_SIZE <= PROBE_AMPLIFICATION * own.sent_srtp
    dropped = server.drops("probe_budget") - budget_before
    assert dropped >= 2 * wanted - len(probes) - 20, "every probe not sent is counted as probe_budget"
    print("\nreflection: " + "; ".join(lines) + f"; probe_budget +{dropped:.0f}; {call.check()}")
    for v in victims:
        v.close()
    attacker.close()
    loner.close()


# --------------------------------------------------------------------------
# 3. A replayed binding request
# --------------------------------------------------------------------------


def test_a_replayed_binding_request_moves_nothing(server, call):
    legit = call.inbox
    request, tid = legit.ask()  # the server acts on it (an id it has not seen)
    before = server.drops("stun_replay")
    replayer = Endpoint(None)
    replayed_at = time.monotonic()
    for _ in range(3):
        replayer.sock.sendto(request, call.receiver.server)
        time.sleep(0.05)
    time.sleep(0.8)
    assert replayer.events == [], f"the replayer received {replayer.events}"
    assert server.drops("stun_replay") - before == 3
    # The legitimate member still receives, at its own address.
    assert max_gap(legit.rtp(AUDIO_PT), replayed_at, time.monotonic()) <= MAX_GAP
    # The member's own retransmission of it is still answered (where it came from).
    legit.send(request)
    time.sleep(0.1)
    assert len([d for _, k, _, d in legit.events if k == "stun_ok" and d == tid]) == 2
    print(f"\nreplay: 3 replays dropped as stun_replay, replayer got nothing; {call.check()}")
    replayer.close()


# --------------------------------------------------------------------------
# 4. A genuine address change
# --------------------------------------------------------------------------


def test_a_member_that_moves_gets_media_at_its_new_socket_only(server, call):
    by_srtp, by_check = Member(server, 5, "call"), Member(server, 6, "call")
    old1, old2 = by_srtp.endpoint(), by_check.endpoint()
    old1.bind()
    old2.bind()
    time.sleep(0.2)
    assert old1.rtp(AUDIO_PT) and old2.rtp(AUDIO_PT)
    # One proves its new address with SRTP, the other by answering the consent check.
    new1 = by_srtp.srtp_proven_endpoint(0x55)
    new1.answer = True  # answers the periodic checks from now on
    moved1 = time.monotonic()
    new2 = by_check.endpoint(answer=True)
    moved2 = time.monotonic()
    new2.bind()
    settled = time.monotonic() + 0.1
    time.sleep(1.5)
    end = time.monotonic()
    for name, old, new in (("srtp", old1, new1), ("check", old2, new2)):
        assert old.after(settled) == [], f"{name}: the old socket still got {old.after(settled)[:3]}"
        assert max_gap(new.rtp(AUDIO_PT), settled, end) <= MAX_GAP, f"{name}: media did not move"
    assert new1.answered >= 1 and new2.answered >= 2
    print(f"\nmove: first media at the new socket {new1.rtp(AUDIO_PT)[0] - moved1:.3f}s after the SRTP proof, "
          f"{new2.rtp(AUDIO_PT)[0] - moved2:.3f}s after the fresh request answered by check; none at the old; "
          f"{call.check()}")
    by_srtp.close()
    by_check.close()


# --------------------------------------------------------------------------
# 5. Last-mile probes within their budget
# --------------------------------------------------------------------------


def probe_packet(seq: int, ssrc: int) -> bytes:
    """An uplink probe packet as the engine sends it (ProbePacket): payload type 127, a transport-wide
    number (extension id 3), zeros to 1200 bytes."""
    header = struct.pack("!BBHII", 0x90, PROBE_PT, seq & 0xFFFF, int(time.monotonic() * 1e6) & 0xFFFFFFFF, ssrc)
    ext = bytes([0xBE, 0xDE, 0, 1, 3 << 4 | 1, seq >> 8 & 0xFF, seq & 0xFF, 0])
    return header + ext + bytes(PROBE_SIZE - len(header) - len(ext))


def test_probes_go_within_budget_to_a_consented_sender_only(server, call):
    sender = Member(server, 7, "lastmile", probe=True)
    idle = Member(server, 8, "lastmile", probe=True)
    unconsented = Member(server, 9, "lastmile", probe=True)
    up, still, proven = sender.endpoint(), idle.endpoint(), unconsented.endpoint(answer=False)
    up.bind()
    still.bind()
    proven.ask()

    stop = threading.Event()

    def uplink(member: Member, e: Endpoint) -> None:
        due, seq = time.monotonic(), 0
        while not stop.is_set():
            with member.tx_lock:
                e.send(member.tx.protect(probe_packet(seq, 0x9B0BE)))
            seq += 1
            due += PROBE_SIZE * 8 / 1_000_000  # 1 Mbps
            time.sleep(max(0.0, due - time.monotonic()))

    threads = [threading.Thread(target=uplink, args=a, daemon=True) for a in ((sender, up), (unconsented, proven))]
    for t in threads:
        t.start()
    time.sleep(0.1)
    budget_before = server.drops("probe_budget")
    started = time.monotonic()
    for m in (sender, idle, unconsented):
        m.signaling.send(type="probe_downlink", id=2, bitrate=1_000_000, duration_ms=1000)
    time.sleep(1.3)
    stop.set()
    for t in threads:
        t.join(timeout=1)

    wanted = 1_000_000 // 8 // PROBE_SIZE  # 104 in 1 s
    got = up.rtp(PROBE_PT, since=started)
    probe_wire = sum(size for t, k, size, d in up.events if k == "rtp" and d[0] == PROBE_PT)
    assert len(got) >= 0.8 * wanted, f"the consented sender got {len(got)} of {wanted} probes"
    assert probe_wire <= PROBE_AMPLIFICATION * up.sent_bytes
    assert still.rtp(PROBE_PT) == [], "probes went to a participant that sent nothing"
    assert proven.rtp(PROBE_PT) == [], "probes went to an address that never answered a consent check"
    dropped = server.drops("probe_budget") - budget_before
    assert dropped >= 2 * (wanted - 3), "every probe due to the other two is counted as probe_budget"
    print(f"\nprobe: consented sender got {len(got)}/{wanted} probes ({probe_wire} B for {up.sent_bytes} B sent, "
          f"ratio {probe_wire / up.sent_bytes:.2f}); idle and unconsented got none; probe_budget +{dropped:.0f}; "
          f"{call.check()}")
    for m in (sender, idle, unconsented):
        m.close()


# --------------------------------------------------------------------------
# Regressions: a lost consent check is not fatal; older replays still move nothing
# --------------------------------------------------------------------------


def test_after_expiry_one_lost_consent_check_is_not_fatal(server, call):
    m = Member(server, 12, "call")
    e = m.srtp_proven_endpoint(0x52)
    time.sleep(CONSENT_TIMEOUT_MS / 1000 + 0.4)
    assert server.metrics()["agoraish_media_consent_expired_total"] == 1
    # It comes back at the same address; the consent check for it is lost (not answered) ...
    e.ask()
    time.sleep(0.1)
    assert len(e.of_kind("check")) >= 1
    e.answer = True
    since = time.monotonic()
    # ... and it goes on as the engine does: a keepalive binding request (fresh id) and SRTP.
    for _ in range(6):
        request, tid = e.request()
        e.send(request)
        e.send(m.next_rtp(0x52, b"\0" * 40, PROBE_PT))
        time.sleep(0.25)
    call.check()
    m.close()
    assert e.of_kind("check", since=since), "no new consent check reached the candidate"
    assert e.rtp(AUDIO_PT, since=since), "no media after the address answered"


def test_a_binding_request_replayed_after_16_newer_ones_moves_nothing(server, call):
    legit = call.inbox
    captured, _ = legit.ask()
    for _ in range(16):  # 40 s of the engine's keepalives (one every 2.5 s)
        legit.ask()
    before = server.drops("stun_replay")
    replayer = Endpoint(None)
    replayer.sock.sendto(captured, call.receiver.server)
    time.sleep(0.3)
    replayer.close()
    call.check()
    assert replayer.events == [], f"the replayer got {[(k, n) for _, k, n, _ in replayer.events]}"
    assert server.drops("stun_replay") - before == 1
