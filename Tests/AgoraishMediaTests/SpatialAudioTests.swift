import AgoraishMedia
import Glibc
import Testing

/// Signals, measures and the shared renderer of the spatial audio tests.
private enum Spatial {
    /// Debian's default SOFA file, read here (the library takes bytes; the engine reads the file).
    static let sofa: [UInt8] = {
        guard let file = fopen("/usr/share/libmysofa/default.sofa", "rb") else { return [] }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return bytes
    }()

    /// One renderer for the `BinauralRendererTests`, which run one at a time (the renderer
    /// is not thread-safe) and each use their own source ids: opening the SOFA data
    /// resamples every HRTF to 48 kHz, which costs most of a second, so it is done once.
    nonisolated(unsafe) static let renderer = BinauralRenderer(sofa: sofa)

    /// A listener at (10, 5, 0) facing +y with +z up, so +x is on the right.
    static let turned = ListenerPose(position: Vector3(10, 5, 0), forward: Vector3(0, 1, 0),
                                     right: Vector3(1, 0, 0), up: Vector3(0, 0, 1))

    /// `count` samples of seeded white noise at about -18 dBFS.
    static func noise(_ count: Int, seed: UInt64) -> [Int16] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int16(truncatingIfNeeded: Int(state >> 51) - 4096)
        }
    }

    /// A sine at `hz`, amplitude 10000.
    static func sine(_ count: Int, hz: Double) -> [Int16] {
        (0..<count).map { Int16(10000 * sin(2 * Double.pi * hz * Double($0) / 48000)) }
    }

    /// Renders `mono` block by block for source `id` at `position(block)`; the interleaved output.
    static func render(_ renderer: BinauralRenderer, id: UInt32, _ mono: [Int16], gain: Double = 1,
                       at position: (Int) -> Vector3) -> [Int32] {
        var out: [Int32] = []
        for block in 0..<(mono.count / 480) {
            var stereo = [Int32](repeating: 0, count: 960)
            renderer.render(source: id, mono: Array(mono[(block * 480)..<(block * 480 + 480)]),
                            at: position(block), gain: gain, into: &stereo)
            out += stereo
        }
        return out
    }

    /// One channel (0 left, 1 right) of interleaved stereo from frame `from` on.
    static func channel(_ stereo: [Int32], _ index: Int, from: Int = 0) -> [Double] {
        stride(from: 2 * from + index, to: stereo.count, by: 2).map { Double(stereo[$0]) }
    }

    static func energy(_ x: [Double]) -> Double { x.reduce(0) { $0 + $1 * $1 } }

    /// The energy of both channels from frame `from` on.
    static func energy(_ stereo: [Int32], from: Int) -> Double {
        energy(channel(stereo, 0, from: from)) + energy(channel(stereo, 1, from: from))
    }

    /// 10·log10 of the right channel's energy over the left's.
    static func rightOverLeftDb(_ stereo: [Int32], from: Int) -> Double {
        10 * log10(energy(channel(stereo, 1, from: from)) / energy(channel(stereo, 0, from: from)))
    }

    /// The lag (ms) at which the left channel best matches the right one (cross-correlation
    /// over ±1.25 ms): positive when the left ear hears the sound later.
    static func leftLagMs(_ stereo: [Int32], from: Int) -> Double {
        let left = channel(stereo, 0, from: from), right = channel(stereo, 1, from: from)
        var best = 0, bestSum = -Double.infinity
        for lag in -60...60 {
            var sum = 0.0
            for n in 60..<(left.count - 60) { sum += left[n] * right[n - lag] }
            if sum > bestSum { (best, bestSum) = (lag, sum) }
        }
        return Double(best) / 48
    }

    /// The largest step between neighbouring samples of either channel, from frame `from` on.
    static func largestStep(_ stereo: [Int32], from: Int = 0) -> Double {
        var step = 0.0
        for index in 0..<2 {
            let x = channel(stereo, index, from: from)
            for n in 1..<x.count { step = max(step, abs(x[n] - x[n - 1])) }
        }
        return step
    }

    static func near(_ a: Vector3, _ b: Vector3) -> Bool {
        abs(a.x - b.x) < 1e-9 && abs(a.y - b.y) < 1e-9 && abs(a.z - b.z) < 1e-9
    }
}

