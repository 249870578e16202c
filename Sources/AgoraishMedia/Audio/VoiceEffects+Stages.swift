import CRubberBand
import CSox
import Glibc

// The stages of `VoiceEffectChain` (VoiceEffects.swift), its only user:
// SoX's effects run through their handlers, Rubber Band's pitch and formant
// shifter with the pitch tracker of pitch correction, and the two stereo
// stages.

// MARK: - SoX stages

/// One SoX effect in the chain: its name and options.
struct SoxSpec {
    var name: String
    var args: [String]
    /// Tells apart effects of the same name (the equalizer's band).
    var tag = 0
    /// For `reverb -w`: the levels of the dry input and of the effect's wet output.
    var mix: (dry: Float, wet: Float)? = nil
    /// Indices in `args` of speeds the right channel of a stereo chain runs 15 % faster (chorus).
    var stereoSpeedArgs: [Int] = []

    init(_ name: String, _ args: [String], tag: Int = 0, stereoSpeedArgs: [Int] = []) {
        self.name = name
        self.args = args
        self.tag = tag
        self.stereoSpeedArgs = stereoSpeedArgs
    }

    /// Whether a running effect made for `other` can stay (only the mix levels may differ).
    func sameEffect(as other: SoxSpec) -> Bool { name == other.name && args == other.args && tag == other.tag }
}

/// A SoX effect with its spec; reverb mixes its wet output with the dry input.
final class SoxStage {
    var spec: SoxSpec
    let effect: SoxEffect
    private var dry: [Int32] = []

    init(_ spec: SoxSpec, _ effect: SoxEffect) {
        self.spec = spec
        self.effect = effect
    }

    func process(_ p: UnsafeMutableBufferPointer<Int32>) {
        guard let mix = spec.mix else { return effect.process(p) }
        if dry.count != p.count { dry = [Int32](repeating: 0, count: p.count) }
        for i in 0..<p.count { dry[i] = p[i] }
        effect.process(p)
        for i in 0..<p.count {
            let v = Float(dry[i]) * mix.dry + Float(p[i]) * mix.wet
            p[i] = Int32(clamping: Int64(max(-2.147e9, min(2.147e9, v))))
        }
    }
}

/// The handlers of the effects the chain uses, looked up once per process
/// after `sox_init()` (which only prepares an FFT cache); empty when SoX
/// cannot start. Looked up once because `sox_find_effect` runs every effect's
/// table function up to the match, and tremolo's rewrites a static handler:
/// after this, chains on different threads share nothing writable in SoX.
nonisolated(unsafe) private let soxHandlers: [String: UnsafePointer<sox_effect_handler_t>] = {
    guard sox_init() == Int32(SOX_SUCCESS.rawValue) else { return [:] }
    let names = ["highpass", "lowpass", "equalizer", "overdrive", "flanger", "chorus", "tremolo", "echo", "reverb"]
    var table: [String: UnsafePointer<sox_effect_handler_t>] = [:]
    for name in names { table[name] = sox_find_effect(name) }
    return table
}()

/// One SoX effect driven by its handler (no `sox_flow_effects`, no files):
/// `sox_create_effect` + `sox_effect_options` + `handler.start` once, then
/// `handler.flow` per block; `sox_delete_effect` (which runs `handler.stop`
/// and `handler.kill`) at the end. A multichannel effect (`SOX_EFF_MCHAN`)
/// gets one instance fed interleaved samples, any other one instance per
/// channel. An effect that returns fewer samples than it was given is padded
/// at the front once (its latency, `addedLatency`), so every call returns as
/// many samples as it got.
final class SoxEffect {
    private var instances: [UnsafeMutablePointer<sox_effect_t>] = []
    private var argv: [UnsafeMutablePointer<CChar>] = []
    private let interleaved: Bool
    private let channels: Int
    private var input: [Int32] = []
    private var output: [Int32] = []
    private var pending: [[Int32]]
    /// Frames of zeros inserted because the effect held samples back.
    private(set) var addedLatency = 0

