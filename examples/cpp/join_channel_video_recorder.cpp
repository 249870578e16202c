// join_channel_video_recorder.cpp — Agora's JoinChannelVideo(Recorder) case in
// C++: a video call in which each user records a stream of it to an MP4 file
// with the media recorder.
//
//   joinChannel -> createMediaRecorder(RecorderStreamInfo(channel, uid))
//   -> setMediaRecorderObserver -> startRecording(MediaRecorderConfiguration)
//   -> onRecorderStateChanged(START) -> onRecorderInfoUpdated every second
//   -> stopRecording (the file is complete) -> onRecorderStateChanged(STOP)
//   -> destroyMediaRecorder -> leaveChannel -> release
//
// "local" sends what its "camera" and "microphone" give: a thread pushes a
// 320x240 picture with a bright square moving across it 15 times a second
// through an external video source, and a 440 Hz tone 10 ms every 10 ms
// through an external audio source. local records itself (uid 0: what it
// sends) into demo-out/join_channel_video_recorder_local.mp4; "remote", a
// second engine in the same process, watches and listens (its playout is an
// external sink, pulled in real time) and records local as received (local's
// uid) into demo-out/join_channel_video_recorder_remote.mp4. After four
// seconds both stop; the example checks each file with ffprobe: an H.264
// stream of 320x240 with its pictures and an AAC stream, about four seconds
// long, and with ffmpeg that the tone is in the sound.
//
//   make hosts && build/examples/join_channel_video_recorder_cpp
#include "agoraish.hpp"
#include "example_support.hpp"

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using example::Clock;
using example::fail;
using example::say;
using namespace std::chrono_literals;

const char* const kChannel = "join-channel-video-recorder";
const char* const kLocalFile = "demo-out/join_channel_video_recorder_local.mp4";
const char* const kRemoteFile = "demo-out/join_channel_video_recorder_remote.mp4";
constexpr int kWidth = 320, kHeight = 240, kFps = 15;
constexpr int kToneHz = 440;
constexpr int kRecordMs = 4000;
constexpr double kPi = 3.14159265358979323846;

