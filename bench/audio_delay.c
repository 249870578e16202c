/*
 * audio_delay.c — end-to-end audio delay on loopback, agoraish beside
 * GStreamer, measured the same way in the same run.
 *
 * agoraish: an embedded server and two engines in this process. The sender
 * pushes 10 ms of 48 kHz mono every 10 ms (absolute deadlines on
 * CLOCK_MONOTONIC) through agoraish_engine_push_external_audio_frame; the
 * signal is silence with a 10 ms chirp (200-1000 Hz) every 500 ms, each
 * chirp starting at a pseudo-random offset within a 20 ms window so that its
 * phase against the Opus frames and the playout clock is spread evenly. The
 * receiver pulls 10 ms every 10 ms on its own thread, half a period after
 * the pushes (so a pull never races a push), through
 * agoraish_engine_pull_playback_audio_frame.
 *
 * GStreamer: the same signal, written 10 ms every 10 ms into
 * `gst-launch-1.0 fdsrc ! rawaudioparse ! opusenc ! rtpopuspay ! udpsink`,
 * and read back from `udpsrc ! rtpjitterbuffer latency=20 ! rtpopusdepay !
 * opusdec ! fdsink sync=true` (the sink renders on the pipeline clock, as a
 * playout device would). Opus settings are the engine's defaults (see
 * audio_support.h).
 *
 * The delay of one click: each pushed (written) 10 ms frame carries the time
 * it was handed over, taken right before the call; each pulled (read) block
 * of audio carries the time the call returned it. A sample's time on either
 * side is its block's time plus its offset in the block at 48 kHz. The click
 * is located in the received audio by cross-correlation with the chirp
 * template, searched within the 480 ms after it was pushed (a correlation
 * coefficient of at least 0.5 at the peak counts as found); its delay is
 * (time its first sample became available at the receiver) - (time it was
 * pushed). p50 and p99 are over the clicks found, nearest rank.
 *
 *   audio_delay PATH LOG_DIR CLICKS
 *     -> {"figures": [...]}
 *
 * With AUDIO_DELAY_DEBUG set, each click's correlation coefficient and delay
 * go to stderr.
 */
#define _POSIX_C_SOURCE 200809L

#include "audio_support.h"

#define RATE 48000
#define FRAME 480               /* 10 ms */
#define SPACING (RATE / 2)      /* 500 ms between clicks */
#define WARMUP_SAMPLES RATE     /* 1 s of silence first */
#define TAIL_MS 700             /* keep receiving this long after the last push */
#define CHIRP 480               /* 10 ms click */
#define SEARCH_MS 480.0
#define MIN_NCC 0.5

/* Everything one run pushed and received. */
typedef struct capture {
    int16_t *tx;
    size_t tx_frames;           /* 10 ms frames */
    double *tx_time;            /* when each frame was pushed */
    int16_t *rx;
    size_t rx_len, rx_cap;
    size_t *chunk_start;        /* first sample of each received block */
    double *chunk_time;         /* when it became available */
    size_t chunks, chunk_cap;
} capture;

typedef struct run_ctx {
    int gst;                    /* 0 engine, 1 GStreamer */
    agoraish_engine_t *tx_engine, *rx_engine;
    int tx_fd, rx_fd;
    double t0;
    capture *cap;
    volatile int push_done;
    volatile int stop_rx;
    int push_errors, pull_errors;
} run_ctx;

static int append_rx(capture *c, const int16_t *s, size_t n, double at) {
    if (c->rx_len + n > c->rx_cap) {
        size_t cap = (c->rx_cap + n) * 2;
        int16_t *p = realloc(c->rx, cap * sizeof *p);
        if (!p) return 1;
        c->rx = p;
        c->rx_cap = cap;
    }
    if (c->chunks == c->chunk_cap) {
        size_t cap = c->chunk_cap ? c->chunk_cap * 2 : 4096;
        size_t *a = realloc(c->chunk_start, cap * sizeof *a);
        double *b;
        if (!a) return 1;
        c->chunk_start = a;
        b = realloc(c->chunk_time, cap * sizeof *b);
        if (!b) return 1;
        c->chunk_time = b;
        c->chunk_cap = cap;
    }
    c->chunk_start[c->chunks] = c->rx_len;
    c->chunk_time[c->chunks] = at;
    c->chunks++;
    memcpy(c->rx + c->rx_len, s, n * sizeof *s);
    c->rx_len += n;
    return 0;
}