    /// The effect `name` with `args` (SoX's command-line options) for
    /// `channels` channels at 48 kHz, 32-bit; nil when SoX refuses the options.
    /// For per-channel instances, the arguments at `stereoSpeed` indices of the
    /// second channel are multiplied by 1.15.
    init?(_ name: String, channels: Int, args: [String], stereoSpeed: [Int] = []) {
        guard let handler = soxHandlers[name] else { return nil }
        self.channels = channels
        interleaved = handler.pointee.flags & UInt32(SOX_EFF_MCHAN) != 0 && channels > 1
        let count = interleaved ? 1 : channels
        pending = [[Int32]](repeating: [], count: count)
        for k in 0..<count {
            var a = args
            if k == 1 { for i in stereoSpeed where i < a.count { a[i] = soxNumber((Double(a[i]) ?? 1) * 1.15) } }
            guard let effp = start(handler, a, channels: interleaved ? channels : 1, flow: k) else {
                assertionFailure("SoX refused \(name) \(a)")
                return nil
            }
            instances.append(effp)
        }
    }

    deinit {
        for effp in instances {
            effp.pointee.clips = 0  // no "clipped N samples" warning on stderr
            sox_delete_effect(effp)
        }
        for a in argv { free(a) }
    }

    /// Creates, configures and starts one instance; nil when SoX refuses.
    private func start(_ handler: UnsafePointer<sox_effect_handler_t>, _ args: [String], channels: Int,
                       flow: Int) -> UnsafeMutablePointer<sox_effect_t>? {
        guard let effp = sox_create_effect(handler) else { return nil }
        var cargs: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) }
        argv += cargs.compactMap { $0 }
        guard sox_effect_options(effp, Int32(args.count), &cargs) == Int32(SOX_SUCCESS.rawValue) else {
            _ = effp.pointee.handler.kill(effp)
            free(effp.pointee.priv)
            free(effp)
            return nil
        }
        // What sox_add_effect would set: the signal in and out (SoX's unknown length), one flow.
        let signal = sox_signalinfo_t(rate: Double(VoiceEffectChain.sampleRate), channels: UInt32(channels),
                                      precision: 32, length: sox_uint64_t.max, mult: nil)
        effp.pointee.in_signal = signal
        effp.pointee.out_signal = signal
        effp.pointee.flows = 1
        effp.pointee.flow = flow
        if effp.pointee.handler.start(effp) == Int32(SOX_SUCCESS.rawValue) {
            if effp.pointee.out_signal.channels == UInt32(channels), effp.pointee.flows == 1 { return effp }
            sox_delete_effect(effp)  // started in a shape this wrapper does not drive
            return nil
        }
        // SOX_EFF_NULL (nothing to do in this configuration) is filtered out by the
        // callers' specs (no zero-gain bands); anything else is a broken spec.
        _ = effp.pointee.handler.kill(effp)
        free(effp.pointee.priv)
        free(effp)
        return nil
    }

    /// Runs planar samples (channel c at c × count) through the effect in place.
    func process(_ p: UnsafeMutableBufferPointer<Int32>) {
        let frames = p.count / channels
        if interleaved {
            if input.count != p.count { input = [Int32](repeating: 0, count: p.count) }
            for c in 0..<channels { for i in 0..<frames { input[i * channels + c] = p[c * frames + i] } }
            input.withUnsafeBufferPointer { src in run(0, src, count: p.count) }
            for c in 0..<channels { for i in 0..<frames { p[c * frames + i] = output[i * channels + c] } }
        } else {
            for c in 0..<channels {
                run(c, UnsafeBufferPointer(rebasing: p[c * frames..<(c + 1) * frames]), count: frames)
                for i in 0..<frames { p[c * frames + i] = output[i] }
            }
        }
    }

    /// Flows `count` samples through instance `k`; leaves exactly `count` samples in `output`.
    private func run(_ k: Int, _ src: UnsafeBufferPointer<Int32>, count: Int) {
        let effp = instances[k]
        let flow = effp.pointee.handler.flow!
        if output.count < 2 * count { output = [Int32](repeating: 0, count: 2 * count) }
        var consumed = 0
        var produced = 0
        output.withUnsafeMutableBufferPointer { out in
            while consumed < count {
                var isamp = count - consumed
                var osamp = out.count - produced
                _ = flow(effp, src.baseAddress! + consumed, out.baseAddress! + produced, &isamp, &osamp)
                consumed += isamp
                produced += osamp
                if isamp == 0 && osamp == 0 { break }
            }
        }
        guard produced != count || !pending[k].isEmpty else { return }
        // The effect held samples back (or gave more): go through the FIFO.
        var fifo = pending[k] + output[0..<produced]
        if fifo.count < count {
            let missing = count - fifo.count
            fifo = [Int32](repeating: 0, count: missing) + fifo
            if k == 0 { addedLatency += interleaved ? missing / channels : missing }
        }
        for i in 0..<count { output[i] = fifo[i] }
        pending[k] = Array(fifo[count...])
    }
}

