/*
 * agoraish.h — the C ABI of libagoraish, an open real-time voice, video and
 * data engine for Linux with the programming surface of the Agora RTC SDK.
 *
 * This header is the only contract a host sees. It is C99, compiles cleanly
 * as C++17, and declares only what the library implements.
 *
 * Conventions of the whole ABI
 * ----------------------------
 * Names      Every symbol starts with `agoraish_`; types end in `_t` (opaque
 *            handles) or are plain structs; constants start with `AGORAISH_`.
 * Handles    Objects are opaque handles (`agoraish_engine_t *`). A handle is
 *            a token, not a pointer the host may dereference. The library keeps
 *            one handle table: a handle carries a type tag and a generation,
 *            so a call never crashes on a bad handle:
 *              - NULL                              -> -AGORAISH_ERR_NOT_INITIALIZED (-7)
 *              - a handle of another object type, or
 *                bits that are no handle at all    -> -AGORAISH_ERR_INVALID_ARGUMENT (-2)
 *              - a released (stale) handle, or one
 *                of the right type never issued    -> -AGORAISH_ERR_NOT_INITIALIZED (-7)
 * Returns    Functions return `int`: 0 on success, or a negated error code
 *            (`-AGORAISH_ERR_INVALID_ARGUMENT` is -2). The numbers are Agora's
 *            ERROR_CODE_TYPE numbers. `agoraish_get_error_description()` turns
 *            a code into text. Functions that return a handle or a string
 *            return NULL on failure and document where the error code goes.
 * Enums      Values are Agora's numbers. They are passed as `int`.
 * Structs    Configuration and callback structs begin with `uint32_t
 *            struct_size`, which the caller sets to `sizeof` the struct it was
 *            compiled with. The library accepts the size the struct had in any
 *            ABI minor up to this one (the table include/abi/struct-sizes.json)
 *            and reads only the fields that fit in it, so fields can be
 *            appended in later minors without breaking hosts built against
 *            older headers. Any other `struct_size` is -2.
 * Strings    UTF-8, NUL-terminated. Strings passed in are copied before the
 *            call returns; the caller keeps ownership. Strings returned are
 *            either static (documented as such) or written into a caller
 *            buffer described by `char *buf, size_t *len`: on entry `*len` is
 *            the capacity of `buf`, on return it is the size needed including
 *            the NUL; if the buffer is too small the call returns
 *            -AGORAISH_ERR_BUFFER_TOO_SMALL (-6) and writes nothing.
 * Threads    Every function is thread-safe and returns quickly: work that
 *            takes time is posted to the engine. Event callbacks arrive on one
 *            dedicated event thread per engine, in the order the events
 *            happened; never on the caller's thread. A callback must not
 *            block for long. Calling `agoraish_engine_release()` for an
 *            engine from inside one of that engine's callbacks returns
 *            -AGORAISH_ERR_REFUSED (-5) instead of deadlocking.
 * Instances  Any number of engines may live in one process; they share no
 *            state other than the handle table.
 */
#ifndef AGORAISH_H
#define AGORAISH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Versions                                                                  */
/* ------------------------------------------------------------------------ */

/** ABI major version: changes only when an existing declaration changes
 *  incompatibly (the SONAME follows it: libagoraish.so.0). */
#define AGORAISH_ABI_VERSION_MAJOR 0
/** ABI minor version: grows when declarations or struct fields are appended. */
#define AGORAISH_ABI_VERSION_MINOR 14
/** The ABI version as one comparable number: major * 1000 + minor. */
#define AGORAISH_ABI_VERSION (AGORAISH_ABI_VERSION_MAJOR * 1000 + AGORAISH_ABI_VERSION_MINOR)

/* ------------------------------------------------------------------------ */
/* Error codes (Agora's ERROR_CODE_TYPE). Functions return the negation.     */
/* ------------------------------------------------------------------------ */

/** Error codes. A function returns `-code`; callbacks report `code`. */
enum agoraish_error_code {
    AGORAISH_ERR_OK = 0,                      /**< No error. */
    AGORAISH_ERR_FAILED = 1,                  /**< A general error with no more specific code. */
    AGORAISH_ERR_INVALID_ARGUMENT = 2,        /**< An argument is NULL, out of range, malformed, or a handle of the wrong type. */
    AGORAISH_ERR_NOT_READY = 3,               /**< The module is not ready (for example a device is missing). */
    AGORAISH_ERR_NOT_SUPPORTED = 4,           /**< The method does not apply on Linux or to this build. */
    AGORAISH_ERR_REFUSED = 5,                 /**< The call is refused in the current context (for example release from a callback). */
    AGORAISH_ERR_BUFFER_TOO_SMALL = 6,        /**< The caller's buffer is too small; the needed size was written back. */
    AGORAISH_ERR_NOT_INITIALIZED = 7,         /**< The handle is NULL, released, or unknown. */
    AGORAISH_ERR_INVALID_STATE = 8,           /**< The object is in a state where the call cannot apply. */
    AGORAISH_ERR_NO_PERMISSION = 9,           /**< No permission for a device or a file. */
    AGORAISH_ERR_TIMEDOUT = 10,               /**< An operation took longer than its deadline. */
    AGORAISH_ERR_CANCELED = 11,               /**< The request was canceled. */
    AGORAISH_ERR_TOO_OFTEN = 12,              /**< The call was made too often. */
    AGORAISH_ERR_BIND_SOCKET = 13,            /**< A socket could not be bound. */
    AGORAISH_ERR_NET_DOWN = 14,               /**< The network is unavailable. */
    AGORAISH_ERR_NET_NOBUFS = 15,             /**< No socket buffer space. */
    AGORAISH_ERR_JOIN_CHANNEL_REJECTED = 17,  /**< Already in or joining a channel. */
    AGORAISH_ERR_LEAVE_CHANNEL_REJECTED = 18, /**< Not in a channel. */
    AGORAISH_ERR_ALREADY_IN_USE = 19,         /**< The resource is already in use. */
    AGORAISH_ERR_ABORTED = 20,                /**< Aborted: too many requests. */
    AGORAISH_ERR_INIT_NET_ENGINE = 21,        /**< The network engine could not start. */
    AGORAISH_ERR_RESOURCE_LIMITED = 22,       /**< A resource limit was reached. */
    AGORAISH_ERR_INVALID_APP_ID = 101,        /**< The app id is empty, malformed, or unknown to the server. */
    AGORAISH_ERR_INVALID_CHANNEL_NAME = 102,  /**< The channel name is empty, too long, or has characters outside the allowed set. */
    AGORAISH_ERR_NO_SERVER_RESOURCES = 103,   /**< The server has no resources for the request. */
    AGORAISH_ERR_TOKEN_EXPIRED = 109,         /**< The token has expired. */
    AGORAISH_ERR_INVALID_TOKEN = 110,         /**< The token is malformed or does not match the app, channel or user. */
    AGORAISH_ERR_CONNECTION_INTERRUPTED = 111,/**< The connection to the server was interrupted. */
    AGORAISH_ERR_CONNECTION_LOST = 112,       /**< The connection to the server was lost. */
    AGORAISH_ERR_NOT_IN_CHANNEL = 113,        /**< The call needs a joined channel. */
    AGORAISH_ERR_SIZE_TOO_LARGE = 114,        /**< A data-stream message is too large. */
    AGORAISH_ERR_BITRATE_LIMIT = 115,         /**< The data-stream bitrate limit was exceeded. */
    AGORAISH_ERR_TOO_MANY_DATA_STREAMS = 116, /**< More data streams than allowed. */
    AGORAISH_ERR_STREAM_MESSAGE_TIMEOUT = 117,/**< A data-stream message timed out. */
    AGORAISH_ERR_SET_CLIENT_ROLE_NOT_AUTHORIZED = 119, /**< The role change is not authorized. */
    AGORAISH_ERR_DECRYPTION_FAILED = 120,     /**< Decryption failed: the key or mode differs. */
    AGORAISH_ERR_INVALID_USER_ID = 121,       /**< The user id is invalid. */
    AGORAISH_ERR_CLIENT_IS_BANNED_BY_SERVER = 123, /**< The server banned this client. */
    AGORAISH_ERR_INVALID_USER_ACCOUNT = 134   /**< The user account is empty, too long, or malformed. */
};

/* ------------------------------------------------------------------------ */
/* Logging (Agora's LOG_FILTER_TYPE and 4.x LOG_LEVEL)                        */
/* ------------------------------------------------------------------------ */

/** Log filters for `agoraish_engine_set_log_filter()`. A filter is a bit set;
 *  each documented value includes every more severe level. */
enum agoraish_log_filter {
    AGORAISH_LOG_FILTER_OFF = 0,           /**< Write nothing. */
    AGORAISH_LOG_FILTER_DEBUG = 0x080f,    /**< Debug, info, warning, error and critical lines. */
    AGORAISH_LOG_FILTER_INFO = 0x000f,     /**< Info, warning, error and critical lines (the default). */
    AGORAISH_LOG_FILTER_WARN = 0x000e,     /**< Warning, error and critical lines. */
    AGORAISH_LOG_FILTER_ERROR = 0x000c,    /**< Error and critical lines. */
    AGORAISH_LOG_FILTER_CRITICAL = 0x0008, /**< Critical lines only. */
    AGORAISH_LOG_FILTER_MASK = 0x080f      /**< Every bit a filter may carry. */
};

/** Log levels (Agora 4.x LOG_LEVEL) for `agoraish_engine_config.log_level`
 *  and `agoraish_engine_set_log_level()`. Each maps to the filter of the same
 *  name: NONE -> OFF, INFO -> INFO, WARN -> WARN, ERROR -> ERROR, FATAL -> CRITICAL. */
enum agoraish_log_level {
    AGORAISH_LOG_LEVEL_NONE = 0x0000,  /**< Write nothing. */
    AGORAISH_LOG_LEVEL_INFO = 0x0001,  /**< Info and more severe (the default). */
    AGORAISH_LOG_LEVEL_WARN = 0x0002,  /**< Warnings and more severe. */
    AGORAISH_LOG_LEVEL_ERROR = 0x0004, /**< Errors and more severe. */
    AGORAISH_LOG_LEVEL_FATAL = 0x0008  /**< Fatal (critical) lines only. */
};

/** Default size of one log file, in KB (`log_file_size_kb = -1` selects it). */
#define AGORAISH_LOG_FILE_SIZE_DEFAULT_KB 1024
/** Smallest accepted log file size in KB; smaller values are raised to it. */
#define AGORAISH_LOG_FILE_SIZE_MIN_KB 128
/** Largest accepted log file size in KB; larger values are -2. */
#define AGORAISH_LOG_FILE_SIZE_MAX_KB 20480
/** Number of files in a log rotation: `name.log` and `name_1.log` .. `name_4.log`. */
#define AGORAISH_LOG_FILE_COUNT 5

/* ------------------------------------------------------------------------ */
/* Area codes (Agora's AREA_CODE)                                            */
/* ------------------------------------------------------------------------ */

/** Area codes for `agoraish_engine_config.area_code`: a bit set. The engine
 *  records the choice and sends it with every join. */
enum agoraish_area_code {
    AGORAISH_AREA_CODE_CN = 0x00000001,  /**< Mainland China. */
    AGORAISH_AREA_CODE_NA = 0x00000002,  /**< North America. */
    AGORAISH_AREA_CODE_EU = 0x00000004,  /**< Europe. */
    AGORAISH_AREA_CODE_AS = 0x00000008,  /**< Asia, excluding mainland China. */
    AGORAISH_AREA_CODE_JP = 0x00000010,  /**< Japan. */
    AGORAISH_AREA_CODE_IN = 0x00000020,  /**< India. */
    AGORAISH_AREA_CODE_GLOB = (int)0xFFFFFFFF /**< Global (the default). */
};

/* ------------------------------------------------------------------------ */
/* Channels (Agora's CHANNEL_PROFILE_TYPE, CLIENT_ROLE_TYPE, connection and  */
/* offline enums)                                                            */
/* ------------------------------------------------------------------------ */

/** Channel profiles for `agoraish_engine_set_channel_profile()`. */
enum agoraish_channel_profile {
    AGORAISH_CHANNEL_PROFILE_COMMUNICATION = 0,    /**< Everyone publishes and sees everyone (the default). */
    AGORAISH_CHANNEL_PROFILE_LIVE_BROADCASTING = 1 /**< Broadcasters publish; the audience is invisible and only receives. */
};

/** Client roles for `agoraish_engine_set_client_role()`. */
enum agoraish_client_role {
    AGORAISH_CLIENT_ROLE_BROADCASTER = 1, /**< Sends and receives. */
    AGORAISH_CLIENT_ROLE_AUDIENCE = 2     /**< Receives only; invisible to others in live broadcasting
                                               (the default, as Agora's; in communication every user
                                               sends and is visible whatever the role). */
};

/** Connection states (CONNECTION_STATE_TYPE), from `agoraish_engine_get_connection_state()`. */
enum agoraish_connection_state {
    AGORAISH_CONNECTION_STATE_DISCONNECTED = 1, /**< Not in a channel (initially and after leaving). */
    AGORAISH_CONNECTION_STATE_CONNECTING = 2,   /**< Joining. */
    AGORAISH_CONNECTION_STATE_CONNECTED = 3,    /**< In the channel. */
    AGORAISH_CONNECTION_STATE_RECONNECTING = 4, /**< The link broke; rejoining by itself. */
    AGORAISH_CONNECTION_STATE_FAILED = 5        /**< Gave up (see the reason); leave, then join again. */
};

/** Why the connection state changed (CONNECTION_CHANGED_REASON_TYPE); the values this engine reports. */
enum agoraish_connection_changed_reason {
    AGORAISH_CONNECTION_CHANGED_CONNECTING = 0,           /**< Joining started. */
    AGORAISH_CONNECTION_CHANGED_JOIN_SUCCESS = 1,         /**< Joined. */
    AGORAISH_CONNECTION_CHANGED_INTERRUPTED = 2,          /**< The link to the server broke. */
    AGORAISH_CONNECTION_CHANGED_BANNED_BY_SERVER = 3,     /**< The server banned this client. */
    AGORAISH_CONNECTION_CHANGED_JOIN_FAILED = 4,          /**< Joining failed for good. */
    AGORAISH_CONNECTION_CHANGED_LEAVE_CHANNEL = 5,        /**< The host left the channel. */
    AGORAISH_CONNECTION_CHANGED_INVALID_APP_ID = 6,       /**< The server does not know the app id. */
    AGORAISH_CONNECTION_CHANGED_INVALID_CHANNEL_NAME = 7, /**< The server refused the channel name. */
    AGORAISH_CONNECTION_CHANGED_INVALID_TOKEN = 8,        /**< The token is invalid for this app, channel and user. */
    AGORAISH_CONNECTION_CHANGED_TOKEN_EXPIRED = 9,        /**< The token expired; renew it to rejoin. */
    AGORAISH_CONNECTION_CHANGED_REJECTED_BY_SERVER = 10,  /**< The server refused the join (see on_error). */
    AGORAISH_CONNECTION_CHANGED_RENEW_TOKEN = 12,         /**< Rejoining with a renewed token. */
    AGORAISH_CONNECTION_CHANGED_CLIENT_IP_ADDRESS_CHANGED = 13, /**< ABI 0.7: the local address the call used went away (or the network became unreachable); reconnecting at once. */
    AGORAISH_CONNECTION_CHANGED_KEEP_ALIVE_TIMEOUT = 14,  /**< The server stopped answering keepalives. */
    AGORAISH_CONNECTION_CHANGED_REJOIN_SUCCESS = 15,      /**< Rejoined after an interruption. */
    AGORAISH_CONNECTION_CHANGED_SAME_UID_LOGIN = 19       /**< Another client joined with this uid; it replaced this one. */
};

/** Why a remote user went offline (USER_OFFLINE_REASON_TYPE). */
enum agoraish_user_offline_reason {
    AGORAISH_USER_OFFLINE_QUIT = 0,           /**< The user left. */
    AGORAISH_USER_OFFLINE_DROPPED = 1,        /**< Nothing heard from the user within the drop timeout. */
    AGORAISH_USER_OFFLINE_BECOME_AUDIENCE = 2 /**< The user became audience in live broadcasting. */
};

/** Longest channel name in bytes, NUL included (Agora's MAX_CHANNEL_ID_LENGTH). */
#define AGORAISH_MAX_CHANNEL_ID_LENGTH 65
/** Longest user account in bytes, NUL included (Agora's MAX_USER_ACCOUNT_LENGTH). */
#define AGORAISH_MAX_USER_ACCOUNT_LENGTH 256

/** A uid and its user account (Agora's UserInfo). */
typedef struct agoraish_user_info {
    uint32_t uid;                                            /**< The uid. */
    char user_account[AGORAISH_MAX_USER_ACCOUNT_LENGTH];     /**< The account, NUL-terminated UTF-8. */
} agoraish_user_info;

/** Statistics of a call (Agora's RtcStats), reported every 2 s in a call by
 *  on_rtc_stats and at the end by on_leave_channel. Counts cover every path
 *  of the call the engine has used so far. */
typedef struct agoraish_rtc_stats {
    uint32_t struct_size;  /**< sizeof the struct as the library filled it. */
    uint32_t duration;     /**< Seconds in the channel. */
    uint64_t tx_bytes;     /**< Bytes sent. */
    uint64_t rx_bytes;     /**< Bytes received. */
    uint64_t tx_packets;   /**< Packets and messages sent. */
    uint64_t rx_packets;   /**< Packets and messages received. */
    uint32_t user_count;   /**< Users in the channel, this one included. */
    /* ABI 0.4. Rates are over the last 2 s period (0 in on_leave_channel). */
    uint32_t tx_kbitrate;        /**< Kbps sent. */
    uint64_t tx_audio_bytes;     /**< Bytes of audio RTP sent (before SRTP). */
    uint64_t rx_audio_bytes;     /**< Bytes of audio RTP received (after SRTP). */
    uint32_t rx_kbitrate;        /**< Kbps received. */
    uint32_t tx_audio_kbitrate;  /**< Kbps of audio sent. */
    uint32_t rx_audio_kbitrate;  /**< Kbps of audio received. */
    uint32_t memory_app_usage_kb; /**< Resident memory of the process, KB. */
    double cpu_app_usage;        /**< CPU of the process over the period, percent of one core. */
    /* ABI 0.6 */
    uint32_t tx_video_kbitrate;  /**< Kbps of video RTP sent. */
    uint32_t rx_video_kbitrate;  /**< Kbps of video RTP received. */
    /** ms: the round trip to the channel server on the media path (its STUN
     *  binding, every 2.5 s); 0 before the first answer. */
    int gateway_rtt;
    int lastmile_delay;          /**< ms: half of gateway_rtt. */
    /** Percent of the video sent that the server had to ask for again (its
     *  NACKs), before recovery; 0 without video. */
    int tx_packet_loss_rate;
    /** Percent lost before recovery of the worst remote stream received (audio
     *  frames concealed, video packets missing). */
    int rx_packet_loss_rate;
} agoraish_rtc_stats;

/** Network quality (Agora's QUALITY_TYPE) in on_network_quality and the audio
 *  stats. From loss and round trip: EXCELLENT below 1 % and 100 ms, GOOD below
 *  3 % and 200 ms, POOR below 8 % and 300 ms, BAD below 15 % and 500 ms,
 *  VBAD below 40 %, else DOWN. */
enum agoraish_quality_type {
    AGORAISH_QUALITY_UNKNOWN = 0,
    AGORAISH_QUALITY_EXCELLENT = 1,
    AGORAISH_QUALITY_GOOD = 2,
    AGORAISH_QUALITY_POOR = 3,
    AGORAISH_QUALITY_BAD = 4,
    AGORAISH_QUALITY_VBAD = 5,
    AGORAISH_QUALITY_DOWN = 6
};

/* ------------------------------------------------------------------------ */
/* Audio (Agora's AUDIO_PROFILE_TYPE)                                        */
/* ------------------------------------------------------------------------ */

/** Audio profiles for `agoraish_engine_set_audio_profile()`. Opus always runs
 *  at 48 kHz on the wire; the profile sets the audio band, channels and bitrate:
 *
 *  | profile | band | channels | bitrate |
 *  |---|---|---|---|
 *  | DEFAULT | communication: as SPEECH_STANDARD; live broadcasting: as MUSIC_STANDARD | | |
 *  | SPEECH_STANDARD | 32 kHz (super-wideband), speech tuning | 1 | 18 kbps |
 *  | MUSIC_STANDARD | 48 kHz (fullband), music tuning | 1 | 64 kbps |
 *  | MUSIC_STANDARD_STEREO | 48 kHz, music | 2 | 80 kbps |
 *  | MUSIC_HIGH_QUALITY | 48 kHz, music | 1 | 96 kbps |
 *  | MUSIC_HIGH_QUALITY_STEREO | 48 kHz, music | 2 | 128 kbps |
 *  | IOT | 16 kHz (wideband), speech | 1 | 16 kbps |
 *
 *  Every profile sends 20 ms frames with in-band FEC (planned for 10% loss).
 *  With an external source the channel count is the source's. */
enum agoraish_audio_profile {
    AGORAISH_AUDIO_PROFILE_DEFAULT = 0,
    AGORAISH_AUDIO_PROFILE_SPEECH_STANDARD = 1,
    AGORAISH_AUDIO_PROFILE_MUSIC_STANDARD = 2,
    AGORAISH_AUDIO_PROFILE_MUSIC_STANDARD_STEREO = 3,
    AGORAISH_AUDIO_PROFILE_MUSIC_HIGH_QUALITY = 4,
    AGORAISH_AUDIO_PROFILE_MUSIC_HIGH_QUALITY_STEREO = 5,
    AGORAISH_AUDIO_PROFILE_IOT = 6
};

/* ------------------------------------------------------------------------ */
/* Audio states, reasons, frames and statistics                              */
/* ------------------------------------------------------------------------ */

/** Local audio states (Agora's LOCAL_AUDIO_STREAM_STATE). */
enum agoraish_local_audio_stream_state {
    AGORAISH_LOCAL_AUDIO_STREAM_STATE_STOPPED = 0,   /**< Not capturing (before a call, disabled). */
    AGORAISH_LOCAL_AUDIO_STREAM_STATE_RECORDING = 1, /**< The first 10 ms were captured or pushed. */
    AGORAISH_LOCAL_AUDIO_STREAM_STATE_ENCODING = 2,  /**< The first frame was encoded and sent. */
    AGORAISH_LOCAL_AUDIO_STREAM_STATE_FAILED = 3     /**< Capture or encoding failed: see the error. */
};

/** Why the local audio state changed (Agora's LOCAL_AUDIO_STREAM_ERROR). */
enum agoraish_local_audio_stream_error {
    AGORAISH_LOCAL_AUDIO_STREAM_ERROR_OK = 0,
    AGORAISH_LOCAL_AUDIO_STREAM_ERROR_FAILURE = 1,
    AGORAISH_LOCAL_AUDIO_STREAM_ERROR_DEVICE_NO_PERMISSION = 2,
    AGORAISH_LOCAL_AUDIO_STREAM_ERROR_DEVICE_BUSY = 3,
    AGORAISH_LOCAL_AUDIO_STREAM_ERROR_RECORD_FAILURE = 4,      /**< The capture device exists but would not open. */
    AGORAISH_LOCAL_AUDIO_STREAM_ERROR_ENCODE_FAILURE = 5,
    AGORAISH_LOCAL_AUDIO_STREAM_ERROR_NO_RECORDING_DEVICE = 6, /**< ALSA knows no such capture device. */
    AGORAISH_LOCAL_AUDIO_STREAM_ERROR_NO_PLAYOUT_DEVICE = 7
};

/** Remote audio states (Agora's REMOTE_AUDIO_STATE). */
enum agoraish_remote_audio_state {
    AGORAISH_REMOTE_AUDIO_STATE_STOPPED = 0,  /**< Muted (by either side) or offline. */
    AGORAISH_REMOTE_AUDIO_STATE_STARTING = 1, /**< The first packet arrived. */
    AGORAISH_REMOTE_AUDIO_STATE_DECODING = 2, /**< Audio is decoded and played. */
    AGORAISH_REMOTE_AUDIO_STATE_FROZEN = 3,   /**< No packet for 500 ms while playing. */
    AGORAISH_REMOTE_AUDIO_STATE_FAILED = 4
};

/** Why a remote audio state changed (Agora's REMOTE_AUDIO_STATE_REASON). */
enum agoraish_remote_audio_state_reason {
    AGORAISH_REMOTE_AUDIO_REASON_INTERNAL = 0,
    AGORAISH_REMOTE_AUDIO_REASON_NETWORK_CONGESTION = 1,
    AGORAISH_REMOTE_AUDIO_REASON_NETWORK_RECOVERY = 2,
    AGORAISH_REMOTE_AUDIO_REASON_LOCAL_MUTED = 3,
    AGORAISH_REMOTE_AUDIO_REASON_LOCAL_UNMUTED = 4,
    AGORAISH_REMOTE_AUDIO_REASON_REMOTE_MUTED = 5,
    AGORAISH_REMOTE_AUDIO_REASON_REMOTE_UNMUTED = 6,
    AGORAISH_REMOTE_AUDIO_REASON_REMOTE_OFFLINE = 7
};

/** One speaker in on_audio_volume_indication (Agora's AudioVolumeInfo). */
typedef struct agoraish_audio_volume_info {
    uint32_t uid;        /**< 0 for the local user. */
    unsigned int volume; /**< 0..255, after the volume settings. */
    unsigned int vad;    /**< Local: voice detected (with report_vad), else 0. Remote: always 1. */
} agoraish_audio_volume_info;

/** Sending statistics (Agora's LocalAudioStats), every 2 s in a call. */
typedef struct agoraish_local_audio_stats {
    uint32_t struct_size;     /**< sizeof the struct as the library filled it. */
    int num_channels;         /**< Channels encoded. */
    int sent_sample_rate;     /**< The rate of the source (Hz). */
    int sent_bitrate;         /**< Kbps over the period. */
    int tx_packet_loss_rate;  /**< Percent lost upstream (0 while the server sends no feedback). */
    /* ABI 0.14 */
    /** The echo canceller's estimate of the echo path's delay in ms (Agora's
     *  aecEstimatedDelay); -1 while echo cancellation is off or has no estimate. */
    int aec_estimated_delay;
    /** The steps of audio processing on the local voice in the period: an
     *  `agoraish_audio_processing_flag` bit set (0: the voice is sent as captured). */
    int audio_processing;
    /** Echo return loss enhancement in dB, measured by the echo canceller over
     *  the last second; -1 while it is off or has no measure. */
    int echo_return_loss_enhancement;
    /** Nonzero while a voice effect (a preset, pitch, formant, equalization or
     *  reverb) changes the local voice. */
    int voice_effects;
} agoraish_local_audio_stats;

/** Bits of `agoraish_local_audio_stats.audio_processing`. */
enum agoraish_audio_processing_flag {
    AGORAISH_AUDIO_PROCESSING_AEC = 0x1, /**< Echo cancellation. */
    AGORAISH_AUDIO_PROCESSING_ANS = 0x2, /**< Noise suppression. */
    AGORAISH_AUDIO_PROCESSING_AGC = 0x4, /**< Automatic gain control. */
    AGORAISH_AUDIO_PROCESSING_HPF = 0x8  /**< High-pass filter. */
};

/** Receiving statistics of one remote user (Agora's RemoteAudioStats), every 2 s. */
typedef struct agoraish_remote_audio_stats {
    uint32_t struct_size;         /**< sizeof the struct as the library filled it. */
    uint32_t uid;
    int quality;                  /**< QUALITY_TYPE from the period's loss: 1 excellent .. 5 very bad, 0 unknown. */
    int network_transport_delay;  /**< ms, estimated from the measured jitter. */
    int jitter_buffer_delay;      /**< ms: the playout delay the jitter buffer holds to. */
    int audio_loss_rate;          /**< Percent of 10 ms frames concealed over the period. */
    int num_channels;
    int received_sample_rate;
    int received_bitrate;         /**< Kbps over the period. */
    int total_frozen_time;        /**< ms: 200 ms windows with 4 % or more concealed frames. */
    int frozen_rate;              /**< total_frozen_time as a percent of total_active_time. */
    int total_active_time;        /**< ms the stream has played. */
    int fec_recovered_frames;     /**< Frames rebuilt from Opus in-band FEC so far. */
    int concealed_frames;         /**< Frames concealed by Opus PLC so far. */
    int end_to_end_delay;         /**< ms: network + jitter buffer + one 20 ms frame. */
} agoraish_remote_audio_stats;

