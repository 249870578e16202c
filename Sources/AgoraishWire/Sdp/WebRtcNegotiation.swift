// The server's answer to a browser's offer (JSEP, RFC 8829 §5.3): one ICE-lite
// transport (RFC 8445 §2.5) with every accepted m-section bundled on it
// (RFC 8843), DTLS-SRTP with the server as the DTLS server (RFC 5763), and
// only the codecs and header extensions the media plane speaks.

/// What the server sends a browser in one m-section: a stream of another
/// participant, announced with `a=msid` and `a=ssrc` lines (RFC 8830, RFC 5576).
public struct ReceiveStream: Sendable, Equatable {
    /// The SSRC the server sends the media with.
    public var ssrc: UInt32
    /// The SSRC of its retransmissions (RFC 4588), 0 for none.
    public var rtxSsrc: UInt32
    /// "audio" or "video": must be the m-section's kind.
    public var kind: String
    /// The MediaStream id of `a=msid` and `a=ssrc msid:` (1 to 64 token characters).
    public var streamId: String
    /// The track id of `a=msid` and `a=ssrc msid:` (1 to 64 token characters).
    public var trackId: String

    /// A stream the server sends.
    public init(ssrc: UInt32, rtxSsrc: UInt32, kind: String, streamId: String, trackId: String) {
        self.ssrc = ssrc
        self.rtxSsrc = rtxSsrc
        self.kind = kind
        self.streamId = streamId
        self.trackId = trackId
    }
}

/// What the browser will send in one accepted m-section.
public struct SentStream: Sendable, Equatable {
    /// The m-section's mid.
    public var mid: String
    /// "audio" or "video".
    public var kind: String
    /// Its SSRC from the offer's `a=ssrc` lines; 0 when the offer names none
    /// (a simulcast offer with `a=rid`: the browser then picks one the
    /// server learns from the first packet).
    public var ssrc: UInt32
    /// Its RTX SSRC from `a=ssrc-group:FID`; 0 when none, or when the answer
    /// accepted no RTX codec in the section.
    public var rtxSsrc: UInt32

    /// A stream the browser sends.
    public init(mid: String, kind: String, ssrc: UInt32, rtxSsrc: UInt32) {
        self.mid = mid
        self.kind = kind
        self.ssrc = ssrc
        self.rtxSsrc = rtxSsrc
    }
}

/// The server's side of the answer: its ICE credentials, certificate, the
/// one address it listens on, and what it sends in which m-section.
public struct WebRtcAnswerParameters: Sendable {
    /// The server's ICE ufrag (4 to 256 ice-chars, RFC 8839 §5.4).
    public var iceUfrag: String
    /// The server's ICE password (22 to 256 ice-chars).
    public var icePassword: String
    /// The SHA-256 fingerprint of the server's DTLS certificate, "AB:CD:..." (32 bytes).
    public var fingerprint: String
    /// The address of the one host candidate (UDP), an IPv4 or IPv6 literal
    /// without brackets.
    public var host: String
    /// The UDP port of the host candidate (1...65535).
    public var port: UInt16
    /// mid -> the stream the server sends in that m-section.
    public var receive: [String: ReceiveStream]
    /// The answer's `o=` session id.
    public var sessionId: UInt64
    /// The answer's `o=` session version: raise it for each new answer in a session.
    public var sessionVersion: UInt64

    /// The parameters of one answer.
    public init(iceUfrag: String, icePassword: String, fingerprint: String, host: String, port: UInt16,
                receive: [String: ReceiveStream] = [:], sessionId: UInt64, sessionVersion: UInt64) {
        self.iceUfrag = iceUfrag
        self.icePassword = icePassword
        self.fingerprint = fingerprint
        self.host = host
        self.port = port
        self.receive = receive
        self.sessionId = sessionId
        self.sessionVersion = sessionVersion
    }
}

