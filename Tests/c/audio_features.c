/*
 * audio_features.c — the audio section of include/agoraish.h (ABI 0.4) as a C
 * host sees it: an embedded channel server and real engines on loopback, the
 * host pushing and pulling audio in real time (10 ms per call, paced with
 * clock_nanosleep on CLOCK_MONOTONIC absolute deadlines), and ALSA devices
 * defined by a configuration file of the test's own.
 *
 *   - devices:    ALSA_CONFIG_PATH names /usr/share/alsa/alsa.conf and a file
 *                 written here, set before anything in the process touches
 *                 ALSA. It defines two "file" PCMs over "null" with hints:
 *                 agtest_cap (capture: a raw 48 kHz mono 1 kHz tone) and
 *                 agtest_play (playback into a raw file). Enumeration lists
 *                 them; set/get_*_device; the recording device test reports a
 *                 nonzero local volume; the playback device test and the
 *                 loopback test write the expected tone into the playback file;
 *   - observer formats: on an engine in no call, the record observer sees
 *                 exactly the rate, channels and samples per call asked for
 *                 (8000 .. 48000 Hz, mono and stereo, odd samples per call),
 *                 and the pushed tone at its frequency and level; no callback
 *                 after removal;
 *   - recording:  start_audio_recording of pushed audio to a WAV (RIFF
 *                 header, rate, length, the tone) and to an Ogg Opus file
 *                 (OggS, OpusHead, OpusTags);
 *   - re-entry:   pushing, pulling and releasing the engine from inside a
 *                 raw audio callback are -5, and the engine stays usable;
 *   - two users:  A pushes 500 Hz, B pulls. First-frame callbacks and states;
 *                 A mutes its stream: B gets on_user_mute_audio(A, 1) and
 *                 STOPPED / REMOTE_MUTED, and hears nothing; unmuting brings
 *                 the tone back. B mutes A's stream: STOPPED / LOCAL_MUTED, and
 *                 the server's /metrics show the copies withheld
 *                 (agoraish_media_drops_total{reason="unsubscribed"} grows,
 *                 packets out stop growing); unmuting restores both. Also
 *                 mute_all_remote_audio_streams, enable_local_audio(0/1),
 *                 disable_audio / enable_audio on either side,
 *                 adjust_recording_signal_volume (-6 dB, +6 dB, silence), a
 *                 record observer in read-write mode (x 0.5: -6 dB) and in
 *                 write-only mode (a 700 Hz tone over silence replaces the
 *                 500 Hz one), recording B's playback to WAV then Ogg, and
 *                 the statistics callbacks;
 *   - three users: A pushes 500 Hz, B 1200 Hz, C pulls. Users who join while
 *                 set_default_mute_all_remote_audio_streams(1) is on start
 *                 muted, users present keep their state; the mix holds both
 *                 tones (Goertzel), the before-mixing observer gives each uid
 *                 alone, the playback and mixed observers the mix;
 *                 adjust_user_playback_signal_volume and
 *                 adjust_playback_signal_volume act in dB; volume indication
 *                 and the active speaker;
 *   - capture:    K captures from agtest_cap (no external source) and L
 *                 hears 1 kHz; X, whose recording device does not exist,
 *                 reports FAILED (NO_RECORDING_DEVICE or RECORD_FAILURE) when
 *                 its call starts, and its external source still reaches L.
 *
 * Every check prints one line ("ok ..." on stdout, "FAIL ..." on stderr); the
 * exit status is 1 when any failed.
 *
 * Under valgrind (RUNNING_ON_VALGRIND), or with AGORAISH_TEST_QUICK set in
 * the environment (to anything but "0"), audio still flows but nothing is
 * measured against the wall clock: the checks of what is heard in a call
 * (levels, silences, the server's packet counts, the in-call recordings, the
 * three-user story and the capture call's tone) are skipped, because an
 * engine slowed down tens of times cannot keep a 10 ms real-time cadence. The
 * device tests, the observer formats, the recordings of pushed audio and the
 * signaling of every mute and switch still run there.
 *
 * Under valgrind two more paths are avoided, because memcheck reports errors
 * in them that are not this library's: (1) no Ogg file is recorded: the
 * libopusenc of Debian 12 (0.2.1) reads memory it allocated uninitialised in
 * ope_encoder_drain(), for any stream that was written to; (2) no engine keeps
 * a stream of remote audio (the receivers call disable_audio before joining,
 * and the remote audio states and receiving statistics are not checked): when a remote stream's state
 * is reported, the compiled test of an optional event in the engine compares
 * its undefined payload together with its defined tag in one ordering
 * comparison, which memcheck cannot resolve ("conditional jump depends on
 * uninitialised value" in the remote state reporting). Both run, and are
 * checked, in the normal run.
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <valgrind/valgrind.h>

#define TEST_NAME "audio_features"
#include "test_support.h"

#define PI 3.14159265358979323846
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/** Whether the wall-clock measurements are skipped (valgrind, AGORAISH_TEST_QUICK). */
static int quick;
/** Whether this runs under valgrind: the two paths it misreports are avoided (see the header). */
static int memcheck;
/** How long one wait for an event may take. */
static int wait_seconds = 10;

static pthread_t main_thread;

/* ------------------------------------------------------------------------ */
/* Checks that print a line each                                             */
/* ------------------------------------------------------------------------ */

static void verify_(int ok, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/** One check: "ok <file>:<line>: <text>" on stdout, or a FAIL line (test_support.h) on stderr. */
static void verify_(int ok, int line, const char *fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    check_(ok, line, "%s", text);
    if (ok) printf("ok   " TEST_NAME ".c:%d: %s\n", line, text);
    fflush(stdout);
}

#define VERIFY(cond, ...) verify_((cond) != 0, __LINE__, __VA_ARGS__)
#define VERIFY_RC(got, want, what) verify_rc_((got), (want), (what), __LINE__)

static void verify_rc_(int got, int want, const char *what, int line) {
    verify_(got == want, line, "%s: returned %d (expected %d)", what, got, want);
}

static double started_ms;

/** Prints a section title, and when it starts. */
static void section(const char *title) {
    printf("== %s (at %.1f s)\n", title, (now_ms() - started_ms) / 1000);
    fflush(stdout);
}

/* ------------------------------------------------------------------------ */
/* Signal analysis                                                           */
/* ------------------------------------------------------------------------ */

/** The amplitude of the `freq` component of `frames` samples of channel
 *  `channel` of interleaved `x` (Goertzel): a sine of amplitude A gives ~A. */
static double tone_amp(const int16_t *x, size_t frames, int channels, int channel, double freq, int rate) {
    double w = 2.0 * PI * freq / rate, c = 2.0 * cos(w), s1 = 0, s2 = 0, power;
    size_t i;
    if (frames == 0) return 0;
    for (i = 0; i < frames; i++) {
        double s0 = (double)x[i * (size_t)channels + (size_t)channel] + c * s1 - s2;
        s2 = s1;
        s1 = s0;
    }
    power = s1 * s1 + s2 * s2 - c * s1 * s2;
    if (power < 0) power = 0;
    return 2.0 * sqrt(power) / (double)frames;
}

/** RMS of channel `channel` of interleaved `x`. */
static double rms_of(const int16_t *x, size_t frames, int channels, int channel) {
    double sum = 0;
    size_t i;
    if (frames == 0) return 0;
    for (i = 0; i < frames; i++) {
        double s = x[i * (size_t)channels + (size_t)channel];
        sum += s * s;
    }
    return sqrt(sum / (double)frames);
}

/** 20 log10(a / ref), with a floor so that silence gives a large negative number. */
static double db(double a, double ref) { return 20.0 * log10((a + 1e-3) / (ref + 1e-3)); }

/** A sine of `freq` Hz and `amplitude`, `frames` frames of `channels` equal
 *  channels, continuing from `*phase` (radians, updated). */
static void fill_tone(int16_t *out, int frames, int channels, double freq, double amplitude, int rate, double *phase) {
    int i, c;
    double step = 2.0 * PI * freq / rate;
    for (i = 0; i < frames; i++) {
        int16_t v = (int16_t)lrint(amplitude * sin(*phase));
        for (c = 0; c < channels; c++) out[i * channels + c] = v;
        *phase += step;
        if (*phase > 2.0 * PI) *phase -= 2.0 * PI;
    }
}

/* ------------------------------------------------------------------------ */
/* Events: one recorder per engine, passed as user_data                      */
/* ------------------------------------------------------------------------ */

typedef enum {
    EV_JOIN,
    EV_LEAVE,
    EV_USER_JOINED,
    EV_USER_OFFLINE,
    EV_REGISTERED,
    EV_ERROR,
    EV_FIRST_LOCAL,
    EV_FIRST_REMOTE_FRAME,
    EV_FIRST_REMOTE_DECODED,
    EV_USER_MUTE,
    EV_LOCAL_STATE,
    EV_REMOTE_STATE,
    EV_VOLUME,
    EV_ACTIVE_SPEAKER,
    EV_RTC_STATS,
    EV_LOCAL_STATS,
    EV_REMOTE_STATS,
    EV_KINDS
} kind_t;

static const char *const kind_names[EV_KINDS] = {
    "join_channel_success", "leave_channel", "user_joined", "user_offline", "local_user_registered", "error",
    "first_local_audio_frame_published", "first_remote_audio_frame", "first_remote_audio_decoded", "user_mute_audio",
    "local_audio_state_changed", "remote_audio_state_changed", "audio_volume_indication", "active_speaker",
    "rtc_stats", "local_audio_stats", "remote_audio_stats",
};

/** Matches any value in wait_event(). */
#define ANY (-0x7fffffff)

typedef struct {
    kind_t kind;
    int64_t uid; /* the uid argument, or -1 */
    int a, b, c; /* see the handlers */
    unsigned int n_speakers;
    agoraish_audio_volume_info speakers[4];
    union {
        agoraish_rtc_stats rtc;
        agoraish_local_audio_stats local;
        agoraish_remote_audio_stats remote;
    } stats;
    double at_ms;
} event_t;

#define MAX_EVENTS 1500

typedef struct {
    const char *name;
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    /* Guarded by mutex. */
    agoraish_engine_t *engine;
    int count;
    event_t events[MAX_EVENTS];
    int wrong_engine;
    int on_main;
} recorder_t;

static void recorder_init(recorder_t *r, const char *name) {
    memset(r, 0, sizeof *r);
    r->name = name;
    monitor_init(&r->mutex, &r->cond);
}

/** Appends an event filled by the caller (kind, uid, a, b, c and the rest). */
static void record(agoraish_engine_t *engine, void *user_data, const event_t *e) {
    recorder_t *r = user_data;
    pthread_mutex_lock(&r->mutex);
    if (engine != r->engine) r->wrong_engine++;
    if (pthread_equal(pthread_self(), main_thread)) r->on_main++;
    if (r->count < MAX_EVENTS) {
        r->events[r->count] = *e;
        r->events[r->count].at_ms = now_ms();
    }
    r->count++;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->mutex);
}

static event_t ev(kind_t kind, int64_t uid, int a, int b, int c) {
    event_t e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.uid = uid;
    e.a = a;
    e.b = b;
    e.c = c;
    return e;
}

static void on_join(agoraish_engine_t *en, void *ud, const char *channel, uint32_t uid, int elapsed) {
    event_t e = ev(EV_JOIN, uid, elapsed, 0, 0);
    (void)channel;
    record(en, ud, &e);
}
static void on_leave(agoraish_engine_t *en, void *ud, const agoraish_rtc_stats *stats) {
    event_t e = ev(EV_LEAVE, -1, 0, 0, 0);
    if (stats) memcpy(&e.stats.rtc, stats, stats->struct_size < sizeof e.stats.rtc ? stats->struct_size : sizeof e.stats.rtc);
    record(en, ud, &e);
}
static void on_user_joined(agoraish_engine_t *en, void *ud, uint32_t uid, int elapsed) {
    event_t e = ev(EV_USER_JOINED, uid, elapsed, 0, 0);
    record(en, ud, &e);
}
static void on_user_offline(agoraish_engine_t *en, void *ud, uint32_t uid, int reason) {
    event_t e = ev(EV_USER_OFFLINE, uid, reason, 0, 0);
    record(en, ud, &e);
}
static void on_registered(agoraish_engine_t *en, void *ud, uint32_t uid, const char *account) {
    event_t e = ev(EV_REGISTERED, uid, 0, 0, 0);
    (void)account;
    record(en, ud, &e);
}
static void on_error(agoraish_engine_t *en, void *ud, int err, const char *msg) {
    event_t e = ev(EV_ERROR, -1, err, 0, 0);
    fprintf(stderr, "audio_features: on_error %d (%s)\n", err, msg ? msg : "");
    record(en, ud, &e);
}
static void on_first_local(agoraish_engine_t *en, void *ud, int elapsed) {
    event_t e = ev(EV_FIRST_LOCAL, -1, elapsed, 0, 0);
    record(en, ud, &e);
}
static void on_first_remote_frame(agoraish_engine_t *en, void *ud, uint32_t uid, int elapsed) {
    event_t e = ev(EV_FIRST_REMOTE_FRAME, uid, elapsed, 0, 0);
    record(en, ud, &e);
}
static void on_first_remote_decoded(agoraish_engine_t *en, void *ud, uint32_t uid, int elapsed) {
    event_t e = ev(EV_FIRST_REMOTE_DECODED, uid, elapsed, 0, 0);
    record(en, ud, &e);
}
static void on_user_mute(agoraish_engine_t *en, void *ud, uint32_t uid, int muted) {
    event_t e = ev(EV_USER_MUTE, uid, muted, 0, 0);
    record(en, ud, &e);
}
static void on_local_state(agoraish_engine_t *en, void *ud, int state, int error) {
    event_t e = ev(EV_LOCAL_STATE, -1, state, error, 0);
    record(en, ud, &e);
}
static void on_remote_state(agoraish_engine_t *en, void *ud, uint32_t uid, int state, int reason, int elapsed) {
    event_t e = ev(EV_REMOTE_STATE, uid, state, reason, elapsed);
    record(en, ud, &e);
}
static void on_volume(agoraish_engine_t *en, void *ud, const agoraish_audio_volume_info *speakers, unsigned int n,
                      int total) {
    event_t e = ev(EV_VOLUME, -1, total, (int)n, 0);
    unsigned int i;
    e.n_speakers = n;
    for (i = 0; i < n && i < 4; i++) e.speakers[i] = speakers[i];
    record(en, ud, &e);
}
static void on_active_speaker(agoraish_engine_t *en, void *ud, uint32_t uid) {
    event_t e = ev(EV_ACTIVE_SPEAKER, uid, 0, 0, 0);
    record(en, ud, &e);
}
static void on_rtc_stats(agoraish_engine_t *en, void *ud, const agoraish_rtc_stats *stats) {
    event_t e = ev(EV_RTC_STATS, -1, 0, 0, 0);
    memcpy(&e.stats.rtc, stats, stats->struct_size < sizeof e.stats.rtc ? stats->struct_size : sizeof e.stats.rtc);
    record(en, ud, &e);
}
static void on_local_stats(agoraish_engine_t *en, void *ud, const agoraish_local_audio_stats *stats) {
    event_t e = ev(EV_LOCAL_STATS, -1, 0, 0, 0);
    memcpy(&e.stats.local, stats,
           stats->struct_size < sizeof e.stats.local ? stats->struct_size : sizeof e.stats.local);
    record(en, ud, &e);
}
static void on_remote_stats(agoraish_engine_t *en, void *ud, const agoraish_remote_audio_stats *stats) {
    event_t e = ev(EV_REMOTE_STATS, stats->uid, 0, 0, 0);
    memcpy(&e.stats.remote, stats,
           stats->struct_size < sizeof e.stats.remote ? stats->struct_size : sizeof e.stats.remote);
    record(en, ud, &e);
}

