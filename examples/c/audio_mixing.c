/*
 * audio_mixing.c — Agora's AudioMixing case in C: music and sound effects
 * mixed into what a user says.
 *
 *   set_external_audio_source -> join_channel -> push_external_audio_frame every 10 ms
 *   -> start_audio_mixing(music) -> on_audio_mixing_state_changed(PLAYING, OK)
 *   -> adjust_audio_mixing_publish_volume, get_audio_mixing_*_volume
 *   -> set_audio_mixing_pitch -> pause_audio_mixing / resume_audio_mixing
 *   -> play_effect(publish 1) -> on_audio_effect_finished
 *   -> stop_audio_mixing -> on_audio_mixing_state_changed(STOPPED, STOPPED_BY_USER)
 *   -> leave_channel -> release
 *
 * "local" talks: its "microphone" is an external audio source into which a
 * thread pushes a 400 Hz tone, 10 ms every 10 ms. It mixes in music, a 1 kHz
 * MP3 the example makes first with the ffmpeg command-line tool in
 * demo-out/audio_mixing_music.mp3, and later an effect, 1.5 kHz in
 * demo-out/audio_mixing_effect.wav. "remote", a second engine in the same
 * process, pulls what it hears from its external sink; local's own playout
 * (its external sink) plays the music too. Each step measures the level of
 * each frequency in what both heard: the voice and the music together at
 * remote, the music alone at local; the music's publish volume lowered
 * (remote hears it quieter, local does not); pitch +12 semitones (2 kHz
 * instead of 1 kHz); the music paused and resumed; the effect published with
 * the music.
 *
 *   make hosts && build/examples/audio_mixing
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

#define CHANNEL "audio-mixing"
#define PI 3.14159265358979323846
#define VOICE_HZ 400
#define MUSIC_HZ 1000
#define PITCHED_HZ 2000
#define EFFECT_HZ 1500
#define MUSIC "demo-out/audio_mixing_music.mp3"
#define EFFECT "demo-out/audio_mixing_effect.wav"
#define EFFECT_ID 1
#define EFFECT_MS 1000
#define SETTLE_MS 400    /* after a change, until what is heard has it */
#define LISTEN_MS 800    /* each step's measure */
#define HEARD_DBFS -40   /* a frequency at least this loud is heard ... */
#define SILENT_DBFS -60  /* ... and at most this loud is not */
#define MIXING_WAIT_SECONDS 10

static const int frequencies[4] = {VOICE_HZ, MUSIC_HZ, PITCHED_HZ, EFFECT_HZ};
enum { VOICE, MUSIC_TONE, PITCHED, EFFECT_TONE };

/* ---- one user's events ------------------------------------------------------------ */

typedef struct {
    example_user base; /* first, so the handler's user_data is both */
    /* Guarded by base.mutex. */
    int mixing_states[32], mixing_reasons[32], mixing_count;
    int effect_finished;
} user_t;

static void on_first_remote_audio_decoded(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_remote_audio_decoded uid %u, %d ms", uid, elapsed);
}

static const char *mixing_state_name(int state) {
    switch (state) {
    case AGORAISH_AUDIO_MIXING_STATE_PLAYING: return "PLAYING";
    case AGORAISH_AUDIO_MIXING_STATE_PAUSED: return "PAUSED";
    case AGORAISH_AUDIO_MIXING_STATE_STOPPED: return "STOPPED";
    case AGORAISH_AUDIO_MIXING_STATE_FAILED: return "FAILED";
    default: return "?";
    }
}

static const char *mixing_reason_name(int reason) {
    switch (reason) {
    case AGORAISH_AUDIO_MIXING_REASON_OK: return "OK";
    case AGORAISH_AUDIO_MIXING_REASON_CAN_NOT_OPEN: return "CAN_NOT_OPEN";
    case AGORAISH_AUDIO_MIXING_REASON_TOO_FREQUENT_CALL: return "TOO_FREQUENT_CALL";
    case AGORAISH_AUDIO_MIXING_REASON_INTERRUPTED_EOF: return "INTERRUPTED_EOF";
    case AGORAISH_AUDIO_MIXING_REASON_ONE_LOOP_COMPLETED: return "ONE_LOOP_COMPLETED";
    case AGORAISH_AUDIO_MIXING_REASON_ALL_LOOPS_COMPLETED: return "ALL_LOOPS_COMPLETED";
    case AGORAISH_AUDIO_MIXING_REASON_STOPPED_BY_USER: return "STOPPED_BY_USER";
    case AGORAISH_AUDIO_MIXING_REASON_PAUSED_BY_USER: return "PAUSED_BY_USER";
    case AGORAISH_AUDIO_MIXING_REASON_RESUMED_BY_USER: return "RESUMED_BY_USER";
    default: return "?";
    }
}