/** Observer positions (Agora's AUDIO_FRAME_POSITION bits). */
enum agoraish_audio_frame_position {
    AGORAISH_AUDIO_FRAME_POSITION_NONE = 0x0,
    AGORAISH_AUDIO_FRAME_POSITION_PLAYBACK = 0x1,      /**< The mix of every remote user, before playout. */
    AGORAISH_AUDIO_FRAME_POSITION_RECORD = 0x2,        /**< Local audio, before encoding. */
    AGORAISH_AUDIO_FRAME_POSITION_MIXED = 0x4,         /**< Local and remote audio mixed. */
    AGORAISH_AUDIO_FRAME_POSITION_BEFORE_MIXING = 0x8  /**< One remote user, before mixing. */
};

/** What an observer may do with a frame (Agora's RAW_AUDIO_FRAME_OP_MODE_TYPE). */
enum agoraish_raw_audio_frame_op_mode {
    AGORAISH_RAW_AUDIO_FRAME_OP_MODE_READ_ONLY = 0,  /**< Read; changes are ignored. */
    AGORAISH_RAW_AUDIO_FRAME_OP_MODE_WRITE_ONLY = 1, /**< The buffer arrives silent; what is written replaces the audio. */
    AGORAISH_RAW_AUDIO_FRAME_OP_MODE_READ_WRITE = 2  /**< Read and change; changes are sent or played. */
};

/** PCM frame handed to an observer (Agora's AudioFrame). */
typedef struct agoraish_audio_frame {
    int type;                 /**< 0: PCM16 (Agora's FRAME_TYPE_PCM16). */
    int samples_per_channel;  /**< Samples per channel in `buffer`. */
    int bytes_per_sample;     /**< 2. */
    int channels;             /**< 1, or 2 interleaved. */
    int samples_per_sec;      /**< The sample rate. */
    void *buffer;             /**< samples_per_channel * channels int16_t; owned by the library, valid during the callback. */
    int64_t render_time_ms;   /**< When the frame was made, on the engine's monotonic clock (ms). */
    int avsync_type;          /**< Reserved, 0. */
} agoraish_audio_frame;


/** Recording quality (Agora's AUDIO_RECORDING_QUALITY_TYPE): the Ogg Opus bitrate
 *  (16, 32, 64, 128 kbps); WAV is always 16-bit PCM. */
enum agoraish_audio_recording_quality {
    AGORAISH_AUDIO_RECORDING_QUALITY_LOW = 0,
    AGORAISH_AUDIO_RECORDING_QUALITY_MEDIUM = 1,
    AGORAISH_AUDIO_RECORDING_QUALITY_HIGH = 2,
    AGORAISH_AUDIO_RECORDING_QUALITY_ULTRA_HIGH = 3
};

/** What is recorded (Agora's AUDIO_RECORDING_POSITION). */
enum agoraish_audio_recording_position {
    AGORAISH_AUDIO_RECORDING_POSITION_MIXED_RECORDING_AND_PLAYBACK = 0,
    AGORAISH_AUDIO_RECORDING_POSITION_RECORDING = 1,      /**< Local audio only. */
    AGORAISH_AUDIO_RECORDING_POSITION_MIXED_PLAYBACK = 2  /**< Remote audio only. */
};

/** How to record (Agora's AudioRecordingConfiguration). */
typedef struct agoraish_audio_recording_config {
    uint32_t struct_size;   /**< Set to sizeof(agoraish_audio_recording_config). */
    const char *file_path;  /**< Required. ".ogg" or ".opus": Ogg Opus; anything else: WAV. Copied. */
    int sample_rate;        /**< 16000, 32000 (Agora's default), 44100 or 48000. */
    int position;           /**< An `agoraish_audio_recording_position`. */
    int quality;            /**< An `agoraish_audio_recording_quality`. */
} agoraish_audio_recording_config;

/** Device kinds (Agora's MEDIA_DEVICE_TYPE). */
enum agoraish_media_device_type {
    AGORAISH_AUDIO_PLAYOUT_DEVICE = 0,
    AGORAISH_AUDIO_RECORDING_DEVICE = 1
};

/** Longest device name or id, NUL included (Agora's MAX_DEVICE_ID_LENGTH). */
#define AGORAISH_MAX_DEVICE_ID_LENGTH 512

/** One audio device: an ALSA PCM. */
typedef struct agoraish_audio_device_info {
    char id[AGORAISH_MAX_DEVICE_ID_LENGTH];    /**< The ALSA PCM name, NUL-terminated (pass it to set_*_device). */
    char name[AGORAISH_MAX_DEVICE_ID_LENGTH];  /**< A description, NUL-terminated. */
} agoraish_audio_device_info;

/* ------------------------------------------------------------------------ */
/* Video types                                                               */
/* ------------------------------------------------------------------------ */

/** Video codecs (Agora's VIDEO_CODEC_TYPE numbers where Agora has them). */
enum agoraish_video_codec_type {
    AGORAISH_VIDEO_CODEC_VP8 = 1,  /**< VP8 (RFC 7741), the default. */
    AGORAISH_VIDEO_CODEC_VP9 = 5   /**< VP9 (RFC 9628), one spatial layer. */
};

/** Pixel formats of external frames (Agora's VIDEO_PIXEL_FORMAT). They are
 *  converted to I420 with libyuv. */
enum agoraish_video_pixel_format {
    AGORAISH_VIDEO_PIXEL_I420 = 1,  /**< y, u, v planes (u, v at half size). */
    AGORAISH_VIDEO_PIXEL_BGRA = 2,  /**< Packed B, G, R, A bytes in y_buffer. */
    AGORAISH_VIDEO_PIXEL_NV21 = 3,  /**< y plane, then interleaved V/U in u_buffer. */
    AGORAISH_VIDEO_PIXEL_RGBA = 4,  /**< Packed R, G, B, A bytes in y_buffer. */
    AGORAISH_VIDEO_PIXEL_NV12 = 8   /**< y plane, then interleaved U/V in u_buffer. */
};

/** How the configured size follows each picture's orientation (Agora's
 *  ORIENTATION_MODE), the `orientation_mode` of the encoder configuration. */
enum agoraish_orientation_mode {
    AGORAISH_ORIENTATION_MODE_ADAPTIVE = 0,        /**< width x height turned to each picture's orientation. */
    AGORAISH_ORIENTATION_MODE_FIXED_LANDSCAPE = 1, /**< A portrait picture is cropped around its centre. */
    AGORAISH_ORIENTATION_MODE_FIXED_PORTRAIT = 2   /**< A landscape picture is cropped around its centre. */
};

/** What should give way when the bandwidth falls (Agora's DEGRADATION_PREFERENCE),
 *  the `degradation_preference` of the encoder configuration: kept, as the field says. */
enum agoraish_degradation_preference {
    AGORAISH_DEGRADATION_PREFERENCE_MAINTAIN_QUALITY = 0,   /**< Keep the quality of each picture. */
    AGORAISH_DEGRADATION_PREFERENCE_MAINTAIN_FRAMERATE = 1, /**< Keep the frame rate. */
    AGORAISH_DEGRADATION_PREFERENCE_MAINTAIN_BALANCED = 2,  /**< Balance the two. */
    AGORAISH_DEGRADATION_PREFERENCE_MAINTAIN_RESOLUTION = 3 /**< Keep the picture size: only the frame rate gives (down to 5 fps). */
};

/** Mirroring of canvases and of the sent stream (Agora's VIDEO_MIRROR_MODE_TYPE). */
enum agoraish_video_mirror_mode {
    AGORAISH_VIDEO_MIRROR_MODE_AUTO = 0,     /**< Canvases: the local preview mirrored, remote users not. Sent: not mirrored. */
    AGORAISH_VIDEO_MIRROR_MODE_ENABLED = 1,  /**< Mirrored. */
    AGORAISH_VIDEO_MIRROR_MODE_DISABLED = 2  /**< Not mirrored. */
};

/** How a canvas with a view size shows a picture of another shape (Agora's RENDER_MODE_TYPE). */
enum agoraish_render_mode {
    AGORAISH_RENDER_MODE_HIDDEN = 1,   /**< Cover the view, cropping what sticks out (the default). */
    AGORAISH_RENDER_MODE_FIT = 2,      /**< The whole picture inside the view, with black bars. */
    AGORAISH_RENDER_MODE_ADAPTIVE = 3, /**< As HIDDEN. */
    AGORAISH_RENDER_MODE_FILL = 4      /**< Stretched to the view. */
};

/** Which stream of a publisher to receive (Agora's VIDEO_STREAM_TYPE): the
 *  high or low stream of dual stream, or a simulcast layer (ABI 0.12). */
enum agoraish_video_stream_type {
    AGORAISH_VIDEO_STREAM_HIGH = 0,    /**< The high stream. */
    AGORAISH_VIDEO_STREAM_LOW = 1,     /**< The low stream. */
    AGORAISH_VIDEO_STREAM_LAYER_1 = 4, /**< Simulcast layer 1 (ABI 0.12). */
    AGORAISH_VIDEO_STREAM_LAYER_2 = 5, /**< Simulcast layer 2 (ABI 0.12). */
    AGORAISH_VIDEO_STREAM_LAYER_3 = 6, /**< Simulcast layer 3 (ABI 0.12). */
    AGORAISH_VIDEO_STREAM_LAYER_4 = 7, /**< Simulcast layer 4 (ABI 0.12). */
    AGORAISH_VIDEO_STREAM_LAYER_5 = 8, /**< Simulcast layer 5 (ABI 0.12). */
    AGORAISH_VIDEO_STREAM_LAYER_6 = 9  /**< Simulcast layer 6 (ABI 0.12). */
};

/** The entries of agoraish_simulcast_config::configs (Agora's
 *  SimulcastConfig::StreamLayerIndex, ABI 0.12). Layer n is received as
 *  AGORAISH_VIDEO_STREAM_LAYER_n, STREAM_LOW as AGORAISH_VIDEO_STREAM_LOW. */
enum agoraish_stream_layer_index {
    AGORAISH_STREAM_LAYER_1 = 0,
    AGORAISH_STREAM_LAYER_2 = 1,
    AGORAISH_STREAM_LAYER_3 = 2,
    AGORAISH_STREAM_LAYER_4 = 3,
    AGORAISH_STREAM_LAYER_5 = 4,
    AGORAISH_STREAM_LAYER_6 = 5,
    AGORAISH_STREAM_LOW = 6,
    AGORAISH_STREAM_LAYER_COUNT_MAX = 7
};

/** What the camera captures at (Agora's CAPTURER_OUTPUT_PREFERENCE), the
 *  `preference` of agoraish_camera_capturer_configuration. */
enum agoraish_camera_capturer_output_preference {
    AGORAISH_CAPTURER_OUTPUT_PREFERENCE_AUTO = 0,        /**< The encoder's size and frame rate. */
    AGORAISH_CAPTURER_OUTPUT_PREFERENCE_PERFORMANCE = 1, /**< As AUTO. */
    AGORAISH_CAPTURER_OUTPUT_PREFERENCE_PREVIEW = 2,     /**< As AUTO. */
    AGORAISH_CAPTURER_OUTPUT_PREFERENCE_MANUAL = 3       /**< The size given. */
};

/** What the encoder aims for (Agora's VideoEncoderConfiguration, the fields
 *  this version applies). A pushed frame larger than width x height is
 *  scaled down to fit inside it (aspect ratio kept); smaller ones are sent
 *  at their own size. */
typedef struct agoraish_video_encoder_configuration {
    uint32_t struct_size;  /**< Set to sizeof(agoraish_video_encoder_configuration). */
    int width;             /**< 16..4096, even (default 640). */
    int height;            /**< 16..4096, even (default 360). */
    int frame_rate;        /**< 1..60 (default 15). */
    /** Kbps; 0 (Agora's STANDARD_BITRATE): Agora's base rate for the size and
     *  frame rate, twice it in live broadcasting; -1 (COMPATIBLE_BITRATE): the
     *  base rate in both; or an explicit 1..100000. */
    int bitrate;
    int min_bitrate;       /**< -1 (default) or Kbps; kept for live broadcasting. */
    int codec_type;        /**< An `agoraish_video_codec_type` (0 means VP8). */
    /* ABI 0.6 */
    /** ORIENTATION_MODE: 0 ADAPTIVE (width x height turned to each picture's
     *  orientation), 1 FIXED_LANDSCAPE, 2 FIXED_PORTRAIT (a picture of the other
     *  orientation is cropped around its centre). Pictures are always sent
     *  upright: rotation is applied before encoding. */
    int orientation_mode;
    /** DEGRADATION_PREFERENCE: 0 MAINTAIN_QUALITY (the frame rate gives down
     *  to 12 fps, then the size), 1 MAINTAIN_FRAMERATE, 2 MAINTAIN_BALANCED,
     *  3 MAINTAIN_RESOLUTION (only the frame rate gives). Kept for bandwidth
     *  adaptation (docs/network.md, Adaptation). */
    int degradation_preference;
    /** VIDEO_MIRROR_MODE of the sent stream: 0 AUTO (not mirrored), 1 ENABLED, 2 DISABLED. */
    int mirror_mode;
} agoraish_video_encoder_configuration;

/** A picture pushed by the host (Agora's ExternalVideoFrame). Buffers are
 *  read during the call only. */
typedef struct agoraish_external_video_frame {
    uint32_t struct_size;   /**< Set to sizeof(agoraish_external_video_frame). */
    int format;             /**< An `agoraish_video_pixel_format`. */
    int width;              /**< 16..4096, even. */
    int height;             /**< 16..4096, even. */
    const void *y_buffer;   /**< I420/NV12/NV21: the luma plane; BGRA/RGBA: the packed pixels. */
    const void *u_buffer;   /**< I420: the U plane; NV12/NV21: the interleaved chroma plane; else unused. */
    const void *v_buffer;   /**< I420: the V plane; else unused. */
    int y_stride;           /**< Bytes per row of y_buffer: >= width (x4 for BGRA/RGBA). */
    int u_stride;           /**< Bytes per row of u_buffer: >= width/2 (I420), >= width (NV12/NV21). */
    int v_stride;           /**< Bytes per row of v_buffer: >= width/2 (I420). */
    int64_t timestamp;      /**< Capture time in ms (any origin, increasing). */
    /* ABI 0.6 */
    int rotation;           /**< 0, 90, 180 or 270: the picture is turned clockwise by this much before use. */
    /* ABI 0.13 */
    /** An alpha plane for the picture (width x height bytes, 0 transparent .. 255 opaque;
     *  Agora's alphaBuffer), read during the call; NULL: opaque. It goes with the picture
     *  to the local canvas and the capture and pre-encode observers (turned, mirrored and
     *  fitted with it); remote users receive no alpha (VP8/VP9 over RTP carry none). */
    const void *alpha_buffer;
    /** Bytes per row of `alpha_buffer` (>= width). */
    int alpha_stride;
} agoraish_external_video_frame;

/** A picture handed to a render sink or a video frame observer (Agora's
 *  VideoFrame, I420). The planes are owned by the library and valid during
 *  the callback only. Observers may write them (the change is what is sent or
 *  rendered); render sinks must only read them. */
typedef struct agoraish_video_frame {
    int type;                  /**< AGORAISH_VIDEO_PIXEL_I420. */
    int width;
    int height;
    int y_stride;
    int u_stride;
    int v_stride;
    uint8_t *y_buffer;
    uint8_t *u_buffer;
    uint8_t *v_buffer;
    int rotation;              /**< Always 0: pictures are turned upright before encoding. */
    /** Ms on the engine's monotonic clock: when a remote picture was decoded
     *  or a local one captured; for capture and pre-encode observers the
     *  timestamp pushed with the picture. */
    int64_t render_time_ms;
    /* ABI 0.13 */
    /** The alpha plane (width x height, 0 transparent .. 255 opaque) of a
     *  picture that has one: a media player's video with an alpha channel
     *  (WebM VP8/VP9 with alpha), or a pushed external frame that brought
     *  one (local canvas and observers). NULL otherwise. Read-only. */
    uint8_t *alpha_buffer;
    /** Bytes per row of `alpha_buffer`. */
    int alpha_stride;
} agoraish_video_frame;

/** Sending statistics of local video (Agora's LocalVideoStats), every 2 s in a call. */
typedef struct agoraish_local_video_stats {
    uint32_t struct_size;             /**< sizeof the struct as the library filled it. */
    int sent_bitrate;                 /**< Kbps of RTP sent (the low stream included). */
    int sent_frame_rate;              /**< Frames per second sent (high stream). */
    int encoder_output_frame_rate;
    int renderer_output_frame_rate;   /**< Frames per second handed to the local canvas. */
    int target_bitrate;               /**< Kbps the encoder aims at. */
    int target_frame_rate;
    int encoded_bitrate;              /**< Kbps of encoded video (payload, high stream). */
    int encoded_frame_width;
    int encoded_frame_height;
    int encoded_frame_count;          /**< Frames encoded in this call (high stream). */
    int codec_type;                   /**< An `agoraish_video_codec_type`. */
    int capture_frame_rate;           /**< Pictures per second captured or pushed. */
} agoraish_local_video_stats;

/** Receiving statistics of one remote user's video (Agora's RemoteVideoStats), every 2 s. */
typedef struct agoraish_remote_video_stats {
    uint32_t struct_size;             /**< sizeof the struct as the library filled it. */
    uint32_t uid;
    int width;
    int height;
    int received_bitrate;             /**< Kbps of RTP received over the period. */
    int decoder_output_frame_rate;
    int renderer_output_frame_rate;   /**< Pictures per second handed to the user's canvas. */
    int packet_loss_rate;             /**< Percent of the period's packets lost (before recovery). */
    int rx_stream_type;               /**< 0 the high stream, 1 the low one (dual stream). */
    /** ms: the sum of the gaps of 500 ms or more between two pictures since the video started. */
    int total_frozen_time;
    int frozen_rate;                  /**< total_frozen_time as a percent of total_active_time. */
    int total_active_time;            /**< ms since the first picture, muted time excluded. */
    int publish_duration;             /**< ms since the first packet of the user's video. */
} agoraish_remote_video_stats;

/** LOCAL_VIDEO_STREAM_STATE. */
enum agoraish_local_video_stream_state {
    AGORAISH_LOCAL_VIDEO_STREAM_STATE_STOPPED = 0,
    AGORAISH_LOCAL_VIDEO_STREAM_STATE_CAPTURING = 1,  /**< Pictures arrive (camera or pushed). */
    AGORAISH_LOCAL_VIDEO_STREAM_STATE_ENCODING = 2,   /**< The first picture was encoded and sent in a call. */
    AGORAISH_LOCAL_VIDEO_STREAM_STATE_FAILED = 3
};

/** LOCAL_VIDEO_STREAM_ERROR (the ones this library reports). */
enum agoraish_local_video_stream_error {
    AGORAISH_LOCAL_VIDEO_STREAM_ERROR_OK = 0,
    AGORAISH_LOCAL_VIDEO_STREAM_ERROR_FAILURE = 1,
    AGORAISH_LOCAL_VIDEO_STREAM_ERROR_DEVICE_NO_PERMISSION = 2,
    AGORAISH_LOCAL_VIDEO_STREAM_ERROR_DEVICE_BUSY = 3,
    AGORAISH_LOCAL_VIDEO_STREAM_ERROR_CAPTURE_FAILURE = 4,
    AGORAISH_LOCAL_VIDEO_STREAM_ERROR_ENCODE_FAILURE = 5,
    AGORAISH_LOCAL_VIDEO_STREAM_ERROR_DEVICE_NOT_FOUND = 8,   /**< No camera (no /dev/video* capture node). */
    AGORAISH_LOCAL_VIDEO_STREAM_ERROR_DEVICE_INVALID_ID = 10  /**< The camera chosen with set_video_device is not there. */
};

/** REMOTE_VIDEO_STATE. */
enum agoraish_remote_video_state {
    AGORAISH_REMOTE_VIDEO_STATE_STOPPED = 0,
    AGORAISH_REMOTE_VIDEO_STATE_STARTING = 1,  /**< The first packet arrived. */
    AGORAISH_REMOTE_VIDEO_STATE_DECODING = 2,  /**< Pictures are decoded. */
    AGORAISH_REMOTE_VIDEO_STATE_FROZEN = 3,    /**< No picture for 500 ms. */
    AGORAISH_REMOTE_VIDEO_STATE_FAILED = 4
};

/** REMOTE_VIDEO_STATE_REASON. */
enum agoraish_remote_video_state_reason {
    AGORAISH_REMOTE_VIDEO_STATE_REASON_INTERNAL = 0,
    AGORAISH_REMOTE_VIDEO_STATE_REASON_NETWORK_CONGESTION = 1,
    AGORAISH_REMOTE_VIDEO_STATE_REASON_NETWORK_RECOVERY = 2,
    AGORAISH_REMOTE_VIDEO_STATE_REASON_LOCAL_MUTED = 3,
    AGORAISH_REMOTE_VIDEO_STATE_REASON_LOCAL_UNMUTED = 4,
    AGORAISH_REMOTE_VIDEO_STATE_REASON_REMOTE_MUTED = 5,
    AGORAISH_REMOTE_VIDEO_STATE_REASON_REMOTE_UNMUTED = 6,
    AGORAISH_REMOTE_VIDEO_STATE_REASON_REMOTE_OFFLINE = 7,
    /** ABI 0.7: the downlink carries only the user's audio (subscribe fallback) ... */
    AGORAISH_REMOTE_VIDEO_STATE_REASON_AUDIO_FALLBACK = 8,
    /** ... and its video again. */
    AGORAISH_REMOTE_VIDEO_STATE_REASON_AUDIO_FALLBACK_RECOVERY = 9
};

/* ------------------------------------------------------------------------ */
/* Library information                                                       */
/* ------------------------------------------------------------------------ */

/**
 * The library version, as "major.minor.patch" (Agora's getVersion).
 *
 * @param build  Optional (may be NULL). Receives the build number.
 * @return       A static string owned by the library; never NULL, never freed.
 * Thread: any.
 */
const char *agoraish_get_version(int *build);

/**
 * A description of an error code (Agora's getErrorDescription).
 *
 * @param code  An error code, negated (as functions return it) or not (as
 *              callbacks report it). 0 describes success.
 * @return      A static string owned by the library; never NULL. Unknown
 *              codes return "unknown error".
 * Thread: any.
 */
const char *agoraish_get_error_description(int code);

/**
 * The error of the last call on this thread that returned a handle or NULL
 * (`agoraish_engine_create()`, `agoraish_server_create()`), as a negated code;
 * 0 if it succeeded.
 *
 * Thread: any; the value is per thread.
 */
int agoraish_get_last_error(void);

/**
 * Why the last call on this thread that failed failed, in words: which
 * argument, which limit, which key (like sqlite3_errmsg), for example
 * "agoraish_engine_set_parameters: unknown parameter \"rtc.log_flie\"" or
 * "agoraish_server_create: unknown key limits.max_conections". Every
 * function taking an engine or server handle, and the two create functions,
 * clear it when called and set it when they fail; a failure with nothing to
 * add to its code names the function alone. ABI 0.10.
 *
 * @return A NUL-terminated UTF-8 string owned by the library (at most 511
 *         bytes), "" when there is no detail; valid on this thread until its
 *         next call into the library. Never NULL.
 * Thread: any; the text is per thread.
 */
const char *agoraish_get_last_error_detail(void);

/* ------------------------------------------------------------------------ */
/* Engine                                                                    */
/* ------------------------------------------------------------------------ */

/** An engine (Agora's IRtcEngine / AgoraRtcEngineKit). Opaque handle. */
typedef struct agoraish_engine agoraish_engine_t;

/**
 * Event callbacks of an engine (Agora's IRtcEngineEventHandler).
 *
 * Every callback is optional: a NULL entry means "not interested". Each
 * receives the engine that emits it and the table's `user_data`.
 * Thread: every callback runs on the engine's event thread, one at a time, in
 * the order the events happened. Pointers passed to a callback are owned by
 * the library and valid only until the callback returns: copy what you keep.
 * A callback may call any engine function, except that releasing its own
 * engine from inside it returns -AGORAISH_ERR_REFUSED.
 */
/* Declared further down (the last-mile probe). */
struct agoraish_lastmile_probe_result;

