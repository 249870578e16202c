// join_channel_audio.cpp — Agora's JoinChannelAudio case in C++: a voice
// call with an audio profile, volume indication and the recording volume,
// against a channel server inside this process.
//
//   setAudioProfile -> enableAudioVolumeIndication -> joinChannel
//   -> onJoinChannelSuccess, onUserJoined, onLocalAudioStateChanged,
//      onFirstRemoteAudioDecoded, onAudioVolumeIndication, onActiveSpeaker
//   -> adjustRecordingSignalVolume: 100, then 200, then 50
//   -> leaveChannel -> onLeaveChannel -> release
//
// "local" is the user of the case: it captures from an ALSA device and plays
// to one. This machine may have no sound card, so the example defines two
// ALSA file plugins in a configuration of its own: the "microphone" reads a
// 440 Hz tone from a raw file and the "speaker" writes what it plays to
// another (docs/audio.md, "Testing without a sound card"). With a sound card,
// leave out the two set_*_device calls and the engine uses ALSA's "default".
//
// bindings/cpp/agoraish.hpp runs the channel server and the remote user, who
// talks (660 Hz) through an external source and listens through an external
// sink. The header has no audio events, volume indication or recording
// volume, so the local user's engine is made and driven through the C API.
//
//   make hosts && build/examples/join_channel_audio_cpp
#include "agoraish.hpp"
#include "example_support.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

const char* const kAppId = "0123456789abcdef0123456789abcdef";
const char* const kChannel = "join-channel-audio";
constexpr agoraish::uid_t kLocalUid = 1001;
constexpr agoraish::uid_t kRemoteUid = 2002;
constexpr int kRate = 48000;
constexpr int kFrame = kRate / 100;  // 10 ms
constexpr double kPi = 3.14159265358979323846;
constexpr double kMicHz = 440, kMicAmplitude = 8000;
constexpr double kRemoteHz = 660, kRemoteAmplitude = 6000;
constexpr int kMicSeconds = 12;  // longer than the call
constexpr std::array<int, 3> kPhaseVolumes{100, 200, 50};
constexpr int kPhaseFrames = 200;  // 2 s of 10 ms frames
constexpr auto kTimeout = 5s;
const Clock::time_point kStart = Clock::now();

// ---- printing -----------------------------------------------------------------

std::string fixed(double value, int digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

std::mutex printMutex;

// One line, prefixed with the time and who says it; callbacks of both engines
// and main print through here, a whole line at a time.
template <typename... Args>
void say(const char* who, const Args&... args) {
    std::ostringstream line;
    const double t = std::chrono::duration<double>(Clock::now() - kStart).count();
    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "%6.2f s  %-6s  ", t, who);
    line << prefix;
    (line << ... << args);
    std::lock_guard<std::mutex> lock(printMutex);
    std::cout << line.str() << '\n';
}

const char* localStateName(int state) {
    static const char* const names[] = {"STOPPED", "RECORDING", "ENCODING", "FAILED"};
    return state >= 0 && state < 4 ? names[state] : "?";
}

const char* remoteStateName(int state) {
    static const char* const names[] = {"STOPPED", "STARTING", "DECODING", "FROZEN", "FAILED"};
    return state >= 0 && state < 5 ? names[state] : "?";
}

const char* remoteReasonName(int reason) {
    static const char* const names[] = {"INTERNAL",      "NETWORK_CONGESTION", "NETWORK_RECOVERY", "LOCAL_MUTED",
                                        "LOCAL_UNMUTED", "REMOTE_MUTED",       "REMOTE_UNMUTED",   "REMOTE_OFFLINE"};
    return reason >= 0 && reason < 8 ? names[reason] : "?";
}

// ---- who is in the channel, as one user sees it ------------------------------------

