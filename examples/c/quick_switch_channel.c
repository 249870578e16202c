/*
 * quick_switch_channel.c — Agora 4.x's QuickSwitchChannel case in C: an
 * audience hops between live channels and hears each one at once.
 *
 *   set_channel_profile(LIVE_BROADCASTING) -> set_client_role(AUDIENCE)
 *   -> preload_channel(token, "quick-switch-1", uid) -> preload_channel(token, "quick-switch-2", uid)
 *   -> join_channel("quick-switch-1", uid) -> on_first_remote_audio_decoded
 *   -> leave_channel -> join_channel("quick-switch-2", uid) -> on_first_remote_audio_decoded
 *   -> ... -> leave_channel -> release
 *
 * "host1" and "host2" broadcast in "quick-switch-1" and "quick-switch-2",
 * each pushing its own tone (440 Hz, 1000 Hz) through an external audio
 * source. "viewer", an audience, preloads both channels with its uid, joins
 * the first, then switches four times (leave_channel, then join_channel of
 * the other channel with the same uid). A join of a preloaded channel goes
 * on the signaling connection opened by the preload and asks for fast start,
 * so the channel is heard within a few tens of milliseconds. For each join
 * the viewer prints the time from the join call to on_first_remote_audio_decoded
 * and the tone it heard through an external sink.
 *
 *   make hosts && build/examples/quick_switch_channel
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define RATE 48000
#define CHUNK (RATE / 100) /* 10 ms */
#define PI 3.14159265358979323846
#define VIEWER_UID 1000
#define JOINS 5            /* the first join and four switches */
#define LISTEN_MS 600      /* after each join */
#define ANALYZE_FROM_MS 200 /* the tone is measured from here on */

static const char *const channels[2] = {"quick-switch-1", "quick-switch-2"};
static const uint32_t host_uids[2] = {101, 102};
static const double tones[2] = {440.0, 1000.0};

/* ---- the viewer's events ------------------------------------------------------ */

typedef struct {
    example_user base;
    /* Guarded by base.mutex. */
    uint32_t decoded_uid; /* from on_first_remote_audio_decoded, 0 before it */
    double decoded_at;    /* seconds() when it came */
} viewer_t;

static void on_first_remote_audio_decoded(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    viewer_t *v = ud;
    (void)e;
    say(v->base.name, "on_first_remote_audio_decoded uid %u, %d ms", uid, elapsed);
    example_lock(&v->base);
    v->decoded_uid = uid;
    v->decoded_at = seconds();
    example_changed(&v->base);
}

static int has_decoded(const example_user *u) { return ((const viewer_t *)u)->decoded_uid != 0; }

static agoraish_engine_t *create_user(example_user *u, const char *name, const char *server_url, int role) {
    agoraish_event_handler handler;
    agoraish_engine_t *engine;
    example_user_init(u, name);
    example_handler(&handler, u);
    /* The audience's user is the base of a viewer_t. */
    if (role == AGORAISH_CLIENT_ROLE_AUDIENCE) handler.on_first_remote_audio_decoded = on_first_remote_audio_decoded;
    engine = example_create_engine(u, &handler, server_url);
    if (engine) {
        agoraish_engine_set_channel_profile(engine, AGORAISH_CHANNEL_PROFILE_LIVE_BROADCASTING);
        agoraish_engine_set_client_role(engine, role);
    }
    return engine;
}

/* ---- the hosts' pushing thread: 10 ms of each tone every 10 ms until stopped ------ */

typedef struct {
    agoraish_engine_t *hosts[2];
    pthread_mutex_t mutex;
    int stop; /* guarded by mutex */
} pusher_t;

static void *push_tones(void *arg) {
    pusher_t *p = arg;
    int16_t chunk[CHUNK];
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 0;; k++) {
        int stop;
        pthread_mutex_lock(&p->mutex);
        stop = p->stop;
        pthread_mutex_unlock(&p->mutex);
        if (stop) break;
        for (int h = 0; h < 2; h++) {
            for (int i = 0; i < CHUNK; i++) {
                chunk[i] = (int16_t)(8000 * sin(2 * PI * tones[h] * (double)(k * CHUNK + i) / RATE));
            }
            agoraish_engine_push_external_audio_frame(p->hosts[h], chunk, CHUNK);
        }
        sleep_until(&start, (k + 1) * 10);
    }
    return NULL;
}

/* ---- one join of the viewer ------------------------------------------------------- */

/* Joins channel `c` as VIEWER_UID, pulls LISTEN_MS of what it hears, and says
 * how long the first audio took and what it was. Returns whether the viewer
 * heard that channel's host and tone. */
