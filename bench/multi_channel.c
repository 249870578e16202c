/*
 * multi_channel.c — what an engine with several connections costs (ABI 0.11:
 * agoraish_engine_join_channel_ex), and how long a cold join and a quick
 * switch between preloaded channels (ABI 0.12:
 * agoraish_engine_preload_channel) take to play audio, through agoraish, in
 * one run.
 *
 * Every engine lives in a process of its own, forked before any engine
 * exists (the parent never opens an engine): an embedded server (not
 * measured; its per-address join rate limit lifted), senders and one
 * measured receiver.
 *
 * CPU per connection: for 1, 2 and 4 connections in turn, one sender
 * process per channel (an engine with an external source in a channel of its
 * own, pushing a 48 kHz mono speech-like signal 10 ms every 10 ms on
 * absolute CLOCK_MONOTONIC deadlines, default profile), and one receiving
 * process whose engine joins the first channel with
 * agoraish_engine_join_channel_with_options and the others with
 * agoraish_engine_join_channel_ex, publishing nothing (media options
 * publish_microphone_track = 0), with ALSA's "null" PCM as its recording and
 * playback device, so that the engine's audio device thread renders and
 * mixes every connection's remote audio each 10 ms (receive, SRTP, jitter
 * buffer, Opus decode, mix, write to the null device). Once every connection
 * has had on_first_remote_audio_decoded (the engine's handler for its own
 * channel, the _ex handlers for the others) and WARMUP_MS more have passed,
 * the receiver reads its CPU time (CLOCK_PROCESS_CPUTIME_ID: every thread,
 * user and system) and CLOCK_MONOTONIC, sleeps SECONDS, and reads both again.
 * The figure is CPU ms per second of wall time divided by the number of
 * connections. The same receiver alone in a channel with no sender gives the
 * fixed cost (idle). The counts run one after another, each over a window of
 * the same length, with only their own processes (and the server) running.
 * The receiver's remote audio stats (on_remote_audio_stats, every 2 s) show
 * that every connection kept playing through the window.
 *
 * Join to first audio: a sender process pushing the same signal in a channel
 * of its own; a measuring process whose engine (recording and playback on
 * "null", publish_microphone_track = 0) calls agoraish_engine_join_channel
 * with a fresh uid JOINS times (after JOIN_WARMUP uncounted joins), each
 * followed by leave_channel, a wait for on_leave_channel and a pause drawn
 * uniformly from 0..20 ms (so that the joins meet the sender's 20 ms packets
 * at every phase: the time to first audio steps with that phase). A join is
 * timed from right before the join call on the calling thread to the entry
 * of on_first_remote_audio_decoded on the engine's event thread, with
 * CLOCK_MONOTONIC.
 *
 * Quick switch to first audio (Agora's QuickSwitchChannel: an audience
 * preloads the channels it may hop to, then switches with leave and join):
 * two sender processes pushing the same signal, each in a channel of its own;
 * a measuring process whose engine (the same settings as the joiner's)
 * preloads both channels with agoraish_engine_preload_channel for one uid
 * (SWITCH_UID), waits PRELOAD_WAIT_MS for the server to accept the preloads
 * (no event tells), joins the first channel with that uid (uncounted) and
 * then switches JOINS times (after JOIN_WARMUP uncounted switches) to the
 * other channel: leave_channel, a wait for on_leave_channel, a pause drawn
 * uniformly from 0..20 ms (for the same reason as the joins'), and
 * agoraish_engine_join_channel of the other channel with the same uid. A
 * switch is timed as a join, from right before the join call to the entry of
 * on_first_remote_audio_decoded. Each switch follows first audio in the
 * channel left at once, as a user flicking through channels would.
 *
 *   multi_channel PATH LOG_DIR SECONDS JOINS
 *     -> {"figures": [...]}
 */
#define _POSIX_C_SOURCE 200809L

#include "audio_support.h"

#define RATE 48000
#define FRAME 480                 /* 10 ms */
#define WARMUP_MS 1000.0          /* after first audio on every connection */
#define MAX_CONNECTIONS 4
#define JOIN_WARMUP 2
#define SENDER_UID 1u
#define RECEIVER_UID 500u
#define FIRST_JOIN_UID 100000u
#define SWITCH_UID 600u
#define PRELOAD_WAIT_MS 300.0     /* from preload_channel to the first join */
#define SERVER_CONFIG "{\"limits\": {\"joins_per_second_per_address\": 1000000}}"

