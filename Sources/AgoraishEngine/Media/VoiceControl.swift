import AgoraishWire
import AgoraishIO
import AgoraishMedia

/// What the API set for the local voice and for the placement of remote
/// voices (docs/voice.md): one per engine, shared by the audio paths of the
/// engine and its connections and by the audio device. Every member is safe
/// from any thread; the audio paths read it once per 10 ms frame.
final class VoiceControl: @unchecked Sendable {
    // MARK: - Audio processing

    /// The scenario and the host's choices the processing of captured audio follows.
    struct Processing: Equatable {
        /// AUDIO_SCENARIO_TYPE (setAudioScenario).
        var scenario: Int32 = 0
        /// setAINSMode: nil when off, else AUDIO_AINS_MODE.
        var ains: Int32? = nil
        /// "che.audio.aec.enable", "che.audio.ans.enable", "che.audio.agc.enable": nil follows the scenario.
        var aec: Bool? = nil
        var ans: Bool? = nil
        var agc: Bool? = nil

        /// The scenarios setAudioScenario takes.
        static let scenarios: Set<Int32> = [0, 3, 5, 7, 8]

        /// The module's configuration: the scenario's defaults (docs/voice.md,
        /// Scenarios), then the AINS mode, then the private parameters.
        var config: VoiceProcessingConfig {
            var c = VoiceProcessingConfig()
            switch scenario {
            case 3:  // GAME_STREAMING: music fidelity
                c.echoCancellation = true
                c.echoSuppression = .low
            case 7:  // CHORUS
                c.echoCancellation = true
                c.echoSuppression = .low
                c.highPass = true
            case 5:  // CHATROOM
                c.echoCancellation = true
                c.echoSuppression = .high
                c.noiseSuppression = .moderate
                c.gainControl = true
                c.highPass = true
            case 8:  // MEETING
                c.echoCancellation = true
                c.echoSuppression = .high
                c.noiseSuppression = .high
                c.gainControl = true
                c.highPass = true
            default:
                c.echoCancellation = true
                c.echoSuppression = .moderate
                c.noiseSuppression = .moderate
                c.gainControl = true
                c.highPass = true
            }
            if let ains {
                c.noiseSuppression = ains == 1 ? .veryHigh : ains == 2 ? .moderate : .high
            }
            if let aec { c.echoCancellation = aec }
            if let ans { c.noiseSuppression = ans ? (c.noiseSuppression ?? .moderate) : nil }
            if let agc { c.gainControl = agc }
            return c
        }
    }

    let processing = Locked(Processing())

    /// The configuration captured audio (and custom tracks with processing) gets.
    var captureConfig: VoiceProcessingConfig { processing.withLock { $0.config } }

    /// What the last processed frame went through, for local audio statistics.
    struct ProcessingReport {
        var flags: Int32 = 0
        var stats = VoiceProcessingStats()
        var at: Instant = .now()
    }

    let report = Locked<ProcessingReport?>(nil)

    /// Records what a processor did to a frame (at most every 100 ms: the stats cost a call into the module).
    func reportProcessing(_ processor: VoiceProcessor, now: Instant) {
        let due = report.withLock { r in r.map { now - $0.at >= .milliseconds(100) } ?? true }
        guard due else { return }
        let c = processor.config
        var flags: Int32 = 0
        if c.echoCancellation { flags |= 0x1 }
        if c.noiseSuppression != nil { flags |= 0x2 }
        if c.gainControl { flags |= 0x4 }
        if c.highPass { flags |= 0x8 }
        let stats = processor.stats
        report.withLock { $0 = ProcessingReport(flags: flags, stats: stats, at: now) }
    }

    // MARK: - Voice effects

    /// The presets and the host's own settings; the later call replaces what
    /// an earlier call of another kind set (Agora's rule).
    struct Effects: Equatable {
        /// The preset in force: its family (1 beautifier, 2 audio effect, 3 conversion), number and settings.
        var preset: (family: Int, number: Int32, settings: VoiceEffectSettings)? = nil
        /// setLocalVoicePitch, setLocalVoiceFormant, setLocalVoiceEqualization, setLocalVoiceReverb.
        var manual = VoiceEffectSettings()
        /// The reverb values of setLocalVoiceReverb, kept whole even while the reverb is off.
        var reverb = VoiceReverb()

        static func == (a: Effects, b: Effects) -> Bool {
            a.preset?.family == b.preset?.family && a.preset?.number == b.preset?.number
                && a.preset?.settings == b.preset?.settings && a.manual == b.manual && a.reverb == b.reverb
        }

