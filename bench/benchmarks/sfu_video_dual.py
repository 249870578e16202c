"""The server's forwarding cost for video with dual stream, beside a bare C
forwarder that does the same selection, measured in one run.

One publisher (uid 1) announces a low stream (`set_video_state` with
`low_ssrc`, docs/protocol.md) and sends both of its VP8 streams as
bench/sfu_load.c's "dual" pattern: the packet mix of a 1280x720@30 high
stream at 1710 kbps and its 320x180@15 low stream at 140 kbps (12 high
packets to 1 low, 1200 bytes each, VP8 descriptors, a keyframe every 90 high
and 45 low frames), SRTP (AEAD_AES_128_GCM). Of N subscribers, half keep the
default (high) and half ask for the low stream (`set_video_subscription`
with `"low": [1]`); the server sends each the one stream it chose and
withholds the other (`other_layer`). The input rate is set so that about
TARGET_OUT_PPS packets a second leave the server, as in sfu_forward.

The server is the one embedded in the library under test
(agoraish_server_create, docs/server.md), alone in a process of its own
(bench/server_host.c), so the figure follows dist/lib. Its CPU (user +
system from /proc) over the run is divided by the packets the subscribers
received: sfu_video_dual_stream_cpu_us_per_packet_out_<N>sub. The note gives
the CPU per packet in, the counts checked against what each subscriber should
get, and the server's own counters from /metrics (other_layer drops, layer
switches, keyframe requests).

bare_video_dual_stream_cpu_us_per_packet_out_<N>sub: the same packets,
without SRTP, through bench/bare_forwarder.c with one SSRC per subscriber
(PORT@SSRC): recvmmsg, a 32-bit compare per copy, a copy, sendmmsg.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Dict, List, Tuple

from ._common import BenchError, figure
from .sfu_forward import cpu_seconds, run_load, setup_channel

#: Subscriber counts; half receive the high stream, half the low one.
SUBSCRIBERS = [10, 50]
#: Packets per second leaving the forwarder, aimed at (as sfu_forward).
TARGET_OUT_PPS = 60000
SECONDS = 3.0
PACKET_BYTES = 1200
#: Packets of the high and of the low stream in one cycle of sfu_load's dual pattern.
HIGH_PER_CYCLE, LOW_PER_CYCLE = 12, 1
#: The publisher's own SSRCs.
HIGH_SSRC, LOW_SSRC = 0x1111AAAA, 0x2222BBBB
PUBLISHER = 1
SERVER_CONFIG = json.dumps({"accept_unknown_apps": True,
                            "limits": {"joins_per_second_per_address": 100000, "max_users_per_channel": 5000}})


def start_host(ctx, host: Path) -> Tuple[subprocess.Popen, str, int]:
    """bench/server_host.c with the library under test: (process, URL, HTTP port)."""
    proc = subprocess.Popen([str(host), str(ctx.library), SERVER_CONFIG], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=ctx.env)
    line = proc.stdout.readline().split()
    if len(line) != 2:
        stop_host(proc)
        raise BenchError("server_host did not start the embedded server")
    return proc, line[0], int(line[1])


def stop_host(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    try:
        proc.stdin.close()
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def metrics(http_port: int) -> Dict[str, float]:
    """The server's /metrics as {name or name{labels}: value}."""
    with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    out = {}
    for line in text.splitlines():
        m = re.match(r"^([a-z_]+(?:\{[^}]*\})?) ([0-9.e+-]+)$", line)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out


async def request(ws, message: dict) -> None:
    """Sends a message without a reply, then a ping, and waits for the pong:
    requests on one connection are handled in order, so the message took effect."""
    await ws.send(json.dumps({"v": 1, **message}))
    await ws.send(json.dumps({"v": 1, "type": "ping", "id": 77}))
    while True:
        m = json.loads(await asyncio.wait_for(ws.recv(), 5))
        if m.get("type") == "error":
            raise BenchError(f"{message['type']} refused: {m}")
        if m.get("id") == 77:
            return


async def notices(ws, seconds: float = 0.3) -> List[dict]:
    """The messages waiting on a connection."""
    out = []
    try:
        while True:
            out.append(json.loads(await asyncio.wait_for(ws.recv(), seconds)))
    except asyncio.TimeoutError:
        return out


