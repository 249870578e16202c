import AgoraishIO
import AgoraishMedia
import AgoraishWire
import Glibc

/// Sending: from a captured or pushed picture to RTP.
extension VideoPipeline {
    /// One local picture (I420, upright). Called by pushExternalVideoFrame on
    /// the host's thread or by the camera thread. Observed, previewed and, in
    /// a call, encoded and sent; the size may change from picture to picture
    /// (the encoder follows, starting with a keyframe). `followers` are other
    /// connections' pipelines that publish the same track: they send the
    /// frames encoded here (a track is encoded once, docs/connections.md).
    func capture(_ picture: I420Frame, timestampMs: Int64, followers: [VideoPipeline] = []) throws(AgoraError) {
        let s = settings.withLock { $0 }
        guard s.capturing else { return }
        var frame = picture
        if let obs = s.observer, obs.position & 1 != 0, let cb = obs.onCapture {
            guard frame.withBuffer(timeMs: timestampMs, cb) else { return }
        }
        let taps = recordTaps.withLock { Array($0.values) }
        if !taps.isEmpty {
            frame.withView(timeMs: Instant.now().nanoseconds / 1_000_000) { view in for tap in taps { tap(0, view) } }
        }
        var events: [VideoEvent] = []
        send.withLock { st in
            st.period.captured += 1
            if !st.firstFrameReported {
                st.firstFrameReported = true
                events.append(.firstLocalVideoFrame(width: Int32(frame.width), height: Int32(frame.height),
                                                    elapsedMs: elapsed()))
            }
            if st.localState == 0 || st.localState == 3 {
                st.localState = 1
                events.append(.localVideoStateChanged(state: 1, error: 0))
            }
        }
        for e in events { emit(e) }
        let link = s.sending ? transport.withLock({ $0 }) : nil
        // The engine's pipeline: the other connections that publish its camera
        // follow this one while it sends, else take the picture themselves.
        var followers = followers
        if let forward = localForward.withLock({ $0 }) { followers += forward(frame, timestampMs, link != nil) }
        if s.previewShown { preview(frame, s) }
        takeSnapshots(of: 0, frame, timestampMs)
        guard let link else { return }
        try encodeAndSend(frame, timestampMs: timestampMs, s, link, followers: followers)
    }

    /// Whether this pipeline sends video now (in a call, video on, not muted).
    var isSending: Bool { settings.withLock { $0.sending } && transport.withLock { $0 } != nil }

    /// As a follower of another pipeline's encoder: whether its high stream
    /// needs a keyframe to start (a new call or resume) and whether a receiver
    /// asked for one.
    var keyframeNeeds: (start: Bool, asked: Bool) { send.withLock { ($0.high.keyframeWanted, $0.high.keyframeRequested) } }

    /// Hands a copy of a local picture to the preview sink on the video thread.
    private func preview(_ frame: I420Frame, _ s: Settings) {
        var shown = frame
        if let w = s.watermark, w.visibleInPreview { shown = watermarked(shown) }
        loop.post { [self] in
            guard let canvas = settings.withLock({ $0.previewShown ? $0.localCanvas : nil }) else { return }
            let out = canvas.transforms(local: true) ? canvas.apply(shown, local: true) : shown
            previewRendered.add(1, ordering: .relaxed)
            out.withView(timeMs: Instant.now().nanoseconds / 1_000_000) { canvas.deliver(0, $0) }
        }
    }

    /// The picture with the current watermark blended in (placed for its orientation).
    func watermarked(_ frame: I420Frame) -> I420Frame {
        let mark = settings.withLock { s -> Watermark? in
            guard var w = s.watermark else { return nil }
            let size = (frame.width, frame.height)
            if let p = w.prepared, p.size == size { return p.mark }
            let r = frame.height > frame.width ? w.portrait : w.landscape
            guard let m = try? Watermark(image: w.image, x: r.x, y: r.y, width: r.width, height: r.height) else { return nil }
            w.prepared = (size, m)
            s.watermark = w
            return m
        }
        guard let mark else { return frame }
        var out = frame
        mark.blend(into: &out)
        return out
    }

