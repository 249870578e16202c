// join_multi_channel.cpp — Agora 4.x's JoinMultipleChannel case in C++: one
// engine in two channels at once, each a connection with its own events.
//
//   joinChannel(token, "first", 1, ChannelMediaOptions)   -> the engine's IRtcEngineEventHandler
//   joinChannelEx(token, RtcConnection("second", 2), options, &handlerEx)
//                                                          -> an IRtcEngineEventHandlerEx, with the connection
//   getConnectionStateEx -> leaveChannelEx -> leaveChannel -> release
//
// "local" joins "first" as uid 1 with its own handler and "second" as uid 2
// with an IRtcEngineEventHandlerEx; "alice" waits in "first" and "bob" in
// "second". Each of them sees only the connection in its own channel; local's
// handler sees alice, its ex handler sees bob. Leaving "second" leaves "first"
// as it was.
//
//   make hosts && build/examples/join_multi_channel_cpp
#include "agoraish.hpp"
#include "example_support.hpp"

#include <condition_variable>
#include <iostream>
#include <mutex>
#include <string>

namespace {

using example::fail;
using example::say;

const char* const kFirst = "first";
const char* const kSecond = "second";

// The second connection's events (Agora's IRtcEngineEventHandlerEx), remembered so main can wait for them.
class SecondConnection : public agoraish::IRtcEngineEventHandlerEx {
public:
    explicit SecondConnection(agoraish::RtcConnection expected) : expected_(std::move(expected)) {}

    void onJoinChannelSuccess(const agoraish::RtcConnection& c, agoraish::uid_t uid, int elapsed) override {
        say("local2", "onJoinChannelSuccess {\"", c.channelId, "\", ", c.localUid, "}: uid ", uid, ", ", elapsed,
            " ms");
        update(c, [&] { joined_ = true; });
    }
    void onUserJoined(const agoraish::RtcConnection& c, agoraish::uid_t uid, int elapsed) override {
        say("local2", "onUserJoined {\"", c.channelId, "\", ", c.localUid, "}: uid ", uid, ", ", elapsed, " ms");
        update(c, [&] { peer_ = uid; });
    }
    void onUserOffline(const agoraish::RtcConnection& c, agoraish::uid_t uid,
                       agoraish::USER_OFFLINE_REASON_TYPE reason) override {
        say("local2", "onUserOffline {\"", c.channelId, "\", ", c.localUid, "}: uid ", uid, ", reason ", int(reason));
        update(c, [&] {
            if (peer_ == uid) peer_ = 0;
        });
    }
    void onLeaveChannel(const agoraish::RtcConnection& c, const agoraish::RtcStats& stats) override {
        say("local2", "onLeaveChannel {\"", c.channelId, "\", ", c.localUid, "} after ", stats.duration, " s");
        update(c, [&] { joined_ = false; });
    }
    void onConnectionStateChanged(const agoraish::RtcConnection& c, agoraish::CONNECTION_STATE_TYPE state,
                                  agoraish::CONNECTION_CHANGED_REASON_TYPE reason) override {
        say("local2", "onConnectionStateChanged {\"", c.channelId, "\", ", c.localUid, "}: state ", int(state),
            ", reason ", int(reason));
        update(c, [] {});
    }

    // Waits (at most example::kTimeout) until the connection is in its channel (or out of it).
    bool waitJoined(bool joined) { return waitUntil([&] { return joined_ == joined; }); }
    // Waits until the connection sees another user (or nobody).
    bool waitPeer(bool present) { return waitUntil([&] { return (peer_ != 0) == present; }); }
    agoraish::uid_t peer() {
        std::lock_guard<std::mutex> lock(mutex_);
        return peer_;
    }
    // Events that named another connection than the one joined.
    int wrongConnection() {
        std::lock_guard<std::mutex> lock(mutex_);
        return wrongConnection_;
    }

private:
    template <typename Change>
    void update(const agoraish::RtcConnection& c, const Change& change) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (c != expected_) ++wrongConnection_;
        change();
        cond_.notify_all();
    }
    template <typename Done>
    bool waitUntil(const Done& done) {
        std::unique_lock<std::mutex> lock(mutex_);
        return cond_.wait_for(lock, example::kTimeout, done);
    }

    const agoraish::RtcConnection expected_;
    std::mutex mutex_;
    std::condition_variable cond_;
    // Guarded by mutex_.
    bool joined_ = false;
    agoraish::uid_t peer_ = 0;
    int wrongConnection_ = 0;
};

