import AgoraishIO
import AgoraishMedia
import AgoraishWire
import Synchronization

/// The real-time engine (Agora's IRtcEngine): one per app id and host
/// component, any number per process.
///
/// An engine owns its event thread, on which every `EngineEvent` is handed to
/// the sink given at creation, and its log. Every method is thread-safe and
/// returns quickly. Media, channels and devices are added by the layers that
/// implement them; this type is their common owner.
public final class RtcEngine: Sendable {
    /// The configuration the engine was created with, after defaults.
    public let configuration: EngineConfiguration
    /// This engine's number among the engines created in the process (1-based).
    public let serial: Int

    let events: EventThread
    let log: LogWriter
    /// The engine this is a connection of (joinChannelEx); nil for an engine.
    let owner: RtcEngine?
    /// The engine's other connections (joinChannelEx), by channel and uid.
    let connections = Locked<[ConnectionKey: RtcEngine]>([:])
    /// The private connection of an echo test or last-mile probe started in a channel.
    let privateTest = Locked<RtcEngine?>(nil)
    /// Connections left with leaveChannelEx whose leave is not yet reported.
    let leaving = Locked<[ObjectIdentifier: RtcEngine]>([:])
    /// A connection: set to itself while its leave is under way (the event that reports it ends it).
    let ending: Locked<RtcEngine?>?
    /// The custom audio tracks (createCustomAudioTrack) and what the engine's connections publish.
    let tracks = Locked(TrackState())
    /// Media players, audio mixing and effects, media recorders (the engine's own; connections have none).
    let media = Locked(MediaState())
    let link: ChannelLink
    /// The audio path (sending, receiving, observers, recording).
    let audio: AudioPipeline
    /// The audio device thread (capture, playout, volume reports).
    let device: AudioDeviceModule
    /// An echo test is running: set on start, cleared by the event thread when it ends.
    let echoTest = Locked(false)
    /// The last-mile test or probe running, and a generation that retires its pending steps.
    struct LastmileState {
        var mode: LastmileMode? = nil
        var generation = 0
    }
    let lastmile = Locked(LastmileState())
    /// Reports a pre-call network event on the event thread.
    let networkEvents: @Sendable (NetworkEvent) -> Void
    /// The video path (external source, encoder, render sinks).
    let video: VideoPipeline
    /// Data streams and media metadata.
    let data: DataPipeline
    /// End-to-end encryption and the packet observer, shared by the three paths.
    let protection: PayloadProtection
    /// Engine state not owned by a component.
    private let sink: @Sendable (EngineEvent) -> Void
    private let released = ReleasedFlag()
    let state: Locked<State>

    struct State {
        var serverURL: String
        /// Trust anchors for wss:// ("" = the system store).
        var caFile = ""
        /// ws:// to a host other than loopback (rtc.allow_insecure_signaling; off by default).
        var allowInsecureSignaling = false
        /// The audio profile for the encoder.
        var audioProfile = AudioProfile.default
        /// The encryption in force came from setEncryptionSecret (cleared on leave).
        var encryptionFromSecret = false
        /// The mode setEncryptionMode chose for the secret.
        var legacyMode = EncryptionMode.aes128Xts
    }

