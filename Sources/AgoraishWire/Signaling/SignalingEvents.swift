/// Server → client messages: replies and notices (docs/protocol.md, Server
/// → client messages). They are read as a client reads them: a field it
/// needs must be there (else the message is ignored), and the others are
/// nil when absent or malformed.
extension Signaling {
    /// A user as `joined`, `resumed` and `user_joined` list it.
    public struct UserEntry: Equatable, Sendable {
        public var uid: UInt32
        public var account: String?
        /// Written only when true.
        public var audioMuted: Bool
        public var videoMuted: Bool
        /// `video_enabled`, `local_video_enabled`, `video_stream_muted`, once the user told them.
        public var video: VideoFlags?

        public init(uid: UInt32, account: String? = nil, audioMuted: Bool = false, videoMuted: Bool = false,
                    video: VideoFlags? = nil) {
            self.uid = uid
            self.account = account
            self.audioMuted = audioMuted
            self.videoMuted = videoMuted
            self.video = video
        }

        init(_ f: MessageFields) throws(SignalingFailure) {
            uid = try f.uid()
            account = f.lenientString("account")
            audioMuted = f.lenientBool("audio_muted") ?? false
            videoMuted = f.lenientBool("video_muted") ?? false
            video = VideoFlags.read(f, "video_enabled", "local_video_enabled", "video_stream_muted")
        }

        func encode(into m: inout [String: JSONValue]) {
            m["uid"] = .integer(Int64(uid))
            m.put("account", account)
            if audioMuted { m["audio_muted"] = .bool(true) }
            if videoMuted { m["video_muted"] = .bool(true) }
            video?.write(into: &m, "video_enabled", "local_video_enabled", "video_stream_muted")
        }
    }

    /// A stream as `stream_added` and the `streams` of `joined` and `resumed` carry it.
    public struct StreamEntry: Equatable, Sendable {
        /// The publisher.
        public var uid: UInt32
        /// The server's SSRC of the stream, as subscribers receive it.
        public var ssrc: UInt32
        /// The RTP payload type of its first packet (0 when not told).
        public var payloadType: UInt8
        /// Which of a publisher's video streams this is (`VideoStreamLayer`):
        /// 0 the high stream (no `layer` written), 1 the low stream
        /// (`"layer": "low"`), 4...9 a simulcast layer (`"layer1"` ... `"layer6"`).
        public var layer: UInt8
        /// The server's RTX SSRC for this stream; 0: none (not written).
        public var rtx: UInt32
        /// The low stream of a dual-stream publisher.
        public var low: Bool { layer == VideoStreamLayer.low }

        public init(uid: UInt32, ssrc: UInt32, payloadType: UInt8, low: Bool = false, rtx: UInt32 = 0) {
            self.init(uid: uid, ssrc: ssrc, payloadType: payloadType, layer: low ? VideoStreamLayer.low : 0, rtx: rtx)
        }

        public init(uid: UInt32, ssrc: UInt32, payloadType: UInt8, layer: UInt8, rtx: UInt32 = 0) {
            self.uid = uid
            self.ssrc = ssrc
            self.payloadType = payloadType
            self.layer = layer
            self.rtx = rtx
        }

        init(_ f: MessageFields) throws(SignalingFailure) {
            uid = try f.uid()
            guard let ssrc = f.lenientUInt32("ssrc") else { throw .badField("ssrc") }
            self.ssrc = ssrc
            payloadType = f.lenientInteger("payload_type").flatMap { UInt8(exactly: $0) } ?? 0
            layer = f.lenientString("layer").flatMap(VideoStreamLayer.type(named:)) ?? 0
            rtx = f.lenientUInt32("rtx_ssrc") ?? 0
        }

        func encode(into m: inout [String: JSONValue]) {
            m["uid"] = .integer(Int64(uid))
            m["ssrc"] = .integer(Int64(ssrc))
            m["payload_type"] = .integer(Int64(payloadType))
            if let name = VideoStreamLayer.name(layer) { m["layer"] = .string(name) }
            if rtx != 0 { m["rtx_ssrc"] = .integer(Int64(rtx)) }
        }
    }

    /// `joined`: the reply to `join`. What the server always writes but a
    /// client can do without is optional here.
    public struct Joined: SignalingMessage {
        public static let type = "joined"
        public var uid: UInt32
        /// The session id and its secret, for `resume`.
        public var session: Int64?
        public var resumeToken: String?
        public var callId: String?
        public var profile: Int64?
        public var role: Int64?
        /// The visible members (nil: not told, the client's list stays as it is).
        public var users: [UserEntry]?
        public var keepaliveMs: Int64?
        public var dropTimeoutMs: Int64?
        /// The server clock, unix ms.
        public var serverTimeMs: Int64?
        public var account: String?
        /// When the join privilege ends, unix seconds (apps with a certificate).
        public var tokenExpireTs: Int64?
        public var media: MediaOffer?
        public var streams: [StreamEntry]?

