import AgoraishWire
import Testing

/// The simulated network: its loss models, the bandwidth cap and its queue,
/// reordering, duplication, and the virtual-clock link.
@Suite struct NetworkSimulationTests {
    @Test func randomLossMatchesItsRateAndTheSameSeedMakesTheSameChoices() {
        var a = NetworkSimulation(settings: .init(lossPercent: 20, delayMs: 10, jitterMs: 5, seed: 42))
        var b = NetworkSimulation(settings: .init(lossPercent: 20, delayMs: 10, jitterMs: 5, seed: 42))
        var lost = 0
        for _ in 0..<20_000 {
            let x = a.admit(size: 100, at: Instant(nanoseconds: 0))
            #expect(x == b.admit(size: 100, at: Instant(nanoseconds: 0)))
            if x.isEmpty { lost += 1 }
            for d in x { #expect(d >= .milliseconds(5) && d <= .milliseconds(15)) }
        }
        #expect(abs(Double(lost) / 200 - 20) < 1.5, "\(Double(lost) / 200)% lost")
    }

    @Test func burstyLossHasItsAverageAndComesInRuns() {
        var s = NetworkSimulation.Settings(lossPercent: 0, delayMs: 0, jitterMs: 0, seed: 7)
        s.burst = .init(goodToBadPercent: 5, badToGoodPercent: 25)
        #expect(abs(s.burst!.averageLossPercent - 100.0 * 5 / 30) < 1e-9)
        var sim = NetworkSimulation(settings: s)
        var runs: [Int] = [], run = 0, lost = 0
        let n = 100_000
        for _ in 0..<n {
            if sim.admit(size: 100, at: Instant(nanoseconds: 0)).isEmpty {
                lost += 1
                run += 1
            } else if run > 0 {
                runs.append(run)
                run = 0
            }
        }
        let average = Double(lost) * 100 / Double(n)
        #expect(abs(average - s.burst!.averageLossPercent) < 1.5, "\(average)% lost")
        // A run of losses lasts 1 / P(bad -> good) packets on average: 4 here, not ~1.2 as random loss would give.
        let meanRun = Double(runs.reduce(0, +)) / Double(runs.count)
        #expect(meanRun > 3.4 && meanRun < 4.6, "mean burst \(meanRun)")
    }

    @Test func aBandwidthCapPacesPacketsAndItsFullQueueDrops() {
        var s = NetworkSimulation.Settings(lossPercent: 0, delayMs: 20, jitterMs: 0, seed: 1)
        s.bandwidthKbps = 1000   // 1000 bytes take 8 ms
        s.queueMs = 100
        var sim = NetworkSimulation(settings: s)
        let t0 = Instant(nanoseconds: 1_000_000_000)
        // One packet alone: its transmission time plus the delay.
        #expect(sim.admit(size: 1000, at: t0) == [.milliseconds(28)])
        // Once the link is idle again, the next one has no queue to wait behind.
        #expect(sim.admit(size: 1000, at: t0 + .milliseconds(100)) == [.milliseconds(28)])
        // A burst of 50 at once: each waits for those ahead; past 100 ms of queue, drop tail.
        let t1 = t0 + .seconds(1)
        var delivered: [Duration] = []
        for _ in 0..<50 { delivered += sim.admit(size: 1000, at: t1) }
        #expect(sim.queueDropped == 50 - delivered.count)
        #expect(delivered.count == 13, "100 ms of queue holds 12 waiting plus the one sending: \(delivered.count)")
        #expect(zip(delivered, delivered.dropFirst()).allSatisfy { $1 - $0 == .milliseconds(8) })
        // Sent at twice the cap for a second, half gets through.
        var sim2 = NetworkSimulation(settings: s)
        var through = 0
        for i in 0..<250 { through += sim2.admit(size: 1000, at: t0 + .milliseconds(Int64(i * 4))).count }
        #expect(abs(through - 125) <= 14, "\(through) of 250 at twice the cap")
    }

    @Test func reorderingAndDuplicationFollowTheirRates() {
        var s = NetworkSimulation.Settings(lossPercent: 0, delayMs: 10, jitterMs: 0, seed: 3)
        s.reorderPercent = 10
        s.reorderMs = 30
        s.duplicatePercent = 5
        var sim = NetworkSimulation(settings: s)
        var late = 0, twice = 0
        for _ in 0..<10_000 {
            let d = sim.admit(size: 100, at: Instant(nanoseconds: 0))
            if d.count == 2 { twice += 1; #expect(d[1] - d[0] == .milliseconds(1)) }
            if d.first == .milliseconds(40) { late += 1 }
        }
        #expect(abs(late - 1000) < 120 && abs(twice - 500) < 90, "late \(late), twice \(twice)")
        #expect(sim.duplicated == twice)
    }

    @Test func settingsReadAndWriteTheirJSON() throws {
        let text = #"{"loss_percent": 2, "seed": 9, "burst": {"good_to_bad_percent": 1, "bad_to_good_percent": 30}, "#
            + #""bandwidth_kbps": 300, "queue_ms": 200, "duplicate_percent": 1, "reorder_percent": 2, "reorder_ms": 15}"#
        let s = try #require(NetworkSimulation.Settings(try JSONValue.parse(text)))
        #expect(s.burst == .init(goodToBadPercent: 1, badToGoodPercent: 30))
        #expect(s.bandwidthKbps == 300 && s.queueMs == 200 && s.reorderMs == 15)
        #expect(NetworkSimulation.Settings(s.json) == s)
        for bad in [#"{"bogus": 1}"#, #"{"loss_percent": 101}"#, #"{"burst": {"x": 1}}"#, #"{"burst": 3}"#,
                    #"{"bandwidth_kbps": -1}"#, #"{"queue_ms": "a"}"#] {
            #expect(NetworkSimulation.Settings(try JSONValue.parse(bad)) == nil, "\(bad)")
        }
    }

    @Test func aSimulatedLinkDeliversInTimeOrderOnTheVirtualClock() {
        var s = NetworkSimulation.Settings(lossPercent: 0, delayMs: 50, jitterMs: 20, seed: 5)
        s.bandwidthKbps = 2000
        var link = SimulatedLink<Int>(s)
        let t0 = Instant(nanoseconds: 0)
        for i in 0..<100 { link.send(i, size: 500, now: t0 + .milliseconds(Int64(i * 5))) }
        var got: [Int] = []
        var now = t0
        while let next = link.nextDelivery {
            now = next
            got += link.poll(now: now)
        }
        #expect(got.sorted() == Array(0..<100))
        #expect(got != Array(0..<100), "±20 ms of jitter at 5 ms spacing reorders some")
        #expect(now >= t0 + .milliseconds(495 + 30))
        #expect(link.poll(now: now + .seconds(10)).isEmpty)
    }
}
