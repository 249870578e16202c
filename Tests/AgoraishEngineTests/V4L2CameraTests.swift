@testable import AgoraishEngine
import AgoraishMedia
import CAgoraishShim
import Dispatch
import Glibc
import Testing

/// A fresh empty directory under /tmp, removed (with the files named) by `remove`.
private struct TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/agoraish-cam-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed: \(errno)")
        path = String(cString: made!)
    }

    /// Creates a regular file `name` with a few bytes; returns its path.
    func file(_ name: String) -> String {
        let full = path + "/" + name
        let fd = open(full, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        precondition(fd >= 0, "open failed: \(errno)")
        _ = "not a camera".withCString { write(fd, $0, 12) }
        close(fd)
        return full
    }

    func remove(_ names: [String] = []) {
        for name in names { unlink(path + "/" + name) }
        rmdir(path)
    }
}

/// The paths the process's open descriptors point at (readlink of /proc/self/fd/*).
private func openDescriptorTargets() -> [String] {
    guard let dir = opendir("/proc/self/fd") else { return [] }
    defer { closedir(dir) }
    var targets: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard Int(name) != nil else { continue }
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/fd/" + name, &buffer, buffer.count - 1)
        if count > 0 { targets.append(String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
    }
    return targets
}

@Suite struct V4L2CameraTests {
    @Test func aDirectoryWithoutVideoNodesListsNoCameras() {
        let dir = TemporaryDirectory()
        defer { dir.remove(["video0", "videoX", "media0", "video1", "video2"]) }
        // Regular files named like nodes are not character devices.
        _ = dir.file("video0")
        _ = dir.file("videoX")
        _ = dir.file("media0")
        #expect(V4L2.devices(directory: dir.path).isEmpty)
        // Character devices that are not V4L2 devices are opened, asked, and left out.
        #expect(symlink("/dev/null", dir.path + "/video1") == 0)
        #expect(symlink("/dev/zero", dir.path + "/video2") == 0)
        #expect(V4L2.devices(directory: dir.path).isEmpty)
    }

    @Test func aMissingDirectoryListsNoCameras() {
        #expect(V4L2.devices(directory: "/nonexistent/agoraish-cam").isEmpty)
    }

    @Test func theRealDeviceDirectoryListsOnlyVideoNodesInOrder() {
        let devices = V4L2.devices()
        let numbers = devices.map { V4L2.videoNodeNumber(String($0.id.dropFirst("/dev/".count))) }
        #expect(numbers.allSatisfy { $0 != nil })
        #expect(numbers.compactMap { $0 } == numbers.compactMap { $0 }.sorted())
        for device in devices {
            #expect(device.id.hasPrefix("/dev/video"))
            #expect(device.formats.allSatisfy { $0.width > 0 && $0.height > 0 && !$0.fourcc.isEmpty })
        }
    }

    @Test func openingAMissingPathThrowsNoDevice() {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        #expect(throws: CameraError.noDevice) {
            _ = try CameraCapture(device: dir.path + "/video0", width: 640, height: 480, frameRate: 30)
        }
    }

    @Test func openingARegularFileThrowsAndLeavesNoDescriptorOpen() {
        let dir = TemporaryDirectory()
        defer { dir.remove(["video0"]) }
        let path = dir.file("video0")
        // Compared by target rather than by count, so that tests running in
        // parallel and opening their own files cannot disturb the result.
        for _ in 0..<20 {
            #expect(throws: CameraError.noDevice) {
                _ = try CameraCapture(device: path, width: 640, height: 480, frameRate: 30)
            }
        }
        #expect(!openDescriptorTargets().contains(path))
    }

    @Test func openingDevNullThrows() {
        #expect(throws: CameraError.self) {
            _ = try CameraCapture(device: "/dev/null", width: 640, height: 480, frameRate: 30)
        }
    }

    @Test(arguments: [(641, 480, 30), (640, 481, 30), (0, 480, 30), (640, 480, 0)])
    func impossibleRequestsAreRefusedBeforeOpening(width: Int, height: Int, frameRate: Int) {
        #expect(throws: CameraError.unsupportedFormat) {
            _ = try CameraCapture(device: "/nonexistent/video0", width: width, height: height, frameRate: frameRate)
        }
    }

    @Test func errnoValuesMapToCameraErrors() {
        #expect(CameraError(errno: ENOENT) == .noDevice)
        #expect(CameraError(errno: ENODEV) == .noDevice)
        #expect(CameraError(errno: EBUSY) == .busy)
        #expect(CameraError(errno: EACCES) == .noPermission)
        #expect(CameraError(errno: EPERM) == .noPermission)
        #expect(CameraError(errno: EIO) == .ioFailed(EIO))
    }

    @Test func aNodeIsACaptureDeviceByItsOwnCapabilities() {
        var cap = v4l2_capability()
        withUnsafeMutableBytes(of: &cap.card) { $0.copyBytes(from: Array("Cam 1".utf8)) }
        // A UVC metadata node: the device captures video, this node only metadata.
        cap.capabilities = UInt32(V4L2_CAP_VIDEO_CAPTURE) | UInt32(V4L2_CAP_META_CAPTURE) | UInt32(V4L2_CAP_DEVICE_CAPS)
        cap.device_caps = UInt32(V4L2_CAP_META_CAPTURE)
        #expect(V4L2Capabilities(cap).card == "Cam 1")
        #expect(!V4L2Capabilities(cap).isVideoCapture)
        cap.device_caps = UInt32(V4L2_CAP_VIDEO_CAPTURE) | UInt32(V4L2_CAP_STREAMING)
        #expect(V4L2Capabilities(cap).isVideoCapture)
        // An old driver without device_caps: the device's capabilities count.
        cap.capabilities = UInt32(V4L2_CAP_VIDEO_CAPTURE)
        cap.device_caps = 0
        #expect(V4L2Capabilities(cap).isVideoCapture)
    }

    @Test func onlyVideoNodeNamesCount() {
        #expect(V4L2.videoNodeNumber("video0") == 0)
        #expect(V4L2.videoNodeNumber("video12") == 12)
        #expect(V4L2.videoNodeNumber("video") == nil)
        #expect(V4L2.videoNodeNumber("video1a") == nil)
        #expect(V4L2.videoNodeNumber("vbi0") == nil)
    }

    @Test func fourccCodesReadAsTheirCharacters() {
        #expect(V4L2.fourccString(agsh_v4l2_pix_fmt_yuv420()) == "YU12")
        #expect(V4L2.fourccString(0x5659_5559) == "YUYV")
        #expect(V4L2.fourccString(0x2036_3159) == "Y16")
        #expect(V4L2.fourccString(0x2036_3159 | 0x8000_0000) == "Y16-BE")
    }

    @Test func stepwiseRangesOfferTheCommonSizesOnTheirSteps() {
        let range = v4l2_frmsize_stepwise(min_width: 320, max_width: 1280, step_width: 320,
                                          min_height: 240, max_height: 720, step_height: 8)
        let sizes = V4L2.commonSizes(in: range).map { "\($0.width)x\($0.height)" }
        // 160 and 1920 are out of range; 800 is not on a 320 step from 320.
        #expect(sizes == ["320x240", "640x360", "640x480", "1280x720"])
    }

    @Test func continuousIntervalsOfferTheCommonRatesInside() {
        let fastest = v4l2_fract(numerator: 1, denominator: 30)
        let slowest = v4l2_fract(numerator: 1, denominator: 10)
        #expect(V4L2.commonRates(from: fastest, to: slowest) == [30, 25, 24, 20, 15, 10])
        let odd = v4l2_fract(numerator: 1000, denominator: 7000)
        #expect(V4L2.commonRates(from: odd, to: odd) == [7])
        #expect(V4L2.rate(of: v4l2_fract(numerator: 1001, denominator: 30000)) == 30)
        #expect(V4L2.rate(of: v4l2_fract(numerator: 0, denominator: 0)) == 0)
    }

    @Test func stridedPicturesAreCopiedTightly() {
        // 4 x 2 picture, 6 bytes per luma row and 3 per chroma row; 9 marks padding.
        let bytes: [UInt8] = [1, 2, 3, 4, 9, 9,
                              5, 6, 7, 8, 9, 9,
                              10, 11, 9,
                              20, 21, 9]
        let frame = bytes.withUnsafeBytes { V4L2.i420(from: $0, width: 4, height: 2, lumaStride: 6) }
        #expect(frame?.y == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(frame?.u == [10, 11])
        #expect(frame?.v == [20, 21])
        #expect(frame?.width == 4 && frame?.height == 2)
        let short = bytes.dropLast().withUnsafeBytes { V4L2.i420(from: $0, width: 4, height: 2, lumaStride: 6) }
        #expect(short == nil)
    }

    @Test func stopJoinsTheThreadWhichStopsStreamingOnce() {
        let source = FakeSource()
        let capture = CameraCapture(source: source, device: "fake", width: 4, height: 4, frameRate: 30)
        let third = DispatchSemaphore(value: 0)
        let frames = Shared(0)
        try! capture.start { _, _ in
            if frames.withLock({ $0 += 1; return $0 }) == 3 { third.signal() }
        }
        #expect(third.wait(timeout: .now() + 10) == .success)
        capture.stop()
        let delivered = frames.withLock { $0 }
        #expect(source.counts.withLock { $0 } == Counts(on: 1, off: 1))
        capture.stop()
        // Joined: nothing arrives after stop returns, and a second stop changes nothing.
        #expect(frames.withLock { $0 } == delivered)
        #expect(source.counts.withLock { $0 } == Counts(on: 1, off: 1))
    }

    @Test func theCallbackRunsOnTheCameraThread() {
        let capture = CameraCapture(source: FakeSource(), device: "fake", width: 4, height: 4, frameRate: 30)
        let name = Shared<String?>(nil)
        let first = DispatchSemaphore(value: 0)
        try! capture.start { _, _ in
            let comm = threadName()
            if name.withLock({ old in defer { old = comm }; return old == nil }) { first.signal() }
        }
        #expect(first.wait(timeout: .now() + 10) == .success)
        capture.stop()
        #expect(name.withLock { $0 } == "agoraish-cam")
    }

    @Test func stopInsideTheCallbackReturnsAndEndsCaptureAfterIt() {
        let source = FakeSource()
        let capture = CameraCapture(source: source, device: "fake", width: 4, height: 4, frameRate: 30)
        let returned = DispatchSemaphore(value: 0)
        let frames = Shared(0)
        try! capture.start { [weak capture] _, _ in
            frames.withLock { $0 += 1 }
            capture?.stop()
            returned.signal()
        }
        #expect(returned.wait(timeout: .now() + 10) == .success)
        #expect(source.stopped.wait(timeout: .now() + 10) == .success)
        capture.stop()
        #expect(frames.withLock { $0 } == 1)
        #expect(source.counts.withLock { $0 } == Counts(on: 1, off: 1))
    }

    @Test func startWhileCapturingThrowsBusyAndStartAfterStopCapturesAgain() {
        let source = FakeSource()
        let capture = CameraCapture(source: source, device: "fake", width: 4, height: 4, frameRate: 30)
        try! capture.start { _, _ in }
        #expect(throws: CameraError.busy) { try capture.start { _, _ in } }
        capture.stop()
        let again = DispatchSemaphore(value: 0)
        try! capture.start { _, _ in again.signal() }
        #expect(again.wait(timeout: .now() + 10) == .success)
        capture.stop()
        #expect(source.counts.withLock { $0 } == Counts(on: 2, off: 2))
    }

    @Test func concurrentStopsAllReturnAfterTheThreadEnds() {
        let source = FakeSource()
        let capture = CameraCapture(source: source, device: "fake", width: 4, height: 4, frameRate: 30)
        try! capture.start { _, _ in }
        let offAtReturn = Shared<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            capture.stop()
            let off = source.counts.withLock { $0.off }
            offAtReturn.withLock { $0.append(off) }
        }
        #expect(offAtReturn.withLock { $0 } == [1, 1, 1, 1])
    }

    @Test func releasingTheCaptureStopsItsThread() {
        let source = FakeSource()
        var capture: CameraCapture? = CameraCapture(source: source, device: "fake", width: 4, height: 4, frameRate: 30)
        let first = DispatchSemaphore(value: 0)
        try! capture!.start { _, _ in first.signal() }
        #expect(first.wait(timeout: .now() + 10) == .success)
        capture = nil
        #expect(source.counts.withLock { $0 } == Counts(on: 1, off: 1))
    }

    @Test func releasingTheCaptureInsideTheCallbackEndsTheThread() {
        let source = FakeSource()
        // The only reference lives in `holder`, and the callback takes it out:
        // the capture is released on its own thread, which cannot join itself.
        let holder = Shared<CameraCapture?>(
            CameraCapture(source: source, device: "fake", width: 4, height: 4, frameRate: 30))
        try! holder.withLock { capture throws(CameraError) in
            try capture!.start { _, _ in _ = holder.withLock { $0.take() } }
        }
        #expect(source.stopped.wait(timeout: .now() + 10) == .success)
        #expect(holder.withLock { $0 == nil })
    }

    @Test func aFailingSourceEndsCaptureAndStopStillReturns() {
        let source = FakeSource(failAfter: 2)
        let capture = CameraCapture(source: source, device: "fake", width: 4, height: 4, frameRate: 30)
        let frames = Shared(0)
        try! capture.start { _, _ in frames.withLock { $0 += 1 } }
        #expect(source.stopped.wait(timeout: .now() + 10) == .success)
        capture.stop()
        #expect(frames.withLock { $0 } == 2)
        #expect(source.counts.withLock { $0 } == Counts(on: 1, off: 1))
    }
}

