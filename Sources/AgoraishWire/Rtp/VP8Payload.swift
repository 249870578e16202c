/// The VP8 RTP payload format (RFC 7741), sans-IO: the payload descriptor,
/// splitting an encoded frame into packets, and putting frames back together.
///
/// Every packet this side writes carries a descriptor with X=1 and I=1 (a
/// 15-bit PictureID, M=1), so a receiver can tell frames apart and notice a
/// missing one even when whole frames are lost:
///
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// |X|R|N|S|R| PID | (PID = 0: one partition per packet run, S on the first)
/// +-+-+-+-+-+-+-+-+
/// |I|L|T|K| RSV   |
/// +-+-+-+-+-+-+-+-+
/// |M| PictureID   |
/// +-+-+-+-+-+-+-+-+
/// |   PictureID   |
/// +-+-+-+-+-+-+-+-+
/// ```
public enum VP8Payload {
    /// The descriptor as read from a packet.
    public struct Descriptor: Equatable, Sendable {
        /// S: the packet starts a VP8 partition.
        public var startOfPartition: Bool
        /// The partition index (PID).
        public var partitionIndex: UInt8
        /// N: a non-reference frame (may be discarded).
        public var nonReference: Bool
        /// The PictureID (7 or 15 bits), when present.
        public var pictureId: UInt16?
        /// Bytes the descriptor takes.
        public var length: Int

        public init(startOfPartition: Bool, partitionIndex: UInt8 = 0, nonReference: Bool = false,
                    pictureId: UInt16?, length: Int = 0) {
            self.startOfPartition = startOfPartition
            self.partitionIndex = partitionIndex
            self.nonReference = nonReference
            self.pictureId = pictureId
            self.length = length
        }
    }

    /// Reads the descriptor at the start of an RTP payload. Throws for a
    /// payload shorter than its descriptor says, or one with nothing after it.
    public static func parse(_ payload: UnsafeRawBufferPointer) throws(WireError) -> Descriptor {
        guard payload.count >= 1 else { throw .truncated }
        let b0 = payload[0]
        var offset = 1
        var pictureId: UInt16? = nil
        if b0 & 0x80 != 0 {
            guard payload.count > offset else { throw .truncated }
            let x = payload[offset]
            offset += 1
            if x & 0x80 != 0 {  // I
                guard payload.count > offset else { throw .truncated }
                if payload[offset] & 0x80 != 0 {
                    guard payload.count > offset + 1 else { throw .truncated }
                    pictureId = UInt16(payload[offset] & 0x7F) << 8 | UInt16(payload[offset + 1])
                    offset += 2
                } else {
                    pictureId = UInt16(payload[offset] & 0x7F)
                    offset += 1
                }
            }
            if x & 0x40 != 0 { offset += 1 }        // L: TL0PICIDX
            if x & 0x30 != 0 { offset += 1 }        // T or K: TID/Y/KEYIDX
        }
        guard payload.count > offset else { throw .truncated }
        return Descriptor(startOfPartition: b0 & 0x10 != 0, partitionIndex: b0 & 0x07,
                          nonReference: b0 & 0x20 != 0, pictureId: pictureId, length: offset)
    }

    /// The 4-byte descriptor this side writes.
    public static func descriptor(start: Bool, pictureId: UInt16) -> [UInt8] {
        [0x80 | (start ? 0x10 : 0), 0x80, 0x80 | UInt8(pictureId >> 8 & 0x7F), UInt8(pictureId & 0xFF)]
    }

    /// Splits an encoded frame into RTP payloads of at most `maxPayload` bytes
    /// (descriptor included), in nearly equal sizes. The last one carries the
    /// RTP marker bit.
    public static func packetize(_ frame: [UInt8], pictureId: UInt16, maxPayload: Int) -> [[UInt8]] {
        precondition(maxPayload > 4, "room for the descriptor and one byte")
        let room = maxPayload - 4
        let count = max(1, (frame.count + room - 1) / room)
        let size = (frame.count + count - 1) / count
        var packets: [[UInt8]] = []
        var offset = 0
        for i in 0..<count {
            let end = min(frame.count, offset + size)
            packets.append(descriptor(start: i == 0, pictureId: pictureId) + frame[offset..<end])
            offset = end
        }
        return packets
    }

