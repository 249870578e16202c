// audio_mixing.cpp — Agora's AudioMixing case in C++: music and sound effects
// mixed into what a user says.
//
//   setExternalAudioSource -> joinChannel -> pushExternalAudioFrame every 10 ms
//   -> startAudioMixing(music) -> onAudioMixingStateChanged(PLAYING, OK)
//   -> adjustAudioMixingPublishVolume, getAudioMixing*Volume
//   -> setAudioMixingPitch -> pauseAudioMixing / resumeAudioMixing
//   -> playEffect(publish true) -> onAudioEffectFinished
//   -> stopAudioMixing -> onAudioMixingStateChanged(STOPPED, STOPPED_BY_USER)
//   -> leaveChannel -> release
//
// "local" talks: its "microphone" is an external audio source into which a
// thread pushes a 400 Hz tone, 10 ms every 10 ms. It mixes in music, a 1 kHz
// MP3 the example makes first with the ffmpeg command-line tool in
// demo-out/audio_mixing_music.mp3, and later an effect, 1.5 kHz in
// demo-out/audio_mixing_effect.wav. "remote", a second engine in the same
// process, pulls what it hears from its external sink; local's own playout
// (its external sink) plays the music too. Each step measures the level of
// each frequency in what both heard: the voice and the music together at
// remote, the music alone at local; the music's publish volume lowered
// (remote hears it quieter, local does not); pitch +12 semitones (2 kHz
// instead of 1 kHz); the music paused and resumed; the effect published with
// the music.
//
//   make hosts && build/examples/audio_mixing_cpp
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

const char* const kChannel = "audio-mixing";
const char* const kMusic = "demo-out/audio_mixing_music.mp3";
const char* const kEffect = "demo-out/audio_mixing_effect.wav";
constexpr int kVoiceHz = 400, kMusicHz = 1000, kPitchedHz = 2000, kEffectHz = 1500;
constexpr int kEffectId = 1;
constexpr int kEffectMs = 1000;
constexpr int kSettleMs = 400;       // after a change, until what is heard has it
constexpr int kListenMs = 800;       // each step's measure
constexpr double kHeard = -40;       // a frequency at least this loud (dBFS) is heard ...
constexpr double kSilent = -60;      // ... and at most this loud is not
constexpr double kPi = 3.14159265358979323846;

