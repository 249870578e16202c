import CRubberBand
import CSox
import Glibc

// The local voice's effects (setLocalVoicePitch, setLocalVoiceFormant,
// setLocalVoiceEqualization, setLocalVoiceReverb and the presets of
// VoiceEffectPresets.swift): pitch and formant by Rubber Band, everything
// classic (filters, equalizer, distortion, flanger, chorus, tremolo, echo,
// reverb) by SoX's effects run directly through their handlers on 10 ms
// blocks, and two stereo stages (widening, a voice orbiting the listener).
// What it leaves to others: deciding when to call it (the engine skips the
// chain while the settings are neutral) and thread hand-over. The stages are
// private to this file: the chain is their only user.

/// The reverb of setLocalVoiceReverb (Agora's AUDIO_REVERB_TYPE values), run
/// by SoX's `reverb` (wet only; the dry and wet levels are mixed here).
public struct VoiceReverb: Equatable, Sendable {
    /// AUDIO_REVERB_DRY_LEVEL: the level of the original voice, dB, -20...10.
    public var dryLevelDb = 0.0
    /// AUDIO_REVERB_WET_LEVEL: the level of the reverberation, dB, -20...10.
    public var wetLevelDb = 0.0
    /// AUDIO_REVERB_ROOM_SIZE: 0...100 (SoX's room-scale, %).
    public var roomSize = 0.0
    /// AUDIO_REVERB_WET_DELAY: the pre-delay of the reverberation, ms, 0...200.
    public var wetDelayMs = 0.0
    /// AUDIO_REVERB_STRENGTH: 0...100 (SoX's reverberance, %: how long it rings).
    public var strength = 0.0

    /// No reverberation settings yet: every value 0.
    public init() {}

    /// A reverb with every value given (the ranges of the properties).
    public init(dryLevelDb: Double, wetLevelDb: Double, roomSize: Double, wetDelayMs: Double, strength: Double) {
        self.dryLevelDb = dryLevelDb
        self.wetLevelDb = wetLevelDb
        self.roomSize = roomSize
        self.wetDelayMs = wetDelayMs
        self.strength = strength
    }
}

/// A chorus (SoX's `chorus`): delayed copies of the voice whose delay swings.
public struct VoiceChorus: Equatable, Sendable {
    /// The first copy's delay, ms, 20...100; further copies are 12 ms later each.
    public var delayMs = 45.0
    /// The first copy's level relative to the voice, 0...1; further copies 0.8 times the previous.
    public var decay = 0.4
    /// How fast the delay swings, Hz, 0.1...2.5 (each further copy 1.3 times faster, the
    /// right channel of a stereo chain 1.15 times: SoX's limit is 5).
    public var speedHz = 0.25
    /// How far the delay swings, ms, 0...10.
    public var depthMs = 2.0
    /// How many delayed copies, 1...3.
    public var voices = 2

    /// A chorus with every value given (the ranges of the properties).
    public init(delayMs: Double = 45, decay: Double = 0.4, speedHz: Double = 0.25, depthMs: Double = 2, voices: Int = 2) {
        self.delayMs = delayMs
        self.decay = decay
        self.speedHz = speedHz
        self.depthMs = depthMs
        self.voices = voices
    }
}

/// A flanger (SoX's `flanger`): a short swinging delay fed back, the "metal" of robots.
public struct VoiceFlanger: Equatable, Sendable {
    /// The base delay, ms, 0...30.
    public var delayMs = 2.0
    /// How far the delay swings, ms, 0...10.
    public var depthMs = 2.0
    /// Feedback, percent, -95...95.
    public var regeneration = 0.0
    /// How fast the delay swings, Hz, 0.1...10.
    public var speedHz = 0.5

    /// A flanger with every value given (the ranges of the properties).
    public init(delayMs: Double = 2, depthMs: Double = 2, regeneration: Double = 0, speedHz: Double = 0.5) {
        self.delayMs = delayMs
        self.depthMs = depthMs
        self.regeneration = regeneration
        self.speedHz = speedHz
    }
}

/// A tremolo (SoX's `tremolo`): the level swings.
public struct VoiceTremolo: Equatable, Sendable {
    /// How fast, Hz, 0.1...40.
    public var speedHz = 6.0
    /// How deep, percent, 1...100.
    public var depth = 40.0

