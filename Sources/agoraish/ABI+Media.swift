import AgoraishEngine
import CAgoraishABI

// The media player, audio mixing and effects, and media recorder functions of include/agoraish.h.

/// A C host's pointers, carried into callbacks that may run on any thread.
private struct HostPointers: @unchecked Sendable {
    let engine: OpaquePointer?
    let userData: UnsafeMutableRawPointer?
}

/// Runs `body` with the engine and returns its value, or the error code.
private func engineValue(_ p: OpaquePointer?, function: String = #function,
                         _ body: (RtcEngine) throws(AgoraError) -> Int32) -> Int32 {
    var value: Int32 = 0
    let rc = withEngine(p, function: function) { engine throws(AgoraError) in value = try body(engine) }
    return rc == 0 ? value : rc
}

/// Runs `body` with media player `id` of the engine behind `p`.
private func withPlayer(_ p: OpaquePointer?, _ id: Int32, function: String = #function,
                        _ body: (MediaPlayer) throws(AgoraError) -> Void) -> Int32 {
    withEngine(p, function: function) { engine throws(AgoraError) in
        let player = try engine.mediaPlayer(id)
        try body(player)
    }
}

/// A path or URL argument: NULL, empty or not UTF-8 is `.invalidArgument`.
private func readPath(_ p: UnsafePointer<CChar>?) throws(AgoraError) -> String {
    guard let s = readCString(p), !s.isEmpty else { throw .invalidArgument }
    return s
}

// MARK: - Media player

@_cdecl("agoraish_engine_create_media_player")
public func abi_engine_create_media_player(_ p: OpaquePointer?, _ playerId: UnsafeMutablePointer<Int32>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let playerId else { throw .invalidArgument }
        playerId.pointee = try engine.createMediaPlayer().id
    }
}

@_cdecl("agoraish_engine_destroy_media_player")
public func abi_engine_destroy_media_player(_ p: OpaquePointer?, _ id: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.destroyMediaPlayer(id) }
}

@_cdecl("agoraish_media_player_open")
public func abi_media_player_open(_ p: OpaquePointer?, _ id: Int32, _ url: UnsafePointer<CChar>?, _ start: Int64) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in try player.open(try readPath(url), startPositionMs: start) }
}

@_cdecl("agoraish_media_player_play")
public func abi_media_player_play(_ p: OpaquePointer?, _ id: Int32) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in try player.play() }
}

@_cdecl("agoraish_media_player_pause")
public func abi_media_player_pause(_ p: OpaquePointer?, _ id: Int32) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in try player.pause() }
}

@_cdecl("agoraish_media_player_resume")
public func abi_media_player_resume(_ p: OpaquePointer?, _ id: Int32) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in try player.resume() }
}

@_cdecl("agoraish_media_player_stop")
public func abi_media_player_stop(_ p: OpaquePointer?, _ id: Int32) -> Int32 {
    withPlayer(p, id) { player in player.stop() }
}

@_cdecl("agoraish_media_player_seek")
public func abi_media_player_seek(_ p: OpaquePointer?, _ id: Int32, _ position: Int64) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in try player.seek(toMs: position) }
}

@_cdecl("agoraish_media_player_set_loop_count")
public func abi_media_player_set_loop_count(_ p: OpaquePointer?, _ id: Int32, _ count: Int32) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in try player.setLoopCount(Int(count)) }
}

@_cdecl("agoraish_media_player_get_duration")
public func abi_media_player_get_duration(_ p: OpaquePointer?, _ id: Int32, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in
        guard let out else { throw .invalidArgument }
        out.pointee = try player.duration()
    }
}

@_cdecl("agoraish_media_player_get_play_position")
public func abi_media_player_get_play_position(_ p: OpaquePointer?, _ id: Int32,
                                               _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in
        guard let out else { throw .invalidArgument }
        out.pointee = try player.position()
    }
}

