/*
 * create_data_stream.c — Agora's CreateDataStream case in C: short messages
 * from one user to the others of the channel, beside (or without) audio and
 * video.
 *
 *   join_channel -> create_data_stream(&id, reliable 1, ordered 1)
 *   -> send_stream_message(id, bytes, length)          (each message, at most 1 KB)
 *   -> on_stream_message(uid, stream_id, data, length, sent_ts) on the others
 *   -> on_stream_message_error(uid, stream_id, code, missed, cached) when some never come
 *   -> leave_channel (the streams end with the call) -> release
 *
 * "local" creates a reliable, ordered stream and sends five text messages,
 * 200 ms apart; "remote", a second engine in the same process, prints each
 * one from on_stream_message with its sender, stream and how long it took,
 * then answers on a stream of its own. The messages travel on the media
 * path through the server; a reliable stream has what is lost sent again
 * on each hop, so each message arrives once and in order. The example also
 * shows one of the limits (1 KB per message: -114). It checks that remote
 * got the five messages in order, exactly once, and that local got the
 * answer. Audio is off on both engines: this call carries data only.
 *
 *   make hosts && build/examples/create_data_stream
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define APP_ID "0123456789abcdef0123456789abcdef"
#define CHANNEL "create-data-stream"
#define MESSAGES 5
#define INTERVAL_MS 200
#define WAIT_SECONDS 5
#define KEPT 8 /* messages a user remembers */

/* ---- one user's events ---------------------------------------------------------- */

typedef struct {
    const char *name;
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    /* Guarded by mutex. */
    int joined, left;
    uint32_t peer;
    int received, errors;
    char texts[KEPT][64];
    int streams[KEPT];
    uint32_t senders[KEPT];
} user_t;

/* Now on the wall clock, in ms since 1970: what sent_ts is measured in. */
static uint64_t wall_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static void on_join_channel_success(agoraish_engine_t *e, void *ud, const char *channel, uint32_t uid, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->name, "on_join_channel_success \"%s\" uid %u, %d ms", channel, uid, elapsed);
    pthread_mutex_lock(&u->mutex);
    u->joined = 1;
    pthread_cond_broadcast(&u->cond);
    pthread_mutex_unlock(&u->mutex);
}

static void on_user_joined(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->name, "on_user_joined uid %u, %d ms", uid, elapsed);
    pthread_mutex_lock(&u->mutex);
    u->peer = uid;
    pthread_cond_broadcast(&u->cond);
    pthread_mutex_unlock(&u->mutex);
}

static void on_user_offline(agoraish_engine_t *e, void *ud, uint32_t uid, int reason) {
    user_t *u = ud;
    (void)e;
    say(u->name, "on_user_offline uid %u, reason %d", uid, reason);
    pthread_mutex_lock(&u->mutex);
    if (u->peer == uid) u->peer = 0;
    pthread_cond_broadcast(&u->cond);
    pthread_mutex_unlock(&u->mutex);
}

static void on_leave_channel(agoraish_engine_t *e, void *ud, const agoraish_rtc_stats *stats) {
    user_t *u = ud;
    (void)e;
    say(u->name, "on_leave_channel after %u s: sent %llu bytes, received %llu bytes", stats->duration,
        (unsigned long long)stats->tx_bytes, (unsigned long long)stats->rx_bytes);
    pthread_mutex_lock(&u->mutex);
    u->left = 1;
    pthread_cond_broadcast(&u->cond);
    pthread_mutex_unlock(&u->mutex);
}

static void on_error(agoraish_engine_t *e, void *ud, int err, const char *msg) {
    user_t *u = ud;
    (void)e;
    say(u->name, "on_error %d: %s", err, msg);
}

/* A message of another user's stream, on the event thread; `data` is valid during the call only. */
static void on_stream_message(agoraish_engine_t *e, void *ud, uint32_t uid, int stream_id, const uint8_t *data,
                              size_t length, uint64_t sent_ts) {
    user_t *u = ud;
    const int shown = length < 63 ? (int)length : 63;
    (void)e;
    say(u->name, "on_stream_message uid %u, stream %d, %zu bytes, sent %llu ms ago: \"%.*s\"", uid, stream_id, length,
        (unsigned long long)(wall_ms() - sent_ts), shown, (const char *)data);
    pthread_mutex_lock(&u->mutex);
    if (u->received < KEPT) {
        memcpy(u->texts[u->received], data, (size_t)shown);
        u->texts[u->received][shown] = '\0';
        u->streams[u->received] = stream_id;
        u->senders[u->received] = uid;
    }
    u->received++;
    pthread_cond_broadcast(&u->cond);
    pthread_mutex_unlock(&u->mutex);
}

