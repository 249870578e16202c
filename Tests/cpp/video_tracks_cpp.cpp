// video_tracks_cpp.cpp — custom video tracks and encoded video (ABI 0.11)
// through bindings/cpp/agoraish.hpp: createCustomVideoTrack with
// pushVideoFrame(frame, trackId), createCustomEncodedVideoTrack with
// pushEncodedVideoImage, destroyCustomVideoTrack, the media options that
// publish them, and an IVideoEncodedFrameObserver.
//
//   - one channel: engine E publishes raw track t1 on its own connection (uid
//     1: joinChannel with publishCustomVideoTrack and customVideoTrackId) and
//     encoded track t2 on a second connection (uid 2: joinChannelEx with
//     publishEncodedVideoTrack). t1 gets 320x240 I420 pictures (bright), t2
//     VP8 frames of 176x144 (dark) that this test encodes with libvpx, a
//     keyframe every second, 15 of each per second for 3 s. A peer with
//     enableVideo renders both users (setupRemoteVideo per uid): uid 1 at
//     320x240 and bright, uid 2 at 176x144 and dark, also in
//     onFirstRemoteVideoDecoded. Its encoded frame observer sees uid 2's frames
//     byte-for-byte as pushed, in order, without a gap, the first a keyframe,
//     with the frame types and the keyframes' size, RTP times that step as the
//     capture times did, and uid 1's frames (E's encoder) too, never on the
//     caller's thread. The handler of E's second connection sees
//     onFirstLocalVideoFramePublished and onLocalVideoStateChanged(ENCODING);
//     the peer's own second connection (uid 12, joinChannelEx, uid 2 muted)
//     renders uid 1 (setupRemoteVideoEx) and its handler sees
//     onFirstRemoteVideoFrame(1, 320x240); each with its own connection.
//     pushEncodedVideoImage returns 1 (one connection sends);
//     once the second connection stops publishing, 0; after
//     registerVideoEncodedFrameObserver(nullptr) returns, no frame is
//     observed; destroying the published raw track stops uid 1's pictures;
//   - bad input: nullptr ids, data and info, a wrong struct_size of the info
//     and of the observer, unknown and destroyed tracks, a raw track used as
//     encoded and the reverse (pushes and media options), codecs other than
//     VP8 and VP9, frame types other than key and delta, sizes and rotations
//     out of range, frames of 0 and over MAX_ENCODED_VIDEO_FRAME_BYTES bytes
//     (-2); MAX_CUSTOM_VIDEO_TRACKS raw and encoded together, then -5; an
//     empty RtcEngine (-7).
//
// Waits use std::condition_variable with deadlines. Exit status 0 when every
// check passes; otherwise one line per failed check on stderr and status 1.
// Links libvpx (-lvpx, the Makefile's rule for this test).
#define TEST_NAME "video_tracks_cpp"
#include "test_support.hpp"

#include <vpx/vp8cx.h>
#include <vpx/vpx_encoder.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

static_assert(std::is_same_v<decltype(agoraish::EncodedVideoFrameInfo::captureTimeMs), std::int64_t>, "ms");
static_assert(int{agoraish::VIDEO_FRAME_TYPE_KEY_FRAME} == 3 && int{agoraish::VIDEO_FRAME_TYPE_DELTA_FRAME} == 4,
              "Agora's values");
static_assert(agoraish::MAX_CUSTOM_VIDEO_TRACKS == AGORAISH_MAX_CUSTOM_VIDEO_TRACKS, "C's value");

const std::string kApp = "0123456789abcdef0123456789abcdef";
constexpr auto kWait = 15s;
constexpr int kFps = 15;
constexpr int kFrames = 3 * kFps;       // pushed into each track
constexpr int kKeyframeInterval = kFps;  // one keyframe a second
constexpr int kRawWidth = 320, kRawHeight = 240, kRawLuma = 200;
constexpr int kVp8Width = 176, kVp8Height = 144, kVp8Luma = 60;
const char* const kChannel = "video-tracks";

// ---- events --------------------------------------------------------------------

/// One event of a handler, with the fields its kind uses.
struct Event {
    std::string name;
    agoraish::uid_t uid = 0;
    int a = 0;
    int b = 0;
};

/// E's own connection, or the peer.
class Handler : public agoraish::IRtcEngineEventHandler, public test_support::EventLog<Event> {
public:
    void onJoinChannelSuccess(const char*, agoraish::uid_t uid, int) override { add("join", uid); }
    void onUserJoined(agoraish::uid_t uid, int) override { add("userJoined", uid); }
    void onFirstRemoteVideoDecoded(agoraish::uid_t uid, int width, int height, int) override {
        add("firstDecoded", uid, width, height);
    }

    bool waitFor(const std::string& name, const std::function<bool(const Event&)>& match) {
        return waitForMatch(0, [&](const Event& e) { return e.name == name && match(e); }, kWait) >= 0;
    }

private:
    void add(const char* name, agoraish::uid_t uid, int a = 0, int b = 0) {
        Event e;
        e.name = name;
        e.uid = uid;
        e.a = a;
        e.b = b;
        record(std::move(e));
    }
};

/// A joinChannelEx() connection of uid `localUid` in kChannel: E's second one, or the peer's.
class HandlerEx : public agoraish::IRtcEngineEventHandlerEx, public test_support::EventLog<Event> {
public:
    explicit HandlerEx(agoraish::uid_t localUid) : localUid_(localUid) {}

    void onJoinChannelSuccess(const agoraish::RtcConnection& c, agoraish::uid_t uid, int) override {
        add(c, "join", uid, int(c.localUid));
    }
    void onUserJoined(const agoraish::RtcConnection& c, agoraish::uid_t uid, int) override {
        add(c, "userJoined", uid);
    }
    void onFirstLocalVideoFramePublished(const agoraish::RtcConnection& c, int elapsed) override {
        add(c, "firstPublished", 0, elapsed);
    }
    void onLocalVideoStateChanged(const agoraish::RtcConnection& c, agoraish::LOCAL_VIDEO_STREAM_STATE state,
                                  agoraish::LOCAL_VIDEO_STREAM_ERROR error) override {
        add(c, "localVideoState", 0, state, error);
    }
    void onFirstRemoteVideoFrame(const agoraish::RtcConnection& c, agoraish::uid_t uid, int width, int height,
                                 int elapsed) override {
        add(c, "firstRemoteFrame", uid, width, height);
        if (elapsed < 0) add(c, "negativeElapsed", uid);
    }

