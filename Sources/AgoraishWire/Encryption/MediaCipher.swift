import COpenSSL

/// Agora's ENCRYPTION_MODE: the built-in media encryption's ciphers.
public enum EncryptionMode: Int32, CaseIterable, Sendable {
    case aes128Xts = 1
    case aes128Ecb = 2
    case aes256Xts = 3
    case sm4128Ecb = 4
    case aes128Gcm = 5
    case aes256Gcm = 6
    case aes128Gcm2 = 7
    case aes256Gcm2 = 8

    /// Agora's name of the mode (setEncryptionMode's strings).
    public var name: String {
        switch self {
        case .aes128Xts: "aes-128-xts"
        case .aes128Ecb: "aes-128-ecb"
        case .aes256Xts: "aes-256-xts"
        case .sm4128Ecb: "sm4-128-ecb"
        case .aes128Gcm: "aes-128-gcm"
        case .aes256Gcm: "aes-256-gcm"
        case .aes128Gcm2: "aes-128-gcm-2"
        case .aes256Gcm2: "aes-256-gcm-2"
        }
    }

    /// OpenSSL's name of the cipher.
    var openSSLName: String {
        switch self {
        case .aes128Xts: "AES-128-XTS"
        case .aes128Ecb: "AES-128-ECB"
        case .aes256Xts: "AES-256-XTS"
        case .sm4128Ecb: "SM4-ECB"
        case .aes128Gcm, .aes128Gcm2: "AES-128-GCM"
        case .aes256Gcm, .aes256Gcm2: "AES-256-GCM"
        }
    }

    var isGcm: Bool { rawValue >= 5 }
    /// The GCM2 modes derive their key with the 32-byte KDF salt.
    public var needsSalt: Bool { self == .aes128Gcm2 || self == .aes256Gcm2 }
}

/// The built-in end-to-end encryption of media and data payloads
/// (docs/encryption.md), sans-IO: the sender encrypts each payload, the
/// server forwards what it cannot read, receivers with the same mode, key and
/// salt decrypt. The RTP header stays readable (the server rewrites it on
/// each hop), so nothing in it is bound to the ciphertext.
///
/// Key: HKDF-SHA256 (RFC 5869) from the key string's bytes, with the KDF
/// salt (GCM2 modes) or none, to the cipher's key length (twice the AES key
/// for XTS), plus 4 bytes of IV salt for GCM.
///
/// Payload on the wire: an 8-byte nonce (a per-sender counter that starts at
/// a random value, so senders sharing the key never repeat one), then
/// - GCM: the ciphertext of the payload and a 16-byte tag (IV = IV salt ‖ nonce);
/// - XTS (tweak = nonce ‖ 0) and ECB: the ciphertext of
///   `magic (2) ‖ length (2) ‖ payload ‖ padding` (to 16 bytes for ECB and
///   short XTS payloads); a wrong key shows as a wrong magic or length.
///
/// Overhead: 24 bytes (GCM), 12 bytes plus padding (ECB, XTS).
public final class MediaCipher: @unchecked Sendable {
    public enum Failure: Error, Equatable, Sendable {
        /// The mode is not available in this OpenSSL (SM4 on some builds).
        case notSupported
        /// An empty key, or a GCM2 mode without a 32-byte, non-zero salt.
        case invalidKey
        /// Authentication failed, or the payload does not decrypt to ours (another key or mode).
        case decryptionFailed
        /// Too short to be an encrypted payload.
        case malformed
    }

    public let mode: EncryptionMode
    private let cipher: OpaquePointer
    private let key: [UInt8]
    private let ivSalt: [UInt8]
    private var nonce: UInt64
    /// One OpenSSL context per direction, keyed once (the key schedule is not
    /// redone per packet); each packet only sets its IV.
    private let encryptor: OpaquePointer
    private let decryptor: OpaquePointer
    private var keyed = (encrypt: false, decrypt: false)
    static let magic: (UInt8, UInt8) = (0xA6, 0x5E)
    static let nonceSize = 8
    static let tagSize = 16

