/// Agora's VIDEO_STREAM_TYPE as the wire and the media plane use it: the high
/// stream 0, the low stream 1, and the simulcast layers LAYER_1...LAYER_6 as
/// 4...9 (docs/video.md, Simulcast). A publisher sends the high stream and up
/// to three others; a subscriber names the one it wants per publisher.
public enum VideoStreamLayer {
    public static let high: UInt8 = 0
    public static let low: UInt8 = 1
    /// LAYER_1 ... LAYER_6.
    public static let layers: ClosedRange<UInt8> = 4...9

    /// Whether `type` names a stream: 0, 1 or 4...9.
    public static func isValid(_ type: Int64) -> Bool { type == 0 || type == 1 || (4...9).contains(type) }

    /// Quality order, best first: high 0, LAYER_1 ... LAYER_6 1 ... 6, low 7.
    public static func rank(_ type: UInt8) -> Int {
        switch type {
        case high: 0
        case layers: Int(type) - 3
        default: 7
        }
    }

    /// Of the `published` types (in quality order), what a subscriber that
    /// wants `wanted` gets: that one if published, else the best one below it,
    /// else the lowest there is.
    public static func resolve(_ wanted: UInt8, among published: [UInt8]) -> UInt8 {
        if published.contains(wanted) { return wanted }
        let r = rank(wanted)
        return published.first { rank($0) > r } ?? published.last ?? high
    }

    /// The wire name of a stream that is not the high one ("low", "layer1" ... "layer6").
    static func name(_ type: UInt8) -> String? {
        switch type {
        case low: "low"
        case layers: "layer\(type - 3)"
        default: nil
        }
    }

    /// The type a wire name stands for; nil for an unknown name.
    static func type(named name: String) -> UInt8? {
        if name == "low" { return low }
        guard name.hasPrefix("layer"), let n = UInt8(name.dropFirst(5)), (1...6).contains(n) else { return nil }
        return n + 3
    }
}

extension Signaling {
    /// One simulcast layer a publisher sends besides the high and low streams
    /// (`set_video_state` field `layers`): its type (4...9), SSRC and RTX SSRC.
    public struct LayerStream: Equatable, Sendable {
        public var type: UInt8
        public var ssrc: UInt32
        public var rtxSsrc: UInt32

        public init(type: UInt8, ssrc: UInt32, rtxSsrc: UInt32) {
            self.type = type
            self.ssrc = ssrc
            self.rtxSsrc = rtxSsrc
        }

        /// At most six, one per type, each type 4...9 and SSRC non-zero.
        static func list(_ f: MessageFields, _ key: String) throws(SignalingFailure) -> [LayerStream]? {
            guard let v = f.members[key], v != .null else { return nil }
            guard case .array(let items) = v, items.count <= 6 else { throw .badField(key) }
            var out: [LayerStream] = []
            for item in items {
                guard case .object(let o) = item else { throw .badField(key) }
                let g = MessageFields(o)
                guard let t = g.lenientInteger("type"), (4...9).contains(t),
                      let ssrc = g.lenientUInt32("ssrc"), ssrc != 0,
                      !out.contains(where: { $0.type == UInt8(t) || $0.ssrc == ssrc }) else { throw .badField(key) }
                out.append(LayerStream(type: UInt8(t), ssrc: ssrc, rtxSsrc: g.lenientUInt32("rtx_ssrc") ?? 0))
            }
            return out
        }

        var json: JSONValue {
            .object(["type": .integer(Int64(type)), "ssrc": .integer(Int64(ssrc)), "rtx_ssrc": .integer(Int64(rtxSsrc))])
        }
    }
}
