import AgoraishMedia
import CAgoraishShim
import Glibc
import Synchronization

// Cameras through Video4Linux2, opened with libv4l2 so that any format a
// camera speaks (MJPEG, YUYV, Bayer, ...) arrives converted to I420.
//
// Enumeration (`V4L2.devices`) lists what each capture node offers natively;
// `CameraCapture` asks for one size and rate, lets libv4l2 convert to I420,
// and delivers copies of the pictures on its own thread. What to do with the
// pictures (scaling, encoding, pacing) is left to the caller.
//
// It does IO and starts a thread, so it lives in the engine, beside the
// other devices (ALSA), not in the sans-IO media layer.

/// Why a camera could not be opened or driven.
public enum CameraError: Error, Equatable, Sendable {
    /// Nothing at the path (ENOENT, ENODEV, ENXIO), or it is not a V4L2 video capture device.
    case noDevice
    /// Another program holds the camera (EBUSY).
    case busy
    /// The process may not open the device node (EACCES, EPERM).
    case noPermission
    /// The device cannot deliver the asked size, rate or streaming I/O, even through libv4l2.
    case unsupportedFormat
    /// Any other failure, with its errno.
    case ioFailed(Int32)

    /// The error for an errno value from open, ioctl or mmap.
    init(errno code: Int32) {
        switch code {
        case ENOENT, ENODEV, ENXIO: self = .noDevice
        case EBUSY: self = .busy
        case EACCES, EPERM: self = .noPermission
        default: self = .ioFailed(code)
        }
    }
}

/// One way a camera can deliver pictures: a size, a rate and its native pixel format.
public struct CameraFormat: Sendable, Equatable, Hashable {
    /// Picture width in pixels.
    public var width: Int
    /// Picture height in pixels.
    public var height: Int
    /// Pictures per second, rounded to the nearest integer (30000/1001 is 30);
    /// 0 when the driver does not say.
    public var frameRate: Int
    /// The V4L2 pixel format the camera produces, as its four characters
    /// ("YUYV", "MJPG"), trailing spaces removed, "-BE" added for big-endian variants.
    public var fourcc: String

    /// A format from its parts.
    public init(width: Int, height: Int, frameRate: Int, fourcc: String) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.fourcc = fourcc
    }
}

/// A V4L2 video capture device.
public struct CameraDevice: Sendable, Equatable {
    /// The device node, such as "/dev/video0"; what `CameraCapture(device:...)` opens.
    public var id: String
    /// The card name from VIDIOC_QUERYCAP, such as "HD Pro Webcam C920".
    public var name: String
    /// What the camera offers natively, in the driver's order. Any of these
    /// sizes and rates can be captured as I420: libv4l2 converts the pixels.
    public var formats: [CameraFormat]

    /// A device from its parts.
    public init(id: String, name: String, formats: [CameraFormat]) {
        self.id = id
        self.name = name
        self.formats = formats
    }
}

