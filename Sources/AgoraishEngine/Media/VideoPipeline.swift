import AgoraishIO
import AgoraishMedia
import AgoraishWire
import CAgoraishShim
import Glibc
import Synchronization

/// One decoded picture for a render sink (setupRemoteVideo): I420 planes.
public struct VideoFrameView {
    public var width: Int
    public var height: Int
    public var y: UnsafeBufferPointer<UInt8>
    public var u: UnsafeBufferPointer<UInt8>
    public var v: UnsafeBufferPointer<UInt8>
    /// Row strides of the planes, in bytes.
    public var yStride: Int
    public var uvStride: Int
    /// When the picture was decoded, on the engine's monotonic clock, in ms.
    public var renderTimeMs: Int64
}

/// Agora's VideoEncoderConfiguration, as far as the encoder follows it.
public struct VideoEncoderConfiguration: Equatable, Sendable {
    /// The largest picture sent; pushed frames of another size are sent at their own size.
    public var width = 640
    public var height = 360
    public var frameRate = 15
    /// Kbps; 0 (STANDARD_BITRATE) picks Agora's base rate for the size and frame rate
    /// (twice it in live broadcasting), -1 (COMPATIBLE_BITRATE) the base rate in both.
    public var bitrate = 0
    public var minBitrate = -1
    public var codec = VideoCodec.vp8

    public init() {}

    /// Agora's base bitrate (Kbps) for a size and frame rate: its table at 15
    /// and 30 fps, linear in the pixel count between the table's sizes and in
    /// the frame rate between 15 and 30 (below 15 in proportion to it).
    public static func baseBitrate(width: Int, height: Int, frameRate: Int) -> Int {
        let table: [(pixels: Int, at15: Double, at30: Double)] = [
            (160 * 120, 65, 100), (320 * 180, 140, 210), (320 * 240, 200, 300), (640 * 360, 400, 600),
            (640 * 480, 500, 750), (848 * 480, 610, 930), (1280 * 720, 1130, 1710), (1920 * 1080, 2080, 3150),
        ]
        let pixels = width * height
        func at(_ pick: ((pixels: Int, at15: Double, at30: Double)) -> Double) -> Double {
            if pixels <= table[0].pixels { return pick(table[0]) * Double(pixels) / Double(table[0].pixels) }
            for i in 1..<table.count where pixels <= table[i].pixels {
                let a = table[i - 1], b = table[i]
                return pick(a) + (pick(b) - pick(a)) * Double(pixels - a.pixels) / Double(b.pixels - a.pixels)
            }
            return pick(table.last!) * Double(pixels) / Double(table.last!.pixels)
        }
        let k15 = at { $0.at15 }, k30 = at { $0.at30 }
        let kbps = frameRate <= 15 ? k15 * Double(max(frameRate, 1)) / 15 : k15 + (k30 - k15) * Double(frameRate - 15) / 15
        return max(1, Int(kbps.rounded()))
    }

    /// The bitrate to encode at.
    public func effectiveBitrate(liveBroadcasting: Bool) -> Int {
        if bitrate > 0 { return bitrate }
        let base = Self.baseBitrate(width: width, height: height, frameRate: frameRate)
        return bitrate == 0 && liveBroadcasting ? 2 * base : base
    }
}

/// The engine's video (docs/video.md): frames pushed by the host are encoded
/// with VP8 (or VP9) and sent as RTP (RFC 7741, payload type 96, 90 kHz);
/// what arrives is put back together per stream, decoded on the engine's video
/// thread, and handed to the render sink bound to its uid. A decoder that
/// cannot decode asks the sender for a keyframe (RTCP PLI through the server).
final class VideoPipeline: @unchecked Sendable {
    static let payloadType: UInt8 = 96
    static let maxPayload = 1200

    struct Settings {
        var enabled = false
        /// enableLocalVideo (on by default).
        var localEnabled = true
        /// muteLocalVideoStream.
        var localMuted = false
        /// Whose video is not decoded (muteRemoteVideoStream and friends).
        var blocked: @Sendable (UInt32) -> Bool = { _ in false }
        var externalSource = false
        var configuration = VideoEncoderConfiguration()
        var liveBroadcasting = false
        var sinks: [UInt32: Sink] = [:]
    }

