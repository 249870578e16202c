import CAgoraishShim
import Glibc

/// Severity of one log line. The raw values are the bits of Agora's LOG_FILTER_TYPE.
public enum LogSeverity: UInt32, Sendable, CaseIterable {
    case debug = 0x0800
    case info = 0x0001
    case warning = 0x0002
    case error = 0x0004
    case critical = 0x0008

    var tag: String {
        switch self {
        case .debug: "DEBUG"
        case .info: "INFO"
        case .warning: "WARN"
        case .error: "ERROR"
        case .critical: "CRITICAL"
        }
    }
}

/// A log file with a severity filter and size-based rotation.
///
/// Rotation keeps `fileCount` files: `name.log` (current), then `name_1.log`
/// (newest rotated) through `name_<fileCount-1>.log` (oldest). Writing is
/// serialized by an internal lock; every method may be called from any thread.
/// Lines look like `2026-11-29 13:51:43.123 [INFO] [tid 1234] text`.
public final class LogWriter: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var fd: Int32 = -1
    private var path: String
    private var written: Int = 0
    private var filterBits: UInt32
    private var maxBytes: Int
    /// Number of files in a rotation, the current one included.
    public let fileCount: Int

    /// Opens (creating, appending to) `path`. Throws the errno of open(2).
    public init(path: String, filter: UInt32, maxBytes: Int, fileCount: Int = 5) throws(LogWriterError) {
        precondition(fileCount >= 1, "a rotation has at least the current file")
        self.path = path
        self.filterBits = filter
        self.maxBytes = maxBytes
        self.fileCount = fileCount
        pthread_mutex_init(lock, nil)
        let (newFd, size) = try Self.open(path)
        fd = newFd
        written = size
    }

    deinit {
        if fd >= 0 { close(fd) }
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// The current file's path.
    public var currentPath: String { locked { path } }
    /// The current filter: a set of `LogSeverity` bits.
    public var filter: UInt32 {
        get { locked { filterBits } }
        set { locked { filterBits = newValue } }
    }
    /// The size at which the current file rotates, in bytes.
    public var rotationSize: Int {
        get { locked { maxBytes } }
        set { locked { maxBytes = newValue } }
    }

    /// Whether a line of this severity would be written.
    public func isEnabled(_ severity: LogSeverity) -> Bool { filter & severity.rawValue != 0 }

    /// Switches to another file; the old one stays as it is. Throws (and keeps
    /// the old file) if the new one cannot be opened.
    public func reopen(path newPath: String) throws(LogWriterError) {
        let (newFd, size) = try Self.open(newPath)
        locked {
            if fd >= 0 { close(fd) }
            fd = newFd
            path = newPath
            written = size
        }
    }

    /// Writes one line if the filter lets `severity` through.
    public func log(_ severity: LogSeverity, _ message: @autoclosure () -> String) {
        guard isEnabled(severity) else { return }
        var line = Self.timestamp()
        line += " [\(severity.tag)] [tid \(agsh_gettid())] "
        line += message()
        line += "\n"
        locked {
            if written > 0 && written + line.utf8.count > maxBytes { rotate() }
            guard fd >= 0 else { return }
            var utf8 = Array(line.utf8)
            let n = utf8.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
            if n > 0 { written += n }
        }
    }

    /// The path of rotated file `index` (1 = newest) for a current file `path`.
    public static func rotatedPath(_ path: String, index: Int) -> String {
        let slash = path.lastIndex(of: "/")
        let nameStart = slash.map { path.index(after: $0) } ?? path.startIndex
        if let dot = path[nameStart...].lastIndex(of: "."), dot != nameStart {
            return "\(path[..<dot])_\(index)\(path[dot...])"
        }
        return "\(path)_\(index)"
    }

    // Called with the lock held.
    private func rotate() {
        if fd >= 0 { close(fd) }
        fd = -1
        if fileCount > 1 {
            unlink(Self.rotatedPath(path, index: fileCount - 1))
            var i = fileCount - 2
            while i >= 1 {
                rename(Self.rotatedPath(path, index: i), Self.rotatedPath(path, index: i + 1))
                i -= 1
            }
            rename(path, Self.rotatedPath(path, index: 1))
        } else {
            unlink(path)
        }
        if let (newFd, size) = try? Self.open(path) {
            fd = newFd
            written = size
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }

    private static func open(_ path: String) throws(LogWriterError) -> (Int32, Int) {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        if fd < 0 { throw .openFailed(path: path, errno: errno) }
        var st = stat()
        let size = fstat(fd, &st) == 0 ? Int(st.st_size) : 0
        return (fd, size)
    }

    private static func timestamp() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var seconds = ts.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(parts.tm_year + 1900)-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2)) "
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
            + pad(Int32(ts.tv_nsec / 1_000_000), 3)
    }
}

/// Why a log file could not be used.
public enum LogWriterError: Error, Equatable {
    /// open(2) failed for `path` with `errno`.
    case openFailed(path: String, errno: Int32)
}

/// Creates `path` and its missing parents with mode 0755. Returns false on failure.
public func makeDirectories(_ path: String) -> Bool {
    var current = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
        current += "/" + component
        if mkdir(current, 0o755) != 0 && errno != EEXIST { return false }
    }
    return true
}

/// The value of an environment variable, or nil when unset or empty.
public func environment(_ name: String) -> String? {
    guard let raw = getenv(name) else { return nil }
    let value = String(cString: raw)
    return value.isEmpty ? nil : value
}
