/// A source description, SDES (RFC 3550 §6.5): items (CNAME above all)
/// that describe each source, one chunk per source.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|    SC   |  PT=SDES=202  |             length            |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |                          SSRC/CSRC_1                          |
///     |    type (1)   |     length    | text (length octets) ...      |
///     |      ...      |  0 (end)      | 0 to the next 32-bit boundary |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |                          SSRC/CSRC_2 ...                      |
///
/// Each chunk's items end with at least one null octet, then nulls up to a
/// word boundary (§6.5). Writing takes the first 31 chunks and the first 255
/// octets of each item.
public struct SourceDescription: RtcpMessage {
    /// One SDES item: its type and its text (UTF-8 by the RFC; kept as bytes).
    public struct Item: Equatable, Sendable {
        public var type: UInt8
        public var value: [UInt8]

        public init(type: UInt8, value: [UInt8]) {
            self.type = type
            self.value = value
        }

        /// A CNAME item with `text`.
        public static func cname(_ text: String) -> Item { Item(type: cnameType, value: Array(text.utf8)) }

        /// Item types (RFC 3550 §6.5.1–§6.5.8).
        public static let cnameType: UInt8 = 1
        public static let nameType: UInt8 = 2
        public static let emailType: UInt8 = 3
        public static let phoneType: UInt8 = 4
        public static let locationType: UInt8 = 5
        public static let toolType: UInt8 = 6
        public static let noteType: UInt8 = 7
        public static let privateType: UInt8 = 8

        var encodedSize: Int { 2 + min(value.count, 255) }
    }

    /// The items about one source.
    public struct Chunk: Equatable, Sendable {
        public var source: Ssrc
        public var items: [Item]

        public init(source: Ssrc, items: [Item]) {
            self.source = source
            self.items = items
        }

        /// The CNAME of the source, if the chunk has one.
        public var cname: String? {
            items.first { $0.type == Item.cnameType }.map { String(decoding: $0.value, as: UTF8.self) }
        }

        /// The SSRC, the items, the null that ends them and the nulls up to a word.
        var encodedSize: Int { 4 + wordAligned(items.reduce(0) { $0 + $1.encodedSize } + 1) }
    }

    public var chunks: [Chunk]

    public init(chunks: [Chunk]) { self.chunks = chunks }

    /// The most chunks one packet holds (the count is five bits).
    public static let maxChunks = 31

    public static func parse(_ p: UnsafeRawBufferPointer) throws(WireError) -> SourceDescription {
        var c = try RtcpContent(p, type: .sourceDescription)
        var chunks: [Chunk] = []
        chunks.reserveCapacity(Int(c.header.count))
        for _ in 0..<c.header.count {
            let start = c.reader.offset
            var chunk = Chunk(source: try c.reader.ssrc(), items: [])
            while true {
                let type = try c.reader.u8()
                if type == 0 { break }
                let length = Int(try c.reader.u8())
                chunk.items.append(Item(type: type, value: try c.reader.bytes(length)))
            }
            // The nulls after the end of the items, up to the chunk's last word.
            let used = c.reader.offset - start
            try c.reader.skip(wordAligned(used) - used)
            chunks.append(chunk)
        }
        return SourceDescription(chunks: chunks)
    }

    public var encodedSize: Int { 4 + chunks.prefix(Self.maxChunks).reduce(0) { $0 + $1.encodedSize } }

    public func serialize(into out: UnsafeMutableRawBufferPointer) -> Int {
        let list = chunks.prefix(Self.maxChunks)
        var w = RtcpWriter(out, count: UInt8(list.count), type: .sourceDescription, packetSize: encodedSize)
        for chunk in list {
            w.ssrc(chunk.source)
            for item in chunk.items {
                let n = min(item.value.count, 255)
                w.u8(item.type)
                w.u8(UInt8(n))
                w.bytes(item.value.prefix(n))
            }
            w.u8(0)
            w.padToWord()
        }
        return w.offset
    }
}
