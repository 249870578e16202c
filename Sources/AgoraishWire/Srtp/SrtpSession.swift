import CSrtp

/// SRTP protection profiles (RFC 5764 §4.1.2 names, RFC 7714 for GCM).
public enum SrtpProfile: String, Sendable, CaseIterable {
    /// AEAD_AES_128_GCM: 16-byte key, 12-byte salt, 16-byte tag. The default:
    /// on Debian's NSS-built libsrtp2 it is about 3x cheaper per packet.
    case aeadAes128Gcm = "AEAD_AES_128_GCM"
    /// AES_CM_128_HMAC_SHA1_80: 16-byte key, 14-byte salt, 10-byte tag.
    case aes128CmHmacSha1_80 = "AES_CM_128_HMAC_SHA1_80"

    /// Bytes of master key plus master salt.
    public var keyingLength: Int {
        switch self {
        case .aeadAes128Gcm: 28
        case .aes128CmHmacSha1_80: 30
        }
    }
}

/// Why SRTP refused a packet.
public enum SrtpError: Error, Equatable, Sendable {
    /// The authentication tag did not verify (forged, corrupted, or another key).
    case authenticationFailed
    /// The packet was already received (replay window, RFC 3711 §3.3.2).
    case replay
    /// Anything else libsrtp reports (malformed packet, no room for the tag, ...).
    case failed(Int32)
}

/// One direction of SRTP and SRTCP for any number of SSRCs (libsrtp2
/// `srtp_t` with an ssrc_any policy). Protects or unprotects packets in place
/// in a caller buffer that has `SrtpSession.maxTrailer` spare bytes.
///
/// Not thread-safe: each session belongs to one thread at a time.
public final class SrtpSession: @unchecked Sendable {
    /// The most bytes protection adds (SRTP_MAX_TRAILER_LEN).
    public static let maxTrailer = Int(SRTP_MAX_TRAILER_LEN)

    private var session: srtp_t?
    /// The profile in use.
    public let profile: SrtpProfile

    /// Creates a session. `keying` is master key || master salt
    /// (`profile.keyingLength` bytes); `inbound` chooses unprotect vs protect.
    public init(profile: SrtpProfile, keying: [UInt8], inbound: Bool, replayWindow: UInt = 1024) throws(SrtpError) {
        guard keying.count == profile.keyingLength else { throw .failed(-1) }
        _ = srtpLibrary
        self.profile = profile
        var policy = srtp_policy_t()
        switch profile {
        case .aeadAes128Gcm:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        case .aes128CmHmacSha1_80:
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        }
        policy.ssrc.type = inbound ? ssrc_any_inbound : ssrc_any_outbound
        policy.window_size = replayWindow
        policy.allow_repeat_tx = 0
        var key = keying
        var created: srtp_t?
        let rc = key.withUnsafeMutableBufferPointer { k -> srtp_err_status_t in
            policy.key = k.baseAddress
            return srtp_create(&created, &policy)
        }
        guard rc == srtp_err_status_ok, let created else { throw .failed(Int32(rc.rawValue)) }
        session = created
    }

    deinit {
        if let session { srtp_dealloc(session) }
    }

    /// Protects an RTP packet of `length` bytes at `packet` in place; returns the new length.
    public func protectRtp(_ packet: UnsafeMutableRawPointer, length: Int) throws(SrtpError) -> Int {
        var n = Int32(length)
        try check(srtp_protect(session, packet, &n))
        return Int(n)
    }

    /// Unprotects an SRTP packet in place; returns the plain length.
    public func unprotectRtp(_ packet: UnsafeMutableRawPointer, length: Int) throws(SrtpError) -> Int {
        var n = Int32(length)
        try check(srtp_unprotect(session, packet, &n))
        return Int(n)
    }

    /// Protects an RTCP packet in place; returns the new length.
    public func protectRtcp(_ packet: UnsafeMutableRawPointer, length: Int) throws(SrtpError) -> Int {
        var n = Int32(length)
        try check(srtp_protect_rtcp(session, packet, &n))
        return Int(n)
    }

    /// Unprotects an SRTCP packet in place; returns the plain length.
    public func unprotectRtcp(_ packet: UnsafeMutableRawPointer, length: Int) throws(SrtpError) -> Int {
        var n = Int32(length)
        try check(srtp_unprotect_rtcp(session, packet, &n))
        return Int(n)
    }

    private func check(_ rc: srtp_err_status_t) throws(SrtpError) {
        switch rc {
        case srtp_err_status_ok: return
        case srtp_err_status_auth_fail: throw .authenticationFailed
        case srtp_err_status_replay_fail, srtp_err_status_replay_old: throw .replay
        default: throw .failed(Int32(rc.rawValue))
        }
    }
}

/// libsrtp2 is initialised once per process (a second srtp_init() fails),
/// with OpenSSL's AES-GCM in place of the one it was built with (Debian's uses
/// NSS, which sets up a PKCS #11 context for every packet); libsrtp2 checks it
/// against its own test vectors first and keeps its own if they fail. One NSS
/// context stays open for the process, so making a session (its key
/// derivation runs on NSS's AES) does not start and stop NSS each time.
private let srtpLibrary: Bool = {
    guard srtp_init() == srtp_err_status_ok else { return false }
    _ = agsh_srtp_use_openssl_gcm()
    _ = agsh_srtp_hold_nss()
    return true
}()

/// Whether AES-GCM runs on OpenSSL (false: libsrtp2's own build).
public let srtpUsesOpenSSLGcm: Bool = {
    _ = srtpLibrary
    return agsh_srtp_gcm_is_openssl() != 0
}()
