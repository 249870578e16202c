// live_streaming.cpp — Agora's LiveStreaming case in C++: a host broadcasts
// video with dual stream on; the audience watches, and one viewer switches to
// the low stream.
//
//   setChannelProfile(CHANNEL_PROFILE_LIVE_BROADCASTING) -> setClientRole(BROADCASTER | AUDIENCE)
//   host:     enableVideo -> enableDualStreamMode(true) -> setupLocalVideo -> joinChannel
//   audience: enableVideo -> joinChannel -> onUserJoined(host) -> setupRemoteVideo(host)
//             -> setRemoteVideoStreamType(host, REMOTE_VIDEO_STREAM_LOW)   (one viewer, mid-show)
//   -> onRemoteVideoStats (rxStreamType), onLocalVideoStats, onVideoSizeChanged
//   -> leaveChannel -> release
//
// "host" pushes 640x360 pictures at 15 fps for four seconds (this machine has
// no camera): the engine sends them as they are (the high stream) and a second
// time fitted inside 320x180 at half the frame rate (the low stream). In live
// broadcasting STANDARD_BITRATE is twice Agora's base rate. "viewer1" and
// "viewer2" join as audience: invisible to the host (no onUserJoined there),
// they each render the host in a view. After 1.5 s viewer1 asks for the low
// stream; the server switches it at the low stream's next keyframe, while
// viewer2 keeps the high one. The example prints each view's sizes and the
// statistics as they come.
//
//   make hosts && build/examples/live_streaming_cpp
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
const char* const kChannel = "live-streaming";
constexpr agoraish::uid_t kHostUid = 100;
constexpr int kFps = 15;
constexpr int kPictures = 60;  // four seconds
constexpr int kSwitchAt = 22;  // the picture after which viewer1 asks for the low stream (about 1.5 s)
constexpr auto kSettle = 300ms;
constexpr auto kTimeout = 5s;
const Clock::time_point kStart = Clock::now();

std::mutex printMutex;

double seconds() { return std::chrono::duration<double>(Clock::now() - kStart).count(); }

template <typename... Args>
void say(const std::string& who, const Args&... args) {
    std::ostringstream line;
    char prefix[48];
    std::snprintf(prefix, sizeof prefix, "%6.2f s  %-7s  ", seconds(), who.c_str());
    line << prefix;
    (line << ... << args);
    std::lock_guard<std::mutex> lock(printMutex);
    std::cout << line.str() << '\n';
}

// ---- one user: its events and its view of the host ------------------------------------

class User : public agoraish::IRtcEngineEventHandler, public agoraish::IVideoSink {
public:
    struct Report {
        int high = 0, low = 0, other = 0;  // pictures rendered at 640x360, 320x180, another size
        double firstLowAt = 0;             // seconds: the first 320x180 picture
        int lastWidth = 0, lastHeight = 0;
        int localPictures = 0;             // the host's own view
        int usersJoined = 0;
    };

    explicit User(const char* name) : name_(name) {}

    // Creates the engine in live broadcasting with `role`, video on and no audio.
    int initialize(const std::string& url, agoraish::CLIENT_ROLE_TYPE role) {
        agoraish::RtcEngineContext context;
        context.appId = kAppId;
        context.serverUrl = url;
        context.eventHandler = this;
        if (int rc = engine.initialize(context); rc != 0) return rc;
        say(name_, "setChannelProfile(LIVE_BROADCASTING) = ",
            engine.setChannelProfile(agoraish::CHANNEL_PROFILE_LIVE_BROADCASTING), ", setClientRole(",
            role == agoraish::CLIENT_ROLE_BROADCASTER ? "BROADCASTER" : "AUDIENCE", ") = ", engine.setClientRole(role));
        engine.disableAudio();
        return engine.enableVideo();
    }

