@testable import AgoraishServer
import AgoraishWire
import Testing

/// `join` with `webrtc` and `webrtc_offer`: a browser's offer answered, its
/// terms handed to the media plane (docs/protocol.md, WebRTC).
@Suite struct WebRtcSignalingTests {
    /// An offer as Chromium writes it: audio and video it sends, one video it receives.
    static func offer(fingerprint: Bool = true) -> String {
        var lines = [
            "v=0", "o=- 4611731400430051336 2 IN IP4 127.0.0.1", "s=-", "t=0 0",
            "a=group:BUNDLE 0 1 2", "a=extmap-allow-mixed", "a=msid-semantic: WMS stream",
        ]
        func common(_ mid: String) -> [String] {
            var c = ["c=IN IP4 0.0.0.0", "a=rtcp:9 IN IP4 0.0.0.0", "a=ice-ufrag:Br0w", "a=ice-pwd:browserpassword0123456789",
                     "a=ice-options:trickle"]
            if fingerprint {
                c.append("a=fingerprint:sha-256 9A:4F:2B:11:C3:0D:55:6E:7F:80:91:A2:B3:C4:D5:E6:F7:08:19:2A:3B:4C:5D:6E:7F:80:91:A2:B3:C4:D5:E6")
            }
            c += ["a=setup:actpass", "a=mid:\(mid)"]
            return c
        }
        lines += ["m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126"] + common("0") + [
            "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
            "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
            "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
            "a=sendonly", "a=msid:stream audio0", "a=rtcp-mux", "a=rtcp-rsize",
            "a=rtpmap:111 opus/48000/2", "a=rtcp-fb:111 transport-cc", "a=fmtp:111 minptime=10;useinbandfec=1",
            "a=rtpmap:63 red/48000/2", "a=fmtp:63 111/111", "a=rtpmap:9 G722/8000", "a=rtpmap:0 PCMU/8000",
            "a=rtpmap:8 PCMA/8000", "a=rtpmap:13 CN/8000", "a=rtpmap:110 telephone-event/48000",
            "a=rtpmap:126 telephone-event/8000",
            "a=ssrc:1111 cname:browsercname", "a=ssrc:1111 msid:stream audio0",
        ]
        func video(_ mid: String, _ direction: String, ssrcs: Bool) -> [String] {
            var v = ["m=video 9 UDP/TLS/RTP/SAVPF 96 97 98 99 45"] + common(mid) + [
                "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
                "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
                "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
                "a=\(direction)", "a=rtcp-mux", "a=rtcp-rsize",
                "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 goog-remb", "a=rtcp-fb:96 transport-cc", "a=rtcp-fb:96 ccm fir",
                "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli",
                "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96",
                "a=rtpmap:98 VP9/90000", "a=rtcp-fb:98 transport-cc", "a=rtcp-fb:98 nack", "a=rtcp-fb:98 nack pli",
                "a=fmtp:98 profile-id=0", "a=rtpmap:99 rtx/90000", "a=fmtp:99 apt=98",
                "a=rtpmap:45 AV1/90000", "a=rtcp-fb:45 nack",
            ]
            if ssrcs {
                v += ["a=msid:stream video0", "a=ssrc-group:FID 2222 2223", "a=ssrc:2222 cname:browsercname",
                      "a=ssrc:2223 cname:browsercname"]
            }
            return v
        }
        lines += video("1", "sendonly", ssrcs: true)
        lines += video("2", "recvonly", ssrcs: false)
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    func offerMessage(_ sdp: String, receive: [(String, UInt32, UInt32)] = []) -> [String: JSONValue] {
        ["type": .string("webrtc_offer"), "id": .integer(9), "sdp": .string(sdp),
         "receive": .array(receive.map {
             .object(["mid": .string($0.0), "ssrc": .integer(Int64($0.1)), "rtx_ssrc": .integer(Int64($0.2))])
         })]
    }

    /// The session id of the member with `uid` (tests see the core's tables).
    func session(_ d: CoreDriver, _ uid: UInt32) -> UInt64 { d.core.sessions.values.first { $0.uid == uid }!.id }

    func driver() -> CoreDriver {
        var d = CoreDriver()
        d.core.mediaEndpoint = ("127.0.0.1", 4000)
        d.core.dtlsFingerprint = String(repeating: "AB:", count: 31) + "AB"
        return d
    }

    func webJoin(_ d: inout CoreDriver, _ c: ConnectionID, uid: UInt32) {
        d.send(c, ["type": .string("join"), "id": .integer(1), "app_id": .string("app-one"), "channel": .string("room"),
                   "uid": .integer(Int64(uid)), "webrtc": .bool(true)])
        #expect(d.take(c).first { $0["id"] == .integer(1) }?["type"] == .string("joined"))
    }

    func reply(_ d: inout CoreDriver, _ c: ConnectionID) -> [String: JSONValue] {
        d.take(c).first { $0["id"] == .integer(9) } ?? [:]
    }

    @Test func anOfferIsAnsweredAndItsTermsReachTheMediaPlane() throws {
        var d = driver()
        let native = d.connect(), web = d.connect()
        _ = d.join(native, uid: 100)
        // The native user publishes video (server SSRC 5000, RTX 5001).
        d.core.streamPublished(session: session(d, 100), ssrc: 5000, payloadType: 96, rtx: 5001)
        webJoin(&d, web, uid: 200)
        var grant: MediaGrant? = nil
        while let command = d.core.pollMediaCommand() {
            if case .admit(let g) = command, g.uid == 200 { grant = g }
        }
        #expect(grant?.webrtc == true, "the media plane expects DTLS for this participant")
        d.send(web, offerMessage(Self.offer(), receive: [("2", 5000, 5001)]))
        let answer = reply(&d, web)
        #expect(answer["type"] == .string("webrtc_answer"))
        let sdp = try #require(answer["sdp"]?.stringValue)
        #expect(sdp.contains("a=ice-lite"))
        #expect(sdp.contains("a=ice-ufrag:\(grant!.iceUfrag)"))
        #expect(sdp.contains("a=fingerprint:sha-256 \(d.core.dtlsFingerprint!)"))
        #expect(sdp.contains("a=setup:passive"))
        #expect(sdp.contains("127.0.0.1 4000 typ host"))
        #expect(sdp.contains("a=ssrc-group:FID 5000 5001"), "the stream it receives, with its RTX")
        #expect(!sdp.contains("AV1") && !sdp.contains("G722"))
        var peer: WebRtcPeer? = nil
        while let command = d.core.pollMediaCommand() {
            if case .webrtcNegotiated(_, let p) = command { peer = p }
        }
        let p = try #require(peer)
        #expect(p.payloadTypes[111] == 111 && p.payloadTypes[96] == 96 && p.payloadTypes[97] == 97 && p.payloadTypes[98] == 98)
        #expect(p.payloadTypes[45] == nil && p.payloadTypes[63] == nil)
        #expect(p.audioLevelId == 1 && p.transportSequenceId == 3)
        #expect(p.receiving == [5000, 5001])
        #expect(p.fingerprintAlgorithm == "sha-256" && p.fingerprint.hasPrefix("9A:4F"))
    }

    @Test func offersThatCannotBeAnsweredAreRefused() {
        var d = driver()
        let native = d.connect(), web = d.connect(), plain = d.connect()
        _ = d.join(native, uid: 100)
        d.core.streamPublished(session: session(d, 100), ssrc: 5000, payloadType: 96, rtx: 5001)
        d.core.streamPublished(session: session(d, 100), ssrc: 6000, payloadType: 100, rtx: 6001)
        webJoin(&d, web, uid: 200)
        _ = d.join(plain, uid: 300)
        func code(_ c: ConnectionID, _ m: [String: JSONValue]) -> (JSONValue?, JSONValue?) {
            d.send(c, m)
            let r = reply(&d, c)
            return (r["code"], r["reason"])
        }
        #expect(code(plain, offerMessage(Self.offer())) == (.integer(-5), .string("not_webrtc")))
        #expect(code(d.connect(), offerMessage(Self.offer())) == (.integer(-113), .string("not_in_channel")))
        #expect(code(web, offerMessage("v=0\r\nnonsense")) == (.integer(-2), .string("bad_field:sdp")))
        #expect(code(web, offerMessage(Self.offer(fingerprint: false))) == (.integer(-2), .string("bad_field:sdp")))
        #expect(code(web, offerMessage(Self.offer(), receive: [("2", 7777, 0)])) == (.integer(-2), .string("bad_field:receive")),
                "a stream nobody publishes")
        #expect(code(web, offerMessage(Self.offer(), receive: [("2", 6000, 6001)])) == (.integer(-2), .string("bad_field:receive")),
                "a data stream")
        #expect(code(web, offerMessage(Self.offer(), receive: [("2", 5000, 9)])) == (.integer(-2), .string("bad_field:receive")),
                "another stream's RTX")
        #expect(code(web, offerMessage(Self.offer(), receive: [("2", 5000, 0), ("1", 5000, 0)]))
                == (.integer(-2), .string("bad_field:receive")), "one stream twice")
        var negotiated = false
        while let command = d.core.pollMediaCommand() { if case .webrtcNegotiated = command { negotiated = true } }
        #expect(!negotiated, "a refused offer changes nothing")
    }
}
