import AgoraishSession
import AgoraishWire

/// Channels: profile, role, join, leave, tokens, accounts (Agora's names).
extension RtcEngine {
    /// setChannelProfile: 0 communication, 1 live broadcasting; before joining only.
    public func setChannelProfile(_ profile: Int32) throws(AgoraError) {
        try run { s, _ throws(SessionError) in try s.setChannelProfile(Int64(profile)) }
        // DEFAULT means speech in communication and music in live broadcasting.
        audio.setProfile(state.withLock { $0.audioProfile }.settings(liveBroadcasting: profile == 1))
        log.log(.info, "api setChannelProfile \(profile)")
    }

    /// setClientRole: 1 broadcaster, 2 audience.
    public func setClientRole(_ role: Int32) throws(AgoraError) {
        try run { s, now throws(SessionError) in try s.setClientRole(Int64(role), now: now) }
        log.log(.info, "api setClientRole \(role)")
    }

    /// joinChannel with a uid (0: the server picks one).
    public func joinChannel(token: String, channel: String, info: String, uid: UInt32) throws(AgoraError) {
        try checkServerURL()
        endProbe()  // a join ends the last-mile test
        try run { s, now throws(SessionError) in try s.join(token: token, channel: channel, uid: uid, account: nil, now: now) }
        log.log(.info, "api joinChannel channel \(channel) uid \(uid) token \(token.isEmpty ? "none" : "given")")
    }

    /// joinChannelWithUserAccount.
    public func joinChannel(token: String, channel: String, userAccount: String) throws(AgoraError) {
        try checkServerURL()
        endProbe()
        try run { s, now throws(SessionError) in try s.join(token: token, channel: channel, uid: 0, account: userAccount, now: now) }
        log.log(.info, "api joinChannelWithUserAccount channel \(channel) account \(userAccount)")
    }

    /// startEchoTest: the user's own audio comes back after `intervalSeconds`
    /// (2...10) through the server, so the host hears its capture and playout
    /// path. Outside channels only; stopEchoTest ends it. Its private
    /// channel's join and leave are not reported as the host's. The join
    /// presents no token (see `startEchoTest(intervalSeconds:token:channel:)`).
    public func startEchoTest(intervalSeconds: Int) throws(AgoraError) {
        try startEchoTest(intervalSeconds: intervalSeconds, token: "", channel: "")
    }

    /// startEchoTest(EchoTestConfiguration) for audio: as above, and the join
    /// names `channel` ("" is "echo") and presents `token` ("" is none). Where
    /// the app has a certificate the server checks them as for any join, for
    /// uid 0 (the identity the test joins with): a refused join reports FAILED
    /// (INVALID_TOKEN or TOKEN_EXPIRED) and the test stays started until
    /// stopEchoTest. The test runs in a private channel of its own either way.
    ///
    /// In a channel the test runs beside the call in a private connection of
    /// its own (the call goes on): it uses the audio device (capture and
    /// playout), not an external source, and its connection states are not
    /// reported.
    ///
    /// - Throws: `.invalidArgument` for an interval outside 2...10 or a
    ///   `channel` that is not a valid channel name; `.refused` while an
    ///   echo test or a last-mile test or probe runs.
    public func startEchoTest(intervalSeconds: Int, token: String, channel: String) throws(AgoraError) {
        guard (2...10).contains(intervalSeconds) else { throw .invalidArgument }
        let name = channel.isEmpty ? "echo" : channel
        guard TokenVerifier.isValidChannelName(name) else { throw .invalidArgument }
        try checkServerURL()
        if owner == nil, link.read({ $0.inChannel }) {
            // In a channel, the test runs in a private connection of its own.
            guard !echoTest.withLock({ $0 }), lastmile.withLock({ $0.mode == nil }) else { throw .refused }
            let test = try privateTestConnection()
            do {
                try test.startEchoTest(intervalSeconds: intervalSeconds, token: token, channel: name)
            } catch {
                endPrivateTest()
                throw error
            }
            echoTest.withLock { $0 = true }
            log.log(.info, "api startEchoTest \(intervalSeconds) s channel \(name) (beside the call)")
            return
        }
        guard link.read({ !$0.inChannel }), lastmile.withLock({ $0.mode == nil }) else { throw .refused }
        echoTest.withLock { $0 = true }
        do {
            try link.call { s, now throws(SessionError) in
                try s.startEchoTest(intervalMs: intervalSeconds * 1000, token: token, channel: name, now: now)
            }
        } catch {
            echoTest.withLock { $0 = false }
            throw .refused
        }
        log.log(.info, "api startEchoTest \(intervalSeconds) s channel \(name) token \(token.isEmpty ? "none" : "given")")
    }

    /// stopEchoTest. - Throws: `.refused` when no echo test runs.
    public func stopEchoTest() throws(AgoraError) {
        if let test = privateTest.withLock({ $0 }), test.echoTest.withLock({ $0 }) {
            try? test.stopEchoTest()
            endPrivateTest()
            echoTest.withLock { $0 = false }
            log.log(.info, "api stopEchoTest")
            return
        }
        do {
            try link.call { s, now throws(SessionError) in try s.stopEchoTest(now: now) }
        } catch {
            throw .refused
        }
        log.log(.info, "api stopEchoTest")
    }

