// example_support.hpp — what the C++ examples share, so each shows its own
// case (the C++ counterpart of examples/c/example_support.h):
//
//   - say(): timestamped output lines from any thread; fail(): a failed call
//     reported on stderr, and the example's failure line;
//   - example::User: one user of a call, an event handler that remembers
//     its join, leave, peer and error events so main can wait for them;
//     an example's user derives from it, adds its own callbacks and keeps
//     its own state under the same lock (update(), waitUntil(), locked());
//   - startServer(), createEngine(): the embedded channel server and an
//     engine for a user; meet() and part(): two users join a channel and see
//     each other, then part again;
//   - analyzeTone(): the tone of audio; toneLevel(): the level of one
//     frequency in it, so tones that sound at once can be told apart;
//   - Ears: pulls what users hear from their engines' external sinks every
//     10 ms on a thread of its own, as sound cards would, and hands main
//     what it pulled next (listen());
//   - ffmpeg(): media files made with the ffmpeg command-line tool.
//
// Header-only; include it after agoraish.hpp.
#ifndef AGORAISH_EXAMPLE_SUPPORT_HPP
#define AGORAISH_EXAMPLE_SUPPORT_HPP

#include "agoraish.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

namespace example {

using Clock = std::chrono::steady_clock;

// The app id every example uses with the embedded server (which accepts any without a certificate).
inline const char* const kAppId = "0123456789abcdef0123456789abcdef";
// How long User::waitUntil waits for an event.
inline constexpr auto kTimeout = std::chrono::seconds(5);
// When the example started.
inline const Clock::time_point kStart = Clock::now();

inline std::mutex& printMutex() {
    static std::mutex mutex;
    return mutex;
}

// Prints one line: the seconds since the example started, who speaks, and what happened.
template <typename... Args>
void say(const char* who, const Args&... args) {
    std::ostringstream line;
    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "%6.2f s  %-6s  ",
                  std::chrono::duration<double>(Clock::now() - kStart).count(), who);
    line << prefix;
    (line << ... << args);
    std::lock_guard<std::mutex> lock(printMutex());
    std::cout << line.str() << '\n';
}

// The names of a media player's states, reasons and events.
inline const char* name(agoraish::MEDIA_PLAYER_STATE state) {
    static const char* const names[] = {"IDLE", "OPENING", "OPEN_COMPLETED", "PLAYING", "PAUSED", "PLAYBACK_COMPLETED",
                                        "PLAYBACK_ALL_LOOPS_COMPLETED", "STOPPED"};
    return state == agoraish::PLAYER_STATE_FAILED ? "FAILED" : state >= 0 && state < 8 ? names[state] : "?";
}

inline const char* name(agoraish::MEDIA_PLAYER_REASON reason) {
    switch (reason) {
    case agoraish::PLAYER_REASON_NONE: return "NONE";
    case agoraish::PLAYER_REASON_INVALID_ARGUMENTS: return "INVALID_ARGUMENTS";
    case agoraish::PLAYER_REASON_INTERNAL: return "INTERNAL";
    case agoraish::PLAYER_REASON_NO_RESOURCE: return "NO_RESOURCE";
    case agoraish::PLAYER_REASON_INVALID_MEDIA_SOURCE: return "INVALID_MEDIA_SOURCE";
    case agoraish::PLAYER_REASON_UNKNOWN_STREAM_TYPE: return "UNKNOWN_STREAM_TYPE";
    case agoraish::PLAYER_REASON_CODEC_NOT_SUPPORTED: return "CODEC_NOT_SUPPORTED";
    case agoraish::PLAYER_REASON_URL_NOT_FOUND: return "URL_NOT_FOUND";
    case agoraish::PLAYER_REASON_INTERRUPTED: return "INTERRUPTED";
    }
    return "?";
}

