import AgoraishIO
import AgoraishSession
import AgoraishWire
import Synchronization

/// Connects an engine's `ClientSession` to the channel server: one IO event
/// loop thread per engine carries the WebSocket, the timers and the session's
/// outputs; events go to the engine's event thread.
///
/// API calls run the session under its lock on the caller's thread (so they
/// can fail synchronously), then wake the loop to carry out what the session
/// asked for. The loop never waits for the event thread or for callers.
final class ChannelLink: Sendable {
    private let session: Locked<ClientSession>
    private let loop: EventLoop
    private let shell: Locked<Shell>
    private let emit: @Sendable (ClientSession.Event) -> Void
    private let log: @Sendable (String) -> Void

    /// Loop-thread state (behind a lock only because the link is shared; only the loop touches it).
    struct Shell {
        var url: String
        /// Trust anchors for wss:// (PEM file); nil uses the system store.
        var caFile: String?
        var client: WebSocketClient?
        var timer: EventLoop.TimerID?
        var timerDeadline: Instant?
        var generation = 0
        /// Address and link changes of the host (rtnetlink); nil where unavailable.
        var watcher: NetworkWatcher?
        /// Preloaded channels (preloadChannel), by channel and uid.
        var preloads: [PreloadKey: Preload] = [:]
        var preloadOrder = 0
    }

    /// A preloaded channel: the join it prepares.
    struct PreloadKey: Hashable {
        var channel: String
        var uid: UInt32
    }

    /// A preloaded channel's token and its signaling connection, opened ahead
    /// of the join, on which the server checked the token (`preload`).
    struct Preload {
        var token: String
        var order: Int
        var client: WebSocketClient? = nil
        /// The server answered `preloaded` on `client`.
        var ready = false
        /// The server refused the token: nothing is opened until the token changes.
        var refused = false
        /// Bumped whenever `client` is replaced, so callbacks of an old one do nothing.
        var generation = 0
        /// The wait before the connection is opened again after it closed.
        var backoff: Duration = ChannelLink.preloadRetry
    }

    /// At most this many channels are preloaded; a newer one replaces the oldest (Agora keeps 20).
    static let maxPreloads = 20
    /// The first wait before a preload connection the server closed is opened again (doubled up to 32 s).
    static let preloadRetry: Duration = .seconds(1)
    /// How long after the media path opens new remote audio streams start at their first packet (fast start).
    static let fastStartWindow: Duration = .seconds(1)

    /// The engine's audio, fed by the media transport this link opens for each call.
    let audio: AudioPipeline
    /// The audio device thread, which follows the call.
    let device: AudioDeviceModule
    /// The engine's video.
    let video: VideoPipeline
    /// The engine's data streams and metadata.
    let data: DataPipeline
    /// The stream owners last given to the audio path, and the statistics timer (loop thread).
    private let audioShell = Locked(AudioShell())

    struct AudioShell {
        var owners: [UInt32: UInt32] = [:]
        var statsTimer: EventLoop.TimerID? = nil
        var lastStats: (at: Instant, cpu: Double, tx: UInt64, rx: UInt64, txAudio: UInt64, rxAudio: UInt64)? = nil
    }
    let media = Locked<MediaTransport?>(nil)
    /// The simulated network of received media (`rtc.network_simulation`); nil for none.
    let simulation = Locked<NetworkSimulation?>(nil)
    /// The simulated network of sent media (`rtc.network_simulation_send`); nil for none.
    let sendSimulation = Locked<NetworkSimulation?>(nil)
    /// Media counters of the transports closed during the current call (loop thread).
    private let closedMedia = Locked((txPackets: UInt64(0), txBytes: UInt64(0), rxPackets: UInt64(0), rxBytes: UInt64(0)))

