/*
 * video_call.c — video between two engines as a C host sees it, through
 * include/agoraish.h only: an embedded channel server and two engines in one
 * process.
 *
 *   - A (uid 1) sets the encoder to 320x240 at 15 fps and 600 Kbps, turns
 *     video and the external source on, and pushes I420 pictures in real time
 *     (15 per second), each with its number drawn into it as 8 bars along the
 *     top over a moving gradient; the planes have row padding (strides larger
 *     than the width);
 *   - B (uid 2) turns video on and binds a render sink to uid 1 before
 *     joining. The sink runs on B's video thread (agoraish-vid<n>), gets B's
 *     handle and its user_data, and reads the number and the luma PSNR
 *     against the picture that was pushed;
 *   - after a warm-up (pictures until the first one is rendered), 45 pictures
 *     are pushed: at least 40 of them are rendered, in order, at 320x240,
 *     with a luma PSNR above 30 dB; B got on_first_remote_video_decoded(1,
 *     320, 240) once, A on_first_local_video_frame_published;
 *   - unbinding (setup_remote_video with on_frame NULL) stops the pictures:
 *     none reaches the sink after the call returns, while A keeps pushing;
 *   - a sink that unbinds itself from inside its third picture gets no fourth;
 *   - A pushes 160x240 pictures: B gets on_video_size_changed(1, 160, 240, 0)
 *     and its rebound sink renders that size.
 *
 * Under valgrind (RUNNING_ON_VALGRIND) the engines run tens of times slower
 * than real time, so the call cannot keep 15 pictures per second: 15
 * pictures are measured instead of 45, pushed at most 15 per second, and of
 * them at least one must be rendered (rather than 40 of 45); order, size,
 * quality, the events, unbinding and the self-unbinding sink are checked as
 * in the normal run, with longer waits.
 *
 * Waits use a condition variable with a deadline, never sleep-polling (the
 * only sleeps pace the pushes). Exit status 0 when every check passes;
 * otherwise one line per failed check on stderr and exit status 1. It runs
 * clean under `valgrind --leak-check=full --errors-for-leak-kinds=definite`.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <valgrind/valgrind.h>

#define TEST_NAME "video_call"
#include "test_support.h"

#define SENDER 1u
#define RECEIVER 2u
#define WIDTH 320
#define HEIGHT 240
#define FPS 15
#define BITRATE 600
/** Row padding of the pushed planes: strides larger than the width. */
#define PAD 32
/** Pictures measured in the normal run, and how many of them must be rendered. */
#define MEASURED 45
#define MEASURED_MIN 40
/** Pictures measured under valgrind (see the header). */
#define MEASURED_SLOW 15
/** Pictures kept by the recorder. */
#define MAX_RENDERED 512

/** Whether this runs under valgrind (see the header). */
static int slow;
/** How long one wait for an event or a picture may take, in seconds. */
static int wait_seconds = 10;

/* ------------------------------------------------------------------------ */
/* Pictures                                                                  */
/* ------------------------------------------------------------------------ */

/** Picture `n` (0..255) of `width` x `height` into I420 planes with the given strides. */
static void draw_picture(int n, int width, int height, unsigned char *y, int y_stride, unsigned char *u,
                         unsigned char *v, int uv_stride) {
    int row, col, bit;
    const int bar = width / 8;
    n &= 0xff;
    for (row = 0; row < height; row++) {
        for (col = 0; col < width; col++) y[row * y_stride + col] = (unsigned char)(60 + (col + 2 * n + row) % 120);
    }
    for (bit = 0; bit < 8; bit++) {
        const unsigned char value = (unsigned char)(n >> bit & 1 ? 16 : 235);
        for (row = 0; row < 24; row++) memset(y + row * y_stride + bit * bar + 4, value, (size_t)(bar - 8));
    }
    for (row = 0; row < height / 2; row++) {
        memset(u + row * uv_stride, 128, (size_t)(width / 2));
        memset(v + row * uv_stride, 128, (size_t)(width / 2));
    }
}

