/*
 * channel_call.c — calls between engines as a C host sees them, through
 * include/agoraish.h only: an embedded channel server and engines in one
 * process.
 *
 *   - call:     two engines join one channel and see each other
 *               (on_user_joined both ways); the call id and the connection
 *               state follow; one leaves: on_leave_channel with the call's
 *               statistics, on_connection_state_changed CONNECTING/0 ->
 *               CONNECTED/1 -> DISCONNECTED/5, and the other sees
 *               on_user_offline with reason QUIT;
 *   - accounts: register_local_user_account, join with user accounts, each
 *               side learns the other's account (on_user_info_updated before
 *               on_user_joined) and looks it up by uid and by account;
 *   - roles:    live broadcasting: the audience is invisible; becoming
 *               broadcaster shows the user (on_user_joined), going back to
 *               audience hides it (on_user_offline BECOME_AUDIENCE); an
 *               audience switches channel;
 *   - release:  releasing a joined engine leaves first: the other side sees
 *               on_user_offline with reason QUIT at once, not DROPPED after the
 *               server's drop timeout;
 *   - ABI 0.1:  engines whose event handler has the 0.1 size (struct_size =
 *               AGORAISH_EVENT_HANDLER_SIZE_0_1) join (others see them) and
 *               leave; the library reads nothing past that size (one table is
 *               allocated with exactly that size, for valgrind; another has
 *               trap callbacks past it) and still delivers on_api_call_executed.
 *
 * Waits use a condition variable with a deadline, never sleep-polling.
 * Exit status 0 when every check passes; otherwise one line per failed check
 * on stderr and exit status 1. It runs clean under
 * `valgrind --leak-check=full --errors-for-leak-kinds=definite`.
 */
#define _POSIX_C_SOURCE 200809L

#include <stddef.h>

#define TEST_NAME "channel_call"
#include "test_support.h"

/* A host built against ABI 0.1 passes exactly the 0.1 part of the table. */
_Static_assert(AGORAISH_EVENT_HANDLER_SIZE_0_1 == offsetof(agoraish_event_handler, on_join_channel_success),
               "AGORAISH_EVENT_HANDLER_SIZE_0_1 must end where the 0.2 callbacks begin");

/** How long one wait for an event may take: generous for valgrind, and below
 *  the server's 20 s drop timeout (so a QUIT cannot pass for a drop). */
#define WAIT_SECONDS 15

/* ------------------------------------------------------------------------ */
/* Event recorder: one per engine, passed as user_data                       */
/* ------------------------------------------------------------------------ */

typedef enum {
    EV_API_CALL,
    EV_JOIN,
    EV_REJOIN,
    EV_LEAVE,
    EV_USER_JOINED,
    EV_USER_OFFLINE,
    EV_ROLE,
    EV_STATE,
    EV_LOST,
    EV_WILL_EXPIRE,
    EV_REQUEST_TOKEN,
    EV_REGISTERED,
    EV_USER_INFO,
    EV_ERROR,
    EV_KINDS
} kind_t;

static const char *const kind_names[EV_KINDS] = {
    "api_call_executed", "join_channel_success", "rejoin_channel_success", "leave_channel",
    "user_joined", "user_offline", "client_role_changed", "connection_state_changed",
    "connection_lost", "token_privilege_will_expire", "request_token", "local_user_registered",
    "user_info_updated", "error",
};

/** Matches any value in wait_event(). */
#define ANY (-0x7fffffff)

typedef struct {
    kind_t kind;
    int64_t uid;  /* the uid argument, or -1 */
    int a, b;     /* elapsed / reason / old,new role / state,reason / err */
    char text[AGORAISH_MAX_USER_ACCOUNT_LENGTH + 8];
    agoraish_rtc_stats stats;
    double at_ms; /* when it arrived (CLOCK_MONOTONIC) */
} event_t;

#define MAX_EVENTS 96

typedef struct {
    const char *name;
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    /* Guarded by mutex. */
    agoraish_engine_t *engine; /* set right after create */
    int count;
    event_t events[MAX_EVENTS];
    int wrong_engine; /* events that carried another engine's handle */
    int on_main;      /* events delivered on the main thread */
} recorder_t;

static pthread_t main_thread;

static void recorder_init(recorder_t *r, const char *name) {
    memset(r, 0, sizeof *r);
    r->name = name;
    monitor_init(&r->mutex, &r->cond);
}

static void recorder_destroy(recorder_t *r) { monitor_destroy(&r->mutex, &r->cond); }

/** Records one event; `text` may be NULL. */
static void record(agoraish_engine_t *engine, void *user_data, kind_t kind, int64_t uid, int a, int b,
                   const char *text, const agoraish_rtc_stats *stats) {
    recorder_t *r = user_data;
    pthread_mutex_lock(&r->mutex);
    if (engine != r->engine) r->wrong_engine++;
    if (pthread_equal(pthread_self(), main_thread)) r->on_main++;
    if (r->count < MAX_EVENTS) {
        event_t *e = &r->events[r->count];
        memset(e, 0, sizeof *e);
        e->kind = kind;
        e->uid = uid;
        e->a = a;
        e->b = b;
        if (text) snprintf(e->text, sizeof e->text, "%s", text);
        if (stats) {
            /* Copy what the library filled, no more than this header knows. */
            size_t n = stats->struct_size < sizeof e->stats ? stats->struct_size : sizeof e->stats;
            memcpy(&e->stats, stats, n);
        }
        e->at_ms = now_ms();
    }
    r->count++;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->mutex);
}