/// A value shared between threads (a class, so closures share one lock).
private final class Shared<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

/// How often a source was started and stopped.
private struct Counts: Equatable {
    var on = 0
    var off = 0
}

/// A stand-in camera: a 4 x 4 picture per request after a 1 ms wait (the
/// device's poll, so the loop does not spin), failing for good after
/// `failAfter` pictures if given.
private final class FakeSource: CaptureSource, @unchecked Sendable {
    let counts = Shared(Counts())
    /// Signalled by each streamOff.
    let stopped = DispatchSemaphore(value: 0)
    private let delivered = Shared(0)
    private let failAfter: Int?

    init(failAfter: Int? = nil) { self.failAfter = failAfter }

    func streamOn() throws(CameraError) { counts.withLock { $0.on += 1 } }

    func streamOff() {
        counts.withLock { $0.off += 1 }
        stopped.signal()
    }

    func nextPicture() throws(CameraError) -> (I420Frame, Int64)? {
        usleep(1000)
        let n = delivered.withLock { $0 += 1; return $0 }
        if let failAfter, n > failAfter { throw .ioFailed(EIO) }
        return (I420Frame(width: 4, height: 4), Int64(n))
    }
}

/// The kernel name of the calling thread (/proc/self/task/<tid>/comm).
private func threadName() -> String {
    let fd = open("/proc/self/task/\(agsh_gettid())/comm", O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 64)
    let count = read(fd, &buffer, buffer.count)
    guard count > 0 else { return "" }
    return String(decoding: buffer[0..<count], as: UTF8.self).trimmingSuffix("\n")
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
