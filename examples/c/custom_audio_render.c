/*
 * custom_audio_render.c — Agora's CustomAudioRender case in C: the host
 * plays what a user hears, instead of a speaker.
 *
 *   set_external_audio_sink(rate, channels) -> join_channel
 *   -> pull_playback_audio_frame every 10 ms, in real time
 *   -> on_first_remote_audio_decoded, on_user_mute_audio,
 *      on_remote_audio_state_changed -> leave_channel -> release
 *
 * "local" renders: it pulls 10 ms of 44.1 kHz stereo every 10 ms (the pull
 * cadence is its playout clock; the engine mixes every remote user, converts
 * the 48 kHz mix to the sink's format and conceals losses) and writes what it
 * pulled to demo-out/custom_audio_render.wav, as a player would hand it to a
 * sound card. "remote", a second engine in the same process, talks: it pushes
 * a 523 Hz tone (C5) and mutes itself for one second in the middle
 * (mute_local_audio_stream), which the WAV shows as a gap. At the end the
 * example reads the WAV's tone, level and gap.
 *
 *   make hosts && build/examples/custom_audio_render
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define APP_ID "0123456789abcdef0123456789abcdef"
#define CHANNEL "custom-audio-render"
#define PI 3.14159265358979323846
#define SINK_RATE 44100               /* what local renders */
#define SINK_CHANNELS 2
#define SINK_FRAME (SINK_RATE / 100)  /* 10 ms, per channel */
#define TONE_HZ 523.25                /* what remote says */
#define TONE_AMPLITUDE 8000.0
#define TALK_MS 4000
#define MUTE_FROM_MS 1500             /* remote mutes itself from here ... */
#define MUTE_TO_MS 2500               /* ... to here */
#define LISTEN_MS 4500
#define WAIT_SECONDS 5

/* ---- one user's events ----------------------------------------------------- */

typedef struct {
    const char *name;
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    /* Guarded by mutex. */
    int joined, left;
    uint32_t uid, peer;
} user_t;

static void update(user_t *u, int *field, int value) {
    pthread_mutex_lock(&u->mutex);
    *field = value;
    pthread_cond_broadcast(&u->cond);
    pthread_mutex_unlock(&u->mutex);
}

static void on_join_channel_success(agoraish_engine_t *e, void *ud, const char *channel, uint32_t uid, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->name, "on_join_channel_success \"%s\" uid %u, %d ms", channel, uid, elapsed);
    pthread_mutex_lock(&u->mutex);
    u->uid = uid;
    pthread_mutex_unlock(&u->mutex);
    update(u, &u->joined, 1);
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
    update(u, &u->left, 1);
}

static void on_error(agoraish_engine_t *e, void *ud, int err, const char *msg) {
    user_t *u = ud;
    (void)e;
    say(u->name, "on_error %d: %s", err, msg);
}

static void on_local_audio_state_changed(agoraish_engine_t *e, void *ud, int state, int error) {
    user_t *u = ud;
    (void)e;
    say(u->name, "on_local_audio_state_changed %s (error %d)", local_state_name(state), error);
}

static void on_first_local_audio_frame_published(agoraish_engine_t *e, void *ud, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->name, "on_first_local_audio_frame_published, %d ms", elapsed);
}

static void on_user_mute_audio(agoraish_engine_t *e, void *ud, uint32_t uid, int muted) {
    user_t *u = ud;
    (void)e;
    say(u->name, "on_user_mute_audio uid %u %s", uid, muted ? "muted" : "unmuted");
}

static void on_first_remote_audio_frame(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->name, "on_first_remote_audio_frame uid %u, %d ms", uid, elapsed);
}

static void on_first_remote_audio_decoded(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->name, "on_first_remote_audio_decoded uid %u, %d ms", uid, elapsed);
}

static void on_remote_audio_state_changed(agoraish_engine_t *e, void *ud, uint32_t uid, int state, int reason,
                                          int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->name, "on_remote_audio_state_changed uid %u %s (%s), %d ms", uid, remote_state_name(state),
        remote_reason_name(reason), elapsed);
}

