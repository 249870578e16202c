/*
 * agoraish.hpp — a header-only C++17 wrapper over include/agoraish.h with the
 * shape of the Agora RTC SDK's C++ API: an `IRtcEngineEventHandler` to
 * subclass, an `RtcEngineContext` to fill, and an `RtcEngine` that owns one
 * engine handle and releases it when it goes out of scope.
 *
 *     struct Handler : agoraish::IRtcEngineEventHandler {
 *         void onApiCallExecuted(int err, const char* api, const char* result) override { ... }
 *     };
 *     Handler handler;                      // must outlive the engine
 *     agoraish::RtcEngineContext context;
 *     context.appId = "my-app";
 *     context.eventHandler = &handler;
 *     agoraish::RtcEngine engine;
 *     if (int rc = engine.initialize(context); rc != 0) { ... }
 *     engine.setParameters(R"({"rtc.log_filter": 2063})");
 *     // ~RtcEngine() calls release(true)
 *
 * Methods return `int` as Agora's do: 0, or a negated `agoraish_error_code`.
 * Nothing throws unless you use the throwing constructor (only when the
 * compiler has exceptions enabled). Every method is thread-safe, as the C ABI
 * is. Link with -lagoraish.
 */
#ifndef AGORAISH_HPP
#define AGORAISH_HPP

#include "agoraish.h"

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

/** The C++ API of libagoraish. */
namespace agoraish {

/**
 * Engine events (Agora's IRtcEngineEventHandler). Subclass it and override
 * the callbacks you want; every default does nothing.
 *
 * Ownership: the host owns the handler. It must stay alive until the engine
 * it was given to has been released with `release(true)` (which the
 * `RtcEngine` destructor does): after that no callback is running or will
 * start. After `release(false)` a callback that was already running may still
 * be returning, so the handler must live a little longer (for example until
 * the end of the process).
 *
 * Thread: every callback of one engine runs on that engine's event thread,
 * one at a time, in the order the events happened; never on the thread that
 * called the engine. A callback must return quickly. It may call any method
 * of the engine except `release()` on its own engine (which returns -5).
 * Pointers passed to a callback are valid only until it returns: copy what
 * you keep. An exception that leaves a callback calls std::terminate.
 */
class IRtcEngineEventHandler {
public:
    /** Virtual, so a handler can be deleted through this base. */
    virtual ~IRtcEngineEventHandler() = default;

