"""Helpers of the video tests (test_video_features.py): pictures that can be
checked after a trip through the codec, PNG and JPEG readers, and the call
machinery: an event recorder, a render sink, a real-time pusher and a call of
several engines through an embedded server.

Pictures are built so that what arrives can be checked: the numbered pictures
of test_video.py (the number drawn as 8 bars along the top, over a moving
gradient), pictures with a dark left half (mirroring), a dark top band (render
modes) or a red corner (rotation, watermark).
"""

from __future__ import annotations

import struct
import threading
import time
import zlib
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import agoraish
from support import http_get
from test_video import picture

APP = "0123456789abcdef0123456789abcdef"
SENDER, RECEIVER, THIRD = 1, 2, 3
FPS = 15
#: How long any wait may take, in seconds (generous: a loaded 2-core machine).
TIMEOUT = 30.0


# --------------------------------------------------------------------------
# Pictures
# --------------------------------------------------------------------------

I420Planes = Tuple[bytes, bytes, bytes]


def flat(width: int, height: int, y: int = 128, u: int = 128, v: int = 128) -> I420Planes:
    """One colour, as I420 planes."""
    chroma = (width // 2) * (height // 2)
    return bytes([y]) * (width * height), bytes([u]) * chroma, bytes([v]) * chroma


def halves(width: int = 320, height: int = 240) -> I420Planes:
    """A dark left half (luma 40) and a bright right half (luma 200): mirroring shows."""
    row = bytes([40]) * (width // 2) + bytes([200]) * (width - width // 2)
    _, u, v = flat(width, height)
    return row * height, u, v


def top_band(width: int = 320, height: int = 240, rows: int = 24) -> I420Planes:
    """Luma 200 with a dark band (luma 40) over the top `rows` rows: cropping shows."""
    y = bytes([40]) * (width * rows) + bytes([200]) * (width * (height - rows))
    _, u, v = flat(width, height)
    return y, u, v


def paint(plane: Any, stride: int, x0: int, y0: int, x1: int, y1: int, value: int) -> None:
    """Fills a rectangle of a writable plane."""
    fill = bytes([value]) * (x1 - x0)
    for row in range(y0, y1):
        plane[row * stride + x0: row * stride + x1] = fill


def mean(plane: bytes, width: int, x0: int, y0: int, x1: int, y1: int) -> float:
    """The mean of a rectangle of a packed plane `width` bytes wide."""
    total = sum(sum(plane[row * width + x0: row * width + x1]) for row in range(y0, y1))
    return total / ((x1 - x0) * (y1 - y0))


# Red and mid grey, in BT.601 studio range (what libyuv makes of RGB 255,0,0 and 128,128,128).
RED_YUV = (82, 90, 240)
GREY_YUV = (126, 128, 128)
RED_RGBA, GREY_RGBA = bytes([255, 0, 0, 255]), bytes([128, 128, 128, 255])
#: Side of the red corner marker of the rotation pictures, in pixels.
MARKER = 24


def marked_picture(fmt: int, width: int, height: int) -> Dict[str, Any]:
    """A grey picture with a red square in its top-left corner, in pixel format
    `fmt`, every row padded: the arguments of ``push_external_video_frame``."""
    F = agoraish.VideoPixelFormat
    if fmt in (F.RGBA, F.BGRA):
        red, grey = (RED_RGBA, GREY_RGBA) if fmt == F.RGBA else (RED_RGBA[2::-1] + b"\xff", GREY_RGBA)
        stride = 4 * width + 32
        rows = [(red * MARKER + grey * (width - MARKER) if r < MARKER else grey * width) + b"\x5a" * 32
                for r in range(height)]
        return {"y": b"".join(rows), "format": fmt, "y_stride": stride}
    y_stride = width + 16
    luma = b"".join((bytes([RED_YUV[0]]) * MARKER + bytes([GREY_YUV[0]]) * (width - MARKER) if r < MARKER
                     else bytes([GREY_YUV[0]]) * width) + b"\x5a" * 16 for r in range(height))

    def chroma_row(r: int, index: int) -> bytes:
        red = r < MARKER // 2
        return bytes([RED_YUV[index]]) * (MARKER // 2 if red else 0) + bytes([GREY_YUV[index]]) * (
            width // 2 - (MARKER // 2 if red else 0))

    if fmt == F.I420:
        c_stride = width // 2 + 8
        u = b"".join(chroma_row(r, 1) + b"\x5a" * 8 for r in range(height // 2))
        v = b"".join(chroma_row(r, 2) + b"\x5a" * 8 for r in range(height // 2))
        return {"y": luma, "u": u, "v": v, "format": fmt, "y_stride": y_stride, "u_stride": c_stride,
                "v_stride": c_stride}
    first, second = (1, 2) if fmt == F.NV12 else (2, 1)
    uv = b"".join(bytes(value for pair in zip(chroma_row(r, first), chroma_row(r, second)) for value in pair)
                  + b"\x5a" * 16 for r in range(height // 2))
    return {"y": luma, "u": uv, "format": fmt, "y_stride": y_stride, "u_stride": width + 16}


def red_corner(frame: Dict[str, Any]) -> Optional[str]:
    """Which corner of a received picture is red ("tl", "tr", "bl", "br"), or None."""
    cw, ch = frame["width"] // 2, frame["height"] // 2
    side = MARKER // 2 - 4  # inside the marker, away from its blurred edge
    corners = {"tl": (1, 1), "tr": (cw - 1 - side, 1), "bl": (1, ch - 1 - side), "br": (cw - 1 - side, ch - 1 - side)}
    v = {name: mean(frame["v"], cw, x, y, x + side, y + side) for name, (x, y) in corners.items()}
    red = [name for name, value in v.items() if value > 190]
    grey = [name for name, value in v.items() if value < 150]
    return red[0] if len(red) == 1 and len(grey) == 3 else None


#: Where the top-left corner of a picture goes when it is turned clockwise.
TURNED_CORNER = {0: "tl", 90: "tr", 180: "br", 270: "bl"}


def png_bytes(width: int, height: int, rgba: bytes) -> bytes:
    """An 8-bit RGBA PNG of one colour, written with zlib and struct."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\0" + rgba * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def read_png(data: bytes) -> Tuple[int, int, int, bytes]:
    """(width, height, bytes per pixel, pixels) of an 8-bit RGB or RGBA PNG, not interlaced."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "PNG signature"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        assert struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0] == zlib.crc32(kind + body) & 0xFFFFFFFF
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert header is not None
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    bpp = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * bpp
    out, previous = bytearray(), bytearray(stride)
    for r in range(height):
        kind, line = raw[r * (stride + 1)], bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = previous[i], previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        out += line
        previous = line
    return width, height, bpp, bytes(out)


def jpeg_size(data: bytes) -> Tuple[int, int]:
    """(width, height) from the SOF segment of a JPEG file."""
    pos = 2
    while pos < len(data):
        assert data[pos] == 0xFF, f"no marker at {pos}"
        marker, (length,) = data[pos + 1], struct.unpack(">H", data[pos + 2:pos + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[pos + 5:pos + 9])
            return width, height
        pos += 2 + length
    raise AssertionError("no SOF segment")


# --------------------------------------------------------------------------
# Events, sinks, the pusher
# --------------------------------------------------------------------------


class Events(agoraish.EventHandler):
    """Records an engine's channel, video, statistics and quality events; `wait_for` polls for one that matches."""

    def __init__(self) -> None:
        self.events: List[Tuple[str, tuple, float]] = []
        self.cond = threading.Condition()

    def _add(self, name: str, *args: Any) -> None:
        with self.cond:
            self.events.append((name, args, time.monotonic()))
            self.cond.notify_all()

    def wait_for(self, name: str, match: Callable[..., bool] = lambda *a: True, timeout: float = TIMEOUT,
                 after: int = 0) -> tuple:
        """The arguments of the first event `name` (from index `after`) for which `match(*args)` holds."""

        def find() -> Optional[tuple]:
            for event, args, _ in self.events[after:]:
                if event == name and match(*args):
                    return args
            return None

        with self.cond:
            found = self.cond.wait_for(find, timeout)
            seen = [args for event, args, _ in self.events[after:] if event == name][-6:]
        assert found is not None, f"no matching {name} within {timeout} s; last ones: {seen}"
        return found

    def all(self, name: str, after: int = 0) -> List[tuple]:
        with self.cond:
            return [args for event, args, _ in self.events[after:] if event == name]

    def times(self, name: str, match: Callable[..., bool] = lambda *a: True) -> List[float]:
        """When each event `name` for which `match(*args)` holds arrived."""
        with self.cond:
            return [at for event, args, at in self.events if event == name and match(*args)]

    def mark(self) -> int:
        with self.cond:
            return len(self.events)

    def on_join_channel_success(self, channel, uid, elapsed):
        self._add("join", channel, uid, elapsed)

    def on_leave_channel(self, stats):
        self._add("leave", stats)

    def on_user_joined(self, uid, elapsed):
        self._add("user_joined", uid, elapsed)

    def on_first_local_video_frame(self, width, height, elapsed):
        self._add("first_local_video_frame", width, height, elapsed)

    def on_first_remote_video_frame(self, uid, width, height, elapsed):
        self._add("first_remote_video_frame", uid, width, height, elapsed)

    def on_first_remote_video_decoded(self, uid, width, height, elapsed):
        self._add("first_remote_video_decoded", uid, width, height, elapsed)

    def on_video_size_changed(self, uid, width, height, rotation):
        self._add("video_size_changed", uid, width, height, rotation)

    def on_user_mute_video(self, uid, muted):
        self._add("user_mute_video", uid, muted)

    def on_user_enable_video(self, uid, enabled):
        self._add("user_enable_video", uid, enabled)

    def on_user_enable_local_video(self, uid, enabled):
        self._add("user_enable_local_video", uid, enabled)

    def on_local_video_state_changed(self, state, error):
        self._add("local_video_state", state, error)

    def on_remote_video_state_changed(self, uid, state, reason, elapsed):
        self._add("remote_video_state", uid, state, reason, elapsed)

    def on_local_video_stats(self, stats):
        self._add("local_video_stats", stats)

    def on_remote_video_stats(self, stats):
        self._add("remote_video_stats", stats)

    def on_snapshot_taken(self, uid, path, width, height, error):
        self._add("snapshot", uid, path, width, height, error)

    def on_rtc_stats(self, stats):
        self._add("rtc_stats", stats)

    def on_network_quality(self, uid, tx_quality, rx_quality):
        self._add("network_quality", uid, tx_quality, rx_quality)


class Sink:
    """A render sink keeping every picture: uid, size, packed planes, time of arrival."""

    def __init__(self) -> None:
        self.frames: List[Dict[str, Any]] = []
        self.cond = threading.Condition()

    def __call__(self, frame: agoraish.VideoFrame) -> None:
        w, h = frame.width, frame.height
        data = frame.to_bytes()
        luma, chroma = w * h, (w // 2) * (h // 2)
        record = {"uid": frame.uid, "width": w, "height": h, "y": data[:luma], "u": data[luma:luma + chroma],
                  "v": data[luma + chroma:], "at": time.monotonic(), "writable": frame.writable}
        with self.cond:
            self.frames.append(record)
            self.cond.notify_all()

    def count(self) -> int:
        with self.cond:
            return len(self.frames)

    def since(self, index: int) -> List[Dict[str, Any]]:
        with self.cond:
            return list(self.frames[index:])

    def wait(self, count: int, timeout: float = TIMEOUT) -> List[Dict[str, Any]]:
        """Waits until `count` pictures in all have arrived; returns every picture so far."""
        with self.cond:
            ok = self.cond.wait_for(lambda: len(self.frames) >= count, timeout)
            got = list(self.frames)
        assert ok, f"{len(got)} pictures rendered within {timeout} s, wanted {count}"
        return got

    def wait_for(self, match: Callable[[Dict[str, Any]], bool], after: int = 0, timeout: float = TIMEOUT,
                 what: str = "a matching picture") -> Dict[str, Any]:
        """The first picture from index `after` for which `match` holds."""

        def find() -> Optional[Dict[str, Any]]:
            return next((f for f in self.frames[after:] if match(f)), None)

        with self.cond:
            found = self.cond.wait_for(find, timeout)
            last = [(f["uid"], f["width"], f["height"]) for f in self.frames[after:][-3:]]
        assert found is not None, f"no {what} within {timeout} s; last pictures (uid, w, h): {last}"
        return found


Source = Callable[[int], Dict[str, Any]]


def i420_source(planes: I420Planes, width: int, height: int) -> Source:
    """The same I420 picture every time."""
    y, u, v = planes
    return lambda k: {"width": width, "height": height, "y": y, "u": u, "v": v}


def numbered_source(k: int) -> Dict[str, Any]:
    """test_video's picture `k`: 320x240 with its number drawn along the top."""
    y, u, v = picture(k)
    return {"width": 320, "height": 240, "y": y, "u": u, "v": v}


class Pusher:
    """Pushes `source(k)` on `engine`, 15 pictures per second, on one thread.

    `source` may be replaced while it runs; `pause()` / `resume()` stop and
    restart the pushes. `pushed` holds the sequence numbers pushed.
    """

    def __init__(self, engine: agoraish.RtcEngine, source: Source) -> None:
        self.engine = engine
        self.source = source
        self.pushed: List[int] = []
        self.errors: List[BaseException] = []
        self.cond = threading.Condition()
        self.stopping = threading.Event()
        self.running = threading.Event()
        self.running.set()
        self.thread = threading.Thread(target=self._run, name="video-pusher", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.running.set()
        self.thread.join(TIMEOUT)

    def pause(self) -> None:
        self.running.clear()

    def resume(self) -> None:
        self.running.set()

    def _run(self) -> None:
        start, k = time.monotonic(), 0
        try:
            while not self.stopping.is_set():
                if not self.running.is_set():
                    self.running.wait()
                    start = time.monotonic() - k / FPS
                    continue
                args = dict(self.source(k))
                width, height = args.pop("width"), args.pop("height")
                y, u, v = args.pop("y"), args.pop("u", None), args.pop("v", None)
                self.engine.push_external_video_frame(width, height, y, u, v, timestamp=k * 1000 // FPS, **args)
                with self.cond:
                    self.pushed.append(k)
                    self.cond.notify_all()
                k += 1
                delay = start + k / FPS - time.monotonic()
                if delay > 0:
                    time.sleep(delay)  # real time, as a camera would deliver
                elif delay < -1.0:
                    start = time.monotonic() - k / FPS  # far behind (a stalled host): do not rush
        except BaseException as error:  # reported by wait_pushed()
            with self.cond:
                self.errors.append(error)
                self.cond.notify_all()

    def count(self) -> int:
        with self.cond:
            return len(self.pushed)

    def wait_pushed(self, count: int) -> None:
        """Waits until `count` pictures in all have been pushed."""
        with self.cond:
            done = self.cond.wait_for(lambda: len(self.pushed) >= count or self.errors, TIMEOUT + count / FPS)
            assert not self.errors, f"the pusher failed: {self.errors[0]!r}"
            assert done, "the pusher stalled"

    def wait_more(self, pictures: int) -> None:
        """Waits until `pictures` more have been pushed."""
        self.wait_pushed(self.count() + pictures)


class Call:
    """Engines of one test in a channel of an embedded server (with /metrics)."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.server = agoraish.ChannelServer(http_port=-1)
        self.server.start()
        self.engines: Dict[int, agoraish.RtcEngine] = {}
        self.events: Dict[int, Events] = {}
        self.pushers: List[Pusher] = []

    def engine(self, uid: int, **kwargs: Any) -> agoraish.RtcEngine:
        """A new engine for user `uid`, video on (not joined yet)."""
        events = Events()
        engine = agoraish.RtcEngine(APP, events, server_url=self.server.url, log_file=str(self.tmp / f"{uid}.log"),
                                    **kwargs)
        engine.disable_audio()  # a video-only call: no microphone, no speaker
        engine.enable_video()
        self.engines[uid], self.events[uid] = engine, events
        return engine

    def sender(self, uid: int = SENDER, width: int = 320, height: int = 240, bitrate: int = 600,
               **config: Any) -> agoraish.RtcEngine:
        engine = self.engine(uid)
        engine.set_external_video_source(True)
        engine.set_video_encoder_configuration(width, height, frame_rate=FPS, bitrate=bitrate, **config)
        return engine

    def join(self, *uids: int) -> None:
        """Joins the users (in this order) and waits until each sees the ones before."""
        for uid in uids:
            self.engines[uid].join_channel(None, "video-features", uid=uid)
            self.events[uid].wait_for("join")
        for uid in uids:
            for other in uids:
                if other != uid:
                    self.events[uid].wait_for("user_joined", lambda u, _e, other=other: u == other)

    def push(self, uid: int, source: Source) -> Pusher:
        pusher = Pusher(self.engines[uid], source)
        self.pushers.append(pusher)
        return pusher

    def metrics(self) -> Dict[str, float]:
        status, _, body = http_get(self.server.http_port, "/metrics")
        assert status == 200
        values: Dict[str, float] = {}
        for line in body.decode().splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                values[name] = float(value)
        return values

    def close(self) -> None:
        for pusher in self.pushers:
            pusher.stop()
        for engine in self.engines.values():
            engine.release()
        self.server.release()


def push_until(engine: agoraish.RtcEngine, source: Source, done: Callable[[], bool], what: str) -> None:
    """Pushes pictures on this thread, paced, until `done()` (outside calls)."""
    deadline = time.monotonic() + TIMEOUT
    k = 0
    while not done():
        assert time.monotonic() < deadline, f"no {what} within {TIMEOUT} s"
        args = dict(source(k))
        width, height = args.pop("width"), args.pop("height")
        engine.push_external_video_frame(width, height, args.pop("y"), args.pop("u", None), args.pop("v", None),
                                         timestamp=k * 1000 // FPS, **args)
        k += 1
        time.sleep(1 / FPS)


def wait_until(condition: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    """Polls `condition()` (lists an observer fills) until it holds; fails the test after `timeout`."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.02)
