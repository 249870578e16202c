@testable import AgoraishEngine
import Testing

/// Which frame interval of the recorded file each arriving picture takes.
@Suite struct RecorderVideoSlotTests {
    /// The slots `arrivals` (ms after the start) get at `fps`; nil for a dropped picture.
    private func slots(_ arrivals: [Int64], fps: Int) -> [Int64?] {
        var last: Int64 = -1
        return arrivals.map { ms in
            let slot = RecordingSession.videoSlot(arrivalMs: ms, fps: fps, last: last)
            if let slot { last = slot }
            return slot
        }
    }

    /// A 15 fps source whose pictures fall near the edges of the file's 15 fps
    /// intervals, a little early or late by turns: every picture is kept, in order.
    @Test func aSourceAtTheFilesRateWithJitterKeepsEveryPicture() {
        let jitter: [Int64] = [0, -3, 2, -4, 3, -2, 4, -1]
        let arrivals = (0..<60).map { k in max(0, Int64(k) * 1000 / 15 + jitter[k % jitter.count]) }
        let got = slots(arrivals, fps: 15)
        #expect(got.allSatisfy { $0 != nil })
        #expect(got.compactMap { $0 } == Array(0..<60).map(Int64.init))
    }

    /// A 30 fps source into a 15 fps file: about half the pictures are kept,
    /// none more than one interval early.
    @Test func aFasterSourceIsThinnedToTheFilesRate() {
        let arrivals = (0..<90).map { k in Int64(k) * 1000 / 30 + 5 }
        let got = slots(arrivals, fps: 15)
        let kept = got.compactMap { $0 }
        #expect(kept.count >= 44 && kept.count <= 47)
        #expect(zip(kept, kept.dropFirst()).allSatisfy { $0 < $1 })
        for (ms, slot) in zip(arrivals, got) {
            if let slot, slot > 0 { #expect(slot <= ms * 15 / 1000 + 1) }
        }
    }

    /// A pause in the source leaves a gap: the next picture takes the
    /// interval it arrived in, not the one after the last picture.
    @Test func aPauseLeavesAGap() {
        #expect(slots([0, 67, 134, 1000], fps: 15) == [0, 1, 2, 15])
    }
}
