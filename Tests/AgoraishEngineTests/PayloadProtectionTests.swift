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
    }
}
