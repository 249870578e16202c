import AgoraishIO
import AgoraishMedia
import AgoraishWire

/// The events of audio mixing, effects and recorders, on the engine's event thread.
public enum MediaEvent: Sendable, Equatable {
    /// onAudioMixingStateChanged: AUDIO_MIXING_STATE_TYPE and AUDIO_MIXING_REASON_TYPE.
    case audioMixingStateChanged(state: Int32, reason: Int32)
    /// onAudioEffectFinished.
    case audioEffectFinished(soundId: Int32)
}

/// The music of audio mixing (startAudioMixing): a playback whose audio goes
/// into the engine's sending path (unless loopback) and its local playout.
final class AudioMixing: @unchecked Sendable {
    let playback: MediaPlayback
    let sendFeed = AudioFeed()
    let playoutFeed = AudioFeed()
    let loopback: Bool
    /// PLAYING was reported once (a later PLAYING is a resume).
    private let started = Locked(false)

    init(engine: RtcEngine, loopback: Bool) throws(AgoraError) {
        self.loopback = loopback
        let send = sendFeed, playout = playoutFeed, started = self.started
        let emit: @Sendable (Int32, Int32) -> Void = { [weak engine] s, r in
            engine?.emit(.media(.audioMixingStateChanged(state: s, reason: r)))
        }
        var outputs = PlaybackOutputs()
        outputs.audio = { pcm in
            if !loopback { send.write(pcm) }
            playout.write(pcm)
        }
        outputs.state = { state, reason in
            switch state {
            case .openCompleted:
                break
            case .playing:
                let first = started.withLock { s -> Bool in defer { s = true }; return !s }
                emit(710, first ? 0 : 726)
            case .paused: emit(711, 725)
            case .playbackAllLoopsCompleted: emit(713, 723)
            case .stopped: emit(713, 724)
            case .failed: emit(714, started.withLock { $0 } ? 703 : 701)
            default: break
            }
        }
        outputs.loopCompleted = { emit(710, 721) }
        playback = try MediaPlayback(name: "agoraish-mix", outputs: outputs)
        playback.settings.withLock { $0.wantVideo = false }
    }
}

/// One audio effect playing (playEffect).
final class AudioEffect: @unchecked Sendable {
    let soundId: Int32
    let playback: MediaPlayback
    let sendFeed = AudioFeed()
    let playoutFeed = AudioFeed()
    /// setVolumeOfEffect, 0...100.
    let volume = Locked(100)

    init(soundId: Int32, engine: RtcEngine, pan: Double, gain: Int, publish: Bool) throws(AgoraError) {
        self.soundId = soundId
        let send = sendFeed, playout = playoutFeed, volume = self.volume
        // Pan: the far side is turned down linearly, the near side kept.
        let left = pan > 0 ? 1 - pan : 1, right = pan < 0 ? 1 + pan : 1
        var outputs = PlaybackOutputs()
        outputs.audio = { [weak engine] pcm in
            guard let engine else { return }
            let all = engine.media.withLock { $0.effects.volume }
            let scale = Double(gain) / 100 * Double(volume.withLock { $0 }) / 100 * Double(all) / 100
            var out = pcm
            let l = scale * left, r = scale * right
            var i = 0
            while i + 1 < out.count {
                out[i] = Int16(clamping: Int((Double(out[i]) * l).rounded()))
                out[i + 1] = Int16(clamping: Int((Double(out[i + 1]) * r).rounded()))
                i += 2
            }
            if publish { send.write(out) }
            playout.write(out)
        }
        outputs.state = { [weak engine] state, _ in
            switch state {
            case .openCompleted:
                break
            case .failed:
                engine?.log.log(.warning, "effect \(soundId) failed to open or read")
                engine?.effectEnded(soundId, finished: false)
            default: break
            }
        }
        outputs.completed = { [weak engine] in engine?.effectEnded(soundId, finished: true) }
        playback = try MediaPlayback(name: "agoraish-fx\(soundId)", outputs: outputs)
        playback.settings.withLock { $0.wantVideo = false }
    }
}

