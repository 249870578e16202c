/*
 * bwe_convergence.c — how fast the sender's bandwidth estimate follows a
 * change of its uplink's capacity: a two-engine VP8 call whose sender's
 * simulated uplink is squeezed from 2000 to 500 kbps and opened again.
 *
 * An embedded server and two engines in this process, video enabled on
 * both. The sender has an external video source configured for 640x360@15
 * fps at 1500 kbps, degradation preference 0 (the default,
 * MAINTAIN_QUALITY: below the configured rate the engine lowers the frame
 * rate, the picture keeps its size); its pushing thread draws picture k
 * (video_support.h's synthetic camera: a scrolling gradient, four textured
 * blocks and +-2 of per-pixel noise that moves every frame, busy enough that
 * libvpx with the engine's settings spends 1500 kbps and more on it) and
 * pushes it at start + k / 15 s (absolute CLOCK_MONOTONIC deadlines) until
 * the end. The receiver renders the sender's uid into a callback that only
 * notes the time (the server forwards the stream to a real subscriber).
 *
 * Before it joins, the sender gets
 *   {"rtc.network_simulation_send": {"loss_percent": 0, "delay_ms": 10,
 *    "jitter_ms": 0, "seed": 1, "bandwidth_kbps": 2000, "queue_ms": 300}}
 * on every RTP packet it sends: a 2000 kbps bottleneck behind a drop-tail
 * queue of 300 ms, 10 ms one way. The engine's congestion control (the
 * server's transport-wide feedback driving a delay- and loss-based
 * estimate) is what the sender's pacer and encoder follow. Three phases,
 * timed from the moment both engines are in the channel:
 *
 *   warm-up  WARMUP_S at 2000 kbps;
 *   down     the same parameter again with bandwidth_kbps 500 (the engine
 *            keeps the queue and what waits in it), DOWN_S;
 *   up       bandwidth_kbps 2000 again, UP_S.
 *
 * In every phase the main thread reads agoraish_engine_get_parameter(sender,
 * "rtc.bandwidth_estimate") every SAMPLE_MS ms (absolute deadlines from the
 * change): {"target_bps", "loss", "queueing_ms"}, timed when the read
 * starts. From the series:
 *
 *   bwe_convergence_s               down: from the change to the first
 *                                   sample of the last run of samples in
 *                                   [250, 550] kbps that lasts to the end
 *                                   of the phase; null when the last sample
 *                                   is outside;
 *   bwe_convergence_up_s            up: from the change to the first sample
 *                                   at or above 1600 kbps; null if none;
 *   bwe_queueing_p95_ms_after_drop  down: p95 (nearest rank) of queueing_ms
 *                                   over the samples from 4 s after the
 *                                   change to the end of the phase.
 *
 * At the end of each phase it also notes the last on_rtc_stats of both
 * engines (every 2 s), the receiver's last on_remote_video_stats, and the
 * pictures rendered in the phase and in its last 4 s.
 *
 *   bwe_convergence PATH LOG_DIR WARMUP_S DOWN_S UP_S
 *     -> {"config": {...}, "bwe_convergence_s": s|null, "bwe_convergence_up_s": s|null,
 *         "bwe_queueing_p95_ms_after_drop": ms|null, "warmup": {...}, "down": {...}, "up": {...},
 *         "series": {"warmup": [[t_s, target_bps|null, queueing_ms|null, loss|null], ...], "down": [...], "up": [...]}}
 */
#define _POSIX_C_SOURCE 200809L

#include "video_support.h"

#define WIDTH 640
#define HEIGHT 360
#define FPS 15
#define KBPS 1500
#define DEGRADATION 0               /* MAINTAIN_QUALITY, the default */
#define HIGH_KBPS 2000
#define LOW_KBPS 500
#define QUEUE_MS 300
#define DELAY_MS 10
#define SIM_SEED 1
#define SAMPLE_MS 50.0
#define BAND_LOW_BPS 250000.0       /* the band the estimate must settle in after the drop */
#define BAND_HIGH_BPS 550000.0
#define UP_BPS 1600000.0            /* the level the estimate must reach after the cap is lifted */
#define QUEUE_FROM_MS 4000.0        /* queueing counted from this long after the drop */
#define TAIL_MS 4000.0              /* the end of a phase whose frame rate is reported */
#define SENDER_UID 7001u
#define RECEIVER_UID 7002u

