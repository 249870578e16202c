@testable import AgoraishWire
import Testing

/// `SessionDescription` (RFC 8866: parse, serialize, typed views, limits) and
/// `WebRtcNegotiation` (the server's JSEP answer), on offers as Chrome writes
/// them (`ChromeOffer` at the end of this file).
@Suite struct SdpTests {
    static let serverFingerprint =
        "AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99"

    static func parameters(receive: [String: ReceiveStream] = [:], host: String = "203.0.113.7") -> WebRtcAnswerParameters {
        WebRtcAnswerParameters(iceUfrag: "Srv1", icePassword: "serverpasswordserverpw1", fingerprint: serverFingerprint,
                               host: host, port: 40000, receive: receive, sessionId: 42, sessionVersion: 3)
    }

    static let audioStream = ReceiveStream(ssrc: 0x1111, rtxSsrc: 0, kind: "audio", streamId: "agoraish-7", trackId: "audio-7")
    static let videoStream = ReceiveStream(ssrc: 0x2222, rtxSsrc: 0x2223, kind: "video", streamId: "agoraish-7",
                                           trackId: "video-7")

    static func negotiate(_ text: String, receive: [String: ReceiveStream] = [:]) throws -> WebRtcNegotiation {
        try WebRtcNegotiation.negotiate(offer: SessionDescription.parse(text), parameters: parameters(receive: receive))
    }

    /// `text` with each line passed through `edit` (nil drops it).
    static func editing(_ text: String, _ edit: (String) -> String?) -> String {
        text.split(separator: "\r\n").compactMap { edit(String($0)) }.map { $0 + "\r\n" }.joined()
    }

    /// The `a=` lines of `m`, as written.
    static func lines(_ m: MediaDescription) -> [String] {
        m.attributes.map { a in a.value.map { "\(a.name):\($0)" } ?? a.name }
    }

    // MARK: Parsing

