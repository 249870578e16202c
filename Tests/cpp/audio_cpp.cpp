// audio_cpp.cpp — the audio part of bindings/cpp/agoraish.hpp (ABI 0.4), from C++.
//
// User 1 pushes a 1 kHz tone through an external source, user 2 pulls what it
// hears; the main thread drives both in real time, 10 ms per call. Checked:
// the level heard, adjustPlaybackSignalVolume, an IAudioFrameObserver that
// halves the sender's audio in read-write mode and one that measures the
// receiver's, muting, the audio callbacks of IRtcEngineEventHandler (first
// frames, volume indication, active speaker, call, local and remote
// statistics), recording to a WAV file, devices, and the codes of bad calls.
#define TEST_NAME "audio_cpp"
#include "test_support.hpp"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <fstream>

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr int kRate = 48000;
constexpr int kChunk = kRate / 100;  // 10 ms
constexpr double kAmplitude = 8000.0;
constexpr double kPi = 3.14159265358979323846;
constexpr agoraish::uid_t kSender = 1;
constexpr agoraish::uid_t kReceiver = 2;
const std::string kApp = "0123456789abcdef0123456789abcdef";
constexpr auto kWait = 20s;

/// One audio event, with the fields its kind uses.
struct Event {
    std::string name;
    agoraish::uid_t uid = 0;
    int a = 0;
    int b = 0;
    agoraish::RtcStats rtc;
    agoraish::LocalAudioStats local;
    agoraish::RemoteAudioStats remote;
    std::vector<agoraish::AudioVolumeInfo> speakers;
};

class Handler : public agoraish::IRtcEngineEventHandler, public test_support::EventLog<Event> {
public:
    void onJoinChannelSuccess(const char*, agoraish::uid_t uid, int) override { add("join", uid); }
    void onFirstLocalAudioFramePublished(int elapsed) override { add("firstLocal", 0, elapsed); }
    void onFirstRemoteAudioFrame(agoraish::uid_t uid, int elapsed) override { add("firstRemoteFrame", uid, elapsed); }
    void onFirstRemoteAudioDecoded(agoraish::uid_t uid, int elapsed) override {
        add("firstRemoteDecoded", uid, elapsed);
    }
    void onUserMuteAudio(agoraish::uid_t uid, bool muted) override { add("userMuteAudio", uid, muted ? 1 : 0); }
    void onLocalAudioStateChanged(agoraish::LOCAL_AUDIO_STREAM_STATE state,
                                  agoraish::LOCAL_AUDIO_STREAM_ERROR error) override {
        add("localState", 0, state, error);
    }
    void onRemoteAudioStateChanged(agoraish::uid_t uid, agoraish::REMOTE_AUDIO_STATE state,
                                   agoraish::REMOTE_AUDIO_STATE_REASON reason, int) override {
        add("remoteState", uid, state, reason);
    }
    void onAudioVolumeIndication(const agoraish::AudioVolumeInfo* speakers, unsigned int speakerNumber,
                                 int totalVolume) override {
        Event e;
        e.name = "volume";
        e.a = totalVolume;
        if (speakers != nullptr) e.speakers.assign(speakers, speakers + speakerNumber);
        record(std::move(e));
    }
    void onActiveSpeaker(agoraish::uid_t uid) override { add("activeSpeaker", uid); }
    void onRtcStats(const agoraish::RtcStats& stats) override {
        Event e;
        e.name = "rtcStats";
        e.rtc = stats;
        record(std::move(e));
    }
    void onLocalAudioStats(const agoraish::LocalAudioStats& stats) override {
        Event e;
        e.name = "localStats";
        e.local = stats;
        record(std::move(e));
    }
    void onRemoteAudioStats(const agoraish::RemoteAudioStats& stats) override {
        Event e;
        e.name = "remoteStats";
        e.uid = stats.uid;
        e.remote = stats;
        record(std::move(e));
    }

    /// Waits for an event `name` (from index `from`) that `match` accepts.
    bool waitFor(const std::string& name, const std::function<bool(const Event&)>& match, Event* out = nullptr,
                 std::size_t from = 0) {
        return waitForMatch(from, [&](const Event& e) { return e.name == name && match(e); }, kWait, out) >= 0;
    }

private:
    void add(const char* name, agoraish::uid_t uid, int a = 0, int b = 0) {
        Event e;
        e.name = name;
        e.uid = uid;
        e.a = a;
        e.b = b;
        record(std::move(e));
    }
};

