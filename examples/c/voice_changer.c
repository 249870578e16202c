/*
 * voice_changer.c — Agora's VoiceChanger case in C: noise suppression and
 * voice effects on what a user says.
 *
 *   create_custom_audio_track(MIXABLE) -> join_channel_with_options(publish it)
 *   -> push_external_audio_frame_by_id every 10 ms
 *   -> enable_custom_audio_track_processing -> set_ains_mode(1, AGGRESSIVE)
 *   -> set_voice_beautifier_parameters(SINGING_BEAUTIFIER, male, hall)
 *   -> set_audio_effect_preset(VOICE_CHANGER_EFFECT_HULK)
 *   -> set_voice_conversion_preset(VOICE_CHANGER_CHIPMUNK)
 *   -> set_local_voice_pitch(2.0) -> leave_channel -> release
 *
 * "local" talks into a custom audio track: a 150 Hz voice (12 harmonics) in
 * syllables of 200 ms with pauses of 133 ms, over a hiss at -50 dBFS. "remote",
 * a second engine in the same process, pulls what it hears from its external
 * sink and measures each step: the fundamental (F0, by autocorrelation), the
 * level of the syllables and of the pauses, and the brightness (the energy of
 * the signal's slope against its own). The track is sent as pushed, then
 * noise suppression clears the pauses, then each effect changes the voice:
 * its pitch, its brightness or (reverberation) the pauses it fills.
 *
 *   make hosts && build/examples/voice_changer
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

#define CHANNEL "voice-changer"
#define PI 3.14159265358979323846
#define RATE EXAMPLE_EARS_RATE
#define CHUNK (RATE / 100) /* 10 ms */
#define F0_HZ 150.0
#define SYLLABLE 16000     /* samples: 50 periods of F0, 333 ms ... */
#define VOICED 9600        /* ... 200 ms of them voiced, with 10 ms fades */
#define FADE 480
#define SETTLE_MS 800      /* after a change, until what is heard has it */
#define LISTEN_MS 1330     /* each step's measure: four syllables */
#define HEARD (LISTEN_MS * RATE / 1000)
#define STEPS 6

typedef struct {
    double f0, voice, pauses, brightness; /* Hz, dBFS, dBFS, dB */
} measure_t;

/* ---- local's events: what processes its voice ------------------------------------------ */

typedef struct {
    example_user base;       /* first, so the handler's user_data is both */
    int processing, effects; /* the last reported; guarded by base.mutex */
} user_t;

static void on_local_audio_stats(agoraish_engine_t *e, void *ud, const agoraish_local_audio_stats *s) {
    user_t *u = ud;
    int changed, p = s->audio_processing;
    (void)e;
    example_lock(&u->base);
    changed = p != u->processing || s->voice_effects != u->effects;
    u->processing = p;
    u->effects = s->voice_effects;
    example_unlock(&u->base);
    if (changed) {
        say(u->base.name, "on_local_audio_stats: audio processing %s%s%s%s(0x%x), voice effects %s",
            p & AGORAISH_AUDIO_PROCESSING_AEC ? "AEC " : "", p & AGORAISH_AUDIO_PROCESSING_ANS ? "ANS " : "",
            p & AGORAISH_AUDIO_PROCESSING_AGC ? "AGC " : "", p & AGORAISH_AUDIO_PROCESSING_HPF ? "HPF " : "", p,
            s->voice_effects ? "on" : "off");
    }
}

static agoraish_engine_t *create_user(user_t *u, const char *name, const char *server_url) {
    agoraish_event_handler handler;
    memset(u, 0, sizeof *u);
    example_user_init(&u->base, name);
    example_handler(&handler, &u->base);
    handler.on_local_audio_stats = on_local_audio_stats;
    return example_create_engine(&u->base, &handler, server_url);
}

/* ---- local's voice: one second (three syllables), pushed in a loop ------------------- */

static int16_t voice[RATE];

