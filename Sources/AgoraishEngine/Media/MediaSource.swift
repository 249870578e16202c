import AgoraishIO
import AgoraishMedia
import AgoraishWire
import CFFmpeg
import Glibc
import Synchronization

/// Agora's MEDIA_PLAYER_REASON values a source reports.
enum MediaSourceError: Int32, Error, Sendable {
    case invalidArguments = -1
    case internalError = -2
    case noResource = -3
    case invalidMediaSource = -4
    case unknownStreamType = -5
    case codecNotSupported = -7
    case urlNotFound = -10
    case interrupted = -13
}

/// One stream of an opened source (Agora's PlayerStreamInfo).
public struct MediaStreamInfo: Sendable, Equatable {
    /// The stream's index in the container.
    public var index: Int
    /// MEDIA_STREAM_TYPE: 0 unknown, 1 video, 2 audio, 3 subtitle.
    public var type: Int
    /// FFmpeg's name of the codec ("h264", "opus", ...).
    public var codecName: String
    /// The language tag, "" when the container has none.
    public var language: String
    public var videoFrameRate = 0
    public var videoBitRate = 0
    public var videoWidth = 0
    public var videoHeight = 0
    public var videoRotation = 0
    public var audioSampleRate = 0
    public var audioChannels = 0
    public var audioBitsPerSample = 0
    /// Milliseconds, 0 when unknown.
    public var durationMs: Int64 = 0
}

/// A decoded picture (I420, with its alpha plane when the video has an alpha channel) and its time.
struct DecodedPicture {
    var frame: I420Frame
    var ptsMs: Int64
}

/// A media file or URL opened with FFmpeg's libraries: demuxes, decodes, and
/// hands out 48 kHz stereo 16-bit audio and I420 (plus alpha) pictures with
/// their presentation times in ms. Not thread-safe: one thread (the player's)
/// uses it; `abort` may be called from any thread and makes a blocking open
/// or read return `.interrupted`.
final class MediaSource {
    /// Opening a URL (connect, headers, probing) may take this long.
    static let openTimeout = Duration.seconds(10)
    /// A read that waits for the network longer than this fails.
    static let readTimeout = Duration.seconds(5)
    /// The protocols a source may use (no pipes, no devices, no concatenation of local files by a playlist).
    static let protocols = "file,http,https,tcp,tls,crypto,rtmp,rtmps,rtmpt,httpproxy,data"
    /// Decoded pictures waiting at most (older ones are dropped beyond it).
    static let maxPictures = 90

    /// What the interrupt callback reads: an abort flag and a deadline.
    final class Interrupt: @unchecked Sendable {
        let aborted = Atomic<Bool>(false)
        let deadline = Atomic<Int64>(Int64.max)
    }

    let url: String
    /// The flag a blocking open or read checks (given by the owner, who may abort it).
    let interrupt: Interrupt
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var audioCodec: UnsafeMutablePointer<AVCodecContext>?
    private var videoCodec: UnsafeMutablePointer<AVCodecContext>?
    private(set) var audioStream = -1
    private(set) var videoStream = -1
    private var resampler: OpaquePointer?
    private var resamplerInput: (rate: Int32, format: Int32, channels: Int32) = (0, 0, 0)
    private var scaler: OpaquePointer?
    private var packet = av_packet_alloc()
    private var frame = av_frame_alloc()
    /// Decoded output not yet taken.
    private(set) var audio: [Int16] = []
    /// The presentation time of `audio`'s first sample (ms).
    private(set) var audioPtsMs: Int64 = 0
    /// Samples taken past `audioPtsMs` that do not make a whole millisecond yet
    /// (96 interleaved samples are 1 ms), so uneven takes do not lose time.
    private var audioPtsSamples = 0
    private(set) var pictures: [DecodedPicture] = []
    /// The demuxer reached the end (after the last packet has been decoded).
    private(set) var ended = false
    /// Drop decoded output before this time (an exact seek).
    private var discardBeforeMs: Int64 = 0
    private(set) var streams: [MediaStreamInfo] = []
    private(set) var durationMs: Int64 = 0