static int (*get_parameter)(agoraish_engine_t *, const char *, char *, size_t *);

/** load_video_api plus agoraish_engine_get_parameter; 0 on success. */
static int load_api(const char *path) {
    void *lib;
    if (load_video_api(path) != 0 || !(lib = open_library(path))) return 1;
    LOOKUP(lib, get_parameter, "agoraish_engine_get_parameter");
    return 0;
}

/* One reading of rtc.bandwidth_estimate; the values are -1 when it was null. */
typedef struct sample {
    double t_ms;                /* since the phase began */
    double target_bps, queueing_ms, loss;
} sample;


/** Reads the sender's estimate into `s` (values -1 when null); 0 on success. */
static int read_estimate(agoraish_engine_t *engine, sample *s) {
    char buf[512];
    size_t len = sizeof buf;
    int code;
    s->target_bps = s->queueing_ms = s->loss = -1;
    if ((code = get_parameter(engine, "rtc.bandwidth_estimate", buf, &len)) != 0) {
        fprintf(stderr, "get_parameter(\"rtc.bandwidth_estimate\") returned %d%s\n", code,
                code == -2 ? " (a library without congestion control does not know the key)" : "");
        return 1;
    }
    if (json_number(buf, "target_bps", &s->target_bps)) {
        if (!json_number(buf, "queueing_ms", &s->queueing_ms)) s->queueing_ms = -1;
        if (!json_number(buf, "loss", &s->loss)) s->loss = -1;
    } else if (strncmp(buf, "null", 4) != 0) {
        fprintf(stderr, "rtc.bandwidth_estimate is neither null nor an estimate: %s\n", buf);
        return 1;
    }
    return 0;
}

/** Caps the engine's uplink at `kbps` (the same queue and random state when one is set). */
static int set_cap(agoraish_engine_t *engine, int kbps) {
    char json[256];
    snprintf(json, sizeof json,
             "{\"rtc.network_simulation_send\": {\"loss_percent\": 0, \"delay_ms\": %d, \"jitter_ms\": 0, "
             "\"seed\": %d, \"bandwidth_kbps\": %d, \"queue_ms\": %d}}",
             DELAY_MS, SIM_SEED, kbps, QUEUE_MS);
    if (api.set_parameters(engine, json) != 0) {
        fprintf(stderr, "set_parameters %s failed\n", json);
        return 1;
    }
    return 0;
}

/** The sender's encoder as vpeer_create set it, with degradation_preference DEGRADATION stated; 0 on success. */
static int configure_sender(agoraish_engine_t *engine) {
    agoraish_video_encoder_configuration vc;
    memset(&vc, 0, sizeof vc);
    vc.struct_size = sizeof vc;
    vc.width = WIDTH;
    vc.height = HEIGHT;
    vc.frame_rate = FPS;
    vc.bitrate = KBPS;
    vc.min_bitrate = -1;
    vc.codec_type = AGORAISH_VIDEO_CODEC_VP8;
    vc.degradation_preference = DEGRADATION;
    if (vapi.set_video_encoder_configuration(engine, &vc) != 0) {
        fprintf(stderr, "set_video_encoder_configuration (degradation_preference %d) failed\n", DEGRADATION);
        return 1;
    }
    return 0;
}

/* What the receiver's render callback saw (written on its video thread only). */
typedef struct watch {
    double *at;                 /* callback entry of each picture */
    int count, cap;
} watch;

static void on_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    watch *w = ud;
    double at = now_ms();
    (void)e, (void)uid, (void)f;
    if (w->count < w->cap) {
        w->at[w->count] = at;
        __atomic_store_n(&w->count, w->count + 1, __ATOMIC_RELEASE);
    }
}

