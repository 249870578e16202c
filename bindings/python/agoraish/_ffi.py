"""Raw ctypes view of include/agoraish.h: library loading, structs, functions.

This module mirrors the C header one to one and adds nothing: every function
is declared with its ``argtypes`` and ``restype``, every struct has a
``ctypes.Structure`` with the header's field names, and every constant keeps
its C name. ``agoraish.engine`` builds the Python API on top of it; use this
module directly only for what that API does not cover.

Loading
-------
The library is looked up, in this order:

1. the path in the environment variable ``AGORAISH_LIBRARY``. When it is set
   it is the only place tried, so a wrong path is reported instead of being
   hidden by another copy of the library;
2. a copy inside this package: ``libagoraish.so.0``, then ``libagoraish.so``;
3. the system: ``libagoraish.so.0`` through the dynamic loader, then
   ``ctypes.util.find_library("agoraish")``.

If none loads, importing this module raises :class:`LibraryNotFoundError`
naming every place tried.

The library is loaded with ``ctypes.CDLL``, which releases the GIL for the
duration of every call. That is required: ``agoraish_engine_release()`` with
``sync`` waits for a callback that is running on the event thread, and that
callback needs the GIL to finish.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char,
    c_char_p,
    c_double,
    c_int,
    c_int16,
    c_int32,
    c_int64,
    c_size_t,
    c_uint,
    c_uint32,
    c_uint8,
    c_uint64,
    c_void_p,
)
from typing import Dict, List, Optional, Sequence, Tuple, Type

# --------------------------------------------------------------------------
# Versions
# --------------------------------------------------------------------------

AGORAISH_ABI_VERSION_MAJOR = 0
AGORAISH_ABI_VERSION_MINOR = 9
AGORAISH_ABI_VERSION = AGORAISH_ABI_VERSION_MAJOR * 1000 + AGORAISH_ABI_VERSION_MINOR

# --------------------------------------------------------------------------
# enum agoraish_error_code (functions return the negation)
# --------------------------------------------------------------------------

AGORAISH_ERR_OK = 0
AGORAISH_ERR_FAILED = 1
AGORAISH_ERR_INVALID_ARGUMENT = 2
AGORAISH_ERR_NOT_READY = 3
AGORAISH_ERR_NOT_SUPPORTED = 4
AGORAISH_ERR_REFUSED = 5
AGORAISH_ERR_BUFFER_TOO_SMALL = 6
AGORAISH_ERR_NOT_INITIALIZED = 7
AGORAISH_ERR_INVALID_STATE = 8
AGORAISH_ERR_NO_PERMISSION = 9
AGORAISH_ERR_TIMEDOUT = 10
AGORAISH_ERR_CANCELED = 11
AGORAISH_ERR_TOO_OFTEN = 12
AGORAISH_ERR_BIND_SOCKET = 13
AGORAISH_ERR_NET_DOWN = 14
AGORAISH_ERR_NET_NOBUFS = 15
AGORAISH_ERR_JOIN_CHANNEL_REJECTED = 17
AGORAISH_ERR_LEAVE_CHANNEL_REJECTED = 18
AGORAISH_ERR_ALREADY_IN_USE = 19
AGORAISH_ERR_ABORTED = 20
AGORAISH_ERR_INIT_NET_ENGINE = 21
AGORAISH_ERR_RESOURCE_LIMITED = 22
AGORAISH_ERR_INVALID_APP_ID = 101
AGORAISH_ERR_INVALID_CHANNEL_NAME = 102
AGORAISH_ERR_NO_SERVER_RESOURCES = 103
AGORAISH_ERR_TOKEN_EXPIRED = 109
AGORAISH_ERR_INVALID_TOKEN = 110
AGORAISH_ERR_CONNECTION_INTERRUPTED = 111
AGORAISH_ERR_CONNECTION_LOST = 112
AGORAISH_ERR_NOT_IN_CHANNEL = 113
AGORAISH_ERR_SIZE_TOO_LARGE = 114
AGORAISH_ERR_BITRATE_LIMIT = 115
AGORAISH_ERR_TOO_MANY_DATA_STREAMS = 116
AGORAISH_ERR_STREAM_MESSAGE_TIMEOUT = 117
AGORAISH_ERR_SET_CLIENT_ROLE_NOT_AUTHORIZED = 119
AGORAISH_ERR_DECRYPTION_FAILED = 120
AGORAISH_ERR_INVALID_USER_ID = 121
AGORAISH_ERR_CLIENT_IS_BANNED_BY_SERVER = 123
AGORAISH_ERR_INVALID_USER_ACCOUNT = 134

# --------------------------------------------------------------------------
# enum agoraish_log_filter, enum agoraish_log_level, log file sizes
# --------------------------------------------------------------------------

AGORAISH_LOG_FILTER_OFF = 0
AGORAISH_LOG_FILTER_DEBUG = 0x080F
AGORAISH_LOG_FILTER_INFO = 0x000F
AGORAISH_LOG_FILTER_WARN = 0x000E
AGORAISH_LOG_FILTER_ERROR = 0x000C
AGORAISH_LOG_FILTER_CRITICAL = 0x0008
AGORAISH_LOG_FILTER_MASK = 0x080F

AGORAISH_LOG_LEVEL_NONE = 0x0000
AGORAISH_LOG_LEVEL_INFO = 0x0001
AGORAISH_LOG_LEVEL_WARN = 0x0002
AGORAISH_LOG_LEVEL_ERROR = 0x0004
AGORAISH_LOG_LEVEL_FATAL = 0x0008

AGORAISH_LOG_FILE_SIZE_DEFAULT_KB = 1024
AGORAISH_LOG_FILE_SIZE_MIN_KB = 128
AGORAISH_LOG_FILE_SIZE_MAX_KB = 20480
AGORAISH_LOG_FILE_COUNT = 5

# --------------------------------------------------------------------------
# enum agoraish_area_code (a bit set)
# --------------------------------------------------------------------------

AGORAISH_AREA_CODE_CN = 0x00000001
AGORAISH_AREA_CODE_NA = 0x00000002
AGORAISH_AREA_CODE_EU = 0x00000004
AGORAISH_AREA_CODE_AS = 0x00000008
AGORAISH_AREA_CODE_JP = 0x00000010
AGORAISH_AREA_CODE_IN = 0x00000020
#: ``(int)0xFFFFFFFF`` in the header: -1 as an enum value, 0xFFFFFFFF in the
#: ``uint32_t area_code`` field and in the parameter "rtc.area_code".
AGORAISH_AREA_CODE_GLOB = -1

# --------------------------------------------------------------------------
# Channels: enum agoraish_channel_profile, agoraish_client_role,
# agoraish_connection_state, agoraish_connection_changed_reason,
# agoraish_user_offline_reason, and the length limits
# --------------------------------------------------------------------------

# enum agoraish_audio_profile
AGORAISH_AUDIO_PROFILE_DEFAULT = 0
AGORAISH_AUDIO_PROFILE_SPEECH_STANDARD = 1
AGORAISH_AUDIO_PROFILE_MUSIC_STANDARD = 2
AGORAISH_AUDIO_PROFILE_MUSIC_STANDARD_STEREO = 3
AGORAISH_AUDIO_PROFILE_MUSIC_HIGH_QUALITY = 4
AGORAISH_AUDIO_PROFILE_MUSIC_HIGH_QUALITY_STEREO = 5
AGORAISH_AUDIO_PROFILE_IOT = 6

AGORAISH_CHANNEL_PROFILE_COMMUNICATION = 0
AGORAISH_CHANNEL_PROFILE_LIVE_BROADCASTING = 1

AGORAISH_CLIENT_ROLE_BROADCASTER = 1
AGORAISH_CLIENT_ROLE_AUDIENCE = 2

AGORAISH_CONNECTION_STATE_DISCONNECTED = 1
AGORAISH_CONNECTION_STATE_CONNECTING = 2
AGORAISH_CONNECTION_STATE_CONNECTED = 3
AGORAISH_CONNECTION_STATE_RECONNECTING = 4
AGORAISH_CONNECTION_STATE_FAILED = 5

AGORAISH_CONNECTION_CHANGED_CONNECTING = 0
AGORAISH_CONNECTION_CHANGED_JOIN_SUCCESS = 1
AGORAISH_CONNECTION_CHANGED_INTERRUPTED = 2
AGORAISH_CONNECTION_CHANGED_BANNED_BY_SERVER = 3
AGORAISH_CONNECTION_CHANGED_JOIN_FAILED = 4
AGORAISH_CONNECTION_CHANGED_LEAVE_CHANNEL = 5
AGORAISH_CONNECTION_CHANGED_INVALID_APP_ID = 6
AGORAISH_CONNECTION_CHANGED_INVALID_CHANNEL_NAME = 7
AGORAISH_CONNECTION_CHANGED_INVALID_TOKEN = 8
AGORAISH_CONNECTION_CHANGED_TOKEN_EXPIRED = 9
AGORAISH_CONNECTION_CHANGED_REJECTED_BY_SERVER = 10
AGORAISH_CONNECTION_CHANGED_RENEW_TOKEN = 12
AGORAISH_CONNECTION_CHANGED_CLIENT_IP_ADDRESS_CHANGED = 13
AGORAISH_CONNECTION_CHANGED_KEEP_ALIVE_TIMEOUT = 14
AGORAISH_CONNECTION_CHANGED_REJOIN_SUCCESS = 15
AGORAISH_CONNECTION_CHANGED_SAME_UID_LOGIN = 19

AGORAISH_USER_OFFLINE_QUIT = 0
AGORAISH_USER_OFFLINE_DROPPED = 1
AGORAISH_USER_OFFLINE_BECOME_AUDIENCE = 2

AGORAISH_MAX_CHANNEL_ID_LENGTH = 65
AGORAISH_MAX_USER_ACCOUNT_LENGTH = 256

# enum agoraish_quality_type (ABI 0.6): on_network_quality and the audio stats
AGORAISH_QUALITY_UNKNOWN = 0
AGORAISH_QUALITY_EXCELLENT = 1
AGORAISH_QUALITY_GOOD = 2
AGORAISH_QUALITY_POOR = 3
AGORAISH_QUALITY_BAD = 4
AGORAISH_QUALITY_VBAD = 5
AGORAISH_QUALITY_DOWN = 6

# --------------------------------------------------------------------------
# Audio (ABI 0.4): enum agoraish_local_audio_stream_state,
# agoraish_local_audio_stream_error, agoraish_remote_audio_state,
# agoraish_remote_audio_state_reason, agoraish_audio_frame_position,
# agoraish_raw_audio_frame_op_mode, agoraish_audio_recording_quality,
# agoraish_audio_recording_position, agoraish_media_device_type
# --------------------------------------------------------------------------

AGORAISH_LOCAL_AUDIO_STREAM_STATE_STOPPED = 0
AGORAISH_LOCAL_AUDIO_STREAM_STATE_RECORDING = 1
AGORAISH_LOCAL_AUDIO_STREAM_STATE_ENCODING = 2
AGORAISH_LOCAL_AUDIO_STREAM_STATE_FAILED = 3

AGORAISH_LOCAL_AUDIO_STREAM_ERROR_OK = 0
AGORAISH_LOCAL_AUDIO_STREAM_ERROR_FAILURE = 1
AGORAISH_LOCAL_AUDIO_STREAM_ERROR_DEVICE_NO_PERMISSION = 2
AGORAISH_LOCAL_AUDIO_STREAM_ERROR_DEVICE_BUSY = 3
AGORAISH_LOCAL_AUDIO_STREAM_ERROR_RECORD_FAILURE = 4
AGORAISH_LOCAL_AUDIO_STREAM_ERROR_ENCODE_FAILURE = 5
AGORAISH_LOCAL_AUDIO_STREAM_ERROR_NO_RECORDING_DEVICE = 6
AGORAISH_LOCAL_AUDIO_STREAM_ERROR_NO_PLAYOUT_DEVICE = 7

AGORAISH_REMOTE_AUDIO_STATE_STOPPED = 0
AGORAISH_REMOTE_AUDIO_STATE_STARTING = 1
AGORAISH_REMOTE_AUDIO_STATE_DECODING = 2
AGORAISH_REMOTE_AUDIO_STATE_FROZEN = 3
AGORAISH_REMOTE_AUDIO_STATE_FAILED = 4

AGORAISH_REMOTE_AUDIO_REASON_INTERNAL = 0
AGORAISH_REMOTE_AUDIO_REASON_NETWORK_CONGESTION = 1
AGORAISH_REMOTE_AUDIO_REASON_NETWORK_RECOVERY = 2
AGORAISH_REMOTE_AUDIO_REASON_LOCAL_MUTED = 3
AGORAISH_REMOTE_AUDIO_REASON_LOCAL_UNMUTED = 4
AGORAISH_REMOTE_AUDIO_REASON_REMOTE_MUTED = 5
AGORAISH_REMOTE_AUDIO_REASON_REMOTE_UNMUTED = 6
AGORAISH_REMOTE_AUDIO_REASON_REMOTE_OFFLINE = 7

AGORAISH_AUDIO_FRAME_POSITION_NONE = 0x0
AGORAISH_AUDIO_FRAME_POSITION_PLAYBACK = 0x1
AGORAISH_AUDIO_FRAME_POSITION_RECORD = 0x2
AGORAISH_AUDIO_FRAME_POSITION_MIXED = 0x4
AGORAISH_AUDIO_FRAME_POSITION_BEFORE_MIXING = 0x8

AGORAISH_RAW_AUDIO_FRAME_OP_MODE_READ_ONLY = 0
AGORAISH_RAW_AUDIO_FRAME_OP_MODE_WRITE_ONLY = 1
AGORAISH_RAW_AUDIO_FRAME_OP_MODE_READ_WRITE = 2

AGORAISH_AUDIO_RECORDING_QUALITY_LOW = 0
AGORAISH_AUDIO_RECORDING_QUALITY_MEDIUM = 1
AGORAISH_AUDIO_RECORDING_QUALITY_HIGH = 2
AGORAISH_AUDIO_RECORDING_QUALITY_ULTRA_HIGH = 3

AGORAISH_AUDIO_RECORDING_POSITION_MIXED_RECORDING_AND_PLAYBACK = 0
AGORAISH_AUDIO_RECORDING_POSITION_RECORDING = 1
AGORAISH_AUDIO_RECORDING_POSITION_MIXED_PLAYBACK = 2

AGORAISH_AUDIO_PLAYOUT_DEVICE = 0
AGORAISH_AUDIO_RECORDING_DEVICE = 1

AGORAISH_MAX_DEVICE_ID_LENGTH = 512

# --------------------------------------------------------------------------
# Video (ABI 0.5): enum agoraish_video_codec_type, agoraish_video_pixel_format;
# (ABI 0.6) enum agoraish_local_video_stream_state,
# agoraish_local_video_stream_error, agoraish_remote_video_state,
# agoraish_remote_video_state_reason, agoraish_video_observer_position,
# and the most formats reported per camera
# --------------------------------------------------------------------------

AGORAISH_VIDEO_CODEC_VP8 = 1
AGORAISH_VIDEO_CODEC_VP9 = 5

AGORAISH_VIDEO_PIXEL_I420 = 1
AGORAISH_VIDEO_PIXEL_BGRA = 2
AGORAISH_VIDEO_PIXEL_NV21 = 3
AGORAISH_VIDEO_PIXEL_RGBA = 4
AGORAISH_VIDEO_PIXEL_NV12 = 8

AGORAISH_LOCAL_VIDEO_STREAM_STATE_STOPPED = 0
AGORAISH_LOCAL_VIDEO_STREAM_STATE_CAPTURING = 1
AGORAISH_LOCAL_VIDEO_STREAM_STATE_ENCODING = 2
AGORAISH_LOCAL_VIDEO_STREAM_STATE_FAILED = 3

AGORAISH_LOCAL_VIDEO_STREAM_ERROR_OK = 0
AGORAISH_LOCAL_VIDEO_STREAM_ERROR_FAILURE = 1
AGORAISH_LOCAL_VIDEO_STREAM_ERROR_DEVICE_NO_PERMISSION = 2
AGORAISH_LOCAL_VIDEO_STREAM_ERROR_DEVICE_BUSY = 3
AGORAISH_LOCAL_VIDEO_STREAM_ERROR_CAPTURE_FAILURE = 4
AGORAISH_LOCAL_VIDEO_STREAM_ERROR_ENCODE_FAILURE = 5
AGORAISH_LOCAL_VIDEO_STREAM_ERROR_DEVICE_NOT_FOUND = 8
AGORAISH_LOCAL_VIDEO_STREAM_ERROR_DEVICE_INVALID_ID = 10

AGORAISH_REMOTE_VIDEO_STATE_STOPPED = 0
AGORAISH_REMOTE_VIDEO_STATE_STARTING = 1
AGORAISH_REMOTE_VIDEO_STATE_DECODING = 2
AGORAISH_REMOTE_VIDEO_STATE_FROZEN = 3
AGORAISH_REMOTE_VIDEO_STATE_FAILED = 4

AGORAISH_REMOTE_VIDEO_STATE_REASON_INTERNAL = 0
AGORAISH_REMOTE_VIDEO_STATE_REASON_NETWORK_CONGESTION = 1
AGORAISH_REMOTE_VIDEO_STATE_REASON_NETWORK_RECOVERY = 2
AGORAISH_REMOTE_VIDEO_STATE_REASON_LOCAL_MUTED = 3
AGORAISH_REMOTE_VIDEO_STATE_REASON_LOCAL_UNMUTED = 4
AGORAISH_REMOTE_VIDEO_STATE_REASON_REMOTE_MUTED = 5
AGORAISH_REMOTE_VIDEO_STATE_REASON_REMOTE_UNMUTED = 6
AGORAISH_REMOTE_VIDEO_STATE_REASON_REMOTE_OFFLINE = 7
AGORAISH_REMOTE_VIDEO_STATE_REASON_AUDIO_FALLBACK = 8
AGORAISH_REMOTE_VIDEO_STATE_REASON_AUDIO_FALLBACK_RECOVERY = 9

AGORAISH_VIDEO_POSITION_POST_CAPTURER = 1
AGORAISH_VIDEO_POSITION_PRE_RENDERER = 2
AGORAISH_VIDEO_POSITION_PRE_ENCODER = 4

AGORAISH_MAX_VIDEO_FORMATS = 32

# --------------------------------------------------------------------------
# Last-mile probe (ABI 0.7): enum agoraish_lastmile_probe_result_state
# --------------------------------------------------------------------------

AGORAISH_LASTMILE_PROBE_RESULT_COMPLETE = 1
AGORAISH_LASTMILE_PROBE_RESULT_INCOMPLETE_NO_BWE = 2
AGORAISH_LASTMILE_PROBE_RESULT_UNAVAILABLE = 3

# --------------------------------------------------------------------------
# Congestion (ABI 0.7): enum agoraish_stream_fallback_options,
# agoraish_priority_type
# --------------------------------------------------------------------------

AGORAISH_STREAM_FALLBACK_OPTION_DISABLED = 0
AGORAISH_STREAM_FALLBACK_OPTION_VIDEO_STREAM_LOW = 1
AGORAISH_STREAM_FALLBACK_OPTION_AUDIO_ONLY = 2

AGORAISH_PRIORITY_HIGH = 50
AGORAISH_PRIORITY_NORMAL = 100

# --------------------------------------------------------------------------
# Data streams, metadata, encryption (ABI 0.8): the data-stream limits,
# enum agoraish_metadata_type, agoraish_encryption_mode,
# agoraish_encryption_error_type, the packet observer's growth limit
# --------------------------------------------------------------------------

AGORAISH_MAX_DATA_STREAMS = 5
AGORAISH_MAX_STREAM_MESSAGE_SIZE = 1024
AGORAISH_MAX_STREAM_MESSAGES_PER_SECOND = 30
AGORAISH_MAX_STREAM_BYTES_PER_SECOND = 6144

AGORAISH_METADATA_TYPE_UNKNOWN = -1
AGORAISH_METADATA_TYPE_VIDEO = 0

AGORAISH_MAX_METADATA_SIZE = 1024

AGORAISH_ENCRYPTION_MODE_AES_128_XTS = 1
AGORAISH_ENCRYPTION_MODE_AES_128_ECB = 2
AGORAISH_ENCRYPTION_MODE_AES_256_XTS = 3
AGORAISH_ENCRYPTION_MODE_SM4_128_ECB = 4
AGORAISH_ENCRYPTION_MODE_AES_128_GCM = 5
AGORAISH_ENCRYPTION_MODE_AES_256_GCM = 6
AGORAISH_ENCRYPTION_MODE_AES_128_GCM2 = 7
AGORAISH_ENCRYPTION_MODE_AES_256_GCM2 = 8
AGORAISH_ENCRYPTION_MODE_END = 9

AGORAISH_ENCRYPTION_ERROR_INTERNAL_FAILURE = 0
AGORAISH_ENCRYPTION_ERROR_DECRYPTION_FAILURE = 1
AGORAISH_ENCRYPTION_ERROR_ENCRYPTION_FAILURE = 2
AGORAISH_ENCRYPTION_ERROR_DATASTREAM_DECRYPTION_FAILURE = 3
AGORAISH_ENCRYPTION_ERROR_DATASTREAM_ENCRYPTION_FAILURE = 4

AGORAISH_PACKET_OBSERVER_MAX_GROWTH = 64

# --------------------------------------------------------------------------
# Structs and callback types
# --------------------------------------------------------------------------


class UserInfo(Structure):
    """``agoraish_user_info``: a uid and its user account (Agora's UserInfo).

    Filled by the library (get_user_info_by_*) or passed to
    ``on_user_info_updated``; ``user_account`` is NUL-terminated UTF-8.
    """

    _fields_ = [
        ("uid", c_uint32),
        ("user_account", c_char * AGORAISH_MAX_USER_ACCOUNT_LENGTH),
    ]


class RtcStats(Structure):
    """``agoraish_rtc_stats``: statistics of a call, passed to ``on_leave_channel``.

    Owner: the library, valid only during the callback. ``struct_size`` is the
    size the library filled; fields past it are not there.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("duration", c_uint32),
        ("tx_bytes", c_uint64),
        ("rx_bytes", c_uint64),
        ("tx_packets", c_uint64),
        ("rx_packets", c_uint64),
        ("user_count", c_uint32),
        # ABI 0.4. Rates are over the last 2 s period (0 in on_leave_channel).
        ("tx_kbitrate", c_uint32),
        ("tx_audio_bytes", c_uint64),
        ("rx_audio_bytes", c_uint64),
        ("rx_kbitrate", c_uint32),
        ("tx_audio_kbitrate", c_uint32),
        ("rx_audio_kbitrate", c_uint32),
        ("memory_app_usage_kb", c_uint32),
        ("cpu_app_usage", c_double),
        # ABI 0.6. gateway_rtt and lastmile_delay in ms, loss rates in percent.
        ("tx_video_kbitrate", c_uint32),
        ("rx_video_kbitrate", c_uint32),
        ("gateway_rtt", c_int),
        ("lastmile_delay", c_int),
        ("tx_packet_loss_rate", c_int),
        ("rx_packet_loss_rate", c_int),
    ]