// MARK: - Rubber Band stage

/// Pitch, formant and pitch correction through Rubber Band's real-time R3
/// engine (short window, "high consistency" so the pitch may change every
/// block). The start pad is fed and the start delay dropped, so the output is
/// the input delayed by exactly `latency` frames: a FIFO primed with that many
/// zeros absorbs Rubber Band's uneven output. Rubber Band falls behind its
/// input by up to pad + pad / pitch frames (measured at 48 kHz with 10 ms
/// blocks: 1792 at pitch 2, 2560 at 1, 3903 at 0.5; the pad is 1280), so the
/// priming is that plus 160 for the pitch at creation; a later, lower pitch
/// may make the FIFO run dry once, and then the delay grows by what was missing.
final class PitchShifter {
    private let state: RubberBandState
    private let channels: Int
    private var inPlanes: [Float]
    private var outPlanes: [Float]
    private var fifo: [[Float]]
    private var discard = 0
    /// Input to output delay, frames.
    private(set) var latency = 0
    private var basePitch: Double
    private var envelope: Double
    private var preserve: Bool
    private var correction: VoicePitchCorrection?
    private var tracker = PitchTracker()
    /// The correction's pitch factor in force (1 without correction).
    private var ratio = 1.0
    private var applied: (pitch: Double, formant: Double, preserve: Bool)?

    init(channels: Int, _ s: StagePlan) {
        self.channels = channels
        basePitch = s.pitch
        envelope = s.envelope
        preserve = s.preserveFormant
        correction = s.given.pitchCorrection
        let options = RubberBandOptionProcessRealTime.rawValue | RubberBandOptionEngineFiner.rawValue
            | RubberBandOptionWindowShort.rawValue | RubberBandOptionPitchHighConsistency.rawValue
            | RubberBandOptionThreadingNever.rawValue
        state = rubberband_new(UInt32(VoiceEffectChain.sampleRate), UInt32(channels), RubberBandOptions(options), 1, s.pitch)
        rubberband_set_max_process_size(state, UInt32(VoiceEffectChain.frames))
        let n = VoiceEffectChain.frames
        inPlanes = [Float](repeating: 0, count: n * channels)
        outPlanes = [Float](repeating: 0, count: 4 * n * channels)
        fifo = [[Float]](repeating: [], count: channels)
        applySettings()
        start()
    }

    deinit { rubberband_delete(state) }

    /// Pads the start, primes the FIFO.
    private func start() {
        var pad = Int(rubberband_get_preferred_start_pad(state))
        // Pitch correction moves the pitch up to two semitones down (the Japanese scale's widest gap).
        let lowest = basePitch / (correction == nil ? 1 : 1.13)
        latency = pad + Int((Double(pad) / lowest).rounded(.up)) + 160
        fifo = [[Float]](repeating: [Float](repeating: 0, count: latency), count: channels)
        discard = Int(rubberband_get_start_delay(state))
        for i in 0..<inPlanes.count { inPlanes[i] = 0 }
        while pad > 0 {
            let k = min(pad, VoiceEffectChain.frames)
            feed(k)
            pad -= k
        }
        collect()
    }

    /// Takes new settings without rebuilding (the latency stays).
    func update(_ s: StagePlan) {
        basePitch = s.pitch
        envelope = s.envelope
        preserve = s.preserveFormant
        if s.given.pitchCorrection != correction {
            correction = s.given.pitchCorrection
            if correction == nil { ratio = 1 }
        }
        applySettings()
    }

    /// Sets Rubber Band's pitch, formant option and formant scale for the
    /// base pitch times the correction's ratio.
    private func applySettings() {
        let pitch = basePitch * ratio
        // Rubber Band's formant scale is relative to the pitch-shifted spectrum:
        // 0 means automatic (1 when shifted, 1 / pitch when preserved).
        let keep = preserve && abs(envelope - 1) < 1e-9
        let follow = !preserve && abs(envelope - basePitch) < 1e-9
        let formant = keep || follow ? 0 : envelope / pitch
        let preserved = !follow
        if applied?.pitch != pitch { rubberband_set_pitch_scale(state, pitch) }
        if applied?.preserve != preserved {
            let option = preserved ? RubberBandOptionFormantPreserved : RubberBandOptionFormantShifted
            rubberband_set_formant_option(state, RubberBandOptions(option.rawValue))
        }
        if applied?.formant != formant { rubberband_set_formant_scale(state, formant) }
        applied = (pitch, formant, preserved)
    }

