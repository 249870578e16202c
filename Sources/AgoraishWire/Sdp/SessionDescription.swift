// SDP (RFC 8866) as values: what a browser's RTCPeerConnection offers over the
// signaling WebSocket, and what the server answers (WebRtcNegotiation.swift).
//
// The text is hostile until read: `parse` enforces the limits below, checks the
// grammar of every line and of the attributes this module reads (RFC 8866 §9,
// RFC 4566 rtpmap/fmtp, RFC 4585 rtcp-fb, RFC 8285 extmap, RFC 5576 ssrc,
// RFC 8839 ICE, RFC 8122 fingerprint, RFC 4145 setup, RFC 8851 rid) and keeps
// every other line and attribute as it came, so that what parses serializes
// back to an equal value. Nothing here acts on an attribute it does not know.

/// Why an SDP text could not be read or answered. Bad input never traps:
/// `SessionDescription.parse` and `WebRtcNegotiation.negotiate` throw these.
public enum SdpError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is over one of the limits of `SessionDescription` (its size,
    /// a line's length, the number of m-sections, formats or attributes).
    case tooLarge
    /// Line `line` (counted from 1) breaks the grammar of RFC 8866 or of an
    /// attribute this module reads; the text says which rule.
    case malformed(line: Int, String)
    /// The description is well formed but asks for something this server does
    /// not do, or lacks something it needs; the text names it.
    case unsupported(String)

    /// A one-line explanation for logs.
    public var description: String {
        switch self {
        case .tooLarge: "SDP over a size limit"
        case .malformed(let line, let why): "malformed SDP at line \(line): \(why)"
        case .unsupported(let why): "unsupported SDP: \(why)"
        }
    }
}

/// One `a=` line (RFC 8866 §5.13): a name, and the value after the first
/// colon when there is one (`a=rtcp-mux` has none, `a=mid:0` has "0").
public struct SdpAttribute: Equatable, Sendable {
    /// The attribute name, without the colon.
    public var name: String
    /// Everything after the first colon, verbatim; nil for a flag.
    public var value: String?

    /// The attribute `name`, with `value` when it is not a flag.
    public init(_ name: String, _ value: String? = nil) {
        self.name = name
        self.value = value
    }
}

/// The `o=` line (RFC 8866 §5.2): who made the description, and which version of it.
public struct SdpOrigin: Equatable, Sendable {
    /// The user's login, "-" for none (browsers always write "-").
    public var username: String
    /// A number that names the session.
    public var sessionId: UInt64
    /// Raised by the maker each time the description changes.
    public var sessionVersion: UInt64
    /// "IN" (Internet).
    public var networkType: String
    /// "IP4" or "IP6".
    public var addressType: String
    /// The maker's address as written; browsers write 127.0.0.1 and ignore it.
    public var address: String

    /// An origin; the network fields default to what browsers write.
    public init(username: String = "-", sessionId: UInt64, sessionVersion: UInt64, networkType: String = "IN",
                addressType: String = "IP4", address: String = "0.0.0.0") {
        self.username = username
        self.sessionId = sessionId
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }
}

/// The `t=` line (RFC 8866 §5.9): start and stop times, NTP seconds; 0 0
/// ("unbounded") in everything WebRTC writes.
public struct SdpTiming: Equatable, Sendable {
    /// When the session starts, NTP seconds (0: now).
    public var start: UInt64
    /// When it stops, NTP seconds (0: never).
    public var stop: UInt64

    /// The times `start` and `stop`.
    public init(start: UInt64 = 0, stop: UInt64 = 0) {
        self.start = start
        self.stop = stop
    }
}

/// A `c=` line (RFC 8866 §5.7). With ICE the address is a placeholder
/// (`IN IP4 0.0.0.0`); candidates carry the real ones.
public struct SdpConnection: Equatable, Sendable {
    /// "IN".
    public var networkType: String
    /// "IP4" or "IP6".
    public var addressType: String
    /// The address as written (with any "/ttl" suffix).
    public var address: String

    /// A connection line.
    public init(networkType: String = "IN", addressType: String = "IP4", address: String = "0.0.0.0") {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }
}

/// A `b=` line (RFC 8866 §5.8): `AS` in kbit/s, `TIAS` (RFC 3890) in bit/s.
public struct SdpBandwidth: Equatable, Sendable {
    /// The bandwidth type, e.g. "AS" or "TIAS".
    public var type: String
    /// The value, in the type's unit.
    public var value: UInt64

    /// A bandwidth line.
    public init(type: String, value: UInt64) {
        self.type = type
        self.value = value
    }
}

