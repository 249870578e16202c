"""Voice processing, voice effects and spatial audio (ABI 0.14), each beside a
baseline measured in the same run.

The engines run in child processes of this one (bench/benchmarks/_voice_engines.py,
``python3 -m benchmarks._voice_engines <part> <scratch>`` with bindings/python
on the path), so that each CPU figure is the process's own
(resource.getrusage(RUSAGE_SELF), every thread) and nothing of the bench
runner is counted. The CPU figures compare windows with the feature on and
off, interleaved, because the machine's other load and the engines' own rate
drift by several ms/s over a run. Three parts:

The call ("near" in the measured process; "far" and the embedded server in a
helper process of their own). far pushes espeak-ng speech (Harvard sentences, 22.05 kHz resampled to 48 kHz,
peak -3 dBFS, looped) into its external audio source, 10 ms every 10 ms (the
MUSIC_STANDARD profile, so the far end is full band). near publishes a
MIXABLE custom audio track with enable_custom_audio_track_processing on and
pulls what it plays (48 kHz stereo) from its external sink in the same
10 ms tick; that playout is both the echo canceller's reference (the engine
feeds it to the module as it plays it) and the loudspeaker signal of a
simulated room: the echo pushed into the track in the same tick is the
playout, downmixed to mono, through ECHO_TAPS (a direct path 60 ms late at
-6 dB, then six reflections decaying to 160 ms). A push due within 60 ms is
processed at once in the pushing thread, so far end and echo reach the
module in the order a device would give them. What the engine sends is read
with a record audio frame observer (48 kHz mono, after processing).

- aec_erle_db: 10·log10(energy of the echo pushed / energy of what the
  engine makes of it) over everything after ERLE_WARMUP_S of the
  ERLE_SECONDS run: no near end, so all that is left is residual echo and
  what the suppressors leave. The scenario's processing (DEFAULT: echo
  cancellation at moderate suppression, noise suppression moderate,
  high-pass) with gain control off ("che.audio.agc.enable": false), because
  a gain stage rescales the residual and would mix its gain into a level
  ratio. The files written (the playout as far end, stereo; the echo as
  capture) go to bench/speex_aec.c:
- speexdsp_aec_erle_db: speexdsp's MDF echo canceller with its
  preprocessor's residual echo suppression and denoiser (tail 250 ms, 48 kHz,
  same warm-up) on the same two signals.
- apm_cpu_ms_per_s: in the same call, with the observer removed and the
  scenario's full processing (echo cancellation, noise suppression, gain
  control, high-pass: the device configuration), CPU_WINDOWS windows with
  processing on between CPU_WINDOWS + 1 with it off
  (enable_custom_audio_track_processing on and off; CPU_WINDOW_S each, from
  CPU_SETTLE_S after the switch); figure = median over the on windows of
  their CPU rate minus the mean rate of the off windows either side, per
  second of audio. The note also gives the same difference for the pushing
  and pulling thread alone (RUSAGE_THREAD), where both the capture and the
  reverse stream are processed, and a cross-check without the real-time
  cadence: outside a call (in the voice effects' process) a custom track
  published by the engine's own connection is processed at once, so the echo
  file is pushed as fast as it goes (the playout pulled beside it is silent
  outside a call), on minus off, beside apm_cpu.cpp on the same capture with
  a silent far end. The bare program loops with the module's data in the
  caches; in a call the module runs one frame every 10 ms.
- apm_bare_cpu_ms_per_s: bench/apm_cpu.cpp, the bare WebRTC AudioProcessing
  module with the engine's configuration, on the same two files
  (-c 2 -d 0: the playout is stereo, and a custom track's delay hint is 0
  with the delay-agnostic AEC), APM_BARE_SECONDS of audio.
- ns_pesq_gain: the espeak-ng clip of audio_pesq (16 kHz) plus white
  Gaussian noise at 5 dB SNR (noise power = the clip's mean power / 10^0.5,
  fixed seed), after NS_LEAD_S of the noise alone; upsampled to 48 kHz and
  pushed through the same custom track with echo cancellation and gain
  control off (noise suppression at the scenario's moderate level and the
  high-pass remain), far muted (mute_remote_audio_stream). Wide-band PESQ (pesq 'wb') of the output
  (downsampled to 16 kHz, aligned by cross-correlation) minus that of the
  noisy input, both against the clean clip.
- speexdsp_ns_pesq_gain: the same noisy 16 kHz signal through speexdsp's
  preprocessor (speex_preprocess_run, denoise on, its default -15 dB noise
  suppression, AGC off, 10 ms frames; libspeexdsp through ctypes), scored the
  same way.

Voice effects (one process, one engine, no call).

- voice_effect_cpu_ms_per_s: outside a call a push into the legacy external
  audio source (48 kHz mono) is processed at once in the pushing thread.
  For every preset of the three families (beautifier, audio effect, voice
  conversion; default parameters), FX_SECONDS of speech pushed one second
  per call after FX_WARMUP_S with the preset on; CPU of the process over the
  pushes minus that of the same pushes with no preset (the median of
  measurements spread through the run), per second of audio. The FX_TOP
  costliest presets are measured FX_REPEATS more times; the figure is the
  costliest (the median where there are several), with the preset named.
- voice_effect_off_cpu_ms_per_s: the same pushes with no preset (the median).

Spatial audio (a listener process; its senders in a process of their own).

- spatial_audio_cpu_ms_per_s_8_sources: one listener engine receives 8
  remote users: 8 sender engines with the embedded server in a helper
  process, each pushing the far-end speech (at its own offset) into its
  external source 10 ms every 10 ms (default profile). The listener pulls
  48 kHz stereo 10 ms every 10 ms. Windows with the spatial audio engine on
  (initialize, listener at the origin, the 8 users on a circle of 2 m,
  45 degrees apart, rendered through libmysofa's default HRTF set) alternate
  with windows with it released (every voice in the middle): figure =
  median over the on windows of the listener process's CPU rate minus the
  mean of the off windows either side. The switch runs on a thread of its
  own while the pulls go on (initialize reads the HRTF set), and the window
  starts SPATIAL_SETTLE_S after it. The note checks the rendering: the
  difference between the ears, rms(L - R) / rms((L + R) / 2), 0 when every
  voice is in the middle.
- spatial_audio_off_cpu_ms_per_s_8_sources: the listener's CPU rate with the
  spatial audio engine released (receiving, decoding and mixing 8 users).

Every figure is null with the reason when espeak-ng, numpy, scipy, pesq or
libspeexdsp is missing (scripts/setup-bench.sh installs the first four;
scripts/setup.sh the library). About 100 s; --quick runs fewer windows.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import signal
import subprocess
import sys
import wave
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ._common import BenchError, Figure, figure, median
from .audio_pesq import speak

ROOT = Path(__file__).resolve().parents[2]
BINDINGS = ROOT / "bindings" / "python"
APP = "0123456789abcdef0123456789abcdef"
RATE = 48000
CHUNK = RATE // 100

#: The far end's words (IEEE 1969 Harvard sentences, list 2).
FAR_TEXT = ("The boy was there when the sun rose. A rod is used to catch pink salmon. "
            "The source of the huge river is the clear spring. Kick the ball straight and follow through. "
            "Help the woman get back to her feet.")
#: The room: (delay ms, gain) of the echo path, applied to the playout downmixed to mono.
ECHO_TAPS = [(60, 0.5), (68, -0.3), (79, 0.22), (93, -0.15), (110, 0.1), (131, -0.07), (160, 0.05)]
ERLE_SECONDS = 12
ERLE_WARMUP_S = 3
CPU_WINDOWS = 6
CPU_WINDOW_S = 2.0
CPU_SETTLE_S = 0.3
APM_BARE_SECONDS = 60
NS_SNR_DB = 5
NS_LEAD_S = 1.0
NS_SEED = 20260101
FX_SECONDS = 4
FX_WARMUP_S = 0.5
FX_TOP = 3
FX_REPEATS = 3
#: Presets between two measurements of the pushes with no preset.
FX_OFF_EVERY = 8
SPATIAL_USERS = 8
SPATIAL_WINDOWS = 3
SPATIAL_WINDOW_S = 3.0
SPATIAL_SETTLE_S = 1.0
SPATIAL_RADIUS_M = 2.0

NAMES = [
    ("aec_erle_db", "dB"),
    ("speexdsp_aec_erle_db", "dB"),
    ("apm_cpu_ms_per_s", "ms/s"),
    ("apm_bare_cpu_ms_per_s", "ms/s"),
    ("ns_pesq_gain", "MOS-LQO"),
    ("speexdsp_ns_pesq_gain", "MOS-LQO"),
    ("voice_effect_cpu_ms_per_s", "ms/s"),
    ("voice_effect_off_cpu_ms_per_s", "ms/s"),
    ("spatial_audio_cpu_ms_per_s_8_sources", "ms/s"),
    ("spatial_audio_off_cpu_ms_per_s_8_sources", "ms/s"),
]


# ---------------------------------------------------------------------------------------------------------------------
# Signals (the parent makes them; the children read the files)


def missing_tools() -> Optional[str]:
    """Why the benchmark cannot run here, or None."""
    from .audio_pesq import missing_tools as pesq_tools
    why = pesq_tools()
    if why:
        return why
    if speexdsp() is None:
        return "libspeexdsp not found (scripts/setup.sh installs libspeexdsp-dev)"
    return None


def speech_48k(scratch: Path) -> Path:
    """The far end: espeak-ng at 160 words per minute, resampled to 48 kHz mono s16le, peak -3 dBFS."""
    import numpy as np
    from math import gcd
    from scipy.signal import resample_poly

    wav = scratch / "voice_far.wav"
    speak(wav, FAR_TEXT, words_per_minute=160)
    with wave.open(str(wav)) as w:
        rate = w.getframerate()
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64)
    g = gcd(RATE, rate)
    pcm = resample_poly(pcm, RATE // g, rate // g)
    pcm = pcm / np.max(np.abs(pcm)) * 10 ** (-3 / 20) * 32767
    path = scratch / "voice_far_48k.s16"
    np.round(pcm).astype("<i2").tofile(path)
    return path


def noisy_speech(scratch: Path) -> Dict[str, Any]:
    """audio_pesq's 16 kHz clip with white noise at NS_SNR_DB, after NS_LEAD_S of noise alone:
    the clean clip, the noisy 16 kHz signal, and the noisy signal at 48 kHz as a file for the engine."""
    import numpy as np
    from scipy.signal import resample_poly
    from .audio_pesq import make_clip

    _, clean = make_clip(scratch)
    clean = clean.astype(np.float64)
    lead = int(NS_LEAD_S * 16000)
    noise_power = np.mean(clean ** 2) / 10 ** (NS_SNR_DB / 10)
    noise = np.random.default_rng(NS_SEED).normal(0.0, np.sqrt(noise_power), lead + len(clean))
    noisy = np.clip(np.round(np.concatenate([np.zeros(lead), clean]) + noise), -32768, 32767)
    up = np.clip(np.round(resample_poly(noisy, 3, 1)), -32768, 32767).astype("<i2")
    path = scratch / "voice_noisy_48k.s16"
    up.tofile(path)
    return {"clean": clean, "noisy": noisy.astype(np.int16), "lead": lead, "path": path}


# ---------------------------------------------------------------------------------------------------------------------
# Baselines


def speexdsp() -> Optional[ctypes.CDLL]:
    """libspeexdsp, or None."""
    name = ctypes.util.find_library("speexdsp")
    for candidate in ([name] if name else []) + ["libspeexdsp.so.1"]:
        try:
            return ctypes.CDLL(candidate)
        except OSError:
            continue
    return None


def speex_denoise(noisy16) -> "object":
    """speexdsp's preprocessor (denoise on, AGC off, its default suppression) on 16 kHz mono, 10 ms frames."""
    import numpy as np

    lib = speexdsp()
    lib.speex_preprocess_state_init.restype = ctypes.c_void_p
    lib.speex_preprocess_state_init.argtypes = [ctypes.c_int, ctypes.c_int]
    lib.speex_preprocess_ctl.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    lib.speex_preprocess_run.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.speex_preprocess_state_destroy.argtypes = [ctypes.c_void_p]
    frame = 160
    state = lib.speex_preprocess_state_init(frame, 16000)
    if not state:
        raise BenchError("speex_preprocess_state_init failed")
    on, off = ctypes.c_int(1), ctypes.c_int(0)
    lib.speex_preprocess_ctl(state, 0, ctypes.byref(on))   # SPEEX_PREPROCESS_SET_DENOISE
    lib.speex_preprocess_ctl(state, 2, ctypes.byref(off))  # SPEEX_PREPROCESS_SET_AGC
    out = np.array(noisy16[: len(noisy16) // frame * frame], dtype=np.int16)
    buf = (ctypes.c_int16 * frame)()
    for i in range(0, len(out), frame):
        ctypes.memmove(buf, out[i:i + frame].ctypes.data, 2 * frame)
        lib.speex_preprocess_run(state, buf)
        out[i:i + frame] = np.frombuffer(buf, dtype=np.int16)
    lib.speex_preprocess_state_destroy(state)
    return out


def pesq_wb(clean, degraded) -> Tuple[float, int]:
    """Wide-band PESQ of `degraded` (16 kHz) aligned to `clean`, and the lag in samples."""
    import numpy as np
    from pesq import pesq
    from .audio_pesq import align

    seg, lag = align(np.round(clean).astype(np.int16), np.asarray(degraded, dtype=np.int16))
    return float(pesq(16000, clean.astype(np.float64), seg.astype(np.float64), "wb")), lag


def compile_cpp(source: str, *extra: str) -> Path:
    """Builds bench/<source> (C++14) into build/bench/ when older than the source, as Context.compile_c does for C."""
    src = ROOT / "bench" / source
    out = ROOT / "build" / "bench" / Path(source).stem
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists() or out.stat().st_mtime < src.stat().st_mtime:
        cxx = os.environ.get("CXX", "g++")
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", *extra], capture_output=True, text=True)
        if flags.returncode != 0:
            raise BenchError(f"pkg-config {' '.join(extra)}: {flags.stderr.strip()}")
        cmd = [cxx, "-std=c++14", "-O2", "-Wall", "-Wextra", str(src), "-o", str(out), *flags.stdout.split()]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise BenchError(f"cannot compile {source}:\n{done.stderr.strip()}")
    return out


# ---------------------------------------------------------------------------------------------------------------------
# The children


def child(ctx, part: str, timeout: float) -> Dict[str, Any]:
    """Runs `python3 -m benchmarks._voice_engines <part> <scratch> [quick]` in a process group of its
    own (the listener starts the senders) and returns the JSON it prints last."""
    env = dict(ctx.env, PYTHONUNBUFFERED="1",
               PYTHONPATH=os.pathsep.join([str(BINDINGS), str(ROOT / "bench"), os.environ.get("PYTHONPATH", "")]))
    argv = [sys.executable, "-m", "benchmarks._voice_engines", part, str(ctx.scratch),
            *(["quick"] if ctx.quick else [])]
    log = ctx.scratch / f"voice_{part}.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen(argv, cwd=str(ROOT / "bench"), env=env, stdout=subprocess.PIPE, stderr=err,
                                start_new_session=True)
        try:
            stdout, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise BenchError(f"voice {part} ran over {timeout:.0f} s") from None
    lines = [line for line in stdout.decode(errors="replace").splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = log.read_text(errors="replace").strip().splitlines()
        raise BenchError(f"voice {part} exited {proc.returncode}: {tail[-1] if tail else 'no output'}")
    return json.loads(lines[-1])


# ---------------------------------------------------------------------------------------------------------------------
# The parent


def interleaved(windows: Sequence[Dict[str, Any]], key: str = "cpu_ms") -> Tuple[float, List[float], float]:
    """Windows off, on, off, ...: (median over the on windows of their rate minus the mean rate
    of the off windows either side, those differences, the mean rate of the off windows), per second of audio."""
    rate = [w[key] / w["audio_s"] for w in windows]
    diffs = [rate[i] - (rate[i - 1] + rate[i + 1]) / 2 for i in range(1, len(windows) - 1, 2)]
    offs = [rate[i] for i in range(0, len(windows), 2)]
    return median(diffs), diffs, sum(offs) / len(offs)


def slow_windows(windows: Sequence[Dict[str, Any]]) -> str:
    late = max(w["wall_s"] / w["audio_s"] for w in windows)
    return f"wall/audio at most {late:.3f}"


def run(ctx) -> List[Figure]:
    why = missing_tools()
    if why:
        return [figure(name, None, unit, f"not measured: {why}") for name, unit in NAMES]
    import numpy as np
    from scipy.signal import resample_poly

    scratch: Path = ctx.scratch
    speex_aec = ctx.compile_c("speex_aec.c", "-lspeexdsp", "-lm")
    apm_cpu = compile_cpp("apm_cpu.cpp", "webrtc-audio-processing")
    far_path = speech_48k(scratch)
    far_s = far_path.stat().st_size / 2 / RATE
    ns = noisy_speech(scratch)

    # ---------------------------------------------------------------- the call
    call = child(ctx, "call", ERLE_SECONDS + (2 * CPU_WINDOWS + 1) * (CPU_WINDOW_S + CPU_SETTLE_S) + 60)
    aec = call["aec"]
    far_file, capture_file = scratch / "voice_aec_far.s16", scratch / "voice_aec_capture.s16"
    speex = ctx.run_json([speex_aec, "-r", RATE, "-w", ERLE_WARMUP_S, "-c", 2, far_file, capture_file])
    bare = ctx.run_json([apm_cpu, "-s", APM_BARE_SECONDS, "-c", 2, "-d", 0, far_file, capture_file], timeout=120)
    silent_file = scratch / "voice_silent_far.s16"
    silent_file.write_bytes(bytes(far_file.stat().st_size))
    bare_silent = ctx.run_json([apm_cpu, "-s", APM_BARE_SECONDS, "-c", 2, "-d", 0, silent_file, capture_file],
                               timeout=120)["apm_bare_cpu_ms_per_s"]
    apm, apm_diffs, apm_off = interleaved(call["windows"])
    apm_thread, thread_diffs, _ = interleaved(call["windows"], "thread_ms")
    bare_rate = float(bare["apm_bare_cpu_ms_per_s"])

    out48 = np.fromfile(scratch / "voice_ns_out_48k.s16", dtype="<i2").astype(np.float64)
    out16 = np.clip(np.round(resample_poly(out48, 1, 3)), -32768, 32767).astype(np.int16)
    lead = ns["lead"]
    clean, noisy = ns["clean"], ns["noisy"]
    pesq_in, _ = pesq_wb(clean, noisy[lead:])
    pesq_engine, engine_lag = pesq_wb(clean, out16[lead:])
    speex_out = speex_denoise(noisy)
    pesq_speex, speex_lag = pesq_wb(clean, speex_out[lead:])

    # ---------------------------------------------------------------- voice effects
    fx = child(ctx, "effects", 120)
    none = median(fx["none"])
    cost = {name: median(samples) - none for name, samples in fx["costs"].items()}
    ranked = sorted(cost, key=lambda n: -cost[n])
    worst = ranked[0]
    costliest = "; ".join(f"{n} {cost[n]:.1f}" for n in ranked[:6])
    cheapest = min(cost.values())

    unpaced = fx["unpaced"]
    unpaced_diffs = [on - (a + b) / 2 for on, a, b in zip(unpaced["on"], unpaced["off"], unpaced["off"][1:])]
    apm_unpaced = median(unpaced_diffs)

    # ---------------------------------------------------------------- spatial audio
    sp = child(ctx, "listener", (2 * SPATIAL_WINDOWS + 1) * (SPATIAL_WINDOW_S + SPATIAL_SETTLE_S + 2) + 90)
    spatial, spatial_diffs, spatial_off = interleaved(sp["windows"])
    on_w = [w for w in sp["windows"] if w["on"]]
    off_w = [w for w in sp["windows"] if not w["on"]]
    side_on = median([w["side_rms"] / max(w["mid_rms"], 1) for w in on_w])
    side_off = max(w["side_rms"] / max(w["mid_rms"], 1) for w in off_w)

    def listing(values: Sequence[float]) -> str:
        return ", ".join(f"{v:.1f}" for v in values)

    flags = {0x1: "AEC", 0x2: "NS", 0x4: "AGC", 0x8: "HPF"}

    def steps(bits: int) -> str:
        return "+".join(name for bit, name in flags.items() if bits & bit) or "none"

    taps = ", ".join(f"{d} ms {g:+.2f}" for d, g in ECHO_TAPS)
    stats = aec["stats"][-1] if aec["stats"] else None
    reported = (f"the engine's own report (on_local_audio_stats): processing {steps(stats[0])}, AEC delay estimate "
                f"{stats[1]} ms, AEC ERLE metric " + (f"{stats[2]} dB" if stats[2] >= 0 else "none (-1)")
                if stats else "no on_local_audio_stats came")
    setting = (f"far end: {far_s:.1f} s of espeak-ng speech at 48 kHz looped, sent by a second engine "
               f"(MUSIC_STANDARD, in a process of its own with the embedded server) and played by the near engine "
               f"(pulled 48 kHz stereo, rms {aec['played_rms']:.0f}); echo = that playout downmixed through {taps}")
    return [
        figure("aec_erle_db", round(aec["erle_db"], 1), "dB",
               f"echo return loss enhancement of the engine (a MIXABLE custom track with "
               f"enable_custom_audio_track_processing, scenario DEFAULT with gain control off: AEC moderate, NS "
               f"moderate, HPF; AEC with the delay-agnostic estimator and the extended filter) over {ERLE_SECONDS} s "
               f"after the first {ERLE_WARMUP_S} s, no near end: 10·log10(echo energy / output energy); {setting}; "
               f"capture rms {aec['capture_rms']:.0f}, output rms {aec['output_rms']:.1f} ({aec['frames'][0]} frames "
               f"out for {aec['frames'][1]} pushed, read by a record audio frame observer); {reported}; N=1; "
               f"agoraish - speexdsp = {aec['erle_db'] - speex['speexdsp_aec_erle_db']:+.1f} dB"),
        figure("speexdsp_aec_erle_db", round(float(speex["speexdsp_aec_erle_db"]), 1), "dB",
               f"bench/speex_aec.c (speexdsp MDF AEC, tail 250 ms, with its preprocessor's residual echo suppression "
               f"and denoiser, 48 kHz) on the same far end (the engine's playout, stereo, downmixed) and echo as "
               f"aec_erle_db, after {ERLE_WARMUP_S} s, N=1"),
        figure("apm_cpu_ms_per_s", round(apm, 2), "ms/s",
               f"process CPU (getrusage, every thread) per second of audio with processing on (enable_custom_audio_"
               f"track_processing; the scenario's full chain: {steps(call['cpu_flags'])} as the engine reported it) "
               f"minus off, in the same call with the same signals as aec_erle_db: median over {len(apm_diffs)} on "
               f"windows of {CPU_WINDOW_S:g} s (from {CPU_SETTLE_S:g} s after the switch) of their rate minus the mean "
               f"of the off windows either side ({listing(apm_diffs)}); the process costs {apm_off:.1f} ms/s with "
               f"processing off (the near engine receiving and sending, and the Python loop that pulls, makes the "
               f"echo and pushes); the pushing and pulling thread alone (RUSAGE_THREAD, where both streams are "
               f"processed): {apm_thread:.2f} ({listing(thread_diffs)}); "
               f"{slow_windows(call['windows'])}; agoraish/bare = {apm / bare_rate:.2f}. The bare program runs "
               f"the module in a tight loop; here it runs one frame every 10 ms, as a device makes it, with the "
               f"thread asleep in between (its data likely out of the caches at each frame). Without that cadence (voice effects' process, same run: "
               f"outside a call a published custom track is processed at once, so the echo file was pushed as "
               f"fast as it goes, the playout, silent outside a call, pulled beside it) processing on minus off is "
               f"{apm_unpaced:.2f} ms/s (median of {len(unpaced_diffs)}: {listing(unpaced_diffs)}) against "
               f"{bare_silent:.2f} for apm_cpu.cpp on the same capture with a silent far end: agoraish/bare = "
               f"{apm_unpaced / bare_silent:.2f}"),
        figure("apm_bare_cpu_ms_per_s", round(bare_rate, 2), "ms/s",
               f"bench/apm_cpu.cpp: the bare WebRTC AudioProcessing module (webrtc-audio-processing 0.3) with the "
               f"engine's device configuration (AEC moderate, delay-agnostic, extended filter; NS moderate; AGC "
               f"adaptive digital; HPF; VAD), 48 kHz, reverse stereo downmixed, on the files of aec_erle_db "
               f"({ERLE_SECONDS} s, looped to {APM_BARE_SECONDS} s, -d 0 as the engine sets for a custom track), "
               f"getrusage over the loop, N=1"),
        figure("ns_pesq_gain", round(pesq_engine - pesq_in, 3), "MOS-LQO",
               f"wide-band PESQ (pesq 'wb', 16 kHz) of the engine's output minus that of its input: audio_pesq's "
               f"{len(clean) / 16000:.1f} s espeak-ng clip + white Gaussian noise at {NS_SNR_DB} dB SNR (mean power "
               f"over the clip, seed {NS_SEED}) after {NS_LEAD_S:g} s of noise alone, pushed at 48 kHz into a MIXABLE "
               f"custom track with processing on in the call of aec_erle_db, echo cancellation and gain control "
               f"off ({steps(call['ns_flags'])} as reported: NS moderate), far muted; output from a record "
               f"observer, downsampled to 16 kHz, aligned (lag {engine_lag / 16:.0f} ms); PESQ in {pesq_in:.3f}, "
               f"out {pesq_engine:.3f}; N=1; agoraish - speexdsp = "
               f"{(pesq_engine - pesq_in) - (pesq_speex - pesq_in):+.3f}"),
        figure("speexdsp_ns_pesq_gain", round(pesq_speex - pesq_in, 3), "MOS-LQO",
               f"the same noisy 16 kHz signal through speexdsp's preprocessor (denoise, default -15 dB noise "
               f"suppression, AGC off, 10 ms frames, libspeexdsp via ctypes): PESQ out {pesq_speex:.3f} - in "
               f"{pesq_in:.3f} (lag {speex_lag / 16:.0f} ms), N=1"),
        figure("voice_effect_cpu_ms_per_s", round(cost[worst], 2), "ms/s",
               f"the costliest preset, {worst}: process CPU per second of audio of pushes into the external audio "
               f"source (48 kHz mono, 1 s per call) outside a call, where a push is processed at once, minus the "
               f"same pushes with no preset; each of the {len(cost)} presets measured over {FX_SECONDS} s of "
               f"espeak-ng speech after {FX_WARMUP_S:g} s with it on, the {FX_TOP} costliest {FX_REPEATS} more "
               f"times (median of {len(fx['costs'][worst])}); the costliest: {costliest}; the cheapest "
               f"{cheapest:.1f}; {cost[worst] / 10:.1f} % of a core for one voice"),
        figure("voice_effect_off_cpu_ms_per_s", round(none, 2), "ms/s",
               f"the same pushes with no preset (median of N={len(fx['none'])} spread through the run: "
               f"{listing(fx['none'])}): copying in, the send path's bookkeeping and the Python binding"),
        figure("spatial_audio_cpu_ms_per_s_8_sources", round(spatial, 1), "ms/s",
               f"one listener engine receiving {SPATIAL_USERS} remote users (each its own sender engine, all in a "
               f"helper process with the embedded server, pushing espeak-ng speech 10 ms every 10 ms, default "
               f"profile), pulled 48 kHz stereo 10 ms every 10 ms: the listener process's CPU (getrusage) per second "
               f"with the spatial audio engine on (initialize; the users on a circle of {SPATIAL_RADIUS_M:g} m around "
               f"the listener, 45 degrees apart, binaural through libmysofa's default HRTF set) minus released: "
               f"median over {len(spatial_diffs)} on windows of {SPATIAL_WINDOW_S:g} s (from {SPATIAL_SETTLE_S:g} s "
               f"after the switch) of their rate minus the mean of the off windows either side "
               f"({listing(spatial_diffs)}); the ears differ (rms(L-R)/rms((L+R)/2)) by {side_on:.2f} on, at most "
               f"{side_off:.3f} off; "
               f"{slow_windows(sp['windows'])}; on/off = {(spatial + spatial_off) / spatial_off:.2f}"),
        figure("spatial_audio_off_cpu_ms_per_s_8_sources", round(spatial_off, 1), "ms/s",
               f"the listener process of spatial_audio_cpu_ms_per_s_8_sources with the spatial audio engine "
               f"released (receiving, decrypting, decoding and mixing {SPATIAL_USERS} users, every voice in the "
               f"middle; and the Python loop): mean of {len(off_w)} windows"),
    ]
