/*
 * video_delay.c — end-to-end video delay on loopback, agoraish beside
 * GStreamer, measured the same way in the same run.
 *
 * agoraish: an embedded server and two engines in this process, video
 * enabled on both. The sender has an external video source configured for
 * 640x360@15 fps at 400 kbps (Agora's base rate); its pushing thread draws
 * picture k (video_support.h's synthetic camera, with k drawn in as 24
 * cells), sleeps until start + k / 15 s (absolute CLOCK_MONOTONIC
 * deadlines), takes the time and calls agoraish_engine_push_external_video_frame
 * (which encodes and sends before it returns). The receiver renders the
 * sender's uid into a callback on its video thread that takes the time first,
 * then reads the frame number back from the picture. The delay of picture k
 * is (callback entry) - (time before its push): encode, RTP, SRTP, the
 * server's forwarding, the IO thread, the video thread's assembly and decode.
 * WARMUP frames go first (the first keyframe), then FRAMES measured ones;
 * p50 and p99 over the pictures that arrived, nearest rank. The note splits
 * the median with the picture's render_time_ms, which this build stamps with
 * the arrival of the picture's last packet (CLOCK_MONOTONIC, whole ms).
 *
 * GStreamer: the same pictures at the same pace written into
 * `gst-launch-1.0 fdsrc ! rawvideoparse ! vp8enc (the engine's settings) !
 * rtpvp8pay ! udpsink` and read back from `udpsrc ! rtpvp8depay ! vp8dec
 * threads=1 ! fdsink sync=false` (a picture goes on as soon as it is
 * decoded, as the engine renders on decode); a picture's time is when its
 * last byte was read from the pipe.
 *
 *   video_delay PATH LOG_DIR FRAMES
 *     -> {"figures": [...]}
 */
#define _POSIX_C_SOURCE 200809L

#include "video_support.h"

#ifndef F_SETPIPE_SZ
#define F_SETPIPE_SZ 1031
#endif

#define WIDTH 640
#define HEIGHT 360
#define FPS 15
#define KBPS 400
#define WARMUP 15               /* 1 s */
#define TAIL_MS 500.0
#define SENDER_UID 5001u
#define RECEIVER_UID 5002u

/* One run: when each picture was pushed and when it came out. */
typedef struct capture {
    int total;                  /* WARMUP + FRAMES */
    double *pushed;             /* time before the push (write) */
    double *push_ms;            /* how long the push call took (engine) */
    double *rendered;           /* callback entry (last byte read); 0 when never */
    double *arrived;            /* the engine's render_time_ms: when its last packet arrived */
    int unreadable, out_of_range;
} capture;

static int capture_alloc(capture *c, int total) {
    memset(c, 0, sizeof *c);
    c->total = total;
    c->pushed = calloc((size_t)total, sizeof *c->pushed);
    c->push_ms = calloc((size_t)total, sizeof *c->push_ms);
    c->rendered = calloc((size_t)total, sizeof *c->rendered);
    c->arrived = calloc((size_t)total, sizeof *c->arrived);
    return !c->pushed || !c->push_ms || !c->rendered || !c->arrived;
}

static void capture_free(capture *c) {
    free(c->pushed);
    free(c->push_ms);
    free(c->rendered);
    free(c->arrived);
}

/* Records that picture `n` came out at `at`. */
static void capture_out(capture *c, int n, double at, double arrived) {
    if (n < 0) {
        c->unreadable++;
    } else if (n >= c->total) {
        c->out_of_range++;
    } else if (c->rendered[n] == 0) {
        c->rendered[n] = at;
        c->arrived[n] = arrived;
    }
}

/* The engine's render sink (video thread). */
static void on_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    double at = now_ms();
    (void)e, (void)uid;
    capture_out(ud, read_picture_number(f->y_buffer, f->y_stride, f->width, f->height), at,
                (double)f->render_time_ms);
}

/* Draws and pushes (or writes) every picture at its deadline. */
static int push_all(capture *c, agoraish_engine_t *engine, int fd) {
    picture pic;
    double start, period = 1000.0 / FPS;
    int k, failures = 0;
    size_t bytes = (size_t)WIDTH * HEIGHT * 3 / 2;
    if (picture_alloc(&pic, WIDTH, HEIGHT, FPS) != 0) return 1;
    start = now_ms() + 20;
    for (k = 0; k < c->total; k++) {
        agoraish_external_video_frame f;
        draw_picture(&pic, (unsigned)k);
        f = picture_frame(&pic, (int64_t)(k * period));
        sleep_until_ms(start + k * period);
        c->pushed[k] = now_ms();
        if (engine) {
            if (vapi.push_external_video_frame(engine, &f) != 0) failures++;
        } else if (write_all(fd, pic.y, bytes) != 0) {
            failures++;
        }
        c->push_ms[k] = now_ms() - c->pushed[k];
    }
    picture_free(&pic);
    if (failures) fprintf(stderr, "%d pushes failed\n", failures);
    return failures != 0;
}

