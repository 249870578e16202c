import AgoraishServer
import AgoraishSession
import AgoraishWire
import Testing

@Suite struct ClientSessionTests {
    @Test func joinReportsStatesThenSuccessAndSeesOthers() throws {
        var d = ClientServerDriver(clients: 2)
        try d.call(0) { try $0.join(token: "", channel: "room", uid: 11, account: nil, now: $1) }
        #expect(d.take(0) == [.connectionStateChanged(.connecting, .connecting),
                              .connectionStateChanged(.connected, .joinSuccess),
                              .joinChannelSuccess(channel: "room", uid: 11, elapsedMs: 0)])
        d.advance(.milliseconds(30))
        try d.call(1) { try $0.join(token: "", channel: "room", uid: 22, account: nil, now: $1) }
        #expect(d.take(1).suffix(2) == [.joinChannelSuccess(channel: "room", uid: 22, elapsedMs: 0),
                                        .userJoined(uid: 11, elapsedMs: 0)])
        #expect(d.take(0) == [.userJoined(uid: 22, elapsedMs: 30)])
        d.advance(.seconds(3))
        try d.call(1) { try $0.leave(now: $1) }
        let left = d.take(1)
        guard case .leaveChannel(let stats) = left.first else {
            Issue.record("no onLeaveChannel: \(left)")
            return
        }
        #expect(stats.durationSeconds == 3)
        #expect(stats.userCount == 2)
        #expect(stats.txPackets > 0 && stats.rxPackets > 0 && stats.txBytes > 0)
        #expect(left.last == .connectionStateChanged(.disconnected, .leaveChannel))
        #expect(d.take(0) == [.userOffline(uid: 22, reason: 0)])
        #expect(throws: SessionError.notInChannel) { try d.clients[1].leave(now: d.now) }
    }

    @Test func badArgumentsAreRefusedAtOnce() {
        var s = ClientSession(settings: .init(appId: "0123456789abcdef0123456789abcdef"))
        let t = Instant(nanoseconds: 0)
        #expect(throws: SessionError.invalidChannelName) { try s.join(token: "", channel: "", uid: 1, account: nil, now: t) }
        #expect(throws: SessionError.invalidChannelName) { try s.join(token: "", channel: "a/b", uid: 1, account: nil, now: t) }
        #expect(throws: SessionError.invalidUserAccount) { try s.join(token: "", channel: "ok", uid: 0, account: "", now: t) }
        #expect(throws: SessionError.invalidArgument) { try s.setClientRole(3, now: t) }
        #expect(throws: SessionError.invalidArgument) { try s.setChannelProfile(2) }
        try! s.join(token: "", channel: "ok", uid: 1, account: nil, now: t)
        #expect(throws: SessionError.alreadyInChannel) { try s.join(token: "", channel: "ok", uid: 1, account: nil, now: t) }
        #expect(throws: SessionError.refused) { try s.setChannelProfile(1) }
    }

    @Test func serverRestartLeadsToRejoinWithTheSameUid() throws {
        var d = ClientServerDriver(clients: 2)
        try d.call(0) { try $0.join(token: "", channel: "room", uid: 0, account: nil, now: $1) }
        try d.call(1) { try $0.join(token: "", channel: "room", uid: 0, account: nil, now: $1) }
        let uid0 = d.clients[0].localUid, uid1 = d.clients[1].localUid
        _ = d.take(0); _ = d.take(1)
        d.killServer()
        #expect(d.take(0) == [.connectionStateChanged(.reconnecting, .interrupted)])
        d.advance(.seconds(3))
        d.startServer()
        d.advance(.seconds(5))
        let e0 = d.take(0)
        #expect(e0.contains(.connectionStateChanged(.connected, .rejoinSuccess)))
        #expect(e0.contains { if case .rejoinChannelSuccess("room", uid0, _) = $0 { true } else { false } })
        #expect(!e0.contains(.connectionLost))
        #expect(d.clients[0].localUid == uid0 && d.clients[1].localUid == uid1)
        #expect(d.clients[0].remoteUsers == [uid1] && d.clients[1].remoteUsers == [uid0])
    }

    @Test func aServerDownPastTheLostTimeoutReportsConnectionLostOnce() throws {
        var d = ClientServerDriver(clients: 1)
        try d.call(0) { try $0.join(token: "", channel: "room", uid: 5, account: nil, now: $1) }
        _ = d.take(0)
        d.killServer()
        d.advance(.seconds(25))
        let events = d.take(0)
        #expect(events.filter { $0 == .connectionLost }.count == 1)
        #expect(d.clients[0].state == .reconnecting)
        d.startServer()
        d.advance(.seconds(5))
        #expect(d.clients[0].state == .connected)
        #expect(d.take(0).contains { if case .rejoinChannelSuccess("room", 5, _) = $0 { true } else { false } })
    }

    @Test func aBrokenLinkResumesWithoutOthersNoticing() throws {
        var d = ClientServerDriver(clients: 2)
        try d.call(0) { try $0.join(token: "", channel: "room", uid: 1, account: nil, now: $1) }
        try d.call(1) { try $0.join(token: "", channel: "room", uid: 2, account: nil, now: $1) }
        _ = d.take(0); _ = d.take(1)
        // Client 1's link drops (server still up).
        if let c = d.links.removeValue(forKey: 1) { d.core.disconnected(c, now: d.now) }
        d.clients[1].transportClosed(now: d.now)
        d.advance(.seconds(2))
        let events = d.take(1)
        #expect(events.first == .connectionStateChanged(.reconnecting, .interrupted))
        #expect(events.contains(.connectionStateChanged(.connected, .rejoinSuccess)))
        #expect(events.contains { if case .rejoinChannelSuccess("room", 2, _) = $0 { true } else { false } })
        #expect(!events.contains { if case .userOffline = $0 { true } else { false } })
        #expect(d.take(0).isEmpty)
    }

    @Test func aNetworkChangeRemakesTheLinkAtOnceAndResumes() throws {
        var d = ClientServerDriver(clients: 2)
        try d.call(0) { try $0.join(token: "", channel: "room", uid: 1, account: nil, now: $1) }
        try d.call(1) { try $0.join(token: "", channel: "room", uid: 2, account: nil, now: $1) }
        _ = d.take(0); _ = d.take(1)
        // Client 1's address went away: no waiting for the keepalive, no back-off.
        d.call(1) { s, now in s.networkChanged(now: now) }
        d.advance(.milliseconds(1))
        let events = d.take(1)
        #expect(events.first == .connectionStateChanged(.reconnecting, .clientIpAddressChanged))
        #expect(events.contains(.connectionStateChanged(.connected, .rejoinSuccess)), "\(events)")
        #expect(!events.contains { if case .userOffline = $0 { true } else { false } })
        #expect(d.take(0).isEmpty, "the others notice nothing")
        // Outside a call it does nothing.
        try d.call(1) { try $0.leave(now: $1) }
        _ = d.take(1)
        d.call(1) { s, now in s.networkChanged(now: now) }
        d.advance(.seconds(1))
        #expect(!d.take(1).contains { if case .connectionStateChanged(.reconnecting, _) = $0 { true } else { false } })
    }

    @Test func anAddressComingUpCutsTheReconnectBackOffShort() throws {
        var d = ClientServerDriver(clients: 1)
        try d.call(0) { try $0.join(token: "", channel: "room", uid: 1, account: nil, now: $1) }
        _ = d.take(0)
        d.killServer()
        d.advance(.seconds(3))
        #expect(d.take(0).first == .connectionStateChanged(.reconnecting, .interrupted))
        d.startServer()
        // Without news the next attempt would wait out its back-off; an address coming up tries now.
        d.call(0) { s, now in s.networkAvailable(now: now) }
        d.advance(.milliseconds(1))
        #expect(d.take(0).contains(.connectionStateChanged(.connected, .rejoinSuccess)))
    }

    @Test func tokenExpiryAsksForATokenAndRenewingRejoins() throws {
        let appId = "0d3723ff78bff15b898cbaa8565c4eaa", cert = "8417c227d4257030f424cee3a53e5829"
        var d = ClientServerDriver(clients: 1, appId: appId) { $0.apps[appId] = .init(certificate: cert) }
        func token(_ expire: UInt32, at offset: Int64) -> String {
            AccessToken2.build(appId: appId, certificate: cert, channel: "room", identity: .uid(9),
                               privilegeExpire: [.joinChannel: 0], expire: expire,
                               issueTs: UInt32(ClientServerDriver.unixBase + offset), salt: 3)
        }
        try d.call(0) { try $0.join(token: token(60, at: 0), channel: "room", uid: 9, account: nil, now: $1) }
        #expect(d.clients[0].state == .connected)
        _ = d.take(0)
        d.advance(.seconds(31))
        #expect(d.take(0).contains(.tokenPrivilegeWillExpire(token: token(60, at: 0))))
        d.advance(.seconds(30))
        let expired = d.take(0)
        #expect(expired.contains(.requestToken))
        #expect(expired.last == .connectionStateChanged(.failed, .tokenExpired))
        try d.call(0) { try $0.renewToken(token(600, at: 61), now: $1) }
        d.advance(.seconds(1))
        #expect(d.clients[0].state == .connected)
        // A bad token on join fails with INVALID_TOKEN.
        var bad = ClientServerDriver(clients: 1, appId: appId) { $0.apps[appId] = .init(certificate: cert) }
        try bad.call(0) { try $0.join(token: "007bogus", channel: "room", uid: 9, account: nil, now: $1) }
        #expect(bad.take(0).last == .connectionStateChanged(.failed, .invalidToken))
    }

    @Test func echoTestsAndProbesPresentATokenForTheirChannelAndUid0() throws {
        let appId = "0d3723ff78bff15b898cbaa8565c4eaa", cert = "8417c227d4257030f424cee3a53e5829"
        var d = ClientServerDriver(clients: 1, appId: appId) { $0.apps[appId] = .init(certificate: cert) }
        func token(_ channel: String, uid: UInt32 = 0) -> String {
            AccessToken2.build(appId: appId, certificate: cert, channel: channel, identity: .uid(uid),
                               privilegeExpire: [.joinChannel: 0], expire: 3600,
                               issueTs: UInt32(ClientServerDriver.unixBase), salt: 5)
        }
        /// Starts a test, then reports how its join ended and leaves it again.
        func run(_ start: (inout ClientSession, Instant) throws -> Void) throws -> ClientSession.Event? {
            try d.call(0, start)
            let events = d.take(0)
            try d.call(0) { s, now in
                if s.probeTest { try s.stopProbeTest(now: now) } else { try s.stopEchoTest(now: now) }
            }
            #expect(d.take(0).suffix(2) == [.preCallTestEnded, .connectionStateChanged(.disconnected, .leaveChannel)])
            return events.first { if case .connectionStateChanged(.connecting, _) = $0 { false } else { true } }
        }
        let refused = ClientSession.Event.connectionStateChanged(.failed, .invalidToken)
        let connected = ClientSession.Event.connectionStateChanged(.connected, .joinSuccess)

        // The echo test: its channel ("echo" unless named) and uid 0.
        #expect(try run { try $0.startEchoTest(intervalMs: 2000, now: $1) } == refused)
        #expect(try run { try $0.startEchoTest(intervalMs: 2000, token: token("echo"), now: $1) } == connected)
        #expect(try run { try $0.startEchoTest(intervalMs: 2000, token: token("echo", uid: 7), now: $1) } == refused)
        #expect(try run { try $0.startEchoTest(intervalMs: 2000, token: token("room"), now: $1) } == refused)
        #expect(try run { try $0.startEchoTest(intervalMs: 2000, token: token("room"), channel: "room", now: $1) }
                == connected)
        // The probe: the same, with "probe".
        #expect(try run { try $0.startProbeTest(now: $1) } == refused)
        #expect(try run { try $0.startProbeTest(token: token("probe"), now: $1) } == connected)
        #expect(try run { try $0.startProbeTest(token: token("lab"), now: $1) } == refused)
        #expect(try run { try $0.startProbeTest(token: token("lab"), channel: "lab", now: $1) } == connected)
        // A name that is no channel name is refused before anything is sent.
        #expect(throws: SessionError.invalidChannelName) {
            try d.clients[0].startEchoTest(intervalMs: 2000, token: "", channel: "a/b", now: d.now)
        }
        #expect(throws: SessionError.invalidChannelName) {
            try d.clients[0].startProbeTest(token: "", channel: "", now: d.now)
        }
        #expect(d.clients[0].state == .disconnected && !d.clients[0].inChannel)
    }

    @Test func theSameUidElsewhereEndsThisSession() throws {
        var d = ClientServerDriver(clients: 2)
        try d.call(0) { try $0.join(token: "", channel: "room", uid: 3, account: nil, now: $1) }
        try d.call(1) { try $0.join(token: "", channel: "room", uid: 3, account: nil, now: $1) }
        let ended = d.take(0)
        #expect(ended.last == .connectionStateChanged(.failed, .sameUidLogin))
        // The others are still in the channel: only this user's failure is reported.
        #expect(!ended.contains { if case .userOffline = $0 { true } else { false } })
        d.advance(.seconds(30))
        #expect(d.clients[0].state == .failed)
        #expect(d.clients[1].state == .connected)
    }

    @Test func accountsRegisterAndAnnounceThemselves() throws {
        var d = ClientServerDriver(clients: 2)
        try d.call(0) { try $0.registerLocalUserAccount("alice", now: $1) }
        guard case .localUserRegistered(let uid, "alice")? = d.take(0).first else {
            Issue.record("no onLocalUserRegistered")
            return
        }
        try d.call(0) { try $0.join(token: "", channel: "room", uid: 0, account: "alice", now: $1) }
        #expect(d.clients[0].localUid == uid)
        try d.call(1) { try $0.join(token: "", channel: "room", uid: 0, account: "bob", now: $1) }
        let bobUid = d.clients[1].localUid
        #expect(d.take(1).contains(.localUserRegistered(uid: bobUid, account: "bob")))
        #expect(d.take(0).suffix(2) == [.userInfoUpdated(uid: bobUid, account: "bob"), .userJoined(uid: bobUid, elapsedMs: 0)])
        #expect(d.clients[1].uid(forAccount: "alice") == uid)
        #expect(d.clients[1].accountsByUid[uid] == "alice")
    }

    @Test func audienceBecomesBroadcasterAndSwitchesChannels() throws {
        var d = ClientServerDriver(clients: 2)
        try d.call(0) { try $0.setChannelProfile(1); try $0.setClientRole(1, now: $1) }
        try d.call(1) { try $0.setChannelProfile(1); try $0.setClientRole(2, now: $1) }
        try d.call(0) { try $0.join(token: "", channel: "show", uid: 1, account: nil, now: $1) }
        try d.call(1) { try $0.join(token: "", channel: "show", uid: 2, account: nil, now: $1) }
        _ = d.take(0)
        #expect(d.take(1).contains(.userJoined(uid: 1, elapsedMs: 0)))
        try d.call(1) { try $0.setClientRole(1, now: $1) }
        #expect(d.take(1) == [.clientRoleChanged(old: 2, new: 1)])
        #expect(d.take(0) == [.userJoined(uid: 2, elapsedMs: 0)])
        try d.call(1) { try $0.setClientRole(2, now: $1) }
        #expect(d.take(0) == [.userOffline(uid: 2, reason: 2)])
        _ = d.take(1)
        try d.call(1) { try $0.switchChannel(token: "", channel: "other", now: $1) }
        let switched = d.take(1)
        #expect(switched.contains { if case .leaveChannel = $0 { true } else { false } })
        #expect(switched.contains { if case .joinChannelSuccess("other", 2, _) = $0 { true } else { false } })
        #expect(d.clients[1].remoteUsers.isEmpty)
        // A broadcaster may not switch.
        #expect(throws: SessionError.refused) { try d.clients[0].switchChannel(token: "", channel: "x", now: d.now) }
    }
}
