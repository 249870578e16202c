import AgoraishIO
import AgoraishMedia
import AgoraishWire
import CAgoraishShim
import CFFmpeg
import Glibc
import Synchronization

/// How to record (Agora's MediaRecorderConfiguration), defaults applied.
public struct MediaRecorderConfiguration: Sendable, Equatable {
    public var storagePath: String
    /// 1 MP4.
    public var containerFormat = 1
    /// 1 audio, 2 video, 3 both.
    public var streamType = 3
    public var maxDurationMs = 120_000
    /// on_recorder_info_updated every this many ms (0: never).
    public var infoUpdateIntervalMs = 0
    public var width = 1280
    public var height = 720
    public var fps = 30
    public var sampleRate = 48000
    public var channels = 1

    public init(storagePath: String) { self.storagePath = storagePath }
}

/// A recorder's events (Agora's IMediaRecorderObserver), on the engine's event thread.
public struct MediaRecorderObserver: Sendable {
    /// onRecorderStateChanged: RecorderState and RecorderReasonCode.
    public var onStateChanged: (@Sendable (_ state: Int32, _ reason: Int32) -> Void)?
    /// onRecorderInfoUpdated: the file, its duration (ms) and size (bytes).
    public var onInfoUpdated: (@Sendable (_ file: String, _ durationMs: UInt32, _ size: UInt32) -> Void)?
    public init() {}
}

/// A media recorder (Agora 4.x IMediaRecorder): one user's audio and video
/// to an MP4 file, H.264 (libx264) and AAC (docs/media.md). Frames reach it
/// through taps on the engine's audio and video paths and are encoded on the
/// recorder's own thread; timestamps come from their arrival, so audio and
/// video keep the sync they had when they were sent or played.
public final class MediaRecorder: @unchecked Sendable {
    public let id: Int32
    /// The channel and uid recorded (uid 0: the local user).
    public let channel: String
    public let uid: UInt32
    private unowned let engine: RtcEngine
    /// setMediaRecorderObserver: replaced whole; read when an event is reported.
    public let observer = Locked(MediaRecorderObserver())
    private let session = Locked<RecordingSession?>(nil)

    init(id: Int32, channel: String, uid: UInt32, engine: RtcEngine) {
        self.id = id
        self.channel = channel
        self.uid = uid
        self.engine = engine
    }

    /// The observer is read when the event is delivered, so none reaches an observer after it was replaced.
    private func report(_ state: Int32, _ reason: Int32) {
        engine.events.post { [weak self, weak engine] in
            guard let self, let engine, !engine.isReleased else { return }
            self.observer.withLock { $0 }.onStateChanged?(state, reason)
        }
    }

    /// Whether a recording is under way.
    public var isRecording: Bool { session.withLock { $0 != nil } }

    /// startRecording: creates the file now and reports START (or ERROR, WRITE_FAILED).
    public func start(_ config: MediaRecorderConfiguration) throws(AgoraError) {
        guard config.containerFormat == 1 else { throw .notSupported }
        guard [1, 2, 3].contains(config.streamType), config.maxDurationMs > 0,
              config.infoUpdateIntervalMs == 0 || (1000...10000).contains(config.infoUpdateIntervalMs),
              (16...4096).contains(config.width), (16...4096).contains(config.height),
              config.width % 2 == 0, config.height % 2 == 0, (1...60).contains(config.fps),
              [16000, 32000, 44100, 48000].contains(config.sampleRate), config.channels == 1 || config.channels == 2,
              !config.storagePath.isEmpty, config.storagePath.utf8.count <= 4095, !config.storagePath.utf8.contains(0)
        else { throw .invalidArgument }
        guard !isRecording else { throw .invalidState }
        let s: RecordingSession
        do {
            s = try RecordingSession(config: config, name: "agoraish-rec\(id)") { [weak self] reason in
                self?.finishedOnItsOwn(reason)
            } info: { [weak self] file, ms, size in
                guard let self else { return }
                self.engine.events.post { [weak self] in self?.observer.withLock { $0 }.onInfoUpdated?(file, ms, size) }
            }
        } catch {
            engine.log.log(.warning, "recorder \(id): \(config.storagePath.prefix(200)) cannot be written")
            report(-1, 1)
            return
        }
        let claimed = session.withLock { current -> Bool in
            guard current == nil else { return false }
            current = s
            return true
        }
        guard claimed else {
            _ = s.finish()
            throw .invalidState
        }
        let key = ObjectIdentifier(self)
        let uid = self.uid
        let target = engine.connection(forChannel: channel) ?? engine
        if config.streamType & 1 != 0 {
            target.audio.recordTaps.withLock {
                $0[key] = { u, pcm, channels in if u == uid { s.audio(pcm, channels: channels) } }
            }
        }
        if config.streamType & 2 != 0 {
            target.video.recordTaps.withLock {
                $0[key] = { u, view in if u == uid { s.video(view) } }
            }
        }
        tapped.withLock { $0 = target }
        engine.log.log(.info, "recorder \(id) (\(channel) uid \(uid)) started: \(config.storagePath.prefix(200))")
        report(2, 0)
    }

