// spatial_audio.cpp — Agora's SpatialAudio case in C++: a remote voice placed
// around the listener and rendered for two ears.
//
//   setExternalAudioSink(true, 48000, 2) -> getLocalSpatialAudioEngine (initialize)
//   -> updateSelfPosition, setDistanceUnit, setAudioRecvRange -> joinChannel
//   -> updateRemotePosition(uid, RemoteVoicePositionInfo: front, right, back, left, far)
//   -> pullPlaybackAudioFrame (stereo) every 10 ms
//   -> LocalSpatialAudioEngine::release -> leaveChannel -> release
//
// "speaker" pushes a tone (40 harmonics of 200 Hz) into its external audio
// source, sent with the music profile. "listener", a second engine in the
// same process, stands at the origin facing +x (right +y, up +z), hears up
// to 20 m, and pulls what it hears in stereo from its external sink. It puts
// the speaker 1 m in front of it, on its right, behind it, on its left, then
// 30 m away, and measures the level in each ear and the interaural level
// difference (ILD, right minus left): about 0 dB in front and behind,
// positive on the right, negative on the left, and silence out of range
// (the server no longer forwards the speaker).
//
//   make hosts && build/examples/spatial_audio_cpp
#include "agoraish.hpp"
#include "example_support.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace {

using example::Clock;
using example::fail;
using example::say;
using namespace std::chrono_literals;

const char* const kChannel = "spatial-audio";
constexpr int kRate = 48000, kChunk = kRate / 100;  // 10 ms per channel
constexpr int kSettleMs = 600;                      // after a move, until what is heard has it
constexpr int kListenMs = 1000;                     // each place's measure
constexpr float kRange = 20;                        // how far the listener hears, m
constexpr double kPi = 3.14159265358979323846;

// Two periods of the speaker's tone: 40 harmonics of 200 Hz (200 Hz .. 8 kHz) of equal level, with
// Schroeder's phases (a low crest factor), at -26 dBFS: broadband, as the ears' level difference
// grows with frequency.
std::vector<int16_t> makeTone() {
    std::vector<int16_t> tone(kChunk);
    for (int n = 0; n < kChunk; ++n) {
        double sum = 0;
        for (int k = 1; k <= 40; ++k) sum += 367 * std::sin(2 * kPi * 200.0 * k * n / kRate + kPi * k * (k - 1) / 40);
        tone[std::size_t(n)] = int16_t(std::lround(sum));
    }
    return tone;
}

// What each ear heard over a place's measure: dBFS, -120 for silence.
struct Levels {
    double left, right;
};

// Pulls kSettleMs then kListenMs of stereo in real time, 10 ms every 10 ms (`ticks` since
// `start`), and gives the level of each ear over kListenMs; nothing when a pull fails.
bool listen(agoraish::RtcEngine& engine, Clock::time_point start, long& ticks, Levels& ears) {
    std::vector<int16_t> frame(2 * kChunk);
    double energy[2] = {0, 0};
    for (int k = 0; k < (kSettleMs + kListenMs) / 10; ++k) {
        if (int rc = engine.pullPlaybackAudioFrame(frame.data(), kChunk); rc != 0) {
            say("listener", "pullPlaybackAudioFrame = ", rc);
            return false;
        }
        if (k >= kSettleMs / 10) {
            for (std::size_t i = 0; i < frame.size(); ++i) energy[i % 2] += double(frame[i]) * frame[i];  // L, R
        }
        std::this_thread::sleep_until(start + ++ticks * 10ms);
    }
    const auto dbfs = [](double e) {
        const double mean = e / (kListenMs / 10 * kChunk);
        return mean > 0 ? std::max(-120.0, 10 * std::log10(mean) - 20 * std::log10(32768.0)) : -120.0;
    };
    ears = {dbfs(energy[0]), dbfs(energy[1])};
    return true;
}

std::string fixed(double value, int digits, bool sign = false) {
    char text[32];
    std::snprintf(text, sizeof text, sign ? "%+.*f" : "%.*f", digits, value);
    return text;
}

}  // namespace

