// test_support.hpp — what the C++ tests of bindings/cpp/agoraish.hpp share:
//
//   - checks that count and report (CHECK, CHECK_RC) and the summary line that
//     ends every program (summary());
//   - EventLog<Event>: the events of one engine under a mutex, with waits on a
//     std::condition_variable with deadlines (never sleep-polling), and a count
//     of callbacks that arrived on the main thread;
//   - TempDir: a temporary directory for log files, removed at the end;
//   - contextFor(): an RtcEngineContext from the few fields the tests set.
//
// Header-only, so that every test stays one source file built on its own.
// Define TEST_NAME (the program's name, e.g. "channel_call_cpp") before
// including it: failed checks print "FAIL <TEST_NAME>.cpp:<line>: ..." on
// stderr, and summary() prints "<TEST_NAME>: all <n> checks passed".
#ifndef AGORAISH_TESTS_CPP_TEST_SUPPORT_HPP
#define AGORAISH_TESTS_CPP_TEST_SUPPORT_HPP

#ifndef TEST_NAME
#error "define TEST_NAME before including test_support.hpp"
#endif

#include "agoraish.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace test_support {

// ---- Checks ----

inline int failures = 0;
inline int checks = 0;

/// Counts one check; a failed one prints a line naming the test's source line.
inline void check(bool ok, int line, const std::string& what) {
    ++checks;
    if (ok) return;
    ++failures;
    std::cerr << "FAIL " TEST_NAME ".cpp:" << line << ": " << what << "\n";
}

/// Checks `got == want` for a return code; `got` is evaluated once.
inline void checkRc(int got, int want, int line, const std::string& what) {
    check(got == want, line, what + ": returned " + std::to_string(got) + ", expected " + std::to_string(want));
}

/// The summary line; returns the exit status (0 when every check passed).
inline int summary() {
    if (failures != 0) {
        std::cerr << TEST_NAME ": " << failures << " of " << checks << " checks failed\n";
        return 1;
    }
    std::cout << TEST_NAME ": all " << checks << " checks passed\n";
    return 0;
}

// ---- Events ----

/// The thread that runs main(): static initialization runs on it.
inline const std::thread::id mainThread = std::this_thread::get_id();

/// The events of one engine, in arrival order, guarded by `mutex_`; waitable.
/// A handler derives from it and appends with record(); code that keeps more
/// state under the same lock (as a handler's callbacks may) uses `mutex_`,
/// `cond_` and `events_` itself.
template <typename Event>
class EventLog {
public:
    using Match = std::function<bool(const Event&)>;

    std::size_t count() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return events_.size();
    }

    std::vector<Event> events() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return events_;
    }

    std::size_t countIf(const Match& match) const {
        std::lock_guard<std::mutex> lock(mutex_);
        std::size_t n = 0;
        for (const Event& e : events_) n += match(e) ? 1 : 0;
        return n;
    }

    /// Callbacks that ran on the main thread (the caller's): there should be none.
    int onCallerThread() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return onCallerThread_;
    }

    /// Waits until `n` events arrived or `timeout` passed; returns the count.
    std::size_t waitForCount(std::size_t n, std::chrono::milliseconds timeout) {
        std::unique_lock<std::mutex> lock(mutex_);
        cond_.wait_for(lock, timeout, [&] { return events_.size() >= n; });
        return events_.size();
    }

    /// Waits up to `timeout` for an event at or after `from` that satisfies
    /// `match`; returns its index (copied to `out` when not null), or -1.
    int waitForMatch(std::size_t from, const Match& match, std::chrono::milliseconds timeout, Event* out = nullptr) {
        std::unique_lock<std::mutex> lock(mutex_);
        int found = -1;
        cond_.wait_for(lock, timeout, [&] {
            for (std::size_t i = from; i < events_.size(); ++i) {
                if (match(events_[i])) {
                    found = static_cast<int>(i);
                    return true;
                }
            }
            return false;
        });
        if (found >= 0 && out != nullptr) *out = events_[static_cast<std::size_t>(found)];
        return found;
    }

protected:
    /// Appends `e` and wakes the waiters. The caller holds a lock on `mutex_`.
    void recordLocked(Event e) {
        if (std::this_thread::get_id() == mainThread) ++onCallerThread_;
        events_.push_back(std::move(e));
        cond_.notify_all();
    }

    void record(Event e) {
        std::lock_guard<std::mutex> lock(mutex_);
        recordLocked(std::move(e));
    }

    mutable std::mutex mutex_;
    std::condition_variable cond_;
    std::vector<Event> events_;
    int onCallerThread_ = 0;
};

// ---- Files ----

/// A directory /tmp/<prefix>-XXXXXX, removed with everything in it when this goes.
class TempDir {
public:
    explicit TempDir(const std::string& prefix) {
        std::string pattern = "/tmp/" + prefix + "-XXXXXX";
        if (mkdtemp(pattern.data()) == nullptr) {
            std::perror("mkdtemp");
            return;
        }
        path_ = pattern;
    }
    ~TempDir() {
        if (path_.empty()) return;
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    /// False when the directory could not be made (mkdtemp said why on stderr).
    explicit operator bool() const { return !path_.empty(); }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// ---- Engines ----

/// A context of `appId` that logs to `logFile`; `handler` may be null; an
/// empty `serverUrl` leaves the library's default.
inline agoraish::RtcEngineContext contextFor(const std::string& appId, agoraish::IRtcEngineEventHandler* handler,
                                             const std::string& logFile, const std::string& serverUrl = "") {
    agoraish::RtcEngineContext context;
    context.appId = appId;
    context.eventHandler = handler;
    context.logFile = logFile;
    if (!serverUrl.empty()) context.serverUrl = serverUrl;
    return context;
}

}  // namespace test_support

#define CHECK(cond, what) ::test_support::check((cond), __LINE__, (what))
#define CHECK_RC(got, want, what) ::test_support::checkRc((got), (want), __LINE__, (what))

#endif  // AGORAISH_TESTS_CPP_TEST_SUPPORT_HPP