typedef struct agoraish_event_handler {
    /** Set to sizeof(agoraish_event_handler). */
    uint32_t struct_size;
    /** Passed back unchanged as `user_data` to every callback. Owned by the host. */
    void *user_data;
    /**
     * An API call has been carried out by the engine (Agora's
     * onApiCallExecuted). Fires once for every call to a setter that the
     * engine accepted: set_parameters, set_log_file, set_log_filter,
     * set_log_level and set_log_file_size.
     *
     * @param err     0, or the error code (not negated) the work ended with.
     * @param api     The Agora name of the method, for example "setParameters".
     * @param result  The argument the call applied, as text (for
     *                setParameters, the JSON that was applied).
     */
    void (*on_api_call_executed)(agoraish_engine_t *engine, void *user_data,
                                 int err, const char *api, const char *result);

    /* ---- ABI 0.2: channels. Hosts built against 0.1 pass a smaller struct_size. */

    /** The local user joined `channel` as `uid` (onJoinChannelSuccess); `elapsed`
     *  is milliseconds since the join call. */
    void (*on_join_channel_success)(agoraish_engine_t *engine, void *user_data,
                                    const char *channel, uint32_t uid, int elapsed);
    /** The local user rejoined after an interruption (onRejoinChannelSuccess). */
    void (*on_rejoin_channel_success)(agoraish_engine_t *engine, void *user_data,
                                      const char *channel, uint32_t uid, int elapsed);
    /** The local user left (onLeaveChannel), with the call's statistics. */
    void (*on_leave_channel)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_stats *stats);
    /** A remote user (communication) or broadcaster (live) joined, or was already
     *  there (onUserJoined); `elapsed` is milliseconds since the local join call. */
    void (*on_user_joined)(agoraish_engine_t *engine, void *user_data, uint32_t uid, int elapsed);
    /** A remote user went offline (onUserOffline): an `agoraish_user_offline_reason`. */
    void (*on_user_offline)(agoraish_engine_t *engine, void *user_data, uint32_t uid, int reason);
    /** The local role changed (onClientRoleChanged): `agoraish_client_role` values. */
    void (*on_client_role_changed)(agoraish_engine_t *engine, void *user_data, int old_role, int new_role);
    /** The connection state changed (onConnectionStateChanged):
     *  an `agoraish_connection_state` and an `agoraish_connection_changed_reason`. */
    void (*on_connection_state_changed)(agoraish_engine_t *engine, void *user_data, int state, int reason);
    /** No working link to the server for 10 s (onConnectionLost); rejoining goes on. */
    void (*on_connection_lost)(agoraish_engine_t *engine, void *user_data);
    /** The token's join privilege expires in 30 s (onTokenPrivilegeWillExpire): call
     *  `agoraish_engine_renew_token()`. `token` is the token in force. */
    void (*on_token_privilege_will_expire)(agoraish_engine_t *engine, void *user_data, const char *token);
    /** The token expired (onRequestToken): renew it; the engine then rejoins. */
    void (*on_request_token)(agoraish_engine_t *engine, void *user_data);
    /** The local user account is registered as `uid` (onLocalUserRegistered). */
    void (*on_local_user_registered)(agoraish_engine_t *engine, void *user_data,
                                     uint32_t uid, const char *user_account);
    /** A remote user's account became known (onUserInfoUpdated). */
    void (*on_user_info_updated)(agoraish_engine_t *engine, void *user_data,
                                 uint32_t uid, const agoraish_user_info *info);
    /** An error the host must act on (onError): the code (not negated) and a message. */
    void (*on_error)(agoraish_engine_t *engine, void *user_data, int err, const char *msg);

    /* ---- ABI 0.4: audio. */

    /** The first audio was sent after a join, an unmute or enabling local
     *  audio (onFirstLocalAudioFramePublished); ms since the join call. */
    void (*on_first_local_audio_frame_published)(agoraish_engine_t *engine, void *user_data, int elapsed);
    /** The first audio packet of a remote user arrived (onFirstRemoteAudioFrame). */
    void (*on_first_remote_audio_frame)(agoraish_engine_t *engine, void *user_data, uint32_t uid, int elapsed);
    /** The first audio of a remote user was decoded (onFirstRemoteAudioDecoded). */
    void (*on_first_remote_audio_decoded)(agoraish_engine_t *engine, void *user_data, uint32_t uid, int elapsed);
    /** A remote user muted (1) or unmuted (0) its audio (onUserMuteAudio); also
     *  fires at join for users already muted. Disabling local audio counts as muting. */
    void (*on_user_mute_audio)(agoraish_engine_t *engine, void *user_data, uint32_t uid, int muted);
    /** The local audio state changed (onLocalAudioStateChanged):
     *  `agoraish_local_audio_stream_state` and `agoraish_local_audio_stream_error`. */
    void (*on_local_audio_state_changed)(agoraish_engine_t *engine, void *user_data, int state, int error);
    /** A remote user's audio state changed (onRemoteAudioStateChanged):
     *  `agoraish_remote_audio_state`, `agoraish_remote_audio_state_reason`, ms since the join call. */
    void (*on_remote_audio_state_changed)(agoraish_engine_t *engine, void *user_data, uint32_t uid,
                                          int state, int reason, int elapsed);
    /** Volumes (onAudioVolumeIndication), every interval once enabled: a local
     *  report (one speaker, uid 0; total_volume is its volume) and, in a call,
     *  a remote report (the up to 3 loudest remote users; total_volume is the
     *  played mix). 0..255. */
    void (*on_audio_volume_indication)(agoraish_engine_t *engine, void *user_data,
                                       const agoraish_audio_volume_info *speakers, unsigned int speaker_number,
                                       int total_volume);
    /** The loudest remote user changed (onActiveSpeaker); needs volume indication. */
    void (*on_active_speaker)(agoraish_engine_t *engine, void *user_data, uint32_t uid);
    /** Call statistics every 2 s in a call (onRtcStats). */
    void (*on_rtc_stats)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_stats *stats);
    /** Sending statistics every 2 s in a call (onLocalAudioStats). */
    void (*on_local_audio_stats)(agoraish_engine_t *engine, void *user_data, const agoraish_local_audio_stats *stats);
    /** Receiving statistics every 2 s per remote user (onRemoteAudioStats). */
    void (*on_remote_audio_stats)(agoraish_engine_t *engine, void *user_data, const agoraish_remote_audio_stats *stats);

    /* ---- ABI 0.5: video. */

    /** The first video frame was sent in this call (onFirstLocalVideoFramePublished); ms since the join call. */
    void (*on_first_local_video_frame_published)(agoraish_engine_t *engine, void *user_data, int elapsed);
    /** The first picture of a remote user was decoded (onFirstRemoteVideoDecoded). */
    void (*on_first_remote_video_decoded)(agoraish_engine_t *engine, void *user_data, uint32_t uid, int width,
                                          int height, int elapsed);
    /** A remote user's picture size changed (onVideoSizeChanged); rotation is 0. */
    void (*on_video_size_changed)(agoraish_engine_t *engine, void *user_data, uint32_t uid, int width, int height,
                                  int rotation);
    /** A remote user muted (1) or unmuted (0) its video stream (onUserMuteVideo,
     *  muteLocalVideoStream); also fires at join for users already muted. Disabling
     *  video or local video comes as on_user_enable_video / on_user_enable_local_video
     *  (from peers of ABI 0.5, which send one combined state, as this callback). */
    void (*on_user_mute_video)(agoraish_engine_t *engine, void *user_data, uint32_t uid, int muted);

    /* ABI 0.6: video */
    /** The first local picture captured or pushed after video was enabled (onFirstLocalVideoFrame). */
    void (*on_first_local_video_frame)(agoraish_engine_t *engine, void *user_data, int width, int height, int elapsed);
    /** The first picture of a remote user handed to its canvas (onFirstRemoteVideoFrame). */
    void (*on_first_remote_video_frame)(agoraish_engine_t *engine, void *user_data, uint32_t uid, int width,
                                        int height, int elapsed);
    /** A remote user enabled or disabled video (onUserEnableVideo). */
    void (*on_user_enable_video)(agoraish_engine_t *engine, void *user_data, uint32_t uid, int enabled);
    /** A remote user enabled or disabled its local video (onUserEnableLocalVideo). */
    void (*on_user_enable_local_video)(agoraish_engine_t *engine, void *user_data, uint32_t uid, int enabled);
    /** Local video state (onLocalVideoStateChanged): an `agoraish_local_video_stream_state` and
     *  an `agoraish_local_video_stream_error`. */
    void (*on_local_video_state_changed)(agoraish_engine_t *engine, void *user_data, int state, int error);
    /** A remote user's video state (onRemoteVideoStateChanged): an `agoraish_remote_video_state`,
     *  an `agoraish_remote_video_state_reason`, ms since the join call. */
    void (*on_remote_video_state_changed)(agoraish_engine_t *engine, void *user_data, uint32_t uid, int state,
                                          int reason, int elapsed);
    /** Every 2 s in a call while local video is captured or sent (onLocalVideoStats). */
    void (*on_local_video_stats)(agoraish_engine_t *engine, void *user_data, const agoraish_local_video_stats *stats);
    /** Every 2 s in a call for each remote user whose video arrived (onRemoteVideoStats). */
    void (*on_remote_video_stats)(agoraish_engine_t *engine, void *user_data, const agoraish_remote_video_stats *stats);
    /** A snapshot asked with `agoraish_engine_take_snapshot()` (onSnapshotTaken): `error` 0 when
     *  `path` was written, -1 when no picture came before the user left or the call ended or the
     *  file could not be written. */
    void (*on_snapshot_taken)(agoraish_engine_t *engine, void *user_data, uint32_t uid, const char *path,
                              int width, int height, int error);
    /** Every 2 s in a call (onNetworkQuality), `agoraish_quality_type` values: uid 0 is
     *  the local user (tx from the server's retransmission requests and the round
     *  trip, rx from the worst remote stream); then each remote user whose media
     *  arrives, with tx UNKNOWN and rx the quality its media arrives with here. */
    void (*on_network_quality)(agoraish_engine_t *engine, void *user_data, uint32_t uid, int tx_quality,
                               int rx_quality);
    /* ABI 0.7 */
    /** The uplink could not carry video and only audio is sent (`is_fallback_or_recover` 1), or
     *  video is sent again (0) (onLocalPublishFallbackToAudioOnly; with
     *  agoraish_engine_set_local_publish_fallback_option AUDIO_ONLY). */
    void (*on_local_publish_fallback_to_audio_only)(agoraish_engine_t *engine, void *user_data,
                                                    int is_fallback_or_recover);
    /** This downlink now receives only the audio of `uid` (1), or its video again (0)
     *  (onRemoteSubscribeFallbackToAudioOnly; with subscribe fallback option AUDIO_ONLY). The
     *  user's video state also changes: STOPPED with reason AUDIO_FALLBACK (8), later
     *  DECODING with AUDIO_FALLBACK_RECOVERY (9). */
    void (*on_remote_subscribe_fallback_to_audio_only)(agoraish_engine_t *engine, void *user_data, uint32_t uid,
                                                       int is_fallback_or_recover);
    /** The last mile's quality (onLastmileQuality), `agoraish_quality_type`: every 2 s while
     *  agoraish_engine_enable_lastmile_test() runs, and once during a probe (after its uplink
     *  phase). From the probes' loss and the round trip; UNKNOWN (0) when the server's media
     *  port could not be reached. Event thread. */
    void (*on_lastmile_quality)(agoraish_engine_t *engine, void *user_data, int quality);
    /** The result of agoraish_engine_start_lastmile_probe_test() (onLastmileProbeResult),
     *  valid during the call only. Event thread. */
    void (*on_lastmile_probe_result)(agoraish_engine_t *engine, void *user_data,
                                     const struct agoraish_lastmile_probe_result *result);
    /* ABI 0.8: data streams, metadata, encryption */
    /** A message of a remote user's data stream (onStreamMessage): `length` bytes at `data`
     *  (valid during the call only), `sent_ts` the sender's wall clock when it sent it (ms
     *  since 1970). Reliable ordered streams deliver each message once, in order; see
     *  agoraish_engine_create_data_stream(). Event thread. */
    void (*on_stream_message)(agoraish_engine_t *engine, void *user_data, uint32_t uid, int stream_id,
                              const uint8_t *data, size_t length, uint64_t sent_ts);
    /** Messages of a remote user's stream will not arrive (onStreamMessageError): `code`
     *  AGORAISH_ERR_STREAM_MESSAGE_TIMEOUT (117); `missed` messages lost; `cached` later
     *  messages of the stream that were waiting for them (delivered next). A reliable stream
     *  reports a loss not repaired within 5 s; an unreliable one each gap as it is seen. Event thread. */
    void (*on_stream_message_error)(agoraish_engine_t *engine, void *user_data, uint32_t uid, int stream_id,
                                    int code, int missed, int cached);
    /** End-to-end encryption failed (onEncryptionError): an `agoraish_encryption_error_type`.
     *  At most once a second per type. A packet that cannot be decrypted (another key or
     *  mode, or not encrypted while encryption is on) is dropped, never handed on. Event thread. */
    void (*on_encryption_error)(agoraish_engine_t *engine, void *user_data, int error_type);
    /** Audio metadata a remote user sent with agoraish_engine_send_audio_metadata()
     *  (onAudioMetadataReceived), valid during the call only. Event thread. */
    void (*on_audio_metadata_received)(agoraish_engine_t *engine, void *user_data, uint32_t uid,
                                       const uint8_t *metadata, size_t length);
    /* ABI 0.13: audio mixing and effects */
    /** The music of audio mixing changed state (onAudioMixingStateChanged): an
     *  `agoraish_audio_mixing_state` and an `agoraish_audio_mixing_reason`. Event thread. */
    void (*on_audio_mixing_state_changed)(agoraish_engine_t *engine, void *user_data, int state, int reason);
    /** An audio effect played all its loops (onAudioEffectFinished). Event thread. */
    void (*on_audio_effect_finished)(agoraish_engine_t *engine, void *user_data, int sound_id);
} agoraish_event_handler;

/** The size of `agoraish_event_handler` in ABI 0.1 (the smallest accepted struct_size). */
#define AGORAISH_EVENT_HANDLER_SIZE_0_1 offsetof(agoraish_event_handler, on_join_channel_success)

/**
 * How to create an engine (Agora's RtcEngineContext).
 */
typedef struct agoraish_engine_config {
    /** Set to sizeof(agoraish_engine_config). */
    uint32_t struct_size;
    /** The app id: required, 1..128 ASCII characters from '!' to '~' (no spaces
     *  or control characters). Copied. */
    const char *app_id;
    /** Event callbacks, or NULL for none. The table is copied; the host keeps
     *  ownership of the struct and of `user_data`. */
    const agoraish_event_handler *event_handler;
    /** The channel server, as "ws://host:port" or "wss://host:port". NULL or
     *  "" selects the environment variable AGORAISH_SERVER, then
     *  "ws://127.0.0.1:7450". Copied. */
    const char *server_url;
    /** The log file. NULL or "" selects a default: in the directory named by
     *  AGORAISH_LOG_DIR, else $XDG_STATE_HOME/agoraish, else
     *  $HOME/.local/state/agoraish, else /tmp/agoraish, the file
     *  "agoraish-<pid>-<n>.log" for the n-th engine of process <pid>. The
     *  directory is created if missing; it keeps the logs of the 32 engines
     *  of ended processes written last (older ones, with their rotations,
     *  are removed when an engine starts; running processes' never are).
     *  Copied. Read the path back with the parameter "rtc.log_file". */
    const char *log_file;
    /** Size of one log file in KB; 0 or -1 selects AGORAISH_LOG_FILE_SIZE_DEFAULT_KB.
     *  Otherwise the range of `agoraish_engine_set_log_file_size()`. */
    int32_t log_file_size_kb;
    /** An `agoraish_log_level`. 0 (a zeroed struct) selects AGORAISH_LOG_LEVEL_INFO;
     *  to log nothing, call `agoraish_engine_set_log_level(engine,
     *  AGORAISH_LOG_LEVEL_NONE)` after creation. */
    int32_t log_level;
    /** An `agoraish_area_code` bit set; 0 selects AGORAISH_AREA_CODE_GLOB. */
    uint32_t area_code;
} agoraish_engine_config;

/**
 * Create an engine (Agora's createAgoraRtcEngine + initialize).
 *
 * @param config  Required. Read during the call only.
 * @return        A new engine handle owned by the caller, to be released with
 *                `agoraish_engine_release()`; NULL on failure, with the
 *                reason in `agoraish_get_last_error()`:
 *                -2 config NULL, struct_size no minor had, or a field out of range;
 *                -101 app id missing or malformed;
 *                -1 the log file cannot be opened or the event thread cannot start.
 * Thread: any. The engine starts its event thread before returning.
 */
agoraish_engine_t *agoraish_engine_create(const agoraish_engine_config *config);

/**
 * Release an engine and everything it owns (Agora's IRtcEngine::release).
 *
 * After it returns, the handle is stale (-7 from every other function) and
 * events not yet delivered are dropped: no new callback starts. With `sync`
 * nonzero it also waits until a callback already running has returned and
 * the event thread has ended, so the host may free what `user_data` points
 * to; with `sync` zero that clean-up finishes in the background and a
 * callback that was already running may still be returning.
 *
 * Idempotent: releasing an already released engine (a stale engine handle,
 * or an engine handle this library never issued) returns 0.
 *
 * Called from inside another engine's event callback or render sink, `sync`
 * cannot wait (the other engine might be releasing this one at the same
 * moment): the call then behaves as `sync = 0`.
 *
 * @return  0; -7 for NULL; -2 for a handle of another type; -5 when called
 *          from one of this engine's own event callbacks or render sinks, or
 *          from inside any raw audio observer callback (release it after the
 *          callback returns).
 * Thread: any, except this engine's event thread, its video thread (render
 * sinks) and raw audio observer callbacks.
 */
int agoraish_engine_release(agoraish_engine_t *engine, int sync);

/**
 * Set private parameters as a JSON object (Agora's setParameters), for
 * example `{"rtc.log_filter": 2063}`. The whole object is checked before any
 * key is applied: an unknown key, a value of the wrong type or out of range,
 * or text that is not a JSON object rejects the call and applies nothing.
 *
 * Keys known at this ABI version (docs/abi.md lists them with their ranges):
 *   "rtc.log_file"    string   the log file path (as agoraish_engine_set_log_file)
 *   "rtc.log_filter"  integer  an agoraish_log_filter bit set
 *   "rtc.log_level"   integer  an agoraish_log_level
 *   "rtc.log_size"    integer  log file size in KB (as agoraish_engine_set_log_file_size)
 *   "rtc.server_url"  string   the channel server URL used by the next join
 *   "rtc.tls_ca_file" string   PEM file of trust anchors for wss:// servers;
 *                              "" (the default) uses the system's store
 *   "rtc.network_simulation" object or null: a simulated network applied to
 *                              the media this engine receives, for tests and
 *                              benchmarks: {"loss_percent": 0..100,
 *                              "delay_ms": 0..10000, "jitter_ms": 0..5000,
 *                              "seed": n, "burst": {"good_to_bad_percent",
 *                              "bad_to_good_percent", "loss_in_bad_percent",
 *                              "loss_in_good_percent"}, "duplicate_percent",
 *                              "reorder_percent", "reorder_ms",
 *                              "bandwidth_kbps", "queue_ms"} (every field
 *                              optional; docs/abi.md); null: off
 *   "rtc.network_simulation_send" the same, applied to the media this
 *                              engine sends (its uplink)
 *   "rtc.audio_loss_recovery" boolean: Opus in-band FEC and PLC (true, the
 *                              default); false plays gaps as silence (a
 *                              baseline for loss measurements)
 *   "che.audio.aec.enable" boolean or null: echo cancellation of captured
 *                              audio on (true) or off (false) whatever the
 *                              scenario; null returns to the scenario's choice
 *   "che.audio.ans.enable" boolean or null: noise suppression, the same way
 *   "che.audio.agc.enable" boolean or null: automatic gain control, the same way
 *   "rtc.allow_insecure_signaling" boolean: false (the default) refuses
 *                              ws:// (no TLS) to a host other than loopback
 *                              with -5 from joins, preloads, the echo test,
 *                              the last-mile test and account registration (its
 *                              tokens, media keys and resume tokens would
 *                              travel readable); true allows it
 *
 * @param json  Required UTF-8 JSON text, at most 65536 bytes.
 * @return      0; -2 for NULL, bad JSON, unknown keys or bad values; -5 for a
 *              ws:// "rtc.server_url" whose host is not loopback while
 *              "rtc.allow_insecure_signaling" is false (before or in the same
 *              call); -7 bad handle.
 *              On success `on_api_call_executed("setParameters")` follows.
 * Thread: any.
 */
int agoraish_engine_set_parameters(agoraish_engine_t *engine, const char *json);

/**
 * Read one parameter as JSON text (the reading side of
 * `agoraish_engine_set_parameters()`). Besides the writable keys above,
 * "rtc.app_id" (string) and "rtc.area_code" (integer) can be read.
 *
 * @param key  Required parameter name.
 * @param buf  Receives the value as JSON text (a string value is quoted);
 *             may be NULL when `*len` is 0, to ask for the size (NULL with a
 *             nonzero `*len` is -2).
 * @param len  Required. In: capacity of `buf`. Out: bytes needed including NUL.
 * @return     0; -2 for NULL key/len or an unknown key; -6 if `buf` is too
 *             small; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_get_parameter(agoraish_engine_t *engine, const char *key,
                                  char *buf, size_t *len);

/**
 * Set the log file (Agora's setLogFile). The file is opened for appending
 * before the call returns; its directory must exist and be writable. Logging
 * continues in the new file; rotation uses its name (`name_1.log` ...).
 *
 * @param path  Required, non-empty, at most 4095 bytes.
 * @return      0; -2 NULL/empty/too long path or the file cannot be opened
 *              (the previous file stays in use); -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_set_log_file(agoraish_engine_t *engine, const char *path);

/**
 * Set which log lines are written (Agora's setLogFilter).
 *
 * @param filter  An `agoraish_log_filter` bit set; bits outside
 *                AGORAISH_LOG_FILTER_MASK are -2.
 * @return        0; -2; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_set_log_filter(agoraish_engine_t *engine, unsigned int filter);

/**
 * Set the log level (Agora 4.x setLogLevel): the filter of the same name.
 *
 * @param level  An `agoraish_log_level`; other values are -2.
 * @return       0; -2; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_set_log_level(agoraish_engine_t *engine, int level);

/**
 * Set the size of one log file (Agora's setLogFileSize). When the current file
 * would grow past it, the files rotate: `name_3.log` becomes `name_4.log`, ...,
 * `name.log` becomes `name_1.log`, and a fresh `name.log` starts; at most
 * AGORAISH_LOG_FILE_COUNT files exist.
 *
 * @param size_kb  AGORAISH_LOG_FILE_SIZE_MIN_KB..AGORAISH_LOG_FILE_SIZE_MAX_KB;
 *                 values from 1 to the minimum are raised to the minimum;
 *                 0 and values above the maximum are -2.
 * @return         0; -2; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_set_log_file_size(agoraish_engine_t *engine, unsigned int size_kb);

/* ------------------------------------------------------------------------ */
/* Channels                                                                  */
/* ------------------------------------------------------------------------ */

/**
 * Set the channel profile (Agora's setChannelProfile). Before joining only.
 *
 * @param profile  An `agoraish_channel_profile`; the default is communication.
 *                 All users of a channel must use the same profile: the server
 *                 refuses a join with another one (on_error 5, then FAILED
 *                 with REJECTED_BY_SERVER).
 * @return  0; -2 unknown profile; -5 in or joining a channel; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_set_channel_profile(agoraish_engine_t *engine, int profile);

/**
 * Set the client role (Agora's setClientRole). Before joining it sets the
 * role used to join (on_client_role_changed fires if it changed); while
 * connected it asks the server, and on_client_role_changed follows. Remote
 * users see on_user_joined (became a broadcaster) or on_user_offline with
 * BECOME_AUDIENCE (became audience) in live broadcasting. In communication the
 * role is recorded but everyone stays visible.
 *
 * @param role  An `agoraish_client_role`.
 * @return  0; -2 unknown role; -5 while joining or reconnecting; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_set_client_role(agoraish_engine_t *engine, int role);

/**
 * Join a channel (Agora's joinChannel). Asynchronous: on_connection_state_changed
 * (CONNECTING), then on_join_channel_success, or FAILED with the reason.
 *
 * @param token    The token, or NULL/"" for an app without a certificate. Copied.
 * @param channel  Required: 1..63 bytes of a-z A-Z 0-9 space and
 *                 ! # $ % & ( ) + - : ; < = . > ? @ [ ] ^ _ { } | ~ , (copied).
 * @param info     Optional extra information; never sent to other users.
 * @param uid      1..2^32-1, or 0 to let the server choose one.
 * After FAILED (a login with the same uid took the place, the token expired,
 * the server refused the join) the engine may join again without leaving:
 * a user pushed out by a replayed join reclaims its uid with its own token.
 *
 * @return  0; -2 NULL channel or strings that are not UTF-8; -102 bad channel
 *          name; -17 already in or joining a channel; -5 a ws:// server URL
 *          whose host is not loopback while "rtc.allow_insecure_signaling" is
 *          false; -7 bad handle.
 *          A wss:// server is reached over TLS 1.2+ and its certificate is
 *          verified against "rtc.tls_ca_file" (or the system store) and the
 *          URL's host; a server that fails the check is treated as
 *          unreachable (RECONNECTING, then on_connection_lost).
 * Thread: any.
 */
int agoraish_engine_join_channel(agoraish_engine_t *engine, const char *token, const char *channel,
                                 const char *info, uint32_t uid);

/**
 * Join a channel with a user account (Agora's joinChannelWithUserAccount). The
 * server maps the account to a uid that stays the same for the app;
 * on_local_user_registered and on_join_channel_success follow. Remote users
 * learn the account through on_user_info_updated before on_user_joined.
 *
 * @param user_account  Required, 1..255 bytes of UTF-8. Copied.
 * @return  As `agoraish_engine_join_channel()`, and -134 for a NULL, empty or
 *          over-long account (-2 when it is not UTF-8).
 * Thread: any.
 */
int agoraish_engine_join_channel_with_user_account(agoraish_engine_t *engine, const char *token,
                                                   const char *channel, const char *user_account);

/**
 * Register a user account ahead of joining (Agora's registerLocalUserAccount):
 * the server answers with the account's uid through on_local_user_registered.
 *
 * @param app_id        Must equal the engine's app id.
 * @param user_account  1..255 bytes of UTF-8.
 * @return  0; -2 NULL or another app id, or an account that is not UTF-8;
 *          -134 NULL, empty or over-long account; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_register_local_user_account(agoraish_engine_t *engine, const char *app_id,
                                                const char *user_account);

/**
 * Look up a uid by user account among the users this engine has learned of
 * (Agora's getUserInfoByUserAccount), itself included.
 *
 * @param info  Required; filled on success.
 * @return  0; -2 NULL arguments or an unknown account; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_get_user_info_by_user_account(agoraish_engine_t *engine, const char *user_account,
                                                  agoraish_user_info *info);

/**
 * Look up a user account by uid (Agora's getUserInfoByUid).
 *
 * @param info  Required; filled on success.
 * @return  0; -2 NULL info or an unknown uid; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_get_user_info_by_uid(agoraish_engine_t *engine, uint32_t uid, agoraish_user_info *info);

/**
 * Leave the channel (Agora's leaveChannel): on_leave_channel with the call's
 * statistics, then on_connection_state_changed(DISCONNECTED, LEAVE_CHANNEL).
 * Also ends a join in progress, a reconnection, or a FAILED state.
 *
 * @return  0; -18 not in (or joining) a channel; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_leave_channel(agoraish_engine_t *engine);

/**
 * Renew the token (Agora's renewToken). While connected the server checks it
 * (on_error 109 or 110 if it refuses; the old token stays in force). After the
 * token expired (FAILED, TOKEN_EXPIRED) the engine rejoins with it.
 *
 * @param token  Required, non-empty. Copied.
 * @return  0; -2 NULL or empty; -113 not in a channel; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_renew_token(agoraish_engine_t *engine, const char *token);

/**
 * Switch to another channel as audience in live broadcasting (Agora's
 * switchChannel): on_leave_channel, then on_join_channel_success.
 *
 * @return  0; -2 NULL channel; -102 bad channel name; -5 not audience in live
 *          broadcasting; -113 not connected to a channel; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_switch_channel(agoraish_engine_t *engine, const char *token, const char *channel);

/**
 * Preload a channel (Agora's preloadChannel), for an audience that hops
 * between channels (QuickSwitchChannel; docs/quick-switch.md). The engine
 * opens a signaling connection for `channel` and `uid` now, on which the
 * server checks the app, the channel name and the token as for a join. The
 * next join of that channel with that uid (agoraish_engine_join_channel or
 * _with_options, after leaving the current channel, or switch_channel) goes on
 * that connection and asks for fast start: the server sends the newest packet
 * of each audio stream at once and playout begins with it, so the channel is
 * heard within a few tens of milliseconds of the join. The newest 20 preloads
 * are kept; the same channel and uid again replaces the token. A token the
 * server refuses is logged and the preload does nothing (the join reports the
 * error as usual). Engines only, not connections. Released with the engine.
 *
 * @param token    NULL or "" for none; at most 2048 bytes. Copied.
 * @param channel  Required. Copied.
 * @param uid      The uid the join will use.
 * @return  0; -2 NULL channel or a token over 2048 bytes; -102 bad channel
 *          name; -5 the server URL may not carry tokens (ws:// to a host other
 *          than loopback); -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_preload_channel(agoraish_engine_t *engine, const char *token, const char *channel,
                                    uint32_t uid);

/**
 * Give every preloaded channel a new token (Agora's
 * updatePreloadChannelToken); the server checks it again for each.
 *
 * @param token  NULL or "" for none; at most 2048 bytes. Copied.
 * @return  0; -2 a token over 2048 bytes; -8 nothing preloaded; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_update_preload_channel_token(agoraish_engine_t *engine, const char *token);

/**
 * The id of the current or last call (Agora's getCallId), written into a
 * caller buffer (`*len` in: capacity, out: size needed with the NUL).
 *
 * @return  0; -2 NULL len; -6 buffer too small; -113 no call yet; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_get_call_id(agoraish_engine_t *engine, char *buf, size_t *len);

/**
 * The connection state (Agora's getConnectionState).
 *
 * @return  An `agoraish_connection_state` (positive); -7 or -2 for a bad handle.
 * Thread: any.
 */
int agoraish_engine_get_connection_state(agoraish_engine_t *engine);

/* ------------------------------------------------------------------------ */
/* Audio from and to the host (external source and sink)                    */
/* ------------------------------------------------------------------------ */

/**
 * Set the audio profile (Agora 4.x setAudioProfile): the encoder follows it
 * at once, for the external source and for capture. See
 * `agoraish_audio_profile` for what each means.
 *
 * @return  0; -2 unknown profile; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_set_audio_profile(agoraish_engine_t *engine, int profile);

/**
 * Send audio pushed by the host instead of a microphone (Agora's
 * setExternalAudioSource). While in a call, every 20 ms of pushed audio is
 * encoded with Opus and sent; other users hear it.
 *
 * @param enabled      Nonzero to enable; 0 to stop (pushes then return -3).
 * @param sample_rate  8000, 16000, 32000, 44100 or 48000 (converted to 48 kHz).
 * @param channels     1 or 2.
 * @return  0; -2 unsupported rate or channels; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_set_external_audio_source(agoraish_engine_t *engine, int enabled, int sample_rate, int channels);

/**
 * Push interleaved 16-bit PCM at the source's rate and channels (Agora's
 * pushExternalAudioFrame). Any number of samples is accepted. In a call what
 * is pushed is queued and sent at the pace it plays (one 10 ms frame every
 * 10 ms, in 20 ms Opus frames; up to 60 ms ahead leaves at once), so a host
 * may push large chunks; at most 2 s wait, and a push past that drops the
 * oldest queued audio. Outside a call, observers and recordings take it at once.
 *
 * @param samples             Required unless `samples_per_channel` is 0; read during the call only.
 * @param samples_per_channel 0..48000 (one second at most per call).
 * @return  The samples per channel (at 48 kHz) queued and not yet sent (>= 0);
 *          -2 NULL samples or a count out of range; -3 no external source; -7 bad handle.
 * Thread: any (pushes from several threads are serialized).
 */
int agoraish_engine_push_external_audio_frame(agoraish_engine_t *engine, const int16_t *samples,
                                              int samples_per_channel);

