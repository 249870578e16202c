import CAgoraishShim
import Glibc

/// An IPv4 or IPv6 socket address.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    /// The raw sockaddr bytes (sockaddr_in or sockaddr_in6).
    public var storage: sockaddr_storage
    /// Length of the valid part of `storage`.
    public var length: socklen_t

    /// Wraps raw sockaddr bytes.
    public init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    /// Resolves a numeric or named host and a port (getaddrinfo). Nil when it does not resolve.
    public init?(host: String, port: UInt16) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result else { return nil }
        defer { freeaddrinfo(result) }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
        }
        self.storage = storage
        self.length = first.pointee.ai_addrlen
    }

    /// The address family (AF_INET or AF_INET6).
    public var family: Int32 { Int32(storage.ss_family) }

    /// The port.
    public var port: UInt16 {
        withUnsafeBytes(of: storage) { raw in
            family == AF_INET6 ? UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self))
                : UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self))
        }
    }

    /// The address bytes: 4 for IPv4, 16 for IPv6.
    public var ipBytes: [UInt8] {
        withUnsafeBytes(of: storage) { raw in
            family == AF_INET6 ? Array(raw[8..<24]) : Array(raw[4..<8])
        }
    }

    /// The host as numeric text.
    public var host: String {
        var buffer = [CChar](repeating: 0, count: 64)
        var copy = storage
        withUnsafePointer(to: &copy) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = getnameinfo($0, length, &buffer, 64, nil, 0, NI_NUMERICHOST)
            }
        }
        return String(cString: buffer)
    }

    public var description: String { family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    public static func == (a: SocketAddress, b: SocketAddress) -> Bool {
        guard a.length == b.length else { return false }
        return withUnsafeBytes(of: a.storage) { x in
            withUnsafeBytes(of: b.storage) { y in memcmp(x.baseAddress!, y.baseAddress!, Int(a.length)) == 0 }
        }
    }

    public func hash(into h: inout Hasher) {
        withUnsafeBytes(of: storage) { h.combine(bytes: UnsafeRawBufferPointer(rebasing: $0.prefix(Int(length)))) }
    }

    public func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var copy = storage
        return withUnsafePointer(to: &copy) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}

/// Why a socket operation failed: the call and its errno.
public struct SocketError: Error, Equatable, CustomStringConvertible {
    /// The system call that failed.
    public var call: String
    /// Its errno.
    public var errno: Int32
    public var description: String { "\(call): \(String(cString: strerror(errno)))" }
}

/// Small wrappers over the socket calls, each returning a descriptor or throwing.
public enum Sockets {
    /// A non-blocking listening TCP socket bound to `address` (SO_REUSEADDR).
    public static func listenTCP(_ address: SocketAddress, backlog: Int32 = 128) throws(SocketError) -> Int32 {
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(call: "socket", errno: errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let rc = address.withSockaddr { bind(fd, $0, $1) }
        guard rc == 0 else { let e = errno; close(fd); throw SocketError(call: "bind", errno: e) }
        guard listen(fd, backlog) == 0 else { let e = errno; close(fd); throw SocketError(call: "listen", errno: e) }
        return fd
    }

    /// A non-blocking UDP socket bound to `address`.
    public static func bindUDP(_ address: SocketAddress) throws(SocketError) -> Int32 {
        let fd = socket(address.family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(call: "socket", errno: errno) }
        let rc = address.withSockaddr { bind(fd, $0, $1) }
        guard rc == 0 else { let e = errno; close(fd); throw SocketError(call: "bind", errno: e) }
        return fd
    }

    /// Starts a non-blocking TCP connect; completion shows as EPOLLOUT, then `connectResult`.
    public static func connectTCP(_ address: SocketAddress) throws(SocketError) -> Int32 {
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(call: "socket", errno: errno) }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let rc = address.withSockaddr { Glibc.connect(fd, $0, $1) }
        if rc != 0 && errno != EINPROGRESS {
            let e = errno
            close(fd)
            throw SocketError(call: "connect", errno: e)
        }
        return fd
    }

    /// The outcome of a non-blocking connect (SO_ERROR): 0 or an errno.
    public static func connectResult(_ fd: Int32) -> Int32 {
        var err: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
        return err
    }

    /// Accepts one connection (non-blocking, close-on-exec), or nil when none is pending.
    public static func accept(_ listener: Int32) -> (Int32, SocketAddress)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &length) }
        }
        guard fd >= 0 else { return nil }
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return (fd, SocketAddress(storage: storage, length: length))
    }

    /// The local address of a socket.
    public static func localAddress(_ fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return rc == 0 ? SocketAddress(storage: storage, length: length) : nil
    }
}

