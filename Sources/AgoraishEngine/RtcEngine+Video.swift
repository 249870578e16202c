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
        if !enabled { video.resetReceive() }
        afterLocalVideoChange()
        log.log(.info, "api \(enabled ? "enableVideo" : "disableVideo")")
        // The engine's switch holds for its connections, except those publishing a custom video track.
        for c in connections.withLock({ Array($0.values) }) where c.tracks.withLock({ $0.publishedVideo == nil }) {
            c.setVideoEnabled(enabled)
        }
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

    /// Others see this user's video muted while video is disabled, stopped or
    /// muted; they also learn which of the three it is (onUserEnableVideo,
    /// onUserEnableLocalVideo, onUserMuteVideo).
    private func afterLocalVideoChange() {
        let (enabled, local, muted, dual) = video.settings.withLock { ($0.enabled, $0.localEnabled, $0.localMuted, $0.sendsLow) }
        // The next frame sent after a pause starts with a keyframe.
        if !enabled || !local || muted { video.resetSend() }
        if !enabled || !local { video.localStopped() }
        let ssrcs = video.ssrcs
        let layers = video.layerStreams
        try? link.call { s, _ throws(SessionError) in
            // The layers first: the state message that follows carries both.
            s.setLocalVideoLayers(layers)
            s.setLocalVideoState(enabled: enabled, localEnabled: local, streamMuted: muted,
                                 ssrc: ssrcs.high, lowSsrc: dual ? ssrcs.low : 0,
                                 rtxSsrc: ssrcs.highRtx, lowRtxSsrc: dual ? ssrcs.lowRtx : 0)
        }
        camera.update()
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
        video.policyChanged(blocked: { policy.blocks($0) }, known: link.read { Array($0.remoteUsers) })
    }

    /// setVideoEncoderConfiguration.
    ///
    /// - Throws: `.invalidArgument` for dimensions outside 16...4096 (even),
    ///   a frame rate outside 1...60, a bitrate below -1 or above 100000, or an
    ///   unknown codec.
    public func setVideoEncoderConfiguration(_ c: VideoEncoderConfiguration) throws(AgoraError) {
        guard (16...4096).contains(c.width), (16...4096).contains(c.height), c.width % 2 == 0, c.height % 2 == 0,
              (1...60).contains(c.frameRate), (-1...100_000).contains(c.bitrate), (-1...100_000).contains(c.minBitrate),
              (0...2).contains(c.orientationMode), (0...3).contains(c.degradationPreference), (0...2).contains(c.mirrorMode)
        else { throw .invalidArgument }
        video.settings.withLock { $0.configuration = c }
        log.log(.info, "api setVideoEncoderConfiguration \(c.width)x\(c.height)@\(c.frameRate) \(c.bitrate) kbps")
    }

    /// setExternalVideoSource: frames come from the host.
    public func setExternalVideoSource(enabled: Bool) {
        video.settings.withLock { $0.externalSource = enabled }
        camera.update()
        log.log(.info, "api setExternalVideoSource \(enabled)")
    }

    /// pushExternalVideoFrame: one picture in any `VideoPixelFormat`, turned
    /// clockwise by `rotation` (0, 90, 180, 270) to stand upright. It is
    /// converted to I420 (libyuv), observed, previewed and, in a call, fitted
    /// to the encoder configuration and sent.
    ///
    /// - Throws: `.notReady` without an external source; `.invalidArgument` for
    ///   a size outside 16...4096 (even), planes and strides that do not fit
    ///   it, or another rotation.
    public func pushExternalVideoFrame(_ source: PictureSource, rotation: Int = 0, timestampMs: Int64) throws(AgoraError) {
        try pushExternalVideoFrame(source, rotation: rotation, timestampMs: timestampMs, followers: [])
    }

    /// pushExternalVideoFrame, encoding for `followers` too (connections
    /// publishing the same custom video track send the frames encoded here).
    func pushExternalVideoFrame(_ source: PictureSource, rotation: Int, timestampMs: Int64,
                                followers: [VideoPipeline]) throws(AgoraError) {
        guard (16...4096).contains(source.width), (16...4096).contains(source.height), source.isComplete,
              [0, 90, 180, 270].contains(rotation) else {
            throw .invalidArgument
        }
        guard video.settings.withLock({ $0.externalSource }) else { throw .notReady }
        guard let frame = PixelConversion.i420(source), let upright = PixelConversion.rotated(frame, degrees: rotation) else {
            throw .invalidArgument
        }
        video.settings.withLock { $0.liveBroadcasting = link.read { $0.profile } == 1 }
        try video.capture(upright, timestampMs: timestampMs, followers: followers)
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
        try setupRemoteVideo(uid: uid, canvas: sink.map { VideoCanvas(deliver: $0) })
    }

    /// setupRemoteVideo with a canvas (render mode, mirror mode, view size); nil unbinds.
    ///
    /// - Throws: `.invalidArgument` for uid 0, an unknown render or mirror mode,
    ///   or a view size outside 0...4096.
    public func setupRemoteVideo(uid: UInt32, canvas: VideoCanvas?) throws(AgoraError) {
        guard uid != 0 else { throw .invalidArgument }
        if let canvas { try Self.check(canvas) }
        video.settings.withLock { $0.sinks[uid] = canvas }
        if canvas == nil {
            // Wait for a picture being delivered to the old sink.
            video.barrier()
        }
        log.log(.info, "api setupRemoteVideo \(uid) \(canvas == nil ? "unbound" : "bound")")
    }

    /// setupLocalVideo: the preview sink (uid 0 in its callback), mirrored by
    /// default; nil unbinds. Pictures reach it after startPreview, or in a
    /// call while local video is on.
    public func setupLocalVideo(canvas: VideoCanvas?) throws(AgoraError) {
        if let canvas { try Self.check(canvas) }
        video.settings.withLock { $0.localCanvas = canvas }
        if canvas == nil { video.barrier() }
        log.log(.info, "api setupLocalVideo \(canvas == nil ? "unbound" : "bound")")
    }

    /// setLocalRenderMode / setRemoteRenderMode: the render and mirror mode of a
    /// bound canvas (uid 0: the local one).
    ///
    /// - Throws: `.invalidArgument` for unknown modes; `.notReady` when no canvas is bound.
    public func setRenderMode(uid: UInt32, renderMode: Int, mirrorMode: Int) throws(AgoraError) {
        guard [1, 2, 3, 4].contains(renderMode), (0...2).contains(mirrorMode) else { throw .invalidArgument }
        try video.settings.withLock { s throws(AgoraError) in
            if uid == 0 {
                guard s.localCanvas != nil else { throw .notReady }
                s.localCanvas!.renderMode = renderMode
                s.localCanvas!.mirrorMode = mirrorMode
            } else {
                guard s.sinks[uid] != nil else { throw .notReady }
                s.sinks[uid]!.renderMode = renderMode
                s.sinks[uid]!.mirrorMode = mirrorMode
            }
        }
    }

    private static func check(_ c: VideoCanvas) throws(AgoraError) {
        let noView = c.viewWidth == 0 && c.viewHeight == 0
        guard [1, 2, 3, 4].contains(c.renderMode), (0...2).contains(c.mirrorMode),
              noView || ((2...4096).contains(c.viewWidth) && (2...4096).contains(c.viewHeight))
        else { throw .invalidArgument }
    }

    /// startPreview / stopPreview: local pictures reach the local canvas
    /// outside calls too. Survives leaving the channel.
    public func setPreview(_ on: Bool) {
        video.settings.withLock { $0.previewing = on }
        camera.update()
        log.log(.info, "api \(on ? "startPreview" : "stopPreview")")
    }

    /// registerVideoFrameObserver (nil unregisters). Returns once no callback of
    /// the previous observer runs on the video thread.
    public func registerVideoFrameObserver(_ observer: VideoFrameObserver?) throws(AgoraError) {
        if let observer {
            guard observer.position & ~7 == 0 else { throw .invalidArgument }
        }
        video.settings.withLock { $0.observer = observer }
        if observer == nil { video.barrier() }
        log.log(.info, "api registerVideoFrameObserver \(observer == nil ? "off" : "on")")
    }

    /// enableDualStreamMode: also send a low stream (docs/video.md). Subscribers
    /// choose with setRemoteVideoStreamType.
    public func enableDualStreamMode(_ enabled: Bool) {
        video.settings.withLock { $0.dualStream = enabled }
        video.resetSend()
        afterLocalVideoChange()
        log.log(.info, "api enableDualStreamMode \(enabled)")
    }

    /// setLocalPublishFallbackOption: DISABLED (0) keeps sending video
    /// whatever the uplink; AUDIO_ONLY (2) stops it while the uplink's
    /// estimate leaves less than 60 kbps for video, and resumes it once twice
    /// that has been available for 2 s (onLocalPublishFallbackToAudioOnly).
    ///
    /// - Throws: `.invalidArgument` for any other option (VIDEO_STREAM_LOW applies to subscribing only).
    public func setLocalPublishFallbackOption(_ option: Int) throws(AgoraError) {
        guard option == 0 || option == 2 else { throw .invalidArgument }
        video.settings.withLock { $0.publishFallback = option }
        log.log(.info, "api setLocalPublishFallbackOption \(option)")
    }

    /// setRemoteSubscribeFallbackOption: what the server may withhold when
    /// this downlink is short: DISABLED (0) nothing, VIDEO_STREAM_LOW (1, the
    /// default) the high stream of dual-stream publishers, AUDIO_ONLY (2) the
    /// low stream too (onRemoteSubscribeFallbackToAudioOnly).
    public func setRemoteSubscribeFallbackOption(_ option: Int) throws(AgoraError) {
        guard (0...2).contains(option) else { throw .invalidArgument }
        try changeVideoPolicy { s throws(SessionError) in try s.setRemoteSubscribeFallbackOption(option) }
        log.log(.info, "api setRemoteSubscribeFallbackOption \(option)")
    }

    /// setRemoteUserPriority: PRIORITY_HIGH (50) serves `uid`'s video first
    /// when the downlink is shared out; one user at most (the last named).
    /// PRIORITY_NORMAL (100) takes it back.
    public func setRemoteUserPriority(uid: UInt32, priority: Int) throws(AgoraError) {
        guard uid != 0, priority == 50 || priority == 100 else { throw .invalidArgument }
        try changeVideoPolicy { s throws(SessionError) in try s.setRemoteUserPriority(uid: uid, high: priority == 50) }
        log.log(.info, "api setRemoteUserPriority \(uid) \(priority)")
    }

    /// setRemoteVideoStreamType: receive the high (0) or low (1) stream of
    /// `uid`, or a simulcast layer (4...9, LAYER_1...LAYER_6). The server
    /// switches at the next keyframe of the chosen stream; a layer the
    /// publisher does not send gives the best one below it it sends (else its
    /// lowest).
    public func setRemoteVideoStreamType(uid: UInt32, type: Int) throws(AgoraError) {
        guard uid != 0, VideoStreamLayer.isValid(Int64(type)) else { throw .invalidArgument }
        try changeVideoPolicy { s throws(SessionError) in try s.setRemoteVideoStreamType(uid: uid, layer: UInt8(type)) }
        log.log(.info, "api setRemoteVideoStreamType \(uid) \(type)")
    }

    /// setRemoteDefaultVideoStreamType: the stream received of users not named
    /// by setRemoteVideoStreamType (0, 1 or 4...9 as there).
    public func setRemoteDefaultVideoStreamType(_ type: Int) throws(AgoraError) {
        guard VideoStreamLayer.isValid(Int64(type)) else { throw .invalidArgument }
        try changeVideoPolicy { s throws(SessionError) in try s.setRemoteDefaultVideoStreamType(layer: UInt8(type)) }
        log.log(.info, "api setRemoteDefaultVideoStreamType \(type)")
    }

    /// setSimulcastConfig (docs/video.md, Simulcast): besides the high stream
    /// (the encoder configuration) the engine sends each enabled layer of
    /// `layers`, at most three: STREAM_LAYER_1...STREAM_LAYER_6 (indices
    /// 0...5, received as stream types 4...9) and STREAM_LOW (index 6, the
    /// low stream, type 1). Each layer is the picture scaled to fit its size
    /// (never enlarged) at its frame rate (never above the high stream's),
    /// at the base bitrate for that size. A configuration with no layer
    /// enabled goes back to enableDualStreamMode's choice.
    ///
    /// - Throws: `.invalidArgument` for more than seven entries or three
    ///   enabled layers, a size outside 16...3840 x 16...2160 or a frame rate
    ///   outside 1...60 in an enabled layer.
    public func setSimulcastConfig(_ layers: [SimulcastLayerConfig]) throws(AgoraError) {
        guard layers.count <= 7 else { throw .invalidArgument }
        var enabled: [SimulcastLayer] = []
        for (index, l) in layers.enumerated() where l.enabled {
            guard (16...3840).contains(l.width), (16...2160).contains(l.height), (1...60).contains(l.frameRate) else {
                ErrorDetail.set("layer \(index): size 16...3840 x 16...2160 and frame rate 1...60")
                throw .invalidArgument
            }
            enabled.append(SimulcastLayer(type: index == 6 ? VideoStreamLayer.low : UInt8(index + 4),
                                          width: l.width & ~1, height: l.height & ~1, frameRate: l.frameRate))
        }
        guard enabled.count <= 3 else {
            ErrorDetail.set("at most three layers besides the high stream")
            throw .invalidArgument
        }
        video.setSimulcast(enabled)
        video.resetSend()
        afterLocalVideoChange()
        log.log(.info, "api setSimulcastConfig \(enabled.map { "\($0.type):\($0.width)x\($0.height)@\($0.frameRate)" })")
    }

    /// takeSnapshot: the next picture of `uid` (0: the local one) is written to
    /// `path` (.jpg / .jpeg: JPEG, .png: PNG); onSnapshotTaken reports it.
    ///
    /// - Throws: `.invalidArgument` for an empty path or another extension;
    ///   `.notInChannel` outside a call; `.tooOften` with 8 snapshots of that user waiting.
    public func takeSnapshot(uid: UInt32, path: String) throws(AgoraError) {
        let lower = path.lowercased()
        guard !path.isEmpty, [".jpg", ".jpeg", ".png"].contains(where: { lower.hasSuffix($0) }) else {
            throw .invalidArgument
        }
        guard video.settings.withLock({ $0.inCall }) else { throw .notInChannel }
        guard video.requestSnapshot(uid: uid, path: path) else { throw .tooOften }
        log.log(.info, "api takeSnapshot \(uid)")
    }

    /// addVideoWatermark: a PNG blended into the sent picture (and the preview
    /// when `visibleInPreview`) at a rectangle chosen by the picture's
    /// orientation. One watermark at a time: a new one replaces the old.
    ///
    /// - Throws: `.invalidArgument` for a file that is not a readable PNG or
    ///   rectangles with a negative origin or a size outside 1...4096.
    public func addVideoWatermark(path: String, visibleInPreview: Bool,
                                  landscape: (x: Int, y: Int, width: Int, height: Int),
                                  portrait: (x: Int, y: Int, width: Int, height: Int)) throws(AgoraError) {
        for r in [landscape, portrait] {
            guard r.x >= 0, r.y >= 0, r.x <= 4096, r.y <= 4096, (1...4096).contains(r.width), (1...4096).contains(r.height)
            else { throw .invalidArgument }
        }
        let image: RGBAImage
        do { image = try ImageFile.readPNG(path: path) } catch { throw .invalidArgument }
        video.settings.withLock {
            $0.watermark = .init(image: image, landscape: landscape, portrait: portrait, visibleInPreview: visibleInPreview)
        }
        log.log(.info, "api addVideoWatermark \(image.width)x\(image.height)")
    }

    /// clearVideoWatermarks.
    public func clearVideoWatermarks() {
        video.settings.withLock { $0.watermark = nil }
        log.log(.info, "api clearVideoWatermarks")
    }

    var camera: CameraController { video.camera }

    // MARK: - Cameras

    /// enumerateVideoDevices: the V4L2 capture devices (empty without a camera).
    public func videoDevices() -> [CameraDevice] { camera.devices() }

    /// setDevice (video): the camera to use from now on, by id (its /dev path).
    ///
    /// - Throws: `.invalidArgument` for an empty id or one longer than 511 bytes.
    public func setVideoDevice(_ id: String) throws(AgoraError) {
        guard !id.isEmpty, id.utf8.count < 512 else { throw .invalidArgument }
        camera.device = id
        camera.restartIfMoved()
    }

    /// getDevice (video): the chosen camera, else the first one found; nil without any.
    public func videoDevice() -> String? { camera.device ?? camera.devices().first?.id }

    /// setCameraCapturerConfiguration: capture size preference (before the camera starts).
    ///
    /// - Throws: `.invalidArgument` for an unknown preference or a size outside 16...4096.
    public func setCameraCapturerConfiguration(preference: Int, width: Int, height: Int) throws(AgoraError) {
        guard (0...3).contains(preference), (16...4096).contains(width), (16...4096).contains(height) else {
            throw .invalidArgument
        }
        camera.configuration = .init(preference: preference, width: width, height: height)
    }

    /// switchCamera: the next camera (round robin).
    ///
    /// - Throws: `.notSupported` with fewer than two cameras.
    public func switchCamera() throws(AgoraError) {
        guard camera.switchToNext() else { throw .notSupported }
    }

    /// True when called from the engine's video thread (inside a render sink).
    public var isOnVideoThread: Bool { video.loop.inLoop }
}
