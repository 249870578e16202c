// join_channel.cpp — the JoinChannel lifecycle of Agora's C++ samples, through
// bindings/cpp/agoraish.hpp, against a channel server inside this process:
//
//   initialize -> setChannelProfile -> setClientRole -> joinChannel
//   -> onJoinChannelSuccess -> onUserJoined (a remote user arrives)
//   -> onUserOffline (it leaves) -> leaveChannel -> onLeaveChannel -> release
//
// The "remote" user is a second engine in the same process; on a real
// deployment it would be another host pointed at the same server.
//
//   make hosts && build/examples/join_channel_cpp
#include "agoraish.hpp"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <iostream>
#include <mutex>
#include <ostream>
#include <string>

namespace {

const char* const kAppId = "0123456789abcdef0123456789abcdef";
const char* const kChannel = "join-channel";
constexpr auto kTimeout = std::chrono::seconds(5);

const char* reasonName(agoraish::USER_OFFLINE_REASON_TYPE reason) {
    switch (reason) {
    case agoraish::USER_OFFLINE_QUIT: return "quit";
    case agoraish::USER_OFFLINE_DROPPED: return "dropped";
    case agoraish::USER_OFFLINE_BECOME_AUDIENCE: return "became audience";
    }
    return "unknown";
}

// A user's events, remembered so main can wait for them; the local user's are
// also printed as they arrive (on its engine's event thread, one at a time).
class JoinChannelHandler : public agoraish::IRtcEngineEventHandler {
public:
    JoinChannelHandler(std::string name, bool print) : name_(std::move(name)), out_(print ? std::cout : null_) {}

    void onJoinChannelSuccess(const char* channel, agoraish::uid_t uid, int elapsed) override {
        update([&] {
            out_ << name_ << ": onJoinChannelSuccess channel " << channel << " uid " << uid << " elapsed "
                      << elapsed << " ms\n";
            uid_ = uid;
            joined_ = true;
        });
    }
    void onUserJoined(agoraish::uid_t uid, int elapsed) override {
        update([&] {
            out_ << name_ << ": onUserJoined uid " << uid << " elapsed " << elapsed << " ms\n";
            remote_ = uid;
        });
    }
    void onUserOffline(agoraish::uid_t uid, agoraish::USER_OFFLINE_REASON_TYPE reason) override {
        update([&] {
            out_ << name_ << ": onUserOffline uid " << uid << " reason " << reasonName(reason) << "\n";
            if (uid == remote_) remote_ = 0;
        });
    }
    void onLeaveChannel(const agoraish::RtcStats& stats) override {
        update([&] {
            out_ << name_ << ": onLeaveChannel duration " << stats.duration << " s, tx " << stats.txBytes
                      << " bytes, rx " << stats.rxBytes << " bytes, users " << stats.userCount << "\n";
            joined_ = false;
        });
    }
    void onError(int err, const char* msg) override {
        update([&] { out_ << name_ << ": onError " << err << " " << msg << "\n"; });
    }

    // Wait (up to kTimeout) for what the callbacks record.
    bool waitJoined(bool joined) { return waitUntil([&] { return joined_ == joined; }); }
    bool waitRemote(agoraish::uid_t uid) { return waitUntil([&] { return remote_ == uid; }); }
    agoraish::uid_t uid() {
        std::lock_guard<std::mutex> lock(mutex_);
        return uid_;
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

    std::string name_;
    std::ostream null_{nullptr};  // discards what it is given
    std::ostream& out_;
    std::mutex mutex_;
    std::condition_variable cond_;
    bool joined_ = false;
    agoraish::uid_t uid_ = 0;
    agoraish::uid_t remote_ = 0;
};

int fail(const char* what, int rc) {
    std::cerr << what << " failed: " << rc << " (" << agoraish::RtcEngine::getErrorDescription(rc) << ")\n";
    return 1;
}

}  // namespace

int main() {
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    JoinChannelHandler local("local", true), remote("remote", false);

    if (int rc = server.initialize(); rc != 0) return fail("ChannelServer::initialize", rc);
    if (int rc = server.start(); rc != 0) return fail("ChannelServer::start", rc);
    std::cout << "agoraish " << agoraish::RtcEngine::getVersion() << ", channel server at " << server.url() << "\n";

    agoraish::RtcEngineContext context;
    context.appId = kAppId;
    context.serverUrl = server.url();
    context.eventHandler = &local;
    agoraish::RtcEngine engine;
    if (int rc = engine.initialize(context); rc != 0) return fail("initialize", rc);

    // As the JoinChannel sample: a broadcaster in a live-broadcasting channel.
    if (int rc = engine.setChannelProfile(agoraish::CHANNEL_PROFILE_LIVE_BROADCASTING); rc != 0) {
        return fail("setChannelProfile", rc);
    }
    if (int rc = engine.setClientRole(agoraish::CLIENT_ROLE_BROADCASTER); rc != 0) return fail("setClientRole", rc);
    std::cout << "local: joinChannel(\"" << kChannel << "\", uid 0)\n";
    if (int rc = engine.joinChannel(nullptr, kChannel, nullptr, 0); rc != 0) return fail("joinChannel", rc);
    if (!local.waitJoined(true)) return fail("waiting for onJoinChannelSuccess", -AGORAISH_ERR_TIMEDOUT);

    // A remote broadcaster joins the same channel, then leaves.
    context.eventHandler = &remote;
    agoraish::RtcEngine other;
    if (int rc = other.initialize(context); rc != 0) return fail("initialize (remote)", rc);
    other.setChannelProfile(agoraish::CHANNEL_PROFILE_LIVE_BROADCASTING);
    if (int rc = other.joinChannel(nullptr, kChannel, nullptr, 0); rc != 0) return fail("joinChannel (remote)", rc);
    if (!remote.waitJoined(true)) return fail("waiting for the remote join", -AGORAISH_ERR_TIMEDOUT);
    if (!local.waitRemote(remote.uid())) return fail("waiting for onUserJoined", -AGORAISH_ERR_TIMEDOUT);
    std::string callId;
    if (engine.getCallId(callId) == 0) std::cout << "local: getCallId " << callId << "\n";

    std::cout << "remote: leaveChannel\n";
    other.leaveChannel();
    if (!remote.waitJoined(false)) return fail("waiting for the remote leave", -AGORAISH_ERR_TIMEDOUT);
    if (!local.waitRemote(0)) return fail("waiting for onUserOffline", -AGORAISH_ERR_TIMEDOUT);

    std::cout << "local: leaveChannel\n";
    engine.leaveChannel();
    if (!local.waitJoined(false)) return fail("waiting for onLeaveChannel", -AGORAISH_ERR_TIMEDOUT);

    other.release();
    engine.release();  // the destructors would do it too
    std::cout << "released\n";
    return 0;
}
