/*
 * custom_audio_source.c — Agora 4.x's CustomAudioSource case in C: the host
 * sends audio of its own through a custom audio track instead of the
 * microphone.
 *
 *   create_custom_audio_track -> join_channel_with_options(publish_custom_audio_track,
 *   publish_custom_audio_track_id, publish_microphone_track 0)
 *   -> push_external_audio_frame_by_id every 10 ms, in real time
 *   -> adjust_custom_audio_publish_volume -> leave_channel
 *   -> destroy_custom_audio_track -> release
 *
 * "local" pushes a 440 Hz tone (48 kHz mono) into its track: one second at
 * publish volume 100, then one at 50. "remote", a second engine in the same
 * process, listens through an external sink and measures each second: the
 * same tone, the second one about 6 dB lower.
 *
 *   make hosts && build/examples/custom_audio_source
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

#define CHANNEL "custom-audio-source"
#define RATE 48000
#define CHUNK (RATE / 100) /* 10 ms */
#define TONE_HZ 440.0
#define PI 3.14159265358979323846
#define SECONDS 2
#define LISTEN_CHUNKS (SECONDS * 100 + 60) /* the tone and 600 ms more */

/* ---- one user's events ----------------------------------------------------- */

static void on_first_local_audio_frame_published(agoraish_engine_t *e, void *ud, int elapsed) {
    example_user *u = ud;
    (void)e;
    say(u->name, "on_first_local_audio_frame_published, %d ms", elapsed);
}

static void on_remote_audio_state_changed(agoraish_engine_t *e, void *ud, uint32_t uid, int state, int reason,
                                          int elapsed) {
    example_user *u = ud;
    (void)e;
    say(u->name, "on_remote_audio_state_changed uid %u %s (%s), %d ms", uid, remote_state_name(state),
        remote_reason_name(reason), elapsed);
}

static agoraish_engine_t *create_user(example_user *u, const char *name, const char *server_url) {
    agoraish_event_handler handler;
    memset(u, 0, sizeof *u);
    example_user_init(u, name);
    example_handler(&handler, u);
    handler.on_first_local_audio_frame_published = on_first_local_audio_frame_published;
    handler.on_remote_audio_state_changed = on_remote_audio_state_changed;
    return example_create_engine(u, &handler, server_url);
}

/* ---- the pushing thread: 10 ms of the tone every 10 ms ------------------------ */

typedef struct {
    agoraish_engine_t *engine;
    int32_t track;
    int failures; /* pushes that did not return 0 */
} pusher_t;

static void *push_tone(void *arg) {
    pusher_t *p = arg;
    int16_t chunk[CHUNK];
    struct timespec start;
    long n = 0;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int k = 0; k < SECONDS * 100; k++) {
        if (k == 100) {
            /* The second second at half the amplitude: about -6 dB. */
            int rc = agoraish_engine_adjust_custom_audio_publish_volume(p->engine, p->track, 50);
            say("local", "adjust_custom_audio_publish_volume(track %d, 50) = %d", p->track, rc);
        }
        for (int i = 0; i < CHUNK; i++, n++) chunk[i] = (int16_t)(8000 * sin(2 * PI * TONE_HZ * (double)n / RATE));
        if (agoraish_engine_push_external_audio_frame_by_id(p->engine, p->track, chunk, CHUNK, RATE, 1) != 0) {
            p->failures++;
        }
        sleep_until(&start, (k + 1) * 10);
    }
    return NULL;
}

/* ---- what remote heard --------------------------------------------------------- */

/* Frequency and level of a tone (example_support.h). */
typedef example_tone tone_t;

static tone_t analyze(const int16_t *pcm, size_t count) { return example_analyze_tone(pcm, count, RATE); }

