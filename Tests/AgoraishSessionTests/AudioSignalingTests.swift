@testable import AgoraishServer
import AgoraishSession
import AgoraishWire
import Testing

/// Audio mutes and subscriptions between clients and the signaling core, on virtual time.
@Suite struct AudioSignalingTests {
    @Test func aMuteBeforeJoiningIsLearnedByOthersAndChangesAreAnnounced() throws {
        var d = ClientServerDriver(clients: 2)
        d.clients[0].setLocalAudioMuted(true)
        try d.call(0) { try $0.join(token: "", channel: "room", uid: 11, account: nil, now: $1) }
        _ = d.take(0)
        try d.call(1) { try $0.join(token: "", channel: "room", uid: 22, account: nil, now: $1) }
        // The joiner hears of the mute with the user list.
        #expect(d.take(1).suffix(2) == [.userJoined(uid: 11, elapsedMs: 0), .userMuteAudio(uid: 11, muted: true)])
        d.call(0) { s, _ in s.setLocalAudioMuted(false) }
        #expect(d.take(1) == [.userMuteAudio(uid: 11, muted: false)])
        #expect(d.take(0) == [.userJoined(uid: 22, elapsedMs: 0)])
        d.call(1) { s, _ in s.setLocalAudioMuted(true) }
        #expect(d.take(0) == [.userMuteAudio(uid: 22, muted: true)])
        // Setting the same state again sends nothing new.
        d.call(1) { s, _ in s.setLocalAudioMuted(true) }
        #expect(d.take(0).isEmpty)
        // A user who leaves takes its mute along; one who comes back starts unmuted.
        try d.call(1) { try $0.leave(now: $1) }
        #expect(d.take(0) == [.userOffline(uid: 22, reason: 0)])
        #expect(d.clients[0].remoteAudioMuted.isEmpty)
    }

    @Test func subscriptionsReachTheServerAndFollowAgorasRules() throws {
        var d = ClientServerDriver(clients: 3)
        try d.call(0) { try $0.join(token: "", channel: "room", uid: 1, account: nil, now: $1) }
        try d.call(1) { try $0.join(token: "", channel: "room", uid: 2, account: nil, now: $1) }
        func serverSubscription(_ d: ClientServerDriver, uid: UInt32) -> AudioSubscription? {
            d.core.sessions.values.first { $0.uid == uid }?.audioSubscription
        }
        // Per user.
        try d.call(0) { s, _ in try s.muteRemoteAudio(uid: 2, true) }
        #expect(serverSubscription(d, uid: 1)?.blocks(2) == true)
        #expect(serverSubscription(d, uid: 1)?.blocks(3) == false)
        // The default applies to users who join later, not to those present.
        try d.call(0) { s, _ in try s.muteRemoteAudio(uid: 2, false) }
        d.call(0) { s, _ in s.setDefaultMuteAllRemoteAudio(true) }
        try d.call(2) { try $0.join(token: "", channel: "room", uid: 3, account: nil, now: $1) }
        let sub = try #require(serverSubscription(d, uid: 1))
        #expect(!sub.blocks(2))
        #expect(sub.blocks(3))
        #expect(!d.clients[0].receivesAudio(of: 3) && d.clients[0].receivesAudio(of: 2))
        // Mute all covers everyone; unmuting all starts afresh.
        d.call(0) { s, _ in s.muteAllRemoteAudio(true) }
        #expect(serverSubscription(d, uid: 1)?.blocks(2) == true)
        d.call(0) { s, _ in s.muteAllRemoteAudio(false) }
        #expect(serverSubscription(d, uid: 1)?.blocksNothing == true)
        // uid 0 is no user.
        #expect(throws: SessionError.invalidArgument) { try d.clients[0].muteRemoteAudio(uid: 0, true) }
    }