class AudioVolumeInfo(Structure):
    """``agoraish_audio_volume_info``: one speaker in ``on_audio_volume_indication``.

    Owner: the library (an array valid only during the callback). ``uid`` is 0
    for the local user; ``volume`` is 0..255; ``vad`` is the local voice
    activity (with report_vad), always 1 for remote users.
    """

    _fields_ = [
        ("uid", c_uint32),
        ("volume", c_uint),
        ("vad", c_uint),
    ]


class LocalAudioStats(Structure):
    """``agoraish_local_audio_stats``: sending statistics, every 2 s in a call.

    Owner: the library, valid only during ``on_local_audio_stats``.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("num_channels", c_int),
        ("sent_sample_rate", c_int),
        ("sent_bitrate", c_int),
        ("tx_packet_loss_rate", c_int),
    ]


class RemoteAudioStats(Structure):
    """``agoraish_remote_audio_stats``: receiving statistics of one remote user, every 2 s.

    Owner: the library, valid only during ``on_remote_audio_stats``.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("uid", c_uint32),
        ("quality", c_int),
        ("network_transport_delay", c_int),
        ("jitter_buffer_delay", c_int),
        ("audio_loss_rate", c_int),
        ("num_channels", c_int),
        ("received_sample_rate", c_int),
        ("received_bitrate", c_int),
        ("total_frozen_time", c_int),
        ("frozen_rate", c_int),
        ("total_active_time", c_int),
        ("fec_recovered_frames", c_int),
        ("concealed_frames", c_int),
        ("end_to_end_delay", c_int),
    ]


