#!/usr/bin/env python3
"""voice_changer.py — Agora's VoiceChanger case in Python: noise suppression
and voice effects on what a user says.

    create_custom_audio_track(MIXABLE) -> join_channel_with_options(publish it)
    -> push_external_audio_frame_by_id every 10 ms
    -> enable_custom_audio_track_processing -> set_ains_mode(True, AudioAinsMode.AGGRESSIVE)
    -> set_voice_beautifier_parameters(SINGING_BEAUTIFIER, male, hall)
    -> set_audio_effect_preset(VOICE_CHANGER_EFFECT_HULK)
    -> set_voice_conversion_preset(CHANGER_CHIPMUNK)
    -> set_local_voice_pitch(2.0) -> leave_channel -> release

"local" talks into a custom audio track: a 150 Hz voice (12 harmonics) in
syllables of 200 ms with pauses of 133 ms, over a hiss at -50 dBFS. "remote",
a second engine in the same process, pulls what it hears from its external
sink and measures each step: the fundamental (F0, by autocorrelation), the
level of the syllables and of the pauses, and the brightness (the energy of
the signal's slope against its own). The track is sent as pushed, then noise
suppression clears the pauses, then each effect changes the voice: its
pitch, its brightness or (reverberation) the pauses it fills.

Runs from a checkout: it imports bindings/python and, unless AGORAISH_LIBRARY
says otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/voice_changer.py
"""
import array
import math
import operator
import sys
import threading
import time
from typing import Callable, List, NamedTuple, Sequence, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import Ears, ExampleUser, is_joined, part, run_call, say, sees_peer, sleep_until

CHANNEL = "voice-changer"
RATE, CHUNK = Ears.RATE, Ears.CHUNK
F0_HZ = 150.0
SYLLABLE, VOICED, FADE = 16000, 9600, 480  # samples: 333 ms, 200 ms of them voiced, 10 ms fades
SETTLE_MS = 800    # after a change, until what is heard has it
LISTEN_MS = 1330   # each step's measure: four syllables


class User(ExampleUser):
    """A user's events, on its engine's event thread: what processes local's voice, each time it changes."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.reported = (0, 0)  # (audio_processing, voice_effects); guarded by `changed`

    def on_local_audio_stats(self, s: agoraish.LocalAudioStats) -> None:
        with self.changed:
            last, self.reported = self.reported, (s.audio_processing, s.voice_effects)
        if last != self.reported:
            steps = "".join(f"{flag.name} " for flag in agoraish.AudioProcessingFlag if s.audio_processing & flag)
            say(self.name, f"on_local_audio_stats: audio processing {steps}({s.audio_processing:#x}), "
                           f"voice effects {'on' if s.voice_effects else 'off'}")


def make_voice() -> array.array:
    """One second (three syllables) of local's voice, pushed in a loop."""
    voice = array.array("h", bytes(2 * RATE))
    seed = 12345
    for n in range(RATE):
        t = n % SYLLABLE
        envelope = (0.5 - 0.5 * math.cos(math.pi * t / FADE) if t < FADE else 1.0 if t < VOICED - FADE
                    else 0.5 - 0.5 * math.cos(math.pi * (VOICED - t) / FADE) if t < VOICED else 0.0)
        step = 2 * math.pi * F0_HZ * n / RATE
        total = sum(5000.0 / k * math.sin(step * k) for k in range(1, 13)) if envelope else 0.0
        seed = (seed * 1664525 + 1013904223) & 0xFFFFFFFF
        voice[n] = round(envelope * total + (seed >> 16) % 361 - 180)
    return voice


def talk(engine: agoraish.RtcEngine, track: int, voice: array.array, stop: threading.Event) -> None:
    """local's voice, 10 ms every 10 ms, until `stop`."""
    start = time.monotonic()
    k = 0
    while not stop.is_set():
        engine.push_external_audio_frame_by_id(track, voice[(k % 100) * CHUNK:(k % 100 + 1) * CHUNK], RATE, 1)
        k += 1
        sleep_until(start, k * 10)


