/*
 * hello_engine.c — the smallest agoraish host, in the order of Agora's
 * lifecycle: create an engine with an event handler, read the version and
 * the log file, set a parameter, receive onApiCallExecuted, release.
 *
 *   make demo      (builds the library and runs this)
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"

/* What the event handler shares with main. */
typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int done;
    int err;
    char api[64];
    char result[256];
} api_call_t;

/* onApiCallExecuted: runs on the engine's event thread. Copy, then signal. */
static void on_api_call_executed(agoraish_engine_t *engine, void *user_data, int err,
                                 const char *api, const char *result) {
    api_call_t *call = user_data;
    (void)engine;
    pthread_mutex_lock(&call->mutex);
    call->err = err;
    snprintf(call->api, sizeof call->api, "%s", api);
    snprintf(call->result, sizeof call->result, "%s", result);
    call->done = 1;
    pthread_cond_signal(&call->cond);
    pthread_mutex_unlock(&call->mutex);
}

/* A JSON string value ("...") as plain text: strips the quotes and undoes
 * the simple escapes. Leaves anything else as it is. */
static void json_unquote(char *text) {
    size_t n = strlen(text), r, w = 0;
    if (n < 2 || text[0] != '"' || text[n - 1] != '"') return;
    for (r = 1; r < n - 1; r++) {
        char c = text[r];
        if (c == '\\' && r + 1 < n - 1) {
            c = text[++r];
            if (c == 'n') c = '\n';
            else if (c == 't') c = '\t';
        }
        text[w++] = c;
    }
    text[w] = '\0';
}

int main(void) {
    api_call_t call;
    agoraish_event_handler handler;
    agoraish_engine_config config;
    agoraish_engine_t *engine;
    char log_file[4096];
    size_t len = sizeof log_file;
    struct timespec deadline;
    int build = 0, rc;
    const char *version = agoraish_get_version(&build);

    memset(&call, 0, sizeof call);
    pthread_mutex_init(&call.mutex, NULL);
    pthread_cond_init(&call.cond, NULL);

    /* The handler table and the config are copied by create. */
    memset(&handler, 0, sizeof handler);
    handler.struct_size = sizeof handler;
    handler.user_data = &call;
    handler.on_api_call_executed = on_api_call_executed;

    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.app_id = "hello-agoraish";
    config.event_handler = &handler;
    /* server_url, log_file, sizes, level, area: zero selects the defaults. */

    engine = agoraish_engine_create(&config);
    if (!engine) {
        rc = agoraish_get_last_error();
        fprintf(stderr, "cannot create the engine: %d (%s)\n", rc, agoraish_get_error_description(rc));
        return 1;
    }
    printf("agoraish %s (build %d): engine created\n", version, build);

    rc = agoraish_engine_get_parameter(engine, "rtc.log_file", log_file, &len);
    if (rc == 0) {
        json_unquote(log_file);
        printf("log file: %s\n", log_file);
    } else {
        printf("log file: unknown (%d: %s)\n", rc, agoraish_get_error_description(rc));
    }

    rc = agoraish_engine_set_parameters(engine, "{\"rtc.log_filter\": 2063}");
    if (rc != 0) {
        fprintf(stderr, "setParameters failed: %d (%s)\n", rc, agoraish_get_error_description(rc));
        agoraish_engine_release(engine, 1);
        return 1;
    }

    /* Wait (at most 5 s) for the event. The default condition variable clock
     * is CLOCK_REALTIME. */
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 5;
    pthread_mutex_lock(&call.mutex);
    while (!call.done) {
        if (pthread_cond_timedwait(&call.cond, &call.mutex, &deadline) == ETIMEDOUT) break;
    }
    if (call.done) {
        printf("onApiCallExecuted: %s %s -> %s\n", call.api, call.result,
               call.err == 0 ? "ok" : agoraish_get_error_description(call.err));
    } else {
        printf("onApiCallExecuted: no event within 5 s\n");
    }
    pthread_mutex_unlock(&call.mutex);

    /* sync = 1: when release returns no callback runs, so `call` may go. */
    rc = agoraish_engine_release(engine, 1);
    printf("engine released%s\n", rc == 0 ? "" : " with an error");
    pthread_cond_destroy(&call.cond);
    pthread_mutex_destroy(&call.mutex);
    return rc == 0 && call.done ? 0 : 1;
}
