// connections_cpp.cpp — one engine in several channels (ABI 0.11) through
// bindings/cpp/agoraish.hpp: joinChannel(token, channelId, uid, options),
// joinChannelEx with an IRtcEngineEventHandlerEx, the ...Ex twins, and
// custom audio tracks.
//
//   - two channels: engine E joins "red" as uid 1 with ChannelMediaOptions
//     that publish custom audio track t1 (joinChannel with options), and
//     "blue" as uid 2 publishing track t2 (joinChannelEx). A peer in each
//     channel listens through an external sink: the red peer hears only t1's
//     660 Hz tone and sees only uid 1, the blue peer only t2's 1500 Hz tone
//     and uid 2 (frequency by the median period between crossings of the pulled PCM). E's own
//     handler gets red's events, the ex handler blue's, each with the right
//     connection; adjustCustomAudioPublishVolume lowers what blue hears;
//     muteLocalAudioStreamEx mutes blue only; getConnectionStateEx,
//     getCallIdEx; leaveChannelEx(blue): onLeaveChannel and
//     onConnectionStateChanged(DISCONNECTED, LEAVE_CHANNEL) on the ex handler,
//     the blue peer sees uid 2 go, red goes on being heard, a second
//     leaveChannelEx is -18 and the connection is unknown (-2);
//   - bad input: NULL connection, NULL channel_id, bad struct_size (-2) of
//     the connection, the options and the handler table; an unknown
//     connection (-2), a duplicate one (-17), leaving one never joined (-18),
//     bad channel names (-102), options out of range (-2), custom track
//     arguments (-2), AGORAISH_MAX_CUSTOM_AUDIO_TRACKS and AGORAISH_MAX_CONNECTIONS
//     (-5), and an empty RtcEngine (-7);
//   - release: an engine in a channel with four more connections (one of
//     them in the same channel with another uid, one that leaves itself from
//     inside its onJoinChannelSuccess) is released from another thread;
//     nothing arrives after.
//
// Waits use std::condition_variable with deadlines. Exit status 0 when every
// check passes; otherwise one line per failed check on stderr and status 1.
#define TEST_NAME "connections_cpp"
#include "test_support.hpp"
#include "example_support.hpp"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <future>
#include <type_traits>

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

static_assert(std::is_same_v<decltype(agoraish::RtcConnection::channelId), std::string>, "RtcConnection owns its name");
static_assert(std::is_same_v<decltype(agoraish::ChannelMediaOptions::publishCustomAudioTrackId),
                             std::optional<agoraish::track_id_t>>,
              "options are optional");
static_assert(int{agoraish::AUDIO_TRACK_DIRECT} == int{AGORAISH_AUDIO_TRACK_DIRECT}, "C's values");

const std::string kApp = "0123456789abcdef0123456789abcdef";
constexpr auto kWait = 15s;
constexpr int kPushRate = 48000;
constexpr int kPushChunk = kPushRate / 100;  // 10 ms
constexpr int kSinkRate = 16000;
constexpr int kSinkChunk = kSinkRate / 100;
constexpr double kPi = 3.14159265358979323846;
constexpr double kRedHz = 660.0;
constexpr double kBlueHz = 1500.0;

// ---- handlers ----------------------------------------------------------------

/// One event of a handler, with the fields its kind uses.
struct Event {
    std::string name;
    agoraish::RtcConnection connection;  // ex handlers only
    agoraish::uid_t uid = 0;
    int a = 0;
    int b = 0;
};

/// The events of a peer or of E's own connection (IRtcEngineEventHandler).
class Handler : public agoraish::IRtcEngineEventHandler, public test_support::EventLog<Event> {
public:
    void onJoinChannelSuccess(const char* channel, agoraish::uid_t uid, int) override {
        add("join", uid, 0, 0, channel);
    }
    void onLeaveChannel(const agoraish::RtcStats&) override { add("leave", 0); }
    void onUserJoined(agoraish::uid_t uid, int) override { add("userJoined", uid); }
    void onUserOffline(agoraish::uid_t uid, agoraish::USER_OFFLINE_REASON_TYPE reason) override {
        add("userOffline", uid, reason);
    }
    void onUserMuteAudio(agoraish::uid_t uid, bool muted) override { add("userMuteAudio", uid, muted ? 1 : 0); }
    void onRemoteAudioStateChanged(agoraish::uid_t uid, agoraish::REMOTE_AUDIO_STATE state,
                                   agoraish::REMOTE_AUDIO_STATE_REASON reason, int) override {
        add("remoteState", uid, state, reason);
    }
    void onConnectionStateChanged(agoraish::CONNECTION_STATE_TYPE state,
                                  agoraish::CONNECTION_CHANGED_REASON_TYPE reason) override {
        add("state", 0, state, reason);
    }

    bool waitFor(const std::string& name, const std::function<bool(const Event&)>& match, std::size_t from = 0) {
        return waitForMatch(from, [&](const Event& e) { return e.name == name && match(e); }, kWait) >= 0;
    }
    std::size_t countOf(const std::string& name, const std::function<bool(const Event&)>& match) const {
        return countIf([&](const Event& e) { return e.name == name && match(e); });
    }

private:
    void add(const char* name, agoraish::uid_t uid, int a = 0, int b = 0, const char* channel = nullptr) {
        Event e;
        e.name = name;
        e.uid = uid;
        e.a = a;
        e.b = b;
        if (channel != nullptr) e.connection.channelId = channel;
        record(std::move(e));
    }
};

