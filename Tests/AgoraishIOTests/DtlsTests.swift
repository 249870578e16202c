import AgoraishIO
import AgoraishWire
import Glibc
import Testing

/// DTLS endpoints talking to each other in memory: the handshake, the SRTP keys
/// it exports, application data, retransmission and hostile input.
@Suite struct DtlsTests {
    @Test func certificateFingerprintIsSdpSha256() throws {
        let certificate = try DtlsCertificate.generate()
        let pairs = certificate.fingerprint.split(separator: ":")
        #expect(pairs.count == 32)
        #expect(pairs.allSatisfy { $0.count == 2 && $0.allSatisfy { "0123456789ABCDEF".contains($0) } })
        #expect(try DtlsCertificate.generate().fingerprint != certificate.fingerprint, "a new key each time")
    }

    @Test func handshakeAgreesOnGcmKeysWhenBothOfferIt() throws {
        // The client prefers CM, the server GCM: the server's order decides.
        let pair = try Pair(clientProfiles: [.aes128CmHmacSha1_80, .aeadAes128Gcm])
        pair.handshake()
        #expect(pair.client.state == .connected)
        #expect(pair.server.state == .connected)
        let c = try #require(pair.client.srtp), s = try #require(pair.server.srtp)
        #expect(c.profile == .aeadAes128Gcm && s.profile == .aeadAes128Gcm)
        #expect(c.local == s.remote && c.remote == s.local)
        #expect(c.local != c.remote)
        #expect(c.local.count == SrtpProfile.aeadAes128Gcm.keyingLength)
        #expect(pair.largestDatagram <= DtlsEndpoint.mtu)
        #expect(pair.client.nextTimeout == nil && pair.server.nextTimeout == nil, "no flight waits for an answer")
    }

    @Test func onlyCmOfferedNegotiatesCm() throws {
        let pair = try Pair(clientProfiles: [.aes128CmHmacSha1_80])
        pair.handshake()
        let c = try #require(pair.client.srtp), s = try #require(pair.server.srtp)
        #expect(c.profile == .aes128CmHmacSha1_80 && s.profile == .aes128CmHmacSha1_80)
        #expect(c.local == s.remote && c.remote == s.local)
        #expect(c.local.count == SrtpProfile.aes128CmHmacSha1_80.keyingLength)
    }

    @Test func noProfileInCommonFailsTheHandshake() throws {
        let pair = try Pair(clientProfiles: [.aes128CmHmacSha1_80], serverProfiles: [.aeadAes128Gcm])
        pair.handshake()
        #expect(pair.client.srtp == nil && pair.server.srtp == nil)
        #expect(pair.client.failure == .handshake("no SRTP profile in common"))
    }

    @Test(arguments: [SrtpProfile.aeadAes128Gcm, .aes128CmHmacSha1_80])
    func exportedKeysProtectOnOneSideAndUnprotectOnTheOther(_ profile: SrtpProfile) throws {
        let pair = try Pair(clientProfiles: [profile], serverProfiles: [profile])
        pair.handshake()
        let c = try #require(pair.client.srtp), s = try #require(pair.server.srtp)
        for (sender, receiver) in [(c, s), (s, c)] {
            let protect = try SrtpSession(profile: profile, keying: sender.local, inbound: false)
            let unprotect = try SrtpSession(profile: profile, keying: receiver.remote, inbound: true)
            // RTP: version 2, PT 111, sequence 1, timestamp 160, SSRC 0x01020304, 20 bytes of payload.
            let rtp: [UInt8] = [0x80, 111, 0, 1, 0, 0, 0, 160, 1, 2, 3, 4] + (0..<20).map(UInt8.init)
            var packet = rtp + [UInt8](repeating: 0, count: SrtpSession.maxTrailer)
            let protected = try protect.protectRtp(&packet, length: rtp.count)
            #expect(protected > rtp.count)
            #expect(Array(packet[12..<rtp.count]) != Array(rtp[12...]), "the payload is encrypted")
            let plain = try unprotect.unprotectRtp(&packet, length: protected)
            #expect(Array(packet[0..<plain]) == rtp)
        }
    }

