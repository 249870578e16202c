import CJpeg
import CPng
import CYuv

/// Why a picture could not be written or an image read.
public enum ImageFileError: Error, Equatable, Sendable {
    /// The path's extension names no format written here (.jpg, .jpeg, .png).
    case unsupportedFormat
    /// A file system call failed (in the engine, which reads and writes the
    /// files); the errno value.
    case io(Int32)
    /// The bytes are not a well-formed image: wrong signature, truncated or corrupt.
    case malformed
    /// The image is larger than `ImageFile.maxSide` on a side, or the file than `ImageFile.maxFileBytes`.
    case tooLarge
    /// The picture or image is empty, or its planes are shorter than its size says.
    case invalidPicture
    /// The encoder refused the picture; libturbojpeg's or libpng's message.
    case encoder(String)
}

/// An 8-bit RGBA image: R, G, B, A bytes per pixel, rows top down, no padding
/// (alpha straight, not premultiplied).
public struct RGBAImage: Equatable, Sendable {
    /// In pixels.
    public var width: Int
    /// In pixels.
    public var height: Int
    /// `width * height * 4` bytes.
    public var pixels: [UInt8]

    /// An image from its pixels (`width * height * 4` bytes, R, G, B, A).
    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Whether the size is positive and `pixels` holds exactly that many pixels.
    public var isValid: Bool { width > 0 && height > 0 && pixels.count == width * height * 4 }
}

/// Picture files for takeSnapshot (JPEG, PNG) and watermark images (PNG),
/// encoded and decoded in memory.
///
/// Encoding and decoding work on bytes (libturbojpeg, libpng's simplified
/// API, libyuv for colour); reading and writing the files is the engine's
/// (`ImageFile+Files.swift` there, through AgoraishIO). Pictures are BT.601
/// studio range, as everywhere in the media layer.
public enum ImageFile {
    /// The largest width or height of an image read.
    public static let maxSide = 4096
    /// The largest image file a reader accepts, in bytes.
    public static let maxFileBytes = 256 << 20

    /// The file formats written here.
    public enum Format: Equatable, Sendable {
        /// Baseline JPEG (JFIF), 4:2:0.
        case jpeg
        /// 8-bit RGB PNG.
        case png

        /// The format named by the extension of `path` (.jpg or .jpeg, .png,
        /// in any case); nil for any other name, or a name that is only an extension.
        public init?(path: String) {
            switch path.split(separator: "/").last?.split(separator: ".").dropFirst().last?.lowercased() {
            case "jpg", "jpeg": self = .jpeg
            case "png": self = .png
            default: return nil
            }
        }
    }

    /// `frame` as a file of `format`'s bytes; JPEG at quality 90.
    public static func encode(_ frame: I420Frame, as format: Format) throws(ImageFileError) -> [UInt8] {
        switch format {
        case .jpeg: try jpegData(frame)
        case .png: try pngData(frame)
        }
    }

    /// `frame` as a JFIF file's bytes: its own planes compressed with
    /// tjCompressFromYUVPlanes (TJSAMP_420), with no RGB step; samples are
    /// stretched from studio to the full range JFIF means.
    public static func jpegData(_ frame: I420Frame, quality: Int = 90) throws(ImageFileError) -> [UInt8] {
        try check(frame)
        guard let handle = tjInitCompress() else { throw .encoder(String(cString: tjGetErrorStr2(nil))) }
        defer { tjDestroy(handle) }
        // TurboJPEG reads a 4:2:0 luma plane of even width and height
        // (tjPlaneWidth, tjPlaneHeight), one more column and row than an odd picture has.
        let ys = (frame.width + 1) & ~1, yRows = (frame.height + 1) & ~1
        let y = padded(frame.y, width: frame.width, height: frame.height, stride: ys, rows: yRows, lumaToFull)
        let u = frame.u.map { chromaToFull[Int($0)] }
        let v = frame.v.map { chromaToFull[Int($0)] }
        let strides: [Int32] = [Int32(ys), Int32(frame.chromaWidth), Int32(frame.chromaWidth)]
        var jpeg: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        defer { tjFree(jpeg) }
        let rc = y.withUnsafeBufferPointer { py in
            u.withUnsafeBufferPointer { pu in
                v.withUnsafeBufferPointer { pv in
                    var planes: [UnsafePointer<UInt8>?] = [py.baseAddress, pu.baseAddress, pv.baseAddress]
                    return tjCompressFromYUVPlanes(handle, &planes, Int32(frame.width), strides, Int32(frame.height),
                                                   Int32(TJSAMP_420.rawValue), &jpeg, &size,
                                                   Int32(min(max(quality, 1), 100)), 0)
                }
            }
        }
        guard rc == 0, let jpeg else { throw .encoder(String(cString: tjGetErrorStr2(handle))) }
        return Array(UnsafeBufferPointer(start: jpeg, count: Int(size)))
    }

