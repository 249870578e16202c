import AgoraishMedia
import Testing

/// An I420 picture's alpha plane goes through every transform with its picture.
@Suite struct AlphaPlaneTests {
    /// A 32 x 16 picture whose left half is opaque and right half transparent.
    private func halfOpaque() -> I420Frame {
        var f = I420Frame(width: 32, height: 16)
        f.alpha = (0..<(32 * 16)).map { $0 % 32 < 16 ? 255 : 0 }
        return f
    }

    @Test func scalingKeepsTheHalves() throws {
        let out = PixelConversion.scaled(halfOpaque(), width: 16, height: 8)
        let a = try #require(out.alpha)
        #expect(a.count == 16 * 8)
        #expect(a[0] == 255 && a[15] == 0)
    }

    @Test func mirroringSwapsTheHalves() throws {
        let a = try #require(PixelConversion.mirrored(halfOpaque()).alpha)
        #expect(a[0] == 0 && a[31] == 255)
    }

    @Test func aQuarterTurnMovesTheOpaqueHalfToTheTop() throws {
        let out = try #require(PixelConversion.rotated(halfOpaque(), degrees: 90))
        let a = try #require(out.alpha)
        #expect(out.width == 16 && out.height == 32 && a.count == 16 * 32)
        // Clockwise: the left column becomes the top row.
        #expect(a[0] == 255 && a[31 * 16] == 0)
    }

    @Test func fittingAddsTransparentBars() throws {
        let out = PixelConversion.rendered(halfOpaque(), mode: 2, width: 32, height: 32)
        let a = try #require(out.alpha)
        #expect(a.count == 32 * 32)
        #expect(a[0] == 0)                       // a bar above
        #expect(a[16 * 32] == 255)                // the picture's opaque half
    }

    @Test func aPushedAlphaPlaneIsCopied() throws {
        let y = [UInt8](repeating: 100, count: 16 * 16), u = [UInt8](repeating: 128, count: 64)
        let alpha = [UInt8](repeating: 7, count: 20 * 16)   // stride 20
        let f = try y.withUnsafeBytes { py in
            try u.withUnsafeBytes { pu in
                try alpha.withUnsafeBytes { pa in
                    var s = PictureSource(format: .i420, width: 16, height: 16, plane0: py.baseAddress!, stride0: 16,
                                          plane1: pu.baseAddress!, stride1: 8, plane2: pu.baseAddress!, stride2: 8)
                    s.alpha = pa.baseAddress
                    s.alphaStride = 20
                    return try #require(PixelConversion.i420(s))
                }
            }
        }
        #expect(f.alpha == [UInt8](repeating: 7, count: 256))
    }
}
