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
    /// Video only: publishers whose low stream is wanted (setRemoteVideoStreamType LOW) ...
    public var lowStream: Set<UInt32> = []
    /// ... whose high stream is wanted although the default is low ...
    public var highStream: Set<UInt32> = []
    /// ... and the default (setRemoteDefaultVideoStreamType).
    public var defaultLow = false
    /// Video only: setRemoteSubscribeFallbackOption — 0 DISABLED, 1
    /// VIDEO_STREAM_LOW (the default: the low stream when the downlink is
    /// short), 2 AUDIO_ONLY (then only the audio).
    public var fallback = 1
    /// Video only: setRemoteUserPriority — the user whose video is served first (PRIORITY_HIGH).
    public var priorityUid: UInt32? = nil

    /// Whether this subscriber wants the low stream of `uid`.
    public func wantsLow(_ uid: UInt32) -> Bool {
        lowStream.contains(uid) || (defaultLow && !highStream.contains(uid))
    }

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
        var switchesChanged = false
        if kind == .video {
            // Optional: the three switches behind the state, and the low stream's SSRC
            // (all read before anything changes, so a refused message changes nothing).
            let enabled = try f.optionalBool("enabled"), local = try f.optionalBool("local_enabled")
            let streamMuted = try f.optionalBool("stream_muted")
            let lowSsrc = try f.optionalInteger("low_ssrc", in: 0...0xFFFF_FFFF)
            let ssrc = try f.optionalInteger("ssrc", in: 0...0xFFFF_FFFF)
            let rtx = try f.optionalInteger("rtx_ssrc", in: 0...0xFFFF_FFFF)
            let lowRtx = try f.optionalInteger("low_rtx_ssrc", in: 0...0xFFFF_FFFF)
            // Which RTX stream retransmits which video stream (RFC 4588 §5: one RTX SSRC per stream).
            var pairs: [UInt32: UInt32] = [:]
            if let ssrc, let rtx, ssrc != 0, rtx != 0, rtx != ssrc { pairs[UInt32(rtx)] = UInt32(ssrc) }
            if let low = lowSsrc, let lowRtx, low != 0, lowRtx != 0, lowRtx != low { pairs[UInt32(lowRtx)] = UInt32(low) }
            if (rtx != nil || lowRtx != nil), pairs != s.videoRtx {
                sessions[sid]!.videoRtx = pairs
                if mediaEndpoint != nil {
                    mediaCommands.append(.setVideoRetransmission(session: sid, rtxToMedia: pairs.merging(s.audioRtx) { a, _ in a }))
                }
            }
            if let enabled, let local, let streamMuted {
                let new = (enabled, local, streamMuted)
                if s.videoSwitches.map({ $0.enabled != new.0 || $0.localEnabled != new.1 || $0.streamMuted != new.2 }) ?? true {
                    sessions[sid]!.videoSwitches = new
                    switchesChanged = true
                }
            }
            if let low = lowSsrc {
                let ssrc = UInt32(low)
                if ssrc != s.videoLowSsrc {
                    sessions[sid]!.videoLowSsrc = ssrc
                    if mediaEndpoint != nil { mediaCommands.append(.setVideoLowStream(session: sid, ssrc: ssrc)) }
                }
            }
        }
        if kind == .audio {
            // Optional: the audio stream's SSRC and its retransmissions' (RFC 4588), for NACKs on the uplink.
            // The reliable data stream's too (docs/data-streams.md), the same way.
            let ssrc = try f.optionalInteger("ssrc", in: 0...0xFFFF_FFFF)
            let rtx = try f.optionalInteger("rtx_ssrc", in: 0...0xFFFF_FFFF)
            let dataSsrc = try f.optionalInteger("data_ssrc", in: 0...0xFFFF_FFFF)
            let dataRtx = try f.optionalInteger("data_rtx_ssrc", in: 0...0xFFFF_FFFF)
            var pairs: [UInt32: UInt32] = [:]
            if let ssrc, let rtx, ssrc != 0, rtx != 0, rtx != ssrc { pairs[UInt32(rtx)] = UInt32(ssrc) }
            if let dataSsrc, let dataRtx, dataSsrc != 0, dataRtx != 0, dataRtx != dataSsrc,
               pairs[UInt32(dataRtx)] == nil { pairs[UInt32(dataRtx)] = UInt32(dataSsrc) }
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
        let type = kind == .audio ? "user_mute_audio" : "user_mute_video"
        var fields: [String: JSONValue] = ["uid": .integer(Int64(s.uid)), "muted": .bool(muted)]
        if kind == .video, let v = sessions[sid]!.videoSwitches {
            fields["enabled"] = .bool(v.enabled)
            fields["local_enabled"] = .bool(v.localEnabled)
            fields["stream_muted"] = .bool(v.streamMuted)
        }
        forEachOther(in: s.key, except: s.uid) { core, conn in
            core.send(conn, message(type, fields))
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
        if kind == .video {
            sub.lowStream = try f.uidList("low", limit: audioSubscriptionListLimit)
            sub.highStream = try f.uidList("high", limit: audioSubscriptionListLimit)
            sub.defaultLow = try f.optionalBool("default_low") ?? false
            sub.fallback = Int(try f.optionalInteger("fallback", in: 0...2) ?? 1)
            sub.priorityUid = try f.optionalInteger("priority_uid", in: 1...Int64(UInt32.max)).map { UInt32($0) }
        }
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
    /// Adds the video switches to a user entry (user lists, user_joined), once known.
    func addVideoSwitches(to entry: inout [String: JSONValue]) {
        guard let v = videoSwitches else { return }
        entry["video_enabled"] = .bool(v.enabled)
        entry["local_video_enabled"] = .bool(v.localEnabled)
        entry["video_stream_muted"] = .bool(v.streamMuted)
    }
}
