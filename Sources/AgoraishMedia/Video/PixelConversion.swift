import CYuv

/// Pixel formats of pictures pushed by a host (Agora's VIDEO_PIXEL_FORMAT numbers).
public enum VideoPixelFormat: Int32, Sendable, CaseIterable {
    /// Planar Y, U, V (U and V at half resolution).
    case i420 = 1
    /// Packed 8-bit B, G, R, A in memory order.
    case bgra = 2
    /// Planar Y, then interleaved V and U at half resolution.
    case nv21 = 3
    /// Packed 8-bit R, G, B, A in memory order.
    case rgba = 4
    /// Planar Y, then interleaved U and V at half resolution.
    case nv12 = 8

    /// Bytes per pixel of the first plane.
    public var firstPlaneBytesPerPixel: Int { self == .bgra || self == .rgba ? 4 : 1 }
}

/// A picture as the host hands it over: the planes it uses and their strides
/// (packed formats use `plane0` only; NV12 and NV21 use `plane0` and `plane1`).
public struct PictureSource {
    public var format: VideoPixelFormat
    public var width: Int
    public var height: Int
    public var plane0: UnsafeRawPointer
    public var stride0: Int
    public var plane1: UnsafeRawPointer?
    public var stride1: Int
    public var plane2: UnsafeRawPointer?
    public var stride2: Int
    /// An alpha plane (width x height) the picture carries, and its stride; nil: opaque.
    public var alpha: UnsafeRawPointer? = nil
    public var alphaStride = 0

    public init(format: VideoPixelFormat, width: Int, height: Int, plane0: UnsafeRawPointer, stride0: Int,
                plane1: UnsafeRawPointer? = nil, stride1: Int = 0, plane2: UnsafeRawPointer? = nil, stride2: Int = 0) {
        self.format = format
        self.width = width
        self.height = height
        self.plane0 = plane0
        self.stride0 = stride0
        self.plane1 = plane1
        self.stride1 = stride1
        self.plane2 = plane2
        self.stride2 = stride2
    }

    /// Whether the planes the format needs are there with strides that fit the width.
    public var isComplete: Bool {
        guard width >= 2, height >= 2, width % 2 == 0, height % 2 == 0,
              stride0 >= width * format.firstPlaneBytesPerPixel else { return false }
        switch format {
        case .i420: return plane1 != nil && plane2 != nil && stride1 >= width / 2 && stride2 >= width / 2
        case .nv12, .nv21: return plane1 != nil && stride1 >= width
        case .bgra, .rgba: return true
        }
    }
}

/// Conversions and scaling of pictures, through libyuv.
public enum PixelConversion {
    /// The picture as tightly packed I420; nil when libyuv refuses it.
    public static func i420(_ s: PictureSource) -> I420Frame? {
        guard s.isComplete else { return nil }
        var f = I420Frame(width: s.width, height: s.height)
        let w = Int32(s.width), h = Int32(s.height), cw = Int32(f.chromaWidth)
        let p0 = s.plane0.assumingMemoryBound(to: UInt8.self)
        let rc: Int32 = f.y.withUnsafeMutableBufferPointer { y in
            f.u.withUnsafeMutableBufferPointer { u in
                f.v.withUnsafeMutableBufferPointer { v in
                    let (dy, du, dv) = (y.baseAddress!, u.baseAddress!, v.baseAddress!)
                    switch s.format {
                    case .i420:
                        return I420Copy(p0, Int32(s.stride0), s.plane1!.assumingMemoryBound(to: UInt8.self), Int32(s.stride1),
                                        s.plane2!.assumingMemoryBound(to: UInt8.self), Int32(s.stride2),
                                        dy, w, du, cw, dv, cw, w, h)
                    case .nv12:
                        return NV12ToI420(p0, Int32(s.stride0), s.plane1!.assumingMemoryBound(to: UInt8.self), Int32(s.stride1),
                                          dy, w, du, cw, dv, cw, w, h)
                    case .nv21:
                        return NV21ToI420(p0, Int32(s.stride0), s.plane1!.assumingMemoryBound(to: UInt8.self), Int32(s.stride1),
                                          dy, w, du, cw, dv, cw, w, h)
                    case .bgra:
                        // libyuv names packed formats by their order in a little-endian word: B,G,R,A bytes are "ARGB".
                        return ARGBToI420(p0, Int32(s.stride0), dy, w, du, cw, dv, cw, w, h)
                    case .rgba:
                        // R,G,B,A bytes are libyuv's "ABGR".
                        return ABGRToI420(p0, Int32(s.stride0), dy, w, du, cw, dv, cw, w, h)
                    }
                }
            }
        }
        guard rc == 0 else { return nil }
        if let a = s.alpha, s.alphaStride >= s.width {
            var plane = [UInt8](repeating: 255, count: s.width * s.height)
            plane.withUnsafeMutableBufferPointer { d in
                for row in 0..<s.height {
                    (d.baseAddress! + row * s.width).update(from: a.assumingMemoryBound(to: UInt8.self) + row * s.alphaStride,
                                                            count: s.width)
                }
            }
            f.alpha = plane
        }
        return f
    }