    /**
     * An API call has been carried out by the engine (Agora's
     * onApiCallExecuted). Fires once for each accepted call to
     * setParameters, setLogFile, setLogFilter, setLogLevel and setLogFileSize.
     *
     * @param err     0, or the error code (not negated) the work ended with.
     * @param api     The Agora name of the method, for example "setParameters".
     * @param result  The argument the call applied, as text (for
     *                setParameters, the JSON that was applied).
     */
    virtual void onApiCallExecuted(int err, const char* api, const char* result) {
        (void)err;
        (void)api;
        (void)result;
    }
};

/** Internals of the wrapper: not part of the API. */
namespace detail {

/**
 * The C callback for one handler method: a static function that casts the
 * table's `user_data` back to the handler and calls `Method` with the C
 * arguments after the engine. The parameter types are deduced from the
 * method, and assigning `&Trampoline<M>::call` to a C table entry checks at
 * compile time that they match the C callback's.
 */
template <auto Method>
struct Trampoline;

/** Specialization that deduces the argument types of a handler method. */
template <typename... Args, void (IRtcEngineEventHandler::*Method)(Args...)>
struct Trampoline<Method> {
    /** Called by the library on the engine's event thread. */
    static void call(agoraish_engine_t* engine, void* userData, Args... args) noexcept {
        (void)engine;
        (static_cast<IRtcEngineEventHandler*>(userData)->*Method)(args...);
    }
};

/**
 * The C callback table that forwards every event to `handler`. The table
 * holds `handler` as its `user_data`; the library copies the table.
 * A new callback is one line here: its C entry gets the trampoline of the
 * handler method of the same meaning.
 */
inline agoraish_event_handler makeEventTable(IRtcEngineEventHandler* handler) noexcept {
    agoraish_event_handler table{};
    table.struct_size = sizeof(table);
    table.user_data = handler;
    table.on_api_call_executed = &Trampoline<&IRtcEngineEventHandler::onApiCallExecuted>::call;
    return table;
}

}  // namespace detail

/**
 * How to create an engine (Agora's RtcEngineContext). Unset optional fields
 * select the library's defaults.
 */
struct RtcEngineContext {
    /** The app id: required, 1..128 printable ASCII characters. */
    std::string appId;
    /** Receives the engine's events, or nullptr for none. Not owned: see
     *  IRtcEngineEventHandler for how long it must live. */
    IRtcEngineEventHandler* eventHandler = nullptr;
    /** The channel server, "ws://host:port" or "wss://host:port". Unset: the
     *  environment variable AGORAISH_SERVER, then "ws://127.0.0.1:7450". */
    std::optional<std::string> serverUrl;
    /** The log file. Unset: the default file of agoraish.h (in
     *  $AGORAISH_LOG_DIR, else $XDG_STATE_HOME/agoraish, ...). Read it back
     *  with getParameter("rtc.log_file", ...). */
    std::optional<std::string> logFile;
    /** Size of one log file in KB: AGORAISH_LOG_FILE_SIZE_MIN_KB..MAX_KB
     *  (smaller positive values are raised to the minimum). Unset: 1024. */
    std::optional<int> logFileSizeKB;
    /** An agoraish_log_level. Unset: AGORAISH_LOG_LEVEL_INFO.
     *  AGORAISH_LOG_LEVEL_NONE is applied right after creation with
     *  setLogLevel(), so it produces one onApiCallExecuted("setLogLevel")
     *  event; the creation line is still logged. */
    std::optional<int> logLevel;
    /** An agoraish_area_code bit set. Unset: AGORAISH_AREA_CODE_GLOB. */
    std::optional<unsigned int> areaCode;
};

#if defined(__cpp_exceptions)
/**
 * An error code as an exception, thrown only by the throwing constructor
 * `RtcEngine(const RtcEngineContext&)`. Every method returns codes instead.
 */
class Error : public std::runtime_error {
public:
    /** @param code  A negated agoraish_error_code, as methods return it. */
    explicit Error(int code)
        : std::runtime_error(agoraish_get_error_description(code)), code_(code) {}
    /** The negated agoraish_error_code, for example -101. */
    int code() const noexcept { return code_; }

private:
    int code_;
};
#endif

/**
 * One engine (Agora's IRtcEngine), owned: the destructor releases it with
 * release(true). Move-only: a moved-from RtcEngine holds no engine.
 *
 * An RtcEngine that holds no engine (default-constructed, released or moved
 * from) answers every method with -7 (AGORAISH_ERR_NOT_INITIALIZED), except
 * release(), which returns 0.
 *
 * Thread: every method may be called from any thread. Do not destroy or
 * move-assign an RtcEngine from inside one of its own callbacks: the release
 * is refused there (-5) and the engine would stay alive.
 */
class RtcEngine {
public:
    /** An RtcEngine that holds no engine yet: call initialize() or create(). */
    RtcEngine() noexcept = default;

#if defined(__cpp_exceptions)
    /**
     * Creates the engine at once (createAgoraRtcEngine + initialize).
     * @throws agoraish::Error with the code initialize() would return.
     */
    explicit RtcEngine(const RtcEngineContext& context) {
        if (int rc = initialize(context); rc != 0) throw Error(rc);
    }
#endif

    /** Releases the engine with release(true). */
    ~RtcEngine() { release(true); }