/* The ABI 0.11 and 0.12 functions (and the device choice) beside audio_support.h's api. */
static struct {
    int (*join_channel_with_options)(agoraish_engine_t *, const char *, const char *, uint32_t,
                                     const agoraish_channel_media_options *);
    int (*update_channel_media_options)(agoraish_engine_t *, const agoraish_channel_media_options *);
    int (*join_channel_ex)(agoraish_engine_t *, const char *, const agoraish_rtc_connection *,
                           const agoraish_channel_media_options *, const agoraish_event_handler_ex *, void *);
    int (*leave_channel_ex)(agoraish_engine_t *, const agoraish_rtc_connection *);
    int (*set_recording_device)(agoraish_engine_t *, const char *);
    int (*set_playback_device)(agoraish_engine_t *, const char *);
    int (*preload_channel)(agoraish_engine_t *, const char *, const char *, uint32_t);
} mc;

static int load_api(const char *path) {
    void *lib;
    if (load_audio_api(path) != 0 || !(lib = open_library(path))) return 1;
    LOOKUP(lib, mc.join_channel_with_options, "agoraish_engine_join_channel_with_options");
    LOOKUP(lib, mc.update_channel_media_options, "agoraish_engine_update_channel_media_options");
    LOOKUP(lib, mc.join_channel_ex, "agoraish_engine_join_channel_ex");
    LOOKUP(lib, mc.leave_channel_ex, "agoraish_engine_leave_channel_ex");
    LOOKUP(lib, mc.set_recording_device, "agoraish_engine_set_recording_device");
    LOOKUP(lib, mc.set_playback_device, "agoraish_engine_set_playback_device");
    LOOKUP(lib, mc.preload_channel, "agoraish_engine_preload_channel");
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The receiving engine and its connections' events                          */
/* ------------------------------------------------------------------------ */

/* What the callbacks of one connection saw (0: the engine's own). */
typedef struct connection_events {
    int joined, decoded, left, stats_count;
    double decoded_at_ms;           /* entry of the last on_first_remote_audio_decoded */
    agoraish_remote_audio_stats stats; /* the last one */
} connection_events;

static struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    connection_events c[MAX_CONNECTIONS];
    int errors;
} rx;

static void rx_count(void *ud, int *(*field)(connection_events *), double at) {
    connection_events *c = ud;
    pthread_mutex_lock(&rx.mutex);
    (*field(c))++;
    if (at > 0) c->decoded_at_ms = at;
    pthread_cond_broadcast(&rx.cond);
    pthread_mutex_unlock(&rx.mutex);
}

static int *joined_of(connection_events *c) { return &c->joined; }
static int *decoded_of(connection_events *c) { return &c->decoded; }
static int *left_of(connection_events *c) { return &c->left; }

static void rx_stats(void *ud, const agoraish_remote_audio_stats *stats) {
    connection_events *c = ud;
    size_t n = stats->struct_size < sizeof c->stats ? stats->struct_size : sizeof c->stats;
    pthread_mutex_lock(&rx.mutex);
    memset(&c->stats, 0, sizeof c->stats);
    memcpy(&c->stats, stats, n);
    c->stats_count++;
    pthread_mutex_unlock(&rx.mutex);
}

static void rx_error(int err, const char *msg) {
    fprintf(stderr, "on_error %d: %s\n", err, msg);
    pthread_mutex_lock(&rx.mutex);
    rx.errors++;
    pthread_cond_broadcast(&rx.cond);
    pthread_mutex_unlock(&rx.mutex);
}

/* The engine's own connection (agoraish_event_handler). */
static void on_join(agoraish_engine_t *e, void *ud, const char *channel, uint32_t uid, int elapsed) {
    (void)e, (void)channel, (void)uid, (void)elapsed;
    rx_count(ud, joined_of, 0);
}

static void on_decoded(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    double at = now_ms();
    (void)e, (void)uid, (void)elapsed;
    rx_count(ud, decoded_of, at);
}

static void on_leave(agoraish_engine_t *e, void *ud, const agoraish_rtc_stats *stats) {
    (void)e, (void)stats;
    rx_count(ud, left_of, 0);
}

static void on_stats(agoraish_engine_t *e, void *ud, const agoraish_remote_audio_stats *stats) {
    (void)e;
    rx_stats(ud, stats);
}

static void on_error(agoraish_engine_t *e, void *ud, int err, const char *msg) {
    (void)e, (void)ud;
    rx_error(err, msg);
}

/* The other connections (agoraish_event_handler_ex). */
static void on_join_ex(agoraish_engine_t *e, void *ud, const agoraish_rtc_connection *c, uint32_t uid, int elapsed) {
    (void)e, (void)c, (void)uid, (void)elapsed;
    rx_count(ud, joined_of, 0);
}

