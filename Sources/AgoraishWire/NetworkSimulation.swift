/// The project's own simulated network for one direction of packets, sans-IO:
/// seeded random loss, a fixed delay and uniform jitter (which reorders
/// packets whose delivery times cross). Used by the engine's media transport
/// when the `rtc.network_simulation` parameter is set (tests, benchmarks).
public struct NetworkSimulation: Sendable {
    public struct Settings: Equatable, Sendable {
        /// Probability in percent that a packet is lost, 0...100.
        public var lossPercent: Double
        /// Fixed one-way delay added to every packet.
        public var delayMs: Int
        /// Each packet is delayed by a further uniform 0...2×jitter ms, minus jitter
        /// (never below zero in total): ±jitter around `delayMs`.
        public var jitterMs: Int
        /// Seed of the loss and jitter choices: the same seed makes the same choices.
        public var seed: UInt64

        public init(lossPercent: Double, delayMs: Int, jitterMs: Int, seed: UInt64) {
            self.lossPercent = lossPercent
            self.delayMs = delayMs
            self.jitterMs = jitterMs
            self.seed = seed
        }

        /// Reads `{"loss_percent": n, "delay_ms": n, "jitter_ms": n, "seed": n}`
        /// (every field optional); nil when a value has the wrong type or range.
        public init?(_ value: JSONValue) {
            guard case .object(let m) = value else { return nil }
            let known: Set<String> = ["loss_percent", "delay_ms", "jitter_ms", "seed"]
            guard Set(m.keys).isSubset(of: known) else { return nil }
            func number(_ key: String) -> Double?? {
                guard let v = m[key] else { return .some(nil) }
                if let i = v.integerValue { return .some(Double(i)) }
                if case .number(let d) = v { return .some(d) }
                return nil
            }
            guard let loss = number("loss_percent"), let delay = number("delay_ms"), let jitter = number("jitter_ms"),
                  let seed = number("seed") else { return nil }
            let l = loss ?? 0, d = delay ?? 0, j = jitter ?? 0, s = seed ?? 1
            guard (0...100).contains(l), (0...10_000).contains(d), (0...5_000).contains(j), s >= 0, s <= 9.0e15 else {
                return nil
            }
            self.init(lossPercent: l, delayMs: Int(d), jitterMs: Int(j), seed: UInt64(s))
        }

        /// The JSON form (what getParameter returns).
        public var json: JSONValue {
            .object(["loss_percent": .number(lossPercent), "delay_ms": .integer(Int64(delayMs)),
                     "jitter_ms": .integer(Int64(jitterMs)), "seed": .integer(Int64(seed))])
        }
    }

    public let settings: Settings
    private var rng: SplitMix64
    /// Packets seen and dropped so far.
    public private(set) var packets = 0
    public private(set) var dropped = 0

    public init(settings: Settings) {
        self.settings = settings
        rng = SplitMix64(seed: settings.seed)
    }

    /// What happens to the next packet: nil when it is lost, else the delay
    /// before it is delivered.
    public mutating func admit() -> Duration? {
        packets += 1
        let u = Double(rng.next() >> 11) / Double(1 << 53)
        if u * 100 < settings.lossPercent {
            dropped += 1
            return nil
        }
        var ms = settings.delayMs
        if settings.jitterMs > 0 {
            ms += Int(rng.next() % UInt64(2 * settings.jitterMs + 1)) - settings.jitterMs
        }
        return .milliseconds(Int64(max(0, ms)))
    }
}