    /** Not copyable: exactly one RtcEngine owns an engine. */
    RtcEngine(const RtcEngine&) = delete;
    /** Not copyable: exactly one RtcEngine owns an engine. */
    RtcEngine& operator=(const RtcEngine&) = delete;

    /** Takes the engine of `other`, which is left empty. */
    RtcEngine(RtcEngine&& other) noexcept : engine_(std::exchange(other.engine_, nullptr)) {}

    /** Releases this engine (release(true)), then takes the engine of `other`. */
    RtcEngine& operator=(RtcEngine&& other) noexcept {
        if (this != &other) {
            release(true);
            engine_ = std::exchange(other.engine_, nullptr);
        }
        return *this;
    }

    /**
     * Creates an engine into `out` (replacing, and so releasing, what it held).
     *
     * @return 0, or the code of initialize(); `out` is unchanged on failure.
     */
    static int create(const RtcEngineContext& context, RtcEngine& out) noexcept {
        RtcEngine engine;
        if (int rc = engine.initialize(context); rc != 0) return rc;
        out = std::move(engine);
        return 0;
    }

    /**
     * Creates the engine (Agora's IRtcEngine::initialize). The engine starts
     * its event thread and opens its log before this returns.
     *
     * @return 0; -8 if this RtcEngine already holds an engine; otherwise the
     *         code of agoraish_engine_create(): -2 a field out of range,
     *         -101 bad app id, -1 the log file cannot be opened.
     */
    int initialize(const RtcEngineContext& context) noexcept {
        if (engine_ != nullptr) return -AGORAISH_ERR_INVALID_STATE;
        agoraish_event_handler table = detail::makeEventTable(context.eventHandler);
        agoraish_engine_config config{};
        config.struct_size = sizeof(config);
        config.app_id = context.appId.c_str();
        config.event_handler = context.eventHandler != nullptr ? &table : nullptr;
        config.server_url = context.serverUrl ? context.serverUrl->c_str() : nullptr;
        config.log_file = context.logFile ? context.logFile->c_str() : nullptr;
        config.log_file_size_kb = context.logFileSizeKB.value_or(-1);
        const int level = context.logLevel.value_or(AGORAISH_LOG_LEVEL_INFO);
        // 0 in the C struct selects INFO; NONE is applied after creation.
        config.log_level = level == AGORAISH_LOG_LEVEL_NONE ? AGORAISH_LOG_LEVEL_INFO : level;
        config.area_code = context.areaCode.value_or(static_cast<unsigned int>(AGORAISH_AREA_CODE_GLOB));
        engine_ = agoraish_engine_create(&config);
        if (engine_ == nullptr) {
            const int rc = agoraish_get_last_error();
            return rc != 0 ? rc : -AGORAISH_ERR_FAILED;
        }
        if (level == AGORAISH_LOG_LEVEL_NONE) return setLogLevel(AGORAISH_LOG_LEVEL_NONE);
        return 0;
    }

    /**
     * Releases the engine and everything it owns (Agora's release). Idempotent.
     *
     * @param sync  true: also waits until a running callback has returned and
     *              the event thread has ended, so the handler may be freed.
     *              false: that clean-up finishes in the background.
     * @return 0 (also when no engine is held); -5 when called from one of this
     *         engine's own callbacks (the engine is kept).
     */
    int release(bool sync = true) noexcept {
        if (engine_ == nullptr) return 0;
        const int rc = agoraish_engine_release(engine_, sync ? 1 : 0);
        if (rc != -AGORAISH_ERR_REFUSED) engine_ = nullptr;
        return rc;
    }

    /** Whether this RtcEngine holds an engine. */
    explicit operator bool() const noexcept { return engine_ != nullptr; }

    /** The C handle, for calls the wrapper lacks; still owned by this object. */
    agoraish_engine_t* nativeHandle() const noexcept { return engine_; }