int main(void) {
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    example_user local, remote;
    agoraish_channel_media_options options;
    pusher_t pusher;
    pthread_t pusher_thread;
    struct timespec start;
    static int16_t heard[LISTEN_CHUNKS * CHUNK];
    int32_t track = 0;
    long onset = 0;
    char url[128];
    int ok = 0, rc, pushing = 0;
    tone_t loud = {0, -120}, quiet = {0, -120};

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);
    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(&local, "local", url);
    remote_engine = create_user(&remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;

    /* local: a custom audio track, published instead of the microphone. Nothing
     * it would hear matters here, so its playout goes to ALSA's "null". */
    rc = agoraish_engine_create_custom_audio_track(local_engine, AGORAISH_AUDIO_TRACK_MIXABLE, &track);
    say("local", "create_custom_audio_track(MIXABLE) = %d, track %d", rc, track);
    if (rc != 0) goto done;
    agoraish_engine_set_playback_device(local_engine, "null");
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.has_publish_microphone_track = 1;
    options.publish_microphone_track = 0;
    options.has_publish_custom_audio_track = 1;
    options.publish_custom_audio_track = 1;
    options.has_publish_custom_audio_track_id = 1;
    options.publish_custom_audio_track_id = track;
    rc = agoraish_engine_join_channel_with_options(local_engine, NULL, CHANNEL, 0, &options);
    say("local", "join_channel_with_options(\"%s\", publish track %d) = %d", CHANNEL, track, rc);
    if (rc != 0 || !example_wait(&local, example_is_joined, "join")) goto done;

    /* remote only listens: it pulls what it hears and sends nothing. */
    agoraish_engine_set_external_audio_sink(remote_engine, 1, RATE, 1);
    agoraish_engine_enable_local_audio(remote_engine, 0);
    rc = agoraish_engine_join_channel(remote_engine, NULL, CHANNEL, NULL, 0);
    if (rc != 0 || !example_wait(&remote, example_is_joined, "join") ||
        !example_wait(&remote, example_sees_peer, "remote user") || !example_wait(&local, example_sees_peer, "remote user")) {
        goto done;
    }

    /* local pushes in real time while remote pulls 10 ms every 10 ms. */
    memset(&pusher, 0, sizeof pusher);
    pusher.engine = local_engine;
    pusher.track = track;
    pushing = pthread_create(&pusher_thread, NULL, push_tone, &pusher) == 0;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 0; k < LISTEN_CHUNKS; k++) {
        agoraish_engine_pull_playback_audio_frame(remote_engine, heard + k * CHUNK, CHUNK);
        sleep_until(&start, (k + 1) * 10);
    }
    if (pushing) pthread_join(pusher_thread, NULL);
    say("local", "%d s pushed, %d pushes failed", SECONDS, pusher.failures);

    if (!example_part(local_engine, &local, remote_engine, &remote)) goto done;
    rc = agoraish_engine_destroy_custom_audio_track(local_engine, track);
    say("local", "destroy_custom_audio_track(%d) = %d", track, rc);

    /* Each second from the moment sound arrived, without its first and last 150 ms. */
    while (onset < LISTEN_CHUNKS * CHUNK && abs(heard[onset]) < 500) onset++;
    if (onset + 2L * RATE <= LISTEN_CHUNKS * CHUNK) {
        loud = analyze(heard + onset + RATE * 15 / 100, RATE * 70 / 100);
        quiet = analyze(heard + onset + RATE + RATE * 15 / 100, RATE * 70 / 100);
        say("remote", "second 1 (volume 100): %.0f Hz at %.1f dBFS", loud.hz, loud.dbfs);
        say("remote", "second 2 (volume 50): %.0f Hz at %.1f dBFS, %.1f dB lower", quiet.hz, quiet.dbfs,
            loud.dbfs - quiet.dbfs);
        ok = fabs(loud.hz - TONE_HZ) < 10 && fabs(quiet.hz - TONE_HZ) < 10 && fabs(loud.dbfs - quiet.dbfs - 6.0) < 2.0 &&
             pusher.failures == 0;
    } else {
        say("remote", "heard nothing");
    }

done:
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local);
    example_user_destroy(&remote);
    return example_finish(ok, "done: remote heard the custom track at both publish volumes");
}