@_cdecl("agoraish_media_player_get_state")
public func abi_media_player_get_state(_ p: OpaquePointer?, _ id: Int32, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in
        guard let out else { throw .invalidArgument }
        out.pointee = player.currentState
    }
}

@_cdecl("agoraish_media_player_get_stream_count")
public func abi_media_player_get_stream_count(_ p: OpaquePointer?, _ id: Int32, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in
        guard let out else { throw .invalidArgument }
        out.pointee = Int64(try player.streams().count)
    }
}

/// Copies `s` into a fixed C char array (NUL-terminated, cut at a UTF-8 boundary).
private func copyFixed<T>(_ s: String, into field: inout T) {
    withUnsafeMutableBytes(of: &field) { raw in
        raw.initializeMemory(as: UInt8.self, repeating: 0)
        var text = Substring(s)
        while text.utf8.count > raw.count - 1 { text = text.dropLast() }
        let bytes = Array(text.utf8)
        raw.copyBytes(from: bytes)
    }
}

@_cdecl("agoraish_media_player_get_stream_info")
public func abi_media_player_get_stream_info(_ p: OpaquePointer?, _ id: Int32, _ index: Int64,
                                             _ info: UnsafeMutablePointer<agoraish_player_stream_info>?) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in
        guard let info, StructSizes.playerStreamInfo.contains(Int(info.pointee.struct_size)) else { throw .invalidArgument }
        let streams = try player.streams()
        guard index >= 0, index < Int64(streams.count) else { throw .invalidArgument }
        let s = streams[Int(index)]
        var out = agoraish_player_stream_info()
        out.struct_size = UInt32(MemoryLayout<agoraish_player_stream_info>.size)
        out.stream_index = Int32(s.index)
        out.stream_type = Int32(s.type)
        copyFixed(s.codecName, into: &out.codec_name)
        copyFixed(s.language, into: &out.language)
        out.video_frame_rate = Int32(clamping: s.videoFrameRate)
        out.video_bit_rate = Int32(clamping: s.videoBitRate)
        out.video_width = Int32(clamping: s.videoWidth)
        out.video_height = Int32(clamping: s.videoHeight)
        out.video_rotation = Int32(clamping: s.videoRotation)
        out.audio_sample_rate = Int32(clamping: s.audioSampleRate)
        out.audio_channels = Int32(clamping: s.audioChannels)
        out.audio_bits_per_sample = Int32(clamping: s.audioBitsPerSample)
        out.duration = s.durationMs
        info.pointee = out
    }
}

@_cdecl("agoraish_media_player_select_audio_track")
public func abi_media_player_select_audio_track(_ p: OpaquePointer?, _ id: Int32, _ index: Int32) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in try player.selectAudioTrack(Int(index)) }
}

@_cdecl("agoraish_media_player_set_playback_speed")
public func abi_media_player_set_playback_speed(_ p: OpaquePointer?, _ id: Int32, _ speed: Int32) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in try player.setPlaybackSpeed(Int(speed)) }
}

@_cdecl("agoraish_media_player_adjust_playout_volume")
public func abi_media_player_adjust_playout_volume(_ p: OpaquePointer?, _ id: Int32, _ volume: Int32) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in try player.setPlayoutVolume(Int(volume)) }
}

@_cdecl("agoraish_media_player_get_playout_volume")
public func abi_media_player_get_playout_volume(_ p: OpaquePointer?, _ id: Int32, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in
        guard let out else { throw .invalidArgument }
        out.pointee = Int32(player.playoutVolume)
    }
}

@_cdecl("agoraish_media_player_adjust_publish_signal_volume")
public func abi_media_player_adjust_publish_signal_volume(_ p: OpaquePointer?, _ id: Int32, _ volume: Int32) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in try player.setPublishVolume(Int(volume)) }
}

@_cdecl("agoraish_media_player_get_publish_signal_volume")
public func abi_media_player_get_publish_signal_volume(_ p: OpaquePointer?, _ id: Int32,
                                                       _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in
        guard let out else { throw .invalidArgument }
        out.pointee = Int32(player.publishVolume)
    }
}