def expected(result: dict, n_high: int, n_low: int) -> Tuple[List[int], int]:
    """What each subscriber should receive (high ones first) and the copies withheld."""
    per_sub = [result["sent_high"]] * n_high + [result["sent_low"]] * n_low
    return per_sub, result["sent_high"] * n_low + result["sent_low"] * n_high


def check_counts(result: dict, n_high: int, n_low: int, who: str) -> Tuple[int, float]:
    """The copies expected and the loss; raises when a subscriber got packets of the other stream."""
    if result["sent_high"] + result["sent_low"] != result["sent"]:
        raise BenchError(f"{who}: sfu_load sent {result['sent']} but built "
                         f"{result['sent_high']} + {result['sent_low']}")
    want, _ = expected(result, n_high, n_low)
    got = result["received_per_sub"]
    over = [i for i, (g, w) in enumerate(zip(got, want)) if g > w]
    if over:
        raise BenchError(f"{who}: subscribers {over} got more than their one stream ({[got[i] for i in over]} > "
                         f"{[want[i] for i in over]}): both streams forwarded")
    total = sum(want)
    return total, 1 - result["received"] / max(1, total)


def run_server(ctx, host: Path, load: Path, n: int, rate: float, seconds: float) -> dict:
    n_low = n // 2
    n_high = n - n_low
    server, url, http_port = start_host(ctx, host)
    try:
        loop = asyncio.new_event_loop()
        try:
            members = loop.run_until_complete(setup_channel(url, f"bench-dual-{n}", n))
            pub_ws, pub_joined, pub_sock = members[0]
            if pub_joined["uid"] != PUBLISHER:
                raise BenchError(f"the publisher joined as {pub_joined['uid']}")

            async def announce():
                await request(pub_ws, {"type": "set_video_state", "muted": False, "enabled": True,
                                       "local_enabled": True, "stream_muted": False, "ssrc": HIGH_SSRC,
                                       "low_ssrc": LOW_SSRC})
                for ws, _, _ in members[1 + n_high:]:
                    await request(ws, {"type": "set_video_subscription", "low": [PUBLISHER]})
                # The media plane gets the signaling's commands through the receive thread.
                await asyncio.sleep(0.3)
            loop.run_until_complete(announce())
            key = base64.b64decode(pub_joined["media"]["uplink_key"])
            before = metrics(http_port)
            cpu0 = cpu_seconds(server.pid)
            t0 = time.monotonic()
            result = run_load(ctx, load, "srtp", pub_joined["media"]["port"], PACKET_BYTES, rate, pub_sock, key,
                              [m[2] for m in members[1:]], pattern=f"dual:{HIGH_SSRC}:{LOW_SSRC}", seconds=seconds)
            cpu = cpu_seconds(server.pid) - cpu0
            wall = time.monotonic() - t0
            after = metrics(http_port)
            told = loop.run_until_complete(notices(members[1 + n_high][0] if n_low else members[1][0]))
            # The server goes first, and the clients drop their connections: a close
            # handshake would wait behind the notices they never read.
            stop_host(server)
            for ws, _, sock in members:
                ws.transport.abort()
                sock.close()
        finally:
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.close()
    finally:
        stop_host(server)
    streams = [m for m in told if m.get("type") == "stream_added" and m.get("uid") == PUBLISHER]
    result.update(cpu=cpu, wall=wall, n_high=n_high, n_low=n_low,
                  low_announced=sum(1 for m in streams if m.get("layer") == "low"),
                  streams_announced=len(streams),
                  **{k: after.get(k, 0) - before.get(k, 0) for k in (
                      'agoraish_media_drops_total{reason="other_layer"}', "agoraish_media_layer_switches_total",
                      "agoraish_media_layer_keyframe_requests_total", "agoraish_media_packets_in_total")})
    return result


