@testable import AgoraishMedia
import CJpeg
import Testing

/// A flat-coloured RGBA image.
private func flat(_ width: Int, _ height: Int, _ rgba: [UInt8]) -> RGBAImage {
    RGBAImage(width: width, height: height, pixels: (0..<width * height).flatMap { _ in rgba })
}

/// A flat grey (Y 126) picture.
private func grey(_ width: Int, _ height: Int) -> I420Frame {
    var f = I420Frame(width: width, height: height)
    for i in f.y.indices { f.y[i] = 126 }
    return f
}

/// A CRC-32 (ISO-HDLC), as PNG chunks carry.
private func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for b in bytes {
        c ^= UInt32(b)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }
    return ~c
}

/// A deterministic byte source (xorshift).
private struct Bytes {
    var state: UInt64
    mutating func next() -> UInt8 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return UInt8(truncatingIfNeeded: state >> 32)
    }
}

@Suite struct ImageFileTests {
    @Test func jpegIsACompleteFileOfThePicturesSize() throws {
        let jpeg = try ImageFile.encode(testPicture(5), as: .jpeg)
        #expect(Array(jpeg.prefix(2)) == [0xFF, 0xD8], "SOI")
        #expect(Array(jpeg.suffix(2)) == [0xFF, 0xD9], "EOI")
        let decoder = try #require(tjInitDecompress())
        defer { tjDestroy(decoder) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = -1, colourspace: Int32 = -1
        #expect(tjDecompressHeader3(decoder, jpeg, UInt(jpeg.count), &width, &height, &subsampling, &colourspace) == 0)
        #expect(width == 320 && height == 240 && subsampling == Int32(TJSAMP_420.rawValue))
    }

    @Test func theExtensionNamesTheFormat() throws {
        #expect(ImageFile.Format(path: "/tmp/a.JPEG") == .jpeg)
        #expect(ImageFile.Format(path: "b.jpg") == .jpeg)
        #expect(ImageFile.Format(path: "dir.png/c.Png") == .png)
        for name in ["c.bmp", "noextension", ".png", "d.png.txt", "dir.png/e"] {
            #expect(ImageFile.Format(path: name) == nil, "\(name)")
        }
        let picture = testPicture(1, width: 128, height: 96)
        #expect(try ImageFile.encode(picture, as: .png).prefix(4) == [0x89, 0x50, 0x4E, 0x47])
        #expect(try ImageFile.encode(picture, as: .jpeg) == ImageFile.jpegData(picture, quality: 90))
        #expect(throws: ImageFileError.invalidPicture) { try ImageFile.encode(I420Frame(width: 0, height: 0), as: .jpeg) }
        var short = picture
        short.v.removeLast()
        #expect(throws: ImageFileError.invalidPicture) { try ImageFile.encode(short, as: .png) }
    }

    @Test(arguments: [(33, 17), (1, 1), (2, 3), (17, 32)])
    func oddSizedPicturesAreWrittenWhole(width: Int, height: Int) throws {
        var picture = grey(width, height)
        for i in picture.y.indices { picture.y[i] = UInt8(16 + i % 200) }
        let jpeg = try ImageFile.jpegData(picture)
        let decoder = try #require(tjInitDecompress())
        defer { tjDestroy(decoder) }
        var w: Int32 = 0, h: Int32 = 0, subsampling: Int32 = -1, colourspace: Int32 = -1
        #expect(tjDecompressHeader3(decoder, jpeg, UInt(jpeg.count), &w, &h, &subsampling, &colourspace) == 0)
        #expect(Int(w) == width && Int(h) == height)
        let image = try ImageFile.decodePNG(try ImageFile.pngData(picture))
        #expect(image.width == width && image.height == height && image.isValid)
    }

    @Test func jpegDecodesToThePicturesColours() throws {
        // Smooth gradients, so the comparison measures colour rather than compression loss.
        var picture = I420Frame(width: 320, height: 240)
        for y in 0..<240 { for x in 0..<320 { picture.y[y * 320 + x] = UInt8(30 + (x + y) / 3) } }
        for y in 0..<120 {
            for x in 0..<160 {
                picture.u[y * 160 + x] = UInt8(90 + x / 4)
                picture.v[y * 160 + x] = UInt8(170 - y / 2)
            }
        }
        let jpeg = try ImageFile.jpegData(picture)
        let decoder = try #require(tjInitDecompress())
        defer { tjDestroy(decoder) }
        var rgb = [UInt8](repeating: 0, count: 320 * 240 * 3)
        let rc = rgb.withUnsafeMutableBufferPointer {
            tjDecompress2(decoder, jpeg, UInt(jpeg.count), $0.baseAddress, 320, 0, 240, Int32(TJPF_RGB.rawValue), 0)
        }
        #expect(rc == 0)
        // The PNG path converts to RGB with libyuv; the JPEG path sends the planes
        // stretched to full range. Both must show the same colours (without the
        // stretch they differ by about 6 on average).
        let reference = try ImageFile.decodePNG(try ImageFile.pngData(picture))
        var difference = 0
        for i in 0..<(320 * 240) {
            for c in 0..<3 { difference += abs(Int(rgb[i * 3 + c]) - Int(reference.pixels[i * 4 + c])) }
        }
        let mean = Double(difference) / Double(320 * 240 * 3)
        #expect(mean < 1.5, "mean absolute difference \(mean)")
    }

    @Test func aPngLargerThanItsFirstBufferIsStillWhole() throws {
        let picture = testPicture(4, width: 128, height: 96)
        let small = try ImageFile.pngData(picture, capacity: 64)
        #expect(small == (try ImageFile.pngData(picture)))
        #expect(try ImageFile.decodePNG(small).width == 128)
    }

    @Test func aPngLargerThanTheLimitIsRefusedBeforeDecoding() throws {
        var png = try ImageFile.pngData(grey(16, 16))
        // IHDR is the first chunk: length (4), "IHDR" (4), width (4, big-endian) at byte 16, CRC over type and data.
        for (i, b) in [UInt8(0), 0, 0x13, 0x88].enumerated() { png[16 + i] = b }  // width 5000
        let crc = crc32(png[12..<29])
        for i in 0..<4 { png[29 + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(i))) }
        #expect(throws: ImageFileError.tooLarge) { try ImageFile.decodePNG(png) }
    }

