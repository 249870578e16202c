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
    setVideoEncoderConfiguration(p, config, .own)
}

func setVideoEncoderConfiguration(_ p: OpaquePointer?, _ config: UnsafePointer<agoraish_video_encoder_configuration>?,
                                  _ target: Target, function: String = #function) -> Int32 {
    withEngine(p, target, function: function) { engine throws(AgoraError) in
        // ABI 0.5 callers pass the struct without the orientation, degradation and mirror fields.
        guard let c = readVersioned(config, knownSizes: StructSizes.videoEncoderConfiguration),
              [0, 1, 5].contains(c.codec_type) else { throw .invalidArgument }
        var v = VideoEncoderConfiguration()
        v.width = Int(c.width)
        v.height = Int(c.height)
        v.frameRate = Int(c.frame_rate)
        v.bitrate = Int(c.bitrate)
        v.minBitrate = Int(c.min_bitrate)
        v.codec = c.codec_type == 5 ? .vp9 : .vp8
        v.orientationMode = Int(c.orientation_mode)
        v.degradationPreference = Int(c.degradation_preference)
        v.mirrorMode = Int(c.mirror_mode)
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
        let (source, rotation, timestamp) = try readExternalVideoFrame(frame)
        try engine.pushExternalVideoFrame(source, rotation: rotation, timestampMs: timestamp)
    }
}

/// Reads an `agoraish_external_video_frame`: its planes (read during the call), rotation and time.
func readExternalVideoFrame(_ frame: UnsafePointer<agoraish_external_video_frame>?) throws(AgoraError)
    -> (PictureSource, Int, Int64) {
    guard let f = readVersioned(frame, knownSizes: StructSizes.externalVideoFrame),
          let format = VideoPixelFormat(rawValue: f.format), let y = f.y_buffer
    else { throw .invalidArgument }
    var source = PictureSource(format: format, width: Int(f.width), height: Int(f.height),
                               plane0: y, stride0: Int(f.y_stride), plane1: f.u_buffer, stride1: Int(f.u_stride),
                               plane2: f.v_buffer, stride2: Int(f.v_stride))
    if let a = f.alpha_buffer {
        guard f.alpha_stride >= f.width else {
            ErrorDetail.set("alpha_stride \(f.alpha_stride) is below the width \(f.width)")
            throw .invalidArgument
        }
        source.alpha = a
        source.alphaStride = Int(f.alpha_stride)
    }
    return (source, Int(f.rotation), f.timestamp)
}

@_cdecl("agoraish_engine_setup_remote_video")
public func abi_engine_setup_remote_video(_ p: OpaquePointer?, _ canvas: UnsafePointer<agoraish_video_canvas>?) -> Int32 {
    setupRemoteVideo(p, canvas, .own)
}

func setupRemoteVideo(_ p: OpaquePointer?, _ canvas: UnsafePointer<agoraish_video_canvas>?, _ target: Target,
                      function: String = #function) -> Int32 {
    withEngine(p, target, function: function) { engine throws(AgoraError) in
        guard let c = readCanvas(canvas) else { throw .invalidArgument }
        try engine.setupRemoteVideo(uid: c.uid, canvas: makeCanvas(c, p))
    }
}

@_cdecl("agoraish_engine_setup_local_video")
public func abi_engine_setup_local_video(_ p: OpaquePointer?, _ canvas: UnsafePointer<agoraish_video_canvas>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let c = readCanvas(canvas) else { throw .invalidArgument }
        try engine.setupLocalVideo(canvas: makeCanvas(c, p))
    }
}

/// A canvas struct of ABI 0.5 (without render mode, mirror mode and view size) or later.
func readCanvas(_ canvas: UnsafePointer<agoraish_video_canvas>?) -> agoraish_video_canvas? {
    readVersioned(canvas, knownSizes: StructSizes.videoCanvas)
}

/// The Swift canvas for a C one; nil when `on_frame` is NULL (unbind).
func makeCanvas(_ c: agoraish_video_canvas, _ handle: OpaquePointer?) -> VideoCanvas? {
    guard let cb = c.on_frame else { return nil }
    let ud = c.user_data
    return VideoCanvas(renderMode: c.render_mode == 0 ? 1 : Int(c.render_mode), mirrorMode: Int(c.mirror_mode),
                       viewWidth: Int(c.view_width), viewHeight: Int(c.view_height)) { uid, view in
        var frame = cFrame(view)
        cb(handle, ud, uid, &frame)
    }
}