    /// A tremolo with every value given (the ranges of the properties).
    public init(speedHz: Double = 6, depth: Double = 40) {
        self.speedHz = speedHz
        self.depth = depth
    }
}

/// An echo (SoX's `echo`): one repetition of the voice.
public struct VoiceEcho: Equatable, Sendable {
    /// The delay, ms, 1...1000.
    public var delayMs = 120.0
    /// The repetition's level relative to the voice, 0...1.
    public var decay = 0.3

    /// An echo with every value given (the ranges of the properties).
    public init(delayMs: Double = 120, decay: Double = 0.3) {
        self.delayMs = delayMs
        self.decay = decay
    }
}

/// A soft-clipping distortion (SoX's `overdrive`).
public struct VoiceDistortion: Equatable, Sendable {
    /// Drive, dB, 0...40.
    public var gainDb = 10.0
    /// Even harmonics, percent, 0...100.
    public var colour = 20.0

    /// A distortion with every value given (the ranges of the properties).
    public init(gainDb: Double = 10, colour: Double = 20) {
        self.gainDb = gainDb
        self.colour = colour
    }
}

/// PITCH_CORRECTION (setAudioEffectParameters): each voiced 10 ms is pulled to
/// the nearest note of a scale. The F0 is tracked on the input (YIN on a
/// 30 ms window decimated to 12 kHz: speech F0 65...1000 Hz) and Rubber Band's
/// pitch follows with a 20 ms glide.
public struct VoicePitchCorrection: Equatable, Sendable {
    /// The scale's mode (Agora's param1).
    public enum Mode: Int32, Sendable {
        /// Natural major: 0 2 4 5 7 9 11.
        case major = 1
        /// Natural minor: 0 2 3 5 7 8 10.
        case minor = 2
        /// Japanese minor (the in / miyako-bushi scale): 0 1 5 7 8.
        case japanese = 3
    }
    /// The scale's mode.
    public var mode = Mode.major
    /// The tonic (Agora's param2): 1 A, 2 A#, 3 B, 4 C (default), ... 12 G#.
    public var tonic: Int32 = 4

    /// Natural C major unless told otherwise.
    public init(mode: Mode = .major, tonic: Int32 = 4) {
        self.mode = mode
        self.tonic = tonic
    }
}

/// Everything the chain does to the local voice; the default does nothing.
///
/// Pitch and formant: `pitch` scales every frequency; the spectral envelope
/// (the formants, the timbre) ends up scaled by `(preserveFormant ? 1 : pitch)
/// × 2^formantShift`. So `formantShift` 0 leaves the formants where the pitch
/// change puts them (moved with the pitch, or kept when `preserveFormant`),
/// +1 moves them an octave further up, -1 an octave down; with `pitch` 1 it
/// changes the timbre alone (setLocalVoiceFormant).
public struct VoiceEffectSettings: Equatable, Sendable {
    /// setLocalVoicePitch: pitch scale, 0.5...2.0 (1 unchanged).
    public var pitch = 1.0
    /// setLocalVoiceFormant: -1.0...1.0, the formants' shift in octaves on top of what `pitch` does to them.
    public var formantShift = 0.0
    /// Pitch changes without moving the formants (a different person rather than a chipmunk).
    public var preserveFormant = false
    /// setLocalVoiceEqualization: dB, bands 31, 62, 125, 250, 500, 1k, 2k, 4k, 8k, 16k Hz
    /// (one-octave peaking filters), -15...15; missing bands count as 0.
    public var equalization = [Double](repeating: 0, count: 10)
    /// setLocalVoiceReverb; nil: no reverberation.
    public var reverb: VoiceReverb? = nil
    /// A chorus; nil: none.
    public var chorus: VoiceChorus? = nil
    /// A 2-pole high-pass (Butterworth), Hz, 20...2000; nil: none.
    public var highPassHz: Double? = nil
    /// A 2-pole low-pass (Butterworth), Hz, 500...20000; nil: none.
    public var lowPassHz: Double? = nil
    /// A distortion; nil: none.
    public var distortion: VoiceDistortion? = nil
    /// A flanger; nil: none.
    public var flanger: VoiceFlanger? = nil
    /// A tremolo; nil: none.
    public var tremolo: VoiceTremolo? = nil
    /// An echo; nil: none.
    public var echo: VoiceEcho? = nil
    /// Stereo chains only: mono-compatible widening (the side gets the mid delayed 10 ms), 0...1.
    public var stereoWidth = 0.0
    /// Stereo chains only: seconds for the voice to circle the listener once
    /// (constant-power panning, 3 dB quieter behind), 0 (no motion) or 1...60.
    public var orbitSeconds = 0.0
    /// Pitch correction; nil: none.
    public var pitchCorrection: VoicePitchCorrection? = nil

