@testable import AgoraishWire
import Testing

func hexBytes(_ s: String) -> [UInt8] {
    let clean = s.filter { $0.isHexDigit }
    var out: [UInt8] = []
    var i = clean.startIndex
    while i < clean.endIndex {
        let j = clean.index(i, offsetBy: 2)
        out.append(UInt8(clean[i..<j], radix: 16)!)
        i = j
    }
    return out
}

@Suite struct StunTests {
    /// RFC 5769 §2.1: sample request, password "VOkJxbRl1RmTxUk/WvJxBt".
    static let sampleRequest = hexBytes("""
        00 01 00 58 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
        80 22 00 10 53 54 55 4e 20 74 65 73 74 20 63 6c 69 65 6e 74
        00 24 00 04 6e 00 01 ff
        80 29 00 08 93 2f f9 b1 51 26 3b 36
        00 06 00 09 65 76 74 6a 3a 68 36 76 59 20 20 20
        00 08 00 14 9a ea a7 0c bf d8 cb 56 78 1e f2 b5 b2 d3 f2 49 c1 b5 71 a2
        80 28 00 04 e5 7a 3b cf
        """)
    static let password = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8)

    @Test func rfc5769SampleRequestVerifies() throws {
        let m = try StunMessage.parse(Self.sampleRequest, integrityKey: Self.password)
        #expect(m.type == .bindingRequest)
        #expect(m.username == "evtj:h6vY")
        #expect(m.attribute(.priority) == [0x6e, 0x00, 0x01, 0xff])
        #expect(throws: WireError.self) { _ = try StunMessage.parse(Self.sampleRequest, integrityKey: Array("wrong".utf8)) }
        var flipped = Self.sampleRequest
        flipped[30] ^= 1
        #expect(throws: WireError.self) { _ = try StunMessage.parse(flipped) }  // FINGERPRINT catches it
    }

    @Test func serializedMessagesRoundTripWithIntegrityAndFingerprint() throws {
        let tid: [UInt8] = Array(1...12)
        let response = StunMessage(type: .bindingSuccess, transactionId: tid, attributes: [
            (StunMessage.AttributeType.xorMappedAddress.rawValue,
             StunMessage.xorMappedAddress(ipv4: [192, 0, 2, 1], port: 32853, transactionId: tid)),
        ])
        let bytes = response.serialized(integrityKey: Array("secret".utf8))
        #expect(bytes.count == 20 + 12 + 24 + 8)
        let back = try StunMessage.parse(bytes, integrityKey: Array("secret".utf8))
        #expect(back == response)
        // RFC 5769 §2.2: 192.0.2.1:32853 encodes as e1 12 a6 43 / 80 55 ^ 21 12 = a1 47.
        #expect(back.attribute(.xorMappedAddress) == [0x00, 0x01, 0xa1, 0x47, 0xe1, 0x12, 0xa6, 0x43])
    }

    @Test func truncatedAndMalformedMessagesAreRejected() {
        for n in [0, 10, 19, 21, 40] {
            #expect(throws: WireError.self) { _ = try StunMessage.parse(Array(Self.sampleRequest.prefix(n))) }
        }
        var badCookie = Self.sampleRequest
        badCookie[4] = 0
        #expect(throws: WireError.self) { _ = try StunMessage.parse(badCookie) }
    }
}

@Suite struct RtpTests {
    @Test func headerRoundTripsAndClassifies() throws {
        let h = RtpHeader(marker: true, payloadType: 111, sequenceNumber: 0xBEEF, timestamp: 0x01020304, ssrc: 0xCAFEBABE)
        let packet = h.serialized + [1, 2, 3]
        let parsed = try packet.withUnsafeBytes { try RtpHeader.parse($0) }
        #expect(parsed == h)
        #expect(packet.withUnsafeBytes { MediaPacketKind.classify($0) } == .rtp)
        let rtcp: [UInt8] = [0x80, 200, 0, 6, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 20)
        #expect(rtcp.withUnsafeBytes { MediaPacketKind.classify($0) } == .rtcp)
        #expect(try rtcp.withUnsafeBytes { try rtcpSenderSsrc($0) } == 1)
        #expect(StunTests.sampleRequest.withUnsafeBytes { MediaPacketKind.classify($0) } == .stun)
        #expect([UInt8]([0x40, 0]).withUnsafeBytes { MediaPacketKind.classify($0) } == .unknown)
    }