    /// What the uplink allows the next picture (docs/network.md, Bandwidth
    /// adaptation): the estimate less the audio reserve (and the low stream)
    /// goes to the high stream; below the configured rate the degradation
    /// preference chooses what gives: MAINTAIN_QUALITY the frame rate down to
    /// `qualityFloorFps`, then the picture size as well (pictures keep moving
    /// on a narrow link), MAINTAIN_FRAMERATE the picture size,
    /// MAINTAIN_BALANCED some of each, MAINTAIN_RESOLUTION the frame rate only. The frame rate follows at once; the
    /// size steps down at most once a second and back up after a larger one
    /// has fitted for 3 s.
    struct Plan {
        var bitrate: Int
        var frameRate: Int
        var scale: Double
        /// Publish fallback: send no video now.
        var audioOnly: Bool
        var events: [VideoEvent] = []
    }

    static func adaptationPlan(configured: Int, _ c: VideoEncoderConfiguration, _ s: Settings, lowKbps: Int,
              _ a: inout Adaptation, targetBitrate: Int, now: Instant) -> Plan {
        let available = max(0, targetBitrate / 1000 - Self.audioReserveKbps)
        var p = Plan(bitrate: configured, frameRate: c.frameRate, scale: Adaptation.scales[a.step], audioOnly: false)
        // Publish fallback (AUDIO_ONLY): video stops below the floor, resumes well above it.
        if s.publishFallback == 2 {
            let low = available < Self.fallbackFloorKbps, recovered = available >= 2 * Self.fallbackFloorKbps
            if a.audioOnly {
                if recovered && (a.heldUntil.map { now >= $0 } ?? true) {
                    if now - (a.fallbackSince ?? now) >= .seconds(2) {
                        a.audioOnly = false
                        a.fallbackSince = nil
                        a.lastRecovery = now
                        p.events.append(.localPublishFallback(isFallback: false))
                    } else if a.fallbackSince == nil { a.fallbackSince = now }
                } else {
                    a.fallbackSince = nil
                }
            } else if low {
                if let since = a.fallbackSince, now - since >= .seconds(2) {
                    a.audioOnly = true
                    a.fallbackSince = nil
                    // Video that failed again soon after coming back waits longer next time.
                    let soon = a.lastRecovery.map { now - $0 < .seconds(10) } ?? false
                    a.backoff = soon ? min(a.backoff * 2, .seconds(60)) : .seconds(4)
                    a.heldUntil = now + a.backoff
                    p.events.append(.localPublishFallback(isFallback: true))
                } else if a.fallbackSince == nil { a.fallbackSince = now }
            } else {
                a.fallbackSince = nil
            }
        } else if a.audioOnly {
            a.audioOnly = false
            p.events.append(.localPublishFallback(isFallback: false))
        }
        p.audioOnly = a.audioOnly
        let budget = max(30, available - lowKbps)
        let ratio = Double(budget) / Double(max(1, configured))
        p.bitrate = max(30, min(configured, budget))
        if c.minBitrate > 0 { p.bitrate = max(p.bitrate, min(c.minBitrate, configured)) }
        // Up to a quarter below the configured rate only the encoder's rate changes.
        let shortfall = min(1, ratio / 0.75)
        let minFps = max(1, min(c.frameRate, 5))
        var wantedScale = 1.0
        switch c.degradationPreference {
        case 1: wantedScale = shortfall.squareRoot()
        case 3: p.frameRate = max(minFps, Int((Double(c.frameRate) * shortfall).rounded()))
        case 2:
            wantedScale = shortfall.squareRoot().squareRoot()
            p.frameRate = max(minFps, Int((Double(c.frameRate) * shortfall.squareRoot()).rounded()))
        default:
            // The frame rate gives first, down to its floor; what the budget still
            // lacks at the floor comes off the picture's pixel count.
            let floor = max(minFps, min(c.frameRate, Self.qualityFloorFps))
            let wanted = Double(c.frameRate) * shortfall
            p.frameRate = max(floor, Int(wanted.rounded()))
            if wanted < Double(floor) { wantedScale = (wanted / Double(floor)).squareRoot() }
        }
        // The largest step not above the wanted scale.
        let wantedStep = Adaptation.scales.firstIndex { $0 <= wantedScale + 1e-9 } ?? Adaptation.scales.count - 1
        if wantedStep > a.step {
            if a.lastStepDown.map({ now - $0 >= .seconds(1) }) ?? true {
                a.step = wantedStep
                a.lastStepDown = now
            }
            a.fitsLargerSince = nil
        } else if wantedStep < a.step {
            if let since = a.fitsLargerSince, now - since >= .seconds(3) {
                a.step -= 1
                a.fitsLargerSince = nil
            } else if a.fitsLargerSince == nil { a.fitsLargerSince = now }
        } else {
            a.fitsLargerSince = nil
        }
        p.scale = Adaptation.scales[a.step]
        return p
    }

