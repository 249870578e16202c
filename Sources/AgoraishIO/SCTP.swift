import AgoraishWire
import CUsrsctp
import Glibc

// WebRTC data channels: SCTP over DTLS (RFC 8261, RFC 8831) with the Data
// Channel Establishment Protocol (DCEP, RFC 8832), sans-IO, on usrsctp. An
// association takes the SCTP packets DTLS delivered (`DtlsEndpoint.received`)
// and returns the SCTP packets to hand to `DtlsEndpoint.send`; it owns no
// socket and no thread. What it leaves to others: DTLS, ICE, the SDP
// m=application section (RFC 8841: a=sctp-port, a=max-message-size), and
// calling `SctpAssociation.handleTimers(elapsed:)` every 10 ms or so.
//
// usrsctp is one stack per process. It runs in "no threads" mode
// (usrsctp_init_nothreads): no timer thread and no receive threads, so its
// output callback (`sctpOutput`) and receive callback (`sctpReceive`) run
// inside the calls made here (usrsctp_conninput, usrsctp_sendv,
// usrsctp_setsockopt, usrsctp_connect, usrsctp_close, usrsctp_handle_timers),
// on the calling thread. (usrsctp still starts its "iterator" thread, which
// walks endpoints bound to every address for address changes (ASCONF) and
// SCTP_SENDALL; the sockets here are bound to their own AF_CONN address, ASCONF
// is off and SCTP_SENDALL is never used, so it never reaches them.) The
// callbacks only queue what they get on the association, found by its AF_CONN
// address in a registry; the calls then turn the queue into events, DCEP
// answers and packets. Every usrsctp call and every callback holds one
// process-wide recursive lock, so associations may live on different threads.
//
// Timers are process-wide too: usrsctp_handle_timers advances one clock for
// every association. A timer that fires (a retransmission, a SACK, a
// heartbeat) queues its packets on its association; the association's owner
// takes them with `pollTransmits()` (or with the result of its next call).
//
// usrsctp also reads the wall clock itself (gettimeofday): for round-trip
// times, cookie lifetimes, PR-SCTP lifetimes, and when a retransmission timer
// fires, to pick the chunks sent at least an RTO ago. So `handleTimers` must be
// fed real elapsed time: on a virtual clock the timers fire but retransmit
// nothing that was sent within the real RTO. (INIT retransmission, delayed
// SACKs and fast retransmission do not look at it: the tests run on virtual
// time for those.)
//
// One file of about 1000 lines: its parts (DCEP's wire format, the process's
// usrsctp with its C callbacks, one association's state) share the private
// callbacks and the lock; split at the MARKs if it grows.

/// Why an SCTP association or a data-channel operation failed.
public enum SctpError: Error, Equatable, CustomStringConvertible {
    /// usrsctp refused to make or configure the socket (the call and errno's text).
    case setup(String)
    /// The association is not up (not yet, or no longer): nothing can be sent.
    case notConnected
    /// No open channel has this stream id (never opened, closing, or closed).
    case noSuchChannel(UInt16)
    /// The message is longer than `SctpAssociation.maxMessageSize` bytes (its length).
    case messageTooLarge(Int)
    /// The channel cannot be opened as asked: label or protocol too long, both
    /// `maxRetransmits` and `maxLifetimeMs`, or no free stream id of this side's parity.
    case invalidChannel(String)
    /// The send buffer is full (usrsctp's EWOULDBLOCK): try again once the
    /// peer has acknowledged data (after later `receive` calls).
    case sendBufferFull
    /// usrsctp refused the message (errno's text).
    case send(String)

    /// The error as one line, for logs.
    public var description: String {
        switch self {
        case .setup(let s): "SCTP setup: \(s)"
        case .notConnected: "SCTP: the association is not up"
        case .noSuchChannel(let id): "SCTP: no open data channel \(id)"
        case .messageTooLarge(let n): "SCTP: a message of \(n) bytes is over \(SctpAssociation.maxMessageSize)"
        case .invalidChannel(let s): "SCTP: cannot open the data channel: \(s)"
        case .sendBufferFull: "SCTP: the send buffer is full"
        case .send(let s): "SCTP send: \(s)"
        }
    }
}