@_cdecl("agoraish_media_player_mute")
public func abi_media_player_mute(_ p: OpaquePointer?, _ id: Int32, _ muted: Int32) -> Int32 {
    withPlayer(p, id) { player in player.setMuted(muted != 0) }
}

@_cdecl("agoraish_media_player_get_mute")
public func abi_media_player_get_mute(_ p: OpaquePointer?, _ id: Int32, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in
        guard let out else { throw .invalidArgument }
        out.pointee = player.isMuted ? 1 : 0
    }
}

@_cdecl("agoraish_media_player_set_view")
public func abi_media_player_set_view(_ p: OpaquePointer?, _ id: Int32, _ canvas: UnsafePointer<agoraish_video_canvas>?) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in
        guard let canvas else { return player.setView(nil) }
        guard let c = readCanvas(canvas) else { throw .invalidArgument }
        guard c.render_mode == 0 || [1, 2, 3, 4].contains(c.render_mode), (0...2).contains(c.mirror_mode),
              (c.view_width == 0 && c.view_height == 0) || ((2...4096).contains(c.view_width) && (2...4096).contains(c.view_height))
        else { throw .invalidArgument }
        player.setView(makeCanvas(c, p))
    }
}

@_cdecl("agoraish_media_player_set_render_mode")
public func abi_media_player_set_render_mode(_ p: OpaquePointer?, _ id: Int32, _ mode: Int32) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in try player.setRenderMode(Int(mode)) }
}

@_cdecl("agoraish_media_player_register_player_source_observer")
public func abi_media_player_register_player_source_observer(
    _ p: OpaquePointer?, _ id: Int32, _ observer: UnsafePointer<agoraish_media_player_observer>?) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in
        guard let observer else { return player.setObserver(nil) }
        guard let c = readVersioned(observer, knownSizes: StructSizes.mediaPlayerObserver) else { throw .invalidArgument }
        let host = HostPointers(engine: p, userData: c.user_data)
        let table = c
        var o = MediaPlayerObserver()
        if let cb = table.on_player_source_state_changed {
            o.onStateChanged = { state, reason in cb(host.engine, host.userData, id, state, reason) }
        }
        if let cb = table.on_position_changed {
            o.onPositionChanged = { pos, ts in cb(host.engine, host.userData, id, pos, ts) }
        }
        if let cb = table.on_player_event {
            o.onEvent = { event, pos, message in message.withCString { cb(host.engine, host.userData, id, event, pos, $0) } }
        }
        if let cb = table.on_play_buffer_updated {
            o.onBufferUpdated = { ms in cb(host.engine, host.userData, id, ms) }
        }
        if let cb = table.on_completed {
            o.onCompleted = { cb(host.engine, host.userData, id) }
        }
        player.setObserver(o)
    }
}

@_cdecl("agoraish_media_player_register_audio_frame_observer")
public func abi_media_player_register_audio_frame_observer(
    _ p: OpaquePointer?, _ id: Int32, _ observer: UnsafePointer<agoraish_media_player_audio_frame_observer>?) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in
        guard let observer else { return player.setAudioObserver(nil) }
        guard let c = readVersioned(observer, knownSizes: StructSizes.mediaPlayerAudioFrameObserver) else {
            throw .invalidArgument
        }
        guard let cb = c.on_frame else { return player.setAudioObserver(nil) }
        let host = HostPointers(engine: p, userData: c.user_data)
        player.setAudioObserver { view in
            _ = callObserver(view) { frame in
                cb(host.engine, host.userData, id, frame)
                return 1
            }
        }
    }
}

