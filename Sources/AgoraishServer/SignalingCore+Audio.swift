import AgoraishWire

/// What one participant wants to receive of the others' audio
/// (`set_audio_subscription`, docs/protocol.md). The media plane forwards a
/// publisher's audio to a subscriber only when `blocks` is false, so a
/// stream nobody wants costs no downlink.
public struct AudioSubscription: Equatable, Sendable {
    /// muteAllRemoteAudioStreams: nobody's audio, present or future.
    public var allMuted = false
    /// setDefaultMuteAllRemoteAudioStreams: users not named below are muted.
    public var defaultMuted = false
    /// muteRemoteAudioStream(uid, true).
    public var muted: Set<UInt32> = []
    /// muteRemoteAudioStream(uid, false), and users present when the default changed.
    public var unmuted: Set<UInt32> = []

    /// Everything is received (the common case, checked first on the hot path).
    public var blocksNothing: Bool { !allMuted && !defaultMuted && muted.isEmpty }

    /// Whether the audio of `uid` is withheld from this subscriber.
    public func blocks(_ uid: UInt32) -> Bool {
        if allMuted || muted.contains(uid) { return true }
        return defaultMuted && !unmuted.contains(uid)
    }

    /// Receives everyone.
    public init() {}
}

/// Whose video a participant receives (`set_video_subscription`): the same rules as audio.
public typealias VideoSubscription = AudioSubscription

/// Most uids one subscription list may name.
let audioSubscriptionListLimit = 4096

/// set_audio_state, set_audio_subscription, set_video_state and set_video_subscription.
extension SignalingCore {
    /// Which media a mute or subscription message is about.
    enum MediaKind { case audio, video }

    /// A participant muted or unmuted its audio: others hear of it, and the
    /// media plane stops forwarding its audio while muted.
    mutating func setAudioState(_ f: MessageFields, _ conn: ConnectionID, _ now: Instant) throws(SignalingFailure) {
        try setMediaState(.audio, f, conn)
    }

    mutating func setVideoState(_ f: MessageFields, _ conn: ConnectionID, _ now: Instant) throws(SignalingFailure) {
        try setMediaState(.video, f, conn)
    }

    private mutating func setMediaState(_ kind: MediaKind, _ f: MessageFields, _ conn: ConnectionID) throws(SignalingFailure) {
        guard let sid = connections[conn]!.session, let s = sessions[sid] else { throw .code(-113, "not_in_channel") }
        let muted = try f.bool("muted")
        guard muted != (kind == .audio ? s.audioMuted : s.videoMuted) else { return }
        if kind == .audio { sessions[sid]!.audioMuted = muted } else { sessions[sid]!.videoMuted = muted }
        if mediaEndpoint != nil {
            mediaCommands.append(kind == .audio ? .setAudioMuted(session: sid, muted: muted)
                                                : .setVideoMuted(session: sid, muted: muted))
        }
        guard isVisible(s) else { return }
        let type = kind == .audio ? "user_mute_audio" : "user_mute_video"
        forEachOther(in: s.key, except: s.uid) { core, conn in
            core.send(conn, message(type, ["uid": .integer(Int64(s.uid)), "muted": .bool(muted)]))
        }
    }

    /// A participant said whose audio it wants.
    mutating func setVideoSubscription(_ f: MessageFields, _ conn: ConnectionID, _ now: Instant) throws(SignalingFailure) {
        try setSubscription(.video, f, conn)
    }

    mutating func setAudioSubscription(_ f: MessageFields, _ conn: ConnectionID, _ now: Instant) throws(SignalingFailure) {
        try setSubscription(.audio, f, conn)
    }

    private mutating func setSubscription(_ kind: MediaKind, _ f: MessageFields, _ conn: ConnectionID) throws(SignalingFailure) {
        guard let sid = connections[conn]!.session, sessions[sid] != nil else { throw .code(-113, "not_in_channel") }
        var sub = AudioSubscription()
        sub.allMuted = try f.optionalBool("all_muted") ?? false
        sub.defaultMuted = try f.optionalBool("default_muted") ?? false
        sub.muted = try f.uidList("muted", limit: audioSubscriptionListLimit)
        sub.unmuted = try f.uidList("unmuted", limit: audioSubscriptionListLimit)
        if kind == .audio {
            guard sub != sessions[sid]!.audioSubscription else { return }
            sessions[sid]!.audioSubscription = sub
            if mediaEndpoint != nil { mediaCommands.append(.setAudioSubscription(session: sid, sub)) }
        } else {
            guard sub != sessions[sid]!.videoSubscription else { return }
            sessions[sid]!.videoSubscription = sub
            if mediaEndpoint != nil { mediaCommands.append(.setVideoSubscription(session: sid, sub)) }
        }
    }
}
