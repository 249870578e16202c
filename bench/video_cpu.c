/*
 * video_cpu.c — CPU time per frame of VP8 and VP9 video sent and received
 * through agoraish, beside bare libvpx with the engine's settings and a
 * GStreamer pipeline doing the same work, at 640x360@15 fps (400 kbps,
 * Agora's base rate) and 1280x720@30 fps (1710 kbps), in one run. Each codec
 * is measured the same way; VP9 is the engine's codec_type 5 (RFC 9628,
 * cpu-used 7), VP8 codec_type 1 (RFC 7741, cpu-used -6).
 *
 * The picture is video_support.h's synthetic camera (a scrolling gradient,
 * four textured blocks moving, fixed-pattern noise, the frame number drawn
 * in), drawn before each frame's deadline and never inside a measurement.
 *
 * agoraish: an embedded server, a sender and a receiver, each in its own
 * process (one server for every size and codec):
 *   - the sender's engine has an external video source; its main thread
 *     pushes picture k at start + k / fps (absolute CLOCK_MONOTONIC
 *     deadlines). Encode figure = CLOCK_THREAD_CPUTIME_ID of that thread
 *     around each agoraish_engine_push_external_video_frame (copy, VP8
 *     or VP9 encode, RTP, SRTP, sendto — the kernel's loopback delivery to the
 *     server is charged to it too), summed over the frames whose deadline
 *     falls in the window, divided by their number;
 *   - the receiver's engine renders the sender's uid into a callback that
 *     only reads the frame number (the middles of 24 cells) and counts.
 *     Decode figure = CPU of the engine's video thread (the one whose
 *     /proc/self/task/TID/comm starts with "agoraish-vid": frame assembly,
 *     VP8 or VP9 decode, the copy of the picture, the render callback) over the
 *     window, divided by the pictures rendered in it. The thread's CPU is
 *     read from its kernel CPU clock (ns); /proc/self/task/TID/stat (10 ms
 *     ticks) is reported beside it as a check.
 * Both engines join, the window [T0, T1] starts WARMUP_MS later (the first
 * keyframe is behind it; the periodic ones, every 3 s, are in it) and lasts
 * SECONDS.
 *
 * libvpx: the same pictures through vpx_codec_encode (the engine's settings,
 * video_support.h) on a thread woken per frame at the same deadlines, each
 * packet handed to a decoder thread that wakes for it (as the engine's video
 * thread does) and calls vpx_codec_decode; CLOCK_THREAD_CPUTIME_ID around
 * each call, the same warm-up and window. This paced run is the libvpx
 * figure. The same pictures and packets are also run back to back (no sleep
 * between frames), reported as the *_b2b_* figures: the gap between the two
 * is what a real-time sender pays for waking with cold caches. VP9 at
 * cpu-used 7 leaves a cell of the frame-number strip stale in some pictures,
 * so only VP8 pictures must read back their number (VP9 ones must arrive).
 *
 * GStreamer: gst-launch-1.0 sender (fdsrc ! rawvideoparse ! vp8enc or
 * vp9enc, same settings ! rtpvp8pay or rtpvp9pay ! udpsink) fed the same
 * pictures at the same pace, and receiver (udpsrc ! rtpvp8depay or
 * rtpvp9depay ! vp8dec or vp9dec threads=1 ! fakesink); CPU of
 * each whole process (per-thread run times from /proc/PID/task/TID/schedstat)
 * over a window of the same length, per frame written in it.
 *
 *   video_cpu PATH LOG_DIR SECONDS
 *     -> {"figures": [...]}
 */
#define _POSIX_C_SOURCE 200809L

#include "video_support.h"

#ifndef F_SETPIPE_SZ
#define F_SETPIPE_SZ 1031
#endif

#define WARMUP_MS 1500.0
#define SENDER_UID 4001u
#define RECEIVER_UID 4002u

typedef struct config {
    const char *name;           /* "360p15" */
    int width, height, fps, kbps;
} config;

static const config CONFIGS[2] = {
    {"360p15", 640, 360, 15, 400},
    {"720p30", 1280, 720, 30, 1710},
};

typedef struct codec {
    const char *name;           /* "vp8": the figure names */
    const char *label;          /* "VP8": the notes */
    int vp9;
    int type;                   /* agoraish_video_codec_type */
    const char *rfc;            /* the RTP payload format */
    int cpu_used;
} codec;

