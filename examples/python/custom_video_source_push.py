#!/usr/bin/env python3
"""custom_video_source_push.py — Agora's CustomVideoSourcePush case in Python:
the host supplies the pictures a user sends, instead of a camera.

    set_external_video_source(True) -> enable_video -> set_video_encoder_configuration
    -> join_channel -> push_external_video_frame at 15 fps, in real time
    -> on_first_local_video_frame_published -> leave_channel -> release

"local" pushes 45 generated RGBA pictures of 320x240 (three seconds): a moving
colour gradient with the picture's number drawn on it in seven-segment digits.
Each row of the buffer is 64 bytes longer than the picture (y_stride 1344
instead of 1280) and the padding holds junk, as the rows of a camera or a
decoder often do; the engine converts the pixels to I420, encodes them with
VP8 and sends them. "remote", a second engine in the same process, renders
them through a sink bound with setup_remote_video, reads the number back out
of each decoded picture, and the example checks that the pictures arrived, at
their size, with the numbers in order. Audio is off on both engines: this is a
video-only call.

The Python version of examples/c/custom_video_source_push.c. Runs from a
checkout: it imports bindings/python and, unless AGORAISH_LIBRARY says
otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/custom_video_source_push.py
"""
import sys
import threading
import time
from typing import List

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import ExampleUser, meet, part, run_call, say, sleep_until

CHANNEL = "custom-video-source-push"
WIDTH, HEIGHT = 320, 240
STRIDE = WIDTH * 4 + 64  # bytes per row: the picture's 1280 and 64 of padding
FPS = 15
PUSHED = 45              # three seconds
SETTLE_MS = 500          # after the last push, for the last pictures to be rendered


# ---- the number in a picture: three seven-segment digits --------------------------

# Segments a..g of a 32x56 digit cell, as x0, y0, x1, y1 (8 pixels thick):
#
#     aa
#    f  b
#     gg
#    e  c
#     dd
SEGMENTS = ((8, 0, 24, 8), (24, 8, 32, 24), (24, 32, 32, 48), (8, 48, 24, 56), (0, 32, 8, 48), (0, 8, 8, 24),
            (8, 24, 24, 32))
# The segments lit for 0..9 (bit 0 is a).
DIGIT_SEGMENTS = (0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x7D, 0x07, 0x7F, 0x6F)
DIGITS, CELL_W, CELL_H, CELL_GAP = 3, 32, 56, 12
BOX_X, BOX_Y = 16, 16  # the black box the digits are drawn on, 8 pixels of margin around them
BOX_W = 8 + DIGITS * CELL_W + (DIGITS - 1) * CELL_GAP + 8
BOX_H = 8 + CELL_H + 8


def cell_x(digit: int) -> int:
    return BOX_X + 8 + digit * (CELL_W + CELL_GAP)


