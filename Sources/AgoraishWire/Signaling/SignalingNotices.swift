/// Notices: what the server sends on its own, without an `id`.
extension Signaling {
    /// `user_joined`: a user became visible (one user entry).
    public struct UserJoined: SignalingMessage {
        public static let type = "user_joined"
        public var user: UserEntry
        public init(_ user: UserEntry) { self.user = user }
        public init(_ f: MessageFields) throws(SignalingFailure) { user = try UserEntry(f) }
        public func encode(into m: inout [String: JSONValue]) { user.encode(into: &m) }
    }

    /// `user_offline`: a user is no longer visible.
    public struct UserOffline: SignalingMessage {
        public static let type = "user_offline"
        public var uid: UInt32
        /// Agora's USER_OFFLINE_REASON_TYPE (`OfflineReason`'s values; 0 when not told).
        public var reason: Int64
        public init(uid: UInt32, reason: OfflineReason) {
            self.uid = uid
            self.reason = reason.rawValue
        }
        public init(_ f: MessageFields) throws(SignalingFailure) {
            uid = try f.uid()
            reason = f.lenientInteger("reason") ?? 0
        }
        public func encode(into m: inout [String: JSONValue]) {
            m["uid"] = .integer(Int64(uid))
            m["reason"] = .integer(reason)
        }
    }

    /// `user_info`: a user's account, right before its `user_joined`.
    public struct UserInfo: SignalingMessage {
        public static let type = "user_info"
        public var uid: UInt32
        public var account: String
        public init(uid: UInt32, account: String) {
            self.uid = uid
            self.account = account
        }
        public init(_ f: MessageFields) throws(SignalingFailure) {
            uid = try f.uid()
            guard let account = f.lenientString("account") else { throw .badField("account") }
            self.account = account
        }
        public func encode(into m: inout [String: JSONValue]) {
            m["uid"] = .integer(Int64(uid))
            m["account"] = .string(account)
        }
    }

    /// `user_mute_audio`: a visible member's audio mute changed.
    public struct UserMuteAudio: SignalingMessage {
        public static let type = "user_mute_audio"
        public var uid: UInt32
        public var muted: Bool
        public init(uid: UInt32, muted: Bool) {
            self.uid = uid
            self.muted = muted
        }
        public init(_ f: MessageFields) throws(SignalingFailure) {
            uid = try f.uid()
            guard let muted = f.lenientBool("muted") else { throw .badField("muted") }
            self.muted = muted
        }
        public func encode(into m: inout [String: JSONValue]) {
            m["uid"] = .integer(Int64(uid))
            m["muted"] = .bool(muted)
        }
    }

    /// `user_mute_video`: a visible member's video state changed.
    public struct UserMuteVideo: SignalingMessage {
        public static let type = "user_mute_video"
        public var uid: UInt32
        /// Its video is stopped, for any reason.
        public var muted: Bool
        /// Why, once the member told its switches.
        public var switches: VideoFlags?
        public init(uid: UInt32, muted: Bool, switches: VideoFlags? = nil) {
            self.uid = uid
            self.muted = muted
            self.switches = switches
        }
        public init(_ f: MessageFields) throws(SignalingFailure) {
            uid = try f.uid()
            guard let muted = f.lenientBool("muted") else { throw .badField("muted") }
            self.muted = muted
            switches = VideoFlags.read(f, "enabled", "local_enabled", "stream_muted")
        }
        public func encode(into m: inout [String: JSONValue]) {
            m["uid"] = .integer(Int64(uid))
            m["muted"] = .bool(muted)
            switches?.write(into: &m, "enabled", "local_enabled", "stream_muted")
        }
    }

    /// `stream_added`: a visible participant's new stream reached the server.
    public struct StreamAdded: SignalingMessage {
        public static let type = "stream_added"
        public var stream: StreamEntry
        public init(_ stream: StreamEntry) { self.stream = stream }
        public init(_ f: MessageFields) throws(SignalingFailure) { stream = try StreamEntry(f) }
        public func encode(into m: inout [String: JSONValue]) { stream.encode(into: &m) }
    }

    /// `subscribe_fallback`: the media plane forwards only `uid`'s audio
    /// because of the subscriber's downlink (`audioOnly`), or its video again.
    public struct SubscribeFallback: SignalingMessage {
        public static let type = "subscribe_fallback"
        public var uid: UInt32
        public var audioOnly: Bool
        public init(uid: UInt32, audioOnly: Bool) {
            self.uid = uid
            self.audioOnly = audioOnly
        }
        public init(_ f: MessageFields) throws(SignalingFailure) {
            uid = try f.uid()
            guard let audioOnly = f.lenientBool("audio_only") else { throw .badField("audio_only") }
            self.audioOnly = audioOnly
        }
        public func encode(into m: inout [String: JSONValue]) {
            m["uid"] = .integer(Int64(uid))
            m["audio_only"] = .bool(audioOnly)
        }
    }

    /// `token_will_expire`: the session ends at `tokenExpireTs` (unix seconds) unless its token is renewed.
    public struct TokenWillExpire: SignalingMessage {
        public static let type = "token_will_expire"
        public var tokenExpireTs: Int64?
        public init(tokenExpireTs: Int64?) { self.tokenExpireTs = tokenExpireTs }
        public init(_ f: MessageFields) throws(SignalingFailure) { tokenExpireTs = f.lenientInteger("token_expire_ts") }
        public func encode(into m: inout [String: JSONValue]) { m.put("token_expire_ts", tokenExpireTs) }
    }

