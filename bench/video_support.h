/*
 * video_support.h — what the video benchmarks share (bench/video_cpu.c,
 * bench/video_delay.c), on top of audio_support.h (the library opened with
 * dlopen, the embedded server, pacing, GStreamer children): the video part of
 * the C API, engines that send and render video, the synthetic moving
 * picture with its frame number drawn in, the CPU time of one thread of this
 * process or of a whole child process, libvpx with the engine's settings, and
 * the GStreamer VP8 and VP9 pipelines compared with the engine.
 *
 * Header-only (static inline), like bench_support.h. Define _POSIX_C_SOURCE
 * 200809L before any include; link with -ldl -lpthread -lm (and -lvpx for the
 * bare libvpx helpers).
 */
#ifndef AGORAISH_BENCH_VIDEO_SUPPORT_H
#define AGORAISH_BENCH_VIDEO_SUPPORT_H

#include <dirent.h>
#include <stdint.h>

#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vpx_encoder.h>

#include "audio_support.h"

/* ------------------------------------------------------------------------ */
/* The API                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct video_api {
    int (*enable_video)(agoraish_engine_t *);
    int (*set_video_encoder_configuration)(agoraish_engine_t *, const agoraish_video_encoder_configuration *);
    int (*set_external_video_source)(agoraish_engine_t *, int);
    int (*push_external_video_frame)(agoraish_engine_t *, const agoraish_external_video_frame *);
    int (*setup_remote_video)(agoraish_engine_t *, const agoraish_video_canvas *);
} video_api;

static video_api vapi;

/** load_audio_api (engines, server) plus the video functions; 0 on success. */
static inline int load_video_api(const char *path) {
    void *lib;
    if (load_audio_api(path) != 0 || !(lib = open_library(path))) return 1;
    LOOKUP(lib, vapi.enable_video, "agoraish_engine_enable_video");
    LOOKUP(lib, vapi.set_video_encoder_configuration, "agoraish_engine_set_video_encoder_configuration");
    LOOKUP(lib, vapi.set_external_video_source, "agoraish_engine_set_external_video_source");
    LOOKUP(lib, vapi.push_external_video_frame, "agoraish_engine_push_external_video_frame");
    LOOKUP(lib, vapi.setup_remote_video, "agoraish_engine_setup_remote_video");
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The picture                                                               */
/* ------------------------------------------------------------------------ */

/*
 * A synthetic camera: a diagonal luma and chroma gradient that scrolls 40 px/s
 * sideways, four textured blocks (a checkerboard with a stripe, each its own
 * colour) that bounce around at different speeds, and +-2 of fixed-pattern
 * noise per pixel that moves with the frame (as sensor noise would change).
 * Motion is in pixels per second, so every frame rate shows the same scene.
 *
 * The frame number is drawn at the top left as 24 macroblock-aligned cells
 * (16 px square, 32 px from 720 lines up): 16 bits of the number, then an
 * 8-bit check; a cell is luma 16 (0) or 235 (1) on neutral chroma. At the
 * engine's bitrates the cells survive VP8 with a wide margin; a picture
 * whose check does not match reads as -1.
 */

#define PICTURE_CODE_BITS 24
#define PICTURE_NOISE 65536

typedef struct picture {
    int width, height, fps;
    uint8_t *y, *u, *v;         /* tightly packed planes (strides width, width/2) */
} picture;

static int8_t picture_noise[PICTURE_NOISE];

static inline int picture_alloc(picture *p, int width, int height, int fps) {
    static int noise_ready = 0;
    size_t luma = (size_t)width * (size_t)height;
    memset(p, 0, sizeof *p);
    p->width = width;
    p->height = height;
    p->fps = fps;
    p->y = malloc(luma + luma / 2);
    if (!p->y) return 1;
    p->u = p->y + luma;
    p->v = p->u + luma / 4;
    if (!noise_ready) {
        uint64_t rng = 0x5EED0F1DE0ull;
        int i;
        for (i = 0; i < PICTURE_NOISE; i++) picture_noise[i] = (int8_t)((int)(next_random(&rng) % 5) - 2);
        noise_ready = 1;
    }
    return 0;
}

static inline void picture_free(picture *p) {
    free(p->y);
    memset(p, 0, sizeof *p);
}

/** The cell size of the frame-number strip, in pixels. */
static inline int picture_cell(int height) { return height >= 720 ? 32 : 16; }

static inline unsigned picture_check(unsigned n) { return ((n * 167u + 89u) ^ (n >> 8) ^ 0xA5u) & 0xFFu; }

/** A position bouncing between 0 and `range` at `speed` px/s, at time `t` s. */
static inline int bounce(double t, double speed, double phase, int range) {
    double x;
    if (range <= 0) return 0;
    x = fmod(t * speed + phase, 2.0 * range);
    return (int)(x < range ? x : 2.0 * range - x);
}

/** Draws picture number `n` (time n / fps). */
static inline void draw_picture(picture *p, unsigned n) {
    int w = p->width, h = p->height, cw = w / 2, ch = h / 2;
    int cell = picture_cell(h), strip = 2 * cell;
    double t = (double)n / p->fps;
    int scroll = (int)(t * 40);
    int size = h / 4, b, r, c;
    unsigned bits = (n & 0xFFFFu) | (picture_check(n & 0xFFFFu) << 16);
    size_t noise = ((size_t)n * 7919u) % PICTURE_NOISE;
    /* Background. */
    for (r = 0; r < h; r++) {
        uint8_t *row = p->y + (size_t)r * w;
        int base = 40 + r * 60 / h;
        for (c = 0; c < w; c++) {
            int x = (c + scroll) % w;
            row[c] = (uint8_t)(base + x * 110 / w + picture_noise[noise]);
            if (++noise == PICTURE_NOISE) noise = 0;
        }
    }
    for (r = 0; r < ch; r++) {
        for (c = 0; c < cw; c++) {
            int x = (c + scroll / 2) % cw;
            p->u[(size_t)r * cw + c] = (uint8_t)(108 + x * 40 / cw);
            p->v[(size_t)r * cw + c] = (uint8_t)(148 - r * 40 / ch);
        }
    }
    /* Four blocks below the strip. */
    for (b = 0; b < 4; b++) {
        static const double vx[4] = {0.35, 0.22, 0.5, 0.15}, vy[4] = {0.25, 0.4, 0.12, 0.3};
        static const uint8_t bu[4] = {90, 170, 128, 200}, bv[4] = {200, 90, 60, 150};
        int left = bounce(t, vx[b] * w, b * 97.0, w - size);
        int top = strip + bounce(t, vy[b] * h, b * 53.0, h - strip - size);
        int square = size / 6 > 0 ? size / 6 : 1;
        for (r = 0; r < size; r++) {
            uint8_t *row = p->y + (size_t)(top + r) * w + left;
            for (c = 0; c < size; c++) {
                int on = ((r / square) + (c / square)) & 1;
                int stripe = ((r + c + (int)(t * 60)) % (size / 2)) < size / 12;
                row[c] = (uint8_t)(stripe ? 235 : on ? 190 - 20 * b : 50 + 15 * b);
            }
        }
        for (r = top / 2; r < (top + size) / 2; r++) {
            for (c = left / 2; c < (left + size) / 2; c++) {
                p->u[(size_t)r * cw + c] = bu[b];
                p->v[(size_t)r * cw + c] = bv[b];
            }
        }
    }
    /* The frame number. */
    for (r = 0; r < strip; r++) {
        uint8_t *row = p->y + (size_t)r * w;
        for (c = 0; c < cell * (PICTURE_CODE_BITS + 2) && c < w; c++) {
            int k = c / cell - 1;
            int on = r >= cell / 2 && r < cell / 2 + cell && k >= 0 && k < PICTURE_CODE_BITS && (bits >> k & 1u);
            row[c] = (uint8_t)(on ? 235 : 16);
        }
    }
    for (r = 0; r < strip / 2; r++) {
        for (c = 0; c < cell * (PICTURE_CODE_BITS + 2) / 2 && c < cw; c++) {
            p->u[(size_t)r * cw + c] = 128;
            p->v[(size_t)r * cw + c] = 128;
        }
    }
}

/**
 * Reads the frame number drawn by draw_picture from a luma plane: the mean of
 * the middle 8x8 (16x16 at 720p) of each cell against 128. -1 when the check
 * does not match (or the picture is too small).
 */
static inline int read_picture_number(const uint8_t *y, int stride, int width, int height) {
    int cell = picture_cell(height), k, r, c, half = cell / 4;
    unsigned bits = 0;
    if (width < cell * (PICTURE_CODE_BITS + 1) || height < 2 * cell) return -1;
    for (k = 0; k < PICTURE_CODE_BITS; k++) {
        int x0 = (k + 1) * cell + half, y0 = cell / 2 + half, sum = 0;
        for (r = 0; r < 2 * half; r++)
            for (c = 0; c < 2 * half; c++) sum += y[(size_t)(y0 + r) * stride + x0 + c];
        if (sum > 128 * 4 * half * half) bits |= 1u << k;
    }
    if ((bits >> 16) != picture_check(bits & 0xFFFFu)) return -1;
    return (int)(bits & 0xFFFFu);
}

/** An agoraish_external_video_frame over `p`, stamped `timestamp_ms`. */
static inline agoraish_external_video_frame picture_frame(const picture *p, int64_t timestamp_ms) {
    agoraish_external_video_frame f;
    memset(&f, 0, sizeof f);
    f.struct_size = sizeof f;
    f.format = AGORAISH_VIDEO_PIXEL_I420;
    f.width = p->width;
    f.height = p->height;
    f.y_buffer = p->y;
    f.u_buffer = p->u;
    f.v_buffer = p->v;
    f.y_stride = p->width;
    f.u_stride = p->width / 2;
    f.v_stride = p->width / 2;
    f.timestamp = timestamp_ms;
    return f;
}

/* ------------------------------------------------------------------------ */
/* Engines with video                                                        */
/* ------------------------------------------------------------------------ */

/** What one engine's callbacks saw (audio_support.h's peer, plus video). */
typedef struct vpeer {
    peer base;                  /* first: the audio callbacks take a peer * */
    int video_decoded;          /* on_first_remote_video_decoded */
    int decoded_width, decoded_height;
    int stats_count;
    agoraish_rtc_stats rtc;     /* the last on_rtc_stats */
    int video_stats_count;      /* on_remote_video_stats seen */
    agoraish_remote_video_stats remote_video; /* the last one */
    int local_video_stats_count; /* on_local_video_stats seen */
    agoraish_local_video_stats local_video;   /* the last one */
} vpeer;

static inline void on_vpeer_video_decoded(agoraish_engine_t *e, void *ud, uint32_t uid, int width, int height,
                                          int elapsed) {
    vpeer *p = ud;
    (void)e, (void)uid, (void)elapsed;
    pthread_mutex_lock(&p->base.mutex);
    p->decoded_width = width;
    p->decoded_height = height;
    p->video_decoded++;
    pthread_cond_broadcast(&p->base.cond);
    pthread_mutex_unlock(&p->base.mutex);
}

static inline void on_vpeer_rtc_stats(agoraish_engine_t *e, void *ud, const agoraish_rtc_stats *stats) {
    vpeer *p = ud;
    size_t n = stats->struct_size < sizeof p->rtc ? stats->struct_size : sizeof p->rtc;
    (void)e;
    pthread_mutex_lock(&p->base.mutex);
    memset(&p->rtc, 0, sizeof p->rtc);
    memcpy(&p->rtc, stats, n);
    p->stats_count++;
    pthread_mutex_unlock(&p->base.mutex);
}

static inline void on_vpeer_remote_video_stats(agoraish_engine_t *e, void *ud,
                                               const agoraish_remote_video_stats *stats) {
    vpeer *p = ud;
    size_t n = stats->struct_size < sizeof p->remote_video ? stats->struct_size : sizeof p->remote_video;
    (void)e;
    pthread_mutex_lock(&p->base.mutex);
    memset(&p->remote_video, 0, sizeof p->remote_video);
    memcpy(&p->remote_video, stats, n);
    p->video_stats_count++;
    pthread_cond_broadcast(&p->base.cond);
    pthread_mutex_unlock(&p->base.mutex);
}

static inline void on_vpeer_local_video_stats(agoraish_engine_t *e, void *ud,
                                              const agoraish_local_video_stats *stats) {
    vpeer *p = ud;
    size_t n = stats->struct_size < sizeof p->local_video ? stats->struct_size : sizeof p->local_video;
    (void)e;
    pthread_mutex_lock(&p->base.mutex);
    memset(&p->local_video, 0, sizeof p->local_video);
    memcpy(&p->local_video, stats, n);
    p->local_video_stats_count++;
    pthread_cond_broadcast(&p->base.cond);
    pthread_mutex_unlock(&p->base.mutex);
}

/**
 * Creates an engine against the server at `url`, logging to `log_file`, with
 * an external audio source and sink at 48 kHz (so no audio device runs; no
 * audio is pushed). With `video`, video enabled and the encoder at
 * `width`x`height`@`fps`, `kbps`, sending `codec` (an agoraish_video_codec_type);
 * with `external` too, an external video source. `adjust`, when not NULL, sets
 * more callbacks of the handler before the engine is made. NULL on failure.
 */
static inline agoraish_engine_t *vpeer_create_full(vpeer *p, const char *url, const char *log_file, int video,
                                                   int external, int width, int height, int fps, int kbps, int codec,
                                                   void (*adjust)(agoraish_event_handler *)) {
    agoraish_event_handler handler;
    agoraish_engine_config config;
    peer *b = &p->base;
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&b->mutex, NULL);
    pthread_cond_init(&b->cond, NULL);
    memset(&handler, 0, sizeof handler);
    handler.struct_size = sizeof handler;
    handler.user_data = p;
    handler.on_join_channel_success = on_peer_join;
    handler.on_user_joined = on_peer_user_joined;
    handler.on_error = on_peer_error;
    handler.on_rtc_stats = on_vpeer_rtc_stats;
    handler.on_first_remote_video_decoded = on_vpeer_video_decoded;
    handler.on_remote_video_stats = on_vpeer_remote_video_stats;
    handler.on_local_video_stats = on_vpeer_local_video_stats;
    if (adjust) adjust(&handler);
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.app_id = AUDIO_APP_ID;
    config.event_handler = &handler;
    config.server_url = url;
    config.log_file = log_file;
    b->engine = api.engine_create(&config);
    if (!b->engine) {
        fprintf(stderr, "engine_create failed (%d)\n", api.get_last_error());
        return NULL;
    }
    if (api.set_external_audio_source(b->engine, 1, 48000, 1) != 0 ||
        api.set_external_audio_sink(b->engine, 1, 48000, 1) != 0 || (video && vapi.enable_video(b->engine) != 0)) {
        fprintf(stderr, "cannot set up the external audio source and sink, or enable video\n");
        api.engine_release(b->engine, 1);
        return b->engine = NULL;
    }
    if (video) {
        agoraish_video_encoder_configuration vc;
        memset(&vc, 0, sizeof vc);
        vc.struct_size = sizeof vc;
        vc.width = width;
        vc.height = height;
        vc.frame_rate = fps;
        vc.bitrate = kbps;
        vc.min_bitrate = -1;
        vc.codec_type = codec;
        if ((width > 0 && vapi.set_video_encoder_configuration(b->engine, &vc) != 0) ||
            (external && vapi.set_external_video_source(b->engine, 1) != 0)) {
            fprintf(stderr, "cannot configure the video encoder or the external video source\n");
            api.engine_release(b->engine, 1);
            return b->engine = NULL;
        }
    }
    return b->engine;
}

