/// Transport-wide congestion control feedback
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01): every RTP packet a
/// sender puts on one transport carries a transport-wide sequence number in a
/// header extension; the receiver reports, per sequence number, whether the
/// packet arrived and when, in an RTCP transport-layer feedback message
/// (RTPFB, PT 205, FMT 15):
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|  FMT=15 |    PT=205     |           length              |
///     |                     SSRC of packet sender                     |
///     |                      SSRC of media source                     |
///     |      base sequence number     |      packet status count      |
///     |                 reference time                | fb pkt. count |
///     |          packet chunk         |         packet chunk          |
///     .                                                               .
///     |         recv delta            |  recv delta   | zero padding  |
///
/// Reference time: 24 bits signed, in 64 ms. Receive deltas: 250 µs each,
/// one byte for 0...63.75 ms ("small"), two bytes signed otherwise ("large").
/// The first delta is from the reference time, each further one from the
/// previous arrival.
public struct TransportFeedback: RtcpMessage {
    /// One reported packet: its transport-wide sequence number and, when it
    /// arrived, its arrival time in microseconds on the receiver's clock
    /// (counted from the same origin as `referenceTime`, multiples of 250 µs).
    public struct Packet: Equatable, Sendable {
        public var sequence: UInt16
        public var arrivalUs: Int64?

        public init(sequence: UInt16, arrivalUs: Int64?) {
            self.sequence = sequence
            self.arrivalUs = arrivalUs
        }
    }

    /// The one-byte header extension id of the transport-wide sequence number
    /// (the project's table: `HeaderExtensionId`).
    public static let extensionId = HeaderExtensionId.transportSequence
    /// RTCP packet type and feedback message type.
    public static let packetType = RtcpPacketType.transportLayerFeedback
    public static let format: UInt8 = 15
    /// The most packets one message reports (keeps it well under one MTU).
    public static let maxPackets = 400

    public var sender: UInt32
    public var media: UInt32
    /// Counts feedback messages (mod 256), so the sender can tell lost feedback.
    public var feedbackCount: UInt8
    /// The reference time in 64 ms units (24 bits signed).
    public var referenceTime: Int32
    /// Consecutive sequence numbers from the base, in order.
    public var packets: [Packet]

    public init(sender: UInt32, media: UInt32, feedbackCount: UInt8, referenceTime: Int32, packets: [Packet]) {
        self.sender = sender
        self.media = media
        self.feedbackCount = feedbackCount
        self.referenceTime = referenceTime
        self.packets = packets
    }

    // MARK: - Writing

    /// The message for `packets` (consecutive from the first one's sequence
    /// number; at most `maxPackets`, at least one received). Arrival times
    /// are rounded to 250 µs; the reference time is the first arrival's,
    /// rounded down to 64 ms. Nil when there is nothing to report or a gap
    /// between two arrivals does not fit the two-byte delta (±8.19 s): the
    /// caller splits there.
    public static func serialize(sender: UInt32, media: UInt32, feedbackCount: UInt8,
                                 packets: [Packet]) -> (bytes: [UInt8], referenceTime: Int32)? {
        guard let first = packets.lazy.compactMap(\.arrivalUs).first, packets.count <= maxPackets else { return nil }
        let reference = Int32(truncatingIfNeeded: floorDiv(first, 64_000))
        let message = TransportFeedback(sender: sender, media: media, feedbackCount: feedbackCount,
                                        referenceTime: reference, packets: packets)
        guard message.encoding() != nil else { return nil }
        return (message.bytes, reference)
    }

    /// Each packet's status symbol (0 missing, 1 small delta, 2 large delta)
    /// and the deltas' bytes, in 250 µs ticks from the reference time and
    /// then from the previous arrival. Nil when a delta does not fit two
    /// bytes or there are more packets than the count field holds.
    func encoding() -> (symbols: [UInt8], deltas: [UInt8])? {
        guard packets.count <= 0xFFFF else { return nil }
        var symbols: [UInt8] = []
        var deltas: [UInt8] = []
        symbols.reserveCapacity(packets.count)
        var previousTicks = Int64(referenceTime) * 256  // 64 ms = 256 ticks of 250 µs
        for p in packets {
            guard let at = p.arrivalUs else { symbols.append(0); continue }
            let ticks = floorDiv(at, 250)
            let delta = ticks - previousTicks
            previousTicks = ticks
            if (0...255).contains(delta) {
                symbols.append(1)
                deltas.append(UInt8(delta))
            } else if (-32768...32767).contains(delta) {
                symbols.append(2)
                let v = UInt16(bitPattern: Int16(delta))
                deltas += [UInt8(v >> 8), UInt8(v & 0xFF)]
            } else {
                return nil
            }
        }
        return (symbols, deltas)
    }

