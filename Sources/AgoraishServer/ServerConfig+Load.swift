import AgoraishIO
import AgoraishWire
import Glibc

/// Reading a `ServerConfig` from a JSON file, the environment and
/// command-line flags, in that order of increasing precedence (docs/server.md).
extension ServerConfig {
    /// Applies a JSON configuration document.
    ///
    ///     {"listen": {"host": "127.0.0.1", "signaling_port": 7450, "http_port": 7451},
    ///      "tls": {"certificate": "cert.pem", "key": "key.pem"},
    ///      "apps": [{"app_id": "…32 hex…", "certificate": "…32 hex…", "publish_privileges": false},
    ///               {"app_id": "…32 hex…"}],
    ///      "accept_unknown_apps": false,
    ///      "limits": {"max_channels": 10000, "max_users_per_channel": 1000,
    ///                 "max_message_bytes": 16384, "joins_per_second_per_address": 20},
    ///      "timeouts": {"keepalive_ms": 2000, "drop_timeout_ms": 20000},
    ///      "admin": {"token": "…at least 16 characters…"}}
    ///
    /// Every key of `limitKeys` may appear in "limits" and of `timeoutKeys` in
    /// "timeouts" (docs/server.md, Limits and abuse).
    /// Unknown keys are errors, so a typo never silently falls back to a default.
    public mutating func apply(json text: String) throws(ServerError) {
        guard case .object(let root)? = try? JSONValue.parse(text) else { throw .config("not a JSON object") }
        try Self.checkKeys(root, ["listen", "tls", "apps", "accept_unknown_apps", "limits", "timeouts", "media", "admin"],
                           "top level")
        for section in ["listen", "tls", "limits", "timeouts", "media", "admin"] {
            if let v = root[section], case .object = v {} else if root[section] != nil {
                throw .config("\(section) must be an object")
            }
        }
        if case .object(let listen)? = root["listen"] {
            try Self.checkKeys(listen, ["host", "signaling_port", "http_port", "media_port", "media_host", "http_host"], "listen")
            if let h = listen["http_host"] { httpHost = try Self.string(h, "listen.http_host") }
            if let p = listen["media_port"] { mediaPort = try Self.port(p, "listen.media_port") }
            if let h = listen["media_host"] { mediaAdvertisedHost = try Self.string(h, "listen.media_host") }
            if let h = listen["host"] { signalingHost = try Self.string(h, "listen.host") }
            if let p = listen["signaling_port"] { signalingPort = try Self.port(p, "listen.signaling_port") }
            if let p = listen["http_port"] { httpPort = p == .null ? nil : try Self.port(p, "listen.http_port") }
        }
        if case .object(let tls)? = root["tls"] {
            try Self.checkKeys(tls, ["certificate", "key"], "tls")
            if let c = tls["certificate"] { tlsCertificateFile = try Self.string(c, "tls.certificate") }
            if let k = tls["key"] { tlsKeyFile = try Self.string(k, "tls.key") }
        }
        if let appsValue = root["apps"] {
            guard case .array(let list) = appsValue else { throw .config("apps must be a list") }
            for entry in list {
                guard case .object(let app) = entry else { throw .config("each app must be an object") }
                try Self.checkKeys(app, ["app_id", "certificate", "publish_privileges"], "apps[]")
                let id = try Self.string(app["app_id"] ?? .null, "apps[].app_id")
                var certificate: String? = nil
                if let c = app["certificate"], c != .null { certificate = try Self.string(c, "apps[].certificate") }
                var publish = false
                if let v = app["publish_privileges"] {
                    guard let b = v.boolValue else { throw .config("apps[].publish_privileges must be true or false") }
                    publish = b
                }
                try addApp(id, certificate: certificate, publishPrivileges: publish)
            }
        }
        if let v = root["accept_unknown_apps"] {
            guard let b = v.boolValue else { throw .config("accept_unknown_apps must be true or false") }
            acceptUnknownApps = b
        }
        if case .object(let limits)? = root["limits"] {
            try Self.checkKeys(limits, Set(Self.limitKeys.map(\.key)), "limits")
            for (key, path) in Self.limitKeys {
                if let v = limits[key] { self[keyPath: path] = try Self.positive(v, "limits.\(key)") }
            }
        }
        if case .object(let admin)? = root["admin"] {
            try Self.checkKeys(admin, ["token"], "admin")
            if let t = admin["token"], t != .null {
                let token = try Self.string(t, "admin.token")
                guard token.utf8.count >= 16 else { throw .config("admin.token must be at least 16 characters") }
                adminToken = token
            }
        }
        if case .object(let media)? = root["media"] {
            try Self.checkKeys(media, ["workers", "srtp_profile"], "media")
            if let v = media["workers"] { mediaWorkers = try Self.positive(v, "media.workers") }
            if let v = media["srtp_profile"] { srtpProfile = try Self.profile(try Self.string(v, "media.srtp_profile")) }
        }
        if case .object(let timeouts)? = root["timeouts"] {
            try Self.checkKeys(timeouts, Set(Self.timeoutKeys.map(\.key)), "timeouts")
            for (key, path) in Self.timeoutKeys {
                if let v = timeouts[key] { self[keyPath: path] = .milliseconds(try Self.positive(v, "timeouts.\(key)")) }
            }
        }
    }

