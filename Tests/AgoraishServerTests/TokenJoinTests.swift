@testable import AgoraishServer
import AgoraishWire
import Testing

@Suite struct TokenJoinTests {
    static let appId = "0d3723ff78bff15b898cbaa8565c4eaa"
    static let certificate = "8417c227d4257030f424cee3a53e5829"

    func driver() -> CoreDriver {
        CoreDriver { config in
            config.acceptUnknownApps = false
            config.apps[Self.appId] = .init(certificate: Self.certificate)
            config.apps["ABCDEF0123456789abcdef0123456789"] = .init(certificate: nil)
        }
    }

    func token(uid: UInt32, expire: UInt32, issuedAt offset: Int64 = 0) -> String {
        AccessToken2.build(appId: Self.appId, certificate: Self.certificate, channel: "room", identity: .uid(uid),
                           privilegeExpire: [.joinChannel: 0], expire: expire,
                           issueTs: UInt32(CoreDriver.unixBase + offset), salt: 7)
    }

    @Test func joinOutcomesFollowTheTokenChecks() {
        var d = driver()
        #expect(d.join(d.connect(), app: "unknown0123456789abcdef0123456789", uid: 1)["code"] == .integer(-101))
        #expect(d.join(d.connect(), app: Self.appId, uid: 1, token: "")["code"] == .integer(-110))
        #expect(d.join(d.connect(), app: Self.appId, uid: 2, token: token(uid: 1, expire: 600))["code"] == .integer(-110))
        #expect(d.join(d.connect(), app: Self.appId, uid: 1, token: token(uid: 1, expire: 0))["code"] == .integer(-109))
        let ok = d.join(d.connect(), app: Self.appId, uid: 1, token: token(uid: 1, expire: 600))
        #expect(ok["type"] == .string("joined"))
        #expect(ok["token_expire_ts"] == .integer(CoreDriver.unixBase + 600))
        // An app without a certificate takes any token (testing mode).
        #expect(d.join(d.connect(), app: "ABCDEF0123456789abcdef0123456789", uid: 1)["type"] == .string("joined"))
    }

    @Test func expiryNoticesComeThirtySecondsAheadAndAtExpiry() {
        var d = driver()
        let c = d.connect()
        _ = d.join(c, app: Self.appId, uid: 1, token: token(uid: 1, expire: 100))
        let watcher = d.connect()
        _ = d.join(watcher, app: Self.appId, uid: 2, token: token(uid: 2, expire: 600))
        _ = d.take(c)
        // Keep both alive with pings while time passes.
        for _ in 0..<6 {
            d.advance(.seconds(10))
            d.send(c, ["type": .string("ping"), "id": .integer(1)])
            d.send(watcher, ["type": .string("ping"), "id": .integer(1)])
        }
        var seen = d.types(c).filter { $0 != "pong" }
        #expect(seen == [])
        d.advance(.seconds(10))  // t = 70: the notice is due at 100 - 30
        seen = d.types(c).filter { $0 != "pong" }
        #expect(seen == ["token_will_expire"])
        d.send(c, ["type": .string("ping"), "id": .integer(1)])
        d.send(watcher, ["type": .string("ping"), "id": .integer(1)])
        d.advance(.seconds(15))
        d.send(c, ["type": .string("ping"), "id": .integer(1)])
        d.send(watcher, ["type": .string("ping"), "id": .integer(1)])
        d.advance(.seconds(16))  // t = 101: expired
        #expect(d.types(c).filter { $0 != "pong" } == ["token_expired"])
        #expect(d.take(watcher).contains { $0["type"] == .string("user_offline") && $0["uid"] == .integer(1) })
    }

    @Test func renewTokenKeepsTheUserIn() {
        var d = driver()
        let c = d.connect()
        _ = d.join(c, app: Self.appId, uid: 1, token: token(uid: 1, expire: 40))
        #expect(d.types(c).isEmpty)  // 40 s left: no notice yet
        d.advance(.seconds(12))
        d.send(c, ["type": .string("renew_token"), "id": .integer(5), "token": .string(token(uid: 1, expire: 600, issuedAt: 12))])
        let renewed = d.take(c).first { $0["id"] == .integer(5) }
        #expect(renewed?["type"] == .string("token_renewed"))
        #expect(renewed?["token_expire_ts"] == .integer(CoreDriver.unixBase + 612))
        d.send(c, ["type": .string("renew_token"), "id": .integer(6), "token": .string("007garbage")])
        #expect(d.take(c).first { $0["id"] == .integer(6) }?["code"] == .integer(-110))
        for _ in 0..<10 {
            d.advance(.seconds(8))
            d.send(c, ["type": .string("ping"), "id": .integer(1)])
        }
        #expect(d.core.sessionCount == 1)
        #expect(!d.types(c).contains("token_expired"))
    }
}
