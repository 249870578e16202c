import AgoraishIO
import AgoraishSession
import AgoraishWire
import Glibc
import Synchronization

/// The engine's side of the media plane (docs/media-plane.md): one UDP
/// socket to the server's media port, bound to this participant with STUN
/// (repeated every 200 ms until answered, then every 2.5 s as a keepalive),
/// SRTP out with the uplink key and in with the downlink key.
///
/// `send` may be called from any thread (the outbound SRTP context is behind
/// a lock); what arrives is unprotected on the engine's IO loop and handed to
/// `onRtp`.
final class MediaTransport: @unchecked Sendable {
    let endpoint: ClientSession.MediaEndpoint
    let loop: EventLoop
    private let fd: Int32
    private let server: SocketAddress
    private let outbound: Locked<SrtpSession>
    private let inbound: SrtpSession
    private let onRtp: (UnsafeMutableRawPointer, Int) -> Void
    /// A PLI or FIR arrived for the stream with this (sender's own) SSRC.
    var onKeyframeRequest: ((UInt32) -> Void)? = nil
    /// Called on the loop thread with (media SSRC, sequence numbers) of each generic NACK received.
    var onNack: ((UInt32, [UInt16]) -> Void)? = nil
    private var transaction: [UInt8] = []
    /// When the current binding request was (last) sent.
    private var transactionSentAt: Instant? = nil
    /// Round trip to the server on the media path: from the server's receiver
    /// report answering our last sender report (RTCP, every second), else
    /// from the last answered STUN binding (every 2.5 s once bound).
    var rtt: Duration? { rttSamples.withLock { $0.rtcp ?? $0.stun } }
    let rttSamples = Locked<(rtcp: Duration?, stun: Duration?)>((nil, nil))
    /// Uplink loss the server reported for our streams, percent (the worst stream of the last reports).
    let uplinkLoss = Locked<Int32>(0)
    /// What was sent per SSRC, for sender reports: payload type, packets,
    /// payload octets, the last RTP timestamp and when it was sent.
    private let sentStreams = Locked<[UInt32: (pt: UInt8, packets: UInt32, octets: UInt32, timestamp: UInt32, at: Instant)]>([:])
    private var reportTimer: EventLoop.TimerID?
    /// What arrived per stream (server SSRC), for receiver reports.
    private let receivedStreams = Locked<[UInt32: SequenceCounter]>([:])

    /// Counts a received RTP packet (after the simulated network) for receiver reports.
    private func countReceived(_ packet: UnsafeMutableRawPointer, _ length: Int) {
        guard length >= 12 else { return }
        let raw = UnsafeRawBufferPointer(start: packet, count: length)
        if let (seq, _) = TransportFeedback.sequenceNumber(in: raw) {
            congestion.withLock { $0.recorder.record(seq, at: .now()) }
        }
        if PayloadType(raw[1]) == .probe { probeArrived(raw) }
        let pt = raw[1] & 0x7F
        guard PayloadType(pt).isAudio || PayloadType(pt).isVideoMedia else { return }
        let ssrc = readBE32(raw, 8), seq = UInt16(raw[2]) << 8 | UInt16(raw[3])
        receivedStreams.withLock { m in
            if m[ssrc] == nil { m[ssrc] = SequenceCounter() }
            m[ssrc]!.count(seq)
        }
    }

    /// The loss the server reports for the stream sent with `ssrc` (percent,
    /// smoothed: rises at once, falls slowly): the uplink's, and for audio the
    /// worst downlink's too.
    func reportedLoss(ssrc: UInt32) -> Int32? { reportedLoss.withLock { $0[ssrc]?.percent } }

