import CAgoraishShim
import CVpx
import Glibc

/// A libvpx failure: the vpx_codec_err_t code and libvpx's message.
public struct VideoCodecError: Error, Equatable, Sendable {
    public var code: Int32
    public var message: String
}

/// The video codecs the engine speaks (Agora's VIDEO_CODEC_TYPE numbers).
public enum VideoCodec: Int32, Sendable {
    case vp8 = 1
    case vp9 = 5
}

/// A picture in I420 (planar Y, then U and V at half resolution), tightly
/// packed: strides are the plane widths.
public struct I420Frame: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var y: [UInt8]
    public var u: [UInt8]
    public var v: [UInt8]
    /// The alpha plane (width x height, 0 transparent ... 255 opaque) of a
    /// picture that has one; every transform of `PixelConversion` carries it
    /// along, encoders ignore it.
    public var alpha: [UInt8]? = nil

    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }

    /// A black picture.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        y = [UInt8](repeating: 16, count: width * height)
        u = [UInt8](repeating: 128, count: ((width + 1) / 2) * ((height + 1) / 2))
        v = u
    }

    /// The peak signal-to-noise ratio of the luma plane against `other` (same size), in dB.
    public func lumaPSNR(_ other: I420Frame) -> Double {
        precondition(width == other.width && height == other.height)
        var sum = 0.0
        for i in 0..<y.count {
            let d = Double(Int(y[i]) - Int(other.y[i]))
            sum += d * d
        }
        let mse = sum / Double(y.count)
        return mse == 0 ? 99 : 10 * log10Double(255 * 255 / mse)
    }
}

/// log10 through the C library.
@inline(__always) func log10Double(_ x: Double) -> Double { Glibc.log10(x) }

/// What the encoder is asked for (from Agora's VideoEncoderConfiguration).
public struct VideoEncoderSettings: Equatable, Sendable {
    public var codec: VideoCodec
    public var width: Int
    public var height: Int
    public var frameRate: Int
    /// Target bitrate in Kbps.
    public var bitrateKbps: Int
    /// A keyframe at least this often, in frames (0: only when asked).
    public var keyframeInterval: Int

    public init(codec: VideoCodec = .vp8, width: Int, height: Int, frameRate: Int, bitrateKbps: Int,
                keyframeInterval: Int = 0) {
        self.codec = codec
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.bitrateKbps = bitrateKbps
        self.keyframeInterval = keyframeInterval
    }
}

/// One encoded picture.
public struct EncodedFrame: Equatable, Sendable {
    public var data: [UInt8]
    public var isKeyframe: Bool
    /// The presentation time given to `encode`, in 90 kHz units.
    public var pts: Int64
}

/// A VP8 or VP9 encoder with libvpx's real-time settings (one pass, CBR,
/// no lag, error-resilient, speed for real time), owned. Not thread-safe.
public final class VideoEncoder {
    public private(set) var settings: VideoEncoderSettings
    private var context = vpx_codec_ctx_t()
    private var config = vpx_codec_enc_cfg_t()
    private var image = vpx_image_t()
    private let planes: UnsafeMutablePointer<UInt8>
    /// The even clock libvpx is given: the last picture's time on it and on
    /// the caller's clock, and the smoothed interval between pictures.
    private var fed: (pts: Int64, callerPts: Int64, interval: Double)? = nil

