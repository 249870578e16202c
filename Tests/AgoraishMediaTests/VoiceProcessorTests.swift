import AgoraishMedia
import AgoraishWire
import Glibc
import Testing

/// Test signals for the voice processor, 48 kHz mono as Doubles in sample units
/// (±32767 full scale): speech-like voiced signals, an echo path, seeded noise.
private enum VoiceSignal {
    static let rate = 48000
    static let frame = 480

    /// A speech-like signal of `seconds`: syllables of 120–300 ms whose F0 glides between
    /// two values drawn from `f0` (Hz), harmonics up to 4 kHz shaped by a -6 dB/octave tilt
    /// and three formants drawn per syllable (a vowel), a half-sine envelope, and pauses of
    /// 0–350 ms between syllables; peaks near `peak`. `voiced[i]` says whether sample i
    /// belongs to a syllable.
    static func speech(seconds: Double, f0: ClosedRange<Double>, peak: Double, seed: UInt64)
        -> (samples: [Double], voiced: [Bool])
    {
        var rng = SplitMix64(seed: seed)
        let count = Int(seconds * Double(rate))
        var out = [Double](repeating: 0, count: count)
        var voiced = [Bool](repeating: false, count: count)
        var at = Int(Double.random(in: 0.02...0.1, using: &rng) * Double(rate))
        var phase = 0.0
        var amplitudes = [Double](repeating: 0, count: 40)
        while at < count {
            let length = Int(Double.random(in: 0.12...0.30, using: &rng) * Double(rate))
            let from = Double.random(in: f0, using: &rng), to = Double.random(in: f0, using: &rng)
            let formants = [(Double.random(in: 350...750, using: &rng), 90.0, 1.0),
                            (Double.random(in: 900...2000, using: &rng), 130.0, 0.5),
                            (Double.random(in: 2300...3000, using: &rng), 200.0, 0.25)]
            let end = min(count, at + length)
            // The harmonics' amplitudes follow the glide, updated every millisecond.
            for block in stride(from: at, to: end, by: rate / 1000) {
                let hz = from + (to - from) * Double(block - at) / Double(length)
                let harmonics = min(amplitudes.count, Int(4000 / hz))
                for k in 0..<harmonics {
                    let f = Double(k + 1) * hz
                    var shape = 0.05
                    for (centre, width, weight) in formants {
                        let x = (f - centre) / width
                        shape += weight / (1 + x * x)
                    }
                    amplitudes[k] = shape / Double(k + 1)
                }
                for i in block..<min(end, block + rate / 1000) {
                    phase += 2 * Double.pi * hz / Double(rate)
                    if phase > 2 * Double.pi { phase -= 2 * Double.pi }
                    var v = 0.0
                    for k in 0..<harmonics { v += amplitudes[k] * sin(Double(k + 1) * phase) }
                    out[i] = v * sin(Double.pi * Double(i - at) / Double(length))
                    voiced[i] = true
                }
            }
            at = end + Int(Double.random(in: 0...0.35, using: &rng) * Double(rate))
        }
        let top = out.reduce(0) { max($0, abs($1)) }
        if top > 0 { for i in out.indices { out[i] *= peak / top } }
        return (out, voiced)
    }

