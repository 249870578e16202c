/// Probing for capacity above the estimate (GCC's probing, after
/// libwebrtc's ProbeController and ProbeBitrateEstimator), sans-IO.
///
/// A delay-based estimate that sits at the capacity it measured grows by
/// about a packet per round trip; when the path grows (a cap lifts), that
/// alone would take tens of seconds to find out. So every `interval`, while
/// the estimate sits at a measured capacity with no queue and no loss, the
/// sender sends for `duration` at twice the target (media plus padding: a
/// cluster). The feedback on the cluster's packets gives the rate the path
/// carried them at:
///
/// - send rate: the cluster's bytes but the last packet's, over the time
///   from its first packet to its last;
/// - receive rate: its bytes that arrived but the first arrival's, over
///   the time from the first arrival to the last;
/// - the measurement is the smaller of the two, or 0.95 × the receive rate
///   when that is under 0.9 × the send rate (the path was saturated: this
///   is its capacity).
///
/// The estimator takes a measurement above the capacity it knew as the new
/// estimate, and while the path was not saturated probes again at once at
/// twice that, so a cap that lifted from 500 kbps to 2 Mbps is found in
/// two or three clusters.
struct Prober: Sendable {
    /// One cluster: packets sent from `start` to `end`.
    struct Cluster: Sendable {
        /// The rate sought (bps).
        var rate: Int
        var start: Instant
        var end: Instant
        /// Padding handed out so far (bytes).
        var padded = 0
        /// The cluster's first and last transport-wide numbers (unwrapped).
        var first: Int64? = nil
        var last: Int64? = nil
        /// Reported packets: send time, arrival (receiver's clock, µs; nil: lost), size.
        var reports: [(send: Instant, arrivalUs: Int64?, size: Int)] = []
    }

    /// What a finished cluster measured.
    struct Measurement: Equatable, Sendable {
        /// bps.
        var bitrate: Int
        /// The path carried less than was sent: `bitrate` is its capacity.
        var saturated: Bool
    }

    /// How often a probe may start while the estimate sits at a measured capacity.
    static let interval: Duration = .seconds(5)
    /// How long a cluster lasts.
    static let duration: Duration = .milliseconds(80)
    /// Fewest packets of a cluster that must arrive for a measurement.
    static let minimumArrived = 5
    /// The least padding handed out at once (bytes): a packet's worth.
    static let minimumPadding = 200
    /// How long after its end a cluster's feedback is awaited.
    static let patience: Duration = .seconds(1)

    /// How long after a cluster's measurement its queue is taken to drain.
    static let settle: Duration = .milliseconds(300)

    /// The cluster under way or awaiting its feedback.
    private(set) var cluster: Cluster? = nil
    /// When the last cluster's measurement came.
    private var finishedAt: Instant? = nil
    /// The earliest a periodic probe may start.
    private var nextAt: Instant? = nil

    /// Whether padding is due now or soon (the shell polls `padding` every few ms meanwhile).
    func sending(at now: Instant) -> Bool { cluster.map { now < $0.end } ?? false }

    /// Whether the last cluster's queue may still be draining at `now`.
    func settling(at now: Instant) -> Bool { finishedAt.map { now - $0 < Self.settle } ?? false }

    /// Whether a periodic probe may start at `now`.
    func due(at now: Instant) -> Bool { cluster == nil && (nextAt.map { now >= $0 } ?? true) }

    /// Starts a cluster at `rate` (bps) at `now`.
    mutating func start(rate: Int, at now: Instant) {
        cluster = Cluster(rate: rate, start: now, end: now + Self.duration)
        nextAt = now + Self.interval
    }

    /// Padding (bytes) due at `now` for the cluster under way: what the
    /// media at `target` leaves of the cluster's rate so far, handed out in
    /// pieces of at least `minimumPadding` (the first at once).
    mutating func padding(at now: Instant, target: Int) -> Int {
        guard var c = cluster, now < c.end else { return 0 }
        let seconds = Double((now - c.start).nanosecondsClamped) / 1e9
        let due = Int(Double(max(0, c.rate - target)) / 8 * seconds) + Self.minimumPadding
        let bytes = due - c.padded
        guard bytes >= Self.minimumPadding else { return 0 }
        c.padded += bytes
        cluster = c
        return bytes
    }

    /// The packet numbered `seq` (unwrapped) left at `now`.
    mutating func sent(_ seq: Int64, at now: Instant) {
        guard var c = cluster, now >= c.start, now < c.end else { return }
        if c.first == nil { c.first = seq }
        c.last = seq
        cluster = c
    }

    /// Feedback on the packet numbered `seq` (unwrapped).
    mutating func reported(_ seq: Int64, send: Instant, arrivalUs: Int64?, size: Int) {
        guard var c = cluster, let first = c.first, let last = c.last, seq >= first, seq <= last else { return }
        c.reports.append((send, arrivalUs, size))
        cluster = c
    }

    /// Once the cluster has ended and its last packet was reported (or the
    /// feedback took too long): what it measured (nil: nothing usable), and
    /// the cluster is done.
    mutating func finish(reportedUpTo highest: Int64, at now: Instant) -> Measurement?? {
        guard let c = cluster, now >= c.end else { return nil }
        let complete = c.last.map { highest >= $0 } ?? false
        guard complete || now - c.end > Self.patience else { return nil }
        cluster = nil
        finishedAt = now
        return .some(Self.measure(c))
    }

    private static func measure(_ c: Cluster) -> Measurement? {
        let bySend = c.reports.sorted { $0.send < $1.send }
        let arrived = c.reports.compactMap { r in r.arrivalUs.map { (at: $0, size: r.size) } }.sorted { $0.at < $1.at }
        guard arrived.count >= minimumArrived, let firstSend = bySend.first, let lastSend = bySend.last,
              let firstArrival = arrived.first, let lastArrival = arrived.last else { return nil }
        let sendSeconds = Double((lastSend.send - firstSend.send).nanosecondsClamped) / 1e9
        let receiveSeconds = Double(lastArrival.at - firstArrival.at) / 1e6
        guard sendSeconds > 0, receiveSeconds > 0, sendSeconds < 1, receiveSeconds < 1 else { return nil }
        let sendRate = Double(bySend.reduce(0) { $0 + $1.size } - lastSend.size) * 8 / sendSeconds
        let receiveRate = Double(arrived.reduce(0) { $0 + $1.size } - firstArrival.size) * 8 / receiveSeconds
        // Arrivals squeezed together are a measuring artefact, not capacity.
        guard receiveRate <= 2 * sendRate else { return nil }
        if receiveRate < 0.9 * sendRate { return Measurement(bitrate: Int(0.95 * receiveRate), saturated: true) }
        return Measurement(bitrate: Int(min(sendRate, receiveRate)), saturated: false)
    }
}

extension BandwidthEstimator {
    /// Padding (bytes) to send at `now` for a probe under way, on top of
    /// the media; 0 when none is due. The shell sends it at once, as
    /// padding-only or probe packets of any size, each through
    /// `packetSent`, and calls this again every few milliseconds while
    /// `probing` says so.
    public mutating func probePadding(at now: Instant) -> Int {
        prober.padding(at: now, target: target)
    }

    /// Whether a probe cluster is being sent at `now` (`probePadding` is due).
    public func probing(at now: Instant) -> Bool { prober.sending(at: now) }
}