        /// What the chain applies.
        var current: VoiceEffectSettings { preset?.settings ?? manual }
    }

    let effects = Locked(Effects())

    /// The settings of the local voice's effect chain now.
    var effectSettings: VoiceEffectSettings { effects.withLock { $0.current } }

    /// setHeadphoneEQPreset and setHeadphoneEQParameters: the playback equalizer.
    struct Headphone: Equatable {
        var preset: Int32 = 0
        var lowGain = 0
        var highGain = 0

        /// The ten bands' gains, nil when flat.
        var equalization: [Double]? {
            var bands = VoicePresets.headphoneEqualization(preset) ?? [Double](repeating: 0, count: 10)
            for i in 0...3 { bands[i] += Double(lowGain) }
            for i in 7...9 { bands[i] += Double(highGain) }
            bands = bands.map { min(15, max(-15, $0)) }
            return bands.allSatisfy { $0 == 0 } ? nil : bands
        }
    }

    let headphone = Locked(Headphone())

    // MARK: - Placing remote voices

    /// The local spatial audio engine's state (ILocalSpatialAudioEngine).
    struct Spatial {
        /// The listener: at the origin facing +x, its right along +y, up +z, until updateSelfPosition.
        var listener = ListenerPose(position: Vector3(0, 0, 0), forward: Vector3(1, 0, 0), right: Vector3(0, 1, 0),
                                    up: Vector3(0, 0, 1))
        /// World positions of remote users.
        var remotes: [UInt32: Vector3] = [:]
        /// World positions of media players (by player id).
        var players: [Int32: Vector3] = [:]
        var range = 1000.0
        var unit = 1.0
        var maxCount = 16
        var localMuted = false
        var allRemoteMuted = false
        var remoteMuted: Set<UInt32> = []

        /// The users not received: muted, out of range, or past the nearest
        /// `maxCount`. Kept up to date by `settle()` after each change, so the
        /// playout reads it every 10 ms without sorting anything.
        private(set) var excluded: Set<UInt32> = []

        /// Recomputes `excluded` (after a change of positions, range, count or mutes).
        mutating func settle() { excluded = computeExcluded() }

        private func computeExcluded() -> Set<UInt32> {
            var out = remoteMuted
            if allRemoteMuted { out.formUnion(remotes.keys) }
            var inRange: [(uid: UInt32, distance: Double)] = []
            for (uid, p) in remotes where !out.contains(uid) {
                let d = distance(p)
                if d > range { out.insert(uid) } else { inRange.append((uid, d)) }
            }
            inRange.sort { $0.distance < $1.distance || ($0.distance == $1.distance && $0.uid < $1.uid) }
            for e in inRange.dropFirst(maxCount) { out.insert(e.uid) }
            return out
        }

        /// Distance from the listener in world units.
        func distance(_ p: Vector3) -> Double {
            let dx = p.x - listener.position.x, dy = p.y - listener.position.y, dz = p.z - listener.position.z
            return (dx * dx + dy * dy + dz * dz).squareRoot()
        }

        /// Where the playout renders a source: head coordinates in metres and the distance gain; nil: silent.
        func placement(_ p: Vector3) -> (position: Vector3, gain: Double)? {
            guard distance(p) <= range else { return nil }
            let head = SpatialGeometry.headRelative(p, listener: listener, distanceUnit: unit)
            let metres = (head.x * head.x + head.y * head.y + head.z * head.z).squareRoot()
            return (head, SpatialGeometry.distanceGain(metres))
        }
    }

    /// nil until initialize, and after release.
    let spatial = Locked<Spatial?>(nil)
    /// The binaural renderer of the spatial audio engine, made at initialize
    /// (opening the HRTF set takes most of a second) and shared by the
    /// playout of the engine's paths, one at a time under this lock.
    let renderer = Locked<BinauralRenderer?>(nil)

    /// 3.x enableSoundPositionIndication and setRemoteVoicePosition.
    struct Panning {
        var enabled = false
        var positions: [UInt32: (pan: Double, gain: Double)] = [:]
    }

    let panning = Locked(Panning())

    /// How the playout places remote voices now (read once per 10 ms tick).
    struct Placement {
        var spatial: Spatial?
        var panning: Panning?
        var isNeutral: Bool { spatial == nil && panning == nil }
    }

    var placement: Placement {
        let s = spatial.withLock { $0 }
        let p = panning.withLock { $0.enabled ? $0 : nil }
        return Placement(spatial: s, panning: p)
    }
}