    @Test func chromeAudioVideoOfferReadsIntoTypedViews() throws {
        let offer = try SessionDescription.parse(ChromeOffer.audioVideo)
        #expect(offer.origin == SdpOrigin(sessionId: 4611731400430051336, sessionVersion: 2, address: "127.0.0.1"))
        #expect(offer.sessionName == "-" && offer.timing == SdpTiming(start: 0, stop: 0))
        #expect(offer.groups == [SdpGroup(semantics: "BUNDLE", mids: ["0", "1"])])
        #expect(offer.attribute(named: "extmap-allow-mixed") == SdpAttribute("extmap-allow-mixed"))
        #expect(offer.attribute(named: "msid-semantic")?.value == " WMS 9f0c1a4e-2a0b-4c57-9b1e-1b0f5c3f7d21")
        #expect(offer.media.map(\.kind) == ["audio", "video"])

        let audio = offer.media[0]
        #expect(audio.port == 9 && audio.proto == "UDP/TLS/RTP/SAVPF")
        #expect(audio.formats == ["111", "63", "9", "0", "8", "13", "110", "126"])
        #expect(audio.connection == SdpConnection(networkType: "IN", addressType: "IP4", address: "0.0.0.0"))
        #expect(audio.mid == "0" && audio.direction == .sendrecv && audio.rtcpMux && audio.rtcpRsize)
        #expect(audio.iceUfrag == "Ra8u" && audio.icePassword == "0v0yEyKmqUy2G+EsvnYbqQqQ" && audio.setup == .actpass)
        #expect(audio.fingerprints == [SdpFingerprint(algorithm: "sha-256", value: ChromeOffer.fingerprint)])
        #expect(audio.codecs.count == 8)
        #expect(audio.codecs[0] == SdpCodec(payloadType: 111, name: "opus", clockRate: 48000, channels: 2,
                                            parameters: "minptime=10;useinbandfec=1", feedback: ["transport-cc"]))
        #expect(audio.codecs[0].parameter("useinbandfec") == "1" && audio.codecs[0].parameter("stereo") == nil)
        #expect(audio.codecs[3] == SdpCodec(payloadType: 0, name: "PCMU", clockRate: 8000))
        #expect(audio.extensionMaps.first == SdpExtensionMap(id: 1, uri: "urn:ietf:params:rtp-hdrext:ssrc-audio-level"))
        #expect(audio.msid == SdpMsid(streamId: "9f0c1a4e-2a0b-4c57-9b1e-1b0f5c3f7d21",
                                      trackId: "3c7e5a52-8a35-4e3b-9f7c-0d6c2c7b1e44"))
        #expect(audio.ssrcs == [SdpSsrc(ssrc: 1001463553, attributes: [
            "cname": "hX5pGKb0Ev0eRmQ2",
            "msid": "9f0c1a4e-2a0b-4c57-9b1e-1b0f5c3f7d21 3c7e5a52-8a35-4e3b-9f7c-0d6c2c7b1e44",
        ])])

        let video = offer.media[1]
        #expect(video.codecs.map(\.payloadType) == [96, 97, 102, 103, 98, 99, 100, 101, 45, 46, 116, 117, 118])
        #expect(video.codecs[0].feedback == ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"])
        #expect(video.codecs[1].name == "rtx" && video.codecs[1].parameter("apt") == "96" && video.codecs[1].feedback.isEmpty)
        #expect(video.codecs[6].parameter("profile-id") == "2")
        #expect(video.ssrcGroups == [SdpSsrcGroup(semantics: "FID", ssrcs: [2337203513, 1417536127])])
        #expect(video.ssrcs.map(\.ssrc) == [2337203513, 1417536127])
        #expect(video.extensionMaps.count == 11 && video.extensionMaps[3].id == 3)
        #expect(offer.iceUfrag(for: video) == "Ra8u" && offer.setup(for: video) == .actpass)
    }

    @Test(arguments: ChromeOffer.Name.allCases)
    func chromeOffersSerializeBackToTheirOwnText(_ name: ChromeOffer.Name) throws {
        let text = name.text
        let offer = try SessionDescription.parse(text)
        #expect(offer.serialized == text)
        #expect(try SessionDescription.parse(offer.serialized) == offer)
    }

    @Test func lfEndingsAndAMissingFinalNewlineReadTheSame() throws {
        let crlf = try SessionDescription.parse(ChromeOffer.audioVideo)
        let lf = Self.editing(ChromeOffer.audioVideo) { $0 }.split(separator: "\r\n").joined(separator: "\n")
        #expect(try SessionDescription.parse(lf) == crlf)
        #expect(try SessionDescription.parse(lf + "\n\n") == crlf)
    }

    @Test func dataChannelAndSimulcastSectionsAreRead() throws {
        let data = try SessionDescription.parse(ChromeOffer.audioAndDataChannel).media[1]
        #expect(data.kind == "application" && data.proto == "UDP/DTLS/SCTP" && data.formats == ["webrtc-datachannel"])
        #expect(data.sctpPort == 5000 && data.maxMessageSize == 262144 && data.codecs.isEmpty && !data.rtcpMux)

        let video = try SessionDescription.parse(ChromeOffer.simulcast).media[0]
        #expect(video.direction == .sendonly && video.ssrcs.isEmpty)
        #expect(video.rids == [SdpRid(id: "q", sends: true), SdpRid(id: "h", sends: true), SdpRid(id: "f", sends: true)])
        #expect(video.simulcast == "send q;h;f")
        #expect(video.msid == SdpMsid(streamId: "-", trackId: "4c0a7f3e-9b21-4d6e-8f5a-1c3b7e9d2a60"))
    }

    @Test func linesAndAttributesItDoesNotKnowRoundTrip() throws {
        let text = "v=0\r\no=jdoe 2890844526 2890842807 IN IP4 10.47.16.5\r\ns=SDP Seminar\r\ni=A Seminar\r\n"
            + "u=http://www.example.com/seminars/sdp.pdf\r\ne=j.doe@example.com (Jane Doe)\r\nc=IN IP4 224.2.17.12/127\r\n"
            + "b=AS:512\r\nt=2873397496 2873404696\r\nr=7d 1h 0 25h\r\nt=0 0\r\nx=not a type RFC 8866 defines\r\n"
            + "a=recvonly\r\na=x-custom:anything : at all\r\na=flag\r\na=empty:\r\n"
            + "m=audio 49170/2 RTP/AVP 0\r\ni=audio\r\nb=TIAS:64000\r\nk=prompt\r\n"
            + "m=video 51372 RTP/AVP 99\r\na=rtpmap:99 h263-1998/90000\r\n"
        let d = try SessionDescription.parse(text)
        #expect(d.connection?.address == "224.2.17.12/127" && d.bandwidths == [SdpBandwidth(type: "AS", value: 512)])
        #expect(d.timing == SdpTiming(start: 2873397496, stop: 2873404696))
        #expect(d.otherLines.map { String(Character($0.type)) } == ["i", "u", "e", "r", "t", "x"])
        #expect(d.attributes.map(\.value) == [nil, "anything : at all", nil, ""])
        #expect(d.media[0].portCount == 2 && d.media[0].otherLines.count == 2 && d.media[0].codecs.isEmpty)
        #expect(d.direction(of: d.media[0]) == .recvonly && d.media[0].direction == .sendrecv)
        #expect(try SessionDescription.parse(d.serialized) == d)
    }

    // MARK: Limits and bad text

    @Test func textOverSixtyFourKibibytesIsRefused() throws {
        let big = ChromeOffer.audioVideo + String(repeating: "a=x-padding:0123456789012345678901234567890123456789\r\n",
                                                  count: 1400)
        #expect(big.utf8.count > 70_000)
        #expect(throws: SdpError.tooLarge) { try SessionDescription.parse(big) }
        // Counted with CRLF endings, so that what parses still parses once serialized:
        // 55 KB of LF lines that would be 68 KB with CRLF are over the limit.
        func text(_ perSection: Int) -> String {
            "v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\nt=0 0\n"
                + String(repeating: "m=audio 9 RTP/AVP 0\n" + String(repeating: "a=x\n", count: perSection), count: 16)
        }
        #expect(text(850).utf8.count < 65536)
        #expect(throws: SdpError.tooLarge) { try SessionDescription.parse(text(850)) }
        #expect(try SessionDescription.parse(text(700)).media.count == 16)
    }

    @Test func sixtyFiveMediaSectionsAreRefused() throws {
        let head = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"
        let section = "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"
        #expect(try SessionDescription.parse(head + String(repeating: section, count: 64)).media.count == 64)
        #expect(throws: SdpError.tooLarge) { try SessionDescription.parse(head + String(repeating: section, count: 65)) }
    }

    @Test func tooManyFormatsAttributesOrTooLongALineAreRefused() throws {
        let head = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"
        let formats = (0..<128).map(String.init).joined(separator: " ")
        #expect(try SessionDescription.parse(head + "m=audio 9 RTP/AVP \(formats)\r\n").media[0].formats.count == 128)
        #expect(throws: SdpError.tooLarge) { try SessionDescription.parse(head + "m=audio 9 RTP/AVP \(formats) 0\r\n") }
        let attributes = String(repeating: "a=x\r\n", count: 1024)
        #expect(try SessionDescription.parse(head + attributes).attributes.count == 1024)
        #expect(throws: SdpError.tooLarge) { try SessionDescription.parse(head + attributes + "a=x\r\n") }
        #expect(throws: SdpError.tooLarge) {
            try SessionDescription.parse(head + "m=audio 9 RTP/AVP 0\r\n" + attributes + "a=x\r\n")
        }
        #expect(throws: SdpError.tooLarge) {
            try SessionDescription.parse(head + "a=x:" + String(repeating: "y", count: 4093) + "\r\n")
        }
        #expect(try SessionDescription.parse(head + "a=x:" + String(repeating: "y", count: 4092)).attributes.count == 1)
    }

    @Test(arguments: [
        ("", 1), ("o=- 1 1 IN IP4 0.0.0.0\r\n", 1), ("v=0\r\n\r\ns=-\r\n", 2), ("v=0\r\nV=0\r\n", 2),
        ("v=0\r\n=x\r\n", 2), ("v=0\r\na\r\n", 2), ("v=0\r\ns=a\u{0}b\r\n", 2), ("v=0\r\ns=a\rb\r\n", 2),
        ("v=0\r\nv=0\r\n", 2), ("v=0\r\no=- 1 1 IN IP4\r\n", 2), ("v=0\r\no=- 18446744073709551616 1 IN IP4 0.0.0.0\r\n", 2),
        ("v=0\r\no=- -1 1 IN IP4 0.0.0.0\r\n", 2), ("v=0\r\nt=0\r\n", 2), ("v=0\r\nm=audio 65536 RTP/AVP 0\r\n", 2),
        ("v=0\r\nm=audio 9 RTP/AVP 128\r\n", 2), ("v=0\r\nm=audio 9 RTP/AVP\r\n", 2), ("v=0\r\nm=audio  9 RTP/AVP 0\r\n", 2),
        ("v=0\r\nm=audio 9/x RTP/AVP 0\r\n", 2), ("v=0\r\nb=AS:-1\r\n", 2), ("v=0\r\nc=IN IP4\r\n", 2), ("v=0\r\na=\r\n", 2),
        ("v=0\r\na=:x\r\n", 2), ("v=0\r\na=rtpmap:128 opus/48000/2\r\n", 2), ("v=0\r\na=rtpmap:111 opus/0\r\n", 2),
        ("v=0\r\na=rtpmap:111 opus\r\n", 2), ("v=0\r\na=rtpmap:111 opus/48000/256\r\n", 2), ("v=0\r\na=fmtp:96\r\n", 2),
        ("v=0\r\na=rtcp-fb:96\r\n", 2), ("v=0\r\na=extmap:0 urn:x\r\n", 2), ("v=0\r\na=extmap:256 urn:x\r\n", 2),
        ("v=0\r\na=extmap:1/sideways urn:x\r\n", 2), ("v=0\r\na=ssrc:4294967296 cname:x\r\n", 2),
        ("v=0\r\na=ssrc-group:FID 1 x\r\n", 2), ("v=0\r\na=ssrc-group:FID\r\n", 2), ("v=0\r\na=group\r\n", 2),
        ("v=0\r\na=mid:\r\n", 2), ("v=0\r\na=mid:a b\r\n", 2), ("v=0\r\na=ice-ufrag:abc\r\n", 2),
        ("v=0\r\na=ice-pwd:short\r\n", 2), ("v=0\r\na=ice-ufrag:ab-cd\r\n", 2), ("v=0\r\na=fingerprint:sha-256 XY:00\r\n", 2),
        ("v=0\r\na=fingerprint:sha-256\r\n", 2), ("v=0\r\na=setup:server\r\n", 2), ("v=0\r\na=sctp-port:70000\r\n", 2),
        ("v=0\r\na=rid:q sideways\r\n", 2), ("v=0\r\na=msid:a b c\r\n", 2), ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\n", 3),
        ("v=0\r\ns=-\r\nt=0 0\r\n", 3), ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\nt=0 0\r\n", 3),
    ] as [(String, Int)])
    func malformedTextIsRefusedAtItsLine(_ text: String, _ line: Int) {
        #expect {
            try SessionDescription.parse(text)
        } throws: { error in
            guard case .malformed(let at, _)? = error as? SdpError else { return false }
            return at == line
        }
    }

    @Test func otherVersionsAndMulticastLayersAreUnsupported() {
        #expect(throws: SdpError.unsupported("SDP version other than 0")) { try SessionDescription.parse("v=1\r\n") }
        let layered = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 9 RTP/AVP 0\r\nc=IN IP4 224.2.1.1\r\nc=IN IP4 224.2.1.2\r\n"
        #expect(throws: SdpError.unsupported("several c= lines in an m-section")) { try SessionDescription.parse(layered) }
    }

    /// Random bytes and Chrome offers with lines cut, swapped and bit-flipped:
    /// parsing never traps, what parses serializes back to an equal value, and
    /// negotiation with fixed parameters never traps (what the `sdp` fuzz entry checks).
    @Test func garbageNeverTrapsAndWhatParsesRoundTrips() throws {
        var rng = SplitMix64(seed: 0x5D9)
        var parsed = 0, answered = 0
        func check(_ text: String) {
            guard let d = try? SessionDescription.parse(text) else { return }
            parsed += 1
            #expect((try? SessionDescription.parse(d.serialized)) == d)
            if let n = try? WebRtcNegotiation.negotiate(offer: d, parameters: Self.parameters(receive: ["1": Self.videoStream])) {
                answered += 1
                #expect((try? SessionDescription.parse(n.answer.serialized)) == n.answer)
            }
        }
        for _ in 0..<300 {
            let bytes = (0..<Int(rng.next() % 300)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            check(String(decoding: bytes, as: UTF8.self))
            check("v=0\r\n" + String(decoding: bytes.map { $0 & 0x7F }, as: UTF8.self))
        }
        for round in 0..<600 {
            var lines = ChromeOffer.all[round % 4].split(separator: "\r\n").map { Array($0.utf8) }
            for _ in 0..<(1 + rng.next() % 4) {
                let i = Int(rng.next() % UInt64(lines.count)), j = Int(rng.next() % UInt64(lines.count))
                switch rng.next() % 5 {
                case 0: lines.remove(at: max(1, i))
                case 1: lines.swapAt(max(1, i), max(1, j))
                case 2: lines.insert(lines[j], at: max(1, i))
                case 3 where !lines[i].isEmpty: lines[i][Int(rng.next() % UInt64(lines[i].count))] ^= 1 << (rng.next() % 7)
                default: lines[i] = Array(lines[i].prefix(Int(rng.next() % 40)))
                }
            }
            check(String(decoding: Array(lines.joined(separator: Array("\r\n".utf8))), as: UTF8.self))
        }
        #expect(parsed > 300 && answered > 100)
    }

    // MARK: Negotiation

    /// The whole answer to Chrome's audio and video offer when the server
    /// sends a stream in both sections: opus, VP8 and VP9 (profile 0) with
    /// their RTX, the feedback and extensions offered, one bundled transport.
    @Test func chromeAudioVideoOfferIsAnsweredLineByLine() throws {
        let n = try Self.negotiate(ChromeOffer.audioVideo, receive: ["0": Self.audioStream, "1": Self.videoStream])
        let transport = """
            c=IN IP4 0.0.0.0
            a=mid:{mid}
            a=ice-ufrag:Srv1
            a=ice-pwd:serverpasswordserverpw1
            a=fingerprint:sha-256 \(Self.serverFingerprint)
            a=setup:passive
            a=rtcp-mux
            a=rtcp-rsize
            a=sendrecv

            """
        let candidate = "a=candidate:1 1 udp 2130706431 203.0.113.7 40000 typ host\na=end-of-candidates\n"
        func section(_ mid: String) -> String {
            transport.split(separator: "{mid}", omittingEmptySubsequences: false).joined(separator: mid)
        }
        let expected = ChromeOffer.crlf("""
            v=0
            o=- 42 3 IN IP4 0.0.0.0
            s=-
            t=0 0
            a=ice-lite
            a=group:BUNDLE 0 1
            a=msid-semantic: WMS *
            m=audio 9 UDP/TLS/RTP/SAVPF 111
            \(section("0"))a=rtpmap:111 opus/48000/2
            a=fmtp:111 minptime=10;useinbandfec=1
            a=rtcp-fb:111 transport-cc
            a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
            a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
            a=msid:agoraish-7 audio-7
            a=ssrc:4369 cname:agoraish
            a=ssrc:4369 msid:agoraish-7 audio-7
            \(candidate)m=video 9 UDP/TLS/RTP/SAVPF 96 97 98 99
            \(section("1"))a=rtpmap:96 VP8/90000
            a=rtcp-fb:96 goog-remb
            a=rtcp-fb:96 transport-cc
            a=rtcp-fb:96 ccm fir
            a=rtcp-fb:96 nack
            a=rtcp-fb:96 nack pli
            a=rtpmap:97 rtx/90000
            a=fmtp:97 apt=96
            a=rtpmap:98 VP9/90000
            a=fmtp:98 profile-id=0
            a=rtcp-fb:98 goog-remb
            a=rtcp-fb:98 transport-cc
            a=rtcp-fb:98 ccm fir
            a=rtcp-fb:98 nack
            a=rtcp-fb:98 nack pli
            a=rtpmap:99 rtx/90000
            a=fmtp:99 apt=98
            a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
            a=msid:agoraish-7 video-7
            a=ssrc-group:FID 8738 8739
            a=ssrc:8738 cname:agoraish
            a=ssrc:8738 msid:agoraish-7 video-7
            a=ssrc:8739 cname:agoraish
            a=ssrc:8739 msid:agoraish-7 video-7
            \(candidate)
            """)
        #expect(n.answer.serialized == expected)
        #expect(try SessionDescription.parse(n.answer.serialized) == n.answer)
        #expect(n.payloadTypes == [111: .opus, 96: .vp8, 97: .vp8Rtx, 98: .vp9, 99: .vp9Rtx])
        #expect(n.audioLevelId == 1 && n.transportSequenceId == 3)
        #expect(n.remoteUfrag == "Ra8u" && n.remotePassword == "0v0yEyKmqUy2G+EsvnYbqQqQ")
        #expect(n.remoteFingerprint == SdpFingerprint(algorithm: "sha-256", value: ChromeOffer.fingerprint))
        #expect(n.sending == [SentStream(mid: "0", kind: "audio", ssrc: 1001463553, rtxSsrc: 0),
                              SentStream(mid: "1", kind: "video", ssrc: 2337203513, rtxSsrc: 1417536127)])
        #expect(n.receiving == [0x1111, 0x2222, 0x2223] && n.bundle == ["0", "1"])
    }

    @Test func sendRecvOfferWithoutReceiveStreamsIsAnsweredRecvOnly() throws {
        let n = try Self.negotiate(ChromeOffer.audioVideo)
        #expect(n.answer.media.map(\.direction) == [.recvonly, .recvonly])
        #expect(n.answer.media.allSatisfy { $0.ssrcs.isEmpty && $0.msid == nil })
        #expect(n.receiving.isEmpty && n.sending.count == 2)
    }

    @Test func recvOnlySectionWithAReceiveStreamAnnouncesItsSsrcs() throws {
        let n = try Self.negotiate(ChromeOffer.receiveOnly, receive: ["1": Self.videoStream])
        let audio = n.answer.media[0], video = n.answer.media[1]
        #expect(audio.direction == .inactive && audio.ssrcs.isEmpty && audio.port == 9)
        #expect(video.direction == .sendonly)
        #expect(video.msid == SdpMsid(streamId: "agoraish-7", trackId: "video-7"))
        #expect(video.ssrcGroups == [SdpSsrcGroup(semantics: "FID", ssrcs: [0x2222, 0x2223])])
        #expect(video.ssrcs == [
            SdpSsrc(ssrc: 0x2222, attributes: ["cname": "agoraish", "msid": "agoraish-7 video-7"]),
            SdpSsrc(ssrc: 0x2223, attributes: ["cname": "agoraish", "msid": "agoraish-7 video-7"]),
        ])
        #expect(n.receiving == [0x2222, 0x2223] && n.sending.isEmpty && n.bundle == ["0", "1"])
        // Without RTX in the answer, the RTX SSRC is not announced.
        let noRtx = Self.editing(ChromeOffer.receiveOnly) { $0.hasPrefix("a=rtpmap:97 ") || $0.hasPrefix("a=rtpmap:99 ") ? nil : $0 }
        let m = try Self.negotiate(noRtx, receive: ["1": Self.videoStream])
        #expect(m.answer.media[1].ssrcs.map(\.ssrc) == [0x2222] && m.answer.media[1].ssrcGroups.isEmpty)
        #expect(m.receiving == [0x2222] && m.payloadTypes == [111: .opus, 96: .vp8, 98: .vp9])
    }

    @Test func dataChannelsAreAnsweredAndH264OnlyVideoIsRejectedOutOfTheBundle() throws {
        let data = try Self.negotiate(ChromeOffer.audioAndDataChannel)
        let application = data.answer.media[1]
        #expect(application.port == 9 && application.kind == "application" && application.proto == "UDP/DTLS/SCTP")
        #expect(application.formats == ["webrtc-datachannel"] && application.sctpPort == 5000)
        #expect(application.maxMessageSize == 65536 && application.mid == "1")
        #expect(data.answer.groups == [SdpGroup(semantics: "BUNDLE", mids: ["0", "1"])] && data.bundle == ["0", "1"])
        #expect(data.answer.media[0].direction == .recvonly && data.payloadTypes == [111: .opus])
        #expect(data.sctpPort != nil)
        #expect(try SessionDescription.parse(data.answer.serialized) == data.answer)

        // Chrome's offer with every codec but H264 (and its RTX) taken out of the video section.
        let h264Only = Self.editing(ChromeOffer.audioVideo) { line in
            if line.hasPrefix("m=video") { return "m=video 9 UDP/TLS/RTP/SAVPF 102 103" }
            for pt in ["96", "97", "98", "99", "100", "101", "45", "46", "116", "117", "118"]
            where line.hasPrefix("a=rtpmap:\(pt) ") || line.hasPrefix("a=fmtp:\(pt) ") || line.hasPrefix("a=rtcp-fb:\(pt) ") {
                return nil
            }
            return line
        }
        let n = try Self.negotiate(h264Only, receive: ["1": Self.videoStream])
        #expect(n.answer.media[1].port == 0 && n.answer.media[1].formats == ["102", "103"])
        #expect(Self.lines(n.answer.media[1]) == ["mid:1"])
        #expect(n.bundle == ["0"] && n.sending.map(\.mid) == ["0"] && n.receiving.isEmpty)
        #expect(n.payloadTypes == [111: .opus])
        #expect(try SessionDescription.parse(n.answer.serialized) == n.answer)
    }

    @Test func sectionsOutOfTheBundleWithoutRtcpMuxOrWithPortZeroAreRejected() throws {
        let outOfBundle = Self.editing(ChromeOffer.audioVideo) { $0 == "a=group:BUNDLE 0 1" ? "a=group:BUNDLE 1" : $0 }
        #expect(try Self.negotiate(outOfBundle).answer.media.map(\.port) == [0, 9])
        var firstMux = true
        let noMux = Self.editing(ChromeOffer.audioVideo) { line in
            guard line == "a=rtcp-mux", firstMux else { return line }
            firstMux = false
            return nil
        }
        #expect(try Self.negotiate(noMux).answer.media.map(\.port) == [0, 9])
        let stopped = Self.editing(ChromeOffer.audioVideo) { $0.hasPrefix("m=audio 9 ") ? "m=audio 0" + $0.dropFirst(9) : $0 }
        #expect(try Self.negotiate(stopped).bundle == ["1"])
        // Data channels alone are a call too (stream messages without media).
        let onlyData = Self.editing(ChromeOffer.audioAndDataChannel) { $0 == "a=group:BUNDLE 0 1" ? "a=group:BUNDLE 1" : $0 }
        #expect(try Self.negotiate(onlyData).bundle == ["1"])
        let noneAtAll = Self.editing(onlyData) { $0.hasPrefix("m=application 9 ") ? "m=application 0 " + $0.dropFirst(16) : $0 }
        #expect(throws: SdpError.unsupported("no m-section to accept")) { try Self.negotiate(noneAtAll) }
    }

    @Test func simulcastOfferIsAnsweredWithOneStreamAndNoRids() throws {
        let n = try Self.negotiate(ChromeOffer.simulcast)
        let video = n.answer.media[0]
        #expect(video.direction == .recvonly && video.rids.isEmpty && video.simulcast == nil)
        #expect(n.sending == [SentStream(mid: "0", kind: "video", ssrc: 0, rtxSsrc: 0)])
        #expect(n.audioLevelId == 0 && n.transportSequenceId == 3)
    }

    @Test(arguments: [
        ("a=ice-ufrag:", SdpError.unsupported("no ice-ufrag")),
        ("a=ice-pwd:", SdpError.unsupported("no ice-pwd")),
        ("a=fingerprint:", SdpError.unsupported("no fingerprint")),
        ("a=setup:", SdpError.unsupported("no setup")),
        ("a=group:", SdpError.unsupported("no BUNDLE group")),
    ])
    func offersWithoutTheirTransportAreRefused(_ dropped: String, _ error: SdpError) {
        let offer = Self.editing(ChromeOffer.audioVideo) { $0.hasPrefix(dropped) ? nil : $0 }
        #expect(throws: error) { try Self.negotiate(offer) }
    }

    @Test func offersThatMakeTheServerTheDtlsClientAreRefused() throws {
        let passive = Self.editing(ChromeOffer.audioVideo) { $0 == "a=setup:actpass" ? "a=setup:passive" : $0 }
        #expect(throws: SdpError.unsupported("setup:passive (the server is always the DTLS server)")) {
            try Self.negotiate(passive)
        }
        let active = Self.editing(ChromeOffer.audioVideo) { $0 == "a=setup:actpass" ? "a=setup:active" : $0 }
        #expect(try Self.negotiate(active).answer.media.allSatisfy { $0.setup == .passive })
        let sha1 = Self.editing(ChromeOffer.audioVideo) {
            $0.hasPrefix("a=fingerprint:") ? "a=fingerprint:sha-1 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33" : $0
        }
        #expect(throws: SdpError.unsupported("no sha-256, sha-384 or sha-512 fingerprint")) { try Self.negotiate(sha1) }
    }

    @Test func transportAtSessionLevelIsReadLikeFirefoxWritesIt() throws {
        var moved = false
        let offer = Self.editing(ChromeOffer.audioVideo) { line in
            if line.hasPrefix("a=ice-ufrag:") || line.hasPrefix("a=ice-pwd:") || line.hasPrefix("a=fingerprint:") { return nil }
            if line == "t=0 0", !moved {
                moved = true
                return "t=0 0\r\na=ice-ufrag:8e1f5a3c\r\na=ice-pwd:4e0c7d5b2a9f1e6d3c8b0a7f5e2d1c9b\r\n"
                    + "a=fingerprint:SHA-256 \(ChromeOffer.fingerprint.lowercased())"
            }
            return line
        }
        let n = try Self.negotiate(offer)
        #expect(n.remoteUfrag == "8e1f5a3c" && n.remotePassword == "4e0c7d5b2a9f1e6d3c8b0a7f5e2d1c9b")
        #expect(n.remoteFingerprint == SdpFingerprint(algorithm: "sha-256", value: ChromeOffer.fingerprint.lowercased()))
    }

    @Test func receiveStreamOfTheWrongKindIsRefused() {
        #expect(throws: SdpError.unsupported("a receive stream's kind is not its m-section's")) {
            try Self.negotiate(ChromeOffer.audioVideo, receive: ["0": Self.videoStream])
        }
        // A stream for a section the browser only sends in is not used.
        #expect(throws: Never.self) { try Self.negotiate(ChromeOffer.simulcast, receive: ["0": Self.audioStream]) }
    }

    @Test func ipv6HostGoesInTheCandidateAndTheConnectionLineSaysIP6() throws {
        let offer = try SessionDescription.parse(ChromeOffer.audioVideo)
        let n = try WebRtcNegotiation.negotiate(offer: offer, parameters: Self.parameters(host: "2001:db8::7"))
        for m in n.answer.media {
            #expect(m.connection == SdpConnection(networkType: "IN", addressType: "IP6", address: "::"))
            #expect(m.attribute(named: "candidate")?.value == "1 1 udp 2130706431 2001:db8::7 40000 typ host")
        }
        #expect(throws: SdpError.unsupported("parameters: host")) {
            try WebRtcNegotiation.negotiate(offer: offer, parameters: Self.parameters(host: "203.0.113.7 typ relay"))
        }
    }

    @Test func extensionsWithDifferentIdsAcrossTheBundleOrTwoByteIdsAreLeftOut() throws {
        var seen = false
        let differing = Self.editing(ChromeOffer.audioVideo) { line in
            guard line.hasPrefix("a=extmap:3 ") else { return line }
            defer { seen = true }
            return seen ? "a=extmap:9 " + line.dropFirst(11) : line
        }
        let n = try Self.negotiate(differing)
        #expect(n.transportSequenceId == 0 && n.audioLevelId == 1)
        #expect(n.answer.media[1].extensionMaps.isEmpty && n.answer.media[0].extensionMaps.map(\.id) == [1])
        let twoByte = Self.editing(ChromeOffer.audioVideo) { $0.hasPrefix("a=extmap:1 ") ? "a=extmap:15 " + $0.dropFirst(11) : $0 }
        #expect(try Self.negotiate(twoByte).audioLevelId == 0)
    }

    @Test func vp9ProfileTwoAndCodecsReusingAPayloadTypeAreLeftOut() throws {
        let profile2 = Self.editing(ChromeOffer.audioVideo) { $0 == "a=fmtp:98 profile-id=0" ? "a=fmtp:98 profile-id=2" : $0 }
        #expect(try Self.negotiate(profile2).payloadTypes == [111: .opus, 96: .vp8, 97: .vp8Rtx])
        // The video section reuses 111 (the audio section's opus) for VP8: VP8 and its RTX are left out.
        let clash = Self.editing(ChromeOffer.audioVideo) { line in
            line == "a=rtpmap:96 VP8/90000" ? "a=rtpmap:111 VP8/90000"
                : line == "a=fmtp:97 apt=96" ? "a=fmtp:97 apt=111"
                : line.hasPrefix("m=video") ? "m=video 9 UDP/TLS/RTP/SAVPF 111 97 98 99" : line
        }
        let n = try Self.negotiate(clash)
        #expect(n.payloadTypes == [111: .opus, 98: .vp9, 99: .vp9Rtx])
        #expect(n.answer.media[1].formats == ["98", "99"])
    }
}