/// Camera discovery through libv4l2.
public enum V4L2 {
    /// The video capture devices among the `video<N>` character devices of
    /// `directory`, in the order of N (video2 before video10). Nodes that are
    /// not capture devices (metadata, output, codecs) or cannot be opened are
    /// left out; the list is empty when there are none. Opens each node
    /// briefly with libv4l2 and asks VIDIOC_QUERYCAP, VIDIOC_ENUM_FMT,
    /// VIDIOC_ENUM_FRAMESIZES and VIDIOC_ENUM_FRAMEINTERVALS.
    public static func devices(directory: String = "/dev") -> [CameraDevice] {
        guard let dir = opendir(directory) else { return [] }
        var nodes: [(number: Int, path: String)] = []
        while let entry = readdir(dir) {
            // strlen stops at the NUL: the bytes after it are not set.
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                    String(cString: $0)
                }
            }
            guard let number = videoNodeNumber(name) else { continue }
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFCHR else { continue }
            nodes.append((number, path))
        }
        closedir(dir)
        return nodes.sorted { $0.number < $1.number }.compactMap { describe(path: $0.path) }
    }

    /// N for a name "video<N>", nil for any other name.
    static func videoNodeNumber(_ name: String) -> Int? {
        guard name.hasPrefix("video") else { return nil }
        let digits = name.dropFirst(5)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }

    /// The device at `path`, nil when it is not a V4L2 capture device.
    static func describe(path: String) -> CameraDevice? {
        guard let handle = try? V4L2Handle(path: path), let caps = try? handle.capabilities(),
              caps.isVideoCapture else { return nil }
        return CameraDevice(id: path, name: caps.card, formats: handle.formats())
    }

    /// The four characters of a V4L2 pixel format code (see `CameraFormat.fourcc`).
    static func fourccString(_ code: UInt32) -> String {
        var bytes = (0..<4).map { UInt8(truncatingIfNeeded: (code & 0x7fff_ffff) >> (8 * $0)) }
        while let last = bytes.last, last == 0x20 || last == 0 { bytes.removeLast() }
        let text = String(decoding: bytes.map { (0x21...0x7e).contains($0) ? $0 : 0x3f }, as: UTF8.self)
        return code & 0x8000_0000 != 0 ? text + "-BE" : text
    }

    /// Sizes offered for a stepwise or continuous range: the common ones that
    /// fall inside it on its steps (V4L2 lists no sizes for such ranges).
    static func commonSizes(in range: v4l2_frmsize_stepwise) -> [(width: Int, height: Int)] {
        let common = [(160, 120), (320, 240), (640, 360), (640, 480), (800, 600), (1280, 720),
                      (1920, 1080), (2560, 1440), (3840, 2160)]
        func fits(_ value: Int, _ low: UInt32, _ high: UInt32, _ step: UInt32) -> Bool {
            value >= Int(low) && value <= Int(high) && (step <= 1 || (value - Int(low)) % Int(step) == 0)
        }
        return common.filter {
            fits($0.0, range.min_width, range.max_width, range.step_width)
                && fits($0.1, range.min_height, range.max_height, range.step_height)
        }.map { (width: $0.0, height: $0.1) }
    }

    /// Rates offered for a stepwise or continuous interval range: the common
    /// ones inside it, or else the fastest it allows.
    static func commonRates(from fastest: v4l2_fract, to slowest: v4l2_fract) -> [Int] {
        let rates = [60, 50, 30, 25, 24, 20, 15, 10, 5].filter { rate in
            // 1/rate is between fastest (n/d) and slowest: rate * n <= d and rate * n' >= d'.
            rate * Int(fastest.numerator) <= Int(fastest.denominator)
                && rate * Int(slowest.numerator) >= Int(slowest.denominator)
        }
        return rates.isEmpty ? [rate(of: fastest)] : rates
    }

    /// Pictures per second for a frame interval in seconds, rounded; 0 for an empty interval.
    static func rate(of interval: v4l2_fract) -> Int {
        guard interval.numerator > 0 else { return 0 }
        return Int((Double(interval.denominator) / Double(interval.numerator)).rounded())
    }
}

/// What VIDIOC_QUERYCAP says about a device.
struct V4L2Capabilities {
    /// The card name.
    var card: String
    /// The capabilities of this node: device_caps when the driver fills them, else capabilities.
    var caps: UInt32

    /// Whether the node captures single-planar video (what libv4l2 presents).
    var isVideoCapture: Bool { caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 }

    /// The card name and the node's capabilities from a VIDIOC_QUERYCAP answer.
    init(_ cap: v4l2_capability) {
        card = withUnsafeBytes(of: cap.card) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
    }
}

/// A device opened with libv4l2 and its mapped buffers, owned: deinit
/// unmaps the buffers (v4l2_munmap) and closes the device (v4l2_close).
final class V4L2Handle: @unchecked Sendable {
    /// The descriptor, registered with libv4l2.
    let fd: Int32
    /// The buffers mapped with v4l2_mmap, by V4L2 buffer index.
    var buffers: [UnsafeMutableRawBufferPointer] = []