static void on_api_call_executed(agoraish_engine_t *e, void *ud, int err, const char *api, const char *result) {
    (void)result;
    record(e, ud, EV_API_CALL, -1, err, 0, api, NULL);
}
static void on_join_channel_success(agoraish_engine_t *e, void *ud, const char *channel, uint32_t uid, int elapsed) {
    record(e, ud, EV_JOIN, uid, elapsed, 0, channel, NULL);
}
static void on_rejoin_channel_success(agoraish_engine_t *e, void *ud, const char *channel, uint32_t uid, int elapsed) {
    record(e, ud, EV_REJOIN, uid, elapsed, 0, channel, NULL);
}
static void on_leave_channel(agoraish_engine_t *e, void *ud, const agoraish_rtc_stats *stats) {
    record(e, ud, EV_LEAVE, -1, 0, 0, NULL, stats);
}
static void on_user_joined(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    record(e, ud, EV_USER_JOINED, uid, elapsed, 0, NULL, NULL);
}
static void on_user_offline(agoraish_engine_t *e, void *ud, uint32_t uid, int reason) {
    record(e, ud, EV_USER_OFFLINE, uid, reason, 0, NULL, NULL);
}
static void on_client_role_changed(agoraish_engine_t *e, void *ud, int old_role, int new_role) {
    record(e, ud, EV_ROLE, -1, old_role, new_role, NULL, NULL);
}
static void on_connection_state_changed(agoraish_engine_t *e, void *ud, int state, int reason) {
    record(e, ud, EV_STATE, -1, state, reason, NULL, NULL);
}
static void on_connection_lost(agoraish_engine_t *e, void *ud) { record(e, ud, EV_LOST, -1, 0, 0, NULL, NULL); }
static void on_token_privilege_will_expire(agoraish_engine_t *e, void *ud, const char *token) {
    record(e, ud, EV_WILL_EXPIRE, -1, 0, 0, token, NULL);
}
static void on_request_token(agoraish_engine_t *e, void *ud) { record(e, ud, EV_REQUEST_TOKEN, -1, 0, 0, NULL, NULL); }
static void on_local_user_registered(agoraish_engine_t *e, void *ud, uint32_t uid, const char *account) {
    record(e, ud, EV_REGISTERED, uid, 0, 0, account, NULL);
}
static void on_user_info_updated(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_user_info *info) {
    /* b: whether the info carries the same uid as the argument. */
    record(e, ud, EV_USER_INFO, uid, 0, info != NULL && info->uid == uid, info ? info->user_account : NULL, NULL);
}
static void on_error(agoraish_engine_t *e, void *ud, int err, const char *msg) {
    record(e, ud, EV_ERROR, -1, err, 0, msg, NULL);
}

/** A full event handler table that records into `r`. */
static agoraish_event_handler full_handler(recorder_t *r) {
    agoraish_event_handler h = empty_handler(r);
    h.on_api_call_executed = on_api_call_executed;
    h.on_join_channel_success = on_join_channel_success;
    h.on_rejoin_channel_success = on_rejoin_channel_success;
    h.on_leave_channel = on_leave_channel;
    h.on_user_joined = on_user_joined;
    h.on_user_offline = on_user_offline;
    h.on_client_role_changed = on_client_role_changed;
    h.on_connection_state_changed = on_connection_state_changed;
    h.on_connection_lost = on_connection_lost;
    h.on_token_privilege_will_expire = on_token_privilege_will_expire;
    h.on_request_token = on_request_token;
    h.on_local_user_registered = on_local_user_registered;
    h.on_user_info_updated = on_user_info_updated;
    h.on_error = on_error;
    return h;
}

static int matches(const event_t *e, kind_t kind, int64_t uid, int a, int b) {
    return e->kind == kind && (uid == ANY || e->uid == uid) && (a == ANY || e->a == a) && (b == ANY || e->b == b);
}

/**
 * Waits until `r` has recorded an event of `kind` at index >= `from` whose
 * uid, a and b match (ANY matches anything). Returns its index, or -1 after
 * WAIT_SECONDS. The event itself is copied to `out` when not NULL.
 */
static int wait_event(recorder_t *r, int from, kind_t kind, int64_t uid, int a, int b, event_t *out) {
    struct timespec deadline = deadline_in(WAIT_SECONDS);
    int i = from, found = -1;
    pthread_mutex_lock(&r->mutex);
    for (;;) {
        for (; i < r->count && i < MAX_EVENTS; i++) {
            if (matches(&r->events[i], kind, uid, a, b)) {
                found = i;
                if (out) *out = r->events[i];
                break;
            }
        }
        if (found >= 0) break;
        if (pthread_cond_timedwait(&r->cond, &r->mutex, &deadline) == ETIMEDOUT) break;
    }
    pthread_mutex_unlock(&r->mutex);
    return found;
}

/** Like wait_event, and a failed check naming `what` when it times out. */
#define EXPECT_EVENT(r, from, kind, uid, a, b, out, what)                                                    \
    expect_event_((r), (from), (kind), (uid), (a), (b), (out), (what), __LINE__)

static int expect_event_(recorder_t *r, int from, kind_t kind, int64_t uid, int a, int b, event_t *out,
                         const char *what, int line) {
    int i = wait_event(r, from, kind, uid, a, b, out);
    check_(i >= 0, line, "%s: engine %s got no %s (uid %lld, a %d, b %d) within %d s", what, r->name,
           kind_names[kind], (long long)uid, a, b, WAIT_SECONDS);
    return i;
}

/** How many events of `r` at index >= from match. */
static int count_events(recorder_t *r, int from, kind_t kind, int64_t uid, int a, int b) {
    int i, n = 0;
    pthread_mutex_lock(&r->mutex);
    for (i = from; i < r->count && i < MAX_EVENTS; i++) n += matches(&r->events[i], kind, uid, a, b);
    pthread_mutex_unlock(&r->mutex);
    return n;
}

static int recorder_count(recorder_t *r) { return read_count(&r->mutex, &r->count); }

/** Checks that every event of `r` carried its engine, off the main thread, and fit the record. */
static void check_delivery(recorder_t *r) {
    pthread_mutex_lock(&r->mutex);
    CHECK(r->wrong_engine == 0, "engine %s: %d events carried another engine's handle", r->name, r->wrong_engine);
    CHECK(r->on_main == 0, "engine %s: %d events arrived on the caller's thread", r->name, r->on_main);
    CHECK(r->count <= MAX_EVENTS, "engine %s: %d events, more than the %d recorded", r->name, r->count, MAX_EVENTS);
    pthread_mutex_unlock(&r->mutex);
}

