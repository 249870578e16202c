import CAgoraishShim
import Glibc

/// A dedicated thread that runs posted work items one at a time, in order.
///
/// The engine delivers every event callback on one of these, so a host sees
/// its callbacks serialized on a single, known thread. `post` never blocks for
/// long; `shutdown(wait:)` stops accepting work, lets queued items run, and
/// optionally joins the thread. Calling `shutdown(wait: true)` from the thread
/// itself would deadlock, so it detaches instead (the caller should check
/// `isCurrent` first when that matters).
public final class EventThread: @unchecked Sendable {
    // The queue state is guarded by `mutex`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var stopping = false
    private let thread = EventThreadHandle()
    /// The name given at creation, also set as the kernel thread name (15 bytes max).
    public let name: String

    /// Starts the thread. Throws `EventThreadError.startFailed` if the system refuses.
    public init(name: String) throws(EventThreadError) {
        self.name = name
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
        // The thread keeps this object alive until `run` returns.
        try thread.start(name: name) { self.run() }
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    /// True when called from this thread.
    public var isCurrent: Bool { thread.isCurrent }

    /// Queues `work` to run on the thread. Returns false once shutdown has begun.
    @discardableResult
    public func post(_ work: @escaping @Sendable () -> Void) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if stopping { return false }
        queue.append(work)
        pthread_cond_signal(cond)
        return true
    }

    /// Stops accepting work. Items already queued still run. With `wait`, returns
    /// after the thread has ended (unless called on the thread itself, which
    /// cannot wait for itself: the thread is then detached and ends on its own).
    public func shutdown(wait: Bool) {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_signal(cond)
        pthread_mutex_unlock(mutex)
        thread.finish(wait: wait && !isCurrent)
    }

    /// True on any `EventThread` of the process (inside some engine's callback).
    public static var isAnyCurrent: Bool { agsh_is_event_thread() != 0 }

    private func run() {
        agsh_set_event_thread(1)
        while true {
            pthread_mutex_lock(mutex)
            while head == queue.count && !stopping {
                pthread_cond_wait(cond, mutex)
            }
            if head == queue.count {
                queue.removeAll()
                pthread_mutex_unlock(mutex)
                return
            }
            let work = queue[head]
            head += 1
            if head > 256 && head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
            pthread_mutex_unlock(mutex)
            work()
        }
    }
}

/// Why an `EventThread` could not start.
public enum EventThreadError: Error, Equatable {
    /// pthread_create failed with this error number.
    case startFailed(errno: Int32)
}
