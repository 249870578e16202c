/// A full intra request, FIR (RFC 5104 §4.3.1): payload-specific feedback
/// (PSFB, PT 206, FMT 4) asking for a decoder refresh point. Unlike a PLI it
/// names its streams in the FCI, each with a command sequence number that
/// tells a repeated request from a new one; the header's media SSRC is 0.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|  FMT=4  |    PT=206     |             length            |
///     |                     SSRC of packet sender                     |
///     |                 SSRC of media source (unused, 0)              |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                              SSRC                             |
///     | Seq nr.       |    Reserved                                   |
///     :                     more entries ...                          :
public struct FullIntraRequest: RtcpMessage {
    /// One FCI entry: the stream asked for and the request's sequence number.
    public struct Entry: Equatable, Sendable {
        public var ssrc: Ssrc
        public var sequence: UInt8

        public init(ssrc: Ssrc, sequence: UInt8) {
            self.ssrc = ssrc
            self.sequence = sequence
        }
    }

    public static let format: UInt8 = 4

    public var sender: Ssrc
    /// The header's media SSRC: 0 by RFC 5104 §4.3.1.2, kept as read.
    public var media: Ssrc
    /// At least one entry (§4.3.1.2).
    public var entries: [Entry]

    public init(sender: Ssrc, media: Ssrc = .none, entries: [Entry]) {
        self.sender = sender
        self.media = media
        self.entries = entries
    }

    public static func parse(_ p: UnsafeRawBufferPointer) throws(WireError) -> FullIntraRequest {
        var c = try RtcpContent(p, type: .payloadSpecificFeedback, format: format)
        var fir = FullIntraRequest(sender: try c.reader.ssrc(), media: try c.reader.ssrc(), entries: [])
        guard c.reader.remaining >= 8, c.reader.remaining % 8 == 0 else { throw .malformed("FIR FCI in whole entries") }
        fir.entries.reserveCapacity(c.reader.remaining / 8)
        while c.reader.remaining > 0 {
            fir.entries.append(Entry(ssrc: try c.reader.ssrc(), sequence: try c.reader.u8()))
            try c.reader.skip(3)
        }
        return fir
    }

    public var encodedSize: Int { 12 + 8 * entries.count }

    public func serialize(into out: UnsafeMutableRawBufferPointer) -> Int {
        var w = RtcpWriter(out, count: Self.format, type: .payloadSpecificFeedback, packetSize: encodedSize)
        w.ssrc(sender)
        w.ssrc(media)
        for e in entries {
            w.ssrc(e.ssrc)
            w.u8(e.sequence)
            w.u24(0)
        }
        return w.offset
    }
}
