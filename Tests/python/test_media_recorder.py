"""The media recorder of ABI 0.13 from Python (Agora 4.x IMediaRecorder).

Engine A sends a 1 kHz tone (external audio source) and moving 320x240
pictures (external video source), 15 per second, in real time from a pump;
engine B receives them in the same channel through an embedded server
(external sink and a remote canvas). Recordings are checked with FFmpeg's
own tools: ffprobe finds H.264 and AAC streams (or only the one asked for)
at the configured size, sample rate and channels, with the duration that was
recorded (within 5 %); ``ffmpeg -v error -xerror`` decodes them without an
error; their audio, decoded to PCM, holds the 1 kHz tone (within 1 %) and
their pictures move.

Recorded: the local user (uid 0, what A sends) and the remote user (as B
receives it, letterboxed into 16:9), audio only and video only, up to a
maximum duration, with info updates; nothing arrived (NO_STREAM), a
directory that does not exist (WRITE_FAILED), and the argument checks.

Every wait is for an event or the pump's clock, with a timeout.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Dict, Iterator, Tuple

import numpy
import pytest

import agoraish
from agoraish import MediaRecorderConfiguration
from media_support import (
    APP,
    FPS,
    HEIGHT,
    RATE,
    TIMEOUT,
    WIDTH,
    EngineEvents,
    EventLog,
    Pump,
    VideoFrames,
    decode_audio,
    decode_errors,
    decode_gray_frame,
    decode_video_frames,
    dominant_frequency,
    expect_error,
    near,
    probe,
    quiet_engine,
    rms_dbfs,
)

RS = agoraish.RecorderState
RR = agoraish.RecorderReason
ST = agoraish.MediaRecorderStreamType
SENDER, RECEIVER = 1, 2
CHANNEL = "recorder"
TONE = 1000


class RecorderEvents(agoraish.MediaRecorderObserver):
    """A recorder's observer: every callback into an EventLog."""

    def __init__(self) -> None:
        self.log = EventLog()

    def on_recorder_state_changed(self, channel_id, uid, state, reason):
        self.log.add("state", channel_id, uid, state, reason)

    def on_recorder_info_updated(self, channel_id, uid, info):
        self.log.add("info", channel_id, uid, info)

    def wait_state(self, state: int, reason: int, after: int = 0, timeout: float = TIMEOUT) -> Any:
        return self.log.wait_for("state", lambda c, u, s, r: (s, r) == (state, reason), after=after, timeout=timeout)