class AudioFrame(Structure):
    """``agoraish_audio_frame``: a PCM frame handed to an audio frame observer.

    Owner: the library. ``buffer`` holds ``samples_per_channel * channels``
    interleaved int16 samples and is valid only during the callback.
    """

    _fields_ = [
        ("type", c_int),
        ("samples_per_channel", c_int),
        ("bytes_per_sample", c_int),
        ("channels", c_int),
        ("samples_per_sec", c_int),
        ("buffer", c_void_p),
        ("render_time_ms", c_int64),
        ("avsync_type", c_int),
    ]


class AudioRecordingConfig(Structure):
    """``agoraish_audio_recording_config``: how to record audio to a file.

    Owner: the host; read only during ``agoraish_engine_start_audio_recording()``
    (the path is copied). Set ``struct_size`` to ``ctypes.sizeof(AudioRecordingConfig)``.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("file_path", c_char_p),
        ("sample_rate", c_int),
        ("position", c_int),
        ("quality", c_int),
    ]


class AudioDeviceInfo(Structure):
    """``agoraish_audio_device_info``: one audio device (an ALSA PCM).

    Filled by ``agoraish_engine_get_audio_device()``; both fields are
    NUL-terminated UTF-8.
    """

    _fields_ = [
        ("id", c_char * AGORAISH_MAX_DEVICE_ID_LENGTH),
        ("name", c_char * AGORAISH_MAX_DEVICE_ID_LENGTH),
    ]


class VideoEncoderConfiguration(Structure):
    """``agoraish_video_encoder_configuration``: what the video encoder aims for.

    Owner: the host; read only during
    ``agoraish_engine_set_video_encoder_configuration()``. Set ``struct_size``
    to ``ctypes.sizeof(VideoEncoderConfiguration)``. ``bitrate`` is Kbps, 0
    (STANDARD_BITRATE) or -1 (COMPATIBLE_BITRATE); ``codec_type`` 0,
    ``AGORAISH_VIDEO_CODEC_VP8`` or ``AGORAISH_VIDEO_CODEC_VP9``. The last three
    fields are ABI 0.6: ORIENTATION_MODE, DEGRADATION_PREFERENCE and
    VIDEO_MIRROR_MODE of the sent stream, each 0..2.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("width", c_int),
        ("height", c_int),
        ("frame_rate", c_int),
        ("bitrate", c_int),
        ("min_bitrate", c_int),
        ("codec_type", c_int),
        # ABI 0.6.
        ("orientation_mode", c_int),
        ("degradation_preference", c_int),
        ("mirror_mode", c_int),
    ]


class ExternalVideoFrame(Structure):
    """``agoraish_external_video_frame``: a picture pushed by the host.

    Owner: the host; the buffers are read only during
    ``agoraish_engine_push_external_video_frame()``. Set ``struct_size`` to
    ``ctypes.sizeof(ExternalVideoFrame)``; ``format`` is an
    ``AGORAISH_VIDEO_PIXEL_*`` value, which says which buffers are used
    (I420: all three; NV12/NV21: ``y_buffer`` and the interleaved chroma in
    ``u_buffer``; BGRA/RGBA: the packed pixels in ``y_buffer``). ``rotation``
    (ABI 0.6) is 0, 90, 180 or 270: the picture is turned clockwise by that
    much before use.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("format", c_int),
        ("width", c_int),
        ("height", c_int),
        ("y_buffer", c_void_p),
        ("u_buffer", c_void_p),
        ("v_buffer", c_void_p),
        ("y_stride", c_int),
        ("u_stride", c_int),
        ("v_stride", c_int),
        ("timestamp", c_int64),
        # ABI 0.6.
        ("rotation", c_int),
    ]


class VideoFrame(Structure):
    """``agoraish_video_frame``: an I420 picture handed to a render sink or a
    video frame observer.

    Owner: the library; the struct and its planes are valid only during the
    callback that received them. Observers may write the planes (the change
    is what is sent or rendered); render sinks must only read them.
    """

    _fields_ = [
        ("type", c_int),
        ("width", c_int),
        ("height", c_int),
        ("y_stride", c_int),
        ("u_stride", c_int),
        ("v_stride", c_int),
        ("y_buffer", POINTER(c_uint8)),
        ("u_buffer", POINTER(c_uint8)),
        ("v_buffer", POINTER(c_uint8)),
        ("rotation", c_int),
        ("render_time_ms", c_int64),
    ]


class LocalVideoStats(Structure):
    """``agoraish_local_video_stats``: sending statistics of local video, every 2 s in a call.

    Owner: the library, valid only during ``on_local_video_stats``.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("sent_bitrate", c_int),
        ("sent_frame_rate", c_int),
        ("encoder_output_frame_rate", c_int),
        ("renderer_output_frame_rate", c_int),
        ("target_bitrate", c_int),
        ("target_frame_rate", c_int),
        ("encoded_bitrate", c_int),
        ("encoded_frame_width", c_int),
        ("encoded_frame_height", c_int),
        ("encoded_frame_count", c_int),
        ("codec_type", c_int),
        ("capture_frame_rate", c_int),
    ]


class RemoteVideoStats(Structure):
    """``agoraish_remote_video_stats``: receiving statistics of one remote user's video, every 2 s.

    Owner: the library, valid only during ``on_remote_video_stats``.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("uid", c_uint32),
        ("width", c_int),
        ("height", c_int),
        ("received_bitrate", c_int),
        ("decoder_output_frame_rate", c_int),
        ("renderer_output_frame_rate", c_int),
        ("packet_loss_rate", c_int),
        ("rx_stream_type", c_int),
        ("total_frozen_time", c_int),
        ("frozen_rate", c_int),
        ("total_active_time", c_int),
        ("publish_duration", c_int),
    ]


class EchoTestConfiguration(Structure):
    """``agoraish_echo_test_configuration`` (ABI 0.9): Agora's EchoTestConfiguration
    without the view, for ``agoraish_engine_start_echo_test_with_config()``.

    Owner: the host; read only during the call (the strings are copied). Set
    ``struct_size`` to ``ctypes.sizeof(EchoTestConfiguration)``.
    ``enable_audio`` nonzero (the only medium echoed), ``enable_video`` 0 (video
    echo is not supported: -4), ``interval_in_seconds`` 2..10. ``token``: what
    the test's join presents where the app has a certificate, a token for
    ``channel_id`` and uid 0 (NULL: none); ``channel_id``: a valid channel
    name, NULL or "" for "echo".
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("enable_audio", c_int),
        ("enable_video", c_int),
        ("token", c_char_p),
        ("channel_id", c_char_p),
        ("interval_in_seconds", c_int),
    ]


class LastmileProbeConfig(Structure):
    """``agoraish_lastmile_probe_config``: what ``agoraish_engine_start_lastmile_probe_test()`` probes.

    Owner: the host; read only during the call (the strings are copied). Set
    ``struct_size`` to ``ctypes.sizeof(LastmileProbeConfig)``. At least one
    direction is probed (nonzero); each probed direction's bitrate is
    100000..5000000 bps (an unprobed direction's bitrate is not read).
    ``token`` and ``channel_id`` are ABI 0.9: what the probe's join presents
    where the app has a certificate (a token for ``channel_id`` and uid 0;
    NULL: none, channel "probe"). A 0.7 ``struct_size``
    (``AGORAISH_LASTMILE_PROBE_CONFIG_SIZE_0_7``) leaves them NULL.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("probe_uplink", c_int),
        ("probe_downlink", c_int),
        ("expected_uplink_bitrate", c_uint),
        ("expected_downlink_bitrate", c_uint),
        # ABI 0.9
        ("token", c_char_p),
        ("channel_id", c_char_p),
    ]


#: ``AGORAISH_LASTMILE_PROBE_CONFIG_SIZE_0_7``: the size of ``agoraish_lastmile_probe_config``
#: in ABI 0.7 (without ``token`` and ``channel_id``), the smallest accepted ``struct_size``.
AGORAISH_LASTMILE_PROBE_CONFIG_SIZE_0_7 = LastmileProbeConfig.expected_downlink_bitrate.offset + ctypes.sizeof(c_uint)


class LastmileProbeOneWayResult(Structure):
    """``agoraish_lastmile_probe_one_way_result``: one direction of a last-mile probe.

    ``packet_loss_rate`` in percent (100 when no probe arrived), ``jitter`` in
    ms (RFC 3550), ``available_bandwidth`` in bps (at most the expected bitrate).
    """

    _fields_ = [
        ("packet_loss_rate", c_uint),
        ("jitter", c_uint),
        ("available_bandwidth", c_uint),
    ]


class LastmileProbeResult(Structure):
    """``agoraish_lastmile_probe_result``: the result of a last-mile probe.

    Owner: the library, valid only during ``on_lastmile_probe_result``.
    ``state`` is an ``AGORAISH_LASTMILE_PROBE_RESULT_*``; ``rtt`` is the round
    trip to the server in ms.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("state", c_int),
        ("uplink_report", LastmileProbeOneWayResult),
        ("downlink_report", LastmileProbeOneWayResult),
        ("rtt", c_uint),
    ]


