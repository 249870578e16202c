// custom_pcm_audio_source.cpp — Agora's CustomPcmAudioSource case in C++:
// the host supplies the audio a user sends, instead of a microphone.
//
//   setAudioProfile -> setExternalAudioSource(rate, channels) -> joinChannel
//   -> pushExternalAudioFrame every 10 ms, in real time -> leaveChannel -> release
//
// "local" pushes a 16-bit PCM WAV file at the file's own rate and channels
// (8, 16, 32, 44.1 or 48 kHz, mono or stereo); the engine converts it to
// 48 kHz, encodes 20 ms Opus frames and sends them. "remote", a second
// engine in the same process, listens through an external sink and reports
// what it heard. Without an argument the example first writes its own WAV,
// demo-out/custom_pcm_audio_source_cpp.wav: three notes (A4, C#5, E5) of one
// second each, 44.1 kHz stereo, and checks that remote heard them in order.
//
// Everything goes through bindings/cpp/agoraish.hpp except two calls the
// header does not have yet (the playback device and enableLocalAudio), which
// use the C API on RtcEngine::nativeHandle().
//
//   make hosts && build/examples/custom_pcm_audio_source_cpp [file.wav]
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
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

namespace {

using example::Clock;
using example::fail;
using example::say;
using namespace std::chrono_literals;

const char* const kChannel = "custom-pcm-audio-source";
constexpr int kSinkRate = 48000;
constexpr int kSinkFrame = kSinkRate / 100;
constexpr double kPi = 3.14159265358979323846;
constexpr int kMaxSeconds = 30;  // longest file pushed
constexpr std::array<double, 3> kNotes{440.0, 554.37, 659.26};  // A4, C#5, E5

std::string fixed(double value, int digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

// A user's channel events, remembered so main can wait for them.
using example::User;

// ---- WAV files ------------------------------------------------------------------

struct Pcm {
    int rate = 0;
    int channels = 0;
    std::vector<int16_t> samples;  // interleaved
    long frames() const { return channels > 0 ? long(samples.size()) / channels : 0; }
};

void putLe(std::ostream& out, uint32_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out.put(char((value >> (8 * i)) & 0xFF));
}

uint32_t getLe(const unsigned char* p, int bytes) {
    uint32_t value = 0;
    for (int i = bytes - 1; i >= 0; --i) value = value << 8 | p[i];
    return value;
}

bool writeWav(const std::string& path, const Pcm& pcm) {
    std::ofstream out(path, std::ios::binary);
    const auto bytes = uint32_t(pcm.samples.size() * 2);
    out << "RIFF";
    putLe(out, 36 + bytes, 4);
    out << "WAVEfmt ";
    putLe(out, 16, 4);
    putLe(out, 1, 2);  // PCM
    putLe(out, uint32_t(pcm.channels), 2);
    putLe(out, uint32_t(pcm.rate), 4);
    putLe(out, uint32_t(pcm.rate * pcm.channels * 2), 4);
    putLe(out, uint32_t(pcm.channels * 2), 2);
    putLe(out, 16, 2);
    out << "data";
    putLe(out, bytes, 4);
    for (int16_t s : pcm.samples) putLe(out, uint16_t(s), 2);
    return bool(out);
}

// A 16-bit PCM WAV with 1 or 2 channels; empty samples when it is not one.
Pcm readWav(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    Pcm pcm;
    unsigned char head[12], chunk[8];
    if (!in.read(reinterpret_cast<char*>(head), 12) || std::string(head, head + 4) != "RIFF"
        || std::string(head + 8, head + 12) != "WAVE") {
        return pcm;
    }
    bool haveFormat = false;
    while (in.read(reinterpret_cast<char*>(chunk), 8)) {
        const uint32_t size = getLe(chunk + 4, 4);
        const std::string id(chunk, chunk + 4);
        std::vector<unsigned char> body(size);
        if (!in.read(reinterpret_cast<char*>(body.data()), std::streamsize(size))) break;
        if (size & 1) in.ignore(1);
        if (id == "fmt " && size >= 16) {
            if (getLe(body.data(), 2) != 1 || getLe(body.data() + 14, 2) != 16) return Pcm();
            pcm.channels = int(getLe(body.data() + 2, 2));
            pcm.rate = int(getLe(body.data() + 4, 4));
            haveFormat = pcm.channels == 1 || pcm.channels == 2;
        } else if (id == "data" && haveFormat) {
            const std::size_t count = std::min<std::size_t>(size / 2, std::size_t(kMaxSeconds) * pcm.rate * pcm.channels);
            for (std::size_t i = 0; i < count; ++i) pcm.samples.push_back(int16_t(getLe(body.data() + 2 * i, 2)));
            return pcm;
        }
    }
    return Pcm();
}

// Three notes, one second each, the same in both channels, with 20 ms fades.
Pcm makeNotes() {
    Pcm pcm;
    pcm.rate = 44100;
    pcm.channels = 2;
    for (double hz : kNotes) {
        for (long j = 0; j < pcm.rate; ++j) {
            const double fade = std::min(1.0, std::min(double(j), double(pcm.rate - j)) / (0.02 * pcm.rate));
            const auto s = int16_t(9000 * fade * std::sin(2 * kPi * hz * double(j) / pcm.rate));
            pcm.samples.push_back(s);
            pcm.samples.push_back(s);
        }
    }
    return pcm;
}

// ---- what remote heard -----------------------------------------------------------

using example::Tone;

// Frequency and level of a tone (example_support.hpp).
Tone analyze(const int16_t* pcm, std::size_t count) { return example::analyzeTone(pcm, count, kSinkRate); }

}  // namespace

int main(int argc, char** argv) {
    const std::string generated = "demo-out/custom_pcm_audio_source_cpp.wav";
    const std::string path = argc > 1 ? argv[1] : generated;
    if (argc <= 1) {
        mkdir("demo-out", 0755);
        if (!writeWav(generated, makeNotes())) {
            std::cerr << "cannot write " << generated << "\n";
            return 1;
        }
        say("local", "wrote ", generated, ": A4, C#5, E5, 1 s each");
    }
    const Pcm pcm = readWav(path);
    if (pcm.samples.empty()) {
        std::cerr << path << ": not a 16-bit PCM WAV file with 1 or 2 channels, or unreadable\n";
        return 1;
    }
    say("local", path, ": ", pcm.rate, " Hz, ", pcm.channels, " channel", pcm.channels == 1 ? "" : "s", ", ",
        fixed(double(pcm.frames()) / pcm.rate, 2), " s");

    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    agoraish::RtcEngine localEngine, remoteEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(remoteEngine, remote, server); rc != 0) return rc;