/// The engine's effects: those playing, those preloaded, the volume of all.
struct EffectState {
    var playing: [Int32: AudioEffect] = [:]
    /// preloadEffect: the file and start position of a sound id.
    var preloaded: [Int32: (path: String, startMs: Int)] = [:]
    /// setEffectsVolume, 0...100.
    var volume = 100

    var count: Int { Set(playing.keys).union(preloaded.keys).count }
}

extension RtcEngine {
    /// Starts of audio mixing closer together than this are refused (TOO_FREQUENT_CALL).
    static let mixingStartSpacing = Duration.milliseconds(100)

    private func checkPath(_ path: String) throws(AgoraError) {
        guard !path.isEmpty, path.utf8.count <= 4095, !path.utf8.contains(0) else { throw .invalidArgument }
    }

    // MARK: - Audio mixing

    /// startAudioMixing: `cycle` plays (-1 forever); `loopback` keeps the music local.
    public func startAudioMixing(_ path: String, loopback: Bool, cycle: Int, startPositionMs: Int) throws(AgoraError) {
        guard owner == nil else { throw .refused }
        try checkPath(path)
        guard cycle == -1 || cycle > 0, startPositionMs >= 0 else { throw .invalidArgument }
        let now = Instant.now()
        let tooSoon = media.withLock { m -> Bool in
            if let last = m.lastMixingStart, now - last < Self.mixingStartSpacing { return true }
            m.lastMixingStart = now
            return false
        }
        if tooSoon {
            emit(.media(.audioMixingStateChanged(state: 714, reason: 702)))
            throw .tooOften
        }
        stopMixing(report: false)
        let mixing = try AudioMixing(engine: self, loopback: loopback)
        let (playoutVolume, publishVolume) = media.withLock { ($0.mixingPlayoutVolume, $0.mixingPublishVolume) }
        mixing.playoutFeed.gain.withLock { $0 = playoutVolume }
        mixing.sendFeed.gain.withLock { $0 = publishVolume }
        let (pitch, speed) = media.withLock { ($0.mixingPitch, $0.mixingSpeed) }
        mixing.playback.settings.withLock {
            $0.loops = cycle < 0 ? -1 : cycle - 1
            $0.pitch = pitch == 0 ? 1 : TimeStretcher.pitchScale(semitones: Double(pitch))
            $0.speed = speed
        }
        media.withLock { $0.mixing = mixing }
        audio.feeds.withLock { $0.attach(mixing, send: loopback ? nil : mixing.sendFeed, playout: mixing.playoutFeed) }
        device.refresh()
        mixing.playback.send(.open(url: path, startMs: Int64(startPositionMs)))
        mixing.playback.send(.play)
        log.log(.info, "api startAudioMixing \(path.prefix(200)) loopback \(loopback) cycle \(cycle) at \(startPositionMs)")
    }

    /// Ends the music, if any (`report`: STOPPED with STOPPED_BY_USER).
    @discardableResult
    private func stopMixing(report: Bool) -> Bool {
        guard let mixing = media.withLock({ m -> AudioMixing? in defer { m.mixing = nil }; return m.mixing }) else {
            return false
        }
        audio.feeds.withLock { $0.detach(mixing) }
        mixing.playback.shutdown(wait: !EventThread.isAnyCurrent)
        if report { emit(.media(.audioMixingStateChanged(state: 713, reason: 724))) }
        return true
    }

    private func currentMixing() throws(AgoraError) -> AudioMixing {
        guard owner == nil else { throw .refused }
        guard let m = media.withLock({ $0.mixing }) else { throw .invalidState }
        return m
    }

    /// stopAudioMixing.
    public func stopAudioMixing() throws(AgoraError) {
        guard owner == nil else { throw .refused }
        // Music that ended or failed on its own is cleared without a report: nothing was running.
        let over = media.withLock { $0.mixing }.map {
            [.playbackAllLoopsCompleted, .failed, .stopped].contains($0.playback.snapshot.withLock { $0.state })
        } ?? true
        guard stopMixing(report: !over), !over else { throw .invalidState }
        log.log(.info, "api stopAudioMixing")
    }

