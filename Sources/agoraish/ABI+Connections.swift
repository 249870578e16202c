import AgoraishEngine
import AgoraishMedia
import AgoraishSession
import CAgoraishABI

// Connections of include/agoraish.h: joinChannelEx, media options, the `_ex`
// twins, custom audio tracks.

/// The connection an ABI call acts on: the engine's own, or the one an `_ex` twin names.
enum Target {
    case own
    case named(UnsafePointer<agoraish_rtc_connection>?)
}

/// Reads an `agoraish_rtc_connection`: -2 for NULL, a bad struct_size or a channel that is not UTF-8.
func readConnection(_ p: UnsafePointer<agoraish_rtc_connection>?) throws(AgoraError) -> ConnectionKey {
    guard let c = readVersioned(p, knownSizes: StructSizes.rtcConnection) else { throw .invalidArgument }
    guard let channel = readCString(c.channel_id) else {
        ErrorDetail.set("channel_id is NULL or not UTF-8")
        throw .invalidArgument
    }
    return ConnectionKey(channel: channel, uid: c.local_uid)
}

/// Runs `body` with the engine behind `p`, or with its connection `target` names.
func withEngine(_ p: OpaquePointer?, _ target: Target, function: String = #function,
                _ body: (RtcEngine) throws(AgoraError) -> Void) -> Int32 {
    withEngine(p, function: function) { engine throws(AgoraError) in
        guard case .named(let pointer) = target else { return try body(engine) }
        let key = try readConnection(pointer)
        guard let connection = engine.connection(key) else {
            ErrorDetail.set("the engine has no connection to \"\(key.channel.prefix(64))\" as uid \(key.uid)")
            throw .invalidArgument
        }
        try body(connection)
    }
}

/// Reads `agoraish_channel_media_options` (NULL: all unset when `optional`).
func readMediaOptions(_ p: UnsafePointer<agoraish_channel_media_options>?, optional: Bool) throws(AgoraError)
    -> ChannelMediaOptions {
    var o = ChannelMediaOptions()
    if p == nil && optional { return o }
    guard let c = readVersioned(p, knownSizes: StructSizes.channelMediaOptions) else { throw .invalidArgument }
    func flag(_ has: Int32, _ value: Int32) -> Bool? { has != 0 ? value != 0 : nil }
    func number(_ has: Int32, _ value: Int32) -> Int32? { has != 0 ? value : nil }
    o.publishMicrophoneTrack = flag(c.has_publish_microphone_track, c.publish_microphone_track)
    o.publishCameraTrack = flag(c.has_publish_camera_track, c.publish_camera_track)
    o.publishCustomAudioTrack = flag(c.has_publish_custom_audio_track, c.publish_custom_audio_track)
    o.publishCustomAudioTrackId = number(c.has_publish_custom_audio_track_id, c.publish_custom_audio_track_id)
    o.publishCustomVideoTrack = flag(c.has_publish_custom_video_track, c.publish_custom_video_track)
    o.publishEncodedVideoTrack = flag(c.has_publish_encoded_video_track, c.publish_encoded_video_track)
    o.customVideoTrackId = number(c.has_custom_video_track_id, c.custom_video_track_id)
    o.autoSubscribeAudio = flag(c.has_auto_subscribe_audio, c.auto_subscribe_audio)
    o.autoSubscribeVideo = flag(c.has_auto_subscribe_video, c.auto_subscribe_video)
    o.enableAudioRecordingOrPlayout = flag(c.has_enable_audio_recording_or_playout, c.enable_audio_recording_or_playout)
    o.clientRoleType = number(c.has_client_role_type, c.client_role_type)
    o.channelProfile = number(c.has_channel_profile, c.channel_profile)
    o.publishMediaPlayerAudioTrack = flag(c.has_publish_media_player_audio_track, c.publish_media_player_audio_track)
    o.publishMediaPlayerVideoTrack = flag(c.has_publish_media_player_video_track, c.publish_media_player_video_track)
    o.publishMediaPlayerId = number(c.has_publish_media_player_id, c.publish_media_player_id)
    if let t = c.token {
        guard let text = readCString(t) else {
            ErrorDetail.set("token is not UTF-8")
            throw .invalidArgument
        }
        o.token = text
    }
    return o
}