    bool joined() { return waitFor("join", [](const Event&) { return true; }); }

    bool waitFor(const std::string& name, const std::function<bool(const Event&)>& match) {
        return waitForMatch(0, [&](const Event& e) { return e.name == name && match(e); }, kWait) >= 0;
    }

    /// Events that came with another connection than this one.
    int wrongConnection() {
        std::lock_guard<std::mutex> lock(mutex_);
        return wrongConnection_;
    }

private:
    void add(const agoraish::RtcConnection& c, const char* name, agoraish::uid_t uid, int a = 0, int b = 0) {
        Event e;
        e.name = name;
        e.uid = uid;
        e.a = a;
        e.b = b;
        std::lock_guard<std::mutex> lock(mutex_);
        if (c.channelId != kChannel || c.localUid != localUid_) ++wrongConnection_;
        recordLocked(std::move(e));
    }

    const agoraish::uid_t localUid_;
    int wrongConnection_ = 0;  // guarded by mutex_
};

/// The peer's render sink of one uid: the pictures' count, sizes and mean luma of the bottom half.
class Sink : public agoraish::IVideoSink {
public:
    struct Report {
        int pictures = 0, width = 0, height = 0, otherSizes = 0, luma = -1, wrongUid = 0;
    };

    explicit Sink(agoraish::uid_t uid) : uid_(uid) {}

    void onFrame(agoraish::uid_t uid, const agoraish::VideoFrame& frame) override {
        long sum = 0, count = 0;
        for (int y = frame.height / 2; y < frame.height; ++y)
            for (int x = 0; x < frame.width; ++x, ++count) sum += frame.yBuffer[y * frame.yStride + x];
        std::lock_guard<std::mutex> lock(mutex_);
        if (uid != uid_) ++report_.wrongUid;
        if (report_.pictures == 0) {
            report_.width = frame.width;
            report_.height = frame.height;
        } else if (frame.width != report_.width || frame.height != report_.height) {
            ++report_.otherSizes;
        }
        report_.luma = count > 0 ? int(sum / count) : -1;
        ++report_.pictures;
        cond_.notify_all();
    }

    Report report() {
        std::lock_guard<std::mutex> lock(mutex_);
        return report_;
    }

    /// Waits until `n` pictures arrived; returns the report.
    Report waitFor(int n) {
        std::unique_lock<std::mutex> lock(mutex_);
        cond_.wait_for(lock, kWait, [&] { return report_.pictures >= n; });
        return report_;
    }

private:
    const agoraish::uid_t uid_;
    std::mutex mutex_;
    std::condition_variable cond_;
    Report report_;
};

/// One encoded frame, pushed or observed.
struct Frame {
    std::vector<std::uint8_t> data;
    agoraish::EncodedVideoFrameInfo info;
};

/// The peer's encoded frame observer: uid 2's frames in full, a count of the others.
class EncodedObserver : public agoraish::IVideoEncodedFrameObserver {
public:
    bool onEncodedVideoFrameReceived(agoraish::uid_t uid, const std::uint8_t* imageBuffer, std::size_t length,
                                     const agoraish::EncodedVideoFrameInfo& info) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (std::this_thread::get_id() == test_support::mainThread) ++onCallerThread_;
        if (uid != info.uid) ++uidMismatch_;
        if (uid == 2) {
            Frame f;
            if (imageBuffer != nullptr) f.data.assign(imageBuffer, imageBuffer + length);
            f.info = info;
            frames_.push_back(std::move(f));
        } else if (uid == 1) {
            ++ofUid1_;
        } else {
            ++ofOthers_;
        }
        ++total_;
        cond_.notify_all();
        return true;
    }

    std::vector<Frame> frames() {
        std::lock_guard<std::mutex> lock(mutex_);
        return frames_;
    }
    int total() {
        std::lock_guard<std::mutex> lock(mutex_);
        return total_;
    }
    int ofUid1() {
        std::lock_guard<std::mutex> lock(mutex_);
        return ofUid1_;
    }
    int ofOthers() {
        std::lock_guard<std::mutex> lock(mutex_);
        return ofOthers_;
    }
    int onCallerThread() {
        std::lock_guard<std::mutex> lock(mutex_);
        return onCallerThread_;
    }
    int uidMismatch() {
        std::lock_guard<std::mutex> lock(mutex_);
        return uidMismatch_;
    }
    /// Waits until `n` frames of uid 2 arrived; returns how many did.
    std::size_t waitFor(std::size_t n) {
        std::unique_lock<std::mutex> lock(mutex_);
        cond_.wait_for(lock, kWait, [&] { return frames_.size() >= n; });
        return frames_.size();
    }

private:
    std::mutex mutex_;
    std::condition_variable cond_;
    std::vector<Frame> frames_;
    int total_ = 0, ofUid1_ = 0, ofOthers_ = 0, onCallerThread_ = 0, uidMismatch_ = 0;
};

// ---- pictures and VP8 -------------------------------------------------------------

/// An I420 picture of `luma` with a white 16x16 square that moves with `n` in its top half.
struct I420 {
    int width, height;
    std::vector<std::uint8_t> y, u, v;

    I420(int w, int h) : width(w), height(h), y(std::size_t(w) * h), u(std::size_t(w / 2) * (h / 2), 128),
                         v(std::size_t(w / 2) * (h / 2), 128) {}

    void draw(int n, std::uint8_t luma) {
        std::memset(y.data(), luma, y.size());
        const int x0 = (n * 4) % (width - 16), y0 = 8;
        for (int row = y0; row < y0 + 16; ++row) std::memset(&y[std::size_t(row) * width + x0], 235, 16);
    }
};

