import AgoraishIO
import AgoraishMedia
import AgoraishWire

/// One remote audio stream: its jitter buffer and what the callbacks and
/// statistics need. Packets (IO thread) and playout (audio thread) meet under
/// its lock.
final class RemoteStream: @unchecked Sendable {
    struct State {
        var buffer: AudioJitterBuffer
        var uid: UInt32 = 0
        var firstPacketReported = false
        var firstDecodedReported = false
        var lastPacket: Instant? = nil
        /// REMOTE_AUDIO_STATE as last reported.
        var state: Int32 = 0
        /// The reason to give with the next transition to DECODING.
        var resumeReason: Int32 = 0
        var bytes = 0                // since the last stats period
        var periodFrames = 0         // 10 ms frames played this period
        var periodLost = 0           // of which concealed or silent after start
        var windowFrames = 0         // 200 ms frozen-detection window
        var windowBad = 0
        var frozenMs = 0
        var activeMs = 0
        var silentFrames = 0
        var tap: AudioFrameTap? = nil
        var tapGeneration = -1
        /// Packets missing on the way from the server, to NACK (docs/network.md, Audio retransmission).
        var nack = NackList()
        /// When a gap was last seen: the playout delay keeps room for retransmissions for 10 s after.
        var lossSeenAt: Instant? = nil
    }

    let ssrc: UInt32
    let state: Locked<State>


    init?(ssrc: UInt32, channels: Int) {
        guard let b = Self.makeBuffer(channels: channels) else { return nil }
        self.ssrc = ssrc
        state = Locked(State(buffer: b))
    }

    /// A jitter buffer decoding to `channels`: 10 ms of delay to start with on a
    /// clean path; jitter and underruns raise it.
    static func makeBuffer(channels: Int) -> AudioJitterBuffer? {
        try? AudioJitterBuffer(channels: channels, minimumDelay: .milliseconds(10))
    }
}

extension RemoteStream.State {
    /// One packet of the stream (the receive step, without IO or clock reads):
    /// into the jitter buffer, through the NACK list, and the playout delay's
    /// floor set for the path's loss (docs/network.md, Audio retransmission).
    /// Returns the sequence numbers to NACK now, and whether this packet
    /// recovered a loss in time to play.
    mutating func receive(sequence: UInt16, timestamp: UInt32, payload: [UInt8], arrival now: Instant,
                          retransmitted: Bool, rtt: Duration, lossRecovery: Bool) -> (nack: [UInt16], recovered: Bool) {
        // A packet that fills a gap (an RTX from the server, or the original
        // the server got back from the publisher and forwarded late) is a
        // recovery, not jitter.
        let before = nack.recovered
        nack.received(sequence, now: now)
        let fills = retransmitted || nack.recovered > before
        let result = buffer.insert(sequence: sequence, timestamp: timestamp, payload: payload, arrival: now,
                                   retransmitted: fills)
        if nack.count > 0 { lossSeenAt = now }
        // While the path loses, playout keeps a round trip and a packet in
        // hand (up to 120 ms of round trip), and when it loses in bursts the
        // whole burst as well: a burst's retransmissions can only be asked
        // for once the packet after it has come. 10 s without loss gives it back.
        let lossy = lossRecovery && rtt < .milliseconds(120) && lossSeenAt.map { now - $0 < .seconds(10) } == true
        let floor: Duration = lossy ? AudioPipeline.playoutFloor(rtt: rtt, packet: buffer.packetDuration,
                                                                 burst: nack.longestRecentGap(now: now, window: .seconds(10)))
                                    : .zero
        if buffer.delayFloor != floor { buffer.delayFloor = floor }
        let recovered = fills && result == .accepted
        guard lossy, !retransmitted, nack.count > 0 else { return ([], recovered) }
        return (nack.due(now: now, rtt: rtt), recovered)
    }
}

