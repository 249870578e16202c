import AgoraishWire
import Glibc

/// A WebSocket client connection (RFC 6455) over a non-blocking TCP stream,
/// on an `EventLoop`: connect, opening handshake, then text messages.
/// `onOpen`, `onText` and `onClose` run on the loop thread; `onClose` runs
/// once, whether the connection failed to open or ended later. Loop thread only.
public final class WebSocketClient {
    /// Called when the handshake has completed.
    public var onOpen: () -> Void = {}
    /// Called with each text message.
    public var onText: (String) -> Void = { _ in }
    /// Called once when the connection ends or cannot be made.
    public var onClose: () -> Void = {}
    /// Bytes sent and received on the wire, for statistics.
    public private(set) var bytesSent: UInt64 = 0
    public private(set) var bytesReceived: UInt64 = 0

    private let loop: EventLoop
    private let url: ServerURL
    private var stream: TCPStream?
    private var socket: WebSocketConnection
    private let tlsContext: TLSContext?
    private var tls: TLSSession?
    private var handshakeKey = ""
    private var head: [UInt8] = []
    private var open = false
    private var ended = false

    /// Starts connecting to `url`. A wss:// URL needs `tls` (the client's trust
    /// anchors). Failures are reported through `onClose` after `start()`.
    public init(loop: EventLoop, url: ServerURL, tls: TLSContext? = nil, maxMessage: Int = 1 << 20) {
        self.loop = loop
        self.url = url
        self.tlsContext = tls
        var seed: UInt64 = 0
        if let f = fopen("/dev/urandom", "r") { fread(&seed, 8, 1, f); fclose(f) }
        socket = WebSocketConnection(role: .client, maxMessage: maxMessage, maskSeed: seed)
    }

    /// Begins the TCP connect (call after setting the callbacks).
    public func start() {
        guard let address = SocketAddress(host: url.host, port: url.port),
              let fd = try? Sockets.connectTCP(address) else {
            loop.post { [self] in end() }
            return
        }
        if url.secure {
            guard let context = tlsContext, let session = try? TLSSession(context: context, hostname: url.host) else {
                Glibc.close(fd)
                loop.post { [self] in end() }
                return
            }
            tls = session
        }
        var nonce = [UInt8](repeating: 0, count: 16)
        if let f = fopen("/dev/urandom", "r") { fread(&nonce, 1, 16, f); fclose(f) }
        let (request, key) = WebSocketHandshake.request(host: url.hostHeader, path: url.path, nonce: nonce)
        handshakeKey = key
        let s = TCPStream(loop: loop, fd: fd, peer: address, connecting: true) { [weak self] err in
            guard let self, err == 0 else { return }
            if let tls = self.tls, let hello = try? tls.start() {
                self.raw(hello)
            }
            self.write(request.serialized)
        }
        s.onData = { [weak self] bytes in self?.received(bytes) }
        s.onClose = { [weak self] _ in self?.end() }
        stream = s
    }

    /// Sends a text message (dropped unless open).
    public func send(text: String) {
        guard open else { return }
        socket.send(text: text)
        flush()
    }

    /// The local address of the TCP connection (4 or 16 bytes), once connected.
    public var localAddress: [UInt8]? { stream.flatMap { NetworkWatcher.localAddress(of: $0.fd) } }

    /// Closes the connection (a close frame, then the TCP stream). `onClose` follows.
    public func close() {
        guard !ended else { return }
        if open {
            socket.close(code: 1000, reason: "bye")
            flush()
        }
        stream?.close()
        end()
    }

    /// Writes application bytes, through TLS for wss://.
    private func write(_ bytes: [UInt8]) {
        guard let tls else { return raw(bytes) }
        guard let cipher = try? tls.send(bytes) else { return close() }
        raw(cipher)
    }

    private func raw(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        bytesSent += UInt64(bytes.count)
        stream?.write(bytes)
    }

    private func flush() {
        if let bytes = socket.pollTransmit() { write(bytes) }
    }

    private func received(_ cipher: [UInt8]) {
        bytesReceived += UInt64(cipher.count)
        var bytes = cipher
        if let tls {
            guard let (plain, reply) = try? tls.receive(cipher) else { return close() }
            raw(reply)
            bytes = plain
            if bytes.isEmpty { return }
        }
        if !open {
            head += bytes
            let parsed: (HTTPHead, Int)?
            do { parsed = try HTTPHead.parse(head[...]) } catch { close(); return }
            guard let (response, used) = parsed else { return }
            guard (try? WebSocketHandshake.validate(response: response, key: handshakeKey)) != nil else {
                close()
                return
            }
            open = true
            let rest = Array(head[used...])
            head = []
            onOpen()
            if !rest.isEmpty { deliver(rest) }
            return
        }
        deliver(bytes)
    }

    private func deliver(_ bytes: [UInt8]) {
        socket.receive(bytes)
        while let m = socket.pollMessage() {
            switch m {
            case .text(let t): onText(t)
            case .binary, .pong: break
            case .closed: break
            }
        }
        flush()
        if socket.isClosed {
            stream?.close()
            end()
        }
    }

    private func end() {
        guard !ended else { return }
        ended = true
        open = false
        onClose()
    }
}