class Presence {
public:
    void update(const std::function<void(Presence&)>& change) {
        std::lock_guard<std::mutex> lock(mutex_);
        change(*this);
        cond_.notify_all();
    }
    bool waitFor(const std::function<bool(const Presence&)>& done) {
        std::unique_lock<std::mutex> lock(mutex_);
        return cond_.wait_for(lock, kTimeout, [&] { return done(*this); });
    }

    bool joined = false;
    bool left = false;
    agoraish::uid_t peer = 0;

private:
    std::mutex mutex_;
    std::condition_variable cond_;
};

// ---- the local user: an engine made through the C API, for its audio events ---------

class LocalUser {
public:
    ~LocalUser() { release(); }

    int create(const std::string& serverUrl) {
        agoraish_event_handler table{};
        table.struct_size = sizeof table;
        table.user_data = this;
        table.on_join_channel_success = [](agoraish_engine_t*, void* self, const char* channel, uint32_t uid,
                                           int elapsed) {
            say("local", "onJoinChannelSuccess \"", channel, "\" uid ", uid, ", ", elapsed, " ms");
            static_cast<LocalUser*>(self)->presence.update([](Presence& p) { p.joined = true; });
        };
        table.on_user_joined = [](agoraish_engine_t*, void* self, uint32_t uid, int elapsed) {
            say("local", "onUserJoined uid ", uid, ", ", elapsed, " ms");
            static_cast<LocalUser*>(self)->presence.update([uid](Presence& p) { p.peer = uid; });
        };
        table.on_user_offline = [](agoraish_engine_t*, void* self, uint32_t uid, int reason) {
            say("local", "onUserOffline uid ", uid, ", reason ", reason);
            static_cast<LocalUser*>(self)->presence.update([uid](Presence& p) {
                if (p.peer == uid) p.peer = 0;
            });
        };
        table.on_leave_channel = [](agoraish_engine_t*, void* self, const agoraish_rtc_stats* s) {
            say("local", "onLeaveChannel after ", s->duration, " s: sent ", s->tx_bytes, " bytes, received ",
                s->rx_bytes, " bytes");
            static_cast<LocalUser*>(self)->presence.update([](Presence& p) { p.left = true; });
        };
        table.on_error = [](agoraish_engine_t*, void*, int err, const char* msg) {
            say("local", "onError ", err, ": ", msg);
        };
        table.on_local_audio_state_changed = [](agoraish_engine_t*, void*, int state, int error) {
            say("local", "onLocalAudioStateChanged ", localStateName(state), " (error ", error, ")");
        };
        table.on_first_local_audio_frame_published = [](agoraish_engine_t*, void*, int elapsed) {
            say("local", "onFirstLocalAudioFramePublished, ", elapsed, " ms");
        };
        table.on_first_remote_audio_decoded = [](agoraish_engine_t*, void*, uint32_t uid, int elapsed) {
            say("local", "onFirstRemoteAudioDecoded uid ", uid, ", ", elapsed, " ms");
        };
        table.on_remote_audio_state_changed = [](agoraish_engine_t*, void*, uint32_t uid, int state, int reason,
                                                 int elapsed) {
            say("local", "onRemoteAudioStateChanged uid ", uid, " ", remoteStateName(state), " (",
                remoteReasonName(reason), "), ", elapsed, " ms");
        };
        table.on_audio_volume_indication = [](agoraish_engine_t*, void* self, const agoraish_audio_volume_info* speakers,
                                              unsigned int count, int total) {
            static_cast<LocalUser*>(self)->volumes(speakers, count, total);
        };
        table.on_active_speaker = [](agoraish_engine_t*, void*, uint32_t uid) {
            say("local", "onActiveSpeaker uid ", uid);
        };
        table.on_remote_audio_stats = [](agoraish_engine_t*, void*, const agoraish_remote_audio_stats* s) {
            say("local", "onRemoteAudioStats uid ", s->uid, ": quality ", s->quality, ", ", s->received_bitrate,
                " kbps, jitter buffer ", s->jitter_buffer_delay, " ms, end to end ", s->end_to_end_delay, " ms");
        };

        agoraish_engine_config config{};
        config.struct_size = sizeof config;
        config.app_id = kAppId;
        config.event_handler = &table;  // copied
        config.server_url = serverUrl.c_str();
        engine_ = agoraish_engine_create(&config);
        return engine_ != nullptr ? 0 : agoraish_get_last_error();
    }

