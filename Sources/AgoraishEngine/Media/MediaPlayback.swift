import AgoraishIO
import AgoraishMedia
import AgoraishWire
import CAgoraishShim
import Glibc
import Synchronization

/// Agora's MEDIA_PLAYER_STATE values.
public enum MediaPlayerState: Int32, Sendable {
    case idle = 0
    case opening = 1
    case openCompleted = 2
    case playing = 3
    case paused = 4
    case playbackCompleted = 5
    case playbackAllLoopsCompleted = 6
    case stopped = 7
    case failed = 100
}

/// Agora's MEDIA_PLAYER_EVENT values the player reports.
public enum MediaPlayerEvent: Int32, Sendable {
    case seekBegin = 0
    case seekComplete = 1
    case seekError = 2
    case audioTrackChanged = 5
    case bufferLow = 6
    case bufferRecover = 7
    case firstDisplayed = 13
}

/// Where a playback hands what it plays, called on its thread
/// ("agoraish-mp<n>"), in order.
struct PlaybackOutputs {
    /// 10 ms of 48 kHz stereo audio (speed and pitch applied, volume not).
    var audio: ([Int16]) -> Void = { _ in }
    /// A picture, when its time comes.
    var video: (DecodedPicture) -> Void = { _ in }
    /// MEDIA_PLAYER_STATE and MEDIA_PLAYER_REASON.
    var state: (MediaPlayerState, Int32) -> Void = { _, _ in }
    /// MEDIA_PLAYER_EVENT, the position (ms), a message.
    var event: (MediaPlayerEvent, Int64, String) -> Void = { _, _, _ in }
    /// The position (ms), every second while playing.
    var position: (Int64) -> Void = { _ in }
    /// Milliseconds decoded ahead of the position, every second while playing.
    var buffer: (Int64) -> Void = { _ in }
    /// A loop ended and the next begins.
    var loopCompleted: () -> Void = {}
    /// The last loop ended.
    var completed: () -> Void = {}
}

/// Plays one media file or URL in real time on a thread of its own: the
/// engine of the media player, audio mixing and audio effects. Commands
/// return at once and are carried out in order on the thread; getters read a
/// snapshot the thread keeps current.
///
/// Pacing: audio leaves in 10 ms chunks on the thread's monotonic schedule,
/// and pictures follow the audio's position (the audio is the master clock),
/// so the two stay in sync across pauses, seeks and loops. A source without
/// audio paces its pictures by the clock alone.
final class MediaPlayback: @unchecked Sendable {
    enum Command {
        case open(url: String, startMs: Int64)
        case play
        case pause
        case resume
        case stop
        case seek(Int64)
        case selectAudioTrack(Int)
    }

    /// What the getters read.
    struct Snapshot {
        var state = MediaPlayerState.idle
        var positionMs: Int64 = 0
        var durationMs: Int64 = 0
        var streams: [MediaStreamInfo] = []
        var audioTrack = -1
        var hasVideo = false
        var hasAudio = false
        var seekable = false
    }

    /// What commands set and the thread reads each step.
    struct Settings {
        /// Playback speed in percent (30...400 for the player, 50...400 for music, 100 normal).
        var speed = 100
        /// Pitch factor (1: unchanged).
        var pitch = 1.0
        /// Plays after the first (-1: forever).
        var loops = 0
        /// Decode pictures at all (audio mixing and effects do not).
        var wantVideo = true
    }

    let snapshot = Locked(Snapshot())
    let settings = Locked(Settings())
    private let commands = Locked<[Command]>([])
    private let stopping = Atomic<Bool>(false)
    private let wakeFd: Int32
    private let thread = EventThreadHandle()
    private let outputs: PlaybackOutputs
    /// The flag of the open in progress, so a later open or a stop can interrupt it.
    private let interrupt = Locked(MediaSource.Interrupt())
    let name: String

    // Thread state.
    private var source: MediaSource?
    private var playing = false
    private var nextAudio = Instant.now()
    private var anchorWall = Instant.now()
    private var anchorPos: Int64 = 0
    private var position: Int64 = 0
    private var loopsPlayed = 0
    private var stretcher: TimeStretcher?
    private var nextReport = Instant.now()
    private var starved = false
    private var shownFirst = false
    /// The speed the wall clock drives the position at (nil: the audio drives it); a change re-anchors the clock.
    private var clockFollows: Int? = nil
    /// Audio was handed out since the clock last started (a start, resume, seek or loop).
    private var flowed = false