/* The engines' last reports at the end of a phase. */
typedef struct snapshot {
    int sender_reports, receiver_reports, video_reports;
    agoraish_rtc_stats tx;                  /* the sender's last on_rtc_stats */
    agoraish_rtc_stats rx;                  /* the receiver's */
    agoraish_remote_video_stats video;      /* the receiver's last on_remote_video_stats */
} snapshot;

static void take_snapshot(vpeer *a, vpeer *b, snapshot *s) {
    pthread_mutex_lock(&a->base.mutex);
    s->sender_reports = a->stats_count;
    s->tx = a->rtc;
    pthread_mutex_unlock(&a->base.mutex);
    pthread_mutex_lock(&b->base.mutex);
    s->receiver_reports = b->stats_count;
    s->rx = b->rtc;
    s->video_reports = b->video_stats_count;
    s->video = b->remote_video;
    pthread_mutex_unlock(&b->base.mutex);
}

/* One phase: its cap, its samples, the reports at its end. */
typedef struct phase {
    const char *name;
    int kbps;
    double seconds;
    double start;               /* now_ms() when the phase began (the cap changed) */
    sample *samples;
    int n;
    snapshot end;
    int pictures, tail_pictures; /* rendered in the phase, and in its last TAIL_MS */
} phase;

/**
 * Runs phase `p`: the cap changes to p->kbps at its start (unless `keep`),
 * then the estimate is read every SAMPLE_MS to the end. 0 on success.
 */
static int run_phase(vpeer *a, vpeer *b, phase *p, int keep) {
    int i, count = (int)(p->seconds * 1e3 / SAMPLE_MS + 0.5) + 1;
    if (!(p->samples = calloc((size_t)count, sizeof *p->samples))) return 1;
    p->start = now_ms();
    if (!keep && set_cap(a->base.engine, p->kbps) != 0) return 1;
    for (i = 0; i < count; i++) {
        double t;
        sleep_until_ms(p->start + i * SAMPLE_MS);
        t = now_ms();
        if (read_estimate(a->base.engine, &p->samples[i]) != 0) return 1;
        p->samples[i].t_ms = t - p->start;
        p->n = i + 1;
    }
    take_snapshot(a, b, &p->end);
    return 0;
}

/** The estimate is known and inside [BAND_LOW_BPS, BAND_HIGH_BPS]. */
static int in_band(const sample *s) { return s->target_bps >= BAND_LOW_BPS && s->target_bps <= BAND_HIGH_BPS; }

/** When the estimate entered the band for good (ms after the change); -1 when the phase ends outside it. */
static double settled_ms(const phase *p) {
    int i, last_out = -1;
    for (i = 0; i < p->n; i++) {
        if (!in_band(&p->samples[i])) last_out = i;
    }
    return last_out == p->n - 1 ? -1 : p->samples[last_out + 1].t_ms;
}

/** The first sample at or above `bps` (ms after the change); -1 when none. */
static double reached_ms(const phase *p, double bps) {
    int i;
    for (i = 0; i < p->n; i++) {
        if (p->samples[i].target_bps >= bps) return p->samples[i].t_ms;
    }
    return -1;
}

/**
 * The q-quantile (nearest rank) of the known estimates (`field` 0) or
 * queueing delays (1) from `from_ms` on; -1 when none.
 */
static double phase_quantile(const phase *p, int field, double from_ms, double q) {
    double *v = malloc((size_t)(p->n + 1) * sizeof *v), out = -1;
    int i, n = 0;
    if (!v) return -1;
    for (i = 0; i < p->n; i++) {
        const sample *s = &p->samples[i];
        double x = field == 0 ? s->target_bps : s->queueing_ms;
        if (s->t_ms >= from_ms && s->target_bps >= 0 && x >= 0) v[n++] = x;
    }
    if (n > 0) {
        sort_samples(v, n);
        out = quantile(v, n, q);
    }
    free(v);
    return out;
}

