/*
 * spatial_audio.c — Agora's SpatialAudio case in C: a remote voice placed
 * around the listener and rendered for two ears.
 *
 *   set_external_audio_sink(48000, 2 channels) -> spatial_audio_initialize
 *   -> spatial_audio_update_self_position, set_distance_unit, set_audio_recv_range
 *   -> join_channel -> spatial_audio_update_remote_position(front, right, back, left, far)
 *   -> pull_playback_audio_frame (stereo) every 10 ms
 *   -> spatial_audio_release -> leave_channel -> release
 *
 * "speaker" pushes a tone (40 harmonics of 200 Hz) into its external audio
 * source, sent with the music profile. "listener", a second engine in the
 * same process, stands at the origin facing +x (right +y, up +z), hears up
 * to 20 m, and pulls what it hears in stereo from its external sink. It puts
 * the speaker 1 m in front of it, on its right, behind it, on its left, then
 * 30 m away, and measures the level in each ear and the interaural level
 * difference (ILD, right minus left): about 0 dB in front and behind,
 * positive on the right, negative on the left, and silence out of range
 * (the server no longer forwards the speaker).
 *
 *   make hosts && build/examples/spatial_audio
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "spatial-audio"
#define PI 3.14159265358979323846
#define RATE 48000
#define CHUNK (RATE / 100) /* 10 ms per channel */
#define SETTLE_MS 600      /* after a move, until what is heard has it */
#define LISTEN_MS 1000     /* each place's measure */
#define RANGE 20.0f        /* how far the listener hears, m */
#define PLACES 5

/* ---- the speaker's voice: a tone, 10 ms every 10 ms --------------------------------------- */

static int16_t tone[CHUNK]; /* two periods of 200 Hz */

/* 40 harmonics of 200 Hz (200 Hz .. 8 kHz) of equal level, with Schroeder's phases (a low
 * crest factor), at -26 dBFS: broadband, as the ears' level difference grows with frequency. */
static void make_tone(void) {
    for (int n = 0; n < CHUNK; n++) {
        double sum = 0;
        for (int k = 1; k <= 40; k++) sum += 367 * sin(2 * PI * 200.0 * k * n / RATE + PI * k * (k - 1) / 40);
        tone[n] = (int16_t)lround(sum);
    }
}

typedef struct {
    agoraish_engine_t *engine;
    pthread_mutex_t mutex;
    int stopping; /* guarded by mutex */
} speaker_t;

static void *speak(void *arg) {
    speaker_t *s = arg;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 0;; k++) {
        int stopping;
        pthread_mutex_lock(&s->mutex);
        stopping = s->stopping;
        pthread_mutex_unlock(&s->mutex);
        if (stopping) return NULL;
        agoraish_engine_push_external_audio_frame(s->engine, tone, CHUNK);
        sleep_until(&start, (k + 1) * 10);
    }
}

/* ---- what the listener hears ------------------------------------------------------------- */

/* Pulls SETTLE_MS then LISTEN_MS of stereo in real time, 10 ms every 10 ms (`*ticks` since
 * `start`), and gives the level of each ear over LISTEN_MS (dBFS; -120 for silence). */
static int listen_ears(agoraish_engine_t *engine, const struct timespec *start, long *ticks, double dbfs[2]) {
    int16_t frame[2 * CHUNK];
    double energy[2] = {0, 0};
    for (int k = 0; k < (SETTLE_MS + LISTEN_MS) / 10; k++) {
        int rc = agoraish_engine_pull_playback_audio_frame(engine, frame, CHUNK);
        if (rc != 0) {
            say("listener", "pull_playback_audio_frame = %d", rc);
            return 0;
        }
        if (k >= SETTLE_MS / 10) {
            for (int i = 0; i < 2 * CHUNK; i++) energy[i % 2] += (double)frame[i] * frame[i]; /* left, right */
        }
        sleep_until(start, ++*ticks * 10);
    }
    for (int ear = 0; ear < 2; ear++) {
        double mean = energy[ear] / (LISTEN_MS / 10 * CHUNK);
        dbfs[ear] = mean > 0 ? fmax(-120, 10 * log10(mean) - 20 * log10(32768.0)) : -120;
    }
    return 1;
}

