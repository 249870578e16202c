/// The signaling protocol (docs/protocol.md) as typed values: one struct per
/// message, each read from and written to the `JSONValue` object that goes
/// on the wire. `SignalingCore` (the server) and `ClientSession` (the client)
/// both speak through these types, so a field is named in one place.
///
/// Reading is what the receiving side needs: requests (client → server) are
/// checked as the server checks them, field by field in the documented
/// order, failing with `SignalingFailure.badField`; replies and notices
/// (server → client) are read as tolerantly as a client must (fields it does
/// not use may be absent). Writing gives the text both sides have always
/// sent: object keys sorted, the envelope's `v`, `type` and `id` added.
/// Sockets, budgets and what a message does are the callers' business.
public enum Signaling {
    /// The protocol's version; every message carries it as "v".
    public static let version: Int64 = 1
}

/// One signaling message: its `type`, how it is read from a message object
/// and how its fields are written back.
public protocol SignalingMessage: Equatable, Sendable {
    /// The message's "type".
    static var type: String { get }
    /// Reads the message's fields (the envelope is checked before).
    init(_ fields: MessageFields) throws(SignalingFailure)
    /// Writes the message's own fields (not "v", "type" or "id").
    func encode(into members: inout [String: JSONValue])
}

extension SignalingMessage {
    /// The whole message object: the fields, "v", "type" and, for requests and their replies, "id".
    public func json(id: Int64? = nil) -> JSONValue {
        var members: [String: JSONValue] = [:]
        encode(into: &members)
        members["v"] = .integer(Signaling.version)
        members["type"] = .string(Self.type)
        if let id { members["id"] = .integer(id) }
        return .object(members)
    }

    /// The message as it goes on the wire.
    public func text(id: Int64? = nil) -> String { json(id: id).serialized }
}

/// Why a request failed: an Agora error code and a reason label (docs/protocol.md §Errors).
public enum SignalingFailure: Error, Equatable, Sendable {
    case malformed
    case unsupportedVersion
    case unknownType(String)
    case badField(String)
    case code(Int32, String)

    /// The negated Agora error code of the `error` reply.
    public var code: Int32 {
        switch self {
        case .malformed, .unknownType, .badField: -2
        case .unsupportedVersion: -4
        case .code(let c, _): c
        }
    }

    /// The `reason` label of the `error` reply.
    public var reason: String {
        switch self {
        case .malformed: "malformed"
        case .unsupportedVersion: "unsupported_version"
        // The type is echoed back cut to 32 characters: an error never costs much more than the request.
        case .unknownType(let t): "unknown_type:\(t.prefix(32))"
        case .badField(let f): "bad_field:\(f)"
        case .code(_, let r): r
        }
    }
}

/// The members of one message object, read by key. The throwing readers are
/// the server's rules for requests (docs/protocol.md, value rules): a required
/// field must be there with the right type and range; an optional one that is
/// absent or `null` is nil, and otherwise must be right too. The `lenient`
/// readers are a client's: whatever does not fit is nil.
public struct MessageFields: Sendable {
    /// The message object's members.
    public let members: [String: JSONValue]

    /// Fields of a message object.
    public init(_ members: [String: JSONValue]) { self.members = members }

    /// Parses message text; nil unless it is a JSON object. Callers bound the
    /// cost first (`JSONValue.withinLimits`) where the text is untrusted and large.
    public init?(text: String) {
        guard case .object(let members)? = try? JSONValue.parse(text) else { return nil }
        self.members = members
    }

    /// The request id, if the message has one (an integer; anything else counts as none).
    public var id: Int64? { members["id"]?.integerValue }

    /// The message type, if it is a string.
    public var type: String? { members["type"]?.stringValue }

    public func string(_ key: String) throws(SignalingFailure) -> String {
        guard let s = members[key]?.stringValue else { throw .badField(key) }
        return s
    }

    public func optionalString(_ key: String) throws(SignalingFailure) -> String? {
        guard let v = members[key], v != .null else { return nil }
        guard let s = v.stringValue else { throw .badField(key) }
        return s
    }

    public func integer(_ key: String, in range: ClosedRange<Int64>) throws(SignalingFailure) -> Int64 {
        guard let i = members[key]?.integerValue, range.contains(i) else { throw .badField(key) }
        return i
    }

    public func optionalInteger(_ key: String, in range: ClosedRange<Int64>) throws(SignalingFailure) -> Int64? {
        guard let v = members[key], v != .null else { return nil }
        guard let i = v.integerValue, range.contains(i) else { throw .badField(key) }
        return i
    }

    public func bool(_ key: String) throws(SignalingFailure) -> Bool {
        guard let b = members[key]?.boolValue else { throw .badField(key) }
        return b
    }

    public func optionalBool(_ key: String) throws(SignalingFailure) -> Bool? {
        guard let v = members[key], v != .null else { return nil }
        guard let b = v.boolValue else { throw .badField(key) }
        return b
    }

    /// An optional SSRC (0...4294967295).
    public func optionalSsrc(_ key: String) throws(SignalingFailure) -> UInt32? {
        try optionalInteger(key, in: 0...0xFFFF_FFFF).map { UInt32($0) }
    }

    /// An optional array of uids (1...UInt32.max), at most `limit` long.
    public func uidList(_ key: String, limit: Int) throws(SignalingFailure) -> Set<UInt32> {
        guard let v = members[key], v != .null else { return [] }
        guard case .array(let items) = v, items.count <= limit else { throw .badField(key) }
        var uids = Set<UInt32>()
        for item in items {
            guard let i = item.integerValue, let uid = UInt32(exactly: i), uid > 0 else { throw .badField(key) }
            uids.insert(uid)
        }
        return uids
    }

    /// A uid (1...UInt32.max), required.
    public func uid(_ key: String = "uid") throws(SignalingFailure) -> UInt32 {
        UInt32(try integer(key, in: 1...Int64(UInt32.max)))
    }

    /// The string, or nil.
    public func lenientString(_ key: String) -> String? { members[key]?.stringValue }
    /// The integer, or nil.
    public func lenientInteger(_ key: String) -> Int64? { members[key]?.integerValue }
    /// The boolean, or nil.
    public func lenientBool(_ key: String) -> Bool? { members[key]?.boolValue }
    /// A 32-bit unsigned value (an SSRC), or nil.
    public func lenientUInt32(_ key: String) -> UInt32? { members[key]?.integerValue.flatMap { UInt32(exactly: $0) } }
}

extension Dictionary where Key == String, Value == JSONValue {
    /// Sets `key` to the integer, or leaves it out when nil.
    mutating func put(_ key: String, _ value: Int64?) { if let value { self[key] = .integer(value) } }
    /// Sets `key` to the string, or leaves it out when nil.
    mutating func put(_ key: String, _ value: String?) { if let value { self[key] = .string(value) } }
    /// Sets `key` to the boolean, or leaves it out when nil.
    mutating func put(_ key: String, _ value: Bool?) { if let value { self[key] = .bool(value) } }
    /// Sets `key` to the 32-bit value, or leaves it out when nil.
    mutating func put(_ key: String, _ value: UInt32?) { if let value { self[key] = .integer(Int64(value)) } }
}
