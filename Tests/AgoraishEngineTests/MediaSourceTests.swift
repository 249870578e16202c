@testable import AgoraishEngine
import AgoraishTesting
import AgoraishWire
import Glibc
import Testing

/// FFmpeg's demuxing and decoding behind the media player, on files the tests write.
@Suite struct MediaSourceTests {
    /// Writes a 16-bit PCM WAV of a sine at `hz`.
    private func writeWav(_ path: String, hz: Double, seconds: Double, rate: Int = 44100, channels: Int = 1) {
        let frames = Int(seconds * Double(rate))
        var data: [UInt8] = []
        for i in 0..<frames {
            let v = Int16(8000 * sin(2 * Double.pi * hz * Double(i) / Double(rate)))
            for _ in 0..<channels { data += [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
        }
        func le32(_ x: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: x >> (8 * $0)) } }
        func le16(_ x: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: x >> (8 * $0)) } }
        var file: [UInt8] = Array("RIFF".utf8) + le32(36 + data.count) + Array("WAVE".utf8)
        file += Array("fmt ".utf8) + le32(16) + le16(1) + le16(channels) + le32(rate) + le32(rate * channels * 2)
            + le16(channels * 2) + le16(16)
        file += Array("data".utf8) + le32(data.count) + data
        write(path, file)
    }

    private func write(_ path: String, _ bytes: [UInt8]) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Decodes everything; returns the left channel.
    private func decodeAll(_ s: MediaSource) throws -> [Int16] {
        var left: [Int16] = []
        var step = MediaSource.Step.decoded
        while step != .ended || s.bufferedAudioMs > 0 {
            if step != .ended { step = try s.step(wait: true) }
            let chunk = s.takeAudio(4800)
            left += stride(from: 0, to: chunk.count, by: 2).map { chunk[$0] }
        }
        return left
    }

    /// Zero crossings per second: twice the frequency of a pure tone.
    private func frequency(_ pcm: [Int16]) -> Double {
        var crossings = 0
        for i in 1..<pcm.count where (pcm[i - 1] < 0) != (pcm[i] < 0) { crossings += 1 }
        return Double(crossings) / 2 / (Double(pcm.count) / 48000)
    }

    @Test func aWavIsResampledTo48kStereoWithItsToneAndDuration() throws {
        let dir = makeTemporaryDirectory("media-source")
        let path = dir + "/tone.wav"
        writeWav(path, hz: 1000, seconds: 2, rate: 44100, channels: 1)
        let s = try MediaSource(url: path, wantVideo: true)
        #expect(s.hasAudio && !s.hasVideo)
        #expect(abs(s.durationMs - 2000) <= 5)
        #expect(s.streams.count == 1 && s.streams[0].type == 2 && s.streams[0].audioSampleRate == 44100)
        let left = try decodeAll(s)
        #expect(abs(left.count - 96000) < 960)
        #expect(abs(frequency(left) - 1000) < 10)
    }

    @Test func aSeekLandsExactlyOnItsPosition() throws {
        let dir = makeTemporaryDirectory("media-source")
        let path = dir + "/tone.wav"
        writeWav(path, hz: 440, seconds: 3, rate: 48000, channels: 2)
        let s = try MediaSource(url: path)
        try s.seek(toMs: 1250)
        _ = try s.step(wait: true)
        #expect(s.audioPtsMs == 1250)
        let rest = try decodeAll(s)
        #expect(abs(rest.count - 48000 * 1750 / 1000) < 960)
    }

    @Test(arguments: [
        ("missing", MediaSourceError.urlNotFound),
        ("random", MediaSourceError.invalidMediaSource),
        ("empty", MediaSourceError.invalidMediaSource),
        ("truncated", MediaSourceError.invalidMediaSource),
    ])
    func badFilesFailWithTheirReason(kind: String, expected: MediaSourceError) {
        let dir = makeTemporaryDirectory("media-source")
        let path = dir + "/bad-\(kind)"
        var rng = SplitMix64(seed: 7)
        switch kind {
        case "random": write(path, (0..<4096).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        case "empty": write(path, [])
        case "truncated": write(path, Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WAVEfmt ".utf8))
        default: break
        }
        #expect(throws: expected) { _ = try MediaSource(url: path) }
    }

    @Test func aDeadURLIsNotFound() {
        // Port 9 (discard) on loopback: nothing listens, the connection is refused.
        #expect(throws: MediaSourceError.urlNotFound) { _ = try MediaSource(url: "http://127.0.0.1:9/none.mp3") }
    }

    @Test func aProtocolOutsideTheListIsRefused() {
        #expect(throws: MediaSourceError.self) { _ = try MediaSource(url: "pipe:0") }
    }
}
