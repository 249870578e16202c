import AgoraishMedia

/// Voice processing and voice effects (docs/voice.md): the scenario, noise
/// suppression, processing of custom tracks, presets and the host's own
/// pitch, formant, equalization and reverb, and the headphone equalizer.
/// Every call takes effect at the next 10 ms frame, in a call or not.
extension RtcEngine {
    // MARK: - Audio processing

    /// setAudioScenario: AUDIO_SCENARIO_TYPE 0, 3, 5, 7 or 8.
    public func setAudioScenario(_ scenario: Int32) throws(AgoraError) {
        guard VoiceControl.Processing.scenarios.contains(scenario) else { throw .invalidArgument }
        audio.voice.processing.withLock { $0.scenario = scenario }
        log.log(.info, "api setAudioScenario \(scenario)")
    }

    /// setAINSMode: noise suppression at `mode`'s level (AUDIO_AINS_MODE 0...2), or the scenario's when disabled.
    public func setAINSMode(enabled: Bool, mode: Int32) throws(AgoraError) {
        guard (0...2).contains(mode) else { throw .invalidArgument }
        audio.voice.processing.withLock { $0.ains = enabled ? mode : nil }
        log.log(.info, "api setAINSMode \(enabled) \(mode)")
    }

    /// AudioTrackConfig.enableAudioProcessing of a mixable custom audio track.
    ///
    /// - Throws: `.invalidArgument` for an unknown or direct track.
    public func enableCustomAudioTrackProcessing(track id: Int32, _ enabled: Bool) throws(AgoraError) {
        guard owner == nil else { throw .refused }
        let kind = tracks.withLock { t -> AudioPipeline.SourceKind? in
            guard id < MediaPlayer.trackBase, t.audio[id]?.type == 0 else { return nil }
            t.audio[id]!.processing = enabled
            return t.audio[id]!.sourceKind
        }
        guard let kind else { throw .invalidArgument }
        for c in [self] + connections.withLock({ Array($0.values) }) where c.tracks.withLock({ $0.publishedAudio }) == id {
            c.audio.settings.withLock { $0.sourceKind = kind }
        }
        log.log(.info, "api enableCustomAudioTrackProcessing \(id) \(enabled)")
    }

    // MARK: - Presets

    /// setVoiceBeautifierPreset (VOICE_BEAUTIFIER_PRESET; 0 removes the beautifier).
    public func setVoiceBeautifierPreset(_ preset: Int32) throws(AgoraError) {
        try applyPreset(family: 1, preset, VoicePresets.beautifier(preset))
        log.log(.info, "api setVoiceBeautifierPreset \(preset)")
    }

    /// setAudioEffectPreset (AUDIO_EFFECT_PRESET; 0 removes the effect).
    public func setAudioEffectPreset(_ preset: Int32) throws(AgoraError) {
        try applyPreset(family: 2, preset, VoicePresets.audioEffect(preset))
        log.log(.info, "api setAudioEffectPreset \(preset)")
    }

    /// setVoiceConversionPreset (VOICE_CONVERSION_PRESET; 0 removes the conversion).
    public func setVoiceConversionPreset(_ preset: Int32) throws(AgoraError) {
        try applyPreset(family: 3, preset, VoicePresets.conversion(preset))
        log.log(.info, "api setVoiceConversionPreset \(preset)")
    }

    /// setVoiceBeautifierParameters: SINGING_BEAUTIFIER with its voice and room.
    public func setVoiceBeautifierParameters(preset: Int32, param1: Int32, param2: Int32) throws(AgoraError) {
        guard preset != 0 else { throw .invalidArgument }
        try applyPreset(family: 1, preset, VoicePresets.beautifier(preset, param1: param1, param2: param2))
        log.log(.info, "api setVoiceBeautifierParameters \(preset) \(param1) \(param2)")
    }

    /// setAudioEffectParameters: 3D voice, virtual surround and pitch correction with their parameters.
    public func setAudioEffectParameters(preset: Int32, param1: Int32, param2: Int32) throws(AgoraError) {
        guard preset != 0 else { throw .invalidArgument }
        try applyPreset(family: 2, preset, VoicePresets.audioEffect(preset, param1: param1, param2: param2))
        log.log(.info, "api setAudioEffectParameters \(preset) \(param1) \(param2)")
    }