    // release(sync = 1): afterwards no callback runs, so this object may go.
    void release() {
        if (engine_ != nullptr) agoraish_engine_release(engine_, 1);
        engine_ = nullptr;
    }

    agoraish_engine_t* engine() const { return engine_; }

    Presence presence;

private:
    // A local report (one speaker, uid 0) comes first; in a call a remote
    // report follows at once: they are printed as one line.
    void volumes(const agoraish_audio_volume_info* speakers, unsigned int count, int total) {
        if (count == 1 && speakers[0].uid == 0) {
            localVolume_ = speakers[0].volume;
            localVad_ = speakers[0].vad;
            return;
        }
        std::ostringstream remote;
        for (unsigned int i = 0; i < count; ++i) remote << " uid " << speakers[i].uid << " " << speakers[i].volume;
        if (count == 0) remote << " (nobody)";
        say("local", "onAudioVolumeIndication: local ", localVolume_, " (vad ", localVad_, "); remote", remote.str(),
            ", total ", total);
    }

    agoraish_engine_t* engine_ = nullptr;
    // Written and read on the engine's event thread only.
    unsigned int localVolume_ = 0, localVad_ = 0;
};

// ---- the remote user: bindings/cpp/agoraish.hpp ----------------------------------------

class RemoteHandler : public agoraish::IRtcEngineEventHandler {
public:
    void onJoinChannelSuccess(const char* channel, agoraish::uid_t uid, int elapsed) override {
        say("remote", "onJoinChannelSuccess \"", channel, "\" uid ", uid, ", ", elapsed, " ms");
        presence.update([](Presence& p) { p.joined = true; });
    }
    void onUserJoined(agoraish::uid_t uid, int elapsed) override {
        say("remote", "onUserJoined uid ", uid, ", ", elapsed, " ms");
        presence.update([uid](Presence& p) { p.peer = uid; });
    }
    void onLeaveChannel(const agoraish::RtcStats& stats) override {
        say("remote", "onLeaveChannel after ", stats.duration, " s");
        presence.update([](Presence& p) { p.left = true; });
    }
    void onError(int err, const char* msg) override { say("remote", "onError ", err, ": ", msg); }

    Presence presence;
};

// ---- audio helpers ----------------------------------------------------------------------

int16_t sample(double amplitude, double hz, long index) {
    return int16_t(amplitude * std::sin(2 * kPi * hz * double(index) / kRate));
}

// The example's ALSA devices: a raw file the microphone reads, and a
// configuration that alsa.conf loads from $XDG_CONFIG_HOME/alsa/asoundrc.
bool makeDevices(const fs::path& dir) {
    std::ofstream mic(dir / "mic.raw", std::ios::binary);
    for (long i = 0; i < long(kMicSeconds) * kRate; ++i) {
        const int16_t s = sample(kMicAmplitude, kMicHz, i);
        const char bytes[2] = {char(s & 0xFF), char((s >> 8) & 0xFF)};
        mic.write(bytes, 2);
    }
    fs::create_directory(dir / "alsa");
    std::ofstream conf(dir / "alsa" / "asoundrc");
    conf << "pcm.agoraish_mic {\n    type file\n    slave.pcm null\n    file \"/dev/null\"\n"
         << "    infile \"" << (dir / "mic.raw").string() << "\"\n    format raw\n"
         << "    hint { show on description \"440 Hz tone read from a file\" }\n}\n"
         << "pcm.agoraish_speaker {\n    type file\n    slave.pcm null\n"
         << "    file \"" << (dir / "speaker.raw").string() << "\"\n    format raw\n"
         << "    hint { show on description \"what is played, written to a file\" }\n}\n";
    return mic.good() && conf.good() && setenv("XDG_CONFIG_HOME", dir.c_str(), 1) == 0;
}

