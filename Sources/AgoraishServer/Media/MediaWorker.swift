import AgoraishIO
import AgoraishWire
import CAgoraishShim
import Glibc

/// A forwarding thread that owns a share of the channels: it unprotects what
/// their publishers send, remaps SSRCs, and protects and sends a copy to every
/// other member. A channel lives on exactly one worker, so its forwarding
/// takes no lock; datagrams reach the worker through a lock-free ring from the
/// receive thread, and leave through the shared socket with sendmmsg.
final class MediaWorker: @unchecked Sendable {
    let loop: EventLoop
    let ring: PacketRing
    private let fd: Int32
    private let wakeFd: Int32
    private let counters: MediaCounters
    private let onStreamPublished: @Sendable (UInt64, UInt32, UInt8, UInt8, UInt32) -> Void
    /// Authenticated SRTP or SRTCP came from a participant's candidate address
    /// (set by the router before any datagram flows).
    var onCandidateProven: (@Sendable (UInt64) -> Void)?
    /// A message for a browser's data channel (session, framed message; docs/web.md), set by the router.
    var onBrowserData: (UInt64, [UInt8]) -> Void = { _, _ in }
    /// Hands a removed participant to the thread that frees SRTP contexts.
    var release: (MediaParticipant) -> Void = { _ in }
    /// Whether the datagram being processed came from a candidate address.
    private var fromCandidate = false
    let probeLimits: ProbeLimits
    /// Last-mile probe bytes per destination address in the current 100 ms window.
    var probeWindows: [SocketAddress: (start: Instant, bytes: Int)] = [:]
    /// A subscriber (session) now gets only the audio of a publisher (uid), or its video again.
    let onSubscribeFallback: @Sendable (UInt64, UInt32, Bool) -> Void
    static let batch = 64
    static let slot = 2048
    /// Streams (SSRCs) one participant may publish.
    static let maxStreamsPerParticipant = 8
    // Payload types (what mutes, subscriptions, layers and caches apply to)
    // come from the table shared with the engine: `PayloadType` in AgoraishWire.
    /// How soon the server NACKs a missing uplink packet again.
    static let uplinkNackInterval: Duration = .milliseconds(20)
    /// How often the server sends each participant transport-wide feedback on its uplink.
    static let feedbackInterval: Duration = .milliseconds(100)
    /// What the server counts for one forwarded audio stream when it shares out a downlink (bps).
    static let audioAllowance = 48_000
    /// How long forwarding may exceed a subscriber's estimate before it steps down.
    static let stepDownAfter: Duration = .milliseconds(1500)
    /// The first wait before a step up, doubled (to at most a minute) each time one is undone within 10 s.
    static let stepUpHold: Duration = .seconds(4)

    /// Each participant's rates over the last second (written by the worker each second, read by /status).
    let rates = Locked<[UInt64: ParticipantRates]>([:])
    /// Feedback timer ticks (rates are published every tenth).
    var feedbackTicks = 0

    // Worker-thread state.
    var participants: [UInt64: MediaParticipant] = [:]
    /// Echo tests: audio packets (plain, server SSRC) waiting to go back to their sender.
    private var echoes: [(due: Instant, to: MediaParticipant, packet: [UInt8])] = []
    private var echoTimer: EventLoop.TimerID? = nil
    /// At most this many packets wait per worker (10 s of one Opus stream is 500).
    static let maxEchoPackets = 4096
    private var channels: [String: MediaChannel] = [:]
    private let tx: UnsafeMutablePointer<agsh_datagram>
    private let txBuffers: UnsafeMutableRawPointer
    private var txCount = 0
    var counts = MediaBatchCounts()
    private var ssrcSeed: UInt32

    /// Commands run per loop turn before the ring is drained again.
    static let commandsPerTurn = 32

    init(index: Int, fd: Int32, counters: MediaCounters, seed: UInt32, probeLimits: ProbeLimits = ProbeLimits(),
         onStreamPublished: @escaping @Sendable (UInt64, UInt32, UInt8, UInt8, UInt32) -> Void,
         onSubscribeFallback: @escaping @Sendable (UInt64, UInt32, Bool) -> Void) throws(EventThreadError) {
        self.fd = fd
        self.counters = counters
        self.onStreamPublished = onStreamPublished
        self.onSubscribeFallback = onSubscribeFallback
        self.probeLimits = probeLimits
        ssrcSeed = seed
        ring = PacketRing(capacity: 4096)
        wakeFd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        tx = .allocate(capacity: Self.batch)
        tx.initialize(repeating: agsh_datagram(), count: Self.batch)
        txBuffers = .allocate(byteCount: Self.batch * Self.slot, alignment: 16)
        // Commands run in slices between ring drains: thousands of removals
        // posted at once (a mass leave) delay forwarding by one slice at most.
        loop = try EventLoop(name: "agoraish-fwd\(index)", postedPerTurn: Self.commandsPerTurn)
        let wake = wakeFd
        loop.post { [self] in
            loop.register(wake, events: EventLoop.readable) { [self] _ in
                var value: UInt64 = 0
                _ = read(wake, &value, 8)
                drainRing()
            }
            scheduleFeedback()
        }
    }

