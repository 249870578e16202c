@testable import AgoraishEngine
import AgoraishIO
import AgoraishMedia
import AgoraishServer
import AgoraishSession
import AgoraishTesting
import AgoraishWire
import Testing

/// Congestion control through real engines, the real server and real
/// sockets, with the engines' own simulated network squeezing one direction:
/// the sender follows its uplink's capacity, publish fallback drops to audio
/// and comes back, and the server's downlink estimate takes a subscriber's
/// video away and gives it back.
@Suite(.serialized) struct LoopbackCongestionTests {
    static let app = "0123456789abcdef0123456789abcdef"

    /// Noise pictures: nothing for the encoder to save, so it sends what it is allowed.
    static let noise: [I420Frame] = {
        var rng = SplitMix64(seed: 11)
        return (0..<8).map { _ in
            var f = I420Frame(width: 640, height: 360)
            for i in stride(from: 0, to: f.y.count, by: 8) {
                let r = rng.next()
                for k in 0..<8 where i + k < f.y.count { f.y[i + k] = UInt8(truncatingIfNeeded: r >> (8 * k)) }
            }
            return f
        }
    }()

    /// A moving picture that compresses like camera video: gradients, edges
    /// and a moving block (frame `n` of 30, repeating).
    static let scene: [I420Frame] = (0..<30).map { n in
        var f = I420Frame(width: 640, height: 360)
        for y in 0..<360 {
            for x in 0..<640 {
                let inBlock = abs(x - (60 + 16 * n)) < 60 && abs(y - 180) < 60
                f.y[y * 640 + x] = inBlock ? 230 : UInt8(40 + (x / 4 + y / 3 + 3 * n) % 150)
            }
        }
        return f
    }

    /// Pushes pictures at 15 fps into `engine` until `done` holds or `seconds` pass. True when `done` held.
    static func pump(_ engine: RtcEngine, seconds: Double, from start: inout Int, pictures: [I420Frame] = noise,
                     until done: () -> Bool) throws -> Bool {
        try pump([engine], seconds: seconds, from: &start, pictures: pictures, until: done)
    }

    /// The same into several engines at once.
    static func pump(_ engines: [RtcEngine], seconds: Double, from start: inout Int, pictures: [I420Frame] = noise,
                     until done: () -> Bool) throws -> Bool {
        var deadline = Instant.now()
        let end = deadline + .milliseconds(Int64(seconds * 1000))
        while Instant.now() < end {
            if done() { return true }
            let p = pictures[start % pictures.count]
            for engine in engines {
                try p.y.withUnsafeBytes { y in
                    try p.u.withUnsafeBytes { u in
                        try p.v.withUnsafeBytes { v in
                            try engine.pushExternalVideoFrame(width: 640, height: 360, y: y.baseAddress!, yStride: 640,
                                                              u: u.baseAddress!, uStride: 320, v: v.baseAddress!, vStride: 320,
                                                              timestampMs: Int64(start) * 1000 / 15)
                        }
                    }
                }
            }
            start += 1
            deadline = deadline + .milliseconds(66)
            sleepUntil(deadline)
        }
        return done()
    }

    static func simulation(capKbps: Int, seed: Int = 1) -> String {
        #"{"loss_percent": 0, "delay_ms": 10, "jitter_ms": 0, "seed": \#(seed), "bandwidth_kbps": \#(capKbps), "queue_ms": 300}"#
    }

    func engine(_ server: ChannelServer, _ name: String, _ recorder: Recorder) throws -> RtcEngine {
        let log = makeTemporaryDirectory("congestion-\(name)") + "/engine.log"
        return try RtcEngine(configuration: .init(appId: Self.app, serverURL: server.url, logFile: log)) { recorder.record($0) }
    }

    func publisherConfig(kbps: Int, preference: Int = 0) -> VideoEncoderConfiguration {
        var c = VideoEncoderConfiguration()
        c.width = 640
        c.height = 360
        c.frameRate = 15
        c.bitrate = kbps
        c.degradationPreference = preference
        return c
    }

