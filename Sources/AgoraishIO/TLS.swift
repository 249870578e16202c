import CAgoraishShim
import COpenSSL

/// Why TLS could not be set up or went wrong.
public enum TLSError: Error, Equatable, CustomStringConvertible {
    /// A certificate, key or CA file could not be loaded.
    case load(String)
    /// The handshake or a record failed (bad certificate, protocol error, ...).
    case failed(String)

    public var description: String {
        switch self {
        case .load(let s): "TLS setup: \(s)"
        case .failed(let s): "TLS: \(s)"
        }
    }
}

/// An OpenSSL context (SSL_CTX): a server's certificate and key, or a
/// client's trust anchors. Shared by every session made from it.
public final class TLSContext: @unchecked Sendable {
    let ctx: OpaquePointer
    /// Whether sessions are servers.
    public let isServer: Bool

    /// A server context from PEM certificate-chain and private-key files.
    public static func server(certificateFile: String, keyFile: String) throws(TLSError) -> TLSContext {
        guard let ctx = SSL_CTX_new(TLS_server_method()) else { throw .load("SSL_CTX_new") }
        let c = TLSContext(ctx: ctx, isServer: true)
        guard SSL_CTX_use_certificate_chain_file(ctx, certificateFile) == 1 else {
            throw .load("cannot use certificate \(certificateFile): \(lastError())")
        }
        guard SSL_CTX_use_PrivateKey_file(ctx, keyFile, SSL_FILETYPE_PEM) == 1,
              SSL_CTX_check_private_key(ctx) == 1 else {
            throw .load("cannot use key \(keyFile): \(lastError())")
        }
        _ = agsh_ssl_ctx_min_tls12(ctx)
        return c
    }

    /// A client context that verifies servers against `caFile` (PEM), or the
    /// system's trust store when nil.
    public static func client(caFile: String?) throws(TLSError) -> TLSContext {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { throw .load("SSL_CTX_new") }
        let c = TLSContext(ctx: ctx, isServer: false)
        let loaded = caFile.map { SSL_CTX_load_verify_locations(ctx, $0, nil) } ?? SSL_CTX_set_default_verify_paths(ctx)
        guard loaded == 1 else { throw .load("cannot load trust anchors \(caFile ?? "(system)"): \(lastError())") }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        _ = agsh_ssl_ctx_min_tls12(ctx)
        return c
    }

    private init(ctx: OpaquePointer, isServer: Bool) {
        self.ctx = ctx
        self.isServer = isServer
    }

    deinit { SSL_CTX_free(ctx) }
}

/// One TLS connection over memory BIOs, sans-IO: feed it ciphertext from the
/// socket, take out plaintext and the ciphertext to send. Plaintext written
/// before the handshake completes is queued and sent after it.
public final class TLSSession {
    private let ssl: OpaquePointer
    private let rbio: OpaquePointer
    private let wbio: OpaquePointer
    private var pendingPlaintext: [UInt8] = []
    /// True once the handshake has completed.
    public private(set) var isEstablished = false

    /// A session of `context`; `hostname` (clients) is sent as SNI and verified
    /// against the server's certificate.
    public init(context: TLSContext, hostname: String? = nil) throws(TLSError) {
        guard let ssl = SSL_new(context.ctx), let rbio = BIO_new(BIO_s_mem()), let wbio = BIO_new(BIO_s_mem()) else {
            throw .load("SSL_new")
        }
        self.ssl = ssl
        self.rbio = rbio
        self.wbio = wbio
        SSL_set_bio(ssl, rbio, wbio)
        if context.isServer {
            SSL_set_accept_state(ssl)
        } else {
            SSL_set_connect_state(ssl)
            if let hostname {
                _ = agsh_ssl_set_sni(ssl, hostname)
                guard SSL_set1_host(ssl, hostname) == 1 else { throw .load("cannot verify host \(hostname)") }
            }
        }
    }

    deinit { SSL_free(ssl) }  // frees both BIOs too

    /// Starts the handshake (clients); returns the ciphertext to send.
    public func start() throws(TLSError) -> [UInt8] {
        try advance()
        return takeCiphertext()
    }

    /// Feeds ciphertext from the peer. Returns the plaintext it carried and the
    /// ciphertext to send back (handshake records, queued writes).
    public func receive(_ ciphertext: [UInt8]) throws(TLSError) -> (plaintext: [UInt8], send: [UInt8]) {
        var offset = 0
        while offset < ciphertext.count {
            let n = ciphertext.withUnsafeBytes { BIO_write(rbio, $0.baseAddress! + offset, Int32($0.count - offset)) }
            guard n > 0 else { throw .failed("BIO_write") }
            offset += Int(n)
        }
        try advance()
        var plaintext: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while isEstablished {
            let n = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if n > 0 {
                plaintext += buffer[0..<Int(n)]
                continue
            }
            let err = SSL_get_error(ssl, n)
            if err == SSL_ERROR_WANT_READ || err == SSL_ERROR_ZERO_RETURN { break }
            throw .failed("read: \(Self.lastError())")
        }
        return (plaintext, takeCiphertext())
    }

    /// Encrypts plaintext; returns the ciphertext to send (empty until the
    /// handshake completes; the plaintext is then sent with it).
    public func send(_ plaintext: [UInt8]) throws(TLSError) -> [UInt8] {
        pendingPlaintext += plaintext
        try flushPlaintext()
        return takeCiphertext()
    }

    private func advance() throws(TLSError) {
        if !isEstablished {
            let rc = SSL_do_handshake(ssl)
            if rc == 1 {
                isEstablished = true
            } else {
                let err = SSL_get_error(ssl, rc)
                guard err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE else {
                    throw .failed("handshake: \(Self.lastError())")
                }
            }
        }
        try flushPlaintext()
    }

    private func flushPlaintext() throws(TLSError) {
        guard isEstablished, !pendingPlaintext.isEmpty else { return }
        let n = pendingPlaintext.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        guard n > 0 else { throw .failed("write: \(Self.lastError())") }
        pendingPlaintext.removeFirst(Int(n))
    }

    private func takeCiphertext() -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while BIO_ctrl_pending(wbio) > 0 {
            let n = buffer.withUnsafeMutableBytes { BIO_read(wbio, $0.baseAddress, Int32($0.count)) }
            if n <= 0 { break }
            out += buffer[0..<Int(n)]
        }
        return out
    }

    static func lastError() -> String { TLSContext.lastError() }
}

extension TLSContext {
    /// The text of the most recent OpenSSL error on this thread (and clears the queue).
    static func lastError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "unknown error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(cString: buffer)
    }
}
