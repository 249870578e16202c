// transparent_render.cpp — Agora's TransparentRender case in C++: pictures with
// an alpha channel, from a video file and from the host, reach their canvases
// with their alpha planes.
//
//   createMediaPlayer -> setView -> open(WebM VP8 with alpha) -> play
//   -> the view gets each picture with VideoFrame::alphaBuffer
//   setExternalVideoSource -> setupLocalVideo -> startPreview
//   -> pushExternalVideoFrame(ExternalVideoFrame with alphaBuffer)
//   -> the local canvas gets it with alphaBuffer
//   -> remote users get the picture without alpha (VP8 over RTP carries none)
//
// "local" plays a 3 s WebM (VP8 with an alpha channel: FFmpeg's moving test
// pattern inside an opaque disc of radius 70 that moves to the right, fully
// transparent around it) that the example makes first with the ffmpeg
// command-line tool in demo-out/transparent_render.webm; its player's view
// counts the transparent and opaque pixels of each picture and follows the
// disc. At the same time local sends pictures of its own through an external
// video source, each with an alpha plane (its left quarter opaque, the next
// quarter half transparent, the right half transparent), and watches them in
// its preview (setupLocalVideo, startPreview), mirrored as a preview is: the
// alpha plane is mirrored with the picture. "remote", a second engine in the
// same process, receives local's pictures in the call: without alpha.
//
//   make hosts && build/examples/transparent_render_cpp
#include "agoraish.hpp"
#include "example_support.hpp"

#include <array>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using example::Clock;
using example::fail;
using example::say;

const char* const kChannel = "transparent-render";
const char* const kMovie = "demo-out/transparent_render.webm";
constexpr int kWidth = 320, kHeight = 240, kFps = 15;
constexpr int kRadius = 70;
constexpr int kSeconds = 3;
constexpr int kPushed = 30;  // two seconds of local's own pictures

std::string fixed(double value, int digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

// A user's channel events.
class User : public example::User {
public:
    using example::User::User;

    void onFirstLocalVideoFrame(int width, int height, int elapsed) override {
        say(name_, "onFirstLocalVideoFrame ", width, "x", height, ", ", elapsed, " ms");
    }
    void onFirstRemoteVideoDecoded(agoraish::uid_t uid, int width, int height, int elapsed) override {
        say(name_, "onFirstRemoteVideoDecoded uid ", uid, ", ", width, "x", height, ", ", elapsed, " ms");
    }
};

// The player's states, on the engine's event thread.
class PlayerEvents : public agoraish::IMediaPlayerSourceObserver {
public:
    void onPlayerSourceStateChanged(agoraish::MEDIA_PLAYER_STATE state, agoraish::MEDIA_PLAYER_REASON reason) override {
        say("player", "onPlayerSourceStateChanged ", example::name(state), " (", example::name(reason), ")");
        std::lock_guard<std::mutex> lock(mutex_);
        states_.push_back(state);
        cond_.notify_all();
    }
    bool waitState(agoraish::MEDIA_PLAYER_STATE state) {
        std::unique_lock<std::mutex> lock(mutex_);
        const bool seen = cond_.wait_for(lock, std::chrono::seconds(10), [&] {
            for (auto s : states_) {
                if (s == state) return true;
            }
            return false;
        });
        if (!seen) say("player", "no ", example::name(state), " within 10 s");
        return seen;
    }

private:
    std::mutex mutex_;
    std::condition_variable cond_;
    std::vector<agoraish::MEDIA_PLAYER_STATE> states_;  // guarded by mutex_
};

// A canvas: per picture, the share of its pixels that are transparent (alpha
// below 16), half transparent (112..143) and opaque (above 239), and the mean
// column of the opaque ones (a share of the width). Keeps the sums and the
// first and last picture's figures.
class AlphaCanvas : public agoraish::IVideoSink {
public:
    struct Report {
        int pictures = 0, withAlpha = 0;
        std::array<double, 3> shares{};  // transparent, half, opaque: the average over the pictures with alpha
        double firstX = -1, lastX = -1;  // -1: none
    };

    AlphaCanvas(const char* who, const char* what) : who_(who), what_(what) {}

    void onFrame(agoraish::uid_t, const agoraish::VideoFrame& frame) override {
        if (frame.alphaBuffer == nullptr) {
            std::lock_guard<std::mutex> lock(mutex_);
            ++report_.pictures;
            return;
        }
        std::array<long, 3> counts{};
        long columns = 0, sum = 0;
        for (int y = 0; y < frame.height; ++y) {
            const std::uint8_t* row = frame.alphaBuffer + std::size_t(y) * std::size_t(frame.alphaStride);
            for (int x = 0; x < frame.width; ++x) {
                counts[0] += row[x] < 16;
                counts[1] += row[x] >= 112 && row[x] < 144;
                counts[2] += row[x] >= 240;
                if (y % 4 == 0 && row[x] >= 240) {
                    sum += x;
                    ++columns;
                }
            }
        }
        const double size = double(frame.width) * frame.height;
        const double x = columns ? double(sum) / double(columns) / frame.width : -1;
        std::lock_guard<std::mutex> lock(mutex_);
        if (report_.withAlpha == 0) {
            say(who_, what_, ": first picture ", frame.width, "x", frame.height, " with alpha: ",
                fixed(100 * counts[0] / size, 0), " % transparent, ", fixed(100 * counts[2] / size, 0), " % opaque");
            report_.firstX = x;
        }
        ++report_.pictures;
        ++report_.withAlpha;
        for (std::size_t i = 0; i < 3; ++i) sums_[i] += counts[i] / size;
        report_.lastX = x;
    }

    // What the canvas saw, said.
    Report report() {
        std::lock_guard<std::mutex> lock(mutex_);
        Report r = report_;
        for (std::size_t i = 0; i < 3; ++i) r.shares[i] = r.withAlpha ? sums_[i] / r.withAlpha : 0;
        if (r.withAlpha == 0) {
            say(who_, what_, ": ", r.pictures, " pictures, none with alpha");
        } else {
            say(who_, what_, ": ", r.pictures, " pictures, ", r.withAlpha, " with alpha; on average ",
                fixed(100 * r.shares[0], 1), " % transparent, ", fixed(100 * r.shares[1], 1), " % half, ",
                fixed(100 * r.shares[2], 1), " % opaque, the opaque part centred from ", fixed(r.firstX, 2), " to ",
                fixed(r.lastX, 2), " of the width");
        }
        return r;
    }

private:
    const char* who_;
    const char* what_;
    std::mutex mutex_;
    // Guarded by mutex_.
    Report report_;
    std::array<double, 3> sums_{};
};

}  // namespace

