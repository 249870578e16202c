// custom_video_source_push_multi.cpp — Agora's CustomVideoSourcePushMulti
// case in C++: one engine sends several custom video streams at once, each a
// custom video track published by a connection of its own, so each is a
// user of the channel.
//
//   createCustomVideoTrack (one per stream)
//   -> joinChannelEx(RtcConnection(channel, uid), options: publishCustomVideoTrack + customVideoTrackId)
//   -> setVideoEncoderConfigurationEx -> pushVideoFrame(frame, trackId) at 15 fps, in real time
//   -> leaveChannelEx -> destroyCustomVideoTrack -> release
//
// "local" creates two tracks and publishes them as uid 101 and uid 102: a
// bright landscape stream of 320x240 and a dark portrait one of 240x320,
// each with its picture's number drawn as a row of eight black and white
// bars. It pushes 45 I420 pictures into each (three seconds); each
// connection encodes its track with its own encoder. "viewer", a second
// engine in the same process, renders both users through an IVideoSink per
// uid (setupRemoteVideo), reads the numbers back, and the example checks
// that each uid arrived at its own size and brightness, with the numbers in
// order. Audio is off on both engines: this is a video-only call.
//
//   make hosts && build/examples/custom_video_source_push_multi_cpp
#include "agoraish.hpp"
#include "example_support.hpp"

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
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

const char* const kChannel = "custom-video-source-push-multi";
constexpr int kFps = 15;
constexpr int kPushed = 45;      // pictures per track: three seconds
constexpr auto kSettle = 500ms;  // after the last push, for the last pictures to be rendered
constexpr int kBits = 8;         // the number's bars

// What each stream looks like, and the uid that publishes it.
struct Stream {
    agoraish::uid_t uid;
    int width, height;
    int luma;  // the background
    const char* look;
};
constexpr std::array<Stream, 2> kStreams{{
    {101, 320, 240, 200, "bright, landscape"},
    {102, 240, 320, 60, "dark, portrait"},
}};

// ---- the pictures -------------------------------------------------------------------

// One stream's I420 picture: the stream's background, and the number as kBits
// bars across the middle rows, black for 1 and white for 0. U and V stay grey.
class Picture {
public:
    explicit Picture(const Stream& stream)
        : stream_(stream),
          y_(std::size_t(stream.width) * stream.height),
          uv_(std::size_t(stream.width / 2) * (stream.height / 2), 128) {}

    void draw(int n) {
        const int w = stream_.width, h = stream_.height;
        std::memset(y_.data(), stream_.luma, y_.size());
        for (int row = h / 2 - 8; row < h / 2 + 8; ++row)
            for (int bit = 0; bit < kBits; ++bit)
                std::memset(&y_[std::size_t(row) * w + std::size_t(bit * w / kBits)], (n >> bit) & 1 ? 16 : 235,
                            std::size_t(w / kBits));
    }

    // The picture as pushVideoFrame() takes it, timestamped `ms`.
    agoraish::ExternalVideoFrame frame(std::int64_t ms) const {
        agoraish::ExternalVideoFrame f;
        f.format = agoraish::VIDEO_PIXEL_I420;
        f.width = stream_.width;
        f.height = stream_.height;
        f.yBuffer = y_.data();
        f.uBuffer = f.vBuffer = uv_.data();
        f.yStride = stream_.width;
        f.uStride = f.vStride = stream_.width / 2;
        f.timestamp = ms;
        return f;
    }

private:
    const Stream& stream_;
    std::vector<std::uint8_t> y_, uv_;
};

// The number in a decoded picture: each bar is 1 when the middle of it is dark.
int readNumber(const agoraish::VideoFrame& f) {
    int n = 0;
    for (int bit = 0; bit < kBits; ++bit) {
        if (f.yBuffer[(f.height / 2) * f.yStride + bit * f.width / kBits + f.width / (2 * kBits)] < 128) n |= 1 << bit;
    }
    return n;
}

// The mean luma of the top quarter of a decoded picture: the background.
int background(const agoraish::VideoFrame& f) {
    long sum = 0, count = 0;
    for (int row = 0; row < f.height / 4; ++row)
        for (int x = 0; x < f.width; ++x, ++count) sum += f.yBuffer[row * f.yStride + x];
    return count > 0 ? int(sum / count) : -1;
}

// ---- local's connections, and viewer's sinks ------------------------------------------

// The events of local's connections (Agora's IRtcEngineEventHandlerEx), remembered so main can wait for them.
class Connections : public agoraish::IRtcEngineEventHandlerEx {
public:
    void onJoinChannelSuccess(const agoraish::RtcConnection& c, agoraish::uid_t uid, int elapsed) override {
        say("local", "onJoinChannelSuccess {\"", c.channelId, "\", ", c.localUid, "}: uid ", uid, ", ", elapsed, " ms");
        update([&] { ++connected_; });
    }
    void onLeaveChannel(const agoraish::RtcConnection& c, const agoraish::RtcStats& stats) override {
        say("local", "onLeaveChannel {\"", c.channelId, "\", ", c.localUid, "} after ", stats.duration, " s: sent ",
            stats.txBytes, " bytes");
        update([&] { ++disconnected_; });
    }

