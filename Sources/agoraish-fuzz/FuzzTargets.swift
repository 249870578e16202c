import AgoraishIO
import AgoraishServer
import AgoraishSession
import AgoraishWire

/// The parsers that take bytes from the network, a C caller or a file, each
/// behind one fuzz entry. Every entry must return normally for every input:
/// a trap or a sanitizer report is a bug.
enum FuzzTarget: String, CaseIterable {
    case rtp, rtcp, stun, websocket, http, signaling, client, token007, token006, video, data, json, sdp, dtls, sctp

    func run(_ data: [UInt8]) {
        switch self {
        case .rtp:
            data.withUnsafeBytes { raw in
                _ = MediaPacketKind.classify(raw)
                if let h = try? RtpHeader.parse(raw) {
                    precondition(h.payloadOffset + h.paddingLength <= raw.count, "payload within the packet")
                    if raw[0] & 0x10 != 0 {
                        _ = try? RtpHeaderExtension.parseOneByte(raw, at: 12 + 4 * Int(raw[0] & 0x0F))
                    }
                }
            }
        case .data:
            // Data-stream packets as a receiver reads them: cut into items of (RTP sequence,
            // reliable or not, header and payload) fed to one receiver; what it delivers
            // is always an item it was given.
            var receiver = DataStreamReceiver()
            var given: [DataStreamPacket.Header] = []
            var i = 0, now = Instant(nanoseconds: 1)
            while i + 3 + DataStreamPacket.headerSize <= data.count {
                let seq = UInt16(data[i]) << 8 | UInt16(data[i + 1]), flags = data[i + 2]
                let n = Int(flags >> 2)
                let end = min(data.count, i + 3 + DataStreamPacket.headerSize + n)
                let item = Array(data[(i + 3)..<end])
                i = end
                now = now + .milliseconds(Int64(flags & 0x2) * 1000)
                guard let header = item.withUnsafeBytes({ DataStreamPacket.Header.parse($0) }) else { continue }
                given.append(header)
                let payload = Array(item.dropFirst(DataStreamPacket.headerSize))
                let out = flags & 0x1 != 0
                    ? receiver.receivedUnreliable(header: header, payload: payload)
                    : receiver.receivedReliable(sequence: seq, header: header, payload: payload, now: now) + receiver.poll(now: now)
                _ = receiver.nacks(now: now, rtt: .milliseconds(20))
                for case .deliver(let d) in out { precondition(given.contains(d.header), "delivers only what it was given") }
            }
        case .video:
            // Video RTP payloads: the VP8 and VP9 descriptors, the keyframe tests
            // the server makes, and both assemblers fed the input cut into packets.
            data.withUnsafeBytes { raw in
                if let d = try? VP8Payload.parse(raw) { precondition(d.length < raw.count, "VP8 descriptor within") }
                if let d = try? VP9Payload.parse(raw) { precondition(d.length < raw.count, "VP9 descriptor within") }
                _ = VP8Payload.startsKeyframe(raw)
                _ = VP9Payload.startsKeyframe(raw)
            }
            for codec in [PayloadCodec.vp8, .vp9] {
                var assembler = VP8FrameAssembler(codec: codec, capacity: 64, patience: 2)
                var i = 0, seq: UInt16 = data.first.map { UInt16($0) << 8 } ?? 0
                while i + 2 <= data.count {
                    let n = Int(data[i] % 64) + 1, flags = data[i + 1]
                    let chunk = Array(data[(i + 2)..<min(data.count, i + 2 + n)])
                    seq = seq &+ UInt16(flags & 0x3)
                    chunk.withUnsafeBytes {
                        _ = assembler.insert(sequence: seq, timestamp: UInt32(flags >> 4) &* 3000,
                                             marker: flags & 0x4 != 0, payload: $0)
                    }
                    i += 2 + n
                }
            }
        case .rtcp:
            data.withUnsafeBytes { raw in
                _ = try? rtcpSenderSsrc(raw)
                let compound = RtcpCompound(raw)
                _ = compound.isWellFormed
                for p in compound { precondition(p.offset + p.length <= raw.count, "packet within the datagram") }
                // Every packet typed, as the engine and the server read them: what reads
                // writes back to the same values, and a packet of a known type writes
                // back to its own bytes unless it was padded or loosely encoded.
                for m in compound {
                    guard let packet = try? m.parse() else { continue }
                    let again = packet.serialized()
                    precondition(again.count == packet.encodedSize, "encodedSize is what serialize writes")
                    let back = again.withUnsafeBytes { try? RtcpPacket.parse($0) }
                    precondition(back == packet, "a parsed RTCP packet reads back from its serialization")
                    if let target = packet.feedbackTarget {
                        precondition(packet.retargeted(to: Ssrc(~target.rawValue)).feedbackTarget == Ssrc(~target.rawValue),
                                     "a retargeted feedback message names its new target")
                    }
                }
                if let packets = try? RtcpCompound.parse(raw) {
                    let bytes = RtcpCompound.serialized(packets)
                    precondition(bytes.withUnsafeBytes { try? RtcpCompound.parse($0) } == packets, "a compound reads back")
                }
                // Transport-wide feedback, as the engine and the server read it; a
                // recorder and an estimator fed from what the feedback says.
                var estimator = BandwidthEstimator()
                for _ in 0..<64 { _ = estimator.packetSent(size: 1200, at: Instant(nanoseconds: 1_000_000)) }
                if let f = try? TransportFeedback.parse(raw) {
                    estimator.feedbackReceived(f, at: Instant(nanoseconds: 2_000_000_000), rtt: .milliseconds(50))
                    var recorder = TransportFeedbackRecorder()
                    for (i, p) in f.packets.enumerated() where p.arrivalUs != nil {
                        recorder.record(p.sequence, at: Instant(nanoseconds: Int64(i) * 1_000_000))
                    }
                    for m in recorder.feedback(sender: 0, media: 0) {
                        precondition((try? TransportFeedback.parse(m)) != nil, "written feedback reads back")
                    }
                }
                if let (seq, offset) = TransportFeedback.sequenceNumber(in: raw) {
                    precondition(offset + 2 <= raw.count && UInt16(raw[offset]) << 8 | UInt16(raw[offset + 1]) == seq)
                }
            }
        case .stun:
            if let m = try? StunMessage.parse(data) {
                let again = try? StunMessage.parse(m.serialized(integrityKey: nil))
                precondition(again?.type == m.type, "a parsed message serializes back")
            }
            _ = try? StunMessage.parse(data, integrityKey: Array("password".utf8))
        case .websocket:
            var server = WebSocketConnection(role: .server, maxMessage: 4096)
            server.receive(data)
            while server.pollMessage() != nil {}
            _ = server.pollTransmit()
            var client = WebSocketConnection(role: .client, maxMessage: 4096)
            client.receive(data)
            while client.pollMessage() != nil {}
        case .dtls:
            Self.dtls(data)
        case .sctp:
            Self.sctp(data)
        case .http:
            if let (head, _) = try? HTTPHead.parse(data[...]) {
                _ = try? WebSocketHandshake.accept(head)
                _ = try? WebSocketHandshake.validate(response: head, key: "dGhlIHNhbXBsZSBub25jZQ==")
            }
        case .signaling:
            Self.signaling(String(decoding: data, as: UTF8.self))
        case .json:
            Self.json(String(decoding: data, as: UTF8.self))
        case .sdp:
            Self.sdp(String(decoding: data, as: UTF8.self))
        case .client:
            Self.client(String(decoding: data, as: UTF8.self))
        case .token007, .token006:
            let text = String(decoding: data, as: UTF8.self)
            let token = (self == .token007 ? "007" : "006") + text
            _ = try? AccessToken2.parse(token)
            _ = try? AccessToken006.parse(token)
            _ = TokenVerifier.checkJoin(token: token, appId: "970CA35de60c44645bbae8a215061b33",
                                        certificate: "5CFd2fd1755d40ecb72977518be15d3b", channel: "room",
                                        identity: .uid(7), privilege: .joinChannel, now: 1_700_000_000)
        }
    }

