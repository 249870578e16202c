import AgoraishIO
import AgoraishWire

/// What the server keeps of one published video stream to retransmit on
/// each hop (docs/media-plane.md, Retransmission): the last packets as
/// forwarded (plain RTP with the server SSRC) in fixed slots, so caching
/// allocates nothing per packet; the packets missing from the publisher and
/// when to NACK them; and the server's RTX SSRC toward subscribers.
final class VideoStreamCache {
    /// Slots of the cache; one second of 720p30 fits.
    static let slots = 1024
    static let slotSize = 1500
    private let storage: UnsafeMutableRawPointer
    private var sequences = [Int32](repeating: -1, count: slots)
    private var lengths = [Int](repeating: 0, count: slots)
    private var stored = [Instant](repeating: Instant(nanoseconds: 0), count: slots)
    /// Packets missing on the uplink (publisher -> server).
    var missing = NackList()
    /// Uplink counts for receiver reports.
    let uplink = UplinkCounter()
    /// The server's SSRC for retransmissions of this stream to subscribers.
    let rtxSsrc: UInt32
    /// The stream's payload type (96 VP8, 98 VP9); RTX uses the next one.
    let payloadType: UInt8
    static let maxAge: Duration = .seconds(1)

    init(rtxSsrc: UInt32, payloadType: UInt8) {
        self.rtxSsrc = rtxSsrc
        self.payloadType = payloadType
        storage = .allocate(byteCount: Self.slots * Self.slotSize, alignment: 16)
        missing.maxRetries = 8
    }

    deinit { storage.deallocate() }

    /// Whether the packet with `sequence` is held (a duplicate when it arrives again).
    func holds(_ sequence: UInt16, now: Instant) -> Bool {
        let i = Int(sequence) % Self.slots
        return sequences[i] == Int32(sequence) && now - stored[i] <= Self.maxAge
    }

    /// Keeps a forwarded packet (`length` bytes of plain RTP at `packet`).
    func store(_ packet: UnsafeRawPointer, length: Int, sequence: UInt16, now: Instant) {
        guard length <= Self.slotSize else { return }
        let i = Int(sequence) % Self.slots
        (storage + i * Self.slotSize).copyMemory(from: packet, byteCount: length)
        sequences[i] = Int32(sequence)
        lengths[i] = length
        stored[i] = now
    }

    /// Runs `body` with the held packet of `sequence`, if any.
    func withPacket<R>(_ sequence: UInt16, now: Instant, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        guard holds(sequence, now: now) else { return nil }
        let i = Int(sequence) % Self.slots
        return body(UnsafeRawBufferPointer(start: storage + i * Self.slotSize, count: lengths[i]))
    }
}

/// A publisher's stream as the server receives it, for receiver reports:
/// the highest extended sequence number, packets received, and both at the
/// last report.
final class UplinkCounter {
    private var highest: Int64? = nil
    private var first: Int64 = 0
    private var received = 0
    private var reported = (expected: 0, received: 0)

    /// Counts an original packet arriving from the publisher.
    func count(_ sequence: UInt16) {
        received += 1
        guard let h = highest else {
            highest = Int64(sequence)
            first = Int64(sequence)
            return
        }
        var ext = (h & ~0xFFFF) | Int64(sequence)
        if ext < h - 0x8000 { ext += 0x10000 } else if ext > h + 0x8000 { ext -= 0x10000 }
        if ext > h { highest = ext }
    }

    /// The fraction lost (of 256) since the last call, the cumulative loss and
    /// the extended highest sequence number, for a receiver report block.
    func report() -> (fraction: UInt8, cumulative: Int32, highest: UInt32) {
        guard let h = highest else { return (0, 0, 0) }
        let expected = Int(h - first + 1)
        let e = expected - reported.expected, r = received - reported.received
        reported = (expected, received)
        let lost = max(0, e - r)
        let fraction = e > 0 ? UInt8(min(255, lost * 256 / e)) : 0
        return (fraction, Int32(clamping: max(0, expected - received)), UInt32(truncatingIfNeeded: h))
    }
}