/* When received sample `r` became available (ms, CLOCK_MONOTONIC). */
static double rx_time(const capture *c, size_t r) {
    size_t lo = 0, hi = c->chunks;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (c->chunk_start[mid] <= r) lo = mid; else hi = mid;
    }
    return c->chunk_time[lo] + (double)(r - c->chunk_start[lo]) * 1e3 / RATE;
}

static void *push_thread(void *arg) {
    run_ctx *x = arg;
    capture *c = x->cap;
    size_t f;
    for (f = 0; f < c->tx_frames; f++) {
        const int16_t *frame = c->tx + f * FRAME;
        sleep_until_ms(x->t0 + (double)f * 10);
        c->tx_time[f] = now_ms();
        if (x->gst) {
            if (write_all(x->tx_fd, frame, FRAME * sizeof *frame) != 0) x->push_errors++;
        } else if (api.push_external_audio_frame(x->tx_engine, frame, FRAME) < 0) {
            x->push_errors++;
        }
    }
    x->push_done = 1;
    return NULL;
}

/* The engine's receiver: 10 ms every 10 ms, half a period after the pushes. */
static void *pull_thread(void *arg) {
    run_ctx *x = arg;
    int16_t frame[FRAME];
    double end = 0;
    size_t k;
    for (k = 0;; k++) {
        double at;
        sleep_until_ms(x->t0 + 5 + (double)k * 10);
        if (api.pull_playback_audio_frame(x->rx_engine, frame, FRAME) != 0) x->pull_errors++;
        at = now_ms();
        if (append_rx(x->cap, frame, FRAME, at) != 0) break;
        if (x->push_done && end == 0) end = at + TAIL_MS;
        if (end != 0 && at >= end) break;
    }
    return NULL;
}

/* GStreamer's receiver: whatever the sink wrote, as soon as it is readable. */
static void *read_thread(void *arg) {
    run_ctx *x = arg;
    char buf[65536];
    size_t carry = 0;
    for (;;) {
        ssize_t n = read(x->rx_fd, buf + carry, sizeof buf - carry);
        double at = now_ms();
        size_t total, samples;
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        total = carry + (size_t)n;
        samples = total / 2;
        if (samples > 0) {
            int16_t tmp[32768];
            memcpy(tmp, buf, samples * 2);
            if (append_rx(x->cap, tmp, samples, at) != 0) break;
        }
        carry = total % 2;
        if (carry) buf[0] = buf[total - 1];
    }
    return NULL;
}

/* The signal: silence, then `clicks` chirps 500 ms apart, each at a random
 * offset in [0, 20 ms); `pos` receives each click's first sample. */
static int make_signal(capture *c, int clicks, const double *chirp, size_t *pos) {
    size_t total = WARMUP_SAMPLES + (size_t)clicks * SPACING + RATE / 2;
    uint64_t rng = 0xA0D10DE1A7ull;
    int k, i;
    total = (total + FRAME - 1) / FRAME * FRAME;
    c->tx_frames = total / FRAME;
    c->tx = calloc(total, sizeof *c->tx);
    c->tx_time = calloc(c->tx_frames, sizeof *c->tx_time);
    if (!c->tx || !c->tx_time) return 1;
    for (k = 0; k < clicks; k++) {
        pos[k] = WARMUP_SAMPLES + (size_t)k * SPACING + (size_t)(next_random(&rng) % (2 * FRAME));
        for (i = 0; i < CHIRP; i++) c->tx[pos[k] + (size_t)i] = (int16_t)lrint(chirp[i]);
    }
    return 0;
}

