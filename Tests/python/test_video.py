"""Video of ABI 0.5 between two engines through the embedded server, from Python.

User 1 (engine A) pushes 320x240 I420 pictures through an external source,
15 per second in real time, each with its number drawn into it as 8 bars
along the top over a moving gradient; user 2 (engine B) renders them through
a sink bound with ``setup_remote_video``. One pusher thread runs for the whole
module; the tests watch what B's sinks receive: the order, size and quality
(luma PSNR against the picture that was pushed, at 600 Kbps), the frame
object (memoryview planes, ``to_bytes()``, ``numpy()``, the frame's end of
life), the first-frame and size events, unbinding (from outside and from
inside a sink), exceptions raised by sinks, and the video mutes (B muting A's
video, A muting its own).

The last tests need no call: how ``push_external_video_frame`` takes planes
(bytes-like objects, numpy arrays, one packed buffer, other pixel formats)
and what it refuses before the library reads anything.

Every wait polls with a generous timeout; the only sleeps pace the pusher.
"""

from __future__ import annotations

import array
import ctypes
import math
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

import agoraish

APP = "0123456789abcdef0123456789abcdef"
SENDER, RECEIVER = 1, 2
WIDTH, HEIGHT = 320, 240
FPS = 15
BITRATE = 600
#: How long any wait may take, in seconds (generous: the pusher runs in real time).
TIMEOUT = 20.0
#: Pictures pushed for the measurement of order, size and quality (three seconds).
MEASURED = 45


# --------------------------------------------------------------------------
# Pictures: a moving gradient with the picture's number as 8 bars on top
# --------------------------------------------------------------------------

_GRADIENT = bytes(60 + i % 120 for i in range(4096 + 2 * 256 + 4096))


