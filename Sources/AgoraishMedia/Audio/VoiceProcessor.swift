import CAudioProcessing

/// How hard the noise suppressor works (WebRTC's `NoiseSuppression::Level`):
/// more suppression removes more noise and distorts more speech.
public enum NoiseSuppressionLevel: Int, Sendable { case low = 0, moderate, high, veryHigh }

/// How hard the echo canceller's non-linear stage suppresses what is left of the
/// echo (WebRTC's `EchoCancellation::SuppressionLevel`): higher removes more echo
/// and more of the near end during double talk.
public enum EchoSuppressionLevel: Int, Sendable { case low = 0, moderate, high }

/// What the module does to captured audio.
public struct VoiceProcessingConfig: Equatable, Sendable {
    /// Acoustic echo cancellation (WebRTC's full AEC, extended filter, delay-agnostic)
    /// of what `VoiceProcessor.processReverse` was given.
    public var echoCancellation = false
    /// The AEC's suppression level (used when `echoCancellation` is on).
    public var echoSuppression = EchoSuppressionLevel.moderate
    /// The noise suppressor's level; nil: off.
    public var noiseSuppression: NoiseSuppressionLevel? = nil
    /// Adaptive digital gain control (with its limiter on).
    public var gainControl = false
    /// 0...31: the gain control's target peak level, dB below full scale (3: -3 dBFS).
    public var gainTargetDbfs = 3
    /// 0...90: the most gain the gain control's compression stage applies, dB.
    public var gainCompressionDb = 9
    /// The high-pass filter: removes DC and hum (-3 dB near 90 Hz, 50 Hz down 13 dB).
    public var highPass = false

    /// Everything off.
    public init() {}

    /// Whether any step is on (when false the engine does not call the processor at all).
    public var isActive: Bool { echoCancellation || noiseSuppression != nil || gainControl || highPass }
}

/// What the module reports about the capture it processed.
public struct VoiceProcessingStats: Equatable, Sendable {
    /// The AEC's echo return loss enhancement (its long-term average), dB; nil while the
    /// AEC is off or has not measured it yet (the first ~2 s of echo). It runs a few dB below
    /// what the signals show (about 30 dB reported where 35 dB is measured).
    public var echoReturnLossEnhancementDb: Double?
    /// The AEC's echo return loss (far end to echo, long-term average), dB; nil when unknown.
    public var echoReturnLossDb: Double?
    /// The AEC's delay metric (WebRTC's `GetDelayMetrics` median over the last second), ms:
    /// the lag at which its delay estimator finds the echo in its far-end buffer. It depends
    /// on the `delayMs` given and on the AEC's own (delay-agnostic) corrections, so it is a
    /// diagnostic, not the echo's absolute delay. nil while unknown (the first ~5 s of echo).
    public var delayMedianMs: Int?
    /// Whether the VAD found voice in the last capture frame (the VAD always runs).
    public var voiceDetected: Bool
    /// The noise suppressor's speech probability of the last capture frame, 0...1;
    /// nil while noise suppression is off.
    public var speechProbability: Double?

    /// Nothing known, no voice.
    public init(
        echoReturnLossEnhancementDb: Double? = nil, echoReturnLossDb: Double? = nil,
        delayMedianMs: Int? = nil, voiceDetected: Bool = false, speechProbability: Double? = nil
    ) {
        self.echoReturnLossEnhancementDb = echoReturnLossEnhancementDb
        self.echoReturnLossDb = echoReturnLossDb
        self.delayMedianMs = delayMedianMs
        self.voiceDetected = voiceDetected
        self.speechProbability = speechProbability
    }
}

/// The WebRTC AudioProcessing module (webrtc-audio-processing 0.3, through the C++
/// shim `apm_shim.cpp`, C functions `agapm_*`) on the capture path: echo cancellation against the playout,
/// noise suppression, adaptive digital gain control, a high-pass filter and voice
/// activity detection, on 48 kHz 16-bit interleaved PCM in 10 ms blocks.
///
/// The engine feeds every playout block to `processReverse` and every capture block to
/// `processCapture`; it tells the capture call how late the echo comes (`delayMs`),
/// which the AEC uses as a hint (it also estimates the delay itself, so a wrong hint
/// costs little). The AEC needs a second or two of far-end speech to converge.
///
/// Latency: each capture call returns its own block, processed, but the module delays
/// the signal inside: about 48 samples (1 ms, the 48 kHz band split) with any step on,
/// about 290 more (6 ms) with noise suppression and 336 more (7 ms) with the AEC: about
/// 670 samples (14 ms) with AEC + NS + AGC + high-pass. CPU: about 16 ms per second of
/// audio with all four (48 kHz mono, x86-64). Creating one costs about 0.2 ms.
///
/// @unchecked Sendable: `processReverse` and `processCapture` may run at once on two
/// threads (the module locks inside; each stream has its own buffer in the shim);
/// `configure`, `config` and `stats` may be called from any thread at any time.
/// Each of `processReverse` and `processCapture` must be called from one thread at
/// a time (the playout and the capture thread).
public final class VoiceProcessor: @unchecked Sendable {
    /// Frames (samples per channel) of one 10 ms block at 48 kHz.
    public static let frameSamples = Int(AGAPM_FRAME_SAMPLES)

