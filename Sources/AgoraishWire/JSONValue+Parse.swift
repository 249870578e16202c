/// Reading JSON text (RFC 8259) into a `JSONValue`, with the standard
/// library only.
///
/// The rules, kept from the `JSONDecoder`-based reader this replaces
/// (Tests/AgoraishWireTests/JSONValueTests.swift pins each):
///
/// - The grammar of RFC 8259 §2-§7, nothing more: no comments, no single
///   quotes, no trailing commas, no leading zeros or `+`, no `NaN` or
///   `Infinity`, no raw control characters (U+0000-U+001F) in strings, and
///   nothing but whitespace after the value. A leading byte order mark is
///   skipped (§8.1 allows it).
/// - An integer literal (no fraction, no exponent) within Int64 is
///   `.integer`, exactly; beyond Int64 it is `.number`.
/// - A number with a fraction or an exponent is read as a Double, correctly
///   rounded and independent of the C locale. One the Double cannot hold
///   (`1e400`) is an error. It is `.integer` when it is a whole number Int64
///   holds: below 2^53 in magnitude judged on the Double (`1.0`, `1e2`, and
///   `1e-400` as 0, as `JSONDecoder` did), from 2^53 up on its exact decimal
///   value (`9007199254740993.0`); otherwise `.number`.
/// - `\uXXXX` escapes pair surrogates (§7); a lone or reversed surrogate is an
///   error. `\u0000` is allowed and gives U+0000.
/// - A key that appears twice in one object keeps its first value.
/// - At most 512 nested arrays and objects (as `JSONDecoder`).
///
/// Two differences from `JSONDecoder`, both towards RFC 8259: a comma before
/// `]` or `}` is an error (`JSONDecoder` accepted `[1,]`), and a number with a
/// fraction or exponent from 2^53 up is judged on its exact value, so
/// `-9223372036854775808.0` is `.integer` and `9007199254740993.5` a `.number`.
extension JSONValue {
    /// The deepest nesting of arrays and objects `parse` accepts.
    public static let maxParseDepth = 512

    /// Parses UTF-8 JSON text. Throws `WireError.malformed("not JSON")` for
    /// anything that is not JSON under the rules above.
    public static func parse(_ text: String) throws(WireError) -> JSONValue {
        var text = text
        let value: JSONValue? = text.withUTF8 { bytes in
            var reader = JSONReader(bytes: bytes)
            return reader.document()
        }
        guard let value else { throw .malformed("not JSON") }
        return value
    }
}