/// One SCTP association over DTLS (RFC 8261) with WebRTC data channels (DCEP,
/// RFC 8832), sans-IO: the host feeds it the SCTP packets the peer sent and
/// sends the packets it returns; it owns no socket, thread or clock.
///
/// Driving it: make it when DTLS is connected, call `start()` (both sides
/// send INIT), hand every DTLS application record to `receive(_:)`, call
/// `SctpAssociation.handleTimers(elapsed:)` every 10 ms or so and then
/// `pollTransmits()`, and read `pollEvents()` after each call. Every packet any
/// call returns goes to `DtlsEndpoint.send` in order; each is at most
/// `maxPacketSize` bytes. Channels: the peer's arrive as `.open`; `open`
/// makes one from this side, `send` sends on it, `close(channel:)` closes it
/// (a stream reset, RFC 8831 §6.7), reported on both sides as `.closed`.
///
/// Bad input never traps: usrsctp drops malformed packets (bad checksum,
/// garbage, wrong verification tag), malformed DCEP and messages on unknown
/// channels are dropped and counted in `drops`.
///
/// Owns its usrsctp socket and AF_CONN address, freed in deinit (the
/// association is aborted then; no later callback of usrsctp reaches it).
/// Threads: every call takes one process-wide lock (usrsctp is one stack per
/// process), so a call from any thread is safe and associations may live on
/// different threads; drive each from one thread (the server's receive
/// thread), or its packets and events lose their order between callers.
public final class SctpAssociation: @unchecked Sendable {
    /// This side's DTLS role (a=setup: active is the client). Both sides send
    /// INIT whatever the role (simultaneous open, as RFC 8841 and every
    /// browser do); the role only picks the stream ids of channels this side
    /// opens: even for the DTLS client, odd for the server (RFC 8832 §6).
    public enum Role: Sendable { case client, server }

    /// Where the association is.
    public enum State: Equatable, Sendable {
        /// Made; `start()` not yet called.
        case new
        /// INIT sent, waiting for the handshake.
        case connecting
        /// Established: channels can be opened and used.
        case up
        /// Lost, shut down or aborted by the peer, or never came up (INIT timed out).
        case down
        /// `close()` was called.
        case closed
    }

    /// What happened, reported by `pollEvents()` in order.
    public enum Event: Equatable, Sendable {
        /// The peer opened a channel (DCEP DATA_CHANNEL_OPEN, answered with
        /// DATA_CHANNEL_ACK): its stream id, label, subprotocol, ordering and
        /// partial reliability (at most one of the two limits; wire values
        /// above 65535 are reported as 65535).
        case open(channel: UInt16, label: String, protocol: String, ordered: Bool, maxRetransmits: UInt16?, maxLifetimeMs: UInt16?)
        /// A whole message on an open channel: text (PPID 51) or binary (53);
        /// empty ones came as PPID 56 or 57.
        case message(channel: UInt16, data: [UInt8], binary: Bool)
        /// A channel closed: the peer reset its stream (after its own
        /// `close(channel:)` or in answer to ours), or the association went down.
        case closed(channel: UInt16)
        /// The association is established.
        case associationUp
        /// The association is gone (lost, aborted, shut down, or never came up);
        /// every open channel was reported `.closed` just before.
        case associationDown
    }

    /// What bounds made the association drop, since it was made.
    public struct Drops: Equatable, Sendable {
        /// Events dropped (the oldest first) because `pollEvents()` was not
        /// called often enough: over `maxEvents` or `maxEventBytes`.
        public var events = 0
        /// Messages dropped: over `maxMessageSize`, on a stream with no open
        /// channel, an unknown PPID, or malformed DCEP.
        public var messages = 0
        /// Packets dropped because the owner did not take them: over `maxOutbox`.
        public var packets = 0
    }

