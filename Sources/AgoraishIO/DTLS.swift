import AgoraishWire
import COpenSSL
import Glibc

// DTLS 1.2 with DTLS-SRTP (RFC 6347, RFC 5764) on OpenSSL 3.0, sans-IO: the
// endpoint takes datagrams and gives datagrams; the host owns the socket and
// the timer. What it leaves to others: ICE and the demultiplexing of STUN,
// SRTP and DTLS on one port (RFC 7983), SRTP itself (`SrtpSession`), SCTP.
//
// The one clock here is OpenSSL's: its DTLS retransmission timer reads the
// wall clock (gettimeofday) inside the library, so `nextTimeout` is a
// duration from "now" rather than an `Instant`.

/// Why a DTLS certificate or association could not be set up, or failed.
public enum DtlsError: Error, Equatable, CustomStringConvertible {
    /// A key, certificate, context or connection could not be made (OpenSSL's reason).
    case setup(String)
    /// The handshake failed: a protocol error, an alert from the peer, no SRTP
    /// profile in common, or no answer after every retransmission (OpenSSL's reason).
    case handshake(String)
    /// The remote fingerprint is malformed or names an unknown hash, or the
    /// peer's certificate does not match it.
    case fingerprint
    /// A fatal alert or protocol error after the handshake (OpenSSL's reason).
    case connection(String)
    /// The association is closed (close_notify sent or received).
    case closed

    /// The error as one line, for logs and `DtlsEndpoint.State.failed`.
    public var description: String {
        switch self {
        case .setup(let s): "DTLS setup: \(s)"
        case .handshake(let s): "DTLS handshake: \(s)"
        case .fingerprint: "DTLS: fingerprint refused (malformed, an unknown hash, or not the peer's certificate)"
        case .connection(let s): "DTLS: \(s)"
        case .closed: "DTLS: closed"
        }
    }
}

/// A self-signed ECDSA P-256 certificate and its key, for DTLS. WebRTC trusts
/// no CA: each side checks the other's certificate against the fingerprint its
/// SDP carried (RFC 8827 §6.5).
///
/// Owns the key, the certificate and the OpenSSL context (SSL_CTX) that every
/// `DtlsEndpoint` made with it shares; the last reference frees all three.
/// Immutable once made, so any thread may use it (OpenSSL allows SSL_new on
/// one context from several threads).
public final class DtlsCertificate: @unchecked Sendable {
    /// The SHA-256 fingerprint of the DER certificate as SDP writes it
    /// (RFC 8122 §5): 32 uppercase hex pairs joined by ":".
    public let fingerprint: String
    private let key: OpaquePointer
    private let x509: OpaquePointer
    /// The context endpoints are made from (SSL_CTX, DTLS_method).
    let context: OpaquePointer

    /// Cipher suites in preference order: ECDHE-ECDSA with AES-GCM first (our
    /// certificate is ECDSA); the RSA ones serve only a client whose server has
    /// an RSA certificate.
    private static let ciphers = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:"
        + "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305:"
        + "ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA"

    /// Generates a new P-256 key and a certificate for it (SHA-256 signature,
    /// random serial, CN = `commonName` cut to 64 characters), valid from a
    /// day ago for 30 days. Throws `.setup` when OpenSSL refuses any step.
    public static func generate(commonName: String = "agoraish") throws(DtlsError) -> DtlsCertificate {
        ERR_clear_error()
        var key: OpaquePointer?, x509: OpaquePointer?, context: OpaquePointer?
        var handedOver = false
        defer {
            if !handedOver {
                SSL_CTX_free(context)
                X509_free(x509)
                EVP_PKEY_free(key)
            }
        }
        key = try makeKey()
        x509 = try makeCertificate(key: key!, commonName: commonName)
        context = try makeContext(key: key!, x509: x509!)
        guard let fingerprint = digest(of: x509!, with: EVP_sha256()) else { throw .setup("X509_digest") }
        handedOver = true
        return DtlsCertificate(key: key!, x509: x509!, context: context!, fingerprint: Self.sdpHex(fingerprint))
    }

