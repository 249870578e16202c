/*
 * video_loss.c — video freezes under packet loss: a two-engine VP8 call
 * whose receiver drops a share of the media it receives.
 *
 * An embedded server and two engines in this process, video enabled on
 * both, one call per loss rate (a new pair of engines in a new channel each
 * time, the same server). The sender has an external video source
 * configured for 640x360@15 fps at 400 kbps (Agora's base rate); its pushing
 * thread draws picture k (video_support.h's synthetic camera, k drawn in as
 * 24 cells) and pushes it at start + k / 15 s (absolute CLOCK_MONOTONIC
 * deadlines) until the measurement ends. Before it joins, the receiver gets
 * {"rtc.network_simulation": {"loss_percent": LOSS, "seed": SEED}}: the
 * engine's simulated network drops each RTP packet it receives (video,
 * retransmissions included) with that probability. The engine answers loss
 * the way it does on a real network: the receiver NACKs the gaps, the server
 * retransmits from its cache as RTX, and a frame lost anyway costs a
 * keyframe request.
 *
 * The receiver renders the sender's uid into a callback that takes the time
 * and reads the frame number back. The call lasts until the receiver's
 * on_remote_video_stats (every 2 s) reports total_active_time >= SECONDS
 * (ms since the first picture); the figures are that report's
 * total_frozen_time (the sum of the gaps of 500 ms or more between two
 * pictures) and total_active_time. The pictures the callback saw between the
 * first one and that report give the delivered frame rate, the distinct
 * frame numbers, and the same freeze sum measured here as a check.
 *
 *   video_loss PATH LOG_DIR SECONDS LOSS_PERCENT...
 *     -> {"runs": [{"loss": n, "seed": n, "total_frozen_time": ms, "total_active_time": ms, ...}, ...]}
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

/* The sender's pushing thread. */
typedef struct pusher {
    agoraish_engine_t *engine;
    volatile int stop;
    int pushed, failures;
} pusher;

static void *push_thread(void *arg) {
    pusher *x = arg;
    picture pic;
    double start, period = 1000.0 / FPS;
    unsigned k;
    if (picture_alloc(&pic, WIDTH, HEIGHT, FPS) != 0) {
        x->failures++;
        return NULL;
    }
    start = now_ms() + 20;
    for (k = 0; !x->stop; k++) {
        agoraish_external_video_frame f;
        draw_picture(&pic, k);
        f = picture_frame(&pic, (int64_t)(k * period));
        sleep_until_ms(start + k * period);
        if (vapi.push_external_video_frame(x->engine, &f) != 0) x->failures++;
        x->pushed++;
    }
    picture_free(&pic);
    return NULL;
}

/* What one call measured. */
typedef struct result {
    int loss, seed, complete, stats_reports;
    agoraish_remote_video_stats stats;  /* the last report, the one that ended the call */
    int loss_sum;                       /* packet_loss_rate summed over the reports seen */
    int tx_kbps;                        /* the sender's last on_rtc_stats */
    int pushed, failures;
    /* From the render callback, first picture to the end. */
    int pictures, numbered, distinct, first_number, last_number, freezes;
    double span_ms, frozen_ms, max_gap_ms, first_picture_ms;
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

/* One call at `loss` percent; 0 on success (a call whose video never reached SECONDS still is, marked incomplete). */
static int run_call(const char *url, const char *log_dir, double seconds, int loss, result *r) {
    char log_a[4096], log_b[4096], channel[64], json[256];
    vpeer a, b;
    watch w;
    pusher x;
    pthread_t tp;
    double joined, deadline, end;
    int rc = 0, seen = 0;
    memset(r, 0, sizeof *r);
    memset(&x, 0, sizeof x);
    r->loss = loss;
    r->seed = SEED_BASE + loss;
    w.count = 0;
    w.cap = (int)((seconds + 40) * FPS * 2);
    w.at = calloc((size_t)w.cap, sizeof *w.at);
    w.number = calloc((size_t)w.cap, sizeof *w.number);
    if (!w.at || !w.number) return 1;
    snprintf(log_a, sizeof log_a, "%s/video_loss_%d_sender.log", log_dir, loss);
    snprintf(log_b, sizeof log_b, "%s/video_loss_%d_receiver.log", log_dir, loss);
    snprintf(channel, sizeof channel, "bench-video-loss-%d", loss);
    snprintf(json, sizeof json, "{\"rtc.network_simulation\": {\"loss_percent\": %d, \"seed\": %d}}", loss, r->seed);
    if (!vpeer_create(&a, url, log_a, 1, WIDTH, HEIGHT, FPS, KBPS) || !vpeer_create(&b, url, log_b, 0, 0, 0, 0, 0)) {
        return 1;
    }
    if (api.set_parameters(b.base.engine, json) != 0) {
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
        pthread_create(&tp, NULL, push_thread, &x);
        /* Until a report covers SECONDS of video (reports come every 2 s), or 20 s more than that. */
        deadline = joined + seconds * 1e3 + 20e3;
        pthread_mutex_lock(&b.base.mutex);
        for (;;) {
            struct timespec ts;
            if (b.video_stats_count != seen) {
                seen = b.video_stats_count;
                r->loss_sum += b.remote_video.packet_loss_rate;
            }
            if ((seen > 0 && b.remote_video.total_active_time >= seconds * 1e3) || now_ms() >= deadline) break;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 200000000L;
            if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
            pthread_cond_timedwait(&b.base.cond, &b.base.mutex, &ts);
        }
        end = now_ms();
        r->complete = b.video_stats_count > 0 && b.remote_video.total_active_time >= seconds * 1e3;
        r->stats = b.remote_video;
        r->stats_reports = seen;
        pthread_mutex_unlock(&b.base.mutex);
        x.stop = 1;
        pthread_join(tp, NULL);
        pthread_mutex_lock(&a.base.mutex);
        r->tx_kbps = a.stats_count > 0 ? (int)a.rtc.tx_kbitrate : -1;
        pthread_mutex_unlock(&a.base.mutex);
        r->pushed = x.pushed;
        r->failures = x.failures;
        /* Unbinding waits for a picture being delivered: after it, the watch is ours. */
        vpeer_render(&b, SENDER_UID, NULL, NULL);
        summarize(&w, end, joined, r);
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

    if (argc < 5 || (seconds = atof(argv[3])) < 1) {
        fprintf(stderr, "usage: video_loss PATH LOG_DIR SECONDS LOSS_PERCENT...\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    if (load_video_api(argv[1]) != 0) return 1;
    n = argc - 4;
    if (!(results = calloc((size_t)n, sizeof *results))) return 1;
    if (!(server = start_embedded_server(NULL, url, sizeof url))) return 1;
    for (i = 0; i < n; i++) {
        int loss = atoi(argv[4 + i]);
        if (loss < 0 || loss > 100 || run_call(url, argv[2], seconds, loss, &results[i]) != 0) {
            fprintf(stderr, "the call at %s %% loss failed\n", argv[4 + i]);
            api.server_release(server);
            return 1;
        }
    }
    api.server_release(server);

    printf("{\"runs\": [\n");
    for (i = 0; i < n; i++) {
        const result *r = &results[i];
        const agoraish_remote_video_stats *s = &r->stats;
        printf("  {\"loss\": %d, \"seed\": %d, \"complete\": %s, \"stats_reports\": %d, "
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
