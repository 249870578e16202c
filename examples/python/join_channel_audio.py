#!/usr/bin/env python3
"""join_channel_audio.py — Agora's JoinChannelAudio case in Python: a voice
call with an audio profile, volume indication and the recording volume,
against a channel server inside this process.

    set_audio_profile -> enable_audio_volume_indication -> join_channel
    -> on_join_channel_success, on_user_joined, on_local_audio_state_changed,
       on_first_remote_audio_decoded, on_audio_volume_indication, ...
    -> adjust_recording_signal_volume: 100, then 200, then 50
    -> leave_channel -> on_leave_channel -> release

"local" is the user of the case: it captures from an ALSA device and plays to
one, as an application with a microphone and a speaker does. This machine may
have no sound card, so the example points both at ALSA file plugins it
defines in its own configuration: the "microphone" reads a 440 Hz tone from a
raw file and the "speaker" writes what it plays to another (docs/audio.md,
"Testing without a sound card"). ALSA finds that configuration through
XDG_CONFIG_HOME, which is set before the first engine is created. On a
machine with a sound card, leave out the two set_*_device calls and the
engine uses ALSA's "default".

"remote" is a second engine in the same process. It talks through an
external source (a 660 Hz tone) and listens through an external sink, so the
example can tell what reached it from local, and how loud.

The Python version of examples/c/join_channel_audio.c. Runs from a checkout:
it imports bindings/python and, unless AGORAISH_LIBRARY says otherwise, uses
the checkout's dist/lib (`make dist`):

    python3 examples/python/join_channel_audio.py
"""
import array
import math
import os
import shutil
import sys
import tempfile
import threading
import time
from typing import List, Optional, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import ExampleUser, analyze, meet, name_of, part, run_call, say, sleep_until

CHANNEL = "join-channel-audio"
LOCAL_UID = 1001
REMOTE_UID = 2002
RATE = 48000
FRAME = RATE // 100           # 10 ms
MIC_HZ = 440.0                # what local's microphone hears
MIC_AMPLITUDE = 8000.0
MIC_SECONDS = 12              # longer than the call
REMOTE_HZ = 660.0             # what remote says
REMOTE_AMPLITUDE = 6000.0
PHASE_VOLUMES = (100, 200, 50)
PHASE_MS = 2000


