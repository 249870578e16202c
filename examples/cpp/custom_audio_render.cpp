// custom_audio_render.cpp — Agora's CustomAudioRender case in C++: the host
// plays what a user hears, instead of a speaker.
//
//   setExternalAudioSink(rate, channels) -> joinChannel
//   -> pullPlaybackAudioFrame every 10 ms, in real time -> leaveChannel -> release
//
// "local" renders: it pulls 10 ms of 44.1 kHz stereo every 10 ms (the pull
// cadence is its playout clock; the engine mixes every remote user, converts
// the 48 kHz mix to the sink's format and conceals losses) and writes what it
// pulled to demo-out/custom_audio_render_cpp.wav, as a player would hand it to
// a sound card. "remote", a second engine in the same process, talks: it
// pushes a 523 Hz tone (C5) and mutes itself for one second in the middle,
// which the WAV shows as a gap. At the end the example reads the WAV's tone,
// level and gap.
//
// Everything goes through bindings/cpp/agoraish.hpp except three calls the
// header does not have yet (muteLocalAudioStream, enableLocalAudio and the
// playback device), which use the C API on RtcEngine::nativeHandle().
//
//   make hosts && build/examples/custom_audio_render_cpp
#include "agoraish.hpp"
#include "example_support.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

namespace {

using example::Clock;
using example::fail;
using example::say;
using namespace std::chrono_literals;

const char* const kChannel = "custom-audio-render";
constexpr double kPi = 3.14159265358979323846;
constexpr int kSinkRate = 44100;              // what local renders
constexpr int kSinkChannels = 2;
constexpr int kSinkFrame = kSinkRate / 100;   // 10 ms, per channel
constexpr double kToneHz = 523.25;            // what remote says
constexpr double kToneAmplitude = 8000;
constexpr long kTalkFrames = 400;             // 4 s of 10 ms frames
constexpr long kMuteFrom = 150, kMuteTo = 250; // remote is muted from 1.5 s to 2.5 s
constexpr long kListenFrames = 450;

std::string fixed(double value, int digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

// A user's channel events, remembered so main can wait for them.
using example::User;

// ---- the WAV file and what is in it ---------------------------------------------------

void putLe(std::ostream& out, uint32_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out.put(char((value >> (8 * i)) & 0xFF));
}

// A 16-bit PCM WAV file (RIFF), interleaved.
bool writeWav(const std::string& path, const std::vector<int16_t>& samples, int rate, int channels) {
    std::ofstream out(path, std::ios::binary);
    const auto bytes = uint32_t(samples.size() * 2);
    out << "RIFF";
    putLe(out, 36 + bytes, 4);
    out << "WAVEfmt ";
    putLe(out, 16, 4);
    putLe(out, 1, 2);
    putLe(out, uint32_t(channels), 2);
    putLe(out, uint32_t(rate), 4);
    putLe(out, uint32_t(rate * channels * 2), 4);
    putLe(out, uint32_t(channels * 2), 2);
    putLe(out, 16, 2);
    out << "data";
    putLe(out, bytes, 4);
    for (int16_t s : samples) putLe(out, uint16_t(s), 2);
    return bool(out);
}

struct Tone {
    double hz = 0;
    double dbfs = -120;
};

// Frequency (upward crossings of a hysteresis band) and level of the left
// channel of `frames` stereo frames from `pcm`.
Tone analyze(const int16_t* pcm, long frames) {
    Tone tone;
    double energy = 0;
    for (long i = 0; i < frames; ++i) energy += double(pcm[i * kSinkChannels]) * pcm[i * kSinkChannels];
    if (frames <= 0 || energy <= 0) return tone;
    const double band = std::sqrt(energy / double(frames)) / 4;
    long crossings = 0;
    bool high = false;
    for (long i = 0; i < frames; ++i) {
        const int16_t s = pcm[i * kSinkChannels];
        if (!high && s > band) {
            high = true;
            ++crossings;
        } else if (high && s < -band) {
            high = false;
        }
    }
    tone.hz = double(crossings) / (double(frames) / kSinkRate);
    tone.dbfs = 10 * std::log10(energy / double(frames)) - 20 * std::log10(32768.0);
    return tone;
}

// Whether 10 ms block `k` has sound in it.
bool loud(const std::vector<int16_t>& pcm, long k) {
    for (long i = k * kSinkFrame * kSinkChannels; i < (k + 1) * kSinkFrame * kSinkChannels; ++i) {
        if (std::abs(pcm[std::size_t(i)]) > 1000) return true;
    }
    return false;
}

}  // namespace

int main() {
    const std::string wavPath = "demo-out/custom_audio_render_cpp.wav";

    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    agoraish::RtcEngine localEngine, remoteEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(remoteEngine, remote, server); rc != 0) return rc;

