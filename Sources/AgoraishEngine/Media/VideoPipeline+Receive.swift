import AgoraishIO
import AgoraishMedia
import AgoraishWire
import Glibc

/// Receiving: from RTP to the render sinks, with the remote video states.
extension VideoPipeline {
    /// A gap between two pictures of a user this long or longer is a freeze
    /// (Agora's definition for streams of at least 5 fps).
    static let freezeGap: Duration = .milliseconds(500)

    /// A video RTP packet (IO thread): copied to the video thread. An RTX
    /// packet becomes the original it carries first.
    func received(rtp: UnsafeMutableRawPointer, length: Int, now: Instant) {
        let (enabled, blocked) = settings.withLock { ($0.enabled, $0.blocked) }
        guard enabled else { return }
        let raw = UnsafeRawBufferPointer(start: rtp, count: length)
        guard var h = try? RtpHeader.parse(raw), Self.isVideo(payloadType: h.payloadType),
              h.payloadOffset < length - h.paddingLength else { return }
        var retransmitted = false
        var original: [UInt8] = []
        if Self.isRtx(payloadType: h.payloadType) {
            let pt = h.payloadType == PayloadType.vp9Rtx.rawValue ? PayloadType.vp9.rawValue : PayloadType.vp8.rawValue
            guard let media = rtxStreams.withLock({ $0[h.ssrc] }), let o = RtxPacket.unwrap(raw, payloadType: pt, ssrc: media),
                  let oh = o.withUnsafeBytes({ try? RtpHeader.parse($0) }), oh.payloadOffset < o.count - oh.paddingLength
            else { return }
            original = o
            h = oh
            retransmitted = true
        }
        guard backlog.load(ordering: .relaxed) < Self.maxBacklog else { return }
        if let uid = owners(h.ssrc), blocked(uid) { return }
        let received = retransmitted ? Array(original[h.payloadOffset..<(original.count - h.paddingLength)])
                                     : Array(raw[h.payloadOffset..<(length - h.paddingLength)])
        let mark = retransmitted ? original.withUnsafeBytes { PayloadProtection.mark(in: $0) } : PayloadProtection.mark(in: raw)
        guard let mark, let payload = receiveCrypto.withLock({ c -> [UInt8]? in
            // Encrypted end to end, or seen by the host's observer: what cannot be read goes no further.
            protection.refresh(&c)
            guard mark != nil || c.active else { return received }
            let clear = Self.clearPrefix(received, codec: h.payloadType == PayloadType.vp9.rawValue ? .vp9 : .vp8)
            return protection.incoming(Array(received[clear...]), marked: mark, .video, &c).map { Array(received[..<clear]) + $0 }
        }) else { return }
        backlog.add(1, ordering: .relaxed)
        loop.post { [self] in
            backlog.subtract(1, ordering: .relaxed)
            assemble(h, payload, length, now, retransmitted: retransmitted)
        }
    }

    private func assemble(_ h: RtpHeader, _ payload: [UInt8], _ length: Int, _ now: Instant, retransmitted: Bool) {
        let codec: VideoCodec = h.payloadType == PayloadType.vp9.rawValue ? .vp9 : .vp8
        var stream = streams[h.ssrc].flatMap { $0.codec == codec ? $0 : nil } ?? Stream(codec: codec)
        if stream.uid == 0 { stream.uid = owners(h.ssrc) ?? 0 }
        if retransmitted {
            let before = stream.nack.recovered
            stream.nack.received(h.sequenceNumber, now: now)
            if stream.nack.recovered > before { retransmissionCounters.withLock { $0.recovered += 1 } }
        } else {
            stream.sequences.count(h.sequenceNumber)
            stream.nack.received(h.sequenceNumber, now: now)
        }
        if stream.nack.count > 0 { scheduleNacks() }
        if stream.uid != 0 { packetArrived(uid: stream.uid, ssrc: h.ssrc, bytes: length, now: now) }
        let frames = payload.withUnsafeBytes {
            stream.assembler.insert(sequence: h.sequenceNumber, timestamp: h.timestamp, marker: h.marker, payload: $0)
        }
        if stream.uid == 0 {
            // Signaling names the stream's owner just after its first packets:
            // keep its frames until then, so the first picture reaches the sink.
            stream.waiting += frames
            if stream.waiting.count > Self.maxWaitingFrames {
                stream.waiting.removeFirst(stream.waiting.count - Self.maxWaitingFrames)
                stream.needsKeyframe = true
            }
        } else {
            decode(&stream, ssrc: h.ssrc, stream.waiting + frames)
            stream.waiting = []
        }
        if stream.needsKeyframe { requestKeyframe(&stream, ssrc: h.ssrc, now: now) }
        streams[h.ssrc] = stream
        if stream.uid != 0 {
            let counts = streams.values.filter { $0.uid == stream.uid }.reduce((0, 0)) { ($0.0 + $1.sequences.expected, $0.1 + $1.sequences.received) }
            lossSnapshot.withLock { $0[stream.uid] = counts }
        }
    }

