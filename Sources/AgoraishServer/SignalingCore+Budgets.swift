import AgoraishWire

/// What one remote address holds and has done lately (docs/server.md,
/// Limits and abuse). Entries with nothing in them are pruned once a second.
struct AddressState {
    /// Joins, resumes and account registrations within the last second.
    var recent: [Instant] = []
    /// Signaling connections of the address without a session.
    var unauthenticated = 0
    /// Echo tests and last-mile probes of the address.
    var privateSessions = 0

    var isEmpty: Bool { recent.isEmpty && unauthenticated == 0 && privateSessions == 0 }
}

/// Accounts registered by connections without a session, per app: at most a
/// fixed number, the oldest dropped first. An account join with a valid token
/// moves its entry into the app's lasting table.
struct ProvisionalAccounts {
    var uids: [String: UInt32] = [:]
    var order: [String] = []
    var head = 0

    /// Drops the oldest entries until `limit - 1` remain; returns the uids freed.
    mutating func makeRoom(limit: Int) -> [UInt32] {
        var freed: [UInt32] = []
        while uids.count >= limit, head < order.count {
            let oldest = order[head]
            head += 1
            if let uid = uids.removeValue(forKey: oldest) { freed.append(uid) }
        }
        if head > 1024 && head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
        return freed
    }

    mutating func insert(_ account: String, uid: UInt32) {
        uids[account] = uid
        order.append(account)
    }
}

/// Connection admission, the join-rate and private-session budgets per
/// address, the sweep of connections without a session, and account tables.
extension SignalingCore {
    /// Admits a signaling connection from `address`, or refuses it (false: the
    /// shell closes it at once). Past `maxUnauthenticatedConnections` the
    /// oldest connection without a session is closed (4009) to make room, so a
    /// client can always get in to join; past `maxUnauthenticatedPerAddress`
    /// the new connection is refused.
    @discardableResult
    public mutating func connected(_ conn: ConnectionID, address: String, now: Instant) -> Bool {
        guard (addresses[address]?.unauthenticated ?? 0) < config.maxUnauthenticatedPerAddress else {
            events.append(.refused(reason: "unauthenticated_per_address"))
            return false
        }
        while unauthenticatedCount >= config.maxUnauthenticatedConnections, let oldest = popIdle() {
            outputs.append(.close(oldest, code: 4009, reason: "evicted"))
            events.append(.refused(reason: "evicted"))
            forget(oldest)
        }
        connections[conn] = ConnectionState(address: address)
        markIdle(conn, now: now)
        return true
    }

    /// A connection ended. Its session, if any, stays for `dropTimeout` so the
    /// client can resume it; nobody else notices unless it expires.
    public mutating func disconnected(_ conn: ConnectionID, now: Instant) {
        guard let sid = forget(conn) else { return }
        if sessions[sid] != nil {
            sessions[sid]!.connection = nil
            sessions[sid]!.lastSeen = now
        }
    }

    /// Signaling connections without a session.
    public var unauthenticatedConnectionCount: Int { unauthenticatedCount }

    /// Removes a connection's state; returns the session it carried.
    @discardableResult
    mutating func forget(_ conn: ConnectionID) -> UInt64? {
        guard let state = connections.removeValue(forKey: conn) else { return nil }
        if state.session == nil { countIdle(state.address, -1) }
        return state.session
    }

    /// The connection now carries session `sid`.
    mutating func attach(_ conn: ConnectionID, _ sid: UInt64) {
        guard let state = connections[conn], state.session == nil else { return }
        connections[conn]!.session = sid
        connections[conn]!.idleSince = nil
        countIdle(state.address, -1)
    }

    /// The connection no longer carries a session: it has `authenticationTimeout`
    /// to join or resume again before it is closed.
    mutating func detach(_ conn: ConnectionID, now: Instant) {
        guard let state = connections[conn], state.session != nil else { return }
        connections[conn]!.session = nil
        markIdle(conn, now: now)
    }

    private mutating func markIdle(_ conn: ConnectionID, now: Instant) {
        connections[conn]!.idleSince = now
        countIdle(connections[conn]!.address, 1)
        idleQueue.append((conn, now))
    }

    private mutating func countIdle(_ address: String, _ delta: Int) {
        unauthenticatedCount += delta
        addresses[address, default: AddressState()].unauthenticated += delta
    }

    /// The connection without a session that has been so the longest (entries
    /// that have since joined or closed are skipped).
    private mutating func popIdle() -> ConnectionID? {
        while idleHead < idleQueue.count {
            let (conn, since) = idleQueue[idleHead]
            idleHead += 1
            if connections[conn]?.idleSince == since { compactIdle(); return conn }
        }
        compactIdle()
        return nil
    }