/// The events of E's joinChannelEx connections (IRtcEngineEventHandlerEx), each with its connection.
class HandlerEx : public agoraish::IRtcEngineEventHandlerEx, public test_support::EventLog<Event> {
public:
    void onJoinChannelSuccess(const agoraish::RtcConnection& c, agoraish::uid_t uid, int elapsed) override {
        add("join", c, uid, elapsed);
        agoraish::RtcEngine* engine = nullptr;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (c == leaveInsideConnection_) engine = leaveInside_;
        }
        if (engine == nullptr) return;
        const int rc = engine->leaveChannelEx(c);  // not under the lock: its events may come at once
        std::lock_guard<std::mutex> lock(mutex_);
        leaveInsideRc_ = rc;
    }
    void onLeaveChannel(const agoraish::RtcConnection& c, const agoraish::RtcStats& stats) override {
        add("leave", c, 0, static_cast<int>(stats.duration));
    }
    void onUserJoined(const agoraish::RtcConnection& c, agoraish::uid_t uid, int) override { add("userJoined", c, uid); }
    void onUserOffline(const agoraish::RtcConnection& c, agoraish::uid_t uid,
                       agoraish::USER_OFFLINE_REASON_TYPE reason) override {
        add("userOffline", c, uid, reason);
    }
    void onConnectionStateChanged(const agoraish::RtcConnection& c, agoraish::CONNECTION_STATE_TYPE state,
                                  agoraish::CONNECTION_CHANGED_REASON_TYPE reason) override {
        add("state", c, 0, state, reason);
    }
    void onFirstLocalAudioFramePublished(const agoraish::RtcConnection& c, int elapsed) override {
        add("firstLocal", c, 0, elapsed);
    }
    void onRtcStats(const agoraish::RtcConnection& c, const agoraish::RtcStats& stats) override {
        add("rtcStats", c, 0, static_cast<int>(stats.txAudioKBitRate), static_cast<int>(stats.userCount));
    }

    /// Makes onJoinChannelSuccess of `connection` leave it at once, from inside the callback.
    void leaveFromInside(agoraish::RtcEngine* engine, const agoraish::RtcConnection& connection) {
        std::lock_guard<std::mutex> lock(mutex_);
        leaveInside_ = engine;
        leaveInsideConnection_ = connection;
    }
    int leaveInsideRc() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return leaveInsideRc_;
    }

    bool waitFor(const std::string& name, const std::function<bool(const Event&)>& match, std::size_t from = 0) {
        return waitForMatch(from, [&](const Event& e) { return e.name == name && match(e); }, kWait) >= 0;
    }
    std::size_t countOf(const std::string& name, const std::function<bool(const Event&)>& match) const {
        return countIf([&](const Event& e) { return e.name == name && match(e); });
    }

private:
    void add(const char* name, const agoraish::RtcConnection& c, agoraish::uid_t uid, int a = 0, int b = 0) {
        Event e;
        e.name = name;
        e.connection = c;
        e.uid = uid;
        e.a = a;
        e.b = b;
        record(std::move(e));
    }

    // Guarded by mutex_ (set on the main thread, used on the event thread).
    agoraish::RtcEngine* leaveInside_ = nullptr;
    agoraish::RtcConnection leaveInsideConnection_;
    int leaveInsideRc_ = 1;
};

// ---- audio -------------------------------------------------------------------

/// What a peer heard: frequency, level and steadiness (example_support.hpp's analysis, shared with the examples).
using example::Tone;

Tone analyze(const std::vector<std::int16_t>& pcm) { return example::analyzeTone(pcm.data(), pcm.size(), kSinkRate); }

/// Pushes a tone into each of E's tracks and pulls each peer's sink, 10 ms per call in real time.
class Pump {
public:
    Pump(agoraish::RtcEngine& e, agoraish::track_id_t redTrack, agoraish::track_id_t blueTrack,
         agoraish::RtcEngine& red, agoraish::RtcEngine& blue)
        : e_(e), redTrack_(redTrack), blueTrack_(blueTrack), red_(red), blue_(blue), start_(Clock::now()) {}

    /// Runs `ms`; returns what the red and the blue peer heard over it.
    std::pair<Tone, Tone> run(int ms) {
        std::vector<std::int16_t> redTone(kPushChunk), blueTone(kPushChunk), out(kSinkChunk);
        std::vector<std::int16_t> redHeard, blueHeard;
        for (int k = 0; k < ms / 10; ++k) {
            for (int i = 0; i < kPushChunk; ++i, ++sample_) {
                const double t = double(sample_ % kPushRate) / kPushRate;
                redTone[std::size_t(i)] = std::int16_t(8000 * std::sin(2 * kPi * kRedHz * t));
                blueTone[std::size_t(i)] = std::int16_t(8000 * std::sin(2 * kPi * kBlueHz * t));
            }
            if (redTrack_ > 0 && e_.pushExternalAudioFrame(redTrack_, redTone.data(), kPushChunk, kPushRate, 1) != 0)
                ++errors;
            if (blueTrack_ > 0 && e_.pushExternalAudioFrame(blueTrack_, blueTone.data(), kPushChunk, kPushRate, 1) != 0)
                ++errors;
            if (red_.pullPlaybackAudioFrame(out.data(), kSinkChunk) != 0) ++errors;
            redHeard.insert(redHeard.end(), out.begin(), out.end());
            if (blue_.pullPlaybackAudioFrame(out.data(), kSinkChunk) != 0) ++errors;
            blueHeard.insert(blueHeard.end(), out.begin(), out.end());
            ++ticks_;
            std::this_thread::sleep_until(start_ + std::chrono::milliseconds(10 * ticks_));
        }
        return {analyze(redHeard), analyze(blueHeard)};
    }

    /// Runs 500 ms windows until `accept` or the wait ends; returns the last window.
    std::pair<Tone, Tone> until(const std::function<bool(const Tone&, const Tone&)>& accept) {
        const auto deadline = Clock::now() + kWait;
        auto heard = run(500);
        while (!accept(heard.first, heard.second) && Clock::now() < deadline) heard = run(500);
        return heard;
    }

    /// Stops pushing into the blue track (it is destroyed, or its connection left).
    void stopBlue() { blueTrack_ = 0; }

    int errors = 0;

private:
    agoraish::RtcEngine& e_;
    agoraish::track_id_t redTrack_;
    agoraish::track_id_t blueTrack_;
    agoraish::RtcEngine& red_;
    agoraish::RtcEngine& blue_;
    Clock::time_point start_;
    long ticks_ = 0;
    long sample_ = 0;
};

std::string describe(const Tone& t) {
    return std::to_string(int(std::lround(t.hz))) + " Hz at " + std::to_string(int(std::lround(t.dbfs))) + " dBFS, " +
           std::to_string(int(std::lround(t.steady * 100))) + "% steady";
}

bool near(const Tone& t, double hz) { return std::fabs(t.hz - hz) < 25 && t.dbfs > -40; }

/// A tone heard over a long window: near `hz`, with at most a tenth of it missing (gaps from late packets).
bool steadyNear(const Tone& t, double hz) { return near(t, hz) && t.steady >= 0.9; }

/// Options that publish custom audio track `track` instead of the microphone.
agoraish::ChannelMediaOptions publishing(agoraish::track_id_t track) {
    agoraish::ChannelMediaOptions options;
    options.publishMicrophoneTrack = false;
    options.publishCustomAudioTrack = true;
    options.publishCustomAudioTrackId = track;
    return options;
}