    @Test func wrongServerFingerprintFailsTheClientWithoutKeys() throws {
        let pair = try Pair(clientExpects: try DtlsCertificate.generate().fingerprint)
        pair.handshake()
        #expect(pair.client.state == .failed(DtlsError.fingerprint.description))
        #expect(pair.client.failure == .fingerprint)
        #expect(pair.client.srtp == nil)
        // The client's bad_certificate alert ends the server too, with no keys.
        #expect(pair.server.state != .connected && pair.server.srtp == nil)
    }

    @Test func wrongClientFingerprintFailsTheServerWithoutKeys() throws {
        let pair = try Pair(serverExpects: try DtlsCertificate.generate().fingerprint)
        pair.handshake()
        #expect(pair.server.failure == .fingerprint)
        #expect(pair.server.srtp == nil)
        #expect(pair.client.state != .connected && pair.client.srtp == nil)
    }

    @Test func fingerprintAlgorithmsAndCaseAreAccepted() throws {
        let certificate = try DtlsCertificate.generate()
        let hex = certificate.fingerprint.lowercased()
        for (algorithm, length) in [("sha-1", 20), ("SHA-256", 32), ("sha-384", 48), ("sha-512", 64)] {
            let value = Array(repeating: "ab", count: length).joined(separator: ":")
            _ = try DtlsEndpoint(role: .server, certificate: certificate, remoteFingerprint: (algorithm, value), profiles: [])
        }
        _ = try DtlsEndpoint(role: .server, certificate: certificate, remoteFingerprint: ("sha-256", hex), profiles: [])
        for bad in [("md5", hex), ("sha-256", String(hex.dropLast(3))), ("sha-256", hex + ":00"),
                    ("sha-256", "g" + hex.dropFirst()), ("sha-256", "")] {
            #expect(throws: DtlsError.fingerprint) {
                try DtlsEndpoint(role: .client, certificate: certificate, remoteFingerprint: bad, profiles: [.aeadAes128Gcm])
            }
        }
    }

    @Test func applicationDataFlowsBothWays() throws {
        let pair = try Pair()
        pair.handshake()
        #expect(pair.client.send([]) == [], "nothing to send")
        pair.deliver(pair.client.send(Array("from the client".utf8)), to: pair.server)
        pair.deliver(pair.server.send(Array("from the server".utf8)), to: pair.client)
        let big = [UInt8](repeating: 7, count: pair.client.maxSendSize)
        let datagrams = pair.client.send(big)
        #expect(datagrams.count == 1 && datagrams[0].count <= DtlsEndpoint.mtu)
        pair.deliver(datagrams, to: pair.server)
        #expect(pair.server.received == [Array("from the client".utf8), big])
        #expect(pair.client.received == [Array("from the server".utf8)])
        #expect(pair.client.send(big + [0]) == [], "one record per datagram: larger is refused")
    }

    @Test func sendBeforeTheHandshakeSendsNothing() throws {
        let pair = try Pair()
        _ = pair.client.start()
        #expect(pair.client.send([1, 2, 3]) == [])
        #expect(pair.client.maxSendSize == 0)
    }

    @Test func receivedStopsGrowingAtItsCap() throws {
        let pair = try Pair()
        pair.handshake()
        for i in 0..<(DtlsEndpoint.maxReceived + 10) { pair.deliver(pair.client.send([UInt8(i & 0xFF)]), to: pair.server) }
        #expect(pair.server.received.count == DtlsEndpoint.maxReceived)
        #expect(pair.server.received.last == [UInt8((DtlsEndpoint.maxReceived - 1) & 0xFF)], "the oldest are kept")
        pair.server.received.removeAll()
        pair.deliver(pair.client.send([42]), to: pair.server)
        #expect(pair.server.received == [[42]])
    }

    @Test func lostServerFlightIsResentOnTimeout() throws {
        let pair = try Pair(retransmitTimeout: .milliseconds(50))
        let lost = pair.deliver(pair.client.start(), to: pair.server)
        #expect(!lost.isEmpty, "the server's first flight, lost")
        #expect(pair.server.handleTimeout() == [], "not due yet")
        pair.waitUntilDue(pair.server)
        let resent = pair.server.handleTimeout()
        #expect(resent.count >= lost.count && resent.allSatisfy { $0.count <= DtlsEndpoint.mtu }, "the flight, a message a datagram")
        #expect(try #require(pair.server.nextTimeout) > .milliseconds(50), "the timer doubled")
        pair.handshake(from: [], and: resent)
        #expect(pair.client.state == .connected && pair.server.state == .connected)
        #expect(pair.client.srtp?.local == pair.server.srtp?.remote)
    }

    @Test func lostFinalFlightIsResentWhenTheClientRetransmits() throws {
        let pair = try Pair(retransmitTimeout: .milliseconds(50))
        let serverFlight = pair.deliver(pair.client.start(), to: pair.server)
        let clientFlight = pair.deliver(serverFlight, to: pair.client)
        let finished = pair.deliver(clientFlight, to: pair.server)
        #expect(pair.server.state == .connected && pair.client.state == .handshaking)
        #expect(!finished.isEmpty && pair.server.nextTimeout == nil, "the server's last flight, lost; it has no timer")
        // The client sends its flight again; the repeated Finished makes the server answer.
        pair.waitUntilDue(pair.client)
        let again = pair.deliver(pair.client.handleTimeout(), to: pair.server)
        #expect(!again.isEmpty)
        pair.deliver(again, to: pair.client)
        #expect(pair.client.state == .connected)
        #expect(pair.client.srtp?.local == pair.server.srtp?.remote)
    }

    @Test func nextTimeoutRunsWhileAFlightWaits() throws {
        let pair = try Pair()
        #expect(pair.client.nextTimeout == nil, "no flight yet")
        _ = pair.client.start()
        let timeout = try #require(pair.client.nextTimeout)
        #expect(timeout > .milliseconds(900) && timeout <= .seconds(1))
        #expect(pair.client.handleTimeout() == [], "not due yet")
        #expect(pair.client.start() == [], "start once")
    }

    @Test func garbageAndTruncatedDatagramsNeverCrash() throws {
        var random = SplitMix64(seed: 0xD715)
        let pair = try Pair()
        let hello = try #require(pair.client.start().first)
        let server = try pair.freshServer()
        for length in 0..<hello.count {
            _ = Array(hello.prefix(length)).withUnsafeBytes { server.receive($0) }
            #expect(server.state == .handshaking, "a truncated ClientHello is dropped (length \(length))")
        }
        for _ in 0..<500 {
            let length = Int(random.next() % 200)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if !bytes.isEmpty { bytes[0] = 20 + UInt8(random.next() % 4) }  // change_cipher_spec...application_data
            if bytes.count > 3 { bytes[1] = 0xFE; bytes[2] = 0xFD }  // DTLS 1.2
            let target = try pair.freshServer()
            _ = bytes.withUnsafeBytes { target.receive($0) }
            #expect(target.state == .handshaking || target.failure != nil)
            _ = bytes.withUnsafeBytes { server.receive($0) }
        }
        #expect(server.state == .handshaking || server.failure != nil)
        #expect(server.received.isEmpty)
    }

    @Test func hostileRecordsAfterTheHandshakeAreDropped() throws {
        let pair = try Pair()
        let hello = try #require(pair.client.start().first)
        pair.handshake(from: [hello], and: [])
        let keys = try #require(pair.server.srtp)
        // A second ClientHello (epoch 0), garbage and a replayed hello: dropped.
        for datagram in [hello, [23, 0xFE, 0xFD] + [UInt8](repeating: 0xAA, count: 40), [22, 0xFE, 0xFD, 0, 0], [0x80, 1, 2]] {
            #expect(pair.deliver([datagram], to: pair.server).isEmpty)
        }
        #expect(pair.server.state == .connected)
        #expect(pair.server.srtp?.local == keys.local)
        pair.deliver(pair.client.send([9]), to: pair.server)
        #expect(pair.server.received == [[9]])
    }

    @Test func closeNotifyClosesThePeerAndLaterRecordsAreIgnored() throws {
        let pair = try Pair()
        pair.handshake()
        let stale = pair.client.send([1])
        let bye = pair.client.close()
        #expect(!bye.isEmpty)
        #expect(pair.client.state == .closed && pair.client.srtp == nil)
        pair.deliver(bye, to: pair.server)
        #expect(pair.server.state == .closed)
        #expect(pair.deliver(stale, to: pair.server).isEmpty)
        #expect(pair.server.received.isEmpty)
        #expect(pair.server.close() == [] && pair.client.handleTimeout() == [] && pair.client.nextTimeout == nil)
    }

    @Test func closeDuringTheHandshakeSendsNothing() throws {
        let pair = try Pair()
        _ = pair.client.start()
        #expect(pair.client.close() == [])
        #expect(pair.client.state == .closed)
        #expect(pair.client.nextTimeout == nil)
    }
}

