import AgoraishMedia
import AgoraishSession
import AgoraishWire

/// Video: switches, the encoder configuration, the external source and remote
/// render sinks (Agora's names).
extension RtcEngine {
    /// enableVideo / disableVideo: video is off by default. While off, pushed
    /// frames are not sent and received video is not decoded.
    public func setVideoEnabled(_ enabled: Bool) {
        video.settings.withLock { $0.enabled = enabled }
        afterLocalVideoChange()
        log.log(.info, "api \(enabled ? "enableVideo" : "disableVideo")")
    }

    /// enableLocalVideo: sending on or off (on by default); receiving goes on.
    public func enableLocalVideo(_ enabled: Bool) {
        video.settings.withLock { $0.localEnabled = enabled }
        afterLocalVideoChange()
        log.log(.info, "api enableLocalVideo \(enabled)")
    }

    /// muteLocalVideoStream: stop or resume sending; pushes still succeed.
    public func muteLocalVideoStream(_ mute: Bool) {
        video.settings.withLock { $0.localMuted = mute }
        afterLocalVideoChange()
        log.log(.info, "api muteLocalVideoStream \(mute)")
    }

    /// Others see this user's video muted while video is disabled, stopped or muted.
    private func afterLocalVideoChange() {
        let (enabled, local, muted) = video.settings.withLock { ($0.enabled, $0.localEnabled, $0.localMuted) }
        // The next frame sent after a pause starts with a keyframe.
        if !enabled || !local || muted { video.resetSend() }
        try? link.call { s, _ throws(SessionError) in s.setLocalVideoMuted(!enabled || !local || muted) }
    }

    /// muteRemoteVideoStream: stop or resume receiving one user's video (the server stops forwarding it).
    public func muteRemoteVideoStream(uid: UInt32, mute: Bool) throws(AgoraError) {
        guard uid != 0 else { throw .invalidArgument }
        try changeVideoPolicy { s throws(SessionError) in try s.muteRemoteVideo(uid: uid, mute) }
        log.log(.info, "api muteRemoteVideoStream \(uid) \(mute)")
    }

    /// muteAllRemoteVideoStreams: everyone's video, including users who join later.
    public func muteAllRemoteVideoStreams(_ mute: Bool) throws(AgoraError) {
        try changeVideoPolicy { s throws(SessionError) in s.muteAllRemoteVideo(mute) }
        log.log(.info, "api muteAllRemoteVideoStreams \(mute)")
    }

    /// setDefaultMuteAllRemoteVideoStreams: whether users who join later start muted.
    public func setDefaultMuteAllRemoteVideoStreams(_ mute: Bool) throws(AgoraError) {
        try changeVideoPolicy { s throws(SessionError) in s.setDefaultMuteAllRemoteVideo(mute) }
        log.log(.info, "api setDefaultMuteAllRemoteVideoStreams \(mute)")
    }

    private func changeVideoPolicy(_ body: (inout ClientSession) throws(SessionError) -> Void) throws(AgoraError) {
        let policy: ClientSession.AudioReceivePolicy
        do {
            policy = try link.call { s, _ throws(SessionError) in
                try body(&s)
                return s.videoPolicy
            }
        } catch {
            throw Self.map(error)
        }
        video.settings.withLock { $0.blocked = { policy.blocks($0) } }
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
