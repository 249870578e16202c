import AgoraishIO
import AgoraishMedia
import AgoraishSession
import AgoraishWire

/// One channel membership of an engine (Agora's RtcConnection): the channel
/// and the local uid the host joined it with. The host names a connection
/// by what it passed to joinChannelEx, also when `uid` was 0 and the server
/// chose one.
public struct ConnectionKey: Hashable, Sendable {
    /// The channel name.
    public var channel: String
    /// The local uid as given at the join (0: the server picked one).
    public var uid: UInt32

    /// A connection to `channel` as `uid`.
    public init(channel: String, uid: UInt32) {
        self.channel = channel
        self.uid = uid
    }
}

/// What a connection publishes and receives (Agora 4.x ChannelMediaOptions).
/// Every field is optional: nil leaves the connection's current choice as it
/// is. A new connection starts publishing the microphone, subscribing to
/// all audio and video, and recording and playing on the device.
public struct ChannelMediaOptions: Sendable, Equatable {
    /// Publish the microphone.
    public var publishMicrophoneTrack: Bool?
    /// Publish the camera (or external video source). Only the engine's own
    /// connection has the camera: true for a joinChannelEx connection is `.invalidArgument`.
    public var publishCameraTrack: Bool?
    /// Publish the custom audio track `publishCustomAudioTrackId` instead of the microphone.
    public var publishCustomAudioTrack: Bool?
    /// The custom audio track (createCustomAudioTrack) the connection publishes.
    public var publishCustomAudioTrackId: Int32?
    /// Publish the custom video track `customVideoTrackId` (createCustomVideoTrack) instead of the camera.
    public var publishCustomVideoTrack: Bool?
    /// Publish the custom encoded video track `customVideoTrackId` (createCustomEncodedVideoTrack).
    public var publishEncodedVideoTrack: Bool?
    /// The custom (or custom encoded) video track the connection publishes.
    public var customVideoTrackId: Int32?
    /// Receive every remote user's audio unless muted (false: none until unmuted per user).
    public var autoSubscribeAudio: Bool?
    /// Receive every remote user's video unless muted.
    public var autoSubscribeVideo: Bool?
    /// Capture from and play on the audio device.
    public var enableAudioRecordingOrPlayout: Bool?
    /// CLIENT_ROLE_TYPE: 1 broadcaster, 2 audience.
    public var clientRoleType: Int32?
    /// CHANNEL_PROFILE_TYPE: 0 communication, 1 live broadcasting; before joining only.
    public var channelProfile: Int32?
    /// A token: for a join, used when the join's own token is empty; for an
    /// update, renews the connection's token.
    public var token: String?
    /// Publish the audio of media player `publishMediaPlayerId` (it replaces the microphone or custom track).
    public var publishMediaPlayerAudioTrack: Bool?
    /// Publish the pictures of media player `publishMediaPlayerId` as the connection's video track.
    public var publishMediaPlayerVideoTrack: Bool?
    /// The media player (createMediaPlayer) whose tracks are published.
    public var publishMediaPlayerId: Int32?

    /// Options with every field unset.
    public init() {}
}

/// The engine's custom audio tracks (createCustomAudioTrack).
struct TrackState {
    struct AudioTrack {
        /// AUDIO_TRACK_TYPE: 0 mixable, 1 direct.
        var type: Int32
        /// adjustCustomAudioPublishVolume, 0...100.
        var publishVolume = 100
        /// enableCustomAudioTrackProcessing (AudioTrackConfig.enableAudioProcessing); mixable tracks only.
        var processing = false