/// Halves (or zeroes) the sender's audio before encoding, in read-write mode.
class RecordScaler : public agoraish::IAudioFrameObserver {
public:
    std::atomic<int> divisor{1};
    std::atomic<int> calls{0};
    std::atomic<int> badFormat{0};

    bool onRecordAudioFrame(AudioFrame& frame) override {
        ++calls;
        if (frame.samplesPerChannel != kChunk || frame.channels != 1 || frame.samplesPerSec != kRate ||
            frame.bytesPerSample != 2 || frame.samples() == nullptr) {
            ++badFormat;
            return true;
        }
        const int d = divisor.load();
        if (d == 0) return false;  // discarded: silence
        for (std::size_t i = 0; i < frame.sampleCount(); ++i) {
            frame.samples()[i] = static_cast<std::int16_t>(frame.samples()[i] / d);
        }
        return true;
    }
    int getObservedAudioFramePosition() override { return agoraish::AUDIO_FRAME_POSITION_RECORD; }
};

/// Measures what the receiver plays, and who is mixed.
class PlaybackMeter : public agoraish::IAudioFrameObserver {
public:
    std::atomic<int> frames{0};
    std::atomic<int> beforeMixingFromSender{0};
    std::atomic<int> beforeMixingOther{0};
    std::atomic<int> mixed{0};

    bool onPlaybackAudioFrame(AudioFrame& frame) override {
        if (frame.sampleCount() == static_cast<std::size_t>(kChunk) && frame.renderTimeMs > 0) ++frames;
        return true;
    }
    bool onPlaybackAudioFrameBeforeMixing(agoraish::uid_t uid, AudioFrame& frame) override {
        (void)frame;
        ++(uid == kSender ? beforeMixingFromSender : beforeMixingOther);
        return true;
    }
    bool onMixedAudioFrame(AudioFrame& frame) override {
        (void)frame;
        ++mixed;
        return true;
    }
    int getObservedAudioFramePosition() override {
        return agoraish::AUDIO_FRAME_POSITION_PLAYBACK | agoraish::AUDIO_FRAME_POSITION_BEFORE_MIXING |
               agoraish::AUDIO_FRAME_POSITION_MIXED;
    }
};

/// Pushes the tone on `a` and pulls on `b`, 10 ms per call in real time.
class Pump {
public:
    Pump(agoraish::RtcEngine& a, agoraish::RtcEngine& b) : a_(a), b_(b), start_(Clock::now()) {}

    /// Runs `ms` of audio; returns the level of what was pulled, in dB relative to the tone pushed.
    double run(int ms) {
        std::vector<std::int16_t> out(static_cast<std::size_t>(kChunk));
        std::vector<std::int16_t> in(static_cast<std::size_t>(kChunk));
        double sum = 0;
        long count = 0;
        for (int k = 0; k < ms / 10; ++k) {
            for (int i = 0; i < kChunk; ++i, ++sample_) {
                in[static_cast<std::size_t>(i)] =
                    static_cast<std::int16_t>(kAmplitude * std::sin(2 * kPi * 1000.0 * (sample_ % kRate) / kRate));
            }
            if (a_.pushExternalAudioFrame(in.data(), kChunk) < 0) ++errors;
            if (b_.pullPlaybackAudioFrame(out.data(), kChunk) != 0) ++errors;
            for (std::int16_t s : out) sum += static_cast<double>(s) * s;
            count += kChunk;
            ++ticks_;
            std::this_thread::sleep_until(start_ + std::chrono::milliseconds(10 * ticks_));
        }
        const double rms = std::sqrt(sum / static_cast<double>(count > 0 ? count : 1));
        return 20 * std::log10(std::max(rms, 1e-3) / (kAmplitude / std::sqrt(2.0)));
    }

    /// Pumps 200 ms windows until `accept(level)` or the wait ends; returns the last level.
    double until(const std::function<bool(double)>& accept) {
        const auto deadline = Clock::now() + kWait;
        double level = run(200);
        while (!accept(level) && Clock::now() < deadline) level = run(200);
        return level;
    }

