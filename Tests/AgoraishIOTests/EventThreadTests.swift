import AgoraishIO
import Glibc
import Synchronization
import AgoraishTesting
import Testing

@Suite struct EventThreadTests {
    @Test func postedWorkRunsInOrderOnTheThread() {
        let thread = try! EventThread(name: "test-order")
        let seen = Locked<[Int]>([])
        let onThread = Locked(true)
        for i in 0..<1000 {
            thread.post {
                seen.withLock { $0.append(i) }
                if !thread.isCurrent { onThread.withLock { $0 = false } }
            }
        }
        thread.shutdown(wait: true)
        #expect(seen.withLock { $0 } == Array(0..<1000))
        #expect(onThread.withLock { $0 })
        #expect(!thread.isCurrent)
    }

    @Test func shutdownRejectsNewWorkButRunsQueuedWork() {
        let thread = try! EventThread(name: "test-stop")
        let count = Locked(0)
        for _ in 0..<10 { thread.post { count.withLock { $0 += 1 } } }
        thread.shutdown(wait: true)
        #expect(!thread.post { count.withLock { $0 += 100 } })
        #expect(count.withLock { $0 } == 10)
        thread.shutdown(wait: true)  // a second shutdown is harmless
    }

    @Test func shutdownFromTheThreadItselfDoesNotDeadlock() {
        let thread = try! EventThread(name: "test-self")
        let done = Latch()
        thread.post {
            thread.shutdown(wait: true)
            done.open()
        }
        #expect(done.wait())
    }
}