        /// How the audio path treats what is pushed into the track.
        var sourceKind: AudioPipeline.SourceKind { type == 1 ? .direct : .mixable(processing: processing) }
    }
    var nextAudioId: Int32 = 1
    var audio: [Int32: AudioTrack] = [:]
    /// The custom audio track a connection publishes (on the connection itself).
    var publishedAudio: Int32? = nil
    /// The custom video tracks: true for an encoded one (createCustomEncodedVideoTrack).
    var video: [Int32: Bool] = [:]
    var nextVideoId: Int32 = 1
    /// The custom video track a connection publishes (on the connection itself), and
    /// the video switches it had before (restored when it stops).
    var publishedVideo: Int32? = nil
    var videoBefore: (enabled: Bool, external: Bool)? = nil
    /// registerVideoEncodedFrameObserver (on the engine): given to every connection.
    var encodedObserver: EncodedVideoFrameObserver? = nil
}

/// Several channels per engine (Agora's IRtcEngineEx): joinChannelEx,
/// connection media options, custom audio tracks.
///
/// A connection is an `RtcEngine` of its own kind: it shares its engine's
/// event thread (its events arrive there, on its own sink), log and audio
/// device (capture goes to every connection that publishes the microphone;
/// the remote audio of all connections is mixed for playout), and has its
/// own signaling session, media transport, jitter buffers, encoder and
/// encryption. Every per-channel method of `RtcEngine` called on a
/// connection acts on that connection (the `...Ex` twins).
extension RtcEngine {
    /// Whether this is a connection of an engine rather than an engine.
    public var isConnection: Bool { owner != nil }

    /// The engine that owns the devices and the custom tracks.
    var root: RtcEngine { owner ?? self }

    /// joinChannel(token, channelId, uid, options) (4.x): applies `options`,
    /// then joins as `joinChannel(token:channel:info:uid:)` does.
    public func joinChannel(token: String, channel: String, uid: UInt32, options: ChannelMediaOptions) throws(AgoraError) {
        guard !link.read({ $0.inChannel }) else { throw .joinChannelRejected }
        try applyMediaOptions(options, joining: true)
        let t = token.isEmpty ? (options.token ?? "") : token
        try joinChannel(token: t, channel: channel, info: "", uid: uid)
    }

    /// updateChannelMediaOptions: changes what this connection publishes and
    /// receives, in or out of a channel.
    public func updateChannelMediaOptions(_ options: ChannelMediaOptions) throws(AgoraError) {
        try applyMediaOptions(options, joining: false)
        log.log(.info, "api updateChannelMediaOptions\(isConnection ? " (connection)" : "")")
    }

    /// joinChannelEx: joins one more channel (or the same channel with another
    /// uid) as the connection `connection`, whose events go to `eventSink` on
    /// the engine's event thread.
    ///
    /// - Throws: `.joinChannelRejected` when this engine already has the
    ///   connection (or is itself in that channel with that uid);
    ///   `.invalidChannelName`, `.invalidArgument` as joinChannel does;
    ///   `.failed` when its threads cannot start; `.refused` on a connection
    ///   or when `maxConnections` exist.
    public func joinChannelEx(token: String, connection: ConnectionKey, options: ChannelMediaOptions,
                              eventSink: @escaping @Sendable (EngineEvent) -> Void) throws(AgoraError) {
        guard owner == nil, !isReleased else { throw .refused }
        guard TokenVerifier.isValidChannelName(connection.channel) else { throw .invalidChannelName }
        try checkServerURL()
        if isMainConnection(connection) { throw .joinChannelRejected }
        // The connection ends once its leave (leaveChannelEx) has been reported.
        let ending = Locked<RtcEngine?>(nil)
        let sink: @Sendable (EngineEvent) -> Void = { event in
            eventSink(event)
            if case .channel(.leaveChannel) = event, let child = ending.withLock({ c in defer { c = nil }; return c }) {
                child.endConnection()
            }
        }
        let child = try makeConnection(name: "\(serial).\(connectionSerials.next())", ending: ending, eventSink: sink)
        let refusal = connections.withLock { c -> AgoraError? in
            // release sets the flag before it empties the table: a connection added
            // after that would outlive its engine.
            guard !isReleased else { return .refused }
            guard c[connection] == nil else { return .joinChannelRejected }
            guard c.count < Self.maxConnections else { return .refused }
            c[connection] = child
            return nil
        }
        if let refusal {
            child.releaseConnection(wait: false)
            if refusal == .refused && !isReleased {
                ErrorDetail.set("an engine has at most \(Self.maxConnections) connections besides its own")
            }
            throw refusal
        }
        child.video.settings.withLock { $0.encodedObserver = tracks.withLock { $0.encodedObserver } }
        do {
            try child.applyMediaOptions(options, joining: true)
            let t = token.isEmpty ? (options.token ?? "") : token
            try child.joinChannel(token: t, channel: connection.channel, info: "", uid: connection.uid)
        } catch {
            connections.withLock { $0[connection] = nil }
            child.releaseConnection(wait: false)
            throw error
        }
        log.log(.info, "api joinChannelEx channel \(connection.channel) uid \(connection.uid)")
    }

