// join_channel_video.cpp — Agora's JoinChannelVideo case in C++: a video
// call with a local view, a preview before joining, and a view per remote user.
//
//   enableVideo -> setVideoEncoderConfiguration
//   -> setupLocalVideo(VideoCanvas(0, &localView)) -> startPreview   (the local view, uid 0)
//   -> joinChannel -> onJoinChannelSuccess, onUserJoined(uid)
//   -> setupRemoteVideo(VideoCanvas(uid, &remoteView))                (a view per remote user)
//   -> onFirstRemoteVideoFrame, onRemoteVideoStateChanged, onLocalVideoStats, ...
//   -> leaveChannel -> stopPreview -> release
//
// A view is an IVideoSink here: it gets each picture as I420 planes, on the
// engine's video thread. This machine has no camera, so both users push their
// pictures through an external source (on a machine with a camera, leave out
// setExternalVideoSource and the pushes: startPreview starts the camera).
// "local" sends 640x360 and sees its own pictures in its local view (mirrored,
// as Agora's front camera preview is) before and during the call; "remote",
// a second engine in the same process, sends 320x240. At the end the example
// prints what each view showed and the last statistics.
//
//   make hosts && build/examples/join_channel_video_cpp
#include "agoraish.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

const char* const kAppId = "0123456789abcdef0123456789abcdef";
const char* const kChannel = "join-channel-video";
constexpr int kFps = 15;
constexpr auto kPreview = 1s;  // local alone, before joining
constexpr auto kCall = 3s;     // both in the call
constexpr auto kSettle = 300ms;
constexpr auto kTimeout = 5s;
const Clock::time_point kStart = Clock::now();

std::mutex printMutex;

template <typename... Args>
void say(const std::string& who, const Args&... args) {
    std::ostringstream line;
    char prefix[48];
    std::snprintf(prefix, sizeof prefix, "%6.2f s  %-6s  ",
                  std::chrono::duration<double>(Clock::now() - kStart).count(), who.c_str());
    line << prefix;
    (line << ... << args);
    std::lock_guard<std::mutex> lock(printMutex);
    std::cout << line.str() << '\n';
}

// ---- a view: counts pictures and remembers the last one -----------------------------

class View : public agoraish::IVideoSink {
public:
    struct Report {
        int pictures = 0, width = 0, height = 0;
        agoraish::uid_t uid = 0;
        int left = 0, right = 0;  // the top band's left and right ends (the picture is darker on its left)
    };

    explicit View(std::string name) : name_(std::move(name)) {}

    void onFrame(agoraish::uid_t uid, const agoraish::VideoFrame& f) override {
        const int left = band(f, 0, f.width / 8), right = band(f, f.width - f.width / 8, f.width);
        std::lock_guard<std::mutex> lock(mutex_);
        if (report_.pictures++ == 0) say(name_, "first picture: uid ", uid, ", ", f.width, "x", f.height);
        report_.uid = uid;
        report_.width = f.width;
        report_.height = f.height;
        report_.left = left;
        report_.right = right;
    }

    Report report() {
        std::lock_guard<std::mutex> lock(mutex_);
        return report_;
    }

    void print() {
        const Report r = report();
        say(name_, r.pictures, " pictures, the last of uid ", r.uid, " at ", r.width, "x", r.height, "; top band ",
            r.left, " on the left, ", r.right, " on the right");
    }

private:
    static int band(const agoraish::VideoFrame& f, int x0, int x1) {
        long sum = 0;
        const int rows = f.height / 10;
        for (int y = 0; y < rows; ++y)
            for (int x = x0; x < x1; ++x) sum += f.yBuffer[std::size_t(y) * std::size_t(f.yStride) + std::size_t(x)];
        return rows * (x1 - x0) > 0 ? int(sum / (rows * (x1 - x0))) : 0;
    }

    std::string name_;
    std::mutex mutex_;
    Report report_;
};

// ---- one user's events --------------------------------------------------------------

class User : public agoraish::IRtcEngineEventHandler {
public:
    User(const char* name, View& remoteView) : name_(name), remoteView_(remoteView) {}

