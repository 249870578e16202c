@testable import AgoraishEngine
import AgoraishIO
import AgoraishMedia
import AgoraishServer
import AgoraishTesting
import AgoraishWire
import Foundation
import Testing

/// A tone pushed into one engine comes out of another, through the real
/// server's media plane (STUN, SRTP, forwarding), Opus and the jitter buffer.
@Suite(.serialized) struct LoopbackAudioTests {
    @Test func aToneCrossesTheServerAtItsFrequencyAndLevel() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let app = "0123456789abcdef0123456789abcdef"
        let dir = makeTemporaryDirectory("audio")
        let a = try RtcEngine(configuration: .init(appId: app, serverURL: server.url, logFile: dir + "/a.log")) { _ in }
        let b = try RtcEngine(configuration: .init(appId: app, serverURL: server.url, logFile: dir + "/b.log")) { _ in }
        defer {
            try? a.release(sync: true)
            try? b.release(sync: true)
        }
        try a.setExternalAudioSource(enabled: true, sampleRate: 48000, channels: 1)
        try b.setExternalAudioSink(sampleRate: 16000, channels: 1)
        try a.joinChannel(token: "", channel: "tone", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "tone", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })

        // Two seconds of a 1 kHz tone at -15 dBFS, pushed at once in odd-sized chunks:
        // the engine queues it and sends it at the pace it plays.
        var tone = [Int16](repeating: 0, count: 96000)
        for i in 0..<tone.count { tone[i] = Int16(8000 * sin(2 * Double.pi * 1000 * Double(i) / 48000)) }
        var offset = 0
        var waiting = 0
        while offset < tone.count {
            let n = min(777, tone.count - offset)
            waiting = try tone[offset..<(offset + n)].withUnsafeBufferPointer { try a.pushExternalAudioFrame($0) }
            offset += n
        }
        #expect(waiting > 90000, "\(waiting) samples wait to be sent in real time")

        // Pulled as a playout device would: every 10 ms, in real time, for three seconds.
        var heard: [Int16] = []
        var frame = [Int16](repeating: 0, count: 160)
        var deadline = Instant.now()
        for _ in 0..<300 {
            try frame.withUnsafeMutableBufferPointer { try b.audio.pull(into: $0, now: .now()) }
            heard += frame
            deadline = deadline + .milliseconds(10)
            sleepUntil(deadline)
        }
        let loud = heard.indices.filter { abs(Int(heard[$0])) > 2000 }
        let first = try #require(loud.first, "the tone arrived")
        let middle = heard[(first + 3200)..<(first + 19200)]  // one second, past the start
        var crossings = 0
        for i in middle.indices.dropFirst() where (middle[i - 1] < 0) != (middle[i] < 0) { crossings += 1 }
        let frequency = Double(crossings) / 2 / (Double(middle.count) / 16000)
        #expect(abs(frequency - 1000) < 20, "heard \(frequency) Hz")
        let rms = (middle.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(middle.count)).squareRoot()
        #expect(abs(20 * log10(rms / 5657)) < 1, "level \(20 * log10(rms / 5657)) dB from the pushed tone")
    }

    @Test func stereoStaysStereo() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let app = "0123456789abcdef0123456789abcdef"
        let dir = makeTemporaryDirectory("stereo")
        let a = try RtcEngine(configuration: .init(appId: app, serverURL: server.url, logFile: dir + "/a.log")) { _ in }
        let b = try RtcEngine(configuration: .init(appId: app, serverURL: server.url, logFile: dir + "/b.log")) { _ in }
        defer {
            try? a.release(sync: true)
            try? b.release(sync: true)
        }
        try a.setAudioProfile(3)  // MUSIC_STANDARD_STEREO
        try a.setExternalAudioSource(enabled: true, sampleRate: 48000, channels: 2)
        try b.setExternalAudioSink(sampleRate: 48000, channels: 2)
        try a.joinChannel(token: "", channel: "stereo", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "stereo", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        // One second: 440 Hz on the left, silence on the right.
        var pcm = [Int16](repeating: 0, count: 96000)
        for i in 0..<48000 { pcm[2 * i] = Int16(8000 * sin(2 * Double.pi * 440 * Double(i) / 48000)) }
        _ = try pcm.withUnsafeBufferPointer { try a.pushExternalAudioFrame($0) }
        var heard: [Int16] = []
        var frame = [Int16](repeating: 0, count: 960)
        var deadline = Instant.now()
        for _ in 0..<150 {
            try frame.withUnsafeMutableBufferPointer { try b.audio.pull(into: $0, now: .now()) }
            heard += frame
            deadline = deadline + .milliseconds(10)
            sleepUntil(deadline)
        }
        let left = stride(from: 0, to: heard.count, by: 2).map { heard[$0] }
        let right = stride(from: 1, to: heard.count, by: 2).map { heard[$0] }
        #expect(PCMLevel.rms(left) > 1000, "left \(PCMLevel.rms(left))")
        #expect(PCMLevel.rms(right) * 10 < PCMLevel.rms(left), "right \(PCMLevel.rms(right)) left \(PCMLevel.rms(left))")
        #expect(b.audio.takeRemoteStats(periodMs: 1000, transportDelayMs: 0).first?.numChannels == 2)
    }

    @Test(arguments: [10, 30])
    func underLossAndJitterThePulledStreamHasNoGaps(loss: Int) throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let app = "0123456789abcdef0123456789abcdef"
        let dir = makeTemporaryDirectory("loss")
        let a = try RtcEngine(configuration: .init(appId: app, serverURL: server.url, logFile: dir + "/a.log")) { _ in }
        let b = try RtcEngine(configuration: .init(appId: app, serverURL: server.url, logFile: dir + "/b.log")) { _ in }
        defer {
            try? a.release(sync: true)
            try? b.release(sync: true)
        }
        try b.setParameters(#"{"rtc.network_simulation": {"loss_percent": \#(loss), "jitter_ms": 40, "seed": 5}}"#)
        try a.setExternalAudioSource(enabled: true, sampleRate: 48000, channels: 1)
        try b.setExternalAudioSink(sampleRate: 48000, channels: 1)
        try a.joinChannel(token: "", channel: "lossy", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "lossy", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        #expect(waitUntil { b.link.read { $0.remoteUsers.contains(1) } })

        // Three seconds of a 440 Hz tone, pushed and pulled 10 ms at a time in real time.
        var frames: [[Int16]] = []
        var silentDuringTone = -1
        var reported: Int32 = 0  // the most loss the reports told A while the tone played
        var followed = 0, compared = 0  // pushes at which A's encoder expected the reported loss
        let ssrc = a.audio.sendLock.withLock { $0.ssrc }
        var frame = [Int16](repeating: 0, count: 480)
        var chunk = [Int16](repeating: 0, count: 480)
        var deadline = Instant.now()
        for i in 0..<350 {
            if i < 300 {
                for j in 0..<480 { chunk[j] = Int16(8000 * sin(2 * Double.pi * 440 * Double(i * 480 + j) / 48000)) }
                _ = try chunk.withUnsafeBufferPointer { try a.pushExternalAudioFrame($0) }
                let expected = a.audio.sendLock.withLock { $0.encoderSettings?.expectedLossPercent }
                if let now = a.link.media.withLock({ $0?.reportedLoss(ssrc: ssrc) }) {
                    reported = max(reported, now)
                    compared += 1
                    if expected == min(30, now) { followed += 1 }
                }
            }
            try frame.withUnsafeMutableBufferPointer { try b.audio.pull(into: $0, now: .now()) }
            frames.append(frame)
            if i == 299 {
                // The tone's last packet has not played yet: any silence so far is a gap.
                silentDuringTone = Int(b.audio.takeRemoteStats(periodMs: 0, transportDelayMs: 0).first?.silentFrames ?? -1)
            }
            deadline = deadline + .milliseconds(10)
            sleepUntil(deadline)
        }
        let rms = frames.map { PCMLevel.rms($0) }
        let first = try #require(rms.firstIndex { $0 > 1000 }, "the tone arrived")
        #expect(first < 30, "the first audio came out \(first * 10) ms after the first push")
        // Every 10 ms while the tone played was decoded, rebuilt from FEC or
        // concealed: no frame was left silent for want of audio.
        #expect(silentDuringTone == 0, "\(silentDuringTone) silent frames under \(loss)% loss")
        let middle = Array(frames[(first + 50)..<(first + 150)].joined())
        var crossings = 0
        for i in middle.indices.dropFirst() where (middle[i - 1] < 0) != (middle[i] < 0) { crossings += 1 }
        #expect(abs(Double(crossings) / 2 - 440) < 15, "\(Double(crossings) / 2) Hz")
        let stats = try #require(b.audio.takeRemoteStats(periodMs: 2000, transportDelayMs: 0).first)
        #expect(stats.fecRecoveredFrames > 0, "FEC at work: \(stats)")
        #expect(stats.concealedFrames > 0, "PLC at work: \(stats)")
        // NACK at work: the server's cache sent lost packets again, and some played in their place.
        let rtx = b.audio.retransmissionCounters.withLock { $0 }
        #expect(rtx.nacked > 0 && rtx.recovered > 0, "audio retransmission: \(rtx)")
        // B's receiver reports reached A through the server, and A's encoder
        // expects the loss they report. They count what retransmission
        // recovered as received, so they report less than the path loses.
        #expect(reported > 0, "A heard of at most \(reported)% loss for \(loss)%")
        #expect(compared > 100 && followed * 10 >= compared * 8,
                "A's encoder expected the reported loss at \(followed) of \(compared) pushes")
    }

    @Test func whatIsKeptForRetransmissionIsThePlainPacketAsSent() throws {
        // No simulated network: packets are protected in place as they leave, and
        // what is kept to answer NACKs must be the plain packet, not the SRTP one.
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let app = "0123456789abcdef0123456789abcdef"
        let dir = makeTemporaryDirectory("history")
        let a = try RtcEngine(configuration: .init(appId: app, serverURL: server.url, logFile: dir + "/a.log")) { _ in }
        defer { try? a.release(sync: true) }
        try a.setExternalAudioSource(enabled: true, sampleRate: 48000, channels: 1)
        try a.joinChannel(token: "", channel: "history", info: "", uid: 1)
        #expect(waitUntil { a.audio.isMediaBound })
        var chunk = [Int16](repeating: 0, count: 480)
        var deadline = Instant.now()
        for i in 0..<100 {
            for j in 0..<480 { chunk[j] = Int16(8000 * sin(2 * Double.pi * 440 * Double(i * 480 + j) / 48000)) }
            _ = try chunk.withUnsafeBufferPointer { try a.pushExternalAudioFrame($0) }
            deadline = deadline + .milliseconds(10)
            sleepUntil(deadline)
        }
        let (ssrc, last) = a.audio.sendLock.withLock { ($0.ssrc, $0.sequence &- 1) }
        var checked = 0
        for k in 0..<40 {
            let seq = last &- UInt16(k)
            guard let packet = a.audio.sendLock.withLock({ $0.history.packet(seq, now: .now()) }) else { continue }
            let h = try packet.withUnsafeBytes { try RtpHeader.parse($0) }
            #expect(h.payloadType == 111 && h.ssrc == ssrc && h.sequenceNumber == seq)
            let payload = Array(packet[h.payloadOffset...])
            // A 20 ms Opus packet, as encoded (ciphertext would not read as one).
            #expect(OpusDecoder.samplesPerChannel(in: payload) == 960, "packet \(seq)")
            checked += 1
        }
        #expect(checked >= 30)
    }

    @Test func audioLostOnTheUplinkIsAskedForAgainAndPlaysInItsPlace() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let app = "0123456789abcdef0123456789abcdef"
        let dir = makeTemporaryDirectory("uplink-loss")
        let a = try RtcEngine(configuration: .init(appId: app, serverURL: server.url, logFile: dir + "/a.log")) { _ in }
        let b = try RtcEngine(configuration: .init(appId: app, serverURL: server.url, logFile: dir + "/b.log")) { _ in }
        defer {
            try? a.release(sync: true)
            try? b.release(sync: true)
        }
        // A's uplink loses 20 %; B's downlink loses nothing.
        try a.setParameters(#"{"rtc.network_simulation_send": {"loss_percent": 20, "delay_ms": 0, "jitter_ms": 0, "seed": 17}}"#)
        try a.setExternalAudioSource(enabled: true, sampleRate: 48000, channels: 1)
        try b.setExternalAudioSink(sampleRate: 48000, channels: 1)
        try a.joinChannel(token: "", channel: "uplink-loss", info: "", uid: 1)
        try b.joinChannel(token: "", channel: "uplink-loss", info: "", uid: 2)
        #expect(waitUntil { a.audio.isMediaBound && b.audio.isMediaBound })
        #expect(waitUntil { b.link.read { $0.remoteUsers.contains(1) } })
        var frame = [Int16](repeating: 0, count: 480)
        var chunk = [Int16](repeating: 0, count: 480)
        var heard: [Int16] = []
        var deadline = Instant.now()
        for i in 0..<300 {
            for j in 0..<480 { chunk[j] = Int16(8000 * sin(2 * Double.pi * 440 * Double(i * 480 + j) / 48000)) }
            _ = try chunk.withUnsafeBufferPointer { try a.pushExternalAudioFrame($0) }
            try frame.withUnsafeMutableBufferPointer { try b.audio.pull(into: $0, now: .now()) }
            heard += frame
            deadline = deadline + .milliseconds(10)
            sleepUntil(deadline)
        }
        // What was sent again is the original audio: the tone stays a clean 440 Hz.
        let middle = Array(heard[(48000 * 1)..<(48000 * 2)])
        var crossings = 0
        for i in middle.indices.dropFirst() where (middle[i - 1] < 0) != (middle[i] < 0) { crossings += 1 }
        #expect(abs(Double(crossings) / 2 - 440) < 10, "\(Double(crossings) / 2) Hz")
        #expect(PCMLevel.rms(middle) > 4000, "level \(PCMLevel.rms(middle))")
        // And nothing else: nearly all the energy of every 100 ms is at 440 Hz (a packet
        // retransmitted with the wrong bytes decodes to noise or a click).
        for start in stride(from: 0, to: middle.count - 4800, by: 4800) {
            let w = middle[start..<(start + 4800)].map(Double.init)
            var re = 0.0, im = 0.0
            for (k, v) in w.enumerated() {
                re += v * cos(2 * Double.pi * 440 * Double(k) / 48000)
                im += v * sin(2 * Double.pi * 440 * Double(k) / 48000)
            }
            let tone = 2 * (re * re + im * im) / Double(w.count)
            let total = w.reduce(0) { $0 + $1 * $1 }
            #expect(tone > 0.9 * total, "at \(start) of the middle second: \(tone / max(total, 1)) of the energy at 440 Hz")
        }
        // The server NACKed A, A sent RTX, the server got the packets back, and B played some in their place.
        let sent = a.audio.retransmissionCounters.withLock { $0.retransmitted }
        let upstream = server.mediaCounters?.recoveredUpstream.load(ordering: .relaxed) ?? 0
        let played = b.audio.retransmissionCounters.withLock { $0.recovered }
        #expect(sent > 10, "A retransmitted \(sent)")
        #expect(upstream > 10, "the server recovered \(upstream) from A")
        #expect(played > 5, "B played \(played) retransmitted packets")
    }

    @Test func theEchoTestPlaysTheUsersOwnAudioBackAfterTheInterval() throws {
        let server = ChannelServer(config: loopbackServerConfig())
        try server.start()
        defer { server.stop() }
        let dir = makeTemporaryDirectory("echo")
        let events = Locked<[EngineEvent]>([])
        let a = try RtcEngine(configuration: .init(appId: "0123456789abcdef0123456789abcdef", serverURL: server.url,
                                                   logFile: dir + "/a.log")) { e in events.withLock { $0.append(e) } }
        defer { try? a.release(sync: true) }
        #expect(throws: AgoraError.invalidArgument) { try a.startEchoTest(intervalSeconds: 1) }
        #expect(throws: AgoraError.refused) { try a.stopEchoTest() }
        try a.setExternalAudioSource(enabled: true, sampleRate: 48000, channels: 1)
        try a.setExternalAudioSink(sampleRate: 48000, channels: 1)
        try a.startEchoTest(intervalSeconds: 2)
        #expect(throws: AgoraError.refused) { try a.startEchoTest(intervalSeconds: 2) }
        #expect(throws: AgoraError.joinChannelRejected) { try a.joinChannel(token: "", channel: "x", info: "", uid: 1) }
        #expect(waitUntil { a.audio.isMediaBound })
        // One second of tone, then silence; pulled every 10 ms for four seconds.
        var loud: [Int] = []
        var chunk = [Int16](repeating: 0, count: 480), frame = [Int16](repeating: 0, count: 480)
        var deadline = Instant.now()
        for i in 0..<400 {
            for j in 0..<480 { chunk[j] = i < 100 ? Int16(8000 * sin(2 * Double.pi * 440 * Double(i * 480 + j) / 48000)) : 0 }
            _ = try chunk.withUnsafeBufferPointer { try a.pushExternalAudioFrame($0) }
            try frame.withUnsafeMutableBufferPointer { try a.audio.pull(into: $0, now: .now()) }
            if PCMLevel.rms(frame) > 1000 { loud.append(i) }
            deadline = deadline + .milliseconds(10)
            sleepUntil(deadline)
        }
        let first = try #require(loud.first, "the tone came back")
        // Pushed from 0 to 1 s, heard back 2 s later (plus the path and the jitter buffer).
        #expect(first >= 200 && first < 240, "first loud frame at \(first * 10) ms")
        #expect(loud.count >= 80 && loud.count <= 110, "\(loud.count) loud frames for 100 pushed")
        try a.stopEchoTest()
        // The private channel's join and leave were not reported; a normal join works again.
        #expect(waitUntil { !a.echoTest.withLock { $0 } })
        let channelEvents = events.withLock { $0.compactMap { if case .channel(let c) = $0 { c } else { nil } } }
        #expect(!channelEvents.contains { if case .joinChannelSuccess = $0 { true } else { false } })
        #expect(!channelEvents.contains { if case .leaveChannel = $0 { true } else { false } })
        try a.joinChannel(token: "", channel: "after-echo", info: "", uid: 7)
        #expect(waitUntil { events.withLock { $0.contains { if case .channel(.joinChannelSuccess) = $0 { true } else { false } } } })
    }
}

/// Sleeps until `deadline` on the monotonic clock (real-time pacing of pushes and pulls).
func sleepUntil(_ deadline: Instant) {
    var ts = timespec(tv_sec: Int(deadline.nanoseconds / 1_000_000_000), tv_nsec: Int(deadline.nanoseconds % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
}

/// Levels of 16-bit PCM for the tests.
enum PCMLevel {
    static func rms(_ pcm: [Int16]) -> Double {
        (pcm.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, pcm.count))).squareRoot()
    }
}
