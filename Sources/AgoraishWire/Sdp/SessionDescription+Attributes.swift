// The typed views of SDP attributes (what SessionDescription.swift keeps as
// name and value), and the grammar `SessionDescription.parse` checks them
// against: each attribute this module reads has one parse function, used
// both to refuse a bad line and to read a good one.

// MARK: - Typed views

/// A media direction (RFC 8866 §6.7, RFC 3264 §5.1), from the point of view
/// of the description's writer.
public enum SdpDirection: String, Sendable, CaseIterable {
    /// The writer sends and receives.
    case sendrecv
    /// The writer only sends.
    case sendonly
    /// The writer only receives.
    case recvonly
    /// Neither.
    case inactive

    /// Whether the writer sends media.
    public var sends: Bool { self == .sendrecv || self == .sendonly }
    /// Whether the writer receives media.
    public var receives: Bool { self == .sendrecv || self == .recvonly }
}

/// The DTLS role of `a=setup` (RFC 4145 §4, RFC 8842 §5): who opens the
/// DTLS handshake (`active`, the client) and who waits (`passive`).
public enum SdpSetup: String, Sendable {
    /// The writer is the DTLS client.
    case active
    /// The writer is the DTLS server.
    case passive
    /// The writer takes either role (offers only).
    case actpass
    /// No connection for now.
    case holdconn
}

/// `a=fingerprint` (RFC 8122 §5): a hash of the writer's DTLS certificate.
public struct SdpFingerprint: Equatable, Sendable {
    /// The hash function as written, e.g. "sha-256".
    public var algorithm: String
    /// The hash as upper- or lower-case hex byte pairs joined by colons.
    public var value: String

    /// A fingerprint.
    public init(algorithm: String, value: String) {
        self.algorithm = algorithm
        self.value = value
    }
}

/// `a=group` (RFC 5888 §5): m-sections grouped by their mids, e.g. BUNDLE (RFC 8843).
public struct SdpGroup: Equatable, Sendable {
    /// "BUNDLE", "LS", ...
    public var semantics: String
    /// The mids, in order; the first of a BUNDLE group is its tag.
    public var mids: [String]

    /// A group.
    public init(semantics: String, mids: [String]) {
        self.semantics = semantics
        self.mids = mids
    }
}

/// One RTP payload type of an m-section: its `a=rtpmap` (RFC 8866 §6.6), its
/// `a=fmtp` (§6.15) and its `a=rtcp-fb` lines (RFC 4585 §4.2; those for `*`
/// included, in order).
public struct SdpCodec: Equatable, Sendable {
    /// The payload type, 0...127.
    public var payloadType: UInt8
    /// The encoding name as written ("opus", "VP8", "rtx", ...).
    public var name: String
    /// The RTP clock rate, Hz.
    public var clockRate: UInt32
    /// The audio channels, when written.
    public var channels: UInt8?
    /// The fmtp parameters as written, e.g. "minptime=10;useinbandfec=1".
    public var parameters: String?
    /// The feedback types, e.g. ["nack", "nack pli", "transport-cc"].
    public var feedback: [String]

    /// A codec.
    public init(payloadType: UInt8, name: String, clockRate: UInt32, channels: UInt8? = nil, parameters: String? = nil,
                feedback: [String] = []) {
        self.payloadType = payloadType
        self.name = name
        self.clockRate = clockRate
        self.channels = channels
        self.parameters = parameters
        self.feedback = feedback
    }

    /// The value of the fmtp parameter `key` ("apt", "profile-id", ...),
    /// the key compared without case; "" for a key without a value.
    public func parameter(_ key: String) -> String? {
        guard let parameters else { return nil }
        let wanted = key.lowercased()
        for p in Substring(parameters).pieces(UInt8(ascii: ";")) {
            let (k, v) = p.trimmed.cut(UInt8(ascii: "="))
            if k.trimmed.lowercased() == wanted { return v.map { String($0.trimmed) } ?? "" }
        }
        return nil
    }
}

/// `a=extmap` (RFC 8285 §5): an RTP header extension's local id and URI.
public struct SdpExtensionMap: Equatable, Sendable {
    /// The id: 1...14 for one-byte headers, up to 255 for two-byte ones.
    public var id: UInt16
    /// The direction after "/", when written.
    public var direction: SdpDirection?
    /// The extension's URI.
    public var uri: String
    /// Extension attributes after the URI, when written.
    public var attributes: String?

