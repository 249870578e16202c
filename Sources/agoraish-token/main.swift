// agoraish-token: build, inspect and verify RTC tokens (AccessToken2 "007" and
// AccessToken "006") exactly as docs/tokens.md describes.
import AgoraishWire
import Glibc

let usage = """
usage:
  agoraish-token build --format 007|006 --app-id A --app-certificate C --channel N
                       (--uid U | --account S) --role publisher|subscriber --expire SECONDS
                       [--privilege-expire SECONDS] [--issue-ts T --salt S]
  agoraish-token inspect TOKEN
  agoraish-token verify --token T --app-id A [--app-certificate C] --channel N
                       (--uid U | --account S)
                       [--privilege join_channel|publish_audio|publish_video|publish_data_stream]
                       [--now UNIX_SECONDS]

build    prints a token. 007: --expire is the token lifetime and --privilege-expire
         (default 0: until the token expires) each privilege's, in seconds after the
         issue time. 006: the token lasts 86400 s (the format's rule); privileges
         expire --expire seconds after the issue time (0: no limit of their own), or
         at the absolute time --privilege-expire. --issue-ts and --salt pin the
         otherwise current time and random salt, reproducing official tokens.
inspect  prints the decoded fields.
verify   runs the server's join/publish check for a server where app A is registered
         with certificate C (no --app-certificate: A is not registered) and prints
         "<code> <reason>"; exits 0 only for code 0.
"""

func fail(_ message: String) -> Never {
    let text = "agoraish-token: \(message)\n\n\(usage)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(2)
}

/// Parses `--name value` pairs; every flag takes a value.
func options(_ args: ArraySlice<String>, allowed: Set<String>) -> [String: String] {
    var result: [String: String] = [:]
    var i = args.startIndex
    while i < args.endIndex {
        let flag = args[i]
        guard flag.hasPrefix("--"), allowed.contains(String(flag.dropFirst(2))) else { fail("unknown option \(flag)") }
        guard i + 1 < args.endIndex else { fail("\(flag) needs a value") }
        guard result[String(flag.dropFirst(2))] == nil else { fail("\(flag) given twice") }
        result[String(flag.dropFirst(2))] = args[i + 1]
        i += 2
    }
    return result
}

func required(_ o: [String: String], _ name: String) -> String {
    guard let v = o[name] else { fail("--\(name) is required") }
    return v
}

func number(_ o: [String: String], _ name: String) -> UInt32? {
    guard let text = o[name] else { return nil }
    guard let v = UInt32(text) else { fail("--\(name) must be an integer 0...4294967295") }
    return v
}

func identity(_ o: [String: String]) -> TokenIdentity {
    switch (o["uid"], o["account"]) {
    case (let u?, nil):
        guard let uid = UInt32(u) else { fail("--uid must be an integer 0...4294967295") }
        return .uid(uid)
    case (nil, let a?):
        return .account(a)
    default:
        fail("give exactly one of --uid and --account")
    }
}

func hex(_ bytes: [UInt8]) -> String {
    bytes.map { b in
        let s = String(b, radix: 16)
        return s.count == 1 ? "0" + s : s
    }.joined()
}

func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

