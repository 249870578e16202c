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
        guard uid != 0 else { throw .invalidArgument }
        var p = audioPolicy
        if mute {
            p.muted.insert(uid)
            p.unmuted.remove(uid)
        } else {
            p.muted.remove(uid)
            p.unmuted.insert(uid)
        }
        setAudioPolicy(p)
    }

    /// muteAllRemoteAudioStreams(mute): everyone, including later users. Unmuting
    /// all also clears per-user mutes, as a fresh start.
    public mutating func muteAllRemoteAudio(_ mute: Bool) {
        var p = audioPolicy
        p.allMuted = mute
        if !mute {
            p.muted = []
            p.defaultMuted = false
            p.unmuted = []
        }
        setAudioPolicy(p)
    }

    /// setDefaultMuteAllRemoteAudioStreams(mute): users who join later start muted
    /// (or not); users present now keep what they have.
    public mutating func setDefaultMuteAllRemoteAudio(_ mute: Bool) {
        var p = audioPolicy
        guard p.defaultMuted != mute else { return }
        for uid in remoteUsers where !p.muted.contains(uid) && !p.unmuted.contains(uid) {
            // Present users keep their current state under the new default.
            if mute { p.unmuted.insert(uid) } else if p.defaultMuted { p.muted.insert(uid) }
        }
        p.defaultMuted = mute
        setAudioPolicy(p)
    }

    /// Whether the local user receives the audio of `uid`.
    public func receivesAudio(of uid: UInt32) -> Bool { !audioPolicy.blocks(uid) }

    mutating func setAudioPolicy(_ p: AudioReceivePolicy) {
        guard p != audioPolicy else { return }
        audioPolicy = p
        if joinedAt != nil && transportOpen { sendAudioSubscription() }
    }

    /// After a join or resume: the server learns the settings as they are now,
    /// including changes made while the link was down (a resumed session on the
    /// server still holds the old ones).
    mutating func sendAudioSettings() {
        sendAudioState()
        sendAudioSubscription()
    }

    mutating func sendAudioState() {
        notify(type: "set_audio_state", ["muted": .bool(localAudioMuted)])
    }

    mutating func sendAudioSubscription() {
        let p = audioPolicy
        notify(type: "set_audio_subscription", [
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
}

extension ClientSession {
    /// When the current (or last) join was requested: `elapsed` fields count from here.
    public var joinRequestedAt: Instant { joinCalledAt }
    /// When the current call was joined; nil outside a call.
    public var joinedTime: Instant? { joinedAt }
    /// Signaling statistics of the current call so far (media is counted by the engine).
    public var signalingStats: CallStats { stats }
}