    /// Feeds the first `frames` of `inPlanes`' channels.
    private func feed(_ frames: Int) {
        let n = VoiceEffectChain.frames
        inPlanes.withUnsafeBufferPointer { b in
            var planes: [UnsafePointer<Float>?] = (0..<channels).map { b.baseAddress! + $0 * n }
            rubberband_process(state, &planes, UInt32(frames), 0)
        }
    }

    /// Moves what Rubber Band has ready into the FIFO, after the start delay.
    private func collect() {
        let cap = outPlanes.count / channels
        while true {
            let available = Int(rubberband_available(state))
            guard available > 0 else { return }
            let k = min(available, cap)
            let got = outPlanes.withUnsafeMutableBufferPointer { b -> Int in
                var planes: [UnsafeMutablePointer<Float>?] = (0..<channels).map { b.baseAddress! + $0 * cap }
                return Int(rubberband_retrieve(state, &planes, UInt32(k)))
            }
            guard got > 0 else { return }
            let skip = min(discard, got)
            discard -= skip
            for c in 0..<channels where skip < got { fifo[c] += outPlanes[(c * cap + skip)..<(c * cap + got)] }
        }
    }

    /// 10 ms of interleaved 16-bit samples in, 10 ms of planar 32-bit samples out.
    func process(_ input: UnsafeBufferPointer<Int16>, into p: UnsafeMutableBufferPointer<Int32>) {
        let n = VoiceEffectChain.frames
        for c in 0..<channels {
            for i in 0..<n { inPlanes[c * n + i] = Float(input[i * channels + c]) * (1 / 32768) }
        }
        if let correction { correct(correction) }
        feed(n)
        collect()
        if fifo[0].count < n {
            // Rubber Band fell further behind than the priming allows: the delay grows once.
            let missing = n - fifo[0].count
            for c in 0..<channels { fifo[c] = [Float](repeating: 0, count: missing) + fifo[c] }
            latency += missing
        }
        for c in 0..<channels {
            fifo[c].withUnsafeBufferPointer { f in
                for i in 0..<n { p[c * n + i] = Int32(clamping: Int64((max(-1, min(1, f[i])) * 2_147_483_648).rounded())) }
            }
            fifo[c].removeFirst(n)
        }
    }

    /// Pulls the pitch toward the scale's nearest note (a glide of about 20 ms;
    /// back to 1 over about 50 ms where the voice is not voiced).
    private func correct(_ c: VoicePitchCorrection) {
        let n = VoiceEffectChain.frames
        let f0 = inPlanes.withUnsafeBufferPointer { b -> Double? in
            tracker.push(b.baseAddress!, frames: n, channels: channels, stride: n)
        }
        let target = f0.map { Self.snapRatio($0 * basePitch, c) } ?? 1
        ratio += (target - ratio) * (f0 == nil ? 0.2 : 0.5)
        if abs(ratio - (applied.map { $0.pitch / basePitch } ?? 1)) > 1e-4 { applySettings() }
    }

    /// The pitch factor that moves `f0` (the base pitch applied) to the nearest note of the scale.
    static func snapRatio(_ f0: Double, _ c: VoicePitchCorrection) -> Double {
        let intervals: [Int]
        switch c.mode {
        case .major: intervals = [0, 2, 4, 5, 7, 9, 11]
        case .minor: intervals = [0, 2, 3, 5, 7, 8, 10]
        case .japanese: intervals = [0, 1, 5, 7, 8]
        }
        let tonic = (9 + Int(min(12, max(1, c.tonic))) - 1) % 12  // 1 = A = pitch class 9 (C = 0)
        let midi = 69 + 12 * log2(f0 / 440)
        let base = Int(midi.rounded(.down))
        var best = Double.infinity
        for note in (base - 6)...(base + 7) where intervals.contains(((note - tonic) % 12 + 12) % 12) {
            let d = Double(note) - midi
            if abs(d) < abs(best) { best = d }
        }
        return best.isFinite ? pow(2, best / 12) : 1
    }
}

