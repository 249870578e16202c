// media_player.cpp — Agora's MediaPlayer case in C++: a user plays a video
// file and publishes it into the channel instead of a camera and a microphone.
//
//   createMediaPlayer -> registerPlayerSourceObserver -> setView
//   -> open(path) -> OPEN_COMPLETED -> getDuration, getStreamInfo
//   -> joinChannel(token, channelId, uid, ChannelMediaOptions{publishMediaPlayerAudioTrack,
//      publishMediaPlayerVideoTrack, publishMediaPlayerId, no camera, no microphone})
//   -> play -> PLAYING -> pause -> PAUSED -> resume -> seek -> SEEK_COMPLETE
//   -> PLAYBACK_COMPLETED, PLAYBACK_ALL_LOOPS_COMPLETED, onCompleted
//   -> leaveChannel -> destroyMediaPlayer -> release
//
// "local" opens a 4 s MP4 (H.264 pictures of FFmpeg's moving test pattern and
// an AAC 1 kHz tone) that the example makes first with the ffmpeg command-line
// tool in demo-out/media_player.mp4, and publishes its player's audio and
// pictures. "remote", a second engine in
// the same process, pulls what it hears from its external sink and renders
// what it receives; local's own playout (its external sink) plays the file
// too. The example checks that remote heard the tone and saw the pictures
// move, that pausing silenced and froze both, and that after a seek back the
// file played to its end.
//
//   make hosts && build/examples/media_player_cpp
#include "agoraish.hpp"
#include "example_support.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using example::fail;
using example::say;

const char* const kChannel = "media-player";
const char* const kMovie = "demo-out/media_player.mp4";
constexpr int kWidth = 320, kHeight = 240, kFps = 15;
constexpr int kToneHz = 1000;
constexpr int kSeekToMs = 1000;
constexpr auto kPlayerWait = std::chrono::seconds(10);  // for the player's events

std::string fixed(double value, int digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

// A user's channel events.
class User : public example::User {
public:
    using example::User::User;

    void onFirstLocalVideoFramePublished(int elapsed) override {
        say(name_, "onFirstLocalVideoFramePublished, ", elapsed, " ms");
    }
    void onFirstLocalAudioFramePublished(int elapsed) override {
        say(name_, "onFirstLocalAudioFramePublished, ", elapsed, " ms");
    }
    void onFirstRemoteVideoDecoded(agoraish::uid_t uid, int width, int height, int elapsed) override {
        say(name_, "onFirstRemoteVideoDecoded uid ", uid, ", ", width, "x", height, ", ", elapsed, " ms");
    }
    void onFirstRemoteAudioDecoded(agoraish::uid_t uid, int elapsed) override {
        say(name_, "onFirstRemoteAudioDecoded uid ", uid, ", ", elapsed, " ms");
    }
};

// The player's states and events, on the engine's event thread.
class PlayerEvents : public agoraish::IMediaPlayerSourceObserver {
public:
    void onPlayerSourceStateChanged(agoraish::MEDIA_PLAYER_STATE state, agoraish::MEDIA_PLAYER_REASON reason) override {
        say("player", "onPlayerSourceStateChanged ", example::name(state), " (", example::name(reason), ")");
        std::lock_guard<std::mutex> lock(mutex_);
        states_.push_back(state);
        cond_.notify_all();
    }
    void onPlayerEvent(agoraish::MEDIA_PLAYER_EVENT event, std::int64_t elapsedTime, const char* message) override {
        say("player", "onPlayerEvent ", example::name(event), " at ", elapsedTime, " ms", *message ? " " : "", message);
        std::lock_guard<std::mutex> lock(mutex_);
        events_.insert(event);
        cond_.notify_all();
    }
    void onPositionChanged(std::int64_t positionMs, std::int64_t) override {
        say("player", "onPositionChanged ", positionMs, " ms");
    }
    void onCompleted() override {
        say("player", "onCompleted");
        std::lock_guard<std::mutex> lock(mutex_);
        completed_ = true;
        cond_.notify_all();
    }

    // How many states came so far: waitState()'s `after`.
    std::size_t mark() {
        std::lock_guard<std::mutex> lock(mutex_);
        return states_.size();
    }
    // Waits for `state` among the states from index `after` on.
    bool waitState(agoraish::MEDIA_PLAYER_STATE state, std::size_t after = 0) {
        std::unique_lock<std::mutex> lock(mutex_);
        const bool seen = cond_.wait_for(lock, kPlayerWait, [&] {
            for (std::size_t i = after; i < states_.size(); ++i) {
                if (states_[i] == state) return true;
            }
            return false;
        });
        if (!seen) say("player", "no ", example::name(state), " within 10 s");
        return seen;
    }
    bool waitEvent(agoraish::MEDIA_PLAYER_EVENT event) {
        std::unique_lock<std::mutex> lock(mutex_);
        const bool seen = cond_.wait_for(lock, kPlayerWait, [&] { return events_.count(event) > 0; });
        if (!seen) say("player", "no ", example::name(event), " within 10 s");
        return seen;
    }
    bool waitCompleted() {
        std::unique_lock<std::mutex> lock(mutex_);
        return cond_.wait_for(lock, kPlayerWait, [&] { return completed_; });
    }

private:
    std::mutex mutex_;
    std::condition_variable cond_;
    // Guarded by mutex_.
    std::vector<agoraish::MEDIA_PLAYER_STATE> states_;
    std::set<agoraish::MEDIA_PLAYER_EVENT> events_;
    bool completed_ = false;
};

// A canvas: counts pictures, their sizes, and how many differ from the one before.
class Screen : public agoraish::IVideoSink {
public:
    struct Report {
        int pictures = 0, changes = 0;
        std::set<std::pair<int, int>> sizes;
    };

    Screen(const char* who, const char* what) : who_(who), what_(what) {}

    void onFrame(agoraish::uid_t, const agoraish::VideoFrame& frame) override {
        // The planes are valid during this call only: read what is needed now.
        const std::uint8_t* row = frame.yBuffer + std::size_t(frame.height / 2) * std::size_t(frame.yStride);
        std::vector<std::uint8_t> signature(row, row + frame.width);
        std::lock_guard<std::mutex> lock(mutex_);
        if (report_.pictures == 0) say(who_, what_, ": first picture ", frame.width, "x", frame.height);
        ++report_.pictures;
        report_.sizes.insert({frame.width, frame.height});
        if (signature != last_) ++report_.changes;
        last_ = std::move(signature);
    }

    Report report() {
        std::lock_guard<std::mutex> lock(mutex_);
        return report_;
    }

private:
    const char* who_;
    const char* what_;
    std::mutex mutex_;
    // Guarded by mutex_.
    Report report_;
    std::vector<std::uint8_t> last_;
};

struct Levels {
    double remote = -120, local = -120;
};

// What remote and local hear of the tone in the next `ms`, said.
Levels hear(example::Ears& ears, int ms, const char* what) {
    const auto heard = ears.listen(ms);  // local, remote
    Levels levels{example::toneLevel(heard[1], kToneHz), example::toneLevel(heard[0], kToneHz)};
    say("remote", what, ": ", kToneHz, " Hz at ", fixed(levels.remote, 1), " dBFS (local's own playout: ",
        fixed(levels.local, 1), " dBFS)");
    return levels;
}

}  // namespace