/// Offers as Chrome writes them (M120 and later, Unified Plan), line for
/// line; identifiers, ICE credentials and the fingerprint replaced by made-up ones.
enum ChromeOffer {
    /// `text` with CRLF line endings, as it travels.
    static func crlf(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
    }

    static let fingerprint =
        "5C:6F:0B:87:2A:61:C4:77:31:9E:D0:0A:4B:35:8E:F2:19:C6:7D:A3:02:BB:E8:54:6A:0F:91:3C:D7:48:25:EE"

    /// The offers by name (test arguments that print short).
    enum Name: String, CaseIterable {
        case audioVideo, receiveOnly, audioAndDataChannel, simulcast

        var text: String {
            switch self {
            case .audioVideo: ChromeOffer.audioVideo
            case .receiveOnly: ChromeOffer.receiveOnly
            case .audioAndDataChannel: ChromeOffer.audioAndDataChannel
            case .simulcast: ChromeOffer.simulcast
            }
        }
    }

    static let all = Name.allCases.map(\.text)

    /// getUserMedia audio and video, both sendrecv: a=ssrc lines, FID, msid.
    static let audioVideo = crlf("""
        v=0
        o=- 4611731400430051336 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=extmap-allow-mixed
        a=msid-semantic: WMS 9f0c1a4e-2a0b-4c57-9b1e-1b0f5c3f7d21
        m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:Ra8u
        a=ice-pwd:0v0yEyKmqUy2G+EsvnYbqQqQ
        a=ice-options:trickle
        a=fingerprint:sha-256 \(fingerprint)
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=sendrecv
        a=msid:9f0c1a4e-2a0b-4c57-9b1e-1b0f5c3f7d21 3c7e5a52-8a35-4e3b-9f7c-0d6c2c7b1e44
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        a=rtpmap:63 red/48000/2
        a=fmtp:63 111/111
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=rtpmap:13 CN/8000
        a=rtpmap:110 telephone-event/48000
        a=rtpmap:126 telephone-event/8000
        a=ssrc:1001463553 cname:hX5pGKb0Ev0eRmQ2
        a=ssrc:1001463553 msid:9f0c1a4e-2a0b-4c57-9b1e-1b0f5c3f7d21 3c7e5a52-8a35-4e3b-9f7c-0d6c2c7b1e44
        m=video 9 UDP/TLS/RTP/SAVPF 96 97 102 103 98 99 100 101 45 46 116 117 118
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:Ra8u
        a=ice-pwd:0v0yEyKmqUy2G+EsvnYbqQqQ
        a=ice-options:trickle
        a=fingerprint:sha-256 \(fingerprint)
        a=setup:actpass
        a=mid:1
        a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:13 urn:3gpp:video-orientation
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
        a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type
        a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing
        a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
        a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
        a=sendrecv
        a=msid:9f0c1a4e-2a0b-4c57-9b1e-1b0f5c3f7d21 7a3d9e61-5b42-4f0e-8c1d-2e6f4a9b0c35
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:96 VP8/90000
        a=rtcp-fb:96 goog-remb
        a=rtcp-fb:96 transport-cc
        a=rtcp-fb:96 ccm fir
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=rtpmap:102 H264/90000
        a=rtcp-fb:102 goog-remb
        a=rtcp-fb:102 transport-cc
        a=rtcp-fb:102 ccm fir
        a=rtcp-fb:102 nack
        a=rtcp-fb:102 nack pli
        a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
        a=rtpmap:103 rtx/90000
        a=fmtp:103 apt=102
        a=rtpmap:98 VP9/90000
        a=rtcp-fb:98 goog-remb
        a=rtcp-fb:98 transport-cc
        a=rtcp-fb:98 ccm fir
        a=rtcp-fb:98 nack
        a=rtcp-fb:98 nack pli
        a=fmtp:98 profile-id=0
        a=rtpmap:99 rtx/90000
        a=fmtp:99 apt=98
        a=rtpmap:100 VP9/90000
        a=rtcp-fb:100 goog-remb
        a=rtcp-fb:100 transport-cc
        a=rtcp-fb:100 ccm fir
        a=rtcp-fb:100 nack
        a=rtcp-fb:100 nack pli
        a=fmtp:100 profile-id=2
        a=rtpmap:101 rtx/90000
        a=fmtp:101 apt=100
        a=rtpmap:45 AV1/90000
        a=rtcp-fb:45 goog-remb
        a=rtcp-fb:45 transport-cc
        a=rtcp-fb:45 ccm fir
        a=rtcp-fb:45 nack
        a=rtcp-fb:45 nack pli
        a=fmtp:45 level-idx=5;profile=0;tier=0
        a=rtpmap:46 rtx/90000
        a=fmtp:46 apt=45
        a=rtpmap:116 red/90000
        a=rtpmap:117 rtx/90000
        a=fmtp:117 apt=116
        a=rtpmap:118 ulpfec/90000
        a=ssrc-group:FID 2337203513 1417536127
        a=ssrc:2337203513 cname:hX5pGKb0Ev0eRmQ2
        a=ssrc:2337203513 msid:9f0c1a4e-2a0b-4c57-9b1e-1b0f5c3f7d21 7a3d9e61-5b42-4f0e-8c1d-2e6f4a9b0c35
        a=ssrc:1417536127 cname:hX5pGKb0Ev0eRmQ2
        a=ssrc:1417536127 msid:9f0c1a4e-2a0b-4c57-9b1e-1b0f5c3f7d21 7a3d9e61-5b42-4f0e-8c1d-2e6f4a9b0c35

        """)