    /// FFmpeg's process-wide setup: quiet logs (the libraries write to stderr otherwise), the network.
    static let setup: Void = {
        av_log_set_level(AV_LOG_QUIET)
        avformat_network_init()
    }()

    /// Opens `url` (a path or an http(s)/HLS/rtmp URL) and its best audio
    /// and video streams (`audioTrack`: a particular audio stream index).
    /// Blocks for up to `openTimeout`; `interrupt` ends it sooner.
    init(url: String, wantVideo: Bool = true, interrupt: Interrupt? = nil) throws(MediaSourceError) {
        _ = Self.setup
        self.url = url
        self.interrupt = interrupt ?? Interrupt()
        guard packet != nil, frame != nil else { throw .noResource }
        guard var ctx = avformat_alloc_context() else { throw .noResource }
        let flag = self.interrupt
        ctx.pointee.interrupt_callback = AVIOInterruptCB(callback: { opaque in
            guard let opaque else { return 0 }
            let i = Unmanaged<Interrupt>.fromOpaque(opaque).takeUnretainedValue()
            if i.aborted.load(ordering: .relaxed) { return 1 }
            return Instant.now().nanoseconds > i.deadline.load(ordering: .relaxed) ? 1 : 0
        }, opaque: Unmanaged.passUnretained(flag).toOpaque())
        flag.deadline.store((Instant.now() + Self.openTimeout).nanoseconds, ordering: .relaxed)
        var options: OpaquePointer? = nil
        av_dict_set(&options, "protocol_whitelist", Self.protocols, 0)
        av_dict_set(&options, "rw_timeout", String(Int(Self.readTimeout / .microseconds(1))), 0)
        var optCtx: UnsafeMutablePointer<AVFormatContext>? = ctx
        let rc = avformat_open_input(&optCtx, url, nil, &options)
        av_dict_free(&options)
        guard rc >= 0, let opened = optCtx else { throw Self.reason(rc, interrupted: flag) }
        ctx = opened
        format = ctx
        guard avformat_find_stream_info(ctx, nil) >= 0 else {
            let timedOut = Instant.now().nanoseconds > flag.deadline.load(ordering: .relaxed)
            throw flag.aborted.load(ordering: .relaxed) || timedOut ? .interrupted : .invalidMediaSource
        }
        flag.deadline.store(Int64.max, ordering: .relaxed)
        if ctx.pointee.duration > 0 { durationMs = ctx.pointee.duration / 1000 }
        streams = (0..<Int(ctx.pointee.nb_streams)).map { Self.info(ctx.pointee.streams[$0]!, index: $0) }
        let a = av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        let v = wantVideo ? av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0) : -1
        var unsupported = false
        if a >= 0 {
            do { try openAudio(Int(a)) } catch { unsupported = true }
        }
        if v >= 0 {
            do { try openVideo(Int(v)) } catch { unsupported = true }
        }
        if audioStream < 0 && videoStream < 0 {
            throw unsupported ? .codecNotSupported : .unknownStreamType
        }
    }

    deinit {
        reader?.stop()
        if resampler != nil { swr_free(&resampler) }
        if scaler != nil { sws_freeContext(scaler) }
        if audioCodec != nil { avcodec_free_context(&audioCodec) }
        if videoCodec != nil { avcodec_free_context(&videoCodec) }
        if format != nil { avformat_close_input(&format) }
        av_packet_free(&packet)
        av_frame_free(&frame)
    }

    /// Whether the source has an audio stream being decoded.
    var hasAudio: Bool { audioStream >= 0 }
    /// Whether the source has a video stream being decoded.
    var hasVideo: Bool { videoStream >= 0 }

    static func reason(_ rc: Int32, interrupted i: Interrupt) -> MediaSourceError {
        if i.aborted.load(ordering: .relaxed) || rc == agff_error_exit() { return .interrupted }
        // A server that accepted but never answered, or a connection that dropped: interrupted, not missing.
        if rc == -ETIMEDOUT || rc == -ECONNRESET || rc == -EPIPE || rc == -EIO { return .interrupted }
        if rc == agff_error_enoent() || rc == agff_error_http_not_found() || rc == -ECONNREFUSED
            || rc == -EHOSTUNREACH || rc == -ENETUNREACH { return .urlNotFound }
        if rc == agff_error_decoder_not_found() { return .codecNotSupported }
        if rc == agff_error_enomem() { return .noResource }
        if rc == -EACCES || rc == -EPERM { return .urlNotFound }
        return .invalidMediaSource
    }

    private static func info(_ s: UnsafeMutablePointer<AVStream>, index: Int) -> MediaStreamInfo {
        let p = s.pointee.codecpar.pointee
        let type: Int
        switch p.codec_type {
        case AVMEDIA_TYPE_VIDEO: type = 1
        case AVMEDIA_TYPE_AUDIO: type = 2
        case AVMEDIA_TYPE_SUBTITLE: type = 3
        default: type = 0
        }
        var language = ""
        if let e = av_dict_get(s.pointee.metadata, "language", nil, 0), let v = e.pointee.value { language = String(cString: v) }
        var info = MediaStreamInfo(index: index, type: type, codecName: String(cString: avcodec_get_name(p.codec_id)),
                                   language: language)
        if type == 1 {
            info.videoWidth = Int(p.width)
            info.videoHeight = Int(p.height)
            info.videoBitRate = Int(p.bit_rate / 1000)
            let r = s.pointee.avg_frame_rate
            if r.den > 0 { info.videoFrameRate = Int((Double(r.num) / Double(r.den)).rounded()) }
        } else if type == 2 {
            info.audioSampleRate = Int(p.sample_rate)
            info.audioChannels = Int(p.ch_layout.nb_channels)
            // PCM's sample size; 0 for compressed audio.
            info.audioBitsPerSample = Int(av_get_bits_per_sample(p.codec_id))
        }
        if s.pointee.duration > 0 && s.pointee.duration != agff_nopts() {
            info.durationMs = av_rescale_q(s.pointee.duration, s.pointee.time_base, AVRational(num: 1, den: 1000))
        }
        return info
    }

    private func openDecoder(_ index: Int, preferred: String? = nil) throws(MediaSourceError) -> UnsafeMutablePointer<AVCodecContext> {
        guard let ctx = format, let stream = ctx.pointee.streams[index] else { throw .internalError }
        let par = stream.pointee.codecpar!
        var codec = preferred.flatMap { avcodec_find_decoder_by_name($0) }
        if codec == nil { codec = avcodec_find_decoder(par.pointee.codec_id) }
        guard let codec, var c = avcodec_alloc_context3(codec) else { throw .codecNotSupported }
        var owned: UnsafeMutablePointer<AVCodecContext>? = c
        guard avcodec_parameters_to_context(c, par) >= 0 else { avcodec_free_context(&owned); throw .codecNotSupported }
        c.pointee.pkt_timebase = stream.pointee.time_base
        c.pointee.thread_count = 2
        guard avcodec_open2(c, codec, nil) >= 0 else { avcodec_free_context(&owned); throw .codecNotSupported }
        c = owned!
        return c
    }

    private func openAudio(_ index: Int) throws(MediaSourceError) {
        let c = try openDecoder(index)
        if audioCodec != nil { avcodec_free_context(&audioCodec) }
        if resampler != nil { swr_free(&resampler) }
        audioCodec = c
        audioStream = index
    }

    private func openVideo(_ index: Int) throws(MediaSourceError) {
        guard let stream = format?.pointee.streams[index] else { throw .internalError }
        // FFmpeg's own VP8/VP9 decoders drop the alpha channel WebM carries
        // beside the picture; libvpx's decoders return it.
        var preferred: String? = nil
        if let e = av_dict_get(stream.pointee.metadata, "alpha_mode", nil, 0), let v = e.pointee.value,
           String(cString: v) == "1" {
            switch stream.pointee.codecpar.pointee.codec_id {
            case AV_CODEC_ID_VP8: preferred = "libvpx"
            case AV_CODEC_ID_VP9: preferred = "libvpx-vp9"
            default: break
            }
        }
        videoCodec = try openDecoder(index, preferred: preferred)
        videoStream = index
    }

    /// The audio streams, in container order.
    var audioTracks: [MediaStreamInfo] { streams.filter { $0.type == 2 } }

    /// Decodes audio stream `index` from now on (Agora's selectAudioTrack).
    func selectAudioTrack(_ index: Int) throws(MediaSourceError) {
        guard streams.indices.contains(index), streams[index].type == 2 else { throw .invalidArguments }
        guard index != audioStream else { return }
        try openAudio(index)
        audio.removeAll()
    }

    /// What one step of decoding found.
    enum Step: Equatable {
        /// A packet was decoded (it may have given no output yet).
        case decoded
        /// No packet has been read yet (the network is slower than playback).
        case waiting
        /// The end of the source: everything is decoded.
        case ended
    }

    /// Decodes the next packet the reader has read (with `wait`, waiting for
    /// one). Throws when reading failed (after every packet read before the
    /// failure was decoded).
    func step(wait: Bool = false) throws(MediaSourceError) -> Step {
        guard let packet else { throw .internalError }
        if ended { return .ended }
        if reader == nil { startReader() }
        guard let reader else { throw .noResource }
        switch reader.take(into: packet, wait: wait) {
        case .packet:
            break
        case .empty:
            return .waiting
        case .end:
            drain()
            ended = true
            return .ended
        case .failed(let error):
            throw error
        }
        defer { av_packet_unref(packet) }
        let index = Int(packet.pointee.stream_index)
        if index == audioStream, let c = audioCodec {
            if avcodec_send_packet(c, packet) >= 0 { receiveAudio(c) }
        } else if index == videoStream, let c = videoCodec {
            if avcodec_send_packet(c, packet) >= 0 { receiveVideo(c) }
        }
        return .decoded
    }

    /// The thread that reads packets ahead; started by the first step.
    private var reader: PacketReader?

    private func startReader() {
        guard let ctx = format else { return }
        reader = PacketReader(format: ctx, interrupt: interrupt, name: "agoraish-rd")
    }

    /// Flushes the decoders at the end of the source.
    private func drain() {
        if let c = audioCodec, avcodec_send_packet(c, nil) >= 0 { receiveAudio(c) }
        if let c = videoCodec, avcodec_send_packet(c, nil) >= 0 { receiveVideo(c) }
    }

    private func ptsMs(_ f: UnsafeMutablePointer<AVFrame>, stream: Int) -> Int64? {
        let ts = f.pointee.best_effort_timestamp
        guard ts != agff_nopts(), let s = format?.pointee.streams[stream] else { return nil }
        var ms = av_rescale_q(ts, s.pointee.time_base, AVRational(num: 1, den: 1000))
        let start = format!.pointee.start_time
        if start != agff_nopts() && start > 0 { ms -= start / 1000 }
        return ms
    }

    private func receiveAudio(_ c: UnsafeMutablePointer<AVCodecContext>) {
        guard let f = frame else { return }
        while avcodec_receive_frame(c, f) >= 0 {
            defer { av_frame_unref(f) }
            let channels = f.pointee.ch_layout.nb_channels
            let input = (f.pointee.sample_rate, f.pointee.format, channels)
            if resampler == nil || resamplerInput != input {
                if resampler != nil { swr_free(&resampler) }
                // Mono is resampled as mono and then put in both channels at its own level
                // (FFmpeg's upmix would lower it 3 dB); more channels are mixed down to
                // stereo with the coefficients normalised, so nothing clips.
                var outLayout = AVChannelLayout()
                av_channel_layout_default(&outLayout, channels == 1 ? 1 : 2)
                var inLayout = AVChannelLayout()
                if f.pointee.ch_layout.order != AV_CHANNEL_ORDER_UNSPEC {
                    av_channel_layout_copy(&inLayout, &f.pointee.ch_layout)
                } else {
                    av_channel_layout_default(&inLayout, max(1, channels))
                }
                var swr: OpaquePointer? = nil
                let ok = swr_alloc_set_opts2(&swr, &outLayout, AV_SAMPLE_FMT_S16, 48000, &inLayout,
                                             AVSampleFormat(rawValue: f.pointee.format), f.pointee.sample_rate, 0, nil) >= 0
                av_channel_layout_uninit(&inLayout)
                if ok { av_opt_set_double(UnsafeMutableRawPointer(swr), "rematrix_maxval", 1.0, 0) }
                guard ok, swr_init(swr) >= 0 else { swr_free(&swr); continue }
                resampler = swr
                resamplerInput = input
            }
            let outChannels = channels == 1 ? 1 : 2
            let capacity = Int(swr_get_out_samples(resampler, f.pointee.nb_samples)) + 32
            var out = [Int16](repeating: 0, count: capacity * outChannels)
            let produced = out.withUnsafeMutableBytes { raw -> Int32 in
                var dst: UnsafeMutablePointer<UInt8>? = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let src = UnsafeMutableRawPointer(f.pointee.extended_data)!.assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
                return swr_convert(resampler, &dst, Int32(capacity), src, f.pointee.nb_samples)
            }
            guard produced > 0 else { continue }
            out.removeLast(out.count - Int(produced) * outChannels)
            if outChannels == 1 { out = convertChannels(out, from: 1, to: 2) }
            var pts = ptsMs(f, stream: audioStream) ?? (audioPtsMs + Int64(audio.count / 96))
            if audio.isEmpty { audioPtsMs = pts; audioPtsSamples = 0 } else { pts = audioPtsMs + Int64(audio.count / 96) }
            if discardBeforeMs > pts {
                let drop = min(out.count, Int(discardBeforeMs - pts) * 96)
                out.removeFirst(drop)
                if audio.isEmpty { audioPtsMs = pts + Int64(drop / 96) }
            }
            audio += out
        }
    }

    private func receiveVideo(_ c: UnsafeMutablePointer<AVCodecContext>) {
        guard let f = frame else { return }
        while avcodec_receive_frame(c, f) >= 0 {
            defer { av_frame_unref(f) }
            let pts = ptsMs(f, stream: videoStream) ?? (pictures.last.map { $0.ptsMs + 33 } ?? 0)
            if pts < discardBeforeMs { continue }
            if let p = picture(f, ptsMs: pts) { pictures.append(p) }
            // A file whose audio lies far from its pictures cannot make the queue grow without bound.
            if pictures.count > Self.maxPictures { pictures.removeFirst(pictures.count - Self.maxPictures) }
        }
    }

    /// The frame as I420 (even sides) and its alpha plane when it has one.
    private func picture(_ f: UnsafeMutablePointer<AVFrame>, ptsMs: Int64) -> DecodedPicture? {
        let w = Int(f.pointee.width) & ~1, h = Int(f.pointee.height) & ~1
        guard w >= 2, h >= 2, w <= 8192, h <= 8192 else { return nil }
        let fmt = AVPixelFormat(rawValue: f.pointee.format)
        let hasAlpha = fmt == AV_PIX_FMT_YUVA420P
        if fmt == AV_PIX_FMT_YUV420P || fmt == AV_PIX_FMT_YUVJ420P || hasAlpha {
            // Already planar 4:2:0: copied as a pushed picture is (libyuv), its alpha plane with it.
            var source = PictureSource(format: .i420, width: w, height: h,
                                       plane0: f.pointee.data.0!, stride0: Int(f.pointee.linesize.0),
                                       plane1: f.pointee.data.1!, stride1: Int(f.pointee.linesize.1),
                                       plane2: f.pointee.data.2!, stride2: Int(f.pointee.linesize.2))
            if hasAlpha, let a = f.pointee.data.3 {
                source.alpha = UnsafeRawPointer(a)
                source.alphaStride = Int(f.pointee.linesize.3)
            }
            guard let copied = PixelConversion.i420(source) else { return nil }
            return DecodedPicture(frame: copied, ptsMs: ptsMs)
        }
        var out = I420Frame(width: w, height: h)
        scaler = sws_getCachedContext(scaler, f.pointee.width, f.pointee.height, fmt, Int32(w), Int32(h),
                                      AV_PIX_FMT_YUV420P, SWS_BILINEAR, nil, nil, nil)
        guard let scaler else { return nil }
        let ok = out.y.withUnsafeMutableBufferPointer { y in
            out.u.withUnsafeMutableBufferPointer { u in
                out.v.withUnsafeMutableBufferPointer { v -> Bool in
                    var dst: [UnsafeMutablePointer<UInt8>?] = [y.baseAddress, u.baseAddress, v.baseAddress, nil]
                    var dstStride: [Int32] = [Int32(w), Int32(w / 2), Int32(w / 2), 0]
                    return withUnsafeBytes(of: &f.pointee.data) { data in
                        withUnsafeBytes(of: &f.pointee.linesize) { lines in
                            let src = data.baseAddress!.assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
                            let stride = lines.baseAddress!.assumingMemoryBound(to: Int32.self)
                            return sws_scale(scaler, src, stride, 0, f.pointee.height, &dst, &dstStride) > 0
                        }
                    }
                }
            }
        }
        guard ok else { return nil }
        return DecodedPicture(frame: out, ptsMs: ptsMs)
    }

    /// Takes up to `samples` stereo frames (48 kHz) of decoded audio; fewer when not yet decoded.
    func takeAudio(_ samples: Int) -> [Int16] {
        let n = min(audio.count, samples * 2)
        let out = Array(audio[0..<n])
        audio.removeFirst(n)
        audioPtsSamples += n
        audioPtsMs += Int64(audioPtsSamples / 96)
        audioPtsSamples %= 96
        return out
    }

    /// Milliseconds of decoded audio waiting.
    var bufferedAudioMs: Int { audio.count / 96 }

    /// Takes the oldest decoded picture.
    func takePicture() -> DecodedPicture? { pictures.isEmpty ? nil : pictures.removeFirst() }

    /// Moves to `ms` (clamped to the duration): decoded output starts there exactly.
    func seek(toMs ms: Int64) throws(MediaSourceError) {
        guard let ctx = format else { throw .internalError }
        let target = max(0, durationMs > 0 ? min(ms, durationMs) : ms)
        var ts = target * 1000
        if ctx.pointee.start_time != agff_nopts() && ctx.pointee.start_time > 0 { ts += ctx.pointee.start_time }
        // The reader stands still (a read in progress is interrupted) while the context moves.
        let interrupt = self.interrupt
        let move = { () -> Int32 in
            interrupt.deadline.store((Instant.now() + Self.readTimeout).nanoseconds, ordering: .relaxed)
            defer { interrupt.deadline.store(Int64.max, ordering: .relaxed) }
            return avformat_seek_file(ctx, -1, Int64.min, ts, ts, 0)
        }
        let rc = reader.map { $0.paused(move) } ?? move()
        guard rc >= 0 else { throw Self.reason(rc, interrupted: interrupt) }
        if let c = audioCodec { avcodec_flush_buffers(c) }
        if let c = videoCodec { avcodec_flush_buffers(c) }
        audio.removeAll()
        pictures.removeAll()
        audioPtsMs = target
        audioPtsSamples = 0
        discardBeforeMs = target
        ended = false
    }

    /// Whether the source is a live or network stream that cannot seek.
    var isSeekable: Bool {
        guard let pb = format?.pointee.pb else { return false }
        return pb.pointee.seekable != 0 && durationMs > 0
    }
}

