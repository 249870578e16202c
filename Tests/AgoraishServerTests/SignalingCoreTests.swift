@testable import AgoraishServer
import AgoraishWire
import Testing

/// Drives a `SignalingCore` on virtual time and collects what it sends.
struct CoreDriver {
    var core: SignalingCore
    var now = Instant(nanoseconds: 1_000_000_000)
    var inbox: [ConnectionID: [JSONValue]] = [:]
    var closed: [ConnectionID: UInt16] = [:]
    var nextConn: UInt64 = 1
    static let unixBase: Int64 = 1_718_000_000

    init(_ configure: (inout ServerConfig) -> Void = { _ in }) {
        var config = ServerConfig()
        config.acceptUnknownApps = true
        configure(&config)
        core = SignalingCore(config: config, clockBase: Instant(nanoseconds: 1_000_000_000),
                             unixAtBase: Self.unixBase, seed: 42)
    }

    mutating func connect(address: String = "10.0.0.1") -> ConnectionID {
        let c = ConnectionID(nextConn)
        nextConn += 1
        core.connected(c, address: address, now: now)
        return c
    }

    mutating func send(_ c: ConnectionID, _ fields: [String: JSONValue]) {
        var all = fields
        all["v"] = .integer(1)
        core.received(JSONValue.object(all).serialized, on: c, now: now)
        drain()
    }

    mutating func sendRaw(_ c: ConnectionID, _ text: String) {
        core.received(text, on: c, now: now)
        drain()
    }

    mutating func advance(_ d: Duration) {
        let end = now + d
        while let t = core.pollTimeout(), t <= end {
            now = max(now, t)
            core.handleTimeout(now: now)
            drain()
        }
        now = end
        core.handleTimeout(now: now)
        drain()
    }

    mutating func drain() {
        while let out = core.pollTransmit() {
            switch out {
            case .send(let c, let text): inbox[c, default: []].append(try! JSONValue.parse(text))
            case .close(let c, let code, _):
                closed[c] = code
                core.disconnected(c, now: now)
            }
        }
    }

    /// Messages received on `c` since the last call, as (type, object).
    mutating func take(_ c: ConnectionID) -> [[String: JSONValue]] {
        defer { inbox[c] = [] }
        return (inbox[c] ?? []).compactMap { if case .object(let o) = $0 { return o } else { return nil } }
    }

    mutating func types(_ c: ConnectionID) -> [String] { take(c).map { $0["type"]!.stringValue! } }

    mutating func join(_ c: ConnectionID, app: String = "app-one", channel: String = "room", uid: UInt32 = 0,
                       account: String? = nil, profile: Int64 = 0, role: Int64 = 1, token: String = "") -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["type": .string("join"), "id": .integer(1), "app_id": .string(app),
                                           "channel": .string(channel), "uid": .integer(Int64(uid)),
                                           "profile": .integer(profile), "role": .integer(role), "token": .string(token)]
        if let account { fields["account"] = .string(account) }
        send(c, fields)
        return take(c).first { $0["id"] == .integer(1) } ?? [:]
    }
}

func uidOf(_ m: [String: JSONValue]) -> UInt32 { UInt32(m["uid"]!.integerValue!) }

@Suite struct SignalingCoreTests {
    @Test func threeUsersSeeEachOtherJoinAndLeave() {
        var d = CoreDriver()
        let a = d.connect(), b = d.connect(), c = d.connect()
        let ja = d.join(a, uid: 100)
        #expect(ja["type"] == .string("joined"))
        #expect(ja["users"] == .array([]))
        let jb = d.join(b, uid: 200)
        #expect(jb["users"] == .array([.object(["uid": .integer(100)])]))
        #expect(d.take(a).map { $0["type"]! } == [.string("user_joined")])
        let jc = d.join(c, uid: 0)
        let cUid = uidOf(jc)
        #expect(cUid != 0 && cUid != 100 && cUid != 200)
        #expect(jc["users"] == .array([.object(["uid": .integer(100)]), .object(["uid": .integer(200)])]))
        #expect(d.take(a).first?["uid"] == .integer(Int64(cUid)))
        _ = d.take(b)
        d.send(b, ["type": .string("leave"), "id": .integer(7)])
        #expect(d.types(b) == ["left"])
        let offline = d.take(a)
        #expect(offline.count == 1)
        #expect(offline[0]["type"] == .string("user_offline"))
        #expect(offline[0]["uid"] == .integer(200))
        #expect(offline[0]["reason"] == .integer(0))
        #expect(d.take(c).first?["reason"] == .integer(0))
    }

