"""Video features of ABI 0.6 from Python: the local canvas and preview, render
and mirror modes, frame observers, rotation, VP9, dual stream, video states
and statistics, network quality, snapshots, watermarks and cameras.

Most tests run a call of their own through an embedded server: user 1
(engine A) pushes pictures through an external source from a pusher thread,
15 per second in real time; user 2 (engine B, and C for dual stream) renders
them through sinks bound with ``setup_remote_video``. The preview tests need
no call: with the preview started, pictures pushed on A reach A's local canvas.

The pictures, the event recorder, the sink, the pusher and the call live in
video_support.py: pictures are built so that what arrives can be checked
(numbered, half dark, banded, with a red corner).

Every wait is for a condition (an event, a picture, a count), with a generous
timeout; sleeps only pace the pushes and poll what observers count. Checks
that nothing arrives count pushed pictures instead of time.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

import agoraish
from test_video import luma_psnr, number_of, picture
from video_support import (
    Call,
    Events,
    FPS,
    GREY_YUV,
    RECEIVER,
    RED_RGBA,
    SENDER,
    Sink,
    THIRD,
    TURNED_CORNER,
    flat,
    halves,
    i420_source,
    jpeg_size,
    marked_picture,
    mean,
    numbered_source,
    paint,
    png_bytes,
    push_until,
    read_png,
    red_corner,
    top_band,
    wait_until,
)

VideoState = agoraish.RemoteVideoState
Reason = agoraish.RemoteVideoStateReason


@pytest.fixture
def call(tmp_path: Path) -> Iterator[Call]:
    c = Call(tmp_path)
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def preview(make_engine) -> Tuple[agoraish.RtcEngine, Events]:
    """An engine outside any call, video on, pictures pushed through an external source."""
    events = Events()
    engine = make_engine(events)
    engine.enable_video()
    engine.set_external_video_source(True)
    return engine, events


# --------------------------------------------------------------------------
# The local canvas and the preview
# --------------------------------------------------------------------------


def left_is_dark(frame: Dict[str, Any]) -> bool:
    w, h = frame["width"], frame["height"]
    return mean(frame["y"], w, 8, 8, w // 2 - 8, h - 8) < 60 and mean(frame["y"], w, w // 2 + 8, 8, w - 8, h - 8) > 180


def right_is_dark(frame: Dict[str, Any]) -> bool:
    w, h = frame["width"], frame["height"]
    return mean(frame["y"], w, 8, 8, w // 2 - 8, h - 8) > 180 and mean(frame["y"], w, w // 2 + 8, 8, w - 8, h - 8) < 60


def test_preview_shows_local_pictures_mirrored_by_default(preview):
    engine, events = preview
    sink = Sink()
    engine.setup_local_video(sink)
    engine.start_preview()
    source = i420_source(halves(), 320, 240)
    push_until(engine, source, lambda: sink.count() >= 3, "preview pictures")
    frames = sink.since(0)
    assert all(f["uid"] == 0 and (f["width"], f["height"]) == (320, 240) for f in frames)
    assert all(not f["writable"] for f in frames), "the canvas gets read-only planes"
    assert all(right_is_dark(f) for f in frames), "AUTO mirrors the local preview"
    assert events.wait_for("first_local_video_frame")[:2] == (320, 240)
    assert events.wait_for("local_video_state")[0] == agoraish.LocalVideoStreamState.CAPTURING

    # DISABLED: the preview as it is pushed.
    engine.set_local_render_mode(agoraish.RenderMode.HIDDEN, agoraish.VideoMirrorMode.DISABLED)
    start = sink.count()
    push_until(engine, source, lambda: any(left_is_dark(f) for f in sink.since(start)), "unmirrored picture")
    unmirrored = Sink()
    engine.setup_local_video(unmirrored, mirror_mode=agoraish.VideoMirrorMode.DISABLED)
    push_until(engine, source, lambda: unmirrored.count() >= 3, "pictures in the new canvas")
    assert all(left_is_dark(f) for f in unmirrored.since(0))

    # stop_preview: pictures pushed outside a call no longer reach the canvas.
    engine.stop_preview()
    engine.setup_local_video(None)  # waits for pictures already on their way
    stopped = unmirrored.count()
    engine.setup_local_video(unmirrored, mirror_mode=agoraish.VideoMirrorMode.DISABLED)
    for k in range(8):
        engine.push_external_video_frame(320, 240, *halves(), timestamp=k * 66)
    engine.setup_local_video(None)
    assert unmirrored.count() == stopped, "pictures reached the canvas after stop_preview"


@pytest.mark.parametrize("mode", [agoraish.RenderMode.FIT, agoraish.RenderMode.HIDDEN, agoraish.RenderMode.FILL,
                                  agoraish.RenderMode.ADAPTIVE], ids=lambda m: m.name)
def test_render_modes_fit_pictures_to_the_view(preview, mode):
    # A 4:3 picture (a dark band over its top 24 rows) in a 16:9 view of 320 x 180.
    engine, _ = preview
    sink = Sink()
    engine.setup_local_video(sink, render_mode=mode, mirror_mode=agoraish.VideoMirrorMode.DISABLED,
                             view_width=320, view_height=180)
    engine.start_preview()
    push_until(engine, i420_source(top_band(), 320, 240), lambda: sink.count() >= 3, "pictures")
    frame = sink.since(0)[-1]
    assert (frame["width"], frame["height"]) == (320, 180), "the view's size"
    y, v = frame["y"], frame["v"]
    side = mean(y, 320, 0, 60, 30, 120)  # left edge, middle rows
    top_middle = mean(y, 320, 140, 4, 180, 12)
    if mode == agoraish.RenderMode.FIT:
        # 240 x 180 in the middle, black bars (luma 16, grey chroma) of 40 columns on each side.
        assert abs(side - 16) <= 2 and abs(mean(y, 320, 290, 60, 320, 120) - 16) <= 2, side
        assert abs(mean(v, 160, 0, 30, 15, 60) - 128) <= 2, "the bars are black, not coloured"
        assert top_middle < 60, "the whole picture is shown: its band too"
        assert mean(y, 320, 60, 60, 260, 120) > 180
    elif mode == agoraish.RenderMode.FILL:
        assert side > 180, "stretched: no bars"
        assert top_middle < 60, "stretched: the band is still there"
    else:  # HIDDEN and ADAPTIVE: scaled to cover, 30 rows cut at the top and bottom
        assert side > 180, "covered: no bars"
        assert top_middle > 180, "the band is cropped away"
        assert mean(y, 320, 0, 0, 320, 180) > 180


def test_odd_view_sides_are_rounded_down_to_even(preview):
    engine, _ = preview
    sink = Sink()
    engine.setup_local_video(sink, render_mode=agoraish.RenderMode.FILL, view_width=161, view_height=91)
    engine.start_preview()
    push_until(engine, i420_source(flat(64, 48), 64, 48), lambda: sink.count() >= 2, "pictures")
    assert {(f["width"], f["height"]) for f in sink.since(0)} == {(160, 90)}


def test_a_remote_canvas_with_a_view_size_and_mirror_mode(call):
    call.sender()
    receiver = call.engine(RECEIVER)
    sink = Sink()
    # A 4:3 picture in a square view: FIT leaves bars at the top and the bottom.
    receiver.setup_remote_video(SENDER, sink, render_mode=agoraish.RenderMode.FIT,
                                mirror_mode=agoraish.VideoMirrorMode.ENABLED, view_width=160, view_height=160)
    call.join(SENDER, RECEIVER)
    call.push(SENDER, i420_source(halves(), 320, 240))
    frame = sink.wait(3)[-1]
    assert (frame["width"], frame["height"]) == (160, 160)
    y = frame["y"]
    assert abs(mean(y, 160, 0, 0, 160, 16) - 16) <= 2 and abs(mean(y, 160, 0, 144, 160, 160) - 16) <= 2, "bars"
    assert mean(y, 160, 8, 40, 72, 120) > 180 and mean(y, 160, 88, 40, 152, 120) < 60, "mirrored (ENABLED)"
    assert all(f["uid"] == SENDER for f in sink.since(0))

    # Changed while bound: stretched, as sent.
    receiver.set_remote_render_mode(SENDER, agoraish.RenderMode.FILL, agoraish.VideoMirrorMode.AUTO)
    start = sink.count()
    frame = sink.wait_for(lambda f: mean(f["y"], 160, 0, 0, 160, 16) > 30, after=start, what="a picture without bars")
    assert (frame["width"], frame["height"]) == (160, 160)
    assert left_is_dark(frame), "AUTO does not mirror remote users"


def test_local_render_mode_needs_a_canvas_and_known_modes(make_engine):
    engine = make_engine()
    with pytest.raises(agoraish.AgoraishError) as error:
        engine.set_local_render_mode(agoraish.RenderMode.FIT)
    assert error.value.code == -3, "no local canvas"
    with pytest.raises(agoraish.AgoraishError) as error:
        engine.set_remote_render_mode(5, agoraish.RenderMode.FIT)
    assert error.value.code == -3, "no canvas for uid 5"
    engine.setup_local_video(lambda frame: None)
    engine.setup_remote_video(5, lambda frame: None, render_mode=agoraish.RenderMode.FILL, view_width=64,
                              view_height=64)
    engine.set_local_render_mode(agoraish.RenderMode.FIT, agoraish.VideoMirrorMode.ENABLED)
    engine.set_remote_render_mode(5, agoraish.RenderMode.HIDDEN)
    for call_it, code in ((lambda: engine.set_local_render_mode(0), -2),
                          (lambda: engine.set_local_render_mode(1, 3), -2),
                          (lambda: engine.set_remote_render_mode(0, 1), -2),
                          (lambda: engine.set_remote_render_mode(5, 5), -2),
                          (lambda: engine.setup_local_video(print, render_mode=9), -2),
                          (lambda: engine.setup_local_video(print, view_width=640), -2),
                          (lambda: engine.setup_remote_video(5, print, mirror_mode=-1), -2),
                          (lambda: engine.setup_remote_video(5, print, view_width=4097, view_height=8), -2)):
        with pytest.raises(agoraish.AgoraishError) as error:
            call_it()
        assert error.value.code == code
    with pytest.raises(TypeError):
        engine.setup_local_video(42)  # type: ignore[arg-type]
    engine.setup_local_video(None)
    engine.setup_remote_video(5, None)


# --------------------------------------------------------------------------
# Video frame observers
# --------------------------------------------------------------------------


class Painter(agoraish.VideoFrameObserver):
    """Paints a black square (luma 16) into each captured picture; records what it saw."""

    SQUARE = (120, 96, 200, 176)  # x0, y0, x1, y1: below the number bars

    def __init__(self, keep: bool = True) -> None:
        self.keep = keep
        self.seen: List[Tuple[int, int, int, bool, int]] = []

    def on_capture_video_frame(self, frame: agoraish.VideoFrame) -> bool:
        self.seen.append((frame.uid, frame.width, frame.height, frame.writable, frame.render_time_ms))
        paint(frame.y, frame.y_stride, *self.SQUARE, 16)
        return self.keep


def square_is_black(frame: Dict[str, Any]) -> bool:
    x0, y0, x1, y1 = Painter.SQUARE
    return frame["width"] == 320 and mean(frame["y"], 320, x0 + 4, y0 + 4, x1 - 4, y1 - 4) < 30


def test_capture_observer_changes_what_the_receiver_sees(call):
    sender = call.sender()
    painter = Painter()
    sender.register_video_frame_observer(painter)
    receiver = call.engine(RECEIVER)
    sink = Sink()
    receiver.setup_remote_video(SENDER, sink)
    call.join(SENDER, RECEIVER)
    pusher = call.push(SENDER, numbered_source)
    frames = sink.wait(10)
    assert all(square_is_black(f) for f in frames), "the painted square is sent"
    numbers = {number_of(f["y"], 320) for f in frames}
    assert len(numbers) > 3 and numbers <= {k & 0xFF for k in pusher.pushed}, "the rest of the picture is intact"
    uid, width, height, writable, stamp = painter.seen[0]
    assert (uid, width, height, writable) == (0, 320, 240, True)
    assert [s[4] for s in painter.seen[:3]] == [k * 1000 // FPS for k in range(3)], "the pushed timestamps"

    # Unregistered: the next pictures arrive as pushed.
    sender.register_video_frame_observer(None)
    seen = len(painter.seen)
    pusher.wait_more(2)
    start = sink.count()
    sink.wait_for(lambda f: not square_is_black(f), after=start, what="an unpainted picture")
    assert len(painter.seen) <= seen + 1, "the observer is called after it was removed"


def test_capture_observer_returning_false_drops_the_pictures(call):
    sender = call.sender()
    dropper = Painter(keep=False)
    sender.register_video_frame_observer(dropper)
    receiver = call.engine(RECEIVER)
    sink = Sink()
    receiver.setup_remote_video(SENDER, sink)
    call.join(SENDER, RECEIVER)
    pusher = call.push(SENDER, numbered_source)
    pusher.wait_pushed(2 * FPS)  # two seconds of pictures, all dropped
    while len(dropper.seen) < 2 * FPS:
        pusher.wait_more(1)
    assert sink.count() == 0, f"{sink.count()} pictures arrived although the observer dropped every one"
    assert not call.events[SENDER].all("first_local_video_frame_published"), "nothing was sent"
    sender.register_video_frame_observer(None)
    sink.wait(3)


class RenderPainter(agoraish.VideoFrameObserver):
    """Paints a white square (luma 235) into each remote picture, or drops it."""

    def __init__(self) -> None:
        self.keep = True
        self.uids: List[int] = []
        self.errors: List[BaseException] = []

    def on_render_video_frame(self, uid: int, frame: agoraish.VideoFrame) -> bool:
        self.uids.append(uid)
        try:
            y, _, _ = frame.numpy() if _has_numpy() else (None, None, None)
            if y is not None:
                assert y.flags.writeable and y.shape == (frame.height, frame.width)
                y[8:40, 8:40] = 235
            else:
                paint(frame.y, frame.y_stride, 8, 8, 40, 40, 235)
        except BaseException as error:
            self.errors.append(error)
        return self.keep


def _has_numpy() -> bool:
    try:
        import numpy  # noqa: F401
    except ModuleNotFoundError:
        return False
    return True


def test_render_observer_changes_what_the_sink_gets_and_can_drop_it(call):
    sender = call.sender()
    receiver = call.engine(RECEIVER)
    observer = RenderPainter()
    receiver.register_video_frame_observer(observer)
    assert observer.__class__.on_capture_video_frame is agoraish.VideoFrameObserver.on_capture_video_frame
    sink = Sink()
    receiver.setup_remote_video(SENDER, sink)
    call.join(SENDER, RECEIVER)
    pusher = call.push(SENDER, i420_source(flat(320, 240, 60), 320, 240))
    frames = sink.wait(5)
    assert all(mean(f["y"], 320, 12, 12, 36, 36) > 220 for f in frames), "the painted square reaches the sink"
    assert all(mean(f["y"], 320, 100, 100, 200, 200) < 80 for f in frames), "the rest as pushed"
    assert not observer.errors, observer.errors
    assert set(observer.uids) == {SENDER}
    call.events[RECEIVER].wait_for("first_remote_video_frame", lambda uid, w, h, e: (uid, w, h) == (SENDER, 320, 240))

    observer.keep = False
    pusher.wait_more(FPS // 2)  # pictures already past the observer may still render
    stopped = sink.count()
    calls = len(observer.uids)
    pusher.wait_more(FPS)
    while len(observer.uids) < calls + FPS // 2:
        pusher.wait_more(1)
    assert sink.count() <= stopped + 1, "dropped pictures reached the sink"
    observer.keep = True
    sink.wait(sink.count() + 3)


class Sizes(agoraish.VideoFrameObserver):
    """Records the sizes seen at capture and before encoding, and a sample of their left halves."""

    def __init__(self) -> None:
        self.capture: List[Tuple[int, int]] = []
        self.pre_encode: List[Tuple[int, int, float, float]] = []

    def on_capture_video_frame(self, frame: agoraish.VideoFrame) -> bool:
        self.capture.append((frame.width, frame.height))
        return True

    def on_pre_encode_video_frame(self, frame: agoraish.VideoFrame) -> bool:
        w, h, s = frame.width, frame.height, frame.y_stride
        y = frame.y
        left = sum(y[(h // 2) * s + x] for x in range(2, w // 4)) / (w // 4 - 2)
        right = sum(y[(h // 2) * s + x] for x in range(w - w // 4, w - 2)) / (w // 4 - 2)
        self.pre_encode.append((w, h, left, right))
        return True


def test_pre_encode_observer_sees_the_encoded_size_and_mirror_mode(call):
    sender = call.sender(width=160, height=120, bitrate=200, mirror_mode=agoraish.VideoMirrorMode.ENABLED)
    sizes = Sizes()
    sender.register_video_frame_observer(sizes)
    receiver = call.engine(RECEIVER)
    sink = Sink()
    receiver.setup_remote_video(SENDER, sink)
    call.join(SENDER, RECEIVER)
    call.push(SENDER, i420_source(halves(), 320, 240))
    frames = sink.wait(5)
    assert (frames[-1]["width"], frames[-1]["height"]) == (160, 120)
    assert right_is_dark(frames[-1]), "the sent stream is mirrored (mirror_mode ENABLED)"
    wait_until(lambda: len(sizes.pre_encode) >= 5, "pre-encode pictures")
    assert set(sizes.capture) == {(320, 240)}, "captured at the pushed size"
    w, h, left, right = sizes.pre_encode[-1]
    assert (w, h) == (160, 120), "scaled down to the configuration before encoding"
    assert left > 180 and right < 60, "mirrored before the pre-encode observer"
    stats = call.events[SENDER].wait_for("local_video_stats", lambda s: s.encoded_frame_count > 0)[0]
    assert (stats.encoded_frame_width, stats.encoded_frame_height) == (160, 120)

    # FIXED_PORTRAIT: a landscape picture is cropped around its centre to the portrait box.
    mark = len(sizes.pre_encode)
    sender.set_video_encoder_configuration(240, 320, frame_rate=FPS, bitrate=300,
                                           orientation_mode=agoraish.OrientationMode.FIXED_PORTRAIT)
    wait_until(lambda: any(s[:2] == (180, 240) for s in sizes.pre_encode[mark:]), "a 180 x 240 picture")
    start = sink.count()
    sink.wait_for(lambda f: (f["width"], f["height"]) == (180, 240), after=start, what="a cropped portrait picture")


def test_observer_exceptions_are_reported_and_the_picture_kept(preview, monkeypatch):
    engine, _ = preview
    reports: List[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", reports.append)

    class Failing(agoraish.VideoFrameObserver):
        def on_capture_video_frame(self, frame):
            paint(frame.y, frame.y_stride, 0, 0, frame.width, frame.height, 16)
            raise RuntimeError("observer failure")

    observer = Failing()
    engine.register_video_frame_observer(observer)
    sink = Sink()
    engine.setup_local_video(sink, mirror_mode=agoraish.VideoMirrorMode.DISABLED)
    engine.start_preview()
    push_until(engine, i420_source(flat(64, 48, 128), 64, 48), lambda: sink.count() >= 3, "pictures")
    assert len(reports) >= 3
    assert reports[0].exc_type is RuntimeError and "on_capture_video_frame" in reports[0].err_msg
    assert reports[0].object is observer
    # The picture is kept; what was written before the exception stays written.
    assert all(mean(f["y"], 64, 0, 0, 64, 48) < 20 for f in sink.since(0))


def test_observer_positions_follow_the_overridden_methods(make_engine):
    from agoraish.engine import _observed_video_positions

    P = agoraish.VideoObserverPosition
    assert _observed_video_positions(Painter()) == P.POST_CAPTURER
    assert _observed_video_positions(RenderPainter()) == P.PRE_RENDERER
    assert _observed_video_positions(Sizes()) == P.POST_CAPTURER | P.PRE_ENCODER
    engine = make_engine()
    engine.register_video_frame_observer(Sizes(), positions=P.PRE_ENCODER)
    engine.register_video_frame_observer(Painter(), positions=0)  # Agora's default positions
    for positions in (8, -1):
        with pytest.raises(agoraish.AgoraishError) as error:
            engine.register_video_frame_observer(Painter(), positions=positions)
        assert error.value.code == -2
    engine.register_video_frame_observer(None)
    engine.register_video_frame_observer(None)


def test_a_frame_is_valid_during_its_callback_only(preview):
    engine, _ = preview
    kept: List[agoraish.VideoFrame] = []

    class Keeper(agoraish.VideoFrameObserver):
        def on_capture_video_frame(self, frame):
            if not kept:
                kept.append(frame)
                assert frame.y.readonly is False and len(frame.planes) == 3
                assert "writable" in repr(frame)
            return True

    engine.register_video_frame_observer(Keeper())
    engine.push_external_video_frame(64, 48, *flat(64, 48))
    assert kept, "the capture observer runs on the pushing thread, during the push"
    frame = kept[0]
    assert (frame.width, frame.height, frame.uid, frame.writable) == (64, 48, 0, True)
    for use in (lambda: frame.y, lambda: frame.planes, frame.to_bytes):
        with pytest.raises(ValueError):
            use()


# --------------------------------------------------------------------------
# Rotation, VP9
# --------------------------------------------------------------------------


def test_rotated_pictures_arrive_turned_in_every_pixel_format(call):
    sender = call.sender(width=320, height=240, bitrate=400)
    receiver = call.engine(RECEIVER)
    sink = Sink()
    receiver.setup_remote_video(SENDER, sink)
    call.join(SENDER, RECEIVER)
    width, height = 160, 96
    F = agoraish.VideoPixelFormat
    current: Dict[str, Any] = {"args": {**marked_picture(F.I420, width, height), "rotation": 0}}
    pusher = call.push(SENDER, lambda k: {"width": width, "height": height, **current["args"]})
    sink.wait_for(lambda f: red_corner(f) == "tl", what="the upright picture")
    failures = []
    for fmt in (F.I420, F.NV12, F.NV21, F.RGBA, F.BGRA):
        for rotation in (90, 180, 270, 0):
            size = (height, width) if rotation in (90, 270) else (width, height)
            start = sink.count()
            current["args"] = {**marked_picture(fmt, width, height), "rotation": rotation}
            try:
                sink.wait_for(lambda f: (f["width"], f["height"]) == size and red_corner(f) == TURNED_CORNER[rotation],
                              after=start, timeout=15, what=f"{fmt.name} turned {rotation}")
            except AssertionError as error:
                last = sink.since(start)[-1:] or [{"width": 0, "height": 0, "v": b""}]
                failures.append((fmt.name, rotation, str(error).split(";")[0],
                                 (last[0]["width"], last[0]["height"]), red_corner(last[0]) if last[0]["v"] else None))
    assert not failures, failures
    assert pusher.count() > 0


def test_vp9_end_to_end(call):
    sender = call.sender(codec_type=agoraish.VideoCodecType.VP9)
    receiver = call.engine(RECEIVER)
    sink = Sink()
    receiver.setup_remote_video(SENDER, sink)
    call.join(SENDER, RECEIVER)
    pusher = call.push(SENDER, numbered_source)
    uid, width, height, _ = call.events[RECEIVER].wait_for("first_remote_video_decoded")
    assert (uid, width, height) == (SENDER, 320, 240)
    start = sink.count()
    pusher.wait_more(3 * FPS)
    frames = sink.wait(start + 2 * FPS)[start:]
    assert all((f["width"], f["height"]) == (320, 240) for f in frames)
    psnr = [luma_psnr(f["y"], picture(number_of(f["y"], 320))[0]) for f in frames]
    assert min(psnr) > 30, f"VP9 luma PSNR at 600 Kbps: worst {min(psnr):.1f} dB, mean {sum(psnr) / len(psnr):.1f}"
    stats = call.events[SENDER].wait_for("local_video_stats", lambda s: s.encoded_frame_count > 0)[0]
    assert stats.codec_type == agoraish.VideoCodecType.VP9


# --------------------------------------------------------------------------
# Dual stream
# --------------------------------------------------------------------------


def test_dual_stream_lets_each_subscriber_choose_its_stream(call):
    publisher = call.sender(width=640, height=360, bitrate=800)
    publisher.enable_dual_stream_mode(True)
    high_sink, low_sink = Sink(), Sink()
    call.engine(RECEIVER).setup_remote_video(SENDER, high_sink)
    second = call.engine(THIRD)
    second.setup_remote_video(SENDER, low_sink)
    second.set_remote_video_stream_type(SENDER, agoraish.VideoStreamType.LOW)  # before the publisher is there
    before = call.metrics()
    call.join(SENDER, RECEIVER, THIRD)
    planes = flat(640, 360, 90)
    call.push(SENDER, i420_source(planes, 640, 360))

    def size(w: int, h: int) -> Callable[[Dict[str, Any]], bool]:
        return lambda f: (f["width"], f["height"]) == (w, h)

    high_sink.wait_for(size(640, 360), what="a 640 x 360 picture (high stream)")
    low_sink.wait_for(size(320, 180), what="a 320 x 180 picture (low stream)")
    start = high_sink.count()
    assert all(size(640, 360)(f) for f in high_sink.wait(start + 5)[start:]), "subscriber 1 stays on high"
    start = low_sink.count()
    assert all(size(320, 180)(f) for f in low_sink.wait(start + 5)[start:]), "subscriber 2 stays on low"
    stats = call.events[THIRD].wait_for("remote_video_stats", lambda s: s.uid == SENDER and s.width == 320)[0]
    assert stats.rx_stream_type == agoraish.VideoStreamType.LOW

    # Back to the high stream, at its next keyframe.
    start = low_sink.count()
    second.set_remote_video_stream_type(SENDER, agoraish.VideoStreamType.HIGH)
    low_sink.wait_for(size(640, 360), after=start, what="the high stream again")
    start = low_sink.count()
    assert all(size(640, 360)(f) for f in low_sink.wait(start + 5)[start:])

    # The default for users not named: subscriber 1 moves to the low stream.
    start = high_sink.count()
    call.engines[RECEIVER].set_remote_default_video_stream_type(agoraish.VideoStreamType.LOW)
    high_sink.wait_for(size(320, 180), after=start, what="the low stream by default")

    after = call.metrics()
    drops = 'agoraish_media_drops_total{reason="other_layer"}'
    assert after[drops] > before.get(drops, 0), "the server withholds the stream a subscriber does not want"
    assert after["agoraish_media_layer_switches_total"] > before.get("agoraish_media_layer_switches_total", 0)


# --------------------------------------------------------------------------
# States, statistics, loss
# --------------------------------------------------------------------------


def test_remote_video_states_follow_the_stream(call):
    sender = call.sender()
    receiver = call.engine(RECEIVER)
    sink = Sink()
    receiver.setup_remote_video(SENDER, sink)
    call.join(SENDER, RECEIVER)
    events = call.events[RECEIVER]
    pusher = call.push(SENDER, numbered_source)

    def state_is(state: int, reason: Optional[int] = None) -> Callable[..., bool]:
        return lambda uid, s, r, elapsed: uid == SENDER and s == state and (reason is None or r == reason)

    events.wait_for("remote_video_state", state_is(VideoState.DECODING))
    states = [(s, r) for uid, s, r, _ in events.all("remote_video_state") if uid == SENDER]
    assert states[0][0] == VideoState.STARTING and states[1][0] == VideoState.DECODING, states
    assert all(e >= 0 for *_, e in events.all("remote_video_state"))

    # The publisher mutes: STOPPED (REMOTE_MUTED); unmutes: DECODING again (REMOTE_UNMUTED).
    mark = events.mark()
    sender.mute_local_video_stream(True)
    events.wait_for("user_mute_video", after=mark)
    events.wait_for("remote_video_state", state_is(VideoState.STOPPED, Reason.REMOTE_MUTED), after=mark)
    pusher.wait_more(FPS)  # one second muted: not a freeze
    assert not [a for a in events.all("remote_video_state", after=mark) if a[1] == VideoState.FROZEN]
    mark = events.mark()
    sender.mute_local_video_stream(False)
    events.wait_for("remote_video_state", state_is(VideoState.DECODING, Reason.REMOTE_UNMUTED), after=mark)

    # The publisher stops pushing, unmuted: FROZEN after 500 ms, DECODING (NETWORK_RECOVERY) when it resumes.
    mark = events.mark()
    pusher.pause()
    events.wait_for("remote_video_state", state_is(VideoState.FROZEN), after=mark)
    frozen = [a for a in events.all("remote_video_state", after=mark) if a[1] == VideoState.FROZEN][0]
    assert frozen[2] == Reason.NETWORK_CONGESTION
    mark = events.mark()
    pusher.resume()
    events.wait_for("remote_video_state", state_is(VideoState.DECODING, Reason.NETWORK_RECOVERY), after=mark)
    stats = events.wait_for("remote_video_stats", lambda s: s.uid == SENDER and s.total_frozen_time >= 500,
                            after=mark)[0]
    assert stats.total_active_time >= stats.total_frozen_time

    # The publisher leaves: STOPPED (REMOTE_OFFLINE).
    mark = events.mark()
    pusher.stop()
    sender.leave_channel()
    events.wait_for("remote_video_state", state_is(VideoState.STOPPED, Reason.REMOTE_OFFLINE), after=mark)


def test_video_statistics_every_two_seconds(call):
    call.sender()
    receiver = call.engine(RECEIVER)
    receiver.setup_remote_video(SENDER, Sink())
    call.join(SENDER, RECEIVER)
    call.push(SENDER, numbered_source)
    remote_events, local_events = call.events[RECEIVER], call.events[SENDER]
    remote_events.wait_for("remote_video_stats", lambda s: s.decoder_output_frame_rate > 0)
    mark = remote_events.mark()
    remote_events.wait_for("remote_video_stats", lambda s: s.decoder_output_frame_rate > 0, after=mark)
    remote = remote_events.wait_for("remote_video_stats", lambda s: s.decoder_output_frame_rate > 0,
                                    after=remote_events.mark())[0]
    assert remote.uid == SENDER and (remote.width, remote.height) == (320, 240)
    assert remote.received_bitrate > 0 and remote.renderer_output_frame_rate > 0
    assert remote.rx_stream_type == agoraish.VideoStreamType.HIGH
    assert remote.publish_duration >= remote.total_active_time > 0
    assert 0 <= remote.total_frozen_time <= remote.total_active_time
    times = remote_events.times("remote_video_stats")
    gaps = [b - a for a, b in zip(times, times[1:])]
    # Every 2 s; each report may reach Python a little late on a loaded machine.
    assert all(0.5 < gap < 5.0 for gap in gaps) and 1.4 < sum(gaps) / len(gaps) < 3.0, f"every 2 s: {gaps}"

    local = local_events.wait_for("local_video_stats", lambda s: s.sent_bitrate > 0 and s.encoded_frame_count > 0)[0]
    assert (local.encoded_frame_width, local.encoded_frame_height) == (320, 240)
    assert local.encoded_bitrate > 0 and local.sent_frame_rate > 0 and local.encoder_output_frame_rate > 0
    assert local.capture_frame_rate > 0 and local.target_bitrate == 600 and local.target_frame_rate == FPS
    assert local.codec_type == agoraish.VideoCodecType.VP8
    assert local.sent_bitrate >= local.encoded_bitrate, "RTP carries the encoded video and its headers"


def test_rendering_goes_on_with_five_percent_loss(call):
    call.sender()
    receiver = call.engine(RECEIVER)
    receiver.set_parameters({"rtc.network_simulation": {"loss_percent": 5, "seed": 7}})
    sink = Sink()
    receiver.setup_remote_video(SENDER, sink)
    call.join(SENDER, RECEIVER)
    pusher = call.push(SENDER, numbered_source)
    sink.wait(1)
    # Three windows of two seconds of pictures each: every one renders a good part of what was pushed.
    for window in range(3):
        start, pushed = sink.count(), pusher.count()
        pusher.wait_more(2 * FPS)
        rendered, sent = sink.count() - start, pusher.count() - pushed
        assert rendered >= sent / 3, f"window {window}: {rendered} of {sent} pictures rendered with 5 % loss"
    events = call.events[RECEIVER]
    reports = [s for (s,) in events.all("remote_video_stats") if s.uid == SENDER]
    assert reports, "no remote video statistics"
    for stats in reports:
        assert stats.total_frozen_time >= 0 and 0 <= stats.frozen_rate <= 100
        if stats.total_active_time > 0:
            assert abs(stats.frozen_rate - stats.total_frozen_time * 100 / stats.total_active_time) <= 1, stats
    assert any(s.packet_loss_rate > 0 for s in reports), [s.packet_loss_rate for s in reports]


def _every_two_seconds(times: List[float], what: str) -> None:
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert gaps, f"{what}: fewer than two reports"
    # Every 2 s; each report may reach Python a little late on a loaded machine.
    assert all(0.5 < gap < 5.0 for gap in gaps) and 1.4 < sum(gaps) / len(gaps) < 3.0, f"{what} every 2 s: {gaps}"


def test_network_quality_and_loss_with_twenty_percent_loss(call):
    Quality = agoraish.QualityType
    call.sender()
    receiver = call.engine(RECEIVER)
    receiver.set_parameters({"rtc.network_simulation": {"loss_percent": 20, "seed": 11}})
    receiver.setup_remote_video(SENDER, Sink())
    call.join(SENDER, RECEIVER)
    pusher = call.push(SENDER, numbered_source)
    sent, received = call.events[SENDER], call.events[RECEIVER]
    received.wait_for("first_remote_video_decoded")
    pusher.wait_more(5 * FPS)  # about 5 s of video with 20 % of it lost on the way in
    mark_sent, mark_received = sent.mark(), received.mark()

    # The receiver: uid 0 first, then the sender (tx UNKNOWN, rx from its media), every 2 s.
    for _ in range(2):
        received.wait_for("network_quality", lambda uid, tx, rx: uid == SENDER, after=received.mark())
    qualities = received.all("network_quality")
    remote = [(tx, rx) for uid, tx, rx in qualities if uid == SENDER]
    assert all(tx == Quality.UNKNOWN for tx, _ in remote), remote
    for i, (uid, _, _) in enumerate(qualities):
        if uid == SENDER:
            assert i > 0 and qualities[i - 1][0] == 0, f"uid 0 comes before the remote user: {qualities}"
    _every_two_seconds(received.times("network_quality", lambda uid, tx, rx: uid == 0), "receiver, uid 0")
    _every_two_seconds(received.times("network_quality", lambda uid, tx, rx: uid == SENDER), "receiver, the sender")
    late = [rx for uid, _, rx in received.all("network_quality", after=mark_received) if uid == SENDER]
    assert late and all(Quality.POOR <= rx <= Quality.DOWN for rx in late), f"rx of the sender with 20 % loss: {late}"
    late_local = [rx for uid, _, rx in received.all("network_quality", after=mark_received) if uid == 0]
    assert late_local and all(Quality.POOR <= rx <= Quality.DOWN for rx in late_local), late_local
    stats = received.wait_for("rtc_stats", lambda s: s.rx_video_kbitrate > 0, after=mark_received)[0]
    assert stats.rx_packet_loss_rate >= 5, stats
    assert stats.gateway_rtt >= 0 and stats.lastmile_delay >= 0, stats

    # The sender's own report: its video reaches the server whole.
    own = [(tx, rx) for uid, tx, rx in sent.all("network_quality", after=mark_sent) if uid == 0]
    if not own:
        own = [sent.wait_for("network_quality", lambda uid, tx, rx: uid == 0, after=mark_sent)[1:]]
    assert all(tx in (Quality.EXCELLENT, Quality.GOOD) for tx, _ in own), f"the sender's tx without loss: {own}"
    _every_two_seconds(sent.times("network_quality", lambda uid, tx, rx: uid == 0), "sender, uid 0")
    stats = sent.wait_for("rtc_stats", lambda s: s.tx_video_kbitrate > 0, after=mark_sent)[0]
    assert stats.tx_packet_loss_rate == 0, stats
    assert stats.gateway_rtt >= 0 and abs(2 * stats.lastmile_delay - stats.gateway_rtt) <= 1, stats


# --------------------------------------------------------------------------
# Snapshots and watermarks
# --------------------------------------------------------------------------


def test_snapshots_of_remote_and_local_pictures(call, tmp_path):
    sender = call.sender()
    receiver = call.engine(RECEIVER)
    receiver.setup_remote_video(SENDER, Sink())
    with pytest.raises(agoraish.AgoraishError) as error:
        receiver.take_snapshot(SENDER, tmp_path / "early.jpg")
    assert error.value.code == -113, "outside a call"
    with pytest.raises(agoraish.AgoraishError) as error:
        receiver.take_snapshot(SENDER, tmp_path / "bad.bmp")
    assert error.value.code == -2, "neither JPEG nor PNG"
    call.join(SENDER, RECEIVER)
    pusher = call.push(SENDER, numbered_source)
    call.events[RECEIVER].wait_for("first_remote_video_decoded")
    with pytest.raises(agoraish.AgoraishError) as error:
        receiver.take_snapshot(SENDER, tmp_path / "bad.bmp")
    assert error.value.code == -2
    wanted = [(receiver, RECEIVER, SENDER, tmp_path / "remote.jpg"), (receiver, RECEIVER, SENDER, tmp_path / "remote.png"),
              (sender, SENDER, 0, tmp_path / "local.jpeg"), (sender, SENDER, 0, tmp_path / "local.png")]
    for engine, _, uid, path in wanted:
        engine.take_snapshot(uid, path)
    for _, owner, uid, path in wanted:
        got = call.events[owner].wait_for("snapshot", lambda u, p, w, h, e, path=path: p == str(path))
        assert got == (uid, str(path), 320, 240, 0), got
        data = path.read_bytes()
        if path.suffix in (".jpg", ".jpeg"):
            assert data[:2] == b"\xff\xd8" and data[-2:] == b"\xff\xd9", "a JPEG file"
            assert jpeg_size(data) == (320, 240)
        else:
            width, height, bpp, pixels = read_png(data)
            assert (width, height) == (320, 240)
            green = pixels[1::bpp]  # grey pictures: any channel is the luma, in full range
            assert number_of(green, 320) in {k & 0xFF for k in pusher.pushed}, "the picture pushed"
    # A snapshot of a user who never sends fails when the call ends.
    receiver.take_snapshot(4242, tmp_path / "never.png")
    receiver.leave_channel()
    got = call.events[RECEIVER].wait_for("snapshot", lambda u, p, w, h, e: u == 4242)
    assert got == (4242, str(tmp_path / "never.png"), 0, 0, -1)
    assert not (tmp_path / "never.png").exists()


def test_a_png_watermark_is_blended_into_the_sent_picture(call, tmp_path):
    sender = call.sender()
    receiver = call.engine(RECEIVER)
    sink = Sink()
    receiver.setup_remote_video(SENDER, sink)
    local = Sink()
    sender.setup_local_video(local, mirror_mode=agoraish.VideoMirrorMode.DISABLED)
    mark_path = tmp_path / "red.png"
    mark_path.write_bytes(png_bytes(32, 32, RED_RGBA))
    (tmp_path / "not.png").write_text("not a PNG file")
    with pytest.raises(agoraish.AgoraishError) as error:
        sender.add_video_watermark(tmp_path / "not.png", (0, 0, 64, 64))
    assert error.value.code == -2
    with pytest.raises(agoraish.AgoraishError) as error:
        sender.add_video_watermark(mark_path, (0, 0, 0, 64))
    assert error.value.code == -2, "an empty rectangle"
    sender.add_video_watermark(mark_path, agoraish.Rectangle(0, 0, 64, 64))
    call.join(SENDER, RECEIVER)
    call.push(SENDER, i420_source(flat(320, 240, *GREY_YUV), 320, 240))

    def marked(f: Dict[str, Any]) -> bool:
        return (f["width"] == 320 and mean(f["v"], 160, 2, 2, 30, 30) > 200 and mean(f["y"], 320, 4, 4, 60, 60) < 100
                and abs(mean(f["v"], 160, 40, 40, 160, 120) - 128) < 4 and abs(mean(f["y"], 320, 80, 80, 320, 240)
                                                                                - GREY_YUV[0]) < 4)

    def clean(f: Dict[str, Any]) -> bool:
        return f["width"] == 320 and abs(mean(f["v"], 160, 2, 2, 30, 30) - 128) < 4

    frame = sink.wait_for(marked, what="a red top-left block over an unchanged picture")
    assert mean(frame["v"], 160, 34, 0, 40, 30) < 140, "the block ends at 64 pixels"
    local.wait_for(marked, what="the watermark in the preview (visible_in_preview)")

    # Not in the preview, still sent.
    sender.add_video_watermark(mark_path, (0, 0, 64, 64), visible_in_preview=False)
    start = local.count()
    local.wait_for(clean, after=start, what="a preview without the watermark")
    start = sink.count()
    assert all(marked(f) for f in sink.wait(start + 3)[start + 1:])

    sender.clear_video_watermarks()
    start = sink.count()
    sink.wait_for(clean, after=start, what="a picture without the watermark")


# --------------------------------------------------------------------------
# Users switching video, cameras
# --------------------------------------------------------------------------


def test_others_hear_when_a_user_switches_its_video(call):
    sender = call.sender()
    receiver = call.engine(RECEIVER)
    sink = Sink()
    receiver.setup_remote_video(SENDER, sink)
    call.join(SENDER, RECEIVER)
    events = call.events[RECEIVER]
    call.push(SENDER, numbered_source)
    sink.wait(1)

    def video(enabled: bool) -> None:
        if enabled:
            sender.enable_video()
        else:
            sender.disable_video()

    for switch, name in ((video, "user_enable_video"), (sender.enable_local_video, "user_enable_local_video")):
        mark = events.mark()
        switch(False)
        assert events.wait_for(name, after=mark) == (SENDER, False)
        stopped = events.wait_for("remote_video_state", lambda uid, state, *_: state == VideoState.STOPPED, after=mark)
        assert stopped[2] == Reason.REMOTE_MUTED, "its video stops as if muted"
        mark = events.mark()
        switch(True)
        assert events.wait_for(name, after=mark) == (SENDER, True)
        events.wait_for("remote_video_state", lambda uid, state, *_: state == VideoState.DECODING, after=mark)
        start = sink.count()
        sink.wait(start + 2)
    assert not events.all("user_mute_video"), "the switches come as their own events, not as mutes"


def test_a_machine_without_cameras(make_engine):
    events = Events()
    engine = make_engine(events)
    count = engine.get_video_device_count()
    if count:
        pytest.skip(f"this machine has {count} camera(s)")
    assert engine.enumerate_video_devices() == []
    with pytest.raises(agoraish.AgoraishError) as error:
        engine.get_video_device(0)
    assert error.value.code == -2
    with pytest.raises(agoraish.AgoraishError) as error:
        engine.get_current_video_device()
    assert error.value.code == -3
    with pytest.raises(agoraish.AgoraishError) as error:
        engine.switch_camera()
    assert error.value.code == -4
    engine.set_camera_capturer_configuration(agoraish.CameraCapturerOutputPreference.MANUAL, 1280, 720)
    with pytest.raises(agoraish.AgoraishError) as error:
        engine.set_camera_capturer_configuration(agoraish.CameraCapturerOutputPreference.MANUAL, 8, 720)
    assert error.value.code == -2

    # Video on, no external source, the preview started: the camera cannot start.
    engine.enable_video()
    engine.start_preview()
    state, error_code = events.wait_for("local_video_state")
    assert (state, error_code) == (agoraish.LocalVideoStreamState.FAILED,
                                   agoraish.LocalVideoStreamError.DEVICE_NOT_FOUND)
    # A camera chosen by id that is not there, used when capture next starts.
    mark = events.mark()
    engine.set_video_device("/dev/video99")
    assert engine.get_current_video_device() == "/dev/video99"
    engine.stop_preview()
    engine.start_preview()
    failed = events.wait_for("local_video_state", lambda state, error: state == agoraish.LocalVideoStreamState.FAILED,
                             after=mark)
    assert failed[1] == agoraish.LocalVideoStreamError.DEVICE_INVALID_ID
    engine.stop_preview()


def test_video_methods_of_a_released_engine_raise(make_engine, tmp_path):
    engine = make_engine()
    engine.release()
    for call_it in (engine.start_preview, engine.stop_preview, lambda: engine.setup_local_video(None),
                    lambda: engine.set_local_render_mode(1), lambda: engine.set_remote_render_mode(5, 1),
                    lambda: engine.register_video_frame_observer(None),
                    lambda: engine.enable_dual_stream_mode(True),
                    lambda: engine.set_remote_video_stream_type(5, 1),
                    lambda: engine.set_remote_default_video_stream_type(1),
                    lambda: engine.take_snapshot(0, tmp_path / "x.png"),
                    lambda: engine.add_video_watermark(tmp_path / "x.png", (0, 0, 8, 8)),
                    engine.clear_video_watermarks, engine.get_video_device_count, lambda: engine.get_video_device(0),
                    engine.enumerate_video_devices, lambda: engine.set_video_device("/dev/video0"),
                    engine.get_current_video_device, engine.set_camera_capturer_configuration,
                    engine.switch_camera):
        with pytest.raises(agoraish.AgoraishError) as error:
            call_it()
        assert error.value.code == -7