    public init(settings: VideoEncoderSettings) throws(VideoCodecError) {
        guard settings.width >= 16, settings.height >= 16, settings.width <= 4096, settings.height <= 4096,
              settings.width % 2 == 0, settings.height % 2 == 0, (1...120).contains(settings.frameRate),
              (1...100_000).contains(settings.bitrateKbps)
        else { throw VideoCodecError(code: Int32(VPX_CODEC_INVALID_PARAM.rawValue), message: "bad settings") }
        self.settings = settings
        let iface = settings.codec == .vp8 ? agsh_vpx_vp8_cx() : agsh_vpx_vp9_cx()
        var rc = vpx_codec_enc_config_default(iface, &config, 0)
        guard rc == VPX_CODEC_OK else { throw Self.error(rc, nil) }
        config.g_w = UInt32(settings.width)
        config.g_h = UInt32(settings.height)
        config.g_timebase = vpx_rational(num: 1, den: 90_000)
        config.rc_target_bitrate = UInt32(settings.bitrateKbps)
        config.g_threads = 1
        config.g_lag_in_frames = 0
        config.g_pass = VPX_RC_ONE_PASS
        config.rc_end_usage = VPX_CBR
        config.g_error_resilient = vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT)
        config.rc_min_quantizer = 2
        config.rc_max_quantizer = 56
        config.rc_undershoot_pct = 100
        config.rc_overshoot_pct = 15
        config.rc_buf_initial_sz = 500
        config.rc_buf_optimal_sz = 600
        config.rc_buf_sz = 1000
        // Pictures are dropped when the rate buffer runs low (30 % full), so the
        // target holds even for content that cannot be compressed to it.
        config.rc_dropframe_thresh = 30
        config.kf_mode = settings.keyframeInterval > 0 ? VPX_KF_AUTO : VPX_KF_DISABLED
        config.kf_max_dist = UInt32(max(settings.keyframeInterval, 1))
        rc = agsh_vpx_codec_enc_init(&context, iface, &config, 0)
        guard rc == VPX_CODEC_OK else { throw Self.error(rc, nil) }
        // Real-time speed: -6 for VP8 (libvpx's guidance for real time), 7 for VP9.
        _ = agsh_vpx_codec_control_int(&context, Int32(VP8E_SET_CPUUSED.rawValue), settings.codec == .vp8 ? -6 : 7)
        _ = agsh_vpx_codec_control_int(&context, Int32(VP8E_SET_STATIC_THRESHOLD.rawValue), 1)
        // A keyframe may take at most three average frames' worth of bits: on a
        // narrow link an unbounded one fills the bottleneck's queue for seconds
        // (libwebrtc bounds it from its buffer size the same way).
        _ = agsh_vpx_codec_control_int(&context, Int32(VP8E_SET_MAX_INTRA_BITRATE_PCT.rawValue), 300)
        let lumaSize = settings.width * settings.height
        let chromaSize = (settings.width / 2) * (settings.height / 2)
        planes = .allocate(capacity: lumaSize + 2 * chromaSize)
        vpx_img_wrap(&image, VPX_IMG_FMT_I420, UInt32(settings.width), UInt32(settings.height), 1, planes)
    }

    deinit {
        vpx_codec_destroy(&context)
        planes.deallocate()
    }

    /// Changes the target bitrate at once (Kbps).
    public func setBitrate(kbps: Int) throws(VideoCodecError) {
        guard (1...100_000).contains(kbps) else { throw VideoCodecError(code: Int32(VPX_CODEC_INVALID_PARAM.rawValue), message: "bitrate") }
        config.rc_target_bitrate = UInt32(kbps)
        let rc = vpx_codec_enc_config_set(&context, &config)
        guard rc == VPX_CODEC_OK else { throw Self.error(rc, &context) }
        settings.bitrateKbps = kbps
    }

    /// Encodes one picture of the configured size; `pts` in 90 kHz units.
    /// Returns the frames the encoder produced (one in real-time mode, none
    /// when it dropped the picture to hold the bitrate).
    public func encode(_ frame: I420Frame, pts: Int64, keyframe: Bool = false) throws(VideoCodecError) -> [EncodedFrame] {
        guard frame.width == settings.width, frame.height == settings.height else {
            throw VideoCodecError(code: Int32(VPX_CODEC_INVALID_PARAM.rawValue), message: "frame size")
        }
        let lumaSize = settings.width * settings.height
        let chromaSize = (settings.width / 2) * (settings.height / 2)
        frame.y.withUnsafeBufferPointer { planes.update(from: $0.baseAddress!, count: lumaSize) }
        frame.u.withUnsafeBufferPointer { (planes + lumaSize).update(from: $0.baseAddress!, count: chromaSize) }
        frame.v.withUnsafeBufferPointer { (planes + lumaSize + chromaSize).update(from: $0.baseAddress!, count: chromaSize) }
        let duration = UInt(90_000 / settings.frameRate)
        let rc = vpx_codec_encode(&context, &image, evenPts(pts), duration,
                                  keyframe ? vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF) : 0, UInt(VPX_DL_REALTIME))
        guard rc == VPX_CODEC_OK else { throw Self.error(rc, &context) }
        var out: [EncodedFrame] = []
        var iterator: vpx_codec_iter_t? = nil
        while let packet = vpx_codec_get_cx_data(&context, &iterator) {
            guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
            let f = packet.pointee.data.frame
            let bytes = Array(UnsafeRawBufferPointer(start: f.buf, count: f.sz))
            // No lag: what comes out is the picture just given, at the caller's time.
            out.append(EncodedFrame(data: bytes, isKeyframe: f.flags & vpx_codec_frame_flags_t(VPX_FRAME_IS_KEY) != 0, pts: pts))
        }
        return out
    }

    /// The time libvpx is given for a picture the caller stamps `pts`: its
    /// own clock, advanced by the smoothed interval between the caller's
    /// pictures (a moving average over about eight). libvpx's rate control
    /// takes the frame rate from the spacing of the timestamps and follows a
    /// change of a tenth at once: pictures thinned unevenly (12 of 15 a second
    /// come 1/15, 1/15, 1/15 and 2/15 s apart) make it spend about half
    /// again its target. A gap over a second (a pause) starts the average
    /// afresh; the clock never goes back.
    private func evenPts(_ pts: Int64) -> Int64 {
        guard let last = fed else {
            fed = (pts, pts, 0)
            return pts
        }
        let gap = pts - last.callerPts
        var interval = last.interval
        if gap <= 0 || gap > 90_000 {
            interval = 0
        } else {
            interval = interval == 0 ? Double(gap) : interval + (Double(gap) - interval) / 8
        }
        let step = interval == 0 ? max(1, gap) : max(1, Int64(interval.rounded()))
        fed = (last.pts + step, pts, interval)
        return last.pts + step
    }

    static func error(_ rc: vpx_codec_err_t, _ context: UnsafeMutablePointer<vpx_codec_ctx_t>?) -> VideoCodecError {
        let text = context.flatMap { vpx_codec_error_detail($0) }.map { String(cString: $0) }
            ?? String(cString: vpx_codec_err_to_string(rc))
        return VideoCodecError(code: Int32(rc.rawValue), message: text)
    }
}

