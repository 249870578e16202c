@testable import AgoraishServer
import AgoraishSession
import AgoraishWire
import Testing

/// Users the spatial audio engine does not receive (out of range, past the
/// receive count, muted there) are sent to the server in the audio
/// subscription's `muted` list on top of the host's own mutes, and taken out
/// of it again, without changing the host's policy.
@Suite struct AudioExclusionTests {
    /// The last set_audio_subscription client `i` sent.
    static func lastSubscription(_ d: ClientServerDriver, _ i: Int) -> String? {
        d.wire.last { $0.hasPrefix("\(i)>") && $0.contains(#""type":"set_audio_subscription""#) }
    }

    @Test func excludedUsersAreAddedToTheMutedListAndTakenOutAgain() throws {
        var d = ClientServerDriver(clients: 2)
        try d.call(0) { try $0.join(token: "", channel: "room", uid: 11, account: nil, now: $1) }
        try d.call(1) { try $0.join(token: "", channel: "room", uid: 22, account: nil, now: $1) }
        d.settle()
        try d.call(1) { s, _ in try s.muteRemoteAudio(uid: 33, true) }
        d.call(1) { s, _ in s.setAudioExcluded([11]) }
        d.settle()
        let excluded = try #require(Self.lastSubscription(d, 1))
        #expect(excluded.contains(#""muted":[11,33]"#), "\(excluded)")
        #expect(!d.clients[1].receivesAudio(of: 11) && d.clients[1].audioPolicy.muted == [33])
        d.call(1) { s, _ in s.setAudioExcluded([]) }
        d.settle()
        let back = try #require(Self.lastSubscription(d, 1))
        #expect(back.contains(#""muted":[33]"#), "\(back)")
        #expect(d.clients[1].receivesAudio(of: 11))
        // Everyone, later users too: all_muted, the host's own policy unchanged.
        d.call(1) { s, _ in s.setAudioExcluded([], all: true) }
        d.settle()
        let all = try #require(Self.lastSubscription(d, 1))
        #expect(all.contains(#""all_muted":true"#) && !d.clients[1].receivesAudio(of: 99), "\(all)")
        #expect(!d.clients[1].audioPolicy.allMuted)
        d.call(1) { s, _ in s.setAudioExcluded([]) }
        d.settle()
        #expect(try #require(Self.lastSubscription(d, 1)).contains(#""all_muted":false"#))
        // The same set again sends nothing.
        let count = d.wire.count
        d.call(1) { s, _ in s.setAudioExcluded([]) }
        #expect(d.wire.count == count)
    }
}
