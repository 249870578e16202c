/*
 * demo_call.c — a call in one process: an embedded channel server and two
 * users, alice and bob, who join a channel, see each other, talk, and leave.
 * alice pushes three seconds of a 440 Hz tone as her microphone and a moving
 * picture as her camera; bob pulls what he hears into demo-out/received.wav
 * and writes what he sees to demo-out/received.y4m, and the demo prints the
 * frequency and level of what arrived, the pictures rendered, the volume
 * bob's engine reported, and its statistics of alice's audio.
 *
 *   make demo      (builds the library and runs this)
 *
 * Each user is an engine with its own event handler. Callbacks run on the
 * engine's event thread: they copy what they got and wake main, which prints
 * everything, so the output comes out in one order.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"

#define CHANNEL "demo"
#define APP_ID "0123456789abcdef0123456789abcdef"
#define WAIT_SECONDS 5

/* What one user's event handler shares with main. */
typedef struct {
    const char *name;
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    /* Guarded by mutex. */
    uint32_t joined, left;
    uint32_t uid;
    int join_ms;
    uint32_t peer_joined, peer_left; /* the last remote user seen joining / leaving */
    int peer_left_reason;
    agoraish_rtc_stats stats;
    /* Audio, as the events report it. */
    uint32_t decoded_uid;            /* on_first_remote_audio_decoded */
    int decoded_ms;
    unsigned int loudest;            /* highest remote volume reported (0..255) */
    agoraish_remote_audio_stats remote; /* the last on_remote_audio_stats */
    int remote_reports;
    /* Video: pictures rendered (written by the render sink on the video thread). */
    FILE *y4m;
    int pictures, picture_width, picture_height;
    agoraish_remote_video_stats remote_video; /* the last on_remote_video_stats */
    int remote_video_reports;
} user_t;

static void on_join_channel_success(agoraish_engine_t *engine, void *user_data, const char *channel,
                                    uint32_t uid, int elapsed) {
    user_t *u = user_data;
    (void)engine, (void)channel;
    pthread_mutex_lock(&u->mutex);
    u->joined = 1;
    u->uid = uid;
    u->join_ms = elapsed;
    pthread_cond_broadcast(&u->cond);
    pthread_mutex_unlock(&u->mutex);
}

static void on_user_joined(agoraish_engine_t *engine, void *user_data, uint32_t uid, int elapsed) {
    user_t *u = user_data;
    (void)engine, (void)elapsed;
    pthread_mutex_lock(&u->mutex);
    u->peer_joined = uid;
    pthread_cond_broadcast(&u->cond);
    pthread_mutex_unlock(&u->mutex);
}

static void on_user_offline(agoraish_engine_t *engine, void *user_data, uint32_t uid, int reason) {
    user_t *u = user_data;
    (void)engine;
    pthread_mutex_lock(&u->mutex);
    u->peer_left = uid;
    u->peer_left_reason = reason;
    pthread_cond_broadcast(&u->cond);
    pthread_mutex_unlock(&u->mutex);
}

static void on_leave_channel(agoraish_engine_t *engine, void *user_data, const agoraish_rtc_stats *stats) {
    user_t *u = user_data;
    (void)engine;
    pthread_mutex_lock(&u->mutex);
    u->left = 1;
    memcpy(&u->stats, stats, stats->struct_size < sizeof u->stats ? stats->struct_size : sizeof u->stats);
    pthread_cond_broadcast(&u->cond);
    pthread_mutex_unlock(&u->mutex);
}

static void on_first_remote_audio_decoded(agoraish_engine_t *engine, void *user_data, uint32_t uid, int elapsed) {
    user_t *u = user_data;
    (void)engine;
    pthread_mutex_lock(&u->mutex);
    u->decoded_uid = uid;
    u->decoded_ms = elapsed;
    pthread_cond_broadcast(&u->cond);
    pthread_mutex_unlock(&u->mutex);
}

static void on_audio_volume_indication(agoraish_engine_t *engine, void *user_data,
                                       const agoraish_audio_volume_info *speakers, unsigned int count, int total) {
    user_t *u = user_data;
    (void)engine;
    (void)total;
    pthread_mutex_lock(&u->mutex);
    for (unsigned int i = 0; i < count; i++) {
        if (speakers[i].uid != 0 && speakers[i].volume > u->loudest) u->loudest = speakers[i].volume;
    }
    pthread_mutex_unlock(&u->mutex);
}