/// Head coordinates from world poses, the distance law and the constant-power stereo pan.
@Suite struct SpatialAudioTests {
    @Test func headRelativeTurnsWorldPositionsIntoHeadCoordinates() {
        func head(_ source: Vector3, _ pose: ListenerPose = Spatial.turned, unit: Double = 1) -> Vector3 {
            SpatialGeometry.headRelative(source, listener: pose, distanceUnit: unit)
        }
        // x front, y left, z up, in metres.
        #expect(Spatial.near(head(Vector3(12, 5, 0)), Vector3(0, -2, 0)))
        #expect(Spatial.near(head(Vector3(10, 8, 0), unit: 0.5), Vector3(1.5, 0, 0)))
        #expect(Spatial.near(head(Vector3(9, 5, 1)), Vector3(0, 1, 1)))
        #expect(Spatial.near(head(Vector3(10, 2, 0)), Vector3(-3, 0, 0)))
        // The origin pose is the identity; axes that are not unit length are scaled to it.
        #expect(Spatial.near(head(Vector3(1, 2, 3), .origin), Vector3(1, 2, 3)))
        let long = ListenerPose(position: Vector3(10, 5, 0), forward: Vector3(0, 3, 0),
                                right: Vector3(0.5, 0, 0), up: Vector3(0, 0, 2))
        #expect(Spatial.near(head(Vector3(12, 5, 0), long), Vector3(0, -2, 0)))
        // Lying on the right side (rolled 90°): the world's +z is on the listener's left.
        let lying = ListenerPose(position: Vector3(0, 0, 0), forward: Vector3(0, 1, 0),
                                 right: Vector3(0, 0, -1), up: Vector3(1, 0, 0))
        #expect(Spatial.near(head(Vector3(0, 0, 4), lying), Vector3(0, 4, 0)))
    }

    @Test func distanceGainIsOneWithinAMetreThenInverse() {
        #expect(SpatialGeometry.distanceGain(0) == 1)
        #expect(SpatialGeometry.distanceGain(0.5) == 1)
        #expect(SpatialGeometry.distanceGain(1) == 1)
        #expect(SpatialGeometry.distanceGain(2) == 0.5)
        #expect(SpatialGeometry.distanceGain(8) == 0.125)
    }

    @Test func stereoPanIsConstantPower() {
        let tone = Spatial.sine(480, hz: 1000)
        let input = tone.reduce(0.0) { $0 + Double($1) * Double($1) }
        func levels(pan: Double, gain: Double) -> (left: Double, right: Double) {
            var stereo = [Int32](repeating: 0, count: 960)
            StereoPanner.pan(tone, pan: pan, gain: gain, into: &stereo)
            let left = Spatial.energy(Spatial.channel(stereo, 0)), right = Spatial.energy(Spatial.channel(stereo, 1))
            return (left / input, right / input)
        }
        let hardLeft = levels(pan: -1, gain: 100), centre = levels(pan: 0, gain: 100)
        let hardRight = levels(pan: 1, gain: 100)
        #expect(abs(10 * log10(hardLeft.left)) < 0.05 && hardLeft.right == 0)
        #expect(abs(10 * log10(hardRight.right)) < 0.05 && hardRight.left == 0)
        #expect(abs(10 * log10(centre.left) + 3.01) < 0.05 && abs(10 * log10(centre.right) + 3.01) < 0.05)
        for pan in [-0.7, -0.2, 0.4, 0.9] {
            let l = levels(pan: pan, gain: 100)
            #expect(abs(l.left + l.right - 1) < 0.01)                 // the total power is kept
            #expect((l.right > l.left) == (pan > 0))
        }
        let half = levels(pan: 0, gain: 50)
        #expect(abs(10 * log10(half.left / centre.left) + 6.02) < 0.05)
        let silent = levels(pan: 0.3, gain: 0)
        #expect(silent.left == 0 && silent.right == 0)
    }

    @Test func stereoPanMovesWithoutAClickWhenGivenThePreviousPan() {
        let tone = Spatial.sine(4800, hz: 300)
        var out: [Int32] = []
        for block in 0..<10 {
            var stereo = [Int32](repeating: 0, count: 960)
            StereoPanner.pan(Array(tone[(block * 480)..<(block * 480 + 480)]), pan: block < 5 ? -1 : 1, gain: 100,
                             from: block == 5 ? (pan: -1, gain: 100) : nil, into: &stereo)
            out += stereo
        }
        let sineStep = 2 * Double.pi * 300 / 48000 * 10000
        #expect(Spatial.largestStep(out) <= sineStep * 1.05)
    }

    @Test func unusableSofaDataGivesNoRenderer() {
        #expect(BinauralRenderer(sofa: []) == nil)
        #expect(BinauralRenderer(sofa: [UInt8](repeating: 7, count: 4096)) == nil)
        #expect(BinauralRenderer(sofa: [0x89] + Array("HDF\r\n".utf8) + [0x1A, 0x0A] + Array("not really".utf8)) == nil)
    }
}

