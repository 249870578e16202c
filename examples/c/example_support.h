/*
 * example_support.h — what the C examples share, so each shows its own case:
 *
 *   - a clock that starts with the example, timestamped output lines,
 *     real-time pacing, and the names of the audio and video states;
 *   - the embedded channel server (example_start_server);
 *   - one user of the call (example_user): an engine's join, leave, peer and
 *     error events behind a lock, the handler that records them
 *     (example_handler), the engine made with it (example_create_engine), and
 *     waiting for what a user should see (example_wait and its predicates);
 *   - two users meeting in a channel and parting again (example_meet,
 *     example_part), and the example's last line (example_finish);
 *   - the tone of audio (example_analyze_tone) and the level of one
 *     frequency in it (example_tone_level), so tones that sound at once can
 *     be told apart;
 *   - "ears" (example_ears): a thread that pulls what users hear from their
 *     engines' external sinks every 10 ms, as sound cards would, and hands
 *     main what it pulled next (example_ears_listen);
 *   - media files made with the ffmpeg command-line tool (example_ffmpeg).
 *
 * An example's own user type starts with an example_user, so the handler's
 * user_data is both:
 *
 *     typedef struct { example_user base; int received; } user_t;
 *
 * Its own callbacks lock base.mutex around its own fields and call
 * example_changed() to wake a waiting main. Header-only; include it after
 * agoraish.h, with _POSIX_C_SOURCE 200809L defined.
 */
#ifndef AGORAISH_EXAMPLE_SUPPORT_H
#define AGORAISH_EXAMPLE_SUPPORT_H

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

/* The app id every example uses with the embedded server (which accepts any without a certificate). */
#define EXAMPLE_APP_ID "0123456789abcdef0123456789abcdef"
/* How long example_wait waits for an event, in seconds. */
#define EXAMPLE_WAIT_SECONDS 5

/* When the example started (main sets it first thing). */
static struct timespec t0;

/* Seconds since t0. */
static inline double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
}

/* Prints one line: the time, who speaks, and what happened. */
static inline void say(const char *who, const char *format, ...) {
    char line[512];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    printf("%6.2f s  %-6s  %s\n", seconds(), who, line);
}

/* Sleeps until `offset_ms` after `start` (CLOCK_MONOTONIC, absolute: no drift). */
static inline void sleep_until(const struct timespec *start, long offset_ms) {
    struct timespec t = *start;
    t.tv_sec += offset_ms / 1000;
    t.tv_nsec += (offset_ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR) {}
}

/* The names of agoraish_local_audio_stream_state values. */
static inline const char *local_state_name(int state) {
    static const char *const names[] = {"STOPPED", "RECORDING", "ENCODING", "FAILED"};
    return state >= 0 && state < 4 ? names[state] : "?";
}

/* The names of agoraish_local_video_stream_state values. */
static inline const char *local_video_state_name(int state) {
    static const char *const names[] = {"STOPPED", "CAPTURING", "ENCODING", "FAILED"};
    return state >= 0 && state < 4 ? names[state] : "?";
}

/* The names of agoraish_remote_audio_state values (agoraish_remote_video_state has the same). */
static inline const char *remote_state_name(int state) {
    static const char *const names[] = {"STOPPED", "STARTING", "DECODING", "FROZEN", "FAILED"};
    return state >= 0 && state < 5 ? names[state] : "?";
}

/* The names of agoraish_remote_audio_state_reason values (agoraish_remote_video_state_reason has the same). */
static inline const char *remote_reason_name(int reason) {
    static const char *const names[] = {"INTERNAL", "NETWORK_CONGESTION", "NETWORK_RECOVERY", "LOCAL_MUTED",
                                        "LOCAL_UNMUTED", "REMOTE_MUTED", "REMOTE_UNMUTED", "REMOTE_OFFLINE"};
    return reason >= 0 && reason < 8 ? names[reason] : "?";
}

/* The names of agoraish_media_player_state values. */
static inline const char *player_state_name(int state) {
    static const char *const names[] = {"IDLE", "OPENING", "OPEN_COMPLETED", "PLAYING", "PAUSED", "PLAYBACK_COMPLETED",
                                        "PLAYBACK_ALL_LOOPS_COMPLETED", "STOPPED"};
    return state == AGORAISH_PLAYER_STATE_FAILED ? "FAILED" : state >= 0 && state < 8 ? names[state] : "?";
}

