// voice_changer.cpp — Agora's VoiceChanger case in C++: noise suppression and
// voice effects on what a user says.
//
//   createCustomAudioTrack(AUDIO_TRACK_MIXABLE) -> joinChannel(options: publish it)
//   -> pushExternalAudioFrame(trackId, ...) every 10 ms
//   -> enableCustomAudioTrackProcessing -> setAINSMode(true, AINS_MODE_AGGRESSIVE)
//   -> setVoiceBeautifierParameters(SINGING_BEAUTIFIER, male, hall)
//   -> setAudioEffectPreset(VOICE_CHANGER_EFFECT_HULK)
//   -> setVoiceConversionPreset(VOICE_CHANGER_CHIPMUNK)
//   -> setLocalVoicePitch(2.0) -> leaveChannel -> release
//
// "local" talks into a custom audio track: a 150 Hz voice (12 harmonics) in
// syllables of 200 ms with pauses of 133 ms, over a hiss at -50 dBFS. "remote",
// a second engine in the same process, pulls what it hears from its external
// sink and measures each step: the fundamental (F0, by autocorrelation), the
// level of the syllables and of the pauses, and the brightness (the energy of
// the signal's slope against its own). The track is sent as pushed, then
// noise suppression clears the pauses, then each effect changes the voice:
// its pitch, its brightness or (reverberation) the pauses it fills.
//
//   make hosts && build/examples/voice_changer_cpp
#include "agoraish.hpp"
#include "example_support.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace {

using example::Clock;
using example::fail;
using example::say;
using namespace std::chrono_literals;

const char* const kChannel = "voice-changer";
constexpr int kRate = example::Ears::kRate, kChunk = example::Ears::kChunk;
constexpr double kF0 = 150;
constexpr int kSyllable = 16000, kVoiced = 9600, kFade = 480;  // samples: 333 ms, 200 ms voiced, 10 ms fades
constexpr int kSettleMs = 800;                                 // after a change, until what is heard has it
constexpr int kListenMs = 1330;                                // each step's measure: four syllables
constexpr double kPi = 3.14159265358979323846;

std::string fixed(double value, int digits, bool sign = false) {
    char text[32];
    std::snprintf(text, sizeof text, sign ? "%+.*f" : "%.*f", digits, value);
    return text;
}

// Says what processes local's voice each time it changes.
class User : public example::User {
public:
    using example::User::User;

    void onLocalAudioStats(const agoraish::LocalAudioStats& s) override {
        const int p = s.audioProcessing;
        const bool changed = locked([&] {
            const bool c = p != processing_ || s.voiceEffects != effects_;
            processing_ = p;
            effects_ = s.voiceEffects;
            return c;
        });
        if (!changed) return;
        char hex[16];
        std::snprintf(hex, sizeof hex, "(0x%x)", p);
        say(name_, "onLocalAudioStats: audio processing ", p & agoraish::AUDIO_PROCESSING_AEC ? "AEC " : "",
            p & agoraish::AUDIO_PROCESSING_ANS ? "ANS " : "", p & agoraish::AUDIO_PROCESSING_AGC ? "AGC " : "",
            p & agoraish::AUDIO_PROCESSING_HPF ? "HPF " : "", hex, ", voice effects ", s.voiceEffects ? "on" : "off");
    }

private:
    int processing_ = 0;  // guarded by the lock of example::User
    bool effects_ = false;
};

// One second (three syllables) of local's voice, pushed in a loop.
std::vector<int16_t> makeVoice() {
    std::vector<int16_t> voice(kRate);
    std::uint32_t seed = 12345;
    for (int n = 0; n < kRate; ++n) {
        const int t = n % kSyllable;
        const double envelope = t < kFade                ? 0.5 - 0.5 * std::cos(kPi * t / kFade)
                                : t < kVoiced - kFade    ? 1.0
                                : t < kVoiced            ? 0.5 - 0.5 * std::cos(kPi * (kVoiced - t) / kFade)
                                                         : 0.0;
        double sum = 0;
        for (int k = 1; k <= 12; ++k) sum += 5000.0 / k * std::sin(2 * kPi * kF0 * k * n / kRate);
        seed = seed * 1664525u + 1013904223u;
        voice[std::size_t(n)] = int16_t(std::lround(envelope * sum + double((seed >> 16) % 361) - 180));
    }
    return voice;
}

// What remote measured in one step: Hz, dBFS, dBFS, dB.
struct Measure {
    double f0, voice, pauses, brightness;
};

