import AgoraishEngine
import AgoraishMedia
import CAgoraishABI

// Voice processing, voice effects and spatial audio (include/agoraish.h, ABI 0.14).

// MARK: - Audio processing

@_cdecl("agoraish_engine_set_audio_scenario")
public func abi_engine_set_audio_scenario(_ p: OpaquePointer?, _ scenario: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setAudioScenario(scenario) }
}

@_cdecl("agoraish_engine_set_ains_mode")
public func abi_engine_set_ains_mode(_ p: OpaquePointer?, _ enabled: Int32, _ mode: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setAINSMode(enabled: enabled != 0, mode: mode) }
}

@_cdecl("agoraish_engine_enable_custom_audio_track_processing")
public func abi_engine_enable_custom_audio_track_processing(_ p: OpaquePointer?, _ track: Int32, _ enabled: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.enableCustomAudioTrackProcessing(track: track, enabled != 0) }
}

// MARK: - Voice effects

@_cdecl("agoraish_engine_set_voice_beautifier_preset")
public func abi_engine_set_voice_beautifier_preset(_ p: OpaquePointer?, _ preset: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setVoiceBeautifierPreset(preset) }
}

@_cdecl("agoraish_engine_set_audio_effect_preset")
public func abi_engine_set_audio_effect_preset(_ p: OpaquePointer?, _ preset: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setAudioEffectPreset(preset) }
}

@_cdecl("agoraish_engine_set_voice_conversion_preset")
public func abi_engine_set_voice_conversion_preset(_ p: OpaquePointer?, _ preset: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setVoiceConversionPreset(preset) }
}

@_cdecl("agoraish_engine_set_voice_beautifier_parameters")
public func abi_engine_set_voice_beautifier_parameters(_ p: OpaquePointer?, _ preset: Int32, _ param1: Int32,
                                                       _ param2: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.setVoiceBeautifierParameters(preset: preset, param1: param1, param2: param2)
    }
}

@_cdecl("agoraish_engine_set_audio_effect_parameters")
public func abi_engine_set_audio_effect_parameters(_ p: OpaquePointer?, _ preset: Int32, _ param1: Int32,
                                                   _ param2: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.setAudioEffectParameters(preset: preset, param1: param1, param2: param2)
    }
}

@_cdecl("agoraish_engine_set_local_voice_pitch")
public func abi_engine_set_local_voice_pitch(_ p: OpaquePointer?, _ pitch: Double) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setLocalVoicePitch(pitch) }
}

@_cdecl("agoraish_engine_set_local_voice_formant")
public func abi_engine_set_local_voice_formant(_ p: OpaquePointer?, _ ratio: Double) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setLocalVoiceFormant(ratio) }
}

@_cdecl("agoraish_engine_set_local_voice_equalization")
public func abi_engine_set_local_voice_equalization(_ p: OpaquePointer?, _ band: Int32, _ gain: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setLocalVoiceEqualization(band: band, gain: gain) }
}

@_cdecl("agoraish_engine_set_local_voice_reverb")
public func abi_engine_set_local_voice_reverb(_ p: OpaquePointer?, _ key: Int32, _ value: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setLocalVoiceReverb(key: key, value: value) }
}

@_cdecl("agoraish_engine_set_headphone_eq_preset")
public func abi_engine_set_headphone_eq_preset(_ p: OpaquePointer?, _ preset: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setHeadphoneEQPreset(preset) }
}

@_cdecl("agoraish_engine_set_headphone_eq_parameters")
public func abi_engine_set_headphone_eq_parameters(_ p: OpaquePointer?, _ low: Int32, _ high: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setHeadphoneEQParameters(lowGain: low, highGain: high) }
}

// MARK: - Spatial audio

/// Three floats from C; nil pointer or non-finite values are `.invalidArgument`.
private func vector(_ v: UnsafePointer<Float>?) throws(AgoraError) -> Vector3 {
    guard let v else { throw .invalidArgument }
    let out = Vector3(Double(v[0]), Double(v[1]), Double(v[2]))
    guard out.x.isFinite, out.y.isFinite, out.z.isFinite else { throw .invalidArgument }
    return out
}