inline const char* name(agoraish::MEDIA_PLAYER_EVENT event) {
    switch (event) {
    case agoraish::PLAYER_EVENT_SEEK_BEGIN: return "SEEK_BEGIN";
    case agoraish::PLAYER_EVENT_SEEK_COMPLETE: return "SEEK_COMPLETE";
    case agoraish::PLAYER_EVENT_SEEK_ERROR: return "SEEK_ERROR";
    case agoraish::PLAYER_EVENT_AUDIO_TRACK_CHANGED: return "AUDIO_TRACK_CHANGED";
    case agoraish::PLAYER_EVENT_BUFFER_LOW: return "BUFFER_LOW";
    case agoraish::PLAYER_EVENT_BUFFER_RECOVER: return "BUFFER_RECOVER";
    case agoraish::PLAYER_EVENT_FIRST_DISPLAYED: return "FIRST_DISPLAYED";
    }
    return "?";
}

// Reports that `what` failed with `rc` and prints the example's failure line; returns the exit status 1.
inline int fail(const char* what, int rc) {
    std::cerr << what << " failed: " << rc << " (" << agoraish::RtcEngine::getErrorDescription(rc) << ")\n";
    std::cout << "the call did not go as expected\n";
    return 1;
}

// One user of a call: its channel events, remembered so main can wait for them.
class User : public agoraish::IRtcEngineEventHandler {
public:
    explicit User(const char* name) : name_(name) {}

    void onJoinChannelSuccess(const char* channel, agoraish::uid_t uid, int elapsed) override {
        say(name_, "onJoinChannelSuccess \"", channel, "\" uid ", uid, ", ", elapsed, " ms");
        update([&] {
            joined_ = true;
            uid_ = uid;
        });
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
        say(name_, "onLeaveChannel after ", stats.duration, " s: sent ", stats.txBytes, " bytes, received ",
            stats.rxBytes, " bytes");
        update([&] { joined_ = false; });
    }
    void onError(int err, const char* msg) override { say(name_, "onError ", err, ": ", msg); }

    // Waits (at most kTimeout) until the user is in the channel (or out of it).
    bool waitJoined(bool joined) { return waitUntil([&] { return joined_ == joined; }); }
    // Waits until the user sees another user (or nobody).
    bool waitPeer(bool present) { return waitUntil([&] { return (peer_ != 0) == present; }); }
    // Waits until `done()`, called under the lock, holds; false after kTimeout.
    bool waitUntil(const std::function<bool()>& done) {
        std::unique_lock<std::mutex> lock(mutex_);
        return cond_.wait_for(lock, kTimeout, done);
    }
    // The user seen last joining, 0 when it went offline.
    agoraish::uid_t peer() { return locked([&] { return peer_; }); }
    // The user's own uid, from onJoinChannelSuccess.
    agoraish::uid_t uid() { return locked([&] { return uid_; }); }
    const char* name() const { return name_; }

protected:
    // Runs `change` under the lock and wakes whoever waits.
    void update(const std::function<void()>& change) {
        std::lock_guard<std::mutex> lock(mutex_);
        change();
        cond_.notify_all();
    }
    // What `read` returns, read under the lock.
    template <typename Read>
    auto locked(const Read& read) -> decltype(read()) {
        std::lock_guard<std::mutex> lock(mutex_);
        return read();
    }

    const char* name_;

private:
    std::mutex mutex_;
    std::condition_variable cond_;
    // Guarded by mutex_.
    bool joined_ = false;
    agoraish::uid_t peer_ = 0;
    agoraish::uid_t uid_ = 0;
};

// Starts `server` inside this process (127.0.0.1, a free port, any app id); 0, or fail()'s status.
inline int startServer(agoraish::ChannelServer& server) {
    if (int rc = server.initialize(); rc != 0) return fail("ChannelServer::initialize", rc);
    if (int rc = server.start(); rc != 0) return fail("ChannelServer::start", rc);
    say("server", server.url());
    return 0;
}

// Initializes `engine` for `user` on `server`; 0, or fail()'s status.
inline int createEngine(agoraish::RtcEngine& engine, User& user, agoraish::ChannelServer& server) {
    agoraish::RtcEngineContext context;
    context.appId = kAppId;
    context.serverUrl = server.url();
    context.eventHandler = &user;
    if (int rc = engine.initialize(context); rc != 0) {
        return fail((std::string("RtcEngine::initialize (") + user.name() + ")").c_str(), rc);
    }
    return 0;
}

