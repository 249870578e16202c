@testable import AgoraishEngine
import AgoraishWire
import Testing

/// The least playout delay a lossy path gets (docs/network.md, Audio retransmission).
@Suite struct AudioPlayoutFloorTests {
    @Test func aLoneLossKeepsARoundTripAndThirtyMilliseconds() {
        #expect(AudioPipeline.playoutFloor(rtt: .milliseconds(20), packet: .milliseconds(20), burst: 0) == .milliseconds(50))
        #expect(AudioPipeline.playoutFloor(rtt: .milliseconds(20), packet: .milliseconds(20), burst: 1) == .milliseconds(50))
    }

    @Test func aBurstAddsThePacketsAfterItsFirstUpToTheLongestWaitedFor() {
        let rtt = Duration.milliseconds(10)
        #expect(AudioPipeline.playoutFloor(rtt: rtt, packet: .milliseconds(20), burst: 4) == .milliseconds(10 + 30 + 60))
        // 200 ms at most: ten 20 ms packets, twenty 10 ms ones.
        #expect(AudioPipeline.playoutFloor(rtt: rtt, packet: .milliseconds(20), burst: 10) == .milliseconds(10 + 30 + 180))
        #expect(AudioPipeline.playoutFloor(rtt: rtt, packet: .milliseconds(20), burst: 40) == .milliseconds(10 + 30 + 180))
        #expect(AudioPipeline.playoutFloor(rtt: rtt, packet: .milliseconds(10), burst: 40) == .milliseconds(10 + 30 + 190))
        #expect(AudioPipeline.playoutFloor(rtt: rtt, packet: .milliseconds(60), burst: 40) == .milliseconds(10 + 30 + 120))
    }
}
