@testable import AgoraishIO
import AgoraishWire
import Testing

/// SCTP associations with WebRTC data channels talking to each other in
/// memory: the handshake, DCEP, messages, partial reliability, closing,
/// hostile input, and SCTP over two real DTLS endpoints. Serialized: usrsctp's
/// timers are process-wide, and each pair drives them.
@Suite(.serialized) struct SctpTests {
    @Test func associationComesUpWithCrossingInits() throws {
        let pair = try SctpPair()
        #expect(pair.client.state == .new)
        #expect(pair.connect())
        #expect(pair.client.state == .up && pair.server.state == .up)
        #expect(pair.takeClientEvents() == [.associationUp])
        #expect(pair.takeServerEvents() == [.associationUp])
        #expect(pair.largestPacket <= pair.client.maxPacketSize)
        #expect(pair.client.start().isEmpty, "start is once")
    }

    @Test func peerInitBeforeStartMeetsAnAssociation() throws {
        let pair = try SctpPair()
        pair.fromClient(pair.client.start())  // the browser's INIT arrives first: receive starts the server
        #expect(pair.run(until: { pair.client.state == .up && pair.server.state == .up }))
        #expect(pair.takeServerEvents() == [.associationUp])
    }

    @Test func clientChannelOpensOnTheServerWithItsLabel() throws {
        let pair = try SctpPair.connected()
        let (channel, packets) = try pair.client.open(label: "agoraish-data")
        #expect(channel == 0, "the DTLS client opens even ids")
        pair.fromClient(packets)
        pair.flush()
        #expect(pair.takeServerEvents() == [.open(channel: 0, label: "agoraish-data", protocol: "", ordered: true,
                                                  maxRetransmits: nil, maxLifetimeMs: nil)])
        #expect(pair.takeClientEvents() == [], "no .open for a channel opened here")
        #expect(pair.client.channels == [0] && pair.server.channels == [0])
        let (next, more) = try pair.client.open(label: "second")
        #expect(next == 2)
        pair.fromClient(more)
        pair.flush()
        #expect(pair.takeServerEvents().count == 1)
    }

    @Test func textAndBinaryMessagesArriveInOrderBothWays() throws {
        let pair = try SctpPair.connected()
        let channel = try pair.openFromClient("agoraish-data")
        let big = (0..<60_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let mtuSized = [UInt8](repeating: 0xA5, count: 1200)
        let sent: [([UInt8], Bool)] = [(Array("hello".utf8), false), ([1, 2, 3], true), (mtuSized, true), (big, true),
                                       (Array("after the big one".utf8), false)]
        var packetsBefore = pair.packetsToServer
        for (data, binary) in sent { pair.fromClient(try pair.client.send(channel: channel, data, binary: binary)) }
        #expect(pair.run(until: { pair.serverMessages.count == sent.count }))
        #expect(pair.serverMessages.map(\.data) == sent.map(\.0))
        #expect(pair.serverMessages.map(\.binary) == sent.map(\.1))
        #expect(pair.serverMessages.allSatisfy { $0.channel == channel })
        #expect(pair.packetsToServer - packetsBefore > 50, "60 KB is cut into packets")
        #expect(pair.largestPacket <= pair.client.maxPacketSize)

        packetsBefore = pair.packetsToClient
        for (data, binary) in sent.reversed() { pair.fromServer(try pair.server.send(channel: channel, data, binary: binary)) }
        #expect(pair.run(until: { pair.clientMessages.count == sent.count }))
        #expect(pair.clientMessages.map(\.data) == sent.reversed().map(\.0))
        #expect(pair.clientMessages.map(\.binary) == sent.reversed().map(\.1))
        #expect(pair.largestPacket <= pair.server.maxPacketSize)
    }

    @Test func emptyMessagesKeepTheirKind() throws {
        let pair = try SctpPair.connected()
        let channel = try pair.openFromClient("empty")
        pair.fromClient(try pair.client.send(channel: channel, [], binary: false))
        pair.fromClient(try pair.client.send(channel: channel, [], binary: true))
        pair.flush()
        #expect(pair.serverMessages.map(\.data) == [[], []])
        #expect(pair.serverMessages.map(\.binary) == [false, true])
    }

    @Test func serverOpensChannelsOnOddIdsWithTheirReliability() throws {
        let pair = try SctpPair.connected()
        let (channel, packets) = try pair.server.open(label: "from-server", protocol: "agoraish/1", ordered: false,
                                                      maxLifetimeMs: 250)
        #expect(channel == 1, "the DTLS server opens odd ids")
        pair.fromServer(packets)
        pair.flush()
        #expect(pair.takeClientEvents() == [.open(channel: 1, label: "from-server", protocol: "agoraish/1", ordered: false,
                                                  maxRetransmits: nil, maxLifetimeMs: 250)])
        let (second, more) = try pair.server.open(label: "rtx", maxRetransmits: 3)
        #expect(second == 3)
        pair.fromServer(more)
        pair.flush()
        #expect(pair.takeClientEvents() == [.open(channel: 3, label: "rtx", protocol: "", ordered: true, maxRetransmits: 3,
                                                  maxLifetimeMs: nil)])
        pair.fromClient(try pair.client.send(channel: 1, Array("to the server's channel".utf8), binary: false))
        pair.flush()
        #expect(pair.serverMessages.map(\.channel) == [1])
    }

    @Test func unreliableUnorderedChannelDeliversPastLostPackets() throws {
        let pair = try SctpPair.connected()
        let channel = try pair.openFromClient("lossy", ordered: false, maxRetransmits: 0)
        let lost: Set<Int> = [3, 6]
        for i in 0..<10 {
            let packets = try pair.client.send(channel: channel, [UInt8(i)] + [UInt8](repeating: 0, count: 100), binary: true)
            #expect(!packets.isEmpty, "no delay (SCTP_NODELAY)")
            if lost.contains(i) { continue }  // the network loses message i
            pair.fromClient(packets)
            pair.flush()
        }
        // Unordered: every message that arrived is delivered, without waiting for the lost ones.
        #expect(pair.serverMessages.map { Int($0.data[0]) } == [0, 1, 2, 4, 5, 7, 8, 9])
        // The sender abandons the lost ones (fast retransmission not allowed, FORWARD-TSN):
        // they never arrive, and the channel keeps working.
        pair.run(for: .seconds(1))
        pair.fromClient(try pair.client.send(channel: channel, [10], binary: true))
        pair.flush()
        #expect(pair.serverMessages.map { Int($0.data[0]) } == [0, 1, 2, 4, 5, 7, 8, 9, 10])
        #expect(pair.client.state == .up && pair.server.state == .up)
    }

    @Test func orderedPartiallyReliableChannelSkipsAbandonedMessages() throws {
        let pair = try SctpPair.connected()
        let channel = try pair.openFromClient("ordered-lossy", maxRetransmits: 0)
        for i in 0..<10 {
            let packets = try pair.client.send(channel: channel, [UInt8(i)], binary: true)
            if i != 3 { pair.fromClient(packets) }  // the network loses message 3
            pair.flush()
            // Ordered: 4 and 5 wait for 3. The SACKs for 4, 5 and 6 report 3 missing
            // three times: the sender would fast-retransmit it, but may not retransmit
            // (maxRetransmits 0), so it gives it up and moves the peer on (FORWARD-TSN, RFC 3758).
            if i == 5 { #expect(pair.serverMessages.map { Int($0.data[0]) } == [0, 1, 2]) }
        }
        #expect(pair.serverMessages.map { Int($0.data[0]) } == [0, 1, 2, 4, 5, 6, 7, 8, 9])
    }

    @Test func closingAChannelReportsClosedOnBothSides() throws {
        let pair = try SctpPair.connected()
        let channel = try pair.openFromClient("short-lived")
        pair.fromClient(try pair.client.send(channel: channel, Array("last words".utf8), binary: false))
        pair.fromClient(try pair.client.close(channel: channel))
        #expect(pair.run(until: { pair.server.channels.isEmpty && pair.client.channels.isEmpty }))
        pair.flush()
        #expect(pair.serverMessages.map(\.data) == [Array("last words".utf8)], "data queued before the reset arrives")
        #expect(pair.takeServerEvents().filter { $0 == .closed(channel: channel) }.count == 1)
        #expect(pair.takeClientEvents() == [.closed(channel: channel)])
        #expect(throws: SctpError.noSuchChannel(channel)) { try pair.client.send(channel: channel, [1], binary: true) }
        #expect(throws: SctpError.noSuchChannel(channel)) { try pair.server.send(channel: channel, [1], binary: true) }
        // Both resets done: the id is free again.
        pair.run(for: .milliseconds(100))
        #expect(try pair.openFromClient("again") == channel)
    }

    @Test func closingTheAssociationTakesItsChannelsDown() throws {
        let pair = try SctpPair.connected()
        let channel = try pair.openFromClient("doomed")
        _ = pair.takeClientEvents()
        _ = pair.takeServerEvents()
        pair.fromClient(pair.client.close())
        pair.flush()
        #expect(pair.client.state == .closed)
        #expect(pair.takeClientEvents() == [.closed(channel: channel), .associationDown])
        #expect(pair.server.state == .down, "the peer saw the ABORT")
        #expect(pair.takeServerEvents() == [.closed(channel: channel), .associationDown])
        #expect(pair.client.close().isEmpty, "once")
        #expect(throws: SctpError.notConnected) { try pair.server.send(channel: channel, [1], binary: true) }
        #expect(throws: SctpError.notConnected) { try pair.client.open(label: "late") }
    }

    @Test func limitsAndMisuseAreErrors() throws {
        let pair = try SctpPair()
        #expect(throws: SctpError.notConnected) { try pair.client.open(label: "early") }
        #expect(throws: SctpError.self) { try SctpAssociation(role: .client, maxPacketSize: 100) }
        #expect(pair.connect())
        #expect(throws: SctpError.noSuchChannel(0)) { try pair.client.send(channel: 0, [1], binary: true) }
        #expect(throws: SctpError.noSuchChannel(4)) { try pair.client.close(channel: 4) }
        #expect(throws: SctpError.invalidChannel("maxRetransmits and maxLifetimeMs together")) {
            try pair.client.open(label: "both", maxRetransmits: 1, maxLifetimeMs: 1)
        }
        #expect(throws: SctpError.invalidChannel("label or protocol too long")) {
            try pair.client.open(label: String(repeating: "x", count: 65_536))
        }
        let channel = try pair.openFromClient("limits")
        let limit = SctpAssociation.maxMessageSize
        #expect(throws: SctpError.messageTooLarge(limit + 1)) {
            try pair.client.send(channel: channel, [UInt8](repeating: 1, count: limit + 1), binary: true)
        }
        pair.fromClient(try pair.client.send(channel: channel, [UInt8](repeating: 2, count: limit), binary: true))
        #expect(pair.run(until: { pair.serverMessages.count == 1 }))
        #expect(pair.serverMessages.first?.data.count == limit)
    }

    @Test func garbageAndCorruptPacketsAreIgnored() throws {
        let pair = try SctpPair.connected()
        let channel = try pair.openFromClient("sturdy")
        _ = pair.takeServerEvents()
        var generator = SplitMix64(seed: 7)
        var real: [[UInt8]] = []
        for i in 0..<5 { real += try pair.client.send(channel: channel, [UInt8](repeating: UInt8(i), count: 300), binary: true) }
        for _ in 0..<300 {
            let garbage = (0..<Int.random(in: 0...1500, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            pair.fromServer(pair.server.receive(garbage))
        }
        for p in real {
            var corrupt = p
            corrupt[corrupt.count - 1] ^= 0x40  // the CRC32c no longer matches
            pair.fromServer(pair.server.receive(corrupt))
            pair.fromServer(pair.server.receive(Array(p.prefix(15))))  // cut inside the first chunk
            pair.fromServer(pair.server.receive(SctpAssociation.withChecksum(Array(p.prefix(12)) + [0x00, 0, 0, 0x40])))
        }
        #expect(pair.serverMessages.isEmpty, "nothing corrupt was delivered")
        pair.fromClient(real)  // the intact packets still go through
        #expect(pair.run(until: { pair.serverMessages.count == 5 }))
        #expect(pair.server.state == .up && pair.client.state == .up)
        #expect(pair.takeServerEvents().allSatisfy { if case .message = $0 { true } else { false } })
    }

    @Test func hostileDcepIsDroppedWithoutAnAnswer() throws {
        let pair = try SctpPair.connected()
        let server = pair.server
        let dcep: UInt32 = 50
        func open(type: UInt8 = 0x00, label: [UInt8], labelLength: Int? = nil, protocolLength: Int = 0) -> [UInt8] {
            let l = labelLength ?? label.count
            return [0x03, type, 0x01, 0x00, 0, 0, 0, 0, UInt8(l >> 8), UInt8(l & 0xFF), UInt8(protocolLength >> 8),
                    UInt8(protocolLength & 0xFF)] + label
        }
        let hostile: [(String, [UInt8], UInt16)] = [
            ("empty", [], 0),
            ("short OPEN", [0x03, 0x00, 0x00], 0),
            ("unknown message type", [0x07, 0x00], 0),
            ("unknown channel type", open(type: 0x03, label: Array("x".utf8)), 0),
            ("label past the end", open(label: Array("abc".utf8), labelLength: 300), 0),
            ("protocol past the end", open(label: Array("abc".utf8), protocolLength: 1), 0),
            ("stream out of range", open(label: Array("far".utf8)), 4000),
        ]
        for (_, message, stream) in hostile {
            #expect(server.injectMessage(message, stream: stream, ppid: dcep).isEmpty)
        }
        #expect(pair.takeServerEvents() == [])
        #expect(server.drops.messages == hostile.count)

        // A valid OPEN is answered; the same id again is not (the channel stays as it was).
        #expect(!server.injectMessage(open(label: Array("ok".utf8)), stream: 6, ppid: dcep).isEmpty, "an ACK")
        #expect(server.injectMessage(open(type: 0x80, label: Array("again".utf8)), stream: 6, ppid: dcep).isEmpty)
        #expect(pair.takeServerEvents() == [.open(channel: 6, label: "ok", protocol: "", ordered: true, maxRetransmits: nil,
                                                  maxLifetimeMs: nil)])
        // Messages on streams without a channel, with unknown PPIDs, or too long are dropped.
        _ = server.injectMessage([1, 2, 3], stream: 8, ppid: 53)
        _ = server.injectMessage([1, 2, 3], stream: 6, ppid: 99)
        _ = server.injectMessage([UInt8](repeating: 0, count: SctpAssociation.maxMessageSize + 1), stream: 6, ppid: 53)
        // An ACK for a channel nobody opened changes nothing.
        _ = server.injectMessage([0x02], stream: 10, ppid: dcep)
        #expect(pair.takeServerEvents() == [])
        #expect(server.channels == [6])
        #expect(pair.server.state == .up)
    }

    @Test func unpolledEventsAreCappedDroppingTheOldest() throws {
        let pair = try SctpPair.connected()
        let server = pair.server
        let open: [UInt8] = [0x03, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 1, 0, 0, 0x63]  // reliable, label "c"
        _ = server.injectMessage(open, stream: 6, ppid: 50)
        for i in 0..<1100 { _ = server.injectMessage(Array("\(i)".utf8), stream: 6, ppid: 51) }
        var events = server.pollEvents()
        #expect(events.count == SctpAssociation.maxEvents)
        #expect(events.last == .message(channel: 6, data: Array("1099".utf8), binary: false))
        #expect(server.drops.events == 1101 - SctpAssociation.maxEvents)
        let big = [UInt8](repeating: 7, count: SctpAssociation.maxMessageSize)
        for _ in 0..<80 { _ = server.injectMessage(big, stream: 6, ppid: 53) }
        events = server.pollEvents()
        #expect(events.count == SctpAssociation.maxEventBytes / SctpAssociation.maxMessageSize, "bounded by bytes too")
        #expect(server.pollEvents().isEmpty)
    }

    @Test func dcepOpenReadsAndWritesRfc8832Layout() throws {
        let bytes: [UInt8] = [
            0x03,              // message type: DATA_CHANNEL_OPEN
            0x81,              // channel type: partial reliable by retransmissions, unordered
            0x01, 0x00,        // priority 256
            0x00, 0x00, 0x00, 0x05,  // reliability parameter: 5 retransmissions
            0x00, 0x03,        // label length 3
            0x00, 0x02,        // protocol length 2
            0x61, 0x62, 0x63,  // label "abc"
            0x70, 0x31,        // protocol "p1"
        ]
        let parsed = try #require(DcepMessage.parse(bytes))
        #expect(parsed.open == .init(ordered: false, reliability: .retransmits(5), priority: 256, label: Array("abc".utf8),
                                     subprotocol: Array("p1".utf8)))
        #expect(parsed.serialized == bytes)
        #expect(DcepMessage.parse([0x02]) == DcepMessage(open: nil))
        #expect(DcepMessage(open: nil).serialized == [0x02])
        for cut in 0..<bytes.count { #expect(DcepMessage.parse(Array(bytes.prefix(cut))) == nil, "cut at \(cut)") }
    }

    @Test func twoAssociationsInOneProcessDoNotMix() throws {
        let a = try SctpPair.connected(), b = try SctpPair.connected()
        let ca = try a.openFromClient("pair-a"), cb = try b.openFromClient("pair-b")
        a.fromClient(try a.client.send(channel: ca, Array("for a".utf8), binary: false))
        b.fromClient(try b.client.send(channel: cb, Array("for b".utf8), binary: false))
        a.flush()
        b.flush()
        #expect(a.serverMessages.map(\.data) == [Array("for a".utf8)])
        #expect(b.serverMessages.map(\.data) == [Array("for b".utf8)])
        // A packet of pair a fed to pair b's server is not b's: dropped.
        let stray = try a.client.send(channel: ca, Array("stray".utf8), binary: false)
        for p in stray { b.fromServer(b.server.receive(p)) }
        b.flush()
        #expect(b.serverMessages.count == 1)
        #expect(b.server.state == .up)
    }

    @Test func deinitWithPendingDataFreesEverything() throws {
        let before = SctpAssociation.liveCount
        do {
            let pair = try SctpPair.connected()
            let channel = try pair.openFromClient("pending")
            #expect(SctpAssociation.liveCount == before + 2)
            // Queued and in flight, never delivered; timers armed on both sides.
            for _ in 0..<20 { _ = try? pair.client.send(channel: channel, [UInt8](repeating: 9, count: 10_000), binary: true) }
            _ = try pair.server.send(channel: channel, [1, 2, 3], binary: true)
        }
        #expect(SctpAssociation.liveCount == before)
        // usrsctp's timers for the freed associations find nothing to call.
        for _ in 0..<300 { SctpAssociation.handleTimers(elapsed: .milliseconds(10)) }
        let pair = try SctpPair.connected()
        #expect(try pair.openFromClient("after") == 0)
    }

    @Test func sctpRunsOverDtlsEndToEnd() throws {
        let link = try DtlsSctpLink()
        #expect(link.connectDtls())
        #expect(link.dtlsClient.maxSendSize >= link.client.maxPacketSize, "an SCTP packet fits one DTLS record")
        #expect(link.run(until: { link.client.state == .up && link.server.state == .up }))
        let (channel, packets) = try link.client.open(label: "agoraish-data")
        link.fromClient(packets)
        let big = (0..<60_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        link.fromClient(try link.client.send(channel: channel, Array("over DTLS".utf8), binary: false))
        link.fromClient(try link.client.send(channel: channel, big, binary: true))
        #expect(link.run(until: { link.serverEvents.filter { if case .message = $0 { true } else { false } }.count == 2 }))
        #expect(link.serverEvents == [.associationUp,
                                      .open(channel: 0, label: "agoraish-data", protocol: "", ordered: true, maxRetransmits: nil,
                                            maxLifetimeMs: nil),
                                      .message(channel: 0, data: Array("over DTLS".utf8), binary: false),
                                      .message(channel: 0, data: big, binary: true)])
        link.fromServer(try link.server.send(channel: channel, Array("and back".utf8), binary: false))
        #expect(link.run(until: { link.clientEvents.contains(.message(channel: 0, data: Array("and back".utf8), binary: false)) }))
        #expect(link.refusedByDtls == 0)
    }
}

