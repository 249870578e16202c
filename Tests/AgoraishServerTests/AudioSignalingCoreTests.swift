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

    @Test func videoSwitchesLowStreamAndStreamChoicesReachOthersAndTheMediaPlane() {
        var d = CoreDriver()
        d.core.mediaEndpoint = ("127.0.0.1", 4000)
        let a = d.connect(), b = d.connect()
        _ = d.join(a, uid: 1)
        _ = d.join(b, uid: 2)
        _ = d.take(a)
        while d.core.pollMediaCommand() != nil {}
        let sid = d.core.sessions.values.first { $0.uid == 1 }!.id
        // disableVideo: muted, with the switch behind it; dual stream announced.
        d.send(a, ["type": .string("set_video_state"), "muted": .bool(true), "enabled": .bool(false),
                   "local_enabled": .bool(true), "stream_muted": .bool(false), "ssrc": .integer(7),
                   "low_ssrc": .integer(9)])
        let note = d.take(b).first
        #expect(note?["type"] == .string("user_mute_video") && note?["muted"] == .bool(true))
        #expect(note?["enabled"] == .bool(false) && note?["local_enabled"] == .bool(true)
                && note?["stream_muted"] == .bool(false))
        var commands: [SignalingCore.MediaCommand] = []
        while let c = d.core.pollMediaCommand() { commands.append(c) }
        #expect(commands == [.setVideoLowStream(session: sid, ssrc: 9), .setVideoMuted(session: sid, muted: true)])
        // The same state again: nothing; a switch change alone is still told.
        d.send(a, ["type": .string("set_video_state"), "muted": .bool(true), "enabled": .bool(false),
                   "local_enabled": .bool(true), "stream_muted": .bool(false), "low_ssrc": .integer(9)])
        #expect(d.take(b).isEmpty && d.core.pollMediaCommand() == nil)
        d.send(a, ["type": .string("set_video_state"), "muted": .bool(true), "enabled": .bool(false),
                   "local_enabled": .bool(false), "stream_muted": .bool(false)])
        #expect(d.take(b).first?["local_enabled"] == .bool(false))
        #expect(d.core.pollMediaCommand() == nil, "the media plane only cares about muted")
        // A bad low SSRC is refused, and the switches that came with it are not taken.
        d.send(a, ["type": .string("set_video_state"), "id": .integer(3), "muted": .bool(true), "enabled": .bool(true),
                   "local_enabled": .bool(true), "stream_muted": .bool(true), "low_ssrc": .integer(-1)])
        #expect(d.take(a).first?["code"] == .integer(-2))
        #expect(d.take(b).isEmpty)
        #expect(d.core.sessions[sid]!.videoSwitches.map { $0.localEnabled } == false)
        // A stream first seen as high and then named low is announced again, as low.
        d.core.streamPublished(session: sid, ssrc: 5678, payloadType: 96, low: false)
        d.core.streamPublished(session: sid, ssrc: 5678, payloadType: 0, low: true)
        d.drain()
        let again = d.take(b).filter { $0["type"] == .string("stream_added") }
        #expect(again.count == 2 && again.last?["layer"] == .string("low") && again.last?["payload_type"] == .integer(96))
        d.core.streamPublished(session: sid, ssrc: 9999, payloadType: 0, low: true)
        d.drain()
        #expect(d.take(b).isEmpty, "an unknown stream is not invented by a late low mark")
        // Stream choices travel with the video subscription.
        d.send(b, ["type": .string("set_video_subscription"), "low": .array([.integer(1)]), "default_low": .bool(true),
                   "high": .array([.integer(3)])])
        let bid = d.core.sessions.values.first { $0.uid == 2 }!.id
        var expected = VideoSubscription()
        expected.lowStream = [1]
        expected.highStream = [3]
        expected.defaultLow = true
        #expect(d.core.pollMediaCommand() == .setVideoSubscription(session: bid, expected))
        #expect(expected.wantsLow(1) && !expected.wantsLow(3) && expected.wantsLow(4))
        // A later joiner sees the switches in the user list; the low stream is marked in stream lists.
        d.core.streamPublished(session: sid, ssrc: 1234, payloadType: 96, low: true)
        d.drain()
        let added = d.take(b)
        #expect(added.first { $0["type"] == .string("stream_added") }?["layer"] == .string("low"), "\(added)")
        let c = d.connect()
        let jc = d.join(c, uid: 3)
        #expect(jc["users"] == .array([.object(["uid": .integer(1), "video_muted": .bool(true), "video_enabled": .bool(false),
                                                "local_video_enabled": .bool(false), "video_stream_muted": .bool(false)]),
                                       .object(["uid": .integer(2)])]))
        #expect(jc["streams"] == .array([
            .object(["uid": .integer(1), "ssrc": .integer(5678), "payload_type": .integer(96), "layer": .string("low")]),
            .object(["uid": .integer(1), "ssrc": .integer(1234), "payload_type": .integer(96), "layer": .string("low")]),
        ]))
    }
}
