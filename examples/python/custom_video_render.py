#!/usr/bin/env python3
"""custom_video_render.py — Agora's CustomVideoRender case in Python: the host
draws what a user sees, instead of a view the SDK draws into.

    enable_video -> join_channel -> on_user_joined
    -> setup_remote_video(uid, sink) -> on_first_remote_video_decoded
    -> the sink gets every decoded picture, on the engine's video thread
    -> setup_remote_video(uid, None) -> leave_channel -> release

"local" renders: its sink gets each decoded picture of the remote user as a
VideoFrame whose I420 planes are memoryviews of the library's own buffers,
valid for the duration of the call, with strides wider than the picture (the
decoder's rows). It copies them row by row, honoring those strides, into
demo-out/custom_video_render.y4m (YUV4MPEG2, which ffplay, mpv or VLC play)
and measures the average luma of each. (`frame.to_bytes()` gives the same
packed I420 in one call.) "remote", a second engine in the same process,
pushes 45 NV12 pictures of 320x240 at 15 fps (three seconds), with padded
rows: stripes and a white square that move, over a background that brightens
from dark to light, so the first and the last pictures differ. At the end the
example prints the count, the size and the average luma of the first and the
last picture, and reads the file back.

The Python version of examples/c/custom_video_render.c. Runs from a checkout:
it imports bindings/python and, unless AGORAISH_LIBRARY says otherwise, uses
the checkout's dist/lib (`make dist`):

    python3 examples/python/custom_video_render.py
"""
import os
import sys
import threading
import time
from typing import BinaryIO, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import ExampleUser, meet, part, run_call, say, sleep_until

CHANNEL = "custom-video-render"
Y4M_PATH = os.path.join("demo-out", "custom_video_render.y4m")
WIDTH, HEIGHT = 320, 240
STRIDE = WIDTH + 32  # bytes per row of both NV12 planes: the picture's 320 and 32 of padding
FPS = 15
PUSHED = 45          # three seconds
SETTLE_MS = 500      # after the last push, for the last pictures to be rendered


# ---- what a picture shows -------------------------------------------------------------


def average(plane: memoryview, stride: int, width: int, height: int) -> float:
    """The average of a plane of `width` x `height` bytes, rows `stride` bytes apart."""
    total = sum(sum(plane[y * stride:y * stride + width]) for y in range(height))
    return total / (width * height) if width > 0 and height > 0 else 0.0