/* Locates every click; writes the delays found into `delays`, returns how many. */
static int find_clicks(const capture *c, int clicks, const size_t *pos, const double *chirp, double *delays) {
    double norm_t = 0;
    int k, found = 0, i;
    for (i = 0; i < CHIRP; i++) norm_t += chirp[i] * chirp[i];
    norm_t = sqrt(norm_t);
    for (k = 0; k < clicks; k++) {
        size_t f = pos[k] / FRAME, a = 0, b, r, best_r = 0;
        double sent, best = -1e300, energy = 0, ncc;
        if (f >= c->tx_frames || c->tx_time[f] == 0 || c->rx_len < CHIRP) continue;
        sent = c->tx_time[f] + (double)(pos[k] % FRAME) * 1e3 / RATE;
        while (a < c->rx_len && rx_time(c, a) < sent) a += 16;
        b = a;
        while (b < c->rx_len && rx_time(c, b) < sent + SEARCH_MS) b += 16;
        if (b > c->rx_len - CHIRP) b = c->rx_len - CHIRP;
        for (r = a; r < b; r++) {
            double s = 0;
            for (i = 0; i < CHIRP; i++) s += c->rx[r + (size_t)i] * chirp[i];
            if (s > best) { best = s; best_r = r; }
        }
        if (best <= 0) continue;
        for (i = 0; i < CHIRP; i++) energy += (double)c->rx[best_r + (size_t)i] * c->rx[best_r + (size_t)i];
        ncc = energy > 0 ? best / (norm_t * sqrt(energy)) : 0;
        if (getenv("AUDIO_DELAY_DEBUG")) {
            fprintf(stderr, "click %d: ncc %.2f delay %.2f\n", k, ncc, rx_time(c, best_r) - sent);
        }
        if (ncc < MIN_NCC) continue;
        delays[found++] = rx_time(c, best_r) - sent;
    }
    return found;
}

static void free_capture(capture *c) {
    free(c->tx);
    free(c->tx_time);
    free(c->rx);
    free(c->chunk_start);
    free(c->chunk_time);
    memset(c, 0, sizeof *c);
}

/* One run through the engine; 0 on success. `jb` receives the receiver's last
 * reported jitter buffer and end-to-end delay (ms), -1 when none. */
static int run_engine(capture *c, const char *log_dir, int *jb, int *e2e) {
    char url[128], log_a[4096], log_b[4096];
    agoraish_server_t *server;
    peer a, b;
    run_ctx x;
    pthread_t tp, tr;
    int rc = 0;
    *jb = *e2e = -1;
    if (!(server = start_embedded_server(NULL, url, sizeof url))) return 1;
    snprintf(log_a, sizeof log_a, "%s/audio_delay_sender.log", log_dir);
    snprintf(log_b, sizeof log_b, "%s/audio_delay_receiver.log", log_dir);
    if (!peer_create(&a, url, log_a, RATE) || !peer_create(&b, url, log_b, RATE)) return 1;
    if (peer_join(&a, "bench-audio-delay", 1001) || peer_join(&b, "bench-audio-delay", 1002) ||
        !peer_wait(&b, &b.remote_joined)) {
        fprintf(stderr, "the engines did not meet in the channel\n");
        rc = 1;
    } else {
        memset(&x, 0, sizeof x);
        x.tx_engine = a.engine;
        x.rx_engine = b.engine;
        x.cap = c;
        x.t0 = now_ms() + 20;
        pthread_create(&tp, NULL, push_thread, &x);
        pthread_create(&tr, NULL, pull_thread, &x);
        pthread_join(tp, NULL);
        pthread_join(tr, NULL);
        if (x.push_errors || x.pull_errors) {
            fprintf(stderr, "%d pushes and %d pulls failed\n", x.push_errors, x.pull_errors);
            rc = 1;
        }
        pthread_mutex_lock(&b.mutex);
        if (b.stats_count > 0) {
            *jb = b.remote_stats.jitter_buffer_delay;
            *e2e = b.remote_stats.end_to_end_delay;
        }
        pthread_mutex_unlock(&b.mutex);
    }
    api.engine_release(a.engine, 1);
    api.engine_release(b.engine, 1);
    api.server_release(server);
    return rc;
}

