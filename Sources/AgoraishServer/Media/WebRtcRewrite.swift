import AgoraishWire

/// How a browser's RTP differs from the engine's, as tables the forwarding
/// path applies in place (docs/web.md, The media plane): payload types and
/// one-byte header extension ids both ways, and the server SSRCs the
/// browser's answer named (the only ones it is sent; others would reach it
/// as unsignaled streams).
final class WebRtcRewrite {
    /// Browser payload type -> the engine's; 0xFF: not negotiated (dropped).
    private var typeIn = [UInt8](repeating: 0xFF, count: 128)
    /// The engine's payload type -> the browser's; 0xFF: the browser does not take it.
    private var typeOut = [UInt8](repeating: 0xFF, count: 128)
    /// One-byte extension ids (RFC 8285 §4.2), 0...15, each way.
    private var extensionIn = [UInt8](0...15)
    private var extensionOut = [UInt8](0...15)
    /// What the browser receives (server SSRCs, media and RTX).
    let receiving: Set<UInt32>

    /// The id extensions nobody reads are moved to (the engine and the
    /// browser skip an id they did not negotiate).
    static let unusedId: UInt8 = 14

    init(_ peer: WebRtcPeer) {
        receiving = peer.receiving
        for (theirs, ours) in peer.payloadTypes where theirs < 128 && ours < 128 {
            typeIn[Int(theirs)] = ours
            typeOut[Int(ours)] = theirs
        }
        // Ids the engine gives meaning to are never left to mean something else.
        let ours: [(UInt8, UInt8)] = [
            (HeaderExtensionId.audioLevel, peer.audioLevelId),
            (HeaderExtensionId.transportSequence, peer.transportSequenceId),
            (HeaderExtensionId.payloadProtection, 0),
        ]
        let theirs = Set(ours.map(\.1).filter { $0 != 0 })
        for id in UInt8(1)...14 {
            if ours.contains(where: { $0.0 == id }) { extensionIn[Int(id)] = Self.unusedId }
            if theirs.contains(id) { extensionOut[Int(id)] = Self.unusedId }
        }
        for (engine, browser) in ours {
            if browser != 0 {
                extensionIn[Int(browser)] = engine
                extensionOut[Int(engine)] = browser
            } else {
                extensionOut[Int(engine)] = Self.unusedId
            }
        }
    }

    /// A plain RTP packet from the browser, rewritten into the engine's
    /// numbers. False when its payload type was not negotiated.
    func ingress(_ packet: UnsafeMutableRawPointer, _ length: Int) -> Bool {
        guard length >= 12 else { return false }
        return Self.renumber(packet, length, types: typeIn, extensions: extensionIn)
    }

    /// Whether a plain RTP packet's SSRC is one the browser receives.
    func accepts(_ packet: UnsafeRawBufferPointer) -> Bool {
        guard packet.count >= 12 else { return false }
        let ssrc = UInt32(packet[8]) << 24 | UInt32(packet[9]) << 16 | UInt32(packet[10]) << 8 | UInt32(packet[11])
        return receiving.contains(ssrc)
    }

    /// A plain RTP packet about to be protected for the browser, rewritten
    /// into its numbers. False when the browser is not to get it.
    func egress(_ packet: UnsafeMutableRawPointer, _ length: Int) -> Bool {
        guard length >= 12 else { return false }
        let ssrc = UInt32(packet.load(fromByteOffset: 8, as: UInt8.self)) << 24
            | UInt32(packet.load(fromByteOffset: 9, as: UInt8.self)) << 16
            | UInt32(packet.load(fromByteOffset: 10, as: UInt8.self)) << 8
            | UInt32(packet.load(fromByteOffset: 11, as: UInt8.self))
        guard receiving.contains(ssrc) else { return false }
        return Self.renumber(packet, length, types: typeOut, extensions: extensionOut)
    }

    /// The payload type (marker bit kept) and extension ids of a packet of
    /// at least 12 bytes through the tables; false for an unmapped type.
    private static func renumber(_ packet: UnsafeMutableRawPointer, _ length: Int, types: [UInt8], extensions: [UInt8]) -> Bool {
        let second = packet.load(fromByteOffset: 1, as: UInt8.self)
        let mapped = types[Int(second & 0x7F)]
        guard mapped != 0xFF else { return false }
        packet.storeBytes(of: second & 0x80 | mapped, toByteOffset: 1, as: UInt8.self)
        renumberExtensions(packet, length, extensions)
        return true
    }

    /// Rewrites the ids of a one-byte header extension block in place
    /// (two-byte blocks and malformed ones are left as they are).
    static func renumberExtensions(_ packet: UnsafeMutableRawPointer, _ length: Int, _ map: [UInt8]) {
        let first = packet.load(as: UInt8.self)
        guard first & 0x10 != 0 else { return }
        let start = 12 + Int(first & 0x0F) * 4
        guard start + 4 <= length,
              packet.load(fromByteOffset: start, as: UInt8.self) == 0xBE,
              packet.load(fromByteOffset: start + 1, as: UInt8.self) == 0xDE else { return }
        let words = Int(packet.load(fromByteOffset: start + 2, as: UInt8.self)) << 8
            | Int(packet.load(fromByteOffset: start + 3, as: UInt8.self))
        let end = start + 4 + words * 4
        guard end <= length else { return }
        var at = start + 4
        while at < end {
            let byte = packet.load(fromByteOffset: at, as: UInt8.self)
            let id = byte >> 4
            if id == 0 {
                at += 1
                continue
            }
            if id == 15 { return }
            packet.storeBytes(of: map[Int(id)] << 4 | byte & 0x0F, toByteOffset: at, as: UInt8.self)
            at += 2 + Int(byte & 0x0F)
        }
    }
}

/// A browser's data channel as the media plane sees it (docs/web.md, Data
/// streams): what it sends becomes its data streams as an engine sends
/// them (RTP payload types 100 and 102, same limits), and the engines'
/// streams reach it as whole messages, in order, on its channel.
final class BrowserData {
    /// The stream ids the browser's two channels stand for: reliable and ordered, and unreliable.
    static let reliableStream: Int32 = 1
    static let unreliableStream: Int32 = 2
    /// The browser's own SSRCs of the two streams (remapped at ingress like any).
    static let reliableSsrc: UInt32 = 0xDA7A_0001
    static let unreliableSsrc: UInt32 = 0xDA7A_0002
    /// The bytes in front of each message to the browser: version 1, uid, stream id, sent time (ms).
    static let frameHeader = 14

    var sender = DataStreamSender()
    var sequence: UInt16
    var unreliableSequence: UInt16 = 0
    /// The sequence number of the first reliable item (nil: none sent yet).
    var callStart: UInt16? = nil
    /// Per publisher stream (server SSRC): its reliable items put back in order.
    var receivers: [UInt32: DataStreamReceiver] = [:]

    init(seed: UInt16) {
        sequence = seed
        _ = try? sender.create(reliable: true, ordered: true, syncWithAudio: false)
        _ = try? sender.create(reliable: false, ordered: false, syncWithAudio: false)
    }

    /// A message for the browser: the frame header, then the payload.
    static func frame(uid: UInt32, streamId: UInt8, sentMs: UInt64, _ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [1]
        out.reserveCapacity(frameHeader + payload.count)
        for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: uid >> (24 - 8 * i))) }
        out.append(streamId)
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: sentMs >> (56 - 8 * i))) }
        return out + payload
    }
}