class RecCall:
    """A sends a tone and pictures; B receives them."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.server = agoraish.ChannelServer()
        self.server.start()
        self.events_a, self.events_b = EngineEvents(), EngineEvents()
        self.a = agoraish.RtcEngine(APP, self.events_a, server_url=self.server.url, log_file=str(tmp / "a.log"))
        self.b = agoraish.RtcEngine(APP, self.events_b, server_url=self.server.url, log_file=str(tmp / "b.log"))
        self.a.set_external_audio_source(True, RATE, 1)
        self.a.enable_video()
        self.a.set_external_video_source(True)
        self.a.set_video_encoder_configuration(WIDTH, HEIGHT, frame_rate=FPS, bitrate=600)
        self.b.enable_local_audio(False)
        self.b.set_external_audio_sink(True, RATE, 1)
        self.b.enable_video()
        self.pictures = VideoFrames()
        self.b.setup_remote_video(SENDER, self.pictures)
        self.a.join_channel(None, CHANNEL, uid=SENDER)
        self.b.join_channel(None, CHANNEL, uid=RECEIVER)
        self.events_a.log.wait_for("join")
        self.events_b.log.wait_for("join")
        self.events_b.log.wait_for("user_joined", lambda uid: uid == SENDER)
        self.pump = Pump({"b": self.b}, source=self.a, video_source=self.a, tone=TONE).start()

    def close(self) -> None:
        self.pump.stop()
        for engine in (self.a, self.b):
            engine.release()
        self.server.release()


@pytest.fixture(scope="module")
def call(tmp_path_factory) -> Iterator[RecCall]:
    c = RecCall(tmp_path_factory.mktemp("recorder"))
    try:
        c.pump.wait_tone("b", TONE, "the tone at B")
        c.pictures.wait(5)
        yield c
    finally:
        c.close()


def config(path: Path, **kwargs: Any) -> MediaRecorderConfiguration:
    values: Dict[str, Any] = dict(storage_path=str(path), width=WIDTH, height=HEIGHT, fps=FPS)
    values.update(kwargs)
    return MediaRecorderConfiguration(**values)


def record(call: RecCall, engine: agoraish.RtcEngine, uid: int, conf: MediaRecorderConfiguration,
           ms: int) -> Tuple[float, RecorderEvents]:
    """Records `uid` on `engine` for `ms` of the pump's clock; returns the time recorded (s) and the events."""
    recorder = engine.create_media_recorder(CHANNEL, uid)
    events = RecorderEvents()
    recorder.set_media_recorder_observer(events)
    try:
        recorder.start_recording(conf)
        started = time.monotonic()
        events.wait_state(RS.START, RR.NONE)
        call.pump.collect(ms - int((time.monotonic() - started) * 1000))
        recorder.stop_recording()  # the file is complete when this returns
        seconds = time.monotonic() - started
        events.wait_state(RS.STOP, RR.NONE)
    finally:
        recorder.destroy()
    states = events.log.args("state")
    assert [(s, r) for _, _, s, r in states] == [(RS.START, RR.NONE), (RS.STOP, RR.NONE)], states
    assert all((channel, u) == (CHANNEL, uid) for channel, u, _, _ in states), states
    assert all(e.thread.startswith("agoraish-ev") for e in events.log.events)
    return seconds, events


def check_recording(path: Path, seconds: float, audio: bool = True, video: bool = True,
                    size: Tuple[int, int] = (WIDTH, HEIGHT), rate: int = RATE, channels: int = 1) -> Dict[str, Any]:
    """The file is a valid MP4 with the streams asked for, of the duration recorded, decoding cleanly,
    its audio the tone and its pictures moving. Returns ffprobe's description."""
    assert path.exists() and path.stat().st_size > 1000, f"{path} was not written"
    info = probe(str(path))
    assert "mp4" in info["format"]["format_name"], info["format"]
    codecs = sorted(s["codec_name"] for s in info["streams"])
    assert codecs == sorted((["aac"] if audio else []) + (["h264"] if video else [])), codecs
    duration = float(info["format"]["duration"])
    assert abs(duration - seconds) <= 0.05 * seconds, f"{duration:.3f} s in the file, {seconds:.3f} s recorded"
    for stream in info["streams"]:
        length = float(stream["duration"])
        assert abs(length - seconds) <= 0.05 * seconds, (
            f"the {stream['codec_name']} track lasts {length:.3f} s, {seconds:.3f} s recorded")
    assert decode_errors(str(path)) == "", "ffmpeg -xerror decodes it without an error"
    if audio:
        stream = next(s for s in info["streams"] if s["codec_type"] == "audio")
        assert (int(stream["sample_rate"]), int(stream["channels"])) == (rate, channels), stream
        pcm = decode_audio(str(path))
        middle = pcm[int(0.3 * RATE): len(pcm) - int(0.2 * RATE)]
        assert len(middle) >= RATE // 2, f"{len(pcm) / RATE:.2f} s of audio"
        frequency = dominant_frequency(middle)
        assert near(frequency, TONE), f"the recorded audio is at {frequency:.1f} Hz"
        assert rms_dbfs(middle) > -20, f"{rms_dbfs(middle):.1f} dBFS (the tone was sent at -12 dBFS)"
        silent = sum(1 for k in range(0, len(middle) - 480, 480) if rms_dbfs(middle[k:k + 480]) < -40)
        assert silent <= 3, f"{silent} silent 10 ms stretches in the recorded tone"
    if video:
        stream = next(s for s in info["streams"] if s["codec_type"] == "video")
        assert (int(stream["width"]), int(stream["height"])) == size, stream
        assert stream["pix_fmt"] == "yuv420p", stream["pix_fmt"]
        frames = decode_video_frames(str(path))
        assert abs(frames - FPS * seconds) <= 0.25 * FPS * seconds, f"{frames} pictures in {seconds:.2f} s at {FPS} fps"
        first, later = decode_gray_frame(str(path), seconds * 0.3), decode_gray_frame(str(path), seconds * 0.7)
        assert float(first.std()) > 10, "the pictures are not flat"
        assert float(numpy.abs(first.astype(int) - later.astype(int)).mean()) > 5, "the pictures move"
    return info