    /// Frames of a stream whose owner is not known yet, at most.
    static let maxWaitingFrames = 30

    /// Signaling learned stream owners: streams that waited for theirs go on.
    func ownersChanged() {
        loop.post { [self] in
            for (ssrc, var stream) in streams where stream.uid == 0 {
                guard let uid = owners(ssrc) else { continue }
                stream.uid = uid
                packetArrived(uid: uid, ssrc: ssrc, bytes: 0, now: .now())
                decode(&stream, ssrc: ssrc, stream.waiting)
                stream.waiting = []
                streams[ssrc] = stream
            }
        }
    }

    /// Counts a packet of a user's video; the first after a stop is STARTING.
    private func packetArrived(uid: UInt32, ssrc: UInt32, bytes: Int, now: Instant) {
        let layer = streamLayers.withLock { $0[ssrc] } ?? VideoStreamLayer.high
        let event = users.withLock { map -> VideoEvent? in
            var u = map[uid] ?? RemoteUser()
            defer { map[uid] = u }
            u.bytes += bytes
            u.streamLayer = layer
            if u.publishedAt == nil { u.publishedAt = now }
            guard u.state == 0, !u.remoteMuted, !u.locallyMuted else { return nil }
            u.state = 1
            return .remoteVideoStateChanged(uid: uid, state: 1, reason: u.resumeReason, elapsedMs: elapsed())
        }
        if let event { emit(event) }
        scheduleFreezeCheck()
    }

    private func decode(_ stream: inout Stream, ssrc: UInt32, _ frames: [VP8FrameAssembler.Frame]) {
        let observer = settings.withLock { $0.encodedObserver }
        for frame in frames {
            if let observer {
                var info = EncodedVideoFrameInfo()
                info.codec = stream.codec
                info.frameType = frame.isKeyframe ? 3 : 4
                info.captureTimeMs = Int64(frame.timestamp / 90)
                info.uid = stream.uid
                if stream.codec == .vp8, frame.isKeyframe, let size = VP8Payload.keyframeSize(frame.data) {
                    (info.width, info.height) = size
                }
                observer(frame.data, info)
            }
            if frame.afterLoss && !frame.isKeyframe { stream.needsKeyframe = true }
            if frame.isKeyframe { stream.needsKeyframe = false }
            guard !stream.needsKeyframe else { continue }
            if stream.decoder == nil { stream.decoder = try? VideoDecoder(codec: stream.codec) }
            guard let decoder = stream.decoder else { continue }
            let uid = stream.uid
            do {
                // The picture stays in the decoder's buffers: no copy on the way to the sink.
                _ = try decoder.decode(frame.data) { picture in deliver(uid, picture) }
            } catch {
                stream.needsKeyframe = true
            }
        }
    }

