"""One engine in several channels at once from Python (ABI 0.11): join_channel_ex
and its Connection, ChannelMediaOptions, EventHandlerEx, the `_ex` twins and
custom audio tracks, through an embedded server (the Python counterpart of
Tests/AgoraishIntegrationTests/LoopbackConnectionTests.swift)."""

from __future__ import annotations

import array
import gc
import math
import sys
import threading
import time
import weakref
from typing import Any, Callable, List

import pytest

import agoraish
from agoraish import AgoraishError, ChannelMediaOptions, RtcConnection
from peers import EventLog

APP = "0123456789abcdef0123456789abcdef"
RATE = 16000  # the peers' sink rate


class Recorder(agoraish.EventHandler):
    """The engine's own events that matter here, into an EventLog."""

    def __init__(self, log: EventLog) -> None:
        self.log = log

    def on_join_channel_success(self, channel, uid, elapsed):
        self.log.add("on_join_channel_success", [channel, uid])

    def on_user_joined(self, uid, elapsed):
        self.log.add("on_user_joined", [uid])

    def on_user_offline(self, uid, reason):
        self.log.add("on_user_offline", [uid, reason])

    def on_leave_channel(self, stats):
        self.log.add("on_leave_channel", [stats])


class ExRecorder(agoraish.EventHandlerEx):
    """A connection's events (the connection first), into an EventLog, with the thread each ran on."""

    def __init__(self, log: EventLog) -> None:
        self.log = log
        self.threads: List[str] = []

    def _add(self, name: str, *args: Any) -> None:
        self.threads.append(threading.current_thread().name)
        self.log.add(name, list(args))

    def on_join_channel_success(self, connection, uid, elapsed):
        self._add("on_join_channel_success", connection, uid)

    def on_leave_channel(self, connection, stats):
        self._add("on_leave_channel", connection, stats)

    def on_user_joined(self, connection, uid, elapsed):
        self._add("on_user_joined", connection, uid)

    def on_user_offline(self, connection, uid, reason):
        self._add("on_user_offline", connection, uid, reason)

    def on_connection_state_changed(self, connection, state, reason):
        self._add("on_connection_state_changed", connection, state, reason)


def quiet_options(track: int) -> ChannelMediaOptions:
    """Publish custom audio track `track` instead of the microphone, and leave the audio device alone."""
    return ChannelMediaOptions(publish_microphone_track=False, publish_custom_audio_track=True,
                               publish_custom_audio_track_id=track, enable_audio_recording_or_playout=False)


def tone(hz: float, seconds: float, rate: int = 48000) -> array.array:
    return array.array("h", (int(8000 * math.sin(2 * math.pi * hz * i / rate)) for i in range(int(rate * seconds))))


def push(engine: agoraish.RtcEngine, track: int, pcm: array.array, rate: int = 48000) -> None:
    """Pushes `pcm` into a custom track at once, a second at most a call (the engine sends it in real time)."""
    for start in range(0, len(pcm), rate):
        engine.push_external_audio_frame_by_id(track, pcm[start:start + rate], rate, 1)