/// A C frame over a read-only view (render sinks must not write it).
func cFrame(_ view: VideoFrameView) -> agoraish_video_frame {
    var frame = agoraish_video_frame()
    frame.type = 1
    frame.width = Int32(view.width)
    frame.height = Int32(view.height)
    frame.y_stride = Int32(view.yStride)
    frame.u_stride = Int32(view.uvStride)
    frame.v_stride = Int32(view.uvStride)
    frame.y_buffer = UnsafeMutablePointer(mutating: view.y.baseAddress)
    frame.u_buffer = UnsafeMutablePointer(mutating: view.u.baseAddress)
    frame.v_buffer = UnsafeMutablePointer(mutating: view.v.baseAddress)
    frame.render_time_ms = view.renderTimeMs
    if let alpha = view.alpha {
        frame.alpha_buffer = UnsafeMutablePointer(mutating: alpha.baseAddress)
        frame.alpha_stride = Int32(view.alphaStride)
    }
    return frame
}

/// A C frame over a writable observer buffer.
private func cFrame(_ b: VideoFrameBuffer) -> agoraish_video_frame {
    var frame = agoraish_video_frame()
    frame.type = 1
    frame.width = Int32(b.width)
    frame.height = Int32(b.height)
    frame.y_stride = Int32(b.yStride)
    frame.u_stride = Int32(b.uvStride)
    frame.v_stride = Int32(b.uvStride)
    frame.y_buffer = b.y.baseAddress
    frame.u_buffer = b.u.baseAddress
    frame.v_buffer = b.v.baseAddress
    frame.render_time_ms = b.renderTimeMs
    if let a = b.alpha {
        frame.alpha_buffer = a.baseAddress
        frame.alpha_stride = Int32(b.width)
    }
    return frame
}

@_cdecl("agoraish_engine_start_preview")
public func abi_engine_start_preview(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in engine.setPreview(true) }
}

@_cdecl("agoraish_engine_stop_preview")
public func abi_engine_stop_preview(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in engine.setPreview(false) }
}

@_cdecl("agoraish_engine_set_local_render_mode")
public func abi_engine_set_local_render_mode(_ p: OpaquePointer?, _ renderMode: Int32, _ mirrorMode: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.setRenderMode(uid: 0, renderMode: Int(renderMode), mirrorMode: Int(mirrorMode))
    }
}

@_cdecl("agoraish_engine_set_remote_render_mode")
public func abi_engine_set_remote_render_mode(_ p: OpaquePointer?, _ uid: UInt32, _ renderMode: Int32,
                                              _ mirrorMode: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard uid != 0 else { throw .invalidArgument }
        try engine.setRenderMode(uid: uid, renderMode: Int(renderMode), mirrorMode: Int(mirrorMode))
    }
}

@_cdecl("agoraish_engine_register_video_frame_observer")
public func abi_engine_register_video_frame_observer(
    _ p: OpaquePointer?, _ observer: UnsafePointer<agoraish_video_frame_observer>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let observer else {
            try engine.registerVideoFrameObserver(nil)
            return
        }
        guard let o = readVersioned(observer, knownSizes: StructSizes.videoFrameObserver) else {
            throw .invalidArgument
        }
        let ud = o.user_data
        let handle = p
        var v = VideoFrameObserver(position: o.observed_position == 0 ? 3 : o.observed_position)
        if let cb = o.on_capture_video_frame {
            v.onCapture = { b in
                var f = cFrame(b)
                return cb(handle, ud, &f) != 0
            }
        }
        if let cb = o.on_pre_encode_video_frame {
            v.onPreEncode = { b in
                var f = cFrame(b)
                return cb(handle, ud, &f) != 0
            }
        }
        if let cb = o.on_render_video_frame {
            v.onRender = { uid, b in
                var f = cFrame(b)
                return cb(handle, ud, uid, &f) != 0
            }
        }
        try engine.registerVideoFrameObserver(v)
    }
}

@_cdecl("agoraish_engine_enable_dual_stream_mode")
public func abi_engine_enable_dual_stream_mode(_ p: OpaquePointer?, _ enabled: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in engine.enableDualStreamMode(enabled != 0) }
}

@_cdecl("agoraish_engine_set_remote_video_stream_type")
public func abi_engine_set_remote_video_stream_type(_ p: OpaquePointer?, _ uid: UInt32, _ type: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setRemoteVideoStreamType(uid: uid, type: Int(type)) }
}

@_cdecl("agoraish_engine_set_remote_default_video_stream_type")
public func abi_engine_set_remote_default_video_stream_type(_ p: OpaquePointer?, _ type: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setRemoteDefaultVideoStreamType(Int(type)) }
}

@_cdecl("agoraish_engine_set_simulcast_config")
public func abi_engine_set_simulcast_config(_ p: OpaquePointer?,
                                            _ config: UnsafePointer<agoraish_simulcast_config>?) -> Int32 {
    simulcastConfig(p, config, .own)
}

