import AgoraishMedia
import CAgoraishShim
import COpusEnc
import Glibc

/// Writes what the engine hears or sends to a file (Agora's startAudioRecording):
/// 16-bit PCM WAV, or Ogg Opus (RFC 7845, through libopusenc) when the path
/// ends in ".ogg" or ".opus". Mono, at the configured rate. Not thread-safe:
/// the pipeline serializes writes under its recorder lock.
final class AudioRecorder {
    /// Agora's AUDIO_RECORDING_POSITION.
    enum Position: Int32 {
        case mixedRecordingAndPlayback = 0
        case recording = 1
        case mixedPlayback = 2
    }

    let position: Position
    let sampleRate: Int
    private var wav: UnsafeMutablePointer<FILE>?
    private var ogg: OpaquePointer?
    private var dataBytes = 0
    /// Samples given to the Ogg Opus encoder (libopusenc cannot finish a stream without any).
    private var oggSamples = 0
    private let resampler: Resampler?

    /// Opus bitrate per Agora quality (LOW, MEDIUM, HIGH, ULTRA_HIGH).
    static let opusBitrates: [Int32] = [16_000, 32_000, 64_000, 128_000]

    /// Opens `path` for writing.
    ///
    /// - Throws: `.invalidArgument` for a rate, position or quality out of
    ///   range or an empty path; `.failed` when the file cannot be created.
    init(path: String, sampleRate: Int, position: Int32, quality: Int32) throws(AgoraError) {
        guard !path.isEmpty, [16000, 32000, 44100, 48000].contains(sampleRate),
              let pos = Position(rawValue: position), (0...3).contains(quality) else { throw .invalidArgument }
        self.position = pos
        self.sampleRate = sampleRate
        resampler = sampleRate == 48000 ? nil : Resampler(channels: 1, inputRate: 48000, outputRate: sampleRate)
        let lower = path.lowercased()
        if lower.hasSuffix(".ogg") || lower.hasSuffix(".opus") {
            guard let comments = ope_comments_create() else { throw .failed }
            defer { ope_comments_destroy(comments) }
            _ = ope_comments_add(comments, "ENCODER", "agoraish")
            var err: Int32 = 0
            guard let enc = ope_encoder_create_file(path, comments, Int32(sampleRate), 1, 0, &err), err == 0 else {
                throw .failed
            }
            _ = agsh_ope_encoder_set_int(enc, agsh_opus_set_bitrate_request(), Self.opusBitrates[Int(quality)])
            ogg = enc
        } else {
            guard let f = fopen(path, "wb") else { throw .failed }
            wav = f
            var header = Self.wavHeader(sampleRate: sampleRate, dataBytes: 0)
            guard fwrite(&header, 1, header.count, f) == header.count else {
                fclose(f)
                throw .failed
            }
        }
    }

    deinit { close() }

    /// Appends 48 kHz interleaved audio of `channels` channels.
    func write(_ pcm: [Int16], channels: Int) {
        var mono = convertChannels(pcm, from: channels, to: 1)
        if let resampler { mono = resampler.process(mono) }
        guard !mono.isEmpty else { return }
        mono.withUnsafeBufferPointer { b in
            if let wav {
                dataBytes += fwrite(b.baseAddress, 2, b.count, wav) * 2
            } else if let ogg {
                _ = ope_encoder_write(ogg, b.baseAddress, Int32(b.count))
                oggSamples += b.count
            }
        }
    }

    /// Finishes the file (WAV sizes, the last Ogg page). Idempotent.
    func close() {
        if let f = wav {
            var header = Self.wavHeader(sampleRate: sampleRate, dataBytes: dataBytes)
            if fseek(f, 0, SEEK_SET) == 0 { _ = fwrite(&header, 1, header.count, f) }
            fclose(f)
            wav = nil
        }
        if let enc = ogg {
            if oggSamples == 0 {
                // Nothing was recorded: 20 ms of silence makes a valid, playable file.
                let silence = [Int16](repeating: 0, count: sampleRate / 50)
                _ = silence.withUnsafeBufferPointer { ope_encoder_write(enc, $0.baseAddress, Int32($0.count)) }
            }
            _ = ope_encoder_drain(enc)
            ope_encoder_destroy(enc)
            ogg = nil
        }
    }

    /// A 44-byte RIFF/WAVE header for mono 16-bit PCM.
    static func wavHeader(sampleRate: Int, dataBytes: Int) -> [UInt8] {
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        return Array("RIFF".utf8) + le32(36 + dataBytes) + Array("WAVE".utf8)
            + Array("fmt ".utf8) + le32(16) + le16(1) + le16(1) + le32(sampleRate) + le32(sampleRate * 2) + le16(2) + le16(16)
            + Array("data".utf8) + le32(dataBytes)
    }
}

/// A 16-bit PCM WAV file read whole (for the playback device test).
struct WavFile {
    var sampleRate: Int
    var channels: Int
    var samples: [Int16]

    /// Reads a RIFF/WAVE file of 16-bit PCM; nil when it is missing, not
    /// WAVE, another format, or larger than 64 MB.
    static func read(path: String) -> WavFile? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n <= 0 { break }
            bytes += chunk[0..<n]
            if bytes.count > 64 << 20 { return nil }
        }
        func le16(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o + 1]) << 8 }
        func le32(_ o: Int) -> Int { le16(o) | le16(o + 2) << 16 }
        guard bytes.count >= 12, Array(bytes[0..<4]) == Array("RIFF".utf8), Array(bytes[8..<12]) == Array("WAVE".utf8)
        else { return nil }
        var offset = 12
        var format: (rate: Int, channels: Int)? = nil
        while offset + 8 <= bytes.count {
            let id = Array(bytes[offset..<offset + 4])
            let size = le32(offset + 4)
            let body = offset + 8
            guard size >= 0, body + size <= bytes.count else { return nil }
            if id == Array("fmt ".utf8) {
                guard size >= 16, le16(body) == 1, le16(body + 14) == 16 else { return nil }
                format = (le32(body + 4), le16(body + 2))
            } else if id == Array("data".utf8), let format {
                guard [8000, 16000, 22050, 24000, 32000, 44100, 48000].contains(format.rate),
                      format.channels == 1 || format.channels == 2 else { return nil }
                var samples = [Int16](repeating: 0, count: size / 2)
                for i in 0..<samples.count { samples[i] = Int16(bitPattern: UInt16(le16(body + 2 * i))) }
                return WavFile(sampleRate: format.rate, channels: format.channels, samples: samples)
            }
            offset = body + size + (size & 1)
        }
        return nil
    }

    /// The audio as 48 kHz mono.
    func monoAt48k() -> [Int16] {
        let mono = convertChannels(samples, from: channels, to: 1)
        guard sampleRate != 48000, let r = Resampler(channels: 1, inputRate: sampleRate, outputRate: 48000) else { return mono }
        return r.process(mono)
    }
}
