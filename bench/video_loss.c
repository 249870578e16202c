/*
 * video_loss.c — video freezes under packet loss and bandwidth caps: a
 * two-engine VP8 call whose receiver drops a share of the media it receives,
 * or whose receiver's downlink or sender's uplink is capped.
 *
 * An embedded server and two engines in this process, video enabled on
 * both, one call per loss rate or cap (a new pair of engines in a new
 * channel each time, the same server). The sender has an external video
 * source configured for 640x360@15 fps at 400 kbps (Agora's base rate); its
 * pushing thread draws picture k (video_support.h's synthetic camera, k
 * drawn in as 24 cells) and pushes it at start + k / 15 s (absolute
 * CLOCK_MONOTONIC deadlines) until the measurement ends. In a loss run,
 * before it joins, the receiver gets
 * {"rtc.network_simulation": {"loss_percent": LOSS, "seed": SEED}}: the
 * engine's simulated network drops each RTP packet it receives (video,
 * retransmissions included) with that probability. The engine answers loss
 * the way it does on a real network: the receiver NACKs the gaps, the server
 * retransmits from its cache as RTX, and a frame lost anyway costs a
 * keyframe request.
 *
 * A cap run sets, before joining, instead of random loss
 *   {"<KEY>": {"loss_percent": 0, "delay_ms": 10, "jitter_ms": 0,
 *    "seed": SEED, "bandwidth_kbps": CAP, "queue_ms": 300}}
 * a CAP kbps bottleneck behind a 300 ms drop-tail queue, 10 ms one way: KEY
 * rtc.network_simulation on the receiver (its downlink: every RTP packet it
 * receives) or rtc.network_simulation_send on the sender (its uplink: every
 * RTP packet it sends). The sender's encoder keeps the default degradation
 * preference (MAINTAIN_QUALITY: below the configured rate its frame rate
 * gives) and follows its uplink estimate; the server estimates the
 * receiver's downlink, but a publisher without dual stream leaves it nothing
 * lower to forward. The sender's last on_local_video_stats (target and sent
 * rate and frame rate; the target frame rate's mean and minimum over the
 * reports) and its rtc.bandwidth_estimate at the end are reported with
 * every run.
 *
 * The receiver renders the sender's uid into a callback that takes the time
 * and reads the frame number back. A loss run lasts until the receiver's
 * on_remote_video_stats (every 2 s) reports total_active_time >= SECONDS
 * (ms since the first picture); the figures are that report's
 * total_frozen_time (the sum of the gaps of 500 ms or more between two
 * pictures) and total_active_time. The pictures the callback saw between the
 * first one and that report give the delivered frame rate, the distinct
 * frame numbers, and the same freeze sum measured here as a check.
 *
 * The engine's totals grow only when a picture arrives, so a freeze still
 * going on is not in them (nor in total_active_time: a stream that stops
 * for good would never end the call). A cap run therefore lasts SECONDS of
 * wall clock from the first picture (at most SECONDS + 20 s from joining),
 * and its figures come from the render callback over that window
 * (window_ms): the pictures in it, the gaps of 500 ms or more between them,
 * and the gap from the last picture to the end of the window (open_gap_ms).
 * The receiver's last on_remote_video_stats is reported alongside.
 *
 *   video_loss PATH LOG_DIR SECONDS RUN...
 *     RUN: LOSS_PERCENT (or loss:LOSS_PERCENT), down:CAP_KBPS or up:CAP_KBPS
 *     -> {"runs": [{"kind": "loss"|"downcap"|"upcap", "loss": n, "cap_kbps": n, "seed": n,
 *                   "total_frozen_time": ms, "total_active_time": ms, "window_ms": ms, ...}, ...]}
 */
#define _POSIX_C_SOURCE 200809L

#include "video_support.h"

#define WIDTH 640
#define HEIGHT 360
#define FPS 15
#define KBPS 400
#define FREEZE_MS 500.0
#define SENDER_UID 6001u
#define RECEIVER_UID 6002u
#define SEED_BASE 3000
#define SEED_DOWNCAP 4000           /* + the cap in kbps */
#define SEED_UPCAP 6000             /* + the cap in kbps */
#define CAP_DELAY_MS 10
#define CAP_QUEUE_MS 300