    /// Opens `path` read-write and non-blocking, checks that VIDIOC_QUERYCAP
    /// calls it a video capture node, and hands it to libv4l2 (v4l2_fd_open).
    /// This is v4l2_open with the check first: libv4l2 prints to stderr about
    /// nodes that are not V4L2 devices, and fails on metadata nodes; here both
    /// are `.noDevice`, silently.
    init(path: String) throws(CameraError) {
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw errno == EISDIR ? .noDevice : CameraError(errno: errno) }
        var cap = v4l2_capability()
        // Before v4l2_fd_open, v4l2_ioctl is the plain ioctl.
        let queried = withUnsafeMutableBytes(of: &cap) { agsh_v4l2_ioctl(fd, agsh_vidioc_querycap(), $0.baseAddress) }
        guard queried == 0 else {
            let code = errno
            close(fd)
            throw code == ENOTTY || code == EINVAL ? .noDevice : CameraError(errno: code)
        }
        // Multi-planar nodes count: libv4l2's plugin presents them as single-planar.
        let capture = UInt32(V4L2_CAP_VIDEO_CAPTURE) | UInt32(V4L2_CAP_VIDEO_CAPTURE_MPLANE)
        guard V4L2Capabilities(cap).caps & capture != 0 else {
            close(fd)
            throw .noDevice
        }
        guard agsh_v4l2_fd_open(fd, 0) == fd else {
            let code = errno
            close(fd)
            throw CameraError(errno: code)
        }
        self.fd = fd
    }

    deinit {
        for buffer in buffers { _ = agsh_v4l2_munmap(buffer.baseAddress, buffer.count) }
        _ = agsh_v4l2_close(fd)
    }

    /// v4l2_ioctl(fd, request, &value), retried on EINTR. Returns 0 or the errno.
    /// `T` is one of the plain C structs of <linux/videodev2.h> (or an Int32 buffer type).
    func ioctl<T>(_ request: UInt, _ value: inout T) -> Int32 {
        while true {
            let rc = withUnsafeMutableBytes(of: &value) { agsh_v4l2_ioctl(fd, request, $0.baseAddress) }
            if rc == 0 { return 0 }
            if errno != EINTR { return errno }
        }
    }

    /// VIDIOC_QUERYCAP.
    func capabilities() throws(CameraError) -> V4L2Capabilities {
        var cap = v4l2_capability()
        let rc = ioctl(agsh_vidioc_querycap(), &cap)
        guard rc == 0 else { throw rc == ENOTTY ? .noDevice : CameraError(errno: rc) }
        return V4L2Capabilities(cap)
    }

    /// Every native format, size and rate (VIDIOC_ENUM_FMT, _FRAMESIZES, _FRAMEINTERVALS).
    func formats() -> [CameraFormat] {
        var found: [CameraFormat] = []
        var description = v4l2_fmtdesc()
        description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        // The index limits guard against a driver that never says EINVAL.
        while description.index < 64, ioctl(agsh_vidioc_enum_fmt(), &description) == 0 {
            let code = description.pixelformat
            for size in sizes(of: code) {
                for rate in rates(of: code, width: size.width, height: size.height) {
                    let format = CameraFormat(width: size.width, height: size.height, frameRate: rate,
                                              fourcc: V4L2.fourccString(code))
                    if !found.contains(format) { found.append(format) }
                }
            }
            description.index += 1
        }
        return found
    }

    /// The sizes of one pixel format (VIDIOC_ENUM_FRAMESIZES).
    private func sizes(of code: UInt32) -> [(width: Int, height: Int)] {
        var sizes: [(width: Int, height: Int)] = []
        var query = v4l2_frmsizeenum()
        query.pixel_format = code
        while query.index < 256, ioctl(agsh_vidioc_enum_framesizes(), &query) == 0 {
            if query.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                sizes.append((Int(query.discrete.width), Int(query.discrete.height)))
            } else {
                return V4L2.commonSizes(in: query.stepwise)
            }
            query.index += 1
        }
        return sizes
    }

    /// The rates of one pixel format at one size (VIDIOC_ENUM_FRAMEINTERVALS); [0] when unknown.
    private func rates(of code: UInt32, width: Int, height: Int) -> [Int] {
        var rates: [Int] = []
        var query = v4l2_frmivalenum()
        query.pixel_format = code
        query.width = UInt32(width)
        query.height = UInt32(height)
        while query.index < 256, ioctl(agsh_vidioc_enum_frameintervals(), &query) == 0 {
            if query.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                let rate = V4L2.rate(of: query.discrete)
                if !rates.contains(rate) { rates.append(rate) }
            } else {
                return V4L2.commonRates(from: query.stepwise.min, to: query.stepwise.max)
            }
            query.index += 1
        }
        return rates.isEmpty ? [0] : rates
    }
}