/* The names of agoraish_media_player_reason values. */
static inline const char *player_reason_name(int reason) {
    switch (reason) {
    case AGORAISH_PLAYER_REASON_NONE: return "NONE";
    case AGORAISH_PLAYER_REASON_INVALID_ARGUMENTS: return "INVALID_ARGUMENTS";
    case AGORAISH_PLAYER_REASON_INTERNAL: return "INTERNAL";
    case AGORAISH_PLAYER_REASON_NO_RESOURCE: return "NO_RESOURCE";
    case AGORAISH_PLAYER_REASON_INVALID_MEDIA_SOURCE: return "INVALID_MEDIA_SOURCE";
    case AGORAISH_PLAYER_REASON_UNKNOWN_STREAM_TYPE: return "UNKNOWN_STREAM_TYPE";
    case AGORAISH_PLAYER_REASON_CODEC_NOT_SUPPORTED: return "CODEC_NOT_SUPPORTED";
    case AGORAISH_PLAYER_REASON_URL_NOT_FOUND: return "URL_NOT_FOUND";
    case AGORAISH_PLAYER_REASON_INTERRUPTED: return "INTERRUPTED";
    default: return "?";
    }
}

/* The names of agoraish_media_player_event values. */
static inline const char *player_event_name(int event) {
    switch (event) {
    case AGORAISH_PLAYER_EVENT_SEEK_BEGIN: return "SEEK_BEGIN";
    case AGORAISH_PLAYER_EVENT_SEEK_COMPLETE: return "SEEK_COMPLETE";
    case AGORAISH_PLAYER_EVENT_SEEK_ERROR: return "SEEK_ERROR";
    case AGORAISH_PLAYER_EVENT_AUDIO_TRACK_CHANGED: return "AUDIO_TRACK_CHANGED";
    case AGORAISH_PLAYER_EVENT_BUFFER_LOW: return "BUFFER_LOW";
    case AGORAISH_PLAYER_EVENT_BUFFER_RECOVER: return "BUFFER_RECOVER";
    case AGORAISH_PLAYER_EVENT_FIRST_DISPLAYED: return "FIRST_DISPLAYED";
    default: return "?";
    }
}

/* ---- the channel server ----------------------------------------------------- */

/* Starts an embedded channel server and writes its URL into `url` (`size`
 * bytes); prints why and returns NULL when it cannot. */
static inline agoraish_server_t *example_start_server(char *url, size_t size) {
    agoraish_server_config config;
    agoraish_server_t *server;
    int rc;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    server = agoraish_server_create(&config);
    if (!server || (rc = agoraish_server_start(server)) != 0 ||
        (rc = agoraish_server_get_url(server, url, &size)) != 0) {
        rc = server ? rc : agoraish_get_last_error();
        fprintf(stderr, "cannot start the channel server: %d (%s)\n", rc, agoraish_get_error_description(rc));
        agoraish_server_release(server);
        return NULL;
    }
    say("server", "%s", url);
    return server;
}

/* ---- one user ---------------------------------------------------------------- */

/* One user of a call: what its engine's events said. */
typedef struct {
    const char *name;
    pthread_mutex_t mutex;
    pthread_cond_t cond; /* on CLOCK_MONOTONIC; broadcast on every change */
    /* Guarded by mutex. */
    int joined, left;
    uint32_t uid;  /* its own, from on_join_channel_success */
    uint32_t peer; /* the last user who joined, 0 when that user went offline */
} example_user;

static inline void example_user_init(example_user *u, const char *name) {
    pthread_condattr_t attr;
    u->name = name;
    pthread_mutex_init(&u->mutex, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&u->cond, &attr);
    pthread_condattr_destroy(&attr);
}

/* Frees what example_user_init made; a user never initialised (name NULL) is left alone. */
static inline void example_user_destroy(example_user *u) {
    if (!u->name) return;
    pthread_cond_destroy(&u->cond);
    pthread_mutex_destroy(&u->mutex);
}

static inline void example_lock(example_user *u) { pthread_mutex_lock(&u->mutex); }

/* Wakes whoever waits for `u`, and unlocks it. */
static inline void example_changed(example_user *u) {
    pthread_cond_broadcast(&u->cond);
    pthread_mutex_unlock(&u->mutex);
}

static inline void example_unlock(example_user *u) { pthread_mutex_unlock(&u->mutex); }

static inline void example_on_join_channel_success(agoraish_engine_t *e, void *ud, const char *channel, uint32_t uid,
                                                   int elapsed) {
    example_user *u = ud;
    (void)e;
    say(u->name, "on_join_channel_success \"%s\" uid %u, %d ms", channel, uid, elapsed);
    example_lock(u);
    u->joined = 1;
    u->uid = uid;
    example_changed(u);
}

