// video_cpp.cpp — the ABI 0.6 video part of bindings/cpp/agoraish.hpp, from C++.
//
// User 1 pushes 640x360 I420 pictures at 15 fps with dual stream on; user 2
// renders them. The main thread pushes; sinks and observers record what they
// see. Checked: the local canvas and its preview (uid 0, mirrored by default),
// an IVideoFrameObserver at the sender (capture: paints the bottom band
// white and drops every third picture; pre-encode: sees 640x360) and one at
// the receiver (onRenderVideoFrame for uid 1, through the default
// positions), a FIT canvas with a 320x240 view and setRemoteRenderMode, the
// switch to the low stream in the middle of the call (320x180), a rotation
// of 270 (360x640), takeSnapshot to PNG and the same file as a watermark,
// the video callbacks of IRtcEngineEventHandler (first frames, states,
// statistics, onUserEnableLocalVideo, onUserEnableVideo, onNetworkQuality
// and the video fields of RtcStats), the camera
// wrappers on a machine without cameras, and the codes of bad calls.
#define TEST_NAME "video_cpp"
#include "test_support.hpp"

#include <atomic>
#include <cstdint>
#include <fstream>

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr int kWidth = 640;
constexpr int kHeight = 360;
constexpr int kFps = 15;
constexpr agoraish::uid_t kSender = 1;
constexpr agoraish::uid_t kReceiver = 2;
const std::string kApp = "0123456789abcdef0123456789abcdef";
constexpr auto kWait = 20s;

/// The drawing of video_features.c, smaller: a top band dark on the left
/// (80) and bright on the right (200), gray (128) in the middle, a dark
/// bottom band (60), and the picture's number as 8 bars in rows 160..199.
std::uint8_t lumaAt(int n, int x, int y, int width, int height) {
    const int sx = x * kWidth / width, sy = y * kHeight / height;
    if (sy < 100) return sx < kWidth / 2 ? 80 : 200;
    if (sy >= 160 && sy < 200 && sx % 80 >= 8 && sx % 80 < 72) return (n >> (sx / 80)) & 1 ? 16 : 235;
    if (sy >= 300) return 60;
    return 128;
}

/// The number of a 16:9 picture of any size.
int numberOf(const std::uint8_t* y, int stride, int width, int height) {
    int n = 0;
    for (int bit = 0; bit < 8; ++bit) {
        if (y[(height / 2) * stride + (bit * 80 + 40) * width / kWidth] < 128) n |= 1 << bit;
    }
    return n;
}

/// The average luma of columns x0..x1-1, rows y0..y1-1.
int blockLuma(const std::uint8_t* y, int stride, int x0, int y0, int x1, int y1) {
    long sum = 0;
    for (int row = y0; row < y1; ++row)
        for (int col = x0; col < x1; ++col) sum += y[row * stride + col];
    return (x1 - x0) * (y1 - y0) > 0 ? int(sum / ((x1 - x0) * (y1 - y0))) : -1;
}

/// What a sink read from one picture.
struct Seen {
    agoraish::uid_t uid = 0;
    int width = 0, height = 0;
    int number = -1;     // 16:9 pictures only
    int topLeft = 0;     // the top band's left end
    int bottomLeft = 0;  // the bottom band's left end
    int bottom = 0;      // the bottom band's middle
    int row5 = 0;        // row 5, middle column
};

/// A render sink that records every picture.
class Recorder : public agoraish::IVideoSink, public test_support::EventLog<Seen> {
public:
    void onFrame(agoraish::uid_t uid, const agoraish::VideoFrame& f) override {
        Seen s;
        s.uid = uid;
        s.width = f.width;
        s.height = f.height;
        if (f.yBuffer != nullptr && f.width * 9 == f.height * 16) {
            s.number = numberOf(f.yBuffer, f.yStride, f.width, f.height);
            s.topLeft = blockLuma(f.yBuffer, f.yStride, f.width / 40, f.height / 36, f.width / 8, f.height / 6);
            s.bottomLeft = blockLuma(f.yBuffer, f.yStride, 4, f.height * 51 / 60, f.width / 12, f.height * 58 / 60);
            s.bottom = blockLuma(f.yBuffer, f.yStride, f.width / 4, f.height * 53 / 60, f.width * 3 / 4,
                                 f.height * 58 / 60);
        }
        if (f.yBuffer != nullptr && f.height > 5) s.row5 = f.yBuffer[5 * f.yStride + f.width / 2];
        record(s);
    }

    Seen last() const {
        const auto all = events();
        return all.empty() ? Seen() : all.back();
    }
};