/// Delivers a connection's events to its `agoraish_event_handler_ex` table.
struct CEventHandlerEx: @unchecked Sendable {
    let table: agoraish_event_handler_ex
    let userData: UnsafeMutableRawPointer?
    let key: ConnectionKey
    let handle: UInt64

    func deliver(_ event: EngineEvent) {
        let engine = OpaquePointer(bitPattern: UInt(handle))
        key.channel.withCString { channel in
            var c = agoraish_rtc_connection(struct_size: UInt32(MemoryLayout<agoraish_rtc_connection>.size),
                                            channel_id: channel, local_uid: key.uid)
            withUnsafePointer(to: &c) { deliver(event, engine, $0) }
        }
    }

    private func deliver(_ event: EngineEvent, _ engine: OpaquePointer?, _ c: UnsafePointer<agoraish_rtc_connection>) {
        let ud = userData
        let t = table
        switch event {
        case .channel(let e):
            switch e {
            case .joinChannelSuccess(_, let uid, let elapsed): t.on_join_channel_success?(engine, ud, c, uid, elapsed)
            case .rejoinChannelSuccess(_, let uid, let elapsed): t.on_rejoin_channel_success?(engine, ud, c, uid, elapsed)
            case .leaveChannel(let stats):
                var s = makeLeaveStats(stats)
                t.on_leave_channel?(engine, ud, c, &s)
            case .userJoined(let uid, let elapsed): t.on_user_joined?(engine, ud, c, uid, elapsed)
            case .userOffline(let uid, let reason): t.on_user_offline?(engine, ud, c, uid, reason)
            case .clientRoleChanged(let old, let new): t.on_client_role_changed?(engine, ud, c, old, new)
            case .connectionStateChanged(let state, let reason):
                t.on_connection_state_changed?(engine, ud, c, state.rawValue, reason.rawValue)
            case .connectionLost: t.on_connection_lost?(engine, ud, c)
            case .tokenPrivilegeWillExpire(let token):
                guard let cb = t.on_token_privilege_will_expire else { return }
                token.withCString { cb(engine, ud, c, $0) }
            case .requestToken: t.on_request_token?(engine, ud, c)
            case .error(let code, let message):
                guard let cb = t.on_error else { return }
                message.withCString { cb(engine, ud, c, code, $0) }
            case .userMuteAudio(let uid, let muted): t.on_user_mute_audio?(engine, ud, c, uid, muted ? 1 : 0)
            case .userMuteVideo(let uid, let muted): t.on_user_mute_video?(engine, ud, c, uid, muted ? 1 : 0)
            case .userEnableVideo(let uid, let enabled): t.on_user_enable_video?(engine, ud, c, uid, enabled ? 1 : 0)
            case .userEnableLocalVideo(let uid, let enabled):
                t.on_user_enable_local_video?(engine, ud, c, uid, enabled ? 1 : 0)
            case .userInfoUpdated(let uid, let account):
                var info = makeUserInfo(uid: uid, account: account)
                t.on_user_info_updated?(engine, ud, c, uid, &info)
            default: break
            }
        case .audio(let e):
            switch e {
            case .firstLocalAudioFramePublished(let elapsed): t.on_first_local_audio_frame_published?(engine, ud, c, elapsed)
            case .firstRemoteAudioDecoded(let uid, let elapsed): t.on_first_remote_audio_decoded?(engine, ud, c, uid, elapsed)
            case .firstRemoteAudioFrame(let uid, let elapsed): t.on_first_remote_audio_frame?(engine, ud, c, uid, elapsed)
            case .localAudioStateChanged(let state, let error): t.on_local_audio_state_changed?(engine, ud, c, state, error)
            case .activeSpeaker(let uid): t.on_active_speaker?(engine, ud, c, uid)
            case .remoteAudioStateChanged(let uid, let state, let reason, let elapsed):
                t.on_remote_audio_state_changed?(engine, ud, c, uid, state, reason, elapsed)
            case .audioVolumeIndication(let speakers, let total):
                guard let cb = t.on_audio_volume_indication else { return }
                var list = makeVolumeInfos(speakers)
                list.withUnsafeMutableBufferPointer { b in
                    cb(engine, ud, c, b.isEmpty ? nil : UnsafePointer(b.baseAddress), UInt32(b.count), total)
                }
            case .networkQuality(let uid, let tx, let rx): t.on_network_quality?(engine, ud, c, uid, tx, rx)
            case .rtcStats(let st):
                var s = makeRtcStats(st)
                t.on_rtc_stats?(engine, ud, c, &s)
            case .localAudioStats(let st):
                var s = makeLocalAudioStats(st)
                t.on_local_audio_stats?(engine, ud, c, &s)
            case .remoteAudioStats(let r):
                var s = makeRemoteAudioStats(r)
                t.on_remote_audio_stats?(engine, ud, c, &s)
            default: break
            }
        case .video(let e):
            switch e {
            case .firstRemoteVideoDecoded(let uid, let width, let height, let elapsed):
                t.on_first_remote_video_decoded?(engine, ud, c, uid, width, height, elapsed)
            case .remoteVideoStateChanged(let uid, let state, let reason, let elapsed):
                t.on_remote_video_state_changed?(engine, ud, c, uid, state, reason, elapsed)
            case .remoteVideoStats(let r):
                var s = makeRemoteVideoStats(r)
                t.on_remote_video_stats?(engine, ud, c, &s)
            case .snapshotTaken(let uid, let path, let width, let height, let error):
                guard let cb = t.on_snapshot_taken else { return }
                path.withCString { cb(engine, ud, c, uid, $0, width, height, error) }
            case .firstLocalVideoFramePublished(let elapsed): t.on_first_local_video_frame_published?(engine, ud, c, elapsed)
            case .videoSizeChanged(let uid, let width, let height):
                t.on_video_size_changed?(engine, ud, c, uid, width, height, 0)
            case .firstLocalVideoFrame(let width, let height, let elapsed):
                t.on_first_local_video_frame?(engine, ud, c, width, height, elapsed)
            case .firstRemoteVideoFrame(let uid, let width, let height, let elapsed):
                t.on_first_remote_video_frame?(engine, ud, c, uid, width, height, elapsed)
            case .localVideoStateChanged(let state, let error): t.on_local_video_state_changed?(engine, ud, c, state, error)
            case .localVideoStats(let st):
                var s = makeLocalVideoStats(st)
                t.on_local_video_stats?(engine, ud, c, &s)
            case .localPublishFallback(let isFallback):
                t.on_local_publish_fallback_to_audio_only?(engine, ud, c, isFallback ? 1 : 0)
            case .remoteSubscribeFallback(let uid, let isFallback):
                t.on_remote_subscribe_fallback_to_audio_only?(engine, ud, c, uid, isFallback ? 1 : 0)
            }
        case .data(let e):
            switch e {
            case .streamMessage(let uid, let streamId, let data, let sentTs):
                guard let cb = t.on_stream_message else { return }
                data.withUnsafeBufferPointer { cb(engine, ud, c, uid, streamId, $0.baseAddress, $0.count, sentTs) }
            case .streamMessageError(let uid, let streamId, let code, let missed, let cached):
                t.on_stream_message_error?(engine, ud, c, uid, streamId, code, missed, cached)
            case .audioMetadata(let uid, let data):
                guard let cb = t.on_audio_metadata_received else { return }
                data.withUnsafeBufferPointer { cb(engine, ud, c, uid, $0.baseAddress, $0.count) }
            case .encryptionError(let type):
                t.on_encryption_error?(engine, ud, c, type.rawValue)
            }
        case .apiCallExecuted, .network, .media:
            break
        }
    }
}