    /// addTransceiver("audio" and "video", {direction: "recvonly"}): no
    /// msid, no a=ssrc.
    static let receiveOnly = crlf("""
        v=0
        o=- 8180531519962741312 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=extmap-allow-mixed
        a=msid-semantic: WMS
        m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:Qm4T
        a=ice-pwd:hT0LkKd7Ho9mE0uYx1b8Zr+K
        a=ice-options:trickle
        a=fingerprint:sha-256 \(fingerprint)
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=recvonly
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        a=rtpmap:63 red/48000/2
        a=fmtp:63 111/111
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=rtpmap:13 CN/8000
        a=rtpmap:110 telephone-event/48000
        a=rtpmap:126 telephone-event/8000
        m=video 9 UDP/TLS/RTP/SAVPF 96 97 102 103 98 99
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:Qm4T
        a=ice-pwd:hT0LkKd7Ho9mE0uYx1b8Zr+K
        a=ice-options:trickle
        a=fingerprint:sha-256 \(fingerprint)
        a=setup:actpass
        a=mid:1
        a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:13 urn:3gpp:video-orientation
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=recvonly
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:96 VP8/90000
        a=rtcp-fb:96 goog-remb
        a=rtcp-fb:96 transport-cc
        a=rtcp-fb:96 ccm fir
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=rtpmap:102 H264/90000
        a=rtcp-fb:102 goog-remb
        a=rtcp-fb:102 transport-cc
        a=rtcp-fb:102 ccm fir
        a=rtcp-fb:102 nack
        a=rtcp-fb:102 nack pli
        a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:103 rtx/90000
        a=fmtp:103 apt=102
        a=rtpmap:98 VP9/90000
        a=rtcp-fb:98 goog-remb
        a=rtcp-fb:98 transport-cc
        a=rtcp-fb:98 ccm fir
        a=rtcp-fb:98 nack
        a=rtcp-fb:98 nack pli
        a=fmtp:98 profile-id=0
        a=rtpmap:99 rtx/90000
        a=fmtp:99 apt=98

        """)