    /// Seeded Gaussian noise (Box–Muller) of RMS `rms`.
    static func noise(count: Int, rms: Double, seed: UInt64) -> [Double] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            // Two uniforms from 53 random bits each; u is kept off zero for the log.
            let u = (Double(rng.next() >> 11) + 0.5) * 0x1p-53, v = Double(rng.next() >> 11) * 0x1p-53
            return rms * (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
        }
    }

    /// A synthetic room impulse response of `seconds`: a direct path, then exponentially
    /// decaying seeded noise (velvet noise, one random-sign tap of random size per 1 ms,
    /// time constant 25 ms) delayed by `delay` seconds; scaled to an energy gain of `gainDb`.
    /// Returns the taps as (offset in samples, gain), sparse to keep the convolution cheap.
    static func room(delay: Double, seconds: Double, gainDb: Double, seed: UInt64) -> [(Int, Double)] {
        var rng = SplitMix64(seed: seed)
        let start = Int(delay * Double(rate))
        var taps: [(Int, Double)] = [(start, 1)]
        let grid = rate / 1000
        for cell in 1..<Int(seconds * 1000) {
            let offset = cell * grid + Int.random(in: 0..<grid, using: &rng)
            let size = Double.random(in: 0.2...1, using: &rng) * (Bool.random(using: &rng) ? 1 : -1)
            taps.append((start + offset, 0.6 * size * exp(-Double(offset) / (0.025 * Double(rate)))))
        }
        let energy = taps.reduce(0) { $0 + $1.1 * $1.1 }
        let scale = (pow(10, gainDb / 10) / energy).squareRoot()
        return taps.map { ($0.0, $0.1 * scale) }
    }

    /// `x` through the impulse response `taps`, as long as `x`.
    static func convolve(_ x: [Double], _ taps: [(Int, Double)]) -> [Double] {
        var y = [Double](repeating: 0, count: x.count)
        y.withUnsafeMutableBufferPointer { out in
            x.withUnsafeBufferPointer { input in
                for (offset, gain) in taps where offset < input.count {
                    for i in offset..<input.count { out[i] += gain * input[i - offset] }
                }
            }
        }
        return y
    }

    /// A sine of `hz` and amplitude `amplitude`, `seconds` long.
    static func sine(_ hz: Double, amplitude: Double, seconds: Double) -> [Double] {
        (0..<Int(seconds * Double(rate))).map { amplitude * sin(2 * Double.pi * hz * Double($0) / Double(rate)) }
    }

    static func pcm(_ x: ArraySlice<Double>) -> [Int16] { x.map { Int16(clamping: Int($0.rounded())) } }

    static func energy(_ x: ArraySlice<Double>) -> Double { x.reduce(0) { $0 + $1 * $1 } }

    static func energy(_ x: ArraySlice<Int16>) -> Double { x.reduce(0) { $0 + Double($1) * Double($1) } }

    static func db(_ ratio: Double) -> Double { 10 * log10(ratio) }

    /// The normalised correlation of `a` (shifted by `lag` samples later) with `b`, over `range` of b.
    static func correlation(_ a: [Int16], _ b: [Double], lag: Int, range: Range<Int>) -> Double {
        var ab = 0.0, aa = 0.0, bb = 0.0
        for i in range {
            let x = Double(a[i + lag]), y = b[i]
            ab += x * y
            aa += x * x
            bb += y * y
        }
        return ab / max(1e-9, (aa * bb).squareRoot())
    }

    /// The lag in `lags` (samples `a` runs behind `b`) at which `a` best matches `b` over
    /// the first 0.25 s of `range`, and the correlation over all of `range` at that lag.
    static func aligned(_ a: [Int16], _ b: [Double], range: Range<Int>, lags: ClosedRange<Int>) -> (lag: Int, r: Double) {
        let probe = range.lowerBound..<min(range.upperBound, range.lowerBound + rate / 4)
        let lag = lags.max { correlation(a, b, lag: $0, range: probe) < correlation(a, b, lag: $1, range: probe) }!
        return (lag, correlation(a, b, lag: lag, range: range))
    }

    /// Runs mono `capture` (and the far end `far`, fed as stereo playout, when given)
    /// through `processor` 10 ms at a time; returns the processed capture.
    static func run(_ processor: VoiceProcessor, capture: [Double], far: [Double]? = nil, delayMs: Int = 60)
        -> [Int16]
    {
        var out: [Int16] = []
        out.reserveCapacity(capture.count)
        var at = 0
        while at + frame <= capture.count {
            if let far {
                var stereo = [Int16](repeating: 0, count: 2 * frame)
                for i in 0..<frame {
                    let v = Int16(clamping: Int(far[at + i].rounded()))
                    stereo[2 * i] = v
                    stereo[2 * i + 1] = v
                }
                processor.processReverse(stereo, channels: 2)
            }
            var block = pcm(capture[at..<(at + frame)])
            processor.processCapture(&block, delayMs: delayMs)
            out += block
            at += frame
        }
        return out
    }
}

