/*
 * join_latency.c — how long a join takes: agoraish_engine_join_channel() to
 * on_join_channel_success, against an embedded channel server in the same
 * process (127.0.0.1). The library is opened with dlopen so that the harness
 * decides which copy is measured (AGORAISH_LIBRARY).
 *
 * One engine joins JOINS times, each time with a fresh uid; every join is
 * followed by leave_channel and a wait for on_leave_channel, so each join
 * opens a new signaling connection (TCP connect, WebSocket handshake, join
 * request and answer). The start is taken on the calling thread right before
 * the join call, the end inside on_join_channel_success (on the engine's
 * event thread), both with CLOCK_MONOTONIC. A few warm-up joins are not
 * counted. Prints the figures as JSON:
 *
 *   join_latency PATH LOG_FILE JOINS
 *     -> {"figures": [{"name": "join_latency_p50_ms", ...}, ...]}
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "agoraish.h"
#include "bench_support.h"

#define WARMUP 10
#define WAIT_SECONDS 10
#define CHANNEL "bench-join"
#define FIRST_UID 100000u

static struct {
    agoraish_engine_t *(*engine_create)(const agoraish_engine_config *);
    int (*engine_release)(agoraish_engine_t *, int);
    int (*join_channel)(agoraish_engine_t *, const char *, const char *, const char *, uint32_t);
    int (*leave_channel)(agoraish_engine_t *);
    int (*get_last_error)(void);
    agoraish_server_t *(*server_create)(const agoraish_server_config *);
    int (*server_start)(agoraish_server_t *);
    int (*server_get_url)(agoraish_server_t *, char *, size_t *);
    int (*server_release)(agoraish_server_t *);
} api;

/* What the callbacks share with main. */
static struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    unsigned joins, leaves, errors;
    uint32_t uid;
    double joined_at_ms;
} ev = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0.0};

static void on_join(agoraish_engine_t *e, void *ud, const char *channel, uint32_t uid, int elapsed) {
    double at = now_ms();
    (void)e, (void)ud, (void)channel, (void)elapsed;
    pthread_mutex_lock(&ev.mutex);
    ev.joined_at_ms = at;
    ev.uid = uid;
    ev.joins++;
    pthread_cond_broadcast(&ev.cond);
    pthread_mutex_unlock(&ev.mutex);
}

static void on_leave(agoraish_engine_t *e, void *ud, const agoraish_rtc_stats *stats) {
    (void)e, (void)ud, (void)stats;
    pthread_mutex_lock(&ev.mutex);
    ev.leaves++;
    pthread_cond_broadcast(&ev.cond);
    pthread_mutex_unlock(&ev.mutex);
}

static void on_error(agoraish_engine_t *e, void *ud, int err, const char *msg) {
    (void)e, (void)ud;
    fprintf(stderr, "on_error %d: %s\n", err, msg);
    pthread_mutex_lock(&ev.mutex);
    ev.errors++;
    pthread_cond_broadcast(&ev.cond);
    pthread_mutex_unlock(&ev.mutex);
}

/* Waits until *counter reaches n (or an error); returns whether it did. */
static int wait_count(const unsigned *counter, unsigned n) {
    struct timespec deadline;
    int ok;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += WAIT_SECONDS;
    pthread_mutex_lock(&ev.mutex);
    while (*counter < n && ev.errors == 0) {
        if (pthread_cond_timedwait(&ev.cond, &ev.mutex, &deadline) == ETIMEDOUT) break;
    }
    ok = *counter >= n;
    pthread_mutex_unlock(&ev.mutex);
    return ok;
}

