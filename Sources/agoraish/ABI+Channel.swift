import AgoraishEngine
import AgoraishWire
import CAgoraishABI

// The channel functions of include/agoraish.h.

@_cdecl("agoraish_engine_set_channel_profile")
public func abi_engine_set_channel_profile(_ p: OpaquePointer?, _ profile: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setChannelProfile(profile) }
}

@_cdecl("agoraish_engine_set_client_role")
public func abi_engine_set_client_role(_ p: OpaquePointer?, _ role: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setClientRole(role) }
}

/// Reads an optional string argument: NULL is "", bytes that are not UTF-8 are -2.
func optionalCString(_ p: UnsafePointer<CChar>?) throws(AgoraError) -> String {
    guard let p else { return "" }
    guard let s = readCString(p) else { throw .invalidArgument }
    return s
}

func requiredCString(_ p: UnsafePointer<CChar>?) throws(AgoraError) -> String {
    guard let s = readCString(p) else { throw .invalidArgument }
    return s
}

@_cdecl("agoraish_engine_join_channel")
public func abi_engine_join_channel(_ p: OpaquePointer?, _ token: UnsafePointer<CChar>?, _ channel: UnsafePointer<CChar>?,
                                    _ info: UnsafePointer<CChar>?, _ uid: UInt32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.joinChannel(token: try optionalCString(token), channel: try requiredCString(channel),
                               info: try optionalCString(info), uid: uid)
    }
}

@_cdecl("agoraish_engine_join_channel_with_user_account")
public func abi_engine_join_channel_with_user_account(_ p: OpaquePointer?, _ token: UnsafePointer<CChar>?,
                                                      _ channel: UnsafePointer<CChar>?,
                                                      _ account: UnsafePointer<CChar>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        let channelName = try requiredCString(channel)
        guard let account else { throw .invalidUserAccount }  // a missing account is an invalid one
        guard let accountText = readCString(account) else { throw .invalidArgument }
        try engine.joinChannel(token: try optionalCString(token), channel: channelName, userAccount: accountText)
    }
}

@_cdecl("agoraish_engine_register_local_user_account")
public func abi_engine_register_local_user_account(_ p: OpaquePointer?, _ appId: UnsafePointer<CChar>?,
                                                   _ account: UnsafePointer<CChar>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        let app = try requiredCString(appId)
        guard let account else { throw .invalidUserAccount }
        guard let accountText = readCString(account) else { throw .invalidArgument }
        try engine.registerLocalUserAccount(appId: app, userAccount: accountText)
    }
}

@_cdecl("agoraish_engine_get_user_info_by_user_account")
public func abi_engine_get_user_info_by_user_account(_ p: OpaquePointer?, _ account: UnsafePointer<CChar>?,
                                                     _ info: UnsafeMutablePointer<agoraish_user_info>?) -> Int32 {
    userInfo(p, account: account, info, .own)
}

func userInfo(_ p: OpaquePointer?, account: UnsafePointer<CChar>?, _ info: UnsafeMutablePointer<agoraish_user_info>?,
              _ target: Target, function: String = #function) -> Int32 {
    withEngine(p, target, function: function) { engine throws(AgoraError) in
        let name = try requiredCString(account)
        guard let info, let uid = engine.userInfo(byAccount: name) else { throw .invalidArgument }
        info.pointee = makeUserInfo(uid: uid, account: name)
    }
}

@_cdecl("agoraish_engine_get_user_info_by_uid")
public func abi_engine_get_user_info_by_uid(_ p: OpaquePointer?, _ uid: UInt32,
                                            _ info: UnsafeMutablePointer<agoraish_user_info>?) -> Int32 {
    userInfo(p, uid: uid, info, .own)
}

func userInfo(_ p: OpaquePointer?, uid: UInt32, _ info: UnsafeMutablePointer<agoraish_user_info>?,
              _ target: Target, function: String = #function) -> Int32 {
    withEngine(p, target, function: function) { engine throws(AgoraError) in
        guard let info, let account = engine.userInfo(byUid: uid) else { throw .invalidArgument }
        info.pointee = makeUserInfo(uid: uid, account: account)
    }
}

@_cdecl("agoraish_engine_leave_channel")
public func abi_engine_leave_channel(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.leaveChannel() }
}

@_cdecl("agoraish_engine_renew_token")
public func abi_engine_renew_token(_ p: OpaquePointer?, _ token: UnsafePointer<CChar>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.renewToken(try requiredCString(token)) }
}

