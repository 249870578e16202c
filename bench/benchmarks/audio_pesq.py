"""Wide-band PESQ of speech through two engines with 0-30 % random loss.

- pesq_wb_loss_{0,10,20,30}: ~9 s of espeak-ng speech (four Harvard
  sentences at 175 words per minute, resampled from 22.05 kHz to 16 kHz with
  scipy.signal.resample_poly, peak at -3 dBFS) is pushed through two engines
  by bench/audio_pesq.c: an embedded server, the default profile, a 16 kHz
  external source and a 16 kHz external sink, pushed and pulled 10 ms every
  10 ms. The engine has no loss hook (no
  parameter, no environment variable) and the machine has no netem, so the
  benchmark puts a relay into the media path: the server advertises the
  relay's address (its "listen.media_host" setting) and the relay drops
  each RTP datagram from the engines with the given probability (fixed seed)
  while STUN and RTCP pass; SRTP stays end to end. The received audio is
  aligned to the reference by cross-correlation and scored with PyPI's pesq
  in mode 'wb' (ITU-T P.862.2). A clip scored against itself gives ~4.64.
- libopus_pesq_wb_loss_{0,10,20,30}: the same clip through bare libopus with
  the engine's settings at 16 kHz, each 20 ms packet dropped with the same
  probability, decoded with FEC from the next packet when it is there and
  PLC otherwise (the engine's jitter-buffer rule): the codec alone with a
  perfect transport, beside each engine figure. (The loss pattern is drawn
  from the same rate and seed, not the same packets.)

The absolute scores are low because the default profile is 18 kbps with
in-band FEC and espeak-ng's voice is synthetic: bare libopus with these
settings scores ~2.3-2.5 on these sentences without loss (~3.5 at 32 kbps
and ~4.3 at 64 kbps, measured once on the same sentences at 160 wpm).
Compare the engine with the libopus figure beside it.

Every figure is null with the reason when espeak-ng, scipy or pesq is
missing (scripts/setup-bench.sh installs them).
"""

from __future__ import annotations

import shutil
import subprocess
import wave
from pathlib import Path
from typing import List, Optional, Tuple

from ._common import BenchError, Figure, figure

LOSSES = [0, 10, 20, 30]
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


def make_clip(scratch: Path) -> Tuple[Path, "object"]:
    """espeak-ng speech at 16 kHz as raw S16LE; returns the path and the samples."""
    import numpy as np
    from scipy.signal import resample_poly

    wav = scratch / "pesq_speech.wav"
    done = subprocess.run(["espeak-ng", "-v", "en", "-s", "175", "-w", str(wav), TEXT],
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise BenchError(f"espeak-ng failed: {done.stderr.strip()}")
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


def run(ctx) -> List[Figure]:
    why = missing_tools()
    if why:
        return [f for loss in LOSSES for f in (figure(f"pesq_wb_loss_{loss}", None, "MOS-LQO", f"not measured: {why}"),
                                               figure(f"libopus_pesq_wb_loss_{loss}", None, "MOS-LQO",
                                                      f"not measured: {why}"))]
    program = ctx.compile_c("audio_pesq.c", "-ldl", "-lpthread", "-lm", "-lopus")
    clip_path, clip = make_clip(ctx.scratch)
    seconds = len(clip) / RATE
    figures: List[Figure] = []
    for loss in LOSSES:
        seed = 1000 + loss
        out = ctx.scratch / f"pesq_engine_{loss}.raw"
        stats = ctx.run_json([program, ctx.library, ctx.scratch, clip_path, out, loss, seed], timeout=seconds + 60)
        engine_mos, lag = score(clip, out)
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
            f"500 ms lead-in); clip vs itself 4.64; agoraish/libopus = {engine_mos / codec_mos:.2f}"))
        figures.append(figure(
            f"libopus_pesq_wb_loss_{loss}", round(codec_mos, 3), "MOS-LQO",
            f"the same clip through bare libopus at 16 kHz with the engine's settings (18 kbps, FEC, "
            f"complexity 9), {codec['dropped']} of {codec['packets']} packets dropped (same rate, seed {seed}), "
            f"FEC from the next packet else PLC ({codec['fec_recovered']} / {codec['concealed']})"))
    return figures