/// A client and a server endpoint with fresh certificates, and the
/// datagrams between them delivered in memory.
private final class Pair {
    let clientCertificate: DtlsCertificate
    let serverCertificate: DtlsCertificate
    let client: DtlsEndpoint
    let server: DtlsEndpoint
    /// The largest datagram either side wrote.
    var largestDatagram = 0

    init(clientProfiles: [SrtpProfile] = [.aeadAes128Gcm, .aes128CmHmacSha1_80],
         serverProfiles: [SrtpProfile] = [.aeadAes128Gcm, .aes128CmHmacSha1_80],
         clientExpects: String? = nil, serverExpects: String? = nil,
         retransmitTimeout: Duration = .seconds(1)) throws {
        clientCertificate = try DtlsCertificate.generate(commonName: "client")
        serverCertificate = try DtlsCertificate.generate(commonName: "server")
        client = try DtlsEndpoint(role: .client, certificate: clientCertificate,
                                  remoteFingerprint: ("sha-256", clientExpects ?? serverCertificate.fingerprint),
                                  profiles: clientProfiles, retransmitTimeout: retransmitTimeout)
        server = try DtlsEndpoint(role: .server, certificate: serverCertificate,
                                  remoteFingerprint: ("sha-256", serverExpects ?? clientCertificate.fingerprint),
                                  profiles: serverProfiles, retransmitTimeout: retransmitTimeout)
    }

