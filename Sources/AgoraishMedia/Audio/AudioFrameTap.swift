import Glibc

/// Agora's RAW_AUDIO_FRAME_OP_MODE_TYPE: what a raw audio observer may do with a frame.
public enum AudioFrameMode: Int32, Sendable {
    /// The observer reads; what it writes is ignored.
    case readOnly = 0
    /// The observer gets silence and writes the frame that replaces the audio.
    case writeOnly = 1
    /// The observer reads and may change the frame; the change is kept.
    case readWrite = 2
}

/// The format a raw audio observer asks for at one position (Agora's AudioParams).
public struct AudioTapParameters: Equatable, Sendable {
    /// 8000, 16000, 32000, 44100 or 48000.
    public var sampleRate: Int
    /// 1 or 2.
    public var channels: Int
    public var mode: AudioFrameMode
    /// Samples per channel in each callback; 0 means 10 ms worth.
    public var samplesPerCall: Int

    public init(sampleRate: Int, channels: Int, mode: AudioFrameMode, samplesPerCall: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.mode = mode
        self.samplesPerCall = samplesPerCall
    }

    /// The sample rates observers and sinks may use.
    public static let sampleRates = [8000, 16000, 32000, 44100, 48000]

    /// Whether the values are ones the engine supports: a listed rate, 1 or 2
    /// channels, and a callback period of 10 ms to 1 s.
    public var isValid: Bool {
        guard Self.sampleRates.contains(sampleRate), channels == 1 || channels == 2 else { return false }
        return samplesPerCall == 0 || (samplesPerCall * 100 >= sampleRate && samplesPerCall <= sampleRate)
    }

    /// Samples per channel of each callback, resolving 0 to 10 ms.
    public var effectiveSamplesPerCall: Int { samplesPerCall == 0 ? sampleRate / 100 : samplesPerCall }
}

/// One observer position of the audio path, sans-IO: the engine hands it
/// every 10 ms of its own audio (48 kHz, `channels`), the tap converts it to
/// the observer's rate and channels (speexdsp), regroups it into
/// `samplesPerCall` chunks, calls the observer for each, and — in write modes
/// — converts what the observer left back and returns it in place of the
/// engine's audio.
///
/// Regrouping costs delay only in write modes: the returned audio lags by one
/// callback period (the first period is silence), so the engine never waits
/// for a callback that has not happened yet.
public final class AudioFrameTap {
    public let parameters: AudioTapParameters
    public let engineChannels: Int
    private let toHost: Resampler?
    private let fromHost: Resampler?
    private var inbox: [Int16] = []        // host format, not yet delivered
    private var outbox: [Int16] = []       // engine format, ready to return (write modes)
    private var frame: [Int16]             // the buffer handed to the host
    /// 10 ms frames for which the write path had too little audio.
    public private(set) var underruns = 0

    /// A tap delivering `parameters` from engine audio of `engineChannels` at 48 kHz.
    public init(parameters: AudioTapParameters, engineChannels: Int) {
        self.parameters = parameters
        self.engineChannels = engineChannels
        let rate = parameters.sampleRate
        toHost = rate == 48000 ? nil : Resampler(channels: parameters.channels, inputRate: 48000, outputRate: rate)
        fromHost = rate == 48000 || parameters.mode == .readOnly
            ? nil : Resampler(channels: engineChannels, inputRate: rate, outputRate: 48000)
        frame = [Int16](repeating: 0, count: parameters.effectiveSamplesPerCall * parameters.channels)
        if parameters.mode != .readOnly {
            // One callback period of silence, so every 10 ms request can be served.
            let period = (parameters.effectiveSamplesPerCall * 48000 + rate - 1) / rate
            outbox = [Int16](repeating: 0, count: period * engineChannels)
        }
    }

    /// Passes 10 ms (`pcm`, interleaved, 48 kHz, `engineChannels`) through the
    /// tap. `deliver` gets each full chunk (interleaved, host format, `samplesPerCall`
    /// per channel) and returns false to discard it (then silence replaces it in
    /// write modes). In write modes `pcm` is replaced by the observer's audio.
    public func process(_ pcm: inout [Int16],
                        deliver: (UnsafeMutableBufferPointer<Int16>) -> Bool) {
        var host = convertChannels(pcm, from: engineChannels, to: parameters.channels)
        if let toHost { host = toHost.process(host) }
        inbox += host
        let chunk = frame.count
        while inbox.count >= chunk {
            if parameters.mode == .writeOnly {
                for i in 0..<chunk { frame[i] = 0 }
            } else {
                for i in 0..<chunk { frame[i] = inbox[i] }
            }
            inbox.removeFirst(chunk)
            let keep = frame.withUnsafeMutableBufferPointer { deliver($0) }
            guard parameters.mode != .readOnly else { continue }
            var back = keep ? frame : [Int16](repeating: 0, count: chunk)
            back = convertChannels(back, from: parameters.channels, to: engineChannels)
            if let fromHost { back = fromHost.process(back) }
            outbox += back
        }
        guard parameters.mode != .readOnly else { return }
        let need = pcm.count
        if outbox.count >= need {
            for i in 0..<need { pcm[i] = outbox[i] }
            outbox.removeFirst(need)
        } else {
            underruns += 1
            for i in 0..<need { pcm[i] = i < outbox.count ? outbox[i] : 0 }
            outbox = []
        }
    }
}

/// Gain and level helpers for 16-bit PCM.
public enum PCM {
    /// Scales `pcm` by `percent` / 100 (0 = silence, 100 = unchanged), clipping
    /// to the 16-bit range (Agora's "clipping protection" above 100).
    public static func applyGain(_ pcm: inout [Int16], percent: Int) {
        guard percent != 100 else { return }
        if percent <= 0 {
            for i in pcm.indices { pcm[i] = 0 }
            return
        }
        let g = Int32(percent)
        for i in pcm.indices { pcm[i] = Int16(clamping: Int32(pcm[i]) * g / 100) }
    }

    /// Peak absolute value.
    public static func peak(_ pcm: [Int16]) -> Int {
        var m: Int32 = 0
        for s in pcm { m = max(m, abs(Int32(s))) }
        return Int(m)
    }

    /// Root mean square, 0...32768.
    public static func rms(_ pcm: [Int16]) -> Double {
        guard !pcm.isEmpty else { return 0 }
        var sum = 0.0
        for s in pcm { let d = Double(s); sum += d * d }
        return (sum / Double(pcm.count)).squareRoot()
    }

    /// Agora's 0...255 volume of a frame: a log scale of the RMS level, where
    /// -60 dBFS and below is 0 and full scale is 255.
    public static func volume(_ pcm: [Int16]) -> Int { volume(rms: rms(pcm)) }

    /// The 0...255 volume of an RMS level already measured.
    public static func volume(rms r: Double) -> Int {
        guard r >= 1 else { return 0 }
        let db = 20 * log10(r / 32768)
        return max(0, min(255, Int(((db + 60) / 60 * 255).rounded())))
    }

    /// Sums two interleaved buffers of the same layout, clipping.
    public static func mix(_ a: inout [Int16], _ b: [Int16]) {
        let n = min(a.count, b.count)
        for i in 0..<n { a[i] = Int16(clamping: Int32(a[i]) + Int32(b[i])) }
    }
}
