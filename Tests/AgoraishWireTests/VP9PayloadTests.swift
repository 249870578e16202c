@testable import AgoraishWire
import Testing

@Suite struct VP9PayloadTests {
    typealias D = VP9Payload.Descriptor

    /// Descriptors using every field of RFC 9628 §4.2 and §4.2.1.
    static let descriptors: [D] = [
        D(startOfFrame: true, endOfFrame: true, interPicturePredicted: false, pictureId: nil),
        D(startOfFrame: false, endOfFrame: false, interPicturePredicted: true, pictureId: 0x55, longPictureId: false),
        D(startOfFrame: true, endOfFrame: false, interPicturePredicted: true, pictureId: 0x7FFF,
          notReferenceForUpperLayers: true),
        // Non-flexible mode: layer indices with TL0PICIDX, and a full scalability structure.
        D(startOfFrame: true, endOfFrame: true, interPicturePredicted: false, pictureId: 300,
          layer: .init(temporalId: 0, spatialId: 0, tl0PicIdx: 17),
          scalability: .init(spatialLayers: 2,
                             resolutions: [.init(width: 320, height: 180), .init(width: 640, height: 360)],
                             pictureGroup: [.init(temporalId: 0, referenceDiffs: [4]),
                                            .init(temporalId: 2, switchingUp: true, referenceDiffs: [1]),
                                            .init(temporalId: 1, referenceDiffs: [2, 1, 3]),
                                            .init(temporalId: 2)])),
        D(startOfFrame: false, endOfFrame: true, interPicturePredicted: true, pictureId: 9,
          layer: .init(temporalId: 7, switchingUp: true, spatialId: 7, interLayerDependent: true, tl0PicIdx: 255),
          scalability: .init(spatialLayers: 8, pictureGroup: [])),
        D(startOfFrame: true, endOfFrame: true, interPicturePredicted: false, pictureId: 1,
          scalability: .init(spatialLayers: 3)),
        // Flexible mode: no TL0PICIDX, one to three references.
        D(startOfFrame: true, endOfFrame: false, interPicturePredicted: true, pictureId: 1234, flexibleMode: true,
          layer: .init(temporalId: 1, spatialId: 2, interLayerDependent: true, tl0PicIdx: nil), referenceDiffs: [1]),
        D(startOfFrame: true, endOfFrame: true, interPicturePredicted: true, pictureId: 77, longPictureId: false,
          flexibleMode: true, referenceDiffs: [127, 2, 0]),
        D(startOfFrame: true, endOfFrame: true, interPicturePredicted: false, pictureId: 5, flexibleMode: true,
          layer: .init(temporalId: 0, spatialId: 0, tl0PicIdx: nil),
          scalability: .init(spatialLayers: 1, resolutions: [.init(width: 1920, height: 1080)])),
    ]

    /// Hex bytes from a table whose annotations start at column 12.
    static func annotated(_ table: String) -> [UInt8] {
        hexBytes(table.split(separator: "\n").map { $0.prefix(12) }.joined(separator: " "))
    }

    /// Synthetic encoded frames: a keyframe every `keyEvery`, sizes from a seeded
    /// generator (at least 1200 bytes: five packets, more than a reordering window).
    static func frames(_ n: Int, keyEvery: Int, seed: UInt64) -> [(data: [UInt8], key: Bool)] {
        var rng = SplitMix64(seed: seed)
        return (0..<n).map { i in
            let size = 1200 + Int(rng.next() % 4000)
            return ((0..<size).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, i % keyEvery == 0)
        }
    }

    typealias Rtp = (seq: UInt16, ts: UInt32, marker: Bool, payload: [UInt8])

    /// The frames as RTP packets, sequence numbers and PictureIDs wrapping during the run.
    static func packets(_ frames: [(data: [UInt8], key: Bool)], maxPayload: Int = 300) -> [Rtp] {
        var rtp: [Rtp] = []
        var sequence: UInt16 = 65500
        var pictureId: UInt16 = 32760
        for (n, f) in frames.enumerated() {
            let payloads = VP9Payload.packetize(f.data, pictureId: pictureId, keyframe: f.key, width: 640, height: 360,
                                                maxPayload: maxPayload)
            for (i, p) in payloads.enumerated() {
                rtp.append((sequence, UInt32(n * 6000), i == payloads.count - 1, p))
                sequence &+= 1
            }
            pictureId = VP9Payload.next(pictureId)
        }
        return rtp
    }

