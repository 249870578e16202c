import AgoraishWire
import Testing

/// Generic NACK, RTX, the sender's history and the receiver's NACK schedule.
@Suite struct RetransmissionTests {
    @Test func aNackNamesExactlyTheSequencesAskedForAcrossAWrap() throws {
        let asked: [UInt16] = [65530, 65531, 65535, 0, 3, 40, 41, 57]
        let bytes = GenericNack(sender: 0x01020304, media: 0xA0B0C0D0, sequences: asked).bytes
        let parsed = try GenericNack.parse(bytes)
        #expect(parsed.media == 0xA0B0C0D0)
        #expect(Set(parsed.sequences) == Set(asked))
        // 65530 covers through 0 and 3 (within 16), 40 covers 41 and 56 is out: 3 pairs.
        #expect(bytes.count == 12 + 3 * 4)
        #expect(bytes.withUnsafeBytes { RtcpCompound($0).isWellFormed })
        // Not a NACK, or shorter than it says: nil.
        var pli = bytes
        pli[0] = 0x81 & ~0x1F | 1
        pli[1] = 206
        #expect((try? GenericNack.parse(pli)) == nil)
        #expect((try? GenericNack.parse(Array(bytes.prefix(14)))) == nil)
        for n in 0..<bytes.count { _ = try? GenericNack.parse(Array(bytes.prefix(n))) }
    }

    @Test func rtxWrapsAndUnwrapsThePacket() throws {
        let original = RtpHeader(marker: true, payloadType: 96, sequenceNumber: 4242, timestamp: 9000, ssrc: 77).serialized
            + [1, 2, 3, 4, 5]
        let rtx = try #require(RtxPacket.wrap(original, rtxPayloadType: 97, rtxSsrc: 78, rtxSequence: 10))
        let h = try #require(rtx.withUnsafeBytes { try? RtpHeader.parse($0) })
        #expect(h.payloadType == 97 && h.ssrc == 78 && h.sequenceNumber == 10 && h.timestamp == 9000 && h.marker)
        #expect(Array(rtx[h.payloadOffset...]) == [0x10, 0x92, 1, 2, 3, 4, 5])
        let back = try #require(rtx.withUnsafeBytes { RtxPacket.unwrap($0, payloadType: 96, ssrc: 77) })
        #expect(back == original)
        #expect(Array(rtx.prefix(13)).withUnsafeBytes { RtxPacket.unwrap($0, payloadType: 96, ssrc: 77) } == nil)
    }

    @Test func theHistoryKeepsRecentPacketsOnly() {
        var history = PacketHistory(capacity: 8, maxAge: .milliseconds(500))
        let t0 = Instant(nanoseconds: 0)
        for s in UInt16(0)..<12 { history.store([UInt8(s)], sequence: s, now: t0 + .milliseconds(Int64(s) * 10)) }
        #expect(history.packet(11, now: t0 + .milliseconds(200)) == [11])
        #expect(history.packet(3, now: t0 + .milliseconds(200)) == nil, "overwritten by 11")
        #expect(history.packet(4, now: t0 + .milliseconds(200)) == [4])
        #expect(history.packet(4, now: t0 + .seconds(1)) == nil, "too old")
    }

    @Test func gapsAreAskedForAtOnceThenEveryRoundTripUntilTheyArriveOrAreGivenUp() {
        var list = NackList()
        list.maxRetries = 3
        let t0 = Instant(nanoseconds: 1_000_000_000)
        list.received(65533, now: t0)
        list.received(65534, now: t0)
        list.received(2, now: t0)  // 65535, 0, 1 missing across the wrap
        #expect(list.due(now: t0, rtt: .milliseconds(50)) == [65535, 0, 1])
        #expect(list.due(now: t0 + .milliseconds(30), rtt: .milliseconds(50)).isEmpty, "not before a round trip")
        list.received(0, now: t0 + .milliseconds(40))
        #expect(list.recovered == 1)
        #expect(list.due(now: t0 + .milliseconds(50), rtt: .milliseconds(50)) == [65535, 1])
        #expect(list.due(now: t0 + .milliseconds(100), rtt: .milliseconds(50)) == [65535, 1])
        #expect(list.due(now: t0 + .milliseconds(150), rtt: .milliseconds(50)).isEmpty, "three tries each")
        #expect(list.abandoned == 2 && list.count == 0)
        // A late duplicate or a packet older than everything changes nothing.
        list.received(2, now: t0 + .milliseconds(200))
        #expect(list.count == 0)
        // A jump far ahead is a restart, not 10000 losses.
        list.received(12_000, now: t0 + .milliseconds(300))
        #expect(list.count == 0)
    }
}

