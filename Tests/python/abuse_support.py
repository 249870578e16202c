"""Helpers shared by the abuse tests (test_abuse.py, test_abuse_media.py,
test_abuse_engine.py), test_tokens_e2e.py and bench/benchmarks/abuse.py.

- Tokens: `build_token` runs the agoraish-token CLI of the debug build
  (docs/tokens.md); `token_channel_server` is an embedded server where APP
  checks tokens with CERT and TESTING_APP needs none.
- Child processes: `spawn_python` runs Python code in a child with this folder
  on its path, `read_json_line` reads the JSON lines such a child prints.
- The mass-leave scenario (5000 sessions leave at once beside a call):
  `raise_nofile` for the descriptors it needs, `open_call` binds the call's
  three UDP sockets and describes them, `run_call` is the call itself (run in
  a child process of its own), `longest_gap` measures what the call saw.

Only the standard library and media_client are imported when this module is
loaded (agoraish and pylibsrtp when a helper needs them): the benchmark's
helper processes import it, and must start as quickly as before. Nothing here
needs pytest; a caller turns a failure into a test failure or a BenchError.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import select
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from media_client import APP, bind_udp, consent_answer, rtp, srtp_session, stun_binding_request

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
#: The token CLI of the debug build (`swift build --product agoraish-token`).
TOKEN_CLI = ROOT / ".build" / "debug" / "agoraish-token"

#: APP's certificate where a server checks tokens; OTHER_CERT signs forged tokens.
CERT = "fedcba9876543210fedcba9876543210"
OTHER_CERT = "00112233445566778899aabbccddeeff"
#: An app registered without a certificate (testing mode: no tokens).
TESTING_APP = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

__all__ = ["APP", "CERT", "OTHER_CERT", "TESTING_APP", "TOKEN_CLI", "build_token", "token_channel_server",
           "spawn_python", "read_json_line", "raise_nofile", "open_call", "run_call", "longest_gap"]


# ---------------------------------------------------------------------------------------------------------------------
# Tokens


def build_token(channel: str, *, uid: Optional[int] = None, account: Optional[str] = None, expire: int = 3600,
                issue_ts: Optional[int] = None, fmt: str = "007", app: str = APP, cert: str = CERT,
                role: str = "publisher") -> str:
    """A token from `agoraish-token build` for `channel` and `uid` (0, any uid, when None) or `account`,
    valid for `expire` s from `issue_ts` (now when None). Fails (AssertionError) if the CLI does."""
    who = ["--account", account] if account is not None else ["--uid", str(uid or 0)]
    args = [str(TOKEN_CLI), "build", "--format", fmt, "--app-id", app, "--app-certificate", cert,
            "--channel", channel, *who, "--role", role, "--expire", str(expire)]
    if issue_ts is not None:
        args += ["--issue-ts", str(issue_ts)]
    out = subprocess.run(args, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@contextlib.contextmanager
def token_channel_server() -> Iterator[Any]:
    """A started agoraish.ChannelServer (no HTTP) where APP checks tokens with CERT and TESTING_APP needs
    none; no other app is accepted. Released on exit."""
    import agoraish
    server = agoraish.ChannelServer(http_port=-1, config_json={"apps": [
        {"app_id": APP, "certificate": CERT},
        {"app_id": TESTING_APP},
    ]})
    server.start()
    try:
        yield server
    finally:
        server.release()


# ---------------------------------------------------------------------------------------------------------------------
# Child processes


def spawn_python(code: str, *args: Any, nice: int = 0, pass_fds: Sequence[int] = ()) -> subprocess.Popen:
    """`python -c code args...` with this folder at the front of PYTHONPATH, stdin and stdout as text
    pipes, the descriptors `pass_fds` inherited, and `nice` added to its niceness (when not 0)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    return subprocess.Popen([sys.executable, "-c", code, *(str(a) for a in args)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env, pass_fds=tuple(pass_fds),
                            preexec_fn=(lambda: os.nice(nice)) if nice else None)


def read_json_line(proc: subprocess.Popen, timeout: float, what: str,
                   error: type = AssertionError) -> Dict[str, Any]:
    """The next line of a child's stdout, as JSON. If none comes within `timeout` s, kills the child and
    raises `error` (AssertionError: a test fails) with a message that begins with `what`."""
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    line = proc.stdout.readline() if ready else ""
    if not line:
        message = f"{what}: no answer from the child process within {timeout} s (exit {proc.poll()})"
        proc.kill()
        raise error(message)
    return json.loads(line)


# ---------------------------------------------------------------------------------------------------------------------
# The mass-leave scenario


def raise_nofile(needed: int) -> Optional[str]:
    """Raises this process's soft RLIMIT_NOFILE (children inherit it) to `needed` descriptors if it is
    lower. Returns None, or why it cannot: the hard limit is lower still."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= needed:
        return None
    target = needed if hard == resource.RLIM_INFINITY else min(hard, needed)
    if target < needed:
        return f"RLIMIT_NOFILE hard limit {hard} is below the {needed} descriptors needed"
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return None


def open_call(media: Sequence[Dict[str, Any]], timeout: float) -> Tuple[List[socket.socket], Dict[str, Any]]:
    """The call's three UDP sockets on 127.0.0.1 (1 MiB receive buffers), each bound (bind_udp, within
    `timeout` s) to the participant of `media` (the `joined.media` of the publisher, the subscriber and
    the STUN timer, in that order), and the spec run_call takes; the caller passes the sockets' descriptors
    to that process and closes the sockets. On a failure the sockets are closed and the error raised."""
    socks: List[socket.socket] = []
    try:
        for grant in media:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            socks.append(s)
            s.bind(("127.0.0.1", 0))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
            bind_udp(s, grant, timeout)
    except BaseException:
        for s in socks:
            s.close()
        raise
    spec = {"host": media[0]["host"], "port": media[0]["port"], "profile": media[0]["srtp_profile"],
            "pub_uplink": media[0]["uplink_key"], "sub_downlink": media[1]["downlink_key"],
            "stun_ufrag": media[2]["ice_ufrag"],
            "pwd": {"pub": media[0]["ice_pwd"], "sub": media[1]["ice_pwd"], "stun": media[2]["ice_pwd"]},
            "fds": {"pub": socks[0].fileno(), "sub": socks[1].fileno(), "stun": socks[2].fileno()}}
    return socks, spec


def run_call(spec: Dict[str, Any], announce: bool = False) -> None:
    """The legitimate call, run in a process of its own so that its timing does not depend on anybody
    else's event loop: the three bound UDP sockets of `spec` (open_call; inherited descriptors), one
    thread, select(). The publisher sends SRTP audio (160-byte payloads) every 20 ms, the subscriber times
    what arrives, the third socket sends a STUN binding request every 10 ms and times the answers; every
    consent check is answered. A send that fell more than 0.1 s behind restarts its clock rather than
    burst. With `announce`, prints "started" first. At EOF on stdin prints one JSON line: audio_at
    (arrival times at the subscriber), audio_sent and stun_sent ([due, sent] of each send), stun_answers
    ([arrival, round trip]), consent_answers, bad (audio that did not unprotect) and stun_unanswered."""
    server = (spec["host"], spec["port"])
    socks = {name: socket.socket(fileno=spec["fds"][name]) for name in ("pub", "sub", "stun")}
    for s in socks.values():
        s.setblocking(False)
    tx = srtp_session(spec["profile"], spec["pub_uplink"], outbound=True)
    rx = srtp_session(spec["profile"], spec["sub_downlink"], outbound=False)
    passwords = {name: spec["pwd"][name] for name in socks}
    ufrag = spec["stun_ufrag"]
    audio_at: List[float] = []
    audio_sent: List[Tuple[float, float]] = []   # (due, sent)
    stun_sent: Dict[bytes, float] = {}
    stun_answers: List[Tuple[float, float]] = []  # (arrival, rtt)
    stun_late: List[Tuple[float, float]] = []     # (due, sent)
    consent_answers = 0
    bad = 0
    payload = bytes(range(160))
    seq = 0
    next_audio = next_stun = time.monotonic()
    stdin = sys.stdin.fileno()
    running = True
    if announce:
        print("started", flush=True)
    while running:
        timeout = max(0.0, min(next_audio, next_stun) - time.monotonic())
        readable, _, _ = select.select([stdin, *socks.values()], [], [], timeout)
        for r in readable:
            if r == stdin:
                running = bool(os.read(stdin, 4096))
                continue
            name = next(n for n, s in socks.items() if s is r)
            while True:
                try:
                    data, _ = r.recvfrom(2048)
                except BlockingIOError:
                    break
                t = time.monotonic()
                answer = consent_answer(data, passwords[name])
                if answer is not None:  # the server's consent check: answer it, as the engine does
                    r.sendto(answer, server)
                    consent_answers += 1
                elif name == "sub" and data[0] & 0xC0 == 0x80 and len(data) > 12:
                    try:
                        rx.unprotect(data)
                        audio_at.append(t)
                    except Exception:
                        bad += 1
                elif name == "stun" and data[0:2] == b"\x01\x01":
                    sent = stun_sent.pop(data[8:20], None)
                    if sent is not None:
                        stun_answers.append((t, t - sent))
        now = time.monotonic()
        if now >= next_audio:
            seq += 1
            socks["pub"].sendto(tx.protect(rtp(seq, 0x00A0D10, payload)), server)
            audio_sent.append((next_audio, now))
            next_audio += 0.020
            if next_audio < now - 0.1:  # fell far behind: restart the clock rather than burst
                next_audio = now + 0.020
        if now >= next_stun:
            request = stun_binding_request(ufrag, passwords["stun"])
            socks["stun"].sendto(request, server)
            stun_sent[request[8:20]] = now
            stun_late.append((next_stun, now))
            next_stun += 0.010
            if next_stun < now - 0.1:
                next_stun = now + 0.010
    print(json.dumps({"audio_at": audio_at, "audio_sent": audio_sent, "stun_answers": stun_answers,
                      "stun_sent": stun_late, "consent_answers": consent_answers, "bad": bad,
                      "stun_unanswered": len(stun_sent)}), flush=True)


def longest_gap(times: Sequence[float], start: float, end: float) -> Tuple[float, int]:
    """The longest interval between consecutive `times` that overlaps [start, end] (s), and how many fall
    inside. An interval still open at `end` runs to `end`; with no time before `start`, the first begins
    at `start`."""
    worst, inside, prev = 0.0, 0, None
    for t in sorted(times):
        if t < start:
            prev = t
            continue
        inside += start <= t <= end
        worst = max(worst, t - (prev if prev is not None else start))
        prev = t
        if t > end:
            break
    else:
        worst = max(worst, end - (prev if prev is not None else start))
    return worst, inside
