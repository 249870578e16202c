"""Forwarding capacity of agoraish-server's media plane beside a bare C
forwarder, measured in one run, and the server's memory per participant.

For each subscriber count N and packet size, one publisher and N subscribers
join a channel over WebSocket, bind their UDP sockets with STUN, and
bench/sfu_load.c sends SRTP (AEAD_AES_128_GCM) at a fixed rate while counting
what the subscribers receive. The figure is packets delivered to subscribers
per CPU-second of the server process (user + system time from /proc), so it
does not depend on how busy the other core is. The same load, without SRTP,
goes through bench/bare_forwarder.c (recvmmsg/sendmmsg, one copy per
receiver, no crypto); the ratio of the two is the point.
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import List

from ._common import BenchError, figure

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "python"))

SUBSCRIBERS = [1, 10, 50]
SIZES = [100, 1200]
#: Packets per second leaving the forwarder, aimed at for every configuration.
TARGET_OUT_PPS = 60000
SECONDS = 3.0


def server_binary() -> Path:
    for candidate in (ROOT / ".build/dist/release/agoraish-server", ROOT / ".build/release/agoraish-server"):
        if candidate.exists():
            return candidate
    raise BenchError("agoraish-server release build missing (make bench builds it)")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise BenchError("no VmRSS")


def start_server(extra: List[str] = ()) -> subprocess.Popen:
    """agoraish-server without HTTP and with the limits lifted; its URL is `.url`."""
    import media_client
    try:
        proc, url, _ = media_client.start_server(
            server_binary(), "--port", "0", "--http-port", "off", "--accept-unknown-apps",
            "--joins-per-second", "100000", "--max-users-per-channel", "5000", *extra)
    except RuntimeError as error:
        raise BenchError(str(error)) from None
    proc.url = url
    return proc


async def setup_channel(url: str, channel: str, n: int):
    """Joins a publisher and n subscribers and binds their sockets; the
    WebSockets stay open (and the sessions alive) until the server is stopped."""
    import media_client
    members = []
    for uid in range(1, n + 2):
        ws, joined = await media_client.join(url, uid, channel)
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind(("127.0.0.1", 0))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        media_client.bind_socket(sock, joined["media"])
        members.append((ws, joined, sock))
    return members


def run_load(ctx, load: Path, mode: str, port: int, size: int, rate: float, pub: socket.socket,
             key: bytes, subs: List[socket.socket], pattern: str = "audio", seconds: float = SECONDS) -> dict:
    """Runs bench/sfu_load.c (PATTERN `pattern`, see there) and returns what it printed."""
    fds = [pub.fileno()] + [s.fileno() for s in subs]
    argv = [str(load), mode, "127.0.0.1", str(port), str(seconds), str(size), str(rate), str(pub.fileno()),
            key.hex() or "00", ",".join(str(s.fileno()) for s in subs), pattern]
    done = subprocess.run(argv, pass_fds=fds, capture_output=True, text=True, timeout=seconds + 30)
    if done.returncode != 0:
        raise BenchError(f"sfu_load failed ({done.returncode}): {done.stderr.strip()}")
    import json
    return json.loads(done.stdout)


def run(ctx) -> list:
    load = ctx.compile_c("sfu_load.c", "-lsrtp2", "-lpthread")
    bare = ctx.compile_c("bare_forwarder.c")
    figures = []
    seconds = SECONDS if not ctx.quick else 1.0
    for n in SUBSCRIBERS:
        for size in SIZES:
            rate = TARGET_OUT_PPS / n
            # agoraish-server with SRTP on every hop.
            server = start_server()
            try:
                loop = asyncio.new_event_loop()
                members = loop.run_until_complete(setup_channel(server.url, f"bench-{n}-{size}", n))
                _, pub_joined, pub_sock = members[0]
                key = base64.b64decode(pub_joined["media"]["uplink_key"])
                media_port = pub_joined["media"]["port"]
                before = cpu_seconds(server.pid)
                result = run_load(ctx, load, "srtp", media_port, size, rate, pub_sock, key,
                                  [m[2] for m in members[1:]])
                cpu = cpu_seconds(server.pid) - before
                async def close_all():
                    for m in members:
                        await m[0].close()
                loop.run_until_complete(close_all())
                loop.close()
            finally:
                server.kill()
                server.wait()
            sfu_pps = result["received"] / cpu if cpu > 0 else None
            loss = 1 - result["received"] / max(1, result["sent"] * n)
            figures.append(figure(f"sfu_forward_pps_per_core_{n}sub_{size}b", round(sfu_pps) if sfu_pps else None,
                                  "pkt/cpu-s",
                                  f"agoraish-server, SRTP in and out, {rate:.0f} pkt/s in for {SECONDS:.0f} s, "
                                  f"{result['received']} delivered over {cpu:.2f} server CPU-s, loss {loss:.1%}"))
            # The bare forwarder with the same load, no crypto.
            subs = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(n)]
            for s in subs:
                s.bind(("127.0.0.1", 0))
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
            pub = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            pub.bind(("127.0.0.1", 0))
            probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
            probe.close()
            fwd = subprocess.Popen([str(bare), str(port), ",".join(str(s.getsockname()[1]) for s in subs)],
                                   stdout=subprocess.PIPE, text=True)
            try:
                fwd.stdout.readline()
                before = cpu_seconds(fwd.pid)
                result = run_load(ctx, load, "plain", port, size, rate, pub, b"", subs)
                cpu = cpu_seconds(fwd.pid) - before
            finally:
                fwd.kill()
                fwd.wait()
            bare_pps = result["received"] / cpu if cpu > 0 else None
            figures.append(figure(f"bare_forward_pps_per_core_{n}sub_{size}b", round(bare_pps) if bare_pps else None,
                                  "pkt/cpu-s",
                                  f"bench/bare_forwarder.c, no crypto, same load; {result['received']} delivered "
                                  f"over {cpu:.2f} CPU-s"
                                  + (f"; agoraish/bare = {sfu_pps / bare_pps:.2f}" if sfu_pps and bare_pps else "")))
    figures.append(memory_per_participant(ctx))
    return figures


def memory_per_participant(ctx) -> dict:
    count = 200 if not ctx.quick else 50
    server = start_server()

    async def measure():
        import media_client
        await asyncio.sleep(0.2)
        before = rss_kb(server.pid)
        members = [await media_client.join(server.url, uid, f"mem-{uid // 50}") for uid in range(1, count + 1)]
        await asyncio.sleep(0.3)
        after = rss_kb(server.pid)
        for ws, _ in members:
            await ws.close()
        return before, after

    try:
        before, after = asyncio.run(measure())
    finally:
        server.kill()
        server.wait()
    return figure("server_memory_per_participant_kb", round((after - before) / count, 1), "KB",
                  f"RSS growth of agoraish-server over {count} joined participants (signaling connection, "
                  f"session, SRTP contexts), in channels of 50")
