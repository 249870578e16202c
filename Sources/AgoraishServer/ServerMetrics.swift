import AgoraishWire

/// Counters and the join latency histogram behind `/metrics` (Prometheus text
/// format 0.0.4). Loop thread only.
final class ServerMetrics {
    var connectionsOpened = 0
    var connectionsClosed = 0
    var connectionsRefused = 0
    /// What budgets refused or closed, by reason (docs/server.md, Limits and abuse).
    var refusals: [String: Int] = [:]
    var messagesIn = 0
    var messagesOut = 0
    var joins = 0
    var resumes = 0
    var protocolErrors = 0
    var leaves: [Int64: Int] = [:]
    var joinRejections: [Int32: Int] = [:]
    /// Upper bounds of the join latency buckets, in seconds.
    let bounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
    var bucketCounts: [Int]
    var latencySum = 0.0
    var latencyCount = 0

    init() { bucketCounts = Array(repeating: 0, count: bounds.count) }

    /// Records one join answered `latency` after its connection was accepted.
    func observeJoinLatency(_ latency: Duration) {
        let seconds = Double(latency.nanosecondsClamped) / 1e9
        for (i, b) in bounds.enumerated() where seconds <= b { bucketCounts[i] += 1 }
        latencySum += seconds
        latencyCount += 1
    }

    func prometheusText(core: SignalingCore, media: MediaCounters?) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, String)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for (labels, value) in samples { out += "\(name)\(labels) \(value)\n" }
        }
        metric("agoraish_channels", "gauge", "Channels with at least one user.", [("", "\(core.channelCount)")])
        metric("agoraish_users", "gauge", "Users in channels, connected or waiting to resume.", [("", "\(core.sessionCount)")])
        metric("agoraish_signaling_connections", "gauge", "Open signaling connections.", [("", "\(core.connectionCount)")])
        metric("agoraish_signaling_connections_total", "counter", "Signaling connections accepted.", [("", "\(connectionsOpened)")])
        metric("agoraish_connections_refused_total", "counter", "Connections closed at once: the connection limit was reached.",
               [("", "\(connectionsRefused)")])
        metric("agoraish_signaling_messages_in_total", "counter", "Signaling messages received.", [("", "\(messagesIn)")])
        metric("agoraish_signaling_messages_out_total", "counter", "Signaling messages sent.", [("", "\(messagesOut)")])
        metric("agoraish_joins_total", "counter", "Joins accepted.", [("", "\(joins)")])
        metric("agoraish_resumes_total", "counter", "Sessions resumed on a new connection.", [("", "\(resumes)")])
        metric("agoraish_join_rejections_total", "counter", "Joins refused, by error code.",
               joinRejections.keys.sorted().map { ("{code=\"\($0)\"}", "\(joinRejections[$0]!)") })
        metric("agoraish_leaves_total", "counter", "Users who left, by offline reason.",
               leaves.keys.sorted().map { ("{reason=\"\($0)\"}", "\(leaves[$0]!)") })
        metric("agoraish_protocol_errors_total", "counter", "Malformed signaling messages.", [("", "\(protocolErrors)")])
        metric("agoraish_unauthenticated_connections", "gauge", "Signaling connections without a session.",
               [("", "\(core.unauthenticatedConnectionCount)")])
        metric("agoraish_private_sessions", "gauge", "Echo tests and last-mile probes in progress.",
               [("", "\(core.privateSessionCount)")])
        metric("agoraish_refusals_total", "counter", "What the budgets refused or closed, by reason (docs/server.md).",
               refusals.keys.sorted().map { ("{reason=\"\($0)\"}", "\(refusals[$0]!)") })
        if let media {
            metric("agoraish_media_packets_in_total", "counter", "Datagrams received on the media port.",
                   [("", "\(media.packetsIn.load(ordering: .relaxed))")])
            metric("agoraish_media_bytes_in_total", "counter", "Bytes received on the media port.",
                   [("", "\(media.bytesIn.load(ordering: .relaxed))")])
            metric("agoraish_media_packets_out_total", "counter", "Datagrams sent from the media port.",
                   [("", "\(media.packetsOut.load(ordering: .relaxed))")])
            metric("agoraish_media_bytes_out_total", "counter", "Bytes sent from the media port.",
                   [("", "\(media.bytesOut.load(ordering: .relaxed))")])
            metric("agoraish_media_stun_bindings_total", "counter", "STUN binding requests answered.",
                   [("", "\(media.stunBindings.load(ordering: .relaxed))")])
            metric("agoraish_media_consent_checks_total", "counter", "Consent checks (RFC 7675) sent to clients.",
                   [("", "\(media.consentChecks.load(ordering: .relaxed))")])
            metric("agoraish_media_consent_expired_total", "counter",
                   "Addresses sent nothing more: they stopped answering consent checks.",
                   [("", "\(media.consentExpired.load(ordering: .relaxed))")])
            metric("agoraish_media_layer_switches_total", "counter",
                   "Subscribers moved to the other stream of a dual-stream publisher, at its keyframe.",
                   [("", "\(media.layerSwitches.load(ordering: .relaxed))")])
            metric("agoraish_media_fast_start_packets_total", "counter",
                   "Cached audio packets sent to joiners that asked for fast start (quick switch).",
                   [("", "\(media.fastStartPackets.load(ordering: .relaxed))")])
            metric("agoraish_media_subscribe_fallbacks_total", "counter",
                   "Times a subscriber's downlink left it only a publisher's audio (subscribe fallback).",
                   [("", "\(media.subscribeFallbacks.load(ordering: .relaxed))")])
            metric("agoraish_media_layer_keyframe_requests_total", "counter",
                   "Keyframes asked of dual-stream publishers for subscribers that changed stream.",
                   [("", "\(media.layerKeyframeRequests.load(ordering: .relaxed))")])
            metric("agoraish_media_nack_requests_total", "counter",
                   "Video packets subscribers asked for again (generic NACK).",
                   [("", "\(media.nackRequests.load(ordering: .relaxed))")])
            metric("agoraish_media_retransmitted_total", "counter",
                   "RTX packets the server sent from its cache in answer to NACKs.",
                   [("", "\(media.retransmitted.load(ordering: .relaxed))")])
            metric("agoraish_media_nacked_upstream_total", "counter",
                   "Video packets the server asked publishers for again.",
                   [("", "\(media.nackedUpstream.load(ordering: .relaxed))")])
            metric("agoraish_media_recovered_upstream_total", "counter",
                   "Video packets that came back from publishers as RTX.",
                   [("", "\(media.recoveredUpstream.load(ordering: .relaxed))")])
            metric("agoraish_media_drops_total", "counter", "Media datagrams dropped, by reason.",
                   MediaDropReason.allCases.map { ("{reason=\"\($0.label)\"}", "\(media.drops($0))") })
        }
        var buckets = bounds.enumerated().map { ("{le=\"\($0.element)\"}", "\(bucketCounts[$0.offset])") }
        buckets.append(("{le=\"+Inf\"}", "\(latencyCount)"))
        out += "# HELP agoraish_join_latency_seconds From accepting a connection to answering its join.\n"
        out += "# TYPE agoraish_join_latency_seconds histogram\n"
        for (labels, value) in buckets { out += "agoraish_join_latency_seconds_bucket\(labels) \(value)\n" }
        out += "agoraish_join_latency_seconds_sum \(latencySum)\n"
        out += "agoraish_join_latency_seconds_count \(latencyCount)\n"
        return out
    }
}
