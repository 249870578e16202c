import AgoraishWire

/// A token bucket: `rate` tokens a second up to `burst`. Sans-IO: the caller
/// passes the time. Used for the signaling message budgets (per connection
/// and per address) and the log limiter (docs/server.md, Limits and abuse).
struct RateBudget {
    let rate: Int
    let burst: Int
    private(set) var tokens: Double
    private var at: Instant

    /// A full bucket at `now`.
    init(rate: Int, burst: Int, now: Instant) {
        self.rate = max(1, rate)
        self.burst = max(1, burst)
        tokens = Double(self.burst)
        at = now
    }

    private mutating func refill(_ now: Instant) {
        guard now > at else { return }
        tokens = min(Double(burst), tokens + Double(rate) * Double((now - at).nanosecondsClamped) / 1e9)
        at = now
    }

    /// Takes `cost` tokens (at most `burst`) if the bucket holds them.
    mutating func take(_ cost: Int = 1, now: Instant) -> Bool {
        refill(now)
        let c = Double(min(cost, burst))
        guard tokens >= c else { return false }
        tokens -= c
        return true
    }

    /// Whether `cost` tokens (at most `burst`) are there, without taking them.
    mutating func holds(_ cost: Int = 1, now: Instant) -> Bool {
        refill(now)
        return tokens >= Double(min(cost, burst))
    }

    /// Takes `cost` tokens whether or not they are there (the bucket may go
    /// into debt down to minus `burst`): for what has already happened.
    mutating func charge(_ cost: Int, now: Instant) {
        refill(now)
        tokens = max(-Double(burst), tokens - Double(cost))
    }

    /// Whether the bucket is full (nothing taken lately).
    mutating func isFull(now: Instant) -> Bool {
        refill(now)
        return tokens >= Double(burst)
    }

    /// When `cost` tokens will be there.
    func available(_ cost: Int = 1) -> Instant {
        let missing = Double(min(cost, burst)) - tokens
        guard missing > 0 else { return at }
        return at + .nanoseconds(Int64((missing / Double(rate) * 1e9).rounded(.up)))
    }
}
