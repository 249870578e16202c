"""The engine side of bench/benchmarks/voice.py: the parts it runs as child processes
(``python3 -m benchmarks._voice_engines <part> <scratch>``, with bindings/python on
PYTHONPATH and AGORAISH_LIBRARY from the parent), each printing one JSON object:

- call: "near" (a MIXABLE custom track with processing, its playout pulled
  and echoed back into the track), with "far" in a talkers process: the ERLE
  run, the CPU windows with processing on and off, the noise suppression run;
  it writes the signals to the scratch directory;
- effects: one engine outside a call, the CPU of every voice effect preset;
  then another, audio processing of a custom track without the real-time
  cadence (apm_cpu_ms_per_s's cross-check);
- listener: the spatial audio listener, windows with the spatial audio engine
  on and released;
- talkers: the embedded server and the engines that send speech (far for the
  call, the 8 senders for the listener), a process of their own that the
  call and the listener start (``Talkers``); it runs until its stdin closes.

voice.py's docstring says what each measures and why.
"""

from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .voice import (APP, CHUNK, CPU_SETTLE_S, CPU_WINDOW_S, CPU_WINDOWS, ECHO_TAPS, ERLE_SECONDS, ERLE_WARMUP_S,
                    FX_OFF_EVERY, FX_REPEATS, FX_SECONDS, FX_TOP, FX_WARMUP_S, RATE, ROOT, SPATIAL_RADIUS_M,
                    SPATIAL_SETTLE_S, SPATIAL_USERS, SPATIAL_WINDOW_S, SPATIAL_WINDOWS)


def cpu_s(who: int = resource.RUSAGE_SELF) -> float:
    """User + system CPU seconds of this process (or RUSAGE_THREAD: the calling thread)."""
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