    init(appId: String, areaCode: UInt32, serverURL: String, name: String, audio: AudioPipeline, device: AudioDeviceModule,
         video: VideoPipeline, data: DataPipeline,
         log: @escaping @Sendable (String) -> Void,
         emit: @escaping @Sendable (ClientSession.Event) -> Void) throws(EventThreadError) {
        self.audio = audio
        self.device = device
        self.video = video
        self.data = data
        var settings = ClientSession.Settings(appId: appId)
        settings.areaCode = areaCode
        var client = ClientSession(settings: settings)
        client.localAudioSsrcs = audio.ssrcs
        client.localDataSsrcs = data.ssrcs
        session = Locked(client)
        shell = Locked(Shell(url: serverURL))
        loop = try EventLoop(name: name)
        self.emit = emit
        self.log = log
        loop.post { [self] in
            let watcher = NetworkWatcher(loop: loop) { [weak self] changes in self?.networkChanged(changes) }
            shell.withLock { $0.watcher = watcher }
        }
    }

    /// The host's addresses or links changed (loop thread): the media path
    /// binds again at once; if the address the signaling connection uses went
    /// away the link is remade now (RECONNECTING, CLIENT_IP_ADDRESS_CHANGED);
    /// if something came up, a reconnect waiting for its back-off goes now.
    private func networkChanged(_ changes: [NetworkWatcher.Change]) {
        let local = shell.withLock { $0.client }?.localAddress
        var lost = false, available = false
        for c in changes {
            switch c {
            case .addressRemoved(let a): if a == local { lost = true }
            case .addressAdded, .linkChanged: available = true
            }
        }
        media.withLock { $0 }?.rebindNow()
        if lost {
            log("network: the connection's local address went away; reconnecting")
            session.withLock { $0.networkChanged(now: .now()) }
        } else if available {
            session.withLock { $0.networkAvailable(now: .now()) }
        }
        pump()
    }

    /// Runs an API call on the session, then lets the loop act on its outputs.
    func call<T>(_ body: (inout ClientSession, Instant) throws(SessionError) -> T) throws(SessionError) -> T {
        let result = try session.withLock { s throws(SessionError) in try body(&s, .now()) }
        loop.post { [self] in pump() }
        return result
    }

    /// Reads session state.
    func read<T>(_ body: (ClientSession) -> T) -> T { session.withLock { body($0) } }

    /// Changes the server URL used by the next connection.
    func setServerURL(_ url: String) { shell.withLock { $0.url = url } }

    /// Changes the trust anchors of the next wss:// connection (nil: the system store).
    func setCAFile(_ path: String?) { shell.withLock { $0.caFile = path } }

    /// Leaves the channel if in one (so others see the user quit), closes the
    /// transport and ends the loop thread: the engine is being released.
    func shutdown(wait: Bool) {
        loop.post { [self] in
            session.withLock { s in try? s.leave(now: .now()) }
            pump()
            disconnect()
            stopMedia()
            let preloaded = shell.withLock { sh -> [WebSocketClient] in
                sh.watcher?.close()
                sh.watcher = nil
                defer { sh.preloads = [:] }
                return sh.preloads.values.compactMap(\.client)
            }
            for c in preloaded { c.close() }
        }
        loop.stop(wait: wait)
    }

    // MARK: - Loop thread

