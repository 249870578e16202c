import AgoraishWire
import Testing

/// Data streams' wire and reliability logic on a virtual clock and a seeded lossy link.
@Suite struct DataStreamTests {
    typealias Header = DataStreamPacket.Header

    @Test func headersRoundTripAndBrokenOnesAreRefused() {
        let h = Header(kind: .message, ordered: true, syncWithAudio: true, streamId: 5, start: 0xFFFE,
                       sequence: 0xDEAD_BEEF, timestampMs: 1_700_000_000_123)
        let bytes = h.serialized
        #expect(bytes.count == DataStreamPacket.headerSize)
        #expect(bytes.withUnsafeBytes { Header.parse($0) } == h)
        for kind in [DataStreamPacket.Kind.keepalive, .videoMetadata, .audioMetadata] {
            let k = Header(kind: kind, streamId: 1)
            #expect(k.serialized.withUnsafeBytes { Header.parse($0) } == k)
        }
        var other = bytes
        other[0] = 0x80  // version 2
        #expect(other.withUnsafeBytes { Header.parse($0) } == nil)
        other = bytes
        other[0] = 0x4F  // an unknown kind
        #expect(other.withUnsafeBytes { Header.parse($0) } == nil)
        #expect(Array(bytes.prefix(15)).withUnsafeBytes { Header.parse($0) } == nil)
    }

    @Test func theSenderKeepsAgorasLimits() throws {
        var s = DataStreamSender()
        var ids: [Int32] = []
        for i in 0..<5 { ids.append(try s.create(reliable: i % 2 == 0, ordered: true, syncWithAudio: false)) }
        #expect(Set(ids).count == 5)
        #expect(throws: DataStreamSender.Refusal.tooManyStreams) { _ = try s.create(reliable: true, ordered: true, syncWithAudio: false) }
        let t0 = Instant(nanoseconds: 1_000_000_000)
        #expect(throws: DataStreamSender.Refusal.unknownStream) { _ = try s.admit(streamId: 77, size: 1, now: t0, wallClockMs: 0) }
        #expect(throws: DataStreamSender.Refusal.tooLarge) { _ = try s.admit(streamId: ids[0], size: 1025, now: t0, wallClockMs: 0) }
        // 30 messages within a second, numbered per stream from 0.
        for i in 0..<30 {
            let (h, reliable) = try s.admit(streamId: ids[i % 2], size: 10, now: t0 + .milliseconds(Int64(i)), wallClockMs: 9)
            #expect(h.sequence == UInt32(i / 2) && h.streamId == UInt8(ids[i % 2]) && h.timestampMs == 9)
            #expect(reliable == (i % 2 == 0))
        }
        #expect(throws: DataStreamSender.Refusal.rateLimited) { _ = try s.admit(streamId: ids[0], size: 1, now: t0 + .milliseconds(985), wallClockMs: 0) }
        // The first of them leaves the window a second after it was sent (less the slack for timer jitter).
        _ = try s.admit(streamId: ids[0], size: 1, now: t0 + .milliseconds(990), wallClockMs: 0)
        // 6 KB: six messages of 1 KB, then not one byte more within the second.
        var b = DataStreamSender()
        let id = try b.create(reliable: true, ordered: true, syncWithAudio: false)
        for i in 0..<6 { _ = try b.admit(streamId: id, size: 1024, now: t0 + .milliseconds(Int64(i)), wallClockMs: 0) }
        #expect(throws: DataStreamSender.Refusal.rateLimited) { _ = try b.admit(streamId: id, size: 1, now: t0 + .milliseconds(500), wallClockMs: 0) }
        _ = try b.admit(streamId: id, size: 1024, now: t0 + .milliseconds(1000), wallClockMs: 0)
        b.clear()
        #expect(b.streams.isEmpty)
        #expect(try b.create(reliable: true, ordered: true, syncWithAudio: false) == 1)
    }

    @Test func keepalivesFollowTheLastReliableItemAndThinOut() {
        var s = DataStreamSender()
        let t0 = Instant(nanoseconds: 0)
        s.reliableSent(now: t0)
        var sent: [Int64] = []
        var t = t0
        while t < t0 + .seconds(20) {
            if s.keepaliveDue(now: t) { sent.append((t - t0).milliseconds) }
            t = t + .milliseconds(5)
        }
        #expect(sent.count == DataStreamSender.keepalives)
        #expect(sent.first == 30)
        // Each wait twice the one before.
        let gaps = zip(sent, sent.dropFirst()).map { $1 - $0 }
        #expect(zip(gaps, gaps.dropFirst()).allSatisfy { abs($1 - 2 * $0) <= 10 })
        #expect(s.nextKeepalive == nil)
    }

