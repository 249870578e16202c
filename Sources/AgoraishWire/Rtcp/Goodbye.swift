/// A goodbye, BYE (RFC 3550 §6.6): the sources named are leaving, with an
/// optional reason.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|    SC   |   PT=BYE=203  |             length            |
///     |                           SSRC/CSRC                           |
///     :                              ...                              :
///     |     length    |               reason for leaving            ...
///
/// The reason, when present, is padded with nulls to a word boundary. An
/// empty reason is not written. Writing takes the first 31 sources and the
/// first 255 octets of the reason.
public struct Goodbye: RtcpMessage {
    public var sources: [Ssrc]
    /// Why the sources leave (UTF-8 by the RFC; kept as bytes); empty for none.
    public var reason: [UInt8]

    public init(sources: [Ssrc], reason: [UInt8] = []) {
        self.sources = sources
        self.reason = reason
    }

    /// The most sources one packet names (the count is five bits).
    public static let maxSources = 31

    public static func parse(_ p: UnsafeRawBufferPointer) throws(WireError) -> Goodbye {
        var c = try RtcpContent(p, type: .goodbye)
        var bye = Goodbye(sources: [])
        bye.sources.reserveCapacity(Int(c.header.count))
        for _ in 0..<c.header.count { bye.sources.append(try c.reader.ssrc()) }
        if c.reader.remaining > 0 {
            let length = Int(try c.reader.u8())
            bye.reason = try c.reader.bytes(length)
        }
        return bye
    }

    public var encodedSize: Int {
        4 + 4 * min(sources.count, Self.maxSources) + (reason.isEmpty ? 0 : wordAligned(1 + min(reason.count, 255)))
    }

    public func serialize(into out: UnsafeMutableRawBufferPointer) -> Int {
        let list = sources.prefix(Self.maxSources)
        var w = RtcpWriter(out, count: UInt8(list.count), type: .goodbye, packetSize: encodedSize)
        for s in list { w.ssrc(s) }
        if !reason.isEmpty {
            let n = min(reason.count, 255)
            w.u8(UInt8(n))
            w.bytes(reason.prefix(n))
            w.padToWord()
        }
        return w.offset
    }
}