    /// `f`'s alpha plane as the luma of a picture of its own, for a transform
    /// to act on; nil when `f` has none.
    private static func alphaPicture(_ f: I420Frame) -> I420Frame? {
        guard let a = f.alpha, a.count == f.width * f.height else { return nil }
        var p = I420Frame(width: f.width, height: f.height)
        p.y = a
        return p
    }

    /// The picture scaled (box filter) to `width` x `height`.
    public static func scaled(_ f: I420Frame, width: Int, height: Int) -> I420Frame {
        guard f.width != width || f.height != height else { return f }
        var out = I420Frame(width: width, height: height)
        let cw = Int32(f.chromaWidth), ocw = Int32(out.chromaWidth)
        f.y.withUnsafeBufferPointer { sy in
            f.u.withUnsafeBufferPointer { su in
                f.v.withUnsafeBufferPointer { sv in
                    out.y.withUnsafeMutableBufferPointer { dy in
                        out.u.withUnsafeMutableBufferPointer { du in
                            out.v.withUnsafeMutableBufferPointer { dv in
                                _ = I420Scale(sy.baseAddress, Int32(f.width), su.baseAddress, cw, sv.baseAddress, cw,
                                              Int32(f.width), Int32(f.height),
                                              dy.baseAddress, Int32(width), du.baseAddress, ocw, dv.baseAddress, ocw,
                                              Int32(width), Int32(height), kFilterBox)
                            }
                        }
                    }
                }
            }
        }
        out.alpha = alphaPicture(f).map { scaled($0, width: width, height: height).y }
        return out
    }

    /// The size a picture is sent at under a configured maximum: unchanged when
    /// it fits, else scaled down to fit inside with its aspect ratio kept (even sides).
    public static func fitting(width: Int, height: Int, within maxWidth: Int, _ maxHeight: Int) -> (Int, Int) {
        guard width > maxWidth || height > maxHeight else { return (width, height) }
        let scale = min(Double(maxWidth) / Double(width), Double(maxHeight) / Double(height))
        let w = max(16, Int((Double(width) * scale) / 2) * 2)
        let h = max(16, Int((Double(height) * scale) / 2) * 2)
        return (w, h)
    }

    /// The picture turned clockwise by 0, 90, 180 or 270 degrees (libyuv
    /// I420Rotate); nil for any other angle.
    public static func rotated(_ f: I420Frame, degrees: Int) -> I420Frame? {
        let mode: RotationMode
        switch degrees {
        case 0: return f
        case 90: mode = kRotate90
        case 180: mode = kRotate180
        case 270: mode = kRotate270
        default: return nil
        }
        let quarter = degrees != 180
        var out = I420Frame(width: quarter ? f.height : f.width, height: quarter ? f.width : f.height)
        let ocw = Int32(out.chromaWidth), cw = Int32(f.chromaWidth)
        let rc = f.y.withUnsafeBufferPointer { sy in
            f.u.withUnsafeBufferPointer { su in
                f.v.withUnsafeBufferPointer { sv in
                    out.y.withUnsafeMutableBufferPointer { dy in
                        out.u.withUnsafeMutableBufferPointer { du in
                            out.v.withUnsafeMutableBufferPointer { dv in
                                I420Rotate(sy.baseAddress, Int32(f.width), su.baseAddress, cw, sv.baseAddress, cw,
                                           dy.baseAddress, Int32(out.width), du.baseAddress, ocw, dv.baseAddress, ocw,
                                           Int32(f.width), Int32(f.height), mode)
                            }
                        }
                    }
                }
            }
        }
        guard rc == 0 else { return nil }
        out.alpha = alphaPicture(f).flatMap { rotated($0, degrees: degrees)?.y }
        return out
    }

    /// The picture mirrored left to right (libyuv I420Mirror).
    public static func mirrored(_ f: I420Frame) -> I420Frame {
        var out = I420Frame(width: f.width, height: f.height)
        let cw = Int32(f.chromaWidth)
        f.y.withUnsafeBufferPointer { sy in
            f.u.withUnsafeBufferPointer { su in
                f.v.withUnsafeBufferPointer { sv in
                    out.y.withUnsafeMutableBufferPointer { dy in
                        out.u.withUnsafeMutableBufferPointer { du in
                            out.v.withUnsafeMutableBufferPointer { dv in
                                _ = I420Mirror(sy.baseAddress, Int32(f.width), su.baseAddress, cw, sv.baseAddress, cw,
                                               dy.baseAddress, Int32(f.width), du.baseAddress, cw, dv.baseAddress, cw,
                                               Int32(f.width), Int32(f.height))
                            }
                        }
                    }
                }
            }
        }
        out.alpha = alphaPicture(f).map { mirrored($0).y }
        return out
    }

    /// The part of a picture kept when it is cropped to the aspect ratio of
    /// `width` x `height` around its centre: (x, y, w, h), even.
    static func centreCrop(of f: I420Frame, toAspectOf width: Int, _ height: Int) -> (Int, Int, Int, Int) {
        var w = f.width, h = f.height
        if f.width * height > width * f.height {
            w = min(f.width, max(2, (f.height * width / height) & ~1))
        } else {
            h = min(f.height, max(2, (f.width * height / width) & ~1))
        }
        return (((f.width - w) / 2) & ~1, ((f.height - h) / 2) & ~1, w, h)
    }