    private func encodeAndSend(_ picture: I420Frame, timestampMs: Int64, _ s: Settings, _ link: MediaTransport,
                               followers: [VideoPipeline]) throws(AgoraError) {
        let c = s.configuration
        let configured = c.bitrate > 0 ? c.bitrate
            : VideoEncoderConfiguration.baseBitrate(width: c.width, height: c.height, frameRate: c.frameRate)
                * (c.bitrate == 0 && s.liveBroadcasting ? 2 : 1)
        // What the other streams (the low one, simulcast layers) take of the uplink.
        let lowKbps = s.extraLayers.reduce(0) { $0 + $1.shape(width: c.width, height: c.height, frameRate: c.frameRate).kbps }
        // The uplink's estimate, and what the subscribers' downlinks can take (REMB from the server).
        var target = link.targetBitrate
        if let cap = link.videoCap { target = min(target, cap + (lowKbps + Self.audioReserveKbps) * 1000) }
        let now = Instant.now()
        let plan = send.withLock { st -> Plan in
            let p = Self.adaptationPlan(configured: configured, c, s, lowKbps: lowKbps, &st.adaptation, targetBitrate: target, now: now)
            st.frameRate = p.frameRate
            return p
        }
        for e in plan.events { emit(e) }
        // While in publish fallback the estimate may grow to what video needs
        // to come back, and padding keeps it learning (up to the estimate).
        let recovery = (2 * Self.fallbackFloorKbps + Self.audioReserveKbps) * 1000 * 14 / 10
        link.congestion.withLock {
            $0.estimator.growthCeiling = plan.audioOnly ? recovery : nil
            $0.paddingRate = plan.audioOnly ? min($0.estimator.target, recovery) : 0
        }
        if plan.audioOnly { return }
        var frame = picture
        let box = c.box(forPictureOf: frame.width, frame.height)
        if box.cropToBox { frame = PixelConversion.cropped(frame, toAspectOf: box.width, box.height) }
        var (w, h) = PixelConversion.fitting(width: frame.width, height: frame.height, within: box.width, box.height)
        if plan.scale < 1 {
            w = max(16, Int(Double(w) * plan.scale) & ~1)
            h = max(16, Int(Double(h) * plan.scale) & ~1)
        }
        frame = PixelConversion.scaled(frame, width: w, height: h)
        if c.mirrorMode == 1 { frame = PixelConversion.mirrored(frame) }
        if s.watermark != nil { frame = watermarked(frame) }
        if let obs = s.observer, obs.position & 4 != 0, let cb = obs.onPreEncode {
            guard frame.withBuffer(timeMs: timestampMs, cb) else { return }
        }
        // A picture smaller than the configured box is sent at its own size, at its own base rate.
        let ownRate = c.bitrate > 0 ? c.bitrate
            : VideoEncoderConfiguration.baseBitrate(width: frame.width, height: frame.height, frameRate: c.frameRate)
                * (c.bitrate == 0 && s.liveBroadcasting ? 2 : 1)
        let bitrate = min(plan.bitrate, max(ownRate, 30))
        link.setPacingFloor((bitrate + lowKbps) * 1000)
        var events: [VideoEvent] = []
        var sentPicture = false
        // Followers' keyframe needs join this encoder's; its frames go to them after the lock.
        let needs = followers.map(\.keyframeNeeds)
        var forwarded: [EncodedFrame] = []
        defer {
            // Outside the lock: the host's metadata source may call into the engine.
            if sentPicture, let hook = pictureSent.withLock({ $0 }) { hook(timestampMs) }
            for f in forwarded {
                for follower in followers {
                    _ = follower.sendEncoded(f.data, isKeyframe: f.isKeyframe, width: frame.width, height: frame.height,
                                             codec: c.codec, timestampMs: timestampMs)
                }
            }
        }
        try send.withLock { st throws(AgoraError) in
            let first = st.firstPts ?? timestampMs
            st.firstPts = first
            // 90 kHz ticks since the first push; RTP keeps the low 32 bits, so wrapping is what is wanted.
            let pts = (timestampMs &- first) &* 90
            st.bitrateKbps = bitrate
            // A lower frame rate thins the pictures evenly.
            let sendHigh = st.high.gate.admits(timestampMs: timestampMs, frameRate: plan.frameRate,
                                               thinning: plan.frameRate < c.frameRate)
            var high = st.high
            defer { st.high = high }
            if needs.contains(where: \.start) { high.keyframeWanted = true }
            if needs.contains(where: \.asked) { high.keyframeRequested = true }
            var sentHigh = false
            if sendHigh {
                sentHigh = try encode(frame, pts: pts, layer: &high, codec: c.codec, frameRate: c.frameRate,
                                      bitrate: bitrate, st: &st, link) { if !followers.isEmpty { forwarded.append($0) } }
            }
            if sentHigh {
                sentPicture = true
                st.period.encoded += 1
                st.encodedFrameCount += 1
                st.encodedSize = (frame.width, frame.height)
                if st.lastSentSize != (frame.width, frame.height) {
                    if st.lastSentSize != (0, 0) {
                        events.append(.videoSizeChanged(uid: 0, width: Int32(frame.width), height: Int32(frame.height)))
                    }
                    st.lastSentSize = (frame.width, frame.height)
                }
                if !st.published {
                    st.published = true
                    events.append(.firstLocalVideoFramePublished(elapsedMs: elapsed()))
                }
                if st.localState != 2 {
                    st.localState = 2
                    events.append(.localVideoStateChanged(state: 2, error: 0))
                }
            }
            // The other streams: dual stream's low one, or the simulcast layers,
            // each scaled from the picture sent and kept to its own frame rate.
            for extra in s.extraLayers {
                let shape = extra.shape(width: frame.width, height: frame.height, frameRate: c.frameRate)
                let isLow = extra.type == VideoStreamLayer.low
                guard var layer = isLow ? Optional(st.low) : st.layers[extra.type] else { continue }
                let admitted = layer.gate.admits(timestampMs: timestampMs, frameRate: shape.frameRate)
                defer { if isLow { st.low = layer } else { st.layers[extra.type] = layer } }
                guard admitted else { continue }
                let small = shape.width == frame.width && shape.height == frame.height
                    ? frame : PixelConversion.scaled(frame, width: shape.width, height: shape.height)
                _ = try encode(small, pts: pts, layer: &layer, codec: c.codec, frameRate: shape.frameRate,
                               bitrate: shape.kbps, st: &st, link)
            }
        }
        for e in events { emit(e) }
    }

