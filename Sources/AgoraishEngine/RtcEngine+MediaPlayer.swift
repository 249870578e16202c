import AgoraishIO
import AgoraishMedia
import AgoraishWire

/// The events of one media player (Agora's IMediaPlayerSourceObserver),
/// called on the engine's event thread. Nil members are skipped.
public struct MediaPlayerObserver: Sendable {
    /// onPlayerSourceStateChanged: MEDIA_PLAYER_STATE and MEDIA_PLAYER_REASON.
    public var onStateChanged: (@Sendable (Int32, Int32) -> Void)?
    /// onPositionChanged: the position (ms) and the monotonic clock (ms).
    public var onPositionChanged: (@Sendable (Int64, Int64) -> Void)?
    /// onPlayerEvent: MEDIA_PLAYER_EVENT, the position (ms), a message.
    public var onEvent: (@Sendable (Int32, Int64, String) -> Void)?
    /// onPlayBufferUpdated: ms decoded ahead.
    public var onBufferUpdated: (@Sendable (Int64) -> Void)?
    /// onCompleted: the last loop ended.
    public var onCompleted: (@Sendable () -> Void)?

    public init() {}
}

/// A media player (Agora's IMediaPlayer): plays a file or URL in real time
/// (docs/media.md). Its audio is played locally through the engine's
/// playout and published by connections that choose it; its pictures go to
/// its canvas, its observers and the connections that publish them.
public final class MediaPlayer: @unchecked Sendable {
    /// The player's id within its engine (1 and up).
    public let id: Int32
    private unowned let engine: RtcEngine
    let playback: MediaPlayback
    /// The player's audio on its way into the engine's playout.
    let playoutFeed = AudioFeed()

    struct Settings {
        var playoutVolume = 100
        var publishVolume = 100
        var muted = false
        var canvas: VideoCanvas? = nil
        var observer = MediaPlayerObserver()
        var audioObserver: ((AudioFrameView) -> Void)? = nil
        var videoObserver: ((VideoFrameView) -> Void)? = nil
    }
    let settings = Locked(Settings())

    /// Track ids of players start here, far above the custom tracks (1...32).
    static let trackBase: Int32 = 0x4000_0000
    /// The custom audio and video track id under which connections publish this player.
    var trackId: Int32 { Self.trackBase + id }

    init(id: Int32, engine: RtcEngine) throws(AgoraError) {
        self.id = id
        self.engine = engine
        let box = WeakPlayer()
        let outputs = PlaybackOutputs(
            audio: { box.player?.deliverAudio($0) },
            video: { box.player?.deliverVideo($0) },
            state: { s, r in box.player?.notify { $0.onStateChanged?(s.rawValue, r) } },
            event: { e, pos, msg in box.player?.notify { $0.onEvent?(e.rawValue, pos, msg) } },
            position: { pos in
                let ms = Instant.now().nanoseconds / 1_000_000
                box.player?.notify { $0.onPositionChanged?(pos, ms) }
            },
            buffer: { ms in box.player?.notify { $0.onBufferUpdated?(ms) } },
            loopCompleted: {},
            completed: { box.player?.notify { $0.onCompleted?() } })
        playback = try MediaPlayback(name: "agoraish-mp\(id)", outputs: outputs)
        box.player = self
    }

    /// Hands an observer call to the engine's event thread.
    /// The observer is read when the event is delivered, so none reaches an
    /// observer after it was replaced or the player destroyed.
    private func notify(_ body: @escaping @Sendable (MediaPlayerObserver) -> Void) {
        engine.events.post { [weak self, weak engine] in
            guard let self, let engine, !engine.isReleased else { return }
            body(self.settings.withLock { $0.observer })
        }
    }

