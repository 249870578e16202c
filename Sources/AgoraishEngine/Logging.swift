import AgoraishIO
import Glibc

/// Agora's log filters (LOG_FILTER_TYPE): bit sets of `LogSeverity` values.
public enum LogFilter {
    /// Nothing is written.
    public static let off: UInt32 = 0
    /// Debug and everything more severe.
    public static let debug: UInt32 = 0x080f
    /// Info and everything more severe (the default).
    public static let info: UInt32 = 0x000f
    /// Warnings and more severe.
    public static let warn: UInt32 = 0x000e
    /// Errors and more severe.
    public static let error: UInt32 = 0x000c
    /// Critical lines only.
    public static let critical: UInt32 = 0x0008
    /// Every bit a filter may carry.
    public static let mask: UInt32 = 0x080f

    /// Whether `filter` uses only known bits.
    public static func isValid(_ filter: UInt32) -> Bool { filter & ~mask == 0 }

    /// The filter of an Agora 4.x LOG_LEVEL (NONE=0, INFO=1, WARN=2, ERROR=4, FATAL=8), or nil.
    public static func forLevel(_ level: Int32) -> UInt32? {
        switch level {
        case 0: off
        case 1: info
        case 2: warn
        case 4: error
        case 8: critical
        default: nil
        }
    }
}

/// Log file size limits, in KB, as Agora documents them for `logConfig.fileSizeInKB`.
public enum LogFileSize {
    /// The size used when the host asks for the default (-1).
    public static let defaultKB: Int = 1024
    /// Smaller requests are raised to this.
    public static let minimumKB: Int = 128
    /// Larger requests are rejected.
    public static let maximumKB: Int = 20480
    /// Files in one rotation (the current one included).
    public static let fileCount = 5

    /// The size to use for a request: -1 is the default, 1..min is raised to
    /// min, min...max is kept; anything else is invalid.
    public static func normalize(_ requestKB: Int) -> Int? {
        if requestKB == -1 { return defaultKB }
        guard requestKB >= 1 && requestKB <= maximumKB else { return nil }
        return max(requestKB, minimumKB)
    }
}

/// Where an engine logs when the host names no file.
///
/// The directory is `AGORAISH_LOG_DIR`, else `$XDG_STATE_HOME/agoraish`, else
/// `$HOME/.local/state/agoraish`, else `/tmp/agoraish`. The file is
/// `agoraish-<pid>-<n>.log` for the n-th engine of process `pid`, so neither
/// engines of one process nor processes sharing the directory share a file.
/// `env` reads the environment; `pid` is the process's.
public func defaultLogPath(engineSerial: Int, env: (String) -> String? = environment,
                           pid: Int32 = getpid()) -> String {
    let directory: String
    if let dir = env("AGORAISH_LOG_DIR") {
        directory = dir
    } else if let state = env("XDG_STATE_HOME") {
        directory = state + "/agoraish"
    } else if let home = env("HOME") {
        directory = home + "/.local/state/agoraish"
    } else {
        directory = "/tmp/agoraish"
    }
    return directory + "/agoraish-\(pid)-\(engineSerial).log"
}

/// The default log directory holds at most this many engines' logs of
/// processes that have ended (each with its rotations); the logs of running
/// processes are never removed.
public let keptDefaultLogs = 32

/// Removes the oldest default logs (`agoraish-<pid>-<n>.log` and their
/// rotations `agoraish-<pid>-<n>_<k>.log`) of processes that no longer run
/// from `directory`, keeping the `keep` most recently written. Other files are
/// left alone. Returns how many files it removed.
@discardableResult
public func pruneDefaultLogs(in directory: String, keep: Int = keptDefaultLogs,
                             isRunning: (Int32) -> Bool = processIsRunning) -> Int {
    guard let dir = opendir(directory) else { return 0 }
    // (pid, serial) -> (newest modification, files)
    var sets: [String: (pid: Int32, newest: Int, files: [String])] = [:]
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        guard let (pid, key) = defaultLogSet(name) else { continue }
        var info = stat()
        guard stat(directory + "/" + name, &info) == 0 else { continue }
        var set = sets[key] ?? (pid, 0, [])
        set.newest = max(set.newest, Int(info.st_mtim.tv_sec))
        set.files.append(name)
        sets[key] = set
    }
    closedir(dir)
    let ended = sets.values.filter { !isRunning($0.pid) }.sorted { $0.newest > $1.newest }
    var removed = 0
    for set in ended.dropFirst(max(0, keep)) {
        for file in set.files where unlink(directory + "/" + file) == 0 { removed += 1 }
    }
    return removed
}

/// The process and the set a default log file name belongs to
/// ("agoraish-<pid>-<n>.log" or "agoraish-<pid>-<n>_<k>.log"), or nil.
func defaultLogSet(_ name: String) -> (pid: Int32, key: String)? {
    guard name.hasPrefix("agoraish-"), name.hasSuffix(".log") else { return nil }
    let stem = name.dropFirst("agoraish-".count).dropLast(".log".count)
    let base = stem.split(separator: "_", maxSplits: 1)
    let parts = base[0].split(separator: "-")
    guard parts.count == 2, let pid = Int32(parts[0]), Int(parts[1]) != nil,
          base.count == 1 || Int(base[1]) != nil else { return nil }
    return (pid, String(base[0]))
}

/// Whether process `pid` exists (it may belong to another user).
public func processIsRunning(_ pid: Int32) -> Bool {
    kill(pid, 0) == 0 || errno == EPERM
}
