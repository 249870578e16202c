import CRubberBand
import Glibc

/// Changes the pitch and the speed of 48 kHz stereo audio as it streams
/// (Rubber Band's real-time mode): the music of audio mixing and effects,
/// and a media player's playback speed. Not thread-safe: one owner feeds it.
public final class TimeStretcher {
    /// The sample rate of what goes in and comes out.
    public static let sampleRate = 48000
    private let state: RubberBandState
    private var left: [Float] = []
    private var right: [Float] = []
    /// The pitch factor in force (2.0: an octave up).
    public private(set) var pitchScale: Double
    /// Output time per input time (0.5: twice as fast).
    public private(set) var timeRatio: Double

    /// A stretcher at `pitchScale` (0.25...4) and `speed` (0.25...4, 1 normal).
    public init(pitchScale: Double = 1, speed: Double = 1) {
        self.pitchScale = pitchScale
        self.timeRatio = 1 / speed
        // Rubber Band's defaults (crisp transients, the high-speed pitch
        // method) jump a steady tone's phase by half a cycle every few hundred
        // milliseconds while shifting pitch, which is heard as a pitch a few
        // hertz off and a roughness. Smooth transients keep the phase; the
        // high-consistency method also changes pitch without discontinuities.
        let options = RubberBandOptions(RubberBandOptionProcessRealTime.rawValue
            | RubberBandOptionTransientsSmooth.rawValue | RubberBandOptionPitchHighConsistency.rawValue
            | RubberBandOptionThreadingNever.rawValue)
        state = rubberband_new(UInt32(Self.sampleRate), 2, options, 1 / speed, pitchScale)
    }

    deinit { rubberband_delete(state) }

    /// The semitones' pitch factor: 2^(semitones / 12).
    public static func pitchScale(semitones: Double) -> Double { pow(2, semitones / 12) }

    /// Changes the pitch factor (0.25...4).
    public func setPitchScale(_ scale: Double) {
        guard scale != pitchScale else { return }
        pitchScale = scale
        rubberband_set_pitch_scale(state, scale)
    }

    /// Changes the speed (0.25...4, 1 normal).
    public func setSpeed(_ speed: Double) {
        let ratio = 1 / speed
        guard ratio != timeRatio else { return }
        timeRatio = ratio
        rubberband_set_time_ratio(state, ratio)
    }

    /// How many input frames the stretcher wants before it gives more output.
    public var framesRequired: Int { Int(rubberband_get_samples_required(state)) }

    /// Output frames ready to take.
    public var framesAvailable: Int { max(0, Int(rubberband_available(state))) }

    /// Feeds interleaved stereo 16-bit frames (`final`: the last of the stream).
    public func feed(_ pcm: ArraySlice<Int16>, final: Bool = false) {
        let frames = pcm.count / 2
        if left.count < frames { left = [Float](repeating: 0, count: frames); right = left }
        var i = pcm.startIndex
        for f in 0..<frames {
            left[f] = Float(pcm[i]) / 32768
            right[f] = Float(pcm[i + 1]) / 32768
            i += 2
        }
        left.withUnsafeBufferPointer { l in
            right.withUnsafeBufferPointer { r in
                var planes: [UnsafePointer<Float>?] = [l.baseAddress, r.baseAddress]
                rubberband_process(state, &planes, UInt32(frames), final ? 1 : 0)
            }
        }
    }

    /// Takes up to `frames` stereo frames of output, interleaved 16-bit.
    public func take(_ frames: Int) -> [Int16] {
        let n = min(frames, framesAvailable)
        guard n > 0 else { return [] }
        var l = [Float](repeating: 0, count: n), r = l
        let got = l.withUnsafeMutableBufferPointer { lp in
            r.withUnsafeMutableBufferPointer { rp -> Int in
                var planes: [UnsafeMutablePointer<Float>?] = [lp.baseAddress, rp.baseAddress]
                return Int(rubberband_retrieve(state, &planes, UInt32(n)))
            }
        }
        var out = [Int16](repeating: 0, count: got * 2)
        for f in 0..<got {
            out[2 * f] = Int16(clamping: Int((l[f] * 32767).rounded()))
            out[2 * f + 1] = Int16(clamping: Int((r[f] * 32767).rounded()))
        }
        return out
    }

    /// Forgets what is buffered (after a seek).
    public func reset() { rubberband_reset(state) }
}