    /// A render sink for one uid.
    struct Sink {
        var deliver: (UInt32, VideoFrameView) -> Void
    }

    struct SendState {
        var encoder: VideoEncoder? = nil
        var ssrc: UInt32 = 0
        var sequence: UInt16 = 0
        var pictureId: UInt16 = 0
        var firstPts: Int64? = nil
        var keyframeWanted = true
        var published = false
        var packet = [UInt8](repeating: 0, count: 1500 + SrtpSession.maxTrailer)
        var sentFrames = 0
        var sentBytes = 0
    }

    struct Stream {
        var assembler = VP8FrameAssembler()
        var decoder: VideoDecoder? = nil
        var uid: UInt32 = 0
        var needsKeyframe = true
        var lastPli: Instant? = nil
        var decodedReported = false
        var size: (Int, Int) = (0, 0)
        var decodedFrames = 0
        /// Complete frames kept until the stream's owner is known.
        var waiting: [VP8FrameAssembler.Frame] = []
    }

    let settings = Locked(Settings())
    private let send = Locked(SendState())
    /// Packets handed to the video thread and not yet assembled. Above
    /// `maxBacklog` (the thread cannot keep up) packets are dropped: the
    /// assembler sees a loss and asks for a keyframe once it catches up.
    private let backlog = Atomic<Int>(0)
    static let maxBacklog = 2000
    /// Keyframe traffic so far: PLIs sent, requests received, keyframes sent.
    let keyframeCounters = Locked((plisSent: 0, requestsReceived: 0, keyframesSent: 0))
    /// Video thread state (streams), only touched on `loop`.
    private var streams: [UInt32: Stream] = [:]
    let transport = Locked<MediaTransport?>(nil)
    let loop: EventLoop
    private let owners: @Sendable (UInt32) -> UInt32?
    private let elapsed: @Sendable () -> Int32
    let emit: @Sendable (VideoEvent) -> Void

    init(name: String, owners: @escaping @Sendable (UInt32) -> UInt32?, elapsed: @escaping @Sendable () -> Int32,
         emit: @escaping @Sendable (VideoEvent) -> Void) throws(EventThreadError) {
        loop = try EventLoop(name: name)
        // Render sinks run here: a release from inside one must not wait for threads (as from event callbacks).
        loop.post { agsh_set_event_thread(1) }
        self.owners = owners
        self.elapsed = elapsed
        self.emit = emit
        let seed = secureRandomBytes(8)
        send.withLock {
            $0.ssrc = UInt32(seed[0]) << 24 | UInt32(seed[1]) << 16 | UInt32(seed[2]) << 8 | UInt32(seed[3])
            $0.sequence = UInt16(seed[4]) << 8 | UInt16(seed[5])
            $0.pictureId = (UInt16(seed[6]) << 8 | UInt16(seed[7])) & 0x7FFF
        }
    }

    func shutdown(wait: Bool) { loop.stop(wait: wait) }

    /// Returns once everything posted to the video thread before has run
    /// (at once when called on that thread).
    func barrier() {
        guard !loop.inLoop else { return }
        let sem = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        sem_init(sem, 0, 0)
        defer {
            sem_destroy(sem)
            sem.deallocate()
        }
        guard loop.post({ sem_post(sem) }) else { return }
        while sem_wait(sem) != 0 && errno == EINTR {}
    }

    // MARK: - Sending

