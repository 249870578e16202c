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
#include "example_support.hpp"

#include <chrono>
#include <cstdint>
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
using namespace std::chrono_literals;

const char* const kChannel = "video-metadata";
constexpr int kWidth = 320;
constexpr int kHeight = 240;
constexpr int kFps = 15;
constexpr int kPushed = 20;
constexpr int kMaxMetadata = 64;  // what this host's metadata needs (Agora's case asks for 1024)
constexpr auto kSettle = 500ms;   // after the last push, for the last metadata to arrive

// A user's channel events, remembered so main can wait for them.
class User : public example::User {
public:
    using example::User::User;

    void onFirstRemoteVideoDecoded(agoraish::uid_t uid, int width, int height, int elapsed) override {
        say(name_, "onFirstRemoteVideoDecoded uid ", uid, ", ", width, "x", height, ", ", elapsed, " ms");
    }
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

}  // namespace

int main() {
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    Captions sent("local"), heard("remote");
    View view;
    agoraish::RtcEngine localEngine, remoteEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(remoteEngine, remote, server); rc != 0) return rc;

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

    if (int rc = example::meet(kChannel, localEngine, local, remoteEngine, remote); rc != 0) return rc;
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
    if (int rc = example::part(localEngine, local, remoteEngine, remote); rc != 0) return rc;
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
