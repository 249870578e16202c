/// A sender report, SR (RFC 3550 §6.4.1): what a sender has sent, stamped
/// with its wall clock (NTP) and media clock (RTP timestamp) at one instant,
/// and reception reports on what it receives.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|    RC   |   PT=SR=200   |             length            |
///     |                         SSRC of sender                        |
///     |              NTP timestamp, most significant word             |
///     |             NTP timestamp, least significant word             |
///     |                         RTP timestamp                         |
///     |                     sender's packet count                     |
///     |                      sender's octet count                     |
///     |                 report blocks (RC × 24 bytes)                 |
///     |                  profile-specific extensions                  |
///
/// Writing takes the first `ReportBlock.maxPerPacket` blocks. What the
/// project does with SRs (RTT, the server's answers) is in `RtcpReport`.
public struct SenderReport: RtcpMessage {
    public var ssrc: Ssrc
    /// The wall clock when the report was made, NTP format (RFC 5905): seconds since 1900 in the high 32 bits.
    public var ntpTime: UInt64
    /// The same instant on the stream's media clock.
    public var rtpTimestamp: UInt32
    /// RTP packets sent since the stream began (mod 2³²).
    public var packetCount: UInt32
    /// Payload octets sent since the stream began (mod 2³²).
    public var octetCount: UInt32
    public var reports: [ReportBlock]
    /// Profile-specific extensions after the blocks, whole words, kept as they are.
    public var profileExtensions: [UInt8]

    public init(ssrc: Ssrc, ntpTime: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
                reports: [ReportBlock] = [], profileExtensions: [UInt8] = []) {
        self.ssrc = ssrc
        self.ntpTime = ntpTime
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = reports
        self.profileExtensions = profileExtensions
    }

    public static func parse(_ p: UnsafeRawBufferPointer) throws(WireError) -> SenderReport {
        var c = try RtcpContent(p, type: .senderReport)
        var sr = SenderReport(ssrc: try c.reader.ssrc(), ntpTime: UInt64(try c.reader.u32()) << 32 | UInt64(try c.reader.u32()),
                              rtpTimestamp: try c.reader.u32(), packetCount: try c.reader.u32(), octetCount: try c.reader.u32())
        sr.reports.reserveCapacity(Int(c.header.count))
        for _ in 0..<c.header.count { sr.reports.append(try ReportBlock.read(&c.reader)) }
        guard c.reader.remaining % 4 == 0 else { throw .malformed("SR extensions are whole words") }
        sr.profileExtensions = c.reader.rest()
        return sr
    }

    public var encodedSize: Int {
        28 + ReportBlock.size * min(reports.count, ReportBlock.maxPerPacket) + wordAligned(profileExtensions.count)
    }

    public func serialize(into out: UnsafeMutableRawBufferPointer) -> Int {
        let blocks = reports.prefix(ReportBlock.maxPerPacket)
        var w = RtcpWriter(out, count: UInt8(blocks.count), type: .senderReport, packetSize: encodedSize)
        w.ssrc(ssrc)
        w.u32(UInt32(truncatingIfNeeded: ntpTime >> 32))
        w.u32(UInt32(truncatingIfNeeded: ntpTime))
        w.u32(rtpTimestamp)
        w.u32(packetCount)
        w.u32(octetCount)
        for b in blocks { b.write(&w) }
        w.bytes(profileExtensions)
        w.padToWord()
        return w.offset
    }
}
