import AgoraishIO
import AgoraishMedia
import AgoraishWire
import CAgoraishShim
import Glibc
import Synchronization

/// The engine's video (docs/video.md). Local pictures (pushed by the host or
/// captured from a V4L2 camera) are turned upright, observed, previewed,
/// fitted to the encoder configuration, watermarked, encoded with VP8 or VP9
/// (a second, smaller encoding in dual-stream mode) and sent as RTP (RFC 7741
/// / RFC 9628, 90 kHz). What arrives is put back together per stream, decoded
/// on the engine's video thread, observed and handed to the render sink bound
/// to its uid. A decoder that cannot decode asks the sender for a keyframe
/// (RTCP PLI through the server).
///
/// Threads: the sending path runs on the thread that pushes (or the camera
/// thread) under `sendLock`; receiving, render sinks and the preview run on
/// the video thread (`agoraish-vid<n>`). Settings are read under their own
/// lock and never held while calling out.
final class VideoPipeline: @unchecked Sendable {
    static let maxPayload = 1200

    /// The RTP payload type of `codec` (the table shared with the server: `PayloadType`).
    static func payloadType(_ codec: VideoCodec) -> UInt8 { (codec == .vp9 ? PayloadType.vp9 : .vp8).rawValue }
    /// Whether `pt` is video: VP8, VP9 or their RTX.
    static func isVideo(payloadType pt: UInt8) -> Bool { PayloadType(pt).isVideo }
    /// Whether `pt` is a video retransmission (RFC 4588).
    static func isRtx(payloadType pt: UInt8) -> Bool { PayloadType(pt).isVideoRtx }
    /// Keyframes asked for by receivers come at most this often per stream: on
    /// a lossy link every lost keyframe would otherwise ask for the next.
    static let keyframeRequestInterval: Duration = .milliseconds(300)
    /// How long a receiver waits before asking again for a packet it NACKed.
    static let nackInterval: Duration = .milliseconds(30)

    /// Media recorders' taps: (uid, picture); uid 0 is each local picture as captured or pushed, others a remote user's decoded pictures.
    let recordTaps = Locked<[ObjectIdentifier: (UInt32, VideoFrameView) -> Void]>([:])

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
        /// Remote render sinks by uid.
        var sinks: [UInt32: VideoCanvas] = [:]
        /// The local preview sink (setupLocalVideo) and whether startPreview was called.
        var localCanvas: VideoCanvas? = nil
        var previewing = false
        /// A call's media transport is up.
        var inCall = false
        /// The local user may publish (a broadcaster, or any user in communication).
        var mayPublish = true
        var observer: VideoFrameObserver? = nil
        /// registerVideoEncodedFrameObserver: remote frames before decoding.
        var encodedObserver: EncodedVideoFrameObserver? = nil
        /// enableDualStreamMode.
        var dualStream = false
        /// setSimulcastConfig: the layers sent besides the high stream; empty: `dualStream` decides.
        var simulcast: [SimulcastLayer] = []
        /// addVideoWatermark: the image, its placement, whether the preview shows it.
        var watermark: WatermarkSetting? = nil
        /// setLocalPublishFallbackOption: DISABLED (0) or AUDIO_ONLY (2).
        var publishFallback = 0