    /// pauseAudioMixing.
    public func pauseAudioMixing() throws(AgoraError) {
        let m = try currentMixing()
        let state = m.playback.effectiveState
        guard state == .playing || state == .opening || state == .openCompleted else { throw .invalidState }
        m.playback.send(.pause)
    }

    /// resumeAudioMixing.
    public func resumeAudioMixing() throws(AgoraError) {
        let m = try currentMixing()
        guard m.playback.effectiveState == .paused else { throw .invalidState }
        m.playback.send(.resume)
    }

    /// adjustAudioMixingPlayoutVolume (`playout`) / adjustAudioMixingPublishVolume (`publish`), 0...100.
    public func setAudioMixingVolume(playout: Int?, publish: Int?) throws(AgoraError) {
        guard owner == nil else { throw .refused }
        for v in [playout, publish].compactMap({ $0 }) where !(0...100).contains(v) { throw .invalidArgument }
        let mixing = media.withLock { m -> AudioMixing? in
            if let playout { m.mixingPlayoutVolume = playout }
            if let publish { m.mixingPublishVolume = publish }
            return m.mixing
        }
        if let mixing {
            if let playout { mixing.playoutFeed.gain.withLock { $0 = playout } }
            if let publish { mixing.sendFeed.gain.withLock { $0 = publish } }
        }
    }

    public var audioMixingPlayoutVolume: Int { media.withLock { $0.mixingPlayoutVolume } }
    public var audioMixingPublishVolume: Int { media.withLock { $0.mixingPublishVolume } }

    private func openMixing() throws(AgoraError) -> AudioMixing {
        let m = try currentMixing()
        let state = m.playback.snapshot.withLock { $0.state }
        guard [.openCompleted, .playing, .paused].contains(state) else { throw .invalidState }
        return m
    }

    /// getAudioMixingDuration (ms).
    public func audioMixingDuration() throws(AgoraError) -> Int {
        Int(try openMixing().playback.snapshot.withLock { $0.durationMs })
    }

    /// getAudioMixingCurrentPosition (ms).
    public func audioMixingPosition() throws(AgoraError) -> Int {
        Int(try openMixing().playback.snapshot.withLock { $0.positionMs })
    }

    /// setAudioMixingPosition.
    public func setAudioMixingPosition(_ ms: Int) throws(AgoraError) {
        guard ms >= 0 else { throw .invalidArgument }
        let m = try openMixing()
        m.sendFeed.clear()
        m.playoutFeed.clear()
        m.playback.send(.seek(Int64(ms)))
    }

    /// setAudioMixingPitch: -12...12 semitones (applies to this and later music).
    public func setAudioMixingPitch(_ semitones: Int) throws(AgoraError) {
        guard owner == nil else { throw .refused }
        guard (-12...12).contains(semitones) else { throw .invalidArgument }
        media.withLock { $0.mixingPitch = semitones }
        media.withLock { $0.mixing }?.playback.settings.withLock {
            $0.pitch = semitones == 0 ? 1 : TimeStretcher.pitchScale(semitones: Double(semitones))
        }
    }

    /// setAudioMixingPlaybackSpeed: 50...400 percent.
    public func setAudioMixingPlaybackSpeed(_ speed: Int) throws(AgoraError) {
        guard owner == nil else { throw .refused }
        guard (50...400).contains(speed) else { throw .invalidArgument }
        media.withLock { $0.mixingSpeed = speed }
        media.withLock { $0.mixing }?.playback.settings.withLock { $0.speed = speed }
    }

    // MARK: - Effects

    /// Effects one engine plays or holds (AGORAISH_MAX_AUDIO_EFFECTS).
    static let maxEffects = 16