// `a` joins `channel` as `aUid`, then `b` as `bUid` (0: the server picks), and each sees the other; 0, or
// fail()'s status.
inline int meet(const char* channel, agoraish::RtcEngine& aEngine, User& a, agoraish::RtcEngine& bEngine, User& b,
                agoraish::uid_t aUid = 0, agoraish::uid_t bUid = 0) {
    if (int rc = aEngine.joinChannel(nullptr, channel, nullptr, aUid); rc != 0) return fail("joinChannel", rc);
    if (!a.waitJoined(true)) return fail("waiting for onJoinChannelSuccess", -AGORAISH_ERR_TIMEDOUT);
    if (int rc = bEngine.joinChannel(nullptr, channel, nullptr, bUid); rc != 0) {
        return fail((std::string("joinChannel (") + b.name() + ")").c_str(), rc);
    }
    if (!b.waitJoined(true) || !a.waitPeer(true) || !b.waitPeer(true)) {
        return fail("waiting for the users to see each other", -AGORAISH_ERR_TIMEDOUT);
    }
    return 0;
}

// `b` leaves, `a` sees it go, then `a` leaves; 0, or fail()'s status.
inline int part(agoraish::RtcEngine& aEngine, User& a, agoraish::RtcEngine& bEngine, User& b) {
    bEngine.leaveChannel();
    if (!b.waitJoined(false) || !a.waitPeer(false)) {
        return fail((std::string("waiting for ") + b.name() + " to leave").c_str(), -AGORAISH_ERR_TIMEDOUT);
    }
    aEngine.leaveChannel();
    if (!a.waitJoined(false)) return fail("waiting for onLeaveChannel", -AGORAISH_ERR_TIMEDOUT);
    return 0;
}

// The frequency and level (dBFS) of `count` mono samples at `rate`; 0 Hz and
// -120 dBFS for silence. The frequency is the rate over the median period
// between upward crossings of a hysteresis band at a quarter of the RMS (each
// crossing placed between its two samples), so a short gap or glitch in the
// sound does not move it; with fewer than three crossings it is the crossing
// count over the duration. `steady` is the share of the crossings such a tone
// makes over the duration that were heard: 1 for an unbroken tone, less for
// one with gaps.
struct Tone {
    double hz = 0;
    double dbfs = -120;
    double steady = 0;
};

inline Tone analyzeTone(const int16_t* pcm, std::size_t count, int rate) {
    Tone tone;
    double energy = 0;
    for (std::size_t i = 0; i < count; ++i) energy += double(pcm[i]) * pcm[i];
    if (count == 0 || energy <= 0) return tone;
    const double band = std::sqrt(energy / double(count)) / 4;
    std::size_t crossings = 0;
    std::vector<double> periods;
    double last = -1;
    bool high = false;
    for (std::size_t i = 0; i < count; ++i) {
        if (!high && pcm[i] > band) {
            // Where the rise crossed the band, between sample i - 1 and i.
            double at = double(i);
            if (i > 0 && pcm[i] != pcm[i - 1]) at = double(i - 1) + (band - pcm[i - 1]) / double(pcm[i] - pcm[i - 1]);
            if (last >= 0) periods.push_back(at - last);
            last = at;
            high = true;
            ++crossings;
        } else if (high && pcm[i] < -band) {
            high = false;
        }
    }
    if (periods.size() >= 2) {
        std::sort(periods.begin(), periods.end());
        const std::size_t n = periods.size();
        const double median = n % 2 ? periods[n / 2] : (periods[n / 2 - 1] + periods[n / 2]) / 2;
        tone.hz = rate / median;
    } else {
        tone.hz = double(crossings) / (double(count) / rate);
    }
    if (tone.hz > 0) tone.steady = std::min(1.0, double(crossings) / (tone.hz * double(count) / rate));
    tone.dbfs = 10 * std::log10(energy / double(count)) - 20 * std::log10(32768.0);
    return tone;
}

