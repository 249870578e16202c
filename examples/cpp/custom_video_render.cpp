// custom_video_render.cpp — Agora's CustomVideoRender case in C++: the host
// draws what a user sees, instead of a view the SDK draws into.
//
//   enableVideo -> joinChannel -> onUserJoined
//   -> setupRemoteVideo(VideoCanvas(uid, &sink)) -> onFirstRemoteVideoDecoded
//   -> IVideoSink::onFrame for every decoded picture, on the engine's video thread
//   -> setupRemoteVideo(VideoCanvas(uid, nullptr)) -> leaveChannel -> release
//
// "local" renders: its sink gets each decoded picture of the remote user as
// I420 planes the library owns for the duration of the call, with strides
// wider than the picture (the decoder's own buffers). It copies them row by
// row, honoring those strides, into demo-out/custom_video_render_cpp.y4m
// (YUV4MPEG2, which ffplay, mpv or VLC play) and measures the average luma of
// each. "remote", a second engine in the same process, pushes 45 I420
// pictures of 320x240 at 15 fps (three seconds), with padded rows: stripes
// and a white square that move, over a background that brightens from dark to
// light, so the first and the last pictures differ. At the end the example
// prints the count, the size and the average luma of the first and the last
// picture, and reads the file back. (The C and Python versions push NV12;
// this one pushes I420.)
//
//   make hosts && build/examples/custom_video_render_cpp
#include "agoraish.hpp"
#include "example_support.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

namespace {

using example::Clock;
using example::fail;
using example::say;
using namespace std::chrono_literals;

const char* const kChannel = "custom-video-render";
const char* const kY4mPath = "demo-out/custom_video_render_cpp.y4m";
constexpr int kWidth = 320;
constexpr int kHeight = 240;
constexpr int kLumaStride = kWidth + 32;            // bytes per row: the picture's 320 and 32 of padding
constexpr int kChromaStride = kWidth / 2 + 16;      // 160 and 16 of padding
constexpr int kFps = 15;
constexpr int kPushed = 45;                         // three seconds
constexpr auto kSettle = 500ms;                     // after the last push, for the last pictures to be rendered

std::string fixed(double value, int digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

// The average of a plane of `width` x `height` bytes, rows `stride` bytes apart.
double average(const std::uint8_t* plane, int stride, int width, int height) {
    std::uint64_t sum = 0;
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) sum += plane[std::size_t(y) * std::size_t(stride) + std::size_t(x)];
    }
    return width > 0 && height > 0 ? double(sum) / (double(width) * height) : 0;
}

// ---- one user's events, and local's render sink -------------------------------------

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

// local's render sink, on its engine's video thread: one YUV4MPEG2 frame per
// picture. The planes are the library's and only valid during the call.
class Y4mWriter : public agoraish::IVideoSink {
public:
    struct Report {
        int rendered = 0, width = 0, height = 0, otherSizes = 0;
        double firstLuma = 0, lastLuma = 0;
    };

    explicit Y4mWriter(const std::string& path) : out_(path, std::ios::binary) {}
    bool isOpen() const { return bool(out_); }

    void onFrame(agoraish::uid_t, const agoraish::VideoFrame& frame) override {
        const double luma = average(frame.yBuffer, frame.yStride, frame.width, frame.height);
        std::lock_guard<std::mutex> lock(mutex_);
        if (report_.rendered == 0) {
            report_.width = frame.width;
            report_.height = frame.height;
            report_.firstLuma = luma;
            say("local", "first picture: ", frame.width, "x", frame.height, ", strides ", frame.yStride, "/",
                frame.uStride, "/", frame.vStride, ", average luma ", fixed(luma, 1));
            out_ << "YUV4MPEG2 W" << frame.width << " H" << frame.height << " F" << kFps << ":1 Ip A1:1 C420jpeg\n";
        }
        if (frame.width != report_.width || frame.height != report_.height) {
            ++report_.otherSizes;  // a YUV4MPEG2 file has one size
            return;
        }
        const int chromaWidth = (frame.width + 1) / 2, chromaHeight = (frame.height + 1) / 2;
        out_ << "FRAME\n";
        writePlane(frame.yBuffer, frame.yStride, frame.width, frame.height);
        writePlane(frame.uBuffer, frame.uStride, chromaWidth, chromaHeight);
        writePlane(frame.vBuffer, frame.vStride, chromaWidth, chromaHeight);
        report_.lastLuma = luma;
        ++report_.rendered;
    }

