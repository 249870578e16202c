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
            request(.resume, ["session": .integer(session.id), "resume_token": .string(session.resumeToken),
                              "token": .string(token)], type: "resume")
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
        guard case .object(let m)? = try? JSONValue.parse(text), let type = m["type"]?.stringValue else { return }
        let id = m["id"]?.integerValue
        let request = id.flatMap { pending.removeValue(forKey: $0) }
        switch type {
        case "joined": if !leaving { joined(m, rejoin: request == .join(rejoin: true), now) }
        case "resumed": resumed(m, now)
        case "left": if request == .leave { finishLeave(now) }
        case "role_changed":
            if let old = m["old"]?.integerValue, let new = m["new"]?.integerValue {
                guard (1...2).contains(old), (1...2).contains(new) else { return }
                role = new
                events.append(.clientRoleChanged(old: Int32(old), new: Int32(new)))
            }
        case "token_renewed": break
        case "account_registered":
            if let uid = m["uid"]?.integerValue, let account = m["account"]?.stringValue {
                accountsByUid[UInt32(truncatingIfNeeded: uid)] = account
                events.append(.localUserRegistered(uid: UInt32(truncatingIfNeeded: uid), account: account))
            }
            closeIdleTransport()
        case "pong": break
        case "stream_added":
            if let uid = uidField(m), let ssrc = m["ssrc"]?.integerValue, let s = UInt32(exactly: ssrc) {
                streamOwners[s] = uid
                if m["layer"]?.stringValue == "low" { lowVideoStreams.insert(s) } else { lowVideoStreams.remove(s) }
                if let r = m["rtx_ssrc"]?.integerValue, let rtx = UInt32(exactly: r) { rtxVideoStreams[rtx] = s }
            }
        case "subscribe_fallback":
            // The server forwards only this user's audio to us now (or its video again).
            if let uid = uidField(m), let audioOnly = m["audio_only"]?.boolValue {
                events.append(.subscribeFallback(uid: uid, audioOnly: audioOnly))
            }
        case "user_joined":
            guard let uid = uidField(m), uid != localUid, joinedAt != nil else { return }
            if let account = m["account"]?.stringValue { accountsByUid[uid] = account }
            if remoteUsers.insert(uid).inserted { events.append(.userJoined(uid: uid, elapsedMs: elapsed(now))) }
            remoteAudioMute(uid, m["audio_muted"]?.boolValue ?? false)
            remoteVideoMute(uid, m["video_muted"]?.boolValue ?? false, videoSwitches(m))
        case "user_mute_audio", "user_mute_video":
            guard let uid = uidField(m), uid != localUid, remoteUsers.contains(uid),
                  let muted = m["muted"]?.boolValue else { return }
            if type == "user_mute_audio" { remoteAudioMute(uid, muted) } else { remoteVideoMute(uid, muted, m) }
        case "user_info":
            guard let uid = uidField(m), let account = m["account"]?.stringValue else { return }
            accountsByUid[uid] = account
            events.append(.userInfoUpdated(uid: uid, account: account))
        case "user_offline":
            guard let uid = uidField(m) else { return }
            let reason = Int32(clamping: m["reason"]?.integerValue ?? 0)
            if remoteUsers.remove(uid) != nil { events.append(.userOffline(uid: uid, reason: reason)) }
            remoteAudioMuted.remove(uid)
            remoteVideoMuted.remove(uid)
            remoteVideoFlags[uid] = nil
        case "token_will_expire":
            events.append(.tokenPrivilegeWillExpire(token: token))
        case "token_expired":
            events.append(.requestToken)
            enterFailed(.tokenExpired)
        case "kicked":
            let reason = m["connection_reason"]?.integerValue.flatMap { Int32(exactly: $0) }
                .flatMap { ConnectionChangedReason(rawValue: $0) }
            enterFailed(reason ?? .rejectedByServer)
        case "error":
            // Codes are negative Agora errors; anything else is treated as a general failure.
            let raw = m["code"]?.integerValue ?? -1
            let code = (-100_000 ... -1).contains(raw) ? Int32(raw) : -1
            failed(request, code: code, reason: m["reason"]?.stringValue ?? "", now)
        default:
            break
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
                request(.ping, [:], type: "ping")
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

    mutating func joined(_ m: [String: JSONValue], rejoin: Bool, _ now: Instant) {
        guard let channel, let uid = uidField(m) else { return }
        localUid = uid
        if let sid = m["session"]?.integerValue, let resumeToken = m["resume_token"]?.stringValue {
            session = (sid, resumeToken)
        }
        callId = m["call_id"]?.stringValue ?? callId
        if let ms = m["keepalive_ms"]?.integerValue, (100...600_000).contains(ms) { keepaliveInterval = .milliseconds(ms) }
        if let account = m["account"]?.stringValue {
            accountsByUid[uid] = account
            if !rejoin { events.append(.localUserRegistered(uid: uid, account: account)) }
        }
        updateMedia(m)
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
        reconcileUsers(m["users"], now)
    }

    mutating func resumed(_ m: [String: JSONValue], _ now: Instant) {
        guard let channel, let uid = uidField(m) else { return }
        updateMedia(m)
        attempt = 0
        lostAt = nil
        nextPing = now + keepaliveInterval
        setState(.connected, .rejoinSuccess)
        events.append(.rejoinChannelSuccess(channel: channel, uid: uid, elapsedMs: elapsed(now)))
        reconcileUsers(m["users"], now)
    }

    /// Takes the media credentials and the stream list of joined / resumed.
    mutating func updateMedia(_ m: [String: JSONValue]) {
        if case .array(let list)? = m["streams"] {
            streamOwners = [:]
            lowVideoStreams = []
            rtxVideoStreams = [:]
            for case .object(let s) in list {
                if let uid = uidField(s), let ssrc = s["ssrc"]?.integerValue, let v = UInt32(exactly: ssrc) {
                    streamOwners[v] = uid
                    if s["layer"]?.stringValue == "low" { lowVideoStreams.insert(v) }
                    if let r = s["rtx_ssrc"]?.integerValue, let rtx = UInt32(exactly: r) { rtxVideoStreams[rtx] = v }
                }
            }
        }
        if let endpoint = MediaEndpoint(m["media"]), endpoint != media {
            media = endpoint
            events.append(.mediaReady(endpoint))
        }
    }

    /// Brings `remoteUsers` in line with a full list from the server.
    mutating func reconcileUsers(_ value: JSONValue?, _ now: Instant) {
        guard case .array(let list)? = value else { return }
        var present: [UInt32] = []
        var muted: [UInt32] = []
        var videoMuted: [UInt32] = []
        var switches: [UInt32: [String: JSONValue]] = [:]
        for entry in list {
            guard case .object(let u) = entry, let uid = uidField(u) else { continue }
            present.append(uid)
            switches[uid] = videoSwitches(u)
            if u["audio_muted"]?.boolValue == true { muted.append(uid) }
            if u["video_muted"]?.boolValue == true { videoMuted.append(uid) }
            if let account = u["account"]?.stringValue, accountsByUid[uid] != account {
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
            remoteVideoMute(uid, videoMuted.contains(uid), switches[uid] ?? [:])
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
        dropRemoteUsers()
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
        rtxVideoStreams = [:]
        events.append(.mediaStopped)
    }

    mutating func dropRemoteUsers() {
        for uid in remoteUsers.sorted() { events.append(.userOffline(uid: uid, reason: 1)) }
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

    func uidField(_ m: [String: JSONValue]) -> UInt32? {
        guard let v = m["uid"]?.integerValue, v > 0, v <= Int64(UInt32.max) else { return nil }
        return UInt32(v)
    }
}

extension ClientSession {
    /// The video switches of a user entry or message ("video_enabled",
    /// "local_video_enabled", "video_stream_muted" in user lists), under the
    /// names `remoteVideoMute` reads.
    func videoSwitches(_ m: [String: JSONValue]) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        if let v = m["video_enabled"] { out["enabled"] = v }
        if let v = m["local_video_enabled"] { out["local_enabled"] = v }
        if let v = m["video_stream_muted"] { out["stream_muted"] = v }
        return out
    }
}