func build(_ args: ArraySlice<String>) {
    let o = options(args, allowed: ["format", "app-id", "app-certificate", "channel", "uid", "account", "role",
                                     "expire", "privilege-expire", "issue-ts", "salt"])
    let appId = required(o, "app-id")
    let certificate = required(o, "app-certificate")
    guard TokenVerifier.isWellFormedAppId(appId), TokenVerifier.isWellFormedAppId(certificate) else {
        fail("the app id and certificate must each be 32 hexadecimal characters")
    }
    let channel = required(o, "channel")
    let who = identity(o)
    let role: TokenRole
    switch required(o, "role") {
    case "publisher": role = .publisher
    case "subscriber": role = .subscriber
    default: fail("--role must be publisher or subscriber")
    }
    guard let expire = number(o, "expire") else { fail("--expire is required") }
    let issueTs = number(o, "issue-ts") ?? UInt32(truncatingIfNeeded: time(nil))
    let salt = number(o, "salt") ?? UInt32.random(in: 1...99_999_999)
    switch required(o, "format") {
    case "007":
        let privilege = number(o, "privilege-expire") ?? 0
        print(AccessToken2.build(appId: appId, certificate: certificate, channel: channel, identity: who,
                                 privilegeExpire: Dictionary(uniqueKeysWithValues: role.privileges.map { ($0, privilege) }),
                                 expire: expire, issueTs: issueTs, salt: salt))
    case "006":
        let absolute = number(o, "privilege-expire") ?? (expire == 0 ? 0 : issueTs &+ expire)
        print(AccessToken006.build(appId: appId, certificate: certificate, channel: channel, identity: who,
                                   privilegeExpire: Dictionary(uniqueKeysWithValues: role.privileges.map { ($0, absolute) }),
                                   issueTs: issueTs, salt: salt))
    default:
        fail("--format must be 007 or 006")
    }
}

func privilegeLines(_ map: [UInt16: UInt32]) -> String {
    map.keys.sorted().map { key in
        "  privilege \(key) (\(TokenPrivilege(rawValue: key)?.name ?? "unknown")): \(map[key]!)"
    }.joined(separator: "\n")
}

func inspect(_ args: ArraySlice<String>) {
    guard args.count == 1, let token = args.first else { fail("inspect takes one token") }
    if token.hasPrefix("007") {
        guard let t = try? AccessToken2.parse(token) else { fail("not a readable 007 token") }
        print("version: 007")
        print("signature: \(hex(t.signature))")
        print("app_id: \(text(t.appId))")
        print("issue_ts: \(t.issueTs)")
        print("expire: \(t.expire) (token expires at \(Int64(t.issueTs) + Int64(t.expire)))")
        print("salt: \(t.salt)")
        for (i, s) in t.rtcServices.enumerated() {
            print("service \(i): rtc")
            print("  channel: \(text(s.channel))")
            print("  identity: \(s.identity.isEmpty ? "(any user)" : text(s.identity))")
            print(privilegeLines(s.privileges) + "  (seconds after issue_ts; 0 = until the token expires)")
        }
    } else if token.hasPrefix("006") {
        guard let t = try? AccessToken006.parse(token) else { fail("not a readable 006 token") }
        print("version: 006")
        print("signature: \(hex(t.signature))")
        print("app_id: \(text(t.appId))")
        print("crc_channel: \(t.crcChannel)")
        print("crc_uid: \(t.crcUid)")
        print("salt: \(t.salt)")
        print("ts: \(t.ts) (token expires at this unix time)")
        print(privilegeLines(t.privileges) + "  (absolute unix times; 0 = until the token expires)")
    } else {
        fail("unknown token version")
    }
}

func verify(_ args: ArraySlice<String>) -> Int32 {
    let o = options(args, allowed: ["token", "app-id", "app-certificate", "channel", "uid", "account",
                                     "privilege", "now"])
    let privilegeName = o["privilege"] ?? "join_channel"
    guard let privilege = TokenPrivilege(name: privilegeName) else { fail("unknown privilege \(privilegeName)") }
    var now = Int64(time(nil))
    if let text = o["now"] {
        guard let n = Int64(text) else { fail("--now must be an integer") }
        now = n
    }
    let outcome = TokenVerifier.checkJoin(token: required(o, "token"), appId: required(o, "app-id"),
                                          certificate: o["app-certificate"], channel: required(o, "channel"),
                                          identity: identity(o), privilege: privilege, now: now)
    print("\(outcome.code) \(outcome.reason)")
    return outcome.code == 0 ? 0 : 1
}

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "build": build(arguments.dropFirst())
case "inspect": inspect(arguments.dropFirst())
case "verify": exit(verify(arguments.dropFirst()))
case "--help", "-h", "help": print(usage)
default: fail(arguments.first.map { "unknown command \($0)" } ?? "missing command")
}
