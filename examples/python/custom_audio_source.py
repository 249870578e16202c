#!/usr/bin/env python3
"""custom_audio_source.py — Agora 4.x's custom audio tracks in Python: the
host makes audio tracks of its own and chooses which one a connection sends.

    create_custom_audio_track(AudioTrackType) -> track id
    -> join_channel_with_options(token, channel, uid,
           ChannelMediaOptions(publish_microphone_track=False, publish_custom_audio_track=True,
                               publish_custom_audio_track_id=id))
    -> push_external_audio_frame_by_id(id, samples, rate, channels) every 10 ms, in real time
    -> update_channel_media_options(publish_custom_audio_track_id=other id)   (switch tracks)
    -> adjust_custom_audio_publish_volume(id, 0..100)
    -> leave_channel -> destroy_custom_audio_track -> release

"local" creates two tracks: "low" (A4, 440 Hz, 16 kHz mono) and "high" (E5,
659 Hz, 48 kHz stereo), and a pushing thread pushes 10 ms of each every
10 ms; what a track gets while no connection publishes it is dropped.
local joins publishing "low", later switches to "high", then halves the
volume of "high". "remote", a second engine in the same process, listens
through an external sink; the example checks that it heard 440 Hz, then
659 Hz, then 659 Hz 6 dB quieter. local's microphone and speaker are never
used (the track replaces the microphone; the connection leaves the device alone).

Runs from a checkout: it imports bindings/python and, unless
AGORAISH_LIBRARY says otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/custom_audio_source.py
"""
import array
import math
import sys
import threading
import time
from typing import List, NamedTuple, Sequence, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import ExampleUser, analyze, is_joined, part, run_call, say, sees_peer, sleep_until

CHANNEL = "custom-audio-source"
LOCAL_UID, REMOTE_UID = 1, 2
SINK_RATE = 48000
SINK_FRAME = SINK_RATE // 100
PHASE_MS = 1200  # how long each phase (low, high, high at half volume) lasts
LATENCY_MS = 400  # what each phase's analysis skips: the path from a push to the remote sink


class Track(NamedTuple):
    name: str
    hz: float
    rate: int
    channels: int


LOW = Track("low", 440.0, 16000, 1)
HIGH = Track("high", 659.26, 48000, 2)


# ---- one user's events -----------------------------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    def on_first_local_audio_frame_published(self, elapsed: int) -> None:
        say(self.name, f"on_first_local_audio_frame_published, {elapsed} ms")

    def on_first_remote_audio_decoded(self, uid: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_audio_decoded uid {uid}, {elapsed} ms")

    def on_local_audio_stats(self, s: agoraish.LocalAudioStats) -> None:
        say(self.name, f"on_local_audio_stats: {s.num_channels} ch, {s.sent_sample_rate} Hz, {s.sent_bitrate} kbps")


# ---- the pushing thread: 10 ms of each track every 10 ms ---------------------------------


def ten_ms(track: Track, k: int) -> array.array:
    """The k-th 10 ms of the track's tone, interleaved, at -14 dBFS."""
    n = track.rate // 100
    out = array.array("h", bytes(2 * n * track.channels))
    for i in range(n):
        value = int(9000 * math.sin(2 * math.pi * track.hz * (k * n + i) / track.rate))
        for c in range(track.channels):
            out[i * track.channels + c] = value
    return out


def push_tracks(engine: agoraish.RtcEngine, tracks: Sequence[Tuple[int, Track]], stop: threading.Event) -> None:
    """Pushes every track in real time until `stop`, as a capture device of the host would."""
    start = time.monotonic()
    k = 0
    while not stop.is_set():
        for track_id, track in tracks:
            engine.push_external_audio_frame_by_id(track_id, ten_ms(track, k), track.rate, track.channels)
        k += 1
        sleep_until(start, k * 10)


# ---- what remote heard ------------------------------------------------------------------


# ---- the call ---------------------------------------------------------------------------


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User) -> bool:
    # remote only listens: it pulls what it hears and sends nothing.
    remote_engine.set_external_audio_sink(True, SINK_RATE, 1)
    remote_engine.enable_local_audio(False)

    # local's two tracks; the type does not change what is sent (a connection sends one track).
    low_id = local_engine.create_custom_audio_track(agoraish.AudioTrackType.MIXABLE)
    high_id = local_engine.create_custom_audio_track(agoraish.AudioTrackType.DIRECT)
    say("local", f"create_custom_audio_track: {LOW.name} = {low_id} ({LOW.hz:.0f} Hz, {LOW.rate} Hz, "
                 f"{LOW.channels} ch), {HIGH.name} = {high_id} ({HIGH.hz:.0f} Hz, {HIGH.rate} Hz, {HIGH.channels} ch)")
    stop = threading.Event()
    pusher = threading.Thread(target=push_tracks, name="local-pusher",
                              args=(local_engine, [(low_id, LOW), (high_id, HIGH)], stop))
    pusher.start()
    try:
        return listen(local_engine, remote_engine, local, remote, low_id, high_id)
    finally:
        stop.set()
        pusher.join()
        for track_id in (low_id, high_id):
            local_engine.destroy_custom_audio_track(track_id)
        say("local", "destroy_custom_audio_track for both tracks")