    /// An extension mapping.
    public init(id: UInt16, direction: SdpDirection? = nil, uri: String, attributes: String? = nil) {
        self.id = id
        self.direction = direction
        self.uri = uri
        self.attributes = attributes
    }
}

/// The `a=ssrc` lines (RFC 5576 §4.1) of one SSRC.
public struct SdpSsrc: Equatable, Sendable {
    /// The SSRC.
    public var ssrc: UInt32
    /// Its source attributes ("cname", "msid", ...): the first value of each,
    /// "" for one without a value.
    public var attributes: [String: String]

    /// An SSRC with attributes.
    public init(ssrc: UInt32, attributes: [String: String] = [:]) {
        self.ssrc = ssrc
        self.attributes = attributes
    }
}

/// `a=ssrc-group` (RFC 5576 §4.2): e.g. FID (a media SSRC and its RTX, RFC 4588 §8).
public struct SdpSsrcGroup: Equatable, Sendable {
    /// "FID", "SIM", "FEC-FR", ...
    public var semantics: String
    /// The SSRCs, in order.
    public var ssrcs: [UInt32]

    /// A group.
    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }
}

/// `a=rid` (RFC 8851 §4): one RTP stream of a simulcast (RFC 8853).
public struct SdpRid: Equatable, Sendable {
    /// The rid: letters, digits, "-" and "_".
    public var id: String
    /// Whether the writer sends (`send`) or receives (`recv`) it.
    public var sends: Bool
    /// The restrictions after the direction, verbatim, when written.
    public var restrictions: String?

    /// A rid.
    public init(id: String, sends: Bool, restrictions: String? = nil) {
        self.id = id
        self.sends = sends
        self.restrictions = restrictions
    }
}

/// `a=msid` (RFC 8830 §2): the MediaStream and track an m-section's media belongs to.
public struct SdpMsid: Equatable, Sendable {
    /// The stream id ("-" for a track in no stream).
    public var streamId: String
    /// The track id, when written.
    public var trackId: String?

    /// An msid.
    public init(streamId: String, trackId: String? = nil) {
        self.streamId = streamId
        self.trackId = trackId
    }
}

extension SessionDescription {
    /// The first session-level attribute named `name`.
    public func attribute(named name: String) -> SdpAttribute? { attributes.first { $0.name == name } }

    /// The `a=group` lines, in order (the first BUNDLE one is what WebRTC uses).
    public var groups: [SdpGroup] { attributes.values("group").compactMap(SdpGroup.parse) }

    /// `m`'s ICE ufrag (RFC 8839 §5.4), the section's own or else the session's.
    public func iceUfrag(for m: MediaDescription) -> String? { m.iceUfrag ?? attributes.values("ice-ufrag").first }
    /// `m`'s ICE password, the section's own or else the session's.
    public func icePassword(for m: MediaDescription) -> String? { m.icePassword ?? attributes.values("ice-pwd").first }
    /// `m`'s certificate fingerprints, the section's own or else the session's.
    public func fingerprints(for m: MediaDescription) -> [SdpFingerprint] {
        let own = m.fingerprints
        return own.isEmpty ? attributes.values("fingerprint").compactMap(SdpFingerprint.parse) : own
    }
    /// `m`'s DTLS setup role, the section's own or else the session's.
    public func setup(for m: MediaDescription) -> SdpSetup? { m.setup ?? attributes.setup }
    /// `m`'s direction: the section's attribute, else the session's, else
    /// sendrecv (RFC 8866 §6.7).
    public func direction(of m: MediaDescription) -> SdpDirection {
        m.directionAttribute ?? attributes.direction ?? .sendrecv
    }
}

extension MediaDescription {
    /// The first attribute named `name`.
    public func attribute(named name: String) -> SdpAttribute? { attributes.first { $0.name == name } }