static const codec CODECS[2] = {
    {"vp8", "VP8", 0, AGORAISH_VIDEO_CODEC_VP8, "RFC 7741", -6},
    {"vp9", "VP9", 1, AGORAISH_VIDEO_CODEC_VP9, "RFC 9628", 7},
};

static double seconds;
/* The write end of the server's control pipe (the engine children close their copy). */
static int server_control = -1;

/* ------------------------------------------------------------------------ */
/* The engines                                                               */
/* ------------------------------------------------------------------------ */

typedef struct sender_result {
    double push_cpu_ms, process_cpu_ms, window_ms, max_push_ms;
    int frames, failures, tx_kbps;
    int ok;
} sender_result;

typedef struct receiver_result {
    double vid_cpu_ms, vid_stat_ms, io_cpu_ms, process_cpu_ms, window_ms;
    int rendered, numbered, first, last, decoded_w, decoded_h, total;
    int ok;
} receiver_result;

/* The receiver's render sink: counts, and reads the frame number. */
typedef struct sink_counts {
    int rendered, numbered, last;
} sink_counts;

static void on_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    sink_counts *s = ud;
    int n = read_picture_number(f->y_buffer, f->y_stride, f->width, f->height);
    (void)e, (void)uid;
    if (n >= 0) {
        __atomic_store_n(&s->last, n, __ATOMIC_RELAXED);
        __atomic_fetch_add(&s->numbered, 1, __ATOMIC_RELAXED);
    }
    __atomic_fetch_add(&s->rendered, 1, __ATOMIC_RELEASE);
}

static int sender_child(const char *lib, const char *url, const char *log, const config *c, const codec *kind,
                        double t0, double t1, int out_fd) {
    vpeer p;
    picture pic;
    double start, period = 1000.0 / c->fps, cpu = 0, maxp = 0, draw = 0, p0 = -1, w0 = 0, p1 = -1, w1 = 0;
    int frames = 0, failures = 0, kbps = -1;
    unsigned k;
    char channel[64], line[256];
    if (load_video_api(lib) != 0 || picture_alloc(&pic, c->width, c->height, c->fps) != 0 ||
        !vpeer_create_codec(&p, url, log, 1, c->width, c->height, c->fps, c->kbps, kind->type)) return 1;
    snprintf(channel, sizeof channel, "bench-video-cpu-%s-%s", kind->name, c->name);
    if (peer_join(&p.base, channel, SENDER_UID) != 0) {
        api.engine_release(p.base.engine, 1);
        return 1;
    }
    start = now_ms();
    for (k = 0;; k++) {
        double at = start + k * period, c0, c1;
        agoraish_external_video_frame f;
        if (at >= t1 + 300) break;
        c0 = thread_cpu_ms();
        draw_picture(&pic, k);
        f = picture_frame(&pic, (int64_t)(k * period));
        /* The drawing of the pictures inside the window, taken out of the process figure. */
        if (at >= t0 && at < t1) draw += thread_cpu_ms() - c0;
        sleep_until_ms(at);
        if (at >= t0 && p0 < 0) { p0 = process_cpu_ms(); w0 = now_ms(); }
        if (at >= t1 && p1 < 0) { p1 = process_cpu_ms(); w1 = now_ms(); }
        c0 = thread_cpu_ms();
        if (vapi.push_external_video_frame(p.base.engine, &f) != 0) failures++;
        c1 = thread_cpu_ms();
        if (at >= t0 && at < t1) {
            cpu += c1 - c0;
            if (c1 - c0 > maxp) maxp = c1 - c0;
            frames++;
        }
    }
    pthread_mutex_lock(&p.base.mutex);
    if (p.stats_count > 0) kbps = (int)p.rtc.tx_kbitrate;
    pthread_mutex_unlock(&p.base.mutex);
    snprintf(line, sizeof line, "%.4f %.4f %.3f %.4f %d %d %d\n", cpu, p1 - p0 - draw, w1 - w0, maxp, frames, failures,
             kbps);
    write_all(out_fd, line, strlen(line));
    api.engine_release(p.base.engine, 1);
    picture_free(&pic);
    return 0;
}

