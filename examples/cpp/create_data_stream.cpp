// create_data_stream.cpp — Agora's CreateDataStream case in C++: short
// messages from one user to the others of the channel, beside (or without)
// audio and video.
//
//   joinChannel -> createDataStream(&streamId, reliable true, ordered true)
//   -> sendStreamMessage(streamId, data, length)         (each message, at most 1 KB)
//   -> onStreamMessage(userId, streamId, data, length, sentTs) on the others
//   -> onStreamMessageError(userId, streamId, code, missed, cached) when some never come
//   -> leaveChannel (the streams end with the call) -> release
//
// "local" creates a reliable, ordered stream and sends five text messages,
// 200 ms apart; "remote", a second engine in the same process, prints each
// one from onStreamMessage with its sender, stream and how long it took,
// then answers on a stream of its own. The messages travel on the media path
// through the server; a reliable stream has what is lost sent again on each
// hop, so each message arrives once and in order. The example also shows one
// of the limits (1 KB per message: -114). It checks that remote got the five
// messages in order, exactly once, and that local got the answer. Audio is
// off on both engines: this call carries data only.
//
//   make hosts && build/examples/create_data_stream_cpp
#include "agoraish.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
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

const char* const kAppId = "0123456789abcdef0123456789abcdef";
const char* const kChannel = "create-data-stream";
constexpr int kMessages = 5;
constexpr auto kInterval = 200ms;
constexpr auto kTimeout = 5s;
const Clock::time_point kStart = Clock::now();

std::mutex printMutex;

template <typename... Args>
void say(const char* who, const Args&... args) {
    std::ostringstream line;
    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "%6.2f s  %-6s  ",
                  std::chrono::duration<double>(Clock::now() - kStart).count(), who);
    line << prefix;
    (line << ... << args);
    std::lock_guard<std::mutex> lock(printMutex);
    std::cout << line.str() << '\n';
}

// Now on the wall clock, in ms since 1970: what sentTs is measured in.
std::uint64_t wallMs() {
    return std::uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count());
}

std::string messageText(int i) {
    return "message " + std::to_string(i + 1) + " of " + std::to_string(kMessages) + " from local";
}

// One message as it arrived.
struct Message {
    agoraish::uid_t uid;
    int stream;
    std::string text;
};

// A user's channel and data events, remembered so main can wait for them.
class User : public agoraish::IRtcEngineEventHandler {
public:
    explicit User(const char* name) : name_(name) {}

    void onJoinChannelSuccess(const char* channel, agoraish::uid_t uid, int elapsed) override {
        say(name_, "onJoinChannelSuccess \"", channel, "\" uid ", uid, ", ", elapsed, " ms");
        update([&] { joined_ = true; });
    }
    void onUserJoined(agoraish::uid_t uid, int elapsed) override {
        say(name_, "onUserJoined uid ", uid, ", ", elapsed, " ms");
        update([&] { peer_ = uid; });
    }
    void onUserOffline(agoraish::uid_t uid, agoraish::USER_OFFLINE_REASON_TYPE reason) override {
        say(name_, "onUserOffline uid ", uid, ", reason ", int(reason));
        update([&] {
            if (peer_ == uid) peer_ = 0;
        });
    }
    void onLeaveChannel(const agoraish::RtcStats& stats) override {
        say(name_, "onLeaveChannel after ", stats.duration, " s: sent ", stats.txBytes, " bytes, received ",
            stats.rxBytes, " bytes");
        update([&] { joined_ = false; });
    }
    void onError(int err, const char* msg) override { say(name_, "onError ", err, ": ", msg); }

    // A message of another user's stream; `data` is valid during the call only.
    void onStreamMessage(agoraish::uid_t userId, int streamId, const char* data, std::size_t length,
                         std::uint64_t sentTs) override {
        std::string text(data, length);
        say(name_, "onStreamMessage uid ", userId, ", stream ", streamId, ", ", length, " bytes, sent ",
            wallMs() - sentTs, " ms ago: \"", text, "\"");
        update([&] { messages_.push_back({userId, streamId, text}); });
    }
    // Messages of another user's stream that will not come (a reliable stream: not repaired within 5 s).
    void onStreamMessageError(agoraish::uid_t userId, int streamId, int code, int missed, int cached) override {
        say(name_, "onStreamMessageError uid ", userId, ", stream ", streamId, ": code ", code, ", ", missed,
            " missed, ", cached, " cached");
        update([&] { ++errors_; });
    }

    bool waitJoined(bool joined) { return waitUntil([&] { return joined_ == joined; }); }
    bool waitPeer(bool present) { return waitUntil([&] { return (peer_ != 0) == present; }); }
    bool waitMessages(std::size_t count) { return waitUntil([&] { return messages_.size() >= count; }); }
    agoraish::uid_t peer() {
        std::lock_guard<std::mutex> lock(mutex_);
        return peer_;
    }
    std::vector<Message> messages() {
        std::lock_guard<std::mutex> lock(mutex_);
        return messages_;
    }
    int errors() {
        std::lock_guard<std::mutex> lock(mutex_);
        return errors_;
    }

private:
    void update(const std::function<void()>& change) {
        std::lock_guard<std::mutex> lock(mutex_);
        change();
        cond_.notify_all();
    }
    bool waitUntil(const std::function<bool()>& done) {
        std::unique_lock<std::mutex> lock(mutex_);
        return cond_.wait_for(lock, kTimeout, done);
    }

    const char* name_;
    std::mutex mutex_;
    std::condition_variable cond_;
    bool joined_ = false;
    agoraish::uid_t peer_ = 0;
    std::vector<Message> messages_;
    int errors_ = 0;
};