/* One run through GStreamer; 0 on success, else `why` says what failed. */
static int run_gst(capture *c, const char *log_dir, char *why, size_t cap) {
    char pipeline[2048], log[4096];
    int tx[2], rx[2];
    pid_t sender, receiver;
    run_ctx x;
    pthread_t tp, tr;
    uint16_t port = free_udp_port();
    if (!have_program("gst-launch-1.0")) {
        snprintf(why, cap, "gst-launch-1.0 not found (scripts/setup-bench.sh installs GStreamer)");
        return 1;
    }
    if (port == 0 || pipe(tx) != 0 || pipe(rx) != 0) {
        snprintf(why, cap, "no port or pipe");
        return 1;
    }
    fcntl(tx[1], F_SETFD, FD_CLOEXEC);
    fcntl(rx[0], F_SETFD, FD_CLOEXEC);
    snprintf(log, sizeof log, "%s/audio_delay_gst.log", log_dir);
    gst_receiver_pipeline(pipeline, sizeof pipeline, port);
    receiver = spawn_gst(pipeline, rx[1], log);
    close(rx[1]);
    memset(&x, 0, sizeof x);
    x.gst = 1;
    x.cap = c;
    x.rx_fd = rx[0];
    x.tx_fd = tx[1];
    pthread_create(&tr, NULL, read_thread, &x);
    sleep_until_ms(now_ms() + 500);
    gst_sender_pipeline(pipeline, sizeof pipeline, port);
    sender = spawn_gst(pipeline, tx[0], log);
    close(tx[0]);
    sleep_until_ms(now_ms() + 500);
    if (receiver < 0 || sender < 0 || !child_running(receiver) || !child_running(sender)) {
        snprintf(why, cap, "gst-launch-1.0 exited at start (missing elements? see audio_delay_gst.log)");
        close(tx[1]);
        stop_child(sender);
        stop_child(receiver);
        pthread_join(tr, NULL);
        close(rx[0]);
        return 1;
    }
    x.t0 = now_ms() + 20;
    pthread_create(&tp, NULL, push_thread, &x);
    pthread_join(tp, NULL);
    sleep_until_ms(now_ms() + TAIL_MS);
    close(tx[1]);
    stop_child(sender);
    stop_child(receiver);
    pthread_join(tr, NULL);
    close(rx[0]);
    if (x.push_errors) {
        snprintf(why, cap, "%d writes to the GStreamer sender failed", x.push_errors);
        return 1;
    }
    if (c->rx_len == 0) {
        snprintf(why, cap, "the GStreamer receiver produced no audio (see audio_delay_gst.log)");
        return 1;
    }
    return 0;
}

static void print_figure(const char *name, int have, double value, const char *unit, const char *note, int last) {
    printf("  {\"name\": \"%s\", \"value\": ", name);
    if (have) printf("%.2f", value); else printf("null");
    printf(", \"unit\": \"%s\", \"note\": \"%s\"}%s\n", unit, note, last ? "" : ",");
}