    /// The largest message, in bytes, sent or received (SDP
    /// a=max-message-size:65536, RFC 8841 §6). Longer ones are refused
    /// (`send`) or dropped (received).
    public static let maxMessageSize = 65536
    /// Events `pollEvents()` holds at most; the oldest go first.
    public static let maxEvents = 1024
    /// Message bytes the pending events hold at most; the oldest go first.
    public static let maxEventBytes = 4 << 20
    /// Packets waiting for the owner at most (timer output between polls);
    /// later ones are dropped (SCTP retransmits them).
    public static let maxOutbox = 1024
    /// Streams each way this side announces (INIT's OS and MIS), as Chromium does:
    /// channel ids are 0...1023.
    public static let maxStreams: UInt16 = 1024
    /// The send and receive buffers of each association, in bytes (SO_SNDBUF,
    /// SO_RCVBUF): what the peer can make usrsctp hold (its advertised window)
    /// and what `send` queues before `sendBufferFull`.
    public static let bufferSize: Int32 = 256 * 1024

    /// This side's DTLS role.
    public let role: Role
    /// The largest SCTP packet this association writes, in bytes.
    public let maxPacketSize: Int
    /// The state, under `SctpStack`'s lock.
    let core: SctpCore

    /// A new association on SCTP port `port` (a=sctp-port; 5000 on both sides
    /// in every browser) talking to the peer's `remotePort`.
    ///
    /// `maxPacketSize`: the largest SCTP packet to write; at most the DTLS
    /// endpoint's `maxSendSize`, or DTLS drops the packet. In 1200-byte
    /// datagrams that is 1163 with AES-GCM (what browsers pick) and 1135 with
    /// the AES-CBC-SHA suites and encrypt-then-MAC, the least of the suites
    /// `DtlsCertificate` offers; the default, 1130, fits them all. usrsctp's
    /// path MTU discovery is off (RFC 8261 §5 asks for a safe value of at most
    /// 1200). 524...65535 (usrsctp's smallest path MTU, 512, plus the common header).
    ///
    /// Throws `.setup` when usrsctp cannot make or configure the socket, or
    /// `maxPacketSize` is out of range.
    public init(role: Role, port: UInt16 = 5000, remotePort: UInt16 = 5000, maxPacketSize: Int = 1130) throws(SctpError) {
        guard (524...65535).contains(maxPacketSize) else { throw .setup("maxPacketSize \(maxPacketSize) not in 524...65535") }
        self.role = role
        self.maxPacketSize = maxPacketSize
        core = try SctpStack.shared.makeCore(role: role, port: port, remotePort: remotePort, maxPacketSize: maxPacketSize)
    }

    deinit { SctpStack.shared.free(core) }

    /// Sends INIT (usrsctp_connect). Both roles do: SCTP in WebRTC opens
    /// simultaneously, and usrsctp and dcsctp (Chromium) merge the crossing
    /// INITs into one association (RFC 9260 §5.2.1). Call once, when DTLS is
    /// connected; `receive` calls it first if it was not called. Later calls
    /// return [].
    public func start() -> [[UInt8]] {
        SctpStack.shared.locked {
            core.start()
            return core.takeOutbox()
        }
    }

    /// Feeds one SCTP packet from the peer (one DTLS application record; it
    /// is read during the call only) and returns the packets to send, each for
    /// `DtlsEndpoint.send`. Calls `start()` first if it was not called, so a
    /// peer's INIT that arrives first meets an association. Malformed packets
    /// (short, bad CRC32c, unknown association) are dropped by usrsctp.
    /// Events it caused wait in `pollEvents()`.
    public func receive(_ packet: [UInt8]) -> [[UInt8]] {
        SctpStack.shared.locked {
            core.start()
            core.receive(packet)
            return core.takeOutbox()
        }
    }

    /// Advances usrsctp's timers (usrsctp_handle_timers) by `elapsed`: the
    /// real time since the previous call, from the monotonic clock (usrsctp
    /// checks retransmissions against the wall clock, so virtual time fires
    /// timers that then find nothing old enough to resend). Process-wide: it
    /// runs the timers of every association; each one's packets wait for its
    /// owner's `pollTransmits()`. Call it from one place every 10 ms or so (the
    /// smallest timer is the 20 ms delayed SACK); fractions of a millisecond
    /// carry over. When several places in a process call it, the timers run
    /// that much faster (early timer checks and heartbeats, not failures);
    /// give it one driver. Any thread; negative durations count as zero.
    public static func handleTimers(elapsed: Duration) {
        SctpStack.shared.handleTimers(elapsed: elapsed)
    }