static int receiver_child(const char *lib, const char *url, const char *log, const config *c, const codec *kind,
                          double t0, double t1, int out_fd) {
    vpeer p;
    sink_counts counts;
    pid_t vid, io;
    double v0, v1, s0, s1, i0 = 0, i1 = 0, p0, p1, w0, w1;
    int f0, f1, n0, n1, first, last;
    char channel[64], line[512];
    memset(&counts, 0, sizeof counts);
    if (load_video_api(lib) != 0 || !vpeer_create(&p, url, log, 0, 0, 0, 0, 0)) return 1;
    if (vpeer_render(&p, SENDER_UID, on_frame, &counts) != 0) {
        fprintf(stderr, "setup_remote_video failed\n");
        return 1;
    }
    snprintf(channel, sizeof channel, "bench-video-cpu-%s-%s", kind->name, c->name);
    if (peer_join(&p.base, channel, RECEIVER_UID) != 0) {
        api.engine_release(p.base.engine, 1);
        return 1;
    }
    if (!(vid = find_thread("agoraish-vid"))) {
        fprintf(stderr, "no thread named agoraish-vid* in the receiver\n");
        return 1;
    }
    io = find_thread("agoraish-io");
    sleep_until_ms(t0);
    w0 = now_ms();
    v0 = tid_cpu_ms(vid);
    s0 = tid_stat_cpu_ms(vid);
    if (io) i0 = tid_cpu_ms(io);
    p0 = process_cpu_ms();
    f0 = __atomic_load_n(&counts.rendered, __ATOMIC_ACQUIRE);
    n0 = __atomic_load_n(&counts.numbered, __ATOMIC_RELAXED);
    first = __atomic_load_n(&counts.last, __ATOMIC_RELAXED);
    sleep_until_ms(t1);
    w1 = now_ms();
    v1 = tid_cpu_ms(vid);
    s1 = tid_stat_cpu_ms(vid);
    if (io) i1 = tid_cpu_ms(io);
    p1 = process_cpu_ms();
    f1 = __atomic_load_n(&counts.rendered, __ATOMIC_ACQUIRE);
    n1 = __atomic_load_n(&counts.numbered, __ATOMIC_RELAXED);
    last = __atomic_load_n(&counts.last, __ATOMIC_RELAXED);
    pthread_mutex_lock(&p.base.mutex);
    snprintf(line, sizeof line, "%.4f %.4f %.4f %.4f %.3f %d %d %d %d %d %d %d\n", v1 - v0, s1 - s0, i1 - i0,
             p1 - p0, w1 - w0, f1 - f0, n1 - n0, first, last, p.decoded_width, p.decoded_height, f1);
    pthread_mutex_unlock(&p.base.mutex);
    write_all(out_fd, line, strlen(line));
    api.engine_release(p.base.engine, 1);
    return 0;
}

