/*
 * media_cpu.c — CPU time of the media player, the media recorder and audio
 * mixing (ABI 0.13), each measured as the CPU time of one process whose
 * engine is in a call; bench/benchmarks/media.py runs it once per case and
 * sets the FFmpeg command line beside each figure.
 *
 * Every run is two processes:
 *   - a forked child (not measured) with an embedded server and a receiving
 *     engine (uid RECEIVER_UID) in the channel: it renders the measured
 *     engine's video into a callback that counts pictures, and pulls its
 *     playout 10 ms every 10 ms, measuring the level and the power at a pilot
 *     frequency (Goertzel, 10 ms blocks) — proof that what is measured is
 *     really sent. It snapshots those counters whenever the measured process
 *     writes a byte to its control pipe (a "mark"), and reports them at EOF;
 *   - this process, the measured one, once the child is up (the library is
 *     loaded after the fork): one engine (uid SENDER_UID) with an external
 *     audio source and sink (no audio device runs), whose main thread is the
 *     host's audio device: every 10 ms on absolute CLOCK_MONOTONIC deadlines
 *     it pushes 10 ms of audio (recorder, mixing) and pulls 10 ms of playout
 *     (every case). CPU = CLOCK_PROCESS_CPUTIME_ID (every thread, user and
 *     system) between marks; each window also gives its CPU per whole second
 *     ("slices") and the CPU of each thread of the process (the kernel's
 *     per-thread CPU clocks, threads grouped by name without their trailing
 *     digits; "exited" is the CPU of threads that ended in the window).
 *
 * Cases:
 *   player FILE publish|play PILOT_HZ — a media player opens FILE (the 720p30
 *     H.264 + AAC file), its canvas bound to a callback that counts pictures;
 *     the engine joins with ChannelMediaOptions publishing nothing but, with
 *     `publish`, the player's audio and video (publish_camera_track and
 *     publish_microphone_track 0). The engine's encoder is 1280x720@30,
 *     1710 kbps, VP8 (video_cpu's 720p30 settings): the player's pictures are
 *     encoded again for the channel. Window: SECONDS from WARMUP_MS after
 *     play() reached PLAYING. The player's audio is pulled as local playout.
 *   recorder VIDEO.yuv AUDIO.pcm OUT.mp4 — an external video source pushes
 *     the 640x360 I420 pictures of VIDEO.yuv at 15 fps (a thread, absolute
 *     deadlines; the file is read into memory first) and the main thread
 *     pushes AUDIO.pcm (48 kHz mono s16le) 10 ms every 10 ms; the engine
 *     sends VP8 640x360@15 at 400 kbps and Opus. After WARMUP_MS: SECONDS/2
 *     without a recorder ("off0"), then a media recorder (uid 0: what this
 *     engine sends; 640x360, 15 fps, 48 kHz mono, stream type BOTH) records
 *     OUT.mp4 for SECONDS ("on0": from just before start_recording to the
 *     return of stop_recording, which finishes the file), then SECONDS/2
 *     without ("off1").
 *   mixing FILE.mp3 PILOT_HZ PAIRS — the main thread pushes audio_support's
 *     speech-like signal (the "microphone"); no video.
 *     agoraish_engine_start_audio_mixing(FILE, loopback 0, cycle -1) at the
 *     start of the warm-up, paused at its middle (so opening the file is in
 *     no window). Then SECONDS paused and SECONDS playing, interleaved so
 *     that slow drifts cancel: PAIRS + 1 windows paused ("off0".."off<PAIRS>",
 *     SECONDS / (PAIRS + 1) each) around PAIRS windows playing ("on0"..,
 *     SECONDS / PAIRS each, from just before resume_audio_mixing to the
 *     return of pause_audio_mixing). The per-thread figures show what a
 *     paused mixing costs (its thread "agoraish-mix" in the paused windows).
 *
 *   media_cpu PATH LOG_DIR SECONDS player FILE publish|play PILOT_HZ
 *   media_cpu PATH LOG_DIR SECONDS recorder VIDEO.yuv AUDIO.pcm OUT.mp4
 *   media_cpu PATH LOG_DIR SECONDS mixing FILE.mp3 PILOT_HZ PAIRS
 *     -> one JSON object: {"case", "seconds", "windows": {name: {...}}, ...}
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <stddef.h>

#include "video_support.h"

#define RATE 48000
#define FRAME 480                   /* 10 ms */
#define WARMUP_MS 1500.0
#define CHANNEL "bench-media-cpu"
#define SENDER_UID 6001u
#define RECEIVER_UID 6002u
#define MAX_PAIRS 5
#define MAX_MARKS (4 * MAX_PAIRS + 2)
#define MAX_THREADS 128
#define WAIT_MS 10000.0

/* ------------------------------------------------------------------------ */
/* The API beyond audio_support.h and video_support.h                         */
/* ------------------------------------------------------------------------ */