    /// Encodes one picture for one layer and sends its packets. False when the
    /// encoder dropped the picture.
    private func encode(_ frame: I420Frame, pts: Int64, layer: inout Layer, codec: VideoCodec, frameRate: Int,
                        bitrate: Int, st: inout SendState, _ link: MediaTransport,
                        encoded: (EncodedFrame) -> Void = { _ in }) throws(AgoraError) -> Bool {
        let isLow = layer.ssrc != st.high.ssrc
        if let e = layer.encoder, e.settings.width == frame.width, e.settings.height == frame.height,
           e.settings.codec == codec, e.settings.frameRate == frameRate {
            if e.settings.bitrateKbps != bitrate { try? e.setBitrate(kbps: bitrate) }
        } else {
            do {
                layer.encoder = try VideoEncoder(settings: .init(
                    codec: codec, width: frame.width, height: frame.height, frameRate: frameRate,
                    bitrateKbps: bitrate, keyframeInterval: 3 * frameRate))
            } catch {
                throw .invalidArgument
            }
            layer.keyframeWanted = true
        }
        let started = Instant.now()
        let key = layer.takesKeyframe(now: started, interval: Self.keyframeRequestInterval)
        guard let frames = try? layer.encoder!.encode(frame, pts: pts, keyframe: key) else { throw .failed }
        for f in frames {
            sendFrame(f.data, isKeyframe: f.isKeyframe, pts: f.pts, width: frame.width, height: frame.height, codec: codec,
                      layer: &layer, st: &st, link, started: started, isLow: isLow)
            encoded(f)
        }
        return !frames.isEmpty
    }

