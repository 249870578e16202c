import AgoraishMedia
import AgoraishWire
import Glibc
import Testing

/// A 10 ms frame at 48 kHz of a sine at `hz`, `channels` interleaved, continuing from `start` samples.
func sine48k(_ hz: Double, start: Int, channels: Int = 1, amplitude: Double = 8000) -> [Int16] {
    var out: [Int16] = []
    for i in 0..<480 {
        let v = Int16(amplitude * sin(2 * Double.pi * hz * Double(start + i) / 48000))
        for _ in 0..<channels { out.append(v) }
    }
    return out
}

/// Energy of `hz` in mono PCM at `rate` (Goertzel), normalised by length.
func goertzel(_ pcm: [Int16], hz: Double, rate: Double) -> Double {
    let k = 2 * cos(2 * Double.pi * hz / rate)
    var s1 = 0.0, s2 = 0.0
    for x in pcm {
        let s = Double(x) + k * s1 - s2
        s2 = s1
        s1 = s
    }
    return (s1 * s1 + s2 * s2 - k * s1 * s2) / Double(pcm.count * pcm.count)
}

@Suite struct AudioFrameTapTests {
    @Test(arguments: [(8000, 1, 80), (16000, 2, 160), (32000, 1, 441), (44100, 2, 441), (48000, 1, 1024)])
    func readOnlyDeliversTheAskedFormatAndKeepsTheTone(rate: Int, channels: Int, perCall: Int) {
        let tap = AudioFrameTap(parameters: .init(sampleRate: rate, channels: channels, mode: .readOnly,
                                                  samplesPerCall: perCall), engineChannels: 1)
        var delivered: [Int16] = []
        var calls = 0
        for f in 0..<100 {
            var frame = sine48k(1000, start: f * 480)
            let original = frame
            tap.process(&frame) { buffer in
                #expect(buffer.count == perCall * channels)
                calls += 1
                for i in stride(from: 0, to: buffer.count, by: channels) { delivered.append(buffer[i]) }
                buffer[0] = 12345  // ignored in read-only mode
                return true
            }
            #expect(frame == original)
        }
        // One second of audio arrives in whole callbacks.
        #expect(abs(calls * perCall - rate) <= perCall + rate / 50)
        let tail = Array(delivered.suffix(rate / 2))
        #expect(goertzel(tail, hz: 1000, rate: Double(rate)) > 100 * goertzel(tail, hz: 1700, rate: Double(rate)))
    }

    @Test func readWriteReturnsTheObserversAudioOnePeriodLater() {
        let tap = AudioFrameTap(parameters: .init(sampleRate: 48000, channels: 1, mode: .readWrite, samplesPerCall: 960),
                                engineChannels: 1)
        var outputs: [[Int16]] = []
        for f in 0..<6 {
            var frame = [Int16](repeating: Int16(100 * (f + 1)), count: 480)
            tap.process(&frame) { buffer in
                for i in 0..<buffer.count { buffer[i] = buffer[i] / 2 }
                return true
            }
            outputs.append(frame)
        }
        // The first period (20 ms) is silence; then the halved input follows.
        #expect(outputs[0].allSatisfy { $0 == 0 } && outputs[1].allSatisfy { $0 == 0 })
        #expect(outputs[2].allSatisfy { $0 == 50 } && outputs[3].allSatisfy { $0 == 100 })
        #expect(outputs[4].allSatisfy { $0 == 150 } && outputs[5].allSatisfy { $0 == 200 })
        #expect(tap.underruns == 0)
    }

    @Test func writeOnlyHandsSilenceAndDiscardedFramesBecomeSilence() {
        let tap = AudioFrameTap(parameters: .init(sampleRate: 16000, channels: 2, mode: .writeOnly, samplesPerCall: 0),
                                engineChannels: 1)
        var sawOnlySilence = true
        var keep = true
        var levels: [Int] = []
        for f in 0..<20 {
            var frame = sine48k(440, start: f * 480)
            tap.process(&frame) { buffer in
                sawOnlySilence = sawOnlySilence && buffer.allSatisfy { $0 == 0 }
                for i in 0..<buffer.count { buffer[i] = 3000 }
                return keep
            }
            levels.append(PCM.peak(frame))
            if f == 10 { keep = false }
        }
        #expect(sawOnlySilence)
        #expect(levels[5] > 2500)            // what the observer wrote (resampled back to 48 kHz)
        #expect(levels[15] == 0)             // discarded: silence
    }

    @Test func gainClipsAndVolumeIsAgorasScale() {
        var pcm: [Int16] = [1000, -1000, 20000, -20000]
        PCM.applyGain(&pcm, percent: 400)
        #expect(pcm == [4000, -4000, Int16.max, Int16.min])
        PCM.applyGain(&pcm, percent: 0)
        #expect(pcm.allSatisfy { $0 == 0 })
        #expect(PCM.volume([Int16](repeating: 0, count: 480)) == 0)
        #expect(PCM.volume([Int16](repeating: 32767, count: 480)) == 255)
        #expect(PCM.volume(sine48k(1000, start: 0, amplitude: 16000)) > PCM.volume(sine48k(1000, start: 0, amplitude: 1600)))
    }

    @Test func networkSimulationIsSeededAndReadsItsJSON() throws {
        let settings = try #require(NetworkSimulation.Settings(.object(["loss_percent": .integer(30), "jitter_ms": .integer(40),
                                                                        "seed": .integer(7)])))
        var a = NetworkSimulation(settings: settings), b = NetworkSimulation(settings: settings)
        var lost = 0
        for _ in 0..<10_000 {
            let x = a.admit()
            #expect(x == b.admit())
            if let x { #expect(x >= .zero && x <= .milliseconds(40)) } else { lost += 1 }
        }
        #expect((2700...3300).contains(lost))
        #expect(NetworkSimulation.Settings(.object(["loss_percent": .integer(101)])) == nil)
        #expect(NetworkSimulation.Settings(.object(["bogus": .integer(1)])) == nil)
        #expect(NetworkSimulation.Settings(.string("x")) == nil)
    }
}
