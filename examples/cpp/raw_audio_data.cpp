// raw_audio_data.cpp — Agora's RawAudioData case in C++: a raw audio observer
// sees the audio at the four positions of the audio path, and changes what is
// sent.
//
//   setRecordingAudioFrameParameters, setPlaybackAudioFrameParameters,
//   setMixedAudioFrameParameters, setPlaybackAudioFrameBeforeMixingParameters
//   -> registerAudioFrameObserver(all four positions) -> joinChannel
//   -> onRecordAudioFrame (read-write), onPlaybackAudioFrame,
//      onPlaybackAudioFrameBeforeMixing, onMixedAudioFrame
//   -> registerAudioFrameObserver(nullptr) -> leaveChannel -> release
//
// "local" observes. Its "microphone" is a 440 Hz tone it pushes through an
// external source from a thread named "local-mic"; it plays what it hears on
// ALSA's "null" device, so the playback positions run on the engine's audio
// device thread. "remote", a second engine in the same process, says 660 Hz
// and listens through an external sink.
//
// Each position asks for its own format (rate, channels, samples per call),
// and the example reports what each saw: the format, the callback period, the
// thread, and which of the two tones (and their octave) the audio holds. The
// record observer runs in read-write mode and rectifies the wave (|x| minus
// its mean): local's 440 Hz tone leaves an octave higher, and remote hears
// 880 Hz.
//
// Engines, channels and the external source and sink go through
// bindings/cpp/agoraish.hpp; the header has no raw audio observer yet, so the
// observer, its formats and the playback device use the C API on
// RtcEngine::nativeHandle().
//
//   make hosts && build/examples/raw_audio_data_cpp
#include "agoraish.hpp"
#include "example_support.hpp"

#include <pthread.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace {

using example::Clock;
using example::fail;
using example::say;
using namespace std::chrono_literals;

const char* const kChannel = "raw-audio-data";
constexpr agoraish::uid_t kLocalUid = 1001;
constexpr agoraish::uid_t kRemoteUid = 2002;
constexpr double kPi = 3.14159265358979323846;
constexpr double kLocalHz = 440, kRemoteHz = 660, kAmplitude = 8000;
constexpr long kCallFrames = 300;  // 3 s of 10 ms frames