typedef struct media_api {
    int (*join_with_options)(agoraish_engine_t *, const char *, const char *, uint32_t,
                             const agoraish_channel_media_options *);
    int (*create_player)(agoraish_engine_t *, int *);
    int (*destroy_player)(agoraish_engine_t *, int);
    int (*player_open)(agoraish_engine_t *, int, const char *, int64_t);
    int (*player_play)(agoraish_engine_t *, int);
    int (*player_stop)(agoraish_engine_t *, int);
    int (*player_position)(agoraish_engine_t *, int, int64_t *);
    int (*player_set_view)(agoraish_engine_t *, int, const agoraish_video_canvas *);
    int (*player_observer)(agoraish_engine_t *, int, const agoraish_media_player_observer *);
    int (*start_mixing)(agoraish_engine_t *, const char *, int, int, int);
    int (*stop_mixing)(agoraish_engine_t *);
    int (*pause_mixing)(agoraish_engine_t *);
    int (*resume_mixing)(agoraish_engine_t *);
    int (*mixing_position)(agoraish_engine_t *);
    int (*create_recorder)(agoraish_engine_t *, const agoraish_recorder_stream_info *, int *);
    int (*recorder_observer)(agoraish_engine_t *, int, const agoraish_media_recorder_observer *);
    int (*start_recording)(agoraish_engine_t *, int, const agoraish_media_recorder_configuration *);
    int (*stop_recording)(agoraish_engine_t *, int);
    int (*destroy_recorder)(agoraish_engine_t *, int);
} media_api;

static media_api mapi;

static int load_media_api(const char *path) {
    void *lib;
    if (load_video_api(path) != 0 || !(lib = open_library(path))) return 1;
    LOOKUP(lib, mapi.join_with_options, "agoraish_engine_join_channel_with_options");
    LOOKUP(lib, mapi.create_player, "agoraish_engine_create_media_player");
    LOOKUP(lib, mapi.destroy_player, "agoraish_engine_destroy_media_player");
    LOOKUP(lib, mapi.player_open, "agoraish_media_player_open");
    LOOKUP(lib, mapi.player_play, "agoraish_media_player_play");
    LOOKUP(lib, mapi.player_stop, "agoraish_media_player_stop");
    LOOKUP(lib, mapi.player_position, "agoraish_media_player_get_play_position");
    LOOKUP(lib, mapi.player_set_view, "agoraish_media_player_set_view");
    LOOKUP(lib, mapi.player_observer, "agoraish_media_player_register_player_source_observer");
    LOOKUP(lib, mapi.start_mixing, "agoraish_engine_start_audio_mixing");
    LOOKUP(lib, mapi.stop_mixing, "agoraish_engine_stop_audio_mixing");
    LOOKUP(lib, mapi.pause_mixing, "agoraish_engine_pause_audio_mixing");
    LOOKUP(lib, mapi.resume_mixing, "agoraish_engine_resume_audio_mixing");
    LOOKUP(lib, mapi.mixing_position, "agoraish_engine_get_audio_mixing_current_position");
    LOOKUP(lib, mapi.create_recorder, "agoraish_engine_create_media_recorder");
    LOOKUP(lib, mapi.recorder_observer, "agoraish_media_recorder_set_observer");
    LOOKUP(lib, mapi.start_recording, "agoraish_media_recorder_start_recording");
    LOOKUP(lib, mapi.stop_recording, "agoraish_media_recorder_stop_recording");
    LOOKUP(lib, mapi.destroy_recorder, "agoraish_engine_destroy_media_recorder");
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Audio levels                                                              */
/* ------------------------------------------------------------------------ */

/* Sums over pulled 10 ms frames: energy, the Goertzel power at the pilot
 * frequency (scaled to the same units: a pure pilot tone gives pilot ==
 * energy), frames and frames with a peak above 500. */
typedef struct meter {
    double energy, pilot;
    long frames, voiced;
} meter;

static void meter_add(meter *m, const int16_t *x, int n, int pilot_hz) {
    double energy = 0, s1 = 0, s2 = 0, coeff = 2 * cos(2 * AUDIO_PI * pilot_hz / RATE);
    int i, peak = 0;
    for (i = 0; i < n; i++) {
        double v = x[i], s0 = v + coeff * s1 - s2;
        s2 = s1;
        s1 = s0;
        energy += v * v;
        if (abs(x[i]) > peak) peak = abs(x[i]);
    }
    m->energy += energy;
    if (pilot_hz > 0) m->pilot += 2 * (s1 * s1 + s2 * s2 - coeff * s1 * s2) / n;
    m->frames++;
    if (peak > 500) m->voiced++;
}

/* ------------------------------------------------------------------------ */
/* The receiver (the server's process)                                       */
/* ------------------------------------------------------------------------ */

typedef struct receiver {
    vpeer p;
    pthread_mutex_t mutex;
    meter heard;
    long rendered;
    int width, height, pilot_hz;
    volatile int stop;
} receiver;

static void on_receiver_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    receiver *r = ud;
    (void)e, (void)uid;
    pthread_mutex_lock(&r->mutex);
    r->rendered++;
    r->width = f->width;
    r->height = f->height;
    pthread_mutex_unlock(&r->mutex);
}

static void *receiver_pull(void *arg) {
    receiver *r = arg;
    int16_t frame[FRAME];
    double start = now_ms();
    unsigned long k;
    for (k = 1; !r->stop; k++) {
        sleep_until_ms(start + (double)k * 10);
        if (api.pull_playback_audio_frame(r->p.base.engine, frame, FRAME) != 0) continue;
        pthread_mutex_lock(&r->mutex);
        meter_add(&r->heard, frame, FRAME, r->pilot_hz);
        pthread_mutex_unlock(&r->mutex);
    }
    return NULL;
}

/* The server child: an embedded server and the receiver; writes the URL once the receiver is in the channel,
 * a line of counters per byte read from `control`, and ends at its EOF. */
