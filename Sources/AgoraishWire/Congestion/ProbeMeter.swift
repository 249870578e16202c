/// What one direction of a last-mile probe measured (docs/network.md,
/// Last-mile probe): probe packets numbered in order, each with when it was
/// sent (on the sender's clock) and, if it arrived, when (on the receiver's).
/// Sans-IO: the caller adds packets as it learns of them.
///
/// - loss: the share of numbers from the first to the last heard of that
///   never arrived (losses after the last arrival cannot be told from late packets);
/// - jitter: RFC 3550 §6.4.1's interarrival jitter, J += (|D| − J) / 16 with D
///   the change in transit time between consecutive arrivals;
/// - available bandwidth: bytes that arrived after the first, over the time
///   from the first arrival to the last. The prober sends at the rate the
///   caller expects, so this is that rate when the path carries it, and the
///   bottleneck's rate when it does not.
public struct ProbeMeter: Sendable {
    private var packets: [Int64: (sentUs: Int64, arrivalUs: Int64?, size: Int)] = [:]

    public init() {}

    /// Packet `sequence` (unwrapped, increasing) of `size` bytes was sent at
    /// `sentUs` and arrived at `arrivalUs` (nil: lost, or not known to have arrived).
    public mutating func add(sequence: Int64, sentUs: Int64, arrivalUs: Int64?, size: Int) {
        if let old = packets[sequence], old.arrivalUs != nil, arrivalUs == nil { return }
        packets[sequence] = (sentUs, arrivalUs, size)
    }

    public struct Result: Equatable, Sendable {
        /// Percent, 0...100.
        public var lossPercent: Int
        /// Milliseconds.
        public var jitterMs: Int
        /// Bits per second (0 when fewer than two packets arrived).
        public var bandwidthBps: Int
    }

    /// The figures so far; nil when nothing arrived.
    public var result: Result? {
        let arrived = packets.filter { $0.value.arrivalUs != nil }
        guard let first = arrived.keys.min(), let last = arrived.keys.max() else { return nil }
        let span = Int(last - first + 1)
        let lost = span - arrived.count
        // Jitter over arrivals in sending order.
        var jitter = 0.0
        var previousTransit: Int64? = nil
        for seq in arrived.keys.sorted() {
            let p = arrived[seq]!
            let transit = p.arrivalUs! - p.sentUs
            if let t = previousTransit { jitter += (Double(abs(transit - t)) - jitter) / 16 }
            previousTransit = transit
        }
        let times = arrived.values.map { $0.arrivalUs! }
        let start = times.min()!, end = times.max()!
        let firstPacket = arrived.min { $0.value.arrivalUs! < $1.value.arrivalUs! }!
        let bytes = arrived.values.reduce(0) { $0 + $1.size } - firstPacket.value.size
        let bandwidth = end > start ? Int(Double(bytes) * 8 * 1e6 / Double(end - start)) : 0
        return Result(lossPercent: Int((Double(lost) * 100 / Double(span)).rounded()),
                      jitterMs: Int((jitter / 1000).rounded()), bandwidthBps: bandwidth)
    }
}

/// Probe packets (docs/media-plane.md): RTP with payload type 127, the
/// transport-wide number in the header extension, the send time in
/// microseconds (low 32 bits) as the RTP timestamp, and a zero payload that
/// makes the packet `size` bytes.
public enum ProbePacket {
    public static let payloadType = PayloadType.probe.rawValue
    public static let size = 1200

    public static func make(ssrc: UInt32, sequence: UInt16, sentUs: Int64, size: Int = ProbePacket.size) -> [UInt8] {
        var p = RtpHeader(marker: false, payloadType: payloadType, sequenceNumber: sequence,
                          timestamp: UInt32(truncatingIfNeeded: sentUs), ssrc: ssrc).serialized
        p[0] |= 0x10
        p += [0xBE, 0xDE, 0, 1, TransportFeedback.extensionId << 4 | 1, 0, 0, 0]
        p += [UInt8](repeating: 0, count: max(0, size - p.count))
        return p
    }
}
