#!/usr/bin/env python3
"""custom_pcm_audio_source.py — Agora's CustomPcmAudioSource case in Python:
the host supplies the audio a user sends, instead of a microphone.

    set_audio_profile -> set_external_audio_source(rate, channels) -> join_channel
    -> push_external_audio_frame every 10 ms, in real time
    -> on_local_audio_state_changed, on_first_local_audio_frame_published,
       on_local_audio_stats -> leave_channel -> release

"local" pushes a 16-bit PCM WAV file at the file's own rate and channels (8,
16, 32, 44.1 or 48 kHz, mono or stereo); the engine converts it to 48 kHz,
encodes 20 ms Opus frames and sends them. "remote", a second engine in the
same process, listens through an external sink and reports what it heard.
Without an argument the example first writes its own WAV,
demo-out/custom_pcm_audio_source.wav: three notes (A4, C#5, E5) of one second
each, 44.1 kHz stereo, and checks that remote heard them in order.

The Python version of examples/c/custom_pcm_audio_source.c. Runs from a
checkout: it imports bindings/python and, unless AGORAISH_LIBRARY says
otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/custom_pcm_audio_source.py [file.wav]
"""
import array
import math
import os
import sys
import threading
import time
import wave
from typing import List, NamedTuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import ExampleUser, analyze, meet, name_of, part, run_call, say, sleep_until

CHANNEL = "custom-pcm-audio-source"
SINK_RATE = 48000
SINK_FRAME = SINK_RATE // 100
MAX_SECONDS = 30              # longest file pushed
NOTES = (440.0, 554.37, 659.26)  # A4, C#5, E5
NOTE_SECONDS = 1
GENERATED = os.path.join("demo-out", "custom_pcm_audio_source.wav")