static void on_remote_audio_stats(agoraish_engine_t *engine, void *user_data, const agoraish_remote_audio_stats *stats) {
    user_t *u = user_data;
    (void)engine;
    pthread_mutex_lock(&u->mutex);
    memcpy(&u->remote, stats, stats->struct_size < sizeof u->remote ? stats->struct_size : sizeof u->remote);
    u->remote_reports++;
    pthread_mutex_unlock(&u->mutex);
}

static void on_remote_video_stats(agoraish_engine_t *engine, void *user_data, const agoraish_remote_video_stats *stats) {
    user_t *u = user_data;
    (void)engine;
    pthread_mutex_lock(&u->mutex);
    memcpy(&u->remote_video, stats,
           stats->struct_size < sizeof u->remote_video ? stats->struct_size : sizeof u->remote_video);
    u->remote_video_reports++;
    pthread_mutex_unlock(&u->mutex);
}

/* bob's render sink: every picture of alice goes into a YUV4MPEG2 file. */
static void on_frame(agoraish_engine_t *engine, void *user_data, uint32_t uid, const agoraish_video_frame *f) {
    user_t *u = user_data;
    (void)engine;
    (void)uid;
    pthread_mutex_lock(&u->mutex);
    if (u->y4m && (u->pictures == 0 || (f->width == u->picture_width && f->height == u->picture_height))) {
        if (u->pictures == 0) fprintf(u->y4m, "YUV4MPEG2 W%d H%d F15:1 Ip A1:1 C420jpeg\n", f->width, f->height);
        fputs("FRAME\n", u->y4m);
        for (int r = 0; r < f->height; r++) fwrite(f->y_buffer + (size_t)r * (size_t)f->y_stride, 1, (size_t)f->width, u->y4m);
        for (int r = 0; r < f->height / 2; r++) fwrite(f->u_buffer + (size_t)r * (size_t)f->u_stride, 1, (size_t)f->width / 2, u->y4m);
        for (int r = 0; r < f->height / 2; r++) fwrite(f->v_buffer + (size_t)r * (size_t)f->v_stride, 1, (size_t)f->width / 2, u->y4m);
        u->pictures++;
        u->picture_width = f->width;
        u->picture_height = f->height;
    }
    pthread_mutex_unlock(&u->mutex);
}

/* Waits (at most WAIT_SECONDS) until `*field` of `u` equals `value`; returns whether it did. */
static int wait_for(user_t *u, const uint32_t *field, uint32_t value) {
    struct timespec deadline;
    int ok;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += WAIT_SECONDS;
    pthread_mutex_lock(&u->mutex);
    while (!(ok = *field == value)) {
        if (pthread_cond_timedwait(&u->cond, &u->mutex, &deadline) == ETIMEDOUT) break;
    }
    pthread_mutex_unlock(&u->mutex);
    if (!ok) printf("  (%s: no event within %d s)\n", u->name, WAIT_SECONDS);
    return ok;
}

#define WAIT_FOR(u, field, value) wait_for((u), &(u)->field, (uint32_t)(value))

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

    memset(&handler, 0, sizeof handler); /* callbacks left NULL are not called */
    handler.struct_size = sizeof handler;
    handler.user_data = u;
    handler.on_join_channel_success = on_join_channel_success;
    handler.on_user_joined = on_user_joined;
    handler.on_user_offline = on_user_offline;
    handler.on_leave_channel = on_leave_channel;
    handler.on_first_remote_audio_decoded = on_first_remote_audio_decoded;
    handler.on_audio_volume_indication = on_audio_volume_indication;
    handler.on_remote_audio_stats = on_remote_audio_stats;
    handler.on_remote_video_stats = on_remote_video_stats;

    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.app_id = APP_ID;
    config.event_handler = &handler; /* copied by create */
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

static void print_stats(const user_t *u) {
    printf("%-5s left: %u s in the call, sent %llu bytes, received %llu bytes, %u user%s in the channel at the end\n",
           u->name, u->stats.duration, (unsigned long long)u->stats.tx_bytes, (unsigned long long)u->stats.rx_bytes,
           u->stats.user_count, u->stats.user_count == 1 ? "" : "s");
}


