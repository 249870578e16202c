@testable import AgoraishEngine
import AgoraishWire
import Testing

/// The sender's bandwidth adaptation plan (docs/network.md, Adaptation), on
/// a clock handed in.
@Suite struct VideoAdaptationTests {
    static func config(preference: Int = 0) -> VideoEncoderConfiguration {
        var c = VideoEncoderConfiguration()
        c.width = 640
        c.height = 360
        c.frameRate = 15
        c.bitrate = 400
        c.degradationPreference = preference
        return c
    }

    /// The plan for a steady target of `kbps`, after `seconds` of it (the size steps once a second).
    static func settle(kbps: Int, preference: Int = 0, seconds: Int = 5) -> VideoPipeline.Plan {
        var a = VideoPipeline.Adaptation()
        var plan: VideoPipeline.Plan? = nil
        for ms in stride(from: 0, through: seconds * 1000, by: 100) {
            plan = VideoPipeline.adaptationPlan(configured: 400, config(preference: preference), VideoPipeline.Settings(),
                                                lowKbps: 0, &a, targetBitrate: kbps * 1000,
                                                now: Instant(nanoseconds: Int64(ms) * 1_000_000))
        }
        return plan!
    }

    @Test func withEnoughRateNothingGives() {
        let p = Self.settle(kbps: 400 + VideoPipeline.audioReserveKbps)
        #expect(p.frameRate == 15 && p.scale == 1 && p.bitrate == 400)
    }

    @Test func maintainQualityFirstLowersTheFrameRate() {
        // 270 kbps for video: 0.9 of three quarters of 400.
        let p = Self.settle(kbps: 270 + VideoPipeline.audioReserveKbps)
        #expect(p.frameRate == 14 && p.scale == 1, "\(p)")
    }

    @Test func onANarrowLinkMaintainQualityKeeps12FpsAndShrinksThePicture() {
        // What a 250 kbps link leaves for video: about 180 kbps.
        let p = Self.settle(kbps: 230)
        #expect(p.frameRate == VideoPipeline.qualityFloorFps, "\(p)")
        #expect(p.scale == 0.75, "\(p)")
        #expect(p.bitrate == 182)
        // Narrower still: smaller again, at the same frame rate.
        let q = Self.settle(kbps: 120)
        #expect(q.frameRate == VideoPipeline.qualityFloorFps && q.scale == 0.5, "\(q)")
    }

    @Test func theFloorIsTheConfiguredRateWhenThatIsLower() {
        var a = VideoPipeline.Adaptation()
        var c = Self.config()
        c.frameRate = 10
        let p = VideoPipeline.adaptationPlan(configured: 400, c, VideoPipeline.Settings(), lowKbps: 0, &a,
                                             targetBitrate: 200_000, now: Instant(nanoseconds: 0))
        #expect(p.frameRate == 10 && p.scale < 1, "\(p)")
    }

    @Test func maintainResolutionOnlyLowersTheFrameRate() {
        let p = Self.settle(kbps: 120, preference: 3)
        #expect(p.frameRate == 5 && p.scale == 1, "\(p)")
    }

    @Test func maintainFramerateOnlyShrinksThePicture() {
        let p = Self.settle(kbps: 230, preference: 1)
        #expect(p.frameRate == 15 && p.scale == 0.75, "\(p)")
    }
}

/// Thinning pictures to a lower frame rate.
@Suite struct FrameRateGateTests {
    /// Which of `count` pictures 1000/15 ms apart (whole ms, as pushed) go out at `fps`.
    static func sent(count: Int, fps: Int) -> [Int] {
        var gate = VideoPipeline.FrameRateGate()
        return (0..<count).filter { gate.admits(timestampMs: Int64($0) * 1000 / 15, frameRate: fps) }
    }

    @Test func fifteenThinnedToTwelveSendsFourOfFiveEvenly() {
        let kept = Self.sent(count: 150, fps: 12)
        #expect(kept.count >= 119 && kept.count <= 121, "\(kept.count) of 150")
        // Never two skipped in a row.
        #expect(zip(kept, kept.dropFirst()).allSatisfy { $1 - $0 <= 2 }, "\(kept)")
    }

    @Test func theSourcesOwnRateKeepsEveryPicture() {
        #expect(Self.sent(count: 150, fps: 15).count == 150)
    }

    @Test func halfTheRateSendsEveryOtherPicture() {
        let kept = Self.sent(count: 150, fps: 7)
        #expect(kept.count >= 69 && kept.count <= 71, "\(kept.count)")
    }

    @Test func aPauseDoesNotCauseABurst() {
        var gate = VideoPipeline.FrameRateGate()
        let first = gate.admits(timestampMs: 0, frameRate: 10)
        #expect(first)
        // Three seconds later, pictures 10 ms apart: one goes, then one per 100 ms.
        let kept = (0..<50).filter { gate.admits(timestampMs: 3000 + Int64($0) * 10, frameRate: 10) }
        #expect(kept.first == 0 && kept.count <= 6, "\(kept)")
    }
}