static int join_and_listen(agoraish_engine_t *engine, viewer_t *viewer, int c) {
    static int16_t heard[LISTEN_MS / 10 * CHUNK];
    struct timespec start;
    example_tone tone;
    double joined_at, decoded_at;
    uint32_t decoded_uid;
    int rc;

    example_lock(&viewer->base);
    viewer->base.joined = viewer->base.left = 0;
    viewer->decoded_uid = 0;
    example_unlock(&viewer->base);
    joined_at = seconds();
    rc = agoraish_engine_join_channel(engine, NULL, channels[c], NULL, VIEWER_UID);
    say("viewer", "join_channel(\"%s\", %u) = %d", channels[c], VIEWER_UID, rc);
    if (rc != 0) return 0;
    /* The sink is the viewer's speaker: pulled in real time from the join on. */
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int k = 0; k < LISTEN_MS / 10; k++) {
        agoraish_engine_pull_playback_audio_frame(engine, heard + k * CHUNK, CHUNK);
        sleep_until(&start, (k + 1) * 10L);
    }
    if (!example_wait(&viewer->base, has_decoded, "first remote audio")) return 0;
    example_lock(&viewer->base);
    decoded_uid = viewer->decoded_uid;
    decoded_at = viewer->decoded_at;
    example_unlock(&viewer->base);
    /* The tone from ANALYZE_FROM_MS on, when the jitter buffer has settled. */
    tone = example_analyze_tone(heard + ANALYZE_FROM_MS * RATE / 1000, (LISTEN_MS - ANALYZE_FROM_MS) * RATE / 1000,
                                RATE);
    say("viewer", "\"%s\": uid %u decoded %.0f ms after join_channel; heard %.0f Hz (host%d sends %.0f Hz)",
        channels[c], decoded_uid, (decoded_at - joined_at) * 1000, tone.hz, c + 1, tones[c]);
    return decoded_uid == host_uids[c] && fabs(tone.hz - tones[c]) < 10;
}

int main(void) {
    agoraish_server_t *server = NULL;
    agoraish_engine_t *host_engines[2] = {NULL, NULL}, *viewer_engine = NULL;
    example_user hosts[2];
    viewer_t viewer;
    pusher_t pusher;
    pthread_t pusher_thread;
    struct timespec start;
    char url[128];
    int ok = 0, pushing = 0, heard[2] = {0, 0};

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(hosts, 0, sizeof hosts);
    memset(&viewer, 0, sizeof viewer);
    memset(&pusher, 0, sizeof pusher);
    pthread_mutex_init(&pusher.mutex, NULL);
    if (!(server = example_start_server(url, sizeof url))) goto done;

    /* The viewer: an audience that listens through an external sink and preloads both channels. */
    viewer_engine = create_user(&viewer.base, "viewer", url, AGORAISH_CLIENT_ROLE_AUDIENCE);
    if (!viewer_engine) goto done;
    agoraish_engine_set_external_audio_sink(viewer_engine, 1, RATE, 1);
    agoraish_engine_enable_local_audio(viewer_engine, 0);
    for (int c = 0; c < 2; c++) {
        int rc = agoraish_engine_preload_channel(viewer_engine, NULL, channels[c], VIEWER_UID);
        say("viewer", "preload_channel(\"%s\", %u) = %d", channels[c], VIEWER_UID, rc);
        if (rc != 0) goto done;
    }

    /* A host in each channel, sending its tone; what it would hear goes to ALSA's "null". */
    for (int h = 0; h < 2; h++) {
        host_engines[h] = create_user(&hosts[h], h == 0 ? "host1" : "host2", url, AGORAISH_CLIENT_ROLE_BROADCASTER);
        if (!host_engines[h]) goto done;
        agoraish_engine_set_playback_device(host_engines[h], "null");
        agoraish_engine_set_external_audio_source(host_engines[h], 1, RATE, 1);
        if (agoraish_engine_join_channel(host_engines[h], NULL, channels[h], NULL, host_uids[h]) != 0 ||
            !example_wait(&hosts[h], example_is_joined, "join")) {
            goto done;
        }
        pusher.hosts[h] = host_engines[h];
    }
    pushing = pthread_create(&pusher_thread, NULL, push_tones, &pusher) == 0;
    if (!pushing) goto done;
    /* The shows are on before the viewer comes in. */
    clock_gettime(CLOCK_MONOTONIC, &start);
    sleep_until(&start, 500);

    /* Into the first channel, then back and forth: leave, and join the other with the same uid. */
    ok = 1;
    for (int j = 0; j < JOINS && ok; j++) {
        int c = j % 2;
        if (j > 0) {
            agoraish_engine_leave_channel(viewer_engine);
            if (!example_wait(&viewer.base, example_has_left, "leave")) {
                ok = 0;
                break;
            }
        }
        if (join_and_listen(viewer_engine, &viewer, c)) {
            heard[c] = 1;
        } else {
            ok = 0;
        }
    }
    agoraish_engine_leave_channel(viewer_engine);
    ok = ok && example_wait(&viewer.base, example_has_left, "leave") && heard[0] && heard[1];

done:
    if (pushing) {
        pthread_mutex_lock(&pusher.mutex);
        pusher.stop = 1;
        pthread_mutex_unlock(&pusher.mutex);
        pthread_join(pusher_thread, NULL);
    }
    /* Releasing leaves the channel and waits for running callbacks. */
    if (viewer_engine) agoraish_engine_release(viewer_engine, 1);
    for (int h = 0; h < 2; h++) {
        if (host_engines[h]) agoraish_engine_release(host_engines[h], 1);
    }
    agoraish_server_release(server);
    pthread_mutex_destroy(&pusher.mutex);
    example_user_destroy(&hosts[0]);
    example_user_destroy(&hosts[1]);
    example_user_destroy(&viewer.base);
    return example_finish(ok, "done: viewer heard each channel's host right after every switch");
}