/**
 * Let the host pull what it would hear instead of a speaker (Agora's
 * setExternalAudioSink / enableExternalAudioSink).
 *
 * @param enabled      Nonzero to enable; 0 to stop (pulls then return -3).
 * @param sample_rate  8000, 16000, 32000, 44100 or 48000.
 * @param channels     1 or 2.
 * @return  0; -2 unsupported rate or channels; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_set_external_audio_sink(agoraish_engine_t *engine, int enabled, int sample_rate, int channels);

/**
 * Pull the mix of every remote user's audio (Agora's pullPlaybackAudioFrame):
 * exactly `samples_per_channel` interleaved samples at the sink's rate. Each
 * remote stream has an adaptive jitter buffer that conceals losses (Opus FEC
 * and PLC); silence fills the frame when nobody speaks. Pull in real time
 * (for example 10 ms every 10 ms): the pull cadence is the playout clock.
 *
 * @param samples  Required; receives the audio.
 * @param samples_per_channel  1..48000.
 * @return  0; -2 NULL samples or a count out of range; -3 no external sink; -7 bad handle.
 * Thread: any (pulls from several threads are serialized).
 */
int agoraish_engine_pull_playback_audio_frame(agoraish_engine_t *engine, int16_t *samples, int samples_per_channel);

/* ------------------------------------------------------------------------ */
/* Audio switches and volumes                                               */
/* ------------------------------------------------------------------------ */

/**
 * Audio on (Agora's enableAudio; on by default): capture, sending, receiving
 * and playout resume. Allowed at any time.
 * @return 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_enable_audio(agoraish_engine_t *engine);

/**
 * Audio off (Agora's disableAudio): nothing is captured, sent, received or
 * played; others see this user as muted. Allowed at any time.
 * @return 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_disable_audio(agoraish_engine_t *engine);

/**
 * Local capture and sending on or off (Agora's enableLocalAudio); receiving
 * goes on. Reports on_local_audio_state_changed; others get on_user_mute_audio.
 * @return 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_enable_local_audio(agoraish_engine_t *engine, int enabled);

/**
 * Stop or resume sending local audio (Agora's muteLocalAudioStream). Capture
 * and the record observer go on. Others get on_user_mute_audio; the server
 * forwards none of this user's audio while muted.
 * @return 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_mute_local_audio_stream(agoraish_engine_t *engine, int mute);

/**
 * Stop or resume receiving one remote user's audio (Agora's
 * muteRemoteAudioStream). The server stops forwarding it to this user. May be
 * called before the user joins. on_remote_audio_state_changed reports
 * STOPPED / LOCAL_MUTED, then DECODING / LOCAL_UNMUTED when it plays again.
 * @return 0; -2 uid 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_mute_remote_audio_stream(agoraish_engine_t *engine, uint32_t uid, int mute);

/**
 * Stop or resume receiving every remote user's audio, including users who
 * join later (Agora's muteAllRemoteAudioStreams). Unmuting all also clears
 * per-user mutes and the default.
 * @return 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_mute_all_remote_audio_streams(agoraish_engine_t *engine, int mute);

/**
 * Whether users who join later start muted (Agora's
 * setDefaultMuteAllRemoteAudioStreams); users present keep their state.
 * @return 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_default_mute_all_remote_audio_streams(agoraish_engine_t *engine, int mute);

/**
 * Volume of local audio before sending (Agora's adjustRecordingSignalVolume):
 * 0 silence, 100 unchanged (default), up to 400 (4x, clipped).
 * @return 0; -2 out of 0..400; -7 bad handle. Thread: any.
 */
int agoraish_engine_adjust_recording_signal_volume(agoraish_engine_t *engine, int volume);

/**
 * Volume of the remote mix (Agora's adjustPlaybackSignalVolume): 0..400, 100 unchanged.
 * @return 0; -2 out of range; -7 bad handle. Thread: any.
 */
int agoraish_engine_adjust_playback_signal_volume(agoraish_engine_t *engine, int volume);

/**
 * Volume of one remote user (Agora's adjustUserPlaybackSignalVolume): 0..100, 100 unchanged.
 * @return 0; -2 uid 0 or out of range; -7 bad handle. Thread: any.
 */
int agoraish_engine_adjust_user_playback_signal_volume(agoraish_engine_t *engine, uint32_t uid, int volume);

/**
 * Volume reports (Agora's enableAudioVolumeIndication): on_audio_volume_indication
 * every `interval` ms and on_active_speaker.
 * @param interval    <= 0 off; else 10..60000 ms (200 or more recommended).
 * @param smooth      0..10: sensitivity; higher follows changes faster, 10
 *                    reports each interval as measured (3 recommended).
 * @param report_vad  Nonzero: the local report carries voice activity.
 * @return 0; -2 out of range; -7 bad handle. Thread: any.
 */
int agoraish_engine_enable_audio_volume_indication(agoraish_engine_t *engine, int interval, int smooth,
                                                   int report_vad);

/* ------------------------------------------------------------------------ */
/* Raw audio data                                                            */
/* ------------------------------------------------------------------------ */

/**
 * A raw audio observer (Agora's IAudioFrameObserver). Every callback is
 * optional and returns nonzero to keep the frame or 0 to discard it (in
 * write modes a discarded frame becomes silence).
 *
 * Thread: callbacks run on the audio thread of their position, not on the
 * event thread: on_record_audio_frame on the thread that pushes
 * (agoraish_engine_push_external_audio_frame) or on the engine's audio device
 * thread when capturing; the other three on the thread that pulls
 * (agoraish_engine_pull_playback_audio_frame) or on the audio device thread.
 * Callbacks of one position never overlap. Inside a callback, pushing or
 * pulling audio returns -5; every other function may be called.
 */
typedef struct agoraish_audio_frame_observer {
    /** Set to sizeof(agoraish_audio_frame_observer). */
    uint32_t struct_size;
    /** Passed back unchanged to every callback. Owned by the host. */
    void *user_data;
    /** The positions observed: `agoraish_audio_frame_position` bits. */
    int observed_position;
    /** Local audio before encoding, in the format of set_recording_audio_frame_parameters. */
    int (*on_record_audio_frame)(agoraish_engine_t *engine, void *user_data, agoraish_audio_frame *frame);
    /** The mix of remote audio before playout (set_playback_audio_frame_parameters). */
    int (*on_playback_audio_frame)(agoraish_engine_t *engine, void *user_data, agoraish_audio_frame *frame);
    /** Local and remote audio mixed (set_mixed_audio_frame_parameters); read-only. */
    int (*on_mixed_audio_frame)(agoraish_engine_t *engine, void *user_data, agoraish_audio_frame *frame);
    /** One remote user before mixing (set_playback_audio_frame_before_mixing_parameters); read-only. */
    int (*on_playback_audio_frame_before_mixing)(agoraish_engine_t *engine, void *user_data, uint32_t uid,
                                                 agoraish_audio_frame *frame);
} agoraish_audio_frame_observer;


/**
 * Register a raw audio observer (Agora's registerAudioFrameObserver), or
 * remove it with NULL. The struct is copied; `user_data` stays the host's.
 * When the call returns, the previous observer receives no more callbacks
 * (unless the call is made from inside one of its callbacks: that callback
 * finishes first).
 * @return 0; -2 struct_size no minor had or unknown position bits; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_register_audio_frame_observer(agoraish_engine_t *engine,
                                                  const agoraish_audio_frame_observer *observer);

/**
 * Format of on_record_audio_frame (Agora's setRecordingAudioFrameParameters).
 * @param sample_rate       8000, 16000, 32000, 44100 or 48000 (default 48000).
 * @param channels          1 (default) or 2.
 * @param mode              An `agoraish_raw_audio_frame_op_mode` (default read-only).
 * @param samples_per_call  Samples per channel per callback: 0 for 10 ms, else
 *                          sample_rate/100 .. sample_rate (10 ms .. 1 s). In
 *                          write modes audio is delayed by one callback period.
 * @return 0; -2 out of range; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_recording_audio_frame_parameters(agoraish_engine_t *engine, int sample_rate, int channels,
                                                         int mode, int samples_per_call);

/** Format of on_playback_audio_frame (Agora's setPlaybackAudioFrameParameters);
 *  as for recording. @return 0; -2; -7. Thread: any. */
int agoraish_engine_set_playback_audio_frame_parameters(agoraish_engine_t *engine, int sample_rate, int channels,
                                                        int mode, int samples_per_call);

/** Format of on_mixed_audio_frame (Agora's setMixedAudioFrameParameters); always
 *  read-only. @return 0; -2 out of range; -7. Thread: any. */
int agoraish_engine_set_mixed_audio_frame_parameters(agoraish_engine_t *engine, int sample_rate, int channels,
                                                     int samples_per_call);

/** Format of on_playback_audio_frame_before_mixing (Agora's
 *  setPlaybackAudioFrameBeforeMixingParameters): 10 ms per call, read-only.
 *  @return 0; -2 out of range; -7. Thread: any. */
int agoraish_engine_set_playback_audio_frame_before_mixing_parameters(agoraish_engine_t *engine, int sample_rate,
                                                                      int channels);

/* ------------------------------------------------------------------------ */
/* Recording to a file                                                       */
/* ------------------------------------------------------------------------ */

/**
 * Record audio to a file (Agora's startAudioRecording): mono, 16-bit PCM WAV,
 * or Ogg Opus when the path ends in ".ogg" or ".opus". A recording in
 * progress is finished first. Recording goes on across calls until stopped.
 * @return 0; -2 NULL config, a struct_size no minor had, empty path, rate, position or
 *         quality out of range; -1 the file cannot be created; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_start_audio_recording(agoraish_engine_t *engine, const agoraish_audio_recording_config *config);

/**
 * Finish the recording (Agora's stopAudioRecording). Idempotent.
 * @return 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_stop_audio_recording(agoraish_engine_t *engine);

/* ------------------------------------------------------------------------ */
/* Audio devices (ALSA)                                                      */
/* ------------------------------------------------------------------------ */

/**
 * Number of audio devices of a kind (Agora's enumerateRecordingDevices /
 * enumeratePlaybackDevices): the PCMs ALSA lists with a hint, "default" first.
 * @param type  An `agoraish_media_device_type`.
 * @return The count (>= 0); -2 unknown type; -7 bad handle. Thread: any.
 */
int agoraish_engine_get_audio_device_count(agoraish_engine_t *engine, int type);

/**
 * One audio device of a kind, by index in the current enumeration.
 * @return 0; -2 unknown type, NULL info or index out of range; -7 bad handle. Thread: any.
 */
int agoraish_engine_get_audio_device(agoraish_engine_t *engine, int type, int index, agoraish_audio_device_info *info);

/**
 * Choose the capture device (Agora's setRecordingDevice) by id (an ALSA PCM
 * name, listed or not; default "default"). Takes effect within 10 ms; a
 * device that will not open is reported through on_local_audio_state_changed
 * (FAILED, RECORD_FAILURE or NO_RECORDING_DEVICE) when capture starts.
 * @return 0; -2 NULL, empty or over 511 bytes; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_recording_device(agoraish_engine_t *engine, const char *device_id);

/** Choose the playback device (Agora's setPlaybackDevice); as for recording. A
 *  device that will not open plays into nothing (logged). */
int agoraish_engine_set_playback_device(agoraish_engine_t *engine, const char *device_id);

/** The chosen capture device id (Agora's getRecordingDevice), into a caller buffer.
 *  @return 0; -2 NULL len; -6 buffer too small; -7 bad handle. */
int agoraish_engine_get_recording_device(agoraish_engine_t *engine, char *buf, size_t *len);

/** The chosen playback device id (Agora's getPlaybackDevice), into a caller buffer. */
int agoraish_engine_get_playback_device(agoraish_engine_t *engine, char *buf, size_t *len);

/**
 * Capture from the recording device and report its volume through
 * on_audio_volume_indication (uid 0) every `interval` ms (Agora's
 * startRecordingDeviceTest). Nothing is sent.
 * @return 0; -2 interval outside 10..60000; -7 bad handle. Thread: any.
 */
int agoraish_engine_start_recording_device_test(agoraish_engine_t *engine, int interval);

/** Stop the recording device test. @return 0; -7. */
int agoraish_engine_stop_recording_device_test(agoraish_engine_t *engine);

/**
 * Play a 16-bit PCM WAV file (8..48 kHz, mono or stereo) in a loop on the
 * playback device (Agora's startPlaybackDeviceTest).
 * @return 0; -2 NULL path or a file that is not such a WAV; -7 bad handle. Thread: any.
 */
int agoraish_engine_start_playback_device_test(agoraish_engine_t *engine, const char *path);

/** Stop the playback device test. @return 0; -7. */
int agoraish_engine_stop_playback_device_test(agoraish_engine_t *engine);

/**
 * Play what the recording device captures on the playback device, and report
 * its volume every `interval` ms (Agora's startAudioDeviceLoopbackTest).
 * @return 0; -2 interval outside 10..60000; -7 bad handle. Thread: any.
 */
int agoraish_engine_start_audio_device_loopback_test(agoraish_engine_t *engine, int interval);

/** Stop the loopback test. @return 0; -7. */
int agoraish_engine_stop_audio_device_loopback_test(agoraish_engine_t *engine);

/* ------------------------------------------------------------------------ */
/* Video                                                                     */
/* ------------------------------------------------------------------------ */

/**
 * A render sink for one remote user (Agora's VideoCanvas on Linux: a callback
 * instead of a view). Set `on_frame` to NULL to unbind.
 */
typedef struct agoraish_video_canvas {
    /** Set to sizeof(agoraish_video_canvas). */
    uint32_t struct_size;
    /** The remote user (not 0). */
    uint32_t uid;
    /** Receives every decoded picture of `uid`, on the engine's video thread
     *  (`agoraish-vid<n>`), one at a time; may call any engine function. */
    void (*on_frame)(agoraish_engine_t *engine, void *user_data, uint32_t uid, const agoraish_video_frame *frame);
    /** Passed back to `on_frame`. Owned by the host. */
    void *user_data;
    /* ABI 0.6 */
    /** RENDER_MODE_TYPE: 1 HIDDEN (cover the view, crop; the default when 0),
     *  2 FIT (inside the view, black bars), 3 ADAPTIVE (as HIDDEN), 4 FILL
     *  (stretch). Applies when a view size is set. */
    int render_mode;
    /** VIDEO_MIRROR_MODE: 0 AUTO (the local preview mirrored, remote users
     *  not), 1 ENABLED, 2 DISABLED. */
    int mirror_mode;
    /** The host's view size (0 x 0: pictures at their own size; else 2..4096 on
     *  both sides, odd sides rounded down to even). */
    int view_width;
    int view_height;
} agoraish_video_canvas;

/** Video frame observer positions (Agora's VIDEO_OBSERVER_POSITION bits). */
enum agoraish_video_observer_position {
    AGORAISH_VIDEO_POSITION_POST_CAPTURER = 1,  /**< Each local picture as captured or pushed (upright). */
    AGORAISH_VIDEO_POSITION_PRE_RENDERER = 2,   /**< Each remote picture before its canvas. */
    AGORAISH_VIDEO_POSITION_PRE_ENCODER = 4     /**< Each local picture about to be encoded. */
};

/**
 * Raw video frames (Agora's IVideoFrameObserver). Each callback may change the
 * planes in place and returns nonzero to keep the picture, 0 to drop it (not
 * sent / not rendered). NULL callbacks are skipped.
 */
typedef struct agoraish_video_frame_observer {
    /** Set to sizeof(agoraish_video_frame_observer). */
    uint32_t struct_size;
    /** `agoraish_video_observer_position` bits; 0 means POST_CAPTURER | PRE_RENDERER (Agora's default). */
    int observed_position;
    /** onCaptureVideoFrame, on the thread that pushes the picture (or the camera thread). */
    int (*on_capture_video_frame)(agoraish_engine_t *engine, void *user_data, agoraish_video_frame *frame);
    /** onPreEncodeVideoFrame: after fitting, mirroring and the watermark; same thread as capture. */
    int (*on_pre_encode_video_frame)(agoraish_engine_t *engine, void *user_data, agoraish_video_frame *frame);
    /** onRenderVideoFrame, on the video thread (`agoraish-vid<n>`). */
    int (*on_render_video_frame)(agoraish_engine_t *engine, void *user_data, uint32_t uid, agoraish_video_frame *frame);
    /** Passed back to the callbacks. Owned by the host. */
    void *user_data;
} agoraish_video_frame_observer;

/** Where a watermark goes (Agora's WatermarkOptions); rectangles in pixels of the sent picture. */
typedef struct agoraish_watermark_options {
    /** Set to sizeof(agoraish_watermark_options). */
    uint32_t struct_size;
    /** Nonzero: the local canvas shows the watermark too. */
    int visible_in_preview;
    /** Where it goes in landscape pictures: x, y >= 0 (<= 4096), width and height 1..4096;
     *  the image is scaled to it and clipped at the picture's edges. */
    int landscape_x, landscape_y, landscape_width, landscape_height;
    /** Where it goes in portrait pictures. */
    int portrait_x, portrait_y, portrait_width, portrait_height;
} agoraish_watermark_options;

/** One picture format a camera offers. */
typedef struct agoraish_video_format {
    int width;
    int height;
    int fps;
    char fourcc[8];  /**< The V4L2 pixel format, e.g. "YUYV", NUL-terminated. */
} agoraish_video_format;

/** Most formats reported per camera. */
#define AGORAISH_MAX_VIDEO_FORMATS 32

/** One camera (a V4L2 capture device). */
typedef struct agoraish_video_device_info {
    char id[AGORAISH_MAX_DEVICE_ID_LENGTH];    /**< Its /dev path, NUL-terminated (pass it to set_video_device). */
    char name[AGORAISH_MAX_DEVICE_ID_LENGTH];  /**< The card name the driver gives. */
    int format_count;                          /**< Entries used in `formats`. */
    agoraish_video_format formats[AGORAISH_MAX_VIDEO_FORMATS];
} agoraish_video_device_info;

/** Agora's CameraCapturerConfiguration, as far as Linux has it. */
typedef struct agoraish_camera_capturer_configuration {
    /** Set to sizeof(agoraish_camera_capturer_configuration). */
    uint32_t struct_size;
    /** CAPTURER_OUTPUT_PREFERENCE: 0 AUTO, 1 PERFORMANCE, 2 PREVIEW (these three capture at the
     *  encoder's size and frame rate), 3 MANUAL (capture_width x capture_height). */
    int preference;
    int capture_width;   /**< 16..4096 (default 640). */
    int capture_height;  /**< 16..4096 (default 480). */
} agoraish_camera_capturer_configuration;

/**
 * Video on (Agora's enableVideo; off by default): pictures are captured (the
 * camera, unless an external source is set) and sent, and received video is
 * decoded and rendered. Others get on_user_enable_video.
 * @return 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_enable_video(agoraish_engine_t *engine);

/**
 * Video off (Agora's disableVideo): nothing is sent or decoded; others get
 * on_user_enable_video(uid, 0) and the server forwards none of this user's video.
 * @return 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_disable_video(agoraish_engine_t *engine);

/**
 * Set the encoder's aims (Agora's setVideoEncoderConfiguration); applies from
 * the next picture. A struct of ABI 0.5 (without the orientation, degradation
 * and mirror fields) is accepted; they then read as 0.
 * @return 0; -2 NULL, struct_size no minor had, or a field out of range (a codec
 *         other than VP8 (1) or VP9 (5), 0 meaning VP8; a mode outside 0..2);
 *         -7 bad handle. Thread: any.
 */
int agoraish_engine_set_video_encoder_configuration(agoraish_engine_t *engine,
                                                    const agoraish_video_encoder_configuration *config);

/**
 * Send frames pushed by the host (Agora's setExternalVideoSource).
 * @return 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_external_video_source(agoraish_engine_t *engine, int enabled);

/**
 * Push one picture (Agora's pushExternalVideoFrame). It is turned upright by
 * `rotation`, observed (POST_CAPTURER), shown on the local canvas and, with
 * video enabled and a call up, fitted to the encoder configuration, observed
 * (PRE_ENCODER), encoded with the configured codec (VP8: RFC 7741, VP9: RFC
 * 9628) and sent; the first frame and any frame after a keyframe request
 * (RTCP PLI or FIR) is a keyframe. Push at the configured frame rate. A
 * struct of ABI 0.5 (without `rotation`) is accepted.
 * @return 0; -2 NULL, struct_size no minor had, an unknown format, a size or
 *         stride out of range, a plane the format needs missing, or a
 *         rotation other than 0, 90, 180, 270 (checked before the source);
 *         -3 no external source;
 *         -7 bad handle. Thread: any (pushes are serialized).
 */
int agoraish_engine_push_external_video_frame(agoraish_engine_t *engine, const agoraish_external_video_frame *frame);

/**
 * Bind (or unbind, with `on_frame` NULL) the render sink of a remote user
 * (Agora's setupRemoteVideo). After an unbind returns, the old sink gets no
 * further frame (unless the call comes from inside that sink). A view size
 * makes pictures arrive at that size (odd sides rounded down to even) in the
 * render mode. A struct of ABI 0.5 (without the modes and view size) is accepted.
 * @return 0; -2 NULL, struct_size no minor had, uid 0, an unknown render or mirror
 *         mode, or a view size other than 0 x 0 or 2..4096 on both sides;
 *         -7 bad handle. Thread: any.
 */
int agoraish_engine_setup_remote_video(agoraish_engine_t *engine, const agoraish_video_canvas *canvas);

/**
 * Local video capture and sending on or off (Agora's enableLocalVideo; on by
 * default); receiving goes on. Others get on_user_enable_local_video.
 * @return 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_enable_local_video(agoraish_engine_t *engine, int enabled);

/**
 * Stop or resume sending video (Agora's muteLocalVideoStream); pushes still
 * return 0. Others get on_user_mute_video; the server forwards none of this
 * user's video while muted. The first frame after a resume is a keyframe.
 * @return 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_mute_local_video_stream(agoraish_engine_t *engine, int mute);

/**
 * Stop or resume receiving one remote user's video (Agora's
 * muteRemoteVideoStream); the server stops forwarding it to this user.
 * @return 0; -2 uid 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_mute_remote_video_stream(agoraish_engine_t *engine, uint32_t uid, int mute);

/**
 * Stop or resume receiving every remote user's video, including users who
 * join later (Agora's muteAllRemoteVideoStreams). Unmuting all also clears
 * per-user mutes and the default.
 * @return 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_mute_all_remote_video_streams(agoraish_engine_t *engine, int mute);

/**
 * Whether users who join later start with their video muted (Agora's
 * setDefaultMuteAllRemoteVideoStreams); users present keep their state.
 * @return 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_default_mute_all_remote_video_streams(agoraish_engine_t *engine, int mute);

/**
 * Bind the local canvas (Agora's setupLocalVideo): `canvas->on_frame` gets the
 * local pictures (uid 0) on the video thread after
 * `agoraish_engine_start_preview()`, or in a call while local video is on.
 * `uid` is ignored; `on_frame` NULL unbinds (returns once no call to the old
 * sink runs, unless called from inside it).
 * @return 0; -2 NULL, unknown render/mirror mode or bad view size; -7 bad handle. Thread: any.
 */
int agoraish_engine_setup_local_video(agoraish_engine_t *engine, const agoraish_video_canvas *canvas);

/** Local pictures reach the local canvas outside calls too (Agora's startPreview; needs
 *  enable_video; survives leaving). With no external source the camera starts.
 *  @return 0; -7 bad handle. Thread: any. */
int agoraish_engine_start_preview(agoraish_engine_t *engine);

/** Stop the preview (Agora's stopPreview). @return 0; -7 bad handle. */
int agoraish_engine_stop_preview(agoraish_engine_t *engine);

/** Render and mirror mode of the local canvas (Agora's setLocalRenderMode).
 *  @return 0; -2 unknown mode; -3 no local canvas bound; -7 bad handle. Thread: any. */
int agoraish_engine_set_local_render_mode(agoraish_engine_t *engine, int render_mode, int mirror_mode);

/** Render and mirror mode of a remote user's canvas (Agora's setRemoteRenderMode).
 *  @return 0; -2 uid 0 or unknown mode; -3 no canvas bound for uid; -7 bad handle. Thread: any. */
int agoraish_engine_set_remote_render_mode(agoraish_engine_t *engine, uint32_t uid, int render_mode, int mirror_mode);

/**
 * Register (or with NULL unregister) a video frame observer (Agora's
 * registerVideoFrameObserver). The struct is copied. Unregistering returns once
 * no render callback of the old observer runs (unless called from one).
 * @return 0; -2 a struct_size no minor had or unknown position bits; -7 bad handle. Thread: any.
 */
int agoraish_engine_register_video_frame_observer(agoraish_engine_t *engine,
                                                  const agoraish_video_frame_observer *observer);

/**
 * Also send a low stream (Agora's enableDualStreamMode): the picture fitted
 * inside 320 x 180, half the frame rate (at least 5), Agora's base bitrate
 * for that size. Subscribers choose a stream; the server forwards one.
 * @return 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_enable_dual_stream_mode(agoraish_engine_t *engine, int enabled);

/**
 * Receive the high (0) or low (1) stream of `uid`, or a simulcast layer
 * (AGORAISH_VIDEO_STREAM_LAYER_1..6, 4..9; ABI 0.12) (Agora's
 * setRemoteVideoStreamType). The server switches at the next keyframe of the
 * chosen stream (it asks the publisher for one). A publisher without dual
 * stream or simulcast sends its one stream to everyone; a layer the publisher
 * does not send gives the best stream below it that it sends, else its lowest.
 * @return 0; -2 uid 0 or another type; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_remote_video_stream_type(agoraish_engine_t *engine, uint32_t uid, int stream_type);

/** The stream received of users not named by set_remote_video_stream_type
 *  (Agora's setRemoteDefaultVideoStreamType; the same types).
 *  @return 0; -2 another type; -7 bad handle. */
int agoraish_engine_set_remote_default_video_stream_type(agoraish_engine_t *engine, int stream_type);

/** One simulcast layer (Agora's SimulcastConfig::StreamLayerConfig, ABI 0.12). */
typedef struct agoraish_stream_layer_config {
    /** The box the layer's picture fits into (16..3840 x 16..2160 when
     *  enabled; never larger than the high stream's picture). */
    int width;
    int height;
    /** Frames per second, 1..60 when enabled (never above the high stream's). */
    int framerate;
    /** Nonzero: the layer is sent. */
    int enable;
} agoraish_stream_layer_config;

/** Agora's SimulcastConfig (ABI 0.12): up to three enabled layers besides the
 *  high stream (the encoder configuration), indexed by agoraish_stream_layer_index. */
typedef struct agoraish_simulcast_config {
    /** Set to sizeof(agoraish_simulcast_config). */
    uint32_t struct_size;
    agoraish_stream_layer_config configs[AGORAISH_STREAM_LAYER_COUNT_MAX];
    /** Agora's publish_fallback_enable: read and ignored (the publish fallback
     *  of agoraish_engine_set_local_publish_fallback_option applies). */
    int publish_fallback_enable;
} agoraish_simulcast_config;

/**
 * Send simulcast layers (Agora's setSimulcastConfig; docs/video.md,
 * Simulcast): besides the high stream, each enabled layer is the picture
 * scaled to fit its box at its frame rate and the base bitrate for its size,
 * on a stream of its own; subscribers pick one with
 * agoraish_engine_set_remote_video_stream_type and the server forwards each
 * subscriber its layer, switching at keyframes. STREAM_LOW is the low stream
 * (the one dual stream sends, at the size given here). While a configuration
 * with enabled layers is set it replaces enable_dual_stream_mode; one with
 * none enabled goes back to it. Copied.
 * @return  0; -2 NULL, a struct_size no minor had, more than three enabled
 *          layers, or an enabled layer's size or frame rate out of range;
 *          -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_set_simulcast_config(agoraish_engine_t *engine, const agoraish_simulcast_config *config);

/** Agora's LastmileProbeConfig (ABI 0.7), with the probe's token (ABI 0.9). */
typedef struct agoraish_lastmile_probe_config {
    /** Set to sizeof(agoraish_lastmile_probe_config). */
    uint32_t struct_size;
    /** Nonzero: probe this direction. At least one. */
    int probe_uplink;
    int probe_downlink;
    /** bps, 100000..5000000 for each direction probed: the probe is sent at this rate. */
    unsigned int expected_uplink_bitrate;
    unsigned int expected_downlink_bitrate;
    /* ABI 0.9 (an agoraish extension: Agora's probe needs no token). A 0.7 host's
     * struct_size (AGORAISH_LASTMILE_PROBE_CONFIG_SIZE_0_7) leaves both NULL. */
    /** What the probe's join presents where the app has a certificate: a token
     *  for `channel_id` and uid 0 (the wildcard identity), with the join
     *  privilege; NULL or "": none. Copied. */
    const char *token;
    /** The channel name the token is for (a valid channel name); NULL or "":
     *  "probe". The probe runs in a private channel of its own either way. Copied. */
    const char *channel_id;
} agoraish_lastmile_probe_config;

