@testable import AgoraishEngine
import AgoraishWire
import Synchronization
import Testing

/// The engine's payload protection: the observer and the cipher in their order, and the marks.
@Suite struct PayloadProtectionTests {
    @Test(arguments: EncryptionMode.allCases)
    func aPayloadRoundTripsThroughTwoContexts(mode: EncryptionMode) throws {
        let errors = Mutex<[EncryptionErrorType]>([])
        let p = PayloadProtection { e in errors.withLock { $0.append(e) } }
        p.config = EncryptionConfig(mode: mode, key: "k", salt: (0..<32).map { UInt8($0 + 1) })
        var send = PayloadProtection.Context(), receive = PayloadProtection.Context()
        p.refresh(&send)
        p.refresh(&receive)
        for size in [1, 60, 200, 1100] {
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 31) }
            let sealed = try #require(p.outgoing(payload, .audio, &send))
            #expect(sealed != payload)
            #expect(p.incoming(sealed, marked: mode, .audio, &receive) == payload)
        }
        #expect(errors.withLock { $0 }.isEmpty)
        // A payload that cannot be read is reported once and leaves the context working.
        let good = try #require(p.outgoing([1, 2, 3], .data, &send))
        var bad = good
        bad[bad.count - 1] ^= 0xFF
        bad[8] ^= 0xFF
        #expect(p.incoming(bad, marked: mode, .data, &receive) == nil)
        #expect(p.incoming(Array(good.prefix(5)), marked: mode, .data, &receive) == nil)
        #expect(p.incoming(good, marked: mode, .data, &receive) == [1, 2, 3])
        #expect(p.incoming(good, marked: mode == .aes128Gcm ? .aes256Gcm : .aes128Gcm, .data, &receive) == nil)
        #expect(errors.withLock { $0 } == [.datastreamDecryptionFailure])
    }

    @Test func theObserverRunsBeforeTheCipherOnTheWayOutAndAfterItOnTheWayIn() throws {
        let p = PayloadProtection { _ in }
        let order = Mutex<[String]>([])
        p.observer = PacketObserver(onSendAudio: { b in order.withLock { $0.append("send \(b)") }; b.append(9); return true },
                                    onReceiveAudio: { b in order.withLock { $0.append("receive \(b)") }; b.removeLast(); return true })
        var send = PayloadProtection.Context(), receive = PayloadProtection.Context()
        p.refresh(&send)
        #expect(send.active && send.mode == nil)
        #expect(p.outgoing([1], .audio, &send) == [1, 9])
        p.config = EncryptionConfig(mode: .aes128Gcm, key: "k")
        p.refresh(&send)
        p.refresh(&receive)
        let sealed = try #require(p.outgoing([1], .audio, &send))
        #expect(sealed.count == 2 + 24)
        #expect(p.incoming(sealed, marked: .aes128Gcm, .audio, &receive) == [1])
        #expect(order.withLock { $0 } == ["send [1]", "send [1]", "receive [1, 9]"])
        // Growing a payload by more than the observer's allowance drops it; data never sees the observer.
        p.observer = PacketObserver(onSendVideo: { b in b += [UInt8](repeating: 0, count: PacketObserver.maxGrowth + 1); return true })
        p.refresh(&send)
        #expect(p.outgoing([1], .video, &send) == nil)
        #expect(p.outgoing([1], .data, &send) != nil)
    }
}