    /// leaveChannelEx: leaves the connection's channel; its onLeaveChannel
    /// arrives on its own sink, then the connection ends. Leaving the
    /// engine's own channel this way is leaveChannel.
    ///
    /// - Throws: `.leaveChannelRejected` for an unknown connection.
    public func leaveChannelEx(_ connection: ConnectionKey) throws(AgoraError) {
        if isMainConnection(connection) { return try leaveChannel() }
        // Moved from one table to the other at once: a release meanwhile finds it in one of them.
        let child = connections.withLock { c -> RtcEngine? in
            guard let child = c.removeValue(forKey: connection) else { return nil }
            leaving.withLock { $0[ObjectIdentifier(child)] = child }
            return child
        }
        guard let child else { throw .leaveChannelRejected }
        do {
            child.ending?.withLock { $0 = child }
            try child.leaveChannel()
        } catch {
            child.endConnection()  // never joined: nothing to report
        }
        log.log(.info, "api leaveChannelEx channel \(connection.channel) uid \(connection.uid)")
    }

    /// The connection `key` names: one joined with joinChannelEx, or this
    /// engine itself when it is in (or joining) that channel with that uid.
    public func connection(_ key: ConnectionKey) -> RtcEngine? {
        if let c = connections.withLock({ $0[key] }) { return c }
        return isMainConnection(key) ? self : nil
    }

    /// The connections joined with joinChannelEx.
    public var connectionKeys: [ConnectionKey] { connections.withLock { Array($0.keys) } }

    private func isMainConnection(_ key: ConnectionKey) -> Bool {
        link.read { s in
            guard let channel = s.channelName else { return false }
            return channel == key.channel && (s.joinUid == key.uid || (key.uid != 0 && s.localUid == key.uid))
        }
    }