    /// The neutral settings.
    public init() {}

    /// True when the chain would do nothing: the engine must not call it then
    /// (the bit-identical path).
    public var isNeutral: Bool {
        pitch == 1 && formantShift == 0 && !equalization.contains { $0 != 0 } && reverb == nil && chorus == nil
            && highPassHz == nil && lowPassHz == nil && distortion == nil && flanger == nil && tremolo == nil
            && echo == nil && stereoWidth == 0 && orbitSeconds == 0 && pitchCorrection == nil
    }
}

/// Runs `VoiceEffectSettings` on 48 kHz 16-bit interleaved PCM, 10 ms at a time.
///
/// Stages, in this order, each present only when its setting is: Rubber Band
/// (pitch, formant, pitch correction; real-time R3 engine, short window), SoX
/// high-pass, low-pass, ten equalizer bands, overdrive, flanger, chorus,
/// tremolo, echo, then widening and orbit (stereo chains), then SoX reverb.
/// Only Rubber Band adds latency (`latency`); the SoX stages work sample by
/// sample.
///
/// Not thread-safe: one owner (the capture path) calls it.
public final class VoiceEffectChain {
    /// The rate of what goes in and out.
    public static let sampleRate = 48000
    /// Frames per call (10 ms).
    public static let frames = 480
    /// The equalizer's band centres, Hz.
    public static let bandHz: [Double] = [31, 62, 125, 250, 500, 1000, 2000, 4000, 8000, 16000]

    /// Interleaved channels per frame: 1 or 2.
    public let channels: Int
    /// The settings last given to `apply`, as given (the stages use them clamped to their ranges).
    public private(set) var settings = VoiceEffectSettings()

    private var pitchStage: PitchShifter?
    private var soxStages: [SoxStage] = []
    private var widener: Widener?
    private var orbit: Orbit?
    /// Planar 32-bit samples between stages: channel c at c × frames.
    private var planes: [Int32]

    /// A chain for `channels` (1 or 2) channels at 48 kHz, doing nothing until `apply`.
    public init(channels: Int) {
        precondition(channels == 1 || channels == 2, "VoiceEffectChain: 1 or 2 channels")
        self.channels = channels
        planes = [Int32](repeating: 0, count: Self.frames * channels)
    }

    /// The delay between a sample going in and coming out, in frames: 0
    /// without a Rubber Band stage, else 1440 + 1280 / pitch at the stage's
    /// creation (2720 at pitch 1, 57 ms; with pitch correction, as for pitch / 1.13),
    /// more if the pitch later went lower (the FIFO ran dry once).
    public var latency: Int { (pitchStage?.latency ?? 0) + soxStages.reduce(0) { $0 + $1.effect.addedLatency } }

    /// Changes the settings. Rebuilds only the stages whose settings changed;
    /// a pitch or formant change keeps the Rubber Band stage (and the latency)
    /// as long as some pitch processing stays on.
    public func apply(_ settings: VoiceEffectSettings) {
        self.settings = settings
        let s = StagePlan(settings)
        if s.needsRubberBand {
            if let stage = pitchStage {
                stage.update(s)
            } else {
                pitchStage = PitchShifter(channels: channels, s)
            }
        } else {
            pitchStage = nil
        }
        let wanted = s.soxSpecs(channels: channels)
        var kept: [SoxStage] = []
        for spec in wanted {
            if let old = soxStages.first(where: { $0.spec.sameEffect(as: spec) }) {
                old.spec = spec
                kept.append(old)
            } else if let effect = SoxEffect(spec.name, channels: channels, args: spec.args,
                                             stereoSpeed: spec.stereoSpeedArgs) {
                kept.append(SoxStage(spec, effect))
            }
        }
        soxStages = kept
        if channels == 2, s.stereoWidth > 0 {
            if widener == nil { widener = Widener() }
            widener!.width = Float(s.stereoWidth)
        } else {
            widener = nil
        }
        if channels == 2, s.orbitSeconds > 0 {
            if orbit == nil { orbit = Orbit() }
            orbit!.period = s.orbitSeconds
        } else {
            orbit = nil
        }
    }

