@testable import AgoraishWire
import Testing

/// `TokenCrypto.base64Encode` and the strict `base64Decode` (libcrypto's
/// EVP_EncodeBlock / EVP_DecodeBlock behind the checks of RFC 4648 §4).
@Suite struct Base64Tests {
    /// RFC 4648 §10.
    @Test(arguments: [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
                      ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")])
    func rfc4648VectorsEncodeAndDecode(_ plain: String, _ encoded: String) throws {
        #expect(TokenCrypto.base64Encode(Array(plain.utf8)) == encoded)
        if !encoded.isEmpty { #expect(try TokenCrypto.base64Decode(Substring(encoded)) == Array(plain.utf8)) }
    }

    @Test func everyByteValueRoundTrips() throws {
        for n in 0..<70 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            let text = TokenCrypto.base64Encode(bytes)
            #expect(text.utf8.count == (n + 2) / 3 * 4)
            if n > 0 { #expect(try TokenCrypto.base64Decode(Substring(text)) == bytes) }
        }
        let all = (0...255).map(UInt8.init)
        #expect(try TokenCrypto.base64Decode(Substring(TokenCrypto.base64Encode(all))) == all)
        #expect(TokenCrypto.base64Encode([0xFB, 0xFF, 0xBF]) == "+/+/")
    }

    @Test func bitsAfterTheLastByteAreIgnored() throws {
        // As Foundation's Data(base64Encoded:) did.
        #expect(try TokenCrypto.base64Decode("QR==") == [0x41])
        #expect(try TokenCrypto.base64Decode("QUJ=") == [0x41, 0x42])
    }

    @Test(arguments: ["", "Q", "QQ", "QQ=", "Q===", "====", "QQ=A", "Q=Q=", "Zm9v\n", " Zm9v", "Zm 9v", "Zm9v Zg==",
                      "Zm9-", "Zm9_", "Zm9v\u{0}", "Zm9é", "Zg==Zg=="])
    func malformedTextIsRefused(_ text: String) {
        #expect(throws: WireError.self) { try TokenCrypto.base64Decode(Substring(text)) }
    }
}