/// A browser's offer answered: the answer to send back and what the media
/// plane needs to know about the browser's transport and streams.
///
/// The rules, in `negotiate`'s order:
/// - The offer needs a BUNDLE group (RFC 8843). Its transport (ICE ufrag,
///   password, fingerprint, setup) is read from the first m-section the group
///   names (the offerer's tag), a section's own attributes overriding the
///   session's. It needs ice-ufrag, ice-pwd, a sha-256, sha-384 or sha-512
///   fingerprint, and `a=setup:actpass` or `active`: the server is always the
///   DTLS server and answers `a=setup:passive` (RFC 8842 §5.3).
/// - An m-section is accepted when it is audio or video over
///   UDP/TLS/RTP/SAVPF, has a mid the BUNDLE group names, a port (or
///   `a=bundle-only`), `a=rtcp-mux`, and a codec the server takes: audio
///   opus/48000/2 (answered with `minptime=10;useinbandfec=1`); video VP8 and
///   VP9 (profile-id 0 or none), each with its RTX (`apt=`). Only the first
///   payload type of each codec is taken; one that another section uses for a
///   different codec, or in 64...95 (RFC 5761 §4), is left out. Everything
///   else (H264, AV1, red, ulpfec, CN, telephone-event, ...) is rejected: port 0, its kind, proto and formats echoed, its mid kept,
///   out of the answer's BUNDLE group (RFC 8843 §7.3.3).
/// - Header extensions: only the audio level (RFC 6464) and the
///   transport-wide sequence number, with the offer's ids, when the id is
///   1...14 and the same in every accepted section that offers the URI.
/// - Directions: sendonly -> recvonly; recvonly -> sendonly when the server
///   has a `ReceiveStream` for the mid, else inactive; sendrecv -> sendrecv
///   with a stream, else recvonly; inactive -> inactive.
/// - Simulcast (`a=simulcast`, `a=rid`) is not answered, so the browser
///   sends one stream, its first encoding (webrtc-pc §4.4.1.6: the encodings
///   the answer does not accept are removed); nor are the mid and rid header
///   extensions, so the server tells streams apart by SSRC (from the offer
///   when it names them; Chrome's simulcast offers do not) and payload type.
/// - `a=extmap-allow-mixed` is not answered: the browser then writes one-byte
///   extension headers only.
/// - Data channels: the first bundled `m=application` section with proto
///   `UDP/DTLS/SCTP` and format `webrtc-datachannel` (RFC 8841) is accepted
///   with `a=sctp-port:5000` and `a=max-message-size:65536`; any other
///   application section is rejected.
public struct WebRtcNegotiation: Sendable {
    /// The answer; `answer.serialized` is the text for the browser.
    public var answer: SessionDescription
    /// The browser's ICE ufrag (the second half of the USERNAME of its checks).
    public var remoteUfrag: String
    /// The browser's ICE password (the key of MESSAGE-INTEGRITY in the server's responses).
    public var remotePassword: String
    /// The fingerprint the browser's DTLS certificate must match; the
    /// algorithm in lower case ("sha-256", "sha-384" or "sha-512").
    public var remoteFingerprint: SdpFingerprint
    /// The browser's payload type -> the project's (`PayloadType.opus`,
    /// `.vp8`, `.vp9` and their RTX), for every codec the answer accepted.
    public var payloadTypes: [UInt8: PayloadType]
    /// The browser's one-byte extension id of the audio level
    /// (urn:ietf:params:rtp-hdrext:ssrc-audio-level); 0 when not negotiated.
    public var audioLevelId: UInt8
    /// The browser's one-byte extension id of the transport-wide sequence
    /// number (draft-holmer-rmcat-transport-wide-cc-extensions-01); 0 when not negotiated.
    public var transportSequenceId: UInt8
    /// What the browser will send: one entry per accepted m-section whose
    /// answered direction lets it send, in m-section order.
    public var sending: [SentStream]
    /// Every SSRC (media and RTX) the answer tells the browser it will receive.
    public var receiving: Set<UInt32>
    /// The mids of the accepted m-sections, in order: the answer's BUNDLE group.
    public var bundle: [String]
    /// The browser's SCTP port when the answer accepted a data channel section (nil: none).
    public var sctpPort: UInt16?

    /// The SCTP port of the server's end of the data channels.
    public static let serverSctpPort: UInt16 = 5000
    /// The largest data channel message the server takes (RFC 8841 §6).
    public static let maxDataMessage = 65536
    /// The transport of data channels (RFC 8841).
    public static let dataProto = "UDP/DTLS/SCTP"