    /// The integer settings of the "limits" section (docs/server.md, Limits and abuse).
    static var limitKeys: [(key: String, path: WritableKeyPath<ServerConfig, Int>)] { [
        ("max_channels", \.maxChannels), ("max_users_per_channel", \.maxUsersPerChannel),
        ("max_message_bytes", \.maxMessageBytes), ("joins_per_second_per_address", \.joinsPerSecondPerAddress),
        ("max_connections", \.maxConnections), ("max_unauthenticated_connections", \.maxUnauthenticatedConnections),
        ("max_http_connections", \.maxHTTPConnections),
        ("max_http_connections_per_address", \.maxHTTPConnectionsPerAddress), ("max_connections_per_address", \.maxConnectionsPerAddress),
        ("max_unauthenticated_per_address", \.maxUnauthenticatedPerAddress),
        ("messages_per_second", \.messagesPerSecond), ("message_burst", \.messageBurst),
        ("messages_per_second_per_address", \.messagesPerSecondPerAddress),
        ("message_burst_per_address", \.messageBurstPerAddress), ("read_bytes_per_turn", \.readBytesPerTurn),
        ("max_message_keys", \.maxMessageKeys), ("max_message_depth", \.maxMessageDepth),
        ("max_output_bytes", \.maxOutputBytes), ("max_private_sessions", \.maxPrivateSessions),
        ("max_private_sessions_per_address", \.maxPrivateSessionsPerAddress),
        ("max_private_sessions_per_app", \.maxPrivateSessionsPerApp),
        ("max_accounts_per_app", \.maxAccountsPerApp),
        ("max_provisional_accounts_per_app", \.maxProvisionalAccountsPerApp),
        ("probe_amplification", \.probeAmplification), ("max_probe_bitrate_per_address", \.maxProbeBitratePerAddress),
    ] }

    /// The millisecond settings of the "timeouts" section.
    static var timeoutKeys: [(key: String, path: WritableKeyPath<ServerConfig, Duration>)] { [
        ("keepalive_ms", \.keepaliveInterval), ("drop_timeout_ms", \.dropTimeout),
        ("throttle_close_ms", \.throttleCloseAfter), ("private_session_ms", \.privateSessionLifetime),
        ("handshake_ms", \.handshakeTimeout), ("authentication_ms", \.authenticationTimeout),
        ("consent_interval_ms", \.consentInterval), ("consent_timeout_ms", \.consentTimeout),
    ] }