    /// `frame` as a PNG file's bytes: converted to R, G, B bytes (libyuv
    /// I420ToRAW; libyuv's "RGB24" would be B, G, R) and compressed with
    /// png_image_write_to_memory.
    public static func pngData(_ frame: I420Frame) throws(ImageFileError) -> [UInt8] {
        try pngData(frame, capacity: nil)
    }

    /// `pngData(_:)` starting from an output buffer of `capacity` bytes (nil: a
    /// little over the raw size, deflate's worst case) and growing it once if libpng asks.
    static func pngData(_ frame: I420Frame, capacity: Int?) throws(ImageFileError) -> [UInt8] {
        try check(frame)
        let w = frame.width, h = frame.height, cw = Int32(frame.chromaWidth)
        var rgb = [UInt8](repeating: 0, count: w * h * 3)
        _ = rgb.withUnsafeMutableBufferPointer { out in
            I420ToRAW(frame.y, Int32(w), frame.u, cw, frame.v, cw, out.baseAddress, Int32(w * 3), Int32(w), Int32(h))
        }
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = png_uint_32(w)
        image.height = png_uint_32(h)
        image.format = png_uint_32(PNG_FORMAT_RGB)
        var capacity = capacity ?? rgb.count + h + rgb.count / 100 + 4096
        for _ in 0..<2 {
            var out = [UInt8](repeating: 0, count: capacity)
            var written = png_alloc_size_t(capacity)
            let ok = out.withUnsafeMutableBytes { dst in
                png_image_write_to_memory(&image, dst.baseAddress, &written, 0, rgb, 0, nil)
            }
            png_image_free(&image)
            if ok != 0 { return Array(out.prefix(Int(written))) }
            guard Int(written) > capacity else { throw .encoder(message(of: image)) }
            capacity = Int(written)
            image.warning_or_error = 0
        }
        throw .encoder(message(of: image))
    }

    /// A PNG file's bytes decoded to 8-bit RGBA (png_image_begin_read_from_memory,
    /// png_image_finish_read with PNG_FORMAT_RGBA). Bad input gives an error, never a trap.
    public static func decodePNG(_ bytes: [UInt8]) throws(ImageFileError) -> RGBAImage {
        // libpng reads from `bytes` until png_image_finish_read returns, so both calls share one borrow.
        let result = bytes.withUnsafeBufferPointer { data -> Result<RGBAImage, ImageFileError> in
            guard data.count >= 8, png_sig_cmp(data.baseAddress, 0, 8) == 0 else { return .failure(.malformed) }
            var image = png_image()
            image.version = png_uint_32(PNG_IMAGE_VERSION)
            defer { png_image_free(&image) }
            guard png_image_begin_read_from_memory(&image, data.baseAddress, data.count) != 0 else {
                return .failure(.malformed)
            }
            guard image.width <= maxSide, image.height <= maxSide else { return .failure(.tooLarge) }
            image.format = png_uint_32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)  // PNG_FORMAT_RGBA
            let width = Int(image.width), height = Int(image.height)
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            let finished = pixels.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
            guard finished != 0 else { return .failure(.malformed) }
            return .success(RGBAImage(width: width, height: height, pixels: pixels))
        }
        return try result.get()
    }

    /// libpng's message for the last failure on `image`.
    private static func message(of image: png_image) -> String {
        withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// Throws unless `frame` is non-empty and its planes hold its size.
    static func check(_ frame: I420Frame) throws(ImageFileError) {
        let chroma = frame.chromaWidth * frame.chromaHeight
        guard frame.width > 0, frame.height > 0, frame.width <= 65_500, frame.height <= 65_500,
              frame.y.count >= frame.width * frame.height, frame.u.count >= chroma, frame.v.count >= chroma
        else { throw .invalidPicture }
    }

    /// A plane mapped through `table` into `rows` rows of `stride` bytes, its
    /// last sample of each row and its last row repeated to fill them.
    static func padded(_ plane: [UInt8], width: Int, height: Int, stride: Int, rows: Int,
                       _ table: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: stride * rows)
        for row in 0..<rows {
            let s = min(row, height - 1) * width, d = row * stride
            for x in 0..<stride { out[d + x] = table[Int(plane[s + min(x, width - 1)])] }
        }
        return out
    }

    /// BT.601 studio-range luma (16-235) to full range (0-255).
    static let lumaToFull: [UInt8] = (0..<256).map { UInt8(clamping: Int(((Double($0) - 16) * 255 / 219).rounded())) }
    /// BT.601 studio-range chroma (16-240 around 128) to full range.
    static let chromaToFull: [UInt8] = (0..<256).map {
        UInt8(clamping: Int(((Double($0) - 128) * 255 / 224 + 128).rounded()))
    }
}