    private func deliver(_ uid: UInt32, _ picture: VideoDecoder.PictureView) {
        guard uid != 0 else { return }
        let now = Instant.now()
        let (w, h) = (picture.width, picture.height)
        var events: [VideoEvent] = []
        users.withLock { map in
            var u = map[uid] ?? RemoteUser()
            defer { map[uid] = u }
            u.decoded += 1
            if !u.firstDecodedReported {
                u.firstDecodedReported = true
                events.append(.firstRemoteVideoDecoded(uid: uid, width: Int32(w), height: Int32(h), elapsedMs: elapsed()))
            }
            if u.size != (w, h) {
                if u.size != (0, 0) { events.append(.videoSizeChanged(uid: uid, width: Int32(w), height: Int32(h))) }
                u.size = (w, h)
            }
            if let last = u.lastPicture {
                let gap = (now.nanoseconds - last.nanoseconds) / 1_000_000
                u.activeMs += gap
                if now - last >= Self.freezeGap { u.frozenMs += gap }
            }
            u.lastPicture = now
            if u.state != 2 && !u.remoteMuted && !u.locallyMuted {
                // From FROZEN the network recovered; otherwise the reason the start carried.
                let reason: Int32 = u.state == 3 ? 2 : u.resumeReason
                u.state = 2
                events.append(.remoteVideoStateChanged(uid: uid, state: 2, reason: reason, elapsedMs: elapsed()))
            }
        }
        for e in events { emit(e) }
        let (canvas, observer) = settings.withLock { ($0.sinks[uid], $0.observer) }
        let wantsSnapshot = snapshots.withLock { $0[uid] != nil }
        let timeMs = now.nanoseconds / 1_000_000
        let view = VideoFrameView(width: w, height: h, y: picture.y, u: picture.u, v: picture.v,
                                  yStride: picture.yStride, uvStride: picture.uvStride, renderTimeMs: timeMs)
        for tap in recordTaps.withLock({ Array($0.values) }) { tap(uid, view) }
        let observed = observer.flatMap { $0.position & 2 != 0 ? $0.onRender : nil }
        if observed == nil && !wantsSnapshot && !(canvas?.transforms(local: false) ?? false) {
            // The common case: the sink sees the decoder's own planes.
            guard let canvas else { return }
            rendered(uid, w, h)
            canvas.deliver(uid, view)
            return
        }
        var copy = I420Frame(copying: view)
        if let observed {
            guard copy.withBuffer(timeMs: timeMs, { observed(uid, $0) }) else { return }
        }
        if wantsSnapshot { takeSnapshots(of: uid, copy, timeMs) }
        guard let canvas else { return }
        let shown = canvas.transforms(local: false) ? canvas.apply(copy, local: false) : copy
        rendered(uid, w, h)
        shown.withView(timeMs: timeMs) { canvas.deliver(uid, $0) }
    }

    /// A picture of `uid` reached its sink: onFirstRemoteVideoFrame the first time.
    private func rendered(_ uid: UInt32, _ w: Int, _ h: Int) {
        let first = users.withLock { map -> Bool in
            map[uid]?.rendered += 1
            guard map[uid]?.firstRenderedReported == false else { return false }
            map[uid]?.firstRenderedReported = true
            return true
        }
        if first { emit(.firstRemoteVideoFrame(uid: uid, width: Int32(w), height: Int32(h), elapsedMs: elapsed())) }
    }

    /// Asks the sender for a keyframe with an RTCP PLI (RFC 4585 §6.3.1), at most every 200 ms.
    private func requestKeyframe(_ stream: inout Stream, ssrc: UInt32, now: Instant) {
        if let last = stream.lastPli, now - last < .milliseconds(200) { return }
        guard let link = transport.withLock({ $0 }) else { return }
        stream.lastPli = now
        let own = send.withLock { $0.high.ssrc }
        link.send(rtcp: PictureLossIndication(sender: Ssrc(own), media: Ssrc(ssrc)))
        keyframeCounters.withLock { $0.plisSent += 1 }
    }

    // MARK: - Retransmission requests

    /// Sends NACKs for missing packets every 10 ms while streams exist.
    private func scheduleNacks() {
        guard nackTimer == nil else { return }
        nackTimer = loop.schedule(after: .milliseconds(10)) { [self] in
            nackTimer = nil
            guard !streams.isEmpty, let link = transport.withLock({ $0 }) else { return }
            let now = Instant.now()
            let own = send.withLock { $0.high.ssrc }
            var asked = 0
            for ssrc in Array(streams.keys) {
                guard let due = streams[ssrc]?.nack.due(now: now, rtt: Self.nackInterval), !due.isEmpty else { continue }
                link.send(rtcp: GenericNack(sender: Ssrc(own), media: Ssrc(ssrc), sequences: due))
                asked += due.count
            }
            if asked > 0 { retransmissionCounters.withLock { $0.nacked += asked } }
            if streams.values.contains(where: { $0.nack.count > 0 }) { scheduleNacks() }
        }
    }

    // MARK: - Freezes