/// A non-blocking TCP byte stream driven by an `EventLoop`: reads are handed to
/// `onData`, writes are buffered until the socket takes them, and `onClose`
/// runs once when either side ends the stream. Loop thread only.
public final class TCPStream {
    /// The descriptor (owned; closed by `close()`).
    public let fd: Int32
    /// The peer's address.
    public let peer: SocketAddress
    /// Called with each chunk received.
    public var onData: ([UInt8]) -> Void = { _ in }
    /// Called once when the stream ends; the argument is the errno (0 for an orderly end).
    public var onClose: (Int32) -> Void = { _ in }
    /// Bytes waiting to be written.
    public private(set) var pendingBytes = 0
    /// True until the stream ends.
    public private(set) var isOpen = true
    /// Most bytes read per readiness event: what is left is read on the loop's
    /// next turn (epoll is level-triggered), so one busy peer never holds the
    /// loop for long.
    public var readBudget = Int.max
    /// False while reading is paused (`pauseReading`).
    public private(set) var isReading = true

    private let loop: EventLoop
    private var outbox: [UInt8] = []
    private var outboxStart = 0
    private var closeAfterFlush = false
    private var connecting: Bool

    deinit {
        // A stream dropped while still open gives its descriptor back. Its
        // registration holds only a weak reference, so the loop forgets it.
        if isOpen {
            loop.detach(fd)
            Glibc.close(fd)
        }
    }

    /// Adopts a connected (or connecting, when `connecting`) descriptor.
    public init(loop: EventLoop, fd: Int32, peer: SocketAddress, connecting: Bool = false,
                onConnect: ((Int32) -> Void)? = nil) {
        self.loop = loop
        self.fd = fd
        self.peer = peer
        self.connecting = connecting
        loop.register(fd, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue | (connecting ? EPOLLOUT.rawValue : 0)) {
            [weak self] events in
            guard let self else { return }
            if self.connecting {
                guard events & (EPOLLOUT.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 else { return }
                self.connecting = false
                let err = Sockets.connectResult(fd)
                onConnect?(err)
                if err != 0 { self.end(err); return }
                self.updateInterest()
                return
            }
            let ended = events & (EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue) != 0
            if !self.isReading && ended {
                // A paused stream cannot read to the end; the peer hung up, so it ends here.
                self.end(0)
                return
            }
            if events & EPOLLIN.rawValue != 0 || ended {
                self.readAvailable()
            }
            if self.isOpen && events & EPOLLOUT.rawValue != 0 { self.flush() }
        }
    }

    /// Queues bytes and writes what the socket takes now.
    public func write(_ bytes: [UInt8]) {
        guard isOpen, !closeAfterFlush, !bytes.isEmpty else { return }
        outbox += bytes
        pendingBytes = outbox.count - outboxStart
        if !connecting { flush() }
    }

    /// Ends the stream after queued bytes are written (or at once with `flush: false`).
    public func close(flush: Bool = true) {
        guard isOpen else { return }
        if flush && pendingBytes > 0 && !connecting {
            // Keep writing until the queue is empty; what arrives meanwhile is discarded.
            closeAfterFlush = true
            return
        }
        end(0)
    }

    /// Stops reading: the kernel's buffers fill and TCP pushes back on the peer.
    /// An end of the stream is still noticed.
    public func pauseReading() {
        guard isReading else { return }
        isReading = false
        updateInterest()
    }

    /// Reads again after `pauseReading`.
    public func resumeReading() {
        guard !isReading else { return }
        isReading = true
        updateInterest()
    }

    private func readAvailable() {
        var buffer = [UInt8](repeating: 0, count: min(16384, max(1, readBudget)))
        var left = readBudget
        while isOpen && isReading && left > 0 {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, min($0.count, left)) }
            if n > 0 {
                left -= n
                if !closeAfterFlush { onData(Array(buffer[0..<n])) }
                continue
            }
            if n == 0 { end(0); return }
            if errno == EAGAIN || errno == EINTR { return }
            end(errno)
            return
        }
    }

    private func flush() {
        while isOpen && outboxStart < outbox.count {
            let n = outbox.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + outboxStart, outbox.count - outboxStart, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                outboxStart += n
            } else if n < 0 && (errno == EAGAIN || errno == EINTR) {
                break
            } else {
                end(errno)
                return
            }
        }
        if outboxStart == outbox.count {
            outbox.removeAll(keepingCapacity: true)
            outboxStart = 0
        }
        pendingBytes = outbox.count - outboxStart
        if closeAfterFlush && pendingBytes == 0 { end(0); return }
        updateInterest()
    }

    private func updateInterest() {
        guard isOpen else { return }
        loop.modify(fd, events: (isReading ? EPOLLIN.rawValue : 0) | EPOLLRDHUP.rawValue
                        | (pendingBytes > 0 ? EPOLLOUT.rawValue : 0))
    }

    private func end(_ err: Int32) {
        guard isOpen else { return }
        isOpen = false
        loop.unregister(fd)
        Glibc.close(fd)
        outbox = []
        onClose(err)
    }
}