    /// A sender and a receiver over a link that loses `loss` percent each way
    /// (retransmissions too), one-way delay 20 ms, on a virtual clock. The
    /// sender answers NACKs from what it keeps, as the engine and the server do.
    struct Link {
        var rng: SplitMix64
        let loss: UInt64
        var now = Instant(nanoseconds: 1_000_000_000)
        var inFlight: [(at: Instant, seq: UInt16, header: Header, payload: [UInt8], reliable: Bool)] = []
        var kept: [UInt16: (Header, [UInt8])] = [:]
        var receiver = DataStreamReceiver()
        var sender = DataStreamSender()
        var sequence: UInt16 = 65_500  // wraps during the run
        var start: UInt16? = nil
        var outputs: [DataStreamReceiver.Output] = []

        init(seed: UInt64, loss: UInt64) {
            rng = SplitMix64(seed: seed)
            self.loss = loss
        }

        mutating func lost() -> Bool { rng.next() % 100 < loss }

        mutating func send(_ h: Header, _ payload: [UInt8], reliable: Bool) {
            var h = h
            let seq = sequence
            if reliable {
                if start == nil { start = seq }
                h.start = start!
                kept[seq] = (h, payload)
                sequence &+= 1
                if h.kind != .keepalive { sender.reliableSent(now: now) }
            }
            if !lost() { inFlight.append((now + .milliseconds(20), seq, h, payload, reliable)) }
        }

        /// Advances the clock by `step`, delivering what is due, answering NACKs and sending keepalives.
        mutating func run(for duration: Duration, step: Duration = .milliseconds(5)) {
            let end = now + duration
            while now < end {
                now = now + step
                let due = inFlight.filter { $0.at <= now }
                inFlight.removeAll { $0.at <= now }
                for p in due {
                    outputs += p.reliable
                        ? receiver.receivedReliable(sequence: p.seq, header: p.header, payload: p.payload, now: now)
                        : receiver.receivedUnreliable(header: p.header, payload: p.payload)
                }
                outputs += receiver.poll(now: now)
                for seq in receiver.nacks(now: now, rtt: .milliseconds(40)) where !lost() {
                    // The NACK reaches the sender 20 ms later; its answer takes another 20 ms (and may be lost).
                    if let (h, payload) = kept[seq], !lost() { inFlight.append((now + .milliseconds(40), seq, h, payload, true)) }
                }
                if sender.keepaliveDue(now: now) {
                    send(Header(kind: .keepalive), [], reliable: true)
                }
            }
        }

        var delivered: [(stream: UInt8, payload: [UInt8])] {
            outputs.compactMap { if case .deliver(let i) = $0 { (i.header.streamId, i.payload) } else { nil } }
        }
        var gaps: [DataStreamReceiver.Gap] { outputs.compactMap { if case .gap(let g) = $0 { g } else { nil } } }
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func reliableStreamsDeliverEveryMessageOnceUnderTwentyPercentLoss(seed: UInt64) {
        var link = Link(seed: seed, loss: 20)
        // 300 messages on each of an ordered and an unordered stream, 40 a second, the first lost often.
        for i in 0..<300 {
            let body = Array("\(i)".utf8)
            link.send(Header(kind: .message, ordered: true, streamId: 1, sequence: UInt32(i)), body, reliable: true)
            link.send(Header(kind: .message, ordered: false, streamId: 2, sequence: UInt32(i)), body, reliable: true)
            link.run(for: .milliseconds(25))
        }
        // Long enough for every keepalive (the last comes 7.65 s after the last item) and its repair.
        link.run(for: .seconds(9))
        let ordered = link.delivered.filter { $0.stream == 1 }.map { Int(String(decoding: $0.payload, as: UTF8.self))! }
        let unordered = link.delivered.filter { $0.stream == 2 }.map { Int(String(decoding: $0.payload, as: UTF8.self))! }
        #expect(ordered == Array(0..<300))
        #expect(unordered.sorted() == Array(0..<300))
        #expect(link.gaps.isEmpty)
        #expect(!link.receiver.waiting)
    }