int main() {
    say("ffmpeg", "making ", kMovie, ": ", kSeconds,
        " s of VP8 with alpha, a moving opaque disc on a transparent ground");
    if (!example::ffmpeg(kMovie, "-f lavfi -i \"testsrc2=size=320x240:rate=15:duration=3,format=yuva420p,"
                                 "geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':"
                                 "a='if(lt(hypot(X-90-50*T\\,Y-120)\\,70)\\,255\\,0)'\" "
                                 "-c:v libvpx -pix_fmt yuva420p -auto-alt-ref 0 -metadata:s:v:0 alpha_mode=1 "
                                 "-deadline realtime -cpu-used 8 -b:v 400k")) {
        std::cout << "the call did not go as expected\n";
        return 1;
    }

    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    PlayerEvents events;
    AlphaCanvas view("local", "player's view"), preview("local", "preview"), received("remote", "remote canvas");
    agoraish::RtcEngine localEngine, remoteEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(remoteEngine, remote, server); rc != 0) return rc;

    for (agoraish::RtcEngine* engine : {&localEngine, &remoteEngine}) {
        engine->disableAudio();  // a video-only call
        engine->enableVideo();
    }
    localEngine.setExternalVideoSource(true);
    localEngine.setVideoEncoderConfiguration(
        agoraish::VideoEncoderConfiguration({kWidth, kHeight}, kFps, agoraish::STANDARD_BITRATE));
    localEngine.setupLocalVideo(agoraish::VideoCanvas(0, &preview));  // mirrored, as previews are (AUTO)
    localEngine.startPreview();
    say("local", "setExternalVideoSource, setupLocalVideo, startPreview");
    if (int rc = example::meet(kChannel, localEngine, local, remoteEngine, remote); rc != 0) return rc;
    const agoraish::uid_t localUid = remote.peer();
    remoteEngine.setupRemoteVideo(agoraish::VideoCanvas(localUid, &received));

    agoraish::MediaPlayer player;
    if (int rc = localEngine.createMediaPlayer(player); rc != 0) return fail("createMediaPlayer", rc);
    player.registerPlayerSourceObserver(&events);
    player.setView(&view);
    player.open(kMovie, 0);
    if (!events.waitState(agoraish::PLAYER_STATE_OPEN_COMPLETED)) return fail("open", -AGORAISH_ERR_TIMEDOUT);
    agoraish::PlayerStreamInfo info;
    player.getStreamInfo(0, &info);
    say("local", kMovie, ": ", info.streamType == agoraish::STREAM_TYPE_VIDEO ? "VIDEO " : "? ", info.codecName, " ",
        info.videoWidth, "x", info.videoHeight);
    player.play();

    // local's own pictures, with their alpha plane, while the file plays: a blue-ish picture whose
    // left quarter is opaque, the next quarter half transparent (128), the right half transparent.
    std::vector<std::uint8_t> luma(kWidth * kHeight, 100), cb(kWidth * kHeight / 4, 180), cr(kWidth * kHeight / 4, 100);
    std::vector<std::uint8_t> alpha(kWidth * kHeight, 0);
    for (int y = 0; y < kHeight; ++y) {
        std::memset(alpha.data() + y * kWidth, 255, kWidth / 4);
        std::memset(alpha.data() + y * kWidth + kWidth / 4, 128, kWidth / 4);
    }
    agoraish::ExternalVideoFrame frame;
    frame.format = agoraish::VIDEO_PIXEL_I420;
    frame.width = kWidth;
    frame.height = kHeight;
    frame.yBuffer = luma.data();
    frame.uBuffer = cb.data();
    frame.vBuffer = cr.data();
    frame.yStride = kWidth;
    frame.uStride = frame.vStride = kWidth / 2;
    frame.alphaBuffer = alpha.data();
    frame.alphaStride = kWidth;
    int refused = 0;
    const auto start = Clock::now();
    const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / kFps));
    for (int n = 0; n < kPushed; ++n) {
        frame.timestamp = std::int64_t(n) * 1000 / kFps;
        if (int rc = localEngine.pushExternalVideoFrame(frame); rc != 0 && refused++ == 0) {
            say("local", "pushExternalVideoFrame(", n, ") = ", rc);
        }
        std::this_thread::sleep_until(start + (n + 1) * interval);
    }
    say("local", "pushed ", kPushed, " pictures with an alpha plane, ", refused, " refused");
    if (!events.waitState(agoraish::PLAYER_STATE_PLAYBACK_ALL_LOOPS_COMPLETED)) {
        return fail("playing to the end", -AGORAISH_ERR_TIMEDOUT);
    }
    localEngine.destroyMediaPlayer(player);                                     // no view callback runs afterwards
    remoteEngine.setupRemoteVideo(agoraish::VideoCanvas(localUid, nullptr));  // waits for a picture being rendered
    localEngine.stopPreview();
    localEngine.setupLocalVideo(agoraish::VideoCanvas(0, nullptr));

    const AlphaCanvas::Report shown = view.report(), own = preview.report(), got = received.report();
    if (int rc = example::part(localEngine, local, remoteEngine, remote); rc != 0) return rc;
    const double disc = 3.14159 * kRadius * kRadius / (kWidth * kHeight);  // the disc's share of the picture
    const bool ok = shown.pictures >= kSeconds * kFps * 3 / 4 && shown.withAlpha == shown.pictures &&
                    std::abs(shown.shares[2] - disc) < 0.03 && std::abs(shown.shares[0] - (1 - disc)) < 0.03 &&
                    shown.firstX >= 0 && shown.lastX > shown.firstX + 0.3 &&  // the disc moved right
                    own.pictures >= kPushed * 3 / 4 && own.withAlpha == own.pictures &&
                    std::abs(own.shares[0] - 0.5) < 0.02 && std::abs(own.shares[1] - 0.25) < 0.02 &&
                    std::abs(own.shares[2] - 0.25) < 0.02 && own.firstX > 0.75 &&  // mirrored: on the right
                    got.pictures >= kPushed / 2 && got.withAlpha == 0 && refused == 0;
    remoteEngine.release();
    localEngine.release();
    std::cout << (ok ? "done: both canvases got their pictures' alpha, and remote the pictures without it"
                     : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
