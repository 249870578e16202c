"""Video freezes under packet loss and bandwidth caps: frozen ms per minute and frame rate of a VP8 call, from C.

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
- video_freeze_ms_per_min_downcap_{1000,500,250}, video_fps_downcap_{...}:
  the same call, but instead of random loss the receiver caps its downlink,
  {"rtc.network_simulation": {"loss_percent": 0, "delay_ms": 10,
  "jitter_ms": 0, "seed": 4000 + <kbps>, "bandwidth_kbps": <kbps>,
  "queue_ms": 300}}: every RTP packet it receives goes through a <kbps>
  bottleneck with a 300 ms drop-tail queue, 10 ms one way. The engine's
  congestion control is on: the server estimates this subscriber's downlink,
  but the publisher sends no dual stream, so there is nothing lower to
  forward (the default subscribe fallback, VIDEO_STREAM_LOW, only switches
  to a low stream) and the stream suffers as it is; the figures show how.
- video_freeze_ms_per_min_upcap_{1000,500,250}, video_fps_upcap_{...}: the
  sender caps its uplink the same way, {"rtc.network_simulation_send":
  {... "seed": 6000 + <kbps> ...}}; the sender's pacer and encoder follow its
  uplink estimate, and under the default degradation preference
  MAINTAIN_QUALITY a target below 3/4 of the configured 400 kbps lowers the
  frame rate down to 12 fps, and below that the picture size.
  A cap run lasts SECONDS of wall clock from the first picture (at most
  SECONDS + 20 s after joining), and its figures come from the receiver's
  render callback over that window, not from the engine's totals: those grow
  only when a picture arrives, so a freeze still going on at the end (or a
  stream that never recovers) would be missing from them. The freeze figure
  is the sum of the gaps of 500 ms or more between pictures, plus the gap
  from the last picture to the end of the window when it is 500 ms or more,
  per minute of the window; the fps figure is the pictures rendered after
  the first one divided by the window. The notes give the receiver's last
  on_remote_video_stats (whose totals may leave the open gap out), the
  sender's last on_local_video_stats (target bitrate and frame rate, with
  the target frame rate's mean and minimum over the call, sent rate and
  frame rate, encoded size), its rtc.bandwidth_estimate at the end and its
  on_rtc_stats. One call per cap, after the loss calls, each with new
  engines.
"""

from __future__ import annotations

from typing import Any, Dict, List

from ._common import Figure, figure

LOSSES = [0, 5, 10, 20]
CAPS = [1000, 500, 250]
SECONDS = 20
FREEZE_MS = 500.0


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


def window_frozen_ms(run: Dict[str, Any]) -> float:
    """Gaps of FREEZE_MS or more in the window, the one still open at its end included."""
    return run["frozen_ms"] + (run["open_gap_ms"] if run["open_gap_ms"] >= FREEZE_MS else 0.0)


def window_fps(run: Dict[str, Any]) -> float:
    window_s = run["window_ms"] / 1e3
    return (run["pictures"] - 1) / window_s if run["pictures"] > 1 and window_s > 0 else 0.0


def cap_setup(run: Dict[str, Any]) -> str:
    if run["kind"] == "downcap":
        where = (f"the receiver's rtc.network_simulation caps its downlink (every RTP packet it receives) at "
                 f"{run['cap_kbps']} kbps")
        adapt = ("the server estimates this downlink, but the publisher sends no dual stream, so it has no lower "
                 "stream to switch to and forwards everything")
    else:
        where = (f"the sender's rtc.network_simulation_send caps its uplink (every RTP packet it sends) at "
                 f"{run['cap_kbps']} kbps")
        adapt = "the sender's pacer and encoder follow its uplink estimate"
    return (f"640x360@15 VP8 configured 400 kbps, degradation preference MAINTAIN_QUALITY (the default: below 3/4 "
            f"of 400 kbps the frame rate gives down to 12 fps, then the size), synthetic moving picture pushed in real time "
            f"({run['pushed']} pushed), two engines and an embedded server on loopback; {where} ({run['queue_ms']} ms "
            f"drop-tail queue, {run['delay_ms']} ms one way, no random loss, seed {run['seed']}); congestion control, "
            f"NACK/RTX and keyframe requests on; {adapt}")