std::string fixed(double value, int digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

const char* name(agoraish::RecorderState state) {
    switch (state) {
    case agoraish::RECORDER_STATE_ERROR: return "ERROR";
    case agoraish::RECORDER_STATE_START: return "START";
    case agoraish::RECORDER_STATE_STOP: return "STOP";
    }
    return "?";
}

const char* name(agoraish::RecorderReasonCode reason) {
    switch (reason) {
    case agoraish::RECORDER_REASON_NONE: return "NONE";
    case agoraish::RECORDER_REASON_WRITE_FAILED: return "WRITE_FAILED";
    case agoraish::RECORDER_REASON_NO_STREAM: return "NO_STREAM";
    case agoraish::RECORDER_REASON_OVER_MAX_DURATION: return "OVER_MAX_DURATION";
    case agoraish::RECORDER_REASON_CONFIG_CHANGED: return "CONFIG_CHANGED";
    }
    return "?";
}

// A user's channel events.
class User : public example::User {
public:
    using example::User::User;

    void onFirstRemoteVideoDecoded(agoraish::uid_t uid, int width, int height, int elapsed) override {
        say(name_, "onFirstRemoteVideoDecoded uid ", uid, ", ", width, "x", height, ", ", elapsed, " ms");
    }
    void onFirstRemoteAudioDecoded(agoraish::uid_t uid, int elapsed) override {
        say(name_, "onFirstRemoteAudioDecoded uid ", uid, ", ", elapsed, " ms");
    }
};

// A recorder's states and updates, on the engine's event thread; it must outlive the engine.
class RecorderEvents : public agoraish::IMediaRecorderObserver {
public:
    explicit RecorderEvents(const char* who) : who_(who) {}

    void onRecorderStateChanged(const char* channelId, agoraish::uid_t uid, agoraish::RecorderState state,
                                agoraish::RecorderReasonCode reason) override {
        say(who_, "onRecorderStateChanged \"", channelId, "\" uid ", uid, ": ", name(state), " (", name(reason), ")");
        std::lock_guard<std::mutex> lock(mutex_);
        if (state == agoraish::RECORDER_STATE_START) started_ = true;
        if (state != agoraish::RECORDER_STATE_START) {
            stopped_ = true;
            stoppedWell_ = state == agoraish::RECORDER_STATE_STOP && reason == agoraish::RECORDER_REASON_NONE;
        }
        cond_.notify_all();
    }
    void onRecorderInfoUpdated(const char*, agoraish::uid_t uid, const agoraish::RecorderInfo& info) override {
        say(who_, "onRecorderInfoUpdated uid ", uid, ": ", info.fileName, ", ", info.durationMs, " ms, ", info.fileSize,
            " bytes");
        std::lock_guard<std::mutex> lock(mutex_);
        ++updates_;
    }

    bool waitStarted() {
        std::unique_lock<std::mutex> lock(mutex_);
        return cond_.wait_for(lock, example::kTimeout, [&] { return started_; });
    }
    // Waits for STOP (or ERROR); whether it was STOP with reason NONE after two updates or more.
    bool waitStoppedWell() {
        std::unique_lock<std::mutex> lock(mutex_);
        return cond_.wait_for(lock, example::kTimeout, [&] { return stopped_; }) && stoppedWell_ && updates_ >= 2;
    }

private:
    const char* who_;
    std::mutex mutex_;
    std::condition_variable cond_;
    // Guarded by mutex_.
    bool started_ = false, stopped_ = false, stoppedWell_ = false;
    int updates_ = 0;
};

// remote's canvas of local: counts the pictures.
class Counter : public agoraish::IVideoSink {
public:
    void onFrame(agoraish::uid_t, const agoraish::VideoFrame&) override { ++pictures; }
    std::atomic<int> pictures{0};
};

// The value of `key` in a line of ffprobe's compact output ("stream|key=value|..."), or "".
std::string field(const std::string& line, const std::string& key) {
    const std::size_t at = line.find("|" + key + "=");
    if (at == std::string::npos) return "";
    const std::size_t from = at + key.size() + 2;
    return line.substr(from, line.find_first_of("|\r\n", from) - from);
}

// What ffprobe says of a recording, and the tone ffmpeg decodes from it, said; whether it holds
// H.264 320x240 (at least three pictures in four seconds) and AAC with the tone, about kRecordMs long.
bool probe(const char* who, const std::string& path) {
    std::string video, audio;
    int width = 0, height = 0, pictures = 0, rate = 0;
    double duration = 0;
    const std::string command =
        "ffprobe -v error -count_frames -show_entries "
        "stream=codec_type,codec_name,width,height,sample_rate,nb_read_frames:format=duration -of compact '" +
        path + "'";
    FILE* out = ::popen(command.c_str(), "r");
    if (!out) return false;
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, out)) {
        const std::string line = buffer;
        if (line.rfind("format|", 0) == 0) {
            duration = std::atof(field(line, "duration").c_str());
        } else if (field(line, "codec_type") == "video" && video.empty()) {
            video = field(line, "codec_name");
            width = std::atoi(field(line, "width").c_str());
            height = std::atoi(field(line, "height").c_str());
            pictures = std::atoi(field(line, "nb_read_frames").c_str());
        } else if (field(line, "codec_type") == "audio" && audio.empty()) {
            audio = field(line, "codec_name");
            rate = std::atoi(field(line, "sample_rate").c_str());
        }
    }
    ::pclose(out);
    // The sound, as 48 kHz mono 16-bit little-endian samples (this host's order).
    std::vector<int16_t> pcm(10 * 48000);
    const std::string decode = "ffmpeg -nostdin -v error -i '" + path + "' -map 0:a:0 -ac 1 -ar 48000 -f s16le -";
    if (!(out = ::popen(decode.c_str(), "r"))) return false;
    pcm.resize(std::fread(pcm.data(), sizeof pcm[0], pcm.size(), out));
    ::pclose(out);
    const double level = example::toneLevel(pcm.data() + pcm.size() / 4, pcm.size() / 2, kToneHz, 48000);
    struct stat st {};
    say(who, path, ": video ", video, " ", width, "x", height, ", ", pictures, " pictures, audio ", audio, " ", rate,
        " Hz; ", fixed(duration, 2), " s, ", ::stat(path.c_str(), &st) == 0 ? (long long)st.st_size : -1LL,
        " bytes; ", kToneHz, " Hz at ", fixed(level, 1), " dBFS");
    return video == "h264" && width == kWidth && height == kHeight && pictures >= kRecordMs * kFps * 3 / 4000 &&
           audio == "aac" && std::abs(duration * 1000 - kRecordMs) < 1000 && level > -40;
}

}  // namespace