def run_bare(ctx, bare: Path, load: Path, n: int, rate: float, seconds: float) -> dict:
    n_low = n // 2
    n_high = n - n_low
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
    spec = ",".join(f"{s.getsockname()[1]}@{HIGH_SSRC if i < n_high else LOW_SSRC}" for i, s in enumerate(subs))
    fwd = subprocess.Popen([str(bare), str(port), spec], stdout=subprocess.PIPE, text=True)
    try:
        fwd.stdout.readline()
        cpu0 = cpu_seconds(fwd.pid)
        result = run_load(ctx, load, "plain", port, PACKET_BYTES, rate, pub, b"", subs,
                          pattern=f"dual:{HIGH_SSRC}:{LOW_SSRC}", seconds=seconds)
        cpu = cpu_seconds(fwd.pid) - cpu0
    finally:
        fwd.kill()
        fwd.wait()
        for s in subs + [pub]:
            s.close()
    result.update(cpu=cpu, n_high=n_high, n_low=n_low)
    return result


def run(ctx) -> list:
    load = ctx.compile_c("sfu_load.c", "-lsrtp2", "-lpthread")
    bare = ctx.compile_c("bare_forwarder.c")
    host = ctx.compile_c("server_host.c", "-ldl")
    seconds = SECONDS if not ctx.quick else 1.0
    figures = []
    for n in SUBSCRIBERS:
        n_low = n // 2
        n_high = n - n_low
        # Packets out per packet in, for the 12:1 mix and this split.
        fanout = (HIGH_PER_CYCLE * n_high + LOW_PER_CYCLE * n_low) / (HIGH_PER_CYCLE + LOW_PER_CYCLE)
        rate = TARGET_OUT_PPS / fanout
        sfu = run_server(ctx, host, load, n, rate, seconds)
        want, _ = check_counts(sfu, n_high, n_low, "agoraish")
        _, withheld = expected(sfu, n_high, n_low)
        bare_result = run_bare(ctx, bare, load, n, rate, seconds)
        bare_want, _ = check_counts(bare_result, n_high, n_low, "bare")
        sfu_us = sfu["cpu"] * 1e6 / sfu["received"] if sfu["received"] else None
        bare_us = bare_result["cpu"] * 1e6 / bare_result["received"] if bare_result["received"] else None
        other = sfu['agoraish_media_drops_total{reason="other_layer"}']
        ratio = f"; agoraish/bare = {sfu_us / bare_us:.2f}" if sfu_us and bare_us else ""
        figures.append(figure(
            f"sfu_video_dual_stream_cpu_us_per_packet_out_{n}sub", round(sfu_us, 3) if sfu_us else None, "us/pkt",
            f"server embedded in the library under test (own process), SRTP in and out; one publisher sending "
            f"both streams of dual stream (VP8, {HIGH_PER_CYCLE} high : {LOW_PER_CYCLE} low packets, "
            f"{PACKET_BYTES} B) at {rate:.0f} pkt/s for {seconds:.0f} s ({sfu['sent_high']} high + "
            f"{sfu['sent_low']} low sent); {n_high} subscribers on the high stream, {n_low} on the low; "
            f"{sfu['received']} delivered of {want} due (loss {1 - sfu['received'] / max(1, want):.1%}, no "
            f"subscriber got the other stream) over {sfu['cpu']:.2f} server CPU-s = "
            f"{sfu['cpu'] * 1e6 / max(1, sfu['sent']):.2f} us per packet in; /metrics: other_layer drops "
            f"{other:.0f} (expected {withheld}), layer switches "
            f"{sfu['agoraish_media_layer_switches_total']:.0f}, layer keyframe requests "
            f"{sfu['agoraish_media_layer_keyframe_requests_total']:.0f}; stream_added named "
            f'{sfu["low_announced"]} of {sfu["streams_announced"]} streams "layer": "low"{ratio}'))
        figures.append(figure(
            f"bare_video_dual_stream_cpu_us_per_packet_out_{n}sub", round(bare_us, 3) if bare_us else None, "us/pkt",
            f"bench/bare_forwarder.c, no crypto, one SSRC per subscriber (PORT@SSRC), the same packets and rate; "
            f"{bare_result['received']} delivered of {bare_want} due over {bare_result['cpu']:.2f} CPU-s = "
            f"{bare_result['cpu'] * 1e6 / max(1, bare_result['sent']):.2f} us per packet in"))
    return figures
