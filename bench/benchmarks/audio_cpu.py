"""CPU per second of audio: agoraish beside bare libopus and GStreamer, from C.

- audio_send_cpu_ms_per_s / audio_receive_cpu_ms_per_s: bench/audio_cpu.c.
  An embedded server, a sender and a receiver, each in its own process; the
  sender's engine publishes a 48 kHz mono speech-like signal pushed 10 ms
  every 10 ms (default profile: Opus 18 kbps with FEC, RTP, SRTP, send), the
  receiver's engine is pulled 10 ms every 10 ms (receive, SRTP, jitter
  buffer, decode, mix). CPU = CLOCK_PROCESS_CPUTIME_ID of each process (every
  thread) over the same SECONDS window once audio flows.
- libopus_encode_cpu_ms_per_s / libopus_decode_cpu_ms_per_s: the same signal
  through bare libopus with the same settings (VOIP, 18 kbps, max band SWB,
  in-band FEC at 10 %, complexity 9 = the libopus default, 20 ms frames), one
  thread, median of 5 runs.
- gstreamer_audio_send_cpu_ms_per_s / gstreamer_audio_receive_cpu_ms_per_s:
  gst-launch-1.0 sender and receiver processes (same settings and pacing),
  utime + stime from /proc over the same window length; null with the reason
  when GStreamer is missing.
- libopus_paced_send_cpu_ms_per_s: the floor of any real-time sender, in one
  thread: the same signal with a wake-up every 10 ms, bare opus_encode every
  20 ms, and sendto of each packet to a loopback socket.
- audio_idle_in_call_cpu_ms_per_s: an engine alone in a call with an external
  source and sink and no audio, in its own process, same window.
"""

from __future__ import annotations

from typing import List

from ._common import Figure

SECONDS = 8


def run(ctx) -> List[Figure]:
    seconds = 3 if ctx.quick else SECONDS
    program = ctx.compile_c("audio_cpu.c", "-ldl", "-lpthread", "-lm", "-lopus")
    return ctx.run_figures([program, ctx.library, ctx.scratch, seconds], timeout=3 * seconds + 60)