static int server_receiver_child(const char *lib, const char *log, int pilot_hz, int url_fd, int control, int out_fd) {
    agoraish_server_t *server;
    receiver r;
    pthread_t puller;
    char url[160], c, line[256];
    memset(&r, 0, sizeof r);
    pthread_mutex_init(&r.mutex, NULL);
    r.pilot_hz = pilot_hz;
    if (load_video_api(lib) != 0 || !(server = start_embedded_server(NULL, url, sizeof url))) return 1;
    if (!vpeer_create(&r.p, url, log, 0, 0, 0, 0, 0)) return 1;
    if (vpeer_render(&r.p, SENDER_UID, on_receiver_frame, &r) != 0) {
        fprintf(stderr, "receiver: setup_remote_video failed\n");
        return 1;
    }
    if (peer_join(&r.p.base, CHANNEL, RECEIVER_UID) != 0) return 1;
    if (pthread_create(&puller, NULL, receiver_pull, &r) != 0) return 1;
    strcat(url, "\n");
    write_all(url_fd, url, strlen(url));
    close(url_fd);
    while (read(control, &c, 1) > 0) {
        pthread_mutex_lock(&r.mutex);
        snprintf(line, sizeof line, "%ld %ld %ld %.6g %.6g %d %d\n", r.rendered, r.heard.frames, r.heard.voiced,
                 r.heard.energy, r.heard.pilot, r.width, r.height);
        pthread_mutex_unlock(&r.mutex);
        write_all(out_fd, line, strlen(line));
    }
    r.stop = 1;
    pthread_join(puller, NULL);
    close(out_fd);
    api.engine_release(r.p.base.engine, 1);
    api.server_release(server);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The measured engine                                                       */
/* ------------------------------------------------------------------------ */

/* What the measured engine's callbacks saw (vpeer first: its callbacks take a vpeer *). */
typedef struct sender {
    vpeer v;
    int player_state, player_reason, player_failed;
    int mixing_state, mixing_reason, mixing_playing;
    int recorder_state, recorder_reason, recorder_starts, recorder_stops, recorder_errors;
    long player_pictures;
} sender;

static void on_mixing_state(agoraish_engine_t *e, void *ud, int state, int reason) {
    sender *s = ud;
    (void)e;
    pthread_mutex_lock(&s->v.base.mutex);
    s->mixing_state = state;
    s->mixing_reason = reason;
    if (state == AGORAISH_AUDIO_MIXING_STATE_PLAYING) s->mixing_playing++;
    pthread_cond_broadcast(&s->v.base.cond);
    pthread_mutex_unlock(&s->v.base.mutex);
}

static void on_player_state(agoraish_engine_t *e, void *ud, int id, int state, int reason) {
    sender *s = ud;
    (void)e, (void)id;
    pthread_mutex_lock(&s->v.base.mutex);
    s->player_state = state;
    s->player_reason = reason;
    if (state == AGORAISH_PLAYER_STATE_FAILED) s->player_failed++;
    pthread_cond_broadcast(&s->v.base.cond);
    pthread_mutex_unlock(&s->v.base.mutex);
}

static void on_player_picture(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    sender *s = ud;
    (void)e, (void)uid, (void)f;
    __atomic_fetch_add(&s->player_pictures, 1, __ATOMIC_RELAXED);
}

static void on_recorder_state(agoraish_engine_t *e, void *ud, int id, const char *channel, uint32_t uid, int state,
                              int reason) {
    sender *s = ud;
    (void)e, (void)id, (void)channel, (void)uid;
    pthread_mutex_lock(&s->v.base.mutex);
    s->recorder_state = state;
    s->recorder_reason = reason;
    if (state == AGORAISH_RECORDER_STATE_START) s->recorder_starts++;
    if (state == AGORAISH_RECORDER_STATE_STOP) s->recorder_stops++;
    if (state == AGORAISH_RECORDER_STATE_ERROR) s->recorder_errors++;
    pthread_cond_broadcast(&s->v.base.cond);
    pthread_mutex_unlock(&s->v.base.mutex);
}

/* Waits until *field == want (or an error, or WAIT_MS); whether it is. `bad`, when not NULL, ends the wait early. */
static int sender_wait(sender *s, const int *field, int want, const int *bad) {
    struct timespec deadline;
    int ok;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)(WAIT_MS / 1e3);
    pthread_mutex_lock(&s->v.base.mutex);
    while (*field != want && s->v.base.errors == 0 && !(bad && *bad)) {
        if (pthread_cond_timedwait(&s->v.base.cond, &s->v.base.mutex, &deadline) == ETIMEDOUT) break;
    }
    ok = *field == want;
    pthread_mutex_unlock(&s->v.base.mutex);
    return ok;
}

/* The sender's handler: vpeer's callbacks and audio mixing's states. */
static void sender_handler(agoraish_event_handler *h) { h->on_audio_mixing_state_changed = on_mixing_state; }

/* vpeer_create_full with audio mixing's states reported: an external audio source and sink at 48 kHz mono;
 * with `video`, video enabled and the encoder at width x height @ fps, kbps, VP8; with `external`, an external
 * video source. */
static agoraish_engine_t *sender_create(sender *s, const char *url, const char *log, int video, int external,
                                        int width, int height, int fps, int kbps) {
    memset(s, 0, sizeof *s);
    return vpeer_create_full(&s->v, url, log, video, external, width, height, fps, kbps, AGORAISH_VIDEO_CODEC_VP8,
                             sender_handler);
}

/* ------------------------------------------------------------------------ */
/* Marks and windows                                                         */
/* ------------------------------------------------------------------------ */