class DataStreamConfig(Structure):
    """``agoraish_data_stream_config``: how to create a data stream (Agora's DataStreamConfig).

    Owner: the host; read only during
    ``agoraish_engine_create_data_stream_with_config()``. Set ``struct_size``
    to ``ctypes.sizeof(DataStreamConfig)``. Nonzero ``sync_with_audio``
    delivers each message when the sender's audio of the same moment plays;
    nonzero ``ordered`` delivers in the order sent.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("sync_with_audio", c_int),
        ("ordered", c_int),
    ]


class Metadata(Structure):
    """``agoraish_metadata``: the metadata of one video picture (Agora's Metadata).

    Owner: the library, valid only during the observer callback that received
    it. When sending, ``buffer`` is the library's room of ``size`` bytes: fill
    it and set ``size`` to the bytes written. ``timestamp_ms`` is the picture's
    timestamp.
    """

    _fields_ = [
        ("uid", c_uint32),
        ("size", c_uint32),
        ("buffer", POINTER(c_uint8)),
        ("timestamp_ms", c_int64),
    ]


class EncryptionConfig(Structure):
    """``agoraish_encryption_config``: the built-in encryption (Agora's EncryptionConfig).

    Owner: the host; read only during ``agoraish_engine_enable_encryption()``
    (the key is copied). Set ``struct_size`` to
    ``ctypes.sizeof(EncryptionConfig)``. ``encryption_mode`` is an
    ``AGORAISH_ENCRYPTION_MODE_*``; the key is 1..128 bytes; the GCM2 modes
    need a 32-byte salt that is not all zero.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("encryption_mode", c_int),
        ("encryption_key", c_char_p),
        ("encryption_kdf_salt", c_uint8 * 32),
    ]


class Packet(Structure):
    """``agoraish_packet``: the payload of one media packet (Agora's Packet).

    Owner: the library, valid only during the packet observer callback. A
    callback may point ``buffer`` at its own memory and change ``size`` (by at
    most ``AGORAISH_PACKET_OBSERVER_MAX_GROWTH`` bytes more).
    """

    _fields_ = [
        ("buffer", POINTER(c_uint8)),
        ("size", c_uint32),
    ]


# Every callback receives (agoraish_engine_t *engine, void *user_data, ...).
# They run on the engine's event thread; pointers are valid only during the call.

#: ``on_api_call_executed(engine, user_data, int err, const char *api, const char *result)``
ApiCallExecutedCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_int, c_char_p, c_char_p)
#: ``on_join_channel_success(engine, user_data, const char *channel, uint32_t uid, int elapsed)``
JoinChannelSuccessCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_char_p, c_uint32, c_int)
#: ``on_rejoin_channel_success(engine, user_data, const char *channel, uint32_t uid, int elapsed)``
RejoinChannelSuccessCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_char_p, c_uint32, c_int)
#: ``on_leave_channel(engine, user_data, const agoraish_rtc_stats *stats)``
LeaveChannelCallback = CFUNCTYPE(None, c_void_p, c_void_p, POINTER(RtcStats))
#: ``on_user_joined(engine, user_data, uint32_t uid, int elapsed)``
UserJoinedCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int)
#: ``on_user_offline(engine, user_data, uint32_t uid, int reason)``
UserOfflineCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int)
#: ``on_client_role_changed(engine, user_data, int old_role, int new_role)``
ClientRoleChangedCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_int, c_int)
#: ``on_connection_state_changed(engine, user_data, int state, int reason)``
ConnectionStateChangedCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_int, c_int)
#: ``on_connection_lost(engine, user_data)``
ConnectionLostCallback = CFUNCTYPE(None, c_void_p, c_void_p)
#: ``on_token_privilege_will_expire(engine, user_data, const char *token)``
TokenPrivilegeWillExpireCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_char_p)
#: ``on_request_token(engine, user_data)``
RequestTokenCallback = CFUNCTYPE(None, c_void_p, c_void_p)
#: ``on_local_user_registered(engine, user_data, uint32_t uid, const char *user_account)``
LocalUserRegisteredCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_char_p)
#: ``on_user_info_updated(engine, user_data, uint32_t uid, const agoraish_user_info *info)``
UserInfoUpdatedCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, POINTER(UserInfo))
#: ``on_error(engine, user_data, int err, const char *msg)``
ErrorCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_int, c_char_p)

# ABI 0.4: audio events.

#: ``on_first_local_audio_frame_published(engine, user_data, int elapsed)``
FirstLocalAudioFramePublishedCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_int)
#: ``on_first_remote_audio_frame(engine, user_data, uint32_t uid, int elapsed)``
FirstRemoteAudioFrameCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int)
#: ``on_first_remote_audio_decoded(engine, user_data, uint32_t uid, int elapsed)``
FirstRemoteAudioDecodedCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int)
#: ``on_user_mute_audio(engine, user_data, uint32_t uid, int muted)``
UserMuteAudioCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int)
#: ``on_local_audio_state_changed(engine, user_data, int state, int error)``
LocalAudioStateChangedCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_int, c_int)
#: ``on_remote_audio_state_changed(engine, user_data, uint32_t uid, int state, int reason, int elapsed)``
RemoteAudioStateChangedCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int, c_int, c_int)
#: ``on_audio_volume_indication(engine, user_data, const agoraish_audio_volume_info *speakers,
#: unsigned int speaker_number, int total_volume)``
AudioVolumeIndicationCallback = CFUNCTYPE(None, c_void_p, c_void_p, POINTER(AudioVolumeInfo), c_uint, c_int)
#: ``on_active_speaker(engine, user_data, uint32_t uid)``
ActiveSpeakerCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32)
#: ``on_rtc_stats(engine, user_data, const agoraish_rtc_stats *stats)``
RtcStatsCallback = CFUNCTYPE(None, c_void_p, c_void_p, POINTER(RtcStats))
#: ``on_local_audio_stats(engine, user_data, const agoraish_local_audio_stats *stats)``
LocalAudioStatsCallback = CFUNCTYPE(None, c_void_p, c_void_p, POINTER(LocalAudioStats))
#: ``on_remote_audio_stats(engine, user_data, const agoraish_remote_audio_stats *stats)``
RemoteAudioStatsCallback = CFUNCTYPE(None, c_void_p, c_void_p, POINTER(RemoteAudioStats))

# ABI 0.5: video events.

#: ``on_first_local_video_frame_published(engine, user_data, int elapsed)``
FirstLocalVideoFramePublishedCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_int)
#: ``on_first_remote_video_decoded(engine, user_data, uint32_t uid, int width, int height, int elapsed)``
FirstRemoteVideoDecodedCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int, c_int, c_int)
#: ``on_video_size_changed(engine, user_data, uint32_t uid, int width, int height, int rotation)``
VideoSizeChangedCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int, c_int, c_int)
#: ``on_user_mute_video(engine, user_data, uint32_t uid, int muted)``
UserMuteVideoCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int)

# ABI 0.6: more video events.

#: ``on_first_local_video_frame(engine, user_data, int width, int height, int elapsed)``
FirstLocalVideoFrameCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_int, c_int, c_int)
#: ``on_first_remote_video_frame(engine, user_data, uint32_t uid, int width, int height, int elapsed)``
FirstRemoteVideoFrameCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int, c_int, c_int)
#: ``on_user_enable_video(engine, user_data, uint32_t uid, int enabled)``
UserEnableVideoCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int)
#: ``on_user_enable_local_video(engine, user_data, uint32_t uid, int enabled)``
UserEnableLocalVideoCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int)
#: ``on_local_video_state_changed(engine, user_data, int state, int error)``
LocalVideoStateChangedCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_int, c_int)
#: ``on_remote_video_state_changed(engine, user_data, uint32_t uid, int state, int reason, int elapsed)``
RemoteVideoStateChangedCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int, c_int, c_int)
#: ``on_local_video_stats(engine, user_data, const agoraish_local_video_stats *stats)``
LocalVideoStatsCallback = CFUNCTYPE(None, c_void_p, c_void_p, POINTER(LocalVideoStats))
#: ``on_remote_video_stats(engine, user_data, const agoraish_remote_video_stats *stats)``
RemoteVideoStatsCallback = CFUNCTYPE(None, c_void_p, c_void_p, POINTER(RemoteVideoStats))
#: ``on_snapshot_taken(engine, user_data, uint32_t uid, const char *path, int width, int height, int error)``
SnapshotTakenCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_char_p, c_int, c_int, c_int)
#: ``on_network_quality(engine, user_data, uint32_t uid, int tx_quality, int rx_quality)``
NetworkQualityCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int, c_int)

# ABI 0.7: fallback events.

#: ``on_local_publish_fallback_to_audio_only(engine, user_data, int is_fallback_or_recover)``
LocalPublishFallbackToAudioOnlyCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_int)
#: ``on_remote_subscribe_fallback_to_audio_only(engine, user_data, uint32_t uid, int is_fallback_or_recover)``
RemoteSubscribeFallbackToAudioOnlyCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int)

# ABI 0.7: the last-mile test and probe.

#: ``on_lastmile_quality(engine, user_data, int quality)``
LastmileQualityCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_int)
#: ``on_lastmile_probe_result(engine, user_data, const struct agoraish_lastmile_probe_result *result)``
LastmileProbeResultCallback = CFUNCTYPE(None, c_void_p, c_void_p, POINTER(LastmileProbeResult))

# ABI 0.8: data streams, metadata, encryption.

#: ``on_stream_message(engine, user_data, uint32_t uid, int stream_id, const uint8_t *data, size_t length,
#: uint64_t sent_ts)``
StreamMessageCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int, POINTER(c_uint8), c_size_t, c_uint64)
#: ``on_stream_message_error(engine, user_data, uint32_t uid, int stream_id, int code, int missed, int cached)``
StreamMessageErrorCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_int, c_int, c_int, c_int)
#: ``on_encryption_error(engine, user_data, int error_type)``
EncryptionErrorCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_int)
#: ``on_audio_metadata_received(engine, user_data, uint32_t uid, const uint8_t *metadata, size_t length)``
AudioMetadataReceivedCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, POINTER(c_uint8), c_size_t)

# Audio frame observer callbacks: they run on an audio thread (see
# agoraish_audio_frame_observer) and return nonzero to keep the frame, 0 to discard it.

#: ``on_record_audio_frame(engine, user_data, agoraish_audio_frame *frame)``
RecordAudioFrameCallback = CFUNCTYPE(c_int, c_void_p, c_void_p, POINTER(AudioFrame))
#: ``on_playback_audio_frame(engine, user_data, agoraish_audio_frame *frame)``
PlaybackAudioFrameCallback = CFUNCTYPE(c_int, c_void_p, c_void_p, POINTER(AudioFrame))
#: ``on_mixed_audio_frame(engine, user_data, agoraish_audio_frame *frame)``
MixedAudioFrameCallback = CFUNCTYPE(c_int, c_void_p, c_void_p, POINTER(AudioFrame))
#: ``on_playback_audio_frame_before_mixing(engine, user_data, uint32_t uid, agoraish_audio_frame *frame)``
PlaybackAudioFrameBeforeMixingCallback = CFUNCTYPE(c_int, c_void_p, c_void_p, c_uint32, POINTER(AudioFrame))


