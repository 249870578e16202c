import AgoraishWire

/// Identifies one signaling connection (one WebSocket) to the core.
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// The shell's number for the connection.
    public let raw: UInt64
    /// Wraps a shell-chosen number.
    public init(_ raw: UInt64) { self.raw = raw }
    public var description: String { "c\(raw)" }
}

/// The membership half of the channel server, sans-IO (docs/protocol.md).
///
/// It owns apps, channels, sessions and their timers. The shell feeds it
/// connection events, text messages and the time, and drains what to send
/// (`pollTransmit`), which connections to close (`pollClose`), log lines
/// (`pollEvent`) and when to call back (`pollTimeout`). It never reads a clock.
public struct SignalingCore {
    // Written by the shell before serving; read on the signaling thread only.
    /// What the shell must do with a connection.
    public enum Output: Equatable, Sendable {
        /// Send this text message on the connection.
        case send(ConnectionID, String)
        /// Close the connection with a WebSocket status code and reason.
        case close(ConnectionID, code: UInt16, reason: String)
    }

    /// A membership event, for logs and metrics.
    public enum Event: Equatable, Sendable {
        case joined(app: String, channel: String, uid: UInt32, session: UInt64)
        case left(app: String, channel: String, uid: UInt32, reason: OfflineReason)
        case joinRejected(code: Int32, reason: String)
        case resumed(uid: UInt32, session: UInt64)
        case protocolError(ConnectionID, String)
        /// A join on this connection was answered (for the latency histogram).
        case joinAnswered(ConnectionID)
        /// Something was refused or closed by a budget (docs/server.md, Limits and abuse).
        case refused(reason: String)
        /// A token was refused; the detail (how far it got) is for the log only.
        case tokenRefused(detail: String)
    }

    /// Instructions for the media plane, in order.
    public enum MediaCommand: Equatable, Sendable {
        /// Admit a participant: its STUN credentials, SRTP keys and whether it may publish.
        case admit(MediaGrant)
        /// Whether a participant may publish changed (role change).
        case setPublisher(session: UInt64, canPublish: Bool)
        /// Remove a participant (left, dropped or replaced).
        case remove(session: UInt64)
        /// The participant muted (or unmuted) its audio: its audio is not forwarded while muted.
        case setAudioMuted(session: UInt64, muted: Bool)
        /// Whose audio the participant receives.
        case setAudioSubscription(session: UInt64, AudioSubscription)
        /// The participant muted (or unmuted) its video.
        case setVideoMuted(session: UInt64, muted: Bool)
        /// Whose video the participant receives.
        case setVideoSubscription(session: UInt64, VideoSubscription)
        /// The SSRC (the publisher's own) of the participant's low video stream; 0: none.
        case setVideoLowStream(session: UInt64, ssrc: UInt32)
        /// The participant's simulcast layers: its own SSRCs -> types 4...9 (set_video_state `layers`).
        case setVideoLayers(session: UInt64, layers: [UInt32: UInt8])
        /// The participant's RTX SSRCs (RFC 4588) and the video SSRCs they retransmit (its own numbers).
        case setVideoRetransmission(session: UInt64, rtxToMedia: [UInt32: UInt32])
        /// A last-mile probe asked for probe packets: `bitrate` bps for `durationMs`.
        case probeDownlink(session: UInt64, bitrate: Int, durationMs: Int)
        /// A browser's offer was answered: its DTLS peer and how its RTP differs from the engine's.
        case webrtcNegotiated(session: UInt64, WebRtcPeer)
    }

    /// The configuration in force.
    public let config: ServerConfig
    /// Unix seconds at `clockBase`: token times are unix seconds, timers monotonic.
    let unixAtBase: Int64
    let clockBase: Instant
    var rng: SplitMix64

