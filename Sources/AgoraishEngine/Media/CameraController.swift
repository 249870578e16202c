import AgoraishIO
import AgoraishMedia

/// The engine's camera (V4L2 through libv4l2). It runs while video and local
/// video are on, no external source is set, and either the preview is started
/// or a call is up; its pictures take the same path as pushed ones, on the
/// camera thread (`agoraish-cam`). Failing to start reports
/// onLocalVideoStateChanged(FAILED, error) once per attempt.
final class CameraController: @unchecked Sendable {
    /// Agora's CameraCapturerConfiguration, as far as Linux has it.
    struct Configuration: Equatable {
        /// CAPTURER_OUTPUT_PREFERENCE: AUTO 0, PERFORMANCE 1, PREVIEW 2, MANUAL 3.
        var preference = 0
        var width = 640
        var height = 480
    }

    private struct State {
        var configuration = Configuration()
        /// The chosen device (setDevice), nil for the first one found.
        var device: String? = nil
        var capture: CameraCapture? = nil
        /// The attempt that failed, so the failure is reported once.
        var failed = false
        /// switchCamera moves through the devices from here.
        var running: String? = nil
    }

    private let state = Locked(State())
    private unowned let video: VideoPipeline
    /// Where devices are looked for (tests point it elsewhere).
    let directory: String

    init(video: VideoPipeline, directory: String = "/dev") {
        self.video = video
        self.directory = directory
    }

    var configuration: Configuration {
        get { state.withLock { $0.configuration } }
        set { state.withLock { $0.configuration = newValue } }
    }

    /// The device chosen with setDevice (nil: the first one).
    var device: String? {
        get { state.withLock { $0.device } }
        set {
            state.withLock {
                $0.device = newValue
                $0.failed = false
            }
        }
    }

    func devices() -> [CameraDevice] { V4L2.devices(directory: directory) }

    /// Restarts capture on the chosen device when it runs on another one.
    func restartIfMoved() {
        let old = state.withLock { st -> CameraCapture? in
            guard let c = st.capture, let d = st.device, st.running != d else { return nil }
            st.capture = nil
            st.running = nil
            _ = c
            return c
        }
        old?.stop()
        update()
    }

    /// Starts or stops capture to match the settings. Any thread.
    func update() {
        let (want, c) = video.settings.withLock {
            (!$0.externalSource && $0.capturing && ($0.previewing || ($0.inCall && $0.mayPublish)), $0.configuration)
        }
        var old: CameraCapture? = nil
        var failure: Int32? = nil
        state.withLock { st in
            guard want else {
                old = st.capture
                st.capture = nil
                st.running = nil
                st.failed = false
                return
            }
            guard st.capture == nil, !st.failed else { return }
            guard let id = st.device ?? devices().first?.id else {
                st.failed = true
                failure = 8  // DEVICE_NOT_FOUND
                return
            }
            let size = st.configuration.preference == 3
                ? (st.configuration.width, st.configuration.height) : (c.width, c.height)
            do {
                let capture = try CameraCapture(device: id, width: size.0, height: size.1, frameRate: c.frameRate)
                try capture.start { [weak video] frame, timestampMs in try? video?.capture(frame, timestampMs: timestampMs) }
                st.capture = capture
                st.running = id
            } catch {
                st.failed = true
                switch error as? CameraError {
                case .noDevice?: failure = st.device == nil ? 8 : 10  // DEVICE_NOT_FOUND / DEVICE_INVALID_ID
                case .busy?: failure = 3
                case .noPermission?: failure = 2
                default: failure = 4  // CAPTURE_FAILURE
                }
            }
        }
        old?.stop()
        if let failure { video.localFailed(error: failure) }
    }

    /// switchCamera: the next device after the running one (round robin).
    /// Returns false when there is no other device.
    func switchToNext() -> Bool {
        let list = devices().map(\.id)
        let next = state.withLock { st -> String? in
            guard list.count > 1 else { return nil }
            let current = st.running ?? st.device ?? list[0]
            let i = list.firstIndex(of: current) ?? -1
            return list[(i + 1) % list.count]
        }
        guard let next else { return false }
        let old = state.withLock { st -> CameraCapture? in
            st.device = next
            st.failed = false
            defer { st.capture = nil }
            return st.capture
        }
        old?.stop()
        update()
        return true
    }

    /// Stops capture (engine release).
    func shutdown() {
        let old = state.withLock { st -> CameraCapture? in
            defer { st.capture = nil }
            return st.capture
        }
        old?.stop()
    }
}