    @Test func theSenderKeepsUnderACapAndGrowsAgainWhenItLifts() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let ra = Recorder(), rb = Recorder()
        let a = try engine(server, "cap-a", ra), b = try engine(server, "cap-b", rb)
        defer {
            try? a.release(sync: true)
            try? b.release(sync: true)
        }
        try a.setVideoEncoderConfiguration(publisherConfig(kbps: 1200, preference: 1))
        a.setVideoEnabled(true)
        a.setExternalVideoSource(enabled: true)
        b.setVideoEnabled(true)
        try a.setParameters(#"{"rtc.network_simulation_send": \#(Self.simulation(capKbps: 300))}"#)
        try a.joinChannel(token: "", channel: "cap", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "cap", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        func state() -> (target: Int, loss: Double, queueing: Duration)? { a.video.transport.withLock { $0?.congestionState } }

        // From 1 Mbps to under the 300 kbps cap, with the queue drained.
        var n = 0
        let adapted = try Self.pump(a, seconds: 10, from: &n) {
            guard let s = state() else { return false }
            return s.target <= 320_000 && s.queueing < .milliseconds(100)
        }
        #expect(adapted, "estimate \(String(describing: state()))")
        // It stays there: no standing queue for the next three seconds.
        var queueing: [Duration] = [], highest = 0
        _ = try Self.pump(a, seconds: 3, from: &n) {
            if let s = state() {
                queueing.append(s.queueing)
                highest = max(highest, s.target)
            }
            return false
        }
        let median = queueing.sorted()[queueing.count / 2]
        #expect(median < .milliseconds(100), "queueing delay: median \(median) of \(queueing)")
        #expect(highest <= 360_000, "estimate up to \(highest)")
        // MAINTAIN_FRAMERATE: the picture got smaller, the frame rate did not.
        let sent = a.video.send.withLock { ($0.encodedSize, $0.frameRate, $0.bitrateKbps) }
        #expect(sent.0.0 < 640 && sent.1 == 15 && sent.2 <= 300, "sending \(sent)")

        // The cap lifts: the estimate grows again (8 % a second at most).
        try a.setParameters(#"{"rtc.network_simulation_send": null}"#)
        let grew = try Self.pump(a, seconds: 12, from: &n) { (state()?.target ?? 0) >= 480_000 }
        #expect(grew, "estimate after the cap lifted: \(String(describing: state()))")
    }

    @Test func publishFallbackDropsVideoOnAStarvedUplinkAndBringsItBack() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let ra = Recorder(), rb = Recorder()
        let a = try engine(server, "pub-a", ra), b = try engine(server, "pub-b", rb)
        defer {
            try? a.release(sync: true)
            try? b.release(sync: true)
        }
        try a.setVideoEncoderConfiguration(publisherConfig(kbps: 400))
        try a.setLocalPublishFallbackOption(2)
        #expect(throws: AgoraError.invalidArgument) { try a.setLocalPublishFallbackOption(1) }
        a.setVideoEnabled(true)
        a.setExternalVideoSource(enabled: true)
        b.setVideoEnabled(true)
        try a.setParameters(#"{"rtc.network_simulation_send": \#(Self.simulation(capKbps: 70))}"#)
        try a.joinChannel(token: "", channel: "pub", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "pub", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        func fallback(_ on: Bool) -> @Sendable (EngineEvent) -> Bool {
            { if case .video(.localPublishFallback(on)) = $0 { true } else { false } }
        }
        var n = 0
        #expect(try Self.pump(a, seconds: 12, from: &n) { ra.wait(seconds: 0, fallback(true)) }, "fell back to audio only")
        // In fallback no video leaves.
        let before = a.video.send.withLock { $0.encodedFrameCount }
        _ = try Self.pump(a, seconds: 1, from: &n) { false }
        #expect(a.video.send.withLock { $0.encodedFrameCount } == before)
        try a.setParameters(#"{"rtc.network_simulation_send": null}"#)
        #expect(try Self.pump(a, seconds: 20, from: &n) { ra.wait(seconds: 0, fallback(false)) }, "video came back")
        _ = try Self.pump(a, seconds: 1, from: &n) { false }
        #expect(a.video.send.withLock { $0.encodedFrameCount } > before)
    }

    @Test func subscribeFallbackTakesVideoAwayFromAStarvedDownlinkAndGivesItBack() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let ra = Recorder(), rb = Recorder()
        let a = try engine(server, "sub-a", ra), b = try engine(server, "sub-b", rb)
        defer {
            try? a.release(sync: true)
            try? b.release(sync: true)
        }
        try a.setVideoEncoderConfiguration(publisherConfig(kbps: 500))
        a.enableDualStreamMode(true)
        a.setVideoEnabled(true)
        a.setExternalVideoSource(enabled: true)
        b.setVideoEnabled(true)
        try b.setRemoteSubscribeFallbackOption(2)
        #expect(throws: AgoraError.invalidArgument) { try b.setRemoteSubscribeFallbackOption(3) }
        try b.setRemoteUserPriority(uid: 1, priority: 50)
        #expect(throws: AgoraError.invalidArgument) { try b.setRemoteUserPriority(uid: 1, priority: 60) }
        try b.setupRemoteVideo(uid: 1) { _, _ in }
        // Receive-side simulation: B's downlink carries 90 kbps.
        try b.setParameters(#"{"rtc.network_simulation": \#(Self.simulation(capKbps: 90, seed: 2))}"#)
        try a.joinChannel(token: "", channel: "sub", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "sub", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        func fallback(_ on: Bool) -> @Sendable (EngineEvent) -> Bool {
            { if case .video(.remoteSubscribeFallback(1, on)) = $0 { true } else { false } }
        }
        var n = 0
        #expect(try Self.pump(a, seconds: 15, from: &n) { rb.wait(seconds: 0, fallback(true)) }, "B fell back to A's audio")
        #expect(rb.wait(seconds: 1) {
            if case .video(.remoteVideoStateChanged(1, 0, 8, _)) = $0 { true } else { false }
        }, "STOPPED with AUDIO_FALLBACK")
        // A keeps publishing; the server withholds its video from B.
        let before = server.mediaCounters?.drops(.fallback) ?? 0
        _ = try Self.pump(a, seconds: 1, from: &n) { false }
        #expect((server.mediaCounters?.drops(.fallback) ?? 0) > before)
        try b.setParameters(#"{"rtc.network_simulation": null}"#)
        #expect(try Self.pump(a, seconds: 25, from: &n) { rb.wait(seconds: 0, fallback(false)) }, "B gets A's video again")
        #expect(try Self.pump(a, seconds: 5, from: &n) {
            rb.wait(seconds: 0) { if case .video(.remoteVideoStateChanged(1, 2, 9, _)) = $0 { true } else { false } }
        }, "DECODING with AUDIO_FALLBACK_RECOVERY")
    }

    @Test func theHighPriorityUserKeepsTheHighStreamWhenTheDownlinkIsShort() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let r1 = Recorder(), r2 = Recorder(), rb = Recorder()
        let p1 = try engine(server, "prio-1", r1), p2 = try engine(server, "prio-2", r2), b = try engine(server, "prio-b", rb)
        defer {
            try? p1.release(sync: true)
            try? p2.release(sync: true)
            try? b.release(sync: true)
        }
        for p in [p1, p2] {
            try p.setVideoEncoderConfiguration(publisherConfig(kbps: 500))
            p.enableDualStreamMode(true)
            p.setVideoEnabled(true)
            p.setExternalVideoSource(enabled: true)
        }
        b.setVideoEnabled(true)
        try b.setupRemoteVideo(uid: 1) { _, _ in }
        try b.setupRemoteVideo(uid: 2) { _, _ in }
        // Room for one high stream (~500 kbps) and one low (~140 kbps), not two high: user 2 comes first.
        try b.setRemoteUserPriority(uid: 2, priority: 50)
        try b.setParameters(#"{"rtc.network_simulation": \#(Self.simulation(capKbps: 850, seed: 4))}"#)
        try p1.joinChannel(token: "", channel: "prio", info: "", uid: 1)
        try p2.joinChannel(token: "", channel: "prio", info: "", uid: 2)
        try b.joinChannel(token: "", channel: "prio", info: "", uid: 3)
        #expect(waitUntil { p1.audio.isMediaBound && p2.audio.isMediaBound && b.audio.isMediaBound })
        // Which stream of each publisher B is decoding now.
        func lowOf(_ uid: UInt32) -> Bool? { b.video.users.withLock { $0[uid].map { $0.streamLayer == 1 } } }
        var n = 0
        let settled = try Self.pump([p1, p2], seconds: 15, from: &n, pictures: Self.scene) { lowOf(1) == true && lowOf(2) == false }
        #expect(settled, "user 1 low: \(String(describing: lowOf(1))), user 2 low: \(String(describing: lowOf(2)))")
    }

    @Test func aNarrowDownlinkSlowsASingleStreamPublisherThroughRemb() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let ra = Recorder(), rb = Recorder()
        let a = try engine(server, "remb-a", ra), b = try engine(server, "remb-b", rb)
        defer {
            try? a.release(sync: true)
            try? b.release(sync: true)
        }
        try a.setVideoEncoderConfiguration(publisherConfig(kbps: 500))
        a.setVideoEnabled(true)
        a.setExternalVideoSource(enabled: true)
        b.setVideoEnabled(true)
        let rendered = Locked<[Instant]>([])
        try b.setupRemoteVideo(uid: 1) { _, _ in rendered.withLock { $0.append(.now()) } }
        // B's downlink carries 250 kbps; A has one stream, so nothing can be switched: A must slow down.
        try b.setParameters(#"{"rtc.network_simulation": \#(Self.simulation(capKbps: 250, seed: 3))}"#)
        try a.joinChannel(token: "", channel: "remb", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "remb", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        var n = 0
        let capped = try Self.pump(a, seconds: 10, from: &n, pictures: Self.scene) {
            (a.video.transport.withLock { $0?.videoCap } ?? .max) < 250_000
        }
        #expect(capped, "REMB to A: \(String(describing: a.video.transport.withLock { $0?.videoCap }))")
        // A sends what B can take (the estimate the REMB carries grows up to
        // the link and falls back at each overuse, so the target is read at
        // every picture and its median taken), and B sees pictures: at least
        // 5 a second over the last 4 s.
        var targets: [Int] = []
        _ = try Self.pump(a, seconds: 6, from: &n, pictures: Self.scene) {
            targets.append(a.video.send.withLock { $0.bitrateKbps })
            return false
        }
        let target = targets.sorted()[targets.count / 2]
        #expect(target < 250, "A's video target: median \(target) kbps of \(targets)")
        let recent = rendered.withLock { $0.filter { Instant.now() - $0 < .seconds(4) }.count }
        #expect(recent >= 20, "B rendered \(recent) pictures in the last 4 s")
    }

    @Test func theLastMileProbeMeasuresACappedUplinkAndALossyDownlink() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let r = Recorder()
        let e = try engine(server, "probe", r)
        defer { try? e.release(sync: true) }
        #expect(throws: AgoraError.invalidArgument) {
            try e.startLastmileProbeTest(.init(probeUplink: false, probeDownlink: false, expectedUplinkBitrate: 500_000,
                                               expectedDownlinkBitrate: 500_000))
        }
        #expect(throws: AgoraError.invalidArgument) {
            try e.startLastmileProbeTest(.init(probeUplink: true, probeDownlink: false, expectedUplinkBitrate: 99_999,
                                               expectedDownlinkBitrate: 0))
        }
        #expect(throws: AgoraError.refused) { try e.stopLastmileProbeTest() }
        // The uplink carries 500 kbps behind a 300 ms queue; the downlink loses 5 %.
        try e.setParameters(#"{"rtc.network_simulation_send": \#(Self.simulation(capKbps: 500))}"#)
        try e.setParameters(#"{"rtc.network_simulation": {"loss_percent": 5, "delay_ms": 5, "jitter_ms": 0, "seed": 21}}"#)
        try e.startLastmileProbeTest(.init(probeUplink: true, probeDownlink: true, expectedUplinkBitrate: 1_000_000,
                                           expectedDownlinkBitrate: 4_000_000))
        #expect(throws: AgoraError.refused) { try e.enableLastmileTest() }
        #expect(r.wait(seconds: 10) { if case .network(.lastmileQuality) = $0 { true } else { false } })
        #expect(r.wait(seconds: 10) { if case .network(.lastmileProbeResult) = $0 { true } else { false } })
        let result = r.events.withLock { events in
            events.compactMap { if case .network(.lastmileProbeResult(let x)) = $0 { x } else { nil } }.first
        }
        let got = try #require(result)
        #expect(got.state == 1)
        #expect(abs(Int(got.uplinkReport.availableBandwidth) - 500_000) <= 100_000, "uplink \(got.uplinkReport)")
        #expect(got.uplinkReport.packetLossRate > 20, "the queue drops what the cap cannot carry: \(got.uplinkReport)")
        #expect(abs(Int(got.downlinkReport.packetLossRate) - 5) <= 2, "downlink \(got.downlinkReport)")
        #expect(abs(Int(got.downlinkReport.availableBandwidth) - 4_000_000) <= 800_000, "downlink \(got.downlinkReport)")
        // The probe's channel is gone: no join or leave of it was reported, and a call can start.
        #expect(!r.events.withLock { $0.contains { if case .channel(.joinChannelSuccess) = $0 { true } else { false } } })
        try e.setParameters(#"{"rtc.network_simulation_send": null, "rtc.network_simulation": null}"#)
        #expect(waitUntil { !e.link.read { $0.inChannel } })
        try e.joinChannel(token: "", channel: "after-probe", info: "", uid: 7)
        #expect(r.wait { if case .channel(.joinChannelSuccess("after-probe", 7, _)) = $0 { true } else { false } })
    }

    @Test func theLastMileTestReportsQualityEveryTwoSecondsUntilDisabledOrAJoin() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let r = Recorder()
        let e = try engine(server, "quality", r)
        defer { try? e.release(sync: true) }
        #expect(throws: AgoraError.refused) { try e.disableLastmileTest() }
        try e.enableLastmileTest()
        #expect(throws: AgoraError.refused) { try e.enableLastmileTest() }
        func qualities() -> [Int32] {
            r.events.withLock { $0.compactMap { if case .network(.lastmileQuality(let q)) = $0 { q } else { nil } } }
        }
        #expect(waitUntil(seconds: 10) { qualities().count >= 2 }, "qualities \(qualities())")
        // Loopback: no loss, a short round trip.
        #expect(qualities().allSatisfy { $0 == 1 || $0 == 2 }, "qualities \(qualities())")
        try e.disableLastmileTest()
        let count = qualities().count
        sleepUntil(Instant.now() + .milliseconds(2500))
        #expect(qualities().count <= count + 1)
        // Enabled again, then a join ends it.
        try e.enableLastmileTest()
        try e.joinChannel(token: "", channel: "after-test", info: "", uid: 8)
        #expect(r.wait { if case .channel(.joinChannelSuccess("after-test", 8, _)) = $0 { true } else { false } })
        #expect(throws: AgoraError.refused) { try e.disableLastmileTest() }
    }
}