    /// The packets waiting to be sent: what timers sent since the last call
    /// (see `handleTimers`), and anything else not yet returned.
    public func pollTransmits() -> [[UInt8]] {
        SctpStack.shared.locked {
            core.process()
            return core.takeOutbox()
        }
    }

    /// Opens a channel from this side: a DCEP DATA_CHANNEL_OPEN (PPID 50) on
    /// the lowest free stream id of this side's parity (even for the DTLS
    /// client, odd for the server, RFC 8832 §6). Returns the id and the
    /// packets to send. The channel can carry messages at once; until the
    /// peer's DATA_CHANNEL_ACK (or any message from it on the channel) they
    /// go ordered (RFC 8832 §6), then as asked: `ordered` or not, reliable,
    /// or limited to `maxRetransmits` retransmissions (PR-SCTP RTX) or
    /// `maxLifetimeMs` (PR-SCTP TTL), not both. No `.open` event follows for
    /// channels opened here.
    ///
    /// Throws `.notConnected` unless `state` is `.up`; `.invalidChannel` for
    /// both limits, a label or protocol over 65535 bytes of UTF-8 (or more
    /// than `maxMessageSize` together), or no free stream id; `.sendBufferFull`
    /// or `.send` when usrsctp refuses the DCEP message.
    public func open(label: String, protocol subprotocol: String = "", ordered: Bool = true, maxRetransmits: UInt16? = nil,
                     maxLifetimeMs: UInt16? = nil) throws(SctpError) -> (channel: UInt16, packets: [[UInt8]]) {
        try SctpStack.shared.locked { () throws(SctpError) -> (channel: UInt16, packets: [[UInt8]]) in
            let id = try core.open(label: label, subprotocol: subprotocol, ordered: ordered,
                                   maxRetransmits: maxRetransmits, maxLifetimeMs: maxLifetimeMs)
            return (id, core.takeOutbox())
        }
    }

    /// Sends one message on an open channel: text (PPID 51) or binary (53);
    /// an empty one goes as one zero byte with PPID 56 or 57 (RFC 8831 §6.6).
    /// Returns the packets to send (a message may wait in the send buffer for
    /// the congestion window; later calls return it).
    ///
    /// Throws `.notConnected`, `.noSuchChannel` (unknown or closing),
    /// `.messageTooLarge` (over `maxMessageSize`), `.sendBufferFull`, `.send`.
    public func send(channel: UInt16, _ data: [UInt8], binary: Bool) throws(SctpError) -> [[UInt8]] {
        try SctpStack.shared.locked { () throws(SctpError) -> [[UInt8]] in
            try core.send(channel: channel, data, binary: binary)
            return core.takeOutbox()
        }
    }

    /// Closes a channel: resets this side's outgoing stream (RFC 8831 §6.7)
    /// once what was queued on it is sent; the peer resets its own in answer,
    /// and each side reports `.closed`. The id is free again after both
    /// resets. Sending on it fails from now on. Closing a closing channel
    /// does nothing. Throws `.noSuchChannel` for an unknown id.
    public func close(channel: UInt16) throws(SctpError) -> [[UInt8]] {
        try SctpStack.shared.locked { () throws(SctpError) -> [[UInt8]] in
            try core.close(channel: channel)
            return core.takeOutbox()
        }
    }

    /// The events since the last call, oldest first. At most `maxEvents`
    /// (and `maxEventBytes` of messages) wait; older ones are dropped and
    /// counted in `drops.events`.
    public func pollEvents() -> [Event] {
        SctpStack.shared.locked {
            core.process()
            defer { core.events.removeAll(); core.eventBytes = 0 }
            return core.events
        }
    }

    /// Aborts the association (ABORT: usrsctp_close with SO_LINGER 0, as
    /// libwebrtc does) and returns the packet to send. `state` is `.closed`
    /// after; if it was connecting or up, the open channels and the
    /// association are reported closed and down. Later calls do nothing.
    public func close() -> [[UInt8]] {
        SctpStack.shared.locked {
            core.abort()
            return core.takeOutbox()
        }
    }

