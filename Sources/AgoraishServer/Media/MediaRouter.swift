import AgoraishIO
import AgoraishWire
import CAgoraishShim
import Glibc

/// The SFU media plane: one UDP port, STUN binding (ICE-lite), SRTP/SRTCP per
/// participant, SSRCs remapped at ingress, and forwarding of every RTP packet
/// a publisher sends to every other participant of its channel that has a
/// bound address (docs/media-plane.md).
///
/// Addresses (docs/media-plane.md, Consent): a fresh binding request (a
/// transaction id not seen before) from a new address makes it a candidate;
/// it becomes the participant's media address only on proof — an answer to
/// the server's consent check from it, or authenticated SRTP/SRTCP from it —
/// and stays so while it answers consent checks (RFC 7675): every
/// `consentInterval`, nothing more after `consentTimeout` without an answer.
/// A binding request whose transaction id was seen is answered again only
/// from the address it came from, and moves nothing.
///
/// Threads: the receive thread is worker 0's thread. It reads batches
/// (recvmmsg), answers STUN, forwards the datagrams of worker 0's channels
/// itself, and hands the others to the worker that owns the sender's channel
/// through that worker's lock-free ring. Channels are spread over the workers
/// by a hash of their name, so a channel's forwarding never takes a lock. The
/// workers send through the same socket (sendmmsg). Buffers are allocated
/// once; forwarding allocates nothing per packet.
public final class MediaRouter: @unchecked Sendable {
    /// Counters for /metrics.
    public let counters = MediaCounters()

    let loop: EventLoop
    /// Frees removed participants' SRTP contexts, off the forwarding threads.
    let keyThread: EventLoop
    let fd: Int32
    let workers: [MediaWorker]
    static let batch = 64
    static let slot = 2048

    /// What the receive thread knows of a participant.
    private struct Entry {
        let session: UInt64
        let ufrag: String
        let password: [UInt8]
        let worker: Int
        /// Where media goes, once proven.
        var address: SocketAddress?
        /// A new address seen in a fresh binding request, not yet proven.
        var candidate: SocketAddress?
        /// When `address` was bound, and last answered a consent check (nil: never).
        var boundAt = Instant(nanoseconds: 0)
        var consentAt: Instant?
        /// The consent checks still answerable (the last `checksKept`, none
        /// older than `consentTimeout`): transaction id, destination and when it went.
        var checks: [(id: [UInt8], to: SocketAddress, at: Instant)] = []
        var nextCheck = Instant(nanoseconds: 0)
        /// Transaction ids of the last binding requests acted on.
        var seen: [[UInt8]] = []
        /// Consent ran out once: from then on only an answered check binds an address.
        var expired = false
        /// A browser (docs/web.md): keyed by DTLS on this port once its offer
        /// is answered; it checks consent itself (its binding requests refresh it).
        var webrtc = false
        var dtls: DtlsEndpoint? = nil
        /// The browser's certificate fingerprint the endpoint checks, and whether its keys reached the worker.
        var dtlsFingerprint = ""
        var dtlsKeyed = false
        /// Its data channels (SCTP over the DTLS association): channel id ->
        /// whether it is the reliable one; the reliable channel messages go out on.
        var sctp: SctpAssociation? = nil
        var dataChannels: [UInt16: Bool] = [:]
        var dataOut: UInt16? = nil
    }

    /// A datagram from a candidate address goes to its worker with this bit set in the session.
    static let candidateBit: UInt64 = 1 << 63
    /// Transaction ids remembered per participant (about 2.5 minutes of the engine's keepalives).
    static let seenTransactions = 64
    /// A candidate that sends a fresh binding request is checked again if its last check is older than this.
    static let candidateRecheck: Duration = .milliseconds(200)
    /// An address bound by SRTP alone (it answered no check yet) is checked
    /// this often until it answers one.
    static let unansweredRecheck: Duration = .milliseconds(500)
    /// Consent checks that stay answerable per participant.
    static let checksKept = 8
    private let consentInterval: Duration
    private let consentTimeout: Duration
    /// The certificate browsers see in the answer's fingerprint (nil: no WebRTC).
    private let certificate: DtlsCertificate?
    private var byCandidate: [SocketAddress: (session: UInt64, worker: Int)] = [:]
    /// Browser sessions whose DTLS handshake is under way (their retransmission timers run).
    private var handshaking = Set<UInt64>()
    /// Browser sessions with data channels (their SCTP timers run).
    private var dataSessions = Set<UInt64>()
    private var lastSctpTimers = Instant.now()
    private var random = SplitMix64(seed: 0)

