/// What one participant receives of the others' audio or video: the policy
/// of `set_audio_subscription` and `set_video_subscription`
/// (docs/protocol.md), defined once. The client keeps one for audio and one
/// for video and changes them through the Agora calls below; the server
/// stores what the client sent, and its media plane asks `blocks` and
/// `wantsLow` per packet, so a stream nobody wants costs no downlink.
public struct SubscriptionPolicy: Equatable, Sendable {
    /// muteAllRemote*Streams: nobody's, present or future.
    public var allMuted = false
    /// setDefaultMuteAllRemote*Streams: users not named below are muted.
    public var defaultMuted = false
    /// muteRemote*Stream(uid, true).
    public var muted: Set<UInt32> = []
    /// muteRemote*Stream(uid, false), and users present when the default changed.
    public var unmuted: Set<UInt32> = []
    /// Video only: publishers whose low stream is wanted (setRemoteVideoStreamType LOW) ...
    public var lowStream: Set<UInt32> = []
    /// ... whose high stream is wanted although the default is low ...
    public var highStream: Set<UInt32> = []
    /// ... and the default (setRemoteDefaultVideoStreamType).
    public var defaultLow = false
    /// Video only: publishers whose simulcast layer (4...9, LAYER_1...LAYER_6) is wanted ...
    public var layerStream: [UInt32: UInt8] = [:]
    /// ... and a layer as the default (nil: `defaultLow` decides).
    public var defaultLayer: UInt8? = nil
    /// Video only: setRemoteSubscribeFallbackOption — 0 DISABLED, 1
    /// VIDEO_STREAM_LOW (the default: the low stream when the downlink is
    /// short), 2 AUDIO_ONLY (then only the audio).
    public var fallback = 1
    /// Video only: setRemoteUserPriority — the user whose video is served first (PRIORITY_HIGH).
    public var priorityUid: UInt32? = nil

    /// Receives everyone.
    public init() {}

    /// Most uids one list may name (`bad_field` past it).
    public static let listLimit = 4096

    // MARK: - Queries

    /// Whether this subscriber wants the low stream of `uid`.
    public func wantsLow(_ uid: UInt32) -> Bool { wantedLayer(uid) == VideoStreamLayer.low }

    /// The stream of `uid` this subscriber wants (`VideoStreamLayer`: 0 high, 1 low, 4...9 a layer).
    public func wantedLayer(_ uid: UInt32) -> UInt8 {
        if let layer = layerStream[uid] { return layer }
        if lowStream.contains(uid) { return VideoStreamLayer.low }
        if highStream.contains(uid) { return VideoStreamLayer.high }
        return defaultLayer ?? (defaultLow ? VideoStreamLayer.low : VideoStreamLayer.high)
    }

    /// Everything is received (the common case, checked first on the hot path).
    public var blocksNothing: Bool { !allMuted && !defaultMuted && muted.isEmpty }

    /// Whether the media of `uid` is withheld from this subscriber.
    public func blocks(_ uid: UInt32) -> Bool {
        if allMuted || muted.contains(uid) { return true }
        return defaultMuted && !unmuted.contains(uid)
    }

    // MARK: - Changes (the Agora calls)

    /// muteRemote*Stream(uid, mute).
    public mutating func mute(_ uid: UInt32, _ mute: Bool) {
        if mute {
            muted.insert(uid)
            unmuted.remove(uid)
        } else {
            muted.remove(uid)
            unmuted.insert(uid)
        }
    }

    /// muteAllRemote*Streams(mute): everyone, including later users. Unmuting
    /// all also clears per-user mutes and the default, as a fresh start.
    public mutating func muteAll(_ mute: Bool) {
        allMuted = mute
        if !mute {
            muted = []
            defaultMuted = false
            unmuted = []
        }
    }

    /// setDefaultMuteAllRemote*Streams(mute): users who join later start
    /// muted (or not); the `present` users keep what they have.
    public mutating func setDefaultMuted(_ mute: Bool, present: some Sequence<UInt32>) {
        guard defaultMuted != mute else { return }
        for uid in present where !muted.contains(uid) && !unmuted.contains(uid) {
            if mute { unmuted.insert(uid) } else if defaultMuted { muted.insert(uid) }
        }
        defaultMuted = mute
    }

