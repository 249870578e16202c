import AgoraishWire

/// What the media plane needs to serve a browser, from its last answered
/// offer (docs/protocol.md, `webrtc_offer`).
public struct WebRtcPeer: Equatable, Sendable {
    /// The browser's DTLS certificate fingerprint (its SDP `a=fingerprint`).
    public var fingerprintAlgorithm: String
    public var fingerprint: String
    /// The browser's payload types -> the engine's (Opus, VP8, VP9 and their RTX).
    public var payloadTypes: [UInt8: UInt8]
    /// The browser's ids of the audio level and transport-wide sequence
    /// number header extensions (0: not negotiated).
    public var audioLevelId: UInt8
    public var transportSequenceId: UInt8
    /// The server SSRCs (media and RTX) the answer told the browser it
    /// receives: the only ones forwarded to it.
    public var receiving: Set<UInt32>
    /// The answer accepted a data channel section: data streams reach the browser over SCTP.
    public var dataChannel: Bool

    public init(fingerprintAlgorithm: String, fingerprint: String, payloadTypes: [UInt8: UInt8], audioLevelId: UInt8,
                transportSequenceId: UInt8, receiving: Set<UInt32>, dataChannel: Bool = false) {
        self.fingerprintAlgorithm = fingerprintAlgorithm
        self.fingerprint = fingerprint
        self.payloadTypes = payloadTypes
        self.audioLevelId = audioLevelId
        self.transportSequenceId = transportSequenceId
        self.receiving = receiving
        self.dataChannel = dataChannel
    }
}

extension SignalingCore {
    /// A browser's offer: checked, answered, and its transport handed to the
    /// media plane. Errors: -113 without a session, -5 `not_webrtc` for a
    /// session that did not join with `webrtc`, -2 `bad_field:sdp` for an
    /// offer that does not parse or cannot be answered, -2
    /// `bad_field:receive` for a receiving m-section naming a stream that is
    /// not a visible member's audio or high video stream in the channel.
    mutating func webrtcOffer(_ f: MessageFields, _ conn: ConnectionID, _ now: Instant) throws(SignalingFailure) {
        guard let sid = connections[conn]!.session, let s = sessions[sid] else { throw .code(-113, "not_in_channel") }
        guard s.webrtc, let grant = s.media, let endpoint = mediaEndpoint, let fingerprint = dtlsFingerprint else {
            throw .code(-5, "not_webrtc")
        }
        let request = try Signaling.WebRtcOffer(f)
        var receive: [String: ReceiveStream] = [:]
        let streams = visibleStreams(Set(request.receive.map(\.ssrc)), in: s)
        for r in request.receive {
            guard let (uid, stream) = streams[r.ssrc], stream.layer == VideoStreamLayer.high,
                  r.rtxSsrc == 0 || r.rtxSsrc == stream.rtx else { throw .badField("receive") }
            let pt = PayloadType(stream.payloadType)
            guard pt.isAudio || pt.isVideoMedia else { throw .badField("receive") }
            let kind = pt.isAudio ? "audio" : "video"
            receive[r.mid] = ReceiveStream(ssrc: r.ssrc, rtxSsrc: r.rtxSsrc, kind: kind, streamId: "agoraish-\(uid)",
                                           trackId: "\(kind)-\(uid)")
        }
        let negotiation: WebRtcNegotiation
        do {
            let offer = try SessionDescription.parse(request.sdp)
            sessions[sid]!.answerVersion += 1
            let parameters = WebRtcAnswerParameters(
                iceUfrag: grant.iceUfrag, icePassword: grant.icePassword, fingerprint: fingerprint,
                host: endpoint.host, port: endpoint.port, receive: receive, sessionId: sid,
                sessionVersion: sessions[sid]!.answerVersion)
            negotiation = try WebRtcNegotiation.negotiate(offer: offer, parameters: parameters)
        } catch {
            throw .badField("sdp")
        }
        var types: [UInt8: UInt8] = [:]
        for (theirs, ours) in negotiation.payloadTypes { types[theirs] = ours.rawValue }
        let peer = WebRtcPeer(fingerprintAlgorithm: negotiation.remoteFingerprint.algorithm,
                              fingerprint: negotiation.remoteFingerprint.value, payloadTypes: types,
                              audioLevelId: negotiation.audioLevelId, transportSequenceId: negotiation.transportSequenceId,
                              receiving: negotiation.receiving, dataChannel: negotiation.sctpPort != nil)
        mediaCommands.append(.webrtcNegotiated(session: sid, peer))
        send(conn, Signaling.WebRtcAnswer(sdp: negotiation.answer.serialized), id: f.id)
    }

    /// The publishers and streams of the server SSRCs `wanted` in `s`'s
    /// channel whose publisher is another member visible to `s`; one walk of the channel.
    func visibleStreams(_ wanted: Set<UInt32>, in s: Session) -> [UInt32: (UInt32, PublishedStream)] {
        guard !wanted.isEmpty, let channel = channels[s.key] else { return [:] }
        var found: [UInt32: (UInt32, PublishedStream)] = [:]
        for (uid, other) in channel.members where uid != s.uid {
            guard let o = sessions[other], isVisible(o) else { continue }
            for stream in o.streams where wanted.contains(stream.ssrc) { found[stream.ssrc] = (uid, stream) }
        }
        return found
    }
}
