import COpenSSL

/// A STUN message (RFC 8489): the binding requests and responses that check
/// connectivity and keep NAT bindings alive on the media port (ICE-lite on
/// the server, RFC 8445 §2.5).
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |0 0|     STUN Message Type     |         Message Length        |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         Magic Cookie                          |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                     Transaction ID (96 bits)                  |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
public struct StunMessage: Sendable, Equatable {
    /// Message types used here (RFC 8489 §5, §18.2).
    public enum MessageType: UInt16, Sendable {
        case bindingRequest = 0x0001
        case bindingSuccess = 0x0101
        case bindingError = 0x0111
        case bindingIndication = 0x0011
    }

    /// Attribute types used here (RFC 8489 §18.3, RFC 8445 §16.1).
    public enum AttributeType: UInt16 {
        case username = 0x0006
        case messageIntegrity = 0x0008
        case errorCode = 0x0009
        case xorMappedAddress = 0x0020
        case priority = 0x0024
        case useCandidate = 0x0025
        case fingerprint = 0x8028
        case iceControlled = 0x8029
        case iceControlling = 0x802A
    }

    /// The magic cookie (§5).
    public static let magicCookie: UInt32 = 0x2112_A442
    /// FINGERPRINT is the CRC-32 of the message XOR this value (§14.7).
    static let fingerprintXor: UInt32 = 0x5354_554E

    /// The message type.
    public var type: MessageType
    /// The 96-bit transaction id.
    public var transactionId: [UInt8]
    /// Attributes in order, as (type, value); MESSAGE-INTEGRITY and FINGERPRINT are
    /// handled by `serialize` and `parse` and never appear here.
    public var attributes: [(type: UInt16, value: [UInt8])]

    /// A message with attributes.
    public init(type: MessageType, transactionId: [UInt8], attributes: [(type: UInt16, value: [UInt8])] = []) {
        precondition(transactionId.count == 12, "a transaction id is 96 bits")
        self.type = type
        self.transactionId = transactionId
        self.attributes = attributes
    }

    public static func == (a: StunMessage, b: StunMessage) -> Bool {
        a.type == b.type && a.transactionId == b.transactionId && a.attributes.map(\.type) == b.attributes.map(\.type)
            && a.attributes.map(\.value) == b.attributes.map(\.value)
    }

    /// Whether a datagram looks like STUN (RFC 7983 §7: first byte 0–3, and the cookie).
    public static func isStun(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 20 && bytes[0] < 4
            && bytes[4] == 0x21 && bytes[5] == 0x12 && bytes[6] == 0xA4 && bytes[7] == 0x42
    }

    /// The first attribute of `type`.
    public func attribute(_ type: AttributeType) -> [UInt8]? {
        attributes.first { $0.type == type.rawValue }?.value
    }

    /// The USERNAME attribute as text.
    public var username: String? { attribute(.username).flatMap { String(validating: $0, as: UTF8.self) } }

    /// The binding success answering `transactionId`, with XOR-MAPPED-ADDRESS
    /// naming `ip` (4 or 16 bytes) and `port` as the answerer saw them (RFC 8489 §14.2).
    public static func bindingSuccess(answering transactionId: [UInt8], mappedIP ip: [UInt8], port: UInt16) -> StunMessage {
        let xor = ip.count == 4
            ? xorMappedAddress(ipv4: ip, port: port, transactionId: transactionId)
            : xorMappedAddress(ipv6: ip, port: port, transactionId: transactionId)
        return StunMessage(type: .bindingSuccess, transactionId: transactionId,
                           attributes: [(AttributeType.xorMappedAddress.rawValue, xor)])
    }

    /// Encodes an XOR-MAPPED-ADDRESS value for an IPv4 or IPv6 address (§14.2).
    public static func xorMappedAddress(ipv4: [UInt8]? = nil, ipv6: [UInt8]? = nil, port: UInt16,
                                        transactionId: [UInt8]) -> [UInt8] {
        let xport = port ^ UInt16(magicCookie >> 16)
        var out: [UInt8] = [0, ipv6 == nil ? 0x01 : 0x02, UInt8(xport >> 8), UInt8(xport & 0xFF)]
        let cookie: [UInt8] = [0x21, 0x12, 0xA4, 0x42]
        if let ipv4, ipv4.count == 4 {
            for i in 0..<4 { out.append(ipv4[i] ^ cookie[i]) }
        } else if let ipv6, ipv6.count == 16, transactionId.count == 12 {
            let mask = cookie + transactionId
            for i in 0..<16 { out.append(ipv6[i] ^ mask[i]) }
        }
        return out
    }

