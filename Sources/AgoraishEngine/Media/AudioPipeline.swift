import AgoraishIO
import AgoraishMedia
import AgoraishWire
import CAgoraishShim
import Glibc

/// The engine's audio path (docs/audio.md).
///
/// Sending: 10 ms frames at 48 kHz from the host's pushes (external source)
/// or the capture device → recording volume → record observer → recorder →
/// Opus in 20 ms frames → RTP (RFC 7587, payload type 111, RFC 6464 audio
/// level as header extension 1) → SRTP.
///
/// Receiving: RTP → one adaptive jitter buffer per remote stream; every 10 ms
/// of playout pulls each stream → user volume → before-mixing observer → mix
/// → playback volume → playback observer → mixed observer and recorder →
/// the host's pull (external sink) or the playout device.
///
/// Locks: `settings` holds what API calls set and is never held across a
/// callback; `sendLock` and `playLock` hold the processing state of each
/// direction and are held while observer callbacks run, so the callbacks of
/// one position never overlap. Packets reach a stream through the stream's
/// own lock, so the network never waits for an observer.
final class AudioPipeline: @unchecked Sendable {
    static let payloadType: UInt8 = 111
    static let audioLevelId: UInt8 = 1
    /// Samples per channel in 10 ms at 48 kHz.
    static let frame = 480

    /// What API calls set. Read by the processing paths once per 10 ms frame.
    struct Settings {
        var audioEnabled = true
        var localEnabled = true
        var localMuted = false
        var recordingVolume = 100
        var playbackVolume = 100
        var userVolumes: [UInt32: Int] = [:]
        /// Whose audio is not played (muteRemoteAudioStream and friends).
        var blocked: (all: Bool, isBlocked: @Sendable (UInt32) -> Bool) = (false, { _ in false })
        var observer: AudioFrameObserver? = nil
        var recordParameters = AudioTapParameters(sampleRate: 48000, channels: 1, mode: .readOnly, samplesPerCall: 0)
        var playbackParameters = AudioTapParameters(sampleRate: 48000, channels: 1, mode: .readOnly, samplesPerCall: 0)
        var mixedParameters = AudioTapParameters(sampleRate: 48000, channels: 1, mode: .readOnly, samplesPerCall: 0)
        var beforeMixingParameters = AudioTapParameters(sampleRate: 48000, channels: 1, mode: .readOnly, samplesPerCall: 0)
        /// Bumped when an observer or its parameters change: taps are rebuilt.
        var generation = 0
        /// Sink (external pull) format; nil when the sink is off.
        var sink: (rate: Int, channels: Int)? = nil
    }

    /// Sending-side processing state.
    struct SendState {
        var encoder: OpusEncoder? = nil
        var encoderChannels = 1
        /// The format pushes arrive in (external source); nil when capture is the source.
        var source: (rate: Int, channels: Int)? = nil
        var resampler: Resampler? = nil
        var pending: [Int16] = []      // 48 kHz, not yet a whole 10 ms
        var opusPending: [Int16] = []  // 10 ms frames waiting for the 20 ms Opus frame
        var ssrc: UInt32 = 0
        var sequence: UInt16 = 0
        var timestamp: UInt32 = 0
        var packet = [UInt8](repeating: 0, count: 1500 + SrtpSession.maxTrailer)
        var tap: AudioFrameTap? = nil
        var tapGeneration = -1
        var profile = OpusSettings(bandwidthHz: 32000, channels: 1, bitrate: 18000, application: .voip)
        var published = false         // onFirstLocalAudioFramePublished sent for this run
        var state: Int32 = 0           // LOCAL_AUDIO_STREAM_STATE
        var sentBytes = 0              // since the last stats period
        var sentPackets = 0
    }

    let settings = Locked(Settings())
    let sendLock = Locked(SendState())
    let playLock: Locked<PlayState>
    /// Remote streams by SSRC (the server's SSRC); each has its own lock.
    let streams = Locked<[UInt32: RemoteStream]>([:])
    /// Server SSRC -> publisher uid (from signaling).
    let owners = Locked<[UInt32: UInt32]>([:])
    /// Where encoded packets go; nil until the media transport is up.
    let transport = Locked<MediaTransport?>(nil)
    /// Record frames kept for the mixed position and recording (48 kHz mono, 10 ms each).
    let recordedForMix = Locked<[[Int16]]>([])
    /// The file recorder (startAudioRecording).
    let recorder = Locked<AudioRecorder?>(nil)
    /// Volume levels for onAudioVolumeIndication.
    let levels = Locked(LevelState())
    /// When the current call's join was requested (elapsed times); nil outside a call.
    let callStart = Locked<Instant?>(nil)
    /// RTP packets of remote audio received so far.
    let receivedPackets = Locked(0)
    let emit: @Sendable (AudioEvent) -> Void