/**
 * An engine with video enabled (vpeer_create_full); with `sender`, the encoder
 * configured and an external video source.
 */
static inline agoraish_engine_t *vpeer_create_codec(vpeer *p, const char *url, const char *log_file, int sender,
                                                    int width, int height, int fps, int kbps, int codec) {
    return vpeer_create_full(p, url, log_file, 1, sender, sender ? width : 0, height, fps, kbps, codec, NULL);
}

/** vpeer_create_codec sending VP8. */
static inline agoraish_engine_t *vpeer_create(vpeer *p, const char *url, const char *log_file, int sender,
                                              int width, int height, int fps, int kbps) {
    return vpeer_create_codec(p, url, log_file, sender, width, height, fps, kbps, AGORAISH_VIDEO_CODEC_VP8);
}

/** Binds `on_frame` (with `user_data`) as the render sink of `uid`; 0 on success. */
static inline int vpeer_render(vpeer *p, uint32_t uid,
                               void (*on_frame)(agoraish_engine_t *, void *, uint32_t, const agoraish_video_frame *),
                               void *user_data) {
    agoraish_video_canvas canvas;
    memset(&canvas, 0, sizeof canvas);
    canvas.struct_size = sizeof canvas;
    canvas.uid = uid;
    canvas.on_frame = on_frame;
    canvas.user_data = user_data;
    return vapi.setup_remote_video(p->base.engine, &canvas);
}