    /// The engine or connection whose paths are tapped.
    private let tapped = Locked<RtcEngine?>(nil)

    private func untap() {
        guard let t = tapped.withLock({ t -> RtcEngine? in defer { t = nil }; return t }) else { return }
        let key = ObjectIdentifier(self)
        t.audio.recordTaps.withLock { _ = $0.removeValue(forKey: key) }
        t.video.recordTaps.withLock { _ = $0.removeValue(forKey: key) }
    }

    /// The session ended by itself (max duration, write error) on its thread.
    private func finishedOnItsOwn(_ reason: Int32) {
        engine.events.post { [weak self] in
            guard let self else { return }
            self.stop(reason: reason, report: true)
        }
    }

    /// stopRecording: finishes the file before it returns.
    public func stopRecording() throws(AgoraError) {
        guard isRecording else { throw .invalidState }
        stop(reason: 0, report: true)
    }

    /// Ends the recording (if any) and reports STOP, or ERROR with NO_STREAM when nothing arrived.
    func stop(reason: Int32, report: Bool) {
        guard let s = session.withLock({ r -> RecordingSession? in defer { r = nil }; return r }) else { return }
        untap()
        let result = s.finish()
        engine.log.log(.info, "recorder \(id) stopped: \(result)")
        guard report else { return }
        switch result {
        case .written: self.report(3, reason)
        case .empty: self.report(-1, 2)
        case .failed: self.report(-1, 1)
        }
    }
}

/// One recording: the file, its encoders and the thread that feeds them.
final class RecordingSession: @unchecked Sendable {
    enum Result: Equatable { case written, empty, failed }

    let config: MediaRecorderConfiguration
    /// Work for the recorder's thread, which also checks the duration and reports progress every 100 ms.
    private let queue = Locked<[() -> Void]>([])
    private let worker = EventThreadHandle()
    private let wakeFd: Int32
    private let stopping = Atomic<Bool>(false)
    private let started = Instant.now()
    private let pending = Atomic<Int>(0)
    private let ended = Atomic<Bool>(false)
    private let onEnd: @Sendable (Int32) -> Void
    private let onInfo: @Sendable (String, UInt32, UInt32) -> Void

    // Thread state.
    private var output: UnsafeMutablePointer<AVFormatContext>?
    private var videoCodec: UnsafeMutablePointer<AVCodecContext>?
    private var audioCodec: UnsafeMutablePointer<AVCodecContext>?
    private var videoStream: UnsafeMutablePointer<AVStream>?
    private var audioStream: UnsafeMutablePointer<AVStream>?
    private var resampler: OpaquePointer?
    private var resamplerChannels = 0
    private var audioSamples: [[Float]] = []
    private var audioPts: Int64 = 0
    private var lastVideoPts: Int64 = -1
    private var headerWritten = false
    private var failed = false
    private var wroteSomething = false
    private var nextInfo: Instant
    /// Before the header: what arrived in the first second, to learn which streams exist.
    private var early: [(isVideo: Bool, at: Instant, audio: [Int16], channels: Int, picture: I420Frame?)] = []
    private var sawAudio = false
    private var sawVideo = false
    private var firstArrival: Instant?
    private var packet = av_packet_alloc()
    private var frame = av_frame_alloc()