/// Playout processing state (under `playLock`).
struct PlayState {
    /// Converted audio for the host's pull, not yet pulled.
    var sinkPending: [Int16] = []
    var sinkResampler: Resampler? = nil
    var sinkFormat: (rate: Int, channels: Int)? = nil
    var playbackTap: AudioFrameTap? = nil
    var mixedTap: AudioFrameTap? = nil
    var tapGeneration = -1
    var scratch = [Int16](repeating: 0, count: AudioPipeline.frame)
    /// The headphone equalizer (while one is set).
    var headphone: VoiceEffectChain? = nil
}

/// Volume levels gathered between two onAudioVolumeIndication reports.
struct LevelState {
    var localPeak = 0
    var localVoice = false
    var remotePeak: [UInt32: Int] = [:]
    var totalPeak = 0
    /// Smoothed values of the last report.
    var smoothLocal = 0.0
    var smoothRemote: [UInt32: Double] = [:]
    var smoothTotal = 0.0
    var activeSpeaker: UInt32 = 0
    var loudestCount: [UInt32: Int] = [:]

    mutating func addLocal(_ v: Int, voice: Bool) {
        localPeak = max(localPeak, v)
        localVoice = localVoice || voice
    }
}

extension AudioPipeline {
    // MARK: - Packets

    /// An RTP packet from the transport (plain, on the IO loop): Opus, or a
    /// retransmission of it from the server's cache (RTX, RFC 4588).
    func received(rtp: UnsafeMutableRawPointer, length: Int, now: Instant) {
        let raw = UnsafeRawBufferPointer(start: rtp, count: length)
        guard let h = try? RtpHeader.parse(raw) else { return }
        if h.payloadType == PayloadType.opusRtx.rawValue {
            guard let media = rtxStreams.withLock({ $0[h.ssrc] }),
                  var original = RtxPacket.unwrap(raw, payloadType: PayloadType.opus.rawValue, ssrc: media) else { return }
            let n = original.count
            original.withUnsafeMutableBytes { received($0.baseAddress!, n, now: now, retransmitted: true) }
            return
        }
        received(rtp, length, now: now, retransmitted: false)
    }

    /// The longest loss burst whose retransmissions playout waits for in
    /// full; longer ones are partly concealed.
    static let longestBurstWaitedFor: Duration = .milliseconds(200)

    /// The least playout delay on a lossy path: a round trip, plus what a
    /// retransmission waits for beyond it: a packet's time and 10 ms of
    /// margin for a lone loss; for a burst of `burst` packets, the packets
    /// after the first as well (up to `longestBurstWaitedFor` in all), since
    /// the gap is seen, and asked for, only when the packet after it comes.
    static func playoutFloor(rtt: Duration, packet: Duration, burst: Int) -> Duration {
        let packetMs = max(1, packet.milliseconds)
        let waited = min(Int64(max(1, burst)), max(1, longestBurstWaitedFor.milliseconds / packetMs))
        return rtt + .milliseconds(30) + packet * Int(waited - 1)
    }

