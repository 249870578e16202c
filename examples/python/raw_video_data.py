#!/usr/bin/env python3
"""raw_video_data.py — Agora's RawVideoData case in Python: a video frame
observer sees the pictures at the three positions of the video path and
changes them.

    register_video_frame_observer(observer) -> join_channel
    -> on_capture_video_frame (each local picture, as pushed)
    -> on_pre_encode_video_frame (fitted to the encoder configuration)
    -> on_render_video_frame (each remote picture, before its canvas)
    -> register_video_frame_observer(None) -> leave_channel -> release

"local" sends: it pushes 640x360 colour pictures (hue bands that move) at
15 fps, with an encoder configured for 320x180. Its observer turns each
captured picture grey (U and V set to 128: a "black and white" filter) and
looks at the pictures about to be encoded, which come at 320x180. "remote", a
second engine in the same process, observes what it renders: it draws a white
frame, 4 pixels wide, around each of local's pictures, and returns False for
one picture in ten (that picture is not rendered). Its canvas checks what
arrives: grey, framed, 320x180.

Each callback gets an ``agoraish.VideoFrame`` whose planes are writable
memoryviews over the engine's own buffers, valid only during the callback;
what the callback writes is what is sent (capture, pre-encode) or rendered
(render). With numpy installed the callbacks write through ``frame.numpy()``
(uint8 arrays over the same memory); without it, through the memoryviews in
plain Python.

Runs from a checkout: it imports bindings/python and, unless AGORAISH_LIBRARY
says otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/raw_video_data.py
"""
import sys
import threading
import time
from typing import Dict, List, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import ExampleUser, has_left, is_joined, run_call, say, sees_peer

try:
    import numpy
except ImportError:  # the observers then write through the memoryviews in plain Python
    numpy = None

CHANNEL = "raw-video-data"
LOCAL_UID, REMOTE_UID = 1001, 2002
WIDTH, HEIGHT = 640, 360    # pushed
SENT = (320, 180)           # the encoder configuration
FPS = 15
PUSHED = 45                 # three seconds
BORDER = 4
SETTLE_MS = 500


# ---- one user's events --------------------------------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    def on_first_remote_video_decoded(self, uid: int, width: int, height: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_video_decoded uid {uid}, {width}x{height}, {elapsed} ms")


# ---- the observers ------------------------------------------------------------------------


def grey_out(frame: agoraish.VideoFrame) -> None:
    """U and V set to 128: the picture keeps its luma and loses its colour."""
    if numpy is not None:
        _, u, v = frame.numpy()
        u[:] = 128
        v[:] = 128
        return
    rows, cols = (frame.height + 1) // 2, (frame.width + 1) // 2
    grey = b"\x80" * cols
    for plane, stride in ((frame.u, frame.u_stride), (frame.v, frame.v_stride)):
        for r in range(rows):
            plane[r * stride:r * stride + cols] = grey


def draw_border(frame: agoraish.VideoFrame) -> None:
    """A white frame (luma 235), BORDER pixels wide, around the picture."""
    w, h = frame.width, frame.height
    if numpy is not None:
        y, _, _ = frame.numpy()
        y[:BORDER, :] = y[h - BORDER:, :] = 235
        y[:, :BORDER] = y[:, w - BORDER:] = 235
        return
    plane, stride = frame.y, frame.y_stride
    white = b"\xeb" * w
    for r in range(h):
        if r < BORDER or r >= h - BORDER:
            plane[r * stride:r * stride + w] = white
        else:
            plane[r * stride:r * stride + BORDER] = white[:BORDER]
            plane[r * stride + w - BORDER:r * stride + w] = white[:BORDER]