    /// `a=mid` (RFC 5888 §4).
    public var mid: String? { attributes.values("mid").first }
    /// The first direction attribute, nil when there is none.
    public var directionAttribute: SdpDirection? { attributes.direction }
    /// The direction: the section's attribute, else sendrecv. (A
    /// session-level default is `SessionDescription.direction(of:)`'s business.)
    public var direction: SdpDirection { directionAttribute ?? .sendrecv }
    /// `a=rtcp-mux` (RFC 5761 §5.1.1): RTP and RTCP on one port.
    public var rtcpMux: Bool { attributes.contains { $0.name == "rtcp-mux" } }
    /// `a=rtcp-rsize` (RFC 5506 §5): reduced-size RTCP allowed.
    public var rtcpRsize: Bool { attributes.contains { $0.name == "rtcp-rsize" } }
    /// `a=bundle-only` (RFC 8843 §6): port 0 that asks to be bundled, not rejection.
    public var isBundleOnly: Bool { attributes.contains { $0.name == "bundle-only" } }
    /// The section's own `a=ice-ufrag`.
    public var iceUfrag: String? { attributes.values("ice-ufrag").first }
    /// The section's own `a=ice-pwd`.
    public var icePassword: String? { attributes.values("ice-pwd").first }
    /// The section's own `a=fingerprint` lines.
    public var fingerprints: [SdpFingerprint] { attributes.values("fingerprint").compactMap(SdpFingerprint.parse) }
    /// The section's own `a=setup`.
    public var setup: SdpSetup? { attributes.setup }
    /// `a=sctp-port` (RFC 8841 §5): the SCTP port of a data channel section.
    public var sctpPort: UInt16? { attributes.values("sctp-port").first.flatMap { number(Substring($0), as: UInt16.self) } }
    /// `a=max-message-size` (RFC 8841 §6), bytes.
    public var maxMessageSize: UInt64? {
        attributes.values("max-message-size").first.flatMap { number(Substring($0), as: UInt64.self) }
    }
    /// The first `a=msid`.
    public var msid: SdpMsid? { attributes.values("msid").lazy.compactMap(SdpMsid.parse).first }
    /// `a=simulcast` (RFC 8853 §5.1), verbatim.
    public var simulcast: String? { attributes.values("simulcast").first }
    /// The `a=rid` lines, in order.
    public var rids: [SdpRid] { attributes.values("rid").compactMap(SdpRid.parse) }
    /// The `a=extmap` lines, in order.
    public var extensionMaps: [SdpExtensionMap] { attributes.values("extmap").compactMap(SdpExtensionMap.parse) }
    /// The `a=ssrc-group` lines, in order.
    public var ssrcGroups: [SdpSsrcGroup] { attributes.values("ssrc-group").compactMap(SdpSsrcGroup.parse) }

    /// The SSRCs of the `a=ssrc` lines, in the order they first appear, each
    /// with its attributes.
    public var ssrcs: [SdpSsrc] {
        var out: [SdpSsrc] = [], index: [UInt32: Int] = [:]
        for value in attributes.values("ssrc") {
            guard let (ssrc, name, v) = SdpSsrc.parseLine(value) else { continue }
            let i = index[ssrc] ?? {
                out.append(SdpSsrc(ssrc: ssrc))
                index[ssrc] = out.count - 1
                return out.count - 1
            }()
            if out[i].attributes[name] == nil { out[i].attributes[name] = v }
        }
        return out
    }

    /// The RTP payload types of the m= line that have an `a=rtpmap`, in the
    /// m= line's order, each with its fmtp and feedback (`*` feedback
    /// applies to all). Payload types without an rtpmap (static ones) are left out.
    public var codecs: [SdpCodec] {
        var maps: [UInt8: SdpCodec] = [:], feedback: [(UInt8?, String)] = []
        var parameters: [UInt8: String] = [:]
        for a in attributes {
            guard let value = a.value else { continue }
            switch a.name {
            case "rtpmap": if let c = SdpCodec.parseRtpmap(value), maps[c.payloadType] == nil { maps[c.payloadType] = c }
            case "fmtp": if let (pt, p) = SdpCodec.parseFmtp(value), parameters[pt] == nil { parameters[pt] = p }
            case "rtcp-fb": if let fb = SdpCodec.parseFeedback(value) { feedback.append(fb) }
            default: break
            }
        }
        var out: [SdpCodec] = [], seen = Set<UInt8>()
        for f in formats {
            guard let pt = number(Substring(f), as: UInt8.self), var c = maps[pt], seen.insert(pt).inserted else { continue }
            c.parameters = parameters[pt]
            c.feedback = feedback.compactMap { $0.0 == nil || $0.0 == pt ? $0.1 : nil }
            out.append(c)
        }
        return out
    }
}

// MARK: - Attribute grammar