    /// Whether the VP8 payload (after the descriptor, at the start of a
    /// partition 0) begins a keyframe: the P bit of the frame tag is 0 (RFC 6386 §9.1).
    public static func isKeyframe(_ vp8: UnsafeRawBufferPointer) -> Bool {
        !vp8.isEmpty && vp8[0] & 0x01 == 0
    }

    /// Whether an RTP payload starts a keyframe: S=1 with partition index 0,
    /// and the frame tag after the descriptor has P=0. For an SFU that looks at
    /// every packet; false for a payload that does not parse.
    public static func startsKeyframe(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard let d = try? parse(payload), d.startOfPartition, d.partitionIndex == 0 else { return false }
        return isKeyframe(UnsafeRawBufferPointer(rebasing: payload[d.length...]))
    }

    /// The next PictureID after `id` (15 bits, wrapping).
    public static func next(_ id: UInt16) -> UInt16 { (id &+ 1) & 0x7FFF }
}

/// Puts VP8 (or, built with `codec: .vp9`, VP9) frames back together from
/// RTP packets in any order, sans-IO. A frame is complete when its packets
/// from the one that starts it to the one that ends it have consecutive
/// sequence numbers: for VP8 from S=1 (partition 0) to the marker bit, for
/// VP9 from B=1 to E=1 or the marker bit (RFC 9628 §4.2), each VP9 spatial
/// layer frame coming out on its own. Descriptors are stripped. Frames
/// come out in order; a frame whose packets do not all arrive is waited for
/// until `patience` later frames (or a later keyframe) are complete, then
/// skipped, and `lost` says so (the caller asks for a keyframe unless the
/// next frame is one).
public struct VP8FrameAssembler {
    /// A complete frame.
    public struct Frame: Equatable, Sendable {
        /// The encoded frame, without payload descriptors.
        public var data: [UInt8]
        /// The RTP timestamp (90 kHz).
        public var timestamp: UInt32
        /// The PictureID of its first packet, when it has one.
        public var pictureId: UInt16?
        /// The frame decodes on its own (VP8: P=0 in the frame tag; VP9: see `VP9Payload.isKeyframe(_:)`).
        public var isKeyframe: Bool
        /// Frames were missing before this one.
        public var afterLoss: Bool
    }

    /// What the assembler keeps of a packet, the same for either codec.
    private struct Packet {
        var sequence: Int64
        var timestamp: UInt32
        var startsFrame: Bool
        var endsFrame: Bool
        /// Meaningful on the packet that starts a frame.
        var startsKeyframe: Bool
        var pictureId: UInt16?
        var data: [UInt8]
    }

    private var packets: [Int64: Packet] = [:]
    private var highest: Int64? = nil
    /// The sequence number after the last frame handed out.
    private var expected: Int64? = nil
    /// Most packets kept while waiting (older ones are dropped).
    public let capacity: Int
    /// Complete newer frames that make the assembler give up on a missing one.
    public let patience: Int
    /// Frames skipped because packets were missing.
    public private(set) var lost = 0
    /// The payload format the packets carry.
    public let codec: PayloadCodec

    /// An assembler for `codec` that keeps at most `capacity` packets and gives
    /// up on a missing frame once `patience` newer frames are complete.
    public init(codec: PayloadCodec = .vp8, capacity: Int = 512, patience: Int = 3) {
        self.codec = codec
        self.capacity = capacity
        self.patience = patience
    }

    /// Takes the payload of one RTP packet; returns the frames it completes, in order.
    public mutating func insert(sequence: UInt16, timestamp: UInt32, marker: Bool,
                                payload: UnsafeRawBufferPointer) -> [Frame] {
        guard var packet = read(payload, marker: marker) else { return [] }
        let seq = extend(sequence)
        highest = max(highest ?? seq, seq)
        if let e = expected, seq < e { return [] }  // late: its frame is gone
        packet.sequence = seq
        packet.timestamp = timestamp
        packets[seq] = packet
        if packets.count > capacity, let oldest = packets.keys.min() { packets[oldest] = nil }
        return drain()
    }