/// kFrames VP8 frames of 176x144 from libvpx, a keyframe every kKeyframeInterval, with their infos.
std::vector<Frame> encodeVp8() {
    std::vector<Frame> frames;
    vpx_codec_enc_cfg_t cfg;
    if (vpx_codec_enc_config_default(vpx_codec_vp8_cx(), &cfg, 0) != VPX_CODEC_OK) return frames;
    cfg.g_w = kVp8Width;
    cfg.g_h = kVp8Height;
    cfg.g_timebase.num = 1;
    cfg.g_timebase.den = 1000;  // ms
    cfg.rc_target_bitrate = 300;
    cfg.rc_end_usage = VPX_CBR;
    cfg.rc_dropframe_thresh = 0;
    cfg.g_lag_in_frames = 0;
    cfg.g_threads = 1;
    cfg.kf_mode = VPX_KF_DISABLED;  // keyframes where the test forces them
    vpx_codec_ctx_t codec;
    if (vpx_codec_enc_init(&codec, vpx_codec_vp8_cx(), &cfg, 0) != VPX_CODEC_OK) return frames;
    vpx_image_t image;
    vpx_img_alloc(&image, VPX_IMG_FMT_I420, kVp8Width, kVp8Height, 16);
    I420 picture(kVp8Width, kVp8Height);
    for (int n = 0; n < kFrames; ++n) {
        picture.draw(n, kVp8Luma);
        for (int row = 0; row < kVp8Height; ++row)
            std::memcpy(image.planes[VPX_PLANE_Y] + row * image.stride[VPX_PLANE_Y], &picture.y[std::size_t(row) * kVp8Width],
                        kVp8Width);
        for (int row = 0; row < kVp8Height / 2; ++row) {
            std::memset(image.planes[VPX_PLANE_U] + row * image.stride[VPX_PLANE_U], 128, kVp8Width / 2);
            std::memset(image.planes[VPX_PLANE_V] + row * image.stride[VPX_PLANE_V], 128, kVp8Width / 2);
        }
        const std::int64_t ms = std::int64_t(n) * 1000 / kFps;
        const vpx_enc_frame_flags_t flags = n % kKeyframeInterval == 0 ? VPX_EFLAG_FORCE_KF : 0;
        if (vpx_codec_encode(&codec, &image, ms, 1000 / kFps, flags, VPX_DL_REALTIME) != VPX_CODEC_OK) break;
        vpx_codec_iter_t iter = nullptr;
        while (const vpx_codec_cx_pkt_t* pkt = vpx_codec_get_cx_data(&codec, &iter)) {
            if (pkt->kind != VPX_CODEC_CX_FRAME_PKT) continue;
            Frame f;
            const auto* bytes = static_cast<const std::uint8_t*>(pkt->data.frame.buf);
            f.data.assign(bytes, bytes + pkt->data.frame.sz);
            f.info.codecType = agoraish::VIDEO_CODEC_VP8;
            f.info.width = kVp8Width;
            f.info.height = kVp8Height;
            f.info.frameType = (pkt->data.frame.flags & VPX_FRAME_IS_KEY) != 0 ? agoraish::VIDEO_FRAME_TYPE_KEY_FRAME
                                                                               : agoraish::VIDEO_FRAME_TYPE_DELTA_FRAME;
            f.info.captureTimeMs = 1000000 + ms;
            frames.push_back(std::move(f));
        }
    }
    vpx_img_free(&image);
    vpx_codec_destroy(&codec);
    return frames;
}

/// An ExternalVideoFrame over `picture`'s planes.
agoraish::ExternalVideoFrame externalFrame(const I420& picture, std::int64_t timestamp) {
    agoraish::ExternalVideoFrame frame;
    frame.format = agoraish::VIDEO_PIXEL_I420;
    frame.width = picture.width;
    frame.height = picture.height;
    frame.yBuffer = picture.y.data();
    frame.uBuffer = picture.u.data();
    frame.vBuffer = picture.v.data();
    frame.yStride = picture.width;
    frame.uStride = frame.vStride = picture.width / 2;
    frame.timestamp = timestamp;
    return frame;
}

std::string sizeOf(int width, int height) { return std::to_string(width) + "x" + std::to_string(height); }

// ---- the call ------------------------------------------------------------------------