    /// The URI of the audio level header extension (RFC 6464).
    public static let audioLevelUri = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
    /// The URI of the transport-wide sequence number header extension.
    public static let transportSequenceUri = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    /// The only transport this server answers.
    public static let proto = "UDP/TLS/RTP/SAVPF"
    /// The video feedback the answer keeps when offered (RFC 4585, RFC 5104,
    /// draft-alvestrand-rmcat-remb, transport-wide cc).
    static let videoFeedback: Set<String> = ["nack", "nack pli", "ccm fir", "goog-remb", "transport-cc"]

    /// Answers `offer` (module comment and the rules above). Throws
    /// `unsupported` naming what is missing or refused: "no BUNDLE group",
    /// "no ice-ufrag", "no ice-pwd", "no fingerprint", "no setup",
    /// "setup:passive", "no m-section to accept", a receive stream whose kind
    /// is not its section's, or parameters that would not make valid SDP.
    public static func negotiate(offer: SessionDescription, parameters: WebRtcAnswerParameters) throws(SdpError)
        -> WebRtcNegotiation
    {
        try check(parameters)
        guard let group = offer.groups.first(where: { $0.semantics == "BUNDLE" }) else {
            throw .unsupported("no BUNDLE group")
        }
        var mids = Set<String>()
        for m in offer.media {
            if let mid = m.mid, !mids.insert(mid).inserted { throw .unsupported("a mid used twice") }
        }
        let bundled = Set(group.mids)
        guard let tag = group.mids.lazy.compactMap({ mid in offer.media.first { $0.mid == mid } }).first else {
            throw .unsupported("BUNDLE names no m-section")
        }
        let transport = try remoteTransport(offer, tag)

        // Codecs, section by section; a payload type keeps one meaning across the bundle.
        var payloadTypes: [UInt8: PayloadType] = [:]
        var plans: [SectionPlan?] = []
        var dataMid: String? = nil
        for m in offer.media {
            if dataMid == nil, m.kind == "application", let mid = m.mid, bundled.contains(mid), m.proto == dataProto,
               m.formats == ["webrtc-datachannel"], m.port != 0 || m.isBundleOnly {
                dataMid = mid
                plans.append(SectionPlan(data: mid))
                continue
            }
            guard let mid = m.mid, bundled.contains(mid), m.kind == "audio" || m.kind == "video", m.proto == proto,
                  m.port != 0 || m.isBundleOnly, m.rtcpMux || offer.attribute(named: "rtcp-mux") != nil
            else { plans.append(nil); continue }
            let plan = SectionPlan(m, mid: mid, taken: payloadTypes)
            guard plan.codecs.contains(where: { !$0.isRtx }) else { plans.append(nil); continue }
            for c in plan.codecs { payloadTypes[c.offered.payloadType] = c.ours }
            plans.append(plan)
        }
        guard plans.contains(where: { $0 != nil }) else { throw .unsupported("no m-section to accept") }
        let accepted = zip(offer.media, plans).compactMap { m, p in p.map { (m, $0) } }
        var level = extensionId(audioLevelUri, in: accepted.map(\.0))
        var transportSequence = extensionId(transportSequenceUri, in: accepted.map(\.0))
        if level != nil, level == transportSequence { (level, transportSequence) = (nil, nil) }

        var answer = SessionDescription(
            origin: SdpOrigin(sessionId: parameters.sessionId, sessionVersion: parameters.sessionVersion),
            attributes: [SdpAttribute("ice-lite"),
                         SdpAttribute("group", (["BUNDLE"] + accepted.map(\.1.mid)).joined(separator: " ")),
                         SdpAttribute("msid-semantic", " WMS *")])
        var sending: [SentStream] = [], receiving = Set<UInt32>()
        var sctpPort: UInt16? = nil
        for (m, plan) in zip(offer.media, plans) {
            guard let plan else { answer.media.append(rejected(m)); continue }
            if plan.isData {
                var section = plan.dataAnswer(parameters)
                section.attributes += [SdpAttribute("candidate", "1 1 udp 2130706431 \(parameters.host) \(parameters.port) typ host"),
                                       SdpAttribute("end-of-candidates")]
                answer.media.append(section)
                sctpPort = m.sctpPort ?? serverSctpPort
                continue
            }
            let stream = parameters.receive[plan.mid]
            let offered = offer.direction(of: m)
            if let stream, offered.receives, stream.kind != m.kind {
                throw .unsupported("a receive stream's kind is not its m-section's")
            }
            let direction: SdpDirection = switch offered {
            case .sendonly: .recvonly
            case .recvonly: stream == nil ? .inactive : .sendonly
            case .sendrecv: stream == nil ? .recvonly : .sendrecv
            case .inactive: .inactive
            }
            let hasRtx = plan.codecs.contains(where: \.isRtx)
            var section = plan.answer(m, parameters: parameters, direction: direction,
                                      extensions: [(audioLevelUri, level), (transportSequenceUri, transportSequence)])
            if direction.sends, let stream {
                let rtx = hasRtx ? stream.rtxSsrc : 0
                section.attributes += announce(stream, rtx: rtx)
                receiving.insert(stream.ssrc)
                if rtx != 0 { receiving.insert(rtx) }
            }
            section.attributes += [SdpAttribute("candidate", "1 1 udp 2130706431 \(parameters.host) \(parameters.port) typ host"),
                                   SdpAttribute("end-of-candidates")]
            answer.media.append(section)
            if direction.receives {
                let (ssrc, rtx) = offeredSsrcs(m)
                sending.append(SentStream(mid: plan.mid, kind: m.kind, ssrc: ssrc, rtxSsrc: hasRtx ? rtx : 0))
            }
        }
        return WebRtcNegotiation(
            answer: answer, remoteUfrag: transport.ufrag, remotePassword: transport.password,
            remoteFingerprint: transport.fingerprint, payloadTypes: payloadTypes,
            audioLevelId: UInt8(level ?? 0), transportSequenceId: UInt8(transportSequence ?? 0),
            sending: sending, receiving: receiving, bundle: accepted.map(\.1.mid), sctpPort: sctpPort)
    }

