/// Client → server messages (docs/protocol.md, Client → server messages).
/// Each reads its fields in the documented order with the server's rules;
/// what a field means for a session (tokens, budgets, accounts) is checked by
/// the server after reading.
extension Signaling {
    /// `join`: a channel, an echo test (`echoMs`) or a last-mile probe (`probe`).
    public struct Join: SignalingMessage {
        public static let type = "join"
        public var appId: String
        public var channel: String
        /// An RTC token; "" for apps without a certificate.
        public var token: String
        /// The uid wanted (0: the server chooses). Written only without an account.
        public var uid: UInt32
        /// Join with a user account instead of a uid.
        public var account: String?
        public var profile: ChannelProfile
        public var role: ClientRole
        /// Agora's AREA_CODE (informational).
        public var areaCode: UInt32?
        /// An echo test's delay, in ms (2000...10000).
        public var echoMs: Int?
        /// A last-mile probe (written only when true).
        public var probe: Bool
        /// Fast start (written only when true): when the client's media
        /// address is first bound, the server sends it the newest packet of
        /// each audio stream it receives, so that playout starts without
        /// waiting for the publishers' next packets (docs/protocol.md, Quick switch).
        public var fastStart: Bool
        /// A browser (written only when true): the session's media is negotiated
        /// with `webrtc_offer` and keyed by DTLS-SRTP, not by the `media` keys.
        public var webrtc: Bool

        public init(appId: String, channel: String, token: String = "", uid: UInt32 = 0, account: String? = nil,
                    profile: ChannelProfile = .communication, role: ClientRole = .broadcaster, areaCode: UInt32? = nil,
                    echoMs: Int? = nil, probe: Bool = false, fastStart: Bool = false, webrtc: Bool = false) {
            self.appId = appId
            self.channel = channel
            self.token = token
            self.uid = uid
            self.account = account
            self.profile = profile
            self.role = role
            self.areaCode = areaCode
            self.echoMs = echoMs
            self.probe = probe
            self.fastStart = fastStart
            self.webrtc = webrtc
        }

        public init(_ f: MessageFields) throws(SignalingFailure) {
            appId = try f.string("app_id")
            channel = try f.string("channel")
            token = try f.optionalString("token") ?? ""
            uid = UInt32(try f.optionalInteger("uid", in: 0...Int64(UInt32.max)) ?? 0)
            account = try f.optionalString("account")
            profile = ChannelProfile(rawValue: try f.optionalInteger("profile", in: 0...1) ?? 0)!
            role = ClientRole(rawValue: try f.optionalInteger("role", in: 1...2) ?? 1)!
            areaCode = try f.optionalInteger("area_code", in: 0...Int64(UInt32.max)).map { UInt32($0) }
            echoMs = try f.optionalInteger("echo_ms", in: 2000...10_000).map { Int($0) }
            probe = try f.optionalBool("probe") ?? false
            fastStart = try f.optionalBool("fast_start") ?? false
            webrtc = try f.optionalBool("webrtc") ?? false
            // An echo test or a probe, not both.
            guard echoMs == nil || !probe else { throw .badField("probe") }
        }

        public func encode(into m: inout [String: JSONValue]) {
            m["app_id"] = .string(appId)
            m["channel"] = .string(channel)
            m["token"] = .string(token)
            if let account { m["account"] = .string(account) } else { m["uid"] = .integer(Int64(uid)) }
            m["profile"] = .integer(profile.rawValue)
            m["role"] = .integer(role.rawValue)
            m.put("area_code", areaCode)
            m.put("echo_ms", echoMs.map { Int64($0) })
            if probe { m["probe"] = .bool(true) }
            if fastStart { m["fast_start"] = .bool(true) }
            if webrtc { m["webrtc"] = .bool(true) }
        }
    }

    /// `webrtc_offer`: a browser's SDP offer (docs/protocol.md), and which
    /// server stream each of its receiving m-sections is to carry.
    public struct WebRtcOffer: SignalingMessage {
        public static let type = "webrtc_offer"
        /// One receiving m-section: its mid, the server's SSRC of the stream
        /// it carries and that stream's RTX SSRC (0: none).
        public struct Receive: Equatable, Sendable {
            public var mid: String
            public var ssrc: UInt32
            public var rtxSsrc: UInt32
            public init(mid: String, ssrc: UInt32, rtxSsrc: UInt32 = 0) {
                self.mid = mid
                self.ssrc = ssrc
                self.rtxSsrc = rtxSsrc
            }
        }
        /// At most this many receiving m-sections in one offer.
        public static let maxReceive = 64
        /// The offer's SDP text.
        public var sdp: String
        public var receive: [Receive]

