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

/// One RTCP packet type as a value: read from the bytes of one packet,
/// written back to them. Every conforming type lives in its own file.
public protocol RtcpMessage: Equatable, Sendable {
    /// Reads the packet at the start of `p` (bytes after the length its
    /// header announces are not read). Throws for another packet type, a
    /// truncated packet or fields that break the RFC's rules.
    static func parse(_ p: UnsafeRawBufferPointer) throws(WireError) -> Self
    /// Bytes `serialize(into:)` writes.
    var encodedSize: Int { get }
    /// Writes the packet at the start of `out` (at least `encodedSize`
    /// bytes) and returns `encodedSize`.
    func serialize(into out: UnsafeMutableRawBufferPointer) -> Int
}

extension RtcpMessage {
    /// The packet's bytes.
    public var bytes: [UInt8] { serialized(trailer: 0) }

    /// The packet's bytes followed by `trailer` zero bytes (room for the
    /// SRTCP trailer when the packet is protected in place), in one allocation.
    public func serialized(trailer: Int) -> [UInt8] {
        let n = encodedSize
        return [UInt8](unsafeUninitializedCapacity: n + trailer) { buffer, count in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            let written = serialize(into: raw)
            precondition(written == n, "serialize(into:) writes encodedSize bytes")
            for i in n..<(n + trailer) { buffer[i] = 0 }
            count = n + trailer
        }
    }

    /// Reads the packet at the start of `bytes`.
    public static func parse(_ bytes: [UInt8]) throws(WireError) -> Self {
        try withRaw(bytes) { raw throws(WireError) in try Self.parse(raw) }
    }
}

/// Calls `body` with the bytes of `array`, keeping `body`'s typed error.
func withRaw<R>(_ array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(WireError) -> R) throws(WireError) -> R {
    var result: Result<R, WireError>!
    array.withUnsafeBytes { raw in
        result = Result { () throws(WireError) -> R in try body(raw) }
    }
    return try result.get()
}

/// The content of one RTCP packet: its header, and the bytes after the
/// header up to the padding (RFC 3550 §6.4.1: the last octet of the padding
/// counts it, itself included).
struct RtcpContent {
    let header: RtcpHeader
    var reader: RtcpReader

    /// Opens the packet at the start of `p`, which must be of `type` and, when
    /// given, have `format` in its count field.
    init(_ p: UnsafeRawBufferPointer, type: RtcpPacketType, format: UInt8? = nil) throws(WireError) {
        header = try RtcpHeader.parse(p)
        guard header.type == type else { throw .malformed("RTCP packet type \(header.type), expected \(type)") }
        if let format, header.count != format { throw .malformed("RTCP FMT \(header.count), expected \(format)") }
        var end = header.packetSize
        if header.padding {
            let pad = Int(p[end - 1])
            guard pad > 0, pad <= end - RtcpHeader.size else { throw .malformed("RTCP padding") }
            end -= pad
        }
        reader = RtcpReader(UnsafeRawBufferPointer(rebasing: p[RtcpHeader.size..<end]))
    }
}

/// Reads big-endian fields in place with a bounds check on every read:
/// running past the end throws `WireError.truncated`.
struct RtcpReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func u8() throws(WireError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() throws(WireError) -> UInt16 {
        guard remaining >= 2 else { throw .truncated }
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    mutating func u24() throws(WireError) -> UInt32 {
        guard remaining >= 3 else { throw .truncated }
        defer { offset += 3 }
        return UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
    }

    mutating func u32() throws(WireError) -> UInt32 {
        guard remaining >= 4 else { throw .truncated }
        defer { offset += 4 }
        return readBE32(bytes, offset)
    }

    mutating func ssrc() throws(WireError) -> Ssrc { Ssrc(try u32()) }

    mutating func skip(_ n: Int) throws(WireError) {
        guard n >= 0, remaining >= n else { throw .truncated }
        offset += n
    }

    mutating func bytes(_ n: Int) throws(WireError) -> [UInt8] {
        guard n >= 0, remaining >= n else { throw .truncated }
        defer { offset += n }
        return Array(bytes[offset..<(offset + n)])
    }

    /// Everything not read yet.
    mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }
}

/// Writes big-endian fields in place. The caller sized the buffer from
/// `encodedSize`, so running past its end is a bug in this module and traps.
struct RtcpWriter {
    let out: UnsafeMutableRawBufferPointer
    private(set) var offset = 0

    init(_ out: UnsafeMutableRawBufferPointer) { self.out = out }

    /// Starts a packet with its header.
    init(_ out: UnsafeMutableRawBufferPointer, count: UInt8, type: RtcpPacketType, packetSize: Int) {
        precondition(out.count >= packetSize, "the buffer holds encodedSize bytes")
        self.out = out
        offset = RtcpHeader(count: count, type: type, packetSize: packetSize).serialize(into: out)
    }

    mutating func u8(_ v: UInt8) {
        out[offset] = v
        offset += 1
    }

    mutating func u16(_ v: UInt16) {
        out[offset] = UInt8(v >> 8)
        out[offset + 1] = UInt8(v & 0xFF)
        offset += 2
    }

    mutating func u24(_ v: UInt32) {
        out[offset] = UInt8(v >> 16 & 0xFF)
        out[offset + 1] = UInt8(v >> 8 & 0xFF)
        out[offset + 2] = UInt8(v & 0xFF)
        offset += 3
    }

    mutating func u32(_ v: UInt32) {
        out[offset] = UInt8(v >> 24)
        out[offset + 1] = UInt8(v >> 16 & 0xFF)
        out[offset + 2] = UInt8(v >> 8 & 0xFF)
        out[offset + 3] = UInt8(v & 0xFF)
        offset += 4
    }

    mutating func ssrc(_ s: Ssrc) { u32(s.rawValue) }

    mutating func bytes<C: Collection>(_ data: C) where C.Element == UInt8 {
        for b in data {
            out[offset] = b
            offset += 1
        }
    }

    /// Zero bytes up to the next multiple of four.
    mutating func padToWord() {
        while offset % 4 != 0 { u8(0) }
    }
}

/// `n` rounded up to a whole number of 32-bit words.
@inline(__always)
func wordAligned(_ n: Int) -> Int { (n + 3) & ~3 }
