/// A picture loss indication, PLI (RFC 4585 §6.3.1): payload-specific
/// feedback (PSFB, PT 206, FMT 1) telling the media source that pictures
/// were lost, which a video sender answers with a keyframe. It has no FCI.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|  FMT=1  |    PT=206     |          length = 2           |
///     |                     SSRC of packet sender                     |
///     |                      SSRC of media source                     |
///
/// Bytes after the media SSRC are not read.
public struct PictureLossIndication: RtcpMessage {
    public static let format: UInt8 = 1
    public static let size = 12

    /// The asker (0 for the server).
    public var sender: Ssrc
    /// The stream that needs a keyframe.
    public var media: Ssrc

    public init(sender: Ssrc, media: Ssrc) {
        self.sender = sender
        self.media = media
    }

    public static func parse(_ p: UnsafeRawBufferPointer) throws(WireError) -> PictureLossIndication {
        var c = try RtcpContent(p, type: .payloadSpecificFeedback, format: format)
        return PictureLossIndication(sender: try c.reader.ssrc(), media: try c.reader.ssrc())
    }

    public var encodedSize: Int { Self.size }

    public func serialize(into out: UnsafeMutableRawBufferPointer) -> Int {
        var w = RtcpWriter(out, count: Self.format, type: .payloadSpecificFeedback, packetSize: Self.size)
        w.ssrc(sender)
        w.ssrc(media)
        return w.offset
    }
}