    int errors = 0;

private:
    agoraish::RtcEngine& a_;
    agoraish::RtcEngine& b_;
    Clock::time_point start_;
    long ticks_ = 0;
    long sample_ = 0;
};

std::string fmt(double v) { return std::to_string(v); }

void callStory(const std::string& url, const std::string& dir) {
    Handler ha, hb;
    agoraish::RtcEngine a, b;
    CHECK_RC(a.initialize(test_support::contextFor(kApp, &ha, dir + "/a.log", url)), 0, "A initialize");
    CHECK_RC(b.initialize(test_support::contextFor(kApp, &hb, dir + "/b.log", url)), 0, "B initialize");
    CHECK_RC(a.setAudioProfile(agoraish::AUDIO_PROFILE_DEFAULT), 0, "setAudioProfile");
    CHECK_RC(a.setExternalAudioSource(true, kRate, 1), 0, "A setExternalAudioSource");
    CHECK_RC(b.setExternalAudioSink(true, kRate, 1), 0, "B setExternalAudioSink");
    CHECK_RC(a.enableAudioVolumeIndication(200, 3, true), 0, "A enableAudioVolumeIndication");
    CHECK_RC(b.enableAudioVolumeIndication(200, 3, true), 0, "B enableAudioVolumeIndication");
    CHECK_RC(a.joinChannel(nullptr, "audio-cpp", nullptr, kSender), 0, "A join");
    CHECK_RC(b.joinChannel(nullptr, "audio-cpp", nullptr, kReceiver), 0, "B join");
    CHECK(ha.waitFor("join", [](const Event&) { return true; }), "A joined");
    CHECK(hb.waitFor("join", [](const Event&) { return true; }), "B joined");

    Pump pump(a, b);
    double level = pump.until([](double db) { return std::fabs(db) < 1.0; });
    CHECK(std::fabs(level) < 1.0, "the tone is heard within 1 dB: " + fmt(level));
    level = pump.run(1000);
    CHECK(std::fabs(level) < 1.0, "over 1 s: " + fmt(level));

    // Playback volume 50: about -6 dB.
    CHECK_RC(b.adjustPlaybackSignalVolume(50), 0, "adjustPlaybackSignalVolume(50)");
    pump.run(300);
    level = pump.run(1000);
    CHECK(std::fabs(level + 6.02) < 1.0, "playback volume 50: " + fmt(level));
    CHECK_RC(b.adjustPlaybackSignalVolume(100), 0, "adjustPlaybackSignalVolume(100)");

    // An observer at the receiver sees every played frame and the sender before mixing.
    PlaybackMeter meter;
    CHECK_RC(b.setPlaybackAudioFrameParameters(kRate, 1, agoraish::RAW_AUDIO_FRAME_OP_MODE_READ_ONLY, 0), 0,
             "setPlaybackAudioFrameParameters");
    CHECK_RC(b.setMixedAudioFrameParameters(kRate, 1, 0), 0, "setMixedAudioFrameParameters");
    CHECK_RC(b.setPlaybackAudioFrameBeforeMixingParameters(kRate, 1), 0, "setPlaybackAudioFrameBeforeMixingParameters");
    CHECK_RC(b.registerAudioFrameObserver(&meter), 0, "B registerAudioFrameObserver");
    pump.run(500);
    CHECK(meter.frames >= 45, "playback frames: " + std::to_string(meter.frames.load()));
    CHECK(meter.beforeMixingFromSender >= 45 && meter.beforeMixingOther == 0,
          "before mixing: " + std::to_string(meter.beforeMixingFromSender.load()));
    CHECK(meter.mixed >= 45, "mixed frames: " + std::to_string(meter.mixed.load()));
    CHECK_RC(b.registerAudioFrameObserver(nullptr), 0, "B unregister");
    const int frames = meter.frames;
    pump.run(100);
    CHECK(meter.frames == frames, "no callback after unregistering");

    // A read-write observer at the sender halves the audio: about -6 dB at the receiver.
    RecordScaler scaler;
    scaler.divisor = 2;
    CHECK_RC(a.setRecordingAudioFrameParameters(kRate, 1, agoraish::RAW_AUDIO_FRAME_OP_MODE_READ_WRITE, 0), 0,
             "setRecordingAudioFrameParameters");
    CHECK_RC(a.registerAudioFrameObserver(&scaler), 0, "A registerAudioFrameObserver");
    pump.run(600);
    level = pump.run(1000);
    CHECK(std::fabs(level + 6.02) < 1.0, "halved at the sender: " + fmt(level));
    CHECK(scaler.calls > 100 && scaler.badFormat == 0, "record frames: " + std::to_string(scaler.calls.load()));
    scaler.divisor = 0;
    level = pump.until([](double db) { return db < -60; });
    CHECK(level < -60, "discarded at the sender: " + fmt(level));
    CHECK_RC(a.registerAudioFrameObserver(nullptr), 0, "A unregister");
    level = pump.until([](double db) { return std::fabs(db) < 1.0; });
    CHECK(std::fabs(level) < 1.0, "unchanged after unregistering: " + fmt(level));

    // Recording what B plays.
    agoraish::AudioRecordingConfiguration rec;
    rec.filePath = dir + "/played.wav";
    rec.sampleRate = 16000;
    rec.position = agoraish::AUDIO_RECORDING_POSITION_MIXED_PLAYBACK;
    CHECK_RC(b.startAudioRecording(rec), 0, "startAudioRecording");
    pump.run(1000);
    CHECK_RC(b.stopAudioRecording(), 0, "stopAudioRecording");
    std::ifstream wav(rec.filePath, std::ios::binary | std::ios::ate);
    const auto size = static_cast<long>(wav.tellg());
    CHECK(size > 44 + 16000 && size < 44 + 2 * 16000 * 2, "WAV size " + std::to_string(size));

    // Events.
    Event e;
    CHECK(ha.waitFor("firstLocal", [](const Event& ev) { return ev.a >= 0; }), "A onFirstLocalAudioFramePublished");
    CHECK(ha.waitFor("localState", [](const Event& ev) {
              return ev.a == agoraish::LOCAL_AUDIO_STREAM_STATE_ENCODING && ev.b == agoraish::LOCAL_AUDIO_STREAM_ERROR_OK;
          }),
          "A onLocalAudioStateChanged ENCODING");
    CHECK(hb.waitFor("firstRemoteFrame", [](const Event& ev) { return ev.uid == kSender; }), "B onFirstRemoteAudioFrame");
    CHECK(hb.waitFor("firstRemoteDecoded", [](const Event& ev) { return ev.uid == kSender; }),
          "B onFirstRemoteAudioDecoded");
    CHECK(hb.waitFor("remoteState", [](const Event& ev) {
              return ev.uid == kSender && ev.a == agoraish::REMOTE_AUDIO_STATE_DECODING;
          }),
          "B onRemoteAudioStateChanged DECODING");
    CHECK(hb.waitFor("volume",
                     [](const Event& ev) {
                         for (const auto& s : ev.speakers)
                             if (s.uid == kSender && s.volume > 20 && s.volume <= 255 && s.vad == 1) return true;
                         return false;
                     },
                     &e),
          "B onAudioVolumeIndication with the sender");
    CHECK(e.a > 0 && e.a <= 255, "total volume " + std::to_string(e.a));
    CHECK(hb.waitFor("activeSpeaker", [](const Event& ev) { return ev.uid == kSender; }), "B onActiveSpeaker");
    CHECK(ha.waitFor("rtcStats", [](const Event& ev) { return ev.rtc.txAudioKBitRate > 0; }, &e),
          "A onRtcStats with a rate");
    CHECK(e.rtc.userCount == 2 && e.rtc.txAudioBytes > 0 && e.rtc.memoryAppUsageInKbytes > 0 &&
              e.rtc.cpuAppUsage >= 0.0 && e.rtc.txBytes >= e.rtc.txAudioBytes,
          "A rtc stats: users " + std::to_string(e.rtc.userCount) + ", audio bytes " +
              std::to_string(e.rtc.txAudioBytes));
    CHECK(hb.waitFor("rtcStats", [](const Event& ev) { return ev.rtc.rxAudioKBitRate > 0; }, &e),
          "B onRtcStats with a rate");
    CHECK(e.rtc.rxAudioBytes > 0 && e.rtc.rxKBitRate >= e.rtc.rxAudioKBitRate, "B rtc stats");
    CHECK(ha.waitFor("localStats", [](const Event& ev) { return ev.local.sentBitrate > 0; }, &e), "A onLocalAudioStats");
    CHECK(e.local.numChannels == 1 && e.local.sentSampleRate == kRate, "A local stats");
    CHECK(hb.waitFor("remoteStats", [](const Event& ev) { return ev.uid == kSender; }, &e), "B onRemoteAudioStats");
    CHECK(e.remote.numChannels == 1 && e.remote.receivedSampleRate == kRate && e.remote.receivedBitrate > 0 &&
              e.remote.quality >= 1 && e.remote.quality <= 2 && e.remote.endToEndDelay > 0 &&
              e.remote.totalActiveTime > 0,
          "B remote stats: rate " + std::to_string(e.remote.receivedSampleRate) + ", quality " +
              std::to_string(e.remote.quality));

    // Muting the sender: B is told, and hears silence.
    const std::size_t mark = hb.count();
    CHECK_RC(a.muteLocalAudioStream(true), 0, "muteLocalAudioStream(true)");
    CHECK(hb.waitFor("userMuteAudio", [](const Event& ev) { return ev.uid == kSender && ev.a == 1; }, nullptr, mark),
          "B onUserMuteAudio(1, true)");
    level = pump.until([](double db) { return db < -60; });
    CHECK(level < -60, "silence while muted: " + fmt(level));
    CHECK_RC(a.muteLocalAudioStream(false), 0, "muteLocalAudioStream(false)");
    CHECK(hb.waitFor("userMuteAudio", [](const Event& ev) { return ev.uid == kSender && ev.a == 0; }, nullptr, mark),
          "B onUserMuteAudio(1, false)");

    CHECK(pump.errors == 0, "push and pull errors: " + std::to_string(pump.errors));
    CHECK(ha.onCallerThread() == 0 && hb.onCallerThread() == 0, "no event on the caller's thread");
    CHECK_RC(a.release(true), 0, "A release");
    CHECK_RC(b.release(true), 0, "B release");
}

