"""What the server's abuse budgets cost and what they hold back
(docs/server.md, "Limits and abuse"; docs/media-plane.md, "Consent, proof of
address and replays"), against the release agoraish-server.

- abuse_legit_join_ms_under_flood / abuse_legit_join_ms_no_flood: a
  legitimate client opens a fresh WebSocket and joins (connect + upgrade +
  join + the `joined` reply, time.perf_counter in this process), JOINS times
  in each case, one every JOIN_SPACING s (under the default 20 joins/s per
  address), each with a new uid, then `leave` and close; the two cases
  alternate in FLOOD_BLOCKS blocks so the machine's other load hits both
  alike. The flood: one WebSocket connection from another address
  (127.0.0.2, so it has its own per-address budgets, as an attacker
  elsewhere would), from a separate process, sending `ping` messages
  interleaved with 16000-byte `ping` objects of 60 members as fast as the
  server reads them, reading every reply, connecting again if closed;
  started FLOOD_RAMP s before each block so its burst is spent. The server
  runs with its default budgets. Median; p95 and max in the note, with what
  the flood got through and the refusals the server counted. For comparison
  (note only), FLOOD_ARRAY_JOINS joins while FLOOD_ARRAY_ADDRESSES addresses
  x FLOOD_ARRAY_CONNECTIONS connections flood 16000-byte objects that hold
  an array of ~8000 integers (the parse signaling_worst_parse_us measures).
- abuse_mass_leave_max_gap_ms_5000: MASS sessions join (WebSocket, media
  admitted: every join gets a media grant) in channels of MASS_CHANNEL_SIZE,
  from a separate process (niced: the attacker's machines are not this
  server's; here they share its two cores). Beside them a call: a publisher
  sends SRTP audio every 20 ms (pylibsrtp, 160-byte payloads), a subscriber
  receives it, and a third participant's socket sends a STUN binding request
  every 10 ms from its bound address and times the answers; the call runs in
  its own process, one thread and select(), so its timing does not depend on
  the attacker's event loop. Once the joins are answered and the forwarding
  threads are idle again (they admit the sessions after the replies), 5 s
  of baseline, then all sessions send `leave` at once and close. The figure
  is the longest gap between consecutive audio packets at the subscriber or
  STUN answers (whichever is longer) that overlaps the 5 s after the leave
  starts; the note gives both, the same for the 5 s before, how late the
  call's own sends ran, and how long the leaves and closes took. The
  server's join rate, connection, unauthenticated-connection, channel and
  per-address message budgets are raised so the 5000 can join from one
  address and leave at once (otherwise the address's message budget, 500/s,
  spreads the leaves over ~8 s itself); the drop and authentication
  timeouts are raised so nobody needs keepalives. RLIMIT_NOFILE is raised
  (soft up to the hard limit) for this process and its children.
- abuse_probe_amplification_ratio: an attacker joins a last-mile probe
  (`probe: true`), binds its UDP socket (answering the consent check), then
  a second "victim" socket sends one fresh binding request for the
  attacker's session (standing for a request spoofed with the victim's
  address; the victim answers nothing), and the attacker asks
  `probe_downlink` at 5 Mbps for 2 s. Ratio = bytes the victim socket
  received / UDP bytes the attacker sent (its own binding, consent answers,
  the spoofed request; signaling excluded), over 5 s. Variants: (a) the
  attacker keeps answering consent checks; (b) its bound socket answers none
  (with consent_interval_ms 1000 and consent_timeout_ms 2500 so its consent
  runs out within the 5 s, and `probe_downlink` asked again after it has);
  the figure is the larger. The note also gives (c), where the attacker
  also sends one authenticated SRTP packet from the victim's address (which
  the server takes as proof of that address), and a control where the
  attacker first sends 40 KB of SRTP from its own socket so that probes are
  due, to show they then flow (to its own socket).
- signaling_worst_parse_us, signaling_refused_parse_us, signaling_ping_us:
  `agoraish-bench signaling` (Sources/agoraish-bench), built like
  bench/benchmarks/encryption.py builds it; see there for what it times.

The server process, the STUN binding and SRTP sessions come from
Tests/python/media_client.py; the call, the helper processes, RLIMIT_NOFILE
and the gap measure from Tests/python/abuse_support.py (shared with
test_abuse_engine.py's mass leave). Both are imported where used, so that
importing this module stays cheap.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ._common import BenchError, Figure, figure, median, quantile

ROOT = Path(__file__).resolve().parents[2]
TESTS_PYTHON = ROOT / "Tests" / "python"
sys.path.insert(0, str(TESTS_PYTHON))

APP = "0123456789abcdef0123456789abcdef"

JOINS = 20
WARMUP_JOINS = 3
JOIN_SPACING = 0.15
FLOOD_BLOCKS = 4
FLOOD_RAMP = 1.0
FLOOD_ARRAY_ADDRESSES = 4
FLOOD_ARRAY_CONNECTIONS = 10
FLOOD_ARRAY_JOINS = 5
FLOOD_SOURCE = "127.0.0.2"
FLOOD_BIG_BYTES = 16000
FLOOD_BIG_MEMBERS = 60

MASS = 5000
MASS_CHANNEL_SIZE = 5
MASS_CONCURRENCY = 64
WINDOW = 5.0
SETTLE_LIMIT = 120.0

PROBE_SECONDS = 5.0

# The helper processes (flooder, mass sessions, the call) run this module's _helper_main (abuse_support.spawn_python).
_BOOT = ("import sys; sys.path[:0] = [{bench!r}, {tests!r}]; from benchmarks import abuse; "
         "abuse._helper_main(sys.argv[1:])").format(bench=str(ROOT / "bench"), tests=str(TESTS_PYTHON))


# ---------------------------------------------------------------------------------------------------------------------
# The server


class Server:
    """A release agoraish-server with a config file and HTTP on a free port (media_client.ServerProcess:
    its log drained, /metrics read)."""

    def __init__(self, ctx, name: str, config: Dict[str, Any]) -> None:
        from .sfu_forward import server_binary
        from media_client import ServerProcess
        try:
            self.process = ServerProcess(server_binary(), Path(ctx.scratch) / f"abuse-{name}.json", config,
                                         "--accept-unknown-apps")
        except RuntimeError as error:
            raise BenchError(str(error)) from None
        self.proc, self.url, self.http = self.process.proc, self.process.url, self.process.http

    def metrics(self) -> Dict[str, float]:
        return self.process.metrics(timeout=10)

    def cpu(self) -> float:
        from .sfu_forward import cpu_seconds
        return cpu_seconds(self.proc.pid)

    def stop(self) -> None:
        self.process.stop()


def refusals(before: Dict[str, float], after: Dict[str, float]) -> str:
    """The refusals counted between two /metrics readings, as `reason=N, ...`."""
    out = []
    for name, value in sorted(after.items()):
        if name.startswith("agoraish_refusals_total{"):
            delta = value - before.get(name, 0)
            if delta:
                reason = name.split('reason="', 1)[1].rstrip('"}')
                out.append(f"{reason}={delta:.0f}")
    return ", ".join(out) or "none"


async def ws_connect(url: str, **extra):
    import websockets
    return await websockets.connect(url + "/v1/signal", compression=None, max_size=None, ping_interval=None, proxy=None,
                                    max_queue=None, open_timeout=30, close_timeout=10, **extra)


async def ws_join(url: str, uid: int, channel: str, profile: int = 0, role: int = 1, **fields):
    """Joins on a new connection; returns (websocket, joined message). Raises BenchError when refused."""
    ws = await ws_connect(url)
    await ws.send(json.dumps({"v": 1, "type": "join", "id": 1, "app_id": APP, "channel": channel, "uid": uid,
                              "profile": profile, "role": role, **fields}))
    while True:
        m = json.loads(await ws.recv())
        if m.get("id") == 1:
            if m["type"] != "joined":
                await ws.close()
                raise BenchError(f"join refused: {m}")
            return ws, m


def thread_cpu(pid: int, prefix: str) -> float:
    """CPU seconds (user + system) of the threads of `pid` whose name starts with `prefix`."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = Path(f"/proc/{pid}/task/{task}/stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        if name.startswith(prefix):
            fields = stat.rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def settle(pid: int, prefix: str, busy: float, limit: float) -> float:
    """Waits until the threads named `prefix` use less than `busy` of a core over a second (or `limit` s
    passed); returns how long that took."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        c0 = thread_cpu(pid, prefix)
        time.sleep(1.0)
        if thread_cpu(pid, prefix) - c0 < busy:
            break
    return time.monotonic() - t0


def helper(role: str, *args: Any, nice: int = 0, pass_fds: Sequence[int] = ()) -> subprocess.Popen:
    """A helper process that runs _helper_main(role, args)."""
    from abuse_support import spawn_python
    return spawn_python(_BOOT, role, *args, nice=nice, pass_fds=pass_fds)


def read_json_line(proc: subprocess.Popen, timeout: float, what: str) -> Dict[str, Any]:
    """The next line of a helper's stdout, as JSON; kills the helper and raises BenchError if none comes."""
    import abuse_support
    return abuse_support.read_json_line(proc, timeout, what, error=BenchError)


