import AgoraishWire

/// The API calls: each validates, changes state and queues what to send.
extension ClientSession {
    /// setChannelProfile: before joining only. 0 communication, 1 live broadcasting.
    public mutating func setChannelProfile(_ p: Int64) throws(SessionError) {
        guard p == 0 || p == 1 else { throw .invalidArgument }
        guard channel == nil || leaving else { throw .refused }
        profile = p
    }

    /// setClientRole: before joining it sets the initial role; after joining it asks the server.
    public mutating func setClientRole(_ r: Int64, now: Instant) throws(SessionError) {
        guard r == 1 || r == 2 else { throw .invalidArgument }
        guard !leaving else { throw .refused }
        guard channel != nil, state == .connected else {
            guard channel == nil else { throw .refused }  // joining or reconnecting: try again when connected
            let old = role
            role = r
            if old != r { events.append(.clientRoleChanged(old: Int32(old), new: Int32(r))) }
            return
        }
        // Already in force, or already asked for: nothing to ask, nothing to report. A change
        // still unanswered counts (the newest one): asking for the other role back right
        // after asking for one is a real change even before the server's answer arrives.
        let asked = pending.compactMap { id, kind -> (Int64, Int64)? in
            if case .setRole(let x) = kind { (id, x) } else { nil }
        }.max { $0.0 < $1.0 }?.1
        guard r != (asked ?? role) else { return }
        request(.setRole(r), Signaling.SetRole(role: ClientRole(rawValue: r)!))
    }

    /// joinChannel (uid) or joinChannelWithUserAccount (account).
    public mutating func join(token: String, channel name: String, uid: UInt32, account: String?,
                              now: Instant) throws(SessionError) {
        // A call that failed (kicked by a login with the same uid, token expired,
        // refused) may be joined again without leaving first: the user reclaims its place.
        guard channel == nil || leaving || (state == .failed && !inPreCallTest) else { throw .alreadyInChannel }
        guard TokenVerifier.isValidChannelName(name) else { throw .invalidChannelName }
        if let account {
            guard !account.isEmpty, account.utf8.count <= 255 else { throw .invalidUserAccount }
        }
        // A leave still waiting for the server's answer ends now (onLeaveChannel
        // first); the server has the leave, and the new join takes a new link.
        if leaving { finishLeave(now) }
        echoIntervalMs = nil
        probeTest = false
        channel = name
        self.token = token
        requestedUid = uid
        self.account = account
        session = nil
        joinCalledAt = now
        joinedAt = nil
        leaving = false
        stats = CallStats()
        remoteUsers = []
        remoteAudioMuted = []
        remoteVideoMuted = []
        remoteVideoFlags = [:]
        attempt = 0
        lostAt = now + settings.lostTimeout
        setState(.connecting, .connecting)
        openTransport(now)
    }

    /// startEchoTest: joins a private channel of the server's in which the
    /// user's own audio comes back after `intervalMs` (2000...10000). The join
    /// names `channel` and presents `token` (uid 0): where the app has a
    /// certificate the server checks it as for any join, though the test runs
    /// in a private channel of its own.
    public mutating func startEchoTest(intervalMs: Int, token: String = "", channel name: String = "echo",
                                       now: Instant) throws(SessionError) {
        guard (2000...10_000).contains(intervalMs) else { throw .invalidArgument }
        guard channel == nil || leaving else { throw .alreadyInChannel }
        try join(token: token, channel: name, uid: 0, account: nil, now: now)
        echoIntervalMs = intervalMs
    }

    /// startLastmileProbeTest / enableLastmileTest: joins a private channel of
    /// the server's for probing the last mile (nobody else); the join names
    /// `channel` and presents `token` (uid 0), as for the echo test.
    public mutating func startProbeTest(token: String = "", channel name: String = "probe",
                                        now: Instant) throws(SessionError) {
        guard channel == nil || leaving else { throw .alreadyInChannel }
        try join(token: token, channel: name, uid: 0, account: nil, now: now)
        probeTest = true
    }

    /// Asks the server for downlink probes: `bitrate` bps for `durationMs`.
    public mutating func requestDownlinkProbe(bitrate: Int, durationMs: Int) throws(SessionError) {
        guard probeTest, joinedAt != nil, !leaving else { throw .notInChannel }
        notify(Signaling.ProbeDownlink(bitrate: bitrate, durationMs: durationMs))
    }

    /// Leaves the probe's channel.
    public mutating func stopProbeTest(now: Instant) throws(SessionError) {
        guard probeTest, channel != nil, !leaving else { throw .notInChannel }
        try leave(now: now)
    }

    /// stopEchoTest: leaves the echo test's channel.
    public mutating func stopEchoTest(now: Instant) throws(SessionError) {
        guard echoIntervalMs != nil, channel != nil, !leaving else { throw .notInChannel }
        try leave(now: now)
    }

    /// leaveChannel: tells the server, then reports onLeaveChannel.
    public mutating func leave(now: Instant) throws(SessionError) {
        guard channel != nil, !leaving else { throw .notInChannel }
        leaving = true
        // Also when the join is still in flight: the server may already have
        // admitted the user, and must hear the leave to tell the others.
        let joinPending = pending.values.contains { if case .join = $0 { true } else { false } }
        if transportOpen && (session != nil || joinPending) {
            request(.leave, Signaling.Leave())
            leaveDeadline = now + settings.leaveTimeout
        } else {
            finishLeave(now)
        }
    }

