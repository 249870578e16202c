/// One reception report block of an SR or RR (RFC 3550 §6.4.1): what the
/// reporter received of one source since its last report.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |                 SSRC_1 (SSRC of first source)                 |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     | fraction lost |       cumulative number of packets lost       |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |           extended highest sequence number received           |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                      interarrival jitter                      |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         last SR (LSR)                         |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                   delay since last SR (DLSR)                  |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
public struct ReportBlock: Equatable, Sendable {
    /// The source reported on.
    public var ssrc: Ssrc
    /// The fraction lost since the last report, of 256.
    public var fractionLost: UInt8
    /// Packets lost since reception began: 24 bits signed on the wire,
    /// clamped to -8388608...8388607 when written.
    public var cumulativeLost: Int32
    /// The highest sequence number received, extended by the count of wraps.
    public var highestSequence: UInt32
    /// Interarrival jitter in timestamp units.
    public var jitter: UInt32
    /// The middle 32 bits of the last SR's NTP time (1/65536 s), 0 before any.
    public var lastSR: UInt32
    /// The delay from that SR to this report (1/65536 s).
    public var delaySinceLastSR: UInt32

    /// Bytes of one block.
    public static let size = 24

    public init(ssrc: Ssrc, fractionLost: UInt8 = 0, cumulativeLost: Int32 = 0, highestSequence: UInt32 = 0,
                jitter: UInt32 = 0, lastSR: UInt32 = 0, delaySinceLastSR: UInt32 = 0) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.highestSequence = highestSequence
        self.jitter = jitter
        self.lastSR = lastSR
        self.delaySinceLastSR = delaySinceLastSR
    }

    static func read(_ r: inout RtcpReader) throws(WireError) -> ReportBlock {
        let ssrc = try r.ssrc()
        let fraction = try r.u8()
        var lost = Int32(bitPattern: try r.u24())
        if lost & 0x80_0000 != 0 { lost -= 0x100_0000 }
        return ReportBlock(ssrc: ssrc, fractionLost: fraction, cumulativeLost: lost, highestSequence: try r.u32(),
                           jitter: try r.u32(), lastSR: try r.u32(), delaySinceLastSR: try r.u32())
    }

    func write(_ w: inout RtcpWriter) {
        w.ssrc(ssrc)
        w.u8(fractionLost)
        w.u24(UInt32(bitPattern: max(-0x80_0000, min(0x7F_FFFF, cumulativeLost))) & 0xFF_FFFF)
        w.u32(highestSequence)
        w.u32(jitter)
        w.u32(lastSR)
        w.u32(delaySinceLastSR)
    }

    /// The most blocks one SR or RR holds (the count is five bits); writers
    /// send the first this many.
    public static let maxPerPacket = 31
}