static agoraish_event_handler full_handler(recorder_t *r) {
    agoraish_event_handler h = empty_handler(r);
    h.on_join_channel_success = on_join;
    h.on_leave_channel = on_leave;
    h.on_user_joined = on_user_joined;
    h.on_user_offline = on_user_offline;
    h.on_local_user_registered = on_registered;
    h.on_error = on_error;
    h.on_first_local_audio_frame_published = on_first_local;
    h.on_first_remote_audio_frame = on_first_remote_frame;
    h.on_first_remote_audio_decoded = on_first_remote_decoded;
    h.on_user_mute_audio = on_user_mute;
    h.on_local_audio_state_changed = on_local_state;
    h.on_remote_audio_state_changed = on_remote_state;
    h.on_audio_volume_indication = on_volume;
    h.on_active_speaker = on_active_speaker;
    h.on_rtc_stats = on_rtc_stats;
    h.on_local_audio_stats = on_local_stats;
    h.on_remote_audio_stats = on_remote_stats;
    return h;
}

static int recorder_count(recorder_t *r) { return read_count(&r->mutex, &r->count); }

static int matches(const event_t *e, kind_t kind, int64_t uid, int a, int b) {
    return e->kind == kind && (uid == ANY || e->uid == uid) && (a == ANY || e->a == a) && (b == ANY || e->b == b);
}

/** A predicate over events, for wait_for(). */
typedef int (*event_pred_t)(const event_t *e, const void *ctx);

/**
 * Waits up to `seconds` until `r` has an event at index >= `from` that
 * `pred` accepts; returns its index (copied to `out` when not NULL) or -1.
 */
static int wait_for(recorder_t *r, int from, event_pred_t pred, const void *ctx, event_t *out, int seconds) {
    struct timespec deadline = deadline_in(seconds);
    int i = from, found = -1;
    pthread_mutex_lock(&r->mutex);
    for (;;) {
        for (; i < r->count && i < MAX_EVENTS; i++) {
            if (pred(&r->events[i], ctx)) {
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

typedef struct {
    kind_t kind;
    int64_t uid;
    int a, b;
} event_match_t;

static int pred_match(const event_t *e, const void *ctx) {
    const event_match_t *m = ctx;
    return matches(e, m->kind, m->uid, m->a, m->b);
}

static int wait_event(recorder_t *r, int from, kind_t kind, int64_t uid, int a, int b, event_t *out) {
    event_match_t m;
    m.kind = kind;
    m.uid = uid;
    m.a = a;
    m.b = b;
    return wait_for(r, from, pred_match, &m, out, wait_seconds);
}

/** Waits for an event and prints a check line naming `what`. */
#define EXPECT_EVENT(r, from, kind, uid, a, b, out, what)                                                    \
    expect_event_((r), (from), (kind), (uid), (a), (b), (out), (what), __LINE__)

static int expect_event_(recorder_t *r, int from, kind_t kind, int64_t uid, int a, int b, event_t *out,
                         const char *what, int line) {
    event_t got;
    int i = wait_event(r, from, kind, uid, a, b, &got);
    char args[96];
    snprintf(args, sizeof args, "uid %s%lld, %s%d, %s%d", uid == ANY ? "any/" : "", uid == ANY ? 0LL : (long long)uid,
             a == ANY ? "any/" : "", a == ANY ? 0 : a, b == ANY ? "any/" : "", b == ANY ? 0 : b);
    verify_(i >= 0, line, "%s: %s gets %s(%s)%s", what, r->name, kind_names[kind], args,
            i >= 0 ? "" : " -- not within the wait");
    if (out && i >= 0) *out = got;
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

/** The last event of `r` at index >= from that matches, copied to `out`; its index or -1. */
static int last_event(recorder_t *r, int from, kind_t kind, int64_t uid, int a, int b, event_t *out) {
    int i, found = -1;
    pthread_mutex_lock(&r->mutex);
    for (i = from; i < r->count && i < MAX_EVENTS; i++) {
        if (matches(&r->events[i], kind, uid, a, b)) {
            found = i;
            if (out) *out = r->events[i];
        }
    }
    pthread_mutex_unlock(&r->mutex);
    return found;
}

/** Lists the events of one kind after `from`, on stderr, for a failed check. */
static void dump_events(recorder_t *r, int from, kind_t kind) {
    int i;
    pthread_mutex_lock(&r->mutex);
    for (i = from; i < r->count && i < MAX_EVENTS; i++) {
        const event_t *e = &r->events[i];
        if (e->kind != kind) continue;
        fprintf(stderr, "    %s event %d: %s uid %lld a %d b %d c %d\n", r->name, i, kind_names[e->kind],
                (long long)e->uid, e->a, e->b, e->c);
    }
    pthread_mutex_unlock(&r->mutex);
}

/** Checks that every event of `r` carried its engine, off the main thread, and fit the record. */
static void check_delivery(recorder_t *r) {
    int wrong, on_main, count;
    pthread_mutex_lock(&r->mutex);
    wrong = r->wrong_engine;
    on_main = r->on_main;
    count = r->count;
    pthread_mutex_unlock(&r->mutex);
    VERIFY(wrong == 0 && on_main == 0 && count <= MAX_EVENTS,
           "engine %s: %d events, all with its handle (%d not), none on the caller's thread (%d were)", r->name, count,
           wrong, on_main);
}

/* ------------------------------------------------------------------------ */
/* Engines, and the server                                                   */
/* ------------------------------------------------------------------------ */

static const char *const app_id = "0123456789abcdef0123456789abcdef";
static char server_url[128];
static agoraish_server_t *server;
static int http_port;

/** A fresh recorder `r` named `name`, and an engine with the full handler recording into it. */
static agoraish_engine_t *create_recorded(recorder_t *r, const char *name, const char *log_name) {
    agoraish_event_handler handler = full_handler(r);
    agoraish_engine_t *engine;
    recorder_init(r, name);
    engine = new_engine(app_id, &handler, server_url[0] ? server_url : NULL, log_name);
    VERIFY(engine != NULL, "create engine %s (last error %d)", name, agoraish_get_last_error());
    pthread_mutex_lock(&r->mutex);
    r->engine = engine;
    pthread_mutex_unlock(&r->mutex);
    return engine;
}

static void forget_engine(agoraish_engine_t *engine);

/** Releases the engine of `r` (if any), checks its deliveries, destroys `r`. */
static void end_engine(recorder_t *r) {
    agoraish_engine_t *engine;
    pthread_mutex_lock(&r->mutex);
    engine = r->engine;
    pthread_mutex_unlock(&r->mutex);
    if (engine) {
        forget_engine(engine);
        VERIFY_RC(agoraish_engine_release(engine, 1), 0, "release engine");
    }
    check_delivery(r);
    monitor_destroy(&r->mutex, &r->cond);
}

/** Joins `channel` as `uid` and waits for on_join_channel_success. */
static int join(recorder_t *r, const char *channel, uint32_t uid) {
    int from = recorder_count(r);
    char what[128];
    snprintf(what, sizeof what, "%s joins %s as %u", r->name, channel, uid);
    VERIFY_RC(agoraish_engine_join_channel(r->engine, NULL, channel, NULL, uid), 0, what);
    return EXPECT_EVENT(r, from, EV_JOIN, uid, ANY, ANY, NULL, what) >= 0;
}

/** A round trip through the server on the link of `r`: everything `r` sent before was handled. */
static void sync_with_server(recorder_t *r) {
    static int n;
    char account[32];
    int from = recorder_count(r);
    snprintf(account, sizeof account, "sync-%d", ++n);
    if (agoraish_engine_register_local_user_account(r->engine, app_id, account) != 0) return;
    wait_event(r, from, EV_REGISTERED, ANY, ANY, ANY, NULL);
}

static int start_server(void) {
    size_t len = sizeof server_url;
    server = create_server(-1, "{\"limits\": {\"joins_per_second_per_address\": 1000}}");
    VERIFY(server != NULL, "create the embedded server (last error %d)", agoraish_get_last_error());
    if (!server) return 0;
    VERIFY_RC(agoraish_server_start(server), 0, "server_start");
    VERIFY_RC(agoraish_server_get_url(server, server_url, &len), 0, "server_get_url");
    http_port = agoraish_server_get_http_port(server);
    VERIFY(http_port > 0, "server_get_http_port: %d", http_port);
    return server_url[0] != '\0' && http_port > 0;
}

/* ------------------------------------------------------------------------ */
/* The server's /metrics                                                     */
/* ------------------------------------------------------------------------ */

typedef struct {
    int ok;
    double packets_out, stun, unsubscribed, audio_muted;
} metrics_t;

/** The value of the sample line that starts with `name` followed by a space; -1 if none. */
static double metric_value(const char *text, const char *name) {
    size_t n = strlen(name);
    const char *p = text;
    while (p && *p) {
        if (strncmp(p, name, n) == 0 && p[n] == ' ') return strtod(p + n + 1, NULL);
        p = strchr(p, '\n');
        if (p) p++;
    }
    return -1;
}

/** GET /metrics from the embedded server. */
static metrics_t read_metrics(void) {
    metrics_t m;
    struct sockaddr_in addr;
    struct timeval timeout;
    static const char request[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    size_t used = 0, size = 65536;
    char *body = malloc(size);
    int fd;
    memset(&m, 0, sizeof m);
    if (!body) return m;
    fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)http_port);
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    timeout.tv_sec = 5;
    timeout.tv_usec = 0;
    if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) == 0 &&
        connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0 &&
        send(fd, request, sizeof request - 1, 0) == (ssize_t)(sizeof request - 1)) {
        for (;;) {
            ssize_t n;
            if (used + 1 >= size) {
                char *bigger = realloc(body, size * 2);
                if (!bigger) break;
                body = bigger;
                size *= 2;
            }
            n = recv(fd, body + used, size - used - 1, 0);
            if (n <= 0) break;
            used += (size_t)n;
        }
    }
    if (fd >= 0) close(fd);
    body[used] = '\0';
    if (strncmp(body, "HTTP/1.1 200", 12) == 0) {
        m.packets_out = metric_value(body, "agoraish_media_packets_out_total");
        m.stun = metric_value(body, "agoraish_media_stun_bindings_total");
        m.unsubscribed = metric_value(body, "agoraish_media_drops_total{reason=\"unsubscribed\"}");
        m.audio_muted = metric_value(body, "agoraish_media_drops_total{reason=\"audio_muted\"}");
        m.ok = m.packets_out >= 0 && m.stun >= 0 && m.unsubscribed >= 0;
    }
    free(body);
    return m;
}

/* ------------------------------------------------------------------------ */
/* The host's audio clock: pushes and pulls 10 ms every 10 ms                */
/* ------------------------------------------------------------------------ */

#define MAX_SENDERS 4
#define MAX_RECEIVERS 4

typedef struct {
    agoraish_engine_t *engine;
    int rate, channels;
    double freq, amplitude, phase;
    int enabled;
    long pushes, failures;
    int last_rc;
} sender_t;

typedef struct {
    agoraish_engine_t *engine;
    int rate, channels;
    int enabled;
    int16_t *capture;       /* interleaved; NULL when not capturing */
    size_t skip, want, got; /* frames */
    long pulls, failures;
    int last_rc;
} receiver_t;

static struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    pthread_t thread;
    int running, stop;
    sender_t senders[MAX_SENDERS];
    receiver_t receivers[MAX_RECEIVERS];
    long ticks, late;
} clk;

/** The clock thread: each tick pushes 10 ms for every sender and pulls 10 ms for every receiver. */
static void *clock_main(void *arg) {
    struct timespec next;
    int16_t buf[48000 / 100 * 2];
    (void)arg;
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&clk.mutex);
    while (!clk.stop) {
        int i;
        struct timespec now;
        for (i = 0; i < MAX_SENDERS; i++) {
            sender_t *s = &clk.senders[i];
            int n = s->rate / 100, rc;
            if (!s->enabled || !s->engine) continue;
            fill_tone(buf, n, s->channels, s->freq, s->amplitude, s->rate, &s->phase);
            rc = agoraish_engine_push_external_audio_frame(s->engine, buf, n);
            s->pushes++;
            if (rc < 0) {
                s->failures++;
                s->last_rc = rc;
            }
        }
        for (i = 0; i < MAX_RECEIVERS; i++) {
            receiver_t *r = &clk.receivers[i];
            int n = r->rate / 100, rc;
            if (!r->enabled || !r->engine) continue;
            rc = agoraish_engine_pull_playback_audio_frame(r->engine, buf, n);
            r->pulls++;
            if (rc != 0) {
                r->failures++;
                r->last_rc = rc;
                continue;
            }
            if (r->capture && r->got < r->want) {
                int k;
                for (k = 0; k < n && r->got < r->want; k++) {
                    if (r->skip > 0) {
                        r->skip--;
                        continue;
                    }
                    memcpy(r->capture + r->got * (size_t)r->channels, buf + (size_t)k * (size_t)r->channels,
                           (size_t)r->channels * sizeof(int16_t));
                    r->got++;
                }
                if (r->got == r->want) pthread_cond_broadcast(&clk.cond);
            }
        }
        clk.ticks++;
        pthread_mutex_unlock(&clk.mutex);
        next.tv_nsec += 10000000L;
        if (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - next.tv_sec) * 1e3 + (double)(now.tv_nsec - next.tv_nsec) / 1e6 > 200.0) {
            next = now; /* far behind: skip ahead, do not burst */
            pthread_mutex_lock(&clk.mutex);
            clk.late++;
            pthread_mutex_unlock(&clk.mutex);
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) {
        }
        pthread_mutex_lock(&clk.mutex);
    }
    pthread_mutex_unlock(&clk.mutex);
    return NULL;
}

static void clock_start(void) {
    memset(&clk, 0, sizeof clk);
    monitor_init(&clk.mutex, &clk.cond);
    clk.running = pthread_create(&clk.thread, NULL, clock_main, NULL) == 0;
    VERIFY(clk.running, "start the host's audio clock thread");
}

static void clock_stop(void) {
    if (clk.running) {
        pthread_mutex_lock(&clk.mutex);
        clk.stop = 1;
        pthread_mutex_unlock(&clk.mutex);
        pthread_join(clk.thread, NULL);
    }
    monitor_destroy(&clk.mutex, &clk.cond);
}

/** Starts pushing a tone into `engine` (whose external source has this rate and channels); returns the sender's slot. */
static int add_sender(agoraish_engine_t *engine, int rate, int channels, double freq, double amplitude) {
    int i, slot = -1;
    pthread_mutex_lock(&clk.mutex);
    for (i = 0; i < MAX_SENDERS && slot < 0; i++) {
        if (clk.senders[i].engine) continue;
        memset(&clk.senders[i], 0, sizeof clk.senders[i]);
        clk.senders[i].engine = engine;
        clk.senders[i].rate = rate;
        clk.senders[i].channels = channels;
        clk.senders[i].freq = freq;
        clk.senders[i].amplitude = amplitude;
        clk.senders[i].enabled = 1;
        slot = i;
    }
    pthread_mutex_unlock(&clk.mutex);
    return slot;
}

/** Starts pulling from `engine` (whose external sink has this rate and channels); returns the receiver's slot. */
static int add_receiver(agoraish_engine_t *engine, int rate, int channels) {
    int i, slot = -1;
    pthread_mutex_lock(&clk.mutex);
    for (i = 0; i < MAX_RECEIVERS && slot < 0; i++) {
        if (clk.receivers[i].engine) continue;
        memset(&clk.receivers[i], 0, sizeof clk.receivers[i]);
        clk.receivers[i].engine = engine;
        clk.receivers[i].rate = rate;
        clk.receivers[i].channels = channels;
        clk.receivers[i].enabled = 1;
        slot = i;
    }
    pthread_mutex_unlock(&clk.mutex);
    return slot;
}

