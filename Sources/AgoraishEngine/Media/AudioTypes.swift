import AgoraishMedia

/// Something the audio path reports (Agora's audio callbacks). Delivered on
/// the engine's event thread, in order.
public enum AudioEvent: Sendable, Equatable {
    /// onFirstLocalAudioFramePublished: the first audio sent after a join, an
    /// unmute or enabling local audio; milliseconds since the join call.
    case firstLocalAudioFramePublished(elapsedMs: Int32)
    /// onFirstRemoteAudioFrame: the first packet of a remote user's audio.
    case firstRemoteAudioFrame(uid: UInt32, elapsedMs: Int32)
    /// onFirstRemoteAudioDecoded: the first decoded frame of a remote user's audio.
    case firstRemoteAudioDecoded(uid: UInt32, elapsedMs: Int32)
    /// onLocalAudioStateChanged: LOCAL_AUDIO_STREAM_STATE and LOCAL_AUDIO_STREAM_ERROR.
    case localAudioStateChanged(state: Int32, error: Int32)
    /// onRemoteAudioStateChanged: REMOTE_AUDIO_STATE and REMOTE_AUDIO_STATE_REASON.
    case remoteAudioStateChanged(uid: UInt32, state: Int32, reason: Int32, elapsedMs: Int32)
    /// onAudioVolumeIndication: the local report (one entry, uid 0) or the remote
    /// report (up to three loudest remote users); `totalVolume` 0...255.
    case audioVolumeIndication(speakers: [AudioVolumeInfo], totalVolume: Int32)
    /// onActiveSpeaker: the loudest remote user changed.
    case activeSpeaker(uid: UInt32)
    /// onLocalAudioStats (every 2 s in a call).
    case localAudioStats(LocalAudioStats)
    /// onRemoteAudioStats (every 2 s in a call, per remote user).
    case remoteAudioStats(RemoteAudioStats)
    /// onRtcStats (every 2 s in a call).
    case rtcStats(RtcStats)
    /// onNetworkQuality (every 2 s in a call): uid 0 is the local user; for a
    /// remote user `tx` is UNKNOWN (0) and `rx` the quality its media arrives with here.
    case networkQuality(uid: UInt32, tx: Int32, rx: Int32)
}

/// One speaker of onAudioVolumeIndication (Agora's AudioVolumeInfo).
public struct AudioVolumeInfo: Sendable, Equatable {
    public init(uid: UInt32, volume: Int32, vad: Int32) {
        self.uid = uid
        self.volume = volume
        self.vad = vad
    }

    /// 0 for the local user.
    public var uid: UInt32
    /// 0...255, after the volume settings.
    public var volume: Int32
    /// Voice activity: the local user's detection when report_vad is on (else 0);
    /// always 1 for remote users.
    public var vad: Int32
}

/// Agora's LocalAudioStats.
public struct LocalAudioStats: Sendable, Equatable {
    /// Zeroed statistics.
    public init() {}
    public var numChannels: Int32 = 0
    public var sentSampleRate: Int32 = 0
    /// Kbps over the last period.
    public var sentBitrate: Int32 = 0
    /// Percent of packets lost upstream, as the server's feedback shows (0 without feedback).
    public var txPacketLossRate: Int32 = 0
    /// The echo canceller's delay estimate in ms; -1 while it is off or has none.
    public var aecEstimatedDelay: Int32 = -1
    /// AUDIO_PROCESSING bits (1 AEC, 2 ANS, 4 AGC, 8 HPF) of the last processed frame; 0 when nothing processed it.
    public var audioProcessing: Int32 = 0
    /// The echo canceller's echo return loss enhancement in dB; -1 while it is off or has none.
    public var echoReturnLossEnhancement: Int32 = -1
    /// Whether voice effects change the local voice.
    public var voiceEffects = false
}

/// Agora's RemoteAudioStats.
public struct RemoteAudioStats: Sendable, Equatable {
    /// Zeroed statistics.
    public init() {}
    public var uid: UInt32 = 0
    /// QUALITY_TYPE: from the loss and concealment of the period.
    public var quality: Int32 = 0
    /// Milliseconds: estimated one-way network delay (jitter estimate plus the
    /// transport's round trip to the server, halved).
    public var networkTransportDelay: Int32 = 0
    /// Milliseconds of audio the jitter buffer holds.
    public var jitterBufferDelay: Int32 = 0
    /// Percent of frames lost over the period before recovery.
    public var audioLossRate: Int32 = 0
    public var numChannels: Int32 = 1
    public var receivedSampleRate: Int32 = 48000
    /// Kbps over the last period.
    public var receivedBitrate: Int32 = 0
    /// Milliseconds frozen since the stream started: 200 ms windows with 4 % or more concealed frames.
    public var totalFrozenTime: Int32 = 0
    /// totalFrozenTime as a percent of the active time.
    public var frozenRate: Int32 = 0
    /// Milliseconds the stream has been playing.
    public var totalActiveTime: Int32 = 0
    /// Frames rebuilt from Opus in-band FEC, since the stream started.
    public var fecRecoveredFrames: Int32 = 0
    /// Frames concealed by Opus PLC, since the stream started.
    public var concealedFrames: Int32 = 0
    /// 10 ms frames played as silence because nothing could be decoded, recovered
    /// or concealed (gaps), since the stream started.
    public var silentFrames: Int32 = 0
    /// Estimated mouth-to-ear delay in milliseconds: network delay, jitter buffer, one frame of encoding.
    public var endToEndDelay: Int32 = 0
}

