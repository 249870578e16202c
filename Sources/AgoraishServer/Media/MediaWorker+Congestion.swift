import Glibc
import AgoraishIO
import AgoraishWire

/// Congestion control on the server (docs/network.md): transport-wide
/// feedback to publishers on their uplinks, each subscriber's downlink
/// shared out among the video it receives (subscribe fallback, priority),
/// padding probes to stepped-down subscribers, and last-mile probes.
extension MediaWorker {
    /// Transport-wide feedback to every participant whose packets arrived
    /// since the last; padding probes to subscribers whose video was cut
    /// back, so their estimate learns when the downlink recovers.
    func scheduleFeedback() {
        _ = loop.schedule(after: Self.feedbackInterval) { [self] in
            feedbackTicks &+= 1
            if feedbackTicks % 10 == 0 { publishRates() }
            browserKeepalives(now: .now())
            for p in participants.values where p.downlinkEstimate.growthCeiling != nil && p.paddingRate > 0 {
                // Up to the unused share of the estimate, this interval's worth.
                var left = p.paddingRate / 8 / 10
                while left > 0 {
                    let size = min(TransportFeedback.maxPaddingPacket, max(24, left))
                    sendProbe(to: p) { ssrc, seq, _ in
                        TransportFeedback.paddingPacket(size: size, payloadType: PayloadType.vp8Rtx.rawValue, ssrc: ssrc, sequence: seq)
                    }
                    left -= size
                }
            }
            for p in participants.values where !p.publisher.videoSsrcs.isEmpty && !p.publisher.isLayered { sendRemb(to: p) }
            // Reliable data the uplink still lacks is asked for again without waiting for the next packet.
            let now = Instant.now()
            for p in participants.values {
                for (own, mapped) in p.ssrcMap {
                    guard let cache = p.channel.dataCaches[mapped], cache.missing.count > 0 else { continue }
                    askAgain(p, ownSsrc: own, cache: cache, now: now)
                }
            }
            for p in participants.values where p.uplinkArrivals.hasNews {
                guard let to = p.address else { continue }
                for var m in p.uplinkArrivals.feedback(sender: 0, media: 0) {
                    m.withUnsafeMutableBytes { raw in
                        send(raw.baseAddress!, raw.count, to: to) { slot, len throws(SrtpError) in
                            try p.downlink.protectRtcp(slot, length: len)
                        }
                    }
                }
            }
            finishBatch()
            scheduleFeedback()
        }
    }

    /// How long a subscriber's downlink loss keeps it bounding single-stream
    /// publishers (`sendRemb`). Long enough that the bound does not lapse,
    /// send the publisher back to its full rate and congest the link again
    /// every few seconds; the estimate the REMB carries rises meanwhile as the
    /// link carries more.
    static let rembHold: Duration = .seconds(30)

    /// A publisher with one video stream cannot be switched away from: its
    /// subscribers' downlinks bound its rate instead. Each subscriber whose
    /// downlink was congested in the last `rembHold` (lost packets or queued
    /// them: congestion, not a slow host) offers its estimate less its audio, shared equally among the
    /// video it receives; the least of these goes to the publisher as a REMB
    /// when it changed by a tenth, and every second while it holds.
    func sendRemb(to publisher: MediaParticipant) {
        guard let to = publisher.address else { return }
        let now = Instant.now()
        var cap: Int? = nil
        for m in publisher.channel.members where m !== publisher && m.address != nil {
            guard !m.subscriber.videoSubscription.blocks(publisher.uid), !m.subscriber.audioOnly.contains(publisher.uid),
                  m.lastDownlinkCongestion.map({ now - $0 < Self.rembHold }) == true else { continue }
            let others = m.channel.members.filter { $0 !== m }
            let videos = others.filter { !$0.publisher.videoSsrcs.isEmpty && !$0.publisher.videoMuted && !m.subscriber.videoSubscription.blocks($0.uid) }.count
            // A queue standing on the downlink: less than what it carried, until the estimate comes down.
            let carries = m.downlinkEstimate.senderBound()
            let share = max(0, carries - audioForwarded(to: m) * Self.audioAllowance) / max(1, videos)
            cap = min(cap ?? share, share)
        }
        guard let cap else {
            publisher.lastRemb = nil
            return
        }
        if let last = publisher.lastRemb, now - last.at < .seconds(1), abs(cap - last.bitrate) * 10 < last.bitrate { return }
        publisher.lastRemb = (cap, now)
        var remb = Remb(sender: .none, bitrate: cap, ssrcs: publisher.publisher.videoSsrcs.map { Ssrc($0) }).bytes
        remb.withUnsafeMutableBytes { raw in
            send(raw.baseAddress!, raw.count, to: to) { slot, len throws(SrtpError) in try publisher.downlink.protectRtcp(slot, length: len) }
        }
    }

