// engine_lifecycle_cpp.cpp — the life of engines through bindings/cpp/agoraish.hpp:
// two engines with their own IRtcEngineEventHandler subclasses and log files,
// events in call order on one event thread per engine, parameters read back
// (including values longer than the wrapper's first buffer), RAII release,
// release(false), idempotent release, calls on a released or moved-from
// engine (-7), release refused inside a callback (-5), release on a second
// thread while the first keeps calling a setter, create() and the throwing
// constructor; the data-stream, metadata, encryption and packet-observer
// wrappers of ABI 0.8 outside a call (five streams then -116, -113 for
// sending, -114, bad encryption settings, the mode names, observer
// registration). Waits use std::condition_variable with deadlines.
//
// Exit status 0 when every check passes; otherwise one line per failed check
// on stderr and exit status 1.
#define TEST_NAME "engine_lifecycle_cpp"
#include "test_support.hpp"

#include <fstream>
#include <sstream>

namespace {

using test_support::check;
using test_support::contextFor;

/// How long any one wait for events may take. Generous for slow machines.
constexpr auto kWait = std::chrono::seconds(20);

struct Event {
    int err;
    std::string api;
    std::string result;
};

/// Records the events of one engine; optionally tries to release it from inside.
class Recorder : public agoraish::IRtcEngineEventHandler, public test_support::EventLog<Event> {
public:
    explicit Recorder(std::string name) : name_(std::move(name)) {}

    void onApiCallExecuted(int err, const char* api, const char* result) override {
        std::lock_guard<std::mutex> lock(mutex_);
        ++inCallback_;
        if (!haveThread_) {
            haveThread_ = true;
            thread_ = std::this_thread::get_id();
        } else if (thread_ != std::this_thread::get_id()) {
            ++threadSwitches_;
        }
        if (releaseInside_ != nullptr) {
            releaseInsideRc_ = releaseInside_->release(true);
            releaseInsideAsyncRc_ = releaseInside_->release(false);
            std::string value;
            getInsideRc_ = releaseInside_->getParameter("rtc.log_level", value);
        }
        recordLocked({err, api ? api : "(null)", result ? result : "(null)"});
        --inCallback_;
    }

    /// Waits until `n` events arrived or the deadline passed; returns the count.
    std::size_t waitFor(std::size_t n) { return waitForCount(n, kWait); }

    int inCallback() {
        std::lock_guard<std::mutex> lock(mutex_);
        return inCallback_;
    }

    std::thread::id thread() {
        std::lock_guard<std::mutex> lock(mutex_);
        return thread_;
    }

    /// Makes every callback try to release `engine` (which must be this handler's).
    void releaseFromInside(agoraish::RtcEngine* engine) {
        std::lock_guard<std::mutex> lock(mutex_);
        releaseInside_ = engine;
    }

    std::vector<int> insideResults() {
        std::lock_guard<std::mutex> lock(mutex_);
        return {releaseInsideRc_, releaseInsideAsyncRc_, getInsideRc_};
    }

    /// Checks delivery: never on the caller's thread, always on one thread.
    void checkDelivery(int line) {
        std::lock_guard<std::mutex> lock(mutex_);
        check(onCallerThread_ == 0, line, "engine " + name_ + ": events arrived on the caller's thread");
        check(threadSwitches_ == 0, line, "engine " + name_ + ": events arrived on more than one thread");
    }

