/// RTCP sender and receiver reports (RFC 3550 §6.4), sans-IO: what the engine
/// sends for each of its streams, what the server answers, and the round
/// trip read from the answer (§6.4.1: RTT = arrival - LSR - DLSR).
public enum RtcpReport {
    /// An NTP timestamp (RFC 5905): seconds since 1900 in the high 32 bits.
    public static func ntp(unixNanoseconds ns: Int64) -> UInt64 {
        let seconds = UInt64(ns / 1_000_000_000) + 2_208_988_800
        let fraction = UInt64(ns % 1_000_000_000) << 32 / 1_000_000_000
        return seconds << 32 | fraction
    }

    /// The middle 32 bits of an NTP timestamp (LSR, DLSR units: 1/65536 s).
    public static func middle(_ ntp: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: ntp >> 16) }

    /// A sender report without report blocks.
    public static func senderReport(ssrc: UInt32, ntp: UInt64, rtpTimestamp: UInt32, packets: UInt32,
                                    octets: UInt32) -> [UInt8] {
        var out: [UInt8] = [0x80, 200, 0, 6]
        out += be32(ssrc) + be32(UInt32(truncatingIfNeeded: ntp >> 32)) + be32(UInt32(truncatingIfNeeded: ntp))
        out += be32(rtpTimestamp) + be32(packets) + be32(octets)
        return out
    }

    /// What a sender report says: (sender SSRC, NTP timestamp). Nil unless `p`
    /// is one whole SR packet of at least 28 bytes.
    public static func parseSenderReport(_ p: UnsafeRawBufferPointer) -> (ssrc: UInt32, ntp: UInt64)? {
        guard p.count >= 28, p[0] >> 6 == 2, p[1] == 200 else { return nil }
        return (readBE32(p, 4), UInt64(readBE32(p, 8)) << 32 | UInt64(readBE32(p, 12)))
    }

    /// One report block of a receiver report.
    public struct Block: Equatable, Sendable {
        public var ssrc: UInt32
        /// Fraction lost since the last report, of 256.
        public var fractionLost: UInt8
        public var cumulativeLost: Int32
        public var highestSequence: UInt32
        public var jitter: UInt32
        /// The middle 32 bits of the last SR's NTP time, and the delay since it (1/65536 s).
        public var lastSR: UInt32
        public var delaySinceLastSR: UInt32

        public init(ssrc: UInt32, fractionLost: UInt8 = 0, cumulativeLost: Int32 = 0, highestSequence: UInt32 = 0,
                    jitter: UInt32 = 0, lastSR: UInt32 = 0, delaySinceLastSR: UInt32 = 0) {
            self.ssrc = ssrc
            self.fractionLost = fractionLost
            self.cumulativeLost = cumulativeLost
            self.highestSequence = highestSequence
            self.jitter = jitter
            self.lastSR = lastSR
            self.delaySinceLastSR = delaySinceLastSR
        }
    }

    /// A receiver report from `sender` with up to 31 blocks.
    public static func receiverReport(sender: UInt32, blocks: [Block]) -> [UInt8] {
        let b = blocks.prefix(31)
        var out: [UInt8] = [0x80 | UInt8(b.count), 201]
        let words = 1 + 6 * b.count
        out += [UInt8(words >> 8), UInt8(words & 0xFF)] + be32(sender)
        for x in b {
            let lost = UInt32(bitPattern: max(-0x80_0000, min(0x7F_FFFF, x.cumulativeLost))) & 0xFF_FFFF
            out += be32(x.ssrc) + be32(UInt32(x.fractionLost) << 24 | lost) + be32(x.highestSequence)
            out += be32(x.jitter) + be32(x.lastSR) + be32(x.delaySinceLastSR)
        }
        return out
    }

    /// The report blocks of one RR or SR packet (`p` is that packet alone).
    public static func blocks(_ p: UnsafeRawBufferPointer) -> [Block] {
        guard p.count >= 8, p[0] >> 6 == 2, p[1] == 200 || p[1] == 201 else { return [] }
        let count = Int(p[0] & 0x1F)
        var at = p[1] == 200 ? 28 : 8
        var out: [Block] = []
        for _ in 0..<count {
            guard at + 24 <= p.count else { break }
            let w = readBE32(p, at + 4)
            var lost = Int32(bitPattern: w & 0xFF_FFFF)
            if lost & 0x80_0000 != 0 { lost -= 0x100_0000 }
            out.append(Block(ssrc: readBE32(p, at), fractionLost: UInt8(w >> 24), cumulativeLost: lost,
                             highestSequence: readBE32(p, at + 8), jitter: readBE32(p, at + 12),
                             lastSR: readBE32(p, at + 16), delaySinceLastSR: readBE32(p, at + 20)))
            at += 24
        }
        return out
    }

    /// The round trip a block reports, read at `arrivalNtp`; nil without an SR to refer to.
    public static func roundTrip(_ b: Block, arrivalNtp: UInt64) -> Duration? {
        guard b.lastSR != 0 else { return nil }
        let units = Int64(Int32(bitPattern: middle(arrivalNtp) &- b.lastSR &- b.delaySinceLastSR))
        guard units >= 0 else { return .zero }
        return .nanoseconds(units * 1_000_000_000 / 65536)
    }

    private static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
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