@_cdecl("agoraish_media_player_register_video_frame_observer")
public func abi_media_player_register_video_frame_observer(
    _ p: OpaquePointer?, _ id: Int32, _ observer: UnsafePointer<agoraish_media_player_video_frame_observer>?) -> Int32 {
    withPlayer(p, id) { player throws(AgoraError) in
        guard let observer else { return player.setVideoObserver(nil) }
        guard let c = readVersioned(observer, knownSizes: StructSizes.mediaPlayerVideoFrameObserver) else {
            throw .invalidArgument
        }
        guard let cb = c.on_frame else { return player.setVideoObserver(nil) }
        let host = HostPointers(engine: p, userData: c.user_data)
        player.setVideoObserver { view in
            var frame = cFrame(view)
            cb(host.engine, host.userData, id, &frame)
        }
    }
}

// MARK: - Audio mixing

@_cdecl("agoraish_engine_start_audio_mixing")
public func abi_engine_start_audio_mixing(_ p: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ loopback: Int32,
                                          _ cycle: Int32, _ start: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.startAudioMixing(try readPath(path), loopback: loopback != 0, cycle: Int(cycle),
                                    startPositionMs: Int(start))
    }
}

@_cdecl("agoraish_engine_stop_audio_mixing")
public func abi_engine_stop_audio_mixing(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.stopAudioMixing() }
}

@_cdecl("agoraish_engine_pause_audio_mixing")
public func abi_engine_pause_audio_mixing(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.pauseAudioMixing() }
}

@_cdecl("agoraish_engine_resume_audio_mixing")
public func abi_engine_resume_audio_mixing(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.resumeAudioMixing() }
}

@_cdecl("agoraish_engine_adjust_audio_mixing_volume")
public func abi_engine_adjust_audio_mixing_volume(_ p: OpaquePointer?, _ volume: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setAudioMixingVolume(playout: Int(volume), publish: Int(volume)) }
}

@_cdecl("agoraish_engine_adjust_audio_mixing_playout_volume")
public func abi_engine_adjust_audio_mixing_playout_volume(_ p: OpaquePointer?, _ volume: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setAudioMixingVolume(playout: Int(volume), publish: nil) }
}

@_cdecl("agoraish_engine_adjust_audio_mixing_publish_volume")
public func abi_engine_adjust_audio_mixing_publish_volume(_ p: OpaquePointer?, _ volume: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setAudioMixingVolume(playout: nil, publish: Int(volume)) }
}

@_cdecl("agoraish_engine_get_audio_mixing_playout_volume")
public func abi_engine_get_audio_mixing_playout_volume(_ p: OpaquePointer?) -> Int32 {
    engineValue(p) { engine in Int32(engine.audioMixingPlayoutVolume) }
}

@_cdecl("agoraish_engine_get_audio_mixing_publish_volume")
public func abi_engine_get_audio_mixing_publish_volume(_ p: OpaquePointer?) -> Int32 {
    engineValue(p) { engine in Int32(engine.audioMixingPublishVolume) }
}

@_cdecl("agoraish_engine_get_audio_mixing_duration")
public func abi_engine_get_audio_mixing_duration(_ p: OpaquePointer?) -> Int32 {
    engineValue(p) { engine throws(AgoraError) in Int32(clamping: try engine.audioMixingDuration()) }
}

@_cdecl("agoraish_engine_get_audio_mixing_current_position")
public func abi_engine_get_audio_mixing_current_position(_ p: OpaquePointer?) -> Int32 {
    engineValue(p) { engine throws(AgoraError) in Int32(clamping: try engine.audioMixingPosition()) }
}

@_cdecl("agoraish_engine_set_audio_mixing_position")
public func abi_engine_set_audio_mixing_position(_ p: OpaquePointer?, _ pos: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setAudioMixingPosition(Int(pos)) }
}

@_cdecl("agoraish_engine_set_audio_mixing_pitch")
public func abi_engine_set_audio_mixing_pitch(_ p: OpaquePointer?, _ pitch: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setAudioMixingPitch(Int(pitch)) }
}

@_cdecl("agoraish_engine_set_audio_mixing_playback_speed")
public func abi_engine_set_audio_mixing_playback_speed(_ p: OpaquePointer?, _ speed: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setAudioMixingPlaybackSpeed(Int(speed)) }
}

