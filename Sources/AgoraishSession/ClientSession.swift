import AgoraishWire

/// One engine's life in channels, sans-IO: join, leave, role changes, tokens,
/// user accounts, keepalive and automatic reconnection (docs/protocol.md is
/// the other side of this conversation).
///
/// The engine shell feeds it API calls, transport events, received text and
/// the time; it drains transport actions (`pollTransmit`), API events
/// (`pollEvent`) and the next deadline (`pollTimeout`).
public struct ClientSession {
    /// What the shell must do with the signaling transport.
    public enum Transmit: Equatable, Sendable {
        /// Open a WebSocket to the server (closing any current one first).
        case connect
        /// Send one text message.
        case send(String)
        /// Close the WebSocket.
        case close
    }

    /// Events for the host (Agora's IRtcEngineEventHandler callbacks).
    public enum Event: Equatable, Sendable {
        case joinChannelSuccess(channel: String, uid: UInt32, elapsedMs: Int32)
        case rejoinChannelSuccess(channel: String, uid: UInt32, elapsedMs: Int32)
        case leaveChannel(CallStats)
        case userJoined(uid: UInt32, elapsedMs: Int32)
        case userOffline(uid: UInt32, reason: Int32)
        case clientRoleChanged(old: Int32, new: Int32)
        case connectionStateChanged(ConnectionState, ConnectionChangedReason)
        case connectionLost
        case tokenPrivilegeWillExpire(token: String)
        case requestToken
        case localUserRegistered(uid: UInt32, account: String)
        case userInfoUpdated(uid: UInt32, account: String)
        case error(code: Int32, message: String)
        /// A remote user muted or unmuted its audio (onUserMuteAudio).
        case userMuteAudio(uid: UInt32, muted: Bool)
        /// A remote user muted or unmuted its video stream (onUserMuteVideo).
        case userMuteVideo(uid: UInt32, muted: Bool)
        /// A remote user enabled or disabled video (onUserEnableVideo).
        case userEnableVideo(uid: UInt32, enabled: Bool)
        /// A remote user enabled or disabled its local video (onUserEnableLocalVideo).
        case userEnableLocalVideo(uid: UInt32, enabled: Bool)
        /// A pre-call test's private channel (echo test, last-mile probe) was
        /// joined (instead of onJoinChannelSuccess).
        case preCallTestStarted
        /// A pre-call test's private channel was left (instead of onLeaveChannel).
        case preCallTestEnded
        /// The server forwards only `uid`'s audio because of our downlink (or its video again).
        case subscribeFallback(uid: UInt32, audioOnly: Bool)
        /// A remote user's video stopped or resumed for any of the three reasons above.
        case remoteVideoPaused(uid: UInt32, paused: Bool)
        /// The server gave (new) media credentials: start or restart the media transport.
        case mediaReady(MediaEndpoint)
        /// The call ended or failed: stop the media transport.
        case mediaStopped
    }

    /// Where and how to send media (the "media" object of joined / resumed).
    public typealias MediaEndpoint = MediaOffer

    /// Timing and identity settings.
    public struct Settings: Sendable {
        /// The app id sent with joins.
        public var appId: String
        /// onConnectionLost after this long without a working link (Agora: 10 s).
        public var lostTimeout: Duration = .seconds(10)
        /// Reconnect delays, growing; the last repeats.
        public var backoff: [Duration] = [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4)]
        /// How long `leave` waits for the server's answer before finishing anyway.
        public var leaveTimeout: Duration = .seconds(2)
        /// The link counts as dead after this long without any message (a few keepalives).
        public var silenceTimeout: Duration = .seconds(8)
        /// How long the TCP connect plus the WebSocket handshake may take.
        public var connectTimeout: Duration = .seconds(5)
        /// Agora's AREA_CODE, reported to the server with each join.
        public var areaCode: UInt32 = 0xFFFF_FFFF