    var connections: [ConnectionID: ConnectionState] = [:]
    var sessions: [UInt64: Session] = [:]
    var channels: [ChannelKey: Channel] = [:]
    /// Per remote address: recent joins, connections without a session, private sessions.
    var addresses: [String: AddressState] = [:]
    var lastPrune = Instant(nanoseconds: 0)
    /// Connections without a session, oldest first (entries that joined or closed since are skipped).
    var idleQueue: [(conn: ConnectionID, since: Instant)] = []
    var idleHead = 0
    var unauthenticatedCount = 0
    /// Echo tests and last-mile probes in progress, in all and per app.
    var privateSessionCount = 0
    var privateSessionsByApp: [String: Int] = [:]
    /// No session deadline (drop, token notice, private session end) comes
    /// before this; recomputed when it passes, lowered when a session adds an earlier one.
    var sessionDeadline: Instant? = nil
    /// app id -> account -> uid, stable for the server's life (account joins).
    var accounts: [String: [String: UInt32]] = [:]
    /// app id -> accounts registered by connections without a session.
    var provisional: [String: ProvisionalAccounts] = [:]
    /// app id -> the uids its accounts hold.
    var accountUids: [String: Set<UInt32>] = [:]
    var nextSession: UInt64 = 1
    var outputs = OutputQueue<Output>()
    var events = OutputQueue<Event>()
    var mediaCommands = OutputQueue<MediaCommand>()
    /// Where clients send media (host and UDP port); nil when the server has no media plane.
    public var mediaEndpoint: (host: String, port: UInt16)? = nil
    /// The SRTP profile offered to clients.
    public var srtpProfile: SrtpProfile = .aeadAes128Gcm
    /// The SHA-256 fingerprint of the media plane's DTLS certificate (nil: no WebRTC).
    public var dtlsFingerprint: String? = nil
    /// Secret random bytes (SRTP keys, ICE passwords, resume tokens).
    let random: @Sendable (Int) -> [UInt8]

    /// A core for `config`. `clockBase` and `unixAtBase` tie the monotonic time
    /// the shell passes in to unix time; `seed` seeds uid and resume-token choice.
    /// `random` supplies secret bytes; tests pass a seeded source, the shell /dev/urandom.
    public init(config: ServerConfig, clockBase: Instant, unixAtBase: Int64, seed: UInt64,
                random: (@Sendable (Int) -> [UInt8])? = nil) {
        self.config = config
        self.clockBase = clockBase
        self.unixAtBase = unixAtBase
        self.rng = SplitMix64(seed: seed)
        if let random {
            self.random = random
        } else {
            // Deterministic bytes for tests; the server shell always passes a secret source.
            let source = SeededBytes(seed: seed ^ 0x5EED)
            self.random = { n in source.next(n) }
        }
    }

    /// The next instruction for the media plane.
    public mutating func pollMediaCommand() -> MediaCommand? {
        mediaCommands.pop()
    }

    /// The media plane saw a new stream from `session`: tell the channel.
    /// A stream seen before as another layer is updated and announced
    /// again (`payloadType` 0 keeps the one it had).
    public mutating func streamPublished(session sid: UInt64, ssrc: UInt32, payloadType: UInt8, low: Bool = false,
                                         rtx: UInt32 = 0) {
        streamPublished(session: sid, ssrc: ssrc, payloadType: payloadType, layer: low ? VideoStreamLayer.low : 0, rtx: rtx)
    }

    /// As above, with the stream's layer (`VideoStreamLayer`: 0 high, 1 low, 4...9 simulcast).
    public mutating func streamPublished(session sid: UInt64, ssrc: UInt32, payloadType: UInt8, layer: UInt8,
                                         rtx: UInt32 = 0) {
        guard let s = sessions[sid] else { return }
        var stream = PublishedStream(ssrc: ssrc, payloadType: payloadType, layer: layer, rtx: rtx)
        if let i = s.streams.firstIndex(where: { $0.ssrc == ssrc }) {
            guard s.streams[i].layer != layer else { return }
            stream.payloadType = s.streams[i].payloadType
            stream.rtx = s.streams[i].rtx
            sessions[sid]!.streams[i] = stream
        } else {
            guard payloadType != 0 else { return }
            sessions[sid]!.streams.append(stream)
        }
        guard isVisible(s) else { return }
        forEachOther(in: s.key, except: s.uid) { core, conn in
            core.send(conn, Signaling.StreamAdded(stream.entry(uid: s.uid)))
        }
    }

    /// A last-mile probe's participant asks for probe packets on its downlink
    /// (100 kbps ... 5 Mbps, up to 10 s). Only in a probe's private channel.
    mutating func probeDownlink(_ f: MessageFields, _ conn: ConnectionID, _ now: Instant) throws(SignalingFailure) {
        guard let sid = connections[conn]!.session, let s = sessions[sid] else { throw .code(-113, "not_in_channel") }
        guard s.probe else { throw .code(-5, "not_a_probe") }
        let probe = try Signaling.ProbeDownlink(f)
        if mediaEndpoint != nil {
            mediaCommands.append(.probeDownlink(session: sid, bitrate: probe.bitrate, durationMs: probe.durationMs))
        }
    }

    /// The media plane changed what a subscriber gets of a publisher because
    /// of the subscriber's downlink: only its audio (`audioOnly`), or its
    /// video again. The subscriber is told (`subscribe_fallback`).
    public mutating func subscribeFallback(session sid: UInt64, uid: UInt32, audioOnly: Bool) {
        guard let conn = sessions[sid]?.connection else { return }
        send(conn, Signaling.SubscribeFallback(uid: uid, audioOnly: audioOnly))
    }