    deinit {
        close(wakeFd)
        tx.deallocate()
        txBuffers.deallocate()
    }

    /// Receive thread: tells the worker datagrams are waiting in its ring.
    func wake() {
        var one: UInt64 = 1
        _ = write(wakeFd, &one, 8)
    }

    /// Stops the worker thread.
    /// Participants and channels refer to each other; removing every
    /// participant breaks those cycles so nothing outlives the server.
    func stop() {
        loop.post { [self] in
            loop.unregister(wakeFd)
            for session in Array(participants.keys) { remove(session) }
        }
        loop.stop(wait: true)
    }

    // MARK: - Commands (posted by the receive thread)

    func admit(_ grant: MediaGrant, keys: MediaKeys) {
        remove(grant.session)
        let key = grant.app + "\u{0}" + grant.channel
        let channel: MediaChannel
        if let existing = channels[key] {
            channel = existing
        } else {
            ssrcSeed = ssrcSeed &* 2_654_435_761 &+ 1
            channel = MediaChannel(key: key, seed: ssrcSeed)
            channels[key] = channel
        }
        let p = MediaParticipant(grant: grant, channel: channel, keys: keys)
        channel.members.append(p)
        participants[grant.session] = p
    }

    func setPublisher(_ session: UInt64, _ canPublish: Bool) { participants[session]?.publisher.canPublish = canPublish }

    func setAudioMuted(_ session: UInt64, _ muted: Bool) { participants[session]?.publisher.audioMuted = muted }

    func setAudioSubscription(_ session: UInt64, _ sub: AudioSubscription) {
        participants[session]?.subscriber.audioSubscription = sub
    }

    func setVideoMuted(_ session: UInt64, _ muted: Bool) { participants[session]?.publisher.videoMuted = muted }

    func setVideoSubscription(_ session: UInt64, _ sub: VideoSubscription) {
        guard let p = participants[session] else { return }
        p.subscriber.videoSubscription = sub
        // A subscriber that now wants the other stream of a publisher gets it
        // at that stream's next keyframe: ask the publisher for one.
        if sub.fallback == 0 { allocate(p, now: .now()) }
        requestSwitchKeyframes(for: p)
        finishBatch()
    }

    /// The participant named the SSRC of its low stream (0: none). A stream
    /// already seen under that SSRC is announced again, now as low (its first
    /// packets may come before the signaling that names it).
    func setVideoRetransmission(_ session: UInt64, _ pairs: [UInt32: UInt32]) { participants[session]?.rtxToMedia = pairs }

    func setVideoLowStream(_ session: UInt64, _ ssrc: UInt32) {
        guard let p = participants[session] else { return }
        let old = p.publisher.videoLowSsrc
        p.publisher.videoLowSsrc = ssrc
        if ssrc != 0, let mapped = p.ssrcMap[ssrc] { onStreamPublished(p.session, mapped, 0, VideoStreamLayer.low, 0) }
        if old != 0, old != ssrc, let mapped = p.ssrcMap[old] { onStreamPublished(p.session, mapped, 0, p.publisher.layer(ofOwn: old), 0) }
    }

    /// The participant named its simulcast layers (its own SSRCs -> 4...9).
    /// Streams already seen under those SSRCs are announced again as their layers.
    func setVideoLayers(_ session: UInt64, _ layers: [UInt32: UInt8]) {
        guard let p = participants[session] else { return }
        let old = p.publisher.videoLayers
        p.publisher.videoLayers = layers
        for ssrc in Set(old.keys).union(layers.keys) where old[ssrc] != layers[ssrc] {
            if let mapped = p.ssrcMap[ssrc] { onStreamPublished(p.session, mapped, 0, p.publisher.layer(ofOwn: ssrc), 0) }
        }
    }

