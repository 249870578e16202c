/// Agora's voice presets as `VoiceEffectSettings`: setVoiceBeautifierPreset
/// (VOICE_BEAUTIFIER_PRESET), setAudioEffectPreset (AUDIO_EFFECT_PRESET),
/// setVoiceConversionPreset (VOICE_CONVERSION_PRESET) with their parameters,
/// and setHeadphoneEQPreset. Each preset is ordinary pitch, formant,
/// equalizer, reverb and effect settings (the table is written out in the
/// docs); a preset of the stereo kind (virtual stereo, surround, 3D voice,
/// chorus) also carries a reverb so a mono chain changes the voice too.
/// Numbers follow Agora: a member listed without a value is the previous
/// value + 0x100.
public enum VoicePresets {
    /// VOICE_BEAUTIFIER_PRESET: every number but VOICE_BEAUTIFIER_OFF (0).
    public static let beautifierPresets: [Int32] = beautifiers.map(\.number)
    /// AUDIO_EFFECT_PRESET: every number but AUDIO_EFFECT_OFF (0).
    public static let audioEffectPresets: [Int32] = audioEffects.map(\.number)
    /// VOICE_CONVERSION_PRESET: every number but VOICE_CONVERSION_OFF (0).
    public static let conversionPresets: [Int32] = conversions.map(\.number)

    // The presets with parameters; every other preset takes none (a parameter must be nil or 0).
    /// SINGING_BEAUTIFIER.
    private static let singingBeautifier: Int32 = 0x0102_0100
    /// ROOM_ACOUSTICS_3D_VOICE.
    private static let threeDimensionalVoice: Int32 = 0x0201_0800
    /// PITCH_CORRECTION.
    private static let pitchCorrection: Int32 = 0x0204_0100

    /// The settings of a VOICE_BEAUTIFIER_PRESET; nil for an unknown number or
    /// invalid parameters; OFF (0) gives the neutral settings.
    /// SINGING_BEAUTIFIER (setVoiceBeautifierParameters): `param1` 1 male
    /// (default) or 2 female, `param2` 1 small room (default), 2 large room or 3 hall.
    public static func beautifier(_ preset: Int32, param1: Int32? = nil, param2: Int32? = nil) -> VoiceEffectSettings? {
        if preset == singingBeautifier {
            let gender = param1 ?? 1, room = param2 ?? 1
            guard (1...2).contains(gender), (1...3).contains(room) else { return nil }
            var s = VoiceEffectSettings()
            s.equalization = gender == 1 ? [0, 1, 2, 2, 0, 0, 1, 2, 1, 0] : [0, 0, -1, 0, 0, 1, 2, 3, 2, 1]
            s.reverb = [rev(0, -3, 30, 10, 40), rev(0, -2, 60, 20, 55), rev(0, 0, 90, 40, 75)][Int(room) - 1]
            return s
        }
        guard noParameters(param1, param2) else { return nil }
        if preset == 0 { return VoiceEffectSettings() }
        return beautifiers.first { $0.number == preset }?.settings
    }

    /// The settings of an AUDIO_EFFECT_PRESET; nil for an unknown number or
    /// invalid parameters; OFF (0) gives the neutral settings.
    /// ROOM_ACOUSTICS_3D_VOICE: `param1` the seconds of one turn around the
    /// listener, 0 (not moving) ... 60, default 10; `param2` nil or 0.
    /// PITCH_CORRECTION: `param1` 1 natural major (default), 2 natural minor,
    /// 3 Japanese minor; `param2` the tonic, 1 A, 2 A#, 3 B, 4 C (default) ... 12 G#.
    public static func audioEffect(_ preset: Int32, param1: Int32? = nil, param2: Int32? = nil) -> VoiceEffectSettings? {
        switch preset {
        case threeDimensionalVoice:
            let seconds = param1 ?? 10
            guard (0...60).contains(seconds), (param2 ?? 0) == 0 else { return nil }
            var s = VoiceEffectSettings()
            s.orbitSeconds = Double(seconds)
            s.reverb = rev(0, -4, 40, 10, 40)
            return s
        case pitchCorrection:
            guard let mode = VoicePitchCorrection.Mode(rawValue: param1 ?? 1), (1...12).contains(param2 ?? 4) else { return nil }
            var s = VoiceEffectSettings()
            s.preserveFormant = true
            s.pitchCorrection = VoicePitchCorrection(mode: mode, tonic: param2 ?? 4)
            return s
        default:
            guard noParameters(param1, param2) else { return nil }
            if preset == 0 { return VoiceEffectSettings() }
            return audioEffects.first { $0.number == preset }?.settings
        }
    }