    /// The message on the wire, with MESSAGE-INTEGRITY (HMAC-SHA1 keyed with
    /// `integrityKey`, §14.5) when a key is given, and FINGERPRINT (§14.7).
    public func serialized(integrityKey: [UInt8]?) -> [UInt8] {
        var body: [UInt8] = []
        for (t, v) in attributes { Self.append(&body, t, v) }
        var out = header(length: body.count)
        out += body
        if let key = integrityKey {
            // The length covers MESSAGE-INTEGRITY itself when the HMAC is computed.
            Self.setLength(&out, body.count + 24)
            let mac = Self.hmacSHA1(key: key, message: out)
            Self.append(&out, AttributeType.messageIntegrity.rawValue, mac)
        }
        Self.setLength(&out, out.count - 20 + 8)
        let crc = TokenCrypto.crc32(out) ^ Self.fingerprintXor
        Self.append(&out, AttributeType.fingerprint.rawValue,
                    [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        return out
    }

    /// Parses a message. If `integrityKey` is given, MESSAGE-INTEGRITY must be
    /// present and correct; FINGERPRINT, when present, must be correct.
    public static func parse(_ bytes: [UInt8], integrityKey: [UInt8]? = nil) throws(WireError) -> StunMessage {
        guard bytes.count >= 20 else { throw .truncated }
        guard bytes[0] & 0xC0 == 0 else { throw .malformed("STUN: top bits set") }
        let rawType = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        let length = Int(UInt16(bytes[2]) << 8 | UInt16(bytes[3]))
        guard length % 4 == 0, 20 + length == bytes.count else { throw .malformed("STUN: length") }
        guard bytes[4] == 0x21, bytes[5] == 0x12, bytes[6] == 0xA4, bytes[7] == 0x42 else {
            throw .malformed("STUN: magic cookie")
        }
        guard let type = MessageType(rawValue: rawType) else { throw .unsupported("STUN message type") }
        let tid = Array(bytes[8..<20])
        var attributes: [(UInt16, [UInt8])] = []
        var offset = 20
        var sawIntegrity = false
        while offset < bytes.count {
            guard offset + 4 <= bytes.count else { throw .truncated }
            let t = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            let n = Int(UInt16(bytes[offset + 2]) << 8 | UInt16(bytes[offset + 3]))
            let start = offset + 4
            let padded = (n + 3) & ~3
            guard start + padded <= bytes.count else { throw .truncated }
            let value = Array(bytes[start..<start + n])
            if t == AttributeType.fingerprint.rawValue {
                guard n == 4, start + 4 == bytes.count else { throw .malformed("STUN: FINGERPRINT not last") }
                var prefix = Array(bytes[0..<offset])
                setLength(&prefix, offset - 20 + 8)
                let expected = TokenCrypto.crc32(prefix) ^ fingerprintXor
                let got = UInt32(value[0]) << 24 | UInt32(value[1]) << 16 | UInt32(value[2]) << 8 | UInt32(value[3])
                guard expected == got else { throw .malformed("STUN: FINGERPRINT mismatch") }
            } else if t == AttributeType.messageIntegrity.rawValue {
                guard n == 20 else { throw .malformed("STUN: MESSAGE-INTEGRITY length") }
                if let key = integrityKey {
                    var prefix = Array(bytes[0..<offset])
                    setLength(&prefix, offset - 20 + 24)
                    guard TokenCrypto.constantTimeEqual(hmacSHA1(key: key, message: prefix), value) else {
                        throw .malformed("STUN: MESSAGE-INTEGRITY mismatch")
                    }
                }
                sawIntegrity = true
            } else if !sawIntegrity {
                // Attributes after MESSAGE-INTEGRITY (other than FINGERPRINT) are ignored (§14.5).
                attributes.append((t, value))
            }
            offset = start + padded
        }
        if integrityKey != nil && !sawIntegrity { throw .malformed("STUN: MESSAGE-INTEGRITY missing") }
        return StunMessage(type: type, transactionId: tid, attributes: attributes)
    }

    private func header(length: Int) -> [UInt8] {
        var out: [UInt8] = [UInt8(type.rawValue >> 8), UInt8(type.rawValue & 0xFF), 0, 0, 0x21, 0x12, 0xA4, 0x42]
        out += transactionId
        Self.setLength(&out, length)
        return out
    }

    private static func setLength(_ bytes: inout [UInt8], _ length: Int) {
        bytes[2] = UInt8(length >> 8)
        bytes[3] = UInt8(length & 0xFF)
    }

    private static func append(_ out: inout [UInt8], _ type: UInt16, _ value: [UInt8]) {
        out += [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(value.count >> 8), UInt8(value.count & 0xFF)]
        out += value
        out += [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
    }

    /// HMAC-SHA1 (libcrypto).
    static func hmacSHA1(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 20
        key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer { o in
                    _ = HMAC(EVP_sha1(), k.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(k.count),
                             m.baseAddress, m.count, o.baseAddress, &length)
                }
            }
        }
        return out
    }
}
