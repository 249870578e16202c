/// Data streams on the media path (docs/data-streams.md), sans-IO.
///
/// Each sender has two RTP streams for data: a reliable one (payload type
/// 100, retransmitted on request as RTX payload type 101 on every hop) and an
/// unreliable one (payload type 102, never retransmitted). Every RTP packet
/// carries one item: a stream message, a keepalive (sent after the last
/// message so a receiver notices a lost tail), or media metadata. The item
/// starts with this header:
///
/// ```
/// 0                   1                   2                   3
/// |V=1|O|S| kind  |   stream id   |  first reliable RTP sequence  |
/// |            sequence (per stream, 32 bits)                     |
/// |            timestamp (milliseconds, 64 bits) ...              |
/// ```
///
/// O: the stream is ordered; S: synchronized with the sender's audio. The
/// first reliable RTP sequence is that of the sender's first reliable item
/// in this call: a receiver whose first packet is a little later (the
/// first ones were lost) asks for those too. The
/// sequence counts the messages of one stream from 0. The timestamp is the
/// sender's wall clock when the message was sent (Agora's `sentTs`), or for
/// video metadata the picture's timestamp. The item's payload follows.
public enum DataStreamPacket {
    /// Reliable data: retransmitted on request (RFC 4585 NACK).
    public static let payloadType = PayloadType.reliableData.rawValue
    /// Retransmissions (RFC 4588) of reliable data.
    public static let rtxPayloadType = PayloadType.reliableDataRtx.rawValue
    /// Unreliable data.
    public static let unreliablePayloadType = PayloadType.unreliableData.rawValue
    /// Bytes of the item header.
    public static let headerSize = 16

    /// What an item carries.
    public enum Kind: UInt8, Sendable {
        case message = 0
        /// Nothing: it tells receivers the sequence numbers so far.
        case keepalive = 1
        /// Metadata of a video picture (the timestamp is the picture's).
        case videoMetadata = 2
        /// Audio metadata (sendAudioMetadata).
        case audioMetadata = 3
    }

    /// An item's header.
    public struct Header: Equatable, Sendable {
        public var kind: Kind
        public var ordered: Bool
        public var syncWithAudio: Bool
        public var streamId: UInt8
        /// The RTP sequence number of the sender's first reliable item in this call.
        public var start: UInt16
        public var sequence: UInt32
        public var timestampMs: UInt64

        public init(kind: Kind, ordered: Bool = false, syncWithAudio: Bool = false, streamId: UInt8 = 0,
                    start: UInt16 = 0, sequence: UInt32 = 0, timestampMs: UInt64 = 0) {
            self.kind = kind
            self.start = start
            self.ordered = ordered
            self.syncWithAudio = syncWithAudio
            self.streamId = streamId
            self.sequence = sequence
            self.timestampMs = timestampMs
        }

        /// The 16 bytes of the header.
        public var serialized: [UInt8] {
            var b = [UInt8](repeating: 0, count: DataStreamPacket.headerSize)
            b[0] = 0x40 | (ordered ? 0x20 : 0) | (syncWithAudio ? 0x10 : 0) | kind.rawValue
            b[1] = streamId
            b[2] = UInt8(start >> 8)
            b[3] = UInt8(start & 0xFF)
            for i in 0..<4 { b[4 + i] = UInt8(truncatingIfNeeded: sequence >> (24 - 8 * i)) }
            for i in 0..<8 { b[8 + i] = UInt8(truncatingIfNeeded: timestampMs >> (56 - 8 * i)) }
            return b
        }

        /// Reads a header; nil for another version, an unknown kind or fewer than 16 bytes.
        public static func parse(_ b: UnsafeRawBufferPointer) -> Header? {
            guard b.count >= DataStreamPacket.headerSize, b[0] & 0xC0 == 0x40,
                  let kind = Kind(rawValue: b[0] & 0x0F) else { return nil }
            var sequence: UInt32 = 0
            for i in 0..<4 { sequence = sequence << 8 | UInt32(b[4 + i]) }
            var ts: UInt64 = 0
            for i in 0..<8 { ts = ts << 8 | UInt64(b[8 + i]) }
            return Header(kind: kind, ordered: b[0] & 0x20 != 0, syncWithAudio: b[0] & 0x10 != 0, streamId: b[1],
                          start: UInt16(b[2]) << 8 | UInt16(b[3]), sequence: sequence, timestampMs: ts)
        }
    }
}

