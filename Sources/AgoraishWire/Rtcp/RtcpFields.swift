// The field-level reading and writing every RTCP packet type shares: the
// checks on a packet's header and padding, a bounds-checked big-endian
// reader, and a writer sized from `encodedSize`.

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
