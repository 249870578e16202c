/// One RTCP packet of any type this project reads, as a typed value, or the
/// bytes of one it does not (APP, XR, other feedback messages), kept whole.
/// A compound datagram is a list of these (`RtcpCompound`).
public enum RtcpPacket: Equatable, Sendable {
    case senderReport(SenderReport)
    case receiverReport(ReceiverReport)
    case sourceDescription(SourceDescription)
    case goodbye(Goodbye)
    case genericNack(GenericNack)
    case transportFeedback(TransportFeedback)
    case pictureLossIndication(PictureLossIndication)
    case fullIntraRequest(FullIntraRequest)
    case remb(Remb)
    /// A packet of another type or FMT: its header's type and count fields,
    /// and the whole packet, header included.
    case unknown(type: RtcpPacketType, format: UInt8, bytes: [UInt8])

    /// Reads the packet at the start of `p`. A type or FMT not listed above
    /// becomes `.unknown`; a listed one that breaks its rules throws.
    public static func parse(_ p: UnsafeRawBufferPointer) throws(WireError) -> RtcpPacket {
        let h = try RtcpHeader.parse(p)
        switch (h.type, h.count) {
        case (.senderReport, _): return .senderReport(try .parse(p))
        case (.receiverReport, _): return .receiverReport(try .parse(p))
        case (.sourceDescription, _): return .sourceDescription(try .parse(p))
        case (.goodbye, _): return .goodbye(try .parse(p))
        case (.transportLayerFeedback, GenericNack.format): return .genericNack(try .parse(p))
        case (.transportLayerFeedback, TransportFeedback.format): return .transportFeedback(try .parse(p))
        case (.payloadSpecificFeedback, PictureLossIndication.format): return .pictureLossIndication(try .parse(p))
        case (.payloadSpecificFeedback, FullIntraRequest.format): return .fullIntraRequest(try .parse(p))
        case (.payloadSpecificFeedback, Remb.format) where Remb.isRemb(p): return .remb(try .parse(p))
        default: return .unknown(type: h.type, format: h.count, bytes: Array(p[0..<h.packetSize]))
        }
    }

    /// Reads the packet at the start of `bytes`.
    public static func parse(_ bytes: [UInt8]) throws(WireError) -> RtcpPacket {
        try withRaw(bytes) { raw throws(WireError) in try parse(raw) }
    }

    /// The typed value inside, or nil for `.unknown`.
    var message: (any RtcpMessage)? {
        switch self {
        case .senderReport(let m): m
        case .receiverReport(let m): m
        case .sourceDescription(let m): m
        case .goodbye(let m): m
        case .genericNack(let m): m
        case .transportFeedback(let m): m
        case .pictureLossIndication(let m): m
        case .fullIntraRequest(let m): m
        case .remb(let m): m
        case .unknown: nil
        }
    }

    /// Bytes `serialize(into:)` writes.
    public var encodedSize: Int {
        if case .unknown(_, _, let bytes) = self { return bytes.count }
        return message!.encodedSize
    }

    /// Writes the packet at the start of `out` (at least `encodedSize`
    /// bytes) and returns `encodedSize`. An unknown packet is written as it
    /// was read.
    public func serialize(into out: UnsafeMutableRawBufferPointer) -> Int {
        if case .unknown(_, _, let bytes) = self {
            precondition(out.count >= bytes.count, "the buffer holds encodedSize bytes")
            out.copyBytes(from: bytes)
            return bytes.count
        }
        return message!.serialize(into: out)
    }

    /// The packet's bytes followed by `trailer` zero bytes, in one allocation.
    public func serialized(trailer: Int = 0) -> [UInt8] {
        let n = encodedSize
        return [UInt8](unsafeUninitializedCapacity: n + trailer) { buffer, count in
            _ = serialize(into: UnsafeMutableRawBufferPointer(buffer))
            for i in n..<(n + trailer) { buffer[i] = 0 }
            count = n + trailer
        }
    }

    /// The stream a feedback message is about: the media SSRC of a NACK, a
    /// PLI or another RTPFB or PSFB message (RFC 4585 §6.1), the first FCI
    /// entry of a FIR (RFC 5104 §4.3.1). Nil for reports, SDES, BYE, REMB
    /// and transport-wide feedback, which name no one stream.
    public var feedbackTarget: Ssrc? {
        switch self {
        case .genericNack(let m): m.media
        case .pictureLossIndication(let m): m.media
        case .fullIntraRequest(let m): m.entries.first?.ssrc
        case .unknown(let type, _, let bytes):
            (type == .transportLayerFeedback || type == .payloadSpecificFeedback) && bytes.count >= 12
                ? bytes.withUnsafeBytes { Ssrc(readBE32($0, 8)) } : nil
        default: nil
        }
    }

    /// The same feedback message about `target` instead of `feedbackTarget`
    /// (a FIR's entries that named the old target all name the new one).
    /// Other packets come back unchanged.
    public func retargeted(to target: Ssrc) -> RtcpPacket {
        switch self {
        case .genericNack(var m):
            m.media = target
            return .genericNack(m)
        case .pictureLossIndication(var m):
            m.media = target
            return .pictureLossIndication(m)
        case .fullIntraRequest(var m):
            let old = m.entries.first?.ssrc
            for i in m.entries.indices where m.entries[i].ssrc == old { m.entries[i].ssrc = target }
            return .fullIntraRequest(m)
        case .unknown(let type, let format, var bytes) where feedbackTarget != nil:
            bytes[8] = UInt8(target.rawValue >> 24)
            bytes[9] = UInt8(target.rawValue >> 16 & 0xFF)
            bytes[10] = UInt8(target.rawValue >> 8 & 0xFF)
            bytes[11] = UInt8(target.rawValue & 0xFF)
            return .unknown(type: type, format: format, bytes: bytes)
        default:
            return self
        }
    }
}
