// quick_switch_channel.cpp — Agora 4.x's QuickSwitchChannel case in C++: an
// audience hops between live channels and hears each one at once.
//
//   setChannelProfile(CHANNEL_PROFILE_LIVE_BROADCASTING) -> setClientRole(CLIENT_ROLE_AUDIENCE)
//   -> preloadChannel(token, "quick-switch-1", uid) -> preloadChannel(token, "quick-switch-2", uid)
//   -> joinChannel("quick-switch-1", uid) -> onFirstRemoteAudioDecoded
//   -> leaveChannel -> joinChannel("quick-switch-2", uid) -> onFirstRemoteAudioDecoded
//   -> ... -> leaveChannel -> release
//
// "host1" and "host2" broadcast in "quick-switch-1" and "quick-switch-2",
// each pushing its own tone (440 Hz, 1000 Hz) through an external audio
// source. "viewer", an audience, preloads both channels with its uid, joins
// the first, then switches four times (leaveChannel, then joinChannel of the
// other channel with the same uid). A join of a preloaded channel goes on the
// signaling connection opened by the preload and asks for fast start, so the
// channel is heard within a few tens of milliseconds. For each join the
// viewer prints the time from the join call to onFirstRemoteAudioDecoded and
// the tone it heard through an external sink.
//
//   make hosts && build/examples/quick_switch_channel_cpp
#include "agoraish.hpp"
#include "example_support.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using example::Clock;
using example::fail;
using example::say;
using namespace std::chrono_literals;

constexpr int kRate = 48000;
constexpr int kChunk = kRate / 100;  // 10 ms
constexpr double kPi = 3.14159265358979323846;
constexpr agoraish::uid_t kViewerUid = 1000;
constexpr int kJoins = 5;            // the first join and four switches
constexpr int kListenMs = 600;       // after each join
constexpr int kAnalyzeFromMs = 200;  // the tone from here on, when the jitter buffer has settled

const char* const kChannels[2] = {"quick-switch-1", "quick-switch-2"};
constexpr agoraish::uid_t kHostUids[2] = {101, 102};
constexpr double kTones[2] = {440.0, 1000.0};

std::string fixed(double value, int digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

// The viewer's channel events, and the first remote audio of each join.
class Viewer : public example::User {
public:
    using example::User::User;

    void onFirstRemoteAudioDecoded(agoraish::uid_t uid, int elapsed) override {
        say(name_, "onFirstRemoteAudioDecoded uid ", uid, ", ", elapsed, " ms");
        update([&] {
            decodedUid_ = uid;
            decodedAt_ = Clock::now();
        });
    }
    // Forgets the last join's first audio.
    void reset() { update([&] { decodedUid_ = 0; }); }
    // Waits (at most example::kTimeout) for the first audio of a remote user.
    bool waitDecoded() { return waitUntil([&] { return decodedUid_ != 0; }); }
    // Whose first audio was decoded, and when.
    std::pair<agoraish::uid_t, Clock::time_point> decoded() {
        return locked([&] { return std::make_pair(decodedUid_, decodedAt_); });
    }

private:
    // Guarded by the lock.
    agoraish::uid_t decodedUid_ = 0;
    Clock::time_point decodedAt_;
};

// Joins channel `c` as kViewerUid, pulls kListenMs of what the viewer hears,
// and says how long the first audio took and what it was. Returns whether the
// viewer heard that channel's host and tone.
bool joinAndListen(agoraish::RtcEngine& engine, Viewer& viewer, int c) {
    viewer.reset();
    const auto joinedAt = Clock::now();
    const int rc = engine.joinChannel(nullptr, kChannels[c], nullptr, kViewerUid);
    say("viewer", "joinChannel(\"", kChannels[c], "\", ", kViewerUid, ") = ", rc);
    if (rc != 0) return false;
    // The sink is the viewer's speaker: pulled in real time from the join on.
    std::vector<int16_t> heard(std::size_t(kListenMs / 10) * kChunk);
    const auto start = Clock::now();
    for (int k = 0; k < kListenMs / 10; ++k) {
        engine.pullPlaybackAudioFrame(heard.data() + std::size_t(k) * kChunk, kChunk);
        std::this_thread::sleep_until(start + (k + 1) * 10ms);
    }
    if (!viewer.waitDecoded()) {
        say("viewer", "no first remote audio within ", example::kTimeout.count(), " s");
        return false;
    }
    const auto [uid, decodedAt] = viewer.decoded();
    const example::Tone tone = example::analyzeTone(heard.data() + kAnalyzeFromMs * kRate / 1000,
                                                    std::size_t(kListenMs - kAnalyzeFromMs) * kRate / 1000, kRate);
    say("viewer", "\"", kChannels[c], "\": uid ", uid, " decoded ",
        fixed(std::chrono::duration<double, std::milli>(decodedAt - joinedAt).count(), 0),
        " ms after joinChannel; heard ", fixed(tone.hz, 0), " Hz (host", c + 1, " sends ", fixed(kTones[c], 0),
        " Hz)");
    return uid == kHostUids[c] && std::abs(tone.hz - kTones[c]) < 10;
}

}  // namespace

