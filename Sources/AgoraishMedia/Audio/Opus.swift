import CAgoraishShim
import COpus

/// Why libopus refused.
public struct OpusError: Error, Equatable, CustomStringConvertible {
    /// The libopus error code (OPUS_BAD_ARG, OPUS_INVALID_PACKET, ...).
    public let code: Int32
    public var description: String { String(cString: opus_strerror(code)) }
}

/// An Opus encoder at 48 kHz (libopus `OpusEncoder`), owned: created in
/// `init`, destroyed in `deinit`. Not thread-safe; one media thread uses it.
public final class OpusEncoder {
    /// The sample rate of the input, always 48 kHz here.
    public static let sampleRate: Int32 = 48000
    private let encoder: OpaquePointer
    /// The settings in force.
    public private(set) var settings: OpusSettings
    private var output = [UInt8](repeating: 0, count: 1500)

    /// An encoder with `settings` (opus_encoder_create, then the OPUS_SET_* controls).
    public init(settings: OpusSettings) throws(OpusError) {
        var err: Int32 = 0
        let application = settings.application == .voip ? OPUS_APPLICATION_VOIP : OPUS_APPLICATION_AUDIO
        guard let e = opus_encoder_create(Self.sampleRate, settings.channels, application, &err), err == OPUS_OK else {
            throw OpusError(code: err)
        }
        encoder = e
        self.settings = settings
        try apply(settings)
    }

    deinit { opus_encoder_destroy(encoder) }

    /// Changes bitrate, band, FEC, DTX and complexity (not channels or tuning).
    public func apply(_ s: OpusSettings) throws(OpusError) {
        let band: Int32
        switch s.bandwidthHz {
        case ...8000: band = OPUS_BANDWIDTH_NARROWBAND
        case ...12000: band = OPUS_BANDWIDTH_MEDIUMBAND
        case ...16000: band = OPUS_BANDWIDTH_WIDEBAND
        case ...24000: band = OPUS_BANDWIDTH_SUPERWIDEBAND
        case ...32000: band = OPUS_BANDWIDTH_SUPERWIDEBAND
        default: band = OPUS_BANDWIDTH_FULLBAND
        }
        for (request, value) in [(OPUS_SET_BITRATE_REQUEST, s.bitrate), (OPUS_SET_MAX_BANDWIDTH_REQUEST, band),
                                 (OPUS_SET_INBAND_FEC_REQUEST, s.inbandFEC ? 1 : 0),
                                 (OPUS_SET_PACKET_LOSS_PERC_REQUEST, s.expectedLossPercent),
                                 (OPUS_SET_DTX_REQUEST, s.dtx ? 1 : 0), (OPUS_SET_COMPLEXITY_REQUEST, s.complexity)] {
            let rc = agsh_opus_encoder_set_int(encoder, request, value)
            guard rc == OPUS_OK else { throw OpusError(code: rc) }
        }
        settings.bitrate = s.bitrate
        settings.bandwidthHz = s.bandwidthHz
        settings.inbandFEC = s.inbandFEC
        settings.expectedLossPercent = s.expectedLossPercent
        settings.dtx = s.dtx
        settings.complexity = s.complexity
    }

    /// Encodes one frame of interleaved 16-bit PCM (2.5, 5, 10, 20, 40 or 60 ms
    /// at 48 kHz: `samplesPerChannel` 120 ... 2880). Returns the Opus packet.
    public func encode(_ pcm: UnsafePointer<Int16>, samplesPerChannel: Int) throws(OpusError) -> [UInt8] {
        let n = output.withUnsafeMutableBufferPointer { out in
            opus_encode(encoder, pcm, Int32(samplesPerChannel), out.baseAddress!, Int32(out.count))
        }
        guard n > 0 else { throw OpusError(code: n) }
        return Array(output[0..<Int(n)])
    }

    /// Encodes one frame straight into `out` (at most `capacity` bytes); returns
    /// the packet's length.
    public func encode(_ pcm: UnsafePointer<Int16>, samplesPerChannel: Int, into out: UnsafeMutablePointer<UInt8>,
                       capacity: Int) throws(OpusError) -> Int {
        let n = opus_encode(encoder, pcm, Int32(samplesPerChannel), out, Int32(capacity))
        guard n > 0 else { throw OpusError(code: n) }
        return Int(n)
    }
}

/// An Opus decoder at 48 kHz (libopus `OpusDecoder`), owned. Decodes packets,
/// conceals lost ones (PLC) and recovers a lost one from the next packet's
/// in-band FEC. Not thread-safe.
public final class OpusDecoder {
    private let decoder: OpaquePointer
    /// Output channels (1 or 2).
    public let channels: Int32

    /// A decoder producing `channels` channels at 48 kHz (opus_decoder_create).
    public init(channels: Int32) throws(OpusError) {
        var err: Int32 = 0
        guard let d = opus_decoder_create(OpusEncoder.sampleRate, channels, &err), err == OPUS_OK else {
            throw OpusError(code: err)
        }
        decoder = d
        self.channels = channels
    }

    deinit { opus_decoder_destroy(decoder) }

    /// Decodes `packet` into `pcm` (room for `maxSamplesPerChannel` per channel);
    /// returns samples per channel. `fec` decodes the previous frame from this
    /// packet's in-band FEC instead (set `maxSamplesPerChannel` to the lost frame's length).
    public func decode(_ packet: [UInt8], into pcm: UnsafeMutablePointer<Int16>, maxSamplesPerChannel: Int,
                       fec: Bool = false) throws(OpusError) -> Int {
        let n = packet.withUnsafeBufferPointer { p in
            opus_decode(decoder, p.baseAddress, Int32(p.count), pcm, Int32(maxSamplesPerChannel), fec ? 1 : 0)
        }
        guard n >= 0 else { throw OpusError(code: n) }
        return Int(n)
    }

    /// Conceals one lost frame of `samplesPerChannel` (packet loss concealment).
    public func conceal(into pcm: UnsafeMutablePointer<Int16>, samplesPerChannel: Int) throws(OpusError) -> Int {
        let n = opus_decode(decoder, nil, 0, pcm, Int32(samplesPerChannel), 0)
        guard n >= 0 else { throw OpusError(code: n) }
        return Int(n)
    }

    /// Channels a packet decodes to by itself (opus_packet_get_nb_channels): 1 or 2, or nil when empty or invalid.
    public static func channels(in packet: [UInt8]) -> Int? {
        guard !packet.isEmpty else { return nil }
        let n = packet.withUnsafeBufferPointer { opus_packet_get_nb_channels($0.baseAddress!) }
        return n == 1 || n == 2 ? Int(n) : nil
    }

    /// Samples per channel in a packet (opus_packet_get_nb_samples), or nil for an invalid packet.
    public static func samplesPerChannel(in packet: [UInt8]) -> Int? {
        guard !packet.isEmpty else { return nil }
        let n = packet.withUnsafeBufferPointer { opus_packet_get_nb_samples($0.baseAddress!, Int32($0.count), 48000) }
        return n > 0 ? Int(n) : nil
    }
}