/** The number drawn into a picture: its 8 bars read in the middle of row 12. */
static int number_of(const unsigned char *y, int stride, int width) {
    int bit, n = 0;
    const int bar = width / 8;
    for (bit = 0; bit < 8; bit++) {
        if (y[12 * stride + bit * bar + bar / 2] < 128) n |= 1 << bit;
    }
    return n;
}

/** Luma PSNR of a rendered plane against picture `n`, drawn into `scratch` (tight, width x height). */
static double luma_psnr(const unsigned char *y, int stride, int width, int height, int n, unsigned char *scratch,
                        unsigned char *chroma) {
    double squared = 0;
    int row, col;
    draw_picture(n, width, height, scratch, width, chroma, chroma, width / 2);
    for (row = 0; row < height; row++) {
        for (col = 0; col < width; col++) {
            const double d = (double)y[row * stride + col] - (double)scratch[row * width + col];
            squared += d * d;
        }
    }
    squared /= (double)width * height;
    return squared == 0 ? 99.0 : 10.0 * log10(255.0 * 255.0 / squared);
}

/* ------------------------------------------------------------------------ */
/* B's render sink                                                           */
/* ------------------------------------------------------------------------ */

typedef struct {
    int number; /* -1 when the size is not 320 wide */
    int width, height;
    double psnr;
} rendered_t;

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    /* Guarded by mutex. */
    agoraish_engine_t *engine; /* the engine the sink belongs to */
    int count;
    rendered_t frames[MAX_RENDERED];
    int wrong_uid, wrong_engine, wrong_thread, bad_frame;
    int unbind_after;   /* > 0: unbinds itself from inside its unbind_after-th picture */
    int unbind_rc;      /* what that unbind returned */
    /* Only touched on the video thread. */
    unsigned char *scratch, *chroma;
} sink_t;

static void sink_init(sink_t *s, agoraish_engine_t *engine) {
    memset(s, 0, sizeof *s);
    monitor_init(&s->mutex, &s->cond);
    s->engine = engine;
    s->scratch = malloc((size_t)WIDTH * HEIGHT);
    s->chroma = malloc((size_t)WIDTH * HEIGHT / 4);
}

static void sink_destroy(sink_t *s) {
    free(s->scratch);
    free(s->chroma);
    monitor_destroy(&s->mutex, &s->cond);
}

static int on_video_thread(void) {
    char name[32] = "";
    FILE *f = fopen("/proc/thread-self/comm", "r");
    if (!f) return 1; /* no procfs: not checked */
    if (!fgets(name, sizeof name, f)) name[0] = '\0';
    fclose(f);
    return strncmp(name, "agoraish-vid", 12) == 0;
}

static void on_frame(agoraish_engine_t *engine, void *user_data, uint32_t uid, const agoraish_video_frame *frame) {
    sink_t *s = user_data;
    rendered_t r;
    int ok, unbind = 0;
    memset(&r, 0, sizeof r);
    r.number = -1;
    ok = frame != NULL && frame->type == AGORAISH_VIDEO_PIXEL_I420 && frame->y_buffer && frame->u_buffer &&
         frame->v_buffer && frame->y_stride >= frame->width && frame->u_stride >= frame->width / 2 &&
         frame->v_stride >= frame->width / 2 && frame->rotation == 0 && frame->width > 0 && frame->height > 0;
    if (ok) {
        r.width = frame->width;
        r.height = frame->height;
        if (frame->width == WIDTH && frame->height == HEIGHT) {
            r.number = number_of(frame->y_buffer, frame->y_stride, frame->width);
            r.psnr = luma_psnr(frame->y_buffer, frame->y_stride, WIDTH, HEIGHT, r.number, s->scratch, s->chroma);
        }
    }
    pthread_mutex_lock(&s->mutex);
    if (!ok) s->bad_frame++;
    if (uid != SENDER) s->wrong_uid++;
    if (engine != s->engine) s->wrong_engine++;
    if (!on_video_thread()) s->wrong_thread++;
    if (s->count < MAX_RENDERED) s->frames[s->count] = r;
    s->count++;
    unbind = s->unbind_after > 0 && s->count == s->unbind_after;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->mutex);
    if (unbind) {
        agoraish_video_canvas canvas;
        int rc;
        memset(&canvas, 0, sizeof canvas);
        canvas.struct_size = sizeof canvas;
        canvas.uid = SENDER;
        rc = agoraish_engine_setup_remote_video(engine, &canvas); /* from inside the sink: does not wait */
        pthread_mutex_lock(&s->mutex);
        s->unbind_rc = rc;
        pthread_mutex_unlock(&s->mutex);
    }
}