static void on_audio_mixing_state_changed(agoraish_engine_t *e, void *ud, int state, int reason) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_audio_mixing_state_changed %s (%s)", mixing_state_name(state), mixing_reason_name(reason));
    example_lock(&u->base);
    if (u->mixing_count < 32) {
        u->mixing_states[u->mixing_count] = state;
        u->mixing_reasons[u->mixing_count++] = reason;
    }
    example_changed(&u->base);
}

static void on_audio_effect_finished(agoraish_engine_t *e, void *ud, int sound_id) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_audio_effect_finished %d", sound_id);
    example_lock(&u->base);
    if (sound_id == EFFECT_ID) u->effect_finished = 1;
    example_changed(&u->base);
}

static agoraish_engine_t *create_user(user_t *u, const char *name, const char *server_url) {
    agoraish_event_handler handler;
    memset(u, 0, sizeof *u);
    example_user_init(&u->base, name);
    example_handler(&handler, &u->base);
    handler.on_first_remote_audio_decoded = on_first_remote_audio_decoded;
    handler.on_audio_mixing_state_changed = on_audio_mixing_state_changed;
    handler.on_audio_effect_finished = on_audio_effect_finished;
    return example_create_engine(&u->base, &handler, server_url);
}

/* Waits for the mixing state `state` with `reason`; 1 when it came. */
static int wait_mixing(user_t *u, int state, int reason) {
    struct timespec deadline;
    int seen = 0;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += MIXING_WAIT_SECONDS;
    example_lock(&u->base);
    for (;;) {
        for (int i = 0; i < u->mixing_count && !seen; i++) {
            seen = u->mixing_states[i] == state && u->mixing_reasons[i] == reason;
        }
        if (seen || pthread_cond_timedwait(&u->base.cond, &u->base.mutex, &deadline) == ETIMEDOUT) break;
    }
    example_unlock(&u->base);
    if (!seen) say(u->base.name, "no %s (%s) within %d s", mixing_state_name(state), mixing_reason_name(reason),
                   MIXING_WAIT_SECONDS);
    return seen;
}

static int effect_finished(const example_user *u) { return ((const user_t *)u)->effect_finished; }

/* ---- local's microphone: a tone pushed 10 ms every 10 ms ------------------------------------ */

typedef struct {
    agoraish_engine_t *engine;
    pthread_mutex_t mutex;
    int stopping; /* guarded by mutex */
} microphone_t;

static void *microphone(void *arg) {
    microphone_t *m = arg;
    int16_t chunk[480];
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 0;; k++) {
        int stopping;
        pthread_mutex_lock(&m->mutex);
        stopping = m->stopping;
        pthread_mutex_unlock(&m->mutex);
        if (stopping) return NULL;
        for (int i = 0; i < 480; i++) {
            chunk[i] = (int16_t)(8000 * sin(2 * PI * VOICE_HZ * (double)(k * 480 + i) / 48000));
        }
        agoraish_engine_push_external_audio_frame(m->engine, chunk, 480);
        sleep_until(&start, (k + 1) * 10);
    }
}

/* ---- what the users hear ------------------------------------------------------------------ */

typedef struct {
    double remote[4], local[4]; /* dBFS of each of `frequencies` */
} levels_t;