    /// Drains the session: transport actions, events, the next timer.
    private func pump() {
        let (transmits, events, deadline, owners) = session.withLock {
            s -> ([ClientSession.Transmit], [ClientSession.Event], Instant?, [UInt32: UInt32]) in
            var t: [ClientSession.Transmit] = []
            var e: [ClientSession.Event] = []
            while let x = s.pollTransmit() { t.append(x) }
            while let x = s.pollEvent() { e.append(x) }
            return (t, e, s.pollTimeout(), s.streamOwners)
        }
        let (layers, rtx) = session.withLock { ($0.videoStreamLayers, $0.rtxVideoStreams) }
        video.streamLayers.withLock { $0 = layers }
        video.rtxStreams.withLock { $0 = rtx }
        audio.rtxStreams.withLock { $0 = rtx }
        syncOwners(owners)
        for t in transmits {
            switch t {
            case .connect: connect()
            case .send(let text): shell.withLock { $0.client }?.send(text: text)
            case .close: disconnect()
            }
        }
        for e in events {
            switch e {
            case .mediaReady(let endpoint): startMedia(endpoint)
            case .mediaStopped: stopMedia()
            case .userMuteAudio(let uid, let muted): audio.remoteMuted(uid: uid, muted: muted)
            case .remoteVideoPaused(let uid, let paused): video.remoteMuted(uid: uid, muted: paused)
            case .subscribeFallback(let uid, let audioOnly): video.subscribeFallback(uid: uid, audioOnly: audioOnly)
            case .userOffline(let uid, _):
                audio.remoteLeft(uid: uid)
                video.remoteLeft(uid: uid)
            case .clientRoleChanged:
                let may = session.withLock { $0.profile != 1 || $0.role == 1 }
                video.settings.withLock { $0.mayPublish = may }
                video.camera.update()
            case .connectionStateChanged(.failed, _):
                // A failed call reports no statistics: its media counts end here.
                stopMedia()
                closedMedia.withLock { $0 = (0, 0, 0, 0) }
            case .preCallTestEnded:
                // The echo test's media counts are not the next call's.
                closedMedia.withLock { $0 = (0, 0, 0, 0) }
            case .leaveChannel(var stats):
                // Data streams live for one call.
                data.resetStreams()
                // The call's statistics include its media, not only signaling.
                let m = closedMedia.withLock { c -> (txPackets: UInt64, txBytes: UInt64, rxPackets: UInt64, rxBytes: UInt64) in
                    defer { c = (0, 0, 0, 0) }
                    return c
                }
                stats.txPackets += m.txPackets
                stats.txBytes += m.txBytes
                stats.rxPackets += m.rxPackets
                stats.rxBytes += m.rxBytes
                (stats.mediaTxBytes, stats.mediaRxBytes) = audio.callBytes.withLock { ($0.tx, $0.rx) }
                emit(.leaveChannel(stats))
                continue
            default: break
            }
            emit(e)
        }
        // Starting the media path forgets the owners: what the session knows is given again.
        syncOwners(session.withLock { $0.streamOwners })
        schedule(deadline)
    }

    /// Gives the media paths the stream owners signaling named, when they changed.
    private func syncOwners(_ owners: [UInt32: UInt32]) {
        if audioShell.withLock({ sh in defer { sh.owners = owners }; return sh.owners != owners }) {
            audio.setOwners(owners)
            video.ownersChanged()
        }
    }

    private func schedule(_ deadline: Instant?) {
        let (stale, arm) = shell.withLock { sh -> (EventLoop.TimerID?, Bool) in
            if sh.timerDeadline == deadline && (deadline == nil || sh.timer != nil) { return (nil, false) }
            defer { sh.timer = nil; sh.timerDeadline = deadline }
            return (sh.timer, deadline != nil)
        }
        if let stale { loop.cancel(stale) }
        guard arm, let deadline else { return }
        let id = loop.schedule(at: deadline) { [self] in
            shell.withLock { $0.timer = nil; $0.timerDeadline = nil }
            session.withLock { $0.handleTimeout(now: .now()) }
            pump()
        }
        shell.withLock { $0.timer = id }
    }

    private func connect() {
        disconnect()
        let (urlText, caFile, generation) = shell.withLock { sh -> (String, String?, Int) in
            sh.generation += 1
            return (sh.url, sh.caFile, sh.generation)
        }
        // A join of a preloaded channel and uid goes on the connection opened for it,
        // with fast start; any other connection is opened now.
        let adopted = takePreloaded()
        session.withLock { $0.fastStart = adopted != nil }
        if let adopted {
            log("signaling: the preloaded connection carries the join")
            wire(adopted, generation: generation, url: urlText)
            shell.withLock { $0.client = adopted }
            loop.post { [self] in
                guard current(generation) else { return }
                session.withLock { $0.transportOpened(now: .now()) }
                pump()
            }
            return
        }
        var context: TLSContext? = nil
        let url = ServerURL(urlText)
        if let url, url.secure {
            do {
                context = try TLSContext.client(caFile: caFile)
            } catch {
                log("cannot connect to \(urlText): \(error)")
            }
        }
        guard let url, !url.secure || context != nil else {
            session.withLock { $0.transportClosed(now: .now()) }
            pump()
            return
        }
        let client = WebSocketClient(loop: loop, url: url, tls: context)
        client.onOpen = { [self] in
            guard current(generation) else { return }
            log("signaling connected to \(urlText)")
            session.withLock { $0.transportOpened(now: .now()) }
            pump()
        }
        wire(client, generation: generation, url: urlText)
        shell.withLock { $0.client = client }
        client.start()
    }