enum run_kind { KIND_LOSS, KIND_DOWNCAP, KIND_UPCAP };
static const char *const kind_names[] = {"loss", "downcap", "upcap"};

static int (*get_parameter)(agoraish_engine_t *, const char *, char *, size_t *);


/* What the receiver's render callback saw (written on its video thread only). */
typedef struct watch {
    double *at;                 /* callback entry of each picture */
    int *number;                /* the frame number read back, -1 unreadable */
    int count, cap;
} watch;

static void on_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    watch *w = ud;
    double at = now_ms();
    (void)e, (void)uid;
    if (w->count < w->cap) {
        w->at[w->count] = at;
        w->number[w->count] = read_picture_number(f->y_buffer, f->y_stride, f->width, f->height);
        __atomic_store_n(&w->count, w->count + 1, __ATOMIC_RELEASE);
    }
}

/* What one call measured. */
typedef struct result {
    int kind, cap_kbps;
    int loss, seed, complete, stats_reports;
    agoraish_remote_video_stats stats;  /* the last report, the one that ended the call */
    int loss_sum;                       /* packet_loss_rate summed over the reports seen */
    int tx_kbps;                        /* the sender's last on_rtc_stats */
    agoraish_local_video_stats local;   /* the sender's last on_local_video_stats */
    int local_reports;                  /* on_local_video_stats seen during the call */
    int target_fps_sum, target_fps_min, target_kbps_sum, target_kbps_min;
    double estimate_bps, estimate_queueing_ms, estimate_loss; /* the sender's rtc.bandwidth_estimate, -1 null */
    double window_ms;                   /* from the first picture to the end of the call */
    int pushed, failures;
    /* From the render callback, first picture to the end. */
    int pictures, numbered, distinct, first_number, last_number, freezes;
    double span_ms, frozen_ms, max_gap_ms, first_picture_ms;
    double open_gap_ms;                 /* from the last picture to the end: a freeze still going on */
} result;

static int compare_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Pictures in `w` up to `end`: counts, distinct numbers, gaps of FREEZE_MS or more. */
static void summarize(const watch *w, double end, double joined, result *r) {
    int i, n = 0, *sorted = malloc((size_t)(w->count + 1) * sizeof *sorted);
    r->first_number = r->last_number = -1;
    for (i = 0; i < w->count && w->at[i] <= end; i++) {
        if (i > 0) {
            double gap = w->at[i] - w->at[i - 1];
            if (gap >= FREEZE_MS) {
                r->frozen_ms += gap;
                r->freezes++;
            }
            if (gap > r->max_gap_ms) r->max_gap_ms = gap;
        }
        if (w->number[i] >= 0) {
            r->numbered++;
            if (r->first_number < 0) r->first_number = w->number[i];
            r->last_number = w->number[i];
            if (sorted) sorted[n++] = w->number[i];
        }
        r->pictures++;
    }
    if (r->pictures > 0) {
        r->span_ms = w->at[r->pictures - 1] - w->at[0];
        r->open_gap_ms = end - w->at[r->pictures - 1];
        r->first_picture_ms = w->at[0] - joined;
    }
    if (sorted) {
        qsort(sorted, (size_t)n, sizeof *sorted, compare_int);
        for (i = 0; i < n; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1]) r->distinct++;
        }
        free(sorted);
    }
}

/** The sender's rtc.bandwidth_estimate into `r` (-1 each when null or unknown to the library). */
static void read_estimate(agoraish_engine_t *engine, result *r) {
    char buf[512];
    size_t len = sizeof buf;
    r->estimate_bps = r->estimate_queueing_ms = r->estimate_loss = -1;
    if (get_parameter(engine, "rtc.bandwidth_estimate", buf, &len) != 0) return;
    if (json_number(buf, "target_bps", &r->estimate_bps)) {
        if (!json_number(buf, "queueing_ms", &r->estimate_queueing_ms)) r->estimate_queueing_ms = -1;
        if (!json_number(buf, "loss", &r->estimate_loss)) r->estimate_loss = -1;
    }
}

/*
 * One call: random loss of `value` percent on what the receiver receives
 * (KIND_LOSS), or a cap of `value` kbps on the receiver's downlink
 * (KIND_DOWNCAP) or the sender's uplink (KIND_UPCAP); 0 on success (a call
 * whose video never reached SECONDS still is, marked incomplete).
 */