/* One run through the engines; 0 on success. */
static int run_engine(capture *c, const char *log_dir) {
    char url[128], log_a[4096], log_b[4096];
    agoraish_server_t *server;
    vpeer a, b;
    int rc = 0;
    if (!(server = start_embedded_server(NULL, url, sizeof url))) return 1;
    snprintf(log_a, sizeof log_a, "%s/video_delay_sender.log", log_dir);
    snprintf(log_b, sizeof log_b, "%s/video_delay_receiver.log", log_dir);
    if (!vpeer_create(&a, url, log_a, 1, WIDTH, HEIGHT, FPS, KBPS) || !vpeer_create(&b, url, log_b, 0, 0, 0, 0, 0)) {
        return 1;
    }
    if (vpeer_render(&b, SENDER_UID, on_frame, c) != 0) {
        fprintf(stderr, "setup_remote_video failed\n");
        rc = 1;
    } else if (peer_join(&a.base, "bench-video-delay", SENDER_UID) ||
               peer_join(&b.base, "bench-video-delay", RECEIVER_UID) || !peer_wait(&b.base, &b.base.remote_joined)) {
        fprintf(stderr, "the engines did not meet in the channel\n");
        rc = 1;
    } else {
        rc = push_all(c, a.base.engine, -1);
        sleep_until_ms(now_ms() + TAIL_MS);
    }
    /* Unbinding waits for a picture being delivered: after it, the capture is ours. */
    vpeer_render(&b, SENDER_UID, NULL, NULL);
    api.engine_release(a.base.engine, 1);
    api.engine_release(b.base.engine, 1);
    api.server_release(server);
    return rc;
}

typedef struct reader {
    int fd;
    capture *c;
} reader;

/* GStreamer's receiver: whole pictures from the pipe, each timed when its last byte arrived. */
static void *read_thread(void *arg) {
    reader *r = arg;
    size_t bytes = (size_t)WIDTH * HEIGHT * 3 / 2, have = 0;
    uint8_t *buf = malloc(bytes);
    if (!buf) return NULL;
    for (;;) {
        ssize_t n = read(r->fd, buf + have, bytes - have);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        have += (size_t)n;
        if (have == bytes) {
            capture_out(r->c, read_picture_number(buf, WIDTH, WIDTH, HEIGHT), now_ms(), 0);
            have = 0;
        }
    }
    free(buf);
    return NULL;
}

/* One run through GStreamer; 0 on success, else `why` says what failed. */
static int run_gst(capture *c, const char *log_dir, char *why, size_t cap) {
    char pipeline[2048], log[4096];
    int tx[2], rx[2], rc;
    pid_t sender, receiver;
    pthread_t tr;
    reader r;
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
    fcntl(tx[1], F_SETPIPE_SZ, 1 << 20);
    fcntl(rx[0], F_SETPIPE_SZ, 1 << 20);
    snprintf(log, sizeof log, "%s/video_delay_gst.log", log_dir);
    gst_video_receiver_pipeline(pipeline, sizeof pipeline, port, 1);
    receiver = spawn_gst(pipeline, rx[1], log);
    close(rx[1]);
    r.fd = rx[0];
    r.c = c;
    pthread_create(&tr, NULL, read_thread, &r);
    sleep_until_ms(now_ms() + 300);
    gst_video_sender_pipeline(pipeline, sizeof pipeline, WIDTH, HEIGHT, FPS, KBPS, port);
    sender = spawn_gst(pipeline, tx[0], log);
    close(tx[0]);
    sleep_until_ms(now_ms() + 300);
    if (receiver < 0 || sender < 0 || !child_running(receiver) || !child_running(sender)) {
        snprintf(why, cap, "gst-launch-1.0 exited at start (missing elements? see video_delay_gst.log)");
        close(tx[1]);
        stop_child(sender);
        stop_child(receiver);
        pthread_join(tr, NULL);
        close(rx[0]);
        return 1;
    }
    rc = push_all(c, NULL, tx[1]);
    sleep_until_ms(now_ms() + TAIL_MS);
    close(tx[1]);
    stop_child(sender);
    stop_child(receiver);
    pthread_join(tr, NULL);
    close(rx[0]);
    if (rc != 0) {
        snprintf(why, cap, "writes to the GStreamer sender failed");
        return 1;
    }
    return 0;
}

/* The delays of the measured pictures that arrived, sorted; returns how many. */
static int delays_of(const capture *c, double *out, double *split_send, double *split_receive, double *push) {
    int k, n = 0;
    for (k = WARMUP; k < c->total; k++) {
        if (c->rendered[k] == 0) continue;
        out[n] = c->rendered[k] - c->pushed[k];
        if (split_send) split_send[n] = c->arrived[k] - c->pushed[k];
        if (split_receive) split_receive[n] = c->rendered[k] - c->arrived[k];
        if (push) push[n] = c->push_ms[k];
        n++;
    }
    sort_samples(out, n);
    if (split_send) sort_samples(split_send, n);
    if (split_receive) sort_samples(split_receive, n);
    if (push) sort_samples(push, n);
    return n;
}

