/// A generic NACK (RFC 4585 §6.2.1): transport-layer feedback (RTPFB, PT
/// 205, FMT 1) asking the media source for the RTP packets it names again.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|  FMT=1  |    PT=205     |             length            |
///     |                     SSRC of packet sender                     |
///     |                      SSRC of media source                     |
///     |            PID                |             BLP               |
///     :                 more (PID, BLP) pairs ...                     :
///
/// Each pair names the packet PID and, bit i of BLP set, PID + i + 1.
public struct GenericNack: RtcpMessage {
    /// One FCI entry: a sequence number and a bitmask of the 16 after it.
    public struct Pair: Equatable, Sendable {
        public var pid: UInt16
        public var blp: UInt16

        public init(pid: UInt16, blp: UInt16) {
            self.pid = pid
            self.blp = blp
        }
    }

    public static let format: UInt8 = 1

    /// The asker (0 for the server, which has no SSRC of its own).
    public var sender: Ssrc
    /// The stream whose packets are asked for.
    public var media: Ssrc
    public var pairs: [Pair]

    public init(sender: Ssrc, media: Ssrc, pairs: [Pair]) {
        self.sender = sender
        self.media = media
        self.pairs = pairs
    }

    /// The NACK that names exactly `sequences` (duplicates once), in
    /// sequence order across a wrap from the first one; each pair covers its
    /// PID and what follows within 16.
    public init(sender: Ssrc, media: Ssrc, sequences: [UInt16]) {
        var pairs: [Pair] = []
        // Sorted in sequence order across a wrap: by distance from the first.
        let base = sequences.first ?? 0
        for s in Set(sequences).sorted(by: { $0 &- base < $1 &- base }) {
            if let last = pairs.last, case let d = s &- last.pid, d >= 1, d <= 16 {
                pairs[pairs.count - 1].blp |= 1 << (d - 1)
            } else {
                pairs.append(Pair(pid: s, blp: 0))
            }
        }
        self.init(sender: sender, media: media, pairs: pairs)
    }

    /// Every sequence number the pairs name, pair by pair.
    public var sequences: [UInt16] {
        var out: [UInt16] = []
        out.reserveCapacity(pairs.count)
        for p in pairs {
            out.append(p.pid)
            for bit in 0..<16 where p.blp & (1 << bit) != 0 { out.append(p.pid &+ UInt16(bit + 1)) }
        }
        return out
    }

    public static func parse(_ p: UnsafeRawBufferPointer) throws(WireError) -> GenericNack {
        var c = try RtcpContent(p, type: .transportLayerFeedback, format: format)
        var nack = GenericNack(sender: try c.reader.ssrc(), media: try c.reader.ssrc(), pairs: [])
        guard c.reader.remaining % 4 == 0 else { throw .malformed("NACK FCI in whole pairs") }
        nack.pairs.reserveCapacity(c.reader.remaining / 4)
        while c.reader.remaining > 0 { nack.pairs.append(Pair(pid: try c.reader.u16(), blp: try c.reader.u16())) }
        return nack
    }

    public var encodedSize: Int { 12 + 4 * pairs.count }

    public func serialize(into out: UnsafeMutableRawBufferPointer) -> Int {
        var w = RtcpWriter(out, count: Self.format, type: .transportLayerFeedback, packetSize: encodedSize)
        w.ssrc(sender)
        w.ssrc(media)
        for p in pairs {
            w.u16(p.pid)
            w.u16(p.blp)
        }
        return w.offset
    }
}
