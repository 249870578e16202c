import CMysofa
import Glibc

// Spatial audio: where a remote voice seems to come from. `SpatialGeometry` turns app
// world positions into head coordinates, `BinauralRenderer` renders a mono voice at a
// head-relative position through the HRTFs of a SOFA file (libmysofa), and
// `StereoPanner` is the plain left/right pan of setRemoteVoicePosition. The engine reads
// the SOFA file, owns the renderer on its playout path and clamps the mix to 16 bits.

/// A point or a direction in three dimensions (world units, or metres in head coordinates).
public struct Vector3: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public var z: Double

    /// The vector (x, y, z).
    public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The Euclidean length, in the vector's units.
    public var length: Double { (x * x + y * y + z * z).squareRoot() }
}

extension Vector3 {
    static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    func dot(_ b: Vector3) -> Double { x * b.x + y * b.y + z * b.z }
    /// The vector scaled to length 1; nil for a zero or non-finite vector.
    var unit: Vector3? {
        let l = length
        guard l > 0, l.isFinite else { return nil }
        return self * (1 / l)
    }
}

/// A listener's pose (ILocalSpatialAudioEngine.updateSelfPosition): position, and the
/// forward, right and up unit vectors, in the app's world coordinates.
///
/// The axes are used as given, each scaled to length 1 (a zero one falls back to the
/// matching axis of `origin`); they are not made orthogonal.
public struct ListenerPose: Equatable, Sendable {
    /// Where the listener's head is, in world units.
    public var position: Vector3
    /// The direction the listener faces.
    public var forward: Vector3
    /// The listener's right-hand side.
    public var right: Vector3
    /// The top of the listener's head.
    public var up: Vector3

    /// A pose from a position and the three axes of the head, in world coordinates.
    public init(position: Vector3, forward: Vector3, right: Vector3, up: Vector3) {
        self.position = position
        self.forward = forward
        self.right = right
        self.up = up
    }

    /// At the world origin with the head's axes on the world's: forward +x, right -y
    /// (so left +y), up +z. Head coordinates then equal world coordinates.
    public static let origin = ListenerPose(position: Vector3(0, 0, 0), forward: Vector3(1, 0, 0),
                                            right: Vector3(0, -1, 0), up: Vector3(0, 0, 1))
}

/// The geometry of spatial audio: pure functions, callable from any thread.
public enum SpatialGeometry {
    /// The source's position in head coordinates (x front, y left, z up), metres = world units × distanceUnit.
    ///
    /// `distanceUnit` is metres per world unit (setDistanceUnit); a non-positive or
    /// non-finite one counts as 1.
    public static func headRelative(_ source: Vector3, listener: ListenerPose, distanceUnit: Double) -> Vector3 {
        let scale = distanceUnit.isFinite && distanceUnit > 0 ? distanceUnit : 1
        let d = (source - listener.position) * scale
        let forward = listener.forward.unit ?? ListenerPose.origin.forward
        let right = listener.right.unit ?? ListenerPose.origin.right
        let up = listener.up.unit ?? ListenerPose.origin.up
        return Vector3(d.dot(forward), -d.dot(right), d.dot(up))
    }

    /// Distance attenuation gain (1 within 1 m, then 1/d).
    ///
    /// The inverse-distance law of a point source in free field with 1 m as the reference
    /// distance: 6 dB quieter per doubling beyond 1 m, never louder than at 1 m (so a source
    /// on the listener's head does not blow up). A NaN distance counts as 1 m; +∞ gives 0.
    public static func distanceGain(_ metres: Double) -> Double { metres > 1 ? 1 / metres : 1 }
}