typedef struct thread_cpu {
    pid_t tid;
    char name[24];
    double ms;
} thread_cpu;

typedef struct mark {
    double wall, cpu;
    meter local;
    int nthreads;
    thread_cpu threads[MAX_THREADS];
    /* The receiver's counters at the mark (filled at the end). */
    long rx_rendered, rx_frames, rx_voiced;
    double rx_energy, rx_pilot;
    int rx_width, rx_height;
    long pictures;              /* the player's canvas */
} mark;

#define MAX_SLICES 64

typedef struct window {
    const char *name;
    int a, b;                   /* marks */
    double slice_at, slice_cpu; /* the next whole second, and the CPU at the last one */
    int nslices;
    double slices[MAX_SLICES];
    int threads_at_b;           /* the mark whose threads close the window (b, or an earlier snapshot) */
    thread_cpu end_threads[MAX_THREADS];
    int n_end_threads;
} window;

static const char *const OFF_NAMES[MAX_PAIRS + 1] = {"off0", "off1", "off2", "off3", "off4", "off5"};
static const char *const ON_NAMES[MAX_PAIRS] = {"on0", "on1", "on2", "on3", "on4"};

static mark marks[MAX_MARKS];
static int nmarks = 0;
static int control_fd = -1;
static sender *measured;

static int snapshot_threads(thread_cpu *out) {
    DIR *dir = opendir("/proc/self/task");
    struct dirent *entry;
    int n = 0;
    if (!dir) return 0;
    while (n < MAX_THREADS && (entry = readdir(dir)) != NULL) {
        char path[300];
        FILE *f;
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        out[n].tid = (pid_t)atoi(entry->d_name);
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", entry->d_name);
        out[n].name[0] = 0;
        if ((f = fopen(path, "r")) != NULL) {
            if (fgets(out[n].name, sizeof out[n].name, f)) out[n].name[strcspn(out[n].name, "\n")] = 0;
            fclose(f);
        }
        if ((out[n].ms = tid_cpu_ms(out[n].tid)) >= 0) n++;
    }
    closedir(dir);
    return n;
}

/* A mark: the time, this process's CPU, the local playout meter, every thread's CPU, and a byte to the
 * receiver (which snapshots its counters). Returns its index. */
static int take_mark(const meter *local) {
    mark *m = &marks[nmarks];
    char c = 'm';
    m->nthreads = snapshot_threads(m->threads);
    m->local = *local;
    m->pictures = __atomic_load_n(&measured->player_pictures, __ATOMIC_RELAXED);
    m->wall = now_ms();
    m->cpu = process_cpu_ms();
    if (write(control_fd, &c, 1) != 1) fprintf(stderr, "cannot write to the receiver's control pipe\n");
    return nmarks++;
}

/* The host's audio device: a 10 ms tick on a fixed grid from `start`. */
typedef struct host {
    agoraish_engine_t *engine;
    const int16_t *pcm;         /* NULL: nothing pushed */
    size_t pcm_frames;
    double start;
    unsigned long k;
    meter local;                /* the pulled playout */
    int pilot_hz;
    int push_failures, pull_failures;
} host;

/* Ticks until `until` (absolute ms); with `w`, records its CPU at each whole second since its start. */
static void ticks_until(host *h, double until, window *w) {
    int16_t frame[FRAME];
    for (;;) {
        double at = h->start + (double)h->k * 10;
        if (at >= until) break;
        sleep_until_ms(at);
        if (h->pcm && api.push_external_audio_frame(h->engine, h->pcm + (h->k % h->pcm_frames) * FRAME, FRAME) < 0) {
            h->push_failures++;
        }
        if (api.pull_playback_audio_frame(h->engine, frame, FRAME) == 0) {
            meter_add(&h->local, frame, FRAME, h->pilot_hz);
        } else {
            h->pull_failures++;
        }
        h->k++;
        if (w && at >= w->slice_at && w->nslices < MAX_SLICES) {
            double cpu = process_cpu_ms();
            w->slices[w->nslices++] = cpu - w->slice_cpu;
            w->slice_cpu = cpu;
            w->slice_at += 1000;
        }
    }
}

static void window_begin(window *w, const char *name, host *h) {
    memset(w, 0, sizeof *w);
    w->name = name;
    w->a = take_mark(&h->local);
    w->slice_at = marks[w->a].wall + 1000;
    w->slice_cpu = marks[w->a].cpu;
    w->n_end_threads = -1;
}

/* Snapshot of the threads that closes the window's per-thread figures (before a stop that ends a thread). */
static void window_threads(window *w) { w->n_end_threads = snapshot_threads(w->end_threads); }