    @Test func audienceIsInvisibleInLiveBroadcastingUntilItBecomesABroadcaster() {
        var d = CoreDriver()
        let host = d.connect(), viewer = d.connect()
        _ = d.join(host, uid: 1, profile: 1, role: 1)
        let jv = d.join(viewer, uid: 2, profile: 1, role: 2)
        #expect(jv["users"] == .array([.object(["uid": .integer(1)])]))  // sees the host
        #expect(d.take(host).isEmpty)                                      // the host does not see it
        d.send(viewer, ["type": .string("set_role"), "id": .integer(3), "role": .integer(1)])
        let changed = d.take(viewer)[0]
        #expect(changed["type"] == .string("role_changed"))
        #expect(changed["old"] == .integer(2) && changed["new"] == .integer(1))
        #expect(d.take(host).map { $0["type"]! } == [.string("user_joined")])
        d.send(viewer, ["type": .string("set_role"), "id": .integer(4), "role": .integer(2)])
        let gone = d.take(host)
        #expect(gone.first?["type"] == .string("user_offline"))
        #expect(gone.first?["reason"] == .integer(2))
        // A profile different from the channel's is refused.
        let other = d.connect()
        #expect(d.join(other, uid: 3, profile: 0)["code"] == .integer(-5))
    }

    @Test func theSameUidJoiningAgainReplacesTheEarlierLogin() {
        var d = CoreDriver()
        let a = d.connect(), b = d.connect(), a2 = d.connect()
        _ = d.join(a, uid: 5)
        _ = d.join(b, uid: 6)
        _ = d.take(a)
        _ = d.join(a2, uid: 5)
        let kicked = d.take(a)
        #expect(kicked.first?["type"] == .string("kicked"))
        #expect(kicked.first?["connection_reason"] == .integer(19))
        #expect(d.closed[a] == 4001)
        #expect(d.take(b).map { $0["type"]! } == [.string("user_offline"), .string("user_joined")])
    }

    @Test func appsAreIsolated() {
        var d = CoreDriver()
        let a = d.connect(), b = d.connect()
        _ = d.join(a, app: "app-one", uid: 1)
        let jb = d.join(b, app: "app-two", uid: 2)
        #expect(jb["users"] == .array([]))
        #expect(d.take(a).isEmpty)
        #expect(d.core.channelCount == 2)
    }

    @Test func silentUsersAreDroppedAndBrokenConnectionsCanResumeUnseen() throws {
        var d = CoreDriver { $0.dropTimeout = .seconds(10) }
        let a = d.connect(), b = d.connect()
        _ = d.join(a, uid: 1)
        let jb = d.join(b, uid: 2)
        _ = d.take(a)
        // b's connection breaks; it resumes on a new one within the window.
        d.core.disconnected(b, now: d.now)
        d.advance(.seconds(5))
        let b2 = d.connect()
        d.send(b2, ["type": .string("resume"), "id": .integer(9), "session": jb["session"]!,
                    "resume_token": jb["resume_token"]!])
        let resumed = d.take(b2)[0]
        #expect(resumed["type"] == .string("resumed"))
        #expect(resumed["users"] == .array([.object(["uid": .integer(1)])]))
        d.advance(.seconds(6))
        // a has been silent 11 s: dropped. b pinged? No: b resumed at 5 s, so it is still in.
        #expect(d.take(b2).first?["reason"] == .integer(1))
        #expect(d.closed[a] == 4000)
        #expect(d.take(a).isEmpty)
        // A wrong resume token is refused.
        let b3 = d.connect()
        d.send(b3, ["type": .string("resume"), "id": .integer(2), "session": jb["session"]!,
                    "resume_token": .string("nope")])
        #expect(d.take(b3)[0]["code"] == .integer(-113))
    }