    // local renders what it hears itself, and sends nothing.
    if (int rc = localEngine.setExternalAudioSink(true, kSinkRate, kSinkChannels); rc != 0) {
        return fail("setExternalAudioSink", rc);
    }
    say("local", "setExternalAudioSink(", kSinkRate, " Hz, ", kSinkChannels, " ch) = 0");
    agoraish_engine_enable_local_audio(localEngine.nativeHandle(), 0);

    // remote talks through an external source; what it would hear goes to ALSA's "null".
    remoteEngine.setExternalAudioSource(true, 48000, 1);
    agoraish_engine_set_playback_device(remoteEngine.nativeHandle(), "null");

    if (int rc = example::meet(kChannel, localEngine, local, remoteEngine, remote); rc != 0) return rc;

    std::thread talker([&remoteEngine] {
        std::array<int16_t, 480> frame;
        const auto start = Clock::now();
        for (long k = 0; k < kTalkFrames; ++k) {
            if (k == kMuteFrom || k == kMuteTo) {
                const int mute = k == kMuteFrom;
                say("remote", "muteLocalAudioStream(", mute, ") = ",
                    agoraish_engine_mute_local_audio_stream(remoteEngine.nativeHandle(), mute));
            }
            for (int i = 0; i < 480; ++i) {
                frame[std::size_t(i)] = int16_t(kToneAmplitude * std::sin(2 * kPi * kToneHz * double(k * 480 + i) / 48000));
            }
            remoteEngine.pushExternalAudioFrame(frame.data(), 480);
            std::this_thread::sleep_until(start + (k + 1) * 10ms);
        }
    });

    // The render loop: 10 ms every 10 ms, as a sound card would ask for it.
    std::vector<int16_t> played(std::size_t(kListenFrames) * kSinkFrame * kSinkChannels);
    const auto start = Clock::now();
    for (long k = 0; k < kListenFrames; ++k) {
        if (int rc = localEngine.pullPlaybackAudioFrame(played.data() + k * kSinkFrame * kSinkChannels, kSinkFrame);
            rc != 0) {
            say("local", "pullPlaybackAudioFrame = ", rc);
        }
        std::this_thread::sleep_until(start + (k + 1) * 10ms);
    }
    talker.join();

    if (int rc = example::part(localEngine, local, remoteEngine, remote); rc != 0) return rc;

    mkdir("demo-out", 0755);
    if (writeWav(wavPath, played, kSinkRate, kSinkChannels)) {
        say("local", "wrote what it rendered to ", wavPath, " (", kSinkRate, " Hz, ", kSinkChannels, " channels, ",
            fixed(kListenFrames / 100.0, 1), " s)");
    }

    // The WAV: where sound starts, the longest silence after it (the mute),
    // the tone before and after, and whether both channels are the same.
    long onset = -1, gapFrom = -1, gapLength = 0, run = 0;
    for (long k = 0; k < kListenFrames; ++k) {
        if (onset < 0) {
            if (loud(played, k)) onset = k;
            continue;
        }
        run = loud(played, k) ? 0 : run + 1;
        if (run > gapLength) {
            gapLength = run;
            gapFrom = k - run + 1;
        }
    }
    bool same = true;
    for (std::size_t i = 0; i + 1 < played.size(); i += 2) same = same && played[i] == played[i + 1];
    bool ok = false;
    if (onset >= 0 && gapFrom > onset + 50) {
        const Tone before = analyze(played.data() + (onset + 20) * kSinkFrame * kSinkChannels,
                                    (gapFrom - onset - 40) * kSinkFrame);
        const long afterFrom = gapFrom + gapLength + 20, afterCount = kListenFrames - afterFrom - 60;
        const Tone after = analyze(played.data() + afterFrom * kSinkFrame * kSinkChannels,
                                   afterCount > 0 ? afterCount * kSinkFrame : 0);
        say("local", "sound from ", fixed(onset / 100.0, 2), " s of the render: ", fixed(before.hz, 0), " Hz at ",
            fixed(before.dbfs, 1), " dBFS (remote sent ", fixed(kToneHz, 0), " Hz at ",
            fixed(20 * std::log10(kToneAmplitude / std::sqrt(2.0) / 32768.0), 1), " dBFS)");
        say("local", "then ", fixed(gapLength / 100.0, 2), " s of silence from ", fixed(gapFrom / 100.0, 2),
            " s (remote was muted for ", fixed((kMuteTo - kMuteFrom) / 100.0, 2), " s), then ", fixed(after.hz, 0),
            " Hz at ", fixed(after.dbfs, 1), " dBFS");
        say("local", "left and right channels are ", same ? "the same (the mix is mono)" : "different");
        ok = std::abs(before.hz - kToneHz) < 10 && std::abs(after.hz - kToneHz) < 10
             && std::abs(gapLength - (kMuteTo - kMuteFrom)) < 30;
    } else {
        say("local", "rendered no tone with a gap");
    }

    remoteEngine.release();
    localEngine.release();
    std::cout << (ok ? "done: local rendered remote's tone and its mute" : "the call did not go as expected") << '\n';
    return ok ? 0 : 1;
}
