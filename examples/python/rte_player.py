#!/usr/bin/env python3
"""rte_player.py — Agora's RtePlayer case in Python: a stream played from a
URL, with its states, positions and buffer, and relayed into the channel.

    create_media_player -> register_player_source_observer -> set_view
    -> open(url) -> OPENING -> OPEN_COMPLETED (or FAILED with its reason)
    -> play -> PLAYING -> on_position_changed, on_play_buffer_updated every second
    -> PLAYBACK_COMPLETED, PLAYBACK_ALL_LOOPS_COMPLETED, on_completed
    -> destroy_media_player

The stream is HLS over http://: the example makes a playlist of 1 s segments
(H.264 pictures of FFmpeg's moving test pattern and an AAC 880 Hz tone, 5 s)
with the ffmpeg command-line tool in demo-out/rte_player/ and serves that
directory on 127.0.0.1 with Python's http.server in a thread. "local" first opens a URL the server does not
have (FAILED, URL_NOT_FOUND), then the playlist, shows it in its player's
view, and relays it into the channel as its audio and video tracks
(publish_media_player_*); "remote", a second engine in the same process,
hears the tone and sees the pictures. The example checks the states in
order, the position and buffer reports, what remote received, and that the
server served the playlist and its segments.

Runs from a checkout: it imports bindings/python and, unless AGORAISH_LIBRARY
says otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/rte_player.py
"""
import functools
import http.server
import os
import sys
import threading
from typing import List, Optional, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import Ears, ExampleUser, is_joined, make_media, name_of, part, run_call, say, sees_peer, \
    tone_level

CHANNEL = "rte-player"
WIDTH, HEIGHT, FPS = 320, 240, 15
TONE_HZ = 880
SECONDS = 5
STREAM_DIR = os.path.join("demo-out", "rte_player")
PLAYLIST = "index.m3u8"
WAIT_SECONDS = 15   # for the player's events (opening a URL may take a while)


# ---- the HTTP server -------------------------------------------------------------------


class Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the server's directory, says each request and keeps what it served."""

    def log_request(self, code: object = "-", size: object = "-") -> None:
        if str(code) == "200":
            with self.server.lock:
                self.server.served.append(self.path)
        super().log_request(code, size)

    def log_message(self, format: str, *args: object) -> None:
        say("http", format % args)


class StreamServer:
    """http.server on 127.0.0.1, a free port, serving `root` from a thread."""

    def __init__(self, root: str) -> None:
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                      functools.partial(Handler, directory=root))
        self.server.daemon_threads = True
        self.server.lock = threading.Lock()
        self.server.served = []  # paths served with 200, guarded by `lock`
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1},
                                       name="http-server")

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/{path}"

    def served(self) -> List[str]:
        with self.server.lock:
            return list(self.server.served)

    def __enter__(self) -> "StreamServer":
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