/// WebRTC AudioProcessing through `VoiceProcessor`: each step measured on synthetic signals.
@Suite struct VoiceProcessorTests {
    private typealias S = VoiceSignal
    /// 5 s of far-end speech, and its echo: 60 ms, then a direct path and 80 ms of room at -10 dB
    /// (made once, shared by the echo tests).
    private static let far = S.speech(seconds: 5, f0: 100...250, peak: 16000, seed: 1).samples
    private static let echo = S.convolve(far, S.room(delay: 0.060, seconds: 0.080, gainDb: -10, seed: 7))
    /// What a processor with the AEC on delays the capture by (band splitting and the AEC's
    /// block buffering, about 384 samples), with some room either side.
    private static let aecLags = 300...480

    private func processor(_ change: (inout VoiceProcessingConfig) -> Void) throws -> VoiceProcessor {
        let p = try #require(VoiceProcessor(captureChannels: 1))
        var c = VoiceProcessingConfig()
        change(&c)
        p.configure(c)
        return p
    }

    @Test func theDefaultConfigDoesNothing() {
        #expect(VoiceProcessingConfig().isActive == false)
        var c = VoiceProcessingConfig()
        c.highPass = true
        #expect(c.isActive)
        c = VoiceProcessingConfig()
        c.noiseSuppression = .low
        #expect(c.isActive)
        c = VoiceProcessingConfig()
        c.echoSuppression = .high
        c.gainTargetDbfs = 10
        #expect(c.isActive == false)
    }

    @Test func onlyMonoOrStereoCaptureIsAccepted() {
        #expect(VoiceProcessor(captureChannels: 0) == nil)
        #expect(VoiceProcessor(captureChannels: 3) == nil)
        #expect(VoiceProcessor(captureChannels: 2)?.captureChannels == 2)
    }

    @Test func theConfigReadsBackClamped() throws {
        let p = try processor {
            $0.echoCancellation = true
            $0.echoSuppression = .high
            $0.noiseSuppression = .veryHigh
            $0.gainControl = true
            $0.gainTargetDbfs = 40
            $0.gainCompressionDb = -5
        }
        var expected = VoiceProcessingConfig()
        expected.echoCancellation = true
        expected.echoSuppression = .high
        expected.noiseSuppression = .veryHigh
        expected.gainControl = true
        expected.gainTargetDbfs = 31
        expected.gainCompressionDb = 0
        #expect(p.config == expected)
        p.configure(VoiceProcessingConfig())
        #expect(p.config == VoiceProcessingConfig())
    }

    @Test func aBlockOfTheWrongSizeIsLeftAlone() throws {
        let p = try processor { $0.highPass = true }
        var block = [Int16](repeating: 1000, count: 479)
        p.processCapture(&block, delayMs: 0)
        #expect(block == [Int16](repeating: 1000, count: 479))
        p.processReverse([Int16](repeating: 1000, count: 480), channels: 2)  // ignored, not a crash
        #expect(p.stats == VoiceProcessingStats())
    }

    /// Far-end speech through a 60 ms + room echo path at -10 dB into a capture with no near
    /// end (a faint noise floor): after 3 s the output keeps at least 20 dB less energy than
    /// the echo that came in; the AEC's own ERL agrees with the path within 3 dB.
    @Test func echoIsCancelledByAtLeast20Db() throws {
        let p = try processor { $0.echoCancellation = true }
        let far = Self.far, echo = Self.echo
        let floor = S.noise(count: far.count, rms: 3, seed: 8)
        let out = S.run(p, capture: zip(echo, floor).map { $0 + $1 }, far: far)
        let window = 3 * S.rate..<5 * S.rate
        let erle = S.db(S.energy(echo[window]) / max(1, S.energy(out[window])))
        #expect(erle >= 20, "ERLE \(erle) dB")
        let stats = p.stats
        #expect((stats.echoReturnLossEnhancementDb ?? 0) >= 10, "\(stats)")
        let erl = S.db(S.energy(far[...]) / S.energy(echo[...]))
        #expect(abs((stats.echoReturnLossDb ?? 0) - erl) <= 3, "ERL \(erl) dB, \(stats)")
        #expect(stats.speechProbability == nil)
    }