        public init(uid: UInt32, session: Int64? = nil, resumeToken: String? = nil, callId: String? = nil,
                    profile: Int64? = nil, role: Int64? = nil, users: [UserEntry]? = nil, keepaliveMs: Int64? = nil,
                    dropTimeoutMs: Int64? = nil, serverTimeMs: Int64? = nil, account: String? = nil,
                    tokenExpireTs: Int64? = nil, media: MediaOffer? = nil, streams: [StreamEntry]? = nil) {
            self.uid = uid
            self.session = session
            self.resumeToken = resumeToken
            self.callId = callId
            self.profile = profile
            self.role = role
            self.users = users
            self.keepaliveMs = keepaliveMs
            self.dropTimeoutMs = dropTimeoutMs
            self.serverTimeMs = serverTimeMs
            self.account = account
            self.tokenExpireTs = tokenExpireTs
            self.media = media
            self.streams = streams
        }

        public init(_ f: MessageFields) throws(SignalingFailure) {
            uid = try f.uid()
            session = f.lenientInteger("session")
            resumeToken = f.lenientString("resume_token")
            callId = f.lenientString("call_id")
            profile = f.lenientInteger("profile")
            role = f.lenientInteger("role")
            users = entries(f, "users", UserEntry.init)
            keepaliveMs = f.lenientInteger("keepalive_ms")
            dropTimeoutMs = f.lenientInteger("drop_timeout_ms")
            serverTimeMs = f.lenientInteger("server_time_ms")
            account = f.lenientString("account")
            tokenExpireTs = f.lenientInteger("token_expire_ts")
            media = MediaOffer(f.members["media"])
            streams = entries(f, "streams", StreamEntry.init)
        }

        public func encode(into m: inout [String: JSONValue]) {
            m["uid"] = .integer(Int64(uid))
            m.put("session", session)
            m.put("resume_token", resumeToken)
            m.put("call_id", callId)
            m.put("profile", profile)
            m.put("role", role)
            if let users { m["users"] = .array(users.map { $0.json }) }
            m.put("keepalive_ms", keepaliveMs)
            m.put("drop_timeout_ms", dropTimeoutMs)
            m.put("server_time_ms", serverTimeMs)
            m.put("account", account)
            m.put("token_expire_ts", tokenExpireTs)
            if let media { m["media"] = media.json }
            if let streams { m["streams"] = .array(streams.map { $0.json }) }
        }
    }

    /// `resumed`: the reply to `resume`, with what changed while the link was down.
    public struct Resumed: SignalingMessage {
        public static let type = "resumed"
        public var uid: UInt32
        public var session: Int64?
        public var role: Int64?
        public var users: [UserEntry]?
        public var serverTimeMs: Int64?
        public var tokenExpireTs: Int64?
        public var streams: [StreamEntry]?
        public var media: MediaOffer?

        public init(uid: UInt32, session: Int64? = nil, role: Int64? = nil, users: [UserEntry]? = nil,
                    serverTimeMs: Int64? = nil, tokenExpireTs: Int64? = nil, streams: [StreamEntry]? = nil,
                    media: MediaOffer? = nil) {
            self.uid = uid
            self.session = session
            self.role = role
            self.users = users
            self.serverTimeMs = serverTimeMs
            self.tokenExpireTs = tokenExpireTs
            self.streams = streams
            self.media = media
        }

        public init(_ f: MessageFields) throws(SignalingFailure) {
            uid = try f.uid()
            session = f.lenientInteger("session")
            role = f.lenientInteger("role")
            users = entries(f, "users", UserEntry.init)
            serverTimeMs = f.lenientInteger("server_time_ms")
            tokenExpireTs = f.lenientInteger("token_expire_ts")
            streams = entries(f, "streams", StreamEntry.init)
            media = MediaOffer(f.members["media"])
        }

        public func encode(into m: inout [String: JSONValue]) {
            m["uid"] = .integer(Int64(uid))
            m.put("session", session)
            m.put("role", role)
            if let users { m["users"] = .array(users.map { $0.json }) }
            m.put("server_time_ms", serverTimeMs)
            m.put("token_expire_ts", tokenExpireTs)
            if let streams { m["streams"] = .array(streams.map { $0.json }) }
            if let media { m["media"] = media.json }
        }
    }

    /// `left`: the reply to `leave`.
    public struct Left: SignalingMessage {
        public static let type = "left"
        public init() {}
        public init(_ f: MessageFields) throws(SignalingFailure) {}
        public func encode(into m: inout [String: JSONValue]) {}
    }

    /// `role_changed`: the reply to `set_role`.
    public struct RoleChanged: SignalingMessage {
        public static let type = "role_changed"
        public var old: ClientRole
        public var new: ClientRole
        public init(old: ClientRole, new: ClientRole) {
            self.old = old
            self.new = new
        }
        public init(_ f: MessageFields) throws(SignalingFailure) {
            guard let old = f.lenientInteger("old").flatMap(ClientRole.init(rawValue:)) else { throw .badField("old") }
            guard let new = f.lenientInteger("new").flatMap(ClientRole.init(rawValue:)) else { throw .badField("new") }
            self.old = old
            self.new = new
        }
        public func encode(into m: inout [String: JSONValue]) {
            m["old"] = .integer(old.rawValue)
            m["new"] = .integer(new.rawValue)
        }
    }

