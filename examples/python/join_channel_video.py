#!/usr/bin/env python3
"""join_channel_video.py — Agora's JoinChannelVideo case in Python: two users
in a video call, each seeing itself (the local preview) and the other.

    enable_video -> set_video_encoder_configuration -> setup_local_video(preview sink)
    -> start_preview -> join_channel -> on_user_joined
    -> setup_remote_video(uid, sink) -> on_first_remote_video_frame
    -> the sinks get every picture, on the engine's video thread
    -> leave_channel -> stop_preview -> release

On Linux a canvas is a callback instead of a view: it gets each picture as a
VideoFrame with I420 planes (memoryviews of the library's own buffers, valid
during the call). A canvas may ask for a view size and a render mode: local
shows remote in a 320 x 180 view with RenderMode.FIT (the 4:3 picture
letterboxed in 16:9, black bars on its sides), remote shows local at the
picture's own size.

There is no camera here: each user's "camera" is a thread that pushes 320x240
I420 pictures at 15 fps through an external source: a grey picture with a
bright square in its left half, moving down, so the preview's mirroring shows
(a preview is mirrored, as a mirror shows the user; what is sent is not).

At the end the example prints, for each user, how many pictures its preview
and its remote canvas got and at which size, and where the square was.

Runs from a checkout: it imports bindings/python and, unless AGORAISH_LIBRARY
says otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/join_channel_video.py
"""
import sys
import threading
import time
from typing import Dict, List, Optional, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import APP_ID, ExampleUser, has_left, is_joined, say, sees_peer

CHANNEL = "join-channel-video"
WIDTH, HEIGHT = 320, 240
VIEW = (320, 180)    # local's view of remote: 16:9
FPS = 15
PUSHED = 45          # three seconds
SETTLE_MS = 500      # after the last push, for the last pictures to be rendered