int main() {
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    example::User host1("host1"), host2("host2");
    Viewer viewer("viewer");
    agoraish::RtcEngine hosts[2], viewerEngine;
    example::User* hostUsers[2] = {&host1, &host2};
    if (int rc = example::startServer(server); rc != 0) return rc;

    // The viewer: an audience that listens through an external sink and preloads both channels.
    if (int rc = example::createEngine(viewerEngine, viewer, server); rc != 0) return rc;
    viewerEngine.setChannelProfile(agoraish::CHANNEL_PROFILE_LIVE_BROADCASTING);
    viewerEngine.setClientRole(agoraish::CLIENT_ROLE_AUDIENCE);
    viewerEngine.setExternalAudioSink(true, kRate, 1);
    viewerEngine.enableLocalAudio(false);
    for (const char* channel : kChannels) {
        const int rc = viewerEngine.preloadChannel(nullptr, channel, kViewerUid);
        say("viewer", "preloadChannel(\"", channel, "\", ", kViewerUid, ") = ", rc);
        if (rc != 0) return fail("preloadChannel", rc);
    }

    // A host in each channel, sending its tone; what it would hear goes to ALSA's "null".
    for (int h = 0; h < 2; ++h) {
        if (int rc = example::createEngine(hosts[h], *hostUsers[h], server); rc != 0) return rc;
        hosts[h].setChannelProfile(agoraish::CHANNEL_PROFILE_LIVE_BROADCASTING);
        hosts[h].setClientRole(agoraish::CLIENT_ROLE_BROADCASTER);
        hosts[h].setPlaybackDevice("null");
        hosts[h].setExternalAudioSource(true, kRate, 1);
        if (int rc = hosts[h].joinChannel(nullptr, kChannels[h], nullptr, kHostUids[h]); rc != 0) {
            return fail("joinChannel", rc);
        }
        if (!hostUsers[h]->waitJoined(true)) return fail("waiting for onJoinChannelSuccess", -AGORAISH_ERR_TIMEDOUT);
    }
    // The hosts push 10 ms of their tones every 10 ms until the end.
    std::atomic<bool> stop{false};
    std::thread pusher([&] {
        std::vector<int16_t> chunk(kChunk);
        const auto start = Clock::now();
        for (long k = 0; !stop; ++k) {
            for (int h = 0; h < 2; ++h) {
                for (int i = 0; i < kChunk; ++i) {
                    chunk[i] = int16_t(8000 * std::sin(2 * kPi * kTones[h] * double(k * kChunk + i) / kRate));
                }
                hosts[h].pushExternalAudioFrame(chunk.data(), kChunk);
            }
            std::this_thread::sleep_until(start + (k + 1) * 10ms);
        }
    });
    // The shows are on before the viewer comes in.
    std::this_thread::sleep_for(500ms);

    // Into the first channel, then back and forth: leave, and join the other with the same uid.
    bool ok = true, heard[2] = {false, false};
    for (int j = 0; j < kJoins && ok; ++j) {
        const int c = j % 2;
        if (j > 0) {
            viewerEngine.leaveChannel();
            if (!viewer.waitJoined(false)) {
                say("viewer", "no onLeaveChannel");
                ok = false;
                break;
            }
        }
        if (joinAndListen(viewerEngine, viewer, c)) {
            heard[c] = true;
        } else {
            ok = false;
        }
    }
    viewerEngine.leaveChannel();
    ok = viewer.waitJoined(false) && ok && heard[0] && heard[1];
    stop = true;
    pusher.join();

    viewerEngine.release();
    hosts[0].release();
    hosts[1].release();
    std::cout << (ok ? "done: viewer heard each channel's host right after every switch"
                     : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
