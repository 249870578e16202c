/// Agora's AUDIO_PROFILE_TYPE and what each means for the Opus encoder here.
///
/// | profile | value | encoded audio |
/// |---|---|---|
/// | DEFAULT | 0 | communication: as SPEECH_STANDARD; live broadcasting: as MUSIC_STANDARD |
/// | SPEECH_STANDARD | 1 | 32 kHz band (super-wideband), speech, mono, up to 18 kbps |
/// | MUSIC_STANDARD | 2 | 48 kHz (fullband), music, mono, up to 64 kbps |
/// | MUSIC_STANDARD_STEREO | 3 | 48 kHz, music, stereo, up to 80 kbps |
/// | MUSIC_HIGH_QUALITY | 4 | 48 kHz, music, mono, up to 96 kbps |
/// | MUSIC_HIGH_QUALITY_STEREO | 5 | 48 kHz, music, stereo, up to 128 kbps |
/// | IOT | 6 | 16 kHz band (wideband), speech, mono, up to 16 kbps |
///
/// Opus always runs at 48 kHz on the wire (RFC 7587); the band limit is set
/// with OPUS_SET_MAX_BANDWIDTH, so every profile interoperates.
public enum AudioProfile: Int32, Sendable, CaseIterable {
    case `default` = 0
    case speechStandard = 1
    case musicStandard = 2
    case musicStandardStereo = 3
    case musicHighQuality = 4
    case musicHighQualityStereo = 5
    case iot = 6

    /// The encoder settings for this profile in a channel profile (0 communication, 1 live).
    public func settings(liveBroadcasting: Bool) -> OpusSettings {
        switch self {
        case .default:
            return (liveBroadcasting ? AudioProfile.musicStandard : .speechStandard).settings(liveBroadcasting: liveBroadcasting)
        case .speechStandard:
            return OpusSettings(bandwidthHz: 32000, channels: 1, bitrate: 18000, application: .voip)
        case .musicStandard:
            return OpusSettings(bandwidthHz: 48000, channels: 1, bitrate: 64000, application: .audio)
        case .musicStandardStereo:
            return OpusSettings(bandwidthHz: 48000, channels: 2, bitrate: 80000, application: .audio)
        case .musicHighQuality:
            return OpusSettings(bandwidthHz: 48000, channels: 1, bitrate: 96000, application: .audio)
        case .musicHighQualityStereo:
            return OpusSettings(bandwidthHz: 48000, channels: 2, bitrate: 128_000, application: .audio)
        case .iot:
            return OpusSettings(bandwidthHz: 16000, channels: 1, bitrate: 16000, application: .voip)
        }
    }
}

/// How an Opus encoder is set up.
public struct OpusSettings: Sendable, Equatable {
    /// What the encoder tunes for.
    public enum Application: Sendable, Equatable {
        /// OPUS_APPLICATION_VOIP: speech intelligibility.
        case voip
        /// OPUS_APPLICATION_AUDIO: fidelity for music.
        case audio
    }

    /// Highest audio frequency band kept (8000, 12000, 16000, 24000 or 48000 ... as the
    /// band's sample rate: 16000 is wideband, 32000 super-wideband, 48000 fullband).
    public var bandwidthHz: Int32
    /// 1 or 2.
    public var channels: Int32
    /// Target bits per second.
    public var bitrate: Int32
    /// Speech or music tuning.
    public var application: Application
    /// In-band FEC (RFC 6716 LBRR) so a receiver can rebuild a lost frame from the next one.
    public var inbandFEC = true
    /// The loss the encoder plans FEC for, in percent.
    public var expectedLossPercent: Int32 = 10
    /// Discontinuous transmission during silence.
    public var dtx = false
    /// 0 (fastest) ... 10 (best).
    public var complexity: Int32 = 9

    /// Settings with the given band, channels, bitrate and tuning.
    public init(bandwidthHz: Int32, channels: Int32, bitrate: Int32, application: Application) {
        self.bandwidthHz = bandwidthHz
        self.channels = channels
        self.bitrate = bitrate
        self.application = application
    }
}