/* ------------------------------------------------------------------------ */
/* Fixture: a temporary directory and one embedded server                    */
/* ------------------------------------------------------------------------ */

static const char *const app_id = "0123456789abcdef0123456789abcdef";
static char server_url[128];
static agoraish_server_t *server;

static agoraish_engine_t *create_engine(recorder_t *r, const agoraish_event_handler *handler, const char *log_name) {
    agoraish_engine_t *engine = new_engine(app_id, handler, server_url, log_name);
    CHECK(engine != NULL, "create engine %s: last error %d (%s)", r->name, agoraish_get_last_error(),
          agoraish_get_error_description(agoraish_get_last_error()));
    pthread_mutex_lock(&r->mutex);
    r->engine = engine;
    pthread_mutex_unlock(&r->mutex);
    return engine;
}

/** A fresh recorder `r` named `name`, and an engine with the full handler recording into it. */
static agoraish_engine_t *create_recorded(recorder_t *r, const char *name, const char *log_name) {
    agoraish_event_handler handler = full_handler(r);
    recorder_init(r, name);
    return create_engine(r, &handler, log_name); /* the table is copied */
}

/** The end of a story for one engine: releases it (unless NULL: already
 *  released, or never created), checks its recorder's deliveries, destroys it. */
#define END_STORY(r, engine) end_story_((r), (engine), __LINE__)

static void end_story_(recorder_t *r, agoraish_engine_t *engine, int line) {
    if (engine) {
        int rc = agoraish_engine_release(engine, 1);
        check_(rc == 0, line, "release %s: returned %d, expected 0", r->name, rc);
    }
    check_delivery(r);
    recorder_destroy(r);
}

static int start_server(void) {
    size_t len;
    int port;
    /* HTTP on a free port. Every engine joins from 127.0.0.1: lift the per-address join rate. */
    server = create_server(-1, "{\"limits\": {\"joins_per_second_per_address\": 1000}}");
    CHECK(server != NULL, "server_create: last error %d", agoraish_get_last_error());
    if (!server) return 0;
    CHECK_RC(agoraish_server_start(server), 0, "server_start");
    len = 0;
    CHECK_RC(agoraish_server_get_url(server, NULL, &len), -AGORAISH_ERR_BUFFER_TOO_SMALL, "server_get_url size query");
    CHECK(len > strlen("ws://127.0.0.1:") && len <= sizeof server_url, "server_get_url needs %zu bytes", len);
    len = sizeof server_url;
    CHECK_RC(agoraish_server_get_url(server, server_url, &len), 0, "server_get_url");
    CHECK(strncmp(server_url, "ws://127.0.0.1:", 15) == 0 && atoi(server_url + 15) > 0,
          "server URL \"%s\" is not ws://127.0.0.1:<port>", server_url);
    CHECK(len == strlen(server_url) + 1, "server_get_url *len %zu for \"%s\"", len, server_url);
    port = agoraish_server_get_http_port(server);
    CHECK(port > 0 && port <= 65535, "server_get_http_port with http_port -1: %d", port);
    return server_url[0] != '\0';
}

/** The call id of `engine` (rc returned; "" on failure). */
static int call_id(agoraish_engine_t *engine, char *out, size_t size) {
    size_t len = size;
    out[0] = '\0';
    return agoraish_engine_get_call_id(engine, out, &len);
}

/**
 * A round trip to the server over `engine`'s link: a registration whose
 * answer arrives after everything the server sent this engine before it.
 */
static void sync_with_server(recorder_t *r, const char *account) {
    int from = recorder_count(r);
    CHECK_RC(agoraish_engine_register_local_user_account(r->engine, app_id, account), 0,
             "register_local_user_account (round trip)");
    EXPECT_EVENT(r, from, EV_REGISTERED, ANY, ANY, ANY, NULL, "round trip through the server");
}

/* ------------------------------------------------------------------------ */
/* Stories                                                                   */
/* ------------------------------------------------------------------------ */

static recorder_t rec_a, rec_b;