    init(emit: @escaping @Sendable (AudioEvent) -> Void) {
        self.emit = emit
        playLock = Locked(PlayState())
        let seed = secureRandomBytes(10)
        sendLock.withLock {
            $0.ssrc = UInt32(seed[0]) << 24 | UInt32(seed[1]) << 16 | UInt32(seed[2]) << 8 | UInt32(seed[3])
            $0.sequence = UInt16(seed[4]) << 8 | UInt16(seed[5])
            $0.timestamp = UInt32(seed[6]) << 24 | UInt32(seed[7]) << 16 | UInt32(seed[8]) << 8 | UInt32(seed[9])
        }
    }

    /// Whether the media transport is up and bound (STUN answered).
    var isMediaBound: Bool { transport.withLock { $0?.bound ?? false } }

    /// Milliseconds since the join call, for event `elapsed` fields.
    func elapsedMs(_ now: Instant = .now()) -> Int32 {
        guard let start = callStart.withLock({ $0 }) else { return 0 }
        return Int32(clamping: (now - start).milliseconds)
    }

    /// Whether audio is being sent: enabled, not muted, and in a call.
    var isSending: Bool {
        settings.withLock { $0.audioEnabled && $0.localEnabled && !$0.localMuted }
    }

    /// Runs an observer callback with the re-entrancy mark set (push and pull refuse inside it).
    @inline(__always)
    static func inCallback<T>(_ body: () -> T) -> T {
        agsh_set_audio_callback(1)
        defer { agsh_set_audio_callback(0) }
        return body()
    }

    /// Whether the calling thread is inside an observer callback.
    static var isInCallback: Bool { agsh_in_audio_callback() != 0 }

    // MARK: - Source

    /// setExternalAudioSource: enables pushing PCM at `sampleRate` with `channels`.
    func setSource(enabled: Bool, sampleRate: Int, channels: Int, profile: OpusSettings) throws(AgoraError) {
        if enabled {
            guard AudioTapParameters.sampleRates.contains(sampleRate), channels == 1 || channels == 2 else {
                throw .invalidArgument
            }
        }
        if Self.isInCallback { throw .refused }
        var settings = profile
        settings.channels = Int32(enabled ? channels : 1)
        guard let encoder = try? OpusEncoder(settings: settings) else { throw .failed }
        sendLock.withLock { s in
            s.source = enabled ? (sampleRate, channels) : nil
            s.resampler = enabled && sampleRate != 48000
                ? Resampler(channels: channels, inputRate: sampleRate, outputRate: 48000) : nil
            s.encoder = encoder
            s.encoderChannels = Int(settings.channels)
            s.profile = settings
            s.pending = []
            s.opusPending = []
            s.tapGeneration = -1
        }
    }

    /// The profile changed (setAudioProfile): the encoder follows.
    func setProfile(_ profile: OpusSettings) {
        sendLock.withLock { s in
            var p = profile
            p.channels = Int32(s.encoderChannels)
            s.profile = p
            if let e = s.encoder { try? e.apply(p) }
        }
    }

    /// Channels of the enabled external source, 0 when none.
    var sourceChannels: Int { sendLock.withLock { $0.source?.channels ?? 0 } }

    /// pushExternalAudioFrame: any number of samples per channel. Returns the
    /// samples per channel (at 48 kHz) queued and not yet sent.
    func push(_ samples: UnsafePointer<Int16>?, samplesPerChannel: Int) throws(AgoraError) -> Int {
        if Self.isInCallback { throw .refused }
        let now = Instant.now()
        return try sendLock.withLock { s throws(AgoraError) -> Int in
            guard let source = s.source else { throw .notReady }
            // The channel count is read under the lock: a concurrent format change
            // cannot make this read past the host's buffer.
            var pcm = samplesPerChannel == 0 ? []
                : Array(UnsafeBufferPointer(start: samples, count: samplesPerChannel * source.channels))
            if let r = s.resampler { pcm = r.process(pcm) }
            s.pending += pcm
            let frame = Self.frame * source.channels
            while s.pending.count >= frame {
                var chunk = Array(s.pending[0..<frame])
                s.pending.removeFirst(frame)
                processCaptured(&s, &chunk, channels: source.channels, now: now)
            }
            // Not yet sent: the partial 10 ms plus what waits for the 20 ms Opus frame.
            return (s.pending.count + s.opusPending.count) / source.channels
        }
    }

    /// 10 ms of captured audio from the capture device (48 kHz, `channels`).
    func captured(_ pcm: [Int16], channels: Int) {
        let now = Instant.now()
        sendLock.withLock { s in
            guard s.source == nil else { return }
            if s.encoder == nil || s.encoderChannels != channels {
                var p = s.profile
                p.channels = Int32(channels)
                s.encoder = try? OpusEncoder(settings: p)
                s.encoderChannels = channels
                s.opusPending = []
            }
            var chunk = pcm
            processCaptured(&s, &chunk, channels: channels, now: now)
        }
    }