int main() {
    struct Place {
        const char* name;
        agoraish::RemoteVoicePositionInfo info;
    };
    const std::array<Place, 5> places = {{{"front", {{1, 0, 0}, {-1, 0, 0}}},
                                          {"right", {{0, 1, 0}, {0, -1, 0}}},
                                          {"back", {{-1, 0, 0}, {1, 0, 0}}},
                                          {"left", {{0, -1, 0}, {0, 1, 0}}},
                                          {"out of range", {{30, 0, 0}, {-1, 0, 0}}}}};  // each facing the listener
    const std::vector<int16_t> tone = makeTone();
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    example::User listener("listener"), speaker("speaker");
    agoraish::RtcEngine listenerEngine, speakerEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(listenerEngine, listener, server); rc != 0) return rc;
    if (int rc = example::createEngine(speakerEngine, speaker, server); rc != 0) return rc;

    // The listener hears in stereo and says nothing; its spatial audio engine places the speaker.
    listenerEngine.setExternalAudioSink(true, kRate, 2);
    listenerEngine.enableLocalAudio(false);
    agoraish::LocalSpatialAudioEngine spatial;
    if (int rc = listenerEngine.getLocalSpatialAudioEngine(spatial); rc != 0) {
        return fail("getLocalSpatialAudioEngine", rc);
    }
    say("listener", "getLocalSpatialAudioEngine (initialized) = 0");
    const float origin[3] = {0, 0, 0}, forward[3] = {1, 0, 0}, right[3] = {0, 1, 0}, up[3] = {0, 0, 1};
    int rc = spatial.updateSelfPosition(origin, forward, right, up);
    if (rc == 0) rc = spatial.setDistanceUnit(1.0f);
    if (rc == 0) rc = spatial.setAudioRecvRange(kRange);
    say("listener", "at the origin facing +x, 1 unit = 1 m, hears ", kRange, " m: ", rc);
    if (rc != 0) return fail("LocalSpatialAudioEngine", rc);
    speakerEngine.setAudioProfile(agoraish::AUDIO_PROFILE_MUSIC_STANDARD);  // 48 kHz, 64 kbps
    speakerEngine.setExternalAudioSource(true, kRate, 1);
    speakerEngine.setPlaybackDevice("null");
    if (int code = example::meet(kChannel, listenerEngine, listener, speakerEngine, speaker); code != 0) return code;
    const agoraish::uid_t uid = listener.peer();

    // The speaker's voice, 10 ms every 10 ms, until the places are done.
    std::atomic<bool> talking{true};
    std::thread voice([&] {
        const auto start = Clock::now();
        for (long k = 0; talking; ++k) {
            speakerEngine.pushExternalAudioFrame(tone.data(), kChunk);
            std::this_thread::sleep_until(start + (k + 1) * 10ms);
        }
    });
    std::vector<Levels> heard;
    const auto start = Clock::now();
    long ticks = 0;
    for (const Place& place : places) {
        if (int code = spatial.updateRemotePosition(uid, place.info); code != 0) {
            say("listener", "updateRemotePosition(", uid, ") = ", code);
            break;
        }
        Levels ears{};
        if (!listen(listenerEngine, start, ticks, ears)) break;
        const float* at = place.info.position;
        char where[64];
        std::snprintf(where, sizeof where, "(%g, %g, %g)", double(at[0]), double(at[1]), double(at[2]));
        say("listener", place.name, " ", where, ": left ", fixed(ears.left, 1), " dBFS, right ", fixed(ears.right, 1),
            " dBFS, ILD ", fixed(ears.right - ears.left, 1, true), " dB");
        heard.push_back(ears);
    }
    talking = false;
    voice.join();
    say("listener", "LocalSpatialAudioEngine::release = ", spatial.release());

    // Heard at 1 m, balanced in front and behind, louder in the ear it is next to; silent out of range.
    const auto ild = [&](std::size_t i) { return heard[i].right - heard[i].left; };
    const bool ok = heard.size() == places.size() && heard[0].left > -50 && heard[0].right > -50 &&
                    std::abs(ild(0)) <= 3 && ild(1) >= 6 && std::abs(ild(2)) <= 3 && ild(3) <= -6 &&
                    heard[4].left <= -60 && heard[4].right <= -60;
    if (!ok) say("listener", "not as expected");

    if (int code = example::part(listenerEngine, listener, speakerEngine, speaker); code != 0) return code;
    speakerEngine.release();
    listenerEngine.release();
    std::cout << (ok ? "done: listener heard the speaker in front, right, behind and left, and not out of range"
                     : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
