/// Send-side bandwidth estimation from transport-wide feedback, sans-IO
/// (docs/network.md). The shape is Google congestion control's
/// (draft-ietf-rmcat-gcc-02): a delay-based estimate, driven by the trend of
/// one-way delay variation between groups of packets (a trendline over the
/// last 20 groups, an adaptive threshold, an AIMD rate controller), and a
/// loss-based bound; the target is the smaller of the two.
///
/// The sender numbers every packet it puts on the transport
/// (`packetSent`), the receiver reports arrivals (`TransportFeedback`), and
/// `feedbackReceived` updates `target`. Time is handed in.
public struct BandwidthEstimator: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Where the estimate starts, and its floor and ceiling (bps).
        public var startBitrate: Int
        public var minBitrate: Int
        public var maxBitrate: Int

        public init(startBitrate: Int = 1_000_000, minBitrate: Int = 30_000, maxBitrate: Int = 10_000_000) {
            self.startBitrate = startBitrate
            self.minBitrate = minBitrate
            self.maxBitrate = maxBitrate
        }
    }

    /// What the delay detector concluded from the last group.
    public enum Usage: Sendable, Equatable { case normal, overusing, underusing }

    public let settings: Settings
    /// The estimate the sender should keep to (bps).
    public private(set) var target: Int
    /// The delay-based estimate alone (bps).
    public private(set) var delayBased: Int
    /// The loss-based bound alone (bps).
    public private(set) var lossBased: Int
    /// Loss in the last loss window, 0...1.
    public private(set) var lossRatio: Double = 0
    /// The detector's last verdict.
    public private(set) var usage: Usage = .normal
    /// While the sender uses less than the estimate (a subscriber on a low
    /// stream, a publisher in audio-only fallback), the estimate may still
    /// grow to this (bps) instead of stopping at 1.5 × what was acknowledged:
    /// the rate the next step up needs, so that step can be tried.
    public var growthCeiling: Int? = nil
    /// The one-way delay above the lowest seen lately: how long packets wait in queues.
    public var queueingDelay: Duration { queue.delay }
    /// Throughput the receiver acknowledged over the last half second (bps), once known.
    public private(set) var acknowledgedBitrate: Int? = nil

    private var history = TransportSendHistory()
    private var interArrival = InterArrival()
    private var trendline = Trendline()
    private var queue = QueueingDelay()
    private var rate: AimdRateControl
    /// Acknowledged packets: arrival (receiver's clock) and size.
    private var acked: [(at: Instant, bytes: Int)] = []
    private var ackedHead = 0
    private var lossWindow = (sent: 0, lost: 0, start: Instant?.none)
    private var lastLossUpdate: Instant? = nil
    private var lastLossCut: Instant? = nil
    private var lastOveruse: Instant? = nil
    /// Receiver clock to sender clock: the offset of the first arrival seen.
    private var clockOffsetUs: Int64? = nil
    private var lastUnwrappedReported: Int64 = -1

    public init(settings: Settings = Settings()) {
        self.settings = settings
        target = settings.startBitrate
        delayBased = settings.startBitrate
        lossBased = settings.maxBitrate
        rate = AimdRateControl(start: settings.startBitrate, min: settings.minBitrate, max: settings.maxBitrate)
    }

    /// A packet of `size` bytes goes on the transport at `now`: the
    /// transport-wide sequence number to write into it.
    public mutating func packetSent(size: Int, at now: Instant) -> UInt16 {
        history.add(size: size, at: now)
    }

    /// Takes one feedback message received at `now`; `rtt` is the current
    /// round trip estimate. Updates `target`.
    public mutating func feedbackReceived(_ feedback: TransportFeedback, at now: Instant, rtt: Duration) {
        var results: [(send: Instant, arrivalUs: Int64?, size: Int)] = []
        results.reserveCapacity(feedback.packets.count)
        for p in feedback.packets {
            guard let sent = history.lookup(p.sequence), sent.seq > lastUnwrappedReported - 1000 else { continue }
            results.append((sent.at, p.arrivalUs, sent.size))
            if p.arrivalUs != nil { lastUnwrappedReported = max(lastUnwrappedReported, sent.seq) }
        }
        guard !results.isEmpty else { return }
        // Loss over windows of at least a second or 50 packets.
        var lost = 0
        for r in results {
            if let a = r.arrivalUs { acked.append((Instant(nanoseconds: a * 1000), r.size)) } else { lost += 1 }
        }
        if lossWindow.start == nil { lossWindow.start = now }
        lossWindow.sent += results.count
        lossWindow.lost += lost
        // Acknowledged throughput: what arrived in the last half second of arrivals (receiver's clock).
        if let latest = acked.last?.at {
            while ackedHead < acked.count, latest - acked[ackedHead].at >= .milliseconds(500) { ackedHead += 1 }
            if ackedHead > 256 { acked.removeFirst(ackedHead); ackedHead = 0 }
            let bytes = acked[ackedHead...].reduce(0) { $0 + $1.bytes }
            if let first = acked[ackedHead...].first, latest - first.at >= .milliseconds(150) || acknowledgedBitrate != nil {
                acknowledgedBitrate = bytes * 8 * 2
            }
        }

        // Delay: groups by send time, in arrival order of sequence.
        for r in results {
            guard let arrival = r.arrivalUs else { continue }
            if clockOffsetUs == nil { clockOffsetUs = r.send.nanoseconds / 1000 - arrival }
            let arrivalAt = Instant(nanoseconds: (arrival + clockOffsetUs!) * 1000)
            queue.add(oneWay: arrivalAt - r.send, at: now)
            if let d = interArrival.add(send: r.send, arrival: arrivalAt, size: r.size) {
                usage = trendline.update(delayVariationMs: d.arrivalDeltaMs - d.sendDeltaMs, arrivalMs: d.arrivalMs)
                if usage == .overusing { lastOveruse = now }
            }
        }
        // A standing queue shows no trend (a full drop-tail buffer keeps the
        // delay flat): above 200 ms of queueing the rate comes down, above
        // 80 ms it no longer grows.
        var verdict = usage
        // A trend without a queue behind it is noise (scheduling, not the path).
        if verdict == .overusing, queue.delay < .milliseconds(5) { verdict = .normal }
        if verdict != .overusing, queue.delay > .milliseconds(200) {
            verdict = .overusing
            lastOveruse = now
        } else if verdict == .normal, queue.delay > .milliseconds(80) {
            verdict = .underusing
        }
        // A decrease also drains what waits: 0.85 of the throughput, less the queue's share of a second.
        let queued = Double(queue.delay.nanosecondsClamped) / 1e9
        delayBased = rate.update(verdict, acknowledged: acknowledgedBitrate, now: now, rtt: rtt,
                                 beta: max(0.5, min(0.85, 1 - queued)), ceiling: growthCeiling)
        updateLossBased(now: now, rtt: rtt)
        target = max(settings.minBitrate, min(delayBased, lossBased))
    }

    /// The loss-based bound (GCC §6), over windows of at least half a second
    /// and 20 packets: above 10 % loss it falls to
    /// target × (1 − loss / 2), below 2 % it rises by 8 % a second. Random
    /// loss with flat delays is left to retransmission and FEC: the bound only
    /// falls when the delay detector saw overuse in the last two seconds or
    /// the loss exceeds 30 %.
    private mutating func updateLossBased(now: Instant, rtt: Duration) {
        guard let start = lossWindow.start, now - start >= .milliseconds(500), lossWindow.sent >= 20 else { return }
        lossRatio = lossWindow.sent > 0 ? Double(lossWindow.lost) / Double(lossWindow.sent) : 0
        let elapsed = lastLossUpdate.map { now - $0 } ?? .seconds(1)
        lastLossUpdate = now
        lossWindow = (0, 0, now)
        let congested = lastOveruse.map { now - $0 < .seconds(2) } ?? false
        if lossRatio > 0.10 && (congested || lossRatio > 0.30) {
            // At most one cut a second plus a round trip: the loss right after a cut is still the old rate's.
            guard lastLossCut.map({ now - $0 >= .seconds(1) + rtt }) ?? true else { return }
            lastLossCut = now
            // Never below half of what still gets through.
            let floor = (acknowledgedBitrate ?? 0) / 2
            lossBased = max(settings.minBitrate, floor, Int(Double(min(target, lossBased)) * (1 - lossRatio / 2)))
        } else if lossRatio < 0.02 || !congested {
            if lossBased < settings.maxBitrate {
                let seconds = min(1.0, Double(elapsed.nanosecondsClamped) / 1e9)
                lossBased = min(settings.maxBitrate, Int(Double(lossBased) * pow108(seconds)) + 1000)
                // Without loss the bound gives way to the delay-based estimate.
                if lossBased > delayBased { lossBased = settings.maxBitrate }
            }
        }
    }
}

