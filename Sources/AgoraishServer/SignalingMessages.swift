import AgoraishWire

/// The signaling protocol's version; every message carries it as "v".
public let signalingProtocolVersion: Int64 = 1

/// Reading typed fields out of a signaling message (a JSON object).
struct MessageFields {
    let members: [String: JSONValue]

    /// The request id, if the message has one (an integer).
    var id: Int64? { members["id"]?.integerValue }

    func string(_ key: String) throws(SignalingFailure) -> String {
        guard let s = members[key]?.stringValue else { throw .badField(key) }
        return s
    }

    func optionalString(_ key: String) throws(SignalingFailure) -> String? {
        guard let v = members[key], v != .null else { return nil }
        guard let s = v.stringValue else { throw .badField(key) }
        return s
    }

    func integer(_ key: String, in range: ClosedRange<Int64>) throws(SignalingFailure) -> Int64 {
        guard let i = members[key]?.integerValue, range.contains(i) else { throw .badField(key) }
        return i
    }

    func optionalInteger(_ key: String, in range: ClosedRange<Int64>) throws(SignalingFailure) -> Int64? {
        guard let v = members[key], v != .null else { return nil }
        guard let i = v.integerValue, range.contains(i) else { throw .badField(key) }
        return i
    }
}

/// Why a request failed: an Agora error code and a reason label (docs/protocol.md §Errors).
enum SignalingFailure: Error, Equatable {
    case malformed
    case unsupportedVersion
    case unknownType(String)
    case badField(String)
    case code(Int32, String)

    var code: Int32 {
        switch self {
        case .malformed, .unknownType, .badField: -2
        case .unsupportedVersion: -4
        case .code(let c, _): c
        }
    }

    var reason: String {
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

/// Builds a message object with "v" and "type" set.
func message(_ type: String, _ fields: [String: JSONValue] = [:], id: Int64? = nil) -> String {
    var all = fields
    all["v"] = .integer(signalingProtocolVersion)
    all["type"] = .string(type)
    if let id { all["id"] = .integer(id) }
    return JSONValue.object(all).serialized
}

extension MessageFields {
    func bool(_ key: String) throws(SignalingFailure) -> Bool {
        guard let b = members[key]?.boolValue else { throw .badField(key) }
        return b
    }

    func optionalBool(_ key: String) throws(SignalingFailure) -> Bool? {
        guard let v = members[key], v != .null else { return nil }
        guard let b = v.boolValue else { throw .badField(key) }
        return b
    }

    /// An optional array of uids (1...UInt32.max), at most `limit` long.
    func uidList(_ key: String, limit: Int) throws(SignalingFailure) -> Set<UInt32> {
        guard let v = members[key], v != .null else { return [] }
        guard case .array(let items) = v, items.count <= limit else { throw .badField(key) }
        var uids = Set<UInt32>()
        for item in items {
            guard let i = item.integerValue, let uid = UInt32(exactly: i), uid > 0 else { throw .badField(key) }
            uids.insert(uid)
        }
        return uids
    }
}