# ---- one user's events, and local's render sink -----------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    def on_first_local_video_frame_published(self, elapsed: int) -> None:
        say(self.name, f"on_first_local_video_frame_published, {elapsed} ms")

    def on_first_remote_video_decoded(self, uid: int, width: int, height: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_video_decoded uid {uid}, {width}x{height}, {elapsed} ms")

    def on_video_size_changed(self, uid: int, width: int, height: int, rotation: int) -> None:
        say(self.name, f"on_video_size_changed uid {uid}, {width}x{height}, rotation {rotation}")


class Y4mWriter:
    """local's render sink, on its engine's video thread: one YUV4MPEG2 frame per
    picture. The frame's planes are only valid during the call."""

    def __init__(self, out: BinaryIO) -> None:
        self.lock = threading.Lock()
        # Guarded by `lock`.
        self.out = out
        self.rendered = 0
        self.width = self.height = 0
        self.other_sizes = 0
        self.first_luma = self.last_luma = 0.0

    def __call__(self, frame: agoraish.VideoFrame) -> None:
        luma = average(frame.y, frame.y_stride, frame.width, frame.height)
        with self.lock:
            if self.rendered == 0:
                self.width, self.height = frame.width, frame.height
                self.first_luma = luma
                say("local", f"first picture: {frame.width}x{frame.height}, strides "
                             f"{frame.y_stride}/{frame.u_stride}/{frame.v_stride}, average luma {luma:.1f}")
                self.out.write(f"YUV4MPEG2 W{frame.width} H{frame.height} F{FPS}:1 Ip A1:1 C420jpeg\n".encode())
            if (frame.width, frame.height) != (self.width, self.height):
                self.other_sizes += 1  # a YUV4MPEG2 file has one size
                return
            chroma_width, chroma_height = (frame.width + 1) // 2, (frame.height + 1) // 2
            self.out.write(b"FRAME\n")
            self.write_plane(frame.y, frame.y_stride, frame.width, frame.height)
            self.write_plane(frame.u, frame.u_stride, chroma_width, chroma_height)
            self.write_plane(frame.v, frame.v_stride, chroma_width, chroma_height)
            self.last_luma = luma
            self.rendered += 1

    def write_plane(self, plane: memoryview, stride: int, width: int, rows: int) -> None:
        """`rows` rows of `width` bytes, `stride` bytes apart: the padding stays out of the file."""
        for r in range(rows):
            self.out.write(plane[r * stride:r * stride + width])


def read_y4m(path: str) -> Tuple[int, int, int, float]:
    """Reads the file back: (frames, width, height, average luma of the first
    frame); frames is -1 when it is not the file that was written."""
    with open(path, "rb") as f:
        header = f.readline().split()
        fields = {field[:1]: field[1:] for field in header[1:]}
        if not header or header[0] != b"YUV4MPEG2" or not fields.get(b"W", b"").isdigit() \
                or not fields.get(b"H", b"").isdigit():
            return -1, 0, 0, 0.0
        width, height = int(fields[b"W"]), int(fields[b"H"])
        body = f.read()
    frame_size = 6 + width * height + 2 * ((width + 1) // 2) * ((height + 1) // 2)
    if width * height == 0 or len(body) % frame_size != 0 or not body.startswith(b"FRAME\n"):
        return -1, width, height, 0.0
    first = memoryview(body)[6:6 + width * height]
    return len(body) // frame_size, width, height, average(first, width, width, height)


# ---- remote's pictures: NV12 with padded rows ---------------------------------------------

PADDING = b"\x5a" * (STRIDE - WIDTH)  # not part of the picture
# Chroma varies from left to right (U) and top to bottom (V); the same in every picture.
UV_PLANE = b"".join(
    bytes(value for x in range(WIDTH // 2) for value in (96 + x * 64 // (WIDTH // 2), 96 + y * 64 // (HEIGHT // 2)))
    + PADDING
    for y in range(HEIGHT // 2))


def draw_picture(n: int) -> bytes:
    """The luma plane of picture `n`: a background from 40 (n = 0) to 190 (the
    last), stripes that move 3 pixels per picture and a white square that moves
    across, with junk in the padding of each row."""
    base = 40 + 150 * n // (PUSHED - 1)
    left, top = 8 + n * (WIDTH - 64) // (PUSHED - 1), HEIGHT // 2 - 24
    row = bytes(base + (12 if (x + 3 * n) % 32 < 16 else -12) for x in range(WIDTH))
    square_row = row[:left] + b"\xeb" * 48 + row[left + 48:]
    return b"".join((square_row if top <= y < top + 48 else row) + PADDING for y in range(HEIGHT))


# ---- the call ---------------------------------------------------------------------------------


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User) -> bool:
    """The case, from the render sink to the checks; True when it went as expected."""
    # A video-only call: no microphone, no speaker.
    local_engine.disable_audio()
    remote_engine.disable_audio()

    # local only watches: video on to decode, nothing pushed.
    local_engine.enable_video()

    # remote sends what it pushes: 320x240 at 15 fps, Agora's standard bitrate.
    remote_engine.set_external_video_source(True)
    remote_engine.enable_video()
    remote_engine.set_video_encoder_configuration(WIDTH, HEIGHT, frame_rate=FPS, bitrate=0)
    say("remote", f"set_video_encoder_configuration({WIDTH}x{HEIGHT}, {FPS} fps, standard bitrate) = 0")

    if not meet(CHANNEL, local_engine, local, remote_engine, remote):
        return False

    # local renders the remote user into the file.
    try:
        os.makedirs("demo-out", exist_ok=True)
        out = open(Y4M_PATH, "wb")
    except OSError as error:
        say("local", f"cannot write {Y4M_PATH}: {error}")
        return False
    with out:
        writer = Y4mWriter(out)
        remote_uid = local.peer
        local_engine.setup_remote_video(remote_uid, writer)
        say("local", f"setup_remote_video(uid {remote_uid}) = 0")
        try:
            # remote's "camera": a picture every 1/15 s, in real time.
            say("remote", f"pushing {PUSHED} NV12 pictures of {WIDTH}x{HEIGHT}, {STRIDE} bytes per row, at {FPS} fps")
            refused = 0
            pushed_first = pushed_last = 0.0
            start = time.monotonic()
            for n in range(PUSHED):
                luma = draw_picture(n)
                if n == 0:
                    pushed_first = average(memoryview(luma), STRIDE, WIDTH, HEIGHT)
                if n == PUSHED - 1:
                    pushed_last = average(memoryview(luma), STRIDE, WIDTH, HEIGHT)
                try:
                    # NV12: the luma plane, then the interleaved U/V plane in `u`.
                    remote_engine.push_external_video_frame(WIDTH, HEIGHT, luma, UV_PLANE,
                                                            format=agoraish.VideoPixelFormat.NV12, y_stride=STRIDE,
                                                            u_stride=STRIDE, timestamp=n * 1000 // FPS)
                except agoraish.AgoraishError as error:
                    if refused == 0:
                        say("remote", f"push_external_video_frame({n}) = {error.code}")
                    refused += 1
                sleep_until(start, (n + 1) * 1000 / FPS)
            sleep_until(start, PUSHED * 1000 / FPS + SETTLE_MS)
        finally:
            # Unbinding waits for a picture being rendered: afterwards the file can be closed.
            local_engine.setup_remote_video(remote_uid, None)

    if not part(local_engine, local, remote_engine, remote):
        return False

    w = writer
    say("remote", f"pushed {PUSHED} pictures ({refused} refused), average luma {pushed_first:.1f} in the first, "
                  f"{pushed_last:.1f} in the last")
    say("local", f"rendered {w.rendered} pictures of {w.width}x{w.height} ({w.other_sizes} of another size, "
                 f"left out)")
    say("local", f"average luma {w.first_luma:.1f} in the first picture, {w.last_luma:.1f} in the last")
    file_frames, file_width, file_height, file_luma = read_y4m(Y4M_PATH)
    if file_frames >= 0:
        say("local", f"{Y4M_PATH}: {file_frames} frames of {file_width}x{file_height}, average luma "
                     f"{file_luma:.1f} in the first")
    else:
        say("local", f"{Y4M_PATH} is not the YUV4MPEG2 file that was written")
    # The first picture may be a few pictures in (it is the first decoded),
    # the last one is the last pushed; both within a few luma steps of theirs.
    return (refused == 0 and w.rendered >= PUSHED * 9 // 10 and (w.width, w.height) == (WIDTH, HEIGHT)
            and pushed_first - 6 < w.first_luma < pushed_first + 20 and pushed_last - 6 < w.last_luma < pushed_last + 6
            and file_frames == w.rendered and (file_width, file_height) == (WIDTH, HEIGHT)
            and file_luma == w.first_luma)


def main() -> int:
    local = User("local")
    remote = User("remote")
    return run_call("custom_video_render", [local, remote], lambda engines: call(*engines, local, remote),
                    f"done: local rendered remote's pictures into {Y4M_PATH}")


if __name__ == "__main__":
    sys.exit(main())