    // The engine this handler belongs to, for the views it binds (set before joining).
    void attach(agoraish::RtcEngine* engine) { engine_ = engine; }

    void onJoinChannelSuccess(const char* channel, agoraish::uid_t uid, int elapsed) override {
        say(name_, "onJoinChannelSuccess \"", channel, "\" uid ", uid, ", ", elapsed, " ms");
        update([&] { joined_ = true; });
    }
    // A user joined: bind a view for it (Agora's case calls setupRemoteVideo here).
    void onUserJoined(agoraish::uid_t uid, int elapsed) override {
        say(name_, "onUserJoined uid ", uid, ", ", elapsed, " ms: setupRemoteVideo = ",
            engine_->setupRemoteVideo(agoraish::VideoCanvas(uid, &remoteView_)));
        update([&] { peer_ = uid; });
    }
    void onUserOffline(agoraish::uid_t uid, agoraish::USER_OFFLINE_REASON_TYPE reason) override {
        say(name_, "onUserOffline uid ", uid, ", reason ", int(reason), ": setupRemoteVideo(nullptr) = ",
            engine_->setupRemoteVideo(agoraish::VideoCanvas(uid, nullptr)));
        update([&] {
            if (peer_ == uid) peer_ = 0;
        });
    }
    void onLeaveChannel(const agoraish::RtcStats& stats) override {
        say(name_, "onLeaveChannel after ", stats.duration, " s: sent ", stats.txBytes, " bytes, received ",
            stats.rxBytes, " bytes");
        update([&] { joined_ = false; });
    }
    void onError(int err, const char* msg) override { say(name_, "onError ", err, ": ", msg); }
    void onFirstLocalVideoFrame(int width, int height, int elapsed) override {
        say(name_, "onFirstLocalVideoFrame ", width, "x", height, ", ", elapsed, " ms");
    }
    void onFirstRemoteVideoFrame(agoraish::uid_t uid, int width, int height, int elapsed) override {
        say(name_, "onFirstRemoteVideoFrame uid ", uid, ", ", width, "x", height, ", ", elapsed, " ms");
    }
    void onLocalVideoStateChanged(agoraish::LOCAL_VIDEO_STREAM_STATE state,
                                  agoraish::LOCAL_VIDEO_STREAM_ERROR error) override {
        static const char* const names[] = {"STOPPED", "CAPTURING", "ENCODING", "FAILED"};
        say(name_, "onLocalVideoStateChanged ", state >= 0 && state < 4 ? names[state] : "?", ", error ", int(error));
    }
    void onRemoteVideoStateChanged(agoraish::uid_t uid, agoraish::REMOTE_VIDEO_STATE state,
                                   agoraish::REMOTE_VIDEO_STATE_REASON reason, int elapsed) override {
        static const char* const names[] = {"STOPPED", "STARTING", "DECODING", "FROZEN", "FAILED"};
        say(name_, "onRemoteVideoStateChanged uid ", uid, ": ", state >= 0 && state < 5 ? names[state] : "?",
            " (reason ", int(reason), "), ", elapsed, " ms");
    }
    void onLocalVideoStats(const agoraish::LocalVideoStats& stats) override {
        std::lock_guard<std::mutex> lock(mutex_);
        localStats_ = stats;
    }
    void onRemoteVideoStats(const agoraish::RemoteVideoStats& stats) override {
        std::lock_guard<std::mutex> lock(mutex_);
        remoteStats_ = stats;
    }

    bool waitJoined(bool joined) { return waitUntil([&] { return joined_ == joined; }); }
    bool waitPeer(bool present) { return waitUntil([&] { return (peer_ != 0) == present; }); }