    private func received(_ rtp: UnsafeMutableRawPointer, _ length: Int, now: Instant, retransmitted: Bool) {
        let raw = UnsafeRawBufferPointer(start: rtp, count: length)
        guard let h = try? RtpHeader.parse(raw), h.payloadType == PayloadType.opus.rawValue,
              h.payloadOffset < length - h.paddingLength else { return }
        guard let mark = PayloadProtection.mark(in: raw),
              let payload = receiveCrypto.withLock({ c -> [UInt8]? in
                  // Encrypted end to end, or seen by the host's observer: what cannot be read goes no further.
                  let received = Array(raw[h.payloadOffset..<(length - h.paddingLength)])
                  protection.refresh(&c)
                  guard mark != nil || c.active else { return received }
                  return protection.incoming(received, marked: mark, .audio, &c)
              }) else { return }
        receivedPackets.withLock { $0 += 1 }
        callBytes.withLock { $0.rx += UInt64(length) }
        let uid = owners.withLock { $0[h.ssrc] } ?? 0
        let wanted = settings.withLock { $0.audioEnabled && (uid == 0 || !($0.blocked.all || $0.blocked.isBlocked(uid))) }
        guard wanted else { return }
        // A stream decodes to the channels its packets carry (mono or stereo).
        guard let channels = OpusDecoder.channels(in: payload) else { return }
        let stream = streams.withLock { map -> RemoteStream? in
            if let s = map[h.ssrc] { return s }
            guard map.count < 64, let s = RemoteStream(ssrc: h.ssrc, channels: channels) else { return nil }
            // Fast start: the first packet of a stream that begins right after the
            // media path opened is the server's newest one, already as old as the target delay.
            if let until = fastStartUntil.withLock({ $0 }), now < until {
                s.state.withLock { $0.buffer.startsAtFirstPacket = true }
            }
            map[h.ssrc] = s
            return s
        }
        guard let stream else { return }
        var events: [AudioEvent] = []
        // NACK where it helps: with loss recovery on, and a round trip that
        // brings the packet back before it is due to play (inside the jitter
        // buffer's target delay).
        let link = transport.withLock { $0 }
        let recovery = settings.withLock { $0.lossRecovery }
        let rtt = link?.rtt ?? .milliseconds(100)
        let (nack, recovered) = stream.state.withLock { st -> ([UInt16], Bool) in
            if st.uid == 0 { st.uid = uid }
            if st.buffer.channels != channels, let b = RemoteStream.makeBuffer(channels: channels) {
                st.buffer = b  // the sender changed its channel count: start afresh
            }
            return st.receive(sequence: h.sequenceNumber, timestamp: h.timestamp, payload: payload, arrival: now,
                              retransmitted: retransmitted, rtt: rtt, lossRecovery: recovery)
        }
        if recovered { retransmissionCounters.withLock { $0.recovered += 1 } }
        if !nack.isEmpty, let link {
            link.send(rtcp: GenericNack(sender: .none, media: Ssrc(h.ssrc), sequences: nack))
            retransmissionCounters.withLock { $0.nacked += nack.count }
        }
        stream.state.withLock { st in
            st.bytes += length
            st.lastPacket = now
            if st.uid != 0 && !st.firstPacketReported {
                st.firstPacketReported = true
                events.append(.firstRemoteAudioFrame(uid: st.uid, elapsedMs: elapsedMs(now)))
                if st.state != 1 {
                    st.state = 1
                    events.append(.remoteAudioStateChanged(uid: st.uid, state: 1, reason: st.resumeReason,
                                                           elapsedMs: elapsedMs(now)))
                }
            }
        }
        for e in events { emit(e) }
    }

    // MARK: - Remote users

    /// A remote user muted or unmuted its audio (onUserMuteAudio).
    func remoteMuted(uid: UInt32, muted: Bool) {
        for s in streams(of: uid) {
            reportRemote(s, state: muted ? 0 : nil, reason: muted ? 5 : 6)
        }
    }

    /// The local user stopped or resumed receiving `uid` (muteRemoteAudioStream and friends).
    func locallyMuted(uid: UInt32, muted: Bool) {
        for s in streams(of: uid) {
            reportRemote(s, state: muted ? 0 : nil, reason: muted ? 3 : 4)
            if muted { s.state.withLock { $0.buffer.reset() } }
        }
    }

    /// A remote user left: its streams are dropped.
    func remoteLeft(uid: UInt32) {
        let gone = streams.withLock { map -> [RemoteStream] in
            let g = map.values.filter { $0.state.withLock { $0.uid } == uid }
            for s in g { map[s.ssrc] = nil }
            return g
        }
        for s in gone { reportRemote(s, state: 0, reason: 7) }
        levels.withLock { $0.remotePeak[uid] = nil; $0.smoothRemote[uid] = nil }
    }

    /// Stream -> uid mapping from signaling; unknown streams learn their owner.
    func setOwners(_ map: [UInt32: UInt32]) {
        owners.withLock { $0 = map }
        for (ssrc, uid) in map {
            guard let s = streams.withLock({ $0[ssrc] }) else { continue }
            s.state.withLock { if $0.uid == 0 { $0.uid = uid } }
        }
    }

