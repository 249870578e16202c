import AgoraishIO
import AgoraishMedia
import AgoraishWire
import Glibc

/// The engine's audio: what the host pushes is encoded with Opus in 20 ms
/// frames and sent as RTP (RFC 7587, payload type 111, with the RFC 6464
/// audio level as header extension 1); what arrives is put in one adaptive
/// jitter buffer per remote stream, and each pull mixes 10 ms of every
/// stream. The host's sample rate and channel count are converted with
/// speexdsp. Every method is thread-safe.
final class AudioPipeline: @unchecked Sendable {
    static let payloadType: UInt8 = 111
    static let audioLevelId: UInt8 = 1

    struct SendState {
        var encoder: OpusEncoder
        var resampler: Resampler?
        var inputRate: Int
        var inputChannels: Int
        var pending: [Int16] = []   // 48 kHz, encoder channels
        var ssrc: UInt32
        var sequence: UInt16
        var timestamp: UInt32
        var packet = [UInt8](repeating: 0, count: 1500 + SrtpSession.maxTrailer)
        var muted = false
    }

    struct ReceiveState {
        var buffers: [UInt32: AudioJitterBuffer] = [:]
        var mixed: [Int16] = []     // 48 kHz stereo-or-mono per sink channels, not yet pulled
        var resampler: Resampler?
        var sinkRate = 48000
        var sinkChannels = 1
        var sinkEnabled = false
        var mutedAll = false
    }

    private let send: Locked<SendState?>
    private let receiveState = Locked(ReceiveState())
    /// Where encoded packets go; nil until the media transport is up.
    let transport = Locked<MediaTransport?>(nil)
    /// RTP packets of remote audio received so far.
    let receivedPackets = Locked(0)

    /// Whether the media transport is up and bound (STUN answered).
    var isMediaBound: Bool { transport.withLock { $0?.bound ?? false } }

    init() {
        send = Locked(nil)
    }

    // MARK: - Sending

    /// setExternalAudioSource: enables pushing PCM at `sampleRate` with `channels`.
    func setSource(enabled: Bool, sampleRate: Int, channels: Int, profile: OpusSettings) throws(AgoraError) {
        guard enabled else {
            send.withLock { $0 = nil }
            return
        }
        guard [8000, 16000, 32000, 44100, 48000].contains(sampleRate), channels == 1 || channels == 2 else {
            throw .invalidArgument
        }
        var settings = profile
        settings.channels = Int32(channels)
        guard let encoder = try? OpusEncoder(settings: settings) else { throw .failed }
        let resampler = sampleRate == 48000 ? nil : Resampler(channels: channels, inputRate: sampleRate, outputRate: 48000)
        let seed = secureRandomBytes(10)
        send.withLock {
            $0 = SendState(encoder: encoder, resampler: resampler, inputRate: sampleRate, inputChannels: channels,
                           ssrc: UInt32(seed[0]) << 24 | UInt32(seed[1]) << 16 | UInt32(seed[2]) << 8 | UInt32(seed[3]),
                           sequence: UInt16(seed[4]) << 8 | UInt16(seed[5]),
                           timestamp: UInt32(seed[6]) << 24 | UInt32(seed[7]) << 16 | UInt32(seed[8]) << 8 | UInt32(seed[9]))
        }
    }

    /// muteLocalAudioStream: keeps encoding nothing while muted.
    func setLocalMuted(_ muted: Bool) { send.withLock { $0?.muted = muted } }

    /// pushExternalAudioFrame: any number of samples per channel. Returns the
    /// samples per channel (at 48 kHz) waiting for the next 20 ms frame.
    func push(_ samples: UnsafePointer<Int16>?, samplesPerChannel: Int) throws(AgoraError) -> Int {
        let link = transport.withLock { $0 }
        return try send.withLock { state throws(AgoraError) -> Int in
            guard var s = state else { throw .notReady }
            // The channel count is read under the lock: a concurrent format change
            // cannot make this read past the host's buffer.
            var pcm = samplesPerChannel == 0 ? []
                : Array(UnsafeBufferPointer(start: samples, count: samplesPerChannel * s.inputChannels))
            if let r = s.resampler { pcm = r.process(pcm) }
            s.pending += pcm
            let frame = 960 * s.inputChannels
            while s.pending.count >= frame {
                let chunk = Array(s.pending[0..<frame])
                s.pending.removeFirst(frame)
                if !s.muted, let link { encodeAndSend(&s, chunk, link) }
                s.sequence &+= 1
                s.timestamp &+= 960
            }
            state = s
            return s.pending.count / s.inputChannels
        }
    }

