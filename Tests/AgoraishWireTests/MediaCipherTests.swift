import AgoraishWire
import Testing

/// The built-in media encryption: every mode round trips, another key or
/// mode or salt is told apart, tampering is caught where the mode
/// authenticates, and nothing of the payload shows in what is sent.
@Suite struct MediaCipherTests {
    static let key = Array("0123456789abcdef0123456789abcdef".utf8)
    static let salt = (0..<32).map { UInt8($0 * 7 + 1) }

    static func cipher(_ mode: EncryptionMode, key: [UInt8] = key, salt: [UInt8] = salt) throws -> MediaCipher? {
        do {
            return try MediaCipher(mode: mode, key: key, salt: salt)
        } catch MediaCipher.Failure.notSupported {
            // Only SM4 may be missing from an OpenSSL build; every AES mode must work.
            #expect(mode == .sm4128Ecb, "\(mode.name) not supported")
            return nil
        }
    }

    @Test(arguments: EncryptionMode.allCases)
    func everyModeRoundTripsPayloadsOfEverySize(_ mode: EncryptionMode) throws {
        guard let a = try Self.cipher(mode), let b = try Self.cipher(mode) else { return }
        var rng = SplitMix64(seed: UInt64(mode.rawValue))
        for size in [0, 1, 2, 15, 16, 17, 31, 100, 1200, 1400] {
            let payload = (0..<size).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let sealed = try a.encrypt(payload)
            // The other side, with the same mode, key and salt.
            #expect(try b.decrypt(sealed) == payload, "\(mode.name), \(size) bytes")
            let overhead = sealed.count - size
            #expect(overhead >= 8 && overhead <= 8 + 4 + 16 + 15, "\(mode.name): \(overhead) bytes of overhead")
        }
    }

    @Test(arguments: EncryptionMode.allCases)
    func anotherKeyModeOrSaltIsToldApart(_ mode: EncryptionMode) throws {
        guard let a = try Self.cipher(mode) else { return }
        let payload = Array(repeating: UInt8(0x5A), count: 160)
        let sealed = try a.encrypt(payload)
        let otherKey = try #require(try Self.cipher(mode, key: Array("another key".utf8)))
        #expect(throws: MediaCipher.Failure.self) { try otherKey.decrypt(sealed) }
        if mode.needsSalt {
            let otherSalt = try #require(try Self.cipher(mode, salt: Self.salt.reversed()))
            #expect(throws: MediaCipher.Failure.self) { try otherSalt.decrypt(sealed) }
        }
        for other in EncryptionMode.allCases where other != mode && other.rawValue != mode.rawValue {
            guard let c = try Self.cipher(other) else { continue }
            // GCM and GCM2 of one key size differ in their keys (the salt), so every pair fails.
            #expect(throws: MediaCipher.Failure.self, "\(mode.name) read as \(other.name)") { try c.decrypt(sealed) }
        }
    }

    @Test(arguments: EncryptionMode.allCases)
    func thePayloadDoesNotShowAndRepeatsDoNotRepeat(_ mode: EncryptionMode) throws {
        guard let a = try Self.cipher(mode) else { return }
        let pattern = Array("a known payload pattern, plainly".utf8)
        let payload = pattern + pattern + pattern
        let one = try a.encrypt(payload), two = try a.encrypt(payload)
        for start in 0...(one.count - 8) { #expect(Array(one[start..<(start + 8)]) != Array(pattern.prefix(8))) }
        // A fresh nonce each time; only ECB's body repeats (ECB is what it is).
        #expect(one.prefix(8) != two.prefix(8))
        if mode != .aes128Ecb && mode != .sm4128Ecb { #expect(one.dropFirst(8) != two.dropFirst(8)) }
    }

    @Test func gcmCatchesTamperingAndBadInputIsRefused() throws {
        let a = try #require(try Self.cipher(.aes128Gcm2))
        var sealed = try a.encrypt(Array(repeating: 1, count: 50))
        sealed[20] ^= 0x01
        #expect(throws: MediaCipher.Failure.decryptionFailed) { try a.decrypt(sealed) }
        #expect(throws: MediaCipher.Failure.malformed) { try a.decrypt([1, 2, 3]) }
        #expect(throws: MediaCipher.Failure.invalidKey) { try MediaCipher(mode: .aes128Gcm, key: []) }
        #expect(throws: MediaCipher.Failure.invalidKey) { try MediaCipher(mode: .aes256Gcm2, key: Self.key, salt: []) }
        #expect(throws: MediaCipher.Failure.invalidKey) {
            try MediaCipher(mode: .aes256Gcm2, key: Self.key, salt: [UInt8](repeating: 0, count: 32))
        }
        let ecb = try #require(try Self.cipher(.aes128Ecb))
        #expect(throws: MediaCipher.Failure.malformed) { try ecb.decrypt([UInt8](repeating: 0, count: 8 + 17)) }
        // Random bytes never pass as a payload of ours.
        var rng = SplitMix64(seed: 99)
        for mode in EncryptionMode.allCases {
            guard let c = try Self.cipher(mode) else { continue }
            for _ in 0..<200 {
                let junk = (0..<(8 + 16 + Int(rng.next() % 100))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                #expect(throws: MediaCipher.Failure.self) { try c.decrypt(junk) }
            }
        }
    }
}
