// simulcast.cpp — Agora's Simulcast case in C++: a host sends its video at
// several sizes at once, and each viewer receives the one it asks for.
//
//   setChannelProfile(CHANNEL_PROFILE_LIVE_BROADCASTING) -> setClientRole(BROADCASTER | AUDIENCE)
//   host:    enableVideo -> setVideoEncoderConfiguration(640x360)
//            -> setSimulcastConfig(STREAM_LAYER_1 480x270, STREAM_LAYER_2 320x180, STREAM_LOW 160x90)
//            -> joinChannel -> pushExternalVideoFrame at 15 fps
//   viewers: enableVideo -> joinChannel -> onUserJoined(host) -> setupRemoteVideo(host)
//            -> setRemoteVideoStreamType(host, VIDEO_STREAM_LAYER_1 | VIDEO_STREAM_LAYER_2 | VIDEO_STREAM_LOW)
//   viewer3: setRemoteVideoStreamType(host, VIDEO_STREAM_LAYER_1)   (a switch, mid-show)
//   -> leaveChannel -> release
//
// "host" pushes 640x360 pictures at 15 fps through an external source (this
// machine has no camera). Its SimulcastConfig adds three streams besides the
// high one, each the same picture fitted into its box at its frame rate:
// STREAM_LAYER_1 480x270, STREAM_LAYER_2 320x180 and STREAM_LOW 160x90, all at
// 15 fps. "viewer1", "viewer2" and "viewer3" join as audience, render the host
// in a view and ask for stream types 4 (LAYER_1), 5 (LAYER_2) and 1 (LOW); the
// channel server forwards each the stream it asked for, switching at that
// stream's next keyframe. The example prints the size each viewer settles on
// (ten pictures in a row of one size) and checks it: 480, 320 and 160 wide.
// Then viewer3 asks for LAYER_1 and the example waits until its pictures are
// 480 wide.
//
//   make hosts && build/examples/simulcast_cpp
#include "agoraish.hpp"
#include "example_support.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace {

using example::Clock;
using example::fail;
using example::say;

const char* const kChannel = "simulcast";
constexpr agoraish::uid_t kHostUid = 100;
constexpr int kWidth = 640;
constexpr int kHeight = 360;
constexpr int kFps = 15;
constexpr int kSettled = 10;  // pictures in a row of one size: the stream a viewer receives
constexpr int kViewers = 3;

// What each viewer asks for, and the size of the host's stream of that type.
struct Asked {
    const char* name;
    agoraish::VIDEO_STREAM_TYPE streamType;
    int width, height;
};
const Asked kAsked[kViewers] = {
    {"viewer1", agoraish::VIDEO_STREAM_LAYER_1, 480, 270},
    {"viewer2", agoraish::VIDEO_STREAM_LAYER_2, 320, 180},
    {"viewer3", agoraish::VIDEO_STREAM_LOW, 160, 90},
};
// viewer3's second choice.
const Asked kSwitch = {"viewer3", agoraish::VIDEO_STREAM_LAYER_1, 480, 270};

// The name of a VIDEO_STREAM_TYPE value.
const char* streamTypeName(agoraish::VIDEO_STREAM_TYPE type) {
    static const char* const names[] = {"HIGH",    "LOW",     "?",       "?",       "LAYER_1",
                                        "LAYER_2", "LAYER_3", "LAYER_4", "LAYER_5", "LAYER_6"};
    return type >= 0 && type < 10 ? names[type] : "?";
}

