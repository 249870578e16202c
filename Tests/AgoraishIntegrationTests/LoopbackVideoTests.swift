@testable import AgoraishEngine
import AgoraishIO
import AgoraishMedia
import AgoraishServer
import AgoraishSession
import AgoraishTesting
import AgoraishWire
import Foundation
import Testing

/// What a render sink saw.
struct RenderedPicture: Sendable {
    var number: Int
    var psnr: Double
    var width: Int
    var height: Int
}

/// Pictures pushed into one engine are rendered by another, through the real
/// server, VP8 and RTP.
@Suite(.serialized) struct LoopbackVideoTests {
    /// A 320x240 picture whose frame number is written as 8 bars along the top
    /// (dark = 1) over a moving gradient.
    static func picture(_ n: Int) -> I420Frame {
        var f = I420Frame(width: 320, height: 240)
        for y in 0..<240 {
            for x in 0..<320 { f.y[y * 320 + x] = UInt8(60 + (x + 2 * n + y) % 120) }
        }
        for bit in 0..<8 {
            let value: UInt8 = n >> bit & 1 == 1 ? 16 : 235
            for y in 0..<24 { for x in (bit * 40 + 4)..<(bit * 40 + 36) { f.y[y * 320 + x] = value } }
        }
        return f
    }

    static func frameNumber(_ y: UnsafeBufferPointer<UInt8>, stride: Int) -> Int {
        var n = 0
        for bit in 0..<8 where y[12 * stride + bit * 40 + 20] < 128 { n |= 1 << bit }
        return n
    }

