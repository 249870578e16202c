import AgoraishWire

/// Audio signaling: the local user's audio mute and whose audio it receives
/// (docs/protocol.md, set_audio_state and set_audio_subscription). Both are
/// settings of the engine: they may be made before joining, survive
/// reconnections and apply to every later call.
extension ClientSession {
    /// What the local user receives of others' audio.
    public struct AudioReceivePolicy: Equatable, Sendable {
        /// muteAllRemoteAudioStreams.
        public var allMuted = false
        /// setDefaultMuteAllRemoteAudioStreams.
        public var defaultMuted = false
        /// muteRemoteAudioStream(uid, true).
        public var muted: Set<UInt32> = []
        /// muteRemoteAudioStream(uid, false), and users present when the default was set.
        public var unmuted: Set<UInt32> = []

        /// Whether the audio of `uid` is not received.
        public func blocks(_ uid: UInt32) -> Bool {
            if allMuted || muted.contains(uid) { return true }
            return defaultMuted && !unmuted.contains(uid)
        }

        /// Receives everyone.
        public init() {}
    }

    /// Whether the local user's audio is muted for the others (muteLocalAudioStream,
    /// enableLocalAudio(false) or disableAudio). Sent now if joined, else with the next join.
    public mutating func setLocalAudioMuted(_ muted: Bool) {
        guard muted != localAudioMuted else { return }
        localAudioMuted = muted
        if joinedAt != nil && transportOpen { sendAudioState() }
    }

    /// muteRemoteAudioStream(uid, mute).
    public mutating func muteRemoteAudio(uid: UInt32, _ mute: Bool) throws(SessionError) {
        try muteRemote(\.audioPolicy, uid: uid, mute)
    }

    /// muteAllRemoteAudioStreams(mute): everyone, including later users. Unmuting
    /// all also clears per-user mutes, as a fresh start.
    public mutating func muteAllRemoteAudio(_ mute: Bool) { muteAllRemote(\.audioPolicy, mute) }

    /// setDefaultMuteAllRemoteAudioStreams(mute): users who join later start muted
    /// (or not); users present now keep what they have.
    public mutating func setDefaultMuteAllRemoteAudio(_ mute: Bool) { setDefaultMuteAllRemote(\.audioPolicy, mute) }

    /// Whether the local user receives the audio of `uid`.
    public func receivesAudio(of uid: UInt32) -> Bool { !audioPolicy.blocks(uid) }

    // MARK: - Shared by audio and video

    mutating func muteRemote(_ kind: WritableKeyPath<ClientSession, AudioReceivePolicy>, uid: UInt32,
                             _ mute: Bool) throws(SessionError) {
        guard uid != 0 else { throw .invalidArgument }
        var p = self[keyPath: kind]
        if mute {
            p.muted.insert(uid)
            p.unmuted.remove(uid)
        } else {
            p.muted.remove(uid)
            p.unmuted.insert(uid)
        }
        setPolicy(kind, p)
    }

    mutating func muteAllRemote(_ kind: WritableKeyPath<ClientSession, AudioReceivePolicy>, _ mute: Bool) {
        var p = self[keyPath: kind]
        p.allMuted = mute
        if !mute {
            p.muted = []
            p.defaultMuted = false
            p.unmuted = []
        }
        setPolicy(kind, p)
    }

    mutating func setDefaultMuteAllRemote(_ kind: WritableKeyPath<ClientSession, AudioReceivePolicy>, _ mute: Bool) {
        var p = self[keyPath: kind]
        guard p.defaultMuted != mute else { return }
        for uid in remoteUsers where !p.muted.contains(uid) && !p.unmuted.contains(uid) {
            // Present users keep their current state under the new default.
            if mute { p.unmuted.insert(uid) } else if p.defaultMuted { p.muted.insert(uid) }
        }
        p.defaultMuted = mute
        setPolicy(kind, p)
    }

