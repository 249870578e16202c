@testable import AgoraishEngine
import AgoraishIO
import AgoraishMedia
import AgoraishServer
import AgoraishSession
import AgoraishTesting
import AgoraishWire
import Foundation
import Testing

/// Dual stream, VP9, video states and statistics, observers, the local
/// canvas, rotation, snapshots and watermarks, through the real server.
@Suite(.serialized) struct LoopbackVideoFeatureTests {
    static let app = "0123456789abcdef0123456789abcdef"

    /// A picture of any size: a moving gradient with the frame number as 8 bars along the top.
    static func picture(_ n: Int, width: Int = 320, height: Int = 240) -> I420Frame {
        var f = I420Frame(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width { f.y[y * width + x] = UInt8(60 + (x + 2 * n + y) % 120) }
        }
        let bar = width / 8
        for bit in 0..<8 {
            let value: UInt8 = n >> bit & 1 == 1 ? 16 : 235
            for y in 0..<(height / 10) { for x in (bit * bar + 4)..<(bit * bar + bar - 4) { f.y[y * width + x] = value } }
        }
        return f
    }

    static func push(_ e: RtcEngine, _ f: I420Frame, _ n: Int, rotation: Int = 0, fps: Int = 15) throws {
        try f.y.withUnsafeBytes { y in
            try f.u.withUnsafeBytes { u in
                try f.v.withUnsafeBytes { v in
                    try e.pushExternalVideoFrame(
                        PictureSource(format: .i420, width: f.width, height: f.height, plane0: y.baseAddress!,
                                      stride0: f.width, plane1: u.baseAddress!, stride1: f.chromaWidth,
                                      plane2: v.baseAddress!, stride2: f.chromaWidth),
                        rotation: rotation, timestampMs: Int64(n) * 1000 / Int64(fps))
                }
            }
        }
    }

    /// Pushes `count` pictures in real time from `start`, made by `make`.
    static func run(_ e: RtcEngine, from start: Int, count: Int, fps: Int = 15, rotation: Int = 0,
                    _ make: (Int) -> I420Frame) throws {
        var deadline = Instant.now()
        for n in start..<(start + count) {
            try push(e, make(n), n, rotation: rotation, fps: fps)
            deadline = deadline + .milliseconds(Int64(1000 / fps))
            sleepUntil(deadline)
        }
    }

    static func engine(_ server: ChannelServer, _ dir: String, _ name: String,
                       events: Locked<[EngineEvent]>? = nil) throws -> RtcEngine {
        try RtcEngine(configuration: .init(appId: app, serverURL: server.url, logFile: dir + "/\(name).log")) { e in
            events?.withLock { $0.append(e) }
        }
    }

    static func videoEvents(_ l: Locked<[EngineEvent]>) -> [VideoEvent] {
        l.withLock { $0.compactMap { if case .video(let v) = $0 { v } else { nil } } }
    }

