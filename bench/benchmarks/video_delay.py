"""End-to-end video delay on loopback, agoraish beside GStreamer, from C.

- video_e2e_delay_p50_ms / video_e2e_delay_p99_ms: bench/video_delay.c. An
  embedded server and two engines in one process, video enabled; the sender
  pushes a synthetic moving 640x360 picture at 15 fps (VP8, 400 kbps) in real
  time (absolute CLOCK_MONOTONIC deadlines), picture k with k drawn in as 24
  cells. The receiver's render callback takes the time on entry and reads the
  number back. Delay = callback entry - time before the push of that
  picture; p50 / p99 (nearest rank) over FRAMES pictures after 1 s of
  warm-up. The note splits the median into the push call (encode + send),
  push to the last packet's arrival, and arrival to the callback.
- gstreamer_video_e2e_delay_p50_ms / _p99_ms: the same pictures, pacing and
  read-back through gst-launch-1.0 (vp8enc with the engine's settings,
  rtpvp8pay, udpsink -> udpsrc, rtpvp8depay, vp8dec, fdsink sync=false), in
  the same run; null with the reason when GStreamer is missing.

FRAMES pictures take FRAMES / 15 s per stack, plus ~2 s of set-up each.
"""

from __future__ import annotations

from typing import List

from ._common import Figure

FRAMES = 100


def run(ctx) -> List[Figure]:
    frames = 30 if ctx.quick else FRAMES
    program = ctx.compile_c("video_delay.c", "-ldl", "-lpthread", "-lm", "-lvpx")
    return ctx.run_figures([program, ctx.library, ctx.scratch, frames], timeout=2 * frames / 15 + 60)
