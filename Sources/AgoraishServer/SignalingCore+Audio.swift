import AgoraishWire

/// What a participant receives of the others' audio (`set_audio_subscription`):
/// the policy both sides share (AgoraishWire's `SubscriptionPolicy`).
public typealias AudioSubscription = SubscriptionPolicy

/// Whose video a participant receives (`set_video_subscription`): the same rules as audio.
public typealias VideoSubscription = SubscriptionPolicy

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
        let muted: Bool
        var switchesChanged = false
        if kind == .video {
            // The three switches behind the state, and the low stream's SSRC
            // (all read before anything changes, so a refused message changes nothing).
            let state = try Signaling.SetVideoState(f)
            muted = state.muted
            // Which RTX stream retransmits which video stream.
            let pairs = state.retransmissionPairs
            if (state.rtxSsrc != nil || state.lowRtxSsrc != nil), pairs != s.videoRtx {
                sessions[sid]!.videoRtx = pairs
                if mediaEndpoint != nil {
                    mediaCommands.append(.setVideoRetransmission(session: sid, rtxToMedia: pairs.merging(s.audioRtx) { a, _ in a }))
                }
            }
            if let new = state.switches, s.videoSwitches != new {
                sessions[sid]!.videoSwitches = new
                switchesChanged = true
            }
            if let ssrc = state.lowSsrc, ssrc != s.videoLowSsrc {
                sessions[sid]!.videoLowSsrc = ssrc
                if mediaEndpoint != nil { mediaCommands.append(.setVideoLowStream(session: sid, ssrc: ssrc)) }
            }
            if let layers = state.layers {
                let table = Dictionary(uniqueKeysWithValues: layers.map { ($0.ssrc, $0.type) })
                if table != s.videoLayers {
                    sessions[sid]!.videoLayers = table
                    if mediaEndpoint != nil { mediaCommands.append(.setVideoLayers(session: sid, layers: table)) }
                }
            }
        } else {
            // The audio stream's SSRC and its retransmissions' (RFC 4588), for NACKs on the uplink.
            // The reliable data stream's too (docs/data-streams.md), the same way.
            let state = try Signaling.SetAudioState(f)
            muted = state.muted
            let pairs = state.retransmissionPairs
            if !pairs.isEmpty, s.audioRtx != pairs {
                sessions[sid]!.audioRtx = pairs
                if mediaEndpoint != nil {
                    mediaCommands.append(.setVideoRetransmission(session: sid, rtxToMedia: s.videoRtx.merging(pairs) { a, _ in a }))
                }
            }
        }
        guard muted != (kind == .audio ? s.audioMuted : s.videoMuted) || switchesChanged else { return }
        if kind == .audio { sessions[sid]!.audioMuted = muted } else { sessions[sid]!.videoMuted = muted }
        if mediaEndpoint != nil && muted != (kind == .audio ? s.audioMuted : s.videoMuted) {
            mediaCommands.append(kind == .audio ? .setAudioMuted(session: sid, muted: muted)
                                                : .setVideoMuted(session: sid, muted: muted))
        }
        guard isVisible(s) else { return }
        let switches = sessions[sid]!.videoSwitches
        forEachOther(in: s.key, except: s.uid) { core, conn in
            if kind == .audio {
                core.send(conn, Signaling.UserMuteAudio(uid: s.uid, muted: muted))
            } else {
                core.send(conn, Signaling.UserMuteVideo(uid: s.uid, muted: muted, switches: switches))
            }
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
        let sub = kind == .audio ? try Signaling.SetAudioSubscription(f).policy : try Signaling.SetVideoSubscription(f).policy
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

extension Session {
    /// The user as user lists and user_joined show it: mutes, and the video switches once known.
    var userEntry: Signaling.UserEntry {
        Signaling.UserEntry(uid: uid, account: account, audioMuted: audioMuted, videoMuted: videoMuted, video: videoSwitches)
    }
}