    /// The settings of a VOICE_CONVERSION_PRESET; nil for an unknown number;
    /// OFF (0) gives the neutral settings.
    public static func conversion(_ preset: Int32) -> VoiceEffectSettings? {
        if preset == 0 { return VoiceEffectSettings() }
        return conversions.first { $0.number == preset }?.settings
    }

    /// HEADPHONE_EQUALIZER_PRESET: OFF 0x00000000, OVEREAR 0x04000001, INEAR
    /// 0x04000002: the ten equalizer gains (dB, the bands of
    /// `VoiceEffectSettings.equalization`) for playback; nil for an unknown number.
    /// Over-ear: more low end, a dip at 2 kHz, some air; in-ear: less deep
    /// bass, more presence, tamer 8 kHz peak.
    public static func headphoneEqualization(_ preset: Int32) -> [Double]? {
        switch preset {
        case 0: return [Double](repeating: 0, count: 10)
        case 0x0400_0001: return [4, 3, 2, 0, 0, 0, -1, 1, 2, 1]
        case 0x0400_0002: return [2, 2, 1, 0, 0, 1, 2, 1, -2, -1]
        default: return nil
        }
    }

    /// The name Agora gives a preset number (for logs and the docs' table); nil when unknown.
    public static func name(_ preset: Int32) -> String? {
        (beautifiers + audioEffects + conversions).first { $0.number == preset }?.name
    }

    // MARK: - The tables

    /// One row of a table: Agora's number and name, and what the chain does.
    private struct Preset: Sendable {
        let number: Int32
        let name: String
        let settings: VoiceEffectSettings
    }

    private static func noParameters(_ p1: Int32?, _ p2: Int32?) -> Bool { (p1 ?? 0) == 0 && (p2 ?? 0) == 0 }

    private static func rev(_ dry: Double, _ wet: Double, _ room: Double, _ delay: Double, _ strength: Double) -> VoiceReverb {
        VoiceReverb(dryLevelDb: dry, wetLevelDb: wet, roomSize: room, wetDelayMs: delay, strength: strength)
    }

    /// A preset: `eq` the ten band gains, `pitch` with formants kept
    /// (`keep`) or moved, `formant` the extra shift in octaves, then whatever `more` sets.
    private static func preset(_ number: Int32, _ name: String, eq: [Double] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                               pitch: Double = 1, keep: Bool = true, formant: Double = 0,
                               _ more: (inout VoiceEffectSettings) -> Void = { _ in }) -> Preset {
        var s = VoiceEffectSettings()
        s.equalization = eq
        s.pitch = pitch
        s.preserveFormant = keep
        s.formantShift = formant
        more(&s)
        return Preset(number: number, name: name, settings: s)
    }

    /// VOICE_BEAUTIFIER_PRESET: chat (male magnetic; female fresh, vitality), singing, timbres, ultra high quality.
    private static let beautifiers: [Preset] = [
        preset(0x0101_0100, "CHAT_BEAUTIFIER_MAGNETIC", eq: [0, 3, 4, 4, 2, -1, 0, 2, 2, 0]) { $0.highPassHz = 60 },
        preset(0x0101_0200, "CHAT_BEAUTIFIER_FRESH", eq: [0, 0, -2, -1, 0, 1, 2, 3, 2, 1]) { $0.highPassHz = 100 },
        preset(0x0101_0300, "CHAT_BEAUTIFIER_VITALITY", eq: [0, 0, -1, 0, 1, 2, 3, 3, 2, 0]) { $0.highPassHz = 100 },
        Preset(number: singingBeautifier, name: "SINGING_BEAUTIFIER", settings: beautifier(singingBeautifier)!),
        preset(0x0103_0100, "TIMBRE_TRANSFORMATION_VIGOROUS", eq: [0, 0, 0, 2, 3, 3, 2, 0, 0, 0]),
        preset(0x0103_0200, "TIMBRE_TRANSFORMATION_DEEP", eq: [2, 4, 4, 2, 0, 0, -1, -2, -2, 0]),
        preset(0x0103_0300, "TIMBRE_TRANSFORMATION_MELLOW", eq: [0, 1, 2, 2, 1, 0, -2, -4, -5, -5]),
        preset(0x0103_0400, "TIMBRE_TRANSFORMATION_FALSETTO", eq: [0, -4, -4, -2, 0, 2, 4, 4, 2, 0]) { $0.highPassHz = 150 },
        preset(0x0103_0500, "TIMBRE_TRANSFORMATION_FULL", eq: [1, 3, 3, 3, 2, 0, 0, 1, 0, 0]),
        preset(0x0103_0600, "TIMBRE_TRANSFORMATION_CLEAR", eq: [0, -2, -2, -1, 0, 1, 3, 4, 3, 1]) { $0.highPassHz = 100 },
        preset(0x0103_0700, "TIMBRE_TRANSFORMATION_RESOUNDING", eq: [0, 2, 2, 1, 0, 1, 2, 1, 0, 0]) {
            $0.reverb = rev(0, -3, 40, 15, 45)
        },
        preset(0x0103_0800, "TIMBRE_TRANSFORMATION_RINGING", eq: [0, 0, -2, -1, 0, 1, 2, 4, 5, 4]) {
            $0.reverb = rev(0, -6, 20, 5, 30)
        },
        preset(0x0104_0100, "ULTRA_HIGH_QUALITY_VOICE", eq: [0, 0, 0, -1, 0, 0, 1, 1, 2, 2]) { $0.highPassHz = 70 },
    ]

