import AgoraishMedia
import Glibc
import Testing

/// Rubber Band through `TimeStretcher`: pitch moves the tone, speed moves the duration.
@Suite struct TimeStretcherTests {
    /// Runs `seconds` of a 48 kHz stereo sine at `hz` through `s`; returns the left channel out.
    private func run(_ s: TimeStretcher, hz: Double, seconds: Double) -> [Int16] {
        var out: [Int16] = []
        let frames = Int(seconds * 48000)
        var i = 0
        while i < frames {
            var chunk: [Int16] = []
            for n in 0..<480 {
                let v = Int16(8000 * sin(2 * Double.pi * hz * Double(i + n) / 48000))
                chunk += [v, v]
            }
            i += 480
            s.feed(chunk[...])
            let got = s.take(s.framesAvailable)
            out += stride(from: 0, to: got.count, by: 2).map { got[$0] }
        }
        return out
    }

    /// The frequency with the most energy among `candidates` in the last half second.
    private func strongest(_ pcm: [Int16], _ candidates: [Double]) -> Double {
        let tail = Array(pcm.suffix(24000))
        return candidates.max { goertzel(tail, hz: $0, rate: 48000) < goertzel(tail, hz: $1, rate: 48000) }!
    }

    @Test func twelveSemitonesUpDoublesTheFrequency() {
        #expect(abs(TimeStretcher.pitchScale(semitones: 12) - 2) < 1e-9)
        #expect(abs(TimeStretcher.pitchScale(semitones: -12) - 0.5) < 1e-9)
        let s = TimeStretcher(pitchScale: TimeStretcher.pitchScale(semitones: 12))
        let out = run(s, hz: 440, seconds: 2)
        #expect(strongest(out, [440, 660, 880, 1320]) == 880)
    }

    /// A steady tone an octave up stays steady: its phase against an ideal
    /// 2 kHz advances evenly, 5 ms by 5 ms (Rubber Band's default pitch
    /// method let it jump by half a cycle every few hundred milliseconds,
    /// which moves the heard pitch by a few hertz).
    @Test func anOctaveUpKeepsASteadyTonesPhase() {
        let s = TimeStretcher(pitchScale: 2)
        let out = run(s, hz: 1000, seconds: 1.5)
        let block = 240
        var phases: [Double] = []
        var start = 14400  // past the stretcher's start (300 ms)
        while start + block <= out.count {
            var re = 0.0, im = 0.0
            for n in start..<(start + block) {
                let angle = 2 * Double.pi * 2000 * Double(n) / 48000
                re += Double(out[n]) * cos(angle)
                im -= Double(out[n]) * sin(angle)
            }
            phases.append(atan2(im, re))
            start += block
        }
        #expect(phases.count > 100)
        var largest = 0.0
        for (a, b) in zip(phases, phases.dropFirst()) {
            var step = b - a
            while step > Double.pi { step -= 2 * Double.pi }
            while step < -Double.pi { step += 2 * Double.pi }
            largest = max(largest, abs(step))
        }
        #expect(largest < 0.5, "the largest phase step in 5 ms: \(largest) rad")
    }

    @Test func twiceTheSpeedHalvesTheDurationAndKeepsThePitch() {
        let s = TimeStretcher(speed: 2)
        let out = run(s, hz: 500, seconds: 4)
        // About 2 s of output (the stretcher keeps a little in flight).
        #expect(out.count > 48000 * 17 / 10 && out.count < 48000 * 21 / 10)
        #expect(strongest(out, [250, 500, 1000]) == 500)
    }

    @Test func normalSettingsPassTheToneThrough() {
        let s = TimeStretcher()
        let out = run(s, hz: 1000, seconds: 1)
        #expect(strongest(out, [500, 1000, 2000]) == 1000)
    }
}
