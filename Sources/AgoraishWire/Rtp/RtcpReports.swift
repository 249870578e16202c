/// What the project does with sender and receiver reports (RFC 3550 §6.4),
/// sans-IO: the NTP clock they carry and the round trip read from an answer
/// (§6.4.1: RTT = arrival - LSR - DLSR). The packets themselves are
/// `SenderReport`, `ReceiverReport` and `ReportBlock` (Rtcp/).
public enum RtcpReport {
    /// An NTP timestamp (RFC 5905): seconds since 1900 in the high 32 bits.
    public static func ntp(unixNanoseconds ns: Int64) -> UInt64 {
        let seconds = UInt64(ns / 1_000_000_000) + 2_208_988_800
        let fraction = UInt64(ns % 1_000_000_000) << 32 / 1_000_000_000
        return seconds << 32 | fraction
    }

    /// The middle 32 bits of an NTP timestamp (LSR, DLSR units: 1/65536 s).
    public static func middle(_ ntp: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: ntp >> 16) }

    /// The round trip a block reports, read at `arrivalNtp`; nil without an SR to refer to.
    public static func roundTrip(_ b: ReportBlock, arrivalNtp: UInt64) -> Duration? {
        guard b.lastSR != 0 else { return nil }
        let units = Int64(Int32(bitPattern: middle(arrivalNtp) &- b.lastSR &- b.delaySinceLastSR))
        guard units >= 0 else { return .zero }
        return .nanoseconds(units * 1_000_000_000 / 65536)
    }
}

/// What arrived of one RTP stream, for receiver reports and loss figures
/// (RFC 3550 §6.4.1, appendix A.3): sequence numbers extended over wraps,
/// packets received, and both at the last report.
public struct SequenceCounter: Sendable {
    private var first: Int64? = nil
    private var highest: Int64 = 0
    /// Packets counted so far.
    public private(set) var received = 0
    private var reported = (expected: 0, received: 0)

    public init() {}

    /// Counts a packet with `sequence`.
    public mutating func count(_ sequence: UInt16) {
        received += 1
        guard first != nil else {
            first = Int64(sequence)
            highest = Int64(sequence)
            return
        }
        var ext = (highest & ~0xFFFF) | Int64(sequence)
        if ext < highest - 0x8000 { ext += 0x10000 } else if ext > highest + 0x8000 { ext -= 0x10000 }
        highest = max(highest, ext)
    }

    /// Packets expected so far: from the first sequence number to the highest.
    public var expected: Int { first.map { Int(highest - $0 + 1) } ?? 0 }

    /// The fraction lost (of 256) since the last report, the cumulative loss
    /// and the extended highest sequence number, for a report block.
    public mutating func report() -> (fraction: UInt8, cumulative: Int32, highest: UInt32) {
        guard first != nil else { return (0, 0, 0) }
        let e = expected - reported.expected, r = received - reported.received
        reported = (expected, received)
        let fraction = e > 0 ? UInt8(min(255, max(0, e - r) * 256 / e)) : 0
        return (fraction, Int32(clamping: max(0, expected - received)), UInt32(truncatingIfNeeded: highest))
    }
}
