import AgoraishIO
import AgoraishWire
import Glibc
import Synchronization

/// Something the data path reports (Agora's onStreamMessage,
/// onStreamMessageError, onAudioMetadataReceived, onEncryptionError).
public enum DataEvent: Sendable, Equatable {
    /// A message of a remote user's data stream, with the sender's clock when it was sent (ms).
    case streamMessage(uid: UInt32, streamId: Int32, data: [UInt8], sentTs: UInt64)
    /// Messages of a remote user's stream will not arrive: `code` is ERR_STREAM_MESSAGE_TIMEOUT (117).
    case streamMessageError(uid: UInt32, streamId: Int32, code: Int32, missed: Int32, cached: Int32)
    /// Audio metadata a remote user sent (sendAudioMetadata).
    case audioMetadata(uid: UInt32, data: [UInt8])
    /// End-to-end encryption failed (ENCRYPTION_ERROR_TYPE).
    case encryptionError(EncryptionErrorType)
}

/// A host's media metadata source and sink (Agora's IMetadataObserver for
/// VIDEO_METADATA). `readyToSend` runs on the video thread for each picture
/// sent, with its capture timestamp (ms), and returns the metadata to attach
/// (at most `maxSize` bytes, up to 1024) or nil; `received` runs on the
/// event thread with the sender's uid, the metadata and the picture's timestamp.
public struct MetadataObserver: Sendable {
    public var maxSize: Int
    public var readyToSend: (@Sendable (Int64) -> [UInt8]?)?
    public var received: (@Sendable (UInt32, [UInt8], Int64) -> Void)?
    /// The largest metadata a picture may carry.
    public static let maxMetadataSize = 1024

    public init(maxSize: Int, readyToSend: (@Sendable (Int64) -> [UInt8]?)?, received: (@Sendable (UInt32, [UInt8], Int64) -> Void)?) {
        self.maxSize = maxSize
        self.readyToSend = readyToSend
        self.received = received
    }
}

/// The engine's data path (docs/data-streams.md): stream messages, media
/// metadata and their reliability on the media path.
///
/// Sending: an API call builds the RTP packet (payload type 100 reliable,
/// 102 unreliable), keeps reliable ones 6 s to answer the server's NACKs as
/// RTX (101), and sends keepalives after the last reliable item so a lost
/// tail is noticed. Receiving (network thread): one `DataStreamReceiver` per
/// sender; gaps are NACKed until filled or given up after 5 s.
///
/// Threads: sending runs on the caller's thread under `sendLock`; receiving,
/// the timer and delivery to the event thread on the network thread.
final class DataPipeline: @unchecked Sendable {
    /// How long reliable items are kept for retransmission.
    static let historyAge: Duration = .seconds(6)
    static let tick: Duration = .milliseconds(20)

    struct SendState {
        var streams = DataStreamSender()
        var ssrc: UInt32 = 0
        var rtxSsrc: UInt32 = 0
        var unreliableSsrc: UInt32 = 0
        var sequence: UInt16 = 0
        /// The sequence number of the first reliable item of this call (nil: none sent yet).
        var callStart: UInt16? = nil
        var unreliableSequence: UInt16 = 0
        var rtxSequence: UInt16 = 0
        var history = PacketHistory(capacity: 1024, maxAge: DataPipeline.historyAge)
        var crypto = PayloadProtection.Context()
        /// Items made before the media path was bound, sent once it is.
        var backlog: [[UInt8]] = []
        var metadata: MetadataObserver? = nil
    }

    struct ReceiveState {
        var senders: [UInt32: DataStreamReceiver] = [:]
        /// Outputs of senders whose owner signaling has not named yet.
        var unowned: [UInt32: [(output: DataStreamReceiver.Output, at: Instant)]] = [:]
        /// Messages of streams synchronized with audio, waiting for their audio to play.
        var synced: [(due: Instant, event: DataEvent)] = []
        var crypto = PayloadProtection.Context()
    }

    let sendLock = Locked(SendState())
    private let receive = Locked(ReceiveState())
    let transport = Locked<MediaTransport?>(nil)
    /// When the armed timer fires (nil: none armed). An earlier need arms another.
    private let timerDue = Locked<Instant?>(nil)
    let protection: PayloadProtection
    private let owners: @Sendable (UInt32) -> UInt32?
    private let rtxStreams: @Sendable (UInt32) -> UInt32?
    private let playoutDelay: @Sendable (UInt32) -> Duration
    private let emit: @Sendable (DataEvent) -> Void
    private let onEventThread: @Sendable (@escaping @Sendable () -> Void) -> Void