    /// Checks that the events are exactly `expected` (api, substring of result), in order.
    void checkEvents(const std::vector<std::pair<std::string, std::string>>& expected, int line) {
        checkDelivery(line);
        std::lock_guard<std::mutex> lock(mutex_);
        check(events_.size() == expected.size(), line,
              "engine " + name_ + ": " + std::to_string(events_.size()) + " events, expected " +
                  std::to_string(expected.size()));
        for (std::size_t i = 0; i < events_.size() && i < expected.size(); ++i) {
            const Event& e = events_[i];
            check(e.api == expected[i].first, line,
                  "engine " + name_ + ": event " + std::to_string(i) + " is " + e.api + ", expected " + expected[i].first);
            check(e.result.find(expected[i].second) != std::string::npos, line,
                  "engine " + name_ + ": event " + std::to_string(i) + " (" + e.api + ") result \"" + e.result +
                      "\" lacks \"" + expected[i].second + "\"");
            check(e.err == 0, line, "engine " + name_ + ": event " + e.api + " err " + std::to_string(e.err));
        }
    }

private:
    std::string name_;
    int inCallback_ = 0;
    int threadSwitches_ = 0;
    bool haveThread_ = false;
    std::thread::id thread_;
    agoraish::RtcEngine* releaseInside_ = nullptr;
    int releaseInsideRc_ = 1;
    int releaseInsideAsyncRc_ = 1;
    int getInsideRc_ = 1;
};

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string param(const agoraish::RtcEngine& engine, const std::string& key) {
    std::string value;
    const int rc = engine.getParameter(key, value);
    return rc == 0 ? value : "(error " + std::to_string(rc) + ")";
}

/// Two engines side by side; RAII release of one, release(false) of the other.
void twoEngines(const std::string& dir) {
    Recorder recA("A");  // outlives A, which RAII releases with release(true)
    // B is released with release(false): a callback may still be returning
    // afterwards, so its handler lives until the end of the process.
    static Recorder recB("B");
    // A path longer than the wrapper's first 64-byte buffer.
    const std::string longName = dir + "/" + std::string(80, 'l') + ".log";
    {
        agoraish::RtcEngine a(contextFor("cpp-lifecycle-A", &recA, dir + "/a.log"));
        agoraish::RtcEngine b;
        CHECK_RC(b.initialize(contextFor("cpp-lifecycle-B", &recB, dir + "/b.log")), 0, "initialize B");
        CHECK_RC(b.initialize(contextFor("cpp-lifecycle-B2", &recB, dir + "/b2.log")), -AGORAISH_ERR_INVALID_STATE,
                 "initialize B twice");
        CHECK(static_cast<bool>(a) && static_cast<bool>(b), "both engines exist");

        const std::string logA = readFile(dir + "/a.log"), logB = readFile(dir + "/b.log");
        CHECK(logA.find("created") != std::string::npos && logA.find("cpp-lifecycle-A") != std::string::npos,
              "a.log lacks the creation line of cpp-lifecycle-A");
        CHECK(logB.find("created") != std::string::npos && logB.find("cpp-lifecycle-B") != std::string::npos,
              "b.log lacks the creation line of cpp-lifecycle-B");
        CHECK(logA.find("cpp-lifecycle-B") == std::string::npos, "a.log holds B's lines");

        CHECK_RC(a.setLogFileSize(512), 0, "A setLogFileSize(512)");
        CHECK_RC(b.setLogLevel(AGORAISH_LOG_LEVEL_ERROR), 0, "B setLogLevel(ERROR)");
        CHECK_RC(a.setLogFile(longName.c_str()), 0, "A setLogFile(long name)");
        CHECK_RC(b.setParameters(std::string(R"({"rtc.log_size": 256, "rtc.server_url": "wss://example.test:7450"})")),
                 0, "B setParameters(log_size, server_url)");
        CHECK_RC(a.setParameters(R"({"rtc.log_filter": 2063})"), 0, "A setParameters(log_filter)");
        CHECK_RC(b.setParameters(R"({"rtc.log_size": 300, "rtc.no_such_key": 1})"), -AGORAISH_ERR_INVALID_ARGUMENT,
                 "B setParameters with an unknown key");
        CHECK_RC(a.setLogFilter(AGORAISH_LOG_FILTER_INFO), 0, "A setLogFilter(INFO)");
        CHECK_RC(b.setLogFilter(AGORAISH_LOG_FILTER_DEBUG), 0, "B setLogFilter(DEBUG)");
        CHECK_RC(a.setLogLevel(AGORAISH_LOG_LEVEL_WARN), 0, "A setLogLevel(WARN)");

        CHECK(recA.waitFor(5) >= 5, "engine A: timed out waiting for 5 events");
        CHECK(recB.waitFor(3) >= 3, "engine B: timed out waiting for 3 events");

        CHECK(param(a, "rtc.log_file") == "\"" + longName + "\"", "A rtc.log_file is " + param(a, "rtc.log_file"));
        CHECK(param(a, "rtc.log_size") == "512", "A rtc.log_size is " + param(a, "rtc.log_size"));
        CHECK(param(a, "rtc.log_level") == "2", "A rtc.log_level is " + param(a, "rtc.log_level"));
        CHECK(param(a, "rtc.app_id") == "\"cpp-lifecycle-A\"", "A rtc.app_id is " + param(a, "rtc.app_id"));
        CHECK(param(b, "rtc.log_size") == "256", "B rtc.log_size is " + param(b, "rtc.log_size"));
        CHECK(param(b, "rtc.log_filter") == "2063", "B rtc.log_filter is " + param(b, "rtc.log_filter"));
        CHECK(param(b, "rtc.server_url") == "\"wss://example.test:7450\"",
              "B rtc.server_url is " + param(b, "rtc.server_url"));
        {
            std::string value = "unchanged";
            CHECK_RC(b.getParameter("rtc.no_such_key", value), -AGORAISH_ERR_INVALID_ARGUMENT, "B getParameter(unknown)");
            CHECK(value == "unchanged", "getParameter changed its output on failure");
        }
        CHECK(readFile(longName).find("setLogFile") != std::string::npos, "the new log file of A lacks setLogFile");

        // B: release(false), again, then calls on the empty object.
        CHECK_RC(b.release(false), 0, "B release(false)");
        CHECK_RC(b.release(false), 0, "B release(false) again");
        CHECK_RC(b.release(true), 0, "B release(true) again");
        CHECK(!b, "B still holds an engine after release");
        CHECK_RC(b.setLogLevel(AGORAISH_LOG_LEVEL_INFO), -AGORAISH_ERR_NOT_INITIALIZED, "B setLogLevel after release");
        std::string ignored;
        CHECK_RC(b.getParameter("rtc.log_size", ignored), -AGORAISH_ERR_NOT_INITIALIZED, "B getParameter after release");

        // A keeps working after B's release; its handle is then dropped by RAII.
        CHECK_RC(a.setLogFileSize(1), 0, "A setLogFileSize(1) after B's release");
        CHECK(recA.waitFor(6) >= 6, "engine A: timed out waiting for its 6th event");
        CHECK(param(a, "rtc.log_size") == "128", "A rtc.log_size after setLogFileSize(1) is " + param(a, "rtc.log_size"));
        agoraish_engine_t* rawA = a.nativeHandle();
        agoraish::RtcEngine moved(std::move(a));
        CHECK(!a && moved.nativeHandle() == rawA, "the move did not transfer the engine");
        CHECK_RC(a.setLogLevel(AGORAISH_LOG_LEVEL_INFO), -AGORAISH_ERR_NOT_INITIALIZED, "setLogLevel on moved-from A");
        CHECK_RC(a.release(), 0, "release of moved-from A");
        CHECK_RC(moved.setLogLevel(AGORAISH_LOG_LEVEL_INFO), 0, "setLogLevel on the moved-to engine");
        CHECK(recA.waitFor(7) >= 7, "engine A: timed out waiting for its 7th event");
        // Scope end: ~RtcEngine releases `moved` with release(true).
    }
    CHECK(recA.inCallback() == 0, "a callback of A still runs after RAII release");
    CHECK(recA.thread() != recB.thread(), "engines A and B delivered events on the same thread");
    recA.checkEvents({{"setLogFileSize", "512"},
                      {"setLogFile", std::string(80, 'l')},
                      {"setParameters", "2063"},
                      {"setLogFilter", "15"},
                      {"setLogLevel", "2"},
                      {"setLogFileSize", "128"},
                      {"setLogLevel", "1"}},
                     __LINE__);
    recB.checkEvents({{"setLogLevel", "4"}, {"setParameters", "wss://example.test:7450"}, {"setLogFilter", "2063"}},
                     __LINE__);
}

/// create(), the throwing constructor, logLevel NONE, and RAII on reassignment.
void factories(const std::string& dir) {
    Recorder rec("F");
    agoraish::RtcEngine engine;
    agoraish::RtcEngineContext bad = contextFor("", &rec, dir + "/f.log");
    CHECK_RC(agoraish::RtcEngine::create(bad, engine), -AGORAISH_ERR_INVALID_APP_ID, "create with an empty app id");
    CHECK(!engine, "a failed create filled its output");
    try {
        agoraish::RtcEngine thrown(bad);
        CHECK(false, "the constructor did not throw for an empty app id");
    } catch (const agoraish::Error& error) {
        CHECK_RC(error.code(), -AGORAISH_ERR_INVALID_APP_ID, "agoraish::Error code");
        CHECK(std::string(error.what()) == std::string(agoraish::RtcEngine::getErrorDescription(error.code())) +
                                               " - " + error.detail(),
              "agoraish::Error text is not the error description and the detail");
        CHECK(error.detail().find("app_id") != std::string::npos, "the detail names app_id: " + error.detail());
        CHECK(std::string(agoraish::RtcEngine::getLastErrorDetail()) == error.detail(),
              "getLastErrorDetail() is the detail of the failed create");
    }
    agoraish::RtcEngineContext quiet = contextFor("cpp-factories", &rec, dir + "/f.log");
    quiet.logLevel = AGORAISH_LOG_LEVEL_NONE;
    quiet.areaCode = AGORAISH_AREA_CODE_EU;
    quiet.logFileSizeKB = 256;
    CHECK_RC(agoraish::RtcEngine::create(quiet, engine), 0, "create with logLevel NONE");
    CHECK(rec.waitFor(1) >= 1, "logLevel NONE: timed out waiting for the setLogLevel event");
    CHECK(param(engine, "rtc.log_level") == "0", "rtc.log_level with logLevel NONE is " + param(engine, "rtc.log_level"));
    CHECK(param(engine, "rtc.area_code") == "4", "rtc.area_code is " + param(engine, "rtc.area_code"));
    CHECK(param(engine, "rtc.log_size") == "256", "rtc.log_size is " + param(engine, "rtc.log_size"));
    agoraish_engine_t* first = engine.nativeHandle();
    // Reassignment releases the first engine.
    CHECK_RC(agoraish::RtcEngine::create(contextFor("cpp-factories-2", nullptr, dir + "/f2.log"), engine), 0,
             "create into an engine that holds one");
    CHECK_RC(agoraish_engine_set_log_level(first, AGORAISH_LOG_LEVEL_INFO), -AGORAISH_ERR_NOT_INITIALIZED,
             "the replaced engine was not released");
    CHECK(param(engine, "rtc.app_id") == "\"cpp-factories-2\"", "the new engine's app id is " + param(engine, "rtc.app_id"));
    rec.checkEvents({{"setLogLevel", "0"}}, __LINE__);

    int build = -1;
    const char* version = agoraish::RtcEngine::getVersion(&build);
    CHECK(version != nullptr && *version != '\0' && build >= 0, "getVersion");
    CHECK(std::string(agoraish::RtcEngine::getErrorDescription(-7)) == agoraish::RtcEngine::getErrorDescription(7),
          "getErrorDescription(-7) != getErrorDescription(7)");
}

/// Release from inside a callback is refused and keeps the engine.
void releaseInsideCallback(const std::string& dir) {
    Recorder rec("C");
    agoraish::RtcEngine engine(contextFor("cpp-lifecycle-C", &rec, dir + "/c.log"));
    rec.releaseFromInside(&engine);
    CHECK_RC(engine.setLogLevel(AGORAISH_LOG_LEVEL_INFO), 0, "C setLogLevel");
    CHECK(rec.waitFor(1) >= 1, "engine C: timed out waiting for its event");
    const std::vector<int> inside = rec.insideResults();
    CHECK_RC(inside[0], -AGORAISH_ERR_REFUSED, "release(true) inside C's callback");
    CHECK_RC(inside[1], -AGORAISH_ERR_REFUSED, "release(false) inside C's callback");
    CHECK_RC(inside[2], 0, "getParameter inside C's callback");
    CHECK(static_cast<bool>(engine), "a refused release dropped the engine");
    rec.releaseFromInside(nullptr);
    CHECK_RC(engine.setLogFilter(AGORAISH_LOG_FILTER_INFO), 0, "C setLogFilter after the refused releases");
    CHECK(rec.waitFor(2) >= 2, "engine C: timed out waiting for its second event");
    CHECK_RC(engine.release(), 0, "release C");
}

/// One thread keeps calling a setter while another releases the engine.
void releaseWhileCalling(const std::string& dir) {
    Recorder rec("D");
    agoraish::RtcEngine engine(contextFor("cpp-lifecycle-D", &rec, dir + "/d.log"));
    agoraish_engine_t* raw = engine.nativeHandle();  // the calling thread uses the C handle
    std::mutex mutex;
    std::condition_variable cond;
    long started = 0;
    constexpr long kCallsBeforeRelease = 50;
    int releaseRc = 1;
    std::size_t eventsAtRelease = 0;
    int inCallbackAtRelease = -1;

    std::thread releaser([&] {
        {
            std::unique_lock<std::mutex> lock(mutex);
            cond.wait_for(lock, kWait, [&] { return started >= kCallsBeforeRelease; });
        }
        releaseRc = engine.release(true);
        eventsAtRelease = rec.count();
        inCallbackAtRelease = rec.inCallback();
    });
    long ok = 0, dead = 0, bad = 0, okAfterDead = 0;
    int last = 0;
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    for (long calls = 1; dead < 100 && std::chrono::steady_clock::now() < deadline; ++calls) {
        const int rc = agoraish_engine_set_log_filter(raw, (calls & 1) ? AGORAISH_LOG_FILTER_ERROR : AGORAISH_LOG_FILTER_WARN);
        if (rc == 0) {
            ++ok;
            if (last == -AGORAISH_ERR_NOT_INITIALIZED) ++okAfterDead;
        } else if (rc == -AGORAISH_ERR_NOT_INITIALIZED) {
            ++dead;
        } else {
            ++bad;
        }
        last = rc;
        if (calls <= kCallsBeforeRelease) {
            std::lock_guard<std::mutex> lock(mutex);
            started = calls;
            cond.notify_one();
        } else {
            std::this_thread::yield();
        }
    }
    releaser.join();
    CHECK_RC(releaseRc, 0, "release D on a second thread");
    CHECK(inCallbackAtRelease == 0, "a callback of D still ran after release(true) returned");
    CHECK(bad == 0, std::to_string(bad) + " setter calls returned neither 0 nor -7");
    CHECK(okAfterDead == 0, std::to_string(okAfterDead) + " setter calls succeeded after one returned -7");
    CHECK(dead > 0, "the setter never saw the release");
    CHECK(ok >= kCallsBeforeRelease, "only " + std::to_string(ok) + " setter calls succeeded before the release");
    CHECK(rec.count() == eventsAtRelease, "D got events after release(true) returned");
    CHECK(rec.count() <= static_cast<std::size_t>(ok), "D got more events than accepted calls");
    rec.checkDelivery(__LINE__);
}

/// Overrides the ABI 0.8 callbacks, so their bridges to the C table are built.
class DataHandler : public agoraish::IRtcEngineEventHandler {
public:
    void onStreamMessage(agoraish::uid_t, int, const char*, std::size_t, std::uint64_t) override {}
    void onStreamMessageError(agoraish::uid_t, int, int, int, int) override {}
    void onEncryptionError(agoraish::ENCRYPTION_ERROR_TYPE) override {}
    void onAudioMetadataReceived(agoraish::uid_t, const char*, std::size_t) override {}
};

/// Asks for more metadata room than Agora allows.
class GreedyMetadata : public agoraish::IMetadataObserver {
public:
    int getMaxMetadataSize() override { return MAX_METADATA_SIZE_IN_BYTE + 1; }
};

/// The ABI 0.8 wrappers outside a call: what is decided before anything is sent.
void dataOutsideACall(const std::string& dir) {
    DataHandler handler;
    // A server where nothing listens: nothing here connects.
    agoraish::RtcEngine engine(contextFor("cpp-data", &handler, dir + "/data.log", "ws://127.0.0.1:1"));

    // Five streams, either overload; a sixth is -116.
    std::vector<int> ids;
    for (int i = 0; i < AGORAISH_MAX_DATA_STREAMS; ++i) {
        int id = -1;
        agoraish::DataStreamConfig config;
        config.syncWithAudio = i == 3;
        config.ordered = i % 2 == 0;
        const int rc = i < 3 ? engine.createDataStream(&id, i != 1, i != 2) : engine.createDataStream(&id, config);
        CHECK_RC(rc, 0, "createDataStream #" + std::to_string(i + 1));
        CHECK(id >= 1 && id <= 255, "stream id " + std::to_string(id) + " outside 1..255");
        for (int other : ids) CHECK(other != id, "stream id " + std::to_string(id) + " twice");
        ids.push_back(id);
    }
    int sixth = -1;
    CHECK_RC(engine.createDataStream(&sixth, true, true), -AGORAISH_ERR_TOO_MANY_DATA_STREAMS, "a sixth stream");
    CHECK_RC(engine.createDataStream(&sixth, agoraish::DataStreamConfig{}), -AGORAISH_ERR_TOO_MANY_DATA_STREAMS,
             "a sixth stream from a config");
    CHECK(sixth == -1, "a refused createDataStream wrote an id");
    CHECK_RC(engine.createDataStream(nullptr, true, true), -AGORAISH_ERR_INVALID_ARGUMENT, "createDataStream(nullptr)");

    // Sending: the length first, then -113 outside a call.
    const std::string big(AGORAISH_MAX_STREAM_MESSAGE_SIZE + 1, 'x');
    CHECK_RC(engine.sendStreamMessage(ids[0], "hello", 5), -AGORAISH_ERR_NOT_IN_CHANNEL, "sendStreamMessage outside a call");
    CHECK_RC(engine.sendStreamMessage(ids[0], nullptr, 5), -AGORAISH_ERR_INVALID_ARGUMENT, "sendStreamMessage(nullptr)");
    CHECK_RC(engine.sendStreamMessage(ids[0], "hello", 0), -AGORAISH_ERR_INVALID_ARGUMENT, "sendStreamMessage(length 0)");
    CHECK_RC(engine.sendStreamMessage(ids[0], big.data(), big.size()), -AGORAISH_ERR_SIZE_TOO_LARGE,
             "sendStreamMessage(1025 bytes)");
    CHECK_RC(engine.sendAudioMetadata("m", 1), -AGORAISH_ERR_NOT_IN_CHANNEL, "sendAudioMetadata outside a call");
    CHECK_RC(engine.sendAudioMetadata(big.data(), big.size()), -AGORAISH_ERR_INVALID_ARGUMENT,
             "sendAudioMetadata(1025 bytes)");

    // Encryption: GCM2 needs a key and a salt that is not all zero.
    agoraish::EncryptionConfig encryption;
    CHECK(encryption.encryptionMode == agoraish::AES_128_GCM2, "the default mode is AES_128_GCM2");
    CHECK_RC(engine.enableEncryption(true, encryption), -AGORAISH_ERR_INVALID_ARGUMENT, "enableEncryption without a key");
    encryption.encryptionKey = "0123456789abcdef0123456789abcdef";
    CHECK_RC(engine.enableEncryption(true, encryption), -AGORAISH_ERR_INVALID_ARGUMENT,
             "enableEncryption(AES_128_GCM2, an all-zero salt)");
    for (int i = 0; i < 32; ++i) encryption.encryptionKdfSalt[i] = static_cast<std::uint8_t>(i + 1);
    CHECK_RC(engine.enableEncryption(true, encryption), 0, "enableEncryption(AES_128_GCM2)");
    encryption.encryptionMode = agoraish::MODE_END;
    CHECK_RC(engine.enableEncryption(true, encryption), -AGORAISH_ERR_INVALID_ARGUMENT, "enableEncryption(MODE_END)");
    encryption.encryptionMode = agoraish::AES_128_XTS;
    std::memset(encryption.encryptionKdfSalt, 0, sizeof encryption.encryptionKdfSalt);
    CHECK_RC(engine.enableEncryption(true, encryption), 0, "enableEncryption(AES_128_XTS): the salt is not read");
    CHECK_RC(engine.enableEncryption(false, agoraish::EncryptionConfig{}), 0, "enableEncryption(false)");
    const std::string longSecret(129, 's');
    CHECK_RC(engine.setEncryptionSecret(longSecret.c_str()), -AGORAISH_ERR_INVALID_ARGUMENT,
             "setEncryptionSecret(129 bytes)");
    CHECK_RC(engine.setEncryptionSecret("secret"), 0, "setEncryptionSecret");
    for (const char* name : {"aes-128-xts", "aes-128-ecb", "aes-256-xts", "sm4-128-ecb", "aes-128-gcm", "aes-256-gcm", ""})
        CHECK_RC(engine.setEncryptionMode(name), 0, std::string("setEncryptionMode(\"") + name + "\")");
    CHECK_RC(engine.setEncryptionMode(nullptr), 0, "setEncryptionMode(nullptr)");
    CHECK_RC(engine.setEncryptionMode("aes-128-gcm-2"), -AGORAISH_ERR_INVALID_ARGUMENT,
             "setEncryptionMode(\"aes-128-gcm-2\"): GCM2 needs enableEncryption");
    CHECK_RC(engine.setEncryptionSecret(nullptr), 0, "setEncryptionSecret(nullptr)");

    // Observers: registration and removal.
    GreedyMetadata greedy;
    agoraish::IMetadataObserver metadata;
    CHECK_RC(engine.registerMediaMetadataObserver(&greedy), -AGORAISH_ERR_INVALID_ARGUMENT,
             "registerMediaMetadataObserver with a maximum size of 1025");
    CHECK_RC(engine.registerMediaMetadataObserver(&metadata, agoraish::IMetadataObserver::UNKNOWN_METADATA),
             -AGORAISH_ERR_INVALID_ARGUMENT, "registerMediaMetadataObserver(UNKNOWN_METADATA)");
    CHECK_RC(engine.registerMediaMetadataObserver(&metadata), 0, "registerMediaMetadataObserver");
    CHECK_RC(engine.registerMediaMetadataObserver(nullptr), 0, "registerMediaMetadataObserver(nullptr)");
    agoraish::IPacketObserver packets;
    CHECK_RC(engine.registerPacketObserver(&packets), 0, "registerPacketObserver");
    CHECK_RC(engine.registerPacketObserver(nullptr), 0, "registerPacketObserver(nullptr)");
    CHECK(engine.getConnectionState() == agoraish::CONNECTION_STATE_DISCONNECTED, "the data calls connected the engine");
    CHECK_RC(engine.release(), 0, "release the data engine");
    CHECK_RC(engine.registerPacketObserver(nullptr), -AGORAISH_ERR_NOT_INITIALIZED, "registerPacketObserver when released");
}

}  // namespace

int main() {
    const test_support::TempDir tmp("agoraish-lifecycle-cpp");  // removed last
    if (!tmp) return 1;
    const std::string& dir = tmp.path();
    try {
        twoEngines(dir);
        factories(dir);
        releaseInsideCallback(dir);
        releaseWhileCalling(dir);
        dataOutsideACall(dir);
    } catch (const std::exception& error) {
        CHECK(false, std::string("unexpected exception: ") + error.what());
    }
    return test_support::summary();
}
