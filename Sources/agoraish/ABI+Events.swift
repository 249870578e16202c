import AgoraishEngine
import AgoraishSession
import CAgoraishABI
import Glibc

extension CEventHandler {
    /// Calls the C callback of a channel event, if the host set one.
    func deliverChannel(_ event: ClientSession.Event, _ engine: OpaquePointer?) {
        let ud = table.user_data
        switch event {
        case .joinChannelSuccess(let channel, let uid, let elapsed):
            guard let cb = table.on_join_channel_success else { return }
            channel.withCString { cb(engine, ud, $0, uid, elapsed) }
        case .rejoinChannelSuccess(let channel, let uid, let elapsed):
            guard let cb = table.on_rejoin_channel_success else { return }
            channel.withCString { cb(engine, ud, $0, uid, elapsed) }
        case .leaveChannel(let stats):
            guard let cb = table.on_leave_channel else { return }
            var s = makeLeaveStats(stats)
            cb(engine, ud, &s)
        case .userJoined(let uid, let elapsed):
            table.on_user_joined?(engine, ud, uid, elapsed)
        case .userOffline(let uid, let reason):
            table.on_user_offline?(engine, ud, uid, reason)
        case .clientRoleChanged(let old, let new):
            table.on_client_role_changed?(engine, ud, old, new)
        case .connectionStateChanged(let state, let reason):
            table.on_connection_state_changed?(engine, ud, state.rawValue, reason.rawValue)
        case .connectionLost:
            table.on_connection_lost?(engine, ud)
        case .tokenPrivilegeWillExpire(let token):
            guard let cb = table.on_token_privilege_will_expire else { return }
            token.withCString { cb(engine, ud, $0) }
        case .requestToken:
            table.on_request_token?(engine, ud)
        case .localUserRegistered(let uid, let account):
            guard let cb = table.on_local_user_registered else { return }
            account.withCString { cb(engine, ud, uid, $0) }
        case .userInfoUpdated(let uid, let account):
            guard let cb = table.on_user_info_updated else { return }
            var info = makeUserInfo(uid: uid, account: account)
            cb(engine, ud, uid, &info)
        case .error(let code, let message):
            guard let cb = table.on_error else { return }
            message.withCString { cb(engine, ud, code, $0) }
        case .userMuteAudio(let uid, let muted):
            table.on_user_mute_audio?(engine, ud, uid, muted ? 1 : 0)
        case .userMuteVideo(let uid, let muted):
            table.on_user_mute_video?(engine, ud, uid, muted ? 1 : 0)
        case .userEnableVideo(let uid, let enabled):
            table.on_user_enable_video?(engine, ud, uid, enabled ? 1 : 0)
        case .userEnableLocalVideo(let uid, let enabled):
            table.on_user_enable_local_video?(engine, ud, uid, enabled ? 1 : 0)
        case .mediaReady, .mediaStopped, .remoteVideoPaused, .preCallTestStarted, .preCallTestEnded, .subscribeFallback:
            break  // internal: the engine's media transport follows them
        }
    }
}

/// A C UserInfo for `uid` and `account` (truncated to 255 bytes at a UTF-8 boundary).
func makeUserInfo(uid: UInt32, account: String) -> agoraish_user_info {
    var info = agoraish_user_info()
    info.uid = uid
    var bytes = Array(account.utf8)
    if bytes.count > 255 {
        // Cut at 255 bytes, then back off to the start of the character that was split.
        var end = 255
        while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
        bytes = Array(bytes[0..<end])
    }
    withUnsafeMutableBytes(of: &info.user_account) { raw in
        for (i, b) in bytes.enumerated() { raw[i] = b }
        raw[bytes.count] = 0
    }
    return info
}

/// A C RtcStats from the engine's.
func makeRtcStats(_ st: RtcStats) -> agoraish_rtc_stats {
    var s = agoraish_rtc_stats()
    s.struct_size = UInt32(MemoryLayout<agoraish_rtc_stats>.size)
    s.duration = st.duration
    s.tx_bytes = st.txBytes
    s.rx_bytes = st.rxBytes
    s.tx_packets = st.txPackets
    s.rx_packets = st.rxPackets
    s.user_count = st.userCount
    s.tx_kbitrate = st.txKBitRate
    s.tx_audio_bytes = st.txAudioBytes
    s.rx_audio_bytes = st.rxAudioBytes
    s.rx_kbitrate = st.rxKBitRate
    s.tx_audio_kbitrate = st.txAudioKBitRate
    s.rx_audio_kbitrate = st.rxAudioKBitRate
    s.memory_app_usage_kb = st.memoryAppUsageInKbytes
    s.cpu_app_usage = st.cpuAppUsage
    s.tx_video_kbitrate = st.txVideoKBitRate
    s.rx_video_kbitrate = st.rxVideoKBitRate
    s.gateway_rtt = st.gatewayRtt
    s.lastmile_delay = st.lastmileDelay
    s.tx_packet_loss_rate = st.txPacketLossRate
    s.rx_packet_loss_rate = st.rxPacketLossRate
    return s
}