int fail(const char* what, int rc) {
    std::cerr << what << " failed: " << rc << " (" << agoraish::RtcEngine::getErrorDescription(rc) << ")\n";
    std::cout << "the call did not go as expected\n";
    return 1;
}

}  // namespace

int main() {
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    if (int rc = server.initialize(); rc != 0) return fail("ChannelServer::initialize", rc);
    if (int rc = server.start(); rc != 0) return fail("ChannelServer::start", rc);
    say("server", server.url());

    agoraish::RtcEngineContext context;
    context.appId = kAppId;
    context.serverUrl = server.url();
    context.eventHandler = &local;
    agoraish::RtcEngine localEngine;
    if (int rc = localEngine.initialize(context); rc != 0) return fail("RtcEngine::initialize (local)", rc);
    context.eventHandler = &remote;
    agoraish::RtcEngine remoteEngine;
    if (int rc = remoteEngine.initialize(context); rc != 0) return fail("RtcEngine::initialize (remote)", rc);

    // Data only: no microphone, no speaker.
    localEngine.disableAudio();
    remoteEngine.disableAudio();

    if (int rc = localEngine.joinChannel(nullptr, kChannel, nullptr, 0); rc != 0) return fail("joinChannel", rc);
    if (!local.waitJoined(true)) return fail("waiting for onJoinChannelSuccess", -AGORAISH_ERR_TIMEDOUT);
    if (int rc = remoteEngine.joinChannel(nullptr, kChannel, nullptr, 0); rc != 0) {
        return fail("joinChannel (remote)", rc);
    }
    if (!remote.waitJoined(true) || !local.waitPeer(true) || !remote.waitPeer(true)) {
        return fail("waiting for the users to see each other", -AGORAISH_ERR_TIMEDOUT);
    }
    const agoraish::uid_t localUid = remote.peer(), remoteUid = local.peer();

    // local's stream: reliable and ordered (Agora's createDataStream(&streamId, true, true)).
    int stream = 0;
    if (int rc = localEngine.createDataStream(&stream, true, true); rc != 0) return fail("createDataStream", rc);
    say("local", "createDataStream(reliable, ordered) = 0: stream ", stream);

    // A message may hold 1 KB at most.
    const std::string big(AGORAISH_MAX_STREAM_MESSAGE_SIZE + 1, '.');
    const int tooLarge = localEngine.sendStreamMessage(stream, big.data(), big.size());
    say("local", "sendStreamMessage(", big.size(), " bytes) = ", tooLarge, " (",
        agoraish::RtcEngine::getErrorDescription(tooLarge), ")");

    const auto start = Clock::now();
    for (int i = 0; i < kMessages; ++i) {
        const std::string text = messageText(i);
        if (int rc = localEngine.sendStreamMessage(stream, text.data(), text.size()); rc != 0) {
            return fail("sendStreamMessage", rc);
        }
        say("local", "sendStreamMessage(", stream, ", \"", text, "\") = 0");
        std::this_thread::sleep_until(start + (i + 1) * kInterval);
    }
    if (!remote.waitMessages(kMessages)) return fail("waiting for the messages", -AGORAISH_ERR_TIMEDOUT);

    // remote answers on a stream of its own.
    int answerStream = 0;
    if (int rc = remoteEngine.createDataStream(&answerStream, true, true); rc != 0) {
        return fail("createDataStream (remote)", rc);
    }
    const std::string answer = "got your " + std::to_string(kMessages) + " messages";
    if (int rc = remoteEngine.sendStreamMessage(answerStream, answer.data(), answer.size()); rc != 0) {
        return fail("sendStreamMessage (remote)", rc);
    }
    say("remote", "createDataStream: stream ", answerStream, "; sendStreamMessage(\"", answer, "\") = 0");
    if (!local.waitMessages(1)) return fail("waiting for the answer", -AGORAISH_ERR_TIMEDOUT);

    remoteEngine.leaveChannel();
    if (!remote.waitJoined(false) || !local.waitPeer(false)) {
        return fail("waiting for the remote user to leave", -AGORAISH_ERR_TIMEDOUT);
    }
    localEngine.leaveChannel();
    if (!local.waitJoined(false)) return fail("waiting for onLeaveChannel", -AGORAISH_ERR_TIMEDOUT);

    // The streams ended with the call.
    const int late = localEngine.sendStreamMessage(stream, "late", 4);
    say("local", "after leaving: sendStreamMessage = ", late, " (", agoraish::RtcEngine::getErrorDescription(late),
        ")");

    // Each message once, in order, from local on its stream; and the answer.
    const std::vector<Message> got = remote.messages(), answers = local.messages();
    bool inOrder = got.size() == std::size_t(kMessages);
    for (std::size_t i = 0; inOrder && i < got.size(); ++i) {
        inOrder = got[i].uid == localUid && got[i].stream == stream && got[i].text == messageText(int(i));
    }
    say("remote", "received ", got.size(), " messages, ", inOrder ? "in order" : "NOT as sent", ", ",
        remote.errors(), " errors");
    const bool ok = inOrder && remote.errors() == 0 && local.errors() == 0 &&
                    tooLarge == -AGORAISH_ERR_SIZE_TOO_LARGE && answers.size() == 1 &&
                    answers[0].uid == remoteUid && answers[0].stream == answerStream && answers[0].text == answer;

    remoteEngine.release();
    localEngine.release();
    std::cout << (ok ? "done: remote got local's messages once and in order, and local got the answer"
                     : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