/// setSimulcastConfig(Ex): reads the seven layer entries and hands them to the engine or connection.
func simulcastConfig(_ p: OpaquePointer?, _ config: UnsafePointer<agoraish_simulcast_config>?, _ target: Target,
                     function: String = #function) -> Int32 {
    withEngine(p, target, function: function) { engine throws(AgoraError) in
        guard let c = readVersioned(config, knownSizes: StructSizes.simulcastConfig) else { throw .invalidArgument }
        let layers = withUnsafeBytes(of: c.configs) { raw in
            raw.bindMemory(to: agoraish_stream_layer_config.self).map {
                SimulcastLayerConfig(width: Int($0.width), height: Int($0.height), frameRate: Int($0.framerate),
                                     enabled: $0.enable != 0)
            }
        }
        try engine.setSimulcastConfig(layers)
    }
}

@_cdecl("agoraish_engine_set_local_publish_fallback_option")
public func abi_engine_set_local_publish_fallback_option(_ p: OpaquePointer?, _ option: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setLocalPublishFallbackOption(Int(option)) }
}

@_cdecl("agoraish_engine_set_remote_subscribe_fallback_option")
public func abi_engine_set_remote_subscribe_fallback_option(_ p: OpaquePointer?, _ option: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setRemoteSubscribeFallbackOption(Int(option)) }
}

@_cdecl("agoraish_engine_set_remote_user_priority")
public func abi_engine_set_remote_user_priority(_ p: OpaquePointer?, _ uid: UInt32, _ priority: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setRemoteUserPriority(uid: uid, priority: Int(priority)) }
}

@_cdecl("agoraish_engine_take_snapshot")
public func abi_engine_take_snapshot(_ p: OpaquePointer?, _ uid: UInt32, _ path: UnsafePointer<CChar>?) -> Int32 {
    takeSnapshot(p, uid, path, .own)
}

func takeSnapshot(_ p: OpaquePointer?, _ uid: UInt32, _ path: UnsafePointer<CChar>?, _ target: Target,
                  function: String = #function) -> Int32 {
    withEngine(p, target, function: function) { engine throws(AgoraError) in
        guard let text = readCString(path), text.utf8.count <= 4096 else { throw .invalidArgument }
        try engine.takeSnapshot(uid: uid, path: text)
    }
}

@_cdecl("agoraish_engine_add_video_watermark")
public func abi_engine_add_video_watermark(_ p: OpaquePointer?, _ path: UnsafePointer<CChar>?,
                                           _ options: UnsafePointer<agoraish_watermark_options>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let text = readCString(path), text.utf8.count <= 4096,
              let o = readVersioned(options, knownSizes: StructSizes.watermarkOptions)
        else { throw .invalidArgument }
        try engine.addVideoWatermark(
            path: text, visibleInPreview: o.visible_in_preview != 0,
            landscape: (Int(o.landscape_x), Int(o.landscape_y), Int(o.landscape_width), Int(o.landscape_height)),
            portrait: (Int(o.portrait_x), Int(o.portrait_y), Int(o.portrait_width), Int(o.portrait_height)))
    }
}

@_cdecl("agoraish_engine_clear_video_watermarks")
public func abi_engine_clear_video_watermarks(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in engine.clearVideoWatermarks() }
}

@_cdecl("agoraish_engine_get_video_device_count")
public func abi_engine_get_video_device_count(_ p: OpaquePointer?) -> Int32 {
    var count: Int32 = 0
    let rc = withEngine(p) { engine throws(AgoraError) in count = Int32(engine.videoDevices().count) }
    return rc != 0 ? rc : count
}

@_cdecl("agoraish_engine_get_video_device")
public func abi_engine_get_video_device(_ p: OpaquePointer?, _ index: Int32,
                                        _ info: UnsafeMutablePointer<agoraish_video_device_info>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        let list = engine.videoDevices()
        guard let info, index >= 0, Int(index) < list.count else { throw .invalidArgument }
        let d = list[Int(index)]
        var out = agoraish_video_device_info()
        fillFixed(&out.id, d.id)
        fillFixed(&out.name, d.name)
        let formats = d.formats.prefix(Int(AGORAISH_MAX_VIDEO_FORMATS))
        out.format_count = Int32(formats.count)
        withUnsafeMutableBytes(of: &out.formats) { raw in
            let slots = raw.bindMemory(to: agoraish_video_format.self)
            for (i, f) in formats.enumerated() {
                var cf = agoraish_video_format()
                cf.width = Int32(f.width)
                cf.height = Int32(f.height)
                cf.fps = Int32(f.frameRate)
                fillFixed(&cf.fourcc, f.fourcc)
                slots[i] = cf
            }
        }
        info.pointee = out
    }
}

