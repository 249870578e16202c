// rte_player.cpp — Agora's RtePlayer case in C++: a stream played from a URL,
// with its states, positions and buffer, and relayed into the channel.
//
//   createMediaPlayer -> registerPlayerSourceObserver -> setView
//   -> open(url) -> OPENING -> OPEN_COMPLETED (or FAILED with its reason)
//   -> play -> PLAYING -> onPositionChanged, onPlayBufferUpdated every second
//   -> PLAYBACK_COMPLETED, PLAYBACK_ALL_LOOPS_COMPLETED, onCompleted
//   -> destroyMediaPlayer
//
// The stream is HLS over http://: the example makes a playlist of 1 s
// segments (H.264 pictures of FFmpeg's moving test pattern and an AAC 880 Hz
// tone, 5 s) with the ffmpeg command-line tool in demo-out/rte_player/ and
// serves that directory on 127.0.0.1 with a small HTTP/1.0 server of its own,
// on a thread (one request per connection, GET of a file or 404). "local"
// first opens a URL the server does not have (FAILED, URL_NOT_FOUND), then the
// playlist, shows it in its player's view, and relays it into the channel as
// its audio and video tracks (publishMediaPlayer*); "remote", a second engine
// in the same process, hears the tone and sees the pictures. The example
// checks the states in order, the position and buffer reports, what remote
// received, and that the server served the playlist and its segments.
//
//   make hosts && build/examples/rte_player_cpp
#include "agoraish.hpp"
#include "example_support.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using example::fail;
using example::say;

const char* const kChannel = "rte-player";
const std::string kStreamDir = "demo-out/rte_player";
const std::string kPlaylist = "index.m3u8";
constexpr int kWidth = 320, kHeight = 240, kFps = 15;
constexpr int kToneHz = 880;
constexpr int kSeconds = 5;
constexpr auto kPlayerWait = std::chrono::seconds(15);  // for the player's events (opening a URL may take a while)