/* ---- audio: alice talks, bob listens ------------------------------------- */

#define RATE 48000
#define PI 3.14159265358979323846
#define TONE_HZ 440.0
#define TONE_AMPLITUDE 8000.0
#define TALK_SECONDS 3
#define LISTEN_FRAMES 360 /* 10 ms each */

static void sleep_until(const struct timespec *start, long offset_ms) {
    struct timespec t = *start;
    t.tv_sec += offset_ms / 1000;
    t.tv_nsec += (offset_ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) { t.tv_sec++; t.tv_nsec -= 1000000000L; }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR) {}
}

#define VIDEO_W 320
#define VIDEO_H 240

/* alice's "camera": a gradient with a bright square that moves with the frame number. */
static void push_picture(agoraish_engine_t *engine, int n, int64_t ms) {
    static uint8_t y[VIDEO_W * VIDEO_H], uv[VIDEO_W * VIDEO_H / 4];
    agoraish_external_video_frame f;
    int left = (n * 8) % (VIDEO_W - 64), top = (n * 5) % (VIDEO_H - 64);
    for (int r = 0; r < VIDEO_H; r++)
        for (int c = 0; c < VIDEO_W; c++)
            y[r * VIDEO_W + c] = (uint8_t)((r >= top && r < top + 64 && c >= left && c < left + 64) ? 235 : 40 + (r + c) % 128);
    memset(uv, 128, sizeof uv);
    memset(&f, 0, sizeof f);
    f.struct_size = sizeof f;
    f.format = AGORAISH_VIDEO_PIXEL_I420;
    f.width = VIDEO_W;
    f.height = VIDEO_H;
    f.y_buffer = y;
    f.u_buffer = uv;
    f.v_buffer = uv;
    f.y_stride = VIDEO_W;
    f.u_stride = VIDEO_W / 2;
    f.v_stride = VIDEO_W / 2;
    f.timestamp = ms;
    agoraish_engine_push_external_video_frame(engine, &f);
}

/* alice's "microphone": 10 ms of tone every 10 ms, in real time; and a picture every 70 ms. */
static void *talk(void *engine) {
    int16_t frame[RATE / 100];
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int k = 0; k < TALK_SECONDS * 100; k++) {
        if (k % 7 == 0) push_picture((agoraish_engine_t *)engine, k / 7, (int64_t)k * 10);
        for (int i = 0; i < RATE / 100; i++) {
            double t = (double)(k * (RATE / 100) + i) / RATE;
            frame[i] = (int16_t)(TONE_AMPLITUDE * sin(2 * PI * TONE_HZ * t));
        }
        agoraish_engine_push_external_audio_frame((agoraish_engine_t *)engine, frame, RATE / 100);
        sleep_until(&start, (k + 1) * 10L);
    }
    return NULL;
}

static void put_le(FILE *f, uint32_t v, int bytes) {
    for (int i = 0; i < bytes; i++) fputc((int)((v >> (8 * i)) & 0xFF), f);
}

/* A 16-bit mono WAV file (RIFF). */
static int write_wav(const char *path, const int16_t *samples, size_t count) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    uint32_t bytes = (uint32_t)(count * 2);
    fputs("RIFF", f); put_le(f, 36 + bytes, 4); fputs("WAVEfmt ", f);
    put_le(f, 16, 4); put_le(f, 1, 2); put_le(f, 1, 2); put_le(f, RATE, 4); put_le(f, RATE * 2, 4);
    put_le(f, 2, 2); put_le(f, 16, 2); fputs("data", f); put_le(f, bytes, 4);
    for (size_t i = 0; i < count; i++) put_le(f, (uint16_t)samples[i], 2);
    return fclose(f);
}

