import AgoraishWire
import CAgoraishShim
import Glibc

/// An epoll event loop on one dedicated thread: file descriptor readiness,
/// timers, and work posted from other threads. Everything registered with a
/// loop runs on its thread, so the state it touches needs no locks.
///
/// Calls that say "loop thread only" must come from a handler or posted work;
/// `post` and `stop` may come from anywhere.
public final class EventLoop: @unchecked Sendable {
    /// A registered descriptor's handler: receives epoll event bits.
    public typealias Handler = (UInt32) -> Void

    /// Readiness bits for `register` and `modify` (epoll's).
    public static let readable: UInt32 = EPOLLIN.rawValue
    /// The descriptor can be written.
    public static let writable: UInt32 = EPOLLOUT.rawValue

    /// Identifies a timer for `cancel`.
    public struct TimerID: Hashable, Sendable { let raw: UInt64 }

    private let epfd: Int32
    private let wakeFd: Int32
    private let thread: EventThreadHandle
    // Loop-thread state.
    private var handlers: [Int32: Handler] = [:]
    private var timers = TimerHeap()
    private var nextTimer: UInt64 = 1
    private var running = true
    /// Posted items run per loop turn (nil: all that are queued).
    private let postedPerTurn: Int?
    /// True when the last turn left posted work queued.
    private var backlog = false
    // Cross-thread state, under `lock`.
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var posted: [() -> Void] = []
    private var stopRequested = false

    /// Creates the loop and starts its thread, named `name`.
    ///
    /// With `postedPerTurn`, a turn runs at most that many posted items before
    /// it handles ready descriptors and timers, so a burst of posted work (a
    /// mass leave's removals) cannot hold back the traffic the loop serves for
    /// longer than one such slice. Posted items still run in the order posted,
    /// but traffic that becomes ready while a backlog is queued may then be
    /// handled before the rest of it.
    public init(name: String, postedPerTurn: Int? = nil) throws(EventThreadError) {
        self.postedPerTurn = postedPerTurn.map { max(1, $0) }
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        pthread_mutex_init(lock, nil)
        thread = EventThreadHandle()
        guard epfd >= 0, wakeFd >= 0 else { throw .startFailed(errno: errno) }
        _ = agsh_epoll_ctl(epfd, EPOLL_CTL_ADD, wakeFd, EPOLLIN.rawValue, UInt64(wakeFd))
        // The thread keeps the loop alive until `stop` ends it.
        try thread.start(name: name) { self.run() }
    }