    // The view: the host's own pictures (uid 0) or the host's as the audience gets them.
    void onFrame(agoraish::uid_t uid, const agoraish::VideoFrame& f) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (uid == 0) {
            ++r_.localPictures;
        } else if (f.width == 640 && f.height == 360) {
            ++r_.high;
        } else if (f.width == 320 && f.height == 180) {
            if (r_.low++ == 0) r_.firstLowAt = seconds();
        } else {
            ++r_.other;
        }
        r_.lastWidth = f.width;
        r_.lastHeight = f.height;
    }

    void onJoinChannelSuccess(const char* channel, agoraish::uid_t uid, int elapsed) override {
        say(name_, "onJoinChannelSuccess \"", channel, "\" uid ", uid, ", ", elapsed, " ms");
        update([&] { joined_ = true; });
    }
    // A broadcaster joined (the audience is never announced): watch it.
    void onUserJoined(agoraish::uid_t uid, int elapsed) override {
        say(name_, "onUserJoined uid ", uid, ", ", elapsed, " ms: setupRemoteVideo = ",
            engine.setupRemoteVideo(agoraish::VideoCanvas(uid, this)));
        update([&] {
            ++r_.usersJoined;
            host_ = uid;
        });
    }
    void onUserOffline(agoraish::uid_t uid, agoraish::USER_OFFLINE_REASON_TYPE reason) override {
        say(name_, "onUserOffline uid ", uid, ", reason ", int(reason), ": setupRemoteVideo(nullptr) = ",
            engine.setupRemoteVideo(agoraish::VideoCanvas(uid, nullptr)));
        update([&] {
            if (host_ == uid) host_ = 0;
        });
    }
    void onLeaveChannel(const agoraish::RtcStats& stats) override {
        say(name_, "onLeaveChannel after ", stats.duration, " s: sent ", stats.txBytes, " bytes, received ",
            stats.rxBytes, " bytes");
        update([&] { joined_ = false; });
    }
    void onClientRoleChanged(agoraish::CLIENT_ROLE_TYPE oldRole, agoraish::CLIENT_ROLE_TYPE newRole) override {
        say(name_, "onClientRoleChanged ", int(oldRole), " -> ", int(newRole));
    }
    void onError(int err, const char* msg) override { say(name_, "onError ", err, ": ", msg); }
    void onVideoSizeChanged(agoraish::uid_t uid, int width, int height, int rotation) override {
        say(name_, "onVideoSizeChanged uid ", uid, ": ", width, "x", height, ", rotation ", rotation);
    }
    void onLocalVideoStats(const agoraish::LocalVideoStats& s) override {
        if (s.sentBitrate == 0) return;  // the audience sends nothing
        say(name_, "onLocalVideoStats: sent ", s.sentBitrate, " Kbps (both streams) at ", s.sentFrameRate,
            " fps, target ", s.targetBitrate, " Kbps, encoded ", s.encodedFrameWidth, "x", s.encodedFrameHeight);
    }
    void onRemoteVideoStats(const agoraish::RemoteVideoStats& s) override {
        const char* stream = s.rxStreamType == agoraish::REMOTE_VIDEO_STREAM_LOW ? "low" : "high";
        say(name_, "onRemoteVideoStats uid ", s.uid, ": ", stream, " stream, ", s.width, "x", s.height, ", ",
            s.receivedBitrate, " Kbps, ", s.rendererOutputFrameRate, " fps rendered");
    }

    bool waitJoined(bool joined) { return waitUntil([&] { return joined_ == joined; }); }
    bool waitHost(bool present) { return waitUntil([&] { return (host_ != 0) == present; }); }
    agoraish::uid_t host() {
        std::lock_guard<std::mutex> lock(mutex_);
        return host_;
    }
    Report report() {
        std::lock_guard<std::mutex> lock(mutex_);
        return r_;
    }

    void print() {
        const Report r = report();
        char low[64] = "";
        if (r.low > 0) std::snprintf(low, sizeof low, " (from %.2f s)", r.firstLowAt);
        say(name_, "rendered ", r.high, " pictures at 640x360 (high), ", r.low, " at 320x180 (low)", low, ", ",
            r.other, " of another size");
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
    std::mutex mutex_;
    std::condition_variable cond_;
    bool joined_ = false;
    agoraish::uid_t host_ = 0;
    Report r_;

public:
    // Declared last, so it is destroyed (released, with release(true)) first:
    // no callback runs once the rest of this user goes.
    agoraish::RtcEngine engine;
};

int fail(const char* what, int rc) {
    std::cerr << what << " failed: " << rc << " (" << agoraish::RtcEngine::getErrorDescription(rc) << ")\n";
    return 1;
}

}  // namespace