/* Sender and receiver processes for one size and codec against the server at `url`. */
static int run_engines(const char *lib, const char *log_dir, const char *url, const config *c, const codec *kind,
                       sender_result *s, receiver_result *r) {
    int out[2][2], i;
    pid_t kids[2];
    char line[512], log[4096];
    double t0 = now_ms() + WARMUP_MS, t1 = t0 + seconds * 1e3;
    memset(s, 0, sizeof *s);
    memset(r, 0, sizeof *r);
    for (i = 0; i < 2; i++) {
        if (pipe(out[i]) != 0) return 1;
        snprintf(log, sizeof log, "%s/video_cpu_%s_%s_%s.log", log_dir, kind->name, c->name,
                 i == 0 ? "receiver" : "sender");
        if ((kids[i] = fork()) == 0) {
            close(out[i][0]);
            close(server_control);
            alarm((unsigned)seconds + 60);
            _exit(i == 0 ? receiver_child(lib, url, log, c, kind, t0, t1, out[i][1])
                         : sender_child(lib, url, log, c, kind, t0, t1, out[i][1]));
        }
        close(out[i][1]);
    }
    for (i = 0; i < 2; i++) {
        int status;
        if (read_line(out[i][0], line, sizeof line) == 0) {
            if (i == 0) {
                r->ok = sscanf(line, "%lf %lf %lf %lf %lf %d %d %d %d %d %d %d", &r->vid_cpu_ms, &r->vid_stat_ms,
                               &r->io_cpu_ms, &r->process_cpu_ms, &r->window_ms, &r->rendered, &r->numbered,
                               &r->first, &r->last, &r->decoded_w, &r->decoded_h, &r->total) == 12;
            } else {
                s->ok = sscanf(line, "%lf %lf %lf %lf %d %d %d", &s->push_cpu_ms, &s->process_cpu_ms, &s->window_ms,
                               &s->max_push_ms, &s->frames, &s->failures, &s->tx_kbps) == 7 && s->failures == 0;
            }
            if (!(i == 0 ? r->ok : s->ok)) {
                fprintf(stderr, "%s %s %s: %s\n", kind->label, c->name, i == 0 ? "receiver" : "sender", line);
            }
        }
        close(out[i][0]);
        waitpid(kids[i], &status, 0);
    }
    if (!s->ok || !r->ok) return 1;
    /* VP9 at cpu-used 7 leaves a cell of the number strip stale in some pictures: only VP8 must read back. */
    if (s->frames == 0 || r->rendered < s->frames * 9 / 10 || (!kind->vp9 && r->numbered < r->rendered * 9 / 10)) {
        fprintf(stderr, "%s %s: %d frames pushed in the window, %d rendered, %d with a readable number\n", kind->label,
                c->name, s->frames, r->rendered, r->numbered);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Bare libvpx                                                               */
/* ------------------------------------------------------------------------ */

typedef struct vpx_run {
    int vp9;
    const config *c;
    int paced;
    /* The packets, one per frame (NULL when the encoder dropped it). */
    unsigned total, warmup;
    unsigned char **data;
    size_t *size;
    /* Hand-off to the decoder thread. */
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    unsigned produced;
    int done;
    /* Results over the window. */
    double enc_ms, dec_ms, bytes, max_enc_ms;
    int frames, encoded, keyframes, decoded, numbered, errors;
} vpx_run;

static void decode_one(vpx_run *x, vpx_codec_ctx_t *dec, unsigned k) {
    vpx_codec_iter_t it = NULL;
    vpx_image_t *img;
    double c0, c1;
    int shown = 0, n = -1;
    if (!x->data[k]) return;
    c0 = thread_cpu_ms();
    if (vpx_codec_decode(dec, x->data[k], (unsigned)x->size[k], NULL, 0) != VPX_CODEC_OK) {
        x->errors++;
        return;
    }
    while ((img = vpx_codec_get_frame(dec, &it)) != NULL) {
        shown++;
        if (k >= x->warmup) n = read_picture_number(img->planes[0], img->stride[0], (int)img->d_w, (int)img->d_h);
    }
    c1 = thread_cpu_ms();
    if (k >= x->warmup) {
        x->dec_ms += c1 - c0;
        x->decoded += shown;
        if (n == (int)k) x->numbered++;
    }
}

static void *decoder_thread(void *arg) {
    vpx_run *x = arg;
    vpx_codec_ctx_t dec;
    unsigned k = 0;
    if (vpx_engine_decoder(&dec, x->vp9) != 0) {
        x->errors++;
        return NULL;
    }
    for (;;) {
        pthread_mutex_lock(&x->mutex);
        while (k == x->produced && !x->done) pthread_cond_wait(&x->cond, &x->mutex);
        if (k == x->produced && x->done) {
            pthread_mutex_unlock(&x->mutex);
            break;
        }
        pthread_mutex_unlock(&x->mutex);
        decode_one(x, &dec, k++);
    }
    vpx_codec_destroy(&dec);
    return NULL;
}

/* Encodes (and decodes) the pictures of `x->c` with the engine's settings, paced or back to back. */
static int run_libvpx(vpx_run *x) {
    const config *c = x->c;
    vpx_codec_ctx_t enc;
    vpx_image_t image;
    picture pic;
    pthread_t decoder;
    double start, period = 1000.0 / c->fps;
    unsigned k;
    x->warmup = (unsigned)(WARMUP_MS / period);
    x->total = x->warmup + (unsigned)(seconds * c->fps);
    x->data = calloc(x->total, sizeof *x->data);
    x->size = calloc(x->total, sizeof *x->size);
    if (!x->data || !x->size || picture_alloc(&pic, c->width, c->height, c->fps) != 0) return 1;
    if (vpx_engine_encoder(&enc, x->vp9, c->width, c->height, c->fps, c->kbps) != 0) {
        fprintf(stderr, "libvpx: cannot create the encoder\n");
        return 1;
    }
    vpx_img_wrap(&image, VPX_IMG_FMT_I420, (unsigned)c->width, (unsigned)c->height, 1, pic.y);
    pthread_mutex_init(&x->mutex, NULL);
    pthread_cond_init(&x->cond, NULL);
    if (x->paced && pthread_create(&decoder, NULL, decoder_thread, x) != 0) return 1;
    start = now_ms();
    for (k = 0; k < x->total; k++) {
        vpx_codec_iter_t it = NULL;
        const vpx_codec_cx_pkt_t *pkt;
        double c0, c1;
        draw_picture(&pic, k);
        if (x->paced) sleep_until_ms(start + k * period);
        c0 = thread_cpu_ms();
        if (vpx_codec_encode(&enc, &image, (vpx_codec_pts_t)k * (90000 / c->fps), (unsigned long)(90000 / c->fps),
                             k == 0 ? VPX_EFLAG_FORCE_KF : 0, VPX_DL_REALTIME) != VPX_CODEC_OK) {
            x->errors++;
        }
        while ((pkt = vpx_codec_get_cx_data(&enc, &it)) != NULL) {
            if (pkt->kind != VPX_CODEC_CX_FRAME_PKT) continue;
            /* The copy stands for the hand-off of the packet; one packet per frame in real time. */
            free(x->data[k]);
            x->data[k] = malloc(pkt->data.frame.sz);
            if (!x->data[k]) return 1;
            memcpy(x->data[k], pkt->data.frame.buf, pkt->data.frame.sz);
            x->size[k] = pkt->data.frame.sz;
            if (k >= x->warmup && (pkt->data.frame.flags & VPX_FRAME_IS_KEY)) x->keyframes++;
        }
        c1 = thread_cpu_ms();
        if (k >= x->warmup) {
            x->enc_ms += c1 - c0;
            if (c1 - c0 > x->max_enc_ms) x->max_enc_ms = c1 - c0;
            x->frames++;
            if (x->data[k]) {
                x->encoded++;
                x->bytes += (double)x->size[k];
            }
        }
        if (x->paced) {
            pthread_mutex_lock(&x->mutex);
            x->produced = k + 1;
            pthread_cond_signal(&x->cond);
            pthread_mutex_unlock(&x->mutex);
        }
    }
    if (x->paced) {
        pthread_mutex_lock(&x->mutex);
        x->done = 1;
        pthread_cond_signal(&x->cond);
        pthread_mutex_unlock(&x->mutex);
        pthread_join(decoder, NULL);
    } else {
        vpx_codec_ctx_t dec;
        if (vpx_engine_decoder(&dec, x->vp9) != 0) return 1;
        for (k = 0; k < x->total; k++) decode_one(x, &dec, k);
        vpx_codec_destroy(&dec);
    }
    vpx_codec_destroy(&enc);
    for (k = 0; k < x->total; k++) free(x->data[k]);
    free(x->data);
    free(x->size);
    picture_free(&pic);
    /* VP9 at cpu-used 7 leaves a cell of the number strip stale in some pictures: only VP8 must read back. */
    if (x->errors || x->frames == 0 || x->decoded < x->encoded || (!x->vp9 && x->numbered < x->decoded * 9 / 10)) {
        fprintf(stderr, "libvpx %s %s: %d errors, %d frames, %d encoded, %d decoded, %d numbered\n",
                x->vp9 ? "VP9" : "VP8", c->name, x->errors, x->frames, x->encoded, x->decoded, x->numbered);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* GStreamer                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct gst_feed {
    int fd;
    const config *c;
    double start, t0, t1, end;
    int errors, frames_in_window;
} gst_feed;

static void *feed_thread(void *arg) {
    gst_feed *g = arg;
    picture pic;
    double period = 1000.0 / g->c->fps;
    size_t bytes = (size_t)g->c->width * g->c->height * 3 / 2;
    unsigned k;
    if (picture_alloc(&pic, g->c->width, g->c->height, g->c->fps) != 0) {
        g->errors++;
        return NULL;
    }
    for (k = 0;; k++) {
        double at = g->start + k * period;
        if (at >= g->end) break;
        draw_picture(&pic, k);
        sleep_until_ms(at);
        if (write_all(g->fd, pic.y, bytes) != 0) {
            g->errors++;
            break;
        }
        if (at >= g->t0 && at < g->t1) g->frames_in_window++;
    }
    picture_free(&pic);
    return NULL;
}

/* GStreamer sender and receiver for one size and codec: CPU ms per frame of each process. */
static int run_gst(const char *log_dir, const config *c, const codec *kind, double *send, double *receive, char *why,
                   size_t cap) {
    char pipeline[2048], log[4096];
    int tx[2], devnull;
    pid_t sender, receiver;
    pthread_t feeder;
    gst_feed g;
    double s0, r0, s1, r1;
    uint16_t port = free_udp_port();
    if (!have_program("gst-launch-1.0")) {
        snprintf(why, cap, "gst-launch-1.0 not found (scripts/setup-bench.sh installs GStreamer)");
        return 1;
    }
    if (port == 0 || pipe(tx) != 0 || (devnull = open("/dev/null", O_RDWR)) < 0) {
        snprintf(why, cap, "no port or pipe");
        return 1;
    }
    fcntl(tx[1], F_SETFD, FD_CLOEXEC);
    fcntl(tx[1], F_SETPIPE_SZ, 1 << 20);
    snprintf(log, sizeof log, "%s/video_cpu_gst_%s_%s.log", log_dir, kind->name, c->name);
    gst_video_receiver_pipeline_codec(pipeline, sizeof pipeline, port, 0, kind->vp9);
    receiver = spawn_gst(pipeline, devnull, log);
    close(devnull);
    sleep_until_ms(now_ms() + 300);
    gst_video_sender_pipeline_codec(pipeline, sizeof pipeline, c->width, c->height, c->fps, c->kbps, port, kind->vp9);
    sender = spawn_gst(pipeline, tx[0], log);
    close(tx[0]);
    sleep_until_ms(now_ms() + 300);
    if (receiver < 0 || sender < 0 || !child_running(receiver) || !child_running(sender)) {
        snprintf(why, cap, "gst-launch-1.0 exited at start (missing elements? see video_cpu_gst_%s_%s.log)", kind->name,
                 c->name);
        close(tx[1]);
        stop_child(sender);
        stop_child(receiver);
        return 1;
    }
    memset(&g, 0, sizeof g);
    g.fd = tx[1];
    g.c = c;
    g.start = now_ms() + 10;
    g.t0 = g.start + WARMUP_MS;
    g.t1 = g.t0 + seconds * 1e3;
    g.end = g.t1 + 200;
    pthread_create(&feeder, NULL, feed_thread, &g);
    sleep_until_ms(g.t0);
    s0 = child_cpu_ms(sender);
    r0 = child_cpu_ms(receiver);
    sleep_until_ms(g.t1);
    s1 = child_cpu_ms(sender);
    r1 = child_cpu_ms(receiver);
    pthread_join(feeder, NULL);
    close(tx[1]);
    stop_child(sender);
    stop_child(receiver);
    if (g.errors || s0 < 0 || r0 < 0 || s1 < 0 || r1 < 0 || g.frames_in_window == 0) {
        snprintf(why, cap, "a GStreamer process stopped during the window (see video_cpu_gst_%s_%s.log)", kind->name,
                 c->name);
        return 1;
    }
    *send = (s1 - s0) / g.frames_in_window;
    *receive = (r1 - r0) / g.frames_in_window;
    if (*receive < 0.01) {
        snprintf(why, cap, "the GStreamer receiver did no work (see video_cpu_gst_%s_%s.log)", kind->name, c->name);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Output                                                                    */
/* ------------------------------------------------------------------------ */

static int printed = 0;

static void print_figure(const char *name, int have, double value, const char *note) {
    printf("%s  {\"name\": \"%s\", \"value\": ", printed++ ? ",\n" : "", name);
    if (have) printf("%.3f", value); else printf("null");
    printf(", \"unit\": \"ms/frame\", \"note\": \"%s\"}", note);
}

/* What one size and one codec measured. */
typedef struct codec_results {
    sender_result s;
    receiver_result r;
    vpx_run paced, b2b;
    int gst_ok;
    double gst_send, gst_receive;
    char why[512];
} codec_results;

static void print_codec(const config *c, const codec *kind, codec_results *z) {
    char name[128], note[2048];
    const char *n = kind->name, *L = kind->label;
    double enc = z->s.push_cpu_ms / z->s.frames, dec = z->r.vid_cpu_ms / z->r.rendered;
    double lenc = z->paced.enc_ms / z->paced.frames, ldec = z->paced.dec_ms / z->paced.decoded;
    double benc = z->b2b.enc_ms / z->b2b.frames, bdec = z->b2b.dec_ms / z->b2b.decoded;
    double kbps = z->paced.bytes * 8 / (z->paced.frames / (double)c->fps) / 1e3;
    char gst_ratio[128] = "", numbered[160] = "";

    if (z->gst_ok) snprintf(gst_ratio, sizeof gst_ratio, ", agoraish/gstreamer = %.2f", enc / z->gst_send);
    snprintf(name, sizeof name, "%s_%s_encode_ms_per_frame", n, c->name);
    snprintf(note, sizeof note,
             "CPU of the pushing thread (CLOCK_THREAD_CPUTIME_ID around push_external_video_frame: copy, %s encode, "
             "RTP (%s), SRTP, sendto) per frame, %dx%d@%d at %d kbps, codec_type %d, synthetic moving picture "
             "pushed in real time, N=%d frames over %.1f s (max %.2f ms); sender process all threads, drawing the "
             "pictures excluded, %.2f ms/frame; engine-reported send rate %d kbps; agoraish/libvpx (paced) = %.2f%s",
             L, kind->rfc, c->width, c->height, c->fps, c->kbps, kind->type, z->s.frames, z->s.window_ms / 1e3,
             z->s.max_push_ms, z->s.process_cpu_ms / z->s.frames, z->s.tx_kbps, enc / lenc, gst_ratio);
    print_figure(name, 1, enc, note);
    snprintf(name, sizeof name, "libvpx_%s_%s_encode_ms_per_frame", n, c->name);
    snprintf(note, sizeof note,
             "bare libvpx %s %s vpx_codec_encode with the engine's settings (1 pass CBR %d kbps, lag 0, error "
             "resilient, cpu-used %d, static threshold 1, q 2-56, undershoot 100, overshoot 15, buffer "
             "500/600/1000, 1 thread, keyframe every 3 s), the same pictures, paced: one wake-up per frame at the "
             "same deadlines; N=%d frames (%d keyframes, %.0f kbps achieved, max %.2f ms)",
             vpx_codec_version_str(), L, c->kbps, kind->cpu_used, z->paced.frames, z->paced.keyframes, kbps,
             z->paced.max_enc_ms);
    print_figure(name, 1, lenc, note);
    snprintf(name, sizeof name, "libvpx_%s_%s_encode_b2b_ms_per_frame", n, c->name);
    snprintf(note, sizeof note, "the same as libvpx_%s_%s_encode_ms_per_frame back to back (no sleep between "
             "frames, warm caches), N=%d frames", n, c->name, z->b2b.frames);
    print_figure(name, 1, benc, note);
    snprintf(name, sizeof name, "gstreamer_%s_%s_encode_ms_per_frame", n, c->name);
    if (z->gst_ok) {
        snprintf(note, sizeof note,
                 "whole gst-launch-1.0 sender process (fdsrc ! rawvideoparse ! %senc, same settings ! rtp%spay ! "
                 "udpsink) fed the same pictures at the same pace, CPU over %.0f s per frame written", n, n, seconds);
    } else {
        snprintf(note, sizeof note, "not measured: %s", z->why);
    }
    print_figure(name, z->gst_ok, z->gst_send, note);

    gst_ratio[0] = 0;
    if (z->gst_ok) snprintf(gst_ratio, sizeof gst_ratio, ", agoraish/gstreamer = %.2f", dec / z->gst_receive);
    if (kind->vp9 && z->r.numbered < z->r.rendered) {
        snprintf(numbered, sizeof numbered, "%d with the right number: at cpu-used 7 the encoder leaves a cell of "
                 "the number strip stale in the others", z->r.numbered);
    } else {
        snprintf(numbered, sizeof numbered, "%d with the right number", z->r.numbered);
    }
    snprintf(name, sizeof name, "%s_%s_decode_ms_per_frame", n, c->name);
    snprintf(note, sizeof note,
             "CPU of the receiver's video thread (agoraish-vid<n>: assembly, %s decode, picture copy, render "
             "callback that reads the frame number) over %.1f s per picture rendered, N=%d (%s; %dx%d); /proc "
             "stat ticks give %.2f; IO thread (SRTP, hand-off) %.3f ms/frame; receiver process all threads %.2f "
             "ms/frame; agoraish/libvpx (paced) = %.2f%s",
             L, z->r.window_ms / 1e3, z->r.rendered, numbered, z->r.decoded_w, z->r.decoded_h,
             z->r.vid_stat_ms / z->r.rendered, z->r.io_cpu_ms / z->r.rendered, z->r.process_cpu_ms / z->r.rendered,
             dec / ldec, gst_ratio);
    print_figure(name, 1, dec, note);
    snprintf(name, sizeof name, "libvpx_%s_%s_decode_ms_per_frame", n, c->name);
    snprintf(note, sizeof note,
             "bare libvpx %s vpx_codec_decode (1 thread) of the packets above on a thread woken per packet, as the "
             "engine's video thread is, N=%d pictures (%d with the right number)", L, z->paced.decoded,
             z->paced.numbered);
    print_figure(name, 1, ldec, note);
    snprintf(name, sizeof name, "libvpx_%s_%s_decode_b2b_ms_per_frame", n, c->name);
    snprintf(note, sizeof note, "the same packets decoded back to back, N=%d", z->b2b.decoded);
    print_figure(name, 1, bdec, note);
    snprintf(name, sizeof name, "gstreamer_%s_%s_decode_ms_per_frame", n, c->name);
    if (z->gst_ok) {
        snprintf(note, sizeof note,
                 "whole gst-launch-1.0 receiver process (udpsrc ! rtp%sdepay ! %sdec threads=1 ! fakesink), CPU "
                 "over %.0f s per frame sent", n, n, seconds);
    } else {
        snprintf(note, sizeof note, "not measured: %s", z->why);
    }
    print_figure(name, z->gst_ok, z->gst_receive, note);
}

int main(int argc, char **argv) {
    int url_pipe[2], control[2], i, j;
    pid_t server;
    char url[160];
    codec_results results[2][2];   /* [size][codec] */
    const char *lib, *log_dir;

    if (argc != 4 || (seconds = atof(argv[3])) < 1) {
        fprintf(stderr, "usage: video_cpu PATH LOG_DIR SECONDS\n");
        return 2;
    }
    lib = argv[1];
    log_dir = argv[2];
    signal(SIGPIPE, SIG_IGN);
    memset(results, 0, sizeof results);

    if (pipe(url_pipe) != 0 || pipe(control) != 0) return 1;
    if ((server = fork()) == 0) {
        close(url_pipe[0]);
        close(control[1]);
        alarm((unsigned)(8 * seconds) + 180);
        _exit(server_child(lib, NULL, url_pipe[1], control[0]));
    }
    close(url_pipe[1]);
    close(control[0]);
    if (server < 0 || read_line(url_pipe[0], url, sizeof url) != 0) {
        fprintf(stderr, "the server process did not start\n");
        return 1;
    }
    close(url_pipe[0]);
    fcntl(control[1], F_SETFD, FD_CLOEXEC);
    server_control = control[1];
    for (i = 0; i < 2; i++) {
        for (j = 0; j < 2; j++) {
            if (run_engines(lib, log_dir, url, &CONFIGS[i], &CODECS[j], &results[i][j].s, &results[i][j].r) != 0) {
                fprintf(stderr, "the engine processes failed at %s %s\n", CODECS[j].label, CONFIGS[i].name);
                return 1;
            }
        }
    }
    close(control[1]);
    waitpid(server, NULL, 0);

    for (i = 0; i < 2; i++) {
        for (j = 0; j < 2; j++) {
            codec_results *z = &results[i][j];
            z->paced.c = z->b2b.c = &CONFIGS[i];
            z->paced.vp9 = z->b2b.vp9 = CODECS[j].vp9;
            z->paced.paced = 1;
            if (run_libvpx(&z->paced) != 0 || run_libvpx(&z->b2b) != 0) return 1;
        }
    }
    for (i = 0; i < 2; i++) {
        for (j = 0; j < 2; j++) {
            codec_results *z = &results[i][j];
            z->gst_ok = run_gst(log_dir, &CONFIGS[i], &CODECS[j], &z->gst_send, &z->gst_receive, z->why,
                                sizeof z->why) == 0;
        }
    }

    printf("{\"figures\": [\n");
    for (i = 0; i < 2; i++) {
        for (j = 0; j < 2; j++) print_codec(&CONFIGS[i], &CODECS[j], &results[i][j]);
    }
    printf("\n]}\n");
    return 0;
}
