/*
 * engine_lifecycle.c — the life of engines as a C host sees it, through
 * include/agoraish.h only:
 *
 *   - two engines, each with its own handler, user_data and log file, get
 *     exactly their own onApiCallExecuted events, in call order, on one event
 *     thread each (never the caller's);
 *   - the log files exist and hold the creation line;
 *   - get_parameter round-trips set_parameters and follows the `buf, *len`
 *     convention, including -6 with nothing written;
 *   - release with sync=1 and sync=0, release again (0), calls on a released
 *     handle (-7), a released handle stays dead when its slot is reused;
 *   - release from inside a callback is refused (-5) and other calls work there;
 *   - release on a second thread while the first keeps calling a setter.
 *
 * Waits use a condition variable with a deadline, never sleep-polling.
 * Exit status 0 when every check passes; otherwise one line per failed check
 * on stderr and exit status 1. It runs clean under
 * `valgrind --leak-check=full --errors-for-leak-kinds=definite`.
 */
#define _POSIX_C_SOURCE 200809L

#include <sched.h>

#define TEST_NAME "engine_lifecycle"
#include "test_support.h"

/** How long any one wait for events may take. Generous: valgrind is slow. */
#define WAIT_SECONDS 20

/* ------------------------------------------------------------------------ */
/* Event recorder: one per engine, passed as user_data                       */
/* ------------------------------------------------------------------------ */

#define MAX_EVENTS 64

typedef struct {
    int err;
    char api[32];
    char result[512];
} event_t;

typedef enum {
    BEHAVIOUR_RECORD,          /* record only */
    BEHAVIOUR_CALL_FROM_INSIDE /* also try release and get_parameter from the callback */
} behaviour_t;

typedef struct {
    const char *name;
    behaviour_t behaviour;
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    /* Guarded by mutex. */
    agoraish_engine_t *engine; /* the handle create returned; set before any setter */
    int count;                 /* events seen (recorded up to MAX_EVENTS) */
    event_t events[MAX_EVENTS];
    int wrong_engine;          /* events whose engine argument was not `engine` */
    int on_caller_thread;      /* events delivered on the main thread */
    int thread_switches;       /* events delivered on a different thread than the first */
    int have_thread;
    pthread_t thread;          /* the thread of the first event */
    int in_callback;           /* callbacks running right now */
    int release_inside_rc[2];  /* release(sync=1), release(sync=0) from the callback */
    int get_inside_rc;         /* get_parameter from the callback */
} recorder_t;

static pthread_t main_thread;

static void recorder_init(recorder_t *r, const char *name, behaviour_t behaviour) {
    memset(r, 0, sizeof *r);
    r->name = name;
    r->behaviour = behaviour;
    r->release_inside_rc[0] = r->release_inside_rc[1] = r->get_inside_rc = 1; /* "not called" */
    monitor_init(&r->mutex, &r->cond);
}

static void recorder_destroy(recorder_t *r) { monitor_destroy(&r->mutex, &r->cond); }

static void on_api_call_executed(agoraish_engine_t *engine, void *user_data, int err,
                                 const char *api, const char *result) {
    recorder_t *r = user_data;
    pthread_t self = pthread_self();

    pthread_mutex_lock(&r->mutex);
    r->in_callback++;
    if (engine != r->engine) r->wrong_engine++;
    if (pthread_equal(self, main_thread)) r->on_caller_thread++;
    if (!r->have_thread) {
        r->have_thread = 1;
        r->thread = self;
    } else if (!pthread_equal(self, r->thread)) {
        r->thread_switches++;
    }
    pthread_mutex_unlock(&r->mutex);

    if (r->behaviour == BEHAVIOUR_CALL_FROM_INSIDE) {
        char buf[64];
        size_t len = sizeof buf;
        int rel1 = agoraish_engine_release(engine, 1);
        int rel0 = agoraish_engine_release(engine, 0);
        int get = agoraish_engine_get_parameter(engine, "rtc.log_level", buf, &len);
        pthread_mutex_lock(&r->mutex);
        r->release_inside_rc[0] = rel1;
        r->release_inside_rc[1] = rel0;
        r->get_inside_rc = get;
        pthread_mutex_unlock(&r->mutex);
    }

    pthread_mutex_lock(&r->mutex);
    if (r->count < MAX_EVENTS) {
        event_t *e = &r->events[r->count];
        e->err = err;
        snprintf(e->api, sizeof e->api, "%s", api ? api : "(null)");
        snprintf(e->result, sizeof e->result, "%s", result ? result : "(null)");
    }
    r->count++;
    r->in_callback--;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->mutex);
}