static void on_decoded_ex(agoraish_engine_t *e, void *ud, const agoraish_rtc_connection *c, uint32_t uid, int elapsed) {
    double at = now_ms();
    (void)e, (void)c, (void)uid, (void)elapsed;
    rx_count(ud, decoded_of, at);
}

static void on_leave_ex(agoraish_engine_t *e, void *ud, const agoraish_rtc_connection *c, const agoraish_rtc_stats *s) {
    (void)e, (void)c, (void)s;
    rx_count(ud, left_of, 0);
}

static void on_stats_ex(agoraish_engine_t *e, void *ud, const agoraish_rtc_connection *c,
                        const agoraish_remote_audio_stats *stats) {
    (void)e, (void)c;
    rx_stats(ud, stats);
}

static void on_error_ex(agoraish_engine_t *e, void *ud, const agoraish_rtc_connection *c, int err, const char *msg) {
    (void)e, (void)ud, (void)c;
    rx_error(err, msg);
}

/* Waits until the field of connection `i` reaches n (or an error, or AUDIO_WAIT_SECONDS); returns whether it did. */
static int rx_wait(int i, int *(*field)(connection_events *), int n) {
    struct timespec deadline;
    int ok;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += AUDIO_WAIT_SECONDS;
    pthread_mutex_lock(&rx.mutex);
    while (*field(&rx.c[i]) < n && rx.errors == 0) {
        if (pthread_cond_timedwait(&rx.cond, &rx.mutex, &deadline) == ETIMEDOUT) break;
    }
    ok = *field(&rx.c[i]) >= n;
    pthread_mutex_unlock(&rx.mutex);
    return ok;
}

/* Receive only: no microphone published (the rest as the connection's defaults). */
static void receive_only(agoraish_channel_media_options *o) {
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->has_publish_microphone_track = 1;
    o->publish_microphone_track = 0;
}

/* The measured engine: ALSA "null" for recording and playback, events into rx.c[0]. NULL on failure. */
static agoraish_engine_t *receiver_create(const char *url, const char *log) {
    agoraish_event_handler handler;
    agoraish_engine_config config;
    agoraish_engine_t *engine;
    memset(&rx, 0, sizeof rx);
    pthread_mutex_init(&rx.mutex, NULL);
    pthread_cond_init(&rx.cond, NULL);
    memset(&handler, 0, sizeof handler);
    handler.struct_size = sizeof handler;
    handler.user_data = &rx.c[0];
    handler.on_join_channel_success = on_join;
    handler.on_leave_channel = on_leave;
    handler.on_first_remote_audio_decoded = on_decoded;
    handler.on_remote_audio_stats = on_stats;
    handler.on_error = on_error;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.app_id = AUDIO_APP_ID;
    config.event_handler = &handler;
    config.server_url = url;
    config.log_file = log;
    if (!(engine = api.engine_create(&config))) {
        fprintf(stderr, "engine_create failed (%d)\n", api.get_last_error());
        return NULL;
    }
    if (mc.set_recording_device(engine, "null") != 0 || mc.set_playback_device(engine, "null") != 0) {
        fprintf(stderr, "cannot choose ALSA's null device\n");
        api.engine_release(engine, 1);
        return NULL;
    }
    return engine;
}

/* Threads of this process (/proc/self/status), -1 when unreadable. */
static int thread_count(void) {
    char line[256];
    int n = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Threads:", 8) == 0) n = atoi(line + 8);
    }
    fclose(f);
    return n;
}

/*
 * The receiving process of one count: joins `connections` channels
 * (PREFIX-0 with its own join, the others with join_channel_ex), waits for
 * first audio on each (`with_audio`), then measures. Writes
 * "cpu_ms window_ms threads min_active_ms max_loss_percent stats_seen" to out_fd.
 */
