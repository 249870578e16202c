/// The message layer of one WebSocket connection (RFC 6455 §5.4–§5.5, §7),
/// sans-IO: feed it received bytes, take out messages and the bytes to send.
///
/// It reassembles fragmented messages, answers pings, runs the closing
/// handshake, checks UTF-8 in text messages and enforces a message size
/// limit. The transport (TCP or TLS) and the opening handshake are the
/// caller's.
public struct WebSocketConnection: Sendable {
    /// What a peer sent.
    public enum Message: Sendable, Equatable {
        /// A complete text message.
        case text(String)
        /// A complete binary message.
        case binary([UInt8])
        /// A pong (answer to our ping).
        case pong([UInt8])
        /// The peer closed (or broke the protocol); no more messages follow.
        case closed(code: UInt16, reason: String)
    }

    /// Which end this is. Clients mask what they send; servers require masks.
    public enum Role: Sendable { case client, server }

    /// The role.
    public let role: Role
    /// The largest message accepted, in bytes.
    public let maxMessage: Int
    private var inbox: [UInt8] = []
    private var inboxStart = 0
    private var fragments: [UInt8] = []
    private var fragmentOpcode: WebSocketFrame.Opcode? = nil
    private var outbox: [UInt8] = []
    private var messages: [Message] = []
    /// Ping frames received (answered with pongs by the connection itself).
    public private(set) var pingsReceived = 0
    /// When true, the peer's close frame is not echoed at once but by
    /// `acknowledgeClose()`, so that replies to messages that came before it
    /// can still be sent (the server uses this).
    public var defersCloseEcho = false
    private var closeToEcho: UInt16?
    private var maskState: UInt64
    /// True once a close frame has been sent.
    public private(set) var closeSent = false
    /// True once the peer's close frame arrived or the peer broke the protocol.
    public private(set) var isClosed = false

    /// A connection of `role` accepting messages up to `maxMessage` bytes.
    /// `maskSeed` seeds the client's masking keys (any value; it is not a secret
    /// for this protocol's purpose, but differs per connection).
    public init(role: Role, maxMessage: Int = 1 << 20, maskSeed: UInt64 = 0x243F_6A88_85A3_08D3) {
        self.role = role
        self.maxMessage = maxMessage
        self.maskState = maskSeed | 1
    }

    /// Feeds bytes that arrived from the peer.
    public mutating func receive(_ bytes: some Collection<UInt8>) {
        guard !isClosed else { return }
        inbox.append(contentsOf: bytes)
        while !isClosed {
            let parsed: (frame: WebSocketFrame, consumed: Int)?
            do {
                parsed = try WebSocketFrame.parse(inbox[inboxStart...], requireMask: role == .server,
                                                  maxPayload: maxMessage)
            } catch {
                fail(error)
                break
            }
            guard let (frame, consumed) = parsed else { break }
            inboxStart += consumed
            handle(frame)
        }
        if inboxStart > 4096 || inboxStart == inbox.count {
            inbox.removeFirst(inboxStart)
            inboxStart = 0
        }
    }

    /// Queues a text message.
    public mutating func send(text: String) { send(.text, Array(text.utf8)) }
    /// Queues a binary message.
    public mutating func send(binary: [UInt8]) { send(.binary, binary) }
    /// Queues a ping with up to 125 bytes of payload.
    public mutating func ping(_ payload: [UInt8] = []) { send(.ping, Array(payload.prefix(125))) }

    /// Starts the closing handshake (§7.1.2) with a status code and reason.
    public mutating func close(code: UInt16 = 1000, reason: String = "") {
        guard !closeSent else { return }
        var payload = [UInt8(code >> 8), UInt8(code & 0xFF)]
        payload += Array(reason.utf8.prefix(123))
        send(.close, payload)
        closeSent = true
    }

    /// Sends the echo of the peer's close frame held back by `defersCloseEcho`.
    public mutating func acknowledgeClose() {
        guard let code = closeToEcho else { return }
        closeToEcho = nil
        close(code: code)
    }

    /// The next complete message, if any.
    public mutating func pollMessage() -> Message? {
        messages.isEmpty ? nil : messages.removeFirst()
    }

    /// The next complete message without taking it.
    public var nextMessage: Message? { messages.first }

    /// The bytes to write to the transport, if any.
    public mutating func pollTransmit() -> [UInt8]? {
        guard !outbox.isEmpty else { return nil }
        defer { outbox.removeAll(keepingCapacity: true) }
        return outbox
    }

    private mutating func send(_ opcode: WebSocketFrame.Opcode, _ payload: [UInt8]) {
        guard !closeSent else { return }
        let frame = WebSocketFrame(opcode: opcode, payload: payload)
        outbox += frame.serialized(maskingKey: role == .client ? nextMask() : nil)
    }

    private mutating func nextMask() -> UInt32 {
        // xorshift64*: masks need to be unpredictable to intermediaries, not secret.
        maskState ^= maskState >> 12
        maskState ^= maskState << 25
        maskState ^= maskState >> 27
        return UInt32(truncatingIfNeeded: (maskState &* 0x2545_F491_4F6C_DD1D) >> 32)
    }

    private mutating func handle(_ frame: WebSocketFrame) {
        switch frame.opcode {
        case .ping:
            pingsReceived += 1
            send(.pong, frame.payload)
        case .pong:
            messages.append(.pong(frame.payload))
        case .close:
            var code: UInt16 = 1005
            var reason = ""
            if frame.payload.count == 1 { return fail(.protocolError("close payload of one byte")) }
            if frame.payload.count >= 2 {
                code = UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
                // §7.4: 1005, 1006 and 1015 never go on the wire; below 1000, 1004 and
                // unassigned 1016–2999 are invalid; 5000 and above do not exist.
                guard (1000...4999).contains(code), ![1004, 1005, 1006, 1015].contains(code),
                      !(1016...2999).contains(code) else {
                    return fail(.protocolError("invalid close code \(code)"))
                }
                guard let text = String(validating: frame.payload[2...], as: UTF8.self) else { return fail(.invalidData) }
                reason = text
            }
            // Echo the peer's code (§5.5.1), or 1000 when it gave none.
            if defersCloseEcho {
                closeToEcho = code == 1005 ? 1000 : code
            } else if !closeSent {
                close(code: code == 1005 ? 1000 : code)
            }
            isClosed = true
            messages.append(.closed(code: code, reason: reason))
        case .text, .binary:
            guard fragmentOpcode == nil else { return fail(.protocolError("new message inside a fragmented one")) }
            if frame.fin {
                deliver(frame.opcode, frame.payload)
            } else {
                fragmentOpcode = frame.opcode
                fragments = frame.payload
            }
        case .continuation:
            guard let opcode = fragmentOpcode else { return fail(.protocolError("continuation without a message")) }
            guard fragments.count + frame.payload.count <= maxMessage else { return fail(.messageTooBig) }
            fragments += frame.payload
            if frame.fin {
                fragmentOpcode = nil
                let whole = fragments
                fragments = []
                deliver(opcode, whole)
            }
        }
    }

    private mutating func deliver(_ opcode: WebSocketFrame.Opcode, _ payload: [UInt8]) {
        if opcode == .text {
            guard let text = String(validating: payload, as: UTF8.self) else { return fail(.invalidData) }
            messages.append(.text(text))
        } else {
            messages.append(.binary(payload))
        }
    }

    private mutating func fail(_ error: WebSocketError) {
        close(code: error.closeCode)
        isClosed = true
        messages.append(.closed(code: error.closeCode, reason: "\(error)"))
    }
}
