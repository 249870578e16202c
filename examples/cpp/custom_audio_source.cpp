// custom_audio_source.cpp — Agora 4.x's CustomAudioSource case in C++: the
// host sends audio of its own through a custom audio track instead of the
// microphone.
//
//   createCustomAudioTrack -> joinChannel(token, channelId, uid, ChannelMediaOptions
//   {publishCustomAudioTrack, publishCustomAudioTrackId, publishMicrophoneTrack false})
//   -> pushExternalAudioFrame(trackId, ...) every 10 ms, in real time
//   -> adjustCustomAudioPublishVolume -> leaveChannel -> destroyCustomAudioTrack -> release
//
// "local" pushes a 440 Hz tone (48 kHz mono) into its track: one second at
// publish volume 100, then one at 50. "remote", a second engine in the same
// process, listens through an external sink and measures each second: the
// same tone, the second one about 6 dB lower.
//
//   make hosts && build/examples/custom_audio_source_cpp
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
#include <vector>

namespace {

using example::Clock;
using example::fail;
using example::say;
using namespace std::chrono_literals;

const char* const kChannel = "custom-audio-source";
constexpr int kRate = 48000;
constexpr int kChunk = kRate / 100;  // 10 ms
constexpr double kToneHz = 440.0;
constexpr double kPi = 3.14159265358979323846;
constexpr int kSeconds = 2;
constexpr int kListenChunks = kSeconds * 100 + 60;  // the tone and 600 ms more

std::string fixed(double value, int digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

// A user's channel events, and the audio states it reports.
class User : public example::User {
public:
    using example::User::User;

    void onFirstLocalAudioFramePublished(int elapsed) override {
        say(name_, "onFirstLocalAudioFramePublished, ", elapsed, " ms");
    }
    void onRemoteAudioStateChanged(agoraish::uid_t uid, agoraish::REMOTE_AUDIO_STATE state,
                                   agoraish::REMOTE_AUDIO_STATE_REASON reason, int elapsed) override {
        say(name_, "onRemoteAudioStateChanged uid ", uid, " state ", int(state), " (reason ", int(reason), "), ",
            elapsed, " ms");
    }
};

using example::Tone;

// Frequency and level of a tone (example_support.hpp).
Tone analyze(const int16_t* pcm, std::size_t count) { return example::analyzeTone(pcm, count, kRate); }

}  // namespace

int main() {
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    agoraish::RtcEngine localEngine, remoteEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(remoteEngine, remote, server); rc != 0) return rc;

    // local: a custom audio track, published instead of the microphone. Nothing
    // it would hear matters here, so its playout goes to ALSA's "null".
    agoraish::track_id_t track = 0;
    if (int rc = localEngine.createCustomAudioTrack(agoraish::AUDIO_TRACK_MIXABLE, &track); rc != 0) {
        return fail("createCustomAudioTrack", rc);
    }
    say("local", "createCustomAudioTrack(MIXABLE) = 0, track ", track);
    localEngine.setPlaybackDevice("null");
    agoraish::ChannelMediaOptions options;
    options.publishMicrophoneTrack = false;
    options.publishCustomAudioTrack = true;
    options.publishCustomAudioTrackId = track;
    if (int rc = localEngine.joinChannel(nullptr, kChannel, 0, options); rc != 0) {
        return fail("joinChannel(options)", rc);
    }
    say("local", "joinChannel(\"", kChannel, "\", options: publish track ", track, ") = 0");
    if (!local.waitJoined(true)) return fail("waiting for onJoinChannelSuccess", -AGORAISH_ERR_TIMEDOUT);

    // remote only listens: it pulls what it hears and sends nothing.
    remoteEngine.setExternalAudioSink(true, kRate, 1);
    remoteEngine.enableLocalAudio(false);
    if (int rc = remoteEngine.joinChannel(nullptr, kChannel, nullptr, 0); rc != 0) return fail("joinChannel", rc);
    if (!remote.waitJoined(true) || !remote.waitPeer(true) || !local.waitPeer(true)) {
        return fail("waiting for the users to see each other", -AGORAISH_ERR_TIMEDOUT);
    }

    // local pushes in real time (10 ms every 10 ms) while remote pulls.
    std::atomic<int> failures{0};
    std::thread pusher([&] {
        std::vector<int16_t> chunk(kChunk);
        const auto start = Clock::now();
        long n = 0;
        for (int k = 0; k < kSeconds * 100; ++k) {
            if (k == 100) {
                // The second second at half the amplitude: about -6 dB.
                say("local", "adjustCustomAudioPublishVolume(track ", track, ", 50) = ",
                    localEngine.adjustCustomAudioPublishVolume(track, 50));
            }
            for (int16_t& s : chunk) s = int16_t(8000 * std::sin(2 * kPi * kToneHz * double(n++) / kRate));
            if (localEngine.pushExternalAudioFrame(track, chunk.data(), kChunk, kRate, 1) != 0) ++failures;
            std::this_thread::sleep_until(start + (k + 1) * 10ms);
        }
    });
    std::vector<int16_t> heard(std::size_t(kListenChunks) * kChunk);
    const auto start = Clock::now();
    for (int k = 0; k < kListenChunks; ++k) {
        remoteEngine.pullPlaybackAudioFrame(heard.data() + std::size_t(k) * kChunk, kChunk);
        std::this_thread::sleep_until(start + (k + 1) * 10ms);
    }
    pusher.join();
    say("local", kSeconds, " s pushed, ", failures.load(), " pushes failed");

    if (int rc = example::part(localEngine, local, remoteEngine, remote); rc != 0) return rc;
    say("local", "destroyCustomAudioTrack(", track, ") = ", localEngine.destroyCustomAudioTrack(track));

    // Each second from the moment sound arrived, without its first and last 150 ms.
    std::size_t onset = 0;
    while (onset < heard.size() && std::abs(heard[onset]) < 500) ++onset;
    bool ok = false;
    if (onset + 2 * kRate <= heard.size()) {
        const Tone loud = analyze(heard.data() + onset + kRate * 15 / 100, kRate * 70 / 100);
        const Tone quiet = analyze(heard.data() + onset + kRate + kRate * 15 / 100, kRate * 70 / 100);
        say("remote", "second 1 (volume 100): ", fixed(loud.hz, 0), " Hz at ", fixed(loud.dbfs, 1), " dBFS");
        say("remote", "second 2 (volume 50): ", fixed(quiet.hz, 0), " Hz at ", fixed(quiet.dbfs, 1), " dBFS, ",
            fixed(loud.dbfs - quiet.dbfs, 1), " dB lower");
        ok = std::abs(loud.hz - kToneHz) < 10 && std::abs(quiet.hz - kToneHz) < 10 &&
             std::abs(loud.dbfs - quiet.dbfs - 6.0) < 2.0 && failures == 0;
    } else {
        say("remote", "heard nothing");
    }

    remoteEngine.release();
    localEngine.release();
    std::cout << (ok ? "done: remote heard the custom track at both publish volumes" : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