    /// The offer's transport, from the BUNDLE tag section (RFC 8843 §7.3.1).
    private static func remoteTransport(_ offer: SessionDescription, _ tag: MediaDescription) throws(SdpError)
        -> (ufrag: String, password: String, fingerprint: SdpFingerprint)
    {
        guard let ufrag = offer.iceUfrag(for: tag) else { throw .unsupported("no ice-ufrag") }
        guard let password = offer.icePassword(for: tag) else { throw .unsupported("no ice-pwd") }
        let fingerprints = offer.fingerprints(for: tag)
        guard !fingerprints.isEmpty else { throw .unsupported("no fingerprint") }
        let lengths = ["sha-256": 32, "sha-384": 48, "sha-512": 64]
        let usable = fingerprints.compactMap { f -> SdpFingerprint? in
            let algorithm = f.algorithm.lowercased()
            guard let n = lengths[algorithm], f.value.utf8.count == 3 * n - 1 else { return nil }
            return SdpFingerprint(algorithm: algorithm, value: f.value)
        }
        guard let fingerprint = usable.first(where: { $0.algorithm == "sha-256" }) ?? usable.first else {
            throw .unsupported("no sha-256, sha-384 or sha-512 fingerprint")
        }
        switch offer.setup(for: tag) {
        case nil: throw .unsupported("no setup")
        case .actpass?, .active?: break
        case let other?: throw .unsupported("setup:\(other.rawValue) (the server is always the DTLS server)")
        }
        return (ufrag, password, fingerprint)
    }

