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
        return rc == 0 ? f : nil
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
}