// MARK: - Joining and options

@_cdecl("agoraish_engine_join_channel_with_options")
public func abi_engine_join_channel_with_options(_ p: OpaquePointer?, _ token: UnsafePointer<CChar>?,
                                                 _ channel: UnsafePointer<CChar>?, _ uid: UInt32,
                                                 _ options: UnsafePointer<agoraish_channel_media_options>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        let o = try readMediaOptions(options, optional: false)
        try engine.joinChannel(token: try optionalCString(token), channel: try requiredCString(channel), uid: uid, options: o)
    }
}

@_cdecl("agoraish_engine_update_channel_media_options")
public func abi_engine_update_channel_media_options(_ p: OpaquePointer?,
                                                    _ options: UnsafePointer<agoraish_channel_media_options>?) -> Int32 {
    updateMediaOptions(p, options, .own)
}

@_cdecl("agoraish_engine_update_channel_media_options_ex")
public func abi_engine_update_channel_media_options_ex(_ p: OpaquePointer?,
                                                       _ options: UnsafePointer<agoraish_channel_media_options>?,
                                                       _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    updateMediaOptions(p, options, .named(connection))
}

private func updateMediaOptions(_ p: OpaquePointer?, _ options: UnsafePointer<agoraish_channel_media_options>?,
                                _ target: Target, function: String = #function) -> Int32 {
    withEngine(p, target, function: function) { engine throws(AgoraError) in
        try engine.updateChannelMediaOptions(try readMediaOptions(options, optional: false))
    }
}

