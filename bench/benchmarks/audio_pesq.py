"""Wide-band PESQ of speech through two engines with 0-40 % random loss and with bursty loss,
with the engines' loss recovery on (the defaults) and off.

- pesq_wb_loss_{0,10,20,30,40}: ~9 s of espeak-ng speech (four Harvard
  sentences at 175 words per minute, resampled from 22.05 kHz to 16 kHz with
  scipy.signal.resample_poly, peak at -3 dBFS) is pushed through two engines
  by bench/audio_pesq.c: an embedded server, the default profile, a 16 kHz
  external source and a 16 kHz external sink, pushed and pulled 10 ms every
  10 ms. The benchmark puts a relay into the media path: the server
  advertises the relay's address (its "listen.media_host" setting) and the
  relay drops each RTP datagram from the engines with the given probability
  while STUN and RTCP pass; SRTP stays end to end. The draws are per sending
  engine and per datagram from a fixed seed, so one seed drops the same
  packets of the sender in every run. The received audio is aligned to the
  reference by cross-correlation and scored with PyPI's pesq in mode 'wb'
  (ITU-T P.862.2). A clip scored against itself gives ~4.64.
- pesq_wb_loss_<pct>_off: the same clip, seed and dropped packets with
  {"rtc.audio_loss_recovery": false} on both engines: no Opus in-band FEC
  from the sender, no FEC and no PLC at the receiver (gaps play as silence).
  The baseline that shows what loss recovery is worth.
- pesq_wb_burst_{10,20} and pesq_wb_burst_<pct>_off: bursty loss from a
  Gilbert-Elliott chain in the same relay (every packet lost in the bad
  state, none in the good one; bad to good 25 % per packet, so a burst lasts
  4 packets = 80 ms on average; good to bad set for a long-run loss of
  <pct>), with recovery on and off. A 9 s clip holds only ~25 bursts, so
  the realized loss swings with the seed: each figure is the median over
  BURST_SEEDS seeds, the same seeds on and off; the note gives every seed's
  pair and the realized loss.
- libopus_pesq_wb_loss_{0,10,20,30,40}: the same clip through bare libopus
  with the engine's settings at 16 kHz, each 20 ms packet dropped with the
  same probability, decoded with FEC from the next packet when it is there
  and PLC otherwise (the engine's jitter-buffer rule): the codec alone with
  a perfect transport, beside each engine figure. (The loss pattern is drawn
  from the same rate and seed, not the same packets: the engine's stream
  starts with 0.5 s of silence.)

The absolute scores are low because the default profile is 18 kbps with
in-band FEC and espeak-ng's voice is synthetic: bare libopus with these
settings scores ~2.3-2.5 on these sentences without loss (~3.5 at 32 kbps
and ~4.3 at 64 kbps, measured once on the same sentences at 160 wpm).
Compare the engine with the libopus figure beside it. Without loss the
_off figure scores higher than the default: the encoder then spends no bits
on in-band FEC (bare libopus at 18 kbps on this clip, measured once: 2.26
with FEC for 10 % expected loss, 3.38 without FEC, 3.50 with FEC on but 0 %
expected loss).

The engine runs are real time (~11 s each) and independent (each has its
own server and relay), so PARALLEL of them run at once. On a 2-core
machine that leaves the scores as they are run one by one (checked once:
every score the same with 1 and with 4 at once; with 6 at once one run in
six moved by 0.03).

Every figure is null with the reason when espeak-ng, scipy or pesq is
missing (scripts/setup-bench.sh installs them).
"""

from __future__ import annotations

import shutil
import subprocess
import wave
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ._common import BenchError, Figure, figure, median

LOSSES = [0, 10, 20, 30, 40]
#: Long-run loss (percent) of the bursty runs.
BURSTS = [10, 20]
#: Gilbert-Elliott bad-to-good chance per packet, percent: a burst lasts 100 / 25 = 4 packets of 20 ms.
BAD_TO_GOOD = 25
#: Seeds of each bursty loss rate (the median is the figure).
BURST_SEEDS = 3
#: Engine runs at once.
PARALLEL = 4
RATE = 16000
#: Harvard sentences (IEEE 1969 list 1), the usual material for speech tests.
TEXT = ("The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. "
        "It's easy to tell the depth of a well. These days a chicken leg is a rare dish.")


def missing_tools() -> Optional[str]:
    """Why the benchmark cannot run here, or None."""
    if not shutil.which("espeak-ng"):
        return "espeak-ng not installed (scripts/setup-bench.sh installs it)"
    try:
        import numpy  # noqa: F401
        import pesq  # noqa: F401
        import scipy.signal  # noqa: F401
    except ImportError as error:
        return f"Python module {error.name} missing (scripts/setup-bench.sh installs numpy, scipy, pesq)"
    return None