def listen(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User,
           low_id: int, high_id: int) -> bool:
    options = agoraish.ChannelMediaOptions(publish_microphone_track=False, publish_custom_audio_track=True,
                                           publish_custom_audio_track_id=low_id,
                                           enable_audio_recording_or_playout=False)
    remote_engine.join_channel(None, CHANNEL, uid=REMOTE_UID)
    local_engine.join_channel_with_options(None, CHANNEL, LOCAL_UID, options)
    say("local", f"join_channel_with_options: publish track {low_id} ({LOW.name}), no microphone, no device")
    if not (local.wait_until(is_joined, "join") and remote.wait_until(is_joined, "join")
            and remote.wait_until(sees_peer, "remote user") and local.wait_until(sees_peer, "remote user")):
        return False

    # remote pulls 10 ms every 10 ms through three phases; local changes what it sends between them.
    heard = array.array("h")
    phase_frames = PHASE_MS // 10
    start = time.monotonic()
    for k in range(3 * phase_frames):
        if k == phase_frames:
            local_engine.update_channel_media_options(
                agoraish.ChannelMediaOptions(publish_custom_audio_track_id=high_id))
            say("local", f"update_channel_media_options: publish track {high_id} ({HIGH.name}) instead")
        elif k == 2 * phase_frames:
            local_engine.adjust_custom_audio_publish_volume(high_id, 50)
            say("local", f"adjust_custom_audio_publish_volume({high_id}, 50)")
        heard.frombytes(remote_engine.pull_playback_audio_frame(SINK_FRAME))
        sleep_until(start, (k + 1) * 10)

    if not part(remote_engine, remote, local_engine, local):
        return False

    # Each phase from LATENCY_MS after its change to its end.
    results: List[Tuple[float, float]] = []
    for phase in range(3):
        begin = (phase * PHASE_MS + LATENCY_MS) * SINK_RATE // 1000
        results.append(analyze(heard[begin:(phase + 1) * PHASE_MS * SINK_RATE // 1000], SINK_RATE))
    expected = [(LOW, "low"), (HIGH, "high"), (HIGH, "high at half volume")]
    ok = True
    for (hz, dbfs), (track, label) in zip(results, expected):
        say("remote", f"heard {hz:.0f} Hz at {dbfs:.1f} dBFS ({label}: {track.hz:.0f} Hz)")
        ok = ok and abs(hz - track.hz) < 10
    drop = results[1][1] - results[2][1]
    say("remote", f"half volume: {drop:.1f} dB quieter (20 log10 2 = 6.0 dB)")
    return ok and abs(drop - 6.0) < 1.5


def main() -> int:
    local, remote = User("local"), User("remote")
    return run_call("custom_audio_source", [local, remote], lambda engines: call(*engines, local, remote),
                    "done: remote heard each custom track local published, and the volume change")


if __name__ == "__main__":
    sys.exit(main())
