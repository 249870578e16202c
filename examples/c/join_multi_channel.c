/*
 * join_multi_channel.c — Agora 4.x's JoinMultipleChannel case in C: one
 * engine in two channels at once, each a connection with its own events.
 *
 *   join_channel_with_options("first")               -> its events: the engine's handler
 *   join_channel_ex({"second", uid}, options, handler_ex, user_data)
 *                                                    -> its events: the ex handler, with the connection
 *   get_connection_state_ex -> leave_channel_ex("second") -> leave_channel -> release
 *
 * "local" joins "first" as uid 1 with its own handler and "second" as uid 2
 * with an agoraish_event_handler_ex; "alice" waits in "first" and "bob" in
 * "second". Each of them sees only the connection in its own channel; local's
 * handler sees alice, its ex handler sees bob. Leaving "second" leaves "first"
 * as it was.
 *
 *   make hosts && build/examples/join_multi_channel
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "agoraish.h"
#include "example_support.h"

#define FIRST "first"
#define SECOND "second"

/* ---- the second connection's events (agoraish_event_handler_ex) ------------- */

/* What the ex handler heard; user_data of join_channel_ex. The example_user
 * is only for its lock, condition and waits (joined, left, peer). */
typedef struct {
    example_user base;
    /* Guarded by base.mutex. */
    int wrong_connection; /* events that named another connection */
} connection_t;

static void check_connection(connection_t *c, const agoraish_rtc_connection *connection) {
    if (strcmp(connection->channel_id, SECOND) != 0 || connection->local_uid != 2) c->wrong_connection++;
}

static void ex_on_join_channel_success(agoraish_engine_t *e, void *ud, const agoraish_rtc_connection *connection,
                                       uint32_t uid, int elapsed) {
    connection_t *c = ud;
    (void)e;
    say(c->base.name, "on_join_channel_success {\"%s\", %u}: uid %u, %d ms", connection->channel_id,
        connection->local_uid, uid, elapsed);
    example_lock(&c->base);
    check_connection(c, connection);
    c->base.joined = 1;
    c->base.uid = uid;
    example_changed(&c->base);
}

static void ex_on_user_joined(agoraish_engine_t *e, void *ud, const agoraish_rtc_connection *connection, uint32_t uid,
                              int elapsed) {
    connection_t *c = ud;
    (void)e;
    say(c->base.name, "on_user_joined {\"%s\", %u}: uid %u, %d ms", connection->channel_id, connection->local_uid, uid,
        elapsed);
    example_lock(&c->base);
    check_connection(c, connection);
    c->base.peer = uid;
    example_changed(&c->base);
}

static void ex_on_user_offline(agoraish_engine_t *e, void *ud, const agoraish_rtc_connection *connection, uint32_t uid,
                               int reason) {
    connection_t *c = ud;
    (void)e;
    say(c->base.name, "on_user_offline {\"%s\", %u}: uid %u, reason %d", connection->channel_id,
        connection->local_uid, uid, reason);
    example_lock(&c->base);
    check_connection(c, connection);
    if (c->base.peer == uid) c->base.peer = 0;
    example_changed(&c->base);
}

static void ex_on_leave_channel(agoraish_engine_t *e, void *ud, const agoraish_rtc_connection *connection,
                                const agoraish_rtc_stats *stats) {
    connection_t *c = ud;
    (void)e;
    say(c->base.name, "on_leave_channel {\"%s\", %u} after %u s", connection->channel_id, connection->local_uid,
        stats->duration);
    example_lock(&c->base);
    check_connection(c, connection);
    c->base.left = 1;
    example_changed(&c->base);
}

static void ex_on_connection_state_changed(agoraish_engine_t *e, void *ud, const agoraish_rtc_connection *connection,
                                           int state, int reason) {
    connection_t *c = ud;
    (void)e;
    say(c->base.name, "on_connection_state_changed {\"%s\", %u}: state %d, reason %d", connection->channel_id,
        connection->local_uid, state, reason);
    example_lock(&c->base);
    check_connection(c, connection);
    example_unlock(&c->base);
}

/* ---- the users' own events ------------------------------------------------------ */

static agoraish_engine_t *create_user(example_user *u, const char *name, const char *server_url) {
    agoraish_event_handler handler;
    memset(u, 0, sizeof *u);
    example_user_init(u, name);
    example_handler(&handler, u);
    return example_create_engine(u, &handler, server_url);
}

/* Joins `channel` as `uid` and waits until the user is in. */
static int join(agoraish_engine_t *engine, example_user *u, const char *channel, uint32_t uid) {
    int rc = agoraish_engine_join_channel(engine, NULL, channel, NULL, uid);
    return rc == 0 && example_wait(u, example_is_joined, "join");
}