/// A client and a server association joined in memory: what one returns is
/// delivered to the other (unless the test drops it), timers in 10 ms steps of
/// virtual time. That runs INIT retransmission and delayed SACKs; T3
/// retransmissions would need real time (usrsctp checks the wall clock).
final class SctpPair {
    struct Message: Equatable {
        var channel: UInt16
        var data: [UInt8]
        var binary: Bool
    }

    let client: SctpAssociation
    let server: SctpAssociation
    private var toServer: [[UInt8]] = []
    private var toClient: [[UInt8]] = []
    private var clientEvents: [SctpAssociation.Event] = []
    private var serverEvents: [SctpAssociation.Event] = []
    /// Messages each side received, in order (kept when events are taken).
    private(set) var serverMessages: [Message] = []
    private(set) var clientMessages: [Message] = []
    /// Packets each way, and the largest packet either side wrote.
    private(set) var packetsToServer = 0
    private(set) var packetsToClient = 0
    private(set) var largestPacket = 0

    init() throws {
        client = try SctpAssociation(role: .client)
        server = try SctpAssociation(role: .server)
    }

    /// A pair whose association is up, its `.associationUp` events taken.
    static func connected() throws -> SctpPair {
        let pair = try SctpPair()
        guard pair.connect() else { throw SctpError.notConnected }
        _ = pair.takeClientEvents()
        _ = pair.takeServerEvents()
        return pair
    }

