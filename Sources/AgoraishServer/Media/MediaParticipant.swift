import AgoraishIO
import AgoraishWire

/// One participant as a media worker knows it: its SRTP contexts, address and streams.
final class MediaParticipant {
    let session: UInt64
    let uid: UInt32
    /// Its SRTP contexts: from signaling, or for a browser from DTLS once
    /// that completes (`MediaWorker.rekey`).
    private(set) var uplink: SrtpSession
    private(set) var downlink: SrtpSession
    /// Contexts replaced by a rekey, freed with the participant (off the forwarding threads).
    private var retired: [MediaKeys] = []
    let channel: MediaChannel
    /// A browser's payload types, extension ids and what it may be sent (nil: an engine).
    var webrtc: WebRtcRewrite?
    /// A browser's data streams, once it sent or was sent data.
    var browserData: BrowserData?
    /// The participant as a publisher and as a subscriber (the router core's state).
    var publisher: PublisherState
    var subscriber: SubscriberState
    var address: SocketAddress?
    /// The address answered a consent check (last-mile probes go only to such addresses).
    var consented = false
    /// Bytes received from the participant, and last-mile probe bytes sent to
    /// it: probes stay within `ProbeLimits.amplification` times what it sent.
    var bytesIn = 0
    var probeBytesOut = 0
    /// RTP bytes protected for it (after its rewrites), for /status.
    var bytesOut = 0
    /// `bytesIn` and `bytesOut` at the last rates published.
    var lastCounted = (bytesIn: 0, bytesOut: 0)
    /// Its streams' (server SSRC) packets expected and received at the last rates published.
    var lastCountedStreams: [UInt32: (expected: Int, received: Int)] = [:]
    /// Publisher SSRC -> server SSRC (remapped at ingress).
    var ssrcMap: [UInt32: UInt32] = [:]
    /// The publisher's RTX SSRCs -> the video SSRCs they retransmit (its own numbers).
    var rtxToMedia: [UInt32: UInt32]
    /// The echo test: the participant's audio comes back to it after this delay (nil: off).
    let echoDelay: Duration?
    /// Fast start still to do: at the first binding of its address the
    /// participant gets the newest packet of each audio stream it receives.
    var fastStart: Bool
    /// As a subscriber: the next RTX sequence number per server RTX SSRC.
    var rtxSequences: [UInt32: UInt16] = [:]
    /// Congestion control (docs/network.md): arrivals of what this
    /// participant sends, for the feedback the server returns to it ...
    var uplinkArrivals = TransportFeedbackRecorder()
    /// ... and the server's estimate of its downlink, from its feedback on
    /// what the server sends it.
    var downlinkEstimate = BandwidthEstimator(settings: .init(startBitrate: 2_000_000, minBitrate: 50_000,
                                                              maxBitrate: 20_000_000))
    /// Since when what is forwarded has not fitted the estimate.
    var overBudgetSince: Instant? = nil
    /// When the downlink last lost more than 2 % (congestion, not a slow receiver).
    var lastDownlinkLoss: Instant? = nil
    /// When the downlink last lost more than 2 % or queued more than
    /// `BandwidthEstimator.standingQueue`: what makes it bound single-stream publishers.
    var lastDownlinkCongestion: Instant? = nil
    /// No step up before this; the wait doubles when a step up is soon undone.
    var holdUntil: Instant? = nil
    var backoff: Duration = MediaWorker.stepUpHold
    var lastStepUp: Instant? = nil
    /// Padding probes to this subscriber: their SSRC (reserved in the channel) and next sequence number.
    var paddingSsrc: UInt32 = 0
    var paddingSequence: UInt16 = 0
    /// While stepped down: the share of the estimate that forwarding leaves unused (bps), sent as padding.
    var paddingRate = 0
    /// Retransmissions to this subscriber in the current 100 ms window: they
    /// may take at most half its downlink estimate (a congested link is not
    /// helped by more traffic).
    var rtxWindow: (start: Instant, bytes: Int) = (Instant(nanoseconds: 0), 0)
    /// As a publisher without a low stream: the last REMB sent (bps) and when.
    var lastRemb: (bitrate: Int, at: Instant)? = nil
    /// When the participant was admitted to its channel.
    let admittedAt = Instant.now()
    /// As a subscriber, per reliable data stream (server SSRC) that was running
    /// before it came: the first sequence number forwarded to it, written as
    /// the stream's start in what it gets, so it never asks for what came before.
    var dataFloors: [UInt32: UInt16] = [:]