// ---- the two-channel story ----------------------------------------------------

void twoChannelStory(const std::string& url, const std::string& dir) {
    Handler redPeerEvents, bluePeerEvents, ownEvents;
    HandlerEx exEvents;  // declared before the engines: they release first
    agoraish::RtcEngine redPeer, bluePeer, e;
    CHECK_RC(redPeer.initialize(test_support::contextFor(kApp, &redPeerEvents, dir + "/red.log", url)), 0,
             "red peer initialize");
    CHECK_RC(bluePeer.initialize(test_support::contextFor(kApp, &bluePeerEvents, dir + "/blue.log", url)), 0,
             "blue peer initialize");
    CHECK_RC(e.initialize(test_support::contextFor(kApp, &ownEvents, dir + "/e.log", url)), 0, "E initialize");
    if (!redPeer || !bluePeer || !e) return;

    // The peers only listen, each through an external sink.
    for (agoraish::RtcEngine* peer : {&redPeer, &bluePeer}) {
        CHECK_RC(peer->setExternalAudioSink(true, kSinkRate, 1), 0, "peer setExternalAudioSink");
        CHECK_RC(peer->enableLocalAudio(false), 0, "peer enableLocalAudio(false)");
    }
    CHECK_RC(redPeer.joinChannel(nullptr, "red", nullptr, 11), 0, "red peer joins red");
    CHECK_RC(bluePeer.joinChannel(nullptr, "blue", nullptr, 21), 0, "blue peer joins blue");

    // E: the device is ALSA's "null"; two custom tracks, one per channel.
    CHECK_RC(e.setRecordingDevice("null"), 0, "E setRecordingDevice(null)");
    CHECK_RC(e.setPlaybackDevice("null"), 0, "E setPlaybackDevice(null)");
    agoraish::track_id_t t1 = 0, t2 = 0;
    CHECK_RC(e.createCustomAudioTrack(agoraish::AUDIO_TRACK_MIXABLE, &t1), 0, "createCustomAudioTrack(MIXABLE)");
    CHECK_RC(e.createCustomAudioTrack(agoraish::AUDIO_TRACK_DIRECT, &t2), 0, "createCustomAudioTrack(DIRECT)");
    CHECK(t1 > 0 && t2 > 0 && t1 != t2, "track ids " + std::to_string(t1) + ", " + std::to_string(t2));

    const agoraish::RtcConnection red("red", 1), blue("blue", 2);
    CHECK_RC(e.joinChannel(nullptr, "red", 1, publishing(t1)), 0, "E joinChannel(red, 1, options)");
    CHECK_RC(e.joinChannelEx(nullptr, blue, publishing(t2), &exEvents), 0, "E joinChannelEx(blue, 2)");
    CHECK_RC(e.joinChannelEx(nullptr, blue, publishing(t2), &exEvents), -AGORAISH_ERR_JOIN_CHANNEL_REJECTED,
             "joinChannelEx of a connection E has: -17");
    CHECK_RC(e.joinChannelEx(nullptr, red, agoraish::ChannelMediaOptions(), &exEvents),
             -AGORAISH_ERR_JOIN_CHANNEL_REJECTED, "joinChannelEx of E's own channel and uid: -17");
    CHECK_RC(e.joinChannel(nullptr, "green", 1, agoraish::ChannelMediaOptions()), -AGORAISH_ERR_JOIN_CHANNEL_REJECTED,
             "joinChannel with options while in a channel: -17");

    CHECK(ownEvents.waitFor("join", [](const Event& ev) { return ev.uid == 1 && ev.connection.channelId == "red"; }),
          "E's handler: onJoinChannelSuccess(red, 1)");
    CHECK(exEvents.waitFor("join", [&](const Event& ev) { return ev.uid == 2 && ev.connection == blue; }),
          "the ex handler: onJoinChannelSuccess(blue/2, 2)");
    CHECK(exEvents.waitFor("userJoined", [&](const Event& ev) { return ev.uid == 21 && ev.connection == blue; }),
          "the ex handler: onUserJoined(blue/2, 21)");
    CHECK(ownEvents.waitFor("userJoined", [](const Event& ev) { return ev.uid == 11; }), "E's handler: onUserJoined(11)");
    CHECK(redPeerEvents.waitFor("userJoined", [](const Event& ev) { return ev.uid == 1; }), "red peer sees uid 1");
    CHECK(bluePeerEvents.waitFor("userJoined", [](const Event& ev) { return ev.uid == 2; }), "blue peer sees uid 2");
    CHECK(exEvents.waitFor("state",
                           [&](const Event& ev) {
                               return ev.connection == blue && ev.a == agoraish::CONNECTION_STATE_CONNECTED;
                           }),
          "the ex handler: onConnectionStateChanged(blue/2, CONNECTED)");
    CHECK(e.getConnectionStateEx(blue) == agoraish::CONNECTION_STATE_CONNECTED, "getConnectionStateEx(blue)");
    CHECK(e.getConnectionStateEx(red) == agoraish::CONNECTION_STATE_CONNECTED, "getConnectionStateEx(red): E's own");
    CHECK(e.getConnectionStateEx(agoraish::RtcConnection("blue", 3)) == -AGORAISH_ERR_INVALID_ARGUMENT,
          "getConnectionStateEx of an unknown connection: -2");
    std::string ownCall, blueCall;
    CHECK_RC(e.getCallId(ownCall), 0, "getCallId");
    CHECK_RC(e.getCallIdEx(blueCall, blue), 0, "getCallIdEx(blue)");
    CHECK(!blueCall.empty() && blueCall != ownCall, "each connection has its own call: " + ownCall + " / " + blueCall);

    // Each peer hears only the track of the connection in its channel.
    Pump pump(e, t1, t2, redPeer, bluePeer);
    auto heard = pump.until([](const Tone& r, const Tone& b) { return near(r, kRedHz) && near(b, kBlueHz); });
    CHECK(near(heard.first, kRedHz), "the red peer hears track 1 (660 Hz): " + describe(heard.first));
    CHECK(near(heard.second, kBlueHz), "the blue peer hears track 2 (1500 Hz): " + describe(heard.second));
    heard = pump.run(1000);
    CHECK(steadyNear(heard.first, kRedHz) && steadyNear(heard.second, kBlueHz),
          "over 1 s: " + describe(heard.first) + " / " + describe(heard.second));
    const double blueLevel = heard.second.dbfs;

    // Each handler saw its own channel only.
    CHECK(ownEvents.countOf("userJoined", [](const Event& ev) { return ev.uid == 21; }) == 0,
          "E's handler never sees the blue peer");
    CHECK(exEvents.countOf("userJoined", [](const Event& ev) { return ev.uid == 11; }) == 0,
          "the ex handler never sees the red peer");
    CHECK(exEvents.countIf([&](const Event& ev) { return ev.connection != blue; }) == 0,
          "every ex event names blue/2");
    CHECK(redPeerEvents.countOf("userJoined", [](const Event& ev) { return ev.uid == 2; }) == 0 &&
              bluePeerEvents.countOf("userJoined", [](const Event& ev) { return ev.uid == 1; }) == 0,
          "each peer sees only E's connection in its channel");
    CHECK(redPeerEvents.waitFor("remoteState",
                                [](const Event& ev) {
                                    return ev.uid == 1 && ev.a == agoraish::REMOTE_AUDIO_STATE_DECODING;
                                }),
          "red peer: onRemoteAudioStateChanged(1, DECODING)");
    CHECK(bluePeerEvents.waitFor("remoteState",
                                 [](const Event& ev) {
                                     return ev.uid == 2 && ev.a == agoraish::REMOTE_AUDIO_STATE_DECODING;
                                 }),
          "blue peer: onRemoteAudioStateChanged(2, DECODING)");
    CHECK(exEvents.waitFor("firstLocal", [&](const Event& ev) { return ev.connection == blue; }),
          "the ex handler: onFirstLocalAudioFramePublished(blue/2)");

    // The publish volume of track 2: half the amplitude, about -6 dB at the blue peer.
    CHECK_RC(e.adjustCustomAudioPublishVolume(t2, 50), 0, "adjustCustomAudioPublishVolume(t2, 50)");
    pump.run(500);
    heard = pump.run(1000);
    CHECK(std::fabs(heard.second.dbfs - blueLevel + 6.02) < 2.0 && near(heard.second, kBlueHz),
          "blue at volume 50: " + describe(heard.second) + ", was " + std::to_string(blueLevel) + " dBFS");
    CHECK(near(heard.first, kRedHz), "red unchanged: " + describe(heard.first));
    CHECK_RC(e.adjustCustomAudioPublishVolume(t2, 100), 0, "adjustCustomAudioPublishVolume(t2, 100)");

    // muteLocalAudioStreamEx mutes blue only.
    std::size_t mark = bluePeerEvents.count();
    CHECK_RC(e.muteLocalAudioStreamEx(true, blue), 0, "muteLocalAudioStreamEx(true, blue)");
    CHECK(bluePeerEvents.waitFor("userMuteAudio", [](const Event& ev) { return ev.uid == 2 && ev.a == 1; }, mark),
          "blue peer: onUserMuteAudio(2, true)");
    heard = pump.until([](const Tone& r, const Tone& b) { return near(r, kRedHz) && b.dbfs < -60; });
    CHECK(heard.second.dbfs < -60, "blue is silent while muted: " + describe(heard.second));
    CHECK(near(heard.first, kRedHz), "red still hears track 1: " + describe(heard.first));
    CHECK(redPeerEvents.countOf("userMuteAudio", [](const Event& ev) { return ev.a == 1; }) == 0,
          "the red peer saw no mute");
    CHECK_RC(e.muteLocalAudioStreamEx(false, blue), 0, "muteLocalAudioStreamEx(false, blue)");
    heard = pump.until([](const Tone& r, const Tone& b) { return near(r, kRedHz) && near(b, kBlueHz); });
    CHECK(near(heard.second, kBlueHz), "blue heard again after unmuting: " + describe(heard.second));

    // updateChannelMediaOptionsEx: blue stops publishing its track.
    agoraish::ChannelMediaOptions stop;
    stop.publishCustomAudioTrack = false;
    CHECK_RC(e.updateChannelMediaOptionsEx(stop, blue), 0, "updateChannelMediaOptionsEx(stop the track, blue)");
    heard = pump.until([](const Tone& r, const Tone& b) { return near(r, kRedHz) && b.dbfs < -60; });
    CHECK(heard.second.dbfs < -60 && near(heard.first, kRedHz),
          "blue silent once its connection stopped publishing: " + describe(heard.second));
    CHECK_RC(e.updateChannelMediaOptionsEx(publishing(t2), blue), 0, "updateChannelMediaOptionsEx(track 2, blue)");
    heard = pump.until([](const Tone& r, const Tone& b) { return near(r, kRedHz) && near(b, kBlueHz); });
    CHECK(near(heard.second, kBlueHz), "blue heard again with track 2: " + describe(heard.second));

    // leaveChannelEx(blue): its handler hears the leave, the blue peer sees E go, red goes on.
    mark = exEvents.count();
    const std::size_t ownMark = ownEvents.count();
    CHECK_RC(e.leaveChannelEx(blue), 0, "leaveChannelEx(blue)");
    CHECK_RC(e.leaveChannelEx(blue), -AGORAISH_ERR_LEAVE_CHANNEL_REJECTED, "leaveChannelEx(blue) again: -18");
    CHECK(exEvents.waitFor("leave", [&](const Event& ev) { return ev.connection == blue; }, mark),
          "the ex handler: onLeaveChannel(blue/2)");
    CHECK(exEvents.waitFor("state",
                           [&](const Event& ev) {
                               return ev.connection == blue && ev.a == agoraish::CONNECTION_STATE_DISCONNECTED &&
                                      ev.b == agoraish::CONNECTION_CHANGED_LEAVE_CHANNEL;
                           },
                           mark),
          "the ex handler: onConnectionStateChanged(blue/2, DISCONNECTED, LEAVE_CHANNEL)");
    CHECK(bluePeerEvents.waitFor("userOffline",
                                 [](const Event& ev) { return ev.uid == 2 && ev.a == agoraish::USER_OFFLINE_QUIT; }),
          "blue peer: onUserOffline(2, QUIT)");
    CHECK(e.getConnectionStateEx(blue) == -AGORAISH_ERR_INVALID_ARGUMENT, "getConnectionStateEx(blue) after leaving: -2");
    CHECK_RC(e.muteLocalAudioStreamEx(true, blue), -AGORAISH_ERR_INVALID_ARGUMENT, "muteLocalAudioStreamEx(blue) after leaving: -2");
    pump.stopBlue();
    heard = pump.until([](const Tone& r, const Tone&) { return near(r, kRedHz); });
    CHECK(near(heard.first, kRedHz), "red still hears track 1 after blue was left: " + describe(heard.first));
    heard = pump.run(1000);
    CHECK(steadyNear(heard.first, kRedHz) && heard.second.dbfs < -60,
          "red over 1 s: " + describe(heard.first) + "; blue: " + describe(heard.second));
    CHECK(e.getConnectionState() == agoraish::CONNECTION_STATE_CONNECTED, "E is still in red");
    CHECK(ownEvents.countOf("leave", [](const Event&) { return true; }) == 0 &&
              ownEvents.countOf("state", [](const Event& ev) {
                  return ev.a == agoraish::CONNECTION_STATE_DISCONNECTED;
              }) == 0,
          "E's own handler saw no leave");
    CHECK(ownEvents.count() >= ownMark, "E's own events go on");
    CHECK(redPeerEvents.countOf("userOffline", [](const Event& ev) { return ev.uid == 1; }) == 0,
          "the red peer still sees E");

    // Pushing to a track no connection publishes is accepted and dropped; a destroyed track is unknown.
    std::vector<std::int16_t> silence(kPushChunk);
    CHECK_RC(e.pushExternalAudioFrame(t2, silence.data(), kPushChunk, kPushRate, 1), 0,
             "push into a track nobody publishes");
    CHECK_RC(e.destroyCustomAudioTrack(t2), 0, "destroyCustomAudioTrack(t2)");
    CHECK_RC(e.destroyCustomAudioTrack(t2), -AGORAISH_ERR_INVALID_ARGUMENT, "destroyCustomAudioTrack(t2) again: -2");
    CHECK_RC(e.pushExternalAudioFrame(t2, silence.data(), kPushChunk, kPushRate, 1), -AGORAISH_ERR_INVALID_ARGUMENT,
             "push into a destroyed track: -2");
    // pushAudioFrame(frame, trackId), Agora's shape.
    agoraish::AudioFrame frame;
    frame.samplesPerChannel = kPushChunk;
    frame.channels = 1;
    frame.samplesPerSec = kPushRate;
    frame.buffer = silence.data();
    CHECK_RC(e.pushAudioFrame(frame, t1), 0, "pushAudioFrame(frame, t1)");
    frame.bytesPerSample = 4;
    CHECK_RC(e.pushAudioFrame(frame, t1), -AGORAISH_ERR_INVALID_ARGUMENT, "pushAudioFrame of 4-byte samples: -2");

    CHECK(pump.errors == 0, "push and pull errors: " + std::to_string(pump.errors));
    CHECK(exEvents.onCallerThread() == 0 && ownEvents.onCallerThread() == 0, "no event on the caller's thread");
    CHECK_RC(e.leaveChannel(), 0, "E leaveChannel");
    CHECK(ownEvents.waitFor("leave", [](const Event&) { return true; }), "E's handler: onLeaveChannel");
    CHECK(redPeerEvents.waitFor("userOffline", [](const Event& ev) { return ev.uid == 1; }), "red peer sees E go");
    CHECK(exEvents.countIf([&](const Event& ev) { return ev.connection != blue; }) == 0, "every ex event named blue/2");
    CHECK_RC(e.release(true), 0, "E release");
}

