import AgoraishEngine
import AgoraishMedia
import CAgoraishABI

// The video functions of include/agoraish.h.

@_cdecl("agoraish_engine_enable_video")
public func abi_engine_enable_video(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in engine.setVideoEnabled(true) }
}

@_cdecl("agoraish_engine_disable_video")
public func abi_engine_disable_video(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in engine.setVideoEnabled(false) }
}

@_cdecl("agoraish_engine_set_video_encoder_configuration")
public func abi_engine_set_video_encoder_configuration(
    _ p: OpaquePointer?, _ config: UnsafePointer<agoraish_video_encoder_configuration>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let c = readVersioned(config, minimumSize: MemoryLayout<agoraish_video_encoder_configuration>.size),
              c.codec_type == 0 || c.codec_type == 1 else { throw .invalidArgument }
        var v = VideoEncoderConfiguration()
        v.width = Int(c.width)
        v.height = Int(c.height)
        v.frameRate = Int(c.frame_rate)
        v.bitrate = Int(c.bitrate)
        v.minBitrate = Int(c.min_bitrate)
        v.codec = .vp8
        try engine.setVideoEncoderConfiguration(v)
    }
}

@_cdecl("agoraish_engine_set_external_video_source")
public func abi_engine_set_external_video_source(_ p: OpaquePointer?, _ enabled: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in engine.setExternalVideoSource(enabled: enabled != 0) }
}

@_cdecl("agoraish_engine_push_external_video_frame")
public func abi_engine_push_external_video_frame(_ p: OpaquePointer?,
                                                 _ frame: UnsafePointer<agoraish_external_video_frame>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let f = readVersioned(frame, minimumSize: MemoryLayout<agoraish_external_video_frame>.size),
              let format = VideoPixelFormat(rawValue: f.format), let y = f.y_buffer
        else { throw .invalidArgument }
        let source = PictureSource(format: format, width: Int(f.width), height: Int(f.height),
                                   plane0: y, stride0: Int(f.y_stride), plane1: f.u_buffer, stride1: Int(f.u_stride),
                                   plane2: f.v_buffer, stride2: Int(f.v_stride))
        try engine.pushExternalVideoFrame(source, timestampMs: f.timestamp)
    }
}

@_cdecl("agoraish_engine_setup_remote_video")
public func abi_engine_setup_remote_video(_ p: OpaquePointer?, _ canvas: UnsafePointer<agoraish_video_canvas>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let c = readVersioned(canvas, minimumSize: MemoryLayout<agoraish_video_canvas>.size) else {
            throw .invalidArgument
        }
        guard let cb = c.on_frame else {
            try engine.setupRemoteVideo(uid: c.uid, sink: nil)
            return
        }
        let ud = c.user_data
        let handle = p
        try engine.setupRemoteVideo(uid: c.uid) { uid, view in
            var frame = agoraish_video_frame()
            frame.type = 1
            frame.width = Int32(view.width)
            frame.height = Int32(view.height)
            frame.y_stride = Int32(view.yStride)
            frame.u_stride = Int32(view.uvStride)
            frame.v_stride = Int32(view.uvStride)
            frame.y_buffer = view.y.baseAddress
            frame.u_buffer = view.u.baseAddress
            frame.v_buffer = view.v.baseAddress
            frame.render_time_ms = view.renderTimeMs
            cb(handle, ud, uid, &frame)
        }
    }
}

extension CEventHandler {
    /// Calls the C callback of a video event, if the host set one.
    func deliverVideo(_ event: VideoEvent, _ engine: OpaquePointer?) {
        let ud = table.user_data
        switch event {
        case .firstLocalVideoFramePublished(let elapsed):
            table.on_first_local_video_frame_published?(engine, ud, elapsed)
        case .firstRemoteVideoDecoded(let uid, let width, let height, let elapsed):
            table.on_first_remote_video_decoded?(engine, ud, uid, width, height, elapsed)
        case .videoSizeChanged(let uid, let width, let height):
            table.on_video_size_changed?(engine, ud, uid, width, height, 0)
        }
    }
}

// MARK: - Video mutes

@_cdecl("agoraish_engine_enable_local_video")
public func abi_engine_enable_local_video(_ p: OpaquePointer?, _ enabled: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in engine.enableLocalVideo(enabled != 0) }
}

@_cdecl("agoraish_engine_mute_local_video_stream")
public func abi_engine_mute_local_video_stream(_ p: OpaquePointer?, _ mute: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in engine.muteLocalVideoStream(mute != 0) }
}

@_cdecl("agoraish_engine_mute_remote_video_stream")
public func abi_engine_mute_remote_video_stream(_ p: OpaquePointer?, _ uid: UInt32, _ mute: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.muteRemoteVideoStream(uid: uid, mute: mute != 0) }
}

@_cdecl("agoraish_engine_mute_all_remote_video_streams")
public func abi_engine_mute_all_remote_video_streams(_ p: OpaquePointer?, _ mute: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.muteAllRemoteVideoStreams(mute != 0) }
}

@_cdecl("agoraish_engine_set_default_mute_all_remote_video_streams")
public func abi_engine_set_default_mute_all_remote_video_streams(_ p: OpaquePointer?, _ mute: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setDefaultMuteAllRemoteVideoStreams(mute != 0) }
}
