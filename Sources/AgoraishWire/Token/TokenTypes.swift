/// RTC privileges as token formats number them (docs/tokens.md).
public enum TokenPrivilege: UInt16, Sendable, CaseIterable {
    case joinChannel = 1
    case publishAudio = 2
    case publishVideo = 3
    case publishDataStream = 4

    /// The snake_case name used by the CLI and the test vectors.
    public var name: String {
        switch self {
        case .joinChannel: "join_channel"
        case .publishAudio: "publish_audio"
        case .publishVideo: "publish_video"
        case .publishDataStream: "publish_data_stream"
        }
    }

    /// The privilege with this snake_case name.
    public init?(name: String) {
        guard let p = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = p
    }
}

/// Who a token is for, as the formats encode it (docs/tokens.md).
public enum TokenIdentity: Sendable, Equatable {
    /// A numeric uid; 0 is the wildcard.
    case uid(UInt32)
    /// A user account; "" is the wildcard.
    case account(String)

    /// The identity string: "" for the wildcard, decimal text for a uid, the account's UTF-8.
    public var bytes: [UInt8] {
        switch self {
        case .uid(0): []
        case .uid(let n): Array(String(n).utf8)
        case .account(let s): Array(s.utf8)
        }
    }
}

/// Token builder roles (docs/tokens.md).
public enum TokenRole: Sendable {
    /// 007 role 1 / 006 roles 0, 1, 101: all four privileges.
    case publisher
    /// 007 role 2 / 006 role 2: join only.
    case subscriber

    /// The privilege keys this role grants.
    public var privileges: [TokenPrivilege] {
        switch self {
        case .publisher: TokenPrivilege.allCases
        case .subscriber: [.joinChannel]
        }
    }
}