/** Two users join, see each other; one leaves with statistics; the other sees it go. */
static void call_story(void) {
    const char *channel = "call-story";
    agoraish_engine_t *a, *b;
    event_t join_a, join_b, leave_b, ev;
    char id_a[128], id_b[128], id_b_after[128];
    int i, states[8][2], n_states = 0, leave_at, last_state_at = -1;
    size_t len;

    a = create_recorded(&rec_a, "A", "call-a.log");
    b = create_recorded(&rec_b, "B", "call-b.log");
    if (!a || !b) goto done;

    /* Before any call. */
    CHECK_RC(agoraish_engine_get_connection_state(a), AGORAISH_CONNECTION_STATE_DISCONNECTED, "A state before joining");
    CHECK_RC(call_id(a, id_a, sizeof id_a), -AGORAISH_ERR_NOT_IN_CHANNEL, "A get_call_id before any call");
    CHECK_RC(agoraish_engine_leave_channel(a), -AGORAISH_ERR_LEAVE_CHANNEL_REJECTED, "A leave before joining");

    /* A joins with a uid of its own, B lets the server choose. */
    CHECK_RC(agoraish_engine_join_channel(a, NULL, channel, NULL, 1001), 0, "A join_channel(uid 1001)");
    CHECK_RC(agoraish_engine_join_channel(a, NULL, channel, NULL, 1001), -AGORAISH_ERR_JOIN_CHANNEL_REJECTED,
             "A join_channel while joining");
    if (EXPECT_EVENT(&rec_a, 0, EV_JOIN, ANY, ANY, ANY, &join_a, "A joins") >= 0) {
        CHECK(join_a.uid == 1001, "A joined as uid %lld, expected 1001", (long long)join_a.uid);
        CHECK(strcmp(join_a.text, channel) == 0, "A joined channel \"%s\", expected \"%s\"", join_a.text, channel);
        CHECK(join_a.a >= 0, "A join elapsed %d ms", join_a.a);
    }
    CHECK_RC(agoraish_engine_get_connection_state(a), AGORAISH_CONNECTION_STATE_CONNECTED, "A state after joining");

    CHECK_RC(agoraish_engine_join_channel(b, "", channel, "extra info", 0), 0, "B join_channel(uid 0)");
    if (EXPECT_EVENT(&rec_b, 0, EV_JOIN, ANY, ANY, ANY, &join_b, "B joins") < 0) goto done;
    CHECK(join_b.uid != 0 && join_b.uid != 1001, "B got uid %lld from the server", (long long)join_b.uid);

    /* They see each other. */
    EXPECT_EVENT(&rec_a, 0, EV_USER_JOINED, join_b.uid, ANY, ANY, &ev, "A sees B");
    CHECK(ev.a >= 0, "A's on_user_joined elapsed %d", ev.a);
    EXPECT_EVENT(&rec_b, 0, EV_USER_JOINED, 1001, ANY, ANY, NULL, "B sees A (already there)");

    /* Call ids: the buffer convention, and one id per engine. */
    len = 0;
    CHECK_RC(agoraish_engine_get_call_id(a, NULL, &len), -AGORAISH_ERR_BUFFER_TOO_SMALL, "A get_call_id size query");
    CHECK_RC(call_id(a, id_a, sizeof id_a), 0, "A get_call_id in the call");
    CHECK(len == strlen(id_a) + 1 && id_a[0] != '\0', "A call id \"%s\", size query said %zu", id_a, len);
    CHECK_RC(call_id(b, id_b, sizeof id_b), 0, "B get_call_id in the call");
    CHECK(id_b[0] != '\0' && strcmp(id_a, id_b) != 0, "call ids of A \"%s\" and B \"%s\"", id_a, id_b);

    /* B leaves. */
    CHECK_RC(agoraish_engine_leave_channel(b), 0, "B leave_channel");
    leave_at = EXPECT_EVENT(&rec_b, 0, EV_LEAVE, ANY, ANY, ANY, &leave_b, "B leaves");
    if (leave_at >= 0) {
        CHECK(leave_b.stats.struct_size == sizeof(agoraish_rtc_stats), "B leave stats struct_size %u",
              leave_b.stats.struct_size);
        CHECK(leave_b.stats.user_count == 2, "B leave stats user_count %u, expected 2", leave_b.stats.user_count);
        CHECK(leave_b.stats.tx_bytes > 0 && leave_b.stats.rx_bytes > 0, "B leave stats tx %llu rx %llu bytes",
              (unsigned long long)leave_b.stats.tx_bytes, (unsigned long long)leave_b.stats.rx_bytes);
        CHECK(leave_b.stats.tx_packets > 0 && leave_b.stats.rx_packets > 0, "B leave stats tx %llu rx %llu packets",
              (unsigned long long)leave_b.stats.tx_packets, (unsigned long long)leave_b.stats.rx_packets);
        CHECK(leave_b.stats.duration < 60, "B leave stats duration %u s", leave_b.stats.duration);
    }
    EXPECT_EVENT(&rec_b, 0, EV_STATE, ANY, AGORAISH_CONNECTION_STATE_DISCONNECTED,
                 AGORAISH_CONNECTION_CHANGED_LEAVE_CHANNEL, NULL, "B disconnected after leaving");
    EXPECT_EVENT(&rec_a, 0, EV_USER_OFFLINE, join_b.uid, AGORAISH_USER_OFFLINE_QUIT, ANY, NULL, "A sees B quit");

    /* B's connection states, in order: CONNECTING/0, CONNECTED/1, DISCONNECTED/5;
     * on_leave_channel comes before the last. */
    pthread_mutex_lock(&rec_b.mutex);
    for (i = 0; i < rec_b.count && i < MAX_EVENTS; i++) {
        if (rec_b.events[i].kind != EV_STATE) continue;
        if (n_states < 8) {
            states[n_states][0] = rec_b.events[i].a;
            states[n_states][1] = rec_b.events[i].b;
        }
        n_states++;
        last_state_at = i;
    }
    pthread_mutex_unlock(&rec_b.mutex);
    CHECK(n_states == 3, "B had %d connection state changes, expected 3", n_states);
    if (n_states == 3) {
        CHECK(states[0][0] == AGORAISH_CONNECTION_STATE_CONNECTING && states[0][1] == AGORAISH_CONNECTION_CHANGED_CONNECTING,
              "B state change 1: %d/%d, expected CONNECTING/CONNECTING (2/0)", states[0][0], states[0][1]);
        CHECK(states[1][0] == AGORAISH_CONNECTION_STATE_CONNECTED && states[1][1] == AGORAISH_CONNECTION_CHANGED_JOIN_SUCCESS,
              "B state change 2: %d/%d, expected CONNECTED/JOIN_SUCCESS (3/1)", states[1][0], states[1][1]);
        CHECK(states[2][0] == AGORAISH_CONNECTION_STATE_DISCONNECTED && states[2][1] == AGORAISH_CONNECTION_CHANGED_LEAVE_CHANNEL,
              "B state change 3: %d/%d, expected DISCONNECTED/LEAVE_CHANNEL (1/5)", states[2][0], states[2][1]);
    }
    CHECK(leave_at >= 0 && leave_at < last_state_at, "B: on_leave_channel (event %d) is not before DISCONNECTED (event %d)",
          leave_at, last_state_at);
    CHECK(count_events(&rec_b, 0, EV_JOIN, ANY, ANY, ANY) == 1 && count_events(&rec_b, 0, EV_LEAVE, ANY, ANY, ANY) == 1,
          "B: more than one join or leave event");
    CHECK(count_events(&rec_b, 0, EV_ERROR, ANY, ANY, ANY) == 0 && count_events(&rec_a, 0, EV_ERROR, ANY, ANY, ANY) == 0,
          "on_error during a plain call");

    /* After leaving: DISCONNECTED, the last call id stays readable, leave again is -18. */
    CHECK_RC(agoraish_engine_get_connection_state(b), AGORAISH_CONNECTION_STATE_DISCONNECTED, "B state after leaving");
    CHECK_RC(call_id(b, id_b_after, sizeof id_b_after), 0, "B get_call_id after leaving");
    CHECK(strcmp(id_b, id_b_after) == 0, "B call id after leaving \"%s\", in the call \"%s\"", id_b_after, id_b);
    CHECK_RC(agoraish_engine_leave_channel(b), -AGORAISH_ERR_LEAVE_CHANNEL_REJECTED, "B leave again");
    CHECK_RC(agoraish_engine_renew_token(b, "token"), -AGORAISH_ERR_NOT_IN_CHANNEL, "B renew_token after leaving");

    /* A leaves alone: user_count 1. */
    {
        int from = recorder_count(&rec_a);
        CHECK_RC(agoraish_engine_leave_channel(a), 0, "A leave_channel");
        if (EXPECT_EVENT(&rec_a, from, EV_LEAVE, ANY, ANY, ANY, &ev, "A leaves") >= 0) {
            CHECK(ev.stats.user_count == 1, "A leave stats user_count %u, expected 1", ev.stats.user_count);
        }
    }

done:
    END_STORY(&rec_a, a);
    END_STORY(&rec_b, b);
}

