/// The one table of RTP payload types and header-extension ids that the
/// engine and the server share (docs/media-plane.md). Both sides read these
/// constants; neither declares a number of its own.
///
/// | payload type | media | retransmitted as (RFC 4588 RTX) |
/// |---|---|---|
/// | 111 | Opus audio (RFC 7587) | 112 |
/// | 96 | VP8 video (RFC 7741) | 97 |
/// | 98 | VP9 video (RFC 9628) | 99 |
/// | 100 | reliable data streams (docs/data-streams.md) | 101 |
/// | 102 | unreliable data streams | never |
/// | 127 | last-mile probe packets (docs/network.md) | never |
extension PayloadType {
    /// Opus audio (RFC 7587).
    @inlinable public static var opus: PayloadType { 111 }
    /// RTX of Opus.
    @inlinable public static var opusRtx: PayloadType { 112 }
    /// VP8 video (RFC 7741).
    @inlinable public static var vp8: PayloadType { 96 }
    /// RTX of VP8; also the payload type of padding-only bandwidth probes.
    @inlinable public static var vp8Rtx: PayloadType { 97 }
    /// VP9 video (RFC 9628).
    @inlinable public static var vp9: PayloadType { 98 }
    /// RTX of VP9.
    @inlinable public static var vp9Rtx: PayloadType { 99 }
    /// Reliable data streams: cached and retransmitted on every hop.
    @inlinable public static var reliableData: PayloadType { 100 }
    /// RTX of reliable data.
    @inlinable public static var reliableDataRtx: PayloadType { 101 }
    /// Unreliable data streams: never retransmitted.
    @inlinable public static var unreliableData: PayloadType { 102 }
    /// Last-mile probe packets.
    @inlinable public static var probe: PayloadType { 127 }

    /// Audio: Opus (retransmissions aside).
    @inlinable public var isAudio: Bool { self == .opus }
    /// Video media: VP8 or VP9 (retransmissions aside).
    @inlinable public var isVideoMedia: Bool { self == .vp8 || self == .vp9 }
    /// A retransmission of video: RTX of VP8 or VP9.
    @inlinable public var isVideoRtx: Bool { self == .vp8Rtx || self == .vp9Rtx }
    /// Video: media or its retransmission.
    @inlinable public var isVideo: Bool { isVideoMedia || isVideoRtx }
    /// A data stream: reliable, its RTX, or unreliable.
    @inlinable public var isData: Bool { self >= .reliableData && self <= .unreliableData }
    /// The payload type of this one's retransmissions (RTX), nil for the
    /// types that are never retransmitted.
    @inlinable public var rtx: PayloadType? {
        switch self {
        case .opus: .opusRtx
        case .vp8: .vp8Rtx
        case .vp9: .vp9Rtx
        case .reliableData: .reliableDataRtx
        default: nil
        }
    }
}

/// The ids of the one-byte RTP header extensions (RFC 8285 §4.2) that the
/// engine writes and the server reads (docs/media-plane.md).
public enum HeaderExtensionId {
    /// The audio level of the packet's 20 ms (RFC 6464), one byte, on audio.
    @inlinable public static var audioLevel: UInt8 { 1 }
    /// The transport-wide sequence number
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01), two bytes, on
    /// every RTP packet the engine and the server send.
    @inlinable public static var transportSequence: UInt8 { 3 }
    /// The end-to-end encryption mode of the payload (docs/encryption.md),
    /// one byte, on encrypted payloads only.
    @inlinable public static var payloadProtection: UInt8 { 4 }
}
