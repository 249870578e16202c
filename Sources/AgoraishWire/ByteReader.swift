/// Reads little- or big-endian fields from a byte buffer with a bounds check
/// on every read: running past the end throws `WireError.truncated`.
public struct ByteReader {
    /// The bytes being read.
    public let bytes: [UInt8]
    /// Index of the next unread byte.
    public private(set) var offset: Int

    /// A reader over `bytes`, starting at `offset`.
    public init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// Bytes not read yet.
    public var remaining: Int { bytes.count - offset }
    /// Whether every byte has been read.
    public var isAtEnd: Bool { offset >= bytes.count }

    /// The next `count` bytes.
    public mutating func read(_ count: Int) throws(WireError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw .truncated }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// A u8.
    public mutating func u8() throws(WireError) -> UInt8 { try read(1).first! }

    /// A little-endian u16.
    public mutating func u16le() throws(WireError) -> UInt16 {
        let b = try read(2)
        return UInt16(b[b.startIndex]) | UInt16(b[b.startIndex + 1]) << 8
    }

    /// A little-endian u32.
    public mutating func u32le() throws(WireError) -> UInt32 {
        let b = try read(4)
        var v: UInt32 = 0
        for i in (0..<4).reversed() { v = v << 8 | UInt32(b[b.startIndex + i]) }
        return v
    }

    /// A little-endian i16.
    public mutating func i16le() throws(WireError) -> Int16 { Int16(bitPattern: try u16le()) }

    /// A u16 length, then that many bytes.
    public mutating func lengthPrefixed16() throws(WireError) -> [UInt8] {
        let n = Int(try u16le())
        return Array(try read(n))
    }
}

/// Appends little-endian fields to a byte buffer.
public struct ByteWriter {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer.
    public init() {}

    /// Appends raw bytes.
    public mutating func write<C: Collection>(_ data: C) where C.Element == UInt8 { bytes.append(contentsOf: data) }
    /// Appends a little-endian u16.
    public mutating func u16le(_ v: UInt16) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    /// Appends a little-endian u32.
    public mutating func u32le(_ v: UInt32) {
        bytes += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
    }
    /// Appends a u16 length and the bytes. The caller keeps `data` under 65536 bytes.
    public mutating func lengthPrefixed16<C: Collection>(_ data: C) where C.Element == UInt8 {
        precondition(data.count <= 0xFFFF, "a u16-prefixed field holds at most 65535 bytes")
        u16le(UInt16(data.count))
        write(data)
    }
}

/// The big-endian 32-bit value at byte `o` of `b` (RTP and RTCP fields); the caller checks the bounds.
@inline(__always)
public func readBE32(_ b: UnsafeRawBufferPointer, _ o: Int) -> UInt32 {
    UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3])
}
