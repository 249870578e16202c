// agoraish-bench: measurements of internal code that the C ABI does not
// reach, for bench/benchmarks/*.py. Prints {"figures": [...]} like the C
// benchmarks.
//
//   agoraish-bench encryption [PACKETS [ROUNDS]]
//   agoraish-bench signaling [ROUNDS]
//
// encryption: the built-in media encryption (MediaCipher, docs/encryption.md)
// per packet, as the video send path uses it (VideoPipeline+Send.swift):
// build the RTP packet (the 12-byte header, one extension word for the
// transport-wide number, and with encryption a second word naming the mode),
// the payload encrypted, all in a new array. `encrypt_none` is the same
// packet built without encryption, so the difference is the cipher's cost.
// Every mode runs once per round (rounds interleave the modes, so a change of
// machine load hits them alike); each figure is the median over the rounds of
// the mean time per packet, the note gives min..max.
//
// signaling: the cost of the costliest signaling messages the server's limits
// allow (docs/server.md, Limits and abuse: max_message_bytes 16384,
// max_message_keys 64, max_message_depth 8), as SignalingCore.received(_:on:now:)
// pays it before it dispatches on `type`: JSONValue.withinLimits (the
// refusal before parsing), then JSONValue.parse, then the `v` and `type`
// members read. This target depends on AgoraishWire only (Package.swift), so
// SignalingCore itself (dispatch, the reply built and queued) is not in the
// figures; both functions it calls are, unchanged. Cases: a 16384-byte
// object with 64 members and long strings, a 16 KB array of single-digit
// integers in one member, a 16 KB object with 2000 members (refused by the
// member limit before parsing) and a `ping`. Each round times a case's
// messages back to back (the count calibrated to ~20 ms a round); the
// figure is the median over the rounds of the mean per message.
import AgoraishWire
import Glibc

/// CLOCK_MONOTONIC in nanoseconds.
func monotonicNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// The figure name of a mode (Agora's names, underscores, "gcm2" as in the C header).
func figureName(_ mode: EncryptionMode) -> String {
    switch mode {
    case .aes128Xts: "aes_128_xts"
    case .aes128Ecb: "aes_128_ecb"
    case .aes256Xts: "aes_256_xts"
    case .sm4128Ecb: "sm4_128_ecb"
    case .aes128Gcm: "aes_128_gcm"
    case .aes256Gcm: "aes_256_gcm"
    case .aes128Gcm2: "aes_128_gcm2"
    case .aes256Gcm2: "aes_256_gcm2"
    }
}

/// The RTP header the video send path writes before a payload: 20 bytes (fixed
/// header, extension profile word, the transport-wide number's element), and
/// 24 with a mode (extension 4 names it).
func packetHeader(sequence: UInt16, mode: EncryptionMode?) -> [UInt8] {
    var header = RtpHeader(marker: false, payloadType: 96, sequenceNumber: sequence, timestamp: 0x0001_5F90,
                           ssrc: 0x5EED_0001).serialized
    header[0] |= 0x10
    header += [0xBE, 0xDE, 0, 1, TransportFeedback.extensionId << 4 | 1, 0, 0, 0]
    if let mode {
        header[15] = 2
        header[19] = RtpHeaderExtension.payloadProtectionId << 4
        header += [UInt8(mode.rawValue), 0, 0, 0]
    }
    return header
}

/// One timed case: `run(n)` does the work n times and returns a checksum (kept, so nothing is optimized away).
struct Case {
    let name: String
    let note: String
    let run: (Int) -> Int
    var samples: [Double] = []
}

/// Runs every case once per round (after one warm-up round), `packets` times each.
func measure(_ cases: inout [Case], packets: Int, rounds: Int) -> Int {
    var sink = 0
    for round in 0...rounds {
        for i in cases.indices {
            let start = monotonicNs()
            sink &+= cases[i].run(packets)
            let elapsed = monotonicNs() - start
            if round > 0 { cases[i].samples.append(Double(elapsed) / Double(packets)) }
        }
    }
    return sink
}

