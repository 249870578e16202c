@testable import AgoraishWire
import Testing

/// `JSONValue.parse`: the RFC 8259 grammar, the integer and number rules,
/// escapes and surrogates, nesting, and what it refuses (JSONValue+Parse.swift).
/// The expected values were taken from the `JSONDecoder`-based reader this
/// parser replaced, except where a test says otherwise.
@Suite struct JSONValueTests {
    static func parsed(_ text: String) -> JSONValue? { try? JSONValue.parse(text) }

    @Test(arguments: [
        ("0", 0), ("-0", 0), ("1", 1), ("-1", -1), ("42", 42), (" 7 ", 7),
        ("9223372036854775807", Int64.max), ("-9223372036854775808", Int64.min),
    ] as [(String, Int64)])
    func integerLiteralsWithinInt64StayExactIntegers(_ text: String, _ value: Int64) {
        #expect(Self.parsed(text) == .integer(value))
    }

    @Test(arguments: [
        ("9223372036854775808", 9223372036854775808.0), ("-9223372036854775809", -9223372036854775809.0),
        ("18446744073709551616", 18446744073709551616.0), ("100000000000000000000000", 1e23),
    ] as [(String, Double)])
    func integerLiteralsBeyondInt64AreNumbers(_ text: String, _ value: Double) {
        #expect(Self.parsed(text) == .number(value))
    }

    @Test(arguments: [
        ("1.0", 1), ("-0.0", 0), ("1e2", 100), ("1E+2", 100), ("0.5e1", 5), ("1.0e2", 100),
        ("1e-400", 0), ("1.0000000000000000000000001", 1), ("1e18", 1_000_000_000_000_000_000),
        ("9007199254740993.0", 9_007_199_254_740_993), ("-9.2233720368547758e18", -9_223_372_036_854_775_800),
        // From 2^53 up the exact decimal value decides (JSONDecoder gave .number for these two).
        ("9223372036854775807.0", Int64.max), ("-9223372036854775808.0", Int64.min),
    ] as [(String, Int64)])
    func wholeNumbersWithFractionOrExponentAreIntegers(_ text: String, _ value: Int64) {
        #expect(Self.parsed(text) == .integer(value))
    }

    @Test(arguments: [
        ("1.5", 1.5), ("-1.5", -1.5), ("0.1", 0.1), ("1e-2", 0.01), ("1e-7", 1e-7), ("1e19", 1e19), ("-1e19", -1e19),
        ("9.3e18", 9.3e18), ("1e308", 1e308), ("1.7976931348623157e308", .greatestFiniteMagnitude),
        ("4.9e-324", 5e-324), ("12345678901234567890e-10", 1234567890.1234567),
        ("9007199254740993.5", 9007199254740994.0), ("-9223372036854775809.0", -9223372036854775808.0),
    ] as [(String, Double)])
    func otherNumbersAreDoubles(_ text: String, _ value: Double) {
        #expect(Self.parsed(text) == .number(value))
    }

    @Test(arguments: ["01", "-01", "00", "1.", "1.e1", ".5", "-", "+1", "1e", "1e+", "0x10", "1_000",
                      "1e400", "-1e400", "1.8e308", "NaN", "Infinity", "-Infinity", "nan", "inf"])
    func numbersOutsideTheGrammarOrRangeAreRefused(_ text: String) {
        #expect(Self.parsed(text) == nil)
    }