void callStory(const std::string& url, const std::string& dir) {
    const std::vector<Frame> pushed = encodeVp8();
    CHECK(pushed.size() == std::size_t(kFrames), "libvpx made " + std::to_string(pushed.size()) + " frames");
    if (pushed.size() != std::size_t(kFrames)) return;
    int keyframes = 0;
    for (const Frame& f : pushed) keyframes += f.info.frameType == agoraish::VIDEO_FRAME_TYPE_KEY_FRAME ? 1 : 0;
    CHECK(pushed[0].info.frameType == agoraish::VIDEO_FRAME_TYPE_KEY_FRAME && keyframes == kFrames / kKeyframeInterval,
          "the VP8 frames start with a keyframe, one a second: " + std::to_string(keyframes) + " keyframes");

    Handler peerEvents, ownEvents;
    HandlerEx exEvents(2), peerExEvents(12);
    Sink sink1(1), sink2(2), sink1Ex(1);
    EncodedObserver observer;
    agoraish::RtcEngine peer, e;  // after what they use: they release first
    CHECK_RC(peer.initialize(test_support::contextFor(kApp, &peerEvents, dir + "/peer.log", url)), 0, "peer initialize");
    CHECK_RC(e.initialize(test_support::contextFor(kApp, &ownEvents, dir + "/e.log", url)), 0, "E initialize");
    if (!peer || !e) return;

    // The peer only watches: video on, audio off.
    CHECK_RC(peer.disableAudio(), 0, "peer disableAudio");
    CHECK_RC(peer.enableVideo(), 0, "peer enableVideo");
    CHECK_RC(peer.setupRemoteVideo(agoraish::VideoCanvas(1, &sink1)), 0, "peer setupRemoteVideo(1)");
    CHECK_RC(peer.setupRemoteVideo(agoraish::VideoCanvas(2, &sink2)), 0, "peer setupRemoteVideo(2)");
    CHECK_RC(peer.registerVideoEncodedFrameObserver(&observer), 0, "peer registerVideoEncodedFrameObserver");
    CHECK_RC(peer.joinChannel(nullptr, kChannel, nullptr, 11), 0, "peer joins");
    CHECK(peerEvents.waitFor("join", [](const Event& ev) { return ev.uid == 11; }), "peer: onJoinChannelSuccess");
    // The peer also watches uid 1 from a second connection (uid 12), whose handler sees
    // onFirstRemoteVideoFrame. A connection has video on while it publishes a video
    // track: it publishes one it never pushes into.
    agoraish::track_id_t t3 = 0;
    CHECK_RC(peer.createCustomVideoTrack(&t3), 0, "peer createCustomVideoTrack");
    agoraish::ChannelMediaOptions watch;
    watch.publishMicrophoneTrack = false;
    watch.publishCustomVideoTrack = true;
    watch.customVideoTrackId = t3;
    const agoraish::RtcConnection peerSecond(kChannel, 12);
    CHECK_RC(peer.joinChannelEx(nullptr, peerSecond, watch, &peerExEvents), 0, "peer joinChannelEx(12)");
    CHECK_RC(peer.setupRemoteVideoEx(agoraish::VideoCanvas(1, &sink1Ex), peerSecond), 0, "peer setupRemoteVideoEx(1)");
    CHECK(peerExEvents.joined(), "peer's second connection: onJoinChannelSuccess");

    // E: no audio; a raw and an encoded track, one per connection; E's connections do not watch each other.
    CHECK_RC(e.disableAudio(), 0, "E disableAudio");
    CHECK_RC(e.setVideoEncoderConfiguration(agoraish::VideoEncoderConfiguration({kRawWidth, kRawHeight}, kFps, 500)), 0,
             "E setVideoEncoderConfiguration(320x240)");
    agoraish::track_id_t t1 = 0, t2 = 0;
    CHECK_RC(e.createCustomVideoTrack(&t1), 0, "createCustomVideoTrack");
    CHECK_RC(e.createCustomEncodedVideoTrack(&t2), 0, "createCustomEncodedVideoTrack");
    CHECK(t1 > 0 && t2 > 0 && t1 != t2, "track ids " + std::to_string(t1) + ", " + std::to_string(t2));

    agoraish::ChannelMediaOptions raw;
    raw.publishMicrophoneTrack = false;
    raw.autoSubscribeVideo = false;
    raw.publishCustomVideoTrack = true;
    raw.customVideoTrackId = t1;
    agoraish::ChannelMediaOptions encoded;
    encoded.publishMicrophoneTrack = false;
    encoded.autoSubscribeVideo = false;
    encoded.publishEncodedVideoTrack = true;
    encoded.customVideoTrackId = t2;
    // A track of the other kind is refused before anything joins.
    agoraish::ChannelMediaOptions swapped = raw;
    swapped.customVideoTrackId = t2;
    CHECK_RC(e.joinChannel(nullptr, kChannel, 1, swapped), -AGORAISH_ERR_INVALID_ARGUMENT,
             "joinChannel publishing the encoded track as a raw one: -2");
    swapped = encoded;
    swapped.customVideoTrackId = t1;
    const agoraish::RtcConnection second(kChannel, 2);
    CHECK_RC(e.joinChannelEx(nullptr, second, swapped, &exEvents), -AGORAISH_ERR_INVALID_ARGUMENT,
             "joinChannelEx publishing the raw track as an encoded one: -2");
    CHECK(e.getConnectionState() == agoraish::CONNECTION_STATE_DISCONNECTED &&
              e.getConnectionStateEx(second) == -AGORAISH_ERR_INVALID_ARGUMENT,
          "the refused joins joined nothing");

    CHECK_RC(e.joinChannel(nullptr, kChannel, 1, raw), 0, "E joinChannel(1, raw track)");
    CHECK_RC(e.joinChannelEx(nullptr, second, encoded, &exEvents), 0, "E joinChannelEx(2, encoded track)");
    CHECK(ownEvents.waitFor("join", [](const Event& ev) { return ev.uid == 1; }), "E: onJoinChannelSuccess(1)");
    CHECK(exEvents.joined(), "E's second connection: onJoinChannelSuccess");
    CHECK(peerEvents.waitFor("userJoined", [](const Event& ev) { return ev.uid == 1; }), "peer sees uid 1");
    CHECK(peerEvents.waitFor("userJoined", [](const Event& ev) { return ev.uid == 2; }), "peer sees uid 2");
    // The peer's second connection leaves uid 2 alone: the encoded frame observer sees each of its frames once.
    CHECK(peerExEvents.waitFor("userJoined", [](const Event& ev) { return ev.uid == 2; }),
          "peer's second connection sees uid 2");
    CHECK_RC(peer.muteRemoteVideoStreamEx(2, true, peerSecond), 0,
             "peer muteRemoteVideoStreamEx(2) on its second connection");

    // 3 s of both tracks, in real time.
    I420 picture(kRawWidth, kRawHeight);
    int rawErrors = 0, notOne = 0;
    const auto start = Clock::now();
    for (int n = 0; n < kFrames; ++n) {
        picture.draw(n, kRawLuma);
        if (e.pushVideoFrame(externalFrame(picture, std::int64_t(n) * 1000 / kFps), t1) != 0) ++rawErrors;
        const Frame& f = pushed[std::size_t(n)];
        const int sent = e.pushEncodedVideoImage(f.data.data(), f.data.size(), f.info, t2);
        if (sent != 1 && notOne++ == 0) CHECK_RC(sent, 1, "pushEncodedVideoImage #" + std::to_string(n));
        std::this_thread::sleep_until(start + std::chrono::milliseconds((n + 1) * 1000 / kFps));
    }
    CHECK(rawErrors == 0, "pushVideoFrame errors: " + std::to_string(rawErrors));
    CHECK(notOne == 0, "pushEncodedVideoImage returned 1 (one connection sent it) for every frame but " +
                           std::to_string(notOne));

    // The peer rendered both users, each at its own size.
    const Sink::Report r1 = sink1.waitFor(kFrames * 2 / 3), r2 = sink2.waitFor(kFrames - 1);
    std::this_thread::sleep_for(300ms);
    CHECK(r1.pictures >= kFrames * 2 / 3 && r1.width == kRawWidth && r1.height == kRawHeight && r1.otherSizes == 0,
          "uid 1 (raw track): " + std::to_string(r1.pictures) + " pictures of " + sizeOf(r1.width, r1.height));
    CHECK(r2.pictures >= kFrames - 1 && r2.width == kVp8Width && r2.height == kVp8Height && r2.otherSizes == 0,
          "uid 2 (encoded track): " + std::to_string(r2.pictures) + " pictures of " + sizeOf(r2.width, r2.height));
    CHECK(std::abs(r1.luma - kRawLuma) < 12, "uid 1 shows the raw track's picture: luma " + std::to_string(r1.luma));
    CHECK(std::abs(r2.luma - kVp8Luma) < 12, "uid 2 shows the VP8 frames: luma " + std::to_string(r2.luma));
    CHECK(r1.wrongUid == 0 && r2.wrongUid == 0, "each sink got its own uid");
    CHECK(peerEvents.waitFor("firstDecoded",
                             [](const Event& ev) { return ev.uid == 1 && ev.a == kRawWidth && ev.b == kRawHeight; }),
          "peer: onFirstRemoteVideoDecoded(1, 320x240)");
    CHECK(peerEvents.waitFor("firstDecoded",
                             [](const Event& ev) { return ev.uid == 2 && ev.a == kVp8Width && ev.b == kVp8Height; }),
          "peer: onFirstRemoteVideoDecoded(2, 176x144)");

    // The connections' own handlers: E's second connection sent its first encoded frame
    // and encodes; the peer's second connection handed uid 1's first picture to its sink.
    CHECK(exEvents.waitFor("firstPublished", [](const Event& ev) { return ev.a >= 0; }),
          "E's second connection: onFirstLocalVideoFramePublished");
    CHECK(exEvents.waitFor("localVideoState",
                           [](const Event& ev) {
                               return ev.a == agoraish::LOCAL_VIDEO_STREAM_STATE_ENCODING &&
                                      ev.b == agoraish::LOCAL_VIDEO_STREAM_ERROR_OK;
                           }),
          "E's second connection: onLocalVideoStateChanged(ENCODING, OK)");
    CHECK(exEvents.countIf([](const Event& ev) { return ev.name == "firstRemoteFrame"; }) == 0,
          "E's second connection watches nobody: no onFirstRemoteVideoFrame");
    CHECK(peerExEvents.waitFor("firstRemoteFrame",
                               [](const Event& ev) { return ev.uid == 1 && ev.a == kRawWidth && ev.b == kRawHeight; }),
          "peer's second connection: onFirstRemoteVideoFrame(1, 320x240)");
    const Sink::Report rEx = sink1Ex.report();
    CHECK(rEx.pictures > 0 && rEx.width == kRawWidth && rEx.height == kRawHeight && rEx.wrongUid == 0,
          "the peer's second connection renders uid 1: " + std::to_string(rEx.pictures) + " pictures of " +
              sizeOf(rEx.width, rEx.height));
    CHECK(peerExEvents.countIf([](const Event& ev) { return ev.name == "firstRemoteFrame" && ev.uid != 1; }) == 0 &&
              peerExEvents.countIf([](const Event& ev) { return ev.name == "negativeElapsed"; }) == 0,
          "peer's second connection: onFirstRemoteVideoFrame of uid 1 only, elapsed >= 0");
    CHECK(exEvents.wrongConnection() == 0 && peerExEvents.wrongConnection() == 0,
          "each connection's handler gets its own connection");
    CHECK(exEvents.onCallerThread() == 0 && peerExEvents.onCallerThread() == 0,
          "no connection callback on the caller's thread");

    // The observer saw uid 2's frames as pushed: in order, no gap, byte for byte.
    observer.waitFor(std::size_t(kFrames));
    const std::vector<Frame> seen = observer.frames();
    std::size_t first = pushed.size();
    if (!seen.empty()) {
        for (std::size_t k = 0; k < pushed.size(); ++k) {
            if (pushed[k].data == seen[0].data) {
                first = k;
                break;
            }
        }
    }
    CHECK(first == 0, "the first frame observed of uid 2 is the first pushed (pushed #" + std::to_string(first) +
                          ", " + std::to_string(seen.size()) + " observed)");
    CHECK(!seen.empty() && seen[0].info.frameType == agoraish::VIDEO_FRAME_TYPE_KEY_FRAME,
          "the first frame observed of uid 2 is a keyframe");
    std::size_t same = 0, typeMismatch = 0, sizeMismatch = 0, timeMismatch = 0, codecMismatch = 0;
    for (std::size_t i = 0; i < seen.size() && first + i < pushed.size(); ++i) {
        const Frame& p = pushed[first + i];
        const Frame& s = seen[i];
        if (s.data != p.data) break;
        ++same;
        if (s.info.frameType != p.info.frameType) ++typeMismatch;
        if (s.info.codecType != agoraish::VIDEO_CODEC_VP8 || s.info.uid != 2) ++codecMismatch;
        const bool key = p.info.frameType == agoraish::VIDEO_FRAME_TYPE_KEY_FRAME;
        if (key ? (s.info.width != kVp8Width || s.info.height != kVp8Height) : (s.info.width != 0 || s.info.height != 0))
            ++sizeMismatch;
        if (i > 0) {
            // RTP timestamps are 32 bits of 90 kHz: the ms between frames, modulo the wrap.
            const std::int64_t wrap = (std::int64_t(1) << 32) / 90;
            const std::int64_t got = ((s.info.captureTimeMs - seen[i - 1].info.captureTimeMs) % wrap + wrap) % wrap;
            const std::int64_t want = p.info.captureTimeMs - pushed[first + i - 1].info.captureTimeMs;
            if (std::abs(got - want) > 1) ++timeMismatch;
        }
    }
    CHECK(same == seen.size() && first + same == pushed.size(),
          std::to_string(same) + " frames byte for byte as pushed, in order, of " + std::to_string(seen.size()) +
              " observed and " + std::to_string(pushed.size()) + " pushed");
    CHECK(typeMismatch == 0, "frame types as pushed: " + std::to_string(typeMismatch) + " differ");
    CHECK(codecMismatch == 0, "VP8 from uid 2: " + std::to_string(codecMismatch) + " differ");
    CHECK(sizeMismatch == 0, "keyframes 176x144, delta frames 0x0: " + std::to_string(sizeMismatch) + " differ");
    CHECK(timeMismatch == 0, "RTP times step as the capture times: " + std::to_string(timeMismatch) + " differ");
    CHECK(observer.ofUid1() > 0, "the observer also sees uid 1 (E's encoder): " + std::to_string(observer.ofUid1()));
    CHECK(observer.ofOthers() == 0 && observer.uidMismatch() == 0, "no frame of another uid, uid as in the info");
    CHECK(observer.onCallerThread() == 0, "no observer callback on the caller's thread");

    // The second connection stops publishing: nobody sends the encoded track.
    agoraish::ChannelMediaOptions stop;
    stop.publishEncodedVideoTrack = false;
    CHECK_RC(e.updateChannelMediaOptionsEx(stop, second), 0, "updateChannelMediaOptionsEx(stop the encoded track)");
    const Frame& key = pushed[0];
    CHECK_RC(e.pushEncodedVideoImage(key.data.data(), key.data.size(), key.info, t2), 0,
             "pushEncodedVideoImage with no publisher: 0 connections");

    // Unregistered, the observer sees nothing more while uid 1 goes on.
    CHECK_RC(peer.registerVideoEncodedFrameObserver(nullptr), 0, "peer registerVideoEncodedFrameObserver(nullptr)");
    const int observed = observer.total();
    const int before = sink1.report().pictures;
    for (int n = 0; n < kFps; ++n) {
        picture.draw(n, kRawLuma);
        if (e.pushVideoFrame(externalFrame(picture, std::int64_t(kFrames + n) * 1000 / kFps), t1) != 0) ++rawErrors;
        std::this_thread::sleep_for(std::chrono::milliseconds(1000 / kFps));
    }
    const Sink::Report more = sink1.waitFor(before + kFps / 2);
    CHECK(more.pictures >= before + kFps / 2, "uid 1 rendered on: " + std::to_string(more.pictures - before));
    CHECK(observer.total() == observed, "nothing observed after unregistering: " +
                                            std::to_string(observer.total() - observed) + " frames");
    CHECK(rawErrors == 0, "pushVideoFrame errors: " + std::to_string(rawErrors));

    // Destroying the published raw track: pushes to it are -2, uid 1's pictures stop.
    CHECK_RC(e.destroyCustomVideoTrack(t1), 0, "destroyCustomVideoTrack(t1) while published");
    CHECK_RC(e.pushVideoFrame(externalFrame(picture, 10000), t1), -AGORAISH_ERR_INVALID_ARGUMENT,
             "pushVideoFrame into a destroyed track: -2");
    std::this_thread::sleep_for(300ms);
    const int stopped = sink1.report().pictures;
    std::this_thread::sleep_for(500ms);
    CHECK(sink1.report().pictures == stopped, "no picture of uid 1 once its track is gone");
    CHECK_RC(e.destroyCustomEncodedVideoTrack(t2), 0, "destroyCustomEncodedVideoTrack(t2)");
    CHECK_RC(e.destroyCustomVideoTrack(t2), -AGORAISH_ERR_INVALID_ARGUMENT, "destroyCustomVideoTrack(t2) again: -2");

    CHECK_RC(peer.setupRemoteVideo(agoraish::VideoCanvas(1, nullptr)), 0, "peer unbinds uid 1");
    CHECK_RC(peer.setupRemoteVideo(agoraish::VideoCanvas(2, nullptr)), 0, "peer unbinds uid 2");
    CHECK_RC(peer.leaveChannelEx(peerSecond), 0, "peer leaveChannelEx(12)");
    CHECK_RC(peer.destroyCustomVideoTrack(t3), 0, "peer destroyCustomVideoTrack");
    CHECK_RC(e.leaveChannelEx(second), 0, "E leaveChannelEx(2)");
    CHECK_RC(e.release(true), 0, "E release");
    CHECK_RC(peer.release(true), 0, "peer release");
}

