import AgoraishWire
import Testing

/// Bytes from a hex table: whitespace between bytes, `|` and anything after
/// `#` on a line ignored (field notes).
private func hex(_ table: String) -> [UInt8] {
    table.split(separator: "\n").flatMap { line in
        line.prefix { $0 != "#" }.split(whereSeparator: { $0 == " " || $0 == "|" }).map { UInt8($0, radix: 16)! }
    }
}

/// Every prefix shorter than the packet throws, never traps.
private func expectEveryTruncationThrows<M: RtcpMessage>(_ type: M.Type, _ bytes: [UInt8],
                                                         sourceLocation: SourceLocation = #_sourceLocation) {
    for n in 0..<bytes.count {
        #expect((try? M.parse(Array(bytes.prefix(n)))) == nil, "\(n) bytes", sourceLocation: sourceLocation)
    }
}

/// The RTCP packets one by one (RFC 3550 §6.4–§6.6, RFC 4585 §6.2.1 and
/// §6.3.1, RFC 5104 §4.3.1, draft-alvestrand-rmcat-remb-03) against hex
/// tables written from the RFCs' diagrams, and compound datagrams.
@Suite struct RtcpTests {
    static let senderReport = hex("""
        81 c8 00 0c   # V=2 P=0 RC=1 | PT=200 SR | length 12 words
        00 00 00 2a   # SSRC of sender 42
        e9 08 6c 2b   # NTP timestamp, seconds
        80 00 00 00   # NTP timestamp, fraction (0.5 s)
        00 00 23 28   # RTP timestamp 9000
        00 00 00 0a   # sender's packet count 10
        00 00 03 e8   # sender's octet count 1000
        00 00 00 07   # block: SSRC 7
        40 ff ff fd   # fraction lost 64/256 | cumulative lost -3
        00 01 11 70   # extended highest sequence 70000
        00 00 00 10   # jitter 16
        12 34 56 78   # LSR
        00 00 01 48   # DLSR 328/65536 s
        """)