    /// Sends the publisher an RTCP PLI (RFC 4585 §6.3.1) for one of its streams (its own SSRC).
    func requestKeyframe(of publisher: MediaParticipant, ssrc: UInt32) {
        guard let to = publisher.address else { return }
        let pli = PictureLossIndication(sender: .none, media: Ssrc(ssrc))
        var bytes = pli.bytes
        bytes.withUnsafeMutableBytes { raw in
            send(raw.baseAddress!, raw.count, to: to) { slot, n throws(SrtpError) in
                try publisher.downlink.protectRtcp(slot, length: n)
            }
        }
        counts.layerKeyframeRequests += 1
    }

    /// A browser's offer was answered: its numbers and what it may be sent.
    /// A video stream the browser's answer adds gets a keyframe request at once,
    /// instead of after the browser's first undecodable packets.
    func setWebRtc(_ session: UInt64, _ peer: WebRtcPeer) {
        guard let p = participants[session] else { return }
        let before = p.webrtc?.receiving ?? []
        p.webrtc = WebRtcRewrite(peer)
        for ssrc in peer.receiving.subtracting(before) where p.channel.videoCaches[ssrc] != nil {
            if let (publisher, original) = p.channel.streams[ssrc] { requestKeyframe(of: publisher, ssrc: original) }
        }
        finishBatch()
    }

    /// A browser's DTLS handshake gave its SRTP keys.
    func rekey(_ session: UInt64, _ keys: MediaKeys) { participants[session]?.rekey(keys) }

    /// Media for the participant goes to `address` now (nil: nowhere, its consent ran out).
    func bind(_ session: UInt64, _ address: SocketAddress?) {
        guard let p = participants[session] else { return }
        if p.address != address { p.consented = false }
        p.address = address
        if p.fastStart, address != nil {
            p.fastStart = false
            sendNewestAudio(to: p)
        }
    }

    /// How old a cached audio packet may be for fast start: a newer one is
    /// due within a 20 ms packet time, so playout can begin with this one.
    static let fastStartMaxAge: Duration = .milliseconds(30)

    /// Fast start (docs/protocol.md, Quick switch): the newest packet of each
    /// audio stream `p` receives, if it is recent, goes to it at once, so its
    /// playout need not wait for the publishers' next packets.
    private func sendNewestAudio(to p: MediaParticipant) {
        guard let to = p.address else { return }
        let now = Instant.now()
        for publisher in p.channel.members where publisher !== p && publisher.publisher.admits(.audio) == nil {
            if !p.subscriber.receivesAllAudio && p.subscriber.audioSubscription.blocks(publisher.uid) { continue }
            for ssrc in publisher.ssrcMap.values {
                guard let cache = p.channel.audioCaches[ssrc], let newest = cache.newest,
                      now - newest.at <= Self.fastStartMaxAge else { continue }
                _ = cache.withPacket(newest.sequence, now: now) { packet in
                    var copy = Array(packet) + [UInt8](repeating: 0, count: SrtpSession.maxTrailer)
                    let n = packet.count
                    copy.withUnsafeMutableBytes { raw in
                        stamp(raw.baseAddress!, n, for: p, now: now)
                        send(raw.baseAddress!, n, to: to) { slot, len throws(SrtpError) in
                            try p.protectRtp(slot, length: len)
                        }
                    }
                    counts.fastStartPackets += 1
                }
            }
        }
        finishBatch()
    }

    /// The participant's address answered a consent check.
    func consented(_ session: UInt64) { participants[session]?.consented = true }

    func remove(_ session: UInt64) {
        guard let p = participants.removeValue(forKey: session) else { return }
        // Its SRTP contexts are freed on the router's key thread, never here: with
        // libsrtp on NSS, freeing one costs time in proportion to all that live.
        defer { release(p) }
        p.channel.members.removeAll { $0 === p }
        if p.paddingSsrc != 0 { p.channel.rtxSsrcs.remove(p.paddingSsrc) }
        for s in p.ssrcMap.values {
            p.channel.streams[s] = nil
            if let cache = p.channel.videoCaches.removeValue(forKey: s) { p.channel.rtxSsrcs.remove(cache.rtxSsrc) }
            if let cache = p.channel.audioCaches.removeValue(forKey: s) { p.channel.rtxSsrcs.remove(cache.rtxSsrc) }
            if let cache = p.channel.dataCaches.removeValue(forKey: s) { p.channel.rtxSsrcs.remove(cache.rtxSsrc) }
            p.channel.dataStarted[s] = nil
            p.channel.audioUplinks[s] = nil
            p.channel.downlinkLoss[s] = nil
        }
        for m in p.channel.members {
            m.subscriber.forwardedLayer[p.uid] = nil
            for s in p.ssrcMap.values { m.dataFloors[s] = nil }
        }
        for key in Array(p.channel.downlinkLoss.keys) { p.channel.downlinkLoss[key]?[p.session] = nil }
        if p.channel.members.isEmpty { channels[p.channel.key] = nil }
    }