    // Call after the sink is unbound.
    Report close() {
        std::lock_guard<std::mutex> lock(mutex_);
        out_.close();
        return report_;
    }

private:
    // `rows` rows of `width` bytes, `stride` bytes apart: the padding stays out of the file.
    void writePlane(const std::uint8_t* plane, int stride, int width, int rows) {
        for (int r = 0; r < rows; ++r) {
            out_.write(reinterpret_cast<const char*>(plane + std::size_t(r) * std::size_t(stride)), width);
        }
    }

    std::mutex mutex_;
    std::ofstream out_;
    Report report_;
};

// What the file holds when read back.
struct Y4mFile {
    int frames = -1;  // -1: not the file that was written
    int width = 0, height = 0;
    double firstLuma = 0;
};

Y4mFile readY4m(const std::string& path) {
    Y4mFile file;
    std::ifstream in(path, std::ios::binary);
    std::string header;
    if (!std::getline(in, header) || std::sscanf(header.c_str(), "YUV4MPEG2 W%d H%d", &file.width, &file.height) != 2
        || file.width <= 0 || file.height <= 0) {
        return file;
    }
    const long frameSize = 6 + long(file.width) * file.height + 2L * ((file.width + 1) / 2) * ((file.height + 1) / 2);
    const auto start = in.tellg();
    in.seekg(0, std::ios::end);
    const long size = long(in.tellg() - start);
    in.seekg(start);
    std::string tag(6, '\0');
    std::vector<std::uint8_t> luma(std::size_t(file.width) * std::size_t(file.height));
    if (size % frameSize == 0 && in.read(&tag[0], 6) && tag == "FRAME\n"
        && in.read(reinterpret_cast<char*>(luma.data()), std::streamsize(luma.size()))) {
        file.frames = int(size / frameSize);
        file.firstLuma = average(luma.data(), file.width, file.width, file.height);
    }
    return file;
}

// ---- remote's pictures: I420 with padded rows ----------------------------------------

struct I420Picture {
    std::vector<std::uint8_t> y = std::vector<std::uint8_t>(std::size_t(kLumaStride) * kHeight);
    std::vector<std::uint8_t> u = std::vector<std::uint8_t>(std::size_t(kChromaStride) * kHeight / 2);
    std::vector<std::uint8_t> v = std::vector<std::uint8_t>(std::size_t(kChromaStride) * kHeight / 2);

    // Picture `n`: a background from luma 40 (n = 0) to 190 (the last), stripes
    // that move 3 pixels per picture, a white square that moves across, and
    // chroma that varies from left to right and top to bottom. The padding at
    // the end of each row holds junk.
    void draw(int n) {
        const int base = 40 + 150 * n / (kPushed - 1);
        const int left = 8 + n * (kWidth - 64) / (kPushed - 1), top = kHeight / 2 - 24;
        for (int row = 0; row < kHeight; ++row) {
            std::uint8_t* p = y.data() + std::size_t(row) * kLumaStride;
            for (int x = 0; x < kWidth; ++x) {
                const bool inside = x >= left && x < left + 48 && row >= top && row < top + 48;
                p[x] = std::uint8_t(inside ? 235 : base + ((x + 3 * n) % 32 < 16 ? 12 : -12));
            }
            std::memset(p + kWidth, 0x5A, kLumaStride - kWidth);
        }
        for (int row = 0; row < kHeight / 2; ++row) {
            std::uint8_t* pu = u.data() + std::size_t(row) * kChromaStride;
            std::uint8_t* pv = v.data() + std::size_t(row) * kChromaStride;
            for (int x = 0; x < kWidth / 2; ++x) {
                pu[x] = std::uint8_t(96 + x * 64 / (kWidth / 2));
                pv[x] = std::uint8_t(96 + row * 64 / (kHeight / 2));
            }
            std::memset(pu + kWidth / 2, 0x5A, kChromaStride - kWidth / 2);
            std::memset(pv + kWidth / 2, 0x5A, kChromaStride - kWidth / 2);
        }
    }

    double averageLuma() const { return average(y.data(), kLumaStride, kWidth, kHeight); }
};

}  // namespace