class AudioFrameObserverTable(Structure):
    """``agoraish_audio_frame_observer``: a raw audio observer.

    Owner: the host. The library copies the struct during
    ``agoraish_engine_register_audio_frame_observer()``, but the function
    pointers must stay valid until the observer is replaced or removed (for
    ctypes: keep the CFUNCTYPE objects alive). A NULL entry means "not
    interested". ``observed_position`` is a bit set of
    ``AGORAISH_AUDIO_FRAME_POSITION_*``.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("user_data", c_void_p),
        ("observed_position", c_int),
        ("on_record_audio_frame", RecordAudioFrameCallback),
        ("on_playback_audio_frame", PlaybackAudioFrameCallback),
        ("on_mixed_audio_frame", MixedAudioFrameCallback),
        ("on_playback_audio_frame_before_mixing", PlaybackAudioFrameBeforeMixingCallback),
    ]


class EventHandlerTable(Structure):
    """``agoraish_event_handler``: the engine's event callbacks.

    Owner: the host. The library copies the table during
    ``agoraish_engine_create()``, but the function pointers must stay valid
    until the engine is released (for ctypes: keep the CFUNCTYPE objects
    alive). A NULL entry means "not interested". Fields after
    ``on_api_call_executed`` are ABI 0.2 (channels) and from
    ``on_first_local_audio_frame_published`` on ABI 0.4 (audio), from
    ``on_first_local_video_frame_published`` on ABI 0.5 (video), from
    ``on_first_local_video_frame`` on ABI 0.6 (more video) and from
    ``on_local_publish_fallback_to_audio_only`` on ABI 0.7 (fallback, the last-mile
    test and probe) and from ``on_stream_message`` on ABI 0.8 (data streams,
    metadata, encryption); a table with
    ``struct_size`` equal to ``AGORAISH_EVENT_HANDLER_SIZE_0_1`` has none of them.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("user_data", c_void_p),
        ("on_api_call_executed", ApiCallExecutedCallback),
        # ABI 0.2: channels.
        ("on_join_channel_success", JoinChannelSuccessCallback),
        ("on_rejoin_channel_success", RejoinChannelSuccessCallback),
        ("on_leave_channel", LeaveChannelCallback),
        ("on_user_joined", UserJoinedCallback),
        ("on_user_offline", UserOfflineCallback),
        ("on_client_role_changed", ClientRoleChangedCallback),
        ("on_connection_state_changed", ConnectionStateChangedCallback),
        ("on_connection_lost", ConnectionLostCallback),
        ("on_token_privilege_will_expire", TokenPrivilegeWillExpireCallback),
        ("on_request_token", RequestTokenCallback),
        ("on_local_user_registered", LocalUserRegisteredCallback),
        ("on_user_info_updated", UserInfoUpdatedCallback),
        ("on_error", ErrorCallback),
        # ABI 0.4: audio.
        ("on_first_local_audio_frame_published", FirstLocalAudioFramePublishedCallback),
        ("on_first_remote_audio_frame", FirstRemoteAudioFrameCallback),
        ("on_first_remote_audio_decoded", FirstRemoteAudioDecodedCallback),
        ("on_user_mute_audio", UserMuteAudioCallback),
        ("on_local_audio_state_changed", LocalAudioStateChangedCallback),
        ("on_remote_audio_state_changed", RemoteAudioStateChangedCallback),
        ("on_audio_volume_indication", AudioVolumeIndicationCallback),
        ("on_active_speaker", ActiveSpeakerCallback),
        ("on_rtc_stats", RtcStatsCallback),
        ("on_local_audio_stats", LocalAudioStatsCallback),
        ("on_remote_audio_stats", RemoteAudioStatsCallback),
        # ABI 0.5: video.
        ("on_first_local_video_frame_published", FirstLocalVideoFramePublishedCallback),
        ("on_first_remote_video_decoded", FirstRemoteVideoDecodedCallback),
        ("on_video_size_changed", VideoSizeChangedCallback),
        ("on_user_mute_video", UserMuteVideoCallback),
        # ABI 0.6: video.
        ("on_first_local_video_frame", FirstLocalVideoFrameCallback),
        ("on_first_remote_video_frame", FirstRemoteVideoFrameCallback),
        ("on_user_enable_video", UserEnableVideoCallback),
        ("on_user_enable_local_video", UserEnableLocalVideoCallback),
        ("on_local_video_state_changed", LocalVideoStateChangedCallback),
        ("on_remote_video_state_changed", RemoteVideoStateChangedCallback),
        ("on_local_video_stats", LocalVideoStatsCallback),
        ("on_remote_video_stats", RemoteVideoStatsCallback),
        ("on_snapshot_taken", SnapshotTakenCallback),
        ("on_network_quality", NetworkQualityCallback),
        # ABI 0.7: fallback.
        ("on_local_publish_fallback_to_audio_only", LocalPublishFallbackToAudioOnlyCallback),
        ("on_remote_subscribe_fallback_to_audio_only", RemoteSubscribeFallbackToAudioOnlyCallback),
        # ABI 0.7: the last-mile test and probe.
        ("on_lastmile_quality", LastmileQualityCallback),
        ("on_lastmile_probe_result", LastmileProbeResultCallback),
        # ABI 0.8: data streams, metadata, encryption.
        ("on_stream_message", StreamMessageCallback),
        ("on_stream_message_error", StreamMessageErrorCallback),
        ("on_encryption_error", EncryptionErrorCallback),
        ("on_audio_metadata_received", AudioMetadataReceivedCallback),
    ]


#: ``sizeof(uint32_t) * 2 + sizeof(void *) * 2``: the table of ABI 0.1.
AGORAISH_EVENT_HANDLER_SIZE_0_1 = ctypes.sizeof(c_uint32) * 2 + ctypes.sizeof(c_void_p) * 2

# Render sink callback (ABI 0.5): it runs on the engine's video thread
# (agoraish-vid<n>), one picture at a time; the frame is valid during the call only.

#: ``on_frame(engine, user_data, uint32_t uid, const agoraish_video_frame *frame)``
VideoFrameCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, POINTER(VideoFrame))


class VideoCanvas(Structure):
    """``agoraish_video_canvas``: the render sink of one remote user, or of the local preview.

    Owner: the host. The library copies the struct during
    ``agoraish_engine_setup_remote_video()`` or
    ``agoraish_engine_setup_local_video()``, but ``on_frame`` must stay valid
    until the sink is unbound (``on_frame`` NULL) or the engine is released
    (for ctypes: keep the CFUNCTYPE object alive). ``uid`` is not 0 for a
    remote user and ignored for the local canvas. The last four fields are
    ABI 0.6: RENDER_MODE_TYPE (0 = HIDDEN), VIDEO_MIRROR_MODE and the view
    size (0 x 0: pictures at their own size).
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("uid", c_uint32),
        ("on_frame", VideoFrameCallback),
        ("user_data", c_void_p),
        # ABI 0.6.
        ("render_mode", c_int),
        ("mirror_mode", c_int),
        ("view_width", c_int),
        ("view_height", c_int),
    ]


# Video frame observer callbacks (ABI 0.6): capture and pre-encode run on the
# thread that pushes the picture (or the camera thread), render on the video
# thread. Each may write the planes and returns nonzero to keep the picture,
# 0 to drop it.

#: ``on_capture_video_frame(engine, user_data, agoraish_video_frame *frame)``
CaptureVideoFrameCallback = CFUNCTYPE(c_int, c_void_p, c_void_p, POINTER(VideoFrame))
#: ``on_pre_encode_video_frame(engine, user_data, agoraish_video_frame *frame)``
PreEncodeVideoFrameCallback = CFUNCTYPE(c_int, c_void_p, c_void_p, POINTER(VideoFrame))
#: ``on_render_video_frame(engine, user_data, uint32_t uid, agoraish_video_frame *frame)``
RenderVideoFrameCallback = CFUNCTYPE(c_int, c_void_p, c_void_p, c_uint32, POINTER(VideoFrame))


class VideoFrameObserverTable(Structure):
    """``agoraish_video_frame_observer``: a raw video observer.

    Owner: the host. The library copies the struct during
    ``agoraish_engine_register_video_frame_observer()``, but the function
    pointers must stay valid while the library may call them (for ctypes:
    keep the CFUNCTYPE objects alive). A NULL entry is skipped.
    ``observed_position`` is a bit set of ``AGORAISH_VIDEO_POSITION_*``
    (0: POST_CAPTURER | PRE_RENDERER).
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("observed_position", c_int),
        ("on_capture_video_frame", CaptureVideoFrameCallback),
        ("on_pre_encode_video_frame", PreEncodeVideoFrameCallback),
        ("on_render_video_frame", RenderVideoFrameCallback),
        ("user_data", c_void_p),
    ]


class WatermarkOptions(Structure):
    """``agoraish_watermark_options``: where a watermark goes, in pixels of the sent picture.

    Owner: the host; read only during ``agoraish_engine_add_video_watermark()``.
    Set ``struct_size`` to ``ctypes.sizeof(WatermarkOptions)``. Origins are
    0..4096, sizes 1..4096.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("visible_in_preview", c_int),
        ("landscape_x", c_int),
        ("landscape_y", c_int),
        ("landscape_width", c_int),
        ("landscape_height", c_int),
        ("portrait_x", c_int),
        ("portrait_y", c_int),
        ("portrait_width", c_int),
        ("portrait_height", c_int),
    ]


class VideoFormat(Structure):
    """``agoraish_video_format``: one picture format a camera offers; ``fourcc`` is NUL-terminated."""

    _fields_ = [
        ("width", c_int),
        ("height", c_int),
        ("fps", c_int),
        ("fourcc", c_char * 8),
    ]


class VideoDeviceInfo(Structure):
    """``agoraish_video_device_info``: one camera (a V4L2 capture device).

    Filled by ``agoraish_engine_get_video_device()``; ``id`` (its /dev path)
    and ``name`` are NUL-terminated UTF-8; ``formats[:format_count]`` are used.
    """

    _fields_ = [
        ("id", c_char * AGORAISH_MAX_DEVICE_ID_LENGTH),
        ("name", c_char * AGORAISH_MAX_DEVICE_ID_LENGTH),
        ("format_count", c_int),
        ("formats", VideoFormat * AGORAISH_MAX_VIDEO_FORMATS),
    ]


class CameraCapturerConfiguration(Structure):
    """``agoraish_camera_capturer_configuration``: the camera's capture size preference.

    Owner: the host; read only during
    ``agoraish_engine_set_camera_capturer_configuration()``. Set ``struct_size``
    to ``ctypes.sizeof(CameraCapturerConfiguration)``. ``preference`` is
    CAPTURER_OUTPUT_PREFERENCE (0..3; 3 MANUAL uses the capture size, 16..4096).
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("preference", c_int),
        ("capture_width", c_int),
        ("capture_height", c_int),
    ]


# Media metadata observer callbacks (ABI 0.8): get_max_metadata_size once,
# during agoraish_engine_register_media_metadata_observer(); ready-to-send on
# the thread that sends the picture (the pushing or camera thread); received
# on the event thread.

#: ``get_max_metadata_size(engine, user_data)``
GetMaxMetadataSizeCallback = CFUNCTYPE(c_int, c_void_p, c_void_p)
#: ``on_ready_to_send_metadata(engine, user_data, agoraish_metadata *metadata)``
ReadyToSendMetadataCallback = CFUNCTYPE(c_int, c_void_p, c_void_p, POINTER(Metadata))
#: ``on_metadata_received(engine, user_data, const agoraish_metadata *metadata)``
MetadataReceivedCallback = CFUNCTYPE(None, c_void_p, c_void_p, POINTER(Metadata))


class MetadataObserverTable(Structure):
    """``agoraish_metadata_observer``: the source and sink of video metadata.

    Owner: the host. The library copies the struct during
    ``agoraish_engine_register_media_metadata_observer()``, but the function
    pointers must stay valid while the library may call them (for ctypes:
    keep the CFUNCTYPE objects alive). A NULL entry is skipped.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("user_data", c_void_p),
        ("get_max_metadata_size", GetMaxMetadataSizeCallback),
        ("on_ready_to_send_metadata", ReadyToSendMetadataCallback),
        ("on_metadata_received", MetadataReceivedCallback),
    ]


# Packet observer callbacks (ABI 0.8): send callbacks on the thread that
# encodes, receive callbacks on the engine's network thread; callbacks of one
# kind never overlap. Each returns nonzero to pass the packet on, 0 to drop it.

#: ``on_send_audio_packet(engine, user_data, agoraish_packet *packet)`` (and the other three)
PacketCallback = CFUNCTYPE(c_int, c_void_p, c_void_p, POINTER(Packet))


class PacketObserverTable(Structure):
    """``agoraish_packet_observer``: sees, and may replace, each media payload.

    Owner: the host. The library copies the struct during
    ``agoraish_engine_register_packet_observer()``, but the function pointers
    must stay valid while the library may call them (for ctypes: keep the
    CFUNCTYPE objects alive). A NULL entry passes packets on unchanged.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("user_data", c_void_p),
        ("on_send_audio_packet", PacketCallback),
        ("on_send_video_packet", PacketCallback),
        ("on_receive_audio_packet", PacketCallback),
        ("on_receive_video_packet", PacketCallback),
    ]


