#!/usr/bin/env python3
"""custom_audio_render.py — Agora's CustomAudioRender case in Python: the host
plays what a user hears, instead of a speaker.

    set_external_audio_sink(rate, channels) -> join_channel
    -> pull_playback_audio_frame every 10 ms, in real time
    -> on_first_remote_audio_decoded, on_user_mute_audio,
       on_remote_audio_state_changed -> leave_channel -> release

"local" renders: it pulls 10 ms of 44.1 kHz stereo every 10 ms (the pull
cadence is its playout clock; the engine mixes every remote user, converts
the 48 kHz mix to the sink's format and conceals losses) and writes what it
pulled to demo-out/custom_audio_render.wav, as a player would hand it to a
sound card. "remote", a second engine in the same process, talks: it pushes a
523 Hz tone (C5) and mutes itself for one second in the middle
(mute_local_audio_stream), which the WAV shows as a gap. At the end the
example reads the WAV's tone, level and gap.

The Python version of examples/c/custom_audio_render.c. Runs from a checkout:
it imports bindings/python and, unless AGORAISH_LIBRARY says otherwise, uses
the checkout's dist/lib (`make dist`):

    python3 examples/python/custom_audio_render.py
"""
import array
import math
import os
import sys
import threading
import time
import wave
from typing import Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import ExampleUser, meet, name_of, part, run_call, say, sleep_until

CHANNEL = "custom-audio-render"
SINK_RATE = 44100             # what local renders
SINK_CHANNELS = 2
SINK_FRAME = SINK_RATE // 100  # 10 ms, per channel
TONE_HZ = 523.25              # what remote says
TONE_AMPLITUDE = 8000.0
TALK_MS = 4000
MUTE_FROM_MS = 1500           # remote mutes itself from here ...
MUTE_TO_MS = 2500             # ... to here
LISTEN_MS = 4500
WAV_PATH = os.path.join("demo-out", "custom_audio_render.wav")


