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

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "create-data-stream"
#define MESSAGES 5
#define INTERVAL_MS 200
#define KEPT 8 /* messages a user remembers */

/* ---- one user's events ---------------------------------------------------------- */

typedef struct {
    example_user base; /* first, so the handler's user_data is both */
    /* Guarded by base.mutex. */
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

/* A message of another user's stream, on the event thread; `data` is valid during the call only. */
static void on_stream_message(agoraish_engine_t *e, void *ud, uint32_t uid, int stream_id, const uint8_t *data,
                              size_t length, uint64_t sent_ts) {
    user_t *u = ud;
    const int shown = length < 63 ? (int)length : 63;
    (void)e;
    say(u->base.name, "on_stream_message uid %u, stream %d, %zu bytes, sent %llu ms ago: \"%.*s\"", uid, stream_id,
        length, (unsigned long long)(wall_ms() - sent_ts), shown, (const char *)data);
    example_lock(&u->base);
    if (u->received < KEPT) {
        memcpy(u->texts[u->received], data, (size_t)shown);
        u->texts[u->received][shown] = '\0';
        u->streams[u->received] = stream_id;
        u->senders[u->received] = uid;
    }
    u->received++;
    example_changed(&u->base);
}

/* Messages of another user's stream that will not come (a reliable stream: not repaired within 5 s). */
static void on_stream_message_error(agoraish_engine_t *e, void *ud, uint32_t uid, int stream_id, int code, int missed,
                                    int cached) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_stream_message_error uid %u, stream %d: code %d, %d missed, %d cached", uid, stream_id, code,
        missed, cached);
    example_lock(&u->base);
    u->errors++;
    example_unlock(&u->base);
}

static agoraish_engine_t *create_user(user_t *u, const char *name, const char *server_url) {
    agoraish_event_handler handler;

    memset(u, 0, sizeof *u);
    example_user_init(&u->base, name);
    example_handler(&handler, &u->base);
    handler.on_stream_message = on_stream_message;
    handler.on_stream_message_error = on_stream_message_error;
    return example_create_engine(&u->base, &handler, server_url);
}

static int has_all(const example_user *b) { return ((const user_t *)b)->received >= MESSAGES; }
static int has_one(const example_user *b) { return ((const user_t *)b)->received >= 1; }

int main(void) {
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    user_t local, remote;
    struct timespec start;
    char url[128], text[64], big[AGORAISH_MAX_STREAM_MESSAGE_SIZE + 1];
    int ok = 0, rc, stream = 0, answer_stream = 0, refused = 0, in_order = 1;
    uint32_t local_uid = 0, remote_uid = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);

    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(&local, "local", url);
    remote_engine = create_user(&remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;

    /* Data only: no microphone, no speaker. */
    agoraish_engine_disable_audio(local_engine);
    agoraish_engine_disable_audio(remote_engine);

    if (example_meet(CHANNEL, local_engine, &local.base, 0, remote_engine, &remote.base, 0) != 0) goto done;
    local_uid = example_peer(&remote.base);
    remote_uid = example_peer(&local.base);

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
    if (!example_wait(&remote.base, has_all, "messages")) goto done;

    /* remote answers on a stream of its own. */
    rc = agoraish_engine_create_data_stream(remote_engine, &answer_stream, 1, 1);
    say("remote", "create_data_stream(reliable, ordered) = %d: stream %d", rc, answer_stream);
    if (rc != 0) goto done;
    snprintf(text, sizeof text, "got your %d messages", MESSAGES);
    rc = agoraish_engine_send_stream_message(remote_engine, answer_stream, text, strlen(text));
    say("remote", "send_stream_message(%d, \"%s\") = %d", answer_stream, text, rc);
    if (rc != 0 || !example_wait(&local.base, has_one, "answer")) goto done;

    if (!example_part(local_engine, &local.base, remote_engine, &remote.base)) goto done;

    /* The streams ended with the call. */
    rc = agoraish_engine_send_stream_message(local_engine, stream, "late", 4);
    say("local", "after leaving: send_stream_message = %d (%s)", rc, agoraish_get_error_description(rc));

    /* Each message once, in order, from local on its stream; and the answer. */
    example_lock(&remote.base);
    for (int i = 0; i < MESSAGES; i++) {
        snprintf(text, sizeof text, "message %d of %d from local", i + 1, MESSAGES);
        in_order = in_order && strcmp(remote.texts[i], text) == 0 && remote.streams[i] == stream &&
                   remote.senders[i] == local_uid;
    }
    say("remote", "received %d messages, %s, %d errors", remote.received, in_order ? "in order" : "NOT as sent",
        remote.errors);
    ok = in_order && remote.received == MESSAGES && remote.errors == 0;
    example_unlock(&remote.base);
    example_lock(&local.base);
    snprintf(text, sizeof text, "got your %d messages", MESSAGES);
    ok = ok && local.received == 1 && strcmp(local.texts[0], text) == 0 && local.senders[0] == remote_uid &&
         local.streams[0] == answer_stream && local.errors == 0;
    example_unlock(&local.base);
    ok = ok && refused;

done:
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local.base);
    example_user_destroy(&remote.base);
    return example_finish(ok, "done: remote got local's messages once and in order, and local got the answer");
}