    /// renewToken: checked by the server; in FAILED after the token expired it rejoins.
    public mutating func renewToken(_ newToken: String, now: Instant) throws(SessionError) {
        guard !newToken.isEmpty else { throw .invalidArgument }
        guard channel != nil else { throw .notInChannel }
        token = newToken
        if state == .failed && stateReason == .tokenExpired {
            session = nil
            attempt = 0
            lostAt = now + settings.lostTimeout
            setState(.reconnecting, .renewToken)
            openTransport(now)
        } else if state == .connected {
            request(.renew(newToken), Signaling.RenewToken(token: newToken))
        }
        // Connecting or reconnecting: the next join carries the new token.
    }

    /// switchChannel: live-broadcasting audience only; leaves, then joins `name`.
    public mutating func switchChannel(token newToken: String, channel name: String, now: Instant) throws(SessionError) {
        guard channel != nil, state == .connected else { throw .notInChannel }
        guard profile == 1, role == 2 else { throw .refused }
        guard TokenVerifier.isValidChannelName(name) else { throw .invalidChannelName }
        let keepAccount = account
        let keepUid = account == nil ? requestedUid : 0
        try leave(now: now)
        pendingSwitch = (newToken, name, keepUid, keepAccount)
    }

    /// registerLocalUserAccount: asks the server for the account's uid.
    public mutating func registerLocalUserAccount(_ account: String, now: Instant) throws(SessionError) {
        guard !account.isEmpty, account.utf8.count <= 255 else { throw .invalidUserAccount }
        if let uid = accountsByUid.first(where: { $0.value == account })?.key {
            events.append(.localUserRegistered(uid: uid, account: account))
            return
        }
        pendingAccounts.append(account)
        if transportOpen {
            flushAccountRequests()
        } else if !transportWanted {
            openTransport(now)
        }
    }

    /// getUserInfoByUserAccount: from what the server has told this client.
    public func uid(forAccount account: String) -> UInt32? {
        accountsByUid.first { $0.value == account }?.key
    }

    // MARK: - Shared steps

    mutating func openTransport(_ now: Instant) {
        transportWanted = true
        transportOpen = false
        connectDeadline = now + settings.connectTimeout
        transmits.append(.connect)
    }

    /// Sends a request that the server answers (its reply carries the id).
    mutating func request(_ kind: Request, _ message: some SignalingMessage) {
        let id = nextId
        nextId += 1
        pending[id] = kind
        send(message.text(id: id))
    }

    /// A message that needs no answer (the server answers only if it fails).
    mutating func notify(_ message: some SignalingMessage) {
        send(message.text())
    }

    private mutating func send(_ text: String) {
        stats.txBytes += UInt64(text.utf8.count)
        stats.txPackets += 1
        transmits.append(.send(text))
    }

    mutating func flushAccountRequests() {
        for account in pendingAccounts {
            request(.register(account), Signaling.RegisterAccount(appId: settings.appId, account: account))
        }
        pendingAccounts = []
    }

    mutating func sendJoin(rejoin: Bool) {
        // profile and role were checked by their setters (0...1, 1...2).
        request(.join(rejoin: rejoin), Signaling.Join(
            appId: settings.appId, channel: channel!, token: token,
            uid: account == nil ? (rejoin && localUid != 0 ? localUid : requestedUid) : 0, account: account,
            profile: ChannelProfile(rawValue: profile)!, role: ClientRole(rawValue: role)!,
            areaCode: settings.areaCode, echoMs: echoIntervalMs, probe: probeTest,
            fastStart: fastStart && !rejoin && echoIntervalMs == nil && !probeTest))
    }

    mutating func setState(_ s: ConnectionState, _ reason: ConnectionChangedReason) {
        guard s != state || reason != stateReason else { return }
        state = s
        stateReason = reason
        events.append(.connectionStateChanged(s, reason))
    }

    mutating func finishLeave(_ now: Instant) {
        if let joinedAt { stats.durationSeconds = UInt32(max(0, (now - joinedAt).milliseconds / 1000)) }
        stats.userCount = joinedAt == nil ? 0 : UInt32(remoteUsers.count + 1)
        let finalStats = stats
        stopMedia()
        channel = nil
        session = nil
        joinedAt = nil
        remoteUsers = []
        remoteAudioMuted = []
        remoteVideoMuted = []
        remoteVideoFlags = [:]
        leaving = false
        leaveDeadline = nil
        reconnectAt = nil
        lostAt = nil
        nextPing = nil
        pending = pending.filter { if case .register = $0.value { return true } else { return false } }
        localUid = 0
        if transportWanted && pendingAccounts.isEmpty && pending.isEmpty {
            transportWanted = false
            transportOpen = false
            transmits.append(.close)
        }
        // The leave of an echo test is its own event (the host did not join that channel).
        events.append(inPreCallTest ? .preCallTestEnded : .leaveChannel(finalStats))
        echoIntervalMs = nil
        probeTest = false
        setState(.disconnected, .leaveChannel)
        if let (t, name, uid, acct) = pendingSwitch {
            pendingSwitch = nil
            try? join(token: t, channel: name, uid: uid, account: acct, now: now)
        }
    }
}