    init(protection: PayloadProtection, owners: @escaping @Sendable (UInt32) -> UInt32?,
         rtxStreams: @escaping @Sendable (UInt32) -> UInt32?, playoutDelay: @escaping @Sendable (UInt32) -> Duration,
         emit: @escaping @Sendable (DataEvent) -> Void,
         onEventThread: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.protection = protection
        self.owners = owners
        self.rtxStreams = rtxStreams
        self.playoutDelay = playoutDelay
        self.emit = emit
        self.onEventThread = onEventThread
        let seed = secureRandomBytes(16)
        func u32(_ i: Int) -> UInt32 {
            UInt32(seed[i]) << 24 | UInt32(seed[i + 1]) << 16 | UInt32(seed[i + 2]) << 8 | UInt32(seed[i + 3])
        }
        sendLock.withLock {
            $0.ssrc = u32(0) | 1
            $0.rtxSsrc = u32(4) | 1 == $0.ssrc ? u32(4) ^ 2 : u32(4) | 1
            $0.unreliableSsrc = u32(8) | 1 == $0.ssrc || u32(8) | 1 == $0.rtxSsrc ? u32(8) ^ 4 : u32(8) | 1
            $0.sequence = UInt16(truncatingIfNeeded: u32(12))
            $0.unreliableSequence = UInt16(truncatingIfNeeded: u32(12) >> 16)
        }
    }

    /// The reliable data stream's SSRC and its RTX SSRC (fixed for the engine's life).
    var ssrcs: (ssrc: UInt32, rtx: UInt32) { sendLock.withLock { ($0.ssrc, $0.rtxSsrc) } }

    // MARK: - Sending

    /// Creates a stream (createDataStream). Throws `.tooManyDataStreams` past five.
    func create(reliable: Bool, ordered: Bool, syncWithAudio: Bool) throws(AgoraError) -> Int32 {
        do {
            return try sendLock.withLock { s throws(DataStreamSender.Refusal) in
                try s.streams.create(reliable: reliable, ordered: ordered, syncWithAudio: syncWithAudio)
            }
        } catch {
            throw .tooManyDataStreams
        }
    }

    /// Sends a message on a stream (sendStreamMessage). Throws
    /// `.invalidArgument` for an unknown stream, `.sizeTooLarge` over 1 KB,
    /// `.bitrateLimit` over 30 messages or 6 KB in the last second.
    func sendMessage(streamId: Int32, _ data: [UInt8]) throws(AgoraError) {
        let now = Instant.now()
        try sendLock.withLock { s throws(AgoraError) in
            let admitted: (header: DataStreamPacket.Header, reliable: Bool)
            do throws(DataStreamSender.Refusal) {
                admitted = try s.streams.admit(streamId: streamId, size: data.count, now: now, wallClockMs: Self.wallClockMs())
            } catch {
                switch error {
                case .tooLarge: throw .sizeTooLarge
                case .rateLimited: throw .bitrateLimit
                case .tooManyStreams: throw .tooManyDataStreams
                case .unknownStream: throw .invalidArgument
                }
            }
            guard send(&s, admitted.header, data, reliable: admitted.reliable, now: now) else { throw .failed }
        }
        armTimer(after: DataStreamSender.firstKeepalive)
    }

    /// Sends media metadata (a picture's, or audio metadata) reliably. False when it could not be sent.
    @discardableResult
    func sendMetadata(_ kind: DataStreamPacket.Kind, _ data: [UInt8], timestampMs: UInt64) -> Bool {
        let now = Instant.now()
        let ok = sendLock.withLock { s in
            send(&s, DataStreamPacket.Header(kind: kind, ordered: true, timestampMs: timestampMs), data, reliable: true, now: now)
        }
        armTimer(after: DataStreamSender.firstKeepalive)
        return ok
    }

    /// The host's metadata observer (nil: none).
    var metadataObserver: MetadataObserver? {
        get { sendLock.withLock { $0.metadata } }
        set { sendLock.withLock { $0.metadata = newValue } }
    }

