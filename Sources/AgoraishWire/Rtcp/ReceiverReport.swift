/// A receiver report, RR (RFC 3550 §6.4.2): reception reports from a
/// participant that sends nothing itself (or nothing it reports on here).
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|    RC   |   PT=RR=201   |             length            |
///     |                     SSRC of packet sender                     |
///     |                 report blocks (RC × 24 bytes)                 |
///     |                  profile-specific extensions                  |
///
/// Writing takes the first `ReportBlock.maxPerPacket` blocks.
public struct ReceiverReport: RtcpMessage {
    /// The reporter (0 when the server reports: it has no SSRC of its own).
    public var ssrc: Ssrc
    public var reports: [ReportBlock]
    /// Profile-specific extensions after the blocks, whole words, kept as they are.
    public var profileExtensions: [UInt8]

    public init(ssrc: Ssrc, reports: [ReportBlock] = [], profileExtensions: [UInt8] = []) {
        self.ssrc = ssrc
        self.reports = reports
        self.profileExtensions = profileExtensions
    }

    public static func parse(_ p: UnsafeRawBufferPointer) throws(WireError) -> ReceiverReport {
        var c = try RtcpContent(p, type: .receiverReport)
        var rr = ReceiverReport(ssrc: try c.reader.ssrc())
        rr.reports.reserveCapacity(Int(c.header.count))
        for _ in 0..<c.header.count { rr.reports.append(try ReportBlock.read(&c.reader)) }
        guard c.reader.remaining % 4 == 0 else { throw .malformed("RR extensions are whole words") }
        rr.profileExtensions = c.reader.rest()
        return rr
    }

    public var encodedSize: Int {
        8 + ReportBlock.size * min(reports.count, ReportBlock.maxPerPacket) + wordAligned(profileExtensions.count)
    }

    public func serialize(into out: UnsafeMutableRawBufferPointer) -> Int {
        let blocks = reports.prefix(ReportBlock.maxPerPacket)
        var w = RtcpWriter(out, count: UInt8(blocks.count), type: .receiverReport, packetSize: encodedSize)
        w.ssrc(ssrc)
        for b in blocks { b.write(&w) }
        w.bytes(profileExtensions)
        w.padToWord()
        return w.offset
    }
}