/// A line of a type this module does not model (`i=`, `u=`, `e=`, `p=`,
/// `k=`, `r=`, `z=`, a second `t=`, or a letter RFC 8866 does not define):
/// kept so that it round-trips, never read.
public struct SdpLine: Equatable, Sendable {
    /// The line's letter, a...z.
    public var type: Unicode.Scalar
    /// Everything after "=".
    public var value: String

    /// The line `type=value`.
    public init(type: Unicode.Scalar, value: String) {
        self.type = type
        self.value = value
    }
}

/// A session description (RFC 8866): the session-level lines and the
/// m-sections, in order.
///
/// `parse` reads the text a browser sends; `serialized` writes the text back
/// (CRLF lines, in RFC 8866 §5 order; lines of the types this type does not
/// model come after `t=` at session level and after `b=` in an m-section).
/// Typed views (`groups`, `MediaDescription.codecs`, ...) read the
/// attributes; an attribute a view cannot read is skipped, never trusted.
/// What to answer is WebRtcNegotiation's business.
public struct SessionDescription: Equatable, Sendable {
    /// The most bytes of text `parse` reads, counted with every line ended by CRLF.
    public static let maxTextBytes = 65536
    /// The most bytes of one line, without its ending.
    public static let maxLineBytes = 4096
    /// The most m-sections.
    public static let maxMediaSections = 64
    /// The most formats on one m= line.
    public static let maxFormats = 128
    /// The most attributes at session level or in one m-section.
    public static let maxAttributes = 1024

    /// The `o=` line.
    public var origin: SdpOrigin
    /// The `s=` line; "-" when there is nothing to say.
    public var sessionName: String
    /// A session-level `c=` line (browsers write them per m-section).
    public var connection: SdpConnection?
    /// Session-level `b=` lines, in order.
    public var bandwidths: [SdpBandwidth]
    /// The first `t=` line (a description without one does not parse).
    public var timing: SdpTiming
    /// Lines of other types, in order (`SdpLine`).
    public var otherLines: [SdpLine]
    /// Session-level attributes, in order.
    public var attributes: [SdpAttribute]
    /// The m-sections, in order.
    public var media: [MediaDescription]

    /// A description with the given lines.
    public init(origin: SdpOrigin, sessionName: String = "-", connection: SdpConnection? = nil,
                bandwidths: [SdpBandwidth] = [], timing: SdpTiming = SdpTiming(), otherLines: [SdpLine] = [],
                attributes: [SdpAttribute] = [], media: [MediaDescription] = []) {
        self.origin = origin
        self.sessionName = sessionName
        self.connection = connection
        self.bandwidths = bandwidths
        self.timing = timing
        self.otherLines = otherLines
        self.attributes = attributes
        self.media = media
    }
}

/// An m-section (RFC 8866 §5.14): one `m=` line and the lines after it up to
/// the next. The typed views (`mid`, `direction`, `codecs`, ...) read its
/// attributes (SessionDescription+Attributes.swift).
public struct MediaDescription: Equatable, Sendable {
    /// "audio", "video", "application", or another token.
    public var kind: String
    /// The port; 0 rejects the section (RFC 3264 §6), or with `a=bundle-only`
    /// asks to bundle it (RFC 8843 §6). WebRTC writes 9 for "see the candidates".
    public var port: UInt16
    /// The number after a "/" in the port field, when written (RFC 8866 §5.14).
    public var portCount: UInt16?
    /// The transport, e.g. "UDP/TLS/RTP/SAVPF" or "UDP/DTLS/SCTP".
    public var proto: String
    /// The formats: RTP payload types (0...127) for RTP transports, else tokens.
    public var formats: [String]
    /// The section's `c=` line.
    public var connection: SdpConnection?
    /// The section's `b=` lines, in order.
    public var bandwidths: [SdpBandwidth]
    /// Lines of other types, in order (`SdpLine`).
    public var otherLines: [SdpLine]
    /// The section's attributes, in order.
    public var attributes: [SdpAttribute]

    /// An m-section with the given lines.
    public init(kind: String, port: UInt16, portCount: UInt16? = nil, proto: String, formats: [String],
                connection: SdpConnection? = nil, bandwidths: [SdpBandwidth] = [], otherLines: [SdpLine] = [],
                attributes: [SdpAttribute] = []) {
        self.kind = kind
        self.port = port
        self.portCount = portCount
        self.proto = proto
        self.formats = formats
        self.connection = connection
        self.bandwidths = bandwidths
        self.otherLines = otherLines
        self.attributes = attributes
    }
}