    /// Both send INIT (they cross), then run until both are up.
    func connect() -> Bool {
        fromClient(client.start())
        fromServer(server.start())
        return run(until: { self.client.state == .up && self.server.state == .up })
    }

    /// Opens a channel from the client and delivers the OPEN and the ACK.
    func openFromClient(_ label: String, ordered: Bool = true, maxRetransmits: UInt16? = nil) throws -> UInt16 {
        let (channel, packets) = try client.open(label: label, ordered: ordered, maxRetransmits: maxRetransmits)
        fromClient(packets)
        flush()
        return channel
    }

    func fromClient(_ packets: [[UInt8]]) {
        toServer += packets
        packetsToServer += packets.count
        largestPacket = max(largestPacket, packets.map(\.count).max() ?? 0)
    }

    func fromServer(_ packets: [[UInt8]]) {
        toClient += packets
        packetsToClient += packets.count
        largestPacket = max(largestPacket, packets.map(\.count).max() ?? 0)
    }

    /// Delivers the packets in flight and their answers until none is left.
    func flush() {
        var rounds = 0
        while (!toServer.isEmpty || !toClient.isEmpty) && rounds < 10_000 {
            rounds += 1
            let s = toServer, c = toClient
            toServer = []
            toClient = []
            for p in s { fromServer(server.receive(p)) }
            for p in c { fromClient(client.receive(p)) }
        }
        collect()
    }