    @Test func picturesArriveInOrderAtTheirSizeAndQuality() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let app = "0123456789abcdef0123456789abcdef"
        let dir = makeTemporaryDirectory("video")
        let decoded = Locked<[VideoEvent]>([])
        let a = try RtcEngine(configuration: .init(appId: app, serverURL: server.url, logFile: dir + "/a.log")) { _ in }
        let b = try RtcEngine(configuration: .init(appId: app, serverURL: server.url, logFile: dir + "/b.log")) { event in
            if case .video(let e) = event { decoded.withLock { $0.append(e) } }
        }
        defer {
            try? a.release(sync: true)
            try? b.release(sync: true)
        }
        var config = VideoEncoderConfiguration()
        config.width = 320
        config.height = 240
        config.frameRate = 15
        config.bitrate = 600
        try a.setVideoEncoderConfiguration(config)
        a.setVideoEnabled(true)
        a.setExternalVideoSource(enabled: true)
        b.setVideoEnabled(true)
        let seen = Locked<[RenderedPicture]>([])
        try b.setupRemoteVideo(uid: 1) { _, frame in
            let n = Self.frameNumber(frame.y, stride: frame.yStride)
            let expected = Self.picture(n)
            var got = I420Frame(width: frame.width, height: frame.height)
            for row in 0..<frame.height {
                for x in 0..<frame.width { got.y[row * frame.width + x] = frame.y[row * frame.yStride + x] }
            }
            let psnr = got.width == 320 && got.height == 240 ? got.lumaPSNR(expected) : 0
            seen.withLock { $0.append(RenderedPicture(number: n, psnr: psnr, width: frame.width, height: frame.height)) }
        }
        try a.joinChannel(token: "", channel: "video", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "video", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })

        // Three seconds at 15 fps, in real time.
        var deadline = Instant.now()
        for n in 0..<45 {
            let p = Self.picture(n)
            try p.y.withUnsafeBytes { y in
                try p.u.withUnsafeBytes { u in
                    try p.v.withUnsafeBytes { v in
                        try a.pushExternalVideoFrame(width: 320, height: 240, y: y.baseAddress!, yStride: 320,
                                                     u: u.baseAddress!, uStride: 160, v: v.baseAddress!, vStride: 160,
                                                     timestampMs: Int64(n) * 1000 / 15)
                    }
                }
            }
            deadline = deadline + .milliseconds(66)
            sleepUntil(deadline)
        }
        #expect(waitUntil { seen.withLock { $0.last?.number == 44 } })
        let frames = seen.withLock { $0 }
        #expect(frames.count >= 40, "rendered \(frames.count) of 45")
        // The first picture too: frames wait for signaling to name the stream's owner.
        #expect(frames.first?.number == 0, "the first picture rendered was \(frames.first?.number ?? -1)")
        #expect(frames.allSatisfy { $0.width == 320 && $0.height == 240 })
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.number < $1.number }, "in order")
        let worst = frames.map { $0.psnr }.min() ?? 0
        #expect(worst > 30, "luma PSNR at 600 kbps: worst \(worst) dB")
        let first = decoded.withLock { $0.first { if case .firstRemoteVideoDecoded = $0 { true } else { false } } }
        #expect(first == .firstRemoteVideoDecoded(uid: 1, width: 320, height: 240, elapsedMs: first.flatMap {
            if case .firstRemoteVideoDecoded(_, _, _, let e) = $0 { e } else { nil }
        } ?? -1))
        // Unbinding stops delivery at once.
        try b.setupRemoteVideo(uid: 1, sink: nil)
        #expect(throws: AgoraError.invalidArgument) { try b.setupRemoteVideo(uid: 0, sink: nil) }
    }

    @Test func underLossTheReceiverRecoversThroughKeyframeRequests() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let app = "0123456789abcdef0123456789abcdef"
        let dir = makeTemporaryDirectory("video-loss")
        let a = try RtcEngine(configuration: .init(appId: app, serverURL: server.url, logFile: dir + "/a.log")) { _ in }
        let b = try RtcEngine(configuration: .init(appId: app, serverURL: server.url, logFile: dir + "/b.log")) { _ in }
        defer {
            try? a.release(sync: true)
            try? b.release(sync: true)
        }
        try b.setParameters(#"{"rtc.network_simulation": {"loss_percent": 5, "seed": 11}}"#)
        var config = VideoEncoderConfiguration()
        config.width = 320
        config.height = 240
        config.bitrate = 300
        try a.setVideoEncoderConfiguration(config)
        a.setVideoEnabled(true)
        a.setExternalVideoSource(enabled: true)
        b.setVideoEnabled(true)
        let numbers = Locked<[Int]>([])
        try b.setupRemoteVideo(uid: 1) { _, frame in
            let n = Self.frameNumber(frame.y, stride: frame.yStride)
            numbers.withLock { $0.append(n) }
        }
        try a.joinChannel(token: "", channel: "video-loss", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "video-loss", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        var deadline = Instant.now()
        for n in 0..<60 {
            let p = Self.picture(n)
            try p.y.withUnsafeBytes { y in
                try p.u.withUnsafeBytes { u in
                    try p.v.withUnsafeBytes { v in
                        try a.pushExternalVideoFrame(width: 320, height: 240, y: y.baseAddress!, yStride: 320,
                                                     u: u.baseAddress!, uStride: 160, v: v.baseAddress!, vStride: 160,
                                                     timestampMs: Int64(n) * 1000 / 15)
                    }
                }
            }
            deadline = deadline + .milliseconds(66)
            sleepUntil(deadline)
        }
        _ = waitUntil(seconds: 1) { numbers.withLock { $0.last ?? 0 } >= 59 }
        let got = numbers.withLock { $0 }
        let lost = b.link.simulation.withLock { $0?.dropped ?? 0 }
        let b_ = b.video.keyframeCounters.withLock { $0 }, a_ = a.video.keyframeCounters.withLock { $0 }
        #expect(lost > 0, "the simulated network dropped packets: \(String(describing: b.link.simulation.withLock { $0 }))")
        #expect(b_.plisSent > 0 && a_.requestsReceived > 0, "keyframes were asked for: \(b_) \(a_)")
        #expect(a_.keyframesSent >= 2, "the sender answered with keyframes: \(a_)")
        // Pictures keep coming after the losses, in order, up to the end.
        #expect(got.count >= 30, "rendered \(got.count) of 60 under 5% loss")
        #expect((got.last ?? 0) >= 50, "pictures of the last second arrived: \(got.suffix(5))")
        #expect(zip(got, got.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func videoMutesReachTheOthersAndTheServerWithholdsUnwantedVideo() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let app = "0123456789abcdef0123456789abcdef"
        let dir = makeTemporaryDirectory("video-mute")
        let events = Locked<[ClientSession.Event]>([])
        let a = try RtcEngine(configuration: .init(appId: app, serverURL: server.url, logFile: dir + "/a.log")) { _ in }
        let b = try RtcEngine(configuration: .init(appId: app, serverURL: server.url, logFile: dir + "/b.log")) { event in
            if case .channel(let e) = event, case .userMuteVideo = e { events.withLock { $0.append(e) } }
        }
        defer {
            try? a.release(sync: true)
            try? b.release(sync: true)
        }
        var config = VideoEncoderConfiguration()
        config.width = 160
        config.height = 120
        config.bitrate = 150
        try a.setVideoEncoderConfiguration(config)
        a.setVideoEnabled(true)
        a.setExternalVideoSource(enabled: true)
        b.setVideoEnabled(true)
        let rendered = Locked(0)
        try b.setupRemoteVideo(uid: 1) { _, _ in rendered.withLock { $0 += 1 } }
        try a.joinChannel(token: "", channel: "video-mute", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "video-mute", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        var n = 0
        func push(_ count: Int) throws {
            var deadline = Instant.now()
            for _ in 0..<count {
                let p = I420Frame(width: 160, height: 120)
                try p.y.withUnsafeBytes { y in
                    try p.u.withUnsafeBytes { u in
                        try p.v.withUnsafeBytes { v in
                            try a.pushExternalVideoFrame(width: 160, height: 120, y: y.baseAddress!, yStride: 160,
                                                         u: u.baseAddress!, uStride: 80, v: v.baseAddress!, vStride: 80,
                                                         timestampMs: Int64(n) * 66)
                        }
                    }
                }
                n += 1
                deadline = deadline + .milliseconds(66)
                sleepUntil(deadline)
            }
        }
        try push(10)
        #expect(waitUntil { rendered.withLock { $0 } >= 5 })
        // B stops receiving A's video: the server withholds B's copies.
        let withheld = server.mediaCounters!.drops(.unsubscribed)
        try b.muteRemoteVideoStream(uid: 1, mute: true)
        try push(3)  // lets the subscription reach the server
        let before = rendered.withLock { $0 }
        try push(10)
        #expect(rendered.withLock { $0 } == before, "no picture while muted")
        #expect(server.mediaCounters!.drops(.unsubscribed) >= withheld + 10)
        try b.muteRemoteVideoStream(uid: 1, mute: false)
        try push(10)
        #expect(waitUntil { rendered.withLock { $0 } > before }, "pictures again after unmuting (a keyframe was asked for)")
        // A mutes its video: B hears of it.
        a.muteLocalVideoStream(true)
        #expect(waitUntil { events.withLock { $0.contains(.userMuteVideo(uid: 1, muted: true)) } })
        a.muteLocalVideoStream(false)
        #expect(waitUntil { events.withLock { $0.contains(.userMuteVideo(uid: 1, muted: false)) } })
    }
}
