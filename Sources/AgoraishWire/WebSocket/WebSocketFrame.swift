/// One WebSocket frame (RFC 6455 §5.2).
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-------+-+-------------+-------------------------------+
///     |F|R|R|R| opcode|M| Payload len |    Extended payload length    |
///     |I|S|S|S|  (4)  |A|     (7)     |             (16/64)           |
///     |N|V|V|V|       |S|             |   (if payload len==126/127)   |
///     | |1|2|3|       |K|             |                               |
///     +-+-+-+-+-------+-+-------------+ - - - - - - - - - - - - - - - +
///     |     Extended payload length continued, if payload len == 127  |
///     + - - - - - - - - - - - - - - - +-------------------------------+
///     |                               |Masking-key, if MASK set to 1  |
///     +-------------------------------+-------------------------------+
///     | Masking-key (continued)       |          Payload Data         |
///     +-------------------------------- - - - - - - - - - - - - - - - +
public struct WebSocketFrame: Sendable, Equatable {
    /// Frame opcodes (RFC 6455 §5.2).
    public enum Opcode: UInt8, Sendable {
        case continuation = 0x0
        case text = 0x1
        case binary = 0x2
        case close = 0x8
        case ping = 0x9
        case pong = 0xA

        /// Control frames (§5.5): close, ping, pong.
        public var isControl: Bool { rawValue & 0x8 != 0 }
    }

    /// FIN: the last fragment of a message.
    public var fin: Bool
    /// The opcode.
    public var opcode: Opcode
    /// The unmasked payload.
    public var payload: [UInt8]

    /// A frame with `opcode` and `payload`; FIN set unless told otherwise.
    public init(fin: Bool = true, opcode: Opcode, payload: [UInt8]) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// The frame on the wire. Clients mask every frame with a fresh key (§5.3);
    /// servers never mask.
    public func serialized(maskingKey: UInt32? = nil) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 14)
        out.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        if payload.count < 126 {
            out.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            out.append(maskBit | 126)
            out += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: payload.count >> shift)) }
        }
        if let key = maskingKey {
            let k = [UInt8(key >> 24), UInt8(key >> 16 & 0xFF), UInt8(key >> 8 & 0xFF), UInt8(key & 0xFF)]
            out += k
            for (i, byte) in payload.enumerated() { out.append(byte ^ k[i & 3]) }
        } else {
            out += payload
        }
        return out
    }

    /// Reads one frame from the start of `bytes`. Returns nil when more bytes are
    /// needed, else the frame and how many bytes it used. Throws for frames that
    /// break §5 (reserved bits, unknown opcodes, oversized or fragmented control
    /// frames, a mask where `requireMask` forbids one or none where it requires one,
    /// payloads over `maxPayload`).
    public static func parse(_ bytes: ArraySlice<UInt8>, requireMask: Bool, maxPayload: Int)
        throws(WebSocketError) -> (frame: WebSocketFrame, consumed: Int)?
    {
        let base = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        let b0 = bytes[base], b1 = bytes[base + 1]
        guard b0 & 0x70 == 0 else { throw .protocolError("reserved bits set") }
        guard let opcode = Opcode(rawValue: b0 & 0x0F) else { throw .protocolError("unknown opcode") }
        let fin = b0 & 0x80 != 0
        let masked = b1 & 0x80 != 0
        guard masked == requireMask else {
            throw .protocolError(requireMask ? "client frames must be masked" : "server frames must not be masked")
        }
        var length = UInt64(b1 & 0x7F)
        var index = base + 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = UInt64(bytes[index]) << 8 | UInt64(bytes[index + 1])
            guard length >= 126 else { throw .protocolError("non-minimal length") }
            index += 2
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = 0
            for i in 0..<8 { length = length << 8 | UInt64(bytes[index + i]) }
            guard length >> 63 == 0, length > 0xFFFF else { throw .protocolError("bad 64-bit length") }
            index += 8
        }
        if opcode.isControl {
            guard fin else { throw .protocolError("fragmented control frame") }
            guard length <= 125 else { throw .protocolError("control frame over 125 bytes") }
        }
        guard length <= UInt64(maxPayload) else { throw .messageTooBig }
        var key: [UInt8] = []
        if masked {
            guard bytes.endIndex - index >= 4 else { return nil }
            key = Array(bytes[index..<index + 4])
            index += 4
        }
        let n = Int(length)
        guard bytes.endIndex - index >= n else { return nil }
        var payload = Array(bytes[index..<index + n])
        if masked {
            for i in 0..<n { payload[i] ^= key[i & 3] }
        }
        return (WebSocketFrame(fin: fin, opcode: opcode, payload: payload), index + n - base)
    }
}

/// Why a WebSocket peer broke the protocol; each maps to a close code (§7.4.1).
public enum WebSocketError: Error, Equatable, Sendable {
    /// 1002: a framing rule was broken.
    case protocolError(String)
    /// 1007: a text message was not UTF-8.
    case invalidData
    /// 1009: a frame or message exceeded the configured limit.
    case messageTooBig

    /// The close code to send for this error.
    public var closeCode: UInt16 {
        switch self {
        case .protocolError: 1002
        case .invalidData: 1007
        case .messageTooBig: 1009
        }
    }
}
