// raw_video_data.cpp — Agora's RawVideoData case in C++: an
// IVideoFrameObserver gets the raw pictures of the video path and draws on them.
//
//   registerVideoFrameObserver(&observer)  (getObservedFramePosition: POST_CAPTURER | PRE_ENCODER | PRE_RENDERER)
//   -> joinChannel
//   -> onCaptureVideoFrame     each local picture as pushed: draws a white square that moves
//   -> onPreEncodeVideoFrame   each local picture as the encoder gets it (fitted to 480x270)
//   -> onRenderVideoFrame      each remote picture before the view: turns it gray
//   -> registerVideoFrameObserver(nullptr) -> leaveChannel -> release
//
// "local" observes. It pushes colourful 640x360 pictures from a thread named
// "local-camera" (the engine calls the capture and pre-encode positions on
// that thread) and sends them at 480x270. "remote", a second engine in the
// same process, pushes colourful 320x240 pictures and shows what it receives
// from local in an IVideoSink, where it looks for the white square.
//
// Each callback may change the planes in place (the change is what is sent or
// shown) and returns true to keep the picture or false to drop it: the
// capture position here drops one picture in ten, which remote never
// receives. The example reports, for each position, how many pictures it saw,
// their size and the thread; where remote saw the square (it moves to the
// right); and how much colour is left in what local shows of remote (none:
// the render position turned it gray).
//
//   make hosts && build/examples/raw_video_data_cpp
#include "agoraish.hpp"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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
const char* const kChannel = "raw-video-data";
constexpr agoraish::uid_t kLocalUid = 1001;
constexpr agoraish::uid_t kRemoteUid = 2002;
constexpr int kFps = 15;
constexpr int kPictures = 45;  // three seconds
constexpr int kSquare = 64;    // the square's side, in pixels of the captured picture
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

std::string threadName() {
    char name[16] = "";
    pthread_getname_np(pthread_self(), name, sizeof name);
    return name;
}

// ---- the observer ------------------------------------------------------------------

class Observer : public agoraish::IVideoFrameObserver {
public:
    struct Position {
        int pictures = 0, dropped = 0, width = 0, height = 0;
        std::string thread;
    };

    // POST_CAPTURER, on the pushing thread: a white square that moves 6 pixels
    // per picture; every tenth picture is dropped (not sent).
    bool onCaptureVideoFrame(VideoFrame& f) override {
        int x;
        bool keep;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            note(capture_, f);
            x = nextX_;
            nextX_ = (x + 6) % (f.width - kSquare);
            keep = capture_.pictures % 10 != 0;
            if (!keep) ++capture_.dropped;
        }
        for (int row = (f.height - kSquare) / 2; row < (f.height + kSquare) / 2; ++row) {
            std::memset(f.yBuffer + std::size_t(row) * std::size_t(f.yStride) + x, 235, kSquare);
        }
        for (int row = (f.height - kSquare) / 4; row < (f.height + kSquare) / 4; ++row) {
            std::memset(f.uBuffer + std::size_t(row) * std::size_t(f.uStride) + x / 2, 128, kSquare / 2);
            std::memset(f.vBuffer + std::size_t(row) * std::size_t(f.vStride) + x / 2, 128, kSquare / 2);
        }
        return keep;
    }

    // PRE_ENCODER, on the pushing thread: the picture as the encoder gets it.
    bool onPreEncodeVideoFrame(VideoFrame& f) override {
        std::lock_guard<std::mutex> lock(mutex_);
        note(preEncode_, f);
        return true;
    }

    // PRE_RENDERER, on the engine's video thread: remote's picture turned gray.
    bool onRenderVideoFrame(agoraish::uid_t, VideoFrame& f) override {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            note(render_, f);
        }
        for (int row = 0; row < (f.height + 1) / 2; ++row) {
            std::memset(f.uBuffer + std::size_t(row) * std::size_t(f.uStride), 128, std::size_t(f.width + 1) / 2);
            std::memset(f.vBuffer + std::size_t(row) * std::size_t(f.vStride), 128, std::size_t(f.width + 1) / 2);
        }
        return true;
    }

    int getObservedFramePosition() override {
        return agoraish::POSITION_POST_CAPTURER | agoraish::POSITION_PRE_ENCODER | agoraish::POSITION_PRE_RENDERER;
    }

    Position capture() {
        std::lock_guard<std::mutex> lock(mutex_);
        return capture_;
    }
    Position preEncode() {
        std::lock_guard<std::mutex> lock(mutex_);
        return preEncode_;
    }
    Position render() {
        std::lock_guard<std::mutex> lock(mutex_);
        return render_;
    }