    /// Refuses parameters that would write an answer the browser cannot read.
    private static func check(_ p: WebRtcAnswerParameters) throws(SdpError) {
        guard isIceText(Substring(p.iceUfrag), 4...256) else { throw .unsupported("parameters: ice ufrag") }
        guard isIceText(Substring(p.icePassword), 22...256) else { throw .unsupported("parameters: ice password") }
        guard SdpFingerprint.parse("sha-256 " + p.fingerprint)?.value.utf8.count == 95 else {
            throw .unsupported("parameters: fingerprint")
        }
        guard !p.host.isEmpty, p.host.utf8.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ":") })
        else { throw .unsupported("parameters: host") }
        guard p.port != 0 else { throw .unsupported("parameters: port") }
        for (mid, s) in p.receive {
            guard s.ssrc != 0, s.ssrc != s.rtxSsrc, isToken(s.streamId), isToken(s.trackId), isToken(mid) else {
                throw .unsupported("parameters: receive stream")
            }
        }
    }

    /// The id of `uri` when every accepted section that offers it gives the
    /// same one in 1...14.
    private static func extensionId(_ uri: String, in sections: [MediaDescription]) -> UInt16? {
        let ids = Set(sections.flatMap { $0.extensionMaps.filter { $0.uri == uri }.map(\.id) })
        guard ids.count == 1, let id = ids.first, (1...14).contains(id) else { return nil }
        return id
    }

    /// A rejected m-section (RFC 8829 §5.3.1, RFC 8843 §7.3.3).
    private static func rejected(_ m: MediaDescription) -> MediaDescription {
        var section = MediaDescription(kind: m.kind, port: 0, proto: m.proto, formats: m.formats,
                                       connection: SdpConnection())
        if let mid = m.mid { section.attributes.append(SdpAttribute("mid", mid)) }
        return section
    }

    /// The lines that announce a stream the server sends (RFC 8830 §2, RFC 5576 §4).
    private static func announce(_ s: ReceiveStream, rtx: UInt32) -> [SdpAttribute] {
        let msid = "\(s.streamId) \(s.trackId)"
        var lines = [SdpAttribute("msid", msid)]
        if rtx != 0 { lines.append(SdpAttribute("ssrc-group", "FID \(s.ssrc) \(rtx)")) }
        for ssrc in rtx != 0 ? [s.ssrc, rtx] : [s.ssrc] {
            lines += [SdpAttribute("ssrc", "\(ssrc) cname:agoraish"), SdpAttribute("ssrc", "\(ssrc) msid:\(msid)")]
        }
        return lines
    }

    /// The SSRC and RTX SSRC a section's offer names: the first FID group of
    /// two, else the first `a=ssrc` (0 for none).
    private static func offeredSsrcs(_ m: MediaDescription) -> (UInt32, UInt32) {
        if let fid = m.ssrcGroups.first(where: { $0.semantics == "FID" && $0.ssrcs.count == 2 }) {
            return (fid.ssrcs[0], fid.ssrcs[1])
        }
        return (m.ssrcs.first?.ssrc ?? 0, 0)
    }
}

/// Whether `s` is 1 to 64 token characters (RFC 8866 §9 token-char), as an
/// msid id or a mid must be.
func isToken(_ s: String) -> Bool {
    (1...64).contains(s.utf8.count) && s.utf8.allSatisfy { b in
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x5E && b <= 0x7E)
            || [0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E].contains(b)
    }
}

/// The codecs one accepted m-section answers with.
private struct SectionPlan {
    /// One accepted codec: as offered, and the project's payload type.
    struct Accepted {
        var offered: SdpCodec
        var ours: PayloadType
        var isRtx: Bool { ours == .opusRtx || ours.isVideoRtx }
    }

    var mid: String
    var codecs: [Accepted] = []
    /// A data channel section (no codecs).
    var isData = false

    init(data mid: String) {
        self.mid = mid
        isData = true
    }

    /// The accepted data channel section (RFC 8841 §5).
    func dataAnswer(_ p: WebRtcAnswerParameters) -> MediaDescription {
        let ip6 = p.host.utf8.contains(UInt8(ascii: ":"))
        var s = MediaDescription(kind: "application", port: 9, proto: WebRtcNegotiation.dataProto,
                                 formats: ["webrtc-datachannel"],
                                 connection: SdpConnection(addressType: ip6 ? "IP6" : "IP4", address: ip6 ? "::" : "0.0.0.0"))
        s.attributes = [SdpAttribute("mid", mid), SdpAttribute("ice-ufrag", p.iceUfrag), SdpAttribute("ice-pwd", p.icePassword),
                        SdpAttribute("fingerprint", "sha-256 \(p.fingerprint)"), SdpAttribute("setup", "passive"),
                        SdpAttribute("sctp-port", String(WebRtcNegotiation.serverSctpPort)),
                        SdpAttribute("max-message-size", String(WebRtcNegotiation.maxDataMessage))]
        return s
    }