int main(void) {
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *alice_engine = NULL, *bob_engine = NULL;
    example_user local, alice, bob;
    connection_t second;
    agoraish_channel_media_options options;
    agoraish_event_handler_ex handler_ex;
    agoraish_rtc_connection connection;
    char url[128];
    int ok = 0, rc;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&alice, 0, sizeof alice);
    memset(&bob, 0, sizeof bob);
    memset(&second, 0, sizeof second);
    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(&local, "local", url);
    alice_engine = create_user(&alice, "alice", url);
    bob_engine = create_user(&bob, "bob", url);
    if (!local_engine || !alice_engine || !bob_engine) goto done;
    /* Nobody here talks: every device is ALSA's "null". */
    agoraish_engine_set_recording_device(local_engine, "null");
    agoraish_engine_set_playback_device(local_engine, "null");
    agoraish_engine_enable_local_audio(alice_engine, 0);
    agoraish_engine_enable_local_audio(bob_engine, 0);
    agoraish_engine_set_playback_device(alice_engine, "null");
    agoraish_engine_set_playback_device(bob_engine, "null");

    if (!join(alice_engine, &alice, FIRST, 11) || !join(bob_engine, &bob, SECOND, 21)) goto done;

    /* The engine's own connection: "first" as uid 1, with media options. */
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.has_auto_subscribe_audio = 1;
    options.auto_subscribe_audio = 1;
    rc = agoraish_engine_join_channel_with_options(local_engine, NULL, FIRST, 1, &options);
    say("local", "join_channel_with_options(\"%s\", 1) = %d", FIRST, rc);
    if (rc != 0 || !example_wait(&local, example_is_joined, "join")) goto done;

    /* A second connection: "second" as uid 2, with an ex handler of its own. */
    example_user_init(&second.base, "local2");
    memset(&handler_ex, 0, sizeof handler_ex);
    handler_ex.struct_size = sizeof handler_ex;
    handler_ex.on_join_channel_success = ex_on_join_channel_success;
    handler_ex.on_user_joined = ex_on_user_joined;
    handler_ex.on_user_offline = ex_on_user_offline;
    handler_ex.on_leave_channel = ex_on_leave_channel;
    handler_ex.on_connection_state_changed = ex_on_connection_state_changed;
    memset(&connection, 0, sizeof connection);
    connection.struct_size = sizeof connection;
    connection.channel_id = SECOND;
    connection.local_uid = 2;
    rc = agoraish_engine_join_channel_ex(local_engine, NULL, &connection, &options, &handler_ex, &second);
    say("local", "join_channel_ex({\"%s\", 2}) = %d", SECOND, rc);
    if (rc != 0 || !example_wait(&second.base, example_is_joined, "join of the second connection")) goto done;
    rc = agoraish_engine_join_channel_ex(local_engine, NULL, &connection, &options, &handler_ex, &second);
    say("local", "join_channel_ex({\"%s\", 2}) again = %d (already joined)", SECOND, rc);

    /* Each side sees the connection in its own channel. */
    if (!example_wait(&local, example_sees_peer, "alice") || !example_wait(&second.base, example_sees_peer, "bob") ||
        !example_wait(&alice, example_sees_peer, "local") || !example_wait(&bob, example_sees_peer, "local")) {
        goto done;
    }
    say("local", "first sees uid %u, second sees uid %u; alice sees %u, bob sees %u", example_peer(&local),
        example_peer(&second.base), example_peer(&alice), example_peer(&bob));
    say("local", "connection states: first %d, second %d (3: CONNECTED)",
        agoraish_engine_get_connection_state(local_engine),
        agoraish_engine_get_connection_state_ex(local_engine, &connection));
    ok = example_peer(&local) == 11 && example_peer(&second.base) == 21 && example_peer(&alice) == 1 &&
         example_peer(&bob) == 2;

    /* Leaving the second channel: bob sees local go; alice and the first connection stay. */
    rc = agoraish_engine_leave_channel_ex(local_engine, &connection);
    say("local", "leave_channel_ex({\"%s\", 2}) = %d", SECOND, rc);
    ok = ok && rc == 0 && example_wait(&second.base, example_has_left, "leave of the second connection") &&
         example_wait(&bob, example_sees_nobody, "local leaving");
    rc = agoraish_engine_leave_channel_ex(local_engine, &connection);
    say("local", "leave_channel_ex({\"%s\", 2}) again = %d (no such connection)", SECOND, rc);
    ok = ok && rc == -AGORAISH_ERR_LEAVE_CHANNEL_REJECTED && example_peer(&alice) == 1 && example_peer(&local) == 11 &&
         agoraish_engine_get_connection_state(local_engine) == AGORAISH_CONNECTION_STATE_CONNECTED;
    say("local", "still in \"%s\" with alice: %s", FIRST, ok ? "yes" : "no");

    ok = ok && example_part(alice_engine, &alice, local_engine, &local);
    example_lock(&second.base);
    ok = ok && second.wrong_connection == 0;
    example_unlock(&second.base);

done:
    /* Releasing waits for running callbacks: the handlers' state outlives them. */
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (alice_engine) agoraish_engine_release(alice_engine, 1);
    if (bob_engine) agoraish_engine_release(bob_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local);
    example_user_destroy(&alice);
    example_user_destroy(&bob);
    example_user_destroy(&second.base);
    return example_finish(ok, "done: local was in both channels at once and left each on its own");
}