int main() {
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    RecorderEvents localEvents("local"), remoteEvents("remote");
    Counter counter;
    agoraish::RtcEngine localEngine, remoteEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(remoteEngine, remote, server); rc != 0) return rc;

    // local sends its pushed pictures and tone; remote receives, and hears through an external sink.
    localEngine.setExternalAudioSource(true, 48000, 1);
    localEngine.setExternalVideoSource(true);
    localEngine.enableVideo();
    localEngine.setVideoEncoderConfiguration(
        agoraish::VideoEncoderConfiguration({kWidth, kHeight}, kFps, agoraish::STANDARD_BITRATE));
    remoteEngine.enableVideo();
    remoteEngine.enableLocalAudio(false);
    remoteEngine.setExternalAudioSink(true, example::Ears::kRate, 1);
    if (int rc = example::meet(kChannel, localEngine, local, remoteEngine, remote); rc != 0) return rc;
    const agoraish::uid_t localUid = remote.peer();
    remoteEngine.setupRemoteVideo(agoraish::VideoCanvas(localUid, &counter));

    // local's camera and microphone: 10 ms of the tone every 10 ms, a picture kFps times a second.
    std::atomic<bool> pushing{true};
    std::atomic<int> failures{0};
    std::thread devices([&] {
        std::vector<std::uint8_t> luma(kWidth * kHeight), chroma(kWidth * kHeight / 4, 128);
        std::vector<int16_t> chunk(480);
        agoraish::ExternalVideoFrame frame;
        frame.format = agoraish::VIDEO_PIXEL_I420;
        frame.width = kWidth;
        frame.height = kHeight;
        frame.yBuffer = luma.data();
        frame.uBuffer = frame.vBuffer = chroma.data();
        frame.yStride = kWidth;
        frame.uStride = frame.vStride = kWidth / 2;
        const auto start = Clock::now();
        long sent = 0;
        for (long k = 0; pushing; ++k) {
            for (int i = 0; i < 480; ++i) {
                chunk[std::size_t(i)] = int16_t(8000 * std::sin(2 * kPi * kToneHz * double(k * 480 + i) / 48000));
            }
            if (localEngine.pushExternalAudioFrame(chunk.data(), 480) < 0) ++failures;
            if (k * kFps / 100 >= sent) {
                // Grey, with a bright 40x40 square moving right 8 pixels a picture.
                const long left = sent * 8 % (kWidth - 40);
                std::fill(luma.begin(), luma.end(), std::uint8_t(90));
                for (int y = 100; y < 140; ++y) std::memset(luma.data() + y * kWidth + left, 235, 40);
                frame.timestamp = sent * 1000 / kFps;
                if (localEngine.pushExternalVideoFrame(frame) != 0) ++failures;
                ++sent;
            }
            std::this_thread::sleep_until(start + (k + 1) * 10ms);
        }
    });

    bool recorded = false;
    {
        example::Ears ears({&remoteEngine});
        ears.listen(500);  // the first pictures and audio arrive
        ::mkdir("demo-out", 0755);
        agoraish::MediaRecorder localRecorder, remoteRecorder;
        agoraish::MediaRecorderConfiguration config;
        config.width = kWidth;
        config.height = kHeight;
        config.fps = kFps;
        config.recorderInfoUpdateInterval = 1000;
        struct Recording {
            agoraish::RtcEngine& engine;
            agoraish::MediaRecorder& recorder;
            RecorderEvents& events;
            agoraish::uid_t uid;
            const char* path;
            const char* who;
        };
        Recording recordings[2] = {{localEngine, localRecorder, localEvents, 0, kLocalFile, "local"},
                                   {remoteEngine, remoteRecorder, remoteEvents, localUid, kRemoteFile, "remote"}};
        bool started = true;
        for (Recording& r : recordings) {
            int rc = r.engine.createMediaRecorder(agoraish::RecorderStreamInfo(kChannel, r.uid), r.recorder);
            if (rc == 0) rc = r.recorder.setMediaRecorderObserver(&r.events);
            config.storagePath = r.path;
            if (rc == 0) rc = r.recorder.startRecording(config);
            say(r.who, "createMediaRecorder(\"", kChannel, "\", uid ", r.uid, "), startRecording(", r.path, ") = ", rc);
            started = started && rc == 0 && r.events.waitStarted();
        }
        if (started) {
            ears.listen(kRecordMs);
            for (Recording& r : recordings) {
                say(r.who, "stopRecording() = ", r.recorder.stopRecording());  // the file is complete when it returns
            }
            recorded = localEvents.waitStoppedWell() && remoteEvents.waitStoppedWell();
        }
        for (Recording& r : recordings) r.engine.destroyMediaRecorder(r.recorder);
    }
    pushing = false;
    devices.join();
    remoteEngine.setupRemoteVideo(agoraish::VideoCanvas(localUid, nullptr));
    say("remote", "rendered ", counter.pictures.load(), " pictures of local; ", failures.load(), " pushes failed");
    if (int rc = example::part(localEngine, local, remoteEngine, remote); rc != 0) return rc;

    const bool localFile = probe("local", kLocalFile), remoteFile = probe("remote", kRemoteFile);
    const bool ok = recorded && localFile && remoteFile && failures == 0;
    remoteEngine.release();
    localEngine.release();
    std::cout << (ok ? "done: each user recorded the call to MP4, H.264 and AAC as ffprobe reads them"
                     : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
