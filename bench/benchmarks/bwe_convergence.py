"""How fast the sender's bandwidth estimate follows a change of its uplink's capacity, from C.

- bwe_convergence_s, bwe_convergence_up_s, bwe_queueing_p95_ms_after_drop:
  bench/bwe_convergence.c. An embedded server and two engines in one
  process, video enabled; the sender pushes the synthetic moving 640x360
  picture at 15 fps in real time (VP8 configured at 1500 kbps, degradation
  preference 0, the default MAINTAIN_QUALITY: below the configured rate the
  frame rate gives, not the picture size; the picture is busy enough that
  libvpx with the engine's settings spends the full 1500 kbps on it), the
  receiver renders it into a callback. Before joining, the sender caps its
  own uplink with the engine's simulated network,
  {"rtc.network_simulation_send": {"loss_percent": 0, "delay_ms": 10,
  "jitter_ms": 0, "seed": 1, "bandwidth_kbps": 2000, "queue_ms": 300}}: a
  2000 kbps bottleneck with a 300 ms drop-tail queue. The engine's
  congestion control (transport-wide feedback from the server every 100 ms,
  a delay- and loss-based estimate, docs/network.md) sets what the pacer and
  encoder send. After 12 s of warm-up the same parameter lowers the cap to
  500 kbps (the queue is kept) for 15 s, then raises it to 2000 kbps again
  for 25 s. Throughout, the sender's read-only parameter
  "rtc.bandwidth_estimate" ({"target_bps", "loss", "queueing_ms"}) is read
  every 50 ms on absolute deadlines, so times have 50 ms resolution.
  bwe_convergence_s is the time from the drop until target_bps enters
  [250, 550] kbps and stays there to the end of the 15 s phase (null when it
  ends outside); bwe_convergence_up_s the time from lifting the cap until
  target_bps first reaches 1600 kbps (null if not within 25 s): near the
  capacity it measured the estimate grows additively, so what finds the
  room is a probe (every 5 s, 80 ms at twice the target, padding on top of
  the media; a probe the path carries unsaturated above the capacity known
  sets the estimate and the next probe goes at once at twice that) or the
  throughput passing the capacity known by 3 standard deviations, after
  which the estimate grows multiplicatively (8 % a second rising to 40 %);
  bwe_queueing_p95_ms_after_drop is the p95
  (nearest rank) of queueing_ms (the estimator's smoothed one-way delay
  above the lowest it saw in the last 20-40 s: the queue it believes it is
  filling) from 4 s after the drop to the end of that phase. The notes give
  the series' landmarks, the engines' last on_rtc_stats and
  on_remote_video_stats of each phase, and the rendered frame rate. One
  call; quick mode shortens the phases to 6/8/12 s.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

from ._common import Figure, figure

WARMUP_S, DOWN_S, UP_S = 12, 15, 25
QUICK = (6, 8, 12)


def kbps(bps: Optional[float]) -> str:
    return "n/a" if bps is None else f"{bps / 1e3:.0f}"


def ms(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.1f} ms"


def seconds(value: Optional[float]) -> str:
    return "never" if value is None else f"{value:.2f} s"


def max_loss(series: List[List[Any]], from_s: float = 0.0) -> float:
    values = [s[3] for s in series if s[0] >= from_s and s[3] is not None]
    return max(values) * 100 if values else 0.0


def setup(data: Dict[str, Any]) -> str:
    c = data["config"]
    return (f"{c['width']}x{c['height']}@{c['fps']} VP8 configured {c['kbps']} kbps, degradation preference "
            f"{c['degradation_preference']} (MAINTAIN_QUALITY, the default: the frame rate gives), synthetic moving "
            f"picture pushed in real time ({c['pushed']} pushed), two engines and an embedded server on loopback; the "
            f"sender's rtc.network_simulation_send caps its uplink ({c['queue_ms']} ms drop-tail queue, "
            f"{c['delay_ms']} ms one way, no random loss) at {c['high_kbps']} kbps for {c['warmup_s']:g} s, "
            f"{c['low_kbps']} for {c['down_s']:g} s, {c['high_kbps']} for {c['up_s']:g} s; rtc.bandwidth_estimate "
            f"read every {c['sample_ms']:g} ms")


def phase_stats(name: str, phase: Dict[str, Any]) -> str:
    s = phase["stats"]
    return (f"end of {name}: sender tx_video_kbitrate {s['tx_video_kbps']} kbps (on_rtc_stats, last 2 s), receiver "
            f"received_bitrate {s['received_bitrate']} kbps at {s['width']}x{s['height']}, "
            f"renderer_output_frame_rate {s['renderer_output_frame_rate']}, {s['tail_fps']:.1f} fps rendered over "
            f"the phase's last 4 s")


def run(ctx) -> List[Figure]:
    warmup_s, down_s, up_s = QUICK if ctx.quick else (WARMUP_S, DOWN_S, UP_S)
    program = ctx.compile_c("bwe_convergence.c", "-ldl", "-lpthread", "-lm", "-lvpx")
    data = ctx.run_json([program, ctx.library, ctx.scratch, warmup_s, down_s, up_s],
                        timeout=warmup_s + down_s + up_s + 60)
    c, warm, down, up = data["config"], data["warmup"], data["down"], data["up"]
    series = data["series"]
    lo, hi = c["band_kbps"]
    warm_note = (f"estimate at the end of the {c['warmup_s']:g} s warm-up at {c['high_kbps']} kbps "
                 f"{kbps(warm['end_bps'])} kbps (max {kbps(warm['max_bps'])}; queueing p95 over its last 4 s "
                 f"{ms(warm['queueing_p95_ms_last_4s'])})")
    nulls = sum(p["nulls"] for p in (warm, down, up))
    null_note = f"; {nulls} reads returned null (not in a call)" if nulls else ""

    settled = data["bwe_convergence_s"]
    down_note = (
        f"time from lowering the sender's uplink cap {c['high_kbps']} -> {c['low_kbps']} kbps until "
        f"rtc.bandwidth_estimate's target_bps entered [{lo:.0f}, {hi:.0f}] kbps and stayed there to the end of the "
        f"{c['down_s']:g} s phase ({down['samples']} reads, 50 ms apart)"
        + ("" if settled is not None else "; null: the phase ended with the estimate outside the band")
        + f"; first in the band {seconds(down['first_in_band_s'])}, left it {down['band_exits']} times after, lowest "
        f"{kbps(down['min_bps'])} kbps, median from 4 s {kbps(down['median_bps_after_4s'])}, end "
        f"{kbps(down['end_bps'])}; {warm_note}; {phase_stats('the drop phase', down)}; estimator loss up to "
        f"{max_loss(series['down']):.1f}%; {setup(data)}{null_note}")

    up_time = data["bwe_convergence_up_s"]
    start = up["start_bps"]
    if start is not None and 0 < start < c["up_kbps"] * 1e3:
        floor = (f"from the {kbps(start)} kbps it had when the cap lifted, growth at 8 %/s alone would need about "
                 f"{math.log(c['up_kbps'] * 1e3 / start) / math.log(1.08):.1f} s")
    else:
        floor = f"the estimate was {kbps(start)} kbps when the cap lifted"
    up_note = (
        f"time from raising the cap {c['low_kbps']} -> {c['high_kbps']} kbps again until target_bps first reached "
        f"{c['up_kbps']:.0f} kbps"
        + ("" if up_time is not None else f"; null: not reached within {c['up_s']:g} s")
        + f". Near the capacity it measured the estimate grows by about one packet per 2 x (round trip + 100 ms); "
        f"the room is found by a probe (every 5 s, 80 ms at twice the target; one the path carries unsaturated sets "
        f"the estimate and the next goes at once at twice that) or by the throughput passing the capacity known, "
        f"after which growth is multiplicative, 8 % a second rising to 40 %; {floor}; it passed "
        f"1000 kbps at {seconds(up['reach_1000_s'])}, ended at {kbps(up['end_bps'])} kbps (max "
        f"{kbps(up['max_bps'])}), queueing p95 over the phase {ms(up['queueing_p95_ms'])}; "
        f"{phase_stats('the up phase', up)}; {setup(data)}")

    p95 = data["bwe_queueing_p95_ms_after_drop"]
    queue_note = (
        f"p95 (nearest rank) of rtc.bandwidth_estimate's queueing_ms (the estimator's smoothed one-way delay above "
        f"the lowest it saw in the last 20-40 s: the standing queue it believes it is filling) over the reads from "
        f"{c['queueing_from_s']:g} s after the drop to {c['low_kbps']} kbps to the end of that {c['down_s']:g} s "
        f"phase; "
        f"median {ms(down['queueing_p50_ms_after_4s'])}, max over the whole phase {ms(down['queueing_max_ms'])} (the "
        f"simulated queue drops what would wait over {c['queue_ms']} ms; the estimator cuts its rate above 200 ms of "
        f"queueing, stops growing above 60 ms, and when a queue over 80 ms stands with the rate already under the "
        f"acknowledged throughput (the encoder puts out more than its target) cuts a further 10 % each half second "
        f"and grows no further than that, plus 1 % a second, until a probe finds that the path grew or the queue is under 20 ms); for "
        f"comparison the warm-up's last 4 s at {c['high_kbps']} kbps "
        f"give {ms(warm['queueing_p95_ms_last_4s'])}; {setup(data)}"
        + ("" if p95 is not None else "; null: no estimate was read in that span"))

    return [
        figure("bwe_convergence_s", settled, "s", down_note),
        figure("bwe_convergence_up_s", up_time, "s", up_note),
        figure("bwe_queueing_p95_ms_after_drop", p95, "ms", queue_note),
    ]