    /// How many audio streams subscriber `m` receives: each other member that
    /// publishes audio, unmuted, that `m` does not block.
    func audioForwarded(to m: MediaParticipant) -> Int {
        m.channel.members.reduce(0) { n, o in
            n + (o !== m && !o.publisher.audioMuted && !m.subscriber.audioSubscription.blocks(o.uid) && o.ssrcMap.count > o.publisher.videoSsrcs.count ? 1 : 0)
        }
    }

    /// Sends participant `p` one probe packet made by `make` (given the probe
    /// SSRC, the next probe sequence number and the time), numbered in its
    /// transport-wide sequence. The probe SSRC is the participant's own,
    /// reserved in the channel, and numbered so SRTP's replay check passes each one.
    func sendProbe(to p: MediaParticipant, _ make: (UInt32, UInt16, Instant) -> [UInt8]) {
        // Padding on an SSRC of its own would reach a browser as an unsignaled stream: browsers get none.
        guard let to = p.address, p.webrtc == nil else { return }
        if p.paddingSsrc == 0 {
            p.paddingSsrc = p.channel.allocateSsrc()
            p.channel.rtxSsrcs.insert(p.paddingSsrc)
        }
        let now = Instant.now()
        var packet = make(p.paddingSsrc, p.paddingSequence, now)
        p.paddingSequence &+= 1
        packet.withUnsafeMutableBytes { raw in
            stamp(raw.baseAddress!, raw.count, for: p, now: now)
            send(raw.baseAddress!, raw.count, to: to) { slot, len throws(SrtpError) in try p.protectRtp(slot, length: len) }
        }
    }

    /// Last-mile probe (docs/network.md): sends the participant probe packets
    /// at `bitrate` for `duration`, every 5 ms the share due, each numbered
    /// (transport-wide) and stamped with the send time.
    ///
    /// Probes go only to an address that answered a consent check, never more
    /// than `probeLimits.amplification` times the bytes the participant sent,
    /// and at most `probeLimits.maxBitratePerAddress` to one address (this
    /// worker's probes); what is not sent is counted as `probe_budget`.
    func probe(_ session: UInt64, bitrate: Int, duration: Duration) {
        guard let p = participants[session] else { return }
        let start = Instant.now()
        var sentBytes = 0
        func tick() {
            guard participants[session] === p else { return }
            let now = Instant.now()
            let due = Int(Double(bitrate) / 8 * Double(min(now - start, duration).nanosecondsClamped) / 1e9)
            while sentBytes + ProbePacket.size <= due {
                sentBytes += ProbePacket.size
                guard probeAllowed(to: p, now: now) else {
                    drop(.probeBudget)
                    continue
                }
                sendProbe(to: p) { ssrc, seq, at in ProbePacket.make(ssrc: ssrc, sequence: seq, sentUs: at.nanoseconds / 1000) }
                p.probeBytesOut += ProbePacket.size
            }
            finishBatch()
            if now - start < duration { _ = loop.schedule(after: .milliseconds(5)) { tick() } }
        }
        tick()
    }

    /// Whether one more last-mile probe packet may go to `p` (see `probe`).
    func probeAllowed(to p: MediaParticipant, now: Instant) -> Bool {
        guard p.consented, let to = p.address,
              p.probeBytesOut + ProbePacket.size <= probeLimits.amplification * p.bytesIn else { return false }
        var window = probeWindows[to] ?? (now, 0)
        if now - window.start >= .milliseconds(100) { window = (now, 0) }
        guard window.bytes + ProbePacket.size <= probeLimits.maxBitratePerAddress / 8 / 10 else { return false }
        window.bytes += ProbePacket.size
        probeWindows[to] = window
        if probeWindows.count > 1024 { probeWindows = probeWindows.filter { now - $0.value.start < .milliseconds(100) } }
        return true
    }

