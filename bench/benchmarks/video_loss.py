"""Video freezes under packet loss: frozen ms per minute of a VP8 call, from C.

- video_freeze_ms_per_min_loss_{0,5,10,20}: bench/video_loss.c. An embedded
  server and two engines in one process, video enabled; the sender pushes
  a synthetic moving 640x360 picture at 15 fps (VP8, 400 kbps) in real time
  (absolute CLOCK_MONOTONIC deadlines), the receiver renders it into a
  callback. Before joining, the receiver sets the engine's simulated network
  on what it receives, {"rtc.network_simulation": {"loss_percent": <pct>,
  "seed": 3000 + <pct>}}: random loss of every RTP packet it receives,
  retransmissions included. The engine recovers as on a real network (NACK,
  RTX from the server's cache, a keyframe request when a frame is lost
  anyway). The call lasts until the receiver's on_remote_video_stats
  (every 2 s) reports total_active_time >= SECONDS; the figure is that
  report's total_frozen_time (the sum of the gaps of 500 ms or more between
  two pictures) per minute of total_active_time. The note gives the
  delivered frame rate (pictures rendered per second over the same time,
  and the engine's renderer_output_frame_rate of the last 2 s), the share of
  the pushed frames that arrived (distinct frame numbers read back), the
  longest gap, and the freeze sum measured from the render callback as a
  check. One call per loss rate, one after the other, each with new engines.
  The simulated network adds no delay here: on loopback a NACK and its
  retransmission take a few ms, the best case for recovery.
"""

from __future__ import annotations

from typing import Any, Dict, List

from ._common import Figure, figure

LOSSES = [0, 5, 10, 20]
SECONDS = 20


def note(run: Dict[str, Any], seconds: float) -> str:
    active = run["total_active_time"]
    span_s = run["span_ms"] / 1e3
    fps = (run["pictures"] - 1) / span_s if span_s > 0 else 0.0
    expected = run["last_number"] - run["first_number"] + 1 if run["first_number"] >= 0 else 0
    arrived = f"{run['distinct']} of frames {run['first_number']}-{run['last_number']}" if expected else "none"
    incomplete = "" if run["complete"] else (
        f"; INCOMPLETE: no report reached {seconds:.0f} s of video within {seconds + 20:.0f} s of joining")
    return (
        f"total_frozen_time {run['total_frozen_time']} ms over total_active_time {active} ms (the receiver's "
        f"on_remote_video_stats, report {run['stats_reports']}; gaps >= 500 ms between pictures; frozen_rate "
        f"{run['frozen_rate']}%), x 60000 / active time; 640x360@15 VP8 400 kbps pushed in real time, two engines "
        f"and an embedded server on loopback, the receiver's rtc.network_simulation dropping {run['loss']}% of the "
        f"RTP it receives at random (seed {run['seed']}; no added delay, so a retransmission is back within a few "
        f"ms), NACK/RTX and keyframe requests on; delivered "
        f"{fps:.1f} fps ({run['pictures']} pictures rendered in {span_s:.1f} s; engine's "
        f"renderer_output_frame_rate {run['renderer_output_frame_rate']} over the last 2 s), {arrived} arrived "
        f"(of {run['pushed']} pushed); engine's packet_loss_rate (before recovery) over the last 2 s "
        f"{run['packet_loss_rate']}% (mean of the {run['stats_reports']} reports {run['packet_loss_rate_mean']:.1f}%), "
        f"received {run['received_bitrate']} kbps, sender {run['tx_kbps']} kbps; "
        f"from the render callback: {run['freezes']} freezes, {run['frozen_ms']:.0f} ms frozen, longest gap "
        f"{run['max_gap_ms']:.0f} ms; first picture {run['first_picture_ms']:.0f} ms after both joined"
        f"{incomplete}")


def run(ctx) -> List[Figure]:
    seconds = 6 if ctx.quick else SECONDS
    program = ctx.compile_c("video_loss.c", "-ldl", "-lpthread", "-lm", "-lvpx")
    data = ctx.run_json([program, ctx.library, ctx.scratch, seconds, *LOSSES],
                        timeout=len(LOSSES) * (seconds + 30) + 30)
    figures: List[Figure] = []
    for call in data["runs"]:
        active = call["total_active_time"]
        name = f"video_freeze_ms_per_min_loss_{call['loss']}"
        if active <= 0:
            figures.append(figure(name, None, "ms/min", f"not measured: no video arrived at {call['loss']}% loss "
                                                         f"(no on_remote_video_stats with active time)"))
            continue
        figures.append(figure(name, round(call["total_frozen_time"] * 60000 / active, 1), "ms/min", note(call, seconds)))
    return figures
