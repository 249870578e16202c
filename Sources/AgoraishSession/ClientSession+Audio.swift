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
        /// Video only: setRemoteVideoStreamType, users whose low (or high) stream is wanted.
        public var lowStream: Set<UInt32> = []
        public var highStream: Set<UInt32> = []
        /// Video only: setRemoteDefaultVideoStreamType(LOW).
        public var defaultLow = false
        /// Video only: setRemoteSubscribeFallbackOption (0 DISABLED, 1 VIDEO_STREAM_LOW, 2 AUDIO_ONLY).
        public var fallback = 1
        /// Video only: setRemoteUserPriority — the one user whose video is served first.
        public var priorityUid: UInt32? = nil

        /// Whether the low stream of `uid` is wanted.
        public func wantsLow(_ uid: UInt32) -> Bool {
            lowStream.contains(uid) || (defaultLow && !highStream.contains(uid))
        }

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
        var fields: [String: JSONValue] = ["muted": .bool(localAudioMuted)]
        if localAudioSsrcs.ssrc != 0 && localAudioSsrcs.rtx != 0 {
            fields["ssrc"] = .integer(Int64(localAudioSsrcs.ssrc))
            fields["rtx_ssrc"] = .integer(Int64(localAudioSsrcs.rtx))
        }
        if localDataSsrcs.ssrc != 0 && localDataSsrcs.rtx != 0 {
            fields["data_ssrc"] = .integer(Int64(localDataSsrcs.ssrc))
            fields["data_rtx_ssrc"] = .integer(Int64(localDataSsrcs.rtx))
        }
        notify(type: "set_audio_state", fields)
    }

    mutating func sendVideoState() {
        notify(type: "set_video_state", [
            "muted": .bool(localVideoMuted), "enabled": .bool(localVideoFlags.enabled),
            "local_enabled": .bool(localVideoFlags.localEnabled), "stream_muted": .bool(localVideoFlags.streamMuted),
            "ssrc": .integer(Int64(localVideoSsrcs.high)), "low_ssrc": .integer(Int64(localVideoSsrcs.low)),
            "rtx_ssrc": .integer(Int64(localVideoRtxSsrcs.high)), "low_rtx_ssrc": .integer(Int64(localVideoRtxSsrcs.low)),
        ])
    }

    mutating func sendSubscription(_ kind: WritableKeyPath<ClientSession, AudioReceivePolicy>) {
        let p = self[keyPath: kind]
        notify(type: kind == \ClientSession.audioPolicy ? "set_audio_subscription" : "set_video_subscription", [
            "all_muted": .bool(p.allMuted), "default_muted": .bool(p.defaultMuted),
            "muted": .array(p.muted.sorted().map { .integer(Int64($0)) }),
            "unmuted": .array(p.unmuted.sorted().map { .integer(Int64($0)) }),
            "low": .array(p.lowStream.sorted().map { .integer(Int64($0)) }),
            "high": .array(p.highStream.sorted().map { .integer(Int64($0)) }),
            "default_low": .bool(p.defaultLow), "fallback": .integer(Int64(p.fallback)),
            "priority_uid": p.priorityUid.map { .integer(Int64($0)) } ?? .null,
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

    /// A remote user's video state changed (or was learned with the user):
    /// `muted` is whether its video is off at all; `m` may hold the three
    /// switches behind it (enabled, local_enabled, stream_muted).
    mutating func remoteVideoMute(_ uid: UInt32, _ muted: Bool, _ m: [String: JSONValue] = [:]) {
        let changed = muted ? remoteVideoMuted.insert(uid).inserted : remoteVideoMuted.remove(uid) != nil
        guard let enabled = m["enabled"]?.boolValue, let local = m["local_enabled"]?.boolValue,
              let streamMuted = m["stream_muted"]?.boolValue else {
            // A peer that sends only the combined state.
            if changed {
                events.append(.userMuteVideo(uid: uid, muted: muted))
                events.append(.remoteVideoPaused(uid: uid, paused: muted))
            }
            return
        }
        let old = remoteVideoFlags[uid] ?? VideoFlags()
        let new = VideoFlags(enabled: enabled, localEnabled: local, streamMuted: streamMuted)
        remoteVideoFlags[uid] = new
        if old.enabled != new.enabled { events.append(.userEnableVideo(uid: uid, enabled: new.enabled)) }
        if old.localEnabled != new.localEnabled { events.append(.userEnableLocalVideo(uid: uid, enabled: new.localEnabled)) }
        if old.streamMuted != new.streamMuted { events.append(.userMuteVideo(uid: uid, muted: new.streamMuted)) }
        if changed { events.append(.remoteVideoPaused(uid: uid, paused: muted)) }
    }

    // MARK: - Video (the same rules as audio)

    /// Whether the local user's video is muted for the others (muteLocalVideoStream,
    /// enableLocalVideo(false) or disableVideo).
    public mutating func setLocalVideoMuted(_ muted: Bool) {
        setLocalVideoState(enabled: !muted, localEnabled: true, streamMuted: false,
                           ssrc: localVideoSsrcs.high, lowSsrc: localVideoSsrcs.low,
                           rtxSsrc: localVideoRtxSsrcs.high, lowRtxSsrc: localVideoRtxSsrcs.low)
    }

    /// The local video switches (enableVideo, enableLocalVideo,
    /// muteLocalVideoStream) and the SSRCs of the streams sent (low: 0 without
    /// dual stream). Sent now if joined, else with the next join.
    public mutating func setLocalVideoState(enabled: Bool, localEnabled: Bool, streamMuted: Bool,
                                            ssrc: UInt32, lowSsrc: UInt32, rtxSsrc: UInt32 = 0, lowRtxSsrc: UInt32 = 0) {
        let flags = VideoFlags(enabled: enabled, localEnabled: localEnabled, streamMuted: streamMuted)
        guard flags != localVideoFlags || (ssrc, lowSsrc) != localVideoSsrcs
              || (rtxSsrc, lowRtxSsrc) != localVideoRtxSsrcs else { return }
        localVideoFlags = flags
        localVideoSsrcs = (ssrc, lowSsrc)
        localVideoRtxSsrcs = (rtxSsrc, lowRtxSsrc)
        localVideoMuted = !enabled || !localEnabled || streamMuted
        if joinedAt != nil && transportOpen { sendVideoState() }
    }

    /// setRemoteVideoStreamType(uid, HIGH or LOW).
    public mutating func setRemoteVideoStreamType(uid: UInt32, low: Bool) throws(SessionError) {
        guard uid != 0 else { throw .invalidArgument }
        var p = videoPolicy
        if low {
            p.lowStream.insert(uid)
            p.highStream.remove(uid)
        } else {
            p.lowStream.remove(uid)
            p.highStream.insert(uid)
        }
        setPolicy(\.videoPolicy, p)
    }

    /// setRemoteDefaultVideoStreamType: the stream of users not named by setRemoteVideoStreamType.
    public mutating func setRemoteDefaultVideoStreamType(low: Bool) {
        var p = videoPolicy
        p.defaultLow = low
        setPolicy(\.videoPolicy, p)
    }

    /// setRemoteSubscribeFallbackOption: what the server may take away when
    /// the downlink is short (0 nothing, 1 the high stream, 2 also the video).
    public mutating func setRemoteSubscribeFallbackOption(_ option: Int) throws(SessionError) {
        guard (0...2).contains(option) else { throw .invalidArgument }
        var p = videoPolicy
        p.fallback = option
        setPolicy(\.videoPolicy, p)
    }

    /// setRemoteUserPriority: `uid`'s video is served first (`high`), or no
    /// longer (`high` false for the user who had it). One user at most.
    public mutating func setRemoteUserPriority(uid: UInt32, high: Bool) throws(SessionError) {
        guard uid != 0 else { throw .invalidArgument }
        var p = videoPolicy
        if high { p.priorityUid = uid } else if p.priorityUid == uid { p.priorityUid = nil }
        setPolicy(\.videoPolicy, p)
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

/// The three switches behind a user's video being on.
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
}