    /// Microphone audio sendonly and a data channel (createDataChannel).
    static let audioAndDataChannel = crlf("""
        v=0
        o=- 3018437346375452914 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=extmap-allow-mixed
        a=msid-semantic: WMS 51d0e4b2-7c3a-4e8f-a1b6-93c2d5f7e019
        m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:zL7c
        a=ice-pwd:6yQe1dW9Pp3oNfK2sVb8Hj0T
        a=ice-options:trickle
        a=fingerprint:sha-256 \(fingerprint)
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=sendonly
        a=msid:51d0e4b2-7c3a-4e8f-a1b6-93c2d5f7e019 0e8b6c3d-47a9-4f21-b5d0-6c1e9a2f8b73
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        a=rtpmap:63 red/48000/2
        a=fmtp:63 111/111
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=rtpmap:13 CN/8000
        a=rtpmap:110 telephone-event/48000
        a=rtpmap:126 telephone-event/8000
        a=ssrc:2890844526 cname:Tq3mV9x0bK2dLw8F
        a=ssrc:2890844526 msid:51d0e4b2-7c3a-4e8f-a1b6-93c2d5f7e019 0e8b6c3d-47a9-4f21-b5d0-6c1e9a2f8b73
        m=application 9 UDP/DTLS/SCTP webrtc-datachannel
        c=IN IP4 0.0.0.0
        a=ice-ufrag:zL7c
        a=ice-pwd:6yQe1dW9Pp3oNfK2sVb8Hj0T
        a=ice-options:trickle
        a=fingerprint:sha-256 \(fingerprint)
        a=setup:actpass
        a=mid:1
        a=sctp-port:5000
        a=max-message-size:262144

        """)