    /// Flushes, then advances the timers 10 ms at a time (flushing after each
    /// step) until `done` holds or `limit` has passed. Returns `done()`.
    @discardableResult
    func run(for limit: Duration = .seconds(10), until done: () -> Bool = { false }) -> Bool {
        flush()
        var elapsed = Duration.zero
        while !done() && elapsed < limit {
            SctpAssociation.handleTimers(elapsed: .milliseconds(10))
            elapsed += .milliseconds(10)
            fromClient(client.pollTransmits())
            fromServer(server.pollTransmits())
            flush()
        }
        return done()
    }

    func takeClientEvents() -> [SctpAssociation.Event] {
        collect()
        defer { clientEvents = [] }
        return clientEvents
    }

    func takeServerEvents() -> [SctpAssociation.Event] {
        collect()
        defer { serverEvents = [] }
        return serverEvents
    }

    private func collect() {
        let c = client.pollEvents(), s = server.pollEvents()
        clientEvents += c
        serverEvents += s
        clientMessages += c.compactMap(Self.message)
        serverMessages += s.compactMap(Self.message)
    }

    private static func message(_ event: SctpAssociation.Event) -> Message? {
        guard case .message(let channel, let data, let binary) = event else { return nil }
        return Message(channel: channel, data: data, binary: binary)
    }
}

