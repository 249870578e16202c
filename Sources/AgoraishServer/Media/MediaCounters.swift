import Synchronization

/// Why the media plane dropped a datagram (a label of agoraish_media_drops_total).
public enum MediaDropReason: Int, CaseIterable, Sendable {
    /// From an address no participant has bound through STUN.
    case unknownSource
    /// SRTP/SRTCP authentication failed (forged, corrupted, or another key).
    case authentication
    /// SRTP replay protection refused it.
    case replay
    /// Not RTP, RTCP or STUN, or a malformed header.
    case malformed
    /// RTP from a participant who may not publish (audience in live broadcasting).
    case notPublisher
    /// A STUN request that failed its checks (unknown ufrag, bad integrity).
    case stun
    /// RTCP that ends at the server (receiver reports, SDES without a report, BYE).
    case rtcpTerminated
    /// The socket refused a send.
    case sendFailed
    /// The worker owning the channel was too far behind (its queue was full).
    case queueFull
    /// RTP with yet another SSRC from a participant who already publishes the most streams allowed.
    case tooManyStreams
    /// Audio RTP from a participant who muted its audio (set_audio_state).
    case audioMuted
    /// One subscriber's copy not sent: it does not receive that publisher's
    /// audio or video (set_audio_subscription, set_video_subscription). Counted per withheld copy.
    case unsubscribed
    /// Video RTP from a participant who muted its video (set_video_state).
    case videoMuted
    /// One subscriber's copy not sent: it receives the other stream (high or
    /// low) of that dual-stream publisher. Counted per withheld copy.
    case otherLayer
    /// A video packet the server already has (a network duplicate, or a
    /// retransmission that came after the original).
    case duplicate
    /// One subscriber's copy of a publisher's video not sent: that
    /// subscriber's downlink carries only its audio now (subscribe fallback).
    /// Counted per withheld copy.
    case fallback
    /// A bandwidth probe (padding only, or a last-mile probe packet): counted
    /// for congestion control and measurement, not forwarded.
    case probe
    /// A retransmission a subscriber asked for, not sent: retransmissions in
    /// the last 100 ms already took half of its downlink estimate.
    case rtxBudget
    /// A STUN binding request whose transaction id was already acted on, from
    /// another address: a replay, which moves nothing.
    case stunReplay
    /// Last-mile probe packets not sent: the client sent too little for them
    /// (amplification bound) or its address reached its probe rate.
    case probeBudget
    /// A browser's packet with a payload type its answer did not take, or one
    /// subscriber's copy not sent because the browser's answer did not name
    /// the stream (docs/web.md).
    case notNegotiated
    /// A browser's data channel message over the data stream limits (30
    /// messages, 6 KB a second, 1 KB each; docs/data-streams.md).
    case dataLimit

    /// The Prometheus label value.
    public var label: String {
        switch self {
        case .unknownSource: "unknown_source"
        case .authentication: "authentication"
        case .replay: "replay"
        case .malformed: "malformed"
        case .notPublisher: "not_publisher"
        case .stun: "stun"
        case .rtcpTerminated: "rtcp_terminated"
        case .sendFailed: "send_failed"
        case .queueFull: "queue_full"
        case .tooManyStreams: "too_many_streams"
        case .audioMuted: "audio_muted"
        case .unsubscribed: "unsubscribed"
        case .videoMuted: "video_muted"
        case .otherLayer: "other_layer"
        case .duplicate: "duplicate"
        case .fallback: "fallback"
        case .probe: "probe"
        case .rtxBudget: "rtx_budget"
        case .stunReplay: "stun_replay"
        case .probeBudget: "probe_budget"
        case .notNegotiated: "not_negotiated"
        case .dataLimit: "data_limit"
        }
    }
}

/// Media plane counters, written by the media thread once per receive batch
/// and read by /metrics on the signaling thread.
public final class MediaCounters: Sendable {
    /// What publishers' RTP holds as the server reads it (after SRTP): for tests
    /// that check end-to-end encryption leaves the server nothing to read.
    public let plainTap = PlainPacketTap()
    public let packetsIn = Atomic<Int>(0)
    public let bytesIn = Atomic<Int>(0)
    public let packetsOut = Atomic<Int>(0)
    public let bytesOut = Atomic<Int>(0)
    public let stunBindings = Atomic<Int>(0)
    /// Dual stream: subscribers moved to a publisher's other stream (at its keyframe).
    public let layerSwitches = Atomic<Int>(0)
    /// Dual stream: keyframes asked of publishers for subscribers that changed stream.
    public let layerKeyframeRequests = Atomic<Int>(0)
    /// Retransmission: sequence numbers subscribers NACKed, RTX packets sent
    /// from the cache, numbers the server NACKed to publishers, and packets
    /// that came back that way.
    public let nackRequests = Atomic<Int>(0)
    public let retransmitted = Atomic<Int>(0)
    public let nackedUpstream = Atomic<Int>(0)
    public let recoveredUpstream = Atomic<Int>(0)
    /// Subscribe fallback: times a subscriber's downlink left it only a publisher's audio.
    public let subscribeFallbacks = Atomic<Int>(0)
    /// Consent (RFC 7675): checks sent, and addresses whose consent ran out.
    public let consentChecks = Atomic<Int>(0)
    public let consentExpired = Atomic<Int>(0)
    /// Fast start: cached audio packets sent to joiners that asked for it.
    public let fastStartPackets = Atomic<Int>(0)
    private let dropCounts: [Counter]