    private func deliverAudio(_ pcm: [Int16]) {
        let s = settings.withLock { ($0.playoutVolume, $0.publishVolume, $0.muted, $0.audioObserver) }
        if let observer = s.3 {
            var copy = pcm
            copy.withUnsafeMutableBufferPointer { b in
                observer(AudioFrameView(buffer: b, samplesPerChannel: 480, channels: 2, sampleRate: 48000,
                                        renderTimeMs: Instant.now().nanoseconds / 1_000_000))
            }
        }
        guard !s.2 else { return }
        playoutFeed.gain.withLock { $0 = s.0 }
        playoutFeed.write(pcm)
        var published = pcm
        if s.1 != 100 { PCM.applyGain(&published, percent: s.1) }
        published.withUnsafeBufferPointer { b in
            try? engine.pushCustomAudioFrame(track: trackId, samples: b.baseAddress, samplesPerChannel: 480,
                                             sampleRate: 48000, channels: 2)
        }
    }

    private func deliverVideo(_ picture: DecodedPicture) {
        let (canvas, observer) = settings.withLock { ($0.canvas, $0.videoObserver) }
        let f = picture.frame
        let ms = Instant.now().nanoseconds / 1_000_000
        if let observer { f.withView(timeMs: ms, observer) }
        if let canvas {
            // Fitted to the view when it has a size (the alpha plane with it).
            let fits = canvas.viewWidth > 0 && canvas.viewHeight > 0
                && (canvas.viewWidth & ~1 != f.width || canvas.viewHeight & ~1 != f.height)
            var shown = fits ? PixelConversion.rendered(f, mode: canvas.renderMode, width: canvas.viewWidth & ~1,
                                                        height: canvas.viewHeight & ~1) : f
            if canvas.mirrorMode == 1 { shown = PixelConversion.mirrored(shown) }
            shown.withView(timeMs: ms) { canvas.deliver(0, $0) }
        }
        // Sent pictures are stamped with when they are shown, so loops, seeks and speed keep RTP time moving forward.
        let timestamp = ms
        f.y.withUnsafeBytes { y in
            f.u.withUnsafeBytes { u in
                f.v.withUnsafeBytes { v in
                    let source = PictureSource(format: .i420, width: f.width, height: f.height,
                                               plane0: y.baseAddress!, stride0: f.width,
                                               plane1: u.baseAddress!, stride1: f.chromaWidth,
                                               plane2: v.baseAddress!, stride2: f.chromaWidth)
                    try? engine.pushExternalVideoFrame(track: trackId, source, timestampMs: timestamp)
                }
            }
        }
    }

    // MARK: - Control (Agora's IMediaPlayer)

    /// open: OPENING (in order with the states of earlier calls), then OPEN_COMPLETED or FAILED through the observer.
    public func open(_ url: String, startPositionMs: Int64) throws(AgoraError) {
        guard !url.isEmpty, url.utf8.count <= 4095, !url.utf8.contains(0), startPositionMs >= 0 else {
            throw .invalidArgument
        }
        playoutFeed.clear()
        playback.send(.open(url: url, startMs: startPositionMs))
        engine.log.log(.info, "api mediaPlayer \(id) open \(url.prefix(200)) at \(startPositionMs)")
    }

    /// The state once the commands already sent are carried out.
    private var state: MediaPlayerState { playback.effectiveState }

    private var isOpen: Bool {
        [.openCompleted, .playing, .paused, .playbackCompleted, .playbackAllLoopsCompleted].contains(state)
    }

    /// play.
    public func play() throws(AgoraError) {
        guard isOpen else { throw .invalidState }
        playback.send(.play)
    }

    /// pause.
    public func pause() throws(AgoraError) {
        guard state == .playing else { throw .invalidState }
        playback.send(.pause)
    }

    /// resume.
    public func resume() throws(AgoraError) {
        guard state == .paused else { throw .invalidState }
        playback.send(.resume)
    }

    /// stop: STOPPED; the source is closed.
    public func stop() {
        playoutFeed.clear()
        playback.send(.stop)
    }

    /// seek to `ms`.
    public func seek(toMs ms: Int64) throws(AgoraError) {
        guard ms >= 0 else { throw .invalidArgument }
        guard isOpen else { throw .invalidState }
        playoutFeed.clear()
        playback.send(.seek(ms))
    }