    // local sends the file: a music profile, stereo when the file is. Nothing
    // it would hear matters here, so its playout goes to ALSA's "null".
    const bool stereo = pcm.channels == 2;
    say("local", "setAudioProfile(MUSIC_STANDARD", stereo ? "_STEREO" : "", ") = ",
        localEngine.setAudioProfile(stereo ? AGORAISH_AUDIO_PROFILE_MUSIC_STANDARD_STEREO
                                           : AGORAISH_AUDIO_PROFILE_MUSIC_STANDARD));
    if (int rc = localEngine.setExternalAudioSource(true, pcm.rate, pcm.channels); rc != 0) {
        return fail("setExternalAudioSource", rc);
    }
    say("local", "setExternalAudioSource(", pcm.rate, " Hz, ", pcm.channels, " ch) = 0");
    agoraish_engine_set_playback_device(localEngine.nativeHandle(), "null");

    // remote only listens: it pulls what it hears and sends nothing.
    remoteEngine.setExternalAudioSink(true, kSinkRate, 1);
    agoraish_engine_enable_local_audio(remoteEngine.nativeHandle(), 0);

    if (int rc = example::meet(kChannel, localEngine, local, remoteEngine, remote); rc != 0) return rc;

    // local pushes the file in real time (10 ms every 10 ms) while remote pulls.
    std::array<int, 6> returned{};
    std::thread pusher([&] {
        const long chunk = pcm.rate / 100;  // 441 samples per channel at 44.1 kHz
        const auto start = Clock::now();
        for (long k = 0; k * chunk < pcm.frames(); ++k) {
            const long n = std::min(chunk, pcm.frames() - k * chunk);
            const int rc = localEngine.pushExternalAudioFrame(pcm.samples.data() + k * chunk * pcm.channels, int(n));
            if (k < long(returned.size())) returned[std::size_t(k)] = rc;
            std::this_thread::sleep_until(start + (k + 1) * 10ms);
        }
    });
    const long listenFrames = long(double(pcm.frames()) / pcm.rate * 100) + 60;  // the file and 600 ms more
    std::vector<int16_t> heard(std::size_t(listenFrames) * kSinkFrame);
    const auto start = Clock::now();
    for (long k = 0; k < listenFrames; ++k) {
        remoteEngine.pullPlaybackAudioFrame(heard.data() + k * kSinkFrame, kSinkFrame);
        std::this_thread::sleep_until(start + (k + 1) * 10ms);
    }
    pusher.join();
    std::ostringstream first;
    for (std::size_t i = 0; i < returned.size(); ++i) first << (i ? ", " : "") << returned[i];
    say("local", "the first pushes of ", pcm.rate / 100, " samples per channel returned ", first.str(),
        " (at 48 kHz, not yet sent)");

    if (int rc = example::part(localEngine, local, remoteEngine, remote); rc != 0) return rc;

    // What remote heard, second by second from the moment sound arrived.
    std::size_t onset = 0;
    while (onset < heard.size() && std::abs(heard[onset]) < 500) ++onset;
    bool ok = onset < heard.size();
    if (!ok) say("remote", "heard nothing");
    for (std::size_t s = 0; ok && onset + (s + 1) * kSinkRate <= heard.size(); ++s) {
        // Each second without its first and last 150 ms.
        const Tone tone = analyze(heard.data() + onset + s * kSinkRate + kSinkRate * 15 / 100, kSinkRate * 70 / 100);
        if (argc > 1) {
            say("remote", "second ", s + 1, ": ", fixed(tone.hz, 0), " Hz at ", fixed(tone.dbfs, 1), " dBFS");
        } else if (s < kNotes.size()) {
            say("remote", "note ", s + 1, ": heard ", fixed(tone.hz, 0), " Hz at ", fixed(tone.dbfs, 1),
                " dBFS (the file has ", fixed(kNotes[s], 0), " Hz)");
            ok = ok && std::abs(tone.hz - kNotes[s]) < 10;
        }
    }

    remoteEngine.release();
    localEngine.release();
    std::cout << (ok ? "done: remote heard what local pushed" : "the call did not go as expected") << '\n';
    return ok ? 0 : 1;
}