int main() {
    agoraish::ChannelServer server;  // declared first: it outlives the users' engines
    if (int rc = server.initialize(); rc != 0) return fail("ChannelServer::initialize", rc);
    if (int rc = server.start(); rc != 0) return fail("ChannelServer::start", rc);
    const std::string url = server.url();
    say("server", url);

    User host("host"), viewer1("viewer1"), viewer2("viewer2");
    if (int rc = host.initialize(url, agoraish::CLIENT_ROLE_BROADCASTER); rc != 0) return fail("host", rc);
    if (int rc = viewer1.initialize(url, agoraish::CLIENT_ROLE_AUDIENCE); rc != 0) return fail("viewer1", rc);
    if (int rc = viewer2.initialize(url, agoraish::CLIENT_ROLE_AUDIENCE); rc != 0) return fail("viewer2", rc);

    // The host: 640x360 at 15 fps, STANDARD_BITRATE, dual stream, its own view.
    say("host", "setVideoEncoderConfiguration(640x360, ", kFps, " fps, STANDARD_BITRATE) = ",
        host.engine.setVideoEncoderConfiguration({{640, 360}, kFps, agoraish::STANDARD_BITRATE}));
    say("host", "enableDualStreamMode(true) = ", host.engine.enableDualStreamMode(true));
    say("host", "setExternalVideoSource(true) = ", host.engine.setExternalVideoSource(true), " (no camera here)");
    say("host", "setupLocalVideo = ", host.engine.setupLocalVideo(agoraish::VideoCanvas(0, &host)));

    if (int rc = host.engine.joinChannel(nullptr, kChannel, nullptr, kHostUid); rc != 0) return fail("joinChannel", rc);
    if (!host.waitJoined(true)) return fail("waiting for the host to join", -AGORAISH_ERR_TIMEDOUT);
    if (int rc = viewer1.engine.joinChannel(nullptr, kChannel, nullptr, 0); rc != 0) return fail("viewer1 joinChannel", rc);
    if (int rc = viewer2.engine.joinChannel(nullptr, kChannel, nullptr, 0); rc != 0) return fail("viewer2 joinChannel", rc);
    if (!viewer1.waitJoined(true) || !viewer2.waitJoined(true) || !viewer1.waitHost(true) || !viewer2.waitHost(true)) {
        return fail("waiting for the audience", -AGORAISH_ERR_TIMEDOUT);
    }

    // The show: a picture every 1/15 s; viewer1 switches to the low stream on the way.
    say("host", "broadcasting 640x360 pictures for 4 s");
    std::vector<std::uint8_t> planes(640 * 360 * 3 / 2, 128);
    agoraish::ExternalVideoFrame frame;
    frame.format = agoraish::VIDEO_PIXEL_I420;
    frame.width = 640;
    frame.height = 360;
    frame.yBuffer = planes.data();
    frame.uBuffer = planes.data() + 640 * 360;
    frame.vBuffer = planes.data() + 640 * 360 * 5 / 4;
    frame.yStride = 640;
    frame.uStride = frame.vStride = 320;
    int refused = 0;
    double switchAt = 0;
    const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / kFps));
    const auto start = Clock::now();
    for (int n = 0; n < kPictures; ++n) {
        for (int row = 0; row < 360; ++row)
            for (int col = 0; col < 640; ++col)
                planes[std::size_t(row * 640 + col)] = ((col + 8 * n) / 40 + row / 40) % 2 ? 200 : 60;
        frame.timestamp = std::int64_t(n) * 1000 / kFps;
        if (int rc = host.engine.pushExternalVideoFrame(frame); rc != 0 && refused++ == 0) {
            say("host", "pushExternalVideoFrame(", n, ") = ", rc);
        }
        if (n == kSwitchAt) {
            switchAt = seconds();
            say("viewer1", "setRemoteVideoStreamType(uid ", viewer1.host(), ", LOW) = ",
                viewer1.engine.setRemoteVideoStreamType(viewer1.host(), agoraish::REMOTE_VIDEO_STREAM_LOW));
        }
        std::this_thread::sleep_until(start + (n + 1) * interval);
    }
    std::this_thread::sleep_until(start + kPictures * interval + kSettle);

    viewer1.print();
    viewer2.print();
    const User::Report h = host.report();
    say("host", "its local view showed ", h.localPictures, " pictures; users it saw join: ", h.usersJoined,
        " (the audience is invisible)");

    host.engine.leaveChannel();
    if (!host.waitJoined(false) || !viewer1.waitHost(false) || !viewer2.waitHost(false)) {
        return fail("waiting for the host to leave", -AGORAISH_ERR_TIMEDOUT);
    }
    viewer1.engine.leaveChannel();
    viewer2.engine.leaveChannel();
    if (!viewer1.waitJoined(false) || !viewer2.waitJoined(false)) {
        return fail("waiting for the audience to leave", -AGORAISH_ERR_TIMEDOUT);
    }
    host.engine.setupLocalVideo(agoraish::VideoCanvas(0, nullptr));

    // viewer1: high, then low after the switch and nothing else; viewer2: high throughout.
    const User::Report v1 = viewer1.report(), v2 = viewer2.report();
    const bool ok = refused == 0 && h.usersJoined == 0 && h.localPictures > 0 && v1.high > 0 && v1.low > 0 &&
                    v1.firstLowAt >= switchAt && v1.lastWidth == 320 && v1.other == 0 &&
                    v2.high >= kPictures * 8 / 10 && v2.low == 0 && v2.other == 0;

    viewer2.engine.release();
    viewer1.engine.release();
    host.engine.release();
    std::cout << (ok ? "done: viewer1 switched to the low stream, viewer2 kept the high one"
                     : "the show did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