// MARK: - Parse

extension SessionDescription {
    /// Reads an SDP text (RFC 8866 §5, §9). Lines end in CRLF or LF (the last
    /// may have no ending; blank lines are allowed only at the end). The first
    /// line is `v=0`; `o=`, `s=` and `t=` are required once at session level;
    /// the other lines may come in any order. Numbers out of range, a bad
    /// line, an attribute this module reads that breaks its grammar
    /// (SessionDescription+Attributes.swift), or a NUL or CR inside a line
    /// throw `malformed`; text over a limit throws `tooLarge`.
    public static func parse(_ text: String) throws(SdpError) -> SessionDescription {
        guard text.utf8.count <= maxTextBytes else { throw .tooLarge }
        let lines = try splitLines(text)
        guard let first = lines.first, first.utf8.elementsEqual("v=0".utf8) else {
            if let first = lines.first, first.utf8.starts(with: "v=".utf8) {
                throw .unsupported("SDP version other than 0")
            }
            throw .malformed(line: 1, "the first line must be v=0")
        }
        var origin: SdpOrigin?, name: String?, timing: SdpTiming?
        var session = SessionDescription(origin: SdpOrigin(sessionId: 0, sessionVersion: 0))
        var current: MediaDescription?
        func finish() throws(SdpError) {
            guard let m = current else { return }
            guard session.media.count < maxMediaSections else { throw .tooLarge }
            session.media.append(m)
        }
        for (index, line) in lines.enumerated().dropFirst() {
            let n = index + 1
            // splitLines checked that every line is at least "x=".
            let type = line.utf8.first!, value = line[line.utf8.index(line.startIndex, offsetBy: 2)...]
            switch type {
            case UInt8(ascii: "m"):
                try finish()
                current = try parseMediaLine(value, line: n)
            case UInt8(ascii: "a"):
                let attribute = try parseAttribute(value, line: n)
                if current != nil {
                    guard current!.attributes.count < maxAttributes else { throw .tooLarge }
                    current!.attributes.append(attribute)
                } else {
                    guard session.attributes.count < maxAttributes else { throw .tooLarge }
                    session.attributes.append(attribute)
                }
            case UInt8(ascii: "c"):
                let c = try parseConnection(value, line: n)
                if current != nil {
                    guard current!.connection == nil else { throw .unsupported("several c= lines in an m-section") }
                    current!.connection = c
                } else {
                    guard session.connection == nil else { throw .malformed(line: n, "a second session c= line") }
                    session.connection = c
                }
            case UInt8(ascii: "b"):
                let b = try parseBandwidth(value, line: n)
                if current != nil {
                    guard current!.bandwidths.count < maxAttributes else { throw .tooLarge }
                    current!.bandwidths.append(b)
                } else {
                    guard session.bandwidths.count < maxAttributes else { throw .tooLarge }
                    session.bandwidths.append(b)
                }
            case UInt8(ascii: "v"):
                throw .malformed(line: n, "a second v= line")
            case UInt8(ascii: "o") where current == nil:
                guard origin == nil else { throw .malformed(line: n, "a second o= line") }
                origin = try parseOrigin(value, line: n)
            case UInt8(ascii: "s") where current == nil:
                guard name == nil else { throw .malformed(line: n, "a second s= line") }
                name = String(value)
            case UInt8(ascii: "t") where current == nil && timing == nil:
                let f = fields(value)
                guard f.count == 2, let start = number(f[0], as: UInt64.self), let stop = number(f[1], as: UInt64.self) else {
                    throw .malformed(line: n, "t= is two numbers")
                }
                timing = SdpTiming(start: start, stop: stop)
            default:
                let other = SdpLine(type: Unicode.Scalar(type), value: String(value))
                if current != nil {
                    guard current!.otherLines.count < maxAttributes else { throw .tooLarge }
                    current!.otherLines.append(other)
                } else {
                    guard session.otherLines.count < maxAttributes else { throw .tooLarge }
                    session.otherLines.append(other)
                }
            }
        }
        try finish()
        guard let origin else { throw .malformed(line: lines.count, "no o= line") }
        guard let name else { throw .malformed(line: lines.count, "no s= line") }
        guard let timing else { throw .malformed(line: lines.count, "no t= line") }
        session.origin = origin
        session.sessionName = name
        session.timing = timing
        return session
    }