    // Receive-thread state.
    private var byUfrag: [String: UInt64] = [:]
    private var bySession: [UInt64: Entry] = [:]
    private var byAddress: [SocketAddress: (session: UInt64, worker: Int)] = [:]
    private let rx: UnsafeMutablePointer<agsh_datagram>
    private let rxBuffers: UnsafeMutableRawPointer
    private var counts = MediaBatchCounts()
    private var pushed: [Bool]

    /// A router on `fd` (a bound, non-blocking UDP socket it now owns) with
    /// `workerCount` forwarding threads. `onStreamPublished` is called on a
    /// worker thread when a publisher starts a stream (session, server SSRC,
    /// payload type, whether it is a low video stream, the server's RTX SSRC
    /// for it or 0). `onSubscribeFallback` is called on a worker thread when
    /// a subscriber (session) gets only the audio of a publisher (uid), or
    /// its video again, because of the subscriber's downlink.
    public init(fd: Int32, workerCount: Int, consentInterval: Duration = .seconds(5), consentTimeout: Duration = .seconds(30),
                probeLimits: ProbeLimits = ProbeLimits(), certificate: DtlsCertificate? = nil,
                onStreamPublished: @escaping @Sendable (UInt64, UInt32, UInt8, UInt8, UInt32) -> Void,
                onSubscribeFallback: @escaping @Sendable (UInt64, UInt32, Bool) -> Void = { _, _, _ in }) throws(EventThreadError) {
        self.fd = fd
        self.consentInterval = consentInterval
        self.consentTimeout = consentTimeout
        self.certificate = certificate
        var seed: UInt32 = 0
        _ = agsh_random_bytes(&seed, 4)
        random = SplitMix64(seed: UInt64(seed) << 32 | UInt64(seed))
        var made: [MediaWorker] = []
        for i in 0..<max(1, workerCount) {
            made.append(try MediaWorker(index: i, fd: fd, counters: counters, seed: seed &+ UInt32(i) &* 0x9E37_79B9,
                                        probeLimits: probeLimits,
                                        onStreamPublished: onStreamPublished, onSubscribeFallback: onSubscribeFallback))
        }
        workers = made
        pushed = Array(repeating: false, count: made.count)
        // Receiving runs on worker 0's thread, which forwards its own channels without a handoff.
        loop = made[0].loop
        rx = .allocate(capacity: Self.batch)
        rx.initialize(repeating: agsh_datagram(), count: Self.batch)
        rxBuffers = .allocate(byteCount: Self.batch * Self.slot, alignment: 16)
        keyThread = try EventLoop(name: "agoraish-srtp")
        // The first SRTP context initializes the crypto library (NSS): pay for it now, not at a client's join.
        _ = try? SrtpSession(profile: .aeadAes128Gcm, keying: [UInt8](repeating: 1, count: SrtpProfile.aeadAes128Gcm.keyingLength),
                             inbound: true)
        loop.post { [self] in
            loop.register(fd, events: EventLoop.readable) { [self] _ in drain() }
            scheduleConsent()
        }
        for w in workers {
            // Authenticated SRTP from a candidate address proves it (posted to this thread).
            // Weakly: the router owns its workers.
            w.onCandidateProven = { [weak self] session in
                guard let self else { return }
                loop.post { [weak self] in self?.promote(session, consent: false) }
            }
            w.release = { [keyThread] p in keyThread.post { withExtendedLifetime(p) {} } }
            w.onBrowserData = { [weak self] session, message in
                self?.loop.post { [weak self] in self?.sendToBrowser(session, message) }
            }
        }
    }

    deinit {
        rx.deallocate()
        rxBuffers.deallocate()
    }

