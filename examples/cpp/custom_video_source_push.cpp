// custom_video_source_push.cpp — Agora's CustomVideoSourcePush case in C++:
// the host supplies the pictures a user sends, instead of a camera.
//
//   setExternalVideoSource(true) -> enableVideo -> setVideoEncoderConfiguration
//   -> joinChannel -> pushExternalVideoFrame at 15 fps, in real time
//   -> onFirstLocalVideoFramePublished -> leaveChannel -> release
//
// "local" pushes 45 generated BGRA pictures of 320x240 (three seconds): a
// moving colour gradient with the picture's number drawn on it in seven-
// segment digits. Each row of the buffer is 64 bytes longer than the picture
// (yStride 1344 instead of 1280) and the padding holds junk, as the rows of a
// camera or a decoder often do; the engine converts the pixels to I420,
// encodes them with VP8 and sends them. "remote", a second engine in the
// same process, renders them through an IVideoSink bound with
// setupRemoteVideo, reads the number back out of each decoded picture, and
// the example checks that the pictures arrived, at their size, with the
// numbers in order. Audio is off on both engines: this is a video-only call.
// (The C and Python versions push RGBA; this one pushes BGRA.)
//
//   make hosts && build/examples/custom_video_source_push_cpp
#include "agoraish.hpp"
#include "example_support.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using example::Clock;
using example::fail;
using example::say;
using namespace std::chrono_literals;

const char* const kChannel = "custom-video-source-push";
constexpr int kWidth = 320;
constexpr int kHeight = 240;
constexpr int kStride = kWidth * 4 + 64;  // bytes per row: the picture's 1280 and 64 of padding
constexpr int kFps = 15;
constexpr int kPushed = 45;               // three seconds
constexpr auto kSettle = 500ms;           // after the last push, for the last pictures to be rendered

// ---- the number in a picture: three seven-segment digits ---------------------------

// Segments a..g of a 32x56 digit cell, as x0, y0, x1, y1 (8 pixels thick):
//
//     aa
//    f  b
//     gg
//    e  c
//     dd
constexpr int kSegments[7][4] = {
    {8, 0, 24, 8}, {24, 8, 32, 24}, {24, 32, 32, 48}, {8, 48, 24, 56}, {0, 32, 8, 48}, {0, 8, 8, 24}, {8, 24, 24, 32},
};
// The segments lit for 0..9 (bit 0 is a).
constexpr std::array<unsigned, 10> kDigitSegments{0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x7D, 0x07, 0x7F, 0x6F};
constexpr int kDigits = 3, kCellW = 32, kCellH = 56, kCellGap = 12;
constexpr int kBoxX = 16, kBoxY = 16;  // the black box the digits are drawn on, 8 pixels of margin around them
constexpr int kBoxW = 8 + kDigits * kCellW + (kDigits - 1) * kCellGap + 8;
constexpr int kBoxH = 8 + kCellH + 8;

constexpr int cellX(int digit) { return kBoxX + 8 + digit * (kCellW + kCellGap); }

// A BGRA picture in a buffer with padded rows.
class Picture {
public:
    Picture() : pixels_(std::size_t(kStride) * kHeight) {}

    const std::uint8_t* data() const { return pixels_.data(); }

    // Picture `n`: a gradient that moves 4 pixels per picture, the number in
    // white on black, and junk in the padding of every row.
    void draw(int n) {
        for (int y = 0; y < kHeight; ++y) {
            std::uint8_t* row = pixels_.data() + std::size_t(y) * kStride;
            for (int x = 0; x < kWidth; ++x) {
                row[4 * x + 0] = 160;                                   // B
                row[4 * x + 1] = std::uint8_t(y * 255 / (kHeight - 1)); // G
                row[4 * x + 2] = std::uint8_t((x + 4 * n) & 0xFF);      // R
                row[4 * x + 3] = 255;                                   // A
            }
            std::memset(row + kWidth * 4, 0xA5, kStride - kWidth * 4);  // not part of the picture
        }
        fill(kBoxX, kBoxY, kBoxX + kBoxW, kBoxY + kBoxH, 0);
        const int digits[kDigits] = {n / 100 % 10, n / 10 % 10, n % 10};
        for (int d = 0; d < kDigits; ++d) {
            for (int s = 0; s < 7; ++s) {
                if (kDigitSegments[std::size_t(digits[d])] >> s & 1) {
                    const int* b = kSegments[s];
                    fill(cellX(d) + b[0], kBoxY + 8 + b[1], cellX(d) + b[2], kBoxY + 8 + b[3], 255);
                }
            }
        }
    }

private:
    // A grey rectangle (B = G = R = `level`).
    void fill(int x0, int y0, int x1, int y1, std::uint8_t level) {
        for (int y = y0; y < y1; ++y) {
            std::uint8_t* p = pixels_.data() + std::size_t(y) * kStride + std::size_t(x0) * 4;
            for (int x = x0; x < x1; ++x, p += 4) {
                p[0] = p[1] = p[2] = level;
                p[3] = 255;
            }
        }
    }

