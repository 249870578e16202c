import AgoraishEngine
import AgoraishServer
import AgoraishWire
import CAgoraishABI
import CAgoraishShim

// The embedded server functions of include/agoraish.h.

/// An embedded server and the configuration it starts with.
final class EmbeddedServer: Sendable {
    let server: ChannelServer
    init(_ server: ChannelServer) { self.server = server }
}

private func withServer(_ p: OpaquePointer?, function: String = #function,
                        _ body: (ChannelServer) throws(AgoraError) -> Int32) -> Int32 {
    ErrorDetail.clear()
    switch handles.lookup(UInt64(UInt(bitPattern: p)), as: .server, EmbeddedServer.self) {
    case .failure(let e):
        explain(function, e.detail("server"))
        return e.code
    case .success(let s):
        do { return try body(s.server) } catch {
            explain(function, ErrorDetail.current)
            return error.returnCode
        }
    }
}

@_cdecl("agoraish_server_create")
public func abi_server_create(_ config: UnsafePointer<agoraish_server_config>?) -> OpaquePointer? {
    agsh_set_last_error(0)
    ErrorDetail.clear()
    guard let c = readVersioned(config, knownSizes: StructSizes.serverConfig) else {
        explain(#function, ErrorDetail.current)
        agsh_set_last_error(-2)
        return nil
    }
    var cfg = ServerConfig()
    cfg.signalingPort = 0
    cfg.httpPort = nil
    cfg.acceptUnknownApps = true
    var limitsGiven: Set<String> = []
    do {
        if let json = c.config_json {
            guard let text = readCString(json) else { throw ServerError.config("config_json is not UTF-8") }
            try cfg.apply(json: text)
            if case .object(let root)? = try? JSONValue.parse(text), case .object(let limits)? = root["limits"] {
                limitsGiven = Set(limits.keys)
            }
            // Registering apps turns testing mode off unless the document asks for it.
            var asked = false
            if case .object(let root)? = try? JSONValue.parse(text), root["accept_unknown_apps"] != nil { asked = true }
            if !cfg.apps.isEmpty && !asked { cfg.acceptUnknownApps = false }
        }
        if let host = c.host {
            guard let h = readCString(host) else { throw ServerError.config("host is not UTF-8") }
            if !h.isEmpty { cfg.signalingHost = h }
        }
        guard c.signaling_port >= 0, c.signaling_port <= 65535, c.http_port >= -1, c.http_port <= 65535 else {
            throw ServerError.config("port out of range")
        }
        if c.signaling_port > 0 { cfg.signalingPort = UInt16(c.signaling_port) }
        if c.http_port == -1 { cfg.httpPort = 0 } else if c.http_port > 0 { cfg.httpPort = UInt16(c.http_port) }
        if ServerURL.isLoopback(host: cfg.signalingHost) { cfg.useLoopbackBudgets(except: limitsGiven) }
        // What no single key can say (a TLS certificate without its key) is refused here, not at start.
        try cfg.validate()
    } catch {
        if case .config(let why)? = error as? ServerError { explain(#function, why) }
        agsh_set_last_error(-2)
        return nil
    }
    let server = ChannelServer(config: cfg)
    return OpaquePointer(bitPattern: UInt(handles.insert(EmbeddedServer(server), kind: .server)))
}

@_cdecl("agoraish_server_start")
public func abi_server_start(_ p: OpaquePointer?) -> Int32 {
    withServer(p) { server throws(AgoraError) in
        do {
            try server.start()
        } catch {
            throw (error as? ServerError) == .alreadyRunning ? .invalidState : .bindSocket
        }
        return 0
    }
}

@_cdecl("agoraish_server_stop")
public func abi_server_stop(_ p: OpaquePointer?) -> Int32 {
    withServer(p) { server throws(AgoraError) in
        server.stop()
        return 0
    }
}

@_cdecl("agoraish_server_release")
public func abi_server_release(_ p: OpaquePointer?) -> Int32 {
    let handle = UInt64(UInt(bitPattern: p))
    switch handles.remove(handle, as: .server, EmbeddedServer.self) {
    case .failure(.stale): return 0
    case .failure(let e): return e.code
    case .success(let s):
        s.server.stop()
        return 0
    }
}

@_cdecl("agoraish_server_get_url")
public func abi_server_get_url(_ p: OpaquePointer?, _ buf: UnsafeMutablePointer<CChar>?,
                               _ len: UnsafeMutablePointer<Int>?) -> Int32 {
    withServer(p) { server throws(AgoraError) in
        guard let len else { throw .invalidArgument }
        guard server.isRunning else { throw .notReady }
        return writeCString(server.url, buf, len)
    }
}

@_cdecl("agoraish_server_get_http_port")
public func abi_server_get_http_port(_ p: OpaquePointer?) -> Int32 {
    withServer(p) { server throws(AgoraError) in
        guard server.isRunning else { throw .notReady }
        return Int32(server.httpPort)
    }
}

extension ServerConfig {
    /// The per-address budgets of an embedded server on loopback: all its
    /// clients (the host's own engines, tests, examples) share 127.0.0.1, so
    /// each per-address budget is raised to its server-wide counterpart (joins:
    /// 1000 a second). The server-wide limits stay. A key the host's
    /// `config_json` sets under "limits" keeps the host's value.
    mutating func useLoopbackBudgets(except given: Set<String>) {
        func raise(_ key: String, _ apply: (inout ServerConfig) -> Void) {
            if !given.contains(key) { apply(&self) }
        }
        raise("joins_per_second_per_address") { $0.joinsPerSecondPerAddress = 1_000 }
        raise("max_connections_per_address") { $0.maxConnectionsPerAddress = $0.maxConnections }
        raise("max_unauthenticated_per_address") { $0.maxUnauthenticatedPerAddress = $0.maxUnauthenticatedConnections }
        raise("max_http_connections_per_address") { $0.maxHTTPConnectionsPerAddress = $0.maxHTTPConnections }
        raise("messages_per_second_per_address") { $0.messagesPerSecondPerAddress = 50_000 }
        raise("message_burst_per_address") { $0.messageBurstPerAddress = 100_000 }
        raise("max_private_sessions_per_address") { $0.maxPrivateSessionsPerAddress = $0.maxPrivateSessionsPerApp }
    }
}