    /// preloadEffect: opens the file now (blocking, at most 10 s) to check it.
    public func preloadEffect(_ soundId: Int32, path: String, startPositionMs: Int) throws(AgoraError) {
        guard owner == nil else { throw .refused }
        try checkPath(path)
        guard startPositionMs >= 0 else { throw .invalidArgument }
        do {
            _ = try MediaSource(url: path, wantVideo: false)
        } catch {
            ErrorDetail.set("\(path.prefix(200)) cannot be opened (reason \(error.rawValue))")
            throw .failed
        }
        let ok = media.withLock { m -> Bool in
            if m.effects.preloaded[soundId] == nil && m.effects.playing[soundId] == nil && m.effects.count >= Self.maxEffects {
                return false
            }
            m.effects.preloaded[soundId] = (path, startPositionMs)
            return true
        }
        guard ok else { throw .refused }
        log.log(.info, "api preloadEffect \(soundId) \(path.prefix(200))")
    }

    /// playEffect: `loopCount` 0 once, -1 forever; `pitch` 0.5...2; `pan` -1...1; `gain` 0...100.
    public func playEffect(_ soundId: Int32, path: String?, loopCount: Int, pitch: Double, pan: Double, gain: Int,
                           publish: Bool, startPositionMs: Int) throws(AgoraError) {
        guard owner == nil else { throw .refused }
        guard loopCount >= -1, pitch >= 0.5, pitch <= 2, pan >= -1, pan <= 1, (0...100).contains(gain),
              startPositionMs >= 0 else { throw .invalidArgument }
        let file: String
        var start = startPositionMs
        let preloaded = media.withLock { $0.effects.preloaded[soundId] }
        if let path, !path.isEmpty {
            try checkPath(path)
            file = path
        } else {
            guard let p = preloaded else { throw .invalidArgument }
            file = p.path
        }
        // The preload's start position applies when the play gives none.
        if start == 0, let p = preloaded, p.path == file { start = p.startMs }
        let effect = try AudioEffect(soundId: soundId, engine: self, pan: pan, gain: gain, publish: publish)
        effect.playback.settings.withLock {
            $0.loops = loopCount
            $0.pitch = pitch
        }
        let (added, old) = media.withLock { m -> (Bool, AudioEffect?) in
            let old = m.effects.playing[soundId]
            if old == nil && m.effects.preloaded[soundId] == nil && m.effects.count >= Self.maxEffects { return (false, nil) }
            m.effects.playing[soundId] = effect
            return (true, old)
        }
        guard added else {
            effect.playback.shutdown(wait: true)
            throw .refused
        }
        if let old { detachEffect(old) }
        audio.feeds.withLock { $0.attach(effect, send: publish ? effect.sendFeed : nil, playout: effect.playoutFeed) }
        device.refresh()
        effect.playback.send(.open(url: file, startMs: Int64(start)))
        effect.playback.send(.play)
        log.log(.info, "api playEffect \(soundId) \(file.prefix(200)) loops \(loopCount) pitch \(pitch) pan \(pan) gain \(gain) publish \(publish)")
    }

    /// Takes an effect's feeds out of the mix and ends its thread.
    private func detachEffect(_ e: AudioEffect) {
        audio.feeds.withLock { $0.detach(e) }
        e.playback.shutdown(wait: !e.playback.isCurrent && !EventThread.isAnyCurrent)
    }

    /// An effect ended on its own (its thread): it leaves the table, and a
    /// finished one is reported (onAudioEffectFinished).
    func effectEnded(_ soundId: Int32, finished: Bool) {
        events.post { [weak self] in
            guard let self, !self.isReleased else { return }
            guard let e = self.media.withLock({ m -> AudioEffect? in
                guard let e = m.effects.playing[soundId], [.playbackAllLoopsCompleted, .failed].contains(
                    e.playback.snapshot.withLock { $0.state }) else { return nil }
                m.effects.playing[soundId] = nil
                return e
            }) else { return }
            self.detachEffect(e)
            if finished { self.emit(.media(.audioEffectFinished(soundId: soundId))) }
        }
    }

    private func playingEffect(_ soundId: Int32) throws(AgoraError) -> AudioEffect {
        guard owner == nil else { throw .refused }
        guard let e = media.withLock({ $0.effects.playing[soundId] }) else { throw .invalidArgument }
        return e
    }