    /// A picture of the high stream was sent (video thread): its metadata, if the host has some, follows it.
    func pictureSent(timestampMs: Int64) {
        guard let o = metadataObserver, let source = o.readyToSend, let data = source(timestampMs), !data.isEmpty,
              data.count <= min(o.maxSize, MetadataObserver.maxMetadataSize) else { return }
        sendMetadata(.videoMetadata, data, timestampMs: UInt64(bitPattern: timestampMs))
    }

    /// Builds, keeps and sends one item. Under `sendLock`.
    private func send(_ s: inout SendState, _ item: DataStreamPacket.Header, _ data: [UInt8], reliable: Bool,
                      now: Instant) -> Bool {
        var header = item
        if reliable {
            if s.callStart == nil { s.callStart = s.sequence }
            header.start = s.callStart!
        }
        var body = data
        protection.refresh(&s.crypto)
        var mode: EncryptionMode? = nil
        if header.kind != .keepalive, let m = s.crypto.mode {
            guard let sealed = protection.outgoing(data, .data, &s.crypto) else { return false }
            body = sealed
            mode = m
        }
        let sequence = reliable ? s.sequence : s.unreliableSequence
        let pt = reliable ? PayloadType.reliableData.rawValue : PayloadType.unreliableData.rawValue
        var packet = RtpHeader(marker: false, payloadType: pt, sequenceNumber: sequence,
                               timestamp: UInt32(truncatingIfNeeded: Self.wallClockMs() &* 90),
                               ssrc: reliable ? s.ssrc : s.unreliableSsrc).serialized
        packet[0] |= 0x10
        if let mode {
            packet += [0xBE, 0xDE, 0, 2, TransportFeedback.extensionId << 4 | 1, 0, 0,
                       RtpHeaderExtension.payloadProtectionId << 4, UInt8(mode.rawValue), 0, 0, 0]
        } else {
            packet += [0xBE, 0xDE, 0, 1, TransportFeedback.extensionId << 4 | 1, 0, 0, 0]
        }
        packet += header.serialized
        packet += body
        if reliable {
            s.sequence &+= 1
            s.history.store(packet, sequence: sequence, now: now)
            // Keepalives follow items; they do not move their own schedule.
            if header.kind != .keepalive { s.streams.reliableSent(now: now) }
        } else {
            s.unreliableSequence &+= 1
        }
        guard let link = transport.withLock({ $0 }), link.bound else {
            // Not bound yet: sent once it is (a few at most).
            if s.backlog.count < 64 { s.backlog.append(packet) }
            return true
        }
        transmit(packet, link)
        return true
    }

    private func transmit(_ packet: [UInt8], _ link: MediaTransport) {
        var p = packet + [UInt8](repeating: 0, count: SrtpSession.maxTrailer)
        let n = packet.count
        p.withUnsafeMutableBytes { link.send(rtp: $0.baseAddress!, length: n) }
    }

    /// The server asked for reliable items again (its uplink lost them): each
    /// one still kept goes back as RTX (RFC 4588, payload type 101). Network thread.
    func nacked(sequences: [UInt16]) {
        guard let link = transport.withLock({ $0 }) else { return }
        let now = Instant.now()
        let packets = sendLock.withLock { s -> [[UInt8]] in
            var out: [[UInt8]] = []
            for seq in sequences.prefix(64) {
                guard let original = s.history.packet(seq, now: now),
                      let rtx = RtxPacket.wrap(original, rtxPayloadType: PayloadType.reliableDataRtx.rawValue, rtxSsrc: s.rtxSsrc,
                                               rtxSequence: s.rtxSequence) else { continue }
                s.rtxSequence &+= 1
                out.append(rtx)
            }
            return out
        }
        for p in packets { transmit(p, link) }
    }

    /// Leaving a channel: the streams and what waits to be sent are forgotten.
    func resetStreams() {
        sendLock.withLock {
            $0.streams.clear()
            $0.backlog = []
            $0.callStart = nil
        }
    }

    /// The media path closed: what each sender's data had reached starts afresh with the next.
    func resetReceive() {
        receive.withLock { r in
            r.senders = [:]
            r.unowned = [:]
            r.synced = []
        }
    }

    // MARK: - Receiving (network thread)