    /// pushExternalVideoFrame: one I420 picture. Encoded and sent when video is
    /// enabled, the external source is on and a call is up; the frame size may
    /// change from push to push (the encoder follows, starting with a keyframe).
    func push(_ frame: I420Frame, timestampMs: Int64) throws(AgoraError) {
        let s = settings.withLock { $0 }
        guard s.externalSource else { throw .notReady }
        // Disabled, stopped or muted: nothing is sent (Agora's push still succeeds).
        guard s.enabled, s.localEnabled, !s.localMuted, let link = transport.withLock({ $0 }) else { return }
        let bitrate = s.configuration.effectiveBitrate(liveBroadcasting: s.liveBroadcasting)
        try send.withLock { st throws(AgoraError) in
            if st.encoder == nil || st.encoder!.settings.width != frame.width || st.encoder!.settings.height != frame.height
                || st.encoder!.settings.codec != s.configuration.codec || st.encoder!.settings.frameRate != s.configuration.frameRate {
                do {
                    st.encoder = try VideoEncoder(settings: .init(
                        codec: s.configuration.codec, width: frame.width, height: frame.height,
                        frameRate: s.configuration.frameRate, bitrateKbps: bitrate,
                        keyframeInterval: 3 * s.configuration.frameRate))
                } catch {
                    throw .invalidArgument
                }
                st.keyframeWanted = true
            } else if st.encoder!.settings.bitrateKbps != bitrate {
                try? st.encoder!.setBitrate(kbps: bitrate)
            }
            let first = st.firstPts ?? timestampMs
            st.firstPts = first
            // 90 kHz ticks since the first push; RTP keeps the low 32 bits, so wrapping is what is wanted.
            let pts = (timestampMs &- first) &* 90
            let key = st.keyframeWanted
            st.keyframeWanted = false
            guard let frames = try? st.encoder!.encode(frame, pts: pts, keyframe: key) else { throw .failed }
            for f in frames where s.configuration.codec == .vp8 {
                let payloads = VP8Payload.packetize(f.data, pictureId: st.pictureId, maxPayload: Self.maxPayload)
                let timestamp = UInt32(truncatingIfNeeded: f.pts)
                for (i, payload) in payloads.enumerated() {
                    let header = RtpHeader(marker: i == payloads.count - 1, payloadType: Self.payloadType,
                                           sequenceNumber: st.sequence, timestamp: timestamp, ssrc: st.ssrc).serialized
                    let n = header.count + payload.count
                    st.packet.withUnsafeMutableBytes { raw in
                        raw.copyBytes(from: header + payload)
                        link.send(rtp: raw.baseAddress!, length: n)
                    }
                    st.sequence &+= 1
                    st.sentBytes += n
                }
                st.pictureId = VP8Payload.next(st.pictureId)
                st.sentFrames += 1
                if f.isKeyframe { keyframeCounters.withLock { $0.keyframesSent += 1 } }
                if !st.published {
                    st.published = true
                    emit(.firstLocalVideoFramePublished(elapsedMs: elapsed()))
                }
            }
        }
    }

    /// A receiver asked for a keyframe (PLI or FIR).
    func keyframeRequested(ssrc: UInt32) {
        let mine = send.withLock { st -> Bool in
            guard st.ssrc == ssrc else { return false }
            st.keyframeWanted = true
            return true
        }
        if mine { keyframeCounters.withLock { $0.requestsReceived += 1 } }
    }

    /// The call ended: the next call starts with a keyframe and a first-frame event.
    func resetSend() {
        send.withLock {
            $0.keyframeWanted = true
            $0.published = false
            $0.firstPts = nil
        }
    }

    // MARK: - Receiving

    /// A video RTP packet (IO thread): copied to the video thread.
    func received(rtp: UnsafeMutableRawPointer, length: Int, now: Instant) {
        let (enabled, blocked) = settings.withLock { ($0.enabled, $0.blocked) }
        guard enabled else { return }
        let raw = UnsafeRawBufferPointer(start: rtp, count: length)
        guard let h = try? RtpHeader.parse(raw), h.payloadType == Self.payloadType,
              h.payloadOffset < length - h.paddingLength else { return }
        guard backlog.load(ordering: .relaxed) < Self.maxBacklog else { return }
        if let uid = owners(h.ssrc), blocked(uid) { return }
        let payload = Array(raw[h.payloadOffset..<(length - h.paddingLength)])
        backlog.add(1, ordering: .relaxed)
        loop.post { [self] in
            backlog.subtract(1, ordering: .relaxed)
            assemble(h, payload, now)
        }
    }