    /// stopEffect (`nil`: stopAllEffects).
    public func stopEffect(_ soundId: Int32?) throws(AgoraError) {
        guard owner == nil else { throw .refused }
        let stopped = media.withLock { m -> [AudioEffect] in
            if let soundId { return m.effects.playing.removeValue(forKey: soundId).map { [$0] } ?? [] }
            defer { m.effects.playing = [:] }
            return Array(m.effects.playing.values)
        }
        if soundId != nil && stopped.isEmpty { throw .invalidArgument }
        for e in stopped { detachEffect(e) }
    }

    /// pauseEffect (`nil`: pauseAllEffects).
    public func pauseEffect(_ soundId: Int32?) throws(AgoraError) {
        if let soundId {
            let e = try playingEffect(soundId)
            let state = e.playback.effectiveState
            guard state == .playing || state == .opening || state == .openCompleted else { throw .invalidArgument }
            e.playback.send(.pause)
        } else {
            guard owner == nil else { throw .refused }
            for e in media.withLock({ Array($0.effects.playing.values) }) { e.playback.send(.pause) }
        }
    }

    /// resumeEffect (`nil`: resumeAllEffects).
    public func resumeEffect(_ soundId: Int32?) throws(AgoraError) {
        if let soundId {
            let e = try playingEffect(soundId)
            guard e.playback.effectiveState == .paused else { throw .invalidArgument }
            e.playback.send(.resume)
        } else {
            guard owner == nil else { throw .refused }
            for e in media.withLock({ Array($0.effects.playing.values) }) { e.playback.send(.resume) }
        }
    }

    /// unloadEffect (`nil`: unloadAllEffects): stops it and forgets the preload.
    public func unloadEffect(_ soundId: Int32?) throws(AgoraError) {
        guard owner == nil else { throw .refused }
        let (known, stopped) = media.withLock { m -> (Bool, [AudioEffect]) in
            if let soundId {
                let known = m.effects.preloaded.removeValue(forKey: soundId) != nil
                let e = m.effects.playing.removeValue(forKey: soundId)
                return (known || e != nil, e.map { [$0] } ?? [])
            }
            defer { m.effects.playing = [:]; m.effects.preloaded = [:] }
            return (true, Array(m.effects.playing.values))
        }
        guard known else { throw .invalidArgument }
        for e in stopped { detachEffect(e) }
    }

    /// setEffectsVolume, 0...100.
    public func setEffectsVolume(_ v: Int) throws(AgoraError) {
        guard owner == nil else { throw .refused }
        guard (0...100).contains(v) else { throw .invalidArgument }
        media.withLock { $0.effects.volume = v }
    }

    public var effectsVolume: Int { media.withLock { $0.effects.volume } }

    /// setVolumeOfEffect, 0...100.
    public func setVolumeOfEffect(_ soundId: Int32, volume v: Int) throws(AgoraError) {
        guard (0...100).contains(v) else { throw .invalidArgument }
        try playingEffect(soundId).volume.withLock { $0 = v }
    }

    /// getVolumeOfEffect.
    public func volumeOfEffect(_ soundId: Int32) throws(AgoraError) -> Int {
        try playingEffect(soundId).volume.withLock { $0 }
    }

    /// getEffectDuration: opens the file (blocking, at most 10 s).
    public func effectDuration(_ path: String) throws(AgoraError) -> Int {
        try checkPath(path)
        do {
            return Int(try MediaSource(url: path, wantVideo: false).durationMs)
        } catch {
            throw .failed
        }
    }

    /// setEffectPosition.
    public func setEffectPosition(_ soundId: Int32, ms: Int) throws(AgoraError) {
        guard ms >= 0 else { throw .invalidArgument }
        let e = try playingEffect(soundId)
        e.sendFeed.clear()
        e.playoutFeed.clear()
        e.playback.send(.seek(Int64(ms)))
    }

    /// getEffectCurrentPosition (ms).
    public func effectPosition(_ soundId: Int32) throws(AgoraError) -> Int {
        Int(try playingEffect(soundId).playback.snapshot.withLock { $0.positionMs })
    }
}