# --------------------------------------------------------------------------
# Recordings
# --------------------------------------------------------------------------


def test_the_local_user_is_recorded_to_a_valid_mp4(call, tmp_path):
    path = tmp_path / "local.mp4"
    seconds, _ = record(call, call.a, 0, config(path), 4000)
    check_recording(path, seconds)


def test_a_remote_user_is_recorded_as_received_letterboxed(call, tmp_path):
    path = tmp_path / "remote.mp4"
    seconds, _ = record(call, call.b, SENDER, config(path, width=640, height=360), 4000)
    check_recording(path, seconds, size=(640, 360))
    # 4:3 pictures in a 16:9 frame: black bars left and right, the picture between.
    picture = decode_gray_frame(str(path), seconds / 2)
    assert float(picture[:, :60].mean()) < 24 and float(picture[:, -60:].mean()) < 24, "bars at the sides"
    assert float(picture[:, 100:540].mean()) > 60, "the picture in the middle"


def test_audio_only_and_video_only_recordings(call, tmp_path):
    audio_path = tmp_path / "audio.mp4"
    seconds, _ = record(call, call.b, SENDER, config(audio_path, stream_type=ST.AUDIO, sample_rate=44100,
                                                     channel_num=2), 2500)
    check_recording(audio_path, seconds, video=False, rate=44100, channels=2)
    video_path = tmp_path / "video.mp4"
    seconds, _ = record(call, call.a, 0, config(video_path, stream_type=ST.VIDEO), 2500)
    check_recording(video_path, seconds, audio=False)


def test_a_recording_stops_at_its_maximum_duration(call, tmp_path):
    path = tmp_path / "max.mp4"
    recorder = call.a.create_media_recorder(CHANNEL, 0)
    events = RecorderEvents()
    recorder.set_media_recorder_observer(events)
    try:
        recorder.start_recording(config(path, max_duration_ms=1500))
        started = events.wait_state(RS.START, RR.NONE)
        stopped = events.wait_state(RS.STOP, RR.OVER_MAX_DURATION)
        assert 1.3 <= stopped.at - started.at <= 2.5, f"stopped after {stopped.at - started.at:.2f} s"
    finally:
        recorder.destroy()
    check_recording(path, 1.5)


def test_info_updates_report_the_file_as_it_grows(call, tmp_path):
    path = tmp_path / "info.mp4"
    _, events = record(call, call.b, SENDER, config(path, recorder_info_update_interval=1000), 5000)
    updates = events.log.all("info")
    assert 4 <= len(updates) <= 6, [e.args for e in updates]
    infos = [e.args[2] for e in updates]
    assert all(isinstance(i, agoraish.RecorderInfo) and i.file_name == str(path) for i in infos), infos
    assert all((e.args[0], e.args[1]) == (CHANNEL, SENDER) for e in updates)
    durations, sizes = [i.duration_ms for i in infos], [i.file_size for i in infos]
    assert all(700 <= b - a <= 1300 for a, b in zip(durations, durations[1:])), durations
    assert 500 <= durations[0] <= 1600, durations
    # The size may move in steps (the muxer writes through a buffer), but it grows.
    assert sizes[0] > 0 and all(b >= a for a, b in zip(sizes, sizes[1:])) and sizes[-1] > sizes[0], sizes
    assert sizes[-1] <= path.stat().st_size
    gaps = [b.at - a.at for a, b in zip(updates, updates[1:])]
    assert all(0.7 <= g <= 1.4 for g in gaps), f"every second: {gaps}"