    /// Processes 10 ms in place: 480 × channels interleaved samples in, as many out.
    public func process(_ pcm: inout [Int16]) {
        let n = Self.frames
        precondition(pcm.count == n * channels, "VoiceEffectChain.process: 10 ms of \(channels) channels")
        planes.withUnsafeMutableBufferPointer { p in
            pcm.withUnsafeBufferPointer { input in
                if let pitchStage {
                    pitchStage.process(input, into: p)
                } else {
                    for c in 0..<channels {
                        for i in 0..<n { p[c * n + i] = Int32(input[i * channels + c]) << 16 }
                    }
                }
            }
            // The reverb (always the last SoX stage) comes after the stereo stages.
            let reverb = soxStages.last.flatMap { $0.spec.mix == nil ? nil : $0 }
            for stage in soxStages where stage !== reverb { stage.process(p) }
            if widener != nil { widener!.process(p) }
            if orbit != nil { orbit!.process(p) }
            reverb?.process(p)
            pcm.withUnsafeMutableBufferPointer { out in
                for c in 0..<channels {
                    for i in 0..<n {
                        out[i * channels + c] = Int16(clamping: (Int(p[c * n + i]) + 0x8000) >> 16)
                    }
                }
            }
        }
    }

    /// Forgets the audio in flight (tails, delay lines, Rubber Band's buffers); keeps the settings.
    public func reset() {
        let s = settings
        pitchStage = nil
        soxStages = []
        widener = nil
        orbit = nil
        apply(s)
    }
}

// MARK: - Settings clamped to what the stages accept

/// What the stages get from `VoiceEffectSettings`: every value in its stage's
/// range (non-finite values fall back to the neutral ones).
private struct StagePlan {
    var pitch, envelope, stereoWidth, orbitSeconds: Double
    var preserveFormant: Bool
    var bands: [Double]
    /// The settings as given.
    var given: VoiceEffectSettings

    /// `envelope`: the factor the spectral envelope ends up scaled by.
    init(_ s: VoiceEffectSettings) {
        given = s
        pitch = clamp(s.pitch, 0.5, 2, 1)
        let shift = clamp(s.formantShift, -1, 1, 0)
        preserveFormant = s.preserveFormant
        envelope = (s.preserveFormant ? 1 : pitch) * pow(2, shift)
        bands = (0..<10).map { $0 < s.equalization.count ? clamp(s.equalization[$0], -15, 15, 0) : 0 }
        stereoWidth = clamp(s.stereoWidth, 0, 1, 0)
        let orbit = clamp(s.orbitSeconds, 0, 60, 0)
        orbitSeconds = orbit > 0 ? max(1, orbit) : 0
    }

    /// Whether Rubber Band has something to do.
    var needsRubberBand: Bool { pitch != 1 || abs(envelope - 1) > 1e-9 || given.pitchCorrection != nil }