    std::vector<std::uint8_t> pixels_;
};

// The number read from a decoded luma plane (`stride` bytes per row), or -1
// when a digit is not one: each segment is lit when the middle of it is bright.
int readNumber(const std::uint8_t* luma, int stride) {
    int number = 0;
    for (int d = 0; d < kDigits; ++d) {
        unsigned lit = 0;
        for (int s = 0; s < 7; ++s) {
            const int* b = kSegments[s];
            int sum = 0, count = 0;
            for (int y = kBoxY + 8 + b[1] + 2; y < kBoxY + 8 + b[3] - 2; ++y) {
                for (int x = cellX(d) + b[0] + 2; x < cellX(d) + b[2] - 2; ++x, ++count) sum += luma[y * stride + x];
            }
            if (sum > 128 * count) lit |= 1u << s;
        }
        int digit = -1;
        for (int i = 0; i < 10; ++i) {
            if (kDigitSegments[std::size_t(i)] == lit) digit = i;
        }
        if (digit < 0) return -1;
        number = number * 10 + digit;
    }
    return number;
}

// ---- one user's events, and remote's render sink -----------------------------------

// A user's channel and video events, remembered so main can wait for them.
class User : public example::User {
public:
    using example::User::User;

    void onFirstLocalVideoFramePublished(int elapsed) override {
        say(name_, "onFirstLocalVideoFramePublished, ", elapsed, " ms");
    }
    void onFirstRemoteVideoDecoded(agoraish::uid_t uid, int width, int height, int elapsed) override {
        say(name_, "onFirstRemoteVideoDecoded uid ", uid, ", ", width, "x", height, ", ", elapsed, " ms");
    }
    void onVideoSizeChanged(agoraish::uid_t uid, int width, int height, int rotation) override {
        say(name_, "onVideoSizeChanged uid ", uid, ", ", width, "x", height, ", rotation ", rotation);
    }
};

// remote's render sink, on its engine's video thread: reads the number out of
// every picture; the planes are only valid during the call.
class NumberReader : public agoraish::IVideoSink {
public:
    struct Report {
        int rendered = 0, width = 0, height = 0, otherSizes = 0, unreadable = 0, outOfOrder = 0;
        int first = -1, last = -1;
        std::array<bool, kPushed> seen{};
    };

    void onFrame(agoraish::uid_t, const agoraish::VideoFrame& frame) override {
        const int number = frame.width == kWidth && frame.height == kHeight ? readNumber(frame.yBuffer, frame.yStride)
                                                                             : -1;
        std::lock_guard<std::mutex> lock(mutex_);
        if (report_.rendered == 0) {
            report_.width = frame.width;
            report_.height = frame.height;
            say("remote", "first picture: ", frame.width, "x", frame.height, ", strides ", frame.yStride, "/",
                frame.uStride, "/", frame.vStride, ", number ", number);
        } else if (frame.width != report_.width || frame.height != report_.height) {
            ++report_.otherSizes;
        }
        if (number < 0) {
            ++report_.unreadable;
        } else {
            if (report_.last >= 0 && number <= report_.last) ++report_.outOfOrder;
            if (report_.first < 0) report_.first = number;
            if (number < kPushed) report_.seen[std::size_t(number)] = true;
            report_.last = number;
        }
        ++report_.rendered;
    }

    Report report() {
        std::lock_guard<std::mutex> lock(mutex_);
        return report_;
    }

private:
    std::mutex mutex_;
    Report report_;
};

}  // namespace