    /// Camera video with three simulcast encodings (sendEncodings with rids
    /// q, h, f): a=rid and a=simulcast, no a=ssrc.
    static let simulcast = crlf("""
        v=0
        o=- 6741062983471939201 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0
        a=extmap-allow-mixed
        a=msid-semantic: WMS
        m=video 9 UDP/TLS/RTP/SAVPF 96 97 98 99
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:J0rN
        a=ice-pwd:xG5tP0wZ2cV7mQ9sR1kB4nHd
        a=ice-options:trickle
        a=fingerprint:sha-256 \(fingerprint)
        a=setup:actpass
        a=mid:0
        a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:13 urn:3gpp:video-orientation
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
        a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
        a=sendonly
        a=msid:- 4c0a7f3e-9b21-4d6e-8f5a-1c3b7e9d2a60
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:96 VP8/90000
        a=rtcp-fb:96 goog-remb
        a=rtcp-fb:96 transport-cc
        a=rtcp-fb:96 ccm fir
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=rtpmap:98 VP9/90000
        a=rtcp-fb:98 goog-remb
        a=rtcp-fb:98 transport-cc
        a=rtcp-fb:98 ccm fir
        a=rtcp-fb:98 nack
        a=rtcp-fb:98 nack pli
        a=fmtp:98 profile-id=0
        a=rtpmap:99 rtx/90000
        a=fmtp:99 apt=98
        a=rid:q send
        a=rid:h send
        a=rid:f send
        a=simulcast:send q;h;f

        """)
}
