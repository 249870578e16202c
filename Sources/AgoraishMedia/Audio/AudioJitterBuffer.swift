import AgoraishWire

/// An adaptive jitter buffer for one remote Opus stream, sans-IO.
///
/// Packets go in as they arrive (`insert`), in any order, with their arrival
/// time; audio comes out exactly 10 ms at a time (`pull`), whatever happened
/// on the network:
///
/// - a packet that is present is decoded;
/// - a missing packet whose successor is present is rebuilt from the
///   successor's in-band FEC (RFC 6716 LBRR);
/// - otherwise the decoder conceals the gap (PLC);
/// - before the first packet, and after a long silence, the output is silence.
///
/// The playout delay follows the measured interarrival jitter (RFC 3550
/// §A.8): target = clamp(3 × jitter + 5 ms, minimum, maximum). When more
/// audio is buffered than the target plus a margin, one 10 ms frame is
/// dropped; after an underrun the target grows. Late and duplicate packets are
/// counted and dropped; the buffer holds at most `capacity` packets.
public struct AudioJitterBuffer {
    /// How a 10 ms frame was produced.
    public enum FrameKind: Sendable, Equatable {
        case decoded, fec, concealed, silence
    }

    /// What `insert` did with a packet.
    public enum InsertResult: Sendable, Equatable {
        case accepted, duplicate, late, overflow, invalid
    }

    /// Counters for statistics (onRemoteAudioStats).
    public struct Stats: Sendable, Equatable {
        public var received = 0
        public var duplicates = 0
        public var late = 0
        public var overflow = 0
        public var decoded = 0
        public var fecRecovered = 0
        public var concealed = 0
        public var dropped10ms = 0
        /// Interarrival jitter estimate, in milliseconds.
        public var jitterMs = 0.0
        /// Current target playout delay, in milliseconds.
        public var targetDelayMs = 0
        /// Audio buffered ahead of playout, in milliseconds.
        public var bufferedMs = 0

        /// Zeroed counters.
        public init() {}
    }

    /// Samples per channel in one 10 ms output frame at 48 kHz.
    public static let frameSamples = 480

    public let channels: Int
    public let minimumDelay: Duration
    public let maximumDelay: Duration
    public let capacity: Int
    public private(set) var stats = Stats()

    private let decoder: OpusDecoder
    private var packets: [Int64: [UInt8]] = [:]
    private var highestSeq: Int64? = nil
    private var nextSeq: Int64? = nil
    private var playing = false
    private var firstArrival: Instant? = nil
    private var pcm: [Int16] = []          // decoded, not yet pulled
    private var segments: [(samples: Int, kind: FrameKind)] = []  // how each part of `pcm` was made
    private var packetSamples = 960        // samples per channel of the last packet (20 ms default)
    private var transit: Double? = nil     // RFC 3550 relative transit of the previous packet, ms
    private var jitter = 0.0               // ms
    private var targetDelay: Duration
    private var underrun = false
    /// Consecutive frames concealed while waiting for a packet that has not arrived.
    private var dryFrames = 0
    /// After this many 10 ms frames (200 ms), concealment stops: the stream paused.
    static let maxDryFrames = 20
    private var scratch: [Int16]

    /// Playout starts with the first packet instead of the target delay after
    /// it (fast start: the first packet is one the server kept, already as
    /// old as the target). Cleared when playout restarts.
    public var startsAtFirstPacket = false

    /// A buffer decoding to `channels` channels with the given delay bounds.
    public init(channels: Int = 1, minimumDelay: Duration = .milliseconds(20),
                maximumDelay: Duration = .milliseconds(400), capacity: Int = 100) throws(OpusError) {
        self.channels = channels
        self.minimumDelay = minimumDelay
        self.maximumDelay = maximumDelay
        self.capacity = capacity
        decoder = try OpusDecoder(channels: Int32(channels))
        targetDelay = minimumDelay
        scratch = [Int16](repeating: 0, count: 5760 * channels)
    }

