/// The server's token checks (docs/tokens.md): pure functions of their
/// inputs, `now` included.
public enum TokenVerifier {
    /// The outcome of a check.
    public struct Outcome: Sendable, Equatable {
        /// 0, -101, -102, -109 or -110.
        public var code: Int32
        /// A short label: "ok", "invalid_token", "token_expired", ...
        public var reason: String
        /// The token's own expiry T (unix seconds), when the token was read and matched.
        public var tokenExpire: Int64?
        /// Effective expiry E of each granted privilege, when the token was read and matched.
        public var privilegeExpire: [TokenPrivilege: Int64]

        static func fail(_ code: Int32, _ reason: String) -> Outcome {
            Outcome(code: code, reason: reason, tokenExpire: nil, privilegeExpire: [:])
        }
    }

    /// Whether `appId` is 32 hexadecimal characters (either case).
    public static func isWellFormedAppId(_ appId: String) -> Bool {
        let b = Array(appId.utf8)
        return b.count == 32 && b.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x46) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// Whether `channel` is a valid channel name: 1...63 bytes from the 89-character set.
    public static func isValidChannelName(_ channel: String) -> Bool {
        let allowed = Set("!#$%&()+-:;<=.>?@[]^_{}|~, ".utf8)
        let b = Array(channel.utf8)
        return !b.isEmpty && b.count <= 63 && b.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || allowed.contains($0)
        }
    }

    /// The join (or publish) check: app id, channel name, then the token.
    /// `certificate` nil means the app is not registered on this server.
    public static func checkJoin(token: String, appId: String, certificate: String?, channel: String,
                                 identity: TokenIdentity, privilege: TokenPrivilege, now: Int64) -> Outcome {
        guard isWellFormedAppId(appId), let certificate else { return .fail(-101, "invalid_app_id") }
        let verdict = verify(token: token, appId: appId, certificate: certificate, channel: channel,
                             identity: identity, privilege: privilege, now: now)
        guard isValidChannelName(channel) else {
            var outcome = verdict
            outcome.code = -102
            outcome.reason = "invalid_channel_name"
            return outcome
        }
        return verdict
    }

    /// The bare token check: 0, -109 or -110.
    public static func verify(token: String, appId: String, certificate: String, channel: String,
                              identity: TokenIdentity, privilege: TokenPrivilege, now: Int64) -> Outcome {
        if token.isEmpty { return .fail(-110, "empty_token") }
        if token.hasPrefix(AccessToken2.version) {
            return verify007(token, appId, certificate, channel, identity, privilege, now)
        }
        if token.hasPrefix(AccessToken006.version) {
            return verify006(token, appId, certificate, channel, identity, privilege, now)
        }
        return .fail(-110, "bad_version")
    }

    private static func verify007(_ token: String, _ appId: String, _ certificate: String, _ channel: String,
                                  _ identity: TokenIdentity, _ privilege: TokenPrivilege, _ now: Int64) -> Outcome {
        guard let t = try? AccessToken2.parse(token) else { return .fail(-110, "malformed") }
        guard t.appId == Array(appId.utf8) else { return .fail(-110, "app_id_mismatch") }
        let expected = AccessToken2.sign(certificate: Array(certificate.utf8), issueTs: t.issueTs, salt: t.salt,
                                         region: t.signedRegion)
        guard TokenCrypto.constantTimeEqual(expected, t.signature) else { return .fail(-110, "signature_mismatch") }
        let channelBytes = Array(channel.utf8)
        let who = identity.bytes
        guard let service = t.rtcServices.first(where: {
            $0.channel == channelBytes && ($0.identity.isEmpty || $0.identity == who)
        }) else { return .fail(-110, "no_matching_service") }
        let tokenExpire = Int64(t.issueTs) + Int64(t.expire)
        var expiries: [TokenPrivilege: Int64] = [:]
        for (key, value) in service.privileges {
            guard let p = TokenPrivilege(rawValue: key) else { continue }
            expiries[p] = value == 0 ? tokenExpire : min(tokenExpire, Int64(t.issueTs) + Int64(value))
        }
        return timeVerdict(tokenExpire: tokenExpire, expiries: expiries, privilege: privilege, now: now)
    }

    private static func verify006(_ token: String, _ appId: String, _ certificate: String, _ channel: String,
                                  _ identity: TokenIdentity, _ privilege: TokenPrivilege, _ now: Int64) -> Outcome {
        guard let t = try? AccessToken006.parse(token) else { return .fail(-110, "malformed") }
        let appBytes = Array(appId.utf8)
        guard t.appId == appBytes else { return .fail(-110, "app_id_mismatch") }
        let channelBytes = Array(channel.utf8)
        guard t.crcChannel == TokenCrypto.crc32(channelBytes) else { return .fail(-110, "crc_mismatch") }
        var candidates = [identity.bytes]
        if !identity.bytes.isEmpty { candidates.append([]) }
        let accepted = candidates.contains { u in
            t.crcUid == TokenCrypto.crc32(u) && TokenCrypto.constantTimeEqual(
                AccessToken006.sign(certificate: Array(certificate.utf8), appId: appBytes, channel: channelBytes,
                                    identity: u, message: t.message), t.signature)
        }
        guard accepted else { return .fail(-110, "signature_mismatch") }
        let tokenExpire = Int64(t.ts)
        var expiries: [TokenPrivilege: Int64] = [:]
        for (key, value) in t.privileges {
            guard let p = TokenPrivilege(rawValue: key) else { continue }
            expiries[p] = value == 0 ? tokenExpire : min(tokenExpire, Int64(value))
        }
        return timeVerdict(tokenExpire: tokenExpire, expiries: expiries, privilege: privilege, now: now)
    }

    private static func timeVerdict(tokenExpire: Int64, expiries: [TokenPrivilege: Int64],
                                    privilege: TokenPrivilege, now: Int64) -> Outcome {
        guard let expiry = expiries[privilege] else {
            return Outcome(code: -110, reason: "privilege_not_granted", tokenExpire: tokenExpire, privilegeExpire: expiries)
        }
        if now >= tokenExpire {
            return Outcome(code: -109, reason: "token_expired", tokenExpire: tokenExpire, privilegeExpire: expiries)
        }
        if now >= expiry {
            return Outcome(code: -109, reason: "expired_privilege", tokenExpire: tokenExpire, privilegeExpire: expiries)
        }
        return Outcome(code: 0, reason: "ok", tokenExpire: tokenExpire, privilegeExpire: expiries)
    }
}
