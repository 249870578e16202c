import AgoraishWire
import Testing

/// Transport-wide feedback on the wire, the receiver's recorder, and the
/// sender's control loop (estimator + pacer) over a simulated link on a
/// virtual clock.
@Suite struct CongestionControlTests {
    @Test func feedbackRoundTripsArrivalsLossesAndLargeDeltas() throws {
        var rng = SplitMix64(seed: 5)
        for round in 0..<200 {
            var packets: [TransportFeedback.Packet] = []
            var t: Int64 = Int64(rng.next() % 1_000_000_000) + 64_000 * Int64(round)
            let base = UInt16(truncatingIfNeeded: rng.next())
            let n = 1 + Int(rng.next() % 300)
            for k in 0..<n {
                let seq = base &+ UInt16(k)
                if k > 0 && rng.next() % 5 == 0 { packets.append(.init(sequence: seq, arrivalUs: nil)); continue }
                switch rng.next() % 10 {
                case 0: t += Int64(rng.next() % 2_000_000)  // a large gap
                case 1: t -= Int64(rng.next() % 20_000)  // reordered: earlier than the one before
                default: t += Int64(rng.next() % 20_000)
                }
                packets.append(.init(sequence: seq, arrivalUs: t))
            }
            let m = try #require(TransportFeedback.serialize(sender: 1, media: 2, feedbackCount: UInt8(round & 0xFF),
                                                             packets: packets))
            #expect(m.bytes.count % 4 == 0)
            let parsed = try TransportFeedback.parse(m.bytes)
            #expect(parsed.sender == 1 && parsed.media == 2 && parsed.feedbackCount == UInt8(round & 0xFF))
            #expect(parsed.packets.count == packets.count)
            for (a, b) in zip(parsed.packets, packets) {
                #expect(a.sequence == b.sequence)
                #expect((a.arrivalUs == nil) == (b.arrivalUs == nil))
                if let x = a.arrivalUs, let y = b.arrivalUs { #expect(x <= y && y - x < 250 + 250, "\(x) vs \(y)") }
            }
        }
    }

    @Test func rembCarriesABitrateAndItsStreams() throws {
        for bitrate in [0, 1, 250_000, 262_143, 262_144, 1_234_567, 50_000_000] {
            let m = Remb(sender: 7, bitrate: bitrate, ssrcs: [0xDEAD_BEEF, 42]).bytes
            #expect(m.count == 28)
            let r = try Remb.parse(m)
            #expect(r.ssrcs == [0xDEAD_BEEF, 42])
            // 18 bits of mantissa: exact below 2^18, within 2^-17 above.
            #expect(r.bitrate <= bitrate && Double(bitrate - r.bitrate) <= Double(bitrate) / 131_072 + 1, "\(bitrate) -> \(r.bitrate)")
        }
        var bad = Remb(sender: 7, bitrate: 1000, ssrcs: [1, 2, 3]).bytes
        bad[16] = 9  // more SSRCs than the packet holds
        #expect(throws: WireError.truncated) { try Remb.parse(bad) }
        #expect(throws: WireError.truncated) { try Remb.parse(Array(bad.prefix(19))) }
    }

    @Test func brokenFeedbackIsRejectedNotTrusted() {
        let good = TransportFeedback.serialize(sender: 1, media: 2, feedbackCount: 0, packets: [
            .init(sequence: 10, arrivalUs: 1000), .init(sequence: 11, arrivalUs: nil), .init(sequence: 12, arrivalUs: 5_000_000),
        ])!.bytes
        // Every truncation, and every single-byte change, parses to nil or to something well formed.
        for cut in 0..<good.count {
            #expect((try? TransportFeedback.parse(Array(good.prefix(cut)))) == nil || cut >= good.count - 3)
        }
        var rng = SplitMix64(seed: 9)
        for _ in 0..<5000 {
            var b = good
            b[Int(rng.next() % UInt64(b.count))] = UInt8(truncatingIfNeeded: rng.next())
            if let f = try? TransportFeedback.parse(b) { #expect(f.packets.count <= 0xFFFF) }
        }
    }

    @Test func theRecorderReportsEachPacketOnceWithLossesAndAcrossTheWrap() throws {
        var r = TransportFeedbackRecorder()
        let start = Instant(nanoseconds: 1_000_000_000)
        var expected: [UInt16: Bool] = [:]
        var seq: UInt16 = 65_500
        var reported: [TransportFeedback.Packet] = []
        for k in 0..<400 {
            let lost = k % 7 == 3
            if !lost { r.record(seq, at: start + .milliseconds(Int64(k))) }
            expected[seq] = !lost
            seq &+= 1
            if k % 50 == 49 {
                for m in r.feedback(sender: 0, media: 0) {
                    reported += try TransportFeedback.parse(m).packets
                }
            }
        }
        // Every packet up to the last arrived one is reported exactly once, lost or not.
        #expect(reported.count == 400)
        #expect(Set(reported.map(\.sequence)).count == 400)
        for p in reported { #expect((p.arrivalUs != nil) == expected[p.sequence]) }
        // A packet arriving after it was reported lost is not reported again.
        r.record(65_503, at: start + .seconds(1))
        #expect(r.feedback(sender: 0, media: 0).isEmpty)
    }

    /// A video-like sender (30 pictures a second at the target, packets of at
    /// most 1200 bytes, paced, and the estimator's probe padding) over a
    /// capped link with a 300 ms queue and 20 ms each way; the receiver
    /// answers with feedback every 50 ms.
    struct Loop {
        var estimator = BandwidthEstimator(settings: .init(startBitrate: 800_000, minBitrate: 30_000, maxBitrate: 4_000_000))
        var pacer = Pacer<Int>(targetBitrate: 800_000)
        var uplink: SimulatedLink<(seq: UInt16, sentAt: Instant)>
        var downlink = SimulatedLink<[UInt8]>(.init(lossPercent: 0, delayMs: 20, jitterMs: 0, seed: 2))
        var recorder = TransportFeedbackRecorder()
        var now = Instant(nanoseconds: 0)
        /// The most the source can make (bps).
        var sourceMax = 2_500_000
        /// How often the receiver sends feedback (ms).
        var feedbackEveryMs: Int64 = 50
        /// What the source makes for each bit of the target (an encoder that overshoots: above 1).
        var overshoot = 1.0
        /// Per 100 ms: (time, target, worst one-way delay of what arrived, the estimator's queueing delay).
        var trace: [(at: Instant, target: Int, delayMs: Int64, queueingMs: Int64)] = []
        var worstDelay: Duration = .zero

        init(settings: NetworkSimulation.Settings) { uplink = SimulatedLink(settings) }

        mutating func run(for duration: Duration) {
            let end = now + duration
            while now < end {
                let ms = now.nanoseconds / 1_000_000
                if ms % 33 == 0 {
                    // A picture at the target (capped by the source).
                    var bytes = Int(Double(min(estimator.target, sourceMax)) * overshoot) / 8 / 30
                    while bytes > 0 {
                        let n = min(1200, bytes)
                        pacer.enqueue(n, size: n, at: now)
                        bytes -= n
                    }
                }
                pacer.setTarget(estimator.target)
                for size in pacer.poll(now: now) {
                    let seq = estimator.packetSent(size: size, at: now)
                    uplink.send((seq, now), size: size, now: now)
                }
                // Probe padding, not paced.
                var padding = estimator.probePadding(at: now)
                while padding > 0 {
                    let size = min(1200, padding)
                    let seq = estimator.packetSent(size: size, at: now)
                    uplink.send((seq, now), size: size, now: now)
                    padding -= size
                }
                for p in uplink.poll(now: now) {
                    recorder.record(p.seq, at: now)
                    worstDelay = max(worstDelay, now - p.sentAt)
                }
                if ms % feedbackEveryMs == 0 {
                    for m in recorder.feedback(sender: 1, media: 0) { downlink.send(m, size: m.count, now: now) }
                }
                for m in downlink.poll(now: now) {
                    if let f = try? TransportFeedback.parse(m) {
                        estimator.feedbackReceived(f, at: now, rtt: .milliseconds(40))
                    }
                }
                if ms % 100 == 0 {
                    trace.append((now, estimator.target, worstDelay.milliseconds, estimator.queueingDelay.milliseconds))
                    worstDelay = .zero
                }
                now = now + .milliseconds(1)
            }
        }

        /// The benchmark's path (`bench/benchmarks/bwe_convergence.py`): a cap
        /// of `capKbps` behind a 300 ms drop-tail queue, 10 ms each way, the
        /// estimate starting at 1 Mbps, feedback every 100 ms. Returns the
        /// settings too, to change the cap later.
        static func benchmarkLike(capKbps: Int, seed: UInt64) -> (Loop, NetworkSimulation.Settings) {
            var s = NetworkSimulation.Settings(lossPercent: 0, delayMs: 10, jitterMs: 0, seed: seed)
            s.bandwidthKbps = capKbps
            s.queueMs = 300
            var loop = Loop(settings: s)
            loop.estimator = BandwidthEstimator(settings: .init(startBitrate: 1_000_000, minBitrate: 30_000, maxBitrate: 10_000_000))
            loop.feedbackEveryMs = 100
            return (loop, s)
        }

        /// The 95th percentile (nearest rank) of the estimator's queueing delay (ms) in the trace from `start`.
        func queueingP95(from start: Instant) -> Int64 {
            let queueing = trace.filter { $0.at >= start }.map(\.queueingMs).sorted()
            guard !queueing.isEmpty else { return .max }
            return queueing[max(0, Int((0.95 * Double(queueing.count)).rounded(.up)) - 1)]
        }

        /// The first time from `start` after which the target stays within `range` to the end of the trace.
        func settled(after start: Instant, within range: ClosedRange<Int>) -> Duration? {
            let after = trace.filter { $0.at >= start }
            guard let lastOut = after.lastIndex(where: { !range.contains($0.target) }) else { return .zero }
            guard lastOut + 1 < after.count else { return nil }
            return after[lastOut + 1].at - start
        }
    }

    @Test func theSenderFollowsACapFrom2MbpsTo300kbpsAndBack() {
        var s = NetworkSimulation.Settings(lossPercent: 0, delayMs: 20, jitterMs: 0, seed: 1)
        s.bandwidthKbps = 2000
        s.queueMs = 300
        var loop = Loop(settings: s)
        loop.run(for: .seconds(20))
        let atTwo = loop.estimator.target
        // Under 2 Mbps, and using most of it.
        #expect(atTwo > 1_300_000 && atTwo <= 2_100_000, "target at 2 Mbps: \(atTwo)")
        #expect(loop.trace.suffix(50).allSatisfy { $0.delayMs < 150 }, "queueing delay at 2 Mbps")

        let drop = loop.now
        s.bandwidthKbps = 300
        loop.uplink.update(s)
        loop.run(for: .seconds(20))
        // Adapted within two seconds, and stays under the cap.
        let settle = loop.settled(after: drop, within: 120_000...345_000)
        #expect(settle != nil && settle! <= .seconds(2), "settled after \(String(describing: settle))")
        // The queue drains: from 4 s after the drop the one-way delay stays under 150 ms (20 ms of it the link's).
        let late = loop.trace.filter { $0.at >= drop + .seconds(4) }
        #expect(late.allSatisfy { $0.delayMs < 150 }, "delays \(late.map(\.delayMs))")
        #expect(late.filter { $0.delayMs < 120 }.count * 10 >= late.count * 9, "mostly short delays \(late.map(\.delayMs))")

        let lift = loop.now
        s.bandwidthKbps = 2000
        loop.uplink.update(s)
        loop.run(for: .seconds(30))
        // Recovered: a probe finds the room (or the throughput passes the
        // capacity known), and growth and further probes reach 1 Mbps within 10 s.
        #expect(loop.estimator.target > 1_400_000, "target after the cap lifted: \(loop.estimator.target)")
        let recovered = loop.trace.first { $0.at > lift && $0.target > 1_000_000 }
        #expect(recovered != nil && recovered!.at - lift <= .seconds(10),
                "above 1 Mbps \(String(describing: recovered.map { $0.at - lift })) after the lift")
    }

    /// The schedule of `bench/benchmarks/bwe_convergence.py` on a virtual
    /// clock: a 1.5 Mbps source behind a cap of 2000 kbps for 12 s, 500 kbps
    /// for 15 s and 2000 kbps for 25 s, a 300 ms drop-tail queue, 10 ms each
    /// way, feedback every 100 ms.
    @Test func theEstimateSettlesAfterADropAndRecoversAfterALiftWithinTheAims() {
        var (loop, s) = Loop.benchmarkLike(capKbps: 2000, seed: 11)
        loop.sourceMax = 1_500_000
        loop.run(for: .seconds(12))
        #expect(loop.estimator.target >= 1_400_000, "target at 2000 kbps: \(loop.estimator.target)")

        let drop = loop.now
        s.bandwidthKbps = 500
        loop.uplink.update(s)
        loop.run(for: .seconds(15))
        let settle = loop.settled(after: drop, within: 250_000...550_000)
        #expect(settle != nil && settle! <= .seconds(2), "settled \(String(describing: settle)) after the drop")
        // The standing queue drains: p95 (nearest rank) of the queueing delay from 4 s after the drop.
        let p95 = loop.queueingP95(from: drop + .seconds(4))
        #expect(p95 <= 150, "queueing p95 \(p95) ms after the drop")

        let lift = loop.now
        s.bandwidthKbps = 2000
        loop.uplink.update(s)
        loop.run(for: .seconds(25))
        let reached = loop.trace.first { $0.at > lift && $0.target >= 1_600_000 }
        #expect(reached != nil && reached!.at - lift <= .seconds(8),
                "1600 kbps reached \(String(describing: reached.map { $0.at - lift })) after the lift")
        #expect(loop.trace.suffix(50).allSatisfy { $0.delayMs < 150 }, "queueing delay back at 2000 kbps")
    }

    /// A source that makes 30 % more than the target it is given (an encoder
    /// overshooting) behind 500 kbps: decreases from the acknowledged
    /// throughput alone would leave the 300 ms queue full.
    @Test func aSenderThatOvershootsItsTargetStillDrainsTheQueue() {
        var (loop, _) = Loop.benchmarkLike(capKbps: 500, seed: 12)
        loop.overshoot = 1.3
        loop.run(for: .seconds(20))
        let settled = Instant(nanoseconds: 0) + .seconds(5)
        let late = loop.trace.filter { $0.at >= settled }
        let p95 = loop.queueingP95(from: settled)
        #expect(p95 <= 150, "queueing p95 \(p95) ms: \(late.map(\.queueingMs))")
        // The target sits where the source's output fits: about 500 / 1.3 kbps, not far under.
        #expect(late.allSatisfy { $0.target >= 250_000 && $0.target <= 450_000 }, "targets \(late.map(\.target))")
    }

    @Test func randomLossWithoutCongestionDoesNotCollapseTheEstimate() {
        var s = NetworkSimulation.Settings(lossPercent: 20, delayMs: 20, jitterMs: 0, seed: 3)
        s.bandwidthKbps = 0
        var loop = Loop(settings: s)
        loop.sourceMax = 1_000_000
        loop.run(for: .seconds(15))
        #expect(loop.estimator.lossRatio > 0.08 && loop.estimator.lossRatio < 0.35, "loss in the last window: \(loop.estimator.lossRatio)")
        #expect(loop.estimator.target >= 700_000, "target under 20 % random loss: \(loop.estimator.target)")
    }

    @Test func heavyLossLowersTheTarget() {
        var s = NetworkSimulation.Settings(lossPercent: 45, delayMs: 20, jitterMs: 0, seed: 4)
        s.bandwidthKbps = 0
        var loop = Loop(settings: s)
        loop.run(for: .seconds(10))
        #expect(loop.estimator.target < 300_000, "target under 45 % loss: \(loop.estimator.target)")
    }

    @Test func thePacerSpreadsABurstAtTheRateAndNeverHoldsMoreThanHalfASecond() {
        var pacer = Pacer<Int>(targetBitrate: 400_000)  // 1 Mbps pacing
        var now = Instant(nanoseconds: 0)
        for i in 0..<50 { pacer.enqueue(i, size: 1250, at: now) }  // 62.5 kB: 500 ms at 1 Mbps
        var sent: [(Int, Instant)] = []
        while !pacer.isEmpty {
            for p in pacer.poll(now: now) { sent.append((p, now)) }
            now = pacer.nextSend(after: now) ?? now
            if pacer.isEmpty { break }
        }
        #expect(sent.map(\.0) == Array(0..<50))
        let span = sent.last!.1 - sent.first!.1
        #expect(span >= .milliseconds(400) && span <= .milliseconds(510), "span \(span)")
        // Twice as much is drained in the same half second, not twice as slowly.
        var p2 = Pacer<Int>(targetBitrate: 400_000)
        now = Instant(nanoseconds: 0)
        for i in 0..<100 { p2.enqueue(i, size: 1250, at: now) }
        var last = now
        while !p2.isEmpty {
            if !p2.poll(now: now).isEmpty { last = now }
            now = now + .milliseconds(1)
        }
        #expect(last <= Instant(nanoseconds: 0) + .milliseconds(560), "drained at \(last)")
    }

    /// A probe sent at `rate` for `seconds` over `settings`; the meter's view of it.
    func probe(rate: Int, seconds: Int, over settings: NetworkSimulation.Settings) -> (ProbeMeter.Result?, NetworkSimulation) {
        var link = SimulatedLink<(Int64, Int64, Int)>(settings)
        var meter = ProbeMeter()
        var now = Instant(nanoseconds: 1_000_000_000)
        let interval = Duration.nanoseconds(Int64(ProbePacket.size) * 8 * 1_000_000_000 / Int64(rate))
        var next = now, index: Int64 = 0
        let end = now + .seconds(Int64(seconds))
        while now < end + .seconds(1) {
            if now >= next && now < end {
                link.send((index, now.nanoseconds / 1000, ProbePacket.size), size: ProbePacket.size, now: now)
                meter.add(sequence: index, sentUs: now.nanoseconds / 1000, arrivalUs: nil, size: ProbePacket.size)
                index += 1
                next = next + interval
            }
            for p in link.poll(now: now) { meter.add(sequence: p.0, sentUs: p.1, arrivalUs: now.nanoseconds / 1000, size: p.2) }
            now = now + .microseconds(250)
        }
        return (meter.result, link.simulation)
    }

    @Test func aProbeAboveACapMeasuresTheCap() throws {
        var s = NetworkSimulation.Settings(lossPercent: 0, delayMs: 20, jitterMs: 0, seed: 8)
        s.bandwidthKbps = 500
        s.queueMs = 300
        let (r, _) = probe(rate: 1_000_000, seconds: 2, over: s)
        let result = try #require(r)
        #expect(abs(result.bandwidthBps - 500_000) <= 100_000, "bandwidth \(result.bandwidthBps)")
        // The drop-tail queue loses what the cap cannot carry: about half.
        #expect(result.lossPercent > 30 && result.lossPercent < 60, "loss \(result.lossPercent)")
    }

    @Test func aProbeUnderTheCapMeasuresItsOwnRateAndTheLoss() throws {
        let s = NetworkSimulation.Settings(lossPercent: 5, delayMs: 20, jitterMs: 3, seed: 9)
        let (r, sim) = probe(rate: 4_000_000, seconds: 2, over: s)
        let result = try #require(r)
        #expect(abs(result.bandwidthBps - 4_000_000) <= 800_000, "bandwidth \(result.bandwidthBps)")
        #expect(abs(result.lossPercent - 5) <= 2, "loss \(result.lossPercent) (the link lost \(sim.dropped) of \(sim.packets))")
        // ±3 ms uniform jitter: RFC 3550's estimate is about the mean transit change, 2 ms.
        #expect(result.jitterMs >= 1 && result.jitterMs <= 4, "jitter \(result.jitterMs)")
    }
}