/* ------------------------------------------------------------------------ */
/* CPU time of threads and processes                                         */
/* ------------------------------------------------------------------------ */

/* A sender's pushing thread: pictures of `width` x `height` at `fps`, picture
 * k pushed at start + k / fps (absolute deadlines) until `stop`. */
typedef struct pusher {
    agoraish_engine_t *engine;
    int width, height, fps;
    volatile int stop;
    int pushed, failures;
} pusher;

static inline void *push_thread(void *arg) {
    pusher *x = arg;
    picture pic;
    double start, period = 1000.0 / x->fps;
    unsigned k;
    if (picture_alloc(&pic, x->width, x->height, x->fps) != 0) {
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

/** The number after "key": in `json`; 0 when absent. */
static inline int json_number(const char *json, const char *key, double *out) {
    char pattern[64];
    const char *p;
    char *end;
    snprintf(pattern, sizeof pattern, "\"%s\"", key);
    if (!(p = strstr(json, pattern))) return 0;
    p += strlen(pattern);
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (*p++ != ':') return 0;
    *out = strtod(p, &end);
    return end != p;
}

/** CPU time of the calling thread, in ms. */
static inline double thread_cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/**
 * The first thread of this process whose name (/proc/self/task/TID/comm)
 * starts with `prefix`; 0 when none.
 */
static inline pid_t find_thread(const char *prefix) {
    DIR *dir = opendir("/proc/self/task");
    struct dirent *entry;
    pid_t found = 0;
    if (!dir) return 0;
    while (!found && (entry = readdir(dir)) != NULL) {
        char path[300], name[64];
        FILE *f;
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", entry->d_name);
        if (!(f = fopen(path, "r"))) continue;
        if (fgets(name, sizeof name, f) && strncmp(name, prefix, strlen(prefix)) == 0) {
            found = (pid_t)atoi(entry->d_name);
        }
        fclose(f);
    }
    closedir(dir);
    return found;
}

/**
 * CPU time of thread `tid` of this process, in ms, with nanosecond
 * resolution: the kernel's per-thread CPU clock (the clock id glibc's
 * pthread_getcpuclockid builds: ~tid << 3 | CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED).
 * -1 when the thread is gone.
 */
static inline double tid_cpu_ms(pid_t tid) {
    struct timespec ts;
    clockid_t clock = (clockid_t)((~(unsigned int)tid << 3) | 6u);
    if (clock_gettime(clock, &ts) != 0) return -1;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/** utime + stime of /proc/<path>/stat (clock ticks, 10 ms), in ms; -1 when unreadable. */
static inline double stat_cpu_ms(const char *path) {
    char buf[2048];
    char *p;
    FILE *f;
    size_t n;
    unsigned long utime = 0, stime = 0;
    int field;
    if (!(f = fopen(path, "r"))) return -1;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    if (!(p = strrchr(buf, ')'))) return -1;
    p++;
    for (field = 3; field <= 15 && *p; field++) {
        while (*p == ' ') p++;
        if (field == 14) utime = strtoul(p, NULL, 10);
        if (field == 15) stime = strtoul(p, NULL, 10);
        while (*p && *p != ' ') p++;
    }
    return (double)(utime + stime) * 1e3 / (double)sysconf(_SC_CLK_TCK);
}

/** The same thread's CPU from /proc/self/task/TID/stat (10 ms ticks), in ms. */
static inline double tid_stat_cpu_ms(pid_t tid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    return stat_cpu_ms(path);
}

/**
 * CPU time of every thread of another process, in ms: the sum of the run
 * times in /proc/PID/task/TID/schedstat (ns), else utime + stime of
 * /proc/PID/stat (10 ms ticks). -1 when the process is gone.
 */
static inline double child_cpu_ms(pid_t pid) {
    char path[300];
    DIR *dir;
    struct dirent *entry;
    double total = 0;
    int threads = 0;
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    if ((dir = opendir(path)) != NULL) {
        while ((entry = readdir(dir)) != NULL) {
            unsigned long long ns = 0;
            FILE *f;
            if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
            snprintf(path, sizeof path, "/proc/%d/task/%s/schedstat", (int)pid, entry->d_name);
            if (!(f = fopen(path, "r"))) continue;
            if (fscanf(f, "%llu", &ns) == 1) {
                total += (double)ns / 1e6;
                threads++;
            }
            fclose(f);
        }
        closedir(dir);
    }
    if (threads > 0) return total;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    return stat_cpu_ms(path);
}

/* ------------------------------------------------------------------------ */
/* libvpx with the engine's settings                                         */
/* ------------------------------------------------------------------------ */

/*
 * Sources/AgoraishMedia/Video/VideoCodec.swift: libvpx's defaults, then one
 * pass, CBR at `kbps`, no lag, error resilient, one thread, a 90 kHz
 * timebase, quantizer 2..56, undershoot 100 %, overshoot 15 %, buffer
 * 500/600/1000 ms, keyframes automatic at most every 3 s (kf_max_dist 3 *
 * fps), cpu-used -6 (VP8) or 7 (VP9), static threshold 1.
 */
static inline int vpx_engine_encoder(vpx_codec_ctx_t *ctx, int vp9, int width, int height, int fps, int kbps) {
    vpx_codec_iface_t *iface = vp9 ? vpx_codec_vp9_cx() : vpx_codec_vp8_cx();
    vpx_codec_enc_cfg_t cfg;
    if (vpx_codec_enc_config_default(iface, &cfg, 0) != VPX_CODEC_OK) return 1;
    cfg.g_w = (unsigned)width;
    cfg.g_h = (unsigned)height;
    cfg.g_timebase.num = 1;
    cfg.g_timebase.den = 90000;
    cfg.rc_target_bitrate = (unsigned)kbps;
    cfg.g_threads = 1;
    cfg.g_lag_in_frames = 0;
    cfg.g_pass = VPX_RC_ONE_PASS;
    cfg.rc_end_usage = VPX_CBR;
    cfg.g_error_resilient = VPX_ERROR_RESILIENT_DEFAULT;
    cfg.rc_min_quantizer = 2;
    cfg.rc_max_quantizer = 56;
    cfg.rc_undershoot_pct = 100;
    cfg.rc_overshoot_pct = 15;
    cfg.rc_buf_initial_sz = 500;
    cfg.rc_buf_optimal_sz = 600;
    cfg.rc_buf_sz = 1000;
    cfg.kf_mode = VPX_KF_AUTO;
    cfg.kf_max_dist = (unsigned)(3 * fps);
    if (vpx_codec_enc_init(ctx, iface, &cfg, 0) != VPX_CODEC_OK) return 1;
    if (vpx_codec_control(ctx, VP8E_SET_CPUUSED, vp9 ? 7 : -6) != VPX_CODEC_OK ||
        vpx_codec_control(ctx, VP8E_SET_STATIC_THRESHOLD, 1) != VPX_CODEC_OK) {
        vpx_codec_destroy(ctx);
        return 1;
    }
    return 0;
}

/** A one-thread decoder, as the engine's. */
static inline int vpx_engine_decoder(vpx_codec_ctx_t *ctx, int vp9) {
    vpx_codec_dec_cfg_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.threads = 1;
    return vpx_codec_dec_init(ctx, vp9 ? vpx_codec_vp9_dx() : vpx_codec_vp8_dx(), &cfg, 0) != VPX_CODEC_OK;
}

/* ------------------------------------------------------------------------ */
/* GStreamer                                                                 */
/* ------------------------------------------------------------------------ */

/*
 * The GStreamer pipelines compared with the engine: raw I420 in through fd 3,
 * vp8enc or vp9enc with the engine's settings (deadline=1 is libvpx's
 * real-time deadline; cpu-used -6 for VP8, 7 for VP9), RTP (payloads of at
 * most ~1200 bytes, 15-bit PictureID) over UDP on 127.0.0.1, and a receiver
 * that decodes with one thread and hands each picture on as soon as it is
 * decoded (sync=false: video is rendered on arrival, as the engine does),
 * into fd 3 or a fakesink.
 */
static inline void gst_video_sender_pipeline_codec(char *out, size_t cap, int width, int height, int fps, int kbps,
                                                   uint16_t port, int vp9) {
    snprintf(out, cap,
             "fdsrc fd=3 blocksize=%d ! rawvideoparse use-sink-caps=false format=i420 width=%d height=%d "
             "framerate=%d/1 ! %s deadline=1 cpu-used=%d end-usage=cbr target-bitrate=%d lag-in-frames=0 "
             "error-resilient=default threads=1 static-threshold=1 min-quantizer=2 max-quantizer=56 undershoot=100 "
             "overshoot=15 buffer-initial-size=500 buffer-optimal-size=600 buffer-size=1000 keyframe-mode=auto "
             "keyframe-max-dist=%d ! %s pt=%d mtu=1216 picture-id-mode=15-bit ! "
             "udpsink host=127.0.0.1 port=%u sync=false async=false",
             width * height * 3 / 2, width, height, fps, vp9 ? "vp9enc" : "vp8enc", vp9 ? 7 : -6, kbps * 1000,
             3 * fps, vp9 ? "rtpvp9pay" : "rtpvp8pay", vp9 ? 98 : 96, (unsigned)port);
}

static inline void gst_video_receiver_pipeline_codec(char *out, size_t cap, uint16_t port, int to_fd, int vp9) {
    snprintf(out, cap,
             "udpsrc address=127.0.0.1 port=%u buffer-size=1048576 "
             "caps=application/x-rtp,media=video,clock-rate=90000,encoding-name=%s,payload=%d ! "
             "%s ! %s threads=1 ! %s",
             (unsigned)port, vp9 ? "VP9" : "VP8", vp9 ? 98 : 96, vp9 ? "rtpvp9depay" : "rtpvp8depay",
             vp9 ? "vp9dec" : "vp8dec", to_fd ? "fdsink fd=3 sync=false" : "fakesink sync=false");
}

/** The VP8 sender pipeline. */
static inline void gst_video_sender_pipeline(char *out, size_t cap, int width, int height, int fps, int kbps,
                                             uint16_t port) {
    gst_video_sender_pipeline_codec(out, cap, width, height, fps, kbps, port, 0);
}

/** The VP8 receiver pipeline. */
static inline void gst_video_receiver_pipeline(char *out, size_t cap, uint16_t port, int to_fd) {
    gst_video_receiver_pipeline_codec(out, cap, port, to_fd, 0);
}

#endif /* AGORAISH_BENCH_VIDEO_SUPPORT_H */