    /// Another server that expects this client.
    func freshServer() throws -> DtlsEndpoint {
        try DtlsEndpoint(role: .server, certificate: serverCertificate,
                         remoteFingerprint: ("sha-256", clientCertificate.fingerprint), profiles: [.aeadAes128Gcm])
    }

    /// Feeds `datagrams` to `endpoint`; returns what it answered.
    @discardableResult
    func deliver(_ datagrams: [[UInt8]], to endpoint: DtlsEndpoint) -> [[UInt8]] {
        var answers: [[UInt8]] = []
        for d in datagrams { answers += d.withUnsafeBytes { endpoint.receive($0) } }
        largestDatagram = max(largestDatagram, (datagrams + answers).map(\.count).max() ?? 0)
        return answers
    }

    /// Waits until `endpoint`'s retransmission timer is due. OpenSSL's DTLS
    /// timer reads the wall clock inside the library, so this is the one place
    /// these tests wait (about 35 ms with a 50 ms timer).
    func waitUntilDue(_ endpoint: DtlsEndpoint) {
        while let left = endpoint.nextTimeout, left > .zero { usleep(UInt32(left.milliseconds + 1) * 1000) }
    }

    /// Starts the client and shuttles datagrams until neither side has more.
    func handshake() { handshake(from: client.start(), and: []) }

    /// Shuttles `toServer` and `toClient` and every answer until both are quiet.
    func handshake(from toServer: [[UInt8]], and toClient: [[UInt8]]) {
        var toServer = toServer, toClient = toClient
        for _ in 0..<20 where !toServer.isEmpty || !toClient.isEmpty {
            let fromServer = deliver(toServer, to: server)
            toServer = deliver(toClient, to: client)
            toClient = fromServer
        }
    }
}