int main() {
    say("ffmpeg", "making ", kMovie, ": 4 s of H.264 test pattern and a ", kToneHz, " Hz AAC tone");
    if (!example::ffmpeg(kMovie, "-f lavfi -i testsrc2=size=320x240:rate=15:duration=4 "
                                 "-f lavfi -i sine=frequency=1000:sample_rate=48000:duration=4 "
                                 "-c:v libx264 -preset veryfast -g 15 -pix_fmt yuv420p -c:a aac -b:a 96k -shortest")) {
        std::cout << "the call did not go as expected\n";
        return 1;
    }

    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    PlayerEvents events;
    Screen view("local", "player's view"), screen("remote", "remote canvas");
    agoraish::RtcEngine localEngine, remoteEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(remoteEngine, remote, server); rc != 0) return rc;

    // Both users hear through external sinks, pulled by the example's "sound cards" (Ears).
    for (agoraish::RtcEngine* engine : {&localEngine, &remoteEngine}) {
        engine->setExternalAudioSink(true, example::Ears::kRate, 1);
        engine->enableVideo();
    }
    remoteEngine.enableLocalAudio(false);  // remote only watches and listens
    localEngine.setVideoEncoderConfiguration(
        agoraish::VideoEncoderConfiguration({kWidth, kHeight}, kFps, agoraish::STANDARD_BITRATE));

    // local's player: its events, its own view, and the file.
    agoraish::MediaPlayer player;
    if (int rc = localEngine.createMediaPlayer(player); rc != 0) return fail("createMediaPlayer", rc);
    say("local", "createMediaPlayer() = 0, player ", player.getMediaPlayerId());
    player.registerPlayerSourceObserver(&events);
    player.setView(&view);
    if (int rc = player.open(kMovie, 0); rc != 0) return fail("MediaPlayer::open", rc);
    if (!events.waitState(agoraish::PLAYER_STATE_OPEN_COMPLETED)) return fail("opening", -AGORAISH_ERR_TIMEDOUT);
    std::int64_t duration = 0, count = 0;
    player.getDuration(duration);
    player.getStreamCount(count);
    say("local", "getDuration() = ", duration, " ms, ", count, " streams:");
    std::set<std::string> codecs;
    for (std::int64_t i = 0; i < count; ++i) {
        agoraish::PlayerStreamInfo info;
        if (player.getStreamInfo(i, &info) != 0) continue;
        codecs.insert(info.codecName);
        if (info.streamType == agoraish::STREAM_TYPE_VIDEO) {
            say("local", "  stream ", info.streamIndex, ": VIDEO ", info.codecName, ", ", info.videoWidth, "x",
                info.videoHeight, " at ", info.videoFrameRate, " fps, ", info.duration, " ms");
        } else {
            say("local", "  stream ", info.streamIndex, ": AUDIO ", info.codecName, ", ", info.audioSampleRate,
                " Hz, ", info.audioChannels, info.audioChannels == 1 ? " channel, " : " channels, ", info.duration,
                " ms");
        }
    }

    // local publishes the player instead of a camera and a microphone.
    agoraish::ChannelMediaOptions options;
    options.publishCameraTrack = false;
    options.publishMicrophoneTrack = false;
    options.publishMediaPlayerAudioTrack = true;
    options.publishMediaPlayerVideoTrack = true;
    options.publishMediaPlayerId = player.getMediaPlayerId();
    if (int rc = localEngine.joinChannel(nullptr, kChannel, 0, options); rc != 0) return fail("joinChannel", rc);
    say("local", "joinChannel(options: publishMediaPlayerAudioTrack, publishMediaPlayerVideoTrack, player ",
        player.getMediaPlayerId(), ") = 0");
    if (!local.waitJoined(true)) return fail("waiting for onJoinChannelSuccess", -AGORAISH_ERR_TIMEDOUT);
    if (int rc = remoteEngine.joinChannel(nullptr, kChannel, nullptr, 0); rc != 0) return fail("joinChannel", rc);
    if (!remote.waitJoined(true) || !remote.waitPeer(true) || !local.waitPeer(true)) {
        return fail("waiting for the users to see each other", -AGORAISH_ERR_TIMEDOUT);
    }
    const agoraish::uid_t localUid = remote.peer();
    remoteEngine.setupRemoteVideo(agoraish::VideoCanvas(localUid, &screen));

    Levels playing, paused, resumed;
    int moving = 0, frozen = 0;
    bool completed = false;
    {
        example::Ears ears({&localEngine, &remoteEngine});
        std::size_t mark = events.mark();
        player.play();
        if (!events.waitState(agoraish::PLAYER_STATE_PLAYING, mark)) return fail("play", -AGORAISH_ERR_TIMEDOUT);
        ears.listen(500);  // the first audio on its way
        playing = hear(ears, 1000, "playing");
        moving = screen.report().pictures;

        mark = events.mark();
        player.pause();
        if (!events.waitState(agoraish::PLAYER_STATE_PAUSED, mark)) return fail("pause", -AGORAISH_ERR_TIMEDOUT);
        std::int64_t position = 0;
        player.getPlayPosition(position);
        say("local", "pause() at ", position, " ms");
        ears.listen(300);  // what was on its way
        frozen = screen.report().pictures;
        paused = hear(ears, 700, "paused");
        frozen = screen.report().pictures - frozen;
        say("remote", frozen, " pictures while paused");

        mark = events.mark();
        player.resume();
        if (!events.waitState(agoraish::PLAYER_STATE_PLAYING, mark)) return fail("resume", -AGORAISH_ERR_TIMEDOUT);
        player.seek(kSeekToMs);
        if (!events.waitEvent(agoraish::PLAYER_EVENT_SEEK_BEGIN) ||
            !events.waitEvent(agoraish::PLAYER_EVENT_SEEK_COMPLETE)) {
            return fail("seek", -AGORAISH_ERR_TIMEDOUT);
        }
        player.getPlayPosition(position);
        say("local", "seek(", kSeekToMs, "): position ", position, " ms");
        resumed = hear(ears, 1000, "after resume and seek");
        completed = events.waitState(agoraish::PLAYER_STATE_PLAYBACK_COMPLETED) &&
                    events.waitState(agoraish::PLAYER_STATE_PLAYBACK_ALL_LOOPS_COMPLETED) && events.waitCompleted();
        player.getPlayPosition(position);
        say("local", "the end: position ", position, " ms, state ", example::name(player.getState()));
    }

    remoteEngine.setupRemoteVideo(agoraish::VideoCanvas(localUid, nullptr));  // waits for a picture being rendered
    const Screen::Report seen = screen.report(), shown = view.report();
    std::string sizes;
    for (const auto& size : seen.sizes) sizes += std::to_string(size.first) + "x" + std::to_string(size.second) + " ";
    say("remote", "rendered ", seen.pictures, " pictures of ", sizes, "(", seen.changes,
        " of them different from the one before; ", moving, " by the pause)");
    say("local", "the player's view showed ", shown.pictures, " pictures");
    if (int rc = example::part(localEngine, local, remoteEngine, remote); rc != 0) return rc;
    say("local", "destroyMediaPlayer() = ", localEngine.destroyMediaPlayer(player));

    const bool ok = codecs.count("h264") && codecs.count("aac") && playing.remote > -40 && playing.local > -40 &&
                    paused.remote < -60 && frozen <= 2 && resumed.remote > -40 && seen.pictures >= 2 * kFps &&
                    seen.sizes == std::set<std::pair<int, int>>{{kWidth, kHeight}} && seen.changes >= kFps &&
                    shown.pictures >= 2 * kFps && completed;
    remoteEngine.release();
    localEngine.release();
    std::cout << (ok ? "done: remote heard and saw the file local's player published, through pause, resume and seek"
                     : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