    void printStats() {
        std::lock_guard<std::mutex> lock(mutex_);
        say(name_, "onLocalVideoStats: sent ", localStats_.sentBitrate, " Kbps at ", localStats_.sentFrameRate,
            " fps, encoded ", localStats_.encodedFrameWidth, "x", localStats_.encodedFrameHeight, ", ",
            localStats_.encodedFrameCount, " frames");
        say(name_, "onRemoteVideoStats uid ", remoteStats_.uid, ": ", remoteStats_.width, "x", remoteStats_.height,
            ", ", remoteStats_.receivedBitrate, " Kbps, ", remoteStats_.decoderOutputFrameRate, " fps decoded, ",
            remoteStats_.packetLossRate, "% lost");
    }

private:
    void update(const std::function<void()>& change) {
        std::lock_guard<std::mutex> lock(mutex_);
        change();
        cond_.notify_all();
    }
    bool waitUntil(const std::function<bool()>& done) {
        std::unique_lock<std::mutex> lock(mutex_);
        return cond_.wait_for(lock, kTimeout, done);
    }

    const char* name_;
    View& remoteView_;
    agoraish::RtcEngine* engine_ = nullptr;
    std::mutex mutex_;
    std::condition_variable cond_;
    bool joined_ = false;
    agoraish::uid_t peer_ = 0;
    agoraish::LocalVideoStats localStats_;
    agoraish::RemoteVideoStats remoteStats_;
};

// ---- the "cameras": I420 pictures pushed through an external source -------------------

class Camera {
public:
    Camera(const char* name, agoraish::RtcEngine& engine, int width, int height)
        : name_(name), engine_(engine), width_(width), height_(height),
          planes_(std::size_t(width) * std::size_t(height) * 3 / 2, 128) {}

    // Picture `n`: dark on the left, bright on the right, with a bar that moves down.
    void push(int n) {
        const int barTop = n * 4 % height_;
        for (int y = 0; y < height_; ++y) {
            const bool bar = y >= barTop && y < barTop + 8;
            for (int x = 0; x < width_; ++x)
                planes_[std::size_t(y * width_ + x)] = std::uint8_t(bar ? 235 : 40 + 160 * x / width_);
        }
        agoraish::ExternalVideoFrame frame;
        frame.format = agoraish::VIDEO_PIXEL_I420;
        frame.width = width_;
        frame.height = height_;
        frame.yBuffer = planes_.data();
        frame.uBuffer = planes_.data() + width_ * height_;
        frame.vBuffer = planes_.data() + width_ * height_ * 5 / 4;
        frame.yStride = width_;
        frame.uStride = frame.vStride = width_ / 2;
        frame.timestamp = std::int64_t(n) * 1000 / kFps;
        if (int rc = engine_.pushExternalVideoFrame(frame); rc != 0 && refused++ == 0) {
            say(name_, "pushExternalVideoFrame(", n, ") = ", rc);
        }
    }

    int refused = 0;

private:
    const char* name_;
    agoraish::RtcEngine& engine_;
    int width_, height_;
    std::vector<std::uint8_t> planes_;
};

int fail(const char* what, int rc) {
    std::cerr << what << " failed: " << rc << " (" << agoraish::RtcEngine::getErrorDescription(rc) << ")\n";
    return 1;
}

}  // namespace