/// Agora's RtcStats, as reported every 2 s and with onLeaveChannel.
public struct RtcStats: Sendable, Equatable {
    /// Zeroed statistics.
    public init() {}
    public var duration: UInt32 = 0
    public var txBytes: UInt64 = 0
    public var rxBytes: UInt64 = 0
    public var txPackets: UInt64 = 0
    public var rxPackets: UInt64 = 0
    public var userCount: UInt32 = 0
    public var txAudioBytes: UInt64 = 0
    public var rxAudioBytes: UInt64 = 0
    public var txKBitRate: UInt32 = 0
    public var rxKBitRate: UInt32 = 0
    public var txAudioKBitRate: UInt32 = 0
    public var rxAudioKBitRate: UInt32 = 0
    /// Percent of this process's CPU time over the period, of one core.
    public var cpuAppUsage: Double = 0
    /// Resident memory of the process in KB.
    public var memoryAppUsageInKbytes: UInt32 = 0
    /// Kbps of video RTP sent and received over the period.
    public var txVideoKBitRate: UInt32 = 0
    public var rxVideoKBitRate: UInt32 = 0
    /// Ms: the round trip to the server on the media path (STUN binding), and half of it.
    public var gatewayRtt: Int32 = 0
    public var lastmileDelay: Int32 = 0
    /// Percent lost before recovery: sent (what the server asked to be
    /// retransmitted of the video sent) and received (the worst remote stream).
    public var txPacketLossRate: Int32 = 0
    public var rxPacketLossRate: Int32 = 0
}

/// Agora's QUALITY_TYPE from loss and round trip: EXCELLENT (1) below 1 %
/// and 100 ms, GOOD (2) below 3 % and 200 ms, POOR (3) below 8 % and 300 ms,
/// BAD (4) below 15 % and 500 ms, VBAD (5) below 40 %, else DOWN (6).
public func networkQuality(lossPercent: Int32, rttMs: Int32) -> Int32 {
    let steps: [(loss: Int32, rtt: Int32)] = [(1, 100), (3, 200), (8, 300), (15, 500), (40, Int32.max)]
    for (i, s) in steps.enumerated() where lossPercent < s.loss && rttMs < s.rtt { return Int32(i + 1) }
    return 6
}

/// Agora's AUDIO_FRAME_POSITION bits.
public struct AudioFramePosition: OptionSet, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public static let playback = AudioFramePosition(rawValue: 0x1)
    public static let record = AudioFramePosition(rawValue: 0x2)
    public static let mixed = AudioFramePosition(rawValue: 0x4)
    public static let beforeMixing = AudioFramePosition(rawValue: 0x8)
    public static let all: AudioFramePosition = [.playback, .record, .mixed, .beforeMixing]
}

/// One frame handed to a raw audio observer: interleaved 16-bit PCM the
/// observer may read and (in write modes) change in place. Valid only during
/// the callback.
public struct AudioFrameView {
    public var buffer: UnsafeMutableBufferPointer<Int16>
    public var samplesPerChannel: Int
    public var channels: Int
    public var sampleRate: Int
    /// Milliseconds on the engine's monotonic clock when the frame was made.
    public var renderTimeMs: Int64
}

/// A raw audio observer (Agora's IAudioFrameObserver). Each callback returns
/// true to keep the frame, false to discard it (silence in write modes).
/// Callbacks run on the audio thread of their position (docs/audio.md):
/// record on the thread that pushes or captures, the others on the thread
/// that pulls or plays.
public struct AudioFrameObserver: @unchecked Sendable {
    public var positions: AudioFramePosition
    public var onRecord: ((AudioFrameView) -> Bool)?
    public var onPlayback: ((AudioFrameView) -> Bool)?
    public var onMixed: ((AudioFrameView) -> Bool)?
    public var onPlaybackBeforeMixing: ((UInt32, AudioFrameView) -> Bool)?

    public init(positions: AudioFramePosition,
                onRecord: ((AudioFrameView) -> Bool)? = nil,
                onPlayback: ((AudioFrameView) -> Bool)? = nil,
                onMixed: ((AudioFrameView) -> Bool)? = nil,
                onPlaybackBeforeMixing: ((UInt32, AudioFrameView) -> Bool)? = nil) {
        self.positions = positions
        self.onRecord = onRecord
        self.onPlayback = onPlayback
        self.onMixed = onMixed
        self.onPlaybackBeforeMixing = onPlaybackBeforeMixing
    }
}
