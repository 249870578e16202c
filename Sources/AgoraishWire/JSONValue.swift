/// A JSON value, parsed and serialized without loss of integer precision.
///
/// Used for private engine parameters (`setParameters`) and, later, for
/// signaling messages whose shape is not fixed. Parsing is strict RFC 8259
/// (`parse`, JSONValue+Parse.swift); integers that fit in 64 bits stay integers.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The shape of JSON text in one pass over its bytes, without parsing:
    /// object members (all objects together), values (members, array items
    /// and the top value) and the deepest nesting. Run before `parse` so that
    /// the cost of parsing a message is bounded and can be charged (signaling
    /// budgets, docs/server.md). Malformed text gets a shape too; `parse` refuses it.
    public static func shape(_ text: String) -> (keys: Int, values: Int, depth: Int) {
        var keys = 0, commas = 0, containers = 0, depth = 0, deepest = 0
        var inString = false, escaped = false
        for b in text.utf8 {
            if inString {
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch b {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                containers += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ":"): keys += 1
            case UInt8(ascii: ","): commas += 1
            default: break
            }
        }
        // Each container holds one more value than its commas (empty ones are over-counted: a bound, not a count).
        return (keys, commas + containers + 1, deepest)
    }

    /// Whether `text` stays within `maxKeys` object members (all objects
    /// together) and `maxDepth` levels of nesting (see `shape`).
    public static func withinLimits(_ text: String, maxKeys: Int, maxDepth: Int) -> Bool {
        let s = shape(text)
        return s.keys <= maxKeys && s.depth <= maxDepth
    }

    /// The value as JSON text (object keys sorted, so output is stable).
    public var serialized: String {
        var out = ""
        write(into: &out)
        return out
    }

    /// The integer, if this is one (a number with no fraction that fits counts too).
    public var integerValue: Int64? {
        switch self {
        case .integer(let v): v
        case .number(let d) where d.rounded() == d && abs(d) < 9.0e18: Int64(d)
        default: nil
        }
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    private func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let v): out += String(v)
        case .number(let d): out += d.isFinite ? "\(d)" : "null"
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, key) in members.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                Self.writeString(key, into: &out)
                out += ":"
                members[key]!.write(into: &out)
            }
            out += "}"
        }
    }

    /// Writes `s` as a JSON string literal (RFC 8259 §7).
    public static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? container.decode(Int64.self) {
            self = .integer(i)
        } else if let d = try? container.decode(Double.self) {
            self = .number(d)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .integer(let i): try container.encode(i)
        case .number(let d): try container.encode(d)
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}
