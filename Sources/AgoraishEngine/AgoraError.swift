/// Agora's error codes (ERROR_CODE_TYPE), the one error type of the public API.
///
/// The raw value is the positive code; the C ABI returns its negation. This is
/// the single table that maps internal failures to the numbers hosts see.
public enum AgoraError: Int32, Error, Sendable, CaseIterable {
    case failed = 1
    case invalidArgument = 2
    case notReady = 3
    case notSupported = 4
    case refused = 5
    case bufferTooSmall = 6
    case notInitialized = 7
    case invalidState = 8
    case noPermission = 9
    case timedOut = 10
    case canceled = 11
    case tooOften = 12
    case bindSocket = 13
    case netDown = 14
    case netNoBufs = 15
    case joinChannelRejected = 17
    case leaveChannelRejected = 18
    case alreadyInUse = 19
    case aborted = 20
    case initNetEngine = 21
    case resourceLimited = 22
    case invalidAppId = 101
    case invalidChannelName = 102
    case noServerResources = 103
    case tokenExpired = 109
    case invalidToken = 110
    case connectionInterrupted = 111
    case connectionLost = 112
    case notInChannel = 113
    case sizeTooLarge = 114
    case bitrateLimit = 115
    case tooManyDataStreams = 116
    case streamMessageTimeout = 117
    case setClientRoleNotAuthorized = 119
    case decryptionFailed = 120
    case invalidUserId = 121
    case clientIsBannedByServer = 123
    case invalidUserAccount = 134

    /// The value a C function returns for this error.
    public var returnCode: Int32 { -rawValue }

    /// A one-line description (what `getErrorDescription` returns).
    public var text: String {
        switch self {
        case .failed: "general error"
        case .invalidArgument: "invalid argument"
        case .notReady: "not ready"
        case .notSupported: "not supported"
        case .refused: "request refused"
        case .bufferTooSmall: "buffer too small"
        case .notInitialized: "not initialized: the handle is NULL, released or unknown"
        case .invalidState: "invalid state"
        case .noPermission: "no permission"
        case .timedOut: "timed out"
        case .canceled: "canceled"
        case .tooOften: "called too often"
        case .bindSocket: "cannot bind socket"
        case .netDown: "network unavailable"
        case .netNoBufs: "no socket buffer space"
        case .joinChannelRejected: "join rejected: already in or joining a channel"
        case .leaveChannelRejected: "leave rejected: not in a channel"
        case .alreadyInUse: "resource already in use"
        case .aborted: "aborted: too many requests"
        case .initNetEngine: "network engine failed to start"
        case .resourceLimited: "resource limited"
        case .invalidAppId: "invalid app id"
        case .invalidChannelName: "invalid channel name"
        case .noServerResources: "no server resources"
        case .tokenExpired: "token expired"
        case .invalidToken: "invalid token"
        case .connectionInterrupted: "connection interrupted"
        case .connectionLost: "connection lost"
        case .notInChannel: "not in a channel"
        case .sizeTooLarge: "message too large"
        case .bitrateLimit: "data stream bitrate limit exceeded"
        case .tooManyDataStreams: "too many data streams"
        case .streamMessageTimeout: "data stream message timed out"
        case .setClientRoleNotAuthorized: "client role change not authorized"
        case .decryptionFailed: "decryption failed: key or mode mismatch"
        case .invalidUserId: "invalid user id"
        case .clientIsBannedByServer: "client banned by server"
        case .invalidUserAccount: "invalid user account"
        }
    }

    /// The description of any code, negated or not. 0 is success.
    public static func describe(_ code: Int32) -> String {
        if code == 0 { return "no error" }
        let positive = code == Int32.min ? code : abs(code)
        return AgoraError(rawValue: positive)?.text ?? "unknown error"
    }
}