    // MARK: - Inputs

    /// A text message arrived on `conn`.
    public mutating func received(_ text: String, on conn: ConnectionID, now: Instant) {
        guard connections[conn] != nil else { return }
        if let sid = connections[conn]!.session { sessions[sid]?.lastSeen = now }
        var requestId: Int64? = nil
        do {
            // The cost of parsing is bounded before parsing: size (the shell's
            // maxMessageBytes), object members and nesting.
            guard JSONValue.withinLimits(text, maxKeys: config.maxMessageKeys, maxDepth: config.maxMessageDepth) else {
                events.append(.refused(reason: "too_complex"))
                throw SignalingFailure.code(-2, "too_complex")
            }
            guard let fields = MessageFields(text: text) else { throw SignalingFailure.malformed }
            requestId = fields.id
            // The envelope first; each handler reads its fields after its own checks.
            switch try SignalingRequest.Kind(fields) {
            case .join: try join(fields, conn, now)
            case .leave: try leave(fields, conn, now)
            case .setRole: try setRole(fields, conn, now)
            case .renewToken: try renewToken(fields, conn, now)
            case .resume: try resume(fields, conn, now)
            case .registerAccount: try registerAccount(fields, conn, now)
            case .setAudioState: try setAudioState(fields, conn, now)
            case .setAudioSubscription: try setAudioSubscription(fields, conn, now)
            case .setVideoState: try setVideoState(fields, conn, now)
            case .setVideoSubscription: try setVideoSubscription(fields, conn, now)
            case .probeDownlink: try probeDownlink(fields, conn, now)
            case .preload: try preload(fields, conn, now)
            case .webrtcOffer: try webrtcOffer(fields, conn, now)
            case .ping: send(conn, Signaling.Pong(serverTimeMs: unixMillis(now)), id: requestId)
            }
        } catch let failure as SignalingFailure {
            if case .malformed = failure { events.append(.protocolError(conn, "malformed message")) }
            send(conn, Signaling.ErrorReply(failure), id: requestId)
        } catch {
            preconditionFailure("every request handler throws SignalingFailure")
        }
    }

    /// Time passed: drops silent sessions, sends token notices that are due,
    /// ends private sessions that ran their time, closes connections that
    /// stayed without a session, and prunes the per-address table. Walks the
    /// sessions only when a session deadline may have come.
    public mutating func handleTimeout(now: Instant) {
        if let due = sessionDeadline, now >= due {
            sessionDeadline = nil
            for sid in Array(sessions.keys).sorted() { checkSessionTimers(sid, now: now) }
        }
        sweepIdle(now: now)
        pruneAddresses(now: now)
    }

    /// One session's timers: drop after silence, token expiry and its notice,
    /// the end of a private session. Lowers `sessionDeadline` to its next one.
    mutating func checkSessionTimers(_ sid: UInt64, now: Instant) {
        guard let s = sessions[sid] else { return }
        if now >= s.lastSeen + config.dropTimeout {
            if let conn = s.connection {
                outputs.append(.close(conn, code: 4000, reason: "keepalive timeout"))
                detach(conn, now: now)
            }
            removeSession(sid, reason: .dropped)
            return
        }
        if let end = s.privateUntil, now >= end {
            if let conn = s.connection {
                outputs.append(.close(conn, code: 4005, reason: "test over"))
                detach(conn, now: now)
            }
            removeSession(sid, reason: .quit)
            return
        }
        if let expiry = s.joinExpiry {
            if now >= instant(unix: expiry) {
                if let conn = s.connection {
                    send(conn, Signaling.TokenExpired(connectionReason: 9))
                    detach(conn, now: now)
                }
                removeSession(sid, reason: .dropped)
                return
            }
            if !s.willExpireSent && now >= instant(unix: expiry - config.tokenWillExpireLead) {
                sessions[sid]!.willExpireSent = true
                if let conn = s.connection {
                    send(conn, Signaling.TokenWillExpire(tokenExpireTs: expiry))
                }
            }
        }
        let next = nextDeadline(of: sessions[sid]!)
        sessionDeadline = sessionDeadline.map { min($0, next) } ?? next
    }

    /// The session's earliest timer.
    func nextDeadline(of s: Session) -> Instant {
        var d = s.lastSeen + config.dropTimeout
        if let e = s.joinExpiry {
            d = min(d, s.willExpireSent ? instant(unix: e) : instant(unix: e - config.tokenWillExpireLead))
        }
        if let end = s.privateUntil { d = min(d, end) }
        return d
    }

