import CSpeexDSP

/// Sample-rate conversion of interleaved 16-bit PCM (speexdsp's resampler,
/// quality 5). Owned: created in `init`, destroyed in `deinit`. Not
/// thread-safe. Keeps its filter state between calls, so a stream converts
/// without clicks at chunk boundaries.
public final class Resampler {
    private let state: OpaquePointer
    public let channels: Int
    public let inputRate: Int
    public let outputRate: Int

    /// A converter from `inputRate` to `outputRate` for `channels` channels.
    public init?(channels: Int, inputRate: Int, outputRate: Int) {
        var err: Int32 = 0
        guard channels >= 1, channels <= 2, inputRate > 0, outputRate > 0,
              let s = speex_resampler_init(spx_uint32_t(channels), spx_uint32_t(inputRate),
                                           spx_uint32_t(outputRate), 5, &err), err == 0
        else { return nil }
        state = s
        self.channels = channels
        self.inputRate = inputRate
        self.outputRate = outputRate
        speex_resampler_skip_zeros(state)
    }

    deinit { speex_resampler_destroy(state) }

    /// Converts all of `input` (interleaved); returns the output samples (interleaved).
    public func process(_ input: [Int16]) -> [Int16] {
        guard inputRate != outputRate else { return input }
        let frames = input.count / channels
        var out = [Int16](repeating: 0, count: (frames * outputRate / inputRate + 16) * channels)
        var inLength = spx_uint32_t(frames)
        var outLength = spx_uint32_t(out.count / channels)
        input.withUnsafeBufferPointer { i in
            out.withUnsafeMutableBufferPointer { o in
                _ = speex_resampler_process_interleaved_int(state, i.baseAddress, &inLength, o.baseAddress, &outLength)
            }
        }
        return Array(out[0..<Int(outLength) * channels])
    }
}

/// Converts interleaved PCM between mono and stereo (mono is the average of
/// both channels; stereo repeats mono in both).
public func convertChannels(_ pcm: [Int16], from: Int, to: Int) -> [Int16] {
    if from == to { return pcm }
    if from == 1 && to == 2 { return pcm.flatMap { [$0, $0] } }
    var out = [Int16](repeating: 0, count: pcm.count / 2)
    for i in 0..<out.count { out[i] = Int16((Int32(pcm[2 * i]) + Int32(pcm[2 * i + 1])) / 2) }
    return out
}