/// A recursive-descent reader over the UTF-8 bytes of one JSON text. Every
/// method returns nil at the first byte that breaks the grammar.
private struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0
    var depth = 0
    /// Bytes of a string with escapes, reused from string to string.
    var scratch: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The whole text: an optional byte order mark, whitespace, one value, whitespace.
    mutating func document() -> JSONValue? {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        skipWhitespace()
        guard let v = value() else { return nil }
        skipWhitespace()
        return i == bytes.count ? v : nil
    }

    /// Skips RFC 8259 whitespace: space, tab, line feed, carriage return.
    mutating func skipWhitespace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    mutating func value() -> JSONValue? {
        guard i < bytes.count else { return nil }
        switch bytes[i] {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return nil
        }
    }

    mutating func literal(_ word: StaticString, _ v: JSONValue) -> JSONValue? {
        let n = word.utf8CodeUnitCount
        guard bytes.count - i >= n else { return nil }
        for k in 0..<n where bytes[i + k] != word.utf8Start[k] { return nil }
        i += n
        return v
    }

    mutating func array() -> JSONValue? {
        depth += 1
        guard depth <= JSONValue.maxParseDepth else { return nil }
        defer { depth -= 1 }
        i += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
            i += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            guard let item = value() else { return nil }
            items.append(item)
            skipWhitespace()
            guard i < bytes.count else { return nil }
            switch bytes[i] {
            case UInt8(ascii: ","): i += 1
            case UInt8(ascii: "]"):
                i += 1
                return .array(items)
            default: return nil
            }
        }
    }

    mutating func object() -> JSONValue? {
        depth += 1
        guard depth <= JSONValue.maxParseDepth else { return nil }
        defer { depth -= 1 }
        i += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
            i += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\""), let key = string() else { return nil }
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipWhitespace()
            guard let v = value() else { return nil }
            // The first of duplicate keys wins, as with JSONDecoder.
            if members[key] == nil { members[key] = v }
            skipWhitespace()
            guard i < bytes.count else { return nil }
            switch bytes[i] {
            case UInt8(ascii: ","): i += 1
            case UInt8(ascii: "}"):
                i += 1
                return .object(members)
            default: return nil
            }
        }
    }

    /// A string literal from its opening quote (RFC 8259 §7). The input is a
    /// Swift string, so its bytes are valid UTF-8 and a quote or backslash
    /// byte never falls inside a multi-byte character.
    mutating func string() -> String? {
        i += 1
        let start = i
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
                i += 1
                return s
            }
            if b == UInt8(ascii: "\\") { return escapedString(from: start) }
            if b < 0x20 { return nil }
            i += 1
        }
        return nil
    }

    /// The rest of a string literal that holds escapes; `start` is its first byte.
    mutating func escapedString(from start: Int) -> String? {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            switch b {
            case UInt8(ascii: "\""): return String(decoding: scratch, as: UTF8.self)
            case 0..<0x20: return nil
            case UInt8(ascii: "\\"):
                guard i < bytes.count else { return nil }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(e)
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = escapedScalar() else { return nil }
                    UTF8.encode(scalar) { scratch.append($0) }
                default: return nil
                }
            default: scratch.append(b)
            }
        }
        return nil
    }

    /// The scalar of a `\u` escape whose `\u` has been read, with the low half
    /// of a surrogate pair when the first is a high half.
    mutating func escapedScalar() -> Unicode.Scalar? {
        guard let unit = hex4() else { return nil }
        switch unit {
        case 0xD800...0xDBFF:
            guard bytes.count - i >= 2, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else { return nil }
            i += 2
            guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
        case 0xDC00...0xDFFF: return nil
        default: return Unicode.Scalar(unit)
        }
    }

    /// Four hex digits, either case.
    mutating func hex4() -> UInt32? {
        guard bytes.count - i >= 4 else { return nil }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
            default: return nil
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    /// A number (RFC 8259 §6): `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    mutating func number() -> JSONValue? {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, isDigit(bytes[i]) else { return nil }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        var plain = true
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            plain = false
            i += 1
            guard i < bytes.count, isDigit(bytes[i]) else { return nil }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            plain = false
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { return nil }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<i])
        if plain, let v = JSONNumber.plainInteger(text) { return .integer(v) }
        // Double(String) reads with the C locale (the standard library's strtod).
        guard let d = Double(String(decoding: text, as: UTF8.self)), d.isFinite else { return nil }
        guard !plain, d.rounded(.towardZero) == d else { return .number(d) }
        if d.magnitude < 0x1p53 { return .integer(Int64(d)) }
        return JSONNumber.exactInteger(text).map(JSONValue.integer) ?? .number(d)
    }

    func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}

/// Exact integer readings of JSON number text already checked against the grammar.
enum JSONNumber {
    /// `-?[0-9]+` as an Int64, or nil when it overflows.
    static func plainInteger(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        let negative = text[0] == UInt8(ascii: "-")
        // Accumulated negative, so that Int64.min is reachable.
        var v: Int64 = 0
        for b in text.dropFirst(negative ? 1 : 0) {
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.subtractingReportingOverflow(Int64(b - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            v = s
        }
        if negative { return v }
        return v == .min ? nil : -v
    }

    /// The exact value of number text with a fraction or exponent when it is a
    /// whole number within Int64, else nil (`1.50e1` is 15, `1.5` and `1e19` nil).
    static func exactInteger(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        var k = 0
        let negative = text[0] == UInt8(ascii: "-")
        if negative { k = 1 }
        var digits: [UInt8] = []
        var fractionDigits = 0
        var inFraction = false
        while k < text.count, text[k] != UInt8(ascii: "e"), text[k] != UInt8(ascii: "E") {
            let b = text[k]
            k += 1
            if b == UInt8(ascii: ".") {
                inFraction = true
                continue
            }
            if inFraction { fractionDigits += 1 }
            // Leading zeros carry no value.
            if digits.isEmpty && b == UInt8(ascii: "0") { continue }
            digits.append(b - UInt8(ascii: "0"))
        }
        var exponent = 0
        if k < text.count {
            k += 1
            var exponentNegative = false
            if text[k] == UInt8(ascii: "+") || text[k] == UInt8(ascii: "-") {
                exponentNegative = text[k] == UInt8(ascii: "-")
                k += 1
            }
            // Saturated: beyond a billion the value is 0 or out of range either way.
            while k < text.count {
                exponent = min(exponent * 10 + Int(text[k] - UInt8(ascii: "0")), 1_000_000_000)
                k += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        var scale = exponent - fractionDigits
        while scale < 0, let last = digits.last, last == 0 {
            digits.removeLast()
            scale += 1
        }
        if digits.isEmpty { return 0 }
        guard scale >= 0, digits.count + scale <= 19 else { return nil }
        var v: Int64 = 0
        for d in digits + [UInt8](repeating: 0, count: scale) {
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.subtractingReportingOverflow(Int64(d))
            guard !o1, !o2 else { return nil }
            v = s
        }
        if negative { return v }
        return v == .min ? nil : -v
    }
}