/// Pictures from one camera as I420, through libv4l2 (which converts
/// whatever the camera produces) and four memory-mapped V4L2 buffers.
///
/// `init` opens and configures the device; `start` runs a capture thread
/// ("agoraish-cam") that hands each picture, copied out of the driver's
/// buffer, to a callback; `stop` ends it; deinit stops and closes the device.
/// Thread-safe: `stop` may be called from any thread, the callback included.
public final class CameraCapture: @unchecked Sendable {
    /// The device node opened.
    public let device: String
    /// Picture width in pixels.
    public let width: Int
    /// Picture height in pixels.
    public let height: Int
    /// The rate the driver granted, in pictures per second (the asked one when it does not say).
    public let frameRate: Int

    /// Where pictures come from, shared with the capture thread.
    private let source: any CaptureSource
    // `state` is guarded by `mutex`; `changed` is signalled when a join ends.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state = State.idle

    private enum State {
        case idle
        /// A capture thread exists; its loop ends once its flag is set.
        case running(pthread_t, CaptureStop)
        /// Some thread is joining the capture thread.
        case joining(pthread_t)
    }

    /// Opens `device` with libv4l2, asks for `width` x `height` in I420
    /// (VIDIOC_S_FMT with V4L2_PIX_FMT_YUV420), `frameRate` pictures per second
    /// (VIDIOC_S_PARM) and four mmap buffers (VIDIOC_REQBUFS, v4l2_mmap).
    /// Throws `.unsupportedFormat` for odd sizes or when the driver will not
    /// give exactly that size (the rate it may round; see `frameRate`).
    public convenience init(device: String, width: Int, height: Int, frameRate: Int) throws(CameraError) {
        guard (2...8192).contains(width), (2...8192).contains(height), width % 2 == 0, height % 2 == 0,
              (1...240).contains(frameRate) else { throw .unsupportedFormat }
        let stream = try V4L2Stream(path: device, width: width, height: height, frameRate: frameRate)
        self.init(source: stream, device: device, width: width, height: height,
                  frameRate: stream.grantedRate > 0 ? stream.grantedRate : frameRate)
    }

