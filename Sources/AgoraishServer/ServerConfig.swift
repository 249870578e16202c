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
    public var maxMessageBytes = 16 * 1024
    /// Most user accounts registered per app (register_account and account joins).
    public var maxAccountsPerApp = 100_000
    /// Most open TCP connections (signaling and HTTP) at once.
    public var maxConnections = 10_000
    /// Joins (and account registrations) accepted per remote address per second.
    public var joinsPerSecondPerAddress = 20
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