@_cdecl("agoraish_spatial_audio_initialize")
public func abi_spatial_audio_initialize(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.initializeSpatialAudio() }
}

@_cdecl("agoraish_spatial_audio_release")
public func abi_spatial_audio_release(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in engine.releaseSpatialAudio() }
}

@_cdecl("agoraish_spatial_audio_update_self_position")
public func abi_spatial_audio_update_self_position(_ p: OpaquePointer?, _ position: UnsafePointer<Float>?,
                                                   _ forward: UnsafePointer<Float>?, _ right: UnsafePointer<Float>?,
                                                   _ up: UnsafePointer<Float>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.updateSpatialSelfPosition(try vector(position), forward: try vector(forward), right: try vector(right),
                                             up: try vector(up))
    }
}

@_cdecl("agoraish_spatial_audio_update_remote_position")
public func abi_spatial_audio_update_remote_position(_ p: OpaquePointer?, _ uid: UInt32, _ position: UnsafePointer<Float>?,
                                                     _ forward: UnsafePointer<Float>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.updateSpatialRemotePosition(uid: uid, try vector(position),
                                               forward: forward == nil ? nil : try vector(forward))
    }
}

@_cdecl("agoraish_spatial_audio_update_player_position")
public func abi_spatial_audio_update_player_position(_ p: OpaquePointer?, _ player: Int32, _ position: UnsafePointer<Float>?,
                                                     _ forward: UnsafePointer<Float>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        try engine.updateSpatialPlayerPosition(player: player, try vector(position),
                                               forward: forward == nil ? nil : try vector(forward))
    }
}

@_cdecl("agoraish_spatial_audio_remove_remote_position")
public func abi_spatial_audio_remove_remote_position(_ p: OpaquePointer?, _ uid: UInt32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.removeSpatialRemotePosition(uid: uid) }
}

@_cdecl("agoraish_spatial_audio_clear_remote_positions")
public func abi_spatial_audio_clear_remote_positions(_ p: OpaquePointer?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.clearSpatialRemotePositions() }
}

@_cdecl("agoraish_spatial_audio_set_audio_recv_range")
public func abi_spatial_audio_set_audio_recv_range(_ p: OpaquePointer?, _ range: Float) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setSpatialAudioRecvRange(Double(range)) }
}

@_cdecl("agoraish_spatial_audio_set_distance_unit")
public func abi_spatial_audio_set_distance_unit(_ p: OpaquePointer?, _ unit: Float) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setSpatialDistanceUnit(Double(unit)) }
}

@_cdecl("agoraish_spatial_audio_set_max_audio_recv_count")
public func abi_spatial_audio_set_max_audio_recv_count(_ p: OpaquePointer?, _ count: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setSpatialMaxAudioRecvCount(Int(count)) }
}

@_cdecl("agoraish_spatial_audio_mute_local_audio_stream")
public func abi_spatial_audio_mute_local_audio_stream(_ p: OpaquePointer?, _ mute: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.muteSpatialLocalAudioStream(mute != 0) }
}

@_cdecl("agoraish_spatial_audio_mute_all_remote_audio_streams")
public func abi_spatial_audio_mute_all_remote_audio_streams(_ p: OpaquePointer?, _ mute: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.muteSpatialAllRemoteAudioStreams(mute != 0) }
}

@_cdecl("agoraish_spatial_audio_mute_remote_audio_stream")
public func abi_spatial_audio_mute_remote_audio_stream(_ p: OpaquePointer?, _ uid: UInt32, _ mute: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.muteSpatialRemoteAudioStream(uid: uid, mute != 0) }
}

// MARK: - 3.x sound position indication

@_cdecl("agoraish_engine_enable_sound_position_indication")
public func abi_engine_enable_sound_position_indication(_ p: OpaquePointer?, _ enabled: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in engine.enableSoundPositionIndication(enabled != 0) }
}

@_cdecl("agoraish_engine_set_remote_voice_position")
public func abi_engine_set_remote_voice_position(_ p: OpaquePointer?, _ uid: UInt32, _ pan: Double, _ gain: Double) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setRemoteVoicePosition(uid: uid, pan: pan, gain: gain) }
}
