/// Send-side bandwidth estimation from transport-wide feedback, sans-IO
/// (docs/network.md). The shape is Google congestion control's
/// (draft-ietf-rmcat-gcc-02): a delay-based estimate, driven by the trend of
/// one-way delay variation between groups of packets (a trendline over the
/// last 20 groups, an adaptive threshold, an AIMD rate controller that
/// knows the link's capacity as measured at overuse), and a loss-based
/// bound; the target is the smaller of the two. A queueing-delay guard
/// drains standing queues, and short probes at twice the target find out
/// whether the path grew (BandwidthEstimator+Probing.swift).
///
/// The sender numbers every packet it puts on the transport
/// (`packetSent`), the receiver reports arrivals (`TransportFeedback`), and
/// `feedbackReceived` updates `target`; while `probing(at:)` the sender
/// also sends the padding `probePadding(at:)` asks for. Time is handed in.
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
    /// Whether a standing queue the sender leaves by putting out more than
    /// `target` is drained by lowering the target under the acknowledged
    /// throughput (`drainStandingQueue`): right for a sender whose rate
    /// follows the target (an encoder behind a pacer; a publisher capped by
    /// REMB). A sender that will cut its rate by other means while the
    /// target is used to decide how (the server, about to move a subscriber
    /// to low streams) sets it false: a target under what the path carries
    /// would make it cut too much, or the wrong stream.
    public var drainsStandingQueue = true
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
    /// The queueing delay at the last check for a standing queue, and when.
    private var standingCheck: (at: Instant, delay: Duration)? = nil
    /// After a standing queue was drained: the most the delay-based rate
    /// may grow to (bps; it creeps up 1 % a second), and when it last moved.
    private var drainCeiling: (bitrate: Double, at: Instant)? = nil
    /// Receiver clock to sender clock: the offset of the first arrival seen.
    private var clockOffsetUs: Int64? = nil
    private var lastUnwrappedReported: Int64 = -1
    /// Probing above a measured capacity (BandwidthEstimator+Probing.swift).
    var prober = Prober()
    /// A probe found the path unsaturated: the next one goes at once, higher.
    private var probeFurther = false

    public init(settings: Settings = Settings()) {
        self.settings = settings
        target = settings.startBitrate
        delayBased = settings.startBitrate
        lossBased = settings.maxBitrate
        rate = AimdRateControl(start: settings.startBitrate, min: settings.minBitrate, max: settings.maxBitrate)
    }

    /// Queueing above which a queue stands: the estimate grows no further,
    /// `senderBound` holds the sender under what the path carried, and the
    /// server counts a subscriber's downlink as congested.
    public static let standingQueue: Duration = .milliseconds(60)

    /// What a sender that follows this estimate (a publisher held by REMB)
    /// should be held to now: the target; while a queue of more than
    /// `standingQueue` stands, no more than what the path carried, less
    /// enough to drain the queue in a quarter to half a second (at most half off).
    /// The target comes down on its own too, but only after the detector and
    /// rate controller have seen enough groups, while the queue grows.
    public func senderBound() -> Int {
        let queued = queueingDelay
        guard queued > Self.standingQueue, let acked = acknowledgedBitrate else { return target }
        let drain = max(0.5, 1 - Double(queued.milliseconds) / 250)
        return min(target, Int(Double(acked) * drain))
    }

    /// A packet of `size` bytes goes on the transport at `now`: the
    /// transport-wide sequence number to write into it.
    public mutating func packetSent(size: Int, at now: Instant) -> UInt16 {
        let seq = history.add(size: size, at: now)
        prober.sent(history.sentCount - 1, at: now)
        return seq
    }

    /// Takes one feedback message received at `now`; `rtt` is the current
    /// round trip estimate. Updates `target`.
    public mutating func feedbackReceived(_ feedback: TransportFeedback, at now: Instant, rtt: Duration) {
        var results: [(send: Instant, arrivalUs: Int64?, size: Int)] = []
        results.reserveCapacity(feedback.packets.count)
        for p in feedback.packets {
            guard let sent = history.lookup(p.sequence), sent.seq > lastUnwrappedReported - 1000 else { continue }
            results.append((sent.at, p.arrivalUs, sent.size))
            prober.reported(sent.seq, send: sent.at, arrivalUs: p.arrivalUs, size: sent.size)
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
        // 60 ms it no longer grows.
        var verdict = usage
        // A trend without a queue behind it is noise (scheduling, not the path).
        if verdict == .overusing, queue.delay < .milliseconds(5) { verdict = .normal }
        // A probe's queue is its own doing: until its measurement is in and
        // a little after (its queue drains), a trend holds the rate instead of
        // cutting it (the measurement sets it).
        if verdict == .overusing, prober.cluster != nil || prober.settling(at: now) { verdict = .underusing }
        if verdict != .overusing, queue.delay > .milliseconds(200) {
            verdict = .overusing
            lastOveruse = now
        } else if verdict == .normal, queue.delay > Self.standingQueue {
            verdict = .underusing
        }
        // A decrease also drains what waits: 0.85 of the throughput, less the queue's share of a second.
        let queued = Double(queue.delay.nanosecondsClamped) / 1e9
        delayBased = rate.update(verdict, acknowledged: acknowledgedBitrate, now: now, rtt: rtt,
                                 beta: max(0.5, min(0.85, 1 - queued)), ceiling: growthCeiling)
        drainStandingQueue(now: now)
        if var c = drainCeiling {
            c.bitrate *= 1 + 0.01 * min(1, Double((now - c.at).nanosecondsClamped) / 1e9)
            c.at = now
            // The queue gone: the path has room again (or the sender keeps to its target).
            drainCeiling = queue.delay < .milliseconds(20) ? nil : c
            if let c = drainCeiling { delayBased = rate.limit(to: Int(c.bitrate)) }
        }
        updateLossBased(now: now, rtt: rtt)
        target = max(settings.minBitrate, min(delayBased, lossBased))
        probe(verdict, now: now)
    }

    /// A queue that stands above 80 ms and has not shrunk by a quarter in
    /// half a second, while the rate is already under what the receiver
    /// acknowledges: the sender puts out more than it is told (an encoder
    /// that overshoots, retransmissions), and decreases from the
    /// acknowledged throughput no longer lower the rate. The rate then
    /// comes down a further 10 % each such half second, to no less than
    /// 0.6 × the acknowledged throughput, until the queue drains; and it
    /// grows no further than where the last such cut left it, plus 1 % a
    /// second, until a probe finds that the path grew or the queueing delay
    /// falls under 20 ms: growth would only fill the queue again. (A
    /// throughput above the capacity known proves nothing here: the
    /// capacity may have been measured while the sender was held under it.)
    /// Only while `drainsStandingQueue`.
    private mutating func drainStandingQueue(now: Instant) {
        guard drainsStandingQueue, queue.delay > .milliseconds(80), let acked = acknowledgedBitrate, delayBased <= acked else {
            standingCheck = nil
            return
        }
        guard let last = standingCheck else {
            standingCheck = (now, queue.delay)
            return
        }
        guard now - last.at >= .milliseconds(500) else { return }
        standingCheck = (now, queue.delay)
        if queue.delay * 4 > last.delay * 3 {
            delayBased = rate.drain(to: max(delayBased * 9 / 10, acked * 6 / 10))
            drainCeiling = (Double(delayBased), now)
            lastOveruse = now
        }
    }

    /// Takes a finished probe's measurement, and starts the next probe:
    /// at once and higher after one that found room, else every
    /// `Prober.interval` while the media uses 70 % of the estimate or more
    /// and the estimate sits at a measured capacity or grows
    /// multiplicatively, with a short queue, little loss and no overuse in
    /// the last second.
    private mutating func probe(_ verdict: Usage, now: Instant) {
        if case .some(let measured) = prober.finish(reportedUpTo: lastUnwrappedReported, at: now) {
            probeFurther = false
            // The path carried the probe unsaturated, above the rate and 10 %
            // above the capacity known: the path grew, and the rate goes
            // there. A saturated measurement is the path's capacity: it
            // counts towards the capacity known, and when above its upper
            // bound (or none is known) the rate goes there too, scaled by
            // target / throughput when the sender puts out more than its
            // target (else the sender would overfill the path).
            if let m = measured {
                if m.saturated {
                    if m.bitrate > delayBased, Double(m.bitrate) > (rate.capacity.upperKbps ?? 0) * 1000 {
                        let scale = min(1, Double(target) / Double(max(1, acknowledgedBitrate ?? target)))
                        delayBased = rate.probed(Int(Double(m.bitrate) * scale), now: now)
                        target = max(settings.minBitrate, min(delayBased, lossBased))
                    }
                    rate.capacityMeasured(m.bitrate)
                } else if m.bitrate > delayBased, Double(m.bitrate) > 1.1 * (rate.capacity.kbps ?? 0) * 1000 {
                    delayBased = rate.probed(m.bitrate, now: now)
                    drainCeiling = nil
                    if lossBased < delayBased { lossBased = settings.maxBitrate }
                    target = max(settings.minBitrate, min(delayBased, lossBased))
                    probeFurther = true
                }
            }
        }
        guard prober.cluster == nil, probeFurther || prober.due(at: now), target < settings.maxBitrate else { return }
        let quiet = verdict == .normal && queue.delay < .milliseconds(50) && lossRatio < 0.05
            && (lastOveruse.map { now - $0 >= .seconds(1) } ?? true)
        // Worth a probe: the media uses most of the estimate (a sender that
        // uses less learns nothing from one), and the estimate sits at a
        // measured capacity or grows past one. The probe seeks twice the target.
        let using = (acknowledgedBitrate ?? 0) >= target * 7 / 10
        if probeFurther || (quiet && using && (rate.capacity.kbps != nil || rate.fastGrowthSince != nil)) {
            probeFurther = false
            prober.start(rate: min(settings.maxBitrate, 2 * target), at: now)
        }
    }

    /// The loss-based bound (GCC §6), over windows of at least half a second
    /// and 20 packets: above 10 % loss it falls to
    /// target × (1 − loss / 2), but not below 0.85 × the acknowledged
    /// throughput; below 2 % it rises by 8 % a second. Random
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
            // Never below 0.85 of what still gets through: what the path
            // carries is known, and the delay-based decrease already went there.
            let floor = (acknowledgedBitrate ?? 0) * 85 / 100
            lossBased = max(settings.minBitrate, floor, Int(Double(min(target, lossBased)) * (1 - lossRatio / 2)))
        } else if lossRatio < 0.02 || !congested {
            if lossBased < settings.maxBitrate {
                let seconds = min(1.0, Double(elapsed.nanosecondsClamped) / 1e9)
                lossBased = min(settings.maxBitrate, Int(Double(lossBased) * growth(0.08, over: seconds)) + 1000)
                // Without loss the bound gives way to the delay-based estimate.
                if lossBased > delayBased { lossBased = settings.maxBitrate }
            }
        }
    }
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
    /// Packets numbered so far (the next unwrapped number).
    var sentCount: Int64 { next }

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