@_cdecl("agoraish_engine_join_channel_ex")
public func abi_engine_join_channel_ex(_ p: OpaquePointer?, _ token: UnsafePointer<CChar>?,
                                       _ connection: UnsafePointer<agoraish_rtc_connection>?,
                                       _ options: UnsafePointer<agoraish_channel_media_options>?,
                                       _ handler: UnsafePointer<agoraish_event_handler_ex>?,
                                       _ userData: UnsafeMutableRawPointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        let key = try readConnection(connection)
        let o = try readMediaOptions(options, optional: true)
        var table = agoraish_event_handler_ex()
        if handler != nil {
            guard let h = readVersioned(handler, knownSizes: StructSizes.eventHandlerEx) else { throw .invalidArgument }
            table = h
        }
        let sink = CEventHandlerEx(table: table, userData: userData, key: key, handle: engineHandle(p))
        try engine.joinChannelEx(token: try optionalCString(token), connection: key, options: o) { sink.deliver($0) }
    }
}

@_cdecl("agoraish_engine_leave_channel_ex")
public func abi_engine_leave_channel_ex(_ p: OpaquePointer?, _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.leaveChannelEx(try readConnection(connection)) }
}

// MARK: - The `_ex` twins

@_cdecl("agoraish_engine_get_connection_state_ex")
public func abi_engine_get_connection_state_ex(_ p: OpaquePointer?,
                                               _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    var state: Int32 = 0
    let rc = withEngine(p, .named(connection)) { c throws(AgoraError) in state = c.connectionState.rawValue }
    return rc != 0 ? rc : state
}

@_cdecl("agoraish_engine_get_call_id_ex")
public func abi_engine_get_call_id_ex(_ p: OpaquePointer?, _ buf: UnsafeMutablePointer<CChar>?,
                                      _ len: UnsafeMutablePointer<Int>?,
                                      _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    callId(p, buf, len, .named(connection))
}

@_cdecl("agoraish_engine_get_user_info_by_uid_ex")
public func abi_engine_get_user_info_by_uid_ex(_ p: OpaquePointer?, _ uid: UInt32,
                                               _ info: UnsafeMutablePointer<agoraish_user_info>?,
                                               _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    userInfo(p, uid: uid, info, .named(connection))
}

@_cdecl("agoraish_engine_get_user_info_by_user_account_ex")
public func abi_engine_get_user_info_by_user_account_ex(_ p: OpaquePointer?, _ account: UnsafePointer<CChar>?,
                                                        _ info: UnsafeMutablePointer<agoraish_user_info>?,
                                                        _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    userInfo(p, account: account, info, .named(connection))
}

