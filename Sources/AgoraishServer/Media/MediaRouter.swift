import AgoraishIO
import AgoraishWire
import CAgoraishShim
import Glibc

/// One participant as the media plane knows it.
final class MediaParticipant {
    let session: UInt64
    let uid: UInt32
    let ufrag: String
    let password: [UInt8]
    let uplink: SrtpSession
    let downlink: SrtpSession
    let channel: MediaChannel
    var canPublish: Bool
    var address: SocketAddress?
    /// Publisher SSRC -> server SSRC (remapped at ingress).
    var ssrcMap: [UInt32: UInt32] = [:]

    init(grant: MediaGrant, channel: MediaChannel) throws(SrtpError) {
        session = grant.session
        uid = grant.uid
        ufrag = grant.iceUfrag
        password = Array(grant.icePassword.utf8)
        uplink = try SrtpSession(profile: grant.srtpProfile, keying: grant.uplinkKeying, inbound: true)
        downlink = try SrtpSession(profile: grant.srtpProfile, keying: grant.downlinkKeying, inbound: false)
        canPublish = grant.canPublish
        self.channel = channel
    }
}

/// The participants of one channel and its streams.
final class MediaChannel {
    var members: ContiguousArray<MediaParticipant> = []
    /// Server SSRC -> (publisher, its own SSRC), for feedback going back upstream.
    var streams: [UInt32: (publisher: MediaParticipant, ssrc: UInt32)] = [:]
    var nextSsrc: UInt32

    init(seed: UInt32) { nextSsrc = seed | 1 }

    func allocateSsrc() -> UInt32 {
        repeat { nextSsrc = nextSsrc &* 1_103_515_245 &+ 12345 } while nextSsrc == 0 || streams[nextSsrc] != nil
        return nextSsrc
    }
}

/// The SFU media plane: one UDP port, STUN binding (ICE-lite), SRTP/SRTCP per
/// participant, SSRCs remapped at ingress, and forwarding of every RTP packet
/// a publisher sends to every other participant of its channel that has a
/// bound address (docs/media-plane.md).
///
/// Everything runs on the router's own event loop thread. Datagrams arrive
/// and leave in batches of up to 64 (recvmmsg/sendmmsg) through buffers
/// allocated once, so forwarding allocates nothing per packet.
public final class MediaRouter: @unchecked Sendable {
    /// Counters for /metrics.
    public let counters = MediaCounters()
    /// Called on the router's thread when a publisher starts a new stream (session, server SSRC, payload type).
    public var onStreamPublished: @Sendable (UInt64, UInt32, UInt8) -> Void = { _, _, _ in }

    let loop: EventLoop
    let fd: Int32
    static let batch = 64
    static let slot = 2048

    // Loop-thread state.
    private var byUfrag: [String: MediaParticipant] = [:]
    private var bySession: [UInt64: MediaParticipant] = [:]
    private var byAddress: [SocketAddress: MediaParticipant] = [:]
    private var channels: [String: MediaChannel] = [:]
    private let rx: UnsafeMutablePointer<agsh_datagram>
    private let rxBuffers: UnsafeMutableRawPointer
    private let tx: UnsafeMutablePointer<agsh_datagram>
    private let txBuffers: UnsafeMutableRawPointer
    private var txCount = 0
    private var counts = MediaBatchCounts()
    private var ssrcSeed: UInt32 = 0x9E37_79B9

    /// A router on `fd` (a bound, non-blocking UDP socket it now owns).
    public init(fd: Int32, name: String) throws(EventThreadError) {
        self.fd = fd
        loop = try EventLoop(name: name)
        rx = .allocate(capacity: Self.batch)
        tx = .allocate(capacity: Self.batch)
        rx.initialize(repeating: agsh_datagram(), count: Self.batch)
        tx.initialize(repeating: agsh_datagram(), count: Self.batch)
        rxBuffers = .allocate(byteCount: Self.batch * Self.slot, alignment: 16)
        txBuffers = .allocate(byteCount: Self.batch * Self.slot, alignment: 16)
        var seed: UInt32 = 0
        if let f = fopen("/dev/urandom", "r") { fread(&seed, 4, 1, f); fclose(f) }
        ssrcSeed ^= seed
        loop.post { [self] in
            loop.register(fd, events: EventLoop.readable) { [self] _ in drain() }
        }
    }

    deinit {
        rx.deallocate()
        tx.deallocate()
        rxBuffers.deallocate()
        txBuffers.deallocate()
    }

    /// Carries out a signaling decision (on the router's thread).
    public func apply(_ command: SignalingCore.MediaCommand) {
        loop.post { [self] in
            switch command {
            case .admit(let grant): admit(grant)
            case .setPublisher(let session, let canPublish): bySession[session]?.canPublish = canPublish
            case .remove(let session): remove(session)
            }
        }
    }