    /// `token_expired`: the session has ended.
    public struct TokenExpired: SignalingMessage {
        public static let type = "token_expired"
        /// Agora's CONNECTION_CHANGED_TOKEN_EXPIRED (9).
        public var connectionReason: Int64?
        public init(connectionReason: Int64? = 9) { self.connectionReason = connectionReason }
        public init(_ f: MessageFields) throws(SignalingFailure) { connectionReason = f.lenientInteger("connection_reason") }
        public func encode(into m: inout [String: JSONValue]) { m.put("connection_reason", connectionReason) }
    }

    /// `kicked`: a newer login with the same uid took the session; the connection closes (4001).
    public struct Kicked: SignalingMessage {
        public static let type = "kicked"
        /// -17, Agora's ERR_JOIN_CHANNEL_REJECTED.
        public var code: Int64?
        /// `same_uid_login`.
        public var reason: String?
        /// Agora's CONNECTION_CHANGED_SAME_UID_LOGIN (19).
        public var connectionReason: Int64?
        public init(code: Int64? = -17, reason: String? = "same_uid_login", connectionReason: Int64? = 19) {
            self.code = code
            self.reason = reason
            self.connectionReason = connectionReason
        }
        public init(_ f: MessageFields) throws(SignalingFailure) {
            code = f.lenientInteger("code")
            reason = f.lenientString("reason")
            connectionReason = f.lenientInteger("connection_reason")
        }
        public func encode(into m: inout [String: JSONValue]) {
            m.put("code", code)
            m.put("reason", reason)
            m.put("connection_reason", connectionReason)
        }
    }
}

/// Every server → client message, replies and notices, by type.
public enum SignalingEvent: Equatable, Sendable {
    case joined(Signaling.Joined)
    case resumed(Signaling.Resumed)
    case left(Signaling.Left)
    case roleChanged(Signaling.RoleChanged)
    case tokenRenewed(Signaling.TokenRenewed)
    case accountRegistered(Signaling.AccountRegistered)
    case pong(Signaling.Pong)
    case preloaded(Signaling.Preloaded)
    case error(Signaling.ErrorReply)
    case userJoined(Signaling.UserJoined)
    case userOffline(Signaling.UserOffline)
    case userInfo(Signaling.UserInfo)
    case userMuteAudio(Signaling.UserMuteAudio)
    case userMuteVideo(Signaling.UserMuteVideo)
    case streamAdded(Signaling.StreamAdded)
    case subscribeFallback(Signaling.SubscribeFallback)
    case tokenWillExpire(Signaling.TokenWillExpire)
    case tokenExpired(Signaling.TokenExpired)
    case kicked(Signaling.Kicked)
    /// A type this side does not know (later revisions may add some): ignored.
    case unknown(String)

    /// Reads a server message as a client does: any `v`, a string `type`
    /// (`bad_field:type`), then the type's fields (a field the client needs
    /// missing: `bad_field:<key>`).
    public init(_ f: MessageFields) throws(SignalingFailure) {
        let type = try f.string("type")
        switch type {
        case Signaling.Joined.type: self = .joined(try .init(f))
        case Signaling.Resumed.type: self = .resumed(try .init(f))
        case Signaling.Left.type: self = .left(try .init(f))
        case Signaling.RoleChanged.type: self = .roleChanged(try .init(f))
        case Signaling.TokenRenewed.type: self = .tokenRenewed(try .init(f))
        case Signaling.AccountRegistered.type: self = .accountRegistered(try .init(f))
        case Signaling.Pong.type: self = .pong(try .init(f))
        case Signaling.Preloaded.type: self = .preloaded(try .init(f))
        case Signaling.ErrorReply.type: self = .error(try .init(f))
        case Signaling.UserJoined.type: self = .userJoined(try .init(f))
        case Signaling.UserOffline.type: self = .userOffline(try .init(f))
        case Signaling.UserInfo.type: self = .userInfo(try .init(f))
        case Signaling.UserMuteAudio.type: self = .userMuteAudio(try .init(f))
        case Signaling.UserMuteVideo.type: self = .userMuteVideo(try .init(f))
        case Signaling.StreamAdded.type: self = .streamAdded(try .init(f))
        case Signaling.SubscribeFallback.type: self = .subscribeFallback(try .init(f))
        case Signaling.TokenWillExpire.type: self = .tokenWillExpire(try .init(f))
        case Signaling.TokenExpired.type: self = .tokenExpired(try .init(f))
        case Signaling.Kicked.type: self = .kicked(try .init(f))
        default: self = .unknown(type)
        }
    }

    /// The message inside; nil for an unknown type.
    public var message: (any SignalingMessage)? {
        switch self {
        case .joined(let m): m
        case .resumed(let m): m
        case .left(let m): m
        case .roleChanged(let m): m
        case .tokenRenewed(let m): m
        case .accountRegistered(let m): m
        case .pong(let m): m
        case .preloaded(let m): m
        case .error(let m): m
        case .userJoined(let m): m
        case .userOffline(let m): m
        case .userInfo(let m): m
        case .userMuteAudio(let m): m
        case .userMuteVideo(let m): m
        case .streamAdded(let m): m
        case .subscribeFallback(let m): m
        case .tokenWillExpire(let m): m
        case .tokenExpired(let m): m
        case .kicked(let m): m
        case .unknown: nil
        }
    }
}