    /// Creates an engine and starts its event thread.
    ///
    /// - Parameters:
    ///   - configuration: app id, server, log settings. Validated here.
    ///   - eventSink: receives every event, on the event thread.
    /// - Throws: `.invalidAppId` for a bad app id; `.invalidArgument` for other
    ///   bad fields; `.failed` if the log file cannot be opened or the thread
    ///   cannot start.
    public convenience init(configuration: EngineConfiguration,
                            eventSink: @escaping @Sendable (EngineEvent) -> Void) throws(AgoraError) {
        guard EngineConfiguration.isValidAppId(configuration.appId) else {
            ErrorDetail.set("app_id must be 1 to 128 printable ASCII characters without spaces")
            throw .invalidAppId
        }
        if let url = configuration.serverURL, !url.isEmpty,
           !EngineConfiguration.isValidServerURL(url) {
            ErrorDetail.set("server_url \"\(url.prefix(64))\" is not a ws:// or wss:// URL")
            throw .invalidArgument
        }
        guard let filter = LogFilter.forLevel(configuration.logLevel) else {
            ErrorDetail.set("log_level \(configuration.logLevel) is not a LOG_LEVEL")
            throw .invalidArgument
        }
        guard let sizeKB = LogFileSize.normalize(configuration.logFileSizeKB) else {
            ErrorDetail.set("log_file_size_kb \(configuration.logFileSizeKB) is outside 1..\(LogFileSize.maximumKB)")
            throw .invalidArgument
        }
        guard EngineConfiguration.isValidAreaCode(configuration.areaCode) else {
            ErrorDetail.set("area_code \(configuration.areaCode) is no combination of AREA_CODE bits")
            throw .invalidArgument
        }
        let resolvedURL = configuration.resolvedServerURL()
        guard EngineConfiguration.isValidServerURL(resolvedURL) else {
            ErrorDetail.set("the server URL \"\(resolvedURL.prefix(64))\" (from AGORAISH_SERVER) is not a ws:// or wss:// URL")
            throw .invalidArgument
        }

        let serial = engineSerials.next()
        var effective = configuration
        effective.serverURL = resolvedURL
        effective.logFileSizeKB = sizeKB
        let path: String
        if let file = configuration.logFile, !file.isEmpty {
            path = file
        } else {
            path = defaultLogPath(engineSerial: serial)
            let directory = String(path[..<path.lastIndex(of: "/")!])
            _ = makeDirectories(directory)
            pruneDefaultLogs(in: directory)
        }
        effective.logFile = path
        let log: LogWriter, events: EventThread
        do {
            log = try LogWriter(path: path, filter: filter, maxBytes: sizeKB * 1024,
                                fileCount: LogFileSize.fileCount)
            events = try EventThread(name: "agoraish-ev\(serial)")
        } catch {
            throw .failed
        }
        try self.init(configuration: effective, serial: serial, name: "\(serial)", log: log, events: events,
                      owner: nil, eventSink: eventSink)
        log.log(.info, "engine \(serial) created: version \(Version.string) build \(Version.build), "
            + "app id \(configuration.appId), server \(resolvedURL), area 0x\(String(configuration.areaCode, radix: 16))")
    }