private:
    static void note(Position& p, const VideoFrame& f) {
        if (p.pictures++ == 0) p.thread = threadName();
        p.width = f.width;
        p.height = f.height;
    }

    std::mutex mutex_;
    Position capture_, preEncode_, render_;
    int nextX_ = 0;
};

// ---- the views ---------------------------------------------------------------------

class View : public agoraish::IVideoSink {
public:
    struct Report {
        int pictures = 0, width = 0, height = 0;
        int withSquare = 0, firstX = 0, lastX = 0, movedRight = 0, movedLeft = 0;  // the white square
        double colour = 0;  // the last picture's average |U - 128| + |V - 128|
    };

    explicit View(std::string name) : name_(std::move(name)) {}

    void onFrame(agoraish::uid_t uid, const agoraish::VideoFrame& f) override {
        const int x = squareX(f);
        const double colour = colourOf(f);
        std::lock_guard<std::mutex> lock(mutex_);
        if (r_.pictures++ == 0) say(name_, "first picture: uid ", uid, ", ", f.width, "x", f.height);
        r_.width = f.width;
        r_.height = f.height;
        r_.colour = colour;
        if (x >= 0) {
            if (r_.withSquare == 0) r_.firstX = x;
            else if (x > r_.lastX) ++r_.movedRight;
            else if (x < r_.lastX) ++r_.movedLeft;  // wrapped around
            ++r_.withSquare;
            r_.lastX = x;
        }
    }

    Report report() {
        std::lock_guard<std::mutex> lock(mutex_);
        return r_;
    }

private:
    // Where the white square is: the first column of 16 white pixels on the middle row; -1 if none.
    static int squareX(const agoraish::VideoFrame& f) {
        const std::uint8_t* row = f.yBuffer + std::size_t(f.height / 2) * std::size_t(f.yStride);
        int run = 0;
        for (int x = 0; x < f.width; ++x) {
            run = row[x] > 220 ? run + 1 : 0;
            if (run == 16) return x - 15;
        }
        return -1;
    }

    static double colourOf(const agoraish::VideoFrame& f) {
        long sum = 0;
        for (int row = 0; row < f.height / 2; ++row)
            for (int col = 0; col < f.width / 2; ++col)
                sum += std::abs(f.uBuffer[row * f.uStride + col] - 128) + std::abs(f.vBuffer[row * f.vStride + col] - 128);
        return f.width > 1 && f.height > 1 ? double(sum) / ((f.width / 2) * (f.height / 2)) : 0;
    }

    std::string name_;
    std::mutex mutex_;
    Report r_;
};

// ---- one user's events ---------------------------------------------------------------

class User : public agoraish::IRtcEngineEventHandler {
public:
    explicit User(const char* name) : name_(name) {}

    void onJoinChannelSuccess(const char* channel, agoraish::uid_t uid, int elapsed) override {
        say(name_, "onJoinChannelSuccess \"", channel, "\" uid ", uid, ", ", elapsed, " ms");
        update([&] { joined_ = true; });
    }
    void onUserJoined(agoraish::uid_t uid, int elapsed) override {
        say(name_, "onUserJoined uid ", uid, ", ", elapsed, " ms");
        update([&] { peer_ = true; });
    }
    void onUserOffline(agoraish::uid_t uid, agoraish::USER_OFFLINE_REASON_TYPE reason) override {
        say(name_, "onUserOffline uid ", uid, ", reason ", int(reason));
        update([&] { peer_ = false; });
    }
    void onLeaveChannel(const agoraish::RtcStats& stats) override {
        say(name_, "onLeaveChannel after ", stats.duration, " s");
        update([&] { joined_ = false; });
    }
    void onFirstRemoteVideoFrame(agoraish::uid_t uid, int width, int height, int elapsed) override {
        say(name_, "onFirstRemoteVideoFrame uid ", uid, ", ", width, "x", height, ", ", elapsed, " ms");
    }
    void onError(int err, const char* msg) override { say(name_, "onError ", err, ": ", msg); }

