import AgoraishIO
import AgoraishWire

/// One accepted TCP connection and where it is in its life.
final class Peer {
    enum Phase {
        case head([UInt8])
        case websocket
    }

    let id: UInt64
    let stream: TCPStream
    let kind: ChannelServer.ListenerKind
    let acceptedAt: Instant
    var phase: Phase = .head([])
    var socket: WebSocketConnection
    var joinAnswered = false
    /// TLS of a wss:// connection; nil for plain TCP.
    var tls: TLSSession?
    /// The connection's message budget, and since when it has been held back by it.
    var budget = RateBudget(rate: 1, burst: 1, now: Instant(nanoseconds: 0))
    var throttledSince: Instant?
    /// Reading resumes when this fires (while held back).
    var resumeTimer: EventLoop.TimerID?
    /// WebSocket pings already charged to the budget.
    var pingsCharged = 0
    /// Unsent bytes past which the peer is closed, and what to count then.
    var maxOutput = Int.max
    var onOverflow: () -> Void = {}

    /// Writes bytes to the peer, through TLS when the connection has it. A
    /// peer that leaves more than `maxOutput` bytes unread is closed.
    func send(_ bytes: [UInt8]) {
        if let tls {
            if let cipher = try? tls.send(bytes), !cipher.isEmpty { stream.write(cipher) }
        } else {
            stream.write(bytes)
        }
        if stream.isOpen && stream.pendingBytes > maxOutput {
            onOverflow()
            stream.close(flush: false)
        }
    }

    init(id: UInt64, stream: TCPStream, kind: ChannelServer.ListenerKind, acceptedAt: Instant, maxMessage: Int) {
        self.id = id
        self.stream = stream
        self.kind = kind
        self.acceptedAt = acceptedAt
        self.socket = WebSocketConnection(role: .server, maxMessage: maxMessage)
        socket.defersCloseEcho = true
    }
}
