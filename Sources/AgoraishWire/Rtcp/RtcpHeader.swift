/// RTCP packet types (RFC 3550 §12.1, RFC 4585 §6.1).
public struct RtcpPacketType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number in the header's second byte.
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// SR (RFC 3550 §6.4.1).
    public static let senderReport = RtcpPacketType(rawValue: 200)
    /// RR (RFC 3550 §6.4.2).
    public static let receiverReport = RtcpPacketType(rawValue: 201)
    /// SDES (RFC 3550 §6.5).
    public static let sourceDescription = RtcpPacketType(rawValue: 202)
    /// BYE (RFC 3550 §6.6).
    public static let goodbye = RtcpPacketType(rawValue: 203)
    /// APP (RFC 3550 §6.7).
    public static let application = RtcpPacketType(rawValue: 204)
    /// RTPFB, transport-layer feedback (RFC 4585 §6.2): generic NACK, transport-wide feedback.
    public static let transportLayerFeedback = RtcpPacketType(rawValue: 205)
    /// PSFB, payload-specific feedback (RFC 4585 §6.3): PLI, FIR, REMB.
    public static let payloadSpecificFeedback = RtcpPacketType(rawValue: 206)

    public var description: String { String(rawValue) }
}

/// The header every RTCP packet starts with (RFC 3550 §6.4.1):
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|  count  |      PT       |             length            |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// `count` is the report count of SR and RR, the source count of SDES and
/// BYE, and the feedback message type (FMT) of RTPFB and PSFB. `length` is
/// the packet's size in 32-bit words minus one, header and padding included.
public struct RtcpHeader: Equatable, Sendable {
    /// The P bit: the packet ends in padding whose last octet counts it.
    public var padding: Bool
    /// The five-bit count or FMT field.
    public var count: UInt8
    public var type: RtcpPacketType
    /// The whole packet in bytes, header and padding included (a multiple of 4).
    public var packetSize: Int

    public static let size = 4

    public init(padding: Bool = false, count: UInt8, type: RtcpPacketType, packetSize: Int) {
        self.padding = padding
        self.count = count
        self.type = type
        self.packetSize = packetSize
    }

    /// The header of the packet at the start of `p`. Throws unless the
    /// version is 2 and the packet the length announces fits in `p`.
    public static func parse(_ p: UnsafeRawBufferPointer) throws(WireError) -> RtcpHeader {
        guard p.count >= size else { throw .truncated }
        guard p[0] >> 6 == 2 else { throw .malformed("RTCP version") }
        let packetSize = (Int(p[2]) << 8 | Int(p[3]) + 1) * 4
        guard packetSize <= p.count else { throw .truncated }
        return RtcpHeader(padding: p[0] & 0x20 != 0, count: p[0] & 0x1F, type: RtcpPacketType(rawValue: p[1]),
                          packetSize: packetSize)
    }

    /// Writes the header into the first four bytes of `out`.
    public func serialize(into out: UnsafeMutableRawBufferPointer) -> Int {
        precondition(packetSize % 4 == 0 && packetSize >= 4 && packetSize <= 0x40000 && count < 32,
                     "an RTCP packet is 4...262144 bytes in whole words, with a five-bit count")
        let words = packetSize / 4 - 1
        out[0] = 0x80 | (padding ? 0x20 : 0) | count
        out[1] = type.rawValue
        out[2] = UInt8(words >> 8)
        out[3] = UInt8(words & 0xFF)
        return Self.size
    }
}
