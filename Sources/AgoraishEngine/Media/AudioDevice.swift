import AgoraishIO
import AgoraishMedia
import AgoraishWire
import CAgoraishShim
import CAlsa
import Glibc
import Synchronization

/// An ALSA PCM device (capture or playback) as the engine lists it.
public struct AudioDeviceInfo: Sendable, Equatable {
    /// The ALSA PCM name, passed back to select the device ("default", "hw:0,0", ...).
    public var id: String
    /// A human description (the first line of ALSA's hint).
    public var name: String
}

/// The engine's audio device thread ("agoraish-au<n>"): every 10 ms, by its
/// own monotonic clock, it reads 10 ms from the capture device into the
/// sending path, renders 10 ms of playout and writes it to the playback
/// device, and reports volume indications. ALSA's file and null plugins are
/// not paced, so the thread paces itself; a real card's blocking reads and
/// writes are recovered on under- and overruns.
///
/// Without a device (none configured, or the open fails) the clock still
/// runs, so observers, volume indication and recording work; the failure is
/// reported once through onLocalAudioStateChanged (capture) or logged
/// (playback).
final class AudioDeviceModule: @unchecked Sendable {
    struct Config {
        var recordingDevice = "default"
        var playbackDevice = "default"
        /// In a call: play remote audio (no external sink).
        var playout = false
        /// In a call: capture local audio (no external source, local audio enabled).
        var capture = false
        /// enableAudioVolumeIndication: interval (ms, 0 off), smooth, report_vad.
        var indication: (interval: Int, smooth: Int, reportVad: Bool) = (0, 3, false)
        /// startRecordingDeviceTest: report the capture volume every `interval` ms.
        var recordingTest: Int? = nil
        /// startPlaybackDeviceTest: 48 kHz mono audio played in a loop.
        var playbackTest: [Int16]? = nil
        /// startAudioDeviceLoopbackTest: capture played back, volume every `interval` ms.
        var loopbackTest: Int? = nil
        /// Whether remote users are present (a call): the remote report is sent.
        var inCall = false
        /// In a call with an external source: pushed audio waiting in the
        /// pipeline's queue is sent on this thread's 10 ms clock.
        var pacePushed = false
        /// Bumped when a device choice changes: devices reopen.
        var generation = 0
        /// The audio paths of the engine's other connections (joinChannelEx)
        /// and what each takes from the device now.
        var connections: [Attachment] = []

        var wantsCapture: Bool { capture || recordingTest != nil || loopbackTest != nil || connections.contains { $0.capture } }
        var wantsPlayback: Bool { playout || playbackTest != nil || loopbackTest != nil || connections.contains { $0.playout } }
        var isIdle: Bool {
            !wantsCapture && !wantsPlayback && indication.interval <= 0 && !pacePushed && !connections.contains { $0.pacePushed }
        }
    }

    /// The audio path of one more connection: capture goes to it as well,
    /// its playout is mixed with the engine's, its pushed audio is paced.
    struct Attachment {
        let pipeline: AudioPipeline
        var capture = false
        var playout = false
        var pacePushed = false
        var inCall = false
    }

    let config = Locked(Config())
    private let pipeline: AudioPipeline
    /// The audio paths of the engine's other connections.
    private let attached = Locked<[AudioPipeline]>([])
    private let log: @Sendable (String) -> Void
    private let thread = EventThreadHandle()
    private let wakeFd: Int32
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let name: String

    init(name: String, pipeline: AudioPipeline, log: @escaping @Sendable (String) -> Void) {
        self.name = name
        self.pipeline = pipeline
        self.log = log
        wakeFd = eventfd(0, Int32(EFD_CLOEXEC))
        Self.quietALSA
    }

    /// ALSA's messages go nowhere (once per process): failures reach the host as events and log lines.
    private static let quietALSA: Void = agsh_alsa_quiet()

    deinit { close(wakeFd) }

    /// Changes the configuration; the thread starts on first need and picks
    /// the change up within 10 ms.
    func update(_ body: (inout Config) -> Void) {
        config.withLock { body(&$0) }
        if !started.load(ordering: .acquiring) && !stopping.load(ordering: .acquiring) {
            let (exchanged, _) = started.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
            if exchanged {
                do {
                    try thread.start(name: name) { [self] in run() }
                } catch {
                    log("audio device thread could not start: \(error)")
                }
            }
        }
        wake()
    }