/// The sender's observer: capture (paints, drops every third picture of a range) and pre-encode.
class SenderObserver : public agoraish::IVideoFrameObserver {
public:
    std::atomic<int> dropFrom{-1}, dropTo{-1}, captured{0}, dropped{0}, preEncoded{0}, wrongPreEncodeSize{0};

    bool onCaptureVideoFrame(VideoFrame& frame) override {
        ++captured;
        if (frame.yBuffer == nullptr || frame.width != kWidth || frame.height != kHeight) return true;
        for (int row = 300; row < kHeight; ++row) std::memset(frame.yBuffer + row * frame.yStride, 235, kWidth);
        const int n = numberOf(frame.yBuffer, frame.yStride, frame.width, frame.height);
        if (n >= dropFrom && n < dropTo && n % 3 == 0) {
            ++dropped;
            return false;
        }
        return true;
    }
    bool onPreEncodeVideoFrame(VideoFrame& frame) override {
        ++preEncoded;
        if (frame.width != kWidth || frame.height != kHeight) ++wrongPreEncodeSize;
        return true;
    }
    int getObservedFramePosition() override {
        return agoraish::POSITION_POST_CAPTURER | agoraish::POSITION_PRE_ENCODER;
    }
};

/// The receiver's observer, registered with the default positions (POST_CAPTURER | PRE_RENDERER).
class ReceiverObserver : public agoraish::IVideoFrameObserver {
public:
    std::atomic<int> rendered{0}, otherUid{0}, captured{0};

    bool onRenderVideoFrame(agoraish::uid_t uid, VideoFrame& frame) override {
        ++rendered;
        if (uid != kSender || frame.yBuffer == nullptr) ++otherUid;
        return true;
    }
    bool onCaptureVideoFrame(VideoFrame&) override {
        ++captured;  // the receiver pushes nothing: never called
        return true;
    }
};

/// One video event, with the fields its kind uses.
struct Event {
    std::string name;
    agoraish::uid_t uid = 0;
    int a = 0, b = 0, c = 0;
    std::string path;
    agoraish::LocalVideoStats local;
    agoraish::RemoteVideoStats remote;
    agoraish::RtcStats rtc;
};

class Handler : public agoraish::IRtcEngineEventHandler, public test_support::EventLog<Event> {
public:
    void onJoinChannelSuccess(const char*, agoraish::uid_t uid, int) override { add("join", uid); }
    void onUserJoined(agoraish::uid_t uid, int) override { add("userJoined", uid); }
    void onFirstLocalVideoFrame(int width, int height, int) override { add("firstLocal", 0, width, height); }
    void onFirstRemoteVideoFrame(agoraish::uid_t uid, int width, int height, int) override {
        add("firstRemote", uid, width, height);
    }
    void onUserEnableVideo(agoraish::uid_t uid, bool enabled) override { add("userEnableVideo", uid, enabled); }
    void onUserEnableLocalVideo(agoraish::uid_t uid, bool enabled) override {
        add("userEnableLocalVideo", uid, enabled);
    }
    void onLocalVideoStateChanged(agoraish::LOCAL_VIDEO_STREAM_STATE state,
                                  agoraish::LOCAL_VIDEO_STREAM_ERROR error) override {
        add("localState", 0, state, error);
    }
    void onRemoteVideoStateChanged(agoraish::uid_t uid, agoraish::REMOTE_VIDEO_STATE state,
                                   agoraish::REMOTE_VIDEO_STATE_REASON reason, int) override {
        add("remoteState", uid, state, reason);
    }
    void onLocalVideoStats(const agoraish::LocalVideoStats& stats) override {
        Event e;
        e.name = "localStats";
        e.local = stats;
        record(std::move(e));
    }
    void onRemoteVideoStats(const agoraish::RemoteVideoStats& stats) override {
        Event e;
        e.name = "remoteStats";
        e.uid = stats.uid;
        e.remote = stats;
        record(std::move(e));
    }
    void onSnapshotTaken(agoraish::uid_t uid, const char* filePath, int width, int height, int errCode) override {
        Event e;
        e.name = "snapshot";
        e.uid = uid;
        e.a = width;
        e.b = height;
        e.c = errCode;
        e.path = filePath != nullptr ? filePath : "";
        record(std::move(e));
    }
    void onNetworkQuality(agoraish::uid_t uid, int txQuality, int rxQuality) override {
        add("quality", uid, txQuality, rxQuality);
    }
    void onRtcStats(const agoraish::RtcStats& stats) override {
        Event e;
        e.name = "rtcStats";
        e.rtc = stats;
        record(std::move(e));
    }