    private func streams(of uid: UInt32) -> [RemoteStream] {
        streams.withLock { $0.values.filter { $0.state.withLock { $0.uid } == uid } }
    }

    /// Moves a stream to `state` (nil: STOPPED is left, DECODING follows with
    /// `reason` once audio plays again) and reports it.
    private func reportRemote(_ s: RemoteStream, state: Int32?, reason: Int32) {
        // The uid to report, 0 for nothing: plain integers out of the lock, the
        // event made after it.
        let uid = s.state.withLock { st -> UInt32 in
            guard st.uid != 0 else { return 0 }
            if let state {
                guard st.state != state else { return 0 }
                st.state = state
                return st.uid
            }
            st.resumeReason = reason
            st.firstPacketReported = false
            return 0
        }
        if uid != 0, let state {
            emit(.remoteAudioStateChanged(uid: uid, state: state, reason: reason, elapsedMs: elapsedMs()))
        }
    }

    /// Drops every remote stream (the call ended).
    func resetReceive() {
        streams.withLock { $0 = [:] }
        owners.withLock { $0 = [:] }
        playLock.withLock { $0.sinkPending = [] }
        recordedForMix.withLock { $0 = [] }
        levels.withLock { $0 = LevelState() }
    }

    // MARK: - Playout

    /// setExternalAudioSink: the rate and channels `pull` delivers.
    func setSink(enabled: Bool, sampleRate: Int, channels: Int) throws(AgoraError) {
        if enabled {
            guard AudioTapParameters.sampleRates.contains(sampleRate), channels == 1 || channels == 2 else {
                throw .invalidArgument
            }
        }
        settings.withLock { $0.sink = enabled ? (sampleRate, channels) : nil }
    }

    /// Channels of the enabled sink, 0 when none.
    var sinkChannels: Int { settings.withLock { $0.sink?.channels ?? 0 } }

    /// pullPlaybackAudioFrame: exactly `out.count` interleaved samples at the sink's format.
    func pull(into out: UnsafeMutableBufferPointer<Int16>, now: Instant) throws(AgoraError) {
        if Self.isInCallback { throw .refused }
        guard let sink = settings.withLock({ $0.sink }) else { throw .notReady }
        try playLock.withLock { p throws(AgoraError) in
            if p.sinkFormat?.rate != sink.rate || p.sinkFormat?.channels != sink.channels {
                p.sinkFormat = sink
                p.sinkPending = []
                p.sinkResampler = sink.rate == 48000 ? nil
                    : Resampler(channels: sink.channels, inputRate: 48000, outputRate: sink.rate)
            }
            guard out.count % sink.channels == 0 else { throw .invalidArgument }
            while p.sinkPending.count < out.count {
                var pcm = convertChannels(render(&p, now: now), from: 2, to: sink.channels)
                if let r = p.sinkResampler { pcm = r.process(pcm) }
                p.sinkPending += pcm
            }
            for i in 0..<out.count { out[i] = p.sinkPending[i] }
            p.sinkPending.removeFirst(out.count)
        }
    }

    /// One 10 ms playout tick of the device path (no external sink): returns
    /// 48 kHz stereo.
    func renderTick(now: Instant) -> [Int16] {
        playLock.withLock { render(&$0, now: now) }
    }

