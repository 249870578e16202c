/// Agora's CONNECTION_STATE_TYPE.
public enum ConnectionState: Int32, Sendable {
    case disconnected = 1
    case connecting = 2
    case connected = 3
    case reconnecting = 4
    case failed = 5
}

/// Agora's CONNECTION_CHANGED_REASON_TYPE (the values this client reports).
public enum ConnectionChangedReason: Int32, Sendable {
    case connecting = 0
    case joinSuccess = 1
    case interrupted = 2
    case bannedByServer = 3
    case joinFailed = 4
    case leaveChannel = 5
    case invalidAppId = 6
    case invalidChannelName = 7
    case invalidToken = 8
    case tokenExpired = 9
    case rejectedByServer = 10
    case renewToken = 12
    case clientIpAddressChanged = 13
    case keepAliveTimeout = 14
    case rejoinSuccess = 15
    case lost = 16
    case sameUidLogin = 19
    case tooManyBroadcasters = 20
}

/// What a call did over its life in a channel (Agora's RtcStats, the fields
/// known at this layer; media layers add theirs).
public struct CallStats: Sendable, Equatable {
    /// Seconds since the join succeeded.
    public var durationSeconds: UInt32 = 0
    /// Bytes sent and received on every path of the call.
    public var txBytes: UInt64 = 0
    public var rxBytes: UInt64 = 0
    /// Packets (signaling messages and media packets) sent and received.
    public var txPackets: UInt64 = 0
    public var rxPackets: UInt64 = 0
    /// Users in the channel as this client sees it, itself included.
    public var userCount: UInt32 = 0
    /// Bytes of audio RTP sent and received (set by the engine), included in the totals above.
    public var mediaTxBytes: UInt64 = 0
    public var mediaRxBytes: UInt64 = 0

    public init() {}
}