/// Reads packets of a source ahead of decoding on a thread of its own
/// ("agoraish-rd"), so a slow network never blocks the playback thread: it
/// keeps playing what was read, reports a low buffer, and learns of a failure
/// only after the packets read before it. At most `maxPackets` packets or
/// `maxBytes` bytes wait.
final class PacketReader: @unchecked Sendable {
    enum Taken { case packet, empty, end, failed(MediaSourceError) }

    static let maxPackets = 600
    static let maxBytes = 32 << 20

    private let format: UnsafeMutablePointer<AVFormatContext>
    private let interrupt: MediaSource.Interrupt
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let thread = EventThreadHandle()
    // Guarded by `mutex`.
    private var queue: [UnsafeMutablePointer<AVPacket>] = []
    private var head = 0
    private var bytes = 0
    private var finished: Taken? = nil
    private var pauseAsked = 0
    private var standing = false
    private var stopping = false

    init(format: UnsafeMutablePointer<AVFormatContext>, interrupt: MediaSource.Interrupt, name: String) {
        self.format = format
        self.interrupt = interrupt
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
        do {
            try thread.start(name: name) { [self] in run() }
        } catch {
            finished = .failed(.noResource)
        }
    }

    deinit {
        for p in queue[head...] { var q: UnsafeMutablePointer<AVPacket>? = p; av_packet_free(&q) }
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    private var count: Int { queue.count - head }

    private func run() {
        pthread_mutex_lock(mutex)
        while true {
            while !stopping && (pauseAsked > 0 || finished != nil || count >= Self.maxPackets || bytes >= Self.maxBytes) {
                if pauseAsked > 0 && !standing {
                    standing = true
                    pthread_cond_broadcast(cond)
                }
                pthread_cond_wait(cond, mutex)
            }
            if stopping { break }
            standing = false
            pthread_mutex_unlock(mutex)
            var packet = av_packet_alloc()
            interrupt.deadline.store((Instant.now() + MediaSource.readTimeout).nanoseconds, ordering: .relaxed)
            let rc = packet.map { av_read_frame(format, $0) } ?? agff_error_enomem()
            interrupt.deadline.store(Int64.max, ordering: .relaxed)
            let aborted = interrupt.aborted.load(ordering: .relaxed) || rc == agff_error_exit()
            pthread_mutex_lock(mutex)
            if rc >= 0, let p = packet {
                queue.append(p)
                bytes += Int(p.pointee.size)
            } else {
                av_packet_free(&packet)
                if pauseAsked > 0 || stopping {
                    // Interrupted for a seek or the end: nothing failed.
                } else {
                    // avio marks failed reads as the end too; its error tells them apart.
                    let pb = format.pointee.pb?.pointee
                    let endOfData = pb.map { $0.eof_reached != 0 && ($0.error == 0 || $0.error == agff_error_eof()) } ?? false
                    if rc == agff_error_eof() || (!aborted && endOfData) {
                        finished = .end
                    } else {
                        finished = .failed(MediaSource.reason(rc, interrupted: interrupt))
                    }
                }
            }
            pthread_cond_broadcast(cond)
        }
        pthread_mutex_unlock(mutex)
    }

    /// Moves the oldest packet into `packet`; with `wait`, waits for one or the end.
    func take(into packet: UnsafeMutablePointer<AVPacket>, wait: Bool) -> Taken {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while count == 0 && finished == nil && wait && !stopping { pthread_cond_wait(cond, mutex) }
        guard count > 0 else {
            if let finished { return finished }
            return .empty
        }
        let p = queue[head]
        head += 1
        bytes -= Int(p.pointee.size)
        if head > 256 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        av_packet_move_ref(packet, p)
        var q: UnsafeMutablePointer<AVPacket>? = p
        av_packet_free(&q)
        pthread_cond_broadcast(cond)
        return .packet
    }

    /// Packets read and not yet taken.
    var bufferedPackets: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return count
    }

    /// Runs `body` with the reader standing still (a read in progress is
    /// interrupted), then drops what was read and reads on from where the
    /// context was left.
    func paused<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        pauseAsked += 1
        interrupt.aborted.store(true, ordering: .relaxed)
        pthread_cond_broadcast(cond)
        while !standing && !stopping && finished == nil { pthread_cond_wait(cond, mutex) }
        // Standing, or idle at the end (the end is cleared: a seek may go back).
        interrupt.aborted.store(false, ordering: .relaxed)
        pthread_mutex_unlock(mutex)
        let result = body()
        pthread_mutex_lock(mutex)
        for p in queue[head...] { var q: UnsafeMutablePointer<AVPacket>? = p; av_packet_free(&q) }
        queue.removeAll()
        head = 0
        bytes = 0
        finished = nil
        pauseAsked -= 1
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
        return result
    }

    /// Ends the thread and waits for it (the context stays the caller's).
    func stop() {
        pthread_mutex_lock(mutex)
        stopping = true
        interrupt.aborted.store(true, ordering: .relaxed)
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
        thread.finish(wait: true)
    }
}
