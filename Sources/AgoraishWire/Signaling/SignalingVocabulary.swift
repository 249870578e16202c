/// Agora's USER_OFFLINE_REASON_TYPE (`user_offline`'s `reason`).
public enum OfflineReason: Int64, Sendable {
    case quit = 0
    case dropped = 1
    case becomeAudience = 2
}

/// Agora's CLIENT_ROLE_TYPE (`join`'s and `set_role`'s `role`).
public enum ClientRole: Int64, Sendable {
    case broadcaster = 1
    case audience = 2
}

/// Agora's CHANNEL_PROFILE_TYPE, the two a server distinguishes (`join`'s `profile`).
public enum ChannelProfile: Int64, Sendable {
    case communication = 0
    case liveBroadcasting = 1
}

/// The three switches behind a user's video being on (`set_video_state`,
/// `user_mute_video`, and the user entries of `joined`, `resumed` and `user_joined`).
public struct VideoFlags: Equatable, Sendable {
    /// enableVideo / disableVideo.
    public var enabled = true
    /// enableLocalVideo.
    public var localEnabled = true
    /// muteLocalVideoStream.
    public var streamMuted = false

    public init(enabled: Bool = true, localEnabled: Bool = true, streamMuted: Bool = false) {
        self.enabled = enabled
        self.localEnabled = localEnabled
        self.streamMuted = streamMuted
    }

    /// The three booleans under `enabled`, `localEnabled` and `streamMuted`'s
    /// keys, when all three are there (a client reads them so: a peer that
    /// sends only some has told none).
    static func read(_ f: MessageFields, _ enabled: String, _ localEnabled: String, _ streamMuted: String) -> VideoFlags? {
        guard let e = f.lenientBool(enabled), let l = f.lenientBool(localEnabled), let s = f.lenientBool(streamMuted)
        else { return nil }
        return VideoFlags(enabled: e, localEnabled: l, streamMuted: s)
    }

    func write(into m: inout [String: JSONValue], _ enabled: String, _ localEnabled: String, _ streamMuted: String) {
        m[enabled] = .bool(self.enabled)
        m[localEnabled] = .bool(self.localEnabled)
        m[streamMuted] = .bool(self.streamMuted)
    }
}