    private let handle: OpaquePointer
    /// The capture's channel count, 1 or 2.
    public let captureChannels: Int

    /// A processor for `captureChannels` (1 or 2) channels of 48 kHz capture, with
    /// everything off (`VoiceProcessingConfig()`); nil for another channel count or when
    /// the module cannot be made (`agapm_create`).
    public init?(captureChannels: Int) {
        guard captureChannels == 1 || captureChannels == 2,
            let h = agapm_create(Int32(captureChannels))
        else { return nil }
        handle = h
        self.captureChannels = captureChannels
    }

    deinit { agapm_destroy(handle) }

    /// Applies `config` (`agapm_configure`) from the next capture block. Out-of-range
    /// numbers are clamped (target 0...31 dB, compression 0...90 dB), so `config` may read
    /// back different; re-applying the configuration in force is a cheap no-op. Switching
    /// the AEC on starts it converging afresh (a second or two of far-end speech).
    public func configure(_ config: VoiceProcessingConfig) {
        var c = agapm_config()
        c.echo_cancellation = config.echoCancellation ? 1 : 0
        c.echo_suppression = Int32(config.echoSuppression.rawValue)
        c.noise_suppression = Int32(config.noiseSuppression?.rawValue ?? -1)
        c.gain_control = config.gainControl ? 1 : 0
        c.gain_target_dbfs = Int32(clamping: config.gainTargetDbfs)
        c.gain_compression_db = Int32(clamping: config.gainCompressionDb)
        c.gain_limiter = 1
        c.high_pass = config.highPass ? 1 : 0
        // The numbers are clamped into range, so the module's setters succeed (one could
        // fail only to allocate, leaving that step as it was while `config` shows the request).
        _ = agapm_configure(handle, &c)
    }

    /// The configuration in force (`agapm_get_config`), with the numbers as clamped.
    public var config: VoiceProcessingConfig {
        var c = agapm_config()
        _ = agapm_get_config(handle, &c)
        var out = VoiceProcessingConfig()
        out.echoCancellation = c.echo_cancellation != 0
        out.echoSuppression = EchoSuppressionLevel(rawValue: Int(c.echo_suppression)) ?? .moderate
        out.noiseSuppression = c.noise_suppression < 0 ? nil : NoiseSuppressionLevel(rawValue: Int(c.noise_suppression))
        out.gainControl = c.gain_control != 0
        out.gainTargetDbfs = Int(c.gain_target_dbfs)
        out.gainCompressionDb = Int(c.gain_compression_db)
        out.highPass = c.high_pass != 0
        return out
    }

    /// Feeds 10 ms of what the loudspeaker plays (`agapm_process_reverse`): 480 × `channels`
    /// interleaved 48 kHz samples, `channels` 1 or 2 (stereo is downmixed to mono). The
    /// playout itself is not changed. A block of another size is ignored.
    public func processReverse(_ playout: [Int16], channels: Int) {
        guard channels == 1 || channels == 2, playout.count == Self.frameSamples * channels else { return }
        playout.withUnsafeBufferPointer { p in
            _ = agapm_process_reverse(handle, p.baseAddress, Int32(p.count), Int32(channels))
        }
    }

    /// Processes 10 ms of capture in place (`agapm_process_capture`): 480 × `captureChannels`
    /// interleaved 48 kHz samples. `delayMs` (0...500, clamped) is the time from a block
    /// entering `processReverse` to its echo arriving here: playout buffering plus capture
    /// buffering. A block of another size is left unchanged.
    public func processCapture(_ pcm: inout [Int16], delayMs: Int) {
        guard pcm.count == Self.frameSamples * captureChannels else { return }
        let delay = Int32(clamping: min(max(delayMs, 0), 500))
        pcm.withUnsafeMutableBufferPointer { p in
            // An error leaves the block as it came (or as the module left it); the
            // module's errors here are argument errors, ruled out above.
            _ = agapm_process_capture(handle, p.baseAddress, Int32(p.count), delay)
        }
    }

    /// What the module reported as of the last capture block (`agapm_get_stats`); the
    /// AEC's figures are read every 100 ms (the AEC itself updates them about once a second).
    public var stats: VoiceProcessingStats {
        var s = agapm_stats()
        _ = agapm_get_stats(handle, &s)
        return VoiceProcessingStats(
            echoReturnLossEnhancementDb: s.has_erle != 0 ? s.erle_db : nil,
            echoReturnLossDb: s.has_erl != 0 ? s.erl_db : nil,
            delayMedianMs: s.has_delay != 0 ? Int(s.delay_median_ms) : nil,
            voiceDetected: s.voice_detected != 0,
            speechProbability: s.has_speech_probability != 0 ? s.speech_probability : nil)
    }
}