/// The link's capacity as seen at overuse (libwebrtc's
/// LinkCapacityEstimator): a running mean of the acknowledged throughput
/// each time the delay detector saw overuse (each sample counts 5 %), and a
/// running variance normalised by the mean (kept within 0.4...2.5, about
/// 14 to 35 kbps of standard deviation at 500 kbps). Reset when the
/// throughput leaves mean ± 3 standard deviations: the path changed.
struct LinkCapacity: Sendable {
    /// The mean (kbps), once a sample came.
    private(set) var kbps: Double? = nil
    private var normalisedVariance = 0.4

    /// Three standard deviations (kbps).
    private var spread: Double { 3 * (normalisedVariance * (kbps ?? 0)).squareRoot() }
    /// Mean + 3σ (kbps).
    var upperKbps: Double? { kbps.map { $0 + spread } }
    /// Mean − 3σ (kbps).
    var lowerKbps: Double? { kbps.map { max(0, $0 - spread) } }

    /// Takes the throughput measured at an overuse (kbps); `weight` is how much it counts.
    mutating func add(_ sampleKbps: Double, weight: Double = 0.05) {
        guard let mean = kbps else {
            kbps = sampleKbps
            return
        }
        let updated = (1 - weight) * mean + weight * sampleKbps
        let error = updated - sampleKbps
        kbps = updated
        normalisedVariance = (1 - weight) * normalisedVariance + weight * error * error / max(updated, 1)
        normalisedVariance = min(2.5, max(0.4, normalisedVariance))
    }