    /// Points a signaling connection's messages and close at the session.
    private func wire(_ client: WebSocketClient, generation: Int, url urlText: String) {
        client.onText = { [self] text in
            guard current(generation) else { return }
            session.withLock { $0.received(text, now: .now()) }
            pump()
        }
        client.onClose = { [self] in
            guard current(generation) else { return }
            log("signaling connection to \(urlText) closed")
            shell.withLock { $0.client = nil }
            session.withLock { $0.transportClosed(now: .now()) }
            pump()
        }
    }

    // MARK: - Preloaded channels

    /// preloadChannel: keeps `token` for a later join of `channel` as `uid`
    /// and opens a signaling connection for it, on which the server checks
    /// the token. The newest `maxPreloads` are kept. Any thread.
    func preload(token: String, channel: String, uid: UInt32) {
        let key = PreloadKey(channel: channel, uid: uid)
        let evicted = shell.withLock { sh -> [WebSocketClient] in
            sh.preloadOrder += 1
            var closing: [WebSocketClient] = []
            if let old = sh.preloads[key]?.client { closing.append(old) }
            sh.preloads[key] = Preload(token: token, order: sh.preloadOrder,
                                       generation: (sh.preloads[key]?.generation ?? 0) + 1)
            while sh.preloads.count > Self.maxPreloads,
                  let oldest = sh.preloads.min(by: { $0.value.order < $1.value.order })?.key {
                if let c = sh.preloads.removeValue(forKey: oldest)?.client { closing.append(c) }
            }
            return closing
        }
        loop.post { [self] in
            for c in evicted { c.close() }
            openPreload(key)
        }
    }

    /// updatePreloadChannelToken: every preloaded channel takes `token`; their
    /// connections are opened again to check it. Any thread.
    func updatePreloadToken(_ token: String) {
        let (keys, closing) = shell.withLock { sh -> ([PreloadKey], [WebSocketClient]) in
            var closing: [WebSocketClient] = []
            for key in sh.preloads.keys {
                if let c = sh.preloads[key]!.client { closing.append(c) }
                sh.preloads[key]!.token = token
                sh.preloads[key]!.client = nil
                sh.preloads[key]!.ready = false
                sh.preloads[key]!.refused = false
                sh.preloads[key]!.backoff = Self.preloadRetry
                sh.preloads[key]!.generation += 1
            }
            return (Array(sh.preloads.keys), closing)
        }
        loop.post { [self] in
            for c in closing { c.close() }
            for key in keys { openPreload(key) }
        }
    }

    /// The number of preloaded channels, and of those whose connection the server has accepted.
    var preloadCounts: (kept: Int, ready: Int) {
        shell.withLock { sh in (sh.preloads.count, sh.preloads.values.filter(\.ready).count) }
    }

    /// Opens the preload connection of `key` if it has none (loop thread).
    private func openPreload(_ key: PreloadKey) {
        let setup = shell.withLock { sh -> (String, String?, String, Int)? in
            guard let p = sh.preloads[key], p.client == nil, !p.refused else { return nil }
            return (sh.url, sh.caFile, p.token, p.generation)
        }
        guard let (urlText, caFile, token, generation) = setup, let url = ServerURL(urlText) else { return }
        var context: TLSContext? = nil
        if url.secure {
            guard let c = try? TLSContext.client(caFile: caFile) else { return }
            context = c
        }
        let appId = session.withLock { $0.appId }
        let client = WebSocketClient(loop: loop, url: url, tls: context)
        // Weak captures: the client holds these closures, and the link holds the client.
        let isCurrent = { [weak self] in self?.shell.withLock { $0.preloads[key]?.generation == generation } ?? false }
        client.onOpen = { [weak client] in
            guard isCurrent() else { return }
            client?.send(text: Signaling.Preload(appId: appId, channel: key.channel, token: token, uid: key.uid)
                .text(id: 1))
        }
        client.onText = { [weak self, weak client] text in
            guard let self, isCurrent(), let f = MessageFields(text: text) else { return }
            if case .preloaded? = try? SignalingEvent(f) {
                self.shell.withLock {
                    $0.preloads[key]?.ready = true
                    $0.preloads[key]?.backoff = Self.preloadRetry
                }
            } else if case .error(let e)? = try? SignalingEvent(f) {
                self.log("preload of \(key.channel) as \(key.uid) refused: \(e.code) \(e.reason)")
                self.shell.withLock {
                    $0.preloads[key]?.refused = e.code == -109 || e.code == -110 || e.code == -101 || e.code == -102
                }
                client?.close()
                self.preloadClosed(key, generation: generation)
            }
        }
        client.onClose = { [weak self] in
            guard let self, isCurrent() else { return }
            self.preloadClosed(key, generation: generation)
        }
        shell.withLock { $0.preloads[key]?.client = client }
        client.start()
    }