static void window_end(window *w, host *h) {
    w->b = take_mark(&h->local);
    if (w->n_end_threads < 0) {
        w->n_end_threads = marks[w->b].nthreads;
        memcpy(w->end_threads, marks[w->b].threads, sizeof w->end_threads);
    }
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                      */
/* ------------------------------------------------------------------------ */

static void print_meter(const char *key, const meter *a, const meter *b, int pilot_hz) {
    double frames = (double)(b->frames - a->frames), energy = b->energy - a->energy, pilot = b->pilot - a->pilot;
    double rms = frames > 0 ? sqrt(energy / (frames * FRAME)) : 0;
    printf("\"%s\": {\"frames\": %ld, \"voiced\": %ld, \"rms\": %.1f, \"pilot_hz\": %d, \"pilot_share\": %.4f}", key,
           b->frames - a->frames, b->voiced - a->voiced, rms, pilot_hz, energy > 0 ? pilot / energy : 0);
}

/* The per-thread CPU of a window, grouped by name without trailing digits. */
static void print_threads(const window *w) {
    const mark *a = &marks[w->a];
    char names[MAX_THREADS][24];
    double ms[MAX_THREADS], total = 0, process = marks[w->b].cpu - a->cpu;
    int n = 0, i, j;
    for (i = 0; i < w->n_end_threads; i++) {
        const thread_cpu *t = &w->end_threads[i];
        double before = 0, d;
        char name[24];
        size_t len;
        for (j = 0; j < a->nthreads; j++) {
            if (a->threads[j].tid == t->tid) before = a->threads[j].ms;
        }
        d = t->ms - before;
        snprintf(name, sizeof name, "%s", t->name);
        len = strlen(name);
        while (len > 0 && isdigit((unsigned char)name[len - 1])) name[--len] = 0;
        for (j = 0; j < n && strcmp(names[j], name) != 0; j++) {}
        if (j == n) {
            snprintf(names[n], sizeof names[n], "%s", name);
            ms[n++] = 0;
        }
        ms[j] += d;
        total += d;
    }
    printf("\"threads\": {");
    for (i = 0; i < n; i++) printf("%s\"%s\": %.2f", i ? ", " : "", names[i], ms[i]);
    printf("%s\"exited\": %.2f}", n ? ", " : "", process - total);
}

static void print_window(const window *w, const host *h, int last) {
    const mark *a = &marks[w->a], *b = &marks[w->b];
    double frames = (double)(b->rx_frames - a->rx_frames), energy = b->rx_energy - a->rx_energy;
    int i;
    printf("  \"%s\": {\"wall_ms\": %.3f, \"cpu_ms\": %.3f, \"slices\": [", w->name, b->wall - a->wall, b->cpu - a->cpu);
    for (i = 0; i < w->nslices; i++) printf("%s%.2f", i ? ", " : "", w->slices[i]);
    printf("],\n    ");
    print_threads(w);
    printf(",\n    ");
    print_meter("playout", &a->local, &b->local, h->pilot_hz);
    printf(",\n    \"player_pictures\": %ld,\n", b->pictures - a->pictures);
    printf("    \"receiver\": {\"pictures\": %ld, \"width\": %d, \"height\": %d, \"audio_frames\": %ld, "
           "\"voiced\": %ld, \"rms\": %.1f, \"pilot_share\": %.4f}}%s\n",
           b->rx_rendered - a->rx_rendered, b->rx_width, b->rx_height, b->rx_frames - a->rx_frames,
           b->rx_voiced - a->rx_voiced, frames > 0 ? sqrt(energy / (frames * FRAME)) : 0,
           energy > 0 ? (b->rx_pilot - a->rx_pilot) / energy : 0, last ? "" : ",");
}

static void print_local_video(const sender *s) {
    const agoraish_local_video_stats *v = &s->v.local_video;
    printf("\"local_video\": {\"reports\": %d, \"encoded_width\": %d, \"encoded_height\": %d, "
           "\"encoder_fps\": %d, \"sent_fps\": %d, \"capture_fps\": %d, \"sent_kbps\": %d, \"codec\": %d}",
           s->v.local_video_stats_count, v->encoded_frame_width, v->encoded_frame_height,
           v->encoder_output_frame_rate, v->sent_frame_rate, v->capture_frame_rate, v->sent_bitrate, v->codec_type);
}

/* ------------------------------------------------------------------------ */
/* The cases                                                                 */
/* ------------------------------------------------------------------------ */

static double seconds;

static int join_and_wait(sender *s, const agoraish_channel_media_options *options) {
    int code = options ? mapi.join_with_options(s->v.base.engine, NULL, CHANNEL, SENDER_UID, options)
                       : api.join_channel(s->v.base.engine, NULL, CHANNEL, NULL, SENDER_UID);
    if (code != 0) {
        fprintf(stderr, "join returned %d\n", code);
        return 1;
    }
    if (!peer_wait(&s->v.base, &s->v.base.joined) || !peer_wait(&s->v.base, &s->v.base.remote_joined)) {
        fprintf(stderr, "no join, or the receiver was not seen\n");
        return 1;
    }
    return 0;
}

static int run_player(sender *s, host *h, const char *file, int publish, window *w, int64_t position[2]) {
    agoraish_channel_media_options o;
    agoraish_media_player_observer obs;
    agoraish_video_canvas canvas;
    int id = 0;
    if (mapi.create_player(s->v.base.engine, &id) != 0) return 1;
    memset(&obs, 0, sizeof obs);
    obs.struct_size = sizeof obs;
    obs.user_data = s;
    obs.on_player_source_state_changed = on_player_state;
    memset(&canvas, 0, sizeof canvas);
    canvas.struct_size = sizeof canvas;
    canvas.on_frame = on_player_picture;
    canvas.user_data = s;
    if (mapi.player_observer(s->v.base.engine, id, &obs) != 0 || mapi.player_set_view(s->v.base.engine, id, &canvas) != 0 ||
        mapi.player_open(s->v.base.engine, id, file, 0) != 0 ||
        !sender_wait(s, &s->player_state, AGORAISH_PLAYER_STATE_OPEN_COMPLETED, &s->player_failed)) {
        fprintf(stderr, "the player did not open %s (state %d, reason %d)\n", file, s->player_state, s->player_reason);
        return 1;
    }
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.has_publish_microphone_track = 1;
    o.publish_microphone_track = 0;
    o.has_publish_camera_track = 1;
    o.publish_camera_track = 0;
    o.has_publish_media_player_audio_track = 1;
    o.publish_media_player_audio_track = publish;
    o.has_publish_media_player_video_track = 1;
    o.publish_media_player_video_track = publish;
    o.has_publish_media_player_id = 1;
    o.publish_media_player_id = id;
    if (join_and_wait(s, &o) != 0) return 1;
    if (mapi.player_play(s->v.base.engine, id) != 0 ||
        !sender_wait(s, &s->player_state, AGORAISH_PLAYER_STATE_PLAYING, &s->player_failed)) {
        fprintf(stderr, "the player did not play (state %d, reason %d)\n", s->player_state, s->player_reason);
        return 1;
    }
    h->start = now_ms();
    ticks_until(h, h->start + WARMUP_MS, NULL);
    window_begin(w, publish ? "publish" : "play", h);
    mapi.player_position(s->v.base.engine, id, &position[0]);
    ticks_until(h, marks[w->a].wall + seconds * 1e3, w);
    mapi.player_position(s->v.base.engine, id, &position[1]);
    window_end(w, h);
    if (s->player_state != AGORAISH_PLAYER_STATE_PLAYING) {
        fprintf(stderr, "the player left PLAYING during the window (state %d, reason %d)\n", s->player_state,
                s->player_reason);
        return 1;
    }
    mapi.player_stop(s->v.base.engine, id);
    mapi.destroy_player(s->v.base.engine, id);
    return 0;
}

/* The recorder's pictures: frame k of the file at start + k / fps. */
typedef struct feeder {
    agoraish_engine_t *engine;
    const uint8_t *frames;
    size_t count;
    int width, height, fps;
    double start;
    volatile int stop;
    int pushed, failures;
} feeder;

static void *feed_pictures(void *arg) {
    feeder *x = arg;
    size_t luma = (size_t)x->width * (size_t)x->height, size = luma * 3 / 2;
    double period = 1000.0 / x->fps;
    unsigned long k;
    for (k = 0; !x->stop; k++) {
        const uint8_t *y = x->frames + (k % x->count) * size;
        agoraish_external_video_frame f;
        memset(&f, 0, sizeof f);
        f.struct_size = sizeof f;
        f.format = AGORAISH_VIDEO_PIXEL_I420;
        f.width = x->width;
        f.height = x->height;
        f.y_buffer = y;
        f.u_buffer = y + luma;
        f.v_buffer = y + luma + luma / 4;
        f.y_stride = x->width;
        f.u_stride = f.v_stride = x->width / 2;
        f.timestamp = (int64_t)(k * period);
        sleep_until_ms(x->start + (double)k * period);
        if (vapi.push_external_video_frame(x->engine, &f) != 0) x->failures++;
        x->pushed++;
    }
    return NULL;
}

/* The whole of a file in memory; NULL when it cannot be read. */
static void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    char *data;
    long n;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0) {
        if (f) fclose(f);
        return NULL;
    }
    if ((data = malloc((size_t)n)) && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return data;
}

