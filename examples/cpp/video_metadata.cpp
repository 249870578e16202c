// video_metadata.cpp — Agora's VideoMetadata case in C++: a few bytes of the
// host's own (subtitles, scores, a cue) travel with each video picture and
// reach the others with that picture's timestamp.
//
//   registerMediaMetadataObserver(&observer, IMetadataObserver::VIDEO_METADATA)
//   -> getMaxMetadataSize()                  (asked once, when registered)
//   -> enableVideo -> joinChannel
//   -> onReadyToSendMetadata(metadata)       (each picture sent: fill the buffer, return true)
//   -> onMetadataReceived(metadata) on the others, with the picture's timestamp
//   -> leaveChannel -> registerMediaMetadataObserver(nullptr) -> release
//
// Both users register an observer of the same class (Agora's
// IMetadataObserver is one object for both directions). "local" pushes 20
// pictures of 320x240 at 15 fps through an external source (no camera here),
// and its observer attaches "frame <timestamp>" to each one it sends;
// "remote", a second engine in the same process, renders the pictures
// through an IVideoSink and prints each piece of metadata as it arrives. The
// metadata travels reliably beside the video (on the media path, as a data
// stream does) and carries the timestamp the picture was pushed with. The
// example checks that what arrived names its own timestamp, in order, and
// that most pictures brought some. Audio is off on both engines.
//
//   make hosts && build/examples/video_metadata_cpp
#include "agoraish.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
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
const char* const kChannel = "video-metadata";
constexpr int kWidth = 320;
constexpr int kHeight = 240;
constexpr int kFps = 15;
constexpr int kPushed = 20;
constexpr int kMaxMetadata = 64;  // what this host's metadata needs (Agora's case asks for 1024)
constexpr auto kSettle = 500ms;   // after the last push, for the last metadata to arrive
constexpr auto kTimeout = 5s;
const Clock::time_point kStart = Clock::now();

std::mutex printMutex;

template <typename... Args>
void say(const char* who, const Args&... args) {
    std::ostringstream line;
    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "%6.2f s  %-6s  ",
                  std::chrono::duration<double>(Clock::now() - kStart).count(), who);
    line << prefix;
    (line << ... << args);
    std::lock_guard<std::mutex> lock(printMutex);
    std::cout << line.str() << '\n';
}

// A user's channel events, remembered so main can wait for them.
class User : public agoraish::IRtcEngineEventHandler {
public:
    explicit User(const char* name) : name_(name) {}

    void onJoinChannelSuccess(const char* channel, agoraish::uid_t uid, int elapsed) override {
        say(name_, "onJoinChannelSuccess \"", channel, "\" uid ", uid, ", ", elapsed, " ms");
        update([&] { joined_ = true; });
    }
    void onUserJoined(agoraish::uid_t uid, int elapsed) override {
        say(name_, "onUserJoined uid ", uid, ", ", elapsed, " ms");
        update([&] { peer_ = uid; });
    }
    void onUserOffline(agoraish::uid_t uid, agoraish::USER_OFFLINE_REASON_TYPE reason) override {
        say(name_, "onUserOffline uid ", uid, ", reason ", int(reason));
        update([&] {
            if (peer_ == uid) peer_ = 0;
        });
    }
    void onLeaveChannel(const agoraish::RtcStats& stats) override {
        say(name_, "onLeaveChannel after ", stats.duration, " s");
        update([&] { joined_ = false; });
    }
    void onError(int err, const char* msg) override { say(name_, "onError ", err, ": ", msg); }
    void onFirstRemoteVideoDecoded(agoraish::uid_t uid, int width, int height, int elapsed) override {
        say(name_, "onFirstRemoteVideoDecoded uid ", uid, ", ", width, "x", height, ", ", elapsed, " ms");
    }

    bool waitJoined(bool joined) { return waitUntil([&] { return joined_ == joined; }); }
    bool waitPeer(bool present) { return waitUntil([&] { return (peer_ != 0) == present; }); }
    agoraish::uid_t peer() {
        std::lock_guard<std::mutex> lock(mutex_);
        return peer_;
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
    agoraish::uid_t peer_ = 0;
};

// One user's metadata source and sink: "frame <timestamp>" on each picture
// sent, and what arrived.
class Captions : public agoraish::IMetadataObserver {
public:
    struct Received {
        unsigned int uid;
        long long timestamp;
        std::string text;
    };