    deinit {
        close(epfd)
        close(wakeFd)
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// True on the loop's thread.
    public var inLoop: Bool { thread.isCurrent }

    /// Runs `work` on the loop thread, after what is already queued. Returns
    /// false if the loop has stopped (the work is dropped).
    @discardableResult
    public func post(_ work: @escaping () -> Void) -> Bool {
        pthread_mutex_lock(lock)
        if stopRequested {
            pthread_mutex_unlock(lock)
            return false
        }
        posted.append(work)
        pthread_mutex_unlock(lock)
        var one: UInt64 = 1
        _ = write(wakeFd, &one, 8)
        return true
    }

    /// Stops the loop after the work already posted; with `wait`, joins its
    /// thread (not from the loop thread itself, which cannot wait for itself).
    public func stop(wait: Bool) {
        pthread_mutex_lock(lock)
        stopRequested = true
        pthread_mutex_unlock(lock)
        var one: UInt64 = 1
        _ = write(wakeFd, &one, 8)
        thread.finish(wait: wait && !inLoop)
    }

    /// Watches `fd` for `events` (EPOLLIN, EPOLLOUT, ...). Loop thread only.
    public func register(_ fd: Int32, events: UInt32, _ handler: @escaping Handler) {
        precondition(inLoop, "register runs on the loop thread")
        handlers[fd] = handler
        _ = agsh_epoll_ctl(epfd, EPOLL_CTL_ADD, fd, events, UInt64(UInt32(bitPattern: fd)))
    }

    /// Changes the events watched for `fd`. Loop thread only.
    public func modify(_ fd: Int32, events: UInt32) {
        _ = agsh_epoll_ctl(epfd, EPOLL_CTL_MOD, fd, events, UInt64(UInt32(bitPattern: fd)))
    }

    /// Stops watching `fd` (the caller closes it). Loop thread only.
    public func unregister(_ fd: Int32) {
        handlers[fd] = nil
        _ = agsh_epoll_ctl(epfd, EPOLL_CTL_DEL, fd, 0, 0)
    }

    /// Stops watching `fd` from any thread (epoll_ctl is thread-safe). The
    /// handler entry stays until the number is registered again; handlers that
    /// hold their owner weakly then do nothing.
    public func detach(_ fd: Int32) {
        _ = agsh_epoll_ctl(epfd, EPOLL_CTL_DEL, fd, 0, 0)
    }

    /// Runs `work` once at `deadline`. Loop thread only.
    @discardableResult
    public func schedule(at deadline: Instant, _ work: @escaping () -> Void) -> TimerID {
        let id = TimerID(raw: nextTimer)
        nextTimer += 1
        timers.insert(deadline: deadline, id: id.raw, work: work)
        return id
    }

    /// Runs `work` once after `delay`. Loop thread only.
    @discardableResult
    public func schedule(after delay: Duration, _ work: @escaping () -> Void) -> TimerID {
        schedule(at: .now() + delay, work)
    }

    /// Cancels a timer that has not fired. Loop thread only.
    public func cancel(_ id: TimerID) { timers.cancel(id.raw) }

    private func run() {
        var events = [UInt32](repeating: 0, count: 64)
        var data = [UInt64](repeating: 0, count: 64)
        while running {
            let timeout: Int32
            if backlog {
                timeout = 0
            } else if let next = timers.nextDeadline {
                let ns = (next - .now()).nanosecondsClamped
                timeout = ns <= 0 ? 0 : Int32(clamping: (ns + 999_999) / 1_000_000)
            } else {
                timeout = -1
            }
            let n = agsh_epoll_wait(epfd, &events, &data, 64, timeout)
            // Consume the wake-up first, then run posted work, then the ready
            // descriptors: a wake-up that lands after this read is seen by the
            // next epoll_wait, and work posted before traffic became ready runs
            // before that traffic is handled.
            for i in 0..<Int(max(n, 0)) where Int32(bitPattern: UInt32(truncatingIfNeeded: data[i])) == wakeFd {
                var value: UInt64 = 0
                _ = read(wakeFd, &value, 8)
            }
            runPosted()
            for i in 0..<Int(max(n, 0)) {
                let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: data[i]))
                if fd != wakeFd { handlers[fd]?(events[i]) }
            }
            let now = Instant.now()
            while let work = timers.popDue(now: now) { work() }
        }
        // Handlers and timers often capture their owner, which owns this loop:
        // dropping them here breaks those cycles once the loop has ended.
        handlers = [:]
        timers = TimerHeap()
    }

    private func runPosted() {
        pthread_mutex_lock(lock)
        let stopping = stopRequested
        let work: [() -> Void]
        if !stopping, let limit = postedPerTurn, posted.count > limit {
            work = Array(posted[..<limit])
            posted.removeFirst(limit)
            backlog = true
        } else {
            work = posted
            posted.removeAll()
            backlog = false
        }
        pthread_mutex_unlock(lock)
        for w in work { w() }
        if stopping {
            // Drain work that the last batch posted, then end.
            pthread_mutex_lock(lock)
            let more = posted
            posted.removeAll()
            pthread_mutex_unlock(lock)
            for w in more { w() }
            running = false
        }
    }
}

/// A binary min-heap of timers with lazy cancellation.
struct TimerHeap {
    private var heap: [(deadline: Instant, id: UInt64)] = []
    private var work: [UInt64: () -> Void] = [:]

    var nextDeadline: Instant? {
        mutating get {
            while let top = heap.first, work[top.id] == nil { popTop() }
            return heap.first?.deadline
        }
    }

    mutating func insert(deadline: Instant, id: UInt64, work w: @escaping () -> Void) {
        work[id] = w
        heap.append((deadline, id))
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard heap[i].deadline < heap[parent].deadline else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    mutating func cancel(_ id: UInt64) { work[id] = nil }

    mutating func popDue(now: Instant) -> (() -> Void)? {
        while let top = heap.first {
            guard let w = work[top.id] else {
                popTop()
                continue
            }
            guard top.deadline <= now else { return nil }
            popTop()
            work[top.id] = nil
            return w
        }
        return nil
    }

    private mutating func popTop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count && heap[l].deadline < heap[m].deadline { m = l }
            if r < heap.count && heap[r].deadline < heap[m].deadline { m = r }
            if m == i { break }
            heap.swapAt(i, m)
            i = m
        }
    }
}

/// A pthread that runs one closure: the thread of every `EventLoop` and `EventThread`.
public final class EventThreadHandle: @unchecked Sendable {
    private var thread = pthread_t()
    private var started = false
    private var finished = false
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init() { pthread_mutex_init(lock, nil) }
    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    public var isCurrent: Bool { started && pthread_equal(pthread_self(), thread) != 0 }

    public func start(name: String, _ body: @escaping () -> Void) throws(EventThreadError) {
        final class Box { let body: () -> Void; init(_ b: @escaping () -> Void) { body = b } }
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        var tid = pthread_t()
        let rc = pthread_create(&tid, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            throw .startFailed(errno: rc)
        }
        thread = tid
        started = true
        _ = agsh_set_thread_name(tid, name)
    }

    /// Joins (or detaches) the thread once.
    public func finish(wait: Bool) {
        pthread_mutex_lock(lock)
        let first = !finished && started
        finished = true
        pthread_mutex_unlock(lock)
        guard first else { return }
        if wait { pthread_join(thread, nil) } else { pthread_detach(thread) }
    }
}
