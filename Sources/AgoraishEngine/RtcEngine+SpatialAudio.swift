import AgoraishSession
import AgoraishIO
import AgoraishMedia

/// The local spatial audio engine (Agora 4.x ILocalSpatialAudioEngine) and
/// 3.x sound position indication (docs/voice.md, Spatial audio). Remote
/// users with a position are rendered binaurally in the playout; users out of
/// range, past the receive count or muted here are not received at all.
extension RtcEngine {
    /// Debian's HRTF set (libmysofa-dev's data).
    public static let hrtfPath = "/usr/share/libmysofa/default.sofa"

    /// The most remote users with a position at once.
    public static let maxSpatialPositions = 4096

    /// initialize: reads the HRTF set; the listener starts at the origin.
    ///
    /// - Throws: `.failed` when the HRTF set cannot be read or used.
    public func initializeSpatialAudio() throws(AgoraError) {
        guard audio.voice.spatial.withLock({ $0 == nil }) else { return }
        // Opening the set (resampled to 48 kHz) takes most of a second: here, not on an audio thread.
        guard let sofa = try? FileIO.readAll(Self.hrtfPath, limit: 64 << 20), let renderer = BinauralRenderer(sofa: sofa) else {
            ErrorDetail.set("the HRTF set \(Self.hrtfPath) cannot be read (libmysofa-dev installs it)")
            throw .failed
        }
        audio.voice.renderer.withLock { $0 = renderer }
        audio.voice.spatial.withLock { s in
            if s == nil { s = VoiceControl.Spatial() }
        }
        spatialChanged()
        log.log(.info, "api spatial initialize")
    }

    /// release: every remote user plays in the middle and is received again.
    public func releaseSpatialAudio() {
        audio.voice.spatial.withLock { $0 = nil }
        audio.voice.renderer.withLock { $0 = nil }
        spatialChanged()
        log.log(.info, "api spatial release")
    }

    /// Changes the spatial engine's state. `.notReady` before initialize.
    private func changeSpatial(_ body: (inout VoiceControl.Spatial) throws(AgoraError) -> Void) throws(AgoraError) {
        try audio.voice.spatial.withLock { s throws(AgoraError) in
            guard s != nil else { throw .notReady }
            try body(&s!)
            s!.settle()
        }
        spatialChanged()
    }

    /// updateSelfPosition: the listener's position and axes (normalized).
    public func updateSpatialSelfPosition(_ position: Vector3, forward: Vector3, right: Vector3, up: Vector3) throws(AgoraError) {
        guard position.isFinite, let f = forward.normalized, let r = right.normalized, let u = up.normalized else {
            throw .invalidArgument
        }
        try changeSpatial { $0.listener = ListenerPose(position: position, forward: f, right: r, up: u) }
    }

    /// updateRemotePosition: a remote user's position (its facing is not used by the rendering).
    public func updateSpatialRemotePosition(uid: UInt32, _ position: Vector3, forward: Vector3?) throws(AgoraError) {
        guard uid != 0, position.isFinite, forward?.isFinite ?? true else { throw .invalidArgument }
        try changeSpatial { s throws(AgoraError) in
            guard s.remotes[uid] != nil || s.remotes.count < Self.maxSpatialPositions else { throw .refused }
            s.remotes[uid] = position
        }
    }

    /// updatePlayerPositionInfo: where a media player's local playout is rendered.
    public func updateSpatialPlayerPosition(player id: Int32, _ position: Vector3, forward: Vector3?) throws(AgoraError) {
        guard position.isFinite, forward?.isFinite ?? true, media.withLock({ $0.players[id] }) != nil else {
            throw .invalidArgument
        }
        try changeSpatial { $0.players[id] = position }
    }

    /// removeRemotePosition.
    public func removeSpatialRemotePosition(uid: UInt32) throws(AgoraError) {
        guard uid != 0 else { throw .invalidArgument }
        try changeSpatial { $0.remotes[uid] = nil }
    }

    /// clearRemotePositions (media players keep theirs).
    public func clearSpatialRemotePositions() throws(AgoraError) {
        try changeSpatial { $0.remotes = [:] }
    }

    /// setAudioRecvRange: units, > 0.
    public func setSpatialAudioRecvRange(_ range: Double) throws(AgoraError) {
        guard range.isFinite, range > 0 else { throw .invalidArgument }
        try changeSpatial { $0.range = range }
    }