    /// Checks for frozen users every 100 ms while any user's video is decoding.
    private func scheduleFreezeCheck() {
        guard freezeTimer == nil else { return }
        freezeTimer = loop.schedule(after: .milliseconds(100)) { [self] in
            freezeTimer = nil
            let now = Instant.now()
            var events: [VideoEvent] = []
            let active = users.withLock { map -> Bool in
                var any = false
                for (uid, var u) in map where u.state == 1 || u.state == 2 {
                    any = true
                    if u.state == 2, let last = u.lastPicture, now - last >= Self.freezeGap {
                        u.state = 3
                        map[uid] = u
                        events.append(.remoteVideoStateChanged(uid: uid, state: 3, reason: 1, elapsedMs: elapsed()))
                    }
                }
                return any || map.values.contains { $0.state == 3 }
            }
            for e in events { emit(e) }
            if active { scheduleFreezeCheck() }
        }
    }

    // MARK: - Remote users

    /// A remote user muted or unmuted its video (onUserMuteVideo, or its video
    /// disabled): STOPPED with REMOTE_MUTED; STARTING with REMOTE_UNMUTED follows
    /// its next packet.
    func remoteMuted(uid: UInt32, muted: Bool) { pause(uid, muted: muted, remote: true) }

    /// The server stopped forwarding `uid`'s video because of this
    /// downlink (subscribe fallback, `audioOnly`), or resumed it: STOPPED with
    /// AUDIO_FALLBACK (8), then the next picture with AUDIO_FALLBACK_RECOVERY (9).
    func subscribeFallback(uid: UInt32, audioOnly: Bool) {
        let event = users.withLock { map -> VideoEvent? in
            var u = map[uid] ?? RemoteUser()
            defer { map[uid] = u }
            u.lastPicture = nil
            guard audioOnly else { return nil }
            u.resumeReason = 9
            guard u.state != 0 else { return nil }
            u.state = 0
            return .remoteVideoStateChanged(uid: uid, state: 0, reason: 8, elapsedMs: elapsed())
        }
        if let event { emit(event) }
        emit(.remoteSubscribeFallback(uid: uid, isFallback: audioOnly))
    }

    /// The local user stopped or resumed receiving `uid` (muteRemoteVideoStream and friends).
    func locallyMuted(uid: UInt32, muted: Bool) { pause(uid, muted: muted, remote: false) }

    private func pause(_ uid: UInt32, muted: Bool, remote: Bool) {
        let event = users.withLock { map -> VideoEvent? in
            var u = map[uid] ?? RemoteUser()
            defer { map[uid] = u }
            if remote { u.remoteMuted = muted } else { u.locallyMuted = muted }
            // Time paused is neither active nor frozen.
            u.lastPicture = nil
            if muted {
                u.resumeReason = remote ? 6 : 4
                guard u.state != 0 else { return nil }
                u.state = 0
                return .remoteVideoStateChanged(uid: uid, state: 0, reason: remote ? 5 : 3, elapsedMs: elapsed())
            }
            return nil
        }
        if let event { emit(event) }
        if muted && !remote {
            loop.post { [self] in
                for (ssrc, s) in streams where s.uid == uid { streams[ssrc]?.needsKeyframe = true }
            }
        }
    }

    /// The receive policy changed: users whose video became blocked or allowed.
    func policyChanged(blocked: @escaping @Sendable (UInt32) -> Bool, known: [UInt32]) {
        for uid in known {
            let was = users.withLock { $0[uid]?.locallyMuted ?? false }
            let now = blocked(uid)
            if was != now { locallyMuted(uid: uid, muted: now) }
        }
    }

    /// Forgets remote streams (the call ended).
    func resetReceive() {
        loop.post { [self] in
            streams = [:]
            users.withLock { $0 = [:] }
            lossSnapshot.withLock { $0 = [:] }
        }
        failSnapshots(except: [])
    }

    /// A remote user left: STOPPED with REMOTE_OFFLINE; its streams go.
    func remoteLeft(uid: UInt32) {
        loop.post { [self] in
            streams = streams.filter { $0.value.uid != uid }
            let was = users.withLock { $0.removeValue(forKey: uid) }
            lossSnapshot.withLock { $0[uid] = nil }
            if let was, was.state != 0 {
                emit(.remoteVideoStateChanged(uid: uid, state: 0, reason: 7, elapsedMs: elapsed()))
            }
        }
        failSnapshots(of: uid)
    }
}