int main(int argc, char **argv) {
    const char *lib, *log_dir, *mode;
    char log[4096], line[512];
    int url_pipe[2], control[2], results[2], pilot_hz = 0, publish = 0, nwindows = 0, i, status;
    pid_t child;
    char url[160];
    static sender s;
    host h;
    window w[2 * MAX_PAIRS + 1];
    int64_t position[2] = {0, 0};
    int mixing_position[MAX_PAIRS], pairs = 0, recorder_id = 0, code;
    feeder fd;
    pthread_t feeder_thread;
    FILE *rx;
    double stop_ms = 0;

    if (argc < 6 || (seconds = atof(argv[3])) < 1) {
        fprintf(stderr, "usage: media_cpu PATH LOG_DIR SECONDS player FILE publish|play PILOT_HZ\n"
                        "       media_cpu PATH LOG_DIR SECONDS recorder VIDEO.yuv AUDIO.pcm OUT.mp4\n"
                        "       media_cpu PATH LOG_DIR SECONDS mixing FILE.mp3 PILOT_HZ PAIRS\n");
        return 2;
    }
    lib = argv[1];
    log_dir = argv[2];
    mode = argv[4];
    if (strcmp(mode, "player") == 0 && argc == 8) {
        publish = strcmp(argv[6], "publish") == 0;
        pilot_hz = atoi(argv[7]);
    } else if (strcmp(mode, "mixing") == 0 && argc == 8 && (pairs = atoi(argv[7])) >= 1 && pairs <= MAX_PAIRS) {
        pilot_hz = atoi(argv[6]);
    } else if (!(strcmp(mode, "recorder") == 0 && argc == 8)) {
        fprintf(stderr, "media_cpu: unknown case or wrong arguments\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    alarm((unsigned)(3 * seconds) + 90);

    /* The server and the receiver, forked before this process loads the library. */
    if (pipe(url_pipe) != 0 || pipe(control) != 0 || pipe(results) != 0) return 1;
    snprintf(log, sizeof log, "%s/media_cpu_%s%s_receiver.log", log_dir, mode, publish ? "_publish" : "");
    if ((child = fork()) == 0) {
        close(url_pipe[0]);
        close(control[1]);
        close(results[0]);
        alarm((unsigned)(3 * seconds) + 90);
        _exit(server_receiver_child(lib, log, pilot_hz, url_pipe[1], control[0], results[1]));
    }
    close(url_pipe[1]);
    close(control[0]);
    close(results[1]);
    if (child < 0 || read_line(url_pipe[0], url, sizeof url) != 0) {
        fprintf(stderr, "the server and receiver process did not start\n");
        return 1;
    }
    close(url_pipe[0]);
    control_fd = control[1];

    if (load_media_api(lib) != 0) return 1;
    measured = &s;
    memset(&h, 0, sizeof h);
    h.pilot_hz = pilot_hz;
    snprintf(log, sizeof log, "%s/media_cpu_%s%s.log", log_dir, mode, publish ? "_publish" : "");
    memset(&fd, 0, sizeof fd);

    if (strcmp(mode, "player") == 0) {
        if (!sender_create(&s, url, log, 1, 0, 1280, 720, 30, 1710)) return 1;
        h.engine = s.v.base.engine;
        if (run_player(&s, &h, argv[5], publish, &w[0], position) != 0) return 1;
        nwindows = 1;
    } else if (strcmp(mode, "recorder") == 0) {
        agoraish_recorder_stream_info info;
        agoraish_media_recorder_observer obs;
        agoraish_media_recorder_configuration rc;
        size_t vbytes = 0, abytes = 0, frame_bytes = 640 * 360 * 3 / 2;
        uint8_t *video = read_file(argv[5], &vbytes);
        int16_t *audio = read_file(argv[6], &abytes);
        if (!video || !audio || vbytes < frame_bytes || abytes < FRAME * sizeof(int16_t)) {
            fprintf(stderr, "cannot read %s or %s\n", argv[5], argv[6]);
            return 1;
        }
        h.pcm = audio;
        h.pcm_frames = abytes / (FRAME * sizeof(int16_t));
        if (!sender_create(&s, url, log, 1, 1, 640, 360, 15, 400)) return 1;
        h.engine = s.v.base.engine;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        info.channel_id = CHANNEL;
        info.uid = 0;
        memset(&obs, 0, sizeof obs);
        obs.struct_size = sizeof obs;
        obs.user_data = &s;
        obs.on_recorder_state_changed = on_recorder_state;
        if ((code = mapi.create_recorder(h.engine, &info, &recorder_id)) != 0 ||
            (code = mapi.recorder_observer(h.engine, recorder_id, &obs)) != 0) {
            fprintf(stderr, "cannot create the media recorder (%d)\n", code);
            return 1;
        }
        if (join_and_wait(&s, NULL) != 0) return 1;
        fd.engine = h.engine;
        fd.frames = video;
        fd.count = vbytes / frame_bytes;
        fd.width = 640;
        fd.height = 360;
        fd.fps = 15;
        h.start = fd.start = now_ms() + 10;
        if (pthread_create(&feeder_thread, NULL, feed_pictures, &fd) != 0) return 1;
        ticks_until(&h, h.start + WARMUP_MS, NULL);
        window_begin(&w[0], "off0", &h);
        ticks_until(&h, marks[w[0].a].wall + seconds * 500, &w[0]);
        window_end(&w[0], &h);
        memset(&rc, 0, sizeof rc);
        rc.struct_size = sizeof rc;
        rc.storage_path = argv[7];
        rc.container_format = 1;
        rc.stream_type = AGORAISH_MEDIA_RECORDER_STREAM_BOTH;
        rc.max_duration_ms = (int)(seconds * 1e3) + 60000;
        rc.width = 640;
        rc.height = 360;
        rc.fps = 15;
        rc.sample_rate = RATE;
        rc.channel_num = 1;
        window_begin(&w[1], "on0", &h);
        if ((code = mapi.start_recording(h.engine, recorder_id, &rc)) != 0) {
            fprintf(stderr, "start_recording returned %d\n", code);
            return 1;
        }
        ticks_until(&h, marks[w[1].a].wall + seconds * 1e3, &w[1]);
        window_threads(&w[1]);
        stop_ms = now_ms();
        if ((code = mapi.stop_recording(h.engine, recorder_id)) != 0) {
            fprintf(stderr, "stop_recording returned %d\n", code);
            return 1;
        }
        stop_ms = now_ms() - stop_ms;
        window_end(&w[1], &h);
        ticks_until(&h, marks[w[1].b].wall + 100, NULL);
        window_begin(&w[2], "off1", &h);
        ticks_until(&h, marks[w[2].a].wall + seconds * 500, &w[2]);
        window_end(&w[2], &h);
        fd.stop = 1;
        pthread_join(feeder_thread, NULL);
        sender_wait(&s, &s.recorder_stops, 1, &s.recorder_errors);
        mapi.destroy_recorder(h.engine, recorder_id);
        nwindows = 3;
        if (h.push_failures || fd.failures || s.recorder_starts != 1 || s.recorder_errors) {
            fprintf(stderr, "audio push failures %d, picture push failures %d, recorder starts %d stops %d errors %d "
                            "(last state %d reason %d)\n", h.push_failures, fd.failures, s.recorder_starts,
                    s.recorder_stops, s.recorder_errors, s.recorder_state, s.recorder_reason);
            return 1;
        }
    } else {
        size_t samples = (size_t)((WARMUP_MS / 1e3 + 2 * seconds + 4) * RATE) / FRAME * FRAME;
        int16_t *speech = malloc(samples * sizeof *speech);
        if (!speech) return 1;
        make_speech(speech, samples, RATE, 42);
        h.pcm = speech;
        h.pcm_frames = samples / FRAME;
        if (!sender_create(&s, url, log, 0, 0, 0, 0, 0, 0)) return 1;
        h.engine = s.v.base.engine;
        if (join_and_wait(&s, NULL) != 0) return 1;
        h.start = now_ms();
        /* The music opens (and its first 200 ms decode) during the warm-up, then pauses. */
        if ((code = mapi.start_mixing(h.engine, argv[5], 0, -1, 0)) != 0) {
            fprintf(stderr, "start_audio_mixing returned %d\n", code);
            return 1;
        }
        if (!sender_wait(&s, &s.mixing_playing, 1, NULL)) {
            fprintf(stderr, "audio mixing did not reach PLAYING (state %d, reason %d)\n", s.mixing_state,
                    s.mixing_reason);
            return 1;
        }
        ticks_until(&h, h.start + WARMUP_MS / 2, NULL);
        if ((code = mapi.pause_mixing(h.engine)) != 0) {
            fprintf(stderr, "pause_audio_mixing returned %d\n", code);
            return 1;
        }
        ticks_until(&h, h.start + WARMUP_MS, NULL);
        /* off0 on0 off1 on1 ... on<pairs-1> off<pairs>: SECONDS paused and SECONDS playing, interleaved. */
        for (i = 0; i <= pairs; i++) {
            window *off = &w[nwindows++], *on;
            window_begin(off, OFF_NAMES[i], &h);
            ticks_until(&h, marks[off->a].wall + seconds * 1e3 / (pairs + 1), off);
            window_end(off, &h);
            if (i == pairs) break;
            on = &w[nwindows++];
            window_begin(on, ON_NAMES[i], &h);
            if ((code = mapi.resume_mixing(h.engine)) != 0) {
                fprintf(stderr, "resume_audio_mixing returned %d\n", code);
                return 1;
            }
            ticks_until(&h, marks[on->a].wall + seconds * 1e3 / pairs, on);
            mixing_position[i] = mapi.mixing_position(h.engine);
            if ((code = mapi.pause_mixing(h.engine)) != 0) {
                fprintf(stderr, "pause_audio_mixing returned %d (state %d, reason %d)\n", code, s.mixing_state,
                        s.mixing_reason);
                return 1;
            }
            window_end(on, &h);
        }
        mapi.stop_mixing(h.engine);
        if (h.push_failures || s.mixing_playing < pairs + 1) {
            fprintf(stderr, "audio push failures %d; mixing reached PLAYING %d times (last state %d reason %d)\n",
                    h.push_failures, s.mixing_playing, s.mixing_state, s.mixing_reason);
            return 1;
        }
    }

    /* The receiver's counters at each mark. */
    close(control_fd);
    if (!(rx = fdopen(results[0], "r"))) return 1;
    for (i = 0; i < nmarks && fgets(line, sizeof line, rx); i++) {
        mark *m = &marks[i];
        if (sscanf(line, "%ld %ld %ld %lf %lf %d %d", &m->rx_rendered, &m->rx_frames, &m->rx_voiced, &m->rx_energy,
                   &m->rx_pilot, &m->rx_width, &m->rx_height) != 7) break;
    }
    fclose(rx);
    waitpid(child, &status, 0);
    if (i != nmarks) {
        fprintf(stderr, "the receiver reported %d of %d marks\n", i, nmarks);
        return 1;
    }

    printf("{\"case\": \"%s\", \"seconds\": %.1f, \"warmup_ms\": %.0f, \"windows\": {\n", mode, seconds, WARMUP_MS);
    for (i = 0; i < nwindows; i++) print_window(&w[i], &h, i == nwindows - 1);
    printf("}, ");
    pthread_mutex_lock(&s.v.base.mutex);
    print_local_video(&s);
    printf(", \"rtc\": {\"reports\": %d, \"tx_kbps\": %u, \"tx_video_kbps\": %u, \"tx_audio_kbps\": %u, "
           "\"cpu_app_percent\": %.1f}", s.v.stats_count, s.v.rtc.tx_kbitrate, s.v.rtc.tx_video_kbitrate,
           s.v.rtc.tx_audio_kbitrate, s.v.rtc.cpu_app_usage);
    if (strcmp(mode, "player") == 0) {
        printf(", \"publish\": %d, \"position_ms\": [%lld, %lld]", publish, (long long)position[0],
               (long long)position[1]);
    } else if (strcmp(mode, "recorder") == 0) {
        printf(", \"pictures_pushed\": %d, \"stop_ms\": %.1f, \"recorder\": {\"starts\": %d, \"stops\": %d, "
               "\"errors\": %d, \"state\": %d, \"reason\": %d}",
               fd.pushed, stop_ms, s.recorder_starts, s.recorder_stops, s.recorder_errors, s.recorder_state,
               s.recorder_reason);
    } else {
        printf(", \"pairs\": %d, \"mixing_position_ms\": [", pairs);
        for (i = 0; i < pairs; i++) printf("%s%d", i ? ", " : "", mixing_position[i]);
        printf("], \"mixing\": {\"playing\": %d, \"state\": %d, \"reason\": %d}", s.mixing_playing,
               s.mixing_state, s.mixing_reason);
    }
    pthread_mutex_unlock(&s.v.base.mutex);
    printf(", \"pull_failures\": %d}\n", h.pull_failures);
    fflush(stdout);
    api.engine_release(s.v.base.engine, 1);
    return 0;
}