    /// `JSONValue.parse` (JSONValue+Parse.swift), `shape` and `serialized`: what
    /// parses serializes to text that parses again, and from there the value
    /// is stable. (Not from the first value: `9007199254740993.5` reads as a
    /// Double that is a whole number, which reads back as an integer.)
    static func json(_ text: String) {
        let shape = JSONValue.shape(text)
        precondition(shape.keys >= 0 && shape.values >= 1 && shape.depth >= 0, "a shape counts up")
        guard let value = try? JSONValue.parse(text) else { return }
        precondition(shape.depth <= JSONValue.maxParseDepth, "parse refuses deeper nesting")
        guard let again = try? JSONValue.parse(value.serialized) else { preconditionFailure("serialized JSON parses") }
        precondition((try? JSONValue.parse(again.serialized)) == again, "serialized JSON parses to the same value")
    }

    /// `SessionDescription.parse` and `WebRtcNegotiation.negotiate`
    /// (Sdp/): what parses serializes to text that parses back to an equal
    /// value, and an offer is answered (or refused) without a trap, with an
    /// answer that parses back to itself.
    static func sdp(_ text: String) {
        guard let offer = try? SessionDescription.parse(text) else { return }
        precondition((try? SessionDescription.parse(offer.serialized)) == offer, "parsed SDP reads back from its serialization")
        let stream = { (ssrc: UInt32, kind: String) in
            ReceiveStream(ssrc: ssrc, rtxSsrc: ssrc + 1, kind: kind, streamId: "agoraish-7", trackId: "\(kind)-7")
        }
        let parameters = WebRtcAnswerParameters(
            iceUfrag: "Srv1", icePassword: "serverpasswordserverpw1",
            fingerprint: (0..<32).map { _ in "AB" }.joined(separator: ":"), host: "2001:db8::7", port: 40000,
            receive: ["0": stream(10, "audio"), "1": stream(20, "video"), "2": stream(30, "video")],
            sessionId: 1, sessionVersion: 1)
        guard let n = try? WebRtcNegotiation.negotiate(offer: offer, parameters: parameters) else { return }
        precondition((try? SessionDescription.parse(n.answer.serialized)) == n.answer, "an answer reads back")
        precondition(n.answer.media.count == offer.media.count, "an answer has the offer's m-sections")
        precondition(n.receiving.isSubset(of: [10, 11, 20, 21, 30, 31]), "the answer announces only the server's streams")
    }

