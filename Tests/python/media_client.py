"""A minimal media-plane client for tests and benchmarks: an agoraish-server
process to talk to (and its /metrics), the signaling join over WebSocket, the
STUN binding of a UDP socket (RFC 8489, with MESSAGE-INTEGRITY and
FINGERPRINT), plain RTP packets and the SRTP sessions of a `joined.media`
grant (pylibsrtp, imported when first used)."""
import base64
import binascii
import hashlib
import hmac
import json
import os
import re
import socket
import struct
import subprocess
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import websockets

APP = "0123456789abcdef0123456789abcdef"

#: The line agoraish-server prints once it listens: "... listening on ws://HOST:PORT
#: (signaling /v1/signal), HTTP http://HOST:PORT/metrics", or "..., HTTP off".
_LISTENING = re.compile(r"listening on (wss?://[0-9.]+:\d+).*HTTP (?:http://[0-9.]+:(\d+)|off)")


def start_server(binary, *args) -> Tuple[subprocess.Popen, str, Optional[int]]:
    """Starts the agoraish-server `binary` with `args` and reads the line it
    prints once it listens. Returns (process, signaling URL as ws://HOST:PORT or
    wss://HOST:PORT, HTTP port or None when HTTP is off); the caller kills and
    waits for the process. Raises RuntimeError if no such line comes."""
    proc = subprocess.Popen([str(binary), *(str(a) for a in args)], stdout=subprocess.PIPE, text=True)
    line = ""
    for _ in range(5):
        line = proc.stdout.readline()
        m = _LISTENING.search(line)
        if m:
            return proc, m.group(1), int(m.group(2)) if m.group(2) else None
    proc.kill()
    proc.wait()
    raise RuntimeError(f"{binary} did not start listening: {line!r}")


def parse_metrics(text: str) -> Dict[str, float]:
    """The samples of a Prometheus text exposition (the server's /metrics) as {name with labels: value}."""
    out: Dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


def read_metrics(http_port: int, timeout: float = 10.0) -> Dict[str, float]:
    """GET http://127.0.0.1:`http_port`/metrics (bypassing any proxy settings), parsed by parse_metrics."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    return parse_metrics(opener.open(f"http://127.0.0.1:{http_port}/metrics", timeout=timeout).read().decode())


class ServerProcess:
    """agoraish-server `binary` with a JSON config written to `config_path`, signaling and HTTP on free
    ports (`--port 0 --http-port 0`) and `args` after those. `url` and `http` are what start_server
    returned (HTTP is never off here); a thread reads the server's stdout (a full pipe would stall it)
    and keeps its last `keep` lines, without line ends, in `log`. Call stop() when done."""

    def __init__(self, binary, config_path: Path, config: Dict[str, Any], *args, keep: int = 200) -> None:
        Path(config_path).write_text(json.dumps(config))
        self.proc, self.url, http = start_server(binary, "--config", config_path, "--port", "0", "--http-port", "0",
                                                 *args)
        if http is None:
            self.stop()
            raise RuntimeError(f"{binary} reported no HTTP port")
        self.http: int = http
        self.log: List[str] = []
        self._keep = keep
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        for line in self.proc.stdout:
            self.log.append(line.rstrip())
            del self.log[:-self._keep]

    def metrics(self, timeout: float = 10.0) -> Dict[str, float]:
        """The server's /metrics now (read_metrics)."""
        return read_metrics(self.http, timeout)

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


def stun_binding_request(ufrag: str, password: str) -> bytes:
    """A binding request with USERNAME "<ufrag>:client", integrity and fingerprint."""
    tid = os.urandom(12)
    username = f"{ufrag}:client".encode()
    attr = struct.pack("!HH", 0x0006, len(username)) + username + b"\0" * ((4 - len(username) % 4) % 4)
    header = struct.pack("!HHI", 0x0001, len(attr) + 24, 0x2112A442) + tid
    mac = hmac.new(password.encode(), header + attr, hashlib.sha1).digest()
    body = attr + struct.pack("!HH", 0x0008, 20) + mac
    header = struct.pack("!HHI", 0x0001, len(body) + 8, 0x2112A442) + tid
    crc = (binascii.crc32(header + body) ^ 0x5354554E) & 0xFFFFFFFF
    return header + body + struct.pack("!HHI", 0x8028, 4, crc)


def _stun(kind: int, tid: bytes, attrs: bytes, password: str) -> bytes:
    """A STUN message of `kind` with `attrs`, MESSAGE-INTEGRITY under `password` and FINGERPRINT."""
    header = struct.pack("!HHI", kind, len(attrs) + 24, 0x2112A442) + tid
    mac = hmac.new(password.encode(), header + attrs, hashlib.sha1).digest()
    body = attrs + struct.pack("!HH", 0x0008, 20) + mac
    header = struct.pack("!HHI", kind, len(body) + 8, 0x2112A442) + tid
    crc = (binascii.crc32(header + body) ^ 0x5354554E) & 0xFFFFFFFF
    return header + body + struct.pack("!HHI", 0x8028, 4, crc)