static void make_voice(void) {
    uint32_t seed = 12345;
    for (int n = 0; n < RATE; n++) {
        int t = n % SYLLABLE;
        double envelope = t < FADE ? 0.5 - 0.5 * cos(PI * t / FADE)
                          : t < VOICED - FADE ? 1.0
                          : t < VOICED ? 0.5 - 0.5 * cos(PI * (VOICED - t) / FADE) : 0.0;
        double sum = 0;
        for (int k = 1; k <= 12; k++) sum += 5000.0 / k * sin(2 * PI * F0_HZ * k * n / RATE);
        seed = seed * 1664525u + 1013904223u;
        voice[n] = (int16_t)lround(envelope * sum + (double)((seed >> 16) % 361) - 180);
    }
}

typedef struct {
    agoraish_engine_t *engine;
    int32_t track;
    pthread_mutex_t mutex;
    int stopping; /* guarded by mutex */
} talker_t;

static void *talk(void *arg) {
    talker_t *t = arg;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 0;; k++) {
        int stopping;
        pthread_mutex_lock(&t->mutex);
        stopping = t->stopping;
        pthread_mutex_unlock(&t->mutex);
        if (stopping) return NULL;
        agoraish_engine_push_external_audio_frame_by_id(t->engine, t->track, voice + (k % 100) * CHUNK, CHUNK, RATE, 1);
        sleep_until(&start, (k + 1) * 10);
    }
}

/* ---- what remote hears ---------------------------------------------------------------- */

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The fundamental of the 120 ms around 10 ms frame `loudest`, at 16 kHz: the shortest lag
 * (50..640 Hz) whose normalized autocorrelation peaks within 85 % of the highest, refined by
 * a parabola; 0 when nothing periodic is there. */
static double fundamental(const int16_t *pcm, size_t loudest) {
    enum { W = 1920, MIN_LAG = 25, MAX_LAG = 320, DECIMATED = HEARD / 3 };
    static double x[W], r[MAX_LAG + 2];
    size_t start = loudest * 160 + 80 > W / 2 ? loudest * 160 + 80 - W / 2 : 0;
    double best = 0;
    if (start + W > DECIMATED) start = DECIMATED - W;
    for (int i = 0; i < W; i++) {
        const int16_t *p = pcm + 3 * (start + i);
        x[i] = (p[0] + p[1] + p[2]) / 3.0;
    }
    for (int lag = MIN_LAG - 1; lag <= MAX_LAG + 1; lag++) {
        double xy = 0, xx = 0, yy = 0;
        for (int i = 0; i + lag < W; i++) {
            xy += x[i] * x[i + lag];
            xx += x[i] * x[i];
            yy += x[i + lag] * x[i + lag];
        }
        r[lag] = xx > 0 && yy > 0 ? xy / sqrt(xx * yy) : 0;
        if (lag >= MIN_LAG && lag <= MAX_LAG && r[lag] > best) best = r[lag];
    }
    for (int lag = MIN_LAG; best >= 0.3 && lag <= MAX_LAG; lag++) {
        if (r[lag] >= 0.85 * best && r[lag] >= r[lag - 1] && r[lag] >= r[lag + 1]) {
            double curve = r[lag - 1] - 2 * r[lag] + r[lag + 1];
            return 16000.0 / (lag + (curve < 0 ? 0.5 * (r[lag - 1] - r[lag + 1]) / curve : 0));
        }
    }
    return 0;
}

/* F0, the syllables' and the pauses' levels (the 90th and 10th percentiles of the 10 ms
 * levels) and the brightness of HEARD samples. */
