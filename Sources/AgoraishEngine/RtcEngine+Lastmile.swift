import AgoraishIO
import AgoraishSession
import AgoraishWire

/// Agora's LastmileProbeConfig: which directions to probe and at what rate
/// (bps, 100000...5000000 for each direction probed); and (an agoraish
/// extension) the token and channel name the probe's join presents where the
/// app has a certificate: valid for `channel` ("" is "probe") and uid 0.
public struct LastmileProbeConfig: Sendable, Equatable {
    public var probeUplink: Bool
    public var probeDownlink: Bool
    public var expectedUplinkBitrate: Int
    public var expectedDownlinkBitrate: Int
    /// The token of the probe's join; "" is none.
    public var token: String
    /// The channel name the token is for; "" is "probe".
    public var channel: String

    public init(probeUplink: Bool, probeDownlink: Bool, expectedUplinkBitrate: Int, expectedDownlinkBitrate: Int,
                token: String = "", channel: String = "") {
        self.probeUplink = probeUplink
        self.probeDownlink = probeDownlink
        self.expectedUplinkBitrate = expectedUplinkBitrate
        self.expectedDownlinkBitrate = expectedDownlinkBitrate
        self.token = token
        self.channel = channel
    }
}

/// Agora's LastmileProbeOneWayResult.
public struct LastmileProbeOneWayResult: Sendable, Equatable {
    /// Percent of probe packets lost.
    public var packetLossRate: Int32 = 0
    /// Interarrival jitter (RFC 3550), ms.
    public var jitter: Int32 = 0
    /// The rate the path delivered the probe at, bps.
    public var availableBandwidth: Int32 = 0
    public init() {}
}

/// Agora's LastmileProbeResult.
public struct LastmileProbeResult: Sendable, Equatable {
    /// LASTMILE_PROBE_RESULT_STATE: COMPLETE (1), INCOMPLETE_NO_BWE (2: a
    /// direction probed delivered too little to measure), UNAVAILABLE (3: the
    /// server could not be reached).
    public var state: Int32 = 3
    public var uplinkReport = LastmileProbeOneWayResult()
    public var downlinkReport = LastmileProbeOneWayResult()
    /// Round trip to the server, ms.
    public var rtt: Int32 = 0
    public init() {}
}

/// Pre-call network events.
public enum NetworkEvent: Sendable, Equatable {
    /// onLastmileQuality: QUALITY_TYPE of the last mile.
    case lastmileQuality(Int32)
    /// onLastmileProbeResult.
    case lastmileProbeResult(LastmileProbeResult)
}

/// The last-mile test and probe (docs/network.md, Last-mile probe): a
/// private channel of the server's; the engine sends probe packets and reads
/// the server's transport-wide feedback on them (uplink), then asks the
/// server for probe packets and measures them as they come (downlink).
extension RtcEngine {
    /// How long each direction is probed by startLastmileProbeTest, and by each cycle of enableLastmileTest.
    static let probePhase: Duration = .seconds(2)
    static let qualityPhase: Duration = .milliseconds(700)

    /// startLastmileProbeTest: onLastmileQuality about 2 s in (after the
    /// uplink phase) and onLastmileProbeResult about 5 s in, then the probe's
    /// channel is left.
    ///
    /// A join the server refuses (a certificate and no valid token) reports
    /// FAILED, then at once onLastmileProbeResult UNAVAILABLE, and ends the probe.
    ///
    /// - Throws: `.invalidArgument` when no direction is probed, a probed
    ///   direction's bitrate is outside 100000...5000000 or `channel` is not a
    ///   valid channel name; `.refused` during an echo test, or while a
    ///   last-mile test or probe runs. In a channel the probe runs beside the
    ///   call in a private connection of its own (measuring the path the call
    ///   shares), and ends with its result.
    public func startLastmileProbeTest(_ config: LastmileProbeConfig) throws(AgoraError) {
        let range = 100_000...5_000_000
        guard config.probeUplink || config.probeDownlink,
              !config.probeUplink || range.contains(config.expectedUplinkBitrate),
              !config.probeDownlink || range.contains(config.expectedDownlinkBitrate),
              config.channel.isEmpty || TokenVerifier.isValidChannelName(config.channel)
        else { throw .invalidArgument }
        try beginProbe(.probe(config), token: config.token, channel: config.channel.isEmpty ? "probe" : config.channel)
        log.log(.info, "api startLastmileProbeTest up \(config.probeUplink) \(config.expectedUplinkBitrate) down \(config.probeDownlink) \(config.expectedDownlinkBitrate) channel \(config.channel.isEmpty ? "probe" : config.channel) token \(config.token.isEmpty ? "none" : "given")")
    }