    /// Takes a packet: RTP sequence number and timestamp (48 kHz), the Opus
    /// payload, and when it arrived. A retransmission (`retransmitted`) fills
    /// its gap if it is still ahead of playout but does not count as jitter.
    @discardableResult
    public mutating func insert(sequence: UInt16, timestamp: UInt32, payload: [UInt8], arrival: Instant,
                                retransmitted: Bool = false) -> InsertResult {
        guard let samples = OpusDecoder.samplesPerChannel(in: payload), samples <= 5760 else { return .invalid }
        let seq = extend(sequence)
        stats.received += 1
        if playing, let next = nextSeq, seq < next {
            stats.late += 1
            return .late
        }
        if packets[seq] != nil {
            stats.duplicates += 1
            return .duplicate
        }
        if packets.count >= capacity {
            stats.overflow += 1
            return .overflow
        }
        packets[seq] = payload
        packetSamples = samples
        highestSeq = max(highestSeq ?? seq, seq)
        if firstArrival == nil { firstArrival = arrival }
        if !retransmitted { updateJitter(timestamp: timestamp, arrival: arrival) }
        return .accepted
    }

    /// Forgets buffered audio and the playout position (the stream paused or
    /// was muted); the next packet starts playout afresh. Counters are kept.
    public mutating func reset() {
        startsAtFirstPacket = false
        packets = [:]
        highestSeq = nil
        nextSeq = nil
        playing = false
        firstArrival = nil
        pcm = []
        segments = []
        transit = nil
    }

    /// Writes exactly 10 ms (480 samples per channel, interleaved) into `out`
    /// and says how it was made.
    public mutating func pull(into out: UnsafeMutablePointer<Int16>, now: Instant) -> FrameKind {
        let need = Self.frameSamples * channels
        if !playing {
            guard let first = firstArrival, startsAtFirstPacket || now - first >= targetDelay,
                  let lowest = packets.keys.min() else {
                out.update(repeating: 0, count: need)
                return .silence
            }
            playing = true
            nextSeq = lowest
        }
        while pcm.count < need {
            let kind = refill()
            if kind == .silence { break }
        }
        if pcm.count < need {
            out.update(repeating: 0, count: need)
            return .silence
        }
        pcm.withUnsafeBufferPointer { out.update(from: $0.baseAddress!, count: need) }
        let kind = consume(need)
        // Too much buffered: drop 10 ms to come back towards the target.
        let buffered = bufferedDuration()
        stats.bufferedMs = Int(buffered.milliseconds)
        if buffered > targetDelay + .milliseconds(60) && pcm.count >= need {
            _ = consume(need)
            stats.dropped10ms += 1
        }
        return kind
    }

    /// The least playout delay while lost packets are being asked for again
    /// (NACK): a round trip and a packet's time, so a retransmission comes
    /// before its turn. Zero: none. Raising it raises the target at once; the
    /// delay itself grows at the next gap, which waits (concealing 10 ms at a
    /// time, at most `retransmissionWaitFrames`) instead of moving on.
    public var delayFloor: Duration = .zero {
        didSet {
            if delayFloor > targetDelay { targetDelay = min(maximumDelay, delayFloor) }
            stats.targetDelayMs = Int(targetDelay.milliseconds)
        }
    }
    /// The duration of the packets arriving (of the last one inserted; 20 ms
    /// until the first).
    public var packetDuration: Duration { .milliseconds(Int64(packetSamples / 48)) }

    /// How many 10 ms frames a gap may wait for its retransmission.
    public static let retransmissionWaitFrames = 4
    private var waitedFor: (seq: Int64, frames: Int)? = nil

    /// Loss recovery on (the default): gaps are rebuilt from the next packet's
    /// FEC or concealed by the decoder (PLC). Off: they are played as silence,
    /// and only FEC-free decoding remains (a baseline for measurements).
    public var lossRecovery = true

    /// Fills `scratch` with `samples` per channel of silence; returns `samples`.
    private mutating func silence(_ samples: Int) -> Int {
        for i in 0..<min(scratch.count, samples * channels) { scratch[i] = 0 }
        return samples
    }

    // MARK: - Internals

