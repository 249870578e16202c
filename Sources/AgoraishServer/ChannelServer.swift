import AgoraishIO
import AgoraishWire
import Glibc

/// The channel server process (or the embedded one): an event loop with the
/// signaling listener (WebSocket over TCP at `/v1/signal`) and the HTTP
/// listener (`/metrics`, `/status`), driving one `SignalingCore`.
///
/// `start()` binds and begins serving; `stop()` closes every connection and
/// ends the loop. Both may be called from any thread.
public final class ChannelServer: @unchecked Sendable {
    /// The configuration the server was made with.
    public let config: ServerConfig
    /// Where log lines go (one line per event, `key=value` pairs).
    public let log: @Sendable (String) -> Void

    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Serializes start and stop, so a start never overlaps a stop still cleaning up.
    private let lifecycle = Locked(())
    private var loop: EventLoop?
    private var boundSignalingPort: UInt16 = 0
    private var boundHTTPPort: UInt16 = 0
    private var boundMediaPort: UInt16 = 0
    private var router: MediaRouter?
    private var tls: TLSContext?
    /// The media plane's DTLS certificate for browsers, made at the first start.
    private var certificate: DtlsCertificate?

    // Loop-thread state.
    private var core: SignalingCore
    private var listeners: [Int32] = []
    private var peers: [UInt64: Peer] = [:]
    private var nextPeer: UInt64 = 1
    private var timer: EventLoop.TimerID?
    private var timerDeadline: Instant?
    let metrics = ServerMetrics()
    /// Open TCP connections per remote address, and HTTP connections in all.
    private var connectionsByAddress: [String: Int] = [:]
    private var httpConnections = 0
    private var httpByAddress: [String: Int] = [:]
    /// The message budget shared by the connections of one address.
    private var addressBudgets: [String: RateBudget] = [:]
    /// Log lines about refused input: at most 20 a second, the rest counted.
    private var logBudget = RateBudget(rate: 20, burst: 40, now: .now())
    private var logsSuppressed = 0