    /// Creates an engine, or a connection of `owner` (joinChannelEx) that
    /// shares its event thread, log and audio device and has a channel
    /// membership, media paths and encryption of its own.
    init(configuration: EngineConfiguration, serial: Int, name: String, log: LogWriter, events: EventThread,
         owner: RtcEngine?, ending: Locked<RtcEngine?>? = nil,
         eventSink: @escaping @Sendable (EngineEvent) -> Void) throws(AgoraError) {
        self.serial = serial
        self.ending = ending
        self.configuration = configuration
        self.owner = owner
        let resolvedURL = configuration.serverURL ?? ""
        self.log = log
        self.events = events
        self.sink = eventSink
        self.state = Locked(State(serverURL: resolvedURL))
        if let owner {
            // A connection follows its engine's transport settings.
            let o = owner.state.withLock { $0 }
            state.withLock {
                $0.caFile = o.caFile
                $0.allowInsecureSignaling = o.allowInsecureSignaling
                $0.audioProfile = o.audioProfile
            }
        }
        let logWriter = log
        let eventThread = events
        let released = self.released
        let dataEvents: @Sendable (DataEvent) -> Void = { event in
            eventThread.post {
                guard !released.value.load(ordering: .acquiring) else { return }
                eventSink(.data(event))
            }
        }
        let protection = PayloadProtection { dataEvents(.encryptionError($0)) }
        self.protection = protection
        let audio = AudioPipeline(protection: protection, voice: owner?.audio.voice ?? VoiceControl()) { event in
            eventThread.post {
                guard !released.value.load(ordering: .acquiring) else { return }
                eventSink(.audio(event))
            }
        }
        self.audio = audio
        networkEvents = { event in
            eventThread.post {
                guard !released.value.load(ordering: .acquiring) else { return }
                eventSink(.network(event))
            }
        }
        device = owner?.device ?? AudioDeviceModule(name: "agoraish-au\(serial)", pipeline: audio,
                                                    log: { logWriter.log(.info, $0) })
        let device = self.device
        do {
            video = try VideoPipeline(name: "agoraish-vid\(name)", protection: protection, owners: { ssrc in audio.owners.withLock { $0[ssrc] } },
                                      elapsed: { audio.elapsedMs() }) { event in
                eventThread.post {
                    guard !released.value.load(ordering: .acquiring) else { return }
                    eventSink(.video(event))
                }
            }
        } catch {
            if owner == nil { events.shutdown(wait: true) }
            throw .failed
        }
        let video = self.video
        let echo = self.echoTest
        let data = DataPipeline(protection: protection, owners: { ssrc in audio.owners.withLock { $0[ssrc] } },
                                rtxStreams: { ssrc in audio.rtxStreams.withLock { $0[ssrc] } },
                                playoutDelay: { uid in audio.playoutDelay(uid: uid) },
                                emit: dataEvents,
                                onEventThread: { work in
                                    eventThread.post {
                                        guard !released.value.load(ordering: .acquiring) else { return }
                                        work()
                                    }
                                })
        self.data = data
        video.pictureSent.withLock { $0 = { [weak data] ts in data?.pictureSent(timestampMs: ts) } }
        do {
            link = try ChannelLink(appId: configuration.appId, areaCode: configuration.areaCode, serverURL: resolvedURL,
                                   name: "agoraish-io\(name)", audio: audio, device: device, video: video, data: data,
                                   log: { logWriter.log(.info, $0) }) { event in
                eventThread.post {
                    guard !released.value.load(ordering: .acquiring) else { return }
                    if case .preCallTestEnded = event { echo.withLock { $0 = false } }
                    eventSink(.channel(event))
                }
            }
        } catch {
            video.shutdown(wait: true)
            if owner == nil { events.shutdown(wait: true) }
            throw .failed
        }
        if let owner {
            link.setCAFile(owner.state.withLock { $0.caFile.isEmpty ? nil : $0.caFile })
            device.attach(audio)
            // A connection never opens the camera; it receives video when its engine
            // enabled video and sends only what a custom track, or its engine's
            // camera (publishCameraTrack), gives it.
            let enabled = owner.video.settings.withLock { $0.enabled }
            video.settings.withLock {
                $0.externalSource = true
                $0.enabled = enabled
                $0.localMuted = true
            }
        } else {
            // The engine's local pictures also go to the connections that publish its camera.
            video.localForward.withLock {
                $0 = { [weak self] frame, ms, sending in self?.forwardCamera(frame, timestampMs: ms, engineSends: sending) ?? [] }
            }
        }
    }


    /// True when called from this engine's event thread (inside one of its callbacks).
    public var isOnEventThread: Bool { events.isCurrent }

    /// True when called from inside a raw audio observer callback (of any engine).
    public var isInAudioCallback: Bool { AudioPipeline.isInCallback }

    /// True when called from this engine's video thread (inside one of its render sinks).
    public var isInOwnRenderSink: Bool { video.loop.inLoop }

    /// Whether `release` has been called.
    public var isReleased: Bool { released.value.load(ordering: .acquiring) }

    /// Releases the engine (Agora's release). After it returns, no new event is
    /// delivered. With `sync`, also waits for a callback in progress and for the
    /// event thread to end. Idempotent.
    ///
    /// - Throws: `.refused` when called on the engine's own event thread.
    public func release(sync: Bool) throws(AgoraError) {
        // From its own event thread or from inside a raw audio callback, waiting would deadlock.
        if events.isCurrent || AudioPipeline.isInCallback || video.loop.inLoop { throw .refused }
        let (exchanged, _) = released.value.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        guard exchanged else { return }
        log.log(.info, "engine \(serial) released (sync \(sync))")
        // From inside another engine's callback, waiting could deadlock (that engine
        // may be releasing this one): the threads are detached and end on their own.
        let wait = sync && !EventThread.isAnyCurrent
        let others = connections.withLock { c -> [RtcEngine] in
            defer { c = [:] }
            // Under the same lock as leaveChannelEx's move between the tables.
            let left = leaving.withLock { l -> [RtcEngine] in
                defer { l = [:] }
                return Array(l.values)
            }
            return Array(c.values) + left
        } + privateTest.withLock { p -> [RtcEngine] in
            defer { p = nil }
            return p.map { [$0] } ?? []
        }
        shutdownMedia(wait: wait)
        for c in others { c.releaseConnection(wait: wait) }
        link.shutdown(wait: wait)
        device.shutdown(wait: wait)
        video.shutdown(wait: wait)
        audio.stopRecording()
        events.shutdown(wait: wait)
    }