    /// The SoX stages in processing order (the reverb last).
    func soxSpecs(channels: Int) -> [SoxSpec] {
        var out: [SoxSpec] = []
        if let hz = given.highPassHz { out.append(SoxSpec("highpass", ["-2", num(clamp(hz, 20, 2000, 20))])) }
        if let hz = given.lowPassHz { out.append(SoxSpec("lowpass", ["-2", num(clamp(hz, 500, 20000, 20000))])) }
        for (k, gain) in bands.enumerated() where gain != 0 {
            out.append(SoxSpec("equalizer", [num(VoiceEffectChain.bandHz[k]), "1o", num(gain)], tag: k))
        }
        if let d = given.distortion {
            out.append(SoxSpec("overdrive", [num(clamp(d.gainDb, 0, 40, 10)), num(clamp(d.colour, 0, 100, 20))]))
        }
        if let f = given.flanger {
            out.append(SoxSpec("flanger", [num(clamp(f.delayMs, 0, 30, 2)), num(clamp(f.depthMs, 0, 10, 2)),
                                           num(clamp(f.regeneration, -95, 95, 0)), "71",
                                           num(clamp(f.speedHz, 0.1, 10, 0.5)), "sine", "25", "linear"]))
        }
        if let c = given.chorus { out.append(Self.chorusSpec(c)) }
        if let t = given.tremolo {
            out.append(SoxSpec("tremolo", [num(clamp(t.speedHz, 0.1, 40, 6)), num(clamp(t.depth, 1, 100, 40))]))
        }
        if let e = given.echo {
            let decay = clamp(e.decay, 0, 1, 0.3)
            // gain-out keeps the sum of voice and repetition at full scale at most (SoX's rule).
            out.append(SoxSpec("echo", ["1", num(0.995 / (1 + decay)), num(clamp(e.delayMs, 1, 1000, 120)), num(decay)]))
        }
        if let r = given.reverb {
            var spec = SoxSpec("reverb", ["-w", num(clamp(r.strength, 0, 100, 0)), "50", num(clamp(r.roomSize, 0, 100, 0)),
                                          channels == 2 ? "100" : "0", num(clamp(r.wetDelayMs, 0, 200, 0)), "0"])
            spec.mix = (dry: Float(dB(clamp(r.dryLevelDb, -20, 10, 0))), wet: Float(dB(clamp(r.wetLevelDb, -20, 10, 0))))
            out.append(spec)
        }
        return out
    }

    /// SoX's chorus: gain-in 0.8 (the voice), gain-out scaled so the voice and its copies stay in range.
    private static func chorusSpec(_ c: VoiceChorus) -> SoxSpec {
        let voices = min(3, max(1, c.voices))
        let delay = clamp(c.delayMs, 20, 100 - 12 * Double(voices - 1) - 10, 45)
        let depth = clamp(c.depthMs, 0, 10, 2)
        var decay = clamp(c.decay, 0, 1, 0.4)
        let speed = clamp(c.speedHz, 0.1, 5 / 1.3 / 1.3 / 1.15, 0.25)
        var args: [String] = []
        var sum = 1.0
        for v in 0..<voices {
            let sp = speed * pow(1.3, Double(v))
            args += [num(delay + 12 * Double(v)), num(decay), num(sp), num(depth), "-s"]
            sum += decay
            decay *= 0.8
        }
        let gainIn = 0.8
        // The speeds sit at 2 + 5v + 2 in the full list (after gain-in and gain-out).
        return SoxSpec("chorus", [num(gainIn), num(0.995 / (gainIn * sum))] + args,
                       stereoSpeedArgs: (0..<voices).map { 4 + 5 * $0 })
    }
}

/// `x` in lo...hi; `fallback` when not finite.
private func clamp(_ x: Double, _ lo: Double, _ hi: Double, _ fallback: Double) -> Double {
    x.isFinite ? min(hi, max(lo, x)) : fallback
}

/// The linear gain of `db` decibels.
private func dB(_ db: Double) -> Double { pow(10, db / 20) }

/// A number as SoX's option parser reads it (no exponent notation).
private func num(_ x: Double) -> String {
    let r = (x * 1000).rounded() / 1000
    if r == r.rounded() { return String(Int(r)) }
    let whole = Int(r.magnitude)
    let frac = Int(((r.magnitude - Double(whole)) * 1000).rounded())
    var f = String(frac)
    while f.count < 3 { f = "0" + f }
    while f.hasSuffix("0") { f.removeLast() }
    return (r < 0 ? "-" : "") + String(whole) + "." + f
}

// MARK: - SoX stages

/// One SoX effect in the chain: its name and options.
private struct SoxSpec {
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
private final class SoxStage {
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
private final class SoxEffect {
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
            if k == 1 { for i in stereoSpeed where i < a.count { a[i] = num((Double(a[i]) ?? 1) * 1.15) } }
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
private final class PitchShifter {
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
private struct PitchTracker {
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
private struct Widener {
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
private struct Orbit {
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