    /// Mixes 10 ms of every remote stream through the playout path (under
    /// `playLock`): 48 kHz stereo, mono streams in both channels.
    func render(_ p: inout PlayState, now: Instant) -> [Int16] {
        let cfg = settings.withLock { c in
            (c.audioEnabled, c.playbackVolume, c.userVolumes, c.observer, c.generation,
             c.playbackParameters, c.mixedParameters, c.beforeMixingParameters, c.blocked, c.lossRecovery)
        }
        let (enabled, playbackVolume, userVolumes, observer, generation, playParams, mixedParams, beforeParams, blocked,
             recovery) = cfg
        var mix = [Int32](repeating: 0, count: 2 * Self.frame)
        let ms = now.nanoseconds / 1_000_000
        var events: [AudioEvent] = []
        let placement = voice.placement
        if enabled {
            let all = streams.withLock { Array($0.values) }.sorted { $0.ssrc < $1.ssrc }
            for stream in all {
                var decoded: [Int16] = []
                let uid = stream.state.withLock { st -> UInt32 in
                    decoded = [Int16](repeating: 0, count: Self.frame * st.buffer.channels)
                    st.buffer.lossRecovery = recovery
                    let kind = decoded.withUnsafeMutableBufferPointer { st.buffer.pull(into: $0.baseAddress!, now: now) }
                    track(&st, kind, now: now, events: &events)
                    return st.uid
                }
                var frame = convertChannels(decoded, from: decoded.count / Self.frame, to: 2)
                if uid != 0 && (blocked.all || blocked.isBlocked(uid)) { continue }
                for tap in recordTaps.withLock({ Array($0.values) }) { tap(uid, frame, 2) }
                PCM.applyGain(&frame, percent: userVolumes[uid] ?? 100)
                let volume = PCM.volume(frame)
                if uid != 0 { levels.withLock { $0.remotePeak[uid] = max($0.remotePeak[uid] ?? 0, volume) } }
                if let observer, observer.positions.contains(.beforeMixing), let cb = observer.onPlaybackBeforeMixing {
                    stream.state.withLock { st in
                        if st.tapGeneration != generation {
                            var bp = beforeParams
                            bp.mode = .readOnly
                            st.tap = AudioFrameTap(parameters: bp, engineChannels: 2)
                            st.tapGeneration = generation
                        }
                    }
                    let tap = stream.state.withLock { $0.tap }!
                    var copy = frame
                    tap.process(&copy) { buffer in
                        Self.inCallback {
                            cb(uid, AudioFrameView(buffer: buffer, samplesPerChannel: buffer.count / tap.parameters.channels,
                                                   channels: tap.parameters.channels,
                                                   sampleRate: tap.parameters.sampleRate, renderTimeMs: ms))
                        }
                    }
                }
                if !placement.isNeutral, uid != 0,
                   place(source: uid, key: uid, frame, placement, &p, into: &mix) {
                    continue
                }
                for i in 0..<(2 * Self.frame) { mix[i] += Int32(frame[i]) }
            }
        }
        var out = mix.map { Int16(clamping: $0) }
        PCM.applyGain(&out, percent: playbackVolume)
        mixPlayoutFeeds(into: &out, placement: placement, &p)
        if let bands = voice.headphone.withLock({ $0.equalization }) {
            var fx = VoiceEffectSettings()
            fx.equalization = bands
            if p.headphone == nil { p.headphone = VoiceEffectChain(channels: 2) }
            if p.headphone!.settings != fx { p.headphone!.apply(fx) }
            p.headphone!.process(&out)
        } else {
            p.headphone = nil
        }
        if p.tapGeneration != generation {
            p.tapGeneration = generation
            p.playbackTap = nil
            p.mixedTap = nil
        }
        if let observer, observer.positions.contains(.playback), let cb = observer.onPlayback {
            if p.playbackTap == nil { p.playbackTap = AudioFrameTap(parameters: playParams, engineChannels: 2) }
            let tap = p.playbackTap!
            tap.process(&out) { buffer in
                Self.inCallback {
                    cb(AudioFrameView(buffer: buffer, samplesPerChannel: buffer.count / tap.parameters.channels,
                                      channels: tap.parameters.channels, sampleRate: tap.parameters.sampleRate,
                                      renderTimeMs: ms))
                }
            }
        }
        levels.withLock { $0.totalPeak = max($0.totalPeak, PCM.volume(out)) }
        // The mixed position and the recorder hear both directions.
        let wantsMixed = observer.map { $0.positions.contains(.mixed) && $0.onMixed != nil } ?? false
        let recordPosition = recorder.withLock { $0?.position }
        if wantsMixed || recordPosition == .mixedRecordingAndPlayback {
            var both = out
            if let local = recordedForMix.withLock({ q -> [Int16]? in q.isEmpty ? nil : q.removeFirst() }) {
                PCM.mix(&both, convertChannels(local, from: 1, to: 2))
            }
            if wantsMixed, let cb = observer?.onMixed {
                if p.mixedTap == nil {
                    var mp = mixedParams
                    mp.mode = .readOnly
                    p.mixedTap = AudioFrameTap(parameters: mp, engineChannels: 2)
                }
                let tap = p.mixedTap!
                var copy = both
                tap.process(&copy) { buffer in
                    Self.inCallback {
                        cb(AudioFrameView(buffer: buffer, samplesPerChannel: buffer.count / tap.parameters.channels,
                                          channels: tap.parameters.channels, sampleRate: tap.parameters.sampleRate,
                                          renderTimeMs: ms))
                    }
                }
            }
            if recordPosition == .mixedRecordingAndPlayback {
                recorder.withLock { $0?.write(both, channels: 2) }
            }
        } else {
            recordedForMix.withLock { q in if q.count > 2 { q.removeFirst(q.count - 2) } }
        }
        if recordPosition == .mixedPlayback { recorder.withLock { $0?.write(out, channels: 2) } }
        // The far end for a custom track's echo canceller: what is played.
        if let processor = trackProcessor.withLock({ $0 }), processor.config.echoCancellation {
            processor.processReverse(out, channels: 2)
        }
        for e in events { emit(e) }
        return out
    }

