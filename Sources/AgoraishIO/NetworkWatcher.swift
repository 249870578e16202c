import CAgoraishShim
import Glibc

/// Watches the host's network for address and link changes (rtnetlink) on
/// an event loop, so a call can move to a new path at once instead of
/// waiting for its keepalive to time out. Loop thread only after `start`.
public final class NetworkWatcher {
    /// One change: an address added or removed (4 or 16 bytes), or a link that changed.
    public enum Change: Equatable, Sendable {
        case addressAdded([UInt8])
        case addressRemoved([UInt8])
        case linkChanged
    }

    private let loop: EventLoop
    private let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 8192)
    private var changes = [agsh_netlink_change](repeating: agsh_netlink_change(), count: 32)

    /// Opens the netlink socket and calls `onChange` on the loop thread for
    /// each change. Nil when netlink is not available (then nothing is watched).
    public init?(loop: EventLoop, onChange: @escaping ([Change]) -> Void) {
        let fd = agsh_netlink_open()
        guard fd >= 0 else { return nil }
        self.loop = loop
        self.fd = fd
        loop.register(fd, events: EventLoop.readable) { [weak self] _ in
            guard let self else { return }
            let seen = self.drain()
            if !seen.isEmpty { onChange(seen) }
        }
    }

    /// Stops watching. Loop thread.
    public func close() {
        loop.unregister(fd)
        Glibc.close(fd)
    }

    private func drain() -> [Change] {
        var out: [Change] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard n > 0 else { break }
            let count = buffer.withUnsafeBytes { raw in
                changes.withUnsafeMutableBufferPointer { agsh_netlink_parse(raw.baseAddress, n, $0.baseAddress, Int32($0.count)) }
            }
            for c in changes.prefix(Int(count)) {
                let length = c.family == AF_INET ? 4 : 16
                let address = withUnsafeBytes(of: c.address) { Array($0.prefix(length)) }
                switch c.kind {
                case 1: out.append(.addressAdded(address))
                case 2: out.append(.addressRemoved(address))
                default: out.append(.linkChanged)
                }
            }
        }
        return out
    }

    /// The local address of a socket (4 or 16 bytes), or nil.
    public static func localAddress(of fd: Int32) -> [UInt8]? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &storage) { raw in
                raw.load(as: sockaddr_in.self).sin_addr.s_addr
            }.bytes
        case AF_INET6:
            return withUnsafeBytes(of: &storage) { raw in
                withUnsafeBytes(of: raw.load(as: sockaddr_in6.self).sin6_addr) { Array($0) }
            }
        default:
            return nil
        }
    }
}

private extension UInt32 {
    /// The bytes in memory order (network order for an address).
    var bytes: [UInt8] { withUnsafeBytes(of: self) { Array($0) } }
}
