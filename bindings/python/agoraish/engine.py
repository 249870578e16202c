"""The Python API of libagoraish: ``RtcEngine``, ``EventHandler``, ``MediaPlayer``, ``MediaRecorder``,
``LocalSpatialAudioEngine``, ``ChannelServer``, ``AgoraishError``.

Threads
-------
Every method may be called from any thread; the library releases no lock the
caller holds and ctypes releases the GIL during each call. Event callbacks
(``EventHandler.on_*``) run on the engine's own event thread, one at a time,
in the order the events happened, never on the thread that made the call.
A media player's source observer and a media recorder's observer run there
too; a media player's canvas and frame observers run on the player's own
thread (``agoraish-mp<n>``).

Lifetime
--------
An ``RtcEngine`` owns its C engine and the ctypes callback objects the C
engine calls. ``release()`` (or leaving a ``with`` block) frees the engine.
An engine that is garbage collected without ``release()`` is released then,
and any engine still alive at interpreter exit is released by an ``atexit``
hook, so no callback can reach a finalizing interpreter.

``release(sync=False)`` returns before a callback that is already running has
returned into the library. The callback objects of such an engine are moved
to the module-level set ``_ASYNC_RELEASED`` and kept for the life of the
process (a few hundred bytes per engine), because nothing tells Python when
the library is done with them; the user's handler object is dropped at once.

A ``Connection`` (``RtcEngine.join_channel_ex``) holds its engine; the
engine keeps the connection's ``EventHandlerEx`` and its callback objects
until the engine is released, also after the connection was left (its last
events arrive after ``leave_channel`` returns). The render sinks of a left
connection are dropped at once and their callback objects kept for the life
of the process (the connection's video thread ends on its own).

A ``MediaPlayer`` or ``MediaRecorder`` (``RtcEngine.create_media_player``,
``RtcEngine.create_media_recorder``) holds its engine, which owns the C
player or recorder: ``destroy()`` or the engine's release frees it, garbage
collection of the Python object does not. The engine keeps a player's
observers and canvas until the player is destroyed (after which the library
calls none of them), and a recorder's observers until the engine is
released (its last events may arrive after ``destroy()`` returns).

The ``LocalSpatialAudioEngine`` of ``RtcEngine.spatial_audio()`` (one per
engine) holds its engine; the engine owns the C spatial audio engine, which
``release()`` or the engine's release stops. It has no callbacks.

A ``ChannelServer`` (the embedded channel server) owns its C server and has
no callbacks; ``release()`` or garbage collection stops and frees it, and the
exit hook releases servers still alive after the engines.
"""

from __future__ import annotations

import atexit
import ctypes
import dataclasses
import enum
import json
import operator
import os
import sys
import threading
import time
import warnings
import traceback
import types
import weakref
from typing import (Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Set, Tuple, Type, TypeVar,
                    Union)

from . import _ffi
from ._abi import (  # the enums of the header, generated with their documentation
    ErrorCode,
    LogFilter,
    LogLevel,
    AudioProfile,
    ChannelProfile,
    ClientRole,
    ConnectionState,
    ConnectionChangedReason,
    UserOfflineReason,
    QualityType,
    LocalAudioStreamState,
    LocalAudioStreamError,
    RemoteAudioState,
    RemoteAudioStateReason,
    AudioFramePosition,
    RawAudioFrameOpMode,
    AudioRecordingQuality,
    AudioRecordingPosition,
    VideoCodecType,
    VideoPixelFormat,
    LocalVideoStreamState,
    LocalVideoStreamError,
    RemoteVideoState,
    RemoteVideoStateReason,
    VideoObserverPosition,
    LastmileProbeResultState,
    StreamFallbackOptions,
    PriorityType,
    MetadataType,
    EncryptionMode,
    EncryptionErrorType,
    RenderMode,
    VideoMirrorMode,
    OrientationMode,
    DegradationPreference,
    VideoStreamType,
    StreamLayerIndex,
    CameraCapturerOutputPreference,
    AudioTrackType,
    VideoFrameType,
    MediaPlayerState,
    MediaPlayerReason,
    MediaPlayerEvent,
    MediaStreamType,
    AudioMixingState,
    AudioMixingReason,
    RecorderState,
    RecorderReason,
    MediaRecorderStreamType,
    AudioProcessingFlag,
    AudioScenario,
    AudioAinsMode,
    VoiceBeautifierPreset,
    AudioEffectPreset,
    VoiceConversionPreset,
    HeadphoneEqualizerPreset,
    AudioEqualizationBand,
    AudioReverbType,
)

__all__ = [
    "AgoraishError",
    "AreaCode",
    "AudioAinsMode",
    "AudioDeviceInfo",
    "AudioEffectPreset",
    "AudioEqualizationBand",
    "AudioFrame",
    "AudioFrameObserver",
    "AudioFramePosition",
    "AudioMixingReason",
    "AudioMixingState",
    "AudioProcessingFlag",
    "AudioProfile",
    "AudioRecordingPosition",
    "AudioRecordingQuality",
    "AudioReverbType",
    "AudioScenario",
    "AudioTrackType",
    "AudioVolumeInfo",
    "CameraCapturerOutputPreference",
    "ChannelMediaOptions",
    "ChannelProfile",
    "ChannelServer",
    "ClientRole",
    "Connection",
    "ConnectionChangedReason",
    "ConnectionState",
    "DegradationPreference",
    "EchoTestConfiguration",
    "EncodedVideoFrameInfo",
    "EncryptionErrorType",
    "EncryptionMode",
    "ErrorCode",
    "EventHandler",
    "EventHandlerEx",
    "HeadphoneEqualizerPreset",
    "LastmileProbeConfig",
    "LastmileProbeOneWayResult",
    "LastmileProbeResult",
    "LastmileProbeResultState",
    "LocalAudioStats",
    "LocalAudioStreamError",
    "LocalAudioStreamState",
    "LocalSpatialAudioEngine",
    "LocalVideoStats",
    "LocalVideoStreamError",
    "LocalVideoStreamState",
    "LogFilter",
    "LogLevel",
    "MediaDeviceType",
    "MediaPlayer",
    "MediaPlayerEvent",
    "MediaPlayerReason",
    "MediaPlayerSourceObserver",
    "MediaPlayerState",
    "MediaRecorder",
    "MediaRecorderConfiguration",
    "MediaRecorderObserver",
    "MediaRecorderStreamType",
    "MediaStreamType",
    "MetadataObserver",
    "MetadataType",
    "OrientationMode",
    "PacketObserver",
    "PlayerStreamInfo",
    "PriorityType",
    "QualityType",
    "RawAudioFrameOpMode",
    "RecorderInfo",
    "RecorderReason",
    "RecorderState",
    "Rectangle",
    "RemoteAudioState",
    "RemoteAudioStateReason",
    "RemoteAudioStats",
    "RemoteVideoState",
    "RemoteVideoStateReason",
    "RemoteVideoStats",
    "RenderMode",
    "RtcConnection",
    "RtcEngine",
    "RtcStats",
    "SimulcastConfig",
    "StreamFallbackOptions",
    "StreamLayerConfig",
    "StreamLayerIndex",
    "UserInfo",
    "UserOfflineReason",
    "VideoCodecType",
    "VideoDeviceInfo",
    "VideoEncodedFrameObserver",
    "VideoFormat",
    "VideoFrame",
    "VideoFrameObserver",
    "VideoFrameType",
    "VideoMirrorMode",
    "VideoObserverPosition",
    "VideoPixelFormat",
    "VideoStreamType",
    "VoiceBeautifierPreset",
    "VoiceConversionPreset",
    "get_error_description",
    "get_version",
]

StrPath = Union[str, "os.PathLike[str]"]


# --------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------


    # MASK (0x080f) has the value of DEBUG and is available as _ffi.AGORAISH_LOG_FILTER_MASK.


class AreaCode(enum.IntEnum):
    """Agora's AREA_CODE bits for ``area_code``; combine regions with ``|``.

    ``GLOB`` is 0xFFFFFFFF here (the value "rtc.area_code" reads back); the
    header spells it ``(int)0xFFFFFFFF``, and -1 is accepted as well.
    """

    CN = _ffi.AGORAISH_AREA_CODE_CN
    NA = _ffi.AGORAISH_AREA_CODE_NA
    EU = _ffi.AGORAISH_AREA_CODE_EU
    AS = _ffi.AGORAISH_AREA_CODE_AS
    JP = _ffi.AGORAISH_AREA_CODE_JP
    IN = _ffi.AGORAISH_AREA_CODE_IN
    GLOB = _ffi.AGORAISH_AREA_CODE_GLOB & 0xFFFFFFFF


class MediaDeviceType(enum.IntEnum):
    """Agora's MEDIA_DEVICE_TYPE: the kind of audio device to list."""

    AUDIO_PLAYOUT_DEVICE = _ffi.AGORAISH_AUDIO_PLAYOUT_DEVICE
    AUDIO_RECORDING_DEVICE = _ffi.AGORAISH_AUDIO_RECORDING_DEVICE


# The enums below are plain ints in the header (documented on the fields and
# functions that take them), so their values are written here.


_E = TypeVar("_E", bound=enum.IntEnum)


def _enum_or_int(cls: Type[_E], value: int) -> Union[_E, int]:
    """`value` as a member of `cls`, or the plain int when the header does not list it."""
    try:
        return cls(value)
    except ValueError:
        return int(value)


class UserInfo(NamedTuple):
    """A uid and its user account (Agora's UserInfo; ``agoraish_user_info``).

    A tuple ``(uid, user_account)``, so ``uid, account = engine.get_user_info_by_uid(n)`` works.
    """

    uid: int
    user_account: str


@dataclasses.dataclass(frozen=True)
class RtcStats:
    """Statistics of a call (Agora's RtcStats; ``agoraish_rtc_stats``), from
    ``on_rtc_stats`` (every 2 s in a call) and ``on_leave_channel``.

    Attributes:
        duration: seconds in the channel.
        tx_bytes, rx_bytes: bytes sent and received on every path of the call.
        tx_packets, rx_packets: packets and messages sent and received.
        user_count: users in the channel, this one included.
        tx_kbitrate, rx_kbitrate: Kbps sent and received over the last 2 s
            period (0 in ``on_leave_channel``).
        tx_audio_bytes, rx_audio_bytes: bytes of audio sent and received.
        tx_audio_kbitrate, rx_audio_kbitrate: Kbps of audio over the period.
        memory_app_usage_kb: resident memory of the process, KB.
        cpu_app_usage: CPU of the process over the period, percent of one core.
        tx_video_kbitrate, rx_video_kbitrate: Kbps of video RTP over the period.
        gateway_rtt: ms, the round trip to the channel server on the media
            path (its STUN binding, every 2.5 s); 0 before the first answer.
        lastmile_delay: ms, half of ``gateway_rtt``.
        tx_packet_loss_rate: percent of the video sent that the server asked
            for again (its NACKs), before recovery; 0 without video.
        rx_packet_loss_rate: percent lost before recovery of the worst remote
            stream received (audio frames concealed, video packets missing).

    Fields the library did not fill (an older library) are 0.
    """

    duration: int = 0
    tx_bytes: int = 0
    rx_bytes: int = 0
    tx_packets: int = 0
    rx_packets: int = 0
    user_count: int = 0
    tx_kbitrate: int = 0
    tx_audio_bytes: int = 0
    rx_audio_bytes: int = 0
    rx_kbitrate: int = 0
    tx_audio_kbitrate: int = 0
    rx_audio_kbitrate: int = 0
    memory_app_usage_kb: int = 0
    cpu_app_usage: float = 0.0
    tx_video_kbitrate: int = 0
    rx_video_kbitrate: int = 0
    gateway_rtt: int = 0
    lastmile_delay: int = 0
    tx_packet_loss_rate: int = 0
    rx_packet_loss_rate: int = 0


@dataclasses.dataclass(frozen=True)
class LocalAudioStats:
    """Sending statistics (Agora's LocalAudioStats; ``agoraish_local_audio_stats``), every 2 s in a call.

    Attributes:
        num_channels: channels encoded.
        sent_sample_rate: the rate of the source (Hz).
        sent_bitrate: Kbps over the period.
        tx_packet_loss_rate: percent lost upstream (0 while the server sends no feedback).
        aec_estimated_delay: the echo canceller's estimate of the echo path's
            delay in ms (Agora's aecEstimatedDelay); -1 while echo cancellation
            is off or has no estimate (ABI 0.14; -1 from an older library).
        audio_processing: the steps of audio processing on the local voice in
            the period, an ``AudioProcessingFlag`` bit set (0: sent as captured).
        echo_return_loss_enhancement: echo return loss enhancement in dB,
            measured by the echo canceller over the last second; -1 while it is
            off or has no measure (ABI 0.14; -1 from an older library).
        voice_effects: nonzero while a voice effect (a preset, pitch, formant,
            equalization or reverb) changes the local voice.
    """

    num_channels: int = 0
    sent_sample_rate: int = 0
    sent_bitrate: int = 0
    tx_packet_loss_rate: int = 0
    aec_estimated_delay: int = -1
    audio_processing: int = 0
    echo_return_loss_enhancement: int = -1
    voice_effects: int = 0


@dataclasses.dataclass(frozen=True)
class RemoteAudioStats:
    """Receiving statistics of one remote user (Agora's RemoteAudioStats;
    ``agoraish_remote_audio_stats``), every 2 s.

    Attributes:
        uid: the remote user.
        quality: QUALITY_TYPE from the period's loss: 1 excellent .. 5 very bad, 0 unknown.
        network_transport_delay: ms, estimated from the measured jitter.
        jitter_buffer_delay: ms: the playout delay the jitter buffer holds to.
        audio_loss_rate: percent of 10 ms frames concealed over the period.
        num_channels, received_sample_rate: the received format.
        received_bitrate: Kbps over the period.
        total_frozen_time: ms of 200 ms windows with 4 % or more concealed frames.
        frozen_rate: total_frozen_time as a percent of total_active_time.
        total_active_time: ms the stream has played.
        fec_recovered_frames: frames rebuilt from Opus in-band FEC so far.
        concealed_frames: frames concealed by Opus PLC so far.
        end_to_end_delay: ms: network + jitter buffer + one 20 ms frame.
    """

    uid: int = 0
    quality: int = 0
    network_transport_delay: int = 0
    jitter_buffer_delay: int = 0
    audio_loss_rate: int = 0
    num_channels: int = 0
    received_sample_rate: int = 0
    received_bitrate: int = 0
    total_frozen_time: int = 0
    frozen_rate: int = 0
    total_active_time: int = 0
    fec_recovered_frames: int = 0
    concealed_frames: int = 0
    end_to_end_delay: int = 0


class AudioVolumeInfo(NamedTuple):
    """One speaker of ``on_audio_volume_indication`` (Agora's AudioVolumeInfo).

    Attributes:
        uid: 0 for the local user.
        volume: 0..255, after the volume settings.
        vad: local: 1 when voice was detected (with report_vad), else 0; remote: always 1.
    """

    uid: int
    volume: int
    vad: int


@dataclasses.dataclass(frozen=True)
class LocalVideoStats:
    """Sending statistics of local video (Agora's LocalVideoStats;
    ``agoraish_local_video_stats``), every 2 s in a call.

    Attributes:
        sent_bitrate: Kbps of RTP sent over the period (the low stream included).
        sent_frame_rate: frames per second sent (high stream).
        encoder_output_frame_rate: frames per second out of the encoder (high stream).
        renderer_output_frame_rate: frames per second handed to the local canvas.
        target_bitrate, target_frame_rate: what the encoder aims at (Kbps, fps).
        encoded_bitrate: Kbps of encoded video (payload only, high stream).
        encoded_frame_width, encoded_frame_height: the size of the pictures encoded.
        encoded_frame_count: frames encoded in this call (high stream).
        codec_type: a ``VideoCodecType`` number.
        capture_frame_rate: pictures per second captured or pushed.
    """

    sent_bitrate: int = 0
    sent_frame_rate: int = 0
    encoder_output_frame_rate: int = 0
    renderer_output_frame_rate: int = 0
    target_bitrate: int = 0
    target_frame_rate: int = 0
    encoded_bitrate: int = 0
    encoded_frame_width: int = 0
    encoded_frame_height: int = 0
    encoded_frame_count: int = 0
    codec_type: int = 0
    capture_frame_rate: int = 0


@dataclasses.dataclass(frozen=True)
class RemoteVideoStats:
    """Receiving statistics of one remote user's video (Agora's
    RemoteVideoStats; ``agoraish_remote_video_stats``), every 2 s.

    Attributes:
        uid: the remote user.
        width, height: the size of its pictures.
        received_bitrate: Kbps of RTP received over the period.
        decoder_output_frame_rate: pictures per second decoded.
        renderer_output_frame_rate: pictures per second handed to the user's canvas.
        packet_loss_rate: percent of the period's packets lost (before recovery).
        rx_stream_type: a ``VideoStreamType``: 0 the high stream, 1 the low one,
            4..9 a simulcast layer (LAYER_1..LAYER_6).
        total_frozen_time: ms: the sum of the gaps of 500 ms or more between two
            pictures since the video started.
        frozen_rate: total_frozen_time as a percent of total_active_time.
        total_active_time: ms since the first picture, muted time excluded.
        publish_duration: ms since the first packet of the user's video.
    """

    uid: int = 0
    width: int = 0
    height: int = 0
    received_bitrate: int = 0
    decoder_output_frame_rate: int = 0
    renderer_output_frame_rate: int = 0
    packet_loss_rate: int = 0
    rx_stream_type: int = 0
    total_frozen_time: int = 0
    frozen_rate: int = 0
    total_active_time: int = 0
    publish_duration: int = 0


@dataclasses.dataclass
class LastmileProbeConfig:
    """What ``RtcEngine.start_lastmile_probe_test`` probes (Agora's
    LastmileProbeConfig; ``agoraish_lastmile_probe_config``).

    Attributes:
        probe_uplink, probe_downlink: the directions to probe; at least one.
        expected_uplink_bitrate, expected_downlink_bitrate: bps, 100000..5000000
            for each direction probed (the probe is sent at this rate); the
            bitrate of a direction not probed is not read.
        token: (ABI 0.9, an agoraish extension) what the probe's join presents
            where the app has a certificate: a token for `channel_id` and uid 0
            (built for uid 0, the wildcard identity); None or "": none.
        channel_id: (ABI 0.9) the channel name the token is for; None or "":
            "probe". The probe runs in a private channel of its own either way.
    """

    probe_uplink: bool
    probe_downlink: bool
    expected_uplink_bitrate: int = 0
    expected_downlink_bitrate: int = 0
    token: Optional[str] = None
    channel_id: Optional[str] = None


@dataclasses.dataclass
class EchoTestConfiguration:
    """How ``RtcEngine.start_echo_test_with_config`` runs (Agora's
    EchoTestConfiguration without the view; ``agoraish_echo_test_configuration``,
    ABI 0.9).

    Attributes:
        enable_audio: echo the audio (the only medium echoed).
        enable_video: echo the video: not supported (True raises -4). Agora's
            default is True; here it is False.
        token: what the test's join presents where the app has a certificate:
            a token for `channel_id` and uid 0 (built for uid 0, the wildcard
            identity); None or "": none.
        channel_id: the channel name the token is for, a valid channel name;
            None or "": "echo". The test runs in a private channel of its own
            either way.
        interval_in_seconds: 2..10: when the audio comes back.
    """

    enable_audio: bool = True
    enable_video: bool = False
    token: Optional[str] = None
    channel_id: Optional[str] = None
    interval_in_seconds: int = 2


@dataclasses.dataclass
class StreamLayerConfig:
    """One simulcast layer (Agora's SimulcastConfig.StreamLayerConfig;
    ``agoraish_stream_layer_config``, ABI 0.12), an entry of
    ``SimulcastConfig.configs``.

    Attributes:
        width, height: the box the layer's picture is fitted into (aspect
            ratio kept, never enlarged): 16..3840 x 16..2160 when enabled.
        framerate: frames per second, 1..60 when enabled (never above the
            high stream's).
        enable: send the layer. The other fields of a layer not enabled are
            not read.
    """

    width: int = 0
    height: int = 0
    framerate: int = 0
    enable: bool = False


def _disabled_layers() -> List[StreamLayerConfig]:
    return [StreamLayerConfig() for _ in range(StreamLayerIndex.LAYER_COUNT_MAX)]


@dataclasses.dataclass
class SimulcastConfig:
    """The streams sent besides the high one (Agora's SimulcastConfig;
    ``agoraish_simulcast_config``, ABI 0.12), for
    ``RtcEngine.set_simulcast_config`` and ``Connection.set_simulcast_config``::

        config = agoraish.SimulcastConfig()
        config.configs[agoraish.StreamLayerIndex.LAYER_1] = agoraish.StreamLayerConfig(480, 270, 15, True)
        config.configs[agoraish.StreamLayerIndex.LOW] = agoraish.StreamLayerConfig(160, 90, 15, True)
        engine.set_simulcast_config(config)

    Attributes:
        configs: seven ``StreamLayerConfig``, indexed by ``StreamLayerIndex``:
            LAYER_1..LAYER_6 (0..5), received as ``VideoStreamType.LAYER_1``
            .. ``LAYER_6``, and LOW (6), the low stream
            (``VideoStreamType.LOW``). At most three enabled. By default all
            seven are disabled.
        publish_fallback_enable: read and ignored (the publish fallback of
            ``RtcEngine.set_local_publish_fallback_option`` applies).
    """

    configs: List[StreamLayerConfig] = dataclasses.field(default_factory=_disabled_layers)
    publish_fallback_enable: bool = False


@dataclasses.dataclass(frozen=True)
class LastmileProbeOneWayResult:
    """One direction of a last-mile probe (Agora's LastmileProbeOneWayResult;
    ``agoraish_lastmile_probe_one_way_result``).

    Attributes:
        packet_loss_rate: percent of the probe packets lost (100 when none arrived).
        jitter: interarrival jitter (RFC 3550), ms.
        available_bandwidth: bps: the rate the path delivered the probe at
            (at most the expected bitrate).

    A direction that was not probed reads 0 throughout.
    """

    packet_loss_rate: int = 0
    jitter: int = 0
    available_bandwidth: int = 0


@dataclasses.dataclass(frozen=True)
class LastmileProbeResult:
    """The result of a last-mile probe (Agora's LastmileProbeResult;
    ``agoraish_lastmile_probe_result``), from ``on_lastmile_probe_result``.

    Attributes:
        state: a ``LastmileProbeResultState`` (a value the header does not
            list arrives as a plain int).
        uplink_report, downlink_report: a ``LastmileProbeOneWayResult`` each.
        rtt: the round trip to the server, ms.

    Fields the library did not fill (an older library) keep these defaults.
    """

    state: Union[LastmileProbeResultState, int] = LastmileProbeResultState.UNAVAILABLE
    uplink_report: LastmileProbeOneWayResult = dataclasses.field(default_factory=LastmileProbeOneWayResult)
    downlink_report: LastmileProbeOneWayResult = dataclasses.field(default_factory=LastmileProbeOneWayResult)
    rtt: int = 0


class VideoFormat(NamedTuple):
    """One picture format a camera offers (``agoraish_video_format``).

    Attributes:
        width, height: pixels.
        fps: frames per second.
        fourcc: the V4L2 pixel format, for example "YUYV".
    """

    width: int
    height: int
    fps: int
    fourcc: str


class VideoDeviceInfo(NamedTuple):
    """One camera, a V4L2 capture device (``agoraish_video_device_info``): ``(id, name, formats)``.

    Attributes:
        id: its /dev path; pass it to ``set_video_device``.
        name: the card name the driver gives.
        formats: the ``VideoFormat`` list it offers (at most 32).
    """

    id: str
    name: str
    formats: List[VideoFormat]


class Rectangle(NamedTuple):
    """A rectangle in pixels (Agora's Rectangle), for ``add_video_watermark``."""

    x: int
    y: int
    width: int
    height: int


class AudioDeviceInfo(NamedTuple):
    """One audio device (an ALSA PCM): ``(id, name)``.

    Attributes:
        id: the ALSA PCM name; pass it to ``set_recording_device`` / ``set_playback_device``.
        name: a description.
    """

    id: str
    name: str


class RtcConnection(NamedTuple):
    """One channel membership of an engine (Agora's RtcConnection;
    ``agoraish_rtc_connection``): ``(channel_id, local_uid)``.

    The engine's own join (``RtcEngine.join_channel*``) is one connection;
    ``RtcEngine.join_channel_ex`` adds more, in other channels or in the same
    channel with another uid. A connection is named by what the host passed:
    `local_uid` 0 (the server picks the uid) names the connection joined
    with 0, whatever uid the server picked.

    Attributes:
        channel_id: the channel name (the rules of ``RtcEngine.join_channel``).
        local_uid: the local uid, 0..2**32-1 (0: the server picks one).

    A plain value (a tuple, hashable): it is checked when a call passes it
    to the library (None as `channel_id` reaches the library as NULL: -2).
    """

    channel_id: str
    local_uid: int = 0


@dataclasses.dataclass
class ChannelMediaOptions:
    """What a connection publishes and receives (Agora 4.x ChannelMediaOptions;
    ``agoraish_channel_media_options``).

    Every field is optional, as Agora's ``Optional<>``: None (the default)
    leaves the connection's choice as it is; a value sets the field (its
    ``has_`` flag in C). A connection starts publishing the microphone,
    subscribing to every user's audio and video, and recording and playing on
    the device. A connection publishes one audio track: the microphone, or a
    custom audio track (``RtcEngine.create_custom_audio_track``), which
    replaces it; and one video track: the camera (or external video source,
    the engine's own connection only), a custom video track
    (``RtcEngine.create_custom_video_track``) or a custom encoded video track
    (``RtcEngine.create_custom_encoded_video_track``). A media player
    (``RtcEngine.create_media_player``) can stand for either: its audio as
    the audio track, its pictures as the video track.

    Attributes:
        publish_microphone_track: publish the microphone (unless a custom
            audio track is published).
        publish_camera_track: publish the camera or external video source. The
            engine's own connection only: True on a ``join_channel_ex``
            connection is -2.
        publish_custom_audio_track: True publishes the custom audio track
            `publish_custom_audio_track_id` (which must then be set, or have
            been set earlier); False stops publishing it.
        publish_custom_audio_track_id: a track id from
            ``RtcEngine.create_custom_audio_track``.
        publish_custom_video_track: True publishes the custom video track
            `custom_video_track_id` (which must then be set, or have been set
            earlier) instead of the camera; False stops (the connection's
            video switches return to what they were).
        publish_encoded_video_track: True publishes the custom encoded video
            track `custom_video_track_id`; False stops.
        custom_video_track_id: the custom (or custom encoded) video track
            published, from ``RtcEngine.create_custom_video_track`` or
            ``RtcEngine.create_custom_encoded_video_track``. One video track
            per connection: the camera and a custom track at once is -2.
        auto_subscribe_audio: receive every remote user's audio; False: none
            until ``mute_remote_audio_stream(uid, False)`` asks for a user.
        auto_subscribe_video: as `auto_subscribe_audio`, for video.
        enable_audio_recording_or_playout: False: this connection neither
            takes the microphone nor plays on the device (a custom audio track
            is still sent; remote audio is still received and reported).
        client_role_type: a ``ClientRole``.
        channel_profile: a ``ChannelProfile``; before joining only (-5 in a channel).
        token: for a join, the token used when the join's own token is None
            or ""; for an update, renews the connection's token.
        publish_media_player_audio_track: True publishes the audio of the
            media player `publish_media_player_id` (which must then be set,
            or have been set earlier) as the connection's audio track,
            instead of the microphone or a custom audio track (one audio
            track per connection: to send music with the microphone use
            ``RtcEngine.start_audio_mixing``); False stops.
        publish_media_player_video_track: True publishes the pictures of the
            media player `publish_media_player_id` as the connection's video
            track (the engine encodes them with its encoder configuration);
            the camera or a custom video track at once is -2; False stops.
        publish_media_player_id: the media player whose tracks are published:
            a ``MediaPlayer.id``.
    """

    publish_microphone_track: Optional[bool] = None
    publish_camera_track: Optional[bool] = None
    publish_custom_audio_track: Optional[bool] = None
    publish_custom_audio_track_id: Optional[int] = None
    publish_custom_video_track: Optional[bool] = None
    publish_encoded_video_track: Optional[bool] = None
    custom_video_track_id: Optional[int] = None
    auto_subscribe_audio: Optional[bool] = None
    auto_subscribe_video: Optional[bool] = None
    enable_audio_recording_or_playout: Optional[bool] = None
    client_role_type: Optional[int] = None
    channel_profile: Optional[int] = None
    token: Optional[str] = None
    publish_media_player_audio_track: Optional[bool] = None
    publish_media_player_video_track: Optional[bool] = None
    publish_media_player_id: Optional[int] = None


@dataclasses.dataclass
class EncodedVideoFrameInfo:
    """What is known of an encoded video frame (Agora's EncodedVideoFrameInfo;
    ``agoraish_encoded_video_frame_info``): what the host says of a frame it
    pushes (``RtcEngine.push_external_encoded_video_frame``), and what a
    ``VideoEncodedFrameObserver`` is told of a frame received.

    Attributes:
        codec_type: a ``VideoCodecType``: VP8 or VP9.
        width, height: the picture size, 0..16384. Received: 0 where the frame
            does not carry it (delta frames, VP9).
        frame_type: a ``VideoFrameType``: KEY_FRAME (decodes on its own) or
            DELTA_FRAME (needs the frames before it).
        rotation: 0, 90, 180 or 270 (pushed frames; received frames report 0).
        capture_time_ms: pushed: the capture time in ms (any origin,
            increasing; the RTP timestamps follow it), None for the monotonic
            clock. Received: the RTP timestamp in ms.
        uid: received: the sender (not read for a push).
    """

    codec_type: int = VideoCodecType.VP8
    width: int = 0
    height: int = 0
    frame_type: int = VideoFrameType.DELTA_FRAME
    rotation: int = 0
    capture_time_ms: Optional[int] = None
    uid: int = 0


@dataclasses.dataclass(frozen=True)
class PlayerStreamInfo:
    """One stream of the source a ``MediaPlayer`` opened (Agora's
    PlayerStreamInfo; ``agoraish_player_stream_info``), from
    ``MediaPlayer.get_stream_info``.

    Attributes:
        stream_index: the index in the container (what
            ``MediaPlayer.select_audio_track`` takes).
        stream_type: a ``MediaStreamType`` (a plain int for a value the
            header does not list).
        codec_name: FFmpeg's name of the codec ("h264", "vp8", "aac", "opus", ...).
        language: the language tag, "" when none.
        video_frame_rate: frames per second (video).
        video_bit_rate: Kbps, 0 when unknown (video).
        video_width, video_height: the picture size (video).
        video_rotation: always 0.
        audio_sample_rate: Hz (audio).
        audio_channels: channels (audio).
        audio_bits_per_sample: 0 for compressed audio.
        duration: ms, 0 when unknown.
    """

    stream_index: int = 0
    stream_type: int = MediaStreamType.UNKNOWN
    codec_name: str = ""
    language: str = ""
    video_frame_rate: int = 0
    video_bit_rate: int = 0
    video_width: int = 0
    video_height: int = 0
    video_rotation: int = 0
    audio_sample_rate: int = 0
    audio_channels: int = 0
    audio_bits_per_sample: int = 0
    duration: int = 0


@dataclasses.dataclass
class MediaRecorderConfiguration:
    """How a ``MediaRecorder`` records (Agora's MediaRecorderConfiguration;
    ``agoraish_media_recorder_configuration``), for ``MediaRecorder.start_recording``.

    Attributes:
        storage_path: the file to write (MP4); its directory must exist.
        container_format: 1, MP4 (the only container; others are -4).
        stream_type: a ``MediaRecorderStreamType``: AUDIO, VIDEO or BOTH (3).
        max_duration_ms: the longest recording; when it is reached the
            recording stops (``RecorderState.STOP`` with
            ``RecorderReason.OVER_MAX_DURATION``).
        recorder_info_update_interval: ``on_recorder_info_updated`` every this
            many ms while recording: 0 never, else 1000..10000.
        width, height: the video size, 16..4096 and even; pictures of another
            size are scaled into it (letterboxed, aspect kept).
        fps: frames per second written, 1..60.
        sample_rate: 16000, 32000, 44100 or 48000.
        channel_num: audio channels, 1 or 2.
    """

    storage_path: StrPath = ""
    container_format: int = 1
    stream_type: int = MediaRecorderStreamType.BOTH
    max_duration_ms: int = 120000
    recorder_info_update_interval: int = 0
    width: int = 1280
    height: int = 720
    fps: int = 30
    sample_rate: int = 48000
    channel_num: int = 1


class RecorderInfo(NamedTuple):
    """What a ``MediaRecorder`` has recorded so far (Agora's RecorderInfo;
    ``agoraish_recorder_info``), from ``MediaRecorderObserver.on_recorder_info_updated``.

    Attributes:
        file_name: the file's path.
        duration_ms: the length recorded, in ms.
        file_size: the file's size in bytes.
    """

    file_name: str
    duration_ms: int
    file_size: int


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


def get_error_description(code: int) -> str:
    """The library's description of an error code, negated or not ("unknown error" if unknown).

    Thread: any.
    """
    text = _ffi.agoraish_get_error_description(_c_int(code, "code"))
    return text.decode("utf-8", "replace") if text else "unknown error"


def get_version() -> Tuple[str, int]:
    """The library version ("major.minor.patch") and its build number (Agora's getVersion).

    Thread: any.
    """
    build = ctypes.c_int(0)
    text = _ffi.agoraish_get_version(ctypes.byref(build))
    return (text.decode("utf-8", "replace") if text else ""), build.value


class AgoraishError(Exception):
    """A call into libagoraish failed.

    Attributes:
        code: the negative code the C function returned (for example -2).
        description: the library's text for it (agoraish_get_error_description).
        operation: what was being done, for the message (may be empty).
        detail: why, in the library's words (agoraish_get_last_error_detail:
            which argument, limit or key), or "" when it said nothing more.
    """

    code: int
    description: str
    operation: str
    detail: str

    def __init__(self, code: int, operation: str = "", detail: str = "") -> None:
        self.code = -abs(int(code))
        self.operation = operation
        self.detail = detail
        try:
            self.description = get_error_description(self.code)
        except Exception:  # the library may be half torn down at exit
            self.description = "unknown error"
        prefix = f"{operation}: " if operation else ""
        suffix = f" - {detail}" if detail else ""
        super().__init__(f"{prefix}{self.description} ({self.code}){suffix}")

    def __reduce__(self) -> Tuple[type, Tuple[int, str, str]]:
        return (type(self), (self.code, self.operation, self.detail))

    @property
    def error_code(self) -> Optional[ErrorCode]:
        """The code as an ``ErrorCode`` (positive), or None if the header does not list it."""
        try:
            return ErrorCode(-self.code)
        except ValueError:
            return None


def _library_error(rc: int, operation: str) -> AgoraishError:
    """The error of a library call that just failed on this thread, with the library's detail."""
    try:
        raw = _ffi.agoraish_get_last_error_detail()
    except Exception:  # the library may be half torn down at exit
        raw = None
    return AgoraishError(rc, operation, raw.decode("utf-8", "replace") if raw else "")


def _check(rc: int, operation: str) -> None:
    if rc != 0:
        raise _library_error(rc, operation)


def _read_string(call: Callable[[Any, Any], int], operation: str) -> str:
    """Reads a string through the header's ``char *buf, size_t *len`` convention.

    Asks for the size first (NULL buffer, ``*len`` 0), then reads; if the
    value grew in between (-6 again), reads again with the new size.
    """
    length = ctypes.c_size_t(0)
    rc = call(None, ctypes.byref(length))
    while rc == -_ffi.AGORAISH_ERR_BUFFER_TOO_SMALL:
        buffer = ctypes.create_string_buffer(length.value)
        rc = call(buffer, ctypes.byref(length))
        if rc == 0:
            return buffer.value.decode("utf-8", "replace")
    _check(rc, operation)
    return ""  # unreachable: an answer of 0 to a size query would need an empty buffer


def _nonnegative(rc: int, operation: str) -> int:
    """The value of a call that returns a value (>= 0) or a negated error code."""
    if rc < 0:
        raise _library_error(rc, operation)
    return rc


# --------------------------------------------------------------------------
# Argument conversion: Python values that C cannot represent are -2 here
# --------------------------------------------------------------------------


def _c_int(value: int, name: str) -> int:
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None
    if not -(2**31) <= v < 2**31:
        raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, f"{name} {v} does not fit a C int")
    return v


def _c_int64(value: int, name: str) -> int:
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None
    if not -(2**63) <= v < 2**63:
        raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, f"{name} {v} does not fit a C int64_t")
    return v


def _c_uint(value: int, name: str) -> int:
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None
    if not 0 <= v < 2**32:
        raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, f"{name} {v} does not fit a C unsigned int")
    return v


def _c_string(value: Union[str, bytes, "os.PathLike[Any]", None], name: str) -> Optional[bytes]:
    """UTF-8 bytes for a C string argument; None stays NULL."""
    if value is None:
        return None
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, str):
        try:
            data = value.encode("utf-8")
        except UnicodeEncodeError:
            raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, f"{name} is not valid UTF-8") from None
    elif isinstance(value, (bytes, bytearray)):
        data = bytes(value)
    else:
        raise TypeError(f"{name} must be str, bytes or a path, not {type(value).__name__}")
    if b"\0" in data:
        raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, f"{name} contains a NUL byte")
    return data


def _c_connection(connection: Any) -> Optional[Any]:
    """An ``agoraish_rtc_connection`` for an ``RtcConnection`` (or a
    ``Connection``, or a ``(channel_id, local_uid)`` pair); None stays NULL.
    The struct holds the channel's bytes alive (ctypes keeps them)."""
    if connection is None:
        return None
    if isinstance(connection, Connection):
        connection = connection.connection
    if not isinstance(connection, tuple) or len(connection) != 2:
        raise TypeError("connection must be an RtcConnection (channel_id, local_uid), "
                        f"not {type(connection).__name__}")
    channel_id, local_uid = connection
    raw = _ffi.RtcConnection()
    raw.struct_size = ctypes.sizeof(_ffi.RtcConnection)
    raw.channel_id = _c_string(channel_id, "connection.channel_id")
    raw.local_uid = _c_uint(local_uid, "connection.local_uid")
    return raw


def _connection_key(raw: Any) -> RtcConnection:
    """The ``RtcConnection`` a (non-NULL) ``agoraish_rtc_connection`` names."""
    return RtcConnection(_text(raw.channel_id), int(raw.local_uid))


def _ref(raw: Optional[Any]) -> Optional[Any]:
    """``ctypes.byref(raw)``, or None (NULL) for None."""
    return ctypes.byref(raw) if raw is not None else None


#: The boolean and the integer fields of ``agoraish_channel_media_options``
#: (each with its ``has_`` flag), in header order.
_MEDIA_OPTION_FLAGS = ("publish_microphone_track", "publish_camera_track", "publish_custom_audio_track",
                       "publish_custom_video_track", "publish_encoded_video_track",
                       "auto_subscribe_audio", "auto_subscribe_video", "enable_audio_recording_or_playout",
                       "publish_media_player_audio_track", "publish_media_player_video_track")
_MEDIA_OPTION_INTS = ("publish_custom_audio_track_id", "custom_video_track_id", "client_role_type",
                      "channel_profile", "publish_media_player_id")


def _c_media_options(options: Optional["ChannelMediaOptions"]) -> Optional[Any]:
    """An ``agoraish_channel_media_options`` for a ``ChannelMediaOptions``:
    each field that is not None is set with its ``has_`` flag; None stays NULL."""
    if options is None:
        return None
    if not isinstance(options, ChannelMediaOptions):
        raise TypeError(f"options must be a ChannelMediaOptions, not {type(options).__name__}")
    raw = _ffi.ChannelMediaOptions()
    raw.struct_size = ctypes.sizeof(_ffi.ChannelMediaOptions)
    for name in _MEDIA_OPTION_FLAGS:
        value = getattr(options, name)
        if value is not None:
            setattr(raw, "has_" + name, 1)
            setattr(raw, name, 1 if value else 0)
    for name in _MEDIA_OPTION_INTS:
        value = getattr(options, name)
        if value is not None:
            setattr(raw, "has_" + name, 1)
            setattr(raw, name, _c_int(value, f"options.{name}"))
    raw.token = _c_string(options.token, "options.token")
    return raw


def _c_simulcast_config(config: "SimulcastConfig") -> Any:
    """The ``agoraish_simulcast_config`` of a ``SimulcastConfig``: each
    enabled entry of `configs` with its box and frame rate (the fields of
    the others are not read, and left 0)."""
    if not isinstance(config, SimulcastConfig):
        raise TypeError(f"config must be a SimulcastConfig, not {type(config).__name__}")
    layers = list(config.configs)
    if len(layers) != _ffi.AGORAISH_STREAM_LAYER_COUNT_MAX:
        raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT,
                            f"{len(layers)} layer configs (not {_ffi.AGORAISH_STREAM_LAYER_COUNT_MAX})")
    raw = _ffi.SimulcastConfig()
    raw.struct_size = ctypes.sizeof(_ffi.SimulcastConfig)
    for index, layer in enumerate(layers):
        if not isinstance(layer, StreamLayerConfig):
            raise TypeError(f"configs[{index}] must be a StreamLayerConfig, not {type(layer).__name__}")
        if not layer.enable:
            continue
        entry = raw.configs[index]
        entry.width = _c_int(layer.width, f"configs[{index}].width")
        entry.height = _c_int(layer.height, f"configs[{index}].height")
        entry.framerate = _c_int(layer.framerate, f"configs[{index}].framerate")
        entry.enable = 1
    raw.publish_fallback_enable = 1 if config.publish_fallback_enable else 0
    return raw


# --------------------------------------------------------------------------
# Event handler and the ctypes callback plumbing
# --------------------------------------------------------------------------


class EventHandler:
    """Receives an engine's events (Agora's IRtcEngineEventHandler).

    Subclass it and override the callbacks you need; only overridden methods
    are installed in the C table, the others stay NULL. The engine keeps a
    reference to the handler until it is released.

    Thread: every callback runs on the engine's event thread, one at a time,
    in the order the events happened. A callback may call any method of the
    engine except ``release()`` of that same engine, which raises
    ``AgoraishError`` with code -5. An exception raised by a callback is
    reported through ``sys.unraisablehook`` and does not reach the library.
    """

    def on_api_call_executed(self, err: int, api: str, result: str) -> None:
        """An API call was carried out (onApiCallExecuted).

        Args:
            err: 0, or the (positive) error code the work ended with.
            api: the Agora method name, for example "setParameters".
            result: what the call applied, as text (for setParameters, the
                applied JSON object with sorted keys).
        """

    # -- channels (ABI 0.2) ------------------------------------------------------

    def on_join_channel_success(self, channel: str, uid: int, elapsed: int) -> None:
        """The local user joined `channel` as `uid` (onJoinChannelSuccess).

        Args:
            elapsed: milliseconds since the join call.
        """

    def on_rejoin_channel_success(self, channel: str, uid: int, elapsed: int) -> None:
        """The local user rejoined after an interruption (onRejoinChannelSuccess)."""

    def on_leave_channel(self, stats: RtcStats) -> None:
        """The local user left (onLeaveChannel), with the call's statistics."""

    def on_user_joined(self, uid: int, elapsed: int) -> None:
        """A remote user (communication) or broadcaster (live) joined, or was
        already there when the local user joined (onUserJoined).

        Args:
            elapsed: milliseconds since the local join call.
        """

    def on_user_offline(self, uid: int, reason: UserOfflineReason) -> None:
        """A remote user went offline (onUserOffline): QUIT, DROPPED or BECOME_AUDIENCE."""

    def on_client_role_changed(self, old_role: ClientRole, new_role: ClientRole) -> None:
        """The local role changed (onClientRoleChanged)."""

    def on_connection_state_changed(self, state: ConnectionState, reason: ConnectionChangedReason) -> None:
        """The connection state changed (onConnectionStateChanged).

        A value the header does not list arrives as a plain int.
        """

    def on_connection_lost(self) -> None:
        """No working link to the server for 10 s (onConnectionLost); rejoining goes on."""

    def on_token_privilege_will_expire(self, token: str) -> None:
        """The token's join privilege expires in 30 s (onTokenPrivilegeWillExpire).

        Call ``RtcEngine.renew_token``. `token` is the token in force.
        """

    def on_request_token(self) -> None:
        """The token expired (onRequestToken): renew it; the engine then rejoins."""

    def on_local_user_registered(self, uid: int, user_account: str) -> None:
        """The local user account is registered as `uid` (onLocalUserRegistered)."""

    def on_user_info_updated(self, uid: int, info: UserInfo) -> None:
        """A remote user's account became known (onUserInfoUpdated)."""

    def on_error(self, err: int, msg: str) -> None:
        """An error the host must act on (onError): the (positive) code and a message."""

    # -- audio (ABI 0.4) ---------------------------------------------------------

    def on_first_local_audio_frame_published(self, elapsed: int) -> None:
        """The first audio was sent after a join, an unmute or enabling local
        audio (onFirstLocalAudioFramePublished).

        Args:
            elapsed: milliseconds since the join call.
        """

    def on_first_remote_audio_frame(self, uid: int, elapsed: int) -> None:
        """The first audio packet of a remote user arrived (onFirstRemoteAudioFrame).

        Args:
            elapsed: milliseconds since the local join call.
        """

    def on_first_remote_audio_decoded(self, uid: int, elapsed: int) -> None:
        """The first audio of a remote user was decoded (onFirstRemoteAudioDecoded)."""

    def on_user_mute_audio(self, uid: int, muted: bool) -> None:
        """A remote user muted or unmuted its audio (onUserMuteAudio).

        Also fires at join for users already muted; disabling local audio
        counts as muting.
        """

    def on_local_audio_state_changed(self, state: LocalAudioStreamState, error: LocalAudioStreamError) -> None:
        """The local audio state changed (onLocalAudioStateChanged).

        A value the header does not list arrives as a plain int.
        """

    def on_remote_audio_state_changed(
        self, uid: int, state: RemoteAudioState, reason: RemoteAudioStateReason, elapsed: int
    ) -> None:
        """A remote user's audio state changed (onRemoteAudioStateChanged).

        Args:
            elapsed: milliseconds since the local join call.
        """

    def on_audio_volume_indication(self, speakers: List[AudioVolumeInfo], total_volume: int) -> None:
        """Volumes (onAudioVolumeIndication), every interval once
        ``enable_audio_volume_indication`` is on.

        Two kinds of report arrive: a local one (one speaker, uid 0;
        `total_volume` is its volume) and, in a call, a remote one (the up to 3
        loudest remote users; `total_volume` is the played mix). Volumes are
        0..255. `speakers` is a copy (C's ``speaker_number`` is its length).
        """

    def on_active_speaker(self, uid: int) -> None:
        """The loudest remote user changed (onActiveSpeaker); needs volume indication."""

    def on_rtc_stats(self, stats: RtcStats) -> None:
        """Call statistics, every 2 s in a call (onRtcStats)."""

    def on_local_audio_stats(self, stats: LocalAudioStats) -> None:
        """Sending statistics, every 2 s in a call (onLocalAudioStats)."""

    def on_remote_audio_stats(self, stats: RemoteAudioStats) -> None:
        """Receiving statistics of one remote user, every 2 s (onRemoteAudioStats)."""

    # -- video (ABI 0.5) ---------------------------------------------------------

    def on_first_local_video_frame_published(self, elapsed: int) -> None:
        """The first video frame was sent in this call (onFirstLocalVideoFramePublished).

        Args:
            elapsed: milliseconds since the join call.
        """

    def on_first_remote_video_decoded(self, uid: int, width: int, height: int, elapsed: int) -> None:
        """The first picture of a remote user was decoded (onFirstRemoteVideoDecoded).

        Args:
            width, height: the picture's size.
            elapsed: milliseconds since the local join call.
        """

    def on_video_size_changed(self, uid: int, width: int, height: int, rotation: int) -> None:
        """A remote user's picture size changed (onVideoSizeChanged); `rotation` is 0."""

    def on_user_mute_video(self, uid: int, muted: bool) -> None:
        """A remote user muted or unmuted its video stream (onUserMuteVideo,
        its ``mute_local_video_stream``).

        Also fires at join for users already muted. Disabling video or local
        video comes as ``on_user_enable_video`` / ``on_user_enable_local_video``
        (from peers of ABI 0.5, which send one combined state, as this callback).
        """

    # -- more video (ABI 0.6) ----------------------------------------------------

    def on_first_local_video_frame(self, width: int, height: int, elapsed: int) -> None:
        """The first local picture captured or pushed after video was enabled (onFirstLocalVideoFrame).

        Args:
            width, height: the picture's size (upright).
            elapsed: milliseconds since the join call (0 outside a call).
        """

    def on_first_remote_video_frame(self, uid: int, width: int, height: int, elapsed: int) -> None:
        """The first picture of a remote user was handed to its canvas (onFirstRemoteVideoFrame).

        Args:
            elapsed: milliseconds since the local join call.
        """

    def on_user_enable_video(self, uid: int, enabled: bool) -> None:
        """A remote user enabled or disabled video (onUserEnableVideo)."""

    def on_user_enable_local_video(self, uid: int, enabled: bool) -> None:
        """A remote user enabled or disabled its local video (onUserEnableLocalVideo)."""

    def on_local_video_state_changed(self, state: LocalVideoStreamState, error: LocalVideoStreamError) -> None:
        """The local video state changed (onLocalVideoStateChanged).

        FAILED comes with the reason the camera did not start (DEVICE_NOT_FOUND
        when there is none). A value the header does not list arrives as a plain int.
        """

    def on_remote_video_state_changed(
        self, uid: int, state: RemoteVideoState, reason: RemoteVideoStateReason, elapsed: int
    ) -> None:
        """A remote user's video state changed (onRemoteVideoStateChanged).

        STARTING on its first packet, DECODING on its first picture, FROZEN
        (NETWORK_CONGESTION) when no picture came for 500 ms, DECODING
        (NETWORK_RECOVERY) when pictures come again, STOPPED when it muted
        (REMOTE_MUTED), this side muted it (LOCAL_MUTED) or it left (REMOTE_OFFLINE).

        Args:
            elapsed: milliseconds since the local join call.
        """

    def on_local_video_stats(self, stats: LocalVideoStats) -> None:
        """Sending statistics of local video, every 2 s in a call (onLocalVideoStats)."""

    def on_remote_video_stats(self, stats: RemoteVideoStats) -> None:
        """Receiving statistics of one remote user's video, every 2 s (onRemoteVideoStats)."""

    def on_snapshot_taken(self, uid: int, path: str, width: int, height: int, error: int) -> None:
        """A snapshot asked with ``take_snapshot`` (onSnapshotTaken).

        Args:
            uid: the user (0: the local picture).
            path: the file.
            width, height: the picture's size (0 on failure).
            error: 0 when `path` was written; -1 when no picture came before
                the user left or the call ended, or the file could not be written.
        """

    def on_network_quality(self, uid: int, tx_quality: QualityType, rx_quality: QualityType) -> None:
        """Network quality, every 2 s in a call (onNetworkQuality).

        First uid 0, the local user: `tx_quality` from the server's
        retransmission requests and the round trip, `rx_quality` from the
        worst remote stream; then each remote user whose media arrives, with
        `tx_quality` UNKNOWN and `rx_quality` the quality its media arrives
        with here. A value the header does not list arrives as a plain int.
        """

    # -- fallback (ABI 0.7) -------------------------------------------------------

    def on_local_publish_fallback_to_audio_only(self, is_fallback_or_recover: bool) -> None:
        """The uplink could not carry video and only audio is sent (True), or
        video is sent again (False) (onLocalPublishFallbackToAudioOnly).

        Only with ``set_local_publish_fallback_option(StreamFallbackOptions.AUDIO_ONLY)``.
        """

    def on_remote_subscribe_fallback_to_audio_only(self, uid: int, is_fallback_or_recover: bool) -> None:
        """This downlink now receives only the audio of `uid` (True), or its
        video again (False) (onRemoteSubscribeFallbackToAudioOnly).

        Only with ``set_remote_subscribe_fallback_option(StreamFallbackOptions.AUDIO_ONLY)``.
        The user's video state also changes (``on_remote_video_state_changed``):
        STOPPED with reason ``RemoteVideoStateReason.AUDIO_FALLBACK`` (8), later
        DECODING with ``AUDIO_FALLBACK_RECOVERY`` (9).
        """

    # -- the last-mile test and probe (ABI 0.7) -------------------------------------

    def on_lastmile_quality(self, quality: QualityType) -> None:
        """The last mile's quality (onLastmileQuality): every 2 s while
        ``enable_lastmile_test()`` runs, and once during a probe
        (``start_lastmile_probe_test()``, after its uplink phase).

        From the probes' loss and the round trip, mapped as for
        ``on_network_quality``; UNKNOWN when the server's media port could not
        be reached. A value the header does not list arrives as a plain int.
        """

    def on_lastmile_probe_result(self, result: LastmileProbeResult) -> None:
        """The result of ``start_lastmile_probe_test()`` (onLastmileProbeResult),
        about 5 s after the start; `result` is a copy the handler may keep.
        """

    # -- data streams, metadata, encryption (ABI 0.8) -------------------------------

    def on_stream_message(self, uid: int, stream_id: int, data: bytes, sent_ts: int) -> None:
        """A message of `uid`'s data stream `stream_id` (onStreamMessage).

        `data` is a copy; `sent_ts` is the sender's wall clock when it sent
        the message (ms since 1970). A reliable stream delivers each message
        once (in order when ordered); see ``RtcEngine.create_data_stream``.
        """

    def on_stream_message_error(self, uid: int, stream_id: int, code: ErrorCode, missed: int, cached: int) -> None:
        """Messages of `uid`'s stream `stream_id` will not arrive (onStreamMessageError).

        `code` is ``ErrorCode.STREAM_MESSAGE_TIMEOUT`` (117, positive); `missed`
        messages were lost, `cached` later ones waited for them and come next.
        A reliable stream reports a loss not repaired within 5 s, an unreliable
        one each gap as it is seen.
        """

    def on_encryption_error(self, error_type: EncryptionErrorType) -> None:
        """End-to-end encryption failed (onEncryptionError), at most once a
        second per type. A packet that cannot be decrypted is dropped; a
        value the header does not list arrives as a plain int.
        """

    def on_audio_metadata_received(self, uid: int, metadata: bytes) -> None:
        """Audio metadata `uid` sent with ``send_audio_metadata`` (onAudioMetadataReceived); a copy."""

    def on_audio_mixing_state_changed(self, state: AudioMixingState, reason: AudioMixingReason) -> None:
        """The music of ``start_audio_mixing`` changed state (onAudioMixingStateChanged).

        PLAYING with OK once the file opened, FAILED with CAN_NOT_OPEN when it
        cannot be (or TOO_FREQUENT_CALL); PLAYING with ONE_LOOP_COMPLETED when
        one of several plays ended; STOPPED with ALL_LOOPS_COMPLETED at the
        natural end, STOPPED_BY_USER after ``stop_audio_mixing``; PAUSED with
        PAUSED_BY_USER and PLAYING with RESUMED_BY_USER. A value the header
        does not list arrives as a plain int.
        """

    def on_audio_effect_finished(self, sound_id: int) -> None:
        """The effect `sound_id` of ``play_effect`` played all its loops
        (onAudioEffectFinished); not called for an effect stopped or one whose
        file could not be opened."""


class EventHandlerEx:
    """Receives the events of one connection joined with
    ``RtcEngine.join_channel_ex`` (Agora's IRtcEngineEventHandlerEx).

    Each callback has the name of an ``EventHandler`` callback and receives
    the ``RtcConnection`` first (the one passed to ``join_channel_ex``, its
    `local_uid` as given, 0 included), then the arguments of the
    ``EventHandler`` callback of the same name, converted the same way; only
    ``on_join_channel_success`` and ``on_rejoin_channel_success`` differ:
    the connection replaces their channel name. The engine's own
    ``EventHandler`` does not see a connection's events.

    Subclass it and override the callbacks you need; only overridden methods
    are installed in the C table. The engine keeps a reference to the handler
    until it is released, also after ``leave_channel`` of the connection (its
    ``on_leave_channel`` and ``on_connection_state_changed(DISCONNECTED, ...)``
    arrive after the leave returns).

    Thread: every callback runs on the engine's event thread, one at a time,
    in order with the engine's own events. A callback may call any method of
    the engine or of a connection, ``Connection.leave_channel`` included,
    except ``RtcEngine.release()`` of that same engine (-5). An exception
    raised by a callback is reported through ``sys.unraisablehook`` and does
    not reach the library.
    """

    def on_join_channel_success(self, connection: RtcConnection, uid: int, elapsed: int) -> None:
        """The connection joined its channel as `uid` (onJoinChannelSuccess).

        Args:
            uid: the uid the connection has (the server's pick when
                ``connection.local_uid`` is 0).
            elapsed: milliseconds since ``join_channel_ex``.
        """

    def on_rejoin_channel_success(self, connection: RtcConnection, uid: int, elapsed: int) -> None:
        """The connection rejoined after an interruption (onRejoinChannelSuccess)."""

    def on_leave_channel(self, connection: RtcConnection, stats: RtcStats) -> None:
        """The connection left its channel (onLeaveChannel), with its call's statistics."""

    def on_user_joined(self, connection: RtcConnection, uid: int, elapsed: int) -> None:
        """A remote user of the connection's channel joined, or was there when
        the connection joined (onUserJoined)."""

    def on_user_offline(self, connection: RtcConnection, uid: int, reason: UserOfflineReason) -> None:
        """A remote user of the connection's channel went offline (onUserOffline)."""

    def on_client_role_changed(self, connection: RtcConnection, old_role: ClientRole, new_role: ClientRole) -> None:
        """The connection's role changed (onClientRoleChanged)."""

    def on_connection_state_changed(
        self, connection: RtcConnection, state: ConnectionState, reason: ConnectionChangedReason
    ) -> None:
        """The connection's state changed (onConnectionStateChanged).

        A value the header does not list arrives as a plain int.
        """

    def on_connection_lost(self, connection: RtcConnection) -> None:
        """The connection had no working link to the server for 10 s (onConnectionLost)."""

    def on_token_privilege_will_expire(self, connection: RtcConnection, token: str) -> None:
        """The connection's token expires in 30 s (onTokenPrivilegeWillExpire):
        renew it with ``Connection.update_channel_media_options(ChannelMediaOptions(token=...))``."""

    def on_request_token(self, connection: RtcConnection) -> None:
        """The connection's token expired (onRequestToken)."""

    def on_error(self, connection: RtcConnection, err: int, msg: str) -> None:
        """An error of the connection the host must act on (onError): the (positive) code and a message."""

    def on_user_mute_audio(self, connection: RtcConnection, uid: int, muted: bool) -> None:
        """A remote user muted or unmuted its audio (onUserMuteAudio)."""

    def on_user_mute_video(self, connection: RtcConnection, uid: int, muted: bool) -> None:
        """A remote user muted or unmuted its video (onUserMuteVideo)."""

    def on_first_local_audio_frame_published(self, connection: RtcConnection, elapsed: int) -> None:
        """The connection sent its first audio (onFirstLocalAudioFramePublished).

        Args:
            elapsed: milliseconds since ``join_channel_ex``.
        """

    def on_first_remote_audio_decoded(self, connection: RtcConnection, uid: int, elapsed: int) -> None:
        """The first audio of a remote user was decoded (onFirstRemoteAudioDecoded)."""

    def on_remote_audio_state_changed(
        self, connection: RtcConnection, uid: int, state: RemoteAudioState, reason: RemoteAudioStateReason,
        elapsed: int,
    ) -> None:
        """A remote user's audio state changed (onRemoteAudioStateChanged)."""

    def on_audio_volume_indication(
        self, connection: RtcConnection, speakers: List[AudioVolumeInfo], total_volume: int
    ) -> None:
        """Volumes of the connection's channel (onAudioVolumeIndication); see
        ``EventHandler.on_audio_volume_indication``."""

    def on_rtc_stats(self, connection: RtcConnection, stats: RtcStats) -> None:
        """The connection's call statistics, every 2 s (onRtcStats)."""

    def on_local_audio_stats(self, connection: RtcConnection, stats: LocalAudioStats) -> None:
        """The connection's sending statistics, every 2 s (onLocalAudioStats)."""

    def on_remote_audio_stats(self, connection: RtcConnection, stats: RemoteAudioStats) -> None:
        """Receiving statistics of one remote user, every 2 s (onRemoteAudioStats)."""

    def on_network_quality(
        self, connection: RtcConnection, uid: int, tx_quality: QualityType, rx_quality: QualityType
    ) -> None:
        """Network quality of the connection, every 2 s (onNetworkQuality); see
        ``EventHandler.on_network_quality``."""

    def on_first_remote_video_decoded(
        self, connection: RtcConnection, uid: int, width: int, height: int, elapsed: int
    ) -> None:
        """The first picture of a remote user was decoded (onFirstRemoteVideoDecoded)."""

    def on_remote_video_state_changed(
        self, connection: RtcConnection, uid: int, state: RemoteVideoState, reason: RemoteVideoStateReason,
        elapsed: int,
    ) -> None:
        """A remote user's video state changed (onRemoteVideoStateChanged)."""

    def on_remote_video_stats(self, connection: RtcConnection, stats: RemoteVideoStats) -> None:
        """Receiving statistics of one remote user's video, every 2 s (onRemoteVideoStats)."""

    def on_stream_message(self, connection: RtcConnection, uid: int, stream_id: int, data: bytes,
                          sent_ts: int) -> None:
        """A message of `uid`'s data stream in the connection's channel (onStreamMessage); `data` is a copy."""

    def on_stream_message_error(
        self, connection: RtcConnection, uid: int, stream_id: int, code: ErrorCode, missed: int, cached: int
    ) -> None:
        """Messages of `uid`'s stream will not arrive (onStreamMessageError); see
        ``EventHandler.on_stream_message_error``."""

    def on_snapshot_taken(
        self, connection: RtcConnection, uid: int, path: str, width: int, height: int, error: int
    ) -> None:
        """A snapshot asked with ``Connection.take_snapshot`` (onSnapshotTaken); see
        ``EventHandler.on_snapshot_taken``."""

    def on_encryption_error(self, connection: RtcConnection, error_type: EncryptionErrorType) -> None:
        """The connection's end-to-end encryption failed (onEncryptionError)."""

    def on_audio_metadata_received(self, connection: RtcConnection, uid: int, metadata: bytes) -> None:
        """Audio metadata `uid` sent in the connection's channel (onAudioMetadataReceived); a copy."""

    # -- the rest of EventHandler's media callbacks ------------------------------

    def on_user_info_updated(self, connection: RtcConnection, uid: int, info: UserInfo) -> None:
        """A remote user's account in the connection's channel became known (onUserInfoUpdated)."""

    def on_first_remote_audio_frame(self, connection: RtcConnection, uid: int, elapsed: int) -> None:
        """The first audio packet of a remote user arrived (onFirstRemoteAudioFrame).

        Args:
            elapsed: milliseconds since ``join_channel_ex``.
        """

    def on_local_audio_state_changed(
        self, connection: RtcConnection, state: LocalAudioStreamState, error: LocalAudioStreamError
    ) -> None:
        """The connection's local audio state changed (onLocalAudioStateChanged).

        A value the header does not list arrives as a plain int.
        """

    def on_active_speaker(self, connection: RtcConnection, uid: int) -> None:
        """The loudest remote user of the connection's channel changed
        (onActiveSpeaker); needs volume indication."""

    def on_first_local_video_frame_published(self, connection: RtcConnection, elapsed: int) -> None:
        """The connection sent its first video frame (onFirstLocalVideoFramePublished).

        Args:
            elapsed: milliseconds since ``join_channel_ex``.
        """

    def on_video_size_changed(
        self, connection: RtcConnection, uid: int, width: int, height: int, rotation: int
    ) -> None:
        """A remote user's picture size changed (onVideoSizeChanged); `rotation` is 0."""

    def on_first_local_video_frame(self, connection: RtcConnection, width: int, height: int, elapsed: int) -> None:
        """The first local picture of what the connection publishes (onFirstLocalVideoFrame); see
        ``EventHandler.on_first_local_video_frame``."""

    def on_first_remote_video_frame(
        self, connection: RtcConnection, uid: int, width: int, height: int, elapsed: int
    ) -> None:
        """The first picture of a remote user was handed to its canvas (onFirstRemoteVideoFrame).

        Args:
            elapsed: milliseconds since ``join_channel_ex``.
        """

    def on_user_enable_video(self, connection: RtcConnection, uid: int, enabled: bool) -> None:
        """A remote user enabled or disabled video (onUserEnableVideo)."""

    def on_user_enable_local_video(self, connection: RtcConnection, uid: int, enabled: bool) -> None:
        """A remote user enabled or disabled its local video (onUserEnableLocalVideo)."""

    def on_local_video_state_changed(
        self, connection: RtcConnection, state: LocalVideoStreamState, error: LocalVideoStreamError
    ) -> None:
        """The state of the video the connection publishes changed (onLocalVideoStateChanged); see
        ``EventHandler.on_local_video_state_changed``."""

    def on_local_video_stats(self, connection: RtcConnection, stats: LocalVideoStats) -> None:
        """The connection's video sending statistics, every 2 s (onLocalVideoStats)."""

    def on_local_publish_fallback_to_audio_only(self, connection: RtcConnection, is_fallback_or_recover: bool) -> None:
        """The connection's uplink sends only audio (True), or video again (False)
        (onLocalPublishFallbackToAudioOnly); see ``EventHandler.on_local_publish_fallback_to_audio_only``."""

    def on_remote_subscribe_fallback_to_audio_only(
        self, connection: RtcConnection, uid: int, is_fallback_or_recover: bool
    ) -> None:
        """The connection now receives only the audio of `uid` (True), or its video
        again (False) (onRemoteSubscribeFallbackToAudioOnly); see
        ``EventHandler.on_remote_subscribe_fallback_to_audio_only``."""


def _text(value: Optional[bytes]) -> str:
    return value.decode("utf-8", "replace") if value is not None else ""


class _CallbackSpec:
    """One entry of ``agoraish_event_handler``: C field, CFUNCTYPE, argument conversion."""

    __slots__ = ("name", "ctype", "convert")

    def __init__(self, name: str, ctype: Any, convert: Callable[..., tuple]) -> None:
        self.name = name
        self.ctype = ctype
        self.convert = convert


_S = TypeVar("_S")


def _copy_versioned(pointer: Any, cls: Type[_S], ctype: Any) -> _S:
    """Copies a ``struct_size``-first C struct into the dataclass `cls`.

    Fields past the struct's ``struct_size`` (a library older than the
    binding) keep the dataclass default; NULL gives the defaults.
    """
    if not pointer:
        return cls()
    raw = pointer.contents
    size = raw.struct_size
    values = {}
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        descriptor = getattr(ctype, field.name)
        if descriptor.offset + descriptor.size <= size:
            value = getattr(raw, field.name)
            values[field.name] = float(value) if isinstance(value, float) else int(value)
    return cls(**values)


def _rtc_stats(pointer: Any) -> RtcStats:
    """Copies an ``agoraish_rtc_stats *``; fields past its ``struct_size`` read as 0."""
    return _copy_versioned(pointer, RtcStats, _ffi.RtcStats)


def _local_audio_stats(pointer: Any) -> LocalAudioStats:
    """Copies an ``agoraish_local_audio_stats *``; fields past its ``struct_size`` keep
    their defaults (0; -1 for ``aec_estimated_delay`` and ``echo_return_loss_enhancement``)."""
    return _copy_versioned(pointer, LocalAudioStats, _ffi.LocalAudioStats)


def _remote_audio_stats(pointer: Any) -> RemoteAudioStats:
    """Copies an ``agoraish_remote_audio_stats *``; fields past its ``struct_size`` read as 0."""
    return _copy_versioned(pointer, RemoteAudioStats, _ffi.RemoteAudioStats)


def _local_video_stats(pointer: Any) -> LocalVideoStats:
    """Copies an ``agoraish_local_video_stats *``; fields past its ``struct_size`` read as 0."""
    return _copy_versioned(pointer, LocalVideoStats, _ffi.LocalVideoStats)


def _remote_video_stats(pointer: Any) -> RemoteVideoStats:
    """Copies an ``agoraish_remote_video_stats *``; fields past its ``struct_size`` read as 0."""
    return _copy_versioned(pointer, RemoteVideoStats, _ffi.RemoteVideoStats)


def _one_way_result(raw: Any) -> LastmileProbeOneWayResult:
    """Copies an ``agoraish_lastmile_probe_one_way_result`` (by value)."""
    return LastmileProbeOneWayResult(int(raw.packet_loss_rate), int(raw.jitter), int(raw.available_bandwidth))


def _lastmile_probe_result(pointer: Any) -> LastmileProbeResult:
    """Copies an ``agoraish_lastmile_probe_result *``; fields past its ``struct_size`` keep the defaults."""
    if not pointer:
        return LastmileProbeResult()
    raw = pointer.contents
    size = raw.struct_size
    values: Dict[str, Any] = {}

    def present(name: str) -> bool:
        descriptor = getattr(_ffi.LastmileProbeResult, name)
        return bool(descriptor.offset + descriptor.size <= size)

    if present("state"):
        values["state"] = _enum_or_int(LastmileProbeResultState, raw.state)
    for name in ("uplink_report", "downlink_report"):
        if present(name):
            values[name] = _one_way_result(getattr(raw, name))
    if present("rtt"):
        values["rtt"] = int(raw.rtt)
    return LastmileProbeResult(**values)


def _bytes_at(pointer: Any, length: int) -> bytes:
    """A copy of `length` bytes at a C pointer (b"" for NULL or nothing)."""
    if not pointer or length <= 0:
        return b""
    return ctypes.string_at(pointer, length)


def _speakers(pointer: Any, count: int) -> List[AudioVolumeInfo]:
    """Copies the ``agoraish_audio_volume_info`` array of a volume indication."""
    if not pointer or count <= 0:
        return []
    return [AudioVolumeInfo(int(pointer[i].uid), int(pointer[i].volume), int(pointer[i].vad)) for i in range(count)]


def _user_info(pointer: Any, uid: int) -> UserInfo:
    """Copies an ``agoraish_user_info *`` (NULL: the uid with an empty account)."""
    if not pointer:
        return UserInfo(int(uid), "")
    raw = pointer.contents
    return UserInfo(int(raw.uid), _text(raw.user_account))


#: How a struct passed to a callback is copied into its Python value.
_STRUCT_COPIES: Dict[Any, Callable[[Any], Any]] = {
    _ffi.RtcStats: _rtc_stats,
    _ffi.LocalAudioStats: _local_audio_stats,
    _ffi.RemoteAudioStats: _remote_audio_stats,
    _ffi.LocalVideoStats: _local_video_stats,
    _ffi.RemoteVideoStats: _remote_video_stats,
    _ffi.LastmileProbeResult: _lastmile_probe_result,
}


def _default_conversion(ctype: Any, skip: int = 2) -> Callable[..., tuple]:
    """The conversion the C types give: text for `const char *`, int for
    integers, bytes for a `const uint8_t *` followed by its `size_t` length,
    and a copy for a struct of `_STRUCT_COPIES`; of the arguments after the
    first `skip` (engine and user_data; and the connection, for the ex table)."""
    steps: List[Tuple[Callable[..., Any], int]] = []  # (conversion, arguments it takes)
    types = list(ctype._argtypes_[skip:])
    i = 0
    while i < len(types):
        t = types[i]
        if t is ctypes.c_char_p:
            steps.append((_text, 1))
        elif t is ctypes.POINTER(ctypes.c_uint8) and i + 1 < len(types) and types[i + 1] is ctypes.c_size_t:
            steps.append((lambda data, length: _bytes_at(data, int(length)), 2))
            i += 1
        elif hasattr(t, "_type_") and t._type_ in _STRUCT_COPIES:
            steps.append((_STRUCT_COPIES[t._type_], 1))
        elif issubclass(t, ctypes._SimpleCData) and t._type_ in "bBhHiIlLqQ":
            steps.append((int, 1))
        else:
            raise TypeError(f"no default conversion for {t!r}; add the callback to _CONVERSIONS")
        i += 1

    def convert(*args: Any) -> tuple:
        out, k = [], 0
        for step, taken in steps:
            out.append(step(*args[k:k + taken]))
            k += taken
        return tuple(out)

    return convert


#: The conversions of event arguments that the C types alone do not give
#: (enums, flags, arrays, and structs read with another argument): the
#: callback's field name -> a function of the C arguments (after engine and
#: user_data) returning the handler method's arguments.
_CONVERSIONS: Dict[str, Callable[..., tuple]] = {
    "on_user_offline": lambda uid, reason: (int(uid), _enum_or_int(UserOfflineReason, reason)),
    "on_client_role_changed": lambda old, new: (_enum_or_int(ClientRole, old), _enum_or_int(ClientRole, new)),
    "on_connection_state_changed": lambda state, reason: (_enum_or_int(ConnectionState, state), _enum_or_int(ConnectionChangedReason, reason)),
    "on_user_info_updated": lambda uid, info: (int(uid), _user_info(info, uid)),
    "on_user_mute_audio": lambda uid, muted: (int(uid), bool(muted)),
    "on_local_audio_state_changed": lambda state, error: (_enum_or_int(LocalAudioStreamState, state), _enum_or_int(LocalAudioStreamError, error)),
    "on_remote_audio_state_changed": lambda uid, state, reason, elapsed: (
        int(uid),
        _enum_or_int(RemoteAudioState, state),
        _enum_or_int(RemoteAudioStateReason, reason),
        int(elapsed),
    ),
    "on_audio_volume_indication": lambda speakers, count, total: (_speakers(speakers, int(count)), int(total)),
    "on_user_mute_video": lambda uid, muted: (int(uid), bool(muted)),
    "on_user_enable_video": lambda uid, enabled: (int(uid), bool(enabled)),
    "on_user_enable_local_video": lambda uid, enabled: (int(uid), bool(enabled)),
    "on_local_video_state_changed": lambda state, error: (_enum_or_int(LocalVideoStreamState, state), _enum_or_int(LocalVideoStreamError, error)),
    "on_remote_video_state_changed": lambda uid, state, reason, elapsed: (
        int(uid),
        _enum_or_int(RemoteVideoState, state),
        _enum_or_int(RemoteVideoStateReason, reason),
        int(elapsed),
    ),
    "on_network_quality": lambda uid, tx_quality, rx_quality: (
        int(uid),
        _enum_or_int(QualityType, tx_quality),
        _enum_or_int(QualityType, rx_quality),
    ),
    "on_local_publish_fallback_to_audio_only": lambda is_fallback_or_recover: (bool(is_fallback_or_recover),),
    "on_remote_subscribe_fallback_to_audio_only": lambda uid, is_fallback_or_recover: (int(uid), bool(is_fallback_or_recover)),
    "on_lastmile_quality": lambda quality: (_enum_or_int(QualityType, quality),),
    "on_stream_message_error": lambda uid, stream_id, code, missed, cached: (
        int(uid),
        int(stream_id),
        _enum_or_int(ErrorCode, code),
        int(missed),
        int(cached),
    ),
    "on_encryption_error": lambda error_type: (_enum_or_int(EncryptionErrorType, error_type),),
    "on_audio_mixing_state_changed": lambda state, reason: (
        _enum_or_int(AudioMixingState, state),
        _enum_or_int(AudioMixingReason, reason),
    ),
}


#: The callbacks of agoraish_event_handler, in header order (generated from
#: the header). The Python method has the C field's name; `convert` turns the
#: C arguments into the method's arguments, copying what the library owns.
_CALLBACKS: Tuple[_CallbackSpec, ...] = tuple(
    _CallbackSpec(name, ctype, _CONVERSIONS.get(name) or _default_conversion(ctype))
    for name, ctype, _ in _ffi.CALLBACKS["agoraish_event_handler"]
)


def _overrides(handler: object, name: str, base: type = EventHandler) -> bool:
    """Whether `handler` implements callback `name` itself (not the no-op of `base`)."""
    if name in getattr(handler, "__dict__", {}):
        return callable(handler.__dict__[name])
    method = getattr(type(handler), name, None)
    if method is None:
        return callable(getattr(handler, name, None))
    return callable(method) and method is not getattr(base, name, None)


class _Unraisable(types.SimpleNamespace):
    """The argument of ``sys.unraisablehook`` for a custom hook."""


def _report_callback_exception(error: BaseException, name: str, handler: object) -> None:
    message = f"Exception ignored in agoraish callback {name}"
    hook = getattr(sys, "unraisablehook", None)
    try:
        if hook is not None and hook is not getattr(sys, "__unraisablehook__", None):
            hook(
                _Unraisable(
                    exc_type=type(error),
                    exc_value=error,
                    exc_traceback=error.__traceback__,
                    err_msg=message,
                    object=handler,
                )
            )
            return
        stderr = sys.stderr
        if stderr is not None:
            stderr.write(f"{message} of {handler!r}:\n")
            traceback.print_exception(type(error), error, error.__traceback__, file=stderr)
            stderr.flush()
    except BaseException:  # nothing may propagate into C
        pass


class _HandlerCell:
    """The handler the thunks call; emptied on release so late callbacks do nothing."""

    __slots__ = ("handler",)

    def __init__(self, handler: object) -> None:
        self.handler: Optional[object] = handler


#: Per thread: the engine whose event callback is running (``engine``), and
#: how deep audio frame observer callbacks are nested (``audio_depth``).
_THREAD_STATE = threading.local()


def _on_event_thread_of(handle: int) -> bool:
    """Whether this thread is running an event callback of the engine `handle`."""
    return bool(handle) and getattr(_THREAD_STATE, "engine", None) == handle


def _in_observer_callback() -> bool:
    """Whether this thread is inside an audio frame observer callback (of any engine)."""
    return getattr(_THREAD_STATE, "audio_depth", 0) > 0


def _make_thunk(cell: _HandlerCell, spec: _CallbackSpec) -> Any:
    def thunk(_engine: Optional[int], _user_data: Optional[int], *args: Any) -> None:
        handler = cell.handler
        if handler is None:
            return
        previous = getattr(_THREAD_STATE, "engine", None)
        _THREAD_STATE.engine = _engine
        try:
            getattr(handler, spec.name)(*spec.convert(*args))
        except BaseException as error:
            _report_callback_exception(error, spec.name, handler)
        finally:
            _THREAD_STATE.engine = previous

    return spec.ctype(thunk)


#: The event names a handler may define (the C callbacks' field names).
_CALLBACK_NAMES = frozenset(name for name, _, _ in _ffi.CALLBACKS["agoraish_event_handler"])

#: Handler classes already warned about: each class is warned about once.
_WARNED_CLASSES: "weakref.WeakSet[type]" = weakref.WeakSet()


def _snake(name: str) -> str:
    """onJoinChannelSuccess -> on_join_channel_success."""
    out = []
    for ch in name:
        if ch.isupper():
            out.append("_" + ch.lower())
        else:
            out.append(ch)
    return "".join(out)


def _warn_unknown_callbacks(handler: object, names: "frozenset[str]" = _CALLBACK_NAMES,
                            warned: "Optional[weakref.WeakSet[type]]" = None) -> None:
    """Warns once per handler class about methods that look like event
    callbacks but match none of `names` (Agora's camelCase names,
    misspellings): the engine would never call them."""
    cls = type(handler)
    warned = _WARNED_CLASSES if warned is None else warned
    if cls in warned:
        return
    warned.add(cls)
    for name in dir(cls):
        if name in names or not callable(getattr(cls, name, None)):
            continue
        if name.startswith("on_") or (name.startswith("on") and name[2:3].isupper()):
            snake = _snake(name) if not name.startswith("on_") else name
            hint = f"; the event is {snake!r}" if snake in names else ""
            warnings.warn(f"{cls.__name__}.{name} looks like an event callback but is none, so it is never "
                          f"called{hint}", RuntimeWarning, stacklevel=4)


class _Keepalive:
    """What the C engine points at: the CFUNCTYPE thunks and the table.

    It must stay alive until the library has returned from the last callback.
    It holds no reference to the ``RtcEngine``, so an unreachable engine can
    still be collected (and released) while the keepalive lives on.
    """

    __slots__ = ("cell", "thunks", "table")

    def __init__(self, handler: Optional[object]) -> None:
        self.cell = _HandlerCell(handler)
        self.thunks: List[Any] = []
        self.table = _ffi.EventHandlerTable()
        self.table.struct_size = ctypes.sizeof(_ffi.EventHandlerTable)
        self.table.user_data = None
        if handler is None:
            return
        _warn_unknown_callbacks(handler)
        for spec in _CALLBACKS:
            if _overrides(handler, spec.name):
                thunk = _make_thunk(self.cell, spec)
                self.thunks.append(thunk)
                setattr(self.table, spec.name, thunk)

    def drop_handler(self) -> None:
        self.cell.handler = None


#: Keepalives of engines released with sync=False (and of engines collected
#: on their own event thread), and audio frame observers the library may still
#: call: the library may still be returning from a callback through their
#: thunks, so they are kept for the life of the process.
_ASYNC_RELEASED: Set[Any] = set()
_ASYNC_LOCK = threading.Lock()

#: Engines not yet released, for the exit hook.
_LIVE: "weakref.WeakSet[RtcEngine]" = weakref.WeakSet()


def _keep_forever(keepalive: Any) -> None:
    keepalive.drop_handler()
    with _ASYNC_LOCK:
        _ASYNC_RELEASED.add(keepalive)


def _release_in_background(handle: int, keepalive: Optional[_Keepalive]) -> None:
    """Releases `handle` from a helper thread (used when collected on its own event thread)."""

    def run() -> None:
        _ffi.agoraish_engine_release(handle, 1)

    if keepalive is not None:
        _keep_forever(keepalive)
    threading.Thread(target=run, name="agoraish-release", daemon=True).start()


# --------------------------------------------------------------------------
# Connections: the event handler of a join_channel_ex connection (ABI 0.11)
# --------------------------------------------------------------------------


def _rtc_connection(pointer: Any) -> RtcConnection:
    """Copies the ``const agoraish_rtc_connection *`` of an ex callback (NULL: ``("", 0)``)."""
    if not pointer:
        return RtcConnection("", 0)
    return _connection_key(pointer.contents)


#: The callbacks of agoraish_event_handler_ex, in header order. Each has the
#: name and, after the connection, the C arguments of the agoraish_event_handler
#: callback of the same name: the same conversion applies to them.
_EX_CALLBACKS: Tuple[_CallbackSpec, ...] = tuple(
    _CallbackSpec(name, ctype, _CONVERSIONS.get(name) or _default_conversion(ctype, skip=3))
    for name, ctype, _ in _ffi.CALLBACKS["agoraish_event_handler_ex"]
)

#: The event names an ``EventHandlerEx`` may define.
_EX_CALLBACK_NAMES = frozenset(spec.name for spec in _EX_CALLBACKS)

#: EventHandlerEx classes already warned about.
_WARNED_EX_CLASSES: "weakref.WeakSet[type]" = weakref.WeakSet()


def _in_event_callback() -> bool:
    """Whether this thread is running an event callback of any engine (the
    library then does not wait for the threads of an engine it releases)."""
    return getattr(_THREAD_STATE, "engine", None) is not None


def _make_ex_thunk(cell: _HandlerCell, spec: _CallbackSpec) -> Any:
    def thunk(_engine: Optional[int], _user_data: Optional[int], connection: Any, *args: Any) -> None:
        handler = cell.handler
        if handler is None:
            return
        previous = getattr(_THREAD_STATE, "engine", None)
        _THREAD_STATE.engine = _engine
        try:
            getattr(handler, spec.name)(_rtc_connection(connection), *spec.convert(*args))
        except BaseException as error:
            _report_callback_exception(error, spec.name, handler)
        finally:
            _THREAD_STATE.engine = previous

    return spec.ctype(thunk)


class _ExKeepalive:
    """What the library points at for one ``join_channel_ex``: the thunks and
    the ``agoraish_event_handler_ex`` table (the library copies the table, not
    the functions it points at).

    Kept by the engine until it is released, whether the connection was left
    or not: the connection's last events (its leave, DISCONNECTED) arrive after
    ``leave_channel_ex`` returns, and nothing tells Python when the last one has.
    """

    __slots__ = ("cell", "thunks", "table")

    def __init__(self, handler: object) -> None:
        self.cell = _HandlerCell(handler)
        self.thunks: List[Any] = []
        self.table = _ffi.EventHandlerEx()
        self.table.struct_size = ctypes.sizeof(_ffi.EventHandlerEx)
        _warn_unknown_callbacks(handler, _EX_CALLBACK_NAMES, _WARNED_EX_CLASSES)
        for spec in _EX_CALLBACKS:
            if _overrides(handler, spec.name, EventHandlerEx):
                thunk = _make_ex_thunk(self.cell, spec)
                self.thunks.append(thunk)
                setattr(self.table, spec.name, thunk)

    def drop_handler(self) -> None:
        self.cell.handler = None


# --------------------------------------------------------------------------
# Raw audio: frames and observers
# --------------------------------------------------------------------------


class AudioFrame:
    """A PCM frame handed to an ``AudioFrameObserver`` (Agora's AudioFrame; ``agoraish_audio_frame``).

    Attributes:
        type: 0, PCM16 (Agora's FRAME_TYPE_PCM16).
        samples_per_channel: samples per channel in ``buffer``.
        bytes_per_sample: 2.
        channels: 1, or 2 interleaved.
        samples_per_sec: the sample rate.
        render_time_ms: when the frame was made, on the engine's monotonic clock (ms).
        avsync_type: reserved, 0.

    ``buffer`` is a writable ``memoryview`` of int16 (format ``'h'``,
    ``samples_per_channel * channels`` items, interleaved) over the library's
    own buffer: no copy is made, and in the write modes of the observer's
    position what is written into it is what the engine sends or plays.
    ``bytes()`` copies the samples; ``numpy()`` is an int16 array over the
    same memory (numpy must be installed). The frames of a media player's
    audio observer (``MediaPlayer.register_audio_frame_observer``) are
    read-only: their ``buffer`` and ``numpy()`` cannot be written.

    Lifetime: the frame, its ``buffer`` and any view made from them are valid
    only during the callback that received them. Afterwards ``buffer``,
    ``bytes()`` and ``numpy()`` raise ``ValueError``; copy what you keep.
    """

    __slots__ = (
        "type",
        "samples_per_channel",
        "bytes_per_sample",
        "channels",
        "samples_per_sec",
        "render_time_ms",
        "avsync_type",
        "_base",
        "_view",
        "_valid",
    )

    def __init__(self, raw: Any, writable: bool = True) -> None:
        self.type = int(raw.type)
        self.samples_per_channel = int(raw.samples_per_channel)
        self.bytes_per_sample = int(raw.bytes_per_sample)
        self.channels = int(raw.channels)
        self.samples_per_sec = int(raw.samples_per_sec)
        self.render_time_ms = int(raw.render_time_ms)
        self.avsync_type = int(raw.avsync_type)
        count = max(0, self.samples_per_channel) * max(0, self.channels)
        address = raw.buffer
        if address and count:
            base = memoryview((ctypes.c_int16 * count).from_address(address))
        else:
            base = memoryview(bytearray())
        self._base = base
        view = base.cast("B").cast("h")
        self._view = view if writable else view.toreadonly()
        self._valid = True

    def _check(self) -> None:
        if not self._valid:
            raise ValueError("an AudioFrame is valid only during the observer callback that received it")

    @property
    def buffer(self) -> memoryview:
        """The samples: a writable int16 ``memoryview`` (format ``'h'``) over the library's buffer."""
        self._check()
        return self._view

    def bytes(self) -> bytes:
        """A copy of the samples (interleaved little-endian int16)."""
        self._check()
        return self._view.tobytes()

    def numpy(self) -> Any:
        """The samples as a one-dimensional numpy int16 array over the
        library's buffer (interleaved; ``reshape(-1, channels)`` for one column
        per channel); writable exactly when ``buffer`` is.

        Raises:
            ModuleNotFoundError: numpy is not installed.
        """
        self._check()
        import numpy

        return numpy.frombuffer(self._view, dtype=numpy.int16)

    def _invalidate(self) -> None:
        """Ends the frame's life: the library's buffer is about to be reused."""
        self._valid = False
        for view in (self._view, self._base):
            try:
                view.release()
            except BufferError:  # a view made from it is still referenced
                pass

    def __len__(self) -> int:
        return max(0, self.samples_per_channel) * max(0, self.channels)

    def __repr__(self) -> str:
        return (
            f"<agoraish.AudioFrame {self.samples_per_channel} samples x {self.channels} ch "
            f"at {self.samples_per_sec} Hz, t={self.render_time_ms} ms>"
        )


class AudioFrameObserver:
    """Receives raw audio (Agora's IAudioFrameObserver).

    Subclass it and override the positions you need; register it with
    ``RtcEngine.register_audio_frame_observer``. Only overridden methods are
    installed in the C observer, the others stay NULL. Each method receives an
    ``AudioFrame`` and returns True to keep the frame or False to discard it
    (in the write modes a discarded frame becomes silence); None counts as True.
    The format of each position is set with ``set_*_audio_frame_parameters``.

    Thread: callbacks run on the audio thread of their position, not on the
    event thread: ``on_record_audio_frame`` on the thread that pushes
    (``push_external_audio_frame``) or on the engine's audio device thread;
    the other three on the thread that pulls (``pull_playback_audio_frame``)
    or on the audio device thread. Callbacks of one position never overlap.
    Inside a callback, pushing or pulling audio raises ``AgoraishError`` (-5).
    A callback runs in real time: keep it short.

    An exception raised by a callback is reported through
    ``sys.unraisablehook`` and does not reach the library; the frame is then
    kept as it is.
    """

    def on_record_audio_frame(self, frame: AudioFrame) -> bool:
        """Local audio before encoding (``AudioFramePosition.RECORD``)."""
        return True

    def on_playback_audio_frame(self, frame: AudioFrame) -> bool:
        """The mix of remote audio before playout (``AudioFramePosition.PLAYBACK``)."""
        return True

    def on_mixed_audio_frame(self, frame: AudioFrame) -> bool:
        """Local and remote audio mixed (``AudioFramePosition.MIXED``); read-only."""
        return True

    def on_playback_audio_frame_before_mixing(self, uid: int, frame: AudioFrame) -> bool:
        """One remote user's audio before mixing (``AudioFramePosition.BEFORE_MIXING``); read-only."""
        return True


#: The callbacks of agoraish_audio_frame_observer, in header order: C field
#: (and Python method) name, CFUNCTYPE, position bit, whether a uid precedes the frame.
_OBSERVER_CALLBACKS: Tuple[Tuple[str, Any, int, bool], ...] = (
    ("on_record_audio_frame", _ffi.RecordAudioFrameCallback, _ffi.AGORAISH_AUDIO_FRAME_POSITION_RECORD, False),
    ("on_playback_audio_frame", _ffi.PlaybackAudioFrameCallback, _ffi.AGORAISH_AUDIO_FRAME_POSITION_PLAYBACK, False),
    ("on_mixed_audio_frame", _ffi.MixedAudioFrameCallback, _ffi.AGORAISH_AUDIO_FRAME_POSITION_MIXED, False),
    (
        "on_playback_audio_frame_before_mixing",
        _ffi.PlaybackAudioFrameBeforeMixingCallback,
        _ffi.AGORAISH_AUDIO_FRAME_POSITION_BEFORE_MIXING,
        True,
    ),
)


def _observed_positions(observer: object) -> int:
    """The position bits of the methods `observer` overrides."""
    bits = 0
    for name, _, bit, _ in _OBSERVER_CALLBACKS:
        if _overrides(observer, name, AudioFrameObserver):
            bits |= bit
    return bits


def _make_observer_thunk(cell: _HandlerCell, name: str, ctype: Any, with_uid: bool) -> Any:
    def thunk(_engine: Optional[int], _user_data: Optional[int], *args: Any) -> int:
        observer = cell.handler
        if observer is None:
            return 1
        depth = getattr(_THREAD_STATE, "audio_depth", 0)
        _THREAD_STATE.audio_depth = depth + 1
        frame: Optional[AudioFrame] = None
        try:
            pointer = args[-1]
            if not pointer:
                return 1
            frame = AudioFrame(pointer.contents)
            method = getattr(observer, name)
            keep = method(int(args[0]), frame) if with_uid else method(frame)
            return 1 if keep is None or bool(keep) else 0
        except BaseException as error:
            _report_callback_exception(error, name, observer)
            return 1
        finally:
            if frame is not None:
                frame._invalidate()
            _THREAD_STATE.audio_depth = depth

    return ctype(thunk)


class _ObserverKeepalive:
    """What the C engine points at for one registered observer: thunks and table."""

    __slots__ = ("cell", "thunks", "table")

    def __init__(self, observer: object, positions: int) -> None:
        self.cell = _HandlerCell(observer)
        self.thunks: List[Any] = []
        self.table = _ffi.AudioFrameObserverTable()
        self.table.struct_size = ctypes.sizeof(_ffi.AudioFrameObserverTable)
        self.table.user_data = None
        self.table.observed_position = positions
        for name, ctype, _, with_uid in _OBSERVER_CALLBACKS:
            if _overrides(observer, name, AudioFrameObserver):
                thunk = _make_observer_thunk(self.cell, name, ctype, with_uid)
                self.thunks.append(thunk)
                setattr(self.table, name, thunk)

    def drop_handler(self) -> None:
        self.cell.handler = None


class _ObserverRegistry:
    """The audio frame observers of one engine that the library may still call.

    The library guarantees that when a registration returns, the previous
    observer gets no further callback, unless the registration was made
    from inside an observer callback (it does not wait there). So the thunks
    of a replaced observer are freed only by a registration made outside any
    callback while no registration from inside one was running; otherwise
    they stay in ``alive`` until the engine is released.
    """

    def __init__(self) -> None:
        self._call_lock = threading.Lock()  # serializes registrations made outside callbacks
        self._state_lock = threading.Lock()  # guards the fields below; never held across a C call
        self.alive: List[_ObserverKeepalive] = []
        self.current: Optional[_ObserverKeepalive] = None
        self._in_flight = 0  # registrations from inside observer callbacks, running now
        self._finished = 0  # such registrations finished

    def _swap(self, keep: Optional[_ObserverKeepalive]) -> None:
        old, self.current = self.current, keep
        if old is not None:
            old.drop_handler()  # the user's observer is dropped at once; its thunks return 1
        if keep is not None:
            self.alive.append(keep)

    def register(self, handle: int, keep: Optional[_ObserverKeepalive]) -> int:
        table = ctypes.byref(keep.table) if keep is not None else None
        if _in_observer_callback():
            # Holding _call_lock here could deadlock with a registration that
            # waits in the library for this very callback to finish.
            with self._state_lock:
                self._in_flight += 1
            rc = -_ffi.AGORAISH_ERR_FAILED
            try:
                rc = _ffi.agoraish_engine_register_audio_frame_observer(handle, table)
            finally:
                with self._state_lock:
                    self._in_flight -= 1
                    self._finished += 1
                    if rc == 0:
                        self._swap(keep)
            return rc
        with self._call_lock:
            with self._state_lock:
                quiet, finished = self._in_flight == 0, self._finished
            rc = _ffi.agoraish_engine_register_audio_frame_observer(handle, table)
            if rc != 0:
                return rc
            with self._state_lock:
                self._swap(keep)
                if quiet and self._in_flight == 0 and self._finished == finished:
                    # The library now calls only `keep`, and has returned from every other observer.
                    self.alive = [keep] if keep is not None else []
            return 0


# --------------------------------------------------------------------------
# Video: frames, render sinks (ABI 0.5), the local canvas and frame observers (ABI 0.6)
# --------------------------------------------------------------------------


def _in_video_sink() -> bool:
    """Whether this thread is inside a render sink or a render observer callback
    (of any engine): both run on an engine's video thread."""
    return getattr(_THREAD_STATE, "video_depth", 0) > 0


def _alpha_plane(raw: Any, width: int, height: int) -> Optional[bytes]:
    """A packed copy of the ``alpha_buffer`` of an ``agoraish_video_frame``
    (``width * height`` bytes), or None when it has none."""
    address = ctypes.cast(raw.alpha_buffer, ctypes.c_void_p).value
    stride = int(raw.alpha_stride)
    if not address or width <= 0 or height <= 0 or stride < width:
        return None
    if stride == width:
        return ctypes.string_at(address, width * height)
    return b"".join(ctypes.string_at(address + row * stride, width) for row in range(height))


class VideoFrame:
    """An I420 picture (Agora's VideoFrame; ``agoraish_video_frame``) handed to
    a render sink (read-only planes), to a ``VideoFrameObserver`` (writable
    planes), or to a media player's canvas and video frame observer
    (read-only planes; ``MediaPlayer.set_view``).

    Attributes:
        uid: the remote user the picture comes from; 0 for a local picture
            (the local canvas, capture and pre-encode observers).
        type: ``VideoPixelFormat.I420``.
        width, height: the picture's size in pixels.
        y_stride, u_stride, v_stride: bytes per row of each plane.
        rotation: 0 (pictures are turned upright before encoding).
        render_time_ms: ms on the engine's monotonic clock: when a remote
            picture was decoded or a local one captured; for capture and
            pre-encode observers the timestamp pushed with the picture.
        writable: whether the planes may be written (observer callbacks).
        alpha: the picture's alpha plane as ``bytes`` (``width * height``,
            rows packed, 0 transparent .. 255 opaque), copied, or None: a
            media player's pictures of a source with alpha (WebM VP8/VP9)
            and local pictures pushed with one (``push_external_video_frame``'s
            `alpha`) have one. It stays valid after the call.

    ``y``, ``u`` and ``v`` are ``memoryview`` objects (format ``'B'``) over
    the library's own planes, without a copy: row ``r`` of a plane starts at
    byte ``r * stride``; the luma plane has ``height`` rows of ``width``
    pixels, the chroma planes ``(height + 1) // 2`` rows of ``(width + 1) // 2``.
    They are read-only in render sinks and writable in observer callbacks,
    where what is written is what is sent or rendered. ``planes`` is
    ``(y, u, v)`` and ``strides`` ``(y_stride, u_stride, v_stride)``.
    ``to_bytes()`` copies the picture as packed I420 (no row padding);
    ``numpy()`` gives three two-dimensional uint8 arrays over the same memory
    (writable exactly when the planes are; numpy must be installed).

    Lifetime: the planes, and any view or array made from them, are valid only
    during the call that received the frame. Afterwards ``y``, ``u``, ``v``,
    ``planes``, ``to_bytes()`` and ``numpy()`` raise ``ValueError``; copy what
    you keep (``to_bytes()``, or ``numpy()`` arrays' ``copy()``). The integer
    attributes stay readable.
    """

    __slots__ = (
        "uid",
        "type",
        "width",
        "height",
        "y_stride",
        "u_stride",
        "v_stride",
        "rotation",
        "render_time_ms",
        "writable",
        "alpha",
        "_views",
        "_planes",
        "_valid",
    )

    def __init__(self, uid: int, raw: Any, writable: bool = False) -> None:
        self.uid = int(uid)
        self.writable = bool(writable)
        self.type = _enum_or_int(VideoPixelFormat, raw.type)
        self.width = int(raw.width)
        self.height = int(raw.height)
        self.y_stride = int(raw.y_stride)
        self.u_stride = int(raw.u_stride)
        self.v_stride = int(raw.v_stride)
        self.rotation = int(raw.rotation)
        self.render_time_ms = int(raw.render_time_ms)
        self.alpha = _alpha_plane(raw, self.width, self.height)
        self._views: List[memoryview] = []
        planes = []
        for pointer, stride, (rows, cols) in zip(
            (raw.y_buffer, raw.u_buffer, raw.v_buffer), self.strides, self._plane_shapes()
        ):
            address = ctypes.cast(pointer, ctypes.c_void_p).value
            size = stride * (rows - 1) + cols if rows > 0 and cols > 0 and stride >= cols else 0
            if address and size > 0:
                base = memoryview((ctypes.c_uint8 * size).from_address(address))
                flat = base.cast("B")
                view = flat if self.writable else flat.toreadonly()
                self._views += [view, flat, base] if view is not flat else [flat, base]
            else:
                view = memoryview(b"")
            planes.append(view)
        self._planes: Tuple[memoryview, ...] = tuple(planes)
        self._valid = True

    def _plane_shapes(self) -> Tuple[Tuple[int, int], ...]:
        """(rows, columns) of the Y, U and V planes."""
        width, height = max(0, self.width), max(0, self.height)
        chroma = ((height + 1) // 2, (width + 1) // 2)
        return ((height, width), chroma, chroma)

    def _check(self) -> None:
        if not self._valid:
            raise ValueError("a VideoFrame's planes are valid only during the call that received it")

    @property
    def strides(self) -> Tuple[int, int, int]:
        """``(y_stride, u_stride, v_stride)``: bytes per row of each plane."""
        return (self.y_stride, self.u_stride, self.v_stride)

    @property
    def planes(self) -> Tuple[memoryview, memoryview, memoryview]:
        """``(y, u, v)``: memoryviews over the library's planes (writable in observers)."""
        self._check()
        return self._planes  # type: ignore[return-value]

    @property
    def y(self) -> memoryview:
        """The luma plane: a memoryview, ``y_stride`` bytes per row."""
        self._check()
        return self._planes[0]

    @property
    def u(self) -> memoryview:
        """The U plane: a memoryview, ``u_stride`` bytes per row."""
        self._check()
        return self._planes[1]

    @property
    def v(self) -> memoryview:
        """The V plane: a memoryview, ``v_stride`` bytes per row."""
        self._check()
        return self._planes[2]

    def to_bytes(self) -> bytes:
        """A copy of the picture as packed I420: Y, then U, then V, without row padding."""
        self._check()
        parts: List[bytes] = []
        for view, stride, (rows, cols) in zip(self._planes, self.strides, self._plane_shapes()):
            if stride == cols:
                parts.append(view[: rows * cols].tobytes())
            else:
                parts.extend(view[r * stride : r * stride + cols].tobytes() for r in range(rows))
        return b"".join(parts)

    def numpy(self) -> Tuple[Any, Any, Any]:
        """The planes as three two-dimensional numpy uint8 arrays ``(y, u, v)``
        of shape (rows, columns), over the library's memory; writable in
        observer callbacks, read-only in render sinks.

        Raises:
            ModuleNotFoundError: numpy is not installed.
        """
        self._check()
        import numpy

        arrays = []
        for view, stride, (rows, cols) in zip(self._planes, self.strides, self._plane_shapes()):
            if len(view) == 0:
                arrays.append(numpy.zeros((rows, cols), dtype=numpy.uint8))
                continue
            arrays.append(numpy.ndarray((rows, cols), dtype=numpy.uint8, buffer=view, strides=(stride, 1)))
        return (arrays[0], arrays[1], arrays[2])

    def _invalidate(self) -> None:
        """Ends the frame's life: the library's planes are about to be reused."""
        self._valid = False
        for view in self._views:
            try:
                view.release()
            except BufferError:  # a view or array made from it is still referenced
                pass
        self._views = []

    def __repr__(self) -> str:
        return (
            f"<agoraish.VideoFrame uid={self.uid} {self.width}x{self.height} "
            f"strides={self.strides} t={self.render_time_ms} ms{' writable' if self.writable else ''}"
            f"{' alpha' if self.alpha is not None else ''}>"
        )


def _make_sink_thunk(cell: _HandlerCell, label: str) -> Any:
    def thunk(_engine: Optional[int], _user_data: Optional[int], uid: int, pointer: Any) -> None:
        sink = cell.handler
        if sink is None or not pointer:
            return
        depth = getattr(_THREAD_STATE, "video_depth", 0)
        _THREAD_STATE.video_depth = depth + 1
        frame: Optional[VideoFrame] = None
        try:
            frame = VideoFrame(uid, pointer.contents)
            sink(frame)  # type: ignore[operator]
        except BaseException as error:
            _report_callback_exception(error, label, sink)
        finally:
            if frame is not None:
                frame._invalidate()
            _THREAD_STATE.video_depth = depth

    return _ffi.FrameCallback(thunk)


#: The key of the local canvas in a ``_SinkRegistry`` (the uid its pictures carry;
#: remote users are never 0).
_LOCAL = 0


class _SinkKeepalive:
    """What the C engine points at for one bound canvas (a remote user's, or
    the local one under uid 0): the thunk and the canvas struct."""

    __slots__ = ("uid", "cell", "thunk", "canvas")

    def __init__(self, uid: int, sink: Callable[[VideoFrame], Any], render_mode: int = 0, mirror_mode: int = 0,
                 view_width: int = 0, view_height: int = 0) -> None:
        self.uid = uid
        self.cell = _HandlerCell(sink)
        label = "setup_local_video sink" if uid == _LOCAL else "setup_remote_video sink"
        self.thunk = _make_sink_thunk(self.cell, label)
        self.canvas = _ffi.VideoCanvas()
        self.canvas.struct_size = ctypes.sizeof(_ffi.VideoCanvas)
        self.canvas.uid = uid
        self.canvas.on_frame = self.thunk
        self.canvas.user_data = None
        self.canvas.render_mode = render_mode
        self.canvas.mirror_mode = mirror_mode
        self.canvas.view_width = view_width
        self.canvas.view_height = view_height

    def drop_handler(self) -> None:
        self.cell.handler = None


class _SinkRegistry:
    """The canvases of one engine that the library may still call: the remote
    users' render sinks by uid, and the local canvas under uid 0.

    The library guarantees that when an unbind (``on_frame`` NULL) returns,
    the pictures delivered before it have been delivered: it waits for the
    engine's video thread, unless the unbind is made on that thread (from
    inside a sink). Binding a sink over another one does not wait. So the
    thunks of a replaced or unbound sink (``retired``) are freed only by an
    unbind made outside any sink while no call from inside a sink was running;
    otherwise they stay until such an unbind or the engine's release.
    """

    def __init__(self, connection: Optional[Any] = None) -> None:
        #: The ``agoraish_rtc_connection`` of a ``join_channel_ex`` connection
        #: whose canvases these are (bound with ``setup_remote_video_ex``), or
        #: None for the engine's own.
        self.connection = connection
        self._call_lock = threading.Lock()  # serializes calls made outside sinks
        self._state_lock = threading.Lock()  # guards the fields below; never held across a C call
        self.bound: Dict[int, _SinkKeepalive] = {}
        self.retired: List[_SinkKeepalive] = []
        self._in_flight = 0  # calls from inside sinks, running now
        self._finished = 0  # such calls finished

    def _swap(self, uid: int, keep: Optional[_SinkKeepalive]) -> None:
        old = self.bound.pop(uid, None)
        if old is not None:
            old.drop_handler()  # the user's sink is dropped at once; its thunk does nothing
            self.retired.append(old)
        if keep is not None:
            self.bound[uid] = keep

    def setup(self, handle: int, uid: int, keep: Optional[_SinkKeepalive], local: bool = False) -> int:
        """Binds (or with `keep` None unbinds) the canvas of `uid`, or the local
        canvas when `local` (then `uid` is ``_LOCAL``)."""
        if keep is not None:
            canvas = keep.canvas
        else:
            canvas = _ffi.VideoCanvas()
            canvas.struct_size = ctypes.sizeof(_ffi.VideoCanvas)
            canvas.uid = uid
        function: Callable[[int, Any], int]
        if self.connection is not None:
            connection = self.connection

            def function(handle: int, canvas: Any) -> int:
                return _ffi.agoraish_engine_setup_remote_video_ex(handle, canvas, ctypes.byref(connection))
        else:
            function = _ffi.agoraish_engine_setup_local_video if local else _ffi.agoraish_engine_setup_remote_video
        if _in_video_sink():
            # Holding _call_lock here could deadlock with an unbind that waits
            # in the library for this very sink call to finish.
            with self._state_lock:
                self._in_flight += 1
            rc = -_ffi.AGORAISH_ERR_FAILED
            try:
                rc = function(handle, ctypes.byref(canvas))
            finally:
                with self._state_lock:
                    self._in_flight -= 1
                    self._finished += 1
                    if rc == 0:
                        self._swap(uid, keep)
            return rc
        with self._call_lock:
            with self._state_lock:
                quiet, finished = self._in_flight == 0, self._finished
            rc = function(handle, ctypes.byref(canvas))
            if rc != 0:
                return rc
            with self._state_lock:
                self._swap(uid, keep)
                if keep is None and quiet and self._in_flight == 0 and self._finished == finished:
                    # The library has returned from every picture handed to a sink
                    # that is no longer bound, and calls only the bound ones now.
                    self.retired = []
            return 0

    def unbind_all(self, handle: int) -> bool:
        """Unbinds every sink; True when the library can call none of their thunks any more."""
        with self._state_lock:
            uids = sorted(set(self.bound) | {keep.uid for keep in self.retired})
        for uid in uids:
            # A remote uid 0 is refused by the library, so uid 0 here is the local canvas.
            if self.setup(handle, uid, None, local=uid == _LOCAL) != 0:
                return False
        with self._state_lock:
            return not self.bound and not self.retired

    def take_all(self) -> List[_SinkKeepalive]:
        with self._state_lock:
            alive = list(self.bound.values()) + self.retired
            self.bound, self.retired = {}, []
        return alive


class VideoFrameObserver:
    """Receives raw video (Agora's IVideoFrameObserver).

    Subclass it and override the positions you need; register it with
    ``RtcEngine.register_video_frame_observer``. Only overridden methods are
    installed in the C observer, the others stay NULL. Each method receives a
    ``VideoFrame`` whose planes are writable: what it writes into them is what
    is sent (capture, pre-encode) or rendered (render). It returns True to
    keep the picture or False to drop it (not sent, not rendered); None
    counts as True.

    Thread: ``on_capture_video_frame`` and ``on_pre_encode_video_frame`` run
    on the thread that pushes the picture (``push_external_video_frame``) or
    on the camera thread; ``on_render_video_frame`` on the engine's video
    thread (``agoraish-vid<n>``), before the user's render sink. A callback
    runs in real time: keep it short.

    An exception raised by a callback is reported through
    ``sys.unraisablehook`` and does not reach the library; the picture is then
    kept as it is.
    """

    def on_capture_video_frame(self, frame: VideoFrame) -> bool:
        """Each local picture as captured or pushed, upright (``VideoObserverPosition.POST_CAPTURER``)."""
        return True

    def on_pre_encode_video_frame(self, frame: VideoFrame) -> bool:
        """Each local picture about to be encoded: fitted to the encoder
        configuration, mirrored and watermarked (``VideoObserverPosition.PRE_ENCODER``)."""
        return True

    def on_render_video_frame(self, uid: int, frame: VideoFrame) -> bool:
        """Each decoded picture of remote user `uid`, before its render sink
        (``VideoObserverPosition.PRE_RENDERER``)."""
        return True


#: The callbacks of agoraish_video_frame_observer, in header order: C field
#: (and Python method) name, CFUNCTYPE, position bit, whether a uid precedes the frame.
_VIDEO_OBSERVER_CALLBACKS: Tuple[Tuple[str, Any, int, bool], ...] = (
    ("on_capture_video_frame", _ffi.CaptureVideoFrameCallback, _ffi.AGORAISH_VIDEO_POSITION_POST_CAPTURER, False),
    ("on_pre_encode_video_frame", _ffi.PreEncodeVideoFrameCallback, _ffi.AGORAISH_VIDEO_POSITION_PRE_ENCODER, False),
    ("on_render_video_frame", _ffi.RenderVideoFrameCallback, _ffi.AGORAISH_VIDEO_POSITION_PRE_RENDERER, True),
)


def _observed_video_positions(observer: object) -> int:
    """The position bits of the methods `observer` overrides."""
    bits = 0
    for name, _, bit, _ in _VIDEO_OBSERVER_CALLBACKS:
        if _overrides(observer, name, VideoFrameObserver):
            bits |= bit
    return bits


def _make_video_observer_thunk(cell: _HandlerCell, name: str, ctype: Any, with_uid: bool) -> Any:
    # Render callbacks run on the video thread, like render sinks; the others on a pushing thread.
    depth_name = "video_depth" if with_uid else "capture_depth"

    def thunk(_engine: Optional[int], _user_data: Optional[int], *args: Any) -> int:
        observer = cell.handler
        if observer is None:
            return 1
        depth = getattr(_THREAD_STATE, depth_name, 0)
        setattr(_THREAD_STATE, depth_name, depth + 1)
        frame: Optional[VideoFrame] = None
        try:
            pointer = args[-1]
            if not pointer:
                return 1
            uid = int(args[0]) if with_uid else 0
            frame = VideoFrame(uid, pointer.contents, writable=True)
            method = getattr(observer, name)
            keep = method(uid, frame) if with_uid else method(frame)
            return 1 if keep is None or bool(keep) else 0
        except BaseException as error:
            _report_callback_exception(error, name, observer)
            return 1
        finally:
            if frame is not None:
                frame._invalidate()
            setattr(_THREAD_STATE, depth_name, depth)

    return ctype(thunk)


class _VideoObserverKeepalive:
    """What the C engine points at for one registered video observer: thunks and table.

    ``local`` tells whether it has capture or pre-encode thunks, which the
    library may call on a pushing thread without ever waiting for them.
    """

    __slots__ = ("cell", "thunks", "table", "local")

    def __init__(self, observer: object, positions: int) -> None:
        self.cell = _HandlerCell(observer)
        self.thunks: List[Any] = []
        self.table = _ffi.VideoFrameObserverTable()
        self.table.struct_size = ctypes.sizeof(_ffi.VideoFrameObserverTable)
        self.table.user_data = None
        self.table.observed_position = positions
        self.local = False
        for name, ctype, _, with_uid in _VIDEO_OBSERVER_CALLBACKS:
            if _overrides(observer, name, VideoFrameObserver):
                thunk = _make_video_observer_thunk(self.cell, name, ctype, with_uid)
                self.thunks.append(thunk)
                setattr(self.table, name, thunk)
                self.local = self.local or not with_uid

    def drop_handler(self) -> None:
        self.cell.handler = None


class _VideoObserverRegistry:
    """The video frame observers of one engine that the library may still call.

    The library waits, when an observer is unregistered (NULL), for a render
    callback in progress on the video thread, unless the unregistration is
    made on that thread; a registration over another observer does not wait.
    Capture and pre-encode callbacks run on the thread that pushes (or the
    camera thread) and are never waited for. So a replaced observer's
    thunks are kept for the life of the process when it had capture or
    pre-encode callbacks; a render-only one (``retired``) is freed by an
    unregistration made outside the video thread while no call from inside a
    render callback was running, as for render sinks.
    """

    def __init__(self) -> None:
        self._call_lock = threading.Lock()  # serializes calls made off the video thread
        self._state_lock = threading.Lock()  # guards the fields below; never held across a C call
        self.current: Optional[_VideoObserverKeepalive] = None
        self.retired: List[_VideoObserverKeepalive] = []
        self._in_flight = 0  # calls from the video thread, running now
        self._finished = 0  # such calls finished

    @staticmethod
    def _register_c(handle: int, table: Optional[Any]) -> int:
        return _ffi.agoraish_engine_register_video_frame_observer(handle, table)

    def _swap(self, keep: Optional[_VideoObserverKeepalive]) -> None:
        old, self.current = self.current, keep
        if old is not None:
            old.drop_handler()  # the user's observer is dropped at once; its thunks return 1
            if old.local:
                _keep_forever(old)
            else:
                self.retired.append(old)

    def register(self, handle: int, keep: Optional[_VideoObserverKeepalive]) -> int:
        table = ctypes.byref(keep.table) if keep is not None else None
        if _in_video_sink():
            # Holding _call_lock here could deadlock with an unregistration
            # that waits in the library for this very callback to finish.
            with self._state_lock:
                self._in_flight += 1
            rc = -_ffi.AGORAISH_ERR_FAILED
            try:
                rc = self._register_c(handle, table)
            finally:
                with self._state_lock:
                    self._in_flight -= 1
                    self._finished += 1
                    if rc == 0:
                        self._swap(keep)
            return rc
        with self._call_lock:
            with self._state_lock:
                quiet, finished = self._in_flight == 0, self._finished
            rc = self._register_c(handle, table)
            if rc != 0:
                return rc
            with self._state_lock:
                self._swap(keep)
                if keep is None and quiet and self._in_flight == 0 and self._finished == finished:
                    # No render callback of a retired observer runs any more.
                    self.retired = []
            return 0

    def take_all(self) -> List[_VideoObserverKeepalive]:
        with self._state_lock:
            alive = ([self.current] if self.current is not None else []) + self.retired
            self.current, self.retired = None, []
        return alive


# --------------------------------------------------------------------------
# Encoded video: the encoded frame observer (ABI 0.11)
# --------------------------------------------------------------------------


class VideoEncodedFrameObserver:
    """Sees each remote video frame before it is decoded (Agora's
    IVideoEncodedFrameObserver), in every connection of the engine; register
    it with ``RtcEngine.register_video_encoded_frame_observer``.

    Subclass it and override ``on_encoded_video_frame_received``.

    Thread: the receiving connection's video thread (``agoraish-vid<n>``),
    before the frame is decoded and rendered; frames of one stream arrive in
    order. A callback runs in real time: keep it short. An exception raised
    by a callback is reported through ``sys.unraisablehook`` and does not
    reach the library.
    """

    def on_encoded_video_frame_received(self, uid: int, data: bytes, info: EncodedVideoFrameInfo) -> None:
        """One frame of `uid` as received (descriptors removed): `data` is a
        copy of the encoded frame (VP8 or VP9), `info` its codec, frame type,
        size (0 where the frame does not carry it) and RTP timestamp in ms."""


def _encoded_frame_info(pointer: Any) -> EncodedVideoFrameInfo:
    """Copies a ``const agoraish_encoded_video_frame_info *``; fields past its
    ``struct_size`` keep their defaults, the enums become enum members."""
    info = _copy_versioned(pointer, EncodedVideoFrameInfo, _ffi.EncodedVideoFrameInfo)
    info.codec_type = _enum_or_int(VideoCodecType, info.codec_type)
    info.frame_type = _enum_or_int(VideoFrameType, info.frame_type)
    return info


def _make_encoded_frame_thunk(cell: _HandlerCell) -> Any:
    name = "on_encoded_video_frame_received"

    def thunk(_engine: Optional[int], _user_data: Optional[int], uid: int, data: Any, length: int,
              info: Any) -> None:
        observer = cell.handler
        if observer is None:
            return
        # The connection's video thread, like render sinks: calls made from here do not wait for it.
        depth = getattr(_THREAD_STATE, "video_depth", 0)
        _THREAD_STATE.video_depth = depth + 1
        try:
            getattr(observer, name)(int(uid), _bytes_at(data, int(length)), _encoded_frame_info(info))
        except BaseException as error:
            _report_callback_exception(error, name, observer)
        finally:
            _THREAD_STATE.video_depth = depth

    return _ffi.EncodedVideoFrameReceivedCallback(thunk)


class _EncodedObserverKeepalive:
    """What the C engine points at for one registered encoded frame observer:
    the thunk and the table (the library copies the table, not the function).

    ``local`` is False: its only callback runs on a connection's video thread,
    which an unregistration waits for (see ``_VideoObserverRegistry``).
    """

    __slots__ = ("cell", "thunks", "table", "local")

    def __init__(self, observer: object) -> None:
        self.cell = _HandlerCell(observer)
        self.thunks: List[Any] = []
        self.table = _ffi.VideoEncodedFrameObserverTable()
        self.table.struct_size = ctypes.sizeof(_ffi.VideoEncodedFrameObserverTable)
        self.table.user_data = None
        self.local = False
        if _overrides(observer, "on_encoded_video_frame_received", VideoEncodedFrameObserver):
            thunk = _make_encoded_frame_thunk(self.cell)
            self.thunks.append(thunk)
            self.table.on_encoded_video_frame_received = thunk

    def drop_handler(self) -> None:
        self.cell.handler = None


class _EncodedObserverRegistry(_VideoObserverRegistry):
    """The encoded frame observers of one engine that the library may still
    call: the rules of ``_VideoObserverRegistry`` for a render-only observer.
    After an unregistration (NULL) returns no callback runs, unless it was
    made on a video thread; a registration over another observer does not
    wait, so a replaced observer stays in ``retired`` until such an
    unregistration or the engine's release."""

    @staticmethod
    def _register_c(handle: int, table: Optional[Any]) -> int:
        return _ffi.agoraish_engine_register_video_encoded_frame_observer(handle, table)


#: The most samples per channel one push or pull carries (one second at 48 kHz; the header's limit).
_MAX_PCM_SAMPLES = 48000

#: memoryview formats of one-byte items: raw bytes, whatever their signedness.
_BYTE_FORMATS = ("B", "b", "c", "<B", ">B", "=B", "<b", ">b", "=b", "<c", ">c", "=c")

#: memoryview formats of native 16-bit signed integers (array('h'), numpy int16).
_INT16_FORMATS = ("h", "<h", "=h", "@h")


def _pcm_view(samples: Any, channels: int, what: str) -> memoryview:
    """`samples` as bytes of interleaved 16-bit PCM in `channels` channels:
    bytes-like objects are taken as they are; arrays must hold int16, and a
    two-dimensional one must have `channels` columns."""
    try:
        view = memoryview(samples)
    except TypeError:
        raise TypeError(f"{what}: samples must be bytes-like or an int16 array, not {type(samples).__name__}") from None
    if view.format in _INT16_FORMATS:
        if view.ndim == 2 and view.shape is not None and view.shape[1] != channels:
            raise ValueError(f"{what}: an array of shape {view.shape} has {view.shape[1]} channels; "
                             f"the source has {channels} (shape (n, {channels}) or a flat array)")
        if view.ndim > 2:
            raise ValueError(f"{what}: samples must be one- or two-dimensional, not of shape {view.shape}")
    elif view.format not in _BYTE_FORMATS:
        raise TypeError(f"{what}: samples must be 16-bit signed integers, not items of format {view.format!r}; "
                        "convert floats in [-1, 1] with (samples * 32767).round().astype(numpy.int16)")
    if not view.c_contiguous:
        view = memoryview(view.tobytes())
    return view.cast("B") if view.ndim != 1 or view.format != "B" else view


def _plane_view(data: Any, name: str) -> Tuple[memoryview, Optional[int]]:
    """`data` as a one-dimensional byte view, and the row length in bytes a
    two-dimensional buffer implies (None for one-dimensional data)."""
    try:
        view = memoryview(data)
    except TypeError:
        raise TypeError(f"{name} must be a bytes-like object or a numpy array, not {type(data).__name__}") from None
    if view.format not in _BYTE_FORMATS:
        raise TypeError(f"{name} must hold bytes (uint8), not items of format {view.format!r}: "
                        f"convert a float picture in [0, 1] with (picture * 255).round().astype(numpy.uint8)")
    if view.ndim > 2 and not (view.ndim == 3 and view.shape is not None and view.shape[2] in (1, 4)):
        raise TypeError(f"{name} must be one- or two-dimensional (or rows x columns x 4 packed pixels), "
                        f"not of shape {view.shape}")
    row = view.shape[1] * view.itemsize * (view.shape[2] if view.ndim == 3 else 1) \
        if view.ndim in (2, 3) and view.shape is not None else None
    if not view.c_contiguous:
        view = memoryview(view.tobytes())
    if view.ndim != 1 or view.format != "B":
        view = view.cast("B")
    return view, row


def _plane_pointer(view: memoryview) -> Tuple[Any, Optional[int]]:
    """A ctypes object over (or, for read-only data, a copy of) `view`, and its address."""
    if len(view) == 0:
        return None, None
    if view.readonly:
        holder = (ctypes.c_char * len(view)).from_buffer_copy(view)
    else:
        holder = (ctypes.c_char * len(view)).from_buffer(view)
    return holder, ctypes.addressof(holder)


def _plane_geometry(fmt: int, width: int, height: int) -> Optional[List[Tuple[int, int]]]:
    """(rows, bytes per row) of each plane `fmt` uses, in order; None for a format the header does not list."""
    chroma_rows = height // 2
    if fmt == _ffi.AGORAISH_VIDEO_PIXEL_I420:
        return [(height, width), (chroma_rows, width // 2), (chroma_rows, width // 2)]
    if fmt in (_ffi.AGORAISH_VIDEO_PIXEL_NV12, _ffi.AGORAISH_VIDEO_PIXEL_NV21):
        return [(height, width), (chroma_rows, 2 * (width // 2))]
    if fmt in (_ffi.AGORAISH_VIDEO_PIXEL_BGRA, _ffi.AGORAISH_VIDEO_PIXEL_RGBA):
        return [(height, 4 * width)]
    return None


def _check_plane(view: Optional[memoryview], name: str, stride: int, rows: int, cols: int,
                 operation: str = "push_external_video_frame") -> None:
    """Raises -2 when `view` is too short for `rows` rows of `cols` bytes, `stride` apart.

    Sizes and strides the library rejects by themselves are left to it (it reads nothing then).
    """
    if view is None or rows <= 0 or cols <= 0 or stride < cols:
        return
    needed = stride * (rows - 1) + cols
    if len(view) < needed:
        raise AgoraishError(
            -_ffi.AGORAISH_ERR_INVALID_ARGUMENT,
            f"{operation}: {name} has {len(view)} bytes, {rows} rows of stride {stride} need {needed}",
        )


def _external_video_frame(width: int, height: int, y: Any, u: Any, v: Any, format: int, y_stride: Optional[int],
                          u_stride: Optional[int], v_stride: Optional[int], timestamp: Optional[int], rotation: int,
                          operation: str, alpha: Any = None,
                          alpha_stride: Optional[int] = None) -> Tuple[Any, List[Any]]:
    """The ``agoraish_external_video_frame`` of ``RtcEngine.push_external_video_frame``'s
    arguments (see there), and the buffers its plane pointers point into: keep
    them referenced until the push has returned. Raises what the push
    raises before calling the library, naming `operation`."""
    width = _c_int(width, "width")
    height = _c_int(height, "height")
    fmt = _c_int(format, "format")
    geometry = _plane_geometry(fmt, width, height)  # (rows, columns) per used plane; None: unknown format
    views: List[Optional[memoryview]] = []
    row_lengths: List[Optional[int]] = []
    for data, name in ((y, "y"), (u, "u"), (v, "v")):
        view, row = _plane_view(data, name) if data is not None else (None, None)
        views.append(view)
        row_lengths.append(row)
    used = len(geometry) if geometry is not None else 3
    packed = used > 1 and views[0] is not None and all(view is None for view in views[1:])
    strides: List[int] = []
    for i, (given, name) in enumerate(zip((y_stride, u_stride, v_stride), ("y_stride", "u_stride", "v_stride"))):
        if given is not None:
            strides.append(_c_int(given, name))
        elif row_lengths[i] is not None and not packed:
            strides.append(_c_int(row_lengths[i], name))
        elif geometry is not None and i < used:
            strides.append(geometry[i][1])
        else:
            strides.append(0)
    offsets = [0, 0, 0]
    if packed and geometry is not None:
        # One buffer: the planes one after the other. Sizes the library rejects read nothing.
        whole = views[0]
        assert whole is not None
        views = [whole if i < used else None for i in range(3)]
        if all(rows > 0 and strides[i] > 0 for i, (rows, _) in enumerate(geometry)):
            for i in range(1, used):
                offsets[i] = offsets[i - 1] + strides[i - 1] * geometry[i - 1][0]
            if len(whole) < offsets[used - 1]:
                raise AgoraishError(
                    -_ffi.AGORAISH_ERR_INVALID_ARGUMENT,
                    f"{operation}: the picture has {len(whole)} bytes, "
                    f"the planes before its last need {offsets[used - 1]}",
                )
            rows, cols = geometry[used - 1]
            _check_plane(whole[offsets[used - 1]:], "the last plane", strides[used - 1], rows, cols, operation)
    elif geometry is not None:
        for i, (rows, cols) in enumerate(geometry):
            _check_plane(views[i], "yuv"[i], strides[i], rows, cols, operation)

    holders: List[Any] = []
    addresses: List[Optional[int]] = []
    cache: Dict[int, Tuple[Any, Optional[int]]] = {}
    for view, offset in zip(views, offsets):
        if view is None:
            addresses.append(None)
            continue
        if id(view) not in cache:
            cache[id(view)] = _plane_pointer(view)
        holder, address = cache[id(view)]
        holders.append(holder)
        addresses.append(address + offset if address is not None else None)

    frame = _ffi.ExternalVideoFrame()
    frame.struct_size = ctypes.sizeof(_ffi.ExternalVideoFrame)
    frame.format = fmt
    frame.width = width
    frame.height = height
    frame.y_buffer, frame.u_buffer, frame.v_buffer = addresses
    frame.y_stride, frame.u_stride, frame.v_stride = strides
    if timestamp is None:
        timestamp = time.monotonic_ns() // 1_000_000
    stamp = operator.index(timestamp)
    if not -(2**63) <= stamp < 2**63:
        raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, f"timestamp {stamp} does not fit int64_t")
    frame.timestamp = stamp
    frame.rotation = _c_int(rotation, "rotation")
    if alpha is not None:
        alpha_view, alpha_row = _plane_view(alpha, "alpha")
        if alpha_stride is not None:
            stride = _c_int(alpha_stride, "alpha_stride")
        else:
            stride = _c_int(alpha_row, "alpha_stride") if alpha_row is not None else width
        _check_plane(alpha_view, "alpha", stride, height, width, operation)
        holder, address = _plane_pointer(alpha_view)
        holders.append(holder)
        frame.alpha_buffer = address
        frame.alpha_stride = stride
    return frame, holders


# --------------------------------------------------------------------------
# Data streams: media metadata and the packet observer (ABI 0.8)
# --------------------------------------------------------------------------


def _payload(data: Any, name: str) -> bytes:
    """The bytes of a bytes-like object (bytes are passed as they are)."""
    if type(data) is bytes:
        return data
    try:
        return memoryview(data).tobytes()
    except TypeError:
        raise TypeError(f"{name} must be a bytes-like object, not {type(data).__name__}") from None


class MetadataObserver:
    """The source and sink of video metadata (Agora's IMetadataObserver, the
    data source and delegate of ObjC's setMediaMetadataDataSource /
    setMediaMetadataDelegate); register it with
    ``RtcEngine.register_media_metadata_observer``.

    Pass callables, or subclass and override the methods:

    - ``max_size``: the most bytes one picture's metadata may take,
      1..``AGORAISH_MAX_METADATA_SIZE`` (1024); read once, when registered,
      through ``get_max_metadata_size()``.
    - ``on_ready_to_send(timestamp_ms)``: a picture is being sent (its capture
      or external-frame timestamp, ms); return the bytes to send with it
      (at most ``max_size``), or None (or b"") for none. Runs on the thread
      that sends the picture (the one that calls ``push_external_video_frame``,
      or the camera's): keep it short.
    - ``on_received(uid, data, timestamp_ms)``: metadata of `uid`'s picture
      arrived, with that picture's timestamp; runs on the event thread.

    Metadata travels reliably beside the video to every other user of the
    channel. Only the callbacks given (or overridden) are installed. An
    exception raised by a callback is reported through ``sys.unraisablehook``;
    the picture then goes without metadata. Metadata longer than the room is
    such an error too.
    """

    #: The most bytes a picture's metadata may take (the default: the maximum).
    max_size: int = _ffi.AGORAISH_MAX_METADATA_SIZE

    def __init__(
        self,
        max_size: int = _ffi.AGORAISH_MAX_METADATA_SIZE,
        on_ready_to_send: Optional[Callable[[int], Optional[bytes]]] = None,
        on_received: Optional[Callable[[int, bytes, int], Any]] = None,
    ) -> None:
        self.max_size = max_size
        self._on_ready_to_send = on_ready_to_send
        self._on_received = on_received

    def get_max_metadata_size(self) -> int:
        """The most bytes a picture's metadata may take; asked once, when registered."""
        return self.max_size

    def on_ready_to_send_metadata(self, timestamp_ms: int) -> Optional[bytes]:
        """The metadata of the picture with this timestamp (ms), or None."""
        callback = getattr(self, "_on_ready_to_send", None)
        return callback(timestamp_ms) if callback is not None else None

    def on_metadata_received(self, uid: int, data: bytes, timestamp_ms: int) -> None:
        """Metadata of `uid`'s picture with this timestamp (ms) arrived."""
        callback = getattr(self, "_on_received", None)
        if callback is not None:
            callback(uid, data, timestamp_ms)


def _installs(observer: object, name: str, base: type, attribute: str) -> bool:
    """Whether `observer` handles callback `name`: a method of its own, or the callable it was given."""
    return _overrides(observer, name, base) or getattr(observer, attribute, None) is not None


class _MetadataKeepalive:
    """What the C engine points at for one metadata observer: thunks and table.

    The library copies the table but does not wait, on replacement, for a
    callback already running on a sending thread; a replaced keepalive is
    therefore kept for the life of the process (``_keep_forever``).
    """

    __slots__ = ("cell", "thunks", "table", "max_size")

    def __init__(self, observer: object, max_size: int) -> None:
        self.cell = _HandlerCell(observer)
        self.max_size = max_size
        self.thunks: List[Any] = []
        self.table = _ffi.MetadataObserverTable()
        self.table.struct_size = ctypes.sizeof(_ffi.MetadataObserverTable)
        self.table.user_data = None
        cell = self.cell

        def get_max(_engine: Optional[int], _user_data: Optional[int]) -> int:
            return max_size

        def ready(_engine: Optional[int], _user_data: Optional[int], pointer: Any) -> int:
            observer = cell.handler
            if observer is None or not pointer:
                return 0
            try:
                metadata = pointer.contents
                data = observer.on_ready_to_send_metadata(int(metadata.timestamp_ms))  # type: ignore[attr-defined]
                if data is None:
                    return 0
                payload = _payload(data, "metadata")
                if not payload:
                    return 0
                if len(payload) > metadata.size or not metadata.buffer:
                    raise ValueError(f"{len(payload)} bytes of metadata do not fit the room of {metadata.size}")
                ctypes.memmove(metadata.buffer, payload, len(payload))
                metadata.size = len(payload)
                return 1
            except BaseException as error:
                _report_callback_exception(error, "on_ready_to_send_metadata", observer)
                return 0

        def received(_engine: Optional[int], _user_data: Optional[int], pointer: Any) -> None:
            observer = cell.handler
            if observer is None or not pointer:
                return
            previous = getattr(_THREAD_STATE, "engine", None)
            _THREAD_STATE.engine = _engine
            try:
                metadata = pointer.contents
                observer.on_metadata_received(  # type: ignore[attr-defined]
                    int(metadata.uid), _bytes_at(metadata.buffer, int(metadata.size)), int(metadata.timestamp_ms)
                )
            except BaseException as error:
                _report_callback_exception(error, "on_metadata_received", observer)
            finally:
                _THREAD_STATE.engine = previous

        self._install("get_max_metadata_size", _ffi.GetMaxMetadataSizeCallback(get_max))
        if _installs(observer, "on_ready_to_send_metadata", MetadataObserver, "_on_ready_to_send"):
            self._install("on_ready_to_send_metadata", _ffi.ReadyToSendMetadataCallback(ready))
        if _installs(observer, "on_metadata_received", MetadataObserver, "_on_received"):
            self._install("on_metadata_received", _ffi.MetadataReceivedCallback(received))

    def _install(self, name: str, thunk: Any) -> None:
        self.thunks.append(thunk)
        setattr(self.table, name, thunk)

    def drop_handler(self) -> None:
        self.cell.handler = None


#: The callbacks of agoraish_packet_observer, in header order: C field (and
#: Python method) name, and the attribute holding a callable given to PacketObserver().
#: The ctypes callback type of each packet observer field.
_PACKET_TYPES: Dict[str, Any] = {name: ctype for name, ctype, _ in _ffi.CALLBACKS["agoraish_packet_observer"]}

_PACKET_CALLBACKS: Tuple[Tuple[str, str], ...] = (
    ("on_send_audio_packet", "_on_send_audio"),
    ("on_send_video_packet", "_on_send_video"),
    ("on_receive_audio_packet", "_on_receive_audio"),
    ("on_receive_video_packet", "_on_receive_video"),
)


class PacketObserver:
    """Sees, and may replace, the payload of each media packet (Agora's
    IPacketObserver), for the host's own encryption; register it with
    ``RtcEngine.register_packet_observer``.

    Pass callables, or subclass and override the methods. Each takes the
    payload (``bytes``: audio, the Opus packet; video, what follows the RTP
    payload descriptor) and returns the payload to send or hand on: the same
    object (unchanged), other bytes (at most
    ``AGORAISH_PACKET_OBSERVER_MAX_GROWTH``, 64, bytes longer, or the library
    drops the packet), or None to drop the packet. Only the callbacks given
    (or overridden) are installed; the others pass packets on unchanged.

    On the way out the observer runs before the built-in encryption, on the
    way in after it. Send callbacks run on the thread that encodes (audio: the
    thread that pushes or the audio device thread; video: the video thread),
    receive callbacks on the engine's network thread; callbacks of one kind
    never overlap. They run for every packet: keep them short. An exception
    raised by a callback is reported through ``sys.unraisablehook`` and the
    packet is dropped.
    """

    def __init__(
        self,
        on_send_audio: Optional[Callable[[bytes], Optional[bytes]]] = None,
        on_send_video: Optional[Callable[[bytes], Optional[bytes]]] = None,
        on_receive_audio: Optional[Callable[[bytes], Optional[bytes]]] = None,
        on_receive_video: Optional[Callable[[bytes], Optional[bytes]]] = None,
    ) -> None:
        self._on_send_audio = on_send_audio
        self._on_send_video = on_send_video
        self._on_receive_audio = on_receive_audio
        self._on_receive_video = on_receive_video

    def _call(self, attribute: str, payload: bytes) -> Optional[bytes]:
        callback = getattr(self, attribute, None)
        return callback(payload) if callback is not None else payload

    def on_send_audio_packet(self, payload: bytes) -> Optional[bytes]:
        """An audio payload about to be sent."""
        return self._call("_on_send_audio", payload)

    def on_send_video_packet(self, payload: bytes) -> Optional[bytes]:
        """A video payload about to be sent."""
        return self._call("_on_send_video", payload)

    def on_receive_audio_packet(self, payload: bytes) -> Optional[bytes]:
        """An audio payload that arrived."""
        return self._call("_on_receive_audio", payload)

    def on_receive_video_packet(self, payload: bytes) -> Optional[bytes]:
        """A video payload that arrived."""
        return self._call("_on_receive_video", payload)


class _PacketKeepalive:
    """What the C engine points at for one packet observer: thunks, table and,
    per callback, the last replacement payload.

    The library reads a replacement payload after the callback has returned,
    so each stays referenced here until the next callback of its kind (which
    never overlaps it). The library does not wait, on replacement, for a
    callback already running; a replaced keepalive is kept for the life of
    the process (``_keep_forever``).
    """

    __slots__ = ("cell", "thunks", "table", "replacements")

    def __init__(self, observer: object) -> None:
        self.cell = _HandlerCell(observer)
        self.thunks: List[Any] = []
        self.replacements: List[Any] = [None] * len(_PACKET_CALLBACKS)
        self.table = _ffi.PacketObserverTable()
        self.table.struct_size = ctypes.sizeof(_ffi.PacketObserverTable)
        self.table.user_data = None
        for index, (name, attribute) in enumerate(_PACKET_CALLBACKS):
            if _installs(observer, name, PacketObserver, attribute):
                thunk = _PACKET_TYPES[name](self._make_thunk(index, name))
                self.thunks.append(thunk)
                setattr(self.table, name, thunk)

    def _make_thunk(self, index: int, name: str) -> Callable[..., int]:
        cell, replacements = self.cell, self.replacements

        def thunk(_engine: Optional[int], _user_data: Optional[int], pointer: Any) -> int:
            observer = cell.handler
            if observer is None or not pointer:
                return 1
            replacements[index] = None
            try:
                packet = pointer.contents
                payload = _bytes_at(packet.buffer, int(packet.size))
                result = getattr(observer, name)(payload)
                if result is None:
                    return 0
                if result is payload:
                    return 1
                data = _payload(result, name)
                if data:
                    buffer = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
                    replacements[index] = buffer
                    packet.buffer = ctypes.cast(buffer, ctypes.POINTER(ctypes.c_uint8))
                packet.size = len(data)
                return 1
            except BaseException as error:
                _report_callback_exception(error, name, observer)
                return 0

        return thunk

    def drop_handler(self) -> None:
        self.cell.handler = None


# --------------------------------------------------------------------------
# Media players and media recorders: observers and their plumbing (ABI 0.13)
# --------------------------------------------------------------------------


def _in_player_callback() -> bool:
    """Whether this thread is inside a media player's canvas or frame observer
    callback (of any player): they run on the player's thread (``agoraish-mp<n>``)."""
    return getattr(_THREAD_STATE, "player_depth", 0) > 0


def _callback_ctype(struct: str, field: str) -> Any:
    """The CFUNCTYPE of callback `field` of the C struct `struct` (generated from the header)."""
    return next(ctype for name, ctype, _ in _ffi.CALLBACKS[struct] if name == field)


class MediaPlayerSourceObserver:
    """Receives the events of one media player (Agora's IMediaPlayerSourceObserver);
    register it with ``MediaPlayer.register_player_source_observer``.

    Subclass it and override the callbacks you need; only overridden methods
    are installed in the C observer. A value the header does not list
    arrives as a plain int instead of an enum member.

    Thread: every callback runs on the engine's event thread, one at a time,
    in order with the engine's other events. A callback may call any method
    of the player or of the engine, except ``RtcEngine.release()`` of that
    same engine (-5). An exception raised by a callback is reported through
    ``sys.unraisablehook`` and does not reach the library.
    """

    def on_player_source_state_changed(self, state: MediaPlayerState, reason: MediaPlayerReason) -> None:
        """The player's state changed (onPlayerSourceStateChanged).

        ``open`` gives OPENING at once, then OPEN_COMPLETED, or FAILED with a
        reason: URL_NOT_FOUND (a missing file, a refused connection, HTTP
        404), INVALID_MEDIA_SOURCE (not a media file), CODEC_NOT_SUPPORTED,
        UNKNOWN_STREAM_TYPE (no audio or video stream) or INTERRUPTED (a read
        timed out). ``play`` gives PLAYING, ``pause`` PAUSED, ``stop``
        STOPPED; the end of the source PLAYBACK_COMPLETED, then
        PLAYBACK_ALL_LOOPS_COMPLETED after the last loop.
        """

    def on_position_changed(self, position_ms: int, timestamp_ms: int) -> None:
        """The playing position (onPositionChanged), every second while
        playing; `timestamp_ms` is on the engine's monotonic clock."""

    def on_player_event(self, event: MediaPlayerEvent, elapsed_time: int, message: str) -> None:
        """An event of the player (onPlayerEvent): `elapsed_time` is the
        position in ms, `message` "" or a text. A seek gives SEEK_BEGIN, then
        SEEK_COMPLETE (or SEEK_ERROR for a source that cannot seek)."""

    def on_play_buffer_updated(self, play_cached_buffer: int) -> None:
        """Ms of audio decoded ahead of the position (onPlayBufferUpdated), every second while playing."""

    def on_completed(self) -> None:
        """The last loop ended (onCompleted)."""


class MediaRecorderObserver:
    """Receives the events of one media recorder (Agora's IMediaRecorderObserver);
    set it with ``MediaRecorder.set_media_recorder_observer``.

    Subclass it and override the callbacks you need; only overridden methods
    are installed in the C observer. A value the header does not list
    arrives as a plain int instead of an enum member.

    Thread: every callback runs on the engine's event thread, one at a time,
    in order with the engine's other events; the rules of
    ``MediaPlayerSourceObserver`` apply, except that
    ``MediaRecorder.stop_recording`` must not be called from a callback.
    """

    def on_recorder_state_changed(self, channel_id: str, uid: int, state: RecorderState,
                                  reason: RecorderReason) -> None:
        """The recorder of `uid` in `channel_id` changed state (onRecorderStateChanged).

        ``start_recording`` gives START (or ERROR with WRITE_FAILED when the
        file cannot be written); ``stop_recording`` gives STOP, or ERROR with
        NO_STREAM when nothing arrived to record (the empty file is removed);
        reaching ``max_duration_ms`` gives STOP with OVER_MAX_DURATION.
        (CONFIG_CHANGED, Agora's value, is not reported: pictures of another
        size are letterboxed and recording goes on.)
        """

    def on_recorder_info_updated(self, channel_id: str, uid: int, info: RecorderInfo) -> None:
        """What has been recorded so far (onRecorderInfoUpdated), every
        ``recorder_info_update_interval`` ms while recording."""


def _recorder_info(pointer: Any) -> RecorderInfo:
    """Copies a ``const agoraish_recorder_info *``; fields past its ``struct_size`` read as empty."""
    if not pointer:
        return RecorderInfo("", 0, 0)
    raw = pointer.contents
    size = raw.struct_size

    def present(name: str) -> bool:
        descriptor = getattr(_ffi.RecorderInfo, name)
        return bool(descriptor.offset + descriptor.size <= size)

    return RecorderInfo(
        _text(raw.file_name) if present("file_name") else "",
        int(raw.duration_ms) if present("duration_ms") else 0,
        int(raw.file_size) if present("file_size") else 0,
    )


#: How the C arguments of a player's and a recorder's callbacks (after the
#: engine, user_data and the player's or recorder's id) become the method's.
_MEDIA_CONVERSIONS: Dict[str, Callable[..., tuple]] = {
    "on_player_source_state_changed": lambda state, reason: (
        _enum_or_int(MediaPlayerState, state),
        _enum_or_int(MediaPlayerReason, reason),
    ),
    "on_player_event": lambda event, elapsed_time, message: (
        _enum_or_int(MediaPlayerEvent, event),
        int(elapsed_time),
        _text(message),
    ),
    "on_recorder_state_changed": lambda channel_id, uid, state, reason: (
        _text(channel_id),
        int(uid),
        _enum_or_int(RecorderState, state),
        _enum_or_int(RecorderReason, reason),
    ),
    "on_recorder_info_updated": lambda channel_id, uid, info: (_text(channel_id), int(uid), _recorder_info(info)),
}


def _media_callbacks(struct: str) -> Tuple[_CallbackSpec, ...]:
    """The callbacks of a player's or recorder's C observer, in header order,
    with the conversion of their arguments after the id."""
    return tuple(
        _CallbackSpec(name, ctype, _MEDIA_CONVERSIONS.get(name) or _default_conversion(ctype, skip=3))
        for name, ctype, _ in _ffi.CALLBACKS[struct]
    )


_PLAYER_SOURCE_CALLBACKS = _media_callbacks("agoraish_media_player_observer")
_RECORDER_CALLBACKS = _media_callbacks("agoraish_media_recorder_observer")
_PLAYER_SOURCE_NAMES = frozenset(spec.name for spec in _PLAYER_SOURCE_CALLBACKS)
_RECORDER_NAMES = frozenset(spec.name for spec in _RECORDER_CALLBACKS)
_WARNED_PLAYER_CLASSES: "weakref.WeakSet[type]" = weakref.WeakSet()
_WARNED_RECORDER_CLASSES: "weakref.WeakSet[type]" = weakref.WeakSet()


def _make_media_event_thunk(cell: _HandlerCell, spec: _CallbackSpec) -> Any:
    """The thunk of an observer callback that runs on the event thread and
    whose first C argument after user_data is the player's or recorder's id
    (which the Python method does not receive: the observer is per object)."""

    def thunk(_engine: Optional[int], _user_data: Optional[int], _object_id: int, *args: Any) -> None:
        handler = cell.handler
        if handler is None:
            return
        previous = getattr(_THREAD_STATE, "engine", None)
        _THREAD_STATE.engine = _engine
        try:
            getattr(handler, spec.name)(*spec.convert(*args))
        except BaseException as error:
            _report_callback_exception(error, spec.name, handler)
        finally:
            _THREAD_STATE.engine = previous

    return spec.ctype(thunk)


class _TableKeepalive:
    """What the library points at for one observer or canvas of a media
    player or recorder: the thunks and the C struct (the library copies the
    struct, not the functions it points at)."""

    __slots__ = ("cell", "thunks", "table")

    def __init__(self, handler: object, table: Any) -> None:
        self.cell = _HandlerCell(handler)
        self.thunks: List[Any] = []
        self.table = table
        table.struct_size = ctypes.sizeof(type(table))
        table.user_data = None

    def install(self, name: str, thunk: Any) -> None:
        self.thunks.append(thunk)
        setattr(self.table, name, thunk)

    def drop_handler(self) -> None:
        self.cell.handler = None


def _observer_keepalive(observer: object, table: Any, specs: Tuple[_CallbackSpec, ...], base: type,
                        names: "frozenset[str]", warned: "weakref.WeakSet[type]") -> _TableKeepalive:
    """The keepalive of a player source observer or a recorder observer: a
    thunk for each method `observer` overrides (of `base`)."""
    keep = _TableKeepalive(observer, table)
    _warn_unknown_callbacks(observer, names, warned)
    for spec in specs:
        if _overrides(observer, spec.name, base):
            keep.install(spec.name, _make_media_event_thunk(keep.cell, spec))
    return keep


def _make_player_frame_thunk(cell: _HandlerCell, ctype: Any, label: str, make_frame: Callable[[int, Any], Any],
                             with_uid: bool) -> Any:
    """The thunk of a player's canvas (``on_frame(uid, frame)``) or frame
    observer (``callback(frame)``), on the player's thread: the frame is made
    by `make_frame` from the C argument before it (uid or player id) and the
    C frame, and invalidated when the call returns."""

    def thunk(_engine: Optional[int], _user_data: Optional[int], first: int, pointer: Any) -> None:
        function = cell.handler
        if function is None or not pointer:
            return
        depth = getattr(_THREAD_STATE, "player_depth", 0)
        _THREAD_STATE.player_depth = depth + 1
        frame: Any = None
        try:
            frame = make_frame(int(first), pointer.contents)
            if with_uid:
                function(int(first), frame)  # type: ignore[operator]
            else:
                function(frame)  # type: ignore[operator]
        except BaseException as error:
            _report_callback_exception(error, label, function)
        finally:
            if frame is not None:
                frame._invalidate()
            _THREAD_STATE.player_depth = depth

    return ctype(thunk)


def _frame_callback_keepalive(kind: str, function: Callable[..., Any], render_mode: int = 0, mirror_mode: int = 0,
                              view_width: int = 0, view_height: int = 0) -> _TableKeepalive:
    """The keepalive of a player's canvas (`kind` "view"), audio frame
    observer ("audio") or video frame observer ("video") calling `function`."""
    if kind == "view":
        keep = _TableKeepalive(function, _ffi.VideoCanvas())
        keep.table.uid = 0
        keep.table.render_mode = render_mode
        keep.table.mirror_mode = mirror_mode
        keep.table.view_width = view_width
        keep.table.view_height = view_height
        ctype = _callback_ctype("agoraish_video_canvas", "on_frame")
        keep.install("on_frame", _make_player_frame_thunk(
            keep.cell, ctype, "MediaPlayer.set_view on_frame", lambda uid, raw: VideoFrame(uid, raw), True))
    elif kind == "audio":
        keep = _TableKeepalive(function, _ffi.MediaPlayerAudioFrameObserverTable())
        ctype = _callback_ctype("agoraish_media_player_audio_frame_observer", "on_frame")
        keep.install("on_frame", _make_player_frame_thunk(
            keep.cell, ctype, "MediaPlayer audio frame observer", lambda _id, raw: AudioFrame(raw, writable=False),
            False))
    else:
        keep = _TableKeepalive(function, _ffi.MediaPlayerVideoFrameObserverTable())
        ctype = _callback_ctype("agoraish_media_player_video_frame_observer", "on_frame")
        keep.install("on_frame", _make_player_frame_thunk(
            keep.cell, ctype, "MediaPlayer video frame observer", lambda _id, raw: VideoFrame(0, raw), False))
    return keep


class _PlayerCallbacks:
    """The observers and canvas of one media player that the library may call.

    ``current`` holds the registered one of each kind ("source", "audio",
    "video", "view"); ``kept`` every one registered since the player was
    created, replaced ones included: the library does not say that a
    registration waits for a callback of the one it replaces, but it does say
    that after ``agoraish_engine_destroy_media_player`` returns no callback
    of the player runs (unless destroyed from one of them). So everything is
    kept until the player is destroyed from outside its callbacks (then
    dropped), or for the life of the process otherwise.
    """

    __slots__ = ("_call_lock", "_state_lock", "current", "kept")

    def __init__(self) -> None:
        self._call_lock = threading.Lock()  # serializes registrations made outside callbacks
        self._state_lock = threading.Lock()  # guards the fields below; never held across a C call
        self.current: Dict[str, _TableKeepalive] = {}
        self.kept: List[_TableKeepalive] = []

    def _swap(self, kind: str, keep: Optional[_TableKeepalive]) -> None:
        with self._state_lock:
            old = self.current.pop(kind, None)
            if old is not None:
                old.drop_handler()  # the user's callable is dropped at once; its thunks do nothing
            if keep is not None:
                self.current[kind] = keep
                self.kept.append(keep)

    def register(self, kind: str, call: Callable[[Optional[Any]], int], keep: Optional[_TableKeepalive]) -> int:
        """Calls the C registration `call` with `keep`'s struct (NULL for None);
        on success `keep` replaces the current one of `kind`."""
        table = ctypes.byref(keep.table) if keep is not None else None
        if _in_player_callback() or _in_event_callback():
            # Holding _call_lock here could deadlock with a call that waits in
            # the library for this very callback to finish.
            rc = call(table)
            if rc == 0:
                self._swap(kind, keep)
            return rc
        with self._call_lock:
            rc = call(table)
            if rc == 0:
                self._swap(kind, keep)
        return rc

    def drop_handler(self) -> None:
        with self._state_lock:
            kept = list(self.kept)
        for keep in kept:
            keep.drop_handler()


# --------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------


class RtcEngine:
    """An engine (Agora's IRtcEngine): create, configure, release.

    Args:
        app_id: 1..128 printable ASCII characters (-101 otherwise).
        handler: an ``EventHandler`` (or any object with ``on_*`` methods),
            or None. The engine keeps it referenced until release.
        server_url: "ws://host:port" or "wss://host:port"; None or "" selects
            the environment variable AGORAISH_SERVER, then "ws://127.0.0.1:7450".
        log_file: the log file; None or "" selects the default
            (AGORAISH_LOG_DIR, $XDG_STATE_HOME/agoraish, ...). Read it back
            with ``log_file``.
        log_file_size_kb: size of one log file; 0 or -1 for the default 1024.
        log_level: a ``LogLevel``; 0 selects INFO.
        area_code: an ``AreaCode`` bit set; 0 selects GLOB.

    Raises:
        AgoraishError: the library refused the configuration
            (``agoraish_get_last_error()``: -2, -101 or -1).

    Owner: the caller, until ``release()``; usable as a context manager.
    Thread: every method may be called from any thread. Callbacks run on
    the engine's event thread.
    """

    def __init__(
        self,
        app_id: str,
        handler: Optional[object] = None,
        *,
        server_url: Optional[str] = None,
        log_file: Optional[StrPath] = None,
        log_file_size_kb: int = 0,
        log_level: int = 0,
        area_code: int = 0,
    ) -> None:
        self._handle: Optional[int] = None
        self._keepalive: Optional[_Keepalive] = None
        self._observers = _ObserverRegistry()
        self._sinks = _SinkRegistry()
        self._video_observers = _VideoObserverRegistry()
        self._encoded_observers = _EncodedObserverRegistry()
        self._data_lock = threading.Lock()  # serializes the metadata and packet observer registrations
        self._metadata_keepalive: Optional[_MetadataKeepalive] = None
        self._packet_keepalive: Optional[_PacketKeepalive] = None
        self._lock = threading.Lock()
        self._releases_in_flight = 0
        self._releases_overlapped = False
        self._handler = handler
        # join_channel_ex connections (ABI 0.11), guarded by _ex_lock: the
        # handlers' keepalives (kept until release), the canvases of each
        # connection joined, and the joins running now.
        self._ex_lock = threading.Lock()
        self._ex_keepalives: List[_ExKeepalive] = []
        self._ex_sinks: Dict[RtcConnection, _SinkRegistry] = {}
        self._ex_joins_in_flight = 0
        # Media players and recorders (ABI 0.13), guarded by _media_lock: the
        # callbacks of each player by id (until it is destroyed), the
        # MediaPlayer and MediaRecorder objects by id (weakly, to mark them
        # destroyed), and the recorders' observers (kept until release).
        self._media_lock = threading.Lock()
        self._player_callbacks: Dict[int, _PlayerCallbacks] = {}
        self._players: "weakref.WeakValueDictionary[int, MediaPlayer]" = weakref.WeakValueDictionary()
        self._recorders: "weakref.WeakValueDictionary[int, MediaRecorder]" = weakref.WeakValueDictionary()
        self._recorder_keepalives: List[_TableKeepalive] = []
        # The spatial audio engine's Python object (ABI 0.14), made by the first
        # spatial_audio() call; guarded by _media_lock.
        self._spatial: Optional["LocalSpatialAudioEngine"] = None

        area = operator.index(area_code)
        if -(2**31) <= area < 0:
            area &= 0xFFFFFFFF  # (int)0xFFFFFFFF, the header's AREA_CODE_GLOB
        app_id_bytes = _c_string(app_id, "app_id")
        server_bytes = _c_string(server_url, "server_url")
        log_file_bytes = _c_string(log_file, "log_file")
        config = _ffi.EngineConfig()
        config.struct_size = ctypes.sizeof(_ffi.EngineConfig)
        config.app_id = app_id_bytes
        config.server_url = server_bytes
        config.log_file = log_file_bytes
        config.log_file_size_kb = _c_int(log_file_size_kb, "log_file_size_kb")
        config.log_level = _c_int(log_level, "log_level")
        config.area_code = _c_uint(area, "area_code")

        keepalive = _Keepalive(handler)
        config.event_handler = ctypes.pointer(keepalive.table)
        handle = _ffi.agoraish_engine_create(ctypes.byref(config))
        if not handle:
            code = _ffi.agoraish_get_last_error()
            raise _library_error(code or -_ffi.AGORAISH_ERR_FAILED, "agoraish_engine_create")
        self._handle = handle
        self._keepalive = keepalive
        _LIVE.add(self)

    # -- lifetime ------------------------------------------------------------

    @property
    def handle(self) -> int:
        """The raw ``agoraish_engine_t *`` token (stale after release).

        Thread: any.
        """
        return self._handle or 0

    @property
    def handler(self) -> Optional[object]:
        """The event handler given at creation (None after release).

        Thread: any.
        """
        return self._handler

    @property
    def released(self) -> bool:
        """Whether ``release()`` has succeeded on this engine.

        Thread: any.
        """
        return self._keepalive is None

    def release(self, sync: bool = True) -> None:
        """Releases the engine and everything it owns (Agora's release). Idempotent.

        Args:
            sync: True waits until a callback already running has returned
                and the event thread has ended. False returns at once; the
                callback objects are then kept for the life of the process
                (see the module docstring).

        Render sinks (``setup_remote_video``, ``setup_local_video``), the
        video frame observer and the encoded frame observer are removed first, and the media players
        (``create_media_player``) are destroyed. The callback objects of the
        metadata and packet observers (see ``register_media_metadata_observer``)
        are kept for the life of the process; their observers are dropped.
        A ``MediaPlayer`` or ``MediaRecorder`` of the engine answers -7 afterwards.

        Raises:
            AgoraishError: -5 when called from one of this engine's own
                event callbacks or render sinks, or from inside any raw audio
                observer callback (release it after the callback returns);
                nothing is removed then.

        Thread: any, except this engine's event thread and audio frame
        observer callbacks.
        """
        with self._lock:
            if self._releases_in_flight:
                self._releases_overlapped = True
            self._releases_in_flight += 1
        rc = -_ffi.AGORAISH_ERR_FAILED
        video_detached = observer_detached = encoded_detached = connection_sinks_detached = False
        players_detached = False
        # From inside an event callback (of another engine: this one's is
        # refused) the library does not wait for this engine's threads.
        waits = sync and not _in_event_callback()
        try:
            detached = self._detach_audio_frame_observer()
            video_detached = self._detach_video_sinks()
            observer_detached = self._detach_video_frame_observer()
            encoded_detached = self._detach_video_frame_observer("_encoded_observers")
            connection_sinks_detached = self._detach_connection_sinks()
            players_detached = self._detach_media_players()
            rc = _ffi.agoraish_engine_release(self.handle, 1 if sync else 0)
        finally:
            with self._lock:
                self._releases_in_flight -= 1
                keepalive = None
                if rc == 0:
                    keepalive, self._keepalive = self._keepalive, None
                    self._handler = None
                overlapped = self._releases_overlapped
        if rc == 0:
            self._retire_audio_frame_observers(detached)
            self._retire_video_sinks(video_detached)
            self._retire_video_frame_observers(observer_detached)
            self._retire_video_frame_observers(encoded_detached, "_encoded_observers")
            self._retire_data_observers()
            self._retire_connections(connection_sinks_detached, waits and not overlapped)
            self._retire_media(players_detached, waits and not overlapped)
        if keepalive is not None:
            _LIVE.discard(self)
            if waits and not overlapped:
                keepalive.drop_handler()  # no callback runs any more: drop it with the engine
            else:
                # Another release ran at the same time (its sync or not is
                # unknown here), or this one did not wait: keep the thunks.
                _keep_forever(keepalive)
        _check(rc, "release")

    def __enter__(self) -> "RtcEngine":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release(sync=True)

    def _detach_audio_frame_observer(self) -> bool:
        """Before release: removes the audio frame observer, which waits for its
        callbacks in progress. True when the library can call no observer thunk
        any more (also when there was none); False when that cannot be known
        (called from an observer callback, from inside a render sink or from
        this engine's event thread, where release is refused and the observer
        must stay)."""
        registry = getattr(self, "_observers", None)
        if registry is None or not registry.alive:
            return True
        if _in_video_sink() or _in_observer_callback() or _on_event_thread_of(self.handle):
            return False
        try:
            return registry.register(self.handle, None) == 0 and not registry.alive
        except BaseException:
            return False

    def _retire_audio_frame_observers(self, detached: bool) -> None:
        """After a successful release: drops the observers, keeping their thunks
        for the life of the process unless `detached` proved them unused."""
        registry = getattr(self, "_observers", None)
        if registry is None:
            return
        alive, registry.alive, registry.current = registry.alive, [], None
        for keep in alive:
            if detached:
                keep.drop_handler()
            else:
                _keep_forever(keep)

    def _detach_video_sinks(self) -> bool:
        """Before release: unbinds every render sink, which waits for a picture
        being delivered. True when the library can call no sink thunk any more
        (also when there was none); False when that cannot be known (called
        from inside a render sink, from an audio observer callback or from
        this engine's event thread, where release is refused anyway)."""
        registry = getattr(self, "_sinks", None)
        if registry is None:
            return True
        with registry._state_lock:
            if not registry.bound and not registry.retired:
                return True
        if _in_video_sink() or _in_observer_callback() or _on_event_thread_of(self.handle):
            return False
        try:
            return registry.unbind_all(self.handle)
        except BaseException:
            return False

    def _retire_video_sinks(self, detached: bool) -> None:
        """After a successful release: drops the render sinks, keeping their
        thunks for the life of the process unless `detached` proved them unused."""
        registry = getattr(self, "_sinks", None)
        if registry is None:
            return
        for keep in registry.take_all():
            if detached:
                keep.drop_handler()
            else:
                _keep_forever(keep)

    def _detach_video_frame_observer(self, attribute: str = "_video_observers") -> bool:
        """Before release: removes the video frame observer (or, with
        `attribute` "_encoded_observers", the encoded frame observer), which
        waits for a callback in progress on a video thread. True when the
        library can call no render thunk of an observer any more (also when
        there was none); False when that cannot be known (see
        ``_detach_video_sinks``). Capture and pre-encode thunks are kept for
        the life of the process in any case."""
        registry = getattr(self, attribute, None)
        if registry is None:
            return True
        with registry._state_lock:
            if registry.current is None and not registry.retired:
                return True
        if _in_video_sink() or _in_observer_callback() or _on_event_thread_of(self.handle):
            return False
        try:
            return registry.register(self.handle, None) == 0 and not registry.retired
        except BaseException:
            return False

    def _retire_video_frame_observers(self, detached: bool, attribute: str = "_video_observers") -> None:
        """After a successful release: drops the video frame observers (or
        those of `attribute`), keeping their thunks for the life of the process
        unless `detached` proved them unused (never for capture and pre-encode
        thunks)."""
        registry = getattr(self, attribute, None)
        if registry is None:
            return
        for keep in registry.take_all():
            if detached and not keep.local:
                keep.drop_handler()
            else:
                _keep_forever(keep)

    def _detach_connection_sinks(self) -> bool:
        """Before release: unbinds the render sinks of every ``join_channel_ex``
        connection (``setup_remote_video_ex``), which waits for a picture being
        delivered on the connection's video thread. True when the library can
        call none of their thunks any more (also when there were none)."""
        with self._ex_lock:
            registries = list(self._ex_sinks.values())
        if not registries:
            return True
        if _in_video_sink() or _in_observer_callback() or _on_event_thread_of(self.handle):
            return False
        try:
            return all([registry.unbind_all(self.handle) for registry in registries])
        except BaseException:
            return False

    def _retire_connections(self, sinks_detached: bool, waited: bool) -> None:
        """After a release: drops the connections' handlers and sinks, keeping
        their thunks for the life of the process unless the release `waited`
        for the event thread (and no ``join_channel_ex`` ran meanwhile), or,
        for the sinks, `sinks_detached` proved them unused."""
        with self._ex_lock:
            keepalives, self._ex_keepalives = self._ex_keepalives, []
            registries, self._ex_sinks = list(self._ex_sinks.values()), {}
            joining = self._ex_joins_in_flight > 0
        for keep in keepalives:
            if waited and not joining:
                keep.drop_handler()
            else:
                _keep_forever(keep)
        for registry in registries:
            for sink in registry.take_all():
                if sinks_detached:
                    sink.drop_handler()
                else:
                    _keep_forever(sink)

    def _detach_media_players(self) -> bool:
        """Before release: destroys the media players, which waits for their
        callbacks in progress, and drops their callbacks. True when the library
        can call none of their thunks any more (also when there were none);
        False when that cannot be known (called from inside a player's, a
        render sink's or an audio observer's callback, or from this engine's
        event thread, where the library does not wait or release is refused);
        nothing is destroyed then."""
        lock = getattr(self, "_media_lock", None)
        if lock is None:
            return True
        with lock:
            ids = list(self._player_callbacks)
        if not ids:
            return True
        if _in_video_sink() or _in_observer_callback() or _in_player_callback() or _on_event_thread_of(self.handle):
            return False
        try:
            for player_id in ids:
                rc = _ffi.agoraish_engine_destroy_media_player(self.handle, player_id)
                if rc not in (0, -_ffi.AGORAISH_ERR_INVALID_ARGUMENT):  # -2: destroyed meanwhile
                    return False
                with lock:
                    callbacks = self._player_callbacks.pop(player_id, None)
                if callbacks is not None:
                    callbacks.drop_handler()
            return True
        except BaseException:
            return False

    def _retire_media(self, players_detached: bool, waited: bool) -> None:
        """After a release: drops the callbacks of the media players and
        recorders, keeping their thunks for the life of the process unless
        `players_detached` proved the players' unused, or, for the recorders'
        observers (event thread only), the release `waited` for the event thread."""
        lock = getattr(self, "_media_lock", None)
        if lock is None:
            return
        with lock:
            players, self._player_callbacks = list(self._player_callbacks.values()), {}
            recorders, self._recorder_keepalives = self._recorder_keepalives, []
        for callbacks in players:
            if players_detached:
                callbacks.drop_handler()
            else:
                _keep_forever(callbacks)
        for keep in recorders:
            if waited:
                keep.drop_handler()
            else:
                _keep_forever(keep)

    def __del__(self) -> None:
        keepalive = getattr(self, "_keepalive", None)
        handle = getattr(self, "_handle", None)
        if keepalive is None or not handle:
            return
        try:
            detached = self._detach_audio_frame_observer()
            video_detached = self._detach_video_sinks()
            observer_detached = self._detach_video_frame_observer()
            encoded_detached = self._detach_video_frame_observer("_encoded_observers")
            connection_sinks_detached = self._detach_connection_sinks()
            players_detached = self._detach_media_players()
            rc = _ffi.agoraish_engine_release(handle, 1)
            self._retire_data_observers()
            if rc == 0:
                self._retire_audio_frame_observers(detached)
                self._retire_video_sinks(video_detached)
                self._retire_video_frame_observers(observer_detached)
                self._retire_video_frame_observers(encoded_detached, "_encoded_observers")
                self._retire_connections(connection_sinks_detached, not _in_event_callback())
                self._retire_media(players_detached, not _in_event_callback())
            else:
                self._retire_connections(False, False)
                self._retire_media(False, False)
                registry = getattr(self, "_observers", None)
                for keep in list(registry.alive if registry is not None else ()):
                    _keep_forever(keep)
                sinks = getattr(self, "_sinks", None)
                for keep in sinks.take_all() if sinks is not None else ():
                    _keep_forever(keep)
                for attribute in ("_video_observers", "_encoded_observers"):
                    video_observers = getattr(self, attribute, None)
                    for keep in video_observers.take_all() if video_observers is not None else ():
                        _keep_forever(keep)
            if rc == -_ffi.AGORAISH_ERR_REFUSED:
                # Collected on its own event thread: release from another thread.
                _release_in_background(handle, keepalive)
            elif rc == 0:
                keepalive.drop_handler()
            else:
                _keep_forever(keepalive)
        except BaseException:  # interpreter shutdown: modules may be gone
            pass

    def __repr__(self) -> str:
        state = "released" if self.released else "live"
        return f"<agoraish.RtcEngine handle=0x{self.handle:016x} {state}>"

    # -- parameters ------------------------------------------------------------

    def set_parameters(self, params: Union[str, bytes, Mapping[str, Any]]) -> None:
        """Sets private parameters (Agora's setParameters).

        Args:
            params: a JSON object as text, or a mapping (encoded with
                ``json.dumps``), for example ``{"rtc.log_filter": 2063}``.
                Known keys: rtc.log_file, rtc.log_filter, rtc.log_level,
                rtc.log_size, rtc.server_url, rtc.tls_ca_file,
                rtc.network_simulation, and (ABI 0.14) che.audio.aec.enable,
                che.audio.ans.enable and che.audio.agc.enable: True or False
                turns echo cancellation, noise suppression or gain control of
                captured audio on or off whatever the audio scenario, None
                returns to the scenario's choice (see include/agoraish.h). The
                whole object is checked before any key is applied.

        Raises:
            AgoraishError: -2 for bad JSON, an unknown key or a bad value;
                -7 if the engine is released.

        On success ``on_api_call_executed(0, "setParameters", json)`` follows.

        Thread: any.
        """
        if isinstance(params, (str, bytes, bytearray)):
            text = params
        else:
            text = json.dumps(dict(params))
        rc = _ffi.agoraish_engine_set_parameters(self.handle, _c_string(text, "params"))
        _check(rc, "set_parameters")

    def get_parameter_text(self, key: str) -> str:
        """Reads one parameter as JSON text (a string value is quoted).

        Raises:
            AgoraishError: -2 for an unknown key; -7 if the engine is released.

        Thread: any.
        """
        key_bytes = _c_string(key, "key")
        return _read_string(
            lambda buf, length: _ffi.agoraish_engine_get_parameter(self.handle, key_bytes, buf, length),
            f"get_parameter({key!r})",
        )

    def get_parameter(self, key: str) -> Any:
        """Reads one parameter, decoded from JSON (Agora's getParameter).

        Besides the keys of ``set_parameters``, "rtc.app_id" and
        "rtc.area_code" can be read.

        Raises:
            AgoraishError: -2 for an unknown key; -7 if the engine is released.

        Thread: any.
        """
        return json.loads(self.get_parameter_text(key))

    @property
    def log_file(self) -> str:
        """The path of the current log file (parameter "rtc.log_file").

        Thread: any.
        """
        value = self.get_parameter("rtc.log_file")
        return str(value)

    # -- logging ---------------------------------------------------------------

    def set_log_file(self, path: StrPath) -> None:
        """Switches logging to `path` (Agora's setLogFile); its directory must exist.

        Raises:
            AgoraishError: -2 if the path is empty, too long or cannot be
                opened (the previous file stays in use); -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_log_file(self.handle, _c_string(path, "path"))
        _check(rc, "set_log_file")

    def set_log_filter(self, log_filter: int) -> None:
        """Sets which log lines are written (Agora's setLogFilter): a ``LogFilter`` bit set.

        Raises:
            AgoraishError: -2 for bits outside LOG_FILTER_MASK; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_log_filter(self.handle, _c_uint(log_filter, "filter"))
        _check(rc, "set_log_filter")

    def set_log_level(self, level: int) -> None:
        """Sets the log level (Agora 4.x setLogLevel): a ``LogLevel``.

        Raises:
            AgoraishError: -2 for other values; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_log_level(self.handle, _c_int(level, "level"))
        _check(rc, "set_log_level")

    def set_log_file_size(self, size_kb: int) -> None:
        """Sets the size of one log file in KB (Agora's setLogFileSize).

        Values from 1 to 128 are raised to 128; 0 and values above 20480 are -2.
        When the file would grow past the size, the files rotate
        (``name_1.log`` .. ``name_4.log``).

        Raises:
            AgoraishError: -2 out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_log_file_size(self.handle, _c_uint(size_kb, "size_kb"))
        _check(rc, "set_log_file_size")

    # -- channels ------------------------------------------------------------------

    def set_channel_profile(self, profile: int) -> None:
        """Sets the channel profile (Agora's setChannelProfile): a ``ChannelProfile``. Before joining only.

        All users of a channel must use the same profile: the server refuses a
        join with another one (``on_error(5, ...)``, then FAILED with
        REJECTED_BY_SERVER).

        Raises:
            AgoraishError: -2 unknown profile; -5 in or joining a channel; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_channel_profile(self.handle, _c_int(profile, "profile"))
        _check(rc, "set_channel_profile")

    def set_client_role(self, role: int) -> None:
        """Sets the client role (Agora's setClientRole): a ``ClientRole``.

        Before joining it sets the role used to join; while connected it asks
        the server. ``on_client_role_changed`` follows when the role changed.
        In live broadcasting, remote users see ``on_user_joined`` (became a
        broadcaster) or ``on_user_offline`` with BECOME_AUDIENCE.

        Raises:
            AgoraishError: -2 unknown role; -5 while joining or reconnecting; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_client_role(self.handle, _c_int(role, "role"))
        _check(rc, "set_client_role")

    def join_channel(self, token: Optional[str], channel: str, info: Optional[str] = None, uid: int = 0) -> None:
        """Joins a channel (Agora's joinChannel). Asynchronous.

        ``on_connection_state_changed(CONNECTING, CONNECTING)`` follows, then
        ``on_join_channel_success`` or FAILED with the reason.

        Args:
            token: the token, or None/"" for an app without a certificate.
            channel: 1..63 bytes of a-z A-Z 0-9 space and
                ``! # $ % & ( ) + - : ; < = . > ? @ [ ] ^ _ { } | ~ ,``.
            info: optional extra information; never sent to other users.
            uid: 1..2**32-1, or 0 to let the server choose one.

        Raises:
            AgoraishError: -102 bad channel name; -17 already in or joining a
                channel; -2 strings C cannot take; -5 a ws:// server URL to a
                host other than loopback without ``rtc.allow_insecure_signaling``;
                -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_join_channel(
            self.handle,
            _c_string(token, "token"),
            _c_string(channel, "channel"),
            _c_string(info, "info"),
            _c_uint(uid, "uid"),
        )
        _check(rc, "join_channel")

    def join_channel_with_user_account(self, token: Optional[str], channel: str, user_account: str) -> None:
        """Joins a channel with a user account (Agora's joinChannelWithUserAccount).

        The server maps the account to a uid that stays the same for the app;
        ``on_local_user_registered`` and ``on_join_channel_success`` follow.

        Raises:
            AgoraishError: as ``join_channel``, and -134 for a bad account
                (empty or longer than 255 bytes).

        Thread: any.
        """
        rc = _ffi.agoraish_engine_join_channel_with_user_account(
            self.handle,
            _c_string(token, "token"),
            _c_string(channel, "channel"),
            _c_string(user_account, "user_account"),
        )
        _check(rc, "join_channel_with_user_account")

    def register_local_user_account(self, app_id: str, user_account: str) -> None:
        """Registers a user account ahead of joining (Agora's registerLocalUserAccount).

        The server answers with the account's uid through ``on_local_user_registered``.

        Args:
            app_id: must equal the engine's app id.

        Raises:
            AgoraishError: -2 another app id; -134 bad account; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_register_local_user_account(
            self.handle, _c_string(app_id, "app_id"), _c_string(user_account, "user_account")
        )
        _check(rc, "register_local_user_account")

    def get_user_info_by_user_account(self, user_account: str) -> UserInfo:
        """The ``(uid, user_account)`` of an account this engine has learned of (getUserInfoByUserAccount).

        Raises:
            AgoraishError: -2 for an unknown account; -7 if released.

        Thread: any.
        """
        info = _ffi.UserInfo()
        rc = _ffi.agoraish_engine_get_user_info_by_user_account(
            self.handle, _c_string(user_account, "user_account"), ctypes.byref(info)
        )
        _check(rc, "get_user_info_by_user_account")
        return UserInfo(int(info.uid), _text(info.user_account))

    def get_user_info_by_uid(self, uid: int) -> UserInfo:
        """The ``(uid, user_account)`` of a uid this engine has learned of (getUserInfoByUid).

        Raises:
            AgoraishError: -2 for an unknown uid; -7 if released.

        Thread: any.
        """
        info = _ffi.UserInfo()
        rc = _ffi.agoraish_engine_get_user_info_by_uid(self.handle, _c_uint(uid, "uid"), ctypes.byref(info))
        _check(rc, "get_user_info_by_uid")
        return UserInfo(int(info.uid), _text(info.user_account))

    def leave_channel(self) -> None:
        """Leaves the channel (Agora's leaveChannel).

        ``on_leave_channel(stats)`` follows, then
        ``on_connection_state_changed(DISCONNECTED, LEAVE_CHANNEL)``. Also ends a
        join in progress, a reconnection, or a FAILED state.

        Raises:
            AgoraishError: -18 not in (or joining) a channel; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_leave_channel(self.handle), "leave_channel")

    def renew_token(self, token: str) -> None:
        """Renews the token (Agora's renewToken).

        While connected the server checks it (``on_error`` 109 or 110 if it
        refuses; the old token stays in force). After the token expired
        (FAILED, TOKEN_EXPIRED) the engine rejoins with it.

        Raises:
            AgoraishError: -2 empty token; -113 not in a channel; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_renew_token(self.handle, _c_string(token, "token")), "renew_token")

    def switch_channel(self, token: Optional[str], channel: str) -> None:
        """Switches to another channel as audience in live broadcasting (Agora's switchChannel).

        ``on_leave_channel`` follows, then ``on_join_channel_success``.

        Raises:
            AgoraishError: -102 bad channel name; -5 not audience in live
                broadcasting; -113 not connected to a channel; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_switch_channel(
            self.handle, _c_string(token, "token"), _c_string(channel, "channel")
        )
        _check(rc, "switch_channel")

    def preload_channel(self, token: Optional[str], channel_id: str, uid: int) -> None:
        """Preloads a channel (Agora's preloadChannel), for an audience that hops
        between channels (QuickSwitchChannel).

        The engine opens a signaling connection for `channel_id` and `uid` now,
        on which the server checks the app, the channel name and the token as
        for a join. The next join of that channel with that uid
        (``join_channel`` or ``join_channel_with_options`` after
        ``leave_channel``, or ``switch_channel``) goes on that connection and
        asks for fast start: the channel's audio is heard within a few tens of
        milliseconds of the join. The newest 20 preloads are kept; the same
        channel and uid again replaces the token. A token the server refuses
        is logged and the preload does nothing (the join reports the error).
        Released with the engine.

        Args:
            token: the token, or None/"" for none; at most 2048 bytes.
            channel_id: the channel name (the rules of ``join_channel``).
            uid: the uid the join will use.

        Raises:
            AgoraishError: -102 bad channel name; -2 None `channel_id`, a
                token over 2048 bytes, strings C cannot take or a uid outside
                0..2**32-1; -5 a ws:// server URL to a host other than
                loopback; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_preload_channel(
            self.handle, _c_string(token, "token"), _c_string(channel_id, "channel_id"), _c_uint(uid, "uid")
        )
        _check(rc, "preload_channel")

    def update_preload_channel_token(self, token: Optional[str]) -> None:
        """Gives every preloaded channel a new token (Agora's
        updatePreloadChannelToken); the server checks it again for each.

        Args:
            token: the token, or None/"" for none; at most 2048 bytes.

        Raises:
            AgoraishError: -8 nothing preloaded; -2 a token over 2048 bytes or
                a string C cannot take; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_update_preload_channel_token(self.handle, _c_string(token, "token"))
        _check(rc, "update_preload_channel_token")

    def get_call_id(self) -> str:
        """The id of the current or last call (Agora's getCallId).

        Raises:
            AgoraishError: -113 no call yet; -7 if released.

        Thread: any.
        """
        return _read_string(
            lambda buf, length: _ffi.agoraish_engine_get_call_id(self.handle, buf, length), "get_call_id"
        )

    # -- connections: media options and several channels (ABI 0.11) ------------------

    def join_channel_with_options(
        self, token: Optional[str], channel: str, uid: int, options: ChannelMediaOptions
    ) -> None:
        """Joins a channel with media options (Agora 4.x joinChannel(token,
        channelId, uid, options)): applies `options`, then joins as
        ``join_channel`` does. Asynchronous, with the same events.

        Args:
            token: the token, or None/"" (then ``options.token``, if set).
            channel: the channel name (the rules of ``join_channel``).
            uid: 1..2**32-1, or 0 to let the server choose one.
            options: a ``ChannelMediaOptions``; its None fields are left as they are.

        Raises:
            AgoraishError: the errors of ``join_channel`` (-102 bad channel
                name, -5 a ws:// URL to another host, -7 if released); -17
                already in a channel; -2 None `options`, a field out of range
                (a role or profile the header does not list), an unknown
                custom audio track, an unknown custom video track or one of
                the other kind (raw for ``publish_encoded_video_track``,
                encoded for ``publish_custom_video_track``), or the camera
                and a custom video track at once.
            TypeError: `options` is neither None nor a ``ChannelMediaOptions``.

        Thread: any.
        """
        raw = _c_media_options(options)
        rc = _ffi.agoraish_engine_join_channel_with_options(
            self.handle, _c_string(token, "token"), _c_string(channel, "channel"), _c_uint(uid, "uid"), _ref(raw)
        )
        _check(rc, "join_channel_with_options")

    def update_channel_media_options(self, options: ChannelMediaOptions) -> None:
        """Changes what the engine's own connection publishes and receives
        (Agora's updateChannelMediaOptions), in a channel or before joining.

        Args:
            options: a ``ChannelMediaOptions``; its None fields are left as
                they are. A `token` renews the token in a channel.

        Raises:
            AgoraishError: -2 None `options`, a field out of range, an
                unknown custom audio track, an unknown custom video track or
                one of the other kind, or the camera and a custom video track
                at once; -5 `channel_profile` in a channel; -113 a `token`
                outside a channel; -7 if released.
            TypeError: `options` is neither None nor a ``ChannelMediaOptions``.

        Thread: any.
        """
        raw = _c_media_options(options)
        _check(_ffi.agoraish_engine_update_channel_media_options(self.handle, _ref(raw)),
               "update_channel_media_options")

    def join_channel_ex(
        self,
        token: Optional[str],
        connection: RtcConnection,
        options: Optional[ChannelMediaOptions] = None,
        handler: Optional[object] = None,
    ) -> "Connection":
        """Joins one more channel (Agora's joinChannelEx): the engine becomes a
        member of ``connection.channel_id`` as ``connection.local_uid``,
        besides its own channel and its other connections. Asynchronous:
        ``handler.on_connection_state_changed(connection, CONNECTING, ...)``
        follows, then ``on_join_channel_success(connection, uid, elapsed)``.

        The connection has its own signaling session, media, data streams,
        encryption and statistics; the engine's audio device is shared
        (capture goes to every connection publishing the microphone, the
        remote audio of all connections is mixed for playout). The camera or
        external video source, the external audio source and sink and the raw
        audio and video observers stay with the engine's own connection.

        Args:
            token: None or "": none (or ``options.token``).
            connection: an ``RtcConnection`` (or a ``(channel_id, local_uid)`` pair).
            options: a ``ChannelMediaOptions``, or None for the defaults
                (publish the microphone, subscribe to everything, use the device).
            handler: an ``EventHandlerEx`` (or any object with its ``on_*``
                methods), or None. It receives the connection's events, on
                the engine's event thread; the engine's own handler does not.
                The engine keeps it, and the callback objects made for it,
                until the engine is released (a rejoin of the same connection
                after a leave makes new ones).

        Returns:
            A ``Connection``: the ``_ex`` methods of the connection.

        Raises:
            AgoraishError: -2 None `connection` or ``connection.channel_id``,
                or a bad option (``publish_camera_track=True``: the camera
                belongs to the engine's own connection; an unknown custom
                audio or video track, or a video track of the other kind);
                -102 bad channel name; -17 the engine already
                has this connection (or is itself in the channel with this
                uid); -5 ``AGORAISH_MAX_CONNECTIONS`` (16) connections exist;
                -7 if released.
            TypeError: a `connection` that is not a pair, an `options` that is
                not a ``ChannelMediaOptions``, or an ``EventHandler`` given
                as `handler` (its methods take other arguments: subclass
                ``EventHandlerEx``).

        Thread: any.
        """
        raw_connection = _c_connection(connection)
        raw_options = _c_media_options(options)
        token_bytes = _c_string(token, "token")
        if isinstance(handler, EventHandler) and not isinstance(handler, EventHandlerEx):
            raise TypeError("handler must be an EventHandlerEx (its callbacks receive the connection first), "
                            f"not the EventHandler {type(handler).__name__}")
        keep = _ExKeepalive(handler) if handler is not None else None
        with self._ex_lock:
            if keep is not None:
                self._ex_keepalives.append(keep)  # before the call: a release meanwhile sees it
            self._ex_joins_in_flight += 1
        try:
            rc = _ffi.agoraish_engine_join_channel_ex(
                self.handle, token_bytes, _ref(raw_connection), _ref(raw_options),
                ctypes.byref(keep.table) if keep is not None else None, None,
            )
        finally:
            with self._ex_lock:
                self._ex_joins_in_flight -= 1
        if rc != 0:
            if keep is not None:
                keep.drop_handler()  # its thunks stay with the engine: nothing calls the handler
            raise _library_error(rc, "join_channel_ex")
        key = _connection_key(raw_connection)
        sinks = _SinkRegistry(raw_connection)
        with self._ex_lock:
            stale = self._ex_sinks.get(key)
            self._ex_sinks[key] = sinks
        if stale is not None:  # a connection of the same name left without leave_channel_ex
            for sink in stale.take_all():
                _keep_forever(sink)
        return Connection(self, key, raw_connection, handler)

    def leave_channel_ex(self, connection: Union[RtcConnection, "Connection"]) -> None:
        """Leaves a connection's channel (Agora's leaveChannelEx). Asynchronous:
        ``on_leave_channel(connection, stats)`` then
        ``on_connection_state_changed(connection, DISCONNECTED, LEAVE_CHANNEL)``
        reach the connection's handler, then the connection ends. Other
        connections are not disturbed. Naming the engine's own channel and
        uid is ``leave_channel()``.

        The render sinks bound with ``Connection.setup_remote_video`` are
        dropped (their callback objects are kept for the life of the
        process: the connection's video thread ends on its own).

        Args:
            connection: an ``RtcConnection``, or a ``Connection``.

        Raises:
            AgoraishError: -2 None `connection` or ``connection.channel_id``;
                -18 no such connection; -7 if released.
            TypeError: a `connection` that is not a pair.

        Thread: any, also inside a callback.
        """
        raw = _c_connection(connection)
        _check(_ffi.agoraish_engine_leave_channel_ex(self.handle, _ref(raw)), "leave_channel_ex")
        with self._ex_lock:
            sinks = self._ex_sinks.pop(_connection_key(raw), None)
        for sink in sinks.take_all() if sinks is not None else ():
            _keep_forever(sink)

    # -- echo test -----------------------------------------------------------------

    def start_echo_test(self, interval_in_seconds: int) -> None:
        """Starts an echo test (Agora's startEchoTest), outside channels.

        The engine joins a private channel of the server in which its own audio
        (captured or pushed) comes back to it after `interval_in_seconds`, so a
        user hears the capture, network and playout path. The test channel's
        join and leave are not reported (no ``on_join_channel_success`` or
        ``on_leave_channel``); connection states are. Call
        ``stop_echo_test()`` before joining a channel: a join during the test
        raises -17.

        The join presents no token: where the app has a certificate the
        server refuses it; ``start_echo_test_with_config`` takes one.

        Args:
            interval_in_seconds: 2..10.

        Raises:
            AgoraishError: -2 interval outside 2..10 or no usable server URL;
                -5 in a channel or an echo test running; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_start_echo_test(self.handle, _c_int(interval_in_seconds, "interval_in_seconds"))
        _check(rc, "start_echo_test")

    def start_echo_test_with_config(self, config: EchoTestConfiguration) -> None:
        """Starts an echo test from an ``EchoTestConfiguration`` (Agora's
        startEchoTest(config)): as ``start_echo_test``, with the token and
        channel name its join presents.

        Where the app has a certificate the server checks that join like any
        other: `config.token` must be valid for `config.channel_id` ("echo"
        when None or "") and uid 0, the identity the test joins with (a token
        built for uid 0; one for another uid or an account is refused). A
        refused join is reported as on a channel:
        ``on_connection_state_changed(FAILED, INVALID_TOKEN)`` (or
        ``TOKEN_EXPIRED`` after ``on_request_token``); nothing is echoed and
        the test stays started until ``stop_echo_test()``.

        Raises:
            AgoraishError: -2 interval_in_seconds outside 2..10, enable_audio
                and enable_video both False, a channel_id that is not a valid
                channel name, strings C cannot take, or no usable server URL;
                -4 enable_video (video echo is not supported); -5 in a
                channel, an echo test running, or a last-mile test or probe
                running; -7 if released.
            TypeError: `config` is not an ``EchoTestConfiguration``.

        Thread: any.
        """
        if not isinstance(config, EchoTestConfiguration):
            raise TypeError(f"config must be an EchoTestConfiguration, not {type(config).__name__}")
        c = _ffi.EchoTestConfiguration()
        c.struct_size = ctypes.sizeof(_ffi.EchoTestConfiguration)
        c.enable_audio = 1 if config.enable_audio else 0
        c.enable_video = 1 if config.enable_video else 0
        c.token = _c_string(config.token, "token")
        c.channel_id = _c_string(config.channel_id, "channel_id")
        c.interval_in_seconds = _c_int(config.interval_in_seconds, "interval_in_seconds")
        rc = _ffi.agoraish_engine_start_echo_test_with_config(self.handle, ctypes.byref(c))
        _check(rc, "start_echo_test_with_config")

    def stop_echo_test(self) -> None:
        """Stops the echo test (Agora's stopEchoTest).

        Raises:
            AgoraishError: -5 no echo test running; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_stop_echo_test(self.handle), "stop_echo_test")

    # -- last-mile test and probe (ABI 0.7) ------------------------------------------

    def start_lastmile_probe_test(self, config: LastmileProbeConfig) -> None:
        """Probes the last mile before joining (Agora's startLastmileProbeTest).

        The engine joins a private channel of the server, sends probe
        packets at the expected uplink bitrate for 2 s and reads the server's
        feedback on them, then has the server send probes at the expected
        downlink bitrate for 2 s and measures them.
        ``on_lastmile_quality`` comes after the uplink phase,
        ``on_lastmile_probe_result`` about 5 s after the start; the private
        channel is then left (its join and leave are not reported). A join
        ends the probe.

        Where the app has a certificate the join presents `config.token`,
        which must be valid for `config.channel_id` ("probe" when None or "")
        and uid 0 (a token built for uid 0). A refused join reports
        ``on_connection_state_changed(FAILED, INVALID_TOKEN)`` (or
        ``TOKEN_EXPIRED``), then at once ``on_lastmile_probe_result`` with
        state UNAVAILABLE, and the probe ends.

        Args:
            config: a ``LastmileProbeConfig``: at least one direction probed,
                each probed direction's bitrate 100000..5000000 bps.

        Raises:
            AgoraishError: -2 no direction probed, a probed bitrate out of
                range (or not a C unsigned int), a channel_id that is not a
                valid channel name, strings C cannot take, or no usable server
                URL; -5 in a channel, during an echo test or while a last-mile
                test or probe runs; -7 if released.
            TypeError: `config` is not a ``LastmileProbeConfig``.

        Thread: any.
        """
        if not isinstance(config, LastmileProbeConfig):
            raise TypeError(f"config must be a LastmileProbeConfig, not {type(config).__name__}")
        c = _ffi.LastmileProbeConfig()
        c.struct_size = ctypes.sizeof(_ffi.LastmileProbeConfig)
        c.probe_uplink = 1 if config.probe_uplink else 0
        c.probe_downlink = 1 if config.probe_downlink else 0
        c.expected_uplink_bitrate = _c_uint(config.expected_uplink_bitrate, "expected_uplink_bitrate")
        c.expected_downlink_bitrate = _c_uint(config.expected_downlink_bitrate, "expected_downlink_bitrate")
        c.token = _c_string(config.token, "token")
        c.channel_id = _c_string(config.channel_id, "channel_id")
        rc = _ffi.agoraish_engine_start_lastmile_probe_test(self.handle, ctypes.byref(c))
        _check(rc, "start_lastmile_probe_test")

    def stop_lastmile_probe_test(self) -> None:
        """Ends a probe early (Agora's stopLastmileProbeTest); no result is reported.

        Raises:
            AgoraishError: -5 no probe running; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_stop_lastmile_probe_test(self.handle), "stop_lastmile_probe_test")

    def enable_lastmile_test(self) -> None:
        """Reports the last mile's quality every 2 s before joining (Agora's
        enableLastmileTest): 0.7 s of probes each way at the configured
        video bitrate (at least 100 kbps), then ``on_lastmile_quality``,
        repeated until ``disable_lastmile_test()`` or a join.

        Raises:
            AgoraishError: -2 no usable server URL; -5 in a channel, during an
                echo test or while a last-mile test or probe runs; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_enable_lastmile_test(self.handle), "enable_lastmile_test")

    def disable_lastmile_test(self) -> None:
        """Stops the last-mile test (Agora's disableLastmileTest).

        Raises:
            AgoraishError: -5 not running; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_disable_lastmile_test(self.handle), "disable_lastmile_test")

    # -- data streams (ABI 0.8) --------------------------------------------------------

    def create_data_stream(self, reliable: bool, ordered: bool) -> int:
        """Creates a data stream (Agora's createDataStream(streamId, reliable, ordered)).

        Messages travel on the media path through the server to every other
        user of the channel (``on_stream_message`` there). A reliable stream
        retransmits what is lost until it arrives, delivering every message
        exactly once (in the order sent when `ordered`), or reports
        ``on_stream_message_error`` when a loss is not repaired within 5 s;
        an unreliable stream delivers what arrives (when `ordered`, never a
        message older than one delivered) and reports each gap. Streams end
        when the call ends (leave); at most ``AGORAISH_MAX_DATA_STREAMS`` (5) exist.

        Returns:
            The stream's id, 1..255.

        Raises:
            AgoraishError: -116 five streams exist; -7 if released.

        Thread: any.
        """
        stream_id = ctypes.c_int(0)
        rc = _ffi.agoraish_engine_create_data_stream(
            self.handle, ctypes.byref(stream_id), 1 if reliable else 0, 1 if ordered else 0
        )
        _check(rc, "create_data_stream")
        return stream_id.value

    def create_data_stream_with_config(self, sync_with_audio: bool, ordered: bool) -> int:
        """Creates an unreliable data stream from Agora's DataStreamConfig
        (createDataStream(streamId, config)): what is lost stays lost and is
        reported as a gap.

        Args:
            sync_with_audio: each message is delivered when the sender's audio
                of the same moment plays (held for what the receiver's jitter
                buffer holds of that user's audio).
            ordered: messages are delivered in the order sent (late ones are dropped).

        Returns:
            The stream's id, 1..255.

        Raises:
            AgoraishError: -116 five streams exist; -7 if released.

        Thread: any.
        """
        config = _ffi.DataStreamConfig()
        config.struct_size = ctypes.sizeof(_ffi.DataStreamConfig)
        config.sync_with_audio = 1 if sync_with_audio else 0
        config.ordered = 1 if ordered else 0
        stream_id = ctypes.c_int(0)
        rc = _ffi.agoraish_engine_create_data_stream_with_config(
            self.handle, ctypes.byref(stream_id), ctypes.byref(config)
        )
        _check(rc, "create_data_stream_with_config")
        return stream_id.value

    def send_stream_message(self, stream_id: int, data: Any) -> None:
        """Sends a message on a data stream (Agora's sendStreamMessage); copied
        before the call returns.

        Args:
            stream_id: an id from ``create_data_stream*`` in this call.
            data: a bytes-like object, 1..``AGORAISH_MAX_STREAM_MESSAGE_SIZE`` (1024) bytes.

        Raises:
            AgoraishError: -2 empty or an unknown stream; -114 more than 1024
                bytes; -115 the last second already holds 30 messages or this
                one would take it past 6144 bytes; -113 not in a call; -5 an
                audience member of a live broadcast; -7 if released.
            TypeError: `data` is not bytes-like.

        Thread: any.
        """
        payload = _payload(data, "data")
        rc = _ffi.agoraish_engine_send_stream_message(
            self.handle, _c_int(stream_id, "stream_id"), payload, len(payload)
        )
        _check(rc, "send_stream_message")

    def send_audio_metadata(self, data: Any) -> None:
        """Sends audio metadata to every other user of the channel, reliably
        (Agora 4.x's sendAudioMetadata): ``on_audio_metadata_received`` there.

        Args:
            data: a bytes-like object, 1..1024 bytes.

        Raises:
            AgoraishError: -2 empty or above 1024 bytes; -113 not in a call;
                -5 an audience member of a live broadcast; -7 if released.
            TypeError: `data` is not bytes-like.

        Thread: any.
        """
        payload = _payload(data, "data")
        _check(_ffi.agoraish_engine_send_audio_metadata(self.handle, payload, len(payload)), "send_audio_metadata")

    def register_media_metadata_observer(
        self, observer: Optional[object], metadata_type: int = MetadataType.VIDEO
    ) -> None:
        """Registers the video metadata source and sink (Agora's
        registerMediaMetadataObserver), or removes it with None.

        Args:
            observer: a ``MetadataObserver`` (or any object with its methods),
                or None. Its ``get_max_metadata_size()`` is asked once, here.
            metadata_type: ``MetadataType.VIDEO``.

        The callback objects of a replaced or removed observer (not the
        observer itself) are kept for the life of the process: a callback may
        still be running on a sending thread when the call returns.

        Raises:
            AgoraishError: -2 another type or a maximum size outside 1..1024;
                -7 if released.

        Thread: any.
        """
        kind = _c_int(metadata_type, "metadata_type")
        keep: Optional[_MetadataKeepalive] = None
        if observer is not None:
            max_size = _c_int(observer.get_max_metadata_size(), "max_size")  # type: ignore[attr-defined]
            keep = _MetadataKeepalive(observer, max_size)
        with self._data_lock:
            table = ctypes.byref(keep.table) if keep is not None else None
            rc = _ffi.agoraish_engine_register_media_metadata_observer(self.handle, table, kind)
            if rc != 0:
                if keep is not None:
                    keep.drop_handler()
                _check(rc, "register_media_metadata_observer")
            old, self._metadata_keepalive = self._metadata_keepalive, keep
        if old is not None:
            _keep_forever(old)

    # -- encryption (ABI 0.8) ------------------------------------------------------------

    def enable_encryption(
        self,
        enabled: bool,
        mode: int = EncryptionMode.AES_128_GCM2,
        key: Union[str, bytes, None] = None,
        salt: Any = b"",
    ) -> None:
        """Turns the built-in end-to-end encryption on or off (Agora's enableEncryption).

        Senders encrypt each audio, video and data payload; receivers with the
        same mode, key and salt decrypt it, and drop what they cannot with
        ``on_encryption_error``. Call it before joining; every user of a
        channel must use the same settings. Kept across calls.

        Args:
            enabled: on or off (`mode`, `key` and `salt` are not read when off).
            mode: an ``EncryptionMode``.
            key: 1..128 bytes (str as UTF-8); 32 random bytes, hex or base64, recommended.
            salt: the KDF salt of the GCM2 modes: 32 bytes, not all zero
                (ignored by the other modes); b"" passes 32 zero bytes.

        Raises:
            AgoraishError: -2 an unknown mode, no, empty or too long a key, a
                salt that is not 32 bytes, or a GCM2 mode with an all-zero
                salt; -4 a mode this library's OpenSSL lacks; -7 if released.
            TypeError: `salt` is not bytes-like.

        Thread: any.
        """
        if not enabled:
            _check(_ffi.agoraish_engine_enable_encryption(self.handle, 0, None), "enable_encryption")
            return
        salt_bytes = _payload(salt, "salt")
        if len(salt_bytes) not in (0, 32):
            raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, f"a salt of {len(salt_bytes)} bytes (not 32)")
        key_bytes = _c_string(key, "key")
        config = _ffi.EncryptionConfig()
        config.struct_size = ctypes.sizeof(_ffi.EncryptionConfig)
        config.encryption_mode = _c_int(mode, "mode")
        config.encryption_key = key_bytes
        if salt_bytes:
            ctypes.memmove(config.encryption_kdf_salt, salt_bytes, 32)
        _check(_ffi.agoraish_engine_enable_encryption(self.handle, 1, ctypes.byref(config)), "enable_encryption")

    def set_encryption_secret(self, secret: Optional[str]) -> None:
        """Deprecated (Agora's setEncryptionSecret): a non-empty secret turns the
        encryption on with the mode of ``set_encryption_mode`` ("aes-128-xts"
        unless set); None or "" turns it off. Cleared when leaving the channel.

        Raises:
            AgoraishError: -2 a secret above 128 bytes (or with a NUL); -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_encryption_secret(self.handle, _c_string(secret, "secret"))
        _check(rc, "set_encryption_secret")

    def set_encryption_mode(self, mode: Optional[str]) -> None:
        """Deprecated (Agora's setEncryptionMode): the mode of the secret, by name:
        "aes-128-xts" (also None or ""), "aes-128-ecb", "aes-256-xts",
        "sm4-128-ecb", "aes-128-gcm", "aes-256-gcm". The GCM2 modes need a salt:
        use ``enable_encryption``.

        Raises:
            AgoraishError: -2 another name; -4 a mode this library's OpenSSL
                lacks; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_set_encryption_mode(self.handle, _c_string(mode, "mode")), "set_encryption_mode")

    def register_packet_observer(self, observer: Optional[object]) -> None:
        """Registers a packet observer (Agora's registerPacketObserver), or removes it with None.

        Args:
            observer: a ``PacketObserver`` (or any object with its methods), or
                None. Packets made after the call returns see it.

        The callback objects of a replaced or removed observer (not the
        observer itself) are kept for the life of the process: a callback may
        still be running when the call returns.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        keep = _PacketKeepalive(observer) if observer is not None else None
        with self._data_lock:
            table = ctypes.byref(keep.table) if keep is not None else None
            rc = _ffi.agoraish_engine_register_packet_observer(self.handle, table)
            if rc != 0:
                if keep is not None:
                    keep.drop_handler()
                _check(rc, "register_packet_observer")
            old, self._packet_keepalive = self._packet_keepalive, keep
        if old is not None:
            _keep_forever(old)

    def _retire_data_observers(self) -> None:
        """After release: the metadata and packet observers' callback objects
        are kept for the life of the process (a sending thread of the host
        may still be inside one); the observers themselves are dropped."""
        with self._data_lock:
            kept = [self._metadata_keepalive, self._packet_keepalive]
            self._metadata_keepalive = self._packet_keepalive = None
        for keep in kept:
            if keep is not None:
                _keep_forever(keep)

    # -- audio from and to the host -------------------------------------

    def set_audio_profile(self, profile: int) -> None:
        """Sets the audio profile (Agora 4.x setAudioProfile): an ``AudioProfile``.

        The encoder follows it at once, for the external source and for capture.

        Raises:
            AgoraishError: -2 unknown profile; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_set_audio_profile(self.handle, operator.index(profile)), "set_audio_profile")

    def set_external_audio_source(self, enabled: bool, sample_rate: int = 48000, channels: int = 1) -> None:
        """Sends PCM pushed with ``push_external_audio_frame`` instead of a microphone.

        ``sample_rate`` is 8000, 16000, 32000, 44100 or 48000; ``channels`` 1 or 2.

        Raises:
            AgoraishError: -2 unsupported rate or channels; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_set_external_audio_source(self.handle, 1 if enabled else 0,
                                                              operator.index(sample_rate), operator.index(channels)),
               "set_external_audio_source")
        self._source_channels = operator.index(channels) if enabled else 0

    def push_external_audio_frame(self, samples: Any, channels: Optional[int] = None) -> int:
        """Pushes interleaved 16-bit PCM (bytes, bytearray, memoryview, array('h') or a numpy int16 array).

        The samples are in the source's channel count (set_external_audio_source);
        ``channels``, when given, must be that count. A two-dimensional int16
        array is (samples, channels). Arrays of other types are refused, not
        reinterpreted: convert floats in [-1, 1] with
        ``(samples * 32767).round().astype(numpy.int16)``. Returns the samples
        per channel (at 48 kHz) queued and not yet sent.

        Raises:
            AgoraishError: -2 bad data, more than a second (48000 samples per
                channel), or a channel count other than the source's; -3 no
                external source; -7 if released.
            TypeError: an array whose items are not 16-bit integers.
            ValueError: a two-dimensional array whose columns are not the channels.

        Thread: any.
        """
        source = getattr(self, "_source_channels", 0)
        if source and channels is not None and operator.index(channels) != source:
            raise AgoraishError(-2, "push_external_audio_frame: channels differ from the source's")
        # Without a source the library answers (-3, or -7 once released).
        channels = source or (operator.index(channels) if channels is not None else 1)
        if channels not in (1, 2):
            raise AgoraishError(-2, "push_external_audio_frame: channels must be 1 or 2")
        view = _pcm_view(samples, channels, "push_external_audio_frame")
        if len(view) % (2 * channels):
            raise AgoraishError(-2, "push_external_audio_frame: not whole 16-bit frames")
        count = len(view) // (2 * channels)
        if count > _MAX_PCM_SAMPLES:
            raise AgoraishError(-2, f"push_external_audio_frame: {count} samples per channel; "
                                    f"at most {_MAX_PCM_SAMPLES} (one second) a call")
        # Room for two channels whatever the count: a source changed by another
        # thread meanwhile can never make the library read past this buffer.
        data = (ctypes.c_int16 * max(1, 2 * count))() if len(view) else None
        if data is not None:
            ctypes.memmove(data, (ctypes.c_char * len(view)).from_buffer_copy(view), len(view))
        rc = _ffi.agoraish_engine_push_external_audio_frame(self.handle, data, count)
        if rc < 0:
            raise _library_error(rc, "push_external_audio_frame")
        return rc

    # -- custom audio tracks (ABI 0.11) -----------------------------------------

    def create_custom_audio_track(self, track_type: int = AudioTrackType.MIXABLE) -> int:
        """Creates a custom audio track (Agora's createCustomAudioTrack): PCM
        the host pushes with ``push_external_audio_frame_by_id``, sent by every
        connection that publishes it (``ChannelMediaOptions(publish_custom_audio_track=True,
        publish_custom_audio_track_id=...)``), instead of the microphone.

        Args:
            track_type: an ``AudioTrackType``. A connection publishes one audio
                track, so both types are sent as pushed.

        Returns:
            The track's id (1 and up).

        Raises:
            AgoraishError: -2 an unknown type; -5 ``AGORAISH_MAX_CUSTOM_AUDIO_TRACKS``
                (32) tracks exist; -7 if released.

        Thread: any.
        """
        track_id = ctypes.c_int32(0)
        rc = _ffi.agoraish_engine_create_custom_audio_track(
            self.handle, _c_int(track_type, "track_type"), ctypes.byref(track_id)
        )
        _check(rc, "create_custom_audio_track")
        return track_id.value

    def destroy_custom_audio_track(self, track_id: int) -> None:
        """Destroys a custom audio track (Agora's destroyCustomAudioTrack).
        Connections that published it publish no audio until their options
        choose the microphone or another track.

        Raises:
            AgoraishError: -2 an unknown track; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_destroy_custom_audio_track(self.handle, _c_int(track_id, "track_id"))
        _check(rc, "destroy_custom_audio_track")

    def adjust_custom_audio_publish_volume(self, track_id: int, volume: int) -> None:
        """The volume of what is sent of a custom audio track (Agora's
        adjustCustomAudioPublishVolume): 0..100 (100: as pushed), applied to
        later pushes.

        Raises:
            AgoraishError: -2 an unknown track or a volume outside 0..100; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_adjust_custom_audio_publish_volume(
            self.handle, _c_int(track_id, "track_id"), _c_int(volume, "volume")
        )
        _check(rc, "adjust_custom_audio_publish_volume")

    def push_external_audio_frame_by_id(
        self, track_id: int, samples: Any, sample_rate: int = 48000, channels: int = 1
    ) -> None:
        """Pushes PCM into a custom audio track (Agora's pushAudioFrame(frame, trackId)).

        Every connection that publishes the track queues the audio and sends
        it in real time (so a second may be pushed at once); with no publisher
        the audio is dropped. The samples are copied before the call returns.

        Args:
            track_id: an id from ``create_custom_audio_track``.
            samples: interleaved 16-bit PCM, as ``push_external_audio_frame``
                takes it: bytes, bytearray, memoryview, array('h') or a numpy
                int16 array (two-dimensional: (samples, channels)); at most
                `sample_rate` samples per channel (one second) a call.
            sample_rate: 8000, 16000, 32000, 44100 or 48000. A track takes
                the format of the frames pushed; a change of format between
                pushes is followed.
            channels: 1 or 2.

        Raises:
            AgoraishError: -2 an unknown track, a rate or channel count out
                of range, not whole frames or more than a second; -5 inside an
                audio frame observer callback; -7 if released.
            TypeError: an array whose items are not 16-bit integers.
            ValueError: a two-dimensional array whose columns are not the channels.

        Thread: any (pushes from several threads are serialized per connection).
        """
        track = _c_int(track_id, "track_id")
        rate = _c_int(sample_rate, "sample_rate")
        count_channels = _c_int(channels, "channels")
        if count_channels not in (1, 2):
            raise AgoraishError(-2, "push_external_audio_frame_by_id: channels must be 1 or 2")
        view = _pcm_view(samples, count_channels, "push_external_audio_frame_by_id")
        if len(view) % (2 * count_channels):
            raise AgoraishError(-2, "push_external_audio_frame_by_id: not whole 16-bit frames")
        count = len(view) // (2 * count_channels)
        if count > _MAX_PCM_SAMPLES:
            raise AgoraishError(-2, f"push_external_audio_frame_by_id: {count} samples per channel; "
                                    f"at most {_MAX_PCM_SAMPLES} (one second) a call")
        # The library reads count * channels samples: exactly what this buffer holds.
        data = (ctypes.c_int16 * (count * count_channels)).from_buffer_copy(view) if count else None
        rc = _ffi.agoraish_engine_push_external_audio_frame_by_id(self.handle, track, data, count, rate,
                                                                  count_channels)
        _check(rc, "push_external_audio_frame_by_id")

    def set_external_audio_sink(self, enabled: bool, sample_rate: int = 48000, channels: int = 1) -> None:
        """Lets the host pull what it would hear with ``pull_playback_audio_frame``.

        Raises:
            AgoraishError: -2 unsupported rate or channels; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_set_external_audio_sink(self.handle, 1 if enabled else 0,
                                                            operator.index(sample_rate), operator.index(channels)),
               "set_external_audio_sink")
        self._sink_channels = operator.index(channels) if enabled else 0

    def pull_playback_audio_frame(self, samples_per_channel: int, channels: Optional[int] = None) -> bytes:
        """Pulls the mix of every remote user's audio: interleaved 16-bit PCM at the sink's rate, as bytes.

        The audio is in the sink's channel count (set_external_audio_sink);
        ``channels``, when given, must be that count. Pull in real time (the
        pull cadence is the playout clock).

        Raises:
            AgoraishError: -2 a count outside 1..48000 or a channel count other
                than the sink's; -3 no external sink; -7 if released.

        Thread: any.
        """
        sink = getattr(self, "_sink_channels", 0)
        if sink and channels is not None and operator.index(channels) != sink:
            raise AgoraishError(-2, "pull_playback_audio_frame: channels differ from the sink's")
        # Without a sink the library answers (-3, or -7 once released).
        channels = sink or (operator.index(channels) if channels is not None else 1)
        if channels not in (1, 2):
            raise AgoraishError(-2, "pull_playback_audio_frame: channels must be 1 or 2")
        count = operator.index(samples_per_channel)
        if not 1 <= count <= _MAX_PCM_SAMPLES:  # checked before anything is allocated
            raise AgoraishError(-2, f"pull_playback_audio_frame: samples_per_channel {count} is outside "
                                    f"1..{_MAX_PCM_SAMPLES}")
        # Room for two channels whatever the count (see push_external_audio_frame).
        buffer = (ctypes.c_int16 * max(1, count * 2))()
        rc = _ffi.agoraish_engine_pull_playback_audio_frame(self.handle, buffer, count)
        if rc < 0:
            raise _library_error(rc, "pull_playback_audio_frame")
        return bytes(buffer)[: 2 * count * channels]

    # -- audio switches and volumes (ABI 0.4) ----------------------------------

    def enable_audio(self) -> None:
        """Turns audio on (Agora's enableAudio; on by default): capture, sending,
        receiving and playout resume. Allowed at any time.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_enable_audio(self.handle), "enable_audio")

    def disable_audio(self) -> None:
        """Turns audio off (Agora's disableAudio): nothing is captured, sent,
        received or played; others see this user as muted.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_disable_audio(self.handle), "disable_audio")

    def enable_local_audio(self, enabled: bool) -> None:
        """Turns local capture and sending on or off (Agora's enableLocalAudio); receiving goes on.

        ``on_local_audio_state_changed`` follows; others get ``on_user_mute_audio``.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_enable_local_audio(self.handle, 1 if enabled else 0), "enable_local_audio")

    def mute_local_audio_stream(self, mute: bool) -> None:
        """Stops or resumes sending local audio (Agora's muteLocalAudioStream).

        Capture and the record observer go on; others get ``on_user_mute_audio``.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_mute_local_audio_stream(self.handle, 1 if mute else 0), "mute_local_audio_stream")

    def mute_remote_audio_stream(self, uid: int, mute: bool) -> None:
        """Stops or resumes receiving one remote user's audio (Agora's muteRemoteAudioStream).

        May be called before the user joins. ``on_remote_audio_state_changed``
        reports STOPPED / LOCAL_MUTED, then DECODING / LOCAL_UNMUTED.

        Raises:
            AgoraishError: -2 uid 0; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_mute_remote_audio_stream(self.handle, _c_uint(uid, "uid"), 1 if mute else 0)
        _check(rc, "mute_remote_audio_stream")

    def mute_all_remote_audio_streams(self, mute: bool) -> None:
        """Stops or resumes receiving every remote user's audio, including users
        who join later (Agora's muteAllRemoteAudioStreams). Unmuting all also
        clears per-user mutes and the default.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_mute_all_remote_audio_streams(self.handle, 1 if mute else 0)
        _check(rc, "mute_all_remote_audio_streams")

    def set_default_mute_all_remote_audio_streams(self, mute: bool) -> None:
        """Whether users who join later start muted (Agora's setDefaultMuteAllRemoteAudioStreams).

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_default_mute_all_remote_audio_streams(self.handle, 1 if mute else 0)
        _check(rc, "set_default_mute_all_remote_audio_streams")

    def adjust_recording_signal_volume(self, volume: int) -> None:
        """Volume of local audio before sending (Agora's adjustRecordingSignalVolume):
        0 silence, 100 unchanged (the default), up to 400 (4x, clipped).

        Raises:
            AgoraishError: -2 out of 0..400; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_adjust_recording_signal_volume(self.handle, _c_int(volume, "volume"))
        _check(rc, "adjust_recording_signal_volume")

    def adjust_playback_signal_volume(self, volume: int) -> None:
        """Volume of the remote mix (Agora's adjustPlaybackSignalVolume): 0..400, 100 unchanged.

        Raises:
            AgoraishError: -2 out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_adjust_playback_signal_volume(self.handle, _c_int(volume, "volume"))
        _check(rc, "adjust_playback_signal_volume")

    def adjust_user_playback_signal_volume(self, uid: int, volume: int) -> None:
        """Volume of one remote user (Agora's adjustUserPlaybackSignalVolume): 0..100, 100 unchanged.

        Raises:
            AgoraishError: -2 uid 0 or volume out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_adjust_user_playback_signal_volume(
            self.handle, _c_uint(uid, "uid"), _c_int(volume, "volume")
        )
        _check(rc, "adjust_user_playback_signal_volume")

    def enable_audio_volume_indication(self, interval: int, smooth: int = 3, report_vad: bool = False) -> None:
        """Volume reports (Agora's enableAudioVolumeIndication): ``on_audio_volume_indication``
        every `interval` ms, and ``on_active_speaker``.

        Args:
            interval: <= 0 off; else 10..60000 ms (200 or more recommended).
            smooth: 0..10, the sensitivity: higher follows changes faster, 10
                reports each interval as measured (3 recommended).
            report_vad: the local report carries voice activity.

        Raises:
            AgoraishError: -2 out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_enable_audio_volume_indication(
            self.handle, _c_int(interval, "interval"), _c_int(smooth, "smooth"), 1 if report_vad else 0
        )
        _check(rc, "enable_audio_volume_indication")

    # -- raw audio (ABI 0.4) ----------------------------------------------------

    def register_audio_frame_observer(self, observer: Optional[object], positions: Optional[int] = None) -> None:
        """Registers a raw audio observer (Agora's registerAudioFrameObserver), or removes it with None.

        Args:
            observer: an ``AudioFrameObserver`` (or any object with its
                methods), or None. The engine keeps it referenced until it is
                replaced, removed or the engine is released. Only the methods
                it overrides are installed.
            positions: the ``AudioFramePosition`` bits observed; None selects
                the positions of the overridden methods.

        When this returns, the previous observer receives no more callbacks
        (unless called from inside one of its callbacks: that callback
        finishes first).

        Raises:
            AgoraishError: -2 unknown position bits; -7 if released.

        Thread: any.
        """
        keep: Optional[_ObserverKeepalive] = None
        if observer is not None:
            bits = _observed_positions(observer) if positions is None else _c_int(positions, "positions")
            keep = _ObserverKeepalive(observer, bits)
        _check(self._observers.register(self.handle, keep), "register_audio_frame_observer")

    def set_recording_audio_frame_parameters(
        self, sample_rate: int, channels: int, mode: int = RawAudioFrameOpMode.READ_ONLY, samples_per_call: int = 0
    ) -> None:
        """Format of ``on_record_audio_frame`` (Agora's setRecordingAudioFrameParameters).

        Args:
            sample_rate: 8000, 16000, 32000, 44100 or 48000 (default 48000).
            channels: 1 (default) or 2.
            mode: a ``RawAudioFrameOpMode`` (default READ_ONLY).
            samples_per_call: samples per channel per callback: 0 for 10 ms,
                else sample_rate/100 .. sample_rate. In the write modes audio
                is delayed by one callback period.

        Raises:
            AgoraishError: -2 out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_recording_audio_frame_parameters(
            self.handle, _c_int(sample_rate, "sample_rate"), _c_int(channels, "channels"), _c_int(mode, "mode"),
            _c_int(samples_per_call, "samples_per_call"),
        )
        _check(rc, "set_recording_audio_frame_parameters")

    def set_playback_audio_frame_parameters(
        self, sample_rate: int, channels: int, mode: int = RawAudioFrameOpMode.READ_ONLY, samples_per_call: int = 0
    ) -> None:
        """Format of ``on_playback_audio_frame`` (Agora's setPlaybackAudioFrameParameters);
        the arguments are those of ``set_recording_audio_frame_parameters``.

        Raises:
            AgoraishError: -2 out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_playback_audio_frame_parameters(
            self.handle, _c_int(sample_rate, "sample_rate"), _c_int(channels, "channels"), _c_int(mode, "mode"),
            _c_int(samples_per_call, "samples_per_call"),
        )
        _check(rc, "set_playback_audio_frame_parameters")

    def set_mixed_audio_frame_parameters(self, sample_rate: int, channels: int, samples_per_call: int = 0) -> None:
        """Format of ``on_mixed_audio_frame`` (Agora's setMixedAudioFrameParameters); always read-only.

        Raises:
            AgoraishError: -2 out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_mixed_audio_frame_parameters(
            self.handle, _c_int(sample_rate, "sample_rate"), _c_int(channels, "channels"),
            _c_int(samples_per_call, "samples_per_call"),
        )
        _check(rc, "set_mixed_audio_frame_parameters")

    def set_playback_audio_frame_before_mixing_parameters(self, sample_rate: int, channels: int) -> None:
        """Format of ``on_playback_audio_frame_before_mixing`` (Agora's
        setPlaybackAudioFrameBeforeMixingParameters): 10 ms per call, read-only.

        Raises:
            AgoraishError: -2 out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_playback_audio_frame_before_mixing_parameters(
            self.handle, _c_int(sample_rate, "sample_rate"), _c_int(channels, "channels")
        )
        _check(rc, "set_playback_audio_frame_before_mixing_parameters")

    # -- recording to a file (ABI 0.4) ---------------------------------------------

    def start_audio_recording(
        self,
        path: StrPath,
        sample_rate: int = 32000,
        position: int = AudioRecordingPosition.MIXED_RECORDING_AND_PLAYBACK,
        quality: int = AudioRecordingQuality.MEDIUM,
    ) -> None:
        """Records audio to a file (Agora's startAudioRecording): mono 16-bit PCM
        WAV, or Ogg Opus when the path ends in ".ogg" or ".opus".

        A recording in progress is finished first; recording goes on until
        ``stop_audio_recording``.

        Args:
            path: the file; its directory must exist.
            sample_rate: 16000, 32000, 44100 or 48000.
            position: an ``AudioRecordingPosition``.
            quality: an ``AudioRecordingQuality`` (the Ogg Opus bitrate).

        Raises:
            AgoraishError: -2 empty path, rate, position or quality out of
                range; -1 the file cannot be created; -7 if released.

        Thread: any.
        """
        path_bytes = _c_string(path, "path")
        config = _ffi.AudioRecordingConfig()
        config.struct_size = ctypes.sizeof(_ffi.AudioRecordingConfig)
        config.file_path = path_bytes
        config.sample_rate = _c_int(sample_rate, "sample_rate")
        config.position = _c_int(position, "position")
        config.quality = _c_int(quality, "quality")
        _check(_ffi.agoraish_engine_start_audio_recording(self.handle, ctypes.byref(config)), "start_audio_recording")

    def stop_audio_recording(self) -> None:
        """Finishes the recording (Agora's stopAudioRecording). Idempotent.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_stop_audio_recording(self.handle), "stop_audio_recording")

    # -- audio devices (ABI 0.4) ------------------------------------------------------

    def get_audio_device_count(self, device_type: int) -> int:
        """Number of audio devices of a kind (a ``MediaDeviceType``): the PCMs ALSA lists, "default" first.

        Raises:
            AgoraishError: -2 unknown type; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_get_audio_device_count(self.handle, _c_int(device_type, "device_type"))
        if rc < 0:
            raise _library_error(rc, "get_audio_device_count")
        return rc

    def get_audio_device(self, device_type: int, index: int) -> AudioDeviceInfo:
        """One audio device of a kind, by index in the current enumeration: ``(id, name)``.

        Raises:
            AgoraishError: -2 unknown type or index out of range; -7 if released.

        Thread: any.
        """
        info = _ffi.AudioDeviceInfo()
        rc = _ffi.agoraish_engine_get_audio_device(
            self.handle, _c_int(device_type, "device_type"), _c_int(index, "index"), ctypes.byref(info)
        )
        _check(rc, "get_audio_device")
        return AudioDeviceInfo(_text(info.id), _text(info.name))

    def get_audio_devices(self, device_type: int) -> List[AudioDeviceInfo]:
        """Every audio device of a kind, as ``(id, name)`` pairs (Agora's
        enumerateRecordingDevices / enumeratePlaybackDevices).

        Raises:
            AgoraishError: -2 unknown type; -7 if released.

        Thread: any.
        """
        devices: List[AudioDeviceInfo] = []
        for index in range(self.get_audio_device_count(device_type)):
            try:
                devices.append(self.get_audio_device(device_type, index))
            except AgoraishError as error:
                if error.code != -_ffi.AGORAISH_ERR_INVALID_ARGUMENT:
                    raise
                break  # the list shrank between the two calls
        return devices

    def enumerate_recording_devices(self) -> List[AudioDeviceInfo]:
        """The capture devices as ``(id, name)`` pairs (Agora's enumerateRecordingDevices).

        Thread: any.
        """
        return self.get_audio_devices(MediaDeviceType.AUDIO_RECORDING_DEVICE)

    def enumerate_playback_devices(self) -> List[AudioDeviceInfo]:
        """The playback devices as ``(id, name)`` pairs (Agora's enumeratePlaybackDevices).

        Thread: any.
        """
        return self.get_audio_devices(MediaDeviceType.AUDIO_PLAYOUT_DEVICE)

    def set_recording_device(self, device_id: str) -> None:
        """Chooses the capture device by id, an ALSA PCM name (Agora's setRecordingDevice).

        Takes effect within 10 ms; a device that will not open is reported
        through ``on_local_audio_state_changed`` when capture starts.

        Raises:
            AgoraishError: -2 empty or over 511 bytes; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_recording_device(self.handle, _c_string(device_id, "device_id"))
        _check(rc, "set_recording_device")

    def set_playback_device(self, device_id: str) -> None:
        """Chooses the playback device by id, an ALSA PCM name (Agora's setPlaybackDevice).

        Raises:
            AgoraishError: -2 empty or over 511 bytes; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_playback_device(self.handle, _c_string(device_id, "device_id"))
        _check(rc, "set_playback_device")

    def get_recording_device(self) -> str:
        """The chosen capture device id (Agora's getRecordingDevice); "default" until one is set.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        return _read_string(
            lambda buf, length: _ffi.agoraish_engine_get_recording_device(self.handle, buf, length),
            "get_recording_device",
        )

    def get_playback_device(self) -> str:
        """The chosen playback device id (Agora's getPlaybackDevice); "default" until one is set.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        return _read_string(
            lambda buf, length: _ffi.agoraish_engine_get_playback_device(self.handle, buf, length),
            "get_playback_device",
        )

    def start_recording_device_test(self, interval: int) -> None:
        """Captures from the recording device and reports its volume through
        ``on_audio_volume_indication`` (uid 0) every `interval` ms (Agora's
        startRecordingDeviceTest). Nothing is sent.

        Raises:
            AgoraishError: -2 interval outside 10..60000; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_start_recording_device_test(self.handle, _c_int(interval, "interval"))
        _check(rc, "start_recording_device_test")

    def stop_recording_device_test(self) -> None:
        """Stops the recording device test (Agora's stopRecordingDeviceTest).

        Thread: any.
        """
        _check(_ffi.agoraish_engine_stop_recording_device_test(self.handle), "stop_recording_device_test")

    def start_playback_device_test(self, path: StrPath) -> None:
        """Plays a 16-bit PCM WAV file (8..48 kHz, mono or stereo) in a loop on the
        playback device (Agora's startPlaybackDeviceTest).

        Raises:
            AgoraishError: -2 a file that is not such a WAV; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_start_playback_device_test(self.handle, _c_string(path, "path"))
        _check(rc, "start_playback_device_test")

    def stop_playback_device_test(self) -> None:
        """Stops the playback device test (Agora's stopPlaybackDeviceTest).

        Thread: any.
        """
        _check(_ffi.agoraish_engine_stop_playback_device_test(self.handle), "stop_playback_device_test")

    def start_audio_device_loopback_test(self, interval: int) -> None:
        """Plays what the recording device captures on the playback device and
        reports its volume every `interval` ms (Agora's startAudioDeviceLoopbackTest).

        Raises:
            AgoraishError: -2 interval outside 10..60000; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_start_audio_device_loopback_test(self.handle, _c_int(interval, "interval"))
        _check(rc, "start_audio_device_loopback_test")

    def stop_audio_device_loopback_test(self) -> None:
        """Stops the loopback test (Agora's stopAudioDeviceLoopbackTest).

        Thread: any.
        """
        _check(_ffi.agoraish_engine_stop_audio_device_loopback_test(self.handle), "stop_audio_device_loopback_test")

    # -- video (ABI 0.5) ------------------------------------------------------

    def enable_video(self) -> None:
        """Turns video on (Agora's enableVideo; off by default): pictures are
        captured (the camera, unless an external source is set) and sent, and
        received video is decoded and rendered. Others get ``on_user_enable_video``.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_enable_video(self.handle), "enable_video")

    def disable_video(self) -> None:
        """Turns video off (Agora's disableVideo): pushed frames are not sent and
        received video is not decoded. The next enable starts with a keyframe.
        Others get ``on_user_enable_video(uid, False)``.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_disable_video(self.handle), "disable_video")

    def set_video_encoder_configuration(
        self,
        width: int,
        height: int,
        frame_rate: int = 15,
        bitrate: int = 0,
        min_bitrate: int = -1,
        codec_type: int = VideoCodecType.VP8,
        orientation_mode: int = OrientationMode.ADAPTIVE,
        degradation_preference: int = DegradationPreference.MAINTAIN_QUALITY,
        mirror_mode: int = VideoMirrorMode.AUTO,
    ) -> None:
        """Sets what the encoder aims for (Agora's setVideoEncoderConfiguration);
        applies from the next pushed frame. Pictures larger than the size are
        scaled down to fit it; smaller ones are sent at their own size.

        Args:
            width, height: 16..4096, even (the defaults of the engine are 640x360).
            frame_rate: 1..60 frames per second.
            bitrate: Kbps: 0 (Agora's STANDARD_BITRATE: the base rate for the
                size and frame rate, twice it in live broadcasting), -1
                (COMPATIBLE_BITRATE: the base rate), or 1..100000.
            min_bitrate: -1 or Kbps (kept for live broadcasting).
            codec_type: a ``VideoCodecType``: VP8 (0 also means VP8) or VP9.
            orientation_mode: an ``OrientationMode``: ADAPTIVE turns width x
                height to each picture's orientation; the FIXED modes crop a
                picture of the other orientation around its centre.
            degradation_preference: a ``DegradationPreference`` (kept for
                bandwidth adaptation).
            mirror_mode: a ``VideoMirrorMode`` of the sent stream: AUTO and
                DISABLED send it as it is, ENABLED mirrored.

        Raises:
            AgoraishError: -2 a value out of range; -7 if released.

        Thread: any.
        """
        config = self._encoder_configuration(width, height, frame_rate, bitrate, min_bitrate, codec_type,
                                             orientation_mode, degradation_preference, mirror_mode)
        rc = _ffi.agoraish_engine_set_video_encoder_configuration(self.handle, ctypes.byref(config))
        _check(rc, "set_video_encoder_configuration")

    @staticmethod
    def _encoder_configuration(width: int, height: int, frame_rate: int, bitrate: int, min_bitrate: int,
                               codec_type: int, orientation_mode: int, degradation_preference: int,
                               mirror_mode: int) -> Any:
        """The ``agoraish_video_encoder_configuration`` of ``set_video_encoder_configuration``'s arguments."""
        config = _ffi.VideoEncoderConfiguration()
        config.struct_size = ctypes.sizeof(_ffi.VideoEncoderConfiguration)
        config.width = _c_int(width, "width")
        config.height = _c_int(height, "height")
        config.frame_rate = _c_int(frame_rate, "frame_rate")
        config.bitrate = _c_int(bitrate, "bitrate")
        config.min_bitrate = _c_int(min_bitrate, "min_bitrate")
        config.codec_type = _c_int(codec_type, "codec_type")
        config.orientation_mode = _c_int(orientation_mode, "orientation_mode")
        config.degradation_preference = _c_int(degradation_preference, "degradation_preference")
        config.mirror_mode = _c_int(mirror_mode, "mirror_mode")
        return config

    def set_external_video_source(self, enabled: bool) -> None:
        """Sends pictures pushed with ``push_external_video_frame`` (Agora's setExternalVideoSource).

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_external_video_source(self.handle, 1 if enabled else 0)
        _check(rc, "set_external_video_source")

    def push_external_video_frame(
        self,
        width: int,
        height: int,
        y: Any,
        u: Any = None,
        v: Any = None,
        *,
        format: int = VideoPixelFormat.I420,
        y_stride: Optional[int] = None,
        u_stride: Optional[int] = None,
        v_stride: Optional[int] = None,
        timestamp: Optional[int] = None,
        rotation: int = 0,
        alpha: Any = None,
        alpha_stride: Optional[int] = None,
    ) -> None:
        """Pushes one picture (Agora's pushExternalVideoFrame). With video enabled
        it is converted to I420, turned upright, observed and shown in the
        local preview; in a call it is then fitted to the encoder
        configuration, encoded (VP8 or VP9) and sent. Push at the configured
        frame rate.

        Args:
            width, height: the picture's size: 16..4096, even.
            y, u, v: the planes, as bytes-like objects (bytes, bytearray,
                memoryview, array) or numpy uint8 arrays. I420 uses all three
                (U and V at half size), NV12 and NV21 `y` and the interleaved
                chroma plane `u`, BGRA and RGBA the packed pixels in `y`. With
                only `y` given, it holds the whole picture: each plane the
                format uses after the previous one, rows `*_stride` bytes apart.
            format: a ``VideoPixelFormat`` (I420 by default).
            y_stride, u_stride, v_stride: bytes per row; by default the row
                length of a two-dimensional array, else the row length of the
                plane: `width` (Y; four times it for BGRA and RGBA), `width // 2`
                (I420's U and V) or `width` (NV12's and NV21's chroma).
            timestamp: capture time in ms, increasing (any origin); by default
                the monotonic clock.
            rotation: 0, 90, 180 or 270: the picture is turned clockwise by
                that much before use (a 90 or 270 turn swaps width and height).
            alpha: the picture's alpha plane (Agora's alphaBuffer): `height`
                rows of `width` bytes, 0 transparent .. 255 opaque, as a
                bytes-like object or a numpy uint8 array; None (the default)
                for an opaque picture. It goes with the picture (turned,
                mirrored and fitted with it) to the local canvas and the
                capture and pre-encode observers (``VideoFrame.alpha``);
                remote users receive no alpha.
            alpha_stride: bytes per row of `alpha`; by default the row length
                of a two-dimensional array, else `width`.

        Writable buffers are passed without a copy, read-only ones (bytes)
        are copied first; the library reads the planes during the call only.

        Raises:
            AgoraishError: -2 an unknown format, a size or stride out of range,
                a plane (or `alpha`) shorter than its rows need, a plane the format needs
                missing, or another rotation; -3 no external source (``set_external_video_source``);
                -7 if released.
            TypeError: a plane that is not a buffer.

        Thread: any (pushes are serialized).
        """
        frame, holders = _external_video_frame(width, height, y, u, v, format, y_stride, u_stride, v_stride,
                                               timestamp, rotation, "push_external_video_frame", alpha, alpha_stride)
        rc = _ffi.agoraish_engine_push_external_video_frame(self.handle, ctypes.byref(frame))
        del holders
        _check(rc, "push_external_video_frame")

    # -- custom video tracks and encoded video (ABI 0.11) ------------------------------

    def create_custom_video_track(self) -> int:
        """Creates a custom video track (Agora's createCustomVideoTrack): pictures
        the host pushes with ``push_external_video_frame_by_id``, sent by every
        connection that publishes it (``ChannelMediaOptions(publish_custom_video_track=True,
        custom_video_track_id=...)``) instead of the camera. Each publishing
        connection converts, fits and encodes the pictures as an external
        video source does, with its own encoder configuration
        (``Connection.set_video_encoder_configuration``), congestion control
        and dual stream.

        Returns:
            The track's id (1 and up).

        Raises:
            AgoraishError: -5 ``AGORAISH_MAX_CUSTOM_VIDEO_TRACKS`` (32) custom
                video tracks (raw and encoded together) exist; -7 if released.

        Thread: any.
        """
        track_id = ctypes.c_int32(0)
        _check(_ffi.agoraish_engine_create_custom_video_track(self.handle, ctypes.byref(track_id)),
               "create_custom_video_track")
        return track_id.value

    def create_custom_encoded_video_track(self) -> int:
        """Creates a custom encoded video track (Agora's createCustomEncodedVideoTrack):
        VP8 or VP9 frames encoded by the host, pushed with
        ``push_external_encoded_video_frame`` and sent unchanged (packetized
        per RFC 7741 / RFC 9628) by every connection that publishes it
        (``ChannelMediaOptions(publish_encoded_video_track=True, custom_video_track_id=...)``).
        Receivers' keyframe requests do not reach the host: send a keyframe
        every few seconds. Destroy it with ``destroy_custom_video_track``.

        Returns:
            The track's id (1 and up).

        Raises:
            AgoraishError: -5 ``AGORAISH_MAX_CUSTOM_VIDEO_TRACKS`` (32) custom
                video tracks (raw and encoded together) exist; -7 if released.

        Thread: any.
        """
        track_id = ctypes.c_int32(0)
        _check(_ffi.agoraish_engine_create_custom_encoded_video_track(self.handle, ctypes.byref(track_id)),
               "create_custom_encoded_video_track")
        return track_id.value

    def destroy_custom_video_track(self, track_id: int) -> None:
        """Destroys a custom (or custom encoded) video track (Agora's
        destroyCustomVideoTrack): connections that published it return to the
        video they had before.

        Raises:
            AgoraishError: -2 an unknown track; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_destroy_custom_video_track(self.handle, _c_int(track_id, "track_id"))
        _check(rc, "destroy_custom_video_track")

    def push_external_video_frame_by_id(
        self,
        track_id: int,
        width: int,
        height: int,
        y: Any,
        u: Any = None,
        v: Any = None,
        *,
        format: int = VideoPixelFormat.I420,
        y_stride: Optional[int] = None,
        u_stride: Optional[int] = None,
        v_stride: Optional[int] = None,
        timestamp: Optional[int] = None,
        rotation: int = 0,
        alpha: Any = None,
        alpha_stride: Optional[int] = None,
    ) -> None:
        """Pushes one picture into a custom video track (Agora's
        pushVideoFrame(frame, videoTrackId)), for every connection that
        publishes the track; with no publisher it is dropped.

        Args:
            track_id: an id from ``create_custom_video_track``.
            width, height, y, u, v, format, y_stride, u_stride, v_stride,
            timestamp, rotation, alpha, alpha_stride: the picture, as
                ``push_external_video_frame`` takes it (formats, planes,
                strides, capture time, rotation and alpha plane).

        Writable buffers are passed without a copy, read-only ones (bytes)
        are copied first; the library reads the planes during the call only.

        Raises:
            AgoraishError: -2 an unknown track or a custom encoded video track,
                or what ``push_external_video_frame`` refuses in the picture
                (an unknown format, a size or stride out of range, a plane too
                short or missing, another rotation); -7 if released.
            TypeError: a plane that is not a buffer.

        Thread: any (pushes are serialized per connection).
        """
        track = _c_int(track_id, "track_id")
        frame, holders = _external_video_frame(width, height, y, u, v, format, y_stride, u_stride, v_stride,
                                               timestamp, rotation, "push_external_video_frame_by_id", alpha,
                                               alpha_stride)
        rc = _ffi.agoraish_engine_push_external_video_frame_by_id(self.handle, ctypes.byref(frame), track)
        del holders
        _check(rc, "push_external_video_frame_by_id")

    def push_external_encoded_video_frame(self, data: Any, info: EncodedVideoFrameInfo, track_id: int) -> int:
        """Pushes one encoded frame into a custom encoded video track (Agora's
        pushEncodedVideoImage / pushExternalEncodedVideoFrame). It leaves at
        once, unchanged, in every connection that publishes the track and is
        in a call.

        Args:
            data: the frame, a bytes-like object of 1..
                ``AGORAISH_MAX_ENCODED_VIDEO_FRAME_BYTES`` (4 MiB) bytes;
                copied before the call (the library reads it during the call).
            info: an ``EncodedVideoFrameInfo``: codec (VP8 or VP9), frame type,
                picture size, rotation and capture time (None: the monotonic
                clock); its `uid` is not read. None reaches the library as NULL (-2).
            track_id: an id from ``create_custom_encoded_video_track``.

        Returns:
            The number of connections that sent it (0 outside a call or with
            no publisher).

        Raises:
            AgoraishError: -2 an unknown track or a custom (raw) video track,
                empty or too large `data`, None `info` or a bad field of it (a
                codec other than VP8 and VP9, an unknown frame type, a size
                outside 0..16384, another rotation); -7 if released.
            TypeError: `data` is not bytes-like, or `info` is neither None nor
                an ``EncodedVideoFrameInfo``.

        Thread: any.
        """
        track = _c_int(track_id, "track_id")
        payload = _payload(data, "data")
        raw: Optional[Any] = None
        if info is not None:
            if not isinstance(info, EncodedVideoFrameInfo):
                raise TypeError(f"info must be an EncodedVideoFrameInfo, not {type(info).__name__}")
            raw = _ffi.EncodedVideoFrameInfo()
            raw.struct_size = ctypes.sizeof(_ffi.EncodedVideoFrameInfo)
            raw.codec_type = _c_int(info.codec_type, "info.codec_type")
            raw.width = _c_int(info.width, "info.width")
            raw.height = _c_int(info.height, "info.height")
            raw.frame_type = _c_int(info.frame_type, "info.frame_type")
            raw.rotation = _c_int(info.rotation, "info.rotation")
            stamp = time.monotonic_ns() // 1_000_000 if info.capture_time_ms is None \
                else operator.index(info.capture_time_ms)
            if not -(2**63) <= stamp < 2**63:
                raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT,
                                    f"info.capture_time_ms {stamp} does not fit int64_t")
            raw.capture_time_ms = stamp
            raw.uid = _c_uint(info.uid, "info.uid")
        buffer = (ctypes.c_uint8 * len(payload)).from_buffer_copy(payload) if payload else None
        rc = _ffi.agoraish_engine_push_external_encoded_video_frame(self.handle, buffer, len(payload), _ref(raw),
                                                                    track)
        if rc < 0:
            raise _library_error(rc, "push_external_encoded_video_frame")
        return rc

    def register_video_encoded_frame_observer(self, observer: Optional[object]) -> None:
        """Registers the encoded frame observer (Agora's
        registerVideoEncodedFrameObserver), or removes it with None. It sees
        each remote video frame, in every connection of the engine, before
        it is decoded.

        Args:
            observer: a ``VideoEncodedFrameObserver`` (or any object with its
                method), or None. The engine keeps it referenced until it is
                replaced, removed or the engine is released.

        When a removal returns, the previous observer gets no further callback
        (unless removed from inside a callback on a video thread). The
        callback objects of a replaced observer are kept until such a
        removal or the engine's release.

        Raises:
            AgoraishError: -7 if released.

        Thread: any, also from inside the observer's callback. The callback
        runs on the receiving connection's video thread.
        """
        keep = _EncodedObserverKeepalive(observer) if observer is not None else None
        _check(self._encoded_observers.register(self.handle, keep), "register_video_encoded_frame_observer")

    def setup_remote_video(
        self,
        uid: int,
        sink: Optional[Callable[[VideoFrame], Any]],
        *,
        render_mode: int = RenderMode.HIDDEN,
        mirror_mode: int = VideoMirrorMode.AUTO,
        view_width: int = 0,
        view_height: int = 0,
    ) -> None:
        """Binds the render sink of a remote user (Agora's setupRemoteVideo with
        a callback instead of a view), or unbinds it with None.

        Args:
            uid: the remote user (not 0); may be bound before the user joins.
            sink: a callable taking a ``VideoFrame``, or None. It receives
                every decoded picture of `uid` on the engine's video thread
                (``agoraish-vid<n>``), one at a time; the frame's planes are
                read-only and valid only during the call. An exception it
                raises is reported through ``sys.unraisablehook`` and does not
                reach the library. The engine keeps it referenced until it is
                replaced, unbound or the engine is released.
            render_mode: a ``RenderMode``; applies when a view size is set.
            mirror_mode: a ``VideoMirrorMode`` (AUTO: remote users not mirrored).
            view_width, view_height: the host's view size: each picture
                reaches the sink at that size (2..4096 on both sides, odd
                sides rounded down to even), fitted by `render_mode`; 0 x 0
                (the default) hands pictures over at their own size.

        After an unbind returns, the old sink gets no further picture (unless
        the unbind is made from inside that sink).

        Raises:
            AgoraishError: -2 uid 0, an unknown render or mirror mode or a bad
                view size; -7 if released.
            TypeError: `sink` is neither None nor callable.

        Thread: any, also from inside a sink.
        """
        uid = _c_uint(uid, "uid")
        keep = self._canvas(uid, sink, render_mode, mirror_mode, view_width, view_height)
        _check(self._sinks.setup(self.handle, uid, keep), "setup_remote_video")

    @staticmethod
    def _canvas(uid: int, sink: Optional[Callable[[VideoFrame], Any]], render_mode: int, mirror_mode: int,
                view_width: int, view_height: int) -> Optional[_SinkKeepalive]:
        """The canvas keepalive for a sink (None unbinds)."""
        render_mode = _c_int(render_mode, "render_mode")
        mirror_mode = _c_int(mirror_mode, "mirror_mode")
        view_width = _c_int(view_width, "view_width")
        view_height = _c_int(view_height, "view_height")
        if sink is None:
            return None
        if not callable(sink):
            raise TypeError(f"sink must be callable or None, not {type(sink).__name__}")
        return _SinkKeepalive(uid, sink, render_mode, mirror_mode, view_width, view_height)

    def setup_local_video(
        self,
        sink: Optional[Callable[[VideoFrame], Any]],
        *,
        render_mode: int = RenderMode.HIDDEN,
        mirror_mode: int = VideoMirrorMode.AUTO,
        view_width: int = 0,
        view_height: int = 0,
    ) -> None:
        """Binds the local canvas (Agora's setupLocalVideo with a callback
        instead of a view), or unbinds it with None.

        The sink receives the local pictures (``frame.uid`` 0), as captured or
        pushed and turned upright, on the engine's video thread, after
        ``start_preview`` or in a call while local video is on. The arguments
        are those of ``setup_remote_video``; with the mirror mode AUTO the
        preview is mirrored (as a mirror shows the user), DISABLED shows it as
        it is sent.

        Raises:
            AgoraishError: -2 an unknown render or mirror mode or a bad view
                size; -7 if released.
            TypeError: `sink` is neither None nor callable.

        Thread: any, also from inside a sink.
        """
        keep = self._canvas(_LOCAL, sink, render_mode, mirror_mode, view_width, view_height)
        _check(self._sinks.setup(self.handle, _LOCAL, keep, local=True), "setup_local_video")

    def start_preview(self) -> None:
        """Local pictures reach the local canvas outside calls too (Agora's
        startPreview; needs ``enable_video``; survives leaving). Without an
        external source the camera starts (``on_local_video_state_changed``
        reports FAILED with DEVICE_NOT_FOUND when there is none).

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_start_preview(self.handle), "start_preview")

    def stop_preview(self) -> None:
        """Stops the preview (Agora's stopPreview).

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_stop_preview(self.handle), "stop_preview")

    def set_local_render_mode(self, render_mode: int, mirror_mode: int = VideoMirrorMode.AUTO) -> None:
        """Render and mirror mode of the local canvas (Agora's setLocalRenderMode).

        Args:
            render_mode: a ``RenderMode``.
            mirror_mode: a ``VideoMirrorMode``.

        Raises:
            AgoraishError: -2 unknown mode; -3 no local canvas bound; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_local_render_mode(
            self.handle, _c_int(render_mode, "render_mode"), _c_int(mirror_mode, "mirror_mode")
        )
        _check(rc, "set_local_render_mode")

    def set_remote_render_mode(self, uid: int, render_mode: int, mirror_mode: int = VideoMirrorMode.AUTO) -> None:
        """Render and mirror mode of a remote user's canvas (Agora's setRemoteRenderMode).

        Raises:
            AgoraishError: -2 uid 0 or unknown mode; -3 no canvas bound for
                `uid`; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_remote_render_mode(
            self.handle, _c_uint(uid, "uid"), _c_int(render_mode, "render_mode"), _c_int(mirror_mode, "mirror_mode")
        )
        _check(rc, "set_remote_render_mode")

    def register_video_frame_observer(self, observer: Optional[object], positions: Optional[int] = None) -> None:
        """Registers a raw video observer (Agora's registerVideoFrameObserver), or removes it with None.

        Args:
            observer: a ``VideoFrameObserver`` (or any object with its
                methods), or None. The engine keeps it referenced until it is
                replaced, removed or the engine is released. Only the methods
                it overrides are installed.
            positions: the ``VideoObserverPosition`` bits observed; None
                selects the positions of the overridden methods.

        When a removal returns, the previous observer gets no further render
        callback (unless removed from inside one). Capture and pre-encode
        callbacks in progress on another thread may still finish; they find
        the observer gone and keep their picture.

        Raises:
            AgoraishError: -2 unknown position bits; -7 if released.

        Thread: any, also from inside an observer callback.
        """
        keep: Optional[_VideoObserverKeepalive] = None
        if observer is not None:
            bits = _observed_video_positions(observer) if positions is None else _c_int(positions, "positions")
            keep = _VideoObserverKeepalive(observer, bits)
        _check(self._video_observers.register(self.handle, keep), "register_video_frame_observer")

    def enable_dual_stream_mode(self, enabled: bool) -> None:
        """Also sends a low stream (Agora's enableDualStreamMode): the picture
        fitted inside 320 x 180, half the frame rate (at least 5), Agora's base
        bitrate for that size. Subscribers choose a stream with
        ``set_remote_video_stream_type``; the server forwards one.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_enable_dual_stream_mode(self.handle, 1 if enabled else 0)
        _check(rc, "enable_dual_stream_mode")

    def set_remote_video_stream_type(self, uid: int, stream_type: int) -> None:
        """Receives the high or low stream of `uid`, or one of its simulcast
        layers (Agora's setRemoteVideoStreamType).

        The server switches at the next keyframe of the chosen stream (it asks
        the publisher for one). A publisher without dual stream or simulcast
        sends its one stream to everyone; a layer the publisher does not send
        gives the best stream below it that it sends (in the order HIGH,
        LAYER_1 .. LAYER_6, LOW), else its lowest.

        Args:
            stream_type: a ``VideoStreamType``: HIGH (0), LOW (1) or
                LAYER_1 .. LAYER_6 (4..9, ABI 0.12).

        Raises:
            AgoraishError: -2 uid 0 or another type; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_remote_video_stream_type(
            self.handle, _c_uint(uid, "uid"), _c_int(stream_type, "stream_type")
        )
        _check(rc, "set_remote_video_stream_type")

    def set_remote_default_video_stream_type(self, stream_type: int) -> None:
        """The stream received of users not named by ``set_remote_video_stream_type``
        (Agora's setRemoteDefaultVideoStreamType): a ``VideoStreamType``, the
        same types.

        Raises:
            AgoraishError: -2 another type; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_remote_default_video_stream_type(
            self.handle, _c_int(stream_type, "stream_type")
        )
        _check(rc, "set_remote_default_video_stream_type")

    def set_simulcast_config(self, config: SimulcastConfig) -> None:
        """Sends simulcast layers besides the high stream (Agora's
        setSimulcastConfig, ABI 0.12).

        Each enabled entry of `config.configs` is the picture of the high
        stream fitted into the entry's box (aspect ratio kept, never
        enlarged) at the entry's frame rate and the base bitrate for its
        size, on a stream of its own (own encoder and SSRC, keyframes every
        3 s and on request). Subscribers pick one with
        ``set_remote_video_stream_type`` (``VideoStreamType.LAYER_n`` for
        ``StreamLayerIndex.LAYER_n``, ``VideoStreamType.LOW`` for
        ``StreamLayerIndex.LOW``) and the server forwards each its stream,
        switching at keyframes. A configuration with an entry enabled replaces
        ``enable_dual_stream_mode`` while it is set (LOW is then the low
        stream, at the size given here); one with none enabled goes back to
        what ``enable_dual_stream_mode`` chose. Each change starts every
        stream again at a keyframe.

        Args:
            config: a ``SimulcastConfig``.

        Raises:
            AgoraishError: -2 more than three entries enabled, an enabled
                entry's size outside 16..3840 x 16..2160 or frame rate outside
                1..60, `configs` not seven entries (or a value no C int
                holds); -7 if released.
            TypeError: `config` is not a ``SimulcastConfig`` or an entry not a
                ``StreamLayerConfig``.

        Thread: any.
        """
        raw = _c_simulcast_config(config)
        _check(_ffi.agoraish_engine_set_simulcast_config(self.handle, ctypes.byref(raw)), "set_simulcast_config")

    def set_local_publish_fallback_option(self, option: int) -> None:
        """What the engine does when the uplink cannot carry video (Agora's
        setLocalPublishFallbackOption; default DISABLED).

        ``StreamFallbackOptions.AUDIO_ONLY`` stops sending video while the
        uplink's bandwidth estimate leaves less than 60 kbps for it for 2 s,
        and resumes once 120 kbps has been available for 2 s; both are
        reported by ``on_local_publish_fallback_to_audio_only``.

        Args:
            option: ``StreamFallbackOptions.DISABLED`` or ``AUDIO_ONLY``
                (VIDEO_STREAM_LOW applies to subscribing only).

        Raises:
            AgoraishError: -2 another option; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_local_publish_fallback_option(self.handle, _c_int(option, "option"))
        _check(rc, "set_local_publish_fallback_option")

    def set_remote_subscribe_fallback_option(self, option: int) -> None:
        """What the server may withhold when this user's downlink is short
        (Agora's setRemoteSubscribeFallbackOption; default VIDEO_STREAM_LOW).

        The server estimates each subscriber's downlink and shares it out
        among the publishers' video: DISABLED forwards what was asked for
        regardless; VIDEO_STREAM_LOW sends the low stream of dual-stream
        publishers that do not fit; AUDIO_ONLY then withholds video altogether
        (``on_remote_subscribe_fallback_to_audio_only``). Video returns when
        the downlink recovers. Any time; kept across calls.

        Args:
            option: a ``StreamFallbackOptions``.

        Raises:
            AgoraishError: -2 another option; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_remote_subscribe_fallback_option(self.handle, _c_int(option, "option"))
        _check(rc, "set_remote_subscribe_fallback_option")

    def set_remote_user_priority(self, uid: int, priority: int) -> None:
        """Serves `uid`'s video first when this downlink is shared out (Agora's
        setRemoteUserPriority).

        Args:
            priority: ``PriorityType.HIGH`` for one user at most (the last
                named), ``PriorityType.NORMAL`` to take it back.

        Raises:
            AgoraishError: -2 uid 0 or another priority; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_remote_user_priority(
            self.handle, _c_uint(uid, "uid"), _c_int(priority, "priority")
        )
        _check(rc, "set_remote_user_priority")

    def take_snapshot(self, uid: int, path: StrPath) -> None:
        """Writes the next picture of `uid` to `path` (Agora's takeSnapshot).

        Args:
            uid: the remote user, or 0 for the local picture as captured.
            path: ends in ".jpg" or ".jpeg" (JPEG) or ".png" (PNG); its
                directory must exist.

        ``on_snapshot_taken(uid, path, width, height, error)`` reports the result.

        Raises:
            AgoraishError: -2 another extension; -113 not in a call; -12 eight
                snapshots of that user already waiting; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_take_snapshot(self.handle, _c_uint(uid, "uid"), _c_string(path, "path"))
        _check(rc, "take_snapshot")

    def add_video_watermark(
        self,
        path: StrPath,
        landscape: Tuple[int, int, int, int],
        portrait: Optional[Tuple[int, int, int, int]] = None,
        *,
        visible_in_preview: bool = True,
    ) -> None:
        """Blends a PNG into the sent picture (Agora's addVideoWatermark).

        The image is read now, scaled to the rectangle for the picture's
        orientation, its alpha kept, and clipped at the picture's edges. One
        watermark at a time: a new one replaces the old.

        Args:
            path: a PNG file (up to 4096 x 4096).
            landscape: ``(x, y, width, height)`` in pixels of landscape (and
                square) pictures: x and y 0..4096, width and height 1..4096.
            portrait: the same for portrait pictures; None uses `landscape`.
            visible_in_preview: the local canvas shows the watermark too.

        Raises:
            AgoraishError: -2 a file that is not a readable PNG or bad
                rectangles; -7 if released.

        Thread: any.
        """
        options = _ffi.WatermarkOptions()
        options.struct_size = ctypes.sizeof(_ffi.WatermarkOptions)
        options.visible_in_preview = 1 if visible_in_preview else 0
        for name, rect in (("landscape", landscape), ("portrait", portrait if portrait is not None else landscape)):
            x, y, width, height = rect
            setattr(options, f"{name}_x", _c_int(x, f"{name} x"))
            setattr(options, f"{name}_y", _c_int(y, f"{name} y"))
            setattr(options, f"{name}_width", _c_int(width, f"{name} width"))
            setattr(options, f"{name}_height", _c_int(height, f"{name} height"))
        rc = _ffi.agoraish_engine_add_video_watermark(self.handle, _c_string(path, "path"), ctypes.byref(options))
        _check(rc, "add_video_watermark")

    def clear_video_watermarks(self) -> None:
        """Removes the watermark (Agora's clearVideoWatermarks).

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_clear_video_watermarks(self.handle), "clear_video_watermarks")

    # -- cameras (ABI 0.6) ---------------------------------------------------------

    def get_video_device_count(self) -> int:
        """Number of cameras: V4L2 capture devices (0 on a machine without any).

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_get_video_device_count(self.handle)
        if rc < 0:
            raise _library_error(rc, "get_video_device_count")
        return rc

    def get_video_device(self, index: int) -> VideoDeviceInfo:
        """One camera, by index in the current enumeration: ``(id, name, formats)``.

        Raises:
            AgoraishError: -2 index out of range; -7 if released.

        Thread: any.
        """
        info = _ffi.VideoDeviceInfo()
        rc = _ffi.agoraish_engine_get_video_device(self.handle, _c_int(index, "index"), ctypes.byref(info))
        _check(rc, "get_video_device")
        count = max(0, min(int(info.format_count), _ffi.AGORAISH_MAX_VIDEO_FORMATS))
        formats = [VideoFormat(int(f.width), int(f.height), int(f.fps), _text(f.fourcc)) for f in info.formats[:count]]
        return VideoDeviceInfo(_text(info.id), _text(info.name), formats)

    def enumerate_video_devices(self) -> List[VideoDeviceInfo]:
        """Every camera, as ``(id, name, formats)`` (Agora's enumerateVideoDevices).

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        devices: List[VideoDeviceInfo] = []
        for index in range(self.get_video_device_count()):
            try:
                devices.append(self.get_video_device(index))
            except AgoraishError as error:
                if error.code != -_ffi.AGORAISH_ERR_INVALID_ARGUMENT:
                    raise
                break  # the list shrank between the two calls
        return devices

    def set_video_device(self, device_id: str) -> None:
        """Chooses the camera by id, its /dev path (Agora's setDevice).

        Used when capture next starts (restarts it if running); a camera that
        will not open is reported through ``on_local_video_state_changed``.

        Raises:
            AgoraishError: -2 empty or over 511 bytes; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_video_device(self.handle, _c_string(device_id, "device_id"))
        _check(rc, "set_video_device")

    def get_current_video_device(self) -> str:
        """The chosen camera's id, else the first one found (Agora's getDevice).

        Raises:
            AgoraishError: -3 no camera; -7 if released.

        Thread: any.
        """
        return _read_string(
            lambda buf, length: _ffi.agoraish_engine_get_current_video_device(self.handle, buf, length),
            "get_current_video_device",
        )

    def set_camera_capturer_configuration(
        self,
        preference: int = CameraCapturerOutputPreference.AUTO,
        capture_width: int = 640,
        capture_height: int = 480,
    ) -> None:
        """The camera's capture size preference, for its next start (Agora's
        setCameraCapturerConfiguration).

        Args:
            preference: a ``CameraCapturerOutputPreference``: AUTO,
                PERFORMANCE and PREVIEW capture at the encoder's size and frame
                rate, MANUAL at `capture_width` x `capture_height`.
            capture_width, capture_height: 16..4096 (checked with any preference).

        Raises:
            AgoraishError: -2 unknown preference or size out of range; -7 if released.

        Thread: any.
        """
        config = _ffi.CameraCapturerConfiguration()
        config.struct_size = ctypes.sizeof(_ffi.CameraCapturerConfiguration)
        config.preference = _c_int(preference, "preference")
        config.capture_width = _c_int(capture_width, "capture_width")
        config.capture_height = _c_int(capture_height, "capture_height")
        rc = _ffi.agoraish_engine_set_camera_capturer_configuration(self.handle, ctypes.byref(config))
        _check(rc, "set_camera_capturer_configuration")

    def switch_camera(self) -> None:
        """Moves to the next camera, round robin (Agora's switchCamera).

        Raises:
            AgoraishError: -4 fewer than two cameras; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_switch_camera(self.handle), "switch_camera")

    def enable_local_video(self, enabled: bool) -> None:
        """Turns local video capture and sending on or off (Agora's
        enableLocalVideo; on by default); receiving goes on. Others get
        ``on_user_enable_local_video``.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_enable_local_video(self.handle, 1 if enabled else 0), "enable_local_video")

    def mute_local_video_stream(self, mute: bool) -> None:
        """Stops or resumes sending video (Agora's muteLocalVideoStream).

        Pushes still succeed; others get ``on_user_mute_video``. The first
        frame after a resume is a keyframe.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_mute_local_video_stream(self.handle, 1 if mute else 0), "mute_local_video_stream")

    def mute_remote_video_stream(self, uid: int, mute: bool) -> None:
        """Stops or resumes receiving one remote user's video (Agora's muteRemoteVideoStream).

        Raises:
            AgoraishError: -2 uid 0; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_mute_remote_video_stream(self.handle, _c_uint(uid, "uid"), 1 if mute else 0)
        _check(rc, "mute_remote_video_stream")

    def mute_all_remote_video_streams(self, mute: bool) -> None:
        """Stops or resumes receiving every remote user's video, including users
        who join later (Agora's muteAllRemoteVideoStreams). Unmuting all also
        clears per-user mutes and the default.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_mute_all_remote_video_streams(self.handle, 1 if mute else 0)
        _check(rc, "mute_all_remote_video_streams")

    def set_default_mute_all_remote_video_streams(self, mute: bool) -> None:
        """Whether users who join later start with their video muted (Agora's
        setDefaultMuteAllRemoteVideoStreams); users present keep their state.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_default_mute_all_remote_video_streams(self.handle, 1 if mute else 0)
        _check(rc, "set_default_mute_all_remote_video_streams")

    def get_connection_state(self) -> ConnectionState:
        """The connection state (Agora's getConnectionState).

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_get_connection_state(self.handle)
        if rc < 0:
            raise _library_error(rc, "get_connection_state")
        return _enum_or_int(ConnectionState, rc)  # type: ignore[return-value]

    # -- audio mixing and audio effects (ABI 0.13) ------------------------------

    def start_audio_mixing(self, file_path: StrPath, loopback: bool = False, cycle: int = 1,
                           start_pos: int = 0) -> None:
        """Mixes a music file or URL into the engine's audio (Agora's startAudioMixing):
        into what the engine's own connection publishes (the microphone or
        its custom audio track) and into local playout. A running mixing is
        replaced. Asynchronous: ``on_audio_mixing_state_changed(PLAYING, OK)``
        once the file opened, ``(FAILED, CAN_NOT_OPEN)`` when it cannot be.

        Args:
            file_path: a path or URL, as for ``MediaPlayer.open``.
            loopback: True: only the local user hears the music (not published).
            cycle: plays: 1 once, n times, -1 until stopped.
            start_pos: ms to start at.

        Raises:
            AgoraishError: -2 an empty path, `cycle` 0 or below -1 or a
                negative `start_pos`; -12 within 100 ms of the previous start
                (also reported as FAILED, TOO_FREQUENT_CALL); -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_start_audio_mixing(
            self.handle, _c_string(file_path, "file_path"), 1 if loopback else 0, _c_int(cycle, "cycle"),
            _c_int(start_pos, "start_pos"),
        )
        _check(rc, "start_audio_mixing")

    def stop_audio_mixing(self) -> None:
        """Stops the music (Agora's stopAudioMixing): STOPPED, STOPPED_BY_USER.

        Raises:
            AgoraishError: -8 no mixing running (never started, or it ended
                or failed on its own); -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_stop_audio_mixing(self.handle), "stop_audio_mixing")

    def pause_audio_mixing(self) -> None:
        """Pauses the music (Agora's pauseAudioMixing): PAUSED, PAUSED_BY_USER.

        Raises:
            AgoraishError: -8 not playing; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_pause_audio_mixing(self.handle), "pause_audio_mixing")

    def resume_audio_mixing(self) -> None:
        """Resumes the music (Agora's resumeAudioMixing): PLAYING, RESUMED_BY_USER.

        Raises:
            AgoraishError: -8 not paused; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_resume_audio_mixing(self.handle), "resume_audio_mixing")

    def adjust_audio_mixing_volume(self, volume: int) -> None:
        """Both the local and the published volume of the music (Agora's
        adjustAudioMixingVolume): 0..100.

        Raises:
            AgoraishError: -2 out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_adjust_audio_mixing_volume(self.handle, _c_int(volume, "volume"))
        _check(rc, "adjust_audio_mixing_volume")

    def adjust_audio_mixing_playout_volume(self, volume: int) -> None:
        """The music's local volume (Agora's adjustAudioMixingPlayoutVolume): 0..100.

        Raises:
            AgoraishError: -2 out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_adjust_audio_mixing_playout_volume(self.handle, _c_int(volume, "volume"))
        _check(rc, "adjust_audio_mixing_playout_volume")

    def adjust_audio_mixing_publish_volume(self, volume: int) -> None:
        """The music's published volume (Agora's adjustAudioMixingPublishVolume): 0..100.

        Raises:
            AgoraishError: -2 out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_adjust_audio_mixing_publish_volume(self.handle, _c_int(volume, "volume"))
        _check(rc, "adjust_audio_mixing_publish_volume")

    def get_audio_mixing_playout_volume(self) -> int:
        """The music's local volume, 0..100 (Agora's getAudioMixingPlayoutVolume).

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        return _nonnegative(_ffi.agoraish_engine_get_audio_mixing_playout_volume(self.handle),
                            "get_audio_mixing_playout_volume")

    def get_audio_mixing_publish_volume(self) -> int:
        """The music's published volume, 0..100 (Agora's getAudioMixingPublishVolume).

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        return _nonnegative(_ffi.agoraish_engine_get_audio_mixing_publish_volume(self.handle),
                            "get_audio_mixing_publish_volume")

    def get_audio_mixing_duration(self) -> int:
        """The music's duration in ms (Agora's getAudioMixingDuration).

        Raises:
            AgoraishError: -8 nothing opened; -7 if released.

        Thread: any.
        """
        return _nonnegative(_ffi.agoraish_engine_get_audio_mixing_duration(self.handle), "get_audio_mixing_duration")

    def get_audio_mixing_current_position(self) -> int:
        """The music's position in ms (Agora's getAudioMixingCurrentPosition).

        Raises:
            AgoraishError: -8 nothing opened; -7 if released.

        Thread: any.
        """
        return _nonnegative(_ffi.agoraish_engine_get_audio_mixing_current_position(self.handle),
                            "get_audio_mixing_current_position")

    def set_audio_mixing_position(self, pos_ms: int) -> None:
        """Moves the music to `pos_ms` (Agora's setAudioMixingPosition).

        Raises:
            AgoraishError: -2 negative; -8 nothing opened; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_audio_mixing_position(self.handle, _c_int(pos_ms, "pos_ms"))
        _check(rc, "set_audio_mixing_position")

    def set_audio_mixing_pitch(self, pitch: int) -> None:
        """The music's pitch in semitones (Agora's setAudioMixingPitch):
        -12..12, 0 unchanged; the speed is kept (12 doubles the frequency).

        Raises:
            AgoraishError: -2 out of range; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_set_audio_mixing_pitch(self.handle, _c_int(pitch, "pitch")),
               "set_audio_mixing_pitch")

    def set_audio_mixing_playback_speed(self, speed: int) -> None:
        """The music's speed in percent (Agora's setAudioMixingPlaybackSpeed):
        50..400, 100 normal; the pitch is kept.

        Raises:
            AgoraishError: -2 out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_audio_mixing_playback_speed(self.handle, _c_int(speed, "speed"))
        _check(rc, "set_audio_mixing_playback_speed")

    def preload_effect(self, sound_id: int, file_path: StrPath, start_pos: int = 0) -> None:
        """Preloads an effect (Agora's preloadEffect): the file is opened and
        checked now; a later ``play_effect(sound_id, None, ...)`` then needs
        no path, and starts at `start_pos` when it gives 0. Blocks until the
        file is open (at most 10 s for a URL).

        Raises:
            AgoraishError: -2 an empty path or a negative `start_pos`; -1 the
                file cannot be opened or decoded; -5 ``AGORAISH_MAX_AUDIO_EFFECTS``
                (16) effects are held; -7 if released.

        Thread: any (a URL not from the event thread: it would block events).
        """
        rc = _ffi.agoraish_engine_preload_effect(
            self.handle, _c_int(sound_id, "sound_id"), _c_string(file_path, "file_path"),
            _c_int(start_pos, "start_pos"),
        )
        _check(rc, "preload_effect")

    def play_effect(
        self,
        sound_id: int,
        file_path: Optional[StrPath],
        loop_count: int = 0,
        pitch: float = 1.0,
        pan: float = 0.0,
        gain: int = 100,
        publish: bool = False,
        start_pos: int = 0,
    ) -> None:
        """Plays an effect (Agora's playEffect); a sound id already playing is
        restarted. ``on_audio_effect_finished(sound_id)`` follows when all its
        loops have played.

        Args:
            sound_id: the host's id of the effect.
            file_path: the file or URL; None or "": the one preloaded for the id.
            loop_count: 0 once, 1 twice, ..., -1 until stopped.
            pitch: the pitch factor, 0.5..2.0 (1.0 unchanged; 2.0 doubles the frequency).
            pan: -1.0 (left) .. 0 (centre) .. 1.0 (right).
            gain: 0..100 (100 as decoded).
            publish: True: remote users hear it too (while the engine's own
                connection publishes audio); False: local only.
            start_pos: ms to start at (0 for a preloaded id: the preload's `start_pos`).

        A file that fails to open ends the effect without
        ``on_audio_effect_finished`` (the log says why).

        Raises:
            AgoraishError: -2 a value out of range, or no path for an id not
                preloaded; -5 ``AGORAISH_MAX_AUDIO_EFFECTS`` (16) effects are
                held; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_play_effect(
            self.handle, _c_int(sound_id, "sound_id"), _c_string(file_path, "file_path"),
            _c_int(loop_count, "loop_count"), float(pitch), float(pan), _c_int(gain, "gain"), 1 if publish else 0,
            _c_int(start_pos, "start_pos"),
        )
        _check(rc, "play_effect")

    def stop_effect(self, sound_id: int) -> None:
        """Stops an effect (Agora's stopEffect); it is not reported as finished.

        Raises:
            AgoraishError: -2 not playing; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_stop_effect(self.handle, _c_int(sound_id, "sound_id")), "stop_effect")

    def stop_all_effects(self) -> None:
        """Stops every effect (Agora's stopAllEffects).

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_stop_all_effects(self.handle), "stop_all_effects")

    def pause_effect(self, sound_id: int) -> None:
        """Pauses an effect (Agora's pauseEffect).

        Raises:
            AgoraishError: -2 not playing; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_pause_effect(self.handle, _c_int(sound_id, "sound_id")), "pause_effect")

    def pause_all_effects(self) -> None:
        """Pauses every effect (Agora's pauseAllEffects).

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_pause_all_effects(self.handle), "pause_all_effects")

    def resume_effect(self, sound_id: int) -> None:
        """Resumes a paused effect (Agora's resumeEffect).

        Raises:
            AgoraishError: -2 not paused; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_resume_effect(self.handle, _c_int(sound_id, "sound_id")), "resume_effect")

    def resume_all_effects(self) -> None:
        """Resumes every paused effect (Agora's resumeAllEffects).

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_resume_all_effects(self.handle), "resume_all_effects")

    def unload_effect(self, sound_id: int) -> None:
        """Stops an effect and forgets its preload (Agora's unloadEffect).

        Raises:
            AgoraishError: -2 an unknown id; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_unload_effect(self.handle, _c_int(sound_id, "sound_id")), "unload_effect")

    def unload_all_effects(self) -> None:
        """Stops every effect and forgets every preload (Agora's unloadAllEffects).

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_unload_all_effects(self.handle), "unload_all_effects")

    def set_effects_volume(self, volume: int) -> None:
        """The volume of every effect, 0..100, on top of each one's own (Agora's setEffectsVolume).

        Raises:
            AgoraishError: -2 out of range; -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_set_effects_volume(self.handle, _c_int(volume, "volume")), "set_effects_volume")

    def get_effects_volume(self) -> int:
        """The volume of every effect, 0..100 (Agora's getEffectsVolume).

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        return _nonnegative(_ffi.agoraish_engine_get_effects_volume(self.handle), "get_effects_volume")

    def set_volume_of_effect(self, sound_id: int, volume: int) -> None:
        """One effect's volume, 0..100 (Agora's setVolumeOfEffect).

        Raises:
            AgoraishError: -2 an unknown id or out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_volume_of_effect(self.handle, _c_int(sound_id, "sound_id"),
                                                       _c_int(volume, "volume"))
        _check(rc, "set_volume_of_effect")

    def get_volume_of_effect(self, sound_id: int) -> int:
        """One effect's volume, 0..100 (Agora's getVolumeOfEffect).

        Raises:
            AgoraishError: -2 an unknown id; -7 if released.

        Thread: any.
        """
        return _nonnegative(_ffi.agoraish_engine_get_volume_of_effect(self.handle, _c_int(sound_id, "sound_id")),
                            "get_volume_of_effect")

    def get_effect_duration(self, file_path: StrPath) -> int:
        """A file's duration in ms (Agora's getEffectDuration); opens the file
        (blocks, at most 10 s).

        Raises:
            AgoraishError: -2 an empty path; -1 the file cannot be opened; -7 if released.

        Thread: any.
        """
        return _nonnegative(_ffi.agoraish_engine_get_effect_duration(self.handle, _c_string(file_path, "file_path")),
                            "get_effect_duration")

    def set_effect_position(self, sound_id: int, pos_ms: int) -> None:
        """Moves a playing effect to `pos_ms` (Agora's setEffectPosition).

        Raises:
            AgoraishError: -2 not playing or negative; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_effect_position(self.handle, _c_int(sound_id, "sound_id"),
                                                      _c_int(pos_ms, "pos_ms"))
        _check(rc, "set_effect_position")

    def get_effect_current_position(self, sound_id: int) -> int:
        """A playing effect's position in ms (Agora's getEffectCurrentPosition).

        Raises:
            AgoraishError: -2 not playing; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_get_effect_current_position(self.handle, _c_int(sound_id, "sound_id"))
        return _nonnegative(rc, "get_effect_current_position")

    # -- media players (ABI 0.13) --------------------------------------------------

    def create_media_player(self) -> "MediaPlayer":
        """Creates a media player (Agora's createMediaPlayer): it plays a file
        or URL locally (its audio mixed into the engine's playout, its
        pictures to its canvas), and a connection publishes it with
        ``ChannelMediaOptions(publish_media_player_audio_track=True,
        publish_media_player_video_track=True, publish_media_player_id=player.id)``.

        Returns:
            A ``MediaPlayer``. The engine owns the player: ``destroy()`` (or
            ``destroy_media_player``) or the engine's release frees it; a
            ``MediaPlayer`` that is garbage collected leaves it alive.

        Raises:
            AgoraishError: -5 ``AGORAISH_MAX_MEDIA_PLAYERS`` (16) players
                exist; -7 if released.

        Thread: any.
        """
        player_id = ctypes.c_int(0)
        _check(_ffi.agoraish_engine_create_media_player(self.handle, ctypes.byref(player_id)), "create_media_player")
        callbacks = _PlayerCallbacks()
        player = MediaPlayer(self, player_id.value, callbacks)
        with self._media_lock:
            stale = self._player_callbacks.get(player_id.value)  # destroyed through _ffi: its id came back
            self._player_callbacks[player_id.value] = callbacks
            self._players[player_id.value] = player
        if stale is not None:
            _keep_forever(stale)
        return player

    def destroy_media_player(self, player: Union["MediaPlayer", int]) -> None:
        """Destroys a media player (Agora's destroyMediaPlayer): it stops, its
        thread ends, and connections publishing it publish nothing in its
        place. No callback of it runs after this returns (unless called from
        one of its own callbacks, which then finishes first). A
        ``MediaPlayer`` destroyed already is left as it is.

        Args:
            player: a ``MediaPlayer`` of this engine, or its id.

        Raises:
            AgoraishError: -2 an unknown id (or a player of another engine);
                -7 if released.

        Thread: any.
        """
        if isinstance(player, MediaPlayer):
            if player.engine is not self:
                raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, "destroy_media_player",
                                    "the player belongs to another engine")
            if player.destroyed:
                return
            player_id = player.id
        else:
            player_id = _c_int(player, "player")
        rc = _ffi.agoraish_engine_destroy_media_player(self.handle, player_id)
        if rc == 0:
            with self._media_lock:
                callbacks = self._player_callbacks.pop(player_id, None)
                destroyed = self._players.pop(player_id, None)
            if destroyed is not None:
                destroyed._destroyed = True
            if callbacks is not None:
                if _in_player_callback() or _in_event_callback():
                    _keep_forever(callbacks)  # maybe the player's own callback: the library did not wait
                else:
                    callbacks.drop_handler()
        _check(rc, "destroy_media_player")

    # -- media recorders (ABI 0.13) ------------------------------------------------

    def create_media_recorder(self, channel_id: str, uid: int, type: int = 0) -> "MediaRecorder":
        """Creates a recorder of one user's stream (Agora's createMediaRecorder):
        it writes that user's audio and video to an MP4 file (H.264 and AAC).

        Args:
            channel_id: the channel: a ``join_channel_ex`` connection in this
                channel when there is one at ``start_recording``, else the
                engine's own connection (joined or to join).
            uid: 0: the local user (what the engine's own connection sends);
                else that remote user of the channel, as received.
            type: RECORDER_STREAM_TYPE: 0 RTC (1 PREVIEW is -4).

        Returns:
            A ``MediaRecorder``; the engine owns the recorder (``destroy()``,
            ``destroy_media_recorder`` or the engine's release frees it).

        Raises:
            AgoraishError: -2 an invalid channel name; -4 `type` PREVIEW; -5
                ``AGORAISH_MAX_MEDIA_RECORDERS`` (8) recorders exist; -7 if released.

        Thread: any.
        """
        info = _ffi.RecorderStreamInfo()
        info.struct_size = ctypes.sizeof(_ffi.RecorderStreamInfo)
        info.channel_id = _c_string(channel_id, "channel_id")
        info.uid = _c_uint(uid, "uid")
        info.type = _c_int(type, "type")
        recorder_id = ctypes.c_int(0)
        rc = _ffi.agoraish_engine_create_media_recorder(self.handle, ctypes.byref(info), ctypes.byref(recorder_id))
        _check(rc, "create_media_recorder")
        recorder = MediaRecorder(self, recorder_id.value, _text(info.channel_id), int(info.uid))
        with self._media_lock:
            self._recorders[recorder_id.value] = recorder
        return recorder

    def destroy_media_recorder(self, recorder: Union["MediaRecorder", int]) -> None:
        """Destroys a recorder (Agora's destroyMediaRecorder), stopping it first
        (the file is complete when this returns). Its observer stays with the
        engine until the engine is released (its last events may still
        arrive). A ``MediaRecorder`` destroyed already is left as it is.

        Args:
            recorder: a ``MediaRecorder`` of this engine, or its id.

        Raises:
            AgoraishError: -2 an unknown id (or a recorder of another engine);
                -7 if released.

        Thread: any (not a callback of the recorder's observer).
        """
        if isinstance(recorder, MediaRecorder):
            if recorder.engine is not self:
                raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, "destroy_media_recorder",
                                    "the recorder belongs to another engine")
            if recorder.destroyed:
                return
            recorder_id = recorder.id
        else:
            recorder_id = _c_int(recorder, "recorder")
        rc = _ffi.agoraish_engine_destroy_media_recorder(self.handle, recorder_id)
        if rc == 0:
            with self._media_lock:
                destroyed = self._recorders.pop(recorder_id, None)
            if destroyed is not None:
                destroyed._destroyed = True
        _check(rc, "destroy_media_recorder")

    # -- voice processing and voice effects (ABI 0.14) ----------------------------

    def set_audio_scenario(self, scenario: int) -> None:
        """Sets the audio scenario (Agora 4.x setAudioScenario), an ``AudioScenario``:
        the audio processing captured audio gets (echo cancellation, noise
        suppression, gain control, high-pass), at once. The private parameters
        "che.audio.aec.enable", "che.audio.ans.enable" and "che.audio.agc.enable"
        (``set_parameters``) still override it step by step.

        Raises:
            AgoraishError: -2 an unknown scenario; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_audio_scenario(self.handle, _c_int(scenario, "scenario"))
        _check(rc, "set_audio_scenario")

    def set_ains_mode(self, enabled: bool, mode: int = AudioAinsMode.BALANCED) -> None:
        """Chooses noise suppression (Agora 4.x setAINSMode). Enabled, noise is
        suppressed at `mode`'s level on captured audio (and on custom audio
        tracks with processing, ``enable_custom_audio_track_processing``);
        disabled, the scenario's own choice applies again.

        Args:
            enabled: True: on, at `mode`.
            mode: an ``AudioAinsMode`` (read when enabled): BALANCED, AGGRESSIVE
                (more noise goes, some voice with it) or ULTRALOWLATENCY (the least processing).

        Raises:
            AgoraishError: -2 an unknown mode; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_ains_mode(self.handle, 1 if enabled else 0, _c_int(mode, "mode"))
        _check(rc, "set_ains_mode")

    def enable_custom_audio_track_processing(self, track_id: int, enabled: bool) -> None:
        """Audio processing on a mixable custom audio track (Agora's
        AudioTrackConfig.enableAudioProcessing): what the scenario gives
        captured audio (echo cancellation against the playout, noise
        suppression, gain control, high-pass) then applies to what is pushed
        into the track. Off by default: a track is sent as pushed.

        Raises:
            AgoraishError: -2 an unknown track, or a DIRECT track (direct tracks
                are never processed); -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_enable_custom_audio_track_processing(
            self.handle, _c_int(track_id, "track_id"), 1 if enabled else 0
        )
        _check(rc, "enable_custom_audio_track_processing")

    def set_voice_beautifier_preset(self, preset: int) -> None:
        """Applies a voice beautifier preset (Agora's setVoiceBeautifierPreset),
        a ``VoiceBeautifierPreset``; VOICE_BEAUTIFIER_OFF removes the beautifier
        set earlier. It replaces an audio effect or voice conversion preset and
        the host's own pitch, formant, equalization and reverb (the later call
        wins). Voice effects apply to captured audio, mixable custom audio
        tracks and the external audio source, within 10 ms, in or out of a call.

        Raises:
            AgoraishError: -2 an unknown preset; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_voice_beautifier_preset(self.handle, _c_int(preset, "preset"))
        _check(rc, "set_voice_beautifier_preset")

    def set_audio_effect_preset(self, preset: int) -> None:
        """Applies an audio effect preset (Agora's setAudioEffectPreset), an
        ``AudioEffectPreset``, with its default parameters; AUDIO_EFFECT_OFF
        removes the effect set earlier. Replaces as ``set_voice_beautifier_preset`` does.

        Raises:
            AgoraishError: -2 an unknown preset; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_audio_effect_preset(self.handle, _c_int(preset, "preset"))
        _check(rc, "set_audio_effect_preset")

    def set_voice_conversion_preset(self, preset: int) -> None:
        """Applies a voice conversion preset (Agora's setVoiceConversionPreset),
        a ``VoiceConversionPreset``; CONVERSION_OFF removes the conversion set
        earlier. Replaces as ``set_voice_beautifier_preset`` does.

        Raises:
            AgoraishError: -2 an unknown preset; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_voice_conversion_preset(self.handle, _c_int(preset, "preset"))
        _check(rc, "set_voice_conversion_preset")

    def set_voice_beautifier_parameters(self, preset: int, param1: int, param2: int) -> None:
        """Applies a beautifier preset with parameters (Agora's
        setVoiceBeautifierParameters). Only ``VoiceBeautifierPreset.SINGING_BEAUTIFIER``
        takes them: `param1` 1 a male voice, 2 a female voice; `param2` the
        reverb: 1 a small room, 2 a large room, 3 a hall.

        Raises:
            AgoraishError: -2 another preset or a parameter out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_voice_beautifier_parameters(
            self.handle, _c_int(preset, "preset"), _c_int(param1, "param1"), _c_int(param2, "param2")
        )
        _check(rc, "set_voice_beautifier_parameters")

    def set_audio_effect_parameters(self, preset: int, param1: int, param2: int) -> None:
        """Applies an audio effect preset with parameters (Agora's setAudioEffectParameters):

        - ``AudioEffectPreset.ROOM_ACOUSTICS_3D_VOICE`` and
          ``ROOM_ACOUSTICS_VIRTUAL_SURROUND_SOUND``: `param1` the seconds the
          voice takes to go round the listener, 0 (still) or 1..60 (10 by
          default); `param2` unused;
        - ``AudioEffectPreset.PITCH_CORRECTION``: `param1` the scale, 1 major,
          2 minor, 3 Japanese pentatonic; `param2` its tonic, 1 A .. 12 G#.

        Raises:
            AgoraishError: -2 another preset or a parameter out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_audio_effect_parameters(
            self.handle, _c_int(preset, "preset"), _c_int(param1, "param1"), _c_int(param2, "param2")
        )
        _check(rc, "set_audio_effect_parameters")

    def set_local_voice_pitch(self, pitch: float) -> None:
        """Changes the local voice's pitch (Agora's setLocalVoicePitch), its
        formants moving with it: 0.5 (an octave down) .. 2.0 (an octave up),
        1.0 unchanged. Replaces a preset set earlier.

        Raises:
            AgoraishError: -2 out of range or not a number; -7 if released.
            TypeError: `pitch` is not a number.

        Thread: any.
        """
        _check(_ffi.agoraish_engine_set_local_voice_pitch(self.handle, float(pitch)), "set_local_voice_pitch")

    def set_local_voice_formant(self, formant_ratio: float) -> None:
        """Moves the local voice's formants without changing its pitch (Agora's
        setLocalVoiceFormant): -1.0 (an octave down, a larger speaker) .. 1.0
        (an octave up, a smaller one), 0 unchanged. Replaces a preset set earlier.

        Raises:
            AgoraishError: -2 out of range or not a number; -7 if released.
            TypeError: `formant_ratio` is not a number.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_local_voice_formant(self.handle, float(formant_ratio))
        _check(rc, "set_local_voice_formant")

    def set_local_voice_equalization(self, band_frequency: int, band_gain: int) -> None:
        """Sets one band of the local voice's equalizer (Agora's
        setLocalVoiceEqualization): a peaking filter one octave wide at the
        band's frequency. Replaces a preset set earlier.

        Args:
            band_frequency: an ``AudioEqualizationBand`` (31 Hz .. 16 kHz).
            band_gain: -15..15 dB.

        Raises:
            AgoraishError: -2 an unknown band or a gain out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_local_voice_equalization(
            self.handle, _c_int(band_frequency, "band_frequency"), _c_int(band_gain, "band_gain")
        )
        _check(rc, "set_local_voice_equalization")

    def set_local_voice_reverb(self, reverb_key: int, value: int) -> None:
        """Sets one value of the local voice's reverb (Agora's setLocalVoiceReverb).
        The reverb is on while the wet level is above -20 dB or the room size
        or strength is above 0. Replaces a preset set earlier.

        Args:
            reverb_key: an ``AudioReverbType``: DRY_LEVEL and WET_LEVEL -20..10
                dB, ROOM_SIZE 0..100, WET_DELAY 0..200 ms, STRENGTH 0..100.
            value: in that key's range.

        Raises:
            AgoraishError: -2 an unknown key or a value out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_local_voice_reverb(
            self.handle, _c_int(reverb_key, "reverb_key"), _c_int(value, "value")
        )
        _check(rc, "set_local_voice_reverb")

    def set_headphone_eq_preset(self, preset: int) -> None:
        """Equalizes what the engine plays for a kind of headphones (Agora's
        setHeadphoneEQPreset), a ``HeadphoneEqualizerPreset``.

        Raises:
            AgoraishError: -2 an unknown preset; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_headphone_eq_preset(self.handle, _c_int(preset, "preset"))
        _check(rc, "set_headphone_eq_preset")

    def set_headphone_eq_parameters(self, low_gain: int, high_gain: int) -> None:
        """Adjusts the headphone equalizer's low and high frequencies (Agora's
        setHeadphoneEQParameters): `low_gain` is added to the bands of 31 to
        250 Hz and `high_gain` to those of 4 to 16 kHz, on top of the preset;
        each -10..10 dB.

        Raises:
            AgoraishError: -2 out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_headphone_eq_parameters(
            self.handle, _c_int(low_gain, "low_gain"), _c_int(high_gain, "high_gain")
        )
        _check(rc, "set_headphone_eq_parameters")

    # -- spatial audio and voice positions (ABI 0.14) -----------------------------

    def spatial_audio(self) -> "LocalSpatialAudioEngine":
        """The engine's local spatial audio engine (Agora's
        ILocalSpatialAudioEngine; ``getLocalSpatialAudioEngine`` in Agora's
        other SDKs): the same object on every call. It does nothing until
        its ``initialize()``.

        Thread: any.
        """
        with self._media_lock:
            if self._spatial is None:
                self._spatial = LocalSpatialAudioEngine(self)
            return self._spatial

    def enable_sound_position_indication(self, enabled: bool) -> None:
        """Enables stereo panning of remote voices (Agora 3.x
        enableSoundPositionIndication), before or during a call; disabling
        returns every voice to the middle.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_enable_sound_position_indication(self.handle, 1 if enabled else 0)
        _check(rc, "enable_sound_position_indication")

    def set_remote_voice_position(self, uid: int, pan: float, gain: float = 100.0) -> None:
        """Places a remote voice between the ears (Agora 3.x setRemoteVoicePosition),
        constant-power panning; heard only while ``enable_sound_position_indication(True)``.

        Args:
            uid: the remote user (not 0).
            pan: -1.0 left .. 0 middle .. 1.0 right.
            gain: 0.0 .. 100.0 (100 unchanged).

        Raises:
            AgoraishError: -2 uid 0 or a value out of range; -5 4096 other users
                have a position; -7 if released.
            TypeError: `pan` or `gain` is not a number.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_remote_voice_position(self.handle, _c_uint(uid, "uid"), float(pan),
                                                             float(gain))
        _check(rc, "set_remote_voice_position")

    # -- library information ------------------------------------------------------

    #: ``get_version()``: the library version and build number (Agora's getVersion).
    get_version = staticmethod(get_version)
    #: The same as ``get_version``, under the short name.
    version = staticmethod(get_version)
    #: ``get_error_description(code)``: the library's text for an error code.
    get_error_description = staticmethod(get_error_description)


# --------------------------------------------------------------------------
# A connection joined with join_channel_ex (ABI 0.11)
# --------------------------------------------------------------------------


class Connection:
    """A connection of an engine joined with ``RtcEngine.join_channel_ex``:
    the ``_ex`` methods of Agora's IRtcEngineEx, without the suffix, acting
    on this connection.

    Made by ``join_channel_ex``, not by the host. It names its connection
    by ``connection`` (the ``RtcConnection`` passed to the join), as the C
    functions do: after ``leave_channel()`` its methods raise -2 (the engine
    has no such connection), until the same connection is joined again.
    It holds its engine (not the other way round), so the engine lives as
    long as a ``Connection`` of it is referenced; releasing the engine ends
    every connection, and the methods then raise -7.

    Usable as a context manager: leaving the ``with`` block leaves the
    channel (if the connection is still joined).

    Each method returns what the engine's method of the same name returns
    and raises what it raises, and -2 for a connection the engine does not
    have (never joined, left, or its engine's channel left).

    Thread: every method may be called from any thread; the connection's
    events reach its ``EventHandlerEx`` on the engine's event thread.
    """

    def __init__(self, engine: RtcEngine, connection: RtcConnection, raw: Any, handler: Optional[object]) -> None:
        self._engine = engine
        self._connection = connection
        self._raw = raw  # the agoraish_rtc_connection every call passes; read-only for the library
        self._handler = handler

    @property
    def engine(self) -> RtcEngine:
        """The engine the connection belongs to.

        Thread: any.
        """
        return self._engine

    @property
    def connection(self) -> RtcConnection:
        """The ``RtcConnection`` (channel and local uid as joined) that names the connection.

        Thread: any.
        """
        return self._connection

    @property
    def channel_id(self) -> str:
        """The channel name.

        Thread: any.
        """
        return self._connection.channel_id

    @property
    def local_uid(self) -> int:
        """The local uid as given to ``join_channel_ex`` (0: the server picked
        one; ``on_join_channel_success`` tells which).

        Thread: any.
        """
        return self._connection.local_uid

    @property
    def handler(self) -> Optional[object]:
        """The ``EventHandlerEx`` given to ``join_channel_ex``, or None.

        Thread: any.
        """
        return self._handler

    def __repr__(self) -> str:
        return (f"<agoraish.Connection channel_id={self._connection.channel_id!r} "
                f"local_uid={self._connection.local_uid} of {self._engine!r}>")

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            self.leave_channel()
        except AgoraishError as error:
            if error.code not in (-_ffi.AGORAISH_ERR_LEAVE_CHANNEL_REJECTED, -_ffi.AGORAISH_ERR_NOT_INITIALIZED):
                raise

    def _ref(self) -> Any:
        return ctypes.byref(self._raw)

    # -- channel ----------------------------------------------------------------------

    def leave_channel(self) -> None:
        """Leaves the connection's channel: ``RtcEngine.leave_channel_ex(self.connection)``.

        ``on_leave_channel(connection, stats)`` then
        ``on_connection_state_changed(connection, DISCONNECTED, LEAVE_CHANNEL)``
        reach the handler; other connections go on.

        Raises:
            AgoraishError: -18 not joined (left already); -7 if the engine is released.

        Thread: any, also inside a callback.
        """
        self._engine.leave_channel_ex(self._connection)

    def update_channel_media_options(self, options: ChannelMediaOptions) -> None:
        """Changes what the connection publishes and receives (Agora's
        updateChannelMediaOptionsEx); see ``RtcEngine.update_channel_media_options``.

        Raises:
            AgoraishError: -2 None `options`, a field out of range, an
                unknown custom audio track, ``publish_camera_track=True`` or
                no such connection; -5 `channel_profile` in a channel; -7 if
                the engine is released.
            TypeError: `options` is neither None nor a ``ChannelMediaOptions``.

        Thread: any.
        """
        raw = _c_media_options(options)
        rc = _ffi.agoraish_engine_update_channel_media_options_ex(self._engine.handle, _ref(raw), self._ref())
        _check(rc, "update_channel_media_options_ex")

    def get_connection_state(self) -> ConnectionState:
        """The connection's state (Agora's getConnectionStateEx).

        Raises:
            AgoraishError: -2 no such connection; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_get_connection_state_ex(self._engine.handle, self._ref())
        if rc < 0:
            raise _library_error(rc, "get_connection_state_ex")
        return _enum_or_int(ConnectionState, rc)  # type: ignore[return-value]

    def get_call_id(self) -> str:
        """The id of the connection's current or last call (Agora's getCallIdEx).

        Raises:
            AgoraishError: -113 no call yet; -2 no such connection; -7 if the engine is released.

        Thread: any.
        """
        return _read_string(
            lambda buf, length: _ffi.agoraish_engine_get_call_id_ex(self._engine.handle, buf, length, self._ref()),
            "get_call_id_ex",
        )

    def get_user_info_by_uid(self, uid: int) -> UserInfo:
        """The ``(uid, user_account)`` of a uid the connection has learned of (getUserInfoByUidEx).

        Raises:
            AgoraishError: -2 an unknown uid or no such connection; -7 if the engine is released.

        Thread: any.
        """
        info = _ffi.UserInfo()
        rc = _ffi.agoraish_engine_get_user_info_by_uid_ex(
            self._engine.handle, _c_uint(uid, "uid"), ctypes.byref(info), self._ref()
        )
        _check(rc, "get_user_info_by_uid_ex")
        return UserInfo(int(info.uid), _text(info.user_account))

    def get_user_info_by_user_account(self, user_account: str) -> UserInfo:
        """The ``(uid, user_account)`` of an account the connection has learned of
        (getUserInfoByUserAccountEx).

        Raises:
            AgoraishError: -2 an unknown account or no such connection; -7 if the engine is released.

        Thread: any.
        """
        info = _ffi.UserInfo()
        rc = _ffi.agoraish_engine_get_user_info_by_user_account_ex(
            self._engine.handle, _c_string(user_account, "user_account"), ctypes.byref(info), self._ref()
        )
        _check(rc, "get_user_info_by_user_account_ex")
        return UserInfo(int(info.uid), _text(info.user_account))

    # -- audio ----------------------------------------------------------------------------

    def mute_local_audio_stream(self, mute: bool) -> None:
        """Stops or resumes sending the connection's audio (Agora's muteLocalAudioStreamEx).

        Raises:
            AgoraishError: -2 no such connection; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_mute_local_audio_stream_ex(self._engine.handle, 1 if mute else 0, self._ref())
        _check(rc, "mute_local_audio_stream_ex")

    def mute_remote_audio_stream(self, uid: int, mute: bool) -> None:
        """Stops or resumes receiving one remote user's audio on this connection
        (Agora's muteRemoteAudioStreamEx).

        Raises:
            AgoraishError: -2 uid 0 or no such connection; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_mute_remote_audio_stream_ex(
            self._engine.handle, _c_uint(uid, "uid"), 1 if mute else 0, self._ref()
        )
        _check(rc, "mute_remote_audio_stream_ex")

    def mute_all_remote_audio_streams(self, mute: bool) -> None:
        """Stops or resumes receiving every remote user's audio on this
        connection (Agora's muteAllRemoteAudioStreamsEx).

        Raises:
            AgoraishError: -2 no such connection; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_mute_all_remote_audio_streams_ex(self._engine.handle, 1 if mute else 0,
                                                                   self._ref())
        _check(rc, "mute_all_remote_audio_streams_ex")

    def adjust_user_playback_signal_volume(self, uid: int, volume: int) -> None:
        """Volume of one remote user of this connection (Agora's
        adjustUserPlaybackSignalVolumeEx): 0..100, 100 unchanged.

        Raises:
            AgoraishError: -2 uid 0, a volume out of range or no such
                connection; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_adjust_user_playback_signal_volume_ex(
            self._engine.handle, _c_uint(uid, "uid"), _c_int(volume, "volume"), self._ref()
        )
        _check(rc, "adjust_user_playback_signal_volume_ex")

    # -- video ----------------------------------------------------------------------------

    def set_video_encoder_configuration(
        self,
        width: int,
        height: int,
        frame_rate: int = 15,
        bitrate: int = 0,
        min_bitrate: int = -1,
        codec_type: int = VideoCodecType.VP8,
        orientation_mode: int = OrientationMode.ADAPTIVE,
        degradation_preference: int = DegradationPreference.MAINTAIN_QUALITY,
        mirror_mode: int = VideoMirrorMode.AUTO,
    ) -> None:
        """Sets what the connection's own encoder (its custom video track)
        aims for (Agora's setVideoEncoderConfigurationEx); the arguments are
        those of ``RtcEngine.set_video_encoder_configuration``.

        Raises:
            AgoraishError: -2 a value out of range or no such connection; -7
                if the engine is released.

        Thread: any.
        """
        config = RtcEngine._encoder_configuration(width, height, frame_rate, bitrate, min_bitrate, codec_type,
                                                  orientation_mode, degradation_preference, mirror_mode)
        rc = _ffi.agoraish_engine_set_video_encoder_configuration_ex(self._engine.handle, ctypes.byref(config),
                                                                    self._ref())
        _check(rc, "set_video_encoder_configuration_ex")

    def enable_dual_stream_mode(self, enabled: bool) -> None:
        """Sends a low stream beside the high one on this connection (Agora's
        enableDualStreamModeEx); see ``RtcEngine.enable_dual_stream_mode``.

        Raises:
            AgoraishError: -2 no such connection; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_enable_dual_stream_mode_ex(self._engine.handle, 1 if enabled else 0, self._ref())
        _check(rc, "enable_dual_stream_mode_ex")

    def set_simulcast_config(self, config: SimulcastConfig) -> None:
        """Sends simulcast layers besides the connection's high stream (Agora's
        setSimulcastConfigEx, ABI 0.12), as ``enable_dual_stream_mode`` sets
        its low stream; see ``RtcEngine.set_simulcast_config``.

        Raises:
            AgoraishError: as ``RtcEngine.set_simulcast_config``; -2 also for
                no such connection; -7 if the engine is released.
            TypeError: as ``RtcEngine.set_simulcast_config``.

        Thread: any.
        """
        raw = _c_simulcast_config(config)
        rc = _ffi.agoraish_engine_set_simulcast_config_ex(self._engine.handle, ctypes.byref(raw), self._ref())
        _check(rc, "set_simulcast_config_ex")

    def mute_local_video_stream(self, mute: bool) -> None:
        """Stops or resumes sending the connection's video (Agora's muteLocalVideoStreamEx).

        Raises:
            AgoraishError: -2 no such connection; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_mute_local_video_stream_ex(self._engine.handle, 1 if mute else 0, self._ref())
        _check(rc, "mute_local_video_stream_ex")

    def set_remote_default_video_stream_type(self, stream_type: int) -> None:
        """The stream received on this connection of users not named by
        ``set_remote_video_stream_type`` (Agora's setRemoteDefaultVideoStreamTypeEx):
        a ``VideoStreamType`` (HIGH, LOW or LAYER_1 .. LAYER_6).

        Raises:
            AgoraishError: -2 another type or no such connection; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_remote_default_video_stream_type_ex(
            self._engine.handle, _c_int(stream_type, "stream_type"), self._ref()
        )
        _check(rc, "set_remote_default_video_stream_type_ex")

    def mute_remote_video_stream(self, uid: int, mute: bool) -> None:
        """Stops or resumes receiving one remote user's video on this
        connection (Agora's muteRemoteVideoStreamEx).

        Raises:
            AgoraishError: -2 uid 0 or no such connection; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_mute_remote_video_stream_ex(
            self._engine.handle, _c_uint(uid, "uid"), 1 if mute else 0, self._ref()
        )
        _check(rc, "mute_remote_video_stream_ex")

    def mute_all_remote_video_streams(self, mute: bool) -> None:
        """Stops or resumes receiving every remote user's video on this
        connection (Agora's muteAllRemoteVideoStreamsEx).

        Raises:
            AgoraishError: -2 no such connection; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_mute_all_remote_video_streams_ex(self._engine.handle, 1 if mute else 0,
                                                                   self._ref())
        _check(rc, "mute_all_remote_video_streams_ex")

    def set_remote_video_stream_type(self, uid: int, stream_type: int) -> None:
        """Receives the high or low stream of `uid`, or one of its simulcast
        layers, on this connection (Agora's setRemoteVideoStreamTypeEx): a
        ``VideoStreamType``; see ``RtcEngine.set_remote_video_stream_type``.

        Raises:
            AgoraishError: -2 uid 0, another type or no such connection; -7
                if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_remote_video_stream_type_ex(
            self._engine.handle, _c_uint(uid, "uid"), _c_int(stream_type, "stream_type"), self._ref()
        )
        _check(rc, "set_remote_video_stream_type_ex")

    def setup_remote_video(
        self,
        uid: int,
        sink: Optional[Callable[[VideoFrame], Any]],
        *,
        render_mode: int = RenderMode.HIDDEN,
        mirror_mode: int = VideoMirrorMode.AUTO,
        view_width: int = 0,
        view_height: int = 0,
    ) -> None:
        """Binds the render sink of a remote user of this connection (Agora's
        setupRemoteVideoEx), or unbinds it with None; the arguments are those
        of ``RtcEngine.setup_remote_video``.

        The sink runs on the connection's own video thread. The engine keeps
        it until it is replaced, unbound, the connection is left or the
        engine is released.

        Raises:
            AgoraishError: -2 uid 0, an unknown render or mirror mode, a bad
                view size or no such connection; -7 if the engine is released.
            TypeError: `sink` is neither None nor callable.

        Thread: any, also from inside a sink.
        """
        uid = _c_uint(uid, "uid")
        keep = RtcEngine._canvas(uid, sink, render_mode, mirror_mode, view_width, view_height)
        engine = self._engine
        with engine._ex_lock:
            registry = engine._ex_sinks.get(self._connection)
        if registry is None:  # left, or the engine released: the library knows no such connection
            if keep is not None:
                keep.drop_handler()
            rc = -_ffi.AGORAISH_ERR_NOT_INITIALIZED if engine.released else -_ffi.AGORAISH_ERR_INVALID_ARGUMENT
            raise AgoraishError(rc, "setup_remote_video_ex", "the engine has no such connection")
        _check(registry.setup(engine.handle, uid, keep), "setup_remote_video_ex")

    def take_snapshot(self, uid: int, path: StrPath) -> None:
        """Writes the next picture of `uid` in this connection to `path`
        (Agora's takeSnapshotEx); ``on_snapshot_taken`` reaches the
        connection's handler. See ``RtcEngine.take_snapshot``.

        Raises:
            AgoraishError: -2 another extension or no such connection; -113
                not in a call; -12 eight snapshots of that user already
                waiting; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_take_snapshot_ex(
            self._engine.handle, _c_uint(uid, "uid"), _c_string(path, "path"), self._ref()
        )
        _check(rc, "take_snapshot_ex")

    # -- data, metadata, encryption ----------------------------------------------------

    def create_data_stream(self, sync_with_audio: bool, ordered: bool) -> int:
        """Creates an unreliable data stream of this connection from Agora's
        DataStreamConfig (createDataStreamEx(streamId, config, connection));
        see ``RtcEngine.create_data_stream_with_config``.

        Returns:
            The stream's id, 1..255.

        Raises:
            AgoraishError: -116 five streams exist; -2 no such connection; -7
                if the engine is released.

        Thread: any.
        """
        config = _ffi.DataStreamConfig()
        config.struct_size = ctypes.sizeof(_ffi.DataStreamConfig)
        config.sync_with_audio = 1 if sync_with_audio else 0
        config.ordered = 1 if ordered else 0
        stream_id = ctypes.c_int(0)
        rc = _ffi.agoraish_engine_create_data_stream_ex(
            self._engine.handle, ctypes.byref(stream_id), ctypes.byref(config), self._ref()
        )
        _check(rc, "create_data_stream_ex")
        return stream_id.value

    def send_stream_message(self, stream_id: int, data: Any) -> None:
        """Sends a message on a data stream of this connection (Agora's
        sendStreamMessageEx); see ``RtcEngine.send_stream_message``.

        Raises:
            AgoraishError: -2 empty, an unknown stream or no such connection;
                -114 more than 1024 bytes; -115 over the rate; -113 not in a
                call; -5 an audience member of a live broadcast; -7 if the
                engine is released.
            TypeError: `data` is not bytes-like.

        Thread: any.
        """
        payload = _payload(data, "data")
        rc = _ffi.agoraish_engine_send_stream_message_ex(
            self._engine.handle, _c_int(stream_id, "stream_id"), payload, len(payload), self._ref()
        )
        _check(rc, "send_stream_message_ex")

    def send_audio_metadata(self, data: Any) -> None:
        """Sends audio metadata to every other user of the connection's channel
        (Agora's sendAudioMetadataEx); see ``RtcEngine.send_audio_metadata``.

        Raises:
            AgoraishError: -2 empty, above 1024 bytes or no such connection;
                -113 not in a call; -5 an audience member of a live broadcast;
                -7 if the engine is released.
            TypeError: `data` is not bytes-like.

        Thread: any.
        """
        payload = _payload(data, "data")
        rc = _ffi.agoraish_engine_send_audio_metadata_ex(self._engine.handle, payload, len(payload), self._ref())
        _check(rc, "send_audio_metadata_ex")

    def enable_encryption(
        self,
        enabled: bool,
        mode: int = EncryptionMode.AES_128_GCM2,
        key: Union[str, bytes, None] = None,
        salt: Any = b"",
    ) -> None:
        """Turns the connection's end-to-end encryption on or off (Agora's
        enableEncryptionEx): each connection has its own key and mode. The
        arguments are those of ``RtcEngine.enable_encryption``.

        Raises:
            AgoraishError: -2 an unknown mode, no, empty or too long a key, a
                salt that is not 32 bytes, a GCM2 mode with an all-zero salt,
                or no such connection; -4 a mode this library's OpenSSL lacks;
                -7 if the engine is released.
            TypeError: `salt` is not bytes-like.

        Thread: any.
        """
        handle = self._engine.handle
        if not enabled:
            _check(_ffi.agoraish_engine_enable_encryption_ex(handle, 0, None, self._ref()), "enable_encryption_ex")
            return
        salt_bytes = _payload(salt, "salt")
        if len(salt_bytes) not in (0, 32):
            raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, f"a salt of {len(salt_bytes)} bytes (not 32)")
        config = _ffi.EncryptionConfig()
        config.struct_size = ctypes.sizeof(_ffi.EncryptionConfig)
        config.encryption_mode = _c_int(mode, "mode")
        config.encryption_key = _c_string(key, "key")
        if salt_bytes:
            ctypes.memmove(config.encryption_kdf_salt, salt_bytes, 32)
        rc = _ffi.agoraish_engine_enable_encryption_ex(handle, 1, ctypes.byref(config), self._ref())
        _check(rc, "enable_encryption_ex")


# --------------------------------------------------------------------------
# Media players and media recorders (ABI 0.13)
# --------------------------------------------------------------------------


class MediaPlayer:
    """A media player of an engine (Agora's IMediaPlayer), made by
    ``RtcEngine.create_media_player``.

    It plays a file or URL in real time: local files (MP4, WebM, MKV, Ogg,
    WAV, MP3, FLAC, ... and the codecs FFmpeg decodes) and http(s)://, HLS
    (.m3u8) and rtmp:// URLs. Its audio is played locally (mixed into the
    engine's playout: the device while the engine is in a call, or the
    external sink's ``pull_playback_audio_frame`` whenever the host pulls)
    and its pictures go to its canvas
    (``set_view``); a connection publishes them by choosing the player in its
    ``ChannelMediaOptions`` (``publish_media_player_audio_track``,
    ``publish_media_player_video_track``, ``publish_media_player_id``).

    Calls return at once and are carried out in order on the player's own
    thread (``agoraish-mp<n>``); ``open`` is asynchronous: its outcome reaches
    the ``MediaPlayerSourceObserver``. Audio is the master clock: pictures
    follow the audio's position across pauses, seeks, loops and speed changes.

    Owner: the engine. ``destroy()`` (or ``RtcEngine.destroy_media_player``)
    or the engine's release frees the player; this object does not, when it
    is garbage collected. It holds its engine, so the engine lives as long as
    a ``MediaPlayer`` of it is referenced. Usable as a context manager:
    leaving the ``with`` block destroys the player.

    Errors: every method raises ``AgoraishError`` for a negative return of the
    library: -2 a bad argument (and, without a library call, for a player
    destroyed already), -8 a call that does not fit the player's state (a
    getter before the source opened), -7 once the engine is released.

    Thread: every method may be called from any thread, also from the
    player's callbacks.
    """

    def __init__(self, engine: RtcEngine, player_id: int, callbacks: _PlayerCallbacks) -> None:
        self._engine = engine
        self._id = player_id
        self._callbacks = callbacks
        self._destroyed = False

    @property
    def id(self) -> int:
        """The player's id in its engine (1 and up), for
        ``ChannelMediaOptions.publish_media_player_id``.

        Thread: any.
        """
        return self._id

    def get_media_player_id(self) -> int:
        """The player's id (Agora's getMediaPlayerId): ``id``.

        Thread: any.
        """
        return self._id

    @property
    def engine(self) -> RtcEngine:
        """The engine the player belongs to.

        Thread: any.
        """
        return self._engine

    @property
    def destroyed(self) -> bool:
        """Whether the player was destroyed (``destroy()`` or ``RtcEngine.destroy_media_player``).

        Thread: any.
        """
        return self._destroyed

    def __repr__(self) -> str:
        state = " destroyed" if self._destroyed else ""
        return f"<agoraish.MediaPlayer id={self._id}{state} of {self._engine!r}>"

    def __enter__(self) -> "MediaPlayer":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.destroy()

    def _target(self, operation: str) -> Tuple[int, int]:
        """(engine handle, player id) for a call; -2 for a destroyed player."""
        if self._destroyed:
            raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, operation, "the player was destroyed")
        return self._engine.handle, self._id

    def _get(self, function: Callable[..., int], ctype: Any, operation: str) -> Any:
        """The value a getter of the header writes through its last argument."""
        out = ctype(0)
        _check(function(*self._target(operation), ctypes.byref(out)), operation)
        return out.value

    # -- playback --------------------------------------------------------------------

    def open(self, url: StrPath, start_pos: int = 0) -> None:
        """Opens a file or URL (Agora's open): the state goes to OPENING at
        once, then to OPEN_COMPLETED or FAILED with a reason (see
        ``MediaPlayerSourceObserver.on_player_source_state_changed``).
        Opening again replaces the source.

        Args:
            url: a path, file://, http(s)://, an HLS playlist or rtmp://; 1..4095 bytes.
            start_pos: ms to start at (ignored for a live source).

        Raises:
            AgoraishError: -2 an empty url or a negative `start_pos`; -7 if the engine is released.

        Thread: any.
        """
        handle, player_id = self._target("MediaPlayer.open")
        rc = _ffi.agoraish_media_player_open(handle, player_id, _c_string(url, "url"),
                                             _c_int64(start_pos, "start_pos"))
        _check(rc, "MediaPlayer.open")

    def play(self) -> None:
        """Plays (Agora's play): from OPEN_COMPLETED or PAUSED; after
        PLAYBACK_ALL_LOOPS_COMPLETED from the start. The state goes to PLAYING.

        Raises:
            AgoraishError: -8 nothing opened; -7 if the engine is released.

        Thread: any.
        """
        _check(_ffi.agoraish_media_player_play(*self._target("MediaPlayer.play")), "MediaPlayer.play")

    def pause(self) -> None:
        """Pauses (Agora's pause): the state goes to PAUSED.

        Raises:
            AgoraishError: -8 not playing; -7 if the engine is released.

        Thread: any.
        """
        _check(_ffi.agoraish_media_player_pause(*self._target("MediaPlayer.pause")), "MediaPlayer.pause")

    def resume(self) -> None:
        """Resumes after ``pause`` (Agora's resume): the state goes to PLAYING.

        Raises:
            AgoraishError: -8 not paused; -7 if the engine is released.

        Thread: any.
        """
        _check(_ffi.agoraish_media_player_resume(*self._target("MediaPlayer.resume")), "MediaPlayer.resume")

    def stop(self) -> None:
        """Stops and closes the source (Agora's stop): the state goes to STOPPED.

        Raises:
            AgoraishError: -7 if the engine is released.

        Thread: any.
        """
        _check(_ffi.agoraish_media_player_stop(*self._target("MediaPlayer.stop")), "MediaPlayer.stop")

    def seek(self, position_ms: int) -> None:
        """Seeks to `position_ms`, exactly (Agora's seek): events SEEK_BEGIN,
        then SEEK_COMPLETE, or SEEK_ERROR for a source that cannot seek.

        Raises:
            AgoraishError: -2 a negative position; -8 nothing opened; -7 if the engine is released.

        Thread: any.
        """
        handle, player_id = self._target("MediaPlayer.seek")
        rc = _ffi.agoraish_media_player_seek(handle, player_id, _c_int64(position_ms, "position_ms"))
        _check(rc, "MediaPlayer.seek")

    def set_loop_count(self, loop_count: int) -> None:
        """Loops after the first play (Agora's setLoopCount): 0 plays once, n
        plays n + 1 times, -1 forever.

        Raises:
            AgoraishError: -2 below -1; -7 if the engine is released.

        Thread: any.
        """
        handle, player_id = self._target("MediaPlayer.set_loop_count")
        rc = _ffi.agoraish_media_player_set_loop_count(handle, player_id, _c_int(loop_count, "loop_count"))
        _check(rc, "MediaPlayer.set_loop_count")

    def get_duration(self) -> int:
        """The source's duration in ms, 0 for a live source (Agora's getDuration).

        Raises:
            AgoraishError: -8 nothing opened; -7 if the engine is released.

        Thread: any.
        """
        return int(self._get(_ffi.agoraish_media_player_get_duration, ctypes.c_int64, "MediaPlayer.get_duration"))

    def get_play_position(self) -> int:
        """The position in ms (Agora's getPlayPosition).

        Raises:
            AgoraishError: -8 nothing opened; -7 if the engine is released.

        Thread: any.
        """
        return int(self._get(_ffi.agoraish_media_player_get_play_position, ctypes.c_int64,
                             "MediaPlayer.get_play_position"))

    def get_state(self) -> MediaPlayerState:
        """The state (Agora's getState): a ``MediaPlayerState``.

        Raises:
            AgoraishError: -7 if the engine is released.

        Thread: any.
        """
        state = self._get(_ffi.agoraish_media_player_get_state, ctypes.c_int, "MediaPlayer.get_state")
        return _enum_or_int(MediaPlayerState, state)  # type: ignore[return-value]

    def get_stream_count(self) -> int:
        """The number of streams of the source (Agora's getStreamCount).

        Raises:
            AgoraishError: -8 nothing opened; -7 if the engine is released.

        Thread: any.
        """
        return int(self._get(_ffi.agoraish_media_player_get_stream_count, ctypes.c_int64,
                             "MediaPlayer.get_stream_count"))

    def get_stream_info(self, index: int) -> PlayerStreamInfo:
        """One stream of the source (Agora's getStreamInfo), 0..``get_stream_count()`` - 1.

        Raises:
            AgoraishError: -2 an index out of range; -8 nothing opened; -7 if the engine is released.

        Thread: any.
        """
        handle, player_id = self._target("MediaPlayer.get_stream_info")
        raw = _ffi.PlayerStreamInfo()
        raw.struct_size = ctypes.sizeof(_ffi.PlayerStreamInfo)
        rc = _ffi.agoraish_media_player_get_stream_info(handle, player_id, _c_int64(index, "index"),
                                                        ctypes.byref(raw))
        _check(rc, "MediaPlayer.get_stream_info")
        return PlayerStreamInfo(
            stream_index=int(raw.stream_index),
            stream_type=_enum_or_int(MediaStreamType, raw.stream_type),
            codec_name=_text(raw.codec_name),
            language=_text(raw.language),
            video_frame_rate=int(raw.video_frame_rate),
            video_bit_rate=int(raw.video_bit_rate),
            video_width=int(raw.video_width),
            video_height=int(raw.video_height),
            video_rotation=int(raw.video_rotation),
            audio_sample_rate=int(raw.audio_sample_rate),
            audio_channels=int(raw.audio_channels),
            audio_bits_per_sample=int(raw.audio_bits_per_sample),
            duration=int(raw.duration),
        )

    def select_audio_track(self, index: int) -> None:
        """Decodes audio stream `index` (a ``PlayerStreamInfo.stream_index`` of
        an AUDIO stream) from now on (Agora's selectAudioTrack); event
        AUDIO_TRACK_CHANGED.

        Raises:
            AgoraishError: -2 not an audio stream; -8 nothing opened; -7 if the engine is released.

        Thread: any.
        """
        handle, player_id = self._target("MediaPlayer.select_audio_track")
        rc = _ffi.agoraish_media_player_select_audio_track(handle, player_id, _c_int(index, "index"))
        _check(rc, "MediaPlayer.select_audio_track")

    def set_playback_speed(self, speed: int) -> None:
        """Playback speed in percent (Agora's setPlaybackSpeed): 30..400, 100
        normal. Audio keeps its pitch; pictures follow.

        Raises:
            AgoraishError: -2 out of range; -7 if the engine is released.

        Thread: any.
        """
        handle, player_id = self._target("MediaPlayer.set_playback_speed")
        rc = _ffi.agoraish_media_player_set_playback_speed(handle, player_id, _c_int(speed, "speed"))
        _check(rc, "MediaPlayer.set_playback_speed")

    # -- volumes ---------------------------------------------------------------------

    def adjust_playout_volume(self, volume: int) -> None:
        """The local playout volume (Agora's adjustPlayoutVolume): 0..400, 100 as decoded.

        Raises:
            AgoraishError: -2 out of range; -7 if the engine is released.

        Thread: any.
        """
        handle, player_id = self._target("MediaPlayer.adjust_playout_volume")
        rc = _ffi.agoraish_media_player_adjust_playout_volume(handle, player_id, _c_int(volume, "volume"))
        _check(rc, "MediaPlayer.adjust_playout_volume")

    def get_playout_volume(self) -> int:
        """The local playout volume, 0..400 (Agora's getPlayoutVolume).

        Raises:
            AgoraishError: -7 if the engine is released.

        Thread: any.
        """
        return int(self._get(_ffi.agoraish_media_player_get_playout_volume, ctypes.c_int,
                             "MediaPlayer.get_playout_volume"))

    def adjust_publish_signal_volume(self, volume: int) -> None:
        """The published volume (Agora's adjustPublishSignalVolume): 0..400, 100 as decoded.

        Raises:
            AgoraishError: -2 out of range; -7 if the engine is released.

        Thread: any.
        """
        handle, player_id = self._target("MediaPlayer.adjust_publish_signal_volume")
        rc = _ffi.agoraish_media_player_adjust_publish_signal_volume(handle, player_id, _c_int(volume, "volume"))
        _check(rc, "MediaPlayer.adjust_publish_signal_volume")

    def get_publish_signal_volume(self) -> int:
        """The published volume, 0..400 (Agora's getPublishSignalVolume).

        Raises:
            AgoraishError: -7 if the engine is released.

        Thread: any.
        """
        return int(self._get(_ffi.agoraish_media_player_get_publish_signal_volume, ctypes.c_int,
                             "MediaPlayer.get_publish_signal_volume"))

    def mute(self, muted: bool) -> None:
        """Mutes the player's audio (Agora's mute): it is neither played nor
        published; pictures go on.

        Raises:
            AgoraishError: -7 if the engine is released.

        Thread: any.
        """
        handle, player_id = self._target("MediaPlayer.mute")
        _check(_ffi.agoraish_media_player_mute(handle, player_id, 1 if muted else 0), "MediaPlayer.mute")

    def get_mute(self) -> bool:
        """Whether the player's audio is muted (Agora's getMute).

        Raises:
            AgoraishError: -7 if the engine is released.

        Thread: any.
        """
        return bool(self._get(_ffi.agoraish_media_player_get_mute, ctypes.c_int, "MediaPlayer.get_mute"))

    # -- pictures and observers ------------------------------------------------------

    def set_view(
        self,
        on_frame: Optional[Callable[[int, VideoFrame], Any]],
        render_mode: int = RenderMode.HIDDEN,
        mirror_mode: int = VideoMirrorMode.AUTO,
        view_width: int = 0,
        view_height: int = 0,
    ) -> None:
        """Binds the player's canvas (Agora's setView with a callback instead
        of a view), or unbinds it with None.

        Args:
            on_frame: a callable taking ``(uid, frame)``, or None. `uid` is 0
                and `frame` a ``VideoFrame`` (read-only planes, valid during
                the call only) whose ``alpha`` is the picture's alpha plane
                when the source has one. It receives each picture when its
                time comes, on the player's thread (``agoraish-mp<n>``). An
                exception it raises is reported through ``sys.unraisablehook``.
                The engine keeps it referenced until the player is destroyed.
            render_mode: a ``RenderMode``; applies when a view size is set.
            mirror_mode: a ``VideoMirrorMode``: ENABLED mirrors the
                pictures; AUTO and DISABLED leave them as they are.
            view_width, view_height: the host's view size: each picture is
                fitted to it by `render_mode` (2..4096 on both sides); 0 x 0
                hands pictures over at their own size.

        Raises:
            AgoraishError: -2 an unknown render or mirror mode or a bad view
                size; -7 if the engine is released.
            TypeError: `on_frame` is neither None nor callable.

        Thread: any, also from inside `on_frame`.
        """
        render_mode = _c_int(render_mode, "render_mode")
        mirror_mode = _c_int(mirror_mode, "mirror_mode")
        view_width = _c_int(view_width, "view_width")
        view_height = _c_int(view_height, "view_height")
        keep = None
        if on_frame is not None:
            if not callable(on_frame):
                raise TypeError(f"on_frame must be callable or None, not {type(on_frame).__name__}")
            keep = _frame_callback_keepalive("view", on_frame, render_mode, mirror_mode, view_width, view_height)
        handle, player_id = self._target("MediaPlayer.set_view")
        rc = self._callbacks.register(
            "view", lambda canvas: _ffi.agoraish_media_player_set_view(handle, player_id, canvas), keep)
        _check(rc, "MediaPlayer.set_view")

    def set_render_mode(self, render_mode: int) -> None:
        """The canvas's render mode (Agora's setRenderMode): a ``RenderMode``
        (HIDDEN, FIT, ADAPTIVE as HIDDEN, or FILL).

        Raises:
            AgoraishError: -2 an unknown mode; -7 if the engine is released.

        Thread: any.
        """
        handle, player_id = self._target("MediaPlayer.set_render_mode")
        rc = _ffi.agoraish_media_player_set_render_mode(handle, player_id, _c_int(render_mode, "render_mode"))
        _check(rc, "MediaPlayer.set_render_mode")

    def register_player_source_observer(self, observer: Optional[object]) -> None:
        """Registers the player's event observer (Agora's
        registerPlayerSourceObserver), or removes it with None.

        Args:
            observer: a ``MediaPlayerSourceObserver`` (or any object with its
                methods), or None. Only the methods it overrides are
                installed; they run on the engine's event thread. The engine
                keeps it referenced until the player is destroyed.

        Raises:
            AgoraishError: -7 if the engine is released.

        Thread: any.
        """
        keep = None
        if observer is not None:
            keep = _observer_keepalive(observer, _ffi.MediaPlayerObserverTable(), _PLAYER_SOURCE_CALLBACKS,
                                       MediaPlayerSourceObserver, _PLAYER_SOURCE_NAMES, _WARNED_PLAYER_CLASSES)
        handle, player_id = self._target("MediaPlayer.register_player_source_observer")
        rc = self._callbacks.register(
            "source",
            lambda table: _ffi.agoraish_media_player_register_player_source_observer(handle, player_id, table),
            keep,
        )
        _check(rc, "MediaPlayer.register_player_source_observer")

    def register_audio_frame_observer(self, observer: Optional[Callable[[AudioFrame], Any]]) -> None:
        """Registers a callable that receives the player's audio as it plays
        (Agora's registerAudioFrameObserver on the player), or removes it with None.

        Args:
            observer: a callable taking an ``AudioFrame`` (read-only: 10 ms at
                48 kHz stereo, after speed and pitch, before the volumes;
                valid during the call only), or None. It runs on the player's
                thread (``agoraish-mp<n>``). An exception it raises is
                reported through ``sys.unraisablehook``. The engine keeps it
                referenced until the player is destroyed.

        Raises:
            AgoraishError: -7 if the engine is released.
            TypeError: `observer` is neither None nor callable.

        Thread: any.
        """
        keep = None
        if observer is not None:
            if not callable(observer):
                raise TypeError(f"observer must be callable or None, not {type(observer).__name__}")
            keep = _frame_callback_keepalive("audio", observer)
        handle, player_id = self._target("MediaPlayer.register_audio_frame_observer")
        rc = self._callbacks.register(
            "audio",
            lambda table: _ffi.agoraish_media_player_register_audio_frame_observer(handle, player_id, table),
            keep,
        )
        _check(rc, "MediaPlayer.register_audio_frame_observer")

    def register_video_frame_observer(self, observer: Optional[Callable[[VideoFrame], Any]]) -> None:
        """Registers a callable that receives the player's pictures as they
        are shown (Agora's registerVideoFrameObserver on the player), or
        removes it with None.

        Args:
            observer: a callable taking a ``VideoFrame`` (``uid`` 0,
                read-only planes at the source's size, ``alpha`` when the
                source has one; valid during the call only), or None. It runs
                on the player's thread (``agoraish-mp<n>``). An exception it
                raises is reported through ``sys.unraisablehook``. The engine
                keeps it referenced until the player is destroyed.

        Raises:
            AgoraishError: -7 if the engine is released.
            TypeError: `observer` is neither None nor callable.

        Thread: any.
        """
        keep = None
        if observer is not None:
            if not callable(observer):
                raise TypeError(f"observer must be callable or None, not {type(observer).__name__}")
            keep = _frame_callback_keepalive("video", observer)
        handle, player_id = self._target("MediaPlayer.register_video_frame_observer")
        rc = self._callbacks.register(
            "video",
            lambda table: _ffi.agoraish_media_player_register_video_frame_observer(handle, player_id, table),
            keep,
        )
        _check(rc, "MediaPlayer.register_video_frame_observer")

    def destroy(self) -> None:
        """Destroys the player: ``engine.destroy_media_player(self)``. Does
        nothing when it was destroyed already or its engine was released.

        Raises:
            AgoraishError: what ``RtcEngine.destroy_media_player`` raises.

        Thread: any.
        """
        if self._destroyed:
            return
        if self._engine.released:
            self._destroyed = True
            return
        self._engine.destroy_media_player(self)


class MediaRecorder:
    """A recorder of one user's stream (Agora's IMediaRecorder), made by
    ``RtcEngine.create_media_recorder``: it writes the user's audio and
    video to an MP4 file (H.264 and AAC) on its own thread (``agoraish-rec<n>``).

    uid 0 records what the engine's own connection sends; another uid that
    remote user as received. Pictures of another size are scaled to the
    configured size (letterboxed). A stream that never arrives leaves its
    track out; with neither, stopping reports ``RecorderState.ERROR`` with
    ``RecorderReason.NO_STREAM`` and removes the empty file.

    Owner: the engine. ``destroy()`` (or ``RtcEngine.destroy_media_recorder``)
    or the engine's release frees the recorder; this object does not, when it
    is garbage collected. It holds its engine. Usable as a context manager:
    leaving the ``with`` block destroys the recorder.

    Errors: every method raises ``AgoraishError`` for a negative return of the
    library (-2 also, without a library call, for a recorder destroyed
    already; -7 once the engine is released).

    Thread: every method may be called from any thread.
    """

    def __init__(self, engine: RtcEngine, recorder_id: int, channel_id: str, uid: int) -> None:
        self._engine = engine
        self._id = recorder_id
        self._channel_id = channel_id
        self._uid = uid
        self._destroyed = False
        self._observer_lock = threading.Lock()
        self._observer: Optional[_TableKeepalive] = None

    @property
    def id(self) -> int:
        """The recorder's id in its engine (1 and up).

        Thread: any.
        """
        return self._id

    @property
    def engine(self) -> RtcEngine:
        """The engine the recorder belongs to.

        Thread: any.
        """
        return self._engine

    @property
    def channel_id(self) -> str:
        """The channel given to ``create_media_recorder``.

        Thread: any.
        """
        return self._channel_id

    @property
    def uid(self) -> int:
        """The user recorded: 0 the local user, else a remote user.

        Thread: any.
        """
        return self._uid

    @property
    def destroyed(self) -> bool:
        """Whether the recorder was destroyed (``destroy()`` or ``RtcEngine.destroy_media_recorder``).

        Thread: any.
        """
        return self._destroyed

    def __repr__(self) -> str:
        state = " destroyed" if self._destroyed else ""
        return (f"<agoraish.MediaRecorder id={self._id} channel_id={self._channel_id!r} uid={self._uid}{state} "
                f"of {self._engine!r}>")

    def __enter__(self) -> "MediaRecorder":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.destroy()

    def _target(self, operation: str) -> Tuple[int, int]:
        """(engine handle, recorder id) for a call; -2 for a destroyed recorder."""
        if self._destroyed:
            raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, operation, "the recorder was destroyed")
        return self._engine.handle, self._id

    def set_media_recorder_observer(self, observer: Optional[object]) -> None:
        """Sets the recorder's observer (Agora's setMediaRecorderObserver), or removes it with None.

        Args:
            observer: a ``MediaRecorderObserver`` (or any object with its
                methods), or None. Only the methods it overrides are
                installed; they run on the engine's event thread. The engine
                keeps it, and the callback objects made for it, until the
                engine is released.

        Raises:
            AgoraishError: -7 if the engine is released.

        Thread: any.
        """
        handle, recorder_id = self._target("MediaRecorder.set_media_recorder_observer")
        keep = None
        if observer is not None:
            keep = _observer_keepalive(observer, _ffi.MediaRecorderObserverTable(), _RECORDER_CALLBACKS,
                                       MediaRecorderObserver, _RECORDER_NAMES, _WARNED_RECORDER_CLASSES)
            with self._engine._media_lock:
                self._engine._recorder_keepalives.append(keep)  # before the call: a release meanwhile sees it
        with self._observer_lock:
            rc = _ffi.agoraish_media_recorder_set_observer(handle, recorder_id,
                                                           ctypes.byref(keep.table) if keep is not None else None)
            if rc == 0:
                old, self._observer = self._observer, keep
            else:
                old = keep  # never installed: nothing calls it
        if old is not None:
            old.drop_handler()
        _check(rc, "MediaRecorder.set_media_recorder_observer")

    def start_recording(self, config: MediaRecorderConfiguration) -> None:
        """Starts recording (Agora's startRecording): the file is created now;
        ``RecorderState.START`` is reported, or ERROR with WRITE_FAILED.

        Raises:
            AgoraishError: -2 an empty path or a value out of range; -4 a
                container other than MP4; -8 already recording; -7 if the
                engine is released.
            TypeError: `config` is not a ``MediaRecorderConfiguration``.

        Thread: any.
        """
        if not isinstance(config, MediaRecorderConfiguration):
            raise TypeError(f"config must be a MediaRecorderConfiguration, not {type(config).__name__}")
        raw = _ffi.MediaRecorderConfiguration()
        raw.struct_size = ctypes.sizeof(_ffi.MediaRecorderConfiguration)
        raw.storage_path = _c_string(config.storage_path, "config.storage_path")
        for name in ("container_format", "stream_type", "max_duration_ms", "recorder_info_update_interval", "width",
                     "height", "fps", "sample_rate", "channel_num"):
            setattr(raw, name, _c_int(getattr(config, name), f"config.{name}"))
        handle, recorder_id = self._target("MediaRecorder.start_recording")
        rc = _ffi.agoraish_media_recorder_start_recording(handle, recorder_id, ctypes.byref(raw))
        _check(rc, "MediaRecorder.start_recording")

    def stop_recording(self) -> None:
        """Stops recording (Agora's stopRecording): the file is complete when
        this returns; ``RecorderState.STOP`` is reported.

        Raises:
            AgoraishError: -8 not recording; -7 if the engine is released.

        Thread: any, except a callback of the recorder's observer.
        """
        _check(_ffi.agoraish_media_recorder_stop_recording(*self._target("MediaRecorder.stop_recording")),
               "MediaRecorder.stop_recording")

    def destroy(self) -> None:
        """Destroys the recorder, stopping it first: ``engine.destroy_media_recorder(self)``.
        Does nothing when it was destroyed already or its engine was released.

        Raises:
            AgoraishError: what ``RtcEngine.destroy_media_recorder`` raises.

        Thread: any, except a callback of the recorder's observer.
        """
        if self._destroyed:
            return
        if self._engine.released:
            self._destroyed = True
            return
        self._engine.destroy_media_recorder(self)


# --------------------------------------------------------------------------
# The local spatial audio engine (ABI 0.14)
# --------------------------------------------------------------------------


def _c_vector3(value: Any, name: str) -> Any:
    """Three floats (x, y, z) for a ``const float *`` argument; None stays NULL."""
    if value is None:
        return None
    if isinstance(value, (str, bytes, bytearray)):
        raise TypeError(f"{name} must be a sequence of 3 numbers, not {type(value).__name__}")
    try:
        x, y, z = value
    except (TypeError, ValueError):
        raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, f"{name} must be a sequence of 3 numbers") from None
    return (ctypes.c_float * 3)(float(x), float(y), float(z))  # float() raises TypeError for a non-number


class LocalSpatialAudioEngine:
    """The local spatial audio engine of an engine (Agora's
    ILocalSpatialAudioEngine), from ``RtcEngine.spatial_audio()``: it places
    remote users (and media players) around the local user and renders them
    binaurally (an HRTF set, libmysofa's default.sofa): a user on the right
    is louder and earlier in the right ear, and quieter the farther away it is.

    Positions are in the app's world coordinates, sequences of three numbers
    (x, y, z); ``set_distance_unit`` says how many metres one unit is. A user
    beyond the receive range is silent and not received at all, and so is
    every user beyond the ``set_max_audio_recv_count`` nearest. Users with no
    position play as before, in the middle. Hear the rendering in stereo:
    ``set_external_audio_sink(True, 48000, 2)`` or a stereo playback device.

    Owner: the engine; the object holds its engine. ``initialize()`` starts
    the spatial engine, ``release()`` (or the engine's release) stops it.

    Errors: every method raises ``AgoraishError`` for a negative return of the
    library: -2 bad values (also NaN or infinite coordinates, or a sequence
    that is not three numbers), -3 not initialized, -7 once the engine is released.

    Thread: every method may be called from any thread.
    """

    def __init__(self, engine: RtcEngine) -> None:
        self._engine = engine

    @property
    def engine(self) -> RtcEngine:
        """The engine the spatial audio engine belongs to.

        Thread: any.
        """
        return self._engine

    def __repr__(self) -> str:
        return f"<agoraish.LocalSpatialAudioEngine of {self._engine!r}>"

    def initialize(self) -> None:
        """Starts the spatial audio engine (Agora's initialize): the listener
        at the origin with forward +x, right +y and up +z; a receive range of
        1000 units; 1 unit = 1 m; at most 16 users received. Positions set
        before a release are forgotten. Again while running: nothing happens.

        Raises:
            AgoraishError: -1 the HRTF set cannot be read; -7 if the engine is released.

        Thread: any.
        """
        _check(_ffi.agoraish_spatial_audio_initialize(self._engine.handle), "LocalSpatialAudioEngine.initialize")

    def release(self) -> None:
        """Stops the spatial audio engine (Agora's release): every remote user
        plays in the middle again and is received again. Idempotent.

        Raises:
            AgoraishError: -7 if the engine is released.

        Thread: any.
        """
        _check(_ffi.agoraish_spatial_audio_release(self._engine.handle), "LocalSpatialAudioEngine.release")

    def update_self_position(self, position: Sequence[float], axis_forward: Sequence[float],
                             axis_right: Sequence[float], axis_up: Sequence[float]) -> None:
        """The local user's position and orientation (Agora's updateSelfPosition):
        the forward, right and up axes should be unit vectors at right angles
        (they are normalized; a zero vector is -2).

        Raises:
            AgoraishError: -2 bad values; -3 not initialized; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_spatial_audio_update_self_position(
            self._engine.handle, _c_vector3(position, "position"), _c_vector3(axis_forward, "axis_forward"),
            _c_vector3(axis_right, "axis_right"), _c_vector3(axis_up, "axis_up"),
        )
        _check(rc, "LocalSpatialAudioEngine.update_self_position")

    def update_remote_position(self, uid: int, position: Sequence[float],
                               forward: Optional[Sequence[float]] = None) -> None:
        """A remote user's position and facing (Agora's updateRemotePosition with
        RemoteVoicePositionInfo). `forward` may be None (the rendering does not
        use it: an HRTF set describes the listener's ears only). At most 4096
        users have a position at once.

        Raises:
            AgoraishError: -2 uid 0 or bad values; -3 not initialized; -5 4096
                other users have a position; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_spatial_audio_update_remote_position(
            self._engine.handle, _c_uint(uid, "uid"), _c_vector3(position, "position"), _c_vector3(forward, "forward")
        )
        _check(rc, "LocalSpatialAudioEngine.update_remote_position")

    def update_player_position_info(self, player: Union["MediaPlayer", int], position: Sequence[float],
                                    forward: Optional[Sequence[float]] = None) -> None:
        """A media player's position (Agora's updatePlayerPositionInfo): its
        local playout is rendered there.

        Args:
            player: a ``MediaPlayer`` of this engine, or its id.
            position, forward: as for ``update_remote_position``.

        Raises:
            AgoraishError: -2 an unknown player (or a player of another engine)
                or bad values; -3 not
                initialized; -7 if the engine is released.

        Thread: any.
        """
        if isinstance(player, MediaPlayer):
            if player.engine is not self._engine:
                raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, "update_player_position_info",
                                    "the player belongs to another engine")
            player_id = player.id
        else:
            player_id = _c_int(player, "player")
        rc = _ffi.agoraish_spatial_audio_update_player_position(
            self._engine.handle, player_id, _c_vector3(position, "position"), _c_vector3(forward, "forward")
        )
        _check(rc, "LocalSpatialAudioEngine.update_player_position_info")

    def remove_remote_position(self, uid: int) -> None:
        """Forgets a remote user's position (Agora's removeRemotePosition): it plays in the middle again.

        Raises:
            AgoraishError: -2 uid 0; -3 not initialized; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_spatial_audio_remove_remote_position(self._engine.handle, _c_uint(uid, "uid"))
        _check(rc, "LocalSpatialAudioEngine.remove_remote_position")

    def clear_remote_positions(self) -> None:
        """Forgets every remote position (Agora's clearRemotePositions).

        Raises:
            AgoraishError: -3 not initialized; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_spatial_audio_clear_remote_positions(self._engine.handle)
        _check(rc, "LocalSpatialAudioEngine.clear_remote_positions")

    def set_audio_recv_range(self, range: float) -> None:
        """How far the local user hears (Agora's setAudioRecvRange), in units, > 0:
        users farther away are silent and not received.

        Raises:
            AgoraishError: -2 not above 0 or not finite; -3 not initialized; -7
                if the engine is released.
            TypeError: `range` is not a number.

        Thread: any.
        """
        rc = _ffi.agoraish_spatial_audio_set_audio_recv_range(self._engine.handle, float(range))
        _check(rc, "LocalSpatialAudioEngine.set_audio_recv_range")

    def set_distance_unit(self, unit: float) -> None:
        """Metres per unit of the positions (Agora's setDistanceUnit), > 0.

        Raises:
            AgoraishError: -2 not above 0 or not finite; -3 not initialized; -7
                if the engine is released.
            TypeError: `unit` is not a number.

        Thread: any.
        """
        rc = _ffi.agoraish_spatial_audio_set_distance_unit(self._engine.handle, float(unit))
        _check(rc, "LocalSpatialAudioEngine.set_distance_unit")

    def set_max_audio_recv_count(self, max_count: int) -> None:
        """How many positioned users are received at most, the nearest first
        (Agora's setMaxAudioRecvCount), 1..4096.

        Raises:
            AgoraishError: -2 out of range; -3 not initialized; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_spatial_audio_set_max_audio_recv_count(self._engine.handle,
                                                                  _c_int(max_count, "max_count"))
        _check(rc, "LocalSpatialAudioEngine.set_max_audio_recv_count")

    def mute_local_audio_stream(self, mute: bool) -> None:
        """Stops or resumes sending the local voice (the spatial engine's
        muteLocalAudioStream; the engine's own mute still applies).

        Raises:
            AgoraishError: -3 not initialized; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_spatial_audio_mute_local_audio_stream(self._engine.handle, 1 if mute else 0)
        _check(rc, "LocalSpatialAudioEngine.mute_local_audio_stream")

    def mute_all_remote_audio_streams(self, mute: bool) -> None:
        """Stops or resumes receiving every remote user (the spatial engine's
        muteAllRemoteAudioStreams; the engine's own mutes still apply).

        Raises:
            AgoraishError: -3 not initialized; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_spatial_audio_mute_all_remote_audio_streams(self._engine.handle, 1 if mute else 0)
        _check(rc, "LocalSpatialAudioEngine.mute_all_remote_audio_streams")

    def mute_remote_audio_stream(self, uid: int, mute: bool) -> None:
        """Stops or resumes receiving one remote user (the spatial engine's muteRemoteAudioStream).

        Raises:
            AgoraishError: -2 uid 0; -3 not initialized; -7 if the engine is released.

        Thread: any.
        """
        rc = _ffi.agoraish_spatial_audio_mute_remote_audio_stream(self._engine.handle, _c_uint(uid, "uid"),
                                                                  1 if mute else 0)
        _check(rc, "LocalSpatialAudioEngine.mute_remote_audio_stream")


# --------------------------------------------------------------------------
# The embedded channel server
# --------------------------------------------------------------------------

#: Servers not yet released, for the exit hook.
_LIVE_SERVERS: "weakref.WeakSet[ChannelServer]" = weakref.WeakSet()


class ChannelServer:
    """A channel server running inside this process (``agoraish_server_*``).

    Engines reach it through ``server.url`` (pass it as ``server_url``). It
    serves WebSocket signaling at ``/v1/signal`` and, when enabled, /metrics
    and /status over HTTP (docs/server.md, docs/protocol.md).

    Args:
        host: listen address; None or "" is 127.0.0.1.
        signaling_port: 0 picks a free port (read it back with ``url`` or
            ``signaling_port``).
        http_port: 0 no HTTP endpoint, -1 a free port, else that port.
        config_json: an optional configuration document (the JSON of
            docs/server.md), as text or as a mapping (encoded with
            ``json.dumps``); applied first, `host` and the ports override its
            listen section when set. When it registers apps, only those apps
            are accepted; otherwise any non-empty app id is, without a token.

    On loopback (the default host) every engine of this machine shares one
    address, so each per-address budget is the server-wide one: 1000 joins a
    second instead of a standalone server's 20, for example. A limit set in
    ``config_json`` keeps its value.

    Raises:
        AgoraishError: -2 for a bad configuration (ports out of range, text
            that is not JSON, unknown keys, bad values); its ``detail`` names
            the key or value.

    The server is created stopped: call ``start()``, or use it as a context
    manager, which starts it (unless running) and releases it on exit.

    Owner: the caller, until ``release()``; a server that is garbage collected
    is released then, and the exit hook releases servers still alive.
    Thread: every method may be called from any thread.
    """

    def __init__(
        self,
        host: Optional[str] = None,
        signaling_port: int = 0,
        http_port: int = 0,
        config_json: Union[str, bytes, Mapping[str, Any], None] = None,
    ) -> None:
        self._handle: Optional[int] = None
        if config_json is not None and not isinstance(config_json, (str, bytes, bytearray)):
            config_json = json.dumps(dict(config_json))
        host_bytes = _c_string(host, "host")
        json_bytes = _c_string(config_json, "config_json")
        config = _ffi.ServerConfig()
        config.struct_size = ctypes.sizeof(_ffi.ServerConfig)
        config.host = host_bytes
        config.signaling_port = _c_int(signaling_port, "signaling_port")
        config.http_port = _c_int(http_port, "http_port")
        config.config_json = json_bytes
        handle = _ffi.agoraish_server_create(ctypes.byref(config))
        if not handle:
            code = _ffi.agoraish_get_last_error()
            raise _library_error(code or -_ffi.AGORAISH_ERR_FAILED, "agoraish_server_create")
        self._handle = handle
        self._released = False
        _LIVE_SERVERS.add(self)

    @property
    def handle(self) -> int:
        """The raw ``agoraish_server_t *`` token (stale after release).

        Thread: any.
        """
        return self._handle or 0

    @property
    def released(self) -> bool:
        """Whether ``release()`` has succeeded on this server.

        Thread: any.
        """
        return self._released

    def start(self) -> "ChannelServer":
        """Binds and starts serving on the server's own thread; returns the server.

        Raises:
            AgoraishError: -8 already running; -13 a port cannot be bound;
                -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_server_start(self.handle), "server start")
        return self

    def stop(self) -> None:
        """Stops serving: every connection is closed (engines start reconnecting).

        Returns after the server thread has ended. A stopped server can be
        started again (users must rejoin; a port picked with 0 may differ).
        Does nothing when not running.

        Raises:
            AgoraishError: -7 if released.

        Thread: any.
        """
        _check(_ffi.agoraish_server_stop(self.handle), "server stop")

    def release(self) -> None:
        """Stops the server if running and frees it. Idempotent.

        Thread: any.
        """
        _check(_ffi.agoraish_server_release(self.handle), "server release")
        self._released = True
        _LIVE_SERVERS.discard(self)

    @property
    def running(self) -> bool:
        """Whether the server is serving.

        Thread: any.
        """
        rc = _ffi.agoraish_server_get_http_port(self.handle)
        if rc == -_ffi.AGORAISH_ERR_NOT_READY:
            return False
        if rc < 0:
            raise _library_error(rc, "server running")
        return True

    @property
    def url(self) -> str:
        """The URL engines use, "ws://host:port".

        Raises:
            AgoraishError: -3 not running; -7 if released.

        Thread: any.
        """
        return _read_string(lambda buf, length: _ffi.agoraish_server_get_url(self.handle, buf, length), "server url")

    @property
    def signaling_port(self) -> int:
        """The bound signaling port (from ``url``).

        Raises:
            AgoraishError: -3 not running; -7 if released.

        Thread: any.
        """
        return int(self.url.rsplit(":", 1)[1])

    @property
    def http_port(self) -> int:
        """The bound HTTP port for /metrics and /status, or 0 when disabled.

        Raises:
            AgoraishError: -3 not running; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_server_get_http_port(self.handle)
        if rc < 0:
            raise _library_error(rc, "server http_port")
        return rc

    def __enter__(self) -> "ChannelServer":
        if not self.running:
            self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if not handle or getattr(self, "_released", True):
            return
        try:
            _ffi.agoraish_server_release(handle)
        except BaseException:  # interpreter shutdown: modules may be gone
            pass

    def __repr__(self) -> str:
        if self._released:
            return f"<agoraish.ChannelServer handle=0x{self.handle:016x} released>"
        try:
            where = self.url if self.running else "stopped"
        except AgoraishError:
            where = "?"
        return f"<agoraish.ChannelServer handle=0x{self.handle:016x} {where}>"


def _release_all_at_exit() -> None:
    """Releases the engines still alive, before the interpreter stops running
    callbacks, then the embedded servers."""
    for engine in list(_LIVE):
        try:
            engine.release(sync=True)
        except BaseException:
            pass
    for server in list(_LIVE_SERVERS):
        try:
            server.release()
        except BaseException:
            pass


atexit.register(_release_all_at_exit)