    /// The packet's descriptor read for `codec`, or nil when it does not parse.
    private func read(_ payload: UnsafeRawBufferPointer, marker: Bool) -> Packet? {
        switch codec {
        case .vp8:
            guard let d = try? VP8Payload.parse(payload) else { return nil }
            let data = UnsafeRawBufferPointer(rebasing: payload[d.length...])
            let starts = d.startOfPartition && d.partitionIndex == 0
            return Packet(sequence: 0, timestamp: 0, startsFrame: starts, endsFrame: marker,
                          startsKeyframe: starts && VP8Payload.isKeyframe(data), pictureId: d.pictureId, data: Array(data))
        case .vp9:
            guard let d = try? VP9Payload.parse(payload) else { return nil }
            return Packet(sequence: 0, timestamp: 0, startsFrame: d.startOfFrame, endsFrame: d.endOfFrame || marker,
                          startsKeyframe: VP9Payload.isKeyframe(d), pictureId: d.pictureId,
                          data: Array(payload[d.length...]))
        }
    }

    private mutating func drain() -> [Frame] {
        var out: [Frame] = []
        while let frame = nextComplete() { out.append(frame) }
        return out
    }

    /// The oldest frame at or after `expected` when it is complete. An
    /// incomplete one is waited for (its packets may only be late) until a
    /// newer keyframe is complete or `patience` newer frames are: then it is
    /// skipped and the next complete frame says it came after a loss.
    private mutating func nextComplete() -> Frame? {
        let starts = packets.values.filter(\.startsFrame)
            .sorted { $0.sequence < $1.sequence }
        var candidates: [(start: Packet, end: Int64, data: [UInt8])] = []
        var oldestIncomplete: Packet? = nil
        for start in starts {
            if let e = expected, start.sequence < e { packets[start.sequence] = nil; continue }
            var seq = start.sequence
            var data: [UInt8] = []
            var complete = false
            while let p = packets[seq], p.timestamp == start.timestamp {
                data += p.data
                if p.endsFrame { complete = true; break }
                seq += 1
            }
            if complete {
                // The frame right where the last one ended (or the very first) goes out at once.
                let contiguous = expected.map { start.sequence == $0 } ?? true
                if candidates.isEmpty && oldestIncomplete == nil && contiguous { return emit(start, end: seq, data: data) }
                candidates.append((start, seq, data))
            } else if oldestIncomplete == nil {
                oldestIncomplete = start
            }
        }
        guard let first = candidates.first else { return nil }
        let keyframeWaiting = candidates.contains { $0.start.startsKeyframe }
        guard candidates.count >= patience || keyframeWaiting else { return nil }
        // Give up on what is missing: from a waiting keyframe if there is one, else the oldest complete frame.
        let from = candidates.first { $0.start.startsKeyframe } ?? first
        return emit(from.start, end: from.end, data: from.data)
    }

    /// Hands out the frame from `start` to `end` and forgets everything before its end.
    private mutating func emit(_ start: Packet, end: Int64, data: [UInt8]) -> Frame {
        let afterLoss = expected.map { start.sequence != $0 } ?? false
        if afterLoss { lost += 1 }
        for k in packets.keys where k <= end { packets[k] = nil }
        expected = end + 1
        return Frame(data: data, timestamp: start.timestamp, pictureId: start.pictureId,
                     isKeyframe: start.startsKeyframe, afterLoss: afterLoss)
    }

    private func extend(_ s: UInt16) -> Int64 {
        guard let h = highest else { return Int64(s) + 65536 }
        var c = (h & ~0xFFFF) | Int64(s)
        if c - h > 32768 { c -= 65536 } else if h - c > 32768 { c += 65536 }
        return c
    }
}

extension VP8Payload {
    /// The picture size a VP8 keyframe declares (RFC 6386 9.1: the start code
    /// 9d 01 2a after the 3-byte frame tag, then 14-bit width and height);
    /// nil for a delta frame or a frame too short.
    public static func keyframeSize(_ frame: [UInt8]) -> (width: Int, height: Int)? {
        guard frame.count >= 10, frame[0] & 1 == 0, frame[3] == 0x9D, frame[4] == 0x01, frame[5] == 0x2A else { return nil }
        return (Int(frame[6]) | Int(frame[7] & 0x3F) << 8, Int(frame[8]) | Int(frame[9] & 0x3F) << 8)
    }
}