        /// Settings for `appId` with the default timings.
        public init(appId: String) { self.appId = appId }
    }

    /// The current connection state.
    public internal(set) var state: ConnectionState = .disconnected
    /// The reason of the last state change.
    public internal(set) var stateReason: ConnectionChangedReason = .connecting
    /// The channel profile (0 communication, 1 live broadcasting).
    public internal(set) var profile: Int64 = 0
    /// The client role (1 broadcaster, 2 audience; audience by default, as Agora:
    /// it only matters in live broadcasting, where everyone else is visible to all).
    public internal(set) var role: Int64 = 2
    /// The local uid once joined (0 before).
    public internal(set) var localUid: UInt32 = 0
    /// The call id of the current or last call.
    public internal(set) var callId: String? = nil
    /// Remote users this client sees, by uid.
    public internal(set) var remoteUsers: Set<UInt32> = []
    /// The media credentials of the current call, if any.
    public internal(set) var media: MediaEndpoint? = nil
    /// Server SSRC -> publisher uid, for the streams of visible users.
    public internal(set) var streamOwners: [UInt32: UInt32] = [:]
    /// uid <-> account pairs learned so far (getUserInfoBy*).
    public internal(set) var accountsByUid: [UInt32: String] = [:]
    /// Whether the local user's audio is muted for the others.
    public internal(set) var localAudioMuted = false
    /// Whose audio the local user receives.
    public internal(set) var audioPolicy = AudioReceivePolicy()
    /// Users whose audio is not received whatever the policy says: the spatial
    /// audio engine's muted, out-of-range and over-count users.
    public internal(set) var audioExcluded: Set<UInt32> = []
    /// Nobody's audio is received whatever the policy says (the spatial audio engine's muteAllRemoteAudioStreams).
    public internal(set) var audioExcludeAll = false
    /// Remote users who muted their audio.
    public internal(set) var remoteAudioMuted: Set<UInt32> = []
    /// Whether the local user's video is muted for the others.
    public internal(set) var localVideoMuted = false
    /// Whose video the local user receives (the same rules as audio).
    public internal(set) var videoPolicy = AudioReceivePolicy()
    /// Remote users whose video is off (muted, disabled or stopped).
    public internal(set) var remoteVideoMuted: Set<UInt32> = []
    /// Each remote user's video switches as last told: (enabled, local enabled, stream muted).
    public internal(set) var remoteVideoFlags: [UInt32: VideoFlags] = [:]
    /// The local video switches, and the SSRCs sent (low: 0 without dual stream).
    public internal(set) var localVideoFlags = VideoFlags()
    public internal(set) var localVideoSsrcs: (high: UInt32, low: UInt32) = (0, 0)
    /// Fast start for the joins on the current transport: set by the shell
    /// when it hands the session a preloaded connection (preloadChannel), so
    /// the server sends the newest audio packets at once (docs/protocol.md).
    public var fastStart = false
    /// Whether a channel (or the echo test's) is joined or being joined, and not being left.
    public var inChannel: Bool { channel != nil && !leaving }
    /// The channel joined or being joined, nil outside one.
    public var channelName: String? { inChannel ? channel : nil }
    /// The uid the join asked for (0: the server picks one).
    public var joinUid: UInt32 { requestedUid }
    /// The user account the join asked for (nil: a uid join).
    public var joinAccount: String? { account }
    /// The app id the session joins with.
    public var appId: String { settings.appId }
    /// The echo test running (startEchoTest): the delay, in ms, after which the
    /// server plays the user's audio back; nil otherwise.
    public internal(set) var echoIntervalMs: Int? = nil
    /// The last-mile probe running (startLastmileProbeTest, enableLastmileTest):
    /// its private channel, in which the server measures what the user sends
    /// and sends probes on request (`probe_downlink`).
    public internal(set) var probeTest = false
    /// Whether a pre-call test (echo or probe) holds the channel.
    public var inPreCallTest: Bool { echoIntervalMs != nil || probeTest }
    /// Joined a channel (also while reconnecting) and not leaving it, outside pre-call tests.
    public var isInCall: Bool { joinedAt != nil && !leaving && !inPreCallTest }
    /// Server SSRCs that are the low stream of a dual-stream publisher.
    public internal(set) var lowVideoStreams: Set<UInt32> = []
    /// Server SSRCs of video streams other than publishers' high ones -> their
    /// layer (`VideoStreamLayer`: 1 low, 4...9 simulcast layers).
    public internal(set) var videoStreamLayers: [UInt32: UInt8] = [:]
    /// The simulcast layers the local user sends (setSimulcastConfig), told with the video state.
    public internal(set) var localVideoLayers: [Signaling.LayerStream] = []
    /// Whether layers were ever told (then an empty list is told too, to end them).
    var localVideoLayersTold = false
    /// Server RTX SSRC -> the server SSRC of the video stream it retransmits.
    public internal(set) var rtxVideoStreams: [UInt32: UInt32] = [:]
    /// The RTX SSRCs of the local video streams (low: 0 without dual stream).
    public internal(set) var localVideoRtxSsrcs: (high: UInt32, low: UInt32) = (0, 0)
    /// The local audio stream's SSRC and the SSRC of its retransmissions (set once by the engine).
    public var localAudioSsrcs: (ssrc: UInt32, rtx: UInt32) = (0, 0)
    /// The reliable data stream's SSRC and its retransmissions' (RFC 4588), sent with the audio state.
    public var localDataSsrcs: (ssrc: UInt32, rtx: UInt32) = (0, 0)

    var settings: Settings
    var channel: String? = nil
    var token = ""
    var requestedUid: UInt32 = 0
    var account: String? = nil
    var session: (id: Int64, resumeToken: String)? = nil
    var joinCalledAt = Instant(nanoseconds: 0)
    var joinedAt: Instant? = nil
    var transportOpen = false
    var transportWanted = false
    var leaving = false
    var nextId: Int64 = 1
    var pending: [Int64: Request] = [:]
    var pendingAccounts: [String] = []
    var keepaliveInterval: Duration = .seconds(2)
    var lastReceived = Instant(nanoseconds: 0)
    var nextPing: Instant? = nil
    var reconnectAt: Instant? = nil
    var connectDeadline: Instant? = nil
    var attempt = 0
    var lostAt: Instant? = nil
    var leaveDeadline: Instant? = nil
    var stats = CallStats()
    var pendingSwitch: (token: String, channel: String, uid: UInt32, account: String?)? = nil
    var transmits: [Transmit] = []
    var events: [Event] = []

    enum Request: Equatable {
        case join(rejoin: Bool)
        case resume
        case leave
        case setRole(Int64)
        case renew(String)
        case register(String)
        case ping
    }

    /// A session for `settings.appId`, disconnected.
    public init(settings: Settings) { self.settings = settings }
}

/// Why an API call was refused synchronously (mapped to Agora's codes by the engine).
public enum SessionError: Error, Equatable, Sendable {
    case invalidArgument
    case invalidChannelName
    case invalidUserAccount
    case alreadyInChannel
    case notInChannel
    case refused

    /// The negated Agora error code.
    public var code: Int32 {
        switch self {
        case .invalidArgument: -2
        case .invalidChannelName: -102
        case .invalidUserAccount: -134
        case .alreadyInChannel: -17
        case .notInChannel: -113
        case .refused: -5
        }
    }
}
