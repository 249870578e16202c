#!/usr/bin/env python3
"""live_streaming.py — Agora's LiveStreaming case in Python: a host broadcasts
video in a live channel, with a low stream besides; an audience member
watches, then switches to the low stream, then joins the host on stage.

    set_channel_profile(LIVE_BROADCASTING) -> set_client_role(BROADCASTER | AUDIENCE)
    host:     enable_video -> enable_dual_stream_mode(True) -> setup_local_video
              -> start_preview -> join_channel -> pictures
    audience: enable_video -> join_channel -> on_user_joined(host)
              -> setup_remote_video(host, sink) -> set_remote_video_stream_type(host, LOW)
              -> set_client_role(BROADCASTER) -> on_client_role_changed
    -> leave_channel -> release

"host" pushes 640x360 pictures at 15 fps through an external source (there
is no camera here) and previews them. With dual stream on, it also sends a
low stream: the picture fitted in 320 x 180 at half the frame rate. The
channel server forwards one of the two to each subscriber. "audience", a
second engine in the same process, watches the high stream (640x360) first,
then asks for the low one and gets 320x180 pictures from the host's next low
keyframe on (the server asks the host for one). The host does not see the
audience: in live broadcasting only broadcasters are users to the others;
when the audience member becomes a broadcaster, the host gets on_user_joined.

At the end the example prints how many pictures of each size the audience
rendered, the statistics of what it received (rx_stream_type 0 high, 1 low)
and who saw whom.

Runs from a checkout: it imports bindings/python and, unless AGORAISH_LIBRARY
says otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/live_streaming.py
"""
import sys
import threading
from typing import List, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import WAIT_SECONDS, Camera, ExampleUser, has_left, is_joined, run_call, say

CHANNEL = "live-streaming"
HOST_UID, AUDIENCE_UID = 1001, 2002
WIDTH, HEIGHT = 640, 360
LOW = (320, 180)
FPS = 15
HIGH_PICTURES = 15   # watched in high quality before switching
LOW_PICTURES = 10    # watched in low quality before going on stage
WAIT_SECONDS = 10