class Measure(NamedTuple):
    f0: float          # Hz
    voice: float       # dBFS
    pauses: float      # dBFS
    brightness: float  # dB


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(map(operator.mul, a, b))


def fundamental(pcm: Sequence[int], loudest: int) -> float:
    """The fundamental of the 120 ms around 10 ms frame `loudest`, at 16 kHz: the shortest lag
    (50..640 Hz) whose normalized autocorrelation peaks within 85 % of the highest, refined by
    a parabola; 0 when nothing periodic is there."""
    window, min_lag, max_lag = 1920, 25, 320
    if len(pcm) // 3 < window:
        return 0.0
    start = min(max(loudest * 160 + 80 - window // 2, 0), len(pcm) // 3 - window)
    x = [(pcm[3 * i] + pcm[3 * i + 1] + pcm[3 * i + 2]) / 3 for i in range(start, start + window)]
    r = {}
    for lag in range(min_lag - 1, max_lag + 2):
        a, b = x[:window - lag], x[lag:]
        xx, yy = dot(a, a), dot(b, b)
        r[lag] = dot(a, b) / math.sqrt(xx * yy) if xx > 0 and yy > 0 else 0.0
    best = max(r[lag] for lag in range(min_lag, max_lag + 1))
    for lag in range(min_lag, max_lag + 1):
        if best >= 0.3 and r[lag] >= 0.85 * best and r[lag] >= r[lag - 1] and r[lag] >= r[lag + 1]:
            curve = r[lag - 1] - 2 * r[lag] + r[lag + 1]
            return 16000 / (lag + (0.5 * (r[lag - 1] - r[lag + 1]) / curve if curve < 0 else 0))
    return 0.0


def analyze(heard: Sequence[int]) -> Measure:
    """F0, the syllables' and the pauses' levels (the 90th and 10th percentiles of the 10 ms
    levels) and the brightness of what was heard."""
    levels = []
    for f in range(len(heard) // CHUNK):
        frame = heard[f * CHUNK:(f + 1) * CHUNK]
        energy = dot(frame, frame)
        levels.append(10 * math.log10(energy / CHUNK) - 20 * math.log10(32768) if energy > 0 else -120.0)
    if not levels:
        return Measure(0.0, -120.0, -120.0, -120.0)  # nothing came
    loudest = max(range(len(levels)), key=levels.__getitem__)
    slope = list(map(operator.sub, heard[1:], heard[:-1]))
    energy, slope_energy = dot(heard[1:], heard[1:]), dot(slope, slope)
    brightness = 10 * math.log10(slope_energy / energy) if energy > 0 and slope_energy > 0 else -120.0
    levels.sort()
    return Measure(fundamental(heard, loudest), levels[len(levels) * 9 // 10], levels[len(levels) // 10], brightness)


def measure(ears: Ears, step: str) -> Measure:
    """After SETTLE_MS, what remote hears for LISTEN_MS, said."""
    ears.listen(SETTLE_MS)
    m = analyze(ears.listen(LISTEN_MS)["remote"])
    say("remote", f"{step}: F0 {m.f0:.0f} Hz, voice {m.voice:.1f} dBFS, pauses {m.pauses:.1f} dBFS, "
                  f"brightness {m.brightness:.1f} dB")
    return m


def changed(step: str, m: Measure, plain: Measure) -> bool:
    """Whether an effect changed the voice without effects, `plain`: its pitch, brightness or pauses."""
    pitch = 100 * (m.f0 / plain.f0 - 1) if plain.f0 > 0 else 0.0
    bright, pauses = m.brightness - plain.brightness, m.pauses - plain.pauses
    say("remote", f"{step}: F0 {pitch:+.0f} %, brightness {bright:+.1f} dB, pauses {pauses:+.1f} dB")
    return abs(pitch) >= 5 or abs(bright) >= 1.5 or pauses >= 6


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User) -> bool:
    # local publishes a custom track, with the music profile (48 kHz, 64 kbps: what remote measures
    # is the voice, not the codec), and uses no device; remote only listens.
    local_engine.set_audio_profile(agoraish.AudioProfile.MUSIC_STANDARD)
    track = local_engine.create_custom_audio_track(agoraish.AudioTrackType.MIXABLE)
    say("local", f"create_custom_audio_track(MIXABLE) = track {track}")
    options = agoraish.ChannelMediaOptions(publish_microphone_track=False, publish_custom_audio_track=True,
                                           publish_custom_audio_track_id=track,
                                           enable_audio_recording_or_playout=False)
    remote_engine.set_external_audio_sink(True, RATE, 1)
    remote_engine.enable_local_audio(False)
    local_engine.join_channel_with_options(None, CHANNEL, 0, options)
    if not local.wait_until(is_joined, "join"):
        return False
    remote_engine.join_channel(None, CHANNEL)
    if not (remote.wait_until(is_joined, "join") and remote.wait_until(sees_peer, "remote user")
            and local.wait_until(sees_peer, "remote user")):
        return False

    def suppress_noise() -> None:  # noise suppression on the track; gain control off, so that the levels compare
        local_engine.set_parameters({"che.audio.agc.enable": False})
        local_engine.enable_custom_audio_track_processing(track, True)
        local_engine.set_ains_mode(True, agoraish.AudioAinsMode.AGGRESSIVE)

    steps: List[Tuple[str, str, Callable[[], object]]] = [
        ("as pushed", "", lambda: None),
        ("AINS aggressive",
         "set_parameters(agc off), enable_custom_audio_track_processing(True), set_ains_mode(True, AGGRESSIVE)",
         suppress_noise),
        ("beautifier SINGING_BEAUTIFIER", "set_voice_beautifier_parameters(SINGING_BEAUTIFIER, 1 male, 3 hall)",
         lambda: local_engine.set_voice_beautifier_parameters(agoraish.VoiceBeautifierPreset.SINGING_BEAUTIFIER,
                                                              1, 3)),
        ("effect VOICE_CHANGER_EFFECT_HULK", "set_audio_effect_preset(VOICE_CHANGER_EFFECT_HULK)",
         lambda: local_engine.set_audio_effect_preset(agoraish.AudioEffectPreset.VOICE_CHANGER_EFFECT_HULK)),
        ("conversion VOICE_CHANGER_CHIPMUNK", "set_voice_conversion_preset(CHANGER_CHIPMUNK)",
         lambda: local_engine.set_voice_conversion_preset(agoraish.VoiceConversionPreset.CHANGER_CHIPMUNK)),
        ("pitch 2.0", "set_local_voice_pitch(2.0)", lambda: local_engine.set_local_voice_pitch(2.0)),
    ]
    stop = threading.Event()
    talker = threading.Thread(target=talk, args=(local_engine, track, make_voice(), stop), name="local-talker")
    talker.start()
    m: List[Measure] = []
    try:
        with Ears({"remote": remote_engine}) as ears:
            for name, text, apply in steps:
                apply()  # raises AgoraishError when refused
                if text:
                    say("local", f"{text} = 0")
                m.append(measure(ears, name))
    finally:
        stop.set()
        talker.join()

    # The voice as pushed; the pauses cleared, the voice kept; each preset changed the voice
    # (against the voice without effects); the pitch an octave up.
    checks: List[Callable[[], bool]] = [
        lambda: abs(m[0].f0 - F0_HZ) <= 5,
        lambda: abs(m[1].f0 - F0_HZ) <= 5 and m[1].pauses <= m[0].pauses - 6 and m[1].voice >= m[0].voice - 6,
        lambda: changed(steps[2][0], m[2], m[1]),
        lambda: changed(steps[3][0], m[3], m[1]),
        lambda: changed(steps[4][0], m[4], m[1]),
        lambda: abs(m[5].f0 - 2 * F0_HZ) <= 12,
    ]
    failed = next((steps[i][0] for i, check in enumerate(checks) if not check()), None)
    if failed:
        say("remote", f"not as expected: {failed}")
    return part(local_engine, local, remote_engine, remote) and failed is None


def main() -> int:
    local, remote = User("local"), User("remote")
    return run_call("voice_changer", [local, remote], lambda engines: call(*engines, local, remote),
                    "done: remote heard the noise suppressed, then each voice effect change the voice")


if __name__ == "__main__":
    sys.exit(main())