/// Renders mono voices at positions around the listener's head with the head-related
/// impulse responses of a SOFA file (libmysofa), adding them into a stereo mix.
///
/// 48 kHz, 10 ms blocks of 480 frames (other block lengths work too). Per source it
/// keeps the last input samples and convolves each block with the direction's left and
/// right impulse responses directly (a time-domain FIR rather than a partitioned FFT one,
/// as no FFT library is linked here: 8 taps at a time over a contiguous loop of output
/// samples, which the compiler vectorises; about 5 ms of CPU per second of a still source
/// with Debian's set, twice that while it moves). The interaural delays libmysofa returns
/// (seconds; 0 for Debian's set, whose impulse responses hold the delay) go into the
/// filters as fractional delays (linear interpolation between two taps), without their
/// common part, which would add latency but no direction. When a source moves, the block
/// is rendered with the old and the new filter and crossfaded linearly over the block, so
/// a jump in position is heard as a 10 ms glide, not a click (moves under 1° and 5 % of
/// distance keep the filter); a change of gain ramps over the block the same way. The
/// rendering adds no latency beyond the HRTF's own onset (about 1 ms for the default set).
///
/// Not thread-safe: the playout path owns it. Making one costs a SOFA parse and a
/// resampling of every HRTF to 48 kHz (about 0.8 s of CPU for Debian's default set), so
/// the engine makes it once, off the audio thread.
public final class BinauralRenderer {
    /// The sample rate of the filters and of the audio (Hz).
    public static let sampleRate = 48000
    /// The longest interaural delay applied, in frames (5 ms); longer ones are cut to it.
    static let maxDelayFrames = 240

    /// The length of the HRTFs at 48 kHz, in taps (558 for Debian's default set).
    public let filterLength: Int
    private let easy: UnsafeMutablePointer<MYSOFA_EASY>
    /// Taps of a filter with its delay at most: filterLength + maxDelayFrames + 1.
    private let capacity: Int
    private var sources: [UInt32: Source] = [:]
    /// The history of the source being rendered, then its block (capacity - 1 + frames).
    private var input: [Float] = []
    private var newLeft: [Float] = [], newRight: [Float] = []
    private var oldLeft: [Float] = [], oldRight: [Float] = []
    private var irLeft: [Float], irRight: [Float]

    /// One source's state: its recent input and the filter in force.
    private final class Source {
        /// The last `capacity - 1` input samples, oldest first.
        var history: [Float]
        var left: [Float], right: [Float]
        var taps = 0
        var previousLeft: [Float], previousRight: [Float]
        var previousTaps = 0
        /// The unit direction and the distance (m) the filter in force was made for.
        var direction = Vector3(0, 0, 0)
        var distance = 0.0
        var gain = 0.0

        init(capacity: Int) {
            history = [Float](repeating: 0, count: capacity - 1)
            left = [Float](repeating: 0, count: capacity)
            right = left
            previousLeft = left
            previousRight = left
        }
    }