# ---------------------------------------------------------------------------------------------------------------------
# 1. A join while one connection floods


def flood_messages(kind: str = "object") -> Tuple[str, str]:
    """The flood's small `ping` and its big message: a FLOOD_BIG_BYTES-byte `ping` object of FLOOD_BIG_MEMBERS
    members (kind "object"), or of 4 members, one an array of single-digit integers (kind "array")."""
    small = json.dumps({"v": 1, "type": "ping", "id": 1}, separators=(",", ":"))
    members: Dict[str, Any] = {"v": 1, "type": "ping", "id": 2}
    if kind == "array":
        head = json.dumps({**members, "a": []}, separators=(",", ":"))
        count = (FLOOD_BIG_BYTES - len(head) + 1) // 2
        big = head[:-2] + ",".join(str(i % 10) for i in range(count)) + "]}"
        big = big[:-2].rstrip(",") + "]}" if len(big) > FLOOD_BIG_BYTES else big
        return small, big
    pads = FLOOD_BIG_MEMBERS - len(members)
    base = len(json.dumps({**members, **{f"k{i:03d}": "" for i in range(pads)}}, separators=(",", ":")))
    room = FLOOD_BIG_BYTES - base
    for i in range(pads):
        members[f"k{i:03d}"] = "x" * (room // pads + (1 if i < room % pads else 0))
    big = json.dumps(members, separators=(",", ":"))
    assert len(big) == FLOOD_BIG_BYTES, len(big)
    return small, big


async def _flood(url: str, source: str, kind: str = "object", connections: int = 1) -> Dict[str, Any]:
    """`connections` connections from `source` that flood until EOF on stdin; returns what they did."""
    from websockets.exceptions import ConnectionClosed
    small, big = flood_messages(kind)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    threading.Thread(target=lambda: (sys.stdin.read(), loop.call_soon_threadsafe(stop.set)), daemon=True).start()
    stats: Dict[str, Any] = {"connections": 0, "connect_errors": 0, "sent_small": 0, "sent_big": 0, "replies": 0,
                             "closed": {}, "big_bytes": len(big)}
    started = time.monotonic()

    async def drain(ws) -> None:
        try:
            async for _ in ws:
                stats["replies"] += 1
        except ConnectionClosed:
            pass

    async def one() -> None:
        while not stop.is_set():
            try:
                ws = await ws_connect(url, local_addr=(source, 0))
            except Exception:
                stats["connect_errors"] += 1
                await asyncio.sleep(0.05)
                continue
            stats["connections"] += 1
            reader = asyncio.create_task(drain(ws))
            sender = None
            try:
                async def send_all() -> None:
                    while True:
                        await ws.send(small)
                        stats["sent_small"] += 1
                        await ws.send(big)
                        stats["sent_big"] += 1
                        await asyncio.sleep(0)
                sender = asyncio.create_task(send_all())
                stopper = asyncio.create_task(stop.wait())
                await asyncio.wait([sender, stopper], return_when=asyncio.FIRST_COMPLETED)
                stopper.cancel()
                if sender.done():
                    sender.result()
            except ConnectionClosed as closed:
                code = str(closed.rcvd.code) if closed.rcvd else "no close frame"
                stats["closed"][code] = stats["closed"].get(code, 0) + 1
            finally:
                if sender and not sender.done():
                    sender.cancel()
                reader.cancel()
                try:
                    await asyncio.wait_for(ws.close(), 2)
                except Exception:
                    pass

    await asyncio.gather(*(one() for _ in range(connections)))
    stats["seconds"] = time.monotonic() - started
    return stats


async def legit_joins(url: str, count: int, first_uid: int, limit: Optional[float] = None) -> List[float]:
    """`count` timed joins (ms) on fresh connections, one every JOIN_SPACING s. With `limit` (s), a join that
    takes longer counts as infinitely long."""
    out = []
    for i in range(count):
        began = time.monotonic()
        t0 = time.perf_counter()
        try:
            ws, _ = await asyncio.wait_for(ws_join(url, first_uid + i, "legit"), limit)
        except asyncio.TimeoutError:
            out.append(float("inf"))
            continue
        out.append((time.perf_counter() - t0) * 1000)
        await ws.send(json.dumps({"v": 1, "type": "leave", "id": 2}))
        await ws.close()
        await asyncio.sleep(max(0.0, JOIN_SPACING - (time.monotonic() - began)))
    return out


def flood_join(ctx) -> List[Figure]:
    joins = ctx.repeats(JOINS)
    blocks = FLOOD_BLOCKS if joins % FLOOD_BLOCKS == 0 else 1
    server = Server(ctx, "flood", {})
    flooder = None
    arrays: List[subprocess.Popen] = []
    quiet: List[float] = []
    flooded: List[float] = []
    totals: Dict[str, Any] = {"connections": 0, "sent_small": 0, "sent_big": 0, "replies": 0, "seconds": 0.0,
                              "closed": {}}
    cpu = 0.0
    try:
        loop = asyncio.new_event_loop()
        loop.run_until_complete(legit_joins(server.url, WARMUP_JOINS, 1))
        before = server.metrics()
        # Blocks without and with the flood alternate, so the machine's other load hits both alike.
        for block in range(blocks):
            n = joins // blocks
            quiet += loop.run_until_complete(legit_joins(server.url, n, 100 + block * n))
            cpu0 = server.cpu()
            flooder = helper("flood", server.url, FLOOD_SOURCE)
            time.sleep(FLOOD_RAMP)
            flooded += loop.run_until_complete(legit_joins(server.url, n, 1000 + block * n))
            flooder.stdin.close()
            stats = read_json_line(flooder, 30, "flooder")
            flooder.wait(10)
            cpu += server.cpu() - cpu0
            if stats["connections"] == 0:
                raise BenchError(f"the flooder never connected: {stats}")
            for key in ("connections", "sent_small", "sent_big", "replies", "seconds"):
                totals[key] += stats[key]
            for code, count in stats["closed"].items():
                totals["closed"][code] = totals["closed"].get(code, 0) + count
        after = server.metrics()
        # For comparison (note only): integer arrays, the costliest parse the limits allow, from several addresses.
        arrays += [helper("flood", server.url, f"127.0.0.{10 + i}", "array", FLOOD_ARRAY_CONNECTIONS)
                  for i in range(FLOOD_ARRAY_ADDRESSES)]
        time.sleep(FLOOD_RAMP)
        cpu0, t0 = server.cpu(), time.monotonic()
        array_joins = loop.run_until_complete(legit_joins(server.url, FLOOD_ARRAY_JOINS, 5000, limit=30))
        array_cpu = (server.cpu() - cpu0) / (time.monotonic() - t0)
        array_replies = 0
        for flood in arrays:
            flood.stdin.close()
            array_replies += read_json_line(flood, 30, "array flooder")["replies"]
            flood.wait(10)
        loop.close()
    finally:
        for flood in [flooder, *arrays]:
            if flood and flood.poll() is None:
                flood.kill()
        server.stop()
    stats = totals
    def ms(v: float) -> str:
        return f"{v:.0f}" if v != float("inf") else ">30000"
    array_note = (f"for comparison, while {FLOOD_ARRAY_ADDRESSES} addresses x {FLOOD_ARRAY_CONNECTIONS} connections "
                  f"flood {FLOOD_BIG_BYTES}-byte objects holding an array of ~8000 single-digit integers (the costliest "
                  f"parse the limits allow: signaling_worst_parse_us), {FLOOD_ARRAY_JOINS} joins took median "
                  f"{ms(median(array_joins))} ms, max {ms(max(array_joins))} ms, server CPU {array_cpu:.0%} of a core, "
                  f"{array_replies} flood replies")
    closed = ", ".join(f"{n}x {code}" for code, n in stats["closed"].items()) or "never"
    flood_note = (f"flooder ({FLOOD_SOURCE}, one connection at a time, `ping` alternating with {FLOOD_BIG_BYTES}-byte "
                  f"{FLOOD_BIG_MEMBERS}-member `ping` objects): {stats['sent_small'] + stats['sent_big']} messages "
                  f"written in {stats['seconds']:.1f} s, {stats['replies']} replies, {stats['connections']} "
                  f"connection(s) ({blocks} floods of {FLOOD_RAMP:.0f} s + {joins // blocks} joins), closed by the server "
                  f"{closed}; server CPU {cpu:.2f} s over the floods "
                  f"({cpu / stats['seconds']:.0%} of a core); refusals counted: {refusals(before, after)}")
    how = (f"connect + WebSocket upgrade + join + `joined` reply, fresh connection and uid each time, one join every "
           f"{JOIN_SPACING * 1000:.0f} ms from 127.0.0.1, default server budgets; N={joins} "
           f"(after {WARMUP_JOINS} warm-up joins), in {blocks} blocks alternating with the other case")
    return [
        figure("abuse_legit_join_ms_under_flood", round(median(flooded), 2), "ms",
               f"{how}, while one connection floods: p95 {quantile(flooded, 0.95):.2f}, max {max(flooded):.2f} ms "
               f"(no flood: median {median(quiet):.2f}, p95 {quantile(quiet, 0.95):.2f}, max {max(quiet):.2f}); "
               f"{flood_note}; {array_note}; compare join_latency_p50_ms (C engine, embedded server)"),
        figure("abuse_legit_join_ms_no_flood", round(median(quiet), 2), "ms",
               f"{how}, same server, no flood: p95 {quantile(quiet, 0.95):.2f}, max {max(quiet):.2f} ms"),
    ]


# ---------------------------------------------------------------------------------------------------------------------
# 2. 5000 sessions leave at once beside a call


async def _mass(url: str, count: int, channel_size: int, concurrency: int) -> None:
    from websockets.exceptions import ConnectionClosed
    loop = asyncio.get_running_loop()
    sockets: List[Any] = []
    limit = asyncio.Semaphore(concurrency)
    t0 = time.monotonic()
    failures: List[str] = []

    retries = 0

    async def one(i: int) -> None:
        nonlocal retries
        async with limit:
            for attempt in range(3):
                try:
                    ws, _ = await ws_join(url, 10 + i % channel_size, f"mass-{i // channel_size}")
                    sockets.append(ws)
                    return
                except Exception as error:  # tried again, then reported; the rest go on
                    if attempt == 2:
                        failures.append(f"{type(error).__name__}: {error}")
                    else:
                        retries += 1
                        await asyncio.sleep(0.5)

    await asyncio.gather(*(one(i) for i in range(count)))
    print(json.dumps({"ready": len(sockets), "join_s": time.monotonic() - t0, "failures": len(failures),
                      "failure": failures[0] if failures else None, "retries": retries}), flush=True)
    line = await loop.run_in_executor(None, sys.stdin.readline)
    if line.strip() != "leave":
        return
    leave = json.dumps({"v": 1, "type": "leave", "id": 2})
    start = time.monotonic()
    print(json.dumps({"leave_start": start}), flush=True)
    send_errors = 0

    async def send(ws) -> None:
        nonlocal send_errors
        try:
            await ws.send(leave)
        except ConnectionClosed:
            send_errors += 1

    await asyncio.gather(*(send(ws) for ws in sockets))
    sent = time.monotonic()

    async def close(ws) -> None:
        try:
            await ws.close()
        except Exception:
            pass

    await asyncio.gather(*(close(ws) for ws in sockets))
    closed = time.monotonic()
    print(json.dumps({"sent_s": sent - start, "closed_s": closed - start, "send_errors": send_errors}), flush=True)


def mass_leave(ctx) -> List[Figure]:
    from abuse_support import longest_gap, open_call, raise_nofile
    mass = MASS if not ctx.quick else 1000
    short = raise_nofile(mass * 2 + 1000)
    if short:
        raise BenchError(short)
    big = 1_000_000
    config = {
        "limits": {
            "joins_per_second_per_address": 100000, "max_connections": mass * 2 + 1000,
            "max_connections_per_address": mass * 2 + 1000, "max_unauthenticated_connections": mass * 2 + 1000,
            "max_unauthenticated_per_address": mass * 2 + 1000, "messages_per_second_per_address": big,
            "message_burst_per_address": big, "max_channels": mass + 100,
        },
        "timeouts": {"drop_timeout_ms": 600000, "authentication_ms": 600000},
    }
    server = Server(ctx, "mass", config)
    call = driver = None
    try:
        loop = asyncio.new_event_loop()

        async def call_members():
            out = []
            for uid in (1, 2, 3):
                ws, joined = await ws_join(server.url, uid, "call")
                out.append((ws, joined))
            return out
        members = loop.run_until_complete(call_members())
        socks, spec = open_call([j["media"] for _, j in members], timeout=3.0)
        call = helper("call", json.dumps(spec), pass_fds=[s.fileno() for s in socks])
        driver = helper("mass", server.url, mass, MASS_CHANNEL_SIZE, MASS_CONCURRENCY, nice=10)
        ready = read_json_line(driver, 900, "mass sessions")
        if ready["failures"] > mass // 100:
            raise BenchError(f"{ready['failures']} of {mass} mass joins failed, e.g. {ready['failure']}")
        joined_metrics = server.metrics()
        users = joined_metrics.get("agoraish_users", 0)
        # The media plane admits (SRTP contexts) after the joins are answered: wait until it is idle.
        settled = settle(server.proc.pid, "agoraish-fwd", 0.25, SETTLE_LIMIT)
        time.sleep(WINDOW + 0.5)
        before = server.metrics()
        cpu0 = server.cpu()
        driver.stdin.write("leave\n")
        driver.stdin.flush()
        start = read_json_line(driver, 30, "mass leave")["leave_start"]
        done = read_json_line(driver, 600, "mass leave")
        time.sleep(max(0.0, start + WINDOW + 0.5 - time.monotonic()))
        cpu = server.cpu() - cpu0
        call.stdin.close()
        seen = read_json_line(call, 30, "call")
        after = server.metrics()
        for ws, _ in members:
            loop.run_until_complete(ws.close())
        loop.close()
    finally:
        for p in (call, driver):
            if p and p.poll() is None:
                p.kill()
        server.stop()

    audio = seen["audio_at"]
    stun = [t for t, _ in seen["stun_answers"]]
    end = start + WINDOW
    audio_gap, audio_n = longest_gap(audio, start, end)
    stun_gap, stun_n = longest_gap(stun, start, end)
    base_audio, _ = longest_gap(audio, start - WINDOW, start)
    base_stun, _ = longest_gap(stun, start - WINDOW, start)
    rtts = [rtt for t, rtt in seen["stun_answers"] if start <= t <= end]
    late_audio = max((s - d for d, s in seen["audio_sent"] if start <= s <= end), default=0.0)
    late_stun = max((s - d for d, s in seen["stun_sent"] if start <= s <= end), default=0.0)
    if audio_n == 0 or stun_n == 0:
        raise BenchError(f"the call saw nothing in the window (audio {audio_n}, STUN {stun_n})")
    left = after.get('agoraish_leaves_total{reason="0"}', 0) - before.get('agoraish_leaves_total{reason="0"}', 0)
    worst = max(audio_gap, stun_gap)
    return [figure(
        "abuse_mass_leave_max_gap_ms_5000", round(worst * 1000, 1), "ms",
        f"{ready['ready']} WebSocket sessions ({users:.0f} users on the server with the call; channels of "
        f"{MASS_CHANNEL_SIZE}, each with a media grant; joined in {ready['join_s']:.1f} s from a niced process, "
        f"{ready['retries']} joins tried again, {ready['failures']} failed, refusals {refusals({}, joined_metrics)}; "
        f"the forwarding threads were busy {settled:.1f} s more before they idled) send `leave` at once, "
        f"then close ({done['sent_s'] * 1000:.0f} ms to write the leaves, {done['closed_s'] * 1000:.0f} ms until "
        f"every close handshake finished; the server counted {left:.0f} leaves and used {cpu:.2f} CPU-s). "
        f"Longest gap overlapping the {WINDOW:.0f} s after the leave starts: subscriber audio "
        f"{audio_gap * 1000:.1f} ms ({audio_n} packets, SRTP every 20 ms), STUN answers {stun_gap * 1000:.1f} ms "
        f"({stun_n} answers, a request every 10 ms, max RTT {max(rtts) * 1000 if rtts else float('nan'):.1f} ms); "
        f"the {WINDOW:.0f} s before ({mass} idle sessions): audio {base_audio * 1000:.1f}, STUN {base_stun * 1000:.1f} ms; "
        f"the call's own sends ran at most {late_audio * 1000:.1f} ms (audio) / {late_stun * 1000:.1f} ms (STUN) late "
        f"in the window; {seen['stun_unanswered']} STUN requests unanswered in all. Raised: joins/s, connections, "
        f"unauthenticated connections, channels, per-address message budget, drop and authentication timeouts; "
        f"N=1 run")]


# ---------------------------------------------------------------------------------------------------------------------
# 3. What a last-mile probe reflects to an address that never asked


async def probe_variant(ctx, variant: str) -> Dict[str, Any]:
    """One attack; returns the byte counts."""
    from media_client import consent_answer, rtp, srtp_session, stun_binding_request
    config: Dict[str, Any] = {}
    if variant == "b":
        config = {"timeouts": {"consent_interval_ms": 1000, "consent_timeout_ms": 2500}}
    server = Server(ctx, f"probe-{variant}", config)
    attacker = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    victim = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    attacker.bind(("127.0.0.1", 0))
    victim.bind(("127.0.0.1", 0))
    for s in (attacker, victim):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    try:
        before = server.metrics()
        ws, joined = await ws_join(server.url, 77, "probe-me", probe=True)
        media = joined["media"]
        target = (media["host"], media["port"])
        pwd, ufrag = media["ice_pwd"], media["ice_ufrag"]
        sent = 0
        own_received = 0
        victim_received = 0
        victim_packets = 0
        checks_answered = 0
        # The attacker binds its own socket: a request, its answer, the consent check answered.
        request = stun_binding_request(ufrag, pwd)
        attacker.sendto(request, target)
        sent += len(request)
        attacker.settimeout(2)
        bound = False
        deadline = time.monotonic() + 3
        while not bound and time.monotonic() < deadline:
            data, _ = attacker.recvfrom(4096)
            own_received += len(data)
            answer = consent_answer(data, pwd)
            if answer is not None:
                attacker.sendto(answer, target)
                sent += len(answer)
                bound = True
        if not bound:
            raise BenchError("the probe's socket got no consent check")
        tx = srtp_session(media["srtp_profile"], media["uplink_key"], outbound=True)
        seq = 0
        if variant == "control":
            # Earn probes honestly: 40 KB of SRTP from the bound socket.
            for _ in range(40):
                seq += 1
                packet = tx.protect(rtp(seq, 0x7E57, bytes(1000), pt=127))
                attacker.sendto(packet, target)
                sent += len(packet)
            await asyncio.sleep(0.1)
        attacker.setblocking(False)
        victim.setblocking(False)
        t0 = time.monotonic()
        # One fresh binding request for the attacker's session from the victim's address.
        request = stun_binding_request(ufrag, pwd)
        victim.sendto(request, target)
        sent += len(request)
        if variant == "c":
            # One authenticated SRTP packet from the victim's address: the server takes it as proof.
            await asyncio.sleep(0.02)
            seq += 1
            packet = tx.protect(rtp(seq, 0x7E57, bytes(20), pt=127))
            victim.sendto(packet, target)
            sent += len(packet)
        asks = [0.0, 3.0] if variant == "b" else [0.0]
        answering = variant != "b"
        while True:
            now = time.monotonic() - t0
            if now >= PROBE_SECONDS:
                break
            if asks and now >= asks[0]:
                asks.pop(0)
                await ws.send(json.dumps({"v": 1, "type": "probe_downlink", "id": 10 + len(asks),
                                          "bitrate": 5_000_000, "duration_ms": 2000}))
            readable, _, _ = select.select([attacker, victim], [], [], 0.005)
            for r in readable:
                while True:
                    try:
                        data, _ = r.recvfrom(4096)
                    except BlockingIOError:
                        break
                    if r is victim:
                        victim_received += len(data)
                        victim_packets += 1
                        continue
                    own_received += len(data)
                    answer = consent_answer(data, pwd) if answering else None
                    if answer is not None:
                        attacker.sendto(answer, target)
                        sent += len(answer)
                        checks_answered += 1
            await asyncio.sleep(0)
        errors = []
        try:
            while True:
                m = json.loads(await asyncio.wait_for(ws.recv(), 0.05))
                if m.get("type") == "error":
                    errors.append(m)
        except (asyncio.TimeoutError, Exception):
            pass
        await ws.close()
        after = server.metrics()
    finally:
        attacker.close()
        victim.close()
        server.stop()
    drops = after.get('agoraish_media_drops_total{reason="probe_budget"}', 0) - \
        before.get('agoraish_media_drops_total{reason="probe_budget"}', 0)
    return {"variant": variant, "sent": sent, "victim": victim_received, "victim_packets": victim_packets,
            "own": own_received, "ratio": victim_received / sent, "probe_budget_drops": drops,
            "checks_answered": checks_answered, "errors": errors}


def probe_amplification(ctx) -> List[Figure]:
    loop = asyncio.new_event_loop()
    try:
        results = {v: loop.run_until_complete(probe_variant(ctx, v)) for v in ("a", "b", "c", "control")}
    finally:
        loop.close()

    def describe(r: Dict[str, Any]) -> str:
        return (f"victim {r['victim']} B in {r['victim_packets']} datagrams / attacker {r['sent']} B = "
                f"{r['ratio']:.2f} (attacker's own socket got {r['own']} B; {r['probe_budget_drops']:.0f} probe "
                f"packets dropped as probe_budget)")
    a, b, c, control = (results[k] for k in ("a", "b", "c", "control"))
    worst = max(a["ratio"], b["ratio"])
    return [figure(
        "abuse_probe_amplification_ratio", round(worst, 2), "x",
        f"bytes received by a victim socket that never asked / UDP bytes the attacker sent, over "
        f"{PROBE_SECONDS:.0f} s, after one fresh binding request for the attacker's probe session from the victim's "
        f"address and `probe_downlink` 5 Mbps for 2 s; the larger of (a) attacker answers consent checks: "
        f"{describe(a)}; (b) attacker's bound socket answers none (consent 1 s / 2.5 s timeout, probes asked again "
        f"at 3 s): {describe(b)}. Not in the figure: (c) as (a) plus one authenticated SRTP packet from the victim's "
        f"address: {describe(c)}; control, attacker first sends 40 KB of SRTP from its own socket: "
        f"{describe(control)}. Default probe budgets (probe_amplification, max_probe_bitrate_per_address); "
        f"N=1 run each")]


# ---------------------------------------------------------------------------------------------------------------------
# 4. The parse cost of the costliest messages (agoraish-bench signaling)


def signaling_parse(ctx) -> List[Figure]:
    from . import encryption
    rounds = 5 if ctx.quick else 15
    return ctx.run_figures([encryption.program(ctx), "signaling", rounds], timeout=600)


# ---------------------------------------------------------------------------------------------------------------------


def _failed(names: Sequence[str], error: Exception) -> List[Figure]:
    first = str(error).splitlines()[0] if str(error) else type(error).__name__
    return [figure(n, None, "", f"FAILED: {first}") for n in names]


PARTS = [
    (flood_join, ["abuse_legit_join_ms_under_flood", "abuse_legit_join_ms_no_flood"]),
    (mass_leave, ["abuse_mass_leave_max_gap_ms_5000"]),
    (probe_amplification, ["abuse_probe_amplification_ratio"]),
    (signaling_parse, ["signaling_worst_parse_us", "signaling_refused_parse_us", "signaling_ping_us"]),
]


def run(ctx) -> List[Figure]:
    figures: List[Figure] = []
    errors = []
    for part, names in PARTS:
        try:
            figures += part(ctx)
        except (BenchError, OSError, subprocess.SubprocessError, asyncio.TimeoutError) as error:
            errors.append(f"{part.__name__}: {error}")
            figures += _failed(names, error)
    if errors and len(errors) == len(PARTS):
        raise BenchError("; ".join(errors))
    for error in errors:
        print(f"bench: abuse: {error}", file=sys.stderr)
    return figures


def _helper_main(argv: List[str]) -> None:
    role = argv[0]
    if role == "flood":
        print(json.dumps(asyncio.run(_flood(argv[1], argv[2], *argv[3:4], *map(int, argv[4:5])))), flush=True)
    elif role == "mass":
        asyncio.run(_mass(argv[1], int(argv[2]), int(argv[3]), int(argv[4])))
    elif role == "call":
        from abuse_support import run_call
        run_call(json.loads(argv[1]))
    else:
        raise SystemExit(f"unknown helper {role}")