    // MARK: - Forwarding

    /// Drains until the ring is empty. The receive thread wakes the worker only
    /// when it finds the ring empty, so a datagram pushed while this runs is
    /// either seen by the emptiness check here or comes with a new wake-up.
    private func drainRing() {
        // One snapshot per wake-up: commands posted meanwhile run before the
        // next one. If more is queued, wake ourselves instead of looping, so a
        // busy worker never starves its command queue.
        ring.drain { buffer, length, session in process(buffer, length, session: session) }
        finishBatch()
        if !ring.isEmpty { wake() }
    }

    /// Forwards one datagram of a participant of this worker. The worker's own
    /// thread only: from its ring, or directly when the receive thread is this
    /// worker's thread (then `finishBatch` follows the batch).
    func process(_ buffer: UnsafeMutableRawPointer, _ length: Int, session tagged: UInt64) {
        fromCandidate = tagged & MediaRouter.candidateBit != 0
        let session = tagged & ~MediaRouter.candidateBit
        guard let p = participants[session] else { return drop(.unknownSource) }
        p.bytesIn &+= length
        let second = buffer.load(fromByteOffset: 1, as: UInt8.self)
        if second >= 192 && second <= 223 {
            routeRtcp(buffer, length, from: p)
        } else {
            forwardRtp(buffer, length, from: p)
        }
        if txCount == Self.batch { flush() }
    }

    /// Sends what is queued and publishes the batch's counters.
    func finishBatch() {
        flush()
        counters.add(&counts)
    }

    func drop(_ reason: MediaDropReason) { counts.drops[reason.rawValue] += 1 }

    private func forwardRtp(_ buffer: UnsafeMutableRawPointer, _ length: Int, from p: MediaParticipant) {
        var plain: Int
        do {
            plain = try p.uplink.unprotectRtp(buffer, length: length)
        } catch {
            return drop(error == .replay ? .replay : .authentication)
        }
        if fromCandidate { onCandidateProven?(p.session) }
        if let webrtc = p.webrtc, !webrtc.ingress(buffer, plain) { return drop(.notNegotiated) }
        forwardPlain(buffer, plain, from: p)
    }