# ---- one user's events, and the player's -------------------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    def on_first_remote_video_decoded(self, uid: int, width: int, height: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_video_decoded uid {uid}, {width}x{height}, {elapsed} ms")

    def on_first_remote_audio_decoded(self, uid: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_audio_decoded uid {uid}, {elapsed} ms")


class PlayerEvents(agoraish.MediaPlayerSourceObserver):
    """The player's states, positions and buffer, on the engine's event thread."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        # Guarded by `changed`.
        self.states: List[Tuple[int, int]] = []
        self.positions: List[int] = []
        self.buffers: List[int] = []
        self.completed = False

    def on_player_source_state_changed(self, state: agoraish.MediaPlayerState,
                                       reason: agoraish.MediaPlayerReason) -> None:
        say("player", f"on_player_source_state_changed {name_of(state)} ({name_of(reason)})")
        with self.changed:
            self.states.append((int(state), int(reason)))
            self.changed.notify_all()

    def on_player_event(self, event: agoraish.MediaPlayerEvent, elapsed_time: int, message: str) -> None:
        say("player", f"on_player_event {name_of(event)} at {elapsed_time} ms{' ' + message if message else ''}")

    def on_position_changed(self, position_ms: int, timestamp_ms: int) -> None:
        say("player", f"on_position_changed {position_ms} ms")
        with self.changed:
            self.positions.append(position_ms)

    def on_play_buffer_updated(self, play_cached_buffer: int) -> None:
        say("player", f"on_play_buffer_updated {play_cached_buffer} ms decoded ahead")
        with self.changed:
            self.buffers.append(play_cached_buffer)

    def on_completed(self) -> None:
        say("player", "on_completed")
        with self.changed:
            self.completed = True
            self.changed.notify_all()

    def wait_state(self, wanted: Tuple[int, ...], after: int) -> Optional[Tuple[int, int]]:
        """The first state from index `after` on that is one of `wanted` (waiting for it), or None."""
        def seen() -> Optional[Tuple[int, int]]:
            return next((change for change in self.states[after:] if change[0] in wanted), None)
        with self.changed:
            self.changed.wait_for(lambda: seen() is not None, timeout=WAIT_SECONDS)
            change = seen()
        if change is None:
            say("player", f"no {' or '.join(agoraish.MediaPlayerState(s).name for s in wanted)} "
                          f"within {WAIT_SECONDS} s")
        return change

    def mark(self) -> int:
        with self.changed:
            return len(self.states)


class Screen:
    """A canvas: counts pictures and how many differ from the one before."""

    def __init__(self, who: str, what: str) -> None:
        self.who, self.what = who, what
        self.lock = threading.Lock()
        # Guarded by `lock`.
        self.pictures = 0
        self.changes = 0
        self.size = (0, 0)
        self.last = b""

    def __call__(self, *args: object) -> None:
        frame = args[-1]  # a remote canvas gets (frame), the player's view (uid, frame)
        row = frame.height // 2 * frame.y_stride
        signature = bytes(frame.y[row:row + frame.width])
        with self.lock:
            if self.pictures == 0:
                say(self.who, f"{self.what}: first picture {frame.width}x{frame.height}")
            self.pictures += 1
            self.size = (frame.width, frame.height)
            self.changes += signature != self.last
            self.last = signature


# ---- the call ----------------------------------------------------------------------------


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User,
         server: StreamServer) -> bool:
    S, R = agoraish.MediaPlayerState, agoraish.MediaPlayerReason
    for engine in (local_engine, remote_engine):
        engine.set_external_audio_sink(True, Ears.RATE, 1)
        engine.enable_video()
    remote_engine.enable_local_audio(False)  # remote only watches and listens
    local_engine.set_video_encoder_configuration(WIDTH, HEIGHT, frame_rate=FPS)

    player = local_engine.create_media_player()
    events = PlayerEvents()
    player.register_player_source_observer(events)
    view = Screen("local", "player's view")
    player.set_view(view)

    # A URL the server does not have: FAILED with URL_NOT_FOUND (HTTP 404).
    mark = events.mark()
    player.open(server.url("missing.m3u8"))
    say("local", f"open({server.url('missing.m3u8')})")
    missing = events.wait_state((S.OPEN_COMPLETED, S.FAILED), mark)

    # The playlist.
    url = server.url(PLAYLIST)
    mark = events.mark()
    player.open(url)
    say("local", f"open({url})")
    opened = events.wait_state((S.OPEN_COMPLETED, S.FAILED), mark)
    if opened != (S.OPEN_COMPLETED, R.NONE):
        return False
    duration = player.get_duration()
    streams = [player.get_stream_info(i) for i in range(player.get_stream_count())]
    say("local", f"get_duration() = {duration} ms; streams: "
                 + ", ".join(f"{name_of(s.stream_type)} {s.codec_name}" for s in streams))

    # local relays the stream into the channel as its audio and video tracks.
    local_engine.join_channel_with_options(None, CHANNEL, 0, agoraish.ChannelMediaOptions(
        publish_camera_track=False, publish_microphone_track=False,
        publish_media_player_audio_track=True, publish_media_player_video_track=True,
        publish_media_player_id=player.id))
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
        if events.wait_state((S.PLAYING,), mark) is None:
            return False
        ears.listen(1000)  # the first second
        got = ears.listen(2000)
        remote_level, local_level = tone_level(got["remote"], TONE_HZ), tone_level(got["local"], TONE_HZ)
        say("remote", f"hears {TONE_HZ} Hz at {remote_level:.1f} dBFS (local's own playout: {local_level:.1f} dBFS)")
        ended = events.wait_state((S.PLAYBACK_ALL_LOOPS_COMPLETED, S.FAILED), mark)
        with events.changed:
            events.changed.wait_for(lambda: events.completed, timeout=WAIT_SECONDS)
            completed, positions, buffers = events.completed, list(events.positions), list(events.buffers)
            states = [s for s, _ in events.states[mark:]]

    remote_engine.setup_remote_video(remote.peer, None)  # waits for a picture being rendered
    with screen.lock:
        pictures, changes, size = screen.pictures, screen.changes, screen.size
    say("remote", f"rendered {pictures} pictures of {size[0]}x{size[1]}, {changes} different from the one before")
    with view.lock:
        shown = view.pictures
    say("local", f"the player's view showed {shown} pictures; {len(positions)} position reports "
                 f"{positions}, {len(buffers)} buffer reports")
    if not part(local_engine, local, remote_engine, remote):
        return False
    local_engine.destroy_media_player(player)
    served = server.served()
    with open(os.path.join(STREAM_DIR, PLAYLIST)) as playlist:
        segments = [line.strip() for line in playlist if line.strip() and not line.startswith("#")]
    say("http", f"served {', '.join(served)}")

    return (missing == (S.FAILED, R.URL_NOT_FOUND) and abs(duration - SECONDS * 1000) <= 300
            and states[:1] == [S.PLAYING] and ended == (S.PLAYBACK_ALL_LOOPS_COMPLETED, R.NONE)
            and S.PLAYBACK_COMPLETED in states and completed
            and len(positions) >= 3 and positions == sorted(positions) and len(buffers) >= 3
            and remote_level > -40 and local_level > -40
            and pictures >= 3 * FPS and changes >= 2 * FPS and size == (WIDTH, HEIGHT)
            and served == ["/" + name for name in [PLAYLIST] + segments])


def main() -> int:
    os.makedirs(STREAM_DIR, exist_ok=True)
    say("ffmpeg", f"making {os.path.join(STREAM_DIR, PLAYLIST)}: HLS, 1 s segments of H.264 test pattern and a "
                  f"{TONE_HZ} Hz AAC tone, {SECONDS} s")
    if not make_media(os.path.join(STREAM_DIR, PLAYLIST),
                      "-f", "lavfi", "-i", f"testsrc2=size={WIDTH}x{HEIGHT}:rate={FPS}:duration={SECONDS}",
                      "-f", "lavfi", "-i", f"sine=frequency={TONE_HZ}:sample_rate=48000:duration={SECONDS}",
                      "-c:v", "libx264", "-preset", "veryfast", "-g", str(FPS), "-pix_fmt", "yuv420p",
                      "-c:a", "aac", "-b:a", "96k", "-shortest", "-f", "hls", "-hls_time", "1",
                      "-hls_playlist_type", "vod", "-hls_segment_filename", os.path.join(STREAM_DIR, "seg%03d.ts")):
        return 1
    local, remote = User("local"), User("remote")
    with StreamServer(STREAM_DIR) as server:
        say("http", f"serving {STREAM_DIR} at {server.url('')}")
        return run_call("rte_player", [local, remote], lambda engines: call(*engines, local, remote, server),
                        "done: remote heard and saw the stream local played from its URL")


if __name__ == "__main__":
    sys.exit(main())