/** Waits until `r` has seen at least `n` events; returns the count seen. */
static int wait_for_events(recorder_t *r, int n) { return wait_count(&r->mutex, &r->cond, &r->count, n, WAIT_SECONDS); }

static int recorder_count(recorder_t *r) { return read_count(&r->mutex, &r->count); }

/** An event the test expects: the API name and a substring of the result. */
typedef struct {
    const char *api;
    const char *result_contains;
} expected_event_t;

/** Checks that every event of `r` carried its engine and came on one event thread. */
static void check_delivery(recorder_t *r) {
    pthread_mutex_lock(&r->mutex);
    CHECK(r->wrong_engine == 0, "engine %s: %d events carried another engine's handle",
          r->name, r->wrong_engine);
    CHECK(r->on_caller_thread == 0, "engine %s: %d events arrived on the caller's thread",
          r->name, r->on_caller_thread);
    CHECK(r->thread_switches == 0, "engine %s: events arrived on more than one thread", r->name);
    pthread_mutex_unlock(&r->mutex);
}

/** Checks that `r` saw exactly `expected`, in order, from its own engine. */
static void check_events(recorder_t *r, const expected_event_t *expected, int n) {
    int i;
    check_delivery(r);
    pthread_mutex_lock(&r->mutex);
    CHECK(r->count == n, "engine %s: %d events, expected %d", r->name, r->count, n);
    for (i = 0; i < n && i < r->count && i < MAX_EVENTS; i++) {
        const event_t *e = &r->events[i];
        CHECK(strcmp(e->api, expected[i].api) == 0, "engine %s: event %d is %s, expected %s",
              r->name, i, e->api, expected[i].api);
        CHECK(strstr(e->result, expected[i].result_contains) != NULL,
              "engine %s: event %d (%s) result \"%s\" lacks \"%s\"", r->name, i, e->api,
              e->result, expected[i].result_contains);
        CHECK(e->err == 0, "engine %s: event %d (%s) err %d", r->name, i, e->api, e->err);
    }
    pthread_mutex_unlock(&r->mutex);
}

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static agoraish_engine_t *create_engine(const char *app_id, const char *log_name, recorder_t *r) {
    agoraish_event_handler handler = empty_handler(r);
    agoraish_engine_t *engine;

    handler.on_api_call_executed = on_api_call_executed;
    engine = new_engine(app_id, &handler, NULL, log_name);
    CHECK(engine != NULL, "create engine %s: NULL, last error %d (%s)", app_id,
          agoraish_get_last_error(), agoraish_get_error_description(agoraish_get_last_error()));
    CHECK_RC(agoraish_get_last_error(), 0, "get_last_error after a successful create");
    /* The handler table and config were copied: they may go out of scope now. */
    pthread_mutex_lock(&r->mutex);
    r->engine = engine;
    pthread_mutex_unlock(&r->mutex);
    return engine;
}

