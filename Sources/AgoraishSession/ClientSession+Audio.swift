import AgoraishWire

/// Audio signaling: the local user's audio mute and whose audio it receives
/// (docs/protocol.md, set_audio_state and set_audio_subscription). Both are
/// settings of the engine: they may be made before joining, survive
/// reconnections and apply to every later call.
extension ClientSession {
    /// What the local user receives of others' audio or video: the policy
    /// the server enforces, defined once in AgoraishWire.
    public typealias AudioReceivePolicy = SubscriptionPolicy

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
    public func receivesAudio(of uid: UInt32) -> Bool {
        !audioPolicy.blocks(uid) && !audioExcludeAll && !audioExcluded.contains(uid)
    }

    /// Users whose audio is not received on top of the policy (the spatial
    /// audio engine's choice), or nobody's when `all`. Sent now if joined,
    /// else with the next join.
    public mutating func setAudioExcluded(_ uids: Set<UInt32>, all: Bool = false) {
        guard uids != audioExcluded || all != audioExcludeAll else { return }
        audioExcluded = uids
        audioExcludeAll = all
        if joinedAt != nil && transportOpen { sendSubscription(\.audioPolicy) }
    }

    // MARK: - Shared by audio and video

    mutating func muteRemote(_ kind: WritableKeyPath<ClientSession, AudioReceivePolicy>, uid: UInt32,
                             _ mute: Bool) throws(SessionError) {
        guard uid != 0 else { throw .invalidArgument }
        var p = self[keyPath: kind]
        p.mute(uid, mute)
        setPolicy(kind, p)
    }

    mutating func muteAllRemote(_ kind: WritableKeyPath<ClientSession, AudioReceivePolicy>, _ mute: Bool) {
        var p = self[keyPath: kind]
        p.muteAll(mute)
        setPolicy(kind, p)
    }

    mutating func setDefaultMuteAllRemote(_ kind: WritableKeyPath<ClientSession, AudioReceivePolicy>, _ mute: Bool) {
        var p = self[keyPath: kind]
        // Present users keep their current state under the new default.
        p.setDefaultMuted(mute, present: remoteUsers)
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
        // Each pair only when both numbers are known.
        let media = localAudioSsrcs.ssrc != 0 && localAudioSsrcs.rtx != 0
        let data = localDataSsrcs.ssrc != 0 && localDataSsrcs.rtx != 0
        notify(Signaling.SetAudioState(
            muted: localAudioMuted, ssrc: media ? localAudioSsrcs.ssrc : nil, rtxSsrc: media ? localAudioSsrcs.rtx : nil,
            dataSsrc: data ? localDataSsrcs.ssrc : nil, dataRtxSsrc: data ? localDataSsrcs.rtx : nil))
    }

    mutating func sendVideoState() {
        notify(Signaling.SetVideoState(
            muted: localVideoMuted, switches: localVideoFlags, ssrc: localVideoSsrcs.high, lowSsrc: localVideoSsrcs.low,
            rtxSsrc: localVideoRtxSsrcs.high, lowRtxSsrc: localVideoRtxSsrcs.low,
            layers: localVideoLayersTold ? localVideoLayers : nil))
    }

    /// The simulcast layers sent besides the high and low streams (setSimulcastConfig):
    /// told now if joined, else with the next join.
    public mutating func setLocalVideoLayers(_ layers: [Signaling.LayerStream]) {
        guard layers != localVideoLayers else { return }
        localVideoLayers = layers
        localVideoLayersTold = true
        if joinedAt != nil && transportOpen { sendVideoState() }
    }

    mutating func sendSubscription(_ kind: WritableKeyPath<ClientSession, AudioReceivePolicy>) {
        let p = self[keyPath: kind]
        if kind == \ClientSession.audioPolicy {
            var sent = p
            if audioExcludeAll { sent.allMuted = true }
            // The list's limit holds: exclusions past it are not sent (the host's own mutes come first).
            for uid in audioExcluded.sorted() where uid != 0 && sent.muted.count < SubscriptionPolicy.listLimit {
                sent.muted.insert(uid)
                sent.unmuted.remove(uid)
            }
            notify(Signaling.SetAudioSubscription(sent))
        } else {
            notify(Signaling.SetVideoSubscription(p))
        }
    }

    /// A remote user's audio mute changed (or was learned with the user).
    mutating func remoteAudioMute(_ uid: UInt32, _ muted: Bool) {
        let changed = muted ? remoteAudioMuted.insert(uid).inserted : remoteAudioMuted.remove(uid) != nil
        if changed { events.append(.userMuteAudio(uid: uid, muted: muted)) }
    }

    /// A remote user's video state changed (or was learned with the user):
    /// `muted` is whether its video is off at all; `switches` are the three
    /// behind it, when the user told them.
    mutating func remoteVideoMute(_ uid: UInt32, _ muted: Bool, _ switches: VideoFlags? = nil) {
        let changed = muted ? remoteVideoMuted.insert(uid).inserted : remoteVideoMuted.remove(uid) != nil
        guard let new = switches else {
            // A peer that sends only the combined state.
            if changed {
                events.append(.userMuteVideo(uid: uid, muted: muted))
                events.append(.remoteVideoPaused(uid: uid, paused: muted))
            }
            return
        }
        let old = remoteVideoFlags[uid] ?? VideoFlags()
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
        try setRemoteVideoStreamType(uid: uid, layer: low ? VideoStreamLayer.low : VideoStreamLayer.high)
    }

    /// setRemoteVideoStreamType(uid, type): 0 HIGH, 1 LOW, 4...9 LAYER_1...LAYER_6.
    public mutating func setRemoteVideoStreamType(uid: UInt32, layer: UInt8) throws(SessionError) {
        guard uid != 0, VideoStreamLayer.isValid(Int64(layer)) else { throw .invalidArgument }
        var p = videoPolicy
        p.setStreamType(of: uid, layer: layer)
        setPolicy(\.videoPolicy, p)
    }

    /// setRemoteDefaultVideoStreamType: the stream of users not named by setRemoteVideoStreamType.
    public mutating func setRemoteDefaultVideoStreamType(low: Bool) {
        var p = videoPolicy
        p.setDefaultStreamType(low ? VideoStreamLayer.low : VideoStreamLayer.high)
        setPolicy(\.videoPolicy, p)
    }

    /// setRemoteDefaultVideoStreamType(type): 0 HIGH, 1 LOW, 4...9 LAYER_1...LAYER_6.
    public mutating func setRemoteDefaultVideoStreamType(layer: UInt8) throws(SessionError) {
        guard VideoStreamLayer.isValid(Int64(layer)) else { throw .invalidArgument }
        var p = videoPolicy
        p.setDefaultStreamType(layer)
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
        p.setPriority(of: uid, high: high)
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