/* alice talks while bob listens; returns whether bob heard the tone. */
static int talk_and_listen(agoraish_engine_t *alice_engine, agoraish_engine_t *bob_engine) {
    static int16_t heard[LISTEN_FRAMES * (RATE / 100)];
    pthread_t talker;
    struct timespec start;
    size_t first = 0, n = 0, crossings = 0;
    double energy = 0;
    agoraish_engine_set_external_audio_source(alice_engine, 1, RATE, 1);
    agoraish_engine_set_external_audio_sink(bob_engine, 1, RATE, 1);
    agoraish_engine_enable_video(alice_engine);
    agoraish_engine_set_external_video_source(alice_engine, 1);
    agoraish_engine_enable_video(bob_engine);
    agoraish_engine_enable_audio_volume_indication(bob_engine, 200, 3, 0);
    { struct timespec settle = {0, 300000000L}; nanosleep(&settle, NULL); } /* media transports bind */
    pthread_create(&talker, NULL, talk, alice_engine);
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int k = 0; k < LISTEN_FRAMES; k++) {
        agoraish_engine_pull_playback_audio_frame(bob_engine, heard + k * (RATE / 100), RATE / 100);
        sleep_until(&start, (k + 1) * 10L);
    }
    pthread_join(talker, NULL);
    mkdir("demo-out", 0755);
    if (write_wav("demo-out/received.wav", heard, sizeof heard / sizeof heard[0]) == 0) {
        printf("bob   wrote what he heard to demo-out/received.wav\n");
    }
    while (first < sizeof heard / sizeof heard[0] && abs(heard[first]) < 2000) first++;
    first += RATE / 5; /* skip the start of the tone */
    for (size_t i = first + 1; i < first + RATE && i < sizeof heard / sizeof heard[0]; i++, n++) {
        if ((heard[i - 1] < 0) != (heard[i] < 0)) crossings++;
        energy += (double)heard[i] * heard[i];
    }
    if (n < RATE / 2) {
        printf("bob   heard nothing\n");
        return 0;
    }
    double hz = crossings / 2.0 / ((double)n / RATE);
    double dbfs = 10 * log10(energy / n) - 20 * log10(32768.0);
    printf("bob   heard a %.0f Hz tone at %.1f dBFS (alice sent %.0f Hz at %.1f dBFS)\n", hz, dbfs, TONE_HZ,
           20 * log10(TONE_AMPLITUDE / sqrt(2.0) / 32768.0));
    return fabs(hz - TONE_HZ) < 10;
}

/* What bob's engine reported about alice's audio. */
static void print_audio_events(user_t *u) {
    pthread_mutex_lock(&u->mutex);
    if (u->decoded_uid) printf("%-5s decoded uid %u's first audio %d ms after joining\n", u->name, u->decoded_uid, u->decoded_ms);
    printf("%-5s volume indication: loudest remote volume %u of 255\n", u->name, u->loudest);
    if (u->remote_reports > 0) {
        const agoraish_remote_audio_stats *r = &u->remote;
        printf("%-5s stats of uid %u: %d kbps, jitter buffer %d ms, end-to-end about %d ms, loss %d%%, "
               "%d frames from FEC, %d concealed, %d ms frozen\n",
               u->name, r->uid, r->received_bitrate, r->jitter_buffer_delay, r->end_to_end_delay, r->audio_loss_rate,
               r->fec_recovered_frames, r->concealed_frames, r->total_frozen_time);
    }
    if (u->remote_video_reports > 0) {
        const agoraish_remote_video_stats *v = &u->remote_video;
        printf("%-5s video stats of uid %u: %dx%d, %d kbps, %d fps decoded, %d fps rendered, loss %d%%, "
               "%d ms frozen of %d ms\n",
               u->name, v->uid, v->width, v->height, v->received_bitrate, v->decoder_output_frame_rate,
               v->renderer_output_frame_rate, v->packet_loss_rate, v->total_frozen_time, v->total_active_time);
    }
    pthread_mutex_unlock(&u->mutex);
}