    /// Double talk: near-end speech of another voice added to the echo after 3 s of
    /// convergence comes out nearly whole (energy and correlation with the clean near end);
    /// a higher suppression level takes more of it.
    @Test(arguments: [(EchoSuppressionLevel.low, -6.0, 0.8), (.moderate, -8.0, 0.7)])
    func nearEndSpeechSurvivesDoubleTalk(level: EchoSuppressionLevel, minimumDb: Double, minimumCorrelation: Double)
        throws
    {
        let p = try processor {
            $0.echoCancellation = true
            $0.echoSuppression = level
        }
        let far = Self.far, echo = Self.echo
        var near = S.speech(seconds: 5, f0: 180...320, peak: 12000, seed: 2).samples
        for i in 0..<3 * S.rate { near[i] = 0 }
        let out = S.run(p, capture: zip(echo, near).map { $0 + $1 }, far: far)
        let window = 3 * S.rate..<(5 * S.rate - Self.aecLags.upperBound)
        let (lag, r) = S.aligned(out, near, range: window, lags: Self.aecLags)
        let kept = S.db(S.energy(out[(window.lowerBound + lag)..<(window.upperBound + lag)]) / S.energy(near[window]))
        #expect(kept >= minimumDb && kept <= 1, "near-end energy \(kept) dB")
        #expect(r >= minimumCorrelation, "correlation \(r) at lag \(lag)")
    }

    /// Speech in white noise at 5 dB SNR: the noise in the pauses drops by at least 6 dB and
    /// the speech keeps its energy within 3 dB.
    @Test func noiseSuppressionLowersTheNoiseInThePauses() throws {
        let p = try processor { $0.noiseSuppression = .moderate }
        let (clean, voiced) = S.speech(seconds: 4, f0: 100...250, peak: 12000, seed: 3)
        let speechRms = (S.energy(clean[...]) / Double(clean.count)).squareRoot()
        let noise = S.noise(count: clean.count, rms: speechRms / pow(10, 5.0 / 20), seed: 4)
        let out = S.run(p, capture: zip(clean, noise).map { $0 + $1 })
        // Whole 10 ms blocks after the first second (the estimator learns the noise), with
        // a block of margin either side for the suppressor's delay (about 7 ms).
        var noiseIn = 0.0, noiseOut = 0.0, speechIn = 0.0, speechOut = 0.0
        for start in stride(from: S.rate, to: clean.count - 3 * S.frame, by: S.frame) {
            let block = start..<(start + S.frame)
            let margin = voiced[(start - S.frame)..<(start + 2 * S.frame)]
            if !margin.contains(true) {
                noiseIn += S.energy(noise[block])
                noiseOut += S.energy(out[block])
            } else if margin.allSatisfy({ $0 }) {
                speechIn += S.energy(clean[block])
                speechOut += S.energy(out[block])
            }
        }
        #expect(noiseIn > 0 && speechIn > 0)
        let drop = S.db(noiseIn / max(1, noiseOut))
        #expect(drop >= 6, "noise drop \(drop) dB")
        let speech = S.db(speechOut / speechIn)
        #expect(abs(speech) <= 3, "speech \(speech) dB")
        let probability = try #require(p.stats.speechProbability)
        #expect(probability >= 0 && probability <= 1)
    }