/** The size of `agoraish_lastmile_probe_config` in ABI 0.7 (without `token`
 *  and `channel_id`): the smallest accepted struct_size. */
#define AGORAISH_LASTMILE_PROBE_CONFIG_SIZE_0_7 (offsetof(agoraish_lastmile_probe_config, expected_downlink_bitrate) + sizeof(unsigned int))

/** Agora's LastmileProbeOneWayResult. */
typedef struct agoraish_lastmile_probe_one_way_result {
    /** Percent of probe packets lost (100 when none arrived). */
    unsigned int packet_loss_rate;
    /** Interarrival jitter (RFC 3550), ms. */
    unsigned int jitter;
    /** bps: the rate the path delivered the probe at (at most the expected bitrate). */
    unsigned int available_bandwidth;
} agoraish_lastmile_probe_one_way_result;

/** Agora's LASTMILE_PROBE_RESULT_STATE. */
typedef enum agoraish_lastmile_probe_result_state {
    AGORAISH_LASTMILE_PROBE_RESULT_COMPLETE = 1,
    AGORAISH_LASTMILE_PROBE_RESULT_INCOMPLETE_NO_BWE = 2,
    AGORAISH_LASTMILE_PROBE_RESULT_UNAVAILABLE = 3
} agoraish_lastmile_probe_result_state;

/** Agora's LastmileProbeResult. */
typedef struct agoraish_lastmile_probe_result {
    /** Set to sizeof(agoraish_lastmile_probe_result). */
    uint32_t struct_size;
    /** agoraish_lastmile_probe_result_state: COMPLETE, INCOMPLETE_NO_BWE (a direction probed
     *  delivered too little to measure), UNAVAILABLE (the server's media port was not reached). */
    int state;
    agoraish_lastmile_probe_one_way_result uplink_report;
    agoraish_lastmile_probe_one_way_result downlink_report;
    /** Round trip to the server, ms. */
    unsigned int rtt;
} agoraish_lastmile_probe_result;

/**
 * Probe the last mile before joining (Agora's startLastmileProbeTest): the
 * engine joins a private channel of the server, sends probe packets at the
 * expected uplink bitrate for 2 s and reads the server's transport-wide
 * feedback on them, then has the server send probes at the expected downlink
 * bitrate for 2 s and measures them. on_lastmile_quality comes after the
 * uplink phase, on_lastmile_probe_result about 5 s after the start; the
 * private channel is then left (its join and leave are not reported). A join
 * ends the probe.
 *
 * Where the app has a certificate the server checks the probe's join like any
 * other: `token` must be valid for `channel_id` (NULL or "": "probe") and
 * uid 0, the identity the probe joins with (a token built for uid 0, which
 * AccessToken2 and AccessToken treat as any uid; a token for another uid or an
 * account is refused). A refused join is reported as on the channel:
 * on_connection_state_changed(FAILED, INVALID_TOKEN) (or TOKEN_EXPIRED after
 * on_request_token), then at once on_lastmile_probe_result with state
 * UNAVAILABLE, and the probe ends (DISCONNECTED).
 * @return 0; -2 NULL config, a struct_size other than
 *         AGORAISH_LASTMILE_PROBE_CONFIG_SIZE_0_7 and today's size, no direction probed, a probed bitrate outside
 *         100000..5000000, a token or channel_id that is not UTF-8, a
 *         channel_id that is not a valid channel name, or no usable server
 *         URL; -5 during an echo test or while a last-mile test or probe
 *         runs; -7 bad handle. Thread: any.
 * In (or joining) a channel the probe runs beside the call in a private
 * connection of its own (ABI 0.11): the call goes on, the probe's channel
 * and connection states are not reported, and its connection ends with
 * on_lastmile_probe_result.
 */
int agoraish_engine_start_lastmile_probe_test(agoraish_engine_t *engine, const agoraish_lastmile_probe_config *config);

/** End a probe early (Agora's stopLastmileProbeTest): no result is reported.
 *  @return 0; -5 no probe running; -7 bad handle. Thread: any. */
int agoraish_engine_stop_lastmile_probe_test(agoraish_engine_t *engine);

/**
 * Report the last mile's quality every 2 s before joining (Agora's
 * enableLastmileTest): 0.7 s of probes each way at the configured video
 * bitrate (at least 100 kbps), then on_lastmile_quality, repeated until
 * agoraish_engine_disable_lastmile_test() or a join. Its join presents no
 * token: where the app has a certificate the server refuses it
 * (on_connection_state_changed(FAILED, INVALID_TOKEN), one on_lastmile_quality
 * UNKNOWN (0), and the test ends); use a probe with a token there.
 * @return 0; -2 no usable server URL; -5 in a channel, during an echo test or
 *         while a last-mile test or probe runs; -7 bad handle. Thread: any.
 */
int agoraish_engine_enable_lastmile_test(agoraish_engine_t *engine);

/** Stop the last-mile test (Agora's disableLastmileTest).
 *  @return 0; -5 not running; -7 bad handle. Thread: any. */
int agoraish_engine_disable_lastmile_test(agoraish_engine_t *engine);

/** Agora's STREAM_FALLBACK_OPTIONS. */
typedef enum agoraish_stream_fallback_options {
    AGORAISH_STREAM_FALLBACK_OPTION_DISABLED = 0,
    AGORAISH_STREAM_FALLBACK_OPTION_VIDEO_STREAM_LOW = 1,
    AGORAISH_STREAM_FALLBACK_OPTION_AUDIO_ONLY = 2
} agoraish_stream_fallback_options;

/** Agora's PRIORITY_TYPE. */
typedef enum agoraish_priority_type {
    AGORAISH_PRIORITY_HIGH = 50,
    AGORAISH_PRIORITY_NORMAL = 100
} agoraish_priority_type;

/**
 * What the engine does when the uplink cannot carry video (Agora's
 * setLocalPublishFallbackOption; default DISABLED). AUDIO_ONLY stops sending
 * video while the uplink's bandwidth estimate leaves less than 60 kbps for it
 * for 2 s, and resumes once 120 kbps has been available for 2 s; both are
 * reported by on_local_publish_fallback_to_audio_only.
 * @return 0; -2 another option (VIDEO_STREAM_LOW applies to subscribing only); -7 bad handle. Thread: any.
 */
int agoraish_engine_set_local_publish_fallback_option(agoraish_engine_t *engine, int option);

/**
 * What the server may withhold when this user's downlink is short (Agora's
 * setRemoteSubscribeFallbackOption; default VIDEO_STREAM_LOW). The server
 * estimates each subscriber's downlink from transport-wide feedback and shares
 * it out among the publishers' video: DISABLED forwards what was asked for
 * regardless; VIDEO_STREAM_LOW sends the low stream of dual-stream publishers
 * that do not fit; AUDIO_ONLY then withholds video altogether
 * (on_remote_subscribe_fallback_to_audio_only). Video returns when the
 * downlink recovers. Any time; kept across calls.
 * @return 0; -2 another option; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_remote_subscribe_fallback_option(agoraish_engine_t *engine, int option);

/**
 * Serve `uid`'s video first when this downlink is shared out (Agora's
 * setRemoteUserPriority): PRIORITY_HIGH (50) for one user at most (the last
 * named), PRIORITY_NORMAL (100) to take it back.
 * @return 0; -2 uid 0 or another priority; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_remote_user_priority(agoraish_engine_t *engine, uint32_t uid, int priority);

/**
 * Write the next picture of `uid` (0: the local one, as captured) to `path`
 * (Agora's takeSnapshot): ".jpg"/".jpeg" as JPEG (libjpeg-turbo), ".png" as
 * PNG (libpng). The result comes through on_snapshot_taken on the event thread.
 * @return 0; -2 NULL path or another extension; -113 not in a call; -12 eight
 *         snapshots of that user already waiting; -7 bad handle. Thread: any.
 */
int agoraish_engine_take_snapshot(agoraish_engine_t *engine, uint32_t uid, const char *path);

/**
 * Blend a PNG into the sent picture (Agora's addVideoWatermark): scaled to the
 * rectangle for the picture's orientation, alpha kept, clipped at the edges.
 * One watermark at a time: a new one replaces the old. The file is read now.
 * @return 0; -2 NULL, a file that is not a readable PNG (up to 4096 x 4096) or bad
 *         rectangles; -7 bad handle. Thread: any.
 */
int agoraish_engine_add_video_watermark(agoraish_engine_t *engine, const char *png_path,
                                        const agoraish_watermark_options *options);

/** Remove the watermark (Agora's clearVideoWatermarks). @return 0; -7 bad handle. */
int agoraish_engine_clear_video_watermarks(agoraish_engine_t *engine);

/** Number of cameras (Agora's enumerateVideoDevices): V4L2 capture devices, by
 *  /dev path. 0 on a machine without any. @return the count; -7 bad handle. Thread: any. */
int agoraish_engine_get_video_device_count(agoraish_engine_t *engine);

/** One camera, by index in the current enumeration.
 *  @return 0; -2 NULL info or index out of range; -7 bad handle. Thread: any. */
int agoraish_engine_get_video_device(agoraish_engine_t *engine, int index, agoraish_video_device_info *info);

/**
 * Choose the camera (Agora's setDevice) by id. Used when capture next starts
 * (restarts it if running). A camera that will not open is reported through
 * on_local_video_state_changed (FAILED with DEVICE_INVALID_ID, DEVICE_BUSY,
 * DEVICE_NO_PERMISSION or CAPTURE_FAILURE).
 * @return 0; -2 NULL, empty or over 511 bytes; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_video_device(agoraish_engine_t *engine, const char *device_id);

/** The chosen camera's id, else the first found (Agora's getDevice), into a caller buffer.
 *  @return 0; -2 NULL len; -3 no camera; -6 buffer too small; -7 bad handle. */
int agoraish_engine_get_current_video_device(agoraish_engine_t *engine, char *buf, size_t *len);

/** Camera capture size preference (Agora's setCameraCapturerConfiguration), for the next start.
 *  @return 0; -2 NULL, a struct_size no minor had, unknown preference or size outside 16..4096; -7 bad handle. */
int agoraish_engine_set_camera_capturer_configuration(agoraish_engine_t *engine,
                                                      const agoraish_camera_capturer_configuration *config);

/** The next camera, round robin (Agora's switchCamera).
 *  @return 0; -4 fewer than two cameras; -7 bad handle. Thread: any. */
int agoraish_engine_switch_camera(agoraish_engine_t *engine);

/* ------------------------------------------------------------------------ */
/* Echo test                                                                 */
/* ------------------------------------------------------------------------ */

/**
 * Start an echo test (Agora's startEchoTest): outside channels, the engine
 * joins a private channel of the server in which its own audio (captured or
 * pushed) is played back to it after `interval_in_seconds`, so a user hears
 * the capture, network and playout path. The test channel's join and leave
 * are not reported (no on_join_channel_success / on_leave_channel); connection
 * states are. Call `agoraish_engine_stop_echo_test()` before joining a channel
 * (a join during the test returns -17). Its join presents no token: where the
 * app has a certificate the server refuses it (see
 * `agoraish_engine_start_echo_test_with_config()`, which takes one).
 * In (or joining) a channel the test runs beside the call in a private
 * connection of its own (ABI 0.11): the call goes on, the test uses the audio
 * device (capture and playout; not an external source or sink), and its
 * connection states are not reported.
 * @return 0; -2 interval outside 2..10 or no usable server URL; -5 an echo
 *         test running, or a last-mile test or probe running; -7 bad
 *         handle. Thread: any.
 */
int agoraish_engine_start_echo_test(agoraish_engine_t *engine, int interval_in_seconds);

/** Agora's EchoTestConfiguration (ABI 0.9), without the view (no video echo). */
typedef struct agoraish_echo_test_configuration {
    /** Set to sizeof(agoraish_echo_test_configuration). */
    uint32_t struct_size;
    /** Nonzero: echo the audio, the only medium echoed (with enable_video also 0: -2). */
    int enable_audio;
    /** Nonzero: echo the video. Not supported: nonzero is -4. */
    int enable_video;
    /** What the test's join presents where the app has a certificate: a token
     *  for `channel_id` and uid 0 (the wildcard identity), with the join
     *  privilege; NULL or "": none. Copied. */
    const char *token;
    /** The channel name the token is for (a valid channel name); NULL or "":
     *  "echo", the name the engine picks. The test runs in a private channel
     *  of its own either way: nobody who joins `channel_id` meets it. Copied. */
    const char *channel_id;
    /** Seconds after which the audio comes back, 2..10. */
    int interval_in_seconds;
} agoraish_echo_test_configuration;

/**
 * Start an echo test from Agora's EchoTestConfiguration (startEchoTest(config)):
 * as `agoraish_engine_start_echo_test()`, with the token and channel name its
 * join presents. Where the app has a certificate the server checks that join
 * like any other: `token` must be valid for `channel_id` (NULL or "": "echo")
 * and uid 0, the identity the test joins with (a token built for uid 0, which
 * AccessToken2 and AccessToken treat as any uid; a token for another uid or an
 * account is refused). A refused join is reported as on the channel:
 * on_connection_state_changed(FAILED, INVALID_TOKEN) (or TOKEN_EXPIRED after
 * on_request_token); nothing is echoed, and the test stays started until
 * `agoraish_engine_stop_echo_test()`. Video echo is not supported.
 * @return 0; -2 NULL config, a struct_size other than sizeof(agoraish_echo_test_configuration),
 *         interval_in_seconds outside 2..10, enable_audio and enable_video
 *         both 0, a token or channel_id that is not UTF-8, or a channel_id
 *         that is not a valid channel name; then -4 enable_video nonzero;
 *         then as agoraish_engine_start_echo_test(): -2 no usable server URL,
 *         -5 an echo test running, or a last-mile test or probe running;
 *         -7 bad handle. Thread: any.
 */
int agoraish_engine_start_echo_test_with_config(agoraish_engine_t *engine,
                                                const agoraish_echo_test_configuration *config);

/** Stop the echo test (Agora's stopEchoTest). @return 0; -5 no echo test running; -7 bad handle. */
int agoraish_engine_stop_echo_test(agoraish_engine_t *engine);

/* ------------------------------------------------------------------------ */
/* Data streams (docs/data-streams.md)                                      */
/* ------------------------------------------------------------------------ */

/** Limits of data streams (Agora's): streams per user, bytes per message, and
 *  within any second, messages and bytes sent. */
#define AGORAISH_MAX_DATA_STREAMS 5
#define AGORAISH_MAX_STREAM_MESSAGE_SIZE 1024
#define AGORAISH_MAX_STREAM_MESSAGES_PER_SECOND 30
#define AGORAISH_MAX_STREAM_BYTES_PER_SECOND 6144

/**
 * Create a data stream (Agora's createDataStream(streamId, reliable, ordered)).
 * Messages travel on the media path (UDP) through the server to every other
 * user of the channel. A reliable stream retransmits what is lost on each hop
 * until it arrives, delivering every message exactly once (and in the order
 * sent when `ordered`), or reports on_stream_message_error when a loss is not
 * repaired within 5 s; an unreliable stream delivers what arrives (ordered:
 * never a message older than one delivered) and reports each gap. Streams
 * end when the call ends (leave); at most AGORAISH_MAX_DATA_STREAMS exist.
 * @param stream_id  Required: receives the stream's id (1..255).
 * @return 0; -2 NULL stream_id; -116 five streams exist; -7 bad handle. Thread: any.
 */
int agoraish_engine_create_data_stream(agoraish_engine_t *engine, int *stream_id, int reliable, int ordered);

/** How to create a data stream (Agora's DataStreamConfig). */
typedef struct agoraish_data_stream_config {
    /** Set to sizeof(agoraish_data_stream_config). */
    uint32_t struct_size;
    /** Nonzero: each message is delivered when the sender's audio of the same moment plays
     *  (held for what the receiver's jitter buffer holds of that user's audio). */
    int sync_with_audio;
    /** Nonzero: messages are delivered in the order sent (late ones are dropped). */
    int ordered;
} agoraish_data_stream_config;

/**
 * Create a data stream from a DataStreamConfig (Agora's createDataStream(streamId,
 * config)): not reliable (what is lost stays lost and is reported as a gap).
 * @return 0; -2 NULL arguments or a struct_size no minor had; -116 five streams exist;
 *         -7 bad handle. Thread: any.
 */
int agoraish_engine_create_data_stream_with_config(agoraish_engine_t *engine, int *stream_id,
                                                   const agoraish_data_stream_config *config);

/**
 * Send a message on a data stream (Agora's sendStreamMessage). `data` is
 * copied before the call returns.
 * @return 0; -2 NULL data, length 0 or an unknown stream; -114 length above
 *         AGORAISH_MAX_STREAM_MESSAGE_SIZE; -115 the last second already holds 30
 *         messages or this one would take it past 6144 bytes; -113 not in a
 *         call; -5 an audience member of a live broadcast; -1 the message could
 *         not be encrypted (on_encryption_error follows); -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_send_stream_message(agoraish_engine_t *engine, int stream_id, const void *data, size_t length);

/**
 * Send audio metadata to every other user of the channel (Agora 4.x's
 * sendAudioMetadata), reliably: on_audio_metadata_received there. Copied.
 * @return 0; -2 NULL, empty or above 1024 bytes; -113 not in a call; -5 an
 *         audience member of a live broadcast; -7 bad handle. Thread: any.
 */
int agoraish_engine_send_audio_metadata(agoraish_engine_t *engine, const void *data, size_t length);

/* ------------------------------------------------------------------------ */
/* Media metadata                                                            */
/* ------------------------------------------------------------------------ */

/** Agora's METADATA_TYPE. */
typedef enum agoraish_metadata_type {
    AGORAISH_METADATA_TYPE_UNKNOWN = -1,
    AGORAISH_METADATA_TYPE_VIDEO = 0
} agoraish_metadata_type;

/** The largest metadata one picture carries (Agora's limit). */
#define AGORAISH_MAX_METADATA_SIZE 1024

/** Agora's Metadata: what travels with one video picture. */
typedef struct agoraish_metadata {
    /** The sender (0 when sending). */
    uint32_t uid;
    /** Bytes at `buffer`. When sending: in, the room (get_max_metadata_size); out, the bytes written. */
    uint32_t size;
    /** The metadata. When sending, the library's buffer of `size` bytes to fill. */
    uint8_t *buffer;
    /** The picture's timestamp, ms: the capture timestamp (or the external frame's timestamp). */
    int64_t timestamp_ms;
} agoraish_metadata;

/**
 * A media metadata observer (Agora's IMetadataObserver, the source and sink
 * of ObjC's setMediaMetadataDataSource / setMediaMetadataDelegate).
 * Metadata travels reliably beside the video, marked with the picture's
 * timestamp, to every other user of the channel.
 */
typedef struct agoraish_metadata_observer {
    /** Set to sizeof(agoraish_metadata_observer). */
    uint32_t struct_size;
    /** Passed back unchanged to every callback. Owned by the host. */
    void *user_data;
    /** The most bytes a picture's metadata may take, 1..AGORAISH_MAX_METADATA_SIZE;
     *  asked once, when the observer is registered. NULL: the maximum. */
    int (*get_max_metadata_size)(agoraish_engine_t *engine, void *user_data);
    /** A picture is being sent: fill `metadata->buffer` (up to `metadata->size` bytes),
     *  set `metadata->size`, and return nonzero to send it (0: nothing for this picture).
     *  On the video thread (the thread that pushes external frames, or the camera's). */
    int (*on_ready_to_send_metadata)(agoraish_engine_t *engine, void *user_data, agoraish_metadata *metadata);
    /** Metadata of a remote user's picture arrived, with that picture's timestamp. Event thread. */
    void (*on_metadata_received)(agoraish_engine_t *engine, void *user_data, const agoraish_metadata *metadata);
} agoraish_metadata_observer;

/**
 * Register (NULL: unregister) the metadata observer (Agora's
 * registerMediaMetadataObserver). The struct is copied.
 * @param type  AGORAISH_METADATA_TYPE_VIDEO.
 * @return 0; -2 another type, a struct_size no minor had or a maximum size outside
 *         1..1024; -7 bad handle. Thread: any.
 */
int agoraish_engine_register_media_metadata_observer(agoraish_engine_t *engine,
                                                     const agoraish_metadata_observer *observer, int type);

/* ------------------------------------------------------------------------ */
/* Encryption (docs/encryption.md)                                          */
/* ------------------------------------------------------------------------ */

/** Agora's ENCRYPTION_MODE. Every mode is available with the OpenSSL this
 *  library is built on; a build whose OpenSSL lacks SM4 returns -4 for SM4_128_ECB. */
typedef enum agoraish_encryption_mode {
    AGORAISH_ENCRYPTION_MODE_AES_128_XTS = 1,
    AGORAISH_ENCRYPTION_MODE_AES_128_ECB = 2,
    AGORAISH_ENCRYPTION_MODE_AES_256_XTS = 3,
    AGORAISH_ENCRYPTION_MODE_SM4_128_ECB = 4,
    AGORAISH_ENCRYPTION_MODE_AES_128_GCM = 5,
    AGORAISH_ENCRYPTION_MODE_AES_256_GCM = 6,
    AGORAISH_ENCRYPTION_MODE_AES_128_GCM2 = 7,
    AGORAISH_ENCRYPTION_MODE_AES_256_GCM2 = 8,
    AGORAISH_ENCRYPTION_MODE_END = 9
} agoraish_encryption_mode;

/** Agora's ENCRYPTION_ERROR_TYPE (on_encryption_error). */
typedef enum agoraish_encryption_error_type {
    AGORAISH_ENCRYPTION_ERROR_INTERNAL_FAILURE = 0,
    AGORAISH_ENCRYPTION_ERROR_DECRYPTION_FAILURE = 1,
    AGORAISH_ENCRYPTION_ERROR_ENCRYPTION_FAILURE = 2,
    AGORAISH_ENCRYPTION_ERROR_DATASTREAM_DECRYPTION_FAILURE = 3,
    AGORAISH_ENCRYPTION_ERROR_DATASTREAM_ENCRYPTION_FAILURE = 4
} agoraish_encryption_error_type;

/** Agora's EncryptionConfig. */
typedef struct agoraish_encryption_config {
    /** Set to sizeof(agoraish_encryption_config). */
    uint32_t struct_size;
    /** An `agoraish_encryption_mode`. */
    int encryption_mode;
    /** The key: a non-empty UTF-8 string of at most 128 bytes (32 random bytes, hex or
     *  base64, recommended). Copied. */
    const char *encryption_key;
    /** The KDF salt of the GCM2 modes: 32 bytes, not all zero (ignored by the others). */
    uint8_t encryption_kdf_salt[32];
} agoraish_encryption_config;

/**
 * Turn the built-in end-to-end encryption on or off (Agora's
 * enableEncryption). Senders encrypt each audio, video and data payload;
 * the server forwards what it cannot read (SRTP still protects each hop);
 * receivers with the same mode, key and salt decrypt, and drop with
 * on_encryption_error what they cannot. Call it before joining (it takes
 * effect for the next packets); every user of a channel must use the same
 * settings. Kept across calls.
 * @param config  Required when `enabled` is nonzero (ignored otherwise; may be NULL).
 * @return 0; -2 NULL config or key, a struct_size no minor had, an unknown mode,
 *         an empty, too long or not UTF-8 key, or a GCM2 mode with an all-zero salt; -4 a
 *         mode this OpenSSL lacks; -7 bad handle. Thread: any.
 */
int agoraish_engine_enable_encryption(agoraish_engine_t *engine, int enabled, const agoraish_encryption_config *config);

/**
 * Deprecated (Agora's setEncryptionSecret): a non-empty secret turns the
 * encryption on with the mode of agoraish_engine_set_encryption_mode()
 * ("aes-128-xts" unless set); NULL or "" turns it off. Cleared when leaving
 * the channel.
 * @return 0; -2 a secret above 128 bytes or not UTF-8; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_encryption_secret(agoraish_engine_t *engine, const char *secret);

/**
 * Deprecated (Agora's setEncryptionMode): the mode of the secret, by name:
 * "aes-128-xts" (also NULL or ""), "aes-128-ecb", "aes-256-xts", "sm4-128-ecb",
 * "aes-128-gcm", "aes-256-gcm". The GCM2 modes need a salt: use
 * agoraish_engine_enable_encryption().
 * @return 0; -2 another name; -4 a mode this OpenSSL lacks; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_encryption_mode(agoraish_engine_t *engine, const char *mode);

/** Agora's Packet: the payload of one media packet. */
typedef struct agoraish_packet {
    /** The payload (audio: the Opus packet; video: what follows the RTP payload
     *  descriptor, and in a VP8 packet that starts a frame also the frame tag's first
     *  byte, which stays readable for the server). A callback may point it at its own
     *  memory, which must stay valid until the next callback of the same kind (the
     *  library copies it just after the callback returns), or until the observer is
     *  replaced. */
    const uint8_t *buffer;
    /** Bytes at `buffer`; a callback may change it, growing the payload by at most
     *  AGORAISH_PACKET_OBSERVER_MAX_GROWTH bytes (more drops the packet). */
    uint32_t size;
} agoraish_packet;

/** How many bytes a packet observer may add to a payload. */
#define AGORAISH_PACKET_OBSERVER_MAX_GROWTH 64

/**
 * A packet observer (Agora's IPacketObserver), for the host's own
 * encryption: each callback sees one packet's payload and may replace it;
 * it returns nonzero to send (receive) the packet, 0 to drop it. On the way
 * out the observer runs before the built-in encryption, on the way in after
 * it. Send callbacks run on the thread that encodes (audio: the pushing or
 * audio device thread; video: the video thread), receive callbacks on the
 * engine's network thread; callbacks of one kind never overlap.
 */
typedef struct agoraish_packet_observer {
    /** Set to sizeof(agoraish_packet_observer). */
    uint32_t struct_size;
    /** Passed back unchanged to every callback. Owned by the host. */
    void *user_data;
    int (*on_send_audio_packet)(agoraish_engine_t *engine, void *user_data, agoraish_packet *packet);
    int (*on_send_video_packet)(agoraish_engine_t *engine, void *user_data, agoraish_packet *packet);
    int (*on_receive_audio_packet)(agoraish_engine_t *engine, void *user_data, agoraish_packet *packet);
    int (*on_receive_video_packet)(agoraish_engine_t *engine, void *user_data, agoraish_packet *packet);
} agoraish_packet_observer;

/**
 * Register (NULL: unregister) a packet observer (Agora's registerPacketObserver).
 * The struct is copied; packets made after the call returns see the new observer.
 * @return 0; -2 a struct_size no minor had; -7 bad handle. Thread: any.
 */
int agoraish_engine_register_packet_observer(agoraish_engine_t *engine, const agoraish_packet_observer *observer);

/* ------------------------------------------------------------------------ */
/* Connections: several channels per engine (ABI 0.11)                      */
/* ------------------------------------------------------------------------ */

/**
 * One channel membership of an engine (Agora's RtcConnection): a channel and
 * the local uid joined with. An engine's own join (`agoraish_engine_join_channel*`)
 * is one connection; `agoraish_engine_join_channel_ex()` adds more, in other
 * channels or in the same channel with another uid. A connection is named by
 * what the host passed: `local_uid` 0 (the server picks the uid) names the
 * connection joined with 0.
 *
 * Each connection has its own signaling session, media transport, jitter
 * buffers, encoders, encryption, data streams and statistics. The engine's
 * audio device is shared: capture goes to every connection that publishes the
 * microphone, and the remote audio of all connections is mixed for playout.
 * The camera (or external video source) and the raw audio/video observers
 * belong to the engine's own connection.
 */
typedef struct agoraish_rtc_connection {
    /** Set to sizeof(agoraish_rtc_connection). */
    uint32_t struct_size;
    /** The channel name (the rules of `agoraish_engine_join_channel()`). Copied. */
    const char *channel_id;
    /** The local uid (0: the server picks one). */
    uint32_t local_uid;
} agoraish_rtc_connection;

/**
 * What a connection publishes and receives (Agora 4.x ChannelMediaOptions).
 * Each field is optional, as Agora's Optional<>: a field is read only when its
 * `has_` flag is nonzero; an unset field leaves the connection's choice as it
 * is. A connection starts publishing the microphone, subscribing to every
 * user's audio and video, and recording and playing on the device.
 * A connection publishes one audio track: the microphone, or a custom audio
 * track (`agoraish_engine_create_custom_audio_track()`), which replaces it.
 */
