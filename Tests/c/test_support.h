/*
 * test_support.h — what the C tests of include/agoraish.h share:
 *
 *   - checks that count and report (CHECK, CHECK_RC, CHECK_PARAM) and the
 *     summary line that ends every program (test_summary);
 *   - a mutex and a CLOCK_MONOTONIC condition variable guarding event
 *     counters, and waits on them with a deadline (never sleep-polling);
 *   - a temporary directory for log files, removed at the end;
 *   - engines and servers created from the few fields the tests set.
 *
 * Header-only (static inline), so that every test stays one source file
 * built on its own. Define _POSIX_C_SOURCE before any include and TEST_NAME
 * (the program's name, e.g. "bad_input") before this one: failed checks print
 * "FAIL <TEST_NAME>.c:<line>: ..." on stderr, and test_summary() prints
 * "<TEST_NAME>: all <n> checks passed".
 */
#ifndef AGORAISH_TESTS_C_TEST_SUPPORT_H
#define AGORAISH_TESTS_C_TEST_SUPPORT_H

#ifndef TEST_NAME
#error "define TEST_NAME before including test_support.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agoraish.h"

/* ------------------------------------------------------------------------ */
/* Checks                                                                    */
/* ------------------------------------------------------------------------ */

static int failures;
static int checks;