/// The binaural renderer over Debian's HRTF set, measured on what it renders: level and
/// time differences between the ears, the distance law, no clicks when a source moves.
/// Serialized: the tests share one renderer.
@Suite(.serialized) struct BinauralRendererTests {
    @Test func sourcesAreHeardFromTheirSide() throws {
        let renderer = try #require(Spatial.renderer)
        #expect(renderer.filterLength > 100)
        let signal = Spatial.noise(48000 / 4, seed: 7)
        let skip = 1440
        let onTheRight = SpatialGeometry.headRelative(Vector3(12, 5, 0), listener: Spatial.turned, distanceUnit: 1)
        let right = Spatial.render(renderer, id: 11, signal) { _ in onTheRight }
        let left = Spatial.render(renderer, id: 12, signal) { _ in Vector3(0, 2, 0) }
        let front = Spatial.render(renderer, id: 13, signal) { _ in Vector3(2, 0, 0) }
        // Louder (≥ 6 dB) and earlier (0.2–1 ms) in the ear on the source's side.
        #expect(Spatial.rightOverLeftDb(right, from: skip) >= 6)
        let rightLag = Spatial.leftLagMs(right, from: skip)
        #expect(rightLag >= 0.2 && rightLag <= 1)
        #expect(Spatial.rightOverLeftDb(left, from: skip) <= -6)
        let leftLag = Spatial.leftLagMs(left, from: skip)
        #expect(leftLag <= -0.2 && leftLag >= -1)
        // Straight ahead: balanced.
        #expect(abs(Spatial.rightOverLeftDb(front, from: skip)) <= 2)
        #expect(Spatial.leftLagMs(front, from: skip) == 0)
    }

    @Test func twiceTheDistanceIsSixDecibelsQuieter() throws {
        let renderer = try #require(Spatial.renderer)
        let signal = Spatial.noise(48000 / 10, seed: 11)
        // As the engine places a source: world position -> head coordinates -> distance gain.
        func level(_ world: Vector3, volume: Double = 1, id: UInt32) -> Double {
            let head = SpatialGeometry.headRelative(world, listener: Spatial.turned, distanceUnit: 0.5)
            let gain = SpatialGeometry.distanceGain(head.length) * volume
            return Spatial.energy(Spatial.render(renderer, id: id, signal, gain: gain) { _ in head }, from: 960)
        }
        // 3 and 6 world units away at 0.5 m per unit, ahead and to the left: 1.5 m and 3 m.
        let near = level(Vector3(8.2, 7.4, 0), id: 21)
        #expect(abs(10 * log10(near / level(Vector3(6.4, 9.8, 0), id: 22)) - 6.02) < 0.3)
        // No gain inside 1 m: 0.5 m is as loud as 1 m.
        #expect(abs(10 * log10(level(Vector3(10, 6, 0), id: 23) / level(Vector3(10, 7, 0), id: 24))) < 0.3)
        #expect(abs(10 * log10(near / level(Vector3(8.2, 7.4, 0), volume: 0.5, id: 25)) - 6.02) < 0.3)
        #expect(level(Vector3(8.2, 7.4, 0), volume: 0, id: 26) == 0)
    }

    @Test func movingSourceDoesNotClick() throws {
        let renderer = try #require(Spatial.renderer)
        let tone = Spatial.sine(48000 / 5, hz: 300)
        let skip = 960
        let still = Spatial.render(renderer, id: 31, tone) { _ in Vector3(0, 1, 0) }
        let stillOther = Spatial.render(renderer, id: 32, tone) { _ in Vector3(0, -1, 0) }
        let steady = max(Spatial.largestStep(still, from: skip), Spatial.largestStep(stillOther, from: skip))
        // Jumps from the left ear to the right and back, then circles 17° per block.
        let moving = Spatial.render(renderer, id: 33, tone) { block in
            block < 6 ? Vector3(0, 1, 0) : block < 12 ? Vector3(0, -1, 0)
                : Vector3(cos(Double(block) * 0.3), sin(Double(block) * 0.3), 0.2)
        }
        #expect(Spatial.largestStep(moving, from: skip) <= steady * 1.25)
        // Cutting from one rendering to the other is a click the measure sees.
        let cut = Array(still[0..<(2 * 2880)]) + Array(stillOther[(2 * 2880)...])
        #expect(Spatial.largestStep(cut, from: skip) > steady * 4)
        // A removed source starts afresh: the same output as on its first blocks.
        renderer.remove(source: 31)
        #expect(Spatial.render(renderer, id: 31, tone) { _ in Vector3(0, 1, 0) } == still)
        renderer.removeAll()
        #expect(Spatial.render(renderer, id: 32, tone) { _ in Vector3(0, -1, 0) } == stillOther)
    }

    @Test func renderAddsIntoTheMix() throws {
        let renderer = try #require(Spatial.renderer)
        let block = Spatial.noise(480, seed: 3)
        var alone = [Int32](repeating: 0, count: 960)
        renderer.render(source: 41, mono: block, at: Vector3(1, 1, 0), gain: 1, into: &alone)
        var mixed = [Int32](repeating: 1000, count: 960)
        renderer.render(source: 42, mono: block, at: Vector3(1, 1, 0), gain: 1, into: &mixed)
        #expect(mixed == alone.map { $0 + 1000 })
        #expect(alone.contains { $0 != 0 })
    }
}