    /// One atomic counter (Atomic itself cannot sit in an array).
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    public init() {
        dropCounts = MediaDropReason.allCases.map { _ in Counter() }
    }

    /// Drops so far for `reason`.
    public func drops(_ reason: MediaDropReason) -> Int { dropCounts[reason.rawValue].value.load(ordering: .relaxed) }

    func add(_ batch: inout MediaBatchCounts) {
        if batch.packetsIn > 0 { packetsIn.wrappingAdd(batch.packetsIn, ordering: .relaxed) }
        if batch.bytesIn > 0 { bytesIn.wrappingAdd(batch.bytesIn, ordering: .relaxed) }
        if batch.packetsOut > 0 { packetsOut.wrappingAdd(batch.packetsOut, ordering: .relaxed) }
        if batch.bytesOut > 0 { bytesOut.wrappingAdd(batch.bytesOut, ordering: .relaxed) }
        if batch.stunBindings > 0 { stunBindings.wrappingAdd(batch.stunBindings, ordering: .relaxed) }
        if batch.layerSwitches > 0 { layerSwitches.wrappingAdd(batch.layerSwitches, ordering: .relaxed) }
        if batch.nackRequests > 0 { nackRequests.wrappingAdd(batch.nackRequests, ordering: .relaxed) }
        if batch.retransmitted > 0 { retransmitted.wrappingAdd(batch.retransmitted, ordering: .relaxed) }
        if batch.nackedUpstream > 0 { nackedUpstream.wrappingAdd(batch.nackedUpstream, ordering: .relaxed) }
        if batch.recoveredUpstream > 0 { recoveredUpstream.wrappingAdd(batch.recoveredUpstream, ordering: .relaxed) }
        if batch.subscribeFallbacks > 0 { subscribeFallbacks.wrappingAdd(batch.subscribeFallbacks, ordering: .relaxed) }
        if batch.consentChecks > 0 { consentChecks.wrappingAdd(batch.consentChecks, ordering: .relaxed) }
        if batch.consentExpired > 0 { consentExpired.wrappingAdd(batch.consentExpired, ordering: .relaxed) }
        if batch.fastStartPackets > 0 { fastStartPackets.wrappingAdd(batch.fastStartPackets, ordering: .relaxed) }
        if batch.layerKeyframeRequests > 0 {
            layerKeyframeRequests.wrappingAdd(batch.layerKeyframeRequests, ordering: .relaxed)
        }
        for i in 0..<batch.drops.count where batch.drops[i] > 0 {
            dropCounts[i].value.wrappingAdd(batch.drops[i], ordering: .relaxed)
        }
        batch = MediaBatchCounts()
    }
}

/// Counts of one receive batch, kept in plain integers on the media thread.
struct MediaBatchCounts {
    var packetsIn = 0
    var bytesIn = 0
    var packetsOut = 0
    var bytesOut = 0
    var stunBindings = 0
    var layerSwitches = 0
    var layerKeyframeRequests = 0
    var nackRequests = 0
    var retransmitted = 0
    var nackedUpstream = 0
    var recoveredUpstream = 0
    var subscribeFallbacks = 0
    var fastStartPackets = 0
    var consentChecks = 0
    var consentExpired = 0
    var drops = [Int](repeating: 0, count: MediaDropReason.allCases.count)
}

/// A hook that sees each RTP packet a publisher sends as the server reads it
/// (plain, after SRTP, before forwarding). Off unless set; one relaxed atomic
/// load per packet when off.
public final class PlainPacketTap: Sendable {
    private let on = Atomic<Bool>(false)
    private let sink = Mutex<(@Sendable ([UInt8]) -> Void)?>(nil)

    /// Sets (nil: removes) the function that gets a copy of each packet, on a forwarding thread.
    public func set(_ f: (@Sendable ([UInt8]) -> Void)?) {
        sink.withLock { $0 = f }
        on.store(f != nil, ordering: .releasing)
    }

    @inline(__always)
    func see(_ packet: UnsafeRawBufferPointer) {
        guard on.load(ordering: .relaxed), let f = sink.withLock({ $0 }) else { return }
        f(Array(packet))
    }
}
