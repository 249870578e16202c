// hello_engine.cpp — the smallest agoraish host in C++, through
// bindings/cpp/agoraish.hpp, in the order of Agora's lifecycle: create an
// engine with an event handler, read the version and the log file, set a
// parameter, receive onApiCallExecuted, release (here: at the end of scope).
#include "agoraish.hpp"

#include <chrono>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <string>

namespace {

// Receives the engine's events on its event thread; main waits for the first.
class Handler : public agoraish::IRtcEngineEventHandler {
public:
    void onApiCallExecuted(int err, const char* api, const char* result) override {
        std::lock_guard<std::mutex> lock(mutex_);
        line_ = std::string(api) + " " + result + " -> " +
                (err == 0 ? "ok" : agoraish::RtcEngine::getErrorDescription(err));
        done_ = true;
        cond_.notify_one();
    }

    // The event as text, or empty after `timeout`.
    std::string waitForEvent(std::chrono::seconds timeout) {
        std::unique_lock<std::mutex> lock(mutex_);
        cond_.wait_for(lock, timeout, [this] { return done_; });
        return line_;
    }

private:
    std::mutex mutex_;
    std::condition_variable cond_;
    bool done_ = false;
    std::string line_;
};

// A JSON string value ("...") as plain text, for the simple escapes.
std::string jsonUnquote(const std::string& json) {
    if (json.size() < 2 || json.front() != '"' || json.back() != '"') return json;
    std::string text;
    for (std::size_t i = 1; i + 1 < json.size(); ++i) {
        if (json[i] == '\\' && i + 2 < json.size()) ++i;
        text += json[i];
    }
    return text;
}

}  // namespace

int main() {
    Handler handler;  // declared first: it outlives the engine

    agoraish::RtcEngineContext context;
    context.appId = "hello-agoraish";
    context.eventHandler = &handler;

    agoraish::RtcEngine engine;
    if (int rc = engine.initialize(context); rc != 0) {
        std::cerr << "cannot create the engine: " << rc << " ("
                  << agoraish::RtcEngine::getErrorDescription(rc) << ")\n";
        return 1;
    }
    int build = 0;
    const char* version = agoraish::RtcEngine::getVersion(&build);
    std::cout << "agoraish " << version << " (build " << build << "): engine created\n";

    std::string logFile;
    if (engine.getParameter("rtc.log_file", logFile) == 0) {
        std::cout << "log file: " << jsonUnquote(logFile) << "\n";
    }

    if (int rc = engine.setParameters(R"({"rtc.log_filter": 2063})"); rc != 0) {
        std::cerr << "setParameters failed: " << rc << " (" << agoraish::RtcEngine::getErrorDescription(rc) << ")\n";
        return 1;
    }
    const std::string event = handler.waitForEvent(std::chrono::seconds(5));
    std::cout << "onApiCallExecuted: " << (event.empty() ? "no event within 5 s" : event) << "\n";

    const int rc = engine.release();  // the destructor would do it too
    std::cout << "engine released" << (rc == 0 ? "" : " with an error") << "\n";
    return rc == 0 && !event.empty() ? 0 : 1;
}