    /// setLoopCount: plays `count` + 1 times, -1 forever.
    public func setLoopCount(_ count: Int) throws(AgoraError) {
        guard count >= -1 else { throw .invalidArgument }
        playback.settings.withLock { $0.loops = count }
    }

    /// getDuration (ms; 0 for a live source).
    public func duration() throws(AgoraError) -> Int64 {
        guard isOpen else { throw .invalidState }
        return playback.snapshot.withLock { $0.durationMs }
    }

    /// getPlayPosition (ms).
    public func position() throws(AgoraError) -> Int64 {
        guard isOpen else { throw .invalidState }
        return playback.snapshot.withLock { $0.positionMs }
    }

    /// getState: MEDIA_PLAYER_STATE.
    public var currentState: Int32 { state.rawValue }

    /// The streams of the open source (getStreamCount / getStreamInfo).
    public func streams() throws(AgoraError) -> [MediaStreamInfo] {
        guard isOpen else { throw .invalidState }
        return playback.snapshot.withLock { $0.streams }
    }

    /// selectAudioTrack: audio stream `index` from now on.
    public func selectAudioTrack(_ index: Int) throws(AgoraError) {
        let streams = try streams()
        guard streams.indices.contains(index), streams[index].type == 2 else { throw .invalidArgument }
        playback.send(.selectAudioTrack(index))
    }

    /// setPlaybackSpeed: 30...400 percent.
    public func setPlaybackSpeed(_ speed: Int) throws(AgoraError) {
        guard (30...400).contains(speed) else { throw .invalidArgument }
        playback.settings.withLock { $0.speed = speed }
    }

    /// adjustPlayoutVolume, 0...400.
    public func setPlayoutVolume(_ v: Int) throws(AgoraError) {
        guard (0...400).contains(v) else { throw .invalidArgument }
        settings.withLock { $0.playoutVolume = v }
    }

    /// adjustPublishSignalVolume, 0...400.
    public func setPublishVolume(_ v: Int) throws(AgoraError) {
        guard (0...400).contains(v) else { throw .invalidArgument }
        settings.withLock { $0.publishVolume = v }
    }

    public var playoutVolume: Int { settings.withLock { $0.playoutVolume } }
    public var publishVolume: Int { settings.withLock { $0.publishVolume } }

    /// mute: audio neither played nor published.
    public func setMuted(_ muted: Bool) {
        settings.withLock { $0.muted = muted }
        if muted { playoutFeed.clear() }
    }

    public var isMuted: Bool { settings.withLock { $0.muted } }

    /// setView (nil: unbind).
    public func setView(_ canvas: VideoCanvas?) {
        settings.withLock { $0.canvas = canvas }
    }

    /// setRenderMode: 1 HIDDEN, 2 FIT, 4 FILL (3 ADAPTIVE acts as HIDDEN).
    public func setRenderMode(_ mode: Int) throws(AgoraError) {
        guard [1, 2, 3, 4].contains(mode) else { throw .invalidArgument }
        settings.withLock { $0.canvas?.renderMode = mode }
    }

    /// registerPlayerSourceObserver.
    public func setObserver(_ observer: MediaPlayerObserver?) {
        settings.withLock { $0.observer = observer ?? MediaPlayerObserver() }
    }

    /// registerAudioFrameObserver: 10 ms at 48 kHz stereo on the player's thread (nil: off).
    public func setAudioObserver(_ observer: ((AudioFrameView) -> Void)?) {
        settings.withLock { $0.audioObserver = observer }
    }

    /// registerVideoFrameObserver: each picture shown, on the player's thread (nil: off).
    public func setVideoObserver(_ observer: ((VideoFrameView) -> Void)?) {
        settings.withLock { $0.videoObserver = observer }
    }
}

/// The player a playback's outputs reach (set once the player exists).
private final class WeakPlayer: @unchecked Sendable {
    weak var player: MediaPlayer?
}