/** Stops every push and pull of `engine` (before it is released). */
static void forget_engine(agoraish_engine_t *engine) {
    int i;
    pthread_mutex_lock(&clk.mutex);
    for (i = 0; i < MAX_SENDERS; i++) {
        if (clk.senders[i].engine == engine) memset(&clk.senders[i], 0, sizeof clk.senders[i]);
    }
    for (i = 0; i < MAX_RECEIVERS; i++) {
        if (clk.receivers[i].engine == engine) memset(&clk.receivers[i], 0, sizeof clk.receivers[i]);
    }
    pthread_mutex_unlock(&clk.mutex);
}

/** Push failures of a sender so far (rc of the last one in `last_rc`). */
static long sender_failures(int slot, int *last_rc) {
    long n;
    pthread_mutex_lock(&clk.mutex);
    n = clk.senders[slot].failures;
    if (last_rc) *last_rc = clk.senders[slot].last_rc;
    pthread_mutex_unlock(&clk.mutex);
    return n;
}

/** Pull failures of a receiver so far. */
static long receiver_failures(int slot, int *last_rc) {
    long n;
    pthread_mutex_lock(&clk.mutex);
    n = clk.receivers[slot].failures;
    if (last_rc) *last_rc = clk.receivers[slot].last_rc;
    pthread_mutex_unlock(&clk.mutex);
    return n;
}

/** What a receiver heard in a window. */
typedef struct {
    int ok;         /* the window was captured */
    int rate, channels;
    double amp[4];  /* at the frequencies asked for */
    double rms;
} heard_t;

/**
 * Lets receiver `slot` pull `skip_ms`, then keeps the next `ms` of what it
 * pulls, and measures the amplitude at each of `n` frequencies (channel 0).
 */
static heard_t hear(int slot, int skip_ms, int ms, const double *freqs, int n) {
    heard_t h;
    receiver_t *r;
    size_t want;
    int16_t *buf;
    struct timespec deadline;
    int i;
    memset(&h, 0, sizeof h);
    if (slot < 0 || slot >= MAX_RECEIVERS) return h;
    r = &clk.receivers[slot];
    pthread_mutex_lock(&clk.mutex);
    h.rate = r->rate;
    h.channels = r->channels;
    want = (size_t)r->rate * (size_t)ms / 1000;
    buf = calloc(want * (size_t)r->channels, sizeof(int16_t));
    if (!buf) {
        pthread_mutex_unlock(&clk.mutex);
        return h;
    }
    r->capture = buf;
    r->skip = (size_t)r->rate * (size_t)skip_ms / 1000;
    r->want = want;
    r->got = 0;
    deadline = deadline_in((skip_ms + ms) / 1000 + 10);
    while (r->got < r->want) {
        if (pthread_cond_timedwait(&clk.cond, &clk.mutex, &deadline) == ETIMEDOUT) break;
    }
    h.ok = r->got == r->want;
    r->capture = NULL;
    pthread_mutex_unlock(&clk.mutex);
    for (i = 0; i < n && i < 4; i++) h.amp[i] = tone_amp(buf, want, h.channels, 0, freqs[i], h.rate);
    h.rms = rms_of(buf, want, h.channels, 0);
    free(buf);
    return h;
}

/** Sleeps `ms` milliseconds (CLOCK_MONOTONIC, absolute deadline). */
static void sleep_ms(int ms) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_nsec -= 1000000000L;
        t.tv_sec++;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR) {
    }
}

/* ------------------------------------------------------------------------ */
/* Files                                                                     */
/* ------------------------------------------------------------------------ */

/** Reads a whole file (malloc'd, the caller frees); NULL if it cannot. */
static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    unsigned char *data = NULL;
    long n;
    *size = 0;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        data = malloc((size_t)n + 1);
        if (data && fread(data, 1, (size_t)n, f) == (size_t)n) {
            *size = (size_t)n;
        } else {
            free(data);
            data = NULL;
        }
    }
    fclose(f);
    return data;
}

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static unsigned le16(const unsigned char *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }

/** Writes `frames` frames of a tone as raw s16le (`channels` equal channels). */
static int write_raw_tone(const char *path, int rate, int channels, double freq, double amplitude, int frames) {
    FILE *f = fopen(path, "wb");
    int16_t block[960];
    double phase = 0;
    int done = 0, ok = 1;
    if (!f) return 0;
    while (done < frames && ok) {
        int n = frames - done < 480 / channels ? frames - done : 480 / channels, i;
        unsigned char bytes[1920];
        fill_tone(block, n, channels, freq, amplitude, rate, &phase);
        for (i = 0; i < n * channels; i++) {
            bytes[2 * i] = (unsigned char)((uint16_t)block[i] & 0xff);
            bytes[2 * i + 1] = (unsigned char)((uint16_t)block[i] >> 8);
        }
        ok = fwrite(bytes, 2, (size_t)(n * channels), f) == (size_t)(n * channels);
        done += n;
    }
    return fclose(f) == 0 && ok;
}

/** Writes a 16-bit PCM WAV file of a tone. */
static int write_wav_tone(const char *path, int rate, int channels, double freq, double amplitude, int frames) {
    unsigned char h[44];
    uint32_t data = (uint32_t)frames * (uint32_t)channels * 2;
    char raw[300];
    size_t size;
    unsigned char *body;
    FILE *f;
    int ok;
    snprintf(raw, sizeof raw, "%s.raw", path);
    if (!write_raw_tone(raw, rate, channels, freq, amplitude, frames)) return 0;
    body = read_file(raw, &size);
    unlink(raw);
    if (!body) return 0;
    memcpy(h, "RIFF\0\0\0\0WAVEfmt \x10\0\0\0\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\x10\0data\0\0\0\0", 44);
#define PUT32(at, v) (h[(at)] = (unsigned char)((v) & 0xff), h[(at) + 1] = (unsigned char)((v) >> 8 & 0xff), \
                      h[(at) + 2] = (unsigned char)((v) >> 16 & 0xff), h[(at) + 3] = (unsigned char)((v) >> 24 & 0xff))
    PUT32(4, 36 + data);
    h[22] = (unsigned char)channels;
    PUT32(24, (uint32_t)rate);
    PUT32(28, (uint32_t)rate * (uint32_t)channels * 2);
    h[32] = (unsigned char)(channels * 2);
    PUT32(40, data);
#undef PUT32
    f = fopen(path, "wb");
    ok = f && fwrite(h, 1, 44, f) == 44 && fwrite(body, 1, size, f) == size;
    if (f) ok = fclose(f) == 0 && ok;
    free(body);
    return ok;
}

/** Samples of raw s16le bytes (host order is little endian on the machines this runs on). */
static int16_t *raw_samples(const unsigned char *bytes, size_t size, size_t *count) {
    size_t i, n = size / 2;
    int16_t *s = malloc(n ? n * sizeof *s : 1);
    *count = 0;
    if (!s) return NULL;
    for (i = 0; i < n; i++) s[i] = (int16_t)(uint16_t)le16(bytes + 2 * i);
    *count = n;
    return s;
}

/** A parsed WAV file written by the engine. */
typedef struct {
    int ok;
    unsigned format, channels, bits, block_align;
    uint32_t rate, byte_rate, riff_size, data_size;
    size_t file_size;
    int16_t *samples; /* data as samples (malloc'd) */
    size_t count;
} wav_t;

/** Reads a WAV file: the RIFF header, the fmt chunk and the data chunk. */
static wav_t read_wav(const char *path) {
    wav_t w;
    size_t size, offset = 12;
    unsigned char *b = read_file(path, &size);
    memset(&w, 0, sizeof w);
    if (!b) return w;
    w.file_size = size;
    if (size >= 12 && memcmp(b, "RIFF", 4) == 0 && memcmp(b + 8, "WAVE", 4) == 0) {
        w.riff_size = le32(b + 4);
        while (offset + 8 <= size) {
            uint32_t chunk = le32(b + offset + 4);
            const unsigned char *body = b + offset + 8;
            if (memcmp(b + offset, "fmt ", 4) == 0 && chunk >= 16 && offset + 8 + 16 <= size) {
                w.format = le16(body);
                w.channels = le16(body + 2);
                w.rate = le32(body + 4);
                w.byte_rate = le32(body + 8);
                w.block_align = le16(body + 12);
                w.bits = le16(body + 14);
            } else if (memcmp(b + offset, "data", 4) == 0) {
                size_t have = size - offset - 8;
                w.data_size = chunk;
                w.samples = raw_samples(body, chunk < have ? chunk : have, &w.count);
                w.ok = w.format != 0;
                break;
            }
            offset += 8 + chunk + (chunk & 1);
        }
    }
    free(b);
    return w;
}

/** Checks an Ogg Opus file: "OggS" first, an OpusHead packet with `channels`
 *  and input rate `rate`, an OpusTags page, and more than `min_size` bytes. */
static void verify_ogg(const char *path, int channels, uint32_t rate, long min_size, const char *what) {
    size_t size, i;
    unsigned char *b = read_file(path, &size);
    int head = -1, tags = 0;
    if (b) {
        for (i = 0; i + 19 <= size && i < 4096; i++) {
            if (head < 0 && memcmp(b + i, "OpusHead", 8) == 0) head = (int)i;
            if (memcmp(b + i, "OpusTags", 8) == 0) tags = 1;
        }
    }
    VERIFY(b && size >= 4 && memcmp(b, "OggS", 4) == 0, "%s: the file begins with \"OggS\" (%zu bytes)", what, size);
    VERIFY(head >= 0 && head < 64, "%s: an \"OpusHead\" packet in the first page (at %d)", what, head);
    if (head >= 0) {
        VERIFY(b[head + 9] == channels && le32(b + head + 12) == rate,
               "%s: OpusHead says %u channel(s), input rate %u (expected %d, %u)", what, b[head + 9],
               le32(b + head + 12), channels, rate);
    }
    VERIFY(tags, "%s: an \"OpusTags\" packet follows", what);
    VERIFY((long)size > min_size, "%s: %zu bytes of Ogg Opus (expected more than %ld)", what, size, min_size);
    free(b);
}

/* ------------------------------------------------------------------------ */
/* Raw audio observers                                                       */
/* ------------------------------------------------------------------------ */

enum { POS_RECORD, POS_PLAYBACK, POS_MIXED, POS_BEFORE, POS_COUNT };
static const char *const pos_names[POS_COUNT] = {"record", "playback", "mixed", "before-mixing"};

/** What the record callback does to the frame. */
typedef enum { DO_NOTHING, DO_HALVE, DO_WRITE_TONE } action_t;

#define OBS_UIDS 4
#define OBS_MAX_SAMPLES (48000 * 2 * 2) /* 2 s of 48 kHz stereo */

typedef struct {
    pthread_mutex_t mutex;
    agoraish_engine_t *engine;
    /* Guarded by mutex. */
    int capturing;
    int want_rate[POS_COUNT], want_channels[POS_COUNT], want_spc[POS_COUNT];
    long calls[POS_COUNT], bad_format[POS_COUNT], bad_header[POS_COUNT], wrong_engine;
    int last_rate[POS_COUNT], last_channels[POS_COUNT], last_spc[POS_COUNT];
    int16_t *buf[POS_COUNT]; /* interleaved, as delivered */
    size_t len[POS_COUNT];   /* samples */
    uint32_t uids[OBS_UIDS];
    int16_t *uid_buf[OBS_UIDS];
    size_t uid_len[OBS_UIDS];
    long other_uids;
    action_t action;
    double write_freq, write_amp, write_phase;
    long nonsilent_write_only; /* write-only frames that arrived with a nonzero sample */
    int reentry_tested, push_rc, pull_rc, release_rc;
} observer_data_t;

static void observer_init(observer_data_t *o, agoraish_engine_t *engine) {
    int i;
    memset(o, 0, sizeof *o);
    pthread_mutex_init(&o->mutex, NULL);
    o->engine = engine;
    for (i = 0; i < POS_COUNT; i++) o->buf[i] = calloc(OBS_MAX_SAMPLES, sizeof(int16_t));
    for (i = 0; i < OBS_UIDS; i++) o->uid_buf[i] = calloc(OBS_MAX_SAMPLES, sizeof(int16_t));
    o->reentry_tested = 1; /* only the formats story tries pushing and pulling from a callback */
}

static void observer_destroy(observer_data_t *o) {
    int i;
    for (i = 0; i < POS_COUNT; i++) free(o->buf[i]);
    for (i = 0; i < OBS_UIDS; i++) free(o->uid_buf[i]);
    pthread_mutex_destroy(&o->mutex);
}

/** Sets what position `pos` should see, and clears what it saw. */
static void observer_expect(observer_data_t *o, int pos, int rate, int channels, int spc) {
    pthread_mutex_lock(&o->mutex);
    o->want_rate[pos] = rate;
    o->want_channels[pos] = channels;
    o->want_spc[pos] = spc;
    o->calls[pos] = o->bad_format[pos] = o->bad_header[pos] = 0;
    o->last_rate[pos] = o->last_channels[pos] = o->last_spc[pos] = 0;
    o->len[pos] = 0;
    pthread_mutex_unlock(&o->mutex);
}

/** Starts or stops keeping samples; starting clears every buffer. */
static void observer_capture(observer_data_t *o, int on) {
    int i;
    pthread_mutex_lock(&o->mutex);
    o->capturing = on;
    if (on) {
        for (i = 0; i < POS_COUNT; i++) o->len[i] = 0;
        for (i = 0; i < OBS_UIDS; i++) {
            o->uids[i] = 0;
            o->uid_len[i] = 0;
        }
        o->other_uids = 0;
    }
    pthread_mutex_unlock(&o->mutex);
}

static long observer_calls(observer_data_t *o, int pos) {
    long n;
    pthread_mutex_lock(&o->mutex);
    n = o->calls[pos];
    pthread_mutex_unlock(&o->mutex);
    return n;
}

/** Books one frame of position `pos` (under the mutex). */
static void observe_frame(observer_data_t *o, int pos, agoraish_engine_t *engine, const agoraish_audio_frame *f) {
    size_t n;
    o->calls[pos]++;
    if (engine != o->engine) o->wrong_engine++;
    o->last_rate[pos] = f->samples_per_sec;
    o->last_channels[pos] = f->channels;
    o->last_spc[pos] = f->samples_per_channel;
    if (f->type != 0 || f->bytes_per_sample != 2 || f->buffer == NULL) o->bad_header[pos]++;
    if (f->samples_per_sec != o->want_rate[pos] || f->channels != o->want_channels[pos] ||
        f->samples_per_channel != o->want_spc[pos]) {
        o->bad_format[pos]++;
    }
    if (!o->capturing || f->buffer == NULL || f->channels < 1 || f->channels > 2) return;
    n = (size_t)f->samples_per_channel * (size_t)f->channels;
    if (o->len[pos] + n <= OBS_MAX_SAMPLES) {
        memcpy(o->buf[pos] + o->len[pos], f->buffer, n * sizeof(int16_t));
        o->len[pos] += n;
    }
}

static int obs_record(agoraish_engine_t *engine, void *user_data, agoraish_audio_frame *frame) {
    observer_data_t *o = user_data;
    int16_t *s = frame->buffer;
    int i, n = frame->samples_per_channel * frame->channels;
    pthread_mutex_lock(&o->mutex);
    if (!o->reentry_tested) {
        int16_t pcm[960];
        memset(pcm, 0, sizeof pcm);
        o->reentry_tested = 1;
        o->push_rc = agoraish_engine_push_external_audio_frame(engine, pcm, 480);
        o->pull_rc = agoraish_engine_pull_playback_audio_frame(engine, pcm, 480);
        o->release_rc = agoraish_engine_release(engine, 0);
    }
    if (o->action == DO_WRITE_TONE && s) {
        for (i = 0; i < n; i++) {
            if (s[i] != 0) {
                o->nonsilent_write_only++;
                break;
            }
        }
    }
    observe_frame(o, POS_RECORD, engine, frame);
    if (s && o->action == DO_HALVE) {
        for (i = 0; i < n; i++) s[i] = (int16_t)(s[i] / 2);
    } else if (s && o->action == DO_WRITE_TONE) {
        fill_tone(s, frame->samples_per_channel, frame->channels, o->write_freq, o->write_amp, frame->samples_per_sec,
                  &o->write_phase);
    }
    pthread_mutex_unlock(&o->mutex);
    return 1;
}