    explicit Captions(const char* who) : who_(who) {}

    int getMaxMetadataSize() override { return kMaxMetadata; }

    // On the thread that pushes the picture: fill the library's buffer.
    bool onReadyToSendMetadata(Metadata& metadata) override {
        const std::string text = "frame " + std::to_string(metadata.timeStampMs);
        if (text.size() > metadata.size) return false;  // does not fit: nothing for this picture
        std::memcpy(metadata.buffer, text.data(), text.size());
        metadata.size = static_cast<unsigned int>(text.size());
        std::lock_guard<std::mutex> lock(mutex_);
        ++attached_;
        return true;
    }

    // On the event thread; the buffer is valid during the call only.
    void onMetadataReceived(const Metadata& metadata) override {
        const std::string text(reinterpret_cast<const char*>(metadata.buffer), metadata.size);
        say(who_, "onMetadataReceived uid ", metadata.uid, ", picture of ", metadata.timeStampMs, " ms: \"", text,
            "\"");
        std::lock_guard<std::mutex> lock(mutex_);
        received_.push_back({metadata.uid, metadata.timeStampMs, text});
    }

    int attached() {
        std::lock_guard<std::mutex> lock(mutex_);
        return attached_;
    }
    std::vector<Received> received() {
        std::lock_guard<std::mutex> lock(mutex_);
        return received_;
    }

private:
    const char* who_;
    std::mutex mutex_;
    int attached_ = 0;
    std::vector<Received> received_;
};

// remote's view of local: counts the pictures rendered (engine's video thread).
class View : public agoraish::IVideoSink {
public:
    void onFrame(agoraish::uid_t, const agoraish::VideoFrame&) override {
        std::lock_guard<std::mutex> lock(mutex_);
        ++pictures_;
    }
    int pictures() {
        std::lock_guard<std::mutex> lock(mutex_);
        return pictures_;
    }

private:
    std::mutex mutex_;
    int pictures_ = 0;
};

// Picture `n` in I420: grey, with a bright bar that moves down.
void drawPicture(std::vector<std::uint8_t>& planes, int n) {
    const int top = n * 8 % kHeight;
    for (int row = 0; row < kHeight; ++row) {
        std::memset(planes.data() + std::size_t(row) * kWidth, row >= top && row < top + 8 ? 235 : 90, kWidth);
    }
    std::memset(planes.data() + kWidth * kHeight, 128, kWidth * kHeight / 2);
}

int fail(const char* what, int rc) {
    std::cerr << what << " failed: " << rc << " (" << agoraish::RtcEngine::getErrorDescription(rc) << ")\n";
    std::cout << "the call did not go as expected\n";
    return 1;
}

}  // namespace

