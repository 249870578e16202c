/// The project's own simulated network for one direction of packets, sans-IO
/// (the kernel's netem is not available here). Seeded, so the same settings
/// and arrival times make the same decisions:
///
/// - loss: random (`lossPercent`) or bursty (a Gilbert-Elliott chain, `burst`);
/// - a bandwidth cap with a drop-tail queue (`bandwidthKbps`, `queueMs`):
///   packets leave one after another at the cap, waiting their turn;
/// - a fixed delay and uniform jitter (which reorders packets whose delivery
///   times cross), plus explicit reordering (`reorderPercent` of packets held
///   back a further `reorderMs`);
/// - duplication (`duplicatePercent`: a second copy 1 ms after the first).
///
/// The engine's media transport applies it to received media when the
/// `rtc.network_simulation` parameter is set; `SimulatedLink` carries packets
/// through it on a virtual clock for sans-IO tests.
public struct NetworkSimulation: Sendable {
    /// Gilbert-Elliott bursty loss: a "good" and a "bad" state with their own
    /// loss, and per-packet chances of moving between them.
    public struct Burst: Equatable, Sendable {
        /// Percent chance per packet of going from good to bad.
        public var goodToBadPercent: Double
        /// Percent chance per packet of going from bad back to good.
        public var badToGoodPercent: Double
        /// Percent of packets lost in the bad state (100: every one).
        public var lossInBadPercent: Double = 100
        /// Percent of packets lost in the good state.
        public var lossInGoodPercent: Double = 0

        public init(goodToBadPercent: Double, badToGoodPercent: Double, lossInBadPercent: Double = 100,
                    lossInGoodPercent: Double = 0) {
            self.goodToBadPercent = goodToBadPercent
            self.badToGoodPercent = badToGoodPercent
            self.lossInBadPercent = lossInBadPercent
            self.lossInGoodPercent = lossInGoodPercent
        }

        /// The long-run loss in percent: the share of time in the bad state
        /// times its loss, plus the good state's.
        public var averageLossPercent: Double {
            let p = goodToBadPercent, r = badToGoodPercent
            guard p + r > 0 else { return lossInGoodPercent }
            let bad = p / (p + r)
            return bad * lossInBadPercent + (1 - bad) * lossInGoodPercent
        }
    }

    public struct Settings: Equatable, Sendable {
        /// Probability in percent that a packet is lost, 0...100 (ignored when `burst` is set).
        public var lossPercent: Double
        /// Fixed one-way delay added to every packet.
        public var delayMs: Int
        /// Each packet is delayed by a further uniform 0...2×jitter ms, minus jitter
        /// (never below zero in total): ±jitter around `delayMs`.
        public var jitterMs: Int
        /// Seed of every random choice: the same seed makes the same choices.
        public var seed: UInt64
        /// Bursty loss instead of `lossPercent`.
        public var burst: Burst? = nil
        /// Percent of packets delivered twice.
        public var duplicatePercent: Double = 0
        /// Percent of packets held back a further `reorderMs`.
        public var reorderPercent: Double = 0
        public var reorderMs: Int = 0
        /// The link's rate in kbps (0: no cap).
        public var bandwidthKbps: Int = 0
        /// The longest a packet may wait in the cap's queue before it is dropped (drop tail).
        public var queueMs: Int = 300

        public init(lossPercent: Double, delayMs: Int, jitterMs: Int, seed: UInt64) {
            self.lossPercent = lossPercent
            self.delayMs = delayMs
            self.jitterMs = jitterMs
            self.seed = seed
        }

        static let keys: Set<String> = [
            "loss_percent", "delay_ms", "jitter_ms", "seed", "burst", "duplicate_percent", "reorder_percent",
            "reorder_ms", "bandwidth_kbps", "queue_ms",
        ]

        /// Reads `{"loss_percent": n, "delay_ms": n, "jitter_ms": n, "seed": n,
        /// "burst": {"good_to_bad_percent": n, "bad_to_good_percent": n,
        /// "loss_in_bad_percent": n, "loss_in_good_percent": n},
        /// "duplicate_percent": n, "reorder_percent": n, "reorder_ms": n,
        /// "bandwidth_kbps": n, "queue_ms": n}` (every field optional); nil when
        /// a key is unknown or a value has the wrong type or range.
        public init?(_ value: JSONValue) {
            guard case .object(let m) = value, Set(m.keys).isSubset(of: Self.keys) else { return nil }
            func number(_ object: [String: JSONValue], _ key: String, _ range: ClosedRange<Double>, _ fallback: Double) -> Double? {
                guard let v = object[key] else { return fallback }
                let d: Double
                if let i = v.integerValue { d = Double(i) } else if case .number(let x) = v { d = x } else { return nil }
                return range.contains(d) ? d : nil
            }
            guard let l = number(m, "loss_percent", 0...100, 0), let d = number(m, "delay_ms", 0...10_000, 0),
                  let j = number(m, "jitter_ms", 0...5_000, 0), let s = number(m, "seed", 0...9.0e15, 1),
                  let dup = number(m, "duplicate_percent", 0...100, 0), let ro = number(m, "reorder_percent", 0...100, 0),
                  let rms = number(m, "reorder_ms", 0...5_000, 0), let bw = number(m, "bandwidth_kbps", 0...10_000_000, 0),
                  let q = number(m, "queue_ms", 0...10_000, 300)
            else { return nil }
            self.init(lossPercent: l, delayMs: Int(d), jitterMs: Int(j), seed: UInt64(s))
            duplicatePercent = dup
            reorderPercent = ro
            reorderMs = Int(rms)
            bandwidthKbps = Int(bw)
            queueMs = Int(q)
            if let b = m["burst"] {
                let burstKeys: Set<String> = ["good_to_bad_percent", "bad_to_good_percent", "loss_in_bad_percent",
                                              "loss_in_good_percent"]
                guard case .object(let o) = b, Set(o.keys).isSubset(of: burstKeys),
                      let p = number(o, "good_to_bad_percent", 0...100, 0), let r = number(o, "bad_to_good_percent", 0...100, 100),
                      let lb = number(o, "loss_in_bad_percent", 0...100, 100), let lg = number(o, "loss_in_good_percent", 0...100, 0)
                else { return nil }
                burst = Burst(goodToBadPercent: p, badToGoodPercent: r, lossInBadPercent: lb, lossInGoodPercent: lg)
            }
        }

