import AgoraishWire

/// Transport events, server messages and timers.
extension ClientSession {
    /// The WebSocket is open (handshake done).
    public mutating func transportOpened(now: Instant) {
        guard transportWanted else { return }
        transportOpen = true
        lastReceived = now
        connectDeadline = nil
        flushAccountRequests()
        guard channel != nil, !leaving, state != .failed else { return }
        if let session {
            request(.resume, Signaling.Resume(session: UInt64(session.id), resumeToken: session.resumeToken, token: token))
        } else {
            sendJoin(rejoin: joinedAt != nil)
        }
    }

    /// The WebSocket closed or could not open.
    public mutating func transportClosed(now: Instant) {
        let wasOpen = transportOpen
        connectDeadline = nil
        transportOpen = false
        nextPing = nil
        // Requests in flight die with the link; account registrations are asked again.
        for case .register(let account) in pending.values.sorted(by: { "\($0)" < "\($1)" }) {
            pendingAccounts.append(account)
        }
        pending = [:]
        guard transportWanted else { return }
        if leaving {
            finishLeave(now)
            return
        }
        guard channel != nil else {
            // Only account registrations were waiting: retry them later.
            if !pendingAccounts.isEmpty { scheduleReconnect(now) } else { transportWanted = false }
            return
        }
        guard state != .failed else { return }
        if wasOpen && state == .connected {
            lostAt = now + settings.lostTimeout
            setState(.reconnecting, .interrupted)
        }
        scheduleReconnect(now)
    }

    /// The host's network changed under the call (an address it used went
    /// away, or the media path's socket reports the network unreachable): the
    /// link is remade at once instead of after the keepalive runs out —
    /// RECONNECTING with CLIENT_IP_ADDRESS_CHANGED, then the session resumes.
    public mutating func networkChanged(now: Instant) {
        guard channel != nil, !leaving, state == .connected || state == .reconnecting, transportWanted else { return }
        if state == .connected {
            lostAt = now + settings.lostTimeout
            setState(.reconnecting, .clientIpAddressChanged)
        }
        if transportOpen {
            transportOpen = false
            connectDeadline = nil
            nextPing = nil
            pending = [:]
            transmits.append(.close)
        }
        attempt = 0
        reconnectAt = now
    }

    /// An address or link came up: a reconnect waiting for its back-off goes now.
    public mutating func networkAvailable(now: Instant) {
        guard state == .reconnecting, !transportOpen, let at = reconnectAt, at > now else { return }
        attempt = 0
        reconnectAt = now
    }

    /// A text message from the server.
    public mutating func received(_ text: String, now: Instant) {
        lastReceived = now
        stats.rxBytes += UInt64(text.utf8.count)
        stats.rxPackets += 1
        guard let fields = MessageFields(text: text), let type = fields.type else { return }
        let request = fields.id.flatMap { pending.removeValue(forKey: $0) }
        let message: SignalingEvent
        do {
            message = try SignalingEvent(fields)
        } catch {
            // A message without a field this side needs is ignored; an unreadable
            // registration answer still ends the wait for it.
            if type == Signaling.AccountRegistered.type { closeIdleTransport() }
            return
        }
        switch message {
        case .joined(let m): if !leaving { joined(m, rejoin: request == .join(rejoin: true), now) }
        case .resumed(let m): resumed(m, now)
        case .left: if request == .leave { finishLeave(now) }
        case .roleChanged(let m):
            role = m.new.rawValue
            events.append(.clientRoleChanged(old: Int32(m.old.rawValue), new: Int32(m.new.rawValue)))
        case .tokenRenewed, .pong, .preloaded, .unknown: break
        case .accountRegistered(let m):
            accountsByUid[m.uid] = m.account
            events.append(.localUserRegistered(uid: m.uid, account: m.account))
            closeIdleTransport()
        case .streamAdded(let m):
            let s = m.stream.ssrc
            streamOwners[s] = m.stream.uid
            if m.stream.low { lowVideoStreams.insert(s) } else { lowVideoStreams.remove(s) }
            videoStreamLayers[s] = m.stream.layer != 0 ? m.stream.layer : nil
            if m.stream.rtx != 0 { rtxVideoStreams[m.stream.rtx] = s }
        case .subscribeFallback(let m):
            // The server forwards only this user's audio to us now (or its video again).
            events.append(.subscribeFallback(uid: m.uid, audioOnly: m.audioOnly))
        case .userJoined(let m):
            let user = m.user
            guard user.uid != localUid, joinedAt != nil else { return }
            if let account = user.account { accountsByUid[user.uid] = account }
            if remoteUsers.insert(user.uid).inserted { events.append(.userJoined(uid: user.uid, elapsedMs: elapsed(now))) }
            remoteAudioMute(user.uid, user.audioMuted)
            remoteVideoMute(user.uid, user.videoMuted, user.video)
        case .userMuteAudio(let m):
            guard m.uid != localUid, remoteUsers.contains(m.uid) else { return }
            remoteAudioMute(m.uid, m.muted)
        case .userMuteVideo(let m):
            guard m.uid != localUid, remoteUsers.contains(m.uid) else { return }
            remoteVideoMute(m.uid, m.muted, m.switches)
        case .userInfo(let m):
            accountsByUid[m.uid] = m.account
            events.append(.userInfoUpdated(uid: m.uid, account: m.account))
        case .userOffline(let m):
            let uid = m.uid
            if remoteUsers.remove(uid) != nil { events.append(.userOffline(uid: uid, reason: Int32(clamping: m.reason))) }
            remoteAudioMuted.remove(uid)
            remoteVideoMuted.remove(uid)
            remoteVideoFlags[uid] = nil
        case .tokenWillExpire:
            events.append(.tokenPrivilegeWillExpire(token: token))
        case .tokenExpired:
            events.append(.requestToken)
            enterFailed(.tokenExpired)
        case .kicked(let m):
            let reason = m.connectionReason.flatMap { Int32(exactly: $0) }.flatMap { ConnectionChangedReason(rawValue: $0) }
            enterFailed(reason ?? .rejectedByServer)
        case .error(let m):
            // Codes are negative Agora errors; anything else reads as -1, a general failure.
            failed(request, code: m.code, reason: m.reason, now)
        }
    }