/// The sending side's streams and limits (Agora's createDataStream and
/// sendStreamMessage): at most 5 streams, 1 KB per message, and within any
/// second 30 messages and 6 KB. A message counts for a second less
/// `windowSlack`, so a sender pacing exactly at the limit is not refused for
/// its timer's jitter.
public struct DataStreamSender: Sendable {
    public static let maxStreams = 5
    public static let maxMessageSize = 1024
    public static let maxMessagesPerSecond = 30
    public static let maxBytesPerSecond = 6 * 1024
    public static let windowSlack: Duration = .milliseconds(10)
    /// Keepalives after the last reliable item: the first this long after it, each next twice as late.
    public static let firstKeepalive: Duration = .milliseconds(30)
    public static let keepalives = 8

    /// Why a message is refused, with Agora's error codes.
    public enum Refusal: Int32, Error, Sendable {
        /// More than 1 KB (ERR_SIZE_TOO_LARGE).
        case tooLarge = 114
        /// Over 30 messages or 6 KB in the last second (ERR_BITRATE_LIMIT).
        case rateLimited = 115
        /// Five streams exist (ERR_TOO_MANY_DATA_STREAMS).
        case tooManyStreams = 116
        /// No such stream (ERR_INVALID_ARGUMENT).
        case unknownStream = 2
    }

    public struct Stream: Equatable, Sendable {
        public var reliable: Bool
        public var ordered: Bool
        public var syncWithAudio: Bool
        public var nextSequence: UInt32 = 0
    }

    public private(set) var streams: [Int32: Stream] = [:]
    private var nextId: Int32 = 1
    /// Messages sent in the last second: when, and their sizes.
    private var window: [(at: Instant, bytes: Int)] = []
    /// The keepalive schedule: when the next is due, and how many were sent since the last item.
    public private(set) var nextKeepalive: Instant? = nil
    private var keepaliveCount = 0

    public init() {}

    /// A new stream's id (1 to 255, reused only after the streams are cleared).
    public mutating func create(reliable: Bool, ordered: Bool, syncWithAudio: Bool) throws(Refusal) -> Int32 {
        guard streams.count < Self.maxStreams else { throw .tooManyStreams }
        var id = nextId
        while streams[id] != nil { id = id % 255 + 1 }
        nextId = id % 255 + 1
        streams[id] = Stream(reliable: reliable, ordered: ordered, syncWithAudio: syncWithAudio)
        return id
    }

    /// Forgets every stream (leaving a channel).
    public mutating func clear() {
        streams = [:]
        nextId = 1
        window = []
        nextKeepalive = nil
    }

    /// Checks a message against the limits and, when it may go, counts it
    /// and returns its header (the stream's next sequence number).
    public mutating func admit(streamId: Int32, size: Int, now: Instant, wallClockMs: UInt64) throws(Refusal) -> (header: DataStreamPacket.Header, reliable: Bool) {
        guard var s = streams[streamId] else { throw .unknownStream }
        guard size <= Self.maxMessageSize else { throw .tooLarge }
        window.removeAll { now - $0.at >= .seconds(1) - Self.windowSlack }
        guard window.count < Self.maxMessagesPerSecond,
              window.reduce(0, { $0 + $1.bytes }) + size <= Self.maxBytesPerSecond else { throw .rateLimited }
        window.append((now, size))
        let header = DataStreamPacket.Header(kind: .message, ordered: s.ordered, syncWithAudio: s.syncWithAudio,
                                             streamId: UInt8(streamId), sequence: s.nextSequence, timestampMs: wallClockMs)
        s.nextSequence &+= 1
        streams[streamId] = s
        return (header, s.reliable)
    }

