import AgoraishWire

/// join, leave, set_role, renew_token, resume and register_account.
extension SignalingCore {
    mutating func join(_ f: MessageFields, _ conn: ConnectionID, _ now: Instant) throws(SignalingFailure) {
        do {
            try admitJoin(f, conn, now)
        } catch {
            events.append(.joinRejected(code: error.code, reason: error.reason))
            throw error
        }
    }

    /// Whether an app id may join: registered, or (in testing mode) any
    /// non-empty id of printable ASCII without spaces, as the engine accepts.
    func appAccepted(_ appId: String) -> ServerConfig.App? {
        guard let app = config.app(appId) else { return nil }
        let b = appId.utf8
        guard !b.isEmpty, b.count <= 128, b.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else { return nil }
        return app
    }

    private mutating func admitJoin(_ f: MessageFields, _ conn: ConnectionID, _ now: Instant) throws(SignalingFailure) {
        guard connections[conn]!.session == nil else { throw .code(-17, "already_joined") }
        // Join rate per remote address over the last second, across its connections.
        let address = connections[conn]!.address
        try takeJoinBudget(address, now: now)

        let request = try Signaling.Join(f)
        let appId = request.appId, channelName = request.channel, token = request.token
        var uid = request.uid
        let account = request.account, profile = request.profile, role = request.role
        // The echo test: a private channel of this user alone, its audio played back after the delay.
        let echoMs = request.echoMs
        // The last-mile probe: a private channel too, in which the server measures and sends probes.
        let probe = request.probe
        let privateTest = echoMs != nil || probe
        if let account {
            guard !account.isEmpty, account.utf8.count <= 255 else { throw .code(-134, "invalid_user_account") }
            guard uid == 0 else { throw .badField("uid") }
        }

        // App and channel (docs/tokens.md, the join check steps 1–2), then the token.
        guard let app = appAccepted(appId) else { throw .code(-101, "invalid_app_id") }
        guard TokenVerifier.isValidChannelName(channelName) else { throw .code(-102, "invalid_channel_name") }
        if privateTest { try checkPrivateBudget(address, app: appId) }
        let identity: TokenIdentity = account.map { .account($0) } ?? .uid(uid)
        // Echo tests and probes authenticate like any join (a token for the
        // channel they name), but their session expires with the test, not the token.
        let expiry = try checkToken(token, app: app, appId: appId, channel: channelName, identity: identity, now: now)
        let mayPublish = privateTest
            || publishAllowed(token, app: app, appId: appId, channel: channelName, identity: identity, now: now)
        // With co-host authentication, a broadcaster's token must grant publishing.
        if role == .broadcaster && profile == .liveBroadcasting && !mayPublish {
            throw .code(-119, "publish_not_authorized")
        }

        // An echo test's channel name cannot be joined otherwise (it is not a valid channel name).
        let key = ChannelKey(app: appId, name: echoMs != nil ? "\u{1}echo-\(nextSession)"
                                                : probe ? "\u{1}probe-\(nextSession)" : channelName)
        if channels[key] == nil {
            // Private sessions have a channel each but count against their own budget.
            guard privateTest || channels.count - privateSessionCount < config.maxChannels else {
                events.append(.refused(reason: "channels"))
                throw .code(-103, "too_many_channels")
            }
        } else {
            guard channels[key]!.profile == profile else { throw .code(-5, "profile_mismatch") }
        }
        if let account { uid = try accountUid(app: appId, account: account, lasting: true) }
        if uid == 0 { uid = freeUid(in: key) }

        // The same uid already present: the newer login wins (Agora's SAME_UID_LOGIN).
        if let existing = channels[key]?.members[uid], let old = sessions[existing] {
            if let oldConn = old.connection {
                send(oldConn, Signaling.Kicked(code: -17, reason: "same_uid_login", connectionReason: 19))
                outputs.append(.close(oldConn, code: 4001, reason: "same uid login"))
                detach(oldConn, now: now)
            }
            removeSession(existing, reason: .quit)
        }
        guard (channels[key]?.members.count ?? 0) < config.maxUsersPerChannel else {
            throw .code(-103, "channel_full")
        }

        let sid = nextSession
        nextSession += 1
        var session = Session(id: sid, resumeToken: randomToken(), key: key, uid: uid, account: account, role: role,
                              identity: identity, token: token, joinExpiry: privateTest ? nil : expiry,
                              connection: conn, lastSeen: now)
        session.mayPublish = mayPublish
        session.fastStart = request.fastStart && !privateTest
        session.webrtc = request.webrtc && !privateTest
        session.echoMs = echoMs ?? 0
        session.probe = probe
        session.address = address
        if privateTest {
            session.privateUntil = now + config.privateSessionLifetime
            privateSessionCount += 1
            privateSessionsByApp[appId, default: 0] += 1
            addresses[address, default: AddressState()].privateSessions += 1
        }
        sessions[sid] = session
        channels[key, default: Channel(key: key, profile: profile)].members[uid] = sid
        attach(conn, sid)
        events.append(.joined(app: appId, channel: key.name, uid: uid, session: sid))

        let reply = Signaling.Joined(
            uid: uid, session: Int64(sid), resumeToken: session.resumeToken,
            callId: "\(appId.prefix(8))-\(sid)-\(unixMillis(now))", profile: profile.rawValue, role: role.rawValue,
            users: visibleUsers(in: key, except: uid), keepaliveMs: config.keepaliveInterval.milliseconds,
            dropTimeoutMs: config.dropTimeout.milliseconds, serverTimeMs: unixMillis(now), account: account,
            tokenExpireTs: sessions[sid]!.joinExpiry, media: grantMedia(sessions[sid]!),
            streams: visibleStreams(in: key, except: uid))
        send(conn, reply, id: f.id)
        events.append(.joinAnswered(conn))
        if isVisible(sessions[sid]!) { announceJoin(sessions[sid]!) }
        // A token with 30 s or less left is announced at once (docs/tokens.md, expiry notices).
        checkSessionTimers(sid, now: now)
    }

