#!/usr/bin/env python3
"""simulcast.py — Agora's Simulcast case in Python: a host sends its video at
several sizes at once, and each viewer receives the one it asks for.

    set_channel_profile(LIVE_BROADCASTING) -> set_client_role(BROADCASTER | AUDIENCE)
    host:    enable_video -> set_video_encoder_configuration(640x360)
             -> set_simulcast_config(LAYER_1 480x270, LAYER_2 320x180, LOW 160x90)
             -> join_channel -> push_external_video_frame at 15 fps
    viewers: enable_video -> join_channel -> on_user_joined(host) -> setup_remote_video(host, sink)
             -> set_remote_video_stream_type(host, LAYER_1 | LAYER_2 | LOW)
    viewer3: set_remote_video_stream_type(host, LAYER_1)   (a switch, mid-show)
    -> leave_channel -> release

"host" pushes 640x360 pictures at 15 fps through an external source (there
is no camera here). Its SimulcastConfig adds three streams besides the high
one, each the same picture fitted into its box at its frame rate:
StreamLayerIndex.LAYER_1 480x270, LAYER_2 320x180 and LOW 160x90, all at 15
fps. "viewer1", "viewer2" and "viewer3" join as audience, render the host
through a sink and ask for stream types 4 (VideoStreamType.LAYER_1), 5
(LAYER_2) and 1 (LOW); the channel server forwards each the stream it asked
for, switching at that stream's next keyframe. The example prints the size
each viewer settles on (ten pictures in a row of one size) and checks it:
480, 320 and 160 wide. Then viewer3 asks for LAYER_1 and the example waits
until its pictures are 480 wide.

The Python version of examples/c/simulcast.c. Runs from a checkout: it
imports bindings/python and, unless AGORAISH_LIBRARY says otherwise, uses
the checkout's dist/lib (`make dist`):

    python3 examples/python/simulcast.py
"""
import sys
import time
from typing import List, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import Camera, ExampleUser, has_left, is_joined, run_call, say, sees_peer

CHANNEL = "simulcast"
HOST_UID = 100
WIDTH, HEIGHT = 640, 360
FPS = 15
SETTLED = 10  # pictures in a row of one size: the stream a viewer receives

Size = Tuple[int, int]
T = agoraish.VideoStreamType
L = agoraish.StreamLayerIndex
#: The host's streams besides the high one: index -> the box its picture is fitted into.
LAYERS = {L.LAYER_1: (480, 270), L.LAYER_2: (320, 180), L.LOW: (160, 90)}
#: What each viewer asks for, and the size of the host's stream of that type.
ASKED: List[Tuple[str, T, Size]] = [
    ("viewer1", T.LAYER_1, (480, 270)),
    ("viewer2", T.LAYER_2, (320, 180)),
    ("viewer3", T.LOW, (160, 90)),
]
SWITCH: Tuple[T, Size] = (T.LAYER_1, (480, 270))  # viewer3's second choice


# ---- a viewer: its events and its view of the host -----------------------------------------


