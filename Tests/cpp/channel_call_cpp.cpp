// channel_call_cpp.cpp — calls between engines through bindings/cpp/agoraish.hpp:
// an RAII ChannelServer in the process, engines with an IRtcEngineEventHandler
// subclass that overrides every callback with Agora's names and types.
//
//   - call:     joinChannel on both sides, onJoinChannelSuccess, onUserJoined both
//               ways, getCallId, getConnectionState; leaveChannel: onLeaveChannel
//               with RtcStats, onConnectionStateChanged CONNECTING -> CONNECTED ->
//               DISCONNECTED as the C++ enums, onUserOffline(USER_OFFLINE_QUIT);
//   - accounts: registerLocalUserAccount, joinChannelWithUserAccount,
//               onLocalUserRegistered, onUserInfoUpdated with a UserInfo,
//               getUserInfoByUid / getUserInfoByUserAccount;
//   - roles:    setChannelProfile(LIVE_BROADCASTING), setClientRole: the audience is
//               unseen, becoming broadcaster shows it, going back hides it with
//               USER_OFFLINE_BECOME_AUDIENCE;
//   - RAII:     an RtcEngine that goes out of scope while joined leaves first;
//               ChannelServer is move-only, reports its URL and HTTP port, and
//               answers -7 when empty; the empty RtcEngine answers -7;
//   - echo:     startEchoTest outside 2..10 is -2, stopEchoTest without a test -5;
//               startEchoTest(EchoTestConfiguration): a bad interval, no medium or a
//               bad channel -2, video -4; the defaults with a channel start a test.
//
// Waits use std::condition_variable with deadlines. Exit status 0 when every
// check passes; otherwise one line per failed check on stderr and status 1.
#define TEST_NAME "channel_call_cpp"
#include "test_support.hpp"

#include <type_traits>

namespace {

using test_support::check;

// The wrapper's types are Agora's.
static_assert(std::is_same_v<agoraish::uid_t, std::uint32_t>, "uid_t is 32 bits unsigned");
static_assert(!std::is_copy_constructible_v<agoraish::ChannelServer>, "ChannelServer is not copyable");
static_assert(std::is_nothrow_move_constructible_v<agoraish::ChannelServer>, "ChannelServer moves");
static_assert(std::is_nothrow_move_assignable_v<agoraish::ChannelServer>, "ChannelServer move-assigns");
static_assert(int{agoraish::CONNECTION_STATE_CONNECTED} == int{AGORAISH_CONNECTION_STATE_CONNECTED}, "C's values");
static_assert(int{agoraish::USER_OFFLINE_BECOME_AUDIENCE} == int{AGORAISH_USER_OFFLINE_BECOME_AUDIENCE}, "C's values");
static_assert(sizeof(agoraish::UserInfo::userAccount) == AGORAISH_MAX_USER_ACCOUNT_LENGTH, "UserInfo holds an account");

/// How long one wait may take: below the server's 20 s drop timeout.
constexpr auto kWait = std::chrono::seconds(15);

const char* const kAppId = "0123456789abcdef0123456789abcdef";

enum class Kind {
    ApiCall, Join, Rejoin, Leave, UserJoined, UserOffline, Role, State, Lost, WillExpire, RequestToken,
    Registered, UserInfo, Error
};

struct Event {
    Event(Kind k = Kind::ApiCall, agoraish::uid_t u = 0, int first = 0, int second = 0, const char* t = nullptr)
        : kind(k), uid(u), a(first), b(second), text(t != nullptr ? t : "") {}

    Kind kind;
    agoraish::uid_t uid;
    int a;  // elapsed, reason, old role, state, err
    int b;  // new role, state reason
    std::string text;
    agoraish::RtcStats stats;
    agoraish::UserInfo info;
};

/// Records every callback with Agora's signature; waits for matching events.
class CallHandler : public agoraish::IRtcEngineEventHandler, public test_support::EventLog<Event> {
public:
    explicit CallHandler(std::string name) : name_(std::move(name)) {}