    /// preload (Agora's preloadChannel): the checks of a join, in its order
    /// (join rate of the address, app, channel name, token), on a connection
    /// without a session; nothing is held but the connection, which the
    /// authentication timeout closes unless a join follows. Answered with
    /// `preloaded` and the join privilege's expiry.
    mutating func preload(_ f: MessageFields, _ conn: ConnectionID, _ now: Instant) throws(SignalingFailure) {
        guard connections[conn]!.session == nil else { throw .code(-17, "already_joined") }
        try takeJoinBudget(connections[conn]!.address, now: now)
        let request = try Signaling.Preload(f)
        guard let app = appAccepted(request.appId) else { throw .code(-101, "invalid_app_id") }
        guard TokenVerifier.isValidChannelName(request.channel) else { throw .code(-102, "invalid_channel_name") }
        let expiry = try checkToken(request.token, app: app, appId: request.appId, channel: request.channel,
                                    identity: .uid(request.uid), now: now)
        send(conn, Signaling.Preloaded(tokenExpireTs: expiry), id: f.id)
    }

    mutating func leave(_ f: MessageFields, _ conn: ConnectionID, _ now: Instant) throws(SignalingFailure) {
        guard let sid = connections[conn]!.session else { throw .code(-113, "not_in_channel") }
        detach(conn, now: now)
        removeSession(sid, reason: .quit)
        send(conn, Signaling.Left(), id: f.id)
    }

    mutating func setRole(_ f: MessageFields, _ conn: ConnectionID, _ now: Instant) throws(SignalingFailure) {
        guard let sid = connections[conn]!.session, let s = sessions[sid] else { throw .code(-113, "not_in_channel") }
        let role = try Signaling.SetRole(f).role
        if role == .broadcaster && channels[s.key]?.profile == .liveBroadcasting && !s.mayPublish {
            throw .code(-119, "publish_not_authorized")
        }
        let wasVisible = isVisible(s)
        let old = s.role
        sessions[sid]!.role = role
        let nowVisible = isVisible(sessions[sid]!)
        send(conn, Signaling.RoleChanged(old: old, new: role), id: f.id)
        if mediaEndpoint != nil && wasVisible != nowVisible {
            mediaCommands.append(.setPublisher(session: sid, canPublish: nowVisible && s.mayPublish))
        }
        if !wasVisible && nowVisible { announceJoin(sessions[sid]!) }
        if wasVisible && !nowVisible { announceOffline(sessions[sid]!, reason: .becomeAudience) }
    }