class User:
    """An engine's events that the children wait for (on the engine's event thread)."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.joined = False
        self.peers: set = set()
        self.stats: List[Any] = []

    def on_join_channel_success(self, channel: str, uid: int, elapsed: int) -> None:
        with self.changed:
            self.joined = True
            self.changed.notify_all()

    def on_user_joined(self, uid: int, elapsed: int) -> None:
        with self.changed:
            self.peers.add(uid)
            self.changed.notify_all()

    def on_local_audio_stats(self, stats: Any) -> None:
        with self.changed:
            self.stats.append(stats)

    def wait(self, done: Callable[["User"], bool], what: str, timeout: float = 15) -> None:
        with self.changed:
            if not self.changed.wait_for(lambda: done(self), timeout):
                raise RuntimeError(f"no {what} within {timeout:g} s")


class Pacer:
    """A 10 ms tick schedule that does not drift; `restart` after a pause."""

    def __init__(self) -> None:
        self.restart()

    def restart(self) -> None:
        self.start, self.ticks = time.monotonic(), 0

    def wait(self) -> None:
        self.ticks += 1
        delay = self.start + self.ticks / 100 - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def call_part(scratch: Path, quick: bool) -> Dict[str, Any]:
    """The call: ERLE run, CPU windows, noise suppression run (see voice.py's docstring)."""
    import numpy as np
    import agoraish

    noisy = np.fromfile(scratch / "voice_noisy_48k.s16", dtype="<i2")
    near_user = User()
    with Talkers(scratch, 1, first_uid=1, channel="voice-bench", profile="MUSIC_STANDARD") as server_url:
        near = agoraish.RtcEngine(APP, near_user, server_url=server_url)
        try:
            track = near.create_custom_audio_track(agoraish.AudioTrackType.MIXABLE)
            near.set_external_audio_sink(True, RATE, 2)
            near.set_recording_audio_frame_parameters(RATE, 1)
            near.set_parameters({"che.audio.agc.enable": False})
            near.enable_custom_audio_track_processing(track, True)
            near.join_channel_with_options(None, "voice-bench", 2, agoraish.ChannelMediaOptions(
                publish_microphone_track=False, publish_custom_audio_track=True,
                publish_custom_audio_track_id=track))
            near_user.wait(lambda s: s.joined, "join")
            near_user.wait(lambda s: 1 in s.peers, "far user")
            return near_call(scratch, quick, near, near_user, track, noisy)
        finally:
            near.release()


def near_call(scratch: Path, quick: bool, near: Any, near_user: User, track: int, noisy: Any) -> Dict[str, Any]:
    """The phases of the call, near's side: ERLE, CPU windows, noise suppression."""
    import numpy as np
    import agoraish

    taps = [(d * RATE // 1000, g) for d, g in ECHO_TAPS]
    reach = max(d for d, _ in taps) + CHUNK
    history = np.zeros(reach)

    def tick(capture: Optional[Any] = None) -> Tuple[Any, Any]:
        """One 10 ms tick: near plays (pull) and hears its echo, or `capture` (push). Returns (played, pushed)."""
        nonlocal history
        played = np.frombuffer(near.pull_playback_audio_frame(CHUNK, 2), dtype=np.int16)
        history = np.concatenate([history[CHUNK:], (played[0::2].astype(np.float64) + played[1::2]) / 2])
        if capture is None:
            echo = np.zeros(CHUNK)
            for d, g in taps:
                echo += g * history[reach - CHUNK - d:reach - d]
            capture = np.clip(np.round(echo), -32768, 32767).astype(np.int16)
        near.push_external_audio_frame_by_id(track, capture, RATE, 1)
        return played, capture

    processed: List[bytes] = []

    class Output(agoraish.AudioFrameObserver):
        def on_record_audio_frame(self, frame: Any) -> bool:
            processed.append(frame.bytes())
            return True

    # ---- ERLE
    near.register_audio_frame_observer(Output())
    pacer = Pacer()
    played_all, pushed_all = [], []
    for _ in range(ERLE_SECONDS * 100):
        played, pushed = tick()
        played_all.append(played)
        pushed_all.append(pushed)
        pacer.wait()
    near.register_audio_frame_observer(None)
    np.concatenate(played_all).astype("<i2").tofile(scratch / "voice_aec_far.s16")
    np.concatenate(pushed_all).astype("<i2").tofile(scratch / "voice_aec_capture.s16")
    out = np.frombuffer(b"".join(processed), dtype=np.int16)
    cap = np.concatenate(pushed_all).astype(np.float64)
    skip = ERLE_WARMUP_S * RATE
    n = min(len(out), len(cap))
    erle = 10 * np.log10((np.sum(cap[skip:n] ** 2) + 1) / (np.sum(out[skip:n].astype(np.float64) ** 2) + 1))
    with near_user.changed:
        stats = [(s.audio_processing, s.aec_estimated_delay, s.echo_return_loss_enhancement)
                 for s in near_user.stats[-3:]]
    played_rms = float(np.sqrt(np.mean(np.concatenate(played_all)[2 * skip:].astype(np.float64) ** 2)))
    aec = {"erle_db": float(erle), "frames": [len(out) // CHUNK, len(pushed_all)], "stats": stats,
           "capture_rms": float(np.sqrt(np.mean(cap[skip:n] ** 2))),
           "output_rms": float(np.sqrt(np.mean(out[skip:n].astype(np.float64) ** 2))),
           "played_rms": played_rms}

    # ---- CPU: processing on (the scenario's full chain) and off, interleaved
    near.set_parameters({"che.audio.agc.enable": None})
    windows: List[Dict[str, Any]] = []
    cpu_flags = 0
    pacer.restart()
    for w in range(2 * (2 if quick else CPU_WINDOWS) + 1):
        on = w % 2 == 1
        near.enable_custom_audio_track_processing(track, on)
        for _ in range(int(CPU_SETTLE_S * 100)):
            tick()
            pacer.wait()
        t0, c0, h0 = time.monotonic(), cpu_s(), cpu_s(resource.RUSAGE_THREAD)
        for _ in range(int(CPU_WINDOW_S * 100)):
            tick()
            pacer.wait()
        wall = time.monotonic() - t0
        windows.append({"on": on, "wall_s": wall, "cpu_ms": (cpu_s() - c0) * 1e3,
                        "thread_ms": (cpu_s(resource.RUSAGE_THREAD) - h0) * 1e3,
                        "audio_s": CPU_WINDOW_S})
        with near_user.changed:
            if on and near_user.stats:
                cpu_flags |= near_user.stats[-1].audio_processing

    # ---- Noise suppression: far silent, echo cancellation and gain control off
    near.set_parameters({"che.audio.aec.enable": False, "che.audio.agc.enable": False})
    near.enable_custom_audio_track_processing(track, True)
    near.mute_remote_audio_stream(1, True)
    for _ in range(50):  # the far end's last words leave the jitter buffer
        tick(np.zeros(CHUNK, dtype=np.int16))
        pacer.wait()
    processed.clear()
    near.register_audio_frame_observer(Output())
    pacer.restart()
    frames = len(noisy) // CHUNK
    for k in range(frames + 30):
        frame = noisy[k * CHUNK:(k + 1) * CHUNK] if k < frames else np.zeros(CHUNK, dtype=np.int16)
        tick(frame)
        pacer.wait()
    near.register_audio_frame_observer(None)
    np.frombuffer(b"".join(processed), dtype=np.int16).astype("<i2").tofile(scratch / "voice_ns_out_48k.s16")
    with near_user.changed:
        ns_flags = near_user.stats[-1].audio_processing if near_user.stats else 0
    near.leave_channel()
    return {"aec": aec, "windows": windows, "cpu_flags": cpu_flags, "ns_flags": ns_flags,
            "ns_frames": len(processed)}


def presets() -> List[Tuple[str, Callable[[Any, int], None], int]]:
    """Every preset of the three families: (name, the setter, value), OFF excluded."""
    import agoraish

    out: List[Tuple[str, Callable[[Any, int], None], int]] = []
    for enum, setter in ((agoraish.VoiceBeautifierPreset, agoraish.RtcEngine.set_voice_beautifier_preset),
                         (agoraish.AudioEffectPreset, agoraish.RtcEngine.set_audio_effect_preset),
                         (agoraish.VoiceConversionPreset, agoraish.RtcEngine.set_voice_conversion_preset)):
        out += [(member.name, setter, int(member)) for member in enum if int(member) != 0]
    return out


def effects_part(scratch: Path, quick: bool) -> Dict[str, Any]:
    """CPU of each preset on pushes into the external source outside a call."""
    import numpy as np
    import agoraish

    far = np.fromfile(scratch / "voice_far_48k.s16", dtype="<i2")
    seconds = [far[(i * RATE) % (len(far) - RATE):][:RATE] for i in range(FX_SECONDS)]
    engine = agoraish.RtcEngine(APP, None, server_url="ws://127.0.0.1:9")
    try:
        engine.set_external_audio_source(True, RATE, 1)

        def off() -> None:
            engine.set_voice_beautifier_preset(0)
            engine.set_audio_effect_preset(0)
            engine.set_voice_conversion_preset(0)

        def measure() -> float:
            engine.push_external_audio_frame(far[: int(FX_WARMUP_S * RATE)])
            c0 = cpu_s()
            for pcm in seconds:
                engine.push_external_audio_frame(pcm)
            return (cpu_s() - c0) * 1e3 / FX_SECONDS

        table = presets()
        costs: Dict[str, List[float]] = {}
        none: List[float] = []
        off()
        none.append(measure())
        for i, (name, setter, value) in enumerate(table):
            setter(engine, value)
            costs[name] = [measure()]
            off()
            if i % FX_OFF_EVERY == FX_OFF_EVERY - 1:
                none.append(measure())
        none.append(measure())
        top = sorted(costs, key=lambda n: -costs[n][0])[:FX_TOP]
        setters = {name: (setter, value) for name, setter, value in table}
        for _ in range(1 if quick else FX_REPEATS):
            for name in top:
                setter, value = setters[name]
                setter(engine, value)
                costs[name].append(measure())
                off()
            none.append(measure())
        return {"costs": costs, "none": none, "top": top, "unpaced": unpaced_processing(scratch)}
    finally:
        engine.release()


def unpaced_processing(scratch: Path, rounds: int = 3, frames: int = 2000) -> Dict[str, List[float]]:
    """A cross-check of apm_cpu_ms_per_s without the real-time cadence: outside a call a MIXABLE
    custom track published by the engine's own connection (update_channel_media_options before any
    join) is processed at once, so the call's echo file is pushed (and the playout, silent here,
    pulled) as fast as it goes, `frames` frames with processing on between two runs with it off,
    `rounds` times. CPU ms of the process per second of audio of each run."""
    import numpy as np
    import agoraish

    capture = np.fromfile(scratch / "voice_aec_capture.s16", dtype="<i2")
    chunks = [capture[i * CHUNK:(i + 1) * CHUNK].copy() for i in range(len(capture) // CHUNK)]
    engine = agoraish.RtcEngine(APP, None, server_url="ws://127.0.0.1:9")
    try:
        track = engine.create_custom_audio_track(agoraish.AudioTrackType.MIXABLE)
        engine.set_external_audio_sink(True, RATE, 2)
        engine.update_channel_media_options(agoraish.ChannelMediaOptions(
            publish_microphone_track=False, publish_custom_audio_track=True, publish_custom_audio_track_id=track))

        def run(on: bool) -> float:
            engine.enable_custom_audio_track_processing(track, on)
            c0 = cpu_s()
            for k in range(frames):
                engine.pull_playback_audio_frame(CHUNK, 2)
                engine.push_external_audio_frame_by_id(track, chunks[k % len(chunks)], RATE, 1)
            return (cpu_s() - c0) * 1e3 / (frames / 100)

        out: Dict[str, List[float]] = {"on": [], "off": []}
        out["off"].append(run(False))
        for _ in range(rounds):
            out["on"].append(run(True))
            out["off"].append(run(False))
        return out
    finally:
        engine.release()


def talkers_part(scratch: Path, count: int, first_uid: int, channel: str, profile: str) -> None:
    """An embedded server and `count` engines (uids first_uid..) in `channel`, each pushing the far-end
    speech (each at its own offset) into its external source 10 ms every 10 ms with the AudioProfile
    `profile`; prints {"url"} once all have joined, and pushes until stdin closes."""
    import numpy as np
    import agoraish

    far = np.fromfile(scratch / "voice_far_48k.s16", dtype="<i2")
    server = agoraish.ChannelServer().start()
    engines = []
    stop = threading.Event()
    try:
        users = []
        for i in range(count):
            u = User()
            e = agoraish.RtcEngine(APP, u, server_url=server.url)
            engines.append(e)
            users.append(u)
            e.set_audio_profile(agoraish.AudioProfile[profile])
            e.set_external_audio_source(True, RATE, 1)
            e.join_channel_with_options(None, channel, first_uid + i,
                                        agoraish.ChannelMediaOptions(enable_audio_recording_or_playout=False))
        for u in users:
            u.wait(lambda s: s.joined, "join")
        print(json.dumps({"url": server.url}), flush=True)
        threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
        pacer = Pacer()
        k = 0
        offsets = [i * len(far) // count for i in range(count)]
        while not stop.is_set():
            for e, o in zip(engines, offsets):
                i = (o + k * CHUNK) % (len(far) - CHUNK)
                e.push_external_audio_frame(far[i:i + CHUNK])
            k += 1
            pacer.wait()
    finally:
        for e in engines:
            e.release()
        server.release()


class Talkers:
    """The talkers_part helper process as a context manager: its server's URL while it runs; it
    stops when its stdin closes (also when this process dies)."""

    def __init__(self, scratch: Path, count: int, first_uid: int, channel: str, profile: str) -> None:
        self.scratch = scratch
        self.argv = [sys.executable, "-m", "benchmarks._voice_engines", "talkers", str(scratch), str(count),
                     str(first_uid), channel, profile]

    def __enter__(self) -> str:
        self.log = open(self.scratch / "voice_talkers.log", "ab")
        self.proc = subprocess.Popen(self.argv, cwd=str(ROOT / "bench"), env=dict(os.environ), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log)
        line = self.proc.stdout.readline().decode()
        if not line.startswith("{"):
            self.__exit__()
            raise RuntimeError("the talkers did not start (see voice_talkers.log)")
        return json.loads(line)["url"]

    def __exit__(self, *exc_info: object) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def listener_part(scratch: Path, quick: bool) -> Dict[str, Any]:
    """The spatial audio listener: windows with the spatial audio engine on and released."""
    import agoraish

    with Talkers(scratch, SPATIAL_USERS, first_uid=101, channel="voice-spatial", profile="DEFAULT") as url:
        user = User()
        engine = agoraish.RtcEngine(APP, user, server_url=url)
        try:
            engine.set_external_audio_sink(True, RATE, 2)
            engine.enable_local_audio(False)
            engine.join_channel_with_options(None, "voice-spatial", 1,
                                             agoraish.ChannelMediaOptions(enable_audio_recording_or_playout=False))
            user.wait(lambda s: s.joined, "join")
            user.wait(lambda s: len(s.peers) >= SPATIAL_USERS, f"{SPATIAL_USERS} users")
            return listen(engine, [101 + i for i in range(SPATIAL_USERS)], 1 if quick else SPATIAL_WINDOWS)
        finally:
            engine.release()


def listen(engine: Any, uids: List[int], on_windows: int) -> Dict[str, Any]:
    """The listener's windows, off and on in turn, with what each cost and how the ears differed."""
    import numpy as np

    spatial = engine.spatial_audio()
    pacer = Pacer()

    def pull(n: int, keep: Optional[List[Any]] = None) -> None:
        for _ in range(n):
            frame = engine.pull_playback_audio_frame(CHUNK, 2)
            if keep is not None:
                keep.append(frame)
            pacer.wait()

    def place() -> None:
        spatial.initialize()
        spatial.update_self_position((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1))
        for i, uid in enumerate(uids):
            a = 2 * math.pi * i / len(uids)
            spatial.update_remote_position(uid, (SPATIAL_RADIUS_M * math.cos(a), SPATIAL_RADIUS_M * math.sin(a), 0))

    pull(200)  # every user's audio flowing
    windows: List[Dict[str, Any]] = []
    switches: List[float] = []
    for w in range(2 * on_windows + 1):
        on = w % 2 == 1
        # The switch runs beside the pulls (initialize reads the HRTF set: most of a second), so the
        # playout never stalls and the jitter buffers see no gap.
        t0 = time.monotonic()
        switch = threading.Thread(target=place if on else spatial.release)
        switch.start()
        while switch.is_alive():
            pull(1)
        switch.join()
        switches.append(time.monotonic() - t0)
        pull(int(SPATIAL_SETTLE_S * 100))
        frames: List[bytes] = []
        t0, c0 = time.monotonic(), cpu_s()
        pull(int(SPATIAL_WINDOW_S * 100), frames)
        wall = time.monotonic() - t0
        cpu = (cpu_s() - c0) * 1e3
        pcm = np.frombuffer(b"".join(frames), dtype=np.int16).astype(np.float64)
        left, right = pcm[0::2], pcm[1::2]
        windows.append({"on": on, "wall_s": wall, "cpu_ms": cpu, "audio_s": SPATIAL_WINDOW_S,
                        "side_rms": float(np.sqrt(np.mean((left - right) ** 2))),
                        "mid_rms": float(np.sqrt(np.mean((left + right) ** 2 / 4)))})
    spatial.release()
    engine.leave_channel()
    return {"windows": windows, "switch_s": switches}


def _main(argv: Sequence[str]) -> int:
    part, scratch, quick = argv[0], Path(argv[1]), argv[2:] == ["quick"]
    import agoraish  # noqa: F401  (bindings/python on PYTHONPATH; AGORAISH_LIBRARY from the parent)
    if part == "talkers":
        talkers_part(scratch, int(argv[2]), int(argv[3]), argv[4], argv[5])
        return 0
    parts = {"call": call_part, "effects": effects_part, "listener": listener_part}
    print(json.dumps(parts[part](scratch, quick)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