/** Whether the file at `path` contains every one of the NULL-terminated `needles`. */
static int file_contains(const char *path, const char *const *needles) {
    static char text[1 << 16];
    size_t n;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    for (; *needles; needles++) {
        if (!strstr(text, *needles)) return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Stories                                                                   */
/* ------------------------------------------------------------------------ */

static recorder_t rec_a, rec_b, rec_c, rec_d;

/** Two engines, their events, their logs, their parameters; then release. */
static void two_engines(void) {
    char path[256], a2_path[256], value[512], quoted[300];
    const char *needles_a[] = {"created", "lifecycle-A", NULL};
    const char *needles_b[] = {"created", "lifecycle-B", NULL};
    const char *needles_a2[] = {"setLogFile", NULL};
    agoraish_engine_t *a, *b, *e;
    size_t len;

    recorder_init(&rec_a, "A", BEHAVIOUR_RECORD);
    recorder_init(&rec_b, "B", BEHAVIOUR_RECORD);
    a = create_engine("lifecycle-A", "a.log", &rec_a);
    b = create_engine("lifecycle-B", "b.log", &rec_b);
    if (!a || !b) return;
    CHECK(a != b, "two engines share a handle");

    /* Logs exist and hold the creation line, each in its own file. */
    path_in_tmp(path, sizeof path, "a.log");
    CHECK(file_contains(path, needles_a), "%s lacks the creation line of lifecycle-A", path);
    path_in_tmp(path, sizeof path, "b.log");
    CHECK(file_contains(path, needles_b), "%s lacks the creation line of lifecycle-B", path);

    /* Interleave setters on both engines. */
    path_in_tmp(a2_path, sizeof a2_path, "a2.log");
    CHECK_RC(agoraish_engine_set_log_file_size(a, 512), 0, "A set_log_file_size(512)");
    CHECK_RC(agoraish_engine_set_log_level(b, AGORAISH_LOG_LEVEL_ERROR), 0, "B set_log_level(ERROR)");
    CHECK_RC(agoraish_engine_set_log_file(a, a2_path), 0, "A set_log_file(a2.log)");
    CHECK_RC(agoraish_engine_set_parameters(b, "{\"rtc.log_size\": 256, \"rtc.server_url\": \"wss://example.test:7450\"}"),
             0, "B set_parameters(log_size, server_url)");
    CHECK_RC(agoraish_engine_set_parameters(a, "{\"rtc.log_filter\": 2063}"), 0, "A set_parameters(log_filter)");
    /* Rejected as a whole: applies nothing and emits no event. */
    CHECK_RC(agoraish_engine_set_parameters(b, "{\"rtc.log_size\": 300, \"rtc.no_such_key\": 1}"),
             -AGORAISH_ERR_INVALID_ARGUMENT, "B set_parameters with an unknown key");
    CHECK_RC(agoraish_engine_set_log_filter(b, 0x1000), -AGORAISH_ERR_INVALID_ARGUMENT, "B set_log_filter(0x1000)");
    CHECK_RC(agoraish_engine_set_log_filter(a, AGORAISH_LOG_FILTER_INFO), 0, "A set_log_filter(INFO)");
    CHECK_RC(agoraish_engine_set_log_filter(b, AGORAISH_LOG_FILTER_DEBUG), 0, "B set_log_filter(DEBUG)");
    CHECK_RC(agoraish_engine_set_log_level(a, AGORAISH_LOG_LEVEL_WARN), 0, "A set_log_level(WARN)");

    CHECK(wait_for_events(&rec_a, 5) >= 5, "engine A: timed out waiting for 5 events (got %d)", recorder_count(&rec_a));
    CHECK(wait_for_events(&rec_b, 3) >= 3, "engine B: timed out waiting for 3 events (got %d)", recorder_count(&rec_b));

    /* The new log file of A got the setLogFile line. */
    CHECK(file_contains(a2_path, needles_a2), "%s lacks the setLogFile line", a2_path);

    /* get_parameter round trips (two checks each: the call, the value). */
    CHECK_PARAM(b, "B", "rtc.log_size", "256");
    CHECK_PARAM(b, "B", "rtc.server_url", "\"wss://example.test:7450\"");
    CHECK_PARAM(b, "B", "rtc.log_filter", "2063");
    CHECK_PARAM(a, "A", "rtc.log_level", "2");
    CHECK_PARAM(a, "A", "rtc.log_size", "512");
    CHECK_PARAM(a, "A", "rtc.app_id", "\"lifecycle-A\"");
    CHECK_PARAM(a, "A", "rtc.area_code", "4294967295"); /* GLOB */
    snprintf(quoted, sizeof quoted, "\"%s\"", a2_path);
    CHECK_PARAM(a, "A", "rtc.log_file", quoted);

    /* The buffer convention: ask for the size, too small (-6, nothing written), exact. */
    len = 0;
    CHECK_RC(agoraish_engine_get_parameter(a, "rtc.log_file", NULL, &len), -AGORAISH_ERR_BUFFER_TOO_SMALL,
             "A get rtc.log_file with NULL buf, *len 0");
    CHECK(len == strlen(quoted) + 1, "size asked: *len %zu, expected %zu", len, strlen(quoted) + 1);
    memset(value, 'Z', sizeof value);
    len = strlen(quoted); /* one byte short: no room for the NUL */
    CHECK_RC(agoraish_engine_get_parameter(a, "rtc.log_file", value, &len), -AGORAISH_ERR_BUFFER_TOO_SMALL,
             "A get rtc.log_file into a buffer one byte short");
    CHECK(len == strlen(quoted) + 1, "short buffer: *len %zu, expected %zu", len, strlen(quoted) + 1);
    CHECK(value[0] == 'Z' && value[strlen(quoted) - 1] == 'Z', "short buffer: bytes were written");
    len = strlen(quoted) + 1;
    CHECK_RC(agoraish_engine_get_parameter(a, "rtc.log_file", value, &len), 0, "A get rtc.log_file, exact size");
    CHECK(len == strlen(quoted) + 1 && strcmp(value, quoted) == 0, "exact buffer: got %s (*len %zu)", value, len);

    /* Release A with sync=1: afterwards no callback runs and none starts. */
    CHECK_RC(agoraish_engine_release(a, 1), 0, "release A (sync=1)");
    pthread_mutex_lock(&rec_a.mutex);
    CHECK(rec_a.in_callback == 0, "a callback of A still runs after release(sync=1)");
    pthread_mutex_unlock(&rec_a.mutex);
    CHECK_RC(agoraish_engine_release(a, 1), 0, "release A again (sync=1)");
    CHECK_RC(agoraish_engine_release(a, 0), 0, "release A again (sync=0)");
    CHECK_RC(agoraish_engine_set_log_filter(a, AGORAISH_LOG_FILTER_INFO), -AGORAISH_ERR_NOT_INITIALIZED,
             "set_log_filter on released A");
    CHECK_RC(agoraish_engine_set_parameters(a, "{\"rtc.log_size\": 256}"), -AGORAISH_ERR_NOT_INITIALIZED,
             "set_parameters on released A");
    CHECK_RC(get_param(a, "rtc.log_size", value, sizeof value), -AGORAISH_ERR_NOT_INITIALIZED,
             "get_parameter on released A");

    /* B is unaffected by A's release. */
    CHECK_RC(agoraish_engine_set_log_file_size(b, 1), 0, "B set_log_file_size(1) after A's release");
    CHECK(wait_for_events(&rec_b, 4) >= 4, "engine B: timed out waiting for its 4th event");
    CHECK_PARAM(b, "B (after set_log_file_size(1))", "rtc.log_size", "128");

    /* A new engine may reuse A's slot; A's handle must not reach it. */
    e = new_engine("lifecycle-E", NULL, NULL, "e.log");
    CHECK(e != NULL, "create engine E: last error %d", agoraish_get_last_error());
    CHECK(e != a, "engine E got the released handle of A");
    CHECK_RC(agoraish_engine_set_log_level(a, AGORAISH_LOG_LEVEL_INFO), -AGORAISH_ERR_NOT_INITIALIZED,
             "set_log_level on A's stale handle after E was created");
    CHECK_RC(agoraish_engine_release(a, 1), 0, "release A's stale handle while E lives");
    CHECK_PARAM(e, "E", "rtc.app_id", "\"lifecycle-E\"");
    CHECK_RC(agoraish_engine_release(e, 1), 0, "release E");

    /* Release B with sync=0. Its recorder is static, so a callback still
     * returning in the background touches valid memory. */
    CHECK_RC(agoraish_engine_release(b, 0), 0, "release B (sync=0)");
    CHECK_RC(agoraish_engine_release(b, 0), 0, "release B again (sync=0)");
    CHECK_RC(agoraish_engine_release(b, 1), 0, "release B again (sync=1)");
    CHECK_RC(agoraish_engine_set_log_level(b, AGORAISH_LOG_LEVEL_INFO), -AGORAISH_ERR_NOT_INITIALIZED,
             "set_log_level on released B");

    {
        const expected_event_t expect_a[] = {
            {"setLogFileSize", "512"},
            {"setLogFile", "a2.log"},
            {"setParameters", "2063"},
            {"setLogFilter", "15"},
            {"setLogLevel", "2"},
        };
        const expected_event_t expect_b[] = {
            {"setLogLevel", "4"},
            {"setParameters", "wss://example.test:7450"},
            {"setLogFilter", "2063"},
            {"setLogFileSize", "128"},
        };
        check_events(&rec_a, expect_a, (int)(sizeof expect_a / sizeof expect_a[0]));
        check_events(&rec_b, expect_b, (int)(sizeof expect_b / sizeof expect_b[0]));
    }
    pthread_mutex_lock(&rec_a.mutex);
    pthread_mutex_lock(&rec_b.mutex);
    CHECK(!rec_a.have_thread || !rec_b.have_thread || !pthread_equal(rec_a.thread, rec_b.thread),
          "engines A and B delivered events on the same thread");
    pthread_mutex_unlock(&rec_b.mutex);
    pthread_mutex_unlock(&rec_a.mutex);
    recorder_destroy(&rec_a);
    /* rec_b is not destroyed: B was released with sync=0. */
}

/** Release from inside a callback is refused; other calls work there. */
static void release_inside_callback(void) {
    agoraish_engine_t *c = create_engine("lifecycle-C", "c.log", &rec_c);
    if (!c) return;
    CHECK_RC(agoraish_engine_set_log_level(c, AGORAISH_LOG_LEVEL_INFO), 0, "C set_log_level(INFO)");
    CHECK(wait_for_events(&rec_c, 1) >= 1, "engine C: timed out waiting for its event");
    pthread_mutex_lock(&rec_c.mutex);
    CHECK_RC(rec_c.release_inside_rc[0], -AGORAISH_ERR_REFUSED, "release(sync=1) inside C's callback");
    CHECK_RC(rec_c.release_inside_rc[1], -AGORAISH_ERR_REFUSED, "release(sync=0) inside C's callback");
    CHECK_RC(rec_c.get_inside_rc, 0, "get_parameter inside C's callback");
    pthread_mutex_unlock(&rec_c.mutex);
    /* The refused release left the engine alive. */
    CHECK_RC(agoraish_engine_set_log_filter(c, AGORAISH_LOG_FILTER_INFO), 0, "C set_log_filter after refused releases");
    CHECK(wait_for_events(&rec_c, 2) >= 2, "engine C: timed out waiting for its second event");
    CHECK_RC(agoraish_engine_release(c, 1), 0, "release C (sync=1)");
    recorder_destroy(&rec_c);
}

typedef struct {
    agoraish_engine_t *engine;
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int calls;             /* setter calls made by the main thread, up to CALLS_BEFORE_RELEASE (guarded by mutex) */
    int release_rc;
    int events_at_release; /* events D had seen when release returned */
    int in_callback_at_release;
} releaser_t;

/** Calls the releaser waits for before it releases, so the two overlap. */
#define CALLS_BEFORE_RELEASE 50

static void *release_thread(void *arg) {
    releaser_t *job = arg;
    wait_count(&job->mutex, &job->cond, &job->calls, CALLS_BEFORE_RELEASE, WAIT_SECONDS);
    job->release_rc = agoraish_engine_release(job->engine, 1);
    pthread_mutex_lock(&rec_d.mutex);
    job->events_at_release = rec_d.count;
    job->in_callback_at_release = rec_d.in_callback;
    pthread_mutex_unlock(&rec_d.mutex);
    return NULL;
}

/** One thread keeps calling a setter while another releases the engine. */
static void release_while_calling(void) {
    agoraish_engine_t *d = create_engine("lifecycle-D", "d.log", &rec_d);
    releaser_t job;
    pthread_t thread;
    struct timespec deadline;
    long calls, ok_calls = 0, dead_calls = 0, bad_calls = 0, ok_after_dead = 0;
    int last = 0;

    if (!d) return;
    memset(&job, 0, sizeof job);
    job.engine = d;
    monitor_init(&job.mutex, &job.cond);
    if (pthread_create(&thread, NULL, release_thread, &job) != 0) {
        CHECK(0, "pthread_create failed");
        agoraish_engine_release(d, 1);
        return;
    }
    deadline = deadline_in(WAIT_SECONDS);
    for (calls = 1; dead_calls < 100 && !past(&deadline); calls++) {
        /* WARN and ERROR filters keep the INFO line of each call out of the log. */
        int rc = agoraish_engine_set_log_filter(d, (calls & 1) ? AGORAISH_LOG_FILTER_ERROR : AGORAISH_LOG_FILTER_WARN);
        if (rc == 0) {
            ok_calls++;
            if (last == -AGORAISH_ERR_NOT_INITIALIZED) ok_after_dead++;
        } else if (rc == -AGORAISH_ERR_NOT_INITIALIZED) {
            dead_calls++;
        } else {
            bad_calls++;
        }
        last = rc;
        if (calls <= CALLS_BEFORE_RELEASE) {
            pthread_mutex_lock(&job.mutex);
            job.calls = (int)calls;
            pthread_cond_signal(&job.cond);
            pthread_mutex_unlock(&job.mutex);
        } else {
            sched_yield(); /* let the releaser run where threads share one core */
        }
    }
    pthread_join(thread, NULL);
    monitor_destroy(&job.mutex, &job.cond);

    CHECK_RC(job.release_rc, 0, "release D (sync=1) on a second thread");
    CHECK(job.in_callback_at_release == 0, "a callback of D still ran after release(sync=1) returned");
    CHECK(bad_calls == 0, "%ld setter calls during release returned neither 0 nor -7", bad_calls);
    CHECK(ok_after_dead == 0, "%ld setter calls succeeded after one had returned -7", ok_after_dead);
    CHECK(dead_calls > 0, "the setter never saw the release in %d s (%ld calls)", WAIT_SECONDS, calls);
    CHECK(ok_calls >= CALLS_BEFORE_RELEASE, "only %ld setter calls succeeded before the release", ok_calls);
    /* Calls after the release started no callback. */
    CHECK_RC(agoraish_engine_set_log_level(d, AGORAISH_LOG_LEVEL_INFO), -AGORAISH_ERR_NOT_INITIALIZED,
             "set_log_level on D after release");
    CHECK(recorder_count(&rec_d) == job.events_at_release, "D got %d events after release returned (%d at release)",
          recorder_count(&rec_d) - job.events_at_release, job.events_at_release);
    CHECK(recorder_count(&rec_d) <= ok_calls, "D got %d events for %ld accepted calls", recorder_count(&rec_d), ok_calls);
    check_delivery(&rec_d);
    recorder_destroy(&rec_d);
}

int main(void) {
    main_thread = pthread_self();
    if (!make_tmpdir("agoraish-lifecycle")) return 1;
    recorder_init(&rec_c, "C", BEHAVIOUR_CALL_FROM_INSIDE);
    recorder_init(&rec_d, "D", BEHAVIOUR_RECORD);

    two_engines();
    release_inside_callback();
    release_while_calling();

    remove_tmpdir();
    return test_summary();
}