# ---- one user's events -----------------------------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    def on_local_audio_state_changed(self, state: int, error: int) -> None:
        say(self.name, f"on_local_audio_state_changed {name_of(state)} (error {int(error)})")

    def on_first_local_audio_frame_published(self, elapsed: int) -> None:
        say(self.name, f"on_first_local_audio_frame_published, {elapsed} ms")

    def on_user_mute_audio(self, uid: int, muted: bool) -> None:
        say(self.name, f"on_user_mute_audio uid {uid} {'muted' if muted else 'unmuted'}")

    def on_first_remote_audio_frame(self, uid: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_audio_frame uid {uid}, {elapsed} ms")

    def on_first_remote_audio_decoded(self, uid: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_audio_decoded uid {uid}, {elapsed} ms")

    def on_remote_audio_state_changed(self, uid: int, state: int, reason: int, elapsed: int) -> None:
        say(self.name, f"on_remote_audio_state_changed uid {uid} {name_of(state)} ({name_of(reason)}), "
                       f"{elapsed} ms")

    def on_remote_audio_stats(self, s: agoraish.RemoteAudioStats) -> None:
        say(self.name, f"on_remote_audio_stats uid {s.uid}: {s.received_bitrate} kbps, loss {s.audio_loss_rate} %, "
                       f"jitter buffer {s.jitter_buffer_delay} ms, end to end {s.end_to_end_delay} ms, "
                       f"concealed {s.concealed_frames}, active {s.total_active_time} ms, "
                       f"frozen {s.total_frozen_time} ms")


# ---- the remote user: 10 ms of tone every 10 ms, muted for a while -------------------------


def talk(engine: agoraish.RtcEngine, voice: array.array, stop: threading.Event) -> None:
    """Pushes `voice` (48 kHz mono), 10 ms every 10 ms; muted from MUTE_FROM_MS to MUTE_TO_MS."""
    frames = memoryview(voice)
    start = time.monotonic()
    for k in range(TALK_MS // 10):
        if stop.is_set():
            break
        if k * 10 in (MUTE_FROM_MS, MUTE_TO_MS):
            mute = k * 10 == MUTE_FROM_MS
            engine.mute_local_audio_stream(mute)
            say("remote", f"mute_local_audio_stream({int(mute)}) = 0")
        engine.push_external_audio_frame(frames[k * 480:(k + 1) * 480])
        sleep_until(start, (k + 1) * 10)


# ---- the WAV file and what is in it ---------------------------------------------------------


def write_wav(path: str, samples: array.array, rate: int, channels: int) -> None:
    """A 16-bit PCM WAV file (RIFF), interleaved."""
    data = array.array("h", samples)
    if sys.byteorder != "little":
        data.byteswap()
    with wave.open(path, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(data.tobytes())


def analyze(pcm: array.array, first: int, count: int, channels: int) -> Tuple[float, float]:
    """Frequency (upward crossings of a hysteresis band) and level of one channel
    (`count` frames of `channels` interleaved, starting at sample `first`)."""
    channel = pcm[first:first + count * channels:channels]
    count = len(channel)
    energy = float(sum(s * s for s in channel))
    if count <= 0 or energy <= 0:
        return 0.0, -120.0
    band = math.sqrt(energy / count) / 4
    crossings, high = 0, False
    for s in channel:
        if not high and s > band:
            high = True
            crossings += 1
        elif high and s < -band:
            high = False
    return crossings / (count / SINK_RATE), 10 * math.log10(energy / count) - 20 * math.log10(32768.0)


def block_peak(pcm: array.array, k: int) -> int:
    """Peak of the 10 ms block `k` (both channels)."""
    block = pcm[k * SINK_FRAME * SINK_CHANNELS:(k + 1) * SINK_FRAME * SINK_CHANNELS]
    return max(max(block), -min(block)) if block else 0


# ---- the call ---------------------------------------------------------------------------------


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User) -> bool:
    """The case, from the sink to the checks; True when it went as expected."""
    # local renders what it hears itself, and sends nothing.
    try:
        local_engine.set_external_audio_sink(True, SINK_RATE, SINK_CHANNELS)
    except agoraish.AgoraishError as error:
        say("local", f"set_external_audio_sink({SINK_RATE} Hz, {SINK_CHANNELS} ch) = {error.code}")
        return False
    say("local", f"set_external_audio_sink({SINK_RATE} Hz, {SINK_CHANNELS} ch) = 0")
    local_engine.enable_local_audio(False)

    # remote talks through an external source; what it would hear goes to ALSA's "null".
    remote_engine.set_external_audio_source(True, 48000, 1)
    remote_engine.set_playback_device("null")

    if not meet(CHANNEL, local_engine, local, remote_engine, remote):
        return False

    # The render loop: 10 ms every 10 ms, as a sound card would ask for it.
    blocks = LISTEN_MS // 10
    played = array.array("h")
    step = 2 * math.pi * TONE_HZ / 48000
    voice = array.array("h", (int(TONE_AMPLITUDE * math.sin(step * i)) for i in range(TALK_MS // 10 * 480)))
    stop = threading.Event()
    talker = threading.Thread(target=talk, name="remote-talker", args=(remote_engine, voice, stop))
    talker.start()
    try:
        start = time.monotonic()
        for k in range(blocks):
            try:
                played.frombytes(local_engine.pull_playback_audio_frame(SINK_FRAME, SINK_CHANNELS))
            except agoraish.AgoraishError as error:
                say("local", f"pull_playback_audio_frame = {error.code}")
                played.frombytes(bytes(2 * SINK_FRAME * SINK_CHANNELS))
            sleep_until(start, (k + 1) * 10)
    except BaseException:
        stop.set()  # remote stops talking early only when the call failed
        raise
    finally:
        talker.join()

    if not part(local_engine, local, remote_engine, remote):
        return False

    try:
        os.makedirs("demo-out", exist_ok=True)
        write_wav(WAV_PATH, played, SINK_RATE, SINK_CHANNELS)
        say("local", f"wrote what it rendered to {WAV_PATH} ({SINK_RATE} Hz, {SINK_CHANNELS} channels, "
                     f"{LISTEN_MS / 1000:.1f} s)")
    except OSError as error:
        say("local", f"cannot write {WAV_PATH}: {error}")

    # The WAV: where sound starts, the longest silence after it (the mute),
    # the tone before and after, and whether both channels are the same.
    onset, gap_from, gap_blocks, run = -1, -1, 0, 0
    for k in range(blocks):
        loud = block_peak(played, k) > 1000
        if onset < 0:
            if loud:
                onset = k
            continue
        run = 0 if loud else run + 1
        if run > gap_blocks:
            gap_blocks, gap_from = run, k - run + 1
    same = played[0::2] == played[1::2]
    if not (onset >= 0 and gap_from > onset + 50):
        say("local", "rendered no tone with a gap")
        return False
    before_hz, before_dbfs = analyze(played, (onset + 20) * SINK_FRAME * SINK_CHANNELS,
                                     (gap_from - onset - 40) * SINK_FRAME, SINK_CHANNELS)
    after_from = gap_from + gap_blocks + 20
    after_count = blocks - after_from - 60
    after_hz, after_dbfs = analyze(played, after_from * SINK_FRAME * SINK_CHANNELS,
                                   max(0, after_count) * SINK_FRAME, SINK_CHANNELS)
    sent_dbfs = 20 * math.log10(TONE_AMPLITUDE / math.sqrt(2) / 32768)
    say("local", f"sound from {onset / 100:.2f} s of the render: {before_hz:.0f} Hz at {before_dbfs:.1f} dBFS "
                 f"(remote sent {TONE_HZ:.0f} Hz at {sent_dbfs:.1f} dBFS)")
    say("local", f"then {gap_blocks / 100:.2f} s of silence from {gap_from / 100:.2f} s (remote was muted for "
                 f"{(MUTE_TO_MS - MUTE_FROM_MS) / 1000:.2f} s), then {after_hz:.0f} Hz at {after_dbfs:.1f} dBFS")
    say("local", f"left and right channels are {'the same (the mix is mono)' if same else 'different'}")
    return (abs(before_hz - TONE_HZ) < 10 and abs(after_hz - TONE_HZ) < 10
            and abs(gap_blocks * 10 - (MUTE_TO_MS - MUTE_FROM_MS)) < 300)


def main() -> int:
    local = User("local")
    remote = User("remote")
    return run_call("custom_audio_render", [local, remote], lambda engines: call(*engines, local, remote),
                    "done: local rendered remote's tone and its mute")


if __name__ == "__main__":
    sys.exit(main())