    /// registerLocalUserAccount; `appId` must be this engine's.
    public func registerLocalUserAccount(appId: String, userAccount: String) throws(AgoraError) {
        guard appId == configuration.appId else { throw .invalidArgument }
        try checkServerURL()
        try run { s, now throws(SessionError) in try s.registerLocalUserAccount(userAccount, now: now) }
        log.log(.info, "api registerLocalUserAccount \(userAccount)")
    }

    /// getUserInfoByUserAccount: the uid, if known.
    public func userInfo(byAccount account: String) -> UInt32? {
        link.read { $0.uid(forAccount: account) }
    }

    /// getUserInfoByUid: the account, if known.
    public func userInfo(byUid uid: UInt32) -> String? {
        link.read { $0.accountsByUid[uid] }
    }

    /// leaveChannel. Throws `.leaveChannelRejected` when not in or joining a channel.
    public func leaveChannel() throws(AgoraError) {
        do {
            try link.call { s, now throws(SessionError) in try s.leave(now: now) }
        } catch {
            throw error == .notInChannel ? .leaveChannelRejected : Self.map(error)
        }
        clearLegacySecret()
        log.log(.info, "api leaveChannel")
    }

    /// renewToken.
    public func renewToken(_ token: String) throws(AgoraError) {
        try run { s, now throws(SessionError) in try s.renewToken(token, now: now) }
        log.log(.info, "api renewToken")
    }

    /// switchChannel (live-broadcasting audience).
    public func switchChannel(token: String, channel: String) throws(AgoraError) {
        try run { s, now throws(SessionError) in try s.switchChannel(token: token, channel: channel, now: now) }
        log.log(.info, "api switchChannel \(channel)")
    }

    /// preloadChannel: prepares a later join of `channel` as `uid` with
    /// `token` (docs/quick-switch.md). The engine opens a signaling connection
    /// for it now, on which the server checks the app, the channel and the
    /// token; the join of that channel and uid (joinChannel, or
    /// joinChannelWithOptions, after leaving the current channel) then goes
    /// on that connection and asks for fast start, so that the channel's
    /// audio plays within a few tens of milliseconds. A refused token is
    /// logged and the join reports the error as usual. The newest 20
    /// preloads are kept; preloading the same channel and uid again replaces
    /// the token. A preload connection the server closes (it holds no session
    /// for longer than `authentication_ms`) is opened again.
    ///
    /// - Throws: `.invalidChannelName` for a channel name the server would refuse;
    ///   `.invalidArgument` for a token longer than 2048 bytes; `.refused` for a
    ///   server URL that may not carry tokens (checkServerURL); `.notSupported` on a connection.
    public func preloadChannel(token: String, channel: String, uid: UInt32) throws(AgoraError) {
        guard owner == nil else { throw .notSupported }
        guard TokenVerifier.isValidChannelName(channel) else { throw .invalidChannelName }
        guard token.utf8.count <= 2048 else { throw .invalidArgument }
        try checkServerURL()
        link.preload(token: token, channel: channel, uid: uid)
        log.log(.info, "api preloadChannel \(channel) uid \(uid)")
    }

    /// updatePreloadChannelToken: every preloaded channel takes `token` and is
    /// checked again for each.
    ///
    /// - Throws: `.invalidArgument` for a token longer than 2048 bytes;
    ///   `.invalidState` when nothing is preloaded; `.notSupported` on a connection.
    public func updatePreloadChannelToken(_ token: String) throws(AgoraError) {
        guard owner == nil else { throw .notSupported }
        guard token.utf8.count <= 2048 else { throw .invalidArgument }
        guard link.preloadCounts.kept > 0 else { throw .invalidState }
        link.updatePreloadToken(token)
        log.log(.info, "api updatePreloadChannelToken")
    }

    /// Channels preloaded, and of those how many the server has accepted (for tests and tools).
    public var preloadedChannels: (kept: Int, ready: Int) { link.preloadCounts }

    /// getCallId: the current or last call's id.
    public func callId() throws(AgoraError) -> String {
        guard let id = link.read({ $0.callId }) else { throw .notInChannel }
        return id
    }

    /// getConnectionState.
    public var connectionState: ConnectionState { link.read { $0.state } }

    // MARK: - Helpers

    private func run(_ body: (inout ClientSession, Instant) throws(SessionError) -> Void) throws(AgoraError) {
        do {
            try link.call(body)
        } catch {
            throw Self.map(error)
        }
    }

    /// The server URL must parse; ws:// (no TLS) is refused (-5) for a host
    /// other than loopback unless `rtc.allow_insecure_signaling` is on: on a
    /// real network its tokens, media keys and resume tokens would be readable.
    func checkServerURL() throws(AgoraError) {
        guard let url = ServerURL(serverURL) else { throw .invalidArgument }
        guard url.secure || url.isLoopback || state.withLock({ $0.allowInsecureSignaling }) else {
            log.log(.error, "ws:// to \(url.host) refused: it is not loopback, so tokens and keys would travel readable; "
                    + "use wss://, or set rtc.allow_insecure_signaling to true")
            throw .refused
        }
    }

    static func map(_ error: SessionError) -> AgoraError {
        switch error {
        case .invalidArgument: .invalidArgument
        case .invalidChannelName: .invalidChannelName
        case .invalidUserAccount: .invalidUserAccount
        case .alreadyInChannel: .joinChannelRejected
        case .notInChannel: .notInChannel
        case .refused: .refused
        }
    }
}