    /// Places one voice (a remote user's, `key` its uid; or a media player's
    /// local playout) in `mix` when the spatial audio engine has its position
    /// (binaurally, or silent beyond the range) or sound position indication
    /// its pan. False: the voice is mixed in the middle as usual.
    private func place(source: UInt32?, key: UInt32, _ frame: [Int16], _ placement: VoiceControl.Placement,
                       player: Int32? = nil, _ p: inout PlayState, into mix: inout [Int32]) -> Bool {
        if let spatial = placement.spatial {
            if spatial.allRemoteMuted, source != nil { return true }
            let world = player.map { spatial.players[$0] } ?? source.flatMap { spatial.remotes[$0] }
            if let world {
                let placed = (source.map { spatial.excluded.contains($0) } ?? false) ? nil : spatial.placement(world)
                return voice.renderer.withLock { r -> Bool in
                    guard let r else { return false }
                    guard let (position, gain) = placed else {
                        // Silent: its filter state goes, so it does not glide in from here when it comes back.
                        r.remove(source: key)
                        return true
                    }
                    r.render(source: key, mono: convertChannels(frame, from: 2, to: 1), at: position, gain: min(1, gain),
                             into: &mix)
                    return true
                }
            }
        }
        if let panning = placement.panning, let source, let at = panning.positions[source] {
            StereoPanner.pan(convertChannels(frame, from: 2, to: 1), pan: at.pan, gain: at.gain, into: &mix)
            return true
        }
        return false
    }

    /// Mixes the local playout of players, music and effects into `out`; a
    /// media player with a spatial position is rendered there.
    private func mixPlayoutFeeds(into out: inout [Int16], placement: VoiceControl.Placement, _ p: inout PlayState) {
        guard let spatial = placement.spatial, !spatial.players.isEmpty else {
            mixFeeds(\.playout, into: &out, channels: 2)
            return
        }
        let list = feeds.withLock { Array($0.playout.values) }
        var placed = [Int32](repeating: 0, count: out.count)
        var any = false
        for feed in list {
            guard let chunk = feed.read() else { continue }
            if let id = feed.playerId.withLock({ $0 }),
               place(source: nil, key: UInt32.max - UInt32(truncatingIfNeeded: id), chunk, placement,
                     player: id, &p, into: &placed) {
                any = true
                continue
            }
            PCM.mix(&out, chunk)
        }
        if any { for i in 0..<out.count { out[i] = Int16(clamping: Int32(out[i]) + placed[i]) } }
    }