# ---- one user's events --------------------------------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    wait_seconds = WAIT_SECONDS

    def __init__(self, name: str) -> None:
        super().__init__(name)
        # Guarded by `changed`.
        self.peers: List[int] = []  # every broadcaster seen joining
        self.role = 0
        self.stats: List[agoraish.RemoteVideoStats] = []

    def on_user_joined(self, uid: int, elapsed: int) -> None:
        say(self.name, f"on_user_joined uid {uid} (a broadcaster), {elapsed} ms")
        with self.changed:
            self.peers.append(uid)
            self.changed.notify_all()

    def on_client_role_changed(self, old_role: int, new_role: int) -> None:
        say(self.name, f"on_client_role_changed {getattr(old_role, 'name', old_role)} -> "
                       f"{getattr(new_role, 'name', new_role)}")
        with self.changed:
            self.role = int(new_role)
            self.changed.notify_all()

    def on_first_remote_video_decoded(self, uid: int, width: int, height: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_video_decoded uid {uid}, {width}x{height}, {elapsed} ms")

    def on_video_size_changed(self, uid: int, width: int, height: int, rotation: int) -> None:
        say(self.name, f"on_video_size_changed uid {uid}, {width}x{height}")

    def on_remote_video_stats(self, stats: agoraish.RemoteVideoStats) -> None:
        say(self.name, f"on_remote_video_stats uid {stats.uid}: {stats.width}x{stats.height}, "
                       f"{stats.received_bitrate} Kbps, {stats.decoder_output_frame_rate} fps, "
                       f"rx_stream_type {stats.rx_stream_type}")
        with self.changed:
            self.stats.append(stats)
            self.changed.notify_all()


class Screen:
    """A canvas that counts pictures by size, in the order the sizes came."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        # Guarded by `changed`.
        self.sizes: List[Tuple[Tuple[int, int], int]] = []  # (size, pictures in a row)

    def __call__(self, frame: agoraish.VideoFrame) -> None:
        size = (frame.width, frame.height)
        with self.changed:
            if self.sizes and self.sizes[-1][0] == size:
                self.sizes[-1] = (size, self.sizes[-1][1] + 1)
            else:
                self.sizes.append((size, 1))
            self.changed.notify_all()

    def count(self, size: Tuple[int, int]) -> int:
        with self.changed:
            return sum(n for s, n in self.sizes if s == size)

    def wait_for(self, size: Tuple[int, int], pictures: int) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: sum(n for s, n in self.sizes if s == size) >= pictures,
                                         timeout=WAIT_SECONDS)


# ---- the host's "camera" ------------------------------------------------------------------


def draw_picture(n: int) -> Tuple[bytes, bytes, bytes]:
    """Picture `n`: a luma ramp that moves 8 pixels per picture, over blue-ish chroma."""
    ramp = bytes(40 + (x * 2) % 180 for x in range(2 * WIDTH))
    shift = (8 * n) % WIDTH
    luma = ramp[shift:shift + WIDTH] * HEIGHT
    u, v = bytes([150]) * (WIDTH * HEIGHT // 4), bytes([110]) * (WIDTH * HEIGHT // 4)
    return luma, u, v


# ---- the call ---------------------------------------------------------------------------


def sees_audience(u: User) -> bool:
    return AUDIENCE_UID in u.peers


def sees_host(u: User) -> bool:
    return HOST_UID in u.peers


def is_broadcaster(u: User) -> bool:
    return u.role == agoraish.ClientRole.BROADCASTER


def call(host_engine: agoraish.RtcEngine, audience_engine: agoraish.RtcEngine, host: User, audience: User) -> bool:
    for engine, role in ((host_engine, agoraish.ClientRole.BROADCASTER),
                         (audience_engine, agoraish.ClientRole.AUDIENCE)):
        engine.set_channel_profile(agoraish.ChannelProfile.LIVE_BROADCASTING)
        engine.set_client_role(role)
        engine.disable_audio()  # a video-only show
        engine.enable_video()

    # The host: 640x360 at 15 fps (Agora's standard bitrate, doubled in live broadcasting), and a low stream.
    host_engine.set_external_video_source(True)
    host_engine.set_video_encoder_configuration(WIDTH, HEIGHT, frame_rate=FPS)
    host_engine.enable_dual_stream_mode(True)
    preview = Screen()
    host_engine.setup_local_video(preview)
    host_engine.start_preview()
    say("host", f"broadcaster: {WIDTH}x{HEIGHT} at {FPS} fps, enable_dual_stream_mode(True), start_preview")
    host_engine.join_channel(None, CHANNEL, uid=HOST_UID)
    if not host.wait_until(is_joined, "join"):
        return False
    camera = Camera(host_engine, WIDTH, HEIGHT, FPS, [draw_picture(n) for n in range(FPS)])
    camera.thread.start()
    try:
        # The audience member: it sees the host, the host does not see it.
        screen = Screen()
        audience_engine.setup_remote_video(HOST_UID, screen)
        audience_engine.join_channel(None, CHANNEL, uid=AUDIENCE_UID)
        if not (audience.wait_until(is_joined, "join") and audience.wait_until(sees_host, "host")):
            return False
        if not screen.wait_for((WIDTH, HEIGHT), HIGH_PICTURES):
            say("audience", f"fewer than {HIGH_PICTURES} pictures of {WIDTH}x{HEIGHT}")
            return False
        say("audience", f"watched {screen.count((WIDTH, HEIGHT))} pictures of {WIDTH}x{HEIGHT}; "
                        "set_remote_video_stream_type(host, LOW)")
        audience_engine.set_remote_video_stream_type(HOST_UID, agoraish.VideoStreamType.LOW)
        if not screen.wait_for(LOW, LOW_PICTURES):
            say("audience", f"fewer than {LOW_PICTURES} pictures of {LOW[0]}x{LOW[1]}")
            return False
        audience.wait_until(lambda u: any(s.rx_stream_type == agoraish.VideoStreamType.LOW for s in u.stats),
                            "statistics of the low stream")
        host_saw_audience = sees_audience(host)

        # On stage: the audience member becomes a broadcaster, and the host sees it.
        say("audience", "set_client_role(BROADCASTER)")
        audience_engine.set_client_role(agoraish.ClientRole.BROADCASTER)
        if not (audience.wait_until(is_broadcaster, "role change") and host.wait_until(sees_audience, "audience")):
            return False
    finally:
        camera.stopping.set()
        camera.thread.join()

    audience_engine.setup_remote_video(HOST_UID, None)
    host_engine.stop_preview()
    host_engine.setup_local_video(None)
    for engine, user in ((audience_engine, audience), (host_engine, host)):
        engine.leave_channel()
        if not user.wait_until(has_left, "leave"):
            return False

    with screen.changed:
        runs = list(screen.sizes)
    say("host", f"pushed {camera.pushed} pictures ({camera.refused} refused), previewed "
                f"{preview.count((WIDTH, HEIGHT))}")
    say("audience", "rendered " + ", then ".join(f"{n} of {w}x{h}" for (w, h), n in runs))
    say("host", "did not see the audience before it went on stage" if not host_saw_audience
        else "saw the audience before it went on stage")
    sizes = [size for size, _ in runs]
    low_stats = [s for s in audience.stats if s.rx_stream_type == agoraish.VideoStreamType.LOW]
    return (camera.refused == 0 and not host_saw_audience and preview.count((WIDTH, HEIGHT)) > 0
            and sizes[:2] == [(WIDTH, HEIGHT), LOW] and sizes[-1] == LOW and bool(low_stats)
            and all((s.width, s.height) == LOW for s in low_stats))


def main() -> int:
    host = User("host")
    audience = User("audience")
    return run_call("live_streaming", [host, audience], lambda engines: call(*engines, host, audience),
                    "done: the audience watched the host's high stream, then its low stream",
                    "the show did not go as expected")


if __name__ == "__main__":
    sys.exit(main())
