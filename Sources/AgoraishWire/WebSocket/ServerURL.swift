/// A signaling server URL: `ws://host[:port][/path]` or `wss://…`.
public struct ServerURL: Sendable, Equatable {
    /// True for wss:// (TLS).
    public var secure: Bool
    /// Host name or address (IPv6 without brackets).
    public var host: String
    /// Port (default 80 for ws, 443 for wss).
    public var port: UInt16
    /// Request path (default "/v1/signal").
    public var path: String

    /// Whether the host is this machine's loopback: an IPv4 literal in
    /// 127.0.0.0/8, the IPv6 literal ::1, or "localhost" (RFC 6761 §6.3).
    /// A name that merely starts with "127." is not.
    public var isLoopback: Bool { Self.isLoopback(host: host) }

    /// Whether `host` (a name or an address, IPv6 without brackets) is this
    /// machine's loopback, by the rule of `isLoopback`.
    public static func isLoopback(host: String) -> Bool {
        let h = host.lowercased()
        if h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        let octets = parts.compactMap { p in p.count <= 3 && p.allSatisfy(\.isASCIIDigit) ? UInt8(p) : nil }
        return octets.count == 4 && octets[0] == 127
    }

    /// Parses a URL; nil when it is not ws:// or wss:// with a host and a valid port.
    public init?(_ text: String) {
        var rest: Substring
        if text.hasPrefix("ws://") {
            secure = false
            rest = text.dropFirst(5)
        } else if text.hasPrefix("wss://") {
            secure = true
            rest = text.dropFirst(6)
        } else {
            return nil
        }
        let authority = rest.prefix { $0 != "/" }
        rest = rest.dropFirst(authority.count)
        path = rest.isEmpty || rest == "/" ? "/v1/signal" : String(rest)
        var hostPart = authority
        var portPart: Substring? = nil
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portPart = after.dropFirst() } else if !after.isEmpty { return nil }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { return nil }
        host = String(hostPart)
        if let portPart {
            guard let p = UInt16(portPart), p > 0 else { return nil }
            port = p
        } else {
            port = secure ? 443 : 80
        }
    }

    /// The Host header value.
    public var hostHeader: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return (port == (secure ? 443 : 80)) ? h : "\(h):\(port)"
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
