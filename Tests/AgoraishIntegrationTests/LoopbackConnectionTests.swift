@testable import AgoraishEngine
import AgoraishIO
import AgoraishMedia
import AgoraishServer
import AgoraishSession
import AgoraishTesting
import AgoraishWire
import Foundation
import Synchronization
import Testing

/// One engine in several channels at once (joinChannelEx), with custom audio
/// tracks, through the real server, Opus and the jitter buffers.
@Suite(.serialized) struct LoopbackConnectionTests {
    static let app = "0123456789abcdef0123456789abcdef"

    /// `seconds` of a tone at `hz`, 48 kHz mono, -15 dBFS.
    static func tone(_ hz: Double, seconds: Double) -> [Int16] {
        (0..<Int(48000 * seconds)).map { Int16(8000 * sin(2 * Double.pi * hz * Double($0) / 48000)) }
    }

    /// The frequency of a 16 kHz signal by its zero crossings, over its loud part; 0 when silent.
    static func frequency(_ pcm: [Int16]) -> Double {
        guard let first = pcm.indices.first(where: { abs(Int(pcm[$0])) > 2000 }), pcm.count - first > 8000 else { return 0 }
        let middle = pcm[(first + 1600)..<min(pcm.count, first + 1600 + 8000)]
        guard PCMLevel.rms(Array(middle)) > 1000 else { return 0 }
        var crossings = 0
        for i in middle.indices.dropFirst() where (middle[i - 1] < 0) != (middle[i] < 0) { crossings += 1 }
        return Double(crossings) / 2 / (Double(middle.count) / 16000)
    }

    /// Pulls each engine's sink every 10 ms in real time for `ms`.
    static func listen(_ engines: [RtcEngine], ms: Int) throws -> [[Int16]] {
        var heard = [[Int16]](repeating: [], count: engines.count)
        var frame = [Int16](repeating: 0, count: 160)
        var deadline = Instant.now()
        for _ in 0..<(ms / 10) {
            for (i, e) in engines.enumerated() {
                try frame.withUnsafeMutableBufferPointer { try e.audio.pull(into: $0, now: .now()) }
                heard[i] += frame
            }
            deadline = deadline + .milliseconds(10)
            sleepUntil(deadline)
        }
        return heard
    }