    /// Opens the SOFA data (`mysofa_open_data` at 48 kHz, loudness-normalised); nil when
    /// the data is not a usable SOFA file. `sofa` is the whole file's bytes.
    public init?(sofa: [UInt8]) {
        guard !sofa.isEmpty else { return nil }
        var length: Int32 = 0
        var err: Int32 = 0
        let opened = sofa.withUnsafeBufferPointer { bytes in
            bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                mysofa_open_data($0, bytes.count, Float(Self.sampleRate), &length, &err)
            }
        }
        guard let opened else { return nil }
        guard Int(err) == MYSOFA_OK, length > 0 else {
            mysofa_close(opened)
            return nil
        }
        easy = opened
        filterLength = Int(length)
        capacity = filterLength + Self.maxDelayFrames + 1
        irLeft = [Float](repeating: 0, count: filterLength)
        irRight = irLeft
    }

    deinit { mysofa_close(easy) }

    /// Renders 10 ms of one source (480 mono samples) at `position` (head coordinates, metres)
    /// with `gain` (0...1) and **adds** it into `stereo` (960 interleaved samples, Int32 accumulator).
    ///
    /// `gain` is the whole gain, distance attenuation included: the caller passes
    /// `SpatialGeometry.distanceGain(metres)` times any volume of its own (a change ramps
    /// over the block). A source is created on its first block and keeps its state until
    /// `remove(source:)`. Renders `min(mono.count, stereo.count / 2)` frames. A position
    /// at the head's centre or not finite renders as straight ahead.
    public func render(source id: UInt32, mono: [Int16], at position: Vector3, gain: Double,
                       into stereo: inout [Int32]) {
        let frames = min(mono.count, stereo.count / 2)
        guard frames > 0 else { return }
        let level = gain.isFinite ? min(max(gain, 0), 1) : 0
        let source: Source
        let fresh: Bool
        if let known = sources[id] {
            source = known
            fresh = false
        } else {
            source = Source(capacity: capacity)
            sources[id] = source
            fresh = true
        }
        let place = Self.filterPlace(position)
        let moved = fresh || !Self.sameFilter(place, source)
        if moved {
            swap(&source.left, &source.previousLeft)
            swap(&source.right, &source.previousRight)
            source.previousTaps = source.taps
            loadFilter(place, into: source)
        }
        fillInput(source, mono, frames)
        let history = capacity - 1
        convolve(source.left, source.right, taps: source.taps, frames: frames, into: &newLeft, &newRight)
        let from = Float(fresh ? level : source.gain), to = Float(level)
        if moved && !fresh {
            convolve(source.previousLeft, source.previousRight, taps: source.previousTaps, frames: frames,
                     into: &oldLeft, &oldRight)
            crossfade(frames, from: from, to: to)
        } else {
            ramp(frames, from: from, to: to)
        }
        mix(frames, into: &stereo)
        input.withUnsafeBufferPointer { x in
            source.history.withUnsafeMutableBufferPointer { h in
                h.baseAddress!.update(from: x.baseAddress! + frames, count: history)
            }
        }
        source.gain = level
    }

    /// Forgets a source's state (its next block starts it afresh). Unknown ids are ignored.
    public func remove(source id: UInt32) { sources[id] = nil }

    /// Forgets every source.
    public func removeAll() { sources.removeAll() }

    /// A move smaller than this keeps the filter in force: 1° of direction, 5 % of
    /// distance (below what a listener can tell apart; it spares the second convolution
    /// of a crossfade when a position only jitters).
    private static let sameDirectionCosine = cos(Double.pi / 180)
    private static let sameDistanceRatio = 1.05

    /// Where the filter is taken: the unit direction and the distance; the head's
    /// centre and non-finite positions count as 1 m straight ahead.
    private static func filterPlace(_ position: Vector3) -> (direction: Vector3, distance: Double) {
        let finite = position.x.isFinite && position.y.isFinite && position.z.isFinite
        guard finite, position.length > 1e-6, let direction = position.unit else { return (Vector3(1, 0, 0), 1) }
        return (direction, position.length)
    }

    /// Whether the filter in force is close enough to `place`.
    private static func sameFilter(_ place: (direction: Vector3, distance: Double), _ source: Source) -> Bool {
        let ratio = place.distance / source.distance
        return place.direction.dot(source.direction) >= sameDirectionCosine
            && ratio <= sameDistanceRatio && ratio >= 1 / sameDistanceRatio
    }

    /// The filter pair for `place` with its interaural delay, into `source.left/right`.
    private func loadFilter(_ place: (direction: Vector3, distance: Double), into source: Source) {
        let p = place.direction * place.distance
        var delayLeft: Float = 0, delayRight: Float = 0
        irLeft.withUnsafeMutableBufferPointer { l in
            irRight.withUnsafeMutableBufferPointer { r in
                mysofa_getfilter_float(easy, Float(p.x), Float(p.y), Float(p.z), l.baseAddress, r.baseAddress,
                                       &delayLeft, &delayRight)
            }
        }
        source.direction = place.direction
        source.distance = place.distance
        let finite = irLeft.allSatisfy(\.isFinite) && irRight.allSatisfy(\.isFinite)
        if !finite {
            // libmysofa gave no usable filter: keep the previous one rather than play noise.
            source.left = source.previousLeft
            source.right = source.previousRight
            source.taps = source.previousTaps
            return
        }
        let left = Self.delayFrames(delayLeft), right = Self.delayFrames(delayRight)
        let common = min(left, right)
        let tapsLeft = Self.delayed(irLeft, delay: left - common, into: &source.left)
        let tapsRight = Self.delayed(irRight, delay: right - common, into: &source.right)
        source.taps = max(tapsLeft, tapsRight)
    }

    /// A delay of libmysofa (seconds) in frames, within 0...maxDelayFrames.
    private static func delayFrames(_ seconds: Float) -> Double {
        let frames = Double(seconds) * Double(sampleRate)
        return frames.isFinite ? min(max(frames, 0), Double(maxDelayFrames)) : 0
    }

    /// Writes `ir` delayed by `delay` frames (linear interpolation between two taps for the
    /// fraction) into `filter`, zeroing the rest; returns the taps in use.
    static func delayed(_ ir: [Float], delay: Double, into filter: inout [Float]) -> Int {
        let whole = Int(delay)
        let fraction = Float(delay - Double(whole))
        filter.withUnsafeMutableBufferPointer { f in
            f.update(repeating: 0)
            for k in ir.indices {
                f[k + whole] += (1 - fraction) * ir[k]
                f[k + whole + 1] += fraction * ir[k]
            }
        }
        return ir.count + whole + (fraction > 0 ? 1 : 0)
    }

    /// `input` = the source's history, then the block as Float (16-bit units).
    private func fillInput(_ source: Source, _ mono: [Int16], _ frames: Int) {
        let history = capacity - 1
        if input.count < history + frames {
            input = [Float](repeating: 0, count: history + frames)
            newLeft = [Float](repeating: 0, count: frames)
            newRight = newLeft
            oldLeft = newLeft
            oldRight = newLeft
        }
        input.withUnsafeMutableBufferPointer { x in
            source.history.withUnsafeBufferPointer { h in
                x.baseAddress!.update(from: h.baseAddress!, count: history)
            }
            mono.withUnsafeBufferPointer { m in
                for n in 0..<frames { x[history + n] = Float(m[n]) }
            }
        }
    }

    /// Convolves the block in `input` with a filter pair, into `outLeft` and `outRight`.
    private func convolve(_ hl: [Float], _ hr: [Float], taps: Int, frames: Int,
                          into outLeft: inout [Float], _ outRight: inout [Float]) {
        let history = capacity - 1
        input.withUnsafeBufferPointer { x in
            hl.withUnsafeBufferPointer { l in
                hr.withUnsafeBufferPointer { r in
                    outLeft.withUnsafeMutableBufferPointer { ol in
                        outRight.withUnsafeMutableBufferPointer { or in
                            Self.fir(x.baseAddress! + history, l.baseAddress!, r.baseAddress!, taps: taps,
                                     frames: frames, ol.baseAddress!, or.baseAddress!)
                        }
                    }
                }
            }
        }
    }

    /// ol[n] = Σₖ hl[k]·x[n − k] and or[n] = Σₖ hr[k]·x[n − k] for n < frames, k < taps
    /// (x[-1], x[-2], ... being the history): taps eight at a time, each group one pass
    /// over a contiguous loop of output samples that the compiler vectorises, then the
    /// remaining taps one by one. Kept out of line so the loop vectoriser sees plain
    /// pointers (inlined into the closures above it is only partly vectorised).
    @inline(never)
    private static func fir(_ x: UnsafePointer<Float>, _ hl: UnsafePointer<Float>, _ hr: UnsafePointer<Float>,
                            taps: Int, frames: Int,
                            _ ol: UnsafeMutablePointer<Float>, _ or: UnsafeMutablePointer<Float>) {
        ol.update(repeating: 0, count: frames)
        or.update(repeating: 0, count: frames)
        var k = 0
        while k + 8 <= taps {
            let a0 = hl[k], a1 = hl[k + 1], a2 = hl[k + 2], a3 = hl[k + 3]
            let a4 = hl[k + 4], a5 = hl[k + 5], a6 = hl[k + 6], a7 = hl[k + 7]
            let b0 = hr[k], b1 = hr[k + 1], b2 = hr[k + 2], b3 = hr[k + 3]
            let b4 = hr[k + 4], b5 = hr[k + 5], b6 = hr[k + 6], b7 = hr[k + 7]
            let xk = x - k
            for n in 0..<frames {
                let v0 = xk[n], v1 = xk[n - 1], v2 = xk[n - 2], v3 = xk[n - 3]
                let v4 = xk[n - 4], v5 = xk[n - 5], v6 = xk[n - 6], v7 = xk[n - 7]
                ol[n] += (a0 * v0 + a1 * v1) + (a2 * v2 + a3 * v3) + ((a4 * v4 + a5 * v5) + (a6 * v6 + a7 * v7))
                or[n] += (b0 * v0 + b1 * v1) + (b2 * v2 + b3 * v3) + ((b4 * v4 + b5 * v5) + (b6 * v6 + b7 * v7))
            }
            k += 8
        }
        while k < taps {
            let a = hl[k], b = hr[k]
            let xk = x - k
            for n in 0..<frames {
                ol[n] += a * xk[n]
                or[n] += b * xk[n]
            }
            k += 1
        }
    }

    /// new = old·from·(1 − w) + new·to·w with w rising linearly to 1 at the block's end.
    private func crossfade(_ frames: Int, from: Float, to: Float) {
        let step = 1 / Float(frames)
        oldLeft.withUnsafeBufferPointer { ol in
            oldRight.withUnsafeBufferPointer { or in
                newLeft.withUnsafeMutableBufferPointer { nl in
                    newRight.withUnsafeMutableBufferPointer { nr in
                        for n in 0..<frames {
                            let w = Float(n + 1) * step
                            let a = from * (1 - w), b = to * w
                            nl[n] = ol[n] * a + nl[n] * b
                            nr[n] = or[n] * a + nr[n] * b
                        }
                    }
                }
            }
        }
    }

    /// new *= a gain ramping linearly from `from` to `to` over the block.
    private func ramp(_ frames: Int, from: Float, to: Float) {
        let step = (to - from) / Float(frames)
        newLeft.withUnsafeMutableBufferPointer { nl in
            newRight.withUnsafeMutableBufferPointer { nr in
                for n in 0..<frames {
                    let g = from + Float(n + 1) * step
                    nl[n] *= g
                    nr[n] *= g
                }
            }
        }
    }

    /// Adds the rendered block into the interleaved accumulator, rounded.
    private func mix(_ frames: Int, into stereo: inout [Int32]) {
        newLeft.withUnsafeBufferPointer { nl in
            newRight.withUnsafeBufferPointer { nr in
                stereo.withUnsafeMutableBufferPointer { s in
                    for n in 0..<frames {
                        s[2 * n] &+= Self.sample(nl[n])
                        s[2 * n + 1] &+= Self.sample(nr[n])
                    }
                }
            }
        }
    }

    /// A rendered value (16-bit units) as an accumulator sample, kept far inside Int32.
    @inline(__always)
    private static func sample(_ v: Float) -> Int32 { Int32(min(max(v, -1e9), 1e9).rounded()) }
}