    /// The packet status chunks for `symbols`: a run-length chunk for a run of
    /// seven or more equal symbols, else a two-bit status vector chunk of seven.
    static func chunks(_ symbols: [UInt8]) -> [UInt16] {
        var out: [UInt16] = []
        var i = 0
        while i < symbols.count {
            var run = 1
            while i + run < symbols.count, symbols[i + run] == symbols[i], run < 0x1FFF { run += 1 }
            if run >= 7 {
                out.append(UInt16(symbols[i]) << 13 | UInt16(run))
                i += run
                continue
            }
            var chunk: UInt16 = 0xC000
            for k in 0..<7 {
                let s = i + k < symbols.count ? symbols[i + k] : 0
                chunk |= UInt16(s) << UInt16(12 - 2 * k)
            }
            out.append(chunk)
            i += 7
        }
        return out
    }

    /// The encoding of a message read by `parse` or made by
    /// `serialize(sender:media:feedbackCount:packets:)`: any other must keep
    /// each gap between arrivals within ±8.19 s.
    private func checkedEncoding() -> (symbols: [UInt8], deltas: [UInt8]) {
        guard let e = encoding() else {
            preconditionFailure("transport feedback with a gap the two-byte delta cannot hold; build it with serialize(sender:...)")
        }
        return e
    }

    public var encodedSize: Int {
        let e = checkedEncoding()
        return wordAligned(20 + 2 * Self.chunks(e.symbols).count + e.deltas.count)
    }

    public func serialize(into out: UnsafeMutableRawBufferPointer) -> Int {
        let e = checkedEncoding()
        let chunks = Self.chunks(e.symbols)
        let size = wordAligned(20 + 2 * chunks.count + e.deltas.count)
        var w = RtcpWriter(out, count: Self.format, type: .transportLayerFeedback, packetSize: size)
        w.u32(sender)
        w.u32(media)
        w.u16(packets.first?.sequence ?? 0)
        w.u16(UInt16(packets.count))
        w.u24(UInt32(bitPattern: referenceTime) & 0xFF_FFFF)
        w.u8(feedbackCount)
        for c in chunks { w.u16(c) }
        w.bytes(e.deltas)
        w.padToWord()
        return w.offset
    }

    // MARK: - Reading

    /// Reads one feedback message (the RTCP packet at the start of `p`).
    /// Throws for another message, a truncated one, or status symbols that
    /// do not match the deltas present.
    public static func parse(_ p: UnsafeRawBufferPointer) throws(WireError) -> TransportFeedback {
        let c = try RtcpContent(p, type: .transportLayerFeedback, format: format)
        var r = c.reader
        let sender = try r.u32(), media = try r.u32()
        let base = try r.u16()
        let count = Int(try r.u16())
        guard count > 0 else { throw .malformed("transport feedback about no packets") }
        var reference = Int32(bitPattern: try r.u24())
        if reference & 0x80_0000 != 0 { reference -= 0x100_0000 }
        let feedbackCount = try r.u8()
        var symbols: [UInt8] = []
        symbols.reserveCapacity(count)
        while symbols.count < count {
            let chunk = try r.u16()
            if chunk & 0x8000 == 0 {
                let symbol = UInt8(chunk >> 13 & 0x3), run = Int(chunk & 0x1FFF)
                guard symbol != 3 else { throw .malformed("transport feedback status 3") }
                symbols += repeatElement(symbol, count: min(run, count - symbols.count))
            } else if chunk & 0x4000 == 0 {
                for k in 0..<14 where symbols.count < count { symbols.append(UInt8(chunk >> UInt16(13 - k) & 1)) }
            } else {
                for k in 0..<7 where symbols.count < count {
                    let s = UInt8(chunk >> UInt16(12 - 2 * k) & 3)
                    guard s != 3 else { throw .malformed("transport feedback status 3") }
                    symbols.append(s)
                }
            }
        }
        var packets: [Packet] = []
        packets.reserveCapacity(count)
        var ticks = Int64(reference) * 256
        for (k, s) in symbols.enumerated() {
            let seq = base &+ UInt16(truncatingIfNeeded: k)
            switch s {
            case 1:
                ticks += Int64(try r.u8())
                packets.append(Packet(sequence: seq, arrivalUs: ticks * 250))
            case 2:
                ticks += Int64(Int16(bitPattern: try r.u16()))
                packets.append(Packet(sequence: seq, arrivalUs: ticks * 250))
            default:
                packets.append(Packet(sequence: seq, arrivalUs: nil))
            }
        }
        return TransportFeedback(sender: sender, media: media, feedbackCount: feedbackCount,
                                 referenceTime: reference, packets: packets)
    }

    // MARK: - The header extension

    /// The transport-wide sequence number of an RTP packet: the two-byte
    /// element `extensionId` of its one-byte extension block, with the offset
    /// of its first byte in the packet (for rewriting in place). Nil when the
    /// packet has none.
    public static func sequenceNumber(in p: UnsafeRawBufferPointer) -> (sequence: UInt16, offset: Int)? {
        guard let (offset, length) = RtpHeaderExtension.element(extensionId, in: p), length == 2 else { return nil }
        return (UInt16(p[offset]) << 8 | UInt16(p[offset + 1]), offset)
    }