    private func encodeAndSend(_ s: inout SendState, _ chunk: [Int16], _ link: MediaTransport) {
        guard let payload = try? chunk.withUnsafeBufferPointer({ try s.encoder.encode($0.baseAddress!, samplesPerChannel: 960) })
        else { return }
        let level = chunk.withUnsafeBufferPointer { AudioLevel(pcm: $0, voiceActivity: true) }
        var header = RtpHeader(marker: false, payloadType: Self.payloadType, sequenceNumber: s.sequence,
                               timestamp: s.timestamp, ssrc: s.ssrc).serialized
        header[0] |= 0x10
        let bytes = header + RtpHeaderExtension.oneByte([(Self.audioLevelId, [level.byte])]) + payload
        guard bytes.count <= 1500 else { return }
        s.packet.withUnsafeMutableBytes { raw in
            raw.copyBytes(from: bytes)
            link.send(rtp: raw.baseAddress!, length: bytes.count)
        }
    }

    // MARK: - Receiving

    /// An RTP packet from the transport (plain, on the IO loop).
    func received(rtp: UnsafeMutableRawPointer, length: Int, now: Instant) {
        let raw = UnsafeRawBufferPointer(start: rtp, count: length)
        guard let h = try? RtpHeader.parse(raw), h.payloadType == Self.payloadType,
              h.payloadOffset < length - h.paddingLength else { return }
        let payload = Array(raw[h.payloadOffset..<(length - h.paddingLength)])
        receivedPackets.withLock { $0 += 1 }
        receiveState.withLock { r in
            // Nobody listens: keep nothing, so pulls that start later begin fresh.
            guard !r.mutedAll, r.sinkEnabled else { return }
            if r.buffers[h.ssrc] == nil {
                guard let b = try? AudioJitterBuffer(channels: 1) else { return }
                r.buffers[h.ssrc] = b
            }
            r.buffers[h.ssrc]!.insert(sequence: h.sequenceNumber, timestamp: h.timestamp, payload: payload, arrival: now)
        }
    }

    /// setExternalAudioSink: the rate and channels `pull` delivers.
    func setSink(enabled: Bool = true, sampleRate: Int, channels: Int) throws(AgoraError) {
        guard enabled else {
            receiveState.withLock { $0.sinkEnabled = false; $0.mixed = [] }
            return
        }
        guard [8000, 16000, 32000, 44100, 48000].contains(sampleRate), channels == 1 || channels == 2 else {
            throw .invalidArgument
        }
        receiveState.withLock {
            $0.sinkEnabled = true
            $0.sinkRate = sampleRate
            $0.sinkChannels = channels
            $0.mixed = []
            $0.resampler = sampleRate == 48000 ? nil : Resampler(channels: channels, inputRate: 48000, outputRate: sampleRate)
        }
    }

    /// Channels of the enabled source, 0 when none.
    var sourceChannels: Int { send.withLock { $0?.inputChannels ?? 0 } }
    /// Channels of the enabled sink, 0 when none.
    var sinkChannels: Int { receiveState.withLock { $0.sinkEnabled ? $0.sinkChannels : 0 } }

    /// muteAllRemoteAudioStreams.
    func setRemoteMuted(_ muted: Bool) { receiveState.withLock { $0.mutedAll = muted; if muted { $0.buffers = [:] } } }

    /// pullPlaybackAudioFrame: exactly `samplesPerChannel` at the sink's rate.
    func pull(into out: UnsafeMutableBufferPointer<Int16>, now: Instant) throws(AgoraError) {
        // (`now` is the playout clock; hosts pull in real time, tests may drive it.)
        try receiveState.withLock { r throws(AgoraError) in
            guard r.sinkEnabled else { throw .notReady }
            let need = out.count
            var frame = [Int16](repeating: 0, count: AudioJitterBuffer.frameSamples)
            while r.mixed.count < need {
                var mix = [Int32](repeating: 0, count: AudioJitterBuffer.frameSamples)
                for ssrc in Array(r.buffers.keys) {
                    _ = frame.withUnsafeMutableBufferPointer { r.buffers[ssrc]!.pull(into: $0.baseAddress!, now: now) }
                    for i in 0..<frame.count { mix[i] += Int32(frame[i]) }
                }
                var pcm = mix.map { Int16(clamping: $0) }
                pcm = convertChannels(pcm, from: 1, to: r.sinkChannels)
                if let rs = r.resampler { pcm = rs.process(pcm) }
                r.mixed += pcm
            }
            for i in 0..<need { out[i] = r.mixed[i] }
            r.mixed.removeFirst(need)
        }
    }

    /// Drops every remote stream (the call ended).
    func resetReceive() { receiveState.withLock { $0.buffers = [:]; $0.mixed = [] } }
}