    /// Carries out a signaling decision. Commands reach the owning worker
    /// before any datagram the receive thread reads after them.
    ///
    /// An admission's SRTP contexts are made here, on the caller's thread (the
    /// signaling thread), and freed on the key thread: with libsrtp on NSS
    /// (Debian's build) making or freeing one costs time in proportion to all
    /// that live, which must never stall forwarding. (The router made one at
    /// start, so NSS is initialized before any client comes.)
    public func apply(_ command: SignalingCore.MediaCommand) {
        var keys: MediaKeys? = nil
        if case .admit(let grant) = command {
            guard let made = try? MediaKeys(grant) else { return }
            keys = made
        }
        loop.post { [self] in route(command, keys: keys) }
    }

    private func route(_ command: SignalingCore.MediaCommand, keys: MediaKeys?) {
        if case .admit(let grant) = command, let keys {
            removeEntry(grant.session)
            let w = worker(for: grant.app + "\u{0}" + grant.channel)
            var entry = Entry(session: grant.session, ufrag: grant.iceUfrag, password: Array(grant.icePassword.utf8),
                              worker: w, address: nil)
            entry.webrtc = grant.webrtc
            bySession[grant.session] = entry
            byUfrag[grant.iceUfrag] = grant.session
            workers[w].loop.post { [worker = workers[w]] in worker.admit(grant, keys: keys) }
            return
        }
        let session: UInt64
        switch command {
        case .admit: return
        case .remove(let s):
            removeEntry(s)
            return
        case .webrtcNegotiated(let s, let peer):
            negotiated(s, peer)
            return
        case .setPublisher(let s, _), .setAudioMuted(let s, _), .setAudioSubscription(let s, _),
             .setVideoMuted(let s, _), .setVideoSubscription(let s, _), .setVideoRetransmission(let s, _),
             .setVideoLowStream(let s, _), .setVideoLayers(let s, _), .probeDownlink(let s, _, _):
            session = s
        case .webrtcNegotiated: return
        }
        guard let e = bySession[session] else { return }
        let worker = workers[e.worker]
        switch command {
        case .admit, .remove, .webrtcNegotiated: break
        case .setPublisher(_, let canPublish): worker.loop.post { worker.setPublisher(session, canPublish) }
        case .setAudioMuted(_, let muted): worker.loop.post { worker.setAudioMuted(session, muted) }
        case .setAudioSubscription(_, let sub): worker.loop.post { worker.setAudioSubscription(session, sub) }
        case .setVideoMuted(_, let muted): worker.loop.post { worker.setVideoMuted(session, muted) }
        case .setVideoSubscription(_, let sub): worker.loop.post { worker.setVideoSubscription(session, sub) }
        case .setVideoRetransmission(_, let pairs): worker.loop.post { worker.setVideoRetransmission(session, pairs) }
        case .setVideoLowStream(_, let ssrc): worker.loop.post { worker.setVideoLowStream(session, ssrc) }
        case .setVideoLayers(_, let layers): worker.loop.post { worker.setVideoLayers(session, layers) }
        case .probeDownlink(_, let bitrate, let durationMs):
            worker.loop.post { worker.probe(session, bitrate: bitrate, duration: .milliseconds(Int64(durationMs))) }
        }
    }

    /// Each participant's (session's) rates over the last second; any thread.
    public func participantRates() -> [UInt64: ParticipantRates] {
        var all: [UInt64: ParticipantRates] = [:]
        for w in workers { w.rates.withLock { all.merge($0) { a, _ in a } } }
        return all
    }

    /// Stops the threads and closes the socket.
    public func stop() {
        loop.post { [self] in loop.unregister(fd) }
        keyThread.stop(wait: true)
        for w in workers { w.stop() }
        close(fd)
    }

    // MARK: - Receive thread

    private func worker(for channelKey: String) -> Int {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in channelKey.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        return Int(h % UInt64(workers.count))
    }

    private func removeEntry(_ session: UInt64) {
        // O(1): a mass leave must not stall the receive thread (each entry knows its ufrag).
        guard let e = bySession.removeValue(forKey: session) else { return }
        if byUfrag[e.ufrag] == session { byUfrag[e.ufrag] = nil }
        if let a = e.address, byAddress[a]?.session == session { byAddress[a] = nil }
        if let c = e.candidate, byCandidate[c]?.session == session { byCandidate[c] = nil }
        workers[e.worker].loop.post { [worker = workers[e.worker]] in worker.remove(session) }
    }