    /// Writes a transport-wide sequence number at `offset` (from `sequenceNumber(in:)`).
    public static func write(_ sequence: UInt16, into p: UnsafeMutableRawBufferPointer, at offset: Int) {
        p[offset] = UInt8(sequence >> 8)
        p[offset + 1] = UInt8(sequence & 0xFF)
    }
}

extension TransportFeedback {
    /// The largest padding-only packet: the header and its extension word, and
    /// at most 255 bytes of padding (the count is one byte).
    public static let maxPaddingPacket = 20 + 255

    /// A padding-only RTP packet of `size` bytes (24...`maxPaddingPacket`) carrying a
    /// transport-wide number (to be written): a bandwidth probe (RFC 3550
    /// §5.1 padding; receivers count it for feedback and drop it).
    public static func paddingPacket(size: Int, payloadType: UInt8, ssrc: UInt32, sequence: UInt16) -> [UInt8] {
        let n = max(24, min(size, maxPaddingPacket))
        var p = RtpHeader(marker: false, payloadType: payloadType, sequenceNumber: sequence, timestamp: 0, ssrc: ssrc).serialized
        p[0] |= 0x30  // P and X
        p += [0xBE, 0xDE, 0, 1, extensionId << 4 | 1, 0, 0, 0]
        p += [UInt8](repeating: 0, count: n - p.count - 1)
        p.append(UInt8(n - 20))
        return p
    }

    /// Whether an RTP packet holds nothing but padding (a probe).
    public static func isPaddingOnly(_ p: UnsafeRawBufferPointer) -> Bool {
        guard let h = try? RtpHeader.parse(p) else { return false }
        return h.paddingLength > 0 && h.payloadOffset + h.paddingLength == p.count
    }
}

@inline(__always)
func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}

/// The receiving side of transport-wide feedback: records when each
/// transport-wide sequence number arrived and, when asked, writes the
/// feedback messages for everything since the last ones.
public struct TransportFeedbackRecorder: Sendable {
    /// Arrivals by unwrapped sequence number, not yet reported.
    private var arrivals: [Int64: Int64] = [:]
    private var highest: Int64? = nil
    /// The first sequence number the next feedback reports.
    private var nextToReport: Int64? = nil
    private var feedbackCount: UInt8 = 0
    /// A gap wider than this is not reported packet by packet: reporting restarts after it.
    static let maxSpan: Int64 = 2000

    public init() {}

    /// A packet with transport-wide sequence number `sequence` arrived at `at`.
    public mutating func record(_ sequence: UInt16, at: Instant) {
        let unwrapped: Int64
        if let h = highest {
            let delta = Int64(Int16(bitPattern: sequence &- UInt16(truncatingIfNeeded: h)))
            unwrapped = h + delta
        } else {
            unwrapped = Int64(sequence)
        }
        if let next = nextToReport, unwrapped < next { return }  // already reported as lost
        arrivals[unwrapped] = at.nanoseconds / 1000
        if highest == nil || unwrapped > highest! { highest = unwrapped }
        if nextToReport == nil { nextToReport = unwrapped }
        if let next = nextToReport, highest! - next > Self.maxSpan {
            // A long gap (a restart or a flood of losses): start again near the top.
            let floor = highest! - Self.maxSpan
            arrivals = arrivals.filter { $0.key >= floor }
            nextToReport = arrivals.keys.min()
        }
    }

    /// Whether anything arrived since the last feedback.
    public var hasNews: Bool { !arrivals.isEmpty }

    /// The feedback messages for every packet from the last report up to the
    /// highest arrived, or none when nothing arrived since.
    public mutating func feedback(sender: UInt32, media: UInt32) -> [[UInt8]] {
        guard let top = highest, var next = nextToReport, !arrivals.isEmpty else { return [] }
        var out: [[UInt8]] = []
        while next <= top {
            // A message ends at a received packet (later losses may still arrive).
            var end = min(top, next + Int64(TransportFeedback.maxPackets) - 1)
            while end >= next, arrivals[end] == nil { end -= 1 }
            if end < next {
                // A run of losses longer than one message: left unreported.
                next += Int64(TransportFeedback.maxPackets)
                continue
            }
            var packets = (next...end).map { TransportFeedback.Packet(sequence: UInt16(truncatingIfNeeded: $0), arrivalUs: arrivals[$0]) }
            let firstReceived = packets.firstIndex { $0.arrivalUs != nil }!
            while true {
                if let m = TransportFeedback.serialize(sender: sender, media: media, feedbackCount: feedbackCount,
                                                       packets: packets) {
                    out.append(m.bytes)
                    feedbackCount &+= 1
                    break
                }
                // A gap too wide for one message: the first half (ending at a received packet) now.
                var cut = max(firstReceived + 1, packets.count / 2)
                while cut > firstReceived + 1, packets[cut - 1].arrivalUs == nil { cut -= 1 }
                packets.removeLast(packets.count - cut)
            }
            for k in next..<(next + Int64(packets.count)) { arrivals[k] = nil }
            next += Int64(packets.count)
        }
        nextToReport = next
        return out
    }
}