    /// setDistanceUnit: metres per unit, > 0.
    public func setSpatialDistanceUnit(_ unit: Double) throws(AgoraError) {
        guard unit.isFinite, unit > 0 else { throw .invalidArgument }
        try changeSpatial { $0.unit = unit }
    }

    /// setMaxAudioRecvCount: 1...4096.
    public func setSpatialMaxAudioRecvCount(_ count: Int) throws(AgoraError) {
        guard (1...Self.maxSpatialPositions).contains(count) else { throw .invalidArgument }
        try changeSpatial { $0.maxCount = count }
    }

    /// muteLocalAudioStream of the spatial engine (the engine's own mute still applies).
    public func muteSpatialLocalAudioStream(_ mute: Bool) throws(AgoraError) {
        try changeSpatial { $0.localMuted = mute }
    }

    /// muteAllRemoteAudioStreams of the spatial engine.
    public func muteSpatialAllRemoteAudioStreams(_ mute: Bool) throws(AgoraError) {
        try changeSpatial { $0.allRemoteMuted = mute }
    }

    /// muteRemoteAudioStream of the spatial engine.
    public func muteSpatialRemoteAudioStream(uid: UInt32, _ mute: Bool) throws(AgoraError) {
        guard uid != 0 else { throw .invalidArgument }
        try changeSpatial { s in
            if mute { s.remoteMuted.insert(uid) } else { s.remoteMuted.remove(uid) }
        }
    }

    /// After a change: the server stops (or starts) forwarding the users the
    /// spatial engine does not receive, on every connection of the engine,
    /// and the local voice follows the spatial engine's mute.
    private func spatialChanged() {
        let spatial = audio.voice.spatial.withLock { $0 }
        let excluded = spatial?.excluded ?? []
        // muteAllRemoteAudioStreams of the spatial engine covers everyone, users with no position and later ones too.
        let allMuted = spatial?.allRemoteMuted ?? false
        let localMuted = spatial?.localMuted ?? false
        for c in [self] + connections.withLock({ Array($0.values) }) {
            let (before, after, users) = (try? c.link.call { s, _ throws(SessionError) -> (Set<UInt32>, Set<UInt32>, Set<UInt32>) in
                var was = s.audioExcluded
                if s.audioExcludeAll { was.formUnion(s.remoteUsers) }
                var now = excluded
                if allMuted { now.formUnion(s.remoteUsers) }
                s.setAudioExcluded(excluded, all: allMuted)
                return (was, now, s.remoteUsers)
            }) ?? ([], excluded, [])
            for uid in users.sorted() where before.contains(uid) != after.contains(uid) {
                c.audio.locallyMuted(uid: uid, muted: after.contains(uid))
            }
            let was = c.audio.settings.withLock { s -> Bool in defer { s.spatialMuted = localMuted }; return s.spatialMuted }
            if was != localMuted {
                if was { c.audio.resetPublished() }
                c.afterLocalChange()
            }
        }
    }

    // MARK: - 3.x sound position indication

    /// enableSoundPositionIndication: remote voices are panned as setRemoteVoicePosition says.
    public func enableSoundPositionIndication(_ enabled: Bool) {
        audio.voice.panning.withLock { $0.enabled = enabled }
        log.log(.info, "api enableSoundPositionIndication \(enabled)")
    }

    /// setRemoteVoicePosition: pan -1...1, gain 0...100.
    public func setRemoteVoicePosition(uid: UInt32, pan: Double, gain: Double) throws(AgoraError) {
        guard uid != 0, pan.isFinite, gain.isFinite, (-1...1).contains(pan), (0...100).contains(gain) else {
            throw .invalidArgument
        }
        try audio.voice.panning.withLock { p throws(AgoraError) in
            guard p.positions[uid] != nil || p.positions.count < Self.maxSpatialPositions else { throw .refused }
            p.positions[uid] = (pan, gain)
        }
    }
}

extension Vector3 {
    /// All three coordinates are finite.
    var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    /// The vector scaled to length 1; nil for a zero or non-finite vector.
    var normalized: Vector3? {
        guard isFinite else { return nil }
        let n = (x * x + y * y + z * z).squareRoot()
        guard n > 1e-9, n.isFinite else { return nil }
        return Vector3(x / n, y / n, z / n)
    }
}