    /// A capture over any source of pictures (tests use a stand-in for the device).
    init(source: any CaptureSource, device: String, width: Int, height: Int, frameRate: Int) {
        self.source = source
        self.device = device
        self.width = width
        self.height = height
        self.frameRate = frameRate
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        // No other thread holds `self` here, so nobody is joining: the state
        // is idle or running. On the capture thread itself (its callback held
        // the last reference) the thread cannot join itself and is detached;
        // it ends when the callback returns. The source closes the device when
        // the thread lets go of it.
        if case .running(let thread, let stop) = state {
            stop.requested.store(true, ordering: .releasing)
            if pthread_equal(thread, pthread_self()) != 0 { pthread_detach(thread) } else { pthread_join(thread, nil) }
        }
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    /// Queues the buffers, starts streaming (VIDIOC_QBUF, VIDIOC_STREAMON) and
    /// the capture thread, which calls `onFrame` with each picture and its
    /// capture time in milliseconds on CLOCK_MONOTONIC. `onFrame` runs on that
    /// thread, one picture at a time, and is kept alive until the thread ends:
    /// capture the `CameraCapture` weakly in it, or it is never released.
    /// Capture also ends by itself if the device fails (unplugged). Throws
    /// `.busy` while capturing.
    public func start(onFrame: @escaping @Sendable (I420Frame, _ timestampMs: Int64) -> Void) throws(CameraError) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        // A thread told to stop from its own callback is joined first.
        if case .running(let thread, let stop) = state, stop.requested.load(ordering: .acquiring),
           pthread_equal(thread, pthread_self()) == 0 {
            joinLocked(thread)
        }
        while case .joining(let thread) = state, pthread_equal(thread, pthread_self()) == 0 {
            pthread_cond_wait(changed, mutex)
        }
        guard case .idle = state else { throw .busy }

        try source.streamOn()
        let stop = CaptureStop()
        let loop = CaptureLoop(source: source, stop: stop, onFrame: onFrame)
        let context = Unmanaged.passRetained(loop).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            let loop = Unmanaged<CaptureLoop>.fromOpaque(raw!).takeRetainedValue()
            _ = agsh_set_thread_name(pthread_self(), "agoraish-cam")
            loop.run()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<CaptureLoop>.fromOpaque(context).release()
            source.streamOff()
            throw .ioFailed(created)
        }
        state = .running(thread, stop)
    }

    /// Ends capture: the thread finishes the picture in hand, stops streaming
    /// (VIDIOC_STREAMOFF) and ends, and `stop` returns after joining it (within
    /// about 100 ms). Idempotent; concurrent calls all return once the thread
    /// is gone. Called from `onFrame`, it cannot wait for its own thread: it
    /// returns at once, and the thread ends when the callback returns.
    public func stop() {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        switch state {
        case .idle:
            return
        case .running(let thread, let stop):
            stop.requested.store(true, ordering: .releasing)
            if pthread_equal(thread, pthread_self()) == 0 { joinLocked(thread) }
        case .joining(let thread):
            while case .joining = state, pthread_equal(thread, pthread_self()) == 0 {
                pthread_cond_wait(changed, mutex)
            }
        }
    }

    /// Joins `thread` with the mutex released (the thread's callback may call
    /// `stop`, which takes it), then marks the capture idle. Called locked.
    private func joinLocked(_ thread: pthread_t) {
        state = .joining(thread)
        pthread_mutex_unlock(mutex)
        pthread_join(thread, nil)
        pthread_mutex_lock(mutex)
        state = .idle
        pthread_cond_broadcast(changed)
    }
}

/// Where a capture thread takes pictures from: a V4L2 device, or a stand-in in tests.
protocol CaptureSource: AnyObject, Sendable {
    /// Starts delivery. Called with no capture thread running.
    func streamOn() throws(CameraError)
    /// Ends delivery. Called by the capture thread as it ends (or by `start` when it fails).
    func streamOff()
    /// Waits a short while (up to 50 ms) for the next picture: the picture and
    /// its time in milliseconds, or nil when none came. Throws when the source failed for good.
    func nextPicture() throws(CameraError) -> (I420Frame, Int64)?
}

/// The flag that ends one capture thread's loop.
final class CaptureStop: Sendable {
    /// Set by `stop` (or deinit); read by the loop after each wait and picture.
    let requested = Atomic<Bool>(false)
}

/// What a capture thread holds: the source (so the device outlives the
/// thread), its stop flag and the callback; not the capture, whose deinit
/// stops the thread.
private final class CaptureLoop {
    let source: any CaptureSource
    let stop: CaptureStop
    let onFrame: @Sendable (I420Frame, Int64) -> Void

    init(source: any CaptureSource, stop: CaptureStop, onFrame: @escaping @Sendable (I420Frame, Int64) -> Void) {
        self.source = source
        self.stop = stop
        self.onFrame = onFrame
    }