    /// A reliable item left at `now`: keepalives follow it.
    public mutating func reliableSent(now: Instant) {
        keepaliveCount = 0
        nextKeepalive = now + Self.firstKeepalive
    }

    /// Whether a keepalive is due at `now`; if so it counts as sent.
    public mutating func keepaliveDue(now: Instant) -> Bool {
        guard let due = nextKeepalive, now >= due else { return false }
        keepaliveCount += 1
        nextKeepalive = keepaliveCount < Self.keepalives
            ? now + Self.firstKeepalive * (1 << keepaliveCount) : nil
        return true
    }
}

/// One sender's data as a receiver sees it: the reliable RTP stream made
/// whole again (retransmission requests for gaps, duplicates dropped, ordered
/// messages released in order), the unreliable one checked for gaps, and
/// what to tell the host.
///
/// The reliable stream starts at the sender's first reliable item of the
/// call when the receiver's first packet is at most `lookback` after it (the
/// first packets were lost: they are asked for), else at the first packet
/// received: what the sender sent long before is not waited for. A gap that is
/// not filled within `timeout` is given up: the messages after it are
/// released, and a stream whose sequence jumps reports the messages it missed.
public struct DataStreamReceiver: Sendable {
    /// An item to hand to the host, with its payload as it arrived (still encrypted when encryption is on).
    public struct Item: Equatable, Sendable {
        public var header: DataStreamPacket.Header
        public var payload: [UInt8]

        public init(header: DataStreamPacket.Header, payload: [UInt8]) {
            self.header = header
            self.payload = payload
        }
    }

    /// Messages of a stream that will not come (Agora's onStreamMessageError):
    /// `missed` messages lost, `cached` later ones of the stream waiting when the loss was found.
    public struct Gap: Equatable, Sendable {
        public var streamId: UInt8
        public var missed: Int
        public var cached: Int

        public init(streamId: UInt8, missed: Int, cached: Int) {
            self.streamId = streamId
            self.missed = missed
            self.cached = cached
        }
    }

    public enum Output: Equatable, Sendable {
        case deliver(Item)
        case gap(Gap)
    }

    public var timeout: Duration = .seconds(5)
    /// Missing reliable packets and when to ask for them.
    public private(set) var missing: NackList
    private struct Entry {
        var item: Item
        var delivered: Bool
    }
    /// Reliable packets not yet released, by extended sequence number.
    private var pending: [Int64: Entry] = [:]
    private var next: Int64? = nil
    private var highest: Int64 = 0
    private var blockedSince: Instant? = nil
    /// Per stream: the next message sequence expected (reliable), the highest seen (unreliable).
    private var expected: [UInt8: UInt32] = [:]
    private var unreliableHighest: [UInt8: UInt32] = [:]
    private var unreliableSeen: [UInt8: Set<UInt32>] = [:]
    /// Packets that arrived twice, and packets given up.
    public private(set) var duplicates = 0
    public private(set) var abandoned = 0
    /// Most reliable packets held while a gap waits.
    public static let maxPending = 2048
    /// How far after the sender's first reliable item a receiver's first
    /// packet may be for the receiver to ask for everything from that item
    /// (64 packets are at least two seconds at the message rate limit, well
    /// within what the server keeps).
    public static let lookback = 64

    public init() {
        missing = NackList()
        missing.maxAge = .seconds(5)
        missing.maxRetries = 1000
        missing.maxGap = Self.maxPending
    }

    /// Whether anything waits: a gap to fill or to give up.
    public var waiting: Bool { !pending.isEmpty || missing.count > 0 }

    private func extend(_ sequence: UInt16) -> Int64 {
        guard next != nil else { return Int64(sequence) }
        var ext = (highest & ~0xFFFF) | Int64(sequence)
        if ext < highest - 0x8000 { ext += 0x10000 } else if ext > highest + 0x8000 { ext -= 0x10000 }
        return ext
    }

