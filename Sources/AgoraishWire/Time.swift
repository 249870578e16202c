/// Time as the sans-IO layers see it: values handed in by the caller, never read from a clock here.

/// A point on the monotonic clock, in nanoseconds since an arbitrary origin.
/// The sans-IO layers take time as a value of this type; only IO reads the clock.
public struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: Int64

    /// The instant `nanoseconds` after the origin.
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

    /// The instant `d` later.
    public static func + (a: Instant, d: Duration) -> Instant {
        let (sum, overflow) = a.nanoseconds.addingReportingOverflow(d.nanosecondsClamped)
        return Instant(nanoseconds: overflow ? (d < .zero ? .min : .max) : sum)
    }

    /// The time from `b` to `a`.
    public static func - (a: Instant, b: Instant) -> Duration {
        let (difference, overflow) = a.nanoseconds.subtractingReportingOverflow(b.nanoseconds)
        return .nanoseconds(overflow ? (a < b ? Int64.min : Int64.max) : difference)
    }

    public var description: String { "\(Double(nanoseconds) / 1e9)s" }
}

extension Duration {
    /// The duration in nanoseconds, clamped to Int64.
    public var nanosecondsClamped: Int64 {
        let (s, a) = components
        let (mul, overflow) = s.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return s < 0 ? .min : .max }
        return mul &+ a / 1_000_000_000
    }

    /// The duration in whole milliseconds, rounded down.
    public var milliseconds: Int64 { nanosecondsClamped / 1_000_000 }
}