extension Array where Element == SdpAttribute {
    /// The values of the attributes named `name`, in order ("" for a flag).
    func values(_ name: String) -> [String] { compactMap { $0.name == name ? ($0.value ?? "") : nil } }
    /// The first direction attribute.
    var direction: SdpDirection? { lazy.compactMap { SdpDirection(rawValue: $0.name) }.first }
    /// The first `a=setup`.
    var setup: SdpSetup? { values("setup").first.flatMap(SdpSetup.init(rawValue:)) }
}

extension SdpAttribute {
    /// Why this attribute breaks its grammar, for the attributes this module
    /// reads; nil when it is fine or unknown.
    var problem: String? {
        guard let value else { return Self.valued.contains(name) ? "a=\(name) without a value" : nil }
        let v = Substring(value)
        let fine = switch name {
        case "rtpmap": SdpCodec.parseRtpmap(value) != nil
        case "fmtp": SdpCodec.parseFmtp(value) != nil
        case "rtcp-fb": SdpCodec.parseFeedback(value) != nil
        case "extmap": SdpExtensionMap.parse(value) != nil
        case "ssrc": SdpSsrc.parseLine(value) != nil
        case "ssrc-group": SdpSsrcGroup.parse(value) != nil
        case "group": SdpGroup.parse(value) != nil
        case "rid": SdpRid.parse(value) != nil
        case "msid": SdpMsid.parse(value) != nil
        case "fingerprint": SdpFingerprint.parse(value) != nil
        case "setup": SdpSetup(rawValue: value) != nil
        case "mid": !v.isEmpty && !v.utf8.contains(UInt8(ascii: " ")) && !v.utf8.contains(UInt8(ascii: "\t"))
        case "ice-ufrag": isIceText(v, 4...256)
        case "ice-pwd": isIceText(v, 22...256)
        case "sctp-port": number(v, as: UInt16.self) != nil
        case "max-message-size": number(v, as: UInt64.self) != nil
        default: true
        }
        return fine ? nil : "bad a=\(name)"
    }

    /// The attributes `problem` reads a value of (the values of flags such
    /// as `a=rtcp-mux` are not read).
    static let valued: Set<String> = ["rtpmap", "fmtp", "rtcp-fb", "extmap", "ssrc", "ssrc-group", "group", "rid", "msid",
                                      "fingerprint", "setup", "mid", "ice-ufrag", "ice-pwd", "sctp-port", "max-message-size"]
}

/// Whether `s` is `length` ice-chars (RFC 8839 §5.4: ALPHA / DIGIT / "+" / "/").
func isIceText(_ s: Substring, _ length: ClosedRange<Int>) -> Bool {
    length.contains(s.utf8.count) && s.utf8.allSatisfy {
        ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39)
            || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/")
    }
}

extension SdpCodec {
    /// `<pt> <name>/<clock rate>[/<channels>]`; the codec without fmtp and feedback.
    static func parseRtpmap(_ value: String) -> SdpCodec? {
        let (ptText, encoding) = Substring(value).cut(UInt8(ascii: " "))
        guard let pt = number(ptText, as: UInt8.self), pt <= 127, let encoding else { return nil }
        let parts = encoding.pieces(UInt8(ascii: "/"))
        guard parts.count == 2 || parts.count == 3, !parts[0].isEmpty, parts[0].words.count == 1,
              let rate = number(parts[1], as: UInt32.self), rate > 0 else { return nil }
        var channels: UInt8?
        if parts.count == 3 {
            guard let c = number(parts[2], as: UInt8.self), c > 0 else { return nil }
            channels = c
        }
        return SdpCodec(payloadType: pt, name: String(parts[0]), clockRate: rate, channels: channels)
    }

    /// `<pt> <parameters>`.
    static func parseFmtp(_ value: String) -> (UInt8, String)? {
        let (ptText, rest) = Substring(value).cut(UInt8(ascii: " "))
        guard let pt = number(ptText, as: UInt8.self), pt <= 127, let rest, !rest.isEmpty else { return nil }
        return (pt, String(rest))
    }

    /// `<pt>|* <type>[ <subtype>...]`; nil payload type for `*`.
    static func parseFeedback(_ value: String) -> (UInt8?, String)? {
        let (ptText, rest) = Substring(value).cut(UInt8(ascii: " "))
        guard let rest, !rest.words.isEmpty else { return nil }
        let fb = rest.words.joined(separator: " ")
        if ptText == "*" { return (nil, fb) }
        guard let pt = number(ptText, as: UInt8.self), pt <= 127 else { return nil }
        return (pt, fb)
    }
}