    private func assemble(_ h: RtpHeader, _ payload: [UInt8], _ now: Instant) {
        var stream = streams[h.ssrc] ?? Stream()
        if stream.uid == 0 { stream.uid = owners(h.ssrc) ?? 0 }
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
            decode(&stream, stream.waiting + frames)
            stream.waiting = []
        }
        if stream.needsKeyframe { requestKeyframe(&stream, ssrc: h.ssrc, now: now) }
        streams[h.ssrc] = stream
    }

    /// Frames of a stream whose owner is not known yet, at most.
    static let maxWaitingFrames = 30

    /// Signaling learned stream owners: streams that waited for theirs go on.
    func ownersChanged() {
        loop.post { [self] in
            for (ssrc, var stream) in streams where stream.uid == 0 {
                guard let uid = owners(ssrc) else { continue }
                stream.uid = uid
                decode(&stream, stream.waiting)
                stream.waiting = []
                streams[ssrc] = stream
            }
        }
    }

    private func decode(_ stream: inout Stream, _ frames: [VP8FrameAssembler.Frame]) {
        for frame in frames {
            if frame.afterLoss && !frame.isKeyframe { stream.needsKeyframe = true }
            if frame.isKeyframe { stream.needsKeyframe = false }
            guard !stream.needsKeyframe else { continue }
            if stream.decoder == nil { stream.decoder = try? VideoDecoder(codec: .vp8) }
            guard let decoder = stream.decoder else { continue }
            do {
                // The picture stays in the decoder's buffers: no copy on the way to the sink.
                try decoder.decode(frame.data) { picture in
                    stream.decodedFrames += 1
                    deliver(&stream, picture)
                }
            } catch {
                stream.needsKeyframe = true
            }
        }
    }

    private func deliver(_ stream: inout Stream, _ picture: VideoDecoder.PictureView) {
        let uid = stream.uid
        if !stream.decodedReported && uid != 0 {
            stream.decodedReported = true
            emit(.firstRemoteVideoDecoded(uid: uid, width: Int32(picture.width), height: Int32(picture.height),
                                          elapsedMs: elapsed()))
        }
        if stream.size != (picture.width, picture.height) {
            if stream.size != (0, 0) && uid != 0 {
                emit(.videoSizeChanged(uid: uid, width: Int32(picture.width), height: Int32(picture.height)))
            }
            stream.size = (picture.width, picture.height)
        }
        guard uid != 0, let sink = settings.withLock({ $0.sinks[uid] }) else { return }
        sink.deliver(uid, VideoFrameView(width: picture.width, height: picture.height, y: picture.y, u: picture.u,
                                         v: picture.v, yStride: picture.yStride, uvStride: picture.uvStride,
                                         renderTimeMs: Instant.now().nanoseconds / 1_000_000))
    }

    /// Asks the sender for a keyframe with an RTCP PLI (RFC 4585 §6.3.1), at most every 200 ms.
    private func requestKeyframe(_ stream: inout Stream, ssrc: UInt32, now: Instant) {
        if let last = stream.lastPli, now - last < .milliseconds(200) { return }
        guard let link = transport.withLock({ $0 }) else { return }
        stream.lastPli = now
        let own = send.withLock { $0.ssrc }
        var pli: [UInt8] = [0x81, 206, 0, 2,
                            UInt8(own >> 24), UInt8(own >> 16 & 0xFF), UInt8(own >> 8 & 0xFF), UInt8(own & 0xFF),
                            UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF)]
        pli += [UInt8](repeating: 0, count: SrtpSession.maxTrailer)
        pli.withUnsafeMutableBytes { link.send(rtcp: $0.baseAddress!, length: 12) }
        keyframeCounters.withLock { $0.plisSent += 1 }
    }

    /// Forgets remote streams (the call ended).
    func resetReceive() { loop.post { [self] in streams = [:] } }

    /// A remote user left: its streams go.
    func remoteLeft(uid: UInt32) { loop.post { [self] in streams = streams.filter { $0.value.uid != uid } } }
}

/// Something the video path reports (Agora's video callbacks), on the event thread.
public enum VideoEvent: Sendable, Equatable {
    /// onFirstLocalVideoFramePublished: the first video frame sent in this call.
    case firstLocalVideoFramePublished(elapsedMs: Int32)
    /// onFirstRemoteVideoDecoded: the first picture of a remote user decoded.
    case firstRemoteVideoDecoded(uid: UInt32, width: Int32, height: Int32, elapsedMs: Int32)
    /// onVideoSizeChanged: a remote user's picture size changed.
    case videoSizeChanged(uid: UInt32, width: Int32, height: Int32)
}
