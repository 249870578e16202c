@testable import AgoraishEngine
import AgoraishWire
import Testing

/// The sans-IO video send stream: packetizing, the history, RTX answers to
/// NACKs and keyframe request pacing, on a clock handed in.
@Suite struct VideoSendStreamTests {
    static let t0 = Instant(nanoseconds: 1_000_000_000)

    static func stream() -> VideoSendStream {
        var s = VideoSendStream()
        s.ssrc = 0x1111
        s.rtxSsrc = 0x2223
        s.sequence = 65534
        s.pictureId = 0x7FFF
        return s
    }

    /// A fake VP8 frame of `size` bytes (a keyframe tag when `key`).
    static func frame(_ size: Int, key: Bool) -> [UInt8] {
        var f = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7) }
        f[0] = key ? 0x10 : 0x11  // frame tag: bit 0 clear for a keyframe
        return f
    }

    static func packets(_ s: inout VideoSendStream, _ data: [UInt8], key: Bool, at now: Instant,
                        pts: Int64 = 9000) -> [[UInt8]] {
        s.packets(of: data, isKeyframe: key, pts: pts, width: 320, height: 240, codec: .vp8, maxPayload: 1200, now: now,
                  encodedAt: now) { ($0, nil) }
    }

    @Test func aFrameBecomesNumberedPacketsWithTheMarkerOnTheLast() throws {
        var s = Self.stream()
        let out = Self.packets(&s, Self.frame(3000, key: true), key: true, at: Self.t0)
        #expect(out.count == 3)
        let headers = try out.map { p in try p.withUnsafeBytes { try RtpHeader.parse($0) } }
        #expect(headers.map(\.sequenceNumber) == [65534, 65535, 0], "numbers wrap")
        #expect(headers.map(\.marker) == [false, false, true])
        #expect(headers.allSatisfy { $0.ssrc == 0x1111 && $0.timestamp == 9000 && $0.payloadType == 96 })
        // The transport-wide sequence extension is there on each, for the pacer to write.
        #expect(out.allSatisfy { p in p.withUnsafeBytes { TransportFeedback.sequenceNumber(in: $0) != nil } })
        #expect(s.sequence == 1 && s.pictureId == 0 && s.framesSent == 1, "the picture id wraps in 15 bits")
        #expect(out[0].withUnsafeBytes { p in
            let h = try! RtpHeader.parse(p)
            return VP8Payload.startsKeyframe(UnsafeRawBufferPointer(rebasing: p[h.payloadOffset...]))
        })
        // A payload the protection refuses is not sent and takes no number.
        var t = Self.stream()
        var n = 0
        let kept = t.packets(of: Self.frame(3000, key: false), isKeyframe: false, pts: 0, width: 320, height: 240,
                             codec: .vp8, maxPayload: 1200, now: Self.t0, encodedAt: Self.t0) { plain in
            n += 1
            return n == 2 ? nil : (plain, 3)
        }
        #expect(kept.count == 2 && t.sequence == 65534 &+ 2)
        #expect(kept.allSatisfy { $0[15] == 2 && $0[20] == 3 }, "the protection mode rides in the header extension")
    }

    @Test func nacksAreAnsweredFromTheHistoryAsRtxForOneSecond() throws {
        var s = Self.stream()
        let sent = Self.packets(&s, Self.frame(3000, key: true), key: true, at: Self.t0)
        let rtx = s.retransmissions(of: [65535, 0, 4242], now: Self.t0 + .milliseconds(100), maxLength: 1500)
        #expect(rtx.count == 2, "a number never sent is skipped")
        for (i, (packet, original)) in zip(rtx, [sent[1], sent[2]]).enumerated() {
            let h = try packet.withUnsafeBytes { try RtpHeader.parse($0) }
            #expect(h.ssrc == 0x2223 && h.payloadType == 97 && h.sequenceNumber == UInt16(i))
            let back = packet.withUnsafeBytes { RtxPacket.unwrap($0, payloadType: 96, ssrc: 0x1111) }
            #expect(back == original, "the original comes back whole (RFC 4588)")
        }
        #expect(s.rtxSequence == 2)
        #expect(s.retransmissions(of: [65534], now: Self.t0 + .milliseconds(1001), maxLength: 1500).isEmpty,
                "older than a second: gone")
        #expect(s.retransmissions(of: [65534], now: Self.t0, maxLength: 100).isEmpty, "too long for the room given")
    }

    @Test func keyframeRequestsAreHonouredAtMostEvery300Milliseconds() {
        var s = Self.stream()
        let interval = VideoPipeline.keyframeRequestInterval
        let first = s.takesKeyframe(now: Self.t0, interval: interval)
        #expect(first, "the stream starts with one")
        _ = Self.packets(&s, Self.frame(800, key: true), key: true, at: Self.t0)
        let soon = s.takesKeyframe(now: Self.t0 + .milliseconds(33), interval: interval)
        #expect(!soon)
        // A request 100 ms after the keyframe waits until 300 ms have passed.
        s.keyframeRequested = true
        var decided: [Int] = []
        for ms in stride(from: 100, through: 400, by: 33) where s.takesKeyframe(now: Self.t0 + .milliseconds(Int64(ms)),
                                                                                 interval: interval) {
            decided.append(ms)
            _ = Self.packets(&s, Self.frame(800, key: true), key: true, at: Self.t0 + .milliseconds(Int64(ms)))
        }
        #expect(decided == [331], "the first picture 300 ms after the last keyframe")
        #expect(!s.keyframeRequested, "a keyframe sent answers the request")
        // A new start (a new call, a new encoder) takes one at once.
        s.keyframeWanted = true
        let restart = s.takesKeyframe(now: Self.t0 + .milliseconds(340), interval: interval)
        let next = s.takesKeyframe(now: Self.t0 + .milliseconds(373), interval: interval)
        #expect(restart && !next)
    }
}