    /// A preset of `family` (OFF is 0): it replaces whatever an earlier
    /// preset or the host's own settings did; OFF removes only its own family's.
    private func applyPreset(family: Int, _ number: Int32, _ settings: VoiceEffectSettings?) throws(AgoraError) {
        guard let settings else { throw .invalidArgument }
        audio.voice.effects.withLock { e in
            if number == 0 {
                if e.preset?.family == family { e.preset = nil }
                return
            }
            e.preset = (family, number, settings)
            e.manual = VoiceEffectSettings()
            e.reverb = VoiceReverb()
        }
    }

    // MARK: - The host's own settings

    /// Changes the host's own settings; a preset in force is removed first
    /// (the later call wins, as Agora documents).
    private func changeManual(_ body: (inout VoiceControl.Effects) -> Void) {
        audio.voice.effects.withLock { e in
            if e.preset != nil {
                e.preset = nil
                e.manual = VoiceEffectSettings()
                e.reverb = VoiceReverb()
            }
            body(&e)
        }
    }

    /// setLocalVoicePitch: 0.5...2.0.
    public func setLocalVoicePitch(_ pitch: Double) throws(AgoraError) {
        guard pitch.isFinite, (0.5...2.0).contains(pitch) else { throw .invalidArgument }
        changeManual { $0.manual.pitch = pitch }
        log.log(.info, "api setLocalVoicePitch \(pitch)")
    }

    /// setLocalVoiceFormant: -1.0...1.0.
    public func setLocalVoiceFormant(_ ratio: Double) throws(AgoraError) {
        guard ratio.isFinite, (-1.0...1.0).contains(ratio) else { throw .invalidArgument }
        changeManual { $0.manual.formantShift = ratio }
        log.log(.info, "api setLocalVoiceFormant \(ratio)")
    }

    /// setLocalVoiceEqualization: band 0...9 (31 Hz ... 16 kHz), gain -15...15 dB.
    public func setLocalVoiceEqualization(band: Int32, gain: Int32) throws(AgoraError) {
        guard (0...9).contains(band), (-15...15).contains(gain) else { throw .invalidArgument }
        changeManual { $0.manual.equalization[Int(band)] = Double(gain) }
        log.log(.info, "api setLocalVoiceEqualization \(band) \(gain)")
    }

    /// setLocalVoiceReverb: AUDIO_REVERB_TYPE 0...4 with its range. The
    /// reverb runs while it would be heard: a wet level above -20 dB, or a
    /// room size or strength above 0.
    public func setLocalVoiceReverb(key: Int32, value: Int32) throws(AgoraError) {
        let range: ClosedRange<Int32>
        switch key {
        case 0, 1: range = -20...10
        case 2, 4: range = 0...100
        case 3: range = 0...200
        default: throw .invalidArgument
        }
        guard range.contains(value) else { throw .invalidArgument }
        changeManual { e in
            switch key {
            case 0: e.reverb.dryLevelDb = Double(value)
            case 1: e.reverb.wetLevelDb = Double(value)
            case 2: e.reverb.roomSize = Double(value)
            case 3: e.reverb.wetDelayMs = Double(value)
            default: e.reverb.strength = Double(value)
            }
            let r = e.reverb
            e.manual.reverb = (r.wetLevelDb > -20 && (r.roomSize > 0 || r.strength > 0)) || r.dryLevelDb != 0 ? r : nil
        }
        log.log(.info, "api setLocalVoiceReverb \(key) \(value)")
    }

    // MARK: - Playback

    /// setHeadphoneEQPreset: HEADPHONE_EQUALIZER_PRESET.
    public func setHeadphoneEQPreset(_ preset: Int32) throws(AgoraError) {
        guard VoicePresets.headphoneEqualization(preset) != nil else { throw .invalidArgument }
        audio.voice.headphone.withLock { $0.preset = preset }
        log.log(.info, "api setHeadphoneEQPreset \(preset)")
    }

    /// setHeadphoneEQParameters: -10...10 dB on the low (31-250 Hz) and high (4-16 kHz) bands.
    public func setHeadphoneEQParameters(lowGain: Int32, highGain: Int32) throws(AgoraError) {
        guard (-10...10).contains(lowGain), (-10...10).contains(highGain) else { throw .invalidArgument }
        audio.voice.headphone.withLock {
            $0.lowGain = Int(lowGain)
            $0.highGain = Int(highGain)
        }
        log.log(.info, "api setHeadphoneEQParameters \(lowGain) \(highGain)")
    }
}
