/// A synchronization source identifier (RFC 3550 §3): the 32-bit number that
/// names one RTP stream. A type of its own so that an SSRC cannot be passed
/// where a sequence number, a timestamp or a uid is meant.
@frozen
public struct Ssrc: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The number as it travels on the wire.
    public var rawValue: UInt32

    /// The SSRC whose number is `rawValue`.
    @inlinable
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The SSRC whose number is `value`.
    @inlinable
    public init(_ value: UInt32) { rawValue = value }
    /// An SSRC written as a number literal.
    @inlinable
    public init(integerLiteral value: UInt32) { rawValue = value }

    /// The SSRC 0: "none" in the fields where RFC 4585 and
    /// draft-alvestrand-rmcat-remb leave a source unnamed.
    @inlinable public static var none: Ssrc { 0 }

    @inlinable
    public static func == (a: Ssrc, b: Ssrc) -> Bool { a.rawValue == b.rawValue }

    /// The number in hexadecimal, as RTP tools print it.
    public var description: String { "0x" + String(rawValue, radix: 16) }
}

/// An RTP payload type (RFC 3550 §5.1): the 7-bit number that tells a
/// receiver how to read a packet's payload. The numbers this project uses are
/// in `MediaTable.swift`.
@frozen
public struct PayloadType: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// The number, 0...127.
    public let rawValue: UInt8

    /// The payload type in the low seven bits of `rawValue` (the eighth is
    /// the RTP marker bit when the byte is read from a header).
    @inlinable
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x7F }
    /// The payload type in the low seven bits of `value`.
    @inlinable
    public init(_ value: UInt8) { self.init(rawValue: value) }
    /// A payload type written as a number literal (0...127).
    @inlinable
    public init(integerLiteral value: UInt8) { self.init(rawValue: value) }

    @inlinable
    public static func == (a: PayloadType, b: PayloadType) -> Bool { a.rawValue == b.rawValue }
    @inlinable
    public static func < (a: PayloadType, b: PayloadType) -> Bool { a.rawValue < b.rawValue }
    /// The number in decimal.
    public var description: String { String(rawValue) }
}
