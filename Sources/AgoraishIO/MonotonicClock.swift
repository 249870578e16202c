import AgoraishWire
import Glibc

extension Instant {
    /// The current monotonic time (CLOCK_MONOTONIC).
    public static func now() -> Instant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Instant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}


/// Wall-clock unix time in whole seconds (for tokens and log lines).
public func unixTimeSeconds() -> Int64 { Int64(time(nil)) }