def picture(n: int, width: int = WIDTH, height: int = HEIGHT) -> Tuple[bytes, bytes, bytes]:
    """Picture `n` (0..255) as I420 planes: luma 60 + (x + 2n + y) % 120, the bits
    of n as 8 bars (dark = 1) in rows 0..23, grey chroma."""
    n &= 0xFF
    luma = bytearray(b"".join(_GRADIENT[2 * n + y: 2 * n + y + width] for y in range(height)))
    bar = width // 8
    for bit in range(8):
        value = bytes([16 if n >> bit & 1 else 235]) * (bar - 8)
        for y in range(24):
            start = y * width + bit * bar + 4
            luma[start:start + bar - 8] = value
    chroma = bytes([128]) * ((width // 2) * (height // 2))
    return bytes(luma), chroma, chroma


def number_of(luma: Any, stride: int, width: int = WIDTH) -> int:
    """The number drawn into a picture: the 8 bars read in the middle of row 12."""
    bar = width // 8
    return sum(1 << bit for bit in range(8) if luma[12 * stride + bit * bar + bar // 2] < 128)


def luma_psnr(got: bytes, want: bytes) -> float:
    """PSNR of two luma planes of the same size, in dB."""
    assert len(got) == len(want)
    try:
        import numpy
    except ModuleNotFoundError:
        squared = sum((a - b) * (a - b) for a, b in zip(got, want))
    else:
        diff = numpy.frombuffer(got, dtype=numpy.uint8).astype(numpy.int32) - numpy.frombuffer(
            want, dtype=numpy.uint8).astype(numpy.int32)
        squared = int(numpy.dot(diff, diff))
    mse = squared / len(got)
    return 99.0 if mse == 0 else 10 * math.log10(255 * 255 / mse)


# --------------------------------------------------------------------------
# Events of both engines
# --------------------------------------------------------------------------


class Events(agoraish.EventHandler):
    """Records the channel and video events of one engine; `wait_for` polls for one that matches."""

    def __init__(self) -> None:
        self.events: List[Tuple[str, tuple]] = []
        self.cond = threading.Condition()

    def _add(self, name: str, *args: Any) -> None:
        with self.cond:
            self.events.append((name, args))
            self.cond.notify_all()

    def wait_for(self, name: str, match: Callable[..., bool] = lambda *a: True, timeout: float = TIMEOUT,
                 after: int = 0) -> tuple:
        """The arguments of the first event `name` (from index `after`) for which `match(*args)` holds."""

        def find() -> Optional[tuple]:
            for event, args in self.events[after:]:
                if event == name and match(*args):
                    return args
            return None

        with self.cond:
            found = self.cond.wait_for(find, timeout)
            seen = [args for event, args in self.events[after:] if event == name][-5:]
        assert found is not None, f"no matching {name} within {timeout} s; last ones: {seen}"
        return found

    def all(self, name: str) -> List[tuple]:
        with self.cond:
            return [args for event, args in self.events if event == name]

    def mark(self) -> int:
        with self.cond:
            return len(self.events)

    def on_join_channel_success(self, channel, uid, elapsed):
        self._add("join", channel, uid, elapsed)

    def on_user_joined(self, uid, elapsed):
        self._add("user_joined", uid, elapsed)

    def on_first_local_video_frame_published(self, elapsed):
        self._add("first_local_video_frame_published", elapsed)

    def on_first_remote_video_decoded(self, uid, width, height, elapsed):
        self._add("first_remote_video_decoded", uid, width, height, elapsed)

    def on_video_size_changed(self, uid, width, height, rotation):
        self._add("video_size_changed", uid, width, height, rotation)

    def on_user_mute_video(self, uid, muted):
        self._add("user_mute_video", uid, muted)


# --------------------------------------------------------------------------
# The pusher: A pushes numbered pictures at 15 fps in real time
# --------------------------------------------------------------------------


class Pusher:
    """Pushes picture after picture on `engine`, 15 per second, on one thread.

    `pushed` holds (sequence number, drawn number, width, height) per picture.
    The size can be changed while it runs (`size`).
    """

    def __init__(self, engine: agoraish.RtcEngine) -> None:
        self.engine = engine
        self.size = (WIDTH, HEIGHT)
        self.pushed: List[Tuple[int, int, int, int]] = []
        self.errors: List[BaseException] = []
        self.cond = threading.Condition()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="video-pusher", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(TIMEOUT)

    def _run(self) -> None:
        start = time.monotonic()
        k = 0
        try:
            while not self.stopping.is_set():
                width, height = self.size
                y, u, v = picture(k, width, height)
                self.engine.push_external_video_frame(width, height, y, u, v, timestamp=k * 1000 // FPS)
                with self.cond:
                    self.pushed.append((k, k & 0xFF, width, height))
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

    def wait_pushed(self, count: int) -> List[Tuple[int, int, int, int]]:
        """Waits until `count` pictures in all have been pushed; returns them."""
        with self.cond:
            done = self.cond.wait_for(lambda: len(self.pushed) >= count or self.errors, TIMEOUT + count / FPS)
            assert not self.errors, f"the pusher failed: {self.errors[0]!r}"
            assert done, "the pusher stalled"
            return list(self.pushed)


# --------------------------------------------------------------------------
# Render sinks
# --------------------------------------------------------------------------


def _thread_name() -> str:
    """The kernel's name of the calling thread (agoraish names its threads)."""
    try:
        return Path(f"/proc/self/task/{threading.get_native_id()}/comm").read_text().strip()
    except OSError:
        return "?"


class Sink:
    """A render sink: keeps the number, size and a copy of the luma plane of every picture."""

    def __init__(self, copy_luma: bool = True) -> None:
        self.copy_luma = copy_luma
        self.frames: List[Dict[str, Any]] = []
        self.cond = threading.Condition()

    def __call__(self, frame: agoraish.VideoFrame) -> None:
        y = frame.y
        record = {
            "uid": frame.uid, "width": frame.width, "height": frame.height, "strides": frame.strides,
            "number": number_of(y, frame.y_stride, frame.width) if frame.width == WIDTH else None,
            "time": frame.render_time_ms, "at": time.monotonic(),
        }
        if self.copy_luma:
            record["luma"] = b"".join(
                y[r * frame.y_stride: r * frame.y_stride + frame.width].tobytes() for r in range(frame.height))
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


class Call:
    """The module's call: server, engines A and B with their events, B's sink and the pusher."""

    def __init__(self, tmp: Path) -> None:
        self.server = agoraish.ChannelServer()
        self.server.start()
        self.events_a, self.events_b = Events(), Events()
        self.a = agoraish.RtcEngine(APP, self.events_a, server_url=self.server.url, log_file=str(tmp / "a.log"))
        self.b = agoraish.RtcEngine(APP, self.events_b, server_url=self.server.url, log_file=str(tmp / "b.log"))
        self.a.set_video_encoder_configuration(WIDTH, HEIGHT, frame_rate=FPS, bitrate=BITRATE)
        self.a.enable_video()
        self.a.set_external_video_source(True)
        self.b.enable_video()
        self.sink = Sink()
        self.b.setup_remote_video(SENDER, self.sink)  # bound before the sender is there
        self.a.join_channel(None, "video", uid=SENDER)
        self.b.join_channel(None, "video", uid=RECEIVER)
        self.events_a.wait_for("join")
        self.events_b.wait_for("join")
        self.events_b.wait_for("user_joined", lambda uid, elapsed: uid == SENDER)
        self.pusher = Pusher(self.a)
        self.pusher.start()

    def bind(self, sink: Callable[[agoraish.VideoFrame], Any]) -> None:
        self.b.setup_remote_video(SENDER, sink)

    def close(self) -> None:
        self.pusher.stop()
        for engine in (self.a, self.b):
            engine.release()
        self.server.release()


@pytest.fixture(scope="module")
def call(tmp_path_factory) -> Any:
    c = Call(tmp_path_factory.mktemp("video"))
    try:
        c.sink.wait(1)  # the media path is up: pictures flow
        yield c
    finally:
        c.close()


@pytest.fixture
def clean_call(call):
    """The call, with B's sink bound and the pusher at 320x240 again afterwards."""
    yield call
    call.pusher.size = (WIDTH, HEIGHT)
    call.sink = Sink()
    call.bind(call.sink)
    call.sink.wait(1)


# --------------------------------------------------------------------------
# What arrives
# --------------------------------------------------------------------------


def test_pictures_arrive_in_order_at_their_size_and_quality(clean_call):
    sink, pusher = clean_call.sink, clean_call.pusher
    first = pusher.count()
    start = sink.count()
    pushed = pusher.wait_pushed(first + MEASURED)[first:first + MEASURED]
    wanted = {number for _, number, _, _ in pushed}
    sink.wait(start + 1)
    time.sleep(0.5)  # the last pictures are on their way
    frames = [f for f in sink.since(start) if f["number"] in wanted]
    # Pictures already in flight when the measurement began carry other numbers.
    assert len(frames) >= MEASURED - 5, f"rendered {len(frames)} of {MEASURED} pictures"
    assert all(f["uid"] == SENDER for f in frames)
    assert all((f["width"], f["height"]) == (WIDTH, HEIGHT) for f in frames)
    assert all(f["strides"][0] >= WIDTH and min(f["strides"][1:]) >= WIDTH // 2 for f in frames)
    order = [(n - pushed[0][1]) % 256 for n in (f["number"] for f in frames)]
    assert all(b > a for a, b in zip(order, order[1:])), f"out of order: {[f['number'] for f in frames]}"
    times = [f["time"] for f in frames]
    assert all(b >= a for a, b in zip(times, times[1:])), "render_time_ms does not go back"
    psnr = [luma_psnr(f["luma"], picture(f["number"])[0]) for f in frames]
    assert min(psnr) > 30, f"luma PSNR at {BITRATE} Kbps: worst {min(psnr):.1f} dB, mean {sum(psnr) / len(psnr):.1f} dB"


def test_first_remote_video_decoded_arrives_with_the_size(call):
    uid, width, height, elapsed = call.events_b.wait_for("first_remote_video_decoded")
    assert (uid, width, height) == (SENDER, WIDTH, HEIGHT)
    assert 0 <= elapsed < TIMEOUT * 1000
    assert len(call.events_b.all("first_remote_video_decoded")) == 1, "once per stream"
    (published,) = call.events_a.wait_for("first_local_video_frame_published")
    assert 0 <= published < TIMEOUT * 1000
    assert call.events_a.all("first_remote_video_decoded") == [], "A receives no video"


def test_the_frame_views_the_library_planes_during_the_call_only(clean_call):
    numpy = None
    try:
        import numpy  # type: ignore[no-redef]
    except ModuleNotFoundError:
        pass
    seen: List[Dict[str, Any]] = []
    kept: List[agoraish.VideoFrame] = []
    done = threading.Event()

    def sink(frame: agoraish.VideoFrame) -> None:
        if done.is_set():
            return
        y, u, v = frame.planes
        info: Dict[str, Any] = {
            "thread": _thread_name(), "type": frame.type, "rotation": frame.rotation,
            "views": [(view.readonly, view.format, view.itemsize, view.ndim, len(view)) for view in (y, u, v)],
            "same": (y is frame.y, u is frame.u, v is frame.v),
            "bytes": frame.to_bytes(),
            "rows": b"".join(y[r * frame.y_stride: r * frame.y_stride + frame.width] for r in range(frame.height))
            + b"".join(u[r * frame.u_stride: r * frame.u_stride + frame.width // 2] for r in range(frame.height // 2))
            + b"".join(v[r * frame.v_stride: r * frame.v_stride + frame.width // 2] for r in range(frame.height // 2)),
            "shape": (frame.width, frame.height, frame.strides),
            "repr": repr(frame),
        }
        try:
            y[0] = 0  # type: ignore[index]
        except TypeError:
            info["readonly"] = True
        if numpy is not None:
            ny, nu, nv = frame.numpy()
            info["numpy"] = [(a.shape, a.dtype == numpy.uint8, a.flags.writeable) for a in (ny, nu, nv)]
            info["numpy_bytes"] = ny.tobytes() + nu.tobytes() + nv.tobytes()
            del ny, nu, nv
        seen.append(info)
        if len(kept) < 1:
            kept.append(frame)
        if len(seen) >= 5:
            done.set()

    clean_call.bind(sink)
    assert done.wait(TIMEOUT), f"{len(seen)} pictures"
    clean_call.bind(None)
    width, height = WIDTH, HEIGHT
    size = width * height + 2 * (width // 2) * (height // 2)
    for info in seen:
        assert info["thread"].startswith("agoraish-vid"), info["thread"]
        assert info["type"] == agoraish.VideoPixelFormat.I420 and info["rotation"] == 0
        (w, h, strides) = info["shape"]
        assert (w, h) == (width, height)
        expected_lengths = [strides[0] * (h - 1) + w, strides[1] * (h // 2 - 1) + w // 2,
                            strides[2] * (h // 2 - 1) + w // 2]
        assert info["views"] == [(True, "B", 1, 1, n) for n in expected_lengths]
        assert info["same"] == (True, True, True)
        assert info.get("readonly"), "the planes are read-only"
        assert len(info["bytes"]) == size and info["bytes"] == info["rows"], "to_bytes() is packed I420"
        if numpy is not None:
            assert info["numpy"] == [((h, w), True, False), ((h // 2, w // 2), True, False),
                                     ((h // 2, w // 2), True, False)]
            assert info["numpy_bytes"] == info["bytes"], "numpy() views the same planes"
        assert "320x240" in info["repr"]
    frame = kept[0]
    assert (frame.width, frame.height, frame.uid) == (width, height, SENDER), "the numbers outlive the call"
    for use in (lambda: frame.y, lambda: frame.u, lambda: frame.v, lambda: frame.planes, frame.to_bytes):
        with pytest.raises(ValueError):
            use()
    if numpy is not None:
        with pytest.raises(ValueError):
            frame.numpy()


# --------------------------------------------------------------------------
# Binding, unbinding, exceptions
# --------------------------------------------------------------------------


def test_unbinding_stops_the_pictures_and_binding_again_resumes_them(clean_call):
    sink, pusher = clean_call.sink, clean_call.pusher
    sink.wait(sink.count() + 3)
    clean_call.bind(None)
    stopped = sink.count()
    pushed = pusher.count()
    pusher.wait_pushed(pushed + FPS)  # one more second of pictures
    time.sleep(0.3)
    assert sink.count() == stopped, "a picture reached the sink after the unbind returned"
    again = Sink(copy_luma=False)
    clean_call.bind(again)
    frames = again.wait(5)
    assert all((f["width"], f["height"]) == (WIDTH, HEIGHT) for f in frames)
    assert sink.count() == stopped, "the first sink stays unbound"


def test_replacing_a_sink_moves_the_pictures_to_the_new_one(clean_call):
    first, second = Sink(copy_luma=False), Sink(copy_luma=False)
    clean_call.bind(first)
    first.wait(3)
    clean_call.bind(second)  # a rebind, without unbinding first
    second.wait(3)
    moved = first.count()
    second.wait(second.count() + 5)
    assert first.count() <= moved + 1, "the replaced sink keeps receiving pictures"


def test_a_sink_unbinding_itself_gets_no_further_picture(clean_call):
    calls: List[int] = []
    errors: List[BaseException] = []

    def sink(frame: agoraish.VideoFrame) -> None:
        calls.append(frame.uid)
        if len(calls) == 3:
            try:
                clean_call.b.setup_remote_video(SENDER, None)  # from inside the sink: no wait
            except BaseException as error:
                errors.append(error)

    clean_call.bind(sink)
    deadline = time.monotonic() + TIMEOUT
    while len(calls) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(calls) == 3, calls
    pushed = clean_call.pusher.count()
    clean_call.pusher.wait_pushed(pushed + FPS // 2)
    time.sleep(0.3)
    assert not errors, errors
    assert len(calls) == 3, f"{len(calls)} calls: pictures after the sink unbound itself"


def test_exceptions_in_a_sink_are_reported_and_stay_in_python(clean_call, monkeypatch):
    reports: List[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", reports.append)
    calls: List[int] = []

    def sink(frame: agoraish.VideoFrame) -> None:
        calls.append(frame.width)
        raise RuntimeError(f"sink failure {len(calls)}")

    clean_call.bind(sink)
    deadline = time.monotonic() + TIMEOUT
    while len(reports) < 5 and time.monotonic() < deadline:
        time.sleep(0.02)
    clean_call.bind(None)
    assert len(calls) >= 5 and len(reports) >= 5, (len(calls), len(reports))
    report = reports[0]
    assert report.exc_type is RuntimeError and "sink failure" in str(report.exc_value)
    assert "setup_remote_video" in report.err_msg and report.object is sink
    assert clean_call.b.get_connection_state() == agoraish.ConnectionState.CONNECTED, "the engine goes on"

    def not_callable() -> None:
        clean_call.b.setup_remote_video(SENDER, 42)  # type: ignore[arg-type]

    with pytest.raises(TypeError):
        not_callable()


def test_a_new_picture_size_is_followed_and_reported(clean_call):
    events, sink, pusher = clean_call.events_b, clean_call.sink, clean_call.pusher
    mark = events.mark()
    pusher.size = (160, 120)
    assert events.wait_for("video_size_changed", after=mark) == (SENDER, 160, 120, 0)
    start = sink.count()
    frames = sink.wait(start + 5)[start:]
    sizes = [(f["width"], f["height"]) for f in frames]
    assert all(size == (160, 120) for size in sizes[-3:]), sizes
    mark = events.mark()
    pusher.size = (WIDTH, HEIGHT)
    assert events.wait_for("video_size_changed", after=mark) == (SENDER, WIDTH, HEIGHT, 0)
    assert len(events.all("first_remote_video_decoded")) == 1, "a new size is not a new stream"


def _wait_for_no_more_pictures(call: Call, sink: Sink, what: str) -> None:
    """After a mute: the pictures in flight arrive, then none while A pushes one more second."""
    pusher = call.pusher
    pusher.wait_pushed(pusher.count() + FPS // 2)  # pictures already on their way may still render
    time.sleep(0.3)
    stopped = sink.count()
    pusher.wait_pushed(pusher.count() + FPS)
    time.sleep(0.3)
    assert sink.count() == stopped, f"{sink.count() - stopped} pictures rendered after {what}"


def test_muting_video_stops_the_pictures_and_unmuting_resumes_them(clean_call):
    call, sink = clean_call, clean_call.sink
    events = call.events_b
    sink.wait(sink.count() + 3)
    try:
        # B stops receiving A's video while A keeps pushing.
        call.b.mute_remote_video_stream(SENDER, True)
        _wait_for_no_more_pictures(call, sink, "mute_remote_video_stream(A, True)")
        resumed = sink.count()
        call.b.mute_remote_video_stream(SENDER, False)
        frames = sink.wait(resumed + 5)[resumed:]
        assert all((f["uid"], f["width"], f["height"]) == (SENDER, WIDTH, HEIGHT) for f in frames)

        # A stops sending its video: B hears of it, and nothing renders.
        mark = events.mark()
        call.a.mute_local_video_stream(True)
        assert events.wait_for("user_mute_video", after=mark) == (SENDER, True)
        _wait_for_no_more_pictures(call, sink, "mute_local_video_stream(True)")
        resumed = sink.count()
        mark = events.mark()
        call.a.mute_local_video_stream(False)
        assert events.wait_for("user_mute_video", after=mark) == (SENDER, False)
        sink.wait(resumed + 5)
        assert [args for args in events.all("user_mute_video")[-2:]] == [(SENDER, True), (SENDER, False)]
        assert len(events.all("first_remote_video_decoded")) == 1, "an unmute is not a new stream"
    finally:
        call.b.mute_remote_video_stream(SENDER, False)
        call.a.mute_local_video_stream(False)


def test_video_mutes_refuse_uid_0_and_released_engines(make_engine):
    engine = make_engine()
    with pytest.raises(agoraish.AgoraishError) as info:
        engine.mute_remote_video_stream(0, True)
    assert info.value.code == -2
    for mute in (True, False):
        engine.enable_local_video(mute)
        engine.mute_local_video_stream(mute)
        engine.mute_remote_video_stream(7, mute)  # a user not (yet) in a call
        engine.mute_all_remote_video_streams(mute)
        engine.set_default_mute_all_remote_video_streams(mute)
    engine.release()
    for call_it in (lambda: engine.enable_local_video(True), lambda: engine.mute_local_video_stream(True),
                    lambda: engine.mute_remote_video_stream(7, True),
                    lambda: engine.mute_all_remote_video_streams(True),
                    lambda: engine.set_default_mute_all_remote_video_streams(True)):
        with pytest.raises(agoraish.AgoraishError) as info:
            call_it()
        assert info.value.code == -7


#: A child process: engines A and B send each other video; from inside its
#: first picture, each one's sink releases the other engine (sync) at the
#: same moment. Prints both codes.
_CROSS_RELEASE_CHILD = r"""
import ctypes, os, sys, threading, time
import agoraish
from agoraish import _ffi

server = agoraish.ChannelServer()
server.start()
joined = threading.Semaphore(0)

class Handler(agoraish.EventHandler):
    def on_join_channel_success(self, channel, uid, elapsed):
        joined.release()

engines = [agoraish.RtcEngine("0123456789abcdef0123456789abcdef", Handler(), server_url=server.url,
                              log_file=os.path.join(sys.argv[1], f"{name}.log")) for name in "ab"]
barrier = threading.Barrier(2)
codes = {}
done = threading.Event()

def sink_of(index):
    def sink(frame):
        if index in codes:
            return
        codes[index] = None
        barrier.wait(timeout=10)
        codes[index] = _ffi.agoraish_engine_release(engines[1 - index].handle, 1)
        if all(isinstance(codes.get(i), int) for i in (0, 1)):
            done.set()
    return sink

for index, engine in enumerate(engines):
    engine.set_video_encoder_configuration(64, 64)
    engine.enable_video()
    engine.set_external_video_source(True)
    engine.setup_remote_video(2 - index, sink_of(index))
    engine.join_channel(None, "cross-release", uid=index + 1)
assert joined.acquire(timeout=10) and joined.acquire(timeout=10)
y, u = bytes(64 * 64), bytes(32 * 32)
for n in range(75):
    if done.is_set():
        break
    for engine in engines:
        try:
            engine.push_external_video_frame(64, 64, y, u, u, timestamp=n * 66)
        except agoraish.AgoraishError:
            pass  # released by the other one's sink
    time.sleep(0.066)
print(codes.get(0), codes.get(1), flush=True)
os._exit(0 if done.is_set() else 1)
"""


def test_sinks_releasing_each_others_engine_do_not_deadlock(tmp_path):
    import os
    import subprocess

    from support import BINDING

    env = dict(os.environ, PYTHONPATH=str(BINDING))
    try:
        out = subprocess.run([sys.executable, "-c", _CROSS_RELEASE_CHILD, str(tmp_path)], capture_output=True,
                             text=True, timeout=20, env=env)
    except subprocess.TimeoutExpired:
        raise AssertionError("the two releases did not return within 20 s") from None
    assert out.returncode == 0 and out.stdout.split() == ["0", "0"], (out.returncode, out.stdout, out.stderr[-2000:])


# --------------------------------------------------------------------------
# Pushing from Python, without a call
# --------------------------------------------------------------------------


@pytest.fixture
def source(make_engine) -> agoraish.RtcEngine:
    engine = make_engine()
    engine.set_external_video_source(True)
    return engine


def test_push_takes_any_bytes_like_planes(source):
    y, u, v = picture(7, 64, 32)
    source.push_external_video_frame(64, 32, y, u, v)
    source.push_external_video_frame(64, 32, bytearray(y), memoryview(u), array.array("B", v), timestamp=5)
    source.push_external_video_frame(64, 32, y + u + v)  # one packed buffer
    padded = b"".join(y[r * 64:(r + 1) * 64] + b"\0" * 16 for r in range(32))
    source.push_external_video_frame(64, 32, padded, u, v, y_stride=80)
    packed = padded + u + v
    source.push_external_video_frame(64, 32, packed, y_stride=80)
    source.push_external_video_frame(64, 32, memoryview(y).cast("B", (32, 64)), u, v)  # a 2-D buffer
    source.push_external_video_frame(64, 32, (ctypes.c_uint8 * len(y)).from_buffer_copy(y), u, v)


def test_push_takes_numpy_planes(source):
    numpy = pytest.importorskip("numpy")
    y, u, v = picture(9, 64, 32)
    ny = numpy.frombuffer(y, dtype=numpy.uint8).reshape(32, 64)
    nu = numpy.frombuffer(u, dtype=numpy.uint8).reshape(16, 32)
    source.push_external_video_frame(64, 32, ny, nu, nu)  # read-only arrays: strides from their rows
    writable = ny.copy()
    source.push_external_video_frame(64, 32, writable, nu.copy(), nu.copy())
    wide = numpy.zeros((32, 96), dtype=numpy.uint8)
    wide[:, :64] = ny
    source.push_external_video_frame(64, 32, wide, nu, nu)  # y_stride 96, from the array
    source.push_external_video_frame(64, 32, wide[:, 8:72], nu, nu)  # not contiguous: copied
    whole = numpy.concatenate([ny.ravel(), nu.ravel(), nu.ravel()])
    source.push_external_video_frame(64, 32, whole)


def test_push_takes_other_pixel_formats(source):
    F = agoraish.VideoPixelFormat
    width, height = 64, 32
    y = bytes(width * height)
    uv = bytes([128]) * (width * height // 2)
    source.push_external_video_frame(width, height, y, uv, format=F.NV12)
    source.push_external_video_frame(width, height, y + uv, format=F.NV21)  # packed: Y, then VU
    rgba = bytes([200, 100, 50, 255]) * (width * height)
    source.push_external_video_frame(width, height, rgba, format=F.RGBA)
    source.push_external_video_frame(width, height, bytearray(rgba), format=F.BGRA, y_stride=4 * width)
    with pytest.raises(agoraish.AgoraishError) as error:
        source.push_external_video_frame(width, height, rgba[:-1], format=F.BGRA)
    assert error.value.code == -2
    with pytest.raises(agoraish.AgoraishError) as error:
        source.push_external_video_frame(width, height, y, format=F.NV12)  # no chroma in the buffer
    assert error.value.code == -2
    with pytest.raises(agoraish.AgoraishError) as error:
        source.push_external_video_frame(width, height, y, uv, format=5)
    assert error.value.code == -2, "an unknown format: the library's answer"


def test_push_refuses_planes_too_short_for_their_rows(source):
    y, u, v = picture(1, 64, 32)
    for args, kwargs in (
        ((y[:-1], u, v), {}),
        ((y, u[:-1], v), {}),
        ((y, u, v[:100]), {}),
        ((y, u, v), {"y_stride": 65}),  # 32 rows of 65 bytes need more than the plane has
        ((y, u, v), {"u_stride": 2**31 - 1}),
        (((y + u + v)[:-1],), {}),
        ((y + u,), {}),
        ((b"",), {}),
    ):
        with pytest.raises(agoraish.AgoraishError) as error:
            source.push_external_video_frame(64, 32, *args, **kwargs)
        assert error.value.code == -2, (len(args), kwargs)


def test_push_passes_what_the_library_refuses_on(source, make_engine):
    y, u, v = picture(1, 64, 32)
    for width, height, kwargs in ((63, 32, {}), (64, 31, {}), (8, 8, {}), (64, 32, {"y_stride": 63}),
                                  (64, 32, {"u_stride": 31}), (64, 32, {"v_stride": -1}), (0, 0, {})):
        with pytest.raises(agoraish.AgoraishError) as error:
            source.push_external_video_frame(width, height, y, u, v, **kwargs)
        assert error.value.code == -2, (width, height, kwargs)
    with pytest.raises(agoraish.AgoraishError) as error:
        source.push_external_video_frame(64, 32, y, u)  # I420 without V: a NULL plane
    assert error.value.code == -2
    with pytest.raises(agoraish.AgoraishError) as error:
        source.push_external_video_frame(64, 32, y, None, v)
    assert error.value.code == -2
    with pytest.raises(TypeError):
        source.push_external_video_frame(64, 32, "not a buffer", u, v)
    with pytest.raises(agoraish.AgoraishError) as error:
        source.push_external_video_frame(64, 32, y, u, v, timestamp=2**63)
    assert error.value.code == -2
    no_source = make_engine()
    with pytest.raises(agoraish.AgoraishError) as error:
        no_source.push_external_video_frame(64, 32, y, u, v)
    assert error.value.code == -3, "no external source"
    source.set_external_video_source(False)
    with pytest.raises(agoraish.AgoraishError) as error:
        source.push_external_video_frame(64, 32, y, u, v)
    assert error.value.code == -3, "the source turned off"


def test_encoder_configuration_and_sinks_from_python(make_engine):
    engine = make_engine()
    engine.set_video_encoder_configuration(640, 360)
    engine.set_video_encoder_configuration(1920, 1080, frame_rate=30, bitrate=-1, min_bitrate=500,
                                           codec_type=agoraish.VideoCodecType.VP8)
    engine.set_video_encoder_configuration(16, 16, 1, 1, codec_type=0)
    for kwargs in ({"width": 15, "height": 240}, {"width": 320, "height": 4098}, {"frame_rate": 61},
                   {"bitrate": -2}, {"min_bitrate": 100001}, {"codec_type": 2}):
        args = {"width": 320, "height": 240, **kwargs}
        with pytest.raises(agoraish.AgoraishError) as error:
            engine.set_video_encoder_configuration(**args)
        assert error.value.code == -2, kwargs
    with pytest.raises(agoraish.AgoraishError) as error:
        engine.set_video_encoder_configuration(2**31, 240)
    assert error.value.code == -2
    engine.enable_video()
    engine.disable_video()
    engine.setup_remote_video(5, lambda frame: None)
    engine.setup_remote_video(5, None)
    engine.setup_remote_video(6, print)
    with pytest.raises(agoraish.AgoraishError) as error:
        engine.setup_remote_video(0, lambda frame: None)
    assert error.value.code == -2
    with pytest.raises(agoraish.AgoraishError) as error:
        engine.setup_remote_video(2**32, None)
    assert error.value.code == -2
    engine.release()  # with a sink still bound: unbound first
    for call in (engine.enable_video, engine.disable_video, lambda: engine.set_external_video_source(True),
                 lambda: engine.set_video_encoder_configuration(320, 240),
                 lambda: engine.setup_remote_video(5, None)):
        with pytest.raises(agoraish.AgoraishError) as error:
            call()
        assert error.value.code == -7
