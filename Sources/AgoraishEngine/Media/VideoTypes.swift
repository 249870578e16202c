import AgoraishMedia
import AgoraishWire

/// One picture handed to a render sink (setupLocalVideo / setupRemoteVideo): I420 planes.
public struct VideoFrameView {
    public var width: Int
    public var height: Int
    public var y: UnsafeBufferPointer<UInt8>
    public var u: UnsafeBufferPointer<UInt8>
    public var v: UnsafeBufferPointer<UInt8>
    /// Row strides of the planes, in bytes.
    public var yStride: Int
    public var uvStride: Int
    /// When the picture was decoded (remote) or captured (local), on the engine's monotonic clock, in ms.
    public var renderTimeMs: Int64
    /// The alpha plane (width x height) of a picture that has one (a media player's source with alpha).
    public var alpha: UnsafeBufferPointer<UInt8>? = nil
    /// Bytes per row of `alpha`.
    public var alphaStride = 0
}

/// A writable picture handed to a video frame observer (Agora's VideoFrame,
/// I420). The planes may be changed in place during the callback.
public struct VideoFrameBuffer {
    public var width: Int
    public var height: Int
    public var y: UnsafeMutableBufferPointer<UInt8>
    public var u: UnsafeMutableBufferPointer<UInt8>
    public var v: UnsafeMutableBufferPointer<UInt8>
    public var yStride: Int
    public var uvStride: Int
    /// Milliseconds: the capture time pushed (capture, pre-encode) or the decode time (render).
    public var renderTimeMs: Int64
    /// The alpha plane (width x height, stride width) of a picture that has one; read-only.
    public var alpha: UnsafeMutableBufferPointer<UInt8>? = nil
}

extension I420Frame {
    /// Runs `body` with the planes as a writable `VideoFrameBuffer`.
    mutating func withBuffer<R>(timeMs: Int64, _ body: (VideoFrameBuffer) -> R) -> R {
        let (w, h, cw) = (width, height, chromaWidth)
        var alphaPlane = alpha
        return y.withUnsafeMutableBufferPointer { y in
            u.withUnsafeMutableBufferPointer { u in
                v.withUnsafeMutableBufferPointer { v in
                    guard alphaPlane != nil else {
                        return body(VideoFrameBuffer(width: w, height: h, y: y, u: u, v: v, yStride: w, uvStride: cw,
                                                     renderTimeMs: timeMs))
                    }
                    return alphaPlane!.withUnsafeMutableBufferPointer { a in
                        body(VideoFrameBuffer(width: w, height: h, y: y, u: u, v: v, yStride: w, uvStride: cw,
                                              renderTimeMs: timeMs, alpha: a))
                    }
                }
            }
        }
    }

    /// Runs `body` with the planes as a read-only `VideoFrameView`.
    func withView<R>(timeMs: Int64, _ body: (VideoFrameView) -> R) -> R {
        y.withUnsafeBufferPointer { y in
            u.withUnsafeBufferPointer { u in
                v.withUnsafeBufferPointer { v in
                    guard let alpha else {
                        return body(VideoFrameView(width: width, height: height, y: y, u: u, v: v, yStride: width,
                                                   uvStride: chromaWidth, renderTimeMs: timeMs))
                    }
                    return alpha.withUnsafeBufferPointer { a in
                        body(VideoFrameView(width: width, height: height, y: y, u: u, v: v, yStride: width,
                                            uvStride: chromaWidth, renderTimeMs: timeMs, alpha: a, alphaStride: width))
                    }
                }
            }
        }
    }

    /// A copy of a view's planes.
    init(copying view: VideoFrameView) {
        self.init(width: view.width, height: view.height)
        let cw = chromaWidth
        for row in 0..<view.height {
            y.withUnsafeMutableBufferPointer { d in
                (d.baseAddress! + row * view.width).update(from: view.y.baseAddress! + row * view.yStride, count: view.width)
            }
        }
        for row in 0..<chromaHeight {
            u.withUnsafeMutableBufferPointer { d in
                (d.baseAddress! + row * cw).update(from: view.u.baseAddress! + row * view.uvStride, count: cw)
            }
            v.withUnsafeMutableBufferPointer { d in
                (d.baseAddress! + row * cw).update(from: view.v.baseAddress! + row * view.uvStride, count: cw)
            }
        }
        if let a = view.alpha, view.alphaStride >= view.width {
            var plane = [UInt8](repeating: 255, count: view.width * view.height)
            plane.withUnsafeMutableBufferPointer { d in
                for row in 0..<view.height {
                    (d.baseAddress! + row * view.width).update(from: a.baseAddress! + row * view.alphaStride, count: view.width)
                }
            }
            alpha = plane
        }
    }
}