std::string fixed(double value, int digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

// A viewer: its channel events and its view of the host.
class Viewer : public example::User, public agoraish::IVideoSink {
public:
    struct Size {
        int width = 0, height = 0;
    };

    using example::User::User;

    // The host's pictures, on the engine's video thread.
    void onFrame(agoraish::uid_t, const agoraish::VideoFrame& frame) override {
        update([&] {
            if (frame.width == last_.width && frame.height == last_.height) {
                ++inARow_;
            } else {
                last_ = {frame.width, frame.height};
                inARow_ = 1;
            }
        });
    }
    void onVideoSizeChanged(agoraish::uid_t uid, int width, int height, int) override {
        say(name_, "onVideoSizeChanged uid ", uid, ": ", width, "x", height);
    }

    // Asks for `asked.streamType` and waits (at most example::kTimeout) until kSettled
    // pictures in a row have its size; returns whether they came. `was` gets the size before.
    bool askFor(agoraish::RtcEngine& engine, const Asked& asked, Size& was) {
        was = received();
        const int rc = engine.setRemoteVideoStreamType(kHostUid, asked.streamType);
        say(name_, "setRemoteVideoStreamType(", kHostUid, ", ", int(asked.streamType), " ",
            streamTypeName(asked.streamType), ") = ", rc);
        if (rc != 0) return false;
        const bool ok = waitUntil([&] {
            return inARow_ >= kSettled && last_.width == asked.width && last_.height == asked.height;
        });
        if (!ok) say(name_, "no pictures of ", asked.width, "x", asked.height, " within ", example::kTimeout.count(), " s");
        return ok;
    }
    // The size of the last picture.
    Size received() {
        return locked([&] { return last_; });
    }

private:
    // Guarded by the lock.
    Size last_;
    int inARow_ = 0;  // pictures of last_'s size in a row
};

// Live broadcasting with `role`, video on and no audio.
void setUp(agoraish::RtcEngine& engine, agoraish::CLIENT_ROLE_TYPE role) {
    engine.setChannelProfile(agoraish::CHANNEL_PROFILE_LIVE_BROADCASTING);
    engine.setClientRole(role);
    engine.disableAudio();  // a video-only show
    engine.enableVideo();
}

}  // namespace