    /// Time passed: pings, reconnects, lost-link and leave deadlines.
    public mutating func handleTimeout(now: Instant) {
        if let d = leaveDeadline, now >= d { finishLeave(now) }
        if let at = reconnectAt, now >= at {
            reconnectAt = nil
            openTransport(now)
        }
        if let at = connectDeadline, now >= at {
            // The server accepted nothing or never finished the handshake.
            connectDeadline = nil
            transmits.append(.close)
            transportClosed(now: now)
        }
        if let at = lostAt, now >= at {
            lostAt = nil
            if state == .connecting || state == .reconnecting { events.append(.connectionLost) }
        }
        if transportOpen && state != .failed {
            if now - lastReceived >= silenceTimeout {
                // The server stopped answering: treat it as a broken link.
                transmits.append(.close)
                transportOpen = false
                nextPing = nil
                for case .register(let account) in pending.values { pendingAccounts.append(account) }
                pending = [:]
                if channel != nil && !leaving && state == .connected {
                    lostAt = now + settings.lostTimeout
                    setState(.reconnecting, .keepAliveTimeout)
                }
                if leaving { finishLeave(now) } else { scheduleReconnect(now) }
            } else if let p = nextPing, now >= p {
                request(.ping, Signaling.Ping())
                nextPing = now + keepaliveInterval
            }
        }
    }

    /// The next thing to do with the transport.
    public mutating func pollTransmit() -> Transmit? { transmits.isEmpty ? nil : transmits.removeFirst() }
    /// The next event for the host.
    public mutating func pollEvent() -> Event? { events.isEmpty ? nil : events.removeFirst() }
    /// When `handleTimeout` should next run.
    public func pollTimeout() -> Instant? {
        var deadlines: [Instant] = [leaveDeadline, reconnectAt, lostAt, nextPing, connectDeadline].compactMap { $0 }
        if transportOpen && channel != nil && state != .failed { deadlines.append(lastReceived + silenceTimeout) }
        return deadlines.min()
    }

    // MARK: - Steps

    mutating func joined(_ m: Signaling.Joined, rejoin: Bool, _ now: Instant) {
        guard let channel else { return }
        let uid = m.uid
        localUid = uid
        if let sid = m.session, let resumeToken = m.resumeToken { session = (sid, resumeToken) }
        callId = m.callId ?? callId
        if let ms = m.keepaliveMs, (100...600_000).contains(ms) { keepaliveInterval = .milliseconds(ms) }
        if let account = m.account {
            accountsByUid[uid] = account
            if !rejoin { events.append(.localUserRegistered(uid: uid, account: account)) }
        }
        updateMedia(m.streams, m.media)
        let first = joinedAt == nil
        if first { joinedAt = now }
        attempt = 0
        lostAt = nil
        nextPing = now + keepaliveInterval
        if first {
            setState(.connected, .joinSuccess)
            events.append(inPreCallTest ? .preCallTestStarted
                                                : .joinChannelSuccess(channel: channel, uid: uid, elapsedMs: elapsed(now)))
        } else {
            setState(.connected, .rejoinSuccess)
            if !inPreCallTest {
                events.append(.rejoinChannelSuccess(channel: channel, uid: uid, elapsedMs: elapsed(now)))
            }
        }
        reconcileUsers(m.users, now)
    }

    mutating func resumed(_ m: Signaling.Resumed, _ now: Instant) {
        guard let channel else { return }
        let uid = m.uid
        updateMedia(m.streams, m.media)
        attempt = 0
        lostAt = nil
        nextPing = now + keepaliveInterval
        setState(.connected, .rejoinSuccess)
        events.append(.rejoinChannelSuccess(channel: channel, uid: uid, elapsedMs: elapsed(now)))
        reconcileUsers(m.users, now)
    }

