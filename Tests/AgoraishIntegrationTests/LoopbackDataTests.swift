@testable import AgoraishEngine
import AgoraishIO
import AgoraishMedia
import AgoraishServer
import AgoraishTesting
import AgoraishWire
import Foundation
import Testing

/// Data streams, metadata, end-to-end encryption and the packet observer
/// between real engines through the real server (docs/data-streams.md,
/// docs/encryption.md).
@Suite(.serialized) struct LoopbackDataTests {
    static let app = "0123456789abcdef0123456789abcdef"

    /// Two engines in one channel (A is uid 1, B uid 2), their media bound and each seeing the other.
    struct Call {
        let server: ChannelServer
        let a: RtcEngine
        let b: RtcEngine
        let aEvents: Recorder
        let bEvents: Recorder

        func release() {
            try? a.release(sync: true)
            try? b.release(sync: true)
            server.stop()
        }

        /// B's stream messages so far: (uid, stream, payload).
        var messages: [(uid: UInt32, stream: Int32, data: [UInt8])] {
            bEvents.events.withLock { $0 }.compactMap {
                if case .data(.streamMessage(let uid, let stream, let data, _)) = $0 { (uid, stream, data) } else { nil }
            }
        }

        var streamErrors: [(stream: Int32, code: Int32, missed: Int32, cached: Int32)] {
            bEvents.events.withLock { $0 }.compactMap {
                if case .data(.streamMessageError(_, let s, let code, let missed, let cached)) = $0 { (s, code, missed, cached) } else { nil }
            }
        }

        func encryptionErrors(_ r: Recorder) -> [EncryptionErrorType] {
            r.events.withLock { $0 }.compactMap { if case .data(.encryptionError(let t)) = $0 { t } else { nil } }
        }
    }