typedef struct agoraish_channel_media_options {
    /** Set to sizeof(agoraish_channel_media_options). */
    uint32_t struct_size;
    int has_publish_microphone_track;
    /** Nonzero: publish the microphone (unless a custom audio track is published). */
    int publish_microphone_track;
    int has_publish_camera_track;
    /** Nonzero: publish the camera or external video source. On an `_ex`
     *  connection (ABI 0.12; -2 before): the engine's pictures, fitted and
     *  encoded by that connection with its own encoder configuration; with a
     *  custom video track at once it is -2 (one video track per connection). */
    int publish_camera_track;
    int has_publish_custom_audio_track;
    /** Nonzero: publish the custom audio track `publish_custom_audio_track_id`
     *  (which must then be set, or set earlier); 0: stop publishing it. */
    int publish_custom_audio_track;
    int has_publish_custom_audio_track_id;
    /** A track id from `agoraish_engine_create_custom_audio_track()`. */
    int32_t publish_custom_audio_track_id;
    int has_publish_custom_video_track;
    /** Nonzero: publish the custom video track `custom_video_track_id`
     *  (`agoraish_engine_create_custom_video_track()`) instead of the camera;
     *  0: stop (the connection's video switches return to what they were). */
    int publish_custom_video_track;
    int has_publish_encoded_video_track;
    /** Nonzero: publish the custom encoded video track `custom_video_track_id`
     *  (`agoraish_engine_create_custom_encoded_video_track()`); 0: stop. */
    int publish_encoded_video_track;
    int has_custom_video_track_id;
    /** The custom (or custom encoded) video track published. One video track
     *  per connection: the camera and a custom track at once is -2. */
    int32_t custom_video_track_id;
    int has_auto_subscribe_audio;
    /** Nonzero: receive every remote user's audio; 0: none until
     *  `agoraish_engine_mute_remote_audio_stream(_ex)(uid, 0)` asks for a user. */
    int auto_subscribe_audio;
    int has_auto_subscribe_video;
    /** As `auto_subscribe_audio`, for video. */
    int auto_subscribe_video;
    int has_enable_audio_recording_or_playout;
    /** 0: this connection neither takes the microphone nor plays on the device
     *  (a custom audio track is still sent; remote audio is still received
     *  and reported). */
    int enable_audio_recording_or_playout;
    int has_client_role_type;
    /** An `agoraish_client_role`. */
    int client_role_type;
    int has_channel_profile;
    /** An `agoraish_channel_profile`; before joining only (-5 in a channel). */
    int channel_profile;
    /** NULL: unset. For a join, the token used when the join's `token` is
     *  NULL or ""; for an update, renews the connection's token. Copied. */
    const char *token;
    /* ABI 0.13 */
    int has_publish_media_player_audio_track;
    /** Nonzero: publish the audio of media player `publish_media_player_id`
     *  as the connection's audio track (it replaces the microphone or custom
     *  track: a connection publishes one audio track; to send music with the
     *  microphone use audio mixing); 0: stop. */
    int publish_media_player_audio_track;
    int has_publish_media_player_video_track;
    /** Nonzero: publish the pictures of media player `publish_media_player_id`
     *  as the connection's video track (with the camera or a custom video
     *  track at once it is -2, and so is publish_camera_track 1 while a
     *  player's pictures are published and this is not set to 0); 0: stop. */
    int publish_media_player_video_track;
    int has_publish_media_player_id;
    /** The media player (`agoraish_engine_create_media_player()`) whose tracks are published. */
    int publish_media_player_id;
} agoraish_channel_media_options;

/**
 * Event callbacks of one `_ex` connection (Agora's IRtcEngineEventHandlerEx).
 * Each callback receives the engine, the `user_data` given to
 * `agoraish_engine_join_channel_ex()` and the connection, then the arguments
 * of the callback of the same name in `agoraish_event_handler`, with the same
 * meaning. The connection is the one the host joined (its `local_uid` as
 * given); it is valid only during the callback.
 * Thread: the engine's event thread, in order with the engine's own events.
 * Every callback is optional (NULL: not interested).
 */
typedef struct agoraish_event_handler_ex {
    /** Set to sizeof(agoraish_event_handler_ex). */
    uint32_t struct_size;
    void (*on_join_channel_success)(agoraish_engine_t *engine, void *user_data,
                                    const agoraish_rtc_connection *connection, uint32_t uid, int elapsed);
    void (*on_rejoin_channel_success)(agoraish_engine_t *engine, void *user_data,
                                      const agoraish_rtc_connection *connection, uint32_t uid, int elapsed);
    void (*on_leave_channel)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection,
                             const agoraish_rtc_stats *stats);
    void (*on_user_joined)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection,
                           uint32_t uid, int elapsed);
    void (*on_user_offline)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection,
                            uint32_t uid, int reason);
    void (*on_client_role_changed)(agoraish_engine_t *engine, void *user_data,
                                   const agoraish_rtc_connection *connection, int old_role, int new_role);
    void (*on_connection_state_changed)(agoraish_engine_t *engine, void *user_data,
                                        const agoraish_rtc_connection *connection, int state, int reason);
    void (*on_connection_lost)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection);
    void (*on_token_privilege_will_expire)(agoraish_engine_t *engine, void *user_data,
                                           const agoraish_rtc_connection *connection, const char *token);
    void (*on_request_token)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection);
    void (*on_error)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection,
                     int err, const char *msg);
    void (*on_user_mute_audio)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection,
                               uint32_t uid, int muted);
    void (*on_user_mute_video)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection,
                               uint32_t uid, int muted);
    void (*on_first_local_audio_frame_published)(agoraish_engine_t *engine, void *user_data,
                                                 const agoraish_rtc_connection *connection, int elapsed);
    void (*on_first_remote_audio_decoded)(agoraish_engine_t *engine, void *user_data,
                                          const agoraish_rtc_connection *connection, uint32_t uid, int elapsed);
    void (*on_remote_audio_state_changed)(agoraish_engine_t *engine, void *user_data,
                                          const agoraish_rtc_connection *connection, uint32_t uid,
                                          int state, int reason, int elapsed);
    void (*on_audio_volume_indication)(agoraish_engine_t *engine, void *user_data,
                                       const agoraish_rtc_connection *connection,
                                       const agoraish_audio_volume_info *speakers, unsigned int speaker_number,
                                       int total_volume);
    void (*on_rtc_stats)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection,
                         const agoraish_rtc_stats *stats);
    void (*on_local_audio_stats)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection,
                                 const agoraish_local_audio_stats *stats);
    void (*on_remote_audio_stats)(agoraish_engine_t *engine, void *user_data,
                                  const agoraish_rtc_connection *connection, const agoraish_remote_audio_stats *stats);
    void (*on_network_quality)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection,
                               uint32_t uid, int tx_quality, int rx_quality);
    void (*on_first_remote_video_decoded)(agoraish_engine_t *engine, void *user_data,
                                          const agoraish_rtc_connection *connection, uint32_t uid, int width,
                                          int height, int elapsed);
    void (*on_remote_video_state_changed)(agoraish_engine_t *engine, void *user_data,
                                          const agoraish_rtc_connection *connection, uint32_t uid, int state,
                                          int reason, int elapsed);
    void (*on_remote_video_stats)(agoraish_engine_t *engine, void *user_data,
                                  const agoraish_rtc_connection *connection, const agoraish_remote_video_stats *stats);
    void (*on_stream_message)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection,
                              uint32_t uid, int stream_id, const uint8_t *data, size_t length, uint64_t sent_ts);
    void (*on_stream_message_error)(agoraish_engine_t *engine, void *user_data,
                                    const agoraish_rtc_connection *connection, uint32_t uid, int stream_id,
                                    int code, int missed, int cached);
    void (*on_snapshot_taken)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection,
                              uint32_t uid, const char *path, int width, int height, int error);
    void (*on_encryption_error)(agoraish_engine_t *engine, void *user_data,
                                const agoraish_rtc_connection *connection, int error_type);
    void (*on_audio_metadata_received)(agoraish_engine_t *engine, void *user_data,
                                       const agoraish_rtc_connection *connection, uint32_t uid,
                                       const uint8_t *metadata, size_t length);
    void (*on_user_info_updated)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection,
                                 uint32_t uid, const agoraish_user_info *info);
    void (*on_first_remote_audio_frame)(agoraish_engine_t *engine, void *user_data,
                                        const agoraish_rtc_connection *connection, uint32_t uid, int elapsed);
    void (*on_local_audio_state_changed)(agoraish_engine_t *engine, void *user_data,
                                         const agoraish_rtc_connection *connection, int state, int error);
    void (*on_active_speaker)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection,
                              uint32_t uid);
    void (*on_first_local_video_frame_published)(agoraish_engine_t *engine, void *user_data,
                                                 const agoraish_rtc_connection *connection, int elapsed);
    void (*on_video_size_changed)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection,
                                  uint32_t uid, int width, int height, int rotation);
    void (*on_first_local_video_frame)(agoraish_engine_t *engine, void *user_data,
                                       const agoraish_rtc_connection *connection, int width, int height, int elapsed);
    void (*on_first_remote_video_frame)(agoraish_engine_t *engine, void *user_data,
                                        const agoraish_rtc_connection *connection, uint32_t uid, int width,
                                        int height, int elapsed);
    void (*on_user_enable_video)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection,
                                 uint32_t uid, int enabled);
    void (*on_user_enable_local_video)(agoraish_engine_t *engine, void *user_data,
                                       const agoraish_rtc_connection *connection, uint32_t uid, int enabled);
    void (*on_local_video_state_changed)(agoraish_engine_t *engine, void *user_data,
                                         const agoraish_rtc_connection *connection, int state, int error);
    void (*on_local_video_stats)(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_connection *connection,
                                 const agoraish_local_video_stats *stats);
    void (*on_local_publish_fallback_to_audio_only)(agoraish_engine_t *engine, void *user_data,
                                                    const agoraish_rtc_connection *connection,
                                                    int is_fallback_or_recover);
    void (*on_remote_subscribe_fallback_to_audio_only)(agoraish_engine_t *engine, void *user_data,
                                                       const agoraish_rtc_connection *connection, uint32_t uid,
                                                       int is_fallback_or_recover);
} agoraish_event_handler_ex;

/**
 * Join a channel with media options (Agora 4.x joinChannel(token, channelId,
 * uid, options)): applies `options`, then joins as `agoraish_engine_join_channel()`.
 *
 * @param options  Required. Copied.
 * @return  0; the errors of `agoraish_engine_join_channel()`; -2 NULL options,
 *          a struct_size no minor had, an out-of-range field, or an unknown
 *          custom audio track; -17 already in a channel.
 * Thread: any.
 */
int agoraish_engine_join_channel_with_options(agoraish_engine_t *engine, const char *token, const char *channel_id,
                                              uint32_t uid, const agoraish_channel_media_options *options);

/**
 * Change what the engine's own connection publishes and receives (Agora's
 * updateChannelMediaOptions), in a channel or before joining.
 *
 * @return  0; -2 as for the join; -5 channel_profile in a channel;
 *          -113 a token outside a channel; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_update_channel_media_options(agoraish_engine_t *engine,
                                                 const agoraish_channel_media_options *options);

/**
 * Join one more channel (Agora's joinChannelEx): the engine becomes a member
 * of `connection->channel_id` as `connection->local_uid`, besides its own
 * channel and its other connections. Events of the connection go to
 * `handler` (with `user_data`) on the engine's event thread; the engine's
 * own handler does not see them. Release the engine or call
 * `agoraish_engine_leave_channel_ex()` to end it; at most
 * AGORAISH_MAX_CONNECTIONS connections exist besides the engine's own.
 *
 * @param token       NULL or "": none (or `options->token`). Copied.
 * @param connection  Required. Copied.
 * @param options     NULL: the defaults. Copied.
 * @param handler     NULL: no callbacks. The table is copied.
 * @param user_data   Passed back to every callback of `handler`. Owned by the host.
 * @return  0; -2 NULL connection, a bad struct_size or field; -102 bad channel
 *          name; -17 the engine already has this connection (or is itself in
 *          the channel with this uid); -5 AGORAISH_MAX_CONNECTIONS exist;
 *          -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_join_channel_ex(agoraish_engine_t *engine, const char *token,
                                    const agoraish_rtc_connection *connection,
                                    const agoraish_channel_media_options *options,
                                    const agoraish_event_handler_ex *handler, void *user_data);

/** Connections an engine may hold besides its own. */
#define AGORAISH_MAX_CONNECTIONS 16

/**
 * Leave a connection's channel (Agora's leaveChannelEx): on_leave_channel
 * then on_connection_state_changed(DISCONNECTED) reach its handler, and the
 * connection ends. Naming the engine's own channel and uid is
 * `agoraish_engine_leave_channel()`. Other connections are not disturbed.
 *
 * @return  0; -2 NULL or bad connection; -18 no such connection; -7 bad handle.
 * Thread: any, also inside a callback.
 */
int agoraish_engine_leave_channel_ex(agoraish_engine_t *engine, const agoraish_rtc_connection *connection);

/**
 * Change what a connection publishes and receives (Agora's
 * updateChannelMediaOptionsEx). The errors of
 * `agoraish_engine_update_channel_media_options()`; -2 for a connection the
 * engine does not have.
 */
int agoraish_engine_update_channel_media_options_ex(agoraish_engine_t *engine,
                                                    const agoraish_channel_media_options *options,
                                                    const agoraish_rtc_connection *connection);

/*
 * The `_ex` twins below do what the function of the same name without `_ex`
 * does, for the connection named last: one joined with
 * `agoraish_engine_join_channel_ex()`, or the engine's own connection when
 * it names the engine's channel and uid. They return what that function
 * returns, and -2 for a NULL connection, a bad struct_size or a connection
 * the engine does not have. Thread: any.
 */

/** getConnectionStateEx: an `agoraish_connection_state`, or a negative error. */
int agoraish_engine_get_connection_state_ex(agoraish_engine_t *engine, const agoraish_rtc_connection *connection);
/** getCallIdEx. */
int agoraish_engine_get_call_id_ex(agoraish_engine_t *engine, char *buf, size_t *len,
                                   const agoraish_rtc_connection *connection);
/** getUserInfoByUidEx. */
int agoraish_engine_get_user_info_by_uid_ex(agoraish_engine_t *engine, uint32_t uid, agoraish_user_info *info,
                                            const agoraish_rtc_connection *connection);
/** getUserInfoByUserAccountEx. */
int agoraish_engine_get_user_info_by_user_account_ex(agoraish_engine_t *engine, const char *user_account,
                                                     agoraish_user_info *info,
                                                     const agoraish_rtc_connection *connection);
/** muteLocalAudioStreamEx. */
int agoraish_engine_mute_local_audio_stream_ex(agoraish_engine_t *engine, int mute,
                                               const agoraish_rtc_connection *connection);
/** muteRemoteAudioStreamEx. */
int agoraish_engine_mute_remote_audio_stream_ex(agoraish_engine_t *engine, uint32_t uid, int mute,
                                                const agoraish_rtc_connection *connection);
/** muteAllRemoteAudioStreamsEx. */
int agoraish_engine_mute_all_remote_audio_streams_ex(agoraish_engine_t *engine, int mute,
                                                     const agoraish_rtc_connection *connection);
/** adjustUserPlaybackSignalVolumeEx. */
int agoraish_engine_adjust_user_playback_signal_volume_ex(agoraish_engine_t *engine, uint32_t uid, int volume,
                                                          const agoraish_rtc_connection *connection);
/** muteRemoteVideoStreamEx. */
int agoraish_engine_mute_remote_video_stream_ex(agoraish_engine_t *engine, uint32_t uid, int mute,
                                                const agoraish_rtc_connection *connection);
/** muteAllRemoteVideoStreamsEx. */
int agoraish_engine_mute_all_remote_video_streams_ex(agoraish_engine_t *engine, int mute,
                                                     const agoraish_rtc_connection *connection);
/** setRemoteVideoStreamTypeEx. */
int agoraish_engine_set_remote_video_stream_type_ex(agoraish_engine_t *engine, uint32_t uid, int stream_type,
                                                    const agoraish_rtc_connection *connection);
/** setupRemoteVideoEx: `on_frame` runs on the connection's own video thread. */
int agoraish_engine_setup_remote_video_ex(agoraish_engine_t *engine, const agoraish_video_canvas *canvas,
                                          const agoraish_rtc_connection *connection);
/** takeSnapshotEx: on_snapshot_taken reaches the connection's handler. */
int agoraish_engine_take_snapshot_ex(agoraish_engine_t *engine, uint32_t uid, const char *path,
                                     const agoraish_rtc_connection *connection);
/** createDataStreamEx(streamId, config, connection). */
int agoraish_engine_create_data_stream_ex(agoraish_engine_t *engine, int *stream_id,
                                          const agoraish_data_stream_config *config,
                                          const agoraish_rtc_connection *connection);
/** sendStreamMessageEx. */
int agoraish_engine_send_stream_message_ex(agoraish_engine_t *engine, int stream_id, const void *data, size_t length,
                                           const agoraish_rtc_connection *connection);
/** sendAudioMetadataEx. */
int agoraish_engine_send_audio_metadata_ex(agoraish_engine_t *engine, const void *data, size_t length,
                                           const agoraish_rtc_connection *connection);
/** setVideoEncoderConfigurationEx: the connection's own encoder (its custom video track). */
int agoraish_engine_set_video_encoder_configuration_ex(agoraish_engine_t *engine,
                                                       const agoraish_video_encoder_configuration *config,
                                                       const agoraish_rtc_connection *connection);
/** enableDualStreamModeEx. */
int agoraish_engine_enable_dual_stream_mode_ex(agoraish_engine_t *engine, int enabled,
                                               const agoraish_rtc_connection *connection);
/** setSimulcastConfigEx (ABI 0.12): the connection's own layers. */
int agoraish_engine_set_simulcast_config_ex(agoraish_engine_t *engine, const agoraish_simulcast_config *config,
                                            const agoraish_rtc_connection *connection);
/** muteLocalVideoStreamEx. */
int agoraish_engine_mute_local_video_stream_ex(agoraish_engine_t *engine, int mute,
                                               const agoraish_rtc_connection *connection);
/** setRemoteDefaultVideoStreamTypeEx. */
int agoraish_engine_set_remote_default_video_stream_type_ex(agoraish_engine_t *engine, int stream_type,
                                                            const agoraish_rtc_connection *connection);
/** enableEncryptionEx: each connection has its own key and mode. */
int agoraish_engine_enable_encryption_ex(agoraish_engine_t *engine, int enabled,
                                         const agoraish_encryption_config *config,
                                         const agoraish_rtc_connection *connection);

/* ---- Custom audio tracks ---- */

/** Custom audio track types (Agora's AUDIO_TRACK_TYPE). */
enum agoraish_audio_track_type {
    /** Mixable: in Agora's SDK mixed with other tracks of a connection. */
    AGORAISH_AUDIO_TRACK_MIXABLE = 0,
    /** Direct: sent as pushed. */
    AGORAISH_AUDIO_TRACK_DIRECT = 1
};

/** Custom audio tracks an engine may hold. */
#define AGORAISH_MAX_CUSTOM_AUDIO_TRACKS 32

/**
 * Create a custom audio track (Agora's createCustomAudioTrack): PCM the host
 * pushes with `agoraish_engine_push_external_audio_frame_by_id()` and that
 * any connection publishes by choosing it in its media options
 * (publish_custom_audio_track). A connection publishes one audio track, so
 * both types are sent as pushed, each to every connection publishing it
 * (encoded once per connection).
 *
 * @param track_type  An `agoraish_audio_track_type`.
 * @param track_id    Required: receives the id (1 and up).
 * @return  0; -2 NULL track_id or an unknown type; -5 AGORAISH_MAX_CUSTOM_AUDIO_TRACKS
 *          exist; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_create_custom_audio_track(agoraish_engine_t *engine, int track_type, int32_t *track_id);

/**
 * Destroy a custom audio track (Agora's destroyCustomAudioTrack). Connections
 * that published it publish no audio until their options choose the
 * microphone or another track.
 *
 * @return  0; -2 unknown track; -7 bad handle. Thread: any.
 */
int agoraish_engine_destroy_custom_audio_track(agoraish_engine_t *engine, int32_t track_id);

/**
 * The volume of what is sent of a custom audio track (Agora's
 * adjustCustomAudioPublishVolume), 0..100 (100: as pushed), applied to later pushes.
 *
 * @return  0; -2 unknown track or volume out of range; -7 bad handle. Thread: any.
 */
int agoraish_engine_adjust_custom_audio_publish_volume(agoraish_engine_t *engine, int32_t track_id, int volume);

/**
 * Push PCM into a custom audio track (Agora's pushAudioFrame(frame, trackId)):
 * interleaved 16-bit samples at `sample_rate` with `channels`. Every
 * connection that publishes the track queues it and sends it in real time,
 * as `agoraish_engine_push_external_audio_frame()` describes; with no
 * publisher the audio is dropped.
 *
 * @param samples              Required unless `samples_per_channel` is 0; read during the call only.
 * @param samples_per_channel  0..sample_rate (one second at most per call).
 * @param sample_rate          8000, 16000, 32000, 44100 or 48000.
 * @param channels             1 or 2.
 * @return  0; -2 unknown track, NULL samples or a value out of range (or a
 *          push of another format into the same track at the same moment);
 *          -5 inside an audio observer callback; -7 bad handle.
 * Thread: any (pushes from several threads are serialized per connection).
 */
int agoraish_engine_push_external_audio_frame_by_id(agoraish_engine_t *engine, int32_t track_id,
                                                    const int16_t *samples, int samples_per_channel,
                                                    int sample_rate, int channels);

/* ---- Custom video tracks and encoded video ---- */

/** Custom video tracks (raw and encoded together) an engine may hold. */
#define AGORAISH_MAX_CUSTOM_VIDEO_TRACKS 32

/**
 * Create a custom video track (Agora's createCustomVideoTrack): pictures the
 * host pushes with `agoraish_engine_push_external_video_frame_by_id()` and
 * that connections publish by choosing it in their media options
 * (publish_custom_video_track with custom_video_track_id). Each publishing
 * connection converts, fits and encodes the pictures as an external video
 * source does (its own encoder configuration, congestion control and
 * dual stream).
 *
 * @param track_id  Required: receives the id (1 and up).
 * @return  0; -2 NULL track_id; -5 AGORAISH_MAX_CUSTOM_VIDEO_TRACKS exist; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_create_custom_video_track(agoraish_engine_t *engine, int32_t *track_id);

/**
 * Destroy a custom (or custom encoded) video track (Agora's
 * destroyCustomVideoTrack): connections that published it return to the
 * video they had before.
 *
 * @return  0; -2 unknown track; -7 bad handle. Thread: any.
 */
int agoraish_engine_destroy_custom_video_track(agoraish_engine_t *engine, int32_t track_id);

/**
 * Push a picture into a custom video track (Agora's pushVideoFrame(frame,
 * videoTrackId)), for every connection publishing it; with no publisher it
 * is dropped.
 *
 * @return  0; -2 unknown or encoded track, or what
 *          `agoraish_engine_push_external_video_frame()` refuses in `frame`;
 *          -7 bad handle.
 * Thread: any (pushes are serialized per connection).
 */
int agoraish_engine_push_external_video_frame_by_id(agoraish_engine_t *engine,
                                                    const agoraish_external_video_frame *frame, int32_t track_id);

/** Video frame types (Agora's VIDEO_FRAME_TYPE). */
enum agoraish_video_frame_type {
    AGORAISH_VIDEO_FRAME_TYPE_KEY_FRAME = 3,   /**< Decodes on its own. */
    AGORAISH_VIDEO_FRAME_TYPE_DELTA_FRAME = 4  /**< Needs the frames before it. */
};

/** What is known of an encoded video frame (Agora's EncodedVideoFrameInfo). */
typedef struct agoraish_encoded_video_frame_info {
    /** Set to sizeof(agoraish_encoded_video_frame_info). */
    uint32_t struct_size;
    /** An `agoraish_video_codec_type`: VP8 or VP9. */
    int codec_type;
    /** The picture size (0..16384); received: 0 where the frame does not carry it
     *  (delta frames, VP9). */
    int width;
    int height;
    /** An `agoraish_video_frame_type`. */
    int frame_type;
    /** 0, 90, 180 or 270 (pushed frames; received frames report 0). */
    int rotation;
    /** Pushed: the capture time in ms (any origin, increasing; the RTP
     *  timestamps follow it). Received: the RTP timestamp in ms. */
    int64_t capture_time_ms;
    /** Received: the sender. */
    uint32_t uid;
} agoraish_encoded_video_frame_info;

/**
 * Create a custom encoded video track (Agora's createCustomEncodedVideoTrack):
 * VP8 or VP9 frames encoded by the host, pushed with
 * `agoraish_engine_push_external_encoded_video_frame()` and sent unchanged
 * (packetized per RFC 7741 / RFC 9628) by every connection publishing it
 * (publish_encoded_video_track with custom_video_track_id). Receivers'
 * keyframe requests do not reach the host: send a keyframe every few seconds.
 * Destroy it with `agoraish_engine_destroy_custom_video_track()`.
 *
 * @return  0; -2 NULL track_id; -5 AGORAISH_MAX_CUSTOM_VIDEO_TRACKS exist; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_create_custom_encoded_video_track(agoraish_engine_t *engine, int32_t *track_id);

/** The largest encoded frame a push takes. */
#define AGORAISH_MAX_ENCODED_VIDEO_FRAME_BYTES (4 * 1024 * 1024)

/**
 * Push one encoded frame into a custom encoded video track (Agora's
 * pushEncodedVideoImage / pushExternalEncodedVideoFrame). It leaves at once
 * in a call, for every connection that publishes the track and sends video.
 *
 * @param data    The frame (1..AGORAISH_MAX_ENCODED_VIDEO_FRAME_BYTES bytes); read during the call only.
 * @param info    Required: codec, frame type, size, capture time.
 * @return  The number of connections that sent it (0 outside a call or with
 *          no publisher); -2 unknown or raw track, NULL or empty data, a bad
 *          `info`; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_push_external_encoded_video_frame(agoraish_engine_t *engine, const uint8_t *data, size_t length,
                                                      const agoraish_encoded_video_frame_info *info,
                                                      int32_t track_id);

/**
 * Sees each remote video frame before it is decoded (Agora's
 * IVideoEncodedFrameObserver), in every connection of the engine.
 */
typedef struct agoraish_video_encoded_frame_observer {
    /** Set to sizeof(agoraish_video_encoded_frame_observer). */
    uint32_t struct_size;
    /** Passed back unchanged. Owned by the host. */
    void *user_data;
    /** One frame as received (descriptors removed), in order per stream,
     *  before decoding; `data` is valid during the call. Thread: the
     *  receiving connection's video thread. */
    void (*on_encoded_video_frame_received)(agoraish_engine_t *engine, void *user_data, uint32_t uid,
                                            const uint8_t *data, size_t length,
                                            const agoraish_encoded_video_frame_info *info);
} agoraish_video_encoded_frame_observer;

/**
 * Register (NULL: unregister) the encoded frame observer (Agora's
 * registerVideoEncodedFrameObserver). The struct is copied. After
 * unregistering returns, no callback runs (unless called from one).
 *
 * @return  0; -2 a struct_size no minor had; -7 bad handle. Thread: any.
 */
int agoraish_engine_register_video_encoded_frame_observer(agoraish_engine_t *engine,
                                                          const agoraish_video_encoded_frame_observer *observer);

/* ------------------------------------------------------------------------ */
/* Embedded channel server                                                   */
/* ------------------------------------------------------------------------ */

/** A channel server running inside the host process. Opaque handle. */
typedef struct agoraish_server agoraish_server_t;

/** How to create an embedded server. A zeroed struct (with struct_size set)
 *  serves on 127.0.0.1, on a free port, with no HTTP endpoint, accepting any
 *  app id an engine accepts, without a token (testing mode). The UDP media
 *  port has the signaling port's number (or a free one if that is taken).
 *  On loopback (127.x, ::1, "localhost") every client shares one address,
 *  so each per-address budget is raised to its server-wide counterpart
 *  (1000 joins a second instead of 20, docs/server.md "Limits and abuse");
 *  a limit that `config_json` sets keeps its value. On another host the
 *  standalone server's budgets apply. */
typedef struct agoraish_server_config {
    /** Set to sizeof(agoraish_server_config). */
    uint32_t struct_size;
    /** Listen address; NULL or "" is 127.0.0.1. Copied. */
    const char *host;
    /** Signaling port; 0 picks a free port (read it back with `agoraish_server_get_url()`). */
    int32_t signaling_port;
    /** HTTP port for /metrics and /status: -1 a free port, a positive value that
     *  port, 0 what `config_json` says (no HTTP when it says nothing). */
    int32_t http_port;
    /** Optional configuration document (the JSON of docs/server.md), applied
     *  first; `host` and the ports above override its listen section when set.
     *  When it registers apps, only those apps are accepted unless it also sets
     *  "accept_unknown_apps": true. Copied. */
    const char *config_json;
} agoraish_server_config;

