@testable import AgoraishWire
import Testing

/// RFC 6455 framing and the opening handshake, with the RFC's own examples.
@Suite struct WebSocketTests {
    // §5.7: a single-frame unmasked text message "Hello".
    static let helloUnmasked: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
    // §5.7: a single-frame masked text message "Hello" (key 37 fa 21 3d).
    static let helloMasked: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]

    @Test func rfcExampleFramesParse() throws {
        let (plain, used) = try #require(try WebSocketFrame.parse(Self.helloUnmasked[...], requireMask: false, maxPayload: 100))
        #expect(used == 7)
        #expect(plain == WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)))
        let (masked, _) = try #require(try WebSocketFrame.parse(Self.helloMasked[...], requireMask: true, maxPayload: 100))
        #expect(masked.payload == Array("Hello".utf8))
        #expect(masked.serialized(maskingKey: 0x37fa_213d) == Self.helloMasked)
        #expect(plain.serialized() == Self.helloUnmasked)
    }

    @Test func extendedLengthsUseTheMinimalEncoding() throws {
        let f256 = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: 256)).serialized()
        #expect(Array(f256.prefix(4)) == [0x82, 0x7E, 0x01, 0x00])  // §5.7: 256 bytes
        let f64k = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: 65536)).serialized()
        #expect(Array(f64k.prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])  // §5.7: 64 KiB
        let back = try #require(try WebSocketFrame.parse(f64k[...], requireMask: false, maxPayload: 1 << 20))
        #expect(back.frame.payload.count == 65536)
        // A 16-bit length for a payload under 126 bytes is not minimal.
        #expect(throws: WebSocketError.self) {
            _ = try WebSocketFrame.parse([0x82, 0x7E, 0x00, 0x05, 1, 2, 3, 4, 5][...], requireMask: false, maxPayload: 100)
        }
    }

    @Test func partialFramesWaitForMoreBytes() throws {
        for n in 0..<Self.helloMasked.count {
            #expect(try WebSocketFrame.parse(Self.helloMasked[0..<n], requireMask: true, maxPayload: 100) == nil)
        }
    }

    @Test func serverRejectsUnmaskedAndBrokenFrames() {
        var server = WebSocketConnection(role: .server)
        server.receive(Self.helloUnmasked)
        #expect(server.pollMessage() == .closed(code: 1002, reason: "protocolError(\"client frames must be masked\")"))
        #expect(server.isClosed)
        let closeFrame = server.pollTransmit()
        #expect(closeFrame?.prefix(4) == [0x88, 0x02, 0x03, 0xEA])  // close, 1002

        for bad: [UInt8] in [[0xC1, 0x80, 0, 0, 0, 0],  // RSV1 set
                             [0x83, 0x80, 0, 0, 0, 0],  // opcode 3 is reserved
                             [0x09, 0x80, 0, 0, 0, 0],  // fragmented ping
                             [0x80, 0x80, 0, 0, 0, 0]]  // continuation with nothing to continue
        {
            var s = WebSocketConnection(role: .server)
            s.receive(bad)
            guard case .closed(let code, _)? = s.pollMessage() else {
                Issue.record("no close for \(bad)")
                continue
            }
            #expect(code == 1002)
        }
    }

    @Test func fragmentsAreReassembledAndPingsAnswered() {
        var client = WebSocketConnection(role: .client)
        // §5.7: "Hel" + "lo" in two fragments, with a ping in between (§5.4 allows it).
        client.receive([0x01, 0x03, 0x48, 0x65, 0x6c])
        client.receive([0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
        client.receive([0x80, 0x02, 0x6c, 0x6f])
        #expect(client.pollMessage() == .text("Hello"))
        let pong = client.pollTransmit()!
        #expect(pong[0] == 0x8A && pong[1] == 0x85)  // masked pong with the same 5 bytes
    }

    @Test func invalidUTF8TextClosesWith1007() {
        var s = WebSocketConnection(role: .server)
        s.receive(WebSocketFrame(opcode: .text, payload: [0xC3, 0x28]).serialized(maskingKey: 1))
        #expect(s.pollMessage() == .closed(code: 1007, reason: "invalidData"))
    }

    @Test func oversizedMessagesCloseWith1009() {
        var s = WebSocketConnection(role: .server, maxMessage: 10)
        s.receive(WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 1, count: 11)).serialized(maskingKey: 9))
        #expect(s.pollMessage() == .closed(code: 1009, reason: "messageTooBig"))
        var f = WebSocketConnection(role: .server, maxMessage: 10)
        f.receive(WebSocketFrame(fin: false, opcode: .binary, payload: [1, 2, 3, 4, 5, 6]).serialized(maskingKey: 9))
        f.receive(WebSocketFrame(opcode: .continuation, payload: [1, 2, 3, 4, 5, 6]).serialized(maskingKey: 9))
        #expect(f.pollMessage() == .closed(code: 1009, reason: "messageTooBig"))
    }

    @Test func clientAndServerTalkAndClose() {
        var client = WebSocketConnection(role: .client)
        var server = WebSocketConnection(role: .server)
        client.send(text: "{\"type\":\"ping\"}")
        client.send(binary: [1, 2, 3])
        server.receive(client.pollTransmit()!)
        #expect(server.pollMessage() == .text("{\"type\":\"ping\"}"))
        #expect(server.pollMessage() == .binary([1, 2, 3]))
        server.close(code: 1000, reason: "bye")
        client.receive(server.pollTransmit()!)
        #expect(client.pollMessage() == .closed(code: 1000, reason: "bye"))
        server.receive(client.pollTransmit()!)  // the client echoes the close (§5.5.1)
        #expect(server.pollMessage() == .closed(code: 1000, reason: ""))
    }

    @Test func handshakeAcceptValueMatchesTheRFC() throws {
        // §1.3: key "dGhlIHNhbXBsZSBub25jZQ==" gives "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=".
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let (request, key) = WebSocketHandshake.request(host: "h:1", path: "/v1/signal", nonce: Array(0..<16))
        let bytes = request.serialized
        let (parsed, used) = try #require(try HTTPHead.parse(bytes[...]))
        #expect(used == bytes.count)
        let (path, response) = try WebSocketHandshake.accept(parsed)
        #expect(path == "/v1/signal")
        let (back, _) = try #require(try HTTPHead.parse(response.serialized[...]))
        try WebSocketHandshake.validate(response: back, key: key)
        #expect(throws: WireError.self) { try WebSocketHandshake.validate(response: back, key: "AAAAAAAAAAAAAAAAAAAAAA==") }
    }

    @Test func malformedHeadsAreRejected() {
        #expect(throws: WireError.self) { _ = try HTTPHead.parse(Array("GET / HTTP/1.1\r\nNoColon\r\n\r\n".utf8)[...]) }
        #expect(throws: WireError.self) { _ = try HTTPHead.parse([UInt8](repeating: 65, count: 9000)[...]) }
        #expect(try! HTTPHead.parse(Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8)[...]) == nil)
        let notUpgrade = HTTPHead(startLine: "GET / HTTP/1.1", fields: [("Host", "x")])
        #expect(throws: WireError.self) { _ = try WebSocketHandshake.accept(notUpgrade) }
    }
}