    init(name: String, outputs: PlaybackOutputs) throws(AgoraError) {
        self.name = name
        self.outputs = outputs
        wakeFd = eventfd(0, Int32(EFD_CLOEXEC))
        guard wakeFd >= 0 else { throw .resourceLimited }
        do {
            try thread.start(name: name) { [self] in run() }
        } catch {
            close(wakeFd)
            throw .resourceLimited
        }
    }

    deinit { close(wakeFd) }

    /// Queues a command; open and stop also interrupt a blocking open.
    /// The state the command leads to counts for the checks of later calls at once.
    func send(_ command: Command) {
        switch command {
        // A blocking open on the thread gives way to the next open or a stop (reads happen on the source's reader).
        case .open, .stop: interrupt.withLock { $0.aborted.store(true, ordering: .relaxed) }
        default: break
        }
        commands.withLock { c in
            c.append(command)
            let current = pendingState ?? snapshot.withLock { $0.state }
            switch command {
            case .open: pendingState = .opening
            case .play: if current != .opening && current != .idle && current != .stopped && current != .failed { pendingState = .playing }
            case .pause: if current == .playing || current == .opening || current == .openCompleted { pendingState = .paused }
            case .resume: if current == .paused { pendingState = .playing }
            case .stop: pendingState = .stopped
            case .seek, .selectAudioTrack: break
            }
        }
        wake()
    }

    /// What a command leads to while it waits for the thread (under the commands' lock).
    private var pendingState: MediaPlayerState?

    /// The state once the commands already sent are carried out (as far as
    /// they can tell: an open may still fail).
    var effectiveState: MediaPlayerState {
        commands.withLock { _ in pendingState } ?? snapshot.withLock { $0.state }
    }

    /// Ends the thread; with `wait`, returns after it ended.
    func shutdown(wait: Bool) {
        stopping.store(true, ordering: .releasing)
        interrupt.withLock { $0.aborted.store(true, ordering: .relaxed) }
        wake()
        thread.finish(wait: wait && !thread.isCurrent)
    }