    /// Takes pictures until told to stop or the source fails, then stops streaming.
    func run() {
        while !stop.requested.load(ordering: .acquiring) {
            do {
                if let (picture, time) = try source.nextPicture() { onFrame(picture, time) }
            } catch {
                break
            }
        }
        source.streamOff()
    }
}

/// A device configured for I420 capture with its mmap buffers mapped.
final class V4L2Stream: CaptureSource, @unchecked Sendable {
    /// The device and its buffers.
    let handle: V4L2Handle
    /// Picture width in pixels.
    let width: Int
    /// Picture height in pixels.
    let height: Int
    /// Bytes per luma row in the driver's buffers (at least `width`).
    let lumaStride: Int
    /// The rate the driver granted in pictures per second, 0 when it does not say.
    let grantedRate: Int

    /// Opens and configures `path` (see `CameraCapture.init`).
    init(path: String, width: Int, height: Int, frameRate: Int) throws(CameraError) {
        let handle = try V4L2Handle(path: path)
        let caps = try handle.capabilities()
        guard caps.isVideoCapture else { throw .noDevice }
        guard caps.caps & UInt32(V4L2_CAP_STREAMING) != 0 else { throw .unsupportedFormat }

        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        format.fmt.pix.width = UInt32(width)
        format.fmt.pix.height = UInt32(height)
        format.fmt.pix.pixelformat = agsh_v4l2_pix_fmt_yuv420()
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        var rc = handle.ioctl(agsh_vidioc_s_fmt(), &format)
        guard rc == 0 else { throw rc == EINVAL ? .unsupportedFormat : CameraError(errno: rc) }
        guard format.fmt.pix.pixelformat == agsh_v4l2_pix_fmt_yuv420(), format.fmt.pix.width == UInt32(width),
              format.fmt.pix.height == UInt32(height) else { throw .unsupportedFormat }

        var parm = v4l2_streamparm()
        parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        parm.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: UInt32(frameRate))
        // Drivers without frame-rate control refuse S_PARM; capture still works at their rate.
        let rateSet = handle.ioctl(agsh_vidioc_s_parm(), &parm) == 0
            && parm.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0

        var request = v4l2_requestbuffers()
        request.count = 4
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        rc = handle.ioctl(agsh_vidioc_reqbufs(), &request)
        guard rc == 0 else { throw rc == EINVAL ? .unsupportedFormat : CameraError(errno: rc) }
        guard request.count >= 2 else { throw .ioFailed(ENOMEM) }
        for index in 0..<request.count {
            var buffer = Self.buffer(index: index)
            rc = handle.ioctl(agsh_vidioc_querybuf(), &buffer)
            guard rc == 0 else { throw CameraError(errno: rc) }
            let length = Int(buffer.length)
            guard let start = agsh_v4l2_mmap(handle.fd, length, Int64(buffer.m.offset)) else {
                throw CameraError(errno: errno)
            }
            handle.buffers.append(UnsafeMutableRawBufferPointer(start: start, count: length))
        }