def test_nothing_arrived_reports_no_stream_and_leaves_no_file(call, tmp_path):
    path = tmp_path / "nobody.mp4"
    recorder = call.b.create_media_recorder(CHANNEL, 99)  # nobody with that uid is in the channel
    events = RecorderEvents()
    recorder.set_media_recorder_observer(events)
    try:
        recorder.start_recording(config(path))
        events.wait_state(RS.START, RR.NONE)
        call.pump.collect(1000)
        mark = events.log.mark()
        recorder.stop_recording()
        channel, uid, state, reason = events.log.wait_for("state", after=mark).args
        assert (channel, uid, state, reason) == (CHANNEL, 99, RS.ERROR, RR.NO_STREAM)
    finally:
        recorder.destroy()
    assert not path.exists(), "the empty file is removed"


def test_a_directory_that_does_not_exist_reports_write_failed(call, tmp_path):
    recorder = call.a.create_media_recorder(CHANNEL, 0)
    events = RecorderEvents()
    recorder.set_media_recorder_observer(events)
    try:
        recorder.start_recording(config(tmp_path / "missing" / "x.mp4"))
        _, _, state, reason = events.log.wait_for("state").args
        assert (state, reason) == (RS.ERROR, RR.WRITE_FAILED)
        # The recorder is usable afterwards.
        path = tmp_path / "after.mp4"
        mark = events.log.mark()
        recorder.start_recording(config(path))
        events.wait_state(RS.START, RR.NONE, after=mark)
        call.pump.collect(1500)
        recorder.stop_recording()
        events.wait_state(RS.STOP, RR.NONE, after=mark)
    finally:
        recorder.destroy()
    assert path.exists() and float(probe(str(path))["format"]["duration"]) > 1.0


# --------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------


def test_recorder_arguments_are_checked(tmp_path):
    e = quiet_engine(tmp_path, "args")
    try:
        expect_error(-2, lambda: e.create_media_recorder("", 0))
        expect_error(-2, lambda: e.create_media_recorder("bad/name\u00e9", 0))
        expect_error(-4, lambda: e.create_media_recorder(CHANNEL, 0, 1))  # PREVIEW
        recorder = e.create_media_recorder(CHANNEL, 0)
        assert recorder.id >= 1
        path = tmp_path / "x.mp4"
        for bad, code in (
            (dict(container_format=2), -4),
            (dict(storage_path=None), -2),
            (dict(stream_type=4), -2),
            (dict(width=15), -2),
            (dict(width=321), -2),
            (dict(height=4098), -2),
            (dict(fps=61), -2),
            (dict(fps=-1), -2),
            (dict(sample_rate=22050), -2),
            (dict(channel_num=3), -2),
            (dict(recorder_info_update_interval=500), -2),
            (dict(recorder_info_update_interval=10001), -2),
            (dict(max_duration_ms=-1), -2),
        ):
            expect_error(code, lambda: recorder.start_recording(config(path, **bad)))
        expect_error(-8, recorder.stop_recording)
        recorder.start_recording(config(path))
        expect_error(-8, lambda: recorder.start_recording(config(path)))
        recorder.stop_recording()  # nothing arrived: reported as NO_STREAM
        recorder.set_media_recorder_observer(None)

        others = [e.create_media_recorder(CHANNEL, uid) for uid in range(1, 8)]
        assert len({r.id for r in others + [recorder]}) == 8
        expect_error(-5, lambda: e.create_media_recorder(CHANNEL, 50))
        e.destroy_media_recorder(others[0])
        e.destroy_media_recorder(others[1].id)
        others[2].destroy()
        for gone in others[:3]:
            expect_error(-2, lambda: gone.start_recording(config(path)))
            expect_error(-2, gone.stop_recording)
            expect_error(-2, lambda: gone.set_media_recorder_observer(None))
        expect_error(-2, lambda: e.destroy_media_recorder(others[0].id))
        expect_error(-2, lambda: e.destroy_media_recorder(9999))
        e.create_media_recorder(CHANNEL, 50)
    finally:
        e.release()
    expect_error(-7, lambda: recorder.start_recording(config(path)))
    expect_error(-7, lambda: e.create_media_recorder(CHANNEL, 0))
