import AgoraishMedia
import AgoraishWire
import Foundation
import Testing

/// A 20 ms Opus stream of a 1 kHz tone through a seeded lossy, jittery link
/// into the jitter buffer, pulled every 10 ms on a virtual clock.
struct ToneLink {
    var loss: Double
    var jitterMs: Int64
    var seed: UInt64
    /// FEC and PLC (the default), or silence for what is missing.
    var lossRecovery = true
    /// Lost packets come again this long after they were due (NACK and RTX), and
    /// the buffer keeps that much in hand (`delayFloor`); nil: no retransmission.
    var retransmitAfterMs: Int64? = nil

    struct Outcome {
        var kinds: [AudioJitterBuffer.FrameKind] = []
        var samples: [Int16] = []
        var stats = AudioJitterBuffer.Stats()
    }

    func run(seconds: Int, firstSequence: UInt16 = 65000) throws -> Outcome {
        var rng = SplitMix64(seed: seed)
        var settings = AudioProfile.speechStandard.settings(liveBroadcasting: false)
        settings.expectedLossPercent = 20
        let encoder = try OpusEncoder(settings: settings)
        var buffer = try AudioJitterBuffer(channels: 1)
        buffer.lossRecovery = lossRecovery
        if let r = retransmitAfterMs { buffer.delayFloor = .milliseconds(r + 10) }
        var resent: [(arrival: Int64, seq: UInt16, ts: UInt32, payload: [UInt8])] = []
        var inFlight: [(arrival: Int64, seq: UInt16, ts: UInt32, payload: [UInt8])] = []
        var outcome = Outcome()
        var out = [Int16](repeating: 0, count: AudioJitterBuffer.frameSamples)
        let packets = seconds * 50
        var phase = 0.0
        for tick in 0..<(seconds * 100 + 50) {
            let nowMs = Int64(tick) * 10
            if tick % 2 == 0 && tick / 2 < packets {
                var pcm = [Int16](repeating: 0, count: 960)
                for i in 0..<960 {
                    pcm[i] = Int16(8000 * sin(phase))
                    phase += 2 * Double.pi * 1000 / 48000
                }
                let payload = try pcm.withUnsafeBufferPointer { try encoder.encode($0.baseAddress!, samplesPerChannel: 960) }
                let n = tick / 2
                if Double(rng.next() % 10_000) / 10_000 >= loss {
                    let delay = 20 + (jitterMs > 0 ? Int64(rng.next() % UInt64(2 * jitterMs + 1)) - jitterMs : 0)
                    inFlight.append((nowMs + max(0, delay), firstSequence &+ UInt16(truncatingIfNeeded: n),
                                     UInt32(n * 960), payload))
                } else if let r = retransmitAfterMs {
                    resent.append((nowMs + 20 + r, firstSequence &+ UInt16(truncatingIfNeeded: n), UInt32(n * 960), payload))
                }
            }
            for p in inFlight where p.arrival <= nowMs {
                buffer.insert(sequence: p.seq, timestamp: p.ts, payload: p.payload,
                              arrival: Instant(nanoseconds: p.arrival * 1_000_000))
            }
            inFlight.removeAll { $0.arrival <= nowMs }
            for p in resent where p.arrival <= nowMs {
                buffer.insert(sequence: p.seq, timestamp: p.ts, payload: p.payload,
                              arrival: Instant(nanoseconds: p.arrival * 1_000_000), retransmitted: true)
            }
            resent.removeAll { $0.arrival <= nowMs }
            let kind = out.withUnsafeMutableBufferPointer {
                buffer.pull(into: $0.baseAddress!, now: Instant(nanoseconds: nowMs * 1_000_000))
            }
            outcome.kinds.append(kind)
            outcome.samples += out
        }
        outcome.stats = buffer.stats
        return outcome
    }
}

/// Zero crossings per second / 2 of a stretch of samples: the dominant frequency of a tone.
func toneFrequency(_ s: ArraySlice<Int16>) -> Double {
    var crossings = 0
    var previous = s.first ?? 0
    for v in s.dropFirst() {
        if (previous < 0) != (v < 0) { crossings += 1 }
        previous = v
    }
    return Double(crossings) / 2 / (Double(s.count) / 48000)
}

func rms(_ s: ArraySlice<Int16>) -> Double {
    (s.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, s.count))).squareRoot()
}

@Suite struct AudioJitterBufferTests {
    @Test func aCleanStreamPlaysWithoutGapsAndKeepsTheTone() throws {
        let o = try ToneLink(loss: 0, jitterMs: 0, seed: 1).run(seconds: 3)
        let start = try #require(o.kinds.firstIndex { $0 != .silence })
        let playing = o.kinds[start..<(start + 250)]
        #expect(playing.allSatisfy { $0 == .decoded })
        let middle = o.samples[(start + 50) * 480..<(start + 250) * 480]
        #expect(abs(toneFrequency(middle) - 1000) < 20)
        // 8000 peak: RMS 5657, about -15 dBFS; Opus keeps it within 1 dB.
        #expect(abs(20 * log10(rms(middle) / 5657)) < 1)
        #expect(o.stats.fecRecovered == 0, "nothing to recover on a clean link (only the tail, after the stream ends, is concealed)")
        #expect(start <= 6, "starts playing within the minimum delay plus one packet")
    }