        public init(sdp: String, receive: [Receive] = []) {
            self.sdp = sdp
            self.receive = receive
        }

        /// `receive`: at most `maxReceive` objects, each with a `mid` of 1...32
        /// bytes and a non-zero `ssrc`; no mid and no SSRC twice.
        public init(_ f: MessageFields) throws(SignalingFailure) {
            sdp = try f.string("sdp")
            receive = []
            guard let v = f.members["receive"], v != .null else { return }
            guard case .array(let items) = v, items.count <= Self.maxReceive else { throw .badField("receive") }
            for item in items {
                guard case .object(let o) = item else { throw .badField("receive") }
                let g = MessageFields(o)
                guard let mid = g.lenientString("mid"), (1...32).contains(mid.utf8.count),
                      let ssrc = g.lenientUInt32("ssrc"), ssrc != 0,
                      !receive.contains(where: { $0.mid == mid || $0.ssrc == ssrc }) else { throw .badField("receive") }
                let rtx: UInt32
                if let r = g.members["rtx_ssrc"], r != .null {
                    guard let n = g.lenientUInt32("rtx_ssrc") else { throw .badField("receive") }
                    rtx = n
                } else {
                    rtx = 0
                }
                receive.append(Receive(mid: mid, ssrc: ssrc, rtxSsrc: rtx))
            }
        }

        public func encode(into m: inout [String: JSONValue]) {
            m["sdp"] = .string(sdp)
            m["receive"] = .array(receive.map {
                .object(["mid": .string($0.mid), "ssrc": .integer(Int64($0.ssrc)), "rtx_ssrc": .integer(Int64($0.rtxSsrc))])
            })
        }
    }

    /// `preload` (Agora's preloadChannel): checks ahead of a join that the
    /// app, the channel name and the token would admit `uid`, on a connection
    /// that holds no session. Answered with `preloaded` or an error; the
    /// connection then waits for its `join` (`authentication_ms`).
    public struct Preload: SignalingMessage {
        public static let type = "preload"
        public var appId: String
        public var channel: String
        public var token: String
        public var uid: UInt32

        public init(appId: String, channel: String, token: String = "", uid: UInt32 = 0) {
            self.appId = appId
            self.channel = channel
            self.token = token
            self.uid = uid
        }

        public init(_ f: MessageFields) throws(SignalingFailure) {
            appId = try f.string("app_id")
            channel = try f.string("channel")
            token = try f.optionalString("token") ?? ""
            uid = UInt32(try f.optionalInteger("uid", in: 0...Int64(UInt32.max)) ?? 0)
        }

        public func encode(into m: inout [String: JSONValue]) {
            m["app_id"] = .string(appId)
            m["channel"] = .string(channel)
            m["token"] = .string(token)
            m["uid"] = .integer(Int64(uid))
        }
    }

    /// `leave`: no fields.
    public struct Leave: SignalingMessage {
        public static let type = "leave"
        public init() {}
        public init(_ f: MessageFields) throws(SignalingFailure) {}
        public func encode(into m: inout [String: JSONValue]) {}
    }

    /// `set_role`.
    public struct SetRole: SignalingMessage {
        public static let type = "set_role"
        public var role: ClientRole
        public init(role: ClientRole) { self.role = role }
        public init(_ f: MessageFields) throws(SignalingFailure) {
            role = ClientRole(rawValue: try f.integer("role", in: 1...2))!
        }
        public func encode(into m: inout [String: JSONValue]) { m["role"] = .integer(role.rawValue) }
    }

    /// `renew_token`.
    public struct RenewToken: SignalingMessage {
        public static let type = "renew_token"
        public var token: String
        public init(token: String) { self.token = token }
        public init(_ f: MessageFields) throws(SignalingFailure) { token = try f.string("token") }
        public func encode(into m: inout [String: JSONValue]) { m["token"] = .string(token) }
    }

