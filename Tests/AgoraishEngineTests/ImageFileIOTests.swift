import AgoraishEngine
import AgoraishIO
import AgoraishMedia
import AgoraishTesting
import Glibc
import Testing

/// The names in `directory`, without "." and "..".
private func entries(_ directory: String) -> [String] {
    guard let dir = opendir(directory) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}

/// Removes a directory made by `makeTemporaryDirectory` and the files in it.
private func removeScratch(_ directory: String) {
    for name in entries(directory) { unlink(directory + "/" + name) }
    rmdir(directory)
}

private func readBytes(_ path: String) throws -> [UInt8] { try FileIO.readAll(path, limit: 1 << 30) }

private func writeBytes(_ bytes: [UInt8], _ path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    precondition(fd >= 0)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

/// A picture in four flat quadrants: grey, red, green, blue (BT.601 studio range).
private func quadrants(width: Int, height: Int) -> I420Frame {
    var f = I420Frame(width: width, height: height)
    let colours: [(y: UInt8, u: UInt8, v: UInt8)] = [(126, 128, 128), (82, 90, 240), (145, 54, 34), (41, 240, 110)]
    func quadrant(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> Int { (x < w / 2 ? 0 : 1) + (y < h / 2 ? 0 : 2) }
    for y in 0..<height { for x in 0..<width { f.y[y * width + x] = colours[quadrant(x, y, width, height)].y } }
    for y in 0..<f.chromaHeight {
        for x in 0..<f.chromaWidth {
            let c = colours[quadrant(x * 2, y * 2, width, height)]
            f.u[y * f.chromaWidth + x] = c.u
            f.v[y * f.chromaWidth + x] = c.v
        }
    }
    return f
}

/// A flat grey (Y 126) picture.
private func grey(_ width: Int, _ height: Int) -> I420Frame {
    var f = I420Frame(width: width, height: height)
    for i in f.y.indices { f.y[i] = 126 }
    return f
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

/// Picture files as takeSnapshot writes them and addVideoWatermark reads them.
@Suite struct ImageFileIOTests {
    @Test func aJpegFileHoldsExactlyTheEncodedPicture() throws {
        let dir = makeTemporaryDirectory("image")
        defer { removeScratch(dir) }
        let picture = quadrants(width: 320, height: 240)
        try ImageFile.write(picture, to: dir + "/snap.jpg")
        #expect(entries(dir) == ["snap.jpg"])
        #expect(try readBytes(dir + "/snap.jpg") == ImageFile.jpegData(picture))
    }

    @Test func pngReadsBackThePicturesColours() throws {
        let dir = makeTemporaryDirectory("image")
        defer { removeScratch(dir) }
        for (w, h) in [(64, 48), (33, 17)] {
            let path = dir + "/snap-\(w).PNG"
            try ImageFile.write(quadrants(width: w, height: h), to: path)
            let image = try ImageFile.readPNG(path: path)
            #expect(image.width == w && image.height == h && image.pixels.count == w * h * 4)
            func pixel(_ x: Int, _ y: Int) -> [Int] { (0..<4).map { Int(image.pixels[(y * w + x) * 4 + $0]) } }
            let expected: [(x: Int, y: Int, rgba: [Int])] = [
                (w / 4, h / 4, [128, 128, 128, 255]), (3 * w / 4, h / 4, [255, 0, 0, 255]),
                (w / 4, 3 * h / 4, [0, 255, 0, 255]), (3 * w / 4, 3 * h / 4, [0, 0, 255, 255]),
            ]
            for e in expected {
                let got = pixel(e.x, e.y)
                #expect(zip(got, e.rgba).allSatisfy { abs($0 - $1) <= 3 }, "(\(e.x), \(e.y)): \(got) != \(e.rgba)")
            }
        }
        #expect(entries(dir) == ["snap-33.PNG", "snap-64.PNG"])
    }

    @Test func theExtensionChoosesTheFormat() throws {
        let dir = makeTemporaryDirectory("image")
        defer { removeScratch(dir) }
        let picture = quadrants(width: 128, height: 96)
        try ImageFile.write(picture, to: dir + "/a.JPEG")
        try ImageFile.write(picture, to: dir + "/b.png")
        #expect(try readBytes(dir + "/a.JPEG").prefix(2) == [0xFF, 0xD8])
        #expect(try readBytes(dir + "/b.png").prefix(4) == [0x89, 0x50, 0x4E, 0x47])
        for name in ["c.bmp", "noextension", ".png", "d.png.txt"] {
            #expect(throws: ImageFileError.unsupportedFormat) { try ImageFile.write(picture, to: dir + "/" + name) }
        }
        #expect(throws: ImageFileError.io(ENOENT)) { try ImageFile.write(picture, to: dir + "/missing/e.jpg") }
        #expect(throws: ImageFileError.invalidPicture) { try ImageFile.writeJPEG(I420Frame(width: 0, height: 0), to: dir + "/f.jpg") }
        var short = picture
        short.v.removeLast()
        #expect(throws: ImageFileError.invalidPicture) { try ImageFile.writePNG(short, to: dir + "/g.png") }
        #expect(entries(dir) == ["a.JPEG", "b.png"])
    }

    @Test func anExistingFileIsReplacedWhole() throws {
        let dir = makeTemporaryDirectory("image")
        defer { removeScratch(dir) }
        writeBytes([UInt8](repeating: 7, count: 1 << 20), dir + "/s.png")
        try ImageFile.writePNG(grey(16, 16), to: dir + "/s.png")
        #expect(try ImageFile.readPNG(path: dir + "/s.png").width == 16)
        #expect(entries(dir) == ["s.png"])
    }

    @Test func brokenPngFilesAreErrors() throws {
        let dir = makeTemporaryDirectory("image")
        defer { removeScratch(dir) }
        let good = try ImageFile.pngData(quadrants(width: 128, height: 96))
        var random = Bytes(state: 0x9E37_79B9_7F4A_7C15)
        var noise = (0..<4096).map { _ in random.next() }
        let cases: [(String, [UInt8])] = [
            ("empty", []), ("signature only", Array(good.prefix(8))), ("truncated", Array(good.prefix(good.count / 2))),
            ("random", noise),
            ("a JPEG", try ImageFile.jpegData(quadrants(width: 128, height: 96))),
        ]
        noise.replaceSubrange(0..<8, with: good.prefix(8))
        for (name, bytes) in cases + [("random after a signature", noise)] {
            writeBytes(bytes, dir + "/bad.png")
            #expect(throws: ImageFileError.malformed, "\(name)") { try ImageFile.readPNG(path: dir + "/bad.png") }
        }
        #expect(throws: ImageFileError.io(ENOENT)) { try ImageFile.readPNG(path: dir + "/nothing.png") }
        #expect(throws: ImageFileError.io(EISDIR)) { try ImageFile.readPNG(path: dir) }
    }

    @Test func aFileOverTheReadersLimitIsRefused() throws {
        let dir = makeTemporaryDirectory("image")
        defer { removeScratch(dir) }
        writeBytes([UInt8](repeating: 1, count: 100), dir + "/f")
        #expect(try FileIO.readAll(dir + "/f", limit: 100).count == 100)
        #expect(throws: FileIOError.tooLarge) { try FileIO.readAll(dir + "/f", limit: 99) }
    }
}
