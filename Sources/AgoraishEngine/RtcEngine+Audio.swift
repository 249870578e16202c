import AgoraishMedia
import AgoraishSession
import AgoraishWire

/// Audio: profiles, external source and sink, switches, volumes, raw audio
/// observers, volume indication, recording and devices (Agora's names).
extension RtcEngine {
    /// setAudioProfile: the encoder's profile, now and for later sources.
    public func setAudioProfile(_ profile: Int32) throws(AgoraError) {
        guard let p = AudioProfile(rawValue: profile) else { throw .invalidArgument }
        state.withLock { $0.audioProfile = p }
        audio.setProfile(p.settings(liveBroadcasting: link.read { $0.profile } == 1))
        log.log(.info, "api setAudioProfile \(profile)")
    }

    /// setExternalAudioSource: PCM pushed at `sampleRate` (8, 16, 32, 44.1 or
    /// 48 kHz) with 1 or 2 channels replaces capture.
    public func setExternalAudioSource(enabled: Bool, sampleRate: Int, channels: Int) throws(AgoraError) {
        let live = link.read { $0.profile } == 1
        let settings = state.withLock { $0.audioProfile }.settings(liveBroadcasting: live)
        try audio.setSource(enabled: enabled, sampleRate: sampleRate, channels: channels, profile: settings)
        audio.settings.withLock { $0.sourceKind = .mixable(processing: false) }
        device.refresh()
        log.log(.info, "api setExternalAudioSource \(enabled) \(sampleRate) Hz \(channels) ch")
    }

    /// pushExternalAudioFrame: interleaved 16-bit samples, any count. Returns
    /// the samples per channel (at 48 kHz) waiting for the next 10 ms frame.
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
        device.refresh()
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

    // MARK: - Switches

    /// enableAudio / disableAudio: all audio, both directions.
    public func setAudioEnabled(_ enabled: Bool) throws(AgoraError) {
        audio.settings.withLock { $0.audioEnabled = enabled }
        afterLocalChange()
        log.log(.info, "api \(enabled ? "enableAudio" : "disableAudio")")
    }

    /// enableLocalAudio: capture and sending on or off; receiving goes on.
    public func enableLocalAudio(_ enabled: Bool) throws(AgoraError) {
        audio.settings.withLock { $0.localEnabled = enabled }
        afterLocalChange()
        log.log(.info, "api enableLocalAudio \(enabled)")
    }

    /// muteLocalAudioStream: stop or resume sending; capture and the record observer go on.
    public func muteLocalAudioStream(_ mute: Bool) throws(AgoraError) {
        let was = audio.settings.withLock { s -> Bool in defer { s.localMuted = mute }; return s.localMuted }
        if was && !mute { audio.resetPublished() }
        afterLocalChange()
        log.log(.info, "api muteLocalAudioStream \(mute)")
    }

    /// After a change of what is sent: the server hears of a mute (or of
    /// nothing published), the device follows.
    func afterLocalChange() {
        let (enabled, local, muted, publishing) = audio.settings.withLock {
            ($0.audioEnabled, $0.localEnabled, $0.localMuted || $0.spatialMuted, $0.publishMicrophone || $0.source != nil)
        }
        if !enabled || !local { audio.localStopped() }
        if !enabled { audio.resetReceiveBuffers() }
        try? link.call { s, _ throws(SessionError) in s.setLocalAudioMuted(!enabled || !local || muted || !publishing) }
        device.refresh()
    }

    /// muteRemoteAudioStream: stop or resume receiving one user's audio.
    public func muteRemoteAudioStream(uid: UInt32, mute: Bool) throws(AgoraError) {
        guard uid != 0 else { throw .invalidArgument }
        try changeReceivePolicy { s throws(SessionError) in try s.muteRemoteAudio(uid: uid, mute) }
        log.log(.info, "api muteRemoteAudioStream \(uid) \(mute)")
    }

    /// muteAllRemoteAudioStreams: everyone's audio, including users who join later.
    public func muteAllRemoteAudioStreams(_ mute: Bool) throws(AgoraError) {
        try changeReceivePolicy { s throws(SessionError) in s.muteAllRemoteAudio(mute) }
        log.log(.info, "api muteAllRemoteAudioStreams \(mute)")
    }