    @Test func settingsSurviveAServerRestart() throws {
        var d = ClientServerDriver(clients: 2)
        try d.call(0) { try $0.join(token: "", channel: "room", uid: 1, account: nil, now: $1) }
        try d.call(1) { try $0.join(token: "", channel: "room", uid: 2, account: nil, now: $1) }
        d.call(0) { s, _ in s.setLocalAudioMuted(true) }
        try d.call(1) { s, _ in try s.muteRemoteAudio(uid: 1, true) }
        d.killServer()
        d.startServer()
        d.advance(.seconds(5))
        // Rejoined on a fresh server: it knows both settings again.
        #expect(d.core.sessions.values.first { $0.uid == 1 }?.audioMuted == true)
        #expect(d.core.sessions.values.first { $0.uid == 2 }?.audioSubscription.blocks(1) == true)
    }

    @Test func theThreeVideoSwitchesAreToldApartAndStreamChoicesReachTheServer() throws {
        var d = ClientServerDriver(clients: 2)
        // Before joining: video on, stopped locally (enableLocalVideo(false)), with a low stream.
        d.clients[0].setLocalVideoState(enabled: true, localEnabled: false, streamMuted: false, ssrc: 5, lowSsrc: 6)
        try d.call(0) { try $0.join(token: "", channel: "room", uid: 11, account: nil, now: $1) }
        _ = d.take(0)
        try d.call(1) { try $0.join(token: "", channel: "room", uid: 22, account: nil, now: $1) }
        let joined = d.take(1)
        #expect(joined.contains(.userEnableLocalVideo(uid: 11, enabled: false)))
        #expect(joined.contains(.remoteVideoPaused(uid: 11, paused: true)))
        #expect(!joined.contains { if case .userMuteVideo = $0 { true } else { false } }, "\(joined)")
        #expect(d.core.sessions.values.first { $0.uid == 11 }?.videoLowSsrc == 6)
        // Local video back on, then the stream muted: each its own event.
        d.call(0) { s, _ in s.setLocalVideoState(enabled: true, localEnabled: true, streamMuted: false, ssrc: 5, lowSsrc: 6) }
        #expect(d.take(1) == [.userEnableLocalVideo(uid: 11, enabled: true), .remoteVideoPaused(uid: 11, paused: false)])
        d.call(0) { s, _ in s.setLocalVideoState(enabled: true, localEnabled: true, streamMuted: true, ssrc: 5, lowSsrc: 6) }
        #expect(d.take(1) == [.userMuteVideo(uid: 11, muted: true), .remoteVideoPaused(uid: 11, paused: true)])
        d.call(0) { s, _ in s.setLocalVideoState(enabled: false, localEnabled: true, streamMuted: true, ssrc: 5, lowSsrc: 6) }
        #expect(d.take(1) == [.userEnableVideo(uid: 11, enabled: false)])
        // Stream choices.
        try d.call(1) { s, _ in try s.setRemoteVideoStreamType(uid: 11, low: true) }
        #expect(d.core.sessions.values.first { $0.uid == 22 }?.videoSubscription.wantsLow(11) == true)
        d.call(1) { s, _ in s.setRemoteDefaultVideoStreamType(low: true) }
        try d.call(1) { s, _ in try s.setRemoteVideoStreamType(uid: 11, low: false) }
        let sub = try #require(d.core.sessions.values.first { $0.uid == 22 }?.videoSubscription)
        #expect(!sub.wantsLow(11) && sub.wantsLow(33))
        #expect(throws: SessionError.invalidArgument) { try d.clients[1].setRemoteVideoStreamType(uid: 0, low: true) }
    }

    @Test func aRoleAskedBackBeforeTheServerAnsweredTheFirstChangeIsStillAskedFor() throws {
        var d = ClientServerDriver(clients: 1)
        try d.call(0) { try $0.join(token: "", channel: "room", uid: 5, account: nil, now: $1) }
        let before = d.clients[0].role
        let other: Int64 = before == 1 ? 2 : 1
        // Both calls before any answer: the second undoes the first.
        try d.call(0) { s, now in
            try s.setClientRole(other, now: now)
            try s.setClientRole(before, now: now)
        }
        #expect(d.clients[0].role == before)
        #expect(d.core.sessions.values.first { $0.uid == 5 }?.role.rawValue == before)
        let changes = d.take(0).filter { if case .clientRoleChanged = $0 { true } else { false } }
        #expect(changes == [.clientRoleChanged(old: Int32(before), new: Int32(other)),
                            .clientRoleChanged(old: Int32(other), new: Int32(before))])
    }
}