/* After SETTLE_MS, the level of each frequency remote and local hear for `listen_ms`, said. */
static int measure(example_ears *ears, const char *what, int listen_ms, levels_t *levels) {
    static int16_t heard_local[EXAMPLE_EARS_RATE], heard_remote[EXAMPLE_EARS_RATE];
    int16_t *const heard[2] = {heard_local, heard_remote};
    size_t count = (size_t)listen_ms * (EXAMPLE_EARS_RATE / 1000);
    if (!example_ears_listen(ears, SETTLE_MS, heard) || !example_ears_listen(ears, listen_ms, heard)) return 0;
    for (int i = 0; i < 4; i++) {
        levels->remote[i] = example_tone_level(heard_remote, count, frequencies[i], EXAMPLE_EARS_RATE);
        levels->local[i] = example_tone_level(heard_local, count, frequencies[i], EXAMPLE_EARS_RATE);
    }
    say("remote", "%s: %d Hz %.0f, %d Hz %.0f, %d Hz %.0f, %d Hz %.0f dBFS", what, VOICE_HZ, levels->remote[0],
        MUSIC_HZ, levels->remote[1], PITCHED_HZ, levels->remote[2], EFFECT_HZ, levels->remote[3]);
    say("local", "%s: %d Hz %.0f, %d Hz %.0f, %d Hz %.0f, %d Hz %.0f dBFS", what, VOICE_HZ, levels->local[0],
        MUSIC_HZ, levels->local[1], PITCHED_HZ, levels->local[2], EFFECT_HZ, levels->local[3]);
    return 1;
}