int main() {
    mkdir("demo-out", 0755);

    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    Y4mWriter writer(kY4mPath);
    if (!writer.isOpen()) {
        std::cerr << "cannot write " << kY4mPath << "\n";
        return 1;
    }
    agoraish::RtcEngine localEngine, remoteEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(remoteEngine, remote, server); rc != 0) return rc;

    // A video-only call: no microphone, no speaker.
    localEngine.disableAudio();
    remoteEngine.disableAudio();

    // local only watches: video on to decode, nothing pushed.
    localEngine.enableVideo();

    // remote sends what it pushes: 320x240 at 15 fps, Agora's standard bitrate.
    remoteEngine.setExternalVideoSource(true);
    remoteEngine.enableVideo();
    const agoraish::VideoEncoderConfiguration encoder({kWidth, kHeight}, kFps, agoraish::STANDARD_BITRATE);
    if (int rc = remoteEngine.setVideoEncoderConfiguration(encoder); rc != 0) {
        return fail("setVideoEncoderConfiguration", rc);
    }
    say("remote", "setVideoEncoderConfiguration(", kWidth, "x", kHeight, ", ", kFps, " fps, STANDARD_BITRATE) = 0");

    if (int rc = example::meet(kChannel, localEngine, local, remoteEngine, remote); rc != 0) return rc;

    // local renders the remote user into the file.
    const agoraish::uid_t remoteUid = local.peer();
    if (int rc = localEngine.setupRemoteVideo(agoraish::VideoCanvas(remoteUid, &writer)); rc != 0) {
        return fail("setupRemoteVideo", rc);
    }
    say("local", "setupRemoteVideo(uid ", remoteUid, ") = 0");

    // remote's "camera": a picture every 1/15 s, in real time.
    say("remote", "pushing ", kPushed, " I420 pictures of ", kWidth, "x", kHeight, ", ", kLumaStride, "/",
        kChromaStride, "/", kChromaStride, " bytes per row, at ", kFps, " fps");
    I420Picture picture;
    agoraish::ExternalVideoFrame frame;
    frame.format = agoraish::VIDEO_PIXEL_I420;
    frame.width = kWidth;
    frame.height = kHeight;
    frame.yBuffer = picture.y.data();
    frame.uBuffer = picture.u.data();
    frame.vBuffer = picture.v.data();
    frame.yStride = kLumaStride;
    frame.uStride = kChromaStride;
    frame.vStride = kChromaStride;
    int refused = 0;
    double pushedFirst = 0, pushedLast = 0;
    const auto start = Clock::now();
    const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / kFps));
    for (int n = 0; n < kPushed; ++n) {
        picture.draw(n);
        if (n == 0) pushedFirst = picture.averageLuma();
        if (n == kPushed - 1) pushedLast = picture.averageLuma();
        frame.timestamp = std::int64_t(n) * 1000 / kFps;
        if (int rc = remoteEngine.pushExternalVideoFrame(frame); rc != 0 && refused++ == 0) {
            say("remote", "pushExternalVideoFrame(", n, ") = ", rc);
        }
        std::this_thread::sleep_until(start + (n + 1) * interval);
    }
    std::this_thread::sleep_until(start + kPushed * interval + kSettle);

    // Unbinding waits for a picture being rendered: afterwards the file can be closed.
    localEngine.setupRemoteVideo(agoraish::VideoCanvas(remoteUid, nullptr));
    const Y4mWriter::Report r = writer.close();

    if (int rc = example::part(localEngine, local, remoteEngine, remote); rc != 0) return rc;

    say("remote", "pushed ", kPushed, " pictures (", refused, " refused), average luma ", fixed(pushedFirst, 1),
        " in the first, ", fixed(pushedLast, 1), " in the last");
    say("local", "rendered ", r.rendered, " pictures of ", r.width, "x", r.height, " (", r.otherSizes,
        " of another size, left out)");
    say("local", "average luma ", fixed(r.firstLuma, 1), " in the first picture, ", fixed(r.lastLuma, 1),
        " in the last");
    const Y4mFile file = readY4m(kY4mPath);
    if (file.frames >= 0) {
        say("local", kY4mPath, ": ", file.frames, " frames of ", file.width, "x", file.height, ", average luma ",
            fixed(file.firstLuma, 1), " in the first");
    } else {
        say("local", kY4mPath, " is not the YUV4MPEG2 file that was written");
    }
    // The first picture may be a few pictures in (it is the first decoded),
    // the last one is the last pushed; both within a few luma steps of theirs.
    const bool ok = refused == 0 && r.rendered >= kPushed * 9 / 10 && r.width == kWidth && r.height == kHeight
                    && r.firstLuma > pushedFirst - 6 && r.firstLuma < pushedFirst + 20 && r.lastLuma > pushedLast - 6
                    && r.lastLuma < pushedLast + 6 && file.frames == r.rendered && file.width == kWidth
                    && file.height == kHeight && file.firstLuma == r.firstLuma;

    remoteEngine.release();
    localEngine.release();
    std::cout << (ok ? std::string("done: local rendered remote's pictures into ") + kY4mPath
                     : std::string("the call did not go as expected"))
              << '\n';
    return ok ? 0 : 1;
}