    /// Decodes the next packet (or rebuilds or conceals it) onto `pcm`.
    private mutating func refill() -> FrameKind {
        guard let seq = nextSeq, let highest = highestSeq else { return .silence }
        if seq > highest + 50 {
            // Nothing for a long time: stop and start afresh with the next packets.
            restart()
            return .silence
        }
        nextSeq = seq + 1
        let frame = packetSamples
        let produced: Int
        let kind: FrameKind
        if let payload = packets.removeValue(forKey: seq) {
            underrun = false
            dryFrames = 0
            produced = (try? decoder.decode(payload, into: &scratch, maxSamplesPerChannel: 5760)) ?? 0
            kind = .decoded
            stats.decoded += 1
        } else if lossRecovery, let following = packets[seq + 1],
                  let n = try? decoder.decode(following, into: &scratch, maxSamplesPerChannel: frame, fec: true), n > 0 {
            produced = n
            kind = .fec
            stats.fecRecovered += 1
        } else if seq > highest {
            // Ran dry: nothing at or after this packet has arrived, so it may be
            // late rather than lost. Conceal one frame without moving on: the
            // packet keeps its place, and the playout delay grows by the frame.
            nextSeq = seq
            dryFrames += 1
            if dryFrames > Self.maxDryFrames {
                // The sender paused (or the path broke): stop and buffer afresh.
                restart()
                return .silence
            }
            // 10 ms at a time, so the delay grows in small steps.
            produced = lossRecovery ? (try? decoder.conceal(into: &scratch, samplesPerChannel: Self.frameSamples)) ?? 0
                                    : silence(Self.frameSamples)
            kind = .concealed
            stats.concealed += 1
            // Wait longer from now on: once per underrun, not per concealed frame.
            if !underrun { targetDelay = min(maximumDelay, targetDelay + .milliseconds(20)) }
            underrun = true
        } else if lossRecovery, delayFloor > .zero, bufferedDuration() + .milliseconds(10) <= targetDelay,
                  (waitedFor?.seq != seq || waitedFor!.frames < Self.retransmissionWaitFrames) {
            // Asked for again, and there is room to wait: 10 ms of concealment
            // without moving on, so the retransmission can still take its place.
            nextSeq = seq
            waitedFor = (seq, waitedFor?.seq == seq ? waitedFor!.frames + 1 : 1)
            produced = (try? decoder.conceal(into: &scratch, samplesPerChannel: Self.frameSamples)) ?? 0
            kind = .concealed
            stats.concealed += 1
        } else {
            produced = lossRecovery ? (try? decoder.conceal(into: &scratch, samplesPerChannel: frame)) ?? 0
                                    : silence(frame)
            kind = .concealed
            stats.concealed += 1
        }
        if produced > 0 {
            pcm.append(contentsOf: scratch[0..<produced * channels])
            segments.append((produced * channels, kind))
        }
        return kind
    }

    /// Removes `count` samples from the front of `pcm` and says how the worst
    /// of them was made (concealed, then FEC, then decoded).
    private mutating func consume(_ count: Int) -> FrameKind {
        pcm.removeFirst(count)
        var left = count
        var worst = FrameKind.decoded
        while left > 0, !segments.isEmpty {
            let take = min(left, segments[0].samples)
            let k = segments[0].kind
            if k == .concealed || (k == .fec && worst == .decoded) { worst = k }
            segments[0].samples -= take
            left -= take
            if segments[0].samples == 0 { segments.removeFirst() }
        }
        return worst
    }

    /// Stops playout; the next packets start it again after the target delay.
    private mutating func restart() {
        startsAtFirstPacket = false
        playing = false
        firstArrival = nil
        nextSeq = nil
        transit = nil
        dryFrames = 0
        underrun = false
        packets = [:]
    }

    /// Audio waiting: decoded samples plus whole packets not yet decoded.
    private func bufferedDuration() -> Duration {
        let queuedSamples = pcm.count / channels + packets.count * packetSamples
        return .milliseconds(Int64(queuedSamples / 48))
    }

    /// RFC 3550 §A.8 interarrival jitter, in ms, and the target delay from it.
    private mutating func updateJitter(timestamp: UInt32, arrival: Instant) {
        let arrivalMs = Double(arrival.nanoseconds) / 1e6
        let mediaMs = Double(timestamp) / 48.0
        let relative = arrivalMs - mediaMs
        if let previous = transit {
            var d = abs(relative - previous)
            if d > 10_000 { d = 0 }  // timestamp wrap or a new talk spurt far away
            jitter += (d - jitter) / 16
        }
        transit = relative
        stats.jitterMs = jitter
        // Three times the jitter, plus a little for the scheduling of the
        // pulls: the packet being played already covers its own duration.
        let wanted = Duration.milliseconds(Int64(3 * jitter + 5))
        targetDelay = min(maximumDelay, max(minimumDelay, delayFloor, max(targetDelay - .milliseconds(1), wanted)))
        stats.targetDelayMs = Int(targetDelay.milliseconds)
    }

    /// Extends a 16-bit sequence number to 64 bits around the highest seen.
    private func extend(_ s: UInt16) -> Int64 {
        guard let highest = highestSeq else { return Int64(s) + 65536 }
        let base = highest & ~0xFFFF
        var candidate = base | Int64(s)
        if candidate - highest > 32768 { candidate -= 65536 } else if highest - candidate > 32768 { candidate += 65536 }
        return candidate
    }
}