int main(void) {
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    microphone_t mic = {NULL, PTHREAD_MUTEX_INITIALIZER, 0};
    pthread_t talker;
    example_ears ears;
    user_t local, remote;
    levels_t voice, mixed, quieter, pitched, paused, effect;
    char url[128];
    const char *failed = "the call";
    int ok = 0, talking = 0, listening = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);
    memset(&ears, 0, sizeof ears);

    say("ffmpeg", "making %s (%d Hz, 10 s) and %s (%d Hz, 1 s)", MUSIC, MUSIC_HZ, EFFECT, EFFECT_HZ);
    if (!example_ffmpeg(MUSIC, "-f lavfi -i sine=frequency=1000:sample_rate=48000:duration=10 -c:a libmp3lame "
                               "-b:a 96k") ||
        !example_ffmpeg(EFFECT, "-f lavfi -i sine=frequency=1500:sample_rate=48000:duration=1 -c:a pcm_s16le")) {
        return example_finish(0, "");
    }

    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(&local, "local", url);
    remote_engine = create_user(&remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;

    agoraish_engine_set_external_audio_source(local_engine, 1, 48000, 1);
    agoraish_engine_set_external_audio_sink(local_engine, 1, EXAMPLE_EARS_RATE, 1);
    agoraish_engine_set_external_audio_sink(remote_engine, 1, EXAMPLE_EARS_RATE, 1);
    agoraish_engine_enable_local_audio(remote_engine, 0); /* remote only listens */
    if (example_meet(CHANNEL, local_engine, &local.base, 0, remote_engine, &remote.base, 0) != 0) goto done;

    say("local", "get_effect_duration(%s) = %d ms", EFFECT, agoraish_engine_get_effect_duration(local_engine, EFFECT));
    mic.engine = local_engine;
    talking = pthread_create(&talker, NULL, microphone, &mic) == 0;
    {
        agoraish_engine_t *const engines[2] = {local_engine, remote_engine};
        listening = example_ears_start(&ears, engines, 2) == 0;
    }
    if (!talking || !listening) goto done;

    failed = "the voice alone";
    if (!measure(&ears, "the voice alone", LISTEN_MS, &voice) || voice.remote[VOICE] <= HEARD_DBFS ||
        voice.remote[MUSIC_TONE] >= SILENT_DBFS) {
        goto done;
    }

    failed = "voice and music";
    say("local", "start_audio_mixing(%s, loopback 0, cycle 1) = %d", MUSIC,
        agoraish_engine_start_audio_mixing(local_engine, MUSIC, 0, 1, 0));
    if (!wait_mixing(&local, AGORAISH_AUDIO_MIXING_STATE_PLAYING, AGORAISH_AUDIO_MIXING_REASON_OK)) goto done;
    say("local", "get_audio_mixing_duration() = %d ms", agoraish_engine_get_audio_mixing_duration(local_engine));
    if (!measure(&ears, "voice and music", LISTEN_MS, &mixed) || mixed.remote[VOICE] <= HEARD_DBFS ||
        mixed.remote[MUSIC_TONE] <= HEARD_DBFS || mixed.local[MUSIC_TONE] <= HEARD_DBFS ||
        mixed.local[VOICE] >= SILENT_DBFS) {
        goto done;
    }

    failed = "the publish volume";
    agoraish_engine_adjust_audio_mixing_publish_volume(local_engine, 25);
    say("local", "adjust_audio_mixing_publish_volume(25): publish volume %d, playout volume %d",
        agoraish_engine_get_audio_mixing_publish_volume(local_engine),
        agoraish_engine_get_audio_mixing_playout_volume(local_engine));
    if (!measure(&ears, "publish volume 25", LISTEN_MS, &quieter)) goto done;
    {
        double drop = mixed.remote[MUSIC_TONE] - quieter.remote[MUSIC_TONE];
        double local_drop = mixed.local[MUSIC_TONE] - quieter.local[MUSIC_TONE];
        say("remote", "the music is %.1f dB quieter (a volume of 25 is 12 dB); local's only %.1f dB", drop,
            local_drop);
        if (!(drop > 8 && drop < 16 && fabs(local_drop) < 2)) goto done;
    }
    agoraish_engine_adjust_audio_mixing_volume(local_engine, 100);

    failed = "the pitch";
    agoraish_engine_set_audio_mixing_pitch(local_engine, 12);
    say("local", "adjust_audio_mixing_volume(100), set_audio_mixing_pitch(12): an octave up");
    if (!measure(&ears, "pitch +12", LISTEN_MS, &pitched) || pitched.remote[PITCHED] <= HEARD_DBFS ||
        pitched.remote[MUSIC_TONE] >= pitched.remote[PITCHED] - 20) {
        goto done;
    }
    agoraish_engine_set_audio_mixing_pitch(local_engine, 0);

    failed = "the pause";
    agoraish_engine_pause_audio_mixing(local_engine);
    if (!wait_mixing(&local, AGORAISH_AUDIO_MIXING_STATE_PAUSED, AGORAISH_AUDIO_MIXING_REASON_PAUSED_BY_USER)) {
        goto done;
    }
    say("local", "pause_audio_mixing() at %d ms", agoraish_engine_get_audio_mixing_current_position(local_engine));
    if (!measure(&ears, "music paused", LISTEN_MS, &paused) || paused.remote[VOICE] <= HEARD_DBFS ||
        paused.remote[MUSIC_TONE] >= SILENT_DBFS) {
        goto done;
    }

    failed = "the effect";
    agoraish_engine_resume_audio_mixing(local_engine);
    if (!wait_mixing(&local, AGORAISH_AUDIO_MIXING_STATE_PLAYING, AGORAISH_AUDIO_MIXING_REASON_RESUMED_BY_USER)) {
        goto done;
    }
    say("local", "resume_audio_mixing(), play_effect(%d, %s, publish 1) = %d; effects volume %d", EFFECT_ID, EFFECT,
        agoraish_engine_play_effect(local_engine, EFFECT_ID, EFFECT, 0, 1.0, 0.0, 100, 1, 0),
        agoraish_engine_get_effects_volume(local_engine));
    if (!measure(&ears, "voice, music and effect", EFFECT_MS - SETTLE_MS, &effect) ||
        effect.remote[VOICE] <= HEARD_DBFS || effect.remote[MUSIC_TONE] <= HEARD_DBFS ||
        effect.remote[EFFECT_TONE] <= HEARD_DBFS) {
        goto done;
    }
    if (!example_wait(&local.base, effect_finished, "on_audio_effect_finished")) goto done;

    failed = "the stop";
    agoraish_engine_stop_audio_mixing(local_engine);
    if (!wait_mixing(&local, AGORAISH_AUDIO_MIXING_STATE_STOPPED, AGORAISH_AUDIO_MIXING_REASON_STOPPED_BY_USER)) {
        goto done;
    }
    failed = NULL;

done:
    example_ears_stop(&ears);
    if (talking) {
        pthread_mutex_lock(&mic.mutex);
        mic.stopping = 1;
        pthread_mutex_unlock(&mic.mutex);
        pthread_join(talker, NULL);
    }
    if (!failed) ok = example_part(local_engine, &local.base, remote_engine, &remote.base);
    else say("local", "not as expected: %s", failed);
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local.base);
    example_user_destroy(&remote.base);
    return example_finish(ok,
                          "done: remote heard the voice with the music, its volume, pitch and pause, and the effect");
}