    /// Pictures waiting for the thread, at most (beyond it new ones are dropped; audio never is).
    static let maxPending = 60

    init(config: MediaRecorderConfiguration, name: String, onEnd: @escaping @Sendable (Int32) -> Void,
         info: @escaping @Sendable (String, UInt32, UInt32) -> Void) throws(AgoraError) {
        _ = MediaSource.setup
        self.config = config
        self.onEnd = onEnd
        self.onInfo = info
        nextInfo = started + .milliseconds(config.infoUpdateIntervalMs)
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        guard avformat_alloc_output_context2(&ctx, nil, "mp4", config.storagePath) >= 0, let ctx else { throw .failed }
        output = ctx
        guard avio_open(&ctx.pointee.pb, config.storagePath, AVIO_FLAG_WRITE) >= 0 else {
            avformat_free_context(ctx)
            output = nil
            throw .failed
        }
        wakeFd = eventfd(0, Int32(EFD_CLOEXEC))
        do {
            guard wakeFd >= 0 else { throw EventThreadError.startFailed(errno: errno) }
            try worker.start(name: name) { [self] in run() }
        } catch {
            if wakeFd >= 0 { Glibc.close(wakeFd) }
            avio_closep(&ctx.pointee.pb)
            avformat_free_context(ctx)
            output = nil
            unlink(config.storagePath)
            throw .failed
        }
    }

    deinit {
        Glibc.close(wakeFd)
        av_packet_free(&packet)
        av_frame_free(&frame)
    }

    private func post(_ work: @escaping () -> Void) {
        queue.withLock { $0.append(work) }
        var one: UInt64 = 1
        _ = write(wakeFd, &one, 8)
    }

    private func run() {
        while true {
            let work = queue.withLock { q -> [() -> Void] in defer { q.removeAll() }; return q }
            for w in work { w() }
            if stopping.load(ordering: .acquiring) && queue.withLock({ $0.isEmpty }) { break }
            tick()
            var pfd = pollfd(fd: wakeFd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 100) > 0 {
                var value: UInt64 = 0
                _ = read(wakeFd, &value, 8)
            }
        }
    }

    /// The longest recording and the progress reports, on the clock rather than on frames.
    private func tick() {
        guard output != nil, !ended.load(ordering: .relaxed) else { return }
        if config.infoUpdateIntervalMs > 0 && Instant.now() >= nextInfo {
            nextInfo = nextInfo + .milliseconds(config.infoUpdateIntervalMs)
            let size = output.flatMap { $0.pointee.pb.map { avio_tell($0) } } ?? 0
            onInfo(config.storagePath, UInt32(clamping: elapsedMs), UInt32(clamping: max(0, size)))
        }
        if elapsedMs >= config.maxDurationMs {
            ended.store(true, ordering: .relaxed)
            onEnd(3)
        }
    }

    private var elapsedMs: Int64 { Int64((Instant.now() - started) / .milliseconds(1)) }

    /// 10 ms of 48 kHz audio (any thread).
    func audio(_ pcm: [Int16], channels: Int) {
        guard !ended.load(ordering: .relaxed) else { return }
        let at = Instant.now()
        post { [self] in
            take(isVideo: false, at: at, audio: pcm, channels: channels, picture: nil)
        }
    }

    /// A picture (any thread; copied before the call returns).
    func video(_ view: VideoFrameView) {
        guard !ended.load(ordering: .relaxed), pending.load(ordering: .relaxed) < Self.maxPending else { return }
        let at = Instant.now()
        // Fitted to the configured size now (letterboxed), so a size change never reaches the encoder.
        let picture = PixelConversion.rendered(I420Frame(copying: view), mode: 2, width: config.width, height: config.height)
        pending.add(1, ordering: .relaxed)
        post { [self] in
            pending.subtract(1, ordering: .relaxed)
            take(isVideo: true, at: at, audio: [], channels: 0, picture: picture)
        }
    }