        /// The JSON form (what getParameter returns).
        public var json: JSONValue {
            var m: [String: JSONValue] = [
                "loss_percent": .number(lossPercent), "delay_ms": .integer(Int64(delayMs)),
                "jitter_ms": .integer(Int64(jitterMs)), "seed": .integer(Int64(seed)),
                "duplicate_percent": .number(duplicatePercent), "reorder_percent": .number(reorderPercent),
                "reorder_ms": .integer(Int64(reorderMs)), "bandwidth_kbps": .integer(Int64(bandwidthKbps)),
                "queue_ms": .integer(Int64(queueMs)),
            ]
            if let b = burst {
                m["burst"] = .object([
                    "good_to_bad_percent": .number(b.goodToBadPercent), "bad_to_good_percent": .number(b.badToGoodPercent),
                    "loss_in_bad_percent": .number(b.lossInBadPercent), "loss_in_good_percent": .number(b.lossInGoodPercent),
                ])
            }
            return .object(m)
        }
    }

    /// The settings; they may change while packets flow (a cap that
    /// changes): the queue and the random choices carry on.
    public var settings: Settings
    private var rng: SplitMix64
    private var inBadState = false
    /// When the capped link has sent everything queued so far.
    private var linkFreeAt: Instant? = nil
    /// Packets seen, lost (randomly or in a burst), dropped by the full queue, and duplicated so far.
    public private(set) var packets = 0
    public private(set) var dropped = 0
    public private(set) var queueDropped = 0
    public private(set) var duplicated = 0

    public init(settings: Settings) {
        self.settings = settings
        rng = SplitMix64(seed: settings.seed)
    }

    private mutating func chance(_ percent: Double) -> Bool {
        guard percent > 0 else { return false }
        let u = Double(rng.next() >> 11) / Double(1 << 53)
        return u * 100 < percent
    }

    /// What happens to the next packet, without a bandwidth cap: nil when it
    /// is lost, else the delay before it is delivered.
    public mutating func admit() -> Duration? {
        admit(size: 0, at: Instant(nanoseconds: 0)).first
    }

    /// What happens to a packet of `size` bytes sent at `now`: the delays after
    /// which its copies are delivered (none: lost; two: duplicated).
    public mutating func admit(size: Int, at now: Instant) -> [Duration] {
        packets += 1
        let lost: Bool
        if let b = settings.burst {
            if inBadState { if chance(b.badToGoodPercent) { inBadState = false } } else if chance(b.goodToBadPercent) {
                inBadState = true
            }
            lost = chance(inBadState ? b.lossInBadPercent : b.lossInGoodPercent)
        } else {
            lost = chance(settings.lossPercent)
        }
        if lost {
            dropped += 1
            return []
        }
        var queued = Duration.zero
        if settings.bandwidthKbps > 0 {
            // Serialization at the cap, behind what is already queued.
            let transmit = Duration.nanoseconds(Int64(size) * 8 * 1_000_000 / Int64(settings.bandwidthKbps))
            let start = max(now, linkFreeAt ?? now)
            if start - now > .milliseconds(Int64(settings.queueMs)) {
                queueDropped += 1
                return []
            }
            linkFreeAt = start + transmit
            queued = (start + transmit) - now
        }
        var ms = settings.delayMs
        if settings.jitterMs > 0 {
            ms += Int(rng.next() % UInt64(2 * settings.jitterMs + 1)) - settings.jitterMs
        }
        if chance(settings.reorderPercent) { ms += settings.reorderMs }
        let delay = queued + .milliseconds(Int64(max(0, ms)))
        if chance(settings.duplicatePercent) {
            duplicated += 1
            return [delay, delay + .milliseconds(1)]
        }
        return [delay]
    }
}

/// A one-way link through a `NetworkSimulation` on a virtual clock: packets
/// go in with `send` and come out of `poll` once their delivery time has
/// passed, in delivery order (ties in sending order). For sans-IO tests.
public struct SimulatedLink<Packet>: Sendable where Packet: Sendable {
    public private(set) var simulation: NetworkSimulation
    private var inFlight: [(at: Instant, order: Int, packet: Packet)] = []
    private var order = 0

    public init(_ settings: NetworkSimulation.Settings) {
        simulation = NetworkSimulation(settings: settings)
    }

    /// Changes the link's settings from now on (packets in flight keep their times).
    public mutating func update(_ settings: NetworkSimulation.Settings) { simulation.settings = settings }

    /// Sends a packet of `size` bytes at `now`.
    public mutating func send(_ packet: Packet, size: Int, now: Instant) {
        for delay in simulation.admit(size: size, at: now) {
            inFlight.append((now + delay, order, packet))
            order += 1
        }
    }

    /// The packets delivered by `now`, oldest first.
    public mutating func poll(now: Instant) -> [Packet] {
        let due = inFlight.filter { $0.at <= now }.sorted { ($0.at, $0.order) < ($1.at, $1.order) }
        inFlight.removeAll { $0.at <= now }
        return due.map(\.packet)
    }

    /// When the next packet is delivered, if any is in flight.
    public var nextDelivery: Instant? { inFlight.map(\.at).min() }
}