// The level (dBFS, as analyzeTone gives a lone sine's) of the `hz` component
// of `count` mono samples at `rate`: Goertzel's algorithm over a Hann window,
// so a tone 100 Hz away or more barely counts. -120 for none.
inline double toneLevel(const int16_t* pcm, std::size_t count, double hz, int rate) {
    const double pi = 3.14159265358979323846;
    if (count < 2) return -120;
    const double coefficient = 2 * std::cos(2 * pi * hz / rate);
    double s1 = 0, s2 = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const double window = 0.5 - 0.5 * std::cos(2 * pi * double(i) / double(count - 1));
        const double s = pcm[i] * window + coefficient * s1 - s2;
        s2 = s1;
        s1 = s;
    }
    const double power = s1 * s1 + s2 * s2 - coefficient * s1 * s2;
    const double amplitude = 2 * std::sqrt(power > 0 ? power : 0) / (double(count) / 2);  // Hann's gain is 1/2
    if (amplitude <= 0) return -120;
    return std::max(-120.0, 20 * std::log10(amplitude / std::sqrt(2.0) / 32768));
}

inline double toneLevel(const std::vector<int16_t>& pcm, double hz, int rate = 48000) {
    return toneLevel(pcm.data(), pcm.size(), hz, rate);
}

// Pulls 10 ms of 48 kHz mono from the external sink of each engine (each set
// with setExternalAudioSink(true, 48000, 1)) every 10 ms on its own thread,
// in real time, as sound cards would, until destroyed or stopped.
class Ears {
public:
    static constexpr int kRate = 48000;
    static constexpr int kChunk = kRate / 100;  // 10 ms

    explicit Ears(std::vector<agoraish::RtcEngine*> engines) : engines_(std::move(engines)), heard_(engines_.size()) {
        thread_ = std::thread([this] { run(); });
    }
    ~Ears() { stop(); }
    Ears(const Ears&) = delete;
    Ears& operator=(const Ears&) = delete;

    // What each engine heard (in the order given) in the next `ms` (a multiple of 10).
    std::vector<std::vector<int16_t>> listen(int ms) {
        std::unique_lock<std::mutex> lock(mutex_);
        for (auto& samples : heard_) samples.clear();
        wanted_ = ms / 10;
        cond_.wait_for(lock, std::chrono::milliseconds(ms + 5000), [&] { return wanted_ == 0; });
        wanted_ = 0;
        return heard_;
    }

    // Stops pulling (waits for the thread).
    void stop() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        if (thread_.joinable()) thread_.join();
    }

private:
    void run() {
        std::vector<std::vector<int16_t>> chunk(engines_.size(), std::vector<int16_t>(kChunk));
        const auto start = Clock::now();
        for (long k = 1;; ++k) {
            for (std::size_t i = 0; i < engines_.size(); ++i) {
                if (engines_[i]->pullPlaybackAudioFrame(chunk[i].data(), kChunk) != 0) {
                    std::fill(chunk[i].begin(), chunk[i].end(), int16_t(0));
                }
            }
            {
                std::lock_guard<std::mutex> lock(mutex_);
                if (wanted_ > 0) {
                    for (std::size_t i = 0; i < engines_.size(); ++i) {
                        heard_[i].insert(heard_[i].end(), chunk[i].begin(), chunk[i].end());
                    }
                    --wanted_;
                }
                cond_.notify_all();
                if (stopping_) return;
            }
            std::this_thread::sleep_until(start + std::chrono::milliseconds(10 * k));
        }
    }

    std::vector<agoraish::RtcEngine*> engines_;
    std::mutex mutex_;
    std::condition_variable cond_;
    // Guarded by mutex_.
    std::vector<std::vector<int16_t>> heard_;
    int wanted_ = 0;
    bool stopping_ = false;
    std::thread thread_;
};

// Makes `path` (in demo-out/, a name without quotes) with `ffmpeg -y <args> 'path'`,
// quietly; says why and returns false when it cannot (ffmpeg missing or failing).
inline bool ffmpeg(const std::string& path, const std::string& args) {
    ::mkdir("demo-out", 0755);
    if (path.find('\'') != std::string::npos) return false;
    const std::string command = "ffmpeg -nostdin -hide_banner -v error -y " + args + " '" + path + "'";
    if (int rc = std::system(command.c_str()); rc != 0) {
        say("ffmpeg", "cannot make ", path, ": `", command, "` exited with ", rc);
        return false;
    }
    return true;
}

}  // namespace example

#endif