void argumentStory(const std::string& dir) {
    agoraish::RtcEngine e;
    CHECK_RC(e.initialize(test_support::contextFor(kApp, nullptr, dir + "/args.log", "ws://127.0.0.1:1")), 0,
             "initialize");
    CHECK_RC(e.adjustPlaybackSignalVolume(401), -2, "adjustPlaybackSignalVolume(401)");
    CHECK_RC(e.adjustUserPlaybackSignalVolume(0, 50), -2, "adjustUserPlaybackSignalVolume uid 0");
    CHECK_RC(e.muteRemoteAudioStream(0, true), -2, "muteRemoteAudioStream uid 0");
    CHECK_RC(e.enableAudioVolumeIndication(5, 3, false), -2, "enableAudioVolumeIndication(5)");
    CHECK_RC(e.setRecordingAudioFrameParameters(22050, 1, agoraish::RAW_AUDIO_FRAME_OP_MODE_READ_ONLY, 0), -2,
             "setRecordingAudioFrameParameters(22050)");
    CHECK_RC(e.setPlaybackAudioFrameParameters(48000, 3, agoraish::RAW_AUDIO_FRAME_OP_MODE_READ_ONLY, 0), -2,
             "setPlaybackAudioFrameParameters 3 channels");
    RecordScaler observer;
    CHECK_RC(e.registerAudioFrameObserver(&observer, 0x10), -2, "registerAudioFrameObserver unknown bits");
    CHECK_RC(e.registerAudioFrameObserver(nullptr), 0, "registerAudioFrameObserver(nullptr)");
    CHECK_RC(e.startAudioRecording((dir + "/x.wav").c_str(), 8000, agoraish::AUDIO_RECORDING_QUALITY_LOW), -2,
             "startAudioRecording 8 kHz");
    CHECK_RC(e.startAudioRecording((dir + "/missing/x.wav").c_str(), 32000, agoraish::AUDIO_RECORDING_QUALITY_LOW),
             -1, "startAudioRecording into a missing directory");
    CHECK_RC(e.startAudioRecording(nullptr, 32000, agoraish::AUDIO_RECORDING_QUALITY_LOW), -2,
             "startAudioRecording nullptr");
    CHECK_RC(e.getAudioDeviceCount(static_cast<agoraish::MEDIA_DEVICE_TYPE>(2)), -2, "getAudioDeviceCount(2)");
    agoraish::AudioDeviceInfo info;
    info.deviceId = "untouched";
    CHECK_RC(e.getAudioDevice(agoraish::AUDIO_PLAYOUT_DEVICE, -1, info), -2, "getAudioDevice(-1)");
    CHECK(info.deviceId == "untouched", "a failed getAudioDevice leaves the output");
    std::vector<agoraish::AudioDeviceInfo> devices;
    CHECK_RC(e.enumerateRecordingDevices(devices), 0, "enumerateRecordingDevices");
    CHECK(static_cast<int>(devices.size()) == e.getAudioDeviceCount(agoraish::AUDIO_RECORDING_DEVICE),
          "every recording device listed");
    CHECK_RC(e.enumeratePlaybackDevices(devices), 0, "enumeratePlaybackDevices");
    std::string id;
    CHECK_RC(e.getRecordingDevice(id), 0, "getRecordingDevice");
    CHECK(id == "default", "recording device " + id);
    CHECK_RC(e.setPlaybackDevice(""), -2, "setPlaybackDevice empty");
    CHECK_RC(e.setPlaybackDevice("hw:9,9"), 0, "setPlaybackDevice");
    CHECK_RC(e.getPlaybackDevice(id), 0, "getPlaybackDevice");
    CHECK(id == "hw:9,9", "playback device " + id);
    CHECK_RC(e.startRecordingDeviceTest(5), -2, "startRecordingDeviceTest(5)");
    CHECK_RC(e.startAudioDeviceLoopbackTest(100), 0, "startAudioDeviceLoopbackTest");
    CHECK_RC(e.stopAudioDeviceLoopbackTest(), 0, "stopAudioDeviceLoopbackTest");
    CHECK_RC(e.startPlaybackDeviceTest((dir + "/none.wav").c_str()), -2, "startPlaybackDeviceTest missing file");
    CHECK_RC(e.stopPlaybackDeviceTest(), 0, "stopPlaybackDeviceTest");
    CHECK_RC(e.enableLocalAudio(false), 0, "enableLocalAudio");
    CHECK_RC(e.disableAudio(), 0, "disableAudio");
    CHECK_RC(e.enableAudio(), 0, "enableAudio");
    CHECK_RC(e.muteAllRemoteAudioStreams(true), 0, "muteAllRemoteAudioStreams");
    CHECK_RC(e.setDefaultMuteAllRemoteAudioStreams(true), 0, "setDefaultMuteAllRemoteAudioStreams");

    agoraish::RtcEngine empty;  // holds no engine: -7 everywhere
    CHECK_RC(empty.enableAudio(), -7, "no engine: enableAudio");
    CHECK_RC(empty.registerAudioFrameObserver(&observer), -7, "no engine: registerAudioFrameObserver");
    CHECK_RC(empty.stopAudioRecording(), -7, "no engine: stopAudioRecording");
    CHECK_RC(empty.getRecordingDevice(id), -7, "no engine: getRecordingDevice");
    CHECK_RC(empty.enumeratePlaybackDevices(devices), -7, "no engine: enumeratePlaybackDevices");
}

}  // namespace

int main() {
    const test_support::TempDir tmp("agoraish-audio-cpp");  // removed last
    if (!tmp) return 1;
    {
        agoraish::ChannelServerConfig config;
        config.configJson = R"({"limits": {"joins_per_second_per_address": 1000}})";
        agoraish::ChannelServer server;  // declared before the engines: it outlives them
        CHECK_RC(server.initialize(config), 0, "ChannelServer initialize");
        CHECK_RC(server.start(), 0, "ChannelServer start");
        const std::string url = server.url();
        if (!url.empty()) callStory(url, tmp.path());
        argumentStory(tmp.path());
    }
    return test_support::summary();
}