static inline void example_on_user_joined(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    example_user *u = ud;
    (void)e;
    say(u->name, "on_user_joined uid %u, %d ms", uid, elapsed);
    example_lock(u);
    u->peer = uid;
    example_changed(u);
}

static inline void example_on_user_offline(agoraish_engine_t *e, void *ud, uint32_t uid, int reason) {
    example_user *u = ud;
    (void)e;
    say(u->name, "on_user_offline uid %u, reason %d", uid, reason);
    example_lock(u);
    if (u->peer == uid) u->peer = 0;
    example_changed(u);
}

static inline void example_on_leave_channel(agoraish_engine_t *e, void *ud, const agoraish_rtc_stats *stats) {
    example_user *u = ud;
    (void)e;
    say(u->name, "on_leave_channel after %u s: sent %llu bytes, received %llu bytes", stats->duration,
        (unsigned long long)stats->tx_bytes, (unsigned long long)stats->rx_bytes);
    example_lock(u);
    u->left = 1;
    example_changed(u);
}

static inline void example_on_error(agoraish_engine_t *e, void *ud, int err, const char *msg) {
    example_user *u = ud;
    (void)e;
    say(u->name, "on_error %d: %s", err, msg);
}

/* A handler for `u` with the callbacks above; the example adds its own. */
static inline void example_handler(agoraish_event_handler *h, example_user *u) {
    memset(h, 0, sizeof *h);
    h->struct_size = sizeof *h;
    h->user_data = u;
    h->on_join_channel_success = example_on_join_channel_success;
    h->on_user_joined = example_on_user_joined;
    h->on_user_offline = example_on_user_offline;
    h->on_leave_channel = example_on_leave_channel;
    h->on_error = example_on_error;
}

/* An engine for `u` on the server at `server_url`, with `handler`; prints why and returns NULL when it cannot. */
static inline agoraish_engine_t *example_create_engine(example_user *u, const agoraish_event_handler *handler,
                                                       const char *server_url) {
    agoraish_engine_config config;
    agoraish_engine_t *engine;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.app_id = EXAMPLE_APP_ID;
    config.event_handler = handler;
    config.server_url = server_url;
    engine = agoraish_engine_create(&config);
    if (!engine) {
        int rc = agoraish_get_last_error();
        fprintf(stderr, "cannot create %s's engine: %d (%s)\n", u->name, rc, agoraish_get_error_description(rc));
    }
    return engine;
}

/* ---- waiting ------------------------------------------------------------------ */

static inline int example_is_joined(const example_user *u) { return u->joined; }
static inline int example_has_left(const example_user *u) { return u->left; }
static inline int example_sees_peer(const example_user *u) { return u->peer != 0; }
static inline int example_sees_nobody(const example_user *u) { return u->peer == 0; }

/* Waits up to EXAMPLE_WAIT_SECONDS until `done(u)` holds (called under the
 * lock); says "no <what>" and returns 0 when it does not. */
static inline int example_wait(example_user *u, int (*done)(const example_user *), const char *what) {
    struct timespec deadline;
    int ok;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += EXAMPLE_WAIT_SECONDS;
    example_lock(u);
    while (!(ok = done(u))) {
        if (pthread_cond_timedwait(&u->cond, &u->mutex, &deadline) == ETIMEDOUT) break;
    }
    example_unlock(u);
    if (!ok) say(u->name, "no %s within %d s", what, EXAMPLE_WAIT_SECONDS);
    return ok;
}

/* The user `u` sees (its peer), read under its lock. */
static inline uint32_t example_peer(example_user *u) {
    uint32_t peer;
    example_lock(u);
    peer = u->peer;
    example_unlock(u);
    return peer;
}

/* ---- a call of two --------------------------------------------------------------- */

/* `a` joins `channel` as `a_uid`, then `b` as `b_uid` (0: the server picks),
 * and each sees the other. Returns 0, or the error of a join that failed (-1
 * when an event did not come), said on stderr. */
static inline int example_meet(const char *channel, agoraish_engine_t *a_engine, example_user *a, uint32_t a_uid,
                               agoraish_engine_t *b_engine, example_user *b, uint32_t b_uid) {
    int rc = agoraish_engine_join_channel(a_engine, NULL, channel, NULL, a_uid);
    if (rc == 0 && !example_wait(a, example_is_joined, "join")) rc = -1;
    if (rc == 0) rc = agoraish_engine_join_channel(b_engine, NULL, channel, NULL, b_uid);
    if (rc == 0 && !(example_wait(b, example_is_joined, "join") && example_wait(a, example_sees_peer, "remote user") &&
                     example_wait(b, example_sees_peer, "remote user"))) {
        rc = -1;
    }
    if (rc != 0) fprintf(stderr, "the users did not get together: %d (%s)\n", rc, agoraish_get_error_description(rc));
    return rc;
}

