#!/usr/bin/env python3
"""spatial_audio.py — Agora's SpatialAudio case in Python: a remote voice
placed around the listener and rendered for two ears.

    set_external_audio_sink(True, 48000, 2) -> spatial_audio().initialize()
    -> update_self_position, set_distance_unit, set_audio_recv_range -> join_channel
    -> update_remote_position(uid, front / right / back / left / far)
    -> pull_playback_audio_frame (stereo) every 10 ms
    -> spatial_audio().release() -> leave_channel -> release

"speaker" pushes a tone (40 harmonics of 200 Hz) into its external audio
source, sent with the music profile. "listener", a second engine in the same
process, stands at the origin facing +x (right +y, up +z), hears up to 20 m,
and pulls what it hears in stereo from its external sink. It puts the
speaker 1 m in front of it, on its right, behind it, on its left, then 30 m
away, and measures the level in each ear and the interaural level difference
(ILD, right minus left): about 0 dB in front and behind, positive on the
right, negative on the left, and silence out of range (the server no longer
forwards the speaker).

Runs from a checkout: it imports bindings/python and, unless AGORAISH_LIBRARY
says otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/spatial_audio.py
"""
import array
import math
import operator
import sys
import threading
import time
from typing import List, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import ExampleUser, meet, part, run_call, say, sleep_until

CHANNEL = "spatial-audio"
RATE = 48000
CHUNK = RATE // 100  # 10 ms per channel
SETTLE_MS = 600      # after a move, until what is heard has it
LISTEN_MS = 1000     # each place's measure
RANGE = 20.0         # how far the listener hears, m
PLACES = [("front", (1, 0, 0)), ("right", (0, 1, 0)), ("back", (-1, 0, 0)), ("left", (0, -1, 0)),
          ("out of range", (30, 0, 0))]


def make_tone() -> array.array:
    """Two periods of the speaker's tone: 40 harmonics of 200 Hz (200 Hz .. 8 kHz) of equal level,
    with Schroeder's phases (a low crest factor), at -26 dBFS: broadband, as the ears' level
    difference grows with frequency."""
    return array.array("h", (round(sum(367 * math.sin(2 * math.pi * 200 * k * n / RATE + math.pi * k * (k - 1) / 40)
                                       for k in range(1, 41))) for n in range(CHUNK)))


def speak(engine: agoraish.RtcEngine, tone: array.array, stop: threading.Event) -> None:
    """The speaker's voice, 10 ms every 10 ms, until `stop`."""
    start = time.monotonic()
    k = 0
    while not stop.is_set():
        engine.push_external_audio_frame(tone)
        k += 1
        sleep_until(start, k * 10)


def listen(engine: agoraish.RtcEngine, start: float, ticks: List[int]) -> Tuple[float, float]:
    """Pulls SETTLE_MS then LISTEN_MS of stereo in real time, 10 ms every 10 ms (`ticks[0]` since
    `start`), and gives the level of each ear over LISTEN_MS (dBFS; -120 for silence)."""
    energy = [0, 0]
    for k in range((SETTLE_MS + LISTEN_MS) // 10):
        frame = array.array("h", engine.pull_playback_audio_frame(CHUNK, 2))
        if k >= SETTLE_MS // 10:
            for ear in (0, 1):
                samples = frame[ear::2]  # left, right
                energy[ear] += sum(map(operator.mul, samples, samples))
        ticks[0] += 1
        sleep_until(start, ticks[0] * 10)
    means = [e / (LISTEN_MS // 10 * CHUNK) for e in energy]
    left, right = (max(-120.0, 10 * math.log10(m) - 20 * math.log10(32768)) if m > 0 else -120.0 for m in means)
    return left, right


def call(listener_engine: agoraish.RtcEngine, speaker_engine: agoraish.RtcEngine, listener: ExampleUser,
         speaker: ExampleUser) -> bool:
    # The listener hears in stereo and says nothing; its spatial audio engine places the speaker.
    listener_engine.set_external_audio_sink(True, RATE, 2)
    listener_engine.enable_local_audio(False)
    spatial = listener_engine.spatial_audio()
    spatial.initialize()
    say("listener", "spatial_audio().initialize()")
    spatial.update_self_position((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1))
    spatial.set_distance_unit(1.0)
    spatial.set_audio_recv_range(RANGE)
    say("listener", f"at the origin facing +x, 1 unit = 1 m, hears {RANGE:g} m")
    speaker_engine.set_audio_profile(agoraish.AudioProfile.MUSIC_STANDARD)  # 48 kHz, 64 kbps
    speaker_engine.set_external_audio_source(True, RATE, 1)
    speaker_engine.set_playback_device("null")
    if not meet(CHANNEL, listener_engine, listener, speaker_engine, speaker):
        return False
    with listener.changed:
        uid = listener.peer

    stop = threading.Event()
    voice = threading.Thread(target=speak, args=(speaker_engine, make_tone(), stop), name="speaker-voice")
    voice.start()
    heard: List[Tuple[float, float]] = []
    try:
        start, ticks = time.monotonic(), [0]
        for name, position in PLACES:
            spatial.update_remote_position(uid, position, forward=None)
            left, right = listen(listener_engine, start, ticks)
            say("listener", f"{name} ({position[0]:g}, {position[1]:g}, {position[2]:g}): left {left:.1f} dBFS, "
                            f"right {right:.1f} dBFS, ILD {right - left:+.1f} dB")
            heard.append((left, right))
    finally:
        stop.set()
        voice.join()
        spatial.release()
        say("listener", "spatial_audio().release()")

    # Heard at 1 m, balanced in front and behind, louder in the ear it is next to; silent out of range.
    ild = [right - left for left, right in heard]
    ok = (min(heard[0]) > -50 and abs(ild[0]) <= 3 and ild[1] >= 6 and abs(ild[2]) <= 3 and ild[3] <= -6
          and max(heard[4]) <= -60)
    if not ok:
        say("listener", "not as expected")
    return part(listener_engine, listener, speaker_engine, speaker) and ok


def main() -> int:
    listener, speaker = ExampleUser("listener"), ExampleUser("speaker")
    return run_call("spatial_audio", [listener, speaker], lambda engines: call(*engines, listener, speaker),
                    "done: listener heard the speaker in front, right, behind and left, and not out of range")


if __name__ == "__main__":
    sys.exit(main())