@_cdecl("agoraish_engine_mute_local_audio_stream_ex")
public func abi_engine_mute_local_audio_stream_ex(_ p: OpaquePointer?, _ mute: Int32,
                                                  _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    withEngine(p, .named(connection)) { c throws(AgoraError) in try c.muteLocalAudioStream(mute != 0) }
}

@_cdecl("agoraish_engine_mute_remote_audio_stream_ex")
public func abi_engine_mute_remote_audio_stream_ex(_ p: OpaquePointer?, _ uid: UInt32, _ mute: Int32,
                                                   _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    withEngine(p, .named(connection)) { c throws(AgoraError) in try c.muteRemoteAudioStream(uid: uid, mute: mute != 0) }
}

@_cdecl("agoraish_engine_mute_all_remote_audio_streams_ex")
public func abi_engine_mute_all_remote_audio_streams_ex(_ p: OpaquePointer?, _ mute: Int32,
                                                        _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    withEngine(p, .named(connection)) { c throws(AgoraError) in try c.muteAllRemoteAudioStreams(mute != 0) }
}

@_cdecl("agoraish_engine_adjust_user_playback_signal_volume_ex")
public func abi_engine_adjust_user_playback_signal_volume_ex(_ p: OpaquePointer?, _ uid: UInt32, _ volume: Int32,
                                                             _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    withEngine(p, .named(connection)) { c throws(AgoraError) in
        try c.adjustUserPlaybackSignalVolume(uid: uid, volume: Int(volume))
    }
}

@_cdecl("agoraish_engine_mute_remote_video_stream_ex")
public func abi_engine_mute_remote_video_stream_ex(_ p: OpaquePointer?, _ uid: UInt32, _ mute: Int32,
                                                   _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    withEngine(p, .named(connection)) { c throws(AgoraError) in try c.muteRemoteVideoStream(uid: uid, mute: mute != 0) }
}

@_cdecl("agoraish_engine_mute_all_remote_video_streams_ex")
public func abi_engine_mute_all_remote_video_streams_ex(_ p: OpaquePointer?, _ mute: Int32,
                                                        _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    withEngine(p, .named(connection)) { c throws(AgoraError) in try c.muteAllRemoteVideoStreams(mute != 0) }
}

@_cdecl("agoraish_engine_set_remote_video_stream_type_ex")
public func abi_engine_set_remote_video_stream_type_ex(_ p: OpaquePointer?, _ uid: UInt32, _ type: Int32,
                                                       _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    withEngine(p, .named(connection)) { c throws(AgoraError) in try c.setRemoteVideoStreamType(uid: uid, type: Int(type)) }
}

@_cdecl("agoraish_engine_setup_remote_video_ex")
public func abi_engine_setup_remote_video_ex(_ p: OpaquePointer?, _ canvas: UnsafePointer<agoraish_video_canvas>?,
                                             _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    setupRemoteVideo(p, canvas, .named(connection))
}

@_cdecl("agoraish_engine_take_snapshot_ex")
public func abi_engine_take_snapshot_ex(_ p: OpaquePointer?, _ uid: UInt32, _ path: UnsafePointer<CChar>?,
                                        _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    takeSnapshot(p, uid, path, .named(connection))
}

@_cdecl("agoraish_engine_create_data_stream_ex")
public func abi_engine_create_data_stream_ex(_ p: OpaquePointer?, _ streamId: UnsafeMutablePointer<Int32>?,
                                             _ config: UnsafePointer<agoraish_data_stream_config>?,
                                             _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    createDataStream(p, streamId, config, .named(connection))
}

@_cdecl("agoraish_engine_send_stream_message_ex")
public func abi_engine_send_stream_message_ex(_ p: OpaquePointer?, _ streamId: Int32, _ data: UnsafeRawPointer?,
                                              _ length: Int,
                                              _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    sendStreamMessage(p, streamId, data, length, .named(connection))
}

@_cdecl("agoraish_engine_send_audio_metadata_ex")
public func abi_engine_send_audio_metadata_ex(_ p: OpaquePointer?, _ data: UnsafeRawPointer?, _ length: Int,
                                              _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    sendAudioMetadata(p, data, length, .named(connection))
}