    private mutating func compactIdle() {
        if idleHead == idleQueue.count {
            idleQueue.removeAll(keepingCapacity: true)
            idleHead = 0
        } else if idleHead > 1024 && idleHead * 2 > idleQueue.count {
            idleQueue.removeFirst(idleHead)
            idleHead = 0
        }
    }

    /// When the oldest connection without a session is due to be closed (a
    /// lower bound: the entry may have joined since).
    var idleDeadline: Instant? {
        idleHead < idleQueue.count ? idleQueue[idleHead].since + config.authenticationTimeout : nil
    }

    /// Closes connections that have had no session for `authenticationTimeout` (4003).
    mutating func sweepIdle(now: Instant) {
        while idleHead < idleQueue.count {
            let (conn, since) = idleQueue[idleHead]
            guard connections[conn]?.idleSince == since else {
                idleHead += 1
                continue
            }
            guard now >= since + config.authenticationTimeout else { break }
            idleHead += 1
            outputs.append(.close(conn, code: 4003, reason: "idle"))
            events.append(.refused(reason: "authentication_timeout"))
            forget(conn)
        }
        compactIdle()
    }

    /// Counts a join, resume or registration of `address` against its rate;
    /// throws -12 past `joinsPerSecondPerAddress` within a second.
    mutating func takeJoinBudget(_ address: String, now: Instant) throws(SignalingFailure) {
        var state = addresses[address, default: AddressState()]
        state.recent.removeAll { now - $0 >= .seconds(1) }
        defer { addresses[address] = state }
        guard state.recent.count < config.joinsPerSecondPerAddress else {
            events.append(.refused(reason: "join_rate"))
            throw .code(-12, "too_often")
        }
        state.recent.append(now)
    }

    /// Whether `address` may start another echo test or last-mile probe in `app`.
    mutating func checkPrivateBudget(_ address: String, app: String) throws(SignalingFailure) {
        guard privateSessionCount < config.maxPrivateSessions else {
            events.append(.refused(reason: "private_sessions"))
            throw .code(-103, "server_busy")
        }
        guard privateSessionsByApp[app, default: 0] < config.maxPrivateSessionsPerApp else {
            events.append(.refused(reason: "private_sessions_per_app"))
            throw .code(-103, "server_busy")
        }
        guard (addresses[address]?.privateSessions ?? 0) < config.maxPrivateSessionsPerAddress else {
            events.append(.refused(reason: "private_sessions_per_address"))
            throw .code(-12, "too_often")
        }
    }

    /// Drops address entries that hold nothing (at most once a second).
    mutating func pruneAddresses(now: Instant) {
        guard now >= lastPrune + .seconds(1) else { return }
        lastPrune = now
        for (address, var state) in addresses {
            state.recent.removeAll { now - $0 >= .seconds(1) }
            if state.isEmpty { addresses[address] = nil } else { addresses[address] = state }
        }
    }

    /// The uid of `account` in `app`. `lasting`: an account join with valid
    /// credentials, or a registration on a connection that holds a session —
    /// the entry goes into the app's table (bounded by `maxAccountsPerApp`).
    /// Otherwise it is provisional (bounded per app, oldest dropped first).
    mutating func accountUid(app: String, account: String, lasting: Bool) throws(SignalingFailure) -> UInt32 {
        if let uid = accounts[app]?[account] { return uid }
        if lasting {
            guard (accounts[app]?.count ?? 0) < config.maxAccountsPerApp else {
                events.append(.refused(reason: "accounts"))
                throw .code(-22, "too_many_accounts")
            }
            let uid = provisional[app]?.uids.removeValue(forKey: account) ?? newAccountUid(app)
            accounts[app, default: [:]][account] = uid
            return uid
        }
        if let uid = provisional[app]?.uids[account] { return uid }
        for freed in provisional[app, default: ProvisionalAccounts()].makeRoom(limit: config.maxProvisionalAccountsPerApp) {
            accountUids[app]?.remove(freed)
        }
        let uid = newAccountUid(app)
        provisional[app]!.insert(account, uid: uid)
        return uid
    }

    private mutating func newAccountUid(_ app: String) -> UInt32 {
        var uid: UInt32
        repeat { uid = UInt32(truncatingIfNeeded: rng.next()) } while uid == 0 || accountUids[app]?.contains(uid) == true
        accountUids[app, default: []].insert(uid)
        return uid
    }
}