static void print_figure(const char *name, int have, double value, const char *note, int last) {
    printf("  {\"name\": \"%s\", \"value\": ", name);
    if (have) printf("%.2f", value); else printf("null");
    printf(", \"unit\": \"ms\", \"note\": \"%s\"}%s\n", note, last ? "" : ",");
}

int main(int argc, char **argv) {
    capture e, g;
    int frames, found_e, found_g = 0, gst_ok;
    double *d, *send, *receive, *push, e50, e99, g50 = 0, g99 = 0, lo, hi;
    char why[512] = "", note[2048];

    if (argc != 4 || (frames = atoi(argv[3])) < 10) {
        fprintf(stderr, "usage: video_delay PATH LOG_DIR FRAMES\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    if (load_video_api(argv[1]) != 0) return 1;
    d = calloc((size_t)frames + WARMUP, sizeof *d);
    send = calloc((size_t)frames + WARMUP, sizeof *send);
    receive = calloc((size_t)frames + WARMUP, sizeof *receive);
    push = calloc((size_t)frames + WARMUP, sizeof *push);
    if (!d || !send || !receive || !push || capture_alloc(&e, WARMUP + frames) || capture_alloc(&g, WARMUP + frames)) {
        return 1;
    }

    if (run_engine(&e, argv[2]) != 0) return 1;
    found_e = delays_of(&e, d, send, receive, push);
    if (found_e < frames * 9 / 10) {
        fprintf(stderr, "only %d of %d pictures arrived through the engine (%d unreadable)\n", found_e, frames,
                e.unreadable);
        return 1;
    }
    e50 = quantile(d, found_e, 0.5);
    e99 = quantile(d, found_e, 0.99);
    lo = d[0];
    hi = d[found_e - 1];

    gst_ok = run_gst(&g, argv[2], why, sizeof why) == 0;
    if (gst_ok) {
        double *gd = calloc((size_t)frames + WARMUP, sizeof *gd);
        if (!gd) return 1;
        found_g = delays_of(&g, gd, NULL, NULL, NULL);
        if (found_g < frames * 9 / 10) {
            snprintf(why, sizeof why, "only %d of %d pictures arrived through GStreamer (%d unreadable)", found_g,
                     frames, g.unreadable);
            gst_ok = 0;
        } else {
            g50 = quantile(gd, found_g, 0.5);
            g99 = quantile(gd, found_g, 0.99);
        }
        free(gd);
    }

    printf("{\"figures\": [\n");
    snprintf(note, sizeof note,
             "median over N=%d of %d pictures (%d unreadable): push of picture k (640x360@15, VP8 400 kbps, "
             "synthetic moving picture, pushed in real time) to the entry of the receiver's render callback, "
             "frame number read back from the picture; embedded server, loopback; min %.1f, max %.1f; of which "
             "the push call (encode + send) %.1f, push to the picture's render_time_ms (in this build the arrival of "
             "its last packet, whole ms rounded down) %.1f, from there to the callback (video thread: assembly + "
             "decode) %.1f (medians)",
             found_e, frames, e.unreadable, lo, hi, quantile(push, found_e, 0.5), quantile(send, found_e, 0.5),
             quantile(receive, found_e, 0.5));
    if (gst_ok) {
        size_t len = strlen(note);
        snprintf(note + len, sizeof note - len, "; agoraish/gstreamer = %.2f", e50 / g50);
    }
    print_figure("video_e2e_delay_p50_ms", 1, e50, note, 0);
    snprintf(note, sizeof note, "p99 (nearest rank) of the same N=%d pictures", found_e);
    if (gst_ok) {
        size_t len = strlen(note);
        snprintf(note + len, sizeof note - len, "; agoraish/gstreamer = %.2f", e99 / g99);
    }
    print_figure("video_e2e_delay_p99_ms", 1, e99, note, 0);
    if (gst_ok) {
        snprintf(note, sizeof note,
                 "GStreamer measured the same way in the same run: fdsrc ! rawvideoparse ! vp8enc (the engine's "
                 "settings) ! rtpvp8pay ! udpsink -> udpsrc ! rtpvp8depay ! vp8dec threads=1 ! fdsink sync=false, "
                 "a picture timed when its last byte is read from the pipe; median over N=%d of %d pictures",
                 found_g, frames);
    } else {
        snprintf(note, sizeof note, "not measured: %s", why);
    }
    print_figure("gstreamer_video_e2e_delay_p50_ms", gst_ok, g50, note, 0);
    if (gst_ok) {
        snprintf(note, sizeof note, "p99 (nearest rank) of the same N=%d GStreamer pictures", found_g);
    } else {
        snprintf(note, sizeof note, "not measured: %s", why);
    }
    print_figure("gstreamer_video_e2e_delay_p99_ms", gst_ok, g99, note, 1);
    printf("]}\n");
    capture_free(&e);
    capture_free(&g);
    free(d);
    free(send);
    free(receive);
    free(push);
    return 0;
}
