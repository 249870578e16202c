@testable import AgoraishServer
import AgoraishWire
import Testing

/// A browser's numbers in and out of the forwarding path (docs/media-plane.md, Browsers).
@Suite struct WebRtcRewriteTests {
    /// An RTP packet with a one-byte extension block holding (id, value) elements.
    static func packet(pt: UInt8, ssrc: UInt32, extensions: [(UInt8, [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for (id, value) in extensions { body += [id << 4 | UInt8(value.count - 1)] + value }
        while body.count % 4 != 0 { body.append(0) }
        var p: [UInt8] = [0x90, pt, 0, 1, 0, 0, 0, 9]
        p += [UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF)]
        p += [0xBE, 0xDE, 0, UInt8(body.count / 4)] + body + [1, 2, 3]
        return p
    }

    /// The ids of the extension elements of a packet built by `packet`.
    static func ids(_ p: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [], at = 16
        let end = 16 + Int(p[15]) * 4
        while at < end {
            let id = p[at] >> 4
            if id == 0 { at += 1; continue }
            out.append(id)
            at += 2 + Int(p[at] & 0x0F)
        }
        return out
    }

    /// A browser that numbers Opus 109, VP8 120 (RTX 121), the audio level 5 and transport-wide numbers 1.
    let rewrite = WebRtcRewrite(WebRtcPeer(fingerprintAlgorithm: "sha-256", fingerprint: "AA", payloadTypes: [
        109: PayloadType.opus.rawValue, 120: PayloadType.vp8.rawValue, 121: PayloadType.vp8Rtx.rawValue,
    ], audioLevelId: 5, transportSequenceId: 1, receiving: [5000, 5001]))

    func run(_ bytes: [UInt8], _ body: (UnsafeMutableRawPointer, Int) -> Bool) -> ([UInt8], Bool) {
        var copy = bytes
        let ok = copy.withUnsafeMutableBytes { body($0.baseAddress!, $0.count) }
        return (copy, ok)
    }

    @Test func ingressPutsTheEnginesNumbersIn() {
        let (p, ok) = run(Self.packet(pt: 109 | 0x80, ssrc: 77, extensions: [(5, [0x30]), (1, [0, 7])])) { rewrite.ingress($0, $1) }
        #expect(ok && p[1] == 0x80 | PayloadType.opus.rawValue, "the marker bit stays")
        #expect(Self.ids(p) == [HeaderExtensionId.audioLevel, HeaderExtensionId.transportSequence])
        #expect(p.suffix(3) == [1, 2, 3], "the payload is untouched")
        // An id the engine reads but the browser gave another meaning never keeps it.
        let (q, _) = run(Self.packet(pt: 120, ssrc: 77, extensions: [(3, [9, 9]), (4, [1])])) { rewrite.ingress($0, $1) }
        #expect(Self.ids(q) == [WebRtcRewrite.unusedId, WebRtcRewrite.unusedId])
        #expect(!run(Self.packet(pt: 111, ssrc: 77, extensions: [])) { rewrite.ingress($0, $1) }.1,
                "a payload type the browser did not negotiate")
    }

    @Test func egressSendsOnlyNamedStreamsInTheBrowsersNumbers() {
        let audio = Self.packet(pt: PayloadType.opus.rawValue, ssrc: 5000,
                                extensions: [(HeaderExtensionId.audioLevel, [0x20]), (HeaderExtensionId.transportSequence, [0, 1]),
                                             (HeaderExtensionId.payloadProtection, [1])])
        let (p, ok) = run(audio) { rewrite.egress($0, $1) }
        #expect(ok && p[1] == 109)
        #expect(Self.ids(p) == [5, 1, WebRtcRewrite.unusedId])
        let (r, rtxOk) = run(Self.packet(pt: PayloadType.vp8Rtx.rawValue, ssrc: 5001, extensions: [])) { rewrite.egress($0, $1) }
        #expect(rtxOk && r[1] == 121)
        #expect(!run(Self.packet(pt: PayloadType.opus.rawValue, ssrc: 6000, extensions: [])) { rewrite.egress($0, $1) }.1,
                "a stream the answer did not name")
        #expect(!run(Self.packet(pt: PayloadType.vp9.rawValue, ssrc: 5000, extensions: [])) { rewrite.egress($0, $1) }.1,
                "a codec the browser did not take")
        #expect(rewrite.accepts(UnsafeRawBufferPointer(start: nil, count: 0)) == false)
    }

    @Test func malformedExtensionBlocksAreLeftAlone() {
        var p = Self.packet(pt: 109, ssrc: 77, extensions: [(5, [0x30])])
        p[15] = 200  // a length past the end
        let (q, ok) = run(p) { rewrite.ingress($0, $1) }
        #expect(ok && Array(q[16...]) == Array(p[16...]))
        let short: [UInt8] = [0x90, 109, 0, 1]
        #expect(!run(short) { rewrite.ingress($0, $1) }.1 && !run(short) { rewrite.egress($0, $1) }.1)
    }
}