std::string fixed(double value, int digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

const char* mixingName(agoraish::AUDIO_MIXING_STATE_TYPE state) {
    switch (state) {
    case agoraish::AUDIO_MIXING_STATE_PLAYING: return "PLAYING";
    case agoraish::AUDIO_MIXING_STATE_PAUSED: return "PAUSED";
    case agoraish::AUDIO_MIXING_STATE_STOPPED: return "STOPPED";
    case agoraish::AUDIO_MIXING_STATE_FAILED: return "FAILED";
    }
    return "?";
}

const char* mixingName(agoraish::AUDIO_MIXING_REASON_TYPE reason) {
    switch (reason) {
    case agoraish::AUDIO_MIXING_REASON_OK: return "OK";
    case agoraish::AUDIO_MIXING_REASON_CAN_NOT_OPEN: return "CAN_NOT_OPEN";
    case agoraish::AUDIO_MIXING_REASON_TOO_FREQUENT_CALL: return "TOO_FREQUENT_CALL";
    case agoraish::AUDIO_MIXING_REASON_INTERRUPTED_EOF: return "INTERRUPTED_EOF";
    case agoraish::AUDIO_MIXING_REASON_ONE_LOOP_COMPLETED: return "ONE_LOOP_COMPLETED";
    case agoraish::AUDIO_MIXING_REASON_ALL_LOOPS_COMPLETED: return "ALL_LOOPS_COMPLETED";
    case agoraish::AUDIO_MIXING_REASON_STOPPED_BY_USER: return "STOPPED_BY_USER";
    case agoraish::AUDIO_MIXING_REASON_PAUSED_BY_USER: return "PAUSED_BY_USER";
    case agoraish::AUDIO_MIXING_REASON_RESUMED_BY_USER: return "RESUMED_BY_USER";
    }
    return "?";
}

// A user's channel events, the music's states and the effects that finished.
class User : public example::User {
public:
    using example::User::User;

    void onFirstRemoteAudioDecoded(agoraish::uid_t uid, int elapsed) override {
        say(name_, "onFirstRemoteAudioDecoded uid ", uid, ", ", elapsed, " ms");
    }
    void onAudioMixingStateChanged(agoraish::AUDIO_MIXING_STATE_TYPE state,
                                   agoraish::AUDIO_MIXING_REASON_TYPE reason) override {
        say(name_, "onAudioMixingStateChanged ", mixingName(state), " (", mixingName(reason), ")");
        update([&] { mixing_.emplace_back(state, reason); });
    }
    void onAudioEffectFinished(int soundId) override {
        say(name_, "onAudioEffectFinished ", soundId);
        update([&] { finished_.push_back(soundId); });
    }

    // Waits (at most example::kTimeout) for the music's `state` with `reason`.
    bool waitMixing(agoraish::AUDIO_MIXING_STATE_TYPE state, agoraish::AUDIO_MIXING_REASON_TYPE reason) {
        const bool seen = waitUntil([&] {
            for (const auto& change : mixing_) {
                if (change == std::make_pair(state, reason)) return true;
            }
            return false;
        });
        if (!seen) say(name_, "no ", mixingName(state), " (", mixingName(reason), ")");
        return seen;
    }
    bool waitEffectFinished(int soundId) {
        return waitUntil([&] {
            for (int id : finished_) {
                if (id == soundId) return true;
            }
            return false;
        });
    }

private:
    // Guarded by the lock of example::User.
    std::vector<std::pair<agoraish::AUDIO_MIXING_STATE_TYPE, agoraish::AUDIO_MIXING_REASON_TYPE>> mixing_;
    std::vector<int> finished_;
};

// The level (dBFS) of each frequency one user heard.
struct Levels {
    double voice, music, pitched, effect;
};

struct Heard {
    Levels remote, local;
};

Levels levelsOf(const std::vector<int16_t>& pcm) {
    return {example::toneLevel(pcm, kVoiceHz), example::toneLevel(pcm, kMusicHz), example::toneLevel(pcm, kPitchedHz),
            example::toneLevel(pcm, kEffectHz)};
}

// After kSettleMs, the level of each frequency remote and local hear for `listenMs`, said.
Heard measure(example::Ears& ears, const char* what, int listenMs = kListenMs) {
    ears.listen(kSettleMs);
    const auto heard = ears.listen(listenMs);  // local, remote
    const Heard levels{levelsOf(heard[1]), levelsOf(heard[0])};
    for (const auto& [who, l] : {std::make_pair("remote", levels.remote), std::make_pair("local", levels.local)}) {
        say(who, what, ": ", kVoiceHz, " Hz ", fixed(l.voice, 0), ", ", kMusicHz, " Hz ", fixed(l.music, 0), ", ",
            kPitchedHz, " Hz ", fixed(l.pitched, 0), ", ", kEffectHz, " Hz ", fixed(l.effect, 0), " dBFS");
    }
    return levels;
}

// The steps of the case, in the call; the name of the first that did not go as expected, or nullptr.
const char* mix(agoraish::RtcEngine& engine, User& local, example::Ears& ears) {
    const Heard voice = measure(ears, "the voice alone");
    if (!(voice.remote.voice > kHeard && voice.remote.music < kSilent)) return "the voice alone";

    say("local", "startAudioMixing(", kMusic, ", loopback false, cycle 1) = ",
        engine.startAudioMixing(kMusic, false, 1));
    if (!local.waitMixing(agoraish::AUDIO_MIXING_STATE_PLAYING, agoraish::AUDIO_MIXING_REASON_OK)) return "start";
    say("local", "getAudioMixingDuration() = ", engine.getAudioMixingDuration(), " ms");
    const Heard mixed = measure(ears, "voice and music");
    if (!(mixed.remote.voice > kHeard && mixed.remote.music > kHeard && mixed.local.music > kHeard &&
          mixed.local.voice < kSilent)) {
        return "voice and music";
    }

    engine.adjustAudioMixingPublishVolume(25);
    say("local", "adjustAudioMixingPublishVolume(25): publish volume ", engine.getAudioMixingPublishVolume(),
        ", playout volume ", engine.getAudioMixingPlayoutVolume());
    const Heard quieter = measure(ears, "publish volume 25");
    const double drop = mixed.remote.music - quieter.remote.music, localDrop = mixed.local.music - quieter.local.music;
    say("remote", "the music is ", fixed(drop, 1), " dB quieter (a volume of 25 is 12 dB); local's only ",
        fixed(localDrop, 1), " dB");
    if (!(drop > 8 && drop < 16 && std::abs(localDrop) < 2)) return "the publish volume";
    engine.adjustAudioMixingVolume(100);

    engine.setAudioMixingPitch(12);
    say("local", "adjustAudioMixingVolume(100), setAudioMixingPitch(12): an octave up");
    const Heard pitched = measure(ears, "pitch +12");
    if (!(pitched.remote.pitched > kHeard && pitched.remote.music < pitched.remote.pitched - 20)) return "the pitch";
    engine.setAudioMixingPitch(0);

    engine.pauseAudioMixing();
    if (!local.waitMixing(agoraish::AUDIO_MIXING_STATE_PAUSED, agoraish::AUDIO_MIXING_REASON_PAUSED_BY_USER)) {
        return "the pause";
    }
    say("local", "pauseAudioMixing() at ", engine.getAudioMixingCurrentPosition(), " ms");
    const Heard paused = measure(ears, "music paused");
    if (!(paused.remote.voice > kHeard && paused.remote.music < kSilent)) return "the pause";

    engine.resumeAudioMixing();
    if (!local.waitMixing(agoraish::AUDIO_MIXING_STATE_PLAYING, agoraish::AUDIO_MIXING_REASON_RESUMED_BY_USER)) {
        return "the resume";
    }
    say("local", "resumeAudioMixing(), playEffect(", kEffectId, ", ", kEffect, ", publish true) = ",
        engine.playEffect(kEffectId, kEffect, 0, 1.0, 0.0, 100, true), "; effects volume ",
        engine.getEffectsVolume());
    const Heard effect = measure(ears, "voice, music and effect", kEffectMs - kSettleMs);
    if (!(effect.remote.voice > kHeard && effect.remote.music > kHeard && effect.remote.effect > kHeard)) {
        return "the effect";
    }
    if (!local.waitEffectFinished(kEffectId)) return "onAudioEffectFinished";

    engine.stopAudioMixing();
    if (!local.waitMixing(agoraish::AUDIO_MIXING_STATE_STOPPED, agoraish::AUDIO_MIXING_REASON_STOPPED_BY_USER)) {
        return "the stop";
    }
    return nullptr;
}

}  // namespace