    @Test(arguments: [0.10, 0.30])
    func lossIsRepairedWithFECAndPLCWithoutGaps(_ loss: Double) throws {
        let o = try ToneLink(loss: loss, jitterMs: 40, seed: 7).run(seconds: 8)
        let start = try #require(o.kinds.firstIndex { $0 != .silence })
        let tail = o.kinds[start..<(o.kinds.count - 60)]
        #expect(!tail.contains(.silence), "no gaps once playing")
        #expect(o.stats.fecRecovered > 0)
        #expect(o.stats.fecRecovered + o.stats.concealed > 0)
        let middle = o.samples[(start + 100) * 480..<(start + 700) * 480]
        #expect(abs(toneFrequency(middle) - 1000) < 50)
        #expect(o.stats.targetDelayMs > 20, "jitter raises the target delay")
    }

    @Test func retransmissionsWithRoomToWaitReplaceConcealment() throws {
        // 20 % loss, no jitter; the lost packets come back 25 ms after they were due.
        let without = try ToneLink(loss: 0.2, jitterMs: 0, seed: 31).run(seconds: 6)
        let with = try ToneLink(loss: 0.2, jitterMs: 0, seed: 31, retransmitAfterMs: 25).run(seconds: 6)
        // Without: the gaps are rebuilt from FEC or concealed. With: most are decoded
        // from the packet itself; only the first waits of each gap are concealed.
        #expect(with.stats.decoded > without.stats.decoded + 40, "decoded \(with.stats.decoded) vs \(without.stats.decoded)")
        #expect(with.stats.fecRecovered * 3 < without.stats.fecRecovered + 3,
                "FEC \(with.stats.fecRecovered) vs \(without.stats.fecRecovered)")
        // Retransmissions do not count as jitter: the target stays at the floor.
        #expect(with.stats.targetDelayMs <= 40, "target \(with.stats.targetDelayMs) ms")
        // And the tone is intact.
        let middle = with.samples[(48000 * 2)..<(48000 * 5)]
        #expect(abs(toneFrequency(middle) - 1000) < 20, "\(toneFrequency(middle)) Hz; \(with.stats) vs \(without.stats)")
    }

    /// 20 ms packets of a 1 kHz tone, 100 ms on and 100 ms off, into a buffer
    /// pulled every 10 ms; `arrivalMs(n)` says when packet n comes (nil: never).
    /// Returns the 10 ms frames pulled and the stats.
    func speechLike(packets: Int, floor: Duration = .zero,
                    arrivalMs: (Int) -> Int64?) throws -> (frames: [[Int16]], kinds: [AudioJitterBuffer.FrameKind],
                                                          stats: AudioJitterBuffer.Stats) {
        let encoder = try OpusEncoder(settings: AudioProfile.speechStandard.settings(liveBroadcasting: false))
        var buffer = try AudioJitterBuffer(channels: 1)
        buffer.delayFloor = floor
        var payloads: [[UInt8]] = []
        var phase = 0.0
        for n in 0..<packets {
            let loud = (n / 5) % 2 == 0
            var pcm = [Int16](repeating: 0, count: 960)
            for i in 0..<960 {
                if loud { pcm[i] = Int16(8000 * sin(phase)) }
                phase += 2 * Double.pi * 1000 / 48000
            }
            payloads.append(try pcm.withUnsafeBufferPointer { try encoder.encode($0.baseAddress!, samplesPerChannel: 960) })
        }
        var frames: [[Int16]] = []
        var kinds: [AudioJitterBuffer.FrameKind] = []
        var out = [Int16](repeating: 0, count: AudioJitterBuffer.frameSamples)
        let arrivals = (0..<packets).map { arrivalMs($0) }
        for tick in 0..<(packets * 2 + 100) {
            let nowMs = Int64(tick) * 10
            for n in 0..<packets where arrivals[n].map({ $0 > nowMs - 10 && $0 <= nowMs }) == true {
                buffer.insert(sequence: UInt16(1000 + n), timestamp: UInt32(n * 960), payload: payloads[n],
                              arrival: Instant(nanoseconds: nowMs * 1_000_000), retransmitted: arrivals[n]! != Int64(n) * 20)
            }
            let kind = out.withUnsafeMutableBufferPointer {
                buffer.pull(into: $0.baseAddress!, now: Instant(nanoseconds: nowMs * 1_000_000))
            }
            kinds.append(kind)
            frames.append(out)
        }
        return (frames, kinds, buffer.stats)
    }

    @Test func aFloorAsLongAsTheBurstLetsItsRetransmissionsPlay() throws {
        // Bursts of 4 packets every 20 packets, each lost packet back 5 ms
        // after the packet that follows the burst (the gap is seen, and asked
        // for, only then). A floor for a lone loss (25 ms of round trip + 30)
        // runs dry in the first burst and plays late from then on (the
        // concealment stretched the delay); one for a burst of 4 (+ 3 packets) never runs dry.
        func arrival(_ n: Int) -> Int64? {
            let inBurst = n >= 10 && n % 20 >= 10 && n % 20 < 14
            return inBurst ? Int64(n - n % 20 + 14) * 20 + 5 : Int64(n) * 20
        }
        let lone = try speechLike(packets: 200, floor: .milliseconds(55), arrivalMs: arrival)
        let burst = try speechLike(packets: 200, floor: .milliseconds(55 + 60), arrivalMs: arrival)
        let playing = 0..<(2 * 200 - 20)  // before the end of the stream
        let concealedLone = lone.kinds[playing].filter { $0 == .concealed }.count
        let concealedBurst = burst.kinds[playing].filter { $0 == .concealed }.count
        #expect(concealedBurst == 0, "\(burst.stats)")
        #expect(burst.stats.fecRecovered == 0, "every lost packet played from its retransmission: \(burst.stats)")
        #expect(concealedLone >= 3, "\(lone.stats)")
    }

    @Test func lateDuplicateAndInvalidPacketsAreCountedAndDropped() throws {
        var settings = AudioProfile.speechStandard.settings(liveBroadcasting: false)
        settings.inbandFEC = false
        let encoder = try OpusEncoder(settings: settings)
        let pcm = [Int16](repeating: 0, count: 960)
        let payload = try pcm.withUnsafeBufferPointer { try encoder.encode($0.baseAddress!, samplesPerChannel: 960) }
        var b = try AudioJitterBuffer()
        let t0 = Instant(nanoseconds: 0)
        #expect(b.insert(sequence: 10, timestamp: 0, payload: payload, arrival: t0) == .accepted)
        #expect(b.insert(sequence: 10, timestamp: 0, payload: payload, arrival: t0) == .duplicate)
        #expect(b.insert(sequence: 11, timestamp: 960, payload: [], arrival: t0) == .invalid)
        var out = [Int16](repeating: 0, count: 480)
        _ = out.withUnsafeMutableBufferPointer { b.pull(into: $0.baseAddress!, now: t0 + .milliseconds(30)) }
        #expect(b.insert(sequence: 9, timestamp: 0, payload: payload, arrival: t0 + .milliseconds(30)) == .late)
        #expect(b.stats.late == 1 && b.stats.duplicates == 1)
    }

    @Test func sequenceNumbersWrapAround() throws {
        let o = try ToneLink(loss: 0, jitterMs: 10, seed: 3).run(seconds: 2, firstSequence: 65530)
        let start = try #require(o.kinds.firstIndex { $0 != .silence })
        #expect(!o.kinds[start..<(o.kinds.count - 60)].contains(.silence))
        #expect(o.stats.late == 0)
    }

    @Test func everyProfileEncodesAndDecodes() throws {
        for profile in AudioProfile.allCases {
            let s = profile.settings(liveBroadcasting: true)
            let encoder = try OpusEncoder(settings: s)
            let decoder = try OpusDecoder(channels: s.channels)
            let pcm = [Int16](repeating: 100, count: 960 * Int(s.channels))
            let packet = try pcm.withUnsafeBufferPointer { try encoder.encode($0.baseAddress!, samplesPerChannel: 960) }
            var out = [Int16](repeating: 0, count: 5760 * Int(s.channels))
            #expect(try decoder.decode(packet, into: &out, maxSamplesPerChannel: 5760) == 960)
            #expect(OpusDecoder.samplesPerChannel(in: packet) == 960)
        }
    }

    @Test func withoutLossRecoveryGapsAreSilentAndNothingIsRebuilt() throws {
        let on = try ToneLink(loss: 0.1, jitterMs: 0, seed: 4).run(seconds: 3)
        let off = try ToneLink(loss: 0.1, jitterMs: 0, seed: 4, lossRecovery: false).run(seconds: 3)
        #expect(on.stats.fecRecovered > 0)
        #expect(off.stats.fecRecovered == 0)
        #expect(off.stats.concealed > 0)
        // Every 10 ms frame made without a packet is all zeros when recovery is off.
        let frame = AudioJitterBuffer.frameSamples
        var silentConcealed = 0, concealed = 0
        for (i, k) in off.kinds.enumerated() where k == .concealed {
            concealed += 1
            if off.samples[(i * frame)..<((i + 1) * frame)].allSatisfy({ $0 == 0 }) { silentConcealed += 1 }
        }
        #expect(concealed > 0 && silentConcealed == concealed, "\(silentConcealed) of \(concealed)")
        // With recovery the same gaps carry sound.
        var loudRebuilt = 0
        for (i, k) in on.kinds.enumerated() where k == .concealed || k == .fec {
            if on.samples[(i * frame)..<((i + 1) * frame)].contains(where: { abs(Int($0)) > 1000 }) { loudRebuilt += 1 }
        }
        #expect(loudRebuilt > 0)
    }
}