std::string fixed(double value, int digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

// A user's channel events, remembered so main can wait for them.
using example::User;

// ---- tones in a frame -----------------------------------------------------------------

constexpr std::array<double, 3> kTones{kLocalHz, kRemoteHz, 2 * kLocalHz};

// What frames with sound held: the summed amplitude of each tone and the power.
struct Spectrum {
    std::array<double, kTones.size()> amplitude{};
    double power = 0;
    int frames = 0;

    // Adds one frame (channel 0 of `channels` interleaved) if it is not silent.
    // The amplitude of each tone is a Hann-windowed DFT at its frequency (Goertzel).
    void add(const int16_t* pcm, int count, int channels, int rate) {
        double p = 0;
        for (int i = 0; i < count; ++i) p += double(pcm[i * channels]) * pcm[i * channels];
        p /= count;
        if (count < 2 || p < 100.0 * 100.0) return;
        for (std::size_t t = 0; t < kTones.size(); ++t) {
            const double w = 2 * kPi * kTones[t] / rate, c = 2 * std::cos(w);
            double s1 = 0, s2 = 0, gain = 0;
            for (int i = 0; i < count; ++i) {
                const double hann = 0.5 - 0.5 * std::cos(2 * kPi * i / (count - 1));
                const double s0 = hann * pcm[i * channels] + c * s1 - s2;
                gain += hann;
                s2 = s1;
                s1 = s0;
            }
            amplitude[t] += 2 * std::sqrt(std::max(0.0, s1 * s1 + s2 * s2 - c * s1 * s2)) / gain;
        }
        power += p;
        ++frames;
    }

    // The tones within 10 dB of the frames' whole level, as "660 Hz at -17.8 dBFS".
    std::vector<std::string> tones() const {
        std::vector<std::string> found;
        if (frames == 0) return found;
        const double total = 10 * std::log10(power / frames) - 20 * std::log10(32768.0);
        for (std::size_t t = 0; t < kTones.size(); ++t) {
            const double dbfs = 20 * std::log10(amplitude[t] / frames / std::sqrt(2.0) / 32768.0);
            if (dbfs > total - 10) found.push_back(fixed(kTones[t], 0) + " Hz at " + fixed(dbfs, 1) + " dBFS");
        }
        return found;
    }

    std::string describe() const {
        if (frames == 0) return "silence";
        const std::vector<std::string> found = tones();
        if (found.empty()) return "no known tone";
        std::string text;
        for (const std::string& t : found) text += (text.empty() ? "" : " + ") + t;
        return text;
    }

    bool onlyTone(double hz) const {
        const std::vector<std::string> found = tones();
        return found.size() == 1 && found[0].rfind(fixed(hz, 0) + " Hz", 0) == 0;
    }
};

// ---- the observer --------------------------------------------------------------------------

// A raw audio observer over the C table: each callback reaches this object
// through user_data. What a position saw is written only by that position's
// callbacks, which never overlap; main reads it after unregistering.
class RawAudioObserver {
public:
    struct Position {
        const char* name;
        int calls = 0;
        int rate = 0, channels = 0, samples = 0;  // the first frame's format
        int64_t firstMs = 0, lastMs = 0;         // render_time_ms of the first and last frames
        char thread[16] = "";
        agoraish::uid_t uid = 0;                 // before mixing: the user
        Spectrum heard;
        Spectrum written;                        // record: what the observer handed back
        int nestedPush = 0;                      // record: a push from inside the callback

        explicit Position(const char* n) : name(n) {}

        void saw(const agoraish_audio_frame& f) {
            if (calls++ == 0) {
                rate = f.samples_per_sec;
                channels = f.channels;
                samples = f.samples_per_channel;
                firstMs = f.render_time_ms;
                pthread_getname_np(pthread_self(), thread, sizeof thread);
            }
            lastMs = f.render_time_ms;
            // The first half second is the path starting up.
            if (warm(f)) heard.add(static_cast<const int16_t*>(f.buffer), f.samples_per_channel, f.channels, f.samples_per_sec);
        }
        bool warm(const agoraish_audio_frame& f) const { return f.render_time_ms - firstMs >= 500; }

        void report() const {
            if (calls == 0) {
                say("local", name, ": no callback");
                return;
            }
            char line[160];
            std::snprintf(line, sizeof line, "%-14s %4d calls on %-13s %5d Hz, %d ch, %4d samples every %3.0f ms; ",
                          name, calls, thread, rate, channels, samples,
                          calls > 1 ? double(lastMs - firstMs) / (calls - 1) : 0.0);
            say("local", line, heard.describe());
        }
    };

    Position record{"record"}, playback{"playback"}, mixed{"mixed"}, beforeMixing{"before mixing"};

    agoraish_audio_frame_observer table() {
        agoraish_audio_frame_observer t{};
        t.struct_size = sizeof t;
        t.user_data = this;
        t.observed_position = AGORAISH_AUDIO_FRAME_POSITION_PLAYBACK | AGORAISH_AUDIO_FRAME_POSITION_RECORD
                              | AGORAISH_AUDIO_FRAME_POSITION_MIXED | AGORAISH_AUDIO_FRAME_POSITION_BEFORE_MIXING;
        t.on_record_audio_frame = [](agoraish_engine_t* engine, void* self, agoraish_audio_frame* f) {
            return static_cast<RawAudioObserver*>(self)->onRecordAudioFrame(engine, *f) ? 1 : 0;
        };
        t.on_playback_audio_frame = [](agoraish_engine_t*, void* self, agoraish_audio_frame* f) {
            static_cast<RawAudioObserver*>(self)->playback.saw(*f);
            return 1;
        };
        t.on_mixed_audio_frame = [](agoraish_engine_t*, void* self, agoraish_audio_frame* f) {
            static_cast<RawAudioObserver*>(self)->mixed.saw(*f);
            return 1;
        };
        t.on_playback_audio_frame_before_mixing = [](agoraish_engine_t*, void* self, uint32_t uid,
                                                     agoraish_audio_frame* f) {
            auto* o = static_cast<RawAudioObserver*>(self);
            o->beforeMixing.uid = uid;
            o->beforeMixing.saw(*f);
            return 1;
        };
        return t;
    }

    int totalCalls() const { return record.calls + playback.calls + mixed.calls + beforeMixing.calls; }

private:
    // Local audio before encoding, read-write: rectified, an octave up.
    bool onRecordAudioFrame(agoraish_engine_t* engine, agoraish_audio_frame& f) {
        record.saw(f);
        // Pushing from inside a callback is refused (-5); other calls are allowed.
        if (record.calls == 1) record.nestedPush = agoraish_engine_push_external_audio_frame(engine, nullptr, 0);
        auto* pcm = static_cast<int16_t*>(f.buffer);
        const int n = f.samples_per_channel * f.channels;
        double mean = 0;
        for (int i = 0; i < n; ++i) mean += std::abs(pcm[i]);
        mean /= n;
        for (int i = 0; i < n; ++i) pcm[i] = int16_t(std::clamp(2 * (std::abs(pcm[i]) - mean), -32768.0, 32767.0));
        if (record.warm(f)) record.written.add(pcm, f.samples_per_channel, f.channels, f.samples_per_sec);
        return true;  // keep the frame: what was written is sent
    }
};

// 10 ms of tone every 10 ms at 48 kHz, for the whole call, from a named thread.
void talk(agoraish::RtcEngine& engine, const char* threadName, double hz) {
    pthread_setname_np(pthread_self(), threadName);
    std::array<int16_t, 480> frame;
    const auto start = Clock::now();
    for (long k = 0; k < kCallFrames; ++k) {
        for (int i = 0; i < 480; ++i) frame[std::size_t(i)] = int16_t(kAmplitude * std::sin(2 * kPi * hz * double(k * 480 + i) / 48000));
        engine.pushExternalAudioFrame(frame.data(), 480);
        std::this_thread::sleep_until(start + (k + 1) * 10ms);
    }
}

}  // namespace

