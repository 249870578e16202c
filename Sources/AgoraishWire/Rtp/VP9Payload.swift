/// The VP9 RTP payload format (RFC 9628), sans-IO: the payload descriptor,
/// splitting an encoded frame into packets, and telling keyframes apart. Frames
/// are put back together by `VP8FrameAssembler(codec: .vp9)`.
///
/// Every packet this side writes is in non-flexible mode (F=0) with a 15-bit
/// PictureID (I=1, M=1) and no layer indices (one spatial and one temporal
/// layer). The first packet of a keyframe also carries a scalability structure
/// with the picture size, so a receiver learns it before decoding:
///
/// ```
///       0 1 2 3 4 5 6 7
///      +-+-+-+-+-+-+-+-+
///      |I|P|L|F|B|E|V|Z|  I=1, P=0 on keyframes, B first, E last, V keyframe start
///      +-+-+-+-+-+-+-+-+
///      |M| PICTURE ID  |  M=1
///      +-+-+-+-+-+-+-+-+
///      | PICTURE ID    |
///      +-+-+-+-+-+-+-+-+
///  V:  |N_S|Y|G|0|0|0|0|  N_S=0 (one layer), Y=1, G=0
///      +-+-+-+-+-+-+-+-+
///      |  WIDTH (16)   |
///      |  HEIGHT (16)  |
///      +-+-+-+-+-+-+-+-+
/// ```
///
/// Parsing reads every field the RFC defines (§4.2): layer indices with
/// TL0PICIDX in non-flexible mode, up to three reference indices in flexible
/// mode, and the scalability structure with its picture groups (§4.2.1).
public enum VP9Payload {
    /// L: the layer indices byte (RFC 9628 §4.2), and TL0PICIDX in non-flexible mode.
    public struct LayerIndices: Equatable, Sendable {
        /// TID: the temporal layer (0...7).
        public var temporalId: UInt8
        /// U: a switching-up point (a higher temporal layer may start here).
        public var switchingUp: Bool
        /// SID: the spatial layer (0...7).
        public var spatialId: UInt8
        /// D: the frame depends on the frame of the spatial layer below (inter-layer prediction).
        public var interLayerDependent: Bool
        /// TL0PICIDX: the running index of temporal-layer-0 pictures; present in
        /// non-flexible mode only (nil in flexible mode).
        public var tl0PicIdx: UInt8?

        /// Layer indices; `tl0PicIdx` is nil exactly in flexible mode.
        public init(temporalId: UInt8, switchingUp: Bool = false, spatialId: UInt8, interLayerDependent: Bool = false,
                    tl0PicIdx: UInt8?) {
            self.temporalId = temporalId
            self.switchingUp = switchingUp
            self.spatialId = spatialId
            self.interLayerDependent = interLayerDependent
            self.tl0PicIdx = tl0PicIdx
        }
    }

    /// The size of one spatial layer's frames, in pixels.
    public struct Resolution: Equatable, Sendable {
        /// Width in pixels.
        public var width: UInt16
        /// Height in pixels.
        public var height: UInt16

        /// A size of `width` × `height` pixels.
        public init(width: UInt16, height: UInt16) {
            self.width = width
            self.height = height
        }
    }

    /// One picture of a picture group in the scalability structure (RFC 9628 §4.2.1).
    public struct PictureGroupEntry: Equatable, Sendable {
        /// TID: the temporal layer of this picture (0...7).
        public var temporalId: UInt8
        /// U: a switching-up point.
        public var switchingUp: Bool
        /// P_DIFF of each reference picture (0 to 3 of them).
        public var referenceDiffs: [UInt8]

        /// An entry with 0 to 3 references.
        public init(temporalId: UInt8, switchingUp: Bool = false, referenceDiffs: [UInt8] = []) {
            self.temporalId = temporalId
            self.switchingUp = switchingUp
            self.referenceDiffs = referenceDiffs
        }
    }

    /// V: the scalability structure (SS, RFC 9628 §4.2.1), sent at the start of keyframes.
    public struct ScalabilityStructure: Equatable, Sendable {
        /// N_S + 1: the number of spatial layers (1...8).
        public var spatialLayers: Int
        /// Y: the size of each spatial layer, lowest first; empty when Y=0,
        /// otherwise `spatialLayers` entries.
        public var resolutions: [Resolution]
        /// G: the picture group (N_G entries), or nil when G=0.
        public var pictureGroup: [PictureGroupEntry]?

