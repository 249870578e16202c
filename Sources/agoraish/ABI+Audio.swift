import AgoraishEngine
import AgoraishMedia
import CAgoraishABI

// The audio functions of include/agoraish.h (external source and sink).

@_cdecl("agoraish_engine_set_audio_profile")
public func abi_engine_set_audio_profile(_ p: OpaquePointer?, _ profile: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setAudioProfile(profile) }
}

@_cdecl("agoraish_engine_set_external_audio_source")
public func abi_engine_set_external_audio_source(_ p: OpaquePointer?, _ enabled: Int32, _ sampleRate: Int32,
                                                 _ channels: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.setExternalAudioSource(enabled: enabled != 0, sampleRate: Int(sampleRate), channels: Int(channels))
    }
}

@_cdecl("agoraish_engine_push_external_audio_frame")
public func abi_engine_push_external_audio_frame(_ p: OpaquePointer?, _ samples: UnsafePointer<Int16>?,
                                                 _ samplesPerChannel: Int32) -> Int32 {
    var queued: Int32 = 0
    let rc = withEngine(p) { engine throws(AgoraError) in
        guard (0...48000).contains(samplesPerChannel), samples != nil || samplesPerChannel == 0 else {
            throw .invalidArgument
        }
        queued = Int32(try engine.pushExternalAudioFrame(samples, samplesPerChannel: Int(samplesPerChannel)))
    }
    return rc != 0 ? rc : queued
}

@_cdecl("agoraish_engine_set_external_audio_sink")
public func abi_engine_set_external_audio_sink(_ p: OpaquePointer?, _ enabled: Int32, _ sampleRate: Int32,
                                               _ channels: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.setExternalAudioSink(enabled: enabled != 0, sampleRate: Int(sampleRate), channels: Int(channels))
    }
}

@_cdecl("agoraish_engine_pull_playback_audio_frame")
public func abi_engine_pull_playback_audio_frame(_ p: OpaquePointer?, _ samples: UnsafeMutablePointer<Int16>?,
                                                 _ samplesPerChannel: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let samples, (1...48000).contains(samplesPerChannel) else { throw .invalidArgument }
        let channels = engine.externalSinkChannels
        guard channels > 0 else { throw .notReady }
        try engine.pullPlaybackAudioFrame(into: UnsafeMutableBufferPointer(start: samples, count: Int(samplesPerChannel) * channels))
    }
}

// MARK: - Switches and volumes

@_cdecl("agoraish_engine_enable_audio")
public func abi_engine_enable_audio(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setAudioEnabled(true) }
}

@_cdecl("agoraish_engine_disable_audio")
public func abi_engine_disable_audio(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setAudioEnabled(false) }
}

@_cdecl("agoraish_engine_enable_local_audio")
public func abi_engine_enable_local_audio(_ p: OpaquePointer?, _ enabled: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.enableLocalAudio(enabled != 0) }
}

@_cdecl("agoraish_engine_mute_local_audio_stream")
public func abi_engine_mute_local_audio_stream(_ p: OpaquePointer?, _ mute: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.muteLocalAudioStream(mute != 0) }
}

@_cdecl("agoraish_engine_mute_remote_audio_stream")
public func abi_engine_mute_remote_audio_stream(_ p: OpaquePointer?, _ uid: UInt32, _ mute: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.muteRemoteAudioStream(uid: uid, mute: mute != 0) }
}

@_cdecl("agoraish_engine_mute_all_remote_audio_streams")
public func abi_engine_mute_all_remote_audio_streams(_ p: OpaquePointer?, _ mute: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.muteAllRemoteAudioStreams(mute != 0) }
}

@_cdecl("agoraish_engine_set_default_mute_all_remote_audio_streams")
public func abi_engine_set_default_mute_all_remote_audio_streams(_ p: OpaquePointer?, _ mute: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setDefaultMuteAllRemoteAudioStreams(mute != 0) }
}

@_cdecl("agoraish_engine_adjust_recording_signal_volume")
public func abi_engine_adjust_recording_signal_volume(_ p: OpaquePointer?, _ volume: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.adjustRecordingSignalVolume(Int(volume)) }
}

@_cdecl("agoraish_engine_adjust_playback_signal_volume")
public func abi_engine_adjust_playback_signal_volume(_ p: OpaquePointer?, _ volume: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.adjustPlaybackSignalVolume(Int(volume)) }
}

@_cdecl("agoraish_engine_adjust_user_playback_signal_volume")
public func abi_engine_adjust_user_playback_signal_volume(_ p: OpaquePointer?, _ uid: UInt32, _ volume: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.adjustUserPlaybackSignalVolume(uid: uid, volume: Int(volume)) }
}