@_cdecl("agoraish_engine_enable_encryption_ex")
public func abi_engine_enable_encryption_ex(_ p: OpaquePointer?, _ enabled: Int32,
                                            _ config: UnsafePointer<agoraish_encryption_config>?,
                                            _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    enableEncryption(p, enabled, config, .named(connection))
}

@_cdecl("agoraish_engine_set_video_encoder_configuration_ex")
public func abi_engine_set_video_encoder_configuration_ex(
    _ p: OpaquePointer?, _ config: UnsafePointer<agoraish_video_encoder_configuration>?,
    _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    setVideoEncoderConfiguration(p, config, .named(connection))
}

@_cdecl("agoraish_engine_enable_dual_stream_mode_ex")
public func abi_engine_enable_dual_stream_mode_ex(_ p: OpaquePointer?, _ enabled: Int32,
                                                  _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    withEngine(p, .named(connection)) { c throws(AgoraError) in c.enableDualStreamMode(enabled != 0) }
}

@_cdecl("agoraish_engine_set_simulcast_config_ex")
public func abi_engine_set_simulcast_config_ex(_ p: OpaquePointer?, _ config: UnsafePointer<agoraish_simulcast_config>?,
                                               _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    simulcastConfig(p, config, .named(connection))
}

@_cdecl("agoraish_engine_mute_local_video_stream_ex")
public func abi_engine_mute_local_video_stream_ex(_ p: OpaquePointer?, _ mute: Int32,
                                                  _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    withEngine(p, .named(connection)) { c throws(AgoraError) in c.muteLocalVideoStream(mute != 0) }
}

@_cdecl("agoraish_engine_set_remote_default_video_stream_type_ex")
public func abi_engine_set_remote_default_video_stream_type_ex(
    _ p: OpaquePointer?, _ type: Int32, _ connection: UnsafePointer<agoraish_rtc_connection>?) -> Int32 {
    withEngine(p, .named(connection)) { c throws(AgoraError) in try c.setRemoteDefaultVideoStreamType(Int(type)) }
}

// MARK: - Custom audio tracks

@_cdecl("agoraish_engine_create_custom_audio_track")
public func abi_engine_create_custom_audio_track(_ p: OpaquePointer?, _ type: Int32,
                                                 _ trackId: UnsafeMutablePointer<Int32>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let trackId else { throw .invalidArgument }
        trackId.pointee = try engine.createCustomAudioTrack(type: type)
    }
}

@_cdecl("agoraish_engine_destroy_custom_audio_track")
public func abi_engine_destroy_custom_audio_track(_ p: OpaquePointer?, _ trackId: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.destroyCustomAudioTrack(trackId) }
}

@_cdecl("agoraish_engine_adjust_custom_audio_publish_volume")
public func abi_engine_adjust_custom_audio_publish_volume(_ p: OpaquePointer?, _ trackId: Int32, _ volume: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.adjustCustomAudioPublishVolume(trackId, volume: Int(volume)) }
}

@_cdecl("agoraish_engine_push_external_audio_frame_by_id")
public func abi_engine_push_external_audio_frame_by_id(_ p: OpaquePointer?, _ trackId: Int32,
                                                       _ samples: UnsafePointer<Int16>?, _ samplesPerChannel: Int32,
                                                       _ sampleRate: Int32, _ channels: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.pushCustomAudioFrame(track: trackId, samples: samples, samplesPerChannel: Int(samplesPerChannel),
                                        sampleRate: Int(sampleRate), channels: Int(channels))
    }
}

// MARK: - Custom video tracks

@_cdecl("agoraish_engine_create_custom_video_track")
public func abi_engine_create_custom_video_track(_ p: OpaquePointer?, _ trackId: UnsafeMutablePointer<Int32>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let trackId else { throw .invalidArgument }
        trackId.pointee = try engine.createCustomVideoTrack(encoded: false)
    }
}

@_cdecl("agoraish_engine_create_custom_encoded_video_track")
public func abi_engine_create_custom_encoded_video_track(_ p: OpaquePointer?,
                                                         _ trackId: UnsafeMutablePointer<Int32>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let trackId else { throw .invalidArgument }
        trackId.pointee = try engine.createCustomVideoTrack(encoded: true)
    }
}