/* `b` leaves, `a` sees it go, then `a` leaves. Returns whether every event came. */
static inline int example_part(agoraish_engine_t *a_engine, example_user *a, agoraish_engine_t *b_engine,
                               example_user *b) {
    agoraish_engine_leave_channel(b_engine);
    if (!example_wait(b, example_has_left, "leave") || !example_wait(a, example_sees_nobody, "user offline")) return 0;
    agoraish_engine_leave_channel(a_engine);
    return example_wait(a, example_has_left, "leave");
}

/* Prints the example's last line (`success` when `ok`) and returns its exit status. */
static inline int example_finish(int ok, const char *success) {
    printf("%s\n", ok ? success : "the call did not go as expected");
    return ok ? 0 : 1;
}

/* The frequency and level (dBFS) of `count` mono samples at `rate`; 0 Hz and
 * -120 dBFS for silence. The frequency is the rate over the median period
 * between upward crossings of a hysteresis band at a quarter of the RMS
 * (each crossing placed between its two samples), so a short gap or glitch
 * in the sound does not move it; with fewer than three crossings it is the
 * crossing count over the duration. */
typedef struct {
    double hz, dbfs;
} example_tone;

static inline int example_compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline example_tone example_analyze_tone(const int16_t *pcm, size_t count, int rate) {
    example_tone t = {0, -120};
    double energy = 0, band, last = -1, *periods;
    size_t crossings = 0, n = 0;
    int high = 0;
    for (size_t i = 0; i < count; i++) energy += (double)pcm[i] * pcm[i];
    if (count == 0 || energy <= 0) return t;
    band = sqrt(energy / (double)count) / 4;
    periods = malloc((count / 2 + 1) * sizeof *periods);
    for (size_t i = 0; i < count; i++) {
        if (!high && pcm[i] > band) {
            /* Where the rise crossed the band, between sample i - 1 and i. */
            double at = (double)i;
            if (i > 0 && pcm[i] != pcm[i - 1]) at = (double)(i - 1) + (band - pcm[i - 1]) / (double)(pcm[i] - pcm[i - 1]);
            if (last >= 0 && periods && n < count / 2 + 1) periods[n++] = at - last;
            last = at;
            high = 1;
            crossings++;
        } else if (high && pcm[i] < -band) {
            high = 0;
        }
    }
    if (n >= 2) {
        qsort(periods, n, sizeof *periods, example_compare_doubles);
        t.hz = (double)rate / (n % 2 ? periods[n / 2] : (periods[n / 2 - 1] + periods[n / 2]) / 2);
    } else {
        t.hz = (double)crossings / ((double)count / rate);
    }
    free(periods);
    t.dbfs = 10 * log10(energy / (double)count) - 20 * log10(32768.0);
    return t;
}

/* The level (dBFS, as example_analyze_tone gives a lone sine's) of the `hz`
 * component of `count` mono samples at `rate`: Goertzel's algorithm over a
 * Hann window, so a tone 100 Hz away or more barely counts. -120 for none. */
static inline double example_tone_level(const int16_t *pcm, size_t count, double hz, int rate) {
    const double pi = 3.14159265358979323846;
    double coefficient = 2 * cos(2 * pi * hz / rate), s1 = 0, s2 = 0, power, amplitude;
    if (count < 2) return -120;
    for (size_t i = 0; i < count; i++) {
        double window = 0.5 - 0.5 * cos(2 * pi * (double)i / (double)(count - 1));
        double s = pcm[i] * window + coefficient * s1 - s2;
        s2 = s1;
        s1 = s;
    }
    power = s1 * s1 + s2 * s2 - coefficient * s1 * s2;
    amplitude = 2 * sqrt(power > 0 ? power : 0) / ((double)count / 2); /* the Hann window's gain is 1/2 */
    if (amplitude <= 0) return -120;
    return fmax(-120, 20 * log10(amplitude / sqrt(2.0) / 32768));
}

/* ---- ears: what users hear, pulled in real time ------------------------------------ */

#define EXAMPLE_EARS_RATE 48000
#define EXAMPLE_EARS_CHUNK (EXAMPLE_EARS_RATE / 100) /* 10 ms */
#define EXAMPLE_EARS_MAX 2

/* Pulls 10 ms of 48 kHz mono from the external sink of each engine (each set
 * with agoraish_engine_set_external_audio_sink(e, 1, 48000, 1)) every 10 ms on
 * its own thread, in real time, until stopped. */