    /// A server for `config`; nothing is bound until `start()`.
    public init(config: ServerConfig, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.config = config
        self.log = log
        var seed: UInt64 = 0
        let f = fopen("/dev/urandom", "r")
        if let f { fread(&seed, 8, 1, f); fclose(f) }
        // Tie monotonic time to unix time at a whole unix second.
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        let base = Instant.now() + .nanoseconds(-Int64(wall.tv_nsec))
        core = SignalingCore(config: config, clockBase: base, unixAtBase: Int64(wall.tv_sec), seed: seed,
                             random: secureRandomBytes)
        core.srtpProfile = config.srtpProfile
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// The signaling port actually bound (after `start`).
    public var signalingPort: UInt16 { locked { boundSignalingPort } }
    /// The HTTP port actually bound, 0 when disabled (after `start`).
    public var httpPort: UInt16 { locked { boundHTTPPort } }
    /// The UDP media port actually bound (after `start`).
    public var mediaPort: UInt16 { locked { boundMediaPort } }
    /// Media plane counters (packets, bytes, drops by reason).
    public var mediaCounters: MediaCounters? { locked { router?.counters } }
    /// The URL clients use: `ws://host:port`, or `wss://host:port` with TLS.
    public var url: String {
        let scheme = config.tlsCertificateFile == nil ? "ws" : "wss"
        let host = config.signalingHost.contains(":") ? "[\(config.signalingHost)]" : config.signalingHost
        return "\(scheme)://\(host):\(signalingPort)"
    }
    /// The HTTP endpoint's base URL, `http://host:port`, with the host the
    /// listener binds (`httpHost`, else `signalingHost`; IPv6 in brackets);
    /// nil when HTTP is off or the server is not running.
    public var httpURL: String? {
        let port = httpPort
        guard port != 0 else { return nil }
        let bound = config.httpHost ?? config.signalingHost
        let host = bound.contains(":") ? "[\(bound)]" : bound
        return "http://\(host):\(port)"
    }
    /// Whether the server is serving.
    public var isRunning: Bool { locked { loop != nil } }

    /// Binds the listeners and starts serving. Throws when a port cannot be bound.
    public func start() throws(ServerError) {
        try lifecycle.withLock { _ throws(ServerError) in try startLocked() }
    }

    private func startLocked() throws(ServerError) {
        try locked { () throws(ServerError) in
            guard loop == nil else { throw .alreadyRunning }
            // wss://: both files, or neither.
            switch (config.tlsCertificateFile, config.tlsKeyFile) {
            case (nil, nil):
                tls = nil
            case (let cert?, let key?):
                do {
                    tls = try TLSContext.server(certificateFile: cert, keyFile: key)
                } catch {
                    throw .config("\(error)")
                }
            default:
                throw .config("TLS needs both a certificate and a key file")
            }
            guard let address = SocketAddress(host: config.signalingHost, port: config.signalingPort) else {
                throw .badAddress(config.signalingHost)
            }
            let signalingFd: Int32
            var httpFd: Int32 = -1
            do {
                signalingFd = try Sockets.listenTCP(address)
                if let port = config.httpPort {
                    let host = config.httpHost ?? config.signalingHost
                    guard let httpAddress = SocketAddress(host: host, port: port) else {
                        throw ServerError.badAddress(host)
                    }
                    do {
                        httpFd = try Sockets.listenTCP(httpAddress)
                    } catch {
                        close(signalingFd)
                        throw error
                    }
                }
            } catch let e as SocketError {
                throw .bind(e.description)
            } catch let e as ServerError {
                throw e
            } catch {
                throw .bind("\(error)")
            }
            boundSignalingPort = Sockets.localAddress(signalingFd)?.port ?? 0
            boundHTTPPort = httpFd >= 0 ? (Sockets.localAddress(httpFd)?.port ?? 0) : 0
            // The media port: the signaling port's number by default.
            let wanted = config.mediaPort ?? boundSignalingPort
            var udpFd: Int32 = -1
            for port in (config.mediaPort == nil ? [wanted, 0] : [wanted]) {
                if let a = SocketAddress(host: config.signalingHost, port: port), let fd = try? Sockets.bindUDP(a) {
                    udpFd = fd
                    break
                }
            }
            guard udpFd >= 0 else {
                close(signalingFd)
                if httpFd >= 0 { close(httpFd) }
                throw .bind("cannot bind the UDP media port \(wanted)")
            }
            boundMediaPort = Sockets.localAddress(udpFd)?.port ?? 0
            let newLoop: EventLoop
            do {
                newLoop = try EventLoop(name: "agoraish-srv")
            } catch {
                close(signalingFd)
                close(udpFd)
                if httpFd >= 0 { close(httpFd) }
                throw .bind("event loop: \(error)")
            }
            if certificate == nil { certificate = try? DtlsCertificate.generate() }
            let newRouter: MediaRouter
            do {
                newRouter = try MediaRouter(fd: udpFd, workerCount: config.mediaWorkers,
                                            consentInterval: config.consentInterval, consentTimeout: config.consentTimeout,
                                            probeLimits: ProbeLimits(amplification: config.probeAmplification,
                                                                     maxBitratePerAddress: config.maxProbeBitratePerAddress),
                                            certificate: certificate,
                                            onStreamPublished: { [self] session, ssrc, payloadType, layer, rtx in
                    newLoop.post { [self] in
                        core.streamPublished(session: session, ssrc: ssrc, payloadType: payloadType, layer: layer, rtx: rtx)
                        drainCore(.now())
                    }
                }, onSubscribeFallback: { [self] session, uid, audioOnly in
                    newLoop.post { [self] in
                        core.subscribeFallback(session: session, uid: uid, audioOnly: audioOnly)
                        drainCore(.now())
                    }
                })
            } catch {
                newLoop.stop(wait: true)
                close(signalingFd)
                close(udpFd)
                if httpFd >= 0 { close(httpFd) }
                throw .bind("media threads: \(error)")
            }
            router = newRouter
            loop = newLoop
            let advertised = config.mediaAdvertisedHost
                ?? (["0.0.0.0", "::", ""].contains(config.signalingHost) ? "127.0.0.1" : config.signalingHost)
            let mediaPort = boundMediaPort
            let fingerprint = certificate?.fingerprint
            newLoop.post { [self] in
                core.mediaEndpoint = (advertised, mediaPort)
                core.dtlsFingerprint = fingerprint
                // Sessions kept from a previous start (within the drop timeout) need the new media plane.
                core.readmitMedia()
                drainCore(.now())
                scheduleSweep(on: newLoop)
                listen(signalingFd, kind: .signaling, on: newLoop)
                if httpFd >= 0 { listen(httpFd, kind: .http, on: newLoop) }
                log("event=server_started signaling_port=\(boundSignalingPort) http_port=\(boundHTTPPort) media_port=\(mediaPort)")
            }
        }
    }

    /// Closes every connection and listener and ends the loop. Idempotent;
    /// waits for the loop thread unless called on it.
    public func stop() {
        lifecycle.withLock { _ in stopLocked() }
    }

    private func stopLocked() {
        let (current, currentRouter): (EventLoop?, MediaRouter?) = locked {
            defer { loop = nil; router = nil }
            return (loop, router)
        }
        guard let current else { return }
        current.post { [self] in
            for fd in listeners {
                current.unregister(fd)
                close(fd)
            }
            listeners = []
            let now = Instant.now()
            for (id, peer) in peers {
                peer.stream.onClose = { _ in }
                peer.stream.close(flush: false)
                if case .websocket = peer.phase { core.disconnected(ConnectionID(id), now: now) }
            }
            peers = [:]
            while core.pollTransmit() != nil {}
            while core.pollMediaCommand() != nil {}
            if let timer { current.cancel(timer) }
            timer = nil
            timerDeadline = nil
            log("event=server_stopped")
        }
        current.stop(wait: true)
        currentRouter?.stop()
    }

    // MARK: - Loop thread

    enum ListenerKind { case signaling, http }

    private func listen(_ fd: Int32, kind: ListenerKind, on loop: EventLoop, adding: Bool = true) {
        if adding { listeners.append(fd) }
        loop.register(fd, events: EventLoop.readable) { [self] _ in
            while true {
                guard let (client, address) = Sockets.accept(fd) else {
                    if errno == EMFILE || errno == ENFILE {
                        // Out of descriptors: stop listening for a moment instead of spinning.
                        loop.unregister(fd)
                        log("event=accept_paused reason=\(errno == EMFILE ? "EMFILE" : "ENFILE")")
                        loop.schedule(after: .milliseconds(200)) { [self] in
                            if listeners.contains(fd) { listen(fd, kind: kind, on: loop, adding: false) }
                        }
                    }
                    return
                }
                if let refusal = admission(of: address, kind: kind) {
                    close(client)
                    metrics.connectionsRefused += 1
                    refused(refusal)
                    continue
                }
                accept(client, address: address, kind: kind, on: loop)
            }
        }
    }

    /// Why a new connection from `address` is refused, or nil (docs/server.md,
    /// Limits and abuse): the global limit less the reserve for connections
    /// that carry a session, the per-address limit, the HTTP limit.
    private func admission(of address: SocketAddress, kind: ListenerKind) -> String? {
        if peers.count >= config.maxConnections { return "connections" }
        if connectionsByAddress[address.host, default: 0] >= config.maxConnectionsPerAddress {
            return "connections_per_address"
        }
        if kind == .http {
            if httpConnections >= config.maxHTTPConnections { return "http_connections" }
            if httpByAddress[address.host, default: 0] >= config.maxHTTPConnectionsPerAddress {
                return "http_connections_per_address"
            }
        }
        return nil
    }

    private func accept(_ fd: Int32, address: SocketAddress, kind: ListenerKind, on loop: EventLoop) {
        let id = nextPeer
        nextPeer += 1
        let now = Instant.now()
        if kind == .signaling {
            // Connections without a session are the core's to admit (it may close the oldest to make room).
            guard core.connected(ConnectionID(id), address: address.host, now: now) else {
                close(fd)
                metrics.connectionsRefused += 1
                drainCore(now)
                return
            }
        }
        let stream = TCPStream(loop: loop, fd: fd, peer: address)
        stream.readBudget = config.readBytesPerTurn
        let peer = Peer(id: id, stream: stream, kind: kind, acceptedAt: now, maxMessage: config.maxMessageBytes)
        peer.budget = RateBudget(rate: config.messagesPerSecond, burst: config.messageBurst, now: now)
        // HTTP replies (a large /status) are written once and closed; the cap is for signaling.
        if kind == .signaling { peer.maxOutput = config.maxOutputBytes }
        peer.onOverflow = { [self] in refused("slow_reader") }
        peers[id] = peer
        connectionsByAddress[address.host, default: 0] += 1
        if kind == .http {
            httpConnections += 1
            httpByAddress[address.host, default: 0] += 1
        }
        if kind == .signaling {
            metrics.connectionsOpened += 1
            drainCore(now)
        }
        if kind == .signaling, let context = locked({ tls }) {
            guard let session = try? TLSSession(context: context) else {
                stream.onClose = { [self] _ in closed(id) }
                stream.close(flush: false)
                return
            }
            peer.tls = session
        }
        stream.onData = { [self, weak peer] bytes in
            guard let peer else { return }
            guard let session = peer.tls else { return received(bytes, from: id) }
            do {
                let (plain, reply) = try session.receive(bytes)
                if !reply.isEmpty { peer.stream.write(reply) }
                if !plain.isEmpty { received(plain, from: id) }
            } catch {
                log("event=tls_error peer=\(quoted(peer.stream.peer.description)) what=\(quoted("\(error)"))")
                peer.stream.close(flush: true)
            }
        }
        stream.onClose = { [self] _ in closed(id) }
    }

    private func received(_ bytes: [UInt8], from id: UInt64) {
        guard let peer = peers[id] else { return }
        switch peer.phase {
        case .head(var buffer):
            buffer += bytes
            let parsed: (HTTPHead, Int)?
            do {
                parsed = try HTTPHead.parse(buffer[...])
            } catch {
                respond(peer, status: "400 Bad Request", body: "bad request\n")
                return
            }
            guard let (head, used) = parsed else {
                peer.phase = .head(buffer)
                return
            }
            let rest = Array(buffer[used...])
            if peer.kind == .http {
                serveHTTP(peer, head)
                return
            }
            upgrade(peer, head, rest: rest)
        case .websocket:
            peer.socket.receive(bytes)
            pump(peer)
        }
    }

    private func upgrade(_ peer: Peer, _ head: HTTPHead, rest: [UInt8]) {
        let path: String
        let response: HTTPHead
        do {
            (path, response) = try WebSocketHandshake.accept(head)
        } catch {
            // Not an upgrade: the web client and the call page are served here (docs/web.md).
            if serveWebAsset(peer, head, from: WebAsset.signalingPort) { return }
            respond(peer, status: "400 Bad Request", body: "expected a WebSocket upgrade on /v1/signal\n")
            return
        }
        guard path == "/v1/signal" else {
            respond(peer, status: "404 Not Found", body: "signaling is at /v1/signal\n")
            return
        }
        peer.send(response.serialized)
        peer.phase = .websocket
        if !rest.isEmpty {
            peer.socket.receive(rest)
        }
        pump(peer)
    }

    /// Moves messages from a peer's WebSocket into the core and the core's
    /// output out, as far as the peer's and its address's message budgets
    /// allow. Past them, the connection is not read until the budget refills;
    /// held back for `throttleCloseAfter` without a pause, it is closed (4008).
    private func pump(_ peer: Peer) {
        let now = Instant.now()
        let host = peer.stream.peer.host
        var shared = addressBudgets[host]
            ?? RateBudget(rate: config.messagesPerSecondPerAddress, burst: config.messageBurstPerAddress, now: now)
        defer { addressBudgets[host] = shared }
        // WebSocket pings are answered by the connection itself; they are charged all the same.
        let pings = peer.socket.pingsReceived - peer.pingsCharged
        if pings > 0 {
            peer.pingsCharged += pings
            peer.budget.charge(pings, now: now)
            shared.charge(pings, now: now)
        }
        var overLimit = false, peerClosed = false
        while let next = peer.socket.nextMessage {
            let cost: Int
            switch next {
            // Parse cost grows with size and with the number of values (a 16 KiB
            // array of small integers costs far more than a 16 KiB string).
            case .text(let t): cost = 1 + t.utf8.count / 1024 + JSONValue.shape(t).values / 64
            case .binary(let b): cost = 1 + b.count / 1024
            default: cost = 0
            }
            if cost > 0 {
                // A full bucket means the client paused: it is no longer being held back.
                if peer.throttledSince != nil && peer.budget.isFull(now: now) { peer.throttledSince = nil }
                // Both budgets must allow the message before either is drawn on.
                guard peer.budget.holds(cost, now: now), shared.holds(cost, now: now) else {
                    overLimit = throttle(peer, cost: cost, shared: shared, now: now)
                    break
                }
                _ = peer.budget.take(cost, now: now)
                _ = shared.take(cost, now: now)
            }
            guard let m = peer.socket.pollMessage() else { break }
            switch m {
            case .text(let text):
                metrics.messagesIn += 1
                core.received(text, on: ConnectionID(peer.id), now: now)
            case .binary:
                metrics.messagesIn += 1
                core.received("", on: ConnectionID(peer.id), now: now)
            case .pong:
                break
            case .closed:
                peerClosed = true
            }
        }
        if let bytes = peer.socket.pollTransmit() { peer.send(bytes) }
        // Answers to what was read go out before the connection closes: the
        // client's close frame is echoed after them, and a connection over its
        // limit is closed after them.
        drainCore(now)
        if peerClosed { peer.socket.acknowledgeClose() }
        if peer.socket.isClosed {
            if let bytes = peer.socket.pollTransmit() { peer.send(bytes) }
            peer.stream.close()
            return
        }
        if overLimit {
            peer.socket.close(code: 4008, reason: "rate limit")
            if let bytes = peer.socket.pollTransmit() { peer.send(bytes) }
            peer.stream.close()
        }
    }

    /// Stops reading a peer until its budget (and its address's) allows the
    /// next message. Returns true when it has been held back too long: the
    /// caller closes it (4008) once the answers to what it read are out.
    private func throttle(_ peer: Peer, cost: Int, shared: RateBudget, now: Instant) -> Bool {
        if peer.throttledSince == nil {
            peer.throttledSince = now
            refused("message_rate")
        } else if now - peer.throttledSince! >= config.throttleCloseAfter {
            refused("message_rate_closed")
            return true
        }
        guard peer.resumeTimer == nil, let loop = currentLoop() else { return false }
        peer.stream.pauseReading()
        let at = max(peer.budget.available(cost), shared.available(cost))
        peer.resumeTimer = loop.schedule(at: max(at, now + .milliseconds(1))) { [self, weak peer] in
            guard let peer, peers[peer.id] === peer else { return }
            peer.resumeTimer = nil
            peer.stream.resumeReading()
            pump(peer)
        }
        return false
    }

    private func drainCore(_ now: Instant) {
        // Media admissions first, so a participant is known to the media plane
        // before its joined reply (and its first STUN request) can arrive.
        if let r = currentRouter() {
            while let command = core.pollMediaCommand() { r.apply(command) }
        }
        while let out = core.pollTransmit() {
            switch out {
            case .send(let conn, let text):
                guard let p = peers[conn.raw] else { continue }
                metrics.messagesOut += 1
                p.socket.send(text: text)
                if let bytes = p.socket.pollTransmit() { p.send(bytes) }
            case .close(let conn, let code, let reason):
                guard let p = peers[conn.raw] else { continue }
                // A connection still in its HTTP upgrade gets no WebSocket frame.
                if case .websocket = p.phase {
                    p.socket.close(code: code, reason: reason)
                    if let bytes = p.socket.pollTransmit() { p.send(bytes) }
                    p.stream.close()
                } else {
                    p.stream.close(flush: false)
                }
            }
        }
        while let event = core.pollEvent() { record(event, now) }
        rescheduleTimer()
    }

    private func record(_ event: SignalingCore.Event, _ now: Instant) {
        switch event {
        case .joined(let app, let channel, let uid, let session):
            metrics.joins += 1
            log("event=join app=\(quoted(app)) channel=\(quoted(channel)) uid=\(uid) session=\(session)")
        case .left(let app, let channel, let uid, let reason):
            metrics.leaves[reason.rawValue, default: 0] += 1
            log("event=leave app=\(quoted(app)) channel=\(quoted(channel)) uid=\(uid) reason=\(reason)")
        case .joinRejected(let code, let reason):
            metrics.joinRejections[code, default: 0] += 1
            logLimited("event=join_rejected code=\(code) reason=\(reason)")
        case .tokenRefused(let detail):
            logLimited("event=token_refused detail=\(detail)")
        case .refused(let reason):
            refused(reason)
        case .resumed(let uid, let session):
            metrics.resumes += 1
            log("event=resume uid=\(uid) session=\(session)")
        case .protocolError(let conn, let what):
            metrics.protocolErrors += 1
            logLimited("event=protocol_error conn=\(conn) what=\(quoted(what))")
        case .joinAnswered(let conn):
            // From accepting the connection to answering its first join.
            if let p = peers[conn.raw], !p.joinAnswered {
                p.joinAnswered = true
                metrics.observeJoinLatency(now - p.acceptedAt)
            }
        }
    }

    /// Closes connections whose HTTP head (a request, or the WebSocket
    /// upgrade) is not complete within `handshakeTimeout`, and forgets the
    /// message budgets of addresses with no connection left. Connections
    /// without a session are the core's to close (`authenticationTimeout`).
    private func scheduleSweep(on loop: EventLoop) {
        loop.schedule(after: .seconds(1)) { [self] in
            guard currentLoop() === loop else { return }
            let now = Instant.now()
            for peer in peers.values {
                if case .head = peer.phase, now - peer.acceptedAt > config.handshakeTimeout {
                    refused("handshake_timeout")
                    peer.stream.close(flush: false)
                }
            }
            for host in addressBudgets.keys where connectionsByAddress[host] == nil { addressBudgets[host] = nil }
            if logsSuppressed > 0 && logBudget.take(now: now) {
                log("event=log_suppressed count=\(logsSuppressed)")
                logsSuppressed = 0
            }
            scheduleSweep(on: loop)
        }
    }

    /// Counts a refusal by reason (`agoraish_refusals_total`).
    private func refused(_ reason: String) {
        metrics.refusals[reason, default: 0] += 1
    }

    /// Writes a log line about refused or malformed input, at most 20 a second;
    /// the rest are counted and reported in one line.
    private func logLimited(_ line: @autoclosure () -> String) {
        if logBudget.take(now: .now()) { log(line()) } else { logsSuppressed += 1 }
    }

    private func rescheduleTimer() {
        guard let loop = currentLoop() else { return }
        let next = core.pollTimeout()
        if next == timerDeadline { return }
        if let timer { loop.cancel(timer) }
        timer = nil
        timerDeadline = next
        guard let next else { return }
        timer = loop.schedule(at: next) { [self] in
            timer = nil
            timerDeadline = nil
            let now = Instant.now()
            core.handleTimeout(now: now)
            drainCore(now)
        }
    }

    private func closed(_ id: UInt64) {
        guard let peer = peers.removeValue(forKey: id) else { return }
        let host = peer.stream.peer.host
        if let n = connectionsByAddress[host] { connectionsByAddress[host] = n > 1 ? n - 1 : nil }
        if let t = peer.resumeTimer { currentLoop()?.cancel(t) }
        if peer.kind == .http {
            httpConnections -= 1
            if let n = httpByAddress[host] { httpByAddress[host] = n > 1 ? n - 1 : nil }
        } else {
            metrics.connectionsClosed += 1
            let now = Instant.now()
            core.disconnected(ConnectionID(id), now: now)
            drainCore(now)
        }
    }

    private func respond(_ peer: Peer, status: String, body: String, contentType: String = "text/plain; charset=utf-8") {
        respond(peer, status: status, bytes: Array(body.utf8), contentType: contentType)
    }

    private func respond(_ peer: Peer, status: String, bytes: [UInt8], contentType: String) {
        let head = HTTPHead(startLine: "HTTP/1.1 \(status)", fields: [
            ("Content-Type", contentType), ("Content-Length", String(bytes.count)), ("Connection", "close"),
        ])
        peer.send(head.serialized + bytes)
        peer.stream.close()
    }

    private func serveHTTP(_ peer: Peer, _ head: HTTPHead) {
        let parts = head.startLine.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET" else {
            respond(peer, status: "405 Method Not Allowed", body: "GET only\n")
            return
        }
        // The status page holds no data (it reads /status with the token the operator gives it).
        if serveWebAsset(peer, head, from: WebAsset.httpPort) { return }
        if let admin = config.adminToken {
            let given = head.field("Authorization") ?? ""
            guard TokenCrypto.constantTimeEqual(Array(given.utf8), Array("Bearer \(admin)".utf8)) else {
                refused("admin_token")
                respond(peer, status: "401 Unauthorized", body: "an admin token is needed\n")
                return
            }
        }
        switch parts[1] {
        case "/metrics":
            respond(peer, status: "200 OK", body: metrics.prometheusText(core: core, media: currentRouter()?.counters),
                    contentType: "text/plain; version=0.0.4; charset=utf-8")
        case "/status":
            respond(peer, status: "200 OK", body: statusJSON(), contentType: "application/json")
        default:
            respond(peer, status: "404 Not Found", body: "try /metrics, /status or /status.html\n")
        }
    }