    /// `resume`: reattach a session after a broken connection.
    public struct Resume: SignalingMessage {
        public static let type = "resume"
        /// The `session` of `joined` (1...Int64.max).
        public var session: UInt64
        public var resumeToken: String
        /// The token the session holds ("" for apps without a certificate).
        public var token: String
        public init(session: UInt64, resumeToken: String, token: String = "") {
            self.session = session
            self.resumeToken = resumeToken
            self.token = token
        }
        public init(_ f: MessageFields) throws(SignalingFailure) {
            session = UInt64(try f.integer("session", in: 1...Int64.max))
            resumeToken = try f.string("resume_token")
            token = try f.optionalString("token") ?? ""
        }
        public func encode(into m: inout [String: JSONValue]) {
            m["session"] = .integer(Int64(clamping: session))
            m["resume_token"] = .string(resumeToken)
            m["token"] = .string(token)
        }
    }

    /// `register_account`: learn an account's uid.
    public struct RegisterAccount: SignalingMessage {
        public static let type = "register_account"
        public var appId: String
        public var account: String
        public init(appId: String, account: String) {
            self.appId = appId
            self.account = account
        }
        public init(_ f: MessageFields) throws(SignalingFailure) {
            appId = try f.string("app_id")
            account = try f.string("account")
        }
        public func encode(into m: inout [String: JSONValue]) {
            m["app_id"] = .string(appId)
            m["account"] = .string(account)
        }
    }

    /// `ping`: no fields.
    public struct Ping: SignalingMessage {
        public static let type = "ping"
        public init() {}
        public init(_ f: MessageFields) throws(SignalingFailure) {}
        public func encode(into m: inout [String: JSONValue]) {}
    }

    /// `set_audio_state`: the session's audio mute, and the SSRCs its
    /// retransmissions (RFC 4588) repair.
    public struct SetAudioState: SignalingMessage {
        public static let type = "set_audio_state"
        public var muted: Bool
        /// The audio stream's SSRC and its RTX SSRC (the sender's own numbers).
        public var ssrc: UInt32?
        public var rtxSsrc: UInt32?
        /// The reliable data stream's SSRC and its RTX SSRC.
        public var dataSsrc: UInt32?
        public var dataRtxSsrc: UInt32?

        public init(muted: Bool, ssrc: UInt32? = nil, rtxSsrc: UInt32? = nil, dataSsrc: UInt32? = nil,
                    dataRtxSsrc: UInt32? = nil) {
            self.muted = muted
            self.ssrc = ssrc
            self.rtxSsrc = rtxSsrc
            self.dataSsrc = dataSsrc
            self.dataRtxSsrc = dataRtxSsrc
        }

        public init(_ f: MessageFields) throws(SignalingFailure) {
            muted = try f.bool("muted")
            ssrc = try f.optionalSsrc("ssrc")
            rtxSsrc = try f.optionalSsrc("rtx_ssrc")
            dataSsrc = try f.optionalSsrc("data_ssrc")
            dataRtxSsrc = try f.optionalSsrc("data_rtx_ssrc")
        }

        public func encode(into m: inout [String: JSONValue]) {
            m["muted"] = .bool(muted)
            m.put("ssrc", ssrc)
            m.put("rtx_ssrc", rtxSsrc)
            m.put("data_ssrc", dataSsrc)
            m.put("data_rtx_ssrc", dataRtxSsrc)
        }

        /// RTX SSRC -> the SSRC it repairs: each pair whose two numbers are
        /// present, non-zero and different (a data pair whose RTX SSRC is the audio's is ignored).
        public var retransmissionPairs: [UInt32: UInt32] {
            var pairs: [UInt32: UInt32] = [:]
            if let ssrc, let rtxSsrc, ssrc != 0, rtxSsrc != 0, rtxSsrc != ssrc { pairs[rtxSsrc] = ssrc }
            if let dataSsrc, let dataRtxSsrc, dataSsrc != 0, dataRtxSsrc != 0, dataRtxSsrc != dataSsrc,
               pairs[dataRtxSsrc] == nil { pairs[dataRtxSsrc] = dataSsrc }
            return pairs
        }
    }

    /// `set_video_state`: whether the session's video is stopped, the three
    /// switches behind it, and the SSRCs of its (dual) streams and their retransmissions.
    public struct SetVideoState: SignalingMessage {
        public static let type = "set_video_state"
        /// Stopped for the others, for any reason.
        public var muted: Bool
        public var enabled: Bool?
        public var localEnabled: Bool?
        public var streamMuted: Bool?
        /// The low stream's SSRC (0: none) and the high stream's.
        public var lowSsrc: UInt32?
        public var ssrc: UInt32?
        /// The RTX SSRCs of the high and the low stream.
        public var rtxSsrc: UInt32?
        public var lowRtxSsrc: UInt32?
        /// The simulcast layers sent besides the high and low streams (nil: not told; [] none).
        public var layers: [LayerStream]?