/// A rectangle in a picture, in pixels from its top-left corner.
public struct PixelRect: Equatable, Sendable {
    /// Left edge, in pixels.
    public var x: Int
    /// Top edge, in pixels.
    public var y: Int
    /// In pixels.
    public var width: Int
    /// In pixels.
    public var height: Int

    /// A rectangle from its top-left corner and size.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// Where Agora's WatermarkOptions put the watermark, by its WATERMARK_FIT_MODE.
public enum WatermarkPosition: Equatable, Sendable {
    /// FIT_MODE_COVER_POSITION (0): the image stretched over
    /// positionInLandscapeMode on pictures at least as wide as tall, else over
    /// positionInPortraitMode.
    case rectangles(landscape: PixelRect, portrait: PixelRect)
    /// FIT_MODE_USE_IMAGE_RATIO (1): WatermarkRatio. The top-left corner at
    /// fractions (0-1) of the picture's width and height, the width a fraction
    /// of the picture's width, the height kept in the image's aspect ratio.
    case ratio(x: Double, y: Double, width: Double)
}

/// A watermark image ready to blend into pictures (addVideoWatermark): scaled
/// once to its place's size and converted once to I420 planes plus an alpha
/// plane. Position and size are even, so its chroma lines up with the picture's.
public struct Watermark: Sendable {
    /// Left edge in the picture, in pixels (even; may be negative or past the picture).
    public let x: Int
    /// Top edge in the picture, in pixels (even).
    public let y: Int
    /// In pixels (even, at least 2).
    public let width: Int
    /// In pixels (even, at least 2).
    public let height: Int
    /// The image's planes at `width` x `height`: luma and alpha full size, chroma half.
    let planeY: [UInt8], planeU: [UInt8], planeV: [UInt8], alpha: [UInt8]

    /// The image scaled to `width` x `height` (libyuv ARGBScale, box filter,
    /// on premultiplied pixels so transparent colours do not bleed into edges)
    /// and converted (ABGRToI420, ARGBExtractAlpha) for a place whose corner is
    /// at (`x`, `y`). Position and size are rounded down to even numbers, the size to at least 2.
    public init(image: RGBAImage, x: Int, y: Int, width: Int, height: Int) throws(ImageFileError) {
        guard image.isValid, width > 0, height > 0 else { throw .invalidPicture }
        guard image.width <= ImageFile.maxSide, image.height <= ImageFile.maxSide,
              width <= ImageFile.maxSide, height <= ImageFile.maxSide else { throw .tooLarge }
        let w = max(2, width & ~1), h = max(2, height & ~1)
        self.x = x & ~1
        self.y = y & ~1
        self.width = w
        self.height = h
        // libyuv names packed formats by a little-endian word: ARGB is B, G, R, A in
        // memory, ABGR is R, G, B, A. Attenuate, scale and alpha extraction treat
        // bytes 0-2 alike and byte 3 as alpha, so they apply to R, G, B, A unchanged.
        var premultiplied = [UInt8](repeating: 0, count: image.pixels.count)
        _ = premultiplied.withUnsafeMutableBufferPointer {
            ARGBAttenuate(image.pixels, Int32(image.width * 4), $0.baseAddress, Int32(image.width * 4),
                          Int32(image.width), Int32(image.height))
        }
        var scaled = [UInt8](repeating: 0, count: w * h * 4)
        _ = scaled.withUnsafeMutableBufferPointer {
            ARGBScale(premultiplied, Int32(image.width * 4), Int32(image.width), Int32(image.height),
                      $0.baseAddress, Int32(w * 4), Int32(w), Int32(h), kFilterBox)
        }
        _ = scaled.withUnsafeMutableBufferPointer {
            ARGBUnattenuate($0.baseAddress, Int32(w * 4), $0.baseAddress, Int32(w * 4), Int32(w), Int32(h))
        }
        var py = [UInt8](repeating: 0, count: w * h), pa = py
        var pu = [UInt8](repeating: 0, count: (w / 2) * (h / 2)), pv = pu
        _ = py.withUnsafeMutableBufferPointer { dy in
            pu.withUnsafeMutableBufferPointer { du in
                pv.withUnsafeMutableBufferPointer { dv in
                    ABGRToI420(scaled, Int32(w * 4), dy.baseAddress, Int32(w), du.baseAddress, Int32(w / 2),
                               dv.baseAddress, Int32(w / 2), Int32(w), Int32(h))
                }
            }
        }
        _ = pa.withUnsafeMutableBufferPointer {
            ARGBExtractAlpha(scaled, Int32(w * 4), $0.baseAddress, Int32(w), Int32(w), Int32(h))
        }
        (planeY, planeU, planeV, alpha) = (py, pu, pv, pa)
    }