    /// What arrived before the recording ended is still written (the end only stops new arrivals).
    private func take(isVideo: Bool, at: Instant, audio: [Int16], channels: Int, picture: I420Frame?) {
        guard !failed, output != nil else { return }
        // Nothing after the longest recording goes in (the clock's check may come up to 100 ms later).
        if at - started >= .milliseconds(config.maxDurationMs) {
            if !ended.load(ordering: .relaxed) {
                ended.store(true, ordering: .relaxed)
                onEnd(3)
            }
            return
        }
        if !headerWritten {
            if isVideo { sawVideo = true } else { sawAudio = true }
            if firstArrival == nil { firstArrival = at }
            early.append((isVideo, at, audio, channels, picture))
            let all = (config.streamType & 1 == 0 || sawAudio) && (config.streamType & 2 == 0 || sawVideo)
            guard all || at - firstArrival! > .seconds(1) else { return }
            guard writeEarly() else {
                fail()
                return
            }
        } else {
            encode(isVideo: isVideo, at: at, audio: audio, channels: channels, picture: picture)
        }
    }

    private func fail() {
        failed = true
        if !ended.load(ordering: .relaxed) {
            ended.store(true, ordering: .relaxed)
            onEnd(1)
        }
    }

    /// Opens the streams asked for that have been seen, writes the header and
    /// then what waited for it; false when they cannot be opened.
    private func writeEarly() -> Bool {
        guard openStreams(audio: config.streamType & 1 != 0 && sawAudio, video: config.streamType & 2 != 0 && sawVideo)
        else { return false }
        let queued = early
        early = []
        for e in queued { encode(isVideo: e.isVideo, at: e.at, audio: e.audio, channels: e.channels, picture: e.picture) }
        return true
    }

