import AgoraishEngine
import AgoraishServer
import AgoraishSession
import AgoraishTesting
import AgoraishIO
import Synchronization
import Testing

/// Real engines and the real server on loopback: sockets, threads, timers.
/// These are the tests `make sanitize` runs under ASan and TSan.
final class Recorder: Sendable {
    let events = Locked<[EngineEvent]>([])
    let waiters = Locked<[(matches: @Sendable (EngineEvent) -> Bool, latch: Latch)]>([])

    func record(_ e: EngineEvent) {
        events.withLock { $0.append(e) }
        let ready = waiters.withLock { w in w.filter { $0.matches(e) } }
        for r in ready { r.latch.open() }
    }

    /// Waits until an event matching `matches` has arrived (or already had).
    func wait(seconds: Double = 10, _ matches: @escaping @Sendable (EngineEvent) -> Bool) -> Bool {
        let latch = Latch()
        waiters.withLock { $0.append((matches, latch)) }
        if events.withLock({ $0.contains(where: matches) }) { return true }
        return latch.wait(seconds: seconds)
    }
}

/// A server configuration for loopback tests: a free port, no HTTP, any app id.
func loopbackServerConfig() -> ServerConfig {
    var config = ServerConfig()
    config.signalingPort = 0
    config.httpPort = nil
    config.acceptUnknownApps = true
    return config
}

@Suite(.serialized) struct LoopbackCallTests {
    static let app = "0123456789abcdef0123456789abcdef"

    func makeServer() throws -> ChannelServer {
        var config = loopbackServerConfig()
        config.dropTimeout = .seconds(5)
        let server = ChannelServer(config: config)
        try server.start()
        return server
    }

    func makeEngine(_ server: ChannelServer, _ recorder: Recorder, _ name: String) throws -> RtcEngine {
        let log = makeTemporaryDirectory("loopback-\(name)") + "/engine.log"
        return try RtcEngine(configuration: .init(appId: Self.app, serverURL: server.url, logFile: log)) { recorder.record($0) }
    }

    @Test func twoEnginesJoinSeeEachOtherAndLeave() throws {
        let server = try makeServer()
        defer { server.stop() }
        let ra = Recorder(), rb = Recorder()
        let a = try makeEngine(server, ra, "a"), b = try makeEngine(server, rb, "b")
        try a.joinChannel(token: "", channel: "loop", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "loop", info: "", uid: 2)
        #expect(ra.wait { if case .channel(.userJoined(2, _)) = $0 { true } else { false } })
        #expect(rb.wait { if case .channel(.userJoined(1, _)) = $0 { true } else { false } })
        #expect(a.connectionState == .connected)
        try b.leaveChannel()
        #expect(rb.wait { if case .channel(.leaveChannel) = $0 { true } else { false } })
        #expect(ra.wait { $0 == .channel(.userOffline(uid: 2, reason: 0)) })
        try a.release(sync: true)
        try b.release(sync: true)
    }

    @Test func aServerRestartIsSurvivedWithoutHostAction() throws {
        var config = loopbackServerConfig()
        let first = ChannelServer(config: config)
        try first.start()
        let port = first.signalingPort
        let ra = Recorder(), rb = Recorder()
        let a = try makeEngine(first, ra, "ra"), b = try makeEngine(first, rb, "rb")
        try a.joinChannel(token: "", channel: "restart", info: "", uid: 11)
        try b.joinChannel(token: "", channel: "restart", info: "", uid: 12)
        #expect(ra.wait { if case .channel(.userJoined(12, _)) = $0 { true } else { false } })
        first.stop()
        #expect(ra.wait { $0 == .channel(.connectionStateChanged(.reconnecting, .interrupted)) })
        // A new server process on the same port: the sessions are gone, so the engines join again.
        config.signalingPort = port
        let second = ChannelServer(config: config)
        try second.start()
        defer { second.stop() }
        #expect(ra.wait { if case .channel(.rejoinChannelSuccess("restart", 11, _)) = $0 { true } else { false } })
        #expect(rb.wait { if case .channel(.rejoinChannelSuccess("restart", 12, _)) = $0 { true } else { false } })
        #expect(a.connectionState == .connected && b.connectionState == .connected)
        try a.release(sync: true)
        try b.release(sync: true)
    }

    @Test func releasingWhileJoinedLeavesForOthersAtOnce() throws {
        let server = try makeServer()
        defer { server.stop() }
        let ra = Recorder(), rb = Recorder()
        let a = try makeEngine(server, ra, "x"), b = try makeEngine(server, rb, "y")
        try a.joinChannel(token: "", channel: "rel", info: "", uid: 21)
        try b.joinChannel(token: "", channel: "rel", info: "", uid: 22)
        #expect(ra.wait { if case .channel(.userJoined(22, _)) = $0 { true } else { false } })
        try b.release(sync: true)
        #expect(ra.wait { $0 == .channel(.userOffline(uid: 22, reason: 0)) })
        try a.release(sync: false)
    }
}
