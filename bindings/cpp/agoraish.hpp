/*
 * agoraish.hpp — a header-only C++17 wrapper over include/agoraish.h with the
 * shape of the Agora RTC SDK's C++ API: an `IRtcEngineEventHandler` to
 * subclass, an `RtcEngineContext` to fill, and an `RtcEngine` that owns one
 * engine handle and releases it when it goes out of scope.
 *
 *     struct Handler : agoraish::IRtcEngineEventHandler {
 *         void onApiCallExecuted(int err, const char* api, const char* result) override { ... }
 *     };
 *     Handler handler;                      // must outlive the engine
 *     agoraish::RtcEngineContext context;
 *     context.appId = "my-app";
 *     context.eventHandler = &handler;
 *     agoraish::RtcEngine engine;
 *     if (int rc = engine.initialize(context); rc != 0) { ... }
 *     engine.setParameters(R"({"rtc.log_filter": 2063})");
 *     // ~RtcEngine() calls release(true)
 *
 * Channels (ABI 0.2) follow Agora's names: joinChannel / leaveChannel and the
 * callbacks onJoinChannelSuccess, onUserJoined, onUserOffline, onLeaveChannel,
 * ...; `ChannelServer` runs a channel server inside the process:
 *
 *     agoraish::ChannelServer server;
 *     server.initialize();                  // 127.0.0.1, a free port
 *     server.start();
 *     context.serverUrl = server.url();     // "ws://127.0.0.1:<port>"
 *     ...
 *     engine.joinChannel(nullptr, "demo", nullptr, 0);
 *
 * Audio (ABI 0.4) follows Agora's names too: switches and volumes
 * (enableLocalAudio, muteLocalAudioStream, adjustPlaybackSignalVolume, ...),
 * the audio callbacks (onAudioVolumeIndication, onRtcStats, onRemoteAudioStats,
 * ...), an `IAudioFrameObserver` for raw audio, recording to a file and the
 * ALSA devices:
 *
 *     struct Halve : agoraish::IAudioFrameObserver {
 *         bool onRecordAudioFrame(agoraish::AudioFrame& frame) override {
 *             for (std::size_t i = 0; i < frame.sampleCount(); ++i) frame.samples()[i] /= 2;
 *             return true;
 *         }
 *     };
 *     Halve halve;                          // must outlive its registration
 *     engine.setRecordingAudioFrameParameters(48000, 1, agoraish::RAW_AUDIO_FRAME_OP_MODE_READ_WRITE, 0);
 *     engine.registerAudioFrameObserver(&halve, agoraish::AUDIO_FRAME_POSITION_RECORD);
 *
 * Video (ABI 0.5): enableVideo, setVideoEncoderConfiguration, an external
 * source (setExternalVideoSource, pushExternalVideoFrame) and render sinks
 * for remote users (setupRemoteVideo with an `IVideoSink` in the canvas);
 * enableLocalVideo and the video mutes (muteLocalVideoStream,
 * muteRemoteVideoStream, ...); the callbacks onFirstLocalVideoFramePublished,
 * onFirstRemoteVideoDecoded, onVideoSizeChanged and onUserMuteVideo:
 *
 *     struct Render : agoraish::IVideoSink {
 *         void onFrame(agoraish::uid_t uid, const agoraish::VideoFrame& frame) override { ... }
 *     };
 *     Render render;                        // must outlive its binding
 *     engine.enableVideo();
 *     engine.setupRemoteVideo(agoraish::VideoCanvas(remoteUid, &render));
 *
 * Video (ABI 0.6) adds the local canvas and its preview (setupLocalVideo,
 * startPreview), render and mirror modes with a view size in the canvas,
 * rotation of pushed pictures, an `IVideoFrameObserver` for raw video, dual
 * stream (enableDualStreamMode, setRemoteVideoStreamType), snapshots
 * (takeSnapshot), PNG watermarks (addVideoWatermark), V4L2 cameras
 * (enumerateVideoDevices, setVideoDevice, switchCamera) and the callbacks
 * onFirstLocalVideoFrame, onLocalVideoStateChanged, onRemoteVideoStats,
 * onNetworkQuality, ...:
 *
 *     struct Darken : agoraish::IVideoFrameObserver {
 *         bool onCaptureVideoFrame(agoraish::VideoFrame& frame) override {
 *             for (int row = 0; row < frame.height; ++row)
 *                 for (int x = 0; x < frame.width; ++x) frame.yBuffer[row * frame.yStride + x] /= 2;
 *             return true;                  // false drops the picture
 *         }
 *     };
 *     Darken darken;                        // must outlive its registration
 *     engine.registerVideoFrameObserver(&darken);
 *
 * Fallback (ABI 0.7): setLocalPublishFallbackOption,
 * setRemoteSubscribeFallbackOption and setRemoteUserPriority, with the
 * callbacks onLocalPublishFallbackToAudioOnly and
 * onRemoteSubscribeFallbackToAudioOnly:
 *
 *     engine.setLocalPublishFallbackOption(agoraish::STREAM_FALLBACK_OPTION_AUDIO_ONLY);
 *     engine.setRemoteUserPriority(remoteUid, agoraish::PRIORITY_HIGH);
 *
 * The last-mile test and probe (ABI 0.7), before joining:
 * startLastmileProbeTest / stopLastmileProbeTest and enableLastmileTest /
 * disableLastmileTest, with the callbacks onLastmileQuality and
 * onLastmileProbeResult:
 *
 *     agoraish::LastmileProbeConfig probe;
 *     probe.probeUplink = probe.probeDownlink = true;
 *     probe.expectedUplinkBitrate = probe.expectedDownlinkBitrate = 1000000;  // bps
 *     engine.startLastmileProbeTest(probe);
 *
 * The echo test's configuration (ABI 0.9, Agora's EchoTestConfiguration, audio
 * only) carries the token its join presents where the app has a certificate,
 * as LastmileProbeConfig's `token` and `channelId` do for the probe:
 *
 *     agoraish::EchoTestConfiguration echo;
 *     echo.token = token;                   // valid for "echo" and uid 0
 *     echo.intervalInSeconds = 3;
 *     engine.startEchoTest(echo);
 *
 * Data streams, metadata and encryption (ABI 0.8): createDataStream,
 * sendStreamMessage and sendAudioMetadata with the callbacks onStreamMessage,
 * onStreamMessageError and onAudioMetadataReceived; an `IMetadataObserver`
 * for video metadata; enableEncryption (and the deprecated
 * setEncryptionSecret / setEncryptionMode) with onEncryptionError; an
 * `IPacketObserver` that sees and may replace each media payload:
 *
 *     int stream = 0;
 *     engine.createDataStream(&stream, true, true);         // reliable, ordered
 *     engine.sendStreamMessage(stream, "hello", 5);         // in a call
 *     agoraish::EncryptionConfig encryption;                // AES_128_GCM2
 *     encryption.encryptionKey = key;                       // before joining
 *     std::memcpy(encryption.encryptionKdfSalt, salt, 32);
 *     engine.enableEncryption(true, encryption);
 *
 * Connections (ABI 0.11, Agora's IRtcEngineEx): one engine in several
 * channels at once. joinChannel(token, channelId, uid, options) joins the
 * engine's own channel with a `ChannelMediaOptions`; joinChannelEx() adds a
 * connection, named by an `RtcConnection` (channel, local uid), whose events
 * go to its own `IRtcEngineEventHandlerEx`; the `...Ex` methods act on one
 * connection. Custom audio tracks (createCustomAudioTrack,
 * pushExternalAudioFrame(trackId, ...)) give each connection its own audio:
 *
 *     struct Second : agoraish::IRtcEngineEventHandlerEx {
 *         void onJoinChannelSuccess(const agoraish::RtcConnection& c, agoraish::uid_t uid, int) override { ... }
 *     };
 *     Second second;                        // must outlive the engine (as the engine's handler)
 *     agoraish::track_id_t track = 0;
 *     engine.createCustomAudioTrack(agoraish::AUDIO_TRACK_MIXABLE, &track);
 *     agoraish::ChannelMediaOptions options;
 *     options.publishMicrophoneTrack = false;
 *     options.publishCustomAudioTrack = true;
 *     options.publishCustomAudioTrackId = track;
 *     agoraish::RtcConnection connection("second", 2);
 *     engine.joinChannelEx(nullptr, connection, options, &second);
 *     engine.pushExternalAudioFrame(track, samples, 480, 48000, 1);   // 10 ms, in real time
 *     engine.leaveChannelEx(connection);
 *
 * Custom video tracks (ABI 0.11) give each connection its own video:
 * createCustomVideoTrack() for pictures pushed with pushVideoFrame(frame,
 * trackId), which each publishing connection encodes; createCustomEncodedVideoTrack()
 * for VP8 or VP9 frames the host encodes, pushed with pushEncodedVideoImage()
 * and sent unchanged. An `IVideoEncodedFrameObserver` sees each remote frame
 * before it is decoded:
 *
 *     agoraish::track_id_t video = 0;
 *     engine.createCustomEncodedVideoTrack(&video);
 *     agoraish::ChannelMediaOptions options;
 *     options.publishEncodedVideoTrack = true;
 *     options.customVideoTrackId = video;
 *     engine.joinChannelEx(nullptr, agoraish::RtcConnection("third", 3), options, nullptr);
 *     agoraish::EncodedVideoFrameInfo info;  // VP8
 *     info.frameType = agoraish::VIDEO_FRAME_TYPE_KEY_FRAME;
 *     info.width = 640;
 *     info.height = 360;
 *     info.captureTimeMs = nowMs;
 *     engine.pushEncodedVideoImage(vp8, vp8Length, info, video);   // in a call: 1 (connection)
 *
 * Quick switching (ABI 0.12, Agora's QuickSwitchChannel): preloadChannel()
 * prepares later joins of a channel with a uid, so that after leaveChannel()
 * a joinChannel() of a preloaded channel is heard within a few tens of
 * milliseconds; updatePreloadChannelToken() renews their token:
 *
 *     engine.preloadChannel(nullptr, "first", 7);
 *     engine.preloadChannel(nullptr, "second", 7);
 *     engine.joinChannel(nullptr, "first", nullptr, 7);
 *     engine.leaveChannel();
 *     engine.joinChannel(nullptr, "second", nullptr, 7);
 *
 * Simulcast (ABI 0.12, Agora's setSimulcastConfig): up to three streams besides
 * the high one, each the picture fitted into its own box at its own frame rate;
 * each subscriber asks for one with setRemoteVideoStreamType():
 *
 *     agoraish::SimulcastConfig simulcast;
 *     simulcast.configs[agoraish::SimulcastConfig::STREAM_LAYER_1] = {{480, 270}, 15, true};
 *     simulcast.configs[agoraish::SimulcastConfig::STREAM_LOW] = {{160, 90}, 15, true};
 *     host.setSimulcastConfig(simulcast);             // setSimulcastConfigEx(simulcast, connection)
 *     viewer.setRemoteVideoStreamType(hostUid, agoraish::VIDEO_STREAM_LAYER_1);
 *
 * Media (ABI 0.13): a `MediaPlayer` (Agora's IMediaPlayer) plays a file or
 * URL locally and, chosen in a connection's ChannelMediaOptions, publishes
 * it; audio mixing (startAudioMixing, onAudioMixingStateChanged) mixes music
 * into what the engine publishes, audio effects (playEffect,
 * onAudioEffectFinished) play short sounds; a `MediaRecorder` (Agora's
 * IMediaRecorder) writes one user's stream to an MP4 file:
 *
 *     agoraish::MediaPlayer player;
 *     engine.createMediaPlayer(player);
 *     player.registerPlayerSourceObserver(&observer);   // onPlayerSourceStateChanged(OPEN_COMPLETED, ...)
 *     player.open("movie.mp4", 0);
 *     player.play();                                     // once opened
 *     agoraish::ChannelMediaOptions options;
 *     options.publishMicrophoneTrack = false;
 *     options.publishCameraTrack = false;
 *     options.publishMediaPlayerAudioTrack = true;
 *     options.publishMediaPlayerVideoTrack = true;
 *     options.publishMediaPlayerId = player.getMediaPlayerId();
 *     engine.joinChannel(nullptr, "demo", 0, options);
 *     engine.playEffect(1, "ding.wav", 0, 1.0, 0.0, 100, true);
 *
 * Voice (ABI 0.14): the audio scenario and noise suppression of captured
 * audio (setAudioScenario, setAINSMode; enableCustomAudioTrackProcessing for
 * a mixable custom track), voice effects on the local voice (the presets of
 * setVoiceBeautifierPreset, setAudioEffectPreset and setVoiceConversionPreset,
 * or setLocalVoicePitch, setLocalVoiceFormant, setLocalVoiceEqualization and
 * setLocalVoiceReverb), the headphone equalizer (setHeadphoneEQPreset), and
 * the placement of remote voices: a `LocalSpatialAudioEngine` (Agora's
 * ILocalSpatialAudioEngine) renders them binaurally where the host puts
 * them, or 3.x stereo panning (enableSoundPositionIndication,
 * setRemoteVoicePosition):
 *
 *     engine.setAINSMode(true, agoraish::AINS_MODE_AGGRESSIVE);
 *     engine.setVoiceConversionPreset(agoraish::VOICE_CHANGER_BASS);
 *     agoraish::LocalSpatialAudioEngine spatial;
 *     engine.getLocalSpatialAudioEngine(spatial);        // initialized
 *     agoraish::RemoteVoicePositionInfo info;
 *     info.position[1] = 1;                               // 1 m on the listener's right
 *     spatial.updateRemotePosition(remoteUid, info);
 *
 * Methods return `int` as Agora's do: 0, or a negated `agoraish_error_code`.
 * Nothing throws unless you use the throwing constructor (only when the
 * compiler has exceptions enabled). Every method is thread-safe, as the C ABI
 * is. Link with -lagoraish.
 */
#ifndef AGORAISH_HPP
#define AGORAISH_HPP

#include "agoraish.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

/** The C++ API of libagoraish. */
namespace agoraish {

/** A user id (Agora's uid_t): 1..2^32-1; 0 asks the server to choose one.
 *  Write it qualified (`agoraish::uid_t`) where POSIX's ::uid_t is visible
 *  and `using namespace agoraish` is in force. */
using uid_t = std::uint32_t;

/** Channel profiles (Agora's CHANNEL_PROFILE_TYPE), for setChannelProfile(). */
enum CHANNEL_PROFILE_TYPE : int {
    /** Everyone publishes and sees everyone (the default). */
    CHANNEL_PROFILE_COMMUNICATION = AGORAISH_CHANNEL_PROFILE_COMMUNICATION,
    /** Broadcasters publish; the audience is invisible and only receives. */
    CHANNEL_PROFILE_LIVE_BROADCASTING = AGORAISH_CHANNEL_PROFILE_LIVE_BROADCASTING,
};

/** Client roles (Agora's CLIENT_ROLE_TYPE), for setClientRole(). */
enum CLIENT_ROLE_TYPE : int {
    /** Sends and receives (the default). */
    CLIENT_ROLE_BROADCASTER = AGORAISH_CLIENT_ROLE_BROADCASTER,
    /** Receives only; invisible to others in live broadcasting. */
    CLIENT_ROLE_AUDIENCE = AGORAISH_CLIENT_ROLE_AUDIENCE,
};

/** Connection states (Agora's CONNECTION_STATE_TYPE). The underlying type is
 *  int so that getConnectionState() can also carry a negated error code. */
enum CONNECTION_STATE_TYPE : int {
    /** Not in a channel (initially and after leaving). */
    CONNECTION_STATE_DISCONNECTED = AGORAISH_CONNECTION_STATE_DISCONNECTED,
    /** Joining. */
    CONNECTION_STATE_CONNECTING = AGORAISH_CONNECTION_STATE_CONNECTING,
    /** In the channel. */
    CONNECTION_STATE_CONNECTED = AGORAISH_CONNECTION_STATE_CONNECTED,
    /** The link broke; rejoining by itself. */
    CONNECTION_STATE_RECONNECTING = AGORAISH_CONNECTION_STATE_RECONNECTING,
    /** Gave up (see the reason); leave, then join again. */
    CONNECTION_STATE_FAILED = AGORAISH_CONNECTION_STATE_FAILED,
};

/** Why the connection state changed (Agora's CONNECTION_CHANGED_REASON_TYPE):
 *  the values this engine reports. */
enum CONNECTION_CHANGED_REASON_TYPE : int {
    /** Joining started. */
    CONNECTION_CHANGED_CONNECTING = AGORAISH_CONNECTION_CHANGED_CONNECTING,
    /** Joined. */
    CONNECTION_CHANGED_JOIN_SUCCESS = AGORAISH_CONNECTION_CHANGED_JOIN_SUCCESS,
    /** The link to the server broke. */
    CONNECTION_CHANGED_INTERRUPTED = AGORAISH_CONNECTION_CHANGED_INTERRUPTED,
    /** The server banned this client. */
    CONNECTION_CHANGED_BANNED_BY_SERVER = AGORAISH_CONNECTION_CHANGED_BANNED_BY_SERVER,
    /** Joining failed for good. */
    CONNECTION_CHANGED_JOIN_FAILED = AGORAISH_CONNECTION_CHANGED_JOIN_FAILED,
    /** The host left the channel. */
    CONNECTION_CHANGED_LEAVE_CHANNEL = AGORAISH_CONNECTION_CHANGED_LEAVE_CHANNEL,
    /** The server does not know the app id. */
    CONNECTION_CHANGED_INVALID_APP_ID = AGORAISH_CONNECTION_CHANGED_INVALID_APP_ID,
    /** The server refused the channel name. */
    CONNECTION_CHANGED_INVALID_CHANNEL_NAME = AGORAISH_CONNECTION_CHANGED_INVALID_CHANNEL_NAME,
    /** The token is invalid for this app, channel and user. */
    CONNECTION_CHANGED_INVALID_TOKEN = AGORAISH_CONNECTION_CHANGED_INVALID_TOKEN,
    /** The token expired; renew it to rejoin. */
    CONNECTION_CHANGED_TOKEN_EXPIRED = AGORAISH_CONNECTION_CHANGED_TOKEN_EXPIRED,
    /** The server refused the join (see onError). */
    CONNECTION_CHANGED_REJECTED_BY_SERVER = AGORAISH_CONNECTION_CHANGED_REJECTED_BY_SERVER,
    /** Rejoining with a renewed token. */
    CONNECTION_CHANGED_RENEW_TOKEN = AGORAISH_CONNECTION_CHANGED_RENEW_TOKEN,
    CONNECTION_CHANGED_CLIENT_IP_ADDRESS_CHANGED = AGORAISH_CONNECTION_CHANGED_CLIENT_IP_ADDRESS_CHANGED,
    /** The server stopped answering keepalives. */
    CONNECTION_CHANGED_KEEP_ALIVE_TIMEOUT = AGORAISH_CONNECTION_CHANGED_KEEP_ALIVE_TIMEOUT,
    /** Rejoined after an interruption. */
    CONNECTION_CHANGED_REJOIN_SUCCESS = AGORAISH_CONNECTION_CHANGED_REJOIN_SUCCESS,
    /** Another client joined with this uid; it replaced this one. */
    CONNECTION_CHANGED_SAME_UID_LOGIN = AGORAISH_CONNECTION_CHANGED_SAME_UID_LOGIN,
};

/** Why a remote user went offline (Agora's USER_OFFLINE_REASON_TYPE). */
enum USER_OFFLINE_REASON_TYPE : int {
    /** The user left. */
    USER_OFFLINE_QUIT = AGORAISH_USER_OFFLINE_QUIT,
    /** Nothing heard from the user within the drop timeout. */
    USER_OFFLINE_DROPPED = AGORAISH_USER_OFFLINE_DROPPED,
    /** The user became audience in live broadcasting. */
    USER_OFFLINE_BECOME_AUDIENCE = AGORAISH_USER_OFFLINE_BECOME_AUDIENCE,
};

/** Network quality (Agora's QUALITY_TYPE), for onNetworkQuality: from the loss
 *  and the round trip (see agoraish.h for the thresholds). */
enum QUALITY_TYPE : int {
    /** Not known (yet): no media measured. */
    QUALITY_UNKNOWN = AGORAISH_QUALITY_UNKNOWN,
    /** Below 1 % loss and 100 ms. */
    QUALITY_EXCELLENT = AGORAISH_QUALITY_EXCELLENT,
    /** Below 3 % loss and 200 ms. */
    QUALITY_GOOD = AGORAISH_QUALITY_GOOD,
    /** Below 8 % loss and 300 ms. */
    QUALITY_POOR = AGORAISH_QUALITY_POOR,
    /** Below 15 % loss and 500 ms. */
    QUALITY_BAD = AGORAISH_QUALITY_BAD,
    /** Below 40 % loss. */
    QUALITY_VBAD = AGORAISH_QUALITY_VBAD,
    /** 40 % loss or more. */
    QUALITY_DOWN = AGORAISH_QUALITY_DOWN,
};

/** Audio profiles (Agora's AUDIO_PROFILE_TYPE), for setAudioProfile(); see
 *  agoraish.h for the band, channels and bitrate of each. */
enum AUDIO_PROFILE_TYPE : int {
    AUDIO_PROFILE_DEFAULT = AGORAISH_AUDIO_PROFILE_DEFAULT,
    AUDIO_PROFILE_SPEECH_STANDARD = AGORAISH_AUDIO_PROFILE_SPEECH_STANDARD,
    AUDIO_PROFILE_MUSIC_STANDARD = AGORAISH_AUDIO_PROFILE_MUSIC_STANDARD,
    AUDIO_PROFILE_MUSIC_STANDARD_STEREO = AGORAISH_AUDIO_PROFILE_MUSIC_STANDARD_STEREO,
    AUDIO_PROFILE_MUSIC_HIGH_QUALITY = AGORAISH_AUDIO_PROFILE_MUSIC_HIGH_QUALITY,
    AUDIO_PROFILE_MUSIC_HIGH_QUALITY_STEREO = AGORAISH_AUDIO_PROFILE_MUSIC_HIGH_QUALITY_STEREO,
    AUDIO_PROFILE_IOT = AGORAISH_AUDIO_PROFILE_IOT,
};

/** Local audio states (Agora's LOCAL_AUDIO_STREAM_STATE), for onLocalAudioStateChanged. */
enum LOCAL_AUDIO_STREAM_STATE : int {
    /** Not capturing (before a call, disabled). */
    LOCAL_AUDIO_STREAM_STATE_STOPPED = AGORAISH_LOCAL_AUDIO_STREAM_STATE_STOPPED,
    /** The first 10 ms were captured or pushed. */
    LOCAL_AUDIO_STREAM_STATE_RECORDING = AGORAISH_LOCAL_AUDIO_STREAM_STATE_RECORDING,
    /** The first frame was encoded and sent. */
    LOCAL_AUDIO_STREAM_STATE_ENCODING = AGORAISH_LOCAL_AUDIO_STREAM_STATE_ENCODING,
    /** Capture or encoding failed: see the error. */
    LOCAL_AUDIO_STREAM_STATE_FAILED = AGORAISH_LOCAL_AUDIO_STREAM_STATE_FAILED,
};

/** Why the local audio state changed (Agora's LOCAL_AUDIO_STREAM_ERROR). */
enum LOCAL_AUDIO_STREAM_ERROR : int {
    LOCAL_AUDIO_STREAM_ERROR_OK = AGORAISH_LOCAL_AUDIO_STREAM_ERROR_OK,
    LOCAL_AUDIO_STREAM_ERROR_FAILURE = AGORAISH_LOCAL_AUDIO_STREAM_ERROR_FAILURE,
    LOCAL_AUDIO_STREAM_ERROR_DEVICE_NO_PERMISSION = AGORAISH_LOCAL_AUDIO_STREAM_ERROR_DEVICE_NO_PERMISSION,
    LOCAL_AUDIO_STREAM_ERROR_DEVICE_BUSY = AGORAISH_LOCAL_AUDIO_STREAM_ERROR_DEVICE_BUSY,
    /** The capture device exists but would not open. */
    LOCAL_AUDIO_STREAM_ERROR_RECORD_FAILURE = AGORAISH_LOCAL_AUDIO_STREAM_ERROR_RECORD_FAILURE,
    LOCAL_AUDIO_STREAM_ERROR_ENCODE_FAILURE = AGORAISH_LOCAL_AUDIO_STREAM_ERROR_ENCODE_FAILURE,
    /** ALSA knows no such capture device. */
    LOCAL_AUDIO_STREAM_ERROR_NO_RECORDING_DEVICE = AGORAISH_LOCAL_AUDIO_STREAM_ERROR_NO_RECORDING_DEVICE,
    LOCAL_AUDIO_STREAM_ERROR_NO_PLAYOUT_DEVICE = AGORAISH_LOCAL_AUDIO_STREAM_ERROR_NO_PLAYOUT_DEVICE,
};

/** Remote audio states (Agora's REMOTE_AUDIO_STATE), for onRemoteAudioStateChanged. */
enum REMOTE_AUDIO_STATE : int {
    /** Muted (by either side) or offline. */
    REMOTE_AUDIO_STATE_STOPPED = AGORAISH_REMOTE_AUDIO_STATE_STOPPED,
    /** The first packet arrived. */
    REMOTE_AUDIO_STATE_STARTING = AGORAISH_REMOTE_AUDIO_STATE_STARTING,
    /** Audio is decoded and played. */
    REMOTE_AUDIO_STATE_DECODING = AGORAISH_REMOTE_AUDIO_STATE_DECODING,
    /** No packet for 500 ms while playing. */
    REMOTE_AUDIO_STATE_FROZEN = AGORAISH_REMOTE_AUDIO_STATE_FROZEN,
    REMOTE_AUDIO_STATE_FAILED = AGORAISH_REMOTE_AUDIO_STATE_FAILED,
};

/** Why a remote audio state changed (Agora's REMOTE_AUDIO_STATE_REASON). */
enum REMOTE_AUDIO_STATE_REASON : int {
    REMOTE_AUDIO_REASON_INTERNAL = AGORAISH_REMOTE_AUDIO_REASON_INTERNAL,
    REMOTE_AUDIO_REASON_NETWORK_CONGESTION = AGORAISH_REMOTE_AUDIO_REASON_NETWORK_CONGESTION,
    REMOTE_AUDIO_REASON_NETWORK_RECOVERY = AGORAISH_REMOTE_AUDIO_REASON_NETWORK_RECOVERY,
    REMOTE_AUDIO_REASON_LOCAL_MUTED = AGORAISH_REMOTE_AUDIO_REASON_LOCAL_MUTED,
    REMOTE_AUDIO_REASON_LOCAL_UNMUTED = AGORAISH_REMOTE_AUDIO_REASON_LOCAL_UNMUTED,
    REMOTE_AUDIO_REASON_REMOTE_MUTED = AGORAISH_REMOTE_AUDIO_REASON_REMOTE_MUTED,
    REMOTE_AUDIO_REASON_REMOTE_UNMUTED = AGORAISH_REMOTE_AUDIO_REASON_REMOTE_UNMUTED,
    REMOTE_AUDIO_REASON_REMOTE_OFFLINE = AGORAISH_REMOTE_AUDIO_REASON_REMOTE_OFFLINE,
};

/** Raw audio positions (Agora's AUDIO_FRAME_POSITION bits), for registerAudioFrameObserver(). */
enum AUDIO_FRAME_POSITION : int {
    AUDIO_FRAME_POSITION_NONE = AGORAISH_AUDIO_FRAME_POSITION_NONE,
    /** The mix of every remote user, before playout. */
    AUDIO_FRAME_POSITION_PLAYBACK = AGORAISH_AUDIO_FRAME_POSITION_PLAYBACK,
    /** Local audio, before encoding. */
    AUDIO_FRAME_POSITION_RECORD = AGORAISH_AUDIO_FRAME_POSITION_RECORD,
    /** Local and remote audio mixed. */
    AUDIO_FRAME_POSITION_MIXED = AGORAISH_AUDIO_FRAME_POSITION_MIXED,
    /** One remote user, before mixing. */
    AUDIO_FRAME_POSITION_BEFORE_MIXING = AGORAISH_AUDIO_FRAME_POSITION_BEFORE_MIXING,
};

/** What an observer may do with a frame (Agora's RAW_AUDIO_FRAME_OP_MODE_TYPE). */
enum RAW_AUDIO_FRAME_OP_MODE_TYPE : int {
    /** Read; changes are ignored. */
    RAW_AUDIO_FRAME_OP_MODE_READ_ONLY = AGORAISH_RAW_AUDIO_FRAME_OP_MODE_READ_ONLY,
    /** The buffer arrives silent; what is written replaces the audio. */
    RAW_AUDIO_FRAME_OP_MODE_WRITE_ONLY = AGORAISH_RAW_AUDIO_FRAME_OP_MODE_WRITE_ONLY,
    /** Read and change; changes are sent or played. */
    RAW_AUDIO_FRAME_OP_MODE_READ_WRITE = AGORAISH_RAW_AUDIO_FRAME_OP_MODE_READ_WRITE,
};

/** Recording quality (Agora's AUDIO_RECORDING_QUALITY_TYPE): the Ogg Opus
 *  bitrate (16, 32, 64, 128 kbps); WAV is always 16-bit PCM. */
enum AUDIO_RECORDING_QUALITY_TYPE : int {
    AUDIO_RECORDING_QUALITY_LOW = AGORAISH_AUDIO_RECORDING_QUALITY_LOW,
    AUDIO_RECORDING_QUALITY_MEDIUM = AGORAISH_AUDIO_RECORDING_QUALITY_MEDIUM,
    AUDIO_RECORDING_QUALITY_HIGH = AGORAISH_AUDIO_RECORDING_QUALITY_HIGH,
    AUDIO_RECORDING_QUALITY_ULTRA_HIGH = AGORAISH_AUDIO_RECORDING_QUALITY_ULTRA_HIGH,
};

/** What is recorded (Agora's AUDIO_RECORDING_POSITION). */
enum AUDIO_RECORDING_POSITION : int {
    /** Local and remote audio. */
    AUDIO_RECORDING_POSITION_MIXED_RECORDING_AND_PLAYBACK =
        AGORAISH_AUDIO_RECORDING_POSITION_MIXED_RECORDING_AND_PLAYBACK,
    /** Local audio only. */
    AUDIO_RECORDING_POSITION_RECORDING = AGORAISH_AUDIO_RECORDING_POSITION_RECORDING,
    /** Remote audio only. */
    AUDIO_RECORDING_POSITION_MIXED_PLAYBACK = AGORAISH_AUDIO_RECORDING_POSITION_MIXED_PLAYBACK,
};

/** Device kinds (Agora's MEDIA_DEVICE_TYPE). */
enum MEDIA_DEVICE_TYPE : int {
    AUDIO_PLAYOUT_DEVICE = AGORAISH_AUDIO_PLAYOUT_DEVICE,
    AUDIO_RECORDING_DEVICE = AGORAISH_AUDIO_RECORDING_DEVICE,
};

/** Video codecs (Agora's VIDEO_CODEC_TYPE), for VideoEncoderConfiguration. */
enum VIDEO_CODEC_TYPE : int {
    /** VP8 (RFC 7741), the default. */
    VIDEO_CODEC_VP8 = AGORAISH_VIDEO_CODEC_VP8,
    /** VP9 (RFC 9628), one spatial layer. */
    VIDEO_CODEC_VP9 = AGORAISH_VIDEO_CODEC_VP9,
};

/** How the encoder's width x height meets each picture's orientation (Agora's ORIENTATION_MODE). */
enum ORIENTATION_MODE : int {
    /** The configured size turned to each picture's orientation (the default). */
    ORIENTATION_MODE_ADAPTIVE = 0,
    /** Always landscape: a portrait picture is cropped around its centre. */
    ORIENTATION_MODE_FIXED_LANDSCAPE = 1,
    /** Always portrait: a landscape picture is cropped around its centre. */
    ORIENTATION_MODE_FIXED_PORTRAIT = 2,
};

/** What to keep when bandwidth is short (Agora's DEGRADATION_PREFERENCE). */
enum DEGRADATION_PREFERENCE : int {
    MAINTAIN_QUALITY = 0,
    MAINTAIN_FRAMERATE = 1,
    MAINTAIN_BALANCED = 2,
    MAINTAIN_RESOLUTION = 3,
};

/** Mirroring (Agora's VIDEO_MIRROR_MODE_TYPE): of the sent stream in
 *  VideoEncoderConfiguration, of a canvas in VideoCanvas and the render mode setters. */
enum VIDEO_MIRROR_MODE_TYPE : int {
    /** Canvas: the local preview mirrored, remote users not. Sent stream: not mirrored. */
    VIDEO_MIRROR_MODE_AUTO = 0,
    VIDEO_MIRROR_MODE_ENABLED = 1,
    VIDEO_MIRROR_MODE_DISABLED = 2,
};

/** How a picture meets a canvas's view size (Agora's RENDER_MODE_TYPE). */
enum RENDER_MODE_TYPE : int {
    /** Cover the view, cropping what sticks out (the default). */
    RENDER_MODE_HIDDEN = 1,
    /** Inside the view, with black bars. */
    RENDER_MODE_FIT = 2,
    /** As HIDDEN. */
    RENDER_MODE_ADAPTIVE = 3,
    /** Stretched to the view. */
    RENDER_MODE_FILL = 4,
};

/** Local video states (Agora's LOCAL_VIDEO_STREAM_STATE), for onLocalVideoStateChanged. */
enum LOCAL_VIDEO_STREAM_STATE : int {
    LOCAL_VIDEO_STREAM_STATE_STOPPED = AGORAISH_LOCAL_VIDEO_STREAM_STATE_STOPPED,
    /** Pictures arrive (camera or pushed). */
    LOCAL_VIDEO_STREAM_STATE_CAPTURING = AGORAISH_LOCAL_VIDEO_STREAM_STATE_CAPTURING,
    /** The first picture was encoded and sent in a call. */
    LOCAL_VIDEO_STREAM_STATE_ENCODING = AGORAISH_LOCAL_VIDEO_STREAM_STATE_ENCODING,
    LOCAL_VIDEO_STREAM_STATE_FAILED = AGORAISH_LOCAL_VIDEO_STREAM_STATE_FAILED,
};

/** Why the local video state changed (Agora's LOCAL_VIDEO_STREAM_ERROR). */
enum LOCAL_VIDEO_STREAM_ERROR : int {
    LOCAL_VIDEO_STREAM_ERROR_OK = AGORAISH_LOCAL_VIDEO_STREAM_ERROR_OK,
    LOCAL_VIDEO_STREAM_ERROR_FAILURE = AGORAISH_LOCAL_VIDEO_STREAM_ERROR_FAILURE,
    LOCAL_VIDEO_STREAM_ERROR_DEVICE_NO_PERMISSION = AGORAISH_LOCAL_VIDEO_STREAM_ERROR_DEVICE_NO_PERMISSION,
    LOCAL_VIDEO_STREAM_ERROR_DEVICE_BUSY = AGORAISH_LOCAL_VIDEO_STREAM_ERROR_DEVICE_BUSY,
    LOCAL_VIDEO_STREAM_ERROR_CAPTURE_FAILURE = AGORAISH_LOCAL_VIDEO_STREAM_ERROR_CAPTURE_FAILURE,
    LOCAL_VIDEO_STREAM_ERROR_ENCODE_FAILURE = AGORAISH_LOCAL_VIDEO_STREAM_ERROR_ENCODE_FAILURE,
    /** No camera (no /dev/video* capture node). */
    LOCAL_VIDEO_STREAM_ERROR_DEVICE_NOT_FOUND = AGORAISH_LOCAL_VIDEO_STREAM_ERROR_DEVICE_NOT_FOUND,
    /** The camera chosen with setVideoDevice() is not there. */
    LOCAL_VIDEO_STREAM_ERROR_DEVICE_INVALID_ID = AGORAISH_LOCAL_VIDEO_STREAM_ERROR_DEVICE_INVALID_ID,
};

/** Remote video states (Agora's REMOTE_VIDEO_STATE), for onRemoteVideoStateChanged. */
enum REMOTE_VIDEO_STATE : int {
    /** Muted (by either side) or offline. */
    REMOTE_VIDEO_STATE_STOPPED = AGORAISH_REMOTE_VIDEO_STATE_STOPPED,
    /** The first packet arrived. */
    REMOTE_VIDEO_STATE_STARTING = AGORAISH_REMOTE_VIDEO_STATE_STARTING,
    /** Pictures are decoded. */
    REMOTE_VIDEO_STATE_DECODING = AGORAISH_REMOTE_VIDEO_STATE_DECODING,
    /** No picture for 500 ms. */
    REMOTE_VIDEO_STATE_FROZEN = AGORAISH_REMOTE_VIDEO_STATE_FROZEN,
    REMOTE_VIDEO_STATE_FAILED = AGORAISH_REMOTE_VIDEO_STATE_FAILED,
};

/** Why a remote video state changed (Agora's REMOTE_VIDEO_STATE_REASON). */
enum REMOTE_VIDEO_STATE_REASON : int {
    REMOTE_VIDEO_STATE_REASON_INTERNAL = AGORAISH_REMOTE_VIDEO_STATE_REASON_INTERNAL,
    REMOTE_VIDEO_STATE_REASON_NETWORK_CONGESTION = AGORAISH_REMOTE_VIDEO_STATE_REASON_NETWORK_CONGESTION,
    REMOTE_VIDEO_STATE_REASON_NETWORK_RECOVERY = AGORAISH_REMOTE_VIDEO_STATE_REASON_NETWORK_RECOVERY,
    REMOTE_VIDEO_STATE_REASON_LOCAL_MUTED = AGORAISH_REMOTE_VIDEO_STATE_REASON_LOCAL_MUTED,
    REMOTE_VIDEO_STATE_REASON_LOCAL_UNMUTED = AGORAISH_REMOTE_VIDEO_STATE_REASON_LOCAL_UNMUTED,
    REMOTE_VIDEO_STATE_REASON_REMOTE_MUTED = AGORAISH_REMOTE_VIDEO_STATE_REASON_REMOTE_MUTED,
    REMOTE_VIDEO_STATE_REASON_REMOTE_UNMUTED = AGORAISH_REMOTE_VIDEO_STATE_REASON_REMOTE_UNMUTED,
    REMOTE_VIDEO_STATE_REASON_REMOTE_OFFLINE = AGORAISH_REMOTE_VIDEO_STATE_REASON_REMOTE_OFFLINE,
    REMOTE_VIDEO_STATE_REASON_AUDIO_FALLBACK = AGORAISH_REMOTE_VIDEO_STATE_REASON_AUDIO_FALLBACK,
    REMOTE_VIDEO_STATE_REASON_AUDIO_FALLBACK_RECOVERY = AGORAISH_REMOTE_VIDEO_STATE_REASON_AUDIO_FALLBACK_RECOVERY,
};

/** Which stream of a publisher to receive (Agora's REMOTE_VIDEO_STREAM_TYPE, and
 *  Agora 4.x's VIDEO_STREAM_TYPE with the simulcast layers, ABI 0.12): the high
 *  or low stream of dual stream, or a layer set with setSimulcastConfig(). */
enum REMOTE_VIDEO_STREAM_TYPE : int {
    /** The full-size stream (the default). */
    REMOTE_VIDEO_STREAM_HIGH = 0,
    /** The small one: inside 320 x 180, half the frame rate (or SimulcastConfig::STREAM_LOW's box). */
    REMOTE_VIDEO_STREAM_LOW = 1,
    /** Agora 4.x's names (VIDEO_STREAM_TYPE): the high stream. */
    VIDEO_STREAM_HIGH = AGORAISH_VIDEO_STREAM_HIGH,
    /** The low stream. */
    VIDEO_STREAM_LOW = AGORAISH_VIDEO_STREAM_LOW,
    /** Simulcast layer 1..6: SimulcastConfig::STREAM_LAYER_1..6 of the publisher (ABI 0.12). */
    VIDEO_STREAM_LAYER_1 = AGORAISH_VIDEO_STREAM_LAYER_1,
    VIDEO_STREAM_LAYER_2 = AGORAISH_VIDEO_STREAM_LAYER_2,
    VIDEO_STREAM_LAYER_3 = AGORAISH_VIDEO_STREAM_LAYER_3,
    VIDEO_STREAM_LAYER_4 = AGORAISH_VIDEO_STREAM_LAYER_4,
    VIDEO_STREAM_LAYER_5 = AGORAISH_VIDEO_STREAM_LAYER_5,
    VIDEO_STREAM_LAYER_6 = AGORAISH_VIDEO_STREAM_LAYER_6,
};

/** Agora 4.x's name of REMOTE_VIDEO_STREAM_TYPE: the same type, so either
 *  name's values go to setRemoteVideoStreamType() and compare with
 *  RemoteVideoStats::rxStreamType. */
using VIDEO_STREAM_TYPE = REMOTE_VIDEO_STREAM_TYPE;

/** How complete a last-mile probe's result is (Agora's LASTMILE_PROBE_RESULT_STATE). */
enum LASTMILE_PROBE_RESULT_STATE : int {
    /** Every direction probed was measured. */
    LASTMILE_PROBE_RESULT_COMPLETE = AGORAISH_LASTMILE_PROBE_RESULT_COMPLETE,
    /** A direction probed delivered too little to measure its bandwidth. */
    LASTMILE_PROBE_RESULT_INCOMPLETE_NO_BWE = AGORAISH_LASTMILE_PROBE_RESULT_INCOMPLETE_NO_BWE,
    /** The server's media port was not reached. */
    LASTMILE_PROBE_RESULT_UNAVAILABLE = AGORAISH_LASTMILE_PROBE_RESULT_UNAVAILABLE,
};

/** What may be given up when the network is short (Agora's STREAM_FALLBACK_OPTIONS),
 *  for setLocalPublishFallbackOption() and setRemoteSubscribeFallbackOption(). */
enum STREAM_FALLBACK_OPTIONS : int {
    /** Nothing: video as asked for, whatever the network. */
    STREAM_FALLBACK_OPTION_DISABLED = AGORAISH_STREAM_FALLBACK_OPTION_DISABLED,
    /** The low stream of dual-stream publishers (subscribing only; the subscribe default). */
    STREAM_FALLBACK_OPTION_VIDEO_STREAM_LOW = AGORAISH_STREAM_FALLBACK_OPTION_VIDEO_STREAM_LOW,
    /** Then no video at all, audio only. */
    STREAM_FALLBACK_OPTION_AUDIO_ONLY = AGORAISH_STREAM_FALLBACK_OPTION_AUDIO_ONLY,
};

/** A remote user's priority when the downlink is shared out (Agora's PRIORITY_TYPE),
 *  for setRemoteUserPriority(). */
enum PRIORITY_TYPE : int {
    /** Served first; one user at most. */
    PRIORITY_HIGH = AGORAISH_PRIORITY_HIGH,
    /** As everyone else (the default). */
    PRIORITY_NORMAL = AGORAISH_PRIORITY_NORMAL,
};

/** The built-in encryption's modes (Agora's ENCRYPTION_MODE), for enableEncryption().
 *  The GCM2 modes need a 32-byte salt that is not all zero. */
enum ENCRYPTION_MODE : int {
    AES_128_XTS = AGORAISH_ENCRYPTION_MODE_AES_128_XTS,
    AES_128_ECB = AGORAISH_ENCRYPTION_MODE_AES_128_ECB,
    AES_256_XTS = AGORAISH_ENCRYPTION_MODE_AES_256_XTS,
    SM4_128_ECB = AGORAISH_ENCRYPTION_MODE_SM4_128_ECB,
    AES_128_GCM = AGORAISH_ENCRYPTION_MODE_AES_128_GCM,
    AES_256_GCM = AGORAISH_ENCRYPTION_MODE_AES_256_GCM,
    AES_128_GCM2 = AGORAISH_ENCRYPTION_MODE_AES_128_GCM2,
    AES_256_GCM2 = AGORAISH_ENCRYPTION_MODE_AES_256_GCM2,
    /** No mode: the end of the list. */
    MODE_END = AGORAISH_ENCRYPTION_MODE_END,
};

/** What went wrong in onEncryptionError (Agora's ENCRYPTION_ERROR_TYPE). */
enum ENCRYPTION_ERROR_TYPE : int {
    ENCRYPTION_ERROR_INTERNAL_FAILURE = AGORAISH_ENCRYPTION_ERROR_INTERNAL_FAILURE,
    /** Media that could not be decrypted (another key, mode or salt, or not encrypted). */
    ENCRYPTION_ERROR_DECRYPTION_FAILURE = AGORAISH_ENCRYPTION_ERROR_DECRYPTION_FAILURE,
    ENCRYPTION_ERROR_ENCRYPTION_FAILURE = AGORAISH_ENCRYPTION_ERROR_ENCRYPTION_FAILURE,
    /** A data-stream message that could not be decrypted. */
    ENCRYPTION_ERROR_DATASTREAM_DECRYPTION_FAILURE = AGORAISH_ENCRYPTION_ERROR_DATASTREAM_DECRYPTION_FAILURE,
    ENCRYPTION_ERROR_DATASTREAM_ENCRYPTION_FAILURE = AGORAISH_ENCRYPTION_ERROR_DATASTREAM_ENCRYPTION_FAILURE,
};

/** Raw video positions (Agora's VIDEO_OBSERVER_POSITION bits), for registerVideoFrameObserver(). */
enum VIDEO_OBSERVER_POSITION : int {
    /** Each local picture as captured or pushed (upright). */
    POSITION_POST_CAPTURER = AGORAISH_VIDEO_POSITION_POST_CAPTURER,
    /** Each remote picture before its canvas. */
    POSITION_PRE_RENDERER = AGORAISH_VIDEO_POSITION_PRE_RENDERER,
    /** Each local picture about to be encoded. */
    POSITION_PRE_ENCODER = AGORAISH_VIDEO_POSITION_PRE_ENCODER,
};

/** The camera's capture size (Agora's CAPTURER_OUTPUT_PREFERENCE). */
enum CAPTURER_OUTPUT_PREFERENCE : int {
    /** AUTO, PERFORMANCE and PREVIEW capture at the encoder's size and frame rate. */
    CAPTURER_OUTPUT_PREFERENCE_AUTO = 0,
    CAPTURER_OUTPUT_PREFERENCE_PERFORMANCE = 1,
    CAPTURER_OUTPUT_PREFERENCE_PREVIEW = 2,
    /** captureWidth x captureHeight of CameraCapturerConfiguration. */
    CAPTURER_OUTPUT_PREFERENCE_MANUAL = 3,
};

/** Pixel formats of pushed pictures (Agora's VIDEO_PIXEL_FORMAT); the engine
 *  converts them to I420. Rendered pictures are always I420. */
enum VIDEO_PIXEL_FORMAT : int {
    /** Y, U, V planes (U and V at half size). */
    VIDEO_PIXEL_I420 = AGORAISH_VIDEO_PIXEL_I420,
    /** Packed B, G, R, A bytes in yBuffer. */
    VIDEO_PIXEL_BGRA = AGORAISH_VIDEO_PIXEL_BGRA,
    /** A Y plane, then interleaved V/U (half size) in uBuffer. */
    VIDEO_PIXEL_NV21 = AGORAISH_VIDEO_PIXEL_NV21,
    /** Packed R, G, B, A bytes in yBuffer. */
    VIDEO_PIXEL_RGBA = AGORAISH_VIDEO_PIXEL_RGBA,
    /** A Y plane, then interleaved U/V (half size) in uBuffer. */
    VIDEO_PIXEL_NV12 = AGORAISH_VIDEO_PIXEL_NV12,
};

/** Custom audio track types (Agora's AUDIO_TRACK_TYPE), for createCustomAudioTrack().
 *  A connection publishes one audio track, so both are sent as pushed. */
enum AUDIO_TRACK_TYPE : int {
    /** Mixable: in Agora's SDK mixed with a connection's other tracks. */
    AUDIO_TRACK_MIXABLE = AGORAISH_AUDIO_TRACK_MIXABLE,
    /** Direct: sent as pushed. */
    AUDIO_TRACK_DIRECT = AGORAISH_AUDIO_TRACK_DIRECT,
};

/** A custom track's id (Agora's track_id_t and video_track_id_t), from
 *  createCustomAudioTrack(), createCustomVideoTrack() or
 *  createCustomEncodedVideoTrack(): 1 and up. Audio and video tracks are
 *  counted apart, so an audio and a video track may have the same id. */
using track_id_t = std::int32_t;

/** Connections an engine may hold besides its own (AGORAISH_MAX_CONNECTIONS). */
constexpr int MAX_CONNECTIONS = AGORAISH_MAX_CONNECTIONS;
/** Custom audio tracks an engine may hold (AGORAISH_MAX_CUSTOM_AUDIO_TRACKS). */
constexpr int MAX_CUSTOM_AUDIO_TRACKS = AGORAISH_MAX_CUSTOM_AUDIO_TRACKS;
/** Custom video tracks, raw and encoded together, an engine may hold (AGORAISH_MAX_CUSTOM_VIDEO_TRACKS). */
constexpr int MAX_CUSTOM_VIDEO_TRACKS = AGORAISH_MAX_CUSTOM_VIDEO_TRACKS;
/** The largest encoded frame pushEncodedVideoImage() takes, in bytes (AGORAISH_MAX_ENCODED_VIDEO_FRAME_BYTES). */
constexpr std::size_t MAX_ENCODED_VIDEO_FRAME_BYTES = AGORAISH_MAX_ENCODED_VIDEO_FRAME_BYTES;

/** Encoded video frame types (Agora's VIDEO_FRAME_TYPE), for EncodedVideoFrameInfo. */
enum VIDEO_FRAME_TYPE : int {
    /** Decodes on its own. */
    VIDEO_FRAME_TYPE_KEY_FRAME = AGORAISH_VIDEO_FRAME_TYPE_KEY_FRAME,
    /** Needs the frames before it. */
    VIDEO_FRAME_TYPE_DELTA_FRAME = AGORAISH_VIDEO_FRAME_TYPE_DELTA_FRAME,
};

// ---- Media player, audio mixing and effects, media recorder (ABI 0.13) ----

/** Players an engine may hold at once (AGORAISH_MAX_MEDIA_PLAYERS). */
constexpr int MAX_MEDIA_PLAYERS = AGORAISH_MAX_MEDIA_PLAYERS;
/** Effects an engine plays or holds preloaded at once (AGORAISH_MAX_AUDIO_EFFECTS). */
constexpr int MAX_AUDIO_EFFECTS = AGORAISH_MAX_AUDIO_EFFECTS;
/** Recorders an engine may hold at once (AGORAISH_MAX_MEDIA_RECORDERS). */
constexpr int MAX_MEDIA_RECORDERS = AGORAISH_MAX_MEDIA_RECORDERS;

/** A media player's state (Agora's MEDIA_PLAYER_STATE), for
 *  IMediaPlayerSourceObserver::onPlayerSourceStateChanged and MediaPlayer::getState(). */
enum MEDIA_PLAYER_STATE : int {
    /** Nothing opened. */
    PLAYER_STATE_IDLE = AGORAISH_PLAYER_STATE_IDLE,
    /** open() was called; the source is being opened. */
    PLAYER_STATE_OPENING = AGORAISH_PLAYER_STATE_OPENING,
    /** Opened: ready to play. */
    PLAYER_STATE_OPEN_COMPLETED = AGORAISH_PLAYER_STATE_OPEN_COMPLETED,
    PLAYER_STATE_PLAYING = AGORAISH_PLAYER_STATE_PLAYING,
    PLAYER_STATE_PAUSED = AGORAISH_PLAYER_STATE_PAUSED,
    /** The end was reached (then PLAYBACK_ALL_LOOPS_COMPLETED after the last loop). */
    PLAYER_STATE_PLAYBACK_COMPLETED = AGORAISH_PLAYER_STATE_PLAYBACK_COMPLETED,
    /** Every loop played; play() starts again from 0. */
    PLAYER_STATE_PLAYBACK_ALL_LOOPS_COMPLETED = AGORAISH_PLAYER_STATE_PLAYBACK_ALL_LOOPS_COMPLETED,
    /** stop(): the source is closed. */
    PLAYER_STATE_STOPPED = AGORAISH_PLAYER_STATE_STOPPED,
    /** Opening or reading failed (the reason says why). */
    PLAYER_STATE_FAILED = AGORAISH_PLAYER_STATE_FAILED,
};

/** Why a media player's state changed (Agora's MEDIA_PLAYER_REASON). */
enum MEDIA_PLAYER_REASON : int {
    PLAYER_REASON_NONE = AGORAISH_PLAYER_REASON_NONE,
    PLAYER_REASON_INVALID_ARGUMENTS = AGORAISH_PLAYER_REASON_INVALID_ARGUMENTS,
    PLAYER_REASON_INTERNAL = AGORAISH_PLAYER_REASON_INTERNAL,
    PLAYER_REASON_NO_RESOURCE = AGORAISH_PLAYER_REASON_NO_RESOURCE,
    /** Not a media file (random bytes, truncated headers). */
    PLAYER_REASON_INVALID_MEDIA_SOURCE = AGORAISH_PLAYER_REASON_INVALID_MEDIA_SOURCE,
    /** No audio or video stream. */
    PLAYER_REASON_UNKNOWN_STREAM_TYPE = AGORAISH_PLAYER_REASON_UNKNOWN_STREAM_TYPE,
    /** No decoder for any stream. */
    PLAYER_REASON_CODEC_NOT_SUPPORTED = AGORAISH_PLAYER_REASON_CODEC_NOT_SUPPORTED,
    /** A missing file, a refused connection, HTTP 404. */
    PLAYER_REASON_URL_NOT_FOUND = AGORAISH_PLAYER_REASON_URL_NOT_FOUND,
    /** A read timed out or the network dropped. */
    PLAYER_REASON_INTERRUPTED = AGORAISH_PLAYER_REASON_INTERRUPTED,
};

/** Events of a media player (Agora's MEDIA_PLAYER_EVENT), for IMediaPlayerSourceObserver::onPlayerEvent. */
enum MEDIA_PLAYER_EVENT : int {
    PLAYER_EVENT_SEEK_BEGIN = AGORAISH_PLAYER_EVENT_SEEK_BEGIN,
    PLAYER_EVENT_SEEK_COMPLETE = AGORAISH_PLAYER_EVENT_SEEK_COMPLETE,
    /** The source cannot seek (a live stream) or the seek failed. */
    PLAYER_EVENT_SEEK_ERROR = AGORAISH_PLAYER_EVENT_SEEK_ERROR,
    PLAYER_EVENT_AUDIO_TRACK_CHANGED = AGORAISH_PLAYER_EVENT_AUDIO_TRACK_CHANGED,
    /** Audio ran out before its time (the network is late). */
    PLAYER_EVENT_BUFFER_LOW = AGORAISH_PLAYER_EVENT_BUFFER_LOW,
    /** Audio flows again. */
    PLAYER_EVENT_BUFFER_RECOVER = AGORAISH_PLAYER_EVENT_BUFFER_RECOVER,
    /** The first picture went to the canvas and observers. */
    PLAYER_EVENT_FIRST_DISPLAYED = AGORAISH_PLAYER_EVENT_FIRST_DISPLAYED,
};

/** A stream's kind (Agora's MEDIA_STREAM_TYPE), in PlayerStreamInfo. */
enum MEDIA_STREAM_TYPE : int {
    STREAM_TYPE_UNKNOWN = AGORAISH_MEDIA_STREAM_TYPE_UNKNOWN,
    STREAM_TYPE_VIDEO = AGORAISH_MEDIA_STREAM_TYPE_VIDEO,
    STREAM_TYPE_AUDIO = AGORAISH_MEDIA_STREAM_TYPE_AUDIO,
    STREAM_TYPE_SUBTITLE = AGORAISH_MEDIA_STREAM_TYPE_SUBTITLE,
};

/** States of audio mixing (Agora's AUDIO_MIXING_STATE_TYPE), for onAudioMixingStateChanged. */
enum AUDIO_MIXING_STATE_TYPE : int {
    AUDIO_MIXING_STATE_PLAYING = AGORAISH_AUDIO_MIXING_STATE_PLAYING,
    AUDIO_MIXING_STATE_PAUSED = AGORAISH_AUDIO_MIXING_STATE_PAUSED,
    AUDIO_MIXING_STATE_STOPPED = AGORAISH_AUDIO_MIXING_STATE_STOPPED,
    AUDIO_MIXING_STATE_FAILED = AGORAISH_AUDIO_MIXING_STATE_FAILED,
};

/** Why audio mixing changed state (Agora's AUDIO_MIXING_REASON_TYPE), for onAudioMixingStateChanged. */
enum AUDIO_MIXING_REASON_TYPE : int {
    AUDIO_MIXING_REASON_OK = AGORAISH_AUDIO_MIXING_REASON_OK,
    /** The file or URL cannot be opened or decoded. */
    AUDIO_MIXING_REASON_CAN_NOT_OPEN = AGORAISH_AUDIO_MIXING_REASON_CAN_NOT_OPEN,
    /** startAudioMixing() within 100 ms of the previous start. */
    AUDIO_MIXING_REASON_TOO_FREQUENT_CALL = AGORAISH_AUDIO_MIXING_REASON_TOO_FREQUENT_CALL,
    /** Reading stopped before the end. */
    AUDIO_MIXING_REASON_INTERRUPTED_EOF = AGORAISH_AUDIO_MIXING_REASON_INTERRUPTED_EOF,
    /** One play ended; the next begins. */
    AUDIO_MIXING_REASON_ONE_LOOP_COMPLETED = AGORAISH_AUDIO_MIXING_REASON_ONE_LOOP_COMPLETED,
    AUDIO_MIXING_REASON_ALL_LOOPS_COMPLETED = AGORAISH_AUDIO_MIXING_REASON_ALL_LOOPS_COMPLETED,
    AUDIO_MIXING_REASON_STOPPED_BY_USER = AGORAISH_AUDIO_MIXING_REASON_STOPPED_BY_USER,
    AUDIO_MIXING_REASON_PAUSED_BY_USER = AGORAISH_AUDIO_MIXING_REASON_PAUSED_BY_USER,
    AUDIO_MIXING_REASON_RESUMED_BY_USER = AGORAISH_AUDIO_MIXING_REASON_RESUMED_BY_USER,
};

/** A media recorder's state (Agora's RecorderState), for IMediaRecorderObserver::onRecorderStateChanged. */
enum RecorderState : int {
    RECORDER_STATE_ERROR = AGORAISH_RECORDER_STATE_ERROR,
    RECORDER_STATE_START = AGORAISH_RECORDER_STATE_START,
    RECORDER_STATE_STOP = AGORAISH_RECORDER_STATE_STOP,
};

/** Why a media recorder's state changed (Agora's RecorderReasonCode). */
enum RecorderReasonCode : int {
    RECORDER_REASON_NONE = AGORAISH_RECORDER_REASON_NONE,
    /** The file cannot be created or written. */
    RECORDER_REASON_WRITE_FAILED = AGORAISH_RECORDER_REASON_WRITE_FAILED,
    /** No audio or video arrived to record. */
    RECORDER_REASON_NO_STREAM = AGORAISH_RECORDER_REASON_NO_STREAM,
    /** maxDurationMs reached: the recording stopped. */
    RECORDER_REASON_OVER_MAX_DURATION = AGORAISH_RECORDER_REASON_OVER_MAX_DURATION,
    /** Agora's value; not reported: a size change is letterboxed and recording goes on. */
    RECORDER_REASON_CONFIG_CHANGED = AGORAISH_RECORDER_REASON_CONFIG_CHANGED,
};

/** What a media recorder records (Agora's MediaRecorderStreamType). Agora
 *  names the members STREAM_TYPE_AUDIO, ...; here they carry the C names'
 *  prefix, because MEDIA_STREAM_TYPE has STREAM_TYPE_AUDIO and
 *  STREAM_TYPE_VIDEO in the same namespace. */
enum MediaRecorderStreamType : int {
    MEDIA_RECORDER_STREAM_AUDIO = AGORAISH_MEDIA_RECORDER_STREAM_AUDIO,
    MEDIA_RECORDER_STREAM_VIDEO = AGORAISH_MEDIA_RECORDER_STREAM_VIDEO,
    MEDIA_RECORDER_STREAM_BOTH = AGORAISH_MEDIA_RECORDER_STREAM_BOTH,
};

/** A media recorder's container (Agora's MediaRecorderContainerFormat): MP4 only. */
enum MediaRecorderContainerFormat : int {
    FORMAT_MP4 = 1,
};

/** Whose stream a media recorder records (Agora's RecorderStreamType): RTC
 *  only (PREVIEW is refused with -4). */
enum RecorderStreamType : int {
    /** The stream of a user of the channel. */
    RTC = 0,
    /** The local preview (not supported). */
    PREVIEW = 1,
};

// ---- Voice processing, voice effects and spatial audio (ABI 0.14) ----

/** Audio scenarios (Agora 4.x AUDIO_SCENARIO_TYPE), for RtcEngine::setAudioScenario():
 *  what audio processing captured audio gets by default (docs/voice.md). */
enum AUDIO_SCENARIO_TYPE : int {
    /** Echo cancellation, noise suppression, gain control, high-pass. */
    AUDIO_SCENARIO_DEFAULT = AGORAISH_AUDIO_SCENARIO_DEFAULT,
    /** Music fidelity: light echo cancellation, nothing else. */
    AUDIO_SCENARIO_GAME_STREAMING = AGORAISH_AUDIO_SCENARIO_GAME_STREAMING,
    /** As DEFAULT, with stronger echo suppression. */
    AUDIO_SCENARIO_CHATROOM = AGORAISH_AUDIO_SCENARIO_CHATROOM,
    /** Singing together: light echo cancellation and high-pass only. */
    AUDIO_SCENARIO_CHORUS = AGORAISH_AUDIO_SCENARIO_CHORUS,
    /** Speech: as DEFAULT, stronger noise suppression. */
    AUDIO_SCENARIO_MEETING = AGORAISH_AUDIO_SCENARIO_MEETING,
};

/** Noise suppression modes (Agora's AUDIO_AINS_MODE), for RtcEngine::setAINSMode(). */
enum AUDIO_AINS_MODE : int {
    /** The noise suppressor's high level. */
    AINS_MODE_BALANCED = AGORAISH_AINS_MODE_BALANCED,
    /** Its very high level: more noise goes, some voice with it. */
    AINS_MODE_AGGRESSIVE = AGORAISH_AINS_MODE_AGGRESSIVE,
    /** Its moderate level: the least processing. */
    AINS_MODE_ULTRALOWLATENCY = AGORAISH_AINS_MODE_ULTRALOWLATENCY,
};

/** Bits of LocalAudioStats::audioProcessing (agoraish_audio_processing_flag): the
 *  steps of audio processing the local voice went through. */
enum AUDIO_PROCESSING_FLAG : int {
    /** Echo cancellation. */
    AUDIO_PROCESSING_AEC = AGORAISH_AUDIO_PROCESSING_AEC,
    /** Noise suppression. */
    AUDIO_PROCESSING_ANS = AGORAISH_AUDIO_PROCESSING_ANS,
    /** Automatic gain control. */
    AUDIO_PROCESSING_AGC = AGORAISH_AUDIO_PROCESSING_AGC,
    /** High-pass filter. */
    AUDIO_PROCESSING_HPF = AGORAISH_AUDIO_PROCESSING_HPF,
};

/** Voice beautifier presets (Agora's VOICE_BEAUTIFIER_PRESET), for
 *  RtcEngine::setVoiceBeautifierPreset(); docs/voice.md lists what each does. */
enum VOICE_BEAUTIFIER_PRESET : int {
    VOICE_BEAUTIFIER_OFF = AGORAISH_VOICE_BEAUTIFIER_OFF,
    CHAT_BEAUTIFIER_MAGNETIC = AGORAISH_CHAT_BEAUTIFIER_MAGNETIC,
    CHAT_BEAUTIFIER_FRESH = AGORAISH_CHAT_BEAUTIFIER_FRESH,
    CHAT_BEAUTIFIER_VITALITY = AGORAISH_CHAT_BEAUTIFIER_VITALITY,
    /** Takes parameters: RtcEngine::setVoiceBeautifierParameters(). */
    SINGING_BEAUTIFIER = AGORAISH_SINGING_BEAUTIFIER,
    TIMBRE_TRANSFORMATION_VIGOROUS = AGORAISH_TIMBRE_TRANSFORMATION_VIGOROUS,
    TIMBRE_TRANSFORMATION_DEEP = AGORAISH_TIMBRE_TRANSFORMATION_DEEP,
    TIMBRE_TRANSFORMATION_MELLOW = AGORAISH_TIMBRE_TRANSFORMATION_MELLOW,
    TIMBRE_TRANSFORMATION_FALSETTO = AGORAISH_TIMBRE_TRANSFORMATION_FALSETTO,
    TIMBRE_TRANSFORMATION_FULL = AGORAISH_TIMBRE_TRANSFORMATION_FULL,
    TIMBRE_TRANSFORMATION_CLEAR = AGORAISH_TIMBRE_TRANSFORMATION_CLEAR,
    TIMBRE_TRANSFORMATION_RESOUNDING = AGORAISH_TIMBRE_TRANSFORMATION_RESOUNDING,
    TIMBRE_TRANSFORMATION_RINGING = AGORAISH_TIMBRE_TRANSFORMATION_RINGING,
    ULTRA_HIGH_QUALITY_VOICE = AGORAISH_ULTRA_HIGH_QUALITY_VOICE,
};

/** Audio effect presets (Agora's AUDIO_EFFECT_PRESET), for RtcEngine::setAudioEffectPreset(). */
enum AUDIO_EFFECT_PRESET : int {
    AUDIO_EFFECT_OFF = AGORAISH_AUDIO_EFFECT_OFF,
    ROOM_ACOUSTICS_KTV = AGORAISH_ROOM_ACOUSTICS_KTV,
    ROOM_ACOUSTICS_VOCAL_CONCERT = AGORAISH_ROOM_ACOUSTICS_VOCAL_CONCERT,
    ROOM_ACOUSTICS_STUDIO = AGORAISH_ROOM_ACOUSTICS_STUDIO,
    ROOM_ACOUSTICS_PHONOGRAPH = AGORAISH_ROOM_ACOUSTICS_PHONOGRAPH,
    ROOM_ACOUSTICS_VIRTUAL_STEREO = AGORAISH_ROOM_ACOUSTICS_VIRTUAL_STEREO,
    ROOM_ACOUSTICS_SPACIAL = AGORAISH_ROOM_ACOUSTICS_SPACIAL,
    ROOM_ACOUSTICS_ETHEREAL = AGORAISH_ROOM_ACOUSTICS_ETHEREAL,
    /** Takes a parameter: RtcEngine::setAudioEffectParameters(). */
    ROOM_ACOUSTICS_3D_VOICE = AGORAISH_ROOM_ACOUSTICS_3D_VOICE,
    /** Takes a parameter: RtcEngine::setAudioEffectParameters(). */
    ROOM_ACOUSTICS_VIRTUAL_SURROUND_SOUND = AGORAISH_ROOM_ACOUSTICS_VIRTUAL_SURROUND_SOUND,
    ROOM_ACOUSTICS_CHORUS = AGORAISH_ROOM_ACOUSTICS_CHORUS,
    VOICE_CHANGER_EFFECT_UNCLE = AGORAISH_VOICE_CHANGER_EFFECT_UNCLE,
    VOICE_CHANGER_EFFECT_OLDMAN = AGORAISH_VOICE_CHANGER_EFFECT_OLDMAN,
    VOICE_CHANGER_EFFECT_BOY = AGORAISH_VOICE_CHANGER_EFFECT_BOY,
    VOICE_CHANGER_EFFECT_SISTER = AGORAISH_VOICE_CHANGER_EFFECT_SISTER,
    VOICE_CHANGER_EFFECT_GIRL = AGORAISH_VOICE_CHANGER_EFFECT_GIRL,
    VOICE_CHANGER_EFFECT_PIGKING = AGORAISH_VOICE_CHANGER_EFFECT_PIGKING,
    VOICE_CHANGER_EFFECT_HULK = AGORAISH_VOICE_CHANGER_EFFECT_HULK,
    STYLE_TRANSFORMATION_RNB = AGORAISH_STYLE_TRANSFORMATION_RNB,
    STYLE_TRANSFORMATION_POPULAR = AGORAISH_STYLE_TRANSFORMATION_POPULAR,
    /** Takes parameters: RtcEngine::setAudioEffectParameters(). */
    PITCH_CORRECTION = AGORAISH_PITCH_CORRECTION,
};

/** Voice conversion presets (Agora's VOICE_CONVERSION_PRESET), for RtcEngine::setVoiceConversionPreset(). */
enum VOICE_CONVERSION_PRESET : int {
    VOICE_CONVERSION_OFF = AGORAISH_VOICE_CONVERSION_OFF,
    VOICE_CHANGER_NEUTRAL = AGORAISH_VOICE_CHANGER_NEUTRAL,
    VOICE_CHANGER_SWEET = AGORAISH_VOICE_CHANGER_SWEET,
    VOICE_CHANGER_SOLID = AGORAISH_VOICE_CHANGER_SOLID,
    VOICE_CHANGER_BASS = AGORAISH_VOICE_CHANGER_BASS,
    VOICE_CHANGER_CARTOON = AGORAISH_VOICE_CHANGER_CARTOON,
    VOICE_CHANGER_CHILDLIKE = AGORAISH_VOICE_CHANGER_CHILDLIKE,
    VOICE_CHANGER_PHONE_OPERATOR = AGORAISH_VOICE_CHANGER_PHONE_OPERATOR,
    VOICE_CHANGER_MONSTER = AGORAISH_VOICE_CHANGER_MONSTER,
    VOICE_CHANGER_TRANSFORMERS = AGORAISH_VOICE_CHANGER_TRANSFORMERS,
    VOICE_CHANGER_GROOT = AGORAISH_VOICE_CHANGER_GROOT,
    VOICE_CHANGER_DARTH_VADER = AGORAISH_VOICE_CHANGER_DARTH_VADER,
    VOICE_CHANGER_IRONLADY = AGORAISH_VOICE_CHANGER_IRONLADY,
    VOICE_CHANGER_SHIN_CHAN = AGORAISH_VOICE_CHANGER_SHIN_CHAN,
    VOICE_CHANGER_GIRLISH_MAN = AGORAISH_VOICE_CHANGER_GIRLISH_MAN,
    VOICE_CHANGER_CHIPMUNK = AGORAISH_VOICE_CHANGER_CHIPMUNK,
};

/** Headphone equalizer presets (Agora's HEADPHONE_EQUALIZER_PRESET), for
 *  RtcEngine::setHeadphoneEQPreset(): what the engine plays. */
enum HEADPHONE_EQUALIZER_PRESET : int {
    HEADPHONE_EQUALIZER_OFF = AGORAISH_HEADPHONE_EQUALIZER_OFF,
    HEADPHONE_EQUALIZER_OVEREAR = AGORAISH_HEADPHONE_EQUALIZER_OVEREAR,
    HEADPHONE_EQUALIZER_INEAR = AGORAISH_HEADPHONE_EQUALIZER_INEAR,
};

/** The bands of RtcEngine::setLocalVoiceEqualization() (Agora's AUDIO_EQUALIZATION_BAND_FREQUENCY). */
enum AUDIO_EQUALIZATION_BAND_FREQUENCY : int {
    AUDIO_EQUALIZATION_BAND_31 = AGORAISH_AUDIO_EQUALIZATION_BAND_31,
    AUDIO_EQUALIZATION_BAND_62 = AGORAISH_AUDIO_EQUALIZATION_BAND_62,
    AUDIO_EQUALIZATION_BAND_125 = AGORAISH_AUDIO_EQUALIZATION_BAND_125,
    AUDIO_EQUALIZATION_BAND_250 = AGORAISH_AUDIO_EQUALIZATION_BAND_250,
    AUDIO_EQUALIZATION_BAND_500 = AGORAISH_AUDIO_EQUALIZATION_BAND_500,
    AUDIO_EQUALIZATION_BAND_1K = AGORAISH_AUDIO_EQUALIZATION_BAND_1K,
    AUDIO_EQUALIZATION_BAND_2K = AGORAISH_AUDIO_EQUALIZATION_BAND_2K,
    AUDIO_EQUALIZATION_BAND_4K = AGORAISH_AUDIO_EQUALIZATION_BAND_4K,
    AUDIO_EQUALIZATION_BAND_8K = AGORAISH_AUDIO_EQUALIZATION_BAND_8K,
    AUDIO_EQUALIZATION_BAND_16K = AGORAISH_AUDIO_EQUALIZATION_BAND_16K,
};

/** What RtcEngine::setLocalVoiceReverb() sets (Agora's AUDIO_REVERB_TYPE). */
enum AUDIO_REVERB_TYPE : int {
    /** The original voice's level, -20..10 dB. */
    AUDIO_REVERB_DRY_LEVEL = AGORAISH_AUDIO_REVERB_DRY_LEVEL,
    /** The reverberation's level, -20..10 dB. */
    AUDIO_REVERB_WET_LEVEL = AGORAISH_AUDIO_REVERB_WET_LEVEL,
    /** 0..100. */
    AUDIO_REVERB_ROOM_SIZE = AGORAISH_AUDIO_REVERB_ROOM_SIZE,
    /** The reverberation's delay, 0..200 ms. */
    AUDIO_REVERB_WET_DELAY = AGORAISH_AUDIO_REVERB_WET_DELAY,
    /** How long it lasts, 0..100. */
    AUDIO_REVERB_STRENGTH = AGORAISH_AUDIO_REVERB_STRENGTH,
};

/** VideoEncoderConfiguration::bitrate: Agora's base rate for the size and
 *  frame rate, twice it in live broadcasting (Agora's STANDARD_BITRATE). */
constexpr int STANDARD_BITRATE = 0;
/** VideoEncoderConfiguration::bitrate: the base rate in every profile (Agora's COMPATIBLE_BITRATE). */
constexpr int COMPATIBLE_BITRATE = -1;
/** VideoEncoderConfiguration::minBitrate: no minimum (Agora's DEFAULT_MIN_BITRATE). */
constexpr int DEFAULT_MIN_BITRATE = -1;

/** Most picture formats reported per camera. */
constexpr std::size_t MAX_VIDEO_FORMATS = AGORAISH_MAX_VIDEO_FORMATS;
/** Longest device name or id in bytes, NUL included (Agora's MAX_DEVICE_ID_LENGTH). */
constexpr std::size_t MAX_DEVICE_ID_LENGTH = AGORAISH_MAX_DEVICE_ID_LENGTH;
/** Longest user account in bytes, NUL included (Agora's MAX_USER_ACCOUNT_LENGTH). */
constexpr std::size_t MAX_USER_ACCOUNT_LENGTH = AGORAISH_MAX_USER_ACCOUNT_LENGTH;
/** Longest channel name in bytes, NUL included (Agora's MAX_CHANNEL_ID_LENGTH). */
constexpr std::size_t MAX_CHANNEL_ID_LENGTH = AGORAISH_MAX_CHANNEL_ID_LENGTH;

/** A uid and its user account (Agora's UserInfo). */
struct UserInfo {
    /** The uid. */
    uid_t uid = 0;
    /** The account, NUL-terminated UTF-8. */
    char userAccount[MAX_USER_ACCOUNT_LENGTH] = {};

    UserInfo() noexcept = default;
    /** A copy of the C struct. */
    explicit UserInfo(const agoraish_user_info& info) noexcept : uid(info.uid) {
        std::memcpy(userAccount, info.user_account, sizeof userAccount);
        userAccount[sizeof userAccount - 1] = '\0';
    }
};

/** Copies `from` into `to` when the field at `offset` lies within `size`
 *  bytes (a struct filled by an older library leaves it out). */
#define AGORAISH_HPP_COPY_FIELD(to, from, size, type, field)                    \
    do {                                                                       \
        if (offsetof(type, field) + sizeof(from.field) <= (size)) to = from.field; \
    } while (0)

/** Statistics of a call (Agora's RtcStats), reported every 2 s by onRtcStats
 *  and at the end by onLeaveChannel. Rates are over the last 2 s period (0 in
 *  onLeaveChannel). */
struct RtcStats {
    /** Seconds in the channel. */
    unsigned int duration = 0;
    /** Bytes sent. */
    std::uint64_t txBytes = 0;
    /** Bytes received. */
    std::uint64_t rxBytes = 0;
    /** Packets and messages sent. */
    std::uint64_t txPackets = 0;
    /** Packets and messages received. */
    std::uint64_t rxPackets = 0;
    /** Users in the channel, this one included. */
    unsigned int userCount = 0;
    /** Kbps sent. */
    unsigned int txKBitRate = 0;
    /** Bytes of media (audio) sent. */
    std::uint64_t txAudioBytes = 0;
    /** Bytes of media (audio) received. */
    std::uint64_t rxAudioBytes = 0;
    /** Kbps received. */
    unsigned int rxKBitRate = 0;
    /** Kbps of audio sent. */
    unsigned int txAudioKBitRate = 0;
    /** Kbps of audio received. */
    unsigned int rxAudioKBitRate = 0;
    /** Resident memory of the process, KB. */
    unsigned int memoryAppUsageInKbytes = 0;
    /** CPU of the process over the period, percent of one core. */
    double cpuAppUsage = 0.0;
    /** Kbps of video RTP sent. */
    unsigned int txVideoKBitRate = 0;
    /** Kbps of video RTP received. */
    unsigned int rxVideoKBitRate = 0;
    /** ms: the round trip to the channel server on the media path; 0 before the first answer. */
    int gatewayRtt = 0;
    /** ms: half of gatewayRtt. */
    int lastmileDelay = 0;
    /** Percent of the video sent that the server asked for again, before recovery; 0 without video. */
    int txPacketLossRate = 0;
    /** Percent lost before recovery of the worst remote stream received. */
    int rxPacketLossRate = 0;

    RtcStats() noexcept = default;
    /** A copy of the C struct; fields beyond its struct_size stay 0. */
    explicit RtcStats(const agoraish_rtc_stats& stats) noexcept {
        const std::size_t size = stats.struct_size;
        AGORAISH_HPP_COPY_FIELD(duration, stats, size, agoraish_rtc_stats, duration);
        AGORAISH_HPP_COPY_FIELD(txBytes, stats, size, agoraish_rtc_stats, tx_bytes);
        AGORAISH_HPP_COPY_FIELD(rxBytes, stats, size, agoraish_rtc_stats, rx_bytes);
        AGORAISH_HPP_COPY_FIELD(txPackets, stats, size, agoraish_rtc_stats, tx_packets);
        AGORAISH_HPP_COPY_FIELD(rxPackets, stats, size, agoraish_rtc_stats, rx_packets);
        AGORAISH_HPP_COPY_FIELD(userCount, stats, size, agoraish_rtc_stats, user_count);
        AGORAISH_HPP_COPY_FIELD(txKBitRate, stats, size, agoraish_rtc_stats, tx_kbitrate);
        AGORAISH_HPP_COPY_FIELD(txAudioBytes, stats, size, agoraish_rtc_stats, tx_audio_bytes);
        AGORAISH_HPP_COPY_FIELD(rxAudioBytes, stats, size, agoraish_rtc_stats, rx_audio_bytes);
        AGORAISH_HPP_COPY_FIELD(rxKBitRate, stats, size, agoraish_rtc_stats, rx_kbitrate);
        AGORAISH_HPP_COPY_FIELD(txAudioKBitRate, stats, size, agoraish_rtc_stats, tx_audio_kbitrate);
        AGORAISH_HPP_COPY_FIELD(rxAudioKBitRate, stats, size, agoraish_rtc_stats, rx_audio_kbitrate);
        AGORAISH_HPP_COPY_FIELD(memoryAppUsageInKbytes, stats, size, agoraish_rtc_stats, memory_app_usage_kb);
        AGORAISH_HPP_COPY_FIELD(cpuAppUsage, stats, size, agoraish_rtc_stats, cpu_app_usage);
        AGORAISH_HPP_COPY_FIELD(txVideoKBitRate, stats, size, agoraish_rtc_stats, tx_video_kbitrate);
        AGORAISH_HPP_COPY_FIELD(rxVideoKBitRate, stats, size, agoraish_rtc_stats, rx_video_kbitrate);
        AGORAISH_HPP_COPY_FIELD(gatewayRtt, stats, size, agoraish_rtc_stats, gateway_rtt);
        AGORAISH_HPP_COPY_FIELD(lastmileDelay, stats, size, agoraish_rtc_stats, lastmile_delay);
        AGORAISH_HPP_COPY_FIELD(txPacketLossRate, stats, size, agoraish_rtc_stats, tx_packet_loss_rate);
        AGORAISH_HPP_COPY_FIELD(rxPacketLossRate, stats, size, agoraish_rtc_stats, rx_packet_loss_rate);
    }
};

/** Sending statistics (Agora's LocalAudioStats), every 2 s in a call. */
struct LocalAudioStats {
    /** Channels encoded. */
    int numChannels = 0;
    /** The rate of the source (Hz). */
    int sentSampleRate = 0;
    /** Kbps over the period. */
    int sentBitrate = 0;
    /** Percent lost upstream (0 while the server sends no feedback). */
    int txPacketLossRate = 0;
    /** The echo canceller's estimate of the echo path's delay in ms (Agora's
     *  aecEstimatedDelay); -1 while echo cancellation is off or has no estimate
     *  (ABI 0.14; -1 from an older library). */
    int aecEstimatedDelay = -1;
    /** The steps of audio processing on the local voice in the period: an
     *  AUDIO_PROCESSING_FLAG bit set (0: the voice is sent as captured). ABI 0.14. */
    int audioProcessing = 0;
    /** Echo return loss enhancement in dB, measured by the echo canceller over
     *  the last second; -1 while it is off or has no measure (ABI 0.14; -1 from an older library). */
    int echoReturnLossEnhancement = -1;
    /** Whether a voice effect (a preset, pitch, formant, equalization or reverb)
     *  changes the local voice. ABI 0.14. */
    bool voiceEffects = false;

    LocalAudioStats() noexcept = default;
    /** A copy of the C struct; fields beyond its struct_size keep their defaults. */
    explicit LocalAudioStats(const agoraish_local_audio_stats& stats) noexcept {
        const std::size_t size = stats.struct_size;
        AGORAISH_HPP_COPY_FIELD(numChannels, stats, size, agoraish_local_audio_stats, num_channels);
        AGORAISH_HPP_COPY_FIELD(sentSampleRate, stats, size, agoraish_local_audio_stats, sent_sample_rate);
        AGORAISH_HPP_COPY_FIELD(sentBitrate, stats, size, agoraish_local_audio_stats, sent_bitrate);
        AGORAISH_HPP_COPY_FIELD(txPacketLossRate, stats, size, agoraish_local_audio_stats, tx_packet_loss_rate);
        AGORAISH_HPP_COPY_FIELD(aecEstimatedDelay, stats, size, agoraish_local_audio_stats, aec_estimated_delay);
        AGORAISH_HPP_COPY_FIELD(audioProcessing, stats, size, agoraish_local_audio_stats, audio_processing);
        AGORAISH_HPP_COPY_FIELD(echoReturnLossEnhancement, stats, size, agoraish_local_audio_stats,
                                echo_return_loss_enhancement);
        AGORAISH_HPP_COPY_FIELD(voiceEffects, stats, size, agoraish_local_audio_stats, voice_effects);
    }
};

/** Receiving statistics of one remote user (Agora's RemoteAudioStats), every 2 s. */
struct RemoteAudioStats {
    /** The remote user. */
    uid_t uid = 0;
    /** QUALITY_TYPE from the period's loss: 1 excellent .. 5 very bad, 0 unknown. */
    int quality = 0;
    /** ms, estimated from the measured jitter. */
    int networkTransportDelay = 0;
    /** ms of audio buffered. */
    int jitterBufferDelay = 0;
    /** Percent of 10 ms frames concealed over the period. */
    int audioLossRate = 0;
    /** Channels received. */
    int numChannels = 0;
    /** Sample rate received (Hz). */
    int receivedSampleRate = 0;
    /** Kbps over the period. */
    int receivedBitrate = 0;
    /** ms: 200 ms windows with 4 % or more concealed frames. */
    int totalFrozenTime = 0;
    /** totalFrozenTime as a percent of totalActiveTime. */
    int frozenRate = 0;
    /** ms the stream has played. */
    int totalActiveTime = 0;
    /** Frames rebuilt from Opus in-band FEC so far. */
    int fecRecoveredFrames = 0;
    /** Frames concealed by Opus PLC so far. */
    int concealedFrames = 0;
    /** ms: network + jitter buffer + one 20 ms frame. */
    int endToEndDelay = 0;

    RemoteAudioStats() noexcept = default;
    /** A copy of the C struct; fields beyond its struct_size stay 0. */
    explicit RemoteAudioStats(const agoraish_remote_audio_stats& stats) noexcept {
        const std::size_t size = stats.struct_size;
        using C = agoraish_remote_audio_stats;
        AGORAISH_HPP_COPY_FIELD(uid, stats, size, C, uid);
        AGORAISH_HPP_COPY_FIELD(quality, stats, size, C, quality);
        AGORAISH_HPP_COPY_FIELD(networkTransportDelay, stats, size, C, network_transport_delay);
        AGORAISH_HPP_COPY_FIELD(jitterBufferDelay, stats, size, C, jitter_buffer_delay);
        AGORAISH_HPP_COPY_FIELD(audioLossRate, stats, size, C, audio_loss_rate);
        AGORAISH_HPP_COPY_FIELD(numChannels, stats, size, C, num_channels);
        AGORAISH_HPP_COPY_FIELD(receivedSampleRate, stats, size, C, received_sample_rate);
        AGORAISH_HPP_COPY_FIELD(receivedBitrate, stats, size, C, received_bitrate);
        AGORAISH_HPP_COPY_FIELD(totalFrozenTime, stats, size, C, total_frozen_time);
        AGORAISH_HPP_COPY_FIELD(frozenRate, stats, size, C, frozen_rate);
        AGORAISH_HPP_COPY_FIELD(totalActiveTime, stats, size, C, total_active_time);
        AGORAISH_HPP_COPY_FIELD(fecRecoveredFrames, stats, size, C, fec_recovered_frames);
        AGORAISH_HPP_COPY_FIELD(concealedFrames, stats, size, C, concealed_frames);
        AGORAISH_HPP_COPY_FIELD(endToEndDelay, stats, size, C, end_to_end_delay);
    }
};

/** Sending statistics of local video (Agora's LocalVideoStats), every 2 s in a call. */
struct LocalVideoStats {
    /** Kbps of RTP sent (the low stream included). */
    int sentBitrate = 0;
    /** Frames per second sent (high stream). */
    int sentFrameRate = 0;
    /** Frames per second out of the encoder (high stream). */
    int encoderOutputFrameRate = 0;
    /** Frames per second handed to the local canvas. */
    int rendererOutputFrameRate = 0;
    /** Kbps the encoder aims at. */
    int targetBitrate = 0;
    /** Frames per second the encoder aims at. */
    int targetFrameRate = 0;
    /** Kbps of encoded video (payload, high stream). */
    int encodedBitrate = 0;
    /** The size last encoded. */
    int encodedFrameWidth = 0;
    int encodedFrameHeight = 0;
    /** Frames encoded in this call (high stream). */
    int encodedFrameCount = 0;
    /** The codec sent. */
    VIDEO_CODEC_TYPE codecType = VIDEO_CODEC_VP8;
    /** Pictures per second captured or pushed. */
    int captureFrameRate = 0;

    LocalVideoStats() noexcept = default;
    /** A copy of the C struct; fields beyond its struct_size stay 0. */
    explicit LocalVideoStats(const agoraish_local_video_stats& stats) noexcept {
        const std::size_t size = stats.struct_size;
        using C = agoraish_local_video_stats;
        int codec = 0;
        AGORAISH_HPP_COPY_FIELD(sentBitrate, stats, size, C, sent_bitrate);
        AGORAISH_HPP_COPY_FIELD(sentFrameRate, stats, size, C, sent_frame_rate);
        AGORAISH_HPP_COPY_FIELD(encoderOutputFrameRate, stats, size, C, encoder_output_frame_rate);
        AGORAISH_HPP_COPY_FIELD(rendererOutputFrameRate, stats, size, C, renderer_output_frame_rate);
        AGORAISH_HPP_COPY_FIELD(targetBitrate, stats, size, C, target_bitrate);
        AGORAISH_HPP_COPY_FIELD(targetFrameRate, stats, size, C, target_frame_rate);
        AGORAISH_HPP_COPY_FIELD(encodedBitrate, stats, size, C, encoded_bitrate);
        AGORAISH_HPP_COPY_FIELD(encodedFrameWidth, stats, size, C, encoded_frame_width);
        AGORAISH_HPP_COPY_FIELD(encodedFrameHeight, stats, size, C, encoded_frame_height);
        AGORAISH_HPP_COPY_FIELD(encodedFrameCount, stats, size, C, encoded_frame_count);
        AGORAISH_HPP_COPY_FIELD(codec, stats, size, C, codec_type);
        AGORAISH_HPP_COPY_FIELD(captureFrameRate, stats, size, C, capture_frame_rate);
        if (codec != 0) codecType = static_cast<VIDEO_CODEC_TYPE>(codec);
    }
};

/** Receiving statistics of one remote user's video (Agora's RemoteVideoStats), every 2 s. */
struct RemoteVideoStats {
    /** The remote user. */
    uid_t uid = 0;
    /** The size of the last picture decoded. */
    int width = 0;
    int height = 0;
    /** Kbps of RTP received over the period. */
    int receivedBitrate = 0;
    /** Pictures per second decoded. */
    int decoderOutputFrameRate = 0;
    /** Pictures per second handed to the user's canvas. */
    int rendererOutputFrameRate = 0;
    /** Percent of the period's packets lost (before recovery). */
    int packetLossRate = 0;
    /** The stream received: high or low (dual stream), or a simulcast layer (VIDEO_STREAM_LAYER_1..6). */
    REMOTE_VIDEO_STREAM_TYPE rxStreamType = REMOTE_VIDEO_STREAM_HIGH;
    /** ms: the sum of the gaps of 500 ms or more between two pictures since the video started. */
    int totalFrozenTime = 0;
    /** totalFrozenTime as a percent of totalActiveTime. */
    int frozenRate = 0;
    /** ms since the first picture, muted time excluded. */
    int totalActiveTime = 0;
    /** ms since the first packet of the user's video. */
    int publishDuration = 0;

    RemoteVideoStats() noexcept = default;
    /** A copy of the C struct; fields beyond its struct_size stay 0. */
    explicit RemoteVideoStats(const agoraish_remote_video_stats& stats) noexcept {
        const std::size_t size = stats.struct_size;
        using C = agoraish_remote_video_stats;
        int stream = 0;
        AGORAISH_HPP_COPY_FIELD(uid, stats, size, C, uid);
        AGORAISH_HPP_COPY_FIELD(width, stats, size, C, width);
        AGORAISH_HPP_COPY_FIELD(height, stats, size, C, height);
        AGORAISH_HPP_COPY_FIELD(receivedBitrate, stats, size, C, received_bitrate);
        AGORAISH_HPP_COPY_FIELD(decoderOutputFrameRate, stats, size, C, decoder_output_frame_rate);
        AGORAISH_HPP_COPY_FIELD(rendererOutputFrameRate, stats, size, C, renderer_output_frame_rate);
        AGORAISH_HPP_COPY_FIELD(packetLossRate, stats, size, C, packet_loss_rate);
        AGORAISH_HPP_COPY_FIELD(stream, stats, size, C, rx_stream_type);
        AGORAISH_HPP_COPY_FIELD(totalFrozenTime, stats, size, C, total_frozen_time);
        AGORAISH_HPP_COPY_FIELD(frozenRate, stats, size, C, frozen_rate);
        AGORAISH_HPP_COPY_FIELD(totalActiveTime, stats, size, C, total_active_time);
        AGORAISH_HPP_COPY_FIELD(publishDuration, stats, size, C, publish_duration);
        rxStreamType = static_cast<REMOTE_VIDEO_STREAM_TYPE>(stream);
    }
};

/** What startLastmileProbeTest() probes (Agora's LastmileProbeConfig). */
struct LastmileProbeConfig {
    /** Probe the uplink, the downlink: at least one. */
    bool probeUplink = false;
    bool probeDownlink = false;
    /** bps, 100000..5000000 for each direction probed (the probe is sent at this
     *  rate); the bitrate of a direction not probed is not read. */
    unsigned int expectedUplinkBitrate = 0;
    unsigned int expectedDownlinkBitrate = 0;
    /** ABI 0.9 (an agoraish extension): what the probe's join presents where the
     *  app has a certificate, a token for `channelId` and uid 0 (built for uid 0,
     *  the wildcard identity); nullptr or "": none. Copied. */
    const char* token = nullptr;
    /** The channel name the token is for (a valid channel name); nullptr or "":
     *  "probe". The probe runs in a private channel of its own either way. Copied. */
    const char* channelId = nullptr;
};

/** How startEchoTest(const EchoTestConfiguration&) runs (Agora's
 *  EchoTestConfiguration without the view; ABI 0.9). */
struct EchoTestConfiguration {
    /** Echo the audio (the only medium echoed). */
    bool enableAudio = true;
    /** Echo the video: not supported (true is -4). Agora's default is true; here false. */
    bool enableVideo = false;
    /** What the test's join presents where the app has a certificate: a token for
     *  `channelId` and uid 0 (built for uid 0, the wildcard identity); nullptr or
     *  "": none. Copied. */
    const char* token = nullptr;
    /** The channel name the token is for (a valid channel name); nullptr or "":
     *  "echo". The test runs in a private channel of its own either way. Copied. */
    const char* channelId = nullptr;
    /** Seconds after which the audio comes back, 2..10. */
    int intervalInSeconds = 2;
};

/** One direction of a last-mile probe (Agora's LastmileProbeOneWayResult); zeros
 *  for a direction not probed. */
struct LastmileProbeOneWayResult {
    /** Percent of the probe packets lost (100 when none arrived). */
    unsigned int packetLossRate = 0;
    /** Interarrival jitter (RFC 3550), ms. */
    unsigned int jitter = 0;
    /** bps: the rate the path delivered the probe at (at most the expected bitrate). */
    unsigned int availableBandwidth = 0;

    LastmileProbeOneWayResult() noexcept = default;
    /** A copy of the C struct. */
    explicit LastmileProbeOneWayResult(const agoraish_lastmile_probe_one_way_result& r) noexcept
        : packetLossRate(r.packet_loss_rate), jitter(r.jitter), availableBandwidth(r.available_bandwidth) {}
};

/** The result of startLastmileProbeTest() (Agora's LastmileProbeResult), in onLastmileProbeResult. */
struct LastmileProbeResult {
    /** How complete the result is. */
    LASTMILE_PROBE_RESULT_STATE state = LASTMILE_PROBE_RESULT_UNAVAILABLE;
    LastmileProbeOneWayResult uplinkReport;
    LastmileProbeOneWayResult downlinkReport;
    /** The round trip to the server, ms. */
    unsigned int rtt = 0;

    LastmileProbeResult() noexcept = default;
    /** A copy of the C struct; fields beyond its struct_size keep the defaults. */
    explicit LastmileProbeResult(const agoraish_lastmile_probe_result& result) noexcept {
        const std::size_t size = result.struct_size;
        using C = agoraish_lastmile_probe_result;
        int st = state;
        agoraish_lastmile_probe_one_way_result up{};
        agoraish_lastmile_probe_one_way_result down{};
        AGORAISH_HPP_COPY_FIELD(st, result, size, C, state);
        AGORAISH_HPP_COPY_FIELD(up, result, size, C, uplink_report);
        AGORAISH_HPP_COPY_FIELD(down, result, size, C, downlink_report);
        AGORAISH_HPP_COPY_FIELD(rtt, result, size, C, rtt);
        state = static_cast<LASTMILE_PROBE_RESULT_STATE>(st);
        uplinkReport = LastmileProbeOneWayResult(up);
        downlinkReport = LastmileProbeOneWayResult(down);
    }
};

#undef AGORAISH_HPP_COPY_FIELD

/** One speaker in onAudioVolumeIndication (Agora's AudioVolumeInfo): `uid`
 *  (0 for the local user), `volume` (0..255, after the volume settings) and
 *  `vad` (local: voice detected with reportVad, else 0; remote: always 1).
 *  The C struct itself: it has Agora's field names. */
using AudioVolumeInfo = agoraish_audio_volume_info;

/**
 * A PCM frame handed to an IAudioFrameObserver (Agora's AudioFrame).
 * `buffer` is the library's own buffer, valid only during the callback: in
 * the write modes of the position, what the observer writes there is what
 * the engine sends or plays. Changing the other fields has no effect.
 */
struct AudioFrame {
    /** 0: PCM16 (Agora's FRAME_TYPE_PCM16). */
    int type = 0;
    /** Samples per channel in `buffer`. */
    int samplesPerChannel = 0;
    /** 2. */
    int bytesPerSample = 2;
    /** 1, or 2 interleaved. */
    int channels = 0;
    /** The sample rate. */
    int samplesPerSec = 0;
    /** samplesPerChannel * channels interleaved int16_t, owned by the library. */
    void* buffer = nullptr;
    /** When the frame was made, on the engine's monotonic clock (ms). */
    std::int64_t renderTimeMs = 0;
    /** Reserved, 0. */
    int avsync_type = 0;

    AudioFrame() noexcept = default;
    /** A view of the C frame: the same buffer, not a copy. */
    explicit AudioFrame(const agoraish_audio_frame& frame) noexcept
        : type(frame.type),
          samplesPerChannel(frame.samples_per_channel),
          bytesPerSample(frame.bytes_per_sample),
          channels(frame.channels),
          samplesPerSec(frame.samples_per_sec),
          buffer(frame.buffer),
          renderTimeMs(frame.render_time_ms),
          avsync_type(frame.avsync_type) {}

    /** The samples, interleaved. */
    std::int16_t* samples() const noexcept { return static_cast<std::int16_t*>(buffer); }
    /** Samples in `buffer`, all channels: samplesPerChannel * channels. */
    std::size_t sampleCount() const noexcept {
        return samplesPerChannel > 0 && channels > 0
                   ? static_cast<std::size_t>(samplesPerChannel) * static_cast<std::size_t>(channels)
                   : 0;
    }
};

/**
 * Raw audio (Agora's IAudioFrameObserver). Subclass it, override the
 * positions you want and register it with RtcEngine::registerAudioFrameObserver().
 * Each callback returns true to keep the frame or false to discard it (in the
 * write modes a discarded frame becomes silence); every default keeps it.
 *
 * Ownership: the host owns the observer. It must stay alive until it is
 * replaced or removed (registerAudioFrameObserver(nullptr)) or the engine is
 * released: after such a call returns it gets no further callback (unless the
 * call was made from inside one of its callbacks: that callback finishes first).
 *
 * Thread: callbacks run on the audio thread of their position, not on the
 * event thread: onRecordAudioFrame on the thread that pushes
 * (pushExternalAudioFrame) or on the engine's audio device thread; the other
 * three on the thread that pulls (pullPlaybackAudioFrame) or on the audio
 * device thread. Callbacks of one position never overlap. Inside a callback,
 * pushing or pulling audio returns -5. An exception that leaves a callback
 * calls std::terminate.
 */
class IAudioFrameObserver {
public:
    /** The frame type, under the name Agora's observers use. */
    using AudioFrame = agoraish::AudioFrame;

    /** Virtual, so an observer can be deleted through this base. */
    virtual ~IAudioFrameObserver() = default;

    /** Local audio before encoding, in the format of setRecordingAudioFrameParameters(). */
    virtual bool onRecordAudioFrame(AudioFrame& audioFrame) {
        (void)audioFrame;
        return true;
    }

    /** The mix of remote audio before playout (setPlaybackAudioFrameParameters()). */
    virtual bool onPlaybackAudioFrame(AudioFrame& audioFrame) {
        (void)audioFrame;
        return true;
    }

    /** Local and remote audio mixed (setMixedAudioFrameParameters()); read-only. */
    virtual bool onMixedAudioFrame(AudioFrame& audioFrame) {
        (void)audioFrame;
        return true;
    }

    /** One remote user before mixing (setPlaybackAudioFrameBeforeMixingParameters()); read-only. */
    virtual bool onPlaybackAudioFrameBeforeMixing(uid_t uid, AudioFrame& audioFrame) {
        (void)uid;
        (void)audioFrame;
        return true;
    }

    /**
     * The AUDIO_FRAME_POSITION bits to observe, asked once by
     * registerAudioFrameObserver(observer) (the overload without positions).
     * The default is PLAYBACK | RECORD.
     */
    virtual int getObservedAudioFramePosition() {
        return AUDIO_FRAME_POSITION_PLAYBACK | AUDIO_FRAME_POSITION_RECORD;
    }
};

/** How to create a data stream (Agora's DataStreamConfig), for createDataStream(). */
struct DataStreamConfig {
    /** Each message is delivered when the sender's audio of the same moment plays. */
    bool syncWithAudio = false;
    /** Messages are delivered in the order sent (late ones are dropped). */
    bool ordered = false;
};

/** The built-in end-to-end encryption (Agora's EncryptionConfig), for enableEncryption(). */
struct EncryptionConfig {
    /** The mode. */
    ENCRYPTION_MODE encryptionMode = AES_128_GCM2;
    /** The key: 1..128 bytes, NUL-terminated (32 random bytes, hex or base64, recommended). Copied. */
    const char* encryptionKey = nullptr;
    /** The KDF salt of the GCM2 modes: 32 bytes, not all zero (ignored by the others). */
    std::uint8_t encryptionKdfSalt[32] = {};
};

/**
 * Video metadata (Agora's IMetadataObserver, the data source and delegate of
 * ObjC's setMediaMetadataDataSource / setMediaMetadataDelegate). Subclass it
 * and register it with RtcEngine::registerMediaMetadataObserver(); metadata
 * travels reliably beside the video, marked with the picture's timestamp, to
 * every other user of the channel.
 *
 * Ownership: the host owns the observer. It must stay alive until the engine
 * is released: a callback already running on a sending thread may still
 * finish after a registration that replaces or removes it returns.
 *
 * Thread: getMaxMetadataSize() once, during the registration;
 * onReadyToSendMetadata() on the thread that sends the picture (the one that
 * pushes external frames, or the camera's); onMetadataReceived() on the
 * event thread. An exception that leaves a callback calls std::terminate.
 */
class IMetadataObserver {
public:
    /** Agora's METADATA_TYPE. */
    enum METADATA_TYPE : int {
        UNKNOWN_METADATA = AGORAISH_METADATA_TYPE_UNKNOWN,
        VIDEO_METADATA = AGORAISH_METADATA_TYPE_VIDEO,
    };

    /** Agora's MAX_METADATA_SIZE_TYPE. */
    enum MAX_METADATA_SIZE_TYPE : int {
        INVALID_METADATA_SIZE_IN_BYTE = -1,
        DEFAULT_METADATA_SIZE_IN_BYTE = 512,
        MAX_METADATA_SIZE_IN_BYTE = AGORAISH_MAX_METADATA_SIZE,
    };

    /** The metadata of one picture (Agora's Metadata). */
    struct Metadata {
        /** The sender (0 when sending). */
        unsigned int uid = 0;
        /** Bytes at `buffer`. When sending: in, the room; out, the bytes written. */
        unsigned int size = 0;
        /** The metadata; when sending, the library's room of `size` bytes to fill. */
        unsigned char* buffer = nullptr;
        /** The picture's timestamp, ms. */
        long long timeStampMs = 0;
    };

    /** Virtual, so an observer can be deleted through this base. */
    virtual ~IMetadataObserver() = default;

    /** The most bytes a picture's metadata may take, 1..1024 (the default: 1024). */
    virtual int getMaxMetadataSize() { return MAX_METADATA_SIZE_IN_BYTE; }

    /** A picture is being sent: fill `metadata.buffer` (up to `metadata.size` bytes), set
     *  `metadata.size`, and return true to send it (the default sends nothing). */
    virtual bool onReadyToSendMetadata(Metadata& metadata) {
        (void)metadata;
        return false;
    }

    /** Metadata of a remote user's picture arrived, with that picture's timestamp. */
    virtual void onMetadataReceived(const Metadata& metadata) { (void)metadata; }
};

/**
 * Each media packet's payload (Agora's IPacketObserver), for the host's own
 * encryption. Subclass it and register it with
 * RtcEngine::registerPacketObserver(). Each callback sees one payload (audio:
 * the Opus packet; video: what follows the RTP payload descriptor) and may
 * replace it by pointing `packet.buffer` at memory of its own and setting
 * `packet.size` (growing it by at most AGORAISH_PACKET_OBSERVER_MAX_GROWTH
 * bytes); the library reads that memory after the callback returns, so keep
 * it valid until the next callback of the same kind. Return true to send
 * (hand on) the packet, false to drop it; every default passes it on.
 *
 * On the way out the observer runs before the built-in encryption, on the way
 * in after it. Ownership: the host owns the observer; it must stay alive
 * until the engine is released. Thread: send callbacks on the thread that
 * encodes (audio: the pushing or audio device thread; video: the video
 * thread), receive callbacks on the engine's network thread; callbacks of one
 * kind never overlap. An exception that leaves a callback calls std::terminate.
 */
class IPacketObserver {
public:
    /** One payload (Agora's Packet). */
    struct Packet {
        const unsigned char* buffer = nullptr;
        unsigned int size = 0;
    };

    /** Virtual, so an observer can be deleted through this base. */
    virtual ~IPacketObserver() = default;

    virtual bool onSendAudioPacket(Packet& packet) {
        (void)packet;
        return true;
    }
    virtual bool onSendVideoPacket(Packet& packet) {
        (void)packet;
        return true;
    }
    virtual bool onReceiveAudioPacket(Packet& packet) {
        (void)packet;
        return true;
    }
    virtual bool onReceiveVideoPacket(Packet& packet) {
        (void)packet;
        return true;
    }
};

/** How to record audio to a file (Agora's AudioRecordingConfiguration). */
struct AudioRecordingConfiguration {
    /** Required. ".ogg" or ".opus": Ogg Opus; anything else: 16-bit PCM WAV. */
    std::string filePath;
    /** 16000, 32000 (the default), 44100 or 48000. */
    int sampleRate = 32000;
    /** What is recorded. */
    AUDIO_RECORDING_POSITION position = AUDIO_RECORDING_POSITION_MIXED_RECORDING_AND_PLAYBACK;
    /** The Ogg Opus bitrate. */
    AUDIO_RECORDING_QUALITY_TYPE quality = AUDIO_RECORDING_QUALITY_MEDIUM;
};

/** One audio device, an ALSA PCM. */
struct AudioDeviceInfo {
    /** The ALSA PCM name: pass it to setRecordingDevice() / setPlaybackDevice(). */
    std::string deviceId;
    /** A description. */
    std::string deviceName;
};

/** A picture size in pixels (Agora's VideoDimensions). */
struct VideoDimensions {
    /** 16..4096, even. */
    int width = 640;
    /** 16..4096, even. */
    int height = 360;

    VideoDimensions() noexcept = default;
    VideoDimensions(int w, int h) noexcept : width(w), height(h) {}
};

/**
 * What the video encoder aims for (Agora's VideoEncoderConfiguration, the
 * fields this version applies). A pushed picture larger than `dimensions` is
 * scaled down to fit inside them (aspect ratio kept); smaller ones are sent
 * at their own size.
 */
struct VideoEncoderConfiguration {
    /** The codec: VP8 or VP9. */
    VIDEO_CODEC_TYPE codecType = VIDEO_CODEC_VP8;
    /** The largest picture sent. */
    VideoDimensions dimensions;
    /** 1..60 frames per second. */
    int frameRate = 15;
    /** Kbps: STANDARD_BITRATE, COMPATIBLE_BITRATE or 1..100000. */
    int bitrate = STANDARD_BITRATE;
    /** DEFAULT_MIN_BITRATE or Kbps (kept for live broadcasting). */
    int minBitrate = DEFAULT_MIN_BITRATE;
    /** How `dimensions` meet each picture's orientation. Pictures are always sent upright. */
    ORIENTATION_MODE orientationMode = ORIENTATION_MODE_ADAPTIVE;
    /** What to keep when bandwidth is short (kept for bandwidth adaptation). */
    DEGRADATION_PREFERENCE degradationPreference = MAINTAIN_QUALITY;
    /** Mirroring of the sent stream: AUTO and DISABLED send it as captured. */
    VIDEO_MIRROR_MODE_TYPE mirrorMode = VIDEO_MIRROR_MODE_AUTO;

    VideoEncoderConfiguration() noexcept = default;
    VideoEncoderConfiguration(const VideoDimensions& d, int fps, int kbps) noexcept
        : dimensions(d), frameRate(fps), bitrate(kbps) {}
};

/**
 * The streams sent besides the high one (Agora's SimulcastConfig, ABI 0.12),
 * for setSimulcastConfig(): each enabled entry of `configs` is the high
 * stream's picture fitted into `dimensions` (aspect ratio kept, never
 * enlarged) at `framerate`, on a stream of its own. At most three enabled.
 *
 *     agoraish::SimulcastConfig simulcast;
 *     auto& layer1 = simulcast.configs[agoraish::SimulcastConfig::STREAM_LAYER_1];
 *     layer1.dimensions = {480, 270};
 *     layer1.framerate = 15;
 *     layer1.enable = true;
 *     engine.setSimulcastConfig(simulcast);
 */
struct SimulcastConfig {
    /** The entries of `configs` (Agora's SimulcastConfig::StreamLayerIndex). Layer n is
     *  received as VIDEO_STREAM_LAYER_n, STREAM_LOW as VIDEO_STREAM_LOW. */
    enum StreamLayerIndex : int {
        STREAM_LAYER_1 = AGORAISH_STREAM_LAYER_1,
        STREAM_LAYER_2 = AGORAISH_STREAM_LAYER_2,
        STREAM_LAYER_3 = AGORAISH_STREAM_LAYER_3,
        STREAM_LAYER_4 = AGORAISH_STREAM_LAYER_4,
        STREAM_LAYER_5 = AGORAISH_STREAM_LAYER_5,
        STREAM_LAYER_6 = AGORAISH_STREAM_LAYER_6,
        /** The low stream (dual stream's, at the size given here). */
        STREAM_LOW = AGORAISH_STREAM_LOW,
        STREAM_LAYER_COUNT_MAX = AGORAISH_STREAM_LAYER_COUNT_MAX,
    };

    /** One layer (Agora's SimulcastConfig::StreamLayerConfig). Only enabled entries are read. */
    struct StreamLayerConfig {
        /** The box the picture is fitted into: 16..3840 x 16..2160. */
        VideoDimensions dimensions{0, 0};
        /** Frames per second, 1..60 (never above the high stream's). */
        int framerate = 0;
        /** Send this layer. */
        bool enable = false;
    };

    /** Indexed by StreamLayerIndex; all disabled by default. */
    StreamLayerConfig configs[STREAM_LAYER_COUNT_MAX];
    /** Read and ignored: the publish fallback of setLocalPublishFallbackOption() applies. */
    bool publish_fallback_enable = false;
};

/** SimulcastConfig::StreamLayerIndex and SimulcastConfig::StreamLayerConfig by their own names. */
using StreamLayerIndex = SimulcastConfig::StreamLayerIndex;
using StreamLayerConfig = SimulcastConfig::StreamLayerConfig;

/**
 * A picture pushed with RtcEngine::pushExternalVideoFrame() (Agora's
 * ExternalVideoFrame, with one pointer and one stride per plane). The
 * buffers are the host's and are read during the call only.
 */
struct ExternalVideoFrame {
    /** The layout of the buffers. */
    VIDEO_PIXEL_FORMAT format = VIDEO_PIXEL_I420;
    /** 16..4096, even. */
    int width = 0;
    /** 16..4096, even. */
    int height = 0;
    /** I420/NV12/NV21: the Y plane; BGRA/RGBA: the packed pixels. */
    const void* yBuffer = nullptr;
    /** I420: the U plane; NV12/NV21: the interleaved chroma plane; else unused. */
    const void* uBuffer = nullptr;
    /** I420: the V plane; else unused. */
    const void* vBuffer = nullptr;
    /** Bytes per row of yBuffer: >= width (4 x width for BGRA/RGBA). */
    int yStride = 0;
    /** Bytes per row of uBuffer: >= width / 2 (I420), >= width (NV12/NV21). */
    int uStride = 0;
    /** Bytes per row of vBuffer: >= width / 2 (I420). */
    int vStride = 0;
    /** Capture time in ms (any origin, increasing). */
    std::int64_t timestamp = 0;
    /** 0, 90, 180 or 270: the picture is turned clockwise by this much before use. */
    int rotation = 0;
    /** The picture's alpha plane (Agora's alphaBuffer): width x height bytes, 0
     *  transparent .. 255 opaque; nullptr: opaque. It goes with the picture (turned,
     *  mirrored and fitted with it) to the local canvas and the capture and
     *  pre-encode observers (VideoFrame::alphaBuffer); remote users receive no alpha. */
    const void* alphaBuffer = nullptr;
    /** Bytes per row of alphaBuffer: >= width. */
    int alphaStride = 0;
};

/**
 * An I420 picture handed to an IVideoSink, an IVideoFrameObserver or an
 * IMediaPlayerVideoFrameObserver (Agora's VideoFrame). The planes are the
 * library's own, valid only during the callback: copy what you keep. An
 * IVideoFrameObserver may write them (what it writes is sent or rendered);
 * sinks and media player observers must only read them. Changing the other
 * fields has no effect.
 */
struct VideoFrame {
    /** VIDEO_PIXEL_I420. */
    VIDEO_PIXEL_FORMAT type = VIDEO_PIXEL_I420;
    /** The picture's size in pixels. */
    int width = 0;
    int height = 0;
    /** Bytes per row of each plane. */
    int yStride = 0;
    int uStride = 0;
    int vStride = 0;
    /** The planes: height rows of the Y plane, (height + 1) / 2 rows of U and V. */
    std::uint8_t* yBuffer = nullptr;
    std::uint8_t* uBuffer = nullptr;
    std::uint8_t* vBuffer = nullptr;
    /** Always 0: pictures are turned upright before encoding. */
    int rotation = 0;
    /** ms on the engine's monotonic clock: when a remote picture was decoded or
     *  a local one captured; for capture and pre-encode observers the
     *  timestamp pushed with the picture. */
    std::int64_t renderTimeMs = 0;
    /** The alpha plane (width x height, 0 transparent .. 255 opaque, alphaStride
     *  bytes per row) of a picture that has one: a media player's whose source
     *  has alpha (WebM VP8/VP9), or a local picture pushed with one
     *  (ExternalVideoFrame::alphaBuffer); nullptr otherwise. Read-only. */
    std::uint8_t* alphaBuffer = nullptr;
    /** Bytes per row of alphaBuffer. */
    int alphaStride = 0;

    VideoFrame() noexcept = default;
    /** A view of the C frame: the same planes, not a copy. */
    explicit VideoFrame(const agoraish_video_frame& frame) noexcept
        : type(static_cast<VIDEO_PIXEL_FORMAT>(frame.type)),
          width(frame.width),
          height(frame.height),
          yStride(frame.y_stride),
          uStride(frame.u_stride),
          vStride(frame.v_stride),
          yBuffer(frame.y_buffer),
          uBuffer(frame.u_buffer),
          vBuffer(frame.v_buffer),
          rotation(frame.rotation),
          renderTimeMs(frame.render_time_ms),
          alphaBuffer(frame.alpha_buffer),
          alphaStride(frame.alpha_stride) {}
};

/**
 * A render sink for one remote user or for the local preview (what Agora's
 * VideoCanvas view is on other platforms). Subclass it and bind it with
 * RtcEngine::setupRemoteVideo() or RtcEngine::setupLocalVideo() (where it gets uid 0).
 *
 * Ownership: the host owns the sink. It must stay alive until it is unbound
 * (setupRemoteVideo with a null sink, from outside the sink: that call waits
 * for a picture being delivered) or the engine is released with
 * release(true); binding another sink for the uid does not wait, so a
 * replaced sink must live until one of those calls returns.
 *
 * Thread: onFrame() runs on the engine's video thread (agoraish-vid<n>), one
 * picture at a time, for every picture of the uid. It may call any engine
 * method. An exception that leaves it calls std::terminate.
 */
class IVideoSink {
public:
    /** Virtual, so a sink can be deleted through this base. */
    virtual ~IVideoSink() = default;

    /** One picture of `uid` (0: the local preview); its planes are valid during the call only. */
    virtual void onFrame(uid_t uid, const VideoFrame& frame) = 0;
};

/**
 * Where the pictures of a user go (Agora's VideoCanvas, with a sink instead
 * of a view): a remote user's with setupRemoteVideo(), the local preview's
 * with setupLocalVideo() (which ignores `uid`).
 */
struct VideoCanvas {
    /** The remote user (not 0); ignored by setupLocalVideo(). */
    uid_t uid = 0;
    /** The sink, or nullptr to unbind. Not owned: see IVideoSink for how long it must live. */
    IVideoSink* sink = nullptr;
    /** How pictures meet the view size (when one is set). */
    RENDER_MODE_TYPE renderMode = RENDER_MODE_HIDDEN;
    /** AUTO mirrors the local preview, not remote users. */
    VIDEO_MIRROR_MODE_TYPE mirrorMode = VIDEO_MIRROR_MODE_AUTO;
    /** The host's view size: 0 x 0 hands pictures over at their own size; else 2..4096, both set. */
    int viewWidth = 0;
    int viewHeight = 0;

    VideoCanvas() noexcept = default;
    VideoCanvas(uid_t u, IVideoSink* s) noexcept : uid(u), sink(s) {}
    /** A canvas whose pictures are fitted to a `width` x `height` view by `mode`. */
    VideoCanvas(uid_t u, IVideoSink* s, RENDER_MODE_TYPE mode, int width, int height,
                VIDEO_MIRROR_MODE_TYPE mirror = VIDEO_MIRROR_MODE_AUTO) noexcept
        : uid(u), sink(s), renderMode(mode), mirrorMode(mirror), viewWidth(width), viewHeight(height) {}
};

/**
 * Raw video (Agora's IVideoFrameObserver). Subclass it, override the
 * positions you want and register it with RtcEngine::registerVideoFrameObserver().
 * Each callback may change the planes of the frame in place (the change is
 * what is sent or rendered) and returns true to keep the picture or false to
 * drop it (not sent, not rendered); every default keeps it.
 *
 * Ownership: the host owns the observer. It must stay alive until it is
 * replaced or removed (registerVideoFrameObserver(nullptr)) or the engine is
 * released with release(true). Removing it waits for a running render
 * callback (unless called from one); capture and pre-encode callbacks run on
 * the pushing thread, so stop pushing first.
 *
 * Thread: onCaptureVideoFrame and onPreEncodeVideoFrame run on the thread
 * that pushes (pushExternalVideoFrame) or the camera thread;
 * onRenderVideoFrame on the engine's video thread (agoraish-vid<n>). An
 * exception that leaves a callback calls std::terminate.
 */
class IVideoFrameObserver {
public:
    /** The frame type, under the name Agora's observers use. */
    using VideoFrame = agoraish::VideoFrame;

    /** Virtual, so an observer can be deleted through this base. */
    virtual ~IVideoFrameObserver() = default;

    /** Each local picture as captured or pushed, upright (POSITION_POST_CAPTURER). */
    virtual bool onCaptureVideoFrame(VideoFrame& videoFrame) {
        (void)videoFrame;
        return true;
    }

    /** Each local picture about to be encoded: fitted to the encoder's size,
     *  mirrored and watermarked (POSITION_PRE_ENCODER). */
    virtual bool onPreEncodeVideoFrame(VideoFrame& videoFrame) {
        (void)videoFrame;
        return true;
    }

    /** Each decoded picture of a remote user, before its canvas (POSITION_PRE_RENDERER). */
    virtual bool onRenderVideoFrame(uid_t uid, VideoFrame& videoFrame) {
        (void)uid;
        (void)videoFrame;
        return true;
    }

    /**
     * The VIDEO_OBSERVER_POSITION bits to observe, asked once by
     * registerVideoFrameObserver(observer) (the overload without positions).
     * The default is POST_CAPTURER | PRE_RENDERER, as Agora's.
     */
    virtual int getObservedFramePosition() { return POSITION_POST_CAPTURER | POSITION_PRE_RENDERER; }
};

/** A rectangle in pixels (Agora's Rectangle). */
struct Rectangle {
    int x = 0;
    int y = 0;
    int width = 0;
    int height = 0;

    Rectangle() noexcept = default;
    Rectangle(int x_, int y_, int w, int h) noexcept : x(x_), y(y_), width(w), height(h) {}
};

/** Where a watermark goes in the sent picture (Agora's WatermarkOptions). */
struct WatermarkOptions {
    /** The local canvas shows the watermark too. */
    bool visibleInPreview = true;
    /** Where it goes in landscape pictures: x, y 0..4096, width and height 1..4096;
     *  the image is scaled to it and clipped at the picture's edges. */
    Rectangle positionInLandscapeMode;
    /** Where it goes in portrait pictures. */
    Rectangle positionInPortraitMode;
};

/** One picture format a camera offers. */
struct VideoFormat {
    int width = 0;
    int height = 0;
    /** Frames per second. */
    int fps = 0;
    /** The V4L2 pixel format, e.g. "YUYV". */
    std::string fourcc;
};

/** One camera, a V4L2 capture device. */
struct VideoDeviceInfo {
    /** Its /dev path: pass it to setVideoDevice(). */
    std::string deviceId;
    /** The card name the driver gives. */
    std::string deviceName;
    /** The formats it offers (at most MAX_VIDEO_FORMATS). */
    std::vector<VideoFormat> formats;
};

/** The camera's capture size (Agora's CameraCapturerConfiguration, as far as Linux has it). */
struct CameraCapturerConfiguration {
    /** AUTO, PERFORMANCE and PREVIEW capture at the encoder's size and frame rate. */
    CAPTURER_OUTPUT_PREFERENCE preference = CAPTURER_OUTPUT_PREFERENCE_AUTO;
    /** 16..4096; used with MANUAL (and checked always). */
    int captureWidth = 640;
    /** 16..4096. */
    int captureHeight = 480;
};

/**
 * Engine events (Agora's IRtcEngineEventHandler). Subclass it and override
 * the callbacks you want; every default does nothing.
 *
 * Ownership: the host owns the handler. It must stay alive until the engine
 * it was given to has been released with `release(true)` (which the
 * `RtcEngine` destructor does): after that no callback is running or will
 * start. After `release(false)` a callback that was already running may still
 * be returning, so the handler must live a little longer (for example until
 * the end of the process).
 *
 * Thread: every callback of one engine runs on that engine's event thread,
 * one at a time, in the order the events happened; never on the thread that
 * called the engine. A callback must return quickly. It may call any method
 * of the engine except `release()` on its own engine (which returns -5).
 * Pointers passed to a callback are valid only until it returns: copy what
 * you keep. An exception that leaves a callback calls std::terminate.
 */
class IRtcEngineEventHandler {
public:
    /** Virtual, so a handler can be deleted through this base. */
    virtual ~IRtcEngineEventHandler() = default;

    /**
     * An API call has been carried out by the engine (Agora's
     * onApiCallExecuted). Fires once for each accepted call to
     * setParameters, setLogFile, setLogFilter, setLogLevel and setLogFileSize.
     *
     * @param err     0, or the error code (not negated) the work ended with.
     * @param api     The Agora name of the method, for example "setParameters".
     * @param result  The argument the call applied, as text (for
     *                setParameters, the JSON that was applied).
     */
    virtual void onApiCallExecuted(int err, const char* api, const char* result) {
        (void)err;
        (void)api;
        (void)result;
    }

    /**
     * The local user joined a channel (Agora's onJoinChannelSuccess).
     *
     * @param channel  The channel name.
     * @param uid      The local uid (chosen by the server when joinChannel got 0).
     * @param elapsed  Milliseconds since joinChannel() was called.
     */
    virtual void onJoinChannelSuccess(const char* channel, uid_t uid, int elapsed) {
        (void)channel;
        (void)uid;
        (void)elapsed;
    }

    /** The local user rejoined after an interruption (Agora's onRejoinChannelSuccess);
     *  the arguments are those of onJoinChannelSuccess. */
    virtual void onRejoinChannelSuccess(const char* channel, uid_t uid, int elapsed) {
        (void)channel;
        (void)uid;
        (void)elapsed;
    }

    /** The local user left the channel (Agora's onLeaveChannel), with the call's statistics. */
    virtual void onLeaveChannel(const RtcStats& stats) { (void)stats; }

    /**
     * A remote user (communication) or broadcaster (live broadcasting) joined,
     * or was already in the channel when the local user joined (Agora's onUserJoined).
     *
     * @param elapsed  Milliseconds since the local joinChannel() call.
     */
    virtual void onUserJoined(uid_t uid, int elapsed) {
        (void)uid;
        (void)elapsed;
    }

    /** A remote user left, dropped, or became audience (Agora's onUserOffline). */
    virtual void onUserOffline(uid_t uid, USER_OFFLINE_REASON_TYPE reason) {
        (void)uid;
        (void)reason;
    }

    /** The local role changed (Agora's onClientRoleChanged). */
    virtual void onClientRoleChanged(CLIENT_ROLE_TYPE oldRole, CLIENT_ROLE_TYPE newRole) {
        (void)oldRole;
        (void)newRole;
    }

    /** The connection state changed (Agora's onConnectionStateChanged). */
    virtual void onConnectionStateChanged(CONNECTION_STATE_TYPE state, CONNECTION_CHANGED_REASON_TYPE reason) {
        (void)state;
        (void)reason;
    }

    /** No working link to the server for 10 s (Agora's onConnectionLost); rejoining goes on. */
    virtual void onConnectionLost() {}

    /** The token's join privilege expires in 30 s (Agora's onTokenPrivilegeWillExpire):
     *  call renewToken(). `token` is the token in force. */
    virtual void onTokenPrivilegeWillExpire(const char* token) { (void)token; }

    /** The token expired (Agora's onRequestToken): call renewToken(); the engine then rejoins. */
    virtual void onRequestToken() {}

    /** The local user account is registered as `uid` (Agora's onLocalUserRegistered). */
    virtual void onLocalUserRegistered(uid_t uid, const char* userAccount) {
        (void)uid;
        (void)userAccount;
    }

    /** A remote user's account became known (Agora's onUserInfoUpdated). */
    virtual void onUserInfoUpdated(uid_t uid, const UserInfo& info) {
        (void)uid;
        (void)info;
    }

    /** An error the host must act on (Agora's onError): the code (not negated) and a message. */
    virtual void onError(int err, const char* msg) {
        (void)err;
        (void)msg;
    }

    // ---- Audio (ABI 0.4) ----

    /** The first audio was sent after a join, an unmute or enabling local audio
     *  (Agora's onFirstLocalAudioFramePublished); ms since the join call. */
    virtual void onFirstLocalAudioFramePublished(int elapsed) { (void)elapsed; }

    /** The first audio packet of a remote user arrived (Agora's onFirstRemoteAudioFrame). */
    virtual void onFirstRemoteAudioFrame(uid_t uid, int elapsed) {
        (void)uid;
        (void)elapsed;
    }

    /** The first audio of a remote user was decoded (Agora's onFirstRemoteAudioDecoded). */
    virtual void onFirstRemoteAudioDecoded(uid_t uid, int elapsed) {
        (void)uid;
        (void)elapsed;
    }

    /** A remote user muted or unmuted its audio (Agora's onUserMuteAudio); also
     *  fires at join for users already muted. Disabling local audio counts as muting. */
    virtual void onUserMuteAudio(uid_t uid, bool muted) {
        (void)uid;
        (void)muted;
    }

    /** The local audio state changed (Agora's onLocalAudioStateChanged). */
    virtual void onLocalAudioStateChanged(LOCAL_AUDIO_STREAM_STATE state, LOCAL_AUDIO_STREAM_ERROR error) {
        (void)state;
        (void)error;
    }

    /** A remote user's audio state changed (Agora's onRemoteAudioStateChanged);
     *  `elapsed` is ms since the local join call. */
    virtual void onRemoteAudioStateChanged(uid_t uid, REMOTE_AUDIO_STATE state, REMOTE_AUDIO_STATE_REASON reason,
                                           int elapsed) {
        (void)uid;
        (void)state;
        (void)reason;
        (void)elapsed;
    }

    /**
     * Volumes (Agora's onAudioVolumeIndication), every interval once
     * enableAudioVolumeIndication() is on: a local report (one speaker, uid 0;
     * totalVolume is its volume) and, in a call, a remote report (the up to 3
     * loudest remote users; totalVolume is the played mix). 0..255.
     * `speakers` (nullptr when speakerNumber is 0) is valid only during the call.
     */
    virtual void onAudioVolumeIndication(const AudioVolumeInfo* speakers, unsigned int speakerNumber,
                                         int totalVolume) {
        (void)speakers;
        (void)speakerNumber;
        (void)totalVolume;
    }

    /** The loudest remote user changed (Agora's onActiveSpeaker); needs volume indication. */
    virtual void onActiveSpeaker(uid_t uid) { (void)uid; }

    /** Call statistics every 2 s in a call (Agora's onRtcStats). */
    virtual void onRtcStats(const RtcStats& stats) { (void)stats; }

    /** Sending statistics every 2 s in a call (Agora's onLocalAudioStats). */
    virtual void onLocalAudioStats(const LocalAudioStats& stats) { (void)stats; }

    /** Receiving statistics every 2 s per remote user (Agora's onRemoteAudioStats). */
    virtual void onRemoteAudioStats(const RemoteAudioStats& stats) { (void)stats; }

    // ---- Video (ABI 0.5) ----

    /** The first video frame was sent in this call (Agora's
     *  onFirstLocalVideoFramePublished); ms since the join call. */
    virtual void onFirstLocalVideoFramePublished(int elapsed) { (void)elapsed; }

    /** The first picture of a remote user was decoded (Agora's
     *  onFirstRemoteVideoDecoded), at this size; ms since the local join call. */
    virtual void onFirstRemoteVideoDecoded(uid_t uid, int width, int height, int elapsed) {
        (void)uid;
        (void)width;
        (void)height;
        (void)elapsed;
    }

    /** A remote user's picture size changed (Agora's onVideoSizeChanged); rotation is 0. */
    virtual void onVideoSizeChanged(uid_t uid, int width, int height, int rotation) {
        (void)uid;
        (void)width;
        (void)height;
        (void)rotation;
    }

    /** A remote user muted or unmuted its video stream (Agora's onUserMuteVideo,
     *  muteLocalVideoStream); also fires at join for users already muted. Disabling
     *  video or local video comes as onUserEnableVideo / onUserEnableLocalVideo
     *  (from peers of ABI 0.5, which send one combined state, as this callback). */
    virtual void onUserMuteVideo(uid_t uid, bool muted) {
        (void)uid;
        (void)muted;
    }

    // ---- Video (ABI 0.6) ----

    /** The first local picture captured or pushed after video was enabled
     *  (Agora's onFirstLocalVideoFrame), at this size; ms since the join call. */
    virtual void onFirstLocalVideoFrame(int width, int height, int elapsed) {
        (void)width;
        (void)height;
        (void)elapsed;
    }

    /** The first picture of a remote user handed to its canvas (Agora's onFirstRemoteVideoFrame). */
    virtual void onFirstRemoteVideoFrame(uid_t uid, int width, int height, int elapsed) {
        (void)uid;
        (void)width;
        (void)height;
        (void)elapsed;
    }

    /** A remote user enabled or disabled video (Agora's onUserEnableVideo). */
    virtual void onUserEnableVideo(uid_t uid, bool enabled) {
        (void)uid;
        (void)enabled;
    }

    /** A remote user enabled or disabled its local video (Agora's onUserEnableLocalVideo). */
    virtual void onUserEnableLocalVideo(uid_t uid, bool enabled) {
        (void)uid;
        (void)enabled;
    }

    /** The local video state changed (Agora's onLocalVideoStateChanged). */
    virtual void onLocalVideoStateChanged(LOCAL_VIDEO_STREAM_STATE state, LOCAL_VIDEO_STREAM_ERROR error) {
        (void)state;
        (void)error;
    }

    /** A remote user's video state changed (Agora's onRemoteVideoStateChanged);
     *  `elapsed` is ms since the local join call. */
    virtual void onRemoteVideoStateChanged(uid_t uid, REMOTE_VIDEO_STATE state, REMOTE_VIDEO_STATE_REASON reason,
                                           int elapsed) {
        (void)uid;
        (void)state;
        (void)reason;
        (void)elapsed;
    }

    /** Sending statistics every 2 s in a call while local video is captured or sent (Agora's onLocalVideoStats). */
    virtual void onLocalVideoStats(const LocalVideoStats& stats) { (void)stats; }

    /** Receiving statistics every 2 s for each remote user whose video arrived (Agora's onRemoteVideoStats). */
    virtual void onRemoteVideoStats(const RemoteVideoStats& stats) { (void)stats; }

    /**
     * A snapshot asked with takeSnapshot() (Agora's onSnapshotTaken).
     *
     * @param filePath  The path given to takeSnapshot().
     * @param errCode   0 when the file was written; -1 when no picture came
     *                  before the user left or the call ended, or the file
     *                  could not be written.
     */
    virtual void onSnapshotTaken(uid_t uid, const char* filePath, int width, int height, int errCode) {
        (void)uid;
        (void)filePath;
        (void)width;
        (void)height;
        (void)errCode;
    }

    /**
     * Network quality every 2 s in a call (Agora's onNetworkQuality), as
     * QUALITY_TYPE values: first uid 0, the local user (txQuality from the
     * server's retransmission requests and the round trip, rxQuality from the
     * worst remote stream); then each remote user whose media arrives, with
     * txQuality QUALITY_UNKNOWN and rxQuality the quality its media arrives with here.
     */
    virtual void onNetworkQuality(uid_t uid, int txQuality, int rxQuality) {
        (void)uid;
        (void)txQuality;
        (void)rxQuality;
    }

    // ---- Fallback (ABI 0.7) ----

    /** The uplink could not carry video and only audio is sent (`isFallbackOrRecover`
     *  true), or video is sent again (false) (Agora's onLocalPublishFallbackToAudioOnly;
     *  with setLocalPublishFallbackOption(STREAM_FALLBACK_OPTION_AUDIO_ONLY)). */
    virtual void onLocalPublishFallbackToAudioOnly(bool isFallbackOrRecover) { (void)isFallbackOrRecover; }

    /** This downlink now receives only the audio of `uid` (true), or its video again
     *  (false) (Agora's onRemoteSubscribeFallbackToAudioOnly; with
     *  setRemoteSubscribeFallbackOption(STREAM_FALLBACK_OPTION_AUDIO_ONLY)). The user's
     *  video state also changes: STOPPED with reason 8 (AUDIO_FALLBACK), later
     *  DECODING with reason 9 (AUDIO_FALLBACK_RECOVERY). */
    virtual void onRemoteSubscribeFallbackToAudioOnly(uid_t uid, bool isFallbackOrRecover) {
        (void)uid;
        (void)isFallbackOrRecover;
    }

    // ---- The last-mile test and probe (ABI 0.7) ----

    /** The last mile's quality, a QUALITY_TYPE (Agora's onLastmileQuality): every 2 s
     *  while enableLastmileTest() runs, and once during a probe (after its uplink
     *  phase). From the probes' loss and the round trip; QUALITY_UNKNOWN when the
     *  server's media port could not be reached. */
    virtual void onLastmileQuality(int quality) { (void)quality; }

    /** The result of startLastmileProbeTest() (Agora's onLastmileProbeResult), about
     *  5 s after the start. */
    virtual void onLastmileProbeResult(const LastmileProbeResult& result) { (void)result; }

    // ---- Data streams, metadata, encryption (ABI 0.8) ----

    /** A message of `userId`'s data stream `streamId` (Agora's onStreamMessage): `length`
     *  bytes at `data`; `sentTs` the sender's wall clock when it sent it (ms since 1970). */
    virtual void onStreamMessage(uid_t userId, int streamId, const char* data, std::size_t length,
                                 std::uint64_t sentTs) {
        (void)userId;
        (void)streamId;
        (void)data;
        (void)length;
        (void)sentTs;
    }

    /** Messages of `userId`'s stream will not arrive (Agora's onStreamMessageError): `code`
     *  AGORAISH_ERR_STREAM_MESSAGE_TIMEOUT (117); `missed` lost, `cached` later ones waiting (delivered next). */
    virtual void onStreamMessageError(uid_t userId, int streamId, int code, int missed, int cached) {
        (void)userId;
        (void)streamId;
        (void)code;
        (void)missed;
        (void)cached;
    }

    /** End-to-end encryption failed (Agora's onEncryptionError); at most once a second per type. */
    virtual void onEncryptionError(ENCRYPTION_ERROR_TYPE errorType) { (void)errorType; }

    /** Audio metadata `uid` sent with sendAudioMetadata() (Agora's onAudioMetadataReceived). */
    virtual void onAudioMetadataReceived(uid_t uid, const char* metadata, std::size_t length) {
        (void)uid;
        (void)metadata;
        (void)length;
    }

    /**
     * The music of startAudioMixing() changed state (Agora's onAudioMixingStateChanged).
     *
     * PLAYING with OK once the file opened, FAILED with CAN_NOT_OPEN when it
     * cannot be (or TOO_FREQUENT_CALL); PLAYING with ONE_LOOP_COMPLETED when
     * one of several plays ended; STOPPED with ALL_LOOPS_COMPLETED at the end,
     * STOPPED_BY_USER after stopAudioMixing(); PAUSED with PAUSED_BY_USER and
     * PLAYING with RESUMED_BY_USER.
     */
    virtual void onAudioMixingStateChanged(AUDIO_MIXING_STATE_TYPE state, AUDIO_MIXING_REASON_TYPE reason) {
        (void)state;
        (void)reason;
    }

    /** The effect `soundId` of playEffect() played all its loops (Agora's
     *  onAudioEffectFinished); not called for an effect stopped or one whose
     *  file could not be opened. */
    virtual void onAudioEffectFinished(int soundId) { (void)soundId; }
};

// ---- Connections (ABI 0.11) ----

/**
 * One channel membership of an engine (Agora's RtcConnection): the channel
 * and the local uid it was joined with. The engine's own join is one
 * connection; joinChannelEx() adds more, in other channels or in the same
 * channel with another uid. A connection is named by what the host passed:
 * `localUid` 0 (the server picks the uid) names the connection joined with 0.
 *
 * Each connection has its own signaling session, media transport, jitter
 * buffers, encoders, encryption, data streams and statistics. The audio
 * device is shared: capture goes to every connection that publishes the
 * microphone, and the remote audio of all connections is mixed for playout.
 * The camera (or external video source), the external audio sink and the
 * raw audio and video observers belong to the engine's own connection.
 */
struct RtcConnection {
    /** The channel name (the rules of joinChannel()). */
    std::string channelId;
    /** The local uid as given at the join (0: the server picked one). */
    uid_t localUid = 0;

    RtcConnection() = default;
    /** The connection `uid` has (or will have) in `channel`; nullptr is "". */
    RtcConnection(const char* channel, uid_t uid) : channelId(channel != nullptr ? channel : ""), localUid(uid) {}
    /** The connection `uid` has (or will have) in `channel`. */
    RtcConnection(std::string channel, uid_t uid) : channelId(std::move(channel)), localUid(uid) {}
};

/** The same channel and local uid. */
inline bool operator==(const RtcConnection& a, const RtcConnection& b) noexcept {
    return a.localUid == b.localUid && a.channelId == b.channelId;
}

/** Another channel or local uid. */
inline bool operator!=(const RtcConnection& a, const RtcConnection& b) noexcept { return !(a == b); }

/**
 * What a connection publishes and receives (Agora 4.x ChannelMediaOptions),
 * for joinChannel(token, channelId, uid, options), joinChannelEx() and
 * updateChannelMediaOptions(Ex)(). Every field is optional, as Agora's
 * Optional<>: an unset field leaves the connection's choice as it is. A
 * connection starts publishing the microphone, subscribing to every user's
 * audio and video, and recording and playing on the device. A connection
 * publishes one audio track: the microphone, or a custom audio track
 * (createCustomAudioTrack()), which replaces it. A media player
 * (RtcEngine::createMediaPlayer()) can stand for the audio track, the video
 * track or both.
 */
struct ChannelMediaOptions {
    /** Publish the microphone (unless a custom audio track is published). */
    std::optional<bool> publishMicrophoneTrack;
    /** Publish the camera or the external video source. The engine's own
     *  connection only: true for a joinChannelEx() connection is -2. */
    std::optional<bool> publishCameraTrack;
    /** true: publish the custom audio track `publishCustomAudioTrackId` (which
     *  must then be set, here or earlier); false: stop publishing it. */
    std::optional<bool> publishCustomAudioTrack;
    /** A track id from createCustomAudioTrack(). */
    std::optional<track_id_t> publishCustomAudioTrackId;
    /** true: receive every remote user's audio; false: none until
     *  muteRemoteAudioStream(Ex)(uid, false) asks for a user. */
    std::optional<bool> autoSubscribeAudio;
    /** As autoSubscribeAudio, for video. */
    std::optional<bool> autoSubscribeVideo;
    /** false: this connection neither takes the microphone nor plays on the
     *  device (a custom audio track is still sent; remote audio is still
     *  received and reported). */
    std::optional<bool> enableAudioRecordingOrPlayout;
    /** The role (setClientRole()). */
    std::optional<CLIENT_ROLE_TYPE> clientRoleType;
    /** The channel profile (setChannelProfile()); before joining only (-5 in a channel). */
    std::optional<CHANNEL_PROFILE_TYPE> channelProfile;
    /** For a join, the token used when the join's own token is nullptr or "";
     *  for an update, renews the connection's token. */
    std::optional<std::string> token;
    /** true: publish the custom video track `customVideoTrackId`
     *  (createCustomVideoTrack()) instead of the camera; false: stop (the
     *  connection's video switches return to what they were). */
    std::optional<bool> publishCustomVideoTrack;
    /** true: publish the custom encoded video track `customVideoTrackId`
     *  (createCustomEncodedVideoTrack()); false: stop. */
    std::optional<bool> publishEncodedVideoTrack;
    /** The custom (or custom encoded) video track published; one video track per
     *  connection: the camera and a custom track at once is -2. */
    std::optional<track_id_t> customVideoTrackId;
    /** true: publish the audio of media player `publishMediaPlayerId` (which
     *  must then be set, here or earlier) as the connection's audio track,
     *  instead of the microphone or a custom audio track (to send music with
     *  the microphone use startAudioMixing()); false: stop. */
    std::optional<bool> publishMediaPlayerAudioTrack;
    /** true: publish the pictures of media player `publishMediaPlayerId` as
     *  the connection's video track, encoded with the encoder configuration
     *  (the camera or a custom video track at once is -2); false: stop. */
    std::optional<bool> publishMediaPlayerVideoTrack;
    /** The media player whose tracks are published: MediaPlayer::getMediaPlayerId(). */
    std::optional<int> publishMediaPlayerId;
};

/**
 * The events of one joinChannelEx() connection (Agora's
 * IRtcEngineEventHandlerEx). Subclass it and override the callbacks you
 * want; every default does nothing. Each method has the name of an
 * IRtcEngineEventHandler method and takes the connection first, then that
 * method's arguments with the same meaning (onJoinChannelSuccess and
 * onRejoinChannelSuccess take the uid joined with, which is the
 * connection's localUid or the one the server picked, instead of the
 * channel name, which the connection carries). The engine's own handler
 * does not see these events. This class does not derive from
 * IRtcEngineEventHandler: one object may implement both.
 *
 * The connection passed is the one the host joined (its localUid as given);
 * the reference is valid only during the callback: copy what you keep.
 *
 * Ownership: the host owns the handler. It must stay alive until the engine
 * it was given to has been released with `release(true)` (which the
 * `RtcEngine` destructor does), as an IRtcEngineEventHandler must: after
 * leaveChannelEx() the connection's last events (onLeaveChannel, then
 * onConnectionStateChanged(DISCONNECTED)) still arrive on the event thread.
 *
 * Thread: every callback runs on the engine's event thread, in order with
 * the engine's own events, one at a time; never on the thread that called
 * the engine. The rules of IRtcEngineEventHandler apply: return quickly,
 * any method but `release()` of the own engine may be called (leaveChannelEx()
 * included), and an exception that leaves a callback calls std::terminate.
 */
class IRtcEngineEventHandlerEx {
public:
    /** Virtual, so a handler can be deleted through this base. */
    virtual ~IRtcEngineEventHandlerEx() = default;

    /** The connection joined its channel (Agora's onJoinChannelSuccess):
     *  `uid` is the uid joined with (chosen by the server when localUid is 0);
     *  `elapsed` ms since joinChannelEx() was called. */
    virtual void onJoinChannelSuccess(const RtcConnection& connection, uid_t uid, int elapsed) {
        (void)connection;
        (void)uid;
        (void)elapsed;
    }

    /** The connection rejoined after an interruption (Agora's onRejoinChannelSuccess). */
    virtual void onRejoinChannelSuccess(const RtcConnection& connection, uid_t uid, int elapsed) {
        (void)connection;
        (void)uid;
        (void)elapsed;
    }

    /** The connection left its channel (Agora's onLeaveChannel), with its call's statistics. */
    virtual void onLeaveChannel(const RtcConnection& connection, const RtcStats& stats) {
        (void)connection;
        (void)stats;
    }

    /** A remote user of the connection's channel joined, or was there when it joined (Agora's onUserJoined). */
    virtual void onUserJoined(const RtcConnection& connection, uid_t remoteUid, int elapsed) {
        (void)connection;
        (void)remoteUid;
        (void)elapsed;
    }

    /** A remote user of the connection's channel left, dropped, or became audience (Agora's onUserOffline). */
    virtual void onUserOffline(const RtcConnection& connection, uid_t remoteUid, USER_OFFLINE_REASON_TYPE reason) {
        (void)connection;
        (void)remoteUid;
        (void)reason;
    }

    /** The connection's role changed (Agora's onClientRoleChanged). */
    virtual void onClientRoleChanged(const RtcConnection& connection, CLIENT_ROLE_TYPE oldRole,
                                     CLIENT_ROLE_TYPE newRole) {
        (void)connection;
        (void)oldRole;
        (void)newRole;
    }

    /** The connection's state changed (Agora's onConnectionStateChanged). */
    virtual void onConnectionStateChanged(const RtcConnection& connection, CONNECTION_STATE_TYPE state,
                                          CONNECTION_CHANGED_REASON_TYPE reason) {
        (void)connection;
        (void)state;
        (void)reason;
    }

    /** No working link to the server for 10 s (Agora's onConnectionLost); rejoining goes on. */
    virtual void onConnectionLost(const RtcConnection& connection) { (void)connection; }

    /** The connection's token expires in 30 s (Agora's onTokenPrivilegeWillExpire): renew
     *  it with updateChannelMediaOptionsEx() (ChannelMediaOptions::token). */
    virtual void onTokenPrivilegeWillExpire(const RtcConnection& connection, const char* token) {
        (void)connection;
        (void)token;
    }

    /** The connection's token expired (Agora's onRequestToken): renew it with
     *  updateChannelMediaOptionsEx() (ChannelMediaOptions::token). */
    virtual void onRequestToken(const RtcConnection& connection) { (void)connection; }

    /** An error of the connection the host must act on (Agora's onError): the code (not negated) and a message. */
    virtual void onError(const RtcConnection& connection, int err, const char* msg) {
        (void)connection;
        (void)err;
        (void)msg;
    }

    /** A remote user muted or unmuted its audio (Agora's onUserMuteAudio). */
    virtual void onUserMuteAudio(const RtcConnection& connection, uid_t remoteUid, bool muted) {
        (void)connection;
        (void)remoteUid;
        (void)muted;
    }

    /** A remote user muted or unmuted its video (Agora's onUserMuteVideo). */
    virtual void onUserMuteVideo(const RtcConnection& connection, uid_t remoteUid, bool muted) {
        (void)connection;
        (void)remoteUid;
        (void)muted;
    }

    /** The connection sent its first audio (Agora's onFirstLocalAudioFramePublished); ms since the join call. */
    virtual void onFirstLocalAudioFramePublished(const RtcConnection& connection, int elapsed) {
        (void)connection;
        (void)elapsed;
    }

    /** The first audio of a remote user was decoded (Agora's onFirstRemoteAudioDecoded). */
    virtual void onFirstRemoteAudioDecoded(const RtcConnection& connection, uid_t uid, int elapsed) {
        (void)connection;
        (void)uid;
        (void)elapsed;
    }

    /** A remote user's audio state changed (Agora's onRemoteAudioStateChanged). */
    virtual void onRemoteAudioStateChanged(const RtcConnection& connection, uid_t remoteUid, REMOTE_AUDIO_STATE state,
                                           REMOTE_AUDIO_STATE_REASON reason, int elapsed) {
        (void)connection;
        (void)remoteUid;
        (void)state;
        (void)reason;
        (void)elapsed;
    }

    /** Volumes of the connection's channel (Agora's onAudioVolumeIndication), as
     *  IRtcEngineEventHandler's; `speakers` is valid only during the call. */
    virtual void onAudioVolumeIndication(const RtcConnection& connection, const AudioVolumeInfo* speakers,
                                         unsigned int speakerNumber, int totalVolume) {
        (void)connection;
        (void)speakers;
        (void)speakerNumber;
        (void)totalVolume;
    }

    /** The connection's call statistics every 2 s (Agora's onRtcStats). */
    virtual void onRtcStats(const RtcConnection& connection, const RtcStats& stats) {
        (void)connection;
        (void)stats;
    }

    /** The connection's sending statistics every 2 s (Agora's onLocalAudioStats). */
    virtual void onLocalAudioStats(const RtcConnection& connection, const LocalAudioStats& stats) {
        (void)connection;
        (void)stats;
    }

    /** Receiving statistics every 2 s per remote user (Agora's onRemoteAudioStats). */
    virtual void onRemoteAudioStats(const RtcConnection& connection, const RemoteAudioStats& stats) {
        (void)connection;
        (void)stats;
    }

    /** Network quality every 2 s (Agora's onNetworkQuality), as IRtcEngineEventHandler's. */
    virtual void onNetworkQuality(const RtcConnection& connection, uid_t remoteUid, int txQuality, int rxQuality) {
        (void)connection;
        (void)remoteUid;
        (void)txQuality;
        (void)rxQuality;
    }

    /** The first picture of a remote user was decoded (Agora's onFirstRemoteVideoDecoded). */
    virtual void onFirstRemoteVideoDecoded(const RtcConnection& connection, uid_t remoteUid, int width, int height,
                                           int elapsed) {
        (void)connection;
        (void)remoteUid;
        (void)width;
        (void)height;
        (void)elapsed;
    }

    /** A remote user's video state changed (Agora's onRemoteVideoStateChanged). */
    virtual void onRemoteVideoStateChanged(const RtcConnection& connection, uid_t remoteUid, REMOTE_VIDEO_STATE state,
                                           REMOTE_VIDEO_STATE_REASON reason, int elapsed) {
        (void)connection;
        (void)remoteUid;
        (void)state;
        (void)reason;
        (void)elapsed;
    }

    /** Receiving statistics every 2 s for each remote user whose video arrived (Agora's onRemoteVideoStats). */
    virtual void onRemoteVideoStats(const RtcConnection& connection, const RemoteVideoStats& stats) {
        (void)connection;
        (void)stats;
    }

    /** A message of a remote user's data stream (Agora's onStreamMessage), as IRtcEngineEventHandler's. */
    virtual void onStreamMessage(const RtcConnection& connection, uid_t remoteUid, int streamId, const char* data,
                                 std::size_t length, std::uint64_t sentTs) {
        (void)connection;
        (void)remoteUid;
        (void)streamId;
        (void)data;
        (void)length;
        (void)sentTs;
    }

    /** Messages of a remote user's stream will not arrive (Agora's onStreamMessageError). */
    virtual void onStreamMessageError(const RtcConnection& connection, uid_t remoteUid, int streamId, int code,
                                      int missed, int cached) {
        (void)connection;
        (void)remoteUid;
        (void)streamId;
        (void)code;
        (void)missed;
        (void)cached;
    }

    /** A snapshot asked with takeSnapshotEx() (Agora's onSnapshotTaken), as IRtcEngineEventHandler's. */
    virtual void onSnapshotTaken(const RtcConnection& connection, uid_t uid, const char* filePath, int width,
                                 int height, int errCode) {
        (void)connection;
        (void)uid;
        (void)filePath;
        (void)width;
        (void)height;
        (void)errCode;
    }

    /** The connection's end-to-end encryption failed (Agora's onEncryptionError). */
    virtual void onEncryptionError(const RtcConnection& connection, ENCRYPTION_ERROR_TYPE errorType) {
        (void)connection;
        (void)errorType;
    }

    /** Audio metadata a remote user sent (Agora's onAudioMetadataReceived). */
    virtual void onAudioMetadataReceived(const RtcConnection& connection, uid_t uid, const char* metadata,
                                         std::size_t length) {
        (void)connection;
        (void)uid;
        (void)metadata;
        (void)length;
    }

    /** A remote user's account in the connection's channel became known (Agora's onUserInfoUpdated). */
    virtual void onUserInfoUpdated(const RtcConnection& connection, uid_t uid, const UserInfo& info) {
        (void)connection;
        (void)uid;
        (void)info;
    }

    /** The first audio packet of a remote user arrived (Agora's onFirstRemoteAudioFrame);
     *  ms since joinChannelEx(). */
    virtual void onFirstRemoteAudioFrame(const RtcConnection& connection, uid_t uid, int elapsed) {
        (void)connection;
        (void)uid;
        (void)elapsed;
    }

    /** The connection's local audio state changed (Agora's onLocalAudioStateChanged). */
    virtual void onLocalAudioStateChanged(const RtcConnection& connection, LOCAL_AUDIO_STREAM_STATE state,
                                          LOCAL_AUDIO_STREAM_ERROR error) {
        (void)connection;
        (void)state;
        (void)error;
    }

    /** The loudest remote user of the connection's channel changed (Agora's onActiveSpeaker);
     *  needs volume indication. */
    virtual void onActiveSpeaker(const RtcConnection& connection, uid_t uid) {
        (void)connection;
        (void)uid;
    }

    /** The connection sent its first video frame (Agora's onFirstLocalVideoFramePublished);
     *  ms since joinChannelEx(). */
    virtual void onFirstLocalVideoFramePublished(const RtcConnection& connection, int elapsed) {
        (void)connection;
        (void)elapsed;
    }

    /** A remote user's picture size changed (Agora's onVideoSizeChanged); rotation is 0. */
    virtual void onVideoSizeChanged(const RtcConnection& connection, uid_t uid, int width, int height,
                                    int rotation) {
        (void)connection;
        (void)uid;
        (void)width;
        (void)height;
        (void)rotation;
    }

    /** The first local picture of what the connection publishes (Agora's onFirstLocalVideoFrame),
     *  as IRtcEngineEventHandler's. */
    virtual void onFirstLocalVideoFrame(const RtcConnection& connection, int width, int height, int elapsed) {
        (void)connection;
        (void)width;
        (void)height;
        (void)elapsed;
    }

    /** The first picture of a remote user handed to its canvas (Agora's onFirstRemoteVideoFrame);
     *  ms since joinChannelEx(). */
    virtual void onFirstRemoteVideoFrame(const RtcConnection& connection, uid_t uid, int width, int height,
                                         int elapsed) {
        (void)connection;
        (void)uid;
        (void)width;
        (void)height;
        (void)elapsed;
    }

    /** A remote user enabled or disabled video (Agora's onUserEnableVideo). */
    virtual void onUserEnableVideo(const RtcConnection& connection, uid_t uid, bool enabled) {
        (void)connection;
        (void)uid;
        (void)enabled;
    }

    /** A remote user enabled or disabled its local video (Agora's onUserEnableLocalVideo). */
    virtual void onUserEnableLocalVideo(const RtcConnection& connection, uid_t uid, bool enabled) {
        (void)connection;
        (void)uid;
        (void)enabled;
    }

    /** The state of the video the connection publishes changed (Agora's onLocalVideoStateChanged). */
    virtual void onLocalVideoStateChanged(const RtcConnection& connection, LOCAL_VIDEO_STREAM_STATE state,
                                          LOCAL_VIDEO_STREAM_ERROR error) {
        (void)connection;
        (void)state;
        (void)error;
    }

    /** The connection's video sending statistics every 2 s (Agora's onLocalVideoStats). */
    virtual void onLocalVideoStats(const RtcConnection& connection, const LocalVideoStats& stats) {
        (void)connection;
        (void)stats;
    }

    /** The connection's uplink sends only audio (true), or video again (false)
     *  (Agora's onLocalPublishFallbackToAudioOnly), as IRtcEngineEventHandler's. */
    virtual void onLocalPublishFallbackToAudioOnly(const RtcConnection& connection, bool isFallbackOrRecover) {
        (void)connection;
        (void)isFallbackOrRecover;
    }

    /** The connection now receives only the audio of `uid` (true), or its video again
     *  (false) (Agora's onRemoteSubscribeFallbackToAudioOnly), as IRtcEngineEventHandler's. */
    virtual void onRemoteSubscribeFallbackToAudioOnly(const RtcConnection& connection, uid_t uid,
                                                      bool isFallbackOrRecover) {
        (void)connection;
        (void)uid;
        (void)isFallbackOrRecover;
    }
};

// ---- Custom video tracks and encoded video (ABI 0.11) ----

/**
 * What is known of an encoded video frame (Agora's EncodedVideoFrameInfo, the
 * fields this version has): what the host says of a frame it pushes with
 * RtcEngine::pushEncodedVideoImage(), and what an IVideoEncodedFrameObserver
 * learns of a received one.
 */
struct EncodedVideoFrameInfo {
    /** The codec: VP8 or VP9. */
    VIDEO_CODEC_TYPE codecType = VIDEO_CODEC_VP8;
    /** The picture size in pixels, 0..16384; received: 0 where the frame does
     *  not carry it (delta frames, VP9). */
    int width = 0;
    int height = 0;
    /** KEY_FRAME for a frame that decodes on its own: set it for each keyframe pushed. */
    VIDEO_FRAME_TYPE frameType = VIDEO_FRAME_TYPE_DELTA_FRAME;
    /** 0, 90, 180 or 270 (pushed frames; received frames report 0). */
    int rotation = 0;
    /** Pushed: the capture time in ms (any origin, increasing; the RTP
     *  timestamps follow it). Received: the RTP timestamp in ms. */
    std::int64_t captureTimeMs = 0;
    /** Received: the sender. Not read when pushing. */
    uid_t uid = 0;

    EncodedVideoFrameInfo() noexcept = default;
    /** A copy of the C struct's fields. */
    explicit EncodedVideoFrameInfo(const agoraish_encoded_video_frame_info& info) noexcept
        : codecType(static_cast<VIDEO_CODEC_TYPE>(info.codec_type)),
          width(info.width),
          height(info.height),
          frameType(static_cast<VIDEO_FRAME_TYPE>(info.frame_type)),
          rotation(info.rotation),
          captureTimeMs(info.capture_time_ms),
          uid(info.uid) {}
};

/**
 * Each remote video frame before it is decoded (Agora's
 * IVideoEncodedFrameObserver), in every connection of the engine (its own
 * and every joinChannelEx() one). Subclass it and register it with
 * RtcEngine::registerVideoEncodedFrameObserver(). Frames arrive as received
 * (payload descriptors removed), in order per stream, before decoding: also
 * those of users without a render sink.
 *
 * Ownership: the host owns the observer. It must stay alive until it is
 * removed (registerVideoEncodedFrameObserver(nullptr), from outside a
 * callback: that call waits for a running callback) or the engine is
 * released with release(true); registering another observer does not wait,
 * so a replaced observer must live until one of those calls returns.
 *
 * Thread: the receiving connection's video thread (agoraish-vid<n>); the
 * connections have a thread each, so callbacks for users of different
 * connections may run at the same time. An exception that leaves the
 * callback calls std::terminate.
 */
class IVideoEncodedFrameObserver {
public:
    /** Virtual, so an observer can be deleted through this base. */
    virtual ~IVideoEncodedFrameObserver() = default;

    /**
     * One encoded frame of `uid` (Agora's onEncodedVideoFrameReceived).
     *
     * @param imageBuffer  The frame, `length` bytes; valid during the call only.
     * @param videoEncodedFrameInfo  Codec, frame type, size (where the frame
     *        carries it), RTP timestamp in ms and sender.
     * @return Ignored (Agora's has no meaning either).
     */
    virtual bool onEncodedVideoFrameReceived(uid_t uid, const std::uint8_t* imageBuffer, std::size_t length,
                                             const EncodedVideoFrameInfo& videoEncodedFrameInfo) = 0;
};

// ---- Media player, audio mixing and effects, media recorder (ABI 0.13) ----

/** One stream of the source a MediaPlayer opened (Agora's PlayerStreamInfo),
 *  from MediaPlayer::getStreamInfo(). */
struct PlayerStreamInfo {
    /** The index in the container (what MediaPlayer::selectAudioTrack() takes). */
    int streamIndex = 0;
    /** Video, audio, subtitle or unknown. */
    MEDIA_STREAM_TYPE streamType = STREAM_TYPE_UNKNOWN;
    /** FFmpeg's name of the codec ("h264", "vp8", "aac", "opus", ...), NUL-terminated. */
    char codecName[32] = {};
    /** The language tag, "" when none. */
    char language[32] = {};
    /** Frames per second (video). */
    int videoFrameRate = 0;
    /** Kbps, 0 when unknown (video). */
    int videoBitRate = 0;
    /** The picture size in pixels (video). */
    int videoWidth = 0;
    int videoHeight = 0;
    /** Always 0. */
    int videoRotation = 0;
    /** Hz (audio). */
    int audioSampleRate = 0;
    /** Channels (audio). */
    int audioChannels = 0;
    /** 0 for compressed audio. */
    int audioBitsPerSample = 0;
    /** Ms, 0 when unknown. */
    std::int64_t duration = 0;

    PlayerStreamInfo() noexcept = default;
    /** A copy of the C struct. */
    explicit PlayerStreamInfo(const agoraish_player_stream_info& info) noexcept
        : streamIndex(info.stream_index),
          streamType(static_cast<MEDIA_STREAM_TYPE>(info.stream_type)),
          videoFrameRate(info.video_frame_rate),
          videoBitRate(info.video_bit_rate),
          videoWidth(info.video_width),
          videoHeight(info.video_height),
          videoRotation(info.video_rotation),
          audioSampleRate(info.audio_sample_rate),
          audioChannels(info.audio_channels),
          audioBitsPerSample(info.audio_bits_per_sample),
          duration(info.duration) {
        std::memcpy(codecName, info.codec_name, sizeof codecName);
        codecName[sizeof codecName - 1] = '\0';
        std::memcpy(language, info.language, sizeof language);
        language[sizeof language - 1] = '\0';
    }
};

/**
 * The events of one media player (Agora's IMediaPlayerSourceObserver).
 * Subclass it, override the callbacks you want and register it with
 * MediaPlayer::registerPlayerSourceObserver(); every default does nothing.
 *
 * Ownership: the host owns the observer. It must stay alive until it is
 * replaced or removed (registerPlayerSourceObserver(nullptr)), the player is
 * destroyed (after MediaPlayer::destroy() returns no callback runs, unless it
 * was called from one) or the engine is released with release(true).
 *
 * Thread: every callback runs on the engine's event thread, one at a time, in
 * order with the engine's other events. A callback may call any method of
 * the player or the engine except release() of the own engine. Pointers
 * passed to a callback are valid only until it returns. An exception that
 * leaves a callback calls std::terminate.
 */
class IMediaPlayerSourceObserver {
public:
    /** Virtual, so an observer can be deleted through this base. */
    virtual ~IMediaPlayerSourceObserver() = default;

    /**
     * The player's state changed (Agora's onPlayerSourceStateChanged).
     * open() gives OPENING at once, then OPEN_COMPLETED or FAILED with a reason
     * (URL_NOT_FOUND, INVALID_MEDIA_SOURCE, CODEC_NOT_SUPPORTED,
     * UNKNOWN_STREAM_TYPE, INTERRUPTED); play() PLAYING, pause() PAUSED,
     * stop() STOPPED; the end PLAYBACK_COMPLETED, then PLAYBACK_ALL_LOOPS_COMPLETED.
     */
    virtual void onPlayerSourceStateChanged(MEDIA_PLAYER_STATE state, MEDIA_PLAYER_REASON reason) {
        (void)state;
        (void)reason;
    }

    /** The position (Agora's onPositionChanged), every second while playing;
     *  `timestampMs` on the engine's monotonic clock. */
    virtual void onPositionChanged(std::int64_t positionMs, std::int64_t timestampMs) {
        (void)positionMs;
        (void)timestampMs;
    }

    /** An event (Agora's onPlayerEvent): `elapsedTime` is the position in ms,
     *  `message` "" or a text. A seek gives SEEK_BEGIN, then SEEK_COMPLETE or SEEK_ERROR. */
    virtual void onPlayerEvent(MEDIA_PLAYER_EVENT eventCode, std::int64_t elapsedTime, const char* message) {
        (void)eventCode;
        (void)elapsedTime;
        (void)message;
    }

    /** Ms of audio decoded ahead of the position (Agora's onPlayBufferUpdated), every second while playing. */
    virtual void onPlayBufferUpdated(std::int64_t playCachedBuffer) { (void)playCachedBuffer; }

    /** The last loop ended (Agora's onCompleted). */
    virtual void onCompleted() {}
};

/**
 * A media player's audio as it plays (Agora's IAudioPcmFrameSink on the
 * player); register it with MediaPlayer::registerAudioFrameObserver().
 *
 * Ownership: the host owns the observer. It must stay alive until it is
 * replaced or removed (registerAudioFrameObserver(nullptr)), the player is
 * destroyed or the engine is released with release(true).
 *
 * Thread: the player's thread (agoraish-mp<n>), in real time: keep it short.
 * An exception that leaves it calls std::terminate.
 */
class IMediaPlayerAudioFrameObserver {
public:
    /** Virtual, so an observer can be deleted through this base. */
    virtual ~IMediaPlayerAudioFrameObserver() = default;

    /** Each 10 ms at 48 kHz stereo, after speed and pitch, before the volumes.
     *  Read-only; the samples are valid during the call only. */
    virtual void onFrame(const AudioFrame& frame) = 0;
};

/**
 * A media player's pictures as they are shown (Agora's IVideoFrameObserver
 * on the player); register it with MediaPlayer::registerVideoFrameObserver().
 *
 * Ownership and thread: those of IMediaPlayerAudioFrameObserver.
 */
class IMediaPlayerVideoFrameObserver {
public:
    /** Virtual, so an observer can be deleted through this base. */
    virtual ~IMediaPlayerVideoFrameObserver() = default;

    /** Each picture when its time comes, I420 at the source's size, with
     *  alphaBuffer when the source has alpha. Read-only; the planes are valid
     *  during the call only. */
    virtual void onFrame(const VideoFrame& frame) = 0;
};

/** Whose stream a MediaRecorder records (Agora's RecorderStreamInfo), for
 *  RtcEngine::createMediaRecorder(). */
struct RecorderStreamInfo {
    /** The channel: a joinChannelEx() connection in this channel when there is
     *  one at startRecording(), else the engine's own connection (joined or to join). */
    std::string channelId;
    /** 0: the local user (what the engine's own connection sends); else that
     *  remote user of the channel, as received. */
    uid_t uid = 0;
    /** RTC (PREVIEW is -4). */
    RecorderStreamType type = RTC;

    RecorderStreamInfo() = default;
    /** The stream of `uid` in `channel`. */
    RecorderStreamInfo(std::string channel, uid_t u, RecorderStreamType t = RTC)
        : channelId(std::move(channel)), uid(u), type(t) {}
};

/** How a MediaRecorder records (Agora's MediaRecorderConfiguration), for
 *  MediaRecorder::startRecording(). The defaults are Agora's. */
struct MediaRecorderConfiguration {
    /** The file to write (MP4); its directory must exist. */
    std::string storagePath;
    /** MP4, the only container (another is -4). */
    MediaRecorderContainerFormat containerFormat = FORMAT_MP4;
    /** Audio, video or both. */
    MediaRecorderStreamType streamType = MEDIA_RECORDER_STREAM_BOTH;
    /** The longest recording in ms; reached: RECORDER_STATE_STOP with OVER_MAX_DURATION. */
    int maxDurationMs = 120000;
    /** onRecorderInfoUpdated every this many ms while recording (0: never; else 1000..10000). */
    int recorderInfoUpdateInterval = 0;
    /** The video size (16..4096, even); pictures of another size are scaled into it, letterboxed. */
    int width = 1280;
    int height = 720;
    /** Frames per second written, 1..60. */
    int fps = 30;
    /** Audio sample rate: 16000, 32000, 44100 or 48000. */
    int sample_rate = 48000;
    /** Audio channels, 1 or 2. */
    int channel_num = 1;
};

/** What a MediaRecorder has recorded so far (Agora's RecorderInfo), for
 *  IMediaRecorderObserver::onRecorderInfoUpdated(). */
struct RecorderInfo {
    /** The file's path. */
    std::string fileName;
    /** The length recorded, in ms. */
    unsigned int durationMs = 0;
    /** The file's size in bytes. */
    unsigned int fileSize = 0;

    RecorderInfo() = default;
    /** A copy of the C struct; fields past its struct_size stay empty. */
    explicit RecorderInfo(const agoraish_recorder_info& info) {
        if (info.struct_size >= offsetof(agoraish_recorder_info, file_name) + sizeof info.file_name &&
            info.file_name != nullptr)
            fileName = info.file_name;
        if (info.struct_size >= offsetof(agoraish_recorder_info, duration_ms) + sizeof info.duration_ms)
            durationMs = info.duration_ms;
        if (info.struct_size >= offsetof(agoraish_recorder_info, file_size) + sizeof info.file_size)
            fileSize = info.file_size;
    }
};

/**
 * The events of one media recorder (Agora's IMediaRecorderObserver).
 * Subclass it, override the callbacks you want and set it with
 * MediaRecorder::setMediaRecorderObserver(); every default does nothing.
 *
 * Ownership: the host owns the observer. It must stay alive until the engine
 * is released with release(true): the recorder's last events (the STOP of
 * destroy()) may still arrive after the recorder is destroyed or the
 * observer replaced.
 *
 * Thread: every callback runs on the engine's event thread, in order with the
 * engine's other events; the rules of IRtcEngineEventHandler apply, and
 * MediaRecorder::stopRecording() must not be called from a callback.
 */
class IMediaRecorderObserver {
public:
    /** Virtual, so an observer can be deleted through this base. */
    virtual ~IMediaRecorderObserver() = default;

    /**
     * The recorder of `uid` in `channelId` changed state (Agora's onRecorderStateChanged).
     * startRecording() gives START (or ERROR with WRITE_FAILED); stopRecording()
     * gives STOP, or ERROR with NO_STREAM when nothing arrived (the empty file is
     * removed); reaching maxDurationMs gives STOP with OVER_MAX_DURATION.
     */
    virtual void onRecorderStateChanged(const char* channelId, uid_t uid, RecorderState state,
                                        RecorderReasonCode reason) {
        (void)channelId;
        (void)uid;
        (void)state;
        (void)reason;
    }

    /** What has been recorded so far (Agora's onRecorderInfoUpdated), every
     *  recorderInfoUpdateInterval ms while recording. */
    virtual void onRecorderInfoUpdated(const char* channelId, uid_t uid, const RecorderInfo& info) {
        (void)channelId;
        (void)uid;
        (void)info;
    }
};

/** Internals of the wrapper: not part of the API. */
namespace detail {

/** A type as a value, to pick a `fromC` overload by the C++ parameter type. */
template <typename T>
struct Type {};

/** A C callback argument as the handler method's parameter: the same value,
 *  or an int as the enum of the same number. */
template <typename T, typename C>
T fromC(Type<T>, C value) noexcept {
    return static_cast<T>(value);
}

/** The C statistics as Agora's RtcStats (bound to the method's const reference). */
inline RtcStats fromC(Type<const RtcStats&>, const agoraish_rtc_stats* stats) noexcept {
    return stats != nullptr ? RtcStats(*stats) : RtcStats();
}

/** The C user info as Agora's UserInfo (bound to the method's const reference). */
inline UserInfo fromC(Type<const UserInfo&>, const agoraish_user_info* info) noexcept {
    return info != nullptr ? UserInfo(*info) : UserInfo();
}

/** The C sending statistics as Agora's LocalAudioStats. */
inline LocalAudioStats fromC(Type<const LocalAudioStats&>, const agoraish_local_audio_stats* stats) noexcept {
    return stats != nullptr ? LocalAudioStats(*stats) : LocalAudioStats();
}

/** The C receiving statistics as Agora's RemoteAudioStats. */
inline RemoteAudioStats fromC(Type<const RemoteAudioStats&>, const agoraish_remote_audio_stats* stats) noexcept {
    return stats != nullptr ? RemoteAudioStats(*stats) : RemoteAudioStats();
}

/** The C local video statistics as Agora's LocalVideoStats. */
inline LocalVideoStats fromC(Type<const LocalVideoStats&>, const agoraish_local_video_stats* stats) noexcept {
    return stats != nullptr ? LocalVideoStats(*stats) : LocalVideoStats();
}

/** The C remote video statistics as Agora's RemoteVideoStats. */
inline RemoteVideoStats fromC(Type<const RemoteVideoStats&>, const agoraish_remote_video_stats* stats) noexcept {
    return stats != nullptr ? RemoteVideoStats(*stats) : RemoteVideoStats();
}

/** C bytes as the `const char*` of Agora's data callbacks. */
inline const char* fromC(Type<const char*>, const std::uint8_t* bytes) noexcept {
    return reinterpret_cast<const char*>(bytes);
}

/** The C last-mile probe result as Agora's LastmileProbeResult. */
inline LastmileProbeResult fromC(Type<const LastmileProbeResult&>, const agoraish_lastmile_probe_result* result) noexcept {
    return result != nullptr ? LastmileProbeResult(*result) : LastmileProbeResult();
}

/** The C connection as an RtcConnection (bound to the method's const reference). */
inline RtcConnection fromC(Type<const RtcConnection&>, const agoraish_rtc_connection* connection) {
    return connection != nullptr ? RtcConnection(connection->channel_id, connection->local_uid) : RtcConnection();
}

/**
 * The C callback for one handler method: a static function with exactly the
 * type of the C table entry `CCallback` that casts the `user_data` back to
 * the handler (the class of `Method`: IRtcEngineEventHandler, or
 * IRtcEngineEventHandlerEx for a connection's table) and calls `Method` with
 * the C arguments after the engine and `user_data`, each converted by
 * `fromC` (ints to enums, struct pointers to const references, the
 * connection to an RtcConnection). A method whose parameters do not fit the
 * C callback's fails to compile.
 */
template <auto Method, typename CCallback>
struct Bridge;

/** Specialization that pairs the C arguments with the method's parameters. */
template <typename Handler, typename... Params, void (Handler::*Method)(Params...), typename... CArgs>
struct Bridge<Method, void (*)(agoraish_engine_t*, void*, CArgs...)> {
    static_assert(sizeof...(Params) == sizeof...(CArgs), "the handler method and the C callback differ in arity");

    /** Called by the library on the engine's event thread. */
    static void call(agoraish_engine_t* engine, void* userData, CArgs... args) noexcept {
        (void)engine;
        (static_cast<Handler*>(userData)->*Method)(fromC(Type<Params>{}, args)...);
    }
};

/** Points the C table entry `entry` at the bridge to handler method `Method`. */
template <auto Method, typename CCallback>
void bindCallback(CCallback& entry) noexcept {
    entry = &Bridge<Method, CCallback>::call;
}

#include "agoraish_callbacks.hpp"

/**
 * The C callback table that forwards every event to `handler`. The table
 * holds `handler` as its `user_data`; the library copies the table.
 * Each C entry is bound to the handler method of the same name
 * (agoraish_callbacks.hpp, generated from the header).
 */
inline agoraish_event_handler makeEventTable(IRtcEngineEventHandler* handler) noexcept {
    using H = IRtcEngineEventHandler;
    agoraish_event_handler table{};
    table.struct_size = sizeof(table);
    table.user_data = handler;
    bindEventHandlerTable<H>(table);
    return table;
}

/**
 * The C callback table of a connection that forwards every event to
 * `handler` (which the library gets as the join's `user_data`); the library
 * copies the table. Each C entry is bound to the IRtcEngineEventHandlerEx
 * method of the same name (agoraish_callbacks.hpp, generated from the header).
 */
inline agoraish_event_handler_ex makeEventTableEx() noexcept {
    agoraish_event_handler_ex table{};
    table.struct_size = sizeof(table);
    bindEventHandlerExTable<IRtcEngineEventHandlerEx>(table);
    return table;
}

/** The C connection for a C++ one: `channel_id` points into `connection`. */
inline agoraish_simulcast_config makeSimulcastConfig(const SimulcastConfig& config) noexcept {
    agoraish_simulcast_config c{};
    c.struct_size = sizeof(c);
    for (int i = 0; i < SimulcastConfig::STREAM_LAYER_COUNT_MAX; ++i) {
        const SimulcastConfig::StreamLayerConfig& layer = config.configs[i];
        c.configs[i].width = layer.dimensions.width;
        c.configs[i].height = layer.dimensions.height;
        c.configs[i].framerate = layer.framerate;
        c.configs[i].enable = layer.enable ? 1 : 0;
    }
    c.publish_fallback_enable = config.publish_fallback_enable ? 1 : 0;
    return c;
}

inline agoraish_rtc_connection makeConnection(const RtcConnection& connection) noexcept {
    agoraish_rtc_connection c{};
    c.struct_size = sizeof(c);
    c.channel_id = connection.channelId.c_str();
    c.local_uid = connection.localUid;
    return c;
}

/** The C media options for C++ ones: a set field has its has_ flag; `token` points into `options`. */
inline agoraish_channel_media_options makeMediaOptions(const ChannelMediaOptions& options) noexcept {
    agoraish_channel_media_options c{};
    c.struct_size = sizeof(c);
    const auto flag = [](const std::optional<bool>& value, int& has, int& out) {
        has = value.has_value() ? 1 : 0;
        out = value.value_or(false) ? 1 : 0;
    };
    flag(options.publishMicrophoneTrack, c.has_publish_microphone_track, c.publish_microphone_track);
    flag(options.publishCameraTrack, c.has_publish_camera_track, c.publish_camera_track);
    flag(options.publishCustomAudioTrack, c.has_publish_custom_audio_track, c.publish_custom_audio_track);
    c.has_publish_custom_audio_track_id = options.publishCustomAudioTrackId.has_value() ? 1 : 0;
    c.publish_custom_audio_track_id = options.publishCustomAudioTrackId.value_or(0);
    flag(options.autoSubscribeAudio, c.has_auto_subscribe_audio, c.auto_subscribe_audio);
    flag(options.autoSubscribeVideo, c.has_auto_subscribe_video, c.auto_subscribe_video);
    flag(options.enableAudioRecordingOrPlayout, c.has_enable_audio_recording_or_playout,
         c.enable_audio_recording_or_playout);
    c.has_client_role_type = options.clientRoleType.has_value() ? 1 : 0;
    c.client_role_type = options.clientRoleType.value_or(CLIENT_ROLE_BROADCASTER);
    c.has_channel_profile = options.channelProfile.has_value() ? 1 : 0;
    c.channel_profile = options.channelProfile.value_or(CHANNEL_PROFILE_COMMUNICATION);
    c.token = options.token ? options.token->c_str() : nullptr;
    flag(options.publishCustomVideoTrack, c.has_publish_custom_video_track, c.publish_custom_video_track);
    flag(options.publishEncodedVideoTrack, c.has_publish_encoded_video_track, c.publish_encoded_video_track);
    c.has_custom_video_track_id = options.customVideoTrackId.has_value() ? 1 : 0;
    c.custom_video_track_id = options.customVideoTrackId.value_or(0);
    flag(options.publishMediaPlayerAudioTrack, c.has_publish_media_player_audio_track,
         c.publish_media_player_audio_track);
    flag(options.publishMediaPlayerVideoTrack, c.has_publish_media_player_video_track,
         c.publish_media_player_video_track);
    c.has_publish_media_player_id = options.publishMediaPlayerId.has_value() ? 1 : 0;
    c.publish_media_player_id = options.publishMediaPlayerId.value_or(0);
    return c;
}

/** The C callbacks of an IAudioFrameObserver: `user_data` is the observer. */
struct ObserverBridge {
    static int record(agoraish_engine_t*, void* userData, agoraish_audio_frame* frame) noexcept {
        if (frame == nullptr) return 1;
        AudioFrame f(*frame);
        return static_cast<IAudioFrameObserver*>(userData)->onRecordAudioFrame(f) ? 1 : 0;
    }
    static int playback(agoraish_engine_t*, void* userData, agoraish_audio_frame* frame) noexcept {
        if (frame == nullptr) return 1;
        AudioFrame f(*frame);
        return static_cast<IAudioFrameObserver*>(userData)->onPlaybackAudioFrame(f) ? 1 : 0;
    }
    static int mixed(agoraish_engine_t*, void* userData, agoraish_audio_frame* frame) noexcept {
        if (frame == nullptr) return 1;
        AudioFrame f(*frame);
        return static_cast<IAudioFrameObserver*>(userData)->onMixedAudioFrame(f) ? 1 : 0;
    }
    static int beforeMixing(agoraish_engine_t*, void* userData, std::uint32_t uid,
                            agoraish_audio_frame* frame) noexcept {
        if (frame == nullptr) return 1;
        AudioFrame f(*frame);
        return static_cast<IAudioFrameObserver*>(userData)->onPlaybackAudioFrameBeforeMixing(uid, f) ? 1 : 0;
    }
};

/** The C render callback of an IVideoSink: `user_data` is the sink. */
inline void sinkFrame(agoraish_engine_t*, void* userData, std::uint32_t uid,
                      const agoraish_video_frame* frame) noexcept {
    if (frame == nullptr) return;
    static_cast<IVideoSink*>(userData)->onFrame(uid, VideoFrame(*frame));
}

/** The C callbacks of an IVideoFrameObserver: `user_data` is the observer. */
struct VideoObserverBridge {
    static int capture(agoraish_engine_t*, void* userData, agoraish_video_frame* frame) noexcept {
        if (frame == nullptr) return 1;
        VideoFrame f(*frame);
        return static_cast<IVideoFrameObserver*>(userData)->onCaptureVideoFrame(f) ? 1 : 0;
    }
    static int preEncode(agoraish_engine_t*, void* userData, agoraish_video_frame* frame) noexcept {
        if (frame == nullptr) return 1;
        VideoFrame f(*frame);
        return static_cast<IVideoFrameObserver*>(userData)->onPreEncodeVideoFrame(f) ? 1 : 0;
    }
    static int render(agoraish_engine_t*, void* userData, std::uint32_t uid, agoraish_video_frame* frame) noexcept {
        if (frame == nullptr) return 1;
        VideoFrame f(*frame);
        return static_cast<IVideoFrameObserver*>(userData)->onRenderVideoFrame(uid, f) ? 1 : 0;
    }
};

/** The C video observer that forwards every position to `observer`; the library copies it. */
inline agoraish_video_frame_observer makeVideoObserverTable(IVideoFrameObserver* observer, int positions) noexcept {
    agoraish_video_frame_observer table{};
    table.struct_size = sizeof(table);
    table.observed_position = positions;
    table.on_capture_video_frame = &VideoObserverBridge::capture;
    table.on_pre_encode_video_frame = &VideoObserverBridge::preEncode;
    table.on_render_video_frame = &VideoObserverBridge::render;
    table.user_data = observer;
    return table;
}

/** The C picture for a C++ one: the same buffers, not a copy. */
inline agoraish_external_video_frame makeExternalVideoFrame(const ExternalVideoFrame& frame) noexcept {
    agoraish_external_video_frame f{};
    f.struct_size = sizeof(f);
    f.format = frame.format;
    f.width = frame.width;
    f.height = frame.height;
    f.y_buffer = frame.yBuffer;
    f.u_buffer = frame.uBuffer;
    f.v_buffer = frame.vBuffer;
    f.y_stride = frame.yStride;
    f.u_stride = frame.uStride;
    f.v_stride = frame.vStride;
    f.timestamp = frame.timestamp;
    f.rotation = frame.rotation;
    f.alpha_buffer = frame.alphaBuffer;
    f.alpha_stride = frame.alphaStride;
    return f;
}

/** The C callback of an IVideoEncodedFrameObserver: `user_data` is the observer. */
inline void encodedFrameReceived(agoraish_engine_t*, void* userData, std::uint32_t uid, const std::uint8_t* data,
                                 std::size_t length, const agoraish_encoded_video_frame_info* info) noexcept {
    if (info == nullptr) return;
    static_cast<IVideoEncodedFrameObserver*>(userData)->onEncodedVideoFrameReceived(uid, data, length,
                                                                                    EncodedVideoFrameInfo(*info));
}

/** The C canvas for a C++ one: the sink's frames go through sinkFrame. */
inline agoraish_video_canvas makeCanvas(const VideoCanvas& canvas) noexcept {
    agoraish_video_canvas c{};
    c.struct_size = sizeof(c);
    c.uid = canvas.uid;
    c.on_frame = canvas.sink != nullptr ? &sinkFrame : nullptr;
    c.user_data = canvas.sink;
    c.render_mode = canvas.renderMode;
    c.mirror_mode = canvas.mirrorMode;
    c.view_width = canvas.viewWidth;
    c.view_height = canvas.viewHeight;
    return c;
}

/** The C observer that forwards every position to `observer`; the library copies it. */
inline agoraish_audio_frame_observer makeObserverTable(IAudioFrameObserver* observer, int positions) noexcept {
    agoraish_audio_frame_observer table{};
    table.struct_size = sizeof(table);
    table.user_data = observer;
    table.observed_position = positions;
    table.on_record_audio_frame = &ObserverBridge::record;
    table.on_playback_audio_frame = &ObserverBridge::playback;
    table.on_mixed_audio_frame = &ObserverBridge::mixed;
    table.on_playback_audio_frame_before_mixing = &ObserverBridge::beforeMixing;
    return table;
}

/** The C callbacks of an IMetadataObserver: `user_data` is the observer. */
struct MetadataObserverBridge {
    static int maxSize(agoraish_engine_t*, void* userData) noexcept {
        return static_cast<IMetadataObserver*>(userData)->getMaxMetadataSize();
    }
    static int readyToSend(agoraish_engine_t*, void* userData, agoraish_metadata* metadata) noexcept {
        if (metadata == nullptr) return 0;
        IMetadataObserver::Metadata m;
        m.uid = metadata->uid;
        m.size = metadata->size;
        m.buffer = metadata->buffer;
        m.timeStampMs = metadata->timestamp_ms;
        if (!static_cast<IMetadataObserver*>(userData)->onReadyToSendMetadata(m)) return 0;
        metadata->size = m.size;
        metadata->buffer = m.buffer;
        return 1;
    }
    static void received(agoraish_engine_t*, void* userData, const agoraish_metadata* metadata) noexcept {
        if (metadata == nullptr) return;
        IMetadataObserver::Metadata m;
        m.uid = metadata->uid;
        m.size = metadata->size;
        m.buffer = metadata->buffer;
        m.timeStampMs = metadata->timestamp_ms;
        static_cast<IMetadataObserver*>(userData)->onMetadataReceived(m);
    }
};

/** The C metadata observer that forwards to `observer`; the library copies it. */
inline agoraish_metadata_observer makeMetadataObserverTable(IMetadataObserver* observer) noexcept {
    agoraish_metadata_observer table{};
    table.struct_size = sizeof(table);
    table.user_data = observer;
    table.get_max_metadata_size = &MetadataObserverBridge::maxSize;
    table.on_ready_to_send_metadata = &MetadataObserverBridge::readyToSend;
    table.on_metadata_received = &MetadataObserverBridge::received;
    return table;
}

/** The C callbacks of an IPacketObserver: `user_data` is the observer. */
struct PacketObserverBridge {
    template <bool (IPacketObserver::*Method)(IPacketObserver::Packet&)>
    static int call(agoraish_engine_t*, void* userData, agoraish_packet* packet) noexcept {
        if (packet == nullptr) return 1;
        IPacketObserver::Packet p;
        p.buffer = packet->buffer;
        p.size = packet->size;
        if (!(static_cast<IPacketObserver*>(userData)->*Method)(p)) return 0;
        packet->buffer = p.buffer;
        packet->size = p.size;
        return 1;
    }
};

/** The C packet observer that forwards every kind to `observer`; the library copies it. */
inline agoraish_packet_observer makePacketObserverTable(IPacketObserver* observer) noexcept {
    using B = PacketObserverBridge;
    using O = IPacketObserver;
    agoraish_packet_observer table{};
    table.struct_size = sizeof(table);
    table.user_data = observer;
    table.on_send_audio_packet = &B::call<&O::onSendAudioPacket>;
    table.on_send_video_packet = &B::call<&O::onSendVideoPacket>;
    table.on_receive_audio_packet = &B::call<&O::onReceiveAudioPacket>;
    table.on_receive_video_packet = &B::call<&O::onReceiveVideoPacket>;
    return table;
}

/** The C callbacks of an IMediaPlayerSourceObserver: `user_data` is the observer. */
struct PlayerSourceObserverBridge {
    static IMediaPlayerSourceObserver* of(void* userData) noexcept {
        return static_cast<IMediaPlayerSourceObserver*>(userData);
    }
    static void stateChanged(agoraish_engine_t*, void* userData, int, int state, int reason) noexcept {
        of(userData)->onPlayerSourceStateChanged(static_cast<MEDIA_PLAYER_STATE>(state),
                                                 static_cast<MEDIA_PLAYER_REASON>(reason));
    }
    static void positionChanged(agoraish_engine_t*, void* userData, int, std::int64_t positionMs,
                                std::int64_t timestampMs) noexcept {
        of(userData)->onPositionChanged(positionMs, timestampMs);
    }
    static void event(agoraish_engine_t*, void* userData, int, int eventCode, std::int64_t elapsedTime,
                      const char* message) noexcept {
        of(userData)->onPlayerEvent(static_cast<MEDIA_PLAYER_EVENT>(eventCode), elapsedTime,
                                    message != nullptr ? message : "");
    }
    static void bufferUpdated(agoraish_engine_t*, void* userData, int, std::int64_t playCachedBuffer) noexcept {
        of(userData)->onPlayBufferUpdated(playCachedBuffer);
    }
    static void completed(agoraish_engine_t*, void* userData, int) noexcept { of(userData)->onCompleted(); }
};

/** The C observer that forwards a player's events to `observer`; the library copies it. */
inline agoraish_media_player_observer makePlayerSourceObserverTable(IMediaPlayerSourceObserver* observer) noexcept {
    using B = PlayerSourceObserverBridge;
    agoraish_media_player_observer table{};
    table.struct_size = sizeof(table);
    table.user_data = observer;
    table.on_player_source_state_changed = &B::stateChanged;
    table.on_position_changed = &B::positionChanged;
    table.on_player_event = &B::event;
    table.on_play_buffer_updated = &B::bufferUpdated;
    table.on_completed = &B::completed;
    return table;
}

/** The C callback of an IMediaPlayerAudioFrameObserver: `user_data` is the observer. */
inline void playerAudioFrame(agoraish_engine_t*, void* userData, int, const agoraish_audio_frame* frame) noexcept {
    if (frame == nullptr) return;
    static_cast<IMediaPlayerAudioFrameObserver*>(userData)->onFrame(AudioFrame(*frame));
}

/** The C callback of an IMediaPlayerVideoFrameObserver: `user_data` is the observer. */
inline void playerVideoFrame(agoraish_engine_t*, void* userData, int, const agoraish_video_frame* frame) noexcept {
    if (frame == nullptr) return;
    static_cast<IMediaPlayerVideoFrameObserver*>(userData)->onFrame(VideoFrame(*frame));
}

/** The C callbacks of an IMediaRecorderObserver: `user_data` is the observer. */
struct RecorderObserverBridge {
    static void stateChanged(agoraish_engine_t*, void* userData, int, const char* channelId, std::uint32_t uid,
                             int state, int reason) noexcept {
        static_cast<IMediaRecorderObserver*>(userData)->onRecorderStateChanged(
            channelId != nullptr ? channelId : "", uid, static_cast<RecorderState>(state),
            static_cast<RecorderReasonCode>(reason));
    }
    static void infoUpdated(agoraish_engine_t*, void* userData, int, const char* channelId, std::uint32_t uid,
                            const agoraish_recorder_info* info) noexcept {
        static_cast<IMediaRecorderObserver*>(userData)->onRecorderInfoUpdated(
            channelId != nullptr ? channelId : "", uid, info != nullptr ? RecorderInfo(*info) : RecorderInfo());
    }
};

/** The C observer that forwards a recorder's events to `observer`; the library copies it. */
inline agoraish_media_recorder_observer makeRecorderObserverTable(IMediaRecorderObserver* observer) noexcept {
    agoraish_media_recorder_observer table{};
    table.struct_size = sizeof(table);
    table.user_data = observer;
    table.on_recorder_state_changed = &RecorderObserverBridge::stateChanged;
    table.on_recorder_info_updated = &RecorderObserverBridge::infoUpdated;
    return table;
}

/**
 * Reads a string through a C function with the `buf, *len` convention into
 * `out` (unchanged on failure), growing the buffer when the value is longer.
 */
template <typename Read>
int readString(Read read, std::string& out) {
    std::string buffer(64, '\0');
    for (int attempt = 0; attempt < 8; ++attempt) {
        std::size_t len = buffer.size();
        const int rc = read(buffer.data(), &len);
        if (rc == 0) {
            buffer.resize(len > 0 ? len - 1 : 0);
            out = std::move(buffer);
            return 0;
        }
        if (rc != -AGORAISH_ERR_BUFFER_TOO_SMALL) return rc;
        buffer.assign(len, '\0');  // the value may grow again before the next try
    }
    return -AGORAISH_ERR_BUFFER_TOO_SMALL;
}

}  // namespace detail

/**
 * How to create an engine (Agora's RtcEngineContext). Unset optional fields
 * select the library's defaults.
 */
struct RtcEngineContext {
    /** The app id: required, 1..128 printable ASCII characters. */
    std::string appId;
    /** Receives the engine's events, or nullptr for none. Not owned: see
     *  IRtcEngineEventHandler for how long it must live. */
    IRtcEngineEventHandler* eventHandler = nullptr;
    /** The channel server, "ws://host:port" or "wss://host:port". Unset: the
     *  environment variable AGORAISH_SERVER, then "ws://127.0.0.1:7450". */
    std::optional<std::string> serverUrl;
    /** The log file. Unset: the default file of agoraish.h (in
     *  $AGORAISH_LOG_DIR, else $XDG_STATE_HOME/agoraish, ...). Read it back
     *  with getParameter("rtc.log_file", ...). */
    std::optional<std::string> logFile;
    /** Size of one log file in KB: AGORAISH_LOG_FILE_SIZE_MIN_KB..MAX_KB
     *  (smaller positive values are raised to the minimum). Unset: 1024. */
    std::optional<int> logFileSizeKB;
    /** An agoraish_log_level. Unset: AGORAISH_LOG_LEVEL_INFO.
     *  AGORAISH_LOG_LEVEL_NONE is applied right after creation with
     *  setLogLevel(), so it produces one onApiCallExecuted("setLogLevel")
     *  event; the creation line is still logged. */
    std::optional<int> logLevel;
    /** An agoraish_area_code bit set. Unset: AGORAISH_AREA_CODE_GLOB. */
    std::optional<unsigned int> areaCode;
};

#if defined(__cpp_exceptions)
/**
 * An error code as an exception, thrown only by the throwing constructors
 * `RtcEngine(const RtcEngineContext&)` and `ChannelServer(const
 * ChannelServerConfig&)`. Every method returns codes instead.
 */
class Error : public std::runtime_error {
public:
    /** @param code  A negated agoraish_error_code, as methods return it. The
     *  message is its description and this thread's error detail (why, in the
     *  library's words), read at once. */
    explicit Error(int code)
        : std::runtime_error(message(code)), code_(code), detail_(agoraish_get_last_error_detail()) {}
    /** The negated agoraish_error_code, for example -101. */
    int code() const noexcept { return code_; }
    /** Why the call failed, in the library's words ("" when it said nothing more). */
    const std::string& detail() const noexcept { return detail_; }

private:
    static std::string message(int code) {
        std::string text = agoraish_get_error_description(code);
        const char* detail = agoraish_get_last_error_detail();
        if (detail && *detail) text += std::string(" - ") + detail;
        return text;
    }

    int code_;
    std::string detail_;
};
#endif

class MediaPlayer;
class MediaRecorder;
class LocalSpatialAudioEngine;

/**
 * One engine (Agora's IRtcEngine), owned: the destructor releases it with
 * release(true). Move-only: a moved-from RtcEngine holds no engine.
 *
 * An RtcEngine that holds no engine (default-constructed, released or moved
 * from) answers every method with -7 (AGORAISH_ERR_NOT_INITIALIZED), except
 * release(), which returns 0.
 *
 * Thread: every method may be called from any thread. Do not destroy or
 * move-assign an RtcEngine from inside one of its own event callbacks or from
 * inside any raw audio observer callback: the release is refused there (-5)
 * and the engine would stay alive.
 */
class RtcEngine {
public:
    /** An RtcEngine that holds no engine yet: call initialize() or create(). */
    RtcEngine() noexcept = default;

#if defined(__cpp_exceptions)
    /**
     * Creates the engine at once (createAgoraRtcEngine + initialize).
     * @throws agoraish::Error with the code initialize() would return.
     */
    explicit RtcEngine(const RtcEngineContext& context) {
        if (int rc = initialize(context); rc != 0) throw Error(rc);
    }
#endif

    /** Releases the engine with release(true). */
    ~RtcEngine() { release(true); }

    /** Not copyable: exactly one RtcEngine owns an engine. */
    RtcEngine(const RtcEngine&) = delete;
    /** Not copyable: exactly one RtcEngine owns an engine. */
    RtcEngine& operator=(const RtcEngine&) = delete;

    /** Takes the engine of `other`, which is left empty. */
    RtcEngine(RtcEngine&& other) noexcept : engine_(std::exchange(other.engine_, nullptr)) {}

    /** Releases this engine (release(true)), then takes the engine of `other`. */
    RtcEngine& operator=(RtcEngine&& other) noexcept {
        if (this != &other) {
            release(true);
            engine_ = std::exchange(other.engine_, nullptr);
        }
        return *this;
    }

    /**
     * Creates an engine into `out` (replacing, and so releasing, what it held).
     *
     * @return 0, or the code of initialize(); `out` is unchanged on failure.
     */
    static int create(const RtcEngineContext& context, RtcEngine& out) noexcept {
        RtcEngine engine;
        if (int rc = engine.initialize(context); rc != 0) return rc;
        out = std::move(engine);
        return 0;
    }

    /**
     * Creates the engine (Agora's IRtcEngine::initialize). The engine starts
     * its event thread and opens its log before this returns.
     *
     * @return 0; -8 if this RtcEngine already holds an engine; otherwise the
     *         code of agoraish_engine_create(): -2 a field out of range,
     *         -101 bad app id, -1 the log file cannot be opened.
     */
    int initialize(const RtcEngineContext& context) noexcept {
        if (engine_ != nullptr) return -AGORAISH_ERR_INVALID_STATE;
        agoraish_event_handler table = detail::makeEventTable(context.eventHandler);
        agoraish_engine_config config{};
        config.struct_size = sizeof(config);
        config.app_id = context.appId.c_str();
        config.event_handler = context.eventHandler != nullptr ? &table : nullptr;
        config.server_url = context.serverUrl ? context.serverUrl->c_str() : nullptr;
        config.log_file = context.logFile ? context.logFile->c_str() : nullptr;
        config.log_file_size_kb = context.logFileSizeKB.value_or(-1);
        const int level = context.logLevel.value_or(AGORAISH_LOG_LEVEL_INFO);
        // 0 in the C struct selects INFO; NONE is applied after creation.
        config.log_level = level == AGORAISH_LOG_LEVEL_NONE ? AGORAISH_LOG_LEVEL_INFO : level;
        config.area_code = context.areaCode.value_or(static_cast<unsigned int>(AGORAISH_AREA_CODE_GLOB));
        engine_ = agoraish_engine_create(&config);
        if (engine_ == nullptr) {
            const int rc = agoraish_get_last_error();
            return rc != 0 ? rc : -AGORAISH_ERR_FAILED;
        }
        if (level == AGORAISH_LOG_LEVEL_NONE) return setLogLevel(AGORAISH_LOG_LEVEL_NONE);
        return 0;
    }

    /**
     * Releases the engine and everything it owns (Agora's release). Idempotent.
     *
     * @param sync  true: also waits until a running callback has returned and
     *              the event thread has ended, so the handler may be freed.
     *              false: that clean-up finishes in the background.
     * @return 0 (also when no engine is held); -5 when called from one of this
     *         engine's own event callbacks or from inside any raw audio
     *         observer callback (the engine is kept).
     */
    int release(bool sync = true) noexcept {
        if (engine_ == nullptr) return 0;
        const int rc = agoraish_engine_release(engine_, sync ? 1 : 0);
        if (rc != -AGORAISH_ERR_REFUSED) engine_ = nullptr;
        return rc;
    }

    /** Whether this RtcEngine holds an engine. */
    explicit operator bool() const noexcept { return engine_ != nullptr; }

    /** The C handle, for calls the wrapper lacks; still owned by this object. */
    agoraish_engine_t* nativeHandle() const noexcept { return engine_; }

    /**
     * Sets private parameters as a JSON object (Agora's setParameters), for
     * example `{"rtc.log_filter": 2063}`. All keys are checked before any is
     * applied. On success onApiCallExecuted("setParameters") follows.
     *
     * @param parameters  JSON text, at most 65536 bytes. Copied.
     * @return 0; -2 bad JSON, unknown key or bad value; -7 no engine.
     */
    int setParameters(const char* parameters) noexcept {
        return agoraish_engine_set_parameters(engine_, parameters);
    }

    /** setParameters(const char*) for a std::string. */
    int setParameters(const std::string& parameters) noexcept {
        return setParameters(parameters.c_str());
    }

    /**
     * Reads one parameter as JSON text (a string value is quoted).
     *
     * @param key  A key of setParameters, or "rtc.app_id" / "rtc.area_code".
     * @param out  Receives the value; unchanged on failure.
     * @return 0; -2 unknown key; -7 no engine.
     */
    int getParameter(const std::string& key, std::string& out) const {
        return detail::readString(
            [this, &key](char* buf, std::size_t* len) {
                return agoraish_engine_get_parameter(engine_, key.c_str(), buf, len);
            },
            out);
    }

    /**
     * Sets the log file (Agora's setLogFile); its directory must exist. On
     * success onApiCallExecuted("setLogFile") follows.
     *
     * @param filePath  Non-empty path, at most 4095 bytes. Copied.
     * @return 0; -2 bad path or the file cannot be opened; -7 no engine.
     */
    int setLogFile(const char* filePath) noexcept {
        return agoraish_engine_set_log_file(engine_, filePath);
    }

    /**
     * Sets which log lines are written (Agora's setLogFilter).
     *
     * @param filter  An agoraish_log_filter bit set within AGORAISH_LOG_FILTER_MASK.
     * @return 0; -2 unknown bits; -7 no engine.
     */
    int setLogFilter(unsigned int filter) noexcept {
        return agoraish_engine_set_log_filter(engine_, filter);
    }

    /**
     * Sets the log level (Agora 4.x setLogLevel).
     *
     * @param level  An agoraish_log_level.
     * @return 0; -2 unknown level; -7 no engine.
     */
    int setLogLevel(int level) noexcept {
        return agoraish_engine_set_log_level(engine_, level);
    }

    /**
     * Sets the size of one log file (Agora's setLogFileSize).
     *
     * @param fileSizeInKBytes  1..AGORAISH_LOG_FILE_SIZE_MAX_KB; values below
     *                          AGORAISH_LOG_FILE_SIZE_MIN_KB are raised to it.
     * @return 0; -2 out of range; -7 no engine.
     */
    int setLogFileSize(unsigned int fileSizeInKBytes) noexcept {
        return agoraish_engine_set_log_file_size(engine_, fileSizeInKBytes);
    }

    // ---- Channels (ABI 0.2) ----

    /**
     * Sets the channel profile (Agora's setChannelProfile), before joining.
     * All users of a channel must use the same profile.
     *
     * @return 0; -2 unknown profile; -5 in or joining a channel; -7 no engine.
     */
    int setChannelProfile(CHANNEL_PROFILE_TYPE profile) noexcept {
        return agoraish_engine_set_channel_profile(engine_, profile);
    }

    /**
     * Sets the client role (Agora's setClientRole). Before joining it sets the
     * role to join with; while connected the server is asked and
     * onClientRoleChanged follows. In live broadcasting remote users see
     * onUserJoined (became broadcaster) or onUserOffline with
     * USER_OFFLINE_BECOME_AUDIENCE (became audience).
     *
     * @return 0; -2 unknown role; -5 while joining or reconnecting; -7 no engine.
     */
    int setClientRole(CLIENT_ROLE_TYPE role) noexcept {
        return agoraish_engine_set_client_role(engine_, role);
    }

    /**
     * Joins a channel (Agora's joinChannel). Asynchronous:
     * onConnectionStateChanged(CONNECTING), then onJoinChannelSuccess and
     * onUserJoined for each user already there; or FAILED with the reason.
     *
     * @param token      The token, or nullptr/"" for an app without a certificate.
     * @param channelId  1..63 bytes of the allowed set (see agoraish.h).
     * @param info       Optional extra information; never sent to other users.
     * @param uid        The uid, or 0 to let the server choose one.
     * @return 0; -2 nullptr channelId; -102 bad channel name; -17 already in
     *         or joining a channel; -5 ws:// to a host other than loopback without
     *         rtc.allow_insecure_signaling; -7 no engine.
     */
    int joinChannel(const char* token, const char* channelId, const char* info, uid_t uid) noexcept {
        return agoraish_engine_join_channel(engine_, token, channelId, info, uid);
    }

    /**
     * Joins a channel with a user account (Agora's joinChannelWithUserAccount):
     * onLocalUserRegistered and onJoinChannelSuccess follow.
     *
     * @param userAccount  1..255 bytes of UTF-8.
     * @return As joinChannel(), and -134 for a bad account.
     */
    int joinChannelWithUserAccount(const char* token, const char* channelId, const char* userAccount) noexcept {
        return agoraish_engine_join_channel_with_user_account(engine_, token, channelId, userAccount);
    }

    /**
     * Registers a user account ahead of joining (Agora's
     * registerLocalUserAccount); onLocalUserRegistered follows.
     *
     * @param appId  Must be this engine's app id.
     * @return 0; -2 nullptr or another app id; -134 bad account; -7 no engine.
     */
    int registerLocalUserAccount(const char* appId, const char* userAccount) noexcept {
        return agoraish_engine_register_local_user_account(engine_, appId, userAccount);
    }

    /**
     * Looks up a user by account among the users this engine has learned of,
     * itself included (Agora's getUserInfoByUserAccount).
     *
     * @param userInfo  Filled on success; unchanged on failure.
     * @return 0; -2 nullptr arguments or an unknown account; -7 no engine.
     */
    int getUserInfoByUserAccount(const char* userAccount, UserInfo* userInfo) const noexcept {
        if (userInfo == nullptr) return agoraish_engine_get_user_info_by_user_account(engine_, userAccount, nullptr);
        agoraish_user_info info{};
        const int rc = agoraish_engine_get_user_info_by_user_account(engine_, userAccount, &info);
        if (rc == 0) *userInfo = UserInfo(info);
        return rc;
    }

    /**
     * Looks up a user account by uid (Agora's getUserInfoByUid).
     *
     * @param userInfo  Filled on success; unchanged on failure.
     * @return 0; -2 nullptr userInfo or an unknown uid; -7 no engine.
     */
    int getUserInfoByUid(uid_t uid, UserInfo* userInfo) const noexcept {
        if (userInfo == nullptr) return agoraish_engine_get_user_info_by_uid(engine_, uid, nullptr);
        agoraish_user_info info{};
        const int rc = agoraish_engine_get_user_info_by_uid(engine_, uid, &info);
        if (rc == 0) *userInfo = UserInfo(info);
        return rc;
    }

    /**
     * Leaves the channel (Agora's leaveChannel): onLeaveChannel with the
     * call's statistics, then onConnectionStateChanged(DISCONNECTED,
     * LEAVE_CHANNEL). Also ends a join in progress or a reconnection.
     *
     * @return 0; -18 not in (or joining) a channel; -7 no engine.
     */
    int leaveChannel() noexcept { return agoraish_engine_leave_channel(engine_); }

    /**
     * Sets the audio profile (an AUDIO_PROFILE_TYPE) (Agora 4.x
     * setAudioProfile): the encoder follows it at once, for the external
     * source and for capture.
     *
     * @return 0; -2 unknown profile; -7 no engine.
     */
    int setAudioProfile(int profile) noexcept { return agoraish_engine_set_audio_profile(engine_, profile); }

    /**
     * Sends audio pushed with pushExternalAudioFrame instead of a microphone
     * (Agora's setExternalAudioSource). Rates 8000, 16000, 32000, 44100 or
     * 48000; 1 or 2 channels.
     *
     * @return 0; -2 unsupported format; -7 no engine.
     */
    int setExternalAudioSource(bool enabled, int sampleRate, int channels) noexcept {
        return agoraish_engine_set_external_audio_source(engine_, enabled ? 1 : 0, sampleRate, channels);
    }

    /**
     * Pushes interleaved 16-bit PCM (Agora's pushExternalAudioFrame). Thread: any.
     *
     * @return samples per channel waiting for the next 20 ms frame (>= 0);
     *         -2 bad arguments; -3 no external source; -7 no engine.
     */
    int pushExternalAudioFrame(const int16_t* samples, int samplesPerChannel) noexcept {
        return agoraish_engine_push_external_audio_frame(engine_, samples, samplesPerChannel);
    }

    /**
     * Lets the host pull what it would hear (Agora's setExternalAudioSink).
     *
     * @return 0; -2 unsupported format; -7 no engine.
     */
    int setExternalAudioSink(bool enabled, int sampleRate, int channels) noexcept {
        return agoraish_engine_set_external_audio_sink(engine_, enabled ? 1 : 0, sampleRate, channels);
    }

    /**
     * Pulls exactly samplesPerChannel interleaved samples of the remote mix at
     * the sink's rate (Agora's pullPlaybackAudioFrame). Pull in real time. Thread: any.
     *
     * @return 0; -2 bad arguments; -3 no external sink; -7 no engine.
     */
    int pullPlaybackAudioFrame(int16_t* samples, int samplesPerChannel) noexcept {
        return agoraish_engine_pull_playback_audio_frame(engine_, samples, samplesPerChannel);
    }

    // ---- Audio switches and volumes (ABI 0.4) ----

    /** Audio on (Agora's enableAudio; on by default). @return 0; -7 no engine. */
    int enableAudio() noexcept { return agoraish_engine_enable_audio(engine_); }

    /** Audio off (Agora's disableAudio): nothing is captured, sent, received or
     *  played; others see this user as muted. @return 0; -7 no engine. */
    int disableAudio() noexcept { return agoraish_engine_disable_audio(engine_); }

    /** Local capture and sending on or off (Agora's enableLocalAudio); receiving
     *  goes on. @return 0; -7 no engine. */
    int enableLocalAudio(bool enabled) noexcept { return agoraish_engine_enable_local_audio(engine_, enabled ? 1 : 0); }

    /** Stops or resumes sending local audio (Agora's muteLocalAudioStream).
     *  @return 0; -7 no engine. */
    int muteLocalAudioStream(bool mute) noexcept {
        return agoraish_engine_mute_local_audio_stream(engine_, mute ? 1 : 0);
    }

    /** Stops or resumes receiving one remote user's audio (Agora's
     *  muteRemoteAudioStream); may be called before the user joins.
     *  @return 0; -2 uid 0; -7 no engine. */
    int muteRemoteAudioStream(uid_t uid, bool mute) noexcept {
        return agoraish_engine_mute_remote_audio_stream(engine_, uid, mute ? 1 : 0);
    }

    /** Stops or resumes receiving every remote user's audio, including users
     *  who join later (Agora's muteAllRemoteAudioStreams). @return 0; -7 no engine. */
    int muteAllRemoteAudioStreams(bool mute) noexcept {
        return agoraish_engine_mute_all_remote_audio_streams(engine_, mute ? 1 : 0);
    }

    /** Whether users who join later start muted (Agora's
     *  setDefaultMuteAllRemoteAudioStreams). @return 0; -7 no engine. */
    int setDefaultMuteAllRemoteAudioStreams(bool mute) noexcept {
        return agoraish_engine_set_default_mute_all_remote_audio_streams(engine_, mute ? 1 : 0);
    }

    /** Volume of local audio before sending (Agora's adjustRecordingSignalVolume):
     *  0..400, 100 unchanged. @return 0; -2 out of range; -7 no engine. */
    int adjustRecordingSignalVolume(int volume) noexcept {
        return agoraish_engine_adjust_recording_signal_volume(engine_, volume);
    }

    /** Volume of the remote mix (Agora's adjustPlaybackSignalVolume): 0..400,
     *  100 unchanged. @return 0; -2 out of range; -7 no engine. */
    int adjustPlaybackSignalVolume(int volume) noexcept {
        return agoraish_engine_adjust_playback_signal_volume(engine_, volume);
    }

    /** Volume of one remote user (Agora's adjustUserPlaybackSignalVolume):
     *  0..100. @return 0; -2 uid 0 or out of range; -7 no engine. */
    int adjustUserPlaybackSignalVolume(uid_t uid, int volume) noexcept {
        return agoraish_engine_adjust_user_playback_signal_volume(engine_, uid, volume);
    }

    /**
     * Volume reports (Agora's enableAudioVolumeIndication): onAudioVolumeIndication
     * every `interval` ms, and onActiveSpeaker.
     *
     * @param interval   <= 0 off; else 10..60000 ms (200 or more recommended).
     * @param smooth     0..10, the sensitivity: higher follows changes faster,
     *                   10 reports each interval as measured (3 recommended).
     * @param reportVad  The local report carries voice activity.
     * @return 0; -2 out of range; -7 no engine.
     */
    int enableAudioVolumeIndication(int interval, int smooth, bool reportVad) noexcept {
        return agoraish_engine_enable_audio_volume_indication(engine_, interval, smooth, reportVad ? 1 : 0);
    }

    // ---- Raw audio (ABI 0.4) ----

    /**
     * Registers a raw audio observer (Agora's registerAudioFrameObserver), or
     * removes it with nullptr. See IAudioFrameObserver for its lifetime.
     *
     * @param positions  AUDIO_FRAME_POSITION bits.
     * @return 0; -2 unknown position bits; -7 no engine.
     */
    int registerAudioFrameObserver(IAudioFrameObserver* observer, int positions) noexcept {
        if (observer == nullptr) return agoraish_engine_register_audio_frame_observer(engine_, nullptr);
        const agoraish_audio_frame_observer table = detail::makeObserverTable(observer, positions);
        return agoraish_engine_register_audio_frame_observer(engine_, &table);
    }

    /** registerAudioFrameObserver() with the positions of
     *  observer->getObservedAudioFramePosition(). */
    int registerAudioFrameObserver(IAudioFrameObserver* observer) {
        if (observer == nullptr) return agoraish_engine_register_audio_frame_observer(engine_, nullptr);
        return registerAudioFrameObserver(observer, observer->getObservedAudioFramePosition());
    }

    /**
     * Format of onRecordAudioFrame (Agora's setRecordingAudioFrameParameters).
     *
     * @param sampleRate      8000, 16000, 32000, 44100 or 48000.
     * @param channel         1 or 2.
     * @param mode            What the observer may do with the frame.
     * @param samplesPerCall  0 for 10 ms, else sampleRate/100 .. sampleRate.
     * @return 0; -2 out of range; -7 no engine.
     */
    int setRecordingAudioFrameParameters(int sampleRate, int channel, RAW_AUDIO_FRAME_OP_MODE_TYPE mode,
                                         int samplesPerCall) noexcept {
        return agoraish_engine_set_recording_audio_frame_parameters(engine_, sampleRate, channel, mode,
                                                                    samplesPerCall);
    }

    /** Format of onPlaybackAudioFrame (Agora's setPlaybackAudioFrameParameters);
     *  as for recording. @return 0; -2 out of range; -7 no engine. */
    int setPlaybackAudioFrameParameters(int sampleRate, int channel, RAW_AUDIO_FRAME_OP_MODE_TYPE mode,
                                        int samplesPerCall) noexcept {
        return agoraish_engine_set_playback_audio_frame_parameters(engine_, sampleRate, channel, mode,
                                                                   samplesPerCall);
    }

    /** Format of onMixedAudioFrame (Agora's setMixedAudioFrameParameters); always
     *  read-only. @return 0; -2 out of range; -7 no engine. */
    int setMixedAudioFrameParameters(int sampleRate, int channel, int samplesPerCall) noexcept {
        return agoraish_engine_set_mixed_audio_frame_parameters(engine_, sampleRate, channel, samplesPerCall);
    }

    /** Format of onPlaybackAudioFrameBeforeMixing (Agora's
     *  setPlaybackAudioFrameBeforeMixingParameters): 10 ms per call, read-only.
     *  @return 0; -2 out of range; -7 no engine. */
    int setPlaybackAudioFrameBeforeMixingParameters(int sampleRate, int channel) noexcept {
        return agoraish_engine_set_playback_audio_frame_before_mixing_parameters(engine_, sampleRate, channel);
    }

    // ---- Recording to a file (ABI 0.4) ----

    /**
     * Records audio to a file (Agora's startAudioRecording): mono 16-bit PCM
     * WAV, or Ogg Opus for ".ogg" / ".opus". A recording in progress is
     * finished first.
     *
     * @return 0; -2 empty path, rate, position or quality out of range; -1 the
     *         file cannot be created; -7 no engine.
     */
    int startAudioRecording(const AudioRecordingConfiguration& config) noexcept {
        agoraish_audio_recording_config c{};
        c.struct_size = sizeof(c);
        c.file_path = config.filePath.c_str();
        c.sample_rate = config.sampleRate;
        c.position = config.position;
        c.quality = config.quality;
        return agoraish_engine_start_audio_recording(engine_, &c);
    }

    /** startAudioRecording() of local and remote audio (Agora 3.x's signature). */
    int startAudioRecording(const char* filePath, int sampleRate, AUDIO_RECORDING_QUALITY_TYPE quality) {
        AudioRecordingConfiguration config;
        config.filePath = filePath != nullptr ? filePath : "";
        config.sampleRate = sampleRate;
        config.quality = quality;
        return startAudioRecording(config);
    }

    /** Finishes the recording (Agora's stopAudioRecording). Idempotent. @return 0; -7 no engine. */
    int stopAudioRecording() noexcept { return agoraish_engine_stop_audio_recording(engine_); }

    // ---- Audio devices (ABI 0.4) ----

    /** Number of audio devices of a kind. @return the count (>= 0); -2 unknown type; -7 no engine. */
    int getAudioDeviceCount(MEDIA_DEVICE_TYPE type) const noexcept {
        return agoraish_engine_get_audio_device_count(engine_, type);
    }

    /**
     * One audio device of a kind, by index in the current enumeration.
     *
     * @param out  Filled on success; unchanged on failure.
     * @return 0; -2 unknown type or index out of range; -7 no engine.
     */
    int getAudioDevice(MEDIA_DEVICE_TYPE type, int index, AudioDeviceInfo& out) const {
        agoraish_audio_device_info info{};
        const int rc = agoraish_engine_get_audio_device(engine_, type, index, &info);
        if (rc != 0) return rc;
        info.id[sizeof info.id - 1] = '\0';
        info.name[sizeof info.name - 1] = '\0';
        out.deviceId = info.id;
        out.deviceName = info.name;
        return 0;
    }

    /**
     * Every audio device of a kind (Agora's enumerateRecordingDevices /
     * enumeratePlaybackDevices): the PCMs ALSA lists, "default" first.
     *
     * @param out  Receives the devices; unchanged on failure.
     * @return 0; -2 unknown type; -7 no engine.
     */
    int enumerateAudioDevices(MEDIA_DEVICE_TYPE type, std::vector<AudioDeviceInfo>& out) const {
        const int count = getAudioDeviceCount(type);
        if (count < 0) return count;
        std::vector<AudioDeviceInfo> devices;
        devices.reserve(static_cast<std::size_t>(count));
        for (int i = 0; i < count; ++i) {
            AudioDeviceInfo info;
            const int rc = getAudioDevice(type, i, info);
            if (rc == -AGORAISH_ERR_INVALID_ARGUMENT) break;  // the list shrank meanwhile
            if (rc != 0) return rc;
            devices.push_back(std::move(info));
        }
        out = std::move(devices);
        return 0;
    }

    /** The capture devices (Agora's enumerateRecordingDevices). @return as enumerateAudioDevices(). */
    int enumerateRecordingDevices(std::vector<AudioDeviceInfo>& out) const {
        return enumerateAudioDevices(AUDIO_RECORDING_DEVICE, out);
    }

    /** The playback devices (Agora's enumeratePlaybackDevices). @return as enumerateAudioDevices(). */
    int enumeratePlaybackDevices(std::vector<AudioDeviceInfo>& out) const {
        return enumerateAudioDevices(AUDIO_PLAYOUT_DEVICE, out);
    }

    /** Chooses the capture device by id, an ALSA PCM name (Agora's
     *  setRecordingDevice). @return 0; -2 nullptr, empty or over 511 bytes; -7 no engine. */
    int setRecordingDevice(const char* deviceId) noexcept {
        return agoraish_engine_set_recording_device(engine_, deviceId);
    }

    /** Chooses the playback device by id (Agora's setPlaybackDevice). @return as setRecordingDevice(). */
    int setPlaybackDevice(const char* deviceId) noexcept {
        return agoraish_engine_set_playback_device(engine_, deviceId);
    }

    /** The chosen capture device id (Agora's getRecordingDevice); unchanged on failure.
     *  @return 0; -7 no engine. */
    int getRecordingDevice(std::string& deviceId) const {
        return detail::readString(
            [this](char* buf, std::size_t* len) { return agoraish_engine_get_recording_device(engine_, buf, len); },
            deviceId);
    }

    /** The chosen playback device id (Agora's getPlaybackDevice); unchanged on failure.
     *  @return 0; -7 no engine. */
    int getPlaybackDevice(std::string& deviceId) const {
        return detail::readString(
            [this](char* buf, std::size_t* len) { return agoraish_engine_get_playback_device(engine_, buf, len); },
            deviceId);
    }

    /** Captures from the recording device and reports its volume through
     *  onAudioVolumeIndication (uid 0) every `indicationInterval` ms (Agora's
     *  startRecordingDeviceTest). @return 0; -2 outside 10..60000; -7 no engine. */
    int startRecordingDeviceTest(int indicationInterval) noexcept {
        return agoraish_engine_start_recording_device_test(engine_, indicationInterval);
    }

    /** Stops the recording device test. @return 0; -7 no engine. */
    int stopRecordingDeviceTest() noexcept { return agoraish_engine_stop_recording_device_test(engine_); }

    /** Plays a 16-bit PCM WAV file (8..48 kHz, mono or stereo) in a loop on the
     *  playback device (Agora's startPlaybackDeviceTest).
     *  @return 0; -2 nullptr or a file that is not such a WAV; -7 no engine. */
    int startPlaybackDeviceTest(const char* testAudioFilePath) noexcept {
        return agoraish_engine_start_playback_device_test(engine_, testAudioFilePath);
    }

    /** Stops the playback device test. @return 0; -7 no engine. */
    int stopPlaybackDeviceTest() noexcept { return agoraish_engine_stop_playback_device_test(engine_); }

    /** Plays what the recording device captures on the playback device and
     *  reports its volume every `indicationInterval` ms (Agora's
     *  startAudioDeviceLoopbackTest). @return 0; -2 outside 10..60000; -7 no engine. */
    int startAudioDeviceLoopbackTest(int indicationInterval) noexcept {
        return agoraish_engine_start_audio_device_loopback_test(engine_, indicationInterval);
    }

    /** Stops the loopback test. @return 0; -7 no engine. */
    int stopAudioDeviceLoopbackTest() noexcept { return agoraish_engine_stop_audio_device_loopback_test(engine_); }

    // ---- Video (ABI 0.5) ----

    /** Video on (Agora's enableVideo; off by default): pictures are captured (the
     *  camera, unless an external source is set) and sent, and received video is
     *  decoded and rendered. Others get onUserEnableVideo. @return 0; -7 no engine. */
    int enableVideo() noexcept { return agoraish_engine_enable_video(engine_); }

    /** Video off (Agora's disableVideo): nothing is sent or decoded; others get
     *  onUserEnableVideo(uid, false). @return 0; -7 no engine. */
    int disableVideo() noexcept { return agoraish_engine_disable_video(engine_); }

    /**
     * Sets what the encoder aims for (Agora's setVideoEncoderConfiguration);
     * applies from the next pushed picture.
     *
     * @return 0; -2 a field out of range; -7 no engine.
     */
    int setVideoEncoderConfiguration(const VideoEncoderConfiguration& config) noexcept {
        agoraish_video_encoder_configuration c{};
        c.struct_size = sizeof(c);
        c.width = config.dimensions.width;
        c.height = config.dimensions.height;
        c.frame_rate = config.frameRate;
        c.bitrate = config.bitrate;
        c.min_bitrate = config.minBitrate;
        c.codec_type = config.codecType;
        c.orientation_mode = config.orientationMode;
        c.degradation_preference = config.degradationPreference;
        c.mirror_mode = config.mirrorMode;
        return agoraish_engine_set_video_encoder_configuration(engine_, &c);
    }

    /** Sends pictures pushed with pushExternalVideoFrame() (Agora's
     *  setExternalVideoSource). @return 0; -7 no engine. */
    int setExternalVideoSource(bool enabled) noexcept {
        return agoraish_engine_set_external_video_source(engine_, enabled ? 1 : 0);
    }

    /**
     * Pushes one picture (Agora's pushExternalVideoFrame), turned upright by
     * its rotation. With video enabled and a call up it is encoded and sent.
     * Push at the configured frame rate. Thread: any (pushes are serialized).
     *
     * @return 0; -2 an unknown format, a size or stride out of range, a
     *         rotation other than 0, 90, 180 or 270, or a plane the format
     *         needs missing; -3 no external source; -7 no engine.
     */
    int pushExternalVideoFrame(const ExternalVideoFrame& frame) noexcept {
        const agoraish_external_video_frame f = detail::makeExternalVideoFrame(frame);
        return agoraish_engine_push_external_video_frame(engine_, &f);
    }

    /**
     * Binds the render sink of a remote user, or unbinds it with a null sink
     * (Agora's setupRemoteVideo). After an unbind returns, the old sink gets
     * no further picture (unless the call comes from inside that sink). See
     * IVideoSink for how long a sink must live.
     *
     * @return 0; -2 uid 0, an unknown render or mirror mode or a bad view
     *         size; -7 no engine.
     */
    int setupRemoteVideo(const VideoCanvas& canvas) noexcept {
        const agoraish_video_canvas c = detail::makeCanvas(canvas);
        return agoraish_engine_setup_remote_video(engine_, &c);
    }

    /** Local video capture and sending on or off (Agora's enableLocalVideo; on by
     *  default); receiving goes on. Others get onUserEnableLocalVideo. @return 0; -7 no engine. */
    int enableLocalVideo(bool enabled) noexcept { return agoraish_engine_enable_local_video(engine_, enabled ? 1 : 0); }

    /** Stops or resumes sending video (Agora's muteLocalVideoStream); pushes
     *  still return 0. @return 0; -7 no engine. */
    int muteLocalVideoStream(bool mute) noexcept {
        return agoraish_engine_mute_local_video_stream(engine_, mute ? 1 : 0);
    }

    /** Stops or resumes receiving one remote user's video (Agora's
     *  muteRemoteVideoStream). @return 0; -2 uid 0; -7 no engine. */
    int muteRemoteVideoStream(uid_t uid, bool mute) noexcept {
        return agoraish_engine_mute_remote_video_stream(engine_, uid, mute ? 1 : 0);
    }

    /** Stops or resumes receiving every remote user's video, including users
     *  who join later (Agora's muteAllRemoteVideoStreams). @return 0; -7 no engine. */
    int muteAllRemoteVideoStreams(bool mute) noexcept {
        return agoraish_engine_mute_all_remote_video_streams(engine_, mute ? 1 : 0);
    }

    /** Whether users who join later start with their video muted (Agora's
     *  setDefaultMuteAllRemoteVideoStreams). @return 0; -7 no engine. */
    int setDefaultMuteAllRemoteVideoStreams(bool mute) noexcept {
        return agoraish_engine_set_default_mute_all_remote_video_streams(engine_, mute ? 1 : 0);
    }

    // ---- Local canvas, render modes, raw video (ABI 0.6) ----

    /**
     * Binds the local canvas, or unbinds it with a null sink (Agora's
     * setupLocalVideo): its sink gets the local pictures (uid 0), mirrored by
     * default, after startPreview(), or in a call while local video is on.
     * `canvas.uid` is ignored. After an unbind returns the old sink gets no
     * further picture (unless the call comes from inside that sink).
     *
     * @return 0; -2 an unknown render or mirror mode or a bad view size; -7 no engine.
     */
    int setupLocalVideo(const VideoCanvas& canvas) noexcept {
        const agoraish_video_canvas c = detail::makeCanvas(canvas);
        return agoraish_engine_setup_local_video(engine_, &c);
    }

    /** Local pictures reach the local canvas outside calls too (Agora's
     *  startPreview; needs enableVideo; survives leaving). With no external
     *  source the camera starts. @return 0; -7 no engine. */
    int startPreview() noexcept { return agoraish_engine_start_preview(engine_); }

    /** Stops the preview (Agora's stopPreview). @return 0; -7 no engine. */
    int stopPreview() noexcept { return agoraish_engine_stop_preview(engine_); }

    /** Render and mirror mode of the local canvas (Agora's setLocalRenderMode).
     *  @return 0; -2 unknown mode; -3 no local canvas bound; -7 no engine. */
    int setLocalRenderMode(RENDER_MODE_TYPE renderMode,
                           VIDEO_MIRROR_MODE_TYPE mirrorMode = VIDEO_MIRROR_MODE_AUTO) noexcept {
        return agoraish_engine_set_local_render_mode(engine_, renderMode, mirrorMode);
    }

    /** Render and mirror mode of a remote user's canvas (Agora's setRemoteRenderMode).
     *  @return 0; -2 uid 0 or unknown mode; -3 no canvas bound for uid; -7 no engine. */
    int setRemoteRenderMode(uid_t uid, RENDER_MODE_TYPE renderMode,
                            VIDEO_MIRROR_MODE_TYPE mirrorMode = VIDEO_MIRROR_MODE_AUTO) noexcept {
        return agoraish_engine_set_remote_render_mode(engine_, uid, renderMode, mirrorMode);
    }

    /**
     * Registers a raw video observer (Agora's registerVideoFrameObserver), or
     * removes it with nullptr. See IVideoFrameObserver for its lifetime.
     *
     * @param positions  VIDEO_OBSERVER_POSITION bits; 0 is POST_CAPTURER | PRE_RENDERER.
     * @return 0; -2 unknown position bits; -7 no engine.
     */
    int registerVideoFrameObserver(IVideoFrameObserver* observer, int positions) noexcept {
        if (observer == nullptr) return agoraish_engine_register_video_frame_observer(engine_, nullptr);
        const agoraish_video_frame_observer table = detail::makeVideoObserverTable(observer, positions);
        return agoraish_engine_register_video_frame_observer(engine_, &table);
    }

    /** registerVideoFrameObserver() with the positions of observer->getObservedFramePosition(). */
    int registerVideoFrameObserver(IVideoFrameObserver* observer) {
        if (observer == nullptr) return agoraish_engine_register_video_frame_observer(engine_, nullptr);
        return registerVideoFrameObserver(observer, observer->getObservedFramePosition());
    }

    // ---- Dual stream (ABI 0.6) ----

    /** Also sends a low stream (Agora's enableDualStreamMode): the picture fitted
     *  inside 320 x 180 at half the frame rate (at least 5). @return 0; -7 no engine. */
    int enableDualStreamMode(bool enabled) noexcept {
        return agoraish_engine_enable_dual_stream_mode(engine_, enabled ? 1 : 0);
    }

    /** Receives the high or low stream of `uid`, or one of its simulcast layers
     *  (VIDEO_STREAM_LAYER_1..6) (Agora's setRemoteVideoStreamType); the server
     *  switches at the next keyframe of that stream. A layer the publisher does not
     *  send gives the best stream below it that it sends, else its lowest.
     *  @return 0; -2 uid 0 or another type; -7 no engine. */
    int setRemoteVideoStreamType(uid_t uid, REMOTE_VIDEO_STREAM_TYPE streamType) noexcept {
        return agoraish_engine_set_remote_video_stream_type(engine_, uid, streamType);
    }

    /** The stream received of users not named by setRemoteVideoStreamType()
     *  (Agora's setRemoteDefaultVideoStreamType; the same types). @return 0; -2 another
     *  type; -7 no engine. */
    int setRemoteDefaultVideoStreamType(REMOTE_VIDEO_STREAM_TYPE streamType) noexcept {
        return agoraish_engine_set_remote_default_video_stream_type(engine_, streamType);
    }

    // ---- Simulcast (ABI 0.12) ----

    /**
     * Sends simulcast layers besides the high stream (Agora's setSimulcastConfig):
     * each enabled entry of `config.configs` is the picture fitted into its box at
     * its frame rate and the base bitrate for its size, on a stream of its own;
     * subscribers pick one with setRemoteVideoStreamType() (VIDEO_STREAM_LAYER_n
     * for STREAM_LAYER_n, VIDEO_STREAM_LOW for STREAM_LOW). A configuration with an
     * entry enabled replaces enableDualStreamMode() while it is set; one with none
     * enabled goes back to it. Copied.
     * @return 0; -2 more than three entries enabled, or an enabled entry's size
     *         (16..3840 x 16..2160) or frame rate (1..60) out of range; -7 no engine.
     */
    int setSimulcastConfig(const SimulcastConfig& config) noexcept {
        const agoraish_simulcast_config c = detail::makeSimulcastConfig(config);
        return agoraish_engine_set_simulcast_config(engine_, &c);
    }

    // ---- Fallback and priority (ABI 0.7) ----

    /**
     * What the engine does when the uplink cannot carry video (Agora's
     * setLocalPublishFallbackOption; default STREAM_FALLBACK_OPTION_DISABLED).
     * STREAM_FALLBACK_OPTION_AUDIO_ONLY stops sending video while the uplink's
     * estimate leaves less than 60 kbps for it for 2 s, and resumes once
     * 120 kbps has been available for 2 s (onLocalPublishFallbackToAudioOnly).
     * @return 0; -2 another option (VIDEO_STREAM_LOW applies to subscribing only); -7 no engine.
     */
    int setLocalPublishFallbackOption(STREAM_FALLBACK_OPTIONS option) noexcept {
        return agoraish_engine_set_local_publish_fallback_option(engine_, option);
    }

    /**
     * What the server may withhold when this downlink is short (Agora's
     * setRemoteSubscribeFallbackOption; default STREAM_FALLBACK_OPTION_VIDEO_STREAM_LOW):
     * the low stream of dual-stream publishers that do not fit, and with
     * AUDIO_ONLY video altogether (onRemoteSubscribeFallbackToAudioOnly). Any
     * time; kept across calls. @return 0; -2 another option; -7 no engine.
     */
    int setRemoteSubscribeFallbackOption(STREAM_FALLBACK_OPTIONS option) noexcept {
        return agoraish_engine_set_remote_subscribe_fallback_option(engine_, option);
    }

    /** Serves `uid`'s video first when this downlink is shared out (Agora's
     *  setRemoteUserPriority): PRIORITY_HIGH for one user at most (the last
     *  named), PRIORITY_NORMAL to take it back.
     *  @return 0; -2 uid 0 or another priority; -7 no engine. */
    int setRemoteUserPriority(uid_t uid, PRIORITY_TYPE userPriority) noexcept {
        return agoraish_engine_set_remote_user_priority(engine_, uid, userPriority);
    }

    // ---- Snapshots and watermarks (ABI 0.6) ----

    /**
     * Writes the next picture of `uid` (0: the local one, as captured) to
     * `filePath` (Agora's takeSnapshot): ".jpg"/".jpeg" as JPEG, ".png" as PNG.
     * onSnapshotTaken reports the result.
     *
     * @return 0; -2 nullptr or another extension; -113 not in a call; -12
     *         eight snapshots of that user already waiting; -7 no engine.
     */
    int takeSnapshot(uid_t uid, const char* filePath) noexcept {
        return agoraish_engine_take_snapshot(engine_, uid, filePath);
    }

    /**
     * Blends a PNG into the sent picture (Agora's addVideoWatermark), scaled
     * to the rectangle for the picture's orientation, alpha kept. One at a
     * time: a new one replaces the old. The file is read now.
     *
     * @return 0; -2 nullptr, a file that is not a readable PNG (up to 4096 x
     *         4096) or bad rectangles; -7 no engine.
     */
    int addVideoWatermark(const char* watermarkUrl, const WatermarkOptions& options) noexcept {
        agoraish_watermark_options o{};
        o.struct_size = sizeof(o);
        o.visible_in_preview = options.visibleInPreview ? 1 : 0;
        o.landscape_x = options.positionInLandscapeMode.x;
        o.landscape_y = options.positionInLandscapeMode.y;
        o.landscape_width = options.positionInLandscapeMode.width;
        o.landscape_height = options.positionInLandscapeMode.height;
        o.portrait_x = options.positionInPortraitMode.x;
        o.portrait_y = options.positionInPortraitMode.y;
        o.portrait_width = options.positionInPortraitMode.width;
        o.portrait_height = options.positionInPortraitMode.height;
        return agoraish_engine_add_video_watermark(engine_, watermarkUrl, &o);
    }

    /** Removes the watermark (Agora's clearVideoWatermarks). @return 0; -7 no engine. */
    int clearVideoWatermarks() noexcept { return agoraish_engine_clear_video_watermarks(engine_); }

    // ---- Cameras (ABI 0.6) ----

    /** Number of cameras (V4L2 capture devices); 0 on a machine without any.
     *  @return the count (>= 0); -7 no engine. */
    int getVideoDeviceCount() const noexcept { return agoraish_engine_get_video_device_count(engine_); }

    /**
     * One camera, by index in the current enumeration.
     *
     * @param out  Filled on success; unchanged on failure.
     * @return 0; -2 index out of range; -7 no engine.
     */
    int getVideoDevice(int index, VideoDeviceInfo& out) const {
        agoraish_video_device_info info{};
        const int rc = agoraish_engine_get_video_device(engine_, index, &info);
        if (rc != 0) return rc;
        info.id[sizeof info.id - 1] = '\0';
        info.name[sizeof info.name - 1] = '\0';
        VideoDeviceInfo device;
        device.deviceId = info.id;
        device.deviceName = info.name;
        const int count = info.format_count < 0 ? 0
                          : info.format_count > AGORAISH_MAX_VIDEO_FORMATS ? AGORAISH_MAX_VIDEO_FORMATS
                                                                           : info.format_count;
        for (int i = 0; i < count; ++i) {
            agoraish_video_format& f = info.formats[i];
            f.fourcc[sizeof f.fourcc - 1] = '\0';
            VideoFormat format;
            format.width = f.width;
            format.height = f.height;
            format.fps = f.fps;
            format.fourcc = f.fourcc;
            device.formats.push_back(std::move(format));
        }
        out = std::move(device);
        return 0;
    }

    /**
     * Every camera (Agora's enumerateVideoDevices).
     *
     * @param out  Receives the cameras (none on a machine without any); unchanged on failure.
     * @return 0; -7 no engine.
     */
    int enumerateVideoDevices(std::vector<VideoDeviceInfo>& out) const {
        const int count = getVideoDeviceCount();
        if (count < 0) return count;
        std::vector<VideoDeviceInfo> devices;
        devices.reserve(static_cast<std::size_t>(count));
        for (int i = 0; i < count; ++i) {
            VideoDeviceInfo info;
            const int rc = getVideoDevice(i, info);
            if (rc == -AGORAISH_ERR_INVALID_ARGUMENT) break;  // the list shrank meanwhile
            if (rc != 0) return rc;
            devices.push_back(std::move(info));
        }
        out = std::move(devices);
        return 0;
    }

    /** Chooses the camera by id, its /dev path (Agora's setDevice); used when
     *  capture next starts. A camera that will not open is reported through
     *  onLocalVideoStateChanged. @return 0; -2 nullptr, empty or over 511 bytes; -7 no engine. */
    int setVideoDevice(const char* deviceId) noexcept { return agoraish_engine_set_video_device(engine_, deviceId); }

    /** The chosen camera's id, else the first found (Agora's getDevice); unchanged on failure.
     *  @return 0; -3 no camera; -7 no engine. */
    int getCurrentVideoDevice(std::string& deviceId) const {
        return detail::readString(
            [this](char* buf, std::size_t* len) {
                return agoraish_engine_get_current_video_device(engine_, buf, len);
            },
            deviceId);
    }

    /** Camera capture size preference, for the next start (Agora's setCameraCapturerConfiguration).
     *  @return 0; -2 unknown preference or a size outside 16..4096; -7 no engine. */
    int setCameraCapturerConfiguration(const CameraCapturerConfiguration& config) noexcept {
        agoraish_camera_capturer_configuration c{};
        c.struct_size = sizeof(c);
        c.preference = config.preference;
        c.capture_width = config.captureWidth;
        c.capture_height = config.captureHeight;
        return agoraish_engine_set_camera_capturer_configuration(engine_, &c);
    }

    /** The next camera, round robin (Agora's switchCamera). @return 0; -4 fewer than two cameras; -7 no engine. */
    int switchCamera() noexcept { return agoraish_engine_switch_camera(engine_); }

    // ---- Echo test ----

    /**
     * Starts an echo test (Agora's startEchoTest), outside channels: the engine
     * joins a private channel of the server in which its own audio (captured
     * or pushed) comes back after intervalInSeconds. The test channel's join
     * and leave are not reported (no onJoinChannelSuccess / onLeaveChannel);
     * connection states are. Call stopEchoTest() before joining a channel (a
     * join during the test returns -17).
     *
     * @param intervalInSeconds  2..10.
     * @return 0; -2 interval outside 2..10 or no usable server URL; -5 in a
     *         channel or an echo test running; -7 no engine.
     */
    int startEchoTest(int intervalInSeconds) noexcept {
        return agoraish_engine_start_echo_test(engine_, intervalInSeconds);
    }

    /**
     * Starts an echo test from Agora's EchoTestConfiguration (startEchoTest(config)):
     * as startEchoTest(int), with the token and channel name its join presents.
     * Where the app has a certificate the server checks that join like any
     * other: `token` must be valid for `channelId` (nullptr or "": "echo") and
     * uid 0, the identity the test joins with. A refused join reports
     * onConnectionStateChanged(FAILED, INVALID_TOKEN) (or TOKEN_EXPIRED after
     * onRequestToken); nothing is echoed and the test stays started until
     * stopEchoTest(). Video echo is not supported.
     *
     * @return 0; -2 intervalInSeconds outside 2..10, enableAudio and
     *         enableVideo both false, a channelId that is not a valid channel
     *         name, strings that are not UTF-8, or no usable server URL; -4
     *         enableVideo; -5 in a channel, an echo test running, or a last-mile
     *         test or probe running; -7 no engine.
     */
    int startEchoTest(const EchoTestConfiguration& config) noexcept {
        agoraish_echo_test_configuration c{};
        c.struct_size = sizeof(c);
        c.enable_audio = config.enableAudio ? 1 : 0;
        c.enable_video = config.enableVideo ? 1 : 0;
        c.token = config.token;
        c.channel_id = config.channelId;
        c.interval_in_seconds = config.intervalInSeconds;
        return agoraish_engine_start_echo_test_with_config(engine_, &c);
    }

    /** Stops the echo test (Agora's stopEchoTest). @return 0; -5 no echo test running; -7 no engine. */
    int stopEchoTest() noexcept { return agoraish_engine_stop_echo_test(engine_); }

    // ---- The last-mile test and probe (ABI 0.7) ----

    /**
     * Probes the last mile before joining (Agora's startLastmileProbeTest): the
     * engine joins a private channel of the server (its join and leave are not
     * reported), sends probes at the expected uplink bitrate for 2 s and reads
     * the server's feedback on them, then has the server send probes at the
     * expected downlink bitrate for 2 s. onLastmileQuality comes after the
     * uplink phase, onLastmileProbeResult about 5 s after the start. A join
     * ends the probe. Where the app has a certificate the join presents
     * `token`, valid for `channelId` ("probe" when nullptr or "") and uid 0; a
     * refused join reports onConnectionStateChanged(FAILED, INVALID_TOKEN),
     * then at once onLastmileProbeResult with state UNAVAILABLE.
     *
     * @return 0; -2 no direction probed, a probed bitrate outside
     *         100000..5000000, a channelId that is not a valid channel name,
     *         strings that are not UTF-8, or no usable server URL; -5 in a
     *         channel, during an echo test or while a last-mile test or probe
     *         runs; -7 no engine.
     */
    int startLastmileProbeTest(const LastmileProbeConfig& config) noexcept {
        agoraish_lastmile_probe_config c{};
        c.struct_size = sizeof(c);
        c.probe_uplink = config.probeUplink ? 1 : 0;
        c.probe_downlink = config.probeDownlink ? 1 : 0;
        c.expected_uplink_bitrate = config.expectedUplinkBitrate;
        c.expected_downlink_bitrate = config.expectedDownlinkBitrate;
        c.token = config.token;
        c.channel_id = config.channelId;
        return agoraish_engine_start_lastmile_probe_test(engine_, &c);
    }

    /** Ends a probe early (Agora's stopLastmileProbeTest): no result is reported.
     *  @return 0; -5 no probe running; -7 no engine. */
    int stopLastmileProbeTest() noexcept { return agoraish_engine_stop_lastmile_probe_test(engine_); }

    /**
     * Reports the last mile's quality every 2 s before joining (Agora's
     * enableLastmileTest): 0.7 s of probes each way at the configured video
     * bitrate (at least 100 kbps), then onLastmileQuality, repeated until
     * disableLastmileTest() or a join.
     *
     * @return 0; -2 no usable server URL; -5 in a channel, during an echo test
     *         or while a last-mile test or probe runs; -7 no engine.
     */
    int enableLastmileTest() noexcept { return agoraish_engine_enable_lastmile_test(engine_); }

    /** Stops the last-mile test (Agora's disableLastmileTest). @return 0; -5 not running; -7 no engine. */
    int disableLastmileTest() noexcept { return agoraish_engine_disable_lastmile_test(engine_); }

    // ---- Data streams (ABI 0.8) ----

    /**
     * Creates a data stream (Agora's createDataStream(streamId, reliable,
     * ordered)). A reliable stream delivers every message exactly once (in
     * the order sent when `ordered`) or reports onStreamMessageError when a
     * loss is not repaired within 5 s; an unreliable one delivers what
     * arrives and reports each gap. Streams end when the call ends; at most
     * AGORAISH_MAX_DATA_STREAMS (5) exist.
     *
     * @param streamId  Receives the stream's id (1..255).
     * @return 0; -2 nullptr; -116 five streams exist; -7 no engine.
     */
    int createDataStream(int* streamId, bool reliable, bool ordered) noexcept {
        return agoraish_engine_create_data_stream(engine_, streamId, reliable ? 1 : 0, ordered ? 1 : 0);
    }

    /** Creates an unreliable data stream from a DataStreamConfig (Agora's
     *  createDataStream(streamId, config)). @return as the other overload. */
    int createDataStream(int* streamId, const DataStreamConfig& config) noexcept {
        agoraish_data_stream_config c{};
        c.struct_size = sizeof(c);
        c.sync_with_audio = config.syncWithAudio ? 1 : 0;
        c.ordered = config.ordered ? 1 : 0;
        return agoraish_engine_create_data_stream_with_config(engine_, streamId, &c);
    }

    /**
     * Sends a message on a data stream (Agora's sendStreamMessage); copied.
     *
     * @return 0; -2 nullptr, length 0 or an unknown stream; -114 more than
     *         1024 bytes; -115 the last second already holds 30 messages or
     *         this one would take it past 6144 bytes; -113 not in a call; -5
     *         an audience member of a live broadcast; -7 no engine.
     */
    int sendStreamMessage(int streamId, const char* data, std::size_t length) noexcept {
        return agoraish_engine_send_stream_message(engine_, streamId, data, length);
    }

    /** Sends audio metadata, reliably, to every other user of the channel (Agora's
     *  sendAudioMetadata): onAudioMetadataReceived there. Copied.
     *  @return 0; -2 nullptr, empty or above 1024 bytes; -113 not in a call; -5
     *  an audience member of a live broadcast; -7 no engine. */
    int sendAudioMetadata(const char* metadata, std::size_t length) noexcept {
        return agoraish_engine_send_audio_metadata(engine_, metadata, length);
    }

    /**
     * Registers the video metadata observer (Agora's
     * registerMediaMetadataObserver), or removes it with nullptr. See
     * IMetadataObserver for its lifetime.
     *
     * @return 0; -2 a type other than VIDEO_METADATA or a maximum size outside
     *         1..1024; -7 no engine.
     */
    int registerMediaMetadataObserver(IMetadataObserver* observer,
                                      IMetadataObserver::METADATA_TYPE type = IMetadataObserver::VIDEO_METADATA) noexcept {
        if (observer == nullptr) return agoraish_engine_register_media_metadata_observer(engine_, nullptr, type);
        const agoraish_metadata_observer table = detail::makeMetadataObserverTable(observer);
        return agoraish_engine_register_media_metadata_observer(engine_, &table, type);
    }

    // ---- Encryption (ABI 0.8) ----

    /**
     * Turns the built-in end-to-end encryption on or off (Agora's
     * enableEncryption); `config` is not read when off. Call it before
     * joining; every user of a channel must use the same settings.
     *
     * @return 0; -2 an unknown mode, no, empty or too long a key, or a GCM2
     *         mode with an all-zero salt; -4 a mode this library's OpenSSL
     *         lacks; -7 no engine.
     */
    int enableEncryption(bool enabled, const EncryptionConfig& config) noexcept {
        agoraish_encryption_config c{};
        c.struct_size = sizeof(c);
        c.encryption_mode = config.encryptionMode;
        c.encryption_key = config.encryptionKey;
        std::memcpy(c.encryption_kdf_salt, config.encryptionKdfSalt, sizeof(c.encryption_kdf_salt));
        return agoraish_engine_enable_encryption(engine_, enabled ? 1 : 0, &c);
    }

    /** Deprecated (Agora's setEncryptionSecret): a non-empty secret turns the encryption on
     *  with the mode of setEncryptionMode(); nullptr or "" turns it off. Cleared when leaving.
     *  @return 0; -2 above 128 bytes; -7 no engine. */
    int setEncryptionSecret(const char* secret) noexcept { return agoraish_engine_set_encryption_secret(engine_, secret); }

    /** Deprecated (Agora's setEncryptionMode): "aes-128-xts" (also nullptr or ""),
     *  "aes-128-ecb", "aes-256-xts", "sm4-128-ecb", "aes-128-gcm" or "aes-256-gcm".
     *  @return 0; -2 another name; -4 a mode this OpenSSL lacks; -7 no engine. */
    int setEncryptionMode(const char* encryptionMode) noexcept {
        return agoraish_engine_set_encryption_mode(engine_, encryptionMode);
    }

    /** Registers a packet observer (Agora's registerPacketObserver), or removes it with
     *  nullptr; packets made after the call returns see it. See IPacketObserver for its
     *  lifetime. @return 0; -7 no engine. */
    int registerPacketObserver(IPacketObserver* observer) noexcept {
        if (observer == nullptr) return agoraish_engine_register_packet_observer(engine_, nullptr);
        const agoraish_packet_observer table = detail::makePacketObserverTable(observer);
        return agoraish_engine_register_packet_observer(engine_, &table);
    }

    /**
     * Renews the token (Agora's renewToken).
     *
     * @return 0; -2 nullptr or empty; -113 not in a channel; -7 no engine.
     */
    int renewToken(const char* token) noexcept { return agoraish_engine_renew_token(engine_, token); }

    /**
     * Switches to another channel as audience in live broadcasting (Agora's
     * switchChannel): onLeaveChannel, then onJoinChannelSuccess.
     *
     * @return 0; -2 nullptr channelId; -102 bad channel name; -5 not audience
     *         in live broadcasting; -113 not connected; -7 no engine.
     */
    int switchChannel(const char* token, const char* channelId) noexcept {
        return agoraish_engine_switch_channel(engine_, token, channelId);
    }

    /**
     * Preloads a channel (Agora's preloadChannel), for an audience that hops
     * between channels (QuickSwitchChannel): the engine opens a signaling
     * connection for channelId and uid now, on which the server checks the
     * token as for a join. The next join of that channel with that uid
     * (joinChannel after leaveChannel, or switchChannel) goes on it and asks
     * for fast start, so the channel's audio is heard within a few tens of
     * milliseconds. The newest 20 preloads are kept; the same channel and uid
     * again replaces the token. A token the server refuses is logged and the
     * join reports the error.
     *
     * @param token  nullptr or "" for none; at most 2048 bytes. Copied.
     * @return 0; -2 nullptr channelId or a token over 2048 bytes; -102 bad
     *         channel name; -5 a ws:// server URL to a host other than
     *         loopback; -7 no engine.
     */
    int preloadChannel(const char* token, const char* channelId, uid_t uid) noexcept {
        return agoraish_engine_preload_channel(engine_, token, channelId, uid);
    }

    /**
     * Gives every preloaded channel a new token (Agora's
     * updatePreloadChannelToken); the server checks it again for each.
     *
     * @param token  nullptr or "" for none; at most 2048 bytes. Copied.
     * @return 0; -2 a token over 2048 bytes; -8 nothing preloaded; -7 no engine.
     */
    int updatePreloadChannelToken(const char* token) noexcept {
        return agoraish_engine_update_preload_channel_token(engine_, token);
    }

    /**
     * The id of the current or last call (Agora's getCallId).
     *
     * @param callId  Receives the id; unchanged on failure.
     * @return 0; -113 no call yet; -7 no engine.
     */
    int getCallId(std::string& callId) const {
        return detail::readString(
            [this](char* buf, std::size_t* len) { return agoraish_engine_get_call_id(engine_, buf, len); }, callId);
    }

    /**
     * The connection state (Agora's getConnectionState).
     *
     * @return A CONNECTION_STATE_TYPE (positive); with no engine, -7 as the
     *         enum's value (its underlying type is int).
     */
    CONNECTION_STATE_TYPE getConnectionState() const noexcept {
        return static_cast<CONNECTION_STATE_TYPE>(agoraish_engine_get_connection_state(engine_));
    }

    // ---- Connections (ABI 0.11) ----

    /**
     * Joins a channel with media options (Agora 4.x joinChannel(token,
     * channelId, uid, options)): applies `options`, then joins as
     * joinChannel(token, channelId, nullptr, uid). The engine's own
     * connection is then RtcConnection(channelId, uid).
     *
     * @param token    The token, or nullptr/"" (then options.token, if set).
     * @param options  Copied.
     * @return 0; the errors of joinChannel(); -2 a field out of range, an
     *         unknown custom audio track, an unknown video track or one of the
     *         other kind (raw or encoded), or two video tracks at once; -17
     *         already in a channel; -7 no engine.
     */
    int joinChannel(const char* token, const char* channelId, uid_t uid, const ChannelMediaOptions& options) noexcept {
        const agoraish_channel_media_options o = detail::makeMediaOptions(options);
        return agoraish_engine_join_channel_with_options(engine_, token, channelId, uid, &o);
    }

    /**
     * Changes what the engine's own connection publishes and receives
     * (Agora's updateChannelMediaOptions), in a channel or before joining.
     * Everything is checked before anything changes.
     *
     * @return 0; -2 a field out of range or a custom track as for joinChannel();
     *         -5 channelProfile in a channel; -113 a token outside a channel;
     *         -7 no engine.
     */
    int updateChannelMediaOptions(const ChannelMediaOptions& options) noexcept {
        const agoraish_channel_media_options o = detail::makeMediaOptions(options);
        return agoraish_engine_update_channel_media_options(engine_, &o);
    }

    /**
     * Joins one more channel (Agora's joinChannelEx): the engine becomes a
     * member of `connection.channelId` as `connection.localUid`, besides its
     * own channel and its other connections. The connection's events go to
     * `eventHandler` on the engine's event thread (onConnectionStateChanged
     * (CONNECTING), then onJoinChannelSuccess and onUserJoined for each user
     * already there); the engine's own handler does not see them. Call
     * leaveChannelEx() or release the engine to end it.
     *
     * @param token         The token, or nullptr/"" (then options.token, if set). Copied.
     * @param connection    The channel and local uid (0: the server picks one). Copied.
     * @param options       Copied; a default ChannelMediaOptions keeps every default.
     *                      publishCameraTrack true is -2 (the camera is the own connection's).
     * @param eventHandler  The connection's events, or nullptr for none. Not owned:
     *                      see IRtcEngineEventHandlerEx for how long it must live.
     * @return 0; -2 a field out of range or a custom track as for joinChannel();
     *         -102 bad channel name; -17 the engine already has this connection
     *         (or is itself in the channel with this uid); -5 MAX_CONNECTIONS
     *         connections exist; -7 no engine.
     */
    int joinChannelEx(const char* token, const RtcConnection& connection, const ChannelMediaOptions& options,
                      IRtcEngineEventHandlerEx* eventHandler) noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        const agoraish_channel_media_options o = detail::makeMediaOptions(options);
        const agoraish_event_handler_ex table = detail::makeEventTableEx();
        return agoraish_engine_join_channel_ex(engine_, token, &c, &o, eventHandler != nullptr ? &table : nullptr,
                                               eventHandler);
    }

    /**
     * Leaves a connection's channel (Agora's leaveChannelEx): onLeaveChannel,
     * then onConnectionStateChanged(DISCONNECTED, LEAVE_CHANNEL) reach its
     * handler, and the connection ends. Naming the engine's own channel and
     * uid is leaveChannel(). Other connections are not disturbed. May be
     * called from inside a callback.
     *
     * @return 0; -18 no such connection; -7 no engine.
     */
    int leaveChannelEx(const RtcConnection& connection) noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_leave_channel_ex(engine_, &c);
    }

    /**
     * Changes what a connection publishes and receives (Agora's
     * updateChannelMediaOptionsEx).
     *
     * @return As updateChannelMediaOptions(); -2 also for a connection the engine does not have.
     */
    int updateChannelMediaOptionsEx(const ChannelMediaOptions& options, const RtcConnection& connection) noexcept {
        const agoraish_channel_media_options o = detail::makeMediaOptions(options);
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_update_channel_media_options_ex(engine_, &o, &c);
    }

    // The ...Ex twins below do what the method of the same name without Ex
    // does, for `connection`: one joined with joinChannelEx(), or the engine's
    // own connection when it names the engine's channel and uid. They return
    // what that method returns, and -2 for a connection the engine does not have.

    /** The state of a connection (Agora's getConnectionStateEx); -2 (as the enum's value) for an
     *  unknown connection, -7 with no engine. */
    CONNECTION_STATE_TYPE getConnectionStateEx(const RtcConnection& connection) const noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return static_cast<CONNECTION_STATE_TYPE>(agoraish_engine_get_connection_state_ex(engine_, &c));
    }

    /** The id of a connection's current or last call (Agora's getCallIdEx); unchanged on failure.
     *  @return 0; -113 no call yet; -2 unknown connection; -7 no engine. */
    int getCallIdEx(std::string& callId, const RtcConnection& connection) const {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return detail::readString(
            [this, &c](char* buf, std::size_t* len) { return agoraish_engine_get_call_id_ex(engine_, buf, len, &c); },
            callId);
    }

    /** Looks up a user account by uid among the users a connection has learned of (Agora's
     *  getUserInfoByUidEx). @return as getUserInfoByUid(); -2 also for an unknown connection. */
    int getUserInfoByUidEx(uid_t uid, UserInfo* userInfo, const RtcConnection& connection) const noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        if (userInfo == nullptr) return agoraish_engine_get_user_info_by_uid_ex(engine_, uid, nullptr, &c);
        agoraish_user_info info{};
        const int rc = agoraish_engine_get_user_info_by_uid_ex(engine_, uid, &info, &c);
        if (rc == 0) *userInfo = UserInfo(info);
        return rc;
    }

    /** Looks up a user by account in a connection (Agora's getUserInfoByUserAccountEx).
     *  @return as getUserInfoByUserAccount(); -2 also for an unknown connection. */
    int getUserInfoByUserAccountEx(const char* userAccount, UserInfo* userInfo,
                                   const RtcConnection& connection) const noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        if (userInfo == nullptr) {
            return agoraish_engine_get_user_info_by_user_account_ex(engine_, userAccount, nullptr, &c);
        }
        agoraish_user_info info{};
        const int rc = agoraish_engine_get_user_info_by_user_account_ex(engine_, userAccount, &info, &c);
        if (rc == 0) *userInfo = UserInfo(info);
        return rc;
    }

    /** Stops or resumes sending a connection's audio (Agora's muteLocalAudioStreamEx).
     *  @return 0; -2 unknown connection; -7 no engine. */
    int muteLocalAudioStreamEx(bool mute, const RtcConnection& connection) noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_mute_local_audio_stream_ex(engine_, mute ? 1 : 0, &c);
    }

    /** Stops or resumes receiving one remote user's audio in a connection (Agora's
     *  muteRemoteAudioStreamEx). @return 0; -2 uid 0 or unknown connection; -7 no engine. */
    int muteRemoteAudioStreamEx(uid_t uid, bool mute, const RtcConnection& connection) noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_mute_remote_audio_stream_ex(engine_, uid, mute ? 1 : 0, &c);
    }

    /** Stops or resumes receiving every remote user's audio in a connection (Agora's
     *  muteAllRemoteAudioStreamsEx). @return 0; -2 unknown connection; -7 no engine. */
    int muteAllRemoteAudioStreamsEx(bool mute, const RtcConnection& connection) noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_mute_all_remote_audio_streams_ex(engine_, mute ? 1 : 0, &c);
    }

    /** Volume of one remote user of a connection (Agora's adjustUserPlaybackSignalVolumeEx):
     *  0..100. @return 0; -2 uid 0, out of range or unknown connection; -7 no engine. */
    int adjustUserPlaybackSignalVolumeEx(uid_t uid, int volume, const RtcConnection& connection) noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_adjust_user_playback_signal_volume_ex(engine_, uid, volume, &c);
    }

    /** Stops or resumes receiving one remote user's video in a connection (Agora's
     *  muteRemoteVideoStreamEx). @return 0; -2 uid 0 or unknown connection; -7 no engine. */
    int muteRemoteVideoStreamEx(uid_t uid, bool mute, const RtcConnection& connection) noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_mute_remote_video_stream_ex(engine_, uid, mute ? 1 : 0, &c);
    }

    /** Stops or resumes receiving every remote user's video in a connection (Agora's
     *  muteAllRemoteVideoStreamsEx). @return 0; -2 unknown connection; -7 no engine. */
    int muteAllRemoteVideoStreamsEx(bool mute, const RtcConnection& connection) noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_mute_all_remote_video_streams_ex(engine_, mute ? 1 : 0, &c);
    }

    /** Receives the high or low stream of `uid`, or one of its simulcast layers, in a connection
     *  (Agora's setRemoteVideoStreamTypeEx).
     *  @return 0; -2 uid 0, another type or unknown connection; -7 no engine. */
    int setRemoteVideoStreamTypeEx(uid_t uid, REMOTE_VIDEO_STREAM_TYPE streamType,
                                   const RtcConnection& connection) noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_set_remote_video_stream_type_ex(engine_, uid, streamType, &c);
    }

    /** What a connection's own encoder aims for (Agora's setVideoEncoderConfigurationEx), for
     *  the custom video track it publishes. @return as setVideoEncoderConfiguration(); -2 also
     *  for an unknown connection. */
    int setVideoEncoderConfigurationEx(const VideoEncoderConfiguration& config,
                                       const RtcConnection& connection) noexcept {
        agoraish_video_encoder_configuration v{};
        v.struct_size = sizeof(v);
        v.width = config.dimensions.width;
        v.height = config.dimensions.height;
        v.frame_rate = config.frameRate;
        v.bitrate = config.bitrate;
        v.min_bitrate = config.minBitrate;
        v.codec_type = config.codecType;
        v.orientation_mode = config.orientationMode;
        v.degradation_preference = config.degradationPreference;
        v.mirror_mode = config.mirrorMode;
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_set_video_encoder_configuration_ex(engine_, &v, &c);
    }

    /** Also sends a connection's low stream (Agora's enableDualStreamModeEx).
     *  @return 0; -2 unknown connection; -7 no engine. */
    int enableDualStreamModeEx(bool enabled, const RtcConnection& connection) noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_enable_dual_stream_mode_ex(engine_, enabled ? 1 : 0, &c);
    }

    /** Sends a connection's own simulcast layers (Agora's setSimulcastConfigEx, ABI 0.12),
     *  as enableDualStreamModeEx() sets its low stream.
     *  @return as setSimulcastConfig(); -2 also for an unknown connection. */
    int setSimulcastConfigEx(const SimulcastConfig& config, const RtcConnection& connection) noexcept {
        const agoraish_simulcast_config v = detail::makeSimulcastConfig(config);
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_set_simulcast_config_ex(engine_, &v, &c);
    }

    /** Stops or resumes sending a connection's video (Agora's muteLocalVideoStreamEx).
     *  @return 0; -2 unknown connection; -7 no engine. */
    int muteLocalVideoStreamEx(bool mute, const RtcConnection& connection) noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_mute_local_video_stream_ex(engine_, mute ? 1 : 0, &c);
    }

    /** The stream a connection receives of users not named by setRemoteVideoStreamTypeEx()
     *  (Agora's setRemoteDefaultVideoStreamTypeEx). @return 0; -2 another type or unknown
     *  connection; -7 no engine. */
    int setRemoteDefaultVideoStreamTypeEx(REMOTE_VIDEO_STREAM_TYPE streamType, const RtcConnection& connection) noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_set_remote_default_video_stream_type_ex(engine_, streamType, &c);
    }

    /** Binds (or with a null sink unbinds) the render sink of a remote user of a connection
     *  (Agora's setupRemoteVideoEx). The sink's onFrame runs on the connection's own video
     *  thread; see IVideoSink for how long it must live.
     *  @return as setupRemoteVideo(); -2 also for an unknown connection. */
    int setupRemoteVideoEx(const VideoCanvas& canvas, const RtcConnection& connection) noexcept {
        const agoraish_video_canvas v = detail::makeCanvas(canvas);
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_setup_remote_video_ex(engine_, &v, &c);
    }

    /** Writes the next picture of `uid` in a connection to `filePath` (Agora's takeSnapshotEx):
     *  onSnapshotTaken reaches the connection's handler.
     *  @return as takeSnapshot(); -2 also for an unknown connection. */
    int takeSnapshotEx(const RtcConnection& connection, uid_t uid, const char* filePath) noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_take_snapshot_ex(engine_, uid, filePath, &c);
    }

    /** Creates an unreliable data stream of a connection from a DataStreamConfig (Agora's
     *  createDataStreamEx(streamId, config, connection)); each connection has its own streams.
     *  @return as createDataStream(); -2 also for an unknown connection. */
    int createDataStreamEx(int* streamId, const DataStreamConfig& config, const RtcConnection& connection) noexcept {
        agoraish_data_stream_config d{};
        d.struct_size = sizeof(d);
        d.sync_with_audio = config.syncWithAudio ? 1 : 0;
        d.ordered = config.ordered ? 1 : 0;
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_create_data_stream_ex(engine_, streamId, &d, &c);
    }

    /** Sends a message on a connection's data stream (Agora's sendStreamMessageEx); copied.
     *  @return as sendStreamMessage(); -2 also for an unknown connection. */
    int sendStreamMessageEx(int streamId, const char* data, std::size_t length,
                            const RtcConnection& connection) noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_send_stream_message_ex(engine_, streamId, data, length, &c);
    }

    /** Sends audio metadata to the other users of a connection's channel (Agora's
     *  sendAudioMetadataEx); copied. @return as sendAudioMetadata(); -2 also for an unknown connection. */
    int sendAudioMetadataEx(const RtcConnection& connection, const char* metadata, std::size_t length) noexcept {
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_send_audio_metadata_ex(engine_, metadata, length, &c);
    }

    /** Turns a connection's end-to-end encryption on or off (Agora's enableEncryptionEx): each
     *  connection has its own key and mode. @return as enableEncryption(); -2 also for an unknown connection. */
    int enableEncryptionEx(const RtcConnection& connection, bool enabled, const EncryptionConfig& config) noexcept {
        agoraish_encryption_config e{};
        e.struct_size = sizeof(e);
        e.encryption_mode = config.encryptionMode;
        e.encryption_key = config.encryptionKey;
        std::memcpy(e.encryption_kdf_salt, config.encryptionKdfSalt, sizeof(e.encryption_kdf_salt));
        const agoraish_rtc_connection c = detail::makeConnection(connection);
        return agoraish_engine_enable_encryption_ex(engine_, enabled ? 1 : 0, &e, &c);
    }

    // ---- Custom audio tracks (ABI 0.11) ----

    /**
     * Creates a custom audio track (Agora's createCustomAudioTrack, with the
     * id as an out parameter): PCM the host pushes with
     * pushExternalAudioFrame(trackId, ...) and that any connection publishes
     * by choosing it in its ChannelMediaOptions (publishCustomAudioTrack and
     * publishCustomAudioTrackId). Each connection publishing it sends it.
     *
     * @param trackId  Receives the id (1 and up).
     * @return 0; -2 nullptr trackId or an unknown type; -5 MAX_CUSTOM_AUDIO_TRACKS
     *         tracks exist; -7 no engine.
     */
    int createCustomAudioTrack(AUDIO_TRACK_TYPE trackType, track_id_t* trackId) noexcept {
        return agoraish_engine_create_custom_audio_track(engine_, trackType, trackId);
    }

    /** Destroys a custom audio track (Agora's destroyCustomAudioTrack): connections that
     *  published it publish no audio until their options choose the microphone or another
     *  track. @return 0; -2 unknown track; -7 no engine. */
    int destroyCustomAudioTrack(track_id_t trackId) noexcept {
        return agoraish_engine_destroy_custom_audio_track(engine_, trackId);
    }

    /** The volume of what is sent of a custom audio track (Agora's
     *  adjustCustomAudioPublishVolume): 0..100 (100: as pushed), for later pushes.
     *  @return 0; -2 unknown track or out of range; -7 no engine. */
    int adjustCustomAudioPublishVolume(track_id_t trackId, int volume) noexcept {
        return agoraish_engine_adjust_custom_audio_publish_volume(engine_, trackId, volume);
    }

    /**
     * Pushes interleaved 16-bit PCM into a custom audio track (Agora's
     * pushAudioFrame(frame, trackId)). Every connection that publishes the
     * track queues it and sends it in real time, so push in real time (for
     * example 10 ms every 10 ms); with no publisher the audio is dropped.
     * Thread: any (pushes from several threads are serialized per connection).
     *
     * @param samples            Read during the call only; nullptr only with 0 samples.
     * @param samplesPerChannel  0..sampleRate (one second at most per call).
     * @param sampleRate         8000, 16000, 32000, 44100 or 48000.
     * @param channels           1 or 2.
     * @return 0; -2 unknown track, nullptr samples or a value out of range;
     *         -5 inside an audio observer callback; -7 no engine.
     */
    int pushExternalAudioFrame(track_id_t trackId, const int16_t* samples, int samplesPerChannel, int sampleRate,
                               int channels) noexcept {
        return agoraish_engine_push_external_audio_frame_by_id(engine_, trackId, samples, samplesPerChannel,
                                                               sampleRate, channels);
    }

    /** pushExternalAudioFrame(trackId, ...) from an AudioFrame the host filled (Agora's
     *  pushAudioFrame(frame, trackId)): PCM16 only (`type` 0, `bytesPerSample` 2).
     *  @return as pushExternalAudioFrame(trackId, ...); -2 also for another sample type. */
    int pushAudioFrame(const AudioFrame& frame, track_id_t trackId) noexcept {
        if (frame.type != 0 || frame.bytesPerSample != 2) return -AGORAISH_ERR_INVALID_ARGUMENT;
        return pushExternalAudioFrame(trackId, static_cast<const int16_t*>(frame.buffer), frame.samplesPerChannel,
                                      frame.samplesPerSec, frame.channels);
    }

    // ---- Custom video tracks and encoded video (ABI 0.11) ----

    /**
     * Creates a custom video track (Agora's createCustomVideoTrack, with the
     * id as an out parameter): pictures the host pushes with
     * pushVideoFrame(frame, trackId) and that connections publish by choosing
     * it in their ChannelMediaOptions (publishCustomVideoTrack with
     * customVideoTrackId). Each publishing connection converts, fits and
     * encodes the pictures as an external video source does, with its own
     * encoder configuration (setVideoEncoderConfigurationEx()), congestion
     * control and dual stream.
     *
     * @param trackId  Receives the id (1 and up).
     * @return 0; -2 nullptr trackId; -5 MAX_CUSTOM_VIDEO_TRACKS tracks (raw and
     *         encoded together) exist; -7 no engine.
     */
    int createCustomVideoTrack(track_id_t* trackId) noexcept {
        return agoraish_engine_create_custom_video_track(engine_, trackId);
    }

    /**
     * Creates a custom encoded video track (Agora's
     * createCustomEncodedVideoTrack, with the id as an out parameter): VP8 or
     * VP9 frames the host encodes and pushes with pushEncodedVideoImage(),
     * sent unchanged (packetized per RFC 7741 / RFC 9628) by every connection
     * that publishes it (publishEncodedVideoTrack with customVideoTrackId).
     * Receivers' keyframe requests do not reach the host: send a keyframe
     * every few seconds. Destroy it with destroyCustomVideoTrack().
     *
     * @param trackId  Receives the id (1 and up).
     * @return 0; -2 nullptr trackId; -5 MAX_CUSTOM_VIDEO_TRACKS tracks exist; -7 no engine.
     */
    int createCustomEncodedVideoTrack(track_id_t* trackId) noexcept {
        return agoraish_engine_create_custom_encoded_video_track(engine_, trackId);
    }

    /** Destroys a custom or custom encoded video track (Agora's destroyCustomVideoTrack):
     *  connections that published it return to the video they had before.
     *  @return 0; -2 unknown track; -7 no engine. */
    int destroyCustomVideoTrack(track_id_t trackId) noexcept {
        return agoraish_engine_destroy_custom_video_track(engine_, trackId);
    }

    /** destroyCustomVideoTrack() under Agora's name for encoded tracks
     *  (destroyCustomEncodedVideoTrack): either destroys either kind. */
    int destroyCustomEncodedVideoTrack(track_id_t trackId) noexcept { return destroyCustomVideoTrack(trackId); }

    /**
     * Pushes one picture into a custom video track (Agora's
     * pushVideoFrame(frame, videoTrackId)), for every connection publishing
     * it, turned upright by its rotation; with no publisher it is dropped.
     * Push at the frame rate the connections' encoders are configured for.
     * Thread: any (pushes are serialized per connection).
     *
     * @return 0; -2 an unknown or encoded track, or what pushExternalVideoFrame()
     *         refuses in `frame` (format, size, stride, rotation, a missing
     *         plane); -7 no engine.
     */
    int pushVideoFrame(const ExternalVideoFrame& frame, track_id_t videoTrackId) noexcept {
        const agoraish_external_video_frame f = detail::makeExternalVideoFrame(frame);
        return agoraish_engine_push_external_video_frame_by_id(engine_, &f, videoTrackId);
    }

    /**
     * Pushes one encoded frame into a custom encoded video track (Agora's
     * pushEncodedVideoImage): it leaves at once, unchanged, from every
     * connection that publishes the track and is in a call. Start with a
     * keyframe (`frameType` KEY_FRAME); `uid` of the info is not read.
     * Thread: any.
     *
     * @param imageBuffer  The frame, 1..MAX_ENCODED_VIDEO_FRAME_BYTES bytes; read during the call only.
     * @param videoEncodedFrameInfo  Codec (VP8 or VP9), frame type, size, rotation, capture time.
     * @return The number of connections that sent it (0 outside a call or with
     *         no publisher); -2 an unknown or raw track, nullptr or empty data, a
     *         codec other than VP8 and VP9, another frame type, a size outside
     *         0..16384 or another rotation; -7 no engine.
     */
    int pushEncodedVideoImage(const std::uint8_t* imageBuffer, std::size_t length,
                              const EncodedVideoFrameInfo& videoEncodedFrameInfo, track_id_t videoTrackId) noexcept {
        agoraish_encoded_video_frame_info i{};
        i.struct_size = sizeof(i);
        i.codec_type = videoEncodedFrameInfo.codecType;
        i.width = videoEncodedFrameInfo.width;
        i.height = videoEncodedFrameInfo.height;
        i.frame_type = videoEncodedFrameInfo.frameType;
        i.rotation = videoEncodedFrameInfo.rotation;
        i.capture_time_ms = videoEncodedFrameInfo.captureTimeMs;
        i.uid = videoEncodedFrameInfo.uid;
        return agoraish_engine_push_external_encoded_video_frame(engine_, imageBuffer, length, &i, videoTrackId);
    }

    /**
     * Registers the encoded frame observer (Agora's
     * registerVideoEncodedFrameObserver), or removes it with nullptr: it sees
     * each remote video frame of every connection before decoding. After a
     * removal returns, no callback runs (unless the call comes from inside
     * one). See IVideoEncodedFrameObserver for its lifetime and threads.
     *
     * @return 0; -7 no engine.
     */
    int registerVideoEncodedFrameObserver(IVideoEncodedFrameObserver* observer) noexcept {
        if (observer == nullptr) return agoraish_engine_register_video_encoded_frame_observer(engine_, nullptr);
        agoraish_video_encoded_frame_observer table{};
        table.struct_size = sizeof(table);
        table.user_data = observer;
        table.on_encoded_video_frame_received = &detail::encodedFrameReceived;
        return agoraish_engine_register_video_encoded_frame_observer(engine_, &table);
    }

    // ---- Audio mixing and audio effects (ABI 0.13) ----

    /**
     * Mixes a music file or URL into the engine's audio (Agora's
     * startAudioMixing): into what the engine's own connection publishes (the
     * microphone or its custom audio track) and into local playout. A running
     * mixing is replaced. onAudioMixingStateChanged(PLAYING, OK) follows once
     * the file opened, (FAILED, CAN_NOT_OPEN) when it cannot be.
     *
     * @param filePath  A path or URL, as for MediaPlayer::open(). Copied.
     * @param loopback  true: only the local user hears the music (not published).
     * @param cycle     Plays: 1 once, n times, -1 until stopped.
     * @param startPos  Ms to start at.
     * @return 0; -2 nullptr or empty path, cycle 0 or below -1, negative
     *         startPos; -12 within 100 ms of the previous start (also reported
     *         as FAILED, TOO_FREQUENT_CALL); -7 no engine.
     */
    int startAudioMixing(const char* filePath, bool loopback, int cycle, int startPos = 0) noexcept {
        return agoraish_engine_start_audio_mixing(engine_, filePath, loopback ? 1 : 0, cycle, startPos);
    }

    /** Stops the music (Agora's stopAudioMixing): STOPPED, STOPPED_BY_USER.
     *  @return 0; -8 none running (never started, or it ended or failed on its own); -7 no engine. */
    int stopAudioMixing() noexcept { return agoraish_engine_stop_audio_mixing(engine_); }

    /** Pauses the music (Agora's pauseAudioMixing): PAUSED, PAUSED_BY_USER.
     *  @return 0; -8 not playing; -7 no engine. */
    int pauseAudioMixing() noexcept { return agoraish_engine_pause_audio_mixing(engine_); }

    /** Resumes the music (Agora's resumeAudioMixing): PLAYING, RESUMED_BY_USER.
     *  @return 0; -8 not paused; -7 no engine. */
    int resumeAudioMixing() noexcept { return agoraish_engine_resume_audio_mixing(engine_); }

    /** Both the local and the published volume of the music (Agora's
     *  adjustAudioMixingVolume), 0..100. @return 0; -2 out of range; -7 no engine. */
    int adjustAudioMixingVolume(int volume) noexcept {
        return agoraish_engine_adjust_audio_mixing_volume(engine_, volume);
    }

    /** The music's local volume (Agora's adjustAudioMixingPlayoutVolume), 0..100.
     *  @return 0; -2 out of range; -7 no engine. */
    int adjustAudioMixingPlayoutVolume(int volume) noexcept {
        return agoraish_engine_adjust_audio_mixing_playout_volume(engine_, volume);
    }

    /** The music's published volume (Agora's adjustAudioMixingPublishVolume), 0..100.
     *  @return 0; -2 out of range; -7 no engine. */
    int adjustAudioMixingPublishVolume(int volume) noexcept {
        return agoraish_engine_adjust_audio_mixing_publish_volume(engine_, volume);
    }

    /** The music's local volume (Agora's getAudioMixingPlayoutVolume).
     *  @return The volume (0..100); -7 no engine. */
    int getAudioMixingPlayoutVolume() const noexcept { return agoraish_engine_get_audio_mixing_playout_volume(engine_); }

    /** The music's published volume (Agora's getAudioMixingPublishVolume).
     *  @return The volume (0..100); -7 no engine. */
    int getAudioMixingPublishVolume() const noexcept { return agoraish_engine_get_audio_mixing_publish_volume(engine_); }

    /** The music's duration (Agora's getAudioMixingDuration).
     *  @return Ms (>= 0); -8 nothing opened; -7 no engine. */
    int getAudioMixingDuration() const noexcept { return agoraish_engine_get_audio_mixing_duration(engine_); }

    /** The music's position (Agora's getAudioMixingCurrentPosition).
     *  @return Ms (>= 0); -8 nothing opened; -7 no engine. */
    int getAudioMixingCurrentPosition() const noexcept {
        return agoraish_engine_get_audio_mixing_current_position(engine_);
    }

    /** Moves the music to `pos` ms (Agora's setAudioMixingPosition).
     *  @return 0; -2 negative; -8 nothing opened; -7 no engine. */
    int setAudioMixingPosition(int pos) noexcept { return agoraish_engine_set_audio_mixing_position(engine_, pos); }

    /** The music's pitch in semitones (Agora's setAudioMixingPitch), -12..12, 0
     *  unchanged; the speed is kept (12 doubles the frequency).
     *  @return 0; -2 out of range; -7 no engine. */
    int setAudioMixingPitch(int pitch) noexcept { return agoraish_engine_set_audio_mixing_pitch(engine_, pitch); }

    /** The music's speed in percent (Agora's setAudioMixingPlaybackSpeed),
     *  50..400, 100 normal; the pitch is kept. @return 0; -2 out of range; -7 no engine. */
    int setAudioMixingPlaybackSpeed(int speed) noexcept {
        return agoraish_engine_set_audio_mixing_playback_speed(engine_, speed);
    }

    /**
     * Preloads an effect (Agora's preloadEffect): the file is opened and
     * checked now (this call blocks until it is, at most 10 s); a later
     * playEffect(soundId, nullptr, ...) then needs no path, and starts at
     * `startPos` when it gives 0.
     *
     * @return 0; -2 nullptr path or negative startPos; -1 the file cannot be
     *         opened or decoded; -5 MAX_AUDIO_EFFECTS held; -7 no engine.
     */
    int preloadEffect(int soundId, const char* filePath, int startPos = 0) noexcept {
        return agoraish_engine_preload_effect(engine_, soundId, filePath, startPos);
    }

    /**
     * Plays an effect (Agora's playEffect); a sound id already playing is
     * restarted. onAudioEffectFinished(soundId) follows when all its loops
     * have played (not for a file that fails to open: the log says why).
     *
     * @param filePath   The file or URL; nullptr or "": the one preloaded for the id.
     * @param loopCount  0 once, 1 twice, ..., -1 until stopped.
     * @param pitch      The pitch factor, 0.5..2.0 (1.0 unchanged).
     * @param pan        -1.0 (left) .. 0 (centre) .. 1.0 (right).
     * @param gain       0..100 (100 as decoded).
     * @param publish    true: remote users hear it too (while the engine's own
     *                   connection publishes audio); false: local only.
     * @param startPos   Ms to start at (0 for a preloaded id: the preload's startPos).
     * @return 0; -2 a value out of range, or no path for an id not preloaded;
     *         -5 MAX_AUDIO_EFFECTS held; -7 no engine.
     */
    int playEffect(int soundId, const char* filePath, int loopCount, double pitch, double pan, int gain,
                   bool publish = false, int startPos = 0) noexcept {
        return agoraish_engine_play_effect(engine_, soundId, filePath, loopCount, pitch, pan, gain, publish ? 1 : 0,
                                           startPos);
    }

    /** Stops an effect (Agora's stopEffect); it is not reported as finished.
     *  @return 0; -2 not playing; -7 no engine. */
    int stopEffect(int soundId) noexcept { return agoraish_engine_stop_effect(engine_, soundId); }

    /** Stops every effect (Agora's stopAllEffects). @return 0; -7 no engine. */
    int stopAllEffects() noexcept { return agoraish_engine_stop_all_effects(engine_); }

    /** Pauses an effect (Agora's pauseEffect). @return 0; -2 not playing; -7 no engine. */
    int pauseEffect(int soundId) noexcept { return agoraish_engine_pause_effect(engine_, soundId); }

    /** Pauses every effect (Agora's pauseAllEffects). @return 0; -7 no engine. */
    int pauseAllEffects() noexcept { return agoraish_engine_pause_all_effects(engine_); }

    /** Resumes a paused effect (Agora's resumeEffect). @return 0; -2 not paused; -7 no engine. */
    int resumeEffect(int soundId) noexcept { return agoraish_engine_resume_effect(engine_, soundId); }

    /** Resumes every paused effect (Agora's resumeAllEffects). @return 0; -7 no engine. */
    int resumeAllEffects() noexcept { return agoraish_engine_resume_all_effects(engine_); }

    /** Stops an effect and forgets its preload (Agora's unloadEffect).
     *  @return 0; -2 unknown id; -7 no engine. */
    int unloadEffect(int soundId) noexcept { return agoraish_engine_unload_effect(engine_, soundId); }

    /** Stops every effect and forgets every preload (Agora's unloadAllEffects). @return 0; -7 no engine. */
    int unloadAllEffects() noexcept { return agoraish_engine_unload_all_effects(engine_); }

    /** The volume of every effect (Agora's setEffectsVolume), 0..100, on top of
     *  each one's own. @return 0; -2 out of range; -7 no engine. */
    int setEffectsVolume(int volume) noexcept { return agoraish_engine_set_effects_volume(engine_, volume); }

    /** The volume of every effect (Agora's getEffectsVolume). @return 0..100; -7 no engine. */
    int getEffectsVolume() const noexcept { return agoraish_engine_get_effects_volume(engine_); }

    /** One effect's volume (Agora's setVolumeOfEffect), 0..100.
     *  @return 0; -2 unknown id or out of range; -7 no engine. */
    int setVolumeOfEffect(int soundId, int volume) noexcept {
        return agoraish_engine_set_volume_of_effect(engine_, soundId, volume);
    }

    /** One effect's volume (Agora's getVolumeOfEffect). @return 0..100; -2 unknown id; -7 no engine. */
    int getVolumeOfEffect(int soundId) const noexcept { return agoraish_engine_get_volume_of_effect(engine_, soundId); }

    /** A file's duration (Agora's getEffectDuration); opens the file (blocks, at most 10 s).
     *  @return Ms (>= 0); -2 nullptr path; -1 cannot be opened; -7 no engine. */
    int getEffectDuration(const char* filePath) const noexcept {
        return agoraish_engine_get_effect_duration(engine_, filePath);
    }

    /** Moves a playing effect to `pos` ms (Agora's setEffectPosition).
     *  @return 0; -2 not playing or negative; -7 no engine. */
    int setEffectPosition(int soundId, int pos) noexcept {
        return agoraish_engine_set_effect_position(engine_, soundId, pos);
    }

    /** A playing effect's position (Agora's getEffectCurrentPosition).
     *  @return Ms (>= 0); -2 not playing; -7 no engine. */
    int getEffectCurrentPosition(int soundId) const noexcept {
        return agoraish_engine_get_effect_current_position(engine_, soundId);
    }

    // ---- Media players and media recorders (ABI 0.13) ----

    /**
     * Creates a media player of this engine (Agora's createMediaPlayer) into
     * `player`, which destroys the player it held first: player.initialize(*this).
     *
     * @return 0; -5 MAX_MEDIA_PLAYERS players exist; -7 no engine.
     */
    int createMediaPlayer(MediaPlayer& player) noexcept;

    /** Destroys a media player (Agora's destroyMediaPlayer): player.destroy(). */
    int destroyMediaPlayer(MediaPlayer& player) noexcept;

    /**
     * Creates a media recorder of one user's stream (Agora's
     * createMediaRecorder) into `recorder`, which destroys the recorder it
     * held first: recorder.initialize(*this, info).
     *
     * @return 0; -2 an invalid channel name; -4 type PREVIEW; -5
     *         MAX_MEDIA_RECORDERS recorders exist; -7 no engine.
     */
    int createMediaRecorder(const RecorderStreamInfo& info, MediaRecorder& recorder) noexcept;

    /** Destroys a media recorder (Agora's destroyMediaRecorder): recorder.destroy(). */
    int destroyMediaRecorder(MediaRecorder& recorder) noexcept;

    // ---- Voice processing and voice effects (ABI 0.14) ----

    /**
     * Sets the audio scenario (Agora 4.x setAudioScenario): the audio
     * processing captured audio gets (echo cancellation, noise suppression,
     * gain control, high-pass), at once. The private parameters
     * "che.audio.aec.enable", "che.audio.ans.enable" and "che.audio.agc.enable"
     * (setParameters()) still override it step by step.
     *
     * @return 0; -2 unknown scenario; -7 no engine.
     */
    int setAudioScenario(AUDIO_SCENARIO_TYPE scenario) noexcept {
        return agoraish_engine_set_audio_scenario(engine_, scenario);
    }

    /**
     * Chooses noise suppression (Agora 4.x setAINSMode). Enabled, noise is
     * suppressed at `mode`'s level on captured audio (and on custom audio
     * tracks with processing, enableCustomAudioTrackProcessing()); disabled,
     * the scenario's own choice applies again.
     *
     * @param mode  Read when enabled.
     * @return 0; -2 unknown mode; -7 no engine.
     */
    int setAINSMode(bool enabled, AUDIO_AINS_MODE mode) noexcept {
        return agoraish_engine_set_ains_mode(engine_, enabled ? 1 : 0, mode);
    }

    /**
     * Audio processing on a mixable custom audio track (Agora's
     * AudioTrackConfig::enableAudioProcessing): what the scenario gives
     * captured audio (echo cancellation against the playout, noise
     * suppression, gain control, high-pass) then applies to what is pushed
     * into the track. Off by default: a track is sent as pushed.
     *
     * @return 0; -2 unknown track, or an AUDIO_TRACK_DIRECT track (direct
     *         tracks are never processed); -7 no engine.
     */
    int enableCustomAudioTrackProcessing(track_id_t trackId, bool enabled) noexcept {
        return agoraish_engine_enable_custom_audio_track_processing(engine_, trackId, enabled ? 1 : 0);
    }

    /**
     * Applies a voice beautifier preset (Agora's setVoiceBeautifierPreset);
     * VOICE_BEAUTIFIER_OFF removes the beautifier set earlier. It replaces an
     * audio effect or voice conversion preset and the host's own pitch,
     * formant, equalization and reverb (the later call wins). Voice effects
     * apply to captured audio, mixable custom audio tracks and the external
     * audio source, within 10 ms, in or out of a call.
     *
     * @return 0; -2 unknown preset; -7 no engine.
     */
    int setVoiceBeautifierPreset(VOICE_BEAUTIFIER_PRESET preset) noexcept {
        return agoraish_engine_set_voice_beautifier_preset(engine_, preset);
    }

    /** Applies an audio effect preset with its default parameters (Agora's
     *  setAudioEffectPreset); AUDIO_EFFECT_OFF removes the effect set earlier.
     *  Replaces as setVoiceBeautifierPreset() does. @return 0; -2 unknown preset; -7 no engine. */
    int setAudioEffectPreset(AUDIO_EFFECT_PRESET preset) noexcept {
        return agoraish_engine_set_audio_effect_preset(engine_, preset);
    }

    /** Applies a voice conversion preset (Agora's setVoiceConversionPreset);
     *  VOICE_CONVERSION_OFF removes the conversion set earlier. Replaces as
     *  setVoiceBeautifierPreset() does. @return 0; -2 unknown preset; -7 no engine. */
    int setVoiceConversionPreset(VOICE_CONVERSION_PRESET preset) noexcept {
        return agoraish_engine_set_voice_conversion_preset(engine_, preset);
    }

    /**
     * Applies a beautifier preset with parameters (Agora's
     * setVoiceBeautifierParameters). Only SINGING_BEAUTIFIER takes them:
     * `param1` 1 a male voice, 2 a female voice; `param2` the reverb: 1 a
     * small room, 2 a large room, 3 a hall.
     *
     * @return 0; -2 another preset or a parameter out of range; -7 no engine.
     */
    int setVoiceBeautifierParameters(VOICE_BEAUTIFIER_PRESET preset, int param1, int param2) noexcept {
        return agoraish_engine_set_voice_beautifier_parameters(engine_, preset, param1, param2);
    }

    /**
     * Applies an audio effect preset with parameters (Agora's setAudioEffectParameters):
     * ROOM_ACOUSTICS_3D_VOICE and ROOM_ACOUSTICS_VIRTUAL_SURROUND_SOUND:
     * `param1` the seconds the voice takes to go round the listener, 0 (still)
     * or 1..60 (10 by default), `param2` unused; PITCH_CORRECTION: `param1`
     * the scale, 1 major, 2 minor, 3 Japanese pentatonic, `param2` its tonic,
     * 1 A .. 12 G#.
     *
     * @return 0; -2 another preset or a parameter out of range; -7 no engine.
     */
    int setAudioEffectParameters(AUDIO_EFFECT_PRESET preset, int param1, int param2) noexcept {
        return agoraish_engine_set_audio_effect_parameters(engine_, preset, param1, param2);
    }

    /**
     * Changes the local voice's pitch, its formants moving with it (Agora's
     * setLocalVoicePitch). Replaces a preset set earlier.
     *
     * @param pitch  0.5 (an octave down) .. 2.0 (an octave up); 1.0 unchanged.
     * @return 0; -2 out of range or not a number; -7 no engine.
     */
    int setLocalVoicePitch(double pitch) noexcept { return agoraish_engine_set_local_voice_pitch(engine_, pitch); }

    /**
     * Moves the local voice's formants without changing its pitch (Agora's
     * setLocalVoiceFormant). Replaces a preset set earlier.
     *
     * @param formantRatio  -1.0 (an octave down, a larger speaker) .. 1.0 (an
     *                      octave up, a smaller one); 0 unchanged.
     * @return 0; -2 out of range or not a number; -7 no engine.
     */
    int setLocalVoiceFormant(double formantRatio) noexcept {
        return agoraish_engine_set_local_voice_formant(engine_, formantRatio);
    }

    /**
     * Sets one band of the local voice's equalizer (Agora's
     * setLocalVoiceEqualization): a peaking filter one octave wide at the
     * band's frequency. Replaces a preset set earlier.
     *
     * @param bandGain  -15..15 dB.
     * @return 0; -2 unknown band or gain out of range; -7 no engine.
     */
    int setLocalVoiceEqualization(AUDIO_EQUALIZATION_BAND_FREQUENCY bandFrequency, int bandGain) noexcept {
        return agoraish_engine_set_local_voice_equalization(engine_, bandFrequency, bandGain);
    }

    /**
     * Sets one value of the local voice's reverb (Agora's setLocalVoiceReverb).
     * The reverb is on while the wet level is above -20 dB or the room size or
     * strength is above 0. Replaces a preset set earlier.
     *
     * @param value  In `reverbKey`'s range (AUDIO_REVERB_TYPE).
     * @return 0; -2 unknown key or value out of range; -7 no engine.
     */
    int setLocalVoiceReverb(AUDIO_REVERB_TYPE reverbKey, int value) noexcept {
        return agoraish_engine_set_local_voice_reverb(engine_, reverbKey, value);
    }

    /** Equalizes what the engine plays for a kind of headphones (Agora's
     *  setHeadphoneEQPreset). @return 0; -2 unknown preset; -7 no engine. */
    int setHeadphoneEQPreset(HEADPHONE_EQUALIZER_PRESET preset) noexcept {
        return agoraish_engine_set_headphone_eq_preset(engine_, preset);
    }

    /**
     * Adjusts the headphone equalizer's low and high frequencies (Agora's
     * setHeadphoneEQParameters): `lowGain` is added to the bands of 31 to 250
     * Hz and `highGain` to those of 4 to 16 kHz, on top of the preset.
     *
     * @param lowGain   -10..10 dB.
     * @param highGain  -10..10 dB.
     * @return 0; -2 out of range; -7 no engine.
     */
    int setHeadphoneEQParameters(int lowGain, int highGain) noexcept {
        return agoraish_engine_set_headphone_eq_parameters(engine_, lowGain, highGain);
    }

    // ---- Spatial audio and voice positions (ABI 0.14) ----

    /**
     * Starts the local spatial audio engine of this engine into `spatial`
     * (Agora's queryInterface(AGORA_IID_LOCAL_SPATIAL_AUDIO) then
     * ILocalSpatialAudioEngine::initialize; getLocalSpatialAudioEngine in
     * Agora's other SDKs): spatial.initialize(*this).
     *
     * @return 0; -1 the HRTF set cannot be read; -7 no engine.
     */
    int getLocalSpatialAudioEngine(LocalSpatialAudioEngine& spatial) noexcept;

    /** Enables stereo panning of remote voices (Agora 3.x
     *  enableSoundPositionIndication), before or during a call; disabling
     *  returns every voice to the middle. @return 0; -7 no engine. */
    int enableSoundPositionIndication(bool enabled) noexcept {
        return agoraish_engine_enable_sound_position_indication(engine_, enabled ? 1 : 0);
    }

    /**
     * Places a remote voice between the ears (Agora 3.x setRemoteVoicePosition),
     * constant-power panning; heard only while enableSoundPositionIndication(true).
     *
     * @param pan   -1.0 left .. 0 middle .. 1.0 right.
     * @param gain  0.0 .. 100.0 (100 unchanged).
     * @return 0; -2 uid 0 or a value out of range; -5 4096 other users have a
     *         position; -7 no engine.
     */
    int setRemoteVoicePosition(uid_t uid, double pan, double gain) noexcept {
        return agoraish_engine_set_remote_voice_position(engine_, uid, pan, gain);
    }

    /**
     * The library version, "major.minor.patch" (Agora's getVersion).
     *
     * @param build  Optional; receives the build number.
     * @return A static string owned by the library.
     */
    static const char* getVersion(int* build = nullptr) noexcept {
        return agoraish_get_version(build);
    }

    /**
     * A description of an error code, negated or not (Agora's getErrorDescription).
     *
     * @return A static string owned by the library; "unknown error" for
     *         unknown codes.
     */
    static const char* getErrorDescription(int code) noexcept {
        return agoraish_get_error_description(code);
    }

    /**
     * Why the last call on this thread that failed failed, in words: which
     * argument, which limit, which key (agoraish_get_last_error_detail).
     *
     * @return Owned by the library, valid on this thread until its next call
     *         into the library; "" when there is no detail. Never NULL.
     */
    static const char* getLastErrorDetail() noexcept {
        return agoraish_get_last_error_detail();
    }

private:
    agoraish_engine_t* engine_ = nullptr;
};

/**
 * A media player of an engine (Agora's IMediaPlayer), owned: the destructor
 * destroys it. Move-only: a moved-from MediaPlayer holds no player.
 *
 *     agoraish::MediaPlayer player;
 *     engine.createMediaPlayer(player);          // or player.initialize(engine)
 *     player.registerPlayerSourceObserver(&observer);
 *     player.setView(&sink);                     // an IVideoSink, uid 0
 *     player.open("/path/to/movie.mp4", 0);      // OPENING, then OPEN_COMPLETED
 *     ...
 *     player.play();                             // after OPEN_COMPLETED
 *
 * It plays a file or URL in real time: local files (MP4, WebM, MKV, Ogg,
 * WAV, MP3, FLAC, ... and the codecs FFmpeg decodes) and http(s)://, HLS
 * (.m3u8) and rtmp:// URLs. Its audio is played locally (mixed into the
 * engine's playout: the device while the engine is in a call, or the
 * external sink's pullPlaybackAudioFrame() whenever the host pulls) and its
 * pictures go to its canvas; a connection
 * publishes them with ChannelMediaOptions::publishMediaPlayerAudioTrack /
 * publishMediaPlayerVideoTrack and publishMediaPlayerId = getMediaPlayerId().
 * Calls return at once and are carried out in order on the player's own
 * thread (agoraish-mp<n>); open() is asynchronous, its outcome reaches the
 * IMediaPlayerSourceObserver.
 *
 * A MediaPlayer names its player by the engine's handle and the player's id:
 * once the engine is released (which destroys its players) every method
 * returns -7. A MediaPlayer that holds no player (default-constructed,
 * destroyed or moved from) answers every method with -7, except destroy(),
 * which returns 0, and getMediaPlayerId(), which returns 0.
 *
 * Methods return 0 or a negated agoraish_error_code: -2 a bad argument, -8 a
 * call that does not fit the player's state (a getter before the source
 * opened), -7 no player or no engine. Thread: every method may be called
 * from any thread, also from the player's callbacks.
 */
class MediaPlayer {
public:
    /** A MediaPlayer that holds no player yet: call initialize() or RtcEngine::createMediaPlayer(). */
    MediaPlayer() noexcept = default;

#if defined(__cpp_exceptions)
    /**
     * Creates a player of `engine` at once.
     * @throws agoraish::Error with the code initialize() would return.
     */
    explicit MediaPlayer(RtcEngine& engine) {
        if (int rc = initialize(engine); rc != 0) throw Error(rc);
    }
#endif

    /** Destroys the player (destroy()). */
    ~MediaPlayer() { destroy(); }

    /** Not copyable: exactly one MediaPlayer owns a player. */
    MediaPlayer(const MediaPlayer&) = delete;
    /** Not copyable: exactly one MediaPlayer owns a player. */
    MediaPlayer& operator=(const MediaPlayer&) = delete;

    /** Takes the player of `other`, which is left empty. */
    MediaPlayer(MediaPlayer&& other) noexcept
        : engine_(std::exchange(other.engine_, nullptr)), id_(std::exchange(other.id_, 0)) {}

    /** Destroys this player, then takes the player of `other`. */
    MediaPlayer& operator=(MediaPlayer&& other) noexcept {
        if (this != &other) {
            destroy();
            engine_ = std::exchange(other.engine_, nullptr);
            id_ = std::exchange(other.id_, 0);
        }
        return *this;
    }

    /**
     * Creates a player of `engine` (Agora's createMediaPlayer), destroying the
     * player this object held first.
     *
     * @return 0; -5 MAX_MEDIA_PLAYERS players exist; -7 no engine.
     */
    int initialize(RtcEngine& engine) noexcept {
        destroy();
        int id = 0;
        const int rc = agoraish_engine_create_media_player(engine.nativeHandle(), &id);
        if (rc != 0) return rc;
        engine_ = engine.nativeHandle();
        id_ = id;
        return 0;
    }

    /**
     * Destroys the player (Agora's destroyMediaPlayer): it stops, its thread
     * ends, and connections publishing it publish nothing in its place. No
     * callback of it runs after this returns (unless called from one of its
     * own callbacks, which then finishes first), so its observers and sink
     * may then be freed. The object holds no player afterwards, whatever the
     * result. Idempotent.
     *
     * @return 0 (also when no player is held); -7 the engine was released
     *         (which destroyed the player already).
     */
    int destroy() noexcept {
        if (id_ == 0) return 0;
        const int rc = agoraish_engine_destroy_media_player(engine_, id_);
        engine_ = nullptr;
        id_ = 0;
        return rc;
    }

    /** Whether this MediaPlayer holds a player. */
    explicit operator bool() const noexcept { return id_ != 0; }

    /** The player's id in its engine (Agora's getMediaPlayerId): 1 and up, 0
     *  when no player is held. ChannelMediaOptions::publishMediaPlayerId takes it. */
    int getMediaPlayerId() const noexcept { return id_; }

    /** The handle of the player's engine (for the agoraish_media_player_* calls the wrapper lacks). */
    agoraish_engine_t* nativeEngineHandle() const noexcept { return engine_; }

    /**
     * Opens a file or URL (Agora's open): the state goes to OPENING at once,
     * then to OPEN_COMPLETED or FAILED with a reason, through the observer.
     * Opening again replaces the source.
     *
     * @param url       A path, file://, http(s)://, an HLS playlist or rtmp://; 1..4095 bytes. Copied.
     * @param startPos  Ms to start at (ignored for a live source).
     * @return 0; -2 nullptr or empty url, negative startPos; -7 no player.
     */
    int open(const char* url, std::int64_t startPos) noexcept {
        return agoraish_media_player_open(engine_, id_, url, startPos);
    }

    /** Plays (Agora's play): from OPEN_COMPLETED or PAUSED; after
     *  PLAYBACK_ALL_LOOPS_COMPLETED from the start. @return 0; -8 nothing opened; -7 no player. */
    int play() noexcept { return agoraish_media_player_play(engine_, id_); }

    /** Pauses (Agora's pause). @return 0; -8 not playing; -7 no player. */
    int pause() noexcept { return agoraish_media_player_pause(engine_, id_); }

    /** Resumes after pause() (Agora's resume). @return 0; -8 not paused; -7 no player. */
    int resume() noexcept { return agoraish_media_player_resume(engine_, id_); }

    /** Stops and closes the source (Agora's stop): state STOPPED. @return 0; -7 no player. */
    int stop() noexcept { return agoraish_media_player_stop(engine_, id_); }

    /** Seeks to `newPos` ms, exactly (Agora's seek): events SEEK_BEGIN, then
     *  SEEK_COMPLETE or SEEK_ERROR (a live source).
     *  @return 0; -2 negative; -8 nothing opened; -7 no player. */
    int seek(std::int64_t newPos) noexcept { return agoraish_media_player_seek(engine_, id_, newPos); }

    /** Loops after the first play (Agora's setLoopCount): 0 plays once, n plays
     *  n + 1 times, -1 forever. @return 0; -2 below -1; -7 no player. */
    int setLoopCount(int loopCount) noexcept { return agoraish_media_player_set_loop_count(engine_, id_, loopCount); }

    /** The source's duration in ms, 0 for a live source (Agora's getDuration).
     *  @return 0; -8 nothing opened; -7 no player. `duration` is unchanged on failure. */
    int getDuration(std::int64_t& duration) const noexcept {
        return agoraish_media_player_get_duration(engine_, id_, &duration);
    }

    /** The position in ms (Agora's getPlayPosition).
     *  @return 0; -8 nothing opened; -7 no player. `pos` is unchanged on failure. */
    int getPlayPosition(std::int64_t& pos) const noexcept {
        return agoraish_media_player_get_play_position(engine_, id_, &pos);
    }

    /**
     * The state (Agora's getState).
     *
     * @return A MEDIA_PLAYER_STATE; with no player, -7 as the enum's value
     *         (its underlying type is int).
     */
    MEDIA_PLAYER_STATE getState() const noexcept {
        int state = PLAYER_STATE_IDLE;
        const int rc = agoraish_media_player_get_state(engine_, id_, &state);
        return static_cast<MEDIA_PLAYER_STATE>(rc != 0 ? rc : state);
    }

    /** The number of streams of the source (Agora's getStreamCount).
     *  @return 0; -8 nothing opened; -7 no player. `count` is unchanged on failure. */
    int getStreamCount(std::int64_t& count) const noexcept {
        return agoraish_media_player_get_stream_count(engine_, id_, &count);
    }

    /** One stream of the source (Agora's getStreamInfo), 0..getStreamCount() - 1.
     *  @return 0; -2 nullptr info or index out of range; -8 nothing opened; -7 no player. */
    int getStreamInfo(std::int64_t index, PlayerStreamInfo* info) const noexcept {
        if (info == nullptr) return -AGORAISH_ERR_INVALID_ARGUMENT;
        agoraish_player_stream_info c{};
        c.struct_size = sizeof(c);
        const int rc = agoraish_media_player_get_stream_info(engine_, id_, index, &c);
        if (rc == 0) *info = PlayerStreamInfo(c);
        return rc;
    }

    /** Decodes audio stream `index` (a PlayerStreamInfo::streamIndex of an audio
     *  stream) from now on (Agora's selectAudioTrack); event AUDIO_TRACK_CHANGED.
     *  @return 0; -2 not an audio stream; -8 nothing opened; -7 no player. */
    int selectAudioTrack(int index) noexcept { return agoraish_media_player_select_audio_track(engine_, id_, index); }

    /** Playback speed in percent (Agora's setPlaybackSpeed): 30..400, 100
     *  normal; audio keeps its pitch, pictures follow. @return 0; -2 out of range; -7 no player. */
    int setPlaybackSpeed(int speed) noexcept { return agoraish_media_player_set_playback_speed(engine_, id_, speed); }

    /** The local playout volume (Agora's adjustPlayoutVolume): 0..400, 100 as
     *  decoded. @return 0; -2 out of range; -7 no player. */
    int adjustPlayoutVolume(int volume) noexcept {
        return agoraish_media_player_adjust_playout_volume(engine_, id_, volume);
    }

    /** The local playout volume (Agora's getPlayoutVolume). @return 0; -7 no player. */
    int getPlayoutVolume(int& volume) const noexcept {
        return agoraish_media_player_get_playout_volume(engine_, id_, &volume);
    }

    /** The published volume (Agora's adjustPublishSignalVolume): 0..400, 100 as
     *  decoded. @return 0; -2 out of range; -7 no player. */
    int adjustPublishSignalVolume(int volume) noexcept {
        return agoraish_media_player_adjust_publish_signal_volume(engine_, id_, volume);
    }

    /** The published volume (Agora's getPublishSignalVolume). @return 0; -7 no player. */
    int getPublishSignalVolume(int& volume) const noexcept {
        return agoraish_media_player_get_publish_signal_volume(engine_, id_, &volume);
    }

    /** Mutes the player's audio (Agora's mute): neither played nor published;
     *  pictures go on. @return 0; -7 no player. */
    int mute(bool muted) noexcept { return agoraish_media_player_mute(engine_, id_, muted ? 1 : 0); }

    /** Whether the player's audio is muted (Agora's getMute). @return 0; -7 no player. */
    int getMute(bool& muted) const noexcept {
        int value = 0;
        const int rc = agoraish_media_player_get_mute(engine_, id_, &value);
        if (rc == 0) muted = value != 0;
        return rc;
    }

    /**
     * Binds the player's canvas, or unbinds it with a null sink (Agora's
     * setView): the sink gets each picture with uid 0 when its time comes,
     * fitted to the view size by the render mode when one is set, mirrored
     * when the mirror mode is ENABLED (AUTO and DISABLED leave it as it is),
     * with alphaBuffer when the source has alpha, on the player's thread
     * (agoraish-mp<n>). `canvas.uid` is ignored. The sink must live until it
     * is unbound, the player destroyed or the engine released with release(true).
     *
     * @return 0; -2 an unknown render or mirror mode or a bad view size; -7 no player.
     */
    int setView(const VideoCanvas& canvas) noexcept {
        if (canvas.sink == nullptr) return agoraish_media_player_set_view(engine_, id_, nullptr);
        agoraish_video_canvas c = detail::makeCanvas(canvas);
        c.uid = 0;
        return agoraish_media_player_set_view(engine_, id_, &c);
    }

    /** setView() with pictures at their own size. */
    int setView(IVideoSink* sink) noexcept { return setView(VideoCanvas(0, sink)); }

    /** The canvas's render mode (Agora's setRenderMode): HIDDEN, FIT, ADAPTIVE (as HIDDEN) or FILL.
     *  @return 0; -2 an unknown mode; -7 no player. */
    int setRenderMode(RENDER_MODE_TYPE renderMode) noexcept {
        return agoraish_media_player_set_render_mode(engine_, id_, renderMode);
    }

    /** Registers the player's event observer (Agora's registerPlayerSourceObserver),
     *  or removes it with nullptr. See IMediaPlayerSourceObserver for its lifetime.
     *  @return 0; -7 no player. */
    int registerPlayerSourceObserver(IMediaPlayerSourceObserver* observer) noexcept {
        if (observer == nullptr) return agoraish_media_player_register_player_source_observer(engine_, id_, nullptr);
        const agoraish_media_player_observer table = detail::makePlayerSourceObserverTable(observer);
        return agoraish_media_player_register_player_source_observer(engine_, id_, &table);
    }

    /** Removes the player's event observer (Agora's unregisterPlayerSourceObserver).
     *  A player has one: `observer` is not compared. @return 0; -7 no player. */
    int unregisterPlayerSourceObserver(IMediaPlayerSourceObserver* observer) noexcept {
        (void)observer;
        return registerPlayerSourceObserver(nullptr);
    }

    /** Registers the player's audio frame observer (Agora's registerAudioFrameObserver),
     *  or removes it with nullptr. See IMediaPlayerAudioFrameObserver for its lifetime.
     *  @return 0; -7 no player. */
    int registerAudioFrameObserver(IMediaPlayerAudioFrameObserver* observer) noexcept {
        if (observer == nullptr) return agoraish_media_player_register_audio_frame_observer(engine_, id_, nullptr);
        agoraish_media_player_audio_frame_observer table{};
        table.struct_size = sizeof(table);
        table.user_data = observer;
        table.on_frame = &detail::playerAudioFrame;
        return agoraish_media_player_register_audio_frame_observer(engine_, id_, &table);
    }

    /** Removes the player's audio frame observer (Agora's unregisterAudioFrameObserver);
     *  `observer` is not compared. @return 0; -7 no player. */
    int unregisterAudioFrameObserver(IMediaPlayerAudioFrameObserver* observer) noexcept {
        (void)observer;
        return registerAudioFrameObserver(nullptr);
    }

    /** Registers the player's video frame observer (Agora's registerVideoFrameObserver),
     *  or removes it with nullptr. See IMediaPlayerVideoFrameObserver for its lifetime.
     *  @return 0; -7 no player. */
    int registerVideoFrameObserver(IMediaPlayerVideoFrameObserver* observer) noexcept {
        if (observer == nullptr) return agoraish_media_player_register_video_frame_observer(engine_, id_, nullptr);
        agoraish_media_player_video_frame_observer table{};
        table.struct_size = sizeof(table);
        table.user_data = observer;
        table.on_frame = &detail::playerVideoFrame;
        return agoraish_media_player_register_video_frame_observer(engine_, id_, &table);
    }

    /** Removes the player's video frame observer (Agora's unregisterVideoFrameObserver);
     *  `observer` is not compared. @return 0; -7 no player. */
    int unregisterVideoFrameObserver(IMediaPlayerVideoFrameObserver* observer) noexcept {
        (void)observer;
        return registerVideoFrameObserver(nullptr);
    }

private:
    agoraish_engine_t* engine_ = nullptr;
    int id_ = 0;
};

/**
 * A media recorder of one user's stream (Agora's IMediaRecorder), owned: the
 * destructor destroys it. Move-only: a moved-from MediaRecorder holds no recorder.
 *
 *     agoraish::MediaRecorder recorder;
 *     engine.createMediaRecorder(agoraish::RecorderStreamInfo("demo", 0), recorder);
 *     recorder.setMediaRecorderObserver(&observer);   // must outlive the engine
 *     agoraish::MediaRecorderConfiguration config;
 *     config.storagePath = "/tmp/me.mp4";
 *     recorder.startRecording(config);
 *     ...
 *     recorder.stopRecording();                      // the file is complete
 *
 * It writes the user's audio and video to an MP4 file (H.264 and AAC) on its
 * own thread (agoraish-rec<n>): uid 0 what the engine's own connection sends,
 * another uid that remote user as received. Pictures of another size are
 * scaled to the configured size (letterboxed). A stream that never arrives
 * leaves its track out; with neither, stopping reports RECORDER_STATE_ERROR
 * with RECORDER_REASON_NO_STREAM and removes the empty file.
 *
 * Once the engine is released (which destroys its recorders) every method
 * returns -7. A MediaRecorder that holds no recorder answers every method
 * with -7, except destroy(), which returns 0. Thread: every method may be
 * called from any thread, except stopRecording() and destroy() from a
 * callback of the recorder's observer.
 */
class MediaRecorder {
public:
    /** A MediaRecorder that holds no recorder yet: call initialize() or RtcEngine::createMediaRecorder(). */
    MediaRecorder() noexcept = default;

#if defined(__cpp_exceptions)
    /**
     * Creates a recorder of `engine` at once.
     * @throws agoraish::Error with the code initialize() would return.
     */
    MediaRecorder(RtcEngine& engine, const RecorderStreamInfo& info) {
        if (int rc = initialize(engine, info); rc != 0) throw Error(rc);
    }
#endif

    /** Destroys the recorder (destroy()). */
    ~MediaRecorder() { destroy(); }

    /** Not copyable: exactly one MediaRecorder owns a recorder. */
    MediaRecorder(const MediaRecorder&) = delete;
    /** Not copyable: exactly one MediaRecorder owns a recorder. */
    MediaRecorder& operator=(const MediaRecorder&) = delete;

    /** Takes the recorder of `other`, which is left empty. */
    MediaRecorder(MediaRecorder&& other) noexcept
        : engine_(std::exchange(other.engine_, nullptr)), id_(std::exchange(other.id_, 0)) {}

    /** Destroys this recorder, then takes the recorder of `other`. */
    MediaRecorder& operator=(MediaRecorder&& other) noexcept {
        if (this != &other) {
            destroy();
            engine_ = std::exchange(other.engine_, nullptr);
            id_ = std::exchange(other.id_, 0);
        }
        return *this;
    }

    /**
     * Creates a recorder of `info`'s stream (Agora's createMediaRecorder),
     * destroying the recorder this object held first.
     *
     * @return 0; -2 an invalid channel name; -4 type PREVIEW; -5
     *         MAX_MEDIA_RECORDERS recorders exist; -7 no engine.
     */
    int initialize(RtcEngine& engine, const RecorderStreamInfo& info) noexcept {
        destroy();
        agoraish_recorder_stream_info c{};
        c.struct_size = sizeof(c);
        c.channel_id = info.channelId.c_str();
        c.uid = info.uid;
        c.type = info.type;
        int id = 0;
        const int rc = agoraish_engine_create_media_recorder(engine.nativeHandle(), &c, &id);
        if (rc != 0) return rc;
        engine_ = engine.nativeHandle();
        id_ = id;
        return 0;
    }

    /**
     * Destroys the recorder (Agora's destroyMediaRecorder), stopping it first
     * (the file is complete when this returns). Its observer may still get the
     * last events afterwards: see IMediaRecorderObserver. The object holds no
     * recorder afterwards, whatever the result. Idempotent.
     *
     * @return 0 (also when no recorder is held); -7 the engine was released
     *         (which destroyed the recorder already).
     */
    int destroy() noexcept {
        if (id_ == 0) return 0;
        const int rc = agoraish_engine_destroy_media_recorder(engine_, id_);
        engine_ = nullptr;
        id_ = 0;
        return rc;
    }

    /** Whether this MediaRecorder holds a recorder. */
    explicit operator bool() const noexcept { return id_ != 0; }

    /** The recorder's id in its engine: 1 and up, 0 when no recorder is held. */
    int getMediaRecorderId() const noexcept { return id_; }

    /** Sets the recorder's observer (Agora's setMediaRecorderObserver), or
     *  removes it with nullptr. See IMediaRecorderObserver for its lifetime.
     *  @return 0; -7 no recorder. */
    int setMediaRecorderObserver(IMediaRecorderObserver* observer) noexcept {
        if (observer == nullptr) return agoraish_media_recorder_set_observer(engine_, id_, nullptr);
        const agoraish_media_recorder_observer table = detail::makeRecorderObserverTable(observer);
        return agoraish_media_recorder_set_observer(engine_, id_, &table);
    }

    /**
     * Starts recording (Agora's startRecording): the file is created now;
     * RECORDER_STATE_START is reported, or RECORDER_STATE_ERROR with WRITE_FAILED.
     *
     * @return 0; -2 an empty path or a value out of range; -4 another
     *         container; -8 already recording; -7 no recorder.
     */
    int startRecording(const MediaRecorderConfiguration& config) noexcept {
        agoraish_media_recorder_configuration c{};
        c.struct_size = sizeof(c);
        c.storage_path = config.storagePath.c_str();
        c.container_format = config.containerFormat;
        c.stream_type = config.streamType;
        c.max_duration_ms = config.maxDurationMs;
        c.recorder_info_update_interval = config.recorderInfoUpdateInterval;
        c.width = config.width;
        c.height = config.height;
        c.fps = config.fps;
        c.sample_rate = config.sample_rate;
        c.channel_num = config.channel_num;
        return agoraish_media_recorder_start_recording(engine_, id_, &c);
    }

    /** Stops recording (Agora's stopRecording): the file is complete when this
     *  returns; RECORDER_STATE_STOP is reported. @return 0; -8 not recording; -7 no recorder. */
    int stopRecording() noexcept { return agoraish_media_recorder_stop_recording(engine_, id_); }

private:
    agoraish_engine_t* engine_ = nullptr;
    int id_ = 0;
};

inline int RtcEngine::createMediaPlayer(MediaPlayer& player) noexcept { return player.initialize(*this); }

inline int RtcEngine::destroyMediaPlayer(MediaPlayer& player) noexcept { return player.destroy(); }

inline int RtcEngine::createMediaRecorder(const RecorderStreamInfo& info, MediaRecorder& recorder) noexcept {
    return recorder.initialize(*this, info);
}

inline int RtcEngine::destroyMediaRecorder(MediaRecorder& recorder) noexcept { return recorder.destroy(); }

/** A remote voice's place (Agora's RemoteVoicePositionInfo), for
 *  LocalSpatialAudioEngine::updateRemotePosition() and updatePlayerPositionInfo(). */
struct RemoteVoicePositionInfo {
    /** x, y, z in the app's world coordinates. */
    float position[3] = {0, 0, 0};
    /** Where the voice faces (x, y, z); not used by the rendering (an HRTF set
     *  describes the listener's ears only). */
    float forward[3] = {0, 0, 0};
};

/** How to start a LocalSpatialAudioEngine (Agora's LocalSpatialAudioConfig). */
struct LocalSpatialAudioConfig {
    /** The engine whose remote users are placed; not owned. */
    RtcEngine* rtcEngine = nullptr;
};

/**
 * The local spatial audio engine of an engine (Agora's
 * ILocalSpatialAudioEngine), owned: the destructor releases it. Move-only:
 * a moved-from LocalSpatialAudioEngine holds nothing.
 *
 *     agoraish::LocalSpatialAudioEngine spatial;
 *     engine.getLocalSpatialAudioEngine(spatial);        // or spatial.initialize(engine)
 *     const float origin[3] = {0, 0, 0}, forward[3] = {1, 0, 0}, right[3] = {0, 1, 0}, up[3] = {0, 0, 1};
 *     spatial.updateSelfPosition(origin, forward, right, up);
 *     agoraish::RemoteVoicePositionInfo info;
 *     info.position[1] = 2;                               // 2 m on the right
 *     spatial.updateRemotePosition(remoteUid, info);
 *
 * It places remote users (and media players) around the local user and
 * renders them binaurally with an HRTF set (libmysofa's default.sofa): a user
 * on the right is louder and earlier in the right ear, and quieter the
 * farther away it is. Hear it in stereo: setExternalAudioSink(true, 48000, 2)
 * or a stereo playback device. Positions are in the app's world coordinates;
 * setDistanceUnit() says how many metres one unit is. A user beyond the
 * receive range is silent and not received at all (the server stops
 * forwarding it), and so is every user beyond the setMaxAudioRecvCount()
 * nearest. Users with no position play as before, in the middle.
 *
 * An engine has one spatial audio engine: two LocalSpatialAudioEngine
 * objects of the same engine act on the same one, and releasing either
 * stops it. Once the engine is released every method returns -7. A
 * LocalSpatialAudioEngine that holds nothing (default-constructed, released
 * or moved from) answers every method with -7, except release(), which
 * returns 0. Other codes: -2 bad values (nullptr, NaN or infinite), -3 not
 * initialized. Thread: every method may be called from any thread.
 */
class LocalSpatialAudioEngine {
public:
    /** A LocalSpatialAudioEngine that holds nothing yet: call initialize() or
     *  RtcEngine::getLocalSpatialAudioEngine(). */
    LocalSpatialAudioEngine() noexcept = default;

    /** Releases the spatial audio engine (release()). */
    ~LocalSpatialAudioEngine() { release(); }

    /** Not copyable: exactly one LocalSpatialAudioEngine owns its start. */
    LocalSpatialAudioEngine(const LocalSpatialAudioEngine&) = delete;
    /** Not copyable: exactly one LocalSpatialAudioEngine owns its start. */
    LocalSpatialAudioEngine& operator=(const LocalSpatialAudioEngine&) = delete;

    /** Takes what `other` holds, which is left empty. */
    LocalSpatialAudioEngine(LocalSpatialAudioEngine&& other) noexcept
        : engine_(std::exchange(other.engine_, nullptr)) {}

    /** Releases what this object holds, then takes what `other` holds. */
    LocalSpatialAudioEngine& operator=(LocalSpatialAudioEngine&& other) noexcept {
        if (this != &other) {
            release();
            engine_ = std::exchange(other.engine_, nullptr);
        }
        return *this;
    }

    /**
     * Starts the spatial audio engine of `engine` (Agora's initialize),
     * releasing the one this object held first (unless it is the same
     * engine's): the listener at the origin with forward +x, right +y and up
     * +z; a receive range of 1000 units; 1 unit = 1 m; at most 16 users
     * received. Positions set before a release are forgotten. Again while
     * running: 0.
     *
     * @return 0; -1 the HRTF set cannot be read; -7 no engine.
     */
    int initialize(RtcEngine& engine) noexcept {
        if (engine_ != engine.nativeHandle()) release();
        const int rc = agoraish_spatial_audio_initialize(engine.nativeHandle());
        if (rc != 0) return rc;
        engine_ = engine.nativeHandle();
        return 0;
    }

    /** initialize(RtcEngine&) from Agora's LocalSpatialAudioConfig.
     *  @return as initialize(RtcEngine&); -2 a nullptr rtcEngine. */
    int initialize(const LocalSpatialAudioConfig& config) noexcept {
        if (config.rtcEngine == nullptr) return -AGORAISH_ERR_INVALID_ARGUMENT;
        return initialize(*config.rtcEngine);
    }

    /**
     * Stops the spatial audio engine (Agora's release): every remote user
     * plays in the middle again and is received again. The object holds
     * nothing afterwards, whatever the result. Idempotent.
     *
     * @return 0 (also when nothing is held); -7 the engine was released.
     */
    int release() noexcept {
        if (engine_ == nullptr) return 0;
        const int rc = agoraish_spatial_audio_release(engine_);
        engine_ = nullptr;
        return rc;
    }

    /** Whether this object holds a started spatial audio engine. */
    explicit operator bool() const noexcept { return engine_ != nullptr; }

    /** The handle of the engine (for the agoraish_spatial_audio_* calls the wrapper lacks). */
    agoraish_engine_t* nativeEngineHandle() const noexcept { return engine_; }

    /**
     * The local user's position and orientation (Agora's updateSelfPosition),
     * each three floats, read during the call. The axes should be unit
     * vectors at right angles (they are normalized; a zero vector is -2).
     *
     * @return 0; -2 nullptr or bad values; -3 not initialized; -7 nothing held.
     */
    int updateSelfPosition(const float position[3], const float axisForward[3], const float axisRight[3],
                           const float axisUp[3]) noexcept {
        return agoraish_spatial_audio_update_self_position(engine_, position, axisForward, axisRight, axisUp);
    }

    /**
     * A remote user's position and facing (Agora's updateRemotePosition). At
     * most 4096 users have a position at once.
     *
     * @return 0; -2 uid 0 or bad values; -3 not initialized; -5 4096 other
     *         users have a position; -7 nothing held.
     */
    int updateRemotePosition(uid_t uid, const RemoteVoicePositionInfo& posInfo) noexcept {
        return agoraish_spatial_audio_update_remote_position(engine_, uid, posInfo.position, posInfo.forward);
    }

    /** A media player's position (Agora's updatePlayerPositionInfo): its local
     *  playout is rendered there. `playerId` is MediaPlayer::getMediaPlayerId().
     *  @return 0; -2 unknown player or bad values; -3 not initialized; -7 nothing held. */
    int updatePlayerPositionInfo(int playerId, const RemoteVoicePositionInfo& positionInfo) noexcept {
        return agoraish_spatial_audio_update_player_position(engine_, playerId, positionInfo.position,
                                                             positionInfo.forward);
    }

    /** Forgets a remote user's position (Agora's removeRemotePosition): it plays in
     *  the middle again. @return 0; -2 uid 0; -3 not initialized; -7 nothing held. */
    int removeRemotePosition(uid_t uid) noexcept { return agoraish_spatial_audio_remove_remote_position(engine_, uid); }

    /** Forgets every remote position (Agora's clearRemotePositions).
     *  @return 0; -3 not initialized; -7 nothing held. */
    int clearRemotePositions() noexcept { return agoraish_spatial_audio_clear_remote_positions(engine_); }

    /** How far the local user hears, in units, > 0 (Agora's setAudioRecvRange):
     *  users farther away are silent and not received.
     *  @return 0; -2 not above 0; -3 not initialized; -7 nothing held. */
    int setAudioRecvRange(float range) noexcept { return agoraish_spatial_audio_set_audio_recv_range(engine_, range); }

    /** Metres per unit of the positions, > 0 (Agora's setDistanceUnit).
     *  @return 0; -2 not above 0; -3 not initialized; -7 nothing held. */
    int setDistanceUnit(float unit) noexcept { return agoraish_spatial_audio_set_distance_unit(engine_, unit); }

    /** How many positioned users are received at most, the nearest first
     *  (Agora's setMaxAudioRecvCount), 1..4096.
     *  @return 0; -2 out of range; -3 not initialized; -7 nothing held. */
    int setMaxAudioRecvCount(int maxCount) noexcept {
        return agoraish_spatial_audio_set_max_audio_recv_count(engine_, maxCount);
    }

    /** Stops or resumes sending the local voice (the spatial engine's muteLocalAudioStream;
     *  the engine's own mute still applies). @return 0; -3 not initialized; -7 nothing held. */
    int muteLocalAudioStream(bool mute) noexcept {
        return agoraish_spatial_audio_mute_local_audio_stream(engine_, mute ? 1 : 0);
    }

    /** Stops or resumes receiving every remote user (the spatial engine's
     *  muteAllRemoteAudioStreams; the engine's own mutes still apply).
     *  @return 0; -3 not initialized; -7 nothing held. */
    int muteAllRemoteAudioStreams(bool mute) noexcept {
        return agoraish_spatial_audio_mute_all_remote_audio_streams(engine_, mute ? 1 : 0);
    }

    /** Stops or resumes receiving one remote user (the spatial engine's muteRemoteAudioStream).
     *  @return 0; -2 uid 0; -3 not initialized; -7 nothing held. */
    int muteRemoteAudioStream(uid_t uid, bool mute) noexcept {
        return agoraish_spatial_audio_mute_remote_audio_stream(engine_, uid, mute ? 1 : 0);
    }

private:
    agoraish_engine_t* engine_ = nullptr;
};

inline int RtcEngine::getLocalSpatialAudioEngine(LocalSpatialAudioEngine& spatial) noexcept {
    return spatial.initialize(*this);
}

/**
 * How to create a ChannelServer (agoraish_server_config). The defaults serve
 * on 127.0.0.1, on a free port, with no HTTP endpoint, accepting any app id
 * an engine accepts, without a token (testing mode).
 */
struct ChannelServerConfig {
    /** Listen address; empty is 127.0.0.1. */
    std::string host;
    /** Signaling port; 0 picks a free port (read it back with url()). */
    int signalingPort = 0;
    /** HTTP port for /metrics and /status: -1 a free port, a positive value
     *  that port, 0 what `configJson` says (no HTTP when it says nothing). */
    int httpPort = 0;
    /** Optional configuration document (the JSON of docs/server.md), applied
     *  first; `host` and the ports above override its listen section when set.
     *  When it registers apps, only those apps are accepted unless it also
     *  sets "accept_unknown_apps": true. */
    std::optional<std::string> configJson;
};

/**
 * A channel server running inside this process (agoraish_server_*), owned:
 * the destructor stops and releases it. Move-only: a moved-from ChannelServer
 * holds no server.
 *
 *     agoraish::ChannelServer server;
 *     if (server.initialize() != 0 || server.start() != 0) { ... }
 *     std::string url = server.url();   // for RtcEngineContext::serverUrl
 *
 * A ChannelServer that holds no server (default-constructed, released or
 * moved from) answers every method with -7, except release(), which returns 0.
 * Stopping the server closes every connection: engines in its channels see
 * the link break and start reconnecting, so release the engines (or leave)
 * first. Thread: every method may be called from any thread.
 */
class ChannelServer {
public:
    /** A ChannelServer that holds no server yet: call initialize() or create(). */
    ChannelServer() noexcept = default;

#if defined(__cpp_exceptions)
    /**
     * Creates the server at once (not yet listening: call start()).
     * @throws agoraish::Error with the code initialize() would return.
     */
    explicit ChannelServer(const ChannelServerConfig& config) {
        if (int rc = initialize(config); rc != 0) throw Error(rc);
    }
#endif

    /** Stops and releases the server. */
    ~ChannelServer() { release(); }

    /** Not copyable: exactly one ChannelServer owns a server. */
    ChannelServer(const ChannelServer&) = delete;
    /** Not copyable: exactly one ChannelServer owns a server. */
    ChannelServer& operator=(const ChannelServer&) = delete;

    /** Takes the server of `other`, which is left empty. */
    ChannelServer(ChannelServer&& other) noexcept : server_(std::exchange(other.server_, nullptr)) {}

    /** Releases this server, then takes the server of `other`. */
    ChannelServer& operator=(ChannelServer&& other) noexcept {
        if (this != &other) {
            release();
            server_ = std::exchange(other.server_, nullptr);
        }
        return *this;
    }

    /**
     * Creates a server into `out` (replacing, and so releasing, what it held).
     *
     * @return 0, or the code of initialize(); `out` is unchanged on failure.
     */
    static int create(const ChannelServerConfig& config, ChannelServer& out) noexcept {
        ChannelServer server;
        if (int rc = server.initialize(config); rc != 0) return rc;
        out = std::move(server);
        return 0;
    }

    /**
     * Creates the server (not yet listening).
     *
     * @return 0; -8 if this ChannelServer already holds a server; -2 a port
     *         out of range or configJson that is not a valid document.
     */
    int initialize(const ChannelServerConfig& config = ChannelServerConfig()) noexcept {
        if (server_ != nullptr) return -AGORAISH_ERR_INVALID_STATE;
        agoraish_server_config c{};
        c.struct_size = sizeof(c);
        c.host = config.host.empty() ? nullptr : config.host.c_str();
        c.signaling_port = config.signalingPort;
        c.http_port = config.httpPort;
        c.config_json = config.configJson ? config.configJson->c_str() : nullptr;
        server_ = agoraish_server_create(&c);
        if (server_ == nullptr) {
            const int rc = agoraish_get_last_error();
            return rc != 0 ? rc : -AGORAISH_ERR_FAILED;
        }
        return 0;
    }

    /**
     * Binds and starts serving on the server's own thread.
     *
     * @return 0; -8 already running; -13 a port cannot be bound; -7 no server.
     */
    int start() noexcept { return agoraish_server_start(server_); }

    /**
     * Stops serving (every connection is closed; engines start reconnecting);
     * returns when the server threads have ended. A stopped server can be
     * started again.
     *
     * @return 0 (also when not running); -7 no server.
     */
    int stop() noexcept { return agoraish_server_stop(server_); }

    /**
     * Stops the server if running and frees it. Idempotent.
     *
     * @return 0.
     */
    int release() noexcept {
        if (server_ == nullptr) return 0;
        const int rc = agoraish_server_release(server_);
        server_ = nullptr;
        return rc;
    }

    /** The URL engines use to reach the server ("ws://host:port"), or "" when
     *  it is not running. */
    std::string url() const {
        std::string out;
        return getUrl(out) == 0 ? out : std::string();
    }

    /**
     * The URL engines use to reach the server, as a code.
     *
     * @param out  Receives "ws://host:port"; unchanged on failure.
     * @return 0; -3 not running; -7 no server.
     */
    int getUrl(std::string& out) const {
        return detail::readString(
            [this](char* buf, std::size_t* len) { return agoraish_server_get_url(server_, buf, len); }, out);
    }

    /** The bound HTTP port (/metrics, /status); 0 when disabled; -3 not running; -7 no server. */
    int httpPort() const noexcept { return agoraish_server_get_http_port(server_); }

    /** Whether this ChannelServer holds a server. */
    explicit operator bool() const noexcept { return server_ != nullptr; }

    /** The C handle, for calls the wrapper lacks; still owned by this object. */
    agoraish_server_t* nativeHandle() const noexcept { return server_; }

private:
    agoraish_server_t* server_ = nullptr;
};

}  // namespace agoraish

#endif  // AGORAISH_HPP