/** The lowest and highest known estimate of the phase (-1 when none). */
static void phase_range(const phase *p, double *low, double *high) {
    int i;
    *low = *high = -1;
    for (i = 0; i < p->n; i++) {
        double x = p->samples[i].target_bps;
        if (x < 0) continue;
        if (*low < 0 || x < *low) *low = x;
        if (x > *high) *high = x;
    }
}

/** Samples of the phase whose estimate was null. */
static int phase_nulls(const phase *p) {
    int i, n = 0;
    for (i = 0; i < p->n; i++) n += p->samples[i].target_bps < 0;
    return n;
}

/** Times the estimate left the band after first entering it. */
static int band_exits(const phase *p) {
    int i, exits = 0, inside = 0, entered = 0;
    for (i = 0; i < p->n; i++) {
        int now = in_band(&p->samples[i]);
        if (now) entered = 1;
        if (entered && inside && !now) exits++;
        inside = now;
    }
    return exits;
}

/** The first sample in the band (ms after the change); -1 when none. */
static double first_in_band_ms(const phase *p) {
    int i;
    for (i = 0; i < p->n; i++) {
        if (in_band(&p->samples[i])) return p->samples[i].t_ms;
    }
    return -1;
}

/** Pictures `w` saw during phase `p`, and during its last TAIL_MS. */
static void count_pictures(const watch *w, phase *p) {
    double end = p->start + p->seconds * 1e3;
    int i;
    for (i = 0; i < w->count; i++) {
        if (w->at[i] >= p->start && w->at[i] < end) {
            p->pictures++;
            if (w->at[i] >= end - TAIL_MS) p->tail_pictures++;
        }
    }
}

/** `v` / `scale` with `decimals`, or null when `v` < 0. */
static void print_opt(double v, double scale, int decimals) {
    if (v < 0) printf("null");
    else printf("%.*f", decimals, v / scale);
}

static void print_stats(const phase *p) {
    const snapshot *s = &p->end;
    printf("\"stats\": {\"sender_reports\": %d, \"tx_kbps\": %u, \"tx_video_kbps\": %u, \"tx_packet_loss_rate\": %d, "
           "\"gateway_rtt\": %d, \"receiver_reports\": %d, \"rx_video_kbps\": %u, \"video_reports\": %d, "
           "\"received_bitrate\": %d, \"renderer_output_frame_rate\": %d, \"decoder_output_frame_rate\": %d, "
           "\"width\": %d, \"height\": %d, \"packet_loss_rate\": %d, \"total_frozen_time\": %d, "
           "\"pictures\": %d, \"tail_fps\": %.1f}",
           s->sender_reports, s->tx.tx_kbitrate, s->tx.tx_video_kbitrate, s->tx.tx_packet_loss_rate, s->tx.gateway_rtt,
           s->receiver_reports, s->rx.rx_video_kbitrate, s->video_reports, s->video.received_bitrate,
           s->video.renderer_output_frame_rate, s->video.decoder_output_frame_rate, s->video.width, s->video.height,
           s->video.packet_loss_rate, s->video.total_frozen_time, p->pictures, p->tail_pictures * 1e3 / TAIL_MS);
}

static void print_series(const phase *p) {
    int i;
    printf("    \"%s\": [", p->name);
    for (i = 0; i < p->n; i++) {
        const sample *s = &p->samples[i];
        printf("%s[%.3f, ", i ? ", " : "", s->t_ms / 1e3);
        print_opt(s->target_bps, 1, 0);
        printf(", ");
        print_opt(s->target_bps < 0 ? -1 : s->queueing_ms, 1, 1);
        printf(", ");
        print_opt(s->target_bps < 0 ? -1 : s->loss, 1, 4);
        printf("]");
    }
    printf("]");
}