static int receiver_child(const char *lib, const char *url, const char *log, const char *prefix, int connections,
                          int with_audio, double seconds, int out_fd) {
    agoraish_engine_t *engine;
    agoraish_channel_media_options options;
    agoraish_event_handler_ex handler;
    agoraish_rtc_connection conn[MAX_CONNECTIONS];
    char channel[MAX_CONNECTIONS][64], line[256];
    int active0[MAX_CONNECTIONS], i, threads, min_active = -1, max_loss = 0, stats_seen = 1;
    double cpu0, cpu1, w0, w1;
    if (load_api(lib) != 0 || !(engine = receiver_create(url, log))) return 1;
    receive_only(&options);
    memset(&handler, 0, sizeof handler);
    handler.struct_size = sizeof handler;
    handler.on_join_channel_success = on_join_ex;
    handler.on_leave_channel = on_leave_ex;
    handler.on_first_remote_audio_decoded = on_decoded_ex;
    handler.on_remote_audio_stats = on_stats_ex;
    handler.on_error = on_error_ex;
    for (i = 0; i < connections; i++) {
        int code;
        snprintf(channel[i], sizeof channel[i], "%s-%d", prefix, i);
        memset(&conn[i], 0, sizeof conn[i]);
        conn[i].struct_size = sizeof conn[i];
        conn[i].channel_id = channel[i];
        conn[i].local_uid = RECEIVER_UID + (uint32_t)i;
        code = i == 0 ? mc.join_channel_with_options(engine, NULL, channel[i], conn[i].local_uid, &options)
                      : mc.join_channel_ex(engine, NULL, &conn[i], &options, &handler, &rx.c[i]);
        if (code != 0) {
            fprintf(stderr, "connection %d: join returned %d\n", i, code);
            api.engine_release(engine, 1);
            return 1;
        }
    }
    for (i = 0; i < connections; i++) {
        if (!rx_wait(i, joined_of, 1) || (with_audio && !rx_wait(i, decoded_of, 1))) {
            fprintf(stderr, "connection %d of %d: no %s within %d s\n", i, connections,
                    rx.c[i].joined ? "on_first_remote_audio_decoded" : "on_join_channel_success", AUDIO_WAIT_SECONDS);
            api.engine_release(engine, 1);
            return 1;
        }
    }
    sleep_until_ms(now_ms() + WARMUP_MS);
    pthread_mutex_lock(&rx.mutex);
    for (i = 0; i < connections; i++) active0[i] = rx.c[i].stats.total_active_time;
    pthread_mutex_unlock(&rx.mutex);
    w0 = now_ms();
    cpu0 = process_cpu_ms();
    sleep_until_ms(w0 + seconds * 1e3);
    cpu1 = process_cpu_ms();
    w1 = now_ms();
    threads = thread_count();
    pthread_mutex_lock(&rx.mutex);
    for (i = 0; i < connections; i++) {
        int active = rx.c[i].stats.total_active_time - active0[i];
        if (min_active < 0 || active < min_active) min_active = active;
        if (rx.c[i].stats.audio_loss_rate > max_loss) max_loss = rx.c[i].stats.audio_loss_rate;
        if (rx.c[i].stats_count == 0) stats_seen = 0;
    }
    pthread_mutex_unlock(&rx.mutex);
    for (i = 1; i < connections; i++) mc.leave_channel_ex(engine, &conn[i]);
    snprintf(line, sizeof line, "%.3f %.3f %d %d %d %d\n", cpu1 - cpu0, w1 - w0, threads, min_active, max_loss,
             stats_seen);
    write_all(out_fd, line, strlen(line));
    api.engine_release(engine, 1);
    return rx.errors == 0 ? 0 : 1;
}

/*
 * The measuring process of the join figures: JOIN_WARMUP + joins cold joins
 * of `channel` with agoraish_engine_join_channel, each to
 * on_first_remote_audio_decoded, then leave. Writes the counted samples (ms)
 * on one line to out_fd.
 */
static int joiner_child(const char *lib, const char *url, const char *log, const char *channel, int joins,
                        int out_fd) {
    agoraish_engine_t *engine;
    agoraish_channel_media_options options;
    char *line;
    size_t used = 0, cap = (size_t)joins * 24 + 2;
    uint64_t rng = 7;
    int i, rc = 0;
    if (load_api(lib) != 0 || !(engine = receiver_create(url, log))) return 1;
    receive_only(&options);
    if (mc.update_channel_media_options(engine, &options) != 0) {
        fprintf(stderr, "update_channel_media_options failed\n");
        api.engine_release(engine, 1);
        return 1;
    }
    if (!(line = malloc(cap))) return 1;
    line[0] = 0;
    for (i = -JOIN_WARMUP; i < joins && rc == 0; i++) {
        int n = i + JOIN_WARMUP + 1, code;
        uint32_t uid = FIRST_JOIN_UID + (uint32_t)(i + JOIN_WARMUP);
        double start = now_ms();
        if ((code = api.join_channel(engine, NULL, channel, NULL, uid)) != 0) {
            fprintf(stderr, "join %d: join_channel returned %d\n", i, code);
            rc = 1;
        } else if (!rx_wait(0, decoded_of, n)) {
            fprintf(stderr, "join %d: no on_first_remote_audio_decoded within %d s\n", i, AUDIO_WAIT_SECONDS);
            rc = 1;
        } else {
            pthread_mutex_lock(&rx.mutex);
            if (i >= 0) used += (size_t)snprintf(line + used, cap - used, "%.3f ", rx.c[0].decoded_at_ms - start);
            pthread_mutex_unlock(&rx.mutex);
            if ((code = api.leave_channel(engine)) != 0 || !rx_wait(0, left_of, n)) {
                fprintf(stderr, "join %d: leave_channel returned %d or no on_leave_channel\n", i, code);
                rc = 1;
            }
            /* A pause of 0..20 ms: back to back, a join-and-leave cycle lasts close to a multiple of the
             * sender's 20 ms packets and successive joins would meet them at the same phase. */
            sleep_until_ms(now_ms() + 20 * next_uniform(&rng));
        }
    }
    api.engine_release(engine, 1);
    if (rc == 0) {
        strcat(line, "\n");
        write_all(out_fd, line, strlen(line));
    }
    free(line);
    return rc;
}