        public init(muted: Bool, switches: VideoFlags? = nil, ssrc: UInt32? = nil, lowSsrc: UInt32? = nil,
                    rtxSsrc: UInt32? = nil, lowRtxSsrc: UInt32? = nil, layers: [LayerStream]? = nil) {
            self.layers = layers
            self.muted = muted
            enabled = switches?.enabled
            localEnabled = switches?.localEnabled
            streamMuted = switches?.streamMuted
            self.lowSsrc = lowSsrc
            self.ssrc = ssrc
            self.rtxSsrc = rtxSsrc
            self.lowRtxSsrc = lowRtxSsrc
        }

        public init(_ f: MessageFields) throws(SignalingFailure) {
            muted = try f.bool("muted")
            enabled = try f.optionalBool("enabled")
            localEnabled = try f.optionalBool("local_enabled")
            streamMuted = try f.optionalBool("stream_muted")
            lowSsrc = try f.optionalSsrc("low_ssrc")
            ssrc = try f.optionalSsrc("ssrc")
            rtxSsrc = try f.optionalSsrc("rtx_ssrc")
            lowRtxSsrc = try f.optionalSsrc("low_rtx_ssrc")
            layers = try LayerStream.list(f, "layers")
        }

        public func encode(into m: inout [String: JSONValue]) {
            m["muted"] = .bool(muted)
            m.put("enabled", enabled)
            m.put("local_enabled", localEnabled)
            m.put("stream_muted", streamMuted)
            m.put("low_ssrc", lowSsrc)
            m.put("ssrc", ssrc)
            m.put("rtx_ssrc", rtxSsrc)
            m.put("low_rtx_ssrc", lowRtxSsrc)
            if let layers { m["layers"] = .array(layers.map(\.json)) }
        }

        /// The switches, when all three were told.
        public var switches: VideoFlags? {
            guard let enabled, let localEnabled, let streamMuted else { return nil }
            return VideoFlags(enabled: enabled, localEnabled: localEnabled, streamMuted: streamMuted)
        }

        /// RTX SSRC -> the video SSRC it repairs (RFC 4588 §5: one RTX SSRC per stream).
        public var retransmissionPairs: [UInt32: UInt32] {
            var pairs: [UInt32: UInt32] = [:]
            if let ssrc, let rtxSsrc, ssrc != 0, rtxSsrc != 0, rtxSsrc != ssrc { pairs[rtxSsrc] = ssrc }
            if let lowSsrc, let lowRtxSsrc, lowSsrc != 0, lowRtxSsrc != 0, lowRtxSsrc != lowSsrc { pairs[lowRtxSsrc] = lowSsrc }
            for l in layers ?? [] where l.rtxSsrc != 0 && l.rtxSsrc != l.ssrc { pairs[l.rtxSsrc] = l.ssrc }
            return pairs
        }
    }

    /// `set_audio_subscription`: whose audio the session receives. It
    /// carries the video-only fields too (one shape for both); the server
    /// reads none of them for audio.
    public struct SetAudioSubscription: SignalingMessage {
        public static let type = "set_audio_subscription"
        public var policy: SubscriptionPolicy
        public init(_ policy: SubscriptionPolicy) { self.policy = policy }
        public init(_ f: MessageFields) throws(SignalingFailure) { policy = try SubscriptionPolicy(f, video: false) }
        public func encode(into m: inout [String: JSONValue]) { policy.encode(into: &m) }
    }

    /// `set_video_subscription`: whose video, and which stream of it, the session receives.
    public struct SetVideoSubscription: SignalingMessage {
        public static let type = "set_video_subscription"
        public var policy: SubscriptionPolicy
        public init(_ policy: SubscriptionPolicy) { self.policy = policy }
        public init(_ f: MessageFields) throws(SignalingFailure) { policy = try SubscriptionPolicy(f, video: true) }
        public func encode(into m: inout [String: JSONValue]) { policy.encode(into: &m) }
    }