/// 1.08 to the power `seconds` (for 0...1 s), without Foundation.
@inline(__always)
func pow108(_ seconds: Double) -> Double {
    // exp(x · ln 1.08) with a short series: x · ln 1.08 ≤ 0.077.
    let y = seconds * 0.076961041136128
    return 1 + y + y * y / 2 + y * y * y / 6
}

/// Queueing delay: the one-way delay (on the sender's clock, offset by the
/// first arrival) above the lowest of the last 20 to 40 seconds, smoothed.
struct QueueingDelay: Sendable {
    private var current: Duration? = nil
    private var previous: Duration? = nil
    private var bucketStart: Instant? = nil
    private var smoothedNs: Double = 0
    static let bucket: Duration = .seconds(20)

    var delay: Duration { .nanoseconds(Int64(smoothedNs)) }

    mutating func add(oneWay: Duration, at now: Instant) {
        if bucketStart == nil || now - bucketStart! > Self.bucket {
            previous = current
            current = nil
            bucketStart = now
        }
        current = min(current ?? oneWay, oneWay)
        let base = min(current!, previous ?? current!)
        let above = Double((oneWay - base).nanosecondsClamped)
        smoothedNs = 0.9 * smoothedNs + 0.1 * above
    }
}

/// What was sent, by transport-wide sequence number (the last 8192).
struct TransportSendHistory: Sendable {
    private var entries = [(seq: Int64, at: Instant, size: Int)](repeating: (-1, Instant(nanoseconds: 0), 0), count: 8192)
    private var next: Int64 = 0