/**
 * Create an embedded server (not yet listening).
 *
 * @return  A handle owned by the caller (release with `agoraish_server_release()`),
 *          or NULL with `agoraish_get_last_error()`: -2 bad config or JSON
 *          (a TLS certificate without its key or the other way round included;
 *          `agoraish_get_last_error_detail()` says which).
 * Thread: any.
 */
agoraish_server_t *agoraish_server_create(const agoraish_server_config *config);

/**
 * Bind and start serving on the server's own thread.
 *
 * @return  0; -8 already running; -13 a port cannot be bound; -7/-2 bad handle.
 * Thread: any.
 */
int agoraish_server_start(agoraish_server_t *server);

/**
 * Stop serving: every connection is closed (clients see the link break and
 * start reconnecting). Returns after the server threads have ended. A stopped
 * server can be started again; sessions survive within the drop timeout, so
 * clients resume them (ports may differ when they were chosen freely).
 *
 * @return  0 (also when not running); -7/-2 bad handle.
 * Thread: any.
 */
int agoraish_server_stop(agoraish_server_t *server);

/**
 * Stop if running and free the server. Idempotent like engine release.
 *
 * @return  0; -7 NULL; -2 a handle of another type.
 * Thread: any.
 */
int agoraish_server_release(agoraish_server_t *server);

/**
 * The URL engines use to reach the server, "ws://host:port" (pass it as
 * `agoraish_engine_config.server_url`), into a caller buffer.
 *
 * @return  0; -3 not running; -2 NULL len; -6 buffer too small; -7/-2 bad handle.
 * Thread: any.
 */
int agoraish_server_get_url(agoraish_server_t *server, char *buf, size_t *len);

/**
 * The bound HTTP port (/metrics, /status), or 0 when disabled.
 *
 * @return  The port (>= 0); -3 not running; -7/-2 bad handle.
 * Thread: any.
 */
int agoraish_server_get_http_port(agoraish_server_t *server);

/* ------------------------------------------------------------------------ */
/* Media player (Agora's IMediaPlayer), ABI 0.13                             */
/* ------------------------------------------------------------------------ */

/*
 * A media player plays a file or URL in real time with FFmpeg's libraries:
 * local files (MP4, WebM, MKV, Ogg, WAV, MP3, FLAC, ... and the codecs
 * FFmpeg decodes) and http(s)://, HLS (.m3u8) and rtmp:// URLs. Its audio
 * is played locally (mixed into the engine's playout: the device while the
 * engine is in a call, or the external sink whenever the host pulls) and
 * its pictures go to its canvas; a connection publishes
 * them by choosing the player in its media options
 * (publish_media_player_audio_track / _video_track with
 * publish_media_player_id), so remote users see and hear the file.
 *
 * Each player has a thread of its own ("agoraish-mp<n>"): calls return at
 * once and are carried out on it in order, and each call is checked against
 * the state the calls before it lead to. Packets are read ahead on another
 * thread ("agoraish-rd"), so a slow network never stops playback: it reports
 * BUFFER_LOW and fails only when a read fails or waits 5 s; opening a URL
 * holds the player's thread (at most 10 s to connect). Audio is the master clock:
 * pictures follow the audio's position, so both stay in sync across pauses,
 * seeks, loops and speed changes.
 *
 * Players are named by an id (1 and up) within their engine. Every function
 * returns 0 or a negated error code: -2 an unknown player id or a bad
 * argument, -7 a bad engine handle, -8 a call that does not fit the
 * player's state (a getter before the source opened).
 */

/** Players an engine may hold at once. */
#define AGORAISH_MAX_MEDIA_PLAYERS 16

/** A player's state (Agora's MEDIA_PLAYER_STATE). */
enum agoraish_media_player_state {
    AGORAISH_PLAYER_STATE_IDLE = 0,                         /**< Nothing opened. */
    AGORAISH_PLAYER_STATE_OPENING = 1,                      /**< open() was called; the source is being opened. */
    AGORAISH_PLAYER_STATE_OPEN_COMPLETED = 2,               /**< Opened: ready to play. */
    AGORAISH_PLAYER_STATE_PLAYING = 3,
    AGORAISH_PLAYER_STATE_PAUSED = 4,
    AGORAISH_PLAYER_STATE_PLAYBACK_COMPLETED = 5,           /**< The end was reached (then ALL_LOOPS_COMPLETED). */
    AGORAISH_PLAYER_STATE_PLAYBACK_ALL_LOOPS_COMPLETED = 6, /**< Every loop played; play() starts again from 0. */
    AGORAISH_PLAYER_STATE_STOPPED = 7,                      /**< stop(): the source is closed. */
    AGORAISH_PLAYER_STATE_FAILED = 100                      /**< Opening or reading failed (the reason says why). */
};

/** Why a player's state changed (Agora's MEDIA_PLAYER_REASON). */
enum agoraish_media_player_reason {
    AGORAISH_PLAYER_REASON_NONE = 0,
    AGORAISH_PLAYER_REASON_INVALID_ARGUMENTS = -1,
    AGORAISH_PLAYER_REASON_INTERNAL = -2,
    AGORAISH_PLAYER_REASON_NO_RESOURCE = -3,
    AGORAISH_PLAYER_REASON_INVALID_MEDIA_SOURCE = -4,  /**< Not a media file (random bytes, truncated headers). */
    AGORAISH_PLAYER_REASON_UNKNOWN_STREAM_TYPE = -5,   /**< No audio or video stream. */
    AGORAISH_PLAYER_REASON_CODEC_NOT_SUPPORTED = -7,   /**< No decoder for any stream. */
    AGORAISH_PLAYER_REASON_URL_NOT_FOUND = -10,        /**< Missing file, refused connection, HTTP 404. */
    AGORAISH_PLAYER_REASON_INTERRUPTED = -13           /**< A read timed out, or the connection was reset or broke. */
};

/** Events of a player (Agora's MEDIA_PLAYER_EVENT). */
enum agoraish_media_player_event {
    AGORAISH_PLAYER_EVENT_SEEK_BEGIN = 0,
    AGORAISH_PLAYER_EVENT_SEEK_COMPLETE = 1,
    AGORAISH_PLAYER_EVENT_SEEK_ERROR = 2,        /**< The source cannot seek (a live stream) or the seek failed. */
    AGORAISH_PLAYER_EVENT_AUDIO_TRACK_CHANGED = 5,
    AGORAISH_PLAYER_EVENT_BUFFER_LOW = 6,        /**< Audio ran out before its time (the network is late). */
    AGORAISH_PLAYER_EVENT_BUFFER_RECOVER = 7,    /**< Audio flows again. */
    AGORAISH_PLAYER_EVENT_FIRST_DISPLAYED = 13   /**< The first picture went to the canvas and observers. */
};

/** A stream's kind (Agora's MEDIA_STREAM_TYPE). */
enum agoraish_media_stream_type {
    AGORAISH_MEDIA_STREAM_TYPE_UNKNOWN = 0,
    AGORAISH_MEDIA_STREAM_TYPE_VIDEO = 1,
    AGORAISH_MEDIA_STREAM_TYPE_AUDIO = 2,
    AGORAISH_MEDIA_STREAM_TYPE_SUBTITLE = 3
};

/** One stream of an opened source (Agora's PlayerStreamInfo). */
typedef struct agoraish_player_stream_info {
    /** Set to sizeof(agoraish_player_stream_info). */
    uint32_t struct_size;
    int stream_index;           /**< The index in the container (what select_audio_track takes). */
    int stream_type;            /**< An `agoraish_media_stream_type`. */
    char codec_name[32];        /**< FFmpeg's codec name ("h264", "vp8", "aac", "opus", ...). */
    char language[32];          /**< The language tag, "" when none. */
    int video_frame_rate;
    int video_bit_rate;         /**< Kbps, 0 when unknown. */
    int video_width;
    int video_height;
    int video_rotation;         /**< Always 0. */
    int audio_sample_rate;
    int audio_channels;
    int audio_bits_per_sample;  /**< 0 for compressed audio. */
    int64_t duration;           /**< Ms, 0 when unknown. */
} agoraish_player_stream_info;

/**
 * A player's events (Agora's IMediaPlayerSourceObserver). NULL callbacks are
 * skipped. Thread: the engine's event thread, in order with its other events.
 */
typedef struct agoraish_media_player_observer {
    /** Set to sizeof(agoraish_media_player_observer). */
    uint32_t struct_size;
    /** Passed back unchanged. Owned by the host. */
    void *user_data;
    /** onPlayerSourceStateChanged: an `agoraish_media_player_state` and an `agoraish_media_player_reason`. */
    void (*on_player_source_state_changed)(agoraish_engine_t *engine, void *user_data, int player_id,
                                           int state, int reason);
    /** onPositionChanged: every second while playing; `timestamp_ms` on the engine's monotonic clock. */
    void (*on_position_changed)(agoraish_engine_t *engine, void *user_data, int player_id, int64_t position_ms,
                                int64_t timestamp_ms);
    /** onPlayerEvent: an `agoraish_media_player_event`, the position (ms) and a message ("" or
     *  text; valid during the call). */
    void (*on_player_event)(agoraish_engine_t *engine, void *user_data, int player_id, int event,
                            int64_t elapsed_time, const char *message);
    /** onPlayBufferUpdated: ms of audio decoded ahead, every second while playing. */
    void (*on_play_buffer_updated)(agoraish_engine_t *engine, void *user_data, int player_id,
                                   int64_t play_cached_buffer);
    /** onCompleted: the last loop ended. */
    void (*on_completed)(agoraish_engine_t *engine, void *user_data, int player_id);
} agoraish_media_player_observer;

/** A player's audio as it plays (Agora's IAudioPcmFrameSink on the player). */
typedef struct agoraish_media_player_audio_frame_observer {
    /** Set to sizeof(agoraish_media_player_audio_frame_observer). */
    uint32_t struct_size;
    void *user_data;
    /** Each 10 ms at 48 kHz stereo, after speed and pitch, before volumes; read-only.
     *  Thread: the player's ("agoraish-mp<n>"). */
    void (*on_frame)(agoraish_engine_t *engine, void *user_data, int player_id, const agoraish_audio_frame *frame);
} agoraish_media_player_audio_frame_observer;

/** A player's pictures as they are shown (Agora's IVideoFrameObserver on the player). */
typedef struct agoraish_media_player_video_frame_observer {
    /** Set to sizeof(agoraish_media_player_video_frame_observer). */
    uint32_t struct_size;
    void *user_data;
    /** Each picture when its time comes, I420 at the source's size (with `alpha_buffer`
     *  when the source has alpha); read-only. Thread: the player's. */
    void (*on_frame)(agoraish_engine_t *engine, void *user_data, int player_id, const agoraish_video_frame *frame);
} agoraish_media_player_video_frame_observer;

/**
 * Create a media player (Agora's createMediaPlayer).
 * @param player_id  Required: receives the id (1 and up).
 * @return  0; -2 NULL player_id; -5 AGORAISH_MAX_MEDIA_PLAYERS exist; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_create_media_player(agoraish_engine_t *engine, int *player_id);

/**
 * Destroy a media player (Agora's destroyMediaPlayer): it stops, its thread
 * ends, and connections publishing it publish nothing in its place. No
 * callback of it runs after the call returns (unless made from the player's
 * own callback, which then finishes first).
 * @return  0; -2 unknown player; -7 bad handle. Thread: any.
 */
int agoraish_engine_destroy_media_player(agoraish_engine_t *engine, int player_id);

/**
 * Open a file or URL (open): OPENING (reported from the player's thread, in
 * order with the states of earlier calls; `get_state` says OPENING at once),
 * then OPEN_COMPLETED or FAILED with a reason, through the observer. Opening
 * again replaces the source; an open overtaken by a later open or stop before
 * it began reports nothing.
 * @param url        A path, file://, http(s)://, an HLS playlist or rtmp://; copied. 1..4095 bytes.
 * @param start_pos  Ms to start at (0..; ignored for a live source).
 * @return  0; -2 unknown player, NULL or empty url, negative start_pos; -7 bad handle.
 * Thread: any.
 */
int agoraish_media_player_open(agoraish_engine_t *engine, int player_id, const char *url, int64_t start_pos);

/** Play (play): from OPEN_COMPLETED or PAUSED; after ALL_LOOPS_COMPLETED from the start.
 *  @return 0; -2 unknown player; -8 nothing opened; -7 bad handle. Thread: any. */
int agoraish_media_player_play(agoraish_engine_t *engine, int player_id);
/** Pause (pause). @return 0; -2; -8 not playing; -7. Thread: any. */
int agoraish_media_player_pause(agoraish_engine_t *engine, int player_id);
/** Resume after pause (resume). @return 0; -2; -8 not paused; -7. Thread: any. */
int agoraish_media_player_resume(agoraish_engine_t *engine, int player_id);
/** Stop and close the source (stop): state STOPPED. @return 0; -2; -7. Thread: any. */
int agoraish_media_player_stop(agoraish_engine_t *engine, int player_id);

/**
 * Seek (seek): to `position_ms`, exactly (decoding resumes at the keyframe
 * before it and output starts at the position); events SEEK_BEGIN then
 * SEEK_COMPLETE or SEEK_ERROR (a live source).
 * @return 0; -2 unknown player or negative position; -8 nothing opened; -7. Thread: any.
 */
int agoraish_media_player_seek(agoraish_engine_t *engine, int player_id, int64_t position_ms);

/** Loops after the first play (setLoopCount): 0 plays once, n plays n + 1 times, -1 forever.
 *  @return 0; -2 unknown player or below -1; -7. Thread: any. */
int agoraish_media_player_set_loop_count(agoraish_engine_t *engine, int player_id, int loop_count);

/** The source's duration in ms, 0 for a live source (getDuration).
 *  @return 0; -2 unknown player or NULL; -8 nothing opened; -7. Thread: any. */
int agoraish_media_player_get_duration(agoraish_engine_t *engine, int player_id, int64_t *duration_ms);
/** The position in ms (getPlayPosition). @return 0; -2; -8 nothing opened; -7. Thread: any. */
int agoraish_media_player_get_play_position(agoraish_engine_t *engine, int player_id, int64_t *position_ms);
/** The state (getState): an `agoraish_media_player_state`. @return 0; -2; -7. Thread: any. */
int agoraish_media_player_get_state(agoraish_engine_t *engine, int player_id, int *state);
/** The number of streams of the source (getStreamCount). @return 0; -2; -8 nothing opened; -7. */
int agoraish_media_player_get_stream_count(agoraish_engine_t *engine, int player_id, int64_t *count);
/** One stream (getStreamInfo); `info->struct_size` set by the caller.
 *  @return 0; -2 unknown player, NULL, bad struct_size or index out of range; -8 nothing opened; -7. */
int agoraish_media_player_get_stream_info(agoraish_engine_t *engine, int player_id, int64_t index,
                                          agoraish_player_stream_info *info);
/** Decode audio stream `index` (a stream_index of type AUDIO) from now on (selectAudioTrack);
 *  event AUDIO_TRACK_CHANGED. @return 0; -2 unknown player or not an audio stream; -8 nothing opened; -7. */
int agoraish_media_player_select_audio_track(agoraish_engine_t *engine, int player_id, int index);

/**
 * Playback speed in percent (setPlaybackSpeed): 30..400, 100 normal. Audio
 * keeps its pitch (Rubber Band time stretching); pictures follow.
 * @return 0; -2 unknown player or out of range; -7. Thread: any.
 */
int agoraish_media_player_set_playback_speed(agoraish_engine_t *engine, int player_id, int speed);

/** Local playout volume (adjustPlayoutVolume) 0..400, 100 as decoded. @return 0; -2; -7. */
int agoraish_media_player_adjust_playout_volume(agoraish_engine_t *engine, int player_id, int volume);
/** The local playout volume (getPlayoutVolume). @return 0; -2; -7. */
int agoraish_media_player_get_playout_volume(agoraish_engine_t *engine, int player_id, int *volume);
/** Published volume (adjustPublishSignalVolume) 0..400, 100 as decoded. @return 0; -2; -7. */
int agoraish_media_player_adjust_publish_signal_volume(agoraish_engine_t *engine, int player_id, int volume);
/** The published volume (getPublishSignalVolume). @return 0; -2; -7. */
int agoraish_media_player_get_publish_signal_volume(agoraish_engine_t *engine, int player_id, int *volume);
/** Mute (mute): the player's audio is neither played nor published (pictures go on).
 *  @return 0; -2; -7. Thread: any. */
int agoraish_media_player_mute(agoraish_engine_t *engine, int player_id, int muted);
/** Whether muted (getMute). @return 0; -2; -7. */
int agoraish_media_player_get_mute(agoraish_engine_t *engine, int player_id, int *muted);

/**
 * Bind the player's canvas (setView; NULL or a NULL `on_frame`: unbind):
 * `on_frame` gets each picture with uid 0, fitted to the view size by
 * `render_mode` when one is set, mirrored when `mirror_mode` is 1 (ENABLED;
 * 0 AUTO and 2 leave it as it is), with its alpha plane when the source has
 * one. Thread: the player's.
 * @return 0; -2 unknown player or bad struct_size; -7. Thread: any.
 */
int agoraish_media_player_set_view(agoraish_engine_t *engine, int player_id, const agoraish_video_canvas *canvas);
/** The canvas's RENDER_MODE_TYPE (setRenderMode): 1 HIDDEN, 2 FIT, 3 ADAPTIVE (as HIDDEN), 4 FILL.
 *  @return 0; -2 unknown player or mode; -7. */
int agoraish_media_player_set_render_mode(agoraish_engine_t *engine, int player_id, int render_mode);

/** Register (NULL: unregister) the player's event observer (registerPlayerSourceObserver).
 *  The struct is copied. @return 0; -2 unknown player or bad struct_size; -7. Thread: any. */
int agoraish_media_player_register_player_source_observer(agoraish_engine_t *engine, int player_id,
                                                          const agoraish_media_player_observer *observer);
/** Register (NULL: unregister) the player's audio frame observer (registerAudioFrameObserver).
 *  @return 0; -2; -7. Thread: any. */
int agoraish_media_player_register_audio_frame_observer(agoraish_engine_t *engine, int player_id,
                                                        const agoraish_media_player_audio_frame_observer *observer);
/** Register (NULL: unregister) the player's video frame observer (registerVideoFrameObserver).
 *  @return 0; -2; -7. Thread: any. */
int agoraish_media_player_register_video_frame_observer(agoraish_engine_t *engine, int player_id,
                                                        const agoraish_media_player_video_frame_observer *observer);

/* ------------------------------------------------------------------------ */
/* Audio mixing and audio effects (ABI 0.13)                                 */
/* ------------------------------------------------------------------------ */

/*
 * Audio mixing plays one music file or URL into the engine's audio: what the
 * engine's connection publishes (the microphone or its custom audio track,
 * with the music mixed in) and what it plays locally. Audio effects are
 * short sounds identified by a sound id, any number at once (up to
 * AGORAISH_MAX_AUDIO_EFFECTS), each published or local only. Both decode
 * with FFmpeg's libraries on threads of their own; calls return at once and
 * states arrive on the event thread (on_audio_mixing_state_changed,
 * on_audio_effect_finished). Pitch and speed changes go through Rubber Band.
 * Music and effects are heard by remote users only while the engine's own
 * connection publishes audio.
 */

/** States of audio mixing (Agora's AUDIO_MIXING_STATE_TYPE). */
enum agoraish_audio_mixing_state {
    AGORAISH_AUDIO_MIXING_STATE_PLAYING = 710,
    AGORAISH_AUDIO_MIXING_STATE_PAUSED = 711,
    AGORAISH_AUDIO_MIXING_STATE_STOPPED = 713,
    AGORAISH_AUDIO_MIXING_STATE_FAILED = 714
};

/** Why audio mixing changed state (Agora's AUDIO_MIXING_REASON_TYPE). */
enum agoraish_audio_mixing_reason {
    AGORAISH_AUDIO_MIXING_REASON_OK = 0,
    AGORAISH_AUDIO_MIXING_REASON_CAN_NOT_OPEN = 701,       /**< The file or URL cannot be opened or decoded. */
    AGORAISH_AUDIO_MIXING_REASON_TOO_FREQUENT_CALL = 702,  /**< start within 100 ms of the previous start. */
    AGORAISH_AUDIO_MIXING_REASON_INTERRUPTED_EOF = 703,    /**< Reading stopped before the end. */
    AGORAISH_AUDIO_MIXING_REASON_ONE_LOOP_COMPLETED = 721, /**< One play ended; the next begins. */
    AGORAISH_AUDIO_MIXING_REASON_ALL_LOOPS_COMPLETED = 723,
    AGORAISH_AUDIO_MIXING_REASON_STOPPED_BY_USER = 724,
    AGORAISH_AUDIO_MIXING_REASON_PAUSED_BY_USER = 725,
    AGORAISH_AUDIO_MIXING_REASON_RESUMED_BY_USER = 726
};

/**
 * Start audio mixing (startAudioMixing): PLAYING (reason OK) once the file
 * opened, FAILED with CAN_NOT_OPEN when it cannot. A running mixing is
 * replaced.
 * @param file_path  A path or URL as for the media player; copied.
 * @param loopback   Nonzero: only the local user hears the music (not published).
 * @param cycle      Plays: 1 once, n times, -1 forever (0 is -2).
 * @param start_pos  Ms to start at (0..).
 * @return 0; -2 NULL or empty path, cycle 0 or below -1, negative start_pos;
 *         -12 within 100 ms of the previous start (also reported as FAILED,
 *         TOO_FREQUENT_CALL); -7 bad handle. Thread: any.
 */
int agoraish_engine_start_audio_mixing(agoraish_engine_t *engine, const char *file_path, int loopback, int cycle,
                                       int start_pos);
/** Stop audio mixing (stopAudioMixing): STOPPED, STOPPED_BY_USER. @return 0; -8 none running (never
 *  started, or it ended or failed on its own); -7. */
int agoraish_engine_stop_audio_mixing(agoraish_engine_t *engine);
/** Pause (pauseAudioMixing): PAUSED, PAUSED_BY_USER. @return 0; -8 not playing; -7. */
int agoraish_engine_pause_audio_mixing(agoraish_engine_t *engine);
/** Resume (resumeAudioMixing): PLAYING, RESUMED_BY_USER. @return 0; -8 not paused; -7. */
int agoraish_engine_resume_audio_mixing(agoraish_engine_t *engine);
/** Both the local and the published volume of the music (adjustAudioMixingVolume), 0..100.
 *  @return 0; -2 out of range; -7. */
int agoraish_engine_adjust_audio_mixing_volume(agoraish_engine_t *engine, int volume);
/** The music's local volume (adjustAudioMixingPlayoutVolume), 0..100. @return 0; -2; -7. */
int agoraish_engine_adjust_audio_mixing_playout_volume(agoraish_engine_t *engine, int volume);
/** The music's published volume (adjustAudioMixingPublishVolume), 0..100. @return 0; -2; -7. */
int agoraish_engine_adjust_audio_mixing_publish_volume(agoraish_engine_t *engine, int volume);
/** getAudioMixingPlayoutVolume. @return the volume (0..100); -7 bad handle. */
int agoraish_engine_get_audio_mixing_playout_volume(agoraish_engine_t *engine);
/** getAudioMixingPublishVolume. @return the volume (0..100); -7 bad handle. */
int agoraish_engine_get_audio_mixing_publish_volume(agoraish_engine_t *engine);
/** The music's duration in ms (getAudioMixingDuration). @return ms (>= 0); -8 nothing opened; -7. */
int agoraish_engine_get_audio_mixing_duration(agoraish_engine_t *engine);
/** The music's position in ms (getAudioMixingCurrentPosition). @return ms; -8 nothing opened; -7. */
int agoraish_engine_get_audio_mixing_current_position(agoraish_engine_t *engine);
/** Move the music to `pos_ms` (setAudioMixingPosition). @return 0; -2 negative; -8 nothing opened; -7. */
int agoraish_engine_set_audio_mixing_position(agoraish_engine_t *engine, int pos_ms);
/** The music's pitch in semitones (setAudioMixingPitch), -12..12, 0 unchanged (speed kept).
 *  @return 0; -2 out of range; -7. */
int agoraish_engine_set_audio_mixing_pitch(agoraish_engine_t *engine, int pitch);
/** The music's speed in percent (setAudioMixingPlaybackSpeed), 50..400, 100 normal (pitch kept).
 *  @return 0; -2 out of range; -7. */
int agoraish_engine_set_audio_mixing_playback_speed(agoraish_engine_t *engine, int speed);

/** Effects an engine plays or holds preloaded at once. */
#define AGORAISH_MAX_AUDIO_EFFECTS 16

/**
 * Preload an effect (preloadEffect): the file is opened and checked now
 * (this call blocks until it is, at most 10 s); a later play_effect of the
 * id may then pass no path, and starts at `start_pos` when it gives 0.
 * @return 0; -2 NULL path or negative start_pos; -1 the file cannot be opened or decoded;
 *         -5 AGORAISH_MAX_AUDIO_EFFECTS held; -7 bad handle. Thread: any (not the event thread of a URL).
 */
int agoraish_engine_preload_effect(agoraish_engine_t *engine, int sound_id, const char *file_path, int start_pos);

/**
 * Play an effect (playEffect). A sound id already playing is restarted.
 * @param file_path   The file (NULL or "": the one preloaded for the id).
 * @param loop_count  0 once, 1 twice, ..., -1 until stopped.
 * @param pitch       0.5..2.0 (1.0 unchanged): the pitch factor.
 * @param pan         -1.0 (left) .. 0 (centre) .. 1.0 (right).
 * @param gain        0..100 (100 as decoded).
 * @param publish     Nonzero: remote users hear it too; 0: local only.
 * @param start_pos   Ms to start at (0..).
 * @return 0; -2 a value out of range or no path for an id not preloaded; -5 AGORAISH_MAX_AUDIO_EFFECTS
 *         held; -7 bad handle. A file that fails to open ends the effect (on_audio_effect_finished is
 *         not called; the log says why). Thread: any.
 */
int agoraish_engine_play_effect(agoraish_engine_t *engine, int sound_id, const char *file_path, int loop_count,
                                double pitch, double pan, int gain, int publish, int start_pos);
/** stopEffect: stops it (not reported as finished). @return 0; -2 not playing; -7. */
int agoraish_engine_stop_effect(agoraish_engine_t *engine, int sound_id);
/** stopAllEffects. @return 0; -7. */
int agoraish_engine_stop_all_effects(agoraish_engine_t *engine);
/** pauseEffect. @return 0; -2 not playing; -7. */
int agoraish_engine_pause_effect(agoraish_engine_t *engine, int sound_id);
/** pauseAllEffects. @return 0; -7. */
int agoraish_engine_pause_all_effects(agoraish_engine_t *engine);
/** resumeEffect. @return 0; -2 not paused; -7. */
int agoraish_engine_resume_effect(agoraish_engine_t *engine, int sound_id);
/** resumeAllEffects. @return 0; -7. */
int agoraish_engine_resume_all_effects(agoraish_engine_t *engine);
/** unloadEffect: stops it and forgets the preload. @return 0; -2 unknown id; -7. */
int agoraish_engine_unload_effect(agoraish_engine_t *engine, int sound_id);
/** unloadAllEffects. @return 0; -7. */
int agoraish_engine_unload_all_effects(agoraish_engine_t *engine);
/** The volume of every effect (setEffectsVolume), 0..100, on top of each one's own. @return 0; -2; -7. */
int agoraish_engine_set_effects_volume(agoraish_engine_t *engine, int volume);
/** getEffectsVolume. @return 0..100; -7. */
int agoraish_engine_get_effects_volume(agoraish_engine_t *engine);
/** One effect's volume (setVolumeOfEffect), 0..100. @return 0; -2 unknown id or range; -7. */
int agoraish_engine_set_volume_of_effect(agoraish_engine_t *engine, int sound_id, int volume);
/** getVolumeOfEffect. @return 0..100; -2 unknown id; -7. */
int agoraish_engine_get_volume_of_effect(agoraish_engine_t *engine, int sound_id);
/** A file's duration in ms (getEffectDuration); opens the file (blocks, at most 10 s).
 *  @return ms (>= 0); -2 NULL path; -1 cannot be opened; -7. */