    // Waits (at most example::kTimeout) until `n` connections joined, and left.
    bool waitConnected(int n) { return waitUntil([&] { return connected_ == n; }); }
    bool waitDisconnected(int n) { return waitUntil([&] { return disconnected_ == n; }); }

private:
    template <typename Change>
    void update(const Change& change) {
        std::lock_guard<std::mutex> lock(mutex_);
        change();
        cond_.notify_all();
    }
    template <typename Done>
    bool waitUntil(const Done& done) {
        std::unique_lock<std::mutex> lock(mutex_);
        return cond_.wait_for(lock, example::kTimeout, done);
    }

    std::mutex mutex_;
    std::condition_variable cond_;
    // Guarded by mutex_.
    int connected_ = 0, disconnected_ = 0;
};

// viewer: its events, and which streams' users it sees.
class Viewer : public example::User {
public:
    Viewer() : example::User("viewer") {}

    void onUserJoined(agoraish::uid_t uid, int elapsed) override {
        example::User::onUserJoined(uid, elapsed);
        update([&] { present_[index(uid)] = true; });
    }
    void onUserOffline(agoraish::uid_t uid, agoraish::USER_OFFLINE_REASON_TYPE reason) override {
        example::User::onUserOffline(uid, reason);
        update([&] { present_[index(uid)] = false; });
    }
    void onFirstRemoteVideoDecoded(agoraish::uid_t uid, int width, int height, int elapsed) override {
        say(name_, "onFirstRemoteVideoDecoded uid ", uid, ", ", width, "x", height, ", ", elapsed, " ms");
    }

    // Waits until viewer sees a user for every stream (or for none).
    bool waitAll(bool present) {
        return waitUntil([&] { return present_[0] == present && present_[1] == present; });
    }

private:
    // The stream of `uid`; slot 2 for any other user.
    static std::size_t index(agoraish::uid_t uid) {
        for (std::size_t s = 0; s < kStreams.size(); ++s) {
            if (kStreams[s].uid == uid) return s;
        }
        return kStreams.size();
    }

    // Guarded by the User's lock.
    std::array<bool, 3> present_{};
};

// viewer's render sink of one stream, on its engine's video thread; the planes are valid during the call only.
class StreamSink : public agoraish::IVideoSink {
public:
    struct Report {
        int rendered = 0, width = 0, height = 0, otherSizes = 0, outOfOrder = 0, last = -1, luma = -1;
    };

    void onFrame(agoraish::uid_t uid, const agoraish::VideoFrame& frame) override {
        const int number = readNumber(frame), luma = background(frame);
        std::lock_guard<std::mutex> lock(mutex_);
        if (report_.rendered == 0) {
            report_.width = frame.width;
            report_.height = frame.height;
            say("viewer", "first picture of uid ", uid, ": ", frame.width, "x", frame.height, ", background ", luma,
                ", number ", number);
        } else if (frame.width != report_.width || frame.height != report_.height) {
            ++report_.otherSizes;
        }
        if (report_.rendered > 0 && number <= report_.last) ++report_.outOfOrder;
        report_.last = number;
        report_.luma = luma;
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
    example::User local("local");
    Viewer viewer;
    Connections connections;
    std::array<StreamSink, kStreams.size()> sinks;
    agoraish::RtcEngine localEngine, viewerEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(viewerEngine, viewer, server); rc != 0) return rc;

    // A video-only call: no microphone, no speaker. viewer decodes what it receives.
    localEngine.disableAudio();
    viewerEngine.disableAudio();
    viewerEngine.enableVideo();
    if (int rc = viewerEngine.joinChannel(nullptr, kChannel, nullptr, 10); rc != 0) return fail("joinChannel", rc);
    if (!viewer.waitJoined(true)) return fail("waiting for onJoinChannelSuccess", -AGORAISH_ERR_TIMEDOUT);

    // local: a custom video track per stream, each published by a connection of its own.
    std::array<agoraish::track_id_t, kStreams.size()> tracks{};
    std::vector<agoraish::RtcConnection> published;
    for (std::size_t s = 0; s < kStreams.size(); ++s) {
        if (int rc = localEngine.createCustomVideoTrack(&tracks[s]); rc != 0) return fail("createCustomVideoTrack", rc);
        say("local", "createCustomVideoTrack() = 0: track ", tracks[s]);
        agoraish::ChannelMediaOptions options;
        options.publishMicrophoneTrack = false;
        options.publishCustomVideoTrack = true;
        options.customVideoTrackId = tracks[s];
        options.autoSubscribeAudio = false;
        options.autoSubscribeVideo = false;  // local only sends
        const agoraish::RtcConnection connection(kChannel, kStreams[s].uid);
        if (int rc = localEngine.joinChannelEx(nullptr, connection, options, &connections); rc != 0) {
            return fail("joinChannelEx", rc);
        }
        say("local", "joinChannelEx({\"", kChannel, "\", ", kStreams[s].uid, "}, track ", tracks[s], ") = 0");
        published.push_back(connection);
    }
    if (!connections.waitConnected(int(kStreams.size()))) {
        return fail("waiting for the connections to join", -AGORAISH_ERR_TIMEDOUT);
    }

