"""CPU per frame of VP8 video: agoraish beside bare libvpx and GStreamer, from C.

bench/video_cpu.c, at 640x360@15 fps, 400 kbps (Agora's base rate) and
1280x720@30 fps, 1710 kbps (Agora's figure; the engine's own
STANDARD_BITRATE table gives 1695 there, so the rate is set explicitly, the
same for every stack). The picture is a synthetic moving one (scrolling
gradient, four textured moving blocks, fixed-pattern noise, the frame number
drawn in), drawn outside every measurement.

- vp8_<size>_encode_ms_per_frame: a sender process (one engine in a call
  through an embedded server in another process) pushes the pictures in real
  time; CLOCK_THREAD_CPUTIME_ID of the pushing thread around each
  push_external_video_frame (copy, encode, RTP, SRTP, sendto), per frame,
  over a SECONDS window after 1.5 s of warm-up.
- vp8_<size>_decode_ms_per_frame: in the receiver process, CPU of the
  engine's video thread (agoraish-vid<n>, found by /proc/self/task/*/comm;
  its kernel CPU clock, with /proc stat ticks as a check) over the same
  window, per picture rendered (the render callback only reads the frame
  number and counts).
- libvpx_vp8_<size>_encode_ms_per_frame / _decode_ms_per_frame: the same
  pictures through bare vpx_codec_encode with the engine's settings on a
  thread woken per frame at the same deadlines, and vpx_codec_decode on a
  thread woken per packet (paced, as the engine runs). *_b2b_* figures: the
  same work back to back (warm caches).
- gstreamer_vp8_<size>_encode_ms_per_frame / _decode_ms_per_frame: whole
  gst-launch-1.0 sender (fdsrc ! rawvideoparse ! vp8enc ! rtpvp8pay !
  udpsink) and receiver (udpsrc ! rtpvp8depay ! vp8dec ! fakesink) processes
  at the same pace; null with the reason when GStreamer is missing.
- vp9_<size>_*: null (the engine does not send VP9 yet);
  libvpx_vp9_<size>_*_b2b_ms_per_frame: bare libvpx VP9 with the engine's VP9
  settings (cpu-used 7), back to back, as an extra.

About 8 windows of SECONDS + 1.5 s each: ~55 s at SECONDS = 6.
"""

from __future__ import annotations

from typing import List

from ._common import Figure

SECONDS = 6


def run(ctx) -> List[Figure]:
    seconds = 3 if ctx.quick else SECONDS
    program = ctx.compile_c("video_cpu.c", "-ldl", "-lpthread", "-lm", "-lvpx")
    return ctx.run_figures([program, ctx.library, ctx.scratch, seconds], timeout=10 * seconds + 90)