    /// Forgets the capacity (the variance stays as learnt).
    mutating func reset() { kbps = nil }
}

/// Additive-increase / multiplicative-decrease rate control (GCC §5.5,
/// shaped like libwebrtc's AimdRateControl):
///
/// - overuse: the rate falls to β × what the receiver acknowledged (β is
///   0.85, less when a queue has to drain), straight there however far that
///   is, at most once per round trip; then it holds;
/// - normal, with a link capacity known (`LinkCapacity`): it grows by about
///   a packet per two round trips + 200 ms (additive: it creeps up to the
///   capacity it measured instead of overshooting it; probes find out
///   whether the path grew);
/// - normal, with no capacity known (at the start, or once the throughput
///   passed the capacity by 3σ: the path grew): it grows multiplicatively,
///   8 % a second at first and 8 points more for every second the growth
///   lasts, up to 40 % a second, so a link that grew from 500 kbps to
///   2 Mbps is found in about 6 s rather than 18;
/// - it never grows past 1.5 × the acknowledged throughput + 10 kbps (a
///   sender that uses little learns nothing of the path); that cap never
///   lowers the rate.
struct AimdRateControl: Sendable {
    enum State { case hold, increase, decrease }
    private(set) var current: Int
    private let minimum: Int
    private let maximum: Int
    private var state: State = .increase
    private var lastUpdate: Instant? = nil
    private var lastDecrease: Instant? = nil
    /// The capacity measured at overuse.
    private(set) var capacity = LinkCapacity()
    /// Since when the rate has grown multiplicatively with no capacity known
    /// (nil: it has not, or a decrease or the capacity stopped it).
    private(set) var fastGrowthSince: Instant? = nil
    /// Multiplicative growth per second at first, its rise per second of growth, and its most.
    static let growthStart = 0.08
    static let growthRise = 0.08
    static let growthMost = 0.40