    @Test func pingsKeepAUserIn() {
        var d = CoreDriver { $0.dropTimeout = .seconds(10) }
        let a = d.connect(), b = d.connect()
        _ = d.join(a, uid: 1)
        _ = d.join(b, uid: 2)
        _ = d.take(a)
        for _ in 0..<10 {
            d.advance(.seconds(4))
            d.send(a, ["type": .string("ping"), "id": .integer(1)])
            d.send(b, ["type": .string("ping"), "id": .integer(1)])
        }
        #expect(d.core.sessionCount == 2)
        #expect(d.take(a).allSatisfy { $0["type"] == .string("pong") })
    }

    @Test func accountsGetStableUidsAndUserInfo() {
        var d = CoreDriver()
        let r = d.connect()
        d.send(r, ["type": .string("register_account"), "id": .integer(1), "app_id": .string("app-one"),
                   "account": .string("alice")])
        let registered = uidOf(d.take(r)[0])
        let a = d.connect(), b = d.connect()
        let ja = d.join(a, account: "alice")
        #expect(uidOf(ja) == registered)
        #expect(ja["account"] == .string("alice"))
        _ = d.join(b, account: "bob")
        let seen = d.take(a)
        #expect(seen.map { $0["type"]! } == [.string("user_info"), .string("user_joined")])
        #expect(seen[0]["account"] == .string("bob"))
        // An account join may not carry a uid.
        let c = d.connect()
        #expect(d.join(c, uid: 9, account: "carol")["code"] == .integer(-2))
    }

    @Test func malformedAndOutOfOrderMessagesGetErrorsAndDisturbNobody() {
        var d = CoreDriver()
        let a = d.connect(), bad = d.connect()
        _ = d.join(a, uid: 1)
        d.sendRaw(bad, "not json")
        d.sendRaw(bad, "[1,2]")
        d.sendRaw(bad, #"{"v":2,"type":"join","id":4}"#)
        d.sendRaw(bad, #"{"v":1,"type":"dance","id":5}"#)
        d.sendRaw(bad, #"{"v":1,"type":"join","id":6,"channel":"room"}"#)
        d.sendRaw(bad, #"{"v":1,"type":"leave","id":7}"#)
        d.sendRaw(bad, #"{"v":1,"type":"set_role","id":8,"role":1}"#)
        d.sendRaw(bad, #"{"v":1,"type":"join","id":9,"app_id":"app-one","channel":"room","uid":-4}"#)
        d.sendRaw(bad, #"{"v":1,"type":"join","id":10,"app_id":"app-one","channel":"bad/name"}"#)
        let errors = d.take(bad)
        #expect(errors.map { $0["code"]! } == [-2, -2, -4, -2, -2, -113, -113, -2, -102].map { JSONValue.integer($0) })
        #expect(errors[4]["reason"] == .string("bad_field:app_id"))
        #expect(d.take(a).isEmpty)
        let j = d.join(bad, uid: 2)
        #expect(d.join(bad, uid: 3)["code"] == .integer(-17))
        #expect(j["type"] == .string("joined"))
    }

    @Test func joinsFromOneAddressAreRateLimited() {
        var d = CoreDriver { $0.joinsPerSecondPerAddress = 3 }
        var codes: [JSONValue?] = []
        for i in 0..<5 {
            let c = d.connect(address: "192.0.2.7")
            codes.append(d.join(c, channel: "r\(i)", uid: 1)["code"])
        }
        #expect(codes == [nil, nil, nil, .integer(-12), .integer(-12)])
        d.advance(.seconds(2))
        let later = d.connect(address: "192.0.2.7")
        #expect(d.join(later, channel: "late", uid: 1)["type"] == .string("joined"))
        #expect(d.join(d.connect(address: "192.0.2.8"), channel: "other", uid: 1)["type"] == .string("joined"))
    }
}