    /// Ends a connection of an engine: leaves its channel (others see the
    /// user quit), closes its media and stops its threads. The engine's
    /// event thread and audio device go on.
    func releaseConnection(wait: Bool) {
        let (exchanged, _) = released.value.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        guard exchanged else { return }
        ending?.withLock { $0 = nil }
        device.detach(audio)
        link.shutdown(wait: wait)
        video.shutdown(wait: wait)
        audio.stopRecording()
    }

    /// Queues `event` for the sink on the event thread.
    func emit(_ event: EngineEvent) {
        let sink = self.sink
        events.post { [weak self] in
            guard let self, !self.isReleased else { return }
            sink(event)
        }
    }

    // MARK: - Logging (Agora's setLogFile / setLogFilter / setLogLevel / setLogFileSize)

    /// Sets the log file (setLogFile). Throws `.invalidArgument` if it cannot be opened.
    public func setLogFile(_ path: String) throws(AgoraError) {
        try applyLogFile(path)
        emit(.apiCallExecuted(error: 0, api: "setLogFile", result: path))
    }

    /// Sets the log filter (setLogFilter). Throws `.invalidArgument` for unknown bits.
    public func setLogFilter(_ filter: UInt32) throws(AgoraError) {
        guard LogFilter.isValid(filter) else { throw .invalidArgument }
        log.filter = filter
        log.log(.info, "api setLogFilter 0x\(String(filter, radix: 16))")
        emit(.apiCallExecuted(error: 0, api: "setLogFilter", result: String(filter)))
    }

    /// Sets the log level (4.x setLogLevel). Throws `.invalidArgument` for unknown levels.
    public func setLogLevel(_ level: Int32) throws(AgoraError) {
        guard let filter = LogFilter.forLevel(level) else { throw .invalidArgument }
        log.filter = filter
        log.log(.info, "api setLogLevel \(level)")
        emit(.apiCallExecuted(error: 0, api: "setLogLevel", result: String(level)))
    }

    /// Sets one log file's size in KB (setLogFileSize). Values below the minimum
    /// are raised to it; 0 and values above the maximum throw `.invalidArgument`.
    public func setLogFileSize(_ sizeKB: Int) throws(AgoraError) {
        guard sizeKB != -1, let normalized = LogFileSize.normalize(sizeKB) else { throw .invalidArgument }
        log.rotationSize = normalized * 1024
        log.log(.info, "api setLogFileSize \(normalized) KB")
        emit(.apiCallExecuted(error: 0, api: "setLogFileSize", result: String(normalized)))
    }

    /// Writes a line to this engine's log (for layers built on the engine).
    public func writeLog(_ severity: LogSeverity, _ message: @autoclosure () -> String) {
        log.log(severity, message())
    }

    func applyLogFile(_ path: String) throws(AgoraError) {
        guard !path.isEmpty, path.utf8.count <= 4095, !path.utf8.contains(0) else { throw .invalidArgument }
        let old = log.currentPath
        do {
            try log.reopen(path: path)
        } catch {
            log.log(.warning, "api setLogFile \(path) rejected: cannot open")
            throw .invalidArgument
        }
        log.log(.info, "api setLogFile \(path) (previous file \(old))")
    }

    var serverURL: String {
        get { state.withLock { $0.serverURL } }
        set {
            state.withLock { $0.serverURL = newValue }
            link.setServerURL(newValue)
        }
    }
}

/// Whether an engine has been released, shared with the closures that deliver its events.
final class ReleasedFlag: Sendable {
    let value = Atomic<Bool>(false)
}

/// Hands out engine serial numbers, process-wide.
final class SerialCounter: Sendable {
    private let value = Atomic<Int>(0)
    func next() -> Int { value.wrappingAdd(1, ordering: .relaxed).newValue }
}

let engineSerials = SerialCounter()