// The fundamental of the 120 ms around 10 ms frame `loudest`, at 16 kHz: the shortest lag
// (50..640 Hz) whose normalized autocorrelation peaks within 85 % of the highest, refined by
// a parabola; 0 when nothing periodic is there.
double fundamental(const std::vector<int16_t>& pcm, std::size_t loudest) {
    constexpr int kWindow = 1920, kMinLag = 25, kMaxLag = 320;
    const std::size_t decimated = pcm.size() / 3;
    std::size_t start = loudest * 160 + 80 > kWindow / 2 ? loudest * 160 + 80 - kWindow / 2 : 0;
    if (decimated < kWindow) return 0;
    start = std::min(start, decimated - kWindow);
    std::vector<double> x(kWindow), r(kMaxLag + 2);
    for (std::size_t i = 0; i < x.size(); ++i) {
        const std::size_t j = 3 * (start + i);
        x[i] = (pcm[j] + pcm[j + 1] + pcm[j + 2]) / 3.0;
    }
    double best = 0;
    for (int lag = kMinLag - 1; lag <= kMaxLag + 1; ++lag) {
        double xy = 0, xx = 0, yy = 0;
        for (int i = 0; i + lag < kWindow; ++i) {
            xy += x[i] * x[i + lag];
            xx += x[i] * x[i];
            yy += x[i + lag] * x[i + lag];
        }
        r[lag] = xx > 0 && yy > 0 ? xy / std::sqrt(xx * yy) : 0;
        if (lag >= kMinLag && lag <= kMaxLag) best = std::max(best, r[lag]);
    }
    for (int lag = kMinLag; best >= 0.3 && lag <= kMaxLag; ++lag) {
        if (r[lag] >= 0.85 * best && r[lag] >= r[lag - 1] && r[lag] >= r[lag + 1]) {
            const double curve = r[lag - 1] - 2 * r[lag] + r[lag + 1];
            return 16000.0 / (lag + (curve < 0 ? 0.5 * (r[lag - 1] - r[lag + 1]) / curve : 0));
        }
    }
    return 0;
}

// F0, the syllables' and the pauses' levels (the 90th and 10th percentiles of the 10 ms
// levels) and the brightness of what was heard.
Measure analyze(const std::vector<int16_t>& heard) {
    std::vector<double> levels(heard.size() / kChunk);
    if (levels.empty()) return {0, -120, -120, -120};  // nothing came
    std::size_t loudest = 0;
    for (std::size_t f = 0; f < levels.size(); ++f) {
        double sum = 0;
        for (std::size_t i = f * kChunk; i < (f + 1) * kChunk; ++i) sum += double(heard[i]) * heard[i];
        levels[f] = sum > 0 ? 10 * std::log10(sum / kChunk) - 20 * std::log10(32768.0) : -120;
        if (levels[f] > levels[loudest]) loudest = f;
    }
    double energy = 0, slope = 0;
    for (std::size_t i = 1; i < heard.size(); ++i) {
        energy += double(heard[i]) * heard[i];
        slope += double(heard[i] - heard[i - 1]) * (heard[i] - heard[i - 1]);
    }
    Measure m{fundamental(heard, loudest), 0, 0, energy > 0 && slope > 0 ? 10 * std::log10(slope / energy) : -120};
    std::sort(levels.begin(), levels.end());
    m.voice = levels[levels.size() * 9 / 10];
    m.pauses = levels[levels.size() / 10];
    return m;
}

// After kSettleMs, what remote hears for kListenMs, said.
Measure measure(example::Ears& ears, const std::string& step) {
    ears.listen(kSettleMs);
    const Measure m = analyze(ears.listen(kListenMs)[0]);
    say("remote", step, ": F0 ", fixed(m.f0, 0), " Hz, voice ", fixed(m.voice, 1), " dBFS, pauses ",
        fixed(m.pauses, 1), " dBFS, brightness ", fixed(m.brightness, 1), " dB");
    return m;
}

// Whether an effect changed the voice without effects, `plain`: its pitch, brightness or pauses.
bool changed(const std::string& step, const Measure& m, const Measure& plain) {
    const double pitch = plain.f0 > 0 ? 100 * (m.f0 / plain.f0 - 1) : 0;
    const double bright = m.brightness - plain.brightness, pauses = m.pauses - plain.pauses;
    say("remote", step, ": F0 ", fixed(pitch, 0, true), " %, brightness ", fixed(bright, 1, true), " dB, pauses ",
        fixed(pauses, 1, true), " dB");
    return std::abs(pitch) >= 5 || std::abs(bright) >= 1.5 || pauses >= 6;
}

// A step of the case: its name, what local calls and the call.
struct Step {
    std::string name, call;
    std::function<int()> apply;
};

}  // namespace