/// The engine's players, music and effects, and recorders.
struct MediaState {
    var players: [Int32: MediaPlayer] = [:]
    var nextPlayerId: Int32 = 1
    var mixing: AudioMixing? = nil
    var lastMixingStart: Instant? = nil
    var mixingPlayoutVolume = 100
    var mixingPublishVolume = 100
    /// setAudioMixingPitch (semitones) and setAudioMixingPlaybackSpeed (percent), kept for later music.
    var mixingPitch = 0
    var mixingSpeed = 100
    var effects = EffectState()
    var recorders: [Int32: MediaRecorder] = [:]
    var nextRecorderId: Int32 = 1
}

extension RtcEngine {
    /// createMediaPlayer. Returns the player (its id 1 and up).
    public func createMediaPlayer() throws(AgoraError) -> MediaPlayer {
        guard owner == nil else { throw .refused }
        let id = media.withLock { m -> Int32? in
            guard m.players.count < Self.maxMediaPlayers else { return nil }
            while m.players[m.nextPlayerId] != nil || m.nextPlayerId <= 0 || m.nextPlayerId > 0x0FFF_FFFF {
                m.nextPlayerId = m.nextPlayerId > 0x0FFF_FFFF ? 1 : m.nextPlayerId + 1
            }
            defer { m.nextPlayerId += 1 }
            return m.nextPlayerId
        }
        guard let id else {
            ErrorDetail.set("an engine has at most \(Self.maxMediaPlayers) media players")
            throw .refused
        }
        let player = try MediaPlayer(id: id, engine: self)
        tracks.withLock { t in
            t.audio[player.trackId] = TrackState.AudioTrack(type: 1)
            t.video[player.trackId] = false
        }
        media.withLock { $0.players[id] = player }
        player.playoutFeed.playerId.withLock { $0 = id }
        audio.feeds.withLock { $0.attach(player, send: nil, playout: player.playoutFeed) }
        device.refresh()
        log.log(.info, "api createMediaPlayer -> \(id)")
        return player
    }

    /// Players one engine may hold (AGORAISH_MAX_MEDIA_PLAYERS).
    static let maxMediaPlayers = 16

    /// The player with `id`; `.invalidArgument` when there is none.
    public func mediaPlayer(_ id: Int32) throws(AgoraError) -> MediaPlayer {
        guard let p = media.withLock({ $0.players[id] }) else { throw .invalidArgument }
        return p
    }

    /// destroyMediaPlayer: stops it and ends its thread; connections publishing it publish nothing in its place.
    public func destroyMediaPlayer(_ id: Int32) throws(AgoraError) {
        guard let player = media.withLock({ $0.players.removeValue(forKey: id) }) else { throw .invalidArgument }
        audio.feeds.withLock { $0.detach(player) }
        player.setObserver(nil)
        player.playback.shutdown(wait: true)
        try? destroyCustomAudioTrack(player.trackId)
        try? destroyCustomVideoTrack(player.trackId)
        log.log(.info, "api destroyMediaPlayer \(id)")
    }

    /// ChannelMediaOptions' media player fields, as the custom track fields they stand for.
    func translatePlayerOptions(_ o: ChannelMediaOptions) throws(AgoraError) -> ChannelMediaOptions {
        var o = o
        guard o.publishMediaPlayerAudioTrack != nil || o.publishMediaPlayerVideoTrack != nil || o.publishCameraTrack == true
        else { return o }
        let currentAudio = tracks.withLock { $0.publishedAudio }
        let currentVideo = tracks.withLock { $0.publishedVideo }
        func playerTrack() throws(AgoraError) -> Int32 {
            guard let id = o.publishMediaPlayerId, root.media.withLock({ $0.players[id] }) != nil else {
                ErrorDetail.set("publish_media_player_id \(o.publishMediaPlayerId ?? 0) is no media player")
                throw .invalidArgument
            }
            return MediaPlayer.trackBase + id
        }
        if let a = o.publishMediaPlayerAudioTrack {
            if a {
                o.publishCustomAudioTrack = true
                o.publishCustomAudioTrackId = try playerTrack()
            } else if let c = currentAudio, c >= MediaPlayer.trackBase {
                o.publishCustomAudioTrack = false
            }
        }
        if o.publishCameraTrack == true, o.publishMediaPlayerVideoTrack != false,
           let c = currentVideo, c >= MediaPlayer.trackBase {
            ErrorDetail.set("the connection publishes media player \(c - MediaPlayer.trackBase)'s video: one video track per connection")
            throw .invalidArgument
        }
        if let v = o.publishMediaPlayerVideoTrack {
            if v {
                if o.publishCustomVideoTrack == true || o.publishEncodedVideoTrack == true {
                    ErrorDetail.set("a connection publishes one video track")
                    throw .invalidArgument
                }
                o.publishCustomVideoTrack = true
                o.customVideoTrackId = try playerTrack()
            } else if let c = currentVideo, c >= MediaPlayer.trackBase {
                o.publishCustomVideoTrack = false
            }
        }
        return o
    }