    /// Writes the subscriber's next transport-wide sequence number into a packet that has the extension.
    func stamp(_ packet: UnsafeMutableRawPointer, _ length: Int, for member: MediaParticipant, now: Instant) {
        let raw = UnsafeMutableRawBufferPointer(start: packet, count: length)
        // A packet a browser will not be sent takes no number: its feedback would count it lost.
        if let webrtc = member.webrtc, !webrtc.accepts(UnsafeRawBufferPointer(raw)) { return }
        guard let (_, offset) = TransportFeedback.sequenceNumber(in: UnsafeRawBufferPointer(raw)) else { return }
        TransportFeedback.write(member.downlinkEstimate.packetSent(size: length, at: now), into: raw, at: offset)
    }

    /// Asks each layered publisher whose other stream subscriber `p` now
    /// wants for a keyframe of it (the switch happens there).
    func requestSwitchKeyframes(for p: MediaParticipant) {
        for publisher in p.channel.members where publisher !== p {
            if let wanted = p.subscriber.pendingSwitch(of: publisher.publisher),
               let ssrc = publisher.publisher.ownSsrc(ofLayer: wanted) {
                requestKeyframe(of: publisher, ssrc: ssrc)
            }
        }
    }

    /// Shares subscriber `p`'s estimated downlink out among the video it
    /// receives (docs/network.md, Subscribe fallback): publishers in priority
    /// order (the one named HIGH first, then by uid) get their wanted stream
    /// while it fits, else the low stream, else (option AUDIO_ONLY) none.
    /// A step down waits until forwarding has exceeded the estimate for
    /// `stepDownAfter` with loss seen lately; a step up needs 30 % headroom and
    /// waits out the hold.
    func allocate(_ p: MediaParticipant, now: Instant) {
        let option = p.subscriber.videoSubscription.fallback
        var low: Set<UInt32> = [], audioOnly: Set<UInt32> = []
        var nextNeed: Int? = nil
        if option != 0 {
            let publishers = p.channel.members.filter {
                $0 !== p && !$0.publisher.videoSsrcs.isEmpty && !$0.publisher.videoMuted && !p.subscriber.videoSubscription.blocks($0.uid)
            }.sorted { a, b in
                let ha = a.uid == p.subscriber.videoSubscription.priorityUid, hb = b.uid == p.subscriber.videoSubscription.priorityUid
                return ha != hb ? ha : a.uid < b.uid
            }
            var budget = p.downlinkEstimate.target - audioForwarded(to: p) * Self.audioAllowance
            let congested = p.lastDownlinkLoss.map { now - $0 < .seconds(5) } ?? false
            var overBudget = false
            let mayStepUp = p.holdUntil.map { now >= $0 } ?? true
            for member in publishers {
                let pub = member.publisher
                // The choices for this publisher, best first: (rate, low, audio only):
                // the stream asked for, the lowest one it sends, nothing.
                let asked = p.subscriber.subscribedLayer(of: pub)
                let asksLowest = pub.isLayered && asked == pub.lowestLayer
                var highRate = 0, lowRate = 0
                for (own, mapped) in member.ssrcMap where pub.videoSsrcs.contains(own) {
                    let r = p.channel.videoCaches[mapped]?.bitrate ?? 0
                    let layer = pub.layer(ofOwn: own)
                    if layer == asked { highRate = r }
                    if pub.isLayered && layer == pub.lowestLayer { lowRate = r }
                }
                var levels: [(rate: Int, low: Bool, none: Bool)] = []
                if !asksLowest { levels.append((highRate, false, false)) }
                if pub.isLayered { levels.append((lowRate, true, false)) }
                if option == 2 { levels.append((0, false, true)) }
                guard !levels.isEmpty else { continue }
                let current = levels.firstIndex { l in
                    l.none ? p.subscriber.audioOnly.contains(pub.uid)
                        : !p.subscriber.audioOnly.contains(pub.uid) && (l.low == (p.subscriber.bandwidthLow.contains(pub.uid) || asksLowest))
                } ?? 0
                var level = current
                if levels[level].rate > budget, level + 1 < levels.count {
                    overBudget = true
                    if let since = p.overBudgetSince, now - since >= Self.stepDownAfter, congested {
                        while level + 1 < levels.count, levels[level].rate > budget { level += 1 }
                    }
                } else if level > 0, mayStepUp {
                    if Double(levels[level - 1].rate) * 1.3 <= Double(budget) {
                        level -= 1
                        p.lastStepUp = now
                    } else {
                        nextNeed = (nextNeed ?? 0) + levels[level - 1].rate
                    }
                } else if level > 0 {
                    nextNeed = (nextNeed ?? 0) + levels[level - 1].rate
                }
                if level > current {
                    // A step down: the next step up waits, longer when the last one was soon undone.
                    let undone = p.lastStepUp.map { now - $0 < .seconds(10) } ?? false
                    p.backoff = undone ? min(p.backoff * 2, .seconds(60)) : Self.stepUpHold
                    p.holdUntil = now + p.backoff
                    p.overBudgetSince = nil
                }
                let l = levels[level]
                if l.none { audioOnly.insert(pub.uid) } else if l.low && !asksLowest { low.insert(pub.uid) }
                budget -= l.rate
            }
            if overBudget { p.overBudgetSince = p.overBudgetSince ?? now } else { p.overBudgetSince = nil }
            // Forwarding over the estimate, with a step down to come: the
            // queue goes with the step down, and the estimate must stay at
            // what the downlink carries to choose it (not drained under it).
            p.downlinkEstimate.drainsStandingQueue = !overBudget
            // While stepped down, the estimate may grow to what the next step up needs.
            p.downlinkEstimate.growthCeiling = nextNeed.map { Int(Double(p.downlinkEstimate.target - budget + $0) * 1.4) }
            // Padding fills what forwarding leaves of the estimate, so it can be seen to hold.
            p.paddingRate = nextNeed != nil ? max(0, budget) : 0
        } else {
            p.downlinkEstimate.growthCeiling = nil
            p.downlinkEstimate.drainsStandingQueue = true
            p.paddingRate = 0
        }
        let changedLow = low != p.subscriber.bandwidthLow
        for uid in audioOnly.symmetricDifference(p.subscriber.audioOnly) {
            onSubscribeFallback(p.session, uid, audioOnly.contains(uid))
            counts.subscribeFallbacks += audioOnly.contains(uid) ? 1 : 0
        }
        p.subscriber.audioOnly = audioOnly
        p.subscriber.bandwidthLow = low
        if changedLow { requestSwitchKeyframes(for: p) }
    }
}