    @Test func extensionsCsrcsAndPaddingAreSkipped() throws {
        // CC=1, X=1 with one extension word, P with 2 bytes of padding.
        let packet: [UInt8] = [0xB1, 96, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3] + [0, 0, 0, 9] + [0xBE, 0xDE, 0, 1, 1, 2, 3, 4]
            + [0xAA, 0xBB] + [0, 2]
        let h = try packet.withUnsafeBytes { try RtpHeader.parse($0) }
        #expect(h.payloadOffset == 24)
        #expect(h.paddingLength == 2)
        for n in [0, 11, 15, 20] {
            #expect(throws: WireError.self) { _ = try Array(packet.prefix(n)).withUnsafeBytes { try RtpHeader.parse($0) } }
        }
    }
}

@Suite struct SrtpTests {
    func packet(seq: UInt16, payload: [UInt8]) -> [UInt8] {
        RtpHeader(marker: false, payloadType: 111, sequenceNumber: seq, timestamp: UInt32(seq) * 960, ssrc: 0x1234).serialized + payload
    }

    @Test(arguments: SrtpProfile.allCases)
    func protectUnprotectRoundTripsAndRejectsReplaysAndForgeries(_ profile: SrtpProfile) throws {
        let keying = (0..<profile.keyingLength).map { UInt8($0 &* 7) }
        let tx = try SrtpSession(profile: profile, keying: keying, inbound: false)
        let rx = try SrtpSession(profile: profile, keying: keying, inbound: true)
        let other = try SrtpSession(profile: profile, keying: keying.map { $0 ^ 0xFF }, inbound: true)
        let plain = packet(seq: 1, payload: Array("hello, srtp".utf8))
        var buffer = plain + [UInt8](repeating: 0, count: SrtpSession.maxTrailer)
        let protectedLength = try buffer.withUnsafeMutableBytes { try tx.protectRtp($0.baseAddress!, length: plain.count) }
        #expect(protectedLength == plain.count + (profile == .aeadAes128Gcm ? 16 : 10))
        #expect(Array(buffer[12..<plain.count]) != Array(plain[12...]))  // the payload is encrypted
        let wire = Array(buffer[0..<protectedLength])
        var copy = wire + [UInt8](repeating: 0, count: 16)
        #expect(throws: SrtpError.authenticationFailed) {
            _ = try copy.withUnsafeMutableBytes { try other.unprotectRtp($0.baseAddress!, length: wire.count) }
        }
        copy = wire
        let n = try copy.withUnsafeMutableBytes { try rx.unprotectRtp($0.baseAddress!, length: wire.count) }
        #expect(Array(copy[0..<n]) == plain)
        copy = wire
        #expect(throws: SrtpError.replay) {
            _ = try copy.withUnsafeMutableBytes { try rx.unprotectRtp($0.baseAddress!, length: wire.count) }
        }
    }
}