static int obs_playback(agoraish_engine_t *engine, void *user_data, agoraish_audio_frame *frame) {
    observer_data_t *o = user_data;
    pthread_mutex_lock(&o->mutex);
    observe_frame(o, POS_PLAYBACK, engine, frame);
    pthread_mutex_unlock(&o->mutex);
    return 1;
}

static int obs_mixed(agoraish_engine_t *engine, void *user_data, agoraish_audio_frame *frame) {
    observer_data_t *o = user_data;
    pthread_mutex_lock(&o->mutex);
    observe_frame(o, POS_MIXED, engine, frame);
    pthread_mutex_unlock(&o->mutex);
    return 1;
}

static int obs_before_mixing(agoraish_engine_t *engine, void *user_data, uint32_t uid, agoraish_audio_frame *frame) {
    observer_data_t *o = user_data;
    int i;
    pthread_mutex_lock(&o->mutex);
    observe_frame(o, POS_BEFORE, engine, frame);
    if (o->capturing && frame->buffer && frame->channels >= 1 && frame->channels <= 2) {
        size_t n = (size_t)frame->samples_per_channel * (size_t)frame->channels;
        for (i = 0; i < OBS_UIDS; i++) {
            if (o->uids[i] == uid || o->uids[i] == 0) break;
        }
        if (i == OBS_UIDS || uid == 0) {
            o->other_uids++;
        } else {
            o->uids[i] = uid;
            if (o->uid_len[i] + n <= OBS_MAX_SAMPLES) {
                memcpy(o->uid_buf[i] + o->uid_len[i], frame->buffer, n * sizeof(int16_t));
                o->uid_len[i] += n;
            }
        }
    }
    pthread_mutex_unlock(&o->mutex);
    return 1;
}

/** Registers an observer of `positions` whose user_data is `o`. */
static int register_observer(agoraish_engine_t *engine, observer_data_t *o, int positions) {
    agoraish_audio_frame_observer obs;
    memset(&obs, 0, sizeof obs);
    obs.struct_size = sizeof obs;
    obs.user_data = o;
    obs.observed_position = positions;
    obs.on_record_audio_frame = obs_record;
    obs.on_playback_audio_frame = obs_playback;
    obs.on_mixed_audio_frame = obs_mixed;
    obs.on_playback_audio_frame_before_mixing = obs_before_mixing;
    return agoraish_engine_register_audio_frame_observer(engine, &obs);
}

