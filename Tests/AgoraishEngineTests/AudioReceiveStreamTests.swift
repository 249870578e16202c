@testable import AgoraishEngine
import AgoraishMedia
import AgoraishWire
import Foundation
import Testing

/// The audio receive step of one remote stream (`RemoteStream.State.receive`):
/// NACK timing, recoveries and the playout floor on a lossy path, packet by
/// packet on a clock handed in (docs/network.md, Audio retransmission).
@Suite struct AudioReceiveStreamTests {
    static let t0 = Instant(nanoseconds: 5_000_000_000)
    static let rtt = Duration.milliseconds(40)

    /// 20 ms Opus packets of a tone.
    static func payloads(_ count: Int) throws -> [[UInt8]] {
        let encoder = try OpusEncoder(settings: OpusSettings(bandwidthHz: 48000, channels: 1, bitrate: 32000, application: .voip))
        let pcm: [Int16] = (0..<960).map { (i: Int) -> Int16 in
            let phase: Double = 2 * Double.pi * 440 * Double(i) / 48000
            return Int16(6000 * sin(phase))
        }
        return try (0..<count).map { _ in try pcm.withUnsafeBufferPointer { try encoder.encode($0.baseAddress!, samplesPerChannel: 960) } }
    }

    static func state() throws -> RemoteStream.State {
        RemoteStream.State(buffer: try #require(RemoteStream.makeBuffer(channels: 1)))
    }

    @Test func aCleanPathAsksNothingAndKeepsTheShortDelay() throws {
        var st = try Self.state()
        for (i, p) in try Self.payloads(20).enumerated() {
            let r = st.receive(sequence: UInt16(100 + i), timestamp: UInt32(i * 960), payload: p,
                               arrival: Self.t0 + .milliseconds(Int64(20 * i)), retransmitted: false, rtt: Self.rtt,
                               lossRecovery: true)
            #expect(r.nack.isEmpty && !r.recovered)
        }
        #expect(st.buffer.delayFloor == .zero && st.lossSeenAt == nil)
    }

    @Test func aLossIsAskedForOncePerRoundTripAndItsRetransmissionRecoversIt() throws {
        var st = try Self.state()
        let p = try Self.payloads(12)
        func at(_ ms: Int) -> Instant { Self.t0 + .milliseconds(Int64(ms)) }
        var asked: [(ms: Int, nack: [UInt16])] = []
        // Packets 0...9 every 20 ms, packet 3 lost.
        for i in 0..<10 where i != 3 {
            let r = st.receive(sequence: UInt16(i), timestamp: UInt32(i * 960), payload: p[i], arrival: at(20 * i),
                               retransmitted: false, rtt: Self.rtt, lossRecovery: true)
            if !r.nack.isEmpty { asked.append((20 * i, r.nack)) }
        }
        // Seen missing when 4 came (80 ms), asked again a round trip later (at 120 and 160 ms).
        #expect(asked.map(\.ms) == [80, 120, 160] && asked.allSatisfy { $0.nack == [3] }, "\(asked)")
        // The floor holds a round trip, 30 ms and nothing for a lone loss.
        #expect(st.buffer.delayFloor == AudioPipeline.playoutFloor(rtt: Self.rtt, packet: .milliseconds(20), burst: 1))
        // The retransmission comes: a recovery, not jitter, and nothing more is asked.
        let r = st.receive(sequence: 3, timestamp: 3 * 960, payload: p[3], arrival: at(190), retransmitted: true,
                           rtt: Self.rtt, lossRecovery: true)
        #expect(r.recovered && r.nack.isEmpty)
        let next = st.receive(sequence: 10, timestamp: 10 * 960, payload: p[10], arrival: at(200), retransmitted: false,
                              rtt: Self.rtt, lossRecovery: true)
        #expect(next.nack.isEmpty && !next.recovered)
        // Ten seconds without loss give the delay back.
        let later = st.receive(sequence: 11, timestamp: 11 * 960, payload: p[11], arrival: at(10_200),
                               retransmitted: false, rtt: Self.rtt, lossRecovery: true)
        #expect(later.nack.isEmpty && st.buffer.delayFloor == .zero)
    }

    @Test func withoutLossRecoveryOrOnALongRoundTripNothingIsAsked() throws {
        for (recovery, rtt) in [(false, Duration.milliseconds(40)), (true, Duration.milliseconds(150))] {
            var st = try Self.state()
            let p = try Self.payloads(6)
            var asked = 0
            for i in 0..<6 where i != 2 {
                let r = st.receive(sequence: UInt16(i), timestamp: UInt32(i * 960), payload: p[i],
                                   arrival: Self.t0 + .milliseconds(Int64(20 * i)), retransmitted: false, rtt: rtt,
                                   lossRecovery: recovery)
                asked += r.nack.count
            }
            #expect(asked == 0 && st.buffer.delayFloor == .zero, "recovery \(recovery), rtt \(rtt)")
        }
    }
}