static int run_call(const char *url, const char *log_dir, double seconds, int kind, int value, result *r) {
    char log_a[4096], log_b[4096], channel[64], json[256], name[32];
    agoraish_engine_t *simulated;
    vpeer a, b;
    watch w;
    pusher x;
    pthread_t tp;
    double joined, deadline, end;
    int rc = 0, seen = 0, seen_local = 0;
    memset(r, 0, sizeof *r);
    memset(&x, 0, sizeof x);
    r->kind = kind;
    r->target_fps_min = r->target_kbps_min = -1;
    r->estimate_bps = r->estimate_queueing_ms = r->estimate_loss = -1;
    if (kind == KIND_LOSS) {
        r->loss = value;
        r->seed = SEED_BASE + value;
        snprintf(name, sizeof name, "loss_%d", value);
        snprintf(json, sizeof json, "{\"rtc.network_simulation\": {\"loss_percent\": %d, \"seed\": %d}}", value,
                 r->seed);
    } else {
        r->cap_kbps = value;
        r->seed = (kind == KIND_DOWNCAP ? SEED_DOWNCAP : SEED_UPCAP) + value;
        snprintf(name, sizeof name, "%s_%d", kind_names[kind], value);
        snprintf(json, sizeof json,
                 "{\"%s\": {\"loss_percent\": 0, \"delay_ms\": %d, \"jitter_ms\": 0, \"seed\": %d, "
                 "\"bandwidth_kbps\": %d, \"queue_ms\": %d}}",
                 kind == KIND_DOWNCAP ? "rtc.network_simulation" : "rtc.network_simulation_send", CAP_DELAY_MS,
                 r->seed, value, CAP_QUEUE_MS);
    }
    w.count = 0;
    w.cap = (int)((seconds + 40) * FPS * 2);
    w.at = calloc((size_t)w.cap, sizeof *w.at);
    w.number = calloc((size_t)w.cap, sizeof *w.number);
    if (!w.at || !w.number) return 1;
    snprintf(log_a, sizeof log_a, "%s/video_%s_sender.log", log_dir, name);
    snprintf(log_b, sizeof log_b, "%s/video_%s_receiver.log", log_dir, name);
    snprintf(channel, sizeof channel, "bench-video-%s", name);
    if (!vpeer_create(&a, url, log_a, 1, WIDTH, HEIGHT, FPS, KBPS) || !vpeer_create(&b, url, log_b, 0, 0, 0, 0, 0)) {
        return 1;
    }
    simulated = kind == KIND_UPCAP ? a.base.engine : b.base.engine;
    if (api.set_parameters(simulated, json) != 0) {
        fprintf(stderr, "set_parameters %s failed\n", json);
        rc = 1;
    } else if (vpeer_render(&b, SENDER_UID, on_frame, &w) != 0) {
        fprintf(stderr, "setup_remote_video failed\n");
        rc = 1;
    } else if (peer_join(&a.base, channel, SENDER_UID) || peer_join(&b.base, channel, RECEIVER_UID) ||
               !peer_wait(&b.base, &b.base.remote_joined)) {
        fprintf(stderr, "the engines did not meet in the channel\n");
        rc = 1;
    } else {
        joined = now_ms();
        x.engine = a.base.engine;
        x.width = WIDTH;
        x.height = HEIGHT;
        x.fps = FPS;
        pthread_create(&tp, NULL, push_thread, &x);
        /* Loss: until a report covers SECONDS of video (reports come every 2 s); a cap: until SECONDS after the
           first picture (a freeze still going on is counted, the engine's totals would not show it yet). Either
           way at most SECONDS + 20 s after joining. */
        deadline = joined + seconds * 1e3 + 20e3;
        pthread_mutex_lock(&b.base.mutex);
        for (;;) {
            struct timespec ts;
            if (b.video_stats_count != seen) {
                seen = b.video_stats_count;
                r->loss_sum += b.remote_video.packet_loss_rate;
            }
            /* The sender's reports (its own mutex; its callbacks never take the receiver's). */
            pthread_mutex_lock(&a.base.mutex);
            if (a.local_video_stats_count != seen_local) {
                const agoraish_local_video_stats *l = &a.local_video;
                seen_local = a.local_video_stats_count;
                r->local_reports++;
                r->target_fps_sum += l->target_frame_rate;
                r->target_kbps_sum += l->target_bitrate;
                if (r->target_fps_min < 0 || l->target_frame_rate < r->target_fps_min) {
                    r->target_fps_min = l->target_frame_rate;
                }
                if (r->target_kbps_min < 0 || l->target_bitrate < r->target_kbps_min) {
                    r->target_kbps_min = l->target_bitrate;
                }
            }
            pthread_mutex_unlock(&a.base.mutex);
            if (kind == KIND_LOSS) {
                if ((seen > 0 && b.remote_video.total_active_time >= seconds * 1e3) || now_ms() >= deadline) break;
            } else {
                /* SECONDS of wall clock from the first picture, whatever arrives after it. */
                int count = __atomic_load_n(&w.count, __ATOMIC_ACQUIRE);
                if ((count > 0 && now_ms() >= w.at[0] + seconds * 1e3) || now_ms() >= deadline) break;
            }
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 200000000L;
            if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
            pthread_cond_timedwait(&b.base.cond, &b.base.mutex, &ts);
        }
        end = now_ms();
        if (kind == KIND_LOSS) {
            r->complete = b.video_stats_count > 0 && b.remote_video.total_active_time >= seconds * 1e3;
        } else {
            /* Complete when SECONDS passed since the first picture; the loop wakes every 200 ms at most, so the
               window is cut to exactly SECONDS. */
            r->complete = __atomic_load_n(&w.count, __ATOMIC_ACQUIRE) > 0 && end >= w.at[0] + seconds * 1e3;
            if (r->complete) end = w.at[0] + seconds * 1e3;
        }
        r->stats = b.remote_video;
        r->stats_reports = seen;
        pthread_mutex_unlock(&b.base.mutex);
        read_estimate(a.base.engine, r);
        x.stop = 1;
        pthread_join(tp, NULL);
        pthread_mutex_lock(&a.base.mutex);
        r->tx_kbps = a.stats_count > 0 ? (int)a.rtc.tx_kbitrate : -1;
        r->local = a.local_video;
        pthread_mutex_unlock(&a.base.mutex);
        r->pushed = x.pushed;
        r->failures = x.failures;
        /* Unbinding waits for a picture being delivered: after it, the watch is ours. */
        vpeer_render(&b, SENDER_UID, NULL, NULL);
        summarize(&w, end, joined, r);
        if (r->pictures > 0) r->window_ms = end - w.at[0];
        if (x.failures) {
            fprintf(stderr, "%d of %d pushes failed\n", x.failures, x.pushed);
            rc = 1;
        }
    }
    vpeer_render(&b, SENDER_UID, NULL, NULL);
    api.engine_release(a.base.engine, 1);
    api.engine_release(b.base.engine, 1);
    free(w.at);
    free(w.number);
    return rc;
}