def gradient_rows() -> List[bytes]:
    """Per row, the RGBA pixels of a red ramp 256 pixels longer than the picture
    (R = x % 256, G from 0 at the top to 255 at the bottom, B = 160): picture n
    starts 4 * n pixels into it, so the gradient moves."""
    length = WIDTH + 256
    red = bytes(x & 0xFF for x in range(length))
    rows = []
    for y in range(HEIGHT):
        row = bytearray(4 * length)
        row[0::4] = red
        row[1::4] = bytes([y * 255 // (HEIGHT - 1)]) * length
        row[2::4] = bytes([160]) * length
        row[3::4] = b"\xff" * length
        rows.append(bytes(row))
    return rows


GRADIENT = gradient_rows()
PADDING = b"\xa5" * (STRIDE - WIDTH * 4)  # not part of the picture


def fill(rgba: bytearray, x0: int, y0: int, x1: int, y1: int, level: int) -> None:
    """A grey rectangle (R = G = B = `level`)."""
    pixels = bytes([level, level, level, 255]) * (x1 - x0)
    for y in range(y0, y1):
        rgba[y * STRIDE + 4 * x0:y * STRIDE + 4 * x1] = pixels


def draw_picture(n: int) -> bytearray:
    """Picture `n`: a gradient that moves 4 pixels per picture, the number in
    white on black, and junk in the padding of every row."""
    shift = 4 * (4 * n % 256)
    rgba = bytearray(b"".join(row[shift:shift + 4 * WIDTH] + PADDING for row in GRADIENT))
    fill(rgba, BOX_X, BOX_Y, BOX_X + BOX_W, BOX_Y + BOX_H, 0)
    for d, digit in enumerate(f"{n % 1000:03d}"):
        for s, (x0, y0, x1, y1) in enumerate(SEGMENTS):
            if DIGIT_SEGMENTS[int(digit)] >> s & 1:
                fill(rgba, cell_x(d) + x0, BOX_Y + 8 + y0, cell_x(d) + x1, BOX_Y + 8 + y1, 255)
    return rgba


def read_number(luma: memoryview, stride: int) -> int:
    """The number read from a decoded luma plane (`stride` bytes per row), or -1
    when a digit is not one: each segment is lit when the middle of it is bright."""
    number = 0
    for d in range(DIGITS):
        lit = 0
        for s, (x0, y0, x1, y1) in enumerate(SEGMENTS):
            first, last = cell_x(d) + x0 + 2, cell_x(d) + x1 - 2
            rows = range(BOX_Y + 8 + y0 + 2, BOX_Y + 8 + y1 - 2)
            total = sum(sum(luma[y * stride + first:y * stride + last]) for y in rows)
            if total > 128 * len(rows) * (last - first):
                lit |= 1 << s
        if lit not in DIGIT_SEGMENTS:
            return -1
        number = number * 10 + DIGIT_SEGMENTS.index(lit)
    return number


# ---- one user's events, and remote's render sink -------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    def on_first_local_video_frame_published(self, elapsed: int) -> None:
        say(self.name, f"on_first_local_video_frame_published, {elapsed} ms")

    def on_first_remote_video_decoded(self, uid: int, width: int, height: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_video_decoded uid {uid}, {width}x{height}, {elapsed} ms")

    def on_video_size_changed(self, uid: int, width: int, height: int, rotation: int) -> None:
        say(self.name, f"on_video_size_changed uid {uid}, {width}x{height}, rotation {rotation}")


class NumberReader:
    """remote's render sink, on its engine's video thread: reads the number out of
    every picture. The frame's planes are only valid during the call."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        # Guarded by `lock`.
        self.rendered = 0
        self.width = self.height = 0
        self.other_sizes = 0
        self.unreadable = 0
        self.out_of_order = 0
        self.numbers: List[int] = []

    def __call__(self, frame: agoraish.VideoFrame) -> None:
        readable = frame.width == WIDTH and frame.height == HEIGHT
        number = read_number(frame.y, frame.y_stride) if readable else -1
        with self.lock:
            if self.rendered == 0:
                self.width, self.height = frame.width, frame.height
                say("remote", f"first picture: {frame.width}x{frame.height}, strides "
                              f"{frame.y_stride}/{frame.u_stride}/{frame.v_stride}, number {number}")
            elif (frame.width, frame.height) != (self.width, self.height):
                self.other_sizes += 1
            if number < 0:
                self.unreadable += 1
            else:
                if self.numbers and number <= self.numbers[-1]:
                    self.out_of_order += 1
                self.numbers.append(number)
            self.rendered += 1


# ---- the call ---------------------------------------------------------------------------


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User) -> bool:
    """The case, from the external source to the checks; True when it went as expected."""
    # A video-only call: no microphone, no speaker.
    local_engine.disable_audio()
    remote_engine.disable_audio()

    # local sends what it pushes: 320x240 at 15 fps, Agora's standard bitrate.
    local_engine.set_external_video_source(True)
    local_engine.enable_video()
    local_engine.set_video_encoder_configuration(WIDTH, HEIGHT, frame_rate=FPS, bitrate=0)
    say("local", f"set_video_encoder_configuration({WIDTH}x{HEIGHT}, {FPS} fps, standard bitrate) = 0")

    # remote decodes what it receives.
    remote_engine.enable_video()

    if not meet(CHANNEL, local_engine, local, remote_engine, remote):
        return False

    # remote renders local's pictures.
    reader = NumberReader()
    local_uid = remote.peer
    remote_engine.setup_remote_video(local_uid, reader)
    say("remote", f"setup_remote_video(uid {local_uid}) = 0")

    # local's "camera": a picture every 1/15 s, in real time.
    say("local", f"pushing {PUSHED} RGBA pictures of {WIDTH}x{HEIGHT}, {STRIDE} bytes per row, at {FPS} fps")
    refused = 0
    start = time.monotonic()
    for n in range(PUSHED):
        try:
            local_engine.push_external_video_frame(WIDTH, HEIGHT, draw_picture(n),
                                                   format=agoraish.VideoPixelFormat.RGBA, y_stride=STRIDE,
                                                   timestamp=n * 1000 // FPS)
        except agoraish.AgoraishError as error:
            if refused == 0:
                say("local", f"push_external_video_frame({n}) = {error.code}")
            refused += 1
        sleep_until(start, (n + 1) * 1000 / FPS)
    sleep_until(start, PUSHED * 1000 / FPS + SETTLE_MS)

    # Unbinding waits for a picture being rendered: afterwards the counts stay put.
    remote_engine.setup_remote_video(local_uid, None)

    if not part(local_engine, local, remote_engine, remote):
        return False

    # What arrived: how many, at what size, and the numbers in them.
    r = reader
    seen = set(r.numbers)
    missing = [str(n) for n in range(PUSHED) if n not in seen]
    say("local", f"pushed {PUSHED} pictures, {refused} refused")
    say("remote", f"rendered {r.rendered} pictures of {r.width}x{r.height} ({r.other_sizes} of another size, "
                  f"{r.unreadable} unreadable)")
    if r.numbers:
        listed = ", ".join(missing[:8] + (["..."] if len(missing) > 8 else [])) or "none"
        say("remote", f"numbers {r.numbers[0]} to {r.numbers[-1]}, "
                      f"{'NOT in order' if r.out_of_order else 'in order'}; not seen: {listed}")
    else:
        say("remote", "no number could be read")
    return (refused == 0 and r.rendered >= PUSHED * 9 // 10 and (r.width, r.height) == (WIDTH, HEIGHT)
            and r.other_sizes == 0 and r.out_of_order == 0 and r.unreadable == 0)


def main() -> int:
    local = User("local")
    remote = User("remote")
    return run_call("custom_video_source_push", [local, remote], lambda engines: call(*engines, local, remote),
                    "done: remote rendered local's pictures in order")


if __name__ == "__main__":
    sys.exit(main())