/// A VP8 or VP9 decoder, owned. Not thread-safe.
public final class VideoDecoder {
    public let codec: VideoCodec
    private var context = vpx_codec_ctx_t()

    public init(codec: VideoCodec) throws(VideoCodecError) {
        self.codec = codec
        var config = vpx_codec_dec_cfg_t(threads: 1, w: 0, h: 0)
        let rc = agsh_vpx_codec_dec_init(&context, codec == .vp8 ? agsh_vpx_vp8_dx() : agsh_vpx_vp9_dx(), &config, 0)
        guard rc == VPX_CODEC_OK else { throw VideoEncoder.error(rc, nil) }
    }

    deinit { vpx_codec_destroy(&context) }

    /// A decoded picture in libvpx's own buffers: valid only until the next decode.
    public struct PictureView {
        public var width: Int
        public var height: Int
        public var y: UnsafeBufferPointer<UInt8>
        public var u: UnsafeBufferPointer<UInt8>
        public var v: UnsafeBufferPointer<UInt8>
        public var yStride: Int
        public var uvStride: Int
    }

    /// Decodes one whole frame and shows the picture it produces (if any) to
    /// `body` without copying it. Returns whether a picture was shown. Throws
    /// for data libvpx cannot decode (corrupt, or a reference it never saw):
    /// the caller asks the sender for a keyframe.
    @discardableResult
    public func decode(_ data: [UInt8], show body: (PictureView) -> Void) throws(VideoCodecError) -> Bool {
        let rc = data.withUnsafeBufferPointer { vpx_codec_decode(&context, $0.baseAddress, UInt32($0.count), nil, 0) }
        guard rc == VPX_CODEC_OK else { throw VideoEncoder.error(rc, &context) }
        var iterator: vpx_codec_iter_t? = nil
        var shown = false
        while let img = vpx_codec_get_frame(&context, &iterator) {
            let i = img.pointee
            guard i.fmt == VPX_IMG_FMT_I420, let y = i.planes_tuple(0), let u = i.planes_tuple(1), let v = i.planes_tuple(2)
            else { continue }
            let w = Int(i.d_w), h = Int(i.d_h)
            let ys = Int(i.stride_tuple(0)), cs = Int(i.stride_tuple(1))
            let ch = (h + 1) / 2
            body(PictureView(width: w, height: h,
                             y: UnsafeBufferPointer(start: y, count: ys * (h - 1) + w),
                             u: UnsafeBufferPointer(start: u, count: cs * (ch - 1) + (w + 1) / 2),
                             v: UnsafeBufferPointer(start: v, count: cs * (ch - 1) + (w + 1) / 2),
                             yStride: ys, uvStride: cs))
            shown = true
        }
        return shown
    }

    /// Decodes one whole frame; returns a copy of the picture it shows (nil
    /// when it shows nothing). Throws as `decode(_:show:)`.
    public func decode(_ data: [UInt8]) throws(VideoCodecError) -> I420Frame? {
        var picture: I420Frame? = nil
        try decode(data) { view in picture = Self.copy(view) }
        return picture
    }

    private static func copy(_ view: PictureView) -> I420Frame {
        var f = I420Frame(width: view.width, height: view.height)
        func plane(_ src: UnsafeBufferPointer<UInt8>, _ stride: Int, _ pw: Int, _ ph: Int, _ out: inout [UInt8]) {
            out.withUnsafeMutableBufferPointer { dst in
                for row in 0..<ph { (dst.baseAddress! + row * pw).update(from: src.baseAddress! + row * stride, count: pw) }
            }
        }
        plane(view.y, view.yStride, view.width, view.height, &f.y)
        plane(view.u, view.uvStride, f.chromaWidth, f.chromaHeight, &f.u)
        plane(view.v, view.uvStride, f.chromaWidth, f.chromaHeight, &f.v)
        return f
    }
}

extension vpx_image_t {
    /// planes[i] (a C array, a tuple in Swift).
    func planes_tuple(_ i: Int) -> UnsafeMutablePointer<UInt8>? {
        switch i {
        case 0: planes.0
        case 1: planes.1
        case 2: planes.2
        default: planes.3
        }
    }

    /// stride[i].
    func stride_tuple(_ i: Int) -> Int32 {
        switch i {
        case 0: stride.0
        case 1: stride.1
        case 2: stride.2
        default: stride.3
        }
    }
}
