import AgoraishIO
import AgoraishWire

/// What the server keeps of one published stream (video, and audio for the
/// server-to-subscriber hop) to retransmit on each hop (docs/media-plane.md, Retransmission): the last packets as
/// forwarded (plain RTP with the server SSRC) in fixed slots, so caching
/// allocates nothing per packet; the packets missing from the publisher and
/// when to NACK them; and the server's RTX SSRC toward subscribers.
final class VideoStreamCache {
    /// Slots of a video stream's cache (one second of 720p30 fits) and of an audio stream's (2.5 s of 20 ms packets).
    static let videoSlots = 1024
    static let audioSlots = 128
    let slots: Int
    static let slotSize = 1500
    private let storage: UnsafeMutableRawPointer
    private var sequences: [Int32]
    private var lengths: [Int]
    private var stored: [Instant]
    /// Packets missing on the uplink (publisher -> server).
    var missing = NackList()
    /// Uplink counts for receiver reports.
    var uplink = SequenceCounter()
    /// The server's SSRC for retransmissions of this stream to subscribers.
    let rtxSsrc: UInt32
    /// The stream's payload type (96 VP8, 98 VP9, 111 Opus, 100 reliable data); RTX uses the next one.
    let payloadType: UInt8
    /// How long a packet is held (1 s for media; 6 s for reliable data, which is retransmitted for 5 s).
    let maxAge: Duration
    /// The stream's rate as it arrives (bps, RTP bytes over the last whole second):
    /// what forwarding it to one subscriber costs.
    private(set) var bitrate = 0
    private var windowBytes = 0
    private var windowStart: Instant? = nil

    /// The highest sequence number stored, and when (fast start sends it).
    private(set) var newest: (sequence: UInt16, at: Instant)? = nil

    /// Slots of a reliable data stream's cache (6 s at the 30 messages a second limit, and keepalives).
    static let dataSlots = 512

    init(rtxSsrc: UInt32, payloadType: UInt8, slots: Int = VideoStreamCache.videoSlots, maxAge: Duration = .seconds(1)) {
        self.maxAge = maxAge
        self.rtxSsrc = rtxSsrc
        self.payloadType = payloadType
        self.slots = slots
        sequences = [Int32](repeating: -1, count: slots)
        lengths = [Int](repeating: 0, count: slots)
        stored = [Instant](repeating: Instant(nanoseconds: 0), count: slots)
        storage = .allocate(byteCount: slots * Self.slotSize, alignment: 16)
        missing.maxRetries = 8
    }

    deinit { storage.deallocate() }

    /// Whether the packet with `sequence` is held (a duplicate when it arrives again).
    func holds(_ sequence: UInt16, now: Instant) -> Bool {
        let i = Int(sequence) % slots
        return sequences[i] == Int32(sequence) && now - stored[i] <= maxAge
    }

    /// Keeps a forwarded packet (`length` bytes of plain RTP at `packet`).
    func store(_ packet: UnsafeRawPointer, length: Int, sequence: UInt16, now: Instant) {
        guard length <= Self.slotSize else { return }
        let i = Int(sequence) % slots
        (storage + i * Self.slotSize).copyMemory(from: packet, byteCount: length)
        sequences[i] = Int32(sequence)
        lengths[i] = length
        stored[i] = now
        if let n = newest, Int16(bitPattern: sequence &- n.sequence) <= 0 {} else { newest = (sequence, now) }
        windowBytes += length
        if let start = windowStart {
            if now - start >= .seconds(1) {
                bitrate = windowBytes * 8
                windowBytes = 0
                windowStart = now
            }
        } else {
            windowStart = now
        }
    }

    /// Runs `body` with the held packet of `sequence`, if any.
    func withPacket<R>(_ sequence: UInt16, now: Instant, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        guard holds(sequence, now: now) else { return nil }
        let i = Int(sequence) % slots
        return body(UnsafeRawBufferPointer(start: storage + i * Self.slotSize, count: lengths[i]))
    }
}

