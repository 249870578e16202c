import Glibc

/// A gate that one thread opens and another waits on with a deadline, for
/// tests that observe work done on another thread without sleeping.
public final class Latch: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var count: Int

    /// A latch that opens after `count` calls to `open()`.
    public init(count: Int = 1) {
        self.count = count
        pthread_mutex_init(mutex, nil)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    /// Counts down once; the latch opens when the count reaches zero.
    public func open() {
        pthread_mutex_lock(mutex)
        if count > 0 { count -= 1 }
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
    }

    /// Waits until open or until `seconds` pass. Returns whether it opened.
    public func wait(seconds: Double = 10) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let total = Int(deadline.tv_nsec) + Int(seconds * 1e9)
        deadline.tv_sec += total / 1_000_000_000
        deadline.tv_nsec = total % 1_000_000_000
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while count > 0 {
            if pthread_cond_timedwait(cond, mutex, &deadline) == ETIMEDOUT { return count == 0 }
        }
        return true
    }
}

/// A new empty directory under /tmp whose name starts with `prefix`.
public func makeTemporaryDirectory(_ prefix: String) -> String {
    var template = Array("/tmp/agoraish-\(prefix)-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
}

/// The whole file as text ("" when it cannot be read).
public func readTextFile(_ path: String) -> String {
    guard let f = fopen(path, "r") else { return "" }
    defer { fclose(f) }
    var out = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buffer, 1, buffer.count, f)
        if n <= 0 { break }
        out += buffer[0..<n]
    }
    return String(decoding: out, as: UTF8.self)
}

/// The size of a file in bytes, or nil when it does not exist.
public func fileSize(_ path: String) -> Int? {
    var st = stat()
    return stat(path, &st) == 0 ? Int(st.st_size) : nil
}

/// Waits until `condition` holds, checking every millisecond, for at most
/// `seconds`. For state that another thread changes without a notification.
public func waitUntil(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let tick = Latch()
    var waited = 0.0
    while !condition() {
        if waited >= seconds { return false }
        _ = tick.wait(seconds: 0.001)
        waited += 0.001
    }
    return true
}