/** User accounts: register, join with accounts, learn and look up each other's. */
static void accounts_story(void) {
    const char *channel = "accounts-story";
    agoraish_engine_t *a, *b;
    agoraish_user_info info;
    event_t ev;
    int64_t uid_alice = -1, uid_bob = -1;
    int info_at, joined_at;

    a = create_recorded(&rec_a, "alice", "accounts-a.log");
    b = create_recorded(&rec_b, "bob", "accounts-b.log");
    if (!a || !b) goto done;

    /* Registered ahead of joining: the server answers with the account's uid. */
    CHECK_RC(agoraish_engine_register_local_user_account(a, app_id, "alice"), 0, "alice register_local_user_account");
    if (EXPECT_EVENT(&rec_a, 0, EV_REGISTERED, ANY, ANY, ANY, &ev, "alice registers") >= 0) {
        uid_alice = ev.uid;
        CHECK(strcmp(ev.text, "alice") == 0, "registered account \"%s\", expected alice", ev.text);
        CHECK(uid_alice != 0, "alice registered as uid 0");
    }
    memset(&info, 0, sizeof info);
    CHECK_RC(agoraish_engine_get_user_info_by_user_account(a, "alice", &info), 0, "alice looks up her own account");
    CHECK(info.uid == uid_alice && strcmp(info.user_account, "alice") == 0, "own account lookup: uid %u \"%s\"",
          info.uid, info.user_account);
    CHECK_RC(agoraish_engine_get_user_info_by_user_account(a, "nobody", &info), -AGORAISH_ERR_INVALID_ARGUMENT,
             "lookup of an unknown account");

    /* Joining with the account keeps its uid. */
    CHECK_RC(agoraish_engine_join_channel_with_user_account(a, NULL, channel, "alice"), 0,
             "alice join_channel_with_user_account");
    if (EXPECT_EVENT(&rec_a, 0, EV_JOIN, ANY, ANY, ANY, &ev, "alice joins") >= 0) {
        CHECK(ev.uid == uid_alice, "alice joined as uid %lld, registered as %lld", (long long)ev.uid,
              (long long)uid_alice);
    }
    CHECK(count_events(&rec_a, 0, EV_REGISTERED, uid_alice, ANY, ANY) == 2,
          "alice: on_local_user_registered for the registration and for the join");

    CHECK_RC(agoraish_engine_join_channel_with_user_account(b, NULL, channel, "bob"), 0,
             "bob join_channel_with_user_account");
    if (EXPECT_EVENT(&rec_b, 0, EV_REGISTERED, ANY, ANY, ANY, &ev, "bob is registered by joining") >= 0) {
        uid_bob = ev.uid;
        CHECK(strcmp(ev.text, "bob") == 0, "bob registered as \"%s\"", ev.text);
    }
    if (EXPECT_EVENT(&rec_b, 0, EV_JOIN, ANY, ANY, ANY, &ev, "bob joins") >= 0) {
        CHECK(ev.uid == uid_bob && uid_bob != uid_alice, "bob joined as uid %lld, registered as %lld (alice %lld)",
              (long long)ev.uid, (long long)uid_bob, (long long)uid_alice);
    }

    /* Each learns the other's account before seeing the user join. */
    info_at = EXPECT_EVENT(&rec_b, 0, EV_USER_INFO, uid_alice, ANY, ANY, &ev, "bob learns alice's account");
    CHECK(info_at < 0 || (strcmp(ev.text, "alice") == 0 && ev.b == 1), "bob's on_user_info_updated: \"%s\" (uid match %d)",
          ev.text, ev.b);
    joined_at = EXPECT_EVENT(&rec_b, 0, EV_USER_JOINED, uid_alice, ANY, ANY, NULL, "bob sees alice");
    CHECK(info_at < joined_at, "bob: on_user_info_updated (event %d) not before on_user_joined (event %d)", info_at,
          joined_at);
    info_at = EXPECT_EVENT(&rec_a, 0, EV_USER_INFO, uid_bob, ANY, ANY, &ev, "alice learns bob's account");
    CHECK(info_at < 0 || (strcmp(ev.text, "bob") == 0 && ev.b == 1), "alice's on_user_info_updated: \"%s\"", ev.text);
    joined_at = EXPECT_EVENT(&rec_a, 0, EV_USER_JOINED, uid_bob, ANY, ANY, NULL, "alice sees bob");
    CHECK(info_at < joined_at, "alice: on_user_info_updated (event %d) not before on_user_joined (event %d)", info_at,
          joined_at);

    /* Lookups on the other side, by uid and by account. */
    memset(&info, 0, sizeof info);
    CHECK_RC(agoraish_engine_get_user_info_by_uid(a, (uint32_t)uid_bob, &info), 0, "alice get_user_info_by_uid(bob)");
    CHECK(info.uid == uid_bob && strcmp(info.user_account, "bob") == 0, "alice's lookup of bob: uid %u \"%s\"",
          info.uid, info.user_account);
    memset(&info, 0, sizeof info);
    CHECK_RC(agoraish_engine_get_user_info_by_uid(b, (uint32_t)uid_alice, &info), 0, "bob get_user_info_by_uid(alice)");
    CHECK(info.uid == uid_alice && strcmp(info.user_account, "alice") == 0, "bob's lookup of alice: uid %u \"%s\"",
          info.uid, info.user_account);
    memset(&info, 0, sizeof info);
    CHECK_RC(agoraish_engine_get_user_info_by_user_account(b, "alice", &info), 0,
             "bob get_user_info_by_user_account(alice)");
    CHECK(info.uid == uid_alice, "bob's lookup of the account alice: uid %u", info.uid);
    CHECK_RC(agoraish_engine_get_user_info_by_uid(b, 4242424242u, &info), -AGORAISH_ERR_INVALID_ARGUMENT,
             "lookup of an unknown uid");

    CHECK_RC(agoraish_engine_leave_channel(a), 0, "alice leaves");
    CHECK_RC(agoraish_engine_leave_channel(b), 0, "bob leaves");
    EXPECT_EVENT(&rec_a, 0, EV_LEAVE, ANY, ANY, ANY, NULL, "alice left");
    EXPECT_EVENT(&rec_b, 0, EV_LEAVE, ANY, ANY, ANY, NULL, "bob left");
    /* What was learned stays known after leaving. */
    CHECK_RC(agoraish_engine_get_user_info_by_uid(a, (uint32_t)uid_bob, &info), 0, "alice looks bob up after leaving");

done:
    END_STORY(&rec_a, a);
    END_STORY(&rec_b, b);
}