class LocalObserver(agoraish.VideoFrameObserver):
    """local's observer: greys captured pictures, watches the ones about to be encoded.
    Both callbacks run on the thread that pushes ("local-camera")."""

    def __init__(self) -> None:
        self.captured: Dict[Tuple[int, int], int] = {}
        self.pre_encode: Dict[Tuple[int, int], int] = {}
        self.pre_encode_chroma = -1  # the U value in the middle of the last picture to encode
        self.threads = set()

    def on_capture_video_frame(self, frame: agoraish.VideoFrame) -> bool:
        size = (frame.width, frame.height)
        self.captured[size] = self.captured.get(size, 0) + 1
        self.threads.add(threading.current_thread().name)
        grey_out(frame)
        return True

    def on_pre_encode_video_frame(self, frame: agoraish.VideoFrame) -> bool:
        size = (frame.width, frame.height)
        self.pre_encode[size] = self.pre_encode.get(size, 0) + 1
        middle = (frame.height // 4) * frame.u_stride + frame.width // 4
        self.pre_encode_chroma = frame.u[middle]
        return True


class RemoteObserver(agoraish.VideoFrameObserver):
    """remote's observer: frames each rendered picture, drops one in ten.
    It runs on remote's video thread, before the canvas."""

    def __init__(self) -> None:
        self.calls = 0
        self.dropped = 0
        self.uids = set()

    def on_render_video_frame(self, uid: int, frame: agoraish.VideoFrame) -> bool:
        self.calls += 1
        self.uids.add(uid)
        if self.calls % 10 == 0:
            self.dropped += 1
            return False  # not rendered
        draw_border(frame)
        return True


class Canvas:
    """remote's canvas: checks that each picture is grey and framed."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        # Guarded by `lock`.
        self.rendered = 0
        self.sizes = set()
        self.grey = 0
        self.framed = 0

    def __call__(self, frame: agoraish.VideoFrame) -> None:
        w, h = frame.width, frame.height
        y, u, v = frame.planes
        row = (h // 2) * frame.y_stride
        framed = min(y[row:row + BORDER]) > 200 and min(y[row + w - BORDER:row + w]) > 200 and min(
            y[(h // 2) * frame.y_stride + w // 2 - 8:(h // 2) * frame.y_stride + w // 2 + 8]) < 200
        chroma = [plane[r * stride + c] for plane, stride in ((u, frame.u_stride), (v, frame.v_stride))
                  for r in range(2, h // 2 - 2, 8) for c in range(2, w // 2 - 2, 8)]
        with self.lock:
            self.rendered += 1
            self.sizes.add((w, h))
            self.grey += all(abs(value - 128) <= 6 for value in chroma)
            self.framed += framed


# ---- local's "camera": colour pictures ----------------------------------------------------

# Hue bands: U and V go round a circle from left to right.
_U_ROW = bytes(128 + int(100 * ((x % 80) - 40) / 40) for x in range(2 * WIDTH))
_V_ROW = bytes(128 + int(100 * (((x + 40) % 80) - 40) / 40) for x in range(2 * WIDTH))
_LUMA = bytes(60 + (x * 3) % 140 for x in range(WIDTH)) * HEIGHT


def draw_picture(n: int) -> Tuple[bytes, bytes, bytes]:
    """Picture `n`: a luma ramp and colour bands that move 4 chroma columns per picture."""
    shift = (4 * n) % 80
    u = _U_ROW[shift:shift + WIDTH // 2] * (HEIGHT // 2)
    v = _V_ROW[shift:shift + WIDTH // 2] * (HEIGHT // 2)
    return _LUMA, u, v


# ---- the call ---------------------------------------------------------------------------


def push_pictures(engine: agoraish.RtcEngine) -> int:
    """Pushes PUSHED pictures in real time on this thread; returns how many were refused."""
    refused = 0
    start = time.monotonic()
    for n in range(PUSHED):
        try:
            engine.push_external_video_frame(WIDTH, HEIGHT, *draw_picture(n), timestamp=n * 1000 // FPS)
        except agoraish.AgoraishError as error:
            if refused == 0:
                say("local", f"push_external_video_frame({n}) = {error.code}")
            refused += 1
        delay = start + (n + 1) / FPS - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    return refused


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User) -> bool:
    for engine in (local_engine, remote_engine):
        engine.disable_audio()  # a video-only call
        engine.enable_video()
    local_engine.set_external_video_source(True)
    local_engine.set_video_encoder_configuration(SENT[0], SENT[1], frame_rate=FPS)

    local_observer, remote_observer, canvas = LocalObserver(), RemoteObserver(), Canvas()
    local_engine.register_video_frame_observer(local_observer)
    say("local", "register_video_frame_observer(capture: grey, pre-encode: watch)")
    remote_engine.register_video_frame_observer(remote_observer)
    say("remote", "register_video_frame_observer(render: frame, drop one in ten)")
    remote_engine.setup_remote_video(LOCAL_UID, canvas)

    local_engine.join_channel(None, CHANNEL, uid=LOCAL_UID)
    remote_engine.join_channel(None, CHANNEL, uid=REMOTE_UID)
    if not (local.wait_until(is_joined, "join") and remote.wait_until(is_joined, "join")
            and remote.wait_until(sees_peer, "remote user")):
        return False

    say("local", f"pushing {PUSHED} colour pictures of {WIDTH}x{HEIGHT} at {FPS} fps "
                 f"({'numpy' if numpy is not None else 'plain Python'} in the observers)")
    holder: List[int] = []
    camera = threading.Thread(target=lambda: holder.append(push_pictures(local_engine)), name="local-camera")
    camera.start()
    camera.join()
    time.sleep(SETTLE_MS / 1000)

    # Removing an observer waits for a render callback in progress.
    remote_engine.register_video_frame_observer(None)
    local_engine.register_video_frame_observer(None)
    remote_engine.setup_remote_video(LOCAL_UID, None)
    for engine, user in ((remote_engine, remote), (local_engine, local)):
        engine.leave_channel()
        if not user.wait_until(has_left, "leave"):
            return False

    lo, ro, c = local_observer, remote_observer, canvas
    say("local", f"on_capture_video_frame: {sum(lo.captured.values())} pictures of "
                 f"{', '.join(f'{w}x{h}' for w, h in lo.captured)} on {sorted(lo.threads)}")
    say("local", f"on_pre_encode_video_frame: {sum(lo.pre_encode.values())} pictures of "
                 f"{', '.join(f'{w}x{h}' for w, h in lo.pre_encode)}, U in the middle {lo.pre_encode_chroma}")
    say("remote", f"on_render_video_frame: {ro.calls} pictures of uids {sorted(ro.uids)}, {ro.dropped} dropped")
    say("remote", f"canvas: {c.rendered} pictures of {', '.join(f'{w}x{h}' for w, h in sorted(c.sizes))}, "
                  f"{c.grey} grey, {c.framed} framed")
    frames_ok = ro.calls >= PUSHED * 3 // 4 and c.rendered == ro.calls - ro.dropped and ro.uids == {LOCAL_UID}
    return (holder == [0] and lo.captured == {(WIDTH, HEIGHT): PUSHED} and set(lo.pre_encode) == {SENT}
            and abs(lo.pre_encode_chroma - 128) <= 2 and lo.threads == {"local-camera"} and frames_ok
            and c.sizes == {SENT} and c.grey == c.rendered and c.framed == c.rendered)


def main() -> int:
    local = User("local")
    remote = User("remote")
    return run_call("raw_video_data", [local, remote], lambda engines: call(*engines, local, remote),
                    "done: remote rendered local's pictures grey and framed, as the observers made them")


if __name__ == "__main__":
    sys.exit(main())