    /// setRemoteVideoStreamType(uid, HIGH or LOW).
    public mutating func setStreamType(of uid: UInt32, low: Bool) {
        setStreamType(of: uid, layer: low ? VideoStreamLayer.low : VideoStreamLayer.high)
    }

    /// setRemoteVideoStreamType(uid, type): 0 HIGH, 1 LOW, 4...9 LAYER_1...LAYER_6.
    public mutating func setStreamType(of uid: UInt32, layer: UInt8) {
        lowStream.remove(uid)
        highStream.remove(uid)
        layerStream[uid] = nil
        switch layer {
        case VideoStreamLayer.low: lowStream.insert(uid)
        case VideoStreamLayer.layers: layerStream[uid] = layer
        default: highStream.insert(uid)
        }
    }

    /// setRemoteDefaultVideoStreamType(type): 0 HIGH, 1 LOW, 4...9 LAYER_1...LAYER_6.
    public mutating func setDefaultStreamType(_ layer: UInt8) {
        defaultLow = layer == VideoStreamLayer.low
        defaultLayer = VideoStreamLayer.layers.contains(layer) ? layer : nil
    }

    /// setRemoteUserPriority: `uid`'s video first (`high`), or no longer
    /// (`high` false for the user who had it). One user at most.
    public mutating func setPriority(of uid: UInt32, high: Bool) {
        if high { priorityUid = uid } else if priorityUid == uid { priorityUid = nil }
    }

    // MARK: - Wire

    /// Reads the audio fields, and the video-only ones when `video`, in the
    /// documented order; the message replaces the whole policy.
    init(_ f: MessageFields, video: Bool) throws(SignalingFailure) {
        allMuted = try f.optionalBool("all_muted") ?? false
        defaultMuted = try f.optionalBool("default_muted") ?? false
        muted = try f.uidList("muted", limit: Self.listLimit)
        unmuted = try f.uidList("unmuted", limit: Self.listLimit)
        guard video else { return }
        lowStream = try f.uidList("low", limit: Self.listLimit)
        highStream = try f.uidList("high", limit: Self.listLimit)
        defaultLow = try f.optionalBool("default_low") ?? false
        if let v = f.members["layers"], v != .null {
            guard case .array(let items) = v, items.count <= Self.listLimit else { throw .badField("layers") }
            for item in items {
                guard case .array(let pair) = item, pair.count == 2, let u = pair[0].integerValue,
                      let uid = UInt32(exactly: u), uid > 0, let t = pair[1].integerValue, (4...9).contains(t)
                else { throw .badField("layers") }
                layerStream[uid] = UInt8(t)
            }
        }
        defaultLayer = try f.optionalInteger("default_layer", in: 4...9).map { UInt8($0) }
        fallback = Int(try f.optionalInteger("fallback", in: 0...2) ?? 1)
        priorityUid = try f.optionalInteger("priority_uid", in: 1...Int64(UInt32.max)).map { UInt32($0) }
    }

    /// Writes every field, the video-only ones too (for audio the server reads none of them).
    func encode(into m: inout [String: JSONValue]) {
        func list(_ uids: Set<UInt32>) -> JSONValue { .array(uids.sorted().map { .integer(Int64($0)) }) }
        m["all_muted"] = .bool(allMuted)
        m["default_muted"] = .bool(defaultMuted)
        m["muted"] = list(muted)
        m["unmuted"] = list(unmuted)
        m["low"] = list(lowStream)
        m["high"] = list(highStream)
        m["default_low"] = .bool(defaultLow)
        if !layerStream.isEmpty {
            m["layers"] = .array(layerStream.sorted { $0.key < $1.key }.map {
                .array([.integer(Int64($0.key)), .integer(Int64($0.value))])
            })
        }
        m.put("default_layer", defaultLayer.map { Int64($0) })
        m["fallback"] = .integer(Int64(fallback))
        m["priority_uid"] = priorityUid.map { .integer(Int64($0)) } ?? .null
    }
}