    /// Stops the thread and closes the socket.
    public func stop() {
        loop.post { [self] in
            loop.unregister(fd)
            close(fd)
        }
        loop.stop(wait: true)
    }

    /// Participants admitted (for tests and /status).
    public func participantCount() -> Int {
        let box = Locked(0)
        let done = Locked(false)
        loop.post { [self] in box.withLock { $0 = bySession.count }; done.withLock { $0 = true } }
        while !done.withLock({ $0 }) { sched_yield() }
        return box.withLock { $0 }
    }

    // MARK: - Loop thread

    private func admit(_ grant: MediaGrant) {
        remove(grant.session)
        let key = grant.app + "\u{0}" + grant.channel
        let channel: MediaChannel
        if let existing = channels[key] {
            channel = existing
        } else {
            ssrcSeed = ssrcSeed &* 2_654_435_761 &+ 1
            channel = MediaChannel(seed: ssrcSeed)
            channels[key] = channel
        }
        guard let p = try? MediaParticipant(grant: grant, channel: channel) else { return }
        channel.members.append(p)
        bySession[grant.session] = p
        byUfrag[grant.iceUfrag] = p
    }

    private func remove(_ session: UInt64) {
        guard let p = bySession.removeValue(forKey: session) else { return }
        byUfrag[p.ufrag] = nil
        if let a = p.address, byAddress[a] === p { byAddress[a] = nil }
        p.channel.members.removeAll { $0 === p }
        for s in p.ssrcMap.values { p.channel.streams[s] = nil }
        if p.channel.members.isEmpty {
            channels = channels.filter { $0.value !== p.channel }
        }
    }

    private func drain() {
        while true {
            for i in 0..<Self.batch {
                rx[i].buffer = rxBuffers + i * Self.slot
                rx[i].length = Self.slot
            }
            let n = Int(agsh_recvmmsg(fd, rx, UInt32(Self.batch)))
            if n <= 0 { break }
            for i in 0..<n { handle(i) }
            flush()
            counters.add(&counts)
            if n < Self.batch { break }
        }
    }

    private func handle(_ i: Int) {
        let buffer = rx[i].buffer!
        let length = rx[i].length
        counts.packetsIn += 1
        counts.bytesIn += length
        let address = SocketAddress(storage: rx[i].addr, length: rx[i].addr_len)
        switch MediaPacketKind.classify(UnsafeRawBufferPointer(start: buffer, count: length)) {
        case .rtp: forwardRtp(buffer, length, from: address)
        case .rtcp: routeRtcp(buffer, length, from: address)
        case .stun: answerStun(buffer, length, from: address)
        case .unknown: counts.drops[MediaDropReason.malformed.rawValue] += 1
        }
    }

    private func drop(_ reason: MediaDropReason) { counts.drops[reason.rawValue] += 1 }

    private func forwardRtp(_ buffer: UnsafeMutableRawPointer, _ length: Int, from address: SocketAddress) {
        guard let p = byAddress[address] else { return drop(.unknownSource) }
        let plain: Int
        do {
            plain = try p.uplink.unprotectRtp(buffer, length: length)
        } catch {
            return drop(error == .replay ? .replay : .authentication)
        }
        guard let header = try? RtpHeader.parse(UnsafeRawBufferPointer(start: buffer, count: plain)) else {
            return drop(.malformed)
        }
        guard p.canPublish else { return drop(.notPublisher) }
        let ssrc: UInt32
        if let mapped = p.ssrcMap[header.ssrc] {
            ssrc = mapped
        } else {
            ssrc = p.channel.allocateSsrc()
            p.ssrcMap[header.ssrc] = ssrc
            p.channel.streams[ssrc] = (p, header.ssrc)
            onStreamPublished(p.session, ssrc, header.payloadType)
        }
        RtpHeader.rewriteSsrc(UnsafeMutableRawBufferPointer(start: buffer, count: plain), ssrc)
        for member in p.channel.members where member !== p {
            guard let to = member.address else { continue }
            send(buffer, plain, to: to) { slot, n throws(SrtpError) in try member.downlink.protectRtp(slot, length: n) }
        }
    }