/** Live broadcasting: the audience is invisible until it becomes a broadcaster. */
static void roles_story(void) {
    const char *channel = "roles-story";
    agoraish_engine_t *host, *fan;
    event_t ev;
    int64_t uid_host = 2001, uid_fan = 2002;
    int from_host, from_fan;

    host = create_recorded(&rec_a, "host", "roles-host.log");
    fan = create_recorded(&rec_b, "fan", "roles-fan.log");
    if (!host || !fan) goto done;

    CHECK_RC(agoraish_engine_set_channel_profile(host, AGORAISH_CHANNEL_PROFILE_LIVE_BROADCASTING), 0,
             "host set_channel_profile(LIVE_BROADCASTING)");
    CHECK_RC(agoraish_engine_set_channel_profile(fan, AGORAISH_CHANNEL_PROFILE_LIVE_BROADCASTING), 0,
             "fan set_channel_profile(LIVE_BROADCASTING)");
    /* Before joining the role is set locally, and a change is reported. The
     * default is audience, as Agora's: the host must ask to broadcast. */
    CHECK_RC(agoraish_engine_set_client_role(host, AGORAISH_CLIENT_ROLE_BROADCASTER), 0, "host set_client_role(BROADCASTER)");
    EXPECT_EVENT(&rec_a, 0, EV_ROLE, ANY, AGORAISH_CLIENT_ROLE_AUDIENCE, AGORAISH_CLIENT_ROLE_BROADCASTER, NULL,
                 "host becomes broadcaster before joining");
    CHECK_RC(agoraish_engine_set_client_role(fan, AGORAISH_CLIENT_ROLE_AUDIENCE), 0, "fan set_client_role(AUDIENCE)");

    CHECK_RC(agoraish_engine_join_channel(host, NULL, channel, NULL, (uint32_t)uid_host), 0, "host joins");
    EXPECT_EVENT(&rec_a, 0, EV_JOIN, uid_host, ANY, ANY, NULL, "host joined");
    CHECK_RC(agoraish_engine_set_channel_profile(host, AGORAISH_CHANNEL_PROFILE_COMMUNICATION), -AGORAISH_ERR_REFUSED,
             "host set_channel_profile while in a channel");
    CHECK_RC(agoraish_engine_join_channel(fan, NULL, channel, NULL, (uint32_t)uid_fan), 0, "fan joins");
    EXPECT_EVENT(&rec_b, 0, EV_JOIN, uid_fan, ANY, ANY, NULL, "fan joined");
    EXPECT_EVENT(&rec_b, 0, EV_USER_JOINED, uid_host, ANY, ANY, NULL, "fan sees the host (a broadcaster)");

    /* The host's round trip to the server comes after anything the fan's join
     * made the server send the host: by then an audience must still be unseen. */
    sync_with_server(&rec_a, "roles-host");
    CHECK(count_events(&rec_a, 0, EV_USER_JOINED, uid_fan, ANY, ANY) == 0, "the host saw the audience join");

    /* Audience -> broadcaster: the host sees the fan join. */
    from_host = recorder_count(&rec_a);
    from_fan = recorder_count(&rec_b);
    CHECK_RC(agoraish_engine_set_client_role(fan, AGORAISH_CLIENT_ROLE_BROADCASTER), 0, "fan set_client_role(BROADCASTER)");
    EXPECT_EVENT(&rec_b, from_fan, EV_ROLE, ANY, AGORAISH_CLIENT_ROLE_AUDIENCE, AGORAISH_CLIENT_ROLE_BROADCASTER, NULL,
                 "fan becomes broadcaster");
    EXPECT_EVENT(&rec_a, from_host, EV_USER_JOINED, uid_fan, ANY, ANY, NULL, "the host sees the new broadcaster");

    /* Broadcaster -> audience: the host sees the fan go, reason BECOME_AUDIENCE. */
    from_host = recorder_count(&rec_a);
    from_fan = recorder_count(&rec_b);
    CHECK_RC(agoraish_engine_set_client_role(fan, AGORAISH_CLIENT_ROLE_AUDIENCE), 0, "fan set_client_role(AUDIENCE) again");
    EXPECT_EVENT(&rec_b, from_fan, EV_ROLE, ANY, AGORAISH_CLIENT_ROLE_BROADCASTER, AGORAISH_CLIENT_ROLE_AUDIENCE, NULL,
                 "fan becomes audience again");
    EXPECT_EVENT(&rec_a, from_host, EV_USER_OFFLINE, uid_fan, AGORAISH_USER_OFFLINE_BECOME_AUDIENCE, ANY, NULL,
                 "the host sees the fan become audience");

    /* An audience may switch channel: leave, then join the other one. */
    CHECK_RC(agoraish_engine_switch_channel(host, NULL, "roles-story-2"), -AGORAISH_ERR_REFUSED,
             "a broadcaster switch_channel");
    from_fan = recorder_count(&rec_b);
    CHECK_RC(agoraish_engine_switch_channel(fan, NULL, "roles-story-2"), 0, "fan switch_channel");
    {
        int left = EXPECT_EVENT(&rec_b, from_fan, EV_LEAVE, ANY, ANY, ANY, NULL, "fan leaves for the other channel");
        int joined = EXPECT_EVENT(&rec_b, from_fan, EV_JOIN, ANY, ANY, ANY, &ev, "fan joins the other channel");
        CHECK(left < joined, "switch_channel: on_leave_channel (event %d) not before on_join_channel_success (%d)", left,
              joined);
        CHECK(joined < 0 || strcmp(ev.text, "roles-story-2") == 0, "fan switched to \"%s\"", ev.text);
    }
    CHECK(count_events(&rec_a, 0, EV_ERROR, ANY, ANY, ANY) == 0 && count_events(&rec_b, 0, EV_ERROR, ANY, ANY, ANY) == 0,
          "on_error during the role changes");

    CHECK_RC(agoraish_engine_leave_channel(fan), 0, "fan leaves");
    CHECK_RC(agoraish_engine_leave_channel(host), 0, "host leaves");
    EXPECT_EVENT(&rec_b, from_fan, EV_STATE, ANY, AGORAISH_CONNECTION_STATE_DISCONNECTED, ANY, NULL, "fan disconnected");
    EXPECT_EVENT(&rec_a, 0, EV_STATE, ANY, AGORAISH_CONNECTION_STATE_DISCONNECTED, ANY, NULL, "host disconnected");

done:
    END_STORY(&rec_a, host);
    END_STORY(&rec_b, fan);
}