def listen(engines: List[agoraish.RtcEngine], ms: int) -> List[array.array]:
    """Pulls 10 ms from each engine's sink every 10 ms, in real time, for `ms`."""
    heard = [array.array("h") for _ in engines]
    start = time.monotonic()
    for k in range(ms // 10):
        for i, engine in enumerate(engines):
            heard[i].frombytes(engine.pull_playback_audio_frame(RATE // 100))
        delay = start + (k + 1) / 100 - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    return heard


def frequency(pcm: array.array) -> float:
    """The frequency of a tone by its zero crossings, over 0.4 s from 100 ms after it became loud; 0 if silent."""
    first = next((i for i, s in enumerate(pcm) if abs(s) > 2000), None)
    if first is None or len(pcm) - first < RATE // 2:
        return 0.0
    middle = pcm[first + RATE // 10: first + RATE // 10 + RATE * 4 // 10]
    crossings = sum(1 for a, b in zip(middle, middle[1:]) if (a < 0) != (b < 0))
    return crossings / 2 / (len(middle) / RATE)


def peer(make_engine: Callable[..., agoraish.RtcEngine], server: agoraish.ChannelServer, channel: str, uid: int,
         name: str):
    """An engine that only listens (external sink at RATE) in `channel` as `uid`; with its event log."""
    log = EventLog(name)
    engine = make_engine(Recorder(log), app_id=APP, server_url=server.url)
    engine.enable_local_audio(False)
    engine.set_external_audio_sink(True, RATE, 1)
    engine.join_channel(None, channel, uid=uid)
    return engine, log


def expect_error(code: int, call: Callable[[], Any]) -> AgoraishError:
    with pytest.raises(AgoraishError) as error:
        call()
    assert error.value.code == code, error.value
    return error.value


def test_one_engine_in_two_channels_publishes_a_custom_track_to_each(make_engine, channel_server):
    red, red_log = peer(make_engine, channel_server, "red", 11, "red")
    blue, blue_log = peer(make_engine, channel_server, "blue", 21, "blue")
    own_log, ex_log = EventLog("e"), EventLog("e/blue")
    ex_handler = ExRecorder(ex_log)
    e = make_engine(Recorder(own_log), app_id=APP, server_url=channel_server.url)

    # E's own connection in "red" publishes track 1, a second one in "blue" track 2.
    t1 = e.create_custom_audio_track(agoraish.AudioTrackType.MIXABLE)
    t2 = e.create_custom_audio_track(agoraish.AudioTrackType.DIRECT)
    assert t1 >= 1 and t2 >= 1 and t1 != t2
    e.join_channel_with_options(None, "red", 1, quiet_options(t1))
    blue_key = RtcConnection("blue", 2)
    connection = e.join_channel_ex(None, blue_key, quiet_options(t2), ex_handler)
    assert isinstance(connection, agoraish.Connection)
    assert connection.connection == blue_key and connection.engine is e and connection.handler is ex_handler
    assert (connection.channel_id, connection.local_uid) == ("blue", 2)
    expect_error(-17, lambda: e.join_channel_ex(None, blue_key, quiet_options(t2)))  # the same connection again
    expect_error(-17, lambda: e.join_channel_ex(None, RtcConnection("red", 1)))  # the engine's own connection

    ex_log.wait("on_join_channel_success", blue_key, 2)
    own_log.wait("on_join_channel_success", "red", 1)
    red_log.wait("on_user_joined", 1)
    blue_log.wait("on_user_joined", 2)
    ex_log.wait("on_user_joined", blue_key, 21)
    own_log.wait("on_user_joined", 11)
    assert connection.get_connection_state() == agoraish.ConnectionState.CONNECTED
    assert connection.get_call_id() and connection.get_call_id() != e.get_call_id()
    # Each connection sees its own channel only; the engine's handler none of blue's events.
    assert [a for n, a in red_log.snapshot() if n == "on_user_joined"] == [[1]]
    assert [a for n, a in blue_log.snapshot() if n == "on_user_joined"] == [[2]]
    assert not any(args[0] in (21, 2) for name, args in own_log.snapshot() if name == "on_user_joined")
    assert all(args[0] == blue_key for _, args in ex_log.snapshot())
    assert set(ex_handler.threads) == {ex_handler.threads[0]} and ex_handler.threads[0] != threading.current_thread().name

    time.sleep(0.3)  # the media transports bind with STUN
    push(e, t1, tone(660, 1.5))
    push(e, t2, tone(1500, 1.5))
    heard_red, heard_blue = listen([red, blue], 1400)
    assert abs(frequency(heard_red) - 660) < 20, "red's peer hears track 1 only"
    assert abs(frequency(heard_blue) - 1500) < 30, "blue's peer hears track 2 only"

    # Leaving blue: its handler hears the leave with its connection, blue's
    # peer sees E go, and red goes on.
    connection.leave_channel()
    expect_error(-18, connection.leave_channel)
    expect_error(-18, lambda: e.leave_channel_ex(blue_key))
    expect_error(-2, connection.get_connection_state)  # the engine has no such connection any more
    expect_error(-2, lambda: connection.mute_local_audio_stream(True))
    index = ex_log.wait("on_leave_channel", blue_key)
    stats = ex_log.snapshot()[index][1][1]
    assert isinstance(stats, agoraish.RtcStats) and stats.tx_audio_bytes > 0
    ex_log.wait("on_connection_state_changed", blue_key, agoraish.ConnectionState.DISCONNECTED)
    blue_log.wait("on_user_offline", 2)
    assert own_log.count("on_leave_channel") == 0
    assert e.get_connection_state() == agoraish.ConnectionState.CONNECTED
    push(e, t2, tone(1500, 0.2))  # no publisher any more: dropped
    push(e, t1, tone(660, 1.0))
    (after,) = listen([red], 900)
    assert abs(frequency(after) - 660) < 20, "red still hears track 1 after blue was left"
    assert red_log.count("on_user_offline") == 0


def test_bad_input_and_unknown_connections_or_tracks(make_engine, channel_server):
    e = make_engine(app_id=APP, server_url=channel_server.url)

    # Custom audio tracks.
    expect_error(-2, lambda: e.create_custom_audio_track(2))
    track = e.create_custom_audio_track()
    for call in (lambda: e.destroy_custom_audio_track(track + 100),
                 lambda: e.adjust_custom_audio_publish_volume(track + 100, 50),
                 lambda: e.adjust_custom_audio_publish_volume(track, 101),
                 lambda: e.push_external_audio_frame_by_id(track + 100, b"\0\0" * 480, 48000, 1),
                 lambda: e.push_external_audio_frame_by_id(track, b"\0\0" * 480, 22050, 1),
                 lambda: e.push_external_audio_frame_by_id(track, b"\0\0" * 480, 48000, 3),
                 lambda: e.push_external_audio_frame_by_id(track, b"\0\0\0", 48000, 1),
                 lambda: e.push_external_audio_frame_by_id(track, b"\0\0" * 16001, 16000, 1)):
        expect_error(-2, call)
    with pytest.raises(TypeError):
        e.push_external_audio_frame_by_id(track, array.array("f", [0.0] * 480), 48000, 1)
    e.adjust_custom_audio_publish_volume(track, 50)
    e.push_external_audio_frame_by_id(track, array.array("h", [0] * 960), 48000, 2)  # nobody publishes it: dropped
    e.push_external_audio_frame_by_id(track, memoryview(bytes(320)), 16000, 1)
    e.push_external_audio_frame_by_id(track, b"", 48000, 1)
    try:
        import numpy
    except ImportError:
        numpy = None
    if numpy is not None:
        e.push_external_audio_frame_by_id(track, numpy.zeros((480, 2), dtype=numpy.int16), 48000, 2)
        with pytest.raises(ValueError):
            e.push_external_audio_frame_by_id(track, numpy.zeros((480, 2), dtype=numpy.int16), 48000, 1)

    # Options and connections the library refuses.
    expect_error(-2, lambda: e.update_channel_media_options(None))  # type: ignore[arg-type]
    expect_error(-2, lambda: e.join_channel_with_options(None, "x", 1, None))  # type: ignore[arg-type]
    expect_error(-2, lambda: e.update_channel_media_options(ChannelMediaOptions(client_role_type=7)))
    expect_error(-2, lambda: e.update_channel_media_options(
        ChannelMediaOptions(publish_custom_audio_track=True, publish_custom_audio_track_id=track + 100)))
    expect_error(-2, lambda: e.update_channel_media_options(ChannelMediaOptions(publish_custom_audio_track=True)))
    expect_error(-113, lambda: e.update_channel_media_options(ChannelMediaOptions(token="late")))
    with pytest.raises(TypeError):
        e.update_channel_media_options({"publish_microphone_track": False})  # type: ignore[arg-type]
    expect_error(-2, lambda: e.join_channel_ex(None, None))  # type: ignore[arg-type]
    expect_error(-2, lambda: e.join_channel_ex(None, RtcConnection(None, 5)))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        e.join_channel_ex(None, RtcConnection("x", None))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        e.join_channel_ex(None, "x")  # type: ignore[arg-type]
    expect_error(-2, lambda: e.join_channel_ex(None, RtcConnection("x", 5), ChannelMediaOptions(
        publish_camera_track=True, publish_encoded_video_track=True)))
    expect_error(-2, lambda: e.join_channel_ex(None, RtcConnection("x", 5), ChannelMediaOptions(
        publish_custom_audio_track=True, publish_custom_audio_track_id=track + 100)))
    expect_error(-102, lambda: e.join_channel_ex(None, RtcConnection("no/slash", 5)))
    with pytest.raises(TypeError):
        e.join_channel_ex(None, RtcConnection("x", 5), handler=Recorder(EventLog("wrong")))
    expect_error(-18, lambda: e.leave_channel_ex(RtcConnection("never", 1)))
    expect_error(-2, lambda: e.leave_channel_ex(None))  # type: ignore[arg-type]
    assert e.handle and not e.released

    # A connection's methods, then the same after it was left (-2: no such connection).
    options = ChannelMediaOptions(publish_microphone_track=False, enable_audio_recording_or_playout=False,
                                  auto_subscribe_video=False)
    connection = e.join_channel_ex("", ("methods", 7), options)  # a plain pair names a connection too
    assert connection.connection == RtcConnection("methods", 7) and connection.handler is None
    calls = [
        lambda: connection.update_channel_media_options(ChannelMediaOptions(auto_subscribe_audio=False)),
        lambda: connection.mute_local_audio_stream(True),
        lambda: connection.mute_remote_audio_stream(9, True),
        lambda: connection.mute_all_remote_audio_streams(False),
        lambda: connection.adjust_user_playback_signal_volume(9, 50),
        lambda: connection.mute_remote_video_stream(9, True),
        lambda: connection.mute_all_remote_video_streams(True),
        lambda: connection.set_remote_video_stream_type(9, agoraish.VideoStreamType.LOW),
        lambda: connection.set_remote_default_video_stream_type(agoraish.VideoStreamType.LOW),
        lambda: connection.set_video_encoder_configuration(320, 240, 15),
        lambda: connection.enable_dual_stream_mode(True),
        lambda: connection.mute_local_video_stream(True),
        lambda: connection.setup_remote_video(9, lambda frame: None),
        lambda: connection.setup_remote_video(9, None),
        lambda: connection.enable_encryption(True, agoraish.EncryptionMode.AES_128_GCM2, "k" * 32, b"s" * 32),
        lambda: connection.enable_encryption(False),
        lambda: connection.create_data_stream(False, True),
    ]
    for call in calls:
        call()
    assert connection.get_connection_state() in (agoraish.ConnectionState.CONNECTING,
                                                 agoraish.ConnectionState.CONNECTED)
    expect_error(-2, lambda: connection.mute_remote_audio_stream(0, True))
    expect_error(-2, lambda: connection.setup_remote_video(0, lambda frame: None))
    expect_error(-2, lambda: connection.update_channel_media_options(ChannelMediaOptions(
        publish_camera_track=True, publish_custom_video_track=True)))
    expect_error(-2, lambda: connection.get_user_info_by_uid(12345))
    expect_error(-2, lambda: connection.get_user_info_by_user_account("nobody"))
    expect_error(-17, lambda: e.join_channel_ex(None, RtcConnection("methods", 7)))
    e.leave_channel_ex(connection)  # a Connection names itself
    for call in calls + [connection.get_connection_state, connection.get_call_id,
                         lambda: connection.take_snapshot(9, "x.png"),
                         lambda: connection.send_stream_message(1, b"m"),
                         lambda: connection.send_audio_metadata(b"m")]:
        expect_error(-2, call)
    expect_error(-2, lambda: e.update_channel_media_options(
        ChannelMediaOptions(publish_custom_audio_track=True, publish_custom_audio_track_id=track + 100)))
    e.destroy_custom_audio_track(track)
    expect_error(-2, lambda: e.destroy_custom_audio_track(track))
    expect_error(-2, lambda: e.push_external_audio_frame_by_id(track, b"\0\0" * 480, 48000, 1))
    e.release()
    expect_error(-7, lambda: e.create_custom_audio_track())
    expect_error(-7, lambda: e.join_channel_ex(None, RtcConnection("late", 1)))
    expect_error(-7, connection.leave_channel)


def test_handlers_live_until_release_and_the_engine_releases_from_another_thread(make_engine, channel_server):
    main_log = EventLog("main")
    e = make_engine(Recorder(main_log), app_id=APP, server_url=channel_server.url)
    options = ChannelMediaOptions(publish_microphone_track=False, enable_audio_recording_or_playout=False)
    e.join_channel_with_options(None, "main", 1, options)
    logs = [EventLog(f"ex{i}") for i in range(4)]
    keys = [RtcConnection("ex0", 10), RtcConnection("ex1", 0), RtcConnection("main", 2), RtcConnection("ex3", 13)]
    connections = [e.join_channel_ex(None, key, options, ExRecorder(log)) for key, log in zip(keys, logs)]
    main_log.wait("on_join_channel_success", "main", 1)
    for key, log in zip(keys, logs):
        index = log.wait("on_join_channel_success", key)
        uid = log.snapshot()[index][1][1]
        assert uid == key.local_uid or (key.local_uid == 0 and uid != 0), "local_uid 0: the server picks the uid"
    main_log.wait("on_user_joined", 2)  # two connections of one engine in one channel see each other
    logs[2].wait("on_user_joined", keys[2], 1)

    # A left connection's handler is kept (its last events come after the
    # leave returns) although nothing else refers to it.
    handler = connections[3].handler
    handler_ref = weakref.ref(handler)
    connections[3].leave_channel()
    del handler, connections[3]
    gc.collect()
    logs[3].wait("on_leave_channel", keys[3])
    logs[3].wait("on_connection_state_changed", keys[3], agoraish.ConnectionState.DISCONNECTED)
    assert handler_ref() is not None

    # A handler that raises: reported, and the engine goes on.
    class Raising(agoraish.EventHandlerEx):
        def on_join_channel_success(self, connection, uid, elapsed):
            raise RuntimeError("raised in a callback")

    reported: List[Any] = []
    old_hook = sys.unraisablehook
    sys.unraisablehook = reported.append
    try:
        e.join_channel_ex(None, RtcConnection("raising", 5), options, Raising())
        deadline = time.monotonic() + 10
        while not reported and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        sys.unraisablehook = old_hook
    assert reported and isinstance(reported[0].exc_value, RuntimeError)

    refs = [weakref.ref(c.handler) for c in connections[:3]] + [handler_ref]
    done = threading.Event()
    errors: List[BaseException] = []

    def release() -> None:
        try:
            e.release()
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)
        done.set()

    threading.Thread(target=release, name="releaser").start()
    assert done.wait(10) and not errors, errors
    assert e.released
    for connection in connections[:3]:
        expect_error(-7, connection.get_connection_state)
    counts = [len(log.snapshot()) for log in logs]
    del connections, connection
    gc.collect()
    assert all(ref() is None for ref in refs), "release drops the handlers of the connections"
    time.sleep(0.1)
    assert [len(log.snapshot()) for log in logs] == counts, "no event after release"


class EncodedFrames(agoraish.VideoEncodedFrameObserver):
    """The frames the peer receives, before decoding: (uid, data, info), with the thread of each."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.frames: List[Any] = []
        self.threads: List[str] = []

    def on_encoded_video_frame_received(self, uid, data, info):
        with self.lock:
            self.frames.append((uid, data, info))
            self.threads.append(threading.current_thread().name)


def test_custom_video_track_and_encoded_track_arrive_as_two_users_with_frames_unchanged(make_engine, channel_server):
    vp8_support = pytest.importorskip("vp8_support")
    if not vp8_support.AVAILABLE:
        pytest.skip("libvpx (libvpx.so.7) is not installed")
    # The peer renders both users and sees each frame before it is decoded.
    p = make_engine(app_id=APP, server_url=channel_server.url)
    p.enable_video()
    p.enable_local_audio(False)
    p.set_external_audio_sink(True, RATE, 1)
    sizes: dict = {1: [], 2: []}
    for uid in (1, 2):
        p.setup_remote_video(uid, lambda frame, uid=uid: sizes[uid].append((frame.width, frame.height)))
    observer = EncodedFrames()
    p.register_video_encoded_frame_observer(observer)
    p.join_channel(None, "cams", uid=9)

    e_log = EventLog("e")
    e = make_engine(Recorder(e_log), app_id=APP, server_url=channel_server.url)
    raw = e.create_custom_video_track()
    encoded = e.create_custom_encoded_video_track()
    assert raw >= 1 and encoded >= 1 and raw != encoded
    e.join_channel_with_options(None, "cams", 1, ChannelMediaOptions(
        publish_microphone_track=False, enable_audio_recording_or_playout=False,
        publish_custom_video_track=True, custom_video_track_id=raw))
    key = RtcConnection("cams", 2)
    second = ChannelMediaOptions(publish_microphone_track=False, enable_audio_recording_or_playout=False,
                                 publish_encoded_video_track=True, custom_video_track_id=encoded)
    ex_log = EventLog("e/2")
    connection = e.join_channel_ex(None, key, second, ExRecorder(ex_log))
    # A raw track is not an encoded one, nor the other way round.
    expect_error(-2, lambda: connection.update_channel_media_options(ChannelMediaOptions(
        publish_encoded_video_track=True, custom_video_track_id=raw)))
    expect_error(-2, lambda: e.push_external_encoded_video_frame(b"\1\2\3", agoraish.EncodedVideoFrameInfo(), raw))
    expect_error(-2, lambda: e.push_external_video_frame_by_id(encoded, 320, 240, bytes(320 * 240 * 3 // 2)))
    e_log.wait("on_join_channel_success", "cams", 1)
    ex_log.wait("on_join_channel_success", key, 2)
    e_log.wait("on_user_joined", 9)
    ex_log.wait("on_user_joined", key, 9)
    time.sleep(0.3)  # the media transports bind with STUN

    # 1.5 s at 15 fps: a 320x240 picture into the raw track, a 160x120 frame
    # encoded here with libvpx into the encoded one.
    pushed: List[bytes] = []
    start = time.monotonic()
    with vp8_support.Vp8Encoder(160, 120, fps=15, kbps=200) as encoder:
        for n in range(23):
            big = bytes((row + n * 4) & 0xFF for row in range(240) for _ in range(320)) + bytes([128]) * (320 * 120)
            e.push_external_video_frame_by_id(raw, 320, 240, big, timestamp=n * 66)
            for data, keyframe in encoder.encode(vp8_support.gradient(160, 120, n * 8), keyframe=n == 0):
                info = agoraish.EncodedVideoFrameInfo(
                    codec_type=agoraish.VideoCodecType.VP8, width=160, height=120, capture_time_ms=n * 66,
                    frame_type=agoraish.VideoFrameType.KEY_FRAME if keyframe else agoraish.VideoFrameType.DELTA_FRAME)
                assert e.push_external_encoded_video_frame(data, info, encoded) == 1, "one connection sent it"
                pushed.append(data)
            delay = start + (n + 1) * 0.066 - time.monotonic()
            if delay > 0:
                time.sleep(delay)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not (len(sizes[1]) >= 18 and len(sizes[2]) >= len(pushed) - 2):
        time.sleep(0.02)
    assert len(sizes[1]) >= 18 and set(sizes[1]) == {(320, 240)}, sizes[1]
    assert len(sizes[2]) >= len(pushed) - 2 and set(sizes[2]) == {(160, 120)}, sizes[2]

    # uid 2's frames arrive as pushed, in order, the first a keyframe with its size.
    with observer.lock:
        frames = [(data, info) for uid, data, info in observer.frames if uid == 2]
        threads = set(observer.threads)
        uids = {uid for uid, _, _ in observer.frames}
    assert len(frames) >= len(pushed) - 2, f"{len(frames)} of {len(pushed)} observed"
    first = frames[0][1]
    assert isinstance(first, agoraish.EncodedVideoFrameInfo)
    assert first.frame_type == agoraish.VideoFrameType.KEY_FRAME and (first.width, first.height) == (160, 120)
    assert first.codec_type == agoraish.VideoCodecType.VP8 and first.uid == 2
    order = [pushed.index(data) for data, _ in frames if data in pushed]
    assert len(order) == len(frames), "every observed frame is a pushed one, unchanged"
    assert order == sorted(order) and len(set(order)) == len(order), "in order"
    assert frames[0][0] == pushed[0]
    assert 1 in uids, "uid 1's frames are observed too"
    assert threading.current_thread().name not in threads

    # Destroying the raw track stops uid 1's video; uid 2 goes on. Unregistered: no more frames.
    e.destroy_custom_video_track(raw)
    expect_error(-2, lambda: e.destroy_custom_video_track(raw))
    expect_error(-2, lambda: e.push_external_video_frame_by_id(raw, 320, 240, bytes(320 * 240 * 3 // 2)))
    p.register_video_encoded_frame_observer(None)
    with observer.lock:
        count = len(observer.frames)
    assert e.push_external_encoded_video_frame(pushed[0], agoraish.EncodedVideoFrameInfo(
        frame_type=agoraish.VideoFrameType.KEY_FRAME, width=160, height=120), encoded) == 1
    time.sleep(0.2)
    with observer.lock:
        assert len(observer.frames) == count, "no callback after unregistering"
    connection.leave_channel()
    e.destroy_custom_video_track(encoded)


class VideoRecorder(Recorder):
    """Recorder plus the video events the connections' handlers get instead."""

    def on_first_local_video_frame_published(self, elapsed):
        self.log.add("on_first_local_video_frame_published", [elapsed])

    def on_local_video_state_changed(self, state, error):
        self.log.add("on_local_video_state_changed", [state, error])

    def on_first_remote_video_frame(self, uid, width, height, elapsed):
        self.log.add("on_first_remote_video_frame", [uid, width, height])

    def on_video_size_changed(self, uid, width, height, rotation):
        self.log.add("on_video_size_changed", [uid, width, height])

    def on_user_enable_video(self, uid, enabled):
        self.log.add("on_user_enable_video", [uid, enabled])


class VideoExRecorder(ExRecorder):
    """ExRecorder plus a connection's video events."""

    def on_first_local_video_frame_published(self, connection, elapsed):
        self._add("on_first_local_video_frame_published", connection, elapsed)

    def on_first_local_video_frame(self, connection, width, height, elapsed):
        self._add("on_first_local_video_frame", connection, width, height)

    def on_local_video_state_changed(self, connection, state, error):
        self._add("on_local_video_state_changed", connection, state, error)

    def on_first_remote_video_frame(self, connection, uid, width, height, elapsed):
        self._add("on_first_remote_video_frame", connection, uid, width, height, elapsed)

    def on_video_size_changed(self, connection, uid, width, height, rotation):
        self._add("on_video_size_changed", connection, uid, width, height, rotation)

    def on_user_enable_video(self, connection, uid, enabled):
        self._add("on_user_enable_video", connection, uid, enabled)

    def on_user_enable_local_video(self, connection, uid, enabled):
        self._add("on_user_enable_local_video", connection, uid, enabled)


def test_connection_handlers_see_the_video_events_of_their_connection(make_engine, channel_server):
    # The receiver is a connection too: its sink and its handler are the connection's.
    # (A connection has video on while it publishes a video track: it publishes
    # one it never pushes into.)
    p_log = EventLog("p")
    p = make_engine(VideoRecorder(p_log), app_id=APP, server_url=channel_server.url)
    p.enable_video()
    p.enable_local_audio(False)
    p.set_external_audio_sink(True, RATE, 1)
    quiet = dict(publish_microphone_track=False, enable_audio_recording_or_playout=False)
    rx_key = RtcConnection("exvideo", 9)
    rx_log = EventLog("p/9")
    rx = p.join_channel_ex(None, rx_key, ChannelMediaOptions(
        publish_custom_video_track=True, custom_video_track_id=p.create_custom_video_track(), **quiet),
        VideoExRecorder(rx_log))
    sizes: List[Any] = []
    rx.setup_remote_video(2, lambda frame: sizes.append((frame.width, frame.height)))

    own_log = EventLog("e")
    e = make_engine(VideoRecorder(own_log), app_id=APP, server_url=channel_server.url)
    track = e.create_custom_video_track()
    tx_key = RtcConnection("exvideo", 2)
    tx_log = EventLog("e/2")
    tx_handler = VideoExRecorder(tx_log)
    tx = e.join_channel_ex(None, tx_key, ChannelMediaOptions(
        publish_custom_video_track=True, custom_video_track_id=track, **quiet), tx_handler)
    rx_log.wait("on_user_joined", rx_key, 2)
    tx_log.wait("on_user_joined", tx_key, 9)
    time.sleep(0.3)  # the media transports bind with STUN

    # 0.8 s at 15 fps: 320x240 pictures, then 160x120 ones.
    start = time.monotonic()
    for n in range(12):
        w, h = (320, 240) if n < 8 else (160, 120)
        picture = bytes((row + n * 4) & 0xFF for row in range(h) for _ in range(w)) + bytes([128]) * (w * h // 2)
        e.push_external_video_frame_by_id(track, w, h, picture, timestamp=n * 66)
        delay = start + (n + 1) * 0.066 - time.monotonic()
        if delay > 0:
            time.sleep(delay)

    # The publishing connection's handler sees its first picture, its first frame sent and the track's state.
    tx_log.wait("on_first_local_video_frame", tx_key, 320, 240)
    index = tx_log.wait("on_first_local_video_frame_published", tx_key)
    assert tx_log.snapshot()[index][1][1] >= 0
    tx_log.wait("on_local_video_state_changed", tx_key, agoraish.LocalVideoStreamState.ENCODING)
    tx_log.wait("on_video_size_changed", tx_key, 0, 160, 120, 0)  # uid 0: what it sends
    state = tx_log.of("on_local_video_state_changed")[-1][1]
    assert isinstance(state[1], agoraish.LocalVideoStreamState) and isinstance(state[2], agoraish.LocalVideoStreamError)

    # The receiving connection's handler: the first picture at its size, then the new size.
    index = rx_log.wait("on_first_remote_video_frame", rx_key, 2)
    _, uid, width, height, elapsed = rx_log.snapshot()[index][1]
    assert (width, height) == (320, 240) and elapsed >= 0
    rx_log.wait("on_video_size_changed", rx_key, 2, 160, 120, 0)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (160, 120) not in sizes:
        time.sleep(0.02)
    assert sizes[0] == (320, 240) and (160, 120) in sizes, sizes
    # Publishing no video track turns the connection's video off: its peer learns it.
    tx.update_channel_media_options(ChannelMediaOptions(publish_custom_video_track=False))
    index = rx_log.wait("on_user_enable_video", rx_key, 2)
    assert rx_log.snapshot()[index][1][2] is False
    # None of it reaches the engines' own handlers or the other connections.
    assert not [event for event in own_log.snapshot() if "video" in event[0]], own_log.snapshot()
    assert not p_log.of("on_first_remote_video_frame", "on_video_size_changed", "on_user_enable_video")
    assert all(event[1][0] == rx_key for event in rx_log.snapshot())
    assert all(event[1][0] == tx_key for event in tx_log.snapshot())
    assert threading.current_thread().name not in tx_handler.threads
    tx.leave_channel()
    rx.leave_channel()
    e.destroy_custom_video_track(track)


def test_every_ex_callback_has_a_method_and_converts_as_the_engine_handler_does():
    import ctypes
    import inspect

    from agoraish import _abi as ffi
    from agoraish.engine import _EX_CALLBACKS, _ExKeepalive

    # One method per C entry: the connection, then the EventHandler method's parameters.
    for spec in _EX_CALLBACKS:
        method = getattr(agoraish.EventHandlerEx, spec.name, None)
        assert callable(method), f"EventHandlerEx lacks {spec.name}"
        ex_params = list(inspect.signature(method).parameters)
        assert ex_params[:2] == ["self", "connection"], spec.name
        if spec.name not in ("on_join_channel_success", "on_rejoin_channel_success"):
            base = list(inspect.signature(getattr(agoraish.EventHandler, spec.name)).parameters)
            assert ex_params[2:] == base[1:], spec.name

    # The entries added last, called as the library calls them: enums, bools and
    # structs arrive as for the engine's handler, after the connection.
    calls: List[Any] = []
    names = ["on_user_info_updated", "on_first_remote_audio_frame", "on_local_audio_state_changed",
             "on_active_speaker", "on_first_local_video_frame_published", "on_video_size_changed",
             "on_first_local_video_frame", "on_first_remote_video_frame", "on_user_enable_video",
             "on_user_enable_local_video", "on_local_video_state_changed", "on_local_video_stats",
             "on_local_publish_fallback_to_audio_only", "on_remote_subscribe_fallback_to_audio_only"]
    handler = type("All", (agoraish.EventHandlerEx,), {
        name: (lambda name: lambda self, *args: calls.append((name, args)))(name) for name in names})()
    keep = _ExKeepalive(handler)
    table = keep.table
    conn = ffi.RtcConnection()
    conn.struct_size = ctypes.sizeof(conn)
    conn.channel_id = b"conv"
    conn.local_uid = 4
    c = ctypes.byref(conn)
    info = ffi.UserInfo()
    info.uid = 7
    info.user_account = b"seven"
    stats = ffi.LocalVideoStats()
    stats.struct_size = ctypes.sizeof(stats)
    stats.sent_bitrate = 300
    table.on_user_info_updated(None, None, c, 7, ctypes.byref(info))
    table.on_first_remote_audio_frame(None, None, c, 7, 12)
    table.on_local_audio_state_changed(None, None, c, 1, 0)
    table.on_active_speaker(None, None, c, 7)
    table.on_first_local_video_frame_published(None, None, c, 30)
    table.on_video_size_changed(None, None, c, 7, 160, 120, 0)
    table.on_first_local_video_frame(None, None, c, 320, 240, 5)
    table.on_first_remote_video_frame(None, None, c, 7, 320, 240, 40)
    table.on_user_enable_video(None, None, c, 7, 1)
    table.on_user_enable_local_video(None, None, c, 7, 0)
    table.on_local_video_state_changed(None, None, c, 3, 8)
    table.on_local_video_stats(None, None, c, ctypes.byref(stats))
    table.on_local_publish_fallback_to_audio_only(None, None, c, 1)
    table.on_remote_subscribe_fallback_to_audio_only(None, None, c, 7, 0)
    key = RtcConnection("conv", 4)
    got = dict(calls)
    assert [name for name, _ in calls] == names
    assert got["on_user_info_updated"] == (key, 7, agoraish.UserInfo(7, "seven"))
    assert got["on_first_remote_audio_frame"] == (key, 7, 12)
    assert got["on_local_audio_state_changed"] == (key, agoraish.LocalAudioStreamState.RECORDING,
                                                   agoraish.LocalAudioStreamError.OK)
    assert type(got["on_local_audio_state_changed"][1]) is agoraish.LocalAudioStreamState
    assert got["on_active_speaker"] == (key, 7)
    assert got["on_first_local_video_frame_published"] == (key, 30)
    assert got["on_video_size_changed"] == (key, 7, 160, 120, 0)
    assert got["on_first_local_video_frame"] == (key, 320, 240, 5)
    assert got["on_first_remote_video_frame"] == (key, 7, 320, 240, 40)
    assert got["on_user_enable_video"] == (key, 7, True) and got["on_user_enable_video"][2] is True
    assert got["on_user_enable_local_video"][2] is False
    assert got["on_local_video_state_changed"] == (key, agoraish.LocalVideoStreamState.FAILED,
                                                   agoraish.LocalVideoStreamError.DEVICE_NOT_FOUND)
    assert type(got["on_local_video_state_changed"][2]) is agoraish.LocalVideoStreamError
    assert isinstance(got["on_local_video_stats"][1], agoraish.LocalVideoStats)
    assert got["on_local_video_stats"][1].sent_bitrate == 300
    assert got["on_local_publish_fallback_to_audio_only"] == (key, True)
    assert got["on_remote_subscribe_fallback_to_audio_only"] == (key, 7, False)
    assert got["on_remote_subscribe_fallback_to_audio_only"][2] is False
