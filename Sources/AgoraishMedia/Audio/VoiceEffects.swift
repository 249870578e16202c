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
// in VoiceEffects+Stages.swift; the chain is their only user.

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
struct StagePlan {
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
        if let hz = given.highPassHz { out.append(SoxSpec("highpass", ["-2", soxNumber(clamp(hz, 20, 2000, 20))])) }
        if let hz = given.lowPassHz { out.append(SoxSpec("lowpass", ["-2", soxNumber(clamp(hz, 500, 20000, 20000))])) }
        for (k, gain) in bands.enumerated() where gain != 0 {
            out.append(SoxSpec("equalizer", [soxNumber(VoiceEffectChain.bandHz[k]), "1o", soxNumber(gain)], tag: k))
        }
        if let d = given.distortion {
            out.append(SoxSpec("overdrive", [soxNumber(clamp(d.gainDb, 0, 40, 10)), soxNumber(clamp(d.colour, 0, 100, 20))]))
        }
        if let f = given.flanger {
            out.append(SoxSpec("flanger", [soxNumber(clamp(f.delayMs, 0, 30, 2)), soxNumber(clamp(f.depthMs, 0, 10, 2)),
                                           soxNumber(clamp(f.regeneration, -95, 95, 0)), "71",
                                           soxNumber(clamp(f.speedHz, 0.1, 10, 0.5)), "sine", "25", "linear"]))
        }
        if let c = given.chorus { out.append(Self.chorusSpec(c)) }
        if let t = given.tremolo {
            out.append(SoxSpec("tremolo", [soxNumber(clamp(t.speedHz, 0.1, 40, 6)), soxNumber(clamp(t.depth, 1, 100, 40))]))
        }
        if let e = given.echo {
            let decay = clamp(e.decay, 0, 1, 0.3)
            // gain-out keeps the sum of voice and repetition at full scale at most (SoX's rule).
            out.append(SoxSpec("echo", ["1", soxNumber(0.995 / (1 + decay)), soxNumber(clamp(e.delayMs, 1, 1000, 120)), soxNumber(decay)]))
        }
        if let r = given.reverb {
            var spec = SoxSpec("reverb", ["-w", soxNumber(clamp(r.strength, 0, 100, 0)), "50", soxNumber(clamp(r.roomSize, 0, 100, 0)),
                                          channels == 2 ? "100" : "0", soxNumber(clamp(r.wetDelayMs, 0, 200, 0)), "0"])
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
            args += [soxNumber(delay + 12 * Double(v)), soxNumber(decay), soxNumber(sp), soxNumber(depth), "-s"]
            sum += decay
            decay *= 0.8
        }
        let gainIn = 0.8
        // The speeds sit at 2 + 5v + 2 in the full list (after gain-in and gain-out).
        return SoxSpec("chorus", [soxNumber(gainIn), soxNumber(0.995 / (gainIn * sum))] + args,
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
func soxNumber(_ x: Double) -> String {
    let r = (x * 1000).rounded() / 1000
    if r == r.rounded() { return String(Int(r)) }
    let whole = Int(r.magnitude)
    let frac = Int(((r.magnitude - Double(whole)) * 1000).rounded())
    var f = String(frac)
    while f.count < 3 { f = "0" + f }
    while f.hasSuffix("0") { f.removeLast() }
    return (r < 0 ? "-" : "") + String(whole) + "." + f
}