// MARK: - Audio effects

@_cdecl("agoraish_engine_preload_effect")
public func abi_engine_preload_effect(_ p: OpaquePointer?, _ soundId: Int32, _ path: UnsafePointer<CChar>?,
                                      _ start: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.preloadEffect(soundId, path: try readPath(path), startPositionMs: Int(start))
    }
}

@_cdecl("agoraish_engine_play_effect")
public func abi_engine_play_effect(_ p: OpaquePointer?, _ soundId: Int32, _ path: UnsafePointer<CChar>?,
                                   _ loopCount: Int32, _ pitch: Double, _ pan: Double, _ gain: Int32,
                                   _ publish: Int32, _ start: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        var file: String? = nil
        if let path {
            guard let s = readCString(path) else { throw .invalidArgument }
            file = s
        }
        guard pitch.isFinite, pan.isFinite else { throw .invalidArgument }
        try engine.playEffect(soundId, path: file, loopCount: Int(loopCount), pitch: pitch, pan: pan, gain: Int(gain),
                              publish: publish != 0, startPositionMs: Int(start))
    }
}

@_cdecl("agoraish_engine_stop_effect")
public func abi_engine_stop_effect(_ p: OpaquePointer?, _ soundId: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.stopEffect(soundId) }
}

@_cdecl("agoraish_engine_stop_all_effects")
public func abi_engine_stop_all_effects(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.stopEffect(nil) }
}

@_cdecl("agoraish_engine_pause_effect")
public func abi_engine_pause_effect(_ p: OpaquePointer?, _ soundId: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.pauseEffect(soundId) }
}

@_cdecl("agoraish_engine_pause_all_effects")
public func abi_engine_pause_all_effects(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.pauseEffect(nil) }
}

@_cdecl("agoraish_engine_resume_effect")
public func abi_engine_resume_effect(_ p: OpaquePointer?, _ soundId: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.resumeEffect(soundId) }
}

@_cdecl("agoraish_engine_resume_all_effects")
public func abi_engine_resume_all_effects(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.resumeEffect(nil) }
}

@_cdecl("agoraish_engine_unload_effect")
public func abi_engine_unload_effect(_ p: OpaquePointer?, _ soundId: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.unloadEffect(soundId) }
}

@_cdecl("agoraish_engine_unload_all_effects")
public func abi_engine_unload_all_effects(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.unloadEffect(nil) }
}

@_cdecl("agoraish_engine_set_effects_volume")
public func abi_engine_set_effects_volume(_ p: OpaquePointer?, _ volume: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setEffectsVolume(Int(volume)) }
}

@_cdecl("agoraish_engine_get_effects_volume")
public func abi_engine_get_effects_volume(_ p: OpaquePointer?) -> Int32 {
    engineValue(p) { engine in Int32(engine.effectsVolume) }
}

@_cdecl("agoraish_engine_set_volume_of_effect")
public func abi_engine_set_volume_of_effect(_ p: OpaquePointer?, _ soundId: Int32, _ volume: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setVolumeOfEffect(soundId, volume: Int(volume)) }
}

@_cdecl("agoraish_engine_get_volume_of_effect")
public func abi_engine_get_volume_of_effect(_ p: OpaquePointer?, _ soundId: Int32) -> Int32 {
    engineValue(p) { engine throws(AgoraError) in Int32(try engine.volumeOfEffect(soundId)) }
}

@_cdecl("agoraish_engine_get_effect_duration")
public func abi_engine_get_effect_duration(_ p: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    engineValue(p) { engine throws(AgoraError) in Int32(clamping: try engine.effectDuration(try readPath(path))) }
}

@_cdecl("agoraish_engine_set_effect_position")
public func abi_engine_set_effect_position(_ p: OpaquePointer?, _ soundId: Int32, _ pos: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setEffectPosition(soundId, ms: Int(pos)) }
}

