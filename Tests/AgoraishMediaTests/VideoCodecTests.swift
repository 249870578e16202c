import AgoraishMedia
import AgoraishWire
import Testing

/// A test picture: a gradient background, a bright square that moves with
/// the frame number, and the frame number written as bars along the top.
func testPicture(_ n: Int, width: Int = 320, height: Int = 240) -> I420Frame {
    var f = I420Frame(width: width, height: height)
    for y in 0..<height {
        for x in 0..<width { f.y[y * width + x] = UInt8(40 + (x + y) % 128) }
    }
    let side = 48, left = (n * 7) % (width - side), top = (n * 3) % (height - side - 16) + 16
    for y in top..<(top + side) {
        for x in left..<(left + side) { f.y[y * width + x] = 235 }
    }
    for bit in 0..<8 where n >> bit & 1 == 1 {
        for y in 0..<12 {
            for x in (bit * 16)..<(bit * 16 + 12) { f.y[y * width + x] = 16 }
        }
    }
    for i in f.u.indices { f.u[i] = UInt8(100 + (i + n) % 50) }
    return f
}

@Suite struct VideoCodecTests {
    @Test(arguments: [VideoCodec.vp8, .vp9])
    func picturesSurviveEncodingAtTheirSizeAndOrder(codec: VideoCodec) throws {
        let encoder = try VideoEncoder(settings: .init(codec: codec, width: 320, height: 240, frameRate: 15,
                                                       bitrateKbps: 600))
        let decoder = try VideoDecoder(codec: codec)
        var psnrs: [Double] = []
        for n in 0..<30 {
            let picture = testPicture(n)
            let frames = try encoder.encode(picture, pts: Int64(n * 6000), keyframe: n == 0)
            for f in frames {
                if n == 0 { #expect(f.isKeyframe) }
                let shown = try #require(try decoder.decode(f.data))
                #expect(shown.width == 320 && shown.height == 240)
                psnrs.append(shown.lumaPSNR(picture))
            }
        }
        #expect(psnrs.count >= 28, "frames dropped: \(30 - psnrs.count)")
        // At 600 kbps for 320x240 at 15 fps every picture comes back above 30 dB.
        #expect(psnrs.dropFirst().allSatisfy { $0 > 30 }, "\(psnrs.map { Int($0) })")
    }

    @Test func aDecoderThatMissedTheKeyframeFailsUntilTheNextOne() throws {
        let encoder = try VideoEncoder(settings: .init(width: 160, height: 120, frameRate: 15, bitrateKbps: 300))
        let frames = try (0..<5).flatMap { n in try encoder.encode(testPicture(n, width: 160, height: 120), pts: Int64(n * 6000)) }
        #expect(frames.first?.isKeyframe == true)
        #expect(frames.dropFirst().allSatisfy { !$0.isKeyframe })
        let late = try VideoDecoder(codec: .vp8)
        #expect(throws: VideoCodecError.self) { _ = try late.decode(frames[2].data) }
        let key = try encoder.encode(testPicture(5, width: 160, height: 120), pts: 30000, keyframe: true)
        #expect(key.first?.isKeyframe == true)
        #expect(try late.decode(key[0].data) != nil)
        try encoder.setBitrate(kbps: 100)
        #expect(throws: VideoCodecError.self) { try encoder.setBitrate(kbps: 0) }
        #expect(throws: VideoCodecError.self) { _ = try VideoEncoder(settings: .init(width: 15, height: 120, frameRate: 15, bitrateKbps: 300)) }
    }

    @Test func vp8FramesCrossRtpInAnyOrderAndLossIsNoticed() throws {
        let encoder = try VideoEncoder(settings: .init(width: 320, height: 240, frameRate: 15, bitrateKbps: 800))
        var rtp: [(seq: UInt16, ts: UInt32, marker: Bool, payload: [UInt8])] = []
        var sequence: UInt16 = 65500  // wraps during the test
        var pictureId: UInt16 = 32760
        var sent: [[UInt8]] = []
        for n in 0..<20 {
            for f in try encoder.encode(testPicture(n), pts: Int64(n * 6000), keyframe: n == 0) {
                sent.append(f.data)
                let payloads = VP8Payload.packetize(f.data, pictureId: pictureId, maxPayload: 300)
                for (i, p) in payloads.enumerated() {
                    rtp.append((sequence, UInt32(n * 6000), i == payloads.count - 1, p))
                    sequence &+= 1
                }
                pictureId = VP8Payload.next(pictureId)
            }
        }
        // Descriptors read back.
        let first = try rtp[0].payload.withUnsafeBytes { try VP8Payload.parse($0) }
        #expect(first == .init(startOfPartition: true, pictureId: 32760, length: 4))
        // Reordered within a window of five packets: every frame comes out, in order, intact.
        var rng = SplitMix64(seed: 9)
        var shuffled = rtp
        for i in stride(from: 0, to: shuffled.count - 5, by: 5) {
            let j = i + Int(rng.next() % 5)
            shuffled.swapAt(i, j)
        }
        var assembler = VP8FrameAssembler()
        var got: [VP8FrameAssembler.Frame] = []
        for p in shuffled {
            got += p.payload.withUnsafeBytes { assembler.insert(sequence: p.seq, timestamp: p.ts, marker: p.marker, payload: $0) }
        }
        #expect(got.map(\.data) == sent)
        #expect(got.first?.isKeyframe == true && got.dropFirst().allSatisfy { !$0.isKeyframe })
        #expect(assembler.lost == 0)
        // One packet of frame 3 lost: frame 3 is skipped and the next frame says so.
        var lossy = VP8FrameAssembler()
        var lossyGot: [VP8FrameAssembler.Frame] = []
        let dropAt = rtp.firstIndex { $0.ts == 3 * 6000 }!
        for (i, p) in rtp.enumerated() where i != dropAt {
            lossyGot += p.payload.withUnsafeBytes { lossy.insert(sequence: p.seq, timestamp: p.ts, marker: p.marker, payload: $0) }
        }
        #expect(lossyGot.count == sent.count - 1)
        #expect(lossyGot[3].afterLoss && lossyGot[3].timestamp == 4 * 6000)
        #expect(lossy.lost == 1)
        // Garbage is ignored.
        var junk = VP8FrameAssembler()
        for bytes: [UInt8] in [[], [0x80], [0x80, 0x80], [0x80, 0x80, 0x80], [0x90, 0xF0, 0xFF]] {
            #expect(bytes.withUnsafeBytes { junk.insert(sequence: 1, timestamp: 1, marker: true, payload: $0) }.isEmpty)
        }
    }
}
