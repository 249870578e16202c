import AgoraishWire

/// The router core (docs/media-plane.md, Routing): what decides who gets a
/// packet, kept apart from sockets, SRTP and clocks so that it can be driven
/// by tests packet by packet. A participant is a publisher and a subscriber
/// at once; each side has its own state. `MediaWorker` is the shell around
/// it: it unprotects, remaps and caches, asks these types what to do, and
/// protects and sends.

/// What routing decides for one packet and one subscriber.
enum RouteVerdict: Equatable {
    /// Sent to the subscriber.
    case forward
    /// Sent, and the subscriber now gets this stream of a layered publisher
    /// (it switched at this keyframe).
    case switched
    /// Not sent, for this reason.
    case drop(MediaDropReason)
}

/// What kind of media a packet carries, as routing tells them apart.
enum RoutedKind {
    case audio, video, data
}

/// A participant as a publisher: whether it may publish, its mutes, and which
/// of its video streams is which (the high one, the low one of dual stream,
/// simulcast layers).
struct PublisherState {
    let uid: UInt32
    var canPublish: Bool
    /// It muted its audio / video: none is forwarded.
    var audioMuted: Bool
    var videoMuted: Bool
    /// Its own SSRCs that carry video.
    var videoSsrcs: Set<UInt32> = []
    /// Its own SSRC of its low video stream (dual stream); 0: none.
    var videoLowSsrc: UInt32 { didSet { refreshLayers() } }
    /// Its own SSRCs of its simulcast layers -> their types (4...9).
    var videoLayers: [UInt32: UInt8] { didSet { refreshLayers() } }
    /// The video streams it sends besides the high one, in quality order
    /// (`VideoStreamLayer`): the layers, then the low stream; empty for a
    /// publisher of one stream.
    private(set) var extraLayers: [UInt8] = []
    /// Every stream it sends, best first.
    private(set) var publishedLayers: [UInt8] = [VideoStreamLayer.high]

    init(uid: UInt32, canPublish: Bool, audioMuted: Bool = false, videoMuted: Bool = false, videoLowSsrc: UInt32 = 0,
         videoLayers: [UInt32: UInt8] = [:]) {
        self.uid = uid
        self.canPublish = canPublish
        self.audioMuted = audioMuted
        self.videoMuted = videoMuted
        self.videoLowSsrc = videoLowSsrc
        self.videoLayers = videoLayers
        refreshLayers()
    }

    private mutating func refreshLayers() {
        extraLayers = videoLayers.values.sorted() + (videoLowSsrc != 0 ? [VideoStreamLayer.low] : [])
        publishedLayers = [VideoStreamLayer.high] + extraLayers
    }

    /// It sends more than one video stream (dual stream or simulcast).
    var isLayered: Bool { !extraLayers.isEmpty }

    /// The lowest stream it sends.
    var lowestLayer: UInt8 { extraLayers.last ?? VideoStreamLayer.high }

    /// Which of its video streams its own SSRC `ssrc` is (0: the high one).
    func layer(ofOwn ssrc: UInt32) -> UInt8 {
        if ssrc == videoLowSsrc { return VideoStreamLayer.low }
        return videoLayers[ssrc] ?? VideoStreamLayer.high
    }

    /// Its own SSRC of its stream `layer`, if it sends one.
    func ownSsrc(ofLayer layer: UInt8) -> UInt32? {
        switch layer {
        case VideoStreamLayer.high:
            videoSsrcs.first { $0 != videoLowSsrc && videoLayers[$0] == nil }
        case VideoStreamLayer.low:
            videoLowSsrc != 0 ? videoLowSsrc : nil
        default:
            videoLayers.first { $0.value == layer }?.key
        }
    }

    /// Whether a packet of this kind from it goes to anyone at all (nil), or why not.
    func admits(_ kind: RoutedKind) -> MediaDropReason? {
        guard canPublish else { return .notPublisher }
        if kind == .audio && audioMuted { return .audioMuted }
        if kind == .video && videoMuted { return .videoMuted }
        return nil
    }
}

/// A participant as a subscriber: whose media it asked for, what its
/// downlink allows (subscribe fallback), and the stream of each layered
/// publisher it gets now.
struct SubscriberState {
    /// Whose audio it receives.
    var audioSubscription: AudioSubscription { didSet { receivesAllAudio = audioSubscription.blocksNothing } }
    /// The common case, kept as a flag so routing checks one byte per copy.
    private(set) var receivesAllAudio: Bool
    /// Whose video it receives, and which stream of each.
    var videoSubscription: VideoSubscription { didSet { receivesAllVideo = videoSubscription.blocksNothing } }
    private(set) var receivesAllVideo: Bool
    /// Subscribe fallback: publishers (uid) it gets the lowest stream of, or
    /// only the audio of, because its downlink cannot carry more.
    var bandwidthLow: Set<UInt32> = []
    var audioOnly: Set<UInt32> = []
    /// Per layered publisher (uid), the stream forwarded now (`VideoStreamLayer`).
    /// It changes to the wanted stream at that stream's next keyframe.
    var forwardedLayer: [UInt32: UInt8] = [:]