    /// Forwards a plain RTP packet of `p` (unprotected, or made here for a
    /// browser's data channel message) to the other members of its channel.
    func forwardPlain(_ buffer: UnsafeMutableRawPointer, _ length: Int, from p: MediaParticipant) {
        var plain = length
        guard var header = try? RtpHeader.parse(UnsafeRawBufferPointer(start: buffer, count: plain)) else {
            return drop(.malformed)
        }
        counters.plainTap.see(UnsafeRawBufferPointer(start: buffer, count: plain))
        // One clock read and one look for the transport-wide number per packet.
        let now = Instant.now()
        var tseq = TransportFeedback.sequenceNumber(in: UnsafeRawBufferPointer(start: buffer, count: plain))
        if let (seq, _) = tseq { p.uplinkArrivals.record(seq, at: now) }
        // Padding only, or a last-mile probe packet: counted above and no further.
        let payloadType = PayloadType(header.payloadType)
        if payloadType == .probe
            || (header.paddingLength > 0 && header.payloadOffset + header.paddingLength == plain) { return drop(.probe) }
        guard p.publisher.canPublish else { return drop(.notPublisher) }
        var retransmitted = false
        if payloadType.isVideoRtx || payloadType == .opusRtx || payloadType == .reliableDataRtx {
            // A retransmission the server asked for: it becomes the original packet (RFC 4588 §4).
            guard let media = p.rtxToMedia[header.ssrc],
                  let original = RtxPacket.unwrap(UnsafeRawBufferPointer(start: buffer, count: plain),
                                                  payloadType: header.payloadType - 1, ssrc: media),
                  original.count + SrtpSession.maxTrailer <= Self.slot,
                  let h = original.withUnsafeBytes({ try? RtpHeader.parse($0) })
            else { return drop(.malformed) }
            original.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: original.count) }
            plain = original.count
            header = h
            retransmitted = true
            tseq = TransportFeedback.sequenceNumber(in: UnsafeRawBufferPointer(start: buffer, count: plain))
        }
        let kind = PayloadType(header.payloadType)
        let isAudio = kind.isAudio
        let isVideo = kind.isVideoMedia
        let isData = kind == .reliableData || kind == .unreliableData
        let routed: RoutedKind = isAudio ? .audio : isVideo ? .video : .data
        if let refused = p.publisher.admits(routed) { return drop(refused) }
        let ssrc: UInt32
        if let mapped = p.ssrcMap[header.ssrc] {
            ssrc = mapped
        } else {
            // A participant publishes a few streams (audio, video, a low layer);
            // more SSRCs than that is abuse, not media.
            guard p.ssrcMap.count < Self.maxStreamsPerParticipant else { return drop(.tooManyStreams) }
            ssrc = p.channel.allocateSsrc()
            p.ssrcMap[header.ssrc] = ssrc
            p.channel.streams[ssrc] = (p, header.ssrc)
            var rtx: UInt32 = 0
            if isVideo {
                p.publisher.videoSsrcs.insert(header.ssrc)
                rtx = p.channel.allocateSsrc()
                p.channel.rtxSsrcs.insert(rtx)
                p.channel.videoCaches[ssrc] = VideoStreamCache(rtxSsrc: rtx, payloadType: header.payloadType)
            }
            if isAudio {
                p.channel.audioUplinks[ssrc] = SequenceCounter()
                rtx = p.channel.allocateSsrc()
                p.channel.rtxSsrcs.insert(rtx)
                p.channel.audioCaches[ssrc] = VideoStreamCache(rtxSsrc: rtx, payloadType: header.payloadType,
                                                               slots: VideoStreamCache.audioSlots)
            }
            if kind == .reliableData {
                rtx = p.channel.allocateSsrc()
                p.channel.rtxSsrcs.insert(rtx)
                let cache = VideoStreamCache(rtxSsrc: rtx, payloadType: header.payloadType, slots: VideoStreamCache.dataSlots,
                                             maxAge: .seconds(6))
                cache.missing.maxAge = .seconds(5)
                cache.missing.maxRetries = 200
                // The publisher's first reliable item of the call, if the first packets seen
                // are just after it: those before were lost on the uplink and are asked for.
                let at = header.payloadOffset + 2
                if at + 2 <= plain, header.payloadOffset + DataStreamPacket.headerSize <= plain {
                    let start = UInt16(buffer.load(fromByteOffset: at, as: UInt8.self)) << 8
                        | UInt16(buffer.load(fromByteOffset: at + 1, as: UInt8.self))
                    let behind = Int(header.sequenceNumber &- start)
                    if behind > 0 && behind <= DataStreamReceiver.lookback { cache.missing.received(start &- 1, now: now) }
                }
                p.channel.dataCaches[ssrc] = cache
                p.channel.dataStarted[ssrc] = now
            }
            onStreamPublished(p.session, ssrc, header.payloadType, isVideo ? p.publisher.layer(ofOwn: header.ssrc) : 0, rtx)
        }
        if isAudio { p.channel.audioUplinks[ssrc]?.count(header.sequenceNumber) }
        // One cache lookup per video packet.
        let cache = isVideo ? p.channel.videoCaches[ssrc] : nil
        if let cache {
            if cache.holds(header.sequenceNumber, now: now) { return drop(.duplicate) }
            if retransmitted { counts.recoveredUpstream += 1 } else { cache.uplink.count(header.sequenceNumber) }
            cache.missing.received(header.sequenceNumber, now: now)
            if cache.missing.count > 0 { askAgain(p, ownSsrc: header.ssrc, cache: cache, now: now) }
        }
        // Dual stream and simulcast: which of the publisher's video streams this packet
        // is, and whether it starts a keyframe (where a subscriber may switch to it).
        let layer = isVideo && p.publisher.isLayered ? p.publisher.layer(ofOwn: header.ssrc) : VideoStreamLayer.high
        var startsKeyframe: Bool? = nil
        // The publisher's routing state, read once for all its subscribers.
        let publisher = p.publisher
        RtpHeader.rewriteSsrc(UnsafeMutableRawBufferPointer(start: buffer, count: plain), ssrc)
        // Audio and reliable data: kept for subscribers' NACKs; a publisher that names the
        // stream's RTX stream is asked for what the uplink lost.
        if let kept = isAudio ? p.channel.audioCaches[ssrc] : isData ? p.channel.dataCaches[ssrc] : nil {
            if kept.holds(header.sequenceNumber, now: now) { return drop(.duplicate) }
            kept.store(buffer, length: plain, sequence: header.sequenceNumber, now: now)
            if retransmitted { counts.recoveredUpstream += 1 }
            if p.rtxToMedia.values.contains(header.ssrc) {
                kept.missing.received(header.sequenceNumber, now: now)
                if kept.missing.count > 0 { askAgain(p, ownSsrc: header.ssrc, cache: kept, now: now) }
            }
        }
        // Reliable data: where the start field is, for subscribers that came after the stream began.
        let dataStartAt = isData && kind == .reliableData
            && header.payloadOffset + DataStreamPacket.headerSize <= plain ? header.payloadOffset + 2 : nil
        let originalStart = dataStartAt.map { UInt16(buffer.load(fromByteOffset: $0, as: UInt8.self)) << 8
            | UInt16(buffer.load(fromByteOffset: $0 + 1, as: UInt8.self)) }
        defer {
            if let at = dataStartAt, let start = originalStart {
                buffer.storeBytes(of: UInt8(start >> 8), toByteOffset: at, as: UInt8.self)
                buffer.storeBytes(of: UInt8(start & 0xFF), toByteOffset: at + 1, as: UInt8.self)
            }
        }
        // Each subscriber's copy carries the server's own transport-wide number for it.
        let tseqOffset = tseq?.offset
        cache?.store(buffer, length: plain, sequence: header.sequenceNumber, now: now)
        if isAudio, let delay = p.echoDelay {
            // The echo test: the sender's own audio, back to it after the delay.
            guard echoes.count < Self.maxEchoPackets else { return drop(.queueFull) }
            echoes.append((.now() + delay, p, Array(UnsafeRawBufferPointer(start: buffer, count: plain))))
            scheduleEchoes()
        }
        for member in p.channel.members where member !== p {
            guard let to = member.address else { continue }
            let verdict = member.subscriber.route(routed, layer: layer, from: publisher) {
                if startsKeyframe == nil {
                    let payload = UnsafeRawBufferPointer(start: buffer + header.payloadOffset,
                                                         count: max(0, plain - header.payloadOffset - header.paddingLength))
                    startsKeyframe = kind == .vp9 ? VP9Payload.startsKeyframe(payload) : VP8Payload.startsKeyframe(payload)
                }
                return startsKeyframe!
            }
            switch verdict {
            case .forward: break
            case .switched: counts.layerSwitches += 1
            case .drop(let reason):
                drop(reason)
                continue
            }
            // A browser gets data streams as messages on its data channel, not as RTP.
            if isData && member.webrtc != nil {
                deliverData(to: member, from: p, buffer, plain, header: header, ssrc: ssrc, now: now)
                continue
            }
            // A stream a browser's answer did not name is not sent to it, and takes no transport-wide number.
            if let webrtc = member.webrtc, !webrtc.receiving.contains(ssrc) {
                drop(.notNegotiated)
                continue
            }
            if let tseqOffset {
                let seq = member.downlinkEstimate.packetSent(size: plain, at: now)
                TransportFeedback.write(seq, into: UnsafeMutableRawBufferPointer(start: buffer, count: plain), at: tseqOffset)
            }
            if let at = dataStartAt, let start = originalStart {
                var floor = member.dataFloors[ssrc]
                if floor == nil, let began = p.channel.dataStarted[ssrc], member.admittedAt > began {
                    floor = header.sequenceNumber
                    member.dataFloors[ssrc] = floor
                }
                let value = floor.map { Int16(bitPattern: $0 &- start) > 0 ? $0 : start } ?? start
                buffer.storeBytes(of: UInt8(value >> 8), toByteOffset: at, as: UInt8.self)
                buffer.storeBytes(of: UInt8(value & 0xFF), toByteOffset: at + 1, as: UInt8.self)
            }
            send(buffer, plain, to: to) { slot, n throws(SrtpError) in try member.protectRtp(slot, length: n) }
        }
    }

    /// RTCP policy (docs/media-plane.md): sender reports and SDES from a publisher
    /// are forwarded with SSRCs remapped; transport and payload feedback (NACK,
    /// PLI, FIR) from a subscriber go back to the publisher of the stream they
    /// name; receiver reports and everything else end here.
    private func routeRtcp(_ buffer: UnsafeMutableRawPointer, _ length: Int, from p: MediaParticipant) {
        let plain: Int
        do {
            plain = try p.uplink.unprotectRtcp(buffer, length: length)
        } catch {
            return drop(error == .replay ? .replay : .authentication)
        }
        if fromCandidate { onCandidateProven?(p.session) }
        let compound = RtcpCompound(UnsafeRawBufferPointer(start: buffer, count: plain))
        guard plain >= 8, compound.isWellFormed else { return drop(.malformed) }
        if compound.leading?.type == .senderReport {
            guard p.publisher.canPublish else { return drop(.notPublisher) }
            // Packets that do not read as their type travel on untouched.
            var packets = compound.map { m in
                (try? m.parse()) ?? .unknown(type: m.type, format: m.format, bytes: Array(m.bytes))
            }
            answerSenderReports(packets, from: p)
            packets = RtcpRoute.publisherReports(packets, ssrcMap: p.ssrcMap)
            var out = RtcpCompound.serialized(packets)
            out.withUnsafeMutableBytes { raw in
                for member in p.channel.members where member !== p {
                    guard let to = member.address else { continue }
                    send(raw.baseAddress!, raw.count, to: to) { slot, len throws(SrtpError) in
                        try member.downlink.protectRtcp(slot, length: len)
                    }
                }
            }
            return
        }
        var forwarded = false
        for member in compound {
            // Packets that do not read as their type are left out.
            guard let packet = try? member.parse() else { continue }
            switch RtcpRoute(packet) {
            case .downlinkFeedback:
                guard case .transportFeedback(let f) = packet else { continue }
                // Feedback on what the server sent this participant: its downlink estimate, and what it receives.
                // A downlink is congested when it loses, or already when a queue stands: a publisher
                // sending more than it carries fills the queue first, so the bound comes before the loss.
                let now = Instant.now()
                p.downlinkEstimate.feedbackReceived(f, at: now, rtt: .milliseconds(50))
                if p.downlinkEstimate.lossRatio > 0.02 { p.lastDownlinkLoss = now }
                if p.downlinkEstimate.lossRatio > 0.02 || p.downlinkEstimate.queueingDelay > BandwidthEstimator.standingQueue {
                    p.lastDownlinkCongestion = now
                }
                allocate(p, now: now)
                forwarded = true
            case .receiverReport:
                guard case .receiverReport(let rr) = packet else { continue }
                // A subscriber's receiver report: what it loses of each stream, remembered per stream.
                for b in rr.reports where p.channel.streams[b.ssrc.rawValue] != nil {
                    p.channel.downlinkLoss[b.ssrc.rawValue, default: [:]][p.session] = b.fractionLost
                }
            case .answerNack:
                guard case .genericNack(let nack) = packet else { continue }
                answerNack(nack, to: p)
                forwarded = true
            case .toPublisher(let target):
                // Named by the server's SSRC; the publisher knows its own.
                guard let (publisher, original) = p.channel.streams[target], let to = publisher.address else { continue }
                var out = packet.retargeted(to: Ssrc(original)).serialized()
                out.withUnsafeMutableBytes { raw in
                    send(raw.baseAddress!, raw.count, to: to) { slot, len throws(SrtpError) in
                        try publisher.downlink.protectRtcp(slot, length: len)
                    }
                }
                forwarded = true
            case .end:
                continue
            }
        }
        if !forwarded { drop(.rtcpTerminated) }
    }

    /// Answers a publisher's sender reports at once with a receiver report
    /// (RFC 3550 §6.4.2): LSR from each SR, DLSR 0, and for video streams the
    /// uplink loss the server saw. The publisher reads its round trip to the
    /// server from it, and its uplink loss.
    private func answerSenderReports(_ packets: [RtcpPacket], from p: MediaParticipant) {
        guard let to = p.address else { return }
        var blocks: [ReportBlock] = []
        for case .senderReport(let sr) in packets {
            var block = ReportBlock(ssrc: sr.ssrc, lastSR: RtcpReport.middle(sr.ntpTime))
            if let mapped = p.ssrcMap[sr.ssrc.rawValue], let r = p.channel.videoCaches[mapped]?.uplink.report()
                ?? p.channel.audioUplinks[mapped]?.report() {
                // Audio's sender protects it (FEC) for the whole path, so audio reports
                // carry the worse of the uplink and the worst downlink (as subscribers
                // report it: what retransmission recovered counts as received).
                let downstream = p.channel.audioUplinks[mapped] != nil
                    ? p.channel.downlinkLoss[mapped]?.values.max() ?? 0 : 0
                block.fractionLost = max(r.fraction, downstream)
                block.cumulativeLost = r.cumulative
                block.highestSequence = r.highest
            }
            blocks.append(block)
        }
        guard !blocks.isEmpty else { return }
        var bytes = ReceiverReport(ssrc: .none, reports: blocks).bytes
        bytes.withUnsafeMutableBytes { raw in
            send(raw.baseAddress!, raw.count, to: to) { slot, len throws(SrtpError) in
                try p.downlink.protectRtcp(slot, length: len)
            }
        }
    }

    /// Sends the echo packets that are due, then waits for the next.
    private func scheduleEchoes() {
        guard echoTimer == nil, let next = echoes.first?.due else { return }
        echoTimer = loop.schedule(at: next) { [self] in
            echoTimer = nil
            let now = Instant.now()
            while let e = echoes.first, e.due <= now {
                echoes.removeFirst()
                guard participants[e.to.session] === e.to, let to = e.to.address else { continue }
                var copy = e.packet + [UInt8](repeating: 0, count: SrtpSession.maxTrailer)
                let n = e.packet.count
                copy.withUnsafeMutableBytes { raw in
                    stamp(raw.baseAddress!, n, for: e.to, now: now)
                    send(raw.baseAddress!, n, to: to) { slot, len throws(SrtpError) in try e.to.protectRtp(slot, length: len) }
                }
            }
            finishBatch()
            scheduleEchoes()
        }
    }

    /// NACKs the publisher for the packets of one of its video streams still
    /// missing here, each at most every `uplinkNackInterval`.
    func askAgain(_ publisher: MediaParticipant, ownSsrc: UInt32, cache: VideoStreamCache, now: Instant) {
        guard let to = publisher.address else { return }
        let due = cache.missing.due(now: now, rtt: Self.uplinkNackInterval)
        guard !due.isEmpty else { return }
        var nack = GenericNack(sender: .none, media: Ssrc(ownSsrc), sequences: due).bytes
        nack.withUnsafeMutableBytes { raw in
            send(raw.baseAddress!, raw.count, to: to) { slot, len throws(SrtpError) in try publisher.downlink.protectRtcp(slot, length: len) }
        }
        counts.nackedUpstream += due.count
    }

    /// A subscriber's generic NACK: every packet still cached goes back to it
    /// as RTX on the stream's server RTX SSRC, numbered per subscriber.
    /// Packets the server lacks itself are being asked of the publisher
    /// already; once they come they are forwarded as usual.
    private func answerNack(_ nack: GenericNack, to member: MediaParticipant) {
        let media = nack.media.rawValue
        guard let to = member.address,
              let cache = member.channel.videoCaches[media] ?? member.channel.audioCaches[media]
                ?? member.channel.dataCaches[media] else { return }
        let now = Instant.now()
        let sequences = nack.sequences
        counts.nackRequests += sequences.count
        if now - member.rtxWindow.start >= .milliseconds(100) { member.rtxWindow = (now, 0) }
        let budget = member.downlinkEstimate.target / 8 / 10 / 2
        for seq in sequences.prefix(64) {
            guard member.rtxWindow.bytes < budget else {
                drop(.rtxBudget)
                continue
            }
            let rtxSeq = member.rtxSequences[cache.rtxSsrc, default: 0]
            guard var rtx = cache.withPacket(seq, now: now, { original -> [UInt8]? in
                RtxPacket.wrap(Array(original), rtxPayloadType: cache.payloadType + 1, rtxSsrc: cache.rtxSsrc,
                               rtxSequence: rtxSeq)
            }) ?? nil else { continue }
            member.rtxSequences[cache.rtxSsrc] = rtxSeq &+ 1
            let n = rtx.count
            member.rtxWindow.bytes += n
            rtx += [UInt8](repeating: 0, count: SrtpSession.maxTrailer)
            rtx.withUnsafeMutableBytes { raw in
                stamp(raw.baseAddress!, n, for: member, now: now)
                send(raw.baseAddress!, n, to: to) { slot, len throws(SrtpError) in try member.protectRtp(slot, length: len) }
            }
            counts.retransmitted += 1
        }
    }

    /// Copies a packet into the next send slot, lets `protect` transform it in
    /// place (returning the new length), and queues it for `to`.
    func send(_ packet: UnsafeMutableRawPointer, _ length: Int, to: SocketAddress,
                      protect: (UnsafeMutableRawPointer, Int) throws(SrtpError) -> Int) {
        guard length + SrtpSession.maxTrailer <= Self.slot else { return drop(.malformed) }
        if txCount == Self.batch { flush() }
        let slot = txBuffers + txCount * Self.slot
        slot.copyMemory(from: packet, byteCount: length)
        let n: Int
        do { n = try protect(slot, length) } catch { return drop(.sendFailed) }
        // A browser's answer did not name this stream (or its payload type).
        guard n > 0 else { return drop(.notNegotiated) }
        tx[txCount].buffer = slot
        tx[txCount].length = n
        tx[txCount].addr = to.storage
        tx[txCount].addr_len = to.length
        txCount += 1
    }

    private func flush() {
        var start = 0
        while start < txCount {
            let sent = Int(agsh_sendmmsg(fd, tx + start, UInt32(txCount - start)))
            if sent <= 0 {
                counts.drops[MediaDropReason.sendFailed.rawValue] += txCount - start
                break
            }
            for i in start..<start + sent {
                counts.packetsOut += 1
                counts.bytesOut += tx[i].length
            }
            start += sent
        }
        txCount = 0
    }
}