    /// Takes the section's codecs the server speaks, in the offer's order;
    /// `taken` is what earlier sections made of each payload type.
    init(_ m: MediaDescription, mid: String, taken: [UInt8: PayloadType]) {
        self.mid = mid
        let offered = m.codecs
        func usable(_ c: SdpCodec, as ours: PayloadType) -> Bool {
            !(64...95).contains(c.payloadType) && (taken[c.payloadType] ?? ours) == ours
                && !codecs.contains { $0.ours == ours }
        }
        for c in offered {
            let name = c.name.lowercased()
            let ours: PayloadType? = switch (m.kind, name) {
            case ("audio", "opus") where c.clockRate == 48000 && c.channels == 2: .opus
            case ("video", "vp8") where c.clockRate == 90000: .vp8
            case ("video", "vp9") where c.clockRate == 90000 && (c.parameter("profile-id") ?? "0") == "0": .vp9
            default: nil
            }
            if let ours, usable(c, as: ours) { codecs.append(Accepted(offered: c, ours: ours)) }
        }
        // RTX (RFC 4588 §8.1) of a codec taken above.
        let media = codecs
        for c in offered where c.name.lowercased() == "rtx" && c.clockRate == (m.kind == "audio" ? 48000 : 90000) {
            guard let apt = c.parameter("apt").flatMap({ number(Substring($0), as: UInt8.self) }),
                  let base = media.first(where: { $0.offered.payloadType == apt }), let ours = base.ours.rtx,
                  usable(c, as: ours) else { continue }
            codecs.append(Accepted(offered: c, ours: ours))
        }
        // Every accepted codec is one of `offered`, whose payload types are distinct.
        let order = Dictionary(offered.enumerated().map { ($1.payloadType, $0) }, uniquingKeysWith: { a, _ in a })
        codecs.sort { order[$0.offered.payloadType]! < order[$1.offered.payloadType]! }
    }

    /// The accepted section: transport, direction, codecs, extensions.
    func answer(_ m: MediaDescription, parameters p: WebRtcAnswerParameters, direction: SdpDirection,
                extensions: [(String, UInt16?)]) -> MediaDescription {
        let ip6 = p.host.utf8.contains(UInt8(ascii: ":"))
        var s = MediaDescription(kind: m.kind, port: 9, proto: WebRtcNegotiation.proto,
                                 formats: codecs.map { String($0.offered.payloadType) },
                                 connection: SdpConnection(addressType: ip6 ? "IP6" : "IP4", address: ip6 ? "::" : "0.0.0.0"))
        var a = [SdpAttribute("mid", mid), SdpAttribute("ice-ufrag", p.iceUfrag), SdpAttribute("ice-pwd", p.icePassword),
                 SdpAttribute("fingerprint", "sha-256 \(p.fingerprint)"), SdpAttribute("setup", "passive"),
                 SdpAttribute("rtcp-mux")]
        if m.rtcpRsize { a.append(SdpAttribute("rtcp-rsize")) }
        a.append(SdpAttribute(direction.rawValue))
        for c in codecs {
            let pt = c.offered.payloadType
            let channels = c.ours == .opus ? "/2" : ""
            a.append(SdpAttribute("rtpmap", "\(pt) \(c.offered.name)/\(c.offered.clockRate)\(channels)"))
            var feedback: [String] = []
            if c.isRtx {
                // An RTX codec is accepted only with an apt naming an accepted codec.
                a.append(SdpAttribute("fmtp", "\(pt) apt=\(c.offered.parameter("apt")!)"))
            } else if c.ours == .opus {
                a.append(SdpAttribute("fmtp", "\(pt) minptime=10;useinbandfec=1"))
                feedback = c.offered.feedback.contains("transport-cc") ? ["transport-cc"] : []
            } else {
                if c.ours == .vp9, c.offered.parameter("profile-id") != nil { a.append(SdpAttribute("fmtp", "\(pt) profile-id=0")) }
                var seen = Set<String>()
                feedback = c.offered.feedback.filter { WebRtcNegotiation.videoFeedback.contains($0) && seen.insert($0).inserted }
            }
            a += feedback.map { SdpAttribute("rtcp-fb", "\(pt) \($0)") }
        }
        for (uri, id) in extensions {
            guard let id, m.extensionMaps.contains(where: { $0.uri == uri }) else { continue }
            a.append(SdpAttribute("extmap", "\(id) \(uri)"))
        }
        s.attributes = a
        return s
    }
}