        /// Local pictures are wanted at all (for sending or the preview).
        var capturing: Bool { enabled && localEnabled }
        /// The streams sent besides the high one, as (layer, type): the simulcast
        /// configuration's, or the low stream of dual-stream mode.
        var extraLayers: [SimulcastLayer] {
            if !simulcast.isEmpty { return simulcast }
            return dualStream ? [.dualStreamLow] : []
        }
        /// Whether the low stream is sent.
        var sendsLow: Bool { extraLayers.contains { $0.type == VideoStreamLayer.low } }
        var sending: Bool { enabled && localEnabled && !localMuted && inCall }
        var previewShown: Bool { localCanvas != nil && enabled && (previewing || (inCall && localEnabled)) }
    }

    /// A watermark as added, and its scaled form for the last picture size.
    struct WatermarkSetting {
        var image: RGBAImage
        var landscape: (x: Int, y: Int, width: Int, height: Int)
        var portrait: (x: Int, y: Int, width: Int, height: Int)
        var visibleInPreview: Bool
        var prepared: (size: (Int, Int), mark: Watermark)? = nil
    }

    /// One encoding sent: the high stream, the low one, or a simulcast layer.
    typealias Layer = VideoSendStream

    /// The sending side, under `send`'s lock.
    struct SendState {
        var high = Layer()
        var low = Layer()
        /// The simulcast layers LAYER_1...LAYER_6 by type (4...9), made when first configured.
        var layers: [UInt8: Layer] = [:]
        var firstPts: Int64? = nil
        var published = false
        /// LOCAL_VIDEO_STREAM_STATE last reported.
        var localState: Int32 = 0
        var firstFrameReported = false
        var lastSentSize: (Int, Int) = (0, 0)
        var packet = [UInt8](repeating: 0, count: 1500 + SrtpSession.maxTrailer)
        /// Counters of the stats period.
        var period = LocalCounters()
        var encodedFrameCount = 0
        var bitrateKbps = 0
        var frameRate = 0
        var encodedSize: (Int, Int) = (0, 0)
        /// How the sent stream follows the uplink's estimate.
        var adaptation = Adaptation()
        /// The sending side's view of the encryption and packet observer.
        var crypto = PayloadProtection.Context()
    }

    /// Lets through the pictures that keep a stream at a frame rate, spread
    /// evenly: each picture offered earns the time since the one before in
    /// frames at the rate, and goes out once about a whole frame is earned
    /// (15 fps thinned to 12 sends 4 pictures of 5, to 7.5 every other one).
    /// After a pause (more than one and a half frames without a picture) the
    /// credit restarts at one frame, so a pause never causes a burst.
    struct FrameRateGate {
        private var lastOfferedAtMs: Int64? = nil
        private var credit = 0.0

        /// Whether the picture of `timestampMs` goes out at `frameRate` (fps).
        /// Without `thinning` every picture goes (the source's own rate is
        /// kept), and the gate only follows the timestamps.
        mutating func admits(timestampMs: Int64, frameRate: Int, thinning: Bool = true) -> Bool {
            defer { lastOfferedAtMs = timestampMs }
            guard thinning else {
                credit = 0
                return true
            }
            guard let last = lastOfferedAtMs else {
                credit = 0
                return true
            }
            let elapsed = Double(max(0, timestampMs - last))
            // Timestamps in whole ms: 15 fps arrives 66 or 67 ms apart, so a tenth of a frame is forgiven.
            let earned = elapsed * Double(max(1, frameRate)) / 1000
            credit = earned > 1.5 ? 1 : min(2, credit + earned)
            guard credit >= 0.9 else { return false }
            credit -= 1
            return true
        }

        /// Starts again: the next picture goes out.
        mutating func reset() { lastOfferedAtMs = nil }
    }

    /// Bandwidth adaptation of the sent stream (docs/network.md): the
    /// picture scale in use, and the publish fallback.
    struct Adaptation {
        /// Index into `scales`.
        var step = 0
        var lastStepDown: Instant? = nil
        /// Since when a larger scale would fit.
        var fitsLargerSince: Instant? = nil
        /// Publish fallback: video is held back (audio only).
        var audioOnly = false
        /// Since when the estimate has been below the floor (or, in fallback, above the recovery level).
        var fallbackSince: Instant? = nil
        var heldUntil: Instant? = nil
        var backoff: Duration = .seconds(4)
        var lastRecovery: Instant? = nil
        /// Picture scales (of width and height) a constrained uplink steps through.
        static let scales: [Double] = [1, 0.75, 0.5, 0.375, 0.25]
    }
    /// MAINTAIN_QUALITY lowers the frame rate down to this (or the configured
    /// rate if lower) before the picture size gives: below about 12 fps motion
    /// stops looking continuous, and a smaller picture costs less than that.
    static let qualityFloorFps = 12
    /// The uplink rate kept for audio when video shares it out (kbps).
    static let audioReserveKbps = 48
    /// Publish fallback: below this much for video (kbps) for 2 s video stops;
    /// it resumes once twice as much has been available for 2 s.
    static let fallbackFloorKbps = 60

    struct LocalCounters {
        var captured = 0
        var encoded = 0
        var encodedBytes = 0
        var sentFrames = 0
        var sentBytes = 0
        var sentPackets = 0
    }

    /// One remote stream (SSRC): its assembler and decoder. Video thread only.
    struct Stream {
        var codec: VideoCodec
        var assembler: VP8FrameAssembler
        var decoder: VideoDecoder? = nil
        var uid: UInt32 = 0
        var needsKeyframe = true
        var lastPli: Instant? = nil
        /// Complete frames kept until the stream's owner is known.
        var waiting: [VP8FrameAssembler.Frame] = []
        /// Sequence numbers seen (originals only), for the loss figures.
        var sequences = SequenceCounter()
        /// Missing packets and when to NACK them again.
        var nack = NackList()

        init(codec: VideoCodec) {
            self.codec = codec
            assembler = VP8FrameAssembler(codec: codec == .vp9 ? .vp9 : .vp8)
        }
    }

    /// What is known of one remote user's video: its state and statistics.
    struct RemoteUser {
        var state: Int32 = 0
        /// The reason the next STARTING / DECODING carries.
        var resumeReason: Int32 = 0
        var remoteMuted = false
        var locallyMuted = false
        var firstDecodedReported = false
        var firstRenderedReported = false
        var size: (Int, Int) = (0, 0)
        /// The stream received last (`VideoStreamLayer`: 0 high, 1 low, 4...9 a simulcast layer).
        var streamLayer: UInt8 = 0
        var lastPicture: Instant? = nil
        var frozenMs: Int64 = 0
        var activeMs: Int64 = 0
        var publishedAt: Instant? = nil
        // The stats period.
        var bytes = 0
        var decoded = 0
        var rendered = 0
        var expectedBase = 0
        var receivedBase = 0
    }

    let settings = Locked(Settings())
    let send = Locked(SendState())
    /// Remote users' state, written on the video thread, read by the stats timer.
    let users = Locked<[UInt32: RemoteUser]>([:])
    /// Snapshots asked for (takeSnapshot): uid -> file paths.
    let snapshots = Locked<[UInt32: [String]]>([:])
    /// Each local picture also goes here (the engine's own pipeline: to the
    /// other connections that publish the camera), with whether this pipeline
    /// sends it; returns the pipelines that follow this one's encoder (nil: none).
    let localForward = Locked<(@Sendable (I420Frame, Int64, Bool) -> [VideoPipeline])?>(nil)
    /// Streams (SSRCs) that are not publishers' high streams -> their layer (1 low, 4...9 simulcast).
    let streamLayers = Locked<[UInt32: UInt8]>([:])
    /// Packets handed to the video thread and not yet assembled. Above
    /// `maxBacklog` (the thread cannot keep up) packets are dropped: the
    /// assembler sees a loss and asks for a keyframe once it catches up.
    let backlog = Atomic<Int>(0)
    static let maxBacklog = 2000
    /// Keyframe traffic so far: PLIs sent, requests received, keyframes sent.
    let keyframeCounters = Locked((plisSent: 0, requestsReceived: 0, keyframesSent: 0))
    /// Retransmission traffic so far: sequence numbers NACKed by this receiver,
    /// packets recovered by retransmission, NACKed numbers received and answered as a sender.
    let retransmissionCounters = Locked((nacked: 0, recovered: 0, requested: 0, retransmitted: 0))
    /// Server RTX SSRC -> the server SSRC of the stream it retransmits.
    let rtxStreams = Locked<[UInt32: UInt32]>([:])
    /// Video thread: the NACK timer, running while streams exist.
    var nackTimer: EventLoop.TimerID? = nil
    /// Video thread state (streams), only touched on `loop`.
    var streams: [UInt32: Stream] = [:]
    var freezeTimer: EventLoop.TimerID? = nil
    let transport = Locked<MediaTransport?>(nil)
    let loop: EventLoop
    let owners: @Sendable (UInt32) -> UInt32?
    let elapsed: @Sendable () -> Int32
    let emit: @Sendable (VideoEvent) -> Void
    /// The V4L2 camera, used when no external source is set.
    private(set) var camera: CameraController! = nil
    /// End-to-end encryption and the packet observer.
    let protection: PayloadProtection
    /// The receiving side's view of them (the network thread's).
    let receiveCrypto = Locked(PayloadProtection.Context())
    /// Called on the video thread for each picture the high stream sends (its
    /// capture timestamp in ms): media metadata goes out with it.
    let pictureSent = Locked<(@Sendable (Int64) -> Void)?>(nil)

    init(name: String, protection: PayloadProtection, owners: @escaping @Sendable (UInt32) -> UInt32?,
         elapsed: @escaping @Sendable () -> Int32,
         emit: @escaping @Sendable (VideoEvent) -> Void) throws(EventThreadError) {
        self.protection = protection
        loop = try EventLoop(name: name)
        // Render sinks run here: a release from inside one must not wait for threads (as from event callbacks).
        loop.post { agsh_set_event_thread(1) }
        self.owners = owners
        self.elapsed = elapsed
        self.emit = emit
        let seed = secureRandomBytes(24)
        func u32(_ i: Int) -> UInt32 {
            UInt32(seed[i]) << 24 | UInt32(seed[i + 1]) << 16 | UInt32(seed[i + 2]) << 8 | UInt32(seed[i + 3])
        }
        send.withLock {
            $0.high.ssrc = u32(0)
            $0.low.ssrc = u32(4) == u32(0) ? u32(4) ^ 1 : u32(4)
            $0.high.sequence = UInt16(truncatingIfNeeded: u32(8))
            $0.low.sequence = UInt16(truncatingIfNeeded: u32(8) >> 16)
            $0.high.pictureId = UInt16(truncatingIfNeeded: u32(12)) & 0x7FFF
            $0.low.pictureId = UInt16(truncatingIfNeeded: u32(12) >> 16) & 0x7FFF
            $0.high.rtxSsrc = u32(16) | 1
            $0.low.rtxSsrc = (u32(20) | 1) == $0.high.rtxSsrc ? u32(20) ^ 2 : u32(20) | 1
        }
        camera = CameraController(video: self)
    }

    func shutdown(wait: Bool) {
        camera.shutdown()
        loop.stop(wait: wait)
    }

    /// setSimulcastConfig: the layers to send; each layer type gets its SSRCs the first time.
    func setSimulcast(_ layers: [SimulcastLayer]) {
        settings.withLock { $0.simulcast = layers }
        send.withLock { st in
            for l in layers where VideoStreamLayer.layers.contains(l.type) && st.layers[l.type] == nil {
                var taken: Set<UInt32> = [0, st.high.ssrc, st.low.ssrc, st.high.rtxSsrc, st.low.rtxSsrc]
                for x in st.layers.values { taken.formUnion([x.ssrc, x.rtxSsrc]) }
                func fresh() -> UInt32 {
                    while true {
                        let b = secureRandomBytes(4)
                        let v = UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])
                        if taken.insert(v).inserted { return v }
                    }
                }
                var layer = Layer()
                layer.ssrc = fresh()
                layer.rtxSsrc = fresh()
                let b = secureRandomBytes(4)
                layer.sequence = UInt16(b[0]) << 8 | UInt16(b[1])
                layer.pictureId = (UInt16(b[2]) << 8 | UInt16(b[3])) & 0x7FFF
                st.layers[l.type] = layer
            }
        }
    }

    /// The simulcast layers (LAYER_1...LAYER_6) sent now, with their SSRCs, as signaling tells them.
    var layerStreams: [Signaling.LayerStream] {
        let types = settings.withLock { $0.simulcast.map(\.type).filter { VideoStreamLayer.layers.contains($0) } }
        return send.withLock { st in
            types.compactMap { t in st.layers[t].map { Signaling.LayerStream(type: t, ssrc: $0.ssrc, rtxSsrc: $0.rtxSsrc) } }
        }
    }

    /// The SSRCs this engine sends video with: (high, low), and their retransmissions'.
    var ssrcs: (high: UInt32, low: UInt32, highRtx: UInt32, lowRtx: UInt32) {
        send.withLock { ($0.high.ssrc, $0.low.ssrc, $0.high.rtxSsrc, $0.low.rtxSsrc) }
    }

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

    // MARK: - Statistics (the channel's stats timer)

    /// The local statistics of the period, or nil when nothing was captured or sent.
    func takeLocalStats(periodMs: Int) -> LocalVideoStats? {
        let c = settings.withLock { $0.configuration }
        let requested = retransmissionCounters.withLock { $0.requested }
        return send.withLock { st -> LocalVideoStats? in
            defer { st.period = LocalCounters() }
            let p = st.period
            lastPeriod.withLock {
                $0.sentPackets = p.sentPackets
                $0.sentBytes = p.sentBytes
                $0.nacked = requested - $0.requestedBase
                $0.requestedBase = requested
            }
            guard st.localState == 1 || st.localState == 2 || p.captured > 0 else { return nil }
            let ms = Double(max(periodMs, 1))
            var s = LocalVideoStats()
            s.sentBitrate = Int32(Double(p.sentBytes) * 8 / ms)
            s.sentFrameRate = Int32((Double(p.sentFrames) * 1000 / ms).rounded())
            s.encoderOutputFrameRate = Int32((Double(p.encoded) * 1000 / ms).rounded())
            s.rendererOutputFrameRate = Int32((Double(previewRendered.exchange(0, ordering: .relaxed)) * 1000 / ms).rounded())
            s.targetBitrate = Int32(st.bitrateKbps)
            s.targetFrameRate = Int32(st.frameRate > 0 ? st.frameRate : c.frameRate)
            s.encodedBitrate = Int32(Double(p.encodedBytes) * 8 / ms)
            s.encodedFrameWidth = Int32(st.encodedSize.0)
            s.encodedFrameHeight = Int32(st.encodedSize.1)
            s.encodedFrameCount = Int32(clamping: st.encodedFrameCount)
            s.codecType = c.codec == .vp9 ? 5 : 1
            s.captureFrameRate = Int32((Double(p.captured) * 1000 / ms).rounded())
            return s
        }
    }

    /// The last stats period's sending totals, for onRtcStats: video packets
    /// and bytes sent, and sequence numbers the server asked to be sent again.
    let lastPeriod = Locked((sentPackets: 0, sentBytes: 0, nacked: 0, requestedBase: 0, receivedBytes: 0))

    /// Pictures handed to the local preview sink in the stats period.
    let previewRendered = Atomic<Int>(0)

    /// Each remote user's statistics of the period (users whose video arrived).
    func takeRemoteStats(periodMs: Int, now: Instant = .now()) -> [RemoteVideoStats] {
        let loss = lossCounts()
        lastPeriod.withLock { $0.receivedBytes = users.withLock { $0.values.reduce(0) { $0 + $1.bytes } } }
        return users.withLock { map -> [RemoteVideoStats] in
            var out: [RemoteVideoStats] = []
            for uid in map.keys.sorted() {
                var u = map[uid]!
                guard let published = u.publishedAt else { continue }
                let ms = Double(max(periodMs, 1))
                var s = RemoteVideoStats()
                s.uid = uid
                s.width = Int32(u.size.0)
                s.height = Int32(u.size.1)
                s.receivedBitrate = Int32(Double(u.bytes) * 8 / ms)
                s.decoderOutputFrameRate = Int32((Double(u.decoded) * 1000 / ms).rounded())
                s.rendererOutputFrameRate = Int32((Double(u.rendered) * 1000 / ms).rounded())
                let (expected, received) = loss[uid] ?? (0, 0)
                let e = expected - u.expectedBase, r = received - u.receivedBase
                s.packetLossRate = e > 0 ? Int32(max(0, min(100, (e - r) * 100 / e))) : 0
                s.rxStreamType = Int32(u.streamLayer)
                s.totalFrozenTime = Int32(clamping: u.frozenMs)
                s.totalActiveTime = Int32(clamping: u.activeMs)
                s.frozenRate = u.activeMs > 0 ? Int32(u.frozenMs * 100 / u.activeMs) : 0
                s.publishDuration = Int32(clamping: (now.nanoseconds - published.nanoseconds) / 1_000_000)
                u.bytes = 0
                u.decoded = 0
                u.rendered = 0
                u.expectedBase = expected
                u.receivedBase = received
                map[uid] = u
                out.append(s)
            }
            return out
        }
    }

    /// Sequence counts per uid (video thread state, read through a hop only
    /// when called off it; the stats timer accepts counts one period old).
    private func lossCounts() -> [UInt32: (Int, Int)] { lossSnapshot.withLock { $0 } }
    /// Per-uid (expected, received) packet counts, refreshed by the video thread.
    let lossSnapshot = Locked<[UInt32: (Int, Int)]>([:])
}