    /// Per-frame bookkeeping of a stream: first decoded frame, frozen windows, states.
    private func track(_ st: inout RemoteStream.State, _ kind: AudioJitterBuffer.FrameKind, now: Instant,
                       events: inout [AudioEvent]) {
        guard st.uid != 0, st.firstPacketReported || st.firstDecodedReported else { return }
        let playing = kind == .decoded || kind == .fec
        if playing && !st.firstDecodedReported {
            st.firstDecodedReported = true
            events.append(.firstRemoteAudioDecoded(uid: st.uid, elapsedMs: elapsedMs(now)))
        }
        guard st.firstDecodedReported else { return }
        if playing && st.state != 2 && st.state != 0 {
            let reason: Int32 = st.state == 3 ? 2 : st.resumeReason
            st.state = 2
            st.resumeReason = 0
            events.append(.remoteAudioStateChanged(uid: st.uid, state: 2, reason: reason, elapsedMs: elapsedMs(now)))
        }
        // Active and frozen time count while the stream plays (not while
        // stopped, nor while it restarts after an unmute).
        guard st.state == 2 || st.state == 3 else { return }
        st.activeMs += 10
        st.periodFrames += 1
        st.windowFrames += 1
        if !playing { st.periodLost += 1; st.windowBad += 1 }
        if kind == .silence { st.silentFrames += 1 }
        if st.windowFrames == 20 {
            // Frozen: 4 % or more of a 200 ms window concealed (one frame in twenty).
            if st.windowBad * 100 >= 4 * 20 { st.frozenMs += 200 }
            st.windowFrames = 0
            st.windowBad = 0
        }
        // No packet for 500 ms while playing: FROZEN until packets return.
        if let last = st.lastPacket, now - last >= .milliseconds(500), st.state == 2 {
            st.state = 3
            events.append(.remoteAudioStateChanged(uid: st.uid, state: 3, reason: 1, elapsedMs: elapsedMs(now)))
        }
    }

    /// How long audio of `uid` arriving now waits before it plays (what its
    /// jitter buffer holds); zero when none of its audio arrives.
    func playoutDelay(uid: UInt32) -> Duration {
        let ms = streams(of: uid).map { $0.state.withLock { $0.buffer.stats.bufferedMs } }.max() ?? 0
        return .milliseconds(Int64(ms))
    }

    /// Receiving statistics per remote user for the period since the last call.
    func takeRemoteStats(periodMs: Int, transportDelayMs: Int) -> [RemoteAudioStats] {
        let all = streams.withLock { Array($0.values) }.sorted { $0.ssrc < $1.ssrc }
        return all.compactMap { s in
            s.state.withLock { st -> RemoteAudioStats? in
                guard st.uid != 0 else { return nil }
                defer { st.bytes = 0; st.periodFrames = 0; st.periodLost = 0 }
                var r = RemoteAudioStats()
                let b = st.buffer.stats
                r.uid = st.uid
                r.audioLossRate = Int32(st.periodFrames > 0 ? st.periodLost * 100 / st.periodFrames : 0)
                r.quality = r.audioLossRate < 1 ? 1 : r.audioLossRate < 5 ? 2 : r.audioLossRate < 15 ? 3
                    : r.audioLossRate < 30 ? 4 : 5
                if st.periodFrames == 0 { r.quality = 0 }
                // The playout delay the buffer holds to (the instantaneous fill swings by a packet).
                r.jitterBufferDelay = Int32(max(b.targetDelayMs, 0))
                r.networkTransportDelay = Int32(transportDelayMs + Int(b.jitterMs))
                r.receivedBitrate = Int32(periodMs > 0 ? st.bytes * 8 / periodMs : 0)
                r.totalFrozenTime = Int32(st.frozenMs)
                r.totalActiveTime = Int32(st.activeMs)
                r.frozenRate = Int32(st.activeMs > 0 ? st.frozenMs * 100 / st.activeMs : 0)
                r.fecRecoveredFrames = Int32(clamping: b.fecRecovered)
                r.concealedFrames = Int32(clamping: b.concealed)
                r.numChannels = Int32(st.buffer.channels)
                r.silentFrames = Int32(clamping: st.silentFrames)
                r.endToEndDelay = r.networkTransportDelay + r.jitterBufferDelay + 20
                return r
            }
        }
    }
}