    @Test func mutatedPngsNeverCrash() throws {
        let good = try ImageFile.pngData(testPicture(3, width: 128, height: 96))
        var random = Bytes(state: 42)
        var decoded = 0
        for _ in 0..<300 {
            var bytes = good
            for _ in 0..<(1 + Int(random.next() % 4)) {
                bytes[Int(random.next()) * bytes.count / 256] = random.next()
            }
            if let image = try? ImageFile.decodePNG(bytes) {
                decoded += 1
                #expect(image.isValid)
            }
        }
        #expect(decoded < 300)
    }

    @Test func anOpaqueWatermarkReplacesATransparentOneKeepsAndHalfMixes() throws {
        let red: (y: Int, u: Int, v: Int) = (82, 90, 240)
        for (alpha, expectedY) in [(255, red.y), (0, 126), (128, (126 + red.y) / 2)] {
            let mark = try Watermark(image: flat(8, 8, [255, 0, 0, UInt8(alpha)]), x: 4, y: 4, width: 8, height: 8)
            var frame = grey(32, 32)
            mark.blend(into: &frame)
            for y in 0..<32 {
                for x in 0..<32 {
                    let inside = (4..<12).contains(x) && (4..<12).contains(y)
                    let got = Int(frame.y[y * 32 + x])
                    #expect(abs(got - (inside ? expectedY : 126)) <= 2, "alpha \(alpha) at (\(x), \(y)): \(got)")
                }
            }
            let u = Int(frame.u[4 * 16 + 4]), v = Int(frame.v[4 * 16 + 4])
            if alpha == 255 { #expect(abs(u - red.u) <= 2 && abs(v - red.v) <= 2, "\(u) \(v)") }
            if alpha == 0 { #expect(frame == grey(32, 32)) }
            if alpha == 128 { #expect(abs(u - (128 + red.u) / 2) <= 2 && abs(v - (128 + red.v) / 2) <= 2, "\(u) \(v)") }
            #expect(frame.u[0] == 128 && frame.v[0] == 128 && frame.u[6 * 16 + 6] == 128)
        }
    }

    @Test func aWatermarkIsClippedToThePicture() throws {
        let white = flat(4, 4, [255, 255, 255, 255])
        func covered(_ x: Int, _ y: Int, _ w: Int, _ h: Int, frame: (Int, Int) = (32, 32)) throws -> Set<Int> {
            var f = grey(frame.0, frame.1)
            try Watermark(image: white, x: x, y: y, width: w, height: h).blend(into: &f)
            return Set(f.y.indices.filter { f.y[$0] != 126 })
        }
        func area(_ xs: Range<Int>, _ ys: Range<Int>, width: Int = 32) -> Set<Int> {
            Set(ys.flatMap { y in xs.map { y * width + $0 } })
        }
        #expect(try covered(-4, -4, 8, 8) == area(0..<4, 0..<4))
        #expect(try covered(28, 26, 8, 8) == area(28..<32, 26..<32))
        #expect(try covered(-8, -8, 64, 64) == area(0..<32, 0..<32))
        #expect(try covered(40, 0, 8, 8).isEmpty)
        #expect(try covered(0, -10, 8, 8).isEmpty)
        // An odd-sized picture keeps its last column: chroma covers two columns at a time.
        #expect(try covered(30, 0, 8, 4, frame: (33, 9)) == area(30..<32, 0..<4, width: 33))
        // Odd positions and sizes round down to even.
        #expect(try covered(5, 3, 7, 5) == area(4..<10, 2..<6))
    }

    @Test func aWatermarkIsScaledToItsPlace() throws {
        // Left half opaque white, right half transparent, drawn at half size.
        var image = flat(16, 16, [255, 255, 255, 255])
        for y in 0..<16 { for x in 8..<16 { image.pixels[(y * 16 + x) * 4 + 3] = 0 } }
        var frame = grey(32, 32)
        try Watermark(image: image, x: 0, y: 0, width: 8, height: 8).blend(into: &frame)
        #expect((0..<8).allSatisfy { frame.y[$0 * 32 + 1] > 200 && frame.y[$0 * 32 + 6] == 126 })
        #expect(frame.y[9] == 126 && frame.y[8 * 32] == 126)
    }

    @Test func badWatermarkImagesAreErrors() {
        #expect(throws: ImageFileError.invalidPicture) {
            try Watermark(image: RGBAImage(width: 4, height: 4, pixels: [0, 0, 0]), x: 0, y: 0, width: 4, height: 4)
        }
        #expect(throws: ImageFileError.invalidPicture) {
            try Watermark(image: flat(4, 4, [0, 0, 0, 255]), x: 0, y: 0, width: 0, height: 4)
        }
    }

    @Test func watermarkOptionsPlaceTheImage() {
        let landscape = PixelRect(x: 10, y: 20, width: 100, height: 50)
        let portrait = PixelRect(x: 4, y: 4, width: 40, height: 80)
        let cover = WatermarkPosition.rectangles(landscape: landscape, portrait: portrait)
        #expect(Watermark.placement(frameWidth: 640, frameHeight: 360, imageWidth: 1, imageHeight: 1, position: cover)
            == landscape)
        #expect(Watermark.placement(frameWidth: 360, frameHeight: 640, imageWidth: 1, imageHeight: 1, position: cover)
            == portrait)
        // Clipped at the right and bottom edges.
        #expect(Watermark.placement(frameWidth: 100, frameHeight: 60, imageWidth: 1, imageHeight: 1, position: cover)
            == PixelRect(x: 10, y: 20, width: 90, height: 40))
        // WatermarkRatio: the height follows the image's aspect ratio (200 x 100 here).
        let ratio = WatermarkPosition.ratio(x: 0.5, y: 0.25, width: 0.25)
        #expect(Watermark.placement(frameWidth: 640, frameHeight: 360, imageWidth: 200, imageHeight: 100, position: ratio)
            == PixelRect(x: 320, y: 90, width: 160, height: 80))
        #expect(Watermark.placement(frameWidth: 640, frameHeight: 360, imageWidth: 100, imageHeight: 200,
                                    position: .ratio(x: 0.9, y: 0.9, width: 0.5))
            == PixelRect(x: 576, y: 324, width: 64, height: 36))
        #expect(Watermark.placement(frameWidth: 640, frameHeight: 360, imageWidth: 200, imageHeight: 100,
                                    position: .ratio(x: 0, y: 0, width: 0)) == nil)
        #expect(Watermark.placement(frameWidth: 640, frameHeight: 360, imageWidth: 200, imageHeight: 100,
                                    position: .ratio(x: .nan, y: 0, width: 0.5)) == nil)
        #expect(Watermark.clip(PixelRect(x: 700, y: 0, width: 10, height: 10), frameWidth: 640, frameHeight: 360) == nil)
        #expect(Watermark.clip(PixelRect(x: 3, y: -5, width: 10, height: 10), frameWidth: 640, frameHeight: 360)
            == PixelRect(x: 2, y: 0, width: 10, height: 4))
    }
}