    /// Ends the thread (the engine is being released).
    func shutdown(wait: Bool) {
        stopping.store(true, ordering: .releasing)
        wake()
        if started.load(ordering: .acquiring) { thread.finish(wait: wait) }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFd, &one, 8)
    }

    // MARK: - Thread

    private struct Devices {
        var capture: OpaquePointer? = nil
        var playback: OpaquePointer? = nil
        var captureFailed = false
        var playbackFailed = false
        var generation = -1
        var testPosition = 0
        var nextIndication: Instant? = nil
        var nextTestReport: Instant? = nil
        var loopback: [[Int16]] = []
        /// Audio processing of what is captured (nil while the scenario and
        /// the host leave every step off): echo cancellation against what the
        /// device plays, noise suppression, gain control, high-pass.
        var processor: VoiceProcessor? = nil
    }

    private func run() {
        var d = Devices()
        var next = Instant.now()
        while !stopping.load(ordering: .acquiring) {
            let c = config.withLock { $0 }
            if c.isIdle {
                closeDevices(&d)
                var pfd = pollfd(fd: wakeFd, events: Int16(POLLIN), revents: 0)
                _ = poll(&pfd, 1, -1)
                var value: UInt64 = 0
                _ = read(wakeFd, &value, 8)
                next = Instant.now()
                continue
            }
            if d.generation != c.generation {
                closeDevices(&d)
                d.generation = c.generation
            }
            let busy = tick(&d, c, now: next)
            // With nothing to capture, nothing to play and nobody watching the
            // playout clock, tick every 50 ms: remote audio appearing or a
            // setting changing brings the 10 ms clock back within 50 ms.
            next = next + .milliseconds(busy ? 10 : 50)
            let now = Instant.now()
            if now - next > .milliseconds(200) { next = now }  // far behind (suspended): skip, do not burst
            sleep(until: next)
        }
        closeDevices(&d)
    }

    private func sleep(until deadline: Instant) {
        var ts = timespec(tv_sec: Int(deadline.nanoseconds / 1_000_000_000),
                          tv_nsec: Int(deadline.nanoseconds % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }

    /// One 10 ms step. Returns whether the next step must follow in 10 ms.
    private func tick(_ d: inout Devices, _ c: Config, now: Instant) -> Bool {
        // Pushed audio due by now (an external source's queue).
        var pushedWaiting = c.pacePushed && pipeline.sendPushed(now: now)
        for a in c.connections where a.pacePushed {
            if a.pipeline.sendPushed(now: now) { pushedWaiting = true }
        }

        // Capture.
        var captured: [Int16]? = nil
        if c.wantsCapture {
            if d.capture == nil && !d.captureFailed {
                d.capture = open(c.recordingDevice, capture: true)
                if d.capture == nil {
                    d.captureFailed = true
                    log("capture device \(c.recordingDevice) could not open")
                    // NO_RECORDING_DEVICE when ALSA knows no such device, else RECORD_FAILURE.
                    if c.capture { pipeline.captureFailed(error: Self.deviceExists(c.recordingDevice) ? 4 : 6) }
                }
            }
            if let pcm = d.capture {
                var buffer = [Int16](repeating: 0, count: AudioPipeline.frame)
                let n = buffer.withUnsafeMutableBytes { snd_pcm_readi(pcm, $0.baseAddress, snd_pcm_uframes_t(AudioPipeline.frame)) }
                if n < 0 {
                    _ = snd_pcm_recover(pcm, Int32(n), 1)
                } else {
                    if n < AudioPipeline.frame { for i in Int(n)..<AudioPipeline.frame { buffer[i] = 0 } }
                    process(&buffer, &d, now: now)
                    captured = buffer
                }
            }
            // Without a capture device, music being mixed is still sent (over silence).
            if captured == nil && d.captureFailed && pipeline.hasSendFeeds {
                captured = [Int16](repeating: 0, count: AudioPipeline.frame)
            }
            if let frame = captured {
                if c.capture { pipeline.captured(frame, channels: 1) }
                for a in c.connections where a.capture { a.pipeline.captured(frame, channels: 1) }
                if c.recordingTest != nil || c.loopbackTest != nil {
                    pipeline.addLocalLevel(frame)
                }
                if c.loopbackTest != nil {
                    d.loopback.append(frame)
                    if d.loopback.count > 10 { d.loopback.removeFirst() }
                }
            }
        } else if d.capture != nil {
            snd_pcm_close(d.capture)
            d.capture = nil
        }
        if !c.wantsCapture { d.captureFailed = false }

        // Playout.
        var out: [Int16]? = nil
        // Playout into nothing (no device) with no remote audio, observer or
        // recording has nothing to do.
        let playoutIdle = !c.playout || (d.playbackFailed && !pipeline.needsPlayoutClock)
        // The device plays mono: the stereo mix is folded down.
        if c.playout && !playoutIdle { out = convertChannels(pipeline.renderTick(now: now), from: 2, to: 1) }
        // Every connection's remote audio plays on the one device.
        var connectionsPlaying = false
        for a in c.connections where a.playout && !(d.playbackFailed && !a.pipeline.needsPlayoutClock) {
            connectionsPlaying = true
            let frame = convertChannels(a.pipeline.renderTick(now: now), from: 2, to: 1)
            if out != nil { PCM.mix(&out!, frame) } else { out = frame }
        }
        if let test = c.playbackTest, !test.isEmpty {
            var frame = [Int16](repeating: 0, count: AudioPipeline.frame)
            for i in 0..<frame.count {
                frame[i] = test[d.testPosition]
                d.testPosition = (d.testPosition + 1) % test.count
            }
            if out != nil { PCM.mix(&out!, frame) } else { out = frame }
        }
        if c.loopbackTest != nil, !d.loopback.isEmpty {
            let frame = d.loopback.removeFirst()
            if out != nil { PCM.mix(&out!, frame) } else { out = frame }
        }
        // The echo canceller hears what goes to the speaker, as it goes.
        if let processor = d.processor, processor.config.echoCancellation {
            processor.processReverse(out ?? [Int16](repeating: 0, count: AudioPipeline.frame), channels: 1)
        }
        if c.wantsPlayback {
            if d.playback == nil && !d.playbackFailed {
                d.playback = open(c.playbackDevice, capture: false)
                if d.playback == nil {
                    d.playbackFailed = true
                    log("playback device \(c.playbackDevice) could not open: playing into nothing")
                }
            }
            if let pcm = d.playback, let frame = out {
                let n = frame.withUnsafeBytes { snd_pcm_writei(pcm, $0.baseAddress, snd_pcm_uframes_t(frame.count)) }
                if n < 0 { _ = snd_pcm_recover(pcm, Int32(n), 1) }
            }
        } else {
            if d.playback != nil {
                snd_pcm_close(d.playback)
                d.playback = nil
            }
            d.playbackFailed = false
        }

        // Volume reports.
        if c.indication.interval > 0 {
            let due = d.nextIndication ?? now + .milliseconds(Int64(c.indication.interval))
            if now >= due {
                pipeline.reportVolumes(smooth: c.indication.smooth, reportVad: c.indication.reportVad, remote: c.inCall)
                for a in c.connections where a.inCall {
                    a.pipeline.reportVolumes(smooth: c.indication.smooth, reportVad: c.indication.reportVad, remote: true)
                }
                d.nextIndication = now + .milliseconds(Int64(c.indication.interval))
            } else {
                d.nextIndication = due
            }
        } else if let interval = c.recordingTest ?? c.loopbackTest {
            let due = d.nextTestReport ?? now + .milliseconds(Int64(interval))
            if now >= due {
                pipeline.reportVolumes(smooth: 10, reportVad: false, remote: false)
                d.nextTestReport = now + .milliseconds(Int64(interval))
            } else {
                d.nextTestReport = due
            }
        } else {
            d.nextIndication = nil
            d.nextTestReport = nil
        }
        if c.playbackTest == nil { d.testPosition = 0 }
        if c.loopbackTest == nil { d.loopback = [] }
        return (c.wantsCapture && !d.captureFailed) || c.playbackTest != nil || c.indication.interval > 0
            || (c.playout && (!playoutIdle || d.playback != nil || !d.playbackFailed)) || pushedWaiting
            || connectionsPlaying || (c.connections.contains { $0.playout } && (d.playback != nil || !d.playbackFailed))
    }

    private func closeDevices(_ d: inout Devices) {
        if let p = d.capture { snd_pcm_close(p) }
        if let p = d.playback { snd_pcm_close(p) }
        d.capture = nil
        d.playback = nil
        d.captureFailed = false
        d.playbackFailed = false
    }

    /// Opens an ALSA PCM for 48 kHz mono S16 with about 40 ms of buffering.
    /// Audio processing of one captured 10 ms frame, as the engine's
    /// scenario and settings choose; nothing at all while every step is off.
    private func process(_ frame: inout [Int16], _ d: inout Devices, now: Instant) {
        let config = pipeline.voice.captureConfig
        guard config.isActive else {
            d.processor = nil
            return
        }
        if d.processor == nil { d.processor = VoiceProcessor(captureChannels: 1) }
        guard let processor = d.processor else { return }
        if processor.config != config { processor.configure(config) }
        processor.processCapture(&frame, delayMs: echoDelayMs(d))
        pipeline.voice.reportProcessing(processor, now: now)
    }

    /// How long after it is written a frame comes back through the
    /// microphone, as far as the devices tell: the playback queue, plus the
    /// 10 ms capture period.
    private func echoDelayMs(_ d: Devices) -> Int {
        var frames: snd_pcm_sframes_t = 0
        guard let pcm = d.playback, snd_pcm_delay(pcm, &frames) == 0, frames > 0 else { return 10 }
        return min(500, Int(frames) / 48 + 10)
    }

    private func open(_ device: String, capture: Bool) -> OpaquePointer? {
        var pcm: OpaquePointer? = nil
        let stream = capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK
        guard snd_pcm_open(&pcm, device, stream, 0) == 0, let pcm else { return nil }
        guard snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, 48000, 1, 40_000) == 0 else {
            snd_pcm_close(pcm)
            return nil
        }
        return pcm
    }

    // MARK: - Enumeration

    /// The PCM devices ALSA lists for capture (`capture`) or playback: the
    /// names of its hints (the configuration's "hint" sections), "default" first.
    static func devices(capture: Bool) -> [AudioDeviceInfo] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>? = nil
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var list: [AudioDeviceInfo] = []
        var i = 0
        while let hint = hints[i] {
            i += 1
            guard let namePtr = snd_device_name_get_hint(hint, "NAME") else { continue }
            let id = String(cString: namePtr)
            free(namePtr)
            var direction: String? = nil
            if let io = snd_device_name_get_hint(hint, "IOID") {
                direction = String(cString: io)
                free(io)
            }
            var description = id
            if let desc = snd_device_name_get_hint(hint, "DESC") {
                description = String(String(cString: desc).split(separator: "\n").first ?? Substring(id))
                free(desc)
            }
            // No IOID means both directions.
            if let direction, direction != (capture ? "Input" : "Output") { continue }
            guard id != "null" else { continue }
            list.append(AudioDeviceInfo(id: id, name: description))
        }
        if let d = list.firstIndex(where: { $0.id == "default" }), d != 0 { list.insert(list.remove(at: d), at: 0) }
        return list
    }

    /// Whether ALSA can resolve `device` at all (a configured name or a card).
    static func deviceExists(_ device: String) -> Bool {
        devices(capture: true).contains { $0.id == device } || devices(capture: false).contains { $0.id == device }
    }
}