    /// AUDIO_EFFECT_PRESET: room acoustics, voice changers, styles, pitch correction.
    private static let audioEffects: [Preset] = [
        preset(0x0201_0100, "ROOM_ACOUSTICS_KTV", eq: [0, 0, 0, 0, 0, 0, 1, 2, 1, 0]) { $0.reverb = rev(0, 0, 55, 20, 60) },
        preset(0x0201_0200, "ROOM_ACOUSTICS_VOCAL_CONCERT") {
            $0.reverb = rev(0, 2, 90, 45, 80)
            $0.stereoWidth = 0.3
        },
        preset(0x0201_0300, "ROOM_ACOUSTICS_STUDIO", eq: [0, 0, 0, 0, 0, 0, 1, 2, 2, 1]) { $0.reverb = rev(0, -4, 25, 8, 35) },
        preset(0x0201_0400, "ROOM_ACOUSTICS_PHONOGRAPH", eq: [0, 0, 0, 0, 2, 3, 2, 0, 0, 0]) {
            $0.highPassHz = 300
            $0.lowPassHz = 4000
            $0.distortion = VoiceDistortion(gainDb: 6, colour: 30)
        },
        preset(0x0201_0500, "ROOM_ACOUSTICS_VIRTUAL_STEREO") {
            $0.stereoWidth = 0.8
            $0.reverb = rev(0, -3, 30, 10, 30)
        },
        preset(0x0201_0600, "ROOM_ACOUSTICS_SPACIAL", eq: [0, 0, 0, 0, 0, 0, 0, 1, 1, 1]) {
            $0.reverb = rev(0, 2, 100, 80, 70)
            $0.stereoWidth = 0.4
        },
        preset(0x0201_0700, "ROOM_ACOUSTICS_ETHEREAL", eq: [0, -2, -2, 0, 0, 0, 1, 2, 3, 3]) {
            $0.reverb = rev(-2, 3, 100, 60, 90)
            $0.chorus = VoiceChorus(delayMs: 45, decay: 0.3, speedHz: 0.3, depthMs: 3, voices: 2)
        },
        Preset(number: threeDimensionalVoice, name: "ROOM_ACOUSTICS_3D_VOICE", settings: audioEffect(threeDimensionalVoice)!),
        preset(0x0201_0900, "ROOM_ACOUSTICS_VIRTUAL_SURROUND_SOUND") {
            $0.stereoWidth = 1
            $0.reverb = rev(0, 0, 80, 30, 60)
        },
        preset(0x0201_0D00, "ROOM_ACOUSTICS_CHORUS") {
            $0.chorus = VoiceChorus(delayMs: 40, decay: 0.5, speedHz: 0.4, depthMs: 3, voices: 3)
            $0.stereoWidth = 0.5
            $0.reverb = rev(0, -3, 50, 20, 45)
        },
        preset(0x0202_0100, "VOICE_CHANGER_EFFECT_UNCLE", eq: [0, 2, 3, 1, 0, 0, -1, -2, 0, 0], pitch: 0.85, formant: -0.1),
        preset(0x0202_0200, "VOICE_CHANGER_EFFECT_OLDMAN", eq: [0, 0, -2, 0, 2, 2, 0, -2, -3, 0], pitch: 0.9, formant: -0.05) {
            $0.highPassHz = 120
            $0.tremolo = VoiceTremolo(speedHz: 5, depth: 20)
        },
        preset(0x0202_0300, "VOICE_CHANGER_EFFECT_BOY", pitch: 1.3, formant: 0.3),
        preset(0x0202_0400, "VOICE_CHANGER_EFFECT_SISTER", eq: [0, 0, -1, 0, 0, 0, 1, 2, 2, 0], pitch: 1.2, formant: 0.2),
        preset(0x0202_0500, "VOICE_CHANGER_EFFECT_GIRL", pitch: 1.45, formant: 0.4),
        preset(0x0202_0600, "VOICE_CHANGER_EFFECT_PIGKING", eq: [0, 0, 0, 2, 4, 4, 0, -2, -2, 0], pitch: 0.8, formant: 0.15),
        preset(0x0202_0700, "VOICE_CHANGER_EFFECT_HULK", eq: [2, 3, 2, 0, 0, 0, 0, 0, 0, 0], pitch: 0.62, formant: -0.35) {
            $0.distortion = VoiceDistortion(gainDb: 8, colour: 20)
            $0.reverb = rev(0, -4, 50, 10, 40)
        },
        preset(0x0203_0100, "STYLE_TRANSFORMATION_RNB", eq: [2, 3, 2, 0, -1, 0, 1, 2, 2, 1]) { $0.reverb = rev(0, -2, 50, 25, 55) },
        preset(0x0203_0200, "STYLE_TRANSFORMATION_POPULAR", eq: [0, 1, 1, 0, 0, 1, 2, 2, 1, 0]) {
            $0.reverb = rev(0, -3, 35, 15, 40)
            $0.echo = VoiceEcho(delayMs: 90, decay: 0.2)
        },
        Preset(number: pitchCorrection, name: "PITCH_CORRECTION", settings: audioEffect(pitchCorrection)!),
    ]