    /// stopLastmileProbeTest. - Throws: `.refused` when no probe runs.
    public func stopLastmileProbeTest() throws(AgoraError) {
        if let test = privateTest.withLock({ $0 }), case .probe = test.lastmile.withLock({ $0.mode }) {
            try? test.stopLastmileProbeTest()
            endPrivateTest()
            log.log(.info, "api stopLastmileProbeTest")
            return
        }
        guard lastmile.withLock({ if case .probe = $0.mode { true } else { false } }) else { throw .refused }
        endProbe()
        log.log(.info, "api stopLastmileProbeTest")
    }

    /// enableLastmileTest: onLastmileQuality every 2 s (0.7 s of probing
    /// each way at the configured video bitrate, at least 100 kbps) until
    /// disableLastmileTest or a join.
    ///
    /// - Throws: `.refused` in a channel, during an echo test, or while a probe runs.
    public func enableLastmileTest() throws(AgoraError) {
        let c = video.settings.withLock { ($0.configuration, $0.liveBroadcasting) }
        let rate = max(100, c.0.effectiveBitrate(liveBroadcasting: c.1)) * 1000
        try beginProbe(.quality(bitrate: min(rate, 5_000_000)))
        log.log(.info, "api enableLastmileTest")
    }

    /// disableLastmileTest. - Throws: `.refused` when the test is not running.
    public func disableLastmileTest() throws(AgoraError) {
        guard lastmile.withLock({ if case .quality = $0.mode { true } else { false } }) else { throw .refused }
        endProbe()
        log.log(.info, "api disableLastmileTest")
    }

    private func beginProbe(_ mode: LastmileMode, token: String = "", channel: String = "probe") throws(AgoraError) {
        try checkServerURL()
        if owner == nil, case .probe(let config) = mode, link.read({ $0.inChannel }) {
            // In a channel, the probe runs in a private connection of its own; its
            // results come to this engine's handler, and it ends with them.
            guard !echoTest.withLock({ $0 }), lastmile.withLock({ $0.mode == nil }) else { throw .refused }
            let test = try privateTestConnection()
            test.audio.settings.withLock { $0.publishMicrophone = false }
            do {
                try test.startLastmileProbeTest(config)
            } catch {
                endPrivateTest()
                throw error
            }
            return
        }
        guard !echoTest.withLock({ $0 }), link.read({ !$0.inChannel }) else { throw .refused }
        let generation = try lastmile.withLock { l throws(AgoraError) -> Int in
            guard l.mode == nil else { throw .refused }
            l.mode = mode
            l.generation += 1
            return l.generation
        }
        do {
            try link.call { s, now throws(SessionError) in try s.startProbeTest(token: token, channel: channel, now: now) }
        } catch {
            lastmile.withLock { $0.mode = nil }
            throw .refused
        }
        let started = Instant.now()
        afterProbe(.milliseconds(50), generation) { [self] in waitForMedia(generation, since: started) }
    }

    /// Ends a running test or probe: its channel is left, pending steps lapse.
    func endProbe() {
        let running = lastmile.withLock { l -> Bool in
            guard l.mode != nil else { return false }
            l.mode = nil
            l.generation += 1
            return true
        }
        guard running else { return }
        video.transport.withLock { $0 }?.resetProbe()
        try? link.call { s, now throws(SessionError) in try s.stopProbeTest(now: now) }
    }

    /// Runs `step` after `delay` on the video thread if the test it belongs to still runs.
    private func afterProbe(_ delay: Duration, _ generation: Int, _ step: @escaping @Sendable () -> Void) {
        let lastmile = self.lastmile
        let loop = video.loop
        _ = loop.post {
            _ = loop.schedule(after: delay) {
                guard lastmile.withLock({ $0.generation == generation && $0.mode != nil }) else { return }
                step()
            }
        }
    }