    /// The last meaningful report per stream: its highest sequence and loss percent.
    private let reportedLoss = Locked<[UInt32: (highest: UInt32, percent: Int32)]>([:])
    private var timer: EventLoop.TimerID?
    private var buffer = [UInt8](repeating: 0, count: 2048)
    private(set) var closed = false
    private let boundFlag = Atomic<Bool>(false)
    /// Set (under the outbound lock) once the socket is closed: sends stop.
    private var sendClosed = false
    /// Whether the server sends media here (any thread): it answered a binding
    /// request, and this transport answered the consent check that follows
    /// (docs/media-plane.md, Consent) — or 300 ms passed without one.
    var bound: Bool { boundFlag.load(ordering: .acquiring) }
    /// When the server first answered a binding request (loop thread).
    private var answeredAt: Instant?
    /// The simulated network applied to received RTP (`rtc.network_simulation`), shared with the link.
    let simulation: Locked<NetworkSimulation?>
    /// The simulated network applied to sent RTP (`rtc.network_simulation_send`), shared with the link.
    let sendSimulation: Locked<NetworkSimulation?>
    /// Packets and bytes sent and received (for RtcStats).
    let counters = Locked((txPackets: UInt64(0), txBytes: UInt64(0), rxPackets: UInt64(0), rxBytes: UInt64(0)))

    /// Congestion control of the uplink (docs/network.md): every RTP packet
    /// leaving is numbered for transport-wide feedback, video waits in the
    /// pacer, and the server's feedback drives the estimate.
    struct Congestion {
        var estimator = BandwidthEstimator(settings: .init(startBitrate: MediaTransport.startBitrate,
                                                           minBitrate: 30_000, maxBitrate: 10_000_000))
        var pacer = Pacer<[UInt8]>(targetBitrate: MediaTransport.startBitrate)
        var pacing = false
        var pacingFloor = 0
        /// Padding sent to keep the estimate learning while little media flows (bps; 0: none).
        var paddingRate = 0
        var paddingSequence: UInt16 = 0
        /// Arrivals of the downlink's numbered packets, for our feedback to the server.
        var recorder = TransportFeedbackRecorder()
        /// Which retransmissions may leave.
        var retransmissions = RetransmissionGuard()
    }

    /// Keeps video retransmissions (RTX) from feeding the congestion they
    /// answer: a packet is sent again at most once per round trip
    /// (libwebrtc's rule), however often it is asked for (a receiver that asks
    /// every 20 ms behind a 300 ms queue would otherwise get it fifteen
    /// times, filling the queue further), and retransmissions take at most
    /// a quarter of the target rate over each half second (enough to repair
    /// 20 % loss; more would only add to a full queue's loss).
    struct RetransmissionGuard {
        /// (RTX SSRC, original sequence number) -> when it last left.
        private var lastSent: [UInt64: Instant] = [:]
        /// Bytes retransmitted in the current half-second window, and when the window started.
        private var window: (start: Instant, bytes: Int)? = nil
        /// The window over which retransmitted bytes are counted.
        static let span: Duration = .milliseconds(500)

        /// Whether a retransmission of `bytes` bytes of packet `original` on
        /// `ssrc` may leave at `now` (and if so, it counts as sent).
        mutating func allow(ssrc: UInt32, original: UInt16, bytes: Int, now: Instant, rtt: Duration, target: Int) -> Bool {
            let key = UInt64(ssrc) << 16 | UInt64(original)
            if let last = lastSent[key], now - last < max(rtt, .milliseconds(20)) { return false }
            var w = window ?? (now, 0)
            if now - w.start >= Self.span { w = (now, 0) }
            guard (w.bytes + bytes) * 8 <= target / 8 else { return false }
            w.bytes += bytes
            window = w
            if lastSent.count >= 4096 { lastSent = lastSent.filter { now - $0.value < .seconds(2) } }
            lastSent[key] = now
            return true
        }
    }
    let congestion = Locked(Congestion())
    /// The estimate a call starts from (bps).
    static let startBitrate = 1_000_000
    /// How often the engine reports the downlink's arrivals to the server.
    static let feedbackInterval: Duration = .milliseconds(100)
    private var feedbackTimer: EventLoop.TimerID?

    /// The server's REMB: what the subscribers' downlinks can take of our video (bps) and when it came.
    let remoteVideoCap = Locked<(bitrate: Int, at: Instant)?>(nil)
    /// The REMB in force (it lapses 5 s after the last one). Any thread.
    var videoCap: Int? {
        remoteVideoCap.withLock { c in c.flatMap { Instant.now() - $0.at < .seconds(5) ? $0.bitrate : nil } }
    }

