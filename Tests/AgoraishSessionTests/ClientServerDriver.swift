@testable import AgoraishServer
import AgoraishSession
import AgoraishWire

/// Clients and the signaling core on one virtual clock, with transports
/// simulated in memory: deterministic end-to-end tests of join, leave,
/// reconnection and tokens without sockets or sleeps.
struct ClientServerDriver {
    var core: SignalingCore
    var config: ServerConfig
    var now = Instant(nanoseconds: 5_000_000_000)
    var clients: [ClientSession] = []
    var events: [[ClientSession.Event]] = []
    /// Connection of each client, when its transport is open.
    var links: [Int: ConnectionID] = [:]
    var serverUp = true
    var nextConn: UInt64 = 1
    /// Every message on the wire, in order: "<client>> text" sent, "<client>< text" received.
    var wire: [String] = []
    static let unixBase: Int64 = 1_718_000_000

    init(clients count: Int, appId: String = "0123456789abcdef0123456789abcdef",
         configure: (inout ServerConfig) -> Void = { $0.acceptUnknownApps = true }) {
        var config = ServerConfig()
        configure(&config)
        self.config = config
        core = SignalingCore(config: config, clockBase: Instant(nanoseconds: 5_000_000_000), unixAtBase: Self.unixBase, seed: 1)
        for _ in 0..<count {
            clients.append(ClientSession(settings: .init(appId: appId)))
            events.append([])
        }
    }

    /// Runs `body` on client `i`, then moves messages until nothing is left to do now.
    mutating func call<T>(_ i: Int, _ body: (inout ClientSession, Instant) throws -> T) rethrows -> T {
        let result = try body(&clients[i], now)
        settle()
        return result
    }

    /// Delivers everything that is due at `now`, repeatedly, until quiet.
    mutating func settle() {
        var progress = true
        while progress {
            progress = false
            for i in clients.indices {
                while let t = clients[i].pollTransmit() {
                    progress = true
                    switch t {
                    case .connect:
                        if let old = links.removeValue(forKey: i) { core.disconnected(old, now: now) }
                        if serverUp {
                            let c = ConnectionID(nextConn)
                            nextConn += 1
                            links[i] = c
                            core.connected(c, address: "127.0.0.1", now: now)
                            clients[i].transportOpened(now: now)
                        } else {
                            clients[i].transportClosed(now: now)
                        }
                    case .send(let text):
                        if let c = links[i] {
                            wire.append("\(i)> \(text)")
                            core.received(text, on: c, now: now)
                        }
                    case .close:
                        if let c = links.removeValue(forKey: i) { core.disconnected(c, now: now) }
                    }
                }
                while let e = clients[i].pollEvent() {
                    progress = true
                    events[i].append(e)
                }
            }
            while let out = core.pollTransmit() {
                progress = true
                switch out {
                case .send(let c, let text):
                    if let i = links.first(where: { $0.value == c })?.key {
                        wire.append("\(i)< \(text)")
                        clients[i].received(text, now: now)
                    }
                case .close(let c, _, _):
                    core.disconnected(c, now: now)
                    if let i = links.first(where: { $0.value == c })?.key {
                        links[i] = nil
                        clients[i].transportClosed(now: now)
                    }
                }
            }
            while core.pollEvent() != nil {}
        }
    }

    /// Advances virtual time, firing every timer on the way.
    mutating func advance(_ d: Duration) {
        let end = now + d
        while true {
            var next = core.pollTimeout()
            for c in clients { if let t = c.pollTimeout() { next = next.map { min($0, t) } ?? t } }
            guard let t = next, t <= end else { break }
            now = max(now, t)
            core.handleTimeout(now: now)
            for i in clients.indices { clients[i].handleTimeout(now: now) }
            settle()
        }
        now = end
        settle()
    }

    /// The server process dies: every link breaks and its state is gone.
    mutating func killServer() {
        serverUp = false
        let broken = links
        links = [:]
        core = SignalingCore(config: config, clockBase: Instant(nanoseconds: 5_000_000_000), unixAtBase: Self.unixBase, seed: 2)
        for (i, _) in broken.sorted(by: { $0.key < $1.key }) { clients[i].transportClosed(now: now) }
        settle()
    }

    mutating func startServer() { serverUp = true }

    /// Events of client `i` since the last call.
    mutating func take(_ i: Int) -> [ClientSession.Event] {
        defer { events[i] = [] }
        return events[i]
    }
}