    @Test func oneEngineInTwoChannelsHearsEachAndPublishesATrackToEach() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("connections")
        func engine(_ name: String) throws -> RtcEngine {
            try RtcEngine(configuration: .init(appId: Self.app, serverURL: server.url, logFile: "\(dir)/\(name).log")) { _ in }
        }
        let red = try engine("red"), blue = try engine("blue"), e = try engine("e")
        let exEvents = Locked<[ClientSession.Event]>([])
        defer {
            try? e.release(sync: true)
            try? red.release(sync: true)
            try? blue.release(sync: true)
        }
        // A peer in each channel, each sending its own tone and listening.
        for (peer, channel, uid) in [(red, "red", UInt32(11)), (blue, "blue", UInt32(21))] {
            try peer.setExternalAudioSource(enabled: true, sampleRate: 48000, channels: 1)
            try peer.setExternalAudioSink(sampleRate: 16000, channels: 1)
            try peer.joinChannel(token: "", channel: channel, info: "", uid: uid)
        }
        // E: its own connection in "red" publishes track 1, a second one in "blue" track 2.
        let t1 = try e.createCustomAudioTrack(type: 0)
        let t2 = try e.createCustomAudioTrack(type: 1)
        #expect(t1 != t2)
        var toRed = ChannelMediaOptions()
        toRed.publishMicrophoneTrack = false
        toRed.publishCustomAudioTrack = true
        toRed.publishCustomAudioTrackId = t1
        try e.setExternalAudioSink(sampleRate: 16000, channels: 1)
        try e.joinChannel(token: "", channel: "red", uid: 1, options: toRed)
        var toBlue = toRed
        toBlue.publishCustomAudioTrackId = t2
        let blueKey = ConnectionKey(channel: "blue", uid: 2)
        try e.joinChannelEx(token: "", connection: blueKey, options: toBlue) { event in
            if case .channel(let c) = event { exEvents.withLock { $0.append(c) } }
        }
        #expect(throws: AgoraError.joinChannelRejected) {
            try e.joinChannelEx(token: "", connection: blueKey, options: toBlue) { _ in }
        }
        let ex = try #require(e.connection(blueKey))
        #expect(ex !== e && e.connection(ConnectionKey(channel: "red", uid: 1)) === e)
        try ex.setExternalAudioSink(sampleRate: 16000, channels: 1)
        #expect(waitUntil {
            e.audio.isMediaBound && ex.audio.isMediaBound && red.audio.isMediaBound && blue.audio.isMediaBound
                && red.link.read { $0.remoteUsers.contains(1) } && blue.link.read { $0.remoteUsers.contains(2) }
                && e.link.read { $0.remoteUsers.contains(11) } && ex.link.read { $0.remoteUsers.contains(21) }
        })
        #expect(exEvents.withLock { $0.contains { if case .joinChannelSuccess("blue", 2, _) = $0 { true } else { false } } })
        // The engine's own connection knows nothing of blue's users, and the reverse.
        #expect(!e.link.read { $0.remoteUsers.contains(21) } && !ex.link.read { $0.remoteUsers.contains(11) })

        let seconds = 1.8
        for (peer, hz) in [(red, 440.0), (blue, 1000.0)] {
            _ = try Self.tone(hz, seconds: seconds).withUnsafeBufferPointer { try peer.pushExternalAudioFrame($0) }
        }
        for (track, hz) in [(t1, 660.0), (t2, 1500.0)] {
            // In pieces of at most a second each, as the call takes them.
            let pcm = Self.tone(hz, seconds: seconds)
            for start in stride(from: 0, to: pcm.count, by: 48000) {
                try pcm[start..<min(pcm.count, start + 48000)].withUnsafeBufferPointer {
                    try e.pushCustomAudioFrame(track: track, samples: $0.baseAddress, samplesPerChannel: $0.count,
                                               sampleRate: 48000, channels: 1)
                }
            }
        }
        let heard = try Self.listen([red, blue, e, ex], ms: 2000).map(Self.frequency)
        #expect(abs(heard[0] - 660) < 20, "red's peer hears track 1 only: \(heard[0]) Hz")
        #expect(abs(heard[1] - 1500) < 30, "blue's peer hears track 2 only: \(heard[1]) Hz")
        #expect(abs(heard[2] - 440) < 20, "E hears red in its own connection: \(heard[2]) Hz")
        #expect(abs(heard[3] - 1000) < 20, "E hears blue in the other: \(heard[3]) Hz")

        // Leaving blue: its handler hears the leave, blue's peer sees E go, red goes on.
        try e.leaveChannelEx(blueKey)
        #expect(throws: AgoraError.leaveChannelRejected) { try e.leaveChannelEx(blueKey) }
        #expect(e.connection(blueKey) == nil)
        #expect(waitUntil { !blue.link.read { $0.remoteUsers.contains(2) } })
        #expect(waitUntil { exEvents.withLock { $0.contains { if case .leaveChannel = $0 { true } else { false } } } })
        #expect(waitUntil { e.leaving.withLock { $0.isEmpty } }, "the connection ended once its leave was reported")
        _ = try Self.tone(440, seconds: 1).withUnsafeBufferPointer { try red.pushExternalAudioFrame($0) }
        let after = try Self.listen([e], ms: 1200).map(Self.frequency)
        #expect(abs(after[0] - 440) < 20, "red still plays after blue was left: \(after[0]) Hz")
        #expect(e.link.read { $0.inChannel && $0.remoteUsers.contains(11) })
    }

    @Test func connectionsPublishTheMicrophoneAndMixTheirPlayoutOnTheDevice() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("connections-device")
        let e = try RtcEngine(configuration: .init(appId: Self.app, serverURL: server.url, logFile: dir + "/e.log")) { _ in }
        defer { try? e.release(sync: true) }
        try e.setAudioDevice(recording: true, id: "null")
        try e.setAudioDevice(recording: false, id: "null")
        var options = ChannelMediaOptions()
        options.enableAudioRecordingOrPlayout = false
        try e.joinChannelEx(token: "", connection: ConnectionKey(channel: "one", uid: 7), options: ChannelMediaOptions()) { _ in }
        try e.joinChannelEx(token: "", connection: ConnectionKey(channel: "two", uid: 7), options: options) { _ in }
        let one = try #require(e.connection(ConnectionKey(channel: "one", uid: 7)))
        let two = try #require(e.connection(ConnectionKey(channel: "two", uid: 7)))
        #expect(waitUntil { one.audio.isMediaBound && two.audio.isMediaBound })
        // The device captures for "one" (it publishes the microphone) and plays its audio;
        // "two" turned the device off. The engine's own connection is in no channel.
        #expect(waitUntil {
            let c = e.device.config.withLock { $0 }
            return !c.capture && !c.playout
                && c.connections.contains { $0.pipeline === one.audio && $0.capture && $0.playout }
                && c.connections.contains { $0.pipeline === two.audio && !$0.capture && !$0.playout }
        })
        #expect(waitUntil { one.audio.local.withLock { $0.published } })
        // Unpublishing the microphone reaches the server as a mute.
        var quiet = ChannelMediaOptions()
        quiet.publishMicrophoneTrack = false
        try one.updateChannelMediaOptions(quiet)
        #expect(one.link.read { $0.localAudioMuted })
        #expect(waitUntil { !e.device.config.withLock { $0.connections.contains { $0.pipeline === one.audio && $0.capture } } })
        // Bad options change nothing.
        var bad = ChannelMediaOptions()
        bad.publishCustomAudioTrack = true
        bad.publishCustomAudioTrackId = 99
        #expect(throws: AgoraError.invalidArgument) { try one.updateChannelMediaOptions(bad) }
        var camera = ChannelMediaOptions()
        camera.publishCameraTrack = true
        camera.publishCustomVideoTrack = true
        #expect(throws: AgoraError.invalidArgument) { try one.updateChannelMediaOptions(camera) }
        #expect(one.tracks.withLock { $0.publishedAudio } == nil)
    }

    @Test func anEngineWithSeveralConnectionsReleasesFromAnotherThread() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("connections-release")
        let e = try RtcEngine(configuration: .init(appId: Self.app, serverURL: server.url, logFile: dir + "/e.log")) { _ in }
        try e.joinChannel(token: "", channel: "main", info: "", uid: 1)
        for i in 0..<3 {
            try e.joinChannelEx(token: "", connection: ConnectionKey(channel: "ex\(i)", uid: UInt32(10 + i)),
                                options: ChannelMediaOptions()) { _ in }
        }
        // Two connections in one channel with different uids.
        try e.joinChannelEx(token: "", connection: ConnectionKey(channel: "main", uid: 2), options: ChannelMediaOptions()) { _ in }
        #expect(throws: AgoraError.joinChannelRejected) {
            try e.joinChannelEx(token: "", connection: ConnectionKey(channel: "main", uid: 1), options: ChannelMediaOptions()) { _ in }
        }
        #expect(waitUntil { e.connectionKeys.allSatisfy { e.connection($0)!.audio.isMediaBound } })
        #expect(waitUntil { e.link.read { $0.remoteUsers.contains(2) } })
        let done = Atomic<Bool>(false)
        let thread = Thread {
            try? e.release(sync: true)
            done.store(true, ordering: .releasing)
        }
        thread.start()
        #expect(waitUntil { done.load(ordering: .acquiring) })
        #expect(e.isReleased && e.connectionKeys.isEmpty)
        #expect(throws: AgoraError.refused) {
            try e.joinChannelEx(token: "", connection: ConnectionKey(channel: "late", uid: 1), options: ChannelMediaOptions()) { _ in }
        }
    }

    @Test func twoCustomVideoTracksArriveAsTwoUsersAndEncodedFramesUnchanged() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("connections-video")
        let e = try RtcEngine(configuration: .init(appId: Self.app, serverURL: server.url, logFile: dir + "/e.log")) { _ in }
        let p = try RtcEngine(configuration: .init(appId: Self.app, serverURL: server.url, logFile: dir + "/p.log")) { _ in }
        defer {
            try? e.release(sync: true)
            try? p.release(sync: true)
        }
        // The peer renders both users and sees uid 2's frames before decoding.
        p.setVideoEnabled(true)
        let sizes = Locked<[UInt32: [Int]]>([:])
        for uid: UInt32 in [1, 2] {
            try p.setupRemoteVideo(uid: uid) { _, frame in sizes.withLock { $0[uid, default: []].append(frame.width * 10000 + frame.height) } }
        }
        let observed = Locked<[(UInt32, [UInt8], EncodedVideoFrameInfo)]>([])
        try p.registerVideoEncodedFrameObserver { data, info in observed.withLock { $0.append((info.uid, data, info)) } }
        try p.joinChannel(token: "", channel: "cams", info: "", uid: 9)

        let raw = try e.createCustomVideoTrack(encoded: false)
        let encoded = try e.createCustomVideoTrack(encoded: true)
        var first = ChannelMediaOptions()
        first.publishMicrophoneTrack = false
        first.publishCustomVideoTrack = true
        first.customVideoTrackId = raw
        try e.joinChannel(token: "", channel: "cams", uid: 1, options: first)
        var second = ChannelMediaOptions()
        second.publishMicrophoneTrack = false
        second.publishEncodedVideoTrack = true
        second.customVideoTrackId = encoded
        let key = ConnectionKey(channel: "cams", uid: 2)
        try e.joinChannelEx(token: "", connection: key, options: second) { _ in }
        // A raw track is not an encoded one.
        var wrong = second
        wrong.customVideoTrackId = raw
        #expect(throws: AgoraError.invalidArgument) { try e.connection(key)!.updateChannelMediaOptions(wrong) }
        #expect(throws: AgoraError.invalidArgument) {
            try e.pushEncodedVideoFrame(track: raw, [1, 2, 3], info: EncodedVideoFrameInfo())
        }
        #expect(waitUntil {
            e.audio.isMediaBound && e.connection(key)!.audio.isMediaBound && p.audio.isMediaBound
                && p.link.read { $0.remoteUsers.isSuperset(of: [1, 2]) }
        })

        // A second connection of the peer receives video because its engine enabled it,
        // publishing none itself.
        let viewerKey = ConnectionKey(channel: "cams", uid: 12)
        try p.joinChannelEx(token: "", connection: viewerKey, options: ChannelMediaOptions()) { _ in }
        let viewer = try #require(p.connection(viewerKey))
        let viewed = Locked(0)
        try viewer.setupRemoteVideo(uid: 1) { _, _ in viewed.withLock { $0 += 1 } }
        #expect(waitUntil { viewer.audio.isMediaBound && viewer.link.read { $0.remoteUsers.contains(1) } })
        #expect(viewer.video.settings.withLock { $0.enabled && $0.externalSource && !$0.sending })

        // 1.5 s at 15 fps: a 320x240 picture into the raw track, a 160x120
        // frame encoded here with libvpx into the encoded one.
        let encoder = try VideoEncoder(settings: .init(codec: .vp8, width: 160, height: 120, frameRate: 15,
                                                       bitrateKbps: 200, keyframeInterval: 45))
        var pushed: [[UInt8]] = []
        var deadline = Instant.now()
        for n in 0..<23 {
            var big = I420Frame(width: 320, height: 240)
            for i in big.y.indices { big.y[i] = UInt8(truncatingIfNeeded: i / 320 + n * 4) }
            let source = big.y.withUnsafeBytes { y in big.u.withUnsafeBytes { u in big.v.withUnsafeBytes { v in
                PictureSource(format: .i420, width: 320, height: 240, plane0: y.baseAddress!, stride0: 320,
                              plane1: u.baseAddress!, stride1: 160, plane2: v.baseAddress!, stride2: 160)
            } } }
            try withExtendedLifetime(big) {
                try e.pushExternalVideoFrame(track: raw, source, timestampMs: Int64(n) * 66)
            }
            var small = I420Frame(width: 160, height: 120)
            for i in small.y.indices { small.y[i] = UInt8(truncatingIfNeeded: i % 160 + n * 8) }
            for f in try encoder.encode(small, pts: Int64(n) * 6000, keyframe: n == 0) {
                var info = EncodedVideoFrameInfo()
                info.frameType = f.isKeyframe ? 3 : 4
                info.width = 160
                info.height = 120
                info.captureTimeMs = Int64(n) * 66
                #expect(try e.pushEncodedVideoFrame(track: encoded, f.data, info: info) == 1)
                pushed.append(f.data)
            }
            deadline = deadline + .milliseconds(66)
            sleepUntil(deadline)
        }
        #expect(waitUntil { sizes.withLock { ($0[1]?.count ?? 0) >= 18 && ($0[2]?.count ?? 0) >= pushed.count - 2 } })
        let seen = sizes.withLock { $0 }
        #expect(seen[1]?.allSatisfy { $0 == 320 * 10000 + 240 } == true, "uid 1 at 320x240: \(seen[1] ?? [])")
        #expect(seen[2]?.allSatisfy { $0 == 160 * 10000 + 120 } == true, "uid 2 at 160x120: \(seen[2] ?? [])")
        // The frames of uid 2 arrive as pushed, in order, before they are decoded.
        let frames = observed.withLock { $0.filter { $0.0 == 2 } }
        #expect(frames.count >= pushed.count - 2, "\(frames.count) of \(pushed.count) observed")
        #expect(frames.first?.2.isKeyframe == true && frames.first?.2.width == 160 && frames.first?.2.height == 120)
        let matched = frames.map(\.1).filter { f in pushed.contains(f) }
        #expect(matched.count == frames.count, "every observed frame is a pushed one, unchanged")
        let order = matched.compactMap { f in pushed.firstIndex(of: f) }
        #expect(order == order.sorted(), "in order")
        #expect(observed.withLock { $0.contains { $0.0 == 1 } }, "uid 1's frames are observed too")
        #expect(viewed.withLock { $0 } >= 15, "the peer's second connection rendered \(viewed.withLock { $0 }) of uid 1's pictures")
        // Destroying the raw track stops uid 1's video; uid 2 goes on.
        try e.destroyCustomVideoTrack(raw)
        #expect(e.tracks.withLock { $0.publishedVideo } == nil)
        #expect(!e.video.settings.withLock { $0.enabled })
    }

    @Test func anotherConnectionPublishesTheEnginesCamera() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("connections-camera")
        func engine(_ name: String) throws -> RtcEngine {
            try RtcEngine(configuration: .init(appId: Self.app, serverURL: server.url, logFile: "\(dir)/\(name).log")) { _ in }
        }
        let e = try engine("e"), red = try engine("red"), blue = try engine("blue")
        defer { for x in [e, red, blue] { try? x.release(sync: true) } }
        // A peer in each channel renders E.
        let widths = Locked<[String: [Int]]>([:])
        for (peer, channel, uid, name) in [(red, "cam-red", UInt32(11), "red"), (blue, "cam-blue", UInt32(21), "blue")] {
            peer.setVideoEnabled(true)
            try peer.setupRemoteVideo(uid: name == "red" ? 1 : 2) { _, f in widths.withLock { $0[name, default: []].append(f.width) } }
            try peer.joinChannel(token: "", channel: channel, info: "", uid: uid)
        }
        // E's local video (an external source here, as the camera would be) goes to its own
        // connection in red and, with publishCameraTrack, to its connection in blue.
        var config = VideoEncoderConfiguration()
        config.width = 320
        config.height = 240
        try e.setVideoEncoderConfiguration(config)
        e.setVideoEnabled(true)
        e.setExternalVideoSource(enabled: true)
        try e.joinChannel(token: "", channel: "cam-red", info: "", uid: 1)
        var toBlue = ChannelMediaOptions()
        toBlue.publishMicrophoneTrack = false
        toBlue.publishCameraTrack = true
        let key = ConnectionKey(channel: "cam-blue", uid: 2)
        try e.joinChannelEx(token: "", connection: key, options: toBlue) { _ in }
        let ex = try #require(e.connection(key))
        #expect(waitUntil { [e, ex, red, blue].allSatisfy { $0.audio.isMediaBound } })
        try LoopbackVideoFeatureTests.run(e, from: 0, count: 20) { LoopbackVideoFeatureTests.picture($0) }
        #expect(waitUntil { widths.withLock { ($0["red"]?.count ?? 0) >= 5 && ($0["blue"]?.count ?? 0) >= 5 } },
                "both channels see E: \(widths.withLock { $0.mapValues(\.count) })")
        #expect(widths.withLock { $0["blue"]?.allSatisfy { $0 == 320 } } == true)
        // Encoded once: blue sends the frames of the engine's encoder and has none of its own.
        #expect(e.video.send.withLock { $0.high.encoder } != nil && ex.video.send.withLock { $0.high.encoder } == nil)

        // Blue stops publishing the camera: red goes on, blue gets nothing more.
        toBlue.publishCameraTrack = false
        try ex.updateChannelMediaOptions(toBlue)
        try LoopbackVideoFeatureTests.run(e, from: 20, count: 5) { LoopbackVideoFeatureTests.picture($0) }
        let (r, b) = widths.withLock { ($0["red"]?.count ?? 0, $0["blue"]?.count ?? 0) }
        try LoopbackVideoFeatureTests.run(e, from: 25, count: 15) { LoopbackVideoFeatureTests.picture($0) }
        #expect(waitUntil { (widths.withLock { $0["red"]?.count } ?? 0) >= r + 8 })
        #expect(widths.withLock { $0["blue"]?.count ?? 0 } <= b + 1, "blue no longer gets E's pictures")
    }

    @Test func aCustomVideoTrackPublishedByTwoConnectionsIsEncodedOnce() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("connections-shared-track")
        func engine(_ name: String) throws -> RtcEngine {
            try RtcEngine(configuration: .init(appId: Self.app, serverURL: server.url, logFile: "\(dir)/\(name).log")) { _ in }
        }
        let e = try engine("e"), one = try engine("one"), two = try engine("two")
        defer { for x in [e, one, two] { try? x.release(sync: true) } }
        let counts = Locked<[String: Int]>([:])
        for (peer, channel, name) in [(one, "shared-1", "one"), (two, "shared-2", "two")] {
            peer.setVideoEnabled(true)
            try peer.setupRemoteVideo(uid: name == "one" ? 1 : 2) { _, _ in counts.withLock { $0[name, default: 0] += 1 } }
            try peer.joinChannel(token: "", channel: channel, info: "", uid: name == "one" ? 11 : 21)
        }
        let track = try e.createCustomVideoTrack(encoded: false)
        var options = ChannelMediaOptions()
        options.publishMicrophoneTrack = false
        options.publishCustomVideoTrack = true
        options.customVideoTrackId = track
        try e.joinChannel(token: "", channel: "shared-1", uid: 1, options: options)
        let key = ConnectionKey(channel: "shared-2", uid: 2)
        try e.joinChannelEx(token: "", connection: key, options: options) { _ in }
        let ex = try #require(e.connection(key))
        #expect(waitUntil { [e, ex, one, two].allSatisfy { $0.audio.isMediaBound } })
        var deadline = Instant.now()
        for n in 0..<20 {
            let f = LoopbackVideoFeatureTests.picture(n)
            try f.y.withUnsafeBytes { y in
                try f.u.withUnsafeBytes { u in
                    try f.v.withUnsafeBytes { v in
                        try e.pushExternalVideoFrame(track: track, PictureSource(
                            format: .i420, width: f.width, height: f.height, plane0: y.baseAddress!, stride0: f.width,
                            plane1: u.baseAddress!, stride1: f.chromaWidth, plane2: v.baseAddress!, stride2: f.chromaWidth),
                            timestampMs: Int64(n) * 66)
                    }
                }
            }
            deadline = deadline + .milliseconds(66)
            sleepUntil(deadline)
        }
        #expect(waitUntil { counts.withLock { ($0["one"] ?? 0) >= 5 && ($0["two"] ?? 0) >= 5 } },
                "both channels see the track: \(counts.withLock { $0 })")
        let encoders = [e, ex].filter { $0.video.send.withLock { $0.high.encoder } != nil }.count
        #expect(encoders == 1, "one encoder for the track, whichever connection leads")
    }

    @Test func theEchoTestAndTheProbeRunBesideACallInPrivateConnections() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("connections-tests")
        let results = Locked<[LastmileProbeResult]>([])
        let states = Locked<[ConnectionState]>([])
        let e = try RtcEngine(configuration: .init(appId: Self.app, serverURL: server.url, logFile: dir + "/e.log")) { event in
            if case .network(.lastmileProbeResult(let r)) = event { results.withLock { $0.append(r) } }
            if case .channel(.connectionStateChanged(let s, _)) = event { states.withLock { $0.append(s) } }
        }
        let p = try RtcEngine(configuration: .init(appId: Self.app, serverURL: server.url, logFile: dir + "/p.log")) { _ in }
        defer {
            try? e.release(sync: true)
            try? p.release(sync: true)
        }
        try e.setAudioDevice(recording: true, id: "null")
        try e.setAudioDevice(recording: false, id: "null")
        try e.joinChannel(token: "", channel: "call", info: "", uid: 1)
        try p.joinChannel(token: "", channel: "call", info: "", uid: 2)
        #expect(waitUntil { states.withLock { $0.last == .connected } && p.link.read { $0.remoteUsers.contains(1) } })
        let before = states.withLock { $0.count }

        // The echo test: its own private channel, the call untouched.
        try e.startEchoTest(intervalSeconds: 2)
        #expect(throws: AgoraError.refused) { try e.startEchoTest(intervalSeconds: 2) }
        #expect(throws: AgoraError.refused) {
            try e.startLastmileProbeTest(LastmileProbeConfig(probeUplink: true, probeDownlink: true,
                                                             expectedUplinkBitrate: 500_000, expectedDownlinkBitrate: 500_000))
        }
        let test = try #require(e.privateTest.withLock { $0 })
        #expect(waitUntil { test.link.read { $0.inPreCallTest && $0.state == .connected } })
        #expect(e.link.read { $0.state == .connected && $0.inChannel && !$0.inPreCallTest })
        try e.stopEchoTest()
        #expect(e.privateTest.withLock { $0 } == nil)
        #expect(throws: AgoraError.refused) { try e.stopEchoTest() }

        // The probe: its result comes to the engine's handler, then its connection ends.
        try e.startLastmileProbeTest(LastmileProbeConfig(probeUplink: true, probeDownlink: true,
                                                         expectedUplinkBitrate: 500_000, expectedDownlinkBitrate: 500_000))
        #expect(waitUntil(seconds: 15) { !results.withLock { $0.isEmpty } })
        #expect(results.withLock { $0.first?.state } == 1, "complete: \(results.withLock { $0 })")
        #expect(waitUntil { e.privateTest.withLock { $0 } == nil })
        // The call went on all along, and the tests' connection states were not the engine's.
        #expect(e.link.read { $0.state == .connected } && p.link.read { $0.remoteUsers.contains(1) })
        #expect(states.withLock { $0.count } == before)
    }
}