int main() {
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    NumberReader reader;
    agoraish::RtcEngine localEngine, remoteEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(remoteEngine, remote, server); rc != 0) return rc;

    // A video-only call: no microphone, no speaker.
    localEngine.disableAudio();
    remoteEngine.disableAudio();

    // local sends what it pushes: 320x240 at 15 fps, Agora's standard bitrate.
    if (int rc = localEngine.setExternalVideoSource(true); rc != 0) return fail("setExternalVideoSource", rc);
    localEngine.enableVideo();
    const agoraish::VideoEncoderConfiguration encoder({kWidth, kHeight}, kFps, agoraish::STANDARD_BITRATE);
    if (int rc = localEngine.setVideoEncoderConfiguration(encoder); rc != 0) {
        return fail("setVideoEncoderConfiguration", rc);
    }
    say("local", "setVideoEncoderConfiguration(", kWidth, "x", kHeight, ", ", kFps, " fps, STANDARD_BITRATE) = 0");

    // remote decodes what it receives.
    remoteEngine.enableVideo();

    if (int rc = example::meet(kChannel, localEngine, local, remoteEngine, remote); rc != 0) return rc;

    // remote renders local's pictures.
    const agoraish::uid_t localUid = remote.peer();
    if (int rc = remoteEngine.setupRemoteVideo(agoraish::VideoCanvas(localUid, &reader)); rc != 0) {
        return fail("setupRemoteVideo", rc);
    }
    say("remote", "setupRemoteVideo(uid ", localUid, ") = 0");

    // local's "camera": a picture every 1/15 s, in real time.
    say("local", "pushing ", kPushed, " BGRA pictures of ", kWidth, "x", kHeight, ", ", kStride, " bytes per row, at ",
        kFps, " fps");
    Picture picture;
    agoraish::ExternalVideoFrame frame;
    frame.format = agoraish::VIDEO_PIXEL_BGRA;
    frame.width = kWidth;
    frame.height = kHeight;
    frame.yBuffer = picture.data();
    frame.yStride = kStride;
    int refused = 0;
    const auto start = Clock::now();
    const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / kFps));
    for (int n = 0; n < kPushed; ++n) {
        picture.draw(n);
        frame.timestamp = std::int64_t(n) * 1000 / kFps;
        if (int rc = localEngine.pushExternalVideoFrame(frame); rc != 0 && refused++ == 0) {
            say("local", "pushExternalVideoFrame(", n, ") = ", rc);
        }
        std::this_thread::sleep_until(start + (n + 1) * interval);
    }
    std::this_thread::sleep_until(start + kPushed * interval + kSettle);

    // Unbinding waits for a picture being rendered: afterwards the report stays put.
    remoteEngine.setupRemoteVideo(agoraish::VideoCanvas(localUid, nullptr));

    if (int rc = example::part(localEngine, local, remoteEngine, remote); rc != 0) return rc;

    // What arrived: how many, at what size, and the numbers in them.
    const NumberReader::Report r = reader.report();
    std::ostringstream missing;
    int listed = 0;
    for (int n = 0; n < kPushed && listed <= 8; ++n) {
        if (r.seen[std::size_t(n)]) continue;
        missing << (listed ? ", " : "") << (listed == 8 ? std::string("...") : std::to_string(n));
        ++listed;
    }
    say("local", "pushed ", kPushed, " pictures, ", refused, " refused");
    say("remote", "rendered ", r.rendered, " pictures of ", r.width, "x", r.height, " (", r.otherSizes,
        " of another size, ", r.unreadable, " unreadable)");
    if (r.first >= 0) {
        say("remote", "numbers ", r.first, " to ", r.last, ", ", r.outOfOrder ? "NOT in order" : "in order",
            "; not seen: ", listed ? missing.str() : "none");
    } else {
        say("remote", "no number could be read");
    }
    const bool ok = refused == 0 && r.rendered >= kPushed * 9 / 10 && r.width == kWidth && r.height == kHeight
                    && r.otherSizes == 0 && r.outOfOrder == 0 && r.unreadable == 0;

    remoteEngine.release();
    localEngine.release();
    std::cout << (ok ? "done: remote rendered local's pictures in order" : "the call did not go as expected") << '\n';
    return ok ? 0 : 1;
}
