import AgoraishIO
import AgoraishWire

/// The last-mile probe on the engine's media transport (docs/network.md,
/// Last-mile test and probe): probe packets sent on the uplink and measured
/// from the server's transport-wide feedback, and the server's probes
/// measured as they arrive.
extension MediaTransport {
    /// The last-mile probe's measurements (docs/network.md): uplink probes
    /// sent and what the server's feedback said of them; downlink probes as they came.
    struct ProbeState {
        var uplink = ProbeMeter()
        var downlink = ProbeMeter()
        /// Uplink probes not yet reported: transport-wide number -> (index, send time µs, size).
        var inFlight: [UInt16: (index: Int64, sentUs: Int64, size: Int)] = [:]
        var nextIndex: Int64 = 0
        var rtpSequence: UInt16 = 0
        /// Downlink: the highest transport-wide number (unwrapped) and the first RTP timestamp, for unwrapping.
        var downHighest: Int64? = nil
        var downFirstTimestamp: UInt32? = nil
    }

    /// The probe's figures so far: uplink (from feedback) and downlink. Any thread.
    var probeResults: (uplink: ProbeMeter.Result?, downlink: ProbeMeter.Result?) {
        probe.withLock { ($0.uplink.result, $0.downlink.result) }
    }

    /// Forgets earlier probe measurements. Any thread.
    func resetProbe() { probe.withLock { $0 = ProbeState() } }

    /// Sends probe packets (1200 bytes, payload type 127) at `bitrate` for
    /// `duration`, the share due every 5 ms. Any thread.
    func startUplinkProbe(bitrate: Int, duration: Duration) { sendProbes(bitrate: bitrate, duration: duration, measured: true) }

    /// While the server sends downlink probes at `bitrate`: the server sends a
    /// client at most ten times what it receives from it (docs/server.md,
    /// Limits and abuse), so the engine sends a sixth of the rate back,
    /// starting with three packets at once. These are not measured. Any thread.
    func sendProbeCredit(bitrate: Int, duration: Duration) {
        sendProbes(bitrate: bitrate / 6, duration: duration, measured: false, head: 3)
    }

    private func sendProbes(bitrate: Int, duration: Duration, measured: Bool, head: Int = 0) {
        _ = loop.post { [weak self] in
            guard let self, !self.closed else { return }
            let start = Instant.now()
            var sent = 0
            func tick() {
                guard !closed else { return }
                let now = Instant.now()
                let due = head * ProbePacket.size
                    + Int(Double(bitrate) / 8 * Double(min(now - start, duration).nanosecondsClamped) / 1e9)
                while sent + ProbePacket.size <= due {
                    let seq = probe.withLock { p -> UInt16 in defer { p.rtpSequence &+= 1 }; return p.rtpSequence }
                    let sentUs = now.nanoseconds / 1000
                    var packet = ProbePacket.make(ssrc: paddingSsrc, sequence: seq, sentUs: sentUs)
                    let n = packet.count
                    packet += [UInt8](repeating: 0, count: SrtpSession.maxTrailer)
                    packet.withUnsafeMutableBytes { raw in
                        transmit(rtp: raw.baseAddress!, length: n)
                        if measured,
                           let (tseq, _) = TransportFeedback.sequenceNumber(in: UnsafeRawBufferPointer(rebasing: raw[0..<n])) {
                            probe.withLock { p in
                                p.inFlight[tseq] = (p.nextIndex, sentUs, n)
                                p.nextIndex += 1
                            }
                        }
                    }
                    sent += n
                }
                if now - start < duration { _ = loop.schedule(after: .milliseconds(5)) { tick() } }
            }
            tick()
        }
    }

    /// A downlink probe packet arrived (after the simulated network).
    func probeArrived(_ raw: UnsafeRawBufferPointer) {
        guard let (tseq, _) = TransportFeedback.sequenceNumber(in: raw) else { return }
        let ts = readBE32(raw, 4), now = Instant.now().nanoseconds / 1000
        probe.withLock { p in
            let index: Int64
            if let h = p.downHighest {
                index = h + Int64(Int16(bitPattern: tseq &- UInt16(truncatingIfNeeded: h)))
            } else {
                index = Int64(tseq)
            }
            p.downHighest = max(p.downHighest ?? index, index)
            let first = p.downFirstTimestamp ?? ts
            p.downFirstTimestamp = first
            // The sender's clock in µs (low 32 bits), unwrapped from the first.
            let sentUs = Int64(Int32(bitPattern: ts &- first))
            p.downlink.add(sequence: index, sentUs: sentUs, arrivalUs: now, size: raw.count)
        }
    }
}
