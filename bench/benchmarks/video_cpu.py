"""CPU per frame of VP8 and VP9 video: agoraish beside bare libvpx and GStreamer, from C.

bench/video_cpu.c, for each codec (VP8: codec_type 1, RFC 7741, libvpx
cpu-used -6; VP9: codec_type 5, RFC 9628 non-flexible mode, cpu-used 7) at
640x360@15 fps, 400 kbps (Agora's base rate) and 1280x720@30 fps, 1710 kbps
(Agora's figure; the engine's own STANDARD_BITRATE table gives 1695 there,
so the rate is set explicitly, the same for every stack). The picture is a
synthetic moving one (scrolling gradient, four textured moving blocks,
fixed-pattern noise, the frame number drawn in), drawn outside every
measurement. <codec> is vp8 or vp9, <size> 360p15 or 720p30.

- <codec>_<size>_encode_ms_per_frame: a sender process (one engine in a call
  through an embedded server in another process) pushes the pictures in real
  time; CLOCK_THREAD_CPUTIME_ID of the pushing thread around each
  push_external_video_frame (copy, encode, RTP, SRTP, sendto), per frame,
  over a SECONDS window after 1.5 s of warm-up.
- <codec>_<size>_decode_ms_per_frame: in the receiver process, CPU of the
  engine's video thread (agoraish-vid<n>, found by /proc/self/task/*/comm;
  its kernel CPU clock, with /proc stat ticks as a check) over the same
  window, per picture rendered (the render callback only reads the frame
  number and counts).
- libvpx_<codec>_<size>_encode_ms_per_frame / _decode_ms_per_frame: the same
  pictures through bare vpx_codec_encode with the engine's settings on a
  thread woken per frame at the same deadlines, and vpx_codec_decode on a
  thread woken per packet (paced, as the engine runs). *_b2b_* figures: the
  same work back to back (warm caches).
- gstreamer_<codec>_<size>_encode_ms_per_frame / _decode_ms_per_frame: whole
  gst-launch-1.0 sender (fdsrc ! rawvideoparse ! vp8enc or vp9enc !
  rtpvp8pay or rtpvp9pay ! udpsink) and receiver (udpsrc ! rtpvp8depay or
  rtpvp9depay ! vp8dec or vp9dec ! fakesink) processes at the same pace; null
  with the reason when GStreamer is missing.

VP9 at cpu-used 7 leaves a cell of the frame-number strip stale in some
pictures, so VP9 pictures must arrive but need not read back their number.

About 16 windows of SECONDS + 1.5 s each: ~100 s at SECONDS = 6.
"""

from __future__ import annotations

from typing import List

from ._common import Figure

SECONDS = 6


def run(ctx) -> List[Figure]:
    seconds = 3 if ctx.quick else SECONDS
    program = ctx.compile_c("video_cpu.c", "-ldl", "-lpthread", "-lm", "-lvpx")
    return ctx.run_figures([program, ctx.library, ctx.scratch, seconds], timeout=25 * seconds + 120)