int main() {
    const std::vector<int16_t> voice = makeVoice();
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    agoraish::RtcEngine localEngine, remoteEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(remoteEngine, remote, server); rc != 0) return rc;

    // local publishes a custom track, with the music profile (48 kHz, 64 kbps: what remote measures
    // is the voice, not the codec), and uses no device; remote only listens.
    localEngine.setAudioProfile(agoraish::AUDIO_PROFILE_MUSIC_STANDARD);
    agoraish::track_id_t track = 0;
    if (int rc = localEngine.createCustomAudioTrack(agoraish::AUDIO_TRACK_MIXABLE, &track); rc != 0) {
        return fail("createCustomAudioTrack", rc);
    }
    say("local", "createCustomAudioTrack(AUDIO_TRACK_MIXABLE) = 0, track ", track);
    agoraish::ChannelMediaOptions options;
    options.publishMicrophoneTrack = false;
    options.publishCustomAudioTrack = true;
    options.publishCustomAudioTrackId = track;
    options.enableAudioRecordingOrPlayout = false;
    remoteEngine.setExternalAudioSink(true, kRate, 1);
    remoteEngine.enableLocalAudio(false);
    if (int rc = localEngine.joinChannel(nullptr, kChannel, 0, options); rc != 0) return fail("joinChannel", rc);
    if (!local.waitJoined(true)) return fail("waiting for onJoinChannelSuccess", -AGORAISH_ERR_TIMEDOUT);
    if (int rc = remoteEngine.joinChannel(nullptr, kChannel, nullptr, 0); rc != 0) return fail("joinChannel", rc);
    if (!remote.waitJoined(true) || !remote.waitPeer(true) || !local.waitPeer(true)) {
        return fail("waiting for the users to see each other", -AGORAISH_ERR_TIMEDOUT);
    }

    // local's voice, 10 ms every 10 ms, until the steps are done.
    std::atomic<bool> talking{true};
    std::thread talker([&] {
        const auto start = Clock::now();
        for (long k = 0; talking; ++k) {
            localEngine.pushExternalAudioFrame(track, voice.data() + (k % 100) * kChunk, kChunk, kRate, 1);
            std::this_thread::sleep_until(start + (k + 1) * 10ms);
        }
    });
    const std::vector<Step> steps = {
        {"as pushed", "", [] { return 0; }},
        {"AINS aggressive",  // noise suppression on the track; gain control off, so that the levels compare
         "setParameters(agc off), enableCustomAudioTrackProcessing(true), setAINSMode(true, AINS_MODE_AGGRESSIVE)",
         [&] {
             int rc = localEngine.setParameters(R"({"che.audio.agc.enable": false})");
             if (rc == 0) rc = localEngine.enableCustomAudioTrackProcessing(track, true);
             return rc != 0 ? rc : localEngine.setAINSMode(true, agoraish::AINS_MODE_AGGRESSIVE);
         }},
        {"beautifier SINGING_BEAUTIFIER", "setVoiceBeautifierParameters(SINGING_BEAUTIFIER, 1 male, 3 hall)",
         [&] { return localEngine.setVoiceBeautifierParameters(agoraish::SINGING_BEAUTIFIER, 1, 3); }},
        {"effect VOICE_CHANGER_EFFECT_HULK", "setAudioEffectPreset(VOICE_CHANGER_EFFECT_HULK)",
         [&] { return localEngine.setAudioEffectPreset(agoraish::VOICE_CHANGER_EFFECT_HULK); }},
        {"conversion VOICE_CHANGER_CHIPMUNK", "setVoiceConversionPreset(VOICE_CHANGER_CHIPMUNK)",
         [&] { return localEngine.setVoiceConversionPreset(agoraish::VOICE_CHANGER_CHIPMUNK); }},
        {"pitch 2.0", "setLocalVoicePitch(2.0)", [&] { return localEngine.setLocalVoicePitch(2.0); }},
    };
    std::vector<Measure> m;
    std::string failed;
    {
        example::Ears ears({&remoteEngine});
        for (const Step& step : steps) {
            const int rc = step.apply();
            if (!step.call.empty()) say("local", step.call, " = ", rc);
            if (rc != 0) {
                failed = step.name;
                break;
            }
            m.push_back(measure(ears, step.name));
        }
    }
    talking = false;
    talker.join();
    // The voice as pushed; the pauses cleared, the voice kept; each preset changed the voice
    // (against the voice without effects); the pitch an octave up.
    if (failed.empty() && std::abs(m[0].f0 - kF0) > 5) failed = steps[0].name;
    const bool suppressed = failed.empty() && std::abs(m[1].f0 - kF0) <= 5 && m[1].pauses <= m[0].pauses - 6 &&
                            m[1].voice >= m[0].voice - 6;
    if (failed.empty() && !suppressed) failed = steps[1].name;
    for (std::size_t i = 2; i < 5 && failed.empty(); ++i) {
        if (!changed(steps[i].name, m[i], m[1])) failed = steps[i].name;
    }
    if (failed.empty() && std::abs(m[5].f0 - 2 * kF0) > 12) failed = steps[5].name;
    if (!failed.empty()) say("remote", "not as expected: ", failed);

    if (int rc = example::part(localEngine, local, remoteEngine, remote); rc != 0) return rc;
    remoteEngine.release();
    localEngine.release();
    std::cout << (failed.empty() ? "done: remote heard the noise suppressed, then each voice effect change the voice"
                                 : "the call did not go as expected")
              << '\n';
    return failed.empty() ? 0 : 1;
}