        /// A structure of `spatialLayers` layers with their sizes (or none) and an optional picture group.
        public init(spatialLayers: Int, resolutions: [Resolution] = [], pictureGroup: [PictureGroupEntry]? = nil) {
            self.spatialLayers = spatialLayers
            self.resolutions = resolutions
            self.pictureGroup = pictureGroup
        }
    }

    /// The descriptor as read from a packet (RFC 9628 §4.2).
    public struct Descriptor: Equatable, Sendable {
        /// B: the packet starts a frame (of one spatial layer).
        public var startOfFrame: Bool
        /// E: the packet ends a frame (of one spatial layer).
        public var endOfFrame: Bool
        /// P: the frame is predicted from earlier pictures; false on keyframes.
        public var interPicturePredicted: Bool
        /// I: the PictureID (7 or 15 bits), when present.
        public var pictureId: UInt16?
        /// M: the PictureID takes 15 bits (two bytes) rather than 7 (one byte);
        /// true when there is no PictureID.
        public var longPictureId: Bool
        /// F: flexible mode (references listed in each packet) rather than
        /// non-flexible mode (references given by the picture group).
        public var flexibleMode: Bool
        /// Z: the frame is not used to predict higher spatial layers.
        public var notReferenceForUpperLayers: Bool
        /// L: the layer indices, when present.
        public var layer: LayerIndices?
        /// P_DIFF of each reference picture (1 to 3 of them) when F=1 and P=1; empty otherwise.
        public var referenceDiffs: [UInt8]
        /// V: the scalability structure, when present.
        public var scalability: ScalabilityStructure?
        /// Bytes the descriptor takes.
        public var length: Int

        /// A descriptor; `length` is filled in by `parse(_:)`.
        public init(startOfFrame: Bool, endOfFrame: Bool, interPicturePredicted: Bool, pictureId: UInt16?,
                    longPictureId: Bool = true, flexibleMode: Bool = false, notReferenceForUpperLayers: Bool = false,
                    layer: LayerIndices? = nil, referenceDiffs: [UInt8] = [],
                    scalability: ScalabilityStructure? = nil, length: Int = 0) {
            self.startOfFrame = startOfFrame
            self.endOfFrame = endOfFrame
            self.interPicturePredicted = interPicturePredicted
            self.pictureId = pictureId
            self.longPictureId = longPictureId
            self.flexibleMode = flexibleMode
            self.notReferenceForUpperLayers = notReferenceForUpperLayers
            self.layer = layer
            self.referenceDiffs = referenceDiffs
            self.scalability = scalability
            self.length = length
        }

        /// The descriptor's bytes. Traps on a descriptor that cannot be written
        /// (a field out of range, references without F=1 and P=1, TL0PICIDX
        /// outside non-flexible mode): those are the caller's mistakes, not input.
        public var serialized: [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(8)
            out.append((pictureId != nil ? 0x80 : 0) | (interPicturePredicted ? 0x40 : 0) | (layer != nil ? 0x20 : 0)
                       | (flexibleMode ? 0x10 : 0) | (startOfFrame ? 0x08 : 0) | (endOfFrame ? 0x04 : 0)
                       | (scalability != nil ? 0x02 : 0) | (notReferenceForUpperLayers ? 0x01 : 0))
            if let id = pictureId {
                if longPictureId {
                    precondition(id <= 0x7FFF, "a PictureID has 15 bits")
                    out += [0x80 | UInt8(id >> 8), UInt8(id & 0xFF)]
                } else {
                    precondition(id <= 0x7F, "a short PictureID has 7 bits")
                    out.append(UInt8(id))
                }
            }
            if let l = layer {
                precondition(l.temporalId <= 7 && l.spatialId <= 7, "TID and SID have 3 bits")
                precondition((l.tl0PicIdx == nil) == flexibleMode, "TL0PICIDX is sent in non-flexible mode only")
                out.append(l.temporalId << 5 | (l.switchingUp ? 0x10 : 0) | l.spatialId << 1 | (l.interLayerDependent ? 1 : 0))
                if let t = l.tl0PicIdx { out.append(t) }
            }
            precondition((flexibleMode && interPicturePredicted) == !referenceDiffs.isEmpty,
                         "reference indices come exactly with F=1 and P=1")
            precondition(referenceDiffs.count <= VP9Payload.maxReferences, "at most 3 reference indices")
            for (i, diff) in referenceDiffs.enumerated() {
                precondition(diff <= 0x7F, "a P_DIFF has 7 bits")
                out.append(diff << 1 | (i < referenceDiffs.count - 1 ? 1 : 0))
            }
            if let ss = scalability { ss.serialize(into: &out) }
            return out
        }
    }