    /// `token_renewed`: the reply to `renew_token`.
    public struct TokenRenewed: SignalingMessage {
        public static let type = "token_renewed"
        /// The new effective expiry, unix seconds (apps with a certificate).
        public var tokenExpireTs: Int64?
        public init(tokenExpireTs: Int64? = nil) { self.tokenExpireTs = tokenExpireTs }
        public init(_ f: MessageFields) throws(SignalingFailure) { tokenExpireTs = f.lenientInteger("token_expire_ts") }
        public func encode(into m: inout [String: JSONValue]) { m.put("token_expire_ts", tokenExpireTs) }
    }

    /// `account_registered`: the reply to `register_account`.
    public struct AccountRegistered: SignalingMessage {
        public static let type = "account_registered"
        public var uid: UInt32
        public var account: String
        public init(uid: UInt32, account: String) {
            self.uid = uid
            self.account = account
        }
        public init(_ f: MessageFields) throws(SignalingFailure) {
            guard let uid = f.lenientUInt32("uid") else { throw .badField("uid") }
            guard let account = f.lenientString("account") else { throw .badField("account") }
            self.uid = uid
            self.account = account
        }
        public func encode(into m: inout [String: JSONValue]) {
            m["uid"] = .integer(Int64(uid))
            m["account"] = .string(account)
        }
    }

    /// `preloaded`: the reply to `preload`, the token checked.
    public struct Preloaded: SignalingMessage {
        public static let type = "preloaded"
        /// When the join privilege ends, unix seconds (apps with a certificate).
        public var tokenExpireTs: Int64?
        public init(tokenExpireTs: Int64? = nil) { self.tokenExpireTs = tokenExpireTs }
        public init(_ f: MessageFields) throws(SignalingFailure) { tokenExpireTs = f.lenientInteger("token_expire_ts") }
        public func encode(into m: inout [String: JSONValue]) { m.put("token_expire_ts", tokenExpireTs) }
    }

    /// `pong`: the reply to `ping`.
    public struct Pong: SignalingMessage {
        public static let type = "pong"
        /// The server clock, unix ms.
        public var serverTimeMs: Int64?
        public init(serverTimeMs: Int64?) { self.serverTimeMs = serverTimeMs }
        public init(_ f: MessageFields) throws(SignalingFailure) { serverTimeMs = f.lenientInteger("server_time_ms") }
        public func encode(into m: inout [String: JSONValue]) { m.put("server_time_ms", serverTimeMs) }
    }

    /// `webrtc_answer`: the reply to `webrtc_offer`, the server's SDP answer.
    public struct WebRtcAnswer: SignalingMessage {
        public static let type = "webrtc_answer"
        public var sdp: String
        public init(sdp: String) { self.sdp = sdp }
        public init(_ f: MessageFields) throws(SignalingFailure) { sdp = try f.string("sdp") }
        public func encode(into m: inout [String: JSONValue]) { m["sdp"] = .string(sdp) }
    }

    /// `error`: a request failed. Read as a client takes it: a code that is
    /// not a negative Agora error (-100000 ... -1) counts as -1, a missing reason as "".
    public struct ErrorReply: SignalingMessage {
        public static let type = "error"
        public var code: Int32
        public var reason: String
        public init(code: Int32, reason: String) {
            self.code = code
            self.reason = reason
        }
        /// The reply to a request that failed so.
        public init(_ failure: SignalingFailure) { self.init(code: failure.code, reason: failure.reason) }
        public init(_ f: MessageFields) throws(SignalingFailure) {
            let raw = f.lenientInteger("code") ?? -1
            code = (-100_000 ... -1).contains(raw) ? Int32(raw) : -1
            reason = f.lenientString("reason") ?? ""
        }
        public func encode(into m: inout [String: JSONValue]) {
            m["code"] = .integer(Int64(code))
            m["reason"] = .string(reason)
        }
    }
}

extension Signaling.UserEntry {
    var json: JSONValue {
        var m: [String: JSONValue] = [:]
        encode(into: &m)
        return .object(m)
    }
}

extension Signaling.StreamEntry {
    var json: JSONValue {
        var m: [String: JSONValue] = [:]
        encode(into: &m)
        return .object(m)
    }
}

/// The entries of a list field that read (others are skipped); nil when the field is not a list.
private func entries<T>(_ f: MessageFields, _ key: String,
                        _ read: (MessageFields) throws(SignalingFailure) -> T) -> [T]? {
    guard case .array(let items)? = f.members[key] else { return nil }
    return items.compactMap { item -> T? in
        guard case .object(let o) = item else { return nil }
        return try? read(MessageFields(o))
    }
}
