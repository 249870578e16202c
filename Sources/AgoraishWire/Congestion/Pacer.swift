/// A leaky-bucket pacer, sans-IO: video packets wait in a queue and leave at
/// the pacing rate (2.5 × the target, libwebrtc's pacing factor), so a
/// keyframe's burst is spread over a few tens of milliseconds instead of
/// filling the bottleneck's queue at once. When the queue would take longer
/// than `maxQueueTime` (counted from when its oldest packet came) to drain
/// at that rate, the rate rises to drain it in that time (the queue must not
/// become the delay).
///
/// `enqueue` packets with their size, call `poll(now)` when `nextSend`
/// comes: it returns the packets allowed out now, oldest first.
public struct Pacer<Packet>: Sendable where Packet: Sendable {
    /// The pacing rate is the target times this.
    public static var pacingFactor: Double { 2.5 }
    /// The longest the queue may take to drain.
    public static var maxQueueTime: Duration { .milliseconds(500) }
    /// How far ahead of the rate a burst may go (one interval's worth).
    public static var interval: Duration { .milliseconds(5) }

    private var queue: [(packet: Packet, size: Int, at: Instant)] = []
    private var head = 0
    private var queuedBytes = 0
    /// Bytes that may still leave now (negative: sent ahead of the rate).
    private var budget: Double = 0
    private var lastPoll: Instant? = nil
    /// The rate packets leave at (bps).
    public private(set) var pacingRate: Int

    /// A pacer for a target of `targetBitrate` bps.
    public init(targetBitrate: Int) {
        pacingRate = Int(Double(targetBitrate) * Self.pacingFactor)
    }

    /// The target changed.
    public mutating func setTarget(_ bitrate: Int) { pacingRate = max(1, Int(Double(bitrate) * Self.pacingFactor)) }

    public var isEmpty: Bool { head == queue.count }

    /// How long the oldest packet has waited.
    public func oldestWait(at now: Instant) -> Duration { isEmpty ? .zero : now - queue[head].at }

    public mutating func enqueue(_ packet: Packet, size: Int, at now: Instant) {
        queue.append((packet, size, now))
        queuedBytes += size
    }

    /// The rate in effect: the pacing rate, or faster when what waits would
    /// not be gone by the time the oldest packet has waited `maxQueueTime`.
    private func effectiveRate(at now: Instant) -> Double {
        let left = max(0.05, Double((Self.maxQueueTime - oldestWait(at: now)).nanosecondsClamped) / 1e9)
        return max(Double(pacingRate), Double(queuedBytes * 8) / left)
    }

    /// The packets that may leave at `now`, oldest first.
    public mutating func poll(now: Instant) -> [Packet] {
        let rate = effectiveRate(at: now)
        if let last = lastPoll {
            let seconds = Double((now - last).nanosecondsClamped) / 1e9
            // Unused budget does not pile up beyond one interval.
            let cap = rate / 8 * Double(Self.interval.nanosecondsClamped) / 1e9
            budget = min(cap, budget + rate / 8 * seconds)
        } else {
            budget = rate / 8 * Double(Self.interval.nanosecondsClamped) / 1e9
        }
        lastPoll = now
        var out: [Packet] = []
        while head < queue.count, budget > 0 {
            let e = queue[head]
            head += 1
            budget -= Double(e.size)
            queuedBytes -= e.size
            out.append(e.packet)
        }
        if head > 64 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return out
    }

    /// When the next packet may leave (nil: nothing waits).
    public func nextSend(after now: Instant) -> Instant? {
        guard !isEmpty else { return nil }
        if budget > 0 { return now }
        let seconds = -budget * 8 / effectiveRate(at: now)
        return now + .nanoseconds(max(1_000_000, Int64(seconds * 1e9)))
    }
}
