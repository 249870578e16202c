@testable import AgoraishServer
import AgoraishTesting
import Glibc
import Synchronization
import Testing

/// The forwarding rings' wake-up protocol: the producer wakes the consumer
/// only when the consumer had caught up; no datagram may be stranded.
@Suite struct PacketRingTests {
    final class Consumer: @unchecked Sendable {
        let ring = PacketRing(capacity: 64)
        let consumed = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        var pending = 0

        init() {
            pthread_mutex_init(mutex, nil)
            pthread_cond_init(cond, nil)
        }

        func wake() {
            pthread_mutex_lock(mutex)
            pending += 1
            pthread_cond_signal(cond)
            pthread_mutex_unlock(mutex)
        }

        /// Sleeps until woken, then drains until empty, as a worker does.
        func run() {
            while !stop.load(ordering: .acquiring) {
                pthread_mutex_lock(mutex)
                while pending == 0 && !stop.load(ordering: .acquiring) { pthread_cond_wait(cond, mutex) }
                pending = 0
                pthread_mutex_unlock(mutex)
                repeat {
                    ring.drain { _, _, _ in consumed.wrappingAdd(1, ordering: .relaxed) }
                } while !ring.isEmpty
            }
        }
    }

    @Test func everyPushedDatagramIsConsumedWithoutLostWakeups() throws {
        let c = Consumer()
        var thread = pthread_t()
        let context = Unmanaged.passRetained(c).toOpaque()
        pthread_create(&thread, nil, { raw in
            Unmanaged<Consumer>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, context)
        let total = 200_000
        var payload = [UInt8](repeating: 7, count: 100)
        var pushed = 0
        while pushed < total {
            let result = payload.withUnsafeMutableBytes { c.ring.push($0.baseAddress!, length: 100, session: 1) }
            guard let caughtUp = result else { continue }  // full: the consumer is behind, try again
            pushed += 1
            if caughtUp { c.wake() }
        }
        #expect(waitUntil(seconds: 20) { c.consumed.load(ordering: .relaxed) == total },
                "consumed \(c.consumed.load(ordering: .relaxed)) of \(total)")
        c.stop.store(true, ordering: .releasing)
        c.wake()
        pthread_join(thread, nil)
    }
}