    static func assemble(_ rtp: [Rtp], codec: PayloadCodec = .vp9) -> (frames: [VP8FrameAssembler.Frame], lost: Int) {
        var assembler = VP8FrameAssembler(codec: codec)
        var got: [VP8FrameAssembler.Frame] = []
        for p in rtp {
            got += p.payload.withUnsafeBytes { assembler.insert(sequence: p.seq, timestamp: p.ts, marker: p.marker, payload: $0) }
        }
        return (got, assembler.lost)
    }

    @Test func descriptorsRoundTrip() throws {
        for d in Self.descriptors {
            let bytes = d.serialized
            var expected = d
            expected.length = bytes.count
            #expect(try (bytes + [0xAA]).withUnsafeBytes { try VP9Payload.parse($0) } == expected)
            if let ss = d.scalability {
                var bare = d
                bare.scalability = nil
                #expect(bytes.count - bare.serialized.count == ss.encodedSize)
            }
        }
    }

    @Test func annotatedPacketsReadFieldByField() throws {
        // What packetize writes for a small keyframe.
        let key = Self.annotated("""
            8e          I=1 P=0 L=0 F=0 B=1 E=1 V=1 Z=0
            92 34       M=1, PictureID 0x1234
            10          N_S=0 (one layer), Y=1, G=0
            02 80 01 68 640 x 360
            01 02 03    the frame
            """)
        #expect(VP9Payload.packetize([1, 2, 3], pictureId: 0x1234, keyframe: true, width: 640, height: 360,
                                     maxPayload: 1200) == [key])
        // Flexible mode with layer indices and two references.
        let flexible = Self.annotated("""
            f8          I=1 P=1 L=1 F=1 B=1 E=0 V=0 Z=0
            05          M=0, PictureID 5
            53          TID=2 U=1 SID=1 D=1
            03          P_DIFF=1, N=1
            04          P_DIFF=2, N=0
            ff          the frame
            """)
        let d = try flexible.withUnsafeBytes { try VP9Payload.parse($0) }
        #expect(d == D(startOfFrame: true, endOfFrame: false, interPicturePredicted: true, pictureId: 5,
                       longPictureId: false, flexibleMode: true,
                       layer: .init(temporalId: 2, switchingUp: true, spatialId: 1, interLayerDependent: true,
                                    tl0PicIdx: nil),
                       referenceDiffs: [1, 2], length: 5))
        #expect(Array(d.serialized) == Array(flexible.prefix(5)))
        // Non-flexible mode: the layer byte is followed by TL0PICIDX.
        let nonFlexible = hexBytes("a8 80 07  20 09  00")
        #expect(try nonFlexible.withUnsafeBytes { try VP9Payload.parse($0) }.layer
                == .init(temporalId: 1, spatialId: 0, tl0PicIdx: 9))
    }

    @Test func packetsFitAndCarryTheRightBits() throws {
        for maxPayload in [9, 12, 20, 100, 1200] {
            for size in [0, 1, 2, 5, 11, 100, 1000, 1199, 1200, 5000, 12345] {
                for keyframe in [true, false] {
                    let frame = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7) }
                    let packets = VP9Payload.packetize(frame, pictureId: 0x8001, keyframe: keyframe, width: 1280,
                                                       height: 720, maxPayload: maxPayload)
                    #expect(packets.allSatisfy { $0.count <= maxPayload })
                    // As few packets as fit, in sizes at most a byte apart.
                    let firstRoom = maxPayload - (keyframe ? 8 : 3), room = maxPayload - 3
                    #expect(packets.count == (size <= firstRoom ? 1 : 1 + (size - firstRoom + room - 1) / room))
                    if maxPayload >= 20 {
                        #expect(packets.map(\.count).max()! - packets.map(\.count).min()! <= 1)
                    }
                    if size == 0 { continue }  // a descriptor alone does not parse
                    var data: [UInt8] = []
                    for (i, p) in packets.enumerated() {
                        let d = try p.withUnsafeBytes { try VP9Payload.parse($0) }
                        #expect(d.startOfFrame == (i == 0) && d.endOfFrame == (i == packets.count - 1))
                        #expect(d.interPicturePredicted == !keyframe && !d.flexibleMode && d.layer == nil)
                        #expect(d.pictureId == 1 && d.longPictureId)
                        let ss = keyframe && i == 0
                            ? VP9Payload.ScalabilityStructure(spatialLayers: 1, resolutions: [.init(width: 1280, height: 720)])
                            : nil
                        #expect(d.scalability == ss)
                        #expect(VP9Payload.isKeyframe(d) == (keyframe && i == 0))
                        data += p[d.length...]
                    }
                    #expect(data == frame)
                }
            }
        }
    }

    @Test func framesCrossRtpInAnyOrder() {
        let frames = Self.frames(20, keyEvery: 10, seed: 3)
        let rtp = Self.packets(frames)
        var rng = SplitMix64(seed: 9)
        var shuffled = rtp
        for i in stride(from: 0, to: shuffled.count - 5, by: 5) {
            shuffled.swapAt(i, i + Int(rng.next() % 5))
        }
        let (got, lost) = Self.assemble(shuffled)
        #expect(got.map(\.data) == frames.map(\.data))
        #expect(got.map(\.isKeyframe) == frames.map(\.key))
        #expect(got.map(\.timestamp) == (0..<20).map { UInt32($0 * 6000) })
        let expectedIds: [UInt16?] = (0..<20).map { (i: Int) -> UInt16? in UInt16((32760 + i) & 0x7FFF) }
        #expect(got.map(\.pictureId) == expectedIds)
        #expect(got.allSatisfy { !$0.afterLoss } && lost == 0)
    }

    @Test func theMarkerBitEndsAFrameWithoutE() {
        let frames = Self.frames(6, keyEvery: 6, seed: 6)
        let rtp = Self.packets(frames).map { p in (p.seq, p.ts, p.marker, [p.payload[0] & ~0x04] + p.payload.dropFirst()) }
        let (got, lost) = Self.assemble(rtp)
        #expect(got.map(\.data) == frames.map(\.data) && lost == 0)
    }

    @Test func aMissingPacketSkipsItsFrameAndIsReported() {
        let frames = Self.frames(20, keyEvery: 10, seed: 4)
        let rtp = Self.packets(frames)
        // One packet of frame 3 lost: frame 3 is skipped after `patience` newer frames.
        let drop = rtp.firstIndex { $0.ts == 3 * 6000 }! + 1
        let (got, lost) = Self.assemble(rtp.enumerated().filter { $0.offset != drop }.map(\.element))
        #expect(got.count == frames.count - 1 && lost == 1)
        #expect(got[3].afterLoss && got[3].timestamp == 4 * 6000)
        #expect(got.enumerated().allSatisfy { $0.offset == 3 || !$0.element.afterLoss })
        // A packet of frame 9 lost: the keyframe after it comes out as soon as it is complete.
        var assembler = VP8FrameAssembler(codec: .vp9)
        let lost9 = rtp.firstIndex { $0.ts == 9 * 6000 }!
        var out: [VP8FrameAssembler.Frame] = []
        for (i, p) in rtp.enumerated() where i != lost9 && p.ts <= 10 * 6000 {
            out += p.payload.withUnsafeBytes { assembler.insert(sequence: p.seq, timestamp: p.ts, marker: p.marker, payload: $0) }
        }
        #expect(out.last?.timestamp == 10 * 6000 && out.last?.isKeyframe == true && out.last?.afterLoss == true)
        #expect(assembler.lost == 1)
    }

    @Test func everyTruncationThrows() {
        for d in Self.descriptors {
            let bytes = d.serialized + [0xAA]
            for n in 0..<bytes.count {
                #expect(throws: WireError.truncated) { _ = try Array(bytes.prefix(n)).withUnsafeBytes { try VP9Payload.parse($0) } }
            }
        }
        // Four references: N set on the third.
        #expect(throws: WireError.malformed("VP9 lists more than 3 references")) {
            _ = try hexBytes("d0 03 05 07 09 08 00").withUnsafeBytes { try VP9Payload.parse($0) }
        }
    }

    @Test func randomBytesNeverTrap() {
        var rng = SplitMix64(seed: 42)
        var vp8 = VP8FrameAssembler()
        var vp9 = VP8FrameAssembler(codec: .vp9)
        for i in 0..<20_000 {
            var bytes = (0..<Int(rng.next() % 24)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if i % 2 == 0, !bytes.isEmpty { bytes[0] |= 0x0A }  // B and V set: exercise the scalability structure
            bytes.withUnsafeBytes { p in
                if let d = try? VP9Payload.parse(p) {
                    // What parses can be written back (reserved bits aside) and reads the same.
                    #expect(d.length < p.count)
                    #expect((d.serialized + [0]).withUnsafeBytes { try? VP9Payload.parse($0) } == d)
                }
                _ = VP9Payload.startsKeyframe(p)
                _ = VP8Payload.startsKeyframe(p)
                _ = vp8.insert(sequence: UInt16(truncatingIfNeeded: i), timestamp: UInt32(i / 3), marker: i % 3 == 2, payload: p)
                _ = vp9.insert(sequence: UInt16(truncatingIfNeeded: i), timestamp: UInt32(i / 3), marker: i % 3 == 2, payload: p)
            }
        }
    }

    @Test func keyframesAreSeenFromTheFirstPacket() {
        // VP9: B=1 and P=0 on the base layer.
        let key = VP9Payload.packetize(Array(repeating: 0x82, count: 900), pictureId: 3, keyframe: true, width: 320,
                                       height: 240, maxPayload: 400)
        let delta = VP9Payload.packetize(Array(repeating: 0x86, count: 900), pictureId: 4, keyframe: false, width: 320,
                                         height: 240, maxPayload: 400)
        #expect(key.map { $0.withUnsafeBytes(VP9Payload.startsKeyframe) } == [true, false, false])
        #expect(delta.map { $0.withUnsafeBytes(VP9Payload.startsKeyframe) } == [false, false, false])
        let upper = D(startOfFrame: true, endOfFrame: true, interPicturePredicted: false, pictureId: 3,
                      layer: .init(temporalId: 0, spatialId: 1, interLayerDependent: true, tl0PicIdx: 0))
        #expect(!(upper.serialized + [0]).withUnsafeBytes(VP9Payload.startsKeyframe))
        #expect(!hexBytes("8e 92").withUnsafeBytes(VP9Payload.startsKeyframe))  // B=1 P=0 but cut short
        // VP8: S=1, PID=0, and P=0 in the frame tag.
        let vp8Key = VP8Payload.packetize([0x10, 0x02, 0x00] + Array(repeating: 9, count: 500), pictureId: 8, maxPayload: 300)
        let vp8Delta = VP8Payload.packetize([0x11, 0x02, 0x00] + Array(repeating: 9, count: 500), pictureId: 9, maxPayload: 300)
        #expect(vp8Key.map { $0.withUnsafeBytes(VP8Payload.startsKeyframe) } == [true, false])
        #expect(vp8Delta.map { $0.withUnsafeBytes(VP8Payload.startsKeyframe) } == [false, false])
        #expect(![UInt8]([0x11, 0x10]).withUnsafeBytes(VP8Payload.startsKeyframe))  // PID=1
        #expect(![UInt8]([0x90, 0x80]).withUnsafeBytes(VP8Payload.startsKeyframe))  // cut short
        #expect(![UInt8]().withUnsafeBytes(VP8Payload.startsKeyframe))
    }

    @Test func vp8AssemblyIsUnchanged() {
        // Synthetic VP8 frames: bit 0 of the first byte is the P bit of the frame tag.
        var frames = Self.frames(12, keyEvery: 6, seed: 5)
        for i in frames.indices { frames[i].data[0] = frames[i].key ? 0x10 : 0x11 }
        var rtp: [Rtp] = []
        var sequence: UInt16 = 65530
        for (n, f) in frames.enumerated() {
            let payloads = VP8Payload.packetize(f.data, pictureId: UInt16(n), maxPayload: 300)
            for (i, p) in payloads.enumerated() {
                rtp.append((sequence, UInt32(n * 3000), i == payloads.count - 1, p))
                sequence &+= 1
            }
        }
        var shuffled = rtp
        for i in stride(from: 0, to: shuffled.count - 4, by: 4) { shuffled.swapAt(i, i + 3) }
        let (got, lost) = Self.assemble(shuffled, codec: .vp8)
        #expect(got.map(\.data) == frames.map(\.data) && lost == 0)
        #expect(got.map(\.isKeyframe) == frames.map(\.key))
        #expect(got.map(\.pictureId) == (0..<12).map { UInt16?(UInt16($0)) })
    }
}
