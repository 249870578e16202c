import AgoraishMedia
import Glibc
import Testing

/// `VoiceEffectChain` and `VoicePresets`: pitch, formant, equalizer, reverb,
/// stereo stages and the preset tables, each measured on the output signal.
@Suite struct VoiceEffectsTests {
    // MARK: - Signals

    /// A seeded generator of -1...1.
    struct Noise {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(Int64(bitPattern: state) >> 11) / Double(1 << 52)
        }
    }

    /// A voiced signal: the harmonics of `f0` below 8 kHz, amplitude 1/k, or shaped by a
    /// formant-like envelope around `formant` Hz; peak about `amp`.
    static func voiced(f0: Double, seconds: Double, formant: Double? = nil, amp: Double = 6000) -> [Double] {
        let n = Int(seconds * 48000)
        var out = [Double](repeating: 0, count: n)
        var k = 1.0
        while k * f0 < 8000 {
            let f = k * f0
            let a = formant.map { exp(-pow(log2(f / $0), 2) * 2) } ?? 1 / k
            let w = 2 * Double.pi * f / 48000
            out.withUnsafeMutableBufferPointer { o in for i in 0..<n { o[i] += a * sin(w * Double(i)) } }
            k += 1
        }
        let peak = out.map(abs).max()!
        return out.map { $0 * amp / peak }
    }

    /// A speech-like signal: F0 gliding 110...220 Hz, harmonics through three formants,
    /// 4 Hz syllables, a pause every 0.6 s, a little seeded noise.
    static func speechLike(seconds: Double) -> [Double] {
        var noise = Noise(state: 7)
        var phase = 0.0
        return (0..<Int(seconds * 48000)).map { i in
            let t = Double(i) / 48000
            let f0 = 165 + 55 * sin(2 * Double.pi * 0.7 * t)
            phase += 2 * Double.pi * f0 / 48000
            var v = 0.0
            var k = 1.0
            while k * f0 < 10000 {
                let f = k * f0
                let env = exp(-pow(log2(f / 500), 2) * 3) + 0.6 * exp(-pow(log2(f / 1500), 2) * 4)
                    + 0.3 * exp(-pow(log2(f / 2800), 2) * 4) + 0.02
                v += env * sin(k * phase) / k.squareRoot()
                k += 1
            }
            let syllable = max(0, sin(2 * Double.pi * 4 * t))
            let voiced = t.truncatingRemainder(dividingBy: 0.6) < 0.45 ? 1.0 : 0.0
            return (v * 2500 * syllable + noise.next() * 80) * voiced
        }
    }

    static func sine(_ hz: Double, seconds: Double, amp: Double = 3000) -> [Double] {
        (0..<Int(seconds * 48000)).map { amp * sin(2 * Double.pi * hz * Double($0) / 48000) }
    }

    /// The same signal on every channel, interleaved 16-bit.
    static func pcm(_ x: [Double], channels: Int) -> [Int16] {
        var out = [Int16](repeating: 0, count: x.count * channels)
        for i in 0..<x.count {
            let v = Int16(clamping: Int(x[i].rounded()))
            for c in 0..<channels { out[i * channels + c] = v }
        }
        return out
    }

    /// Runs whole 10 ms blocks through `chain`, checking each comes back whole.
    static func run(_ chain: VoiceEffectChain, _ input: [Int16], each: ((Int) -> Void)? = nil) -> [Int16] {
        let block = 480 * chain.channels
        var out: [Int16] = []
        out.reserveCapacity(input.count)
        var b = 0
        while (b + 1) * block <= input.count {
            each?(b)
            var frame = Array(input[(b * block)..<((b + 1) * block)])
            chain.process(&frame)
            #expect(frame.count == block)
            out += frame
            b += 1
        }
        return out
    }

    static func channel(_ x: [Int16], _ c: Int, of channels: Int) -> [Double] {
        stride(from: c, to: x.count, by: channels).map { Double(x[$0]) }
    }

    static func rms(_ x: ArraySlice<Double>) -> Double {
        (x.reduce(0) { $0 + $1 * $1 } / Double(max(1, x.count))).squareRoot()
    }

    static func db(_ a: Double, _ b: Double) -> Double { 20 * log10(a / b) }

    // MARK: - Measurements

    /// The F0 by normalized autocorrelation (lags for 60...1000 Hz): the first peak
    /// within 5 % of the best, refined by a parabola.
    static func f0(_ x: ArraySlice<Double>) -> Double {
        let a = Array(x)
        let minLag = 48, maxLag = 800, w = a.count - maxLag - 1
        var r = [Double](repeating: 0, count: maxLag + 2)
        a.withUnsafeBufferPointer { p in
            var e0 = 0.0
            for j in 0..<w { e0 += p[j] * p[j] }
            for lag in (minLag - 1)...(maxLag + 1) {
                var s = 0.0, e1 = 0.0
                for j in 0..<w {
                    s += p[j] * p[j + lag]
                    e1 += p[j + lag] * p[j + lag]
                }
                r[lag] = s / max(1e-9, (e0 * e1).squareRoot())
            }
        }
        let best = r[minLag...maxLag].max()!
        var lag = minLag
        while lag < maxLag, !(r[lag] >= 0.95 * best && r[lag] >= r[lag - 1] && r[lag] >= r[lag + 1]) { lag += 1 }
        let den = r[lag - 1] - 2 * r[lag] + r[lag + 1]
        let frac = den < 0 ? 0.5 * (r[lag - 1] - r[lag + 1]) / den : 0
        return 48000 / (Double(lag) + frac)
    }

    /// Where the spectrum's power sits: the RMS frequency (Hz) from the first
    /// difference, which scales with the spectral envelope.
    static func brightness(_ x: ArraySlice<Double>) -> Double {
        var e = 0.0, d = 0.0, previous = x.first!
        for v in x.dropFirst() {
            e += v * v
            d += (v - previous) * (v - previous)
            previous = v
        }
        return 48000 / Double.pi * asin(min(1, 0.5 * (d / e).squareRoot()))
    }

    /// How far `output` (delayed by `latency` frames) is from `input`:
    /// 10·log10(input energy / energy of the difference), all channels.
    static func changeDb(_ input: [Int16], _ output: [Int16], latency: Int, channels: Int) -> Double {
        var e = 0.0, d = 0.0
        for i in 0..<(input.count - latency * channels) {
            let a = Double(input[i]), b = Double(output[i + latency * channels])
            e += a * a
            d += (b - a) * (b - a)
        }
        return 10 * log10(e / max(d, 1e-9))
    }

    /// Seconds after `end` until the 10 ms RMS falls 30 dB below `level`.
    static func decay30(_ y: [Double], after end: Int, level: Double) -> Double {
        var i = end
        while i + 480 <= y.count, rms(y[i..<(i + 480)]) >= level * pow(10, -1.5) { i += 480 }
        return Double(i - end) / 48000
    }

    // MARK: - Neutral

    @Test func defaultSettingsAreNeutral() {
        #expect(VoiceEffectSettings().isNeutral)
        #expect(VoicePresets.beautifier(0) == VoiceEffectSettings())
        #expect(VoicePresets.audioEffect(0) == VoiceEffectSettings())
        #expect(VoicePresets.conversion(0) == VoiceEffectSettings())
        var s = VoiceEffectSettings()
        s.preserveFormant = true  // nothing to preserve at pitch 1
        #expect(s.isNeutral)
        let changes: [(inout VoiceEffectSettings) -> Void] = [
            { $0.pitch = 1.1 }, { $0.formantShift = 0.1 }, { $0.equalization[3] = -1 }, { $0.reverb = VoiceReverb() },
            { $0.chorus = VoiceChorus() }, { $0.highPassHz = 80 }, { $0.lowPassHz = 8000 }, { $0.distortion = VoiceDistortion() },
            { $0.flanger = VoiceFlanger() }, { $0.tremolo = VoiceTremolo() }, { $0.echo = VoiceEcho() },
            { $0.stereoWidth = 0.5 }, { $0.orbitSeconds = 10 }, { $0.pitchCorrection = VoicePitchCorrection() },
        ]
        for change in changes {
            var t = VoiceEffectSettings()
            change(&t)
            #expect(!t.isNeutral)
        }
    }

    // MARK: - Pitch and formant

    @Test(arguments: [0.5, 1.5, 2.0])
    func pitchScalesTheF0(_ pitch: Double) {
        let chain = VoiceEffectChain(channels: 1)
        var s = VoiceEffectSettings()
        s.pitch = pitch
        chain.apply(s)
        let out = Self.channel(Self.run(chain, Self.pcm(Self.voiced(f0: 200, seconds: 0.8), channels: 1)), 0, of: 1)
        let start = chain.latency + 19200
        let f = Self.f0(out[start..<(start + 3600)])
        #expect(abs(f / (200 * pitch) - 1) < 0.03, "F0 \(f) Hz for pitch \(pitch)")
    }

    @Test func formantShiftMovesTheEnvelopeAndKeepsTheF0() {
        let input = Self.pcm(Self.voiced(f0: 150, seconds: 0.6, formant: 1000), channels: 1)
        let reference = Self.brightness(Self.channel(input, 0, of: 1)[19200..<24000])
        // (pitch, preserveFormant, formantShift) -> expected envelope factor.
        let cases: [(Double, Bool, Double, Double)] = [
            (1, false, 0.5, 1.414), (1, false, -0.5, 0.707), (1.5, false, 0, 1.5), (1.5, true, 0, 1), (0.7, true, 0.5, 1.414),
        ]
        for (pitch, keep, shift, factor) in cases {
            let chain = VoiceEffectChain(channels: 1)
            var s = VoiceEffectSettings()
            s.pitch = pitch
            s.preserveFormant = keep
            s.formantShift = shift
            chain.apply(s)
            let out = Self.channel(Self.run(chain, input), 0, of: 1)
            let start = chain.latency + 19200
            let ratio = Self.brightness(out[start..<(start + 4800)]) / reference
            #expect(abs(ratio / factor - 1) < 0.1, "envelope ×\(ratio) for \(pitch) \(keep) \(shift)")
            let f = Self.f0(out[start..<(start + 3600)])
            #expect(abs(f / (150 * pitch) - 1) < 0.03, "F0 \(f) Hz")
        }
    }

    @Test func pitchCorrectionPullsToTheScale() throws {
        // 180 Hz: the nearest notes are F3 174.6 Hz (C major) and F#3 185.0 Hz (D major).
        let input = Self.pcm(Self.voiced(f0: 180, seconds: 0.8), channels: 1)
        for (tonic, expected) in [(Int32(4), 174.61), (6, 185.0)] {
            let chain = VoiceEffectChain(channels: 1)
            chain.apply(try #require(VoicePresets.audioEffect(0x0204_0100, param1: 1, param2: tonic)))
            let out = Self.channel(Self.run(chain, input), 0, of: 1)
            let start = chain.latency + 24000
            let f = Self.f0(out[start..<(start + 3600)])
            #expect(abs(f / expected - 1) < 0.01, "F0 \(f) Hz, tonic \(tonic)")
        }
    }

    // MARK: - Equalizer

    @Test(arguments: 0..<10)
    func equalizerBandHitsItsGainAtTheCentre(_ band: Int) {
        let centre = VoiceEffectChain.bandHz[band]
        let far = VoiceEffectChain.bandHz[band < 5 ? band + 4 : band - 4]  // four octaves away
        for gain in [12.0, -12.0] {
            var s = VoiceEffectSettings()
            s.equalization[band] = gain
            for (hz, expected, tolerance) in [(centre, gain, 1.5), (far, 0, 0.5)] {
                let chain = VoiceEffectChain(channels: 1)
                chain.apply(s)
                let input = Self.pcm(Self.sine(hz, seconds: 0.3), channels: 1)
                let out = Self.channel(Self.run(chain, input), 0, of: 1)
                let level = Self.db(Self.rms(out[7200...]), Self.rms(Self.channel(input, 0, of: 1)[7200...]))
                #expect(abs(level - expected) <= tolerance, "band \(centre) Hz at \(gain) dB: \(level) dB at \(hz) Hz")
            }
        }
    }

    // MARK: - Reverb

    @Test func reverbLengthensTheDecayWithRoomAndStrength() {
        var noise = Noise(state: 3)
        var burst = [Double](repeating: 0, count: 72000)
        for i in 0..<4800 { burst[i] = noise.next() * 8000 }
        for channels in [1, 2] {
            let input = Self.pcm(burst, channels: channels)
            let level = Self.rms(burst[0..<4800])
            var decays: [Double] = []
            for (room, strength) in [(20.0, 20.0), (80.0, 80.0)] {
                let chain = VoiceEffectChain(channels: channels)
                var s = VoiceEffectSettings()
                s.reverb = VoiceReverb(dryLevelDb: 0, wetLevelDb: 0, roomSize: room, wetDelayMs: 0, strength: strength)
                chain.apply(s)
                let out = Self.run(chain, input)
                for c in 0..<channels {
                    decays.append(Self.decay30(Self.channel(out, c, of: channels), after: 4800, level: level))
                }
            }
            #expect(Self.decay30(burst, after: 4800, level: level) == 0)
            #expect(decays[0] >= 0.04, "small room: \(decays)")
            #expect(decays[channels] >= 3 * decays[0], "large room: \(decays)")
        }
    }

    @Test func dryAndWetLevelsScaleTheirParts() {
        var noise = Noise(state: 5)
        let burst = (0..<24000).map { $0 < 4800 ? noise.next() * 8000 : 0 }
        let input = Self.pcm(burst, channels: 1)
        func run(dry: Double, wet: Double) -> [Double] {
            let chain = VoiceEffectChain(channels: 1)
            var s = VoiceEffectSettings()
            s.reverb = VoiceReverb(dryLevelDb: dry, wetLevelDb: wet, roomSize: 60, wetDelayMs: 0, strength: 60)
            chain.apply(s)
            return Self.channel(Self.run(chain, input), 0, of: 1)
        }
        let base = run(dry: 0, wet: 0), lowWet = run(dry: 0, wet: -10), lowDry = run(dry: -10, wet: 0)
        let tail = 4800 + 2400..<4800 + 7200
        #expect(abs(Self.db(Self.rms(lowWet[tail]), Self.rms(base[tail])) + 10) < 0.5)
        #expect(Self.db(Self.rms(lowDry[0..<4800]), Self.rms(base[0..<4800])) < -6)
    }

    // MARK: - Stereo stages

    @Test func widthKeepsTheMonoSumAndOrbitMovesTheVoice() {
        let input = Self.pcm(Self.speechLike(seconds: 1), channels: 2)
        let wide = VoiceEffectChain(channels: 2)
        var s = VoiceEffectSettings()
        s.stereoWidth = 1
        wide.apply(s)
        let out = Self.run(wide, input)
        var sumError = 0, side = 0.0
        for i in stride(from: 0, to: out.count, by: 2) {
            sumError = max(sumError, abs(Int(out[i]) + Int(out[i + 1]) - 2 * Int(input[i])))
            side += Double(Int(out[i]) - Int(out[i + 1])) * Double(Int(out[i]) - Int(out[i + 1]))
        }
        #expect(sumError <= 2)
        #expect(side > 0)

        let orbit = VoiceEffectChain(channels: 2)
        s = VoiceEffectSettings()
        s.orbitSeconds = 1
        orbit.apply(s)
        let moved = Self.run(orbit, input)
        let left = Self.channel(moved, 0, of: 2), right = Self.channel(moved, 1, of: 2)
        let quarter = 6000..<18000, threeQuarters = 30000..<42000  // around 90° (right), then 270° (left)
        let dry = Self.channel(input, 0, of: 2)
        #expect(Self.db(Self.rms(right[quarter]), Self.rms(left[quarter])) > 6)
        #expect(Self.db(Self.rms(left[threeQuarters]), Self.rms(right[threeQuarters])) > 6)
        #expect(abs(Self.db(Self.rms(left[...]) + Self.rms(right[...]), 2 * Self.rms(dry[...]))) < 3)
    }

    // MARK: - Blocks and latency

    @Test func outputIsAlwaysOneBlockWhateverTheSettings() {
        let all = VoicePresets.beautifierPresets.compactMap { VoicePresets.beautifier($0) }
            + VoicePresets.audioEffectPresets.compactMap { VoicePresets.audioEffect($0) }
            + VoicePresets.conversionPresets.compactMap { VoicePresets.conversion($0) }
        for channels in [1, 2] {
            let chain = VoiceEffectChain(channels: channels)
            let input = Self.pcm(Self.speechLike(seconds: 0.2), channels: channels)
            for (k, s) in all.enumerated() where k % 3 == channels - 1 {
                chain.apply(s)
                #expect(chain.settings == s)
                _ = Self.run(chain, Array(input.prefix(480 * channels * 2)))
            }
            chain.reset()
            _ = Self.run(chain, input)
        }
    }

    @Test func pitchChangesUpwardKeepTheLatency() {
        let chain = VoiceEffectChain(channels: 1)
        var s = VoiceEffectSettings()
        s.pitch = 0.8
        chain.apply(s)
        let latency = chain.latency
        #expect(latency > 0 && latency < 4800)
        _ = Self.run(chain, Self.pcm(Self.speechLike(seconds: 1), channels: 1)) { b in
            if b % 20 == 0 {
                s.pitch = [0.8, 1.3, 2.0, 1.0, 0.9][(b / 20) % 5]
                s.formantShift = 0.1
                chain.apply(s)
            }
        }
        #expect(chain.latency == latency)
        chain.apply(VoiceEffectSettings())
        #expect(chain.latency == 0)
    }

    // MARK: - Presets

    /// Every number gives settings that audibly change a speech-like signal (the
    /// change carries at least 3 % of its energy), against OFF, which leaves it alone.
    static func expectChanges(_ presets: [(String, VoiceEffectSettings?)], channels: Int) {
        let input = pcm(speechLike(seconds: 0.6), channels: channels)
        for (name, settings) in presets {
            guard let settings else {
                Issue.record("\(name) has no settings")
                continue
            }
            #expect(!settings.isNeutral, "\(name)")
            let chain = VoiceEffectChain(channels: channels)
            chain.apply(settings)
            let change = changeDb(input, run(chain, input), latency: chain.latency, channels: channels)
            #expect(change < 15, "\(name): output within \(change) dB of the input")
        }
    }

    @Test func everyBeautifierChangesTheVoice() {
        var presets = VoicePresets.beautifierPresets.map { ("\($0)", VoicePresets.beautifier($0)) }
        for gender in Int32(1)...2 {
            for room in Int32(1)...3 {
                presets.append(("singing \(gender) \(room)", VoicePresets.beautifier(0x0102_0100, param1: gender, param2: room)))
            }
        }
        Self.expectChanges(presets, channels: 2)
    }

    /// Room acoustics and styles on a stereo chain (their stereo stages), the
    /// stereo kinds on a mono chain too (their reverb still changes the voice).
    @Test func everyRoomAndStyleEffectChangesTheVoice() {
        var presets = VoicePresets.audioEffectPresets.filter { $0 >> 16 != 0x0202 && $0 != 0x0204_0100 }
            .map { ("\($0)", VoicePresets.audioEffect($0)) }
        presets.append(("3D still", VoicePresets.audioEffect(0x0201_0800, param1: 0, param2: 0)))
        Self.expectChanges(presets, channels: 2)
        Self.expectChanges([0x0201_0500, 0x0201_0800, 0x0201_0900, 0x0201_0D00].map { ("\($0) mono", VoicePresets.audioEffect($0)) },
                           channels: 1)
    }

    @Test func everyVoiceChangerEffectChangesTheVoice() {
        var presets = VoicePresets.audioEffectPresets.filter { $0 >> 16 == 0x0202 || $0 == 0x0204_0100 }
            .map { ("\($0)", VoicePresets.audioEffect($0)) }
        presets.append(("minor A", VoicePresets.audioEffect(0x0204_0100, param1: 2, param2: 1)))
        Self.expectChanges(presets, channels: 1)
    }

    @Test func everyConversionChangesTheVoice() {
        Self.expectChanges(VoicePresets.conversionPresets.map { ("\($0)", VoicePresets.conversion($0)) }, channels: 1)
    }

    @Test func presetNumbersAreAgoras() {
        let beautifiers: [Int32] = [
            0x0101_0100, 0x0101_0200, 0x0101_0300,  // chat: magnetic, fresh, vitality
            0x0102_0100,  // singing
            0x0103_0100, 0x0103_0200, 0x0103_0300, 0x0103_0400,  // timbre: vigorous, deep, mellow, falsetto
            0x0103_0500, 0x0103_0600, 0x0103_0700, 0x0103_0800,  // full, clear, resounding, ringing
            0x0104_0100,  // ultra high quality
        ]
        let effects: [Int32] = [
            0x0201_0100, 0x0201_0200, 0x0201_0300, 0x0201_0400,  // KTV, vocal concert, studio, phonograph
            0x0201_0500, 0x0201_0600, 0x0201_0700, 0x0201_0800,  // virtual stereo, spacial, ethereal, 3D voice
            0x0201_0900, 0x0201_0D00,  // virtual surround, chorus
            0x0202_0100, 0x0202_0200, 0x0202_0300, 0x0202_0400,  // uncle, old man, boy, sister
            0x0202_0500, 0x0202_0600, 0x0202_0700,  // girl, pig king, hulk
            0x0203_0100, 0x0203_0200,  // R&B, popular
            0x0204_0100,  // pitch correction
        ]
        let conversions: [Int32] = [
            0x0301_0100, 0x0301_0200, 0x0301_0300, 0x0301_0400,  // neutral, sweet, solid, bass
            0x0302_0100, 0x0302_0200, 0x0302_0300, 0x0302_0400,  // cartoon, childlike, phone operator, monster
            0x0302_0500, 0x0302_0600, 0x0302_0700, 0x0302_0800,  // transformers, groot, darth vader, iron lady
            0x0302_0900, 0x0302_0A00, 0x0302_0B00,  // shin-chan, girlish man, chipmunk
        ]
        #expect(VoicePresets.beautifierPresets == beautifiers)
        #expect(VoicePresets.audioEffectPresets == effects)
        #expect(VoicePresets.conversionPresets == conversions)
        for unknown: Int32 in [1, 0x0101_0400, 0x0201_0A00, 0x0202_0800, 0x0301_0500, 0x0302_0C00, -1] {
            #expect(VoicePresets.beautifier(unknown) == nil)
            #expect(VoicePresets.audioEffect(unknown) == nil)
            #expect(VoicePresets.conversion(unknown) == nil)
        }
        #expect(VoicePresets.name(0x0302_0B00) == "VOICE_CHANGER_CHIPMUNK")
    }

    @Test func presetParametersAreChecked() {
        let singing: Int32 = 0x0102_0100, threeD: Int32 = 0x0201_0800, correction: Int32 = 0x0204_0100
        #expect(VoicePresets.beautifier(singing) == VoicePresets.beautifier(singing, param1: 1, param2: 1))
        #expect(VoicePresets.beautifier(singing, param1: 2, param2: 3) != VoicePresets.beautifier(singing, param1: 1, param2: 3))
        #expect(VoicePresets.beautifier(singing, param1: 3, param2: 1) == nil)
        #expect(VoicePresets.beautifier(singing, param1: 1, param2: 4) == nil)
        #expect(VoicePresets.beautifier(0x0101_0100, param1: 1, param2: 0) == nil)
        #expect(VoicePresets.beautifier(0x0101_0100, param1: 0, param2: 0) == VoicePresets.beautifier(0x0101_0100))

        #expect(VoicePresets.audioEffect(threeD)?.orbitSeconds == 10)
        #expect(VoicePresets.audioEffect(threeD, param1: 0, param2: 0)?.orbitSeconds == 0)
        #expect(VoicePresets.audioEffect(threeD, param1: 60, param2: 0)?.orbitSeconds == 60)
        #expect(VoicePresets.audioEffect(threeD, param1: 61, param2: 0) == nil)
        #expect(VoicePresets.audioEffect(threeD, param1: 10, param2: 1) == nil)
        #expect(VoicePresets.audioEffect(correction)?.pitchCorrection == VoicePitchCorrection(mode: .major, tonic: 4))
        #expect(VoicePresets.audioEffect(correction, param1: 3, param2: 12)?.pitchCorrection == VoicePitchCorrection(mode: .japanese, tonic: 12))
        #expect(VoicePresets.audioEffect(correction, param1: 0, param2: 4) == nil)
        #expect(VoicePresets.audioEffect(correction, param1: 1, param2: 13) == nil)
        #expect(VoicePresets.audioEffect(0x0201_0100, param1: 5, param2: 0) == nil)

        #expect(VoicePresets.headphoneEqualization(0) == [Double](repeating: 0, count: 10))
        #expect(VoicePresets.headphoneEqualization(0x0400_0001)?.count == 10)
        #expect(VoicePresets.headphoneEqualization(0x0400_0002)?.count == 10)
        #expect(VoicePresets.headphoneEqualization(0x0400_0001) != VoicePresets.headphoneEqualization(0x0400_0002))
        #expect(VoicePresets.headphoneEqualization(0x0400_0003) == nil)
    }
}