    init(audio: AudioSubscription = AudioSubscription(), video: VideoSubscription = VideoSubscription()) {
        audioSubscription = audio
        receivesAllAudio = audio.blocksNothing
        videoSubscription = video
        receivesAllVideo = video.blocksNothing
    }

    /// The stream of `pub` it asked for, as `pub` sends it (`VideoStreamLayer.resolve`).
    func subscribedLayer(of pub: PublisherState) -> UInt8 {
        let asked = videoSubscription.wantedLayer(pub.uid)
        return asked == VideoStreamLayer.high ? asked : VideoStreamLayer.resolve(asked, among: pub.publishedLayers)
    }

    /// The stream of `pub` it should get: the lowest while its downlink
    /// allows no more, else the one it asked for.
    func wantedLayer(of pub: PublisherState) -> UInt8 {
        bandwidthLow.contains(pub.uid) ? pub.lowestLayer : subscribedLayer(of: pub)
    }

    /// The stream of layered publisher `pub` to ask a keyframe of, when the one
    /// it should get is not the one forwarded now (the switch happens there).
    func pendingSwitch(of pub: PublisherState) -> UInt8? {
        guard pub.isLayered, let current = forwardedLayer[pub.uid] else { return nil }
        let wanted = wantedLayer(of: pub)
        return current != wanted ? wanted : nil
    }

    /// Whether this subscriber gets a packet of `kind` from `pub`, on `pub`'s
    /// stream `layer`. A layered publisher's other streams are withheld; the
    /// wanted one is taken at its first keyframe (`startsKeyframe` is asked
    /// only then), and from then on only it.
    mutating func route(_ kind: RoutedKind, layer: UInt8, from pub: PublisherState,
                        startsKeyframe: () -> Bool) -> RouteVerdict {
        switch kind {
        case .audio:
            if !receivesAllAudio && audioSubscription.blocks(pub.uid) { return .drop(.unsubscribed) }
            return .forward
        case .data:
            return .forward
        case .video:
            if !receivesAllVideo && videoSubscription.blocks(pub.uid) { return .drop(.unsubscribed) }
            if !audioOnly.isEmpty && audioOnly.contains(pub.uid) { return .drop(.fallback) }
            guard pub.isLayered else { return .forward }
            let wanted = wantedLayer(of: pub)
            let current = forwardedLayer[pub.uid] ?? wanted
            var verdict = RouteVerdict.forward
            if layer != current {
                // The other stream: taken only when it is the wanted one and a keyframe starts here.
                guard layer == wanted, startsKeyframe() else { return .drop(.otherLayer) }
                verdict = .switched
            }
            forwardedLayer[pub.uid] = layer
            return verdict
        }
    }
}

/// The RTCP policy (docs/media-plane.md, RTCP): what becomes of each packet a
/// participant sends, decided from the packet alone.
enum RtcpRoute: Equatable {
    /// Transport-wide feedback on what the server sends the participant: its downlink estimate.
    case downlinkFeedback
    /// A receiver report: the loss it reports of each stream is remembered.
    case receiverReport
    /// A generic NACK: answered from the cache on this hop, as RTX.
    case answerNack
    /// Other feedback (PLI, FIR, ...) naming a stream: to that stream's
    /// publisher, retargeted to its own SSRC (`server` is the SSRC named).
    case toPublisher(server: UInt32)
    /// Everything else ends here (goodbyes, REMB, a subscriber's sender reports).
    case end

    /// The route of one packet of a compound that does not lead with a sender report.
    init(_ packet: RtcpPacket) {
        switch packet {
        case .transportFeedback: self = .downlinkFeedback
        case .receiverReport: self = .receiverReport
        case .genericNack(let n): self = n.pairs.isEmpty ? .end : .answerNack
        case .pictureLossIndication, .fullIntraRequest, .unknown:
            self = packet.feedbackTarget.map { .toPublisher(server: $0.rawValue) } ?? .end
        default: self = .end
        }
    }

    /// A publisher's compound (it leads with a sender report) goes to the
    /// channel with its sender reports and first SDES chunks renamed to the
    /// server's SSRCs (`ssrcMap`: the publisher's own -> the server's); a
    /// packet naming an SSRC the server does not know travels unchanged.
    static func publisherReports(_ packets: [RtcpPacket], ssrcMap: [UInt32: UInt32]) -> [RtcpPacket] {
        packets.map { packet in
            switch packet {
            case .senderReport(var sr):
                guard let mapped = ssrcMap[sr.ssrc.rawValue] else { return packet }
                sr.ssrc = Ssrc(mapped)
                return .senderReport(sr)
            case .sourceDescription(var sdes) where !sdes.chunks.isEmpty:
                guard let mapped = ssrcMap[sdes.chunks[0].source.rawValue] else { return packet }
                sdes.chunks[0].source = Ssrc(mapped)
                return .sourceDescription(sdes)
            default:
                return packet
            }
        }
    }
}
