import AgoraishWire
import CUsrsctp
import Glibc

// One association's state over its usrsctp socket, behind `SctpAssociation`
// (SCTP.swift): the socket, the calls, what usrsctp hands back, and DCEP.

// MARK: - One association's state

/// What usrsctp's receive callback handed over, waiting for `SctpCore.process()`.
enum SctpInbound {
    /// A message or a piece of one (`complete` false until the last).
    case data([UInt8], stream: UInt16, ppid: UInt32, complete: Bool)
    /// A notification (union sctp_notification), whole.
    case notification([UInt8])
}

/// One association's socket and state. Touched only under `SctpStack`'s
/// lock: by the association's calls, by the callbacks inside them, and by
/// `handleTimers` on whichever thread drives the timers.
final class SctpCore {
    /// A data channel (RFC 8831 §6.4).
    struct Channel {
        var ordered: Bool
        /// SCTP_PR_SCTP_NONE, _RTX or _TTL, and its value (retransmissions or ms).
        var policy: UInt16
        var policyValue: UInt32
        /// Opened here and neither ACK nor any message came back yet: send ordered (RFC 8832 §6).
        var awaitingAck: Bool
        /// This side asked to reset its outgoing stream (`close(channel:)` or in answer).
        var closing = false
        /// The peer reset its outgoing stream (our incoming); `.closed` was reported.
        var peerReset = false
        /// Our outgoing reset completed.
        var resetDone = false
    }

    /// A message being reassembled from partial deliveries, or dropped to its end.
    struct Partial {
        var bytes: [UInt8] = []
        var discarding = false
    }

    let id: UInt
    /// The AF_CONN address: the id as a pointer (never dereferenced), also the socket's ulp_info.
    let address: UnsafeMutableRawPointer
    let role: SctpAssociation.Role
    let remotePort: UInt16
    private var socket: OpaquePointer?
    private(set) var state: SctpAssociation.State = .new
    var drops = SctpAssociation.Drops()
    /// Packets for the owner, oldest first.
    private var outbox: [[UInt8]] = []
    /// What the receive callback handed over.
    var inbox: [SctpInbound] = []
    /// Events for `pollEvents`, oldest first, and the message bytes they hold.
    var events: [SctpAssociation.Event] = []
    var eventBytes = 0
    private(set) var channels: [UInt16: Channel] = [:]
    private var partial: [UInt16: Partial] = [:]
    /// Streams the association has each way (from SCTP_COMM_UP).
    private var outboundStreams: UInt16 = 0
    private var inboundStreams: UInt16 = 0

    init(id: UInt, role: SctpAssociation.Role, remotePort: UInt16) {
        self.id = id
        self.address = UnsafeMutableRawPointer(bitPattern: id)!  // ids start at 1
        self.role = role
        self.remotePort = remotePort
    }

    // MARK: Socket