    /// A watermark for the place `rect` (see `init(image:x:y:width:height:)`).
    public init(image: RGBAImage, in rect: PixelRect) throws(ImageFileError) {
        try self.init(image: image, x: rect.x, y: rect.y, width: rect.width, height: rect.height)
    }

    /// Alpha-blends the watermark into `frame` where they overlap (libyuv
    /// I420Blend): alpha 255 replaces the picture, 0 keeps it. The overlap is
    /// cut to even sides, so on a picture of odd size the last row or column
    /// is left alone. A frame whose planes are shorter than its size is left unchanged.
    public func blend(into frame: inout I420Frame) {
        let cw = frame.chromaWidth, chroma = cw * frame.chromaHeight
        guard frame.y.count >= frame.width * frame.height, frame.u.count >= chroma, frame.v.count >= chroma,
              let r = Watermark.clip(PixelRect(x: x, y: y, width: width, height: height),
                                     frameWidth: frame.width, frameHeight: frame.height)
        else { return }
        // Both corners are even, so the offsets into the chroma planes are exact halves.
        let sx = r.x - x, sy = r.y - y
        let sOff = sy * width + sx, sCOff = (sy / 2) * (width / 2) + sx / 2
        let dOff = r.y * frame.width + r.x, dCOff = (r.y / 2) * cw + r.x / 2
        let fw = Int32(frame.width), fcw = Int32(cw), ww = Int32(width), wcw = Int32(width / 2)
        planeY.withUnsafeBufferPointer { wy in
            planeU.withUnsafeBufferPointer { wu in
                planeV.withUnsafeBufferPointer { wv in
                    alpha.withUnsafeBufferPointer { wa in
                        frame.y.withUnsafeMutableBufferPointer { fy in
                            frame.u.withUnsafeMutableBufferPointer { fu in
                                frame.v.withUnsafeMutableBufferPointer { fv in
                                    let (dy, du, dv) = (fy.baseAddress! + dOff, fu.baseAddress! + dCOff,
                                                        fv.baseAddress! + dCOff)
                                    // In place: the picture is both the background and the destination.
                                    _ = I420Blend(wy.baseAddress! + sOff, ww, wu.baseAddress! + sCOff, wcw,
                                                  wv.baseAddress! + sCOff, wcw, dy, fw, du, fcw, dv, fcw,
                                                  wa.baseAddress! + sOff, ww, dy, fw, du, fcw, dv, fcw,
                                                  Int32(r.width), Int32(r.height))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The part of `rect` inside a `frameWidth` x `frameHeight` picture, its
    /// corner rounded down and its sides cut to even numbers; nil when nothing is left.
    public static func clip(_ rect: PixelRect, frameWidth: Int, frameHeight: Int) -> PixelRect? {
        guard rect.width > 0, rect.height > 0 else { return nil }
        let x0 = max(rect.x & ~1, 0), y0 = max(rect.y & ~1, 0)
        let x1 = min(rect.x + rect.width, frameWidth), y1 = min(rect.y + rect.height, frameHeight)
        let w = (x1 - x0) & ~1, h = (y1 - y0) & ~1
        guard w > 0, h > 0 else { return nil }
        return PixelRect(x: x0, y: y0, width: w, height: h)
    }

    /// Where Agora's WatermarkOptions place an `imageWidth` x `imageHeight`
    /// image on a `frameWidth` x `frameHeight` picture, clipped to the picture
    /// (see `clip`); nil when the place is empty (a zero size or ratio) or outside.
    public static func placement(frameWidth: Int, frameHeight: Int, imageWidth: Int, imageHeight: Int,
                                 position: WatermarkPosition) -> PixelRect? {
        guard frameWidth > 0, frameHeight > 0 else { return nil }
        let rect: PixelRect
        switch position {
        case let .rectangles(landscape, portrait):
            rect = frameWidth >= frameHeight ? landscape : portrait
        case let .ratio(x, y, width):
            guard imageWidth > 0, imageHeight > 0, x.isFinite, y.isFinite, width.isFinite else { return nil }
            let w = Int(min(max(width, 0), 1) * Double(frameWidth))
            rect = PixelRect(x: Int(min(max(x, 0), 1) * Double(frameWidth)),
                             y: Int(min(max(y, 0), 1) * Double(frameHeight)),
                             width: w, height: w * imageHeight / imageWidth)
        }
        return clip(rect, frameWidth: frameWidth, frameHeight: frameHeight)
    }
}