    /// `probe_downlink`: probe packets at `bitrate` bps for `durationMs`.
    public struct ProbeDownlink: SignalingMessage {
        public static let type = "probe_downlink"
        /// Bits per second (100 kbps ... 5 Mbps).
        public var bitrate: Int
        /// How long, in ms (100 ... 10000).
        public var durationMs: Int
        public init(bitrate: Int = 500_000, durationMs: Int = 2000) {
            self.bitrate = bitrate
            self.durationMs = durationMs
        }
        public init(_ f: MessageFields) throws(SignalingFailure) {
            bitrate = Int(try f.optionalInteger("bitrate", in: 100_000...5_000_000) ?? 500_000)
            durationMs = Int(try f.optionalInteger("duration_ms", in: 100...10_000) ?? 2000)
        }
        public func encode(into m: inout [String: JSONValue]) {
            m["bitrate"] = .integer(Int64(bitrate))
            m["duration_ms"] = .integer(Int64(durationMs))
        }
    }
}

/// Every client → server message, by type.
public enum SignalingRequest: Equatable, Sendable {
    case join(Signaling.Join)
    case leave(Signaling.Leave)
    case setRole(Signaling.SetRole)
    case renewToken(Signaling.RenewToken)
    case resume(Signaling.Resume)
    case registerAccount(Signaling.RegisterAccount)
    case ping(Signaling.Ping)
    case setAudioState(Signaling.SetAudioState)
    case setAudioSubscription(Signaling.SetAudioSubscription)
    case setVideoState(Signaling.SetVideoState)
    case setVideoSubscription(Signaling.SetVideoSubscription)
    case probeDownlink(Signaling.ProbeDownlink)
    case preload(Signaling.Preload)
    case webrtcOffer(Signaling.WebRtcOffer)

    /// The request types. The server checks the envelope into one of these
    /// first and reads the fields only after its own checks (a session, the
    /// join rate), so the order of its errors is the documented one.
    public enum Kind: String, Sendable, CaseIterable {
        case join, leave, ping, resume
        case setRole = "set_role"
        case renewToken = "renew_token"
        case registerAccount = "register_account"
        case setAudioState = "set_audio_state"
        case setAudioSubscription = "set_audio_subscription"
        case setVideoState = "set_video_state"
        case setVideoSubscription = "set_video_subscription"
        case probeDownlink = "probe_downlink"
        case preload
        case webrtcOffer = "webrtc_offer"

        /// Checks a request's envelope: `v` must be the protocol's
        /// (`unsupported_version`), `type` a string (`bad_field:type`) naming a request (`unknown_type`).
        public init(_ f: MessageFields) throws(SignalingFailure) {
            guard f.members["v"]?.integerValue == Signaling.version else { throw .unsupportedVersion }
            let type = try f.string("type")
            guard let kind = Kind(rawValue: type) else { throw .unknownType(type) }
            self = kind
        }
    }

    /// Reads a whole request: the envelope, then the fields.
    public init(_ f: MessageFields) throws(SignalingFailure) {
        switch try Kind(f) {
        case .join: self = .join(try .init(f))
        case .leave: self = .leave(try .init(f))
        case .setRole: self = .setRole(try .init(f))
        case .renewToken: self = .renewToken(try .init(f))
        case .resume: self = .resume(try .init(f))
        case .registerAccount: self = .registerAccount(try .init(f))
        case .ping: self = .ping(try .init(f))
        case .setAudioState: self = .setAudioState(try .init(f))
        case .setAudioSubscription: self = .setAudioSubscription(try .init(f))
        case .setVideoState: self = .setVideoState(try .init(f))
        case .setVideoSubscription: self = .setVideoSubscription(try .init(f))
        case .probeDownlink: self = .probeDownlink(try .init(f))
        case .preload: self = .preload(try .init(f))
        case .webrtcOffer: self = .webrtcOffer(try .init(f))
        }
    }

    /// The message inside.
    public var message: any SignalingMessage {
        switch self {
        case .join(let m): m
        case .leave(let m): m
        case .setRole(let m): m
        case .renewToken(let m): m
        case .resume(let m): m
        case .registerAccount(let m): m
        case .ping(let m): m
        case .setAudioState(let m): m
        case .setAudioSubscription(let m): m
        case .setVideoState(let m): m
        case .setVideoSubscription(let m): m
        case .probeDownlink(let m): m
        case .preload(let m): m
        case .webrtcOffer(let m): m
        }
    }

    /// The request as it goes on the wire.
    public func text(id: Int64? = nil) -> String { message.text(id: id) }
}
