import AgoraishIO
import AgoraishWire

/// How to create an `RtcEngine` (Agora's RtcEngineContext).
public struct EngineConfiguration: Sendable, Equatable {
    /// The app id: 1...128 printable ASCII characters.
    public var appId: String
    /// The channel server URL; nil selects `AGORAISH_SERVER`, then `defaultServerURL`.
    public var serverURL: String?
    /// The log file; nil selects `defaultLogPath(engineSerial:)`.
    public var logFile: String?
    /// One log file's size in KB; -1 is the default (see `LogFileSize`).
    public var logFileSizeKB: Int
    /// An Agora 4.x LOG_LEVEL (NONE=0, INFO=1, WARN=2, ERROR=4, FATAL=8).
    public var logLevel: Int32
    /// Agora's AREA_CODE bit set.
    public var areaCode: UInt32

    /// The server used when neither the configuration nor the environment names one.
    public static let defaultServerURL = "ws://127.0.0.1:7450"
    /// AREA_CODE_GLOB.
    public static let areaGlobal: UInt32 = 0xFFFF_FFFF
    /// Every bit of a regional AREA_CODE.
    public static let areaMask: UInt32 = 0x3F

    /// A configuration with Agora's defaults for everything but the app id.
    public init(appId: String, serverURL: String? = nil, logFile: String? = nil,
                logFileSizeKB: Int = -1, logLevel: Int32 = 1, areaCode: UInt32 = 0xFFFF_FFFF) {
        self.appId = appId
        self.serverURL = serverURL
        self.logFile = logFile
        self.logFileSizeKB = logFileSizeKB
        self.logLevel = logLevel
        self.areaCode = areaCode
    }

    /// Whether `appId` is acceptable: 1...128 printable ASCII characters.
    public static func isValidAppId(_ appId: String) -> Bool {
        let bytes = appId.utf8
        return !bytes.isEmpty && bytes.count <= 128 && bytes.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
    }

    /// Whether `url` is a ws:// or wss:// URL with a host and a valid port.
    public static func isValidServerURL(_ url: String) -> Bool {
        url.utf8.count <= 2048 && url.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }
            && ServerURL(url) != nil
    }

    /// Whether `code` is AREA_CODE_GLOB or a non-empty set of regional bits.
    public static func isValidAreaCode(_ code: UInt32) -> Bool {
        code == areaGlobal || (code != 0 && code & ~areaMask == 0)
    }

    /// The server URL after applying the defaults; `env` reads the environment.
    public func resolvedServerURL(env: (String) -> String? = environment) -> String {
        if let url = serverURL, !url.isEmpty { return url }
        return env("AGORAISH_SERVER") ?? Self.defaultServerURL
    }
}