# ---- one user's events -----------------------------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    def __init__(self, name: str, verbose: bool) -> None:
        super().__init__(name)
        self.verbose = verbose        # print statistics and volumes too
        # Guarded by `changed`.
        self.local_volume = 0         # the last local volume report
        self.local_vad = 0

    def on_leave_channel(self, stats: agoraish.RtcStats) -> None:
        say(self.name, f"on_leave_channel after {stats.duration} s: sent {stats.tx_bytes} bytes "
                       f"({stats.tx_audio_bytes} of audio), received {stats.rx_bytes} bytes "
                       f"({stats.rx_audio_bytes} of audio)")
        with self.changed:
            self.left = True
            self.changed.notify_all()

    def on_first_local_audio_frame_published(self, elapsed: int) -> None:
        say(self.name, f"on_first_local_audio_frame_published, {elapsed} ms")

    def on_local_audio_state_changed(self, state: int, error: int) -> None:
        say(self.name, f"on_local_audio_state_changed {name_of(state)} ({name_of(error)})")

    def on_first_remote_audio_frame(self, uid: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_audio_frame uid {uid}, {elapsed} ms")

    def on_first_remote_audio_decoded(self, uid: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_audio_decoded uid {uid}, {elapsed} ms")

    def on_remote_audio_state_changed(self, uid: int, state: int, reason: int, elapsed: int) -> None:
        say(self.name, f"on_remote_audio_state_changed uid {uid} {name_of(state)} ({name_of(reason)}), "
                       f"{elapsed} ms")

    def on_audio_volume_indication(self, speakers: List[agoraish.AudioVolumeInfo], total_volume: int) -> None:
        # A local report (one speaker, uid 0) comes first; in a call a remote
        # report (up to three loudest remote users) follows at once: print them as one line.
        if len(speakers) == 1 and speakers[0].uid == 0:
            with self.changed:
                self.local_volume, self.local_vad = speakers[0].volume, speakers[0].vad
            return
        with self.changed:
            line = f"on_audio_volume_indication: local {self.local_volume:3d} (vad {self.local_vad}); remote"
        line += "".join(f" uid {s.uid} {s.volume:3d}" for s in speakers) or " (nobody)"
        say(self.name, f"{line}, total {total_volume}")

    def on_active_speaker(self, uid: int) -> None:
        say(self.name, f"on_active_speaker uid {uid}")

    def on_rtc_stats(self, s: agoraish.RtcStats) -> None:
        if self.verbose:
            say(self.name, f"on_rtc_stats: {s.duration} s, {s.user_count} users, tx {s.tx_kbitrate} kbps "
                           f"(audio {s.tx_audio_kbitrate}), rx {s.rx_kbitrate} kbps (audio {s.rx_audio_kbitrate}), "
                           f"cpu {s.cpu_app_usage:.1f} %, {s.memory_app_usage_kb // 1024} MB")

    def on_local_audio_stats(self, s: agoraish.LocalAudioStats) -> None:
        if self.verbose:
            say(self.name, f"on_local_audio_stats: {s.num_channels} ch, {s.sent_sample_rate} Hz, "
                           f"{s.sent_bitrate} kbps, upstream loss {s.tx_packet_loss_rate} %")

    def on_remote_audio_stats(self, s: agoraish.RemoteAudioStats) -> None:
        if self.verbose:
            say(self.name, f"on_remote_audio_stats uid {s.uid}: quality {s.quality}, {s.received_bitrate} kbps, "
                           f"loss {s.audio_loss_rate} %, jitter buffer {s.jitter_buffer_delay} ms, "
                           f"end to end {s.end_to_end_delay} ms, active {s.total_active_time} ms, "
                           f"frozen {s.total_frozen_time} ms")


# ---- audio helpers ------------------------------------------------------------------


def tone(hz: float, amplitude: float, count: int) -> array.array:
    """`count` samples of a sine at 48 kHz, 16-bit."""
    step = 2 * math.pi * hz / RATE
    return array.array("h", (int(amplitude * math.sin(step * i)) for i in range(count)))


# ---- the remote user: talks through an external source ---------------------------------


def talk(engine: agoraish.RtcEngine, voice: array.array, stop: threading.Event) -> None:
    """Pushes `voice` (48 kHz mono), 10 ms every 10 ms, until its end or `stop`."""
    frames = memoryview(voice)
    start = time.monotonic()
    for k in range(len(voice) // FRAME):
        if stop.is_set():
            break
        engine.push_external_audio_frame(frames[k * FRAME:(k + 1) * FRAME])
        sleep_until(start, (k + 1) * 10)


# ---- the ALSA devices of this example -----------------------------------------------------


def make_devices(directory: str) -> None:
    """Writes the microphone's raw file and an ALSA configuration defining
    "agoraish_mic" and "agoraish_speaker" into `directory`, and has ALSA load
    it: alsa.conf reads $XDG_CONFIG_HOME/alsa/asoundrc after the system's files."""
    mic = tone(MIC_HZ, MIC_AMPLITUDE, MIC_SECONDS * RATE)
    if sys.byteorder != "little":
        mic.byteswap()  # raw files are little-endian
    with open(os.path.join(directory, "mic.raw"), "wb") as f:
        mic.tofile(f)
    os.mkdir(os.path.join(directory, "alsa"), 0o700)
    with open(os.path.join(directory, "alsa", "asoundrc"), "w") as f:
        f.write(
            "pcm.agoraish_mic {\n"
            f'    type file\n    slave.pcm null\n    file "/dev/null"\n    infile "{directory}/mic.raw"\n'
            "    format raw\n"
            '    hint { show on description "440 Hz tone read from a file" }\n}\n'
            "pcm.agoraish_speaker {\n"
            f'    type file\n    slave.pcm null\n    file "{directory}/speaker.raw"\n    format raw\n'
            '    hint { show on description "what is played, written to a file" }\n}\n'
        )
    # Before the first engine exists: ALSA reads its configuration once, when first used.
    os.environ["XDG_CONFIG_HOME"] = directory


def analyze_speaker(directory: str) -> Tuple[float, float]:
    """Reads what the speaker played (raw 16-bit mono at 48 kHz) and finds the
    remote's tone in it: from 300 ms after it starts, for up to 2 s."""
    played = array.array("h")
    try:
        with open(os.path.join(directory, "speaker.raw"), "rb") as f:
            data = f.read(30 * RATE * 2)
    except OSError:
        return 0.0, -120.0
    played.frombytes(data[:len(data) // 2 * 2])
    if sys.byteorder != "little":
        played.byteswap()
    first = next((i for i, s in enumerate(played) if abs(s) >= 1000), len(played)) + RATE * 3 // 10
    if first >= len(played):
        return 0.0, -120.0
    return analyze(played[first:first + 2 * RATE], RATE)


def list_devices(engine: agoraish.RtcEngine) -> None:
    """The ALSA devices the engine lists (the PCMs with a hint, "default" first)."""
    for kind, devices in (("playback", engine.enumerate_playback_devices()),
                          ("recording", engine.enumerate_recording_devices())):
        say("local", f"{kind} devices: {', '.join(d.id for d in devices) or 'none'}")


# ---- the call ---------------------------------------------------------------------------


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine,
         local: User, remote: User, directory: str) -> bool:
    """The case, from the calls before joining to the checks; True when it went as expected."""
    # The case's calls, before joining.
    list_devices(local_engine)
    local_engine.set_recording_device("agoraish_mic")
    local_engine.set_playback_device("agoraish_speaker")
    local_engine.set_audio_profile(agoraish.AudioProfile.MUSIC_STANDARD)
    say("local", "set_audio_profile(MUSIC_STANDARD) = 0")
    local_engine.enable_audio_volume_indication(500, 3, True)
    say("local", "enable_audio_volume_indication(500 ms, smooth 3, vad) = 0")

    # The remote user speaks and listens through the host.
    remote_engine.set_external_audio_source(True, RATE, 1)
    remote_engine.set_external_audio_sink(True, RATE, 1)

    if not meet(CHANNEL, local_engine, local, remote_engine, remote, LOCAL_UID, REMOTE_UID):
        return False

    # The call: remote talks all along; local changes its recording volume
    # every PHASE_MS while remote listens (pulls 10 ms every 10 ms).
    heard = array.array("h")
    voice = tone(REMOTE_HZ, REMOTE_AMPLITUDE, (len(PHASE_VOLUMES) * PHASE_MS + 500) // 10 * FRAME)
    stop = threading.Event()
    talker = threading.Thread(target=talk, name="remote-talker", args=(remote_engine, voice, stop))
    talker.start()
    try:
        start = time.monotonic()
        for p, volume in enumerate(PHASE_VOLUMES):
            local_engine.adjust_recording_signal_volume(volume)
            say("local", f"adjust_recording_signal_volume({volume}) = 0")
            for k in range(PHASE_MS // 10):
                frame = p * (PHASE_MS // 10) + k
                heard.frombytes(remote_engine.pull_playback_audio_frame(FRAME))
                sleep_until(start, (frame + 1) * 10)
    except BaseException:
        stop.set()  # the talker ends early only when the call failed
        raise
    finally:
        talker.join()

    if not part(local_engine, local, remote_engine, remote):
        return False

    # What remote heard of local in each phase (from 600 ms into it, past the
    # path's delay), and what local's speaker played of remote.
    ok = True
    first_dbfs: Optional[float] = None
    for p, volume in enumerate(PHASE_VOLUMES):
        begin = (p * PHASE_MS + 600) // 10 * FRAME
        end = (p + 1) * PHASE_MS // 10 * FRAME
        hz, dbfs = analyze(heard[begin:end], RATE)
        if first_dbfs is None:
            first_dbfs = dbfs
        say("remote", f"heard {hz:.0f} Hz at {dbfs:.1f} dBFS ({dbfs - first_dbfs:+.1f} dB) "
                      f"while local's recording volume was {volume}")
        ok = ok and abs(hz - MIC_HZ) < 10 and abs(dbfs - first_dbfs - 20 * math.log10(volume / 100)) < 1.5
    played_hz, played_dbfs = analyze_speaker(directory)
    sent_dbfs = 20 * math.log10(REMOTE_AMPLITUDE / math.sqrt(2) / 32768)
    say("local", f"its speaker played {played_hz:.0f} Hz at {played_dbfs:.1f} dBFS "
                 f"(remote sent {REMOTE_HZ:.0f} Hz at {sent_dbfs:.1f} dBFS)")
    return ok and abs(played_hz - REMOTE_HZ) < 10


def main() -> int:
    directory = tempfile.mkdtemp(prefix="agoraish-join-channel-audio-")
    try:
        make_devices(directory)
    except OSError as error:
        print(f"cannot write the example's ALSA devices: {error}", file=sys.stderr)
        shutil.rmtree(directory, ignore_errors=True)
        return 1

    local = User("local", verbose=True)
    remote = User("remote", verbose=False)
    try:
        return run_call("join_channel_audio", [local, remote],
                        lambda engines: call(*engines, local, remote, directory),
                        "done: local was heard at each recording volume and heard remote")
    finally:
        shutil.rmtree(directory, ignore_errors=True)  # after release: no callback runs any more


if __name__ == "__main__":
    sys.exit(main())