# ---- one user's events -----------------------------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    def on_local_audio_state_changed(self, state: int, error: int) -> None:
        say(self.name, f"on_local_audio_state_changed {name_of(state)} (error {int(error)})")

    def on_first_local_audio_frame_published(self, elapsed: int) -> None:
        say(self.name, f"on_first_local_audio_frame_published, {elapsed} ms")

    def on_user_mute_audio(self, uid: int, muted: bool) -> None:
        say(self.name, f"on_user_mute_audio uid {uid} {'muted' if muted else 'unmuted'}")

    def on_first_remote_audio_decoded(self, uid: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_audio_decoded uid {uid}, {elapsed} ms")

    def on_remote_audio_state_changed(self, uid: int, state: int, reason: int, elapsed: int) -> None:
        say(self.name, f"on_remote_audio_state_changed uid {uid} {name_of(state)} (reason {int(reason)}), "
                       f"{elapsed} ms")

    def on_local_audio_stats(self, s: agoraish.LocalAudioStats) -> None:
        say(self.name, f"on_local_audio_stats: {s.num_channels} ch, {s.sent_sample_rate} Hz, {s.sent_bitrate} kbps")

    def on_remote_audio_stats(self, s: agoraish.RemoteAudioStats) -> None:
        say(self.name, f"on_remote_audio_stats uid {s.uid}: {s.num_channels} ch, {s.received_sample_rate} Hz, "
                       f"{s.received_bitrate} kbps, loss {s.audio_loss_rate} %, "
                       f"jitter buffer {s.jitter_buffer_delay} ms")


# ---- WAV files ------------------------------------------------------------------------


class Pcm(NamedTuple):
    rate: int
    channels: int
    samples: array.array  # 16-bit, interleaved

    @property
    def frames(self) -> int:
        """Samples per channel."""
        return len(self.samples) // self.channels


def write_wav(path: str, pcm: Pcm) -> None:
    """A 16-bit PCM WAV file (RIFF)."""
    data = array.array("h", pcm.samples)
    if sys.byteorder != "little":
        data.byteswap()
    with wave.open(path, "wb") as w:
        w.setnchannels(pcm.channels)
        w.setsampwidth(2)
        w.setframerate(pcm.rate)
        w.writeframes(data.tobytes())


def read_wav(path: str) -> Pcm:
    """Reads a 16-bit PCM WAV, mono or stereo, at most MAX_SECONDS of it.

    Raises:
        OSError, EOFError or wave.Error: unreadable, or not such a file.
    """
    with wave.open(path, "rb") as w:
        channels, width, rate = w.getnchannels(), w.getsampwidth(), w.getframerate()
        if width != 2 or not 1 <= channels <= 2:
            raise wave.Error(f"{width * 8}-bit, {channels} channels")
        data = w.readframes(min(w.getnframes(), MAX_SECONDS * rate))
    samples = array.array("h")
    samples.frombytes(data[:len(data) // (2 * channels) * 2 * channels])
    if sys.byteorder != "little":
        samples.byteswap()
    return Pcm(rate, channels, samples)


def make_notes() -> Pcm:
    """Three notes, one second each, the same in both channels, with 20 ms fades."""
    per_note = NOTE_SECONDS * 44100
    samples = array.array("h", bytes(2 * 2 * per_note * len(NOTES)))
    for i in range(per_note * len(NOTES)):
        j = i % per_note
        fade = min(1.0, min(j, per_note - j) / (0.02 * 44100))
        value = int(9000 * fade * math.sin(2 * math.pi * NOTES[i // per_note] * j / 44100))
        samples[2 * i] = samples[2 * i + 1] = value
    return Pcm(44100, 2, samples)


# ---- the pushing thread: 10 ms of the file every 10 ms ------------------------------------


def push_file(engine: agoraish.RtcEngine, pcm: Pcm, returned: List[int], stop: threading.Event) -> None:
    """Pushes the file in real time; keeps what the first six pushes returned."""
    chunk = pcm.rate // 100  # 10 ms, e.g. 441 samples per channel at 44.1 kHz
    samples = memoryview(pcm.samples)
    start = time.monotonic()
    for k in range((pcm.frames + chunk - 1) // chunk):
        if stop.is_set():
            break
        first, last = k * chunk, min(pcm.frames, (k + 1) * chunk)
        rc = engine.push_external_audio_frame(samples[first * pcm.channels:last * pcm.channels], pcm.channels)
        if k < 6:
            returned.append(rc)
        sleep_until(start, (k + 1) * 10)


# ---- what remote heard -----------------------------------------------------------------


# ---- the call ------------------------------------------------------------------------------


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User,
         pcm: Pcm, check_notes: bool) -> bool:
    """The case, from the profile to the checks; True when it went as expected."""
    # local sends the file: a music profile, stereo when the file is. Nothing
    # it would hear matters here, so its playout goes to ALSA's "null".
    stereo = pcm.channels == 2
    local_engine.set_audio_profile(agoraish.AudioProfile.MUSIC_STANDARD_STEREO if stereo
                                   else agoraish.AudioProfile.MUSIC_STANDARD)
    say("local", f"set_audio_profile(MUSIC_STANDARD{'_STEREO' if stereo else ''}) = 0")
    try:
        local_engine.set_external_audio_source(True, pcm.rate, pcm.channels)
    except agoraish.AgoraishError as error:
        say("local", f"set_external_audio_source({pcm.rate} Hz, {pcm.channels} ch) = {error.code}")
        return False
    say("local", f"set_external_audio_source({pcm.rate} Hz, {pcm.channels} ch) = 0")
    local_engine.set_playback_device("null")

    # remote only listens: it pulls what it hears and sends nothing.
    remote_engine.set_external_audio_sink(True, SINK_RATE, 1)
    remote_engine.enable_local_audio(False)

    if not meet(CHANNEL, local_engine, local, remote_engine, remote):
        return False

    # local pushes the file in real time while remote pulls 10 ms every 10 ms.
    listen_frames = int(pcm.frames / pcm.rate * 100) + 60  # the file and 600 ms more
    heard = array.array("h")
    returned: List[int] = []
    stop = threading.Event()
    pusher = threading.Thread(target=push_file, name="local-pusher", args=(local_engine, pcm, returned, stop))
    pusher.start()
    try:
        start = time.monotonic()
        for k in range(listen_frames):
            heard.frombytes(remote_engine.pull_playback_audio_frame(SINK_FRAME))
            sleep_until(start, (k + 1) * 10)
    except BaseException:
        stop.set()  # the push ends early only when the call failed
        raise
    finally:
        pusher.join()
    say("local", f"the first pushes of {pcm.rate // 100} samples per channel returned "
                 f"{', '.join(map(str, returned))} (at 48 kHz, not yet sent)")

    if not part(local_engine, local, remote_engine, remote):
        return False

    # What remote heard, second by second from the moment sound arrived.
    onset = next((i for i, s in enumerate(heard) if abs(s) >= 500), None)
    if onset is None:
        say("remote", "heard nothing")
        return False
    ok = True
    s = 0
    while onset + (s + 1) * SINK_RATE <= len(heard):
        # Each second without its first and last 150 ms.
        begin = onset + s * SINK_RATE + SINK_RATE * 15 // 100
        hz, dbfs = analyze(heard[begin:begin + SINK_RATE * 70 // 100], SINK_RATE)
        if not check_notes:
            say("remote", f"second {s + 1}: {hz:.0f} Hz at {dbfs:.1f} dBFS")
        elif s < len(NOTES):
            say("remote", f"note {s + 1}: heard {hz:.0f} Hz at {dbfs:.1f} dBFS (the file has {NOTES[s]:.0f} Hz)")
            ok = ok and abs(hz - NOTES[s]) < 10
        s += 1
    return ok


def main() -> int:
    path = sys.argv[1] if len(sys.argv) > 1 else GENERATED
    if len(sys.argv) <= 1:
        try:
            os.makedirs("demo-out", exist_ok=True)
            write_wav(GENERATED, make_notes())
        except OSError as error:
            print(f"cannot write {GENERATED}: {error}", file=sys.stderr)
            return 1
        say("local", f"wrote {GENERATED}: A4, C#5, E5, {NOTE_SECONDS} s each")
    try:
        pcm = read_wav(path)
    except (OSError, EOFError, wave.Error):
        print(f"{path}: not a 16-bit PCM WAV file, or unreadable", file=sys.stderr)
        return 1
    say("local", f"{path}: {pcm.rate} Hz, {pcm.channels} channel{'' if pcm.channels == 1 else 's'}, "
                 f"{pcm.frames / pcm.rate:.2f} s")

    local = User("local")
    remote = User("remote")
    check_notes = len(sys.argv) <= 1
    return run_call("custom_pcm_audio_source", [local, remote],
                    lambda engines: call(*engines, local, remote, pcm, check_notes=check_notes),
                    "done: remote heard what local pushed")


if __name__ == "__main__":
    sys.exit(main())