    /// A data RTP packet from the transport (plain): reliable (100), its RTX (101) or unreliable (102).
    func received(rtp: UnsafeMutableRawPointer, length: Int, now: Instant) {
        let raw = UnsafeRawBufferPointer(start: rtp, count: length)
        guard var h = try? RtpHeader.parse(raw) else { return }
        var bytes: [UInt8]
        if h.payloadType == PayloadType.reliableDataRtx.rawValue {
            guard let media = rtxStreams(h.ssrc),
                  let original = RtxPacket.unwrap(raw, payloadType: PayloadType.reliableData.rawValue, ssrc: media),
                  let oh = original.withUnsafeBytes({ try? RtpHeader.parse($0) }) else { return }
            bytes = original
            h = oh
        } else {
            bytes = Array(raw)
        }
        let end = bytes.count - h.paddingLength
        guard h.payloadOffset + DataStreamPacket.headerSize <= end,
              let header = bytes.withUnsafeBytes({ DataStreamPacket.Header.parse(UnsafeRawBufferPointer(rebasing: $0[h.payloadOffset..<end])) }),
              let mark = bytes.withUnsafeBytes({ PayloadProtection.mark(in: $0) })
        else { return }
        // The payload travels through the receiver with the mode its packet was marked with in front.
        let payload = [UInt8(mark?.rawValue ?? 0)] + bytes[(h.payloadOffset + DataStreamPacket.headerSize)..<end]
        let outputs = receive.withLock { r -> [DataStreamReceiver.Output] in
            var receiver = r.senders[h.ssrc] ?? DataStreamReceiver()
            defer { r.senders[h.ssrc] = receiver }
            if h.payloadType == PayloadType.unreliableData.rawValue {
                return receiver.receivedUnreliable(header: header, payload: payload)
            }
            return receiver.receivedReliable(sequence: h.sequenceNumber, header: header, payload: payload, now: now)
        }
        handle(outputs, ssrc: h.ssrc, now: now)
        if h.payloadType != PayloadType.unreliableData.rawValue { sendNacks(now: now) }
        armTimer()
    }

    /// Hands outputs on (or keeps them until the sender's owner is known).
    private func handle(_ outputs: [DataStreamReceiver.Output], ssrc: UInt32, now: Instant) {
        guard !outputs.isEmpty else { return }
        guard let uid = owners(ssrc) else {
            receive.withLock { r in
                var list = r.unowned[ssrc] ?? []
                for o in outputs where list.count < 256 { list.append((o, now)) }
                r.unowned[ssrc] = list
            }
            return
        }
        // What waited for the owner goes first: the sender's order holds.
        let parked = receive.withLock { $0.unowned.removeValue(forKey: ssrc) } ?? []
        for (o, _) in parked { deliver(o, uid: uid, now: now) }
        for o in outputs { deliver(o, uid: uid, now: now) }
    }

    /// Decrypts an item (its first byte is the mode its packet was marked with) and reports it.
    private func deliver(_ output: DataStreamReceiver.Output, uid: UInt32, now: Instant) {
        switch output {
        case .gap(let g):
            emit(.streamMessageError(uid: uid, streamId: Int32(g.streamId), code: AgoraError.streamMessageTimeout.rawValue,
                                     missed: Int32(clamping: g.missed), cached: Int32(clamping: g.cached)))
        case .deliver(let item):
            guard let first = item.payload.first else { return }
            let marked = EncryptionMode(rawValue: Int32(first))
            let body = Array(item.payload.dropFirst())
            guard let data = receive.withLock({ r -> [UInt8]? in
                protection.refresh(&r.crypto)
                guard r.crypto.mode != nil || marked != nil else { return body }
                return protection.incoming(body, marked: marked, .data, &r.crypto)
            }) else { return }
            let h = item.header
            switch h.kind {
            case .message:
                let event = DataEvent.streamMessage(uid: uid, streamId: Int32(h.streamId), data: data, sentTs: h.timestampMs)
                if h.syncWithAudio {
                    // Played with the sender's audio of the same moment: after what is buffered of it here.
                    let due = now + playoutDelay(uid)
                    receive.withLock { $0.synced.append((due, event)) }
                } else {
                    emit(event)
                }
            case .audioMetadata:
                emit(.audioMetadata(uid: uid, data: data))
            case .videoMetadata:
                guard let sink = metadataObserver?.received else { return }
                let ts = Int64(bitPattern: h.timestampMs)
                onEventThread { sink(uid, data, ts) }
            case .keepalive:
                break
            }
        }
    }