    bool waitJoined(bool joined) { return waitUntil([&] { return joined_ == joined; }); }
    bool waitPeer(bool present) { return waitUntil([&] { return peer_ == present; }); }

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
    std::mutex mutex_;
    std::condition_variable cond_;
    bool joined_ = false;
    bool peer_ = false;
};

// ---- the "cameras" ---------------------------------------------------------------------

struct CameraResult {
    int pushed = 0, refused = 0;
};

// Colourful I420 pictures at 15 fps from a thread named `name`: hue across, brightness down.
CameraResult runCamera(const char* name, agoraish::RtcEngine& engine, int width, int height) {
    pthread_setname_np(pthread_self(), name);
    const std::size_t luma = std::size_t(width) * std::size_t(height);
    std::vector<std::uint8_t> planes(luma * 3 / 2);
    for (int row = 0; row < height; ++row)
        for (int col = 0; col < width; ++col)
            planes[std::size_t(row * width + col)] = std::uint8_t(60 + 100 * row / height);
    for (int row = 0; row < height / 2; ++row) {
        for (int col = 0; col < width / 2; ++col) {
            planes[luma + std::size_t(row * width / 2 + col)] = std::uint8_t(64 + 128 * col / (width / 2));
            planes[luma * 5 / 4 + std::size_t(row * width / 2 + col)] = std::uint8_t(192 - 128 * col / (width / 2));
        }
    }
    agoraish::ExternalVideoFrame frame;
    frame.format = agoraish::VIDEO_PIXEL_I420;
    frame.width = width;
    frame.height = height;
    frame.yBuffer = planes.data();
    frame.uBuffer = planes.data() + luma;
    frame.vBuffer = planes.data() + luma * 5 / 4;
    frame.yStride = width;
    frame.uStride = frame.vStride = width / 2;
    CameraResult result;
    const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / kFps));
    const auto start = Clock::now();
    for (int n = 0; n < kPictures; ++n) {
        frame.timestamp = std::int64_t(n) * 1000 / kFps;
        if (int rc = engine.pushExternalVideoFrame(frame); rc != 0 && result.refused++ == 0) {
            say(name, "pushExternalVideoFrame(", n, ") = ", rc);
        }
        ++result.pushed;
        std::this_thread::sleep_until(start + (n + 1) * interval);
    }
    return result;
}

int fail(const char* what, int rc) {
    std::cerr << what << " failed: " << rc << " (" << agoraish::RtcEngine::getErrorDescription(rc) << ")\n";
    return 1;
}

void report(const char* position, const Observer::Position& p) {
    char text[160];
    std::snprintf(text, sizeof text, "%-21s %3d pictures of %dx%d on thread \"%s\"", position, p.pictures, p.width,
                  p.height, p.thread.c_str());
    say("local", text);
}

}  // namespace

