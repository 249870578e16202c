import COpenSSL

/// The head of an HTTP/1.1 request or response (RFC 9112 §2–§5): start line and
/// header fields, up to the empty line. Enough for the WebSocket opening
/// handshake (RFC 6455 §4) and for the server's small HTTP endpoints.
public struct HTTPHead: Sendable, Equatable {
    /// The start line ("GET /path HTTP/1.1" or "HTTP/1.1 101 Switching Protocols").
    public var startLine: String
    /// Header fields in order; names as received.
    public var fields: [(name: String, value: String)]

    /// The first value of a header field, compared case-insensitively.
    public func field(_ name: String) -> String? {
        let lower = name.lowercased()
        return fields.first { $0.name.lowercased() == lower }?.value
    }

    /// Whether a comma-separated header field holds `token` (case-insensitive).
    public func fieldContainsToken(_ name: String, _ token: String) -> Bool {
        let lower = token.lowercased()
        return fields.contains { f in
            f.name.lowercased() == name.lowercased()
                && f.value.split(separator: ",").contains { $0.trimmingSpaces.lowercased() == lower }
        }
    }

    /// A head to serialize.
    public init(startLine: String, fields: [(name: String, value: String)]) {
        self.startLine = startLine
        self.fields = fields
    }

    public static func == (a: HTTPHead, b: HTTPHead) -> Bool {
        a.startLine == b.startLine && a.fields.map(\.name) == b.fields.map(\.name)
            && a.fields.map(\.value) == b.fields.map(\.value)
    }

    /// Reads a head from the start of `bytes`. Returns nil until the empty line
    /// has arrived; throws for heads over `limit` bytes or malformed lines.
    public static func parse(_ bytes: ArraySlice<UInt8>, limit: Int = 8192) throws(WireError) -> (HTTPHead, Int)? {
        let end = findTerminator(bytes)
        guard let end else {
            if bytes.count > limit { throw .malformed("HTTP head too large") }
            return nil
        }
        guard end - bytes.startIndex <= limit else { throw .malformed("HTTP head too large") }
        guard let text = String(validating: bytes[bytes.startIndex..<end], as: UTF8.self) else {
            throw .malformed("HTTP head is not UTF-8")
        }
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        guard !lines.isEmpty, !lines[0].isEmpty else { throw .malformed("empty start line") }
        let start = lines.removeFirst()
        var fields: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw .malformed("bad header line")
            }
            let name = String(line[..<colon])
            guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) }) else {
                throw .malformed("bad header name")
            }
            fields.append((name, line[line.index(after: colon)...].trimmingSpaces))
        }
        return (HTTPHead(startLine: start, fields: fields), end + 4 - bytes.startIndex)
    }

    /// The head as bytes, with the terminating empty line.
    public var serialized: [UInt8] {
        var text = startLine + "\r\n"
        for f in fields { text += "\(f.name): \(f.value)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    private static func findTerminator(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var i = bytes.startIndex
        while i + 3 < bytes.endIndex {
            if bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return i }
            i += 1
        }
        return nil
    }
}

/// The WebSocket opening handshake (RFC 6455 §4).
public enum WebSocketHandshake {
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Sec-WebSocket-Accept for a Sec-WebSocket-Key: Base64(SHA-1(key + GUID)) (§4.2.2).
    public static func acceptValue(forKey key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: 20)
        input.withUnsafeBufferPointer { i in
            digest.withUnsafeMutableBufferPointer { d in _ = SHA1(i.baseAddress, i.count, d.baseAddress) }
        }
        return TokenCrypto.base64Encode(digest)
    }

    /// The client's request for `path` on `host`, with a 16-byte nonce.
    public static func request(host: String, path: String, nonce: [UInt8]) -> (head: HTTPHead, key: String) {
        let key = TokenCrypto.base64Encode(nonce)
        let head = HTTPHead(startLine: "GET \(path) HTTP/1.1", fields: [
            ("Host", host), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", key), ("Sec-WebSocket-Version", "13"),
        ])
        return (head, key)
    }

    /// Checks a client's upgrade request (§4.2.1). Returns the request path and
    /// the 101 response, or throws with the reason the request is refused.
    public static func accept(_ request: HTTPHead) throws(WireError) -> (path: String, response: HTTPHead) {
        let parts = request.startLine.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET", parts[2] == "HTTP/1.1" else { throw .malformed("not a GET request") }
        guard request.fieldContainsToken("Upgrade", "websocket"),
              request.fieldContainsToken("Connection", "upgrade") else { throw .malformed("not an upgrade") }
        guard request.field("Sec-WebSocket-Version") == "13" else { throw .unsupported("WebSocket version") }
        guard let key = request.field("Sec-WebSocket-Key"),
              let nonce = try? TokenCrypto.base64Decode(Substring(key)), nonce.count == 16
        else { throw .malformed("bad Sec-WebSocket-Key") }
        let response = HTTPHead(startLine: "HTTP/1.1 101 Switching Protocols", fields: [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", acceptValue(forKey: key)),
        ])
        return (String(parts[1]), response)
    }

    /// Checks the server's answer to a request made with `key` (§4.1).
    public static func validate(response: HTTPHead, key: String) throws(WireError) {
        let parts = response.startLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0] == "HTTP/1.1" else { throw .malformed("not an HTTP/1.1 response") }
        guard parts[1] == "101" else { throw .unsupported("status \(parts[1])") }
        guard response.fieldContainsToken("Upgrade", "websocket"),
              response.fieldContainsToken("Connection", "upgrade"),
              response.field("Sec-WebSocket-Accept") == acceptValue(forKey: key)
        else { throw .malformed("bad upgrade response") }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