int agoraish_engine_get_effect_duration(agoraish_engine_t *engine, const char *file_path);
/** Move a playing effect (setEffectPosition). @return 0; -2 not playing or negative; -7. */
int agoraish_engine_set_effect_position(agoraish_engine_t *engine, int sound_id, int pos_ms);
/** A playing effect's position in ms (getEffectCurrentPosition). @return ms; -2 not playing; -7. */
int agoraish_engine_get_effect_current_position(agoraish_engine_t *engine, int sound_id);

/* ------------------------------------------------------------------------ */
/* Media recorder (Agora 4.x IMediaRecorder), ABI 0.13                       */
/* ------------------------------------------------------------------------ */

/*
 * A media recorder writes one user's audio and video to an MP4 file: H.264
 * (libx264 through libavcodec, yuv420p, High profile) and AAC-LC (FFmpeg's
 * encoder), at the configured size, frame rate, sample rate and channels.
 * uid 0 records what the engine's connection sends (the microphone or
 * custom track with mixing, the camera or external source); another uid
 * records that remote user of the channel as received and decoded. Pictures
 * of another size are scaled to the configured size (letterboxed, aspect
 * kept), so a size change mid-recording never breaks the file. A stream
 * that never arrives leaves its track out; with neither, stopping reports
 * RECORDER_STATE_ERROR with NO_STREAM and removes the empty file. Encoding
 * runs on the recorder's thread ("agoraish-rec<n>").
 */

/** Recorder states (Agora's RecorderState). */
enum agoraish_recorder_state {
    AGORAISH_RECORDER_STATE_ERROR = -1,
    AGORAISH_RECORDER_STATE_START = 2,
    AGORAISH_RECORDER_STATE_STOP = 3
};

/** Why a recorder's state changed (Agora's RecorderReasonCode). */
enum agoraish_recorder_reason {
    AGORAISH_RECORDER_REASON_NONE = 0,
    AGORAISH_RECORDER_REASON_WRITE_FAILED = 1,       /**< The file cannot be created or written. */
    AGORAISH_RECORDER_REASON_NO_STREAM = 2,          /**< No audio or video arrived to record. */
    AGORAISH_RECORDER_REASON_OVER_MAX_DURATION = 3,  /**< max_duration_ms reached: the recording stopped. */
    AGORAISH_RECORDER_REASON_CONFIG_CHANGED = 4      /**< Agora's value; not reported: a size change is letterboxed and recording goes on. */
};

/** What is recorded (Agora's MediaRecorderStreamType). */
enum agoraish_media_recorder_stream_type {
    AGORAISH_MEDIA_RECORDER_STREAM_AUDIO = 1,
    AGORAISH_MEDIA_RECORDER_STREAM_VIDEO = 2,
    AGORAISH_MEDIA_RECORDER_STREAM_BOTH = 3
};

/** Recorders an engine may hold at once. */
#define AGORAISH_MAX_MEDIA_RECORDERS 8

/** Whose stream a recorder records (Agora's RecorderStreamInfo). */
typedef struct agoraish_recorder_stream_info {
    /** Set to sizeof(agoraish_recorder_stream_info). */
    uint32_t struct_size;
    /** The channel: a join_channel_ex connection in this channel when there is one at
     *  start_recording, else the engine's own connection; copied. */
    const char *channel_id;
    /** 0: the local user; else a remote user of the channel. */
    uint32_t uid;
    /** RECORDER_STREAM_TYPE: 0 RTC (the only one supported; 1 PREVIEW is -4). */
    int type;
} agoraish_recorder_stream_info;

/** How to record (Agora's MediaRecorderConfiguration). Zero fields take the defaults given. */
typedef struct agoraish_media_recorder_configuration {
    /** Set to sizeof(agoraish_media_recorder_configuration). */
    uint32_t struct_size;
    /** The file to write (.mp4); its directory must exist. Copied. */
    const char *storage_path;
    /** MediaRecorderContainerFormat: 1 MP4 (0 means 1; others are -4). */
    int container_format;
    /** An `agoraish_media_recorder_stream_type` (0 means BOTH). */
    int stream_type;
    /** The longest recording in ms (0 means 120000); reached: STOP with OVER_MAX_DURATION. */
    int max_duration_ms;
    /** on_recorder_info_updated every this many ms (0: never; else 1000..10000). */
    int recorder_info_update_interval;
    /** The video size (0 means 1280 x 720; 16..4096, even). */
    int width;
    int height;
    /** Frames per second written (0 means 30; 1..60). */
    int fps;
    /** Audio sample rate (0 means 48000; 16000, 32000, 44100 or 48000). */
    int sample_rate;
    /** Audio channels (0 means 1; 1 or 2). */
    int channel_num;
} agoraish_media_recorder_configuration;

/** What has been recorded so far (Agora's RecorderInfo). */
typedef struct agoraish_recorder_info {
    /** sizeof the struct as the library filled it. */
    uint32_t struct_size;
    /** The file's path; valid during the callback. */
    const char *file_name;
    unsigned int duration_ms;
    unsigned int file_size;
} agoraish_recorder_info;

/** A recorder's events (Agora's IMediaRecorderObserver). Thread: the engine's event thread. */
typedef struct agoraish_media_recorder_observer {
    /** Set to sizeof(agoraish_media_recorder_observer). */
    uint32_t struct_size;
    void *user_data;
    /** onRecorderStateChanged: an `agoraish_recorder_state` and an `agoraish_recorder_reason`. */
    void (*on_recorder_state_changed)(agoraish_engine_t *engine, void *user_data, int recorder_id,
                                      const char *channel_id, uint32_t uid, int state, int reason);
    /** onRecorderInfoUpdated: every recorder_info_update_interval ms while recording. */
    void (*on_recorder_info_updated)(agoraish_engine_t *engine, void *user_data, int recorder_id,
                                     const char *channel_id, uint32_t uid, const agoraish_recorder_info *info);
} agoraish_media_recorder_observer;

/**
 * Create a recorder for one user's stream (createMediaRecorder).
 * @param recorder_id  Required: receives the id (1 and up).
 * @return 0; -2 NULL info or recorder_id, bad struct_size, an invalid channel name; -4 type PREVIEW;
 *         -5 AGORAISH_MAX_MEDIA_RECORDERS exist; -7 bad handle. Thread: any.
 */
int agoraish_engine_create_media_recorder(agoraish_engine_t *engine, const agoraish_recorder_stream_info *info,
                                          int *recorder_id);
/** Set (NULL: remove) a recorder's observer (setMediaRecorderObserver); copied.
 *  @return 0; -2 unknown recorder or bad struct_size; -7. Thread: any. */
int agoraish_media_recorder_set_observer(agoraish_engine_t *engine, int recorder_id,
                                         const agoraish_media_recorder_observer *observer);
/**
 * Start recording (startRecording): the file is created now; START is
 * reported, or ERROR with WRITE_FAILED.
 * @return 0; -2 unknown recorder, NULL config or path, a value out of range; -4 another container;
 *         -8 already recording; -7. Thread: any.
 */
int agoraish_media_recorder_start_recording(agoraish_engine_t *engine, int recorder_id,
                                            const agoraish_media_recorder_configuration *config);
/** Stop (stopRecording): the file is finished before the call returns; STOP is reported (ERROR with
 *  NO_STREAM when nothing was recorded, the file removed; ERROR with WRITE_FAILED when writing failed).
 *  @return 0; -2 unknown recorder; -8 not recording; -7. Thread: any (not a callback of the recorder). */
int agoraish_media_recorder_stop_recording(agoraish_engine_t *engine, int recorder_id);
/** Destroy a recorder (destroyMediaRecorder), stopping it first. @return 0; -2 unknown; -7. */
int agoraish_engine_destroy_media_recorder(agoraish_engine_t *engine, int recorder_id);

/* ------------------------------------------------------------------------ */
/* Voice processing and voice effects (ABI 0.14)                             */
/* ------------------------------------------------------------------------ */

/*
 * What happens to the local voice before it is encoded, in this order:
 *
 * 1. Audio processing (the WebRTC AudioProcessing module): echo cancellation
 *    against what the engine plays (the playout mix, time-aligned), noise
 *    suppression, automatic gain control and a high-pass filter. It runs on
 *    audio captured from the recording device, on by default as the audio
 *    scenario chooses (`agoraish_engine_set_audio_scenario`), and on a
 *    mixable custom audio track only when the host asks for it
 *    (`agoraish_engine_enable_custom_audio_track_processing`). The private
 *    parameters "che.audio.aec.enable", "che.audio.ans.enable" and
 *    "che.audio.agc.enable" (`agoraish_engine_set_parameters`) override the
 *    scenario step by step; `agoraish_engine_set_ains_mode` chooses how hard
 *    noise is suppressed.
 * 2. Voice effects: a beautifier, audio effect or voice conversion preset,
 *    or the host's own pitch, formant, equalization and reverb (Rubber Band
 *    for pitch and formant, SoX's equalizer, reverb and chorus). They apply to
 *    captured audio, mixable custom tracks and the external audio source;
 *    direct custom tracks (AGORAISH_AUDIO_TRACK_DIRECT) are sent as pushed.
 *
 * With every step off the audio is sent exactly as it was captured or pushed.
 * docs/voice.md has the presets' table (pitch, formant, equalization, reverb
 * of each) and the scenarios' table. Presets and the host's own settings
 * cancel each other as Agora documents: the later call replaces what an
 * earlier call of another of these methods set. All calls: any thread; they
 * take effect within 10 ms, in or out of a call.
 */

/** Audio scenarios (Agora 4.x AUDIO_SCENARIO_TYPE): what audio processing
 *  captured audio gets by default (docs/voice.md). */
enum agoraish_audio_scenario {
    AGORAISH_AUDIO_SCENARIO_DEFAULT = 0,        /**< Echo cancellation, noise suppression, gain control, high-pass. */
    AGORAISH_AUDIO_SCENARIO_GAME_STREAMING = 3, /**< Music fidelity: light echo cancellation, nothing else. */
    AGORAISH_AUDIO_SCENARIO_CHATROOM = 5,       /**< As DEFAULT, with stronger echo suppression. */
    AGORAISH_AUDIO_SCENARIO_CHORUS = 7,         /**< Singing together: light echo cancellation and high-pass only. */
    AGORAISH_AUDIO_SCENARIO_MEETING = 8         /**< Speech: as CHATROOM, stronger noise suppression. */
};

/**
 * Set the audio scenario (Agora 4.x setAudioScenario): the audio processing
 * captured audio gets, at once. The private "che.audio.*.enable" parameters
 * still override it step by step.
 * @return 0; -2 unknown scenario; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_audio_scenario(agoraish_engine_t *engine, int scenario);

/** Noise suppression modes (Agora's AUDIO_AINS_MODE). */
enum agoraish_audio_ains_mode {
    AGORAISH_AINS_MODE_BALANCED = 0,        /**< The module's high suppression level. */
    AGORAISH_AINS_MODE_AGGRESSIVE = 1,      /**< Its very high level: more noise goes, some voice with it. */
    AGORAISH_AINS_MODE_ULTRALOWLATENCY = 2  /**< Its moderate level: the least processing. */
};

/**
 * Choose noise suppression (Agora 4.x setAINSMode). Enabled, noise is
 * suppressed at the mode's level on captured audio (and on custom tracks
 * with processing); disabled, the scenario's own choice applies again.
 * @param enabled  Nonzero: on, at `mode`.
 * @param mode     An `agoraish_audio_ains_mode` (checked even when disabling).
 * @return 0; -2 unknown mode; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_ains_mode(agoraish_engine_t *engine, int enabled, int mode);

/**
 * Audio processing on a mixable custom audio track (Agora's
 * AudioTrackConfig.enableAudioProcessing): what the scenario gives captured
 * audio (echo cancellation against the playout, noise suppression, gain
 * control, high-pass) then applies to what is pushed into the track. Off by
 * default.
 * @return 0; -2 unknown track, or a direct track (direct tracks are never
 *         processed); -7 bad handle. Thread: any.
 */
int agoraish_engine_enable_custom_audio_track_processing(agoraish_engine_t *engine, int32_t track_id, int enabled);

/** Voice beautifier presets (Agora's VOICE_BEAUTIFIER_PRESET). */
enum agoraish_voice_beautifier_preset {
    AGORAISH_VOICE_BEAUTIFIER_OFF = 0x00000000,
    AGORAISH_CHAT_BEAUTIFIER_MAGNETIC = 0x01010100,
    AGORAISH_CHAT_BEAUTIFIER_FRESH = 0x01010200,
    AGORAISH_CHAT_BEAUTIFIER_VITALITY = 0x01010300,
    AGORAISH_SINGING_BEAUTIFIER = 0x01020100,
    AGORAISH_TIMBRE_TRANSFORMATION_VIGOROUS = 0x01030100,
    AGORAISH_TIMBRE_TRANSFORMATION_DEEP = 0x01030200,
    AGORAISH_TIMBRE_TRANSFORMATION_MELLOW = 0x01030300,
    AGORAISH_TIMBRE_TRANSFORMATION_FALSETTO = 0x01030400,
    AGORAISH_TIMBRE_TRANSFORMATION_FULL = 0x01030500,
    AGORAISH_TIMBRE_TRANSFORMATION_CLEAR = 0x01030600,
    AGORAISH_TIMBRE_TRANSFORMATION_RESOUNDING = 0x01030700,
    AGORAISH_TIMBRE_TRANSFORMATION_RINGING = 0x01030800,
    AGORAISH_ULTRA_HIGH_QUALITY_VOICE = 0x01040100
};

/** Audio effect presets (Agora's AUDIO_EFFECT_PRESET). */
enum agoraish_audio_effect_preset {
    AGORAISH_AUDIO_EFFECT_OFF = 0x00000000,
    AGORAISH_ROOM_ACOUSTICS_KTV = 0x02010100,
    AGORAISH_ROOM_ACOUSTICS_VOCAL_CONCERT = 0x02010200,
    AGORAISH_ROOM_ACOUSTICS_STUDIO = 0x02010300,
    AGORAISH_ROOM_ACOUSTICS_PHONOGRAPH = 0x02010400,
    AGORAISH_ROOM_ACOUSTICS_VIRTUAL_STEREO = 0x02010500,
    AGORAISH_ROOM_ACOUSTICS_SPACIAL = 0x02010600,
    AGORAISH_ROOM_ACOUSTICS_ETHEREAL = 0x02010700,
    AGORAISH_ROOM_ACOUSTICS_3D_VOICE = 0x02010800,
    AGORAISH_ROOM_ACOUSTICS_VIRTUAL_SURROUND_SOUND = 0x02010900,
    AGORAISH_ROOM_ACOUSTICS_CHORUS = 0x02010D00,
    AGORAISH_VOICE_CHANGER_EFFECT_UNCLE = 0x02020100,
    AGORAISH_VOICE_CHANGER_EFFECT_OLDMAN = 0x02020200,
    AGORAISH_VOICE_CHANGER_EFFECT_BOY = 0x02020300,
    AGORAISH_VOICE_CHANGER_EFFECT_SISTER = 0x02020400,
    AGORAISH_VOICE_CHANGER_EFFECT_GIRL = 0x02020500,
    AGORAISH_VOICE_CHANGER_EFFECT_PIGKING = 0x02020600,
    AGORAISH_VOICE_CHANGER_EFFECT_HULK = 0x02020700,
    AGORAISH_STYLE_TRANSFORMATION_RNB = 0x02030100,
    AGORAISH_STYLE_TRANSFORMATION_POPULAR = 0x02030200,
    AGORAISH_PITCH_CORRECTION = 0x02040100
};

/** Voice conversion presets (Agora's VOICE_CONVERSION_PRESET). */
enum agoraish_voice_conversion_preset {
    AGORAISH_VOICE_CONVERSION_OFF = 0x00000000,
    AGORAISH_VOICE_CHANGER_NEUTRAL = 0x03010100,
    AGORAISH_VOICE_CHANGER_SWEET = 0x03010200,
    AGORAISH_VOICE_CHANGER_SOLID = 0x03010300,
    AGORAISH_VOICE_CHANGER_BASS = 0x03010400,
    AGORAISH_VOICE_CHANGER_CARTOON = 0x03020100,
    AGORAISH_VOICE_CHANGER_CHILDLIKE = 0x03020200,
    AGORAISH_VOICE_CHANGER_PHONE_OPERATOR = 0x03020300,
    AGORAISH_VOICE_CHANGER_MONSTER = 0x03020400,
    AGORAISH_VOICE_CHANGER_TRANSFORMERS = 0x03020500,
    AGORAISH_VOICE_CHANGER_GROOT = 0x03020600,
    AGORAISH_VOICE_CHANGER_DARTH_VADER = 0x03020700,
    AGORAISH_VOICE_CHANGER_IRONLADY = 0x03020800,
    AGORAISH_VOICE_CHANGER_SHIN_CHAN = 0x03020900,
    AGORAISH_VOICE_CHANGER_GIRLISH_MAN = 0x03020A00,
    AGORAISH_VOICE_CHANGER_CHIPMUNK = 0x03020B00
};

/** Headphone equalizer presets (Agora's HEADPHONE_EQUALIZER_PRESET), for playback. */
enum agoraish_headphone_equalizer_preset {
    AGORAISH_HEADPHONE_EQUALIZER_OFF = 0x00000000,
    AGORAISH_HEADPHONE_EQUALIZER_OVEREAR = 0x04000001,
    AGORAISH_HEADPHONE_EQUALIZER_INEAR = 0x04000002
};

/** Bands of `agoraish_engine_set_local_voice_equalization` (Agora's AUDIO_EQUALIZATION_BAND_FREQUENCY). */
enum agoraish_audio_equalization_band {
    AGORAISH_AUDIO_EQUALIZATION_BAND_31 = 0,
    AGORAISH_AUDIO_EQUALIZATION_BAND_62 = 1,
    AGORAISH_AUDIO_EQUALIZATION_BAND_125 = 2,
    AGORAISH_AUDIO_EQUALIZATION_BAND_250 = 3,
    AGORAISH_AUDIO_EQUALIZATION_BAND_500 = 4,
    AGORAISH_AUDIO_EQUALIZATION_BAND_1K = 5,
    AGORAISH_AUDIO_EQUALIZATION_BAND_2K = 6,
    AGORAISH_AUDIO_EQUALIZATION_BAND_4K = 7,
    AGORAISH_AUDIO_EQUALIZATION_BAND_8K = 8,
    AGORAISH_AUDIO_EQUALIZATION_BAND_16K = 9
};

/** What `agoraish_engine_set_local_voice_reverb` sets (Agora's AUDIO_REVERB_TYPE). */
enum agoraish_audio_reverb_type {
    AGORAISH_AUDIO_REVERB_DRY_LEVEL = 0, /**< The original voice's level, -20..10 dB. */
    AGORAISH_AUDIO_REVERB_WET_LEVEL = 1, /**< The reverberation's level, -20..10 dB. */
    AGORAISH_AUDIO_REVERB_ROOM_SIZE = 2, /**< 0..100. */
    AGORAISH_AUDIO_REVERB_WET_DELAY = 3, /**< Delay of the reverberation, 0..200 ms. */
    AGORAISH_AUDIO_REVERB_STRENGTH = 4   /**< How long it lasts, 0..100. */
};

/**
 * Apply a voice beautifier preset (setVoiceBeautifierPreset); OFF removes
 * the beautifier set earlier. It replaces an audio effect or voice
 * conversion preset and the host's pitch, formant, equalization and reverb.
 * @return 0; -2 unknown preset; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_voice_beautifier_preset(agoraish_engine_t *engine, int preset);

/**
 * Apply an audio effect preset (setAudioEffectPreset), with its default
 * parameters; OFF removes the effect set earlier. Replaces as the beautifier does.
 * @return 0; -2 unknown preset; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_audio_effect_preset(agoraish_engine_t *engine, int preset);

/**
 * Apply a voice conversion preset (setVoiceConversionPreset); OFF removes
 * the conversion set earlier. Replaces as the beautifier does.
 * @return 0; -2 unknown preset; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_voice_conversion_preset(agoraish_engine_t *engine, int preset);

/**
 * Apply a beautifier preset with parameters (setVoiceBeautifierParameters).
 * Only AGORAISH_SINGING_BEAUTIFIER takes them: `param1` 1 male, 2 female;
 * `param2` the reverb: 1 a small room, 2 a large room, 3 a hall. Other presets take
 * no parameters (0, 0).
 * @return 0; -2 OFF, an unknown preset, or a parameter out of range; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_voice_beautifier_parameters(agoraish_engine_t *engine, int preset, int param1, int param2);

/**
 * Apply an audio effect preset with parameters (setAudioEffectParameters):
 * AGORAISH_ROOM_ACOUSTICS_3D_VOICE: `param1` the seconds the voice takes to
 * go round the listener, 0 (still) or 1..60 (10 by default); `param2` 0.
 * AGORAISH_PITCH_CORRECTION: `param1` the scale, 1 major, 2 minor, 3
 * Japanese pentatonic; `param2` its tonic, 1 A .. 12 G#.
 * Other presets take no parameters (0, 0).
 * @return 0; -2 OFF, an unknown preset, or a parameter out of range; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_audio_effect_parameters(agoraish_engine_t *engine, int preset, int param1, int param2);

/**
 * Change the local voice's pitch (setLocalVoicePitch), formants moving with it.
 * Replaces a preset set earlier.
 * @param pitch  0.5 (an octave down) .. 2.0 (an octave up); 1.0 unchanged.
 * @return 0; -2 out of range (or not a number); -7 bad handle. Thread: any.
 */
int agoraish_engine_set_local_voice_pitch(agoraish_engine_t *engine, double pitch);

/**
 * Move the local voice's formants (setLocalVoiceFormant) without changing its pitch.
 * @param formant_ratio  -1.0 (formants an octave down, a larger speaker) ..
 *                       1.0 (an octave up, a smaller one); 0 unchanged.
 * @return 0; -2 out of range; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_local_voice_formant(agoraish_engine_t *engine, double formant_ratio);

/**
 * Set one band of the local voice's equalizer (setLocalVoiceEqualization):
 * a peaking filter one octave wide at the band's frequency.
 * @param band_frequency  An `agoraish_audio_equalization_band`.
 * @param band_gain       -15..15 dB.
 * @return 0; -2 unknown band or gain out of range; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_local_voice_equalization(agoraish_engine_t *engine, int band_frequency, int band_gain);

/**
 * Set one value of the local voice's reverb (setLocalVoiceReverb). The
 * reverb runs while the wet level is above -20 dB and the room size or the
 * strength is above 0, or while the dry level is not 0 dB.
 * @param reverb_key  An `agoraish_audio_reverb_type`.
 * @param value       In that key's range.
 * @return 0; -2 unknown key or value out of range; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_local_voice_reverb(agoraish_engine_t *engine, int reverb_key, int value);

/**
 * Equalize what the engine plays for a kind of headphones (setHeadphoneEQPreset).
 * @return 0; -2 unknown preset; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_headphone_eq_preset(agoraish_engine_t *engine, int preset);

/**
 * Adjust the headphone equalizer's low and high frequencies
 * (setHeadphoneEQParameters): `low_gain` is added to the equalizer's bands
 * of 31 to 250 Hz and `high_gain` to those of 4 to 16 kHz, on top of the preset.
 * @param low_gain   -10..10 dB.
 * @param high_gain  -10..10 dB.
 * @return 0; -2 out of range; -7 bad handle. Thread: any.
 */
int agoraish_engine_set_headphone_eq_parameters(agoraish_engine_t *engine, int low_gain, int high_gain);

/* ------------------------------------------------------------------------ */
/* Spatial audio (Agora 4.x ILocalSpatialAudioEngine, 3.x sound position)    */
/* ------------------------------------------------------------------------ */

/*
 * The local spatial audio engine places remote users (and media players)
 * around the local user and renders them binaurally with Debian's HRTF set
 * (libmysofa, /usr/share/libmysofa/default.sofa): a user on the right is
 * louder and earlier in the right ear, and quieter the farther away it is.
 * Positions are in the app's world coordinates; `set_distance_unit` says how
 * many metres one unit is. A user beyond the receive range is silent and its
 * audio is not received at all (the server stops forwarding it), and so is
 * every user beyond the `set_max_audio_recv_count` nearest. Users with no
 * position play as before, in the middle. Vectors are three floats
 * (x, y, z); the listener's forward, right and up axes should be unit
 * vectors at right angles (they are normalized; a zero vector is -2).
 * All calls: any thread; -7 bad handle; -2 NULL or non-finite values.
 */

/** Start the spatial audio engine (ILocalSpatialAudioEngine::initialize): the listener at
 *  the origin with forward +x, right +y, up +z; range 1000 units; 1 unit = 1 m; at most 16
 *  users received. Positions set before a release are forgotten. Again while running: 0.
 *  @return 0; -1 the HRTF set cannot be read; -7. */
int agoraish_spatial_audio_initialize(agoraish_engine_t *engine);
/** Stop it (release): every remote user plays in the middle again and is received again. @return 0; -7. */
int agoraish_spatial_audio_release(agoraish_engine_t *engine);
/** The local user's position and axes (updateSelfPosition); each 3 floats, read during the call.
 *  @return 0; -2; -3 not initialized; -7. */
int agoraish_spatial_audio_update_self_position(agoraish_engine_t *engine, const float *position,
                                                const float *axis_forward, const float *axis_right,
                                                const float *axis_up);
/** A remote user's position and facing (updateRemotePosition; RemoteVoicePositionInfo).
 *  At most 4096 users have a position at once.
 *  @param forward  3 floats; may be NULL (facing is not used by the rendering: an HRTF
 *                  set describes the listener's ears only).
 *  @return 0; -2 uid 0 or bad values; -3 not initialized; -5 4096 other users have a position; -7. */
int agoraish_spatial_audio_update_remote_position(agoraish_engine_t *engine, uint32_t uid, const float *position,
                                                  const float *forward);
/** A media player's position (updatePlayerPositionInfo): its local playout is rendered there.
 *  @return 0; -2 unknown player or bad values; -3; -7. */
int agoraish_spatial_audio_update_player_position(agoraish_engine_t *engine, int player_id, const float *position,
                                                  const float *forward);
/** Forget a remote user's position (removeRemotePosition): it plays in the middle again. @return 0; -2 uid 0; -3; -7. */
int agoraish_spatial_audio_remove_remote_position(agoraish_engine_t *engine, uint32_t uid);
/** Forget every remote position (clearRemotePositions). @return 0; -3; -7. */
int agoraish_spatial_audio_clear_remote_positions(agoraish_engine_t *engine);
/** How far the local user hears (setAudioRecvRange), in units, > 0. @return 0; -2; -3; -7. */
int agoraish_spatial_audio_set_audio_recv_range(agoraish_engine_t *engine, float range);
/** Metres per unit (setDistanceUnit), > 0. @return 0; -2; -3; -7. */
int agoraish_spatial_audio_set_distance_unit(agoraish_engine_t *engine, float unit);
/** How many positioned users are received at most, the nearest first (setMaxAudioRecvCount), 1..4096.
 *  @return 0; -2; -3; -7. */
int agoraish_spatial_audio_set_max_audio_recv_count(agoraish_engine_t *engine, int max_count);
/** Stop or resume sending the local voice (muteLocalAudioStream of the spatial engine; the
 *  engine's own mute still applies). @return 0; -3; -7. */
int agoraish_spatial_audio_mute_local_audio_stream(agoraish_engine_t *engine, int mute);
/** Stop or resume receiving every remote user (muteAllRemoteAudioStreams of the spatial
 *  engine; the engine's own mutes still apply). @return 0; -3; -7. */
int agoraish_spatial_audio_mute_all_remote_audio_streams(agoraish_engine_t *engine, int mute);
/** Stop or resume receiving one remote user (muteRemoteAudioStream of the spatial engine).
 *  @return 0; -2 uid 0; -3; -7. */
int agoraish_spatial_audio_mute_remote_audio_stream(agoraish_engine_t *engine, uint32_t uid, int mute);

/**
 * Enable stereo panning of remote voices (3.x enableSoundPositionIndication),
 * before or during a call; disabling returns every voice to the middle.
 * @return 0; -7 bad handle. Thread: any.
 */
int agoraish_engine_enable_sound_position_indication(agoraish_engine_t *engine, int enabled);

/**
 * Place a remote voice between the ears (3.x setRemoteVoicePosition),
 * constant-power panning; heard only while sound position indication is on.
 * @param pan   -1.0 left .. 0 middle .. 1.0 right.
 * @param gain  0.0 .. 100.0 (100 unchanged).
 * @return 0; -2 uid 0 or a value out of range; -5 4096 other users have a position; -7 bad handle.
 * Thread: any.
 */
int agoraish_engine_set_remote_voice_position(agoraish_engine_t *engine, uint32_t uid, double pan, double gain);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AGORAISH_H */
