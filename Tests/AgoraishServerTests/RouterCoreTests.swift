@testable import AgoraishServer
import AgoraishWire
import Testing

/// The router core (`PublisherState`, `SubscriberState`): who gets which
/// packet, driven packet by packet without sockets, SRTP or clocks.
@Suite struct RouterCoreTests {
    /// A simulcast publisher: high (own SSRC 1), LAYER_1 (40), LAYER_2 (50) and the low stream (10).
    static func simulcastPublisher() -> PublisherState {
        var p = PublisherState(uid: 7, canPublish: true, videoLowSsrc: 10, videoLayers: [40: 4, 50: 5])
        p.videoSsrcs = [1, 10, 40, 50]
        return p
    }

    static func subscriber(wanting layer: UInt8) -> SubscriberState {
        var video = VideoSubscription()
        video.setStreamType(of: 7, layer: layer)
        return SubscriberState(video: video)
    }

    /// One picture on every stream of the publisher, in its layers' order; `keyframes` names the layers whose picture is a keyframe.
    static func picture(_ pub: PublisherState, keyframes: Set<UInt8> = []) -> [(layer: UInt8, key: Bool)] {
        pub.publishedLayers.map { ($0, keyframes.contains($0)) }
    }

    @Test func theLayersAreKnownAndOrderedByQuality() {
        let p = Self.simulcastPublisher()
        #expect(p.publishedLayers == [0, 4, 5, 1])
        #expect(p.isLayered && p.lowestLayer == 1)
        #expect([1, 40, 50, 10].map(p.layer(ofOwn:)) == [0, 4, 5, 1])
        #expect([0, 4, 5, 1, 6].map(p.ownSsrc(ofLayer:)) == [1, 40, 50, 10, nil])
        // What a subscriber gets for each type it may ask for.
        let published = p.publishedLayers
        #expect([0, 4, 5, 6, 7, 8, 9, 1].map { VideoStreamLayer.resolve($0, among: published) } == [0, 4, 5, 1, 1, 1, 1, 1])
        #expect(VideoStreamLayer.resolve(1, among: [0, 4, 6]) == 6, "no low stream: the lowest layer")
        #expect(VideoStreamLayer.resolve(5, among: [0, 4, 6]) == 6, "the best one below the one asked for")
        #expect(VideoStreamLayer.resolve(1, among: [0]) == 0)
        let single = PublisherState(uid: 8, canPublish: true)
        #expect(!single.isLayered && single.lowestLayer == 0)
    }

    @Test func eachSubscriberGetsItsOwnLayerAndNoOther() {
        let pub = Self.simulcastPublisher()
        var subs = [4, 5, 1, 7, 0].map { Self.subscriber(wanting: UInt8($0)) }
        var got = [[UInt8]](repeating: [], count: subs.count)
        var withheld = 0
        for n in 0..<10 {
            for packet in Self.picture(pub, keyframes: n == 0 ? [0, 4, 5, 1] : []) {
                for i in subs.indices {
                    switch subs[i].route(.video, layer: packet.layer, from: pub, startsKeyframe: { packet.key }) {
                    case .forward: got[i].append(packet.layer)
                    case .switched: Issue.record("no switch was asked for")
                    case .drop(let reason):
                        #expect(reason == .otherLayer)
                        withheld += 1
                    }
                }
            }
        }
        #expect(got.map { Set($0) } == [[4], [5], [1], [1], [0]], "LAYER_4 is not sent: the next below, low")
        #expect(got.allSatisfy { $0.count == 10 })
        #expect(withheld == 5 * 10 * 3)
    }

    @Test func aSubscriberSwitchesAtTheWantedLayersKeyframeOnly() {
        let pub = Self.simulcastPublisher()
        var sub = Self.subscriber(wanting: 1)
        // The low stream flows.
        for packet in Self.picture(pub) {
            _ = sub.route(.video, layer: packet.layer, from: pub) { packet.key }
        }
        #expect(sub.forwardedLayer[7] == 1 && sub.pendingSwitch(of: pub) == nil)
        // LAYER_1 asked for: a keyframe of it is wanted; until it comes the low stream goes on.
        sub.videoSubscription.setStreamType(of: 7, layer: 4)
        #expect(sub.pendingSwitch(of: pub) == 4)
        var asked = 0
        for packet in Self.picture(pub, keyframes: [0, 5]) {
            let v = sub.route(.video, layer: packet.layer, from: pub) { asked += 1; return packet.key }
            #expect(v == (packet.layer == 1 ? .forward : .drop(.otherLayer)), "before LAYER_1's keyframe: \(packet)")
        }
        #expect(asked == 1, "only the wanted layer's packets are looked at for a keyframe")
        // Its keyframe: the switch; from then on only LAYER_1.
        var verdicts: [UInt8: RouteVerdict] = [:]
        for packet in Self.picture(pub, keyframes: [4]) {
            verdicts[packet.layer] = sub.route(.video, layer: packet.layer, from: pub) { packet.key }
        }
        #expect(verdicts == [0: .drop(.otherLayer), 4: .switched, 5: .drop(.otherLayer), 1: .drop(.otherLayer)])
        for packet in Self.picture(pub, keyframes: [1]) {
            let v = sub.route(.video, layer: packet.layer, from: pub) { packet.key }
            #expect(v == (packet.layer == 4 ? .forward : .drop(.otherLayer)))
        }
        #expect(sub.forwardedLayer[7] == 4 && sub.pendingSwitch(of: pub) == nil)
    }