int main(int argc, char **argv) {
    char url[128];
    agoraish_server_t *server;
    double seconds;
    int i, n;
    result *results;
    void *lib;

    if (argc < 5 || (seconds = atof(argv[3])) < 1) {
        fprintf(stderr, "usage: video_loss PATH LOG_DIR SECONDS RUN... "
                        "(RUN: LOSS_PERCENT, loss:LOSS_PERCENT, down:KBPS or up:KBPS)\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    if (load_video_api(argv[1]) != 0 || !(lib = open_library(argv[1]))) return 1;
    LOOKUP(lib, get_parameter, "agoraish_engine_get_parameter");
    n = argc - 4;
    if (!(results = calloc((size_t)n, sizeof *results))) return 1;
    if (!(server = start_embedded_server(NULL, url, sizeof url))) return 1;
    for (i = 0; i < n; i++) {
        const char *spec = argv[4 + i];
        int kind = KIND_LOSS, value, ok;
        if (strncmp(spec, "loss:", 5) == 0) spec += 5;
        else if (strncmp(spec, "down:", 5) == 0) kind = KIND_DOWNCAP, spec += 5;
        else if (strncmp(spec, "up:", 3) == 0) kind = KIND_UPCAP, spec += 3;
        value = atoi(spec);
        ok = kind == KIND_LOSS ? value >= 0 && value <= 100 : value >= 1 && value <= 10000000;
        if (!ok || run_call(url, argv[2], seconds, kind, value, &results[i]) != 0) {
            fprintf(stderr, "the call %s failed\n", argv[4 + i]);
            api.server_release(server);
            return 1;
        }
    }
    api.server_release(server);

    printf("{\"runs\": [\n");
    for (i = 0; i < n; i++) {
        const result *r = &results[i];
        const agoraish_remote_video_stats *s = &r->stats;
        const agoraish_local_video_stats *l = &r->local;
        printf("  {\"kind\": \"%s\", \"cap_kbps\": %d, \"delay_ms\": %d, \"queue_ms\": %d, ",
               kind_names[r->kind], r->cap_kbps, r->kind == KIND_LOSS ? 0 : CAP_DELAY_MS,
               r->kind == KIND_LOSS ? 0 : CAP_QUEUE_MS);
        printf("\"local_reports\": %d, \"target_bitrate\": %d, \"target_frame_rate\": %d, "
               "\"target_frame_rate_mean\": %.1f, \"target_frame_rate_min\": %d, \"target_bitrate_mean\": %.1f, "
               "\"target_bitrate_min\": %d, \"sent_bitrate\": %d, \"sent_frame_rate\": %d, "
               "\"encoder_output_frame_rate\": %d, \"encoded_bitrate\": %d, \"encoded_width\": %d, "
               "\"encoded_height\": %d, \"encoded_frame_count\": %d, \"capture_frame_rate\": %d, ",
               r->local_reports, l->target_bitrate, l->target_frame_rate,
               r->local_reports > 0 ? (double)r->target_fps_sum / r->local_reports : 0.0, r->target_fps_min,
               r->local_reports > 0 ? (double)r->target_kbps_sum / r->local_reports : 0.0, r->target_kbps_min,
               l->sent_bitrate, l->sent_frame_rate, l->encoder_output_frame_rate, l->encoded_bitrate,
               l->encoded_frame_width, l->encoded_frame_height, l->encoded_frame_count, l->capture_frame_rate);
        if (r->estimate_bps >= 0) {
            printf("\"estimate_bps\": %.0f, \"estimate_queueing_ms\": %.1f, \"estimate_loss\": %.4f, ",
                   r->estimate_bps, r->estimate_queueing_ms, r->estimate_loss);
        } else {
            printf("\"estimate_bps\": null, \"estimate_queueing_ms\": null, \"estimate_loss\": null, ");
        }
        printf("\"window_ms\": %.1f, \"open_gap_ms\": %.1f, ", r->window_ms, r->open_gap_ms);
        printf("\"loss\": %d, \"seed\": %d, \"complete\": %s, \"stats_reports\": %d, "
               "\"total_frozen_time\": %d, \"total_active_time\": %d, \"frozen_rate\": %d, "
               "\"renderer_output_frame_rate\": %d, \"decoder_output_frame_rate\": %d, \"packet_loss_rate\": %d, "
               "\"packet_loss_rate_mean\": %.1f, "
               "\"received_bitrate\": %d, \"width\": %d, \"height\": %d, \"tx_kbps\": %d, \"pushed\": %d, "
               "\"pictures\": %d, \"numbered\": %d, \"distinct\": %d, \"first_number\": %d, \"last_number\": %d, "
               "\"span_ms\": %.1f, \"frozen_ms\": %.1f, \"freezes\": %d, \"max_gap_ms\": %.1f, "
               "\"first_picture_ms\": %.1f}%s\n",
               r->loss, r->seed, r->complete ? "true" : "false", r->stats_reports, s->total_frozen_time,
               s->total_active_time, s->frozen_rate, s->renderer_output_frame_rate, s->decoder_output_frame_rate,
               s->packet_loss_rate, r->stats_reports > 0 ? (double)r->loss_sum / r->stats_reports : 0.0,
               s->received_bitrate, s->width, s->height, r->tx_kbps, r->pushed, r->pictures,
               r->numbered, r->distinct, r->first_number, r->last_number, r->span_ms, r->frozen_ms, r->freezes,
               r->max_gap_ms, r->first_picture_ms, i + 1 < n ? "," : "");
    }
    printf("]}\n");
    free(results);
    return 0;
}