// ---- bad input ---------------------------------------------------------------

void badInputStory(const std::string& dir) {
    // No server listens on port 1: joins are accepted, then keep trying.
    agoraish::RtcEngine e;
    CHECK_RC(e.initialize(test_support::contextFor(kApp, nullptr, dir + "/bad.log", "ws://127.0.0.1:1")), 0,
             "initialize");
    if (!e) return;
    agoraish_engine_t* h = e.nativeHandle();
    const int kInvalid = -AGORAISH_ERR_INVALID_ARGUMENT;

    agoraish_rtc_connection c{};
    c.struct_size = sizeof(c);
    c.channel_id = "bad-input";
    c.local_uid = 5;
    agoraish_channel_media_options o{};
    o.struct_size = sizeof(o);
    agoraish_event_handler_ex table{};
    table.struct_size = sizeof(table);

    // A NULL connection.
    CHECK_RC(agoraish_engine_join_channel_ex(h, nullptr, nullptr, &o, &table, nullptr), kInvalid,
             "join_channel_ex(NULL connection)");
    CHECK_RC(agoraish_engine_leave_channel_ex(h, nullptr), kInvalid, "leave_channel_ex(NULL connection)");
    CHECK_RC(agoraish_engine_update_channel_media_options_ex(h, &o, nullptr), kInvalid,
             "update_channel_media_options_ex(NULL connection)");
    CHECK_RC(agoraish_engine_get_connection_state_ex(h, nullptr), kInvalid, "get_connection_state_ex(NULL)");
    CHECK_RC(agoraish_engine_mute_local_audio_stream_ex(h, 1, nullptr), kInvalid, "mute_local_audio_stream_ex(NULL)");
    // A NULL channel_id.
    c.channel_id = nullptr;
    CHECK_RC(agoraish_engine_join_channel_ex(h, nullptr, &c, &o, &table, nullptr), kInvalid,
             "join_channel_ex(NULL channel_id)");
    CHECK_RC(agoraish_engine_leave_channel_ex(h, &c), kInvalid, "leave_channel_ex(NULL channel_id)");
    CHECK_RC(agoraish_engine_get_connection_state_ex(h, &c), kInvalid, "get_connection_state_ex(NULL channel_id)");
    c.channel_id = "bad-input";
    // Bad struct_size: of the connection, the options, the handler table.
    for (std::uint32_t size : {0u, 4u, std::uint32_t(sizeof(c) + 8)}) {
        c.struct_size = size;
        CHECK_RC(agoraish_engine_join_channel_ex(h, nullptr, &c, &o, &table, nullptr), kInvalid,
                 "join_channel_ex(connection struct_size " + std::to_string(size) + ")");
        CHECK_RC(agoraish_engine_leave_channel_ex(h, &c), kInvalid,
                 "leave_channel_ex(connection struct_size " + std::to_string(size) + ")");
    }
    c.struct_size = sizeof(c);
    for (std::uint32_t size : {0u, 4u, std::uint32_t(sizeof(o) + 8)}) {
        o.struct_size = size;
        CHECK_RC(agoraish_engine_join_channel_ex(h, nullptr, &c, &o, &table, nullptr), kInvalid,
                 "join_channel_ex(options struct_size " + std::to_string(size) + ")");
        CHECK_RC(agoraish_engine_join_channel_with_options(h, nullptr, "bad-input", 5, &o), kInvalid,
                 "join_channel_with_options(options struct_size " + std::to_string(size) + ")");
        CHECK_RC(agoraish_engine_update_channel_media_options(h, &o), kInvalid,
                 "update_channel_media_options(struct_size " + std::to_string(size) + ")");
    }
    o.struct_size = sizeof(o);
    for (std::uint32_t size : {0u, 4u, std::uint32_t(sizeof(table) + 8)}) {
        table.struct_size = size;
        CHECK_RC(agoraish_engine_join_channel_ex(h, nullptr, &c, &o, &table, nullptr), kInvalid,
                 "join_channel_ex(handler struct_size " + std::to_string(size) + ")");
    }
    table.struct_size = sizeof(table);
    CHECK_RC(agoraish_engine_join_channel_with_options(h, nullptr, "bad-input", 5, nullptr), kInvalid,
             "join_channel_with_options(NULL options)");
    CHECK_RC(agoraish_engine_update_channel_media_options(h, nullptr), kInvalid, "update_channel_media_options(NULL)");
    CHECK(e.getConnectionState() == agoraish::CONNECTION_STATE_DISCONNECTED, "nothing joined so far");

    // An unknown connection: -2 for the twins, -18 for leaving.
    const agoraish::RtcConnection nowhere("nowhere", 9);
    CHECK_RC(e.leaveChannelEx(nowhere), -AGORAISH_ERR_LEAVE_CHANNEL_REJECTED, "leaveChannelEx(unknown): -18");
    CHECK_RC(e.muteLocalAudioStreamEx(true, nowhere), kInvalid, "muteLocalAudioStreamEx(unknown)");
    CHECK_RC(e.muteRemoteAudioStreamEx(3, true, nowhere), kInvalid, "muteRemoteAudioStreamEx(unknown)");
    CHECK_RC(e.muteAllRemoteAudioStreamsEx(true, nowhere), kInvalid, "muteAllRemoteAudioStreamsEx(unknown)");
    CHECK_RC(e.adjustUserPlaybackSignalVolumeEx(3, 50, nowhere), kInvalid, "adjustUserPlaybackSignalVolumeEx(unknown)");
    CHECK_RC(e.muteRemoteVideoStreamEx(3, true, nowhere), kInvalid, "muteRemoteVideoStreamEx(unknown)");
    CHECK_RC(e.muteAllRemoteVideoStreamsEx(true, nowhere), kInvalid, "muteAllRemoteVideoStreamsEx(unknown)");
    CHECK_RC(e.setRemoteVideoStreamTypeEx(3, agoraish::REMOTE_VIDEO_STREAM_LOW, nowhere), kInvalid,
             "setRemoteVideoStreamTypeEx(unknown)");
    CHECK_RC(e.setupRemoteVideoEx(agoraish::VideoCanvas(3, nullptr), nowhere), kInvalid, "setupRemoteVideoEx(unknown)");
    CHECK_RC(e.takeSnapshotEx(nowhere, 3, (dir + "/x.jpg").c_str()), kInvalid, "takeSnapshotEx(unknown)");
    int stream = 0;
    CHECK_RC(e.createDataStreamEx(&stream, agoraish::DataStreamConfig(), nowhere), kInvalid,
             "createDataStreamEx(unknown)");
    CHECK_RC(e.sendStreamMessageEx(1, "x", 1, nowhere), kInvalid, "sendStreamMessageEx(unknown)");
    CHECK_RC(e.sendAudioMetadataEx(nowhere, "x", 1), kInvalid, "sendAudioMetadataEx(unknown)");
    agoraish::EncryptionConfig encryption;
    encryption.encryptionMode = agoraish::AES_128_GCM;
    encryption.encryptionKey = "key";
    CHECK_RC(e.enableEncryptionEx(nowhere, true, encryption), kInvalid, "enableEncryptionEx(unknown)");
    std::string callId = "untouched";
    CHECK_RC(e.getCallIdEx(callId, nowhere), kInvalid, "getCallIdEx(unknown)");
    CHECK(callId == "untouched", "a failed getCallIdEx leaves the output");
    agoraish::UserInfo info;
    CHECK_RC(e.getUserInfoByUidEx(3, &info, nowhere), kInvalid, "getUserInfoByUidEx(unknown)");
    CHECK_RC(e.getUserInfoByUserAccountEx("a", &info, nowhere), kInvalid, "getUserInfoByUserAccountEx(unknown)");
    CHECK_RC(e.updateChannelMediaOptionsEx(agoraish::ChannelMediaOptions(), nowhere), kInvalid,
             "updateChannelMediaOptionsEx(unknown)");
    CHECK_RC(e.setVideoEncoderConfigurationEx(agoraish::VideoEncoderConfiguration(), nowhere), kInvalid,
             "setVideoEncoderConfigurationEx(unknown)");
    CHECK_RC(e.enableDualStreamModeEx(true, nowhere), kInvalid, "enableDualStreamModeEx(unknown)");
    CHECK_RC(e.setSimulcastConfigEx(agoraish::SimulcastConfig(), nowhere), kInvalid, "setSimulcastConfigEx(unknown)");
    CHECK_RC(e.muteLocalVideoStreamEx(true, nowhere), kInvalid, "muteLocalVideoStreamEx(unknown)");
    CHECK_RC(e.setRemoteDefaultVideoStreamTypeEx(agoraish::REMOTE_VIDEO_STREAM_LOW, nowhere), kInvalid,
             "setRemoteDefaultVideoStreamTypeEx(unknown)");

    // Channel names.
    CHECK_RC(e.joinChannelEx(nullptr, agoraish::RtcConnection(std::string(64, 'c'), 1), agoraish::ChannelMediaOptions(),
                             nullptr),
             -AGORAISH_ERR_INVALID_CHANNEL_NAME, "joinChannelEx(64-byte channel): -102");
    CHECK_RC(e.joinChannelEx(nullptr, agoraish::RtcConnection("", 1), agoraish::ChannelMediaOptions(), nullptr),
             -AGORAISH_ERR_INVALID_CHANNEL_NAME, "joinChannelEx(empty channel): -102");

    // Options out of range, also for the engine's own connection; nothing is joined.
    agoraish::ChannelMediaOptions camera;
    camera.publishCameraTrack = true;
    camera.publishEncodedVideoTrack = true;
    CHECK_RC(e.joinChannelEx(nullptr, nowhere, camera, nullptr), kInvalid,
             "joinChannelEx(the camera and an encoded track): -2");
    agoraish::ChannelMediaOptions role;
    role.clientRoleType = static_cast<agoraish::CLIENT_ROLE_TYPE>(3);
    CHECK_RC(e.joinChannelEx(nullptr, nowhere, role, nullptr), kInvalid, "joinChannelEx(role 3): -2");
    CHECK_RC(e.updateChannelMediaOptions(role), kInvalid, "updateChannelMediaOptions(role 3): -2");
    agoraish::ChannelMediaOptions profile;
    profile.channelProfile = static_cast<agoraish::CHANNEL_PROFILE_TYPE>(5);
    CHECK_RC(e.joinChannel(nullptr, "bad-input", 5, profile), kInvalid, "joinChannel(profile 5): -2");
    agoraish::ChannelMediaOptions noId;
    noId.publishCustomAudioTrack = true;
    CHECK_RC(e.joinChannelEx(nullptr, nowhere, noId, nullptr), kInvalid, "joinChannelEx(custom track, no id): -2");
    CHECK_RC(e.joinChannel(nullptr, "bad-input", 5, publishing(99)), kInvalid, "joinChannel(unknown track 99): -2");
    CHECK_RC(e.updateChannelMediaOptions(publishing(99)), kInvalid, "updateChannelMediaOptions(unknown track): -2");
    CHECK(e.getConnectionStateEx(nowhere) == kInvalid, "no connection was made by the refused joins");
    CHECK(e.getConnectionState() == agoraish::CONNECTION_STATE_DISCONNECTED, "the refused joins joined nothing");

    // Custom audio tracks.
    agoraish::track_id_t track = -1;
    CHECK_RC(e.createCustomAudioTrack(static_cast<agoraish::AUDIO_TRACK_TYPE>(2), &track), kInvalid,
             "createCustomAudioTrack(type 2)");
    CHECK_RC(e.createCustomAudioTrack(static_cast<agoraish::AUDIO_TRACK_TYPE>(-1), &track), kInvalid,
             "createCustomAudioTrack(type -1)");
    CHECK(track == -1, "a refused create leaves the id");
    CHECK_RC(e.createCustomAudioTrack(agoraish::AUDIO_TRACK_MIXABLE, nullptr), kInvalid, "createCustomAudioTrack(nullptr)");
    CHECK_RC(e.destroyCustomAudioTrack(0), kInvalid, "destroyCustomAudioTrack(0)");
    CHECK_RC(e.adjustCustomAudioPublishVolume(0, 50), kInvalid, "adjustCustomAudioPublishVolume(unknown)");
    CHECK_RC(e.createCustomAudioTrack(agoraish::AUDIO_TRACK_MIXABLE, &track), 0, "createCustomAudioTrack");
    CHECK_RC(e.adjustCustomAudioPublishVolume(track, 101), kInvalid, "adjustCustomAudioPublishVolume(101)");
    CHECK_RC(e.adjustCustomAudioPublishVolume(track, -1), kInvalid, "adjustCustomAudioPublishVolume(-1)");
    CHECK_RC(e.adjustCustomAudioPublishVolume(track, 0), 0, "adjustCustomAudioPublishVolume(0)");
    CHECK_RC(e.adjustCustomAudioPublishVolume(track, 100), 0, "adjustCustomAudioPublishVolume(100)");
    std::vector<std::int16_t> pcm(2 * 48001);
    CHECK_RC(e.pushExternalAudioFrame(track, nullptr, 480, 48000, 1), kInvalid, "push nullptr samples");
    CHECK_RC(e.pushExternalAudioFrame(track, nullptr, 0, 48000, 1), 0, "push 0 samples of nullptr");
    CHECK_RC(e.pushExternalAudioFrame(track, pcm.data(), 480, 22050, 1), kInvalid, "push at 22050 Hz");
    CHECK_RC(e.pushExternalAudioFrame(track, pcm.data(), 480, 48000, 3), kInvalid, "push 3 channels");
    CHECK_RC(e.pushExternalAudioFrame(track, pcm.data(), 480, 48000, 0), kInvalid, "push 0 channels");
    CHECK_RC(e.pushExternalAudioFrame(track, pcm.data(), -1, 48000, 1), kInvalid, "push -1 samples");
    CHECK_RC(e.pushExternalAudioFrame(track, pcm.data(), 48001, 48000, 1), kInvalid, "push more than a second");
    CHECK_RC(e.pushExternalAudioFrame(track, pcm.data(), 48000, 48000, 2), 0, "push one second of stereo");
    CHECK_RC(e.pushExternalAudioFrame(track + 100, pcm.data(), 480, 48000, 1), kInvalid, "push into an unknown track");
    // AGORAISH_MAX_CUSTOM_AUDIO_TRACKS, then -5.
    std::vector<agoraish::track_id_t> tracks{track};
    for (int i = 1; i < agoraish::MAX_CUSTOM_AUDIO_TRACKS; ++i) {
        agoraish::track_id_t id = 0;
        CHECK_RC(e.createCustomAudioTrack(agoraish::AUDIO_TRACK_DIRECT, &id), 0, "track #" + std::to_string(i + 1));
        tracks.push_back(id);
    }
    agoraish::track_id_t extra = 0;
    CHECK_RC(e.createCustomAudioTrack(agoraish::AUDIO_TRACK_DIRECT, &extra), -AGORAISH_ERR_REFUSED,
             "one track more than AGORAISH_MAX_CUSTOM_AUDIO_TRACKS: -5");
    for (agoraish::track_id_t id : tracks) CHECK_RC(e.destroyCustomAudioTrack(id), 0, "destroy track " + std::to_string(id));
    CHECK_RC(e.createCustomAudioTrack(agoraish::AUDIO_TRACK_DIRECT, &extra), 0, "a track again after destroying");
    CHECK_RC(e.destroyCustomAudioTrack(extra), 0, "destroy it");

    // AGORAISH_MAX_CONNECTIONS connections (to a server that is not there), then -5.
    for (int i = 0; i < agoraish::MAX_CONNECTIONS; ++i) {
        CHECK_RC(e.joinChannelEx(nullptr, agoraish::RtcConnection("many", agoraish::uid_t(100 + i)),
                                 agoraish::ChannelMediaOptions(), nullptr),
                 0, "connection #" + std::to_string(i + 1));
    }
    CHECK_RC(e.joinChannelEx(nullptr, agoraish::RtcConnection("many", 999), agoraish::ChannelMediaOptions(), nullptr),
             -AGORAISH_ERR_REFUSED, "one connection more than AGORAISH_MAX_CONNECTIONS: -5");
    CHECK_RC(e.joinChannelEx(nullptr, agoraish::RtcConnection("many", 100), agoraish::ChannelMediaOptions(), nullptr),
             -AGORAISH_ERR_JOIN_CHANNEL_REJECTED, "a duplicate connection: -17");
    CHECK_RC(e.leaveChannelEx(agoraish::RtcConnection("many", 100)), 0, "leave one of them");
    CHECK_RC(e.joinChannelEx(nullptr, agoraish::RtcConnection("many", 999), agoraish::ChannelMediaOptions(), nullptr), 0,
             "a connection again after leaving one");
    CHECK_RC(e.release(true), 0, "release with 16 connections trying to connect");

    agoraish::RtcEngine empty;  // holds no engine: -7 everywhere
    CHECK_RC(empty.joinChannelEx(nullptr, nowhere, agoraish::ChannelMediaOptions(), nullptr), -7,
             "no engine: joinChannelEx");
    CHECK_RC(empty.leaveChannelEx(nowhere), -7, "no engine: leaveChannelEx");
    CHECK_RC(empty.joinChannel(nullptr, "x", 1, agoraish::ChannelMediaOptions()), -7, "no engine: joinChannel(options)");
    CHECK_RC(empty.updateChannelMediaOptionsEx(agoraish::ChannelMediaOptions(), nowhere), -7,
             "no engine: updateChannelMediaOptionsEx");
    CHECK_RC(empty.createCustomAudioTrack(agoraish::AUDIO_TRACK_MIXABLE, &track), -7, "no engine: createCustomAudioTrack");
    CHECK_RC(empty.pushExternalAudioFrame(1, pcm.data(), 480, 48000, 1), -7, "no engine: pushExternalAudioFrame(track)");
    CHECK(empty.getConnectionStateEx(nowhere) == -7, "no engine: getConnectionStateEx");
}