int main() {
    say("ffmpeg", "making ", kMusic, " (", kMusicHz, " Hz, 10 s) and ", kEffect, " (", kEffectHz, " Hz, 1 s)");
    if (!example::ffmpeg(kMusic, "-f lavfi -i sine=frequency=1000:sample_rate=48000:duration=10 -c:a libmp3lame "
                                 "-b:a 96k") ||
        !example::ffmpeg(kEffect, "-f lavfi -i sine=frequency=1500:sample_rate=48000:duration=1 -c:a pcm_s16le")) {
        std::cout << "the call did not go as expected\n";
        return 1;
    }

    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    agoraish::RtcEngine localEngine, remoteEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(remoteEngine, remote, server); rc != 0) return rc;

    localEngine.setExternalAudioSource(true, 48000, 1);
    localEngine.setExternalAudioSink(true, example::Ears::kRate, 1);
    remoteEngine.setExternalAudioSink(true, example::Ears::kRate, 1);
    remoteEngine.enableLocalAudio(false);  // remote only listens
    if (int rc = example::meet(kChannel, localEngine, local, remoteEngine, remote); rc != 0) return rc;
    say("local", "getEffectDuration(", kEffect, ") = ", localEngine.getEffectDuration(kEffect), " ms");

    // local's "microphone": a tone pushed 10 ms every 10 ms, until the steps are done.
    std::atomic<bool> talking{true};
    std::thread microphone([&] {
        std::vector<int16_t> chunk(480);
        const auto start = Clock::now();
        for (long k = 0; talking; ++k) {
            for (int i = 0; i < 480; ++i) {
                chunk[std::size_t(i)] = int16_t(8000 * std::sin(2 * kPi * kVoiceHz * double(k * 480 + i) / 48000));
            }
            localEngine.pushExternalAudioFrame(chunk.data(), 480);
            std::this_thread::sleep_until(start + (k + 1) * 10ms);
        }
    });
    const char* failed;
    {
        example::Ears ears({&localEngine, &remoteEngine});
        failed = mix(localEngine, local, ears);
    }
    talking = false;
    microphone.join();
    if (failed) say("local", "not as expected: ", failed);

    if (int rc = example::part(localEngine, local, remoteEngine, remote); rc != 0) return rc;
    remoteEngine.release();
    localEngine.release();
    std::cout << (failed ? "the call did not go as expected"
                         : "done: remote heard the voice with the music, its volume, pitch and pause, and the effect")
              << '\n';
    return failed ? 1 : 0;
}