/// Sender and receiver reports and the round trip read from them.
@Suite struct RtcpReportTests {
    @Test func aReceiverReportAnswersASenderReportWithTheRoundTrip() throws {
        let sentAt = RtcpReport.ntp(unixNanoseconds: 1_700_000_000_123_000_000)
        let sr = SenderReport(ssrc: 42, ntpTime: sentAt, rtpTimestamp: 9000, packetCount: 10, octetCount: 1000).bytes
        #expect(sr.count == 28 && sr.withUnsafeBytes { RtcpCompound($0).isWellFormed })
        let parsed = try SenderReport.parse(sr)
        #expect(parsed.ssrc == 42 && parsed.ntpTime == sentAt)
        // Answered after 5 ms of the server's own delay, arriving 30 ms after it was sent.
        let block = ReportBlock(ssrc: 42, fractionLost: 64, cumulativeLost: -3, highestSequence: 70_000,
                                     lastSR: RtcpReport.middle(sentAt), delaySinceLastSR: 5 * 65536 / 1000)
        let rr = ReceiverReport(ssrc: 1, reports: [block]).bytes
        #expect(rr.count == 32 && rr.withUnsafeBytes { RtcpCompound($0).isWellFormed })
        let back = try ReceiverReport.parse(rr).reports
        #expect(back == [block])
        let arrival = RtcpReport.ntp(unixNanoseconds: 1_700_000_000_153_000_000)
        let rtt = try #require(RtcpReport.roundTrip(back[0], arrivalNtp: arrival))
        #expect(abs(rtt.milliseconds - 25) <= 1, "\(rtt)")
        #expect(RtcpReport.roundTrip(ReportBlock(ssrc: 1), arrivalNtp: arrival) == nil)
        // Truncated packets give nothing, and never crash.
        for n in 0..<rr.count { #expect((try? ReceiverReport.parse(Array(rr.prefix(n)))) == nil) }
        #expect((try? SenderReport.parse(Array(sr.prefix(27)))) == nil)
    }
}

/// The counts behind receiver reports and loss figures.
@Suite struct SequenceCounterTests {
    @Test func lossIsCountedAcrossAWrapAndPerReport() {
        var c = SequenceCounter()
        for s: UInt16 in [65530, 65531, 65533, 65535, 0, 1] { c.count(s) }  // 65532, 65534 missing
        #expect(c.expected == 8 && c.received == 6)
        let r = c.report()
        #expect(r.fraction == UInt8(2 * 256 / 8) && r.cumulative == 2 && r.highest == 0x1_0001)
        for s: UInt16 in 2...9 { c.count(s) }  // nothing lost since
        #expect(c.report().fraction == 0)
        c.count(5)  // a late duplicate does not move the highest number
        #expect(c.expected == 16)
    }

    @Test func gapsAreRememberedWithTheirLengthsForTheWindowAsked() {
        var list = NackList()
        let t0 = Instant(nanoseconds: 1_000_000_000)
        #expect(list.longestRecentGap(now: t0, window: .seconds(10)) == 0, "nothing seen: no gap")
        list.received(100, now: t0)
        list.received(101, now: t0)
        list.received(106, now: t0 + .milliseconds(100))   // 102...105 missing: a burst of 4
        list.received(108, now: t0 + .seconds(4))          // 107: a lone loss
        list.received(103, now: t0 + .seconds(4))          // a retransmission is no gap
        #expect(list.recentGaps.map(\.length) == [4, 1])
        #expect(list.longestRecentGap(now: t0 + .seconds(5), window: .seconds(10)) == 4)
        // The burst leaves the window first; the lone loss is still in it.
        #expect(list.longestRecentGap(now: t0 + .seconds(11), window: .seconds(10)) == 1)
        #expect(list.longestRecentGap(now: t0 + .seconds(15), window: .seconds(10)) == 0)
        // Across a wrap, and no more than gapHistory of them.
        var wrapped = NackList()
        wrapped.received(65534, now: t0)
        wrapped.received(2, now: t0)                       // 65535, 0, 1 missing
        #expect(wrapped.recentGaps.map(\.length) == [3])
        for k in 0..<(NackList.gapHistory + 5) { wrapped.received(UInt16(4 + 2 * k), now: t0) }
        #expect(wrapped.recentGaps.count == NackList.gapHistory)
        #expect(wrapped.longestRecentGap(now: t0, window: .seconds(10)) == 1, "the burst of 3 was pushed out")
    }
}