def consent_answer(data: bytes, password: str) -> Optional[bytes]:
    """The answer to the server's consent check (RFC 7675; docs/media-plane.md,
    Consent) if `data` is one: a binding success with its transaction id and
    integrity under the same ICE password; None for anything else."""
    if len(data) < 20 or data[0:2] != b"\x00\x01":
        return None
    return _stun(0x0101, data[8:20], b"", password)


def rtp(seq: int, ssrc: int, payload: bytes, pt: int = 111) -> bytes:
    """An RTP packet with a 12-byte header."""
    return struct.pack("!BBHII", 0x80, pt, seq, seq * 960, ssrc) + payload


def srtp_session(profile: str, key: str, outbound: bool):
    """A pylibsrtp.Session for any SSRC, outbound (protect) or inbound (unprotect), of the SRTP
    `profile` as `joined.media` names it ("AEAD_AES_128_GCM" or "AES_CM_128_HMAC_SHA1_80") with the
    base64 `key` of the grant (its "uplink_key" to send, its "downlink_key" to receive)."""
    import pylibsrtp
    policy = pylibsrtp.Policy
    profiles = {"AEAD_AES_128_GCM": policy.SRTP_PROFILE_AEAD_AES_128_GCM,
                "AES_CM_128_HMAC_SHA1_80": policy.SRTP_PROFILE_AES128_CM_SHA1_80}
    return pylibsrtp.Session(policy(key=base64.b64decode(key), srtp_profile=profiles[profile],
                                    ssrc_type=policy.SSRC_ANY_OUTBOUND if outbound else policy.SSRC_ANY_INBOUND))


def bind_socket(sock: socket.socket, media: dict, timeout: float = 2.0, attempts: int = 4) -> int:
    """STUN-binds `sock` to its participant, retrying as ICE does; returns the
    mapped port the server saw."""
    sock.settimeout(timeout / attempts)
    server = (media["host"], media["port"])
    for attempt in range(attempts):
        sock.sendto(stun_binding_request(media["ice_ufrag"], media["ice_pwd"]), server)
        try:
            data, _ = sock.recvfrom(2048)
            break
        except socket.timeout:
            if attempt == attempts - 1:
                raise
    if data[0:2] != b"\x01\x01":
        raise RuntimeError(f"STUN binding failed: {data[:4].hex()}")
    at = data.index(b"\x00\x20")
    port = struct.unpack("!H", data[at + 6:at + 8])[0] ^ 0x2112
    # The server sends media to a new address only once it answers a consent check.
    check, _ = sock.recvfrom(2048)
    answer = consent_answer(check, media["ice_pwd"])
    if answer is None:
        raise RuntimeError(f"expected a consent check, got {check[:4].hex()}")
    sock.sendto(answer, server)
    sock.settimeout(timeout)
    return port


def bind_udp(sock: socket.socket, media: dict, timeout: float = 3.0) -> int:
    """STUN-binds `sock` to its participant as bind_socket does, but takes the binding success and the
    server's consent check (answered) in whichever order they come (the server sends the check first),
    repeating the request every 0.25 s as ICE does until it is answered. Leaves `sock` blocking; returns
    the UDP bytes it sent. Raises TimeoutError when both have not happened within `timeout` s."""
    server = (media["host"], media["port"])
    sent = 0
    deadline = time.monotonic() + timeout
    answered = checked = False
    request = b""
    while not (answered and checked):
        if time.monotonic() > deadline:
            raise TimeoutError(f"STUN binding of port {sock.getsockname()[1]} failed "
                               f"(answer {answered}, consent check {checked})")
        if not answered:
            request = stun_binding_request(media["ice_ufrag"], media["ice_pwd"])
            sock.sendto(request, server)
            sent += len(request)
        sock.settimeout(0.25)
        try:
            while not (answered and checked):
                data, _ = sock.recvfrom(2048)
                if data[0:2] == b"\x01\x01" and data[8:20] == request[8:20]:
                    answered = True
                answer = consent_answer(data, media["ice_pwd"])
                if answer is not None:
                    sock.sendto(answer, server)
                    sent += len(answer)
                    checked = True
        except socket.timeout:
            pass
    sock.settimeout(None)
    return sent


async def join(url: str, uid: int, channel: str, profile: int = 0, role: int = 1):
    """Joins over WebSocket; returns (websocket, joined message)."""
    ws = await websockets.connect(url + "/v1/signal", max_size=None)
    await ws.send(json.dumps({"v": 1, "type": "join", "id": 1, "app_id": APP, "channel": channel, "uid": uid,
                              "profile": profile, "role": role}))
    while True:
        m = json.loads(await ws.recv())
        if m.get("id") == 1:
            if m["type"] != "joined":
                raise RuntimeError(f"join failed: {m}")
            return ws, m
