import AgoraishIO
import AgoraishMedia

/// 48 kHz stereo audio that one side writes in real time and the other takes
/// 10 ms at a time: a media player's local playout, the music of audio
/// mixing and effects on their way into the sending path or playout.
///
/// The reader waits until 30 ms are queued before it starts taking (and again
/// after running dry), so two 10 ms clocks that are not in step never turn
/// into gaps; at most 200 ms wait, beyond that the oldest audio is dropped.
final class AudioFeed: @unchecked Sendable {
    private struct State {
        var samples: [Int16] = []
        var primed = false
    }
    private let state = Locked(State())
    /// 0...400 percent, applied as audio is written.
    let gain = Locked(100)
    /// The media player whose local playout this is (its spatial position applies), else nil.
    let playerId = Locked<Int32?>(nil)

    static let primeSamples = 3 * 480 * 2
    static let maxSamples = 20 * 480 * 2

    /// Queues interleaved stereo samples (48 kHz), scaled by `gain`.
    func write(_ pcm: [Int16]) {
        var scaled = pcm
        let g = gain.withLock { $0 }
        if g != 100 { PCM.applyGain(&scaled, percent: g) }
        state.withLock { s in
            s.samples += scaled
            if s.samples.count > Self.maxSamples { s.samples.removeFirst(s.samples.count - Self.maxSamples) }
        }
    }

    /// Takes 10 ms (480 stereo frames); nil while priming or dry.
    func read() -> [Int16]? {
        state.withLock { s -> [Int16]? in
            if !s.primed {
                guard s.samples.count >= Self.primeSamples else { return nil }
                s.primed = true
            }
            guard s.samples.count >= 960 else {
                s.primed = false
                return nil
            }
            defer { s.samples.removeFirst(960) }
            return Array(s.samples[0..<960])
        }
    }

    /// Forgets what is queued (a seek, a stop).
    func clear() { state.withLock { $0 = State() } }
}

/// The feeds mixed into one audio pipeline, by owner.
struct AudioFeeds {
    /// Mixed into what the pipeline sends (after the recording volume).
    var send: [ObjectIdentifier: AudioFeed] = [:]
    /// Mixed into what it plays (after the playback volume).
    var playout: [ObjectIdentifier: AudioFeed] = [:]

    /// Mixes `owner`'s feeds in: `send` (nil: local only) and `playout`.
    mutating func attach(_ owner: AnyObject, send feed: AudioFeed?, playout local: AudioFeed) {
        if let feed { send[ObjectIdentifier(owner)] = feed }
        playout[ObjectIdentifier(owner)] = local
    }

    /// Takes `owner`'s feeds out of the mix.
    mutating func detach(_ owner: AnyObject) {
        send.removeValue(forKey: ObjectIdentifier(owner))
        playout.removeValue(forKey: ObjectIdentifier(owner))
    }
}
