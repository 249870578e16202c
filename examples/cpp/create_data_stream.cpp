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
#include "example_support.hpp"

#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace {

using example::Clock;
using example::fail;
using example::say;
using namespace std::chrono_literals;

const char* const kChannel = "create-data-stream";
constexpr int kMessages = 5;
constexpr auto kInterval = 200ms;

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
class User : public example::User {
public:
    using example::User::User;

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

    bool waitMessages(std::size_t count) { return waitUntil([&] { return messages_.size() >= count; }); }
    std::vector<Message> messages() { return locked([&] { return messages_; }); }
    int errors() { return locked([&] { return errors_; }); }

private:
    std::vector<Message> messages_;
    int errors_ = 0;
};

}  // namespace

int main() {
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    agoraish::RtcEngine localEngine, remoteEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(remoteEngine, remote, server); rc != 0) return rc;

    // Data only: no microphone, no speaker.
    localEngine.disableAudio();
    remoteEngine.disableAudio();

    if (int rc = example::meet(kChannel, localEngine, local, remoteEngine, remote); rc != 0) return rc;
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

    if (int rc = example::part(localEngine, local, remoteEngine, remote); rc != 0) return rc;

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