@_cdecl("agoraish_engine_destroy_custom_video_track")
public func abi_engine_destroy_custom_video_track(_ p: OpaquePointer?, _ trackId: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.destroyCustomVideoTrack(trackId) }
}

@_cdecl("agoraish_engine_push_external_video_frame_by_id")
public func abi_engine_push_external_video_frame_by_id(_ p: OpaquePointer?,
                                                       _ frame: UnsafePointer<agoraish_external_video_frame>?,
                                                       _ trackId: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        let (source, rotation, timestamp) = try readExternalVideoFrame(frame)
        try engine.pushExternalVideoFrame(track: trackId, source, rotation: rotation, timestampMs: timestamp)
    }
}

@_cdecl("agoraish_engine_push_external_encoded_video_frame")
public func abi_engine_push_external_encoded_video_frame(_ p: OpaquePointer?, _ data: UnsafePointer<UInt8>?, _ length: Int,
                                                         _ info: UnsafePointer<agoraish_encoded_video_frame_info>?,
                                                         _ trackId: Int32) -> Int32 {
    var sent: Int32 = 0
    let rc = withEngine(p) { engine throws(AgoraError) in
        guard let data, length > 0, UInt(bitPattern: length) <= UInt(RtcEngine.maxEncodedFrameBytes),
              let i = readVersioned(info, knownSizes: StructSizes.encodedVideoFrameInfo) else { throw .invalidArgument }
        guard let codec = VideoCodec(rawValue: i.codec_type) else {
            ErrorDetail.set("codec_type \(i.codec_type) is not VP8 (1) or VP9 (5)")
            throw .invalidArgument
        }
        var frame = EncodedVideoFrameInfo()
        frame.codec = codec
        frame.width = Int(i.width)
        frame.height = Int(i.height)
        frame.frameType = i.frame_type
        frame.rotation = Int(i.rotation)
        frame.captureTimeMs = i.capture_time_ms
        sent = Int32(try engine.pushEncodedVideoFrame(track: trackId, Array(UnsafeBufferPointer(start: data, count: length)),
                                                      info: frame))
    }
    return rc != 0 ? rc : sent
}

@_cdecl("agoraish_engine_register_video_encoded_frame_observer")
public func abi_engine_register_video_encoded_frame_observer(
    _ p: OpaquePointer?, _ observer: UnsafePointer<agoraish_video_encoded_frame_observer>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard observer != nil else { return try engine.registerVideoEncodedFrameObserver(nil) }
        guard let o = readVersioned(observer, knownSizes: StructSizes.videoEncodedFrameObserver) else { throw .invalidArgument }
        guard let cb = o.on_encoded_video_frame_received else { return try engine.registerVideoEncodedFrameObserver(nil) }
        let host = EncodedObserverHost(handle: p, ud: o.user_data, callback: cb)
        try engine.registerVideoEncodedFrameObserver { data, info in host.deliver(data, info) }
    }
}

/// The C side of an encoded frame observer.
private struct EncodedObserverHost: @unchecked Sendable {
    let handle: OpaquePointer?
    let ud: UnsafeMutableRawPointer?
    let callback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UInt32, UnsafePointer<UInt8>?, Int,
                                  UnsafePointer<agoraish_encoded_video_frame_info>?) -> Void

    func deliver(_ data: [UInt8], _ info: EncodedVideoFrameInfo) {
        var c = agoraish_encoded_video_frame_info()
        c.struct_size = UInt32(MemoryLayout<agoraish_encoded_video_frame_info>.size)
        c.codec_type = info.codec.rawValue
        c.width = Int32(info.width)
        c.height = Int32(info.height)
        c.frame_type = info.frameType
        c.capture_time_ms = info.captureTimeMs
        c.uid = info.uid
        data.withUnsafeBufferPointer { b in callback(handle, ud, info.uid, b.baseAddress, b.count, &c) }
    }
}