    mutating func setPolicy(_ kind: WritableKeyPath<ClientSession, AudioReceivePolicy>, _ p: AudioReceivePolicy) {
        guard p != self[keyPath: kind] else { return }
        self[keyPath: kind] = p
        if joinedAt != nil && transportOpen { sendSubscription(kind) }
    }

    /// After a join or resume: the server learns the settings as they are now,
    /// including changes made while the link was down (a resumed session on the
    /// server still holds the old ones).
    mutating func sendAudioSettings() {
        sendAudioState()
        sendSubscription(\.audioPolicy)
        sendVideoState()
        sendSubscription(\.videoPolicy)
    }

    mutating func sendAudioState() {
        notify(type: "set_audio_state", ["muted": .bool(localAudioMuted)])
    }

    mutating func sendVideoState() {
        notify(type: "set_video_state", ["muted": .bool(localVideoMuted)])
    }

    mutating func sendSubscription(_ kind: WritableKeyPath<ClientSession, AudioReceivePolicy>) {
        let p = self[keyPath: kind]
        notify(type: kind == \ClientSession.audioPolicy ? "set_audio_subscription" : "set_video_subscription", [
            "all_muted": .bool(p.allMuted), "default_muted": .bool(p.defaultMuted),
            "muted": .array(p.muted.sorted().map { .integer(Int64($0)) }),
            "unmuted": .array(p.unmuted.sorted().map { .integer(Int64($0)) }),
        ])
    }

    /// A message that needs no answer (the server answers only if it fails).
    mutating func notify(type: String, _ fields: [String: JSONValue]) {
        var all = fields
        all["v"] = .integer(1)
        all["type"] = .string(type)
        let text = JSONValue.object(all).serialized
        stats.txBytes += UInt64(text.utf8.count)
        stats.txPackets += 1
        transmits.append(.send(text))
    }

    /// A remote user's audio mute changed (or was learned with the user).
    mutating func remoteAudioMute(_ uid: UInt32, _ muted: Bool) {
        let changed = muted ? remoteAudioMuted.insert(uid).inserted : remoteAudioMuted.remove(uid) != nil
        if changed { events.append(.userMuteAudio(uid: uid, muted: muted)) }
    }

    /// A remote user's video mute changed (or was learned with the user).
    mutating func remoteVideoMute(_ uid: UInt32, _ muted: Bool) {
        let changed = muted ? remoteVideoMuted.insert(uid).inserted : remoteVideoMuted.remove(uid) != nil
        if changed { events.append(.userMuteVideo(uid: uid, muted: muted)) }
    }

    // MARK: - Video (the same rules as audio)

    /// Whether the local user's video is muted for the others (muteLocalVideoStream,
    /// enableLocalVideo(false) or disableVideo).
    public mutating func setLocalVideoMuted(_ muted: Bool) {
        guard muted != localVideoMuted else { return }
        localVideoMuted = muted
        if joinedAt != nil && transportOpen { sendVideoState() }
    }

    /// muteRemoteVideoStream(uid, mute).
    public mutating func muteRemoteVideo(uid: UInt32, _ mute: Bool) throws(SessionError) {
        try muteRemote(\.videoPolicy, uid: uid, mute)
    }

    /// muteAllRemoteVideoStreams(mute).
    public mutating func muteAllRemoteVideo(_ mute: Bool) { muteAllRemote(\.videoPolicy, mute) }

    /// setDefaultMuteAllRemoteVideoStreams(mute).
    public mutating func setDefaultMuteAllRemoteVideo(_ mute: Bool) { setDefaultMuteAllRemote(\.videoPolicy, mute) }

    /// Whether the local user receives the video of `uid`.
    public func receivesVideo(of uid: UInt32) -> Bool { !videoPolicy.blocks(uid) }
}

extension ClientSession {
    /// When the current (or last) join was requested: `elapsed` fields count from here.
    public var joinRequestedAt: Instant { joinCalledAt }
    /// When the current call was joined; nil outside a call.
    public var joinedTime: Instant? { joinedAt }
    /// Signaling statistics of the current call so far (media is counted by the engine).
    public var signalingStats: CallStats { stats }
}