    mutating func add(size: Int, at now: Instant) -> UInt16 {
        entries[Int(next & 8191)] = (next, now, size)
        defer { next += 1 }
        return UInt16(truncatingIfNeeded: next)
    }

    /// The packet sent with this 16-bit number: the most recent one with it.
    func lookup(_ sequence: UInt16) -> (seq: Int64, at: Instant, size: Int)? {
        guard next > 0 else { return nil }
        let last = next - 1
        let back = Int64(UInt16(truncatingIfNeeded: last) &- sequence)
        let seq = last - back
        guard seq >= 0, seq > next - 8192 else { return nil }
        let e = entries[Int(seq & 8191)]
        return e.seq == seq ? e : nil
    }
}

/// Groups packets sent within 5 ms of each other and yields, per completed
/// group, its send and arrival time deltas to the group before.
struct InterArrival: Sendable {
    struct Group { var firstSend: Instant; var lastSend: Instant; var lastArrival: Instant; var size: Int }
    private var current: Group? = nil
    private var previous: Group? = nil
    static let burst: Duration = .milliseconds(5)

    mutating func add(send: Instant, arrival: Instant, size: Int)
        -> (sendDeltaMs: Double, arrivalDeltaMs: Double, arrivalMs: Double)?
    {
        guard var c = current else {
            current = Group(firstSend: send, lastSend: send, lastArrival: arrival, size: size)
            return nil
        }
        // Out of order (sent before this group started): ignored.
        if send < c.firstSend { return nil }
        if send - c.firstSend <= Self.burst {
            c.lastSend = max(c.lastSend, send)
            c.lastArrival = max(c.lastArrival, arrival)
            c.size += size
            current = c
            return nil
        }
        var out: (Double, Double, Double)? = nil
        if let p = previous {
            let sendDelta = Double((c.lastSend - p.lastSend).nanosecondsClamped) / 1e6
            let arrivalDelta = Double((c.lastArrival - p.lastArrival).nanosecondsClamped) / 1e6
            out = (sendDelta, arrivalDelta, Double(c.lastArrival.nanoseconds) / 1e6)
        }
        previous = c
        current = Group(firstSend: send, lastSend: send, lastArrival: arrival, size: size)
        return out
    }
}