/// SCTP over two real DTLS endpoints: each SCTP packet is one DTLS record.
final class DtlsSctpLink {
    let dtlsClient: DtlsEndpoint
    let dtlsServer: DtlsEndpoint
    let client: SctpAssociation
    let server: SctpAssociation
    private var toServer: [[UInt8]] = []  // DTLS datagrams
    private var toClient: [[UInt8]] = []
    private(set) var clientEvents: [SctpAssociation.Event] = []
    private(set) var serverEvents: [SctpAssociation.Event] = []
    /// SCTP packets DTLS would not take (longer than `maxSendSize`).
    private(set) var refusedByDtls = 0

    init() throws {
        let clientCertificate = try DtlsCertificate.generate(commonName: "client")
        let serverCertificate = try DtlsCertificate.generate(commonName: "server")
        dtlsClient = try DtlsEndpoint(role: .client, certificate: clientCertificate,
                                      remoteFingerprint: ("sha-256", serverCertificate.fingerprint), profiles: [.aeadAes128Gcm])
        dtlsServer = try DtlsEndpoint(role: .server, certificate: serverCertificate,
                                      remoteFingerprint: ("sha-256", clientCertificate.fingerprint), profiles: [.aeadAes128Gcm])
        client = try SctpAssociation(role: .client)
        server = try SctpAssociation(role: .server)
    }