extension AudioPipeline {
    /// Whether playout has work even without a device: remote audio, an observer or a recording.
    var needsPlayoutClock: Bool {
        streams.withLock { !$0.isEmpty } || settings.withLock { $0.observer != nil } || recorder.withLock { $0 != nil } || feeds.withLock { !$0.playout.isEmpty }
    }

    /// Computes and emits onAudioVolumeIndication (local report, then the remote
    /// report when `remote`) and onActiveSpeaker from the levels gathered since
    /// the last report. `smooth` 0...10 is Agora's sensitivity: higher follows
    /// changes faster (10 reports each interval's level as it is).
    func reportVolumes(smooth: Int, reportVad: Bool, remote: Bool) {
        let alpha = 0.1 + Double(max(0, min(10, smooth))) * 0.09
        var events: [AudioEvent] = []
        levels.withLock { l in
            l.smoothLocal += alpha * (Double(l.localPeak) - l.smoothLocal)
            let local = Int32(l.smoothLocal.rounded())
            events.append(.audioVolumeIndication(
                speakers: [AudioVolumeInfo(uid: 0, volume: local, vad: reportVad && l.localVoice ? 1 : 0)],
                totalVolume: local))
            guard remote else {
                l.localPeak = 0
                l.localVoice = false
                return
            }
            for uid in Set(l.remotePeak.keys).union(l.smoothRemote.keys) {
                let v = Double(l.remotePeak[uid] ?? 0)
                l.smoothRemote[uid] = (l.smoothRemote[uid] ?? 0) + alpha * (v - (l.smoothRemote[uid] ?? 0))
            }
            l.smoothTotal += alpha * (Double(l.totalPeak) - l.smoothTotal)
            let speakers = l.smoothRemote
                .map { AudioVolumeInfo(uid: $0.key, volume: Int32($0.value.rounded()), vad: 1) }
                .filter { $0.volume > 0 }
                .sorted { ($0.volume, $1.uid) > ($1.volume, $0.uid) }
                .prefix(3)
            events.append(.audioVolumeIndication(speakers: Array(speakers), totalVolume: Int32(l.smoothTotal.rounded())))
            // The active speaker: the loudest remote user, once it has led twice in a row.
            if let top = speakers.first, top.volume >= 20 {
                let count = (l.loudestCount[top.uid] ?? 0) + 1
                l.loudestCount = [top.uid: count]
                if count >= 2 && l.activeSpeaker != top.uid {
                    l.activeSpeaker = top.uid
                    events.append(.activeSpeaker(uid: top.uid))
                }
            } else {
                l.loudestCount = [:]
            }
            l.localPeak = 0
            l.localVoice = false
            l.remotePeak = [:]
            l.totalPeak = 0
        }
        for e in events { emit(e) }
    }
}