/// The F0 of a voice, 10 ms at a time: YIN (cumulative mean normalized
/// difference, threshold 0.15, parabolic refinement) on the last 30 ms
/// decimated to 12 kHz (4-sample means). Hand-written: no library on the
/// machine tracks pitch.
struct PitchTracker {
    private static let rate = 12000.0
    private static let window = 176
    private static let minLag = 12       // 1000 Hz
    private static let maxLag = 184      // 65 Hz
    private var history = [Float](repeating: 0, count: PitchTracker.window + PitchTracker.maxLag)
    private var d = [Float](repeating: 0, count: PitchTracker.maxLag + 2)

    /// Adds a block (`channels` planes `stride` apart, averaged); returns the F0 in Hz, nil when unvoiced.
    mutating func push(_ planes: UnsafePointer<Float>, frames: Int, channels: Int, stride: Int) -> Double? {
        let m = frames / 4
        history.removeFirst(m)
        var energy: Float = 0
        for j in 0..<m {
            var s: Float = 0
            for c in 0..<channels { for k in 0..<4 { s += planes[c * stride + 4 * j + k] } }
            let v = s / Float(4 * channels)
            history.append(v)
        }
        for v in history { energy += v * v }
        guard energy / Float(history.count) > 1e-6 else { return nil }  // below -60 dBFS
        let w = Self.window
        return history.withUnsafeBufferPointer { x -> Double? in
            d.withUnsafeMutableBufferPointer { d in
                var running: Float = 0
                d[0] = 1
                for tau in 1...Self.maxLag {
                    var sum: Float = 0
                    for j in 0..<w {
                        let e = x[j] - x[j + tau]
                        sum += e * e
                    }
                    running += sum
                    d[tau] = running > 0 ? sum * Float(tau) / running : 1
                }
                var tau = Self.minLag
                while tau <= Self.maxLag && d[tau] >= 0.15 { tau += 1 }
                guard tau <= Self.maxLag else { return nil }
                while tau < Self.maxLag && d[tau + 1] < d[tau] { tau += 1 }
                var lag = Double(tau)
                if tau < Self.maxLag {
                    let a = Double(d[tau - 1]), b = Double(d[tau]), c = Double(d[tau + 1])
                    let den = a - 2 * b + c
                    if den > 0 { lag += 0.5 * (a - c) / den }
                }
                return Self.rate / lag
            }
        }
    }
}

// MARK: - Stereo stages

/// Mono-compatible widening: the side gets the mid delayed by one block
/// (10 ms) times `width`; L + R is unchanged.
struct Widener {
    var width: Float = 0
    private var lastMid = [Float](repeating: 0, count: VoiceEffectChain.frames)

    mutating func process(_ p: UnsafeMutableBufferPointer<Int32>) {
        let n = VoiceEffectChain.frames
        for i in 0..<n {
            let l = Float(p[i]), r = Float(p[n + i])
            let side = width * lastMid[i]
            lastMid[i] = 0.5 * (l + r)
            p[i] = Int32(clamping: Int64(max(-2.147e9, min(2.147e9, l + side))))
            p[n + i] = Int32(clamping: Int64(max(-2.147e9, min(2.147e9, r - side))))
        }
    }
}

/// The voice circling the listener once per `period` seconds (3D voice):
/// constant-power balance from the azimuth's sine (unity in front), 3 dB
/// quieter behind; gains ramp linearly over each block.
struct Orbit {
    var period = 10.0
    private var azimuth = 0.0

    private func gains(_ a: Double) -> (Float, Float) {
        let angle = (sin(a) + 1) * Double.pi / 4  // 0 left ... pi/2 right
        let back = 1 - 0.15 * (1 - cos(a))        // 1 in front, 0.7 behind
        return (Float(2.0.squareRoot() * cos(angle) * back), Float(2.0.squareRoot() * sin(angle) * back))
    }

    mutating func process(_ p: UnsafeMutableBufferPointer<Int32>) {
        let n = VoiceEffectChain.frames
        let step = 2 * Double.pi * Double(n) / (period * Double(VoiceEffectChain.sampleRate))
        let (l0, r0) = gains(azimuth)
        azimuth = (azimuth + step).truncatingRemainder(dividingBy: 2 * Double.pi)
        let (l1, r1) = gains(azimuth)
        for i in 0..<n {
            let t = Float(i) / Float(n)
            let gl = l0 + (l1 - l0) * t, gr = r0 + (r1 - r0) * t
            p[i] = Int32(clamping: Int64(max(-2.147e9, min(2.147e9, Float(p[i]) * gl))))
            p[n + i] = Int32(clamping: Int64(max(-2.147e9, min(2.147e9, Float(p[n + i]) * gr))))
        }
    }
}