    /// usrsctp_socket on AF_CONN, one-to-one, with the receive callback, then
    /// the options of a WebRTC data-channel transport, then bind to our address.
    func openSocket(port: UInt16, maxPacketSize: Int) throws(SctpError) {
        guard let s = usrsctp_socket(AF_CONN, Int32(SOCK_STREAM.rawValue), Int32(IPPROTO_SCTP), sctpReceive, nil, 0, address) else {
            throw .setup(SocketError(call: "usrsctp_socket", errno: errno).description)
        }
        socket = s
        func set<T: BitwiseCopyable>(_ name: String, _ level: Int32, _ option: Int32, _ value: T) throws(SctpError) {
            var v = value
            guard usrsctp_setsockopt(s, level, option, &v, socklen_t(MemoryLayout<T>.size)) == 0 else {
                throw .setup(SocketError(call: name, errno: errno).description)
            }
        }
        guard usrsctp_set_non_blocking(s, 1) == 0 else { throw .setup(SocketError(call: "usrsctp_set_non_blocking", errno: errno).description) }
        // Closing aborts (no graceful SHUTDOWN that would outlive the association).
        try set("SO_LINGER", SOL_SOCKET, SO_LINGER, linger(l_onoff: 1, l_linger: 0))
        try set("SO_SNDBUF", SOL_SOCKET, SO_SNDBUF, SctpAssociation.bufferSize)
        try set("SO_RCVBUF", SOL_SOCKET, SO_RCVBUF, SctpAssociation.bufferSize)
        try set("SCTP_ENABLE_STREAM_RESET", Int32(IPPROTO_SCTP), SCTP_ENABLE_STREAM_RESET,
                sctp_assoc_value(assoc_id: sctp_assoc_t(SCTP_ALL_ASSOC), assoc_value: UInt32(SCTP_ENABLE_RESET_STREAM_REQ)))
        try set("SCTP_RECVRCVINFO", Int32(IPPROTO_SCTP), SCTP_RECVRCVINFO, Int32(1))
        try set("SCTP_NODELAY", Int32(IPPROTO_SCTP), SCTP_NODELAY, Int32(1))  // RFC 8831 §6.6: no Nagle
        // Partial deliveries of one message at a time, never interleaved with others (RFC 6458 §8.1.20).
        try set("SCTP_FRAGMENT_INTERLEAVE", Int32(IPPROTO_SCTP), SCTP_FRAGMENT_INTERLEAVE, Int32(0))
        for type in [SCTP_ASSOC_CHANGE, SCTP_STREAM_RESET_EVENT] {
            try set("SCTP_EVENT", Int32(IPPROTO_SCTP), SCTP_EVENT,
                    sctp_event(se_assoc_id: sctp_assoc_t(SCTP_ALL_ASSOC), se_type: UInt16(type), se_on: 1))
        }
        try set("SCTP_INITMSG", Int32(IPPROTO_SCTP), SCTP_INITMSG,
                sctp_initmsg(sinit_num_ostreams: SctpAssociation.maxStreams, sinit_max_instreams: SctpAssociation.maxStreams,
                             sinit_max_attempts: 0, sinit_max_init_timeo: 0))
        // A fixed path MTU, no discovery (RFC 8261 §5); heartbeats on. Over AF_CONN,
        // usrsctp takes spp_pathmtu as the room for chunks and adds the 12-byte
        // common header (sctp_usrreq.c, SPP_PMTUD_DISABLE).
        var path = sctp_paddrparams()
        path.spp_assoc_id = sctp_assoc_t(SCTP_FUTURE_ASSOC)
        path.spp_flags = UInt32(SPP_PMTUD_DISABLE | SPP_HB_ENABLE)
        path.spp_pathmtu = UInt32(maxPacketSize - sctpCommonHeaderSize)
        try set("SCTP_PEER_ADDR_PARAMS", Int32(IPPROTO_SCTP), SCTP_PEER_ADDR_PARAMS, path)
        var local = connAddress(port: port)
        let bound = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { usrsctp_bind(s, $0, socklen_t(MemoryLayout<sockaddr_conn>.size)) }
        }
        guard bound == 0 else { throw .setup(SocketError(call: "usrsctp_bind", errno: errno).description) }
    }

    /// Aborts the association (SO_LINGER 0) and frees the socket.
    func closeSocket() {
        guard let s = socket else { return }
        socket = nil
        usrsctp_close(s)
    }

    /// Our AF_CONN address with `port` (network order).
    private func connAddress(port: UInt16) -> sockaddr_conn {
        var a = sockaddr_conn()
        a.sconn_family = UInt16(AF_CONN)
        a.sconn_port = port.bigEndian
        a.sconn_addr = address
        return a
    }

    // MARK: Calls

    /// usrsctp_connect to the peer's port at our own AF_CONN address (the
    /// packets go wherever the owner sends them). Once.
    func start() {
        guard state == .new, let s = socket else { return }
        state = .connecting
        var remote = connAddress(port: remotePort)
        let rc = withUnsafeMutablePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { usrsctp_connect(s, $0, socklen_t(MemoryLayout<sockaddr_conn>.size)) }
        }
        if rc != 0 && errno != EINPROGRESS { goDown() }
        process()
    }

    /// usrsctp_conninput with the packet, then what it produced.
    func receive(_ packet: [UInt8]) {
        guard socket != nil, !packet.isEmpty else { return }
        packet.withUnsafeBytes { usrsctp_conninput(address, $0.baseAddress, $0.count, 0) }
        process()
    }

    func open(label: String, subprotocol: String, ordered: Bool, maxRetransmits: UInt16?,
              maxLifetimeMs: UInt16?) throws(SctpError) -> UInt16 {
        process()
        guard state == .up else { throw .notConnected }
        let labelBytes = Array(label.utf8), protocolBytes = Array(subprotocol.utf8)
        guard maxRetransmits == nil || maxLifetimeMs == nil else { throw .invalidChannel("maxRetransmits and maxLifetimeMs together") }
        guard labelBytes.count <= 0xFFFF, protocolBytes.count <= 0xFFFF,
              DcepMessage.openHeaderSize + labelBytes.count + protocolBytes.count <= SctpAssociation.maxMessageSize else {
            throw .invalidChannel("label or protocol too long")
        }
        let limit = min(outboundStreams, inboundStreams)
        let first: UInt16 = role == .client ? 0 : 1
        guard let id = stride(from: first, to: limit, by: 2).first(where: { channels[$0] == nil }) else {
            throw .invalidChannel("no free stream id")
        }
        let reliability: DcepMessage.Reliability = maxRetransmits.map { .retransmits(UInt32($0)) }
            ?? maxLifetimeMs.map { .lifetimeMs(UInt32($0)) } ?? .reliable
        let message = DcepMessage(open: .init(ordered: ordered, reliability: reliability, priority: 256, label: labelBytes,
                                             subprotocol: protocolBytes))
        // DCEP goes ordered and reliable (RFC 8832 §6).
        try sendv(stream: id, ppid: .dcep, message.serialized, unordered: false, policy: UInt16(SCTP_PR_SCTP_NONE), value: 0)
        let (policy, value): (Int32, UInt32) = switch reliability {
        case .reliable: (SCTP_PR_SCTP_NONE, 0)
        case .retransmits(let n): (SCTP_PR_SCTP_RTX, n)
        case .lifetimeMs(let ms): (SCTP_PR_SCTP_TTL, ms)
        }
        channels[id] = Channel(ordered: ordered, policy: UInt16(policy), policyValue: value, awaitingAck: true)
        process()
        return id
    }

    func send(channel: UInt16, _ data: [UInt8], binary: Bool) throws(SctpError) {
        process()
        guard state == .up else { throw .notConnected }
        guard let c = channels[channel], !c.closing, !c.peerReset else { throw .noSuchChannel(channel) }
        guard data.count <= SctpAssociation.maxMessageSize else { throw .messageTooLarge(data.count) }
        let ppid: WebRtcPpid = data.isEmpty ? (binary ? .binaryEmpty : .stringEmpty) : (binary ? .binary : .string)
        try sendv(stream: channel, ppid: ppid, data.isEmpty ? [0] : data, unordered: !c.ordered && !c.awaitingAck,
                  policy: c.policy, value: c.policyValue)
        process()
    }

    func close(channel: UInt16) throws(SctpError) {
        process()
        guard var c = channels[channel] else { throw .noSuchChannel(channel) }
        guard !c.closing else { return }
        c.closing = true
        channels[channel] = c
        resetOutgoing(channel)
        process()
    }

    /// ABORT and free the socket; report what was open as closed.
    func abort() {
        guard socket != nil else { return }
        closeSocket()
        process()
        goDown()
        state = .closed
    }

    /// usrsctp_sendv of one message with its PPID (network order in sndinfo), ordering and PR-SCTP policy.
    private func sendv(stream: UInt16, ppid: WebRtcPpid, _ payload: [UInt8], unordered: Bool, policy: UInt16,
                       value: UInt32) throws(SctpError) {
        guard let s = socket else { throw .notConnected }
        var spa = sctp_sendv_spa()
        spa.sendv_flags = UInt32(SCTP_SEND_SNDINFO_VALID | SCTP_SEND_PRINFO_VALID)
        spa.sendv_sndinfo.snd_sid = stream
        spa.sendv_sndinfo.snd_flags = unordered ? UInt16(SCTP_UNORDERED) : 0
        spa.sendv_sndinfo.snd_ppid = ppid.rawValue.bigEndian
        spa.sendv_prinfo.pr_policy = policy
        spa.sendv_prinfo.pr_value = value
        let n = payload.withUnsafeBytes {
            usrsctp_sendv(s, $0.baseAddress, $0.count, nil, 0, &spa, socklen_t(MemoryLayout<sctp_sendv_spa>.size),
                          UInt32(SCTP_SENDV_SPA), 0)
        }
        guard n < 0 else { return }
        let error = errno
        if error == EWOULDBLOCK || error == EAGAIN { throw .sendBufferFull }
        throw .send(SocketError(call: "usrsctp_sendv", errno: error).description)
    }

    /// Resets our outgoing stream (SCTP_RESET_STREAMS); usrsctp sends the
    /// request once the stream's queue is empty and another request is answered.
    private func resetOutgoing(_ stream: UInt16) {
        guard let s = socket else { return }
        var list = [stream]
        _ = agsh_sctp_reset_outgoing(s, &list, 1)  // fails only for a stream out of range or no association
    }

    // MARK: Output

    /// From the output callback: one packet, kept unless `maxOutbox` wait.
    func queuePacket(_ packet: [UInt8]) {
        guard outbox.count < SctpAssociation.maxOutbox else {
            drops.packets += 1
            return
        }
        outbox.append(packet)
    }

    func takeOutbox() -> [[UInt8]] {
        defer { outbox = [] }
        return outbox
    }

    /// Queues an event; over `maxEvents` or `maxEventBytes`, the oldest go.
    private func emit(_ event: SctpAssociation.Event) {
        if case .message(_, let data, _) = event { eventBytes += data.count }
        events.append(event)
        var dropped = 0
        while events.count - dropped > SctpAssociation.maxEvents
            || (eventBytes > SctpAssociation.maxEventBytes && events.count - dropped > 1) {
            if case .message(_, let data, _) = events[dropped] { eventBytes -= data.count }
            dropped += 1
        }
        if dropped > 0 {
            events.removeFirst(dropped)
            drops.events += dropped
        }
    }

    // MARK: Input

    /// Turns what the callbacks queued into events and answers, until nothing
    /// is left (answers can queue more).
    func process() {
        while !inbox.isEmpty {
            switch inbox.removeFirst() {
            case .notification(let bytes): notification(bytes)
            case .data(let bytes, let stream, let ppid, let complete): data(bytes, stream: stream, ppid: ppid, complete: complete)
            }
        }
    }

    /// A notification (union sctp_notification, host byte order): association
    /// changes and stream resets; others are not subscribed.
    private func notification(_ n: [UInt8]) {
        func u16(_ offset: Int) -> UInt16 {
            n.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self) }
        }
        guard n.count >= 8 else { return }
        let length = min(Int(n.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self) }), n.count)
        switch Int32(u16(0)) {
        case SCTP_ASSOC_CHANGE where length >= MemoryLayout<sctp_assoc_change>.offset(of: \.sac_assoc_id)!:
            let stateOffset = MemoryLayout<sctp_assoc_change>.offset(of: \.sac_state)!
            let outOffset = MemoryLayout<sctp_assoc_change>.offset(of: \.sac_outbound_streams)!
            let inOffset = MemoryLayout<sctp_assoc_change>.offset(of: \.sac_inbound_streams)!
            switch Int32(u16(stateOffset)) {
            case SCTP_COMM_UP, SCTP_RESTART:
                outboundStreams = min(u16(outOffset), SctpAssociation.maxStreams)
                inboundStreams = min(u16(inOffset), SctpAssociation.maxStreams)
                if state == .connecting || state == .new {
                    state = .up
                    emit(.associationUp)
                }
            case SCTP_COMM_LOST, SCTP_SHUTDOWN_COMP, SCTP_CANT_STR_ASSOC:
                goDown()
            default:
                break
            }
        case SCTP_STREAM_RESET_EVENT where length >= 12:
            let flags = Int32(u16(2))
            let streams = stride(from: 12, to: length - 1, by: 2).map { u16($0) }
            if flags & (SCTP_STREAM_RESET_DENIED | SCTP_STREAM_RESET_FAILED) != 0 { return }
            if flags & SCTP_STREAM_RESET_INCOMING_SSN != 0 { streams.forEach(peerReset) }
            if flags & SCTP_STREAM_RESET_OUTGOING_SSN != 0 { streams.forEach(ourResetDone) }
        default:
            break
        }
    }

    /// The peer reset its outgoing stream: the channel is closed (reported
    /// once); reset ours in answer unless we started (RFC 8831 §6.7).
    private func peerReset(_ stream: UInt16) {
        partial[stream] = nil
        guard var c = channels[stream], !c.peerReset else { return }
        c.peerReset = true
        emit(.closed(channel: stream))
        if !c.closing {
            c.closing = true
            resetOutgoing(stream)
        }
        channels[stream] = c.resetDone ? nil : c
    }

    /// Our outgoing reset completed; the id is free once the peer's came too.
    private func ourResetDone(_ stream: UInt16) {
        guard var c = channels[stream], c.closing else { return }
        c.resetDone = true
        channels[stream] = c.peerReset ? nil : c
    }

    /// Down: every channel closed, then the association (once, if it was starting or up).
    private func goDown() {
        guard state == .connecting || state == .up else {
            channels = [:]
            partial = [:]
            return
        }
        for (id, c) in channels.sorted(by: { $0.key < $1.key }) where !c.peerReset { emit(.closed(channel: id)) }
        channels = [:]
        partial = [:]
        state = .down
        emit(.associationDown)
    }

    /// A message or a piece of one: reassembled up to `maxMessageSize`, longer
    /// ones dropped to their end.
    private func data(_ bytes: [UInt8], stream: UInt16, ppid: UInt32, complete: Bool) {
        var p = partial[stream] ?? Partial()
        if !p.discarding && p.bytes.count + bytes.count > SctpAssociation.maxMessageSize {
            drops.messages += 1
            p = Partial(discarding: true)
        }
        if p.discarding {
            partial[stream] = complete ? nil : p
            return
        }
        guard complete else {
            p.bytes += bytes
            partial[stream] = p
            return
        }
        partial[stream] = nil
        message(p.bytes.isEmpty ? bytes : p.bytes + bytes, stream: stream, ppid: ppid)
    }

    /// A whole message: DCEP, or data for an open channel.
    private func message(_ m: [UInt8], stream: UInt16, ppid: UInt32) {
        guard let kind = WebRtcPpid(rawValue: ppid) else {
            drops.messages += 1
            return
        }
        if kind == .dcep { return dcep(m, stream: stream) }
        guard var c = channels[stream], !c.peerReset else {
            drops.messages += 1
            return
        }
        if c.awaitingAck {
            c.awaitingAck = false  // any message from the peer acknowledges (RFC 8832 §6)
            channels[stream] = c
        }
        switch kind {
        case .string, .stringPartial: emit(.message(channel: stream, data: m, binary: false))
        case .binary, .binaryPartial: emit(.message(channel: stream, data: m, binary: true))
        case .stringEmpty: emit(.message(channel: stream, data: [], binary: false))
        case .binaryEmpty: emit(.message(channel: stream, data: [], binary: true))
        case .dcep: break
        }
    }

    /// DCEP: an OPEN makes a channel (on a free id within the streams) and is
    /// answered with an ACK; an ACK confirms one of ours. Anything else is dropped.
    private func dcep(_ m: [UInt8], stream: UInt16) {
        guard let parsed = DcepMessage.parse(m) else {
            drops.messages += 1
            return
        }
        guard let open = parsed.open else {
            if var c = channels[stream], c.awaitingAck {
                c.awaitingAck = false
                channels[stream] = c
            }
            return
        }
        guard state == .up, stream < min(outboundStreams, inboundStreams), channels[stream] == nil else {
            drops.messages += 1  // an id in use (or ours, opening) or out of range
            return
        }
        let (policy, value, retransmits, lifetime): (Int32, UInt32, UInt16?, UInt16?) = switch open.reliability {
        case .reliable: (SCTP_PR_SCTP_NONE, 0, nil, nil)
        case .retransmits(let n): (SCTP_PR_SCTP_RTX, n, UInt16(clamping: n), nil)
        case .lifetimeMs(let ms): (SCTP_PR_SCTP_TTL, ms, nil, UInt16(clamping: ms))
        }
        channels[stream] = Channel(ordered: open.ordered, policy: UInt16(policy), policyValue: value, awaitingAck: false)
        // The ACK goes ordered and reliable on the channel's stream (RFC 8832 §6). If
        // the send buffer is full, the peer's channel still works: data acknowledges too.
        try? sendv(stream: stream, ppid: .dcep, DcepMessage(open: nil).serialized, unordered: false,
                   policy: UInt16(SCTP_PR_SCTP_NONE), value: 0)
        emit(.open(channel: stream, label: String(decoding: open.label, as: UTF8.self),
                   protocol: String(decoding: open.subprotocol, as: UTF8.self), ordered: open.ordered,
                   maxRetransmits: retransmits, maxLifetimeMs: lifetime))
    }
}