    /// The joinChannelEx connection in `channel`, if any.
    func connection(forChannel channel: String) -> RtcEngine? {
        connections.withLock { $0.first { $0.key.channel == channel }?.value }
    }

    // MARK: - Media recorders

    /// Recorders one engine may hold (AGORAISH_MAX_MEDIA_RECORDERS).
    static let maxMediaRecorders = 8

    /// createMediaRecorder: a recorder of `uid` (0: the local user) in `channel`.
    /// `type` RECORDER_STREAM_TYPE: 0 RTC; 1 PREVIEW is `.notSupported`.
    public func createMediaRecorder(channel: String, uid: UInt32, type: Int32) throws(AgoraError) -> MediaRecorder {
        guard owner == nil else { throw .refused }
        guard type == 0 || type == 1 else { throw .invalidArgument }
        guard type == 0 else { throw .notSupported }
        guard TokenVerifier.isValidChannelName(channel) else {
            ErrorDetail.set("channel_id is not a valid channel name")
            throw .invalidArgument
        }
        let recorder = media.withLock { m -> MediaRecorder? in
            guard m.recorders.count < Self.maxMediaRecorders else { return nil }
            while m.recorders[m.nextRecorderId] != nil || m.nextRecorderId <= 0 {
                m.nextRecorderId = m.nextRecorderId &+ 1
            }
            let r = MediaRecorder(id: m.nextRecorderId, channel: channel, uid: uid, engine: self)
            m.recorders[r.id] = r
            m.nextRecorderId = m.nextRecorderId &+ 1
            return r
        }
        guard let recorder else {
            ErrorDetail.set("an engine has at most \(Self.maxMediaRecorders) media recorders")
            throw .refused
        }
        log.log(.info, "api createMediaRecorder \(channel) uid \(uid) -> \(recorder.id)")
        return recorder
    }

    /// The recorder with `id`; `.invalidArgument` when there is none.
    public func mediaRecorder(_ id: Int32) throws(AgoraError) -> MediaRecorder {
        guard let r = media.withLock({ $0.recorders[id] }) else { throw .invalidArgument }
        return r
    }

    /// destroyMediaRecorder: stops it first (reporting STOP).
    public func destroyMediaRecorder(_ id: Int32) throws(AgoraError) {
        guard let r = media.withLock({ $0.recorders.removeValue(forKey: id) }) else { throw .invalidArgument }
        r.stop(reason: 0, report: true)
        log.log(.info, "api destroyMediaRecorder \(id)")
    }

    /// Ends every player, the music, the effects and the recorders (the engine is being released).
    func shutdownMedia(wait: Bool) {
        let (players, mixing, effects, recorders) = media.withLock { m in
            defer {
                m.players = [:]
                m.mixing = nil
                m.effects.playing = [:]
                m.recorders = [:]
            }
            return (Array(m.players.values), m.mixing, Array(m.effects.playing.values), Array(m.recorders.values))
        }
        for p in players { p.playback.shutdown(wait: wait) }
        mixing?.playback.shutdown(wait: wait)
        for e in effects { e.playback.shutdown(wait: wait) }
        for r in recorders { r.stop(reason: 0, report: false) }
    }
}