    func call(_ name: String, before: (RtcEngine, RtcEngine) throws -> Void = { _, _ in }) throws -> Call {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        let dir = makeTemporaryDirectory("data-\(name)")
        let ra = Recorder(), rb = Recorder()
        let a = try RtcEngine(configuration: .init(appId: Self.app, serverURL: server.url, logFile: dir + "/a.log")) { ra.record($0) }
        let b = try RtcEngine(configuration: .init(appId: Self.app, serverURL: server.url, logFile: dir + "/b.log")) { rb.record($0) }
        try before(a, b)
        try a.joinChannel(token: "", channel: name, info: "", uid: 1)
        try b.joinChannel(token: "", channel: name, info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        #expect(waitUntil { b.link.read { $0.remoteUsers.contains(1) } && a.link.read { $0.remoteUsers.contains(2) } })
        return Call(server: server, a: a, b: b, aEvents: ra, bEvents: rb)
    }

    /// Sends `count` messages "<prefix><i>" on a stream at `perSecond`, in real time.
    func send(_ engine: RtcEngine, stream: Int32, count: Int, perSecond: Int, prefix: String = "m", size: Int = 0) throws {
        var deadline = Instant.now()
        for i in 0..<count {
            var text = Array("\(prefix)\(i)".utf8)
            if text.count < size { text += [UInt8](repeating: 0x2E, count: size - text.count) }
            try engine.sendStreamMessage(streamId: stream, text)
            deadline = deadline + .milliseconds(Int64(1000 / perSecond))
            sleepUntil(deadline)
        }
    }

    static func index(_ data: [UInt8], prefix: String = "m") -> Int? {
        let text = String(decoding: data, as: UTF8.self).prefix { $0 != "." }
        return Int(text.dropFirst(prefix.count))
    }

    @Test func messagesArriveOnceInOrderWithTheirStreamAndSendTime() throws {
        let c = try call("data-basic")
        defer { c.release() }
        let s1 = try c.a.createDataStream(reliable: true, ordered: true)
        let s2 = try c.a.createDataStream(reliable: true, ordered: true)
        #expect(s1 != s2)
        let before = DataPipeline.wallClockMs()
        try send(c.a, stream: s1, count: 20, perSecond: 25)
        try c.a.sendStreamMessage(streamId: s2, Array("other".utf8))
        #expect(waitUntil { c.messages.count >= 21 })
        sleepUntil(.now() + .milliseconds(300))
        let got = c.messages
        #expect(got.count == 21)
        #expect(got.filter { $0.stream == s1 }.map { Self.index($0.data) } == (0..<20).map { $0 })
        #expect(got.allSatisfy { $0.uid == 1 })
        #expect(got.contains { $0.stream == s2 && $0.data == Array("other".utf8) })
        let times = c.bEvents.events.withLock { $0 }.compactMap { if case .data(.streamMessage(_, _, _, let ts)) = $0 { ts } else { nil } }
        #expect(times.allSatisfy { $0 >= before && $0 <= DataPipeline.wallClockMs() })
        #expect(c.streamErrors.isEmpty)
    }

    @Test func aLateJoinerGetsWhatIsSentAfterItCameAtOnce() throws {
        let c = try call("data-late")
        defer { c.release() }
        let s = try c.a.createDataStream(reliable: true, ordered: true)
        try send(c.a, stream: s, count: 3, perSecond: 20)
        #expect(waitUntil { c.messages.count == 3 })
        // C comes a second later: it gets the next message at once, and none of the earlier ones.
        sleepUntil(.now() + .seconds(1))
        let rc = Recorder()
        let late = try RtcEngine(configuration: .init(appId: Self.app, serverURL: c.server.url,
                                                      logFile: makeTemporaryDirectory("data-late-c") + "/c.log")) { rc.record($0) }
        defer { try? late.release(sync: true) }
        try late.joinChannel(token: "", channel: "data-late", info: "", uid: 3)
        #expect(waitUntil { late.audio.isMediaBound && a_sees(c.a, 3) })
        let sent = Instant.now()
        try c.a.sendStreamMessage(streamId: s, Array("m3".utf8))
        #expect(rc.wait(seconds: 2) { if case .data(.streamMessage(1, _, let d, _)) = $0 { d == Array("m3".utf8) } else { false } })
        #expect(Instant.now() - sent < .milliseconds(500))
        let got = rc.events.withLock { $0 }.compactMap { if case .data(.streamMessage(_, _, let d, _)) = $0 { d } else { nil } }
        #expect(got == [Array("m3".utf8)])
    }

    func a_sees(_ engine: RtcEngine, _ uid: UInt32) -> Bool { engine.link.read { $0.remoteUsers.contains(uid) } }

    @Test func theLimitsAreEnforcedWithAgorasErrors() throws {
        // Outside a call: not in the channel.
        let lone = try RtcEngine(configuration: .init(appId: Self.app, serverURL: "ws://127.0.0.1:1",
                                                      logFile: makeTemporaryDirectory("data-lone") + "/e.log")) { _ in }
        let early = try lone.createDataStream(reliable: true, ordered: true)
        #expect(throws: AgoraError.notInChannel) { try lone.sendStreamMessage(streamId: early, [1]) }
        try? lone.release(sync: true)

        let c = try call("data-limits")
        defer { c.release() }
        var ids: [Int32] = []
        for _ in 0..<5 { ids.append(try c.a.createDataStream(reliable: false, ordered: false)) }
        #expect(throws: AgoraError.tooManyDataStreams) { _ = try c.a.createDataStream(reliable: true, ordered: true) }
        #expect(throws: AgoraError.invalidArgument) { try c.a.sendStreamMessage(streamId: 99, [1]) }
        #expect(throws: AgoraError.invalidArgument) { try c.a.sendStreamMessage(streamId: ids[0], []) }
        #expect(throws: AgoraError.sizeTooLarge) { try c.a.sendStreamMessage(streamId: ids[0], [UInt8](repeating: 1, count: 1025)) }
        try c.a.sendStreamMessage(streamId: ids[0], [UInt8](repeating: 1, count: 1024))
        // 6 KB within a second: five more of 1 KB fit, then only what is left of 6144 bytes.
        for _ in 0..<5 { try c.a.sendStreamMessage(streamId: ids[1], [UInt8](repeating: 2, count: 1024)) }
        #expect(throws: AgoraError.bitrateLimit) { try c.a.sendStreamMessage(streamId: ids[1], [1]) }
        // 30 messages within a second (on B, which has sent nothing).
        let s = try c.b.createDataStream(reliable: true, ordered: true)
        for i in 0..<30 { try c.b.sendStreamMessage(streamId: s, Array("\(i)".utf8)) }
        #expect(throws: AgoraError.bitrateLimit) { try c.b.sendStreamMessage(streamId: s, [1]) }
        // A second later the window has room again.
        sleepUntil(.now() + .milliseconds(1050))
        try c.b.sendStreamMessage(streamId: s, [1])
        // Leaving ends the streams.
        try c.a.leaveChannel()
        #expect(c.aEvents.wait { if case .channel(.leaveChannel) = $0 { true } else { false } })
        #expect(throws: AgoraError.notInChannel) { try c.a.sendStreamMessage(streamId: ids[0], [1]) }
        #expect(c.a.data.sendLock.withLock { $0.streams.streams.isEmpty })
    }

    @Test func reliableStreamsSurviveTwentyPercentLossOnBothHopsExactlyOnce() throws {
        let c = try call("data-loss") { a, b in
            try a.setParameters(#"{"rtc.network_simulation_send": {"loss_percent": 20, "seed": 3}}"#)
            try b.setParameters(#"{"rtc.network_simulation": {"loss_percent": 20, "seed": 4}}"#)
        }
        defer { c.release() }
        let ordered = try c.a.createDataStream(reliable: true, ordered: true)
        let unordered = try c.a.createDataStream(reliable: true, ordered: false)
        // 100 messages on each, interleaved, 20 a second each (within 30/s and 6 KB/s).
        var deadline = Instant.now()
        for i in 0..<100 {
            try c.a.sendStreamMessage(streamId: ordered, Array("m\(i)".utf8) + [UInt8](repeating: 0x2E, count: 60))
            try c.a.sendStreamMessage(streamId: unordered, Array("m\(i)".utf8))
            deadline = deadline + .milliseconds(70)
            sleepUntil(deadline)
        }
        #expect(waitUntil(seconds: 6) { c.messages.count >= 200 })
        sleepUntil(.now() + .milliseconds(500))
        let got = c.messages
        let inOrder = got.filter { $0.stream == ordered }.compactMap { Self.index($0.data) }
        let anyOrder = got.filter { $0.stream == unordered }.compactMap { Self.index($0.data) }
        #expect(inOrder == Array(0..<100), "ordered: \(inOrder.count) delivered")
        #expect(anyOrder.sorted() == Array(0..<100), "unordered: \(anyOrder.count) delivered, each once")
        #expect(c.streamErrors.isEmpty)
        let dropped = (c.a.link.sendSimulation.withLock { $0?.dropped ?? 0 }, c.b.link.simulation.withLock { $0?.dropped ?? 0 })
        #expect(dropped.0 > 10 && dropped.1 > 10, "the simulated network lost packets both ways: \(dropped)")
    }

    @Test func unreliableStreamsReportTheirGaps() throws {
        let c = try call("data-gaps") { _, b in
            try b.setParameters(#"{"rtc.network_simulation": {"loss_percent": 30, "seed": 9}}"#)
        }
        defer { c.release() }
        let s = try c.a.createDataStream(reliable: false, ordered: true)
        try send(c.a, stream: s, count: 60, perSecond: 25)
        sleepUntil(.now() + .milliseconds(500))
        let got = c.messages.compactMap { Self.index($0.data) }
        let missed = c.streamErrors.filter { $0.stream == s }
        #expect(got.count < 60 && got.count > 20, "delivered \(got.count) of 60 under 30% loss")
        #expect(zip(got, got.dropFirst()).allSatisfy { $0 < $1 })
        #expect(missed.allSatisfy { $0.code == 117 && $0.cached == 0 && $0.missed > 0 })
        // Every message up to the last delivered one is either delivered or reported missed.
        let last = try #require(got.last)
        #expect(got.count + missed.reduce(0) { $0 + Int($1.missed) } == last + 1 - (got.first ?? 0))
    }

    static let salt = (0..<32).map { UInt8($0 * 7 + 1) }

    @Test(arguments: EncryptionMode.allCases)
    func everyModeCarriesAudioAndDataTheServerCannotRead(mode: EncryptionMode) throws {
        let config = EncryptionConfig(mode: mode, key: "a-shared-secret-of-the-channel", salt: Self.salt)
        let c = try call("enc-\(mode.rawValue)") { a, b in
            try a.enableEncryption(true, config: config)
            try b.enableEncryption(true, config: config)
            try a.setExternalAudioSource(enabled: true, sampleRate: 48000, channels: 1)
            try b.setExternalAudioSink(sampleRate: 48000, channels: 1)
        }
        defer { c.release() }
        let pattern = Array("KNOWN-PLAINTEXT-PATTERN".utf8)
        let seen = Locked((packets: 0, leaks: 0, dataPackets: 0))
        c.server.mediaCounters!.plainTap.set { p in
            let leak = p.count >= pattern.count && (0...(p.count - pattern.count)).contains { p[$0..<($0 + pattern.count)].elementsEqual(pattern) }
            seen.withLock {
                $0.packets += 1
                if leak { $0.leaks += 1 }
                if p.count > 1 && p[1] & 0x7F == DataStreamPacket.payloadType { $0.dataPackets += 1 }
            }
        }
        let s = try c.a.createDataStream(reliable: true, ordered: true)
        var tone = [Int16](repeating: 0, count: 480)
        var deadline = Instant.now()
        for i in 0..<60 {
            for k in 0..<480 { tone[k] = Int16(6000 * sin(2 * Double.pi * 440 * Double(i * 480 + k) / 48000)) }
            _ = try tone.withUnsafeBufferPointer { try c.a.pushExternalAudioFrame($0) }
            if i % 6 == 0 { try c.a.sendStreamMessage(streamId: s, pattern + Array("-\(i / 6)".utf8)) }
            deadline = deadline + .milliseconds(10)
            sleepUntil(deadline)
        }
        #expect(waitUntil { c.messages.count >= 10 })
        #expect(waitUntil { c.b.audio.receivedPackets.withLock { $0 } >= 20 })
        #expect(c.messages.map(\.data) == (0..<10).map { pattern + Array("-\($0)".utf8) })
        let s_ = seen.withLock { $0 }
        #expect(s_.packets > 30 && s_.dataPackets >= 10, "the server forwarded \(s_)")
        #expect(s_.leaks == 0, "the server read the pattern in \(s_.leaks) packets")
        #expect(c.encryptionErrors(c.bEvents).isEmpty && c.encryptionErrors(c.aEvents).isEmpty)
    }

    @Test func videoIsEncryptedEndToEndAndStillDecodes() throws {
        let config = EncryptionConfig(mode: .aes256Gcm2, key: "video-key", salt: Self.salt)
        let pictures = Locked(0)
        let c = try call("enc-video") { a, b in
            try a.enableEncryption(true, config: config)
            try b.enableEncryption(true, config: config)
            var vc = VideoEncoderConfiguration()
            vc.width = 320
            vc.height = 240
            try a.setVideoEncoderConfiguration(vc)
            a.setVideoEnabled(true)
            a.setExternalVideoSource(enabled: true)
            b.setVideoEnabled(true)
            try b.setupRemoteVideo(uid: 1) { _, _ in pictures.withLock { $0 += 1 } }
        }
        defer { c.release() }
        // A VP8 keyframe carries the start code 9d 01 2a after its 3-byte frame tag: the server must not see it.
        let startCode: [UInt8] = [0x9D, 0x01, 0x2A]
        let seen = Locked((video: 0, startCodes: 0))
        c.server.mediaCounters!.plainTap.set { p in
            guard p.count > 12, p[1] & 0x7F == 96 else { return }
            let hit = (12...(p.count - 3)).contains { p[$0..<($0 + 3)].elementsEqual(startCode) }
            seen.withLock { $0.video += 1; if hit { $0.startCodes += 1 } }
        }
        try pushPictures(c.a, count: 30)
        #expect(waitUntil { pictures.withLock { $0 } >= 20 })
        let s = seen.withLock { $0 }
        #expect(s.video > 20 && s.startCodes == 0, "video packets \(s.video), start codes in the clear \(s.startCodes)")
        #expect(c.encryptionErrors(c.bEvents).isEmpty)
    }

    func pushPictures(_ engine: RtcEngine, count: Int, firstMs: Int64 = 0) throws {
        var deadline = Instant.now()
        for n in 0..<count {
            let p = LoopbackVideoTests.picture(n)
            try p.y.withUnsafeBytes { y in
                try p.u.withUnsafeBytes { u in
                    try p.v.withUnsafeBytes { v in
                        try engine.pushExternalVideoFrame(width: 320, height: 240, y: y.baseAddress!, yStride: 320,
                                                          u: u.baseAddress!, uStride: 160, v: v.baseAddress!, vStride: 160,
                                                          timestampMs: firstMs + Int64(n) * 66)
                    }
                }
            }
            deadline = deadline + .milliseconds(66)
            sleepUntil(deadline)
        }
    }

    @Test(arguments: ["another key", "no key"])
    func aReceiverThatCannotDecryptReportsItAndGetsNothing(receiver: String) throws {
        let c = try call("enc-wrong-\(receiver.count)") { a, b in
            try a.enableEncryption(true, config: EncryptionConfig(mode: .aes128Gcm, key: "the right key"))
            if receiver == "another key" { try b.enableEncryption(true, config: EncryptionConfig(mode: .aes128Gcm, key: "a wrong key")) }
            try a.setExternalAudioSource(enabled: true, sampleRate: 48000, channels: 1)
            try b.setExternalAudioSink(sampleRate: 48000, channels: 1)
        }
        defer { c.release() }
        let s = try c.a.createDataStream(reliable: true, ordered: true)
        var frame = [Int16](repeating: 3000, count: 480)
        var deadline = Instant.now()
        for i in 0..<50 {
            frame[i % 480] = Int16(i)
            _ = try frame.withUnsafeBufferPointer { try c.a.pushExternalAudioFrame($0) }
            if i % 10 == 0 { try c.a.sendStreamMessage(streamId: s, Array("secret".utf8)) }
            deadline = deadline + .milliseconds(10)
            sleepUntil(deadline)
        }
        #expect(c.bEvents.wait { if case .data(.encryptionError(.decryptionFailure)) = $0 { true } else { false } })
        #expect(c.bEvents.wait { if case .data(.encryptionError(.datastreamDecryptionFailure)) = $0 { true } else { false } })
        sleepUntil(.now() + .milliseconds(300))
        #expect(c.messages.isEmpty)
        #expect(c.b.audio.receivedPackets.withLock { $0 } == 0, "no undecryptable audio reached the decoder")
    }

    @Test func thePacketObserverSeesAndRewritesPayloads() throws {
        let sent = Locked(0), received = Locked(0)
        let xor: @Sendable (inout [UInt8]) -> Void = { p in for i in p.indices { p[i] ^= 0x5A } }
        let c = try call("observer") { a, b in
            a.registerPacketObserver(PacketObserver(onSendAudio: { p in sent.withLock { $0 += 1 }; xor(&p); p.append(0xEE); return true }))
            b.registerPacketObserver(PacketObserver(onReceiveAudio: { p in
                received.withLock { $0 += 1 }
                guard p.last == 0xEE else { return false }
                p.removeLast()
                xor(&p)
                return true
            }))
            try a.setExternalAudioSource(enabled: true, sampleRate: 48000, channels: 1)
            try b.setExternalAudioSink(sampleRate: 48000, channels: 1)
        }
        defer { c.release() }
        var tone = [Int16](repeating: 0, count: 480)
        var deadline = Instant.now()
        for i in 0..<50 {
            for k in 0..<480 { tone[k] = Int16(6000 * sin(2 * Double.pi * 440 * Double(i * 480 + k) / 48000)) }
            _ = try tone.withUnsafeBufferPointer { try c.a.pushExternalAudioFrame($0) }
            deadline = deadline + .milliseconds(10)
            sleepUntil(deadline)
        }
        #expect(waitUntil { c.b.audio.receivedPackets.withLock { $0 } >= 15 })
        #expect(sent.withLock { $0 } >= 20 && received.withLock { $0 } >= 15)
        // The receiver has the real Opus back: the tone plays.
        var heard: [Int16] = []
        var frame = [Int16](repeating: 0, count: 480)
        let start = Instant.now()
        for i in 0..<40 {
            try frame.withUnsafeMutableBufferPointer { try c.b.audio.pull(into: $0, now: start + .milliseconds(Int64(10 * i))) }
            heard += frame
        }
        #expect(PCMLevel.rms(heard) > 1000, "the tone came through, rms \(PCMLevel.rms(heard))")
        // An observer that drops everything: nothing more is sent.
        c.a.registerPacketObserver(PacketObserver(onSendAudio: { _ in false }))
        sleepUntil(.now() + .milliseconds(100))
        let before = c.b.audio.receivedPackets.withLock { $0 }
        for _ in 0..<20 { _ = try tone.withUnsafeBufferPointer { try c.a.pushExternalAudioFrame($0) } }
        sleepUntil(.now() + .milliseconds(300))
        #expect(c.b.audio.receivedPackets.withLock { $0 } == before)
    }

    @Test func metadataTravelsWithItsPictureTimestampAndAudioMetadataArrives() throws {
        let got = Locked<[(uid: UInt32, data: [UInt8], ts: Int64)]>([])
        let c = try call("metadata") { a, b in
            var vc = VideoEncoderConfiguration()
            vc.width = 320
            vc.height = 240
            try a.setVideoEncoderConfiguration(vc)
            a.setVideoEnabled(true)
            a.setExternalVideoSource(enabled: true)
            b.setVideoEnabled(true)
            try a.setMetadataObserver(MetadataObserver(maxSize: 64, readyToSend: { ts in Array("picture at \(ts)".utf8) },
                                                       received: nil))
            try b.setMetadataObserver(MetadataObserver(maxSize: 64, readyToSend: nil, received: { uid, data, ts in
                got.withLock { $0.append((uid, data, ts)) }
            }))
        }
        defer { c.release() }
        #expect(throws: AgoraError.invalidArgument) { try c.a.setMetadataObserver(MetadataObserver(maxSize: 1025, readyToSend: nil, received: nil)) }
        try pushPictures(c.a, count: 20, firstMs: 5000)
        try c.a.sendAudioMetadata(Array("lyrics line 1".utf8))
        #expect(waitUntil { got.withLock { $0.count } >= 15 })
        let list = got.withLock { $0 }
        #expect(list.allSatisfy { $0.uid == 1 && $0.data == Array("picture at \($0.ts)".utf8) })
        #expect(list.allSatisfy { ($0.ts - 5000) % 66 == 0 && $0.ts >= 5000 && $0.ts < 5000 + 20 * 66 })
        #expect(zip(list, list.dropFirst()).allSatisfy { $0.ts < $1.ts })
        #expect(c.bEvents.wait { if case .data(.audioMetadata(1, let d)) = $0 { d == Array("lyrics line 1".utf8) } else { false } })
    }

    @Test func theDeprecatedSecretAndModeTurnEncryptionOnAndLeavingClearsIt() throws {
        let e = try RtcEngine(configuration: .init(appId: Self.app, serverURL: "ws://127.0.0.1:1",
                                                   logFile: makeTemporaryDirectory("data-secret") + "/e.log")) { _ in }
        defer { try? e.release(sync: true) }
        #expect(throws: AgoraError.invalidArgument) { try e.setEncryptionMode("aes-512-xyz") }
        #expect(throws: AgoraError.invalidArgument) { try e.setEncryptionMode("aes-128-gcm-2") }
        try e.setEncryptionSecret("s3cret")
        #expect(e.protection.config == EncryptionConfig(mode: .aes128Xts, key: "s3cret"))
        try e.setEncryptionMode("sm4-128-ecb")
        #expect(e.protection.config?.mode == .sm4128Ecb)
        try e.setEncryptionSecret("")
        #expect(e.protection.config == nil)
        #expect(throws: AgoraError.invalidArgument) {
            try e.enableEncryption(true, config: EncryptionConfig(mode: .aes128Gcm2, key: "k", salt: [UInt8](repeating: 0, count: 32)))
        }
        #expect(throws: AgoraError.invalidArgument) { try e.enableEncryption(true, config: EncryptionConfig(mode: .aes128Gcm, key: "")) }
        try e.setEncryptionSecret("again")
        e.clearLegacySecret()
        #expect(e.protection.config == nil)
    }
}