def cap_stats(run: Dict[str, Any]) -> str:
    expected = run["last_number"] - run["first_number"] + 1 if run["first_number"] >= 0 else 0
    arrived = f"{run['distinct']} of frames {run['first_number']}-{run['last_number']}" if expected else "none"
    estimate = ("n/a" if run["estimate_bps"] is None else
                f"{run['estimate_bps'] / 1e3:.0f} kbps (queueing {run['estimate_queueing_ms']:.0f} ms, loss "
                f"{run['estimate_loss'] * 100:.0f}%)")
    local = (f"sender's last on_local_video_stats: target_bitrate {run['target_bitrate']} kbps, target_frame_rate "
             f"{run['target_frame_rate']} (over the {run['local_reports']} reports of the call: mean "
             f"{run['target_frame_rate_mean']:.1f}, min {run['target_frame_rate_min']}; target_bitrate mean "
             f"{run['target_bitrate_mean']:.0f}, min {run['target_bitrate_min']} kbps), sent_bitrate "
             f"{run['sent_bitrate']} kbps at sent_frame_rate {run['sent_frame_rate']} (encoded_bitrate "
             f"{run['encoded_bitrate']} kbps, {run['encoded_width']}x{run['encoded_height']}, "
             f"{run['encoded_frame_count']} frames encoded)" if run["local_reports"] > 0
             else "no on_local_video_stats from the sender")
    return (f"{arrived} arrived (of {run['pushed']} pushed); receiver's last on_remote_video_stats (report "
            f"{run['stats_reports']}): renderer_output_frame_rate {run['renderer_output_frame_rate']}, received "
            f"{run['received_bitrate']} kbps, packet_loss_rate (before recovery) {run['packet_loss_rate']}% (mean of "
            f"the reports {run['packet_loss_rate_mean']:.1f}%), total_frozen_time {run['total_frozen_time']} ms of "
            f"total_active_time {run['total_active_time']} ms (the engine's totals, without a freeze still going "
            f"on); {local}; sender's rtc.bandwidth_estimate at the end {estimate}, on_rtc_stats tx {run['tx_kbps']} "
            f"kbps; first picture {run['first_picture_ms']:.0f} ms after both joined")


def cap_window(run: Dict[str, Any], seconds: float) -> str:
    incomplete = "" if run["complete"] else (
        f" (INCOMPLETE: the window was cut short at {seconds + 20:.0f} s after joining)")
    return (f"{run['window_ms'] / 1e3:.1f} s from the first picture{incomplete}: {run['pictures']} pictures rendered, "
            f"{run['freezes']} gaps >= 500 ms ({run['frozen_ms']:.0f} ms), the gap since the last picture "
            f"{run['open_gap_ms']:.0f} ms{' (counted)' if run['open_gap_ms'] >= FREEZE_MS else ''}, longest closed "
            f"gap {run['max_gap_ms']:.0f} ms")


def cap_figures(run: Dict[str, Any], seconds: float) -> List[Figure]:
    kind, cap = run["kind"], run["cap_kbps"]
    freeze, fps = f"video_freeze_ms_per_min_{kind}_{cap}", f"video_fps_{kind}_{cap}"
    setup, stats = cap_setup(run), cap_stats(run)
    if run["pictures"] == 0:
        why = f"no picture arrived within {seconds + 20:.0f} s of joining; {setup}; {stats}"
        return [figure(freeze, None, "ms/min", f"not measured: {why}"),
                figure(fps, 0.0, "fps", f"0 pictures rendered: {why}")]
    window = cap_window(run, seconds)
    frozen = window_frozen_ms(run)
    return [
        figure(freeze, round(frozen * 60000 / run["window_ms"], 1), "ms/min",
               f"{frozen:.0f} ms frozen x 60000 / {run['window_ms']:.0f} ms, from the receiver's render callback over "
               f"{window}; {setup}; delivered {window_fps(run):.1f} fps; {stats}"),
        figure(fps, round(window_fps(run), 2), "fps",
               f"{run['pictures'] - 1} pictures rendered after the first / {window}; {setup}; "
               f"{frozen:.0f} ms frozen; {stats}"),
    ]


def run(ctx) -> List[Figure]:
    seconds = 6 if ctx.quick else SECONDS
    program = ctx.compile_c("video_loss.c", "-ldl", "-lpthread", "-lm", "-lvpx")
    runs = [*LOSSES, *(f"down:{cap}" for cap in CAPS), *(f"up:{cap}" for cap in CAPS)]
    data = ctx.run_json([program, ctx.library, ctx.scratch, seconds, *runs],
                        timeout=len(runs) * (seconds + 30) + 30)
    figures: List[Figure] = []
    for call in data["runs"]:
        if call["kind"] != "loss":
            figures.extend(cap_figures(call, seconds))
            continue
        active = call["total_active_time"]
        name = f"video_freeze_ms_per_min_loss_{call['loss']}"
        if active <= 0:
            figures.append(figure(name, None, "ms/min", f"not measured: no video arrived at {call['loss']}% loss "
                                                         f"(no on_remote_video_stats with active time)"))
            continue
        figures.append(figure(name, round(call["total_frozen_time"] * 60000 / active, 1), "ms/min", note(call, seconds)))
    return figures