func median(_ samples: [Double]) -> Double {
    let s = samples.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// A JSON string literal.
func quoted(_ s: String) -> String {
    var out = "\""
    for c in s.unicodeScalars {
        switch c {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        default: out.unicodeScalars.append(c)
        }
    }
    return out + "\""
}

func figureJSON(name: String, value: Double?, unit: String, note: String) -> String {
    let v = value.map { String(Double(Int(($0 * 10).rounded())) / 10) } ?? "null"
    return "{\"name\": \(quoted(name)), \"value\": \(v), \"unit\": \(quoted(unit)), \"note\": \(quoted(note))}"
}

/// The encryption cases for one payload size (`suffix` names the figure: "" video, "_audio" audio).
func encryptionCases(payloadSize: Int, suffix: String, decrypt: Bool, unavailable: inout [String: String]) -> [Case] {
    var payload = [UInt8](repeating: 0, count: payloadSize)
    var seed = SplitMix64(seed: 0xDA7A)
    for i in payload.indices { payload[i] = UInt8(truncatingIfNeeded: seed.next()) }
    let what = payloadSize >= 500 ? "video-sized" : "audio-sized"
    var cases: [Case] = []
    cases.append(Case(name: "encrypt_none_ns_per\(suffix)_packet",
                      note: "building the \(20 + payloadSize)-byte RTP packet of a \(payloadSize)-byte (\(what)) payload "
                          + "as the send path does without encryption: the 20-byte header (12 + one extension word) "
                          + "and the payload copied into a new array",
                      run: { n in
                          var sum = 0
                          for i in 0..<n {
                              let packet = packetHeader(sequence: UInt16(truncatingIfNeeded: i), mode: nil) + payload
                              sum &+= packet.count &+ Int(packet[packet.count - 1])
                          }
                          return sum
                      }))
    var decryptCases: [Case] = []
    if decrypt {
        decryptCases.append(Case(name: "decrypt_none_ns_per\(suffix)_packet",
                                 note: "copying the \(payloadSize)-byte payload out of a received packet into a new "
                                     + "array (what the receive path hands the cipher), no decryption",
                                 run: { n in
                                     let packet = packetHeader(sequence: 1, mode: nil) + payload
                                     var sum = 0
                                     for _ in 0..<n {
                                         let body = Array(packet[20...])
                                         sum &+= body.count &+ Int(body[0])
                                     }
                                     return sum
                                 }))
    }
    for mode in EncryptionMode.allCases {
        let key = Array("0123456789abcdef0123456789abcdef".utf8)
        let salt = (0..<32).map { UInt8($0 + 1) }
        let cipher: MediaCipher
        do {
            cipher = try MediaCipher(mode: mode, key: key, salt: salt)
        } catch {
            unavailable[figureName(mode)] = "MediaCipher(mode: .\(mode)) failed: \(error)"
            continue
        }
        let sealed: [UInt8]
        do {
            sealed = try cipher.encrypt(payload)
            guard try cipher.decrypt(sealed) == payload else {
                unavailable[figureName(mode)] = "decrypt(encrypt(payload)) != payload"
                continue
            }
        } catch {
            unavailable[figureName(mode)] = "encrypt/decrypt failed: \(error)"
            continue
        }
        let overhead = sealed.count - payloadSize
        cases.append(Case(name: "encrypt_\(figureName(mode))_ns_per\(suffix)_packet",
                          note: "MediaCipher \(mode.name) (encrypt(_:), \(overhead) bytes of overhead) on a "
                              + "\(payloadSize)-byte (\(what)) payload plus building the \(24 + payloadSize + overhead)"
                              + "-byte RTP packet around it (24-byte header: extension 4 names the mode); "
                              + "encrypt_none\(suffix == "" ? "" : "_audio") is the packet building alone",
                          run: { n in
                              var sum = 0
                              for i in 0..<n {
                                  guard let body = try? cipher.encrypt(payload) else { return -1 }
                                  let packet = packetHeader(sequence: UInt16(truncatingIfNeeded: i), mode: mode) + body
                                  sum &+= packet.count &+ Int(packet[packet.count - 1])
                              }
                              return sum
                          }))
        if decrypt {
            let packet = packetHeader(sequence: 1, mode: mode) + sealed
            decryptCases.append(Case(name: "decrypt_\(figureName(mode))_ns_per\(suffix)_packet",
                                     note: "MediaCipher \(mode.name) decrypt(_:) of the \(sealed.count)-byte encrypted "
                                         + "\(payloadSize)-byte (\(what)) payload, copied out of its received packet "
                                         + "first (decrypt_none is the copy alone)",
                                     run: { n in
                                         var sum = 0
                                         for _ in 0..<n {
                                             guard let plain = try? cipher.decrypt(Array(packet[24...])) else { return -1 }
                                             sum &+= plain.count &+ Int(plain[0])
                                         }
                                         return sum
                                     }))
        }
    }
    return cases + decryptCases
}

func encryption(packets: Int, rounds: Int) {
    var unavailable: [String: String] = [:]
    var video = encryptionCases(payloadSize: 1000, suffix: "", decrypt: true, unavailable: &unavailable)
    var audio = encryptionCases(payloadSize: 100, suffix: "_audio", decrypt: false, unavailable: &unavailable)
    let sink = measure(&video, packets: packets, rounds: rounds) &+ measure(&audio, packets: packets, rounds: rounds)
    var lines: [String] = []
    for c in video + audio {
        let s = c.samples.sorted()
        let note = "\(c.note); median of \(s.count) rounds of \(packets) packets "
            + "[\(String(Double(Int(s.first! * 10)) / 10))..\(String(Double(Int(s.last! * 10)) / 10))], "
            + "the modes interleaved round by round; one thread, agoraish-bench (release, AgoraishWire)"
        lines.append(figureJSON(name: c.name, value: median(c.samples), unit: "ns/packet", note: note))
    }
    for (name, why) in unavailable.sorted(by: { $0.key < $1.key }) {
        for suffix in ["", "_audio"] {
            lines.append(figureJSON(name: "encrypt_\(name)_ns_per\(suffix)_packet", value: nil, unit: "ns/packet",
                                    note: "not measured: \(why)"))
        }
    }
    print("{\"checksum\": \(sink), \"figures\": [\n  " + lines.joined(separator: ",\n  ") + "\n]}")
}

/// A number for a figure: three significant digits (sub-microsecond costs keep theirs).
func rounded3(_ v: Double) -> Double {
    guard v > 0, v.isFinite else { return v }
    var scale = 1.0
    while v * scale < 100 { scale *= 10 }
    while v * scale >= 1000 { scale /= 10 }
    return (v * scale).rounded() / scale
}

func figureJSON3(name: String, value: Double, unit: String, note: String) -> String {
    "{\"name\": \(quoted(name)), \"value\": \(rounded3(value)), \"unit\": \(quoted(unit)), \"note\": \(quoted(note))}"
}

/// What SignalingCore.received(_:on:now:) does with a message before it dispatches on `type`:
/// the limits check, the parse, `v` and `type`. Returns a checksum (-1: refused, -2: not an object).
@inline(never)
func signalingFront(_ text: String, maxKeys: Int, maxDepth: Int) -> Int {
    guard JSONValue.withinLimits(text, maxKeys: maxKeys, maxDepth: maxDepth) else { return -1 }
    guard case .object(let members)? = try? JSONValue.parse(text) else { return -2 }
    let v = members["v"]?.integerValue ?? 0
    let type = members["type"]?.stringValue ?? ""
    return members.count &+ Int(v) &+ type.utf8.count
}

/// One signaling message to time.
struct SignalingCase {
    let label: String
    let text: String
    let what: String
    var perRound = 0
    var samples: [Double] = []
    var result = 0
}

/// A JSON object of exactly `bytes` bytes: `"v":1,"type":"ping","id":1` and
/// then `members - 3` string members whose values share out the rest.
func wideObject(bytes: Int, members: Int) -> String {
    let head = "{\"v\":1,\"type\":\"ping\",\"id\":1"
    let pads = members - 3
    let names = (0..<pads).map { "k" + String(1000 + $0) }   // "k1000" ...: 5 characters each
    // Each member: ,"kNNNN":"<value>"  = 1 + 7 + 1 + 2 + value
    let fixed = head.utf8.count + 1 + pads * 11
    let values = bytes - fixed
    var out = head
    for (i, name) in names.enumerated() {
        let n = values / pads + (i < values % pads ? 1 : 0)
        var value = ""
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789 ")
        for j in 0..<n { value.append(alphabet[(i &* 7 &+ j) % alphabet.count]) }
        out += ",\"\(name)\":\"\(value)\""
    }
    return out + "}"
}

/// `{"v":1,"type":"ping","id":1,"a":[d,d,d,...]}` of about `bytes` bytes (single digits).
func integerArray(bytes: Int) -> (String, Int) {
    var out = "{\"v\":1,\"type\":\"ping\",\"id\":1,\"a\":["
    var count = 0
    while out.utf8.count + 2 + 2 <= bytes {
        if count > 0 { out += "," }
        out += String(count % 10)
        count += 1
    }
    return (out + "]}", count)
}

/// An object of exactly `bytes` bytes with `members` members (short names, single-digit values), for the refusal.
func manyKeys(bytes: Int, members: Int) -> String {
    var out = "{\"v\":1,\"type\":\"ping\",\"id\":1"
    for i in 3..<(members - 1) { out += ",\"\(String(i, radix: 36))\":\(i % 10)" }
    // The last member's name fills the message up to `bytes` (the refusal happens long before it).
    let missing = bytes - out.utf8.count - 7
    return out + ",\"" + String(repeating: "z", count: max(1, missing)) + "\":0}"
}

func signaling(rounds: Int) {
    // The server's defaults (ServerConfig: maxMessageKeys, maxMessageDepth, maxMessageBytes).
    let maxKeys = 64, maxDepth = 8, maxBytes = 16 * 1024
    let wide = wideObject(bytes: maxBytes, members: maxKeys)
    let (array, integers) = integerArray(bytes: maxBytes)
    let refused = manyKeys(bytes: maxBytes, members: 2000)
    let ping = "{\"v\":1,\"type\":\"ping\",\"id\":12345}"
    var cases = [
        SignalingCase(label: "a", text: wide,
                      what: "(a) a \(wide.utf8.count)-byte object with \(maxKeys) members (max_message_keys), "
                          + "\(maxKeys - 3) of them strings of ~\((maxBytes - 40) / (maxKeys - 3) - 11) characters"),
        SignalingCase(label: "b", text: array,
                      what: "(b) a \(array.utf8.count)-byte object whose member \"a\" is an array of \(integers) single-digit integers"),
        SignalingCase(label: "c", text: refused,
                      what: "(c) a \(refused.utf8.count)-byte object with 2000 members, refused by max_message_keys "
                          + "(JSONValue.withinLimits, one pass over its bytes) before parsing"),
        SignalingCase(label: "ping", text: ping, what: "a `ping` (\(ping.utf8.count) bytes)"),
    ]
    // Sanity: (a), (b) and ping pass the limits and parse; (c) is refused.
    for i in cases.indices {
        let r = signalingFront(cases[i].text, maxKeys: maxKeys, maxDepth: maxDepth)
        if (cases[i].label == "c") != (r == -1) || r == -2 { fail("case \(cases[i].label) was not handled as expected (\(r))") }
        if cases[i].text.utf8.count > maxBytes { fail("case \(cases[i].label) is larger than max_message_bytes") }
    }
    // Calibrate: enough messages for ~20 ms a round (at least 5).
    for i in cases.indices {
        var n = 1
        while true {
            let start = monotonicNs()
            for _ in 0..<n { cases[i].result &+= signalingFront(cases[i].text, maxKeys: maxKeys, maxDepth: maxDepth) }
            let elapsed = monotonicNs() - start
            if elapsed >= 2_000_000 || n >= 1 << 22 {
                cases[i].perRound = max(5, Int(Double(n) * 20_000_000 / Double(max(1, elapsed))))
                break
            }
            n *= 2
        }
    }
    for _ in 0..<rounds {
        for i in cases.indices {
            let n = cases[i].perRound
            let start = monotonicNs()
            for _ in 0..<n { cases[i].result &+= signalingFront(cases[i].text, maxKeys: maxKeys, maxDepth: maxDepth) }
            cases[i].samples.append(Double(monotonicNs() - start) / Double(n) / 1000)
        }
    }
    func summary(_ c: SignalingCase) -> String {
        let s = c.samples.sorted()
        return "\(c.what): \(String(rounded3(median(s)))) us [\(String(rounded3(s.first!)))..\(String(rounded3(s.last!)))], "
            + "\(c.perRound) messages a round"
    }
    let a = cases[0], b = cases[1], c = cases[2], p = cases[3]
    let worst = median(a.samples) >= median(b.samples) ? a : b
    let how = "JSONValue.withinLimits (max_message_keys 64, max_message_depth 8) + JSONValue.parse + the `v` and `type` "
        + "members, what SignalingCore.received(_:on:now:) runs before it dispatches (agoraish-bench depends on "
        + "AgoraishWire only, so SignalingCore's dispatch and reply are not included); median over \(rounds) rounds "
        + "of the mean per message; one thread, agoraish-bench (release)"
    let lines = [
        figureJSON3(name: "signaling_worst_parse_us", value: median(worst.samples), unit: "us/message",
                    note: "worst of (a) and (b) is (\(worst.label)). \(summary(a)); \(summary(b)). \(how)"),
        figureJSON3(name: "signaling_refused_parse_us", value: median(c.samples), unit: "us/message",
                    note: "\(summary(c)). \(how)"),
        figureJSON3(name: "signaling_ping_us", value: median(p.samples), unit: "us/message",
                    note: "\(summary(p)). \(how)"),
    ]
    let sink = cases.reduce(0) { $0 &+ $1.result }
    print("{\"checksum\": \(sink), \"figures\": [\n  " + lines.joined(separator: ",\n  ") + "\n]}")
}

func fail(_ message: String) -> Never {
    let text = "agoraish-bench: \(message)\nusage: agoraish-bench encryption [PACKETS [ROUNDS]]\n"
        + "       agoraish-bench signaling [ROUNDS]\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(2)
}

let arguments = CommandLine.arguments
switch arguments.count >= 2 ? arguments[1] : "" {
case "encryption":
    let packets = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 20_000
    let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 0 : 7
    guard packets > 0, rounds > 0 else { fail("PACKETS and ROUNDS must be positive") }
    encryption(packets: packets, rounds: rounds)
case "signaling":
    let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 15
    guard rounds > 0 else { fail("ROUNDS must be positive") }
    signaling(rounds: rounds)
default:
    fail("no such measurement")
}