    /// setDefaultMuteAllRemoteAudioStreams: whether users who join later start muted.
    public func setDefaultMuteAllRemoteAudioStreams(_ mute: Bool) throws(AgoraError) {
        try changeReceivePolicy { s throws(SessionError) in s.setDefaultMuteAllRemoteAudio(mute) }
        log.log(.info, "api setDefaultMuteAllRemoteAudioStreams \(mute)")
    }

    /// Applies a change to whose audio is received: the server stops or starts
    /// forwarding, the audio path stops playing, and remote states are reported.
    private func changeReceivePolicy(_ body: (inout ClientSession) throws(SessionError) -> Void) throws(AgoraError) {
        let (before, after, users): (ClientSession.AudioReceivePolicy, ClientSession.AudioReceivePolicy, Set<UInt32>)
        do {
            (before, after, users) = try link.call { s, _ throws(SessionError) in
                let b = s.audioPolicy
                try body(&s)
                return (b, s.audioPolicy, s.remoteUsers)
            }
        } catch {
            throw Self.map(error)
        }
        let policy = after
        audio.settings.withLock { $0.blocked = (policy.allMuted, { policy.blocks($0) }) }
        for uid in users.sorted() where before.blocks(uid) != after.blocks(uid) {
            audio.locallyMuted(uid: uid, muted: after.blocks(uid))
        }
    }

    // MARK: - Volumes

    /// adjustRecordingSignalVolume: 0...400 (100 unchanged; above 100 clips).
    public func adjustRecordingSignalVolume(_ volume: Int) throws(AgoraError) {
        guard (0...400).contains(volume) else { throw .invalidArgument }
        audio.settings.withLock { $0.recordingVolume = volume }
    }

    /// adjustPlaybackSignalVolume: 0...400, the mix of every remote user.
    public func adjustPlaybackSignalVolume(_ volume: Int) throws(AgoraError) {
        guard (0...400).contains(volume) else { throw .invalidArgument }
        audio.settings.withLock { $0.playbackVolume = volume }
    }

    /// adjustUserPlaybackSignalVolume: 0...100 for one remote user.
    public func adjustUserPlaybackSignalVolume(uid: UInt32, volume: Int) throws(AgoraError) {
        guard uid != 0, (0...100).contains(volume) else { throw .invalidArgument }
        audio.settings.withLock { $0.userVolumes[uid] = volume == 100 ? nil : volume }
    }

    /// enableAudioVolumeIndication: `interval` ms (<= 0 off, else at least 10),
    /// `smooth` 0...10, `reportVad` fills the local vad.
    public func enableAudioVolumeIndication(interval: Int, smooth: Int, reportVad: Bool) throws(AgoraError) {
        guard interval <= 0 || interval >= 10, interval <= 60_000, (0...10).contains(smooth) else { throw .invalidArgument }
        device.update { $0.indication = (max(0, interval), smooth, reportVad) }
        log.log(.info, "api enableAudioVolumeIndication \(interval) \(smooth) \(reportVad)")
    }

    // MARK: - Raw audio

    /// registerAudioFrameObserver (nil unregisters). When it returns, the old
    /// observer gets no further callback, unless the call comes from inside one
    /// of its own callbacks (then the callback in progress finishes).
    public func registerAudioFrameObserver(_ observer: AudioFrameObserver?) {
        audio.settings.withLock {
            $0.observer = observer
            $0.generation += 1
        }
        if !AudioPipeline.isInCallback {
            // Wait for callbacks in progress on either path.
            audio.sendLock.withLock { _ in }
            audio.playLock.withLock { _ in }
        }
        log.log(.info, "api registerAudioFrameObserver \(observer == nil ? "none" : "set")")
    }

    /// setRecordingAudioFrameParameters.
    public func setRecordingAudioFrameParameters(_ p: AudioTapParameters) throws(AgoraError) {
        guard p.isValid else { throw .invalidArgument }
        audio.settings.withLock { $0.recordParameters = p; $0.generation += 1 }
    }

    /// setPlaybackAudioFrameParameters.
    public func setPlaybackAudioFrameParameters(_ p: AudioTapParameters) throws(AgoraError) {
        guard p.isValid else { throw .invalidArgument }
        audio.settings.withLock { $0.playbackParameters = p; $0.generation += 1 }
    }