/// Bounds on last-mile probe packets (docs/server.md, Limits and abuse).
public struct ProbeLimits: Sendable {
    /// Probe bytes to a participant at most this many times the bytes it sent.
    public var amplification: Int
    /// Probe rate to one address at most this (bps).
    public var maxBitratePerAddress: Int

    /// The defaults: 10 times, 5 Mbps.
    public init(amplification: Int = 10, maxBitratePerAddress: Int = 5_000_000) {
        self.amplification = amplification
        self.maxBitratePerAddress = maxBitratePerAddress
    }

}

extension MediaWorker {
    /// Every second: each participant's rates for /status, into the worker's share of the router's table.
    func publishRates() {
        var table: [UInt64: ParticipantRates] = [:]
        table.reserveCapacity(participants.count)
        // Only participants whose media flows (a bound address) have rates to show.
        for p in participants.values where p.address != nil {
            var worst = 0
            for mapped in p.ssrcMap.values {
                // The loss over the last second of each audio and video stream.
                guard let counter = p.channel.videoCaches[mapped]?.uplink ?? p.channel.audioUplinks[mapped] else { continue }
                let last = p.lastCountedStreams[mapped] ?? (0, 0)
                let expected = counter.expected - last.expected, received = counter.received - last.received
                if expected > 0 { worst = max(worst, max(0, expected - received) * 100 / expected) }
                p.lastCountedStreams[mapped] = (counter.expected, counter.received)
            }
            table[p.session] = ParticipantRates(bitsIn: (p.bytesIn - p.lastCounted.bytesIn) * 8,
                                                bitsOut: (p.bytesOut - p.lastCounted.bytesOut) * 8,
                                                lossPercent: worst)
            p.lastCounted = (p.bytesIn, p.bytesOut)
        }
        rates.withLock { $0 = table }
    }
}

// MARK: - Browsers' data channels

/// Unix milliseconds (the `sent_ts` of data stream items).
func wallClockMilliseconds() -> Int64 {
    var t = timespec()
    clock_gettime(CLOCK_REALTIME, &t)
    return Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec) / 1_000_000
}