    /// The uplink's estimated capacity (bps): what the media sent should keep to. Any thread.
    /// While a queue stands on the uplink, less than what it carried
    /// (`BandwidthEstimator.senderBound`): the estimate itself comes down
    /// only once its detector has seen enough.
    var targetBitrate: Int { congestion.withLock { $0.estimator.senderBound() } }
    /// Sends padding probes at `bps` (0 stops them): while video is held back
    /// (publish fallback) the estimate still learns whether the uplink
    /// recovered. Any thread.
    func setPaddingRate(_ bps: Int) { congestion.withLock { $0.paddingRate = bps } }
    /// The SSRC of padding probes (not a media stream).
    let paddingSsrc = UInt32.random(in: 1...UInt32.max)

    /// The last-mile probe's measurements (MediaTransport+Probe.swift).
    let probe = Locked(ProbeState())

    /// What the video encoders were last told (bps): the pacer never paces below it. Any thread.
    func setPacingFloor(_ bps: Int) { congestion.withLock { $0.pacingFloor = bps } }
    /// The estimator's view (any thread): target, loss, queueing delay.
    var congestionState: (target: Int, loss: Double, queueing: Duration) {
        congestion.withLock { ($0.estimator.target, $0.estimator.lossRatio, $0.estimator.queueingDelay) }
    }

    /// Opens the socket and starts binding. Loop thread only. Nil when the
    /// address does not resolve or the keys are unusable.
    init?(loop: EventLoop, endpoint: ClientSession.MediaEndpoint, simulation: Locked<NetworkSimulation?>,
          sendSimulation: Locked<NetworkSimulation?>,
          onRtp: @escaping (UnsafeMutableRawPointer, Int) -> Void) {
        guard let server = SocketAddress(host: endpoint.host, port: endpoint.port),
              let out = try? SrtpSession(profile: endpoint.srtpProfile, keying: endpoint.uplinkKeying, inbound: false),
              let into = try? SrtpSession(profile: endpoint.srtpProfile, keying: endpoint.downlinkKeying, inbound: true)
        else { return nil }
        let any = server.family == AF_INET6 ? SocketAddress(host: "::", port: 0) : SocketAddress(host: "0.0.0.0", port: 0)
        guard let local = any, let fd = try? Sockets.bindUDP(local) else { return nil }
        var size: Int32 = 1 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        self.loop = loop
        self.endpoint = endpoint
        self.fd = fd
        self.server = server
        outbound = Locked(out)
        inbound = into
        self.onRtp = onRtp
        self.simulation = simulation
        self.sendSimulation = sendSimulation
        loop.register(fd, events: EventLoop.readable) { [weak self] _ in self?.receive() }
        bindNow()
    }

    /// Closes the socket. Loop thread only.
    func close() {
        guard !closed else { return }
        closed = true
        if let timer { loop.cancel(timer) }
        if let reportTimer { loop.cancel(reportTimer) }
        if let feedbackTimer { loop.cancel(feedbackTimer) }
        loop.unregister(fd)
        // No send may use the descriptor once it is closed (its number could be reused).
        outbound.withLock { _ in sendClosed = true }
        early.withLock { $0 = [] }
        Glibc.close(fd)
    }