std::string fixed(double value, int digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

// ---- the HTTP server -------------------------------------------------------------------

// Serves the files of a directory on 127.0.0.1, a free port, from a thread:
// HTTP/1.0, one request per connection, GET of a plain file name or 404.
class HttpServer {
public:
    explicit HttpServer(std::string root) : root_(std::move(root)) {}
    ~HttpServer() { stop(); }

    bool start() {
        sockaddr_in address{};
        socklen_t length = sizeof address;
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            ::listen(fd_, 16) != 0 || ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
            std::perror("http server");
            return false;
        }
        port_ = ntohs(address.sin_port);
        thread_ = std::thread([this] { serve(); });
        return true;
    }

    void stop() {
        if (thread_.joinable()) {
            {
                std::lock_guard<std::mutex> lock(mutex_);
                stopping_ = true;
            }
            ::shutdown(fd_, SHUT_RDWR);  // wakes accept()
            thread_.join();
        }
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

    std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + "/" + path; }

    // The paths served with 200, in order.
    std::vector<std::string> served() {
        std::lock_guard<std::mutex> lock(mutex_);
        return served_;
    }

private:
    void serve() {
        for (;;) {
            const int client = ::accept(fd_, nullptr, nullptr);
            bool stopping;
            {
                std::lock_guard<std::mutex> lock(mutex_);
                stopping = stopping_;
            }
            if (client < 0) {
                if (stopping || errno != EINTR) return;
                continue;
            }
            if (!stopping) answer(client);
            ::close(client);
            if (stopping) return;
        }
    }

    static bool sendAll(int fd, const char* data, std::size_t size) {
        while (size > 0) {
            const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
            if (n <= 0) return false;
            data += n;
            size -= std::size_t(n);
        }
        return true;
    }

    void answer(int client) {
        timeval timeout{2, 0};
        ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        std::string request;
        char buffer[4096];
        while (request.find("\r\n\r\n") == std::string::npos && request.size() < 8192) {
            const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
            if (n <= 0) return;
            request.append(buffer, std::size_t(n));
        }
        const std::size_t space = request.find(' '), end = request.find(' ', space + 1);
        if (space == std::string::npos || end == std::string::npos) return;
        const std::string method = request.substr(0, space);
        std::string path = request.substr(space + 1, end - space - 1);
        path = path.substr(0, path.find('?'));
        // Only plain names of the directory: no "..", no odd characters.
        const bool plain = path.size() > 1 && path[0] == '/' && path.find("..") == std::string::npos &&
                           path.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
                                                  1) == std::string::npos;
        std::ifstream file;
        if (method == "GET" && plain) file.open(root_ + path, std::ios::binary);
        if (!file) {
            const char* notFound = "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
            sendAll(client, notFound, std::strlen(notFound));
            say("http", "\"", method, " ", path, "\" 404");
            return;
        }
        const std::string body((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        const bool playlist = path.find(".m3u8") != std::string::npos;
        const std::string type = playlist ? "application/vnd.apple.mpegurl" : "video/mp2t";
        const std::string header = "HTTP/1.0 200 OK\r\nContent-Type: " + type + "\r\nContent-Length: " +
                                   std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
        if (sendAll(client, header.data(), header.size())) sendAll(client, body.data(), body.size());
        {
            std::lock_guard<std::mutex> lock(mutex_);
            served_.push_back(path);
        }
        say("http", "\"", method, " ", path, "\" 200, ", body.size(), " bytes");
    }

    std::string root_;
    int fd_ = -1;
    int port_ = 0;
    std::thread thread_;
    std::mutex mutex_;
    // Guarded by mutex_.
    bool stopping_ = false;
    std::vector<std::string> served_;
};

// ---- one user's events, the player's events, and canvases --------------------------------

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

// The player's states, positions and buffer, on the engine's event thread.
class PlayerEvents : public agoraish::IMediaPlayerSourceObserver {
public:
    struct Change {
        agoraish::MEDIA_PLAYER_STATE state;
        agoraish::MEDIA_PLAYER_REASON reason;
    };
    struct Report {
        std::vector<Change> states;
        std::vector<std::int64_t> positions;
        int buffers = 0;
        bool completed = false;
    };

    void onPlayerSourceStateChanged(agoraish::MEDIA_PLAYER_STATE state, agoraish::MEDIA_PLAYER_REASON reason) override {
        say("player", "onPlayerSourceStateChanged ", example::name(state), " (", example::name(reason), ")");
        std::lock_guard<std::mutex> lock(mutex_);
        report_.states.push_back({state, reason});
        cond_.notify_all();
    }
    void onPlayerEvent(agoraish::MEDIA_PLAYER_EVENT event, std::int64_t elapsedTime, const char* message) override {
        say("player", "onPlayerEvent ", example::name(event), " at ", elapsedTime, " ms", *message ? " " : "", message);
    }
    void onPositionChanged(std::int64_t positionMs, std::int64_t) override {
        say("player", "onPositionChanged ", positionMs, " ms");
        std::lock_guard<std::mutex> lock(mutex_);
        report_.positions.push_back(positionMs);
    }
    void onPlayBufferUpdated(std::int64_t playCachedBuffer) override {
        say("player", "onPlayBufferUpdated ", playCachedBuffer, " ms decoded ahead");
        std::lock_guard<std::mutex> lock(mutex_);
        ++report_.buffers;
    }
    void onCompleted() override {
        say("player", "onCompleted");
        std::lock_guard<std::mutex> lock(mutex_);
        report_.completed = true;
        cond_.notify_all();
    }

    std::size_t mark() {
        std::lock_guard<std::mutex> lock(mutex_);
        return report_.states.size();
    }
    // The first state from index `after` on that is `a` or `b` (waiting for it); FAILED with
    // INTERNAL when none came.
    Change waitState(agoraish::MEDIA_PLAYER_STATE a, agoraish::MEDIA_PLAYER_STATE b, std::size_t after) {
        std::unique_lock<std::mutex> lock(mutex_);
        Change found{agoraish::PLAYER_STATE_FAILED, agoraish::PLAYER_REASON_INTERNAL};
        const bool seen = cond_.wait_for(lock, kPlayerWait, [&] {
            for (std::size_t i = after; i < report_.states.size(); ++i) {
                if (report_.states[i].state == a || report_.states[i].state == b) {
                    found = report_.states[i];
                    return true;
                }
            }
            return false;
        });
        if (!seen) say("player", "no ", example::name(a), " within 15 s");
        return found;
    }
    bool waitCompleted() {
        std::unique_lock<std::mutex> lock(mutex_);
        return cond_.wait_for(lock, kPlayerWait, [&] { return report_.completed; });
    }
    Report report() {
        std::lock_guard<std::mutex> lock(mutex_);
        return report_;
    }

private:
    std::mutex mutex_;
    std::condition_variable cond_;
    Report report_;  // guarded by mutex_
};

// A canvas: counts pictures and how many differ from the one before.
class Screen : public agoraish::IVideoSink {
public:
    struct Report {
        int pictures = 0, changes = 0, width = 0, height = 0;
    };

    Screen(const char* who, const char* what) : who_(who), what_(what) {}

    void onFrame(agoraish::uid_t, const agoraish::VideoFrame& frame) override {
        const std::uint8_t* row = frame.yBuffer + std::size_t(frame.height / 2) * std::size_t(frame.yStride);
        std::vector<std::uint8_t> signature(row, row + frame.width);
        std::lock_guard<std::mutex> lock(mutex_);
        if (report_.pictures++ == 0) say(who_, what_, ": first picture ", frame.width, "x", frame.height);
        report_.width = frame.width;
        report_.height = frame.height;
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
    Report report_;  // guarded by mutex_
    std::vector<std::uint8_t> last_;
};

// The playlist, then each segment it lists, in order.
std::vector<std::string> expectedRequests() {
    std::vector<std::string> paths{"/" + kPlaylist};
    std::ifstream playlist(kStreamDir + "/" + kPlaylist);
    for (std::string line; std::getline(playlist, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty() && line[0] != '#') paths.push_back("/" + line);
    }
    return paths;
}

}  // namespace

int main() {
    ::mkdir("demo-out", 0755);
    ::mkdir(kStreamDir.c_str(), 0755);
    say("ffmpeg", "making ", kStreamDir, "/", kPlaylist, ": HLS, 1 s segments of H.264 test pattern and a ", kToneHz,
        " Hz AAC tone, ", kSeconds, " s");
    if (!example::ffmpeg(kStreamDir + "/" + kPlaylist,
                         "-f lavfi -i testsrc2=size=320x240:rate=15:duration=5 "
                         "-f lavfi -i sine=frequency=880:sample_rate=48000:duration=5 "
                         "-c:v libx264 -preset veryfast -g 15 -pix_fmt yuv420p -c:a aac -b:a 96k -shortest "
                         "-f hls -hls_time 1 -hls_playlist_type vod -hls_segment_filename " +
                             kStreamDir + "/seg%03d.ts")) {
        std::cout << "the call did not go as expected\n";
        return 1;
    }
    HttpServer http(kStreamDir);
    if (!http.start()) return fail("starting the HTTP server", -1);
    say("http", "serving ", kStreamDir, " at ", http.url(""));

    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    PlayerEvents events;
    Screen view("local", "player's view"), screen("remote", "remote canvas");
    agoraish::RtcEngine localEngine, remoteEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(remoteEngine, remote, server); rc != 0) return rc;

    for (agoraish::RtcEngine* engine : {&localEngine, &remoteEngine}) {
        engine->setExternalAudioSink(true, example::Ears::kRate, 1);
        engine->enableVideo();
    }
    remoteEngine.enableLocalAudio(false);  // remote only watches and listens
    localEngine.setVideoEncoderConfiguration(
        agoraish::VideoEncoderConfiguration({kWidth, kHeight}, kFps, agoraish::STANDARD_BITRATE));

    agoraish::MediaPlayer player;
    if (int rc = localEngine.createMediaPlayer(player); rc != 0) return fail("createMediaPlayer", rc);
    player.registerPlayerSourceObserver(&events);
    player.setView(&view);

    // A URL the server does not have: FAILED with URL_NOT_FOUND (HTTP 404).
    std::size_t mark = events.mark();
    say("local", "open(", http.url("missing.m3u8"), ") = ", player.open(http.url("missing.m3u8").c_str(), 0));
    const PlayerEvents::Change missing =
        events.waitState(agoraish::PLAYER_STATE_OPEN_COMPLETED, agoraish::PLAYER_STATE_FAILED, mark);

    // The playlist.
    mark = events.mark();
    say("local", "open(", http.url(kPlaylist), ") = ", player.open(http.url(kPlaylist).c_str(), 0));
    const PlayerEvents::Change opened =
        events.waitState(agoraish::PLAYER_STATE_OPEN_COMPLETED, agoraish::PLAYER_STATE_FAILED, mark);
    if (opened.state != agoraish::PLAYER_STATE_OPEN_COMPLETED) return fail("opening the playlist", opened.reason);
    std::int64_t duration = 0, count = 0;
    player.getDuration(duration);
    player.getStreamCount(count);
    for (std::int64_t i = 0; i < count; ++i) {
        agoraish::PlayerStreamInfo info;
        if (player.getStreamInfo(i, &info) == 0) {
            say("local", "  stream ", info.streamIndex, ": ",
                info.streamType == agoraish::STREAM_TYPE_VIDEO ? "VIDEO " : "AUDIO ", info.codecName);
        }
    }
    say("local", "getDuration() = ", duration, " ms, ", count, " streams");

    // local relays the stream into the channel as its audio and video tracks.
    agoraish::ChannelMediaOptions options;
    options.publishCameraTrack = false;
    options.publishMicrophoneTrack = false;
    options.publishMediaPlayerAudioTrack = true;
    options.publishMediaPlayerVideoTrack = true;
    options.publishMediaPlayerId = player.getMediaPlayerId();
    if (int rc = localEngine.joinChannel(nullptr, kChannel, 0, options); rc != 0) return fail("joinChannel", rc);
    if (!local.waitJoined(true)) return fail("waiting for onJoinChannelSuccess", -AGORAISH_ERR_TIMEDOUT);
    if (int rc = remoteEngine.joinChannel(nullptr, kChannel, nullptr, 0); rc != 0) return fail("joinChannel", rc);
    if (!remote.waitJoined(true) || !remote.waitPeer(true) || !local.waitPeer(true)) {
        return fail("waiting for the users to see each other", -AGORAISH_ERR_TIMEDOUT);
    }
    const agoraish::uid_t localUid = remote.peer();
    remoteEngine.setupRemoteVideo(agoraish::VideoCanvas(localUid, &screen));

    double remoteLevel = -120, localLevel = -120;
    PlayerEvents::Change ended{};
    bool completed = false;
    {
        example::Ears ears({&localEngine, &remoteEngine});
        mark = events.mark();
        player.play();
        if (events.waitState(agoraish::PLAYER_STATE_PLAYING, agoraish::PLAYER_STATE_PLAYING, mark).state !=
            agoraish::PLAYER_STATE_PLAYING) {
            return fail("play", -AGORAISH_ERR_TIMEDOUT);
        }
        ears.listen(1000);  // the first second
        const auto heard = ears.listen(2000);  // local, remote
        remoteLevel = example::toneLevel(heard[1], kToneHz);
        localLevel = example::toneLevel(heard[0], kToneHz);
        say("remote", "hears ", kToneHz, " Hz at ", fixed(remoteLevel, 1), " dBFS (local's own playout: ",
            fixed(localLevel, 1), " dBFS)");
        ended = events.waitState(agoraish::PLAYER_STATE_PLAYBACK_ALL_LOOPS_COMPLETED, agoraish::PLAYER_STATE_FAILED,
                                 mark);
        completed = events.waitCompleted();
    }

    remoteEngine.setupRemoteVideo(agoraish::VideoCanvas(localUid, nullptr));  // waits for a picture being rendered
    const Screen::Report seen = screen.report();
    const PlayerEvents::Report report = events.report();
    say("remote", "rendered ", seen.pictures, " pictures of ", seen.width, "x", seen.height, ", ", seen.changes,
        " different from the one before");
    bool increasing = report.positions.size() >= 3;
    for (std::size_t i = 1; i < report.positions.size(); ++i) {
        increasing = increasing && report.positions[i] > report.positions[i - 1];
    }
    say("local", report.positions.size(), " position reports (", increasing ? "increasing" : "NOT increasing", "), ",
        report.buffers, " buffer reports; the player's view showed ", view.report().pictures, " pictures");
    if (int rc = example::part(localEngine, local, remoteEngine, remote); rc != 0) return rc;
    say("local", "destroyMediaPlayer() = ", localEngine.destroyMediaPlayer(player));
    http.stop();
    const std::vector<std::string> served = http.served();
    std::string list;
    for (const std::string& path : served) list += (list.empty() ? "" : ", ") + path;
    say("http", "served ", list);

    const bool afterPlaying = report.states.size() >= mark + 3 &&
                              report.states[mark + 1].state == agoraish::PLAYER_STATE_PLAYBACK_COMPLETED;
    const bool ok = missing.state == agoraish::PLAYER_STATE_FAILED &&
                    missing.reason == agoraish::PLAYER_REASON_URL_NOT_FOUND &&
                    std::llabs(duration - kSeconds * 1000) <= 300 &&
                    ended.state == agoraish::PLAYER_STATE_PLAYBACK_ALL_LOOPS_COMPLETED && afterPlaying && completed &&
                    increasing && report.buffers >= 3 && remoteLevel > -40 && localLevel > -40 &&
                    seen.pictures >= 3 * kFps && seen.changes >= 2 * kFps && seen.width == kWidth &&
                    seen.height == kHeight && served == expectedRequests();
    remoteEngine.release();
    localEngine.release();
    std::cout << (ok ? "done: remote heard and saw the stream local played from its URL"
                     : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