    void onApiCallExecuted(int err, const char* api, const char*) override { record({Kind::ApiCall, 0, err, 0, api}); }
    void onJoinChannelSuccess(const char* channel, agoraish::uid_t uid, int elapsed) override {
        record({Kind::Join, uid, elapsed, 0, channel});
    }
    void onRejoinChannelSuccess(const char* channel, agoraish::uid_t uid, int elapsed) override {
        record({Kind::Rejoin, uid, elapsed, 0, channel});
    }
    void onLeaveChannel(const agoraish::RtcStats& stats) override {
        Event e{Kind::Leave};
        e.stats = stats;
        record(std::move(e));
    }
    void onUserJoined(agoraish::uid_t uid, int elapsed) override { record({Kind::UserJoined, uid, elapsed}); }
    void onUserOffline(agoraish::uid_t uid, agoraish::USER_OFFLINE_REASON_TYPE reason) override {
        record({Kind::UserOffline, uid, reason});
    }
    void onClientRoleChanged(agoraish::CLIENT_ROLE_TYPE oldRole, agoraish::CLIENT_ROLE_TYPE newRole) override {
        record({Kind::Role, 0, oldRole, newRole});
    }
    void onConnectionStateChanged(agoraish::CONNECTION_STATE_TYPE state,
                                  agoraish::CONNECTION_CHANGED_REASON_TYPE reason) override {
        record({Kind::State, 0, state, reason});
    }
    void onConnectionLost() override { record({Kind::Lost}); }
    void onTokenPrivilegeWillExpire(const char* token) override { record({Kind::WillExpire, 0, 0, 0, token}); }
    void onRequestToken() override { record({Kind::RequestToken}); }
    void onLocalUserRegistered(agoraish::uid_t uid, const char* userAccount) override {
        record({Kind::Registered, uid, 0, 0, userAccount});
    }
    void onUserInfoUpdated(agoraish::uid_t uid, const agoraish::UserInfo& info) override {
        Event e{Kind::UserInfo, uid};
        e.info = info;
        record(std::move(e));
    }
    void onError(int err, const char* msg) override { record({Kind::Error, 0, err, 0, msg}); }

