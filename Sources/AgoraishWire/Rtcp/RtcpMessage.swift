/// One RTCP packet type as a value: read from the bytes of one packet,
/// written back to them. Every conforming type lives in its own file.
public protocol RtcpMessage: Equatable, Sendable {
    /// Reads the packet at the start of `p` (bytes after the length its
    /// header announces are not read). Throws for another packet type, a
    /// truncated packet or fields that break the RFC's rules.
    static func parse(_ p: UnsafeRawBufferPointer) throws(WireError) -> Self
    /// Bytes `serialize(into:)` writes.
    var encodedSize: Int { get }
    /// Writes the packet at the start of `out` (at least `encodedSize`
    /// bytes) and returns `encodedSize`.
    func serialize(into out: UnsafeMutableRawBufferPointer) -> Int
}

extension RtcpMessage {
    /// The packet's bytes.
    public var bytes: [UInt8] { serialized(trailer: 0) }

    /// The packet's bytes followed by `trailer` zero bytes (room for the
    /// SRTCP trailer when the packet is protected in place), in one allocation.
    public func serialized(trailer: Int) -> [UInt8] {
        let n = encodedSize
        return [UInt8](unsafeUninitializedCapacity: n + trailer) { buffer, count in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            let written = serialize(into: raw)
            precondition(written == n, "serialize(into:) writes encodedSize bytes")
            for i in n..<(n + trailer) { buffer[i] = 0 }
            count = n + trailer
        }
    }

    /// Reads the packet at the start of `bytes`.
    public static func parse(_ bytes: [UInt8]) throws(WireError) -> Self {
        try withRaw(bytes) { raw throws(WireError) in try Self.parse(raw) }
    }
}

/// Calls `body` with the bytes of `array`, keeping `body`'s typed error.
func withRaw<R>(_ array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(WireError) -> R) throws(WireError) -> R {
    var result: Result<R, WireError>!
    array.withUnsafeBytes { raw in
        result = Result { () throws(WireError) -> R in try body(raw) }
    }
    return try result.get()
}