    /// One 10 ms frame through the sending path (under `sendLock`).
    private func processCaptured(_ s: inout SendState, _ pcm: inout [Int16], channels: Int, now: Instant) {
        let cfg = settings.withLock { c in
            (c.audioEnabled, c.localEnabled, c.localMuted, c.recordingVolume, c.observer, c.recordParameters, c.generation)
        }
        let (audioEnabled, localEnabled, localMuted, volume, observer, params, generation) = cfg
        guard audioEnabled && localEnabled else { return }
        if s.state == 0 || s.state == 3 { setLocalState(&s, 1, 0) }
        PCM.applyGain(&pcm, percent: volume)
        if let observer, observer.positions.contains(.record), let onRecord = observer.onRecord {
            if s.tapGeneration != generation || s.tap?.engineChannels != channels {
                s.tap = AudioFrameTap(parameters: params, engineChannels: channels)
                s.tapGeneration = generation
            }
            let p = s.tap!.parameters
            let ms = now.nanoseconds / 1_000_000
            s.tap!.process(&pcm) { buffer in
                Self.inCallback {
                    onRecord(AudioFrameView(buffer: buffer, samplesPerChannel: buffer.count / p.channels,
                                            channels: p.channels, sampleRate: p.sampleRate, renderTimeMs: ms))
                }
            }
        } else {
            s.tap = nil
        }
        let mono = convertChannels(pcm, from: channels, to: 1)
        levels.withLock { $0.addLocal(PCM.volume(mono), voice: PCM.rms(mono) > 300) }
        recordedForMix.withLock { q in
            q.append(mono)
            if q.count > 20 { q.removeFirst(q.count - 20) }
        }
        recorder.withLock { r in
            if let r, r.position == .recording { r.write(mono, channels: 1) }
        }
        // Opus frames are 20 ms: two of these.
        s.opusPending += pcm
        let opusFrame = 2 * Self.frame * channels
        guard s.opusPending.count >= opusFrame else { return }
        let chunk = Array(s.opusPending[0..<opusFrame])
        s.opusPending.removeFirst(opusFrame)
        defer {
            s.sequence &+= 1
            s.timestamp &+= 960
        }
        guard !localMuted, let link = transport.withLock({ $0 }), let encoder = s.encoder,
              s.encoderChannels == channels else { return }
        guard let payload = try? chunk.withUnsafeBufferPointer({
            try encoder.encode($0.baseAddress!, samplesPerChannel: 2 * Self.frame)
        }) else {
            setLocalState(&s, 3, 5)  // FAILED, ENCODE_FAILURE
            return
        }
        let voice = PCM.rms(chunk) > 300
        let level = chunk.withUnsafeBufferPointer { AudioLevel(pcm: $0, voiceActivity: voice) }
        var header = RtpHeader(marker: false, payloadType: Self.payloadType, sequenceNumber: s.sequence,
                               timestamp: s.timestamp, ssrc: s.ssrc).serialized
        header[0] |= 0x10
        let bytes = header + RtpHeaderExtension.oneByte([(Self.audioLevelId, [level.byte])]) + payload
        guard bytes.count <= 1500 else { return }
        s.packet.withUnsafeMutableBytes { raw in
            raw.copyBytes(from: bytes)
            link.send(rtp: raw.baseAddress!, length: bytes.count)
        }
        s.sentBytes += bytes.count
        s.sentPackets += 1
        if s.state != 2 { setLocalState(&s, 2, 0) }
        if !s.published {
            s.published = true
            emit(.firstLocalAudioFramePublished(elapsedMs: elapsedMs(now)))
        }
    }

    private func setLocalState(_ s: inout SendState, _ state: Int32, _ error: Int32) {
        guard s.state != state else { return }
        s.state = state
        emit(.localAudioStateChanged(state: state, error: error))
    }

    /// Local audio stopped (disabled, or the call ended): state STOPPED, and the
    /// next frame sent counts as a first frame again.
    func localStopped() {
        sendLock.withLock { s in
            s.published = false
            s.opusPending = []
            if s.state != 0 { setLocalState(&s, 0, 0) }
        }
    }

    /// The capture device failed (LOCAL_AUDIO_STREAM_ERROR in `error`).
    func captureFailed(error: Int32) {
        sendLock.withLock { s in setLocalState(&s, 3, error) }
    }

    /// Sending statistics of the period since the last call.
    func takeLocalStats(periodMs: Int) -> LocalAudioStats {
        sendLock.withLock { s in
            defer { s.sentBytes = 0; s.sentPackets = 0 }
            var st = LocalAudioStats()
            st.numChannels = Int32(s.encoderChannels)
            st.sentSampleRate = Int32(s.source?.rate ?? 48000)
            st.sentBitrate = Int32(periodMs > 0 ? s.sentBytes * 8 / periodMs : 0)
            return st
        }
    }

    /// The next call should announce its first frame again.
    func resetPublished() { sendLock.withLock { $0.published = false } }
}