static void on_remote_audio_stats(agoraish_engine_t *e, void *ud, const agoraish_remote_audio_stats *s) {
    user_t *u = ud;
    (void)e;
    say(u->name,
        "on_remote_audio_stats uid %u: %d kbps, loss %d %%, jitter buffer %d ms, end to end %d ms, "
        "concealed %d, active %d ms, frozen %d ms",
        s->uid, s->received_bitrate, s->audio_loss_rate, s->jitter_buffer_delay, s->end_to_end_delay,
        s->concealed_frames, s->total_active_time, s->total_frozen_time);
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
    handler.on_local_audio_state_changed = on_local_audio_state_changed;
    handler.on_first_local_audio_frame_published = on_first_local_audio_frame_published;
    handler.on_user_mute_audio = on_user_mute_audio;
    handler.on_first_remote_audio_frame = on_first_remote_audio_frame;
    handler.on_first_remote_audio_decoded = on_first_remote_audio_decoded;
    handler.on_remote_audio_state_changed = on_remote_audio_state_changed;
    handler.on_remote_audio_stats = on_remote_audio_stats;

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

/* ---- the remote user: 10 ms of tone every 10 ms, muted for a while --------------- */

static void *talk(void *engine) {
    int16_t frame[480];
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 0; k < TALK_MS / 10; k++) {
        if (k * 10 == MUTE_FROM_MS || k * 10 == MUTE_TO_MS) {
            int mute = k * 10 == MUTE_FROM_MS;
            int rc = agoraish_engine_mute_local_audio_stream((agoraish_engine_t *)engine, mute);
            say("remote", "mute_local_audio_stream(%d) = %d", mute, rc);
        }
        for (int i = 0; i < 480; i++) {
            frame[i] = (int16_t)(TONE_AMPLITUDE * sin(2 * PI * TONE_HZ * (double)(k * 480 + i) / 48000));
        }
        agoraish_engine_push_external_audio_frame((agoraish_engine_t *)engine, frame, 480);
        sleep_until(&start, (k + 1) * 10);
    }
    return NULL;
}

/* ---- the WAV file and what is in it --------------------------------------------- */

static void put_le(FILE *f, uint32_t v, int bytes) {
    for (int i = 0; i < bytes; i++) fputc((int)((v >> (8 * i)) & 0xFF), f);
}

/* A 16-bit PCM WAV file (RIFF), interleaved. */
static int write_wav(const char *path, const int16_t *samples, long frames, int rate, int channels) {
    uint32_t bytes = (uint32_t)(frames * channels * 2);
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    fputs("RIFF", f);
    put_le(f, 36 + bytes, 4);
    fputs("WAVEfmt ", f);
    put_le(f, 16, 4);
    put_le(f, 1, 2);
    put_le(f, (uint32_t)channels, 2);
    put_le(f, (uint32_t)rate, 4);
    put_le(f, (uint32_t)(rate * channels * 2), 4);
    put_le(f, (uint32_t)(channels * 2), 2);
    put_le(f, 16, 2);
    fputs("data", f);
    put_le(f, bytes, 4);
    for (long i = 0; i < frames * channels; i++) put_le(f, (uint16_t)samples[i], 2);
    return fclose(f);
}

typedef struct {
    double hz, dbfs;
} tone_t;

/* Frequency (upward crossings of a hysteresis band) and level of one channel
 * (`count` frames of `channels` interleaved, starting at `pcm`). */
static tone_t analyze(const int16_t *pcm, long count, int channels) {
    tone_t t = {0, -120};
    double energy = 0, band;
    long crossings = 0;
    int high = 0;
    for (long i = 0; i < count; i++) energy += (double)pcm[i * channels] * pcm[i * channels];
    if (count <= 0 || energy <= 0) return t;
    band = sqrt(energy / (double)count) / 4;
    for (long i = 0; i < count; i++) {
        int16_t s = pcm[i * channels];
        if (!high && s > band) {
            high = 1;
            crossings++;
        } else if (high && s < -band) {
            high = 0;
        }
    }
    t.hz = (double)crossings / ((double)count / SINK_RATE);
    t.dbfs = 10 * log10(energy / (double)count) - 20 * log10(32768.0);
    return t;
}

/* Peak of the 10 ms block `k` (both channels). */
static int block_peak(const int16_t *pcm, long k) {
    int peak = 0;
    for (long i = k * SINK_FRAME * SINK_CHANNELS; i < (k + 1) * SINK_FRAME * SINK_CHANNELS; i++) {
        if (abs(pcm[i]) > peak) peak = abs(pcm[i]);
    }
    return peak;
}

