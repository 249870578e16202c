import AgoraishWire
import Glibc

/// Everything the server needs to know before it starts: apps, listen
/// addresses, limits and timeouts. Built from a file, the environment and
/// flags by `apply(file:)`, `applyEnvironment()` and `apply(arguments:)`
/// (see docs/server.md).
public struct ServerConfig: Sendable, Equatable {
    /// One registered app.
    public struct App: Sendable, Equatable {
        /// The app certificate (32 hex characters), or nil: no token needed
        /// (Agora's testing mode; any token, even empty, is accepted).
        public var certificate: String?
        /// Co-host authentication: publishing needs the publish privileges of the token.
        public var enforcePublishPrivileges: Bool

        /// An app with `certificate` (nil for testing mode).
        public init(certificate: String?, enforcePublishPrivileges: Bool = false) {
            self.certificate = certificate
            self.enforcePublishPrivileges = enforcePublishPrivileges
        }
    }

    /// Registered apps by app id.
    public var apps: [String: App] = [:]
    /// Whether app ids missing from `apps` are accepted in testing mode.
    public var acceptUnknownApps = false
    /// Signaling listen address (WebSocket over TCP).
    public var signalingHost = "127.0.0.1"
    /// Signaling port; 0 picks a free port.
    public var signalingPort: UInt16 = 7450
    /// UDP media port; nil uses the number of the bound signaling port (falling
    /// back to a free port when that UDP port is taken); 0 picks a free port.
    public var mediaPort: UInt16? = nil
    /// The host clients are told to send media to; nil uses `signalingHost`
    /// (or 127.0.0.1 when that is a wildcard address).
    public var mediaAdvertisedHost: String? = nil
    /// The SRTP profile offered to clients.
    public var srtpProfile: SrtpProfile = .aeadAes128Gcm
    /// Forwarding threads; channels are spread over them. Defaults to the number of CPUs.
    public var mediaWorkers: Int = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    /// HTTP port for /metrics and /status; 0 picks a free port; nil disables it.
    public var httpPort: UInt16? = 7451
    /// TLS certificate and key files (PEM); both set enables wss://.
    public var tlsCertificateFile: String? = nil
    /// TLS private key file (PEM).
    public var tlsKeyFile: String? = nil
    /// Most channels at once.
    public var maxChannels = 10_000
    /// Most users in one channel.
    public var maxUsersPerChannel = 1_000
    /// Largest signaling message, in bytes.
    public var maxMessageBytes = 64 * 1024
    /// Most user accounts registered per app (register_account and account joins).
    public var maxAccountsPerApp = 100_000
    /// Most open TCP connections (signaling and HTTP) at once. What
    /// `maxUnauthenticatedConnections` and `maxHTTPConnections` leave of it is
    /// the reserve that only connections carrying a session can use, so
    /// sessions that resume, `/status` and `/metrics` still get in at the limit.
    public var maxConnections = 10_000
    /// Most signaling connections without a session at once. A new one past
    /// this closes the oldest of them (4009), so a client can always get in to join.
    public var maxUnauthenticatedConnections = 2_000
    /// Most HTTP connections (`/status`, `/metrics`) at once, and from one address.
    public var maxHTTPConnections = 64
    public var maxHTTPConnectionsPerAddress = 8
    /// Most TCP connections from one address (signaling and HTTP).
    public var maxConnectionsPerAddress = 256
    /// Most signaling connections without a session from one address.
    public var maxUnauthenticatedPerAddress = 32
    /// Joins, resumes and account registrations accepted per remote address per second.
    public var joinsPerSecondPerAddress = 20
    /// Signaling messages (WebSocket pings included) one connection may send
    /// per second, on average; a message costs one, plus one per full KiB, plus one per 64 JSON values ...
    public var messagesPerSecond = 50
    /// ... and in a burst. Past the budget the server stops reading the
    /// connection until the budget refills (TCP pushes back on the client).
    public var messageBurst = 200
    /// Messages per second and burst of all connections of one address together.
    public var messagesPerSecondPerAddress = 500
    public var messageBurstPerAddress = 1_000
    /// A connection held back by its budget this long without a pause closes (4008).
    public var throttleCloseAfter: Duration = .seconds(10)
    /// Bytes read from one connection per turn of the event loop.
    public var readBytesPerTurn = 32 * 1024
    /// Most object members (all objects of the message together) in one
    /// signaling message; more is refused before parsing (-2 `too_complex`).
    public var maxMessageKeys = 64
    /// Deepest nesting of objects and arrays in one signaling message.
    public var maxMessageDepth = 8
    /// Unsent bytes queued for one connection; a client that does not read
    /// past this is closed (`slow_reader`).
    public var maxOutputBytes = 1 << 20
    /// Echo tests and last-mile probes at once (they are private sessions:
    /// they do not count against `maxChannels`) ...
    public var maxPrivateSessions = 1_000
    /// ... per remote address, per app ...
    public var maxPrivateSessionsPerAddress = 4
    public var maxPrivateSessionsPerApp = 500
    /// ... and how long one may last.
    public var privateSessionLifetime: Duration = .seconds(120)
    /// Accounts registered by connections that hold no session, per app: kept
    /// first come first dropped, promoted to the app's table by an account join.
    public var maxProvisionalAccountsPerApp = 10_000
    /// A WebSocket upgrade (or HTTP request) must be complete within this.
    public var handshakeTimeout: Duration = .seconds(10)
    /// A signaling connection without a session (never joined, or since its
    /// session ended) is closed after this (4003).
    public var authenticationTimeout: Duration = .seconds(30)
    /// How often the media plane checks that an address still wants what it
    /// is sent (RFC 7675 consent freshness; randomized ±20 %).
    public var consentInterval: Duration = .seconds(5)
    /// Nothing more is sent to an address that has not answered a consent
    /// check for this long; new addresses are sent nothing before they answer one
    /// (or prove themselves with authenticated SRTP after a new binding).
    public var consentTimeout: Duration = .seconds(30)
    /// Last-mile probe packets to a client: at most this many times the bytes
    /// the client's session sent the server (10: an access link as lopsided as
    /// 1:8 can still measure its downlink) ...
    public var probeAmplification = 10
    /// ... and at most this rate to one address (bps), whatever its sessions asked.
    public var maxProbeBitratePerAddress = 5_000_000
    /// When set, `/status` and `/metrics` need `Authorization: Bearer <token>`.
    public var adminToken: String? = nil
    /// The HTTP listener's host; nil uses `signalingHost`.
    public var httpHost: String? = nil
    /// How often clients should ping.
    public var keepaliveInterval: Duration = .seconds(2)
    /// Silence after which a user is dropped (others see onUserOffline DROPPED).
    /// A user whose signaling breaks may resume within this window unseen.
    public var dropTimeout: Duration = .seconds(20)
    /// How long before the join privilege expires the client is told (docs/tokens.md).
    public var tokenWillExpireLead: Int64 = 30

    /// The defaults: loopback, port 7450, no registered apps.
    public init() {}

    /// The app entry for `appId`, honouring `acceptUnknownApps`.
    public func app(_ appId: String) -> App? {
        if let app = apps[appId] { return app }
        return acceptUnknownApps ? App(certificate: nil) : nil
    }
}