    mutating func renewToken(_ f: MessageFields, _ conn: ConnectionID, _ now: Instant) throws(SignalingFailure) {
        guard let sid = connections[conn]!.session, let s = sessions[sid] else { throw .code(-113, "not_in_channel") }
        let token = try Signaling.RenewToken(f).token
        guard let app = config.app(s.key.app) else { throw .code(-101, "invalid_app_id") }
        let expiry = try checkToken(token, app: app, appId: s.key.app, channel: s.key.name, identity: s.identity, now: now)
        sessions[sid]!.token = token
        sessions[sid]!.joinExpiry = expiry
        sessions[sid]!.willExpireSent = false
        let mayPublish = publishAllowed(token, app: app, appId: s.key.app, channel: s.key.name, identity: s.identity, now: now)
        if mayPublish != s.mayPublish {
            sessions[sid]!.mayPublish = mayPublish
            if mediaEndpoint != nil {
                mediaCommands.append(.setPublisher(session: sid, canPublish: mayPublish && isVisible(s)))
            }
        }
        send(conn, Signaling.TokenRenewed(tokenExpireTs: expiry), id: f.id)
        checkSessionTimers(sid, now: now)
    }

    mutating func resume(_ f: MessageFields, _ conn: ConnectionID, _ now: Instant) throws(SignalingFailure) {
        guard connections[conn]!.session == nil else { throw .code(-17, "already_joined") }
        // Resumes share the per-address rate of joins: guessing is as slow as joining.
        try takeJoinBudget(connections[conn]!.address, now: now)
        let request = try Signaling.Resume(f)
        let sid = request.session, token = request.resumeToken
        // The resume token is bound to the session's credentials: where the app
        // has a certificate, the token the session holds must come with it, so a
        // leaked resume token alone takes nothing over.
        let credential = request.token
        guard let s = sessions[sid], TokenCrypto.constantTimeEqual(Array(s.resumeToken.utf8), Array(token.utf8)),
              config.app(s.key.app)?.certificate == nil || s.privateUntil != nil
                || TokenCrypto.constantTimeEqual(Array(s.token.utf8), Array(credential.utf8)) else {
            throw .code(-113, "unknown_session")
        }
        if let old = s.connection {
            outputs.append(.close(old, code: 4002, reason: "resumed elsewhere"))
            detach(old, now: now)
        }
        sessions[sid]!.connection = conn
        sessions[sid]!.lastSeen = now
        attach(conn, sid)
        events.append(.resumed(uid: s.uid, session: sid))
        let reply = Signaling.Resumed(
            uid: s.uid, session: Int64(sid), role: s.role.rawValue, users: visibleUsers(in: s.key, except: s.uid),
            serverTimeMs: unixMillis(now), tokenExpireTs: s.joinExpiry, streams: visibleStreams(in: s.key, except: s.uid),
            media: s.media.flatMap { mediaOffer($0) })
        send(conn, reply, id: f.id)
    }

    mutating func registerAccount(_ f: MessageFields, _ conn: ConnectionID, _ now: Instant) throws(SignalingFailure) {
        let request = try Signaling.RegisterAccount(f)
        let appId = request.appId, account = request.account
        guard !account.isEmpty, account.utf8.count <= 255 else { throw .code(-134, "invalid_user_account") }
        guard appAccepted(appId) != nil else { throw .code(-101, "invalid_app_id") }
        // Registrations share the per-address rate of joins. Only a connection
        // that holds a session writes the app's lasting table; others get a
        // provisional entry (bounded, oldest dropped first) that an account join makes lasting.
        try takeJoinBudget(connections[conn]!.address, now: now)
        // Lasting only for a session of the same app that is not a private test.
        let holder = connections[conn]!.session.flatMap { sessions[$0] }
        let lasting = holder.map { $0.key.app == appId && $0.privateUntil == nil } ?? false
        let uid = try accountUid(app: appId, account: account, lasting: lasting)
        send(conn, Signaling.AccountRegistered(uid: uid, account: account), id: f.id)
    }