    /// A reliable packet (its RTP sequence number, the item header and payload) arrived.
    public mutating func receivedReliable(sequence: UInt16, header: DataStreamPacket.Header, payload: [UInt8],
                                          now: Instant) -> [Output] {
        var ext = extend(sequence)
        if next == nil {
            // Distance from the sender's first reliable item: a few means the first ones were lost.
            let behind = Int(sequence &- header.start)
            let base = behind <= Self.lookback ? ext - Int64(behind) : ext
            if base < ext { missing.received(header.start &- 1, now: now) }
            next = base
            highest = ext
            ext = extend(sequence)
        }
        missing.received(sequence, now: now)
        guard ext >= next!, pending[ext] == nil else {
            duplicates += 1
            return []
        }
        highest = max(highest, ext)
        var out: [Output] = []
        let item = Item(header: header, payload: payload)
        // Unordered items go at once; their place in the sequence still counts.
        let early = !header.ordered && header.kind != .keepalive
        if early { out.append(.deliver(item)) }
        pending[ext] = Entry(item: item, delivered: early)
        if pending.count > Self.maxPending, let first = pending.keys.min() {
            abandoned += Int(first - next!)
            next = first
        }
        release(&out, now: now)
        return out
    }

    /// Gives up a gap older than `timeout`. Call it now and then (every 100 ms is plenty).
    public mutating func poll(now: Instant) -> [Output] {
        guard let since = blockedSince, now - since >= timeout, let first = pending.keys.min(), let n = next else { return [] }
        abandoned += Int(first - n)
        next = first
        var out: [Output] = []
        release(&out, now: now)
        return out
    }

    /// The reliable sequence numbers to ask for again now.
    public mutating func nacks(now: Instant, rtt: Duration) -> [UInt16] {
        missing.due(now: now, rtt: rtt).filter { s in next.map { extend(s) >= $0 } ?? true }
    }

    private mutating func release(_ out: inout [Output], now: Instant) {
        while let n = next, let e = pending.removeValue(forKey: n) {
            next = n + 1
            let h = e.item.header
            if h.kind == .message {
                if let want = expected[h.streamId], Int32(bitPattern: h.sequence &- want) > 0 {
                    let cached = pending.values.filter { $0.item.header.kind == .message && $0.item.header.streamId == h.streamId }.count
                    out.append(.gap(Gap(streamId: h.streamId, missed: Int(h.sequence &- want), cached: cached)))
                }
                if expected[h.streamId].map({ Int32(bitPattern: h.sequence &- $0) >= 0 }) ?? true {
                    expected[h.streamId] = h.sequence &+ 1
                }
            }
            if !e.delivered && h.kind != .keepalive { out.append(.deliver(e.item)) }
        }
        blockedSince = pending.isEmpty ? nil : (blockedSince ?? now)
    }

    /// An unreliable packet arrived: delivered unless it is a duplicate, or
    /// (ordered streams) older than one already delivered; a jump in a stream's
    /// sequence reports the messages missed.
    public mutating func receivedUnreliable(header: DataStreamPacket.Header, payload: [UInt8]) -> [Output] {
        guard header.kind != .keepalive else { return [] }
        let id = header.streamId
        let item = Item(header: header, payload: payload)
        guard let top = unreliableHighest[id] else {
            unreliableHighest[id] = header.sequence
            unreliableSeen[id] = [header.sequence]
            return [.deliver(item)]
        }
        let d = Int32(bitPattern: header.sequence &- top)
        if d <= 0 {
            // Late: an ordered stream has moved on; an unordered one takes it once.
            guard !header.ordered, d > -128, unreliableSeen[id]?.insert(header.sequence).inserted == true else {
                duplicates += 1
                return []
            }
            return [.deliver(item)]
        }
        var out: [Output] = []
        if d > 1 { out.append(.gap(Gap(streamId: id, missed: Int(d - 1), cached: 0))) }
        unreliableHighest[id] = header.sequence
        var seen = unreliableSeen[id] ?? []
        seen.insert(header.sequence)
        if seen.count > 256 { seen = seen.filter { Int32(bitPattern: header.sequence &- $0) < 128 } }
        unreliableSeen[id] = seen
        out.append(.deliver(item))
        return out
    }
}