    /// A preload connection closed (the server's authentication timeout, a
    /// refusal, the network): it is opened again after its back-off (loop thread).
    private func preloadClosed(_ key: PreloadKey, generation: Int) {
        let wait = shell.withLock { sh -> Duration? in
            guard var p = sh.preloads[key], p.generation == generation else { return nil }
            p.client = nil
            p.ready = false
            p.generation += 1
            let wait = p.backoff
            p.backoff = min(p.backoff * 2, .seconds(32))
            sh.preloads[key] = p
            return p.refused ? nil : wait
        }
        guard let wait else { return }
        _ = loop.schedule(after: wait) { [self] in openPreload(key) }
    }

    /// The preload connection for the join the session is making, if the
    /// server accepted it; it leaves the table's care and a new one opens for
    /// later joins. Loop thread.
    private func takePreloaded() -> WebSocketClient? {
        let (channel, uid, plain) = session.withLock {
            ($0.channelName, $0.joinUid, $0.joinAccount == nil && !$0.inPreCallTest)
        }
        guard let channel, plain else { return nil }
        let key = PreloadKey(channel: channel, uid: uid)
        let taken = shell.withLock { sh -> WebSocketClient? in
            guard var p = sh.preloads[key], p.ready, let c = p.client else { return nil }
            p.client = nil
            p.ready = false
            p.generation += 1
            sh.preloads[key] = p
            return c
        }
        guard let client = taken else { return nil }
        // A new one at once: the audience may hop back as soon as it leaves.
        loop.post { [self] in openPreload(key) }
        return client
    }

    private func disconnect() {
        let client = shell.withLock { sh -> WebSocketClient? in
            sh.generation += 1
            defer { sh.client = nil }
            return sh.client
        }
        client?.close()
    }

    private func current(_ generation: Int) -> Bool { shell.withLock { $0.generation == generation } }