    private init(key: OpaquePointer, x509: OpaquePointer, context: OpaquePointer, fingerprint: String) {
        self.key = key
        self.x509 = x509
        self.context = context
        self.fingerprint = fingerprint
    }

    deinit {
        SSL_CTX_free(context)
        X509_free(x509)
        EVP_PKEY_free(key)
    }

    /// A P-256 key (EVP_PKEY_generate; named-curve encoding, OpenSSL 3's default).
    private static func makeKey() throws(DtlsError) -> OpaquePointer {
        guard let parameters = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw .setup("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(parameters) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(parameters) == 1, EVP_PKEY_CTX_set_group_name(parameters, "P-256") == 1,
              EVP_PKEY_generate(parameters, &key) == 1, let key else {
            throw .setup("P-256 key: \(TLSContext.lastError())")
        }
        return key
    }

    /// A self-signed X.509 v3 certificate for `key`; the caller frees it.
    private static func makeCertificate(key: OpaquePointer, commonName: String) throws(DtlsError) -> OpaquePointer {
        guard let x509 = X509_new() else { throw .setup("X509_new") }
        var serial: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &serial) { RAND_bytes($0.baseAddress, Int32($0.count)) }
        let cn = Array(String(commonName.prefix(64)).utf8)
        let name = X509_get_subject_name(x509)
        guard !cn.isEmpty, X509_set_version(x509, 2) == 1,
              ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serial >> 1 | 1) == 1,
              X509_gmtime_adj(X509_getm_notBefore(x509), -86_400) != nil,
              X509_gmtime_adj(X509_getm_notAfter(x509), 30 * 86_400) != nil,
              X509_set_pubkey(x509, key) == 1,
              X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, cn, Int32(cn.count), -1, 0) == 1,
              X509_set_issuer_name(x509, name) == 1,
              X509_sign(x509, key, EVP_sha256()) > 0 else {
            X509_free(x509)
            throw .setup("certificate: \(TLSContext.lastError())")
        }
        return x509
    }

    /// The DTLS context: our certificate, DTLS 1.2 at least, the ciphers above,
    /// the peer's certificate required (its check is `verifyPeerCertificate`),
    /// no session resumption (each association shows its certificate), no
    /// renegotiation, the MTU as set per endpoint.
    private static func makeContext(key: OpaquePointer, x509: OpaquePointer) throws(DtlsError) -> OpaquePointer {
        guard let context = SSL_CTX_new(DTLS_method()) else { throw .setup("SSL_CTX_new: \(TLSContext.lastError())") }
        guard SSL_CTX_use_certificate(context, x509) == 1, SSL_CTX_use_PrivateKey(context, key) == 1,
              SSL_CTX_check_private_key(context) == 1,
              // SSL_CTX_set_min_proto_version (a macro over SSL_CTX_ctrl).
              SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(DTLS1_2_VERSION), nil) == 1,
              SSL_CTX_set_cipher_list(context, ciphers) == 1 else {
            SSL_CTX_free(context)
            throw .setup("context: \(TLSContext.lastError())")
        }
        _ = SSL_CTX_set_options(context, sslOpNoQueryMtu | sslOpNoTicket | sslOpNoRenegotiation)
        // SSL_CTX_set_session_cache_mode and SSL_CTX_set_max_cert_list (macros over SSL_CTX_ctrl).
        // A peer's certificate list is one self-signed certificate; 16 KiB also bounds
        // the handshake messages OpenSSL will reassemble.
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF), nil)
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_CERT_LIST, 16_384, nil)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, verifyPeerCertificate)
        return context
    }

    /// The digest of a certificate's DER encoding (X509_digest), nil if OpenSSL fails.
    static func digest(of x509: OpaquePointer, with md: OpaquePointer) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(x509, md, &out, &length) == 1 else { return nil }
        return Array(out.prefix(Int(length)))
    }

    /// Bytes as SDP writes a fingerprint: uppercase hex pairs joined by ":".
    static func sdpHex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        for (i, b) in bytes.enumerated() {
            if i > 0 { text.append(UInt8(ascii: ":")) }
            text += [digits[Int(b >> 4)], digits[Int(b & 0x0F)]]
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// ssl.h's option bits are `SSL_OP_BIT(n)`, a function-like macro Swift does not
/// import; the shim keeps OpenSSL's headers out, so the values are written here.
/// SSL_OP_NO_QUERY_MTU: the MTU is ours (`DtlsEndpoint.mtu`), never the BIO's.
private let sslOpNoQueryMtu: UInt64 = 1 << 12
/// SSL_OP_NO_TICKET: no session tickets (no resumption, shorter flights).
private let sslOpNoTicket: UInt64 = 1 << 14
/// SSL_OP_NO_RENEGOTIATION: a ClientHello after the handshake gets a
/// no_renegotiation warning, not a second handshake.
private let sslOpNoRenegotiation: UInt64 = 1 << 30

/// One DTLS association, sans-IO: the host feeds it the datagrams the peer
/// sent and sends the datagrams it returns; it owns no socket and no timer.
///
/// Driving it: call `start()` once (a client's first flight), `receive(_:)`
/// for every datagram from the peer whose first byte is 20...63 (RFC 7983),
/// and `handleTimeout()` when `nextTimeout` has passed; read `nextTimeout`
/// again after every call. Send every datagram any call returns, in order.
/// When `state` becomes `.connected`, `srtp` holds the keys for two
/// `SrtpSession`s; `send(_:)` and `received` carry application data (SCTP).
/// Bad input never traps: invalid records are dropped (RFC 6347 §4.1.2.7), a
/// protocol error or fatal alert ends in `.failed`.
///
/// Owns its OpenSSL connection (SSL) and datagram BIO, freed in deinit. Not
/// thread-safe: one thread at a time (OpenSSL's error queue is per thread and
/// each call clears and reads it).
public final class DtlsEndpoint: @unchecked Sendable {
    /// Which side of the handshake this is (SDP a=setup: active is the client).
    public enum Role: Sendable { case client, server }

    /// Where the association is.
    public enum State: Equatable, Sendable {
        /// Flights are being exchanged.
        case handshaking
        /// The handshake completed, the peer's certificate matched, `srtp` is set
        /// (when profiles were given).
        case connected
        /// It failed for good; the text is the `DtlsError`'s description (`failure`).
        case failed(String)
        /// `close()` was called or the peer sent close_notify.
        case closed
    }

    /// The largest datagram the endpoint writes, in bytes: every flight is cut
    /// to fit (SSL_set_mtu). 1200 leaves room for IPv6, UDP and TURN framing.
    public static let mtu = 1200
    /// Application messages `received` holds at most; later ones are dropped
    /// until the caller empties it.
    public static let maxReceived = 256

    /// Where the association is; changes only inside the calls below.
    public private(set) var state: State = .handshaking
    /// Why `state` is `.failed` (nil otherwise).
    public private(set) var failure: DtlsError?
    /// After `.connected`: the negotiated profile and the keying (master key ||
    /// master salt, as `SrtpSession(profile:keying:inbound:)` takes it) this side
    /// protects with (`local`) and the peer protects with (`remote`), from the
    /// exporter label "EXTRACTOR-dtls_srtp" (RFC 5764 §4.2). Nil before, on
    /// failure, and when no profiles were given.
    public private(set) var srtp: (profile: SrtpProfile, local: [UInt8], remote: [UInt8])?
    /// Application data received after the handshake, one record per element,
    /// oldest first; the caller empties it. At most `maxReceived` elements.
    public var received: [[UInt8]] = []
    /// This side of the handshake.
    public let role: Role

    private let ssl: OpaquePointer
    private let link: DtlsLink
    private let profiles: [SrtpProfile]
    private var started = false

    /// A new association with certificate `certificate`.
    ///
    /// - `remoteFingerprint`: the peer's a=fingerprint: algorithm "sha-256"
    ///   (or "sha-1", "sha-384", "sha-512"; any case) and the hex pairs joined
    ///   by ":" (any case). The peer's certificate must match it, else the
    ///   endpoint fails with `.fingerprint`.
    /// - `profiles`: SRTP protection profiles offered (client) or accepted
    ///   (server), in preference order; the server's order decides. Empty: no
    ///   DTLS-SRTP (`srtp` stays nil).
    /// - `retransmitTimeout`: the first retransmission timer of a flight
    ///   (RFC 6347 §4.2.4.1: 1 s; libwebrtc uses twice the ICE round trip),
    ///   doubled on each expiry up to 60 s, kept within 50 ms...60 s. OpenSSL
    ///   counts a timer with less than 15 ms left as expired, and retransmits
    ///   in any call made once it is due, not only in `handleTimeout()`.
    ///
    /// Throws `.fingerprint` for a malformed fingerprint or unknown algorithm,
    /// `.setup` when OpenSSL refuses.
    public init(role: Role, certificate: DtlsCertificate, remoteFingerprint: (algorithm: String, value: String),
                profiles: [SrtpProfile], retransmitTimeout: Duration = .seconds(1)) throws(DtlsError) {
        guard let expected = PeerFingerprint(algorithm: remoteFingerprint.algorithm, value: remoteFingerprint.value) else {
            throw .fingerprint
        }
        guard let method = datagramMethod else { throw .setup("BIO_meth_new") }
        var unique: [SrtpProfile] = []
        for p in profiles where !unique.contains(p) { unique.append(p) }
        let timeoutUs = min(max(retransmitTimeout.nanosecondsClamped / 1000, minRetransmitUs), maxRetransmitUs)
        let link = DtlsLink(expected: expected, initialTimeoutUs: UInt32(timeoutUs))

        ERR_clear_error()
        guard let ssl = SSL_new(certificate.context) else { throw .setup("SSL_new: \(TLSContext.lastError())") }
        guard let bio = BIO_new(method) else {
            SSL_free(ssl)
            throw .setup("BIO_new")
        }
        BIO_set_data(bio, Unmanaged.passUnretained(link).toOpaque())
        SSL_set_bio(ssl, bio, bio)  // the SSL owns the BIO from here
        // SSL_set_app_data (SSL_set_ex_data index 0): how the C callbacks find `link`.
        _ = SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(link).toOpaque())
        let srtpNames = unique.map(\.openSSLName).joined(separator: ":")
        // SSL_set_tlsext_use_srtp returns 0 on success. SSL_set_mtu is a macro over SSL_ctrl.
        guard unique.isEmpty || SSL_set_tlsext_use_srtp(ssl, srtpNames) == 0,
              SSL_ctrl(ssl, SSL_CTRL_SET_MTU, Self.mtu, nil) > 0 else {
            SSL_free(ssl)
            throw .setup("SRTP profiles or MTU: \(TLSContext.lastError())")
        }
        DTLS_set_timer_cb(ssl, retransmitTimer)
        if role == .client { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
        self.ssl = ssl
        self.link = link
        self.role = role
        self.profiles = unique
    }

    deinit { SSL_free(ssl) }  // frees the BIO too; `link` outlives both

    /// Starts the handshake. Client: the first flight (ClientHello). Server:
    /// [] (it answers in `receive`). Later calls return [].
    public func start() -> [[UInt8]] {
        guard !started, state == .handshaking else { return [] }
        started = true
        guard role == .client else { return [] }
        advance()
        return takeDatagrams()
    }

    /// Feeds one datagram the peer sent (DTLS records: first byte 20...63;
    /// anything else is ignored, as are datagrams after `.failed` or `.closed`).
    /// Returns the datagrams to send, each at most `mtu` bytes. Application
    /// data it carried is appended to `received`. The bytes are read during the
    /// call only.
    public func receive(_ datagram: UnsafeRawBufferPointer) -> [[UInt8]] {
        guard isOpen, let first = datagram.first, (20...63).contains(first) else { return [] }
        started = true
        link.inbound = datagram
        defer { link.inbound = nil }
        advance()
        return takeDatagrams()
    }

    /// Retransmission (DTLSv1_handle_timeout): when the timer is due, the
    /// last flight again; otherwise []. Call at or after `nextTimeout`. After
    /// too many retransmissions (OpenSSL gives up after 12) the endpoint fails.
    public func handleTimeout() -> [[UInt8]] {
        guard isOpen else { return [] }
        ERR_clear_error()
        // DTLSv1_handle_timeout: a macro over SSL_ctrl; -1 when OpenSSL gave up.
        if SSL_ctrl(ssl, DTLS_CTRL_HANDLE_TIMEOUT, 0, nil) < 0 {
            fail(state == .handshaking ? .handshake(TLSContext.lastError()) : .connection(TLSContext.lastError()))
        }
        return takeDatagrams()
    }

    /// How long until `handleTimeout()` is due (DTLSv1_get_timeout; zero when
    /// it is due now), or nil when no timer runs: no flight waits for an
    /// answer, or the endpoint failed or closed.
    public var nextTimeout: Duration? {
        guard isOpen else { return nil }
        var remaining = timeval()
        // DTLSv1_get_timeout: a macro over SSL_ctrl; 1 while the timer runs.
        guard SSL_ctrl(ssl, DTLS_CTRL_GET_TIMEOUT, 0, &remaining) == 1 else { return nil }
        return .seconds(remaining.tv_sec) + .microseconds(remaining.tv_usec)
    }

    /// The most application data one `send(_:)` takes: one record that fits a
    /// datagram of `mtu` bytes (DTLS_get_data_mtu; 0 before `.connected`).
    public var maxSendSize: Int {
        state == .connected ? Int(DTLS_get_data_mtu(ssl)) : 0
    }

    /// Sends application data as one record (SSL_write); returns the datagram
    /// to send. Returns [] (and sends nothing) unless `.connected`, or when
    /// `data` is empty or longer than `maxSendSize`: DTLS does not queue or
    /// split, the layer above (SCTP) retransmits and sizes its packets.
    public func send(_ data: [UInt8]) -> [[UInt8]] {
        guard state == .connected, !data.isEmpty, data.count <= maxSendSize else { return [] }
        ERR_clear_error()
        let n = data.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        if n <= 0, !wantsMore(n) { fail(.connection(TLSContext.lastError())) }
        return takeDatagrams()
    }

    /// Closes the association: after the handshake, a close_notify alert to
    /// send (SSL_shutdown); during it, nothing (OpenSSL sends no alert while
    /// in the handshake). `state` is `.closed` after, unless it had failed.
    public func close() -> [[UInt8]] {
        guard isOpen else { return [] }
        if state == .connected {
            ERR_clear_error()
            _ = SSL_shutdown(ssl)
            ERR_clear_error()
        }
        state = .closed
        srtp = nil
        return takeDatagrams()
    }

    private var isOpen: Bool { state == .handshaking || state == .connected }

    /// Runs the handshake as far as the input allows, then reads application data.
    private func advance() {
        if state == .handshaking {
            ERR_clear_error()
            let rc = SSL_do_handshake(ssl)
            if rc == 1 {
                finishHandshake()
            } else if !wantsMore(rc) {
                fail(link.fingerprintMismatch ? .fingerprint : .handshake(TLSContext.lastError()))
            }
        }
        if state == .connected { readApplicationData() }
    }

    /// After SSL_do_handshake succeeded: the peer's certificate against its
    /// fingerprint (again: the verify callback saw it first), then the SRTP
    /// profile and keys. A failure here sends close_notify, so the peer, which
    /// thinks the handshake went well, closes too.
    private func finishHandshake() {
        let matches = SSL_get1_peer_certificate(ssl).map { peer in
            defer { X509_free(peer) }
            return link.expected.matches(peer)
        } ?? false
        guard matches else { return failAfterHandshake(.fingerprint) }
        if !profiles.isEmpty {
            guard let selected = SSL_get_selected_srtp_profile(ssl),
                  let profile = SrtpProfile(openSSLId: selected.pointee.id) else {
                return failAfterHandshake(.handshake("no SRTP profile in common"))
            }
            guard let keys = exportSrtpKeying(profile) else {
                return failAfterHandshake(.handshake("exporter: \(TLSContext.lastError())"))
            }
            srtp = keys
        }
        state = .connected
    }

    /// RFC 5764 §4.2: the exporter gives client key, server key, client salt,
    /// server salt; each side's keying is its key followed by its salt.
    private func exportSrtpKeying(_ profile: SrtpProfile) -> (profile: SrtpProfile, local: [UInt8], remote: [UInt8])? {
        let keyLength = 16, saltLength = profile.keyingLength - keyLength
        var material = [UInt8](repeating: 0, count: 2 * profile.keyingLength)
        let label = "EXTRACTOR-dtls_srtp"
        guard SSL_export_keying_material(ssl, &material, material.count, label, label.utf8.count, nil, 0, 0) == 1 else {
            return nil
        }
        let salts = 2 * keyLength
        let client = Array(material[0..<keyLength] + material[salts..<(salts + saltLength)])
        let server = Array(material[keyLength..<salts] + material[(salts + saltLength)...])
        return role == .client ? (profile, client, server) : (profile, server, client)
    }

    /// Reads every application record OpenSSL has (SSL_read), into `received`;
    /// a close_notify closes, a fatal alert or error fails.
    private func readApplicationData() {
        withUnsafeTemporaryAllocation(byteCount: 16_384, alignment: 1) { buffer in
            while state == .connected {
                ERR_clear_error()
                let n = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
                if n > 0 {
                    if received.count < Self.maxReceived {
                        received.append(Array(UnsafeRawBufferPointer(rebasing: buffer[0..<Int(n)])))
                    }
                    continue
                }
                if SSL_get_error(ssl, n) == SSL_ERROR_ZERO_RETURN {
                    state = .closed
                    srtp = nil
                } else if !wantsMore(n) {
                    fail(.connection(TLSContext.lastError()))
                }
                return
            }
        }
    }

    /// Whether a call that returned `rc` only waits for input (SSL_ERROR_WANT_READ).
    private func wantsMore(_ rc: Int32) -> Bool {
        let error = SSL_get_error(ssl, rc)
        return error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE
    }

    private func fail(_ error: DtlsError) {
        failure = error
        state = .failed(error.description)
        srtp = nil
    }

    private func failAfterHandshake(_ error: DtlsError) {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
        fail(error)
    }

    /// The datagrams OpenSSL wrote during the last call. During the handshake
    /// OpenSSL packs records into a buffering BIO up to the MTU and flushes it
    /// at the end of each flight; the flush here sends whatever it still holds.
    /// A retransmission flushes after every message, one datagram each. Those
    /// are not joined here: OpenSSL, receiving, drops the rest of a datagram
    /// after some records it discards (an old ClientHello before a new flight).
    private func takeDatagrams() -> [[UInt8]] {
        if let wbio = SSL_get_wbio(ssl) { _ = BIO_ctrl(wbio, BIO_CTRL_FLUSH, 0, nil) }  // BIO_flush
        ERR_clear_error()  // dropped records can leave errors; other OpenSSL users on this thread read the queue
        defer { link.outbound = [] }
        return link.outbound
    }
}

/// The longest retransmission timer, in microseconds (RFC 6347 §4.2.4.1: 60 s).
private let maxRetransmitUs: Int64 = 60_000_000
/// The shortest first retransmission timer, in microseconds (libwebrtc's floor).
/// Shorter ones would be due at once (OpenSSL's 15 ms slack) and every call
/// would resend the flight, doubling the timer, until it passed 15 ms.
private let minRetransmitUs: Int64 = 50_000

/// The endpoint's side of OpenSSL's callbacks: the datagram being received,
/// the datagrams written, the fingerprint to check. C reaches it through an
/// unretained pointer in the BIO's data and the SSL's app data; the endpoint
/// owns it and frees the SSL (and with it the BIO) first.
final class DtlsLink {
    /// The datagram `receive` is feeding, until the BIO hands it to OpenSSL.
    var inbound: UnsafeRawBufferPointer?
    /// Datagrams OpenSSL wrote, one per BIO write.
    var outbound: [[UInt8]] = []
    /// What the peer's certificate must hash to.
    let expected: PeerFingerprint
    /// The first retransmission timer, in microseconds.
    let initialTimeoutUs: UInt32
    /// Set when the verify callback refused the peer's certificate.
    var fingerprintMismatch = false

    init(expected: PeerFingerprint, initialTimeoutUs: UInt32) {
        self.expected = expected
        self.initialTimeoutUs = initialTimeoutUs
    }

    static func of(ssl: OpaquePointer?) -> DtlsLink? {
        SSL_get_ex_data(ssl, 0).map { Unmanaged<DtlsLink>.fromOpaque($0).takeUnretainedValue() }
    }

    static func of(bio: OpaquePointer?) -> DtlsLink? {
        BIO_get_data(bio).map { Unmanaged<DtlsLink>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// A peer's certificate fingerprint from SDP (RFC 8122 §5), parsed.
struct PeerFingerprint {
    /// The hash (EVP_MD; OpenSSL's static table, never freed).
    let md: OpaquePointer
    let value: [UInt8]

    /// Nil for an unknown algorithm or a value that is not exactly the hash's
    /// length in hex pairs joined by ":".
    init?(algorithm: String, value: String) {
        let md: OpaquePointer?, length: Int
        switch algorithm.lowercased() {
        case "sha-1": (md, length) = (EVP_sha1(), 20)
        case "sha-256": (md, length) = (EVP_sha256(), 32)
        case "sha-384": (md, length) = (EVP_sha384(), 48)
        case "sha-512": (md, length) = (EVP_sha512(), 64)
        default: return nil
        }
        let pairs = value.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard let md, pairs.count == length else { return nil }
        var bytes: [UInt8] = []
        for pair in pairs {
            guard pair.count == 2, let hi = Self.hexDigit(pair.first!), let lo = Self.hexDigit(pair.last!) else { return nil }
            bytes.append(hi << 4 | lo)
        }
        self.md = md
        self.value = bytes
    }

    /// Whether `x509` hashes to the fingerprint.
    func matches(_ x509: OpaquePointer) -> Bool {
        DtlsCertificate.digest(of: x509, with: md) == value
    }

    private static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension SrtpProfile {
    /// OpenSSL's name for the profile (SSL_set_tlsext_use_srtp).
    var openSSLName: String {
        switch self {
        case .aeadAes128Gcm: "SRTP_AEAD_AES_128_GCM"
        case .aes128CmHmacSha1_80: "SRTP_AES128_CM_SHA1_80"
        }
    }

    /// The profile of an RFC 5764 §4.1.2 / RFC 7714 §14.2 identifier, nil for others.
    init?(openSSLId: UInt) {
        switch openSSLId {
        case UInt(SRTP_AEAD_AES_128_GCM): self = .aeadAes128Gcm
        case UInt(SRTP_AES128_CM_SHA1_80): self = .aes128CmHmacSha1_80
        default: return nil
        }
    }
}

/// The verify callback (SSL_CTX_set_verify): there is no CA, so the chain's
/// own errors (self-signed) are accepted, and the peer's certificate (depth
/// 0) must match the fingerprint from SDP. Refusing here makes OpenSSL send a
/// bad_certificate alert, so the peer fails too instead of waiting.
private let verifyPeerCertificate: SSL_verify_cb = { _, store in
    guard let store, let ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
          let link = DtlsLink.of(ssl: OpaquePointer(ssl)) else { return 0 }
    guard X509_STORE_CTX_get_error_depth(store) == 0 else { return 1 }
    guard let peer = X509_STORE_CTX_get_current_cert(store), link.expected.matches(peer) else {
        link.fingerprintMismatch = true
        return 0
    }
    return 1
}

/// The retransmission timer (DTLS_set_timer_cb): OpenSSL asks with 0 for the
/// first timer of a flight, then with the last one on each expiry.
private let retransmitTimer: DTLS_timer_cb = { ssl, previousUs in
    guard previousUs != 0 else { return DtlsLink.of(ssl: ssl)?.initialTimeoutUs ?? 1_000_000 }
    return UInt32(min(Int64(previousUs) * 2, maxRetransmitUs))
}

/// The BIO of a datagram pipe: each write from OpenSSL is one datagram to
/// send, each read hands out the one datagram being received (cut to
/// OpenSSL's buffer, like a UDP socket), then reports "retry". A memory BIO
/// would join a flight's datagrams into one stream, and OpenSSL 3.0 has no
/// BIO_s_dgram_pair (3.2). Made once per process and never freed: a table of
/// functions, no state (that is each BIO's `DtlsLink`). Nil if OpenSSL could
/// not allocate it.
private nonisolated(unsafe) let datagramMethod: OpaquePointer? = {
    guard let method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "agoraish datagram") else { return nil }
    _ = BIO_meth_set_write(method) { bio, data, length in
        guard let link = DtlsLink.of(bio: bio) else { return -1 }
        BIO_clear_flags(bio, bioRetryFlags)  // BIO_clear_retry_flags
        guard let data, length > 0 else { return 0 }
        link.outbound.append(Array(UnsafeRawBufferPointer(start: data, count: Int(length))))
        return length
    }
    _ = BIO_meth_set_read(method) { bio, buffer, size in
        guard let link = DtlsLink.of(bio: bio) else { return -1 }
        BIO_clear_flags(bio, bioRetryFlags)  // BIO_clear_retry_flags
        guard let datagram = link.inbound, let source = datagram.baseAddress, let buffer, size > 0 else {
            BIO_set_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_SHOULD_RETRY)  // BIO_set_retry_read
            return -1
        }
        link.inbound = nil
        let n = min(Int(size), datagram.count)
        UnsafeMutableRawPointer(buffer).copyMemory(from: source, byteCount: n)
        return Int32(n)
    }
    _ = BIO_meth_set_ctrl(method) { _, command, _, _ in
        switch command {
        case BIO_CTRL_FLUSH: 1
        case BIO_CTRL_DGRAM_QUERY_MTU, BIO_CTRL_DGRAM_GET_FALLBACK_MTU: DtlsEndpoint.mtu
        default: 0  // no pending bytes, no MTU overhead, no peer address, no timers
        }
    }
    _ = BIO_meth_set_create(method) { bio in
        BIO_set_init(bio, 1)
        return 1
    }
    return method
}()

/// BIO_FLAGS_RWS | BIO_FLAGS_SHOULD_RETRY (BIO_FLAGS_RWS is a macro Swift does not import).
private let bioRetryFlags = BIO_FLAGS_READ | BIO_FLAGS_WRITE | BIO_FLAGS_IO_SPECIAL | BIO_FLAGS_SHOULD_RETRY
