/// Receiver estimated maximum bitrate, REMB (draft-alvestrand-rmcat-remb-03):
/// the server tells a publisher how much its subscribers' downlinks can take
/// of the streams named. An application-layer feedback message (PSFB, PT 206,
/// FMT 15) marked by the four octets "REMB":
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P| FMT=15  |   PT=206      |             length            |
///     |                  SSRC of packet sender                        |
///     |                  SSRC of media source (0)                     |
///     |  Unique identifier 'R' 'E' 'M' 'B'                            |
///     |  Num SSRC     | BR Exp    |  BR Mantissa                      |
///     |   SSRC feedback ...                                           |
///
/// The bitrate is mantissa · 2^exp bps with an 18-bit mantissa, so writing
/// rounds it down to 18 significant bits. Writing takes the first 255 SSRCs.
public struct Remb: RtcpMessage {
    public static let packetType = RtcpPacketType.payloadSpecificFeedback
    public static let format: UInt8 = 15
    /// "REMB".
    static let identifier: UInt32 = 0x5245_4D42

    public var sender: Ssrc
    /// 0 by the draft; kept as read.
    public var media: Ssrc
    /// Bits per second.
    public var bitrate: Int
    /// The streams the limit is about.
    public var ssrcs: [Ssrc]

    public init(sender: Ssrc, media: Ssrc = .none, bitrate: Int, ssrcs: [Ssrc]) {
        self.sender = sender
        self.media = media
        self.bitrate = bitrate
        self.ssrcs = ssrcs
    }

    /// Whether the packet at the start of `p` is an application-layer
    /// feedback message marked "REMB" (other AFB messages share its FMT).
    public static func isRemb(_ p: UnsafeRawBufferPointer) -> Bool {
        guard p.count >= 16, p[1] == packetType.rawValue, p[0] & 0x1F == format else { return false }
        return readBE32(p, 12) == identifier
    }

    public static func parse(_ p: UnsafeRawBufferPointer) throws(WireError) -> Remb {
        var c = try RtcpContent(p, type: packetType, format: format)
        let sender = try c.reader.ssrc(), media = try c.reader.ssrc()
        guard try c.reader.u32() == identifier else { throw .malformed("AFB message is not REMB") }
        let count = Int(try c.reader.u8())
        let field = try c.reader.u24()
        let exponent = Int(field >> 18), mantissa = Int(field & 0x3FFFF)
        // A cap past 2^58 bps means nothing; larger exponents are refused.
        guard exponent <= 40 else { throw .malformed("REMB exponent \(exponent)") }
        var ssrcs: [Ssrc] = []
        ssrcs.reserveCapacity(count)
        for _ in 0..<count { ssrcs.append(try c.reader.ssrc()) }
        return Remb(sender: sender, media: media, bitrate: mantissa << exponent, ssrcs: ssrcs)
    }

    public var encodedSize: Int { 20 + 4 * min(ssrcs.count, 255) }

    public func serialize(into out: UnsafeMutableRawBufferPointer) -> Int {
        var mantissa = UInt64(max(0, bitrate)), exponent: UInt64 = 0
        while mantissa > 0x3FFFF {
            mantissa >>= 1
            exponent += 1
        }
        let list = ssrcs.prefix(255)
        var w = RtcpWriter(out, count: Self.format, type: Self.packetType, packetSize: encodedSize)
        w.ssrc(sender)
        w.ssrc(media)
        w.u32(Self.identifier)
        w.u8(UInt8(list.count))
        w.u24(UInt32(exponent << 18 | mantissa))
        for s in list { w.ssrc(s) }
        return w.offset
    }
}