/// The trendline filter and overuse detector (libwebrtc's
/// TrendlineEstimator, GCC §5): accumulated delay variation, exponentially
/// smoothed, a least-squares slope over the last 20 groups, compared with
/// an adaptive threshold.
struct Trendline: Sendable {
    static let window = 20
    static let smoothing = 0.9
    static let gain = 4.0
    private var firstArrivalMs: Double? = nil
    private var accumulated = 0.0
    private var smoothed = 0.0
    private var points: [(x: Double, y: Double)] = []
    private var threshold = 12.5
    private var lastThresholdUpdateMs: Double? = nil
    private var overuseTimeMs = 0.0
    private var overuseCount = 0
    private var previousTrend = 0.0
    private var lastUpdateMs: Double? = nil
    private var numDeltas = 0
    private(set) var usage: BandwidthEstimator.Usage = .normal

    mutating func update(delayVariationMs: Double, arrivalMs: Double) -> BandwidthEstimator.Usage {
        let first = firstArrivalMs ?? arrivalMs
        firstArrivalMs = first
        numDeltas = min(numDeltas + 1, 1000)
        accumulated += delayVariationMs
        smoothed = Self.smoothing * smoothed + (1 - Self.smoothing) * accumulated
        points.append((arrivalMs - first, smoothed))
        if points.count > Self.window { points.removeFirst() }
        var trend = previousTrend
        if points.count == Self.window, let slope = Self.slope(points) { trend = slope }
        let sinceLast = lastUpdateMs.map { arrivalMs - $0 } ?? 0
        lastUpdateMs = arrivalMs
        detect(trend, sinceLastMs: sinceLast, nowMs: arrivalMs)
        return usage
    }

    private static func slope(_ p: [(x: Double, y: Double)]) -> Double? {
        let n = Double(p.count)
        let mx = p.reduce(0) { $0 + $1.x } / n, my = p.reduce(0) { $0 + $1.y } / n
        var num = 0.0, den = 0.0
        for q in p {
            num += (q.x - mx) * (q.y - my)
            den += (q.x - mx) * (q.x - mx)
        }
        return den == 0 ? nil : num / den
    }

    private mutating func detect(_ trend: Double, sinceLastMs: Double, nowMs: Double) {
        let modified = Double(min(numDeltas, 60)) * trend * Self.gain
        if modified > threshold {
            overuseTimeMs += sinceLastMs
            overuseCount += 1
            if overuseTimeMs > 10 && overuseCount > 1 && trend >= previousTrend {
                overuseTimeMs = 0
                overuseCount = 0
                usage = .overusing
            }
        } else if modified < -threshold {
            overuseTimeMs = 0
            overuseCount = 0
            usage = .underusing
        } else {
            overuseTimeMs = 0
            overuseCount = 0
            usage = .normal
        }
        previousTrend = trend
        // The threshold follows the trend: quickly down, slowly up, within 6...600.
        let magnitude = abs(modified)
        let last = lastThresholdUpdateMs ?? nowMs
        lastThresholdUpdateMs = nowMs
        guard magnitude <= threshold + 15 else { return }
        let k = magnitude < threshold ? 0.039 : 0.0087
        threshold += k * (magnitude - threshold) * min(nowMs - last, 100)
        threshold = min(max(threshold, 6), 600)
    }
}

