/// AccessToken, version "006" (docs/tokens.md):
/// `"006" + app id + Base64(signature, crc_channel, crc_uid, message)`.
public struct AccessToken006: Sendable, Equatable {
    /// The HMAC over app id, channel, identity and `message`, 32 bytes.
    public var signature: [UInt8]
    /// The app id text at characters 3..34.
    public var appId: [UInt8]
    /// CRC-32 of the channel name.
    public var crcChannel: UInt32
    /// CRC-32 of the identity string.
    public var crcUid: UInt32
    /// The raw message bytes (signed).
    public var message: [UInt8]
    /// The builder's random salt.
    public var salt: UInt32
    /// Absolute unix time at which the token expires.
    public var ts: UInt32
    /// Privilege key -> absolute unix expiry (0 = no limit of its own).
    public var privileges: [UInt16: UInt32]

    static let version = "006"

    /// Parses a 006 token. Throws for anything malformed.
    public static func parse(_ token: String) throws(WireError) -> AccessToken006 {
        let utf8 = Array(token.utf8)
        guard utf8.count > 35, token.hasPrefix(version) else { throw .malformed("not a 006 token") }
        let appId = Array(utf8[3..<35])
        guard utf8[35...].allSatisfy({ $0 < 0x80 }) else { throw .malformed("not ASCII") }
        let rest = String(decoding: utf8[35...], as: UTF8.self)
        let content = try TokenCrypto.base64Decode(Substring(rest))
        var r = ByteReader(content)
        let signature = try r.lengthPrefixed16()
        guard signature.count == 32 else { throw .malformed("signature length") }
        let crcChannel = try r.u32le()
        let crcUid = try r.u32le()
        let message = try r.lengthPrefixed16()
        guard r.isAtEnd else { throw .malformed("bytes after the message") }
        var m = ByteReader(message)
        let salt = try m.u32le()
        let ts = try m.u32le()
        let n = try m.u16le()
        var privileges: [UInt16: UInt32] = [:]
        for _ in 0..<n {
            let key = try m.u16le()
            privileges[key] = try m.u32le()
        }
        return AccessToken006(signature: signature, appId: appId, crcChannel: crcChannel, crcUid: crcUid,
                              message: message, salt: salt, ts: ts, privileges: privileges)
    }

    /// The signature of §3.3.
    public static func sign(certificate: [UInt8], appId: [UInt8], channel: [UInt8], identity: [UInt8],
                            message: [UInt8]) -> [UInt8] {
        TokenCrypto.hmacSHA256(key: certificate, message: appId + channel + identity + message)
    }

    /// Builds a token as the official builder does with a pinned issue
    /// time and salt: `ts = issueTs + 86400`; `privilegeExpire` maps each
    /// granted privilege to an absolute unix time.
    public static func build(appId: String, certificate: String, channel: String, identity: TokenIdentity,
                             privilegeExpire: [TokenPrivilege: UInt32], issueTs: UInt32, salt: UInt32) -> String {
        var m = ByteWriter()
        m.u32le(salt)
        m.u32le(issueTs &+ 86400)
        let keys = privilegeExpire.keys.map(\.rawValue).sorted()
        m.u16le(UInt16(keys.count))
        for key in keys {
            m.u16le(key)
            m.u32le(privilegeExpire[TokenPrivilege(rawValue: key)!]!)
        }
        let channelBytes = Array(channel.utf8)
        let signature = sign(certificate: Array(certificate.utf8), appId: Array(appId.utf8), channel: channelBytes,
                             identity: identity.bytes, message: m.bytes)
        var c = ByteWriter()
        c.lengthPrefixed16(signature)
        c.u32le(TokenCrypto.crc32(channelBytes))
        c.u32le(TokenCrypto.crc32(identity.bytes))
        c.lengthPrefixed16(m.bytes)
        return version + appId + TokenCrypto.base64Encode(c.bytes)
    }
}