@_cdecl("agoraish_engine_switch_channel")
public func abi_engine_switch_channel(_ p: OpaquePointer?, _ token: UnsafePointer<CChar>?,
                                      _ channel: UnsafePointer<CChar>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.switchChannel(token: try optionalCString(token), channel: try requiredCString(channel))
    }
}

@_cdecl("agoraish_engine_preload_channel")
public func abi_engine_preload_channel(_ p: OpaquePointer?, _ token: UnsafePointer<CChar>?,
                                       _ channel: UnsafePointer<CChar>?, _ uid: UInt32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.preloadChannel(token: try optionalCString(token), channel: try requiredCString(channel), uid: uid)
    }
}

@_cdecl("agoraish_engine_update_preload_channel_token")
public func abi_engine_update_preload_channel_token(_ p: OpaquePointer?, _ token: UnsafePointer<CChar>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.updatePreloadChannelToken(try optionalCString(token)) }
}

@_cdecl("agoraish_engine_get_call_id")
public func abi_engine_get_call_id(_ p: OpaquePointer?, _ buf: UnsafeMutablePointer<CChar>?,
                                   _ len: UnsafeMutablePointer<Int>?) -> Int32 {
    callId(p, buf, len, .own)
}

func callId(_ p: OpaquePointer?, _ buf: UnsafeMutablePointer<CChar>?, _ len: UnsafeMutablePointer<Int>?,
            _ target: Target, function: String = #function) -> Int32 {
    var code: Int32 = 0
    let rc = withEngine(p, target, function: function) { engine throws(AgoraError) in
        guard let len else { throw .invalidArgument }
        code = writeCString(try engine.callId(), buf, len)
    }
    return rc != 0 ? rc : code
}

@_cdecl("agoraish_engine_get_connection_state")
public func abi_engine_get_connection_state(_ p: OpaquePointer?) -> Int32 {
    var state: Int32 = 0
    let rc = withEngine(p) { engine throws(AgoraError) in state = engine.connectionState.rawValue }
    return rc != 0 ? rc : state
}

@_cdecl("agoraish_engine_start_echo_test")
public func abi_engine_start_echo_test(_ p: OpaquePointer?, _ interval: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.startEchoTest(intervalSeconds: Int(interval)) }
}

@_cdecl("agoraish_engine_start_echo_test_with_config")
public func abi_engine_start_echo_test_with_config(
    _ p: OpaquePointer?, _ config: UnsafePointer<agoraish_echo_test_configuration>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let c = readVersioned(config, knownSizes: StructSizes.echoTestConfiguration),
              (2...10).contains(c.interval_in_seconds), c.enable_audio != 0 || c.enable_video != 0
        else { throw .invalidArgument }
        let token = try optionalCString(c.token)
        let channel = try optionalCString(c.channel_id)
        guard channel.isEmpty || TokenVerifier.isValidChannelName(channel) else { throw .invalidArgument }
        // Only audio is echoed: the server plays back the audio stream alone.
        guard c.enable_video == 0 else { throw .notSupported }
        try engine.startEchoTest(intervalSeconds: Int(c.interval_in_seconds), token: token, channel: channel)
    }
}

@_cdecl("agoraish_engine_start_lastmile_probe_test")
public func abi_engine_start_lastmile_probe_test(_ p: OpaquePointer?,
                                                 _ config: UnsafePointer<agoraish_lastmile_probe_config>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        // ABI 0.7 hosts pass the struct without token and channel_id (20 bytes, 4-aligned).
        guard let c = readVersioned(config, knownSizes: StructSizes.lastmileProbeConfig) else {
            throw .invalidArgument
        }
        try engine.startLastmileProbeTest(LastmileProbeConfig(
            probeUplink: c.probe_uplink != 0, probeDownlink: c.probe_downlink != 0,
            expectedUplinkBitrate: Int(c.expected_uplink_bitrate), expectedDownlinkBitrate: Int(c.expected_downlink_bitrate),
            token: try optionalCString(c.token), channel: try optionalCString(c.channel_id)))
    }
}

@_cdecl("agoraish_engine_stop_lastmile_probe_test")
public func abi_engine_stop_lastmile_probe_test(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.stopLastmileProbeTest() }
}

@_cdecl("agoraish_engine_enable_lastmile_test")
public func abi_engine_enable_lastmile_test(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.enableLastmileTest() }
}

@_cdecl("agoraish_engine_disable_lastmile_test")
public func abi_engine_disable_lastmile_test(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.disableLastmileTest() }
}

@_cdecl("agoraish_engine_stop_echo_test")
public func abi_engine_stop_echo_test(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.stopEchoTest() }
}