    /// Registers an app; `certificate` nil is testing mode (no token needed).
    public mutating func addApp(_ appId: String, certificate: String?, publishPrivileges: Bool = false) throws(ServerError) {
        guard TokenVerifier.isWellFormedAppId(appId) else { throw .config("app id \(appId) is not 32 hex characters") }
        if let c = certificate, !TokenVerifier.isWellFormedAppId(c) {
            throw .config("the certificate of \(appId) is not 32 hex characters")
        }
        apps[appId] = App(certificate: certificate, enforcePublishPrivileges: publishPrivileges)
    }

    /// Applies the environment: AGORAISH_SERVER_CONFIG (a file), AGORAISH_SERVER_HOST,
    /// AGORAISH_SERVER_PORT, AGORAISH_SERVER_HTTP_PORT, AGORAISH_APPS ("id:cert,id,…"),
    /// AGORAISH_SERVER_ADMIN_TOKEN.
    public mutating func applyEnvironment(_ env: (String) -> String? = environment) throws(ServerError) {
        if let file = env("AGORAISH_SERVER_CONFIG") { try apply(file: file) }
        if let h = env("AGORAISH_SERVER_HOST") { signalingHost = h }
        if let p = env("AGORAISH_SERVER_PORT") { signalingPort = try Self.port(text: p, "AGORAISH_SERVER_PORT") }
        if let p = env("AGORAISH_SERVER_HTTP_PORT") {
            httpPort = p == "off" ? nil : try Self.port(text: p, "AGORAISH_SERVER_HTTP_PORT")
        }
        if let list = env("AGORAISH_APPS") { try addApps(list) }
        if let t = env("AGORAISH_SERVER_ADMIN_TOKEN"), !t.isEmpty {
            guard t.utf8.count >= 16 else { throw .config("AGORAISH_SERVER_ADMIN_TOKEN must be at least 16 characters") }
            adminToken = t
        }
    }

    /// The largest configuration file `apply(file:)` reads.
    static let maxConfigFileBytes = 16 << 20

    /// Reads and applies a JSON configuration file (UTF-8, at most `maxConfigFileBytes`).
    public mutating func apply(file path: String) throws(ServerError) {
        guard let bytes = try? FileIO.readAll(path, limit: Self.maxConfigFileBytes),
              let text = String(validating: bytes, as: UTF8.self) else {
            throw .config("cannot read \(path)")
        }
        try apply(json: text)
    }

    /// Applies command-line flags; returns an error for unknown flags.
    /// Flags: --config FILE, --host H, --port P, --http-port P|off, --app ID[:CERT] (repeatable),
    /// --accept-unknown-apps, --keepalive-ms N, --drop-timeout-ms N, --max-channels N,
    /// --max-users-per-channel N, --max-message-bytes N, --joins-per-second N,
    /// --media-port P, --media-host H, --media-workers N, --srtp-profile NAME,
    /// --tls-cert FILE, --tls-key FILE, --admin-token TOKEN, --http-host H.
    public mutating func apply(arguments: [String]) throws(ServerError) {
        var i = 0
        func value() throws(ServerError) -> String {
            guard i + 1 < arguments.count else { throw .config("\(arguments[i]) needs a value") }
            i += 1
            return arguments[i]
        }
        while i < arguments.count {
            let flag = arguments[i]
            switch flag {
            case "--config": try apply(file: try value())
            case "--host": signalingHost = try value()
            case "--port": signalingPort = try Self.port(text: try value(), flag)
            case "--http-port":
                let v = try value()
                httpPort = v == "off" ? nil : try Self.port(text: v, flag)
            case "--app": try addApps(try value())
            case "--accept-unknown-apps": acceptUnknownApps = true
            case "--keepalive-ms": keepaliveInterval = .milliseconds(try Self.positive(text: try value(), flag))
            case "--drop-timeout-ms": dropTimeout = .milliseconds(try Self.positive(text: try value(), flag))
            case "--max-channels": maxChannels = try Self.positive(text: try value(), flag)
            case "--max-users-per-channel": maxUsersPerChannel = try Self.positive(text: try value(), flag)
            case "--max-message-bytes": maxMessageBytes = try Self.positive(text: try value(), flag)
            case "--joins-per-second": joinsPerSecondPerAddress = try Self.positive(text: try value(), flag)
            case "--media-port": mediaPort = try Self.port(text: try value(), flag)
            case "--media-host": mediaAdvertisedHost = try value()
            case "--media-workers": mediaWorkers = try Self.positive(text: try value(), flag)
            case "--srtp-profile": srtpProfile = try Self.profile(try value())
            case "--admin-token":
                let token = try value()
                guard token.utf8.count >= 16 else { throw .config("--admin-token must be at least 16 characters") }
                adminToken = token
            case "--http-host": httpHost = try value()
            case "--tls-cert": tlsCertificateFile = try value()
            case "--tls-key": tlsKeyFile = try value()
            default: throw .config("unknown option \(flag)")
            }
            i += 1
        }
    }