    /// A cipher for `mode` with `key` (1...128 bytes) and, for the GCM2
    /// modes, `salt` (32 bytes, not all zero).
    public init(mode: EncryptionMode, key: [UInt8], salt: [UInt8] = []) throws(Failure) {
        guard !key.isEmpty, key.count <= 128 else { throw .invalidKey }
        if mode.needsSalt { guard salt.count == 32, salt.contains(where: { $0 != 0 }) else { throw .invalidKey } }
        guard let c = EVP_CIPHER_fetch(nil, mode.openSSLName, nil) else {
            ERR_clear_error()
            throw .notSupported
        }
        guard let ctx = EVP_CIPHER_CTX_new() else {
            EVP_CIPHER_free(c)
            throw .notSupported
        }
        guard let dctx = EVP_CIPHER_CTX_new() else {
            EVP_CIPHER_CTX_free(ctx)
            EVP_CIPHER_free(c)
            throw .notSupported
        }
        let keyLength = Int(EVP_CIPHER_get_key_length(c))
        let material = Self.hkdf(key: key, salt: mode.needsSalt ? salt : [], info: Array("agoraish media \(mode.name)".utf8),
                                 length: keyLength + 4)
        self.mode = mode
        cipher = c
        encryptor = ctx
        decryptor = dctx
        self.key = Array(material.prefix(keyLength))
        ivSalt = Array(material.suffix(4))
        var start: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &start) { RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), 8) }
        nonce = start
    }

    deinit {
        EVP_CIPHER_CTX_free(encryptor)
        EVP_CIPHER_CTX_free(decryptor)
        EVP_CIPHER_free(cipher)
    }

    /// HKDF-SHA256 (RFC 5869): extract with `salt`, expand with `info`.
    static func hkdf(key: [UInt8], salt: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        func hmac(_ k: [UInt8], _ data: [UInt8]) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: 32)
            var n: UInt32 = 0
            _ = HMAC(EVP_sha256(), k, Int32(k.count), data, data.count, &out, &n)
            return out
        }
        let prk = hmac(salt.isEmpty ? [UInt8](repeating: 0, count: 32) : salt, key)
        var okm: [UInt8] = [], t: [UInt8] = []
        var i: UInt8 = 1
        while okm.count < length {
            t = hmac(prk, t + info + [i])
            okm += t
            i += 1
        }
        return Array(okm.prefix(length))
    }

    private var isEcb: Bool { mode == .aes128Ecb || mode == .sm4128Ecb }

    /// The encrypted form of `payload`. Not thread-safe: one cipher per sending thread.
    /// One allocation: the output, encrypted in place.
    public func encrypt(_ payload: [UInt8]) throws(Failure) -> [UInt8] {
        guard payload.count <= 0xFFFF else { throw .malformed }
        nonce &+= 1
        let n = nonce
        let body: Int
        if mode.isGcm {
            body = payload.count
        } else {
            let framed = 4 + payload.count
            body = isEcb ? (framed + 15) / 16 * 16 : max(16, framed)
        }
        let total = Self.nonceSize + body + (mode.isGcm ? Self.tagSize : 0)
        var failure: Failure? = nil
        let out = [UInt8](unsafeUninitializedCapacity: total) { buffer, count in
            let b = buffer.baseAddress!
            for i in 0..<8 { b[i] = UInt8(truncatingIfNeeded: n >> (56 - 8 * i)) }
            var at = Self.nonceSize
            if !mode.isGcm {
                b[at] = Self.magic.0; b[at + 1] = Self.magic.1
                b[at + 2] = UInt8(payload.count >> 8 & 0xFF); b[at + 3] = UInt8(payload.count & 0xFF)
                at += 4
            }
            payload.withUnsafeBufferPointer { p in
                if let src = p.baseAddress { (b + at).update(from: src, count: p.count) }
            }
            at += payload.count
            (b + at).initialize(repeating: 0, count: total - at)
            do throws(Failure) {
                try crypt(encrypt: true, nonce: b, in: b + Self.nonceSize, count: body, out: b + Self.nonceSize,
                          tag: mode.isGcm ? b + Self.nonceSize + body : nil)
            } catch {
                failure = error
            }
            count = total
        }
        if let failure { throw failure }
        return out
    }

    /// The payload `data` was made from, or a failure (another key or mode, or tampering).
    public func decrypt(_ data: [UInt8]) throws(Failure) -> [UInt8] {
        guard data.count >= Self.nonceSize + (mode.isGcm ? Self.tagSize : 16) else { throw .malformed }
        let body = data.count - Self.nonceSize - (mode.isGcm ? Self.tagSize : 0)
        if isEcb && body % 16 != 0 { throw .malformed }
        var failure: Failure? = nil
        var plain = [UInt8](unsafeUninitializedCapacity: body) { buffer, count in
            data.withUnsafeBufferPointer { d in
                let src = d.baseAddress!
                do throws(Failure) {
                    // The tag is only read (OpenSSL's interface takes it as mutable).
                    try crypt(encrypt: false, nonce: src, in: src + Self.nonceSize, count: body, out: buffer.baseAddress!,
                              tag: mode.isGcm ? UnsafeMutablePointer(mutating: src + Self.nonceSize + body) : nil)
                } catch {
                    failure = error
                }
            }
            count = body
        }
        if let failure { throw failure }
        if mode.isGcm { return plain }
        guard plain.count >= 4, plain[0] == Self.magic.0, plain[1] == Self.magic.1 else { throw .decryptionFailed }
        let length = Int(plain[2]) << 8 | Int(plain[3])
        guard 4 + length <= plain.count else { throw .decryptionFailed }
        plain.removeSubrange(0..<4)
        plain.removeLast(plain.count - length)
        return plain
    }

    /// Runs the cipher over `count` bytes from `input` into `output` (they may
    /// be the same), with the IV made from the 8-byte `nonce` (GCM: IV salt ‖
    /// nonce; XTS: nonce ‖ 0; ECB: none). GCM writes its tag to `tag` when
    /// encrypting and checks the one there when decrypting.
    private func crypt(encrypt: Bool, nonce: UnsafePointer<UInt8>, in input: UnsafePointer<UInt8>, count: Int,
                       out output: UnsafeMutablePointer<UInt8>, tag: UnsafeMutablePointer<UInt8>?) throws(Failure) {
        let failed: Failure = encrypt ? .malformed : .decryptionFailed
        var iv = (UInt64(0), UInt64(0))
        let ok = withUnsafeMutableBytes(of: &iv) { ivBytes -> Bool in
            let v = ivBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var ivPointer: UnsafeMutablePointer<UInt8>? = v
            if mode.isGcm {
                for i in 0..<4 { v[i] = ivSalt[i] }
                for i in 0..<8 { v[4 + i] = nonce[i] }
            } else if isEcb {
                ivPointer = nil
            } else {
                for i in 0..<8 { v[i] = nonce[i] }
            }
            let ctx = encrypt ? encryptor : decryptor
            if encrypt ? keyed.encrypt : keyed.decrypt {
                // Same cipher and key: only the IV (and the state) start again.
                guard EVP_CipherInit_ex2(ctx, nil, nil, ivPointer, -1, nil) == 1 else { return false }
            } else {
                guard EVP_CipherInit_ex2(ctx, cipher, key, ivPointer, encrypt ? 1 : 0, nil) == 1 else { return false }
                EVP_CIPHER_CTX_set_padding(ctx, 0)
                if encrypt { keyed.encrypt = true } else { keyed.decrypt = true }
            }
            var n: Int32 = 0
            if count > 0 {
                guard EVP_CipherUpdate(ctx, output, &n, input, Int32(count)) == 1 else { return false }
            }
            if !encrypt, let tag, mode.isGcm {
                guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagSize), tag) == 1 else { return false }
            }
            var last: Int32 = 0
            guard EVP_CipherFinal_ex(ctx, output + Int(n), &last) == 1, Int(n) + Int(last) == count else { return false }
            if encrypt, let tag, mode.isGcm {
                guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagSize), tag) == 1 else { return false }
            }
            return true
        }
        if !ok { throw failed }
    }
}