/** The JSON on stdout (the format at the top of this file). */
static void print_results(const phase *phases, int pushed) {
    const phase *warm = &phases[0], *down = &phases[1], *up = &phases[2];
    double low, high;
    int i;
    printf("{\"config\": {\"width\": %d, \"height\": %d, \"fps\": %d, \"kbps\": %d, \"degradation_preference\": %d, "
           "\"high_kbps\": %d, \"low_kbps\": %d, \"queue_ms\": %d, \"delay_ms\": %d, \"sample_ms\": %.0f, "
           "\"warmup_s\": %g, \"down_s\": %g, \"up_s\": %g, \"band_kbps\": [%.0f, %.0f], \"up_kbps\": %.0f, "
           "\"queueing_from_s\": %g, \"pushed\": %d},\n",
           WIDTH, HEIGHT, FPS, KBPS, DEGRADATION, HIGH_KBPS, LOW_KBPS, QUEUE_MS, DELAY_MS, SAMPLE_MS, warm->seconds,
           down->seconds, up->seconds, BAND_LOW_BPS / 1e3, BAND_HIGH_BPS / 1e3, UP_BPS / 1e3, QUEUE_FROM_MS / 1e3,
           pushed);
    printf(" \"bwe_convergence_s\": ");
    print_opt(settled_ms(down), 1e3, 3);
    printf(", \"bwe_convergence_up_s\": ");
    print_opt(reached_ms(up, UP_BPS), 1e3, 3);
    printf(", \"bwe_queueing_p95_ms_after_drop\": ");
    print_opt(phase_quantile(down, 1, QUEUE_FROM_MS, 0.95), 1, 1);
    printf(",\n");

    phase_range(warm, &low, &high);
    printf(" \"warmup\": {\"samples\": %d, \"nulls\": %d, \"end_bps\": ", warm->n, phase_nulls(warm));
    print_opt(warm->n > 0 ? warm->samples[warm->n - 1].target_bps : -1, 1, 0);
    printf(", \"max_bps\": ");
    print_opt(high, 1, 0);
    printf(", \"queueing_p95_ms_last_4s\": ");
    print_opt(phase_quantile(warm, 1, warm->seconds * 1e3 - QUEUE_FROM_MS, 0.95), 1, 1);
    printf(", ");
    print_stats(warm);
    printf("},\n");

    phase_range(down, &low, &high);
    printf(" \"down\": {\"samples\": %d, \"nulls\": %d, \"first_in_band_s\": ", down->n, phase_nulls(down));
    print_opt(first_in_band_ms(down), 1e3, 3);
    printf(", \"band_exits\": %d, \"min_bps\": ", band_exits(down));
    print_opt(low, 1, 0);
    printf(", \"end_bps\": ");
    print_opt(down->n > 0 ? down->samples[down->n - 1].target_bps : -1, 1, 0);
    printf(", \"median_bps_after_4s\": ");
    print_opt(phase_quantile(down, 0, QUEUE_FROM_MS, 0.5), 1, 0);
    printf(", \"queueing_p50_ms_after_4s\": ");
    print_opt(phase_quantile(down, 1, QUEUE_FROM_MS, 0.5), 1, 1);
    printf(", \"queueing_max_ms\": ");
    print_opt(phase_quantile(down, 1, 0, 1.0), 1, 1);
    printf(", ");
    print_stats(down);
    printf("},\n");

    phase_range(up, &low, &high);
    printf(" \"up\": {\"samples\": %d, \"nulls\": %d, \"start_bps\": ", up->n, phase_nulls(up));
    print_opt(up->n > 0 ? up->samples[0].target_bps : -1, 1, 0);
    printf(", \"reach_1000_s\": ");
    print_opt(reached_ms(up, 1e6), 1e3, 3);
    printf(", \"end_bps\": ");
    print_opt(up->n > 0 ? up->samples[up->n - 1].target_bps : -1, 1, 0);
    printf(", \"max_bps\": ");
    print_opt(high, 1, 0);
    printf(", \"queueing_p95_ms\": ");
    print_opt(phase_quantile(up, 1, 0, 0.95), 1, 1);
    printf(", ");
    print_stats(up);
    printf("},\n");

    printf(" \"series\": {\n");
    for (i = 0; i < 3; i++) {
        print_series(&phases[i]);
        printf("%s\n", i < 2 ? "," : "");
    }
    printf(" }}\n");
}