@_cdecl("agoraish_engine_enable_audio_volume_indication")
public func abi_engine_enable_audio_volume_indication(_ p: OpaquePointer?, _ interval: Int32, _ smooth: Int32,
                                                      _ reportVad: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.enableAudioVolumeIndication(interval: Int(interval), smooth: Int(smooth), reportVad: reportVad != 0)
    }
}

// MARK: - Raw audio

/// Calls a C observer callback with an agoraish_audio_frame over `view`.
func callObserver(_ view: AudioFrameView,
                          _ body: (UnsafeMutablePointer<agoraish_audio_frame>) -> Int32) -> Bool {
    var frame = agoraish_audio_frame()
    frame.type = 0
    frame.samples_per_channel = Int32(view.samplesPerChannel)
    frame.bytes_per_sample = 2
    frame.channels = Int32(view.channels)
    frame.samples_per_sec = Int32(view.sampleRate)
    frame.buffer = UnsafeMutableRawPointer(view.buffer.baseAddress)
    frame.render_time_ms = view.renderTimeMs
    return body(&frame) != 0
}

@_cdecl("agoraish_engine_register_audio_frame_observer")
public func abi_engine_register_audio_frame_observer(_ p: OpaquePointer?,
                                                     _ observer: UnsafePointer<agoraish_audio_frame_observer>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let observer else {
            engine.registerAudioFrameObserver(nil)
            return
        }
        guard let o = readVersioned(observer, knownSizes: StructSizes.audioFrameObserver),
              o.observed_position & ~AudioFramePosition.all.rawValue == 0 else { throw .invalidArgument }
        let ud = o.user_data
        let handle = p
        var swift = AudioFrameObserver(positions: AudioFramePosition(rawValue: o.observed_position))
        if let cb = o.on_record_audio_frame {
            swift.onRecord = { view in callObserver(view) { cb(handle, ud, $0) } }
        }
        if let cb = o.on_playback_audio_frame {
            swift.onPlayback = { view in callObserver(view) { cb(handle, ud, $0) } }
        }
        if let cb = o.on_mixed_audio_frame {
            swift.onMixed = { view in callObserver(view) { cb(handle, ud, $0) } }
        }
        if let cb = o.on_playback_audio_frame_before_mixing {
            swift.onPlaybackBeforeMixing = { uid, view in callObserver(view) { cb(handle, ud, uid, $0) } }
        }
        engine.registerAudioFrameObserver(swift)
    }
}

private func tapParameters(_ rate: Int32, _ channels: Int32, _ mode: Int32, _ spc: Int32) throws(AgoraError) -> AudioTapParameters {
    guard let m = AudioFrameMode(rawValue: mode), spc >= 0 else { throw .invalidArgument }
    return AudioTapParameters(sampleRate: Int(rate), channels: Int(channels), mode: m, samplesPerCall: Int(spc))
}

@_cdecl("agoraish_engine_set_recording_audio_frame_parameters")
public func abi_engine_set_recording_audio_frame_parameters(_ p: OpaquePointer?, _ rate: Int32, _ channels: Int32,
                                                            _ mode: Int32, _ spc: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.setRecordingAudioFrameParameters(try tapParameters(rate, channels, mode, spc))
    }
}

@_cdecl("agoraish_engine_set_playback_audio_frame_parameters")
public func abi_engine_set_playback_audio_frame_parameters(_ p: OpaquePointer?, _ rate: Int32, _ channels: Int32,
                                                           _ mode: Int32, _ spc: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.setPlaybackAudioFrameParameters(try tapParameters(rate, channels, mode, spc))
    }
}

@_cdecl("agoraish_engine_set_mixed_audio_frame_parameters")
public func abi_engine_set_mixed_audio_frame_parameters(_ p: OpaquePointer?, _ rate: Int32, _ channels: Int32,
                                                        _ spc: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard spc >= 0 else { throw .invalidArgument }
        try engine.setMixedAudioFrameParameters(sampleRate: Int(rate), channels: Int(channels), samplesPerCall: Int(spc))
    }
}

@_cdecl("agoraish_engine_set_playback_audio_frame_before_mixing_parameters")
public func abi_engine_set_playback_audio_frame_before_mixing_parameters(_ p: OpaquePointer?, _ rate: Int32,
                                                                         _ channels: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.setPlaybackAudioFrameBeforeMixingParameters(sampleRate: Int(rate), channels: Int(channels))
    }
}

// MARK: - Recording

@_cdecl("agoraish_engine_start_audio_recording")
public func abi_engine_start_audio_recording(_ p: OpaquePointer?,
                                             _ config: UnsafePointer<agoraish_audio_recording_config>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let c = readVersioned(config, knownSizes: StructSizes.audioRecordingConfig),
              let path = readCString(c.file_path) else { throw .invalidArgument }
        try engine.startAudioRecording(path: path, sampleRate: Int(c.sample_rate), position: c.position, quality: c.quality)
    }
}

