/// A compound RTCP datagram (RFC 3550 §6.1): packets back to back, each
/// with its own header and length. Two ways in:
///
/// - walked in place, allocation-free: each element is one packet's type,
///   FMT, position and bytes, to be read with `Member.parse()` when wanted.
///   The walk stops at the first packet whose length runs past the end,
///   which makes the datagram malformed (`isWellFormed`).
/// - `RtcpCompound.parse(_:)`: every packet as an `RtcpPacket`, or an error.
///
/// The rule that a compound starts with an SR or RR is not enforced:
/// feedback travels alone (reduced-size RTCP, RFC 5506).
public struct RtcpCompound: Sequence {
    let bytes: UnsafeRawBufferPointer

    /// A view over a plain (unprotected) RTCP datagram.
    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// One packet of the datagram, in place.
    public struct Member {
        public let type: RtcpPacketType
        /// The header's five-bit count: the FMT of feedback messages.
        public let format: UInt8
        /// Where the packet starts in the datagram, and its size in bytes.
        public let offset: Int
        public let length: Int
        /// The packet's bytes (a view into the datagram).
        public let bytes: UnsafeRawBufferPointer

        /// The packet as a typed value.
        public func parse() throws(WireError) -> RtcpPacket { try RtcpPacket.parse(bytes) }
    }

    /// Whether every packet is version 2 and the lengths add up to the datagram.
    public var isWellFormed: Bool {
        var end = 0
        for p in self {
            guard p.bytes[0] >> 6 == 2 else { return false }
            end = p.offset + p.length
        }
        return end == bytes.count && end > 0
    }

    /// The first packet, if the datagram holds a whole one.
    public var leading: Member? {
        var it = makeIterator()
        return it.next()
    }

    public struct Iterator: IteratorProtocol {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        public mutating func next() -> Member? {
            guard offset + 4 <= bytes.count else { return nil }
            let words = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let length = (words + 1) * 4
            guard offset + length <= bytes.count else { return nil }
            defer { offset += length }
            return Member(type: RtcpPacketType(rawValue: bytes[offset + 1]), format: bytes[offset] & 0x1F,
                          offset: offset, length: length,
                          bytes: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]))
        }
    }

    public func makeIterator() -> Iterator { Iterator(bytes: bytes) }

    // MARK: - Typed

    /// Every packet of the datagram `p`. Throws unless the datagram is well
    /// formed (`isWellFormed`) and each packet reads as its type.
    public static func parse(_ p: UnsafeRawBufferPointer) throws(WireError) -> [RtcpPacket] {
        let compound = RtcpCompound(p)
        guard compound.isWellFormed else {
            throw p.count < 4 ? .truncated : .malformed("RTCP lengths do not add up to the datagram")
        }
        var out: [RtcpPacket] = []
        for m in compound { out.append(try m.parse()) }
        return out
    }

    /// Every packet of the datagram `bytes`.
    public static func parse(_ bytes: [UInt8]) throws(WireError) -> [RtcpPacket] {
        try withRaw(bytes) { raw throws(WireError) in try parse(raw) }
    }

    /// Bytes `serialize(_:into:)` writes for `packets`.
    public static func encodedSize(_ packets: [RtcpPacket]) -> Int { packets.reduce(0) { $0 + $1.encodedSize } }

    /// Writes `packets` back to back at the start of `out` (at least
    /// `encodedSize(packets)` bytes); returns the bytes written.
    public static func serialize(_ packets: [RtcpPacket], into out: UnsafeMutableRawBufferPointer) -> Int {
        var at = 0
        for p in packets { at += p.serialize(into: UnsafeMutableRawBufferPointer(rebasing: out[at...])) }
        return at
    }

    /// The datagram of `packets` followed by `trailer` zero bytes, in one allocation.
    public static func serialized(_ packets: [RtcpPacket], trailer: Int = 0) -> [UInt8] {
        let n = encodedSize(packets)
        return [UInt8](unsafeUninitializedCapacity: n + trailer) { buffer, count in
            _ = serialize(packets, into: UnsafeMutableRawBufferPointer(buffer))
            for i in n..<(n + trailer) { buffer[i] = 0 }
            count = n + trailer
        }
    }
}