/// A render target on Linux (Agora's VideoCanvas): a callback instead of a view.
public struct VideoCanvas {
    /// Agora's RENDER_MODE_TYPE: HIDDEN (1), FIT (2), FILL (4). Applies when a view size is set.
    public var renderMode: Int = 1
    /// Agora's VIDEO_MIRROR_MODE_TYPE: AUTO (0: mirrored for the local preview,
    /// not for remote users), ENABLED (1), DISABLED (2).
    public var mirrorMode: Int = 0
    /// The size of the host's view; 0 x 0 hands pictures over at their own size.
    public var viewWidth = 0
    public var viewHeight = 0
    /// Receives every picture (uid 0 for the local preview), on the engine's video thread.
    public var deliver: (UInt32, VideoFrameView) -> Void

    public init(renderMode: Int = 1, mirrorMode: Int = 0, viewWidth: Int = 0, viewHeight: Int = 0,
                deliver: @escaping (UInt32, VideoFrameView) -> Void) {
        self.renderMode = renderMode
        self.mirrorMode = mirrorMode
        self.viewWidth = viewWidth
        self.viewHeight = viewHeight
        self.deliver = deliver
    }

    /// Whether the canvas needs its own copy of a picture (mirror or view size).
    func transforms(local: Bool) -> Bool { mirrored(local: local) || (viewWidth > 0 && viewHeight > 0) }

    func mirrored(local: Bool) -> Bool { mirrorMode == 1 || (mirrorMode == 0 && local) }

    /// The picture as this canvas shows it.
    func apply(_ frame: I420Frame, local: Bool) -> I420Frame {
        var f = frame
        if viewWidth > 0 && viewHeight > 0 {
            f = PixelConversion.rendered(f, mode: renderMode, width: viewWidth & ~1, height: viewHeight & ~1)
        }
        return mirrored(local: local) ? PixelConversion.mirrored(f) : f
    }
}

/// Raw video frames (Agora's IVideoFrameObserver). Each callback returns true
/// to keep the frame, false to drop it (not sent, or not rendered).
public struct VideoFrameObserver {
    /// Agora's observed-position bits: POST_CAPTURER (1), PRE_RENDERER (2), PRE_ENCODER (4).
    public var position: Int32 = 1 | 2
    /// onCaptureVideoFrame: each local picture as captured or pushed (upright), on the pushing thread.
    public var onCapture: ((VideoFrameBuffer) -> Bool)?
    /// onPreEncodeVideoFrame: each picture about to be encoded (scaled, mirrored, watermarked), on the pushing thread.
    public var onPreEncode: ((VideoFrameBuffer) -> Bool)?
    /// onRenderVideoFrame: each decoded remote picture before its render sink, on the video thread.
    public var onRender: ((UInt32, VideoFrameBuffer) -> Bool)?

    public init(position: Int32 = 1 | 2, onCapture: ((VideoFrameBuffer) -> Bool)? = nil,
                onPreEncode: ((VideoFrameBuffer) -> Bool)? = nil, onRender: ((UInt32, VideoFrameBuffer) -> Bool)? = nil) {
        self.position = position
        self.onCapture = onCapture
        self.onPreEncode = onPreEncode
        self.onRender = onRender
    }
}

/// Agora's VideoEncoderConfiguration.
public struct VideoEncoderConfiguration: Equatable, Sendable {
    /// The largest picture sent (in the orientation the orientation mode picks);
    /// pushed frames that are smaller are sent at their own size.
    public var width = 640
    public var height = 360
    public var frameRate = 15
    /// Kbps; 0 (STANDARD_BITRATE) picks Agora's base rate for the size and frame rate
    /// (twice it in live broadcasting), -1 (COMPATIBLE_BITRATE) the base rate in both.
    public var bitrate = 0
    public var minBitrate = -1
    public var codec = VideoCodec.vp8
    /// ORIENTATION_MODE: ADAPTIVE (0), FIXED_LANDSCAPE (1), FIXED_PORTRAIT (2).
    public var orientationMode = 0
    /// DEGRADATION_PREFERENCE: MAINTAIN_QUALITY (0), MAINTAIN_FRAMERATE (1), MAINTAIN_BALANCED (2).
    public var degradationPreference = 0
    /// VIDEO_MIRROR_MODE of the sent stream: AUTO (0, not mirrored), ENABLED (1), DISABLED (2).
    public var mirrorMode = 0

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