class Viewer(ExampleUser):
    """A viewer's events, and the pictures of the host its sink renders."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        # Guarded by `changed`.
        self.size: Size = (0, 0)  # the last picture's
        self.in_a_row = 0         # pictures of that size in a row

    def on_video_size_changed(self, uid: int, width: int, height: int, rotation: int) -> None:
        say(self.name, f"on_video_size_changed uid {uid}: {width}x{height}")

    def render(self, frame: agoraish.VideoFrame) -> None:
        """The sink of the host's pictures, on the engine's video thread."""
        size = (frame.width, frame.height)
        with self.changed:
            self.in_a_row = self.in_a_row + 1 if size == self.size else 1
            self.size = size
            self.changed.notify_all()

    def received(self) -> Size:
        with self.changed:
            return self.size

    def ask_for(self, engine: agoraish.RtcEngine, stream_type: T, size: Size) -> Tuple[bool, Size]:
        """Asks for `stream_type` and waits until SETTLED pictures in a row are
        `size`; returns whether they came, and the size received before."""
        was = self.received()
        engine.set_remote_video_stream_type(HOST_UID, stream_type)
        say(self.name, f"set_remote_video_stream_type({HOST_UID}, {int(stream_type)} {stream_type.name})")
        ok = self.wait_until(lambda v: v.in_a_row >= SETTLED and v.size == size, f"pictures of {size[0]}x{size[1]}")
        return ok, was


# ---- the host's "camera" --------------------------------------------------------------------


def draw_picture(n: int) -> Tuple[bytes, bytes, bytes]:
    """Picture `n`: a luma ramp that moves 8 pixels per picture, over grey chroma."""
    ramp = bytes(40 + (x * 2) % 180 for x in range(2 * WIDTH))
    shift = (8 * n) % WIDTH
    luma = ramp[shift:shift + WIDTH] * HEIGHT
    grey = bytes([128]) * (WIDTH * HEIGHT // 4)
    return luma, grey, grey


# ---- the show ---------------------------------------------------------------------------------


def call(engines: List[agoraish.RtcEngine], host: ExampleUser, viewers: List[Viewer]) -> bool:
    host_engine, viewer_engines = engines[0], engines[1:]
    for engine, role in [(host_engine, agoraish.ClientRole.BROADCASTER)] + [
            (e, agoraish.ClientRole.AUDIENCE) for e in viewer_engines]:
        engine.set_channel_profile(agoraish.ChannelProfile.LIVE_BROADCASTING)
        engine.set_client_role(role)
        engine.disable_audio()  # a video-only show
        engine.enable_video()

    # The host: 640x360 at 15 fps, and three streams besides.
    host_engine.set_video_encoder_configuration(WIDTH, HEIGHT, frame_rate=FPS)
    host_engine.set_external_video_source(True)
    config = agoraish.SimulcastConfig()
    for index, (width, height) in LAYERS.items():
        config.configs[index] = agoraish.StreamLayerConfig(width, height, FPS, True)
    host_engine.set_simulcast_config(config)
    say("host", f"set_simulcast_config({', '.join(f'{i.name} {w}x{h}' for i, (w, h) in LAYERS.items())}, {FPS} fps)")
    host_engine.join_channel(None, CHANNEL, uid=HOST_UID)
    if not host.wait_until(is_joined, "join"):
        return False
    camera = Camera(host_engine, WIDTH, HEIGHT, FPS, [draw_picture(n) for n in range(FPS)])
    camera.thread.start()
    try:
        # The viewers: join, watch the host, and ask each for its stream.
        for engine, viewer in zip(viewer_engines, viewers):
            engine.join_channel(None, CHANNEL)
            if not (viewer.wait_until(is_joined, "join") and viewer.wait_until(sees_peer, "host")):
                return False
            engine.setup_remote_video(HOST_UID, viewer.render)
            say(viewer.name, f"setup_remote_video({HOST_UID})")
        ok = True
        for engine, viewer, (_, stream_type, size) in zip(viewer_engines, viewers, ASKED):
            got, _ = viewer.ask_for(engine, stream_type, size)
            width, height = viewer.received()
            say(viewer.name, f"asked for {int(stream_type)} ({stream_type.name}), receives {width}x{height}")
            ok = ok and got

        # viewer3 changes its mind: LAYER_1 instead of the low stream.
        if ok:
            stream_type, size = SWITCH
            asked_at = time.monotonic()
            ok, was = viewers[-1].ask_for(viewer_engines[-1], stream_type, size)
            width, height = viewers[-1].received()
            say(viewers[-1].name, f"switched to {int(stream_type)} ({stream_type.name}), receives {width}x{height} "
                                  f"(was {was[0]}x{was[1]}) {time.monotonic() - asked_at:.2f} s after asking")
    finally:
        camera.stopping.set()
        camera.thread.join()

    # The show ends: the viewers leave, then the host.
    for engine, user in [*zip(viewer_engines, viewers), (host_engine, host)]:
        engine.leave_channel()
        ok = user.wait_until(has_left, "leave") and ok
    return ok and camera.refused == 0


def main() -> int:
    host = ExampleUser("host")
    viewers = [Viewer(name) for name, _, _ in ASKED]
    return run_call("simulcast", [host, *viewers], lambda engines: call(engines, host, viewers),
                    "done: each viewer received the stream it asked for, and viewer3 its new one",
                    "the show did not go as expected")


if __name__ == "__main__":
    sys.exit(main())