    /// Ends a connection left with leaveChannelEx: its leave goes out and its
    /// events are still delivered; its threads end on their own.
    func endConnection() {
        ending?.withLock { $0 = nil }
        owner?.leaving.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(self)) }
        device.detach(audio)
        link.shutdown(wait: false)
        video.shutdown(wait: false)
        audio.stopRecording()
    }

    // MARK: - Private connections of pre-call tests

    /// A hidden connection for an echo test or last-mile probe started in a
    /// channel: it shares the device, its last-mile reports go to this
    /// engine's sink, its other events are not reported, and a probe's
    /// connection ends with the probe's result.
    func privateTestConnection() throws(AgoraError) -> RtcEngine {
        guard owner == nil, !isReleased, privateTest.withLock({ $0 == nil }) else { throw .refused }
        let sink: @Sendable (EngineEvent) -> Void = { [weak self] event in
            guard let self, case .network(let e) = event else { return }
            emit(event)
            if case .lastmileProbeResult = e { endPrivateTest() }
        }
        let test = try makeConnection(name: "\(serial).t", eventSink: sink)
        let added = privateTest.withLock { p -> Bool in
            guard p == nil, !isReleased else { return false }
            p = test
            return true
        }
        guard added else {
            test.releaseConnection(wait: false)
            throw .refused
        }
        return test
    }

    /// A new connection of this engine on its current server, not yet in any table.
    private func makeConnection(name: String, ending: Locked<RtcEngine?>? = nil,
                                eventSink: @escaping @Sendable (EngineEvent) -> Void) throws(AgoraError) -> RtcEngine {
        var configuration = self.configuration
        configuration.serverURL = serverURL
        return try RtcEngine(configuration: configuration, serial: serial, name: name, log: log, events: events,
                             owner: self, ending: ending, eventSink: eventSink)
    }

    /// Ends the private test connection, if any.
    func endPrivateTest() {
        guard let test = privateTest.withLock({ p -> RtcEngine? in defer { p = nil }; return p }) else { return }
        test.endConnection()
    }

    // MARK: - Options

    private func applyMediaOptions(_ options: ChannelMediaOptions, joining: Bool) throws(AgoraError) {
        // Everything is checked before anything changes.
        let o = try translatePlayerOptions(options)
        if let r = o.clientRoleType, r != 1 && r != 2 { throw .invalidArgument }
        if let p = o.channelProfile, p != 0 && p != 1 { throw .invalidArgument }
        let current = tracks.withLock { $0.publishedAudio }
        var track = current
        if o.publishCustomAudioTrack == false { track = nil }
        if o.publishCustomAudioTrack == true || (o.publishCustomAudioTrackId != nil && current != nil) {
            guard let id = o.publishCustomAudioTrackId ?? current else {
                ErrorDetail.set("publish_custom_audio_track needs publish_custom_audio_track_id")
                throw .invalidArgument
            }
            track = id
        }
        if let id = track, id != current, root.tracks.withLock({ $0.audio[id] }) == nil {
            ErrorDetail.set("no custom audio track \(id)")
            throw .invalidArgument
        }
        let videoTrack = try chooseVideoTrack(o)
        if let p = o.channelProfile { try setChannelProfile(p) }
        if let r = o.clientRoleType { try setClientRole(r) }
        if let a = o.autoSubscribeAudio { try muteAllRemoteAudioStreams(!a) }
        if let v = o.autoSubscribeVideo { try muteAllRemoteVideoStreams(!v) }
        // publish_camera_track 0 beside a custom (or media player) video track says "not the
        // camera", not "send no video".
        if let c = o.publishCameraTrack, c || videoTrack == nil { muteLocalVideoStream(!c) }
        if let m = o.publishMicrophoneTrack { audio.settings.withLock { $0.publishMicrophone = m } }
        if let d = o.enableAudioRecordingOrPlayout { audio.settings.withLock { $0.deviceEnabled = d } }
        if track != current {
            tracks.withLock { $0.publishedAudio = track }
            // A custom track replaces the microphone on this connection; its
            // format follows the frames pushed (48 kHz mono until the first).
            let live = link.read { $0.profile } == 1
            let settings = state.withLock { $0.audioProfile }.settings(liveBroadcasting: live)
            try audio.setSource(enabled: track != nil, sampleRate: 48000, channels: 1, profile: settings)
            let kind = track.flatMap { id in root.tracks.withLock { $0.audio[id]?.sourceKind } } ?? .mixable(processing: false)
            audio.settings.withLock { $0.sourceKind = kind }
        }
        afterLocalChange()
        if videoTrack != tracks.withLock({ $0.publishedVideo }) { publishVideoTrack(videoTrack) }
        if !joining, let t = o.token, !t.isEmpty { try renewToken(t) }
    }

    /// The video track `o` leaves this connection publishing (nil: the camera
    /// or external source as before). Throws `.invalidArgument` for an unknown
    /// track, a track of the other kind, or two video sources at once.
    private func chooseVideoTrack(_ o: ChannelMediaOptions) throws(AgoraError) -> Int32? {
        let current = tracks.withLock { $0.publishedVideo }
        let kinds = root.tracks.withLock { $0.video }
        let currentEncoded = current.flatMap { kinds[$0] }
        if o.publishCustomVideoTrack == true && o.publishEncodedVideoTrack == true ||
            o.publishCameraTrack == true && (o.publishCustomVideoTrack == true || o.publishEncodedVideoTrack == true) {
            ErrorDetail.set("a connection publishes one video track")
            throw .invalidArgument
        }
        var chosen = current
        var encoded: Bool? = nil
        if o.publishCustomVideoTrack == true { encoded = false }
        if o.publishEncodedVideoTrack == true { encoded = true }
        if let encoded {
            guard let id = o.customVideoTrackId ?? current, kinds[id] == encoded else {
                ErrorDetail.set("no custom \(encoded ? "encoded " : "")video track \(o.customVideoTrackId ?? current ?? 0)")
                throw .invalidArgument
            }
            chosen = id
        } else if o.publishCameraTrack == true {
            // Another connection publishes the engine's camera as a track of its own.
            chosen = isConnection ? Self.cameraTrack : nil
        } else if (o.publishCustomVideoTrack == false && currentEncoded == false)
                    || (o.publishEncodedVideoTrack == false && currentEncoded == true)
                    || (o.publishCameraTrack == false && current == Self.cameraTrack) {
            chosen = nil
        } else if let id = o.customVideoTrackId, let kind = currentEncoded {
            guard kinds[id] == kind else {
                ErrorDetail.set("no custom \(kind ? "encoded " : "")video track \(id)")
                throw .invalidArgument
            }
            chosen = id
        }
        return chosen
    }

    /// Starts publishing the custom video track `id` (video on, pictures from
    /// the host), or stops (nil: the video switches as they were before).
    private func publishVideoTrack(_ id: Int32?) {
        let before = tracks.withLock { t -> (enabled: Bool, external: Bool)? in
            defer { t.publishedVideo = id }
            return t.videoBefore
        }
        if let id {
            if before == nil {
                let now = video.settings.withLock { ($0.enabled, $0.externalSource) }
                tracks.withLock { $0.videoBefore = now }
            }
            setExternalVideoSource(enabled: true)
            // Choosing a track to publish is asking to send it.
            muteLocalVideoStream(false)
            setVideoEnabled(true)
            log.log(.info, id == Self.cameraTrack ? "publishing the engine's camera" : "publishing custom video track \(id)")
        } else if let before {
            tracks.withLock { $0.videoBefore = nil }
            // A connection has nothing else to send: it stays muted, receiving as its engine says.
            if isConnection { muteLocalVideoStream(true) }
            setExternalVideoSource(enabled: before.external)
            setVideoEnabled(isConnection ? owner!.video.settings.withLock { $0.enabled } : before.enabled)
        }
    }

    // MARK: - Custom audio tracks

    /// createCustomAudioTrack: a track the host pushes PCM into
    /// (pushExternalAudioFrame with its id) and connections publish
    /// (ChannelMediaOptions.publishCustomAudioTrack). `type` is AUDIO_TRACK_TYPE
    /// (0 mixable, 1 direct): each connection publishes one audio track, so
    /// both are sent as pushed. Returns the track id (1 and up).
    public func createCustomAudioTrack(type: Int32) throws(AgoraError) -> Int32 {
        guard owner == nil else { throw .refused }
        guard type == 0 || type == 1 else { throw .invalidArgument }
        let id = tracks.withLock { t -> Int32? in
            guard t.audio.keys.filter({ $0 < MediaPlayer.trackBase }).count < Self.maxCustomTracks else { return nil }
            while t.audio[t.nextAudioId] != nil || t.nextAudioId <= 0 { t.nextAudioId = t.nextAudioId &+ 1 }
            let id = t.nextAudioId
            t.nextAudioId = t.nextAudioId &+ 1
            t.audio[id] = TrackState.AudioTrack(type: type)
            return id
        }
        guard let id else {
            ErrorDetail.set("an engine has at most \(Self.maxCustomTracks) custom audio tracks")
            throw .refused
        }
        log.log(.info, "api createCustomAudioTrack type \(type) -> \(id)")
        return id
    }

    /// Connections one engine may hold besides its own (AGORAISH_MAX_CONNECTIONS).
    static let maxConnections = 16

    /// Custom tracks of each kind one engine may hold.
    static let maxCustomTracks = 32

    /// destroyCustomAudioTrack: connections that published it publish nothing
    /// until their options choose another track or the microphone.
    public func destroyCustomAudioTrack(_ id: Int32) throws(AgoraError) {
        guard owner == nil else { throw .refused }
        guard tracks.withLock({ $0.audio.removeValue(forKey: id) }) != nil else { throw .invalidArgument }
        for c in [self] + connections.withLock({ Array($0.values) }) where c.tracks.withLock({ $0.publishedAudio }) == id {
            c.tracks.withLock { $0.publishedAudio = nil }
            c.audio.settings.withLock { $0.publishMicrophone = false }
            try? c.audio.setSource(enabled: false, sampleRate: 48000, channels: 1,
                                   profile: c.audio.settings.withLock { $0.profile })
            c.afterLocalChange()
        }
        log.log(.info, "api destroyCustomAudioTrack \(id)")
    }

    /// adjustCustomAudioPublishVolume: 0...100 of what is pushed.
    public func adjustCustomAudioPublishVolume(_ id: Int32, volume: Int) throws(AgoraError) {
        guard owner == nil else { throw .refused }
        guard (0...100).contains(volume) else { throw .invalidArgument }
        let found = tracks.withLock { t -> Bool in
            guard t.audio[id] != nil else { return false }
            t.audio[id]!.publishVolume = volume
            return true
        }
        guard found else { throw .invalidArgument }
        log.log(.info, "api adjustCustomAudioPublishVolume \(id) \(volume)")
    }

    /// pushExternalAudioFrame(frame, trackId): `samplesPerChannel` interleaved
    /// 16-bit frames at `sampleRate` (8, 16, 32, 44.1 or 48 kHz) with 1 or 2
    /// channels, for every connection that publishes the track. A connection
    /// sends it in real time from its own queue. With no publisher the audio
    /// is dropped.
    ///
    /// - Throws: `.invalidArgument` for an unknown track, a bad format or a
    ///   NULL pointer with samples; `.refused` inside an audio observer callback.
    public func pushCustomAudioFrame(track id: Int32, samples: UnsafePointer<Int16>?, samplesPerChannel: Int,
                                     sampleRate: Int, channels: Int) throws(AgoraError) {
        guard owner == nil else { throw .refused }
        if AudioPipeline.isInCallback { throw .refused }
        guard let t = tracks.withLock({ $0.audio[id] }) else { throw .invalidArgument }
        guard AudioTapParameters.sampleRates.contains(sampleRate), channels == 1 || channels == 2,
              samplesPerChannel >= 0, samplesPerChannel <= sampleRate, samples != nil || samplesPerChannel == 0 else {
            throw .invalidArgument
        }
        let publishers = ([self] + connections.withLock { Array($0.values) })
            .filter { $0.tracks.withLock { $0.publishedAudio } == id }
        guard !publishers.isEmpty, samplesPerChannel > 0, let samples else { return }
        // The host's samples as they are, or scaled once for every publisher.
        var scaled: [Int16] = []
        if t.publishVolume != 100 {
            scaled = Array(UnsafeBufferPointer(start: samples, count: samplesPerChannel * channels))
            PCM.applyGain(&scaled, percent: t.publishVolume)
        }
        let kind = t.sourceKind
        for c in publishers {
            let source = c.audio.settings.withLock { s -> (rate: Int, channels: Int)? in
                if s.sourceKind != kind { s.sourceKind = kind }
                return s.source
            }
            if source?.rate != sampleRate || source?.channels != channels {
                try c.audio.setSource(enabled: true, sampleRate: sampleRate, channels: channels,
                                      profile: c.audio.settings.withLock { $0.profile })
                c.device.refresh()
            }
            if scaled.isEmpty {
                _ = try c.audio.push(samples, samplesPerChannel: samplesPerChannel, channels: channels)
            } else {
                _ = try scaled.withUnsafeBufferPointer { p throws(AgoraError) in
                    try c.audio.push(p.baseAddress, samplesPerChannel: samplesPerChannel, channels: channels)
                }
            }
        }
    }

    // MARK: - Custom video tracks

    /// createCustomVideoTrack (`encoded` false) or createCustomEncodedVideoTrack:
    /// a track the host pushes pictures (pushExternalVideoFrame with its id) or
    /// encoded VP8/VP9 frames (pushEncodedVideoFrame) into, which connections
    /// publish (ChannelMediaOptions.publishCustomVideoTrack /
    /// publishEncodedVideoTrack with customVideoTrackId). Returns the id (1 and up).
    public func createCustomVideoTrack(encoded: Bool) throws(AgoraError) -> Int32 {
        guard owner == nil else { throw .refused }
        let id = tracks.withLock { t -> Int32? in
            guard t.video.keys.filter({ $0 < MediaPlayer.trackBase }).count < Self.maxCustomTracks else { return nil }
            while t.video[t.nextVideoId] != nil || t.nextVideoId <= 0 { t.nextVideoId = t.nextVideoId &+ 1 }
            let id = t.nextVideoId
            t.nextVideoId = t.nextVideoId &+ 1
            t.video[id] = encoded
            return id
        }
        guard let id else {
            ErrorDetail.set("an engine has at most \(Self.maxCustomTracks) custom video tracks")
            throw .refused
        }
        log.log(.info, "api createCustom\(encoded ? "Encoded" : "")VideoTrack -> \(id)")
        return id
    }

    /// destroyCustomVideoTrack / destroyCustomEncodedVideoTrack: connections
    /// publishing it go back to the video they had before.
    public func destroyCustomVideoTrack(_ id: Int32) throws(AgoraError) {
        guard owner == nil else { throw .refused }
        guard tracks.withLock({ $0.video.removeValue(forKey: id) }) != nil else { throw .invalidArgument }
        for c in [self] + connections.withLock({ Array($0.values) }) where c.tracks.withLock({ $0.publishedVideo }) == id {
            c.publishVideoTrack(nil)
        }
        log.log(.info, "api destroyCustomVideoTrack \(id)")
    }

    /// The track id under which a connection other than the engine's own
    /// publishes the engine's camera (publishCameraTrack): custom tracks are 1 and up.
    static let cameraTrack: Int32 = 0

    /// Each local picture of the engine's camera (or external source), for the
    /// other connections that publish the camera (the calling thread: the
    /// camera's, or the host's). The picture is encoded once: when the
    /// engine's own connection sends it, they follow its encoder (returned);
    /// else the first of them encodes it and the others follow that one.
    func forwardCamera(_ picture: I420Frame, timestampMs: Int64, engineSends: Bool) -> [VideoPipeline] {
        let publishers = connections.withLock { Array($0.values) }
            .filter { $0.tracks.withLock { $0.publishedVideo } == Self.cameraTrack && $0.video.isSending }
            .sorted { $0.serial < $1.serial }
        if engineSends { return publishers.map(\.video) }
        guard let lead = publishers.first else { return [] }
        try? lead.video.capture(picture, timestampMs: timestampMs, followers: publishers.dropFirst().map(\.video))
        return []
    }

    /// The connections (this engine's own first) publishing video track `id`.
    private func videoPublishers(_ id: Int32) -> [RtcEngine] {
        ([self] + connections.withLock { Array($0.values) }.sorted { $0.serial < $1.serial })
            .filter { $0.tracks.withLock { $0.publishedVideo } == id }
    }

    /// pushExternalVideoFrame(frame, videoTrackId): one picture for every
    /// connection publishing the custom video track `id`. It is encoded once,
    /// by the first publisher that sends (it converts, fits and encodes it as
    /// `pushExternalVideoFrame` does, at its encoder configuration and its
    /// uplink's rate); the others send those frames. With no publisher the
    /// picture is dropped.
    ///
    /// - Throws: `.invalidArgument` for an unknown or encoded track and what
    ///   pushExternalVideoFrame throws for the picture.
    public func pushExternalVideoFrame(track id: Int32, _ source: PictureSource, rotation: Int = 0,
                                       timestampMs: Int64) throws(AgoraError) {
        guard owner == nil else { throw .refused }
        guard tracks.withLock({ $0.video[id] }) == false else { throw .invalidArgument }
        guard (16...4096).contains(source.width), (16...4096).contains(source.height), source.isComplete,
              [0, 90, 180, 270].contains(rotation) else { throw .invalidArgument }
        let publishers = videoPublishers(id)
        let sending = publishers.filter { $0.video.isSending }
        guard let lead = sending.first ?? publishers.first else { return }
        try lead.pushExternalVideoFrame(source, rotation: rotation, timestampMs: timestampMs,
                                        followers: sending.dropFirst().map(\.video))
    }

    /// Largest encoded frame a push takes (4 MiB).
    public static let maxEncodedFrameBytes = 4 << 20

    /// pushEncodedVideoImage: one frame encoded by the host, sent unchanged
    /// (packetized per RFC 7741 or 9628) by every connection publishing the
    /// encoded track `id`. `info.frameType` KEY_FRAME (3) or DELTA_FRAME (4);
    /// receivers ask for keyframes the host must send on its own schedule.
    /// Returns how many connections sent it.
    ///
    /// - Throws: `.invalidArgument` for an unknown or raw track, an empty or
    ///   over-large frame, a codec other than VP8/VP9 or another frame type.
    @discardableResult
    public func pushEncodedVideoFrame(track id: Int32, _ data: [UInt8], info: EncodedVideoFrameInfo) throws(AgoraError) -> Int {
        guard owner == nil else { throw .refused }
        guard tracks.withLock({ $0.video[id] }) == true else { throw .invalidArgument }
        guard !data.isEmpty, data.count <= Self.maxEncodedFrameBytes, info.frameType == 3 || info.frameType == 4,
              (0...16384).contains(info.width), (0...16384).contains(info.height),
              [0, 90, 180, 270].contains(info.rotation) else { throw .invalidArgument }
        var sent = 0
        for c in videoPublishers(id) where c.video.sendEncoded(data, isKeyframe: info.isKeyframe, width: info.width,
                                                                height: info.height, codec: info.codec,
                                                                timestampMs: info.captureTimeMs) {
            sent += 1
        }
        return sent
    }

    /// registerVideoEncodedFrameObserver: each remote video frame before
    /// decoding, in every connection of the engine (nil: off). Runs on the
    /// receiving connection's video thread; the frame's `uid` names its sender.
    public func registerVideoEncodedFrameObserver(_ observer: EncodedVideoFrameObserver?) throws(AgoraError) {
        guard owner == nil else { throw .refused }
        tracks.withLock { $0.encodedObserver = observer }
        for c in [self] + connections.withLock({ Array($0.values) }) {
            c.video.settings.withLock { $0.encodedObserver = observer }
            if observer == nil { c.video.barrier() }
        }
        log.log(.info, "api registerVideoEncodedFrameObserver \(observer == nil ? "off" : "on")")
    }

    /// The custom audio tracks, by id.
    public var customAudioTracks: [Int32] { root.tracks.withLock { $0.audio.keys.filter { $0 < MediaPlayer.trackBase }.sorted() } }
}

let connectionSerials = SerialCounter()