    /// The box a picture of `width` x `height` is fitted into, and the aspect
    /// ratio it is cropped to first (nil: none). ADAPTIVE turns the configured
    /// box to the picture's orientation; the FIXED modes keep theirs and crop
    /// a picture of the other orientation around its centre.
    func box(forPictureOf w: Int, _ h: Int) -> (width: Int, height: Int, cropToBox: Bool) {
        let long = max(width, height), short = min(width, height)
        switch orientationMode {
        case 1: return (long, short, h > w)
        case 2: return (short, long, w > h)
        default: return h > w ? (short, long, false) : (long, short, false)
        }
    }

    /// The low stream of dual-stream mode: the picture fitted inside 320 x 180
    /// (its orientation kept, never larger than the high stream), half the frame
    /// rate (at least 5 and at most the high rate), at Agora's base bitrate.
    static func lowStream(width: Int, height: Int, frameRate: Int) -> (width: Int, height: Int, frameRate: Int, kbps: Int) {
        let (bw, bh) = width >= height ? (320, 180) : (180, 320)
        let (w, h) = PixelConversion.fitting(width: width, height: height, within: bw, bh)
        let fps = min(frameRate, max(5, frameRate / 2))
        return (w, h, fps, baseBitrate(width: w, height: h, frameRate: fps))
    }

    /// A simulcast layer for a picture of `width` x `height` at `frameRate`:
    /// the picture fitted into the layer's size (never enlarged), at the
    /// layer's frame rate (never above the high stream's), at the base rate.
    static func layer(_ l: SimulcastLayer, width: Int, height: Int, frameRate: Int)
        -> (width: Int, height: Int, frameRate: Int, kbps: Int) {
        let (fw, fh) = PixelConversion.fitting(width: width, height: height, within: min(width, l.width),
                                              min(height, l.height))
        let (w, h) = (max(16, fw & ~1), max(16, fh & ~1))
        let fps = min(frameRate, l.frameRate)
        return (w, h, fps, baseBitrate(width: w, height: h, frameRate: fps))
    }
}

/// One entry of Agora's SimulcastConfig: a layer's size, frame rate and whether it is sent.
public struct SimulcastLayerConfig: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var frameRate: Int
    public var enabled: Bool

    public init(width: Int, height: Int, frameRate: Int, enabled: Bool) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.enabled = enabled
    }
}

/// A simulcast layer the engine sends: its stream type (`VideoStreamLayer`:
/// 1 the low stream, 4...9 LAYER_1...LAYER_6), the box it fits into and its frame rate.
struct SimulcastLayer: Sendable, Equatable {
    var type: UInt8
    var width: Int
    var height: Int
    var frameRate: Int

    /// Dual stream's low stream (enableDualStreamMode): no box of its own, its shape follows the picture.
    static let dualStreamLow = SimulcastLayer(type: VideoStreamLayer.low, width: 0, height: 0, frameRate: 0)

    /// What this stream is for a picture of `width` x `height` at `frameRate`:
    /// dual stream's low stream, or the layer's box and frame rate.
    func shape(width: Int, height: Int, frameRate: Int) -> (width: Int, height: Int, frameRate: Int, kbps: Int) {
        self == Self.dualStreamLow
            ? VideoEncoderConfiguration.lowStream(width: width, height: height, frameRate: frameRate)
            : VideoEncoderConfiguration.layer(self, width: width, height: height, frameRate: frameRate)
    }
}

/// Agora's LocalVideoStats (onLocalVideoStats, every 2 s in a call).
public struct LocalVideoStats: Sendable, Equatable {
    public init() {}
    /// Kbps sent (RTP, the low stream included) over the period.
    public var sentBitrate: Int32 = 0
    /// Frames per second sent (high stream).
    public var sentFrameRate: Int32 = 0
    /// Frames per second out of the encoder (high stream).
    public var encoderOutputFrameRate: Int32 = 0
    /// Frames per second handed to the local preview sink.
    public var rendererOutputFrameRate: Int32 = 0
    /// Kbps and frames per second the encoder aims at.
    public var targetBitrate: Int32 = 0
    public var targetFrameRate: Int32 = 0
    /// Kbps of encoded video (payload only, high stream).
    public var encodedBitrate: Int32 = 0
    public var encodedFrameWidth: Int32 = 0
    public var encodedFrameHeight: Int32 = 0
    /// Frames encoded since the call started (high stream).
    public var encodedFrameCount: Int32 = 0
    /// Agora's codec numbers: VP8 1; VP9 here is 5.
    public var codecType: Int32 = 1
    /// Frames per second captured or pushed.
    public var captureFrameRate: Int32 = 0
}