    /// Serves a GET for one of `assets`' paths (the query string aside);
    /// false when the request is for none of them.
    private func serveWebAsset(_ peer: Peer, _ head: HTTPHead, from assets: [String: WebAsset]) -> Bool {
        let parts = head.startLine.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET",
              let asset = assets[String(parts[1].prefix { $0 != "?" })] else { return false }
        respond(peer, status: "200 OK", bytes: asset.bytes, contentType: asset.contentType)
        return true
    }

    private func statusJSON() -> String {
        let rates = currentRouter()?.participantRates() ?? [:]
        let channels: [JSONValue] = core.channelSummaries().map { ch in
            .object([
                "app_id": .string(ch.app), "channel": .string(ch.channel), "profile": .integer(ch.profile.rawValue),
                "users": .array(ch.users.map { u in
                    var o: [String: JSONValue] = ["uid": .integer(Int64(u.uid)), "role": .integer(u.role.rawValue),
                                                  "connected": .bool(u.connected), "client": .string(u.webrtc ? "web" : "native")]
                    if let a = u.account { o["account"] = .string(a) }
                    if let r = rates[u.session] {
                        o["bitrate_in_kbps"] = .integer(Int64(r.bitsIn / 1000))
                        o["bitrate_out_kbps"] = .integer(Int64(r.bitsOut / 1000))
                        o["loss_percent"] = .integer(Int64(r.lossPercent))
                    }
                    return .object(o)
                }),
            ])
        }
        return JSONValue.object([
            "version": .string(Version.string),
            "channels": .array(channels),
            "channel_count": .integer(Int64(core.channelCount)),
            "user_count": .integer(Int64(core.sessionCount)),
            "connection_count": .integer(Int64(core.connectionCount)),
        ]).serialized + "\n"
    }

    private func currentLoop() -> EventLoop? { locked { loop } }
    private func currentRouter() -> MediaRouter? { locked { router } }

    private func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body()
    }

    private func quoted(_ s: String) -> String {
        var out = ""
        JSONValue.writeString(s, into: &out)
        return out
    }
}

/// Why the server could not start.
public enum ServerError: Error, Equatable, CustomStringConvertible {
    /// `start` was called twice.
    case alreadyRunning
    /// The host does not resolve.
    case badAddress(String)
    /// A listener could not be bound.
    case bind(String)
    /// The configuration is invalid; the text says which setting.
    case config(String)

    public var description: String {
        switch self {
        case .alreadyRunning: "already running"
        case .badAddress(let h): "cannot resolve \(h)"
        case .bind(let why): "cannot listen: \(why)"
        case .config(let why): "bad configuration: \(why)"
        }
    }
}
