@testable import AgoraishEngine
import AgoraishIO
import AgoraishServer
import AgoraishTesting
import AgoraishWire
import Foundation
import Synchronization
import Testing

/// preloadChannel and the join that follows it (QuickSwitchChannel), through the real server.
@Suite(.serialized) struct LoopbackQuickSwitchTests {
    static let app = LoopbackConnectionTests.app

    @Test func aPreloadedChannelIsJoinedOnItsConnectionWithFastStart() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("quick-switch")
        let decoded = Locked<[UInt32]>([])
        func engine(_ name: String, _ sink: @escaping @Sendable (EngineEvent) -> Void = { _ in }) throws -> RtcEngine {
            try RtcEngine(configuration: .init(appId: Self.app, serverURL: server.url, logFile: "\(dir)/\(name).log"),
                          eventSink: sink)
        }
        let a = try engine("a"), b = try engine("b")
        let viewer = try engine("viewer") { event in
            if case .audio(.firstRemoteAudioDecoded(let uid, _)) = event { decoded.withLock { $0.append(uid) } }
        }
        defer {
            try? viewer.release(sync: true)
            try? a.release(sync: true)
            try? b.release(sync: true)
        }
        // A host in each channel, each sending its own tone for the whole test.
        for (host, channel, uid, hz) in [(a, "qs-a", UInt32(11), 440.0), (b, "qs-b", UInt32(21), 1000.0)] {
            try host.setExternalAudioSource(enabled: true, sampleRate: 48000, channels: 1)
            try host.joinChannel(token: "", channel: channel, info: "", uid: uid)
        }
        // The hosts' sources queue at most 2 s: each step tops them up.
        func feed() throws {
            for (host, hz) in [(a, 440.0), (b, 1000.0)] {
                _ = try LoopbackConnectionTests.tone(hz, seconds: 1.5).withUnsafeBufferPointer { try host.pushExternalAudioFrame($0) }
            }
        }
        try viewer.setExternalAudioSink(sampleRate: 16000, channels: 1)
        try viewer.preloadChannel(token: "", channel: "qs-a", uid: 7)
        try viewer.preloadChannel(token: "", channel: "qs-b", uid: 7)
        #expect(viewer.preloadedChannels.kept == 2)
        #expect(waitUntil { viewer.preloadedChannels.ready == 2 }, "the server accepted both preloads")
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        let counters = try #require(server.mediaCounters)

        // Into a, then over to b: each join goes on its preloaded connection and starts fast.
        for (channel, hostUid, hz) in [("qs-a", UInt32(11), 440.0), ("qs-b", UInt32(21), 1000.0)] {
            try feed()
            // Fast start needs a packet from the host (at most 30 ms old) at the
            // server: the join waits until the hosts' audio flows there.
            let arrived = counters.packetsIn.load(ordering: .relaxed)
            #expect(waitUntil { counters.packetsIn.load(ordering: .relaxed) >= arrived + 10 }, "the hosts' audio flows")
            let before = counters.fastStartPackets.load(ordering: .relaxed)
            if viewer.link.read({ $0.inChannel }) { try viewer.leaveChannel() }
            try viewer.joinChannel(token: "", channel: channel, info: "", uid: 7)
            // The sink is pulled as a host would; decoding follows the pulls.
            let heard = try LoopbackConnectionTests.listen([viewer], ms: 900).map(LoopbackConnectionTests.frequency)
            #expect(decoded.withLock { $0.contains(hostUid) }, "first audio of \(hostUid) in \(channel)")
            #expect(viewer.link.read { $0.fastStart }, "\(channel) was joined on its preloaded connection")
            #expect(counters.fastStartPackets.load(ordering: .relaxed) > before,
                    "the server sent \(channel)'s newest audio packet at once")
            #expect(abs(heard[0] - hz) < 20, "\(channel) plays \(hz) Hz: \(heard[0]) Hz")
        }
        // The preloads stay: their connections open again for later switches.
        #expect(waitUntil { viewer.preloadedChannels.ready == 2 })

        // A channel and uid not preloaded: a cold join on a connection of its own, without fast start.
        try viewer.leaveChannel()
        try feed()
        let before = counters.fastStartPackets.load(ordering: .relaxed)
        try viewer.joinChannel(token: "", channel: "qs-a", info: "", uid: 8)
        _ = try LoopbackConnectionTests.listen([viewer], ms: 400)
        #expect(decoded.withLock { $0.filter { $0 == 11 }.count == 2 }, "\(decoded.withLock { $0 })")
        #expect(!viewer.link.read { $0.fastStart })
        #expect(counters.fastStartPackets.load(ordering: .relaxed) == before)
    }

    @Test func preloadChecksItsArgumentsAndKeepsTheNewestTwenty() throws {
        var config = loopbackServerConfig()
        config.acceptUnknownApps = false
        config.apps[Self.app] = .init(certificate: "8417c227d4257030f424cee3a53e5829")
        let server = ChannelServer(config: config)
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("quick-switch-args")
        let viewer = try RtcEngine(configuration: .init(appId: Self.app, serverURL: server.url,
                                                        logFile: dir + "/viewer.log")) { _ in }
        defer { try? viewer.release(sync: true) }
        #expect(throws: AgoraError.invalidState) { try viewer.updatePreloadChannelToken("") }
        #expect(throws: AgoraError.invalidChannelName) { try viewer.preloadChannel(token: "", channel: "bad/name", uid: 1) }
        #expect(throws: AgoraError.invalidChannelName) { try viewer.preloadChannel(token: "", channel: "", uid: 1) }
        #expect(throws: AgoraError.invalidArgument) {
            try viewer.preloadChannel(token: String(repeating: "x", count: 2049), channel: "ok", uid: 1)
        }
        #expect(viewer.preloadedChannels.kept == 0, "refused calls keep nothing")
        // A token the server refuses: kept, but its connection is not accepted.
        try viewer.preloadChannel(token: "not-a-token", channel: "room", uid: 1)
        #expect(waitUntil { readTextFile(dir + "/viewer.log").contains("preload of room as 1 refused: -110") })
        #expect(viewer.preloadedChannels.ready == 0)
        // The newest 20 are kept.
        for i in 0..<21 { try viewer.preloadChannel(token: "t", channel: "ch\(i)", uid: 1) }
        #expect(viewer.preloadedChannels.kept == 20)
        try viewer.updatePreloadChannelToken("")
        #expect(throws: AgoraError.invalidArgument) { try viewer.updatePreloadChannelToken(String(repeating: "x", count: 2049)) }
    }
}
