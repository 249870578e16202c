import AgoraishIO

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
/// `agoraish.log` for the first engine of the process and `agoraish-<n>.log`
/// for the n-th, so engines in one process never share a file.
/// `env` reads the environment.
public func defaultLogPath(engineSerial: Int, env: (String) -> String? = environment) -> String {
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
    let name = engineSerial <= 1 ? "agoraish.log" : "agoraish-\(engineSerial).log"
    return directory + "/" + name
}