/** Releasing a joined engine leaves first: the other side sees QUIT at once. */
static void release_while_joined(void) {
    const char *channel = "release-story";
    agoraish_engine_t *a, *b;
    event_t ev;
    double released_at;

    a = create_recorded(&rec_a, "leaver", "release-a.log");
    b = create_recorded(&rec_b, "stayer", "release-b.log");
    if (!a || !b) goto done;

    CHECK_RC(agoraish_engine_join_channel(a, NULL, channel, NULL, 3001), 0, "leaver joins");
    CHECK_RC(agoraish_engine_join_channel(b, NULL, channel, NULL, 3002), 0, "stayer joins");
    EXPECT_EVENT(&rec_b, 0, EV_USER_JOINED, 3001, ANY, ANY, NULL, "stayer sees the leaver");
    EXPECT_EVENT(&rec_a, 0, EV_USER_JOINED, 3002, ANY, ANY, NULL, "leaver sees the stayer");

    released_at = now_ms();
    CHECK_RC(agoraish_engine_release(a, 1), 0, "release the joined leaver (sync=1)");
    a = NULL;
    if (EXPECT_EVENT(&rec_b, 0, EV_USER_OFFLINE, 3001, ANY, ANY, &ev, "stayer sees the released user go") >= 0) {
        CHECK(ev.a == AGORAISH_USER_OFFLINE_QUIT, "released user went offline with reason %d, expected QUIT (0)", ev.a);
        CHECK(ev.at_ms - released_at < 10000.0, "released user went offline %.0f ms after release",
              ev.at_ms - released_at);
    }
    CHECK_RC(agoraish_engine_get_connection_state(b), AGORAISH_CONNECTION_STATE_CONNECTED, "stayer still connected");
    CHECK_RC(agoraish_engine_leave_channel(b), 0, "stayer leaves");
    if (EXPECT_EVENT(&rec_b, 0, EV_LEAVE, ANY, ANY, ANY, &ev, "stayer left") >= 0) {
        CHECK(ev.stats.user_count == 1, "stayer leave stats user_count %u, expected 1", ev.stats.user_count);
    }

done:
    END_STORY(&rec_a, a);
    END_STORY(&rec_b, b);
}

/* ---- ABI 0.1 hosts ---- */

/** The event handler table exactly as a host built against ABI 0.1 declares it. */
typedef struct {
    uint32_t struct_size;
    void *user_data;
    void (*on_api_call_executed)(agoraish_engine_t *engine, void *user_data, int err, const char *api,
                                 const char *result);
} event_handler_0_1;

_Static_assert(sizeof(event_handler_0_1) == AGORAISH_EVENT_HANDLER_SIZE_0_1,
               "the 0.1 table and AGORAISH_EVENT_HANDLER_SIZE_0_1 differ");

static int traps_fired; /* guarded by trap_mutex */
static pthread_mutex_t trap_mutex = PTHREAD_MUTEX_INITIALIZER;

static void trap(void) {
    pthread_mutex_lock(&trap_mutex);
    traps_fired++;
    pthread_mutex_unlock(&trap_mutex);
}
static void trap_join(agoraish_engine_t *e, void *ud, const char *c, uint32_t u, int el) {
    (void)e, (void)ud, (void)c, (void)u, (void)el;
    trap();
}
static void trap_leave(agoraish_engine_t *e, void *ud, const agoraish_rtc_stats *s) {
    (void)e, (void)ud, (void)s;
    trap();
}
static void trap_uid_int(agoraish_engine_t *e, void *ud, uint32_t u, int x) {
    (void)e, (void)ud, (void)u, (void)x;
    trap();
}
static void trap_int_int(agoraish_engine_t *e, void *ud, int x, int y) {
    (void)e, (void)ud, (void)x, (void)y;
    trap();
}
static void trap_none(agoraish_engine_t *e, void *ud) {
    (void)e, (void)ud;
    trap();
}
static void trap_text(agoraish_engine_t *e, void *ud, const char *t) {
    (void)e, (void)ud, (void)t;
    trap();
}
static void trap_uid_text(agoraish_engine_t *e, void *ud, uint32_t u, const char *t) {
    (void)e, (void)ud, (void)u, (void)t;
    trap();
}
static void trap_info(agoraish_engine_t *e, void *ud, uint32_t u, const agoraish_user_info *i) {
    (void)e, (void)ud, (void)u, (void)i;
    trap();
}
static void trap_error(agoraish_engine_t *e, void *ud, int x, const char *t) {
    (void)e, (void)ud, (void)x, (void)t;
    trap();
}