int main(void) {
    static const struct {
        const char *name;
        float position[3];
    } places[PLACES] = {{"front", {1, 0, 0}},  {"right", {0, 1, 0}},     {"back", {-1, 0, 0}},
                        {"left", {0, -1, 0}}, {"out of range", {30, 0, 0}}};
    static const float origin[3] = {0, 0, 0}, forward[3] = {1, 0, 0}, right[3] = {0, 1, 0}, up[3] = {0, 0, 1};
    agoraish_server_t *server = NULL;
    agoraish_engine_t *listener_engine = NULL, *speaker_engine = NULL;
    agoraish_event_handler handler;
    example_user listener, speaker;
    speaker_t voice = {NULL, PTHREAD_MUTEX_INITIALIZER, 0};
    pthread_t speaker_thread;
    struct timespec start;
    double ild[PLACES], level[PLACES][2];
    long ticks = 0;
    uint32_t uid;
    char url[128];
    int ok = 0, talking = 0, spatial = 0, rc;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&listener, 0, sizeof listener);
    memset(&speaker, 0, sizeof speaker);
    make_tone();
    if (!(server = example_start_server(url, sizeof url))) goto done;
    example_user_init(&listener, "listener");
    example_user_init(&speaker, "speaker");
    example_handler(&handler, &listener);
    listener_engine = example_create_engine(&listener, &handler, url);
    example_handler(&handler, &speaker);
    speaker_engine = example_create_engine(&speaker, &handler, url);
    if (!listener_engine || !speaker_engine) goto done;

    /* The listener hears in stereo and says nothing; its spatial audio engine places the speaker. */
    agoraish_engine_set_external_audio_sink(listener_engine, 1, RATE, 2);
    agoraish_engine_enable_local_audio(listener_engine, 0);
    rc = agoraish_spatial_audio_initialize(listener_engine);
    say("listener", "spatial_audio_initialize = %d", rc);
    if (rc != 0) goto done;
    spatial = 1;
    rc = agoraish_spatial_audio_update_self_position(listener_engine, origin, forward, right, up);
    if (rc == 0) rc = agoraish_spatial_audio_set_distance_unit(listener_engine, 1.0f);
    if (rc == 0) rc = agoraish_spatial_audio_set_audio_recv_range(listener_engine, RANGE);
    say("listener", "at the origin facing +x, 1 unit = 1 m, hears %.0f m: %d", RANGE, rc);
    if (rc != 0) goto done;
    agoraish_engine_set_audio_profile(speaker_engine, AGORAISH_AUDIO_PROFILE_MUSIC_STANDARD); /* 48 kHz, 64 kbps */
    agoraish_engine_set_external_audio_source(speaker_engine, 1, RATE, 1);
    agoraish_engine_set_playback_device(speaker_engine, "null");
    if (example_meet(CHANNEL, listener_engine, &listener, 0, speaker_engine, &speaker, 0) != 0) goto done;
    uid = example_peer(&listener);

    voice.engine = speaker_engine;
    talking = pthread_create(&speaker_thread, NULL, speak, &voice) == 0;
    if (!talking) goto done;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int p = 0; p < PLACES; p++) {
        const float *at = places[p].position;
        rc = agoraish_spatial_audio_update_remote_position(listener_engine, uid, at, NULL);
        if (rc != 0) say("listener", "spatial_audio_update_remote_position(%u) = %d", uid, rc);
        if (rc != 0 || !listen_ears(listener_engine, &start, &ticks, level[p])) goto done;
        ild[p] = level[p][1] - level[p][0];
        say("listener", "%s (%g, %g, %g): left %.1f dBFS, right %.1f dBFS, ILD %+.1f dB", places[p].name, at[0],
            at[1], at[2], level[p][0], level[p][1], ild[p]);
    }
    /* Heard at 1 m, balanced in front and behind, louder in the ear it is next to; silent out of range. */
    ok = level[0][0] > -50 && level[0][1] > -50 && fabs(ild[0]) <= 3 && ild[1] >= 6 && fabs(ild[2]) <= 3 &&
         ild[3] <= -6 && level[4][0] <= -60 && level[4][1] <= -60;
    if (!ok) say("listener", "not as expected");

done:
    if (talking) {
        pthread_mutex_lock(&voice.mutex);
        voice.stopping = 1;
        pthread_mutex_unlock(&voice.mutex);
        pthread_join(speaker_thread, NULL);
    }
    if (spatial) say("listener", "spatial_audio_release = %d", agoraish_spatial_audio_release(listener_engine));
    if (ok) ok = example_part(listener_engine, &listener, speaker_engine, &speaker);
    if (listener_engine) agoraish_engine_release(listener_engine, 1);
    if (speaker_engine) agoraish_engine_release(speaker_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&listener);
    example_user_destroy(&speaker);
    return example_finish(ok,
                          "done: listener heard the speaker in front, right, behind and left, and not out of range");
}