int main() {
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    RawAudioObserver observer;
    agoraish::RtcEngine localEngine, remoteEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(remoteEngine, remote, server); rc != 0) return rc;
    agoraish_engine_t* engine = localEngine.nativeHandle();

    // The formats each position delivers, as the case sets them.
    say("local", "setRecordingAudioFrameParameters(44100 Hz, 1 ch, READ_WRITE, 4410) = ",
        agoraish_engine_set_recording_audio_frame_parameters(engine, 44100, 1, AGORAISH_RAW_AUDIO_FRAME_OP_MODE_READ_WRITE,
                                                             4410));
    say("local", "setPlaybackAudioFrameParameters(16000 Hz, 2 ch, READ_ONLY, 10 ms) = ",
        agoraish_engine_set_playback_audio_frame_parameters(engine, 16000, 2, AGORAISH_RAW_AUDIO_FRAME_OP_MODE_READ_ONLY,
                                                            0));
    say("local", "setMixedAudioFrameParameters(44100 Hz, 1 ch, 4410) = ",
        agoraish_engine_set_mixed_audio_frame_parameters(engine, 44100, 1, 4410));
    say("local", "setPlaybackAudioFrameBeforeMixingParameters(32000 Hz, 1 ch) = ",
        agoraish_engine_set_playback_audio_frame_before_mixing_parameters(engine, 32000, 1));
    const agoraish_audio_frame_observer table = observer.table();
    if (int rc = agoraish_engine_register_audio_frame_observer(engine, &table); rc != 0) {
        return fail("registerAudioFrameObserver", rc);
    }
    say("local", "registerAudioFrameObserver(all four positions) = 0");

    // local pushes its voice and plays on "null"; remote pushes and pulls.
    localEngine.setExternalAudioSource(true, 48000, 1);
    agoraish_engine_set_playback_device(engine, "null");
    remoteEngine.setExternalAudioSource(true, 48000, 1);
    remoteEngine.setExternalAudioSink(true, 48000, 1);

    if (int rc = example::meet(kChannel, localEngine, local, remoteEngine, remote, kLocalUid, kRemoteUid); rc != 0) return rc;

    std::thread localVoice(talk, std::ref(localEngine), "local-mic", kLocalHz);
    std::thread remoteVoice(talk, std::ref(remoteEngine), "remote-mic", kRemoteHz);
    std::vector<int16_t> heard(std::size_t(kCallFrames) * 480);
    const auto start = Clock::now();
    for (long k = 0; k < kCallFrames; ++k) {
        remoteEngine.pullPlaybackAudioFrame(heard.data() + k * 480, 480);
        std::this_thread::sleep_until(start + (k + 1) * 10ms);
    }
    localVoice.join();
    remoteVoice.join();

    // After this returns no callback runs: what the observer saw can be read.
    say("local", "registerAudioFrameObserver(nullptr) = ", agoraish_engine_register_audio_frame_observer(engine, nullptr));
    const int callsAtUnregister = observer.totalCalls();
    std::this_thread::sleep_for(300ms);

    if (int rc = example::part(localEngine, local, remoteEngine, remote); rc != 0) return rc;

    observer.record.report();
    say("local", "               the observer sent ", observer.record.written.describe());
    observer.beforeMixing.report();
    say("local", "               (uid ", observer.beforeMixing.uid, ")");
    observer.playback.report();
    observer.mixed.report();
    say("local", "pushExternalAudioFrame from inside onRecordAudioFrame returned ", observer.record.nestedPush, " (",
        agoraish::RtcEngine::getErrorDescription(observer.record.nestedPush), ")");
    const int callsAfter = observer.totalCalls() - callsAtUnregister;
    say("local", "callbacks after unregistering: ", callsAfter);
    const double remoteHeard = example::analyzeTone(heard.data() + 100 * 480, heard.size() - 100 * 480, 48000).hz;
    say("remote", "heard ", fixed(remoteHeard, 0), " Hz from local (local's microphone: ", fixed(kLocalHz, 0), " Hz)");

    const bool ok = observer.record.heard.onlyTone(kLocalHz) && observer.record.written.onlyTone(2 * kLocalHz)
                    && observer.playback.heard.onlyTone(kRemoteHz) && observer.beforeMixing.heard.onlyTone(kRemoteHz)
                    && observer.beforeMixing.uid == kRemoteUid && observer.mixed.heard.frames > 0
                    && observer.record.nestedPush == -AGORAISH_ERR_REFUSED && callsAfter == 0
                    && std::abs(remoteHeard - 2 * kLocalHz) < 10;
    remoteEngine.release();
    localEngine.release();
    std::cout << (ok ? "done: every position saw its audio, and remote heard the changed recording"
                     : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
