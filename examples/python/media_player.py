#!/usr/bin/env python3
"""media_player.py — Agora's MediaPlayer case in Python: a user plays a
video file and publishes it into the channel instead of a camera and a
microphone.

    create_media_player -> register_player_source_observer -> set_view
    -> open(path) -> OPEN_COMPLETED -> get_duration, get_stream_info
    -> join_channel_with_options(publish_media_player_audio_track/_video_track,
       publish_media_player_id, no camera, no microphone)
    -> play -> PLAYING -> pause -> PAUSED -> resume -> seek -> SEEK_COMPLETE
    -> PLAYBACK_COMPLETED, PLAYBACK_ALL_LOOPS_COMPLETED, on_completed
    -> leave_channel -> destroy_media_player -> release

"local" opens a 4 s MP4 (H.264 pictures of FFmpeg's moving test pattern and
an AAC 1 kHz tone) that the example makes first with the ffmpeg command-line
tool in demo-out/media_player.mp4, and publishes its player's audio and
pictures. "remote", a second engine in
the same process, pulls what it hears from its external sink and renders what
it receives; local's own playout (its external sink) plays the file too. The
example checks that remote heard the tone and saw the pictures move, that
pausing silenced and froze both, and that after a seek back the file played
to its end.

Runs from a checkout: it imports bindings/python and, unless AGORAISH_LIBRARY
says otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/media_player.py
"""
import os
import sys
import threading
import time
from typing import List, Optional, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import Ears, ExampleUser, is_joined, make_media, name_of, part, run_call, say, sees_peer, \
    tone_level

CHANNEL = "media-player"
WIDTH, HEIGHT, FPS = 320, 240, 15
TONE_HZ = 1000
SECONDS = 4
MOVIE = os.path.join("demo-out", "media_player.mp4")
SEEK_TO_MS = 1000
WAIT_SECONDS = 10   # for the player's events