int main(int argc, char **argv) {
    void *lib;
    agoraish_server_config server_config;
    agoraish_server_t *server;
    agoraish_event_handler handler;
    agoraish_engine_config config;
    agoraish_engine_t *engine;
    char url[128];
    size_t len = sizeof url;
    double *samples;
    int joins, i, rc = 0;

    if (argc != 4 || (joins = atoi(argv[3])) < 1) {
        fprintf(stderr, "usage: join_latency PATH LOG_FILE JOINS\n");
        return 2;
    }
    if (!(lib = open_library(argv[1]))) return 1;
    LOOKUP(lib, api.engine_create, "agoraish_engine_create");
    LOOKUP(lib, api.engine_release, "agoraish_engine_release");
    LOOKUP(lib, api.join_channel, "agoraish_engine_join_channel");
    LOOKUP(lib, api.leave_channel, "agoraish_engine_leave_channel");
    LOOKUP(lib, api.get_last_error, "agoraish_get_last_error");
    LOOKUP(lib, api.server_create, "agoraish_server_create");
    LOOKUP(lib, api.server_start, "agoraish_server_start");
    LOOKUP(lib, api.server_get_url, "agoraish_server_get_url");
    LOOKUP(lib, api.server_release, "agoraish_server_release");

    /* The embedded server; every join comes from 127.0.0.1, so the per-address
     * join rate limit is lifted. */
    memset(&server_config, 0, sizeof server_config);
    server_config.struct_size = sizeof server_config;
    server_config.config_json = "{\"limits\": {\"joins_per_second_per_address\": 1000000}}";
    server = api.server_create(&server_config);
    if (!server || api.server_start(server) != 0 || api.server_get_url(server, url, &len) != 0) {
        fprintf(stderr, "cannot start the embedded server (last error %d)\n", api.get_last_error());
        return 1;
    }

    memset(&handler, 0, sizeof handler);
    handler.struct_size = sizeof handler;
    handler.on_join_channel_success = on_join;
    handler.on_leave_channel = on_leave;
    handler.on_error = on_error;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.app_id = "0123456789abcdef0123456789abcdef";
    config.event_handler = &handler;
    config.server_url = url;
    config.log_file = argv[2];
    engine = api.engine_create(&config);
    if (!engine) {
        fprintf(stderr, "create failed: %d\n", api.get_last_error());
        api.server_release(server);
        return 1;
    }

    samples = calloc((size_t)joins, sizeof *samples);
    if (!samples) return 1;
    for (i = -WARMUP; i < joins && rc == 0; i++) {
        unsigned n = (unsigned)(i + WARMUP) + 1;
        uint32_t uid = FIRST_UID + (uint32_t)(i + WARMUP);
        double start = now_ms();
        int code = api.join_channel(engine, NULL, CHANNEL, NULL, uid);
        if (code != 0) {
            fprintf(stderr, "join %d: join_channel returned %d\n", i, code);
            rc = 1;
        } else if (!wait_count(&ev.joins, n)) {
            fprintf(stderr, "join %d: no on_join_channel_success within %d s\n", i, WAIT_SECONDS);
            rc = 1;
        } else {
            pthread_mutex_lock(&ev.mutex);
            if (ev.uid != uid) {
                fprintf(stderr, "join %d: joined as uid %u, asked for %u\n", i, ev.uid, uid);
                rc = 1;
            }
            if (i >= 0) samples[i] = ev.joined_at_ms - start;
            pthread_mutex_unlock(&ev.mutex);
            if ((code = api.leave_channel(engine)) != 0 || !wait_count(&ev.leaves, n)) {
                fprintf(stderr, "join %d: leave_channel returned %d or no on_leave_channel\n", i, code);
                rc = 1;
            }
        }
    }
    api.engine_release(engine, 1);
    api.server_release(server);
    if (rc != 0) {
        free(samples);
        return rc;
    }

    sort_samples(samples, joins);
    printf("{\"figures\": [\n");
    printf("  {\"name\": \"join_latency_p50_ms\", \"value\": %.3f, \"unit\": \"ms\", "
           "\"note\": \"median of N=%d join_channel -> on_join_channel_success (host clock), one engine, "
           "embedded server on 127.0.0.1, new connection and fresh uid per join, each followed by leave, "
           "after %d warm-up joins\"},\n",
           quantile(samples, joins, 0.5), joins, WARMUP);
    printf("  {\"name\": \"join_latency_p99_ms\", \"value\": %.3f, \"unit\": \"ms\", "
           "\"note\": \"p99 of the same N=%d joins (max %.3f ms)\"}\n",
           quantile(samples, joins, 0.99), joins, samples[joins - 1]);
    printf("]}\n");
    free(samples);
    return 0;
}