static inline void check_(int ok, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/** Counts one check; a failed one prints a line naming the test's source line. */
static inline void check_(int ok, int line, const char *fmt, ...) {
    va_list ap;
    checks++;
    if (ok) return;
    failures++;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL " TEST_NAME ".c:%d: ", line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* A function, so that `got` (often the call under test) is evaluated once. */
static inline void check_rc_(int got, int want, const char *what, int line) {
    check_(got == want, line, "%s: returned %d, expected %d", what, got, want);
}

#define CHECK(cond, ...) check_((cond) != 0, __LINE__, __VA_ARGS__)
#define CHECK_RC(got, want, what) check_rc_((got), (want), (what), __LINE__)

/** The summary line; returns the exit status (0 when every check passed). */
static inline int test_summary(void) {
    if (failures) {
        fprintf(stderr, TEST_NAME ": %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf(TEST_NAME ": all %d checks passed\n", checks);
    return 0;
}

/** Reads parameter `key` of `engine` into `out` ("" on failure); returns the call's result. */
static inline int get_param(agoraish_engine_t *engine, const char *key, char *out, size_t size) {
    size_t len = size;
    out[0] = '\0';
    return agoraish_engine_get_parameter(engine, key, out, &len);
}

/* Two checks: that parameter `key` of `engine` reads, and that it reads `want`. */
static inline void check_param_(agoraish_engine_t *engine, const char *who, const char *key, const char *want,
                                int line) {
    char value[512];
    int rc = get_param(engine, key, value, sizeof value);
    check_(rc == 0, line, "%s get %s: returned %d, expected 0", who, key, rc);
    check_(strcmp(value, want) == 0, line, "%s %s is %s, expected %s", who, key, value, want);
}

#define CHECK_PARAM(engine, who, key, want) check_param_((engine), (who), (key), (want), __LINE__)

/* ------------------------------------------------------------------------ */
/* Time, and waits on a condition variable                                   */
/* ------------------------------------------------------------------------ */

/** CLOCK_MONOTONIC in milliseconds. */
static inline double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/** The CLOCK_MONOTONIC time `seconds` from now. */
static inline struct timespec deadline_in(int seconds) {
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += seconds;
    return deadline;
}

/** Whether CLOCK_MONOTONIC has reached `deadline`. */
static inline int past(const struct timespec *deadline) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > deadline->tv_sec || (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

/** A mutex, and a condition variable whose timed waits use CLOCK_MONOTONIC (as deadline_in). */
static inline void monitor_init(pthread_mutex_t *mutex, pthread_cond_t *cond) {
    pthread_condattr_t attr;
    pthread_mutex_init(mutex, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(cond, &attr);
    pthread_condattr_destroy(&attr);
}

static inline void monitor_destroy(pthread_mutex_t *mutex, pthread_cond_t *cond) {
    pthread_cond_destroy(cond);
    pthread_mutex_destroy(mutex);
}

/** Adds one to the counter `*counter`, guarded by `mutex`, and wakes every waiter on `cond`. */
static inline void count_up(pthread_mutex_t *mutex, pthread_cond_t *cond, int *counter) {
    pthread_mutex_lock(mutex);
    (*counter)++;
    pthread_cond_broadcast(cond);
    pthread_mutex_unlock(mutex);
}

/** The counter `*counter`, read under `mutex`. */
static inline int read_count(pthread_mutex_t *mutex, const int *counter) {
    int n;
    pthread_mutex_lock(mutex);
    n = *counter;
    pthread_mutex_unlock(mutex);
    return n;
}

/**
 * Waits until the counter `*counter` (guarded by `mutex`, signalled on
 * `cond`) reaches `n`, for at most `seconds`; returns its value then.
 */
static inline int wait_count(pthread_mutex_t *mutex, pthread_cond_t *cond, const int *counter, int n, int seconds) {
    struct timespec deadline = deadline_in(seconds);
    int count;
    pthread_mutex_lock(mutex);
    while (*counter < n) {
        if (pthread_cond_timedwait(cond, mutex, &deadline) == ETIMEDOUT) break;
    }
    count = *counter;
    pthread_mutex_unlock(mutex);
    return count;
}

/* ------------------------------------------------------------------------ */
/* A temporary directory for log files                                      */
/* ------------------------------------------------------------------------ */

static char tmpdir[64];

/** Creates `tmpdir` as /tmp/<prefix>-XXXXXX; on failure says why and returns 0. */
static inline int make_tmpdir(const char *prefix) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/%s-XXXXXX", prefix);
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 0;
    }
    return 1;
}

/** Removes `tmpdir` and the files in it; keeps them (and says where) when a check failed. */
static inline void remove_tmpdir(void) {
    DIR *dir;
    struct dirent *entry;
    char path[512];
    if (failures) {
        fprintf(stderr, TEST_NAME ": logs kept in %s\n", tmpdir);
        return;
    }
    dir = opendir(tmpdir);
    if (!dir) return;
    while ((entry = readdir(dir)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", tmpdir, entry->d_name);
        unlink(path);
    }
    closedir(dir);
    rmdir(tmpdir);
}

/** <tmpdir>/<name> into `out`. */
static inline void path_in_tmp(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/%s", tmpdir, name);
}

/** <tmpdir>/<name> in one of 16 buffers used in turn: valid for the next 15 calls. */
static inline char *tmp_path(const char *name) {
    static char paths[16][256];
    static int next;
    char *p = paths[next++ % 16];
    path_in_tmp(p, sizeof paths[0], name);
    return p;
}

/* ------------------------------------------------------------------------ */
/* Engines and servers                                                       */
/* ------------------------------------------------------------------------ */

/** A handler table of this header's size with no callbacks, passing `user_data` to them. */
static inline agoraish_event_handler empty_handler(void *user_data) {
    agoraish_event_handler handler;
    memset(&handler, 0, sizeof handler);
    handler.struct_size = sizeof handler;
    handler.user_data = user_data;
    return handler;
}

/**
 * An engine of `app_id` that logs to <tmpdir>/<log_name>; `handler` and
 * `server_url` may be NULL (the defaults). NULL when create fails, with the
 * reason in agoraish_get_last_error(). The config and handler are copied.
 */
static inline agoraish_engine_t *new_engine(const char *app_id, const agoraish_event_handler *handler,
                                            const char *server_url, const char *log_name) {
    agoraish_engine_config config;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.app_id = app_id;
    config.event_handler = handler;
    config.server_url = server_url;
    config.log_file = tmp_path(log_name);
    return agoraish_engine_create(&config);
}

/** A server, not started, with these two fields set (the rest zero: the defaults). */
static inline agoraish_server_t *create_server(int32_t http_port, const char *config_json) {
    agoraish_server_config config;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.http_port = http_port;
    config.config_json = config_json;
    return agoraish_server_create(&config);
}

#endif /* AGORAISH_TESTS_C_TEST_SUPPORT_H */