    /// Takes the media credentials and the stream list of joined / resumed.
    mutating func updateMedia(_ streams: [Signaling.StreamEntry]?, _ offer: MediaOffer?) {
        if let streams {
            streamOwners = [:]
            lowVideoStreams = []
            videoStreamLayers = [:]
            rtxVideoStreams = [:]
            for s in streams {
                streamOwners[s.ssrc] = s.uid
                if s.low { lowVideoStreams.insert(s.ssrc) }
                if s.layer != 0 { videoStreamLayers[s.ssrc] = s.layer }
                if s.rtx != 0 { rtxVideoStreams[s.rtx] = s.ssrc }
            }
        }
        if let endpoint = offer, endpoint != media {
            media = endpoint
            events.append(.mediaReady(endpoint))
        }
    }

    /// Brings `remoteUsers` in line with a full list from the server.
    mutating func reconcileUsers(_ list: [Signaling.UserEntry]?, _ now: Instant) {
        guard let list else { return }
        var present: [UInt32] = []
        var muted: [UInt32] = []
        var videoMuted: [UInt32] = []
        var switches: [UInt32: VideoFlags] = [:]
        for u in list {
            let uid = u.uid
            present.append(uid)
            switches[uid] = u.video
            if u.audioMuted { muted.append(uid) }
            if u.videoMuted { videoMuted.append(uid) }
            if let account = u.account, accountsByUid[uid] != account {
                accountsByUid[uid] = account
                events.append(.userInfoUpdated(uid: uid, account: account))
            }
        }
        for uid in remoteUsers.subtracting(present).sorted() {
            remoteUsers.remove(uid)
            remoteAudioMuted.remove(uid)
            remoteVideoMuted.remove(uid)
            remoteVideoFlags[uid] = nil
            events.append(.userOffline(uid: uid, reason: 1))
        }
        for uid in present where remoteUsers.insert(uid).inserted {
            events.append(.userJoined(uid: uid, elapsedMs: elapsed(now)))
        }
        for uid in present {
            remoteAudioMute(uid, muted.contains(uid))
            remoteVideoMute(uid, videoMuted.contains(uid), switches[uid])
        }
        sendAudioSettings()
    }

    mutating func failed(_ request: Request?, code: Int32, reason: String, _ now: Instant) {
        switch request {
        case .join?:
            session = nil
            let connectionReason: ConnectionChangedReason
            switch code {
            case -101: connectionReason = .invalidAppId
            case -102: connectionReason = .invalidChannelName
            case -110: connectionReason = .invalidToken
            case -109: connectionReason = .tokenExpired
            default: connectionReason = .rejectedByServer
            }
            if code == -109 { events.append(.requestToken) }
            if connectionReason == .rejectedByServer { events.append(.error(code: -code, message: reason)) }
            enterFailed(connectionReason)
        case .resume?:
            // The server no longer knows the session (it restarted, or the window passed): join again.
            session = nil
            sendJoin(rejoin: true)
        case .renew?:
            events.append(.error(code: -code, message: "renewToken: \(reason)"))
        case .setRole?:
            events.append(.error(code: -code, message: "setClientRole: \(reason)"))
        case .register?:
            events.append(.error(code: -code, message: "registerLocalUserAccount: \(reason)"))
            closeIdleTransport()
        case .leave?:
            finishLeave(now)
        case .ping?, nil:
            break
        }
    }

    mutating func scheduleReconnect(_ now: Instant) {
        let delay = settings.backoff[min(attempt, settings.backoff.count - 1)]
        attempt += 1
        reconnectAt = now + delay
    }

    /// Gives up: FAILED with `reason`. Nothing is retried until the host leaves
    /// (or renews an expired token); the link closes unless account
    /// registrations still need it.
    mutating func enterFailed(_ reason: ConnectionChangedReason) {
        session = nil
        stopMedia()
        reconnectAt = nil
        lostAt = nil
        nextPing = nil
        connectDeadline = nil
        // The call is over for this user alone: the others are still there, so
        // nobody is reported offline; the failure itself is the one event.
        forgetRemoteUsers()
        if transportWanted && pendingAccounts.isEmpty
            && !pending.values.contains(where: { if case .register = $0 { true } else { false } }) {
            transportWanted = false
            transportOpen = false
            transmits.append(.close)
        }
        setState(.failed, reason)
    }

    mutating func stopMedia() {
        guard media != nil else { return }
        media = nil
        streamOwners = [:]
        lowVideoStreams = []
        videoStreamLayers = [:]
        rtxVideoStreams = [:]
        events.append(.mediaStopped)
    }

    /// Forgets the remote users without reporting them offline.
    mutating func forgetRemoteUsers() {
        remoteUsers = []
        remoteAudioMuted = []
        remoteVideoMuted = []
        remoteVideoFlags = [:]
    }

    mutating func closeIdleTransport() {
        if channel == nil && pendingAccounts.isEmpty && pending.isEmpty && transportWanted {
            transportWanted = false
            transportOpen = false
            transmits.append(.close)
        }
    }

    /// The link counts as dead after this long without a message: the setting,
    /// or three keepalive intervals if the server asks for slow keepalives.
    var silenceTimeout: Duration {
        max(settings.silenceTimeout, keepaliveInterval * 3)
    }

    func elapsed(_ now: Instant) -> Int32 { Int32(clamping: (now - joinCalledAt).milliseconds) }
}