/// Additive-increase / multiplicative-decrease rate control (GCC §5.5):
/// on overuse the rate falls to 0.85 of what the receiver acknowledged (less
/// when a queue has to drain);
/// while the detector says normal it grows by 8 % a second, or by about a
/// packet per round trip once near the link capacity last seen; it never
/// grows past 1.5 × the acknowledged throughput + 10 kbps.
struct AimdRateControl: Sendable {
    enum State { case hold, increase, decrease }
    private(set) var current: Int
    private let minimum: Int
    private let maximum: Int
    private var state: State = .increase
    private var lastUpdate: Instant? = nil
    private var lastDecrease: Instant? = nil
    /// The acknowledged rate at decreases, smoothed (kbps), and its variance.
    private var capacityKbps: Double? = nil
    private var capacityVariance = 0.4

    init(start: Int, min: Int, max: Int) {
        current = start
        minimum = min
        maximum = max
    }

    mutating func update(_ usage: BandwidthEstimator.Usage, acknowledged: Int?, now: Instant, rtt: Duration,
                         beta: Double = 0.85, ceiling: Int? = nil) -> Int {
        let elapsed = lastUpdate.map { now - $0 } ?? .zero
        lastUpdate = now
        switch usage {
        case .overusing: state = .decrease
        case .underusing: state = .hold
        case .normal: if state == .hold { state = .increase }
        }
        switch state {
        case .hold:
            break
        case .increase:
            let before = current
            let seconds = min(1.0, Double(elapsed.nanosecondsClamped) / 1e9)
            if let cap = capacityKbps, Double(current) / 1000 > cap - 3 * (cap * capacityVariance).squareRoot(),
               Double(current) / 1000 < cap + 3 * (cap * capacityVariance).squareRoot() {
                // Near the capacity last seen: about one packet per response time.
                let response = Double((rtt + .milliseconds(100)).nanosecondsClamped) / 1e9
                current += max(1000, Int(1200 * 8 / response * seconds))
            } else {
                if let cap = capacityKbps, Double(current) / 1000 >= cap + 3 * (cap * capacityVariance).squareRoot() {
                    capacityKbps = nil  // the link grew: the old capacity no longer holds
                }
                current = Int(Double(current) * pow108(seconds)) + 1000
            }
            // Growth stops at 1.5 × the acknowledged throughput (a sender that
            // uses little learns nothing of the path); the cap never lowers the rate.
            if let a = acknowledged { current = min(current, max(before, a * 3 / 2 + 10_000, ceiling ?? 0)) }
        case .decrease:
            let waited = lastDecrease.map { now - $0 > max(rtt, .milliseconds(100)) } ?? true
            if waited {
                let base = acknowledged ?? current
                current = min(current, Int(Double(base) * beta))
                lastDecrease = now
                let kbps = Double(base) / 1000
                if let cap = capacityKbps {
                    if kbps < cap - 3 * (cap * capacityVariance).squareRoot() { capacityKbps = kbps } else {
                        let error = kbps - cap
                        capacityKbps = 0.95 * cap + 0.05 * kbps
                        capacityVariance = min(2.5, max(0.4, 0.95 * capacityVariance + 0.05 * error * error / max(cap, 1)))
                    }
                } else {
                    capacityKbps = kbps
                }
            }
            state = .hold
        }
        current = min(max(current, minimum), maximum)
        return current
    }
}