    /// The index of the first event at or after `from` that satisfies `match`,
    /// waiting up to kWait; -1 (and a failed check) when none came.
    int waitFor(int line, std::size_t from, const Match& match, const std::string& what, Event* out = nullptr) {
        const int found = waitForMatch(from, match, kWait, out);
        check(found >= 0, line, what + ": " + name_ + " got no such event in time");
        return found;
    }

private:
    std::string name_;
};

std::function<bool(const Event&)> is(Kind kind) {
    return [kind](const Event& e) { return e.kind == kind; };
}
std::function<bool(const Event&)> isUser(Kind kind, agoraish::uid_t uid) {
    return [kind, uid](const Event& e) { return e.kind == kind && e.uid == uid; };
}

/// WAIT(handler, from, match, what[, Event* out]): waitFor with the caller's line.
#define WAIT(handler, ...) (handler).waitFor(__LINE__, __VA_ARGS__)

agoraish::RtcEngineContext contextFor(CallHandler* handler, const std::string& url, const std::string& logFile) {
    return test_support::contextFor(kAppId, handler, logFile, url);
}

/// Two users join, see each other; one leaves with statistics; the other sees it go.
void callStory(const std::string& url, const std::string& dir) {
    CallHandler alice("alice"), bob("bob");  // outlive the engines below
    agoraish::RtcEngine a, b;
    CHECK_RC(a.initialize(contextFor(&alice, url, dir + "/call-a.log")), 0, "initialize alice");
    CHECK_RC(b.initialize(contextFor(&bob, url, dir + "/call-b.log")), 0, "initialize bob");

    std::string callId = "unchanged";
    CHECK(a.getConnectionState() == agoraish::CONNECTION_STATE_DISCONNECTED, "alice is disconnected at first");
    CHECK_RC(a.getCallId(callId), -AGORAISH_ERR_NOT_IN_CHANNEL, "alice getCallId before any call");
    CHECK(callId == "unchanged", "getCallId changed its output on failure");
    CHECK_RC(a.leaveChannel(), -AGORAISH_ERR_LEAVE_CHANNEL_REJECTED, "alice leaveChannel before joining");

    CHECK_RC(a.joinChannel(nullptr, "cpp-call", nullptr, 1001), 0, "alice joinChannel(1001)");
    Event joined{Kind::Join};
    if (WAIT(alice, 0, is(Kind::Join), "alice joins", &joined) >= 0) {
        CHECK(joined.uid == 1001 && joined.text == "cpp-call" && joined.a >= 0,
              "alice joined " + joined.text + " as " + std::to_string(joined.uid));
    }
    CHECK(a.getConnectionState() == agoraish::CONNECTION_STATE_CONNECTED, "alice is connected");
    CHECK_RC(b.joinChannel("", "cpp-call", "info", 0), 0, "bob joinChannel(0)");
    Event bobJoined{Kind::Join};
    if (WAIT(bob, 0, is(Kind::Join), "bob joins", &bobJoined) < 0) return;
    const agoraish::uid_t bobUid = bobJoined.uid;
    CHECK(bobUid != 0 && bobUid != 1001, "bob got uid " + std::to_string(bobUid));
    WAIT(alice, 0, isUser(Kind::UserJoined, bobUid), "alice sees bob");
    WAIT(bob, 0, isUser(Kind::UserJoined, 1001), "bob sees alice");

    std::string idA, idB;
    CHECK_RC(a.getCallId(idA), 0, "alice getCallId");
    CHECK_RC(b.getCallId(idB), 0, "bob getCallId");
    CHECK(!idA.empty() && !idB.empty() && idA != idB, "call ids \"" + idA + "\" and \"" + idB + "\"");
    CHECK_RC(b.renewToken("renewed"), 0, "bob renewToken while joined");
    CHECK_RC(b.switchChannel(nullptr, "cpp-call-2"), -AGORAISH_ERR_REFUSED, "bob switchChannel as a broadcaster");

    CHECK_RC(b.leaveChannel(), 0, "bob leaveChannel");
    Event left{Kind::Leave};
    const int leaveAt = WAIT(bob, 0, is(Kind::Leave), "bob leaves", &left);
    if (leaveAt >= 0) {
        CHECK(left.stats.userCount == 2, "bob's RtcStats userCount " + std::to_string(left.stats.userCount));
        CHECK(left.stats.txBytes > 0 && left.stats.rxBytes > 0 && left.stats.txPackets > 0 && left.stats.rxPackets > 0,
              "bob's RtcStats tx " + std::to_string(left.stats.txBytes) + " rx " + std::to_string(left.stats.rxBytes));
    }
    const int lastState = WAIT(bob, 0, [](const Event& e) {
        return e.kind == Kind::State && e.a == agoraish::CONNECTION_STATE_DISCONNECTED;
    }, "bob disconnected");
    CHECK(leaveAt >= 0 && leaveAt < lastState, "onLeaveChannel comes before DISCONNECTED");
    Event offline{Kind::UserOffline};
    if (WAIT(alice, 0, isUser(Kind::UserOffline, bobUid), "alice sees bob go", &offline) >= 0) {
        CHECK(offline.a == agoraish::USER_OFFLINE_QUIT, "bob went offline with reason " + std::to_string(offline.a));
    }

    std::vector<std::pair<int, int>> states;
    for (const Event& e : bob.events()) {
        if (e.kind == Kind::State) states.emplace_back(e.a, e.b);
    }
    const std::vector<std::pair<int, int>> expected = {
        {agoraish::CONNECTION_STATE_CONNECTING, agoraish::CONNECTION_CHANGED_CONNECTING},
        {agoraish::CONNECTION_STATE_CONNECTED, agoraish::CONNECTION_CHANGED_JOIN_SUCCESS},
        {agoraish::CONNECTION_STATE_DISCONNECTED, agoraish::CONNECTION_CHANGED_LEAVE_CHANNEL},
    };
    CHECK(states == expected, "bob's connection states are not CONNECTING/0, CONNECTED/1, DISCONNECTED/5 (" +
                                  std::to_string(states.size()) + " changes)");
    CHECK(b.getConnectionState() == agoraish::CONNECTION_STATE_DISCONNECTED, "bob is disconnected after leaving");
    std::string idAfter;
    CHECK(b.getCallId(idAfter) == 0 && idAfter == idB, "bob's last call id after leaving: " + idAfter);
    CHECK(alice.countIf(is(Kind::Error)) == 0 && bob.countIf(is(Kind::Error)) == 0, "onError during a plain call");

    CHECK_RC(a.leaveChannel(), 0, "alice leaveChannel");
    WAIT(alice, 0, is(Kind::Leave), "alice leaves");
    CHECK(alice.onCallerThread() == 0 && bob.onCallerThread() == 0, "callbacks ran on the caller's thread");
    // ~RtcEngine releases both (release(true)) before the handlers go.
}

/// Accounts: register, join with accounts, learn each other's, look them up.
void accountsStory(const std::string& url, const std::string& dir) {
    CallHandler alice("alice"), bob("bob");
    agoraish::RtcEngine a, b;
    CHECK_RC(a.initialize(contextFor(&alice, url, dir + "/acct-a.log")), 0, "initialize alice");
    CHECK_RC(b.initialize(contextFor(&bob, url, dir + "/acct-b.log")), 0, "initialize bob");

    CHECK_RC(a.registerLocalUserAccount(kAppId, "cpp-alice"), 0, "alice registerLocalUserAccount");
    Event reg{Kind::Registered};
    if (WAIT(alice, 0, is(Kind::Registered), "alice registers", &reg) < 0) return;
    const agoraish::uid_t aliceUid = reg.uid;
    CHECK(reg.text == "cpp-alice" && aliceUid != 0, "alice registered as " + reg.text);
    agoraish::UserInfo info;
    CHECK_RC(a.getUserInfoByUserAccount("cpp-alice", &info), 0, "alice getUserInfoByUserAccount(own)");
    CHECK(info.uid == aliceUid && std::string(info.userAccount) == "cpp-alice", "alice's own UserInfo");
    CHECK_RC(a.getUserInfoByUserAccount("cpp-alice", nullptr), -AGORAISH_ERR_INVALID_ARGUMENT,
             "getUserInfoByUserAccount with a null UserInfo");

    CHECK_RC(a.joinChannelWithUserAccount(nullptr, "cpp-accounts", "cpp-alice"), 0, "alice joinChannelWithUserAccount");
    Event joined{Kind::Join};
    if (WAIT(alice, 0, is(Kind::Join), "alice joins", &joined) >= 0) {
        CHECK(joined.uid == aliceUid, "alice joined with her account's uid");
    }
    CHECK_RC(b.joinChannelWithUserAccount(nullptr, "cpp-accounts", "cpp-bob"), 0, "bob joinChannelWithUserAccount");
    Event bobReg{Kind::Registered};
    if (WAIT(bob, 0, is(Kind::Registered), "bob is registered", &bobReg) < 0) return;
    const agoraish::uid_t bobUid = bobReg.uid;
    WAIT(bob, 0, isUser(Kind::Join, bobUid), "bob joins with his account's uid");

    Event learned{Kind::UserInfo};
    const int infoAt = WAIT(bob, 0, isUser(Kind::UserInfo, aliceUid), "bob learns alice's account", &learned);
    const int joinedAt = WAIT(bob, 0, isUser(Kind::UserJoined, aliceUid), "bob sees alice");
    CHECK(infoAt < joinedAt, "onUserInfoUpdated comes before onUserJoined");
    CHECK(learned.info.uid == aliceUid && std::string(learned.info.userAccount) == "cpp-alice",
          "bob's UserInfo for alice: " + std::string(learned.info.userAccount));
    WAIT(alice, 0, isUser(Kind::UserInfo, bobUid), "alice learns bob's account");
    WAIT(alice, 0, isUser(Kind::UserJoined, bobUid), "alice sees bob");

    info = agoraish::UserInfo();
    CHECK_RC(a.getUserInfoByUid(bobUid, &info), 0, "alice getUserInfoByUid(bob)");
    CHECK(info.uid == bobUid && std::string(info.userAccount) == "cpp-bob", "alice's UserInfo for bob");
    info = agoraish::UserInfo();
    CHECK_RC(b.getUserInfoByUserAccount("cpp-alice", &info), 0, "bob getUserInfoByUserAccount(alice)");
    CHECK(info.uid == aliceUid, "bob's UserInfo for the account cpp-alice");
    info.uid = 77;
    CHECK_RC(b.getUserInfoByUid(4242424242u, &info), -AGORAISH_ERR_INVALID_ARGUMENT, "getUserInfoByUid(unknown)");
    CHECK(info.uid == 77, "getUserInfoByUid changed its output on failure");

    CHECK_RC(a.leaveChannel(), 0, "alice leaves");
    CHECK_RC(b.leaveChannel(), 0, "bob leaves");
    WAIT(alice, 0, is(Kind::Leave), "alice left");
    WAIT(bob, 0, is(Kind::Leave), "bob left");
}

/// Live broadcasting: the audience is unseen until it becomes a broadcaster.
void rolesStory(const std::string& url, const std::string& dir) {
    CallHandler host("host"), fan("fan");
    agoraish::RtcEngine h, f;
    CHECK_RC(h.initialize(contextFor(&host, url, dir + "/roles-h.log")), 0, "initialize host");
    CHECK_RC(f.initialize(contextFor(&fan, url, dir + "/roles-f.log")), 0, "initialize fan");
    CHECK_RC(h.setChannelProfile(agoraish::CHANNEL_PROFILE_LIVE_BROADCASTING), 0, "host setChannelProfile(LIVE)");
    CHECK_RC(f.setChannelProfile(agoraish::CHANNEL_PROFILE_LIVE_BROADCASTING), 0, "fan setChannelProfile(LIVE)");
    // The default role is audience (as Agora's): the host asks to broadcast.
    CHECK_RC(h.setClientRole(agoraish::CLIENT_ROLE_BROADCASTER), 0, "host setClientRole(BROADCASTER)");
    WAIT(host, 0, [](const Event& e) {
        return e.kind == Kind::Role && e.a == agoraish::CLIENT_ROLE_AUDIENCE && e.b == agoraish::CLIENT_ROLE_BROADCASTER;
    }, "host's role changes before joining");
    CHECK_RC(f.setClientRole(agoraish::CLIENT_ROLE_AUDIENCE), 0, "fan setClientRole(AUDIENCE)");
    CHECK_RC(f.setClientRole(static_cast<agoraish::CLIENT_ROLE_TYPE>(3)), -AGORAISH_ERR_INVALID_ARGUMENT,
             "setClientRole(3)");

    CHECK_RC(h.joinChannel(nullptr, "cpp-roles", nullptr, 2001), 0, "host joins");
    WAIT(host, 0, isUser(Kind::Join, 2001), "host joined");
    CHECK_RC(h.setChannelProfile(agoraish::CHANNEL_PROFILE_COMMUNICATION), -AGORAISH_ERR_REFUSED,
             "setChannelProfile while joined");
    CHECK_RC(f.joinChannel(nullptr, "cpp-roles", nullptr, 2002), 0, "fan joins");
    WAIT(fan, 0, isUser(Kind::Join, 2002), "fan joined");
    WAIT(fan, 0, isUser(Kind::UserJoined, 2001), "fan sees the host");

    // A round trip of the host through the server: whatever the fan's join made
    // the server tell the host has arrived by its answer.
    std::size_t from = host.count();
    CHECK_RC(h.registerLocalUserAccount(kAppId, "cpp-roles-host"), 0, "host round trip");
    WAIT(host, from, is(Kind::Registered), "host round trip answered");
    CHECK(host.countIf(isUser(Kind::UserJoined, 2002)) == 0, "the host saw the audience");

    from = host.count();
    CHECK_RC(f.setClientRole(agoraish::CLIENT_ROLE_BROADCASTER), 0, "fan becomes broadcaster");
    WAIT(host, from, isUser(Kind::UserJoined, 2002), "the host sees the new broadcaster");
    from = host.count();
    std::size_t fanFrom = fan.count();
    CHECK_RC(f.setClientRole(agoraish::CLIENT_ROLE_AUDIENCE), 0, "fan becomes audience again");
    // The fan's own engine knows it is an audience once the server has answered.
    WAIT(fan, fanFrom, [](const Event& e) { return e.kind == Kind::Role && e.b == agoraish::CLIENT_ROLE_AUDIENCE; },
         "the fan's role change is confirmed");
    Event offline{Kind::UserOffline};
    if (WAIT(host, from, isUser(Kind::UserOffline, 2002), "the host sees the fan go", &offline) >= 0) {
        CHECK(offline.a == agoraish::USER_OFFLINE_BECOME_AUDIENCE,
              "the fan went offline with reason " + std::to_string(offline.a));
    }
    from = fan.count();
    CHECK_RC(f.switchChannel(nullptr, "cpp-roles-2"), 0, "the audience switchChannel");
    Event switched{Kind::Join};
    if (WAIT(fan, from, is(Kind::Join), "fan joins the other channel", &switched) >= 0) {
        CHECK(switched.text == "cpp-roles-2", "fan switched to " + switched.text);
    }
    CHECK_RC(f.leaveChannel(), 0, "fan leaves");
    CHECK_RC(h.leaveChannel(), 0, "host leaves");
    WAIT(fan, from, is(Kind::Leave), "fan left");
    WAIT(host, 0, is(Kind::Leave), "host left");
}

/// RAII: an engine destroyed while joined leaves first; the empty objects answer -7.
void raiiStory(const std::string& url, const std::string& dir) {
    CallHandler stayer("stayer"), leaver("leaver");
    agoraish::RtcEngine s;
    CHECK_RC(s.initialize(contextFor(&stayer, url, dir + "/raii-s.log")), 0, "initialize the stayer");
    CHECK_RC(s.joinChannel(nullptr, "cpp-raii", nullptr, 3002), 0, "stayer joins");
    {
        agoraish::RtcEngine l;
        CHECK_RC(l.initialize(contextFor(&leaver, url, dir + "/raii-l.log")), 0, "initialize the leaver");
        CHECK_RC(l.joinChannel(nullptr, "cpp-raii", nullptr, 3001), 0, "leaver joins");
        WAIT(leaver, 0, isUser(Kind::Join, 3001), "the leaver joined");
        WAIT(stayer, 0, isUser(Kind::UserJoined, 3001), "the stayer sees the leaver");
        // ~RtcEngine: release(true) while joined.
    }
    Event offline{Kind::UserOffline};
    if (WAIT(stayer, 0, isUser(Kind::UserOffline, 3001), "the stayer sees the destroyed engine go", &offline) >= 0) {
        CHECK(offline.a == agoraish::USER_OFFLINE_QUIT, "reason " + std::to_string(offline.a) + ", expected QUIT");
    }
    CHECK_RC(s.leaveChannel(), 0, "stayer leaves");
    WAIT(stayer, 0, is(Kind::Leave), "stayer left");
    CHECK_RC(s.startEchoTest(1), -AGORAISH_ERR_INVALID_ARGUMENT, "startEchoTest(1)");
    CHECK_RC(s.startEchoTest(11), -AGORAISH_ERR_INVALID_ARGUMENT, "startEchoTest(11)");
    CHECK_RC(s.stopEchoTest(), -AGORAISH_ERR_REFUSED, "stopEchoTest without an echo test");
    {
        agoraish::EchoTestConfiguration echo;
        echo.intervalInSeconds = 11;
        CHECK_RC(s.startEchoTest(echo), -AGORAISH_ERR_INVALID_ARGUMENT, "startEchoTest(config) interval 11");
        echo = agoraish::EchoTestConfiguration();
        echo.enableAudio = false;
        CHECK_RC(s.startEchoTest(echo), -AGORAISH_ERR_INVALID_ARGUMENT, "startEchoTest(config) without audio or video");
        echo = agoraish::EchoTestConfiguration();
        echo.channelId = "no/slash";
        CHECK_RC(s.startEchoTest(echo), -AGORAISH_ERR_INVALID_ARGUMENT, "startEchoTest(config) a bad channel");
        echo = agoraish::EchoTestConfiguration();
        echo.enableVideo = true;
        CHECK_RC(s.startEchoTest(echo), -AGORAISH_ERR_NOT_SUPPORTED, "startEchoTest(config) with video");
        echo = agoraish::EchoTestConfiguration();
        echo.channelId = "cpp-echo";
        CHECK_RC(s.startEchoTest(echo), 0, "startEchoTest(config) with the defaults and a channel");
        CHECK_RC(s.startEchoTest(echo), -AGORAISH_ERR_REFUSED, "startEchoTest(config) twice");
        CHECK_RC(s.stopEchoTest(), 0, "stopEchoTest after startEchoTest(config)");
    }

    agoraish::RtcEngine empty;
    std::string text = "unchanged";
    agoraish::UserInfo info;
    CHECK_RC(empty.joinChannel(nullptr, "cpp-raii", nullptr, 0), -AGORAISH_ERR_NOT_INITIALIZED, "empty joinChannel");
    CHECK_RC(empty.leaveChannel(), -AGORAISH_ERR_NOT_INITIALIZED, "empty leaveChannel");
    CHECK_RC(empty.setClientRole(agoraish::CLIENT_ROLE_AUDIENCE), -AGORAISH_ERR_NOT_INITIALIZED, "empty setClientRole");
    CHECK_RC(empty.getCallId(text), -AGORAISH_ERR_NOT_INITIALIZED, "empty getCallId");
    CHECK_RC(empty.getUserInfoByUid(1, &info), -AGORAISH_ERR_NOT_INITIALIZED, "empty getUserInfoByUid");
    CHECK_RC(empty.getConnectionState(), -AGORAISH_ERR_NOT_INITIALIZED, "empty getConnectionState");
    CHECK_RC(empty.startEchoTest(2), -AGORAISH_ERR_NOT_INITIALIZED, "empty startEchoTest");
    CHECK_RC(empty.startEchoTest(agoraish::EchoTestConfiguration()), -AGORAISH_ERR_NOT_INITIALIZED,
             "empty startEchoTest(config)");
    CHECK_RC(empty.stopEchoTest(), -AGORAISH_ERR_NOT_INITIALIZED, "empty stopEchoTest");
    CHECK(text == "unchanged", "empty getCallId changed its output");
}

/// ChannelServer: configuration errors, states, moves.
void serverObject() {
    agoraish::ChannelServer bad;
    agoraish::ChannelServerConfig config;
    config.signalingPort = 65536;
    CHECK_RC(bad.initialize(config), -AGORAISH_ERR_INVALID_ARGUMENT, "ChannelServer port 65536");
    config = agoraish::ChannelServerConfig();
    config.configJson = "not json";
    CHECK_RC(bad.initialize(config), -AGORAISH_ERR_INVALID_ARGUMENT, "ChannelServer configJson not JSON");
    CHECK(!bad, "a ChannelServer that failed to initialize holds a server");
    CHECK_RC(bad.start(), -AGORAISH_ERR_NOT_INITIALIZED, "start on an empty ChannelServer");
    CHECK_RC(bad.stop(), -AGORAISH_ERR_NOT_INITIALIZED, "stop on an empty ChannelServer");
    CHECK_RC(bad.httpPort(), -AGORAISH_ERR_NOT_INITIALIZED, "httpPort on an empty ChannelServer");
    CHECK(bad.url().empty(), "url of an empty ChannelServer");
    CHECK_RC(bad.release(), 0, "release on an empty ChannelServer");

    agoraish::ChannelServer a;
    CHECK_RC(a.initialize(), 0, "ChannelServer defaults");
    CHECK_RC(a.initialize(), -AGORAISH_ERR_INVALID_STATE, "ChannelServer initialize twice");
    std::string url = "unchanged";
    CHECK_RC(a.getUrl(url), -AGORAISH_ERR_NOT_READY, "getUrl before start");
    CHECK(url == "unchanged" && a.url().empty(), "url before start");
    CHECK_RC(a.start(), 0, "start");
    CHECK_RC(a.start(), -AGORAISH_ERR_INVALID_STATE, "start twice");
    CHECK(a.url().rfind("ws://127.0.0.1:", 0) == 0, "url " + a.url());
    CHECK_RC(a.httpPort(), 0, "httpPort with HTTP off");

    agoraish::ChannelServer b(std::move(a));
    CHECK(!a && b, "move construction moves the server");  // NOLINT(bugprone-use-after-move)
    CHECK(a.url().empty() && !b.url().empty(), "the URL moved with the server");
    agoraish::ChannelServer c;
    CHECK_RC(agoraish::ChannelServer::create(agoraish::ChannelServerConfig(), c), 0, "ChannelServer::create");
    c = std::move(b);  // releases c's own server, takes b's running one
    CHECK(!b && c && !c.url().empty(), "move assignment moves the running server");
    CHECK_RC(c.stop(), 0, "stop");
    CHECK(c.url().empty(), "url after stop");
    CHECK_RC(c.release(), 0, "release");
    CHECK(!c, "a released ChannelServer holds a server");
#if defined(__cpp_exceptions)
    bool threw = false;
    try {
        agoraish::ChannelServerConfig negative;
        negative.httpPort = -2;
        agoraish::ChannelServer thrown(negative);
    } catch (const agoraish::Error& error) {
        threw = error.code() == -AGORAISH_ERR_INVALID_ARGUMENT;
    }
    CHECK(threw, "the throwing ChannelServer constructor throws Error(-2) for httpPort -2");
#endif
}

}  // namespace

int main() {
    const test_support::TempDir tmp("agoraish-channel-cpp");  // removed last
    if (!tmp) return 1;
    const std::string& dir = tmp.path();
    {
        agoraish::ChannelServerConfig config;
        config.httpPort = -1;
        // Every engine joins from 127.0.0.1: lift the per-address join rate.
        config.configJson = R"({"limits": {"joins_per_second_per_address": 1000}})";
        agoraish::ChannelServer server;  // declared before the engines: it outlives them
        CHECK_RC(server.initialize(config), 0, "ChannelServer initialize");
        CHECK_RC(server.start(), 0, "ChannelServer start");
        const std::string url = server.url();
        CHECK(server.httpPort() > 0, "httpPort with httpPort -1: " + std::to_string(server.httpPort()));
        if (!url.empty()) {
            callStory(url, dir);
            accountsStory(url, dir);
            rolesStory(url, dir);
            raiiStory(url, dir);
        }
        serverObject();
    }  // ~ChannelServer stops and releases the server
    return test_support::summary();
}