    private func drain() {
        while true {
            for i in 0..<Self.batch {
                rx[i].buffer = rxBuffers + i * Self.slot
                rx[i].length = Self.slot - SrtpSession.maxTrailer
            }
            let n = Int(agsh_recvmmsg(fd, rx, UInt32(Self.batch)))
            if n <= 0 { break }
            for i in 0..<n { handle(i) }
            workers[0].finishBatch()
            for w in 1..<workers.count where pushed[w] {
                workers[w].wake()
                pushed[w] = false
            }
            counters.add(&counts)
            if n < Self.batch { break }
        }
    }

    private func handle(_ i: Int) {
        let buffer = rx[i].buffer!
        let length = rx[i].length
        counts.packetsIn += 1
        counts.bytesIn += length
        let address = SocketAddress(storage: rx[i].addr, length: rx[i].addr_len)
        switch MediaPacketKind.classify(UnsafeRawBufferPointer(start: buffer, count: length)) {
        case .rtp, .rtcp:
            guard let (session, w) = byAddress[address]
                ?? byCandidate[address].map({ ($0.session | Self.candidateBit, $0.worker) }) else {
                counts.drops[MediaDropReason.unknownSource.rawValue] += 1
                return
            }
            if w == 0 {
                workers[0].process(buffer, length, session: session)
            } else if let wasEmpty = workers[w].ring.push(buffer, length: length, session: session) {
                if wasEmpty { pushed[w] = true }
            } else {
                counts.drops[MediaDropReason.queueFull.rawValue] += 1
            }
        case .stun:
            answerStun(buffer, length, from: address)
        case .dtls:
            handleDtls(buffer, length, from: address)
        case .unknown:
            counts.drops[MediaDropReason.malformed.rawValue] += 1
        }
    }

    /// An answer to a consent check: from the address it went to, with its
    /// transaction id and the participant's integrity. A candidate becomes the
    /// media address; the bound address's consent is refreshed.
    private func consentAnswered(_ bytes: [UInt8], _ transactionId: [UInt8], from address: SocketAddress) {
        guard let session = (byAddress[address] ?? byCandidate[address])?.session, let entry = bySession[session],
              entry.checks.contains(where: { $0.id == transactionId && $0.to == address }),
              (try? StunMessage.parse(bytes, integrityKey: entry.password)) != nil
        else {
            counts.drops[MediaDropReason.stun.rawValue] += 1
            return
        }
        bySession[session]!.checks.removeAll { $0.to == address }
        if address == entry.candidate {
            promote(session, consent: true)
        } else {
            bySession[session]!.consentAt = .now()
            workers[entry.worker].loop.post { [worker = workers[entry.worker]] in worker.consented(session) }
        }
    }

    /// The candidate address proved itself: media goes there now.
    private func promote(_ session: UInt64, consent: Bool) {
        guard let entry = bySession[session], let address = entry.candidate, consent || !entry.expired else { return }
        if let old = entry.address, byAddress[old]?.session == session { byAddress[old] = nil }
        if byCandidate[address]?.session == session { byCandidate[address] = nil }
        let now = Instant.now()
        bySession[session]!.address = address
        bySession[session]!.candidate = nil
        bySession[session]!.boundAt = now
        bySession[session]!.consentAt = consent ? now : nil
        bySession[session]!.nextCheck = now + (consent ? jittered(consentInterval) : min(Self.unansweredRecheck, consentInterval))
        byAddress[address] = (session, entry.worker)
        // Worker 0 runs on this thread: bind at once, before the next datagram
        // of this batch is forwarded. Others run their posted work before their ring.
        let worker = workers[entry.worker]
        let bind = {
            worker.bind(session, address)
            if consent { worker.consented(session) }
        }
        if entry.worker == 0 { bind() } else { worker.loop.post(bind) }
    }