/** The samples of uid `uid` kept by the before-mixing callback (under no lock: call after capturing stopped). */
static const int16_t *uid_samples(observer_data_t *o, uint32_t uid, size_t *len) {
    int i;
    for (i = 0; i < OBS_UIDS; i++) {
        if (o->uids[i] == uid) {
            *len = o->uid_len[i];
            return o->uid_buf[i];
        }
    }
    *len = 0;
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* The ALSA devices of this test                                             */
/* ------------------------------------------------------------------------ */

static char alsa_conf[256], cap_raw[256], play_raw[256], play_wav[256];

/** Private parameters that turn the audio processing of captured audio off, for the
 *  checks that measure what the device path itself does to levels. */
#define RAW_CAPTURE "{\"che.audio.aec.enable\": false, \"che.audio.ans.enable\": false, \"che.audio.agc.enable\": false}"

/** Amplitude and frequency of the tone agtest_cap captures. */
#define CAP_FREQ 1000.0
#define CAP_AMP 8000.0
/** The tone of the WAV file the playback device test plays. */
#define PLAY_FREQ 800.0
#define PLAY_AMP 6000.0

/**
 * Writes the capture file (10 s of a 1 kHz tone, raw s16le mono 48 kHz), the
 * WAV file for the playback device test, and the ALSA configuration, then
 * points ALSA_CONFIG_PATH at alsa.conf and it. Called before anything touches
 * ALSA: libasound reads the variable when it first loads its configuration.
 */
static int set_up_alsa(void) {
    FILE *f;
    char value[600];
    path_in_tmp(alsa_conf, sizeof alsa_conf, "asound.conf");
    path_in_tmp(cap_raw, sizeof cap_raw, "capture-1khz.raw");
    path_in_tmp(play_raw, sizeof play_raw, "playback-out.raw");
    path_in_tmp(play_wav, sizeof play_wav, "playback-800hz-16k.wav");
    if (!write_raw_tone(cap_raw, 48000, 1, CAP_FREQ, CAP_AMP, 48000 * 10)) return 0;
    if (!write_wav_tone(play_wav, 16000, 1, PLAY_FREQ, PLAY_AMP, 16000)) return 0;
    f = fopen(alsa_conf, "w");
    if (!f) return 0;
    fprintf(f,
            "pcm.agtest_cap {\n"
            "    type file\n"
            "    slave.pcm \"null\"\n"
            "    file \"/dev/null\"\n"
            "    infile \"%s\"\n"
            "    format \"raw\"\n"
            "    hint { show on description \"agoraish test capture\" }\n"
            "}\n"
            "pcm.agtest_play {\n"
            "    type file\n"
            "    slave.pcm \"null\"\n"
            "    file \"%s\"\n"
            "    format \"raw\"\n"
            "    hint { show on description \"agoraish test playback\" }\n"
            "}\n",
            cap_raw, play_raw);
    if (fclose(f) != 0) return 0;
    snprintf(value, sizeof value, "/usr/share/alsa/alsa.conf:%s", alsa_conf);
    return setenv("ALSA_CONFIG_PATH", value, 1) == 0;
}

/** Waits until the file at `path` has at least `bytes` bytes; its size then (-1: missing). */
static long wait_file_size(const char *path, long bytes, int seconds) {
    struct timespec deadline = deadline_in(seconds);
    long size = file_size(path);
    while (size < bytes && !past(&deadline)) {
        sleep_ms(20);
        size = file_size(path);
    }
    return size;
}

/** Reads the playback file and checks it holds `freq` at `amplitude` (48 kHz mono raw). */
static void verify_played(const char *what, double freq, double amplitude, double other) {
    size_t size, count, skip = 480;
    unsigned char *bytes = read_file(play_raw, &size);
    int16_t *s = bytes ? raw_samples(bytes, size, &count) : NULL;
    double a = 0, b = 0;
    if (s && count > skip + 4800) {
        a = tone_amp(s + skip, count - skip, 1, 0, freq, 48000);
        b = tone_amp(s + skip, count - skip, 1, 0, other, 48000);
    }
    VERIFY(s && count > skip + 4800 && fabs(db(a, amplitude)) <= 2.0 && db(b, a) < -30.0,
           "%s: the playback file holds %.2f s with %.0f Hz at %+.1f dB from the source (%.0f Hz at %.1f dB)", what,
           s ? (double)count / 48000 : 0.0, freq, db(a, amplitude), other, db(b, a));
    free(s);
    free(bytes);
}

typedef struct {
    int min_volume; /* the local entry's volume must exceed this */
} local_volume_t;

static int pred_local_volume(const event_t *e, const void *ctx) {
    const local_volume_t *v = ctx;
    return e->kind == EV_VOLUME && e->n_speakers >= 1 && e->speakers[0].uid == 0 &&
           (int)e->speakers[0].volume > v->min_volume;
}

static recorder_t rec_d;

static void devices_story(void) {
    agoraish_engine_t *d;
    agoraish_audio_device_info info;
    int kind, from, i;
    char buf[AGORAISH_MAX_DEVICE_ID_LENGTH];
    size_t len;
    local_volume_t nonzero = {0};
    event_t e;
    long s1, s2;

    section("devices: ALSA PCMs of the test's configuration");
    d = create_recorded(&rec_d, "D", "devices.log");
    if (!d) goto done;

    /* Enumeration: both test PCMs, with their descriptions; "default", if listed, first. */
    for (kind = AGORAISH_AUDIO_PLAYOUT_DEVICE; kind <= AGORAISH_AUDIO_RECORDING_DEVICE; kind++) {
        const char *want = kind == AGORAISH_AUDIO_RECORDING_DEVICE ? "agtest_cap" : "agtest_play";
        const char *desc = kind == AGORAISH_AUDIO_RECORDING_DEVICE ? "agoraish test capture" : "agoraish test playback";
        const char *kind_name = kind == AGORAISH_AUDIO_RECORDING_DEVICE ? "recording" : "playout";
        int n = agoraish_engine_get_audio_device_count(d, kind), found = -1, failures = 0, default_at = -1;
        VERIFY(n >= 2, "get_audio_device_count(%s): %d devices (the configuration defines 2)", kind_name, n);
        for (i = 0; i < n; i++) {
            memset(&info, 0, sizeof info);
            if (agoraish_engine_get_audio_device(d, kind, i, &info) != 0) {
                failures++;
                continue;
            }
            printf("     %s device %d: \"%s\" (%s)\n", kind_name, i, info.id, info.name);
            if (strcmp(info.id, want) == 0) {
                found = i;
                VERIFY(strcmp(info.name, desc) == 0, "%s device %s is described as \"%s\" (expected \"%s\")", kind_name,
                       want, info.name, desc);
            }
            if (strcmp(info.id, "default") == 0) default_at = i;
        }
        VERIFY(failures == 0, "get_audio_device(%s, 0..%d): %d calls failed", kind_name, n - 1, failures);
        VERIFY(found >= 0, "the %s devices list %s", kind_name, want);
        VERIFY(default_at <= 0, "\"default\" is listed first or not at all among the %s devices (at %d)", kind_name,
               default_at);
    }

    /* Choosing devices; the defaults are "default". */
    len = sizeof buf;
    VERIFY(agoraish_engine_get_recording_device(d, buf, &len) == 0 && strcmp(buf, "default") == 0,
           "get_recording_device before any choice: \"%s\" (expected \"default\")", buf);
    len = sizeof buf;
    VERIFY(agoraish_engine_get_playback_device(d, buf, &len) == 0 && strcmp(buf, "default") == 0,
           "get_playback_device before any choice: \"%s\" (expected \"default\")", buf);
    VERIFY_RC(agoraish_engine_set_recording_device(d, "agtest_cap"), 0, "set_recording_device(agtest_cap)");
    /* The levels below are the device path's own: the scenario's audio processing
     * (gain control, noise suppression; docs/voice.md) is turned off. */
    VERIFY_RC(agoraish_engine_set_parameters(d, RAW_CAPTURE), 0, "D set_parameters(no audio processing)");
    VERIFY_RC(agoraish_engine_set_playback_device(d, "agtest_play"), 0, "set_playback_device(agtest_play)");
    len = sizeof buf;
    VERIFY(agoraish_engine_get_recording_device(d, buf, &len) == 0 && strcmp(buf, "agtest_cap") == 0 &&
               len == strlen("agtest_cap") + 1,
           "get_recording_device: \"%s\", *len %zu", buf, len);
    len = sizeof buf;
    VERIFY(agoraish_engine_get_playback_device(d, buf, &len) == 0 && strcmp(buf, "agtest_play") == 0 &&
               len == strlen("agtest_play") + 1,
           "get_playback_device: \"%s\", *len %zu", buf, len);

    /* Recording device test: the local volume of the captured tone, every 100 ms. */
    from = recorder_count(&rec_d);
    VERIFY_RC(agoraish_engine_start_recording_device_test(d, 100), 0, "start_recording_device_test(100)");
    i = wait_for(&rec_d, from, pred_local_volume, &nonzero, &e, wait_seconds);
    VERIFY(i >= 0, "recording device test: on_audio_volume_indication with a nonzero local volume%s",
           i >= 0 ? "" : " -- none within the wait");
    if (i >= 0) {
        VERIFY(e.speakers[0].volume <= 255 && e.a > 0 && e.a <= 255,
               "recording device test: local volume %u, total %d (a 1 kHz tone at -15 dBFS; 0..255)",
               e.speakers[0].volume, e.a);
    } else {
        dump_events(&rec_d, from, EV_VOLUME);
    }
    VERIFY_RC(agoraish_engine_stop_recording_device_test(d), 0, "stop_recording_device_test");
    sleep_ms(300);
    from = recorder_count(&rec_d);
    sleep_ms(500);
    VERIFY(count_events(&rec_d, from, EV_VOLUME, ANY, ANY, ANY) == 0,
           "no volume report 300 .. 800 ms after stop_recording_device_test (%d)",
           count_events(&rec_d, from, EV_VOLUME, ANY, ANY, ANY));

    /* Playback device test: the WAV file (16 kHz mono) plays into the playback file, at 48 kHz. */
    unlink(play_raw);
    VERIFY_RC(agoraish_engine_start_playback_device_test(d, play_wav), 0, "start_playback_device_test(16 kHz WAV)");
    s1 = wait_file_size(play_raw, 48000, wait_seconds);
    sleep_ms(200);
    s2 = file_size(play_raw);
    VERIFY(s1 >= 48000 && s2 > s1, "playback device test: %s grows (%ld bytes, then %ld)", "the playback file", s1, s2);
    VERIFY_RC(agoraish_engine_stop_playback_device_test(d), 0, "stop_playback_device_test");
    sleep_ms(200);
    s1 = file_size(play_raw);
    sleep_ms(300);
    s2 = file_size(play_raw);
    VERIFY(s1 == s2, "the playback file stops growing after stop_playback_device_test (%ld, then %ld bytes)", s1, s2);
    verify_played("playback device test", PLAY_FREQ, PLAY_AMP, CAP_FREQ);

    /* Loopback test: what agtest_cap captures plays on agtest_play, and its volume is reported. */
    unlink(play_raw);
    from = recorder_count(&rec_d);
    VERIFY_RC(agoraish_engine_start_audio_device_loopback_test(d, 100), 0, "start_audio_device_loopback_test(100)");
    i = wait_for(&rec_d, from, pred_local_volume, &nonzero, &e, wait_seconds);
    VERIFY(i >= 0, "loopback test: on_audio_volume_indication with a nonzero local volume (%u)",
           i >= 0 ? e.speakers[0].volume : 0);
    s1 = wait_file_size(play_raw, 96000, wait_seconds);
    VERIFY(s1 >= 96000, "loopback test: the playback file grows (%ld bytes)", s1);
    VERIFY_RC(agoraish_engine_stop_audio_device_loopback_test(d), 0, "stop_audio_device_loopback_test");
    sleep_ms(200);
    verify_played("loopback test", CAP_FREQ, CAP_AMP, PLAY_FREQ);

done:
    end_engine(&rec_d);
}

/* ------------------------------------------------------------------------ */
/* Observer formats and recordings of pushed audio (no call)                 */
/* ------------------------------------------------------------------------ */

#define FORMAT_FREQ 500.0
#define FORMAT_AMP 6000.0

/** Pushes `ms` of the formats tone into `engine` (48 kHz mono) at once, 10 ms per call. */
static int push_now(agoraish_engine_t *engine, int ms, double *phase) {
    int16_t buf[480];
    int i, failures = 0;
    for (i = 0; i < ms / 10; i++) {
        fill_tone(buf, 480, 1, FORMAT_FREQ, FORMAT_AMP, 48000, phase);
        if (agoraish_engine_push_external_audio_frame(engine, buf, 480) < 0) failures++;
    }
    return failures;
}

static recorder_t rec_p;
static observer_data_t obs_p;

static void formats_story(void) {
    static const struct {
        int rate, channels, spc;
    } formats[] = {
        {8000, 1, 0},  {8000, 2, 0},  {16000, 1, 0}, {16000, 2, 0},  {32000, 1, 0},    {32000, 2, 0},
        {44100, 1, 0}, {44100, 2, 0}, {48000, 1, 0}, {48000, 2, 0},  {44100, 1, 441},  {44100, 2, 441},
        {16000, 2, 333}, {48000, 1, 1201}, {32000, 1, 3200}, {8000, 1, 80},
    };
    agoraish_engine_t *p;
    double phase = 0;
    size_t f;
    long before;
    char path[300];
    wav_t w;

    section("observer formats, and recordings of pushed audio (no call)");
    p = create_recorded(&rec_p, "P", "formats.log");
    if (!p) goto done;
    VERIFY_RC(agoraish_engine_set_external_audio_source(p, 1, 48000, 1), 0, "P set_external_audio_source(48 kHz mono)");
    VERIFY_RC(agoraish_engine_set_external_audio_sink(p, 1, 48000, 1), 0, "P set_external_audio_sink(48 kHz mono)");
    observer_init(&obs_p, p);
    VERIFY_RC(register_observer(p, &obs_p, AGORAISH_AUDIO_FRAME_POSITION_RECORD), 0,
              "P register_audio_frame_observer(RECORD)");

    for (f = 0; f < COUNT_OF(formats); f++) {
        int rate = formats[f].rate, ch = formats[f].channels;
        int spc = formats[f].spc ? formats[f].spc : rate / 100;
        int failures, c;
        long calls, bad_format, bad_header;
        double expected_calls = 0.6 * rate / spc;
        size_t frames, skip = (size_t)rate / 20;
        double amp[2] = {0, 0}, other = 0;
        char what[96];
        snprintf(what, sizeof what, "record observer at %d Hz, %d ch, %d per call%s", rate, ch, spc,
                 formats[f].spc ? "" : " (0: 10 ms)");
        VERIFY_RC(agoraish_engine_set_recording_audio_frame_parameters(p, rate, ch,
                                                                       AGORAISH_RAW_AUDIO_FRAME_OP_MODE_READ_ONLY,
                                                                       formats[f].spc),
                  0, what);
        observer_expect(&obs_p, POS_RECORD, rate, ch, spc);
        observer_capture(&obs_p, 1);
        failures = push_now(p, 600, &phase);
        observer_capture(&obs_p, 0);
        pthread_mutex_lock(&obs_p.mutex);
        calls = obs_p.calls[POS_RECORD];
        bad_format = obs_p.bad_format[POS_RECORD];
        bad_header = obs_p.bad_header[POS_RECORD];
        frames = obs_p.len[POS_RECORD] / (size_t)ch;
        if (frames > skip + (size_t)rate / 10) {
            for (c = 0; c < ch; c++) {
                amp[c] = tone_amp(obs_p.buf[POS_RECORD] + skip * (size_t)ch, frames - skip, ch, c, FORMAT_FREQ, rate);
            }
            other = tone_amp(obs_p.buf[POS_RECORD] + skip * (size_t)ch, frames - skip, ch, 0, 1700.0, rate);
        }
        VERIFY(failures == 0 && calls >= (long)expected_calls - 3 && calls <= (long)expected_calls + 1,
               "%s: %ld callbacks for 600 ms pushed (expected about %.1f)", what, calls, expected_calls);
        VERIFY(bad_format == 0 && bad_header == 0,
               "%s: every frame says %d Hz, %d ch, %d samples per channel, PCM16 (%ld did not; last %d Hz %d ch %d)",
               what, rate, ch, spc, bad_format + bad_header, obs_p.last_rate[POS_RECORD],
               obs_p.last_channels[POS_RECORD], obs_p.last_spc[POS_RECORD]);
        VERIFY(fabs(db(amp[0], FORMAT_AMP)) <= 1.5 && db(other, amp[0]) < -30.0,
               "%s: the %.0f Hz tone at %+.2f dB (Goertzel at %d Hz; 1700 Hz at %.1f dB)", what, FORMAT_FREQ,
               db(amp[0], FORMAT_AMP), rate, db(other, amp[0]));
        if (ch == 2) {
            VERIFY(fabs(db(amp[1], amp[0])) <= 0.5, "%s: the right channel carries the tone too (%+.2f dB from the left)",
                   what, db(amp[1], amp[0]));
        }
        pthread_mutex_unlock(&obs_p.mutex);
    }
    pthread_mutex_lock(&obs_p.mutex);
    VERIFY(obs_p.wrong_engine == 0, "every callback carried P's handle (%ld did not)", obs_p.wrong_engine);
    pthread_mutex_unlock(&obs_p.mutex);

    /* Removed: no callback after register_audio_frame_observer(NULL) returns. */
    VERIFY_RC(agoraish_engine_register_audio_frame_observer(p, NULL), 0, "P register_audio_frame_observer(NULL)");
    before = observer_calls(&obs_p, POS_RECORD);
    push_now(p, 200, &phase);
    VERIFY(observer_calls(&obs_p, POS_RECORD) == before, "no record callback after the observer was removed (%ld more)",
           observer_calls(&obs_p, POS_RECORD) - before);

    /* Recording the pushed audio (position RECORDING): WAV at 16 kHz. */
    {
        agoraish_audio_recording_config config;
        memset(&config, 0, sizeof config);
        config.struct_size = sizeof config;
        path_in_tmp(path, sizeof path, "pushed-16k.wav");
        config.file_path = path;
        config.sample_rate = 16000;
        config.position = AGORAISH_AUDIO_RECORDING_POSITION_RECORDING;
        config.quality = AGORAISH_AUDIO_RECORDING_QUALITY_MEDIUM;
        VERIFY_RC(agoraish_engine_start_audio_recording(p, &config), 0, "P start_audio_recording(WAV, 16 kHz, RECORDING)");
        push_now(p, 1000, &phase);
        VERIFY_RC(agoraish_engine_stop_audio_recording(p), 0, "P stop_audio_recording");
        w = read_wav(path);
        VERIFY(w.ok && w.format == 1 && w.channels == 1 && w.bits == 16 && w.rate == 16000 && w.byte_rate == 32000 &&
                   w.block_align == 2,
               "pushed-16k.wav: RIFF/WAVE, PCM %u, %u ch, %u bits, %u Hz, %u bytes/s, align %u", w.format, w.channels,
               w.bits, w.rate, w.byte_rate, w.block_align);
        VERIFY(w.ok && w.riff_size == w.file_size - 8 && w.data_size == w.file_size - 44,
               "pushed-16k.wav: RIFF size %u and data size %u match the file (%zu bytes)", w.riff_size, w.data_size,
               w.file_size);
        VERIFY(w.count >= 15200 && w.count <= 16000,
               "pushed-16k.wav: %zu samples for 1 s pushed (expected 15200 .. 16000)", w.count);
        if (w.count > 1600) {
            double a = tone_amp(w.samples + 320, w.count - 320, 1, 0, FORMAT_FREQ, 16000);
            VERIFY(fabs(db(a, FORMAT_AMP)) <= 1.5, "pushed-16k.wav holds the %.0f Hz tone at %+.2f dB", FORMAT_FREQ,
                   db(a, FORMAT_AMP));
        }
        free(w.samples);

        /* Ogg Opus at 48 kHz (not under valgrind: see the header). */
        if (!memcheck) {
            path_in_tmp(path, sizeof path, "pushed.ogg");
            config.sample_rate = 48000;
            config.quality = AGORAISH_AUDIO_RECORDING_QUALITY_HIGH;
            VERIFY_RC(agoraish_engine_start_audio_recording(p, &config), 0,
                      "P start_audio_recording(Ogg, 48 kHz, RECORDING)");
            push_now(p, 1000, &phase);
            VERIFY_RC(agoraish_engine_stop_audio_recording(p), 0, "P stop_audio_recording (Ogg)");
            verify_ogg(path, 1, 48000, 2000, "pushed.ogg");
        }
    }

done:
    end_engine(&rec_p);
    if (p) observer_destroy(&obs_p);
}

static recorder_t rec_q;
static observer_data_t obs_q;

/** Inside a raw audio callback, pushing, pulling and releasing the engine are refused. */
static void reentry_story(void) {
    agoraish_engine_t *q;
    double phase = 0;

    section("calls from inside a raw audio callback");
    q = create_recorded(&rec_q, "Q", "reentry.log");
    if (!q) goto done;
    observer_init(&obs_q, q);
    obs_q.reentry_tested = 0;
    VERIFY_RC(agoraish_engine_set_external_audio_source(q, 1, 48000, 1), 0, "Q set_external_audio_source(48 kHz mono)");
    VERIFY_RC(agoraish_engine_set_external_audio_sink(q, 1, 48000, 1), 0, "Q set_external_audio_sink(48 kHz mono)");
    observer_expect(&obs_q, POS_RECORD, 48000, 1, 480);
    VERIFY_RC(register_observer(q, &obs_q, AGORAISH_AUDIO_FRAME_POSITION_RECORD), 0,
              "Q register_audio_frame_observer(RECORD)");
    push_now(q, 10, &phase);
    pthread_mutex_lock(&obs_q.mutex);
    VERIFY(obs_q.reentry_tested && obs_q.push_rc == -AGORAISH_ERR_REFUSED && obs_q.pull_rc == -AGORAISH_ERR_REFUSED,
           "inside on_record_audio_frame: push returned %d, pull %d (expected -5 both)", obs_q.push_rc, obs_q.pull_rc);
    VERIFY(obs_q.reentry_tested && obs_q.release_rc == -AGORAISH_ERR_REFUSED,
           "inside on_record_audio_frame: agoraish_engine_release(its engine, 0) returned %d (expected -5)",
           obs_q.release_rc);
    pthread_mutex_unlock(&obs_q.mutex);
    /* The refused release left the engine whole: its handle still works. */
    VERIFY_RC(agoraish_engine_get_connection_state(q), AGORAISH_CONNECTION_STATE_DISCONNECTED,
              "Q get_connection_state after the refused release");
    VERIFY_RC(agoraish_engine_register_audio_frame_observer(q, NULL), 0, "Q register_audio_frame_observer(NULL)");
    observer_destroy(&obs_q);
done:
    end_engine(&rec_q);
}

/* ------------------------------------------------------------------------ */
/* Two users: A pushes 500 Hz, B pulls                                       */
/* ------------------------------------------------------------------------ */

#define TONE_A 500.0
#define AMP_TWO 6000.0
#define UID_A 101
#define UID_B 102
/** How long to let a change reach the ear before measuring (longer for silence: the
 *  receiver conceals a stream that stops for up to 200 ms), and how long to measure. */
#define SETTLE_MS 300
#define SILENCE_SETTLE_MS 450
#define WINDOW_MS 300

static recorder_t rec_a, rec_b;
static observer_data_t obs_a;
static int slot_b = -1;
static double base_two; /* what B hears of A's tone with nothing changed */

/** B hears A's tone at `want_db` from the baseline, within `tol` dB; or silence when `silent`. */
static void expect_level(const char *what, int silent, double want_db, double tol) {
    const double freqs[2] = {TONE_A, 700.0};
    heard_t h = hear(slot_b, silent ? SILENCE_SETTLE_MS : SETTLE_MS, WINDOW_MS, freqs, 2);
    if (!h.ok) {
        VERIFY(0, "%s: B's pulls did not deliver %d ms in time", what, WINDOW_MS);
    } else if (silent) {
        VERIFY(db(h.amp[0], base_two) < -40.0, "%s: B hears no %.0f Hz (%.1f dB from the baseline, rms %.0f)", what,
               TONE_A, db(h.amp[0], base_two), h.rms);
    } else {
        VERIFY(fabs(db(h.amp[0], base_two) - want_db) <= tol, "%s: B hears %.0f Hz at %+.2f dB from the baseline (expected %+.2f +- %.1f)",
               what, TONE_A, db(h.amp[0], base_two), want_db, tol);
    }
}

/** How long one window of the server's counters lasts; A sends 50 packets a second. */
#define METRICS_MS 600
#define METRICS_PACKETS (50 * METRICS_MS / 1000)

/** Packets the server sent, less its STUN answers, and copies withheld, over one listening window of B. */
static void metrics_window(const char *what, double *forwarded, double *withheld) {
    const double freqs[1] = {TONE_A};
    metrics_t m0 = read_metrics(), m1;
    hear(slot_b, 0, METRICS_MS, freqs, 1);
    m1 = read_metrics();
    VERIFY(m0.ok && m1.ok, "%s: GET /metrics answers with the media counters", what);
    *forwarded = (m1.packets_out - m0.packets_out) - (m1.stun - m0.stun);
    *withheld = m1.unsubscribed - m0.unsubscribed;
}

typedef struct {
    int64_t uid;
} stats_match_t;

static int pred_remote_stats_flowing(const event_t *e, const void *ctx) {
    const stats_match_t *m = ctx;
    return e->kind == EV_REMOTE_STATS && e->uid == m->uid && e->stats.remote.received_bitrate > 0;
}
static int pred_local_stats_flowing(const event_t *e, const void *ctx) {
    (void)ctx;
    return e->kind == EV_LOCAL_STATS && e->stats.local.sent_bitrate > 0;
}
static int pred_rtc_stats_audio(const event_t *e, const void *ctx) {
    (void)ctx;
    return e->kind == EV_RTC_STATS && e->stats.rtc.rx_audio_bytes > 0;
}

/** The statistics callbacks of the two-user call (B's receiving side only when B keeps `streams`). */
static void check_stats(int streams) {
    stats_match_t m = {UID_A};
    event_t e;
    int i;
    i = wait_for(&rec_a, 0, pred_local_stats_flowing, NULL, &e, wait_seconds);
    VERIFY(i >= 0 && e.stats.local.struct_size == sizeof(agoraish_local_audio_stats) && e.stats.local.num_channels == 1 &&
               e.stats.local.sent_sample_rate == 48000 && e.stats.local.sent_bitrate > 0 &&
               e.stats.local.sent_bitrate < 200,
           "A on_local_audio_stats: size %u, %d ch, %d Hz, %d kbps", e.stats.local.struct_size,
           e.stats.local.num_channels, e.stats.local.sent_sample_rate, e.stats.local.sent_bitrate);
    if (!streams) return;
    i = wait_for(&rec_b, 0, pred_remote_stats_flowing, &m, &e, wait_seconds);
    VERIFY(i >= 0 && e.stats.remote.struct_size == sizeof(agoraish_remote_audio_stats) &&
               e.stats.remote.num_channels == 1 && e.stats.remote.received_sample_rate == 48000 &&
               e.stats.remote.total_active_time > 0 && e.stats.remote.quality >= 1 && e.stats.remote.quality <= 5 &&
               e.stats.remote.end_to_end_delay >= e.stats.remote.jitter_buffer_delay,
           "B on_remote_audio_stats(A): size %u, %d kbps, %d ch, %d Hz, quality %d, active %d ms, loss %d %%, "
           "jitter buffer %d ms, end to end %d ms",
           e.stats.remote.struct_size, e.stats.remote.received_bitrate, e.stats.remote.num_channels,
           e.stats.remote.received_sample_rate, e.stats.remote.quality, e.stats.remote.total_active_time,
           e.stats.remote.audio_loss_rate, e.stats.remote.jitter_buffer_delay, e.stats.remote.end_to_end_delay);
    i = wait_for(&rec_b, 0, pred_rtc_stats_audio, NULL, &e, wait_seconds);
    VERIFY(i >= 0 && e.stats.rtc.struct_size == sizeof(agoraish_rtc_stats) && e.stats.rtc.user_count == 2 &&
               e.stats.rtc.rx_bytes >= e.stats.rtc.rx_audio_bytes && e.stats.rtc.rx_audio_bytes > 0,
           "B on_rtc_stats: size %u, %u users, rx %llu bytes of which audio %llu, rx audio %u kbps", e.stats.rtc.struct_size,
           e.stats.rtc.user_count, (unsigned long long)e.stats.rtc.rx_bytes,
           (unsigned long long)e.stats.rtc.rx_audio_bytes, e.stats.rtc.rx_audio_kbitrate);
}

static void two_party_story(void) {
    agoraish_engine_t *a, *b;
    int fa, fb, i, j, rc, sa = -1;
    /* Whether B keeps a stream of A's audio (see the header: not under valgrind). */
    int streams = !memcheck;
    event_t e;
    long failures;
    char path[300];

    section("two users: A pushes 500 Hz, B pulls");
    a = create_recorded(&rec_a, "A", "two-a.log");
    b = create_recorded(&rec_b, "B", "two-b.log");
    observer_init(&obs_a, a);
    if (!a || !b) goto done;
    /* Sources and sinks everywhere: no ALSA device opens in this story. */
    VERIFY_RC(agoraish_engine_set_external_audio_source(a, 1, 48000, 1), 0, "A set_external_audio_source");
    VERIFY_RC(agoraish_engine_set_external_audio_sink(a, 1, 48000, 1), 0, "A set_external_audio_sink");
    VERIFY_RC(agoraish_engine_set_external_audio_source(b, 1, 48000, 1), 0, "B set_external_audio_source (silent)");
    VERIFY_RC(agoraish_engine_set_external_audio_sink(b, 1, 48000, 1), 0, "B set_external_audio_sink");
    if (!streams) VERIFY_RC(agoraish_engine_disable_audio(b), 0, "B disable_audio (B receives no stream)");
    if (!join(&rec_a, "audio-two", UID_A) || !join(&rec_b, "audio-two", UID_B)) goto leave;
    if (!streams) EXPECT_EVENT(&rec_a, 0, EV_USER_MUTE, UID_B, 1, ANY, NULL, "B joined with audio disabled");
    sa = add_sender(a, 48000, 1, TONE_A, AMP_TWO);
    slot_b = add_receiver(b, 48000, 1);

    /* Audio starts: local states, first frames, remote states. */
    i = EXPECT_EVENT(&rec_a, 0, EV_LOCAL_STATE, ANY, AGORAISH_LOCAL_AUDIO_STREAM_STATE_RECORDING, 0, NULL,
                     "A starts pushing");
    j = EXPECT_EVENT(&rec_a, 0, EV_LOCAL_STATE, ANY, AGORAISH_LOCAL_AUDIO_STREAM_STATE_ENCODING, 0, NULL,
                     "A's first frame is sent");
    VERIFY(i >= 0 && j > i, "A: RECORDING (event %d) before ENCODING (event %d)", i, j);
    EXPECT_EVENT(&rec_a, 0, EV_FIRST_LOCAL, ANY, ANY, ANY, NULL, "A's first audio is published");
    if (streams) {
        i = EXPECT_EVENT(&rec_b, 0, EV_FIRST_REMOTE_FRAME, UID_A, ANY, ANY, NULL, "A's first packet reaches B");
        EXPECT_EVENT(&rec_b, 0, EV_REMOTE_STATE, UID_A, AGORAISH_REMOTE_AUDIO_STATE_STARTING, ANY, NULL,
                     "A's stream starts at B");
        j = EXPECT_EVENT(&rec_b, 0, EV_FIRST_REMOTE_DECODED, UID_A, ANY, ANY, NULL, "A's first frame is decoded at B");
        VERIFY(i >= 0 && j > i, "B: first_remote_audio_frame (event %d) before first_remote_audio_decoded (event %d)", i,
               j);
        EXPECT_EVENT(&rec_b, 0, EV_REMOTE_STATE, UID_A, AGORAISH_REMOTE_AUDIO_STATE_DECODING, ANY, NULL,
                     "A's stream plays at B");
    }
    if (!quick) {
        const double freqs[2] = {TONE_A, 700.0};
        heard_t h = hear(slot_b, 300, 600, freqs, 2);
        base_two = h.amp[0];
        VERIFY(h.ok && fabs(db(base_two, AMP_TWO)) <= 2.0 && db(h.amp[1], base_two) < -30.0,
               "baseline: B hears %.0f Hz at %+.2f dB from what A pushes (700 Hz at %.1f dB)", TONE_A,
               db(base_two, AMP_TWO), db(h.amp[1], base_two));
    }

    /* A mutes its stream. */
    fa = recorder_count(&rec_a);
    fb = recorder_count(&rec_b);
    VERIFY_RC(agoraish_engine_mute_local_audio_stream(a, 1), 0, "A mute_local_audio_stream(1)");
    EXPECT_EVENT(&rec_b, fb, EV_USER_MUTE, UID_A, 1, ANY, NULL, "A muted");
    if (streams && EXPECT_EVENT(&rec_b, fb, EV_REMOTE_STATE, UID_A, AGORAISH_REMOTE_AUDIO_STATE_STOPPED,
                                AGORAISH_REMOTE_AUDIO_REASON_REMOTE_MUTED, NULL, "A muted") < 0) {
        dump_events(&rec_b, fb, EV_REMOTE_STATE);
    }
    if (!quick) expect_level("A muted its stream", 1, 0, 0);
    fb = recorder_count(&rec_b);
    VERIFY_RC(agoraish_engine_mute_local_audio_stream(a, 0), 0, "A mute_local_audio_stream(0)");
    EXPECT_EVENT(&rec_b, fb, EV_USER_MUTE, UID_A, 0, ANY, NULL, "A unmuted");
    if (streams && EXPECT_EVENT(&rec_b, fb, EV_REMOTE_STATE, UID_A, AGORAISH_REMOTE_AUDIO_STATE_DECODING,
                                AGORAISH_REMOTE_AUDIO_REASON_REMOTE_UNMUTED, NULL, "A unmuted") < 0) {
        dump_events(&rec_b, fb, EV_REMOTE_STATE);
    }
    EXPECT_EVENT(&rec_a, fa, EV_FIRST_LOCAL, ANY, ANY, ANY, NULL, "A's first audio after unmuting is published");
    if (!quick) expect_level("A unmuted its stream", 0, 0, 1.5);

    /* B mutes A's stream: the server withholds B's copies. */
    if (!quick) {
        double forwarded, withheld;
        metrics_window("A -> B flowing", &forwarded, &withheld);
        VERIFY(forwarded >= METRICS_PACKETS / 2, "before B mutes A: the server sent %.0f packets in %d ms (besides STUN)",
               forwarded, METRICS_MS);
    }
    fb = recorder_count(&rec_b);
    VERIFY_RC(agoraish_engine_mute_remote_audio_stream(b, UID_A, 1), 0, "B mute_remote_audio_stream(A, 1)");
    if (streams && EXPECT_EVENT(&rec_b, fb, EV_REMOTE_STATE, UID_A, AGORAISH_REMOTE_AUDIO_STATE_STOPPED,
                                AGORAISH_REMOTE_AUDIO_REASON_LOCAL_MUTED, NULL, "B muted A") < 0) {
        dump_events(&rec_b, fb, EV_REMOTE_STATE);
    }
    sync_with_server(&rec_b);
    if (!quick) {
        double forwarded, withheld;
        sleep_ms(100);
        metrics_window("B muted A", &forwarded, &withheld);
        VERIFY(withheld >= METRICS_PACKETS / 2,
               "B muted A: agoraish_media_drops_total{reason=\"unsubscribed\"} grew by %.0f in %d ms", withheld,
               METRICS_MS);
        /* No media; RTCP only: receiver reports answering A's sender reports, and
         * transport-wide feedback to A on its uplink (one every 100 ms). */
        VERIFY(forwarded <= 3 + METRICS_MS / 100 + 1,
               "B muted A: the server sent %.0f packets in %d ms besides STUN (expected no media, only RTCP)", forwarded,
               METRICS_MS);
        expect_level("B muted A", 1, 0, 0);
    }
    fb = recorder_count(&rec_b);
    VERIFY_RC(agoraish_engine_mute_remote_audio_stream(b, UID_A, 0), 0, "B mute_remote_audio_stream(A, 0)");
    if (streams && EXPECT_EVENT(&rec_b, fb, EV_REMOTE_STATE, UID_A, AGORAISH_REMOTE_AUDIO_STATE_DECODING,
                                AGORAISH_REMOTE_AUDIO_REASON_LOCAL_UNMUTED, NULL, "B unmuted A") < 0) {
        dump_events(&rec_b, fb, EV_REMOTE_STATE);
    }
    if (!quick) {
        double forwarded, withheld;
        sync_with_server(&rec_b);
        metrics_window("B unmuted A", &forwarded, &withheld);
        VERIFY(forwarded >= METRICS_PACKETS / 2 && withheld <= 2,
               "B unmuted A: the server sent %.0f packets in %d ms besides STUN, withheld %.0f", forwarded, METRICS_MS,
               withheld);
        expect_level("B unmuted A", 0, 0, 1.5);
    }

    /* B mutes everyone, then no one. */
    fb = recorder_count(&rec_b);
    VERIFY_RC(agoraish_engine_mute_all_remote_audio_streams(b, 1), 0, "B mute_all_remote_audio_streams(1)");
    if (streams) {
        EXPECT_EVENT(&rec_b, fb, EV_REMOTE_STATE, UID_A, AGORAISH_REMOTE_AUDIO_STATE_STOPPED,
                     AGORAISH_REMOTE_AUDIO_REASON_LOCAL_MUTED, NULL, "B muted everyone");
    }
    if (!quick) expect_level("B muted everyone", 1, 0, 0);
    fb = recorder_count(&rec_b);
    VERIFY_RC(agoraish_engine_mute_all_remote_audio_streams(b, 0), 0, "B mute_all_remote_audio_streams(0)");
    if (streams) {
        EXPECT_EVENT(&rec_b, fb, EV_REMOTE_STATE, UID_A, AGORAISH_REMOTE_AUDIO_STATE_DECODING,
                     AGORAISH_REMOTE_AUDIO_REASON_LOCAL_UNMUTED, NULL, "B unmuted everyone");
    }
    if (!quick) expect_level("B unmuted everyone", 0, 0, 1.5);

    /* A disables local audio: STOPPED locally, a mute for B. */
    fa = recorder_count(&rec_a);
    fb = recorder_count(&rec_b);
    VERIFY_RC(agoraish_engine_enable_local_audio(a, 0), 0, "A enable_local_audio(0)");
    EXPECT_EVENT(&rec_a, fa, EV_LOCAL_STATE, ANY, AGORAISH_LOCAL_AUDIO_STREAM_STATE_STOPPED,
                 AGORAISH_LOCAL_AUDIO_STREAM_ERROR_OK, NULL, "A disabled local audio");
    EXPECT_EVENT(&rec_b, fb, EV_USER_MUTE, UID_A, 1, ANY, NULL, "A disabled local audio");
    if (streams) {
        EXPECT_EVENT(&rec_b, fb, EV_REMOTE_STATE, UID_A, AGORAISH_REMOTE_AUDIO_STATE_STOPPED,
                     AGORAISH_REMOTE_AUDIO_REASON_REMOTE_MUTED, NULL, "A disabled local audio");
    }
    if (!quick) expect_level("A disabled local audio", 1, 0, 0);
    fa = recorder_count(&rec_a);
    fb = recorder_count(&rec_b);
    VERIFY_RC(agoraish_engine_enable_local_audio(a, 1), 0, "A enable_local_audio(1)");
    i = EXPECT_EVENT(&rec_a, fa, EV_LOCAL_STATE, ANY, AGORAISH_LOCAL_AUDIO_STREAM_STATE_RECORDING, ANY, NULL,
                     "A enabled local audio");
    j = EXPECT_EVENT(&rec_a, fa, EV_LOCAL_STATE, ANY, AGORAISH_LOCAL_AUDIO_STREAM_STATE_ENCODING, ANY, NULL,
                     "A enabled local audio");
    VERIFY(i >= 0 && j > i, "A: RECORDING (event %d) before ENCODING (event %d) after enable_local_audio(1)", i, j);
    EXPECT_EVENT(&rec_a, fa, EV_FIRST_LOCAL, ANY, ANY, ANY, NULL, "A's first audio after enabling is published");
    EXPECT_EVENT(&rec_b, fb, EV_USER_MUTE, UID_A, 0, ANY, NULL, "A enabled local audio");
    if (streams) {
        EXPECT_EVENT(&rec_b, fb, EV_REMOTE_STATE, UID_A, AGORAISH_REMOTE_AUDIO_STATE_DECODING,
                     AGORAISH_REMOTE_AUDIO_REASON_REMOTE_UNMUTED, NULL, "A enabled local audio");
    }
    if (!quick) expect_level("A enabled local audio", 0, 0, 1.5);

    /* disable_audio / enable_audio on the sender. */
    fa = recorder_count(&rec_a);
    fb = recorder_count(&rec_b);
    VERIFY_RC(agoraish_engine_disable_audio(a), 0, "A disable_audio");
    EXPECT_EVENT(&rec_a, fa, EV_LOCAL_STATE, ANY, AGORAISH_LOCAL_AUDIO_STREAM_STATE_STOPPED, ANY, NULL,
                 "A disabled audio");
    EXPECT_EVENT(&rec_b, fb, EV_USER_MUTE, UID_A, 1, ANY, NULL, "A disabled audio");
    if (!quick) expect_level("A disabled audio", 1, 0, 0);
    fa = recorder_count(&rec_a);
    fb = recorder_count(&rec_b);
    VERIFY_RC(agoraish_engine_enable_audio(a), 0, "A enable_audio");
    EXPECT_EVENT(&rec_a, fa, EV_LOCAL_STATE, ANY, AGORAISH_LOCAL_AUDIO_STREAM_STATE_ENCODING, ANY, NULL,
                 "A enabled audio");
    EXPECT_EVENT(&rec_b, fb, EV_USER_MUTE, UID_A, 0, ANY, NULL, "A enabled audio");
    if (streams) {
        EXPECT_EVENT(&rec_b, fb, EV_REMOTE_STATE, UID_A, AGORAISH_REMOTE_AUDIO_STATE_DECODING, ANY, NULL,
                     "A enabled audio");
    }
    if (!quick) expect_level("A enabled audio", 0, 0, 1.5);

    /* disable_audio / enable_audio on the receiver: nothing is received or played. */
    if (streams) {
        fa = recorder_count(&rec_a);
        VERIFY_RC(agoraish_engine_disable_audio(b), 0, "B disable_audio");
        EXPECT_EVENT(&rec_a, fa, EV_USER_MUTE, UID_B, 1, ANY, NULL, "B disabled audio");
        if (!quick) expect_level("B disabled audio", 1, 0, 0);
        fa = recorder_count(&rec_a);
        VERIFY_RC(agoraish_engine_enable_audio(b), 0, "B enable_audio");
        EXPECT_EVENT(&rec_a, fa, EV_USER_MUTE, UID_B, 0, ANY, NULL, "B enabled audio");
        if (!quick) expect_level("B enabled audio", 0, 0, 1.5);
    }

    /* adjust_recording_signal_volume on A: 50 -> -6 dB, 200 -> +6 dB, 0 -> silence. */
    if (!quick) {
        VERIFY_RC(agoraish_engine_adjust_recording_signal_volume(a, 50), 0, "A adjust_recording_signal_volume(50)");
        expect_level("A recording volume 50", 0, -6.02, 1.5);
        VERIFY_RC(agoraish_engine_adjust_recording_signal_volume(a, 200), 0, "A adjust_recording_signal_volume(200)");
        expect_level("A recording volume 200", 0, 6.02, 1.5);
        VERIFY_RC(agoraish_engine_adjust_recording_signal_volume(a, 0), 0, "A adjust_recording_signal_volume(0)");
        expect_level("A recording volume 0", 1, 0, 0);
        VERIFY_RC(agoraish_engine_adjust_recording_signal_volume(a, 100), 0, "A adjust_recording_signal_volume(100)");
        expect_level("A recording volume 100", 0, 0, 1.5);
    }

    /* A record observer on A: read-write halves the audio, write-only replaces it. */
    VERIFY_RC(agoraish_engine_set_recording_audio_frame_parameters(a, 48000, 1, AGORAISH_RAW_AUDIO_FRAME_OP_MODE_READ_WRITE, 0),
              0, "A set_recording_audio_frame_parameters(48 kHz, mono, READ_WRITE)");
    observer_expect(&obs_a, POS_RECORD, 48000, 1, 480);
    pthread_mutex_lock(&obs_a.mutex);
    obs_a.action = DO_HALVE;
    pthread_mutex_unlock(&obs_a.mutex);
    VERIFY_RC(register_observer(a, &obs_a, AGORAISH_AUDIO_FRAME_POSITION_RECORD), 0, "A register_audio_frame_observer(RECORD)");
    if (!quick) {
        expect_level("A's observer scales by 0.5 (read-write)", 0, -6.02, 1.5);
    } else {
        sleep_ms(1000);
    }
    VERIFY(observer_calls(&obs_a, POS_RECORD) > 0, "A's record observer is called (%ld calls)",
           observer_calls(&obs_a, POS_RECORD));
    VERIFY_RC(agoraish_engine_set_recording_audio_frame_parameters(a, 48000, 1, AGORAISH_RAW_AUDIO_FRAME_OP_MODE_WRITE_ONLY, 0),
              0, "A set_recording_audio_frame_parameters(48 kHz, mono, WRITE_ONLY)");
    sleep_ms(100);
    pthread_mutex_lock(&obs_a.mutex);
    obs_a.action = DO_WRITE_TONE;
    obs_a.write_freq = 700.0;
    obs_a.write_amp = AMP_TWO;
    obs_a.nonsilent_write_only = 0;
    pthread_mutex_unlock(&obs_a.mutex);
    if (!quick) {
        const double freqs[2] = {TONE_A, 700.0};
        heard_t h = hear(slot_b, SETTLE_MS, WINDOW_MS, freqs, 2);
        VERIFY(h.ok && fabs(db(h.amp[1], AMP_TWO)) <= 2.0 && db(h.amp[0], base_two) < -30.0,
               "A's observer writes 700 Hz over silence (write-only): B hears 700 Hz at %+.2f dB from what was "
               "written, 500 Hz at %.1f dB from the baseline",
               db(h.amp[1], AMP_TWO), db(h.amp[0], base_two));
    } else {
        sleep_ms(1000);
    }
    pthread_mutex_lock(&obs_a.mutex);
    VERIFY(obs_a.nonsilent_write_only == 0 && obs_a.bad_format[POS_RECORD] == 0,
           "write-only: every buffer arrived silent (%ld did not), every frame 48000 Hz mono 480 (%ld not)",
           obs_a.nonsilent_write_only, obs_a.bad_format[POS_RECORD]);
    pthread_mutex_unlock(&obs_a.mutex);
    VERIFY_RC(agoraish_engine_register_audio_frame_observer(a, NULL), 0, "A register_audio_frame_observer(NULL)");
    {
        long before = observer_calls(&obs_a, POS_RECORD);
        sleep_ms(200);
        VERIFY(observer_calls(&obs_a, POS_RECORD) == before, "A's observer gets no callback once removed (%ld more)",
               observer_calls(&obs_a, POS_RECORD) - before);
    }
    if (!quick) expect_level("A's observer removed", 0, 0, 1.5);

    /* B records what it plays: WAV at 16 kHz, then Ogg (which finishes the WAV). */
    if (!quick) {
        agoraish_audio_recording_config config;
        const double freqs[1] = {TONE_A};
        char ogg[300];
        wav_t w;
        memset(&config, 0, sizeof config);
        config.struct_size = sizeof config;
        path_in_tmp(path, sizeof path, "b-playback-16k.wav");
        path_in_tmp(ogg, sizeof ogg, "b-playback.ogg");
        config.file_path = path;
        config.sample_rate = 16000;
        config.position = AGORAISH_AUDIO_RECORDING_POSITION_MIXED_PLAYBACK;
        config.quality = AGORAISH_AUDIO_RECORDING_QUALITY_MEDIUM;
        VERIFY_RC(agoraish_engine_start_audio_recording(b, &config), 0, "B start_audio_recording(WAV, 16 kHz, MIXED_PLAYBACK)");
        hear(slot_b, 0, 800, freqs, 1);
        config.file_path = ogg;
        config.sample_rate = 48000;
        VERIFY_RC(agoraish_engine_start_audio_recording(b, &config), 0, "B start_audio_recording(Ogg) while recording");
        w = read_wav(path);
        VERIFY(w.ok && w.format == 1 && w.channels == 1 && w.bits == 16 && w.rate == 16000 &&
                   w.riff_size == w.file_size - 8 && w.data_size == w.file_size - 44,
               "b-playback-16k.wav, finished by the next start: PCM %u, %u ch, %u bits, %u Hz, sizes %u/%u of %zu",
               w.format, w.channels, w.bits, w.rate, w.riff_size, w.data_size, w.file_size);
        VERIFY(w.count >= 11200 && w.count <= 19200, "b-playback-16k.wav: %.2f s for about 0.8 s of playback",
               (double)w.count / 16000);
        if (w.count > 3200) {
            double a16 = tone_amp(w.samples + 1600, w.count - 1600, 1, 0, TONE_A, 16000);
            VERIFY(fabs(db(a16, base_two)) <= 2.0, "b-playback-16k.wav holds A's tone at %+.2f dB from what B hears",
                   db(a16, base_two));
        }
        free(w.samples);
        hear(slot_b, 0, 400, freqs, 1);
        VERIFY_RC(agoraish_engine_stop_audio_recording(b), 0, "B stop_audio_recording");
        verify_ogg(ogg, 1, 48000, 1000, "b-playback.ogg");
    }

    check_stats(streams);

    /* A leaves: B sees it go offline. */
    failures = sender_failures(sa, &rc);
    VERIFY(failures == 0, "A's pushes all succeeded (%ld failed, last %d)", failures, rc);
    fb = recorder_count(&rec_b);
    forget_engine(a);
    VERIFY_RC(agoraish_engine_leave_channel(a), 0, "A leave_channel");
    if (EXPECT_EVENT(&rec_a, 0, EV_LEAVE, ANY, ANY, ANY, &e, "A left") >= 0) {
        VERIFY(e.stats.rtc.tx_audio_bytes > 0 && e.stats.rtc.tx_audio_bytes <= e.stats.rtc.tx_bytes,
               "A's leave statistics: %llu bytes of audio sent of %llu", (unsigned long long)e.stats.rtc.tx_audio_bytes,
               (unsigned long long)e.stats.rtc.tx_bytes);
    }
    EXPECT_EVENT(&rec_b, fb, EV_USER_OFFLINE, UID_A, AGORAISH_USER_OFFLINE_QUIT, ANY, NULL, "A left");
    if (streams) {
        EXPECT_EVENT(&rec_b, fb, EV_REMOTE_STATE, UID_A, AGORAISH_REMOTE_AUDIO_STATE_STOPPED,
                     AGORAISH_REMOTE_AUDIO_REASON_REMOTE_OFFLINE, NULL, "A left");
    }

leave:
    if (slot_b >= 0) {
        failures = receiver_failures(slot_b, &rc);
        VERIFY(failures == 0, "B's pulls all succeeded (%ld failed, last %d)", failures, rc);
    }
    VERIFY(count_events(&rec_a, 0, EV_ERROR, ANY, ANY, ANY) == 0 && count_events(&rec_b, 0, EV_ERROR, ANY, ANY, ANY) == 0,
           "no on_error in the two-user call");
done:
    end_engine(&rec_a);
    end_engine(&rec_b);
    observer_destroy(&obs_a);
    slot_b = -1;
}

/* ------------------------------------------------------------------------ */
/* Three users: A pushes 500 Hz, B 1200 Hz, C pulls                          */
/* ------------------------------------------------------------------------ */

#define TONE_B 1200.0
#define AMP_THREE 4000.0
#define UID_A3 301
#define UID_B3 302
#define UID_C3 303

static recorder_t rec_a3, rec_b3, rec_c3;
static observer_data_t obs_c;

/** What C hears of both tones now (after SETTLE_MS), amplitudes at 500 and 1200 Hz in `amp`. */
static heard_t hear_c(int slot, int window_ms) {
    const double freqs[2] = {TONE_A, TONE_B};
    return hear(slot, SETTLE_MS, window_ms, freqs, 2);
}

/** Amplitudes of both tones in what one position or uid saw (channel `channel` of interleaved samples). */
static void tones_in(const int16_t *x, size_t samples, int channels, int channel, int rate, double *a, double *b) {
    size_t frames = samples / (size_t)channels, skip = (size_t)rate / 10;
    *a = *b = 0;
    if (frames <= skip + (size_t)rate / 10) return;
    *a = tone_amp(x + skip * (size_t)channels, frames - skip, channels, channel, TONE_A, rate);
    *b = tone_amp(x + skip * (size_t)channels, frames - skip, channels, channel, TONE_B, rate);
}

typedef struct {
    uint32_t uid1, uid2;
} two_speakers_t;

static int pred_two_speakers(const event_t *e, const void *ctx) {
    const two_speakers_t *t = ctx;
    unsigned i;
    int seen1 = 0, seen2 = 0;
    if (e->kind != EV_VOLUME) return 0;
    for (i = 0; i < e->n_speakers && i < 4; i++) {
        if (e->speakers[i].uid == t->uid1 && e->speakers[i].volume > 0 && e->speakers[i].vad == 1) seen1 = 1;
        if (e->speakers[i].uid == t->uid2 && e->speakers[i].volume > 0 && e->speakers[i].vad == 1) seen2 = 1;
    }
    return seen1 && seen2 && e->a > 0;
}

static int pred_local_report(const event_t *e, const void *ctx) {
    (void)ctx;
    return e->kind == EV_VOLUME && e->n_speakers == 1 && e->speakers[0].uid == 0;
}

static void three_party_story(void) {
    agoraish_engine_t *a, *b, *c;
    int slot_c = -1, from, i;
    heard_t h;
    double mix_a = 0, mix_b = 0;
    two_speakers_t both = {UID_A3, UID_B3};
    event_t e;
    int64_t speaker_before;

    section("three users: A pushes 500 Hz, B 1200 Hz, C pulls the mix");
    c = create_recorded(&rec_c3, "C", "three-c.log");
    a = create_recorded(&rec_a3, "A3", "three-a.log");
    b = create_recorded(&rec_b3, "B3", "three-b.log");
    observer_init(&obs_c, c);
    if (!a || !b || !c) goto done;
    VERIFY_RC(agoraish_engine_set_external_audio_source(c, 1, 48000, 1), 0, "C set_external_audio_source (silent)");
    VERIFY_RC(agoraish_engine_set_external_audio_sink(c, 1, 32000, 1), 0, "C set_external_audio_sink(32 kHz mono)");
    VERIFY_RC(agoraish_engine_set_external_audio_source(a, 1, 48000, 1), 0, "A3 set_external_audio_source");
    VERIFY_RC(agoraish_engine_set_external_audio_sink(a, 1, 48000, 1), 0, "A3 set_external_audio_sink");
    VERIFY_RC(agoraish_engine_set_external_audio_source(b, 1, 48000, 1), 0, "B3 set_external_audio_source");
    VERIFY_RC(agoraish_engine_set_external_audio_sink(b, 1, 48000, 1), 0, "B3 set_external_audio_sink");
    /* C observes the mix (32 kHz mono), local + remote (16 kHz stereo) and each user (16 kHz mono). */
    VERIFY_RC(agoraish_engine_set_playback_audio_frame_parameters(c, 32000, 1, AGORAISH_RAW_AUDIO_FRAME_OP_MODE_READ_ONLY, 0),
              0, "C set_playback_audio_frame_parameters(32 kHz, mono)");
    VERIFY_RC(agoraish_engine_set_mixed_audio_frame_parameters(c, 16000, 2, 0), 0,
              "C set_mixed_audio_frame_parameters(16 kHz, stereo)");
    VERIFY_RC(agoraish_engine_set_playback_audio_frame_before_mixing_parameters(c, 16000, 1), 0,
              "C set_playback_audio_frame_before_mixing_parameters(16 kHz, mono)");
    observer_expect(&obs_c, POS_PLAYBACK, 32000, 1, 320);
    observer_expect(&obs_c, POS_MIXED, 16000, 2, 160);
    observer_expect(&obs_c, POS_BEFORE, 16000, 1, 160);
    VERIFY_RC(register_observer(c, &obs_c,
                                AGORAISH_AUDIO_FRAME_POSITION_PLAYBACK | AGORAISH_AUDIO_FRAME_POSITION_MIXED |
                                    AGORAISH_AUDIO_FRAME_POSITION_BEFORE_MIXING),
              0, "C register_audio_frame_observer(PLAYBACK | MIXED | BEFORE_MIXING)");
    VERIFY_RC(agoraish_engine_enable_audio_volume_indication(c, 200, 3, 1), 0, "C enable_audio_volume_indication(200, 3, 1)");

    if (!join(&rec_c3, "audio-three", UID_C3)) goto leave;
    slot_c = add_receiver(c, 32000, 1);

    /* A joins while C mutes newcomers by default: C hears nothing of A. */
    VERIFY_RC(agoraish_engine_set_default_mute_all_remote_audio_streams(c, 1), 0,
              "C set_default_mute_all_remote_audio_streams(1)");
    sync_with_server(&rec_c3);
    if (!join(&rec_a3, "audio-three", UID_A3)) goto leave;
    add_sender(a, 48000, 1, TONE_A, AMP_THREE);
    EXPECT_EVENT(&rec_c3, 0, EV_USER_JOINED, UID_A3, ANY, ANY, NULL, "A3 joined");
    EXPECT_EVENT(&rec_a3, 0, EV_FIRST_LOCAL, ANY, ANY, ANY, NULL, "A3 sends");
    h = hear_c(slot_c, WINDOW_MS);
    VERIFY(h.ok && db(h.amp[0], AMP_THREE) < -40.0,
           "A joined while C muted newcomers by default: C hears 500 Hz at %.1f dB from what A pushes", db(h.amp[0], AMP_THREE));

    /* B joins after the default is lifted: C hears B; A, already present, stays muted. */
    VERIFY_RC(agoraish_engine_set_default_mute_all_remote_audio_streams(c, 0), 0,
              "C set_default_mute_all_remote_audio_streams(0)");
    sync_with_server(&rec_c3);
    if (!join(&rec_b3, "audio-three", UID_B3)) goto leave;
    add_sender(b, 48000, 1, TONE_B, AMP_THREE);
    EXPECT_EVENT(&rec_c3, 0, EV_FIRST_REMOTE_DECODED, UID_B3, ANY, ANY, NULL, "B3's audio plays at C");
    h = hear_c(slot_c, WINDOW_MS);
    VERIFY(h.ok && fabs(db(h.amp[1], AMP_THREE)) <= 2.0 && db(h.amp[0], AMP_THREE) < -40.0,
           "B joined after the default was lifted: C hears 1200 Hz at %+.2f dB; A (present, muted) at %.1f dB",
           db(h.amp[1], AMP_THREE), db(h.amp[0], AMP_THREE));

    /* C unmutes A: both tones in the mix, and each uid alone before mixing. */
    from = recorder_count(&rec_c3);
    VERIFY_RC(agoraish_engine_mute_remote_audio_stream(c, UID_A3, 0), 0, "C mute_remote_audio_stream(A3, 0)");
    EXPECT_EVENT(&rec_c3, from, EV_REMOTE_STATE, UID_A3, AGORAISH_REMOTE_AUDIO_STATE_DECODING, ANY, NULL, "C unmuted A3");
    sleep_ms(SETTLE_MS);
    observer_capture(&obs_c, 1);
    h = hear_c(slot_c, 400);
    observer_capture(&obs_c, 0);
    mix_a = h.amp[0];
    mix_b = h.amp[1];
    VERIFY(h.ok && fabs(db(mix_a, AMP_THREE)) <= 2.0 && fabs(db(mix_b, AMP_THREE)) <= 2.0,
           "the mix at C holds 500 Hz at %+.2f dB and 1200 Hz at %+.2f dB from what A and B push", db(mix_a, AMP_THREE),
           db(mix_b, AMP_THREE));
    pthread_mutex_lock(&obs_c.mutex);
    {
        size_t n;
        const int16_t *x;
        double p, q;
        x = uid_samples(&obs_c, UID_A3, &n);
        tones_in(x, n, 1, 0, 16000, &p, &q);
        VERIFY(x && fabs(db(p, AMP_THREE)) <= 2.0 && db(q, p) < -25.0,
               "before mixing, uid %d alone: 500 Hz at %+.2f dB, 1200 Hz at %.1f dB below it (%zu samples)", UID_A3,
               db(p, AMP_THREE), -db(q, p), n);
        x = uid_samples(&obs_c, UID_B3, &n);
        tones_in(x, n, 1, 0, 16000, &p, &q);
        VERIFY(x && fabs(db(q, AMP_THREE)) <= 2.0 && db(p, q) < -25.0,
               "before mixing, uid %d alone: 1200 Hz at %+.2f dB, 500 Hz at %.1f dB below it (%zu samples)", UID_B3,
               db(q, AMP_THREE), -db(p, q), n);
        VERIFY(obs_c.other_uids == 0, "before mixing: no frame of another uid (%ld)", obs_c.other_uids);
        tones_in(obs_c.buf[POS_PLAYBACK], obs_c.len[POS_PLAYBACK], 1, 0, 32000, &p, &q);
        VERIFY(fabs(db(p, AMP_THREE)) <= 2.0 && fabs(db(q, AMP_THREE)) <= 2.0,
               "on_playback_audio_frame (32 kHz mono): 500 Hz at %+.2f dB, 1200 Hz at %+.2f dB", db(p, AMP_THREE),
               db(q, AMP_THREE));
        tones_in(obs_c.buf[POS_MIXED], obs_c.len[POS_MIXED], 2, 0, 16000, &p, &q);
        VERIFY(fabs(db(p, AMP_THREE)) <= 2.0 && fabs(db(q, AMP_THREE)) <= 2.0,
               "on_mixed_audio_frame (16 kHz stereo), left: 500 Hz at %+.2f dB, 1200 Hz at %+.2f dB", db(p, AMP_THREE),
               db(q, AMP_THREE));
        tones_in(obs_c.buf[POS_MIXED], obs_c.len[POS_MIXED], 2, 1, 16000, &p, &q);
        VERIFY(fabs(db(p, AMP_THREE)) <= 2.0 && fabs(db(q, AMP_THREE)) <= 2.0,
               "on_mixed_audio_frame (16 kHz stereo), right: 500 Hz at %+.2f dB, 1200 Hz at %+.2f dB", db(p, AMP_THREE),
               db(q, AMP_THREE));
        for (i = POS_PLAYBACK; i <= POS_BEFORE; i++) {
            VERIFY(obs_c.calls[i] > 0 && obs_c.bad_format[i] == 0 && obs_c.bad_header[i] == 0,
                   "C's %s observer: %ld calls, all at %d Hz, %d ch, %d per call (%ld not; last %d Hz %d ch %d)",
                   pos_names[i], obs_c.calls[i], obs_c.want_rate[i], obs_c.want_channels[i], obs_c.want_spc[i],
                   obs_c.bad_format[i] + obs_c.bad_header[i], obs_c.last_rate[i], obs_c.last_channels[i],
                   obs_c.last_spc[i]);
        }
        VERIFY(obs_c.wrong_engine == 0, "C's observer callbacks carried C's handle (%ld did not)", obs_c.wrong_engine);
    }
    pthread_mutex_unlock(&obs_c.mutex);
    i = wait_for(&rec_c3, from, pred_two_speakers, &both, &e, wait_seconds);
    VERIFY(i >= 0, "C on_audio_volume_indication: a remote report with uids %d and %d speaking (total %d)", UID_A3,
           UID_B3, i >= 0 ? e.a : -1);
    VERIFY(wait_for(&rec_c3, 0, pred_local_report, NULL, NULL, wait_seconds) >= 0,
           "C on_audio_volume_indication: a local report (one speaker, uid 0)");

    /* Per-user volume: A at 50 -> -6 dB, B unchanged; A at 0 -> gone. B, now the
     * louder, becomes the active speaker (unless it already was and stays so). */
    from = recorder_count(&rec_c3);
    i = last_event(&rec_c3, 0, EV_ACTIVE_SPEAKER, ANY, ANY, ANY, &e);
    speaker_before = i >= 0 ? (int64_t)e.uid : -1;
    VERIFY_RC(agoraish_engine_adjust_user_playback_signal_volume(c, UID_A3, 50), 0,
              "C adjust_user_playback_signal_volume(A3, 50)");
    h = hear_c(slot_c, 400);
    VERIFY(h.ok && fabs(db(h.amp[0], mix_a) + 6.02) <= 1.5 && fabs(db(h.amp[1], mix_b)) <= 1.5,
           "A3 at volume 50: 500 Hz at %+.2f dB (expected -6.02), 1200 Hz at %+.2f dB (expected 0)", db(h.amp[0], mix_a),
           db(h.amp[1], mix_b));
    if (speaker_before == UID_B3) {
        sleep_ms(600);
        VERIFY(count_events(&rec_c3, from, EV_ACTIVE_SPEAKER, ANY, ANY, ANY) ==
                   count_events(&rec_c3, from, EV_ACTIVE_SPEAKER, UID_B3, ANY, ANY),
               "C on_active_speaker: uid %d, the louder user, was the active speaker and stays it", UID_B3);
    } else {
        i = wait_event(&rec_c3, from, EV_ACTIVE_SPEAKER, UID_B3, ANY, ANY, NULL);
        VERIFY(i >= 0, "C on_active_speaker(%d): the louder user becomes the active speaker (before: %lld)", UID_B3,
               (long long)speaker_before);
    }
    VERIFY_RC(agoraish_engine_adjust_user_playback_signal_volume(c, UID_A3, 0), 0,
              "C adjust_user_playback_signal_volume(A3, 0)");
    h = hear_c(slot_c, WINDOW_MS);
    VERIFY(h.ok && db(h.amp[0], mix_a) < -40.0 && fabs(db(h.amp[1], mix_b)) <= 1.5,
           "A3 at volume 0: 500 Hz at %.1f dB, 1200 Hz at %+.2f dB", db(h.amp[0], mix_a), db(h.amp[1], mix_b));
    VERIFY_RC(agoraish_engine_adjust_user_playback_signal_volume(c, UID_A3, 100), 0,
              "C adjust_user_playback_signal_volume(A3, 100)");

    /* Playback volume: the whole mix. */
    VERIFY_RC(agoraish_engine_adjust_playback_signal_volume(c, 50), 0, "C adjust_playback_signal_volume(50)");
    h = hear_c(slot_c, WINDOW_MS);
    VERIFY(h.ok && fabs(db(h.amp[0], mix_a) + 6.02) <= 1.5 && fabs(db(h.amp[1], mix_b) + 6.02) <= 1.5,
           "playback volume 50: 500 Hz at %+.2f dB, 1200 Hz at %+.2f dB (expected -6.02 both)", db(h.amp[0], mix_a),
           db(h.amp[1], mix_b));
    VERIFY_RC(agoraish_engine_adjust_playback_signal_volume(c, 200), 0, "C adjust_playback_signal_volume(200)");
    h = hear_c(slot_c, WINDOW_MS);
    VERIFY(h.ok && fabs(db(h.amp[0], mix_a) - 6.02) <= 1.5 && fabs(db(h.amp[1], mix_b) - 6.02) <= 1.5,
           "playback volume 200: 500 Hz at %+.2f dB, 1200 Hz at %+.2f dB (expected +6.02 both)", db(h.amp[0], mix_a),
           db(h.amp[1], mix_b));
    VERIFY_RC(agoraish_engine_adjust_playback_signal_volume(c, 100), 0, "C adjust_playback_signal_volume(100)");
    h = hear_c(slot_c, WINDOW_MS);
    VERIFY(h.ok && fabs(db(h.amp[0], mix_a)) <= 1.5 && fabs(db(h.amp[1], mix_b)) <= 1.5,
           "playback volume 100 again: 500 Hz at %+.2f dB, 1200 Hz at %+.2f dB", db(h.amp[0], mix_a), db(h.amp[1], mix_b));

leave:
    if (slot_c >= 0) {
        int rc;
        long failures = receiver_failures(slot_c, &rc);
        VERIFY(failures == 0, "C's pulls all succeeded (%ld failed, last %d)", failures, rc);
    }
    VERIFY(count_events(&rec_c3, 0, EV_ERROR, ANY, ANY, ANY) == 0, "no on_error at C");
done:
    end_engine(&rec_a3);
    end_engine(&rec_b3);
    end_engine(&rec_c3);
    observer_destroy(&obs_c);
}

/* ------------------------------------------------------------------------ */
/* Capture: a call from an ALSA device, and a device that does not exist     */
/* ------------------------------------------------------------------------ */

#define UID_K 401
#define UID_X 402
#define UID_L 403
#define TONE_X 1500.0

static recorder_t rec_k, rec_x, rec_l;

static void capture_story(void) {
    agoraish_engine_t *k, *x, *l;
    int slot_l = -1, from;
    event_t e;

    section("capture: K captures agtest_cap, X's device does not exist, L pulls");
    l = create_recorded(&rec_l, "L", "capture-l.log");
    k = create_recorded(&rec_k, "K", "capture-k.log");
    x = create_recorded(&rec_x, "X", "capture-x.log");
    if (!k || !x || !l) goto done;
    VERIFY_RC(agoraish_engine_set_external_audio_source(l, 1, 48000, 1), 0, "L set_external_audio_source (silent)");
    VERIFY_RC(agoraish_engine_set_external_audio_sink(l, 1, 48000, 1), 0, "L set_external_audio_sink");
    if (memcheck) VERIFY_RC(agoraish_engine_disable_audio(l), 0, "L disable_audio (L receives no stream)");
    /* K and X capture (no external source) and pull nothing (a sink: no playout device). */
    VERIFY_RC(agoraish_engine_set_recording_device(k, "agtest_cap"), 0, "K set_recording_device(agtest_cap)");
    VERIFY_RC(agoraish_engine_set_parameters(k, RAW_CAPTURE), 0, "K set_parameters(no audio processing)");
    VERIFY_RC(agoraish_engine_set_external_audio_sink(k, 1, 48000, 1), 0, "K set_external_audio_sink");
    VERIFY_RC(agoraish_engine_set_recording_device(x, "agtest_no_such_pcm"), 0,
              "X set_recording_device(agtest_no_such_pcm)");
    VERIFY_RC(agoraish_engine_set_external_audio_sink(x, 1, 48000, 1), 0, "X set_external_audio_sink");

    if (!join(&rec_l, "audio-capture", UID_L)) goto leave;
    slot_l = add_receiver(l, 48000, 1);
    if (!join(&rec_k, "audio-capture", UID_K)) goto leave;
    EXPECT_EVENT(&rec_k, 0, EV_LOCAL_STATE, ANY, AGORAISH_LOCAL_AUDIO_STREAM_STATE_RECORDING, 0, NULL,
                 "K captures from agtest_cap");
    EXPECT_EVENT(&rec_k, 0, EV_LOCAL_STATE, ANY, AGORAISH_LOCAL_AUDIO_STREAM_STATE_ENCODING, 0, NULL, "K sends");
    if (!memcheck) {
        EXPECT_EVENT(&rec_l, 0, EV_FIRST_REMOTE_DECODED, UID_K, ANY, ANY, NULL, "K's captured audio plays at L");
    }
    if (!join(&rec_x, "audio-capture", UID_X)) goto leave;
    if (EXPECT_EVENT(&rec_x, 0, EV_LOCAL_STATE, ANY, AGORAISH_LOCAL_AUDIO_STREAM_STATE_FAILED, ANY, &e,
                     "X's recording device does not exist") >= 0) {
        VERIFY(e.b == AGORAISH_LOCAL_AUDIO_STREAM_ERROR_NO_RECORDING_DEVICE ||
                   e.b == AGORAISH_LOCAL_AUDIO_STREAM_ERROR_RECORD_FAILURE,
               "X's capture failed with error %d (expected NO_RECORDING_DEVICE 6 or RECORD_FAILURE 4)", e.b);
    } else {
        dump_events(&rec_x, 0, EV_LOCAL_STATE);
    }
    if (!quick) {
        const double freqs[2] = {CAP_FREQ, TONE_X};
        heard_t h = hear(slot_l, 300, 800, freqs, 2);
        VERIFY(h.ok && fabs(db(h.amp[0], CAP_AMP)) <= 2.0,
               "L hears K's capture: 1 kHz at %+.2f dB from the captured file", db(h.amp[0], CAP_AMP));
    }

    /* X's external source still works. */
    from = recorder_count(&rec_x);
    VERIFY_RC(agoraish_engine_set_external_audio_source(x, 1, 48000, 1), 0, "X set_external_audio_source");
    add_sender(x, 48000, 1, TONE_X, AMP_TWO);
    EXPECT_EVENT(&rec_x, from, EV_LOCAL_STATE, ANY, AGORAISH_LOCAL_AUDIO_STREAM_STATE_ENCODING, ANY, NULL,
                 "X sends what it pushes");
    if (!memcheck) {
        EXPECT_EVENT(&rec_l, 0, EV_FIRST_REMOTE_DECODED, UID_X, ANY, ANY, NULL, "X's pushed audio plays at L");
    }
    if (!quick) {
        const double freqs[2] = {CAP_FREQ, TONE_X};
        heard_t h = hear(slot_l, SETTLE_MS, 800, freqs, 2);
        VERIFY(h.ok && fabs(db(h.amp[1], AMP_TWO)) <= 2.0 && fabs(db(h.amp[0], CAP_AMP)) <= 2.0,
               "L hears X's pushed 1500 Hz at %+.2f dB and K's captured 1 kHz at %+.2f dB", db(h.amp[1], AMP_TWO),
               db(h.amp[0], CAP_AMP));
    }

leave:
    if (slot_l >= 0) {
        int rc;
        long failures = receiver_failures(slot_l, &rc);
        VERIFY(failures == 0, "L's pulls all succeeded (%ld failed, last %d)", failures, rc);
    }
done:
    end_engine(&rec_k);
    end_engine(&rec_x);
    end_engine(&rec_l);
}

/* ------------------------------------------------------------------------ */

int main(void) {
    const char *quick_env = getenv("AGORAISH_TEST_QUICK");
    long late;
    main_thread = pthread_self();
    started_ms = now_ms();
    memcheck = RUNNING_ON_VALGRIND != 0;
    quick = memcheck || (quick_env && quick_env[0] != '\0' && strcmp(quick_env, "0") != 0);
    if (quick) {
        wait_seconds = 60;
        printf("audio_features: quick mode (%s): what is heard in calls is not measured\n",
               memcheck ? "valgrind" : "AGORAISH_TEST_QUICK");
    }
    if (!make_tmpdir("agoraish-audio")) return 1;
    /* Before anything touches ALSA in this process. */
    VERIFY(set_up_alsa(), "write the ALSA configuration and point ALSA_CONFIG_PATH at it");

    clock_start();
    devices_story();
    formats_story();
    reentry_story();
    if (start_server()) {
        two_party_story();
        if (!quick) three_party_story();
        capture_story();
    }
    pthread_mutex_lock(&clk.mutex);
    late = clk.late;
    pthread_mutex_unlock(&clk.mutex);
    /* Not a check of the library: a loaded machine can stall the host's clock. */
    if (late > 0 && !quick) {
        fprintf(stderr, "audio_features: note: the host's audio clock fell over 200 ms behind %ld times\n", late);
    }
    clock_stop();
    section("end");
    if (server) VERIFY_RC(agoraish_server_release(server), 0, "server_release");
    remove_tmpdir();
    return test_summary();
}