@_cdecl("agoraish_engine_stop_audio_recording")
public func abi_engine_stop_audio_recording(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in engine.stopAudioRecording() }
}

// MARK: - Devices

private func deviceKind(_ type: Int32) throws(AgoraError) -> Bool {
    switch type {
    case 0: false
    case 1: true
    default: throw .invalidArgument
    }
}

@_cdecl("agoraish_engine_get_audio_device_count")
public func abi_engine_get_audio_device_count(_ p: OpaquePointer?, _ type: Int32) -> Int32 {
    var count: Int32 = 0
    let rc = withEngine(p) { engine throws(AgoraError) in
        count = Int32(engine.audioDevices(recording: try deviceKind(type)).count)
    }
    return rc != 0 ? rc : count
}

@_cdecl("agoraish_engine_get_audio_device")
public func abi_engine_get_audio_device(_ p: OpaquePointer?, _ type: Int32, _ index: Int32,
                                        _ info: UnsafeMutablePointer<agoraish_audio_device_info>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        let list = engine.audioDevices(recording: try deviceKind(type))
        guard let info, index >= 0, Int(index) < list.count else { throw .invalidArgument }
        var out = agoraish_audio_device_info()
        fillFixed(&out.id, list[Int(index)].id)
        fillFixed(&out.name, list[Int(index)].name)
        info.pointee = out
    }
}

/// Copies `text` into a fixed C char array, NUL-terminated, cut at a UTF-8 boundary.
func fillFixed<T>(_ field: inout T, _ text: String) {
    withUnsafeMutableBytes(of: &field) { raw in
        var bytes = Array(text.utf8)
        if bytes.count > raw.count - 1 {
            var end = raw.count - 1
            while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
            bytes = Array(bytes[0..<end])
        }
        for (i, b) in bytes.enumerated() { raw[i] = b }
        raw[bytes.count] = 0
    }
}

@_cdecl("agoraish_engine_set_recording_device")
public func abi_engine_set_recording_device(_ p: OpaquePointer?, _ id: UnsafePointer<CChar>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let text = readCString(id) else { throw .invalidArgument }
        try engine.setAudioDevice(recording: true, id: text)
    }
}

@_cdecl("agoraish_engine_set_playback_device")
public func abi_engine_set_playback_device(_ p: OpaquePointer?, _ id: UnsafePointer<CChar>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let text = readCString(id) else { throw .invalidArgument }
        try engine.setAudioDevice(recording: false, id: text)
    }
}

@_cdecl("agoraish_engine_get_recording_device")
public func abi_engine_get_recording_device(_ p: OpaquePointer?, _ buf: UnsafeMutablePointer<CChar>?,
                                            _ len: UnsafeMutablePointer<Int>?) -> Int32 {
    var code: Int32 = 0
    let rc = withEngine(p) { engine throws(AgoraError) in
        guard let len else { throw .invalidArgument }
        code = writeCString(engine.audioDevice(recording: true), buf, len)
    }
    return rc != 0 ? rc : code
}

@_cdecl("agoraish_engine_get_playback_device")
public func abi_engine_get_playback_device(_ p: OpaquePointer?, _ buf: UnsafeMutablePointer<CChar>?,
                                           _ len: UnsafeMutablePointer<Int>?) -> Int32 {
    var code: Int32 = 0
    let rc = withEngine(p) { engine throws(AgoraError) in
        guard let len else { throw .invalidArgument }
        code = writeCString(engine.audioDevice(recording: false), buf, len)
    }
    return rc != 0 ? rc : code
}

@_cdecl("agoraish_engine_start_recording_device_test")
public func abi_engine_start_recording_device_test(_ p: OpaquePointer?, _ interval: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.recordingDeviceTest(interval: Int(interval)) }
}

@_cdecl("agoraish_engine_stop_recording_device_test")
public func abi_engine_stop_recording_device_test(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.recordingDeviceTest(interval: nil) }
}

@_cdecl("agoraish_engine_start_playback_device_test")
public func abi_engine_start_playback_device_test(_ p: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let text = readCString(path), !text.isEmpty else { throw .invalidArgument }
        try engine.playbackDeviceTest(path: text)
    }
}

@_cdecl("agoraish_engine_stop_playback_device_test")
public func abi_engine_stop_playback_device_test(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.playbackDeviceTest(path: nil) }
}

@_cdecl("agoraish_engine_start_audio_device_loopback_test")
public func abi_engine_start_audio_device_loopback_test(_ p: OpaquePointer?, _ interval: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.audioDeviceLoopbackTest(interval: Int(interval)) }
}

@_cdecl("agoraish_engine_stop_audio_device_loopback_test")
public func abi_engine_stop_audio_device_loopback_test(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.audioDeviceLoopbackTest(interval: nil) }
}