    /// Where the association is.
    public var state: State { SctpStack.shared.locked { core.state } }

    /// What was dropped so far.
    public var drops: Drops { SctpStack.shared.locked { core.drops } }

    /// The ids of the open channels (not closing), ascending.
    public var channels: [UInt16] {
        SctpStack.shared.locked { core.channels.filter { !$0.value.closing }.keys.sorted() }
    }

    /// How many associations live in the process (for tests and metrics).
    public static var liveCount: Int { SctpStack.shared.locked { SctpStack.shared.cores.count } }

    /// `packet` with its CRC32c checksum (RFC 9260 §6.8, usrsctp_crc32c) put
    /// in bytes 8...11; unchanged when shorter than the 12-byte common header.
    /// For tests and fuzzing, which write packets of their own.
    public static func withChecksum(_ packet: [UInt8]) -> [UInt8] {
        guard packet.count >= sctpCommonHeaderSize else { return packet }
        var p = packet
        p.replaceSubrange(8..<12, with: [0, 0, 0, 0])
        var crc = p.withUnsafeMutableBytes { usrsctp_crc32c($0.baseAddress, $0.count) }  // already in network order
        withUnsafeBytes(of: &crc) { p.replaceSubrange(8..<12, with: $0) }
        return p
    }

    /// Tests: hands the association a whole message on `stream` with `ppid`
    /// as usrsctp's receive callback would (none of SCTP's own checks), and
    /// returns the packets it answered with.
    func injectMessage(_ payload: [UInt8], stream: UInt16, ppid: UInt32) -> [[UInt8]] {
        SctpStack.shared.locked {
            core.inbox.append(.data(payload, stream: stream, ppid: ppid, complete: true))
            core.process()
            return core.takeOutbox()
        }
    }
}

// MARK: - DCEP (RFC 8832 §5)

/// A DCEP message: DATA_CHANNEL_OPEN (type 0x03) or DATA_CHANNEL_ACK (0x02).
struct DcepMessage: Equatable {
    /// RFC 8832 §5.1 channel types: reliable (0x00), partial reliability by
    /// retransmissions (0x01) or by lifetime (0x02); 0x80 marks unordered.
    enum Reliability: Equatable {
        case reliable
        case retransmits(UInt32)
        case lifetimeMs(UInt32)
    }

    /// The OPEN's fields; nil for an ACK.
    struct Open: Equatable {
        var ordered: Bool
        var reliability: Reliability
        var priority: UInt16
        var label: [UInt8]
        var subprotocol: [UInt8]
    }

    /// The OPEN, or nil for an ACK.
    var open: Open?

    static let openType: UInt8 = 0x03
    static let ackType: UInt8 = 0x02
    /// The fixed part of an OPEN, in bytes.
    static let openHeaderSize = 12

    /// Parses a DCEP message: an OPEN whose channel type is known and whose
    /// label and protocol lie within the message (bytes after them are
    /// ignored), or an ACK (one byte; more is ignored). Nil for anything else.
    static func parse(_ m: [UInt8]) -> DcepMessage? {
        guard let type = m.first else { return nil }
        if type == ackType { return DcepMessage(open: nil) }
        guard type == openType, m.count >= openHeaderSize else { return nil }
        func u16(_ i: Int) -> Int { Int(m[i]) << 8 | Int(m[i + 1]) }
        let value = UInt32(m[4]) << 24 | UInt32(m[5]) << 16 | UInt32(m[6]) << 8 | UInt32(m[7])
        let reliability: Reliability
        switch m[1] & 0x7F {
        case 0x00: reliability = .reliable
        case 0x01: reliability = .retransmits(value)
        case 0x02: reliability = .lifetimeMs(value)
        default: return nil
        }
        let labelLength = u16(8), protocolLength = u16(10)
        guard openHeaderSize + labelLength + protocolLength <= m.count else { return nil }
        let labelEnd = openHeaderSize + labelLength
        return DcepMessage(open: Open(ordered: m[1] & 0x80 == 0, reliability: reliability, priority: UInt16(u16(2)),
                                      label: Array(m[openHeaderSize..<labelEnd]),
                                      subprotocol: Array(m[labelEnd..<(labelEnd + protocolLength)])))
    }