static int sink_count(sink_t *s) { return read_count(&s->mutex, &s->count); }

/** Waits until the sink has rendered `n` pictures in all; returns the count then. */
static int sink_wait(sink_t *s, int n, int seconds) { return wait_count(&s->mutex, &s->cond, &s->count, n, seconds); }

static int bind_sink(agoraish_engine_t *engine, sink_t *s) {
    agoraish_video_canvas canvas;
    memset(&canvas, 0, sizeof canvas);
    canvas.struct_size = sizeof canvas;
    canvas.uid = SENDER;
    canvas.on_frame = s ? on_frame : NULL;
    canvas.user_data = s;
    return agoraish_engine_setup_remote_video(engine, &canvas);
}

/* ------------------------------------------------------------------------ */
/* Events of both engines                                                    */
/* ------------------------------------------------------------------------ */

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    /* Guarded by mutex. */
    int joins, users_joined, published, decoded, size_changed;
    uint32_t decoded_uid;
    int decoded_width, decoded_height, decoded_elapsed, published_elapsed;
    uint32_t size_uid;
    int size_width, size_height, size_rotation;
} events_t;

static void ev_join(agoraish_engine_t *e, void *ud, const char *channel, uint32_t uid, int elapsed) {
    events_t *ev = ud;
    (void)e, (void)channel, (void)uid, (void)elapsed;
    count_up(&ev->mutex, &ev->cond, &ev->joins);
}

static void ev_user_joined(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    events_t *ev = ud;
    (void)e, (void)uid, (void)elapsed;
    count_up(&ev->mutex, &ev->cond, &ev->users_joined);
}

static void ev_published(agoraish_engine_t *e, void *ud, int elapsed) {
    events_t *ev = ud;
    (void)e;
    pthread_mutex_lock(&ev->mutex);
    ev->published_elapsed = elapsed;
    pthread_mutex_unlock(&ev->mutex);
    count_up(&ev->mutex, &ev->cond, &ev->published);
}

static void ev_decoded(agoraish_engine_t *e, void *ud, uint32_t uid, int width, int height, int elapsed) {
    events_t *ev = ud;
    (void)e;
    pthread_mutex_lock(&ev->mutex);
    ev->decoded_uid = uid;
    ev->decoded_width = width;
    ev->decoded_height = height;
    ev->decoded_elapsed = elapsed;
    pthread_mutex_unlock(&ev->mutex);
    count_up(&ev->mutex, &ev->cond, &ev->decoded);
}

static void ev_size_changed(agoraish_engine_t *e, void *ud, uint32_t uid, int width, int height, int rotation) {
    events_t *ev = ud;
    (void)e;
    pthread_mutex_lock(&ev->mutex);
    ev->size_uid = uid;
    ev->size_width = width;
    ev->size_height = height;
    ev->size_rotation = rotation;
    pthread_mutex_unlock(&ev->mutex);
    count_up(&ev->mutex, &ev->cond, &ev->size_changed);
}