    /// VOICE_CONVERSION_PRESET: the gender and age conversions, then the characters.
    private static let conversions: [Preset] = [
        preset(0x0301_0100, "VOICE_CHANGER_NEUTRAL", pitch: 1.1, formant: 0.1),
        preset(0x0301_0200, "VOICE_CHANGER_SWEET", eq: [0, 0, -1, -1, 0, 0, 1, 2, 2, 1], pitch: 1.15, formant: 0.2),
        preset(0x0301_0300, "VOICE_CHANGER_SOLID", eq: [0, 1, 2, 1, 0, 0, 0, -1, 0, 0], pitch: 0.92, formant: -0.08),
        preset(0x0301_0400, "VOICE_CHANGER_BASS", eq: [1, 3, 2, 0, 0, 0, 0, -1, -1, 0], pitch: 0.8, formant: -0.15),
        preset(0x0302_0100, "VOICE_CHANGER_CARTOON", pitch: 1.6, keep: false, formant: -0.2),
        preset(0x0302_0200, "VOICE_CHANGER_CHILDLIKE", pitch: 1.4, formant: 0.35),
        preset(0x0302_0300, "VOICE_CHANGER_PHONE_OPERATOR", eq: [0, 0, 0, 0, 0, 2, 3, 0, 0, 0], pitch: 1.1, formant: 0.1) {
            $0.highPassHz = 300
            $0.lowPassHz = 3400
        },
        preset(0x0302_0400, "VOICE_CHANGER_MONSTER", pitch: 0.55, keep: false) {
            $0.distortion = VoiceDistortion(gainDb: 12, colour: 30)
            $0.reverb = rev(0, -2, 70, 20, 60)
        },
        preset(0x0302_0500, "VOICE_CHANGER_TRANSFORMERS", pitch: 0.85) {
            $0.flanger = VoiceFlanger(delayMs: 3, depthMs: 2, regeneration: 70, speedHz: 0.3)
            $0.distortion = VoiceDistortion(gainDb: 6, colour: 10)
        },
        preset(0x0302_0600, "VOICE_CHANGER_GROOT", eq: [2, 3, 3, 0, 0, 0, 0, 0, 0, 0], pitch: 0.7, formant: -0.3) {
            $0.lowPassHz = 5000
        },
        preset(0x0302_0700, "VOICE_CHANGER_DARTH_VADER", eq: [0, 0, 0, 0, 2, 3, 0, 0, 0, 0], pitch: 0.68, formant: -0.2) {
            $0.highPassHz = 80
            $0.lowPassHz = 6000
            $0.distortion = VoiceDistortion(gainDb: 4, colour: 20)
            $0.reverb = rev(0, -5, 30, 5, 30)
        },
        preset(0x0302_0800, "VOICE_CHANGER_IRONLADY", pitch: 1.15, formant: 0.1) {
            $0.flanger = VoiceFlanger(delayMs: 1, depthMs: 1, regeneration: 50, speedHz: 0.2)
        },
        preset(0x0302_0900, "VOICE_CHANGER_SHIN_CHAN", eq: [0, 0, 0, 0, 3, 4, 2, 0, 0, 0], pitch: 1.35, formant: 0.25),
        preset(0x0302_0A00, "VOICE_CHANGER_GIRLISH_MAN", eq: [0, 0, -1, 0, 0, 0, 1, 1, 1, 0], pitch: 1.25, formant: 0.05),
        preset(0x0302_0B00, "VOICE_CHANGER_CHIPMUNK", pitch: 1.9, keep: false),
    ]
}