    /// RTCP policy (docs/media-plane.md): sender reports and SDES from a publisher
    /// are forwarded with SSRCs remapped; transport and payload feedback (NACK,
    /// PLI, FIR) from a subscriber go back to the publisher of the stream they
    /// name; receiver reports and everything else end here.
    private func routeRtcp(_ buffer: UnsafeMutableRawPointer, _ length: Int, from address: SocketAddress) {
        guard let p = byAddress[address] else { return drop(.unknownSource) }
        let plain: Int
        do {
            plain = try p.uplink.unprotectRtcp(buffer, length: length)
        } catch {
            return drop(error == .replay ? .replay : .authentication)
        }
        let bytes = UnsafeMutableRawBufferPointer(start: buffer, count: plain)
        guard plain >= 8, bytes[0] >> 6 == 2 else { return drop(.malformed) }
        let firstType = bytes[1]
        if firstType == 200 {
            guard p.canPublish else { return drop(.notPublisher) }
            // Rewrite the sender SSRC of each packet of the compound that names a mapped stream.
            var offset = 0
            while offset + 8 <= plain {
                let words = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                let size = (words + 1) * 4
                guard offset + size <= plain else { return drop(.malformed) }
                let type = bytes[offset + 1]
                if type == 200 || type == 202 {
                    let original = readBE32(bytes, offset + 4)
                    if let mapped = p.ssrcMap[original] { writeBE32(bytes, offset + 4, mapped) }
                }
                offset += size
            }
            for member in p.channel.members where member !== p {
                guard let to = member.address else { continue }
                send(buffer, plain, to: to) { slot, n throws(SrtpError) in try member.downlink.protectRtcp(slot, length: n) }
            }
            return
        }
        var forwarded = false
        var offset = 0
        while offset + 12 <= plain {
            let words = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let size = (words + 1) * 4
            guard offset + size <= plain else { break }
            let type = bytes[offset + 1]
            if type == 205 || type == 206 {
                let mediaSsrc = readBE32(bytes, offset + 8)
                if let (publisher, original) = p.channel.streams[mediaSsrc], let to = publisher.address {
                    writeBE32(bytes, offset + 8, original)
                    send(buffer + offset, size, to: to) { slot, n throws(SrtpError) in
                        try publisher.downlink.protectRtcp(slot, length: n)
                    }
                    forwarded = true
                }
            }
            offset += size
        }
        if !forwarded { drop(.rtcpTerminated) }
    }

    private func answerStun(_ buffer: UnsafeMutableRawPointer, _ length: Int, from address: SocketAddress) {
        let bytes = Array(UnsafeRawBufferPointer(start: buffer, count: length))
        guard let unchecked = try? StunMessage.parse(bytes), unchecked.type == .bindingRequest,
              let username = unchecked.username,
              let p = byUfrag[String(username.prefix { $0 != ":" })],
              let request = try? StunMessage.parse(bytes, integrityKey: p.password)
        else { return drop(.stun) }
        if p.address != address {
            if let old = p.address, byAddress[old] === p { byAddress[old] = nil }
            p.address = address
            byAddress[address] = p
        }
        counts.stunBindings += 1
        var xor: [UInt8]
        let ip = address.ipBytes
        if ip.count == 4 {
            xor = StunMessage.xorMappedAddress(ipv4: ip, port: address.port, transactionId: request.transactionId)
        } else {
            xor = StunMessage.xorMappedAddress(ipv6: ip, port: address.port, transactionId: request.transactionId)
        }
        let response = StunMessage(type: .bindingSuccess, transactionId: request.transactionId,
                                   attributes: [(StunMessage.AttributeType.xorMappedAddress.rawValue, xor)])
        let out = response.serialized(integrityKey: p.password)
        out.withUnsafeBytes { raw in
            send(UnsafeMutableRawPointer(mutating: raw.baseAddress!), out.count, to: address) { _, n in n }
        }
    }

    /// Copies a packet into the next send slot, lets `protect` transform it in
    /// place (returning the new length), and queues it for `to`.
    private func send(_ packet: UnsafeMutableRawPointer, _ length: Int, to: SocketAddress,
                      protect: (UnsafeMutableRawPointer, Int) throws(SrtpError) -> Int) {
        guard length + SrtpSession.maxTrailer <= Self.slot else { return drop(.malformed) }
        if txCount == Self.batch { flush() }
        let slot = txBuffers + txCount * Self.slot
        slot.copyMemory(from: packet, byteCount: length)
        let n: Int
        do { n = try protect(slot, length) } catch { return drop(.sendFailed) }
        tx[txCount].buffer = slot
        tx[txCount].length = n
        tx[txCount].addr = to.storage
        tx[txCount].addr_len = to.length
        txCount += 1
    }

    private func flush() {
        var start = 0
        while start < txCount {
            let sent = Int(agsh_sendmmsg(fd, tx + start, UInt32(txCount - start)))
            if sent <= 0 {
                counts.drops[MediaDropReason.sendFailed.rawValue] += txCount - start
                break
            }
            for i in start..<start + sent {
                counts.packetsOut += 1
                counts.bytesOut += tx[i].length
            }
            start += sent
        }
        txCount = 0
    }
}

@inline(__always)
private func readBE32(_ b: UnsafeMutableRawBufferPointer, _ o: Int) -> UInt32 {
    UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3])
}

@inline(__always)
private func writeBE32(_ b: UnsafeMutableRawBufferPointer, _ o: Int, _ v: UInt32) {
    b[o] = UInt8(v >> 24)
    b[o + 1] = UInt8(v >> 16 & 0xFF)
    b[o + 2] = UInt8(v >> 8 & 0xFF)
    b[o + 3] = UInt8(v & 0xFF)
}