    /// The message's bytes. An OPEN's label and protocol must each fit 16 bits.
    var serialized: [UInt8] {
        guard let o = open else { return [Self.ackType] }
        precondition(o.label.count <= 0xFFFF && o.subprotocol.count <= 0xFFFF, "the caller checked the lengths")
        let (type, value): (UInt8, UInt32) = switch o.reliability {
        case .reliable: (0x00, 0)
        case .retransmits(let n): (0x01, n)
        case .lifetimeMs(let ms): (0x02, ms)
        }
        var out: [UInt8] = [Self.openType, type | (o.ordered ? 0 : 0x80), UInt8(o.priority >> 8), UInt8(o.priority & 0xFF)]
        out += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        out += [UInt8(o.label.count >> 8), UInt8(o.label.count & 0xFF), UInt8(o.subprotocol.count >> 8), UInt8(o.subprotocol.count & 0xFF)]
        return out + o.label + o.subprotocol
    }
}

/// The SCTP common header: ports, verification tag, checksum (RFC 9260 §3.1), in bytes.
let sctpCommonHeaderSize = 12

/// SCTP payload protocol identifiers of WebRTC (RFC 8831 §8, RFC 8832 §8.1).
enum WebRtcPpid: UInt32 {
    case dcep = 50, string = 51, binaryPartial = 52, binary = 53, stringPartial = 54, stringEmpty = 56, binaryEmpty = 57
}

// MARK: - The process's usrsctp

/// The process's usrsctp: initialized once (no threads), the lock every call
/// holds, and the registry from AF_CONN addresses to associations. usrsctp is
/// a process-wide stack, so this is the one place that knows it; associations
/// own their sockets.
final class SctpStack: @unchecked Sendable {
    /// The stack, initialized on first use (Swift runs a static's initializer once).
    static let shared = SctpStack()

    /// Recursive: the callbacks run inside locked calls and lock again.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Live associations by id (their AF_CONN address as an integer). Under the lock.
    private(set) var cores: [UInt: SctpCore] = [:]
    /// The next id; never reused, so a late callback for a freed association finds nothing.
    private var nextId: UInt = 1
    /// Nanoseconds given to `handleTimers` not yet passed to usrsctp (under a millisecond).
    private var pendingNanoseconds: Int64 = 0

    private init() {
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        // No UDP encapsulation port, no threads of its own, no debug output.
        usrsctp_init_nothreads(0, sctpOutput, nil)
        // The settings of libwebrtc's and libdatachannel's usrsctp transports:
        // no ECN, ASCONF or AUTH (WebRTC uses none: a smaller attack surface),
        // no ABORT for out-of-the-blue packets (garbage gets no answer),
        // partial reliability on, and timers for one path over DTLS.
        _ = usrsctp_sysctl_set_sctp_ecn_enable(0)
        _ = usrsctp_sysctl_set_sctp_asconf_enable(0)
        _ = usrsctp_sysctl_set_sctp_auto_asconf(0)
        _ = usrsctp_sysctl_set_sctp_auth_enable(0)
        _ = usrsctp_sysctl_set_sctp_pr_enable(1)
        _ = usrsctp_sysctl_set_sctp_reconfig_enable(1)  // stream reset (RFC 6525) closes channels
        _ = usrsctp_sysctl_set_sctp_blackhole(2)
        _ = usrsctp_sysctl_set_sctp_rto_initial_default(1000)  // ms
        _ = usrsctp_sysctl_set_sctp_rto_min_default(1000)
        _ = usrsctp_sysctl_set_sctp_rto_max_default(10_000)
        _ = usrsctp_sysctl_set_sctp_init_rto_max_default(10_000)
        _ = usrsctp_sysctl_set_sctp_init_rtx_max_default(8)
        _ = usrsctp_sysctl_set_sctp_assoc_rtx_max_default(8)
        _ = usrsctp_sysctl_set_sctp_path_rtx_max_default(8)
        _ = usrsctp_sysctl_set_sctp_heartbeat_interval_default(10_000)
        _ = usrsctp_sysctl_set_sctp_delayed_sack_time_default(20)
        _ = usrsctp_sysctl_set_sctp_initial_cwnd(10)  // packets (RFC 6928)
        // A queued 64 KiB message is about 60 chunks; the default (512) would
        // refuse sends long before the send buffer is full.
        _ = usrsctp_sysctl_set_sctp_max_chunks_on_queue(4096)
    }