    /// Checks what no single setting can, once the file, the environment and
    /// the flags are all applied (a flag may complete what the file left out):
    /// the TLS certificate and key come together. The error names the missing
    /// one by its flag and its config key. `ChannelServer.start()` checks the
    /// pair again for configurations that never pass through here.
    public func validate() throws(ServerError) {
        switch (tlsCertificateFile, tlsKeyFile) {
        case (_?, nil):
            throw .config("TLS needs both a certificate and a key file: --tls-cert (tls.certificate) is set "
                          + "but --tls-key (tls.key) is missing")
        case (nil, _?):
            throw .config("TLS needs both a certificate and a key file: --tls-key (tls.key) is set "
                          + "but --tls-cert (tls.certificate) is missing")
        default:
            break
        }
    }

    private mutating func addApps(_ list: String) throws(ServerError) {
        for item in list.split(separator: ",") {
            let parts = item.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            if parts.count > 1 && parts[1].isEmpty { throw .config("--app \(parts[0]): empty certificate") }
            try addApp(parts[0], certificate: parts.count > 1 ? parts[1] : nil)
        }
    }

    private static func profile(_ name: String) throws(ServerError) -> SrtpProfile {
        guard let p = SrtpProfile(rawValue: name) else {
            throw .config("unknown SRTP profile \(name) (AEAD_AES_128_GCM or AES_CM_128_HMAC_SHA1_80)")
        }
        return p
    }

    private static func checkKeys(_ o: [String: JSONValue], _ allowed: Set<String>, _ at: String) throws(ServerError) {
        for key in o.keys where !allowed.contains(key) { throw .config("unknown key \(key) in \(at)") }
    }

    private static func string(_ v: JSONValue, _ name: String) throws(ServerError) -> String {
        guard let s = v.stringValue else { throw .config("\(name) must be a string") }
        return s
    }

    private static func port(_ v: JSONValue, _ name: String) throws(ServerError) -> UInt16 {
        guard let i = v.integerValue, i >= 0, i <= 65535 else { throw .config("\(name) must be a port number") }
        return UInt16(i)
    }

    private static func port(text: String, _ name: String) throws(ServerError) -> UInt16 {
        guard let p = UInt16(text) else { throw .config("\(name) must be a port number") }
        return p
    }

    private static func positive(_ v: JSONValue, _ name: String) throws(ServerError) -> Int {
        guard let i = v.integerValue, i > 0, i <= Int64(Int32.max) else { throw .config("\(name) must be a positive integer") }
        return Int(i)
    }

    private static func positive(text: String, _ name: String) throws(ServerError) -> Int {
        guard let i = Int(text), i > 0, i <= Int(Int32.max) else { throw .config("\(name) must be a positive integer") }
        return i
    }
}
