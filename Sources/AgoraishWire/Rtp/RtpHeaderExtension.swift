import Glibc

/// RTP header extensions in the one-byte form (RFC 8285 §4.2): the 0xBEDE
/// profile, then elements of (4-bit id, 4-bit length - 1, data), padded to
/// 32 bits. Ids 1...14 are usable; 15 is reserved and ends parsing.
public enum RtpHeaderExtension {
    /// The one-byte form's "defined by profile" value.
    public static let oneByteProfile: UInt16 = 0xBEDE

    /// The extension block (profile, length in words, elements, padding) for
    /// elements of 1...16 bytes with ids 1...14.
    public static func oneByte(_ elements: [(id: UInt8, data: [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for (id, data) in elements {
            precondition((1...14).contains(id) && (1...16).contains(data.count), "one-byte elements: id 1-14, 1-16 bytes")
            body.append(id << 4 | UInt8(data.count - 1))
            body += data
        }
        while body.count % 4 != 0 { body.append(0) }
        let words = body.count / 4
        return [0xBE, 0xDE, UInt8(words >> 8), UInt8(words & 0xFF)] + body
    }

    /// Where the element `id` of a packet's one-byte extension block is:
    /// the offset of its data and its length. Nil when the packet has no such
    /// element or its block is malformed. Allocates nothing.
    public static func element(_ id: UInt8, in p: UnsafeRawBufferPointer) -> (offset: Int, length: Int)? {
        guard p.count >= 16, p[0] & 0x10 != 0 else { return nil }
        let start = 12 + 4 * Int(p[0] & 0x0F)
        guard start + 4 <= p.count, p[start] == 0xBE, p[start + 1] == 0xDE else { return nil }
        let end = start + 4 + 4 * (Int(p[start + 2]) << 8 | Int(p[start + 3]))
        guard end <= p.count else { return nil }
        var i = start + 4
        while i < end {
            let head = p[i]
            if head == 0 { i += 1; continue }
            let found = head >> 4, length = Int(head & 0x0F) + 1
            if found == 15 || i + 1 + length > end { return nil }
            if found == id { return (i + 1, length) }
            i += 1 + length
        }
        return nil
    }

    /// The extension that marks a payload encrypted end to end by the
    /// built-in encryption (docs/encryption.md): one byte, the mode (Agora's
    /// ENCRYPTION_MODE). Absent on payloads that are not encrypted.
    public static let payloadProtectionId = HeaderExtensionId.payloadProtection

    /// The elements of a one-byte extension block starting at `offset` (the
    /// profile word). Throws for a block that runs past the packet or another profile.
    public static func parseOneByte(_ packet: UnsafeRawBufferPointer, at offset: Int) throws(WireError)
        -> [(id: UInt8, data: ArraySlice<UInt8>)]
    {
        guard offset + 4 <= packet.count else { throw .truncated }
        guard packet[offset] == 0xBE && packet[offset + 1] == 0xDE else { throw .unsupported("not a one-byte extension") }
        let words = Int(packet[offset + 2]) << 8 | Int(packet[offset + 3])
        let end = offset + 4 + words * 4
        guard end <= packet.count else { throw .truncated }
        var elements: [(UInt8, ArraySlice<UInt8>)] = []
        var i = offset + 4
        let bytes = Array(packet)
        while i < end {
            let head = bytes[i]
            if head == 0 { i += 1; continue }  // padding
            let id = head >> 4
            if id == 15 { break }
            let length = Int(head & 0x0F) + 1
            guard i + 1 + length <= end else { throw .truncated }
            elements.append((id, bytes[(i + 1)..<(i + 1 + length)]))
            i += 1 + length
        }
        return elements
    }
}

/// The client-to-mixer audio level (RFC 6464 §3): a voice-activity bit and
/// the level in -dBov, 0 (loudest) ... 127 (silence).
public struct AudioLevel: Sendable, Equatable {
    /// The sender's voice activity decision.
    public var voiceActivity: Bool
    /// Level in -dBov, 0...127.
    public var level: UInt8

    /// A level; values above 127 are clamped.
    public init(voiceActivity: Bool, level: UInt8) {
        self.voiceActivity = voiceActivity
        self.level = min(level, 127)
    }

    /// The level of 16-bit PCM (RMS against full scale, RFC 6464 §4).
    public init(pcm: UnsafeBufferPointer<Int16>, voiceActivity: Bool) {
        var sum = 0.0
        for s in pcm { sum += Double(s) * Double(s) }
        let rms = pcm.isEmpty ? 0 : (sum / Double(pcm.count)).squareRoot() / 32768
        let dBov = rms > 0 ? -20 * log10(rms) : 127
        self.init(voiceActivity: voiceActivity, level: UInt8(max(0, min(127, dBov.rounded()))))
    }

    /// The one-byte element data.
    public var byte: UInt8 { (voiceActivity ? 0x80 : 0) | level }

    /// Reads the element data.
    public init(byte: UInt8) {
        self.init(voiceActivity: byte & 0x80 != 0, level: byte & 0x7F)
    }
}