int main(void) {
    agoraish_server_config server_config;
    agoraish_server_t *server;
    agoraish_engine_t *alice_engine = NULL, *bob_engine = NULL;
    user_t alice, bob;
    char url[128], call_id[128];
    size_t len = sizeof url;
    int build = 0, ok = 0, heard_ok = 0, rc;
    const char *version = agoraish_get_version(&build);

    printf("agoraish %s (build %d)\n", version, build);

    /* A channel server inside this process: 127.0.0.1, a free port, any app id. */
    memset(&server_config, 0, sizeof server_config);
    server_config.struct_size = sizeof server_config;
    server = agoraish_server_create(&server_config);
    if (!server || (rc = agoraish_server_start(server)) != 0 || (rc = agoraish_server_get_url(server, url, &len)) != 0) {
        rc = server ? rc : agoraish_get_last_error();
        fprintf(stderr, "cannot start the channel server: %d (%s)\n", rc, agoraish_get_error_description(rc));
        agoraish_server_release(server);
        return 1;
    }
    printf("channel server: %s\n", url);

    alice_engine = create_user(&alice, "alice", url);
    bob_engine = create_user(&bob, "bob", url);
    if (!alice_engine || !bob_engine) goto done;

    /* alice picks her uid; bob lets the server choose one (uid 0). */
    if ((rc = agoraish_engine_join_channel(alice_engine, NULL, CHANNEL, NULL, 1001)) != 0) {
        fprintf(stderr, "alice cannot join: %d (%s)\n", rc, agoraish_get_error_description(rc));
        goto done;
    }
    if (!WAIT_FOR(&alice, joined, 1)) goto done;
    printf("alice joined \"%s\" as uid %u (%d ms)\n", CHANNEL, alice.uid, alice.join_ms);

    if ((rc = agoraish_engine_join_channel(bob_engine, NULL, CHANNEL, NULL, 0)) != 0) {
        fprintf(stderr, "bob cannot join: %d (%s)\n", rc, agoraish_get_error_description(rc));
        goto done;
    }
    if (!WAIT_FOR(&bob, joined, 1)) goto done;
    printf("bob   joined \"%s\" as uid %u (%d ms)\n", CHANNEL, bob.uid, bob.join_ms);
    if (WAIT_FOR(&alice, peer_joined, bob.uid)) printf("alice sees uid %u join\n", bob.uid);
    if (WAIT_FOR(&bob, peer_joined, alice.uid)) printf("bob   sees uid %u, who was already there\n", alice.uid);
    len = sizeof call_id;
    if (agoraish_engine_get_call_id(alice_engine, call_id, &len) == 0) printf("alice's call id: %s\n", call_id);
    {
        /* bob renders alice's pictures into demo-out/received.y4m. */
        agoraish_video_canvas canvas;
        mkdir("demo-out", 0755);
        bob.y4m = fopen("demo-out/received.y4m", "wb");
        memset(&canvas, 0, sizeof canvas);
        canvas.struct_size = sizeof canvas;
        canvas.uid = alice.uid;
        canvas.on_frame = on_frame;
        canvas.user_data = &bob;
        agoraish_engine_setup_remote_video(bob_engine, &canvas);
        heard_ok = talk_and_listen(alice_engine, bob_engine);
        canvas.on_frame = NULL; /* unbind: no picture arrives after this returns */
        agoraish_engine_setup_remote_video(bob_engine, &canvas);
        if (bob.y4m) fclose(bob.y4m);
        bob.y4m = NULL;
        printf("bob   saw %d pictures of %dx%d from alice and wrote them to demo-out/received.y4m\n", bob.pictures,
               bob.picture_width, bob.picture_height);
        if (bob.pictures < TALK_SECONDS * 10) heard_ok = 0;
    }
    print_audio_events(&bob);

    agoraish_engine_leave_channel(bob_engine);
    if (WAIT_FOR(&bob, left, 1)) print_stats(&bob);
    if (WAIT_FOR(&alice, peer_left, bob.uid)) {
        printf("alice sees uid %u leave (%s)\n", bob.uid,
               alice.peer_left_reason == AGORAISH_USER_OFFLINE_QUIT ? "quit" : "dropped");
    }

    agoraish_engine_leave_channel(alice_engine);
    if (WAIT_FOR(&alice, left, 1)) {
        print_stats(&alice);
        ok = heard_ok;
    }

done:
    /* release(sync = 1): afterwards no callback runs, so the user_t may go. */
    if (alice_engine) agoraish_engine_release(alice_engine, 1);
    if (bob_engine) agoraish_engine_release(bob_engine, 1);
    agoraish_server_release(server);
    destroy_user(&alice);
    destroy_user(&bob);
    printf("%s\n", ok ? "done: both users joined, saw each other, talked and left" : "the call did not complete");
    return ok ? 0 : 1;
}