    /// Speech at -40 dBFS RMS comes out at least 10 dB louder after a few seconds.
    @Test func gainControlRaisesQuietSpeech() throws {
        let p = try processor { $0.gainControl = true }
        var speech = S.speech(seconds: 6, f0: 100...250, peak: 1, seed: 5).samples
        let rms = (S.energy(speech[...]) / Double(speech.count)).squareRoot()
        let scale = 32768 * pow(10, -40.0 / 20) / rms
        for i in speech.indices { speech[i] *= scale }
        let out = S.run(p, capture: speech)
        let window = 4 * S.rate..<6 * S.rate
        let gain = S.db(S.energy(out[window]) / S.energy(speech[window]))
        #expect(gain >= 10, "gain \(gain) dB")
    }

    /// A 50 Hz hum drops by at least 10 dB; a 1 kHz tone passes within 1 dB.
    @Test(arguments: [(50.0, -100.0, -10.0), (1000.0, -1.0, 1.0)])
    func highPassRemovesHum(hz: Double, minimumDb: Double, maximumDb: Double) throws {
        let p = try processor { $0.highPass = true }
        let tone = S.sine(hz, amplitude: 8000, seconds: 1)
        let out = S.run(p, capture: tone)
        let window = S.rate / 2..<S.rate
        let level = S.db(S.energy(out[window]) / S.energy(tone[window]))
        #expect(level >= minimumDb && level <= maximumDb, "\(hz) Hz: \(level) dB")
    }

    /// Stereo capture: each channel is processed (hum on the left removed, a tone on the
    /// right kept).
    @Test func stereoCaptureIsProcessedOnBothChannels() throws {
        let p = try #require(VoiceProcessor(captureChannels: 2))
        var c = VoiceProcessingConfig()
        c.highPass = true
        p.configure(c)
        let hum = S.sine(50, amplitude: 8000, seconds: 1), tone = S.sine(1000, amplitude: 8000, seconds: 1)
        var left: [Int16] = [], right: [Int16] = []
        for start in stride(from: 0, to: hum.count, by: S.frame) {
            var block = [Int16](repeating: 0, count: 2 * S.frame)
            for i in 0..<S.frame {
                block[2 * i] = Int16(hum[start + i].rounded())
                block[2 * i + 1] = Int16(tone[start + i].rounded())
            }
            p.processCapture(&block, delayMs: 0)
            for i in 0..<S.frame {
                left.append(block[2 * i])
                right.append(block[2 * i + 1])
            }
        }
        let window = S.rate / 2..<S.rate
        #expect(S.db(S.energy(left[window]) / S.energy(hum[window])) <= -10)
        #expect(abs(S.db(S.energy(right[window]) / S.energy(tone[window]))) <= 1)
    }

    /// The VAD flags speech, and not silence once its hangover (about 150 ms) has passed.
    @Test func voiceActivityFollowsTheSpeech() throws {
        let p = try processor { $0.highPass = true }
        let (speech, voiced) = S.speech(seconds: 3, f0: 100...250, peak: 12000, seed: 6)
        var voicedFrames = 0, detectedVoiced = 0, silentFrames = 0, detectedSilent = 0
        for start in stride(from: 0, to: speech.count - S.frame, by: S.frame) {
            var block = S.pcm(speech[start..<(start + S.frame)])
            p.processCapture(&block, delayMs: 0)
            let detected = p.stats.voiceDetected
            if voiced[start..<(start + S.frame)].allSatisfy({ $0 }) {
                voicedFrames += 1
                if detected { detectedVoiced += 1 }
            } else if !voiced[max(0, start - 25 * S.frame)..<(start + S.frame)].contains(true) {
                silentFrames += 1
                if detected { detectedSilent += 1 }
            }
        }
        #expect(voicedFrames > 50 && silentFrames > 10)
        #expect(Double(detectedVoiced) >= 0.9 * Double(voicedFrames), "\(detectedVoiced) of \(voicedFrames)")
        #expect(Double(detectedSilent) <= 0.1 * Double(silentFrames), "\(detectedSilent) of \(silentFrames)")
    }
}