extension SdpExtensionMap {
    /// `<id>[/<direction>] <uri>[ <attributes>]`, id 1...255 (RFC 8285 §5).
    static func parse(_ value: String) -> SdpExtensionMap? {
        let (head, rest) = Substring(value).cut(UInt8(ascii: " "))
        let (idText, dirText) = head.cut(UInt8(ascii: "/"))
        guard let id = number(idText, as: UInt16.self), (1...255).contains(id), let rest else { return nil }
        var direction: SdpDirection?
        if let dirText {
            guard let d = SdpDirection(rawValue: String(dirText)) else { return nil }
            direction = d
        }
        let (uri, attributes) = rest.cut(UInt8(ascii: " "))
        guard !uri.isEmpty else { return nil }
        return SdpExtensionMap(id: id, direction: direction, uri: String(uri), attributes: attributes.map(String.init))
    }
}

extension SdpSsrc {
    /// `<ssrc> <attribute>[:<value>]` (RFC 5576 §4.1).
    static func parseLine(_ value: String) -> (UInt32, String, String)? {
        let (ssrcText, rest) = Substring(value).cut(UInt8(ascii: " "))
        guard let ssrc = number(ssrcText, as: UInt32.self), let rest else { return nil }
        let (name, v) = rest.cut(UInt8(ascii: ":"))
        guard !name.isEmpty else { return nil }
        return (ssrc, String(name), v.map(String.init) ?? "")
    }
}

extension SdpSsrcGroup {
    /// `<semantics> <ssrc>...` (RFC 5576 §4.2), at least one SSRC.
    static func parse(_ value: String) -> SdpSsrcGroup? {
        let f = Substring(value).words
        guard f.count >= 2 else { return nil }
        var ssrcs: [UInt32] = []
        for s in f.dropFirst() {
            guard let n = number(s, as: UInt32.self) else { return nil }
            ssrcs.append(n)
        }
        return SdpSsrcGroup(semantics: String(f[0]), ssrcs: ssrcs)
    }
}

extension SdpGroup {
    /// `<semantics>[ <mid>...]` (RFC 5888 §5).
    static func parse(_ value: String) -> SdpGroup? {
        let f = Substring(value).words
        guard let semantics = f.first else { return nil }
        return SdpGroup(semantics: String(semantics), mids: f.dropFirst().map(String.init))
    }
}

extension SdpRid {
    /// `<id> send|recv[ <restrictions>]` (RFC 8851 §10).
    static func parse(_ value: String) -> SdpRid? {
        let (id, rest) = Substring(value).cut(UInt8(ascii: " "))
        guard !id.isEmpty, id.utf8.count <= 255, id.utf8.allSatisfy({
            ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39)
                || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        }), let rest else { return nil }
        let (direction, restrictions) = rest.cut(UInt8(ascii: " "))
        guard direction == "send" || direction == "recv" else { return nil }
        return SdpRid(id: String(id), sends: direction == "send", restrictions: restrictions.map(String.init))
    }
}

extension SdpMsid {
    /// `<stream id>[ <track id>]` (RFC 8830 §2).
    static func parse(_ value: String) -> SdpMsid? {
        let f = Substring(value).words
        guard f.count == 1 || f.count == 2 else { return nil }
        return SdpMsid(streamId: String(f[0]), trackId: f.count == 2 ? String(f[1]) : nil)
    }
}

extension SdpFingerprint {
    /// `<hash function> <hex>:<hex>...` (RFC 8122 §5), 1 to 64 bytes.
    static func parse(_ value: String) -> SdpFingerprint? {
        let f = Substring(value).words
        guard f.count == 2, f[0].utf8.count <= 32 else { return nil }
        let bytes = f[1].pieces(UInt8(ascii: ":"))
        guard (1...64).contains(bytes.count), bytes.allSatisfy({ $0.utf8.count == 2 && $0.utf8.allSatisfy(isHexDigit) })
        else { return nil }
        return SdpFingerprint(algorithm: String(f[0]), value: String(f[1]))
    }
}

/// Whether `b` is an ASCII hex digit.
func isHexDigit(_ b: UInt8) -> Bool {
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
}