@Suite struct SrtpGcmTests {
    /// libsrtp2 took OpenSSL's AES-GCM after checking it against its own
    /// test vectors (it keeps its built-in one otherwise).
    @Test func aesGcmRunsOnOpenSSLAndRefusesAnyChangedByte() throws {
        #expect(srtpUsesOpenSSLGcm)
        let keying = (0..<SrtpProfile.aeadAes128Gcm.keyingLength).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
        let tx = try SrtpSession(profile: .aeadAes128Gcm, keying: keying, inbound: false)
        let plain = RtpHeader(marker: true, payloadType: 96, sequenceNumber: 7, timestamp: 90000, ssrc: 0xCAFE).serialized
            + (0..<900).map { UInt8(truncatingIfNeeded: $0) }
        var buffer = plain + [UInt8](repeating: 0, count: SrtpSession.maxTrailer)
        let n = try buffer.withUnsafeMutableBytes { try tx.protectRtp($0.baseAddress!, length: plain.count) }
        let wire = Array(buffer[0..<n])
        // A changed header byte (authenticated data), payload byte or tag byte, and a packet
        // shorter than its tag: each refused, never decrypted.
        for index in [1, 20, n - 1] {
            let rx = try SrtpSession(profile: .aeadAes128Gcm, keying: keying, inbound: true)
            var copy = wire
            copy[index] ^= 0x01
            let length = copy.count
            #expect(throws: SrtpError.authenticationFailed) {
                _ = try copy.withUnsafeMutableBytes { try rx.unprotectRtp($0.baseAddress!, length: length) }
            }
        }
        let rx = try SrtpSession(profile: .aeadAes128Gcm, keying: keying, inbound: true)
        var short = Array(wire[0..<20])
        #expect(throws: (any Error).self) {
            _ = try short.withUnsafeMutableBytes { try rx.unprotectRtp($0.baseAddress!, length: 20) }
        }
        var copy = wire
        let m = try copy.withUnsafeMutableBytes { try rx.unprotectRtp($0.baseAddress!, length: wire.count) }
        #expect(Array(copy[0..<m]) == plain)
    }
}

@Suite struct RtpExtensionTests {
    @Test func audioLevelRoundTripsInAOneByteExtension() throws {
        let level = AudioLevel(voiceActivity: true, level: 42)
        let block = RtpHeaderExtension.oneByte([(1, [level.byte])])
        // RFC 8285 §4.2: BE DE, one word, element (id 1, length 0), data, padding.
        #expect(block == [0xBE, 0xDE, 0x00, 0x01, 0x10, 0xAA, 0x00, 0x00])
        let header = RtpHeader(marker: false, payloadType: 111, sequenceNumber: 1, timestamp: 960, ssrc: 9).serialized
        var packet = header + block + [0xF0, 0x0D]
        packet[0] |= 0x10  // X bit
        let parsed = try packet.withUnsafeBytes { try RtpHeader.parse($0) }
        #expect(parsed.payloadOffset == 20)
        let elements = try packet.withUnsafeBytes { try RtpHeaderExtension.parseOneByte($0, at: 12) }
        #expect(elements.count == 1 && elements[0].id == 1)
        #expect(AudioLevel(byte: elements[0].data.first!) == level)
    }

    @Test func levelsFollowRFC6464() {
        let silence = [Int16](repeating: 0, count: 480)
        #expect(silence.withUnsafeBufferPointer { AudioLevel(pcm: $0, voiceActivity: false) }.level == 127)
        // A full-scale square wave is 0 dBov; half scale is about 6 dB down.
        let full = (0..<480).map { $0 % 2 == 0 ? Int16.max : Int16.min }
        #expect(full.withUnsafeBufferPointer { AudioLevel(pcm: $0, voiceActivity: true) }.level == 0)
        let half = (0..<480).map { $0 % 2 == 0 ? Int16(16384) : Int16(-16384) }
        #expect(half.withUnsafeBufferPointer { AudioLevel(pcm: $0, voiceActivity: true) }.level == 6)
    }

    @Test func malformedExtensionsAreRejected() {
        let short: [UInt8] = [0xBE, 0xDE, 0x00, 0x02, 0x10, 0xAA]
        #expect(throws: WireError.self) { _ = try short.withUnsafeBytes { try RtpHeaderExtension.parseOneByte($0, at: 0) } }
        let overrun: [UInt8] = [0xBE, 0xDE, 0x00, 0x01, 0x1F, 0xAA, 0, 0]
        #expect(throws: WireError.self) { _ = try overrun.withUnsafeBytes { try RtpHeaderExtension.parseOneByte($0, at: 0) } }
        let twoByte: [UInt8] = [0x10, 0x00, 0x00, 0x01, 0, 0, 0, 0]
        #expect(throws: WireError.self) { _ = try twoByte.withUnsafeBytes { try RtpHeaderExtension.parseOneByte($0, at: 0) } }
    }
}
