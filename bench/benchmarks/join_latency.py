"""Join latency against an embedded channel server, from C.

- join_latency_p50_ms / join_latency_p99_ms: bench/join_latency.c, N=200
  joins of one engine (plus 10 warm-up joins) to a server running in the same
  process on 127.0.0.1. Each join uses a fresh uid and is followed by
  leave_channel and a wait for on_leave_channel, so every join opens a new
  signaling connection (TCP connect, WebSocket handshake, join request and
  answer). A join is timed from right before agoraish_engine_join_channel()
  on the calling thread to the entry of on_join_channel_success on the
  engine's event thread, with CLOCK_MONOTONIC. The server's per-address join
  rate limit is lifted for the run (config_json).

The engine logs to a file in the run's scratch directory.
"""

from __future__ import annotations

from typing import List

from ._common import Figure

JOINS = 200


def run(ctx) -> List[Figure]:
    joins = ctx.repeats(JOINS)
    program = ctx.compile_c("join_latency.c", "-ldl", "-lpthread")
    return ctx.run_figures([program, ctx.library, ctx.scratch / "join_latency.log", joins], timeout=120)
