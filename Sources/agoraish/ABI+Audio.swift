import AgoraishEngine
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