// ---- release from another thread ----------------------------------------------

void releaseStory(const std::string& url, const std::string& dir) {
    Handler ownEvents;
    HandlerEx exEvents;
    agoraish::RtcEngine e;
    CHECK_RC(e.initialize(test_support::contextFor(kApp, &ownEvents, dir + "/release.log", url)), 0, "initialize");
    if (!e) return;
    CHECK_RC(e.setRecordingDevice("null"), 0, "setRecordingDevice(null)");
    CHECK_RC(e.setPlaybackDevice("null"), 0, "setPlaybackDevice(null)");
    CHECK_RC(e.joinChannel(nullptr, "main", nullptr, 1), 0, "join main as 1");
    const agoraish::RtcConnection selfLeaving("ex2", 12);
    exEvents.leaveFromInside(&e, selfLeaving);
    const std::vector<agoraish::RtcConnection> connections{
        {"ex0", 10}, {"ex1", 11}, selfLeaving, {"main", 2}};  // two connections in main with other uids
    for (const auto& c : connections) {
        CHECK_RC(e.joinChannelEx(nullptr, c, agoraish::ChannelMediaOptions(), &exEvents), 0,
                 "joinChannelEx " + c.channelId + "/" + std::to_string(c.localUid));
    }
    CHECK_RC(e.joinChannelEx(nullptr, agoraish::RtcConnection("main", 1), agoraish::ChannelMediaOptions(), &exEvents),
             -AGORAISH_ERR_JOIN_CHANNEL_REJECTED, "joinChannelEx as E's own uid in E's channel: -17");
    for (const auto& c : connections) {
        CHECK(exEvents.waitFor("join", [&](const Event& ev) { return ev.connection == c && ev.uid == c.localUid; }),
              "onJoinChannelSuccess of " + c.channelId + "/" + std::to_string(c.localUid));
    }
    CHECK(exEvents.waitFor("leave", [&](const Event& ev) { return ev.connection == selfLeaving; }),
          "the connection that left from inside its onJoinChannelSuccess got onLeaveChannel");
    CHECK_RC(exEvents.leaveInsideRc(), 0, "leaveChannelEx from inside a callback");
    CHECK(ownEvents.waitFor("userJoined", [](const Event& ev) { return ev.uid == 2; }),
          "E's own connection sees its other connection in main (uid 2)");
    CHECK(exEvents.waitFor("userJoined",
                           [](const Event& ev) { return ev.connection.localUid == 2 && ev.uid == 1; }),
          "main/2 sees E's own connection (uid 1)");
    CHECK(e.getConnectionStateEx(agoraish::RtcConnection("ex0", 10)) == agoraish::CONNECTION_STATE_CONNECTED,
          "ex0 connected");

    std::promise<int> released;
    std::future<int> result = released.get_future();
    std::thread releaser([&] { released.set_value(e.release(true)); });
    const bool done = result.wait_for(20s) == std::future_status::ready;
    CHECK(done, "release(true) from another thread returned within 20 s");
    if (!done) {
        // Hung: report and leave without waiting for the thread.
        test_support::summary();
        std::_Exit(1);
    }
    releaser.join();
    CHECK_RC(result.get(), 0, "release(true) from another thread");
    CHECK(!e, "the RtcEngine is empty after release");
    const std::size_t own = ownEvents.count(), ex = exEvents.count();
    std::this_thread::sleep_for(300ms);
    CHECK(ownEvents.count() == own && exEvents.count() == ex, "no callback after release(true) returned");
    CHECK(exEvents.onCallerThread() == 0, "no ex event on the caller's thread");
}

}  // namespace

int main() {
    const test_support::TempDir tmp("agoraish-connections-cpp");  // removed last
    if (!tmp) return 1;
    {
        agoraish::ChannelServer server;  // declared before the engines: it outlives them
        CHECK_RC(server.initialize(), 0, "ChannelServer initialize");
        CHECK_RC(server.start(), 0, "ChannelServer start");
        const std::string url = server.url();
        if (!url.empty()) {
            twoChannelStory(url, tmp.path());
            releaseStory(url, tmp.path());
        }
        badInputStory(tmp.path());
    }
    return test_support::summary();
}
