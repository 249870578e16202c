"""Simulcast from Python (ABI 0.12, Agora's setSimulcastConfig): a publisher
sends 640x360 pictures with three streams besides the high one (LAYER_1
480x270, LAYER_2 320x180, LOW 160x90, 15 fps) through an embedded server, and
each subscriber renders the stream it asked for with
``set_remote_video_stream_type`` (or ``set_remote_default_video_stream_type``):
sizes per layer, a switch at the next keyframe, a layer the publisher does not
send (the best one below it that is sent), simulcast turned off again; errors
as ``AgoraishError`` with the library's codes; and the ``_ex`` form on a
``Connection`` that publishes a custom video track. The Python counterpart of
LoopbackVideoFeatureTests.simulcastSubscribersEachGetTheirLayerAndSwitchAtKeyframes;
the call machinery (engines, sinks, the pusher) is video_support.py's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, Iterator, Tuple

import pytest

import agoraish
from agoraish import AgoraishError, ChannelMediaOptions, RtcConnection, SimulcastConfig, StreamLayerConfig
from video_support import APP, FPS, SENDER, Call, Pusher, Sink, flat, i420_source

T = agoraish.VideoStreamType
L = agoraish.StreamLayerIndex
Size = Tuple[int, int]

#: The publisher's streams besides the high one (640x360): index -> box.
LAYERS: Dict[L, Size] = {L.LAYER_1: (480, 270), L.LAYER_2: (320, 180), L.LOW: (160, 90)}
#: Each subscriber's uid, the stream type it asks for, and the size of that stream.
SUBSCRIBERS: Dict[int, Tuple[T, Size]] = {2: (T.LAYER_1, (480, 270)), 3: (T.LAYER_2, (320, 180)), 4: (T.LOW, (160, 90))}
#: A subscriber that names nobody and sets its default stream type instead.
DEFAULT_SUBSCRIBER = 5
#: Pictures in a row that must all have the stream's size once it arrived.
SETTLED = 5


def simulcast_config(layers: Dict[L, Size] = LAYERS, fps: int = FPS) -> SimulcastConfig:
    config = SimulcastConfig()
    for index, (width, height) in layers.items():
        config.configs[index] = StreamLayerConfig(width, height, fps, True)
    return config


def of_size(size: Size) -> Callable[[Dict[str, Any]], bool]:
    return lambda frame: (frame["width"], frame["height"]) == size


def settles_on(sink: Sink, size: Size, after: int = 0, what: str = "") -> None:
    """A picture of `size` arrives (from index `after`), and the SETTLED pictures after it have that size too."""
    sink.wait_for(of_size(size), after=after, what=f"a {size[0]}x{size[1]} picture {what}".rstrip())
    start = sink.count()
    later = sink.wait(start + SETTLED)[start:]
    assert all(of_size(size)(frame) for frame in later), [(f["width"], f["height"]) for f in later]


def expect_error(code: int, call: Callable[[], Any], operation: str) -> AgoraishError:
    with pytest.raises(AgoraishError) as info:
        call()
    assert info.value.code == code, info.value
    assert info.value.operation == operation, info.value
    return info.value


@pytest.fixture
def call(tmp_path: Path) -> Iterator[Call]:
    c = Call(tmp_path)
    try:
        yield c
    finally:
        c.close()


# --------------------------------------------------------------------------
# The engine's own connection
# --------------------------------------------------------------------------


def test_each_subscriber_receives_the_layer_it_asked_for_and_can_switch(call):
    publisher = call.sender(width=640, height=360, bitrate=800)
    publisher.set_simulcast_config(simulcast_config())
    sinks: Dict[int, Sink] = {}
    for uid, (stream_type, _) in SUBSCRIBERS.items():
        subscriber = call.engine(uid)
        sinks[uid] = Sink()
        subscriber.setup_remote_video(SENDER, sinks[uid])
        subscriber.set_remote_video_stream_type(SENDER, stream_type)  # before the publisher is there
    default = call.engine(DEFAULT_SUBSCRIBER)
    sinks[DEFAULT_SUBSCRIBER] = Sink()
    default.setup_remote_video(SENDER, sinks[DEFAULT_SUBSCRIBER])
    default.set_remote_default_video_stream_type(T.LAYER_2)
    call.join(SENDER, *SUBSCRIBERS, DEFAULT_SUBSCRIBER)
    call.push(SENDER, i420_source(flat(640, 360, 90), 640, 360))

    # Each gets its own: 480, 320 and 160 wide; the default subscriber LAYER_2's 320.
    for uid, (stream_type, size) in SUBSCRIBERS.items():
        settles_on(sinks[uid], size, what=f"for subscriber {uid} ({stream_type.name})")
    settles_on(sinks[DEFAULT_SUBSCRIBER], (320, 180), what="for the default stream type LAYER_2")
    for uid, stream_type in ((2, T.LAYER_1), (4, T.LOW)):
        stats = call.events[uid].wait_for("remote_video_stats", lambda s: s.uid == SENDER and s.width > 0)[0]
        assert stats.rx_stream_type == stream_type, (uid, stats)
        assert (stats.width, stats.height) == SUBSCRIBERS[uid][1], (uid, stats)

    # A switch: subscriber 4 from LOW to LAYER_2, at LAYER_2's next keyframe.
    start = sinks[4].count()
    call.engines[4].set_remote_video_stream_type(SENDER, T.LAYER_2)
    settles_on(sinks[4], (320, 180), after=start, what="after the switch to LAYER_2")

    # A layer the publisher does not send gives the best one below it that it sends:
    # LAYER_3 -> LOW (layers 4..6 are not sent either); HIGH is the 640x360 picture itself.
    start = sinks[3].count()
    call.engines[3].set_remote_video_stream_type(SENDER, T.LAYER_3)
    settles_on(sinks[3], (160, 90), after=start, what="for LAYER_3, which is not sent")
    start = sinks[2].count()
    call.engines[2].set_remote_video_stream_type(SENDER, T.HIGH)
    settles_on(sinks[2], (640, 360), after=start, what="for HIGH")

    # Simulcast off (no entry enabled, no dual stream): one stream, received whole by everyone.
    starts = {uid: sink.count() for uid, sink in sinks.items()}
    publisher.set_simulcast_config(SimulcastConfig())
    for uid, sink in sinks.items():
        settles_on(sink, (640, 360), after=starts[uid], what=f"for subscriber {uid} once simulcast is off")


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


def test_bad_configurations_and_stream_types_raise_with_the_library_codes(make_engine):
    engine = make_engine()
    set_config = engine.set_simulcast_config
    op = "set_simulcast_config"
    four = simulcast_config({**LAYERS, L.LAYER_3: (240, 136)})
    error = expect_error(-2, lambda: set_config(four), op)
    assert error.detail, "the library says what is wrong"
    for width, height in ((15, 90), (3841, 90), (160, 15), (160, 2161), (0, 0), (-160, 90)):
        expect_error(-2, lambda: set_config(simulcast_config({L.LOW: (width, height)})), op)
    for fps in (0, 61, -1):
        expect_error(-2, lambda: set_config(simulcast_config(fps=fps)), op)
    # Values no C int holds, and a list that is not seven entries, are refused before the library.
    expect_error(-2, lambda: set_config(simulcast_config({L.LAYER_1: (2**31, 270)})),
                 "configs[0].width 2147483648 does not fit a C int")
    short = SimulcastConfig(configs=[StreamLayerConfig() for _ in range(6)])
    expect_error(-2, lambda: set_config(short), "6 layer configs (not 7)")
    with pytest.raises(TypeError):
        set_config(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        set_config(SimulcastConfig(configs=[(480, 270, 15, True)] * 7))  # type: ignore[list-item]

    # Accepted: the edges, entries not enabled whatever they hold, and nothing enabled.
    set_config(simulcast_config({L.LAYER_1: (16, 16), L.LAYER_6: (3840, 2160)}, fps=60))
    set_config(simulcast_config({L.LAYER_1: (17, 17)}, fps=1))
    junk = simulcast_config()
    junk.configs[L.LAYER_4] = StreamLayerConfig(-1, 99999, 0, False)
    junk.publish_fallback_enable = True
    set_config(junk)
    set_config(SimulcastConfig())
    assert len(SimulcastConfig().configs) == L.LAYER_COUNT_MAX == 7
    assert SimulcastConfig().configs[0] is not SimulcastConfig().configs[0], "each configuration its own entries"

    # Stream types: 0, 1 and the layers 4..9; anything else -2, as is uid 0.
    for stream_type in T:
        engine.set_remote_video_stream_type(7, stream_type)
        engine.set_remote_default_video_stream_type(stream_type)
    assert [int(t) for t in T] == [0, 1, 4, 5, 6, 7, 8, 9]
    for bad in (2, 3, 10, -1):
        expect_error(-2, lambda: engine.set_remote_video_stream_type(7, bad), "set_remote_video_stream_type")
        expect_error(-2, lambda: engine.set_remote_default_video_stream_type(bad),
                     "set_remote_default_video_stream_type")
    expect_error(-2, lambda: engine.set_remote_video_stream_type(0, T.LAYER_1), "set_remote_video_stream_type")

    engine.release()
    expect_error(-7, lambda: set_config(simulcast_config()), op)


# --------------------------------------------------------------------------
# The _ex form: a connection publishing a custom video track
# --------------------------------------------------------------------------


class TrackPusher:
    """What video_support.Pusher pushes on: pictures into a custom video track."""

    def __init__(self, engine: agoraish.RtcEngine, track: int) -> None:
        self.engine, self.track = engine, track

    def push_external_video_frame(self, width: int, height: int, y: Any, u: Any = None, v: Any = None,
                                  **kwargs: Any) -> None:
        self.engine.push_external_video_frame_by_id(self.track, width, height, y, u, v, **kwargs)


def test_a_connection_sends_its_own_layers(make_engine, channel_server):
    channel, uid = "simulcast-ex", 12
    subscriber = make_engine(app_id=APP, server_url=channel_server.url)
    subscriber.disable_audio()
    subscriber.enable_video()
    sink = Sink()
    subscriber.setup_remote_video(uid, sink)
    subscriber.set_remote_video_stream_type(uid, T.LAYER_2)
    subscriber.join_channel(None, channel, uid=21)

    e = make_engine(app_id=APP, server_url=channel_server.url)
    e.disable_audio()
    e.enable_video()
    track = e.create_custom_video_track()
    connection = e.join_channel_ex(None, RtcConnection(channel, uid), ChannelMediaOptions(
        publish_microphone_track=False, enable_audio_recording_or_playout=False,
        publish_custom_video_track=True, custom_video_track_id=track))
    connection.set_video_encoder_configuration(640, 360, frame_rate=FPS, bitrate=800)
    op = "set_simulcast_config_ex"
    expect_error(-2, lambda: connection.set_simulcast_config(simulcast_config({**LAYERS, L.LAYER_5: (200, 100)})), op)
    expect_error(-2, lambda: connection.set_simulcast_config(simulcast_config(fps=61)), op)
    connection.set_simulcast_config(simulcast_config())
    pusher = Pusher(TrackPusher(e, track), i420_source(flat(640, 360, 90), 640, 360))  # type: ignore[arg-type]
    try:
        settles_on(sink, (320, 180), what="of the connection's LAYER_2")
        start = sink.count()
        subscriber.set_remote_video_stream_type(uid, T.LOW)
        settles_on(sink, (160, 90), after=start, what="of the connection's LOW")

        # The connection's own stream choices take the layer types too.
        connection.set_remote_video_stream_type(21, T.LAYER_6)
        connection.set_remote_default_video_stream_type(T.LAYER_1)
        expect_error(-2, lambda: connection.set_remote_video_stream_type(21, 10), "set_remote_video_stream_type_ex")
        expect_error(-2, lambda: connection.set_remote_default_video_stream_type(3),
                     "set_remote_default_video_stream_type_ex")
    finally:
        pusher.stop()
    assert not pusher.errors, pusher.errors

    # A left connection is no connection of the engine.
    connection.leave_channel()
    expect_error(-2, lambda: connection.set_simulcast_config(simulcast_config()), op)
    e.release()
    expect_error(-7, lambda: connection.set_simulcast_config(simulcast_config()), op)