// What the speaker played (raw 16-bit mono, 48 kHz): remote's tone, from 300 ms
// after it starts, for up to 2 s.
example::Tone analyzeSpeaker(const fs::path& dir) {
    std::ifstream in(dir / "speaker.raw", std::ios::binary);
    std::vector<int16_t> played;
    char bytes[2];
    while (in.read(bytes, 2)) played.push_back(int16_t(uint16_t(uint8_t(bytes[0]) | uint8_t(bytes[1]) << 8)));
    std::size_t first = 0;
    while (first < played.size() && std::abs(played[first]) < 1000) ++first;
    first += kRate * 3 / 10;
    if (first >= played.size()) return example::Tone();
    return example::analyzeTone(played.data() + first, std::min<std::size_t>(played.size() - first, 2 * kRate), kRate);
}

int fail(const char* what, int rc) {
    std::cerr << what << " failed: " << rc << " (" << agoraish::RtcEngine::getErrorDescription(rc) << ")\n";
    return 1;
}

// Creates a fresh directory for the example's files.
fs::path makeDirectory() {
    std::string name = (fs::temp_directory_path() / "agoraish-join-channel-audio-XXXXXX").string();
    std::vector<char> buffer(name.begin(), name.end());
    buffer.push_back('\0');
    return mkdtemp(buffer.data()) != nullptr ? fs::path(buffer.data()) : fs::path();
}

// Removes the example's directory when main returns.
struct DirectoryGuard {
    fs::path path;
    ~DirectoryGuard() {
        std::error_code ignored;
        if (!path.empty()) fs::remove_all(path, ignored);
    }
};