/* Messages of another user's stream that will not come (a reliable stream: not repaired within 5 s). */
static void on_stream_message_error(agoraish_engine_t *e, void *ud, uint32_t uid, int stream_id, int code, int missed,
                                    int cached) {
    user_t *u = ud;
    (void)e;
    say(u->name, "on_stream_message_error uid %u, stream %d: code %d, %d missed, %d cached", uid, stream_id, code,
        missed, cached);
    pthread_mutex_lock(&u->mutex);
    u->errors++;
    pthread_mutex_unlock(&u->mutex);
}

static agoraish_engine_t *create_user(user_t *u, const char *name, const char *server_url) {
    pthread_condattr_t attr;
    agoraish_event_handler handler;
    agoraish_engine_config config;
    agoraish_engine_t *engine;

    memset(u, 0, sizeof *u);
    u->name = name;
    pthread_mutex_init(&u->mutex, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&u->cond, &attr);
    pthread_condattr_destroy(&attr);

    memset(&handler, 0, sizeof handler);
    handler.struct_size = sizeof handler;
    handler.user_data = u;
    handler.on_join_channel_success = on_join_channel_success;
    handler.on_user_joined = on_user_joined;
    handler.on_user_offline = on_user_offline;
    handler.on_leave_channel = on_leave_channel;
    handler.on_error = on_error;
    handler.on_stream_message = on_stream_message;
    handler.on_stream_message_error = on_stream_message_error;

    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.app_id = APP_ID;
    config.event_handler = &handler;
    config.server_url = server_url;
    engine = agoraish_engine_create(&config);
    if (!engine) {
        int rc = agoraish_get_last_error();
        fprintf(stderr, "cannot create %s's engine: %d (%s)\n", name, rc, agoraish_get_error_description(rc));
    }
    return engine;
}

static void destroy_user(user_t *u) {
    pthread_cond_destroy(&u->cond);
    pthread_mutex_destroy(&u->mutex);
}

static int is_joined(const user_t *u) { return u->joined; }
static int has_left(const user_t *u) { return u->left; }
static int sees_peer(const user_t *u) { return u->peer != 0; }
static int sees_nobody(const user_t *u) { return u->peer == 0; }
static int has_all(const user_t *u) { return u->received >= MESSAGES; }
static int has_one(const user_t *u) { return u->received >= 1; }

static int wait_until(user_t *u, int (*done)(const user_t *), const char *what) {
    struct timespec deadline;
    int ok;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += WAIT_SECONDS;
    pthread_mutex_lock(&u->mutex);
    while (!(ok = done(u))) {
        if (pthread_cond_timedwait(&u->cond, &u->mutex, &deadline) == ETIMEDOUT) break;
    }
    pthread_mutex_unlock(&u->mutex);
    if (!ok) say(u->name, "no %s within %d s", what, WAIT_SECONDS);
    return ok;
}