/// Agora's RemoteVideoStats (onRemoteVideoStats, every 2 s in a call).
public struct RemoteVideoStats: Sendable, Equatable {
    public init() {}
    public var uid: UInt32 = 0
    public var width: Int32 = 0
    public var height: Int32 = 0
    /// Kbps received (RTP) over the period.
    public var receivedBitrate: Int32 = 0
    public var decoderOutputFrameRate: Int32 = 0
    public var rendererOutputFrameRate: Int32 = 0
    /// Percent of the period's packets lost (before recovery).
    public var packetLossRate: Int32 = 0
    /// The stream received: 0 high, 1 low.
    public var rxStreamType: Int32 = 0
    /// Ms of frozen video since the user's video started: the sum of the gaps of
    /// 500 ms or more between two rendered pictures.
    public var totalFrozenTime: Int32 = 0
    /// totalFrozenTime as a percent of totalActiveTime.
    public var frozenRate: Int32 = 0
    /// Ms since the first picture of this user, muted time excluded.
    public var totalActiveTime: Int32 = 0
    /// Ms since the first packet of this user's video.
    public var publishDuration: Int32 = 0
}

/// Something the video path reports (Agora's video callbacks), on the event thread.
public enum VideoEvent: Sendable, Equatable {
    /// onFirstLocalVideoFrame: the first local picture captured or pushed after video was enabled.
    case firstLocalVideoFrame(width: Int32, height: Int32, elapsedMs: Int32)
    /// onFirstLocalVideoFramePublished: the first video frame sent in this call.
    case firstLocalVideoFramePublished(elapsedMs: Int32)
    /// onFirstRemoteVideoDecoded: the first picture of a remote user decoded.
    case firstRemoteVideoDecoded(uid: UInt32, width: Int32, height: Int32, elapsedMs: Int32)
    /// onFirstRemoteVideoFrame: the first picture of a remote user handed to its render sink.
    case firstRemoteVideoFrame(uid: UInt32, width: Int32, height: Int32, elapsedMs: Int32)
    /// onVideoSizeChanged: a picture size changed (uid 0: the local stream sent).
    case videoSizeChanged(uid: UInt32, width: Int32, height: Int32)
    /// onLocalVideoStateChanged: LOCAL_VIDEO_STREAM_STATE and LOCAL_VIDEO_STREAM_ERROR.
    case localVideoStateChanged(state: Int32, error: Int32)
    /// onRemoteVideoStateChanged: REMOTE_VIDEO_STATE and REMOTE_VIDEO_STATE_REASON.
    case remoteVideoStateChanged(uid: UInt32, state: Int32, reason: Int32, elapsedMs: Int32)
    /// onLocalVideoStats.
    case localVideoStats(LocalVideoStats)
    /// onRemoteVideoStats.
    case remoteVideoStats(RemoteVideoStats)
    /// onSnapshotTaken: uid 0 is the local picture; error 0 on success, else an Agora error (negative).
    case snapshotTaken(uid: UInt32, path: String, width: Int32, height: Int32, error: Int32)
    /// onLocalPublishFallbackToAudioOnly: the uplink could not carry video (true) or can again (false).
    case localPublishFallback(isFallback: Bool)
    /// onRemoteSubscribeFallbackToAudioOnly: the downlink carries only `uid`'s audio (true) or its video again (false).
    case remoteSubscribeFallback(uid: UInt32, isFallback: Bool)
}

/// What is known of an encoded video frame (Agora's EncodedVideoFrameInfo).
public struct EncodedVideoFrameInfo: Sendable, Equatable {
    /// The codec.
    public var codec: VideoCodec = .vp8
    /// The picture width; 0 where the frame does not carry it (delta frames, received VP9).
    public var width = 0
    /// The picture height; 0 where the frame does not carry it.
    public var height = 0
    /// Agora's VIDEO_FRAME_TYPE: KEY_FRAME (3) or DELTA_FRAME (4).
    public var frameType: Int32 = 4
    /// Clockwise rotation the receiver applies: 0, 90, 180 or 270.
    public var rotation = 0
    /// The capture time in ms (received: the RTP timestamp in ms, on the sender's clock).
    public var captureTimeMs: Int64 = 0
    /// The sender (received frames; 0 when sending).
    public var uid: UInt32 = 0

    /// A delta VP8 frame of unknown size, captured at 0.
    public init() {}

    /// Whether the frame decodes on its own.
    public var isKeyframe: Bool { frameType == 3 }
}

/// Sees each remote video frame as received, before it is decoded (Agora's
/// IVideoEncodedFrameObserver), on the connection's video thread.
public typealias EncodedVideoFrameObserver = @Sendable ([UInt8], EncodedVideoFrameInfo) -> Void