    /// Runs `body` holding the lock.
    func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// The association whose AF_CONN address (or ulp_info) is `address`, if it lives.
    func core(at address: UnsafeMutableRawPointer?) -> SctpCore? {
        guard let address else { return nil }
        return locked { cores[UInt(bitPattern: address)] }
    }

    /// Registers a new AF_CONN address, makes and configures its socket.
    func makeCore(role: SctpAssociation.Role, port: UInt16, remotePort: UInt16, maxPacketSize: Int) throws(SctpError) -> SctpCore {
        try locked { () throws(SctpError) -> SctpCore in
            let id = nextId
            nextId += 1
            let core = SctpCore(id: id, role: role, remotePort: remotePort)
            usrsctp_register_address(core.address)
            cores[id] = core
            do throws(SctpError) {
                try core.openSocket(port: port, maxPacketSize: maxPacketSize)
            } catch {
                free(core)
                throw error
            }
            return core
        }
    }

    /// Aborts and closes the association's socket, forgets its address.
    func free(_ core: SctpCore) {
        locked {
            core.closeSocket()
            usrsctp_deregister_address(core.address)
            cores[core.id] = nil
        }
    }

    /// usrsctp_handle_timers with the whole milliseconds of `elapsed` (and
    /// what earlier calls left over), then each association's queue.
    func handleTimers(elapsed: Duration) {
        locked {
            let added = max(0, elapsed.nanosecondsClamped)
            pendingNanoseconds = pendingNanoseconds > Int64.max - added ? Int64.max : pendingNanoseconds + added
            let ms = min(pendingNanoseconds / 1_000_000, Int64(UInt32.max))
            guard ms > 0 else { return }
            pendingNanoseconds -= ms * 1_000_000
            usrsctp_handle_timers(UInt32(ms))
            for core in cores.values { core.process() }
        }
    }
}

/// usrsctp's output callback: one SCTP packet for the association at `address`.
/// Called inside usrsctp's calls, on their thread. Returns 0 (sent) or -1
/// (no such association: it was freed).
private let sctpOutput: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int, UInt8, UInt8) -> Int32 = {
    address, buffer, length, _, _ in
    guard let buffer, length > 0, let core = SctpStack.shared.core(at: address) else { return -1 }
    core.queuePacket(Array(UnsafeRawBufferPointer(start: buffer, count: length)))
    return 0
}

/// usrsctp's receive callback: a message, part of one (no MSG_EOR), or a
/// notification (MSG_NOTIFICATION) for the association whose ulp_info is
/// `ulpInfo`. usrsctp malloc'd `data` and leaves it to us. Returns 1 (taken).
let sctpReceive: @convention(c) (OpaquePointer?, sctp_sockstore, UnsafeMutableRawPointer?, Int, sctp_rcvinfo, Int32,
                                         UnsafeMutableRawPointer?) -> Int32 = { _, _, data, length, info, flags, ulpInfo in
    defer { Glibc.free(data) }
    guard let data, length > 0, let core = SctpStack.shared.core(at: ulpInfo) else { return 1 }
    let bytes = Array(UnsafeRawBufferPointer(start: data, count: length))
    let complete = flags & Int32(MSG_EOR) != 0
    if flags & Int32(MSG_NOTIFICATION) != 0 {
        if complete { core.inbox.append(.notification(bytes)) }  // notifications are small and whole
    } else {
        core.inbox.append(.data(bytes, stream: info.rcv_sid, ppid: UInt32(bigEndian: info.rcv_ppid), complete: complete))
    }
    return 1
}