typedef struct {
    agoraish_engine_t *engines[EXAMPLE_EARS_MAX];
    int count;
    pthread_t thread;
    int started;
    pthread_mutex_t mutex;
    pthread_cond_t cond; /* on CLOCK_MONOTONIC */
    /* Guarded by mutex. */
    int stopping;
    long ticks, failed;
    int16_t *heard[EXAMPLE_EARS_MAX]; /* where example_ears_listen wants the next `wanted` chunks */
    long wanted, filled;
} example_ears;

static inline void *example_ears_run(void *arg) {
    example_ears *ears = arg;
    int16_t chunk[EXAMPLE_EARS_MAX][EXAMPLE_EARS_CHUNK];
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 1;; k++) {
        int failed = 0;
        for (int i = 0; i < ears->count; i++) {
            if (agoraish_engine_pull_playback_audio_frame(ears->engines[i], chunk[i], EXAMPLE_EARS_CHUNK) != 0) {
                memset(chunk[i], 0, sizeof chunk[i]);
                failed++;
            }
        }
        pthread_mutex_lock(&ears->mutex);
        ears->ticks++;
        ears->failed += failed;
        if (ears->filled < ears->wanted) {
            for (int i = 0; i < ears->count; i++) {
                memcpy(ears->heard[i] + ears->filled * EXAMPLE_EARS_CHUNK, chunk[i], sizeof chunk[i]);
            }
            ears->filled++;
        }
        pthread_cond_broadcast(&ears->cond);
        if (ears->stopping) {
            pthread_mutex_unlock(&ears->mutex);
            return NULL;
        }
        pthread_mutex_unlock(&ears->mutex);
        sleep_until(&start, k * 10);
    }
}

/* Starts pulling from `count` (1..EXAMPLE_EARS_MAX) engines; 0, or -1 when the thread cannot start. */
static inline int example_ears_start(example_ears *ears, agoraish_engine_t *const *engines, int count) {
    pthread_condattr_t attr;
    memset(ears, 0, sizeof *ears);
    ears->count = count;
    for (int i = 0; i < count; i++) ears->engines[i] = engines[i];
    pthread_mutex_init(&ears->mutex, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&ears->cond, &attr);
    pthread_condattr_destroy(&attr);
    ears->started = pthread_create(&ears->thread, NULL, example_ears_run, ears) == 0;
    return ears->started ? 0 : -1;
}

/* What each engine heard in the next `ms` (a multiple of 10): `ms` * 48 mono
 * samples into each of `heard[0..count-1]`. Returns whether all of it came. */
static inline int example_ears_listen(example_ears *ears, int ms, int16_t *const *heard) {
    struct timespec deadline;
    int ok = 1;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += ms / 1000 + 5;
    pthread_mutex_lock(&ears->mutex);
    for (int i = 0; i < ears->count; i++) ears->heard[i] = heard[i];
    ears->filled = 0;
    ears->wanted = ms / 10;
    while (ears->started && ears->filled < ears->wanted) {
        if (pthread_cond_timedwait(&ears->cond, &ears->mutex, &deadline) == ETIMEDOUT) {
            ok = 0;
            break;
        }
    }
    ok = ok && ears->started;
    ears->wanted = ears->filled = 0;
    pthread_mutex_unlock(&ears->mutex);
    return ok;
}

/* Stops pulling (waits for the thread). */
static inline void example_ears_stop(example_ears *ears) {
    if (!ears->count) return;
    if (ears->started) {
        pthread_mutex_lock(&ears->mutex);
        ears->stopping = 1;
        pthread_mutex_unlock(&ears->mutex);
        pthread_join(ears->thread, NULL);
    }
    pthread_cond_destroy(&ears->cond);
    pthread_mutex_destroy(&ears->mutex);
    ears->count = 0;
}

/* ---- media files -------------------------------------------------------------------- */

/* Makes `path` (in demo-out/, a name without quotes) with `ffmpeg -y <args> 'path'`,
 * quietly; says why and returns 0 when it cannot (ffmpeg missing or failing). */
static inline int example_ffmpeg(const char *path, const char *args) {
    char command[2048];
    int rc;
    mkdir("demo-out", 0755);
    if (strchr(path, '\'') || snprintf(command, sizeof command, "ffmpeg -nostdin -hide_banner -v error -y %s '%s'",
                                        args, path) >= (int)sizeof command) {
        say("ffmpeg", "cannot make %s: the command does not fit", path);
        return 0;
    }
    rc = system(command);
    if (rc != 0) {
        say("ffmpeg", "cannot make %s: `%s` exited with %d", path, command, rc);
        return 0;
    }
    return 1;
}

#endif