    // MARK: - Outputs

    /// The next thing to send or close.
    public mutating func pollTransmit() -> Output? { outputs.pop() }

    /// The next membership event.
    public mutating func pollEvent() -> Event? { events.pop() }

    /// When `handleTimeout` should next run, if anything is pending. It may
    /// come early (a session heard from since), never late; O(1).
    public func pollTimeout() -> Instant? {
        var next = sessionDeadline
        if let idle = idleDeadline { next = next.map { min($0, idle) } ?? idle }
        if !addresses.isEmpty {
            let prune = lastPrune + .seconds(1)
            next = next.map { min($0, prune) } ?? prune
        }
        return next
    }

    // MARK: - Views for status and metrics

    /// Whether a connection carries a session (for the shell's idle timeout).
    public func hasSession(_ conn: ConnectionID) -> Bool { connections[conn]?.session != nil }

    /// Channels with at least one user.
    public var channelCount: Int { channels.count }
    /// Sessions, attached or waiting to resume.
    public var sessionCount: Int { sessions.count }
    /// Open signaling connections.
    public var connectionCount: Int { connections.count }

    /// (app, channel, profile, [(uid, role, account, connected)]) for every channel, sorted.
    /// The role is what the user may do: in a communication channel everyone
    /// may publish, so everyone is a broadcaster whatever role the client sent.
    public func channelSummaries() -> [(app: String, channel: String, profile: ChannelProfile,
                                        users: [(uid: UInt32, role: ClientRole, account: String?, connected: Bool,
                                                 session: UInt64, webrtc: Bool)])] {
        channels.values.sorted { ($0.key.app, $0.key.name) < ($1.key.app, $1.key.name) }.map { ch in
            let users = ch.members.keys.sorted().compactMap {
                uid -> (uid: UInt32, role: ClientRole, account: String?, connected: Bool, session: UInt64, webrtc: Bool)? in
                guard let s = sessions[ch.members[uid]!] else { return nil }
                let role: ClientRole = ch.profile == .communication ? .broadcaster : s.role
                return (uid, role, s.account, s.connection != nil, s.id, s.webrtc)
            }
            return (ch.key.app, ch.key.name, ch.profile, users)
        }
    }

    // MARK: - Helpers

    /// Queues `message` for `conn` (with the request's `id` for replies).
    mutating func send(_ conn: ConnectionID, _ message: some SignalingMessage, id: Int64? = nil) {
        outputs.append(.send(conn, message.text(id: id)))
    }

    func instant(unix seconds: Int64) -> Instant {
        clockBase + .seconds(seconds - unixAtBase)
    }

    func unixSeconds(_ now: Instant) -> Int64 {
        unixAtBase + (now - clockBase).nanosecondsClamped / 1_000_000_000
    }

    func unixMillis(_ now: Instant) -> Int64 {
        unixAtBase * 1000 + (now - clockBase).nanosecondsClamped / 1_000_000
    }
}

/// Per-connection state.
struct ConnectionState {
    var address: String
    var session: UInt64? = nil
    /// Since when the connection has had no session (nil while it has one).
    var idleSince: Instant? = nil
}

/// A channel is named within an app: the same name under two app ids is two channels.
struct ChannelKey: Hashable {
    var app: String
    var name: String
}

/// One user's membership, which outlives a broken connection until resumed or dropped.
struct Session {
    var id: UInt64
    var resumeToken: String
    var key: ChannelKey
    var uid: UInt32
    var account: String?
    var role: ClientRole
    var identity: TokenIdentity
    var token: String
    /// Effective expiry (unix seconds) of the join privilege, nil when the app needs no token.
    var joinExpiry: Int64?
    var willExpireSent = false
    var connection: ConnectionID?
    var lastSeen: Instant
    var streams: [PublishedStream] = []
    /// The media plane's admission of this session (kept to re-admit after a media restart).
    var media: MediaGrant? = nil
    /// The participant muted its audio (set_audio_state).
    var audioMuted = false
    /// Whose audio the participant receives (set_audio_subscription).
    var audioSubscription = AudioSubscription()
    /// The participant muted its video (set_video_state).
    var videoMuted = false
    /// Whose video the participant receives (set_video_subscription).
    var videoSubscription = VideoSubscription()
    /// The video switches behind `videoMuted` (set_video_state), once told.
    var videoSwitches: VideoFlags? = nil
    /// The publisher's own SSRC of its low video stream (dual stream); 0: none.
    var videoLowSsrc: UInt32 = 0
    /// The publisher's own SSRCs of its simulcast layers -> their types (4...9).
    var videoLayers: [UInt32: UInt8] = [:]
    /// The echo test's delay in ms (0: a normal session).
    var echoMs = 0
    /// A last-mile probe's private channel (join field `probe`).
    var probe = false
    /// A private session (echo test, probe) ends at this time; nil for others.
    var privateUntil: Instant? = nil
    /// The remote address of the connection that joined (for per-address counts).
    var address = ""
    /// The publisher's RTX SSRCs -> the video SSRCs they retransmit (set_video_state).
    var videoRtx: [UInt32: UInt32] = [:]
    /// The audio stream's and the reliable data stream's RTX SSRCs -> their SSRCs (the participant's own numbers).
    var audioRtx: [UInt32: UInt32] = [:]
    /// Whether the token lets this user publish (always, unless the app enforces publish privileges).
    var mayPublish = true
    /// Fast start asked at join (join field `fast_start`).
    var fastStart = false
    /// A browser: media negotiated with `webrtc_offer`, keyed by DTLS-SRTP (join field `webrtc`).
    var webrtc = false
    /// The version of the session's last SDP answer (o= line).
    var answerVersion: UInt64 = 0
}