    /// One frame encoded by the host (a custom encoded video track): sent on
    /// the high stream as it is, with the RTP timestamp of `timestampMs`.
    /// Returns false when nothing is sent (not in a call, video muted or off).
    func sendEncoded(_ data: [UInt8], isKeyframe: Bool, width: Int, height: Int, codec: VideoCodec,
                     timestampMs: Int64) -> Bool {
        let s = settings.withLock { $0 }
        guard s.sending, let link = transport.withLock({ $0 }) else { return false }
        var events: [VideoEvent] = []
        send.withLock { st in
            let first = st.firstPts ?? timestampMs
            st.firstPts = first
            var high = st.high
            sendFrame(data, isKeyframe: isKeyframe, pts: (timestampMs &- first) &* 90, width: width, height: height,
                      codec: codec, layer: &high, st: &st, link, started: .now(), isLow: false)
            // A keyframe from elsewhere (the host, or the encoder this stream follows) starts the stream.
            if isKeyframe { high.keyframeWanted = false }
            st.high = high
            st.period.encoded += 1
            st.encodedFrameCount += 1
            if width > 0 && height > 0 { st.encodedSize = (width, height) }
            if !st.published {
                st.published = true
                events.append(.firstLocalVideoFramePublished(elapsedMs: elapsed()))
            }
            if st.localState != 2 {
                st.localState = 2
                events.append(.localVideoStateChanged(state: 2, error: 0))
            }
        }
        for e in events { emit(e) }
        return true
    }

    /// Packetizes one encoded frame (from the encoder or the host's encoded
    /// track) for `layer` and sends it, keeping its history for NACKs.
    func sendFrame(_ data: [UInt8], isKeyframe: Bool, pts: Int64, width: Int, height: Int, codec: VideoCodec,
                   layer: inout Layer, st: inout SendState, _ link: MediaTransport, started: Instant, isLow: Bool) {
        protection.refresh(&st.crypto)
        let packets = layer.packets(of: data, isKeyframe: isKeyframe, pts: pts, width: width, height: height, codec: codec,
                                    maxPayload: Self.maxPayload, now: .now(), encodedAt: started) { plain in
            guard st.crypto.active else { return (plain, nil) }
            // The descriptor (and a VP8 frame tag's first byte) stays readable for
            // the server; the host's observer and the cipher get the rest.
            let clear = Self.clearPrefix(plain, codec: codec)
            guard let out = protection.outgoing(Array(plain[clear...]), .video, &st.crypto) else { return nil }
            return (Array(plain[..<clear]) + out, st.crypto.mode.map { UInt8($0.rawValue) })
        }
        var bytes = 0
        for packet in packets {
            st.packet.withUnsafeMutableBytes { raw in
                raw.copyBytes(from: packet)
                link.send(rtp: raw.baseAddress!, length: packet.count)
            }
            bytes += packet.count
        }
        st.period.sentPackets += packets.count
        st.period.sentBytes += bytes
        if !isLow {
            st.period.sentFrames += 1
            st.period.encodedBytes += data.count
        }
        if isKeyframe { keyframeCounters.withLock { $0.keyframesSent += 1 } }
    }

