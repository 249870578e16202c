// Retransmission, sans-IO: the RTX payload format (RFC 4588), a sender's
// packet history, and a receiver's list of missing packets with its NACK
// schedule. The NACK itself is `GenericNack` (Rtcp/GenericNack.swift).

/// The RTX payload format (RFC 4588 §4): a retransmission travels on its own
/// SSRC and payload type with its own sequence numbers; its payload starts
/// with the original sequence number (OSN).
public enum RtxPacket {
    /// Wraps an original RTP packet (`original`, header included) as RTX.
    public static func wrap(_ original: [UInt8], rtxPayloadType: UInt8, rtxSsrc: UInt32, rtxSequence: UInt16) -> [UInt8]? {
        guard let h = original.withUnsafeBytes({ try? RtpHeader.parse($0) }) else { return nil }
        var header = RtpHeader(marker: h.marker, payloadType: rtxPayloadType, sequenceNumber: rtxSequence,
                               timestamp: h.timestamp, ssrc: rtxSsrc).serialized
        // CSRCs and header extensions travel with the retransmission (the
        // transport-wide sequence number is rewritten on each hop).
        header[0] |= original[0] & 0x1F
        let payload = original[h.payloadOffset..<(original.count - h.paddingLength)]
        return header + original[12..<h.payloadOffset] + [UInt8(h.sequenceNumber >> 8), UInt8(h.sequenceNumber & 0xFF)] + payload
    }

    /// Rebuilds the original packet from an RTX one, given the original payload
    /// type and SSRC. Nil when the packet is not RTP or has no OSN.
    public static func unwrap(_ rtx: UnsafeRawBufferPointer, payloadType: UInt8, ssrc: UInt32) -> [UInt8]? {
        guard let h = try? RtpHeader.parse(rtx), rtx.count - h.paddingLength >= h.payloadOffset + 2 else { return nil }
        let osn = UInt16(rtx[h.payloadOffset]) << 8 | UInt16(rtx[h.payloadOffset + 1])
        var header = RtpHeader(marker: h.marker, payloadType: payloadType, sequenceNumber: osn,
                               timestamp: h.timestamp, ssrc: ssrc).serialized
        header[0] |= rtx[0] & 0x1F
        return header + Array(rtx[12..<h.payloadOffset]) + Array(rtx[(h.payloadOffset + 2)..<(rtx.count - h.paddingLength)])
    }
}

/// A sender's recent packets by sequence number, to answer NACKs. Holds at
/// most `capacity` packets and none older than `maxAge`.
public struct PacketHistory: Sendable {
    private var slots: [(sequence: UInt16, sentAt: Instant, packet: [UInt8])?]
    public let maxAge: Duration

    public init(capacity: Int = 1024, maxAge: Duration = .seconds(1)) {
        slots = Array(repeating: nil, count: max(1, capacity))
        self.maxAge = maxAge
    }

    /// Keeps a plain RTP packet sent at `now`.
    public mutating func store(_ packet: [UInt8], sequence: UInt16, now: Instant) {
        slots[Int(sequence) % slots.count] = (sequence, now, packet)
    }

    /// The packet with `sequence`, if still held and young enough at `now`.
    public func packet(_ sequence: UInt16, now: Instant) -> [UInt8]? {
        guard let s = slots[Int(sequence) % slots.count], s.sequence == sequence, now - s.sentAt <= maxAge else { return nil }
        return s.packet
    }
}

/// A receiver's missing packets of one stream and when to ask for them
/// again: a gap is asked for at once, then again every round trip (at least
/// `minInterval`), at most `maxRetries` times, and given up after `maxAge`
/// or when it falls more than `maxGap` numbers behind.
public struct NackList: Sendable {
    private struct Missing {
        var firstSeen: Instant
        var lastAsked: Instant?
        var asked: Int
    }

    private var missing: [Int64: Missing] = [:]
    private var highest: Int64? = nil
    public var maxRetries = 10
    public var maxAge: Duration = .seconds(1)
    public var minInterval: Duration = .milliseconds(20)
    public var maxGap = 500
    /// Packets recovered after being asked for, and given up on, so far.
    public private(set) var recovered = 0
    public private(set) var abandoned = 0
    /// The most recent gaps (runs of consecutive missing numbers) and when
    /// each was seen, newest last, at most `gapHistory` of them.
    public private(set) var recentGaps: [(length: Int, seen: Instant)] = []
    /// How many gaps `recentGaps` keeps.
    public static let gapHistory = 32

    public init() {}

    /// The longest of the recent gaps seen in the `window` before `now` (0:
    /// none): how long the path's loss bursts run, for a receiver that must
    /// wait for a whole burst's retransmissions.
    public func longestRecentGap(now: Instant, window: Duration) -> Int {
        recentGaps.reduce(0) { now - $1.seen <= window ? max($0, $1.length) : $0 }
    }

    /// A packet arrived (original or retransmission).
    public mutating func received(_ sequence: UInt16, now: Instant) {
        guard let h = highest else {
            highest = Int64(sequence)
            return
        }
        var ext = (h & ~0xFFFF) | Int64(sequence)
        if ext < h - 0x8000 { ext += 0x10000 } else if ext > h + 0x8000 { ext -= 0x10000 }
        if ext > h {
            if ext - h - 1 > Int64(maxGap) {
                // A jump this large is a restart, not loss.
                abandoned += missing.count
                missing = [:]
            } else {
                for s in (h + 1)..<ext { missing[s] = Missing(firstSeen: now, lastAsked: nil, asked: 0) }
                if ext - h > 1 {
                    if recentGaps.count == Self.gapHistory { recentGaps.removeFirst() }
                    recentGaps.append((Int(ext - h - 1), now))
                }
            }
            highest = ext
            for s in missing.keys where s < ext - Int64(maxGap) {
                missing[s] = nil
                abandoned += 1
            }
        } else if missing.removeValue(forKey: ext) != nil {
            recovered += 1
        }
    }

    /// The sequence numbers to ask for now, given the round trip (marks them asked).
    public mutating func due(now: Instant, rtt: Duration) -> [UInt16] {
        let interval = max(minInterval, rtt)
        var out: [Int64] = []
        for (s, var m) in missing {
            if now - m.firstSeen > maxAge || m.asked >= maxRetries {
                missing[s] = nil
                abandoned += 1
                continue
            }
            if let last = m.lastAsked, now - last < interval { continue }
            m.lastAsked = now
            m.asked += 1
            missing[s] = m
            out.append(s)
        }
        return out.sorted().map { UInt16(truncatingIfNeeded: $0) }
    }

    /// Numbers currently missing.
    public var count: Int { missing.count }
}