# ---- one user's events --------------------------------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        # Guarded by `changed`.
        self.first_remote_frame: Optional[Tuple[int, int]] = None

    def on_first_local_video_frame(self, width: int, height: int, elapsed: int) -> None:
        say(self.name, f"on_first_local_video_frame {width}x{height}, {elapsed} ms")

    def on_local_video_state_changed(self, state: int, error: int) -> None:
        say(self.name, f"on_local_video_state_changed {_name(state)}, {_name(error)}")

    def on_first_remote_video_frame(self, uid: int, width: int, height: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_video_frame uid {uid}, {width}x{height}, {elapsed} ms")
        with self.changed:
            self.first_remote_frame = (width, height)
            self.changed.notify_all()

    def on_remote_video_state_changed(self, uid: int, state: int, reason: int, elapsed: int) -> None:
        say(self.name, f"on_remote_video_state_changed uid {uid}, {_name(state)}, {_name(reason)}")


def _name(value: int) -> str:
    return getattr(value, "name", str(value))


# ---- canvases ------------------------------------------------------------------------


class Canvas:
    """A canvas: counts pictures by size and finds the bright square in the
    last one (its centre column, as a fraction of the width)."""

    def __init__(self, who: str, what: str) -> None:
        self.who, self.what = who, what
        self.lock = threading.Lock()
        # Guarded by `lock`.
        self.sizes: Dict[Tuple[int, int], int] = {}
        self.uids = set()
        self.square_at = -1.0

    def __call__(self, frame: agoraish.VideoFrame) -> None:
        # The planes are valid during this call only: read what is needed now.
        y, stride, w, h = frame.y, frame.y_stride, frame.width, frame.height
        bright = [x for r in range(0, h, 4) for x, value in enumerate(y[r * stride:r * stride + w]) if value > 200]
        with self.lock:
            if not self.sizes:
                say(self.who, f"{self.what}: first picture {w}x{h} of uid {frame.uid}")
            self.sizes[(w, h)] = self.sizes.get((w, h), 0) + 1
            self.uids.add(frame.uid)
            self.square_at = (sum(bright) / len(bright)) / w if bright else -1.0

    def report(self) -> Tuple[Dict[Tuple[int, int], int], set, float]:
        with self.lock:
            sizes, uids, square = dict(self.sizes), set(self.uids), self.square_at
        text = ", ".join(f"{n} of {w}x{h}" for (w, h), n in sorted(sizes.items())) or "no pictures"
        side = "left" if 0 <= square < 0.5 else "right" if square >= 0.5 else "nowhere"
        say(self.who, f"{self.what}: {text}, uids {sorted(uids)}; the square on the {side}")
        return sizes, uids, square


# ---- the users' "cameras" -------------------------------------------------------------


def draw_picture(n: int) -> Tuple[bytes, bytes, bytes]:
    """Picture `n`: grey (luma 90), a bright 40x40 square in the left half moving down."""
    top = 10 + (n * 4) % (HEIGHT - 60)
    dark = bytes([90]) * WIDTH
    lit = bytes([90]) * 60 + bytes([235]) * 40 + bytes([90]) * (WIDTH - 100)
    luma = b"".join(lit if top <= r < top + 40 else dark for r in range(HEIGHT))
    chroma = bytes([128]) * ((WIDTH // 2) * (HEIGHT // 2))
    return luma, chroma, chroma


def camera(name: str, engine: agoraish.RtcEngine, refused: List[int]) -> threading.Thread:
    """A thread that pushes PUSHED pictures at FPS, in real time."""

    def run() -> None:
        start = time.monotonic()
        for n in range(PUSHED):
            try:
                engine.push_external_video_frame(WIDTH, HEIGHT, *draw_picture(n), timestamp=n * 1000 // FPS)
            except agoraish.AgoraishError as error:
                if not refused:
                    say(name, f"push_external_video_frame({n}) = {error.code}")
                refused.append(n)
            delay = start + (n + 1) / FPS - time.monotonic()
            if delay > 0:
                time.sleep(delay)

    return threading.Thread(target=run, name=f"{name}-camera")


# ---- the call ---------------------------------------------------------------------------


def call(engines: Dict[str, agoraish.RtcEngine], users: Dict[str, User]) -> bool:
    previews = {name: Canvas(name, "preview") for name in users}
    remotes = {name: Canvas(name, "remote canvas") for name in users}
    for name, engine in engines.items():
        engine.disable_audio()  # a video-only call: no microphone, no speaker
        engine.enable_video()
        engine.set_video_encoder_configuration(WIDTH, HEIGHT, frame_rate=FPS)
        engine.set_external_video_source(True)
        # The preview: mirrored by default (VideoMirrorMode.AUTO), as a mirror shows the user.
        engine.setup_local_video(previews[name])
        engine.start_preview()
        say(name, "enable_video, setup_local_video, start_preview")

    for name, engine in engines.items():
        engine.join_channel(None, CHANNEL)
        if not users[name].wait_until(is_joined, "join"):
            return False
    if not all(user.wait_until(sees_peer, "remote user") for user in users.values()):
        return False

    # Each user renders the other: local in a 16:9 view, letterboxed; remote at the picture's size.
    engines["local"].setup_remote_video(users["local"].peer, remotes["local"], render_mode=agoraish.RenderMode.FIT,
                                        view_width=VIEW[0], view_height=VIEW[1])
    say("local", f"setup_remote_video(uid {users['local'].peer}, view {VIEW[0]}x{VIEW[1]}, FIT)")
    engines["remote"].setup_remote_video(users["remote"].peer, remotes["remote"])
    say("remote", f"setup_remote_video(uid {users['remote'].peer})")

    refused: Dict[str, List[int]] = {name: [] for name in users}
    cameras = [camera(name, engine, refused[name]) for name, engine in engines.items()]
    say("both", f"pushing {PUSHED} pictures of {WIDTH}x{HEIGHT} at {FPS} fps")
    for thread in cameras:
        thread.start()
    for thread in cameras:
        thread.join()
    time.sleep(SETTLE_MS / 1000)

    for name, engine in engines.items():
        engine.setup_remote_video(users[name].peer, None)  # waits for a picture being rendered
    for name, engine in engines.items():
        engine.leave_channel()
        if not users[name].wait_until(has_left, "leave"):
            return False
        engine.stop_preview()
        engine.setup_local_video(None)

    ok = not refused["local"] and not refused["remote"]
    for name in users:
        sizes, uids, square = previews[name].report()
        # The square is drawn in the left half: the mirrored preview shows it on the right.
        ok = ok and set(sizes) == {(WIDTH, HEIGHT)} and uids == {0} and sum(sizes.values()) >= PUSHED * 3 // 4
        ok = ok and square > 0.5
    for name, size in (("local", VIEW), ("remote", (WIDTH, HEIGHT))):
        sizes, uids, square = remotes[name].report()
        ok = ok and set(sizes) == {size} and sum(sizes.values()) >= PUSHED * 3 // 4 and 0 <= square < 0.5
        ok = ok and users[name].first_remote_frame is not None
    return ok


def main() -> int:
    users = {"local": User("local"), "remote": User("remote")}
    server: Optional[agoraish.ChannelServer] = None
    engines: Dict[str, agoraish.RtcEngine] = {}
    ok = False
    try:
        server = agoraish.ChannelServer().start()
        say("server", server.url)
        for name, user in users.items():
            engines[name] = agoraish.RtcEngine(APP_ID, user, server_url=server.url)
        ok = call(engines, users)
    except agoraish.AgoraishError as error:
        print(f"join_channel_video: {error}", file=sys.stderr)
    finally:
        for engine in engines.values():
            engine.release()
        if server is not None:
            server.release()
    print("done: each user saw itself mirrored and the other as sent" if ok else "the call did not go as expected",
          flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
