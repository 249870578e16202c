import AgoraishMedia
import AgoraishWire

/// One video stream sent (the high stream, the low one of dual stream, or a
/// simulcast layer), without IO: it turns encoded frames into RTP packets
/// (RFC 7741 VP8, RFC 9628 VP9) with the transport-wide sequence extension,
/// keeps what it sent to answer NACKs with RTX packets (RFC 4588), and decides
/// when a picture must be a keyframe (the start of a stream, or a receiver's
/// request, honoured at most every `keyframeRequestInterval`). It reads no
/// clock and sends nothing: `VideoPipeline` hands it frames, feedback and the
/// time, and sends what it returns; tests drive it on virtual time.
struct VideoSendStream {
    /// The stream's encoder (made by the pipeline for the picture size).
    var encoder: VideoEncoder? = nil
    var ssrc: UInt32 = 0
    var sequence: UInt16 = 0
    var pictureId: UInt16 = 0
    /// The next picture starts the stream again (a new encoder, a new call, a resume).
    var keyframeWanted = true
    /// A receiver asked for a keyframe (PLI/FIR): honoured at most every `keyframeRequestInterval`.
    var keyframeRequested = false
    var lastKeyframeAt: Instant? = nil
    var framesSent = 0
    /// Thins the pictures offered to this stream's frame rate.
    var gate = VideoPipeline.FrameRateGate()
    /// Retransmissions (RFC 4588) go on their own SSRC with their own numbers.
    var rtxSsrc: UInt32 = 0
    var rtxSequence: UInt16 = 0
    /// What was sent, to answer NACKs.
    var history = PacketHistory(capacity: 1024, maxAge: .seconds(1))

    /// Whether the picture encoded at `now` must be a keyframe; the start's
    /// want is used up by asking, a request only by a keyframe being sent.
    mutating func takesKeyframe(now: Instant, interval: Duration) -> Bool {
        defer { keyframeWanted = false }
        if keyframeWanted { return true }
        return keyframeRequested && (lastKeyframeAt.map { now - $0 >= interval } ?? true)
    }

    /// A payload made ready to send: the bytes after the RTP header, and the
    /// payload protection mode to name in the header extension (nil: none).
    typealias Protected = (payload: [UInt8], mode: UInt8?)

    /// The RTP packets of one encoded frame, kept in the history. `protect`
    /// turns each plain payload into what is sent (end-to-end encryption or
    /// the host's packet observer); nil drops that packet. `encodedAt` is
    /// when the picture was encoded (a keyframe's time for request pacing).
    mutating func packets(of data: [UInt8], isKeyframe: Bool, pts: Int64, width: Int, height: Int, codec: VideoCodec,
                          maxPayload: Int, now: Instant, encodedAt: Instant,
                          protect: ([UInt8]) -> Protected?) -> [[UInt8]] {
        let pt = VideoPipeline.payloadType(codec)
        let payloads = codec == .vp9
            ? VP9Payload.packetize(data, pictureId: pictureId, keyframe: isKeyframe, width: width, height: height,
                                   maxPayload: maxPayload)
            : VP8Payload.packetize(data, pictureId: pictureId, maxPayload: maxPayload)
        let timestamp = UInt32(truncatingIfNeeded: pts)
        var out: [[UInt8]] = []
        out.reserveCapacity(payloads.count)
        for (i, plain) in payloads.enumerated() {
            guard let (payload, mode) = protect(plain) else { continue }
            var header = RtpHeader(marker: i == payloads.count - 1, payloadType: pt, sequenceNumber: sequence,
                                   timestamp: timestamp, ssrc: ssrc).serialized
            // One extension word for the transport-wide sequence number (written as the packet leaves).
            header[0] |= 0x10
            header += [0xBE, 0xDE, 0, 1, TransportFeedback.extensionId << 4 | 1, 0, 0, 0]
            if let mode {
                header[15] = 2  // two extension words: the protection mode follows
                header[19] = RtpHeaderExtension.payloadProtectionId << 4
                header += [mode, 0, 0, 0]
            }
            let packet = header + payload
            history.store(packet, sequence: sequence, now: now)
            out.append(packet)
            sequence &+= 1
        }
        pictureId = VP8Payload.next(pictureId)
        framesSent += 1
        if isKeyframe {
            lastKeyframeAt = encodedAt
            keyframeRequested = false
        }
        return out
    }

    /// RTX packets (RFC 4588) for the NACKed `sequences` still held at `now`,
    /// numbered on from the last, at most `maxLength` bytes each.
    mutating func retransmissions(of sequences: [UInt16], now: Instant, maxLength: Int) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for seq in sequences {
            guard let original = history.packet(seq, now: now), original.count > 1 else { continue }
            let rtxType = (PayloadType(original[1] & 0x7F) == .vp9 ? PayloadType.vp9Rtx : .vp8Rtx).rawValue
            guard let rtx = RtxPacket.wrap(original, rtxPayloadType: rtxType, rtxSsrc: rtxSsrc, rtxSequence: rtxSequence),
                  rtx.count <= maxLength else { continue }
            rtxSequence &+= 1
            out.append(rtx)
        }
        return out
    }
}