/// The stereo panning of setRemoteVoicePosition (SDK 3.x): a mono voice placed between
/// the left and the right channel. Pure functions, callable from any thread.
public enum StereoPanner {
    /// Adds `mono` (480) panned (-1 left ... 1 right) with gain (0...100, 100 unchanged) into `stereo`.
    ///
    /// Constant-power pan (the sine/cosine law): left = cos θ, right = sin θ with
    /// θ = (pan + 1)·π/4, so pan 0 puts each channel 3 dB below the mono and ±1 the whole
    /// mono in one channel, the total power unchanged. `gain` is linear in percent. Both are
    /// clamped to their ranges (NaN counts as 0 pan, 0 gain). With `from` (the previous
    /// block's pan and gain) the levels ramp over the block instead of stepping, so a move
    /// does not click. Renders `min(mono.count, stereo.count / 2)` frames.
    public static func pan(_ mono: [Int16], pan: Double, gain: Double,
                           from previous: (pan: Double, gain: Double)? = nil, into stereo: inout [Int32]) {
        let frames = min(mono.count, stereo.count / 2)
        guard frames > 0 else { return }
        let (left, right) = levels(pan: pan, gain: gain)
        let (left0, right0) = previous.map { levels(pan: $0.pan, gain: $0.gain) } ?? (left, right)
        let step = 1 / Float(frames)
        mono.withUnsafeBufferPointer { m in
            stereo.withUnsafeMutableBufferPointer { s in
                for n in 0..<frames {
                    let w = Float(n + 1) * step
                    let v = Float(m[n])
                    s[2 * n] &+= Int32((v * (left0 + (left - left0) * w)).rounded())
                    s[2 * n + 1] &+= Int32((v * (right0 + (right - right0) * w)).rounded())
                }
            }
        }
    }

    /// The left and right gains (linear) for a pan and a gain in percent.
    private static func levels(pan: Double, gain: Double) -> (Float, Float) {
        let p = pan.isNaN ? 0 : min(max(pan, -1), 1)
        let g = gain.isNaN ? 0 : min(max(gain, 0), 100) / 100
        let theta = (p + 1) * Double.pi / 4
        return (Float(cos(theta) * g), Float(sin(theta) * g))
    }
}