    /// Bytes at the start of a video RTP payload that end-to-end protection
    /// leaves readable: the payload descriptor, and for a VP8 packet that
    /// starts a frame the first byte of the frame tag (the server reads
    /// keyframes there to switch streams).
    static func clearPrefix(_ payload: [UInt8], codec: VideoCodec) -> Int {
        payload.withUnsafeBytes { raw -> Int in
            if codec == .vp9 { return (try? VP9Payload.parse(raw).length) ?? payload.count }
            guard let d = try? VP8Payload.parse(raw) else { return payload.count }
            return d.startOfPartition && d.partitionIndex == 0 ? min(payload.count, d.length + 1) : d.length
        }
    }

    /// The server asked for packets of one of our streams again (generic NACK):
    /// each one still held goes out as RTX (RFC 4588) on the layer's RTX SSRC.
    func nacked(ssrc: UInt32, sequences: [UInt16]) {
        guard let link = transport.withLock({ $0 }) else { return }
        let now = Instant.now()
        let sent = send.withLock { st -> Int in
            func answer(_ layer: inout Layer, _ packet: inout [UInt8]) -> Int {
                let rtx = layer.retransmissions(of: sequences, now: now, maxLength: packet.count - SrtpSession.maxTrailer)
                for p in rtx {
                    packet.withUnsafeMutableBytes { raw in
                        raw.copyBytes(from: p)
                        link.send(rtp: raw.baseAddress!, length: p.count)
                    }
                }
                return rtx.count
            }
            var packet = st.packet
            defer { st.packet = packet }
            if st.high.ssrc == ssrc { return answer(&st.high, &packet) }
            if st.low.ssrc == ssrc { return answer(&st.low, &packet) }
            if let t = st.layers.first(where: { $0.value.ssrc == ssrc })?.key {
                return answer(&st.layers[t]!, &packet)
            }
            return 0
        }
        retransmissionCounters.withLock {
            $0.requested += sequences.count
            $0.retransmitted += sent
        }
    }

    /// A receiver asked for a keyframe (PLI or FIR) of one of our streams.
    func keyframeRequested(ssrc: UInt32) {
        let mine = send.withLock { st -> Bool in
            if st.high.ssrc == ssrc { st.high.keyframeRequested = true; return true }
            if st.low.ssrc == ssrc { st.low.keyframeRequested = true; return true }
            if let t = st.layers.first(where: { $0.value.ssrc == ssrc })?.key {
                st.layers[t]!.keyframeRequested = true
                return true
            }
            return false
        }
        if mine { keyframeCounters.withLock { $0.requestsReceived += 1 } }
    }

    /// The call ended or sending paused: the next frame sent starts with a
    /// keyframe (and, in a new call, a first-frame event).
    func resetSend() {
        let capturing = send.withLock { st -> Bool in
            st.high.keyframeWanted = true
            st.low.keyframeWanted = true
            st.low.gate.reset()
            st.high.gate.reset()
            for t in st.layers.keys {
                st.layers[t]!.keyframeWanted = true
                st.layers[t]!.gate.reset()
            }
            st.published = false
            st.firstPts = nil
            guard st.localState == 2 else { return false }
            st.localState = 1
            return true
        }
        // Encoding stopped; pictures may still come (CAPTURING).
        if capturing { emit(.localVideoStateChanged(state: 1, error: 0)) }
    }

    /// Local video stopped (disabled or enableLocalVideo(false)): STOPPED is
    /// reported, and the next picture is a first frame again.
    func localStopped() {
        let report = send.withLock { st -> Bool in
            st.firstFrameReported = false
            guard st.localState != 0 else { return false }
            st.localState = 0
            return true
        }
        if report { emit(.localVideoStateChanged(state: 0, error: 0)) }
    }

    /// The camera failed: FAILED with a LOCAL_VIDEO_STREAM_ERROR.
    func localFailed(error: Int32) {
        send.withLock { $0.localState = 3 }
        emit(.localVideoStateChanged(state: 3, error: error))
    }
}