    /// NACKs what each reliable sender is still missing.
    private func sendNacks(now: Instant) {
        guard let link = transport.withLock({ $0 }) else { return }
        let rtt = link.rtt ?? .milliseconds(100)
        let due = receive.withLock { r -> [(UInt32, [UInt16])] in
            var out: [(UInt32, [UInt16])] = []
            for ssrc in Array(r.senders.keys) {
                let n = r.senders[ssrc]!.nacks(now: now, rtt: rtt)
                if !n.isEmpty { out.append((ssrc, n)) }
            }
            return out
        }
        for (ssrc, sequences) in due {
            for chunk in stride(from: 0, to: sequences.count, by: 64).map({ Array(sequences[$0..<min($0 + 64, sequences.count)]) }) {
                link.send(rtcp: GenericNack(sender: .none, media: Ssrc(ssrc), sequences: chunk))
            }
        }
    }

    // MARK: - Timer (network thread)

    /// Runs `tick` every 20 ms while anything waits: a backlog, keepalives,
    /// gaps, messages held for audio or for their owner.
    private func armTimer(after delay: Duration = DataPipeline.tick) {
        guard let link = transport.withLock({ $0 }) else { return }
        let due = Instant.now() + delay
        // A timer due sooner (or about as soon) already covers this.
        let arm = timerDue.withLock { t -> Bool in
            if let t, t <= due + .milliseconds(1) { return false }
            t = due
            return true
        }
        guard arm else { return }
        _ = link.loop.post { [weak self] in
            _ = link.loop.schedule(at: due) { [weak self] in self?.tick(due) }
        }
    }

    /// The timer's work (idempotent: a superseded timer that still fires does it again, harmlessly).
    private func tick(_ due: Instant) {
        timerDue.withLock { if $0 == due { $0 = nil } }
        guard let link = transport.withLock({ $0 }), !link.closed else { return }
        let now = Instant.now()
        // Keepalives and the backlog.
        let waitingToGo = sendLock.withLock { s -> [[UInt8]] in
            guard link.bound else { return [] }
            defer { s.backlog = [] }
            return s.backlog
        }
        for p in waitingToGo { transmit(p, link) }
        sendLock.withLock { s in
            if s.streams.keepaliveDue(now: now) { _ = send(&s, DataStreamPacket.Header(kind: .keepalive), [], reliable: true, now: now) }
        }
        // Gaps given up, owners learned, synchronized messages due.
        var given: [(UInt32, [DataStreamReceiver.Output])] = []
        var named: [(UInt32, [(output: DataStreamReceiver.Output, at: Instant)])] = []
        let due = receive.withLock { r -> [DataEvent] in
            for ssrc in Array(r.senders.keys) {
                let o = r.senders[ssrc]!.poll(now: now)
                if !o.isEmpty { given.append((ssrc, o)) }
            }
            for (ssrc, list) in r.unowned where owners(ssrc) != nil {
                named.append((ssrc, list))
                r.unowned[ssrc] = nil
            }
            // Kept for an unknown owner at most 5 s.
            for (ssrc, list) in r.unowned { r.unowned[ssrc] = list.filter { now - $0.at < .seconds(5) } }
            let ready = r.synced.filter { $0.due <= now }.map(\.event)
            r.synced.removeAll { $0.due <= now }
            return ready
        }
        for (ssrc, outputs) in given { handle(outputs, ssrc: ssrc, now: now) }
        for (ssrc, list) in named {
            let uid = owners(ssrc)!
            for (o, _) in list { deliver(o, uid: uid, now: now) }
        }
        for e in due { emit(e) }
        sendNacks(now: now)
        // Every 20 ms while something waits here; else at the next keepalive.
        let (keepalive, backlog) = sendLock.withLock { ($0.streams.nextKeepalive, !$0.backlog.isEmpty) }
        let waiting = receive.withLock { r in r.senders.values.contains { $0.waiting } || !r.unowned.isEmpty || !r.synced.isEmpty }
        if waiting || backlog {
            armTimer()
        } else if let keepalive {
            armTimer(after: max(.milliseconds(1), keepalive - Instant.now()))
        }
    }

    static func wallClockMs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) * 1000 + UInt64(ts.tv_nsec) / 1_000_000
    }
}