    /// Feeds server messages (one per line) to a client session that is joining,
    /// then lets a long time pass: nothing a server says may trap the client.
    static func client(_ text: String) {
        var s = ClientSession(settings: .init(appId: "0123456789abcdef0123456789abcdef"))
        var t = Instant(nanoseconds: 1_000_000_000)
        try? s.join(token: "", channel: "c", uid: 1, account: nil, now: t)
        s.transportOpened(now: t)
        s.received(text, now: t)
        for line in text.split(separator: "\n").prefix(32) {
            s.received(String(line), now: t)
            t = t + .milliseconds(700)
            s.handleTimeout(now: t)
        }
        s.handleTimeout(now: t + .seconds(3600))
        while s.pollTransmit() != nil {}
        while s.pollEvent() != nil {}
        _ = s.pollTimeout()
    }

    /// The certificate of every `dtls` run (a key per input would only be slower).
    static let dtlsCertificate = try? DtlsCertificate.generate(commonName: "fuzz")

    /// `DtlsEndpoint` as a server meeting a stranger: one fresh endpoint is fed
    /// the input as one datagram, another the input cut into datagrams (each a
    /// 2-byte big-endian length, then up to that many bytes); then both get
    /// their timer, a send, a close and a record after it. What they answer
    /// fits the MTU, `received` keeps its cap, and no keys come out (the input
    /// cannot finish a handshake against the server's fresh random).
    static func dtls(_ data: [UInt8]) {
        guard let certificate = dtlsCertificate else { return }
        func server() -> DtlsEndpoint? {
            try? DtlsEndpoint(role: .server, certificate: certificate, remoteFingerprint: ("sha-256", certificate.fingerprint),
                              profiles: [.aeadAes128Gcm, .aes128CmHmacSha1_80])
        }
        func check(_ out: [[UInt8]]) { precondition(out.allSatisfy { $0.count <= DtlsEndpoint.mtu }, "datagrams fit the MTU") }
        guard let whole = server(), let cut = server() else { return }
        check(data.withUnsafeBytes { whole.receive($0) })
        var i = 0, count = 0
        while i + 2 <= data.count && count < 64 {
            let n = Int(data[i]) << 8 | Int(data[i + 1])
            let datagram = Array(data[(i + 2)..<min(data.count, i + 2 + n)])
            check(datagram.withUnsafeBytes { cut.receive($0) })
            i += 2 + n
            count += 1
        }
        for endpoint in [whole, cut] {
            check(endpoint.handleTimeout())
            _ = endpoint.nextTimeout
            check(endpoint.send([1, 2, 3]))
            precondition(endpoint.received.count <= DtlsEndpoint.maxReceived, "received keeps its cap")
            precondition(endpoint.srtp == nil, "no keys from a stranger")
            check(endpoint.close())
            precondition(data.withUnsafeBytes { endpoint.receive($0) }.isEmpty, "nothing after close")
        }
    }