    private func openStreams(audio: Bool, video: Bool) -> Bool {
        guard let out = output else { return false }
        if video {
            guard let codec = avcodec_find_encoder_by_name("libx264"), let c = avcodec_alloc_context3(codec) else { return false }
            videoCodec = c
            c.pointee.width = Int32(config.width)
            c.pointee.height = Int32(config.height)
            c.pointee.time_base = AVRational(num: 1, den: Int32(config.fps))
            c.pointee.framerate = AVRational(num: Int32(config.fps), den: 1)
            c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            c.pointee.gop_size = Int32(config.fps * 2)
            c.pointee.max_b_frames = 0
            c.pointee.thread_count = 2
            if out.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 { c.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
            av_opt_set(c.pointee.priv_data, "preset", "veryfast", 0)
            guard avcodec_open2(c, codec, nil) >= 0, let st = avformat_new_stream(out, nil),
                  avcodec_parameters_from_context(st.pointee.codecpar, c) >= 0 else { return false }
            st.pointee.time_base = c.pointee.time_base
            videoStream = st
        }
        if audio {
            guard let codec = avcodec_find_encoder(AV_CODEC_ID_AAC), let c = avcodec_alloc_context3(codec) else { return false }
            audioCodec = c
            c.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            c.pointee.sample_rate = Int32(config.sampleRate)
            av_channel_layout_default(&c.pointee.ch_layout, Int32(config.channels))
            c.pointee.bit_rate = Int64(64000 * config.channels)
            c.pointee.time_base = AVRational(num: 1, den: Int32(config.sampleRate))
            if out.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 { c.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
            guard avcodec_open2(c, codec, nil) >= 0, let st = avformat_new_stream(out, nil),
                  avcodec_parameters_from_context(st.pointee.codecpar, c) >= 0 else { return false }
            st.pointee.time_base = c.pointee.time_base
            audioStream = st
            audioSamples = Array(repeating: [], count: config.channels)
        }
        guard videoStream != nil || audioStream != nil else { return false }
        guard avformat_write_header(out, nil) >= 0 else { return false }
        headerWritten = true
        return true
    }

    /// The frame interval (pts at `fps`) of a picture that arrived `arrivalMs`
    /// after the start, `last` the previous picture's (-1 before the first);
    /// nil to drop it. The first picture stands from the start (0). A later
    /// one takes the interval it arrived in, or the next free one when an
    /// earlier picture took that: a source at the file's own rate arrives
    /// near the intervals' edges, and jitter puts two in one interval now
    /// and then. A picture never stands more than one interval early, so a
    /// faster source is thinned out to the file's rate.
    static func videoSlot(arrivalMs: Int64, fps: Int, last: Int64) -> Int64? {
        guard last >= 0 else { return 0 }
        let slot = arrivalMs * Int64(fps) / 1000
        let pts = max(slot, last + 1)
        return pts <= slot + 1 ? pts : nil
    }

    private func encode(isVideo: Bool, at: Instant, audio: [Int16], channels: Int, picture: I420Frame?) {
        let ms = Int64((at - started) / .milliseconds(1))
        if isVideo, let picture, let c = videoCodec, let f = frame {
            // The first picture stands from the start of the file, so the track lasts as long as the recording.
            guard let pts = Self.videoSlot(arrivalMs: ms, fps: config.fps, last: lastVideoPts) else { return }
            lastVideoPts = pts
            f.pointee.format = AV_PIX_FMT_YUV420P.rawValue
            f.pointee.width = c.pointee.width
            f.pointee.height = c.pointee.height
            guard av_frame_get_buffer(f, 0) >= 0 else { return fail() }
            defer { av_frame_unref(f) }
            Self.copy(picture.y, width: picture.width, height: picture.height, into: f.pointee.data.0!, stride: Int(f.pointee.linesize.0))
            Self.copy(picture.u, width: picture.chromaWidth, height: picture.chromaHeight, into: f.pointee.data.1!, stride: Int(f.pointee.linesize.1))
            Self.copy(picture.v, width: picture.chromaWidth, height: picture.chromaHeight, into: f.pointee.data.2!, stride: Int(f.pointee.linesize.2))
            f.pointee.pts = pts
            send(f, c, videoStream!)
        } else if !isVideo, let c = audioCodec {
            // A gap (the user muted, the network stalled) becomes silence, so audio stays in step with video.
            let expected = ms * Int64(config.sampleRate) / 1000
            let queued = audioPts + Int64(audioSamples[0].count)
            if expected - queued > Int64(config.sampleRate) / 5 {
                let gap = Int(expected - queued)
                for ch in 0..<config.channels { audioSamples[ch] += [Float](repeating: 0, count: gap) }
            }
            appendAudio(audio, channels: channels)
            let frameSize = Int(c.pointee.frame_size > 0 ? c.pointee.frame_size : 1024)
            while audioSamples[0].count >= frameSize { encodeAudioFrame(c, frameSize) }
        }
    }

    private static func copy(_ plane: [UInt8], width: Int, height: Int, into dst: UnsafeMutablePointer<UInt8>, stride: Int) {
        plane.withUnsafeBufferPointer { p in
            for row in 0..<height { (dst + row * stride).update(from: p.baseAddress! + row * width, count: width) }
        }
    }

    /// Resamples 48 kHz interleaved 16-bit audio to the configured rate and channels, planar float.
    private func appendAudio(_ pcm: [Int16], channels: Int) {
        if resampler == nil || resamplerChannels != channels {
            if resampler != nil { swr_free(&resampler) }
            var inLayout = AVChannelLayout(), outLayout = AVChannelLayout()
            av_channel_layout_default(&inLayout, Int32(channels))
            av_channel_layout_default(&outLayout, Int32(config.channels))
            var swr: OpaquePointer? = nil
            guard swr_alloc_set_opts2(&swr, &outLayout, AV_SAMPLE_FMT_FLTP, Int32(config.sampleRate), &inLayout,
                                      AV_SAMPLE_FMT_S16, 48000, 0, nil) >= 0,
                  // Stereo into mono is the average of the two (FFmpeg's default would be 3 dB louder).
                  av_opt_set_double(UnsafeMutableRawPointer(swr), "rematrix_maxval", 1.0, 0) >= 0,
                  swr_init(swr) >= 0 else {
                swr_free(&swr)
                return
            }
            resampler = swr
            resamplerChannels = channels
        }
        let inFrames = pcm.count / max(1, channels)
        let capacity = Int(swr_get_out_samples(resampler, Int32(inFrames))) + 16
        let channelsOut = config.channels
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: capacity * channelsOut)
        defer { buffer.deallocate() }
        var pointers: [UnsafeMutablePointer<UInt8>?] = (0..<channelsOut).map {
            UnsafeMutableRawPointer(buffer + $0 * capacity).assumingMemoryBound(to: UInt8.self)
        }
        let produced: Int32 = pcm.withUnsafeBytes { src in
            var inPtr: UnsafePointer<UInt8>? = src.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return pointers.withUnsafeMutableBufferPointer { out in
                swr_convert(resampler, out.baseAddress, Int32(capacity), &inPtr, Int32(inFrames))
            }
        }
        guard produced > 0 else { return }
        for ch in 0..<channelsOut {
            audioSamples[ch] += UnsafeBufferPointer(start: buffer + ch * capacity, count: Int(produced))
        }
    }

    private func encodeAudioFrame(_ c: UnsafeMutablePointer<AVCodecContext>, _ frameSize: Int) {
        guard let f = frame else { return }
        f.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        f.pointee.nb_samples = Int32(frameSize)
        f.pointee.sample_rate = c.pointee.sample_rate
        av_channel_layout_copy(&f.pointee.ch_layout, &c.pointee.ch_layout)
        guard av_frame_get_buffer(f, 0) >= 0 else { return fail() }
        defer { av_frame_unref(f) }
        for ch in 0..<config.channels {
            let dst = UnsafeMutableRawPointer(f.pointee.extended_data[ch]!).assumingMemoryBound(to: Float.self)
            audioSamples[ch].withUnsafeBufferPointer { dst.update(from: $0.baseAddress!, count: frameSize) }
            audioSamples[ch].removeFirst(frameSize)
        }
        f.pointee.pts = audioPts
        audioPts += Int64(frameSize)
        send(f, c, audioStream!)
    }

    /// Encodes a frame (nil: flush) and writes its packets.
    private func send(_ f: UnsafeMutablePointer<AVFrame>?, _ c: UnsafeMutablePointer<AVCodecContext>, _ st: UnsafeMutablePointer<AVStream>) {
        guard let out = output, let pkt = packet else { return }
        guard avcodec_send_frame(c, f) >= 0 else { return }
        while avcodec_receive_packet(c, pkt) >= 0 {
            // A picture lasts one frame interval (so does the last: the track ends after it).
            if pkt.pointee.duration == 0 && c.pointee.codec_type == AVMEDIA_TYPE_VIDEO { pkt.pointee.duration = 1 }
            av_packet_rescale_ts(pkt, c.pointee.time_base, st.pointee.time_base)
            pkt.pointee.stream_index = st.pointee.index
            if av_interleaved_write_frame(out, pkt) < 0 {
                av_packet_unref(pkt)
                return fail()
            }
            wroteSomething = true
        }
    }

    /// Flushes the encoders, writes the trailer and closes the file (waits for the thread).
    func finish() -> Result {
        ended.store(true, ordering: .relaxed)
        let result = Locked<Result?>(nil)
        post { [self] in
            let r = close()
            result.withLock { $0 = r }
        }
        stopping.store(true, ordering: .releasing)
        var one: UInt64 = 1
        _ = write(wakeFd, &one, 8)
        worker.finish(wait: true)
        return result.withLock { $0 } ?? close()
    }

    private func close() -> Result {
        // Stopped before the streams were decided: what came so far is written.
        if !headerWritten && !failed && !early.isEmpty && !writeEarly() { failed = true }
        guard let out = output else { return .failed }
        defer { output = nil }
        if headerWritten {
            if let c = audioCodec, let st = audioStream {
                let frameSize = Int(c.pointee.frame_size > 0 ? c.pointee.frame_size : 1024)
                if !audioSamples.isEmpty && !audioSamples[0].isEmpty {
                    let pad = frameSize - audioSamples[0].count
                    for ch in 0..<config.channels { audioSamples[ch] += [Float](repeating: 0, count: pad) }
                    encodeAudioFrame(c, frameSize)
                }
                send(nil, c, st)
            }
            if let c = videoCodec, let st = videoStream { send(nil, c, st) }
            if av_write_trailer(out) < 0 { failed = true }
        }
        avio_closep(&out.pointee.pb)
        avformat_free_context(out)
        if videoCodec != nil { avcodec_free_context(&videoCodec) }
        if audioCodec != nil { avcodec_free_context(&audioCodec) }
        if resampler != nil { swr_free(&resampler) }
        if failed || !headerWritten || !wroteSomething {
            unlink(config.storagePath)
            return failed ? .failed : .empty
        }
        return .written
    }
}