    /**
     * Sets private parameters as a JSON object (Agora's setParameters), for
     * example `{"rtc.log_filter": 2063}`. All keys are checked before any is
     * applied. On success onApiCallExecuted("setParameters") follows.
     *
     * @param parameters  JSON text, at most 65536 bytes. Copied.
     * @return 0; -2 bad JSON, unknown key or bad value; -7 no engine.
     */
    int setParameters(const char* parameters) noexcept {
        return agoraish_engine_set_parameters(engine_, parameters);
    }

    /** setParameters(const char*) for a std::string. */
    int setParameters(const std::string& parameters) noexcept {
        return setParameters(parameters.c_str());
    }

    /**
     * Reads one parameter as JSON text (a string value is quoted).
     *
     * @param key  A key of setParameters, or "rtc.app_id" / "rtc.area_code".
     * @param out  Receives the value; unchanged on failure.
     * @return 0; -2 unknown key; -7 no engine.
     */
    int getParameter(const std::string& key, std::string& out) const {
        std::string buffer(64, '\0');
        for (int attempt = 0; attempt < 8; ++attempt) {
            std::size_t len = buffer.size();
            const int rc = agoraish_engine_get_parameter(engine_, key.c_str(), buffer.data(), &len);
            if (rc == 0) {
                buffer.resize(len > 0 ? len - 1 : 0);
                out = std::move(buffer);
                return 0;
            }
            if (rc != -AGORAISH_ERR_BUFFER_TOO_SMALL) return rc;
            buffer.assign(len, '\0');  // the value may grow again before the next try
        }
        return -AGORAISH_ERR_BUFFER_TOO_SMALL;
    }

    /**
     * Sets the log file (Agora's setLogFile); its directory must exist. On
     * success onApiCallExecuted("setLogFile") follows.
     *
     * @param filePath  Non-empty path, at most 4095 bytes. Copied.
     * @return 0; -2 bad path or the file cannot be opened; -7 no engine.
     */
    int setLogFile(const char* filePath) noexcept {
        return agoraish_engine_set_log_file(engine_, filePath);
    }

    /**
     * Sets which log lines are written (Agora's setLogFilter).
     *
     * @param filter  An agoraish_log_filter bit set within AGORAISH_LOG_FILTER_MASK.
     * @return 0; -2 unknown bits; -7 no engine.
     */
    int setLogFilter(unsigned int filter) noexcept {
        return agoraish_engine_set_log_filter(engine_, filter);
    }

    /**
     * Sets the log level (Agora 4.x setLogLevel).
     *
     * @param level  An agoraish_log_level.
     * @return 0; -2 unknown level; -7 no engine.
     */
    int setLogLevel(int level) noexcept {
        return agoraish_engine_set_log_level(engine_, level);
    }

    /**
     * Sets the size of one log file (Agora's setLogFileSize).
     *
     * @param fileSizeInKBytes  1..AGORAISH_LOG_FILE_SIZE_MAX_KB; values below
     *                          AGORAISH_LOG_FILE_SIZE_MIN_KB are raised to it.
     * @return 0; -2 out of range; -7 no engine.
     */
    int setLogFileSize(unsigned int fileSizeInKBytes) noexcept {
        return agoraish_engine_set_log_file_size(engine_, fileSizeInKBytes);
    }

    /**
     * The library version, "major.minor.patch" (Agora's getVersion).
     *
     * @param build  Optional; receives the build number.
     * @return A static string owned by the library.
     */
    static const char* getVersion(int* build = nullptr) noexcept {
        return agoraish_get_version(build);
    }

    /**
     * A description of an error code, negated or not (Agora's getErrorDescription).
     *
     * @return A static string owned by the library; "unknown error" for
     *         unknown codes.
     */
    static const char* getErrorDescription(int code) noexcept {
        return agoraish_get_error_description(code);
    }

private:
    agoraish_engine_t* engine_ = nullptr;
};

}  // namespace agoraish

#endif  // AGORAISH_HPP