    /// Sends a consent check (a binding request with a new transaction id,
    /// USERNAME "server:<ufrag>", integrity under the participant's password).
    private func sendConsentCheck(_ session: UInt64, to address: SocketAddress, now: Instant) {
        guard let entry = bySession[session] else { return }
        var id = [UInt8](repeating: 0, count: 12)
        for i in 0..<12 { id[i] = UInt8(truncatingIfNeeded: random.next()) }
        // The last few checks stay answerable (a slow host may answer an older
        // one after a newer went out); checks to addresses no longer in play go.
        bySession[session]!.checks.removeAll {
            ($0.to != address && $0.to != entry.address && $0.to != entry.candidate) || now - $0.at >= consentTimeout
        }
        if bySession[session]!.checks.count >= Self.checksKept { bySession[session]!.checks.removeFirst() }
        bySession[session]!.checks.append((id, address, now))
        let request = StunMessage(type: .bindingRequest, transactionId: id, attributes: [
            (StunMessage.AttributeType.username.rawValue, Array("server:\(entry.ufrag)".utf8)),
        ])
        let out = request.serialized(integrityKey: entry.password)
        let sent = out.withUnsafeBytes { raw in
            address.withSockaddr { sa, len in sendto(fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT), sa, len) }
        }
        if sent > 0 {
            counts.packetsOut += 1
            counts.bytesOut += sent
            counts.consentChecks += 1
        }
    }

    private func jittered(_ d: Duration) -> Duration {
        // ±20 % (RFC 7675 §5.1: uniformly distributed around the interval).
        let ns = d.nanosecondsClamped
        return .nanoseconds(ns * 8 / 10 + Int64(random.next() % UInt64(max(1, ns * 4 / 10))))
    }

    /// Every 100 ms: consent checks that are due, and addresses whose consent
    /// ran out (nothing more is sent to them; a new binding must prove itself).
    private func scheduleConsent() {
        loop.schedule(after: .milliseconds(100)) { [self] in
            let now = Instant.now()
            var expired: [UInt64] = [], due: [UInt64] = []
            defer { lastSctpTimers = now }
            if !dataSessions.isEmpty {
                // SCTP's timers (retransmission, heartbeats) for every browser's data channels.
                SctpAssociation.handleTimers(elapsed: now - lastSctpTimers)
                for session in dataSessions {
                    guard let e = bySession[session], let sctp = e.sctp, let dtls = e.dtls else {
                        dataSessions.remove(session)
                        continue
                    }
                    let out = sctp.pollTransmits()
                    if !out.isEmpty, let to = e.address ?? e.candidate { sendSctp(out, over: dtls, to: to) }
                    sctpEvents(session)
                }
            }
            for session in handshaking {
                // A browser's DTLS flight that went unanswered is sent again when its timer runs out.
                guard let e = bySession[session], let dtls = e.dtls, case .handshaking = dtls.state else {
                    handshaking.remove(session)
                    continue
                }
                guard let wait = dtls.nextTimeout, wait <= .zero, let to = e.address ?? e.candidate else { continue }
                sendDatagrams(dtls.handleTimeout(), to: to)
            }
            for (session, e) in bySession {
                guard e.address != nil else { continue }
                if now >= (e.consentAt ?? e.boundAt) + consentTimeout { expired.append(session) }
                else if now >= e.nextCheck && !e.webrtc { due.append(session) }
            }
            for session in expired {
                let e = bySession[session]!
                if let address = e.address, byAddress[address]?.session == session { byAddress[address] = nil }
                bySession[session]!.address = nil
                bySession[session]!.expired = true
                // It stays answerable: a late answer to one of its checks binds it again.
                if e.candidate == nil, let address = e.address, byCandidate[address] == nil {
                    bySession[session]!.candidate = address
                    byCandidate[address] = (session, e.worker)
                }
                counts.consentExpired += 1
                workers[e.worker].loop.post { [worker = workers[e.worker]] in worker.bind(session, nil) }
            }
            for session in due {
                let unanswered = bySession[session]!.consentAt == nil
                bySession[session]!.nextCheck = now + (unanswered ? min(Self.unansweredRecheck, consentInterval) : jittered(consentInterval))
                sendConsentCheck(session, to: bySession[session]!.address!, now: now)
            }
            counters.add(&counts)
            scheduleConsent()
        }
    }

    private func answerStun(_ buffer: UnsafeMutableRawPointer, _ length: Int, from address: SocketAddress) {
        let bytes = Array(UnsafeRawBufferPointer(start: buffer, count: length))
        guard let unchecked = try? StunMessage.parse(bytes) else {
            counts.drops[MediaDropReason.stun.rawValue] += 1
            return
        }
        if unchecked.type == .bindingSuccess { return consentAnswered(bytes, unchecked.transactionId, from: address) }
        guard unchecked.type == .bindingRequest,
              let username = unchecked.username,
              let session = byUfrag[String(username.prefix { $0 != ":" })],
              let entry = bySession[session],
              let request = try? StunMessage.parse(bytes, integrityKey: entry.password)
        else {
            counts.drops[MediaDropReason.stun.rawValue] += 1
            return
        }
        var checkAfterAnswer = false
        if entry.webrtc && address == entry.address && !entry.seen.contains(request.transactionId) {
            // A browser's own consent check (RFC 7675) from its bound address refreshes its consent.
            bySession[session]!.consentAt = .now()
        }
        if entry.seen.contains(request.transactionId) {
            // A retransmission is answered where it came from; a replay from elsewhere moves nothing.
            guard address == entry.address || address == entry.candidate else {
                counts.drops[MediaDropReason.stunReplay.rawValue] += 1
                return
            }
        } else {
            bySession[session]!.seen.append(request.transactionId)
            if entry.seen.count >= Self.seenTransactions { bySession[session]!.seen.removeFirst() }
            let now = Instant.now()
            if address != entry.address && address != entry.candidate {
                // A new address: a candidate until it proves itself.
                if let c = entry.candidate, byCandidate[c]?.session == session { byCandidate[c] = nil }
                bySession[session]!.candidate = address
                byCandidate[address] = (session, entry.worker)
                checkAfterAnswer = true
            } else if address == entry.candidate,
                      !entry.checks.contains(where: { $0.to == address && now - $0.at < Self.candidateRecheck }) {
                // A candidate that keeps asking is checked again (a check or its answer may be lost).
                checkAfterAnswer = true
            }
        }
        counts.stunBindings += 1
        let response = StunMessage.bindingSuccess(answering: request.transactionId, mappedIP: address.ipBytes, port: address.port)
        let out = response.serialized(integrityKey: entry.password)
        let sent = out.withUnsafeBytes { raw in
            address.withSockaddr { sa, len in sendto(fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT), sa, len) }
        }
        if sent > 0 {
            counts.packetsOut += 1
            counts.bytesOut += sent
        } else {
            counts.drops[MediaDropReason.sendFailed.rawValue] += 1
        }
        // The answer first, then the check: a client reads its answer before anything else.
        // A browser's address proves itself with DTLS instead.
        if checkAfterAnswer && !entry.webrtc { sendConsentCheck(session, to: address, now: .now()) }
    }

    // MARK: - WebRTC (receive thread)

    /// A browser's offer was answered: its DTLS endpoint (a new one when its
    /// certificate changed), and its numbers for the worker.
    private func negotiated(_ session: UInt64, _ peer: WebRtcPeer) {
        guard let entry = bySession[session], entry.webrtc, let certificate else { return }
        if entry.dtls == nil || entry.dtlsFingerprint != peer.fingerprint {
            bySession[session]!.dtls = try? DtlsEndpoint(
                role: .server, certificate: certificate,
                remoteFingerprint: (algorithm: peer.fingerprintAlgorithm, value: peer.fingerprint),
                profiles: [.aeadAes128Gcm, .aes128CmHmacSha1_80])
            bySession[session]!.dtlsFingerprint = peer.fingerprint
            bySession[session]!.dtlsKeyed = false
            handshaking.insert(session)
            bySession[session]!.sctp = nil
            bySession[session]!.dataChannels = [:]
            bySession[session]!.dataOut = nil
        }
        if peer.dataChannel && bySession[session]!.sctp == nil {
            bySession[session]!.sctp = try? SctpAssociation(role: .server, port: WebRtcNegotiation.serverSctpPort)
            dataSessions.insert(session)
        }
        let worker = workers[entry.worker]
        worker.loop.post { worker.setWebRtc(session, peer) }
    }

    /// A DTLS datagram: to the endpoint of the browser whose address (bound,
    /// or a candidate from its binding request) it came from. A completed
    /// handshake (with the fingerprint of the browser's offer) keys its SRTP
    /// and proves its address.
    private func handleDtls(_ buffer: UnsafeMutableRawPointer, _ length: Int, from address: SocketAddress) {
        guard let session = (byAddress[address] ?? byCandidate[address])?.session, let entry = bySession[session],
              let dtls = entry.dtls else {
            counts.drops[MediaDropReason.unknownSource.rawValue] += 1
            return
        }
        sendDatagrams(dtls.receive(UnsafeRawBufferPointer(start: buffer, count: length)), to: address)
        if !dtls.received.isEmpty {
            let packets = dtls.received
            dtls.received = []
            if let sctp = entry.sctp {
                for packet in packets { sendSctp(sctp.receive(packet), over: dtls, to: address) }
                sctpEvents(session)
            }
        }
        switch dtls.state {
        case .connected:
            guard !entry.dtlsKeyed, let srtp = dtls.srtp else { return }
            bySession[session]!.dtlsKeyed = true
            guard let keys = try? MediaKeys(profile: srtp.profile, remote: srtp.remote, local: srtp.local) else { return }
            let worker = workers[entry.worker]
            // The keys reach the worker before the binding below does.
            if entry.worker == 0 { worker.rekey(session, keys) } else { worker.loop.post { worker.rekey(session, keys) } }
            if address == entry.candidate {
                promote(session, consent: true)
            } else if address == entry.address {
                bySession[session]!.consentAt = .now()
            }
        case .failed:
            counts.drops[MediaDropReason.authentication.rawValue] += 1
        default:
            break
        }
    }

    private func sendDatagrams(_ datagrams: [[UInt8]], to address: SocketAddress) {
        for datagram in datagrams {
            let sent = datagram.withUnsafeBytes { raw in
                address.withSockaddr { sa, len in sendto(fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT), sa, len) }
            }
            if sent > 0 {
                counts.packetsOut += 1
                counts.bytesOut += sent
            }
        }
    }

    /// SCTP packets out through the browser's DTLS association.
    private func sendSctp(_ packets: [[UInt8]], over dtls: DtlsEndpoint, to address: SocketAddress) {
        for packet in packets { sendDatagrams(dtls.send(packet), to: address) }
    }

    /// What the browser's SCTP association reported: its channels opened
    /// and closed, and messages, which go to the worker as the browser's data streams.
    private func sctpEvents(_ session: UInt64) {
        guard let entry = bySession[session], let sctp = entry.sctp else { return }
        for event in sctp.pollEvents() {
            switch event {
            case .open(let channel, let label, _, _, _, _):
                // The web client's two channels; any other is left unused.
                guard label == BrowserChannels.reliable || label == BrowserChannels.unreliable else { continue }
                let reliable = label == BrowserChannels.reliable
                bySession[session]!.dataChannels[channel] = reliable
                if reliable { bySession[session]!.dataOut = channel }
            case .message(let channel, let data, _):
                guard let reliable = bySession[session]!.dataChannels[channel] else { continue }
                let worker = workers[entry.worker]
                if entry.worker == 0 {
                    worker.browserMessage(session, reliable: reliable, data)
                } else {
                    worker.loop.post { worker.browserMessage(session, reliable: reliable, data) }
                }
            case .closed(let channel):
                bySession[session]!.dataChannels[channel] = nil
                if bySession[session]!.dataOut == channel { bySession[session]!.dataOut = nil }
            case .associationUp, .associationDown:
                break
            }
        }
    }

    /// A message for a browser's reliable data channel (from a worker).
    func sendToBrowser(_ session: UInt64, _ message: [UInt8]) {
        guard let entry = bySession[session], let sctp = entry.sctp, let dtls = entry.dtls, let channel = entry.dataOut,
              let to = entry.address else { return }
        guard let packets = try? sctp.send(channel: channel, message, binary: true) else {
            counts.drops[MediaDropReason.dataLimit.rawValue] += 1
            return
        }
        sendSctp(packets, over: dtls, to: to)
    }
}

/// The labels of the web client's data channels (docs/web.md, Data streams).
enum BrowserChannels {
    static let reliable = "agoraish-data"
    static let unreliable = "agoraish-data-unreliable"
}