    /// Opens the UDP media transport for a call's credentials (loop thread).
    private func startMedia(_ endpoint: ClientSession.MediaEndpoint) {
        stopMedia()
        let audio = self.audio
        let video = self.video
        let data = self.data
        guard let transport = MediaTransport(loop: loop, endpoint: endpoint, simulation: simulation,
                                             sendSimulation: sendSimulation, onRtp: { packet, length in
            // The payload type tells audio (111) from video (96 VP8, 98 VP9).
            let payloadType = packet.load(fromByteOffset: 1, as: UInt8.self) & 0x7F
            if VideoPipeline.isVideo(payloadType: payloadType) {
                video.received(rtp: packet, length: length, now: .now())
            } else if PayloadType(payloadType).isData {
                data.received(rtp: packet, length: length, now: .now())
            } else {
                audio.received(rtp: packet, length: length, now: .now())
            }
        }) else {
            log("media transport to \(endpoint.host):\(endpoint.port) could not open")
            return
        }
        transport.onKeyframeRequest = { ssrc in video.keyframeRequested(ssrc: ssrc) }
        let audioSsrc = audio.ssrcs.ssrc, dataSsrc = data.ssrcs.ssrc
        transport.onNack = { ssrc, sequences in
            if ssrc == audioSsrc {
                audio.nacked(sequences: sequences)
            } else if ssrc == dataSsrc {
                data.nacked(sequences: sequences)
            } else {
                video.nacked(ssrc: ssrc, sequences: sequences)
            }
        }
        transport.onPathError = { [weak self] in
            guard let self else { return }
            log("network: the media path is unreachable; reconnecting")
            session.withLock { $0.networkChanged(now: .now()) }
            pump()
        }
        media.withLock { $0 = transport }
        audio.transport.withLock { $0 = transport }
        video.transport.withLock { $0 = transport }
        data.transport.withLock { $0 = transport }
        video.resetSend()
        let may = session.withLock { $0.profile != 1 || $0.role == 1 }
        video.settings.withLock {
            $0.inCall = true
            $0.mayPublish = may
        }
        video.send.withLock { $0.encodedFrameCount = 0 }
        video.camera.update()
        let (start, fast) = session.withLock { ($0.joinRequestedAt, $0.fastStart) }
        audio.callStart.withLock { $0 = start }
        audio.fastStartUntil.withLock { $0 = fast ? .now() + Self.fastStartWindow : nil }
        audio.resetPublished()
        audio.callBytes.withLock { $0 = (0, 0) }
        device.refresh()
        // The first report's rates count from here.
        let baseline = session.withLock { $0.signalingStats }
        let closed = closedMedia.withLock { $0 }
        let startCPU = processCPUSeconds()
        audioShell.withLock {
            $0.lastStats = (Instant.now(), startCPU, baseline.txBytes + closed.txBytes, baseline.rxBytes + closed.rxBytes,
                            0, 0)
        }
        scheduleStats()
        log("media transport to \(endpoint.host):\(endpoint.port) open")
    }

    /// Every 2 s in a call: onRtcStats, onLocalAudioStats, onRemoteAudioStats (loop thread).
    private func scheduleStats() {
        let old = audioShell.withLock { sh -> EventLoop.TimerID? in
            defer { sh.statsTimer = nil }
            return sh.statsTimer
        }
        if let old { loop.cancel(old) }
        let id = loop.schedule(after: .seconds(2)) { [self] in
            guard media.withLock({ $0 != nil }) else { return }
            reportStats()
            scheduleStats()
        }
        audioShell.withLock { $0.statsTimer = id }
    }

