"""End-to-end audio delay on loopback, agoraish beside GStreamer, from C.

- audio_e2e_delay_p50_ms / audio_e2e_delay_p99_ms: bench/audio_delay.c. An
  embedded server and two engines in one process; the sender pushes 10 ms of
  48 kHz mono every 10 ms (absolute CLOCK_MONOTONIC deadlines): silence with
  a 10 ms chirp every 500 ms, at a pseudo-random offset within 20 ms. The
  receiver pulls 10 ms every 10 ms on its own thread (5 ms after the pushes).
  Each click is located in the received audio by cross-correlation with the
  chirp; its delay is the time its first sample came out of a pull minus the
  time it was pushed (a sample's time is its block's call time plus its
  offset in the block). p50 / p99 over the clicks found (nearest rank).
- gstreamer_audio_e2e_delay_p50_ms / _p99_ms: the same signal, pacing and
  detection through gst-launch-1.0 pipelines (opusenc with the engine's
  default settings, rtpopuspay, udpsink -> udpsrc, rtpjitterbuffer
  latency=20, rtpopusdepay, opusdec, fdsink sync=true), in the same run.
  null with the reason when GStreamer is missing (scripts/setup-bench.sh
  installs it).

CLICKS clicks take CLICKS / 2 s per stack, plus ~3 s of set-up each.
"""

from __future__ import annotations

from typing import List

from ._common import Figure

#: 40 clicks = 20 s per stack, so that the audio benchmarks together stay
#: under ~2 minutes.
CLICKS = 40


def run(ctx) -> List[Figure]:
    clicks = 12 if ctx.quick else CLICKS
    program = ctx.compile_c("audio_delay.c", "-ldl", "-lpthread", "-lm")
    return ctx.run_figures([program, ctx.library, ctx.scratch, clicks], timeout=clicks + 60)