extension CEventHandler {
    /// Calls the C callback of an audio event, if the host set one.
    func deliverAudio(_ event: AudioEvent, _ engine: OpaquePointer?) {
        let ud = table.user_data
        switch event {
        case .firstLocalAudioFramePublished(let elapsed):
            table.on_first_local_audio_frame_published?(engine, ud, elapsed)
        case .firstRemoteAudioFrame(let uid, let elapsed):
            table.on_first_remote_audio_frame?(engine, ud, uid, elapsed)
        case .firstRemoteAudioDecoded(let uid, let elapsed):
            table.on_first_remote_audio_decoded?(engine, ud, uid, elapsed)
        case .localAudioStateChanged(let state, let error):
            table.on_local_audio_state_changed?(engine, ud, state, error)
        case .remoteAudioStateChanged(let uid, let state, let reason, let elapsed):
            table.on_remote_audio_state_changed?(engine, ud, uid, state, reason, elapsed)
        case .audioVolumeIndication(let speakers, let total):
            guard let cb = table.on_audio_volume_indication else { return }
            var list = makeVolumeInfos(speakers)
            list.withUnsafeMutableBufferPointer { b in
                cb(engine, ud, b.isEmpty ? nil : UnsafePointer(b.baseAddress), UInt32(b.count), total)
            }
        case .activeSpeaker(let uid):
            table.on_active_speaker?(engine, ud, uid)
        case .networkQuality(let uid, let tx, let rx):
            table.on_network_quality?(engine, ud, uid, tx, rx)
        case .rtcStats(let st):
            guard let cb = table.on_rtc_stats else { return }
            var s = makeRtcStats(st)
            cb(engine, ud, &s)
        case .localAudioStats(let st):
            guard let cb = table.on_local_audio_stats else { return }
            var s = makeLocalAudioStats(st)
            cb(engine, ud, &s)
        case .remoteAudioStats(let r):
            guard let cb = table.on_remote_audio_stats else { return }
            var s = makeRemoteAudioStats(r)
            cb(engine, ud, &s)
        }
    }
}

/// The C form of onLocalAudioStats' statistics.
func makeLocalAudioStats(_ st: LocalAudioStats) -> agoraish_local_audio_stats {
    var s = agoraish_local_audio_stats()
    s.struct_size = UInt32(MemoryLayout<agoraish_local_audio_stats>.size)
    s.num_channels = st.numChannels
    s.sent_sample_rate = st.sentSampleRate
    s.sent_bitrate = st.sentBitrate
    s.tx_packet_loss_rate = st.txPacketLossRate
    s.aec_estimated_delay = st.aecEstimatedDelay
    s.audio_processing = st.audioProcessing
    s.echo_return_loss_enhancement = st.echoReturnLossEnhancement
    s.voice_effects = st.voiceEffects ? 1 : 0
    return s
}

/// The C form of onRemoteAudioStats' statistics.
func makeRemoteAudioStats(_ r: RemoteAudioStats) -> agoraish_remote_audio_stats {
    var s = agoraish_remote_audio_stats()
    s.struct_size = UInt32(MemoryLayout<agoraish_remote_audio_stats>.size)
    s.uid = r.uid
    s.quality = r.quality
    s.network_transport_delay = r.networkTransportDelay
    s.jitter_buffer_delay = r.jitterBufferDelay
    s.audio_loss_rate = r.audioLossRate
    s.num_channels = r.numChannels
    s.received_sample_rate = r.receivedSampleRate
    s.received_bitrate = r.receivedBitrate
    s.total_frozen_time = r.totalFrozenTime
    s.frozen_rate = r.frozenRate
    s.total_active_time = r.totalActiveTime
    s.fec_recovered_frames = r.fecRecoveredFrames
    s.concealed_frames = r.concealedFrames
    s.end_to_end_delay = r.endToEndDelay
    return s
}

/// The C statistics of onLeaveChannel.
func makeLeaveStats(_ stats: CallStats) -> agoraish_rtc_stats {
    var st = RtcStats()
    st.duration = stats.durationSeconds
    st.txBytes = stats.txBytes
    st.rxBytes = stats.rxBytes
    st.txPackets = stats.txPackets
    st.rxPackets = stats.rxPackets
    st.userCount = stats.userCount
    st.txAudioBytes = stats.mediaTxBytes
    st.rxAudioBytes = stats.mediaRxBytes
    return makeRtcStats(st)
}

/// The C speakers of onAudioVolumeIndication.
func makeVolumeInfos(_ speakers: [AudioVolumeInfo]) -> [agoraish_audio_volume_info] {
    speakers.map { agoraish_audio_volume_info(uid: $0.uid, volume: UInt32($0.volume), vad: UInt32($0.vad)) }
}