@_cdecl("agoraish_engine_set_video_device")
public func abi_engine_set_video_device(_ p: OpaquePointer?, _ id: UnsafePointer<CChar>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let text = readCString(id) else { throw .invalidArgument }
        try engine.setVideoDevice(text)
    }
}

@_cdecl("agoraish_engine_get_current_video_device")
public func abi_engine_get_current_video_device(_ p: OpaquePointer?, _ buf: UnsafeMutablePointer<CChar>?,
                                                _ len: UnsafeMutablePointer<Int>?) -> Int32 {
    var code: Int32 = 0
    let rc = withEngine(p) { engine throws(AgoraError) in
        guard let len else { throw .invalidArgument }
        guard let id = engine.videoDevice() else { throw .notReady }
        code = writeCString(id, buf, len)
    }
    return rc != 0 ? rc : code
}

@_cdecl("agoraish_engine_set_camera_capturer_configuration")
public func abi_engine_set_camera_capturer_configuration(
    _ p: OpaquePointer?, _ config: UnsafePointer<agoraish_camera_capturer_configuration>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let c = readVersioned(config, knownSizes: StructSizes.cameraCapturerConfiguration)
        else { throw .invalidArgument }
        try engine.setCameraCapturerConfiguration(preference: Int(c.preference), width: Int(c.capture_width),
                                                  height: Int(c.capture_height))
    }
}

@_cdecl("agoraish_engine_switch_camera")
public func abi_engine_switch_camera(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.switchCamera() }
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
        case .firstLocalVideoFrame(let width, let height, let elapsed):
            table.on_first_local_video_frame?(engine, ud, width, height, elapsed)
        case .firstRemoteVideoFrame(let uid, let width, let height, let elapsed):
            table.on_first_remote_video_frame?(engine, ud, uid, width, height, elapsed)
        case .localVideoStateChanged(let state, let error):
            table.on_local_video_state_changed?(engine, ud, state, error)
        case .remoteVideoStateChanged(let uid, let state, let reason, let elapsed):
            table.on_remote_video_state_changed?(engine, ud, uid, state, reason, elapsed)
        case .localVideoStats(let st):
            guard let cb = table.on_local_video_stats else { return }
            var s = makeLocalVideoStats(st)
            cb(engine, ud, &s)
        case .remoteVideoStats(let r):
            guard let cb = table.on_remote_video_stats else { return }
            var s = makeRemoteVideoStats(r)
            cb(engine, ud, &s)
        case .snapshotTaken(let uid, let path, let width, let height, let error):
            guard let cb = table.on_snapshot_taken else { return }
            path.withCString { cb(engine, ud, uid, $0, width, height, error) }
        case .localPublishFallback(let isFallback):
            table.on_local_publish_fallback_to_audio_only?(engine, ud, isFallback ? 1 : 0)
        case .remoteSubscribeFallback(let uid, let isFallback):
            table.on_remote_subscribe_fallback_to_audio_only?(engine, ud, uid, isFallback ? 1 : 0)
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

/// The C form of onRemoteVideoStats' statistics.
func makeRemoteVideoStats(_ r: RemoteVideoStats) -> agoraish_remote_video_stats {
    var s = agoraish_remote_video_stats()
    s.struct_size = UInt32(MemoryLayout<agoraish_remote_video_stats>.size)
    s.uid = r.uid
    s.width = r.width
    s.height = r.height
    s.received_bitrate = r.receivedBitrate
    s.decoder_output_frame_rate = r.decoderOutputFrameRate
    s.renderer_output_frame_rate = r.rendererOutputFrameRate
    s.packet_loss_rate = r.packetLossRate
    s.rx_stream_type = r.rxStreamType
    s.total_frozen_time = r.totalFrozenTime
    s.frozen_rate = r.frozenRate
    s.total_active_time = r.totalActiveTime
    s.publish_duration = r.publishDuration
    return s
}

/// The C form of onLocalVideoStats' statistics.
func makeLocalVideoStats(_ st: LocalVideoStats) -> agoraish_local_video_stats {
    var s = agoraish_local_video_stats()
    s.struct_size = UInt32(MemoryLayout<agoraish_local_video_stats>.size)
    s.sent_bitrate = st.sentBitrate
    s.sent_frame_rate = st.sentFrameRate
    s.encoder_output_frame_rate = st.encoderOutputFrameRate
    s.renderer_output_frame_rate = st.rendererOutputFrameRate
    s.target_bitrate = st.targetBitrate
    s.target_frame_rate = st.targetFrameRate
    s.encoded_bitrate = st.encodedBitrate
    s.encoded_frame_width = st.encodedFrameWidth
    s.encoded_frame_height = st.encodedFrameHeight
    s.encoded_frame_count = st.encodedFrameCount
    s.codec_type = st.codecType
    s.capture_frame_rate = st.captureFrameRate
    return s
}