class EngineConfig(Structure):
    """``agoraish_engine_config``: how to create an engine.

    Owner: the host; read only during ``agoraish_engine_create()``. Set
    ``struct_size`` to ``ctypes.sizeof(EngineConfig)``.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("app_id", c_char_p),
        ("event_handler", POINTER(EventHandlerTable)),
        ("server_url", c_char_p),
        ("log_file", c_char_p),
        ("log_file_size_kb", c_int32),
        ("log_level", c_int32),
        ("area_code", c_uint32),
    ]


class ServerConfig(Structure):
    """``agoraish_server_config``: how to create an embedded channel server.

    Owner: the host; read only during ``agoraish_server_create()`` (strings
    are copied). Set ``struct_size`` to ``ctypes.sizeof(ServerConfig)``.
    """

    _fields_ = [
        ("struct_size", c_uint32),
        ("host", c_char_p),
        ("signaling_port", c_int32),
        ("http_port", c_int32),
        ("config_json", c_char_p),
    ]


# The C names, for code that reads like the header.
agoraish_user_info = UserInfo
agoraish_rtc_stats = RtcStats
agoraish_event_handler = EventHandlerTable
agoraish_engine_config = EngineConfig
agoraish_server_config = ServerConfig
agoraish_audio_volume_info = AudioVolumeInfo
agoraish_local_audio_stats = LocalAudioStats
agoraish_remote_audio_stats = RemoteAudioStats
agoraish_audio_frame = AudioFrame
agoraish_audio_frame_observer = AudioFrameObserverTable
agoraish_audio_recording_config = AudioRecordingConfig
agoraish_audio_device_info = AudioDeviceInfo
agoraish_video_encoder_configuration = VideoEncoderConfiguration
agoraish_external_video_frame = ExternalVideoFrame
agoraish_video_frame = VideoFrame
agoraish_video_canvas = VideoCanvas
agoraish_local_video_stats = LocalVideoStats
agoraish_remote_video_stats = RemoteVideoStats
agoraish_video_frame_observer = VideoFrameObserverTable
agoraish_watermark_options = WatermarkOptions
agoraish_video_format = VideoFormat
agoraish_video_device_info = VideoDeviceInfo
agoraish_camera_capturer_configuration = CameraCapturerConfiguration
agoraish_lastmile_probe_config = LastmileProbeConfig
agoraish_echo_test_configuration = EchoTestConfiguration
agoraish_lastmile_probe_one_way_result = LastmileProbeOneWayResult
agoraish_lastmile_probe_result = LastmileProbeResult
agoraish_data_stream_config = DataStreamConfig
agoraish_metadata = Metadata
agoraish_metadata_observer = MetadataObserverTable
agoraish_encryption_config = EncryptionConfig
agoraish_packet = Packet
agoraish_packet_observer = PacketObserverTable

#: Every struct of the header, keyed by its C name.
STRUCTS: Dict[str, Type[Structure]] = {
    "agoraish_user_info": UserInfo,
    "agoraish_rtc_stats": RtcStats,
    "agoraish_audio_volume_info": AudioVolumeInfo,
    "agoraish_local_audio_stats": LocalAudioStats,
    "agoraish_remote_audio_stats": RemoteAudioStats,
    "agoraish_audio_frame": AudioFrame,
    "agoraish_audio_frame_observer": AudioFrameObserverTable,
    "agoraish_audio_recording_config": AudioRecordingConfig,
    "agoraish_audio_device_info": AudioDeviceInfo,
    "agoraish_video_encoder_configuration": VideoEncoderConfiguration,
    "agoraish_external_video_frame": ExternalVideoFrame,
    "agoraish_video_frame": VideoFrame,
    "agoraish_event_handler": EventHandlerTable,
    "agoraish_engine_config": EngineConfig,
    "agoraish_video_canvas": VideoCanvas,
    "agoraish_server_config": ServerConfig,
    "agoraish_local_video_stats": LocalVideoStats,
    "agoraish_remote_video_stats": RemoteVideoStats,
    "agoraish_video_frame_observer": VideoFrameObserverTable,
    "agoraish_watermark_options": WatermarkOptions,
    "agoraish_video_format": VideoFormat,
    "agoraish_video_device_info": VideoDeviceInfo,
    "agoraish_camera_capturer_configuration": CameraCapturerConfiguration,
    "agoraish_lastmile_probe_config": LastmileProbeConfig,
    "agoraish_echo_test_configuration": EchoTestConfiguration,
    "agoraish_lastmile_probe_one_way_result": LastmileProbeOneWayResult,
    "agoraish_lastmile_probe_result": LastmileProbeResult,
    "agoraish_data_stream_config": DataStreamConfig,
    "agoraish_metadata": Metadata,
    "agoraish_metadata_observer": MetadataObserverTable,
    "agoraish_encryption_config": EncryptionConfig,
    "agoraish_packet": Packet,
    "agoraish_packet_observer": PacketObserverTable,
}

# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_SONAME = "libagoraish.so.0"


class LibraryNotFoundError(OSError):
    """libagoraish could not be loaded; the message names every place tried."""


class LibraryMismatchError(ImportError):
    """The loaded library lacks functions that include/agoraish.h declares."""


def _load() -> Tuple[ctypes.CDLL, str]:
    """Loads libagoraish following the order in the module docstring."""
    explicit = os.environ.get("AGORAISH_LIBRARY")
    if explicit:
        try:
            return ctypes.CDLL(explicit), explicit
        except OSError as error:
            raise LibraryNotFoundError(
                f"cannot load libagoraish from AGORAISH_LIBRARY={explicit!r}: {error}"
            ) from None

    tried: List[str] = ["AGORAISH_LIBRARY (not set)"]
    for name in (_SONAME, "libagoraish.so"):
        path = os.path.join(_PACKAGE_DIR, name)
        if not os.path.exists(path):
            tried.append(f"{path} (no such file)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as error:
            tried.append(f"{path} ({error})")

    try:
        return ctypes.CDLL(_SONAME), _SONAME
    except OSError as error:
        tried.append(f"{_SONAME} through the dynamic loader ({error})")

    found = ctypes.util.find_library("agoraish")
    if found:
        try:
            return ctypes.CDLL(found), found
        except OSError as error:
            tried.append(f"{found} from ctypes.util.find_library ({error})")
    else:
        tried.append('ctypes.util.find_library("agoraish") (nothing found)')

    raise LibraryNotFoundError(
        "cannot find libagoraish; set AGORAISH_LIBRARY to the path of libagoraish.so.0. Tried:\n  "
        + "\n  ".join(tried)
    )


lib, LIBRARY_PATH = _load()
"""The loaded library (``ctypes.CDLL``) and the path or name it was loaded from."""


# --------------------------------------------------------------------------
# Functions, in header order
# --------------------------------------------------------------------------

#: Every function of the header: C name -> (restype, argtypes).
FUNCTIONS: Dict[str, Tuple[Optional[type], Sequence[type]]] = {}
_missing: List[str] = []


def _declare(name: str, restype: Optional[type], argtypes: Sequence[type]):
    """Looks `name` up in the library and sets its ctypes signature."""
    FUNCTIONS[name] = (restype, tuple(argtypes))
    try:
        function = getattr(lib, name)
    except AttributeError:
        _missing.append(name)
        return None
    function.restype = restype
    function.argtypes = list(argtypes)
    return function


# const char *agoraish_get_version(int *build);
agoraish_get_version = _declare("agoraish_get_version", c_char_p, [POINTER(c_int)])
# const char *agoraish_get_error_description(int code);
agoraish_get_error_description = _declare("agoraish_get_error_description", c_char_p, [c_int])
# int agoraish_get_last_error(void);
agoraish_get_last_error = _declare("agoraish_get_last_error", c_int, [])
# agoraish_engine_t *agoraish_engine_create(const agoraish_engine_config *config);
agoraish_engine_create = _declare("agoraish_engine_create", c_void_p, [POINTER(EngineConfig)])
# int agoraish_engine_release(agoraish_engine_t *engine, int sync);
agoraish_engine_release = _declare("agoraish_engine_release", c_int, [c_void_p, c_int])
# int agoraish_engine_set_parameters(agoraish_engine_t *engine, const char *json);
agoraish_engine_set_parameters = _declare("agoraish_engine_set_parameters", c_int, [c_void_p, c_char_p])
# int agoraish_engine_get_parameter(agoraish_engine_t *engine, const char *key,
#                                   char *buf, size_t *len);
agoraish_engine_get_parameter = _declare(
    "agoraish_engine_get_parameter", c_int, [c_void_p, c_char_p, POINTER(c_char), POINTER(c_size_t)]
)
# int agoraish_engine_set_log_file(agoraish_engine_t *engine, const char *path);
agoraish_engine_set_log_file = _declare("agoraish_engine_set_log_file", c_int, [c_void_p, c_char_p])
# int agoraish_engine_set_log_filter(agoraish_engine_t *engine, unsigned int filter);
agoraish_engine_set_log_filter = _declare("agoraish_engine_set_log_filter", c_int, [c_void_p, c_uint])
# int agoraish_engine_set_log_level(agoraish_engine_t *engine, int level);
agoraish_engine_set_log_level = _declare("agoraish_engine_set_log_level", c_int, [c_void_p, c_int])
# int agoraish_engine_set_log_file_size(agoraish_engine_t *engine, unsigned int size_kb);
agoraish_engine_set_log_file_size = _declare(
    "agoraish_engine_set_log_file_size", c_int, [c_void_p, c_uint]
)


# Channels

# int agoraish_engine_set_channel_profile(agoraish_engine_t *engine, int profile);
agoraish_engine_set_channel_profile = _declare("agoraish_engine_set_channel_profile", c_int, [c_void_p, c_int])
# int agoraish_engine_set_client_role(agoraish_engine_t *engine, int role);
agoraish_engine_set_client_role = _declare("agoraish_engine_set_client_role", c_int, [c_void_p, c_int])
# int agoraish_engine_join_channel(agoraish_engine_t *engine, const char *token, const char *channel,
#                                  const char *info, uint32_t uid);
agoraish_engine_join_channel = _declare(
    "agoraish_engine_join_channel", c_int, [c_void_p, c_char_p, c_char_p, c_char_p, c_uint32]
)
# int agoraish_engine_join_channel_with_user_account(agoraish_engine_t *engine, const char *token,
#                                                    const char *channel, const char *user_account);
agoraish_engine_join_channel_with_user_account = _declare(
    "agoraish_engine_join_channel_with_user_account", c_int, [c_void_p, c_char_p, c_char_p, c_char_p]
)
# int agoraish_engine_register_local_user_account(agoraish_engine_t *engine, const char *app_id,
#                                                 const char *user_account);
agoraish_engine_register_local_user_account = _declare(
    "agoraish_engine_register_local_user_account", c_int, [c_void_p, c_char_p, c_char_p]
)
# int agoraish_engine_get_user_info_by_user_account(agoraish_engine_t *engine, const char *user_account,
#                                                   agoraish_user_info *info);
agoraish_engine_get_user_info_by_user_account = _declare(
    "agoraish_engine_get_user_info_by_user_account", c_int, [c_void_p, c_char_p, POINTER(UserInfo)]
)
# int agoraish_engine_get_user_info_by_uid(agoraish_engine_t *engine, uint32_t uid, agoraish_user_info *info);
agoraish_engine_get_user_info_by_uid = _declare(
    "agoraish_engine_get_user_info_by_uid", c_int, [c_void_p, c_uint32, POINTER(UserInfo)]
)
# int agoraish_engine_leave_channel(agoraish_engine_t *engine);
agoraish_engine_leave_channel = _declare("agoraish_engine_leave_channel", c_int, [c_void_p])
# int agoraish_engine_renew_token(agoraish_engine_t *engine, const char *token);
agoraish_engine_renew_token = _declare("agoraish_engine_renew_token", c_int, [c_void_p, c_char_p])
# int agoraish_engine_switch_channel(agoraish_engine_t *engine, const char *token, const char *channel);
agoraish_engine_switch_channel = _declare("agoraish_engine_switch_channel", c_int, [c_void_p, c_char_p, c_char_p])
# int agoraish_engine_get_call_id(agoraish_engine_t *engine, char *buf, size_t *len);
agoraish_engine_get_call_id = _declare(
    "agoraish_engine_get_call_id", c_int, [c_void_p, POINTER(c_char), POINTER(c_size_t)]
)
# int agoraish_engine_get_connection_state(agoraish_engine_t *engine);
agoraish_engine_get_connection_state = _declare("agoraish_engine_get_connection_state", c_int, [c_void_p])

# Audio from and to the host

# int agoraish_engine_set_audio_profile(agoraish_engine_t *engine, int profile);
agoraish_engine_set_audio_profile = _declare("agoraish_engine_set_audio_profile", c_int, [c_void_p, c_int])
# int agoraish_engine_set_external_audio_source(agoraish_engine_t *engine, int enabled, int sample_rate, int channels);
agoraish_engine_set_external_audio_source = _declare(
    "agoraish_engine_set_external_audio_source", c_int, [c_void_p, c_int, c_int, c_int]
)
# int agoraish_engine_push_external_audio_frame(agoraish_engine_t *engine, const int16_t *samples, int samples_per_channel);
agoraish_engine_push_external_audio_frame = _declare(
    "agoraish_engine_push_external_audio_frame", c_int, [c_void_p, POINTER(c_int16), c_int]
)
# int agoraish_engine_set_external_audio_sink(agoraish_engine_t *engine, int enabled, int sample_rate, int channels);
agoraish_engine_set_external_audio_sink = _declare(
    "agoraish_engine_set_external_audio_sink", c_int, [c_void_p, c_int, c_int, c_int]
)
# int agoraish_engine_pull_playback_audio_frame(agoraish_engine_t *engine, int16_t *samples, int samples_per_channel);
agoraish_engine_pull_playback_audio_frame = _declare(
    "agoraish_engine_pull_playback_audio_frame", c_int, [c_void_p, POINTER(c_int16), c_int]
)

# Audio switches and volumes

# int agoraish_engine_enable_audio(agoraish_engine_t *engine);
agoraish_engine_enable_audio = _declare("agoraish_engine_enable_audio", c_int, [c_void_p])
# int agoraish_engine_disable_audio(agoraish_engine_t *engine);
agoraish_engine_disable_audio = _declare("agoraish_engine_disable_audio", c_int, [c_void_p])
# int agoraish_engine_enable_local_audio(agoraish_engine_t *engine, int enabled);
agoraish_engine_enable_local_audio = _declare("agoraish_engine_enable_local_audio", c_int, [c_void_p, c_int])
# int agoraish_engine_mute_local_audio_stream(agoraish_engine_t *engine, int mute);
agoraish_engine_mute_local_audio_stream = _declare(
    "agoraish_engine_mute_local_audio_stream", c_int, [c_void_p, c_int]
)
# int agoraish_engine_mute_remote_audio_stream(agoraish_engine_t *engine, uint32_t uid, int mute);
agoraish_engine_mute_remote_audio_stream = _declare(
    "agoraish_engine_mute_remote_audio_stream", c_int, [c_void_p, c_uint32, c_int]
)
# int agoraish_engine_mute_all_remote_audio_streams(agoraish_engine_t *engine, int mute);
agoraish_engine_mute_all_remote_audio_streams = _declare(
    "agoraish_engine_mute_all_remote_audio_streams", c_int, [c_void_p, c_int]
)
# int agoraish_engine_set_default_mute_all_remote_audio_streams(agoraish_engine_t *engine, int mute);
agoraish_engine_set_default_mute_all_remote_audio_streams = _declare(
    "agoraish_engine_set_default_mute_all_remote_audio_streams", c_int, [c_void_p, c_int]
)
# int agoraish_engine_adjust_recording_signal_volume(agoraish_engine_t *engine, int volume);
agoraish_engine_adjust_recording_signal_volume = _declare(
    "agoraish_engine_adjust_recording_signal_volume", c_int, [c_void_p, c_int]
)
# int agoraish_engine_adjust_playback_signal_volume(agoraish_engine_t *engine, int volume);
agoraish_engine_adjust_playback_signal_volume = _declare(
    "agoraish_engine_adjust_playback_signal_volume", c_int, [c_void_p, c_int]
)
# int agoraish_engine_adjust_user_playback_signal_volume(agoraish_engine_t *engine, uint32_t uid, int volume);
agoraish_engine_adjust_user_playback_signal_volume = _declare(
    "agoraish_engine_adjust_user_playback_signal_volume", c_int, [c_void_p, c_uint32, c_int]
)
# int agoraish_engine_enable_audio_volume_indication(agoraish_engine_t *engine, int interval, int smooth,
#                                                    int report_vad);
agoraish_engine_enable_audio_volume_indication = _declare(
    "agoraish_engine_enable_audio_volume_indication", c_int, [c_void_p, c_int, c_int, c_int]
)

# Raw audio data

# int agoraish_engine_register_audio_frame_observer(agoraish_engine_t *engine,
#                                                   const agoraish_audio_frame_observer *observer);
agoraish_engine_register_audio_frame_observer = _declare(
    "agoraish_engine_register_audio_frame_observer", c_int, [c_void_p, POINTER(AudioFrameObserverTable)]
)
# int agoraish_engine_set_recording_audio_frame_parameters(agoraish_engine_t *engine, int sample_rate, int channels,
#                                                          int mode, int samples_per_call);
agoraish_engine_set_recording_audio_frame_parameters = _declare(
    "agoraish_engine_set_recording_audio_frame_parameters", c_int, [c_void_p, c_int, c_int, c_int, c_int]
)
# int agoraish_engine_set_playback_audio_frame_parameters(agoraish_engine_t *engine, int sample_rate, int channels,
#                                                         int mode, int samples_per_call);
agoraish_engine_set_playback_audio_frame_parameters = _declare(
    "agoraish_engine_set_playback_audio_frame_parameters", c_int, [c_void_p, c_int, c_int, c_int, c_int]
)
# int agoraish_engine_set_mixed_audio_frame_parameters(agoraish_engine_t *engine, int sample_rate, int channels,
#                                                      int samples_per_call);
agoraish_engine_set_mixed_audio_frame_parameters = _declare(
    "agoraish_engine_set_mixed_audio_frame_parameters", c_int, [c_void_p, c_int, c_int, c_int]
)
# int agoraish_engine_set_playback_audio_frame_before_mixing_parameters(agoraish_engine_t *engine, int sample_rate,
#                                                                       int channels);
agoraish_engine_set_playback_audio_frame_before_mixing_parameters = _declare(
    "agoraish_engine_set_playback_audio_frame_before_mixing_parameters", c_int, [c_void_p, c_int, c_int]
)

# Recording to a file

# int agoraish_engine_start_audio_recording(agoraish_engine_t *engine, const agoraish_audio_recording_config *config);
agoraish_engine_start_audio_recording = _declare(
    "agoraish_engine_start_audio_recording", c_int, [c_void_p, POINTER(AudioRecordingConfig)]
)
# int agoraish_engine_stop_audio_recording(agoraish_engine_t *engine);
agoraish_engine_stop_audio_recording = _declare("agoraish_engine_stop_audio_recording", c_int, [c_void_p])

# Audio devices

# int agoraish_engine_get_audio_device_count(agoraish_engine_t *engine, int type);
agoraish_engine_get_audio_device_count = _declare("agoraish_engine_get_audio_device_count", c_int, [c_void_p, c_int])
# int agoraish_engine_get_audio_device(agoraish_engine_t *engine, int type, int index, agoraish_audio_device_info *info);
agoraish_engine_get_audio_device = _declare(
    "agoraish_engine_get_audio_device", c_int, [c_void_p, c_int, c_int, POINTER(AudioDeviceInfo)]
)
# int agoraish_engine_set_recording_device(agoraish_engine_t *engine, const char *device_id);
agoraish_engine_set_recording_device = _declare("agoraish_engine_set_recording_device", c_int, [c_void_p, c_char_p])
# int agoraish_engine_set_playback_device(agoraish_engine_t *engine, const char *device_id);
agoraish_engine_set_playback_device = _declare("agoraish_engine_set_playback_device", c_int, [c_void_p, c_char_p])
# int agoraish_engine_get_recording_device(agoraish_engine_t *engine, char *buf, size_t *len);
agoraish_engine_get_recording_device = _declare(
    "agoraish_engine_get_recording_device", c_int, [c_void_p, POINTER(c_char), POINTER(c_size_t)]
)
# int agoraish_engine_get_playback_device(agoraish_engine_t *engine, char *buf, size_t *len);
agoraish_engine_get_playback_device = _declare(
    "agoraish_engine_get_playback_device", c_int, [c_void_p, POINTER(c_char), POINTER(c_size_t)]
)
# int agoraish_engine_start_recording_device_test(agoraish_engine_t *engine, int interval);
agoraish_engine_start_recording_device_test = _declare(
    "agoraish_engine_start_recording_device_test", c_int, [c_void_p, c_int]
)
# int agoraish_engine_stop_recording_device_test(agoraish_engine_t *engine);
agoraish_engine_stop_recording_device_test = _declare("agoraish_engine_stop_recording_device_test", c_int, [c_void_p])
# int agoraish_engine_start_playback_device_test(agoraish_engine_t *engine, const char *path);
agoraish_engine_start_playback_device_test = _declare(
    "agoraish_engine_start_playback_device_test", c_int, [c_void_p, c_char_p]
)
# int agoraish_engine_stop_playback_device_test(agoraish_engine_t *engine);
agoraish_engine_stop_playback_device_test = _declare("agoraish_engine_stop_playback_device_test", c_int, [c_void_p])
# int agoraish_engine_start_audio_device_loopback_test(agoraish_engine_t *engine, int interval);
agoraish_engine_start_audio_device_loopback_test = _declare(
    "agoraish_engine_start_audio_device_loopback_test", c_int, [c_void_p, c_int]
)
# int agoraish_engine_stop_audio_device_loopback_test(agoraish_engine_t *engine);
agoraish_engine_stop_audio_device_loopback_test = _declare(
    "agoraish_engine_stop_audio_device_loopback_test", c_int, [c_void_p]
)

# Video (ABI 0.5)

# int agoraish_engine_enable_video(agoraish_engine_t *engine);
agoraish_engine_enable_video = _declare("agoraish_engine_enable_video", c_int, [c_void_p])
# int agoraish_engine_disable_video(agoraish_engine_t *engine);
agoraish_engine_disable_video = _declare("agoraish_engine_disable_video", c_int, [c_void_p])
# int agoraish_engine_set_video_encoder_configuration(agoraish_engine_t *engine,
#                                                     const agoraish_video_encoder_configuration *config);
agoraish_engine_set_video_encoder_configuration = _declare(
    "agoraish_engine_set_video_encoder_configuration", c_int, [c_void_p, POINTER(VideoEncoderConfiguration)]
)
# int agoraish_engine_set_external_video_source(agoraish_engine_t *engine, int enabled);
agoraish_engine_set_external_video_source = _declare(
    "agoraish_engine_set_external_video_source", c_int, [c_void_p, c_int]
)
# int agoraish_engine_push_external_video_frame(agoraish_engine_t *engine, const agoraish_external_video_frame *frame);
agoraish_engine_push_external_video_frame = _declare(
    "agoraish_engine_push_external_video_frame", c_int, [c_void_p, POINTER(ExternalVideoFrame)]
)
# int agoraish_engine_setup_remote_video(agoraish_engine_t *engine, const agoraish_video_canvas *canvas);
agoraish_engine_setup_remote_video = _declare(
    "agoraish_engine_setup_remote_video", c_int, [c_void_p, POINTER(VideoCanvas)]
)
# int agoraish_engine_enable_local_video(agoraish_engine_t *engine, int enabled);
agoraish_engine_enable_local_video = _declare("agoraish_engine_enable_local_video", c_int, [c_void_p, c_int])
# int agoraish_engine_mute_local_video_stream(agoraish_engine_t *engine, int mute);
agoraish_engine_mute_local_video_stream = _declare(
    "agoraish_engine_mute_local_video_stream", c_int, [c_void_p, c_int]
)
# int agoraish_engine_mute_remote_video_stream(agoraish_engine_t *engine, uint32_t uid, int mute);
agoraish_engine_mute_remote_video_stream = _declare(
    "agoraish_engine_mute_remote_video_stream", c_int, [c_void_p, c_uint32, c_int]
)
# int agoraish_engine_mute_all_remote_video_streams(agoraish_engine_t *engine, int mute);
agoraish_engine_mute_all_remote_video_streams = _declare(
    "agoraish_engine_mute_all_remote_video_streams", c_int, [c_void_p, c_int]
)
# int agoraish_engine_set_default_mute_all_remote_video_streams(agoraish_engine_t *engine, int mute);
agoraish_engine_set_default_mute_all_remote_video_streams = _declare(
    "agoraish_engine_set_default_mute_all_remote_video_streams", c_int, [c_void_p, c_int]
)

# Video (ABI 0.6)

# int agoraish_engine_setup_local_video(agoraish_engine_t *engine, const agoraish_video_canvas *canvas);
agoraish_engine_setup_local_video = _declare(
    "agoraish_engine_setup_local_video", c_int, [c_void_p, POINTER(VideoCanvas)]
)
# int agoraish_engine_start_preview(agoraish_engine_t *engine);
agoraish_engine_start_preview = _declare("agoraish_engine_start_preview", c_int, [c_void_p])
# int agoraish_engine_stop_preview(agoraish_engine_t *engine);
agoraish_engine_stop_preview = _declare("agoraish_engine_stop_preview", c_int, [c_void_p])
# int agoraish_engine_set_local_render_mode(agoraish_engine_t *engine, int render_mode, int mirror_mode);
agoraish_engine_set_local_render_mode = _declare(
    "agoraish_engine_set_local_render_mode", c_int, [c_void_p, c_int, c_int]
)
# int agoraish_engine_set_remote_render_mode(agoraish_engine_t *engine, uint32_t uid, int render_mode,
#                                            int mirror_mode);
agoraish_engine_set_remote_render_mode = _declare(
    "agoraish_engine_set_remote_render_mode", c_int, [c_void_p, c_uint32, c_int, c_int]
)
# int agoraish_engine_register_video_frame_observer(agoraish_engine_t *engine,
#                                                   const agoraish_video_frame_observer *observer);
agoraish_engine_register_video_frame_observer = _declare(
    "agoraish_engine_register_video_frame_observer", c_int, [c_void_p, POINTER(VideoFrameObserverTable)]
)
# int agoraish_engine_enable_dual_stream_mode(agoraish_engine_t *engine, int enabled);
agoraish_engine_enable_dual_stream_mode = _declare(
    "agoraish_engine_enable_dual_stream_mode", c_int, [c_void_p, c_int]
)
# int agoraish_engine_set_remote_video_stream_type(agoraish_engine_t *engine, uint32_t uid, int stream_type);
agoraish_engine_set_remote_video_stream_type = _declare(
    "agoraish_engine_set_remote_video_stream_type", c_int, [c_void_p, c_uint32, c_int]
)
# int agoraish_engine_set_remote_default_video_stream_type(agoraish_engine_t *engine, int stream_type);
agoraish_engine_set_remote_default_video_stream_type = _declare(
    "agoraish_engine_set_remote_default_video_stream_type", c_int, [c_void_p, c_int]
)

# Last-mile test and probe (ABI 0.7)

# int agoraish_engine_start_lastmile_probe_test(agoraish_engine_t *engine,
#                                               const agoraish_lastmile_probe_config *config);
agoraish_engine_start_lastmile_probe_test = _declare(
    "agoraish_engine_start_lastmile_probe_test", c_int, [c_void_p, POINTER(LastmileProbeConfig)]
)
# int agoraish_engine_stop_lastmile_probe_test(agoraish_engine_t *engine);
agoraish_engine_stop_lastmile_probe_test = _declare("agoraish_engine_stop_lastmile_probe_test", c_int, [c_void_p])
# int agoraish_engine_enable_lastmile_test(agoraish_engine_t *engine);
agoraish_engine_enable_lastmile_test = _declare("agoraish_engine_enable_lastmile_test", c_int, [c_void_p])
# int agoraish_engine_disable_lastmile_test(agoraish_engine_t *engine);
agoraish_engine_disable_lastmile_test = _declare("agoraish_engine_disable_lastmile_test", c_int, [c_void_p])

# Congestion and fallback (ABI 0.7)

# int agoraish_engine_set_local_publish_fallback_option(agoraish_engine_t *engine, int option);
agoraish_engine_set_local_publish_fallback_option = _declare(
    "agoraish_engine_set_local_publish_fallback_option", c_int, [c_void_p, c_int]
)
# int agoraish_engine_set_remote_subscribe_fallback_option(agoraish_engine_t *engine, int option);
agoraish_engine_set_remote_subscribe_fallback_option = _declare(
    "agoraish_engine_set_remote_subscribe_fallback_option", c_int, [c_void_p, c_int]
)
# int agoraish_engine_set_remote_user_priority(agoraish_engine_t *engine, uint32_t uid, int priority);
agoraish_engine_set_remote_user_priority = _declare(
    "agoraish_engine_set_remote_user_priority", c_int, [c_void_p, c_uint32, c_int]
)
# int agoraish_engine_take_snapshot(agoraish_engine_t *engine, uint32_t uid, const char *path);
agoraish_engine_take_snapshot = _declare("agoraish_engine_take_snapshot", c_int, [c_void_p, c_uint32, c_char_p])
# int agoraish_engine_add_video_watermark(agoraish_engine_t *engine, const char *png_path,
#                                         const agoraish_watermark_options *options);
agoraish_engine_add_video_watermark = _declare(
    "agoraish_engine_add_video_watermark", c_int, [c_void_p, c_char_p, POINTER(WatermarkOptions)]
)
# int agoraish_engine_clear_video_watermarks(agoraish_engine_t *engine);
agoraish_engine_clear_video_watermarks = _declare("agoraish_engine_clear_video_watermarks", c_int, [c_void_p])
# int agoraish_engine_get_video_device_count(agoraish_engine_t *engine);
agoraish_engine_get_video_device_count = _declare("agoraish_engine_get_video_device_count", c_int, [c_void_p])
# int agoraish_engine_get_video_device(agoraish_engine_t *engine, int index, agoraish_video_device_info *info);
agoraish_engine_get_video_device = _declare(
    "agoraish_engine_get_video_device", c_int, [c_void_p, c_int, POINTER(VideoDeviceInfo)]
)
# int agoraish_engine_set_video_device(agoraish_engine_t *engine, const char *device_id);
agoraish_engine_set_video_device = _declare("agoraish_engine_set_video_device", c_int, [c_void_p, c_char_p])
# int agoraish_engine_get_current_video_device(agoraish_engine_t *engine, char *buf, size_t *len);
agoraish_engine_get_current_video_device = _declare(
    "agoraish_engine_get_current_video_device", c_int, [c_void_p, POINTER(c_char), POINTER(c_size_t)]
)
# int agoraish_engine_set_camera_capturer_configuration(agoraish_engine_t *engine,
#                                                       const agoraish_camera_capturer_configuration *config);
agoraish_engine_set_camera_capturer_configuration = _declare(
    "agoraish_engine_set_camera_capturer_configuration", c_int, [c_void_p, POINTER(CameraCapturerConfiguration)]
)
# int agoraish_engine_switch_camera(agoraish_engine_t *engine);
agoraish_engine_switch_camera = _declare("agoraish_engine_switch_camera", c_int, [c_void_p])

# Echo test

# int agoraish_engine_start_echo_test(agoraish_engine_t *engine, int interval_in_seconds);
agoraish_engine_start_echo_test = _declare("agoraish_engine_start_echo_test", c_int, [c_void_p, c_int])
# int agoraish_engine_start_echo_test_with_config(agoraish_engine_t *engine,
#                                                 const agoraish_echo_test_configuration *config);
agoraish_engine_start_echo_test_with_config = _declare(
    "agoraish_engine_start_echo_test_with_config", c_int, [c_void_p, POINTER(EchoTestConfiguration)]
)
# int agoraish_engine_stop_echo_test(agoraish_engine_t *engine);
agoraish_engine_stop_echo_test = _declare("agoraish_engine_stop_echo_test", c_int, [c_void_p])

# Data streams (ABI 0.8)

# int agoraish_engine_create_data_stream(agoraish_engine_t *engine, int *stream_id, int reliable, int ordered);
agoraish_engine_create_data_stream = _declare(
    "agoraish_engine_create_data_stream", c_int, [c_void_p, POINTER(c_int), c_int, c_int]
)
# int agoraish_engine_create_data_stream_with_config(agoraish_engine_t *engine, int *stream_id,
#                                                    const agoraish_data_stream_config *config);
agoraish_engine_create_data_stream_with_config = _declare(
    "agoraish_engine_create_data_stream_with_config", c_int, [c_void_p, POINTER(c_int), POINTER(DataStreamConfig)]
)
# int agoraish_engine_send_stream_message(agoraish_engine_t *engine, int stream_id, const void *data, size_t length);
agoraish_engine_send_stream_message = _declare(
    "agoraish_engine_send_stream_message", c_int, [c_void_p, c_int, c_void_p, c_size_t]
)
# int agoraish_engine_send_audio_metadata(agoraish_engine_t *engine, const void *data, size_t length);
agoraish_engine_send_audio_metadata = _declare(
    "agoraish_engine_send_audio_metadata", c_int, [c_void_p, c_void_p, c_size_t]
)

# Media metadata (ABI 0.8)

# int agoraish_engine_register_media_metadata_observer(agoraish_engine_t *engine,
#                                                      const agoraish_metadata_observer *observer, int type);
agoraish_engine_register_media_metadata_observer = _declare(
    "agoraish_engine_register_media_metadata_observer", c_int, [c_void_p, POINTER(MetadataObserverTable), c_int]
)

# Encryption (ABI 0.8)

# int agoraish_engine_enable_encryption(agoraish_engine_t *engine, int enabled,
#                                       const agoraish_encryption_config *config);
agoraish_engine_enable_encryption = _declare(
    "agoraish_engine_enable_encryption", c_int, [c_void_p, c_int, POINTER(EncryptionConfig)]
)
# int agoraish_engine_set_encryption_secret(agoraish_engine_t *engine, const char *secret);
agoraish_engine_set_encryption_secret = _declare("agoraish_engine_set_encryption_secret", c_int, [c_void_p, c_char_p])
# int agoraish_engine_set_encryption_mode(agoraish_engine_t *engine, const char *mode);
agoraish_engine_set_encryption_mode = _declare("agoraish_engine_set_encryption_mode", c_int, [c_void_p, c_char_p])
# int agoraish_engine_register_packet_observer(agoraish_engine_t *engine, const agoraish_packet_observer *observer);
agoraish_engine_register_packet_observer = _declare(
    "agoraish_engine_register_packet_observer", c_int, [c_void_p, POINTER(PacketObserverTable)]
)

# Embedded channel server

# agoraish_server_t *agoraish_server_create(const agoraish_server_config *config);
agoraish_server_create = _declare("agoraish_server_create", c_void_p, [POINTER(ServerConfig)])
# int agoraish_server_start(agoraish_server_t *server);
agoraish_server_start = _declare("agoraish_server_start", c_int, [c_void_p])
# int agoraish_server_stop(agoraish_server_t *server);
agoraish_server_stop = _declare("agoraish_server_stop", c_int, [c_void_p])
# int agoraish_server_release(agoraish_server_t *server);
agoraish_server_release = _declare("agoraish_server_release", c_int, [c_void_p])
# int agoraish_server_get_url(agoraish_server_t *server, char *buf, size_t *len);
agoraish_server_get_url = _declare(
    "agoraish_server_get_url", c_int, [c_void_p, POINTER(c_char), POINTER(c_size_t)]
)
# int agoraish_server_get_http_port(agoraish_server_t *server);
agoraish_server_get_http_port = _declare("agoraish_server_get_http_port", c_int, [c_void_p])

if _missing:
    raise LibraryMismatchError(
        f"{LIBRARY_PATH} does not export {', '.join(_missing)}, which include/agoraish.h "
        "declares (check `nm -D --defined-only` on the library)"
    )