def speak(wav: Path, text: str, words_per_minute: int) -> None:
    """Writes `text` spoken by espeak-ng (English, 22.05 kHz mono) to `wav`."""
    done = subprocess.run(["espeak-ng", "-v", "en", "-s", str(words_per_minute), "-w", str(wav), text],
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise BenchError(f"espeak-ng failed: {done.stderr.strip()}")

def make_clip(scratch: Path) -> Tuple[Path, "object"]:
    """espeak-ng speech at 16 kHz as raw S16LE; returns the path and the samples."""
    import numpy as np
    from scipy.signal import resample_poly

    wav = scratch / "pesq_speech.wav"
    speak(wav, TEXT, words_per_minute=175)
    with wave.open(str(wav)) as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1:
            raise BenchError("espeak-ng wrote something other than 16-bit mono")
        rate = w.getframerate()
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64)
    if rate != RATE:
        from math import gcd
        g = gcd(RATE, rate)
        pcm = resample_poly(pcm, RATE // g, rate // g)
    pcm = pcm / np.max(np.abs(pcm)) * (10 ** (-3 / 20)) * 32767
    clip = np.round(pcm).astype("<i2")
    path = scratch / "pesq_reference.raw"
    clip.tofile(path)
    return path, clip


def align(reference, received):
    """The stretch of `received` that lines up with `reference` (cross-correlation), and the lag in samples."""
    import numpy as np
    from scipy.signal import correlate

    ref = reference.astype(np.float64)
    deg = received.astype(np.float64)
    if len(deg) < len(ref):
        deg = np.pad(deg, (0, len(ref) - len(deg)))
    c = correlate(deg, ref, mode="full", method="fft")
    lag = int(np.argmax(c)) - (len(ref) - 1)
    start = max(lag, 0)
    seg = deg[start:start + len(ref)]
    if len(seg) < len(ref):
        seg = np.pad(seg, (0, len(ref) - len(seg)))
    return seg, lag


def score(reference, path: Path) -> Tuple[float, int]:
    import numpy as np
    from pesq import pesq

    received = np.fromfile(path, dtype="<i2")
    if len(received) == 0 or not np.any(received):
        raise BenchError(f"{path.name}: no audio received")
    seg, lag = align(reference, received)
    return float(pesq(RATE, reference.astype(np.float64), seg, "wb")), lag


def names() -> List[str]:
    """Every figure this benchmark makes, in order."""
    out: List[str] = []
    for loss in LOSSES:
        out += [f"pesq_wb_loss_{loss}", f"pesq_wb_loss_{loss}_off", f"libopus_pesq_wb_loss_{loss}"]
    for loss in BURSTS:
        out += [f"pesq_wb_burst_{loss}", f"pesq_wb_burst_{loss}_off"]
    return out


RECOVERY_OFF = ('{"rtc.audio_loss_recovery": false} on both engines (no in-band FEC from the sender, no FEC and '
                'no PLC at the receiver: gaps play as silence)')


def run(ctx) -> List[Figure]:
    why = missing_tools()
    if why:
        return [figure(name, None, "MOS-LQO", f"not measured: {why}") for name in names()]
    program = ctx.compile_c("audio_pesq.c", "-ldl", "-lpthread", "-lm", "-lopus")
    clip_path, clip = make_clip(ctx.scratch)
    seconds = len(clip) / RATE

    # Every engine run: (key, loss, seed, extra arguments).
    runs: List[Tuple[str, int, int, Sequence[str]]] = []
    for loss in LOSSES:
        seed = 1000 + loss
        runs.append((f"loss_{loss}", loss, seed, []))
        runs.append((f"loss_{loss}_off", loss, seed, ["--no-recovery"]))
    for loss in BURSTS:
        for i in range(BURST_SEEDS):
            seed = 2000 + 100 * i + loss
            burst = ["--burst", str(BAD_TO_GOOD)]
            runs.append((f"burst_{loss}_{i}", loss, seed, burst))
            runs.append((f"burst_{loss}_{i}_off", loss, seed, burst + ["--no-recovery"]))

    def engine(job: Tuple[str, int, int, Sequence[str]]) -> Tuple[Dict[str, Any], float, int]:
        key, loss, seed, extra = job
        out = ctx.scratch / f"pesq_engine_{key}.raw"
        stats = ctx.run_json([program, ctx.library, ctx.scratch, clip_path, out, loss, seed, *extra],
                             timeout=seconds + 60)
        mos, lag = score(clip, out)
        return stats, mos, lag

    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        done = dict(zip([r[0] for r in runs], pool.map(engine, runs)))

    figures: List[Figure] = []
    for loss in LOSSES:
        seed = 1000 + loss
        stats, engine_mos, lag = done[f"loss_{loss}"]
        off_stats, off_mos, off_lag = done[f"loss_{loss}_off"]
        codec_out = ctx.scratch / f"pesq_libopus_{loss}.raw"
        codec = ctx.run_json([program, "--codec", clip_path, codec_out, loss, seed], timeout=60)
        codec_mos, _ = score(clip, codec_out)
        sent = stats["rtp_forwarded"] + stats["rtp_dropped"]
        realized = stats["rtp_dropped"] / sent if sent else 0.0
        figures.append(figure(
            f"pesq_wb_loss_{loss}", round(engine_mos, 3), "MOS-LQO",
            f"wide-band PESQ (pesq 'wb') of {seconds:.1f} s of espeak-ng speech at 16 kHz through two engines "
            f"(default profile, 16 kHz source and sink), {loss}% random loss of the engines' RTP in a relay on the "
            f"media path (seed {seed}; {stats['rtp_dropped']} of {sent} dropped = {realized:.1%}); receiver's "
            f"counters at its last 2 s report: FEC-recovered {stats['fec_recovered']}, concealed "
            f"{stats['concealed']}; aligned by cross-correlation (output lag {lag / RATE * 1e3:.0f} ms incl. "
            f"500 ms lead-in); clip vs itself 4.64; agoraish/libopus = {engine_mos / codec_mos:.2f}; "
            f"recovery off: {off_mos:.3f} (pesq_wb_loss_{loss}_off)"))
        off_sent = off_stats["rtp_forwarded"] + off_stats["rtp_dropped"]
        figures.append(figure(
            f"pesq_wb_loss_{loss}_off", round(off_mos, 3), "MOS-LQO",
            f"as pesq_wb_loss_{loss} (same clip, same relay seed {seed}: {off_stats['rtp_dropped']} of {off_sent} "
            f"dropped) with loss recovery off: {RECOVERY_OFF}; receiver's counters at its last 2 s report: "
            f"FEC-recovered {off_stats['fec_recovered']}, concealed (silent) {off_stats['concealed']}; output lag "
            f"{off_lag / RATE * 1e3:.0f} ms; recovery on - off = {engine_mos - off_mos:+.3f}"
            + ("" if loss else "; with nothing lost the difference is the bits the default encoder spends on "
               "in-band FEC (18 kbps, FEC for 10% expected loss)")))
        figures.append(figure(
            f"libopus_pesq_wb_loss_{loss}", round(codec_mos, 3), "MOS-LQO",
            f"the same clip through bare libopus at 16 kHz with the engine's settings (18 kbps, FEC, "
            f"complexity 9), {codec['dropped']} of {codec['packets']} packets dropped (same rate, seed {seed}), "
            f"FEC from the next packet else PLC ({codec['fec_recovered']} / {codec['concealed']})"))

    mean_burst = 100 / BAD_TO_GOOD
    for loss in BURSTS:
        good_to_bad = BAD_TO_GOOD * loss / (100 - loss)
        on = [done[f"burst_{loss}_{i}"] for i in range(BURST_SEEDS)]
        off = [done[f"burst_{loss}_{i}_off"] for i in range(BURST_SEEDS)]
        seeds = [2000 + 100 * i + loss for i in range(BURST_SEEDS)]
        dropped = sum(s["rtp_dropped"] for s, _, _ in on)
        sent = sum(s["rtp_forwarded"] + s["rtp_dropped"] for s, _, _ in on)
        bursts = sum(s["bursts"] for s, _, _ in on)
        longest = max(s["longest_burst"] for s, _, _ in on)
        pairs = "; ".join(
            f"seed {seed}: {s['rtp_dropped']}/{s['rtp_forwarded'] + s['rtp_dropped']} dropped in {s['bursts']} "
            f"bursts, {mos:.3f} on / {off_mos:.3f} off"
            for seed, (s, mos, _), (_, off_mos, _) in zip(seeds, on, off))
        on_median = median([mos for _, mos, _ in on])
        off_median = median([mos for _, mos, _ in off])
        model = (f"Gilbert-Elliott bursty loss of the sender's RTP in the relay on the media path (the relay's "
                 f"model, not the engine's rtc.network_simulation): good to bad {good_to_bad:.2f}% and bad to good "
                 f"{BAD_TO_GOOD}% per packet, every packet lost in the bad state and none in the good one, so "
                 f"{loss}% long-run loss in bursts of {mean_burst:.0f} packets ({mean_burst * 20:.0f} ms) on "
                 f"average; realized over N={BURST_SEEDS} seeds: {dropped} of {sent} = {dropped / sent:.1%} in "
                 f"{bursts} bursts, longest {longest} packets")
        figures.append(figure(
            f"pesq_wb_burst_{loss}", round(on_median, 3), "MOS-LQO",
            f"wide-band PESQ of the pesq_wb_loss_* clip through two engines with their defaults, {model}; median "
            f"of N={BURST_SEEDS} seeds ({pairs}); recovery on - off (medians) = {on_median - off_median:+.3f}"))
        figures.append(figure(
            f"pesq_wb_burst_{loss}_off", round(off_median, 3), "MOS-LQO",
            f"as pesq_wb_burst_{loss} (same clip, same seeds and dropped packets) with loss recovery off: "
            f"{RECOVERY_OFF}; median of N={BURST_SEEDS} seeds (pairs in pesq_wb_burst_{loss})"))
    return figures