int main() {
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    Captions sent("local"), heard("remote");
    View view;
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

    // Both: the observer, video on, audio off.
    if (int rc = localEngine.registerMediaMetadataObserver(&sent, agoraish::IMetadataObserver::VIDEO_METADATA);
        rc != 0) {
        return fail("registerMediaMetadataObserver", rc);
    }
    if (int rc = remoteEngine.registerMediaMetadataObserver(&heard, agoraish::IMetadataObserver::VIDEO_METADATA);
        rc != 0) {
        return fail("registerMediaMetadataObserver (remote)", rc);
    }
    say("both", "registerMediaMetadataObserver(VIDEO_METADATA) = 0, at most ", kMaxMetadata, " bytes a picture");
    localEngine.disableAudio();
    remoteEngine.disableAudio();
    localEngine.enableVideo();
    remoteEngine.enableVideo();

    // local sends what it pushes: 320x240 at 15 fps.
    const agoraish::VideoEncoderConfiguration encoder({kWidth, kHeight}, kFps, agoraish::STANDARD_BITRATE);
    if (int rc = localEngine.setVideoEncoderConfiguration(encoder); rc != 0) {
        return fail("setVideoEncoderConfiguration", rc);
    }
    if (int rc = localEngine.setExternalVideoSource(true); rc != 0) return fail("setExternalVideoSource", rc);
    say("local", "setVideoEncoderConfiguration(", kWidth, "x", kHeight, ", ", kFps,
        " fps), setExternalVideoSource(true) = 0");

    if (int rc = localEngine.joinChannel(nullptr, kChannel, nullptr, 0); rc != 0) return fail("joinChannel", rc);
    if (!local.waitJoined(true)) return fail("waiting for onJoinChannelSuccess", -AGORAISH_ERR_TIMEDOUT);
    if (int rc = remoteEngine.joinChannel(nullptr, kChannel, nullptr, 0); rc != 0) {
        return fail("joinChannel (remote)", rc);
    }
    if (!remote.waitJoined(true) || !local.waitPeer(true) || !remote.waitPeer(true)) {
        return fail("waiting for the users to see each other", -AGORAISH_ERR_TIMEDOUT);
    }
    const agoraish::uid_t localUid = remote.peer();
    if (int rc = remoteEngine.setupRemoteVideo(agoraish::VideoCanvas(localUid, &view)); rc != 0) {
        return fail("setupRemoteVideo", rc);
    }

    // local's "camera": a picture every 1/15 s, in real time; the timestamp is what the metadata carries.
    say("local", "pushing ", kPushed, " pictures of ", kWidth, "x", kHeight, " at ", kFps, " fps");
    std::vector<std::uint8_t> planes(std::size_t(kWidth) * kHeight * 3 / 2);
    agoraish::ExternalVideoFrame frame;
    frame.format = agoraish::VIDEO_PIXEL_I420;
    frame.width = kWidth;
    frame.height = kHeight;
    frame.yBuffer = planes.data();
    frame.uBuffer = planes.data() + kWidth * kHeight;
    frame.vBuffer = planes.data() + kWidth * kHeight * 5 / 4;
    frame.yStride = kWidth;
    frame.uStride = frame.vStride = kWidth / 2;
    int refused = 0;
    const auto start = Clock::now();
    const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / kFps));
    for (int n = 0; n < kPushed; ++n) {
        drawPicture(planes, n);
        frame.timestamp = std::int64_t(n) * 1000 / kFps;
        if (int rc = localEngine.pushExternalVideoFrame(frame); rc != 0 && refused++ == 0) {
            say("local", "pushExternalVideoFrame(", n, ") = ", rc);
        }
        std::this_thread::sleep_until(start + (n + 1) * interval);
    }
    std::this_thread::sleep_until(start + kPushed * interval + kSettle);

    // Unbinding waits for a picture being rendered: afterwards the count stays put.
    remoteEngine.setupRemoteVideo(agoraish::VideoCanvas(localUid, nullptr));
    remoteEngine.leaveChannel();
    if (!remote.waitJoined(false) || !local.waitPeer(false)) {
        return fail("waiting for the remote user to leave", -AGORAISH_ERR_TIMEDOUT);
    }
    localEngine.leaveChannel();
    if (!local.waitJoined(false)) return fail("waiting for onLeaveChannel", -AGORAISH_ERR_TIMEDOUT);
    localEngine.registerMediaMetadataObserver(nullptr);
    remoteEngine.registerMediaMetadataObserver(nullptr);

    // What arrived: each names its picture's timestamp, in order, from local.
    const int attached = sent.attached();
    const std::vector<Captions::Received> got = heard.received();
    int mismatched = 0, outOfOrder = 0, others = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (got[i].text != "frame " + std::to_string(got[i].timestamp)) ++mismatched;
        if (i > 0 && got[i].timestamp <= got[i - 1].timestamp) ++outOfOrder;
        if (got[i].uid != localUid) ++others;
    }
    say("local", "pushed ", kPushed, " pictures (", refused, " refused), attached metadata to ", attached);
    say("remote", "rendered ", view.pictures(), " pictures; ", got.size(), " metadata, ", others,
        " from another uid, ", mismatched, " not naming their picture, ", outOfOrder, " out of order");
    const bool ok = refused == 0 && attached >= kPushed * 3 / 4 && int(got.size()) >= kPushed * 3 / 4 &&
                    int(got.size()) <= attached && others == 0 && mismatched == 0 && outOfOrder == 0 &&
                    view.pictures() >= kPushed / 2;

    remoteEngine.release();
    localEngine.release();
    std::cout << (ok ? "done: remote got each picture's metadata with its timestamp, in order"
                     : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