static measure_t analyze(const int16_t *heard) {
    static double levels[HEARD / CHUNK];
    const size_t frames = HEARD / CHUNK;
    size_t loudest = 0;
    double energy = 0, slope = 0;
    measure_t m;
    for (size_t f = 0; f < frames; f++) {
        double sum = 0;
        for (size_t i = f * CHUNK; i < (f + 1) * CHUNK; i++) sum += (double)heard[i] * heard[i];
        levels[f] = sum > 0 ? 10 * log10(sum / CHUNK) - 20 * log10(32768.0) : -120;
        if (levels[f] > levels[loudest]) loudest = f;
    }
    for (size_t i = 1; i < HEARD; i++) {
        energy += (double)heard[i] * heard[i];
        slope += (double)(heard[i] - heard[i - 1]) * (heard[i] - heard[i - 1]);
    }
    m.f0 = fundamental(heard, loudest);
    m.brightness = energy > 0 && slope > 0 ? 10 * log10(slope / energy) : -120;
    qsort(levels, frames, sizeof levels[0], compare_doubles);
    m.voice = levels[frames * 9 / 10];
    m.pauses = levels[frames / 10];
    return m;
}

/* After SETTLE_MS, what remote hears for LISTEN_MS, said. */
static int measure(example_ears *ears, const char *step, measure_t *m) {
    static int16_t heard[HEARD];
    int16_t *const into[1] = {heard};
    if (!example_ears_listen(ears, SETTLE_MS, into) || !example_ears_listen(ears, LISTEN_MS, into)) return 0;
    *m = analyze(heard);
    say("remote", "%s: F0 %.0f Hz, voice %.1f dBFS, pauses %.1f dBFS, brightness %.1f dB", step, m->f0, m->voice,
        m->pauses, m->brightness);
    return 1;
}

/* Whether an effect changed the voice without effects, `plain`: its pitch, brightness or pauses. */
static int changed(const char *step, const measure_t *m, const measure_t *plain) {
    double pitch = plain->f0 > 0 ? 100 * (m->f0 / plain->f0 - 1) : 0;
    say("remote", "%s: F0 %+.0f %%, brightness %+.1f dB, pauses %+.1f dB", step, pitch,
        m->brightness - plain->brightness, m->pauses - plain->pauses);
    return fabs(pitch) >= 5 || fabs(m->brightness - plain->brightness) >= 1.5 || m->pauses - plain->pauses >= 6;
}