    /// Most reference indices a frame may list (RFC 9628 §4.2: N is set on at most two).
    static let maxReferences = 3

    /// Reads the descriptor at the start of an RTP payload (RFC 9628 §4.2).
    /// Throws `.truncated` for a payload shorter than its descriptor says or with
    /// nothing after it, and `.malformed` for more than three reference indices.
    public static func parse(_ payload: UnsafeRawBufferPointer) throws(WireError) -> Descriptor {
        var r = RawReader(payload)
        let b0 = try r.u8()
        let flexible = b0 & 0x10 != 0
        let predicted = b0 & 0x40 != 0
        var d = Descriptor(startOfFrame: b0 & 0x08 != 0, endOfFrame: b0 & 0x04 != 0, interPicturePredicted: predicted,
                           pictureId: nil, flexibleMode: flexible,
                           notReferenceForUpperLayers: b0 & 0x01 != 0)
        if b0 & 0x80 != 0 {  // I
            let m = try r.u8()
            if m & 0x80 != 0 {
                d.pictureId = UInt16(m & 0x7F) << 8 | UInt16(try r.u8())
                d.longPictureId = true
            } else {
                d.pictureId = UInt16(m)
                d.longPictureId = false
            }
        }
        if b0 & 0x20 != 0 {  // L
            let l = try r.u8()
            var tl0PicIdx: UInt8? = nil
            if !flexible { tl0PicIdx = try r.u8() }  // TL0PICIDX: non-flexible mode only
            d.layer = LayerIndices(temporalId: l >> 5, switchingUp: l & 0x10 != 0, spatialId: l >> 1 & 0x07,
                                   interLayerDependent: l & 0x01 != 0, tl0PicIdx: tl0PicIdx)
        }
        if flexible && predicted {  // reference indices, each with N saying another follows
            while true {
                let b = try r.u8()
                d.referenceDiffs.append(b >> 1)
                if b & 0x01 == 0 { break }
                guard d.referenceDiffs.count < maxReferences else { throw .malformed("VP9 lists more than 3 references") }
            }
        }
        if b0 & 0x02 != 0 { d.scalability = try ScalabilityStructure.parse(&r) }  // V
        guard r.remaining > 0 else { throw .truncated }
        d.length = r.offset
        return d
    }

    /// Splits an encoded frame into RTP payloads of at most `maxPayload` bytes
    /// (descriptor included) whose sizes differ by at most one byte. The first
    /// has B=1, the last E=1 and the RTP marker bit (the caller sets it). A
    /// keyframe (P=0) starts with a scalability structure giving `width` × `height`.
    public static func packetize(_ frame: [UInt8], pictureId: UInt16, keyframe: Bool, width: Int, height: Int,
                                 maxPayload: Int) -> [[UInt8]] {
        precondition((0...0xFFFF).contains(width) && (0...0xFFFF).contains(height), "SS sizes have 16 bits")
        let ss = keyframe
            ? ScalabilityStructure(spatialLayers: 1, resolutions: [Resolution(width: UInt16(width), height: UInt16(height))])
            : nil
        func descriptor(first: Bool, last: Bool) -> [UInt8] {
            Descriptor(startOfFrame: first, endOfFrame: last, interPicturePredicted: !keyframe,
                       pictureId: pictureId & 0x7FFF, scalability: first ? ss : nil).serialized
        }
        let plain = 3                                // I + 15-bit PictureID
        let extra = ss.map { $0.encodedSize } ?? 0   // SS, first packet only
        precondition(maxPayload > plain + extra, "room for the first descriptor and one byte")
        let firstRoom = maxPayload - plain - extra
        let room = maxPayload - plain
        // The fewest packets that fit, then sizes (descriptor included) as even as possible.
        let count = frame.count <= firstRoom ? 1 : 1 + (frame.count - firstRoom + room - 1) / room
        let total = frame.count + extra
        // The first packet takes the larger share; at least one byte of the frame when there is one.
        let firstBytes = min(firstRoom, max(min(frame.count, 1), (total + count - 1) / count - extra))
        var chunks = [firstBytes]
        let rest = frame.count - firstBytes
        for i in 0..<(count - 1) { chunks.append(rest / (count - 1) + (i < rest % (count - 1) ? 1 : 0)) }
        var packets: [[UInt8]] = []
        packets.reserveCapacity(count)
        var offset = 0
        for (i, n) in chunks.enumerated() {
            packets.append(descriptor(first: i == 0, last: i == count - 1) + frame[offset..<offset + n])
            offset += n
        }
        return packets
    }