    /// The DTLS handshake, then both SCTP INITs.
    func connectDtls() -> Bool {
        toServer += dtlsClient.start()
        var rounds = 0
        while (!toServer.isEmpty || !toClient.isEmpty) && rounds < 100 {
            rounds += 1
            deliverDatagrams()
        }
        guard dtlsClient.state == .connected && dtlsServer.state == .connected else { return false }
        fromClient(client.start())
        fromServer(server.start())
        return true
    }

    func fromClient(_ packets: [[UInt8]]) { send(packets, over: dtlsClient, into: &toServer) }
    func fromServer(_ packets: [[UInt8]]) { send(packets, over: dtlsServer, into: &toClient) }

    private func send(_ packets: [[UInt8]], over dtls: DtlsEndpoint, into queue: inout [[UInt8]]) {
        for p in packets {
            let datagrams = dtls.send(p)
            if datagrams.isEmpty { refusedByDtls += 1 }
            queue += datagrams
        }
    }

    /// Delivers the datagrams in flight; application records go to SCTP.
    private func deliverDatagrams() {
        let s = toServer, c = toClient
        toServer = []
        toClient = []
        for d in s { toClient += d.withUnsafeBytes { dtlsServer.receive($0) } }
        for d in c { toServer += d.withUnsafeBytes { dtlsClient.receive($0) } }
        let atServer = dtlsServer.received, atClient = dtlsClient.received
        dtlsServer.received = []
        dtlsClient.received = []
        for p in atServer { fromServer(server.receive(p)) }
        for p in atClient { fromClient(client.receive(p)) }
    }

    /// Delivers until quiet, then timers in 10 ms steps until `done` (10 s at most).
    func run(until done: () -> Bool) -> Bool {
        var elapsed = Duration.zero
        while true {
            var rounds = 0
            while (!toServer.isEmpty || !toClient.isEmpty) && rounds < 10_000 {
                rounds += 1
                deliverDatagrams()
            }
            clientEvents += client.pollEvents()
            serverEvents += server.pollEvents()
            if done() || elapsed >= .seconds(10) { return done() }
            SctpAssociation.handleTimers(elapsed: .milliseconds(10))
            elapsed += .milliseconds(10)
            fromClient(client.pollTransmits())
            fromServer(server.pollTransmits())
        }
    }
}