    @Test func dualStreamSubscribersGetTheStreamTheyChoseAndSwitchAtKeyframes() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("video-dual")
        let a = try Self.engine(server, dir, "a"), b = try Self.engine(server, dir, "b"), c = try Self.engine(server, dir, "c")
        defer { for e in [a, b, c] { try? e.release(sync: true) } }
        var config = VideoEncoderConfiguration()
        config.width = 640
        config.height = 360
        config.frameRate = 15
        try a.setVideoEncoderConfiguration(config)
        a.setVideoEnabled(true)
        a.setExternalVideoSource(enabled: true)
        a.enableDualStreamMode(true)
        let sizes = Locked<[UInt32: [Int]]>([:])
        for (e, id) in [(b, UInt32(2)), (c, UInt32(3))] {
            e.setVideoEnabled(true)
            try e.setupRemoteVideo(uid: 1) { _, f in sizes.withLock { $0[id, default: []].append(f.width) } }
        }
        try c.setRemoteVideoStreamType(uid: 1, type: 1)
        try a.joinChannel(token: "", channel: "dual", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "dual", info: "", uid: 2)
        try c.joinChannel(token: "", channel: "dual", info: "", uid: 3)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound && c.audio.isMediaBound })
        try Self.run(a, from: 0, count: 30) { Self.picture($0, width: 640, height: 360) }
        #expect(waitUntil { sizes.withLock { ($0[2]?.count ?? 0) >= 10 && ($0[3]?.count ?? 0) >= 5 } })
        let first = sizes.withLock { $0 }
        #expect(first[2]?.allSatisfy { $0 == 640 } == true, "b receives the high stream: \(first[2] ?? [])")
        #expect(first[3]?.allSatisfy { $0 == 320 } == true, "c receives the low stream: \(first[3] ?? [])")
        let withheld = server.mediaCounters!.drops(.otherLayer)
        #expect(withheld > 0, "each subscriber's copy of the other stream is withheld")
        let c_ = c.video.users.withLock { $0[1] }
        #expect(c_?.streamLayer == 1, "c knows it receives the low stream")

        // c asks for the high stream: the server switches at its next keyframe (it asks for one).
        try c.setRemoteVideoStreamType(uid: 1, type: 0)
        sizes.withLock { $0[3] = [] }
        try Self.run(a, from: 30, count: 30) { Self.picture($0, width: 640, height: 360) }
        let after = sizes.withLock { $0[3] ?? [] }
        #expect(after.last == 640, "c receives the high stream after the switch: \(after)")
        // Once switched, never back: one stream per subscriber at a time.
        if let i = after.firstIndex(of: 640) { #expect(after[i...].allSatisfy { $0 == 640 }) }
        #expect(server.mediaCounters!.layerSwitches.load(ordering: .relaxed) >= 1)
        #expect(server.mediaCounters!.layerKeyframeRequests.load(ordering: .relaxed) >= 1)
        #expect(server.mediaCounters!.drops(.otherLayer) > withheld)
    }

    @Test func simulcastSubscribersEachGetTheirLayerAndSwitchAtKeyframes() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("video-simulcast")
        let names = ["a", "b", "c", "d", "e"]
        let engines = try names.map { try Self.engine(server, dir, $0) }
        let a = engines[0]
        defer { for e in engines { try? e.release(sync: true) } }
        var config = VideoEncoderConfiguration()
        config.width = 640
        config.height = 360
        config.frameRate = 15
        try a.setVideoEncoderConfiguration(config)
        a.setVideoEnabled(true)
        a.setExternalVideoSource(enabled: true)
        // Three layers besides the high stream: LAYER_1, LAYER_2 and STREAM_LOW.
        var layers = [SimulcastLayerConfig](repeating: SimulcastLayerConfig(width: 0, height: 0, frameRate: 0, enabled: false),
                                            count: 7)
        layers[0] = SimulcastLayerConfig(width: 480, height: 270, frameRate: 15, enabled: true)
        layers[1] = SimulcastLayerConfig(width: 320, height: 180, frameRate: 15, enabled: true)
        layers[6] = SimulcastLayerConfig(width: 160, height: 90, frameRate: 15, enabled: true)
        var four = layers
        four[2] = SimulcastLayerConfig(width: 240, height: 136, frameRate: 15, enabled: true)
        #expect(throws: AgoraError.invalidArgument) { try a.setSimulcastConfig(four) }
        var bad = layers
        bad[0].frameRate = 61
        #expect(throws: AgoraError.invalidArgument) { try a.setSimulcastConfig(bad) }
        try a.setSimulcastConfig(layers)

        // b: LAYER_1 (4), c: LAYER_2 (5), d: LOW (1), e: LAYER_4 (7), which a does not send.
        let sizes = Locked<[UInt32: [Int]]>([:])
        for (i, type) in [(1, 4), (2, 5), (3, 1), (4, 7)] {
            let e = engines[i], id = UInt32(i + 1)
            e.setVideoEnabled(true)
            try e.setupRemoteVideo(uid: 1) { _, f in sizes.withLock { $0[id, default: []].append(f.width) } }
            try e.setRemoteVideoStreamType(uid: 1, type: type)
        }
        #expect(throws: AgoraError.invalidArgument) { try engines[1].setRemoteVideoStreamType(uid: 1, type: 3) }
        #expect(throws: AgoraError.invalidArgument) { try engines[1].setRemoteVideoStreamType(uid: 1, type: 10) }
        for (i, e) in engines.enumerated() { try e.joinChannel(token: "", channel: "simulcast", info: "", uid: UInt32(i + 1)) }
        #expect(waitUntil { engines.allSatisfy { $0.audio.isMediaBound } })
        try Self.run(a, from: 0, count: 30) { Self.picture($0, width: 640, height: 360) }
        #expect(waitUntil { sizes.withLock { s in (2...5).allSatisfy { (s[UInt32($0)]?.count ?? 0) >= 5 } } })
        let first = sizes.withLock { $0 }
        #expect(first[2]?.allSatisfy { $0 == 480 } == true, "b receives LAYER_1: \(first[2] ?? [])")
        #expect(first[3]?.allSatisfy { $0 == 320 } == true, "c receives LAYER_2: \(first[3] ?? [])")
        #expect(first[4]?.allSatisfy { $0 == 160 } == true, "d receives the low stream: \(first[4] ?? [])")
        #expect(first[5]?.allSatisfy { $0 == 160 } == true, "e asked for LAYER_4, not sent: the next below, low: \(first[5] ?? [])")
        #expect(engines[1].video.users.withLock { $0[1]?.streamLayer } == 4, "b knows it receives LAYER_1")
        #expect(engines[3].video.users.withLock { $0[1]?.streamLayer } == 1, "d knows it receives the low stream")

        // d asks for LAYER_1: the server switches it at that layer's next keyframe (it asks a for one).
        let requests = server.mediaCounters!.layerKeyframeRequests.load(ordering: .relaxed)
        try engines[3].setRemoteVideoStreamType(uid: 1, type: 4)
        sizes.withLock { $0[4] = [] }
        try Self.run(a, from: 30, count: 30) { Self.picture($0, width: 640, height: 360) }
        let after = sizes.withLock { $0[4] ?? [] }
        #expect(after.last == 480, "d receives LAYER_1 after the switch: \(after)")
        if let i = after.firstIndex(of: 480) { #expect(after[i...].allSatisfy { $0 == 480 }, "never back: \(after)") }
        #expect(server.mediaCounters!.layerKeyframeRequests.load(ordering: .relaxed) > requests)
        #expect(server.mediaCounters!.layerSwitches.load(ordering: .relaxed) >= 1)
    }

    @Test func vp9PicturesArriveDecodedAtTheirQuality() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("video-vp9")
        let a = try Self.engine(server, dir, "a"), b = try Self.engine(server, dir, "b")
        defer { for e in [a, b] { try? e.release(sync: true) } }
        var config = VideoEncoderConfiguration()
        config.width = 320
        config.height = 240
        config.bitrate = 600
        config.codec = .vp9
        try a.setVideoEncoderConfiguration(config)
        a.setVideoEnabled(true)
        a.setExternalVideoSource(enabled: true)
        b.setVideoEnabled(true)
        let psnr = Locked<[Double]>([])
        try b.setupRemoteVideo(uid: 1) { _, f in
            let n = LoopbackVideoTests.frameNumber(f.y, stride: f.yStride)
            let copy = I420Frame(copying: f)
            psnr.withLock { $0.append(copy.lumaPSNR(Self.picture(n))) }
        }
        try a.joinChannel(token: "", channel: "vp9", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "vp9", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        try Self.run(a, from: 0, count: 30) { Self.picture($0) }
        #expect(waitUntil { psnr.withLock { $0.count } >= 25 })
        let worst = psnr.withLock { $0.min() ?? 0 }
        #expect(worst > 30, "VP9 luma PSNR at 600 kbps: worst \(worst) dB")
        let local = a.video.takeLocalStats(periodMs: 2000)
        #expect(local?.codecType == 5)
    }

    @Test func remoteVideoStatesAndStatisticsFollowPausesMutesAndLoss() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("video-states")
        let events = Locked<[EngineEvent]>([])
        let a = try Self.engine(server, dir, "a"), b = try Self.engine(server, dir, "b", events: events)
        defer { for e in [a, b] { try? e.release(sync: true) } }
        try b.setParameters(#"{"rtc.network_simulation": {"loss_percent": 5, "seed": 3}}"#)
        var config = VideoEncoderConfiguration()
        config.width = 320
        config.height = 240
        try a.setVideoEncoderConfiguration(config)
        a.setVideoEnabled(true)
        a.setExternalVideoSource(enabled: true)
        b.setVideoEnabled(true)
        try b.setupRemoteVideo(uid: 1) { _, _ in }
        try a.joinChannel(token: "", channel: "states", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "states", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        try Self.run(a, from: 0, count: 20) { Self.picture($0) }
        func states() -> [(Int32, Int32)] {
            Self.videoEvents(events).compactMap {
                if case .remoteVideoStateChanged(1, let s, let r, _) = $0 { (s, r) } else { nil }
            }
        }
        #expect(waitUntil { states().contains { $0 == (2, 0) } })
        #expect(states().first.map { $0 == (1, 0) } == true, "STARTING comes first: \(states())")
        #expect(Self.videoEvents(events).contains { if case .firstRemoteVideoFrame(1, 320, 240, _) = $0 { true } else { false } })
        // A pause of a second: FROZEN (network congestion), then DECODING (recovery).
        sleepUntil(Instant.now() + .milliseconds(1000))
        #expect(waitUntil { states().contains { $0 == (3, 1) } })
        try Self.run(a, from: 20, count: 10) { Self.picture($0) }
        #expect(waitUntil { states().contains { $0 == (2, 2) } })
        // A mutes: STOPPED with REMOTE_MUTED.
        a.muteLocalVideoStream(true)
        #expect(waitUntil { states().contains { $0 == (0, 5) } })
        a.muteLocalVideoStream(false)
        try Self.run(a, from: 30, count: 20) { Self.picture($0) }
        #expect(waitUntil { states().contains { $0 == (2, 6) } }, "decoding again after unmuting: \(states())")
        // Statistics of the period: the pause counted as frozen.
        let stats = b.video.takeRemoteStats(periodMs: 2000)
        let s = try #require(stats.first { $0.uid == 1 })
        #expect(s.width == 320 && s.height == 240)
        #expect(s.totalFrozenTime >= 500, "the one-second pause is frozen time: \(s)")
        #expect(s.totalActiveTime > s.totalFrozenTime)
        #expect(s.frozenRate == s.totalFrozenTime * 100 / s.totalActiveTime)
        #expect(s.receivedBitrate > 0 && s.decoderOutputFrameRate > 0 && s.rendererOutputFrameRate > 0)
        #expect(s.publishDuration > 2000)
        let local = try #require(a.video.takeLocalStats(periodMs: 2000))
        #expect(local.encodedFrameWidth == 320 && local.encodedFrameHeight == 240 && local.sentBitrate > 0)
        #expect(local.codecType == 1 && local.targetFrameRate == 15)
        // A leaves: STOPPED with REMOTE_OFFLINE.
        try a.leaveChannel()
        #expect(waitUntil { states().last.map { $0 == (0, 7) } ?? false }, "\(states())")
    }

    @Test func observersPreviewRotationSnapshotsAndWatermarks() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("video-observers")
        let events = Locked<[EngineEvent]>([])
        let a = try Self.engine(server, dir, "a", events: events), b = try Self.engine(server, dir, "b", events: events)
        defer { for e in [a, b] { try? e.release(sync: true) } }
        var config = VideoEncoderConfiguration()
        config.width = 320
        config.height = 240
        config.bitrate = 600
        try a.setVideoEncoderConfiguration(config)
        a.setVideoEnabled(true)
        a.setExternalVideoSource(enabled: true)
        b.setVideoEnabled(true)
        // The capture observer paints the top-left 32x32 block white; the render observer counts.
        let rendered = Locked(0)
        try a.registerVideoFrameObserver(VideoFrameObserver(position: 1 | 4, onCapture: { f in
            for y in 200..<232 { for x in 0..<32 { f.y[y * f.yStride + x] = 250 } }
            return true
        }))
        try b.registerVideoFrameObserver(VideoFrameObserver(onRender: { _, _ in
            rendered.withLock { $0 += 1 }
            return true
        }))
        // The local canvas mirrors by default: the painted block shows at the right.
        let preview = Locked<(Int, UInt8, UInt8)?>(nil)
        try a.setupLocalVideo(canvas: VideoCanvas { uid, f in
            preview.withLock { $0 = (Int(uid), f.y[215 * f.yStride + 5], f.y[215 * f.yStride + f.width - 5]) }
        })
        a.setPreview(true)
        let remote = Locked<(Int, Int, UInt8, UInt8)?>(nil)
        try b.setupRemoteVideo(uid: 1, canvas: VideoCanvas { _, f in
            remote.withLock { $0 = (f.width, f.height, f.y[215 * f.yStride + 10], f.v[(8 / 2) * f.uvStride + 8 / 2]) }
        })
        try a.joinChannel(token: "", channel: "observers", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "observers", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        // Pushed as 240x320 turned by 90 degrees: it arrives as 320x240.
        try Self.run(a, from: 0, count: 15, rotation: 90) { n in
            PixelConversion.rotated(Self.picture(n), degrees: 270)!
        }
        #expect(waitUntil { remote.withLock { $0 != nil } })
        let r = remote.withLock { $0! }
        #expect(r.0 == 320 && r.1 == 240, "rotated upright: \(r)")
        #expect(r.2 > 200, "the capture observer's block reached the receiver: \(r)")
        #expect(rendered.withLock { $0 } > 0)
        let p = preview.withLock { $0 }
        #expect(p?.0 == 0 && (p?.2 ?? 0) > 200 && (p?.1 ?? 255) < 200, "the preview is mirrored: \(String(describing: p))")
        #expect(Self.videoEvents(events).contains { if case .firstLocalVideoFrame(320, 240, _) = $0 { true } else { false } })
        #expect(Self.videoEvents(events).contains(.localVideoStateChanged(state: 2, error: 0)))

        // Snapshots of the remote user and of the local picture.
        try b.takeSnapshot(uid: 1, path: dir + "/remote.jpg")
        try a.takeSnapshot(uid: 0, path: dir + "/local.png")
        #expect(throws: AgoraError.invalidArgument) { try a.takeSnapshot(uid: 0, path: dir + "/local.bmp") }
        // A red watermark at the top right of the sent picture.
        let red = RGBAImage(width: 16, height: 16, pixels: Array((0..<256).flatMap { _ in [UInt8(255), 0, 0, 255] }))
        let png = dir + "/mark.png"
        try ImageFile.writePNG(try Self.rgbaToI420(red), to: png)
        try a.addVideoWatermark(path: png, visibleInPreview: false, landscape: (0, 0, 32, 32), portrait: (0, 0, 32, 32))
        #expect(throws: AgoraError.invalidArgument) {
            try a.addVideoWatermark(path: dir + "/a.log", visibleInPreview: false, landscape: (0, 0, 8, 8), portrait: (0, 0, 8, 8))
        }
        try Self.run(a, from: 15, count: 15, rotation: 90) { n in PixelConversion.rotated(Self.picture(n), degrees: 270)! }
        #expect(waitUntil { Self.videoEvents(events).filter { if case .snapshotTaken(_, _, _, _, 0) = $0 { true } else { false } }.count == 2 })
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/remote.jpg")))
        #expect(jpeg.prefix(2) == [0xFF, 0xD8] && jpeg.suffix(2) == [0xFF, 0xD9])
        let local = try ImageFile.readPNG(path: dir + "/local.png")
        #expect(local.width == 320 && local.height == 240)
        #expect(waitUntil { remote.withLock { ($0?.3 ?? 0) > 170 } }, "the watermark's red shows in V: \(String(describing: remote.withLock { $0 }))")
        a.clearVideoWatermarks()
    }

    /// An RGBA image as an I420 picture (for writing a test PNG through the library).
    static func rgbaToI420(_ img: RGBAImage) throws -> I420Frame {
        try img.pixels.withUnsafeBytes { raw in
            try #require(PixelConversion.i420(PictureSource(format: .rgba, width: img.width, height: img.height,
                                                            plane0: raw.baseAddress!, stride0: img.width * 4,
                                                            plane1: nil, stride1: 0, plane2: nil, stride2: 0)))
        }
    }

    @Test func withoutACameraLocalVideoFailsWithDeviceNotFoundAndPushingStillWorks() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("video-camera")
        let events = Locked<[EngineEvent]>([])
        let a = try Self.engine(server, dir, "a", events: events)
        defer { try? a.release(sync: true) }
        #expect(a.videoDevices().isEmpty || FileManager.default.fileExists(atPath: "/dev/video0"))
        guard a.videoDevices().isEmpty else { return }
        #expect(a.videoDevice() == nil)
        #expect(throws: AgoraError.notSupported) { try a.switchCamera() }
        a.setVideoEnabled(true)
        a.setPreview(true)
        #expect(waitUntil { Self.videoEvents(events).contains(.localVideoStateChanged(state: 3, error: 8)) })
        try a.setVideoDevice("/dev/video9")
        #expect(waitUntil { Self.videoEvents(events).contains(.localVideoStateChanged(state: 3, error: 10)) })
        a.setExternalVideoSource(enabled: true)
        try Self.push(a, Self.picture(0), 0)
        #expect(waitUntil { Self.videoEvents(events).contains(.localVideoStateChanged(state: 1, error: 0)) })
    }

    @Test func underTwentyPercentLossLostVideoPacketsComeBackAsRetransmissions() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("video-nack")
        let a = try Self.engine(server, dir, "a"), b = try Self.engine(server, dir, "b")
        defer { for e in [a, b] { try? e.release(sync: true) } }
        try b.setParameters(#"{"rtc.network_simulation": {"loss_percent": 20, "seed": 21}}"#)
        var config = VideoEncoderConfiguration()
        config.width = 320
        config.height = 240
        config.bitrate = 400
        try a.setVideoEncoderConfiguration(config)
        a.setVideoEnabled(true)
        a.setExternalVideoSource(enabled: true)
        b.setVideoEnabled(true)
        let numbers = Locked<[Int]>([])
        try b.setupRemoteVideo(uid: 1) { _, f in
            numbers.withLock { $0.append(LoopbackVideoTests.frameNumber(f.y, stride: f.yStride)) }
        }
        try a.joinChannel(token: "", channel: "nack", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "nack", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        try Self.run(a, from: 0, count: 60) { Self.picture($0) }
        _ = waitUntil(seconds: 2) { numbers.withLock { $0.last ?? 0 } >= 59 }
        let got = numbers.withLock { $0 }
        let r = b.video.retransmissionCounters.withLock { $0 }
        let plis = b.video.keyframeCounters.withLock { $0.plisSent }
        let asked = server.mediaCounters!.nackRequests.load(ordering: .relaxed)
        let sent = server.mediaCounters!.retransmitted.load(ordering: .relaxed)
        #expect(r.nacked > 0 && asked > 0 && sent > 0, "NACKs went out and were answered: \(r), server \(asked)/\(sent)")
        #expect(r.recovered > 0, "retransmissions filled the gaps: \(r)")
        // Nearly every picture is shown, in order, without waiting for keyframes.
        #expect(got.count >= 54, "rendered \(got.count) of 60 under 20% loss (\(plis) PLIs)")
        #expect(zip(got, got.dropFirst()).allSatisfy { $0 < $1 })
        #expect(plis <= 3, "retransmission, not keyframes, recovered the losses: \(plis) PLIs")
    }

    @Test func networkQualityAndLossRatesFollowTheSimulatedLoss() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("video-quality")
        let aEvents = Locked<[EngineEvent]>([]), bEvents = Locked<[EngineEvent]>([])
        let a = try Self.engine(server, dir, "a", events: aEvents), b = try Self.engine(server, dir, "b", events: bEvents)
        defer { for e in [a, b] { try? e.release(sync: true) } }
        try b.setParameters(#"{"rtc.network_simulation": {"loss_percent": 20, "seed": 8}, "rtc.audio_loss_recovery": false}"#)
        #expect(try b.parameter("rtc.audio_loss_recovery") == "false")
        var config = VideoEncoderConfiguration()
        config.width = 320
        config.height = 240
        try a.setVideoEncoderConfiguration(config)
        a.setVideoEnabled(true)
        a.setExternalVideoSource(enabled: true)
        b.setVideoEnabled(true)
        try b.setupRemoteVideo(uid: 1) { _, _ in }
        try a.joinChannel(token: "", channel: "quality", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "quality", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        try Self.run(a, from: 0, count: 75) { Self.picture($0) }
        func qualities(_ l: Locked<[EngineEvent]>) -> [(UInt32, Int32, Int32)] {
            l.withLock { $0.compactMap { if case .audio(.networkQuality(let u, let t, let r)) = $0 { (u, t, r) } else { nil } } }
        }
        func stats(_ l: Locked<[EngineEvent]>) -> [RtcStats] {
            l.withLock { $0.compactMap { if case .audio(.rtcStats(let s)) = $0 { s } else { nil } } }
        }
        #expect(waitUntil { qualities(bEvents).contains { $0.0 == 1 } && stats(aEvents).count >= 2 })
        // B receives A through 20 % loss: POOR or worse for uid 1, and its own downlink too.
        let bq = qualities(bEvents)
        #expect(bq.contains { $0.0 == 1 && $0.1 == 0 && $0.2 >= 3 }, "\(bq)")
        #expect(bq.contains { $0.0 == 0 && $0.2 >= 3 }, "\(bq)")
        #expect(stats(bEvents).contains { $0.rxPacketLossRate >= 5 && $0.rxVideoKBitRate > 0 })
        // A's uplink is clean: nothing asked again, excellent or good.
        let aq = qualities(aEvents)
        #expect(aq.contains { $0.0 == 0 && $0.1 <= 2 }, "\(aq)")
        let last = try #require(stats(aEvents).last)
        #expect(last.txPacketLossRate == 0 && last.txVideoKBitRate > 0 && last.gatewayRtt >= 0)
        #expect(networkQuality(lossPercent: 0, rttMs: 20) == 1 && networkQuality(lossPercent: 5, rttMs: 20) == 3
                && networkQuality(lossPercent: 2, rttMs: 250) == 3 && networkQuality(lossPercent: 50, rttMs: 0) == 6)
    }

    @Test func uplinkLossIsRepairedBetweenPublisherAndServer() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("video-uplink")
        let a = try Self.engine(server, dir, "a"), b = try Self.engine(server, dir, "b")
        defer { for e in [a, b] { try? e.release(sync: true) } }
        try a.setParameters(#"{"rtc.network_simulation_send": {"loss_percent": 20, "seed": 5}}"#)
        var config = VideoEncoderConfiguration()
        config.width = 320
        config.height = 240
        config.bitrate = 400
        try a.setVideoEncoderConfiguration(config)
        a.setVideoEnabled(true)
        a.setExternalVideoSource(enabled: true)
        b.setVideoEnabled(true)
        let numbers = Locked<[Int]>([])
        try b.setupRemoteVideo(uid: 1) { _, f in
            numbers.withLock { $0.append(LoopbackVideoTests.frameNumber(f.y, stride: f.yStride)) }
        }
        try a.joinChannel(token: "", channel: "uplink", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "uplink", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        try Self.run(a, from: 0, count: 60) { Self.picture($0) }
        _ = waitUntil(seconds: 2) { numbers.withLock { $0.last ?? 0 } >= 59 }
        let got = numbers.withLock { $0 }
        let c = server.mediaCounters!
        let asked = c.nackedUpstream.load(ordering: .relaxed), back = c.recoveredUpstream.load(ordering: .relaxed)
        let r = a.video.retransmissionCounters.withLock { $0 }
        #expect(asked > 0 && back > 0, "the server asked A again and got packets back: \(asked)/\(back)")
        #expect(r.requested > 0 && r.retransmitted > 0, "A answered with RTX: \(r)")
        #expect(got.count >= 54, "rendered \(got.count) of 60 with 20 % uplink loss")
        #expect(zip(got, got.dropFirst()).allSatisfy { $0 < $1 })
        #expect(b.video.keyframeCounters.withLock { $0.plisSent } <= 3)
        // The server's receiver reports answer A's sender reports: a round trip, and the uplink loss it saw.
        let transport = try #require(a.link.media.withLock { $0 })
        #expect(transport.rttSamples.withLock { $0.rtcp } != nil, "a round trip from RTCP")
        #expect(transport.uplinkLoss.withLock { $0 } >= 5, "uplink loss reported: \(transport.uplinkLoss.withLock { $0 })")
    }
}