// Joins `channel` as `uid` and waits until the user is in; 0, or fail()'s status.
int join(agoraish::RtcEngine& engine, example::User& user, const char* channel, agoraish::uid_t uid) {
    if (int rc = engine.joinChannel(nullptr, channel, nullptr, uid); rc != 0) return fail("joinChannel", rc);
    if (!user.waitJoined(true)) return fail("waiting for onJoinChannelSuccess", -AGORAISH_ERR_TIMEDOUT);
    return 0;
}

}  // namespace

int main() {
    const agoraish::RtcConnection second(kSecond, 2);
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    example::User local("local"), alice("alice"), bob("bob");
    SecondConnection secondEvents(second);
    agoraish::RtcEngine localEngine, aliceEngine, bobEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(aliceEngine, alice, server); rc != 0) return rc;
    if (int rc = example::createEngine(bobEngine, bob, server); rc != 0) return rc;
    // Nobody here talks: every device is ALSA's "null".
    localEngine.setRecordingDevice("null");
    localEngine.setPlaybackDevice("null");
    for (agoraish::RtcEngine* peer : {&aliceEngine, &bobEngine}) {
        peer->enableLocalAudio(false);
        peer->setPlaybackDevice("null");
    }

    if (int rc = join(aliceEngine, alice, kFirst, 11); rc != 0) return rc;
    if (int rc = join(bobEngine, bob, kSecond, 21); rc != 0) return rc;

    // The engine's own connection: "first" as uid 1, with media options.
    agoraish::ChannelMediaOptions options;
    options.autoSubscribeAudio = true;
    if (int rc = localEngine.joinChannel(nullptr, kFirst, 1, options); rc != 0) return fail("joinChannel(options)", rc);
    say("local", "joinChannel(\"", kFirst, "\", 1, options) = 0");
    if (!local.waitJoined(true)) return fail("waiting for onJoinChannelSuccess", -AGORAISH_ERR_TIMEDOUT);

    // A second connection: "second" as uid 2, with a handler of its own.
    if (int rc = localEngine.joinChannelEx(nullptr, second, options, &secondEvents); rc != 0) {
        return fail("joinChannelEx", rc);
    }
    say("local", "joinChannelEx({\"", kSecond, "\", 2}) = 0");
    if (!secondEvents.waitJoined(true)) return fail("waiting for the second connection", -AGORAISH_ERR_TIMEDOUT);
    say("local", "joinChannelEx({\"", kSecond, "\", 2}) again = ",
        localEngine.joinChannelEx(nullptr, second, options, &secondEvents), " (already joined)");

    // Each side sees the connection in its own channel.
    if (!local.waitPeer(true) || !secondEvents.waitPeer(true) || !alice.waitPeer(true) || !bob.waitPeer(true)) {
        return fail("waiting for the users to see each other", -AGORAISH_ERR_TIMEDOUT);
    }
    say("local", "first sees uid ", local.peer(), ", second sees uid ", secondEvents.peer(), "; alice sees ",
        alice.peer(), ", bob sees ", bob.peer());
    say("local", "connection states: first ", int(localEngine.getConnectionState()), ", second ",
        int(localEngine.getConnectionStateEx(second)), " (3: CONNECTED)");
    bool ok = local.peer() == 11 && secondEvents.peer() == 21 && alice.peer() == 1 && bob.peer() == 2;

    // Leaving the second channel: bob sees local go; alice and the first connection stay.
    int rc = localEngine.leaveChannelEx(second);
    say("local", "leaveChannelEx({\"", kSecond, "\", 2}) = ", rc);
    ok = ok && rc == 0 && secondEvents.waitJoined(false) && bob.waitPeer(false);
    rc = localEngine.leaveChannelEx(second);
    say("local", "leaveChannelEx({\"", kSecond, "\", 2}) again = ", rc, " (no such connection)");
    ok = ok && rc == -AGORAISH_ERR_LEAVE_CHANNEL_REJECTED && alice.peer() == 1 && local.peer() == 11 &&
         localEngine.getConnectionState() == agoraish::CONNECTION_STATE_CONNECTED;
    say("local", "still in \"", kFirst, "\" with alice: ", ok ? "yes" : "no");

    ok = ok && example::part(aliceEngine, alice, localEngine, local) == 0 && secondEvents.wrongConnection() == 0;

    bobEngine.release();
    aliceEngine.release();
    localEngine.release();
    std::cout << (ok ? "done: local was in both channels at once and left each on its own"
                     : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
