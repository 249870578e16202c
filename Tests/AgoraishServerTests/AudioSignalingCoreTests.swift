@testable import AgoraishServer
import AgoraishWire
import Testing

@Suite struct AudioSignalingCoreTests {
    @Test func muteStateIsBroadcastAndReachesTheMediaPlane() {
        var d = CoreDriver()
        d.core.mediaEndpoint = ("127.0.0.1", 4000)
        let a = d.connect(), b = d.connect()
        _ = d.join(a, uid: 1)
        _ = d.join(b, uid: 2)
        _ = d.take(a)
        while d.core.pollMediaCommand() != nil {}
        d.send(a, ["type": .string("set_audio_state"), "muted": .bool(true)])
        let note = d.take(b)
        #expect(note.count == 1)
        #expect(note.first?["type"] == .string("user_mute_audio"))
        #expect(note.first?["uid"] == .integer(1) && note.first?["muted"] == .bool(true))
        #expect(d.take(a).isEmpty)  // no answer on success
        let sid = d.core.sessions.values.first { $0.uid == 1 }!.id
        #expect(d.core.pollMediaCommand() == .setAudioMuted(session: sid, muted: true))
        // A later joiner sees the mute in the user list.
        let c = d.connect()
        let jc = d.join(c, uid: 3)
        #expect(jc["users"] == .array([.object(["uid": .integer(1), "audio_muted": .bool(true)]),
                                      .object(["uid": .integer(2)])]))
    }

    @Test func subscriptionsAreValidatedAndForwardedToTheMediaPlane() {
        var d = CoreDriver()
        d.core.mediaEndpoint = ("127.0.0.1", 4000)
        let a = d.connect()
        _ = d.join(a, uid: 1)
        while d.core.pollMediaCommand() != nil {}
        d.send(a, ["type": .string("set_audio_subscription"), "muted": .array([.integer(2), .integer(3)])])
        let sid = d.core.sessions.values.first!.id
        var expected = AudioSubscription()
        expected.muted = [2, 3]
        #expect(d.core.pollMediaCommand() == .setAudioSubscription(session: sid, expected))
        // Bad fields are refused with -2 and change nothing.
        for bad: JSONValue in [.string("x"), .array([.integer(0)]), .array([.string("2")]),
                               .array([.integer(Int64(UInt32.max) + 1)])] {
            d.send(a, ["type": .string("set_audio_subscription"), "id": .integer(9), "muted": bad])
            #expect(d.take(a).first?["code"] == .integer(-2))
        }
        d.send(a, ["type": .string("set_audio_state"), "id": .integer(10), "muted": .string("yes")])
        #expect(d.take(a).first?["code"] == .integer(-2))
        #expect(d.core.pollMediaCommand() == nil)
        // Outside a channel: -113.
        let b = d.connect()
        d.send(b, ["type": .string("set_audio_state"), "id": .integer(1), "muted": .bool(true)])
        #expect(d.take(b).first?["code"] == .integer(-113))
    }

    @Test func aSubscriptionBlocksByTheRules() {
        var s = AudioSubscription()
        #expect(s.blocksNothing && !s.blocks(5))
        s.defaultMuted = true
        s.unmuted = [5]
        #expect(!s.blocks(5) && s.blocks(6))
        s.muted = [5]
        #expect(s.blocks(5))
        s = AudioSubscription()
        s.allMuted = true
        #expect(s.blocks(5) && !s.blocksNothing)
    }

    @Test func videoStateAndSubscriptionFollowTheAudioRules() {
        var d = CoreDriver()
        d.core.mediaEndpoint = ("127.0.0.1", 4000)
        let a = d.connect(), b = d.connect()
        _ = d.join(a, uid: 1)
        _ = d.join(b, uid: 2)
        _ = d.take(a)
        while d.core.pollMediaCommand() != nil {}
        d.send(a, ["type": .string("set_video_state"), "muted": .bool(true)])
        let note = d.take(b)
        #expect(note.first?["type"] == .string("user_mute_video") && note.first?["muted"] == .bool(true))
        let sid = d.core.sessions.values.first { $0.uid == 1 }!.id
        #expect(d.core.pollMediaCommand() == .setVideoMuted(session: sid, muted: true))
        // Audio is untouched by a video mute.
        #expect(d.core.sessions[sid]!.audioMuted == false)
        d.send(b, ["type": .string("set_video_subscription"), "muted": .array([.integer(1)])])
        let bid = d.core.sessions.values.first { $0.uid == 2 }!.id
        var expected = VideoSubscription()
        expected.muted = [1]
        #expect(d.core.pollMediaCommand() == .setVideoSubscription(session: bid, expected))
        #expect(d.core.sessions[bid]!.audioSubscription.blocksNothing)
        let c = d.connect()
        let jc = d.join(c, uid: 3)
        #expect(jc["users"] == .array([.object(["uid": .integer(1), "video_muted": .bool(true)]), .object(["uid": .integer(2)])]))
    }
}
