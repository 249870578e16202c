/// The packets of a compound RTCP datagram (RFC 3550 §6.1), walked in place:
/// each element is (packet type, byte offset, byte length). Stops at the first
/// packet whose length runs past the end, which makes the datagram malformed.
public struct RtcpCompound: Sequence {
    let bytes: UnsafeRawBufferPointer

    /// A view over a plain (unprotected) RTCP datagram.
    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Whether every packet is version 2 and the lengths add up to the datagram.
    public var isWellFormed: Bool {
        var end = 0
        for p in self {
            guard bytes[p.offset] >> 6 == 2 else { return false }
            end = p.offset + p.length
        }
        return end == bytes.count && end > 0
    }

    public struct Iterator: IteratorProtocol {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        public mutating func next() -> (type: UInt8, offset: Int, length: Int)? {
            guard offset + 4 <= bytes.count else { return nil }
            let words = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let length = (words + 1) * 4
            guard offset + length <= bytes.count else { return nil }
            defer { offset += length }
            return (bytes[offset + 1], offset, length)
        }
    }

    public func makeIterator() -> Iterator { Iterator(bytes: bytes) }
}
