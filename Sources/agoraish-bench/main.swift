// agoraish-bench: measurements of internal code that the C ABI does not
// reach, for bench/benchmarks/*.py. Prints {"figures": [...]} like the C
// benchmarks.
//
//   agoraish-bench encryption [PACKETS [ROUNDS]]
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

func fail(_ message: String) -> Never {
    let text = "agoraish-bench: \(message)\nusage: agoraish-bench encryption [PACKETS [ROUNDS]]\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, arguments[1] == "encryption" else { fail("no such measurement") }
let packets = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 20_000
let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 0 : 7
guard packets > 0, rounds > 0 else { fail("PACKETS and ROUNDS must be positive") }
encryption(packets: packets, rounds: rounds)