    @Test func literalsAreCaseSensitiveAndComplete() {
        #expect(Self.parsed("true") == .bool(true))
        #expect(Self.parsed("false") == .bool(false))
        #expect(Self.parsed("null") == .null)
        for bad in ["True", "tru", "nul", "nulll", "falsey"] { #expect(Self.parsed(bad) == nil, "\(bad)") }
    }

    @Test(arguments: [
        (#""""#, ""), (#""a""#, "a"), (#""\u0041""#, "A"), (#""\u00e9""#, "é"), (#""\u00E9""#, "é"),
        (#""\"\\\/""#, "\"\\/"), (#""\b\f\n\r\t""#, "\u{8}\u{C}\n\r\t"), (#""\u0000""#, "\u{0}"),
        ("\"a\u{7F}b\"", "a\u{7F}b"), ("\"é😀\"", "é😀"), (#""x\ty""#, "x\ty"),
    ] as [(String, String)])
    func stringEscapesDecode(_ text: String, _ value: String) {
        #expect(Self.parsed(text) == .string(value))
    }

    @Test func surrogatePairsJoinAndLoneHalvesAreRefused() {
        #expect(Self.parsed(#""\ud83d\ude00""#) == .string("😀"))
        #expect(Self.parsed(#""\uD83D\uDE00""#) == .string("😀"))
        #expect(Self.parsed(#""\uDBFF\uDFFF""#) == .string("\u{10FFFF}"))
        #expect(Self.parsed(#""a\uD800\uDC00b""#) == .string("a\u{10000}b"))
        for bad in [#""\ud83d""#, #""\ude00""#, #""\ud83dx""#, #""\ud83d\u0041""#, #""\uDC00\uD800""#,
                    #""\ud800\ud800""#, #""\ud83d\""#, #""\ud83d\u""#] {
            #expect(Self.parsed(bad) == nil, "\(bad)")
        }
    }

    @Test(arguments: [#""\x""#, #""\u12""#, #""\u12G4""#, #""\u00""#, #""\'""#, "\"a\tb\"", "\"a\nb\"",
                      "\"a\u{0}b\"", "\"\u{1F}\"", #""abc"#, #""\"#, "'a'"])
    func badStringsAreRefused(_ text: String) {
        #expect(Self.parsed(text) == nil)
    }

    @Test func containersNestAndKeepTheirMembers() throws {
        let v = try JSONValue.parse(#" { "a" : [1, 2.5, "x", null, true, {"b": []}], "c": {}, "": -3 } "#)
        #expect(v == .object([
            "a": .array([.integer(1), .number(2.5), .string("x"), .null, .bool(true), .object(["b": .array([])])]),
            "c": .object([:]), "": .integer(-3),
        ]))
        #expect(try JSONValue.parse("[[[]]]") == .array([.array([.array([])])]))
        #expect(try JSONValue.parse(#"{"a\u0000b": 1}"#) == .object(["a\u{0}b": .integer(1)]))
    }

    @Test func theFirstOfDuplicateKeysWins() throws {
        #expect(try JSONValue.parse(#"{"a":1,"a":2}"#) == .object(["a": .integer(1)]))
        #expect(try JSONValue.parse(#"{"a":{"x":1},"a":[2]}"#) == .object(["a": .object(["x": .integer(1)])]))
    }

    @Test func nestingStopsAt512Levels() {
        func nested(_ n: Int) -> String { String(repeating: "[", count: n) + String(repeating: "]", count: n) }
        #expect(JSONValue.maxParseDepth == 512)
        #expect(Self.parsed(nested(512)) != nil)
        #expect(Self.parsed(nested(513)) == nil)
        let objects = String(repeating: #"{"k":"#, count: 513) + "1" + String(repeating: "}", count: 513)
        #expect(Self.parsed(objects) == nil)
        #expect(Self.parsed(String(repeating: "[", count: 100_000)) == nil)
    }

    @Test(arguments: ["", "  ", "\t", "\u{0}", "[1]\u{0}", "1 2", "[1]x", "[1] ]", "[1 2]", #"{"a" 1}"#, "{a:1}",
                      "{1:2}", "[,1]", "{,}", "[true false]", #"{"a":1 "b":2}"#, "/*c*/1", "1//c", "[1,/*c*/2]",
                      "\u{A0}1", "[", "{", #"{"a":"#, #"{"a""#, "]", "}",
                      // JSONDecoder accepted a comma before the close; RFC 8259 does not.
                      "[1,]", #"{"a":1,}"#])
    func textThatIsNotOneJSONValueIsRefused(_ text: String) {
        #expect(Self.parsed(text) == nil)
    }

    @Test func whitespaceAndALeadingByteOrderMarkAreSkipped() {
        #expect(Self.parsed("\r\n\t {} \r\n") == .object([:]))
        #expect(Self.parsed("\u{FEFF}1") == .integer(1))
        #expect(Self.parsed("1\u{FEFF}") == nil)
    }

    @Test func refusalsAreMalformedNotJSON() {
        #expect(throws: WireError.malformed("not JSON")) { try JSONValue.parse("[1,") }
    }

    @Test func serializedTextParsesBackToTheSameValue() throws {
        let v: JSONValue = .object([
            "s": .string("q\"\\\n\u{1}é😀"), "i": .integer(.min), "n": .number(0.1), "a": .array([.null, .bool(false)]),
        ])
        #expect(try JSONValue.parse(v.serialized) == v)
    }
}