/*
 * The measuring process of the quick switch figures: preloads PREFIX-0 and
 * PREFIX-1 for SWITCH_UID, joins PREFIX-0 (uncounted), then JOIN_WARMUP +
 * joins switches to the other channel (leave, on_leave_channel, a 0..20 ms
 * pause, join_channel with the same uid), each timed to
 * on_first_remote_audio_decoded. Writes the counted samples (ms) on one line
 * to out_fd.
 */
static int switcher_child(const char *lib, const char *url, const char *log, const char *prefix, int joins,
                          int out_fd) {
    agoraish_engine_t *engine;
    agoraish_channel_media_options options;
    char channel[2][64], *line;
    size_t used = 0, cap = (size_t)joins * 24 + 2;
    uint64_t rng = 11;
    int i, k, code, rc = 0;
    if (load_api(lib) != 0 || !(engine = receiver_create(url, log))) return 1;
    receive_only(&options);
    if (mc.update_channel_media_options(engine, &options) != 0) {
        fprintf(stderr, "update_channel_media_options failed\n");
        api.engine_release(engine, 1);
        return 1;
    }
    for (k = 0; k < 2; k++) {
        snprintf(channel[k], sizeof channel[k], "%s-%d", prefix, k);
        if ((code = mc.preload_channel(engine, NULL, channel[k], SWITCH_UID)) != 0) {
            fprintf(stderr, "preload_channel(%s) returned %d\n", channel[k], code);
            api.engine_release(engine, 1);
            return 1;
        }
    }
    if (!(line = malloc(cap))) return 1;
    line[0] = 0;
    sleep_until_ms(now_ms() + PRELOAD_WAIT_MS);
    if ((code = api.join_channel(engine, NULL, channel[0], NULL, SWITCH_UID)) != 0 || !rx_wait(0, decoded_of, 1)) {
        fprintf(stderr, "first join: join_channel returned %d or no on_first_remote_audio_decoded\n", code);
        rc = 1;
    }
    /* Switch i goes to channel[(i + JOIN_WARMUP + 1) % 2]: the first one to PREFIX-1. */
    for (i = -JOIN_WARMUP; i < joins && rc == 0; i++) {
        int n = i + JOIN_WARMUP + 1;
        const char *to = channel[n % 2];
        double start;
        if ((code = api.leave_channel(engine)) != 0 || !rx_wait(0, left_of, n)) {
            fprintf(stderr, "switch %d: leave_channel returned %d or no on_leave_channel\n", i, code);
            rc = 1;
            break;
        }
        /* The same 0..20 ms pause as between the joins, so that the switches meet the sender's packets at
         * every phase. */
        sleep_until_ms(now_ms() + 20 * next_uniform(&rng));
        start = now_ms();
        if ((code = api.join_channel(engine, NULL, to, NULL, SWITCH_UID)) != 0) {
            fprintf(stderr, "switch %d: join_channel(%s) returned %d\n", i, to, code);
            rc = 1;
        } else if (!rx_wait(0, decoded_of, n + 1)) {
            fprintf(stderr, "switch %d: no on_first_remote_audio_decoded within %d s\n", i, AUDIO_WAIT_SECONDS);
            rc = 1;
        } else if (i >= 0) {
            pthread_mutex_lock(&rx.mutex);
            used += (size_t)snprintf(line + used, cap - used, "%.3f ", rx.c[0].decoded_at_ms - start);
            pthread_mutex_unlock(&rx.mutex);
        }
    }
    api.engine_release(engine, 1);
    if (rc == 0) {
        strcat(line, "\n");
        write_all(out_fd, line, strlen(line));
    }
    free(line);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Senders and the server                                                    */
/* ------------------------------------------------------------------------ */

/* A sender process: joins `channel` and pushes the signal 10 ms every 10 ms until `control` closes. */
static int sender_child(const char *lib, const char *url, const char *log, const char *channel,
                        const int16_t *speech, size_t frames_available, int control) {
    peer p;
    double start;
    int failures = 0;
    size_t k;
    if (load_audio_api(lib) != 0 || !peer_create(&p, url, log, RATE)) return 1;
    if (peer_join(&p, channel, SENDER_UID) != 0) {
        api.engine_release(p.engine, 1);
        return 1;
    }
    start = now_ms();
    for (k = 0;; k++) {
        struct pollfd pfd;
        sleep_until_ms(start + (double)k * 10);
        pfd.fd = control;
        pfd.events = POLLIN;
        pfd.revents = 0;
        if (poll(&pfd, 1, 0) > 0) break;  /* closed (EOF): the measurement is over */
        if (api.push_external_audio_frame(p.engine, speech + (k % frames_available) * FRAME, FRAME) < 0) failures++;
    }
    api.engine_release(p.engine, 1);
    if (failures) fprintf(stderr, "sender %s: %d pushes failed\n", channel, failures);
    return failures == 0 ? 0 : 1;
}

/* The server's control pipe (write end): every child closes it, so that the server sees EOF at the end. */
static int server_control = -1;

/* What the measured process of a group does: receive on connections, time joins, or time switches. */
typedef struct measured {
    enum { RECEIVER, JOINER, SWITCHER } kind;
    int connections, with_audio, joins;
    double seconds;
} measured;

/*
 * Forks `senders` sender processes (channels PREFIX-0 ...) and the measured
 * process `m`; reads its result line into `line`, then stops the senders
 * (closes their control pipe) and reaps everyone. 0 on success.
 */
static int run_group(const char *lib, const char *url, const char *log_dir, const char *prefix, int senders,
                     const int16_t *speech, size_t frames_available, const measured *m, unsigned alarm_s,
                     char *line, size_t cap) {
    int control[2], out[2], i, ok, status, failed = 0;
    pid_t kids[MAX_CONNECTIONS], measuring;
    char log[4096], channel[64];
    if (pipe(control) != 0 || pipe(out) != 0) return 1;
    for (i = 0; i < senders; i++) {
        snprintf(channel, sizeof channel, "%s-%d", prefix, i);
        snprintf(log, sizeof log, "%s/multi_channel_%s_sender.log", log_dir, channel);
        if ((kids[i] = fork()) == 0) {
            close(server_control);
            close(control[1]);
            close(out[0]);
            close(out[1]);
            alarm(alarm_s);
            _exit(sender_child(lib, url, log, channel, speech, frames_available, control[0]));
        }
    }
    snprintf(log, sizeof log, "%s/multi_channel_%s.log", log_dir, prefix);
    if ((measuring = fork()) == 0) {
        close(server_control);
        close(control[0]);
        close(control[1]);
        close(out[0]);
        alarm(alarm_s);
        if (m->kind == RECEIVER) {
            _exit(receiver_child(lib, url, log, prefix, m->connections, m->with_audio, m->seconds, out[1]));
        }
        if (m->kind == SWITCHER) _exit(switcher_child(lib, url, log, prefix, m->joins, out[1]));
        snprintf(channel, sizeof channel, "%s-0", prefix);
        _exit(joiner_child(lib, url, log, channel, m->joins, out[1]));
    }
    close(control[0]);
    close(out[1]);
    ok = read_line(out[0], line, cap) == 0;
    close(out[0]);
    if (measuring < 0 || waitpid(measuring, &status, 0) != measuring || !WIFEXITED(status) || WEXITSTATUS(status)) {
        failed = 1;
    }
    close(control[1]);
    for (i = 0; i < senders; i++) {
        if (kids[i] < 0 || waitpid(kids[i], &status, 0) != kids[i] || !WIFEXITED(status) || WEXITSTATUS(status)) {
            failed = 1;
        }
    }
    if (!ok || failed) fprintf(stderr, "%s: a process failed (logs in %s)\n", prefix, log_dir);
    return ok && !failed ? 0 : 1;
}

/* What one receiving process reported. */
typedef struct result {
    double cpu_ms, window_ms;
    int threads, min_active_ms, max_loss, stats_seen;
} result;

static int run_receiver(const char *lib, const char *url, const char *log_dir, int connections, int with_audio,
                        double seconds, const int16_t *speech, size_t frames_available, result *res) {
    char prefix[64], line[256];
    measured m;
    memset(&m, 0, sizeof m);
    m.kind = RECEIVER;
    m.connections = connections;
    m.with_audio = with_audio;
    m.seconds = seconds;
    snprintf(prefix, sizeof prefix, "bench-mc-%s%d", with_audio ? "" : "idle", connections);
    if (run_group(lib, url, log_dir, prefix, with_audio ? connections : 0, speech, frames_available, &m,
                  (unsigned)seconds + 60, line, sizeof line) != 0) {
        return 1;
    }
    memset(res, 0, sizeof *res);
    if (sscanf(line, "%lf %lf %d %d %d %d", &res->cpu_ms, &res->window_ms, &res->threads, &res->min_active_ms,
               &res->max_loss, &res->stats_seen) != 6) {
        fprintf(stderr, "receiver: %s\n", line);
        return 1;
    }
    return 0;
}

/* The cold joins (JOINER: one sender) or the quick switches (SWITCHER: two senders, one per channel). */
static int run_joins(const char *lib, const char *url, const char *log_dir, int kind, int joins,
                     const int16_t *speech, size_t frames_available, double *samples) {
    char *line, *p;
    size_t cap = (size_t)joins * 24 + 2;
    measured m;
    int n = 0, switching = kind == SWITCHER;
    memset(&m, 0, sizeof m);
    m.kind = switching ? SWITCHER : JOINER;
    m.joins = joins;
    if (!(line = malloc(cap))) return 1;
    if (run_group(lib, url, log_dir, switching ? "bench-mc-switch" : "bench-mc-join", switching ? 2 : 1, speech,
                  frames_available, &m, (unsigned)(joins + JOIN_WARMUP + 1) * 2 * AUDIO_WAIT_SECONDS + 60, line,
                  cap) != 0) {
        free(line);
        return 1;
    }
    for (p = line; n < joins;) {
        char *end;
        samples[n] = strtod(p, &end);
        if (end == p) break;
        p = end;
        n++;
    }
    free(line);
    if (n != joins) {
        fprintf(stderr, "the %s reported %d of %d joins\n", switching ? "switcher" : "joiner", n, joins);
        return 1;
    }
    return 0;
}

static void print_figure(const char *name, double value, const char *unit, const char *note, int last) {
    printf("  {\"name\": \"%s\", \"value\": %.2f, \"unit\": \"%s\", \"note\": \"%s\"}%s\n", name, value, unit, note,
           last ? "" : ",");
}

int main(int argc, char **argv) {
    static const int counts[] = {1, 2, 4};
    enum { COUNTS = sizeof counts / sizeof counts[0] };
    double seconds, *samples, *switches, per[COUNTS], idle;
    size_t samples_n, frames_available;
    int16_t *speech;
    result res[COUNTS], idle_res;
    int joins, url_pipe[2], control[2], i, rc = 0, status;
    pid_t server;
    char url[160], note[1024], name[128];

    if (argc != 5 || (seconds = atof(argv[3])) < 1 || (joins = atoi(argv[4])) < 1) {
        fprintf(stderr, "usage: multi_channel PATH LOG_DIR SECONDS JOINS\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    /* 20 s of signal, looped. */
    samples_n = (size_t)20 * RATE;
    frames_available = samples_n / FRAME;
    if (!(speech = malloc(samples_n * sizeof *speech)) || !(samples = calloc((size_t)joins, sizeof *samples)) ||
        !(switches = calloc((size_t)joins, sizeof *switches))) {
        return 1;
    }
    make_speech(speech, samples_n, RATE, 42);

    if (pipe(url_pipe) != 0 || pipe(control) != 0) return 1;
    if ((server = fork()) == 0) {
        close(url_pipe[0]);
        close(control[1]);
        _exit(server_child(argv[1], SERVER_CONFIG, url_pipe[1], control[0]));
    }
    close(url_pipe[1]);
    close(control[0]);
    server_control = control[1];
    if (server < 0 || read_line(url_pipe[0], url, sizeof url) != 0) {
        fprintf(stderr, "the server process did not start\n");
        return 1;
    }
    close(url_pipe[0]);

    if (run_receiver(argv[1], url, argv[2], 1, 0, seconds, speech, frames_available, &idle_res) != 0) rc = 1;
    for (i = 0; i < COUNTS && rc == 0; i++) {
        if (run_receiver(argv[1], url, argv[2], counts[i], 1, seconds, speech, frames_available, &res[i]) != 0) rc = 1;
    }
    if (rc == 0 && run_joins(argv[1], url, argv[2], JOINER, joins, speech, frames_available, samples) != 0) rc = 1;
    if (rc == 0 && run_joins(argv[1], url, argv[2], SWITCHER, joins, speech, frames_available, switches) != 0) rc = 1;
    close(server_control);
    waitpid(server, &status, 0);
    if (rc != 0) {
        fprintf(stderr, "the engine processes failed\n");
        return 1;
    }
    for (i = 0; i < COUNTS; i++) {
        if (!res[i].stats_seen || res[i].min_active_ms < (int)(seconds * 1e3) / 2) {
            fprintf(stderr, "%d connections: a connection played only %d ms of the %.0f ms window\n", counts[i],
                    res[i].min_active_ms, res[i].window_ms);
            return 1;
        }
        per[i] = res[i].cpu_ms / (res[i].window_ms / 1e3) / counts[i];
    }
    idle = idle_res.cpu_ms / (idle_res.window_ms / 1e3);

    printf("{\"figures\": [\n");
    snprintf(note, sizeof note,
             "CPU of one receiving engine's process (all threads) per second of wall time, divided by its %d "
             "connections (own join + join_channel_ex), each in its own channel receiving one 48 kHz mono "
             "speech-like stream (Opus 18 kbps, a sender process per channel), mixed by the device thread onto "
             "ALSA null, nothing published; %.1f s window after first audio on every connection; "
             "1: %.2f, 2: %.2f, 4: %.2f ms/s per connection; %d threads at 4, %d at 1, %d idle",
             counts[COUNTS - 1], res[COUNTS - 1].window_ms / 1e3, per[0], per[1], per[2], res[COUNTS - 1].threads,
             res[0].threads, idle_res.threads);
    print_figure("multi_channel_cpu_ms_per_s_per_connection", per[COUNTS - 1], "ms/s", note, 0);
    for (i = 0; i < COUNTS; i++) {
        snprintf(name, sizeof name, "multi_channel_cpu_ms_per_s_per_connection_%d", counts[i]);
        snprintf(note, sizeof note,
                 "the same with %d connection%s: process CPU %.2f ms/s over %.1f s, / %d; %d threads; every "
                 "connection played >= %d ms of audio in the window (remote audio stats, every 2 s), "
                 "concealed <= %d %% in the last period",
                 counts[i], counts[i] == 1 ? "" : "s", res[i].cpu_ms / (res[i].window_ms / 1e3),
                 res[i].window_ms / 1e3, counts[i], res[i].threads, res[i].min_active_ms, res[i].max_loss);
        print_figure(name, per[i], "ms/s", note, 0);
    }
    snprintf(note, sizeof note,
             "CPU of the same receiving process (all threads) per second of wall time with 1 connection in a "
             "channel with no sender (recording and playback on ALSA null, nothing published), same %.1f s "
             "window: the fixed cost in the figures above; %d threads",
             idle_res.window_ms / 1e3, idle_res.threads);
    print_figure("multi_channel_idle_cpu_ms_per_s", idle, "ms/s", note, 0);
    sort_samples(samples, joins);
    snprintf(note, sizeof note,
             "median of N=%d cold joins (join_channel -> on_first_remote_audio_decoded, host clock) of an engine "
             "playing on ALSA null into a channel where a sender process already pushes 48 kHz speech-like audio "
             "10 ms every 10 ms; embedded server on 127.0.0.1 in its own process, fresh uid per join, each "
             "followed by leave, on_leave_channel and a random 0..20 ms pause (every phase of the sender's 20 ms "
             "packets), after %d warm-up joins",
             joins, JOIN_WARMUP);
    print_figure("join_first_audio_ms_p50", quantile(samples, joins, 0.5), "ms", note, 0);
    snprintf(note, sizeof note, "p99 of the same N=%d joins (min %.2f ms, max %.2f ms)", joins, samples[0],
             samples[joins - 1]);
    print_figure("join_first_audio_ms_p99", quantile(samples, joins, 0.99), "ms", note, 0);
    sort_samples(switches, joins);
    snprintf(note, sizeof note,
             "median of N=%d quick switches (after preload_channel of both channels for one uid: leave, "
             "on_leave_channel, a random 0..20 ms pause, then join_channel of the other channel with the same uid "
             "-> on_first_remote_audio_decoded, host clock) of an engine playing on ALSA null between two channels "
             "where a sender process each already pushes 48 kHz speech-like audio 10 ms every 10 ms; embedded "
             "server on 127.0.0.1 in its own process, each switch right after first audio of the one before, "
             "after a first join and %d warm-up switches",
             joins, JOIN_WARMUP);
    print_figure("quick_switch_first_audio_ms_p50", quantile(switches, joins, 0.5), "ms", note, 0);
    snprintf(note, sizeof note, "p99 of the same N=%d switches (min %.2f ms, max %.2f ms)", joins, switches[0],
             switches[joins - 1]);
    print_figure("quick_switch_first_audio_ms_p99", quantile(switches, joins, 0.99), "ms", note, 1);
    printf("]}\n");
    free(speech);
    free(samples);
    free(switches);
    return 0;
}