    private func waitForMedia(_ generation: Int, since: Instant) {
        if let t = video.transport.withLock({ $0 }), t.bound {
            t.resetProbe()
            runCycle(generation)
        } else if Instant.now() - since > .seconds(5) || link.read({ $0.state == .failed }) {
            // The server could not be reached on the media path, or refused the join (a token).
            if case .probe = lastmile.withLock({ $0.mode }) {
                emitNetwork(.lastmileProbeResult(LastmileProbeResult()))
            } else {
                emitNetwork(.lastmileQuality(0))
            }
            endProbe()
        } else {
            afterProbe(.milliseconds(50), generation) { [self] in waitForMedia(generation, since: since) }
        }
    }

    /// One measurement: uplink, then downlink, then the report.
    private func runCycle(_ generation: Int) {
        guard let mode = lastmile.withLock({ $0.mode }), let t = video.transport.withLock({ $0 }) else { return }
        let (up, upRate, down, downRate, phase): (Bool, Int, Bool, Int, Duration)
        switch mode {
        case .probe(let c):
            (up, upRate, down, downRate, phase) = (c.probeUplink, c.expectedUplinkBitrate, c.probeDownlink,
                                                   c.expectedDownlinkBitrate, Self.probePhase)
        case .quality(let rate):
            (up, upRate, down, downRate, phase) = (true, rate, true, rate, Self.qualityPhase)
        }
        t.resetProbe()
        if up { t.startUplinkProbe(bitrate: upRate, duration: phase) }
        // Feedback on the last uplink probes comes within 100 ms.
        let upWait = up ? phase + .milliseconds(300) : .zero
        afterProbe(upWait, generation) { [self] in
            if case .probe = mode { reportQuality(t) }
            if down {
                t.sendProbeCredit(bitrate: downRate, duration: phase + .milliseconds(200))
                try? link.call { s, _ throws(SessionError) in
                    try s.requestDownlinkProbe(bitrate: downRate, durationMs: Int(phase.milliseconds))
                }
            }
            let downWait = down ? phase + .milliseconds(300) : .zero
            afterProbe(downWait, generation) { [self] in
                switch mode {
                case .probe(let c):
                    // The probe's channel is left before the result is reported: a join from the callback works.
                    let r = result(t, c)
                    endProbe()
                    emitNetwork(.lastmileProbeResult(r))
                case .quality:
                    reportQuality(t)
                    runCycle(generation)
                }
            }
        }
    }

    private func rttMs(_ t: MediaTransport) -> Int32 { Int32(clamping: t.rtt?.milliseconds ?? 0) }

    private func reportQuality(_ t: MediaTransport) {
        let r = t.probeResults
        let loss = max(r.uplink?.lossPercent ?? 0, r.downlink?.lossPercent ?? 0)
        let heard = r.uplink != nil || r.downlink != nil
        emitNetwork(.lastmileQuality(heard ? networkQuality(lossPercent: Int32(loss), rttMs: rttMs(t)) : 6))
    }

    private func result(_ t: MediaTransport, _ c: LastmileProbeConfig) -> LastmileProbeResult {
        let r = t.probeResults
        var out = LastmileProbeResult()
        func report(_ m: ProbeMeter.Result?) -> LastmileProbeOneWayResult {
            var o = LastmileProbeOneWayResult()
            guard let m else {
                o.packetLossRate = 100
                return o
            }
            o.packetLossRate = Int32(m.lossPercent)
            o.jitter = Int32(clamping: m.jitterMs)
            o.availableBandwidth = Int32(clamping: m.bandwidthBps)
            return o
        }
        if c.probeUplink { out.uplinkReport = report(r.uplink) }
        if c.probeDownlink { out.downlinkReport = report(r.downlink) }
        out.rtt = rttMs(t)
        let measured = (!c.probeUplink || (r.uplink?.bandwidthBps ?? 0) > 0)
            && (!c.probeDownlink || (r.downlink?.bandwidthBps ?? 0) > 0)
        out.state = measured ? 1 : 2
        return out
    }

    private func emitNetwork(_ e: NetworkEvent) { networkEvents(e) }
}

/// What a last-mile test runs: a probe (startLastmileProbeTest) or the repeating quality test (enableLastmileTest).
enum LastmileMode: Sendable, Equatable {
    case probe(LastmileProbeConfig)
    case quality(bitrate: Int)
}