    private func reportStats() {
        let now = Instant.now()
        let (signaling, joined, users) = session.withLock { ($0.signalingStats, $0.joinedTime, $0.remoteUsers.count) }
        let zero = (txPackets: UInt64(0), txBytes: UInt64(0), rxPackets: UInt64(0), rxBytes: UInt64(0))
        let m = media.withLock { $0?.counters.withLock { $0 } } ?? zero
        let closed = closedMedia.withLock { $0 }
        var st = RtcStats()
        st.duration = UInt32(max(0, (now - (joined ?? now)).milliseconds / 1000))
        (st.txAudioBytes, st.rxAudioBytes) = audio.callBytes.withLock { ($0.tx, $0.rx) }
        st.txBytes = signaling.txBytes + m.txBytes + closed.txBytes
        st.rxBytes = signaling.rxBytes + m.rxBytes + closed.rxBytes
        st.txPackets = signaling.txPackets + m.txPackets + closed.txPackets
        st.rxPackets = signaling.rxPackets + m.rxPackets + closed.rxPackets
        st.userCount = UInt32(users + 1)
        let cpu = processCPUSeconds()
        st.memoryAppUsageInKbytes = processResidentKB()
        let period = audioShell.withLock { sh -> Int in
            defer { sh.lastStats = (now, cpu, st.txBytes, st.rxBytes, st.txAudioBytes, st.rxAudioBytes) }
            guard let last = sh.lastStats else { return 0 }
            let ms = Int((now - last.at).milliseconds)
            guard ms > 0 else { return 0 }
            st.cpuAppUsage = (cpu - last.cpu) * 100_000 / Double(ms)
            st.txKBitRate = UInt32(clamping: Int(st.txBytes &- last.tx) * 8 / ms)
            st.rxKBitRate = UInt32(clamping: Int(st.rxBytes &- last.rx) * 8 / ms)
            st.txAudioKBitRate = UInt32(clamping: Int(st.txAudioBytes &- last.txAudio) * 8 / ms)
            st.rxAudioKBitRate = UInt32(clamping: Int(st.rxAudioBytes &- last.rxAudio) * 8 / ms)
            return ms
        }
        let ms = max(period, 2000)
        let localAudio = audio.takeLocalStats(periodMs: ms)
        let remoteAudio = audio.takeRemoteStats(periodMs: ms, transportDelayMs: 0)
        let localVideo = video.takeLocalStats(periodMs: ms)
        let remoteVideo = video.takeRemoteStats(periodMs: ms)
        // The media path's round trip, and loss before recovery each way.
        let rtt = media.withLock { $0?.rtt }.map { Int32(clamping: $0.milliseconds) } ?? 0
        st.gatewayRtt = rtt
        st.lastmileDelay = rtt / 2
        let sent = video.lastPeriod.withLock { $0 }
        st.txVideoKBitRate = UInt32(clamping: sent.sentBytes * 8 / ms)
        st.rxVideoKBitRate = UInt32(clamping: sent.receivedBytes * 8 / ms)
        // The worse of what the server asked to be sent again and what its receiver reports say.
        let reported = media.withLock { $0?.uplinkLoss.withLock { $0 } } ?? 0
        st.txPacketLossRate = max(reported, sent.sentPackets > 0 ? Int32(min(100, sent.nacked * 100 / sent.sentPackets)) : 0)
        var rxLoss: [UInt32: Int32] = [:]
        for r in remoteAudio { rxLoss[r.uid] = max(rxLoss[r.uid] ?? 0, r.audioLossRate) }
        for r in remoteVideo { rxLoss[r.uid] = max(rxLoss[r.uid] ?? 0, r.packetLossRate) }
        st.rxPacketLossRate = rxLoss.values.max() ?? 0
        audio.emit(.rtcStats(st))
        audio.emit(.localAudioStats(localAudio))
        for r in remoteAudio { audio.emit(.remoteAudioStats(r)) }
        if let localVideo { video.emit(.localVideoStats(localVideo)) }
        for r in remoteVideo { video.emit(.remoteVideoStats(r)) }
        // onNetworkQuality: the local user each way, then each remote user as received here.
        // UNKNOWN (0) for a direction that carried no media in the period.
        let sending = st.txAudioKBitRate > 0 || st.txVideoKBitRate > 0
        let receiving = st.rxAudioKBitRate > 0 || st.rxVideoKBitRate > 0
        audio.emit(.networkQuality(uid: 0, tx: sending ? networkQuality(lossPercent: st.txPacketLossRate, rttMs: rtt) : 0,
                                   rx: receiving ? networkQuality(lossPercent: st.rxPacketLossRate, rttMs: rtt) : 0))
        for (uid, loss) in rxLoss.sorted(by: { $0.key < $1.key }) {
            audio.emit(.networkQuality(uid: uid, tx: 0, rx: networkQuality(lossPercent: loss, rttMs: rtt)))
        }
    }

    /// Closes the media transport (loop thread).
    private func stopMedia() {
        let running = media.withLock { $0 != nil }
        video.transport.withLock { $0 = nil }
        video.resetReceive()
        video.settings.withLock { $0.inCall = false }
        video.camera.update()
        audio.transport.withLock { $0 = nil }
        audio.resetReceive()
        data.transport.withLock { $0 = nil }
        data.resetReceive()
        audio.callStart.withLock { $0 = nil }
        if running { audio.localStopped() }
        device.refresh()
        let timer = audioShell.withLock { sh -> EventLoop.TimerID? in
            defer { sh.statsTimer = nil; sh.lastStats = nil; sh.owners = [:] }
            return sh.statsTimer
        }
        if let timer { loop.cancel(timer) }
        let old = media.withLock { m -> MediaTransport? in
            defer { m = nil }
            return m
        }
        if let old {
            let c = old.counters.withLock { $0 }
            closedMedia.withLock {
                $0.txPackets += c.txPackets
                $0.txBytes += c.txBytes
                $0.rxPackets += c.rxPackets
                $0.rxBytes += c.rxBytes
            }
        }
        old?.close()
    }
}