static recorder_t rec_old_heap, rec_old_traps, rec_observer;

/** Engines with a 0.1-size event handler join, leave, and still get on_api_call_executed. */
static void abi_0_1_story(void) {
    const char *channel = "abi-0-1-story";
    event_handler_0_1 *old_table;
    agoraish_event_handler trapped;
    agoraish_engine_t *p = NULL, *q = NULL, *o = NULL;
    int fired;

    recorder_init(&rec_old_heap, "0.1 table on the heap");
    recorder_init(&rec_old_traps, "0.1 size with traps past it");

    /* Exactly the 0.1 size on the heap: valgrind reports any read past it. */
    old_table = malloc(sizeof *old_table);
    if (!old_table) return;
    memset(old_table, 0, sizeof *old_table);
    old_table->struct_size = (uint32_t)sizeof *old_table;
    old_table->user_data = &rec_old_heap;
    old_table->on_api_call_executed = on_api_call_executed;
    p = create_engine(&rec_old_heap, (const agoraish_event_handler *)(const void *)old_table, "abi01-p.log");
    free(old_table); /* create copied it */

    /* The 0.1 size in a full table whose 0.2 entries must never be called. */
    trapped = full_handler(&rec_old_traps);
    trapped.struct_size = AGORAISH_EVENT_HANDLER_SIZE_0_1;
    trapped.on_join_channel_success = trap_join;
    trapped.on_rejoin_channel_success = trap_join;
    trapped.on_leave_channel = trap_leave;
    trapped.on_user_joined = trap_uid_int;
    trapped.on_user_offline = trap_uid_int;
    trapped.on_client_role_changed = trap_int_int;
    trapped.on_connection_state_changed = trap_int_int;
    trapped.on_connection_lost = trap_none;
    trapped.on_token_privilege_will_expire = trap_text;
    trapped.on_request_token = trap_none;
    trapped.on_local_user_registered = trap_uid_text;
    trapped.on_user_info_updated = trap_info;
    trapped.on_error = trap_error;
    q = create_engine(&rec_old_traps, &trapped, "abi01-q.log");

    o = create_recorded(&rec_observer, "observer", "abi01-o.log");
    if (!p || !q || !o) goto done;

    CHECK_RC(agoraish_engine_join_channel(o, NULL, channel, NULL, 4200), 0, "observer joins");
    EXPECT_EVENT(&rec_observer, 0, EV_JOIN, 4200, ANY, ANY, NULL, "observer joined");
    CHECK_RC(agoraish_engine_join_channel(p, NULL, channel, NULL, 4201), 0, "0.1 engine P joins");
    CHECK_RC(agoraish_engine_join_channel(q, NULL, channel, NULL, 4202), 0, "0.1 engine Q joins");
    EXPECT_EVENT(&rec_observer, 0, EV_USER_JOINED, 4201, ANY, ANY, NULL, "observer sees 0.1 engine P");
    EXPECT_EVENT(&rec_observer, 0, EV_USER_JOINED, 4202, ANY, ANY, NULL, "observer sees 0.1 engine Q");
    /* A 0.1 table cannot tell when its engine's own join completed, so the
     * observer leaves first and the 0.1 engines' leaves are checked by their
     * return codes (accepted while joining and while joined). */
    CHECK_RC(agoraish_engine_leave_channel(o), 0, "observer leaves");
    EXPECT_EVENT(&rec_observer, 0, EV_LEAVE, ANY, ANY, ANY, NULL, "observer left");
    CHECK_RC(agoraish_engine_leave_channel(p), 0, "0.1 engine P leaves");
    CHECK_RC(agoraish_engine_leave_channel(q), 0, "0.1 engine Q leaves");

    /* The one callback a 0.1 table has still arrives, and only it. */
    CHECK_RC(agoraish_engine_set_log_level(p, AGORAISH_LOG_LEVEL_INFO), 0, "0.1 engine P set_log_level");
    CHECK_RC(agoraish_engine_set_log_level(q, AGORAISH_LOG_LEVEL_INFO), 0, "0.1 engine Q set_log_level");
    EXPECT_EVENT(&rec_old_heap, 0, EV_API_CALL, ANY, 0, ANY, NULL, "0.1 engine P on_api_call_executed");
    EXPECT_EVENT(&rec_old_traps, 0, EV_API_CALL, ANY, 0, ANY, NULL, "0.1 engine Q on_api_call_executed");
    CHECK(recorder_count(&rec_old_heap) == 1, "0.1 engine P: %d events, expected 1", recorder_count(&rec_old_heap));
    CHECK(recorder_count(&rec_old_traps) == 1, "0.1 engine Q: %d events, expected 1", recorder_count(&rec_old_traps));

done:
    END_STORY(&rec_old_heap, p);
    END_STORY(&rec_old_traps, q);
    END_STORY(&rec_observer, o);
    pthread_mutex_lock(&trap_mutex);
    fired = traps_fired;
    pthread_mutex_unlock(&trap_mutex);
    CHECK(fired == 0, "%d callbacks past struct_size were called", fired);
}

/* ------------------------------------------------------------------------ */

int main(void) {
    main_thread = pthread_self();
    if (!make_tmpdir("agoraish-channel-call")) return 1;
    if (start_server()) {
        call_story();
        accounts_story();
        roles_story();
        release_while_joined();
        abi_0_1_story();
    }
    if (server) CHECK_RC(agoraish_server_release(server), 0, "server_release");
    remove_tmpdir();
    return test_summary();
}