    @Test func aSenderReportReadsAndWritesItsRfcLayout() throws {
        let sr = try SenderReport.parse(Self.senderReport)
        #expect(sr.ssrc == 42 && sr.ntpTime == 0xE908_6C2B_8000_0000 && sr.rtpTimestamp == 9000)
        #expect(sr.packetCount == 10 && sr.octetCount == 1000 && sr.profileExtensions.isEmpty)
        #expect(sr.reports == [ReportBlock(ssrc: 7, fractionLost: 64, cumulativeLost: -3, highestSequence: 70_000,
                                           jitter: 16, lastSR: 0x1234_5678, delaySinceLastSR: 328)])
        #expect(sr.bytes == Self.senderReport && sr.encodedSize == 52)
        expectEveryTruncationThrows(SenderReport.self, Self.senderReport)
        // Without blocks: the 28 bytes the engine sends once a second per stream.
        let bare = SenderReport(ssrc: 42, ntpTime: sr.ntpTime, rtpTimestamp: 9000, packetCount: 10, octetCount: 1000)
        #expect(bare.bytes == [0x80, 200, 0, 6] + Array(Self.senderReport[4..<28]))
    }

    @Test func aReceiverReportReadsAndWritesItsRfcLayout() throws {
        let bytes = hex("""
            81 c9 00 07   # V=2 P=0 RC=1 | PT=201 RR | length 7 words
            00 00 00 00   # SSRC of packet sender (the server: 0)
            """) + Self.senderReport[28...]
        let rr = try ReceiverReport.parse(bytes)
        #expect(rr.ssrc == 0 && rr.reports.count == 1 && rr.reports[0].cumulativeLost == -3)
        #expect(rr.bytes == bytes)
        expectEveryTruncationThrows(ReceiverReport.self, bytes)
        // An SR is not an RR.
        #expect(throws: WireError.self) { try ReceiverReport.parse(Self.senderReport) }
    }

    @Test func reportBlocksClampTheirLossAndStopAtThirtyOne() throws {
        let blocks = (0..<40).map { ReportBlock(ssrc: Ssrc(UInt32($0)), cumulativeLost: $0 == 0 ? 9_000_000 : -9_000_000) }
        let rr = ReceiverReport(ssrc: 1, reports: blocks)
        #expect(rr.encodedSize == 8 + 31 * 24)
        let back = try ReceiverReport.parse(rr.bytes)
        #expect(back.reports.count == 31 && back.reports[30].ssrc == 30)
        #expect(back.reports[0].cumulativeLost == 0x7F_FFFF && back.reports[1].cumulativeLost == -0x80_0000)
    }

    @Test func sourceDescriptionChunksEndWithNullsToAWord() throws {
        let bytes = hex("""
            82 ca 00 07   # V=2 P=0 SC=2 | PT=202 SDES | length 7 words
            11 22 33 44   # chunk 1: SSRC
            01 09 75 73   # CNAME, 9 octets: "us
            65 72 40 68   # er@h
            6f 73 74 00   # ost" | end of items
            55 66 77 88   # chunk 2: SSRC
            01 02 61 62   # CNAME, 2 octets: "ab"
            06 01 78 00   # TOOL, 1 octet: "x" | end of items
            """)
        let sdes = try SourceDescription.parse(bytes)
        #expect(sdes.chunks.count == 2)
        #expect(sdes.chunks[0].source == 0x1122_3344 && sdes.chunks[0].cname == "user@host")
        #expect(sdes.chunks[1].items == [.cname("ab"), .init(type: SourceDescription.Item.toolType, value: [0x78])])
        #expect(sdes.bytes == bytes)
        expectEveryTruncationThrows(SourceDescription.self, bytes)
        // Items that end exactly on a word still get a whole word of nulls.
        let exact = SourceDescription(chunks: [.init(source: 1, items: [.cname("ab")])])
        #expect(exact.bytes == hex("81 ca 00 03 | 00 00 00 01 | 01 02 61 62 | 00 00 00 00"))
        #expect(try SourceDescription.parse(exact.bytes) == exact)
    }

    @Test func aGoodbyeNamesItsSourcesAndItsReason() throws {
        let bytes = hex("""
            82 cb 00 03   # V=2 P=0 SC=2 | PT=203 BYE | length 3 words
            11 22 33 44   # SSRC
            55 66 77 88   # SSRC
            03 62 79 65   # reason, 3 octets: "bye"
            """)
        let bye = try Goodbye.parse(bytes)
        #expect(bye.sources == [0x1122_3344, 0x5566_7788] && bye.reason == Array("bye".utf8))
        #expect(bye.bytes == bytes)
        expectEveryTruncationThrows(Goodbye.self, bytes)
        let silent = Goodbye(sources: [9])
        #expect(silent.bytes == hex("81 cb 00 01 | 00 00 00 09"))
        #expect(try Goodbye.parse(silent.bytes) == silent)
    }

    @Test func aGenericNackCarriesPidAndBlpPairs() throws {
        let bytes = hex("""
            81 cd 00 04   # V=2 P=0 FMT=1 | PT=205 RTPFB | length 4 words
            00 00 00 01   # SSRC of packet sender
            00 00 00 02   # SSRC of media source
            00 64 00 05   # PID 100 | BLP: 101, 103
            ff ff 80 00   # PID 65535 | BLP: bit 15 = 65535 + 16 = 15
            """)
        let nack = try GenericNack.parse(bytes)
        #expect(nack.sender == 1 && nack.media == 2)
        #expect(nack.sequences == [100, 101, 103, 65535, 15])
        #expect(nack.bytes == bytes)
        #expect(GenericNack(sender: 1, media: 2, sequences: [100, 101, 103]).pairs == [.init(pid: 100, blp: 5)])
        expectEveryTruncationThrows(GenericNack.self, bytes)
        // A PLI is not a NACK.
        #expect(throws: WireError.self) { try GenericNack.parse(PictureLossIndication(sender: 1, media: 2).bytes) }
    }

    @Test func aPictureLossIndicationIsTwelveBytes() throws {
        let bytes = hex("""
            81 ce 00 02   # V=2 P=0 FMT=1 | PT=206 PSFB | length 2 words
            a0 b0 c0 d0   # SSRC of packet sender
            01 02 03 04   # SSRC of media source
            """)
        let pli = try PictureLossIndication.parse(bytes)
        #expect(pli == PictureLossIndication(sender: 0xA0B0_C0D0, media: 0x0102_0304))
        #expect(pli.bytes == bytes && pli.encodedSize == 12)
        expectEveryTruncationThrows(PictureLossIndication.self, bytes)
        // Room for the SRTCP trailer, zeroed, in the same array.
        #expect(pli.serialized(trailer: 16) == bytes + [UInt8](repeating: 0, count: 16))
    }

    @Test func aFullIntraRequestNamesItsStreamsInTheFci() throws {
        let bytes = hex("""
            84 ce 00 06   # V=2 P=0 FMT=4 | PT=206 PSFB | length 6 words
            00 00 00 01   # SSRC of packet sender
            00 00 00 00   # SSRC of media source: unused
            11 22 33 44   # FCI: SSRC
            07 00 00 00   # Seq nr. 7 | reserved
            55 66 77 88   # FCI: SSRC
            08 00 00 00   # Seq nr. 8 | reserved
            """)
        let fir = try FullIntraRequest.parse(bytes)
        #expect(fir.sender == 1 && fir.media == .none)
        #expect(fir.entries == [.init(ssrc: 0x1122_3344, sequence: 7), .init(ssrc: 0x5566_7788, sequence: 8)])
        #expect(fir.bytes == bytes)
        expectEveryTruncationThrows(FullIntraRequest.self, bytes)
        // No entry at all: malformed (RFC 5104 §4.3.1.2).
        #expect(throws: WireError.self) { try FullIntraRequest.parse(hex("84 ce 00 02 | 00 00 00 01 | 00 00 00 00")) }
    }

    @Test func aRembCarriesAMantissaAndExponent() throws {
        let bytes = hex("""
            8f ce 00 05   # V=2 P=0 FMT=15 | PT=206 PSFB | length 5 words
            00 00 00 00   # SSRC of packet sender (the server)
            00 00 00 00   # SSRC of media source: 0
            52 45 4d 42   # "REMB"
            01 0b d0 90   # 1 SSRC | exp 2, mantissa 250000: 1 Mbps
            11 22 33 44   # SSRC feedback
            """)
        let remb = try Remb.parse(bytes)
        #expect(remb.bitrate == 1_000_000 && remb.ssrcs == [0x1122_3344])
        #expect(Remb(sender: .none, bitrate: 1_000_000, ssrcs: [0x1122_3344]).bytes == bytes)
        expectEveryTruncationThrows(Remb.self, bytes)
        // Another application-layer message with the same FMT is not REMB.
        var other = bytes
        other[12] = 0x58
        #expect(throws: WireError.self) { try Remb.parse(other) }
        #expect(try RtcpPacket.parse(other) == .unknown(type: .payloadSpecificFeedback, format: 15, bytes: other))
    }

    @Test func transportFeedbackIsOneOfThePackets() throws {
        let made = try #require(TransportFeedback.serialize(sender: 1, media: 0, feedbackCount: 3, packets: [
            .init(sequence: 65534, arrivalUs: 64_000), .init(sequence: 65535, arrivalUs: nil),
            .init(sequence: 0, arrivalUs: 70_000),
        ]))
        let f = try TransportFeedback.parse(made.bytes)
        #expect(f.bytes == made.bytes && f.encodedSize == made.bytes.count)
        #expect(try RtcpPacket.parse(made.bytes) == .transportFeedback(f))
    }

    @Test func paddingIsReadAndNotWrittenBack() throws {
        // A PLI padded to 16 bytes (P set, last octet counts the 4 bytes of padding).
        let padded = hex("a1 ce 00 03 | 00 00 00 01 | 00 00 00 02 | 00 00 00 04")
        let pli = try PictureLossIndication.parse(padded)
        #expect(pli == PictureLossIndication(sender: 1, media: 2) && pli.encodedSize == 12)
        // Padding that claims more than the packet: malformed.
        var bad = padded
        bad[15] = 17
        #expect(throws: WireError.malformed("RTCP padding")) { try PictureLossIndication.parse(bad) }
        bad[15] = 0
        #expect(throws: WireError.malformed("RTCP padding")) { try PictureLossIndication.parse(bad) }
    }

    @Test func aCompoundReadsIntoTypedPacketsAndWritesBackTheSameBytes() throws {
        let sdes = SourceDescription(chunks: [.init(source: 42, items: [.cname("engine")])])
        let app = hex("80 cc 00 02 | 00 00 00 2a | 6e 61 6d 65")  // APP "name": kept as it is
        let bytes = Self.senderReport + sdes.bytes + PictureLossIndication(sender: 42, media: 7).bytes + app
            + Goodbye(sources: [42]).bytes
        let packets = try RtcpCompound.parse(bytes)
        #expect(packets.count == 5)
        #expect(packets[0] == .senderReport(try SenderReport.parse(Self.senderReport)))
        #expect(packets[1] == .sourceDescription(sdes))
        #expect(packets[2] == .pictureLossIndication(.init(sender: 42, media: 7)))
        #expect(packets[3] == .unknown(type: .application, format: 0, bytes: app))
        #expect(packets[4] == .goodbye(.init(sources: [42])))
        #expect(RtcpCompound.serialized(packets) == bytes)
        #expect(RtcpCompound.encodedSize(packets) == bytes.count)
        // The in-place walk sees the same packets without allocating them.
        let walked = bytes.withUnsafeBytes { raw in RtcpCompound(raw).map { ($0.type, $0.format, $0.length) } }
        #expect(walked.map(\.0) == [.senderReport, .sourceDescription, .payloadSpecificFeedback, .application, .goodbye])
        #expect(walked.map(\.2) == [52, 20, 12, 12, 8])
        // A datagram whose lengths do not add up is refused whole.
        #expect(throws: WireError.self) { try RtcpCompound.parse(Array(bytes.dropLast(1))) }
        #expect(throws: WireError.truncated) { try RtcpCompound.parse([0x80]) }
    }

    @Test func feedbackIsRetargetedToAnotherStream() throws {
        let pli = RtcpPacket.pictureLossIndication(.init(sender: 1, media: 2))
        #expect(pli.feedbackTarget == 2 && pli.retargeted(to: 9).feedbackTarget == 9)
        let fir = RtcpPacket.fullIntraRequest(.init(sender: 1, entries: [.init(ssrc: 2, sequence: 1), .init(ssrc: 3, sequence: 1)]))
        guard case .fullIntraRequest(let moved) = fir.retargeted(to: 9) else { Issue.record("a FIR stays a FIR"); return }
        #expect(moved.entries.map(\.ssrc) == [9, 3] && moved.media == .none)
        // Feedback this module does not type (TMMBR, RTPFB FMT 3) still names its media SSRC in the header.
        let tmmbr = hex("83 cd 00 04 | 00 00 00 01 | 00 00 00 02 | 00 00 00 02 | 04 00 00 28")
        let unknown = try RtcpPacket.parse(tmmbr)
        #expect(unknown.feedbackTarget == 2)
        #expect(unknown.retargeted(to: 0x0A0B_0C0D).serialized() == hex("83 cd 00 04 | 00 00 00 01 | 0a 0b 0c 0d | 00 00 00 02 | 04 00 00 28"))
        // Reports name no one stream.
        #expect(RtcpPacket.receiverReport(.init(ssrc: 1)).feedbackTarget == nil)
        #expect(RtcpPacket.remb(.init(sender: 0, bitrate: 1, ssrcs: [2])).feedbackTarget == nil)
    }

    @Test func garbageThrowsAndWhatReadsWritesBackToTheSameValue() {
        var rng = SplitMix64(seed: 15)
        let seeds: [[UInt8]] = [
            Self.senderReport,
            SourceDescription(chunks: [.init(source: 1, items: [.cname("a"), .cname("bcdef")])]).bytes,
            Goodbye(sources: [1, 2], reason: Array("gone".utf8)).bytes,
            GenericNack(sender: 1, media: 2, sequences: [1, 3, 40]).bytes,
            FullIntraRequest(sender: 1, entries: [.init(ssrc: 5, sequence: 1)]).bytes,
            Remb(sender: 0, bitrate: 123_456_789, ssrcs: [1, 2]).bytes,
        ]
        var typed = 0
        for round in 0..<20_000 {
            var b = seeds[round % seeds.count]
            for _ in 0..<(1 + rng.next() % 3) {
                b[Int(rng.next() % UInt64(b.count))] = UInt8(truncatingIfNeeded: rng.next())
            }
            if round % 7 == 0 { b = (0..<Int(rng.next() % 64)).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
            guard let packet = try? RtcpPacket.parse(b) else { continue }
            typed += 1
            let again = packet.serialized()
            #expect(again.count == packet.encodedSize)
            #expect((try? RtcpPacket.parse(again)) == packet)
        }
        #expect(typed > 1000)
    }

    @Test func theMediaTableSharesOneNumberPerUse() {
        #expect(PayloadType.opus.rtx == .opusRtx && PayloadType.vp8.rtx == .vp8Rtx && PayloadType.vp9.rtx == .vp9Rtx)
        #expect(PayloadType.reliableData.rtx == .reliableDataRtx && PayloadType.unreliableData.rtx == nil)
        // RTX is the media type plus one, which the server relies on when it unwraps.
        for pt in [PayloadType.opus, .vp8, .vp9, .reliableData] { #expect(pt.rtx!.rawValue == pt.rawValue + 1) }
        #expect(PayloadType(0x80 | 96) == .vp8)  // the marker bit is not part of it
        let video: [PayloadType] = [.vp8, .vp9, .vp8Rtx, .vp9Rtx], data: [PayloadType] = [.reliableData, .reliableDataRtx, .unreliableData]
        #expect(video.filter(\.isVideo) == video && !PayloadType.opus.isVideo)
        #expect(data.filter(\.isData) == data && !PayloadType.probe.isData)
        #expect(TransportFeedback.extensionId == HeaderExtensionId.transportSequence)
        #expect(DataStreamPacket.payloadType == PayloadType.reliableData.rawValue)
    }
}
