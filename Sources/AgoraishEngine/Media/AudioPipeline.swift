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
    // Payload types (Opus 111, its RTX 112) and the audio level's extension
    // id come from the table shared with the server (`PayloadType`, `HeaderExtensionId`).

    /// Samples per channel in 10 ms at 48 kHz.
    static let frame = 480

    /// What API calls set. Read by the processing paths once per 10 ms frame.
    struct Settings {
        var audioEnabled = true
        /// `rtc.audio_loss_recovery`: Opus in-band FEC when sending, FEC and PLC when receiving.
        var lossRecovery = true
        var localEnabled = true
        var localMuted = false
        /// muteLocalAudioStream of the spatial audio engine (sending stops as with `localMuted`).
        var spatialMuted = false
        /// The connection publishes the microphone (ChannelMediaOptions.publish_microphone_track).
        var publishMicrophone = true
        /// The connection records and plays on the device (enable_audio_recording_or_playout).
        var deviceEnabled = true
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
        /// External source format; nil when capture is the source.
        var source: (rate: Int, channels: Int)? = nil
        /// The encoder's profile (channels follow the source).
        var profile = OpusSettings(bandwidthHz: 32000, channels: 1, bitrate: 18000, application: .voip)
        /// Bumped when the source or the profile changes: the sending path reconfigures.
        var sendGeneration = 0
        /// What the pushed source is, for voice processing and effects (capture is always `.mixable(processing: false)`
        /// here: the device processes it before it arrives).
        var sourceKind = SourceKind.mixable(processing: false)
    }

    /// How the local voice of a source is treated (docs/voice.md).
    enum SourceKind: Equatable {
        /// Captured audio, the external source, a mixable custom track: voice
        /// effects apply; audio processing too when `processing` (a custom
        /// track with enableAudioProcessing).
        case mixable(processing: Bool)
        /// A direct custom track: sent as pushed.
        case direct
    }

    /// Sending-side processing state (under `sendLock`). It follows `Settings`
    /// (source format, profile) by generation, so no setter ever waits for it.
    struct SendState {
        var encoder: OpusEncoder? = nil
        var encoderSettings: OpusSettings? = nil
        /// The format pushes arrive in (external source); nil when capture is the source.
        var source: (rate: Int, channels: Int)? = nil
        var resampler: Resampler? = nil
        var pending: [Int16] = []      // 48 kHz, pushed and not yet sent (a partial 10 ms, and a queue)
        /// When the next pushed 10 ms frame is due: pushed audio leaves at the pace it plays.
        var pushDue: Instant? = nil
        /// Pushed samples (per channel, 48 kHz) dropped because the queue was full.
        var pushDropped = 0
        var opusPending: [Int16] = []  // 10 ms frames waiting for the 20 ms Opus frame
        var ssrc: UInt32 = 0
        /// Retransmissions (RFC 4588) of this stream, asked for by the server: their SSRC and numbers.
        var rtxSsrc: UInt32 = 0
        var rtxSequence: UInt16 = 0
        /// What was sent in the last second, to answer the server's NACKs.
        var history = PacketHistory(capacity: 128, maxAge: .seconds(1))
        var sequence: UInt16 = 0
        var timestamp: UInt32 = 0
        var packet = [UInt8](repeating: 0, count: 1500 + SrtpSession.maxTrailer)
        var tap: AudioFrameTap? = nil
        var tapGeneration = -1
        var sendGeneration = -1
        /// The sending side's view of the encryption and packet observer.
        var crypto = PayloadProtection.Context()
        /// The voice effects in force (nil while none is).
        var effects: VoiceEffectChain? = nil
    }

    /// The local audio state and what the statistics need: its own small lock,
    /// so state changes never wait for processing.
    struct LocalState {
        var state: Int32 = 0           // LOCAL_AUDIO_STREAM_STATE
        var published = false         // onFirstLocalAudioFramePublished sent for this run
        /// Bumped whenever local audio stops: a frame that was already being
        /// processed then changes neither the state nor `published`.
        var epoch = 0
        var sentBytes = 0              // since the last stats period
        var sentPackets = 0
        var channels = 1
        var rate = 48000
    }

    let settings = Locked(Settings())
    let sendLock = Locked(SendState())
    let local = Locked(LocalState())
    let playLock: Locked<PlayState>
    /// Remote streams by SSRC (the server's SSRC); each has its own lock.
    let streams = Locked<[UInt32: RemoteStream]>([:])
    /// Server SSRC -> publisher uid (from signaling).
    let owners = Locked<[UInt32: UInt32]>([:])
    /// Where encoded packets go; nil until the media transport is up.
    let transport = Locked<MediaTransport?>(nil)
    /// Server RTX SSRC -> the server SSRC of the stream it retransmits (audio and video alike).
    let rtxStreams = Locked<[UInt32: UInt32]>([:])
    /// Audio retransmission so far: sequence numbers NACKed and packets recovered in time to play (receiving),
    /// packets sent again when the server asked (sending).
    let retransmissionCounters = Locked((nacked: 0, recovered: 0, retransmitted: 0))
    /// Record frames kept for the mixed position and recording (48 kHz mono, 10 ms each).
    let recordedForMix = Locked<[[Int16]]>([])
    /// Music and media players mixed into this path (audio mixing, effects, players' local playout).
    let feeds = Locked(AudioFeeds())
    /// Media recorders' taps: (uid, 48 kHz PCM, channels); uid 0 is what is sent, others a remote user's decoded audio.
    let recordTaps = Locked<[ObjectIdentifier: (UInt32, [Int16], Int) -> Void]>([:])
    /// The file recorder (startAudioRecording).
    let recorder = Locked<AudioRecorder?>(nil)
    /// Volume levels for onAudioVolumeIndication.
    let levels = Locked(LevelState())
    /// When the current call's join was requested (elapsed times); nil outside a call.
    let callStart = Locked<Instant?>(nil)
    /// Until when new remote streams start playout with their first packet
    /// (a join with fast start, after preloadChannel); nil: never.
    let fastStartUntil = Locked<Instant?>(nil)
    /// RTP packets of remote audio received so far.
    let receivedPackets = Locked(0)
    /// Audio RTP bytes sent and received in the current call (RtcStats' audio fields).
    let callBytes = Locked((tx: UInt64(0), rx: UInt64(0)))
    let emit: @Sendable (AudioEvent) -> Void
    /// End-to-end encryption and the packet observer.
    let protection: PayloadProtection
    /// The engine's voice settings (shared by its connections' paths).
    let voice: VoiceControl
    /// Audio processing of a custom track with processing on (nil otherwise):
    /// the sending path processes, the playout feeds it the far end.
    let trackProcessor = Locked<VoiceProcessor?>(nil)
    /// The receiving side's view of them (the network thread's).
    let receiveCrypto = Locked(PayloadProtection.Context())

    init(protection: PayloadProtection, voice: VoiceControl, emit: @escaping @Sendable (AudioEvent) -> Void) {
        self.protection = protection
        self.voice = voice
        self.emit = emit
        playLock = Locked(PlayState())
        let seed = secureRandomBytes(14)
        sendLock.withLock {
            $0.ssrc = UInt32(seed[0]) << 24 | UInt32(seed[1]) << 16 | UInt32(seed[2]) << 8 | UInt32(seed[3])
            $0.rtxSsrc = UInt32(seed[10]) << 24 | UInt32(seed[11]) << 16 | UInt32(seed[12]) << 8 | UInt32(seed[13])
            if $0.rtxSsrc == $0.ssrc || $0.rtxSsrc == 0 { $0.rtxSsrc = $0.ssrc ^ 0x5A5A_5A5A }
            $0.sequence = UInt16(seed[4]) << 8 | UInt16(seed[5])
            $0.timestamp = UInt32(seed[6]) << 24 | UInt32(seed[7]) << 16 | UInt32(seed[8]) << 8 | UInt32(seed[9])
        }
    }

    /// The server asked for packets of our audio again (generic NACK, the
    /// uplink lost them): each one still held goes out as RTX (RFC 4588,
    /// payload type 112) on the stream's RTX SSRC. Loop thread.
    func nacked(sequences: [UInt16]) {
        // Loss recovery off (a baseline): nothing is sent again.
        guard settings.withLock({ $0.lossRecovery }), let link = transport.withLock({ $0 }) else { return }
        let now = Instant.now()
        let packets = sendLock.withLock { s -> [[UInt8]] in
            var out: [[UInt8]] = []
            for seq in sequences.prefix(32) {
                guard let original = s.history.packet(seq, now: now),
                      let rtx = RtxPacket.wrap(original, rtxPayloadType: PayloadType.opusRtx.rawValue, rtxSsrc: s.rtxSsrc,
                                               rtxSequence: s.rtxSequence) else { continue }
                s.rtxSequence &+= 1
                out.append(rtx)
            }
            return out
        }
        for var p in packets {
            let n = p.count
            p += [UInt8](repeating: 0, count: SrtpSession.maxTrailer)
            p.withUnsafeMutableBytes { link.send(rtp: $0.baseAddress!, length: n) }
        }
        retransmissionCounters.withLock { $0.retransmitted += packets.count }
    }

    /// The audio stream's SSRC and its RTX SSRC (fixed for the engine's life).
    var ssrcs: (ssrc: UInt32, rtx: UInt32) { sendLock.withLock { ($0.ssrc, $0.rtxSsrc) } }

    /// Whether the media transport is up and bound (STUN answered).
    var isMediaBound: Bool { transport.withLock { $0?.bound ?? false } }

    /// Milliseconds since the join call, for event `elapsed` fields.
    func elapsedMs(_ now: Instant = .now()) -> Int32 {
        guard let start = callStart.withLock({ $0 }) else { return 0 }
        return Int32(clamping: (now - start).milliseconds)
    }

    /// Whether audio is being sent: enabled, not muted, and in a call.
    var isSending: Bool {
        settings.withLock { $0.audioEnabled && $0.localEnabled && !$0.localMuted && !$0.spatialMuted }
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
        settings.withLock {
            $0.source = enabled ? (sampleRate, channels) : nil
            $0.profile = profile
            $0.sendGeneration += 1
        }
    }

    /// The profile changed (setAudioProfile, or the channel profile changed DEFAULT's meaning).
    func setProfile(_ profile: OpusSettings) {
        settings.withLock {
            $0.profile = profile
            $0.sendGeneration += 1
        }
    }

    /// Channels of the enabled external source, 0 when none.
    var sourceChannels: Int { settings.withLock { $0.source?.channels ?? 0 } }

    /// Brings the sending path in line with the settings (under `sendLock`):
    /// source format, resampler, encoder. `channels` is what is being fed.
    private func reconfigure(_ s: inout SendState, channels: Int) {
        let (source, profile, generation, recovery) = settings.withLock {
            ($0.source, $0.profile, $0.sendGeneration, $0.lossRecovery)
        }
        var wanted = profile
        wanted.channels = Int32(channels)
        if !recovery { wanted.inbandFEC = false }
        // Opus spends in-band FEC bits in proportion to the loss it expects:
        // once the server reports the uplink's loss, that is what it expects
        // (a clean path then carries no FEC), up to 30 %.
        let ssrc = s.ssrc
        if let loss = transport.withLock({ $0?.reportedLoss(ssrc: ssrc) }) {
            wanted.expectedLossPercent = min(30, max(0, loss))
        }
        // The uplink's estimate (docs/network.md): video gives way first; audio
        // keeps its profile's rate while the estimate is four times that, then
        // follows a quarter of it down to a third of the profile's rate (at least 8 kbps),
        // in 2 kbps steps.
        if let target = transport.withLock({ $0?.targetBitrate }) {
            let full = Int(profile.bitrate)
            let floor = max(8000, full / 3)
            wanted.bitrate = Int32(max(floor, min(full, target / 4)) / 2000 * 2000)
            if wanted.bitrate < floor { wanted.bitrate = Int32(floor) }
        }
        if s.sendGeneration != generation || s.encoderSettings != wanted {
            if s.source?.rate != source?.rate || s.source?.channels != source?.channels {
                s.source = source
                s.resampler = source.flatMap {
                    $0.rate == 48000 ? nil : Resampler(channels: $0.channels, inputRate: $0.rate, outputRate: 48000)
                }
                s.pending = []
            }
            if s.encoderSettings?.channels != wanted.channels || s.encoder == nil {
                s.encoder = try? OpusEncoder(settings: wanted)
                s.opusPending = []
            } else if s.encoderSettings != wanted, let e = s.encoder {
                try? e.apply(wanted)
            }
            s.encoderSettings = wanted
            s.sendGeneration = generation
            let rate = source?.rate ?? 48000
            local.withLock { $0.channels = channels; $0.rate = rate }
        }
    }

    /// pushExternalAudioFrame: any number of samples per channel. Returns the
    /// samples per channel (at 48 kHz) queued and not yet sent.
    /// With `channels`, a source of another channel count (changed by a
    /// concurrent push of another format) is `.invalidArgument`.
    func push(_ samples: UnsafePointer<Int16>?, samplesPerChannel: Int, channels: Int? = nil) throws(AgoraError) -> Int {
        if Self.isInCallback { throw .refused }
        let now = Instant.now()
        return try sendLock.withLock { s throws(AgoraError) -> Int in
            // The format is read under the lock: a concurrent change cannot make
            // this read past the host's buffer.
            guard let source = settings.withLock({ $0.source }) else { throw .notReady }
            if let channels, channels != source.channels { throw .invalidArgument }
            reconfigure(&s, channels: source.channels)
            var pcm = samplesPerChannel == 0 ? []
                : Array(UnsafeBufferPointer(start: samples, count: samplesPerChannel * source.channels))
            if let r = s.resampler { pcm = r.process(pcm) }
            s.pending += pcm
            let frame = Self.frame * source.channels
            // Past the bound the oldest whole frames go: a live call catches up.
            let limit = Self.maxPushQueueFrames * frame
            if s.pending.count > limit {
                let drop = (s.pending.count - limit + frame - 1) / frame * frame
                s.pending.removeFirst(drop)
                s.pushDropped += drop / source.channels
            }
            sendDue(&s, channels: source.channels, now: now)
            // Not yet sent: the queue and partial 10 ms, plus what waits for the 20 ms Opus frame.
            return (s.pending.count + s.opusPending.count) / source.channels
        }
    }

    /// In a call, pushed audio is queued and leaves in real time: one 10 ms frame
    /// per 10 ms, up to this far ahead of the clock (a host pushing in real time,
    /// early by a little, is sent at once) ...
    static let pushLead: Duration = .milliseconds(60)
    /// ... and at most this much waits (2 s); a push past it drops the oldest.
    static let maxPushQueueFrames = 200

    /// Sends the queued pushed frames due by `now` (under `sendLock`). The
    /// schedule restarts from `now` after a pause, so time without pushes is
    /// never made up by a burst.
    private func sendDue(_ s: inout SendState, channels: Int, now: Instant) {
        let frame = Self.frame * channels
        // Outside a call nothing is sent: observers and recordings take the push at once.
        let paced = callStart.withLock { $0 != nil }
        if s.pushDue == nil || now - s.pushDue! > .milliseconds(20) { s.pushDue = now }
        while s.pending.count >= frame, let due = s.pushDue, !paced || due <= now + Self.pushLead {
            var chunk = Array(s.pending[0..<frame])
            s.pending.removeFirst(frame)
            processCaptured(&s, &chunk, channels: channels, now: now)
            s.pushDue = due + .milliseconds(10)
        }
    }

    /// The audio device thread's 10 ms clock: sends the pushed frames now due.
    /// Returns whether whole frames still wait (the clock must keep ticking every 10 ms).
    func sendPushed(now: Instant) -> Bool {
        sendLock.withLock { s in
            guard let source = settings.withLock({ $0.source }) else { return false }
            guard s.pending.count >= Self.frame * source.channels else { return false }
            sendDue(&s, channels: source.channels, now: now)
            return s.pending.count >= Self.frame * source.channels
        }
    }

    /// 10 ms of captured audio from the capture device (48 kHz, `channels`).
    func captured(_ pcm: [Int16], channels: Int) {
        let now = Instant.now()
        sendLock.withLock { s in
            guard settings.withLock({ $0.source == nil }) else { return }
            reconfigure(&s, channels: channels)
            var chunk = pcm
            processCaptured(&s, &chunk, channels: channels, now: now)
        }
    }

    /// One 10 ms frame through the sending path (under `sendLock`).
    private func processCaptured(_ s: inout SendState, _ pcm: inout [Int16], channels: Int, now: Instant) {
        let cfg = settings.withLock { c in
            (c.audioEnabled, c.localEnabled, c.localMuted || c.spatialMuted, c.recordingVolume, c.observer, c.recordParameters,
             c.generation)
        }
        let (audioEnabled, localEnabled, localMuted, volume, observer, params, generation) = cfg
        guard audioEnabled && localEnabled else { return }
        let epoch = local.withLock { $0.epoch }
        if local.withLock({ $0.state == 0 || $0.state == 3 }) { setLocalState(1, 0, epoch: epoch) }
        processVoice(&s, &pcm, channels: channels, now: now)
        PCM.applyGain(&pcm, percent: volume)
        mixFeeds(\.send, into: &pcm, channels: channels)
        for tap in recordTaps.withLock({ Array($0.values) }) { tap(0, pcm, channels) }
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
        addLocalLevel(mono)
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
        defer {
            s.opusPending.removeFirst(opusFrame)
            s.sequence &+= 1
            s.timestamp &+= 960
        }
        guard !localMuted, let link = transport.withLock({ $0 }), let encoder = s.encoder else { return }
        // RTP header (12 bytes, X bit set), the one-byte extension with the
        // audio level (8 bytes), then Opus, written in place.
        let sequence = s.sequence, timestamp = s.timestamp, ssrc = s.ssrc
        let level = s.opusPending.withUnsafeBufferPointer { b in
            let frame = UnsafeBufferPointer(rebasing: b[0..<opusFrame])
            // Voice: louder than -40 dBov (an RMS of about 300).
            let measured = AudioLevel(pcm: frame, voiceActivity: false)
            return AudioLevel(voiceActivity: measured.level <= 40, level: measured.level)
        }
        var length = s.opusPending.withUnsafeBufferPointer { pcm in
            s.packet.withUnsafeMutableBytes { raw -> Int in
                let p = raw.bindMemory(to: UInt8.self)
                p[0] = 0x90                      // V=2, X=1
                p[1] = PayloadType.opus.rawValue
                p[2] = UInt8(sequence >> 8); p[3] = UInt8(sequence & 0xFF)
                p[4] = UInt8(timestamp >> 24); p[5] = UInt8(timestamp >> 16 & 0xFF)
                p[6] = UInt8(timestamp >> 8 & 0xFF); p[7] = UInt8(timestamp & 0xFF)
                p[8] = UInt8(ssrc >> 24); p[9] = UInt8(ssrc >> 16 & 0xFF)
                p[10] = UInt8(ssrc >> 8 & 0xFF); p[11] = UInt8(ssrc & 0xFF)
                p[12] = 0xBE; p[13] = 0xDE; p[14] = 0; p[15] = 2   // RFC 8285 one-byte profile, two words
                p[16] = HeaderExtensionId.audioLevel << 4; p[17] = level.byte
                // The transport-wide sequence number, written by the transport as the packet leaves.
                p[18] = TransportFeedback.extensionId << 4 | 1; p[19] = 0; p[20] = 0
                p[21] = 0; p[22] = 0; p[23] = 0
                guard let n = try? encoder.encode(pcm.baseAddress!, samplesPerChannel: 2 * Self.frame,
                                                  into: p.baseAddress! + 24, capacity: 1500 - 24) else { return -1 }
                return 24 + n
            }
        }
        guard length > 0 else {
            setLocalState(3, 5, epoch: epoch)  // FAILED, ENCODE_FAILURE
            return
        }
        protection.refresh(&s.crypto)
        if s.crypto.active {
            // The host's observer, then the built-in cipher, see the Opus packet;
            // an encrypted one is marked with extension 4 in the spare bytes.
            guard let out = protection.outgoing(Array(s.packet[24..<length]), .audio, &s.crypto),
                  24 + out.count <= 1500 else { return }
            s.packet.replaceSubrange(24..<(24 + out.count), with: out)
            length = 24 + out.count
            if let mode = s.crypto.mode {
                s.packet[21] = RtpHeaderExtension.payloadProtectionId << 4
                s.packet[22] = UInt8(mode.rawValue)
            } else {
                s.packet[21] = 0; s.packet[22] = 0
            }
        }
        // Kept a second for NACKs, as it is before the transport numbers and
        // protects it in place (a retransmission is numbered and protected anew).
        s.history.store(Array(s.packet[0..<length]), sequence: sequence, now: .now())
        s.packet.withUnsafeMutableBytes { link.send(rtp: $0.baseAddress!, length: length) }
        callBytes.withLock { $0.tx += UInt64(length) }
        let first = local.withLock { l -> Bool in
            guard l.epoch == epoch else { return false }
            l.sentBytes += length
            l.sentPackets += 1
            defer { l.published = true }
            return !l.published
        }
        setLocalState(2, 0, epoch: epoch)
        if first { emit(.firstLocalAudioFramePublished(elapsedMs: elapsedMs(now))) }
    }

    /// Audio processing (a custom track's) and voice effects on one 10 ms
    /// frame of the local voice (under `sendLock`). Nothing runs, and nothing
    /// is allocated, while every step is off: the frame goes on as it came.
    private func processVoice(_ s: inout SendState, _ pcm: inout [Int16], channels: Int, now: Instant) {
        let kind = settings.withLock { $0.sourceKind }
        guard case .mixable(let processing) = kind else {
            s.effects = nil
            trackProcessor.withLock { $0 = nil }
            return
        }
        if processing {
            let config = voice.captureConfig
            let processor = trackProcessor.withLock { p -> VoiceProcessor? in
                guard config.isActive else { p = nil; return nil }
                if p == nil || p!.captureChannels != channels { p = VoiceProcessor(captureChannels: channels) }
                if let q = p, q.config != config { q.configure(config) }
                return p
            }
            if let processor {
                processor.processCapture(&pcm, delayMs: 0)
                voice.reportProcessing(processor, now: now)
            }
        } else {
            trackProcessor.withLock { $0 = nil }
        }
        let fx = voice.effectSettings
        guard !fx.isNeutral else {
            s.effects = nil
            return
        }
        if s.effects == nil || s.effects!.channels != channels { s.effects = VoiceEffectChain(channels: channels) }
        if s.effects!.settings != fx { s.effects!.apply(fx) }
        s.effects!.process(&pcm)
    }

    /// Moves the local audio state and reports the change (any thread; never waits for processing).
    /// From the processing path, `epoch` is the epoch the frame started in: a
    /// change is dropped when local audio stopped meanwhile.
    func setLocalState(_ state: Int32, _ error: Int32, epoch: Int? = nil) {
        local.withLock { l in
            if let epoch, epoch != l.epoch { return }
            guard l.state != state else { return }
            l.state = state
            // Posted under the lock, so events leave in the order the state changed.
            emit(.localAudioStateChanged(state: state, error: error))
        }
    }

    /// Local audio stopped (disabled, or the call ended): state STOPPED, and the
    /// next frame sent counts as a first frame again.
    func localStopped() {
        local.withLock {
            $0.published = false
            $0.epoch += 1
        }
        setLocalState(0, 0)
    }

    /// The capture device failed (LOCAL_AUDIO_STREAM_ERROR in `error`).
    func captureFailed(error: Int32) { setLocalState(3, error) }

    /// Sending statistics of the period since the last call.
    func takeLocalStats(periodMs: Int) -> LocalAudioStats {
        var st = local.withLock { l in
            defer { l.sentBytes = 0; l.sentPackets = 0 }
            var st = LocalAudioStats()
            st.numChannels = Int32(l.channels)
            st.sentSampleRate = Int32(l.rate)
            st.sentBitrate = Int32(periodMs > 0 ? l.sentBytes * 8 / periodMs : 0)
            return st
        }
        // What processing and effects did in the period (a report older than 2.5 s is of a stopped processor).
        if let r = voice.report.withLock({ $0 }), Instant.now() - r.at < .milliseconds(2500) {
            st.audioProcessing = r.flags
            if r.flags & 0x1 != 0 {
                st.aecEstimatedDelay = r.stats.delayMedianMs.map { Int32(clamping: $0) } ?? -1
                st.echoReturnLossEnhancement = r.stats.echoReturnLossEnhancementDb.map { Int32($0.rounded()) } ?? -1
            }
        }
        if case .mixable = settings.withLock({ $0.sourceKind }), !voice.effectSettings.isNeutral { st.voiceEffects = true }
        return st
    }

    /// Counts 10 ms of local audio (mono) in the volume indication: its volume,
    /// and voice when louder than an RMS of 300 (about -41 dBFS).
    func addLocalLevel(_ mono: [Int16]) {
        let r = PCM.rms(mono)
        let volume = PCM.volume(rms: r)
        levels.withLock { $0.addLocal(volume, voice: r > 300) }
    }

    /// The next call should announce its first frame again.
    func resetPublished() { local.withLock { $0.published = false } }

    /// Mixes 10 ms of each feed of `kind` into `pcm` (48 kHz, `channels`).
    func mixFeeds(_ kind: KeyPath<AudioFeeds, [ObjectIdentifier: AudioFeed]>, into pcm: inout [Int16], channels: Int) {
        let list = feeds.withLock { Array($0[keyPath: kind].values) }
        for feed in list {
            guard let chunk = feed.read() else { continue }
            PCM.mix(&pcm, convertChannels(chunk, from: 2, to: channels))
        }
    }

    /// Whether music is waiting to be mixed into what is sent.
    var hasSendFeeds: Bool { feeds.withLock { !$0.send.isEmpty } }
}
