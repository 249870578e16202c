import AgoraishSession
import CAgoraishABI
import Glibc

/// The size of `agoraish_event_handler` in ABI 0.1: struct_size, user_data,
/// on_api_call_executed (AGORAISH_EVENT_HANDLER_SIZE_0_1 in the header).
let eventHandlerSize_0_1 = MemoryLayout<agoraish_event_handler>.offset(of: \.on_join_channel_success)!

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
            var s = agoraish_rtc_stats()
            s.struct_size = UInt32(MemoryLayout<agoraish_rtc_stats>.size)
            s.duration = stats.durationSeconds
            s.tx_bytes = stats.txBytes
            s.rx_bytes = stats.rxBytes
            s.tx_packets = stats.txPackets
            s.rx_packets = stats.rxPackets
            s.user_count = stats.userCount
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
        case .mediaReady, .mediaStopped:
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