@_cdecl("agoraish_engine_get_effect_current_position")
public func abi_engine_get_effect_current_position(_ p: OpaquePointer?, _ soundId: Int32) -> Int32 {
    engineValue(p) { engine throws(AgoraError) in Int32(clamping: try engine.effectPosition(soundId)) }
}

// MARK: - Media recorder

@_cdecl("agoraish_engine_create_media_recorder")
public func abi_engine_create_media_recorder(_ p: OpaquePointer?, _ info: UnsafePointer<agoraish_recorder_stream_info>?,
                                             _ recorderId: UnsafeMutablePointer<Int32>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let recorderId, let c = readVersioned(info, knownSizes: StructSizes.recorderStreamInfo),
              let channel = readCString(c.channel_id) else { throw .invalidArgument }
        recorderId.pointee = try engine.createMediaRecorder(channel: channel, uid: c.uid, type: c.type).id
    }
}

@_cdecl("agoraish_media_recorder_set_observer")
public func abi_media_recorder_set_observer(_ p: OpaquePointer?, _ id: Int32,
                                            _ observer: UnsafePointer<agoraish_media_recorder_observer>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        let recorder = try engine.mediaRecorder(id)
        guard let observer else { return recorder.observer.withLock { $0 = MediaRecorderObserver() } }
        guard let c = readVersioned(observer, knownSizes: StructSizes.mediaRecorderObserver) else { throw .invalidArgument }
        let host = HostPointers(engine: p, userData: c.user_data)
        let channel = recorder.channel, uid = recorder.uid
        var o = MediaRecorderObserver()
        if let cb = c.on_recorder_state_changed {
            o.onStateChanged = { state, reason in channel.withCString { cb(host.engine, host.userData, id, $0, uid, state, reason) } }
        }
        if let cb = c.on_recorder_info_updated {
            o.onInfoUpdated = { file, ms, size in
                channel.withCString { ch in
                    file.withCString { f in
                        var info = agoraish_recorder_info(struct_size: UInt32(MemoryLayout<agoraish_recorder_info>.size),
                                                          file_name: f, duration_ms: ms, file_size: size)
                        cb(host.engine, host.userData, id, ch, uid, &info)
                    }
                }
            }
        }
        recorder.observer.withLock { $0 = o }
    }
}

@_cdecl("agoraish_media_recorder_start_recording")
public func abi_media_recorder_start_recording(_ p: OpaquePointer?, _ id: Int32,
                                               _ config: UnsafePointer<agoraish_media_recorder_configuration>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        let recorder = try engine.mediaRecorder(id)
        guard let c = readVersioned(config, knownSizes: StructSizes.mediaRecorderConfiguration),
              let path = readCString(c.storage_path) else { throw .invalidArgument }
        var o = MediaRecorderConfiguration(storagePath: path)
        if c.container_format != 0 { o.containerFormat = Int(c.container_format) }
        if c.stream_type != 0 { o.streamType = Int(c.stream_type) }
        if c.max_duration_ms != 0 { o.maxDurationMs = Int(c.max_duration_ms) }
        o.infoUpdateIntervalMs = Int(c.recorder_info_update_interval)
        if c.width != 0 || c.height != 0 {
            o.width = Int(c.width)
            o.height = Int(c.height)
        }
        if c.fps != 0 { o.fps = Int(c.fps) }
        if c.sample_rate != 0 { o.sampleRate = Int(c.sample_rate) }
        if c.channel_num != 0 { o.channels = Int(c.channel_num) }
        try recorder.start(o)
    }
}

@_cdecl("agoraish_media_recorder_stop_recording")
public func abi_media_recorder_stop_recording(_ p: OpaquePointer?, _ id: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.mediaRecorder(id).stopRecording() }
}

@_cdecl("agoraish_engine_destroy_media_recorder")
public func abi_engine_destroy_media_recorder(_ p: OpaquePointer?, _ id: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.destroyMediaRecorder(id) }
}