    /// The picture fitted into a `width` x `height` view in one of Agora's
    /// render modes: HIDDEN (1: scaled to cover the view, the overflow cropped
    /// evenly), FIT (2: scaled to fit inside, black bars) or FILL (4:
    /// stretched). Other values act as HIDDEN.
    public static func rendered(_ f: I420Frame, mode: Int, width: Int, height: Int) -> I420Frame {
        guard width > 0, height > 0, f.width != width || f.height != height else { return f }
        switch mode {
        case 4:
            return scaled(f, width: width, height: height)
        case 2:
            var out = I420Frame(width: width, height: height)
            for i in out.y.indices { out.y[i] = 16 }
            for i in out.u.indices { out.u[i] = 128; out.v[i] = 128 }
            let scale = min(Double(width) / Double(f.width), Double(height) / Double(f.height))
            let w = min(width, max(2, Int(Double(f.width) * scale) & ~1))
            let h = min(height, max(2, Int(Double(f.height) * scale) & ~1))
            let inner = scaled(f, width: w, height: h)
            let x0 = ((width - w) / 2) & ~1, y0 = ((height - h) / 2) & ~1
            for row in 0..<h {
                out.y.replaceSubrange((y0 + row) * width + x0 ..< (y0 + row) * width + x0 + w,
                                      with: inner.y[row * w ..< row * w + w])
            }
            let ocw = out.chromaWidth, icw = inner.chromaWidth
            for row in 0..<inner.chromaHeight {
                let d = (y0 / 2 + row) * ocw + x0 / 2
                out.u.replaceSubrange(d ..< d + icw, with: inner.u[row * icw ..< row * icw + icw])
                out.v.replaceSubrange(d ..< d + icw, with: inner.v[row * icw ..< row * icw + icw])
            }
            if let innerAlpha = inner.alpha {
                // The bars are transparent.
                var a = [UInt8](repeating: 0, count: width * height)
                for row in 0..<h {
                    a.replaceSubrange((y0 + row) * width + x0 ..< (y0 + row) * width + x0 + w,
                                      with: innerAlpha[row * w ..< row * w + w])
                }
                out.alpha = a
            }
            return out
        default:
            let (x, y, w, h) = centreCrop(of: f, toAspectOf: width, height)
            var out = I420Frame(width: width, height: height)
            let cw = f.chromaWidth, ocw = Int32(out.chromaWidth)
            f.y.withUnsafeBufferPointer { sy in
                f.u.withUnsafeBufferPointer { su in
                    f.v.withUnsafeBufferPointer { sv in
                        out.y.withUnsafeMutableBufferPointer { dy in
                            out.u.withUnsafeMutableBufferPointer { du in
                                out.v.withUnsafeMutableBufferPointer { dv in
                                    _ = I420Scale(sy.baseAddress! + y * f.width + x, Int32(f.width),
                                                  su.baseAddress! + (y / 2) * cw + x / 2, Int32(cw),
                                                  sv.baseAddress! + (y / 2) * cw + x / 2, Int32(cw),
                                                  Int32(w), Int32(h),
                                                  dy.baseAddress, Int32(width), du.baseAddress, ocw, dv.baseAddress, ocw,
                                                  Int32(width), Int32(height), kFilterBox)
                                }
                            }
                        }
                    }
                }
            }
            out.alpha = alphaPicture(f).map { rendered($0, mode: mode, width: width, height: height).y }
            return out
        }
    }

    /// The centre of the picture cropped to the aspect ratio of `width` x `height`.
    public static func cropped(_ f: I420Frame, toAspectOf width: Int, _ height: Int) -> I420Frame {
        let (x, y, w, h) = centreCrop(of: f, toAspectOf: width, height)
        guard w != f.width || h != f.height else { return f }
        var out = I420Frame(width: w, height: h)
        let cw = f.chromaWidth, ocw = Int32(out.chromaWidth)
        f.y.withUnsafeBufferPointer { sy in
            f.u.withUnsafeBufferPointer { su in
                f.v.withUnsafeBufferPointer { sv in
                    out.y.withUnsafeMutableBufferPointer { dy in
                        out.u.withUnsafeMutableBufferPointer { du in
                            out.v.withUnsafeMutableBufferPointer { dv in
                                _ = I420Copy(sy.baseAddress! + y * f.width + x, Int32(f.width),
                                             su.baseAddress! + (y / 2) * cw + x / 2, Int32(cw),
                                             sv.baseAddress! + (y / 2) * cw + x / 2, Int32(cw),
                                             dy.baseAddress, Int32(w), du.baseAddress, ocw, dv.baseAddress, ocw,
                                             Int32(w), Int32(h))
                            }
                        }
                    }
                }
            }
        }
        out.alpha = alphaPicture(f).map { cropped($0, toAspectOf: width, height).y }
        return out
    }
}
