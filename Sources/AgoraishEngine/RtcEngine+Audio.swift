import AgoraishMedia
import AgoraishWire

/// Audio pushed by the host and pulled by the host (Agora's external audio
/// source and sink).
extension RtcEngine {
    /// setAudioProfile: the profile used by the next external source.
    public func setAudioProfile(_ profile: Int32) throws(AgoraError) {
        guard let p = AudioProfile(rawValue: profile) else { throw .invalidArgument }
        state.withLock { $0.audioProfile = p }
    }

    /// setExternalAudioSource: PCM pushed at `sampleRate` (8, 16, 32, 44.1 or
    /// 48 kHz) with 1 or 2 channels replaces capture.
    public func setExternalAudioSource(enabled: Bool, sampleRate: Int, channels: Int) throws(AgoraError) {
        let live = link.read { $0.profile } == 1
        let settings = state.withLock { $0.audioProfile }.settings(liveBroadcasting: live)
        try audio.setSource(enabled: enabled, sampleRate: sampleRate, channels: channels, profile: settings)
        log.log(.info, "api setExternalAudioSource \(enabled) \(sampleRate) Hz \(channels) ch")
    }

    /// pushExternalAudioFrame: interleaved 16-bit samples, any count. Returns
    /// the samples per channel (at 48 kHz) waiting for the next 20 ms frame.
    public func pushExternalAudioFrame(_ samples: UnsafeBufferPointer<Int16>) throws(AgoraError) -> Int {
        let channels = max(1, externalSourceChannels)
        guard samples.count % channels == 0 else { throw .invalidArgument }
        return try audio.push(samples.baseAddress, samplesPerChannel: samples.count / channels)
    }

    /// pushExternalAudioFrame from C: `samplesPerChannel` frames of the source's
    /// channel count, read under the source's lock.
    public func pushExternalAudioFrame(_ samples: UnsafePointer<Int16>?, samplesPerChannel: Int) throws(AgoraError) -> Int {
        try audio.push(samples, samplesPerChannel: samplesPerChannel)
    }

    /// setExternalAudioSink: the sample rate and channels pulls deliver.
    public func setExternalAudioSink(enabled: Bool = true, sampleRate: Int, channels: Int) throws(AgoraError) {
        try audio.setSink(enabled: enabled, sampleRate: sampleRate, channels: channels)
        log.log(.info, "api setExternalAudioSink \(enabled) \(sampleRate) Hz \(channels) ch")
    }

    /// Channels of the external source, or 0 when none is enabled.
    public var externalSourceChannels: Int { audio.sourceChannels }

    /// Channels of the external sink, or 0 when none is enabled.
    public var externalSinkChannels: Int { audio.sinkChannels }

    /// pullPlaybackAudioFrame: fills `out` (interleaved) with the mix of every
    /// remote stream, at the sink's rate.
    public func pullPlaybackAudioFrame(into out: UnsafeMutableBufferPointer<Int16>) throws(AgoraError) {
        try audio.pull(into: out, now: .now())
    }
}