extension AudioDeviceModule {
    /// Brings capture and playout in line with the pipeline: in a call, the
    /// device plays unless the host pulls (external sink), and captures unless
    /// the host pushes (external source) or local audio is off.
    func refresh() {
        let main = Self.wants(pipeline)
        let others = attached.withLock { $0 }.map { p -> Attachment in
            let w = Self.wants(p)
            return Attachment(pipeline: p, capture: w.capture, playout: w.playout, pacePushed: w.pacePushed, inCall: w.inCall)
        }
        update { c in
            (c.playout, c.capture, c.pacePushed, c.inCall) = main
            c.connections = others
        }
    }

    /// What a connection's audio path takes from the device now: playout in
    /// a call unless the host pulls (external sink) or the connection turned
    /// the device off (enable_audio_recording_or_playout); capture in a call
    /// when it publishes the microphone, unless the host pushes (external
    /// source) or local audio is off.
    private static func wants(_ p: AudioPipeline) -> (playout: Bool, capture: Bool, pacePushed: Bool, inCall: Bool) {
        let (sink, enabled, local, device, microphone) = p.settings.withLock {
            ($0.sink != nil, $0.audioEnabled, $0.localEnabled, $0.deviceEnabled, $0.publishMicrophone)
        }
        let external = p.sourceChannels > 0
        let inCall = p.callStart.withLock { $0 != nil }
        return (inCall && !sink && enabled && device, inCall && !external && enabled && local && device && microphone,
                inCall && external, inCall)
    }

    /// Adds a connection's audio path to the device (joinChannelEx).
    func attach(_ p: AudioPipeline) {
        attached.withLock { $0.append(p) }
        refresh()
    }

    /// Removes a connection's audio path; the device stops feeding it within 10 ms.
    func detach(_ p: AudioPipeline) {
        attached.withLock { $0.removeAll { $0 === p } }
        refresh()
    }
}

/// CPU seconds this process has used (user + system).
func processCPUSeconds() -> Double {
    var usage = rusage()
    guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Resident memory of this process in KB (/proc/self/statm).
func processResidentKB() -> UInt32 {
    guard let f = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(f) }
    var size = 0, resident = 0
    guard withUnsafeMutablePointer(to: &size, { s in
        withUnsafeMutablePointer(to: &resident) { r in agsh_read_two_longs(f, s, r) }
    }) == 2 else { return 0 }
    return UInt32(clamping: resident * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024)
}