        self.handle = handle
        self.width = width
        self.height = height
        lumaStride = max(Int(format.fmt.pix.bytesperline), width)
        grantedRate = rateSet ? V4L2.rate(of: parm.parm.capture.timeperframe) : 0
    }

    /// Queues every buffer and starts streaming (VIDIOC_QBUF, VIDIOC_STREAMON).
    func streamOn() throws(CameraError) {
        for index in 0..<handle.buffers.count {
            var buffer = Self.buffer(index: UInt32(index))
            let rc = handle.ioctl(agsh_vidioc_qbuf(), &buffer)
            guard rc == 0 else { streamOff(); throw CameraError(errno: rc) }
        }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        let rc = handle.ioctl(agsh_vidioc_streamon(), &type)
        guard rc == 0 else { streamOff(); throw CameraError(errno: rc) }
    }

    /// VIDIOC_STREAMOFF, which also takes back every queued buffer.
    func streamOff() {
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        _ = handle.ioctl(agsh_vidioc_streamoff(), &type)
    }

    /// Waits up to 50 ms for a filled buffer (poll), takes it (VIDIOC_DQBUF),
    /// copies the picture out and gives the buffer back (VIDIOC_QBUF). Buffers
    /// the driver marks as damaged are given back unread.
    func nextPicture() throws(CameraError) -> (I420Frame, Int64)? {
        var waiter = pollfd(fd: handle.fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&waiter, 1, 50)
        if ready < 0 && errno != EINTR { throw CameraError(errno: errno) }
        guard ready > 0 else { return nil }
        var buffer = Self.buffer(index: 0)
        var rc = handle.ioctl(agsh_vidioc_dqbuf(), &buffer)
        if rc == EAGAIN { return nil }
        guard rc == 0 else { throw CameraError(errno: rc) }
        var picture: I420Frame?
        if buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) == 0, Int(buffer.index) < handle.buffers.count {
            let mapped = handle.buffers[Int(buffer.index)]
            let used = buffer.bytesused > 0 ? min(Int(buffer.bytesused), mapped.count) : mapped.count
            picture = V4L2.i420(from: UnsafeRawBufferPointer(rebasing: mapped[0..<used]),
                                width: width, height: height, lumaStride: lumaStride)
        }
        let time = Self.milliseconds(buffer)
        // A buffer that cannot go back would leave the driver short until it
        // has none, so that ends capture.
        rc = handle.ioctl(agsh_vidioc_qbuf(), &buffer)
        guard rc == 0 else { throw CameraError(errno: rc) }
        return picture.map { ($0, time) }
    }

    /// A v4l2_buffer naming one of the mmap capture buffers.
    static func buffer(index: UInt32) -> v4l2_buffer {
        var buffer = v4l2_buffer()
        buffer.index = index
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        return buffer
    }

    /// The buffer's capture time on CLOCK_MONOTONIC in milliseconds; now when
    /// the driver stamps another clock or none.
    private static func milliseconds(_ buffer: v4l2_buffer) -> Int64 {
        let clock = buffer.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK)
        let stamp = buffer.timestamp
        if clock == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC) && (stamp.tv_sec != 0 || stamp.tv_usec != 0) {
            return Int64(stamp.tv_sec) * 1000 + Int64(stamp.tv_usec) / 1000
        }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}

extension V4L2 {
    /// A tightly packed copy of an I420 (V4L2 "YU12") picture laid out with
    /// `lumaStride` bytes per luma row and half that per chroma row, Y then U
    /// then V; nil when `bytes` is shorter than that layout. `width` and
    /// `height` are even and at least 2.
    static func i420(from bytes: UnsafeRawBufferPointer, width: Int, height: Int, lumaStride: Int) -> I420Frame? {
        let chromaStride = lumaStride / 2, chromaWidth = width / 2, chromaHeight = height / 2
        let lumaSize = lumaStride * height, chromaSize = chromaStride * chromaHeight
        guard width >= 2, height >= 2, lumaStride >= width, bytes.count >= lumaSize + 2 * chromaSize,
              let base = bytes.baseAddress else { return nil }
        func plane(at offset: Int, stride: Int, width: Int, rows: Int) -> [UInt8] {
            [UInt8](unsafeUninitializedCapacity: width * rows) { out, count in
                // width and rows are at least 1 (guarded above), so `out` has storage.
                for row in 0..<rows { memcpy(out.baseAddress! + row * width, base + offset + row * stride, width) }
                count = width * rows
            }
        }
        var frame = I420Frame(width: 0, height: 0)
        frame.width = width
        frame.height = height
        frame.y = plane(at: 0, stride: lumaStride, width: width, rows: height)
        frame.u = plane(at: lumaSize, stride: chromaStride, width: chromaWidth, rows: chromaHeight)
        frame.v = plane(at: lumaSize + chromaSize, stride: chromaStride, width: chromaWidth, rows: chromaHeight)
        return frame
    }
}