    // MARK: - Shared steps

    /// Runs the token check; returns the join privilege's expiry (nil in testing mode).
    mutating func checkToken(_ token: String, app: ServerConfig.App, appId: String, channel: String,
                    identity: TokenIdentity, now: Instant) throws(SignalingFailure) -> Int64? {
        guard let certificate = app.certificate else { return nil }
        let outcome = TokenVerifier.verify(token: token, appId: appId, certificate: certificate, channel: channel,
                                           identity: identity, privilege: .joinChannel, now: unixSeconds(now))
        guard outcome.code == 0 else {
            // The client learns what Agora reports (invalid or expired); how far
            // a forged token got stays in the server's log.
            events.append(.tokenRefused(detail: outcome.reason))
            throw .code(outcome.code, outcome.code == -109 ? "token_expired"
                        : outcome.code == -110 ? "invalid_token" : outcome.reason)
        }
        var expiry = outcome.privilegeExpire[.joinChannel] ?? outcome.tokenExpire!
        if app.enforcePublishPrivileges {
            for p in [TokenPrivilege.publishAudio, .publishVideo, .publishDataStream] {
                if let e = outcome.privilegeExpire[p] { expiry = min(expiry, e) }
            }
        }
        return expiry
    }

    /// In live broadcasting only broadcasters are visible to others.
    func isVisible(_ s: Session) -> Bool {
        channels[s.key]?.profile == .communication || s.role == .broadcaster
    }

    func visibleUsers(in key: ChannelKey, except uid: UInt32) -> [Signaling.UserEntry] {
        guard let ch = channels[key] else { return [] }
        return ch.members.keys.sorted().compactMap { other in
            guard other != uid, let s = sessions[ch.members[other]!], isVisible(s) else { return nil }
            return s.userEntry
        }
    }

    mutating func announceJoin(_ s: Session) {
        forEachOther(in: s.key, except: s.uid) { core, conn in
            if let a = s.account { core.send(conn, Signaling.UserInfo(uid: s.uid, account: a)) }
            core.send(conn, Signaling.UserJoined(s.userEntry))
        }
    }

    mutating func announceOffline(_ s: Session, reason: OfflineReason) {
        forEachOther(in: s.key, except: s.uid) { core, conn in
            core.send(conn, Signaling.UserOffline(uid: s.uid, reason: reason))
        }
    }

    mutating func forEachOther(in key: ChannelKey, except uid: UInt32, _ body: (inout SignalingCore, ConnectionID) -> Void) {
        guard let ch = channels[key] else { return }
        for other in ch.members.keys.sorted() where other != uid {
            if let conn = sessions[ch.members[other]!]?.connection { body(&self, conn) }
        }
    }

    /// Ends a session; others see it leave if they could see it.
    mutating func removeSession(_ sid: UInt64, reason: OfflineReason) {
        guard let s = sessions[sid] else { return }
        if isVisible(s) { announceOffline(s, reason: reason) }
        sessions[sid] = nil
        if s.privateUntil != nil {
            privateSessionCount -= 1
            privateSessionsByApp[s.key.app] = privateSessionsByApp[s.key.app].map { $0 > 1 ? $0 - 1 : nil } ?? nil
            addresses[s.address]?.privateSessions -= 1
        }
        if mediaEndpoint != nil { mediaCommands.append(.remove(session: sid)) }
        channels[s.key]?.members[s.uid] = nil
        if channels[s.key]?.members.isEmpty == true { channels[s.key] = nil }
        events.append(.left(app: s.key.app, channel: s.key.name, uid: s.uid, reason: reason))
    }

