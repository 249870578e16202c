@testable import AgoraishEngine
import AgoraishIO
import AgoraishMedia
import Foundation
import Testing

/// The local voice's path through an engine's audio pipeline (docs/voice.md),
/// frame by frame with no clock and no network: what the sending path makes
/// of pushed audio with every step off, with effects, on a direct track and
/// with a custom track's echo canceller fed by the playout; and where the
/// playout renders a positioned media player.
@Suite struct VoicePathTests {
    static let frame = AudioPipeline.frame

    /// A pipeline whose pushed audio (48 kHz mono) is processed at once (no call),
    /// and what it sends collected by a record tap.
    final class Path: @unchecked Sendable {
        let voice = VoiceControl()
        let pipeline: AudioPipeline
        let sent = Locked<[Int16]>([])

        init(kind: AudioPipeline.SourceKind) throws {
            pipeline = AudioPipeline(protection: PayloadProtection { _ in }, voice: voice) { _ in }
            try pipeline.setSource(enabled: true, sampleRate: 48000, channels: 1,
                                   profile: OpusSettings(bandwidthHz: 48000, channels: 1, bitrate: 64000, application: .voip))
            pipeline.settings.withLock { $0.sourceKind = kind }
            let sent = self.sent
            pipeline.recordTaps.withLock { $0[ObjectIdentifier(self)] = { uid, pcm, _ in
                if uid == 0 { sent.withLock { $0 += pcm } }
            } }
        }

        /// Pushes mono samples and returns what went out for them.
        func push(_ pcm: [Int16]) throws -> [Int16] {
            sent.withLock { $0 = [] }
            _ = try pcm.withUnsafeBufferPointer { try pipeline.push($0.baseAddress, samplesPerChannel: pcm.count) }
            return sent.withLock { $0 }
        }
    }

    /// A voiced, speech-like signal: syllables of a gliding fundamental with
    /// harmonics, pauses between words (seeded).
    static func speech(seconds: Double, f0: Double, seed: UInt64, amplitude: Double = 6000) -> [Int16] {
        var rng = seed
        func random() -> Double {
            rng = rng &* 6364136223846793005 &+ 1442695040888963407
            return Double(rng >> 11) / Double(1 << 53)
        }
        let n = Int(seconds * 48000)
        var out = [Int16](repeating: 0, count: n)
        var phase = 0.0
        var i = 0
        while i < n {
            let syllable = Int((0.12 + 0.15 * random()) * 48000)
            let pause = random() < 0.3 ? Int((0.1 + 0.2 * random()) * 48000) : Int(0.03 * 48000)
            let start = f0 * (0.85 + 0.3 * random()), end = f0 * (0.85 + 0.3 * random())
            for k in 0..<syllable where i + k < n {
                let t = Double(k) / Double(syllable)
                let f = start + (end - start) * t
                phase += 2 * Double.pi * f / 48000
                var v = 0.0
                for h in 1...12 { v += sin(Double(h) * phase) / Double(h) * (h >= 3 && h <= 5 ? 1.6 : 1) }
                out[i + k] = Int16(clamping: Int(amplitude * 0.5 * sin(Double.pi * t) * v))
            }
            i += syllable + pause
        }
        return out
    }

    static func energy(_ x: ArraySlice<Int16>) -> Double { x.reduce(0.0) { $0 + Double($1) * Double($1) } }

    @Test func withEveryStepOffTheVoiceGoesOutBitForBit() throws {
        let path = try Path(kind: .mixable(processing: false))
        let input = Self.speech(seconds: 0.5, f0: 140, seed: 1)
        #expect(try path.push(input) == input)
        // A custom track with processing asked for, under a scenario whose steps are all off, is no different.
        path.voice.processing.withLock { $0.aec = false; $0.ans = false; $0.agc = false; $0.scenario = 3 }
        path.pipeline.settings.withLock { $0.sourceKind = .mixable(processing: true) }
        #expect(try path.push(input) == input)
    }

    @Test func aDirectTrackIsNeverProcessed() throws {
        let path = try Path(kind: .direct)
        path.voice.effects.withLock { $0.manual.pitch = 1.5; $0.manual.equalization[5] = 12 }
        let input = Self.speech(seconds: 0.5, f0: 140, seed: 2)
        #expect(try path.push(input) == input)
        // The same settings change a mixable track's voice.
        let mixable = try Path(kind: .mixable(processing: false))
        mixable.voice.effects.withLock { $0.manual.pitch = 1.5; $0.manual.equalization[5] = 12 }
        let out = try mixable.push(input)
        #expect(out.count == input.count && out != input)
    }

    @Test func presetsReplaceEachOtherAndTheHostsSettings() throws {
        let engineVoice = VoiceControl()
        engineVoice.effects.withLock { $0.manual.pitch = 0.8 }
        let beautifier = try #require(VoicePresets.beautifier(0x0101_0100))
        engineVoice.effects.withLock { $0.preset = (1, 0x0101_0100, beautifier); $0.manual = VoiceEffectSettings() }
        #expect(engineVoice.effectSettings == beautifier)
        #expect(VoicePresets.beautifier(0x0101_0900) == nil)
        #expect(VoicePresets.audioEffect(0) == VoiceEffectSettings() && VoicePresets.conversion(0) == VoiceEffectSettings())
    }