    /// Whether an event `name` (from index `from`) that `match` accepts is there already.
    bool has(const std::string& name, const std::function<bool(const Event&)>& match, Event* out = nullptr,
             std::size_t from = 0) {
        return waitForMatch(from, [&](const Event& e) { return e.name == name && match(e); }, 0ms, out) >= 0;
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

/// Pushes numbered 640x360 pictures from the main thread at 15 fps.
class Pusher {
public:
    explicit Pusher(agoraish::RtcEngine& engine) : engine_(engine), start_(Clock::now()) {}

    void push(int rotation = 0) {
        for (int row = 0; row < kHeight; ++row)
            for (int col = 0; col < kWidth; ++col)
                y_[std::size_t(row * kWidth + col)] = lumaAt(next_, col, row, kWidth, kHeight);
        agoraish::ExternalVideoFrame frame;
        frame.format = agoraish::VIDEO_PIXEL_I420;
        frame.width = kWidth;
        frame.height = kHeight;
        frame.yBuffer = y_.data();
        frame.uBuffer = uv_.data();
        frame.vBuffer = uv_.data();
        frame.yStride = kWidth;
        frame.uStride = frame.vStride = kWidth / 2;
        frame.timestamp = std::int64_t(next_) * 1000 / kFps;
        frame.rotation = rotation;
        if (engine_.pushExternalVideoFrame(frame) != 0) ++errors;
        ++next_;
        const auto due = start_ + std::chrono::milliseconds(std::int64_t(next_) * 1000 / kFps);
        if (Clock::now() > due + 1s) start_ = Clock::now() - std::chrono::milliseconds(std::int64_t(next_) * 1000 / kFps);
        std::this_thread::sleep_until(start_ + std::chrono::milliseconds(std::int64_t(next_) * 1000 / kFps));
    }

    /// Pushes until `done()` or the wait ends; returns whether `done()` held.
    bool until(const std::function<bool()>& done, int rotation = 0) {
        const auto deadline = Clock::now() + kWait;
        while (!done()) {
            if (Clock::now() > deadline) return false;
            push(rotation);
        }
        return true;
    }

    /// Pushes until `sink` has `more` pictures beyond its count now.
    bool more(Recorder& sink, std::size_t more, int rotation = 0) {
        const std::size_t goal = sink.count() + more;
        return until([&] { return sink.count() >= goal; }, rotation);
    }

    int next() const { return next_; }
    int errors = 0;

private:
    agoraish::RtcEngine& engine_;
    Clock::time_point start_;
    int next_ = 0;
    std::vector<std::uint8_t> y_ = std::vector<std::uint8_t>(std::size_t(kWidth) * kHeight);
    std::vector<std::uint8_t> uv_ = std::vector<std::uint8_t>(std::size_t(kWidth) * kHeight / 4, 128);
};

bool fileStartsWith(const std::string& path, const std::string& magic) {
    std::ifstream in(path, std::ios::binary);
    std::string head(magic.size(), '\0');
    return in.read(&head[0], std::streamsize(head.size())) && head == magic;
}

void callStory(const std::string& url, const std::string& dir) {
    Handler ha, hb;
    Recorder preview, remote, fitted, low, rotated;
    SenderObserver senderObserver;
    ReceiverObserver receiverObserver;
    agoraish::RtcEngine a, b;  // declared after what they call back into: released first
    CHECK_RC(a.initialize(test_support::contextFor(kApp, &ha, dir + "/a.log", url)), 0, "A initialize");
    CHECK_RC(b.initialize(test_support::contextFor(kApp, &hb, dir + "/b.log", url)), 0, "B initialize");
    a.disableAudio();
    b.disableAudio();

    agoraish::VideoEncoderConfiguration config({kWidth, kHeight}, kFps, agoraish::STANDARD_BITRATE);
    config.orientationMode = agoraish::ORIENTATION_MODE_ADAPTIVE;
    config.degradationPreference = agoraish::MAINTAIN_FRAMERATE;
    config.mirrorMode = agoraish::VIDEO_MIRROR_MODE_DISABLED;
    CHECK_RC(a.setVideoEncoderConfiguration(config), 0, "A setVideoEncoderConfiguration");
    CHECK_RC(a.enableVideo(), 0, "A enableVideo");
    CHECK_RC(a.setExternalVideoSource(true), 0, "A setExternalVideoSource");
    CHECK_RC(a.enableDualStreamMode(true), 0, "A enableDualStreamMode");

    // The preview: uid 0, mirrored by default.
    Pusher pusher(a);
    CHECK_RC(a.setupLocalVideo(agoraish::VideoCanvas(0, &preview)), 0, "A setupLocalVideo");
    CHECK_RC(a.startPreview(), 0, "A startPreview");
    CHECK(pusher.more(preview, 2), "preview pictures: " + std::to_string(preview.count()));
    Seen s = preview.last();
    CHECK(s.uid == 0 && s.width == kWidth && s.height == kHeight && s.topLeft > 170,
          "preview: uid " + std::to_string(s.uid) + ", " + std::to_string(s.width) + "x" + std::to_string(s.height) +
              ", top-left luma " + std::to_string(s.topLeft) + " (200 when mirrored)");
    CHECK_RC(a.stopPreview(), 0, "A stopPreview");
    CHECK_RC(a.setupLocalVideo(agoraish::VideoCanvas(0, nullptr)), 0, "A unbinds its local canvas");
    CHECK(ha.has("firstLocal", [](const Event& e) { return e.a == kWidth && e.b == kHeight; }),
          "A onFirstLocalVideoFrame(640, 360)");

    // The call.
    CHECK_RC(b.enableVideo(), 0, "B enableVideo");
    CHECK_RC(b.registerVideoFrameObserver(&receiverObserver), 0, "B registerVideoFrameObserver");
    CHECK_RC(b.setupRemoteVideo(agoraish::VideoCanvas(kSender, &remote)), 0, "B setupRemoteVideo");
    CHECK_RC(a.joinChannel(nullptr, "video-cpp", nullptr, kSender), 0, "A join");
    CHECK_RC(b.joinChannel(nullptr, "video-cpp", nullptr, kReceiver), 0, "B join");
    CHECK(ha.waitForMatch(0, [](const Event& e) { return e.name == "join"; }, kWait) >= 0, "A joined");
    CHECK(hb.waitForMatch(0, [](const Event& e) { return e.name == "userJoined"; }, kWait) >= 0, "B sees A");
    CHECK(pusher.until([&] { return remote.last().width == kWidth; }), "B renders A's pictures");

    // The sender's observer: a white bottom band, every third picture of a range dropped.
    senderObserver.dropFrom = pusher.next() + 1;
    senderObserver.dropTo = pusher.next() + 31;
    CHECK_RC(a.registerVideoFrameObserver(&senderObserver), 0, "A registerVideoFrameObserver");
    while (pusher.next() < senderObserver.dropTo + 3) pusher.push();
    CHECK(pusher.until([&] { return remote.last().number >= senderObserver.dropTo; }), "B renders after the range");
    CHECK_RC(a.registerVideoFrameObserver(nullptr), 0, "A unregisters its observer");
    int inRange = 0, wrong = 0;
    for (const Seen& r : remote.events()) {
        if (r.number < senderObserver.dropFrom || r.number >= senderObserver.dropTo) continue;
        ++inRange;
        if (r.number % 3 == 0 || r.bottom < 180) ++wrong;
    }
    CHECK(inRange >= 5 && wrong == 0, "B, the observed range: " + std::to_string(inRange) + " pictures, " +
                                          std::to_string(wrong) + " dropped ones or without the white band");
    CHECK(senderObserver.dropped == 10 && senderObserver.preEncoded > 0 && senderObserver.wrongPreEncodeSize == 0,
          "A's observer: " + std::to_string(senderObserver.dropped.load()) + " dropped, " +
              std::to_string(senderObserver.preEncoded.load()) + " pre-encoded");
    CHECK(receiverObserver.rendered > 0 && receiverObserver.otherUid == 0 && receiverObserver.captured == 0,
          "B's observer: " + std::to_string(receiverObserver.rendered.load()) + " rendered");
    CHECK_RC(b.registerVideoFrameObserver(nullptr), 0, "B unregisters its observer");

    // A FIT canvas with a 320x240 view: black bars; switched to FILL: none.
    CHECK_RC(b.setupRemoteVideo(agoraish::VideoCanvas(kSender, &fitted, agoraish::RENDER_MODE_FIT, 320, 240)), 0,
             "B setupRemoteVideo(FIT, 320x240)");
    CHECK(pusher.more(fitted, 2), "FIT pictures");
    s = fitted.last();
    CHECK(s.width == 320 && s.height == 240 && s.row5 < 40,
          "FIT: " + std::to_string(s.width) + "x" + std::to_string(s.height) + ", row 5 luma " + std::to_string(s.row5));
    CHECK_RC(b.setRemoteRenderMode(kSender, agoraish::RENDER_MODE_FILL), 0, "B setRemoteRenderMode(FILL)");
    CHECK(pusher.more(fitted, 2), "FILL pictures");
    s = fitted.last();
    CHECK(s.width == 320 && s.height == 240 && s.row5 > 60,
          "FILL: " + std::to_string(s.width) + "x" + std::to_string(s.height) + ", row 5 luma " + std::to_string(s.row5));

    // The low stream, asked for in the middle of the call.
    CHECK_RC(b.setupRemoteVideo(agoraish::VideoCanvas(kSender, &low)), 0, "B setupRemoteVideo for the low stream");
    CHECK_RC(b.setRemoteVideoStreamType(kSender, agoraish::REMOTE_VIDEO_STREAM_LOW), 0, "B setRemoteVideoStreamType(low)");
    CHECK(pusher.until([&] { return low.last().width == 320 && low.last().height == 180; }),
          "the low stream: " + std::to_string(low.last().width) + "x" + std::to_string(low.last().height));
    Event e;
    CHECK(pusher.until([&] { return hb.has("remoteStats", [](const Event& ev) { return ev.remote.width == 320; }, &e); }),
          "B onRemoteVideoStats of the low stream");
    CHECK(e.remote.uid == kSender && e.remote.height == 180 && e.remote.rxStreamType == agoraish::REMOTE_VIDEO_STREAM_LOW &&
              e.remote.receivedBitrate > 0 && e.remote.decoderOutputFrameRate > 0,
          "B remote stats: " + std::to_string(e.remote.width) + "x" + std::to_string(e.remote.height) + ", stream " +
              std::to_string(int(e.remote.rxStreamType)) + ", " + std::to_string(e.remote.receivedBitrate) + " Kbps");
    CHECK_RC(b.setRemoteVideoStreamType(kSender, agoraish::REMOTE_VIDEO_STREAM_HIGH), 0,
             "B setRemoteVideoStreamType(high)");
    CHECK(pusher.until([&] { return low.last().width == kWidth; }), "back to the high stream");
    CHECK(pusher.until([&] { return ha.has("localStats", [](const Event& ev) { return ev.local.sentBitrate > 0; }, &e); }),
          "A onLocalVideoStats");
    CHECK(e.local.encodedFrameWidth == kWidth && e.local.encodedFrameHeight == kHeight &&
              e.local.codecType == agoraish::VIDEO_CODEC_VP8 && e.local.targetFrameRate == kFps &&
              e.local.encodedFrameCount > 0,
          "A local stats: " + std::to_string(e.local.encodedFrameWidth) + "x" + std::to_string(e.local.encodedFrameHeight) +
              ", " + std::to_string(e.local.sentBitrate) + " Kbps");

    // Rotation 270: 360x640.
    CHECK_RC(b.setupRemoteVideo(agoraish::VideoCanvas(kSender, &rotated)), 0, "B setupRemoteVideo for rotation");
    CHECK(pusher.until([&] { return rotated.last().width == kHeight && rotated.last().height == kWidth; }, 270),
          "rotation 270: " + std::to_string(rotated.last().width) + "x" + std::to_string(rotated.last().height));

    // A snapshot of the local picture as PNG, then that file as a watermark at the bottom-left.
    const std::string png = dir + "/local.png";
    CHECK_RC(a.takeSnapshot(0, png.c_str()), 0, "A takeSnapshot(0, .png)");
    CHECK(pusher.until([&] { return ha.has("snapshot", [](const Event&) { return true; }, &e); }),
          "A onSnapshotTaken");
    CHECK(e.uid == 0 && e.path == png && e.a == kWidth && e.b == kHeight && e.c == 0,
          "A snapshot: uid " + std::to_string(e.uid) + ", " + std::to_string(e.a) + "x" + std::to_string(e.b) +
              ", error " + std::to_string(e.c));
    CHECK(fileStartsWith(png, "\x89PNG\r\n\x1a\n"), png + " is a PNG");
    CHECK_RC(b.setupRemoteVideo(agoraish::VideoCanvas(kSender, &remote)), 0, "B setupRemoteVideo again");
    CHECK(pusher.more(remote, 2), "pictures before the watermark");
    CHECK(remote.last().bottomLeft < 75,
          "the bottom band before the watermark: " + std::to_string(remote.last().bottomLeft));
    agoraish::WatermarkOptions mark;
    mark.positionInLandscapeMode = agoraish::Rectangle(0, 300, 96, 54);
    mark.positionInPortraitMode = agoraish::Rectangle(0, 560, 54, 96);
    CHECK_RC(a.addVideoWatermark(png.c_str(), mark), 0, "A addVideoWatermark");
    CHECK(pusher.until([&] { return remote.last().bottomLeft > 90; }),
          "the watermark at the bottom-left: luma " + std::to_string(remote.last().bottomLeft));
    CHECK_RC(a.clearVideoWatermarks(), 0, "A clearVideoWatermarks");
    CHECK(pusher.until([&] { return remote.last().bottomLeft < 75; }),
          "no watermark after clearVideoWatermarks: luma " + std::to_string(remote.last().bottomLeft));

    // Events of the call.
    CHECK(ha.has("localState", [](const Event& ev) { return ev.a == agoraish::LOCAL_VIDEO_STREAM_STATE_ENCODING; }),
          "A onLocalVideoStateChanged(ENCODING)");
    CHECK(hb.has("remoteState",
                 [](const Event& ev) { return ev.uid == kSender && ev.a == agoraish::REMOTE_VIDEO_STATE_DECODING; }),
          "B onRemoteVideoStateChanged(1, DECODING)");
    CHECK(hb.has("firstRemote", [](const Event& ev) { return ev.uid == kSender && ev.a == kWidth && ev.b == kHeight; }),
          "B onFirstRemoteVideoFrame(1, 640, 360)");
    // Without loss: the sender's own quality, the receiver's quality of the sender, the sender's video rate.
    const auto good = [](int q) { return q == agoraish::QUALITY_EXCELLENT || q == agoraish::QUALITY_GOOD; };
    CHECK(pusher.until([&] { return ha.has("quality", [&](const Event& ev) { return ev.uid == 0 && good(ev.a); }); }),
          "A onNetworkQuality(0, EXCELLENT or GOOD, ...)");
    CHECK(pusher.until([&] {
              return hb.has("quality", [&](const Event& ev) {
                  return ev.uid == kSender && ev.a == agoraish::QUALITY_UNKNOWN && good(ev.b);
              });
          }),
          "B onNetworkQuality(1, UNKNOWN, EXCELLENT or GOOD)");
    CHECK(pusher.until([&] {
              return ha.has("rtcStats", [](const Event& ev) { return ev.rtc.txVideoKBitRate > 0; }, &e);
          }),
          "A onRtcStats with txVideoKBitRate");
    CHECK(e.rtc.txPacketLossRate == 0 && e.rtc.gatewayRtt >= 0 && e.rtc.lastmileDelay >= 0,
          "A rtc stats: tx loss " + std::to_string(e.rtc.txPacketLossRate) + " %, gateway rtt " +
              std::to_string(e.rtc.gatewayRtt) + " ms");
    // An event of B from index `from` on: `name` for the sender with `value`.
    const auto senderEvent = [&hb](std::size_t from, const char* name, int value) {
        return hb.waitForMatch(
                   from, [&](const Event& ev) { return ev.name == name && ev.uid == kSender && ev.a == value; },
                   kWait) >= 0;
    };
    std::size_t mark2 = hb.count();
    CHECK_RC(a.enableLocalVideo(false), 0, "A enableLocalVideo(false)");
    CHECK(senderEvent(mark2, "userEnableLocalVideo", 0), "B onUserEnableLocalVideo(1, false)");
    CHECK_RC(a.enableLocalVideo(true), 0, "A enableLocalVideo(true)");
    CHECK(senderEvent(mark2, "userEnableLocalVideo", 1), "B onUserEnableLocalVideo(1, true)");
    mark2 = hb.count();
    CHECK_RC(a.disableVideo(), 0, "A disableVideo");
    CHECK(senderEvent(mark2, "userEnableVideo", 0), "B onUserEnableVideo(1, false)");

    CHECK(pusher.errors == 0, "push errors: " + std::to_string(pusher.errors));
    CHECK(ha.onCallerThread() == 0 && hb.onCallerThread() == 0, "no event on the caller's thread");
    CHECK(preview.onCallerThread() == 0 && remote.onCallerThread() == 0 && fitted.onCallerThread() == 0,
          "no picture on the caller's thread");
    CHECK_RC(b.setupRemoteVideo(agoraish::VideoCanvas(kSender, nullptr)), 0, "B unbinds");
    CHECK_RC(a.release(true), 0, "A release");
    CHECK_RC(b.release(true), 0, "B release");
}

void argumentStory(const std::string& dir) {
    agoraish::RtcEngine e;
    CHECK_RC(e.initialize(test_support::contextFor(kApp, nullptr, dir + "/args.log", "ws://127.0.0.1:1")), 0,
             "initialize");
    Recorder sink;
    CHECK_RC(e.setupRemoteVideo(agoraish::VideoCanvas(7, &sink, static_cast<agoraish::RENDER_MODE_TYPE>(5), 0, 0)), -2,
             "setupRemoteVideo render mode 5");
    CHECK_RC(e.setupLocalVideo(agoraish::VideoCanvas(0, &sink, agoraish::RENDER_MODE_FIT, 640, 0)), -2,
             "setupLocalVideo with one side of the view");
    CHECK_RC(e.setLocalRenderMode(agoraish::RENDER_MODE_FIT), -3, "setLocalRenderMode without a canvas");
    CHECK_RC(e.setRemoteRenderMode(0, agoraish::RENDER_MODE_FIT), -2, "setRemoteRenderMode uid 0");
    CHECK_RC(e.setRemoteRenderMode(7, agoraish::RENDER_MODE_FIT), -3, "setRemoteRenderMode without a canvas");
    ReceiverObserver observer;
    CHECK_RC(e.registerVideoFrameObserver(&observer, 8), -2, "registerVideoFrameObserver unknown bits");
    CHECK_RC(e.registerVideoFrameObserver(nullptr), 0, "registerVideoFrameObserver(nullptr)");
    CHECK_RC(e.setRemoteVideoStreamType(0, agoraish::REMOTE_VIDEO_STREAM_LOW), -2, "setRemoteVideoStreamType uid 0");
    CHECK_RC(e.setRemoteDefaultVideoStreamType(static_cast<agoraish::REMOTE_VIDEO_STREAM_TYPE>(2)), -2,
             "setRemoteDefaultVideoStreamType(2)");
    CHECK_RC(e.setRemoteVideoStreamType(7, agoraish::VIDEO_STREAM_LAYER_6), 0, "setRemoteVideoStreamType LAYER_6");
    CHECK_RC(e.setRemoteDefaultVideoStreamType(agoraish::VIDEO_STREAM_LAYER_1), 0,
             "setRemoteDefaultVideoStreamType LAYER_1");
    CHECK_RC(e.setRemoteDefaultVideoStreamType(static_cast<agoraish::VIDEO_STREAM_TYPE>(10)), -2,
             "setRemoteDefaultVideoStreamType(10)");

    // Simulcast (ABI 0.12): at most three layers, each inside 16..3840 x 16..2160 at 1..60 fps.
    using Simulcast = agoraish::SimulcastConfig;
    Simulcast simulcast;
    CHECK_RC(e.setSimulcastConfig(simulcast), 0, "setSimulcastConfig with no layer");
    simulcast.configs[Simulcast::STREAM_LAYER_1] = {{480, 270}, 15, true};
    simulcast.configs[Simulcast::STREAM_LAYER_2] = {{320, 180}, 15, true};
    simulcast.configs[Simulcast::STREAM_LOW] = {{160, 90}, 15, true};
    simulcast.configs[Simulcast::STREAM_LAYER_6] = {{3841, 5000}, 0, false};  // not enabled: not read
    CHECK_RC(e.setSimulcastConfig(simulcast), 0, "setSimulcastConfig with three layers");
    simulcast.configs[Simulcast::STREAM_LAYER_3] = {{240, 136}, 15, true};
    CHECK_RC(e.setSimulcastConfig(simulcast), -2, "setSimulcastConfig with four layers");
    simulcast.configs[Simulcast::STREAM_LAYER_3].enable = false;
    simulcast.configs[Simulcast::STREAM_LOW].dimensions = {15, 90};
    CHECK_RC(e.setSimulcastConfig(simulcast), -2, "setSimulcastConfig with a layer 15 wide");
    simulcast.configs[Simulcast::STREAM_LOW].dimensions = {160, 2161};
    CHECK_RC(e.setSimulcastConfig(simulcast), -2, "setSimulcastConfig with a layer 2161 high");
    simulcast.configs[Simulcast::STREAM_LOW] = {{160, 90}, 61, true};
    CHECK_RC(e.setSimulcastConfig(simulcast), -2, "setSimulcastConfig at 61 fps");
    simulcast.configs[Simulcast::STREAM_LOW].framerate = 60;
    simulcast.publish_fallback_enable = true;
    CHECK_RC(e.setSimulcastConfig(simulcast), 0, "setSimulcastConfig at 60 fps");
    CHECK_RC(e.takeSnapshot(1, (dir + "/x.jpg").c_str()), -113, "takeSnapshot in no call");
    CHECK_RC(e.takeSnapshot(1, (dir + "/x.gif").c_str()), -2, "takeSnapshot .gif");
    agoraish::WatermarkOptions mark;
    mark.positionInLandscapeMode = agoraish::Rectangle(0, 0, 0, 10);
    mark.positionInPortraitMode = agoraish::Rectangle(0, 0, 10, 10);
    CHECK_RC(e.addVideoWatermark((dir + "/none.png").c_str(), mark), -2, "addVideoWatermark, a missing file");
    CHECK_RC(e.clearVideoWatermarks(), 0, "clearVideoWatermarks");
    agoraish::VideoEncoderConfiguration config;
    config.codecType = agoraish::VIDEO_CODEC_VP9;
    CHECK_RC(e.setVideoEncoderConfiguration(config), 0, "setVideoEncoderConfiguration VP9");
    config.orientationMode = static_cast<agoraish::ORIENTATION_MODE>(3);
    CHECK_RC(e.setVideoEncoderConfiguration(config), -2, "setVideoEncoderConfiguration orientation 3");

    // Cameras: none on this machine (no /dev/video* nodes) means an empty list.
    const int count = e.getVideoDeviceCount();
    std::vector<agoraish::VideoDeviceInfo> devices(3);
    CHECK_RC(e.enumerateVideoDevices(devices), 0, "enumerateVideoDevices");
    CHECK(count >= 0 && int(devices.size()) == count, "every camera listed: " + std::to_string(count));
    agoraish::VideoDeviceInfo info;
    info.deviceId = "untouched";
    CHECK_RC(e.getVideoDevice(count, info), -2, "getVideoDevice past the end");
    CHECK(info.deviceId == "untouched", "a failed getVideoDevice leaves the output");
    std::string id = "untouched";
    if (count == 0) {
        CHECK_RC(e.getCurrentVideoDevice(id), -3, "getCurrentVideoDevice without a camera");
        CHECK(id == "untouched", "a failed getCurrentVideoDevice leaves the output");
    }
    if (count < 2) CHECK_RC(e.switchCamera(), -4, "switchCamera with fewer than two cameras");
    CHECK_RC(e.setVideoDevice(""), -2, "setVideoDevice empty");
    CHECK_RC(e.setVideoDevice("/dev/video42"), 0, "setVideoDevice");
    CHECK_RC(e.getCurrentVideoDevice(id), 0, "getCurrentVideoDevice");
    CHECK(id == "/dev/video42", "current video device " + id);
    agoraish::CameraCapturerConfiguration camera;
    CHECK_RC(e.setCameraCapturerConfiguration(camera), 0, "setCameraCapturerConfiguration (defaults)");
    camera.preference = agoraish::CAPTURER_OUTPUT_PREFERENCE_MANUAL;
    camera.captureWidth = 8;
    CHECK_RC(e.setCameraCapturerConfiguration(camera), -2, "setCameraCapturerConfiguration width 8");

    agoraish::RtcEngine empty;  // holds no engine: -7 everywhere
    CHECK_RC(empty.startPreview(), -7, "no engine: startPreview");
    CHECK_RC(empty.setupLocalVideo(agoraish::VideoCanvas()), -7, "no engine: setupLocalVideo");
    CHECK_RC(empty.registerVideoFrameObserver(&observer), -7, "no engine: registerVideoFrameObserver");
    CHECK_RC(empty.enableDualStreamMode(true), -7, "no engine: enableDualStreamMode");
    CHECK_RC(empty.takeSnapshot(1, "x.jpg"), -7, "no engine: takeSnapshot");
    CHECK_RC(empty.getVideoDeviceCount(), -7, "no engine: getVideoDeviceCount");
    CHECK_RC(empty.enumerateVideoDevices(devices), -7, "no engine: enumerateVideoDevices");
    CHECK_RC(empty.getCurrentVideoDevice(id), -7, "no engine: getCurrentVideoDevice");
    CHECK_RC(empty.switchCamera(), -7, "no engine: switchCamera");
}

}  // namespace

int main() {
    const test_support::TempDir tmp("agoraish-video-cpp");  // removed last
    if (!tmp) return 1;
    {
        agoraish::ChannelServer server;  // declared before the engines: it outlives them
        CHECK_RC(server.initialize(), 0, "ChannelServer initialize");
        CHECK_RC(server.start(), 0, "ChannelServer start");
        const std::string url = server.url();
        if (!url.empty()) callStory(url, tmp.path());
        argumentStory(tmp.path());
    }
    return test_support::summary();
}