    @Test func aShortDownlinkGetsTheLowestStreamThenOnlyAudio() {
        let pub = Self.simulcastPublisher()
        var sub = Self.subscriber(wanting: 4)
        _ = sub.route(.video, layer: 4, from: pub) { false }
        sub.bandwidthLow = [7]
        #expect(sub.wantedLayer(of: pub) == 1 && sub.pendingSwitch(of: pub) == 1)
        #expect(sub.route(.video, layer: 1, from: pub) { true } == .switched)
        #expect(sub.route(.video, layer: 4, from: pub) { true } == .drop(.otherLayer))
        sub.audioOnly = [7]
        #expect(sub.route(.video, layer: 1, from: pub) { true } == .drop(.fallback))
        #expect(sub.route(.audio, layer: 0, from: pub) { true } == .forward)
        sub.audioOnly = []
        sub.bandwidthLow = []
        #expect(sub.pendingSwitch(of: pub) == 4, "the downlink recovered: back to what it asked for")
    }

    @Test func subscriptionsAndPublisherStatesDecide() {
        var pub = PublisherState(uid: 7, canPublish: true)
        #expect(pub.admits(.audio) == nil && pub.admits(.video) == nil && pub.admits(.data) == nil)
        pub.audioMuted = true
        #expect(pub.admits(.audio) == .audioMuted && pub.admits(.video) == nil)
        pub.videoMuted = true
        #expect(pub.admits(.video) == .videoMuted && pub.admits(.data) == nil)
        pub.canPublish = false
        #expect(pub.admits(.data) == .notPublisher)

        let single = PublisherState(uid: 7, canPublish: true)
        var audio = AudioSubscription()
        audio.mute(7, true)
        var video = VideoSubscription()
        video.muteAll(true)
        var sub = SubscriberState(audio: audio, video: video)
        #expect(sub.route(.audio, layer: 0, from: single) { false } == .drop(.unsubscribed))
        #expect(sub.route(.video, layer: 0, from: single) { false } == .drop(.unsubscribed))
        #expect(sub.route(.data, layer: 0, from: single) { false } == .forward, "data streams are not subscribed to")
        sub.videoSubscription.muteAll(false)
        // A publisher of one stream: whatever was asked for, its one stream.
        sub.videoSubscription.setStreamType(of: 7, layer: 1)
        #expect(sub.route(.video, layer: 0, from: single) { Issue.record("no keyframe test"); return false } == .forward)
        #expect(sub.forwardedLayer.isEmpty)
    }

    @Test func theRtcpPolicyRoutesEachPacketByWhatItIs() {
        #expect(RtcpRoute(.pictureLossIndication(PictureLossIndication(sender: .none, media: Ssrc(77)))) == .toPublisher(server: 77))
        #expect(RtcpRoute(.fullIntraRequest(FullIntraRequest(sender: .none, entries: [.init(ssrc: Ssrc(78), sequence: 1)])))
                == .toPublisher(server: 78))
        #expect(RtcpRoute(.genericNack(GenericNack(sender: .none, media: Ssrc(77), sequences: [5, 6]))) == .answerNack)
        #expect(RtcpRoute(.genericNack(GenericNack(sender: .none, media: Ssrc(77), pairs: []))) == .end, "nothing asked")
        #expect(RtcpRoute(.receiverReport(ReceiverReport(ssrc: Ssrc(1), reports: [ReportBlock(ssrc: Ssrc(77))])))
                == .receiverReport)
        #expect(RtcpRoute(.goodbye(Goodbye(sources: [Ssrc(1)]))) == .end)
        #expect(RtcpRoute(.remb(Remb(sender: .none, bitrate: 500_000, ssrcs: [Ssrc(77)]))) == .end, "the server makes its own")
        // A subscriber's sender report is not a publisher's compound: it ends here too.
        let sr = SenderReport(ssrc: Ssrc(10), ntpTime: 1, rtpTimestamp: 2, packetCount: 3, octetCount: 4)
        #expect(RtcpRoute(.senderReport(sr)) == .end)
        // An unknown feedback type naming a stream goes to its publisher.
        var app = [UInt8](repeating: 0, count: 12)
        app[0] = 0x8F; app[1] = 206; app[3] = 2; app[11] = 99
        #expect(RtcpRoute(.unknown(type: .payloadSpecificFeedback, format: 15, bytes: app)) == .toPublisher(server: 99))
    }

    @Test func aPublishersReportsAreRenamedToTheServersSsrcs() {
        let sr = SenderReport(ssrc: Ssrc(10), ntpTime: 1, rtpTimestamp: 2, packetCount: 3, octetCount: 4)
        let unknown = SenderReport(ssrc: Ssrc(11), ntpTime: 1, rtpTimestamp: 2, packetCount: 3, octetCount: 4)
        let sdes = SourceDescription(chunks: [.init(source: Ssrc(10), items: [.init(type: 1, value: Array("cname".utf8))])])
        let bye = Goodbye(sources: [Ssrc(10)])
        let out = RtcpRoute.publisherReports([.senderReport(sr), .sourceDescription(sdes), .senderReport(unknown), .goodbye(bye)],
                                             ssrcMap: [10: 5000])
        guard case .senderReport(let a) = out[0], case .sourceDescription(let b) = out[1],
              case .senderReport(let c) = out[2], case .goodbye = out[3] else {
            Issue.record("the packets keep their kinds and order: \(out)")
            return
        }
        #expect(a.ssrc == Ssrc(5000) && a.ntpTime == 1 && a.packetCount == 3)
        #expect(b.chunks[0].source == Ssrc(5000) && b.chunks[0].items == sdes.chunks[0].items)
        #expect(c.ssrc == Ssrc(11), "an SSRC the server does not know travels unchanged")
        #expect(out[3] == .goodbye(bye))
    }
}