    /// A participant with its SRTP contexts, made by the router off the forwarding threads.
    init(grant: MediaGrant, channel: MediaChannel, keys: MediaKeys) {
        session = grant.session
        uid = grant.uid
        uplink = keys.uplink
        downlink = keys.downlink
        publisher = PublisherState(uid: grant.uid, canPublish: grant.canPublish, audioMuted: grant.audioMuted,
                                   videoMuted: grant.videoMuted, videoLowSsrc: grant.videoLowSsrc,
                                   videoLayers: grant.videoLayers)
        subscriber = SubscriberState(audio: grant.audioSubscription, video: grant.videoSubscription)
        rtxToMedia = grant.videoRtx
        echoDelay = grant.echoDelayMs > 0 ? .milliseconds(Int64(grant.echoDelayMs)) : nil
        fastStart = grant.fastStart
        self.channel = channel
    }
}

extension MediaParticipant {
    /// New SRTP contexts (a browser's, from DTLS); the old ones are kept until the participant goes.
    func rekey(_ keys: MediaKeys) {
        retired.append(MediaKeys(uplink: uplink, downlink: downlink))
        uplink = keys.uplink
        downlink = keys.downlink
    }

    /// Protects a plain RTP packet for this participant in place, after
    /// putting a browser's numbers in it; 0 when a browser is not to get it.
    @inline(__always)
    func protectRtp(_ packet: UnsafeMutableRawPointer, length: Int) throws(SrtpError) -> Int {
        if let webrtc, !webrtc.egress(packet, length) { return 0 }
        bytesOut &+= length
        return try downlink.protectRtp(packet, length: length)
    }
}

/// A participant's traffic over the last second, as /status shows it.
public struct ParticipantRates: Sendable, Equatable {
    /// RTP and RTCP bits a second from it, and RTP bits a second to it.
    public var bitsIn: Int
    public var bitsOut: Int
    /// The loss of its uplink streams at the server, in percent (the worst stream's).
    public var lossPercent: Int
}

/// A participant's SRTP contexts: what it sends (inbound here) and what it is sent.
struct MediaKeys: @unchecked Sendable {
    let uplink: SrtpSession
    let downlink: SrtpSession

    init(uplink: SrtpSession, downlink: SrtpSession) {
        self.uplink = uplink
        self.downlink = downlink
    }

    /// A browser's contexts from its DTLS-SRTP keying (RFC 5764 §4.2).
    init(profile: SrtpProfile, remote: [UInt8], local: [UInt8]) throws(SrtpError) {
        uplink = try SrtpSession(profile: profile, keying: remote, inbound: true)
        downlink = try SrtpSession(profile: profile, keying: local, inbound: false)
    }

    init(_ grant: MediaGrant) throws(SrtpError) {
        uplink = try SrtpSession(profile: grant.srtpProfile, keying: grant.uplinkKeying, inbound: true)
        downlink = try SrtpSession(profile: grant.srtpProfile, keying: grant.downlinkKeying, inbound: false)
    }
}

/// The participants of one channel and its streams.
final class MediaChannel {
    let key: String
    var members: ContiguousArray<MediaParticipant> = []
    /// Server SSRC -> (publisher, its own SSRC), for feedback going back upstream.
    var streams: [UInt32: (publisher: MediaParticipant, ssrc: UInt32)] = [:]
    /// Server SSRC of a video stream -> what is kept to retransmit it.
    var videoCaches: [UInt32: VideoStreamCache] = [:]
    /// Server RTX SSRCs in use.
    var rtxSsrcs: Set<UInt32> = []
    /// Server SSRC of an audio stream -> its uplink counts, for receiver reports.
    var audioUplinks: [UInt32: SequenceCounter] = [:]
    /// Server SSRC of an audio stream -> its last packets, to answer subscribers' NACKs
    /// (the server-to-subscriber hop only: the uplink's audio is protected by FEC).
    var audioCaches: [UInt32: VideoStreamCache] = [:]
    /// Server SSRC of a reliable data stream -> its last 6 s, for NACKs on both hops (docs/data-streams.md).
    var dataCaches: [UInt32: VideoStreamCache] = [:]
    /// Server SSRC of a reliable data stream -> when its first packet came.
    var dataStarted: [UInt32: Instant] = [:]
    /// Server SSRC -> the loss (of 256) each subscriber (session) last reported receiving it.
    var downlinkLoss: [UInt32: [UInt64: UInt8]] = [:]
    var nextSsrc: UInt32

    init(key: String, seed: UInt32) {
        self.key = key
        nextSsrc = seed | 1
    }

    func allocateSsrc() -> UInt32 {
        repeat { nextSsrc = nextSsrc &* 1_103_515_245 &+ 12345 } while nextSsrc == 0 || streams[nextSsrc] != nil
            || rtxSsrcs.contains(nextSsrc)
        return nextSsrc
    }
}