    @Test func aGapNotFilledInFiveSecondsIsReportedAndTheRestGoesOn() {
        var link = Link(seed: 1, loss: 0)
        var r = DataStreamReceiver()
        let t0 = link.now
        func h(_ seq: UInt32) -> Header { Header(kind: .message, ordered: true, streamId: 3, start: 10, sequence: seq) }
        var out = r.receivedReliable(sequence: 10, header: h(0), payload: [0], now: t0)
        // 11 and 12 never come; 13 and 14 wait for them.
        out += r.receivedReliable(sequence: 13, header: h(3), payload: [3], now: t0)
        out += r.receivedReliable(sequence: 14, header: h(4), payload: [4], now: t0)
        #expect(out == [.deliver(.init(header: h(0), payload: [0]))])
        #expect(r.nacks(now: t0, rtt: .milliseconds(20)).sorted() == [11, 12])
        #expect(r.poll(now: t0 + .milliseconds(4900)).isEmpty)
        let late = r.poll(now: t0 + .seconds(5))
        #expect(late == [.gap(.init(streamId: 3, missed: 3 - 1 - 0, cached: 1)),
                         .deliver(.init(header: h(3), payload: [3])), .deliver(.init(header: h(4), payload: [4]))])
        // What was given up is not delivered if it turns up after all.
        #expect(r.receivedReliable(sequence: 11, header: h(1), payload: [1], now: t0 + .seconds(6)).isEmpty)
        link.run(for: .zero)
    }

    @Test func aReceiverAsksForTheFirstItemsWhenItsFirstPacketCameLater() {
        var r = DataStreamReceiver()
        let t0 = Instant(nanoseconds: 0)
        func h(_ seq: UInt32) -> Header { Header(kind: .message, ordered: true, streamId: 1, start: 65_534, sequence: seq) }
        // The sender's first two items (65534, 65535) were lost; 0 arrives first.
        #expect(r.receivedReliable(sequence: 0, header: h(2), payload: [2], now: t0).isEmpty)
        #expect(r.nacks(now: t0, rtt: .milliseconds(20)).sorted() == [65_534, 65_535])
        let out = r.receivedReliable(sequence: 65_534, header: h(0), payload: [0], now: t0)
            + r.receivedReliable(sequence: 65_535, header: h(1), payload: [1], now: t0)
        #expect(out.compactMap { if case .deliver(let i) = $0 { i.payload } else { nil } } == [[0], [1], [2]] as [[UInt8]])
        // Far after the first item (a receiver that joined late): it starts where it is.
        var late = DataStreamReceiver()
        func far(_ seq: UInt32) -> Header { Header(kind: .message, ordered: true, streamId: 1, start: 100, sequence: seq) }
        #expect(late.receivedReliable(sequence: 500, header: far(9), payload: [9], now: t0).count == 1)
        #expect(late.nacks(now: t0, rtt: .milliseconds(20)).isEmpty)
    }

    @Test func unreliableStreamsReportGapsAndDropWhatIsLate() {
        var r = DataStreamReceiver()
        func h(_ seq: UInt32, ordered: Bool) -> Header { Header(kind: .message, ordered: ordered, streamId: ordered ? 1 : 2, sequence: seq) }
        #expect(r.receivedUnreliable(header: h(0, ordered: true), payload: [0]).count == 1)
        #expect(r.receivedUnreliable(header: h(4, ordered: true), payload: [4])
                == [.gap(.init(streamId: 1, missed: 3, cached: 0)), .deliver(.init(header: h(4, ordered: true), payload: [4]))])
        #expect(r.receivedUnreliable(header: h(2, ordered: true), payload: [2]).isEmpty)  // late: an ordered stream moved on
        #expect(r.receivedUnreliable(header: h(4, ordered: true), payload: [4]).isEmpty)  // a duplicate
        #expect(r.receivedUnreliable(header: h(0, ordered: false), payload: [0]).count == 1)
        #expect(r.receivedUnreliable(header: h(3, ordered: false), payload: [3]).count == 2)  // a gap of 2, then it
        #expect(r.receivedUnreliable(header: h(1, ordered: false), payload: [1]).count == 1)  // late, unordered: taken once
        #expect(r.receivedUnreliable(header: h(1, ordered: false), payload: [1]).isEmpty)
        #expect(r.receivedUnreliable(header: Header(kind: .keepalive), payload: []).isEmpty)
    }
}