    mutating func freeUid(in key: ChannelKey) -> UInt32 {
        var uid: UInt32
        repeat { uid = UInt32(truncatingIfNeeded: rng.next()) } while uid == 0 || channels[key]?.members[uid] != nil
        return uid
    }

    mutating func randomToken() -> String {
        TokenCrypto.base64Encode(random(24))
    }

    /// Creates the participant's media credentials, queues its admission, and
    /// returns the "media" object of the joined reply (nil without a media plane).
    mutating func grantMedia(_ s: Session) -> MediaOffer? {
        guard let endpoint = mediaEndpoint else { return nil }
        // ICE ufrag: 4+ characters, password: 22+ characters of ice-char (RFC 8839 §5.4).
        let ufrag = iceText(random(6))
        let password = iceText(random(18))
        let uplink = random(srtpProfile.keyingLength)
        let downlink = random(srtpProfile.keyingLength)
        var grant = MediaGrant(
            session: s.id, app: s.key.app, channel: s.key.name, uid: s.uid, iceUfrag: ufrag, icePassword: password,
            srtpProfile: srtpProfile, uplinkKeying: uplink, downlinkKeying: downlink,
            canPublish: isVisible(s) && s.mayPublish)
        grant.echoDelayMs = s.echoMs
        grant.fastStart = s.fastStart
        grant.webrtc = s.webrtc
        sessions[s.id]?.media = grant
        mediaCommands.append(.admit(grant))
        _ = endpoint
        return mediaOffer(grant)
    }

    /// The "media" object of joined and resumed replies for a grant.
    func mediaOffer(_ grant: MediaGrant) -> MediaOffer? {
        guard let endpoint = mediaEndpoint else { return nil }
        return MediaOffer(host: endpoint.host, port: endpoint.port, iceUfrag: grant.iceUfrag,
                          icePassword: grant.icePassword, srtpProfile: grant.srtpProfile,
                          uplinkKeying: grant.uplinkKeying, downlinkKeying: grant.downlinkKeying)
    }

    /// Re-admits every session's media (a restarted media plane knows nobody).
    public mutating func readmitMedia() {
        for sid in sessions.keys.sorted() {
            guard let s = sessions[sid], var grant = s.media else { continue }
            grant.canPublish = isVisible(s) && s.mayPublish
            grant.audioMuted = s.audioMuted
            grant.audioSubscription = s.audioSubscription
            grant.videoMuted = s.videoMuted
            grant.videoSubscription = s.videoSubscription
            grant.videoLowSsrc = s.videoLowSsrc
            grant.videoLayers = s.videoLayers
            grant.videoRtx = s.videoRtx.merging(s.audioRtx) { a, _ in a }
            mediaCommands.append(.admit(grant))
        }
    }

    /// Whether the token lets the user publish: always, unless the app enforces
    /// publish privileges (co-host authentication); then audio or video publishing
    /// must be granted and not expired.
    func publishAllowed(_ token: String, app: ServerConfig.App, appId: String, channel: String,
                        identity: TokenIdentity, now: Instant) -> Bool {
        guard app.enforcePublishPrivileges, let certificate = app.certificate else { return true }
        return [TokenPrivilege.publishAudio, .publishVideo].contains { p in
            TokenVerifier.verify(token: token, appId: appId, certificate: certificate, channel: channel,
                                 identity: identity, privilege: p, now: unixSeconds(now)).code == 0
        }
    }

    /// Streams of visible users, for a joiner.
    func visibleStreams(in key: ChannelKey, except uid: UInt32) -> [Signaling.StreamEntry] {
        guard let ch = channels[key] else { return [] }
        return ch.members.keys.sorted().flatMap { other -> [Signaling.StreamEntry] in
            guard other != uid, let s = sessions[ch.members[other]!], isVisible(s) else { return [] }
            return s.streams.map { $0.entry(uid: other) }
        }
    }

    /// Base64 without the characters ICE does not allow ('=' padding); '+' and '/' are ice-chars.
    func iceText(_ bytes: [UInt8]) -> String {
        String(TokenCrypto.base64Encode(bytes).filter { $0 != "=" })
    }
}