int run(const fs::path& dir) {
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    RemoteHandler remoteHandler;
    LocalUser local;

    if (int rc = server.initialize(); rc != 0) return fail("ChannelServer::initialize", rc);
    if (int rc = server.start(); rc != 0) return fail("ChannelServer::start", rc);
    say("server", server.url());

    if (int rc = local.create(server.url()); rc != 0) return fail("agoraish_engine_create (local)", rc);
    agoraish::RtcEngineContext context;
    context.appId = kAppId;
    context.serverUrl = server.url();
    context.eventHandler = &remoteHandler;
    agoraish::RtcEngine remote;
    if (int rc = remote.initialize(context); rc != 0) return fail("RtcEngine::initialize (remote)", rc);

    // The case's calls, before joining.
    agoraish_engine_t* engine = local.engine();
    agoraish_engine_set_recording_device(engine, "agoraish_mic");
    agoraish_engine_set_playback_device(engine, "agoraish_speaker");
    say("local", "setAudioProfile(MUSIC_STANDARD) = ",
        agoraish_engine_set_audio_profile(engine, AGORAISH_AUDIO_PROFILE_MUSIC_STANDARD));
    say("local", "enableAudioVolumeIndication(500 ms, smooth 3, vad) = ",
        agoraish_engine_enable_audio_volume_indication(engine, 500, 3, 1));

    // The remote user speaks and listens through the host.
    remote.setExternalAudioSource(true, kRate, 1);
    remote.setExternalAudioSink(true, kRate, 1);

    if (int rc = agoraish_engine_join_channel(engine, nullptr, kChannel, nullptr, kLocalUid); rc != 0) {
        return fail("joinChannel (local)", rc);
    }
    if (!local.presence.waitFor([](const Presence& p) { return p.joined; })) {
        return fail("waiting for onJoinChannelSuccess", -AGORAISH_ERR_TIMEDOUT);
    }
    if (int rc = remote.joinChannel(nullptr, kChannel, nullptr, kRemoteUid); rc != 0) {
        return fail("joinChannel (remote)", rc);
    }
    if (!remoteHandler.presence.waitFor([](const Presence& p) { return p.joined && p.peer != 0; })
        || !local.presence.waitFor([](const Presence& p) { return p.peer != 0; })) {
        return fail("waiting for the users to see each other", -AGORAISH_ERR_TIMEDOUT);
    }

    // The call: remote talks all along; local changes its recording volume
    // every 2 s while remote listens (pulls 10 ms every 10 ms).
    std::thread talker([&remote] {
        std::array<int16_t, kFrame> frame;
        const auto start = Clock::now();
        for (long k = 0; k < long(kPhaseVolumes.size()) * kPhaseFrames + 50; ++k) {
            for (int i = 0; i < kFrame; ++i) frame[i] = sample(kRemoteAmplitude, kRemoteHz, k * kFrame + i);
            remote.pushExternalAudioFrame(frame.data(), kFrame);
            std::this_thread::sleep_until(start + (k + 1) * 10ms);
        }
    });
    std::vector<int16_t> heard(kPhaseVolumes.size() * kPhaseFrames * kFrame);
    const auto start = Clock::now();
    for (std::size_t p = 0; p < kPhaseVolumes.size(); ++p) {
        say("local", "adjustRecordingSignalVolume(", kPhaseVolumes[p],
            ") = ", agoraish_engine_adjust_recording_signal_volume(engine, kPhaseVolumes[p]));
        for (int k = 0; k < kPhaseFrames; ++k) {
            const long frame = long(p) * kPhaseFrames + k;
            remote.pullPlaybackAudioFrame(heard.data() + frame * kFrame, kFrame);
            std::this_thread::sleep_until(start + (frame + 1) * 10ms);
        }
    }
    talker.join();

    remote.leaveChannel();
    if (!remoteHandler.presence.waitFor([](const Presence& p) { return p.left; })
        || !local.presence.waitFor([](const Presence& p) { return p.peer == 0; })) {
        return fail("waiting for the remote user to leave", -AGORAISH_ERR_TIMEDOUT);
    }
    agoraish_engine_leave_channel(engine);
    if (!local.presence.waitFor([](const Presence& p) { return p.left; })) {
        return fail("waiting for onLeaveChannel", -AGORAISH_ERR_TIMEDOUT);
    }

    // What remote heard of local in each phase (from 600 ms into it, past the
    // path's delay), and what local's speaker played of remote.
    bool ok = true;
    example::Tone first;
    for (std::size_t p = 0; p < kPhaseVolumes.size(); ++p) {
        const std::size_t from = (p * kPhaseFrames + 60) * kFrame, to = (p + 1) * kPhaseFrames * kFrame;
        const example::Tone tone = example::analyzeTone(heard.data() + from, to - from, kRate);
        if (p == 0) first = tone;
        const double change = tone.dbfs - first.dbfs;
        say("remote", "heard ", fixed(tone.hz, 0), " Hz at ", fixed(tone.dbfs, 1), " dBFS (",
            change >= 0 ? "+" : "", fixed(change, 1), " dB) while local's recording volume was ", kPhaseVolumes[p]);
        ok = ok && std::abs(tone.hz - kMicHz) < 10
             && std::abs(change - 20 * std::log10(kPhaseVolumes[p] / 100.0)) < 1.5;
    }
    const example::Tone played = analyzeSpeaker(dir);
    say("local", "its speaker played ", fixed(played.hz, 0), " Hz at ", fixed(played.dbfs, 1), " dBFS (remote sent ",
        fixed(kRemoteHz, 0), " Hz)");
    ok = ok && std::abs(played.hz - kRemoteHz) < 10;

    remote.release();
    local.release();
    std::cout << (ok ? "done: local was heard at each recording volume and heard remote"
                     : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}

}  // namespace

int main() {
    DirectoryGuard dir{makeDirectory()};
    if (dir.path.empty() || !makeDevices(dir.path)) {
        std::cerr << "cannot write the example's ALSA devices\n";
        return 1;
    }
    return run(dir.path);
}