int main() {
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    View localView("local view"), localSeesRemote("local's remote view"), remoteSeesLocal("remote's remote view");
    User local("local", localSeesRemote), remote("remote", remoteSeesLocal);
    if (int rc = server.initialize(); rc != 0) return fail("ChannelServer::initialize", rc);
    if (int rc = server.start(); rc != 0) return fail("ChannelServer::start", rc);
    say("server", server.url());

    agoraish::RtcEngineContext context;
    context.appId = kAppId;
    context.serverUrl = server.url();
    context.eventHandler = &local;
    agoraish::RtcEngine localEngine;
    if (int rc = localEngine.initialize(context); rc != 0) return fail("RtcEngine::initialize (local)", rc);
    local.attach(&localEngine);
    context.eventHandler = &remote;
    agoraish::RtcEngine remoteEngine;
    if (int rc = remoteEngine.initialize(context); rc != 0) return fail("RtcEngine::initialize (remote)", rc);
    remote.attach(&remoteEngine);

    // A video-only call: no microphone, no speaker.
    localEngine.disableAudio();
    remoteEngine.disableAudio();

    // local: video on, 640x360, its local view, and the preview before joining.
    say("local", "enableVideo = ", localEngine.enableVideo());
    say("local", "setVideoEncoderConfiguration(640x360, ", kFps, " fps) = ",
        localEngine.setVideoEncoderConfiguration({{640, 360}, kFps, agoraish::STANDARD_BITRATE}));
    say("local", "setExternalVideoSource(true) = ", localEngine.setExternalVideoSource(true), " (no camera here)");
    say("local", "setupLocalVideo = ", localEngine.setupLocalVideo(agoraish::VideoCanvas(0, &localView)));
    say("local", "startPreview = ", localEngine.startPreview());
    Camera localCamera("local", localEngine, 640, 360), remoteCamera("remote", remoteEngine, 320, 240);
    const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / kFps));
    const int previewPictures = int(kPreview / interval);
    auto start = Clock::now();
    int n = 0;
    for (; n < previewPictures; ++n) {
        localCamera.push(n);
        std::this_thread::sleep_until(start + (n + 1) * interval);
    }
    const int previewShown = localView.report().pictures;
    say("local", "the preview showed ", previewShown, " pictures before joining");

    // remote: video on, 320x240.
    remoteEngine.enableVideo();
    remoteEngine.setVideoEncoderConfiguration({{320, 240}, kFps, agoraish::STANDARD_BITRATE});
    remoteEngine.setExternalVideoSource(true);

    if (int rc = localEngine.joinChannel(nullptr, kChannel, nullptr, 0); rc != 0) return fail("joinChannel", rc);
    if (!local.waitJoined(true)) return fail("waiting for onJoinChannelSuccess", -AGORAISH_ERR_TIMEDOUT);
    if (int rc = remoteEngine.joinChannel(nullptr, kChannel, nullptr, 0); rc != 0) {
        return fail("joinChannel (remote)", rc);
    }
    if (!remote.waitJoined(true) || !local.waitPeer(true) || !remote.waitPeer(true)) {
        return fail("waiting for the users to see each other", -AGORAISH_ERR_TIMEDOUT);
    }

    // Both "cameras" at 15 fps, in real time.
    say("both", "pushing for ", std::chrono::duration_cast<std::chrono::seconds>(kCall).count(),
        " s: local 640x360, remote 320x240");
    const int callPictures = int(kCall / interval);
    start = Clock::now();
    for (int k = 0; k < callPictures; ++k, ++n) {
        localCamera.push(n);
        remoteCamera.push(n);
        std::this_thread::sleep_until(start + (k + 1) * interval);
    }
    std::this_thread::sleep_until(start + kCall + kSettle);

    localView.print();
    localSeesRemote.print();
    remoteSeesLocal.print();
    local.printStats();

    remoteEngine.leaveChannel();
    if (!remote.waitJoined(false) || !local.waitPeer(false)) {
        return fail("waiting for the remote user to leave", -AGORAISH_ERR_TIMEDOUT);
    }
    localEngine.leaveChannel();
    if (!local.waitJoined(false)) return fail("waiting for onLeaveChannel", -AGORAISH_ERR_TIMEDOUT);
    say("local", "stopPreview = ", localEngine.stopPreview());
    localEngine.setupLocalVideo(agoraish::VideoCanvas(0, nullptr));  // waits for a picture being shown

    // The local view is mirrored (the bright right side shows on the left); remote views are not.
    const View::Report lv = localView.report(), lr = localSeesRemote.report(), rl = remoteSeesLocal.report();
    const bool ok = previewShown >= previewPictures / 2 && lv.width == 640 && lv.height == 360 && lv.uid == 0 &&
                    lv.left > lv.right && lr.pictures >= callPictures / 2 && lr.width == 320 && lr.height == 240 &&
                    lr.left < lr.right && rl.pictures >= callPictures / 2 && rl.width == 640 && rl.height == 360 &&
                    localCamera.refused == 0 && remoteCamera.refused == 0;

    remoteEngine.release();
    localEngine.release();
    std::cout << (ok ? "done: the local view showed local's pictures mirrored, each user saw the other's size"
                     : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