    /// Whether a packet with this descriptor starts a keyframe: B=1 and P=0,
    /// and not predicted from a lower spatial layer (D=0, as in every base layer).
    public static func isKeyframe(_ d: Descriptor) -> Bool {
        d.startOfFrame && !d.interPicturePredicted && !(d.layer?.interLayerDependent ?? false)
    }

    /// Whether an RTP payload starts a keyframe (see `isKeyframe(_:)`), for an
    /// SFU that looks at every packet: most are answered from the first byte.
    /// False for a payload that does not parse.
    public static func startsKeyframe(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard let b0 = payload.first, b0 & 0x08 != 0, b0 & 0x40 == 0 else { return false }
        guard let d = try? parse(payload) else { return false }
        return isKeyframe(d)
    }

    /// The next PictureID after `id` (15 bits, wrapping).
    public static func next(_ id: UInt16) -> UInt16 { (id &+ 1) & 0x7FFF }
}

extension VP9Payload.ScalabilityStructure {
    /// Bytes the structure takes.
    public var encodedSize: Int {
        1 + 4 * resolutions.count + (pictureGroup.map { 1 + $0.reduce(0) { $0 + 1 + $1.referenceDiffs.count } } ?? 0)
    }

    /// Appends the structure (RFC 9628 §4.2.1). Traps on one that cannot be written.
    func serialize(into out: inout [UInt8]) {
        precondition((1...8).contains(spatialLayers), "N_S has 3 bits: 1 to 8 spatial layers")
        precondition(resolutions.isEmpty || resolutions.count == spatialLayers, "one size per spatial layer, or none")
        out.append(UInt8(spatialLayers - 1) << 5 | (resolutions.isEmpty ? 0 : 0x10) | (pictureGroup != nil ? 0x08 : 0))
        for r in resolutions {
            out += [UInt8(r.width >> 8), UInt8(r.width & 0xFF), UInt8(r.height >> 8), UInt8(r.height & 0xFF)]
        }
        if let group = pictureGroup {
            precondition(group.count <= 0xFF, "N_G has 8 bits")
            out.append(UInt8(group.count))
            for e in group {
                precondition(e.temporalId <= 7 && e.referenceDiffs.count <= 3, "TID has 3 bits, R 2")
                out.append(e.temporalId << 5 | (e.switchingUp ? 0x10 : 0) | UInt8(e.referenceDiffs.count) << 2)
                out += e.referenceDiffs
            }
        }
    }

    /// Reads the structure at the reader's position.
    static func parse(_ r: inout RawReader) throws(WireError) -> Self {
        let h = try r.u8()
        var ss = Self(spatialLayers: Int(h >> 5) + 1)
        if h & 0x10 != 0 {  // Y
            for _ in 0..<ss.spatialLayers {
                ss.resolutions.append(.init(width: try r.u16(), height: try r.u16()))
            }
        }
        if h & 0x08 != 0 {  // G
            let n = Int(try r.u8())
            var group: [VP9Payload.PictureGroupEntry] = []
            for _ in 0..<n {
                let e = try r.u8()
                var entry = VP9Payload.PictureGroupEntry(temporalId: e >> 5, switchingUp: e & 0x10 != 0)
                for _ in 0..<Int(e >> 2 & 0x03) { entry.referenceDiffs.append(try r.u8()) }
                group.append(entry)
            }
            ss.pictureGroup = group
        }
        return ss
    }
}

/// Which RTP payload format `VP8FrameAssembler` puts back together.
public enum PayloadCodec: Sendable, Equatable {
    /// RFC 7741: a frame starts at S=1 with partition 0 and ends at the marker bit.
    case vp8
    /// RFC 9628: a frame starts at B=1 and ends at E=1 (or the marker bit).
    case vp9
}

/// Reads bytes in order from a payload, each read bounds-checked: running past
/// the end throws `WireError.truncated`.
struct RawReader {
    let bytes: UnsafeRawBufferPointer
    /// Index of the next unread byte.
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Bytes not read yet.
    var remaining: Int { bytes.count - offset }

    mutating func u8() throws(WireError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A big-endian u16.
    mutating func u16() throws(WireError) -> UInt16 {
        let hi = try u8()
        return UInt16(hi) << 8 | UInt16(try u8())
    }
}
