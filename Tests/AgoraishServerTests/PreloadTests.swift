@testable import AgoraishServer
import AgoraishWire
import Testing

/// `preload` (preloadChannel): the checks of a join on a connection without a session.
@Suite struct PreloadTests {
    static let appId = TokenJoinTests.appId
    static let certificate = TokenJoinTests.certificate

    func preload(_ d: inout CoreDriver, _ c: ConnectionID, app: String = Self.appId, channel: String = "room",
                 uid: UInt32, token: String) -> [String: JSONValue] {
        d.send(c, ["type": .string("preload"), "id": .integer(5), "app_id": .string(app), "channel": .string(channel),
                   "uid": .integer(Int64(uid)), "token": .string(token)])
        return d.take(c).first { $0["id"] == .integer(5) } ?? [:]
    }

    @Test func preloadChecksTheTokenAsAJoinDoesAndHoldsNothing() {
        var d = TokenJoinTests().driver()
        d.core.mediaEndpoint = ("127.0.0.1", 4000)
        let good = TokenJoinTests().token(uid: 7, expire: 600)
        let c = d.connect()
        let ok = preload(&d, c, uid: 7, token: good)
        #expect(ok["type"] == .string("preloaded"))
        #expect(ok["token_expire_ts"] == .integer(CoreDriver.unixBase + 600))
        #expect(!d.core.hasSession(c) && d.core.channelSummaries().isEmpty, "a preload admits no one")
        // Refusals in a join's order and with its codes.
        #expect(preload(&d, d.connect(), uid: 8, token: good)["code"] == .integer(-110), "another uid's token")
        #expect(preload(&d, d.connect(), uid: 7, token: "")["code"] == .integer(-110))
        #expect(preload(&d, d.connect(), uid: 7, token: TokenJoinTests().token(uid: 7, expire: 0))["code"]
                == .integer(-109))
        #expect(preload(&d, d.connect(), app: "unknown0123456789abcdef0123456789", uid: 7, token: good)["code"]
                == .integer(-101))
        #expect(preload(&d, d.connect(), channel: "bad/name", uid: 7, token: good)["code"] == .integer(-102))
        // The join that follows on the same connection, with fast start.
        d.send(c, ["type": .string("join"), "id": .integer(1), "app_id": .string(Self.appId), "channel": .string("room"),
                   "uid": .integer(7), "token": .string(good), "fast_start": .bool(true)])
        #expect(d.take(c).first { $0["id"] == .integer(1) }?["type"] == .string("joined"))
        #expect(preload(&d, c, uid: 7, token: good)["code"] == .integer(-17), "not once joined")
        var fast: Bool? = nil
        while let command = d.core.pollMediaCommand() {
            if case .admit(let grant) = command, grant.uid == 7 { fast = grant.fastStart }
        }
        #expect(fast == true, "the media plane is told to fast start the joiner")
    }

    @Test func preloadsTakeTheJoinBudgetAndIdleConnectionsClose() {
        var d = CoreDriver { $0.joinsPerSecondPerAddress = 3 }
        let conns = (0..<4).map { _ in d.connect(address: "10.0.0.9") }
        let codes = conns.map { preload(&d, $0, app: "app-one", uid: 1, token: "")["type"] }
        #expect(codes.prefix(3).allSatisfy { $0 == .string("preloaded") })
        #expect(codes[3] == .string("error"), "the fourth in one second is refused (-12)")
        d.advance(.seconds(31))
        #expect(conns.allSatisfy { d.closed[$0] == 4003 }, "no join within authentication_ms: closed")
    }
}
