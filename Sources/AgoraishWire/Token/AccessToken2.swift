/// AccessToken2, version "007" (docs/tokens.md):
/// `"007" + Base64(zlib(signature, signed region))`.
public struct AccessToken2: Sendable, Equatable {
    /// One service record. Only RTC records are kept with their fields; the
    /// others are skipped by their layout.
    public struct RtcService: Sendable, Equatable {
        /// Privilege key -> seconds after issue_ts (0 = no limit of its own).
        public var privileges: [UInt16: UInt32]
        /// The channel name's bytes.
        public var channel: [UInt8]
        /// The identity string; empty is the wildcard.
        public var identity: [UInt8]

        /// A record for `channel` and `identity` with `privileges`.
        public init(privileges: [UInt16: UInt32], channel: [UInt8], identity: [UInt8]) {
            self.privileges = privileges
            self.channel = channel
            self.identity = identity
        }
    }

    /// The HMAC over `signedRegion`, 32 bytes.
    public var signature: [UInt8]
    /// The app id's bytes.
    public var appId: [UInt8]
    /// Unix seconds at which the token was made.
    public var issueTs: UInt32
    /// Lifetime in seconds after `issueTs`.
    public var expire: UInt32
    /// The builder's random salt.
    public var salt: UInt32
    /// The RTC service records, in token order.
    public var rtcServices: [RtcService]
    /// The bytes the signature covers, exactly as they appear in the token.
    public var signedRegion: [UInt8]

    static let version = "007"
    static let rtcServiceType: UInt16 = 1

    /// Parses a 007 token. Throws for anything malformed.
    public static func parse(_ token: String) throws(WireError) -> AccessToken2 {
        guard token.utf8.count >= 4, token.hasPrefix(version) else { throw .malformed("not a 007 token") }
        let compressed = try TokenCrypto.base64Decode(token.dropFirst(3))
        let payload = try TokenCrypto.inflate(compressed)
        var r = ByteReader(payload)
        let signature = try r.lengthPrefixed16()
        guard signature.count == 32 else { throw .malformed("signature length") }
        let regionStart = r.offset
        let appId = try r.lengthPrefixed16()
        let issueTs = try r.u32le()
        let expire = try r.u32le()
        let salt = try r.u32le()
        let count = try r.u16le()
        var services: [RtcService] = []
        records: for _ in 0..<count {
            let type = try r.u16le()
            switch type {
            case 1...7:
                let privileges = try readPrivileges(&r)
                switch type {
                case 1:
                    let channel = try r.lengthPrefixed16()
                    let identity = try r.lengthPrefixed16()
                    services.append(RtcService(privileges: privileges, channel: channel, identity: identity))
                case 2, 5: _ = try r.lengthPrefixed16()
                case 3, 6: _ = try r.lengthPrefixed16(); _ = try r.lengthPrefixed16()
                case 4: break
                default: _ = try r.lengthPrefixed16(); _ = try r.lengthPrefixed16(); _ = try r.i16le()
                }
            default:
                break records  // a type this format description does not cover: stop, it is signed anyway
            }
        }
        return AccessToken2(signature: signature, appId: appId, issueTs: issueTs, expire: expire, salt: salt,
                            rtcServices: services, signedRegion: Array(payload[regionStart...]))
    }

    private static func readPrivileges(_ r: inout ByteReader) throws(WireError) -> [UInt16: UInt32] {
        let n = try r.u16le()
        var map: [UInt16: UInt32] = [:]
        for _ in 0..<n {
            let key = try r.u16le()
            map[key] = try r.u32le()
        }
        return map
    }

    /// The signature over `region` for a certificate, issue time and salt.
    public static func sign(certificate: [UInt8], issueTs: UInt32, salt: UInt32, region: [UInt8]) -> [UInt8] {
        var ts = ByteWriter(); ts.u32le(issueTs)
        var s = ByteWriter(); s.u32le(salt)
        let k1 = TokenCrypto.hmacSHA256(key: ts.bytes, message: certificate)
        let k2 = TokenCrypto.hmacSHA256(key: s.bytes, message: k1)
        return TokenCrypto.hmacSHA256(key: k2, message: region)
    }

    /// Builds a token as the official builder does with a pinned issue
    /// time and salt. `privilegeExpire` maps each granted privilege to seconds
    /// after `issueTs`.
    public static func build(appId: String, certificate: String, channel: String, identity: TokenIdentity,
                             privilegeExpire: [TokenPrivilege: UInt32], expire: UInt32,
                             issueTs: UInt32, salt: UInt32) -> String {
        var w = ByteWriter()
        w.lengthPrefixed16(Array(appId.utf8))
        w.u32le(issueTs)
        w.u32le(expire)
        w.u32le(salt)
        w.u16le(1)
        w.u16le(rtcServiceType)
        let keys = privilegeExpire.keys.map(\.rawValue).sorted()
        w.u16le(UInt16(keys.count))
        for key in keys {
            w.u16le(key)
            w.u32le(privilegeExpire[TokenPrivilege(rawValue: key)!]!)
        }
        w.lengthPrefixed16(Array(channel.utf8))
        w.lengthPrefixed16(identity.bytes)
        let region = w.bytes
        var payload = ByteWriter()
        payload.lengthPrefixed16(sign(certificate: Array(certificate.utf8), issueTs: issueTs, salt: salt, region: region))
        payload.write(region)
        return version + TokenCrypto.base64Encode(TokenCrypto.deflate(payload.bytes))
    }
}
