import AgoraishMedia
import AgoraishWire

/// Audio pushed by the host and pulled by the host (Agora's external audio
/// source and sink). The C ABI exposes these once the rest of the audio
/// surface (devices, observers, controls) is in place.
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
        try audio.push(samples)
    }

    /// setExternalAudioSink: the sample rate and channels pulls deliver.
    public func setExternalAudioSink(sampleRate: Int, channels: Int) throws(AgoraError) {
        try audio.setSink(sampleRate: sampleRate, channels: channels)
    }

    /// pullPlaybackAudioFrame: fills `out` (interleaved) with the mix of every
    /// remote stream, at the sink's rate.
    public func pullPlaybackAudioFrame(into out: UnsafeMutableBufferPointer<Int16>) throws(AgoraError) {
        try audio.pull(into: out, now: .now())
    }
}