static agoraish_event_handler video_handler(events_t *ev) {
    agoraish_event_handler handler = empty_handler(ev);
    handler.on_join_channel_success = ev_join;
    handler.on_user_joined = ev_user_joined;
    handler.on_first_local_video_frame_published = ev_published;
    handler.on_first_remote_video_decoded = ev_decoded;
    handler.on_video_size_changed = ev_size_changed;
    return handler;
}

static int ev_wait(events_t *ev, int *counter, int n) {
    return wait_count(&ev->mutex, &ev->cond, counter, n, wait_seconds) >= n;
}

/* ------------------------------------------------------------------------ */
/* A's pictures                                                              */
/* ------------------------------------------------------------------------ */

typedef struct {
    agoraish_engine_t *engine;
    unsigned char *y, *u, *v; /* padded planes of the largest size */
    int next;                 /* the next picture's number (from 0, as pushed) */
    double start_ms;          /* when picture 0 was due */
    int failures, last_rc;
} pusher_t;

/** Pushes the next picture at `width` x `height`, on time for 15 per second (sleeping until it is due). */
static void push_next(pusher_t *p, int width, int height) {
    agoraish_external_video_frame frame;
    const double due = p->start_ms + (double)p->next * 1000.0 / FPS;
    const double now = now_ms();
    int rc;
    if (due > now) {
        const double wait = due - now;
        struct timespec ts;
        ts.tv_sec = (time_t)(wait / 1000);
        ts.tv_nsec = (long)((wait - (double)ts.tv_sec * 1000) * 1e6);
        nanosleep(&ts, NULL);
    } else if (now - due > 1000) {
        p->start_ms = now - (double)p->next * 1000.0 / FPS; /* far behind (valgrind): do not rush */
    }
    draw_picture(p->next, width, height, p->y, width + PAD, p->u, p->v, width / 2 + PAD);
    memset(&frame, 0, sizeof frame);
    frame.struct_size = sizeof frame;
    frame.format = AGORAISH_VIDEO_PIXEL_I420;
    frame.width = width;
    frame.height = height;
    frame.y_buffer = p->y;
    frame.u_buffer = p->u;
    frame.v_buffer = p->v;
    frame.y_stride = width + PAD;
    frame.u_stride = frame.v_stride = width / 2 + PAD;
    frame.timestamp = (int64_t)p->next * 1000 / FPS;
    rc = agoraish_engine_push_external_video_frame(p->engine, &frame);
    if (rc != 0) {
        p->failures++;
        p->last_rc = rc;
    }
    p->next++;
}

/** Pushes pictures until `s` has rendered `n` in all or `seconds` passed; returns whether it did. */
static int push_until_rendered(pusher_t *p, sink_t *s, int n, int seconds, int width, int height) {
    const double deadline = now_ms() + seconds * 1000.0;
    while (sink_count(s) < n) {
        if (now_ms() > deadline) return 0;
        push_next(p, width, height);
    }
    return 1;
}

/* ------------------------------------------------------------------------ */

