/// The fixed RTP header (RFC 3550 §5.1) and where the payload starts, read in
/// place from a packet buffer. Extensions (RFC 8285) and CSRCs are skipped
/// over; their bytes stay in the packet.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|X|  CC   |M|     PT      |       sequence number         |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                           timestamp                           |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |           synchronization source (SSRC) identifier            |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
public struct RtpHeader: Sendable, Equatable {
    public var marker: Bool
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    /// Offset of the payload from the start of the packet.
    public var payloadOffset: Int
    /// Bytes of padding at the end (P bit).
    public var paddingLength: Int

    /// A header to serialize (no CSRCs, no extension).
    public init(marker: Bool, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.payloadOffset = 12
        self.paddingLength = 0
    }

    /// Reads the header of an RTP packet. Throws for packets too short for what
    /// their header announces, or a version other than 2.
    public static func parse(_ p: UnsafeRawBufferPointer) throws(WireError) -> RtpHeader {
        guard p.count >= 12 else { throw .truncated }
        guard p[0] >> 6 == 2 else { throw .malformed("RTP version") }
        let csrcCount = Int(p[0] & 0x0F)
        var offset = 12 + 4 * csrcCount
        guard p.count >= offset else { throw .truncated }
        if p[0] & 0x10 != 0 {
            guard p.count >= offset + 4 else { throw .truncated }
            let words = Int(p[offset + 2]) << 8 | Int(p[offset + 3])
            offset += 4 + 4 * words
            guard p.count >= offset else { throw .truncated }
        }
        var padding = 0
        if p[0] & 0x20 != 0 {
            padding = Int(p[p.count - 1])
            guard padding > 0, offset + padding <= p.count else { throw .malformed("RTP padding") }
        }
        var h = RtpHeader(marker: p[1] & 0x80 != 0, payloadType: p[1] & 0x7F,
                          sequenceNumber: UInt16(p[2]) << 8 | UInt16(p[3]),
                          timestamp: readU32(p, 4), ssrc: readU32(p, 8))
        h.payloadOffset = offset
        h.paddingLength = padding
        return h
    }

    /// The 12-byte fixed header.
    public var serialized: [UInt8] {
        [0x80, (marker ? 0x80 : 0) | (payloadType & 0x7F), UInt8(sequenceNumber >> 8), UInt8(sequenceNumber & 0xFF),
         UInt8(timestamp >> 24), UInt8(timestamp >> 16 & 0xFF), UInt8(timestamp >> 8 & 0xFF), UInt8(timestamp & 0xFF),
         UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF)]
    }

    /// Overwrites the SSRC of an RTP packet in place.
    public static func rewriteSsrc(_ p: UnsafeMutableRawBufferPointer, _ ssrc: UInt32) {
        p[8] = UInt8(ssrc >> 24)
        p[9] = UInt8(ssrc >> 16 & 0xFF)
        p[10] = UInt8(ssrc >> 8 & 0xFF)
        p[11] = UInt8(ssrc & 0xFF)
    }
}

/// What a datagram on the media port is (RFC 7983 §7, RFC 5761 §4).
public enum MediaPacketKind: Sendable, Equatable {
    case stun
    case rtp
    case rtcp
    /// A DTLS record (first byte 20...63, RFC 7983 §7): a browser's DTLS-SRTP handshake.
    case dtls
    case unknown

    /// Classifies by the first two bytes.
    public static func classify(_ p: UnsafeRawBufferPointer) -> MediaPacketKind {
        guard p.count >= 2 else { return .unknown }
        let b0 = p[0]
        if b0 < 4 { return StunMessage.isStun(p) ? .stun : .unknown }
        if b0 >= 20 && b0 <= 63 { return .dtls }
        guard b0 >= 128 && b0 <= 191 else { return .unknown }
        // RTCP packet types 192–223 occupy the whole second byte (no marker bit).
        let pt = p[1]
        return (pt >= 192 && pt <= 223) ? .rtcp : .rtp
    }
}

/// A big-endian u32 at `offset`.
@inline(__always)
func readU32(_ p: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
    UInt32(p[offset]) << 24 | UInt32(p[offset + 1]) << 16 | UInt32(p[offset + 2]) << 8 | UInt32(p[offset + 3])
}

/// The SSRC of the sender of an RTCP packet (the second word of every RTCP packet, RFC 3550 §6.4).
public func rtcpSenderSsrc(_ p: UnsafeRawBufferPointer) throws(WireError) -> UInt32 {
    guard p.count >= 8 else { throw .truncated }
    guard p[0] >> 6 == 2 else { throw .malformed("RTCP version") }
    return readU32(p, 4)
}
