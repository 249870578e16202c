import Glibc

/// Why a file could not be read or written.
public enum FileIOError: Error, Equatable, Sendable {
    /// A file system call failed; the errno value.
    case system(Int32)
    /// The file is larger than the reader's limit.
    case tooLarge
}

/// Whole-file reads and all-or-nothing writes, for the formats the media
/// layer encodes and decodes in memory (pictures, watermark images).
///
/// Calls block the calling thread; callers run them on a thread that may
/// wait for the disk (the engine's IO loop, the host's thread).
public enum FileIO {
    /// The whole file at `path`, at most `limit` bytes (open(2), fstat(2), read(2)).
    ///
    /// - Throws: `.system(errno)` when a call fails (ENOENT, EISDIR, ...),
    ///   `.tooLarge` when the file holds more than `limit` bytes.
    public static func readAll(_ path: String, limit: Int) throws(FileIOError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .system(errno) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw .system(errno) }
        guard Int(status.st_size) <= limit else { throw .tooLarge }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(status.st_size))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .system(errno)
            }
            if n == 0 { return bytes }
            // The file may grow after fstat.
            guard bytes.count + n <= limit else { throw .tooLarge }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }

    /// Writes `bytes` to a temporary file next to `path` (mkstemp(3)) and
    /// renames it over `path` (rename(2)), so readers see no file or a
    /// complete one. The file gets `mode` (default rw-r--r--).
    ///
    /// - Throws: `.system(errno)` of the call that failed; the temporary file is removed.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(FileIOError) {
        var template = Array((path + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .system(errno) }
        let temp = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var failure: Int32 = 0
        bytes.withUnsafeBytes { all in
            var done = 0
            while done < all.count {
                let n = write(fd, all.baseAddress! + done, all.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                done += n
            }
        }
        if failure == 0, fchmod(fd, mode) != 0 { failure = errno }
        if close(fd) != 0, failure == 0 { failure = errno }
        if failure == 0, rename(temp, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temp)
            throw .system(failure)
        }
    }
}
