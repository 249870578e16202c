@testable import AgoraishWire
import Foundation
import Testing

/// One vector of token-vectors.json (token-format.md §11).
struct TokenVector: Decodable, CustomStringConvertible {
    struct Verify: Decodable {
        var app_id: String
        var app_certificate: String?
        var channel: String
        var uid: UInt32?
        var account: String?
        var privilege: String
        var now: Int64
    }
    struct Expected: Decodable {
        var code: Int32
        var token_code: Int32?
        var token_expire_ts: Int64?
        var privilege_expire_ts: [String: Int64]?
        var will_expire_at: Int64?
        var request_token_at: Int64?
    }
    var id: String
    var format: String
    var builder: String
    var app_id: String
    var app_certificate: String
    var channel: String
    var uid: UInt32?
    var account: String?
    var role: String?
    var token_expire: UInt32?
    var issue_ts: UInt32
    var salt: UInt32
    var token: String
    var mutation: JSONValue?
    var verify: Verify
    var expected: Expected

    var description: String { id }

    var identity: TokenIdentity {
        if let account = verify.account { return .account(account) }
        return .uid(verify.uid ?? 0)
    }

    static func all() throws -> [TokenVector] {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let data = try Data(contentsOf: here.appendingPathComponent("Fixtures/token-vectors.json"))
        struct File: Decodable { var vectors: [TokenVector] }
        return try JSONDecoder().decode(File.self, from: data).vectors
    }
}

@Suite struct TokenVectorTests {
    @Test(arguments: try TokenVector.all())
    func vectorGivesItsExpectedCodes(_ v: TokenVector) throws {
        let privilege = try #require(TokenPrivilege(name: v.verify.privilege))
        let join = TokenVerifier.checkJoin(token: v.token, appId: v.verify.app_id, certificate: v.verify.app_certificate,
                                           channel: v.verify.channel, identity: v.identity, privilege: privilege,
                                           now: v.verify.now)
        #expect(join.code == v.expected.code)
        if let tokenCode = v.expected.token_code {
            let bare = TokenVerifier.verify(token: v.token, appId: v.verify.app_id,
                                            certificate: v.verify.app_certificate ?? "", channel: v.verify.channel,
                                            identity: v.identity, privilege: privilege, now: v.verify.now)
            #expect(bare.code == tokenCode)
            if let t = v.expected.token_expire_ts { #expect(bare.tokenExpire == t) }
            if let expiries = v.expected.privilege_expire_ts {
                var got: [String: Int64] = [:]
                for (p, e) in bare.privilegeExpire { got[p.name] = e }
                #expect(got == expiries)
            }
            if let will = v.expected.will_expire_at {
                #expect(bare.privilegeExpire[.joinChannel].map { $0 - 30 } == will)
            }
            if let request = v.expected.request_token_at {
                #expect(bare.privilegeExpire[.joinChannel] == request)
            }
        }
    }

    /// Undamaged vectors from a role-based builder are reproduced byte for byte.
    @Test(arguments: try TokenVector.all().filter { $0.mutation == nil && $0.role != nil })
    func builderReproducesTheOfficialToken(_ v: TokenVector) throws {
        let identity: TokenIdentity = v.account.map { .account($0) } ?? .uid(v.uid ?? 0)
        let role: TokenRole = v.role == "publisher" ? .publisher : .subscriber
        let built: String
        if v.format == "007" {
            let decoded = try AccessToken2.parse(v.token)
            let privilegeSeconds = decoded.rtcServices.first?.privileges.values.first ?? 0
            built = AccessToken2.build(appId: v.app_id, certificate: v.app_certificate, channel: v.channel,
                                       identity: identity,
                                       privilegeExpire: Dictionary(uniqueKeysWithValues: role.privileges.map { ($0, privilegeSeconds) }),
                                       expire: decoded.expire, issueTs: v.issue_ts, salt: v.salt)
        } else {
            let decoded = try AccessToken006.parse(v.token)
            let absolute = decoded.privileges.values.first ?? 0
            built = AccessToken006.build(appId: v.app_id, certificate: v.app_certificate, channel: v.channel,
                                         identity: identity,
                                         privilegeExpire: Dictionary(uniqueKeysWithValues: role.privileges.map { ($0, absolute) }),
                                         issueTs: v.issue_ts, salt: v.salt)
        }
        #expect(built == v.token)
    }

    @Test func workedExample007DecodesFieldByField() throws {
        let v = try #require(try TokenVector.all().first { $0.id == "pub-007-upstream-fixture" })
        let t = try AccessToken2.parse(v.token)
        #expect(String(decoding: t.appId, as: UTF8.self) == "970CA35de60c44645bbae8a215061b33")
        #expect(t.issueTs == 1111111)
        #expect(t.expire == 600)
        #expect(t.salt == 1)
        #expect(t.rtcServices == [.init(privileges: [1: 600], channel: Array("7d72365eb983485397e3e3f9d460bdda".utf8),
                                        identity: Array("2882341273".utf8))])
        #expect(t.signature.map { String(format: "%02x", $0) }.joined()
                == "16a0b84c5a5e82cbf74fb813d09f59c54bdac9c06120580539ac97578e958b1a")
    }

    @Test func accountAndUidWithTheSameTextAreTheSameIdentity() {
        #expect(TokenIdentity.account("12345").bytes == TokenIdentity.uid(12345).bytes)
        #expect(TokenIdentity.account("0").bytes == Array("0".utf8))
        #expect(TokenIdentity.uid(0).bytes.isEmpty)
    }

    /// Truncations and byte flips of real tokens are rejected, never trapped on.
    @Test func damagedTokensAreRejectedWithoutTrapping() throws {
        var rng = SplitMix64(seed: 0x5eed)
        for v in try TokenVector.all() where v.mutation == nil {
            let chars = Array(v.token.utf8)
            for _ in 0..<200 {
                var damaged = chars
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: damaged.removeLast(Int.random(in: 1..<damaged.count, using: &rng))
                case 1: damaged[Int.random(in: 3..<damaged.count, using: &rng)] = UInt8.random(in: 0x21...0x7E, using: &rng)
                default: damaged.insert(UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0..<damaged.count, using: &rng))
                }
                let text = String(decoding: damaged, as: UTF8.self)
                let outcome = TokenVerifier.verify(token: text, appId: v.verify.app_id, certificate: v.app_certificate,
                                                   channel: v.verify.channel, identity: v.identity,
                                                   privilege: .joinChannel, now: v.verify.now)
                if outcome.code == 0 {
                    // Only a change that decodes to the very same bytes (unused bits of the
                    // last Base64 character) may still verify.
                    let prefix = v.format == "006" ? 35 : 3
                    let same = (try? TokenCrypto.base64Decode(text.dropFirst(prefix)))
                        == (try? TokenCrypto.base64Decode(v.token.dropFirst(prefix)))
                        && text.prefix(prefix) == v.token.prefix(prefix)
                    #expect(same, "damaged token \(text) verified")
                }
            }
        }
    }
}