int main(void) {
    agoraish_server_t *server = NULL;
    agoraish_engine_t *a = NULL, *b = NULL;
    events_t ev_a, ev_b;
    agoraish_event_handler handler_a = video_handler(&ev_a), handler_b = video_handler(&ev_b);
    sink_t sink, self_unbinding, resized;
    pusher_t pusher;
    agoraish_video_encoder_configuration config;
    char url[128];
    size_t len = sizeof url;
    int measured, first, i, rendered, in_order = 1, right_size = 1, start;
    double worst = 99.0;

    slow = RUNNING_ON_VALGRIND != 0;
    if (slow) wait_seconds = 60;
    measured = slow ? MEASURED_SLOW : MEASURED;
    if (!make_tmpdir("agoraish-video")) return 1;
    memset(&ev_a, 0, sizeof ev_a);
    memset(&ev_b, 0, sizeof ev_b);
    monitor_init(&ev_a.mutex, &ev_a.cond);
    monitor_init(&ev_b.mutex, &ev_b.cond);
    memset(&pusher, 0, sizeof pusher);
    pusher.y = calloc((size_t)(WIDTH + PAD) * HEIGHT, 1);
    pusher.u = calloc((size_t)(WIDTH / 2 + PAD) * HEIGHT / 2, 1);
    pusher.v = calloc((size_t)(WIDTH / 2 + PAD) * HEIGHT / 2, 1);
    CHECK(pusher.y && pusher.u && pusher.v, "allocate the planes");

    server = create_server(0, NULL);
    CHECK(server != NULL && agoraish_server_start(server) == 0 && agoraish_server_get_url(server, url, &len) == 0,
          "start the embedded server");
    if (!server || !pusher.y || !pusher.u || !pusher.v) goto done;
    a = new_engine("0123456789abcdef0123456789abcdef", &handler_a, url, "a.log");
    b = new_engine("0123456789abcdef0123456789abcdef", &handler_b, url, "b.log");
    CHECK(a != NULL && b != NULL, "create engines A and B: last error %d", agoraish_get_last_error());
    if (!a || !b) goto done;
    sink_init(&sink, b);
    sink_init(&self_unbinding, b);
    sink_init(&resized, b);
    pusher.engine = a;

    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.width = WIDTH;
    config.height = HEIGHT;
    config.frame_rate = FPS;
    config.bitrate = BITRATE;
    config.min_bitrate = -1;
    config.codec_type = AGORAISH_VIDEO_CODEC_VP8;
    /* The sizes checked below are the pushed ones: under a slow run (valgrind) the
       estimate may fall, and then only the frame rate may give. */
    config.degradation_preference = AGORAISH_DEGRADATION_PREFERENCE_MAINTAIN_RESOLUTION;
    CHECK_RC(agoraish_engine_set_video_encoder_configuration(a, &config), 0, "A set_video_encoder_configuration");
    CHECK_RC(agoraish_engine_enable_video(a), 0, "A enable_video");
    CHECK_RC(agoraish_engine_set_external_video_source(a, 1), 0, "A set_external_video_source");
    CHECK_RC(agoraish_engine_enable_video(b), 0, "B enable_video");
    CHECK_RC(bind_sink(b, &sink), 0, "B setup_remote_video(1) before the call");
    CHECK_RC(agoraish_engine_join_channel(a, NULL, "video-call", NULL, SENDER), 0, "A join_channel");
    CHECK_RC(agoraish_engine_join_channel(b, NULL, "video-call", NULL, RECEIVER), 0, "B join_channel");
    CHECK(ev_wait(&ev_a, &ev_a.joins, 1) && ev_wait(&ev_b, &ev_b.joins, 1), "both joined");
    CHECK(ev_wait(&ev_b, &ev_b.users_joined, 1), "B sees A");

    /* Warm-up: pictures until the media path carries them. */
    pusher.start_ms = now_ms();
    {
        const int warmed = push_until_rendered(&pusher, &sink, 1, wait_seconds, WIDTH, HEIGHT);
        CHECK(warmed, "no picture rendered after %d pushed in %.1f s", pusher.next, (now_ms() - pusher.start_ms) / 1000);
        printf("video_call: the first picture rendered after %d pushed in %.1f s\n", pusher.next,
               (now_ms() - pusher.start_ms) / 1000);
    }

    /* The measurement: pictures first .. first + measured - 1. */
    first = pusher.next;
    start = sink_count(&sink);
    for (i = 0; i < measured; i++) push_next(&pusher, WIDTH, HEIGHT);
    {
        /* Until the last one is rendered, or a picture later than it (one more second of pushes at most). */
        const double deadline = now_ms() + (slow ? 20000.0 : 2000.0);
        int last = -1;
        while (now_ms() < deadline) {
            int n = sink_wait(&sink, sink_count(&sink) + 1, 1);
            pthread_mutex_lock(&sink.mutex);
            last = n > 0 && n <= MAX_RENDERED ? sink.frames[n - 1].number : -1;
            pthread_mutex_unlock(&sink.mutex);
            if (last >= 0 && ((last - first) & 0xff) >= measured - 1 && ((last - first) & 0xff) < 128) break;
        }
    }
    pthread_mutex_lock(&sink.mutex);
    rendered = 0;
    {
        int previous = -1;
        for (i = start; i < sink.count && i < MAX_RENDERED; i++) {
            const rendered_t *r = &sink.frames[i];
            const int offset = r->number >= 0 ? ((r->number - first) & 0xff) : -1;
            if (offset < 0 || offset >= measured) continue; /* in flight from the warm-up, or later */
            rendered++;
            if (offset <= previous) in_order = 0;
            previous = offset;
            if (r->width != WIDTH || r->height != HEIGHT) right_size = 0;
            if (r->psnr < worst) worst = r->psnr;
        }
    }
    CHECK(sink.bad_frame == 0 && sink.wrong_uid == 0 && sink.wrong_engine == 0,
          "every picture well-formed, of uid 1, with B's handle: %d malformed, %d other uids, %d other engines",
          sink.bad_frame, sink.wrong_uid, sink.wrong_engine);
    CHECK(sink.wrong_thread == 0, "%d pictures rendered on a thread not named agoraish-vid<n>", sink.wrong_thread);
    pthread_mutex_unlock(&sink.mutex);
    /* Under valgrind the encoder runs at a frame or two a second and drops what its rate buffer
       cannot hold, so the measured pictures may all be dropped; those that render must be right. */
    CHECK(rendered >= (slow ? 1 : MEASURED_MIN), "rendered %d of the %d pictures pushed", rendered, measured);
    CHECK(in_order, "the pictures arrived out of order");
    CHECK(right_size, "a picture arrived at another size than 320x240");
    CHECK(rendered == 0 || worst > 30.0, "luma PSNR at %d Kbps: worst %.1f dB", BITRATE, worst);
    CHECK(pusher.failures == 0, "%d pushes failed (last %d)", pusher.failures, pusher.last_rc);
    printf("video_call: %d of %d pictures rendered, worst luma PSNR %.1f dB%s\n", rendered, measured, worst,
           slow ? " (valgrind)" : "");

    /* Events. */
    pthread_mutex_lock(&ev_b.mutex);
    CHECK(ev_b.decoded == 1 && ev_b.decoded_uid == SENDER && ev_b.decoded_width == WIDTH &&
              ev_b.decoded_height == HEIGHT && ev_b.decoded_elapsed >= 0,
          "B on_first_remote_video_decoded: %d times, last (%u, %d, %d, %d)", ev_b.decoded, ev_b.decoded_uid,
          ev_b.decoded_width, ev_b.decoded_height, ev_b.decoded_elapsed);
    CHECK(ev_b.size_changed == 0, "B on_video_size_changed %d times at one size", ev_b.size_changed);
    pthread_mutex_unlock(&ev_b.mutex);
    pthread_mutex_lock(&ev_a.mutex);
    CHECK(ev_a.published == 1 && ev_a.published_elapsed >= 0,
          "A on_first_local_video_frame_published: %d times, elapsed %d", ev_a.published, ev_a.published_elapsed);
    CHECK(ev_a.decoded == 0, "A received video it was never sent");
    pthread_mutex_unlock(&ev_a.mutex);

    /* Unbinding stops the pictures at once. */
    CHECK_RC(bind_sink(b, NULL), 0, "B setup_remote_video(1, NULL)");
    {
        const int stopped = sink_count(&sink);
        for (i = 0; i < (slow ? FPS / 2 : FPS); i++) push_next(&pusher, WIDTH, HEIGHT);
        CHECK(sink_wait(&sink, stopped + 1, 1) == stopped, "%d pictures reached the sink after it was unbound",
              sink_count(&sink) - stopped);
    }

    /* A sink that unbinds itself from inside its third picture gets no fourth. */
    pthread_mutex_lock(&self_unbinding.mutex);
    self_unbinding.unbind_after = 3;
    pthread_mutex_unlock(&self_unbinding.mutex);
    CHECK_RC(bind_sink(b, &self_unbinding), 0, "B binds a sink that unbinds itself");
    CHECK(push_until_rendered(&pusher, &self_unbinding, 3, wait_seconds, WIDTH, HEIGHT),
          "the self-unbinding sink rendered %d pictures", sink_count(&self_unbinding));
    for (i = 0; i < (slow ? 3 : FPS / 2); i++) push_next(&pusher, WIDTH, HEIGHT);
    CHECK(sink_wait(&self_unbinding, 4, 1) == 3, "the sink that unbound itself rendered %d pictures",
          sink_count(&self_unbinding));
    CHECK(read_count(&self_unbinding.mutex, &self_unbinding.unbind_rc) == 0, "unbinding from inside the sink returned %d",
          read_count(&self_unbinding.mutex, &self_unbinding.unbind_rc));

    /* A new size: the size event, and the sink renders it. */
    CHECK_RC(bind_sink(b, &resized), 0, "B binds a sink again");
    {
        const int changes = read_count(&ev_b.mutex, &ev_b.size_changed);
        const double deadline = now_ms() + wait_seconds * 1000.0;
        while (read_count(&ev_b.mutex, &ev_b.size_changed) == changes && now_ms() < deadline) {
            push_next(&pusher, WIDTH / 2, HEIGHT);
        }
        pthread_mutex_lock(&ev_b.mutex);
        CHECK(ev_b.size_changed == changes + 1 && ev_b.size_uid == SENDER && ev_b.size_width == WIDTH / 2 &&
                  ev_b.size_height == HEIGHT && ev_b.size_rotation == 0,
              "B on_video_size_changed: %d times, last (%u, %d, %d, %d)", ev_b.size_changed - changes, ev_b.size_uid,
              ev_b.size_width, ev_b.size_height, ev_b.size_rotation);
        CHECK(ev_b.decoded == 1, "a new size is not a new stream: on_first_remote_video_decoded %d times", ev_b.decoded);
        pthread_mutex_unlock(&ev_b.mutex);
        rendered = sink_count(&resized);
        CHECK(push_until_rendered(&pusher, &resized, rendered + 2, wait_seconds, WIDTH / 2, HEIGHT),
              "no picture rendered at the new size");
        pthread_mutex_lock(&resized.mutex);
        i = resized.count - 1;
        CHECK(i >= 0 && i < MAX_RENDERED && resized.frames[i].width == WIDTH / 2 && resized.frames[i].height == HEIGHT,
              "the last picture rendered is %dx%d", i >= 0 && i < MAX_RENDERED ? resized.frames[i].width : -1,
              i >= 0 && i < MAX_RENDERED ? resized.frames[i].height : -1);
        pthread_mutex_unlock(&resized.mutex);
    }
    CHECK_RC(bind_sink(b, NULL), 0, "B unbinds the last sink");
    CHECK_RC(agoraish_engine_leave_channel(a), 0, "A leave_channel");
    CHECK_RC(agoraish_engine_leave_channel(b), 0, "B leave_channel");

done:
    if (a) CHECK_RC(agoraish_engine_release(a, 1), 0, "release A");
    if (b) CHECK_RC(agoraish_engine_release(b, 1), 0, "release B");
    if (a && b) {
        sink_destroy(&sink);
        sink_destroy(&self_unbinding);
        sink_destroy(&resized);
    }
    if (server) CHECK_RC(agoraish_server_release(server), 0, "release the server");
    free(pusher.y);
    free(pusher.u);
    free(pusher.v);
    monitor_destroy(&ev_a.mutex, &ev_a.cond);
    monitor_destroy(&ev_b.mutex, &ev_b.cond);
    remove_tmpdir();
    return test_summary();
}