// ---- bad input -------------------------------------------------------------------

void badInputStory(const std::string& dir) {
    // No server listens on port 1: joins are accepted, then keep trying.
    agoraish::RtcEngine e;
    CHECK_RC(e.initialize(test_support::contextFor(kApp, nullptr, dir + "/bad.log", "ws://127.0.0.1:1")), 0,
             "initialize");
    if (!e) return;
    agoraish_engine_t* h = e.nativeHandle();
    const int kInvalid = -AGORAISH_ERR_INVALID_ARGUMENT;

    // Creating and destroying.
    CHECK_RC(e.createCustomVideoTrack(nullptr), kInvalid, "createCustomVideoTrack(nullptr)");
    CHECK_RC(e.createCustomEncodedVideoTrack(nullptr), kInvalid, "createCustomEncodedVideoTrack(nullptr)");
    for (agoraish::track_id_t id : {0, -1, 1, 99}) {
        CHECK_RC(e.destroyCustomVideoTrack(id), kInvalid, "destroyCustomVideoTrack(" + std::to_string(id) + ") of no track");
    }
    agoraish::track_id_t raw = 0, encoded = 0;
    CHECK_RC(e.createCustomVideoTrack(&raw), 0, "createCustomVideoTrack");
    CHECK_RC(e.createCustomEncodedVideoTrack(&encoded), 0, "createCustomEncodedVideoTrack");

    // Raw pushes.
    I420 picture(kRawWidth, kRawHeight);
    picture.draw(0, 100);
    const agoraish::ExternalVideoFrame good = externalFrame(picture, 0);
    CHECK_RC(e.pushVideoFrame(good, raw), 0, "pushVideoFrame with no publisher: dropped");
    CHECK_RC(e.pushVideoFrame(good, encoded), kInvalid, "pushVideoFrame into an encoded track");
    CHECK_RC(e.pushVideoFrame(good, 99), kInvalid, "pushVideoFrame into an unknown track");
    CHECK_RC(e.pushVideoFrame(good, 0), kInvalid, "pushVideoFrame into track 0");
    agoraish::ExternalVideoFrame bad = good;
    bad.width = 0;
    CHECK_RC(e.pushVideoFrame(bad, raw), kInvalid, "pushVideoFrame of width 0");
    bad = good;
    bad.width = 4098;
    CHECK_RC(e.pushVideoFrame(bad, raw), kInvalid, "pushVideoFrame of width 4098");
    bad = good;
    bad.yStride = kRawWidth - 1;
    CHECK_RC(e.pushVideoFrame(bad, raw), kInvalid, "pushVideoFrame with a short stride");
    bad = good;
    bad.uBuffer = nullptr;
    CHECK_RC(e.pushVideoFrame(bad, raw), kInvalid, "pushVideoFrame without a U plane");
    bad = good;
    bad.rotation = 45;
    CHECK_RC(e.pushVideoFrame(bad, raw), kInvalid, "pushVideoFrame rotated by 45");
    bad = good;
    bad.format = static_cast<agoraish::VIDEO_PIXEL_FORMAT>(99);
    CHECK_RC(e.pushVideoFrame(bad, raw), kInvalid, "pushVideoFrame of format 99");
    agoraish_external_video_frame c = {};
    c.struct_size = 3;
    CHECK_RC(agoraish_engine_push_external_video_frame_by_id(h, &c, raw), kInvalid, "push_external_video_frame_by_id(struct_size 3)");
    CHECK_RC(agoraish_engine_push_external_video_frame_by_id(h, nullptr, raw), kInvalid,
             "push_external_video_frame_by_id(NULL frame)");

    // Encoded pushes.
    const std::uint8_t bytes[16] = {0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0xb0, 0x00, 0x90, 0x00};
    agoraish::EncodedVideoFrameInfo info;
    info.frameType = agoraish::VIDEO_FRAME_TYPE_KEY_FRAME;
    info.width = kVp8Width;
    info.height = kVp8Height;
    CHECK_RC(e.pushEncodedVideoImage(bytes, sizeof bytes, info, encoded), 0, "pushEncodedVideoImage with no publisher: 0");
    CHECK_RC(e.pushEncodedVideoImage(bytes, sizeof bytes, info, raw), kInvalid, "pushEncodedVideoImage into a raw track");
    CHECK_RC(e.pushEncodedVideoImage(bytes, sizeof bytes, info, 99), kInvalid, "pushEncodedVideoImage into an unknown track");
    CHECK_RC(e.pushEncodedVideoImage(nullptr, sizeof bytes, info, encoded), kInvalid, "pushEncodedVideoImage(nullptr)");
    CHECK_RC(e.pushEncodedVideoImage(bytes, 0, info, encoded), kInvalid, "pushEncodedVideoImage of 0 bytes");
    CHECK_RC(e.pushEncodedVideoImage(bytes, agoraish::MAX_ENCODED_VIDEO_FRAME_BYTES + 1, info, encoded), kInvalid,
             "pushEncodedVideoImage of MAX_ENCODED_VIDEO_FRAME_BYTES + 1 (not read)");
    const auto badInfo = [&](const std::function<void(agoraish::EncodedVideoFrameInfo&)>& change, const std::string& what) {
        agoraish::EncodedVideoFrameInfo i = info;
        change(i);
        CHECK_RC(e.pushEncodedVideoImage(bytes, sizeof bytes, i, encoded), kInvalid, "pushEncodedVideoImage, " + what);
    };
    badInfo([](auto& i) { i.codecType = static_cast<agoraish::VIDEO_CODEC_TYPE>(2); }, "codec 2 (H.264)");
    badInfo([](auto& i) { i.codecType = static_cast<agoraish::VIDEO_CODEC_TYPE>(0); }, "codec 0");
    badInfo([](auto& i) { i.codecType = static_cast<agoraish::VIDEO_CODEC_TYPE>(-1); }, "codec -1");
    badInfo([](auto& i) { i.frameType = static_cast<agoraish::VIDEO_FRAME_TYPE>(0); }, "frame type 0 (blank)");
    badInfo([](auto& i) { i.frameType = static_cast<agoraish::VIDEO_FRAME_TYPE>(5); }, "frame type 5 (B)");
    badInfo([](auto& i) { i.frameType = static_cast<agoraish::VIDEO_FRAME_TYPE>(-1); }, "frame type -1");
    badInfo([](auto& i) { i.width = -1; }, "width -1");
    badInfo([](auto& i) { i.height = 16385; }, "height 16385");
    badInfo([](auto& i) { i.rotation = 45; }, "rotation 45");
    agoraish::EncodedVideoFrameInfo vp9 = info;
    vp9.codecType = agoraish::VIDEO_CODEC_VP9;
    vp9.frameType = agoraish::VIDEO_FRAME_TYPE_DELTA_FRAME;
    vp9.width = vp9.height = 0;
    vp9.rotation = 270;
    CHECK_RC(e.pushEncodedVideoImage(bytes, sizeof bytes, vp9, encoded), 0, "pushEncodedVideoImage(VP9 delta, 0x0, 270)");
    agoraish_encoded_video_frame_info ci = {};
    ci.struct_size = sizeof ci;
    ci.codec_type = AGORAISH_VIDEO_CODEC_VP8;
    ci.frame_type = AGORAISH_VIDEO_FRAME_TYPE_KEY_FRAME;
    CHECK_RC(agoraish_engine_push_external_encoded_video_frame(h, bytes, sizeof bytes, &ci, encoded), 0,
             "push_external_encoded_video_frame (C)");
    CHECK_RC(agoraish_engine_push_external_encoded_video_frame(h, bytes, sizeof bytes, nullptr, encoded), kInvalid,
             "push_external_encoded_video_frame(NULL info)");
    for (std::uint32_t size : {0u, 4u, std::uint32_t(sizeof ci - 1), std::uint32_t(sizeof ci + 8)}) {
        ci.struct_size = size;
        CHECK_RC(agoraish_engine_push_external_encoded_video_frame(h, bytes, sizeof bytes, &ci, encoded), kInvalid,
                 "push_external_encoded_video_frame(info struct_size " + std::to_string(size) + ")");
    }

    // The observer.
    EncodedObserver observer;
    CHECK_RC(e.registerVideoEncodedFrameObserver(&observer), 0, "registerVideoEncodedFrameObserver");
    CHECK_RC(e.registerVideoEncodedFrameObserver(&observer), 0, "registerVideoEncodedFrameObserver again");
    CHECK_RC(e.registerVideoEncodedFrameObserver(nullptr), 0, "registerVideoEncodedFrameObserver(nullptr)");
    CHECK_RC(e.registerVideoEncodedFrameObserver(nullptr), 0, "registerVideoEncodedFrameObserver(nullptr) again");
    agoraish_video_encoded_frame_observer table = {};
    for (std::uint32_t size : {0u, 4u, std::uint32_t(sizeof table - 1), std::uint32_t(sizeof table + 8)}) {
        table.struct_size = size;
        CHECK_RC(agoraish_engine_register_video_encoded_frame_observer(h, &table), kInvalid,
                 "register_video_encoded_frame_observer(struct_size " + std::to_string(size) + ")");
    }

    // Media options naming video tracks: unknown, of the other kind, two at once.
    const agoraish::RtcConnection nowhere("bad-input", 9);
    const auto badOptions = [&](const agoraish::ChannelMediaOptions& o, const std::string& what) {
        CHECK_RC(e.joinChannelEx(nullptr, nowhere, o, nullptr), kInvalid, "joinChannelEx, " + what);
        CHECK_RC(e.joinChannel(nullptr, "bad-input", 5, o), kInvalid, "joinChannel(options), " + what);
        CHECK_RC(e.updateChannelMediaOptions(o), kInvalid, "updateChannelMediaOptions, " + what);
    };
    agoraish::ChannelMediaOptions o;
    o.publishCustomVideoTrack = true;
    badOptions(o, "publishCustomVideoTrack without an id");
    o.customVideoTrackId = 99;
    badOptions(o, "publishCustomVideoTrack of unknown track 99");
    o.customVideoTrackId = encoded;
    badOptions(o, "publishCustomVideoTrack of an encoded track");
    o = agoraish::ChannelMediaOptions();
    o.publishEncodedVideoTrack = true;
    o.customVideoTrackId = raw;
    badOptions(o, "publishEncodedVideoTrack of a raw track");
    o.customVideoTrackId = 0;
    badOptions(o, "publishEncodedVideoTrack of track 0");
    o.publishCustomVideoTrack = true;
    o.customVideoTrackId = encoded;
    badOptions(o, "both kinds at once");
    o = agoraish::ChannelMediaOptions();
    o.publishCameraTrack = true;
    o.publishCustomVideoTrack = true;
    o.customVideoTrackId = raw;
    CHECK_RC(e.joinChannel(nullptr, "bad-input", 5, o), kInvalid, "joinChannel(options), the camera and a custom track");
    CHECK(e.getConnectionStateEx(nowhere) == kInvalid, "no connection was made by the refused joins");
    CHECK(e.getConnectionState() == agoraish::CONNECTION_STATE_DISCONNECTED, "the refused joins joined nothing");

    // MAX_CUSTOM_VIDEO_TRACKS raw and encoded together, then -5 for either kind.
    std::vector<agoraish::track_id_t> tracks{raw, encoded};
    for (int i = 2; i < agoraish::MAX_CUSTOM_VIDEO_TRACKS; ++i) {
        agoraish::track_id_t id = 0;
        CHECK_RC(i % 2 ? e.createCustomEncodedVideoTrack(&id) : e.createCustomVideoTrack(&id), 0,
                 "video track #" + std::to_string(i + 1));
        tracks.push_back(id);
    }
    agoraish::track_id_t extra = -1;
    CHECK_RC(e.createCustomVideoTrack(&extra), -AGORAISH_ERR_REFUSED, "one raw track more than MAX_CUSTOM_VIDEO_TRACKS: -5");
    CHECK_RC(e.createCustomEncodedVideoTrack(&extra), -AGORAISH_ERR_REFUSED,
             "one encoded track more than MAX_CUSTOM_VIDEO_TRACKS: -5");
    CHECK(extra == -1, "a refused create leaves the id");
    agoraish::track_id_t audio = 0;
    CHECK_RC(e.createCustomAudioTrack(agoraish::AUDIO_TRACK_DIRECT, &audio), 0, "audio tracks are counted apart");
    CHECK_RC(e.destroyCustomAudioTrack(audio), 0, "destroyCustomAudioTrack");
    for (agoraish::track_id_t id : tracks) CHECK_RC(e.destroyCustomVideoTrack(id), 0, "destroy track " + std::to_string(id));
    CHECK_RC(e.pushEncodedVideoImage(bytes, sizeof bytes, info, encoded), kInvalid, "pushEncodedVideoImage into a destroyed track");
    CHECK_RC(e.createCustomEncodedVideoTrack(&extra), 0, "a track again after destroying");
    CHECK_RC(e.destroyCustomVideoTrack(extra), 0, "destroy it");
    CHECK_RC(e.release(true), 0, "release");

    agoraish::RtcEngine empty;  // holds no engine: -7 everywhere
    agoraish::track_id_t id = 0;
    CHECK_RC(empty.createCustomVideoTrack(&id), -7, "no engine: createCustomVideoTrack");
    CHECK_RC(empty.createCustomEncodedVideoTrack(&id), -7, "no engine: createCustomEncodedVideoTrack");
    CHECK_RC(empty.destroyCustomVideoTrack(1), -7, "no engine: destroyCustomVideoTrack");
    CHECK_RC(empty.pushVideoFrame(good, 1), -7, "no engine: pushVideoFrame");
    CHECK_RC(empty.pushEncodedVideoImage(bytes, sizeof bytes, info, 1), -7, "no engine: pushEncodedVideoImage");
    CHECK_RC(empty.registerVideoEncodedFrameObserver(&observer), -7, "no engine: registerVideoEncodedFrameObserver");
    CHECK_RC(empty.registerVideoEncodedFrameObserver(nullptr), -7, "no engine: registerVideoEncodedFrameObserver(nullptr)");
}

}  // namespace

int main() {
    const test_support::TempDir tmp("agoraish-video-tracks-cpp");  // removed last
    if (!tmp) return 1;
    {
        agoraish::ChannelServer server;  // declared before the engines: it outlives them
        CHECK_RC(server.initialize(), 0, "ChannelServer initialize");
        CHECK_RC(server.start(), 0, "ChannelServer start");
        const std::string url = server.url();
        if (!url.empty()) callStory(url, tmp.path());
        badInputStory(tmp.path());
    }
    return test_support::summary();
}