# ---- one user's events ------------------------------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    def on_first_local_video_frame_published(self, elapsed: int) -> None:
        say(self.name, f"on_first_local_video_frame_published, {elapsed} ms")

    def on_first_local_audio_frame_published(self, elapsed: int) -> None:
        say(self.name, f"on_first_local_audio_frame_published, {elapsed} ms")

    def on_first_remote_video_decoded(self, uid: int, width: int, height: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_video_decoded uid {uid}, {width}x{height}, {elapsed} ms")

    def on_first_remote_audio_decoded(self, uid: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_audio_decoded uid {uid}, {elapsed} ms")


# ---- the player's events ------------------------------------------------------------


class PlayerEvents(agoraish.MediaPlayerSourceObserver):
    """The player's states and events, on the engine's event thread."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        # Guarded by `changed`.
        self.states: List[Tuple[int, int]] = []
        self.events: List[int] = []
        self.positions: List[int] = []
        self.completed = False

    def on_player_source_state_changed(self, state: agoraish.MediaPlayerState,
                                       reason: agoraish.MediaPlayerReason) -> None:
        say("player", f"on_player_source_state_changed {name_of(state)} ({name_of(reason)})")
        with self.changed:
            self.states.append((int(state), int(reason)))
            self.changed.notify_all()

    def on_player_event(self, event: agoraish.MediaPlayerEvent, elapsed_time: int, message: str) -> None:
        say("player", f"on_player_event {name_of(event)} at {elapsed_time} ms{' ' + message if message else ''}")
        with self.changed:
            self.events.append(int(event))
            self.changed.notify_all()

    def on_position_changed(self, position_ms: int, timestamp_ms: int) -> None:
        say("player", f"on_position_changed {position_ms} ms")
        with self.changed:
            self.positions.append(position_ms)

    def on_completed(self) -> None:
        say("player", "on_completed")
        with self.changed:
            self.completed = True
            self.changed.notify_all()

    def wait_state(self, state: int, after: int = 0) -> Optional[int]:
        """Waits for `state` among the states from index `after` on; its reason, or None."""
        def seen() -> Optional[int]:
            return next((r for s, r in self.states[after:] if s == state), None)
        with self.changed:
            self.changed.wait_for(lambda: seen() is not None, timeout=WAIT_SECONDS)
            reason = seen()
        if reason is None:
            say("player", f"no {agoraish.MediaPlayerState(state).name} within {WAIT_SECONDS} s")
        return reason

    def wait_event(self, event: int) -> bool:
        with self.changed:
            ok = self.changed.wait_for(lambda: event in self.events, timeout=WAIT_SECONDS)
        if not ok:
            say("player", f"no {agoraish.MediaPlayerEvent(event).name} within {WAIT_SECONDS} s")
        return ok

    def mark(self) -> int:
        with self.changed:
            return len(self.states)


# ---- canvases ------------------------------------------------------------------------


class Screen:
    """A canvas: counts pictures, their sizes, and how many differ from the one before."""

    def __init__(self, who: str, what: str) -> None:
        self.who, self.what = who, what
        self.lock = threading.Lock()
        # Guarded by `lock`.
        self.pictures = 0
        self.sizes = set()
        self.changes = 0
        self.last = b""

    def __call__(self, *args: object) -> None:
        frame = args[-1]  # a remote canvas gets (frame), the player's view (uid, frame)
        # The planes are valid during this call only: read what is needed now.
        row = frame.height // 2 * frame.y_stride
        signature = bytes(frame.y[row:row + frame.width])
        with self.lock:
            if self.pictures == 0:
                say(self.who, f"{self.what}: first picture {frame.width}x{frame.height}")
            self.pictures += 1
            self.sizes.add((frame.width, frame.height))
            self.changes += signature != self.last
            self.last = signature

    def count(self) -> int:
        with self.lock:
            return self.pictures


# ---- the call --------------------------------------------------------------------------


def heard(ears: Ears, ms: int, what: str) -> Tuple[float, float]:
    """What remote and local hear of the tone in the next `ms`, said and returned (dBFS)."""
    got = ears.listen(ms)
    remote, local = tone_level(got["remote"], TONE_HZ), tone_level(got["local"], TONE_HZ)
    say("remote", f"{what}: {TONE_HZ} Hz at {remote:.1f} dBFS (local's own playout: {local:.1f} dBFS)")
    return remote, local


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User) -> bool:
    S, E = agoraish.MediaPlayerState, agoraish.MediaPlayerEvent
    # Both users hear through external sinks, pulled by the example's "sound cards" (Ears).
    for engine in (local_engine, remote_engine):
        engine.set_external_audio_sink(True, Ears.RATE, 1)
        engine.enable_video()
    remote_engine.enable_local_audio(False)  # remote only watches and listens
    local_engine.set_video_encoder_configuration(WIDTH, HEIGHT, frame_rate=FPS)

    # local's player: its events, its own view, and the file.
    player = local_engine.create_media_player()
    say("local", f"create_media_player() = player {player.id}")
    events = PlayerEvents()
    player.register_player_source_observer(events)
    view = Screen("local", "player's view")
    player.set_view(view)
    player.open(MOVIE)
    if events.wait_state(S.OPEN_COMPLETED) is None:
        return False
    say("local", f"get_duration() = {player.get_duration()} ms, {player.get_stream_count()} streams:")
    codecs = []
    for index in range(player.get_stream_count()):
        info = player.get_stream_info(index)
        codecs.append(info.codec_name)
        if info.stream_type == agoraish.MediaStreamType.VIDEO:
            detail = f"{info.video_width}x{info.video_height} at {info.video_frame_rate} fps"
        else:
            plural = "s" if info.audio_channels != 1 else ""
            detail = f"{info.audio_sample_rate} Hz, {info.audio_channels} channel{plural}"
        say("local", f"  stream {info.stream_index}: {name_of(info.stream_type)} {info.codec_name}, {detail}, "
                     f"{info.duration} ms")

    # local publishes the player instead of a camera and a microphone.
    options = agoraish.ChannelMediaOptions(
        publish_camera_track=False, publish_microphone_track=False,
        publish_media_player_audio_track=True, publish_media_player_video_track=True,
        publish_media_player_id=player.id)
    local_engine.join_channel_with_options(None, CHANNEL, 0, options)
    say("local", f"join_channel_with_options(publish_media_player_audio_track, _video_track, id {player.id})")
    if not local.wait_until(is_joined, "join"):
        return False
    remote_engine.join_channel(None, CHANNEL)
    if not (remote.wait_until(is_joined, "join") and remote.wait_until(sees_peer, "remote user")
            and local.wait_until(sees_peer, "remote user")):
        return False
    screen = Screen("remote", "remote canvas")
    remote_engine.setup_remote_video(remote.peer, screen)

    with Ears({"local": local_engine, "remote": remote_engine}) as ears:
        mark = events.mark()
        player.play()
        if events.wait_state(S.PLAYING, mark) is None:
            return False
        ears.listen(500)  # the first audio on its way
        playing = heard(ears, 1000, "playing")
        moving = screen.count()

        mark = events.mark()
        player.pause()
        if events.wait_state(S.PAUSED, mark) is None:
            return False
        paused_at = player.get_play_position()
        say("local", f"pause() at {paused_at} ms")
        ears.listen(300)  # what was on its way
        before = screen.count()
        paused = heard(ears, 700, "paused")
        frozen = screen.count() - before
        say("remote", f"{frozen} pictures while paused")

        mark = events.mark()
        player.resume()
        if events.wait_state(S.PLAYING, mark) is None:
            return False
        player.seek(SEEK_TO_MS)
        if not (events.wait_event(E.SEEK_BEGIN) and events.wait_event(E.SEEK_COMPLETE)):
            return False
        say("local", f"seek({SEEK_TO_MS}): position {player.get_play_position()} ms")
        resumed = heard(ears, 1000, "after resume and seek")
        all_loops = events.wait_state(S.PLAYBACK_ALL_LOOPS_COMPLETED, 0)
        with events.changed:
            events.changed.wait_for(lambda: events.completed, timeout=WAIT_SECONDS)
            completed = events.completed
        say("local", f"the end: position {player.get_play_position()} ms, state {name_of(player.get_state())}")

    remote_engine.setup_remote_video(remote.peer, None)  # waits for a picture being rendered
    with screen.lock:
        pictures, sizes, changes = screen.pictures, set(screen.sizes), screen.changes
    say("remote", f"rendered {pictures} pictures of {sizes}, {changes} of them different from the one before "
                  f"({moving} by the pause)")
    say("local", f"the player's view showed {view.count()} pictures")
    if not part(local_engine, local, remote_engine, remote):
        return False
    local_engine.destroy_media_player(player)
    say("local", "destroy_media_player")

    with events.changed:
        states = [s for s, _ in events.states]
    completed_in_order = S.PLAYBACK_COMPLETED in states and all_loops is not None and completed
    return ("h264" in codecs and "aac" in codecs
            and playing[0] > -40 and playing[1] > -40     # remote heard the file, local played it
            and paused[0] < -60 and frozen <= 2           # pause silenced and froze it
            and resumed[0] > -40
            and pictures >= 2 * FPS and sizes == {(WIDTH, HEIGHT)} and changes >= FPS
            and view.count() >= 2 * FPS and completed_in_order)


def main() -> int:
    say("ffmpeg", f"making {MOVIE}: {SECONDS} s of H.264 test pattern and a {TONE_HZ} Hz AAC tone")
    if not make_media(MOVIE, "-f", "lavfi", "-i", f"testsrc2=size={WIDTH}x{HEIGHT}:rate={FPS}:duration={SECONDS}",
                      "-f", "lavfi", "-i", f"sine=frequency={TONE_HZ}:sample_rate=48000:duration={SECONDS}",
                      "-c:v", "libx264", "-preset", "veryfast", "-g", str(FPS), "-pix_fmt", "yuv420p",
                      "-c:a", "aac", "-b:a", "96k", "-shortest"):
        return 1
    local, remote = User("local"), User("remote")
    return run_call("media_player", [local, remote], lambda engines: call(*engines, local, remote),
                    "done: remote heard and saw the file local's player published, through pause, resume and seek")


if __name__ == "__main__":
    sys.exit(main())
