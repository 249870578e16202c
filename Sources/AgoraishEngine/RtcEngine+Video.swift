import AgoraishMedia
import AgoraishWire

/// Video: switches, the encoder configuration, the external source and remote
/// render sinks (Agora's names).
extension RtcEngine {
    /// enableVideo / disableVideo: video is off by default. While off, pushed
    /// frames are not sent and received video is not decoded.
    public func setVideoEnabled(_ enabled: Bool) {
        video.settings.withLock { $0.enabled = enabled }
        if !enabled { video.resetSend() }
        log.log(.info, "api \(enabled ? "enableVideo" : "disableVideo")")
    }

    /// setVideoEncoderConfiguration.
    ///
    /// - Throws: `.invalidArgument` for dimensions outside 16...4096 (even),
    ///   a frame rate outside 1...60, a bitrate below -1 or above 100000, or an
    ///   unknown codec.
    public func setVideoEncoderConfiguration(_ c: VideoEncoderConfiguration) throws(AgoraError) {
        guard (16...4096).contains(c.width), (16...4096).contains(c.height), c.width % 2 == 0, c.height % 2 == 0,
              (1...60).contains(c.frameRate), (-1...100_000).contains(c.bitrate), (-1...100_000).contains(c.minBitrate),
              // VP9 encodes, but its RTP payload format is not written yet: VP8 only for now.
              c.codec == .vp8
        else { throw .invalidArgument }
        video.settings.withLock { $0.configuration = c }
        log.log(.info, "api setVideoEncoderConfiguration \(c.width)x\(c.height)@\(c.frameRate) \(c.bitrate) kbps")
    }

    /// setExternalVideoSource: frames come from the host.
    public func setExternalVideoSource(enabled: Bool) {
        video.settings.withLock { $0.externalSource = enabled }
        log.log(.info, "api setExternalVideoSource \(enabled)")
    }

    /// pushExternalVideoFrame: one picture in any `VideoPixelFormat`. It is
    /// converted to I420 (libyuv) and, when larger than the configured
    /// dimensions, scaled down to fit inside them with its aspect ratio kept.
    ///
    /// - Throws: `.notReady` without an external source; `.invalidArgument` for
    ///   a size outside 16...4096 (even) or planes and strides that do not fit it.
    public func pushExternalVideoFrame(_ source: PictureSource, timestampMs: Int64) throws(AgoraError) {
        guard (16...4096).contains(source.width), (16...4096).contains(source.height), source.isComplete else {
            throw .invalidArgument
        }
        guard video.settings.withLock({ $0.externalSource }) else { throw .notReady }
        guard var frame = PixelConversion.i420(source) else { throw .invalidArgument }
        let c = video.settings.withLock { $0.configuration }
        let (w, h) = PixelConversion.fitting(width: frame.width, height: frame.height, within: c.width, c.height)
        frame = PixelConversion.scaled(frame, width: w, height: h)
        video.settings.withLock { $0.liveBroadcasting = link.read { $0.profile } == 1 }
        try video.push(frame, timestampMs: timestampMs)
    }

    /// pushExternalVideoFrame for I420 planes with their strides.
    public func pushExternalVideoFrame(width: Int, height: Int, y: UnsafeRawPointer, yStride: Int,
                                       u: UnsafeRawPointer, uStride: Int, v: UnsafeRawPointer, vStride: Int,
                                       timestampMs: Int64) throws(AgoraError) {
        try pushExternalVideoFrame(PictureSource(format: .i420, width: width, height: height, plane0: y, stride0: yStride,
                                                 plane1: u, stride1: uStride, plane2: v, stride2: vStride),
                                   timestampMs: timestampMs)
    }

    /// setupRemoteVideo: `sink` receives every decoded picture of `uid`, on the
    /// engine's video thread; nil unbinds.
    public func setupRemoteVideo(uid: UInt32, sink: ((UInt32, VideoFrameView) -> Void)?) throws(AgoraError) {
        guard uid != 0 else { throw .invalidArgument }
        video.settings.withLock { $0.sinks[uid] = sink.map { VideoPipeline.Sink(deliver: $0) } }
        if sink == nil {
            // Wait for a picture being delivered to the old sink.
            video.barrier()
        }
        log.log(.info, "api setupRemoteVideo \(uid) \(sink == nil ? "unbound" : "bound")")
    }

    /// True when called from the engine's video thread (inside a render sink).
    public var isOnVideoThread: Bool { video.loop.inLoop }
}