int main(void) {
    agoraish_server_config server_config;
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    user_t local, remote;
    struct timespec start;
    char url[128], text[64], big[AGORAISH_MAX_STREAM_MESSAGE_SIZE + 1];
    size_t len = sizeof url;
    int ok = 0, rc, stream = 0, answer_stream = 0, refused = 0, in_order = 1;
    uint32_t local_uid = 0, remote_uid = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);

    memset(&server_config, 0, sizeof server_config);
    server_config.struct_size = sizeof server_config;
    server = agoraish_server_create(&server_config);
    if (!server || (rc = agoraish_server_start(server)) != 0 || (rc = agoraish_server_get_url(server, url, &len)) != 0) {
        rc = server ? rc : agoraish_get_last_error();
        fprintf(stderr, "cannot start the channel server: %d (%s)\n", rc, agoraish_get_error_description(rc));
        goto done;
    }
    say("server", "%s", url);
    local_engine = create_user(&local, "local", url);
    remote_engine = create_user(&remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;

    /* Data only: no microphone, no speaker. */
    agoraish_engine_disable_audio(local_engine);
    agoraish_engine_disable_audio(remote_engine);

    if ((rc = agoraish_engine_join_channel(local_engine, NULL, CHANNEL, NULL, 0)) != 0 ||
        !wait_until(&local, is_joined, "join") ||
        (rc = agoraish_engine_join_channel(remote_engine, NULL, CHANNEL, NULL, 0)) != 0 ||
        !wait_until(&remote, is_joined, "join") || !wait_until(&local, sees_peer, "remote user") ||
        !wait_until(&remote, sees_peer, "remote user")) {
        fprintf(stderr, "the users did not get together: %d (%s)\n", rc, agoraish_get_error_description(rc));
        goto done;
    }
    pthread_mutex_lock(&remote.mutex);
    local_uid = remote.peer;
    pthread_mutex_unlock(&remote.mutex);
    pthread_mutex_lock(&local.mutex);
    remote_uid = local.peer;
    pthread_mutex_unlock(&local.mutex);

    /* local's stream: reliable and ordered (Agora's createDataStream(&id, true, true)). */
    rc = agoraish_engine_create_data_stream(local_engine, &stream, 1, 1);
    say("local", "create_data_stream(reliable, ordered) = %d: stream %d", rc, stream);
    if (rc != 0) goto done;

    /* A message may hold 1 KB at most. */
    memset(big, '.', sizeof big);
    rc = agoraish_engine_send_stream_message(local_engine, stream, big, sizeof big);
    say("local", "send_stream_message(%zu bytes) = %d (%s)", sizeof big, rc, agoraish_get_error_description(rc));
    refused = rc == -AGORAISH_ERR_SIZE_TOO_LARGE;

    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int i = 0; i < MESSAGES; i++) {
        snprintf(text, sizeof text, "message %d of %d from local", i + 1, MESSAGES);
        rc = agoraish_engine_send_stream_message(local_engine, stream, text, strlen(text));
        say("local", "send_stream_message(%d, \"%s\") = %d", stream, text, rc);
        if (rc != 0) goto done;
        sleep_until(&start, (long)(i + 1) * INTERVAL_MS);
    }
    if (!wait_until(&remote, has_all, "messages")) goto done;

    /* remote answers on a stream of its own. */
    rc = agoraish_engine_create_data_stream(remote_engine, &answer_stream, 1, 1);
    say("remote", "create_data_stream(reliable, ordered) = %d: stream %d", rc, answer_stream);
    if (rc != 0) goto done;
    snprintf(text, sizeof text, "got your %d messages", MESSAGES);
    rc = agoraish_engine_send_stream_message(remote_engine, answer_stream, text, strlen(text));
    say("remote", "send_stream_message(%d, \"%s\") = %d", answer_stream, text, rc);
    if (rc != 0 || !wait_until(&local, has_one, "answer")) goto done;

    agoraish_engine_leave_channel(remote_engine);
    if (!wait_until(&remote, has_left, "leave") || !wait_until(&local, sees_nobody, "user offline")) goto done;
    agoraish_engine_leave_channel(local_engine);
    if (!wait_until(&local, has_left, "leave")) goto done;

    /* The streams ended with the call. */
    rc = agoraish_engine_send_stream_message(local_engine, stream, "late", 4);
    say("local", "after leaving: send_stream_message = %d (%s)", rc, agoraish_get_error_description(rc));

    /* Each message once, in order, from local on its stream; and the answer. */
    pthread_mutex_lock(&remote.mutex);
    for (int i = 0; i < MESSAGES; i++) {
        snprintf(text, sizeof text, "message %d of %d from local", i + 1, MESSAGES);
        in_order = in_order && strcmp(remote.texts[i], text) == 0 && remote.streams[i] == stream &&
                   remote.senders[i] == local_uid;
    }
    say("remote", "received %d messages, %s, %d errors", remote.received, in_order ? "in order" : "NOT as sent",
        remote.errors);
    ok = in_order && remote.received == MESSAGES && remote.errors == 0;
    pthread_mutex_unlock(&remote.mutex);
    pthread_mutex_lock(&local.mutex);
    snprintf(text, sizeof text, "got your %d messages", MESSAGES);
    ok = ok && local.received == 1 && strcmp(local.texts[0], text) == 0 && local.senders[0] == remote_uid &&
         local.streams[0] == answer_stream && local.errors == 0;
    pthread_mutex_unlock(&local.mutex);
    ok = ok && refused;

done:
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    destroy_user(&local);
    destroy_user(&remote);
    printf("%s\n", ok ? "done: remote got local's messages once and in order, and local got the answer"
                      : "the call did not go as expected");
    return ok ? 0 : 1;
}