    // Each connection's own encoder: its stream's size, 15 fps.
    for (std::size_t s = 0; s < kStreams.size(); ++s) {
        const agoraish::VideoEncoderConfiguration encoder({kStreams[s].width, kStreams[s].height}, kFps,
                                                          agoraish::STANDARD_BITRATE);
        if (int rc = localEngine.setVideoEncoderConfigurationEx(encoder, published[s]); rc != 0) {
            return fail("setVideoEncoderConfigurationEx", rc);
        }
        say("local", "setVideoEncoderConfigurationEx(", kStreams[s].width, "x", kStreams[s].height, ", uid ",
            kStreams[s].uid, ") = 0");
    }

    // viewer sees a user per stream, and renders each.
    if (!viewer.waitAll(true)) return fail("waiting for a user per stream", -AGORAISH_ERR_TIMEDOUT);
    for (std::size_t s = 0; s < kStreams.size(); ++s) {
        if (int rc = viewerEngine.setupRemoteVideo(agoraish::VideoCanvas(kStreams[s].uid, &sinks[s])); rc != 0) {
            return fail("setupRemoteVideo", rc);
        }
        say("viewer", "setupRemoteVideo(uid ", kStreams[s].uid, ") = 0");
    }

    // local's "cameras": a picture into each track every 1/15 s, in real time.
    std::vector<Picture> pictures(kStreams.begin(), kStreams.end());
    for (std::size_t s = 0; s < kStreams.size(); ++s) {
        say("local", "pushing ", kPushed, " pictures of ", kStreams[s].width, "x", kStreams[s].height, " (",
            kStreams[s].look, ") into track ", tracks[s]);
    }
    int refused = 0;
    const auto start = Clock::now();
    const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / kFps));
    for (int n = 0; n < kPushed; ++n) {
        for (std::size_t s = 0; s < kStreams.size(); ++s) {
            pictures[s].draw(n);
            if (int rc = localEngine.pushVideoFrame(pictures[s].frame(std::int64_t(n) * 1000 / kFps), tracks[s]);
                rc != 0 && refused++ == 0) {
                say("local", "pushVideoFrame(", n, ", track ", tracks[s], ") = ", rc);
            }
        }
        std::this_thread::sleep_until(start + (n + 1) * interval);
    }
    std::this_thread::sleep_until(start + kPushed * interval + kSettle);

    // Unbinding waits for a picture being rendered: afterwards the reports stay put.
    for (const Stream& stream : kStreams) viewerEngine.setupRemoteVideo(agoraish::VideoCanvas(stream.uid, nullptr));

    // Each connection leaves; viewer sees its users go.
    for (const agoraish::RtcConnection& connection : published) {
        say("local", "leaveChannelEx({\"", connection.channelId, "\", ", connection.localUid, "}) = ",
            localEngine.leaveChannelEx(connection));
    }
    if (!connections.waitDisconnected(int(kStreams.size())) || !viewer.waitAll(false)) {
        return fail("waiting for the connections to leave", -AGORAISH_ERR_TIMEDOUT);
    }
    for (agoraish::track_id_t track : tracks) {
        say("local", "destroyCustomVideoTrack(", track, ") = ", localEngine.destroyCustomVideoTrack(track));
    }
    viewerEngine.leaveChannel();
    if (!viewer.waitJoined(false)) return fail("waiting for onLeaveChannel", -AGORAISH_ERR_TIMEDOUT);

    // What arrived of each stream: how many, at what size and brightness, the numbers in order.
    say("local", "pushed ", kPushed, " pictures into each of ", kStreams.size(), " tracks, ", refused, " refused");
    bool ok = refused == 0;
    for (std::size_t s = 0; s < kStreams.size(); ++s) {
        const StreamSink::Report r = sinks[s].report();
        say("viewer", "uid ", kStreams[s].uid, ": ", r.rendered, " pictures of ", r.width, "x", r.height, " (",
            r.otherSizes, " of another size), background ", r.luma, " (", kStreams[s].look, "), numbers ",
            r.outOfOrder ? "NOT in order" : "in order", ", last ", r.last);
        ok = ok && r.rendered >= kPushed * 9 / 10 && r.width == kStreams[s].width && r.height == kStreams[s].height &&
             r.otherSizes == 0 && r.outOfOrder == 0 && std::abs(r.luma - kStreams[s].luma) < 16;
    }

    viewerEngine.release();
    localEngine.release();
    std::cout << (ok ? "done: viewer received both custom video tracks, each as its own user"
                     : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