    /// A custom track with processing: the far end plays (a playout feed),
    /// its echo (delayed, through a room) is pushed back with no near-end
    /// voice, and the track's echo canceller removes it.
    @Test func aTracksEchoCancellerRemovesThePlayoutsEcho() throws {
        let path = try Path(kind: .mixable(processing: true))
        path.voice.processing.withLock { $0.ans = false; $0.agc = false }
        let far = Self.speech(seconds: 8, f0: 120, seed: 3)
        let feed = AudioFeed()
        let owner = NSObject()
        path.pipeline.feeds.withLock { $0.attach(owner, send: nil, playout: feed) }
        // A room: 40 ms of delay, the direct sound, then 16 reflections over
        // 60 ms, decaying (seeded): about -10 dB in all.
        var rng: UInt64 = 7
        var taps: [(lag: Int, gain: Double)] = [(0, 0.25)]
        for r in 1...16 {
            rng = rng &* 6364136223846793005 &+ 1442695040888963407
            let lag = r * 180 + Int(rng >> 58)
            taps.append((lag, (r % 2 == 0 ? 0.12 : -0.1) * exp(-Double(lag) / 1400)))
        }
        let delay = 1920
        var played: [Double] = []
        var echoIn = 0.0, echoOut = 0.0
        let frames = far.count / Self.frame
        for f in 0..<frames {
            let chunk = Array(far[(f * Self.frame)..<((f + 1) * Self.frame)])
            feed.write(convertChannels(chunk, from: 1, to: 2))
            let out = convertChannels(path.pipeline.renderTick(now: .now()), from: 2, to: 1)
            played += out.map(Double.init)
            var echo = [Int16](repeating: 0, count: Self.frame)
            for i in 0..<Self.frame {
                let t = played.count - Self.frame + i - delay
                var v = 0.0
                for tap in taps where t - tap.lag >= 0 { v += tap.gain * played[t - tap.lag] }
                echo[i] = Int16(clamping: Int(v.rounded()))
            }
            let sent = try path.push(echo)
            if f >= frames / 2 {
                echoIn += Self.energy(echo[...])
                echoOut += Self.energy(sent[...])
            }
        }
        let erle = 10 * log10(echoIn / max(echoOut, 1))
        #expect(echoIn > 0 && erle >= 20, "echo return loss enhancement \(erle) dB")
        // Echo cancellation and the high-pass filter ran (noise suppression and gain control were turned off).
        let flags = path.voice.report.withLock { $0?.flags ?? -1 }
        #expect(flags == 0x1 | 0x8, "processing flags \(flags)")
    }

    /// A media player placed on the listener's right plays louder in the right ear.
    @Test func aPlayerOnTheRightIsRenderedToTheRight() throws {
        let sofa = try FileIO.readAll(RtcEngine.hrtfPath, limit: 64 << 20)
        let path = try Path(kind: .mixable(processing: false))
        path.voice.renderer.withLock { $0 = BinauralRenderer(sofa: sofa) }
        var spatial = VoiceControl.Spatial()
        // The listener faces +x with its right along +y: a player at (0, 2, 0) is on its right.
        spatial.players[7] = Vector3(0, 2, 0)
        path.voice.spatial.withLock { $0 = spatial }
        let feed = AudioFeed()
        feed.playerId.withLock { $0 = 7 }
        let owner = NSObject()
        path.pipeline.feeds.withLock { $0.attach(owner, send: nil, playout: feed) }
        // 3 kHz: the head shadows the far ear at that frequency.
        let tone: [Int16] = (0..<(48000 / 2)).map { Int16(8000 * sin(2 * Double.pi * 3000 * Double($0) / 48000)) }
        var left = 0.0, right = 0.0
        for f in 0..<(tone.count / Self.frame) {
            feed.write(convertChannels(Array(tone[(f * Self.frame)..<((f + 1) * Self.frame)]), from: 1, to: 2))
            let out = path.pipeline.renderTick(now: .now())
            for i in 0..<Self.frame {
                left += Double(out[2 * i]) * Double(out[2 * i])
                right += Double(out[2 * i + 1]) * Double(out[2 * i + 1])
            }
        }
        #expect(right > 0 && 10 * log10(right / max(left, 1)) >= 6, "right \(right), left \(left)")
        // Beyond the range the player is silent.
        path.voice.spatial.withLock { $0!.range = 1 }
        for f in 0..<10 {
            feed.write(convertChannels(Array(tone[(f * Self.frame)..<((f + 1) * Self.frame)]), from: 1, to: 2))
        }
        var louder = 0
        for _ in 0..<10 { louder += path.pipeline.renderTick(now: .now()).filter { $0 != 0 }.count }
        #expect(louder == 0)
    }
}