int main() {
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    Observer observer;
    View localView("local's view"), remoteView("remote's view");
    if (int rc = server.initialize(); rc != 0) return fail("ChannelServer::initialize", rc);
    if (int rc = server.start(); rc != 0) return fail("ChannelServer::start", rc);
    say("server", server.url());

    agoraish::RtcEngineContext context;
    context.appId = kAppId;
    context.serverUrl = server.url();
    context.eventHandler = &local;
    agoraish::RtcEngine localEngine;
    if (int rc = localEngine.initialize(context); rc != 0) return fail("RtcEngine::initialize (local)", rc);
    context.eventHandler = &remote;
    agoraish::RtcEngine remoteEngine;
    if (int rc = remoteEngine.initialize(context); rc != 0) return fail("RtcEngine::initialize (remote)", rc);

    // A video-only call: no microphone, no speaker. Both push their pictures.
    for (agoraish::RtcEngine* engine : {&localEngine, &remoteEngine}) {
        engine->disableAudio();
        engine->enableVideo();
        engine->setExternalVideoSource(true);
    }
    say("local", "setVideoEncoderConfiguration(480x270) = ",
        localEngine.setVideoEncoderConfiguration({{480, 270}, kFps, agoraish::STANDARD_BITRATE}));
    remoteEngine.setVideoEncoderConfiguration({{320, 240}, kFps, agoraish::STANDARD_BITRATE});

    // local's observer, before joining, with the positions getObservedFramePosition() names.
    if (int rc = localEngine.registerVideoFrameObserver(&observer); rc != 0) {
        return fail("registerVideoFrameObserver", rc);
    }
    say("local", "registerVideoFrameObserver(POST_CAPTURER | PRE_ENCODER | PRE_RENDERER) = 0");

    localEngine.setupRemoteVideo(agoraish::VideoCanvas(kRemoteUid, &localView));
    remoteEngine.setupRemoteVideo(agoraish::VideoCanvas(kLocalUid, &remoteView));
    if (int rc = localEngine.joinChannel(nullptr, kChannel, nullptr, kLocalUid); rc != 0) return fail("joinChannel", rc);
    if (!local.waitJoined(true)) return fail("waiting for onJoinChannelSuccess", -AGORAISH_ERR_TIMEDOUT);
    if (int rc = remoteEngine.joinChannel(nullptr, kChannel, nullptr, kRemoteUid); rc != 0) {
        return fail("joinChannel (remote)", rc);
    }
    if (!remote.waitJoined(true) || !local.waitPeer(true) || !remote.waitPeer(true)) {
        return fail("waiting for the users to see each other", -AGORAISH_ERR_TIMEDOUT);
    }

    say("both", "pushing for 3 s: local 640x360 (sent at 480x270), remote 320x240");
    CameraResult localCamera, remoteCamera;
    const auto start = Clock::now();
    std::thread localThread([&] { localCamera = runCamera("local-camera", localEngine, 640, 360); });
    std::thread remoteThread([&] { remoteCamera = runCamera("remote-camera", remoteEngine, 320, 240); });
    localThread.join();
    remoteThread.join();
    std::this_thread::sleep_until(start + std::chrono::milliseconds(kPictures * 1000 / kFps) + kSettle);

    // After this returns no render callback of the observer runs.
    say("local", "registerVideoFrameObserver(nullptr) = ", localEngine.registerVideoFrameObserver(nullptr));
    localEngine.setupRemoteVideo(agoraish::VideoCanvas(kRemoteUid, nullptr));
    remoteEngine.setupRemoteVideo(agoraish::VideoCanvas(kLocalUid, nullptr));

    const Observer::Position capture = observer.capture(), preEncode = observer.preEncode(), render = observer.render();
    report("onCaptureVideoFrame", capture);
    say("local", "  ", capture.dropped, " of them dropped (returned false)");
    report("onPreEncodeVideoFrame", preEncode);
    report("onRenderVideoFrame", render);
    const View::Report rv = remoteView.report(), lv = localView.report();
    say("remote", "showed ", rv.pictures, " pictures of ", rv.width, "x", rv.height, "; the white square in ",
        rv.withSquare, ", from x = ", rv.firstX, " to x = ", rv.lastX, " (moved right ", rv.movedRight,
        " times, wrapped ", rv.movedLeft, ")");
    char colour[16];
    std::snprintf(colour, sizeof colour, "%.1f", lv.colour);
    say("local", "showed ", lv.pictures, " pictures of remote at ", lv.width, "x", lv.height,
        "; colour left after onRenderVideoFrame: ", colour);

    remoteEngine.leaveChannel();
    if (!remote.waitJoined(false) || !local.waitPeer(false)) {
        return fail("waiting for the remote user to leave", -AGORAISH_ERR_TIMEDOUT);
    }
    localEngine.leaveChannel();
    if (!local.waitJoined(false)) return fail("waiting for onLeaveChannel", -AGORAISH_ERR_TIMEDOUT);

    const bool ok = localCamera.refused == 0 && remoteCamera.refused == 0 && capture.pictures == localCamera.pushed &&
                    capture.width == 640 && capture.dropped == localCamera.pushed / 10 &&
                    preEncode.pictures == capture.pictures - capture.dropped && preEncode.width == 480 &&
                    preEncode.height == 270 && capture.thread == "local-camera" &&
                    render.thread.compare(0, 12, "agoraish-vid") == 0 && render.pictures >= remoteCamera.pushed * 8 / 10 &&
                    rv.pictures >= preEncode.pictures * 8 / 10 && rv.pictures <= preEncode.pictures &&
                    rv.withSquare == rv.pictures && rv.movedRight > rv.pictures / 2 && lv.pictures > 0 && lv.colour < 1.0;

    remoteEngine.release();
    localEngine.release();
    std::cout << (ok ? "done: the observer drew on local's pictures and took the colour out of remote's"
                     : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