int main() {
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    example::User host("host");
    Viewer viewers[kViewers] = {Viewer(kAsked[0].name), Viewer(kAsked[1].name), Viewer(kAsked[2].name)};
    agoraish::RtcEngine hostEngine, viewerEngines[kViewers];
    if (int rc = example::startServer(server); rc != 0) return rc;

    // The host: 640x360 at 15 fps, and three streams besides.
    if (int rc = example::createEngine(hostEngine, host, server); rc != 0) return rc;
    setUp(hostEngine, agoraish::CLIENT_ROLE_BROADCASTER);
    say("host", "setVideoEncoderConfiguration(", kWidth, "x", kHeight, ", ", kFps, " fps) = ",
        hostEngine.setVideoEncoderConfiguration({{kWidth, kHeight}, kFps, agoraish::STANDARD_BITRATE}));
    say("host", "setExternalVideoSource(true) = ", hostEngine.setExternalVideoSource(true), " (no camera here)");
    using Simulcast = agoraish::SimulcastConfig;
    Simulcast simulcast;
    simulcast.configs[Simulcast::STREAM_LAYER_1] = {{480, 270}, kFps, true};
    simulcast.configs[Simulcast::STREAM_LAYER_2] = {{320, 180}, kFps, true};
    simulcast.configs[Simulcast::STREAM_LOW] = {{160, 90}, kFps, true};
    const int configured = hostEngine.setSimulcastConfig(simulcast);
    say("host", "setSimulcastConfig(STREAM_LAYER_1 480x270, STREAM_LAYER_2 320x180, STREAM_LOW 160x90, ", kFps,
        " fps) = ", configured);
    if (configured != 0) return fail("setSimulcastConfig", configured);
    if (int rc = hostEngine.joinChannel(nullptr, kChannel, nullptr, kHostUid); rc != 0) return fail("joinChannel", rc);
    if (!host.waitJoined(true)) return fail("waiting for the host to join", -AGORAISH_ERR_TIMEDOUT);

    // The host's "camera": moving squares at 15 fps until the end.
    std::atomic<bool> stop{false};
    std::atomic<int> refused{0};
    std::thread camera([&] {
        std::vector<std::uint8_t> planes(kWidth * kHeight * 3 / 2, 128);
        agoraish::ExternalVideoFrame frame;
        frame.format = agoraish::VIDEO_PIXEL_I420;
        frame.width = kWidth;
        frame.height = kHeight;
        frame.yBuffer = planes.data();
        frame.uBuffer = planes.data() + kWidth * kHeight;
        frame.vBuffer = planes.data() + kWidth * kHeight * 5 / 4;
        frame.yStride = kWidth;
        frame.uStride = frame.vStride = kWidth / 2;
        const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / kFps));
        const auto start = Clock::now();
        for (int n = 0; !stop; ++n) {
            for (int row = 0; row < kHeight; ++row)
                for (int col = 0; col < kWidth; ++col)
                    planes[std::size_t(row * kWidth + col)] = ((col + 8 * n) / 40 + row / 40) % 2 ? 200 : 60;
            frame.timestamp = std::int64_t(n) * 1000 / kFps;
            if (int rc = hostEngine.pushExternalVideoFrame(frame); rc != 0 && refused++ == 0) {
                say("host", "pushExternalVideoFrame(", n, ") = ", rc);
            }
            std::this_thread::sleep_until(start + (n + 1) * interval);
        }
    });

    // The viewers: join, watch the host, and ask each for its stream.
    bool ok = true;
    for (int i = 0; i < kViewers && ok; ++i) {
        if (int rc = example::createEngine(viewerEngines[i], viewers[i], server); rc != 0) {
            ok = false;
            break;
        }
        setUp(viewerEngines[i], agoraish::CLIENT_ROLE_AUDIENCE);
        const int rc = viewerEngines[i].joinChannel(nullptr, kChannel, nullptr, 0);
        ok = rc == 0 && viewers[i].waitJoined(true) && viewers[i].waitPeer(true);
        if (!ok) {
            std::cerr << kAsked[i].name << " did not join: " << rc << " ("
                      << agoraish::RtcEngine::getErrorDescription(rc != 0 ? rc : -AGORAISH_ERR_TIMEDOUT) << ")\n";
            break;
        }
        say(kAsked[i].name, "setupRemoteVideo(", kHostUid, ") = ",
            viewerEngines[i].setupRemoteVideo(agoraish::VideoCanvas(kHostUid, &viewers[i])));
    }
    Viewer::Size was;
    for (int i = 0; i < kViewers && ok; ++i) {
        ok = viewers[i].askFor(viewerEngines[i], kAsked[i], was);
        const Viewer::Size size = viewers[i].received();
        say(kAsked[i].name, "asked for ", int(kAsked[i].streamType), " (", streamTypeName(kAsked[i].streamType),
            "), receives ", size.width, "x", size.height);
    }

    // viewer3 changes its mind: LAYER_1 instead of the low stream.
    if (ok) {
        Viewer& viewer3 = viewers[kViewers - 1];
        const auto asked = Clock::now();
        ok = viewer3.askFor(viewerEngines[kViewers - 1], kSwitch, was);
        const Viewer::Size size = viewer3.received();
        say(kSwitch.name, "switched to ", int(kSwitch.streamType), " (", streamTypeName(kSwitch.streamType),
            "), receives ", size.width, "x", size.height, " (was ", was.width, "x", was.height, ") ",
            fixed(std::chrono::duration<double>(Clock::now() - asked).count(), 2), " s after asking");
    }

    // The show ends: the viewers leave, then the host.
    for (int i = 0; i < kViewers; ++i) {
        if (viewerEngines[i].leaveChannel() == 0) ok = viewers[i].waitJoined(false) && ok;
    }
    hostEngine.leaveChannel();
    ok = host.waitJoined(false) && ok;
    stop = true;
    camera.join();
    ok = ok && refused == 0;

    for (auto& engine : viewerEngines) engine.release();
    hostEngine.release();
    std::cout << (ok ? "done: each viewer received the stream it asked for, and viewer3 its new one"
                     : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