int main(void) {
    static const char wav_path[] = "demo-out/custom_audio_render.wav";
    static int16_t played[LISTEN_MS / 10 * SINK_FRAME * SINK_CHANNELS];
    const long blocks = LISTEN_MS / 10;
    agoraish_server_config server_config;
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    user_t local, remote;
    pthread_t talker;
    struct timespec start;
    char url[128];
    size_t len = sizeof url;
    int ok = 0, rc, talking = 0, same = 1;
    long onset = -1, gap_from = -1, gap_blocks = 0, run = 0;

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

    /* local renders what it hears itself, and sends nothing. */
    rc = agoraish_engine_set_external_audio_sink(local_engine, 1, SINK_RATE, SINK_CHANNELS);
    say("local", "set_external_audio_sink(%d Hz, %d ch) = %d", SINK_RATE, SINK_CHANNELS, rc);
    if (rc != 0) goto done;
    agoraish_engine_enable_local_audio(local_engine, 0);

    /* remote talks through an external source; what it would hear goes to ALSA's "null". */
    agoraish_engine_set_external_audio_source(remote_engine, 1, 48000, 1);
    agoraish_engine_set_playback_device(remote_engine, "null");

    if ((rc = agoraish_engine_join_channel(local_engine, NULL, CHANNEL, NULL, 0)) != 0
        || !wait_until(&local, is_joined, "join")
        || (rc = agoraish_engine_join_channel(remote_engine, NULL, CHANNEL, NULL, 0)) != 0
        || !wait_until(&remote, is_joined, "join") || !wait_until(&local, sees_peer, "remote user")
        || !wait_until(&remote, sees_peer, "remote user")) {
        fprintf(stderr, "the users did not get together: %d (%s)\n", rc, agoraish_get_error_description(rc));
        goto done;
    }

    /* The render loop: 10 ms every 10 ms, as a sound card would ask for it. */
    talking = pthread_create(&talker, NULL, talk, remote_engine) == 0;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 0; k < blocks; k++) {
        rc = agoraish_engine_pull_playback_audio_frame(local_engine, played + k * SINK_FRAME * SINK_CHANNELS,
                                                       SINK_FRAME);
        if (rc != 0) say("local", "pull_playback_audio_frame = %d", rc);
        sleep_until(&start, (k + 1) * 10);
    }
    if (talking) pthread_join(talker, NULL);

    agoraish_engine_leave_channel(remote_engine);
    if (!wait_until(&remote, has_left, "leave") || !wait_until(&local, sees_nobody, "user offline")) goto done;
    agoraish_engine_leave_channel(local_engine);
    if (!wait_until(&local, has_left, "leave")) goto done;

    mkdir("demo-out", 0755);
    if (write_wav(wav_path, played, blocks * SINK_FRAME, SINK_RATE, SINK_CHANNELS) == 0) {
        say("local", "wrote what it rendered to %s (%d Hz, %d channels, %.1f s)", wav_path, SINK_RATE, SINK_CHANNELS,
            LISTEN_MS / 1000.0);
    }

    /* The WAV: where sound starts, the longest silence after it (the mute),
     * the tone before and after, and whether both channels are the same. */
    for (long k = 0; k < blocks; k++) {
        int loud = block_peak(played, k) > 1000;
        if (onset < 0) {
            if (loud) onset = k;
            continue;
        }
        run = loud ? 0 : run + 1;
        if (run > gap_blocks) {
            gap_blocks = run;
            gap_from = k - run + 1;
        }
    }
    for (long i = 0; i < blocks * SINK_FRAME; i++) same = same && played[2 * i] == played[2 * i + 1];
    if (onset >= 0 && gap_from > onset + 50) {
        tone_t before = analyze(played + (onset + 20) * SINK_FRAME * SINK_CHANNELS, (gap_from - onset - 40) * SINK_FRAME,
                                SINK_CHANNELS);
        long after_from = gap_from + gap_blocks + 20, after_count = blocks - after_from - 60;
        tone_t after = analyze(played + after_from * SINK_FRAME * SINK_CHANNELS,
                               after_count > 0 ? after_count * SINK_FRAME : 0, SINK_CHANNELS);
        say("local", "sound from %.2f s of the render: %.0f Hz at %.1f dBFS (remote sent %.0f Hz at %.1f dBFS)",
            onset / 100.0, before.hz, before.dbfs, TONE_HZ, 20 * log10(TONE_AMPLITUDE / sqrt(2.0) / 32768.0));
        say("local", "then %.2f s of silence from %.2f s (remote was muted for %.2f s), then %.0f Hz at %.1f dBFS",
            gap_blocks / 100.0, gap_from / 100.0, (MUTE_TO_MS - MUTE_FROM_MS) / 1000.0, after.hz, after.dbfs);
        say("local", "left and right channels are %s", same ? "the same (the mix is mono)" : "different");
        ok = fabs(before.hz - TONE_HZ) < 10 && fabs(after.hz - TONE_HZ) < 10
             && labs(gap_blocks * 10 - (MUTE_TO_MS - MUTE_FROM_MS)) < 300;
    } else {
        say("local", "rendered no tone with a gap");
    }

done:
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    destroy_user(&local);
    destroy_user(&remote);
    printf("%s\n", ok ? "done: local rendered remote's tone and its mute" : "the call did not go as expected");
    return ok ? 0 : 1;
}