extension MediaWorker {
    /// A message from a browser's data channel (`reliable`: its ordered,
    /// reliable channel): sent on as the browser's data stream, within the
    /// limits of an engine's (docs/data-streams.md); over them it is dropped
    /// (`data_limit`).
    func browserMessage(_ session: UInt64, reliable: Bool, _ payload: [UInt8]) {
        guard let p = participants[session], p.webrtc != nil else { return }
        let data = p.browserData ?? BrowserData(seed: UInt16(truncatingIfNeeded: session &* 40_503))
        p.browserData = data
        let now = Instant.now()
        let wallMs = UInt64(max(0, wallClockMilliseconds()))
        guard let (header, isReliable) = try? data.sender.admit(
            streamId: reliable ? BrowserData.reliableStream : BrowserData.unreliableStream, size: payload.count, now: now,
            wallClockMs: wallMs) else { return drop(.dataLimit) }
        var item = header
        if isReliable {
            if data.callStart == nil { data.callStart = data.sequence }
            item.start = data.callStart!
        }
        sendBrowserItem(p, data, item, payload, reliable: isReliable, wallMs: wallMs)
        if isReliable { data.sender.reliableSent(now: now) }
        finishBatch()
    }

    /// Keepalives after a browser's reliable items, as an engine sends them,
    /// so receivers learn of a lost last item.
    func browserKeepalives(now: Instant) {
        for p in participants.values {
            guard let data = p.browserData, let start = data.callStart, data.sender.keepaliveDue(now: now) else { continue }
            let wallMs = UInt64(max(0, wallClockMilliseconds()))
            sendBrowserItem(p, data, DataStreamPacket.Header(kind: .keepalive, ordered: true, start: start), [],
                            reliable: true, wallMs: wallMs)
        }
    }

    private func sendBrowserItem(_ p: MediaParticipant, _ data: BrowserData, _ item: DataStreamPacket.Header,
                                 _ payload: [UInt8], reliable: Bool, wallMs: UInt64) {
        let sequence = reliable ? data.sequence : data.unreliableSequence
        var packet = RtpHeader(marker: false, payloadType: reliable ? PayloadType.reliableData.rawValue : PayloadType.unreliableData.rawValue,
                               sequenceNumber: sequence, timestamp: UInt32(truncatingIfNeeded: wallMs &* 90),
                               ssrc: reliable ? BrowserData.reliableSsrc : BrowserData.unreliableSsrc).serialized
        if reliable { data.sequence &+= 1 } else { data.unreliableSequence &+= 1 }
        packet += item.serialized
        packet += payload
        let n = packet.count
        packet += [UInt8](repeating: 0, count: SrtpSession.maxTrailer)
        packet.withUnsafeMutableBytes { raw in forwardPlain(raw.baseAddress!, n, from: p) }
    }

    /// An engine's data packet for a browser: its items, put back in order
    /// for a reliable stream, go to the browser's data channel as messages.
    func deliverData(to member: MediaParticipant, from p: MediaParticipant, _ buffer: UnsafeMutableRawPointer, _ length: Int,
                     header: RtpHeader, ssrc: UInt32, now: Instant) {
        let body = UnsafeRawBufferPointer(start: buffer + header.payloadOffset,
                                          count: max(0, length - header.payloadOffset - header.paddingLength))
        guard var item = DataStreamPacket.Header.parse(body) else { return drop(.malformed) }
        let payload = Array(body[DataStreamPacket.headerSize...])
        let data = member.browserData ?? BrowserData(seed: UInt16(truncatingIfNeeded: member.session &* 40_503))
        member.browserData = data
        let outputs: [DataStreamReceiver.Output]
        if PayloadType(header.payloadType) == .unreliableData {
            var once = DataStreamReceiver()
            outputs = once.receivedUnreliable(header: item, payload: payload)
        } else {
            var receiver = data.receivers[ssrc] ?? DataStreamReceiver()
            // A browser that came after the stream began waits for nothing sent before it.
            if data.receivers[ssrc] == nil, let began = p.channel.dataStarted[ssrc], member.admittedAt > began {
                item.start = header.sequenceNumber
            }
            outputs = receiver.receivedReliable(sequence: header.sequenceNumber, header: item, payload: payload, now: now)
            data.receivers[ssrc] = receiver
        }
        for case .deliver(let d) in outputs where d.header.kind == .message {
            onBrowserData(member.session, BrowserData.frame(uid: p.uid, streamId: d.header.streamId,
                                                            sentMs: d.header.timestampMs, d.payload))
        }
    }
}