    /// The lines of `text`, without their endings and trailing blank lines;
    /// each checked for length, forbidden bytes and the `x=` shape. The
    /// text's size is counted as if every line ended in CRLF, so that what
    /// parses also parses once serialized.
    private static func splitLines(_ text: String) throws(SdpError) -> [Substring] {
        var lines: [Substring] = []
        var start = text.startIndex, index = text.startIndex
        let utf8 = text.utf8
        while index < text.endIndex {
            if utf8[index] == UInt8(ascii: "\n") {
                lines.append(text[start..<index])
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        if start < text.endIndex { lines.append(text[start...]) }
        while let last = lines.last, last.isEmpty || last.utf8.elementsEqual("\r".utf8) { lines.removeLast() }
        var size = 0
        for i in lines.indices {
            if lines[i].utf8.last == UInt8(ascii: "\r") { lines[i] = lines[i][..<lines[i].utf8.index(before: lines[i].endIndex)] }
            let line = lines[i], bytes = line.utf8
            guard bytes.count <= maxLineBytes else { throw .tooLarge }
            size += bytes.count + 2
            guard size <= maxTextBytes else { throw .tooLarge }
            guard bytes.count >= 2 else { throw .malformed(line: i + 1, bytes.isEmpty ? "a blank line" : "a line without =") }
            let type = bytes.first!
            guard type >= UInt8(ascii: "a") && type <= UInt8(ascii: "z"),
                  bytes[bytes.index(after: bytes.startIndex)] == UInt8(ascii: "=")
            else { throw .malformed(line: i + 1, "a line is a lower-case letter, =, and a value") }
            guard !bytes.contains(0), !bytes.contains(UInt8(ascii: "\r")) else {
                throw .malformed(line: i + 1, "a NUL or CR inside a line")
            }
        }
        return lines
    }

    private static func parseMediaLine(_ value: Substring, line n: Int) throws(SdpError) -> MediaDescription {
        let f = fields(value)
        guard f.count >= 4, !f.contains(where: \.isEmpty) else {
            throw .malformed(line: n, "m= is <media> <port> <proto> <fmt> ..., one space apart")
        }
        guard f.count - 3 <= maxFormats else { throw .tooLarge }
        let (portText, countText) = f[1].cut(UInt8(ascii: "/"))
        guard let port = number(portText, as: UInt16.self) else { throw .malformed(line: n, "the m= port is not 0...65535") }
        var portCount: UInt16?
        if let countText {
            guard let c = number(countText, as: UInt16.self) else { throw .malformed(line: n, "the m= port count is not a number") }
            portCount = c
        }
        let proto = String(f[2])
        // An RTP profile (RTP/AVP, UDP/TLS/RTP/SAVPF, ...); split on a Character
        // (String.contains(String) would link the regex engine into the library).
        if proto.split(separator: "/").contains("RTP") {
            for format in f[3...] where number(format, as: UInt8.self).map({ $0 > 127 }) ?? true {
                throw .malformed(line: n, "an RTP format is not a payload type 0...127")
            }
        }
        return MediaDescription(kind: String(f[0]), port: port, portCount: portCount, proto: proto, formats: f[3...].map(String.init))
    }

    private static func parseAttribute(_ value: Substring, line n: Int) throws(SdpError) -> SdpAttribute {
        let (name, rest) = value.cut(UInt8(ascii: ":"))
        guard !name.isEmpty, !name.utf8.contains(UInt8(ascii: " ")) else { throw .malformed(line: n, "an attribute without a name") }
        let attribute = SdpAttribute(String(name), rest.map(String.init))
        if let problem = attribute.problem { throw .malformed(line: n, problem) }
        return attribute
    }

    private static func parseConnection(_ value: Substring, line n: Int) throws(SdpError) -> SdpConnection {
        let f = fields(value)
        guard f.count == 3, !f.contains(where: \.isEmpty) else { throw .malformed(line: n, "c= is <nettype> <addrtype> <address>") }
        return SdpConnection(networkType: String(f[0]), addressType: String(f[1]), address: String(f[2]))
    }

    private static func parseBandwidth(_ value: Substring, line n: Int) throws(SdpError) -> SdpBandwidth {
        let (type, rest) = value.cut(UInt8(ascii: ":"))
        guard !type.isEmpty, !type.utf8.contains(UInt8(ascii: " ")), let rest, let v = number(rest, as: UInt64.self) else {
            throw .malformed(line: n, "b= is <bwtype>:<number>")
        }
        return SdpBandwidth(type: String(type), value: v)
    }

    private static func parseOrigin(_ value: Substring, line n: Int) throws(SdpError) -> SdpOrigin {
        let f = fields(value)
        guard f.count == 6, !f.contains(where: \.isEmpty) else {
            throw .malformed(line: n, "o= is <username> <sess-id> <sess-version> <nettype> <addrtype> <address>")
        }
        guard let id = number(f[1], as: UInt64.self), let version = number(f[2], as: UInt64.self) else {
            throw .malformed(line: n, "the o= session id and version are numbers below 2^64")
        }
        return SdpOrigin(username: String(f[0]), sessionId: id, sessionVersion: version, networkType: String(f[3]),
                         addressType: String(f[4]), address: String(f[5]))
    }
}

// MARK: - Serialize

extension SessionDescription {
    /// The description as SDP text: CRLF lines in RFC 8866 §5 order.
    public var serialized: String {
        var out = ""
        out.reserveCapacity(1024 + media.count * 1024)
        out += "v=0\r\n"
        out += "o=\(origin.username) \(origin.sessionId) \(origin.sessionVersion) \(origin.networkType) "
            + "\(origin.addressType) \(origin.address)\r\n"
        out += "s=\(sessionName)\r\n"
        if let c = connection { out += c.line }
        for b in bandwidths { out += b.line }
        out += "t=\(timing.start) \(timing.stop)\r\n"
        for l in otherLines { out += l.line }
        for a in attributes { out += a.line }
        for m in media { m.serialize(into: &out) }
        return out
    }
}

extension MediaDescription {
    /// Appends the section's lines (CRLF) to `out`.
    public func serialize(into out: inout String) {
        out += "m=\(kind) \(port)"
        if let portCount { out += "/\(portCount)" }
        out += " \(proto)"
        for f in formats { out += " \(f)" }
        out += "\r\n"
        if let c = connection { out += c.line }
        for b in bandwidths { out += b.line }
        for l in otherLines { out += l.line }
        for a in attributes { out += a.line }
    }
}

extension SdpAttribute {
    /// The `a=` line with its CRLF.
    var line: String { value.map { "a=\(name):\($0)\r\n" } ?? "a=\(name)\r\n" }
}

extension SdpConnection {
    var line: String { "c=\(networkType) \(addressType) \(address)\r\n" }
}

extension SdpBandwidth {
    var line: String { "b=\(type):\(value)\r\n" }
}

extension SdpLine {
    var line: String { "\(Character(type))=\(value)\r\n" }
}

// MARK: - Text helpers (bytes, not Characters: "\r\n" and a letter followed
// by a combining mark are single Characters, and SDP is split at bytes)

extension Substring {
    /// The text before the first `byte` and, when there is one, after it.
    func cut(_ byte: UInt8) -> (Substring, Substring?) {
        guard let i = utf8.firstIndex(of: byte) else { return (self, nil) }
        return (self[..<i], self[utf8.index(after: i)...])
    }

    /// The pieces between every `byte`, empty ones included.
    func pieces(_ byte: UInt8) -> [Substring] {
        var out: [Substring] = []
        var rest = self
        while true {
            let (head, tail) = rest.cut(byte)
            out.append(head)
            guard let tail else { return out }
            rest = tail
        }
    }

    /// The pieces between spaces and tabs, empty ones left out.
    var words: [Substring] {
        pieces(UInt8(ascii: " ")).flatMap { $0.pieces(UInt8(ascii: "\t")) }.filter { !$0.isEmpty }
    }

    /// Without leading and trailing spaces.
    var trimmed: Substring {
        var s = self
        while s.utf8.first == UInt8(ascii: " ") { s = s[s.utf8.index(after: s.startIndex)...] }
        while s.utf8.last == UInt8(ascii: " ") { s = s[..<s.utf8.index(before: s.endIndex)] }
        return s
    }
}

/// The fields of an SDP line: split at single spaces (empty fields kept, so
/// that callers can refuse double spaces).
func fields(_ s: Substring) -> [Substring] { s.pieces(UInt8(ascii: " ")) }

/// A decimal number of at most 20 digits (no sign, no spaces) that fits in
/// `T`; nil otherwise.
func number<T: FixedWidthInteger & UnsignedInteger>(_ s: Substring, as _: T.Type) -> T? {
    guard !s.isEmpty, s.utf8.count <= 20 else { return nil }
    var v: T = 0
    for b in s.utf8 {
        guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
        let (m, o1) = v.multipliedReportingOverflow(by: 10)
        let (a, o2) = m.addingReportingOverflow(T(b - UInt8(ascii: "0")))
        guard !o1, !o2 else { return nil }
        v = a
    }
    return v
}