int main(int argc, char **argv) {
    double chirp[CHIRP], *delays;
    size_t *pos;
    capture engine_cap, gst_cap;
    int clicks, found_e = 0, found_g = 0, gst_ok, jb, e2e;
    double e50 = 0, e99 = 0, g50 = 0, g99 = 0;
    char why[512] = "", note[1024];

    if (argc != 4 || (clicks = atoi(argv[3])) < 2) {
        fprintf(stderr, "usage: audio_delay PATH LOG_DIR CLICKS\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    if (load_audio_api(argv[1]) != 0) return 1;
    make_chirp(chirp, CHIRP, RATE, 16000);
    pos = calloc((size_t)clicks, sizeof *pos);
    delays = calloc((size_t)clicks, sizeof *delays);
    memset(&engine_cap, 0, sizeof engine_cap);
    memset(&gst_cap, 0, sizeof gst_cap);
    if (!pos || !delays || make_signal(&engine_cap, clicks, chirp, pos) != 0 ||
        make_signal(&gst_cap, clicks, chirp, pos) != 0) return 1;

    if (run_engine(&engine_cap, argv[2], &jb, &e2e) != 0) return 1;
    found_e = find_clicks(&engine_cap, clicks, pos, chirp, delays);
    if (found_e < clicks / 2) {
        fprintf(stderr, "only %d of %d clicks found in the engine's output\n", found_e, clicks);
        return 1;
    }
    sort_samples(delays, found_e);
    e50 = quantile(delays, found_e, 0.5);
    e99 = quantile(delays, found_e, 0.99);
    {
        double lo = delays[0], hi = delays[found_e - 1];
        gst_ok = run_gst(&gst_cap, argv[2], why, sizeof why) == 0;
        if (gst_ok) {
            found_g = find_clicks(&gst_cap, clicks, pos, chirp, delays);
            if (found_g < clicks / 2) {
                snprintf(why, sizeof why, "only %d of %d clicks found in GStreamer's output", found_g, clicks);
                gst_ok = 0;
            } else {
                sort_samples(delays, found_g);
                g50 = quantile(delays, found_g, 0.5);
                g99 = quantile(delays, found_g, 0.99);
            }
        }
        printf("{\"figures\": [\n");
        snprintf(note, sizeof note,
                 "median over N=%d of %d clicks: push (10 ms every 10 ms) to the receiver's pull (10 ms every 10 ms, "
                 "offset 5 ms), embedded server, loopback, 48 kHz mono, default profile; min %.1f, max %.1f; "
                 "engine's own estimate at the end: jitter buffer %d ms, end-to-end %d ms",
                 found_e, clicks, lo, hi, jb, e2e);
        if (gst_ok) {
            size_t len = strlen(note);
            snprintf(note + len, sizeof note - len, "; agoraish/gstreamer = %.2f", e50 / g50);
        }
        print_figure("audio_e2e_delay_p50_ms", 1, e50, "ms", note, 0);
        snprintf(note, sizeof note, "p99 (nearest rank) of the same N=%d clicks", found_e);
        if (gst_ok) {
            size_t len = strlen(note);
            snprintf(note + len, sizeof note - len, "; agoraish/gstreamer = %.2f", e99 / g99);
        }
        print_figure("audio_e2e_delay_p99_ms", 1, e99, "ms", note, 0);
        if (gst_ok) {
            snprintf(note, sizeof note,
                     "GStreamer 1.22 measured the same way in the same run: fdsrc ! opusenc (voice, 18 kbps VBR, "
                     "FEC, complexity 9, 20 ms) ! rtpopuspay ! udpsink -> udpsrc ! rtpjitterbuffer latency=20 ! "
                     "rtpopusdepay ! opusdec ! fdsink sync=true; median over N=%d of %d clicks "
                     "(perf-anchors section 5, other method: 47.3 ms)", found_g, clicks);
        } else {
            snprintf(note, sizeof note, "not measured: %s", why);
        }
        print_figure("gstreamer_audio_e2e_delay_p50_ms", gst_ok, g50, "ms", note, 0);
        if (gst_ok) {
            snprintf(note, sizeof note, "p99 (nearest rank) of the same N=%d GStreamer clicks", found_g);
        } else {
            snprintf(note, sizeof note, "not measured: %s", why);
        }
        print_figure("gstreamer_audio_e2e_delay_p99_ms", gst_ok, g99, "ms", note, 1);
        printf("]}\n");
    }
    free_capture(&engine_cap);
    free_capture(&gst_cap);
    free(pos);
    free(delays);
    return 0;
}
