@testable import AgoraishEngine
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

        // Two seconds of a 1 kHz tone at -15 dBFS, pushed in odd-sized chunks.
        var tone = [Int16](repeating: 0, count: 96000)
        for i in 0..<tone.count { tone[i] = Int16(8000 * sin(2 * Double.pi * 1000 * Double(i) / 48000)) }
        var offset = 0
        while offset < tone.count {
            let n = min(777, tone.count - offset)
            _ = try tone[offset..<(offset + n)].withUnsafeBufferPointer { try a.pushExternalAudioFrame($0) }
            offset += n
        }
        #expect(waitUntil { b.audio.receivedPackets.withLock { $0 } >= 95 })

        // Pull on a playout clock that starts now and advances 10 ms per pull.
        let start = Instant.now()
        var heard: [Int16] = []
        var frame = [Int16](repeating: 0, count: 160)
        for i in 0..<300 {
            try frame.withUnsafeMutableBufferPointer { try b.audio.pull(into: $0, now: start + .milliseconds(Int64(10 * i))) }
            heard += frame
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
}