int main(int argc, char **argv) {
    char url[128], log_a[4096], log_b[4096], probe[64];
    size_t probe_len = sizeof probe;
    agoraish_server_t *server;
    vpeer a, b;
    watch w;
    pusher x;
    pthread_t tp;
    phase phases[3];
    phase *warm = &phases[0], *down = &phases[1], *up = &phases[2];
    int i, rc = 0, started = 0;

    memset(phases, 0, sizeof phases);
    memset(&x, 0, sizeof x);
    if (argc != 6 || (warm->seconds = atof(argv[3])) < 1 || (down->seconds = atof(argv[4])) < 1 ||
        (up->seconds = atof(argv[5])) < 1) {
        fprintf(stderr, "usage: bwe_convergence PATH LOG_DIR WARMUP_S DOWN_S UP_S\n");
        return 2;
    }
    warm->name = "warmup";
    warm->kbps = HIGH_KBPS;
    down->name = "down";
    down->kbps = LOW_KBPS;
    up->name = "up";
    up->kbps = HIGH_KBPS;
    signal(SIGPIPE, SIG_IGN);
    if (load_api(argv[1]) != 0) return 1;
    w.count = 0;
    w.cap = (int)((warm->seconds + down->seconds + up->seconds + 30) * FPS * 2);
    if (!(w.at = calloc((size_t)w.cap, sizeof *w.at))) return 1;
    snprintf(log_a, sizeof log_a, "%s/bwe_convergence_sender.log", argv[2]);
    snprintf(log_b, sizeof log_b, "%s/bwe_convergence_receiver.log", argv[2]);
    if (!(server = start_embedded_server(NULL, url, sizeof url))) return 1;
    if (!vpeer_create(&a, url, log_a, 1, WIDTH, HEIGHT, FPS, KBPS) || !vpeer_create(&b, url, log_b, 0, 0, 0, 0, 0)) {
        api.server_release(server);
        return 1;
    }
    if (configure_sender(a.base.engine) != 0) {
        rc = 1;
    } else if (get_parameter(a.base.engine, "rtc.bandwidth_estimate", probe, &probe_len) != 0) {
        fprintf(stderr, "the library does not know rtc.bandwidth_estimate (no congestion control in this build?)\n");
        rc = 1;
    } else if (set_cap(a.base.engine, HIGH_KBPS) != 0) {
        rc = 1;
    } else if (vpeer_render(&b, SENDER_UID, on_frame, &w) != 0) {
        fprintf(stderr, "setup_remote_video failed\n");
        rc = 1;
    } else if (peer_join(&a.base, "bench-bwe-convergence", SENDER_UID) ||
               peer_join(&b.base, "bench-bwe-convergence", RECEIVER_UID) ||
               !peer_wait(&b.base, &b.base.remote_joined)) {
        fprintf(stderr, "the engines did not meet in the channel\n");
        rc = 1;
    } else {
        x.engine = a.base.engine;
        x.width = WIDTH;
        x.height = HEIGHT;
        x.fps = FPS;
        pthread_create(&tp, NULL, push_thread, &x);
        started = 1;
        /* The warm-up's cap was set before the join. */
        for (i = 0; i < 3 && rc == 0; i++) {
            if (run_phase(&a, &b, &phases[i], i == 0) != 0) {
                fprintf(stderr, "the %s phase failed\n", phases[i].name);
                rc = 1;
            }
        }
    }
    if (started) {
        x.stop = 1;
        pthread_join(tp, NULL);
        if (x.failures) {
            fprintf(stderr, "%d of %d pushes failed\n", x.failures, x.pushed);
            rc = 1;
        }
    }
    /* Unbinding waits for a picture being delivered: after it, the watch is ours. */
    vpeer_render(&b, SENDER_UID, NULL, NULL);
    api.engine_release(a.base.engine, 1);
    api.engine_release(b.base.engine, 1);
    api.server_release(server);
    if (rc != 0) return rc;
    for (i = 0; i < 3; i++) count_pictures(&w, &phases[i]);

    print_results(phases, x.pushed);
    for (i = 0; i < 3; i++) free(phases[i].samples);
    free(w.at);
    return 0;
}