    /// Whether the caller is on this playback's thread (its callbacks).
    var isCurrent: Bool { thread.isCurrent }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFd, &one, 8)
    }

    /// Moves to `s` and reports it; with no command waiting the prediction of
    /// later calls' checks gives way to it first, so a host acting on the report sees it.
    private func setState(_ s: MediaPlayerState, _ reason: Int32 = 0) {
        commands.withLock { c in
            snapshot.withLock { $0.state = s }
            if c.isEmpty { pendingState = nil }
        }
        outputs.state(s, reason)
    }

    // MARK: - Thread

    private func run() {
        while !stopping.load(ordering: .acquiring) {
            // One command at a time: those still queued keep counting for the checks of later calls.
            var handled = false
            while !stopping.load(ordering: .acquiring),
                  let c = commands.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                handle(c)
                handled = true
            }
            if handled {
                commands.withLock { c in if c.isEmpty { pendingState = nil } }
            }
            var timeoutMs: Int32 = -1
            if playing, source != nil {
                timeoutMs = pump(now: .now())
            }
            if stopping.load(ordering: .acquiring) { break }
            var pfd = pollfd(fd: wakeFd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, timeoutMs) > 0 {
                var value: UInt64 = 0
                _ = read(wakeFd, &value, 8)
            }
        }
        source = nil
    }

    private func handle(_ command: Command) {
        switch command {
        case .open(let url, let startMs):
            source = nil
            playing = false
            let flag = MediaSource.Interrupt()
            interrupt.withLock { $0 = flag }
            // A later command in the queue (stop, another open) supersedes this one.
            if commands.withLock({ $0.contains { if case .open = $0 { return true }; if case .stop = $0 { return true }; return false } }) {
                return
            }
            setState(.opening)
            do {
                let want = settings.withLock { $0.wantVideo }
                let s = try MediaSource(url: url, wantVideo: want, interrupt: flag)
                if startMs > 0, s.isSeekable { try s.seek(toMs: startMs) }
                source = s
                shownFirst = false
                position = max(0, s.isSeekable ? startMs : 0)
                loopsPlayed = 0
                stretcher = nil
                snapshot.withLock {
                    $0.durationMs = s.durationMs
                    $0.streams = s.streams
                    $0.audioTrack = s.audioStream
                    $0.hasAudio = s.hasAudio
                    $0.hasVideo = s.hasVideo
                    $0.seekable = s.isSeekable
                    $0.positionMs = position
                }
                setState(.openCompleted)
            } catch {
                if flag.aborted.load(ordering: .relaxed) && commands.withLock({ !$0.isEmpty }) { return }
                snapshot.withLock { $0 = Snapshot() }
                setState(.failed, error.rawValue)
            }
        case .play:
            guard let s = source else { return }
            let state = snapshot.withLock { $0.state }
            if state == .playbackCompleted || state == .playbackAllLoopsCompleted {
                restart(s, at: 0)
                loopsPlayed = 0
            }
            guard state != .playing else { return }
            startClock()
            playing = true
            setState(.playing)
        case .pause:
            guard source != nil, playing else { return }
            playing = false
            setState(.paused)
        case .resume:
            guard source != nil, !playing, snapshot.withLock({ $0.state }) == .paused else { return }
            startClock()
            playing = true
            setState(.playing)
        case .stop:
            source = nil
            playing = false
            stretcher = nil
            position = 0
            snapshot.withLock { $0 = Snapshot() }
            setState(.stopped)
        case .seek(let ms):
            guard let s = source else { return }
            outputs.event(.seekBegin, position, "")
            guard s.isSeekable else {
                outputs.event(.seekError, position, "the source cannot seek")
                return
            }
            if restart(s, at: ms) {
                outputs.event(.seekComplete, position, "")
            } else {
                outputs.event(.seekError, position, "seek failed")
            }
        case .selectAudioTrack(let index):
            guard let s = source else { return }
            do {
                try s.selectAudioTrack(index)
                snapshot.withLock { $0.audioTrack = index }
                if s.isSeekable { restart(s, at: position) }
                outputs.event(.audioTrackChanged, position, String(index))
            } catch {}
        }
    }

    /// Moves the source to `ms` and the clock with it.
    @discardableResult
    private func restart(_ s: MediaSource, at ms: Int64) -> Bool {
        do {
            try s.seek(toMs: ms)
        } catch {
            return false
        }
        stretcher?.reset()
        position = max(0, min(ms, s.durationMs > 0 ? s.durationMs : ms))
        snapshot.withLock { $0.positionMs = position }
        startClock()
        return true
    }

    private func startClock() {
        let now = Instant.now()
        nextAudio = now
        anchorWall = now
        anchorPos = position
        clockFollows = nil
        flowed = false
        nextReport = now + .seconds(1)
    }

    /// Decodes ahead, hands out what is due, and returns how long the thread may sleep (ms).
    private func pump(now: Instant) -> Int32 {
        guard let s = source else { return -1 }
        let (speedPercent, pitch) = settings.withLock { ($0.speed, $0.pitch) }
        let speed = Double(speedPercent) / 100
        // Decode ahead: 200 ms of audio and a few pictures, within a bounded number of packets a step.
        var steps = 0
        do {
            while steps < 64 && !s.ended && commands.withLock({ $0.isEmpty }) {
                let needAudio = s.hasAudio && s.bufferedAudioMs < 200
                let needVideo = s.hasVideo && s.pictures.count < 4 && !(s.hasAudio && s.bufferedAudioMs > 2000)
                guard needAudio || needVideo else { break }
                if try s.step() == .waiting { break }
                steps += 1
            }
        } catch {
            // A read interrupted for a command: the command decides.
            if error == .interrupted && commands.withLock({ !$0.isEmpty }) { return 0 }
            playing = false
            source = nil
            setState(.failed, error.rawValue)
            return -1
        }
        // The clock follows the audio while there is audio to play; pictures past the
        // audio's end (or a source without audio) follow the wall clock from there.
        let audioDone = s.ended && s.audio.isEmpty && (stretcher?.framesAvailable ?? 0) == 0
        let clockSpeed = s.hasAudio && !audioDone ? nil : speedPercent
        if clockSpeed != clockFollows {
            clockFollows = clockSpeed
            anchorWall = now
            anchorPos = position
        }
        if s.hasAudio && !audioDone {
            var emitted = 0
            while nextAudio <= now && emitted < 20 {
                guard let chunk = nextChunk(s, speed: speed, pitch: pitch) else {
                    // Low only once audio flowed since the start or seek (the first decode is not lateness).
                    if !s.ended && flowed {
                        if !starved { starved = true; outputs.event(.bufferLow, position, "") }
                        nextAudio = now + .milliseconds(10)
                    }
                    break
                }
                if starved { starved = false; outputs.event(.bufferRecover, position, "") }
                flowed = true
                outputs.audio(chunk)
                nextAudio = nextAudio + .milliseconds(10)
                emitted += 1
                // The last chunk is padded with silence: the position stops at the duration.
                position = s.durationMs > 0 ? min(s.audioPtsMs, s.durationMs) : s.audioPtsMs
            }
            if now - nextAudio > .milliseconds(200) { nextAudio = now }  // far behind: skip, do not burst
        } else {
            position = anchorPos + Int64(Double((now - anchorWall) / .milliseconds(1)) * speed)
        }
        // Pictures whose time has come: the latest due one is shown, older ones dropped.
        var due: DecodedPicture? = nil
        while let first = s.pictures.first, first.ptsMs <= position {
            due = s.takePicture()
        }
        if let due {
            outputs.video(due)
            if !shownFirst { shownFirst = true; outputs.event(.firstDisplayed, position, "") }
        }
        snapshot.withLock { $0.positionMs = position }
        if now >= nextReport {
            nextReport = nextReport + .seconds(1)
            if now - nextReport > .seconds(1) { nextReport = now + .seconds(1) }
            outputs.position(position)
            outputs.buffer(Int64(s.bufferedAudioMs))
        }
        // The end: everything decoded and handed out.
        if s.ended && s.audio.isEmpty && s.pictures.isEmpty && (stretcher?.framesAvailable ?? 0) == 0 {
            let loops = settings.withLock { $0.loops }
            loopsPlayed += 1
            if loops < 0 || loopsPlayed <= loops {
                if s.isSeekable, restart(s, at: 0) {
                    outputs.loopCompleted()
                    return 0
                }
            }
            playing = false
            if let d = Optional(snapshot.withLock { $0.durationMs }), d > 0 { position = d }
            snapshot.withLock { $0.positionMs = position }
            setState(.playbackCompleted)
            setState(.playbackAllLoopsCompleted)
            outputs.completed()
            return -1
        }
        let untilAudio: Int64 = s.hasAudio ? max(0, Int64((nextAudio - now) / .milliseconds(1))) : 10
        let untilPicture = s.pictures.first.map { p -> Int64 in
            s.hasAudio ? 10 : max(0, Int64(Double(p.ptsMs - position) / speed))
        } ?? 10
        return Int32(clamping: max(1, min(untilAudio, untilPicture, 20)))
    }

    /// The next 10 ms of output audio (480 stereo frames), through the
    /// stretcher when speed or pitch differ from normal; nil when not yet
    /// decoded. At the end the last chunk is padded with silence.
    private func nextChunk(_ s: MediaSource, speed: Double, pitch: Double) -> [Int16]? {
        let frames = 480
        if speed == 1 && pitch == 1 && stretcher == nil {
            if s.bufferedAudioMs >= 10 { return s.takeAudio(frames) }
            guard s.ended, !s.audio.isEmpty else { return nil }
            var last = s.takeAudio(frames)
            last += [Int16](repeating: 0, count: frames * 2 - last.count)
            return last
        }
        let st: TimeStretcher
        if let existing = stretcher {
            st = existing
            st.setSpeed(speed)
            st.setPitchScale(pitch)
        } else {
            st = TimeStretcher(pitchScale: pitch, speed: speed)
            stretcher = st
        }
        while st.framesAvailable < frames {
            let want = max(st.framesRequired, 256)
            if s.audio.count >= want * 2 {
                st.feed(s.takeAudio(want)[...])
            } else if s.ended {
                if s.audio.isEmpty {
                    guard st.framesAvailable > 0 else { return nil }
                    var last = st.take(frames)
                    last += [Int16](repeating: 0, count: frames * 2 - last.count)
                    return last
                }
                st.feed(s.takeAudio(want)[...], final: true)
            } else {
                return nil
            }
        }
        return st.take(frames)
    }
}