    /// setMixedAudioFrameParameters (read-only position).
    public func setMixedAudioFrameParameters(sampleRate: Int, channels: Int, samplesPerCall: Int) throws(AgoraError) {
        let p = AudioTapParameters(sampleRate: sampleRate, channels: channels, mode: .readOnly, samplesPerCall: samplesPerCall)
        guard p.isValid else { throw .invalidArgument }
        audio.settings.withLock { $0.mixedParameters = p; $0.generation += 1 }
    }

    /// setPlaybackAudioFrameBeforeMixingParameters (read-only position, 10 ms per call).
    public func setPlaybackAudioFrameBeforeMixingParameters(sampleRate: Int, channels: Int) throws(AgoraError) {
        let p = AudioTapParameters(sampleRate: sampleRate, channels: channels, mode: .readOnly, samplesPerCall: 0)
        guard p.isValid else { throw .invalidArgument }
        audio.settings.withLock { $0.beforeMixingParameters = p; $0.generation += 1 }
    }

    // MARK: - Recording

    /// startAudioRecording: WAV, or Ogg Opus for ".ogg" / ".opus" paths.
    public func startAudioRecording(path: String, sampleRate: Int, position: Int32, quality: Int32) throws(AgoraError) {
        guard !path.utf8.contains(0), path.utf8.count <= 4095 else { throw .invalidArgument }
        let r = try AudioRecorder(path: path, sampleRate: sampleRate, position: position, quality: quality)
        let old = audio.recorder.withLock { rec -> AudioRecorder? in defer { rec = r }; return rec }
        old?.close()
        log.log(.info, "api startAudioRecording \(path) \(sampleRate) Hz position \(position) quality \(quality)")
    }

    /// stopAudioRecording. Throws `.notReady` when not recording... never: it is idempotent.
    public func stopAudioRecording() {
        audio.stopRecording()
        log.log(.info, "api stopAudioRecording")
    }

    // MARK: - Devices

    /// The ALSA devices for capture (`recording`) or playback.
    public func audioDevices(recording: Bool) -> [AudioDeviceInfo] { AudioDeviceModule.devices(capture: recording) }

    /// setRecordingDevice / setPlaybackDevice: an ALSA PCM name.
    public func setAudioDevice(recording: Bool, id: String) throws(AgoraError) {
        guard !id.isEmpty, id.utf8.count < 512, !id.utf8.contains(0) else { throw .invalidArgument }
        device.update { c in
            if recording { c.recordingDevice = id } else { c.playbackDevice = id }
            c.generation += 1
        }
        log.log(.info, "api set\(recording ? "Recording" : "Playback")Device \(id)")
    }

    /// The selected device id.
    public func audioDevice(recording: Bool) -> String {
        device.config.withLock { recording ? $0.recordingDevice : $0.playbackDevice }
    }

    /// startRecordingDeviceTest / stopRecordingDeviceTest (nil stops).
    public func recordingDeviceTest(interval: Int?) throws(AgoraError) {
        if let interval { guard (10...60_000).contains(interval) else { throw .invalidArgument } }
        device.update { $0.recordingTest = interval }
    }

    /// startPlaybackDeviceTest(path) / stopPlaybackDeviceTest (nil stops): plays a WAV file in a loop.
    public func playbackDeviceTest(path: String?) throws(AgoraError) {
        var pcm: [Int16]? = nil
        if let path {
            guard let file = WavFile.read(path: path) else { throw .invalidArgument }
            pcm = file.monoAt48k()
        }
        device.update { $0.playbackTest = pcm }
    }

    /// startAudioDeviceLoopbackTest / stopAudioDeviceLoopbackTest (nil stops).
    public func audioDeviceLoopbackTest(interval: Int?) throws(AgoraError) {
        if let interval { guard (10...60_000).contains(interval) else { throw .invalidArgument } }
        device.update { $0.loopbackTest = interval }
    }
}

extension AudioPipeline {
    /// Finishes and closes the recording file, if any.
    func stopRecording() {
        let r = recorder.withLock { rec -> AudioRecorder? in defer { rec = nil }; return rec }
        r?.close()
    }

    /// Forgets remote audio (audio disabled): streams restart when it is enabled.
    func resetReceiveBuffers() {
        for s in streams.withLock({ Array($0.values) }) { s.state.withLock { $0.buffer.reset() } }
    }
}