int main(void) {
    static const char *const steps[STEPS] = {"as pushed", "AINS aggressive", "beautifier SINGING_BEAUTIFIER",
                                             "effect VOICE_CHANGER_EFFECT_HULK", "conversion VOICE_CHANGER_CHIPMUNK",
                                             "pitch 2.0"};
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    agoraish_channel_media_options options;
    talker_t talker = {NULL, 0, PTHREAD_MUTEX_INITIALIZER, 0};
    pthread_t talker_thread;
    example_ears ears;
    user_t local, remote;
    measure_t m[STEPS];
    char url[128];
    const char *failed = "the call";
    int ok = 0, talking = 0, rc = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);
    memset(&ears, 0, sizeof ears);
    make_voice();
    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(&local, "local", url);
    remote_engine = create_user(&remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;

    /* local publishes a custom track, with the music profile (48 kHz, 64 kbps: what remote measures is
     * the voice, not the codec), and uses no device; remote only listens. */
    agoraish_engine_set_audio_profile(local_engine, AGORAISH_AUDIO_PROFILE_MUSIC_STANDARD);
    rc = agoraish_engine_create_custom_audio_track(local_engine, AGORAISH_AUDIO_TRACK_MIXABLE, &talker.track);
    say("local", "create_custom_audio_track(MIXABLE) = %d, track %d", rc, talker.track);
    if (rc != 0) goto done;
    memset(&options, 0, sizeof options); /* and so: no microphone, no device */
    options.struct_size = sizeof options;
    options.has_publish_microphone_track = options.has_enable_audio_recording_or_playout = 1;
    options.has_publish_custom_audio_track = options.publish_custom_audio_track = 1;
    options.has_publish_custom_audio_track_id = 1;
    options.publish_custom_audio_track_id = talker.track;
    agoraish_engine_set_external_audio_sink(remote_engine, 1, RATE, 1);
    agoraish_engine_enable_local_audio(remote_engine, 0);
    if ((rc = agoraish_engine_join_channel_with_options(local_engine, NULL, CHANNEL, 0, &options)) != 0 ||
        !example_wait(&local.base, example_is_joined, "join") ||
        (rc = agoraish_engine_join_channel(remote_engine, NULL, CHANNEL, NULL, 0)) != 0 ||
        !example_wait(&remote.base, example_is_joined, "join") ||
        !example_wait(&remote.base, example_sees_peer, "remote user") ||
        !example_wait(&local.base, example_sees_peer, "remote user")) {
        goto done;
    }
    talker.engine = local_engine;
    talking = pthread_create(&talker_thread, NULL, talk, &talker) == 0;
    if (!talking || example_ears_start(&ears, &remote_engine, 1) != 0) goto done;

    for (int step = 0; step < STEPS; step++) {
        const char *call = NULL;
        switch (step) {
        case 1: /* noise suppression on the track; gain control off, so that the levels compare */
            rc = agoraish_engine_set_parameters(local_engine, "{\"che.audio.agc.enable\": false}");
            if (rc == 0) rc = agoraish_engine_enable_custom_audio_track_processing(local_engine, talker.track, 1);
            if (rc == 0) rc = agoraish_engine_set_ains_mode(local_engine, 1, AGORAISH_AINS_MODE_AGGRESSIVE);
            call = "set_parameters(agc off), enable_custom_audio_track_processing(1), set_ains_mode(1, AGGRESSIVE)";
            break;
        case 2:
            rc = agoraish_engine_set_voice_beautifier_parameters(local_engine, AGORAISH_SINGING_BEAUTIFIER, 1, 3);
            call = "set_voice_beautifier_parameters(SINGING_BEAUTIFIER, 1 male, 3 hall)";
            break;
        case 3:
            rc = agoraish_engine_set_audio_effect_preset(local_engine, AGORAISH_VOICE_CHANGER_EFFECT_HULK);
            call = "set_audio_effect_preset(VOICE_CHANGER_EFFECT_HULK)";
            break;
        case 4:
            rc = agoraish_engine_set_voice_conversion_preset(local_engine, AGORAISH_VOICE_CHANGER_CHIPMUNK);
            call = "set_voice_conversion_preset(VOICE_CHANGER_CHIPMUNK)";
            break;
        case 5:
            rc = agoraish_engine_set_local_voice_pitch(local_engine, 2.0);
            call = "set_local_voice_pitch(2.0)";
            break;
        }
        if (call) say("local", "%s = %d", call, rc);
        failed = steps[step];
        if (rc != 0 || !measure(&ears, steps[step], &m[step])) goto done;
    }
    /* The voice as pushed; the pauses cleared, the voice kept; each preset changed the voice
     * (against the voice without effects); the pitch an octave up. */
    failed = steps[0];
    if (fabs(m[0].f0 - F0_HZ) > 5) goto done;
    failed = steps[1];
    if (fabs(m[1].f0 - F0_HZ) > 5 || m[1].pauses > m[0].pauses - 6 || m[1].voice < m[0].voice - 6) goto done;
    for (int step = 2; step < 5; step++) {
        failed = steps[step];
        if (!changed(steps[step], &m[step], &m[1])) goto done;
    }
    failed = fabs(m[5].f0 - 2 * F0_HZ) > 12 ? steps[5] : NULL;

done:
    example_ears_stop(&ears);
    if (talking) {
        pthread_mutex_lock(&talker.mutex);
        talker.stopping = 1;
        pthread_mutex_unlock(&talker.mutex);
        pthread_join(talker_thread, NULL);
    }
    if (!failed) ok = example_part(local_engine, &local.base, remote_engine, &remote.base);
    else say("remote", "not as expected: %s", failed);
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local.base);
    example_user_destroy(&remote.base);
    return example_finish(ok, "done: remote heard the noise suppressed, then each voice effect change the voice");
}