    /// `SctpAssociation` (usrsctp's packet parsing; the project's DCEP, channel
    /// and notification handling): the input as one packet to a fresh server;
    /// then, to the server of an established pair, cut into frames (a 2-byte
    /// big-endian length, a kind byte, up to that many bytes). Kind bit 0
    /// clear: the bytes are chunks. Set: they become one DATA chunk with the
    /// next TSN (2-byte stream, PPID 50 + byte % 8, U/B/E flags from the low
    /// bits of the next byte, then the payload), so DCEP and messages reach the
    /// channels. Each packet gets the pair's ports, verification tag and a
    /// valid CRC32c. Then timers, a send and a close on every channel, an abort.
    static func sctp(_ data: [UInt8]) {
        guard let fresh = try? SctpAssociation(role: .server) else { return }
        _ = fresh.receive(data)
        precondition(fresh.pollEvents().count <= SctpAssociation.maxEvents, "events keep their cap")
        guard let client = try? SctpAssociation(role: .client), let server = try? SctpAssociation(role: .server) else { return }
        let initPacket = client.start().first ?? []
        var toServer = [initPacket], toClient = server.start(), header: [UInt8] = []
        for _ in 0..<8 {
            for p in toServer { toClient += server.receive(p) }
            toServer = toClient.flatMap { client.receive($0) }
            toClient = []
            if let last = toServer.last { header = Array(last.prefix(8)) }  // ports, the server's verification tag
        }
        // The client's initial TSN (its INIT, RFC 9260 §3.3.2): the server expects it next.
        guard server.state == .up, header.count == 8, initPacket.count >= 32, initPacket[12] == 1 else { return }
        var tsn = initPacket[28..<32].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var ssn: [UInt16: UInt16] = [:]
        func be(_ v: UInt32, _ bytes: Int) -> [UInt8] { (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        var i = 0, count = 0
        while i + 3 <= data.count && count < 64 {
            let n = Int(data[i]) << 8 | Int(data[i + 1]), kind = data[i + 2]
            var chunks = Array(data[(i + 3)..<min(data.count, i + 3 + n)])
            i += 3 + n
            count += 1
            if kind & 1 == 1 && chunks.count >= 4 {
                let stream = UInt16(chunks[0]) << 8 | UInt16(chunks[1]), flags = chunks[3] & 0x07
                let sequence = ssn[stream, default: 0], payload = chunks[4...], length = 16 + payload.count
                if flags & 0x05 == 0x01 { ssn[stream] = sequence &+ 1 }  // an ordered message ends (E without U)
                chunks = [0x00, flags] + be(UInt32(length), 2) + be(tsn, 4) + be(UInt32(stream), 2) + be(UInt32(sequence), 2)
                    + be(50 + UInt32(chunks[2] % 8), 4) + payload + [UInt8](repeating: 0, count: (4 - length % 4) % 4)
                tsn &+= 1
            }
            _ = server.receive(SctpAssociation.withChecksum(header + [0, 0, 0, 0] + chunks))
        }
        SctpAssociation.handleTimers(elapsed: .milliseconds(200))
        _ = server.pollTransmits()
        precondition(server.pollEvents().count <= SctpAssociation.maxEvents, "events keep their cap")
        for channel in server.channels {
            _ = try? server.send(channel: channel, [1, 2, 3], binary: true)
            _ = try? server.close(channel: channel)
        }
        _ = server.close()
        precondition(server.state == .closed && server.channels.isEmpty, "an aborted association has no channels")
    }

    /// Feeds one message, then each line of it, to a core with users in a channel.
    static func signaling(_ text: String) {
        var config = ServerConfig()
        config.acceptUnknownApps = true
        var core = SignalingCore(config: config, clockBase: Instant(nanoseconds: 0), unixAtBase: 1_700_000_000, seed: 1)
        let a = ConnectionID(1), b = ConnectionID(2)
        let t = Instant(nanoseconds: 1_000_000)
        core.connected(a, address: "a", now: t)
        core.connected(b, address: "b", now: t)
        core.received(#"{"v":1,"type":"join","id":1,"app_id":"0123456789abcdef0123456789abcdef","channel":"c","uid":1}"#,
                      on: a, now: t)
        core.received(text, on: b, now: t)
        for line in text.split(separator: "\n").prefix(32) { core.received(String(line), on: b, now: t) }
        core.handleTimeout(now: t + .seconds(60))
        while core.pollTransmit() != nil {}
        while core.pollEvent() != nil {}
    }
}