    /// Protects and sends an RTP packet (`length` bytes at `packet`, with
    /// `SrtpSession.maxTrailer` spare bytes after it). Any thread.
    func send(rtp packet: UnsafeMutableRawPointer, length: Int) {
        if !bound && holdEarly(packet, length: length) { return }
        if length >= 12 {
            let raw = UnsafeRawBufferPointer(start: packet, count: length)
            let pt = raw[1] & 0x7F, ssrc = readBE32(raw, 8), ts = readBE32(raw, 4)
            let now = Instant.now()
            sentStreams.withLock { m in
                var s = m[ssrc] ?? (pt, 0, 0, ts, now)
                s.packets &+= 1
                s.octets &+= UInt32(length - 12)
                s.timestamp = ts
                s.at = now
                m[ssrc] = s
            }
        }
        if length >= 12, VideoPipeline.isVideo(payloadType: UnsafeRawBufferPointer(start: packet, count: length)[1] & 0x7F) {
            let raw = UnsafeRawBufferPointer(start: packet, count: length)
            if PayloadType(raw[1] & 0x7F).isVideoRtx, let h = try? RtpHeader.parse(raw), h.payloadOffset + 2 <= length {
                let original = UInt16(raw[h.payloadOffset]) << 8 | UInt16(raw[h.payloadOffset + 1])
                let rtt = self.rtt ?? .milliseconds(100)
                let allowed = congestion.withLock {
                    $0.retransmissions.allow(ssrc: readBE32(raw, 8), original: original, bytes: length, now: .now(), rtt: rtt,
                                             target: max($0.estimator.target, $0.pacingFloor))
                }
                guard allowed else { return }
            }
            // Video waits its turn in the pacer (audio goes at once).
            var copy = [UInt8](repeating: 0, count: length + SrtpSession.maxTrailer)
            copy.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: packet, byteCount: length) }
            let start = congestion.withLock { c -> Bool in
                c.pacer.enqueue(copy, size: length, at: .now())
                guard !c.pacing else { return false }
                c.pacing = true
                return true
            }
            if start { _ = loop.post { [weak self] in self?.pace() } }
            return
        }
        transmit(rtp: packet, length: length)
    }

    /// Video packets sent before the path is bound (the first milliseconds of
    /// a call), kept in order and sent once it is: a host's encoded track
    /// sends its first keyframe once, and losing it would leave receivers
    /// waiting a whole keyframe interval. At most `maxEarlyPackets`; audio
    /// and retransmissions of that time are dropped.
    private let early = Locked<[[UInt8]]>([])
    static let maxEarlyPackets = 512

    /// Holds (or drops) a packet sent while unbound. False when the path was
    /// bound meanwhile: the caller sends it.
    private func holdEarly(_ packet: UnsafeMutableRawPointer, length: Int) -> Bool {
        early.withLock { q -> Bool in
            guard !bound else { return false }
            let raw = UnsafeRawBufferPointer(start: packet, count: length)
            guard length >= 12, PayloadType(raw[1] & 0x7F).isVideoMedia, q.count < Self.maxEarlyPackets else { return true }
            var copy = [UInt8](repeating: 0, count: length + SrtpSession.maxTrailer)
            copy.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: packet, byteCount: length) }
            q.append(copy)
            return true
        }
    }

    /// The server sends media here now: what was held goes out. Loop thread.
    private func markBound() {
        let held = early.withLock { q -> [[UInt8]] in
            boundFlag.store(true, ordering: .releasing)
            defer { q = [] }
            return q
        }
        for var p in held where !closed {
            let n = p.count - SrtpSession.maxTrailer
            p.withUnsafeMutableBytes { send(rtp: $0.baseAddress!, length: n) }
        }
    }

    /// Whether `sendProbePadding` runs (loop thread).
    private var probeTicking = false

    /// Sends the padding the estimator's probe asks for (docs/network.md,
    /// Probing), as probe packets of up to 1200 bytes, every 5 ms until the
    /// probe's cluster ends. Loop thread.
    private func sendProbePadding() {
        guard !closed else { return }
        let now = Instant.now()
        let (bytes, more) = congestion.withLock { ($0.estimator.probePadding(at: now), $0.estimator.probing(at: now)) }
        var left = bytes
        while left > 0 {
            let size = min(ProbePacket.size, max(left, 40))
            let seq = probe.withLock { p -> UInt16 in defer { p.rtpSequence &+= 1 }; return p.rtpSequence }
            var packet = ProbePacket.make(ssrc: paddingSsrc, sequence: seq, sentUs: now.nanoseconds / 1000, size: size)
            let n = packet.count
            packet += [UInt8](repeating: 0, count: SrtpSession.maxTrailer)
            packet.withUnsafeMutableBytes { transmit(rtp: $0.baseAddress!, length: n) }
            left -= n
        }
        guard more else {
            probeTicking = false
            return
        }
        _ = loop.schedule(after: .milliseconds(5)) { [weak self] in self?.sendProbePadding() }
    }

    /// Lets out what the pacer allows now, then waits for the next. Loop thread.
    private func pace() {
        guard !closed else { return }
        let now = Instant.now()
        let (out, next) = congestion.withLock { c -> ([[UInt8]], Instant?) in
            c.pacer.setTarget(max(c.estimator.target, c.pacingFloor))
            let out = c.pacer.poll(now: now)
            let next = c.pacer.nextSend(after: now)
            if next == nil { c.pacing = false }
            return (out, next)
        }
        for var p in out {
            let n = p.count - SrtpSession.maxTrailer
            p.withUnsafeMutableBytes { transmit(rtp: $0.baseAddress!, length: n) }
        }
        if let next {
            _ = loop.schedule(after: max(next - Instant.now(), .milliseconds(1))) { [weak self] in self?.pace() }
        }
    }

    /// Numbers a packet for transport-wide feedback and puts it on the
    /// (possibly simulated) network. Any thread.
    func transmit(rtp packet: UnsafeMutableRawPointer, length: Int) {
        let raw = UnsafeMutableRawBufferPointer(start: packet, count: length)
        if let (_, offset) = TransportFeedback.sequenceNumber(in: UnsafeRawBufferPointer(raw)) {
            let seq = congestion.withLock { $0.estimator.packetSent(size: length, at: .now()) }
            TransportFeedback.write(seq, into: raw, at: offset)
        }
        let delays = sendSimulation.withLock { sim -> [Duration]? in
            guard sim != nil else { return nil }
            return sim!.admit(size: length, at: .now())
        }
        if let delays {
            // Through the simulated uplink: lost, or sent later (a copy, protected then).
            for delay in delays {
                var copy = Array(UnsafeRawBufferPointer(start: packet, count: length))
                copy += [UInt8](repeating: 0, count: SrtpSession.maxTrailer)
                // Timers belong to the loop thread: the send is handed over first.
                _ = loop.post { [weak self] in
                    guard let self, !self.closed else { return }
                    self.loop.schedule(after: delay) { [weak self] in
                        guard let self, !self.closed else { return }
                        copy.withUnsafeMutableBytes { self.sendNow(rtp: $0.baseAddress!, length: length) }
                    }
                }
            }
            return
        }
        sendNow(rtp: packet, length: length)
    }

    private func sendNow(rtp packet: UnsafeMutableRawPointer, length: Int) {
        outbound.withLock { srtp in
            guard !sendClosed, let n = try? srtp.protectRtp(packet, length: length) else { return }
            let sent = server.withSockaddr { sa, len in sendto(fd, packet, n, Int32(MSG_DONTWAIT), sa, len) }
            if sent > 0 {
                counters.withLock { $0.txPackets += 1; $0.txBytes += UInt64(sent) }
            } else {
                sendFailed(errno)
            }
        }
    }

    /// Binds again at once (a STUN request now): after a network change the
    /// server learns the new source address without waiting for the keepalive. Loop thread.
    func rebindNow() {
        guard !closed else { return }
        if let timer { loop.cancel(timer) }
        transaction = []
        bindNow()
    }

    /// Called on the loop thread (at most once a second) when a send fails
    /// because the network is unreachable or the local address is gone.
    var onPathError: (() -> Void)? = nil
    private var lastPathError: Instant? = nil

    /// A failed send: path errors are reported (from the loop thread).
    private func sendFailed(_ error: Int32) {
        guard error == ENETUNREACH || error == ENETDOWN || error == EADDRNOTAVAIL || error == EHOSTUNREACH else { return }
        _ = loop.post { [weak self] in
            guard let self, !self.closed else { return }
            let now = Instant.now()
            if let last = lastPathError, now - last < .seconds(1) { return }
            lastPathError = now
            onPathError?()
        }
    }

    private func bindNow() {
        guard !closed else { return }
        // A server without consent checks binds on the answer: do not wait for a check forever.
        if !bound, let at = answeredAt, Instant.now() - at >= .milliseconds(300) { markBound() }
        // Retransmissions keep their transaction id (RFC 8489 §6.2.1), so a late
        // answer still counts; a keepalive after a success starts a new one.
        if transaction.isEmpty || bound { transaction = secureRandomBytes(12) }
        let request = StunMessage(type: .bindingRequest, transactionId: transaction, attributes: [
            (StunMessage.AttributeType.username.rawValue, Array("\(endpoint.iceUfrag):engine".utf8)),
        ])
        let bytes = request.serialized(integrityKey: Array(endpoint.icePassword.utf8))
        transactionSentAt = .now()
        _ = bytes.withUnsafeBytes { raw in
            server.withSockaddr { sa, len in sendto(fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT), sa, len) }
        }
        timer = loop.schedule(after: bound ? .milliseconds(2500) : .milliseconds(200)) { [weak self] in self?.bindNow() }
        if bound && reportTimer == nil { scheduleReports() }
        if bound && feedbackTimer == nil { scheduleFeedback() }
    }

    /// A sender report (RFC 3550 §6.4.1) for each stream sent (retransmission
    /// streams aside) every second; the RTP timestamp is carried forward from
    /// the last packet by the media clock (48 kHz audio, 90 kHz video).
    private func scheduleReports() {
        reportTimer = loop.schedule(after: .seconds(1)) { [weak self] in
            guard let self, !self.closed else { return }
            let now = Instant.now()
            let ntp = RtcpReport.ntp(unixNanoseconds: Self.unixNanoseconds())
            for (ssrc, s) in sentStreams.withLock({ $0 }) where PayloadType(s.pt).isAudio || PayloadType(s.pt).isVideoMedia {
                guard now - s.at < .seconds(5) else { continue }
                let rate: Int64 = PayloadType(s.pt).isAudio ? 48 : 90
                let ts = s.timestamp &+ UInt32(truncatingIfNeeded: (now - s.at).milliseconds * rate)
                send(rtcp: SenderReport(ssrc: Ssrc(ssrc), ntpTime: ntp, rtpTimestamp: ts, packetCount: s.packets,
                                        octetCount: s.octets))
            }
            // A receiver report on what arrived of each stream (the server learns the downlink's loss).
            var blocks: [ReportBlock] = []
            receivedStreams.withLock { m in
                for (ssrc, var c) in m {
                    let r = c.report()
                    m[ssrc] = c
                    blocks.append(ReportBlock(ssrc: Ssrc(ssrc), fractionLost: r.fraction, cumulativeLost: r.cumulative,
                                              highestSequence: r.highest))
                }
            }
            if !blocks.isEmpty {
                let own = sentStreams.withLock { $0.keys.first } ?? 0
                send(rtcp: ReceiverReport(ssrc: Ssrc(own), reports: blocks))
            }
            scheduleReports()
        }
    }

    /// Transport-wide feedback on the downlink's arrivals, every `feedbackInterval` when something arrived.
    private func scheduleFeedback() {
        feedbackTimer = loop.schedule(after: Self.feedbackInterval) { [weak self] in
            guard let self, !self.closed else { return }
            let (messages, padding, seq) = congestion.withLock { c -> ([[UInt8]], Int, UInt16) in
                let bytes = c.paddingRate / 8 / 10  // one interval's worth
                defer { c.paddingSequence &+= UInt16(truncatingIfNeeded: bytes / 24 + 1) }
                return (c.recorder.feedback(sender: 0, media: 0), bytes, c.paddingSequence)
            }
            for var m in messages {
                let n = m.count
                m += [UInt8](repeating: 0, count: SrtpSession.maxTrailer)
                m.withUnsafeMutableBytes { send(rtcp: $0.baseAddress!, length: n) }
            }
            var left = padding, k: UInt16 = 0
            while left > 0 {
                var p = TransportFeedback.paddingPacket(size: min(TransportFeedback.maxPaddingPacket, max(24, left)), payloadType: PayloadType.vp8Rtx.rawValue,
                                                        ssrc: paddingSsrc, sequence: seq &+ k)
                let n = p.count
                p += [UInt8](repeating: 0, count: SrtpSession.maxTrailer)
                p.withUnsafeMutableBytes { transmit(rtp: $0.baseAddress!, length: n) }
                left -= n
                k &+= 1
            }
            scheduleFeedback()
        }
    }

    static func unixNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Receiver reports about our streams: the round trip (RFC 3550 §6.4.1)
    /// and the uplink loss the server saw.
    private func handleReports(_ report: ReceiverReport) {
        let ours = sentStreams.withLock { Set($0.keys) }
        let arrival = RtcpReport.ntp(unixNanoseconds: Self.unixNanoseconds())
        for b in report.reports where ours.contains(b.ssrc.rawValue) {
            if let r = RtcpReport.roundTrip(b, arrivalNtp: arrival) { rttSamples.withLock { $0.rtcp = r } }
            // A block counts when packets arrived since the last one (its highest sequence moved).
            reportedLoss.withLock { m in
                if let last = m[b.ssrc.rawValue], last.highest == b.highestSequence { return }
                // One second holds few packets: rises are taken at once, falls a fifth at a time.
                let now = Int32(b.fractionLost) * 100 / 256
                let old = m[b.ssrc.rawValue]?.percent ?? now
                m[b.ssrc.rawValue] = (b.highestSequence, now >= old ? now : (4 * old + now) / 5)
            }
        }
        let worst = reportedLoss.withLock { $0.values.map(\.percent).max() ?? 0 }
        uplinkLoss.withLock { $0 = worst }
    }

    /// Keyframe requests (PLI: RFC 4585 §6.3.1, FIR: RFC 5104 §4.3.1) and
    /// generic NACKs (RFC 4585 §6.2.1) name the media SSRC of the stream they
    /// ask about.
    private func handleRtcp(_ bytes: UnsafeRawBufferPointer) {
        let compound = RtcpCompound(bytes)
        guard compound.isWellFormed else { return }
        for member in compound {
            // Packets that do not read as their type are left out.
            guard let packet = try? member.parse() else { continue }
            switch packet {
            case .receiverReport(let rr):
                handleReports(rr)
            case .pictureLossIndication(let pli):
                onKeyframeRequest?(pli.media.rawValue)
            case .fullIntraRequest(let fir):
                onKeyframeRequest?(fir.entries[0].ssrc.rawValue)
            case .remb(let remb):
                // What the subscribers' downlinks can take of our video.
                remoteVideoCap.withLock { $0 = (remb.bitrate, .now()) }
            case .transportFeedback(let f):
                let now = Instant.now(), rtt = self.rtt ?? .milliseconds(100)
                probe.withLock { p in
                    guard !p.inFlight.isEmpty else { return }
                    for r in f.packets {
                        guard let s = p.inFlight.removeValue(forKey: r.sequence) else { continue }
                        p.uplink.add(sequence: s.index, sentUs: s.sentUs, arrivalUs: r.arrivalUs, size: s.size)
                    }
                }
                let probing = congestion.withLock { c -> Bool in
                    c.estimator.feedbackReceived(f, at: now, rtt: rtt)
                    return c.estimator.probing(at: now)
                }
                if probing && !probeTicking {
                    probeTicking = true
                    sendProbePadding()
                }
            case .genericNack(let nack):
                onNack?(nack.media.rawValue, nack.sequences)
            default:
                continue
            }
        }
    }

    /// Protects and sends one RTCP packet. Any thread.
    func send(rtcp message: some RtcpMessage) {
        var bytes = message.serialized(trailer: SrtpSession.maxTrailer)
        let n = message.encodedSize
        bytes.withUnsafeMutableBytes { send(rtcp: $0.baseAddress!, length: n) }
    }

    /// Protects and sends an RTCP packet (`length` bytes at `packet`, with
    /// `SrtpSession.maxTrailer` spare bytes after it). Any thread.
    func send(rtcp packet: UnsafeMutableRawPointer, length: Int) {
        guard bound else { return }
        outbound.withLock { srtp in
            guard !sendClosed, let n = try? srtp.protectRtcp(packet, length: length) else { return }
            let sent = server.withSockaddr { sa, len in sendto(fd, packet, n, Int32(MSG_DONTWAIT), sa, len) }
            if sent > 0 {
                counters.withLock { $0.txPackets += 1; $0.txBytes += UInt64(sent) }
            }
        }
    }

    /// Hands a plain RTP packet on, through the simulated network when one is set.
    private func deliver(_ packet: UnsafeMutableRawPointer, _ length: Int) {
        let delays = simulation.withLock { sim -> [Duration]? in
            guard sim != nil else { return nil }
            return sim!.admit(size: length, at: .now())
        }
        // Padding and last-mile probes count for feedback and go no further.
        let raw = UnsafeRawBufferPointer(start: packet, count: length)
        let probe = (length >= 12 && PayloadType(raw[1]) == .probe) || TransportFeedback.isPaddingOnly(raw)
        guard let delays else {
            countReceived(packet, length)
            if !probe { onRtp(packet, length) }
            return
        }
        for delay in delays {
            if delay == .zero {
                countReceived(packet, length)
                if !probe { onRtp(packet, length) }
                continue
            }
            var copy = Array(UnsafeRawBufferPointer(start: packet, count: length))
            _ = loop.schedule(after: delay) { [weak self] in
                guard let self, !self.closed else { return }
                copy.withUnsafeMutableBytes {
                    self.countReceived($0.baseAddress!, length)
                    if !probe { self.onRtp($0.baseAddress!, length) }
                }
            }
        }
    }

    /// Answers the server's consent check (RFC 7675; docs/media-plane.md,
    /// Consent): a binding success with the request's transaction id and
    /// MESSAGE-INTEGRITY under the same ICE password. Only the address the
    /// server sends media to can see the transaction id, so the answer proves
    /// that this address wants what it is sent.
    private func answerConsentCheck(_ request: StunMessage) {
        let response = StunMessage.bindingSuccess(answering: request.transactionId, mappedIP: server.ipBytes, port: server.port)
        let bytes = response.serialized(integrityKey: Array(endpoint.icePassword.utf8))
        _ = bytes.withUnsafeBytes { raw in
            server.withSockaddr { sa, len in sendto(fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT), sa, len) }
        }
    }

    private func receive() {
        while !closed {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 2048 - SrtpSession.maxTrailer, Int32(MSG_DONTWAIT)) }
            guard n > 0 else { return }
            counters.withLock { $0.rxPackets += 1; $0.rxBytes += UInt64(n) }
            buffer.withUnsafeMutableBytes { raw in
                let packet = UnsafeRawBufferPointer(start: raw.baseAddress, count: n)
                switch MediaPacketKind.classify(packet) {
                case .stun:
                    let message = try? StunMessage.parse(Array(packet), integrityKey: Array(endpoint.icePassword.utf8))
                    if let request = message, request.type == .bindingRequest {
                        answerConsentCheck(request)
                        // The server binds this address once it has the answer.
                        if answeredAt != nil && !bound { markBound() }
                    } else if let response = message, response.type == .bindingSuccess, response.transactionId == transaction {
                        if answeredAt == nil { answeredAt = .now() }
                        if let sent = transactionSentAt {
                            let measured = Instant.now() - sent
                            rttSamples.withLock { $0.stun = measured }
                            transactionSentAt = nil
                        }
                    }
                case .rtp:
                    if let plain = try? inbound.unprotectRtp(raw.baseAddress!, length: n) {
                        deliver(raw.baseAddress!, plain)
                    }
                case .rtcp:
                    if let plain = try? inbound.unprotectRtcp(raw.baseAddress!, length: n) {
                        handleRtcp(UnsafeRawBufferPointer(start: raw.baseAddress!, count: plain))
                    }
                case .dtls, .unknown:
                    break
                }
            }
        }
    }
}