/// A stream a participant publishes, as subscribers know it (the server's SSRC).
struct PublishedStream: Equatable {
    var ssrc: UInt32
    var payloadType: UInt8
    /// Which of the publisher's video streams (`VideoStreamLayer`): 0 high, 1 low, 4...9 a simulcast layer.
    var layer: UInt8 = 0
    /// The server's RTX SSRC for retransmissions of this (video) stream; 0: none.
    var rtx: UInt32 = 0

    /// The stream as stream_added and the joined stream lists carry it.
    func entry(uid: UInt32) -> Signaling.StreamEntry {
        Signaling.StreamEntry(uid: uid, ssrc: ssrc, payloadType: payloadType, layer: layer, rtx: rtx)
    }
}

/// What the media plane needs to serve one participant.
public struct MediaGrant: Equatable, Sendable {
    public var session: UInt64
    public var app: String
    public var channel: String
    public var uid: UInt32
    /// The server's ICE ufrag for this participant (first half of USERNAME).
    public var iceUfrag: String
    /// The ICE password: MESSAGE-INTEGRITY key of binding requests and responses.
    public var icePassword: String
    public var srtpProfile: SrtpProfile
    /// Keying (master key || salt) of what the client sends.
    public var uplinkKeying: [UInt8]
    /// Keying of what the server sends to the client.
    public var downlinkKeying: [UInt8]
    public var canPublish: Bool
    /// The participant's audio is muted (kept across a media restart).
    public var audioMuted = false
    /// Whose audio the participant receives.
    public var audioSubscription = AudioSubscription()
    /// The participant's video is muted.
    public var videoMuted = false
    /// Whose video the participant receives.
    public var videoSubscription = VideoSubscription()
    /// The SSRC of the participant's low video stream (0: none).
    public var videoLowSsrc: UInt32 = 0
    /// The participant's simulcast layer SSRCs -> their types (4...9).
    public var videoLayers: [UInt32: UInt8] = [:]
    /// The participant's RTX SSRCs -> the video SSRCs they retransmit.
    public var videoRtx: [UInt32: UInt32] = [:]
    /// The echo test: the participant's audio is played back to it after this many ms (0: off).
    public var echoDelayMs = 0
    /// Fast start: when its address is first bound, the participant gets the
    /// newest packet of each audio stream it receives (docs/protocol.md, Quick switch).
    public var fastStart = false
    /// A browser: its SRTP keys come from DTLS on the media port once its
    /// offer is answered (`webrtcNegotiated`), not from the keys above.
    public var webrtc = false
}

/// The users of one channel.
struct Channel {
    var key: ChannelKey
    var profile: ChannelProfile
    /// uid -> session id.
    var members: [UInt32: UInt64] = [:]
}

/// Deterministic bytes from a seed, for cores built without a secret source (tests).
final class SeededBytes: @unchecked Sendable {
    private var generator: SplitMix64
    init(seed: UInt64) { generator = SplitMix64(seed: seed) }
    /// Called only from the core's own thread.
    func next(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: generator.next()) } }
}

/// What the core has queued for the shell, drained first in, first out in
/// O(1) a item (a mass drop can queue hundreds of thousands of notices).
struct OutputQueue<Element> {
    private var items: [Element] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var count: Int { items.count - head }

    mutating func append(_ item: Element) { items.append(item) }

    mutating func pop() -> Element? {
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: items.count <= 4096)
            head = 0
        }
        return item
    }
}