    init(start: Int, min: Int, max: Int) {
        current = start
        minimum = min
        maximum = max
    }

    /// The rate after one verdict at `now` (bps). `acknowledged` is the
    /// receiver's measured throughput (bps), `beta` the decrease factor,
    /// `ceiling` a rate growth may reach whatever the throughput.
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
            increase(acknowledged: acknowledged, now: now, elapsed: elapsed, rtt: rtt, ceiling: ceiling)
        case .decrease:
            decrease(acknowledged: acknowledged, now: now, rtt: rtt, beta: beta)
            state = .hold
        }
        current = min(max(current, minimum), maximum)
        return current
    }

    private mutating func increase(acknowledged: Int?, now: Instant, elapsed: Duration, rtt: Duration, ceiling: Int?) {
        let before = current
        let seconds = min(1.0, Double(elapsed.nanosecondsClamped) / 1e9)
        if let a = acknowledged, let upper = capacity.upperKbps, Double(a) / 1000 > upper {
            capacity.reset()  // the link grew: the old capacity no longer holds
        }
        if capacity.kbps != nil {
            fastGrowthSince = nil
            current += Int(Self.additivePerSecond(current, rtt: rtt) * seconds)
        } else {
            let since = fastGrowthSince ?? now
            fastGrowthSince = since
            let growing = Double((now - since).nanosecondsClamped) / 1e9
            let perSecond = min(Self.growthMost, Self.growthStart + Self.growthRise * growing)
            current = Int(Double(current) * growth(perSecond, over: seconds)) + 1000
        }
        // Growth stops at 1.5 × the acknowledged throughput; the cap never lowers the rate.
        if let a = acknowledged { current = min(current, max(before, a * 3 / 2 + 10_000, ceiling ?? 0)) }
    }

    /// Near the capacity: about one packet of a 30-per-second stream at
    /// `rate` (at most 1200 bytes) per two round trips + 200 ms (the time the
    /// detector takes to answer, twice), at least 4 kbps a second.
    static func additivePerSecond(_ rate: Int, rtt: Duration) -> Double {
        let frameBytes = Double(rate) / 8 / 30
        let packetBytes = frameBytes / max(1, (frameBytes / 1200).rounded(.up))
        let response = 2 * Double((rtt + .milliseconds(100)).nanosecondsClamped) / 1e9
        return max(4000, packetBytes * 8 / response)
    }

    /// The rate is kept at or under `bitrate` (bps), whatever the state.
    mutating func limit(to bitrate: Int) -> Int {
        current = max(minimum, min(current, bitrate))
        return current
    }

    /// A standing queue: the rate comes down to `bitrate` (bps) if under it, and holds.
    mutating func drain(to bitrate: Int) -> Int {
        current = max(minimum, min(current, bitrate))
        state = .hold
        fastGrowthSince = nil
        return current
    }

    /// A probe the path carried unsaturated at `bitrate` (bps), above the
    /// rate and the capacity known: the rate goes there at once, and the old
    /// capacity no longer holds.
    mutating func probed(_ bitrate: Int, now: Instant) -> Int {
        current = min(max(current, bitrate), maximum)
        state = .increase
        capacity.reset()
        fastGrowthSince = now
        return current
    }

    /// A probe saturated the path at `bitrate` (bps): a capacity sample
    /// that counts half (libwebrtc's weight for probes).
    mutating func capacityMeasured(_ bitrate: Int) {
        capacity.add(Double(bitrate) / 1000, weight: 0.5)
    }

    private mutating func decrease(acknowledged: Int?, now: Instant, rtt: Duration, beta: Double) {
        fastGrowthSince = nil
        guard lastDecrease.map({ now - $0 > max(rtt, .milliseconds(100)) }) ?? true else { return }
        lastDecrease = now
        let base = acknowledged ?? current
        current = min(current, Int(Double(base) * beta))
        let kbps = Double(base) / 1000
        // Far under the capacity measured: the path shrank, so the new throughput starts afresh.
        if let lower = capacity.lowerKbps, kbps < lower { capacity.reset() }
        capacity.add(kbps)
    }
}

/// (1 + `perSecond`) to the power `seconds` (for 0...1 s), without Foundation.
@inline(__always)
func growth(_ perSecond: Double, over seconds: Double) -> Double {
    // exp(x · ln(1 + r)) with a short series; ln(1 + r) by its series too (r ≤ 0.4, x ≤ 1).
    let r = perSecond
    let ln = r - r * r / 2 + r * r * r / 3 - r * r * r * r / 4 + r * r * r * r * r / 5
    let y = seconds * ln
    return 1 + y + y * y / 2 + y * y * y / 6 + y * y * y * y / 24
}
