/*
 * raw_video_data.c — Agora's RawVideoData case in C: a video frame observer
 * gets the raw pictures of the video path and draws on them.
 *
 *   register_video_frame_observer(POST_CAPTURER | PRE_ENCODER | PRE_RENDERER)
 *   -> join_channel
 *   -> on_capture_video_frame     each local picture as pushed: draws a white square that moves
 *   -> on_pre_encode_video_frame  each local picture as the encoder gets it (fitted to 480x270)
 *   -> on_render_video_frame      each remote picture before the view: turns it gray
 *   -> register_video_frame_observer(NULL) -> leave_channel -> release
 *
 * "local" observes. It pushes colourful 640x360 pictures from a thread named
 * "local-camera" (the engine calls the capture and pre-encode positions on
 * that thread) and sends them at 480x270. "remote", a second engine in the
 * same process, pushes colourful 320x240 pictures and shows what it receives
 * from local in a render sink, where it looks for the white square.
 *
 * Each callback may change the planes in place (the change is what is sent
 * or shown) and returns 1 to keep the picture or 0 to drop it: the capture
 * position here drops one picture in ten, which remote never receives. The
 * example reports, for each position, how many pictures it saw, their size
 * and the thread; where remote saw the square (it moves to the right); and
 * how much colour is left in what local shows of remote (none: the render
 * position turned it gray).
 *
 *   make hosts && build/examples/raw_video_data
 */
#define _GNU_SOURCE /* pthread_setname_np, pthread_getname_np */

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "raw-video-data"
#define LOCAL_UID 1001
#define REMOTE_UID 2002
#define FPS 15
#define CALL_MS 3000
#define SETTLE_MS 300
#define SQUARE 64 /* the square's side, in pixels of the captured picture */

/* ---- the observer's record of one position ------------------------------------ */

typedef struct {
    int pictures, dropped, width, height;
    char thread[16];
} position_t;

typedef struct {
    pthread_mutex_t mutex;
    /* Guarded by mutex. */
    position_t capture, pre_encode, render;
    int next_square_x; /* where the capture position draws the square next */
} observer_state_t;

static void note(observer_state_t *s, position_t *p, const agoraish_video_frame *f) {
    pthread_mutex_lock(&s->mutex);
    if (p->pictures == 0) pthread_getname_np(pthread_self(), p->thread, sizeof p->thread);
    p->pictures++;
    p->width = f->width;
    p->height = f->height;
    pthread_mutex_unlock(&s->mutex);
}

/* POST_CAPTURER, on the pushing thread: a white square that moves 6 pixels per
 * picture; every tenth picture is dropped (not sent). */
static int on_capture_video_frame(agoraish_engine_t *e, void *ud, agoraish_video_frame *f) {
    observer_state_t *s = ud;
    int x, row, keep;
    (void)e;
    note(s, &s->capture, f);
    pthread_mutex_lock(&s->mutex);
    x = s->next_square_x;
    s->next_square_x = (x + 6) % (f->width - SQUARE);
    keep = s->capture.pictures % 10 != 0;
    if (!keep) s->capture.dropped++;
    pthread_mutex_unlock(&s->mutex);
    for (row = (f->height - SQUARE) / 2; row < (f->height + SQUARE) / 2; row++) {
        memset(f->y_buffer + (size_t)row * (size_t)f->y_stride + x, 235, SQUARE);
    }
    for (row = (f->height - SQUARE) / 4; row < (f->height + SQUARE) / 4; row++) {
        memset(f->u_buffer + (size_t)row * (size_t)f->u_stride + x / 2, 128, SQUARE / 2);
        memset(f->v_buffer + (size_t)row * (size_t)f->v_stride + x / 2, 128, SQUARE / 2);
    }
    return keep;
}

/* PRE_ENCODER, on the pushing thread: the picture as the encoder gets it. */
static int on_pre_encode_video_frame(agoraish_engine_t *e, void *ud, agoraish_video_frame *f) {
    (void)e;
    note(ud, &((observer_state_t *)ud)->pre_encode, f);
    return 1;
}

/* PRE_RENDERER, on the engine's video thread: remote's picture turned gray. */
static int on_render_video_frame(agoraish_engine_t *e, void *ud, uint32_t uid, agoraish_video_frame *f) {
    int row;
    (void)e, (void)uid;
    note(ud, &((observer_state_t *)ud)->render, f);
    for (row = 0; row < (f->height + 1) / 2; row++) {
        memset(f->u_buffer + (size_t)row * (size_t)f->u_stride, 128, (size_t)(f->width + 1) / 2);
        memset(f->v_buffer + (size_t)row * (size_t)f->v_stride, 128, (size_t)(f->width + 1) / 2);
    }
    return 1;
}

/* ---- the views ---------------------------------------------------------------- */

typedef struct {
    const char *name;
    pthread_mutex_t mutex;
    /* Guarded by mutex. */
    int pictures, width, height;
    int with_square, first_x, last_x, moved_right, moved_left; /* the white square (remote's view) */
    double colour; /* the last picture's average |U - 128| + |V - 128| */
} view_t;

/* Where the white square is: the first column of 16 white pixels on the middle row; -1 if none. */
static int square_x(const agoraish_video_frame *f) {
    const uint8_t *row = f->y_buffer + (size_t)(f->height / 2) * (size_t)f->y_stride;
    int x, run = 0;
    for (x = 0; x < f->width; x++) {
        run = row[x] > 220 ? run + 1 : 0;
        if (run == 16) return x - 15;
    }
    return -1;
}

static double colour_of(const agoraish_video_frame *f) {
    long sum = 0;
    int row, col;
    for (row = 0; row < f->height / 2; row++) {
        for (col = 0; col < f->width / 2; col++) {
            sum += abs(f->u_buffer[row * f->u_stride + col] - 128) + abs(f->v_buffer[row * f->v_stride + col] - 128);
        }
    }
    return f->width > 1 && f->height > 1 ? (double)sum / ((f->width / 2) * (f->height / 2)) : 0;
}

static void on_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    view_t *v = ud;
    const int x = square_x(f);
    const double colour = colour_of(f);
    (void)e, (void)uid;
    pthread_mutex_lock(&v->mutex);
    if (v->pictures == 0) say(v->name, "first picture: uid %u, %dx%d", uid, f->width, f->height);
    v->pictures++;
    v->width = f->width;
    v->height = f->height;
    v->colour = colour;
    if (x >= 0) {
        if (v->with_square == 0) v->first_x = x;
        else if (x > v->last_x) v->moved_right++;
        else if (x < v->last_x) v->moved_left++; /* wrapped around */
        v->with_square++;
        v->last_x = x;
    }
    pthread_mutex_unlock(&v->mutex);
}

static int bind_view(agoraish_engine_t *engine, uint32_t uid, view_t *v) {
    agoraish_video_canvas canvas;
    memset(&canvas, 0, sizeof canvas);
    canvas.struct_size = sizeof canvas;
    canvas.uid = uid;
    canvas.on_frame = v ? on_frame : NULL;
    canvas.user_data = v;
    return agoraish_engine_setup_remote_video(engine, &canvas);
}

/* ---- one user's events ---------------------------------------------------------- */

static void on_first_remote_video_frame(agoraish_engine_t *e, void *ud, uint32_t uid, int width, int height,
                                        int elapsed) {
    example_user *u = ud;
    (void)e;
    say(u->name, "on_first_remote_video_frame uid %u, %dx%d, %d ms", uid, width, height, elapsed);
}

static agoraish_engine_t *create_user(example_user *u, const char *name, const char *server_url) {
    agoraish_event_handler handler;
    example_user_init(u, name);
    example_handler(&handler, u);
    handler.on_first_remote_video_frame = on_first_remote_video_frame;
    return example_create_engine(u, &handler, server_url);
}

/* ---- the "cameras" ---------------------------------------------------------------- */

typedef struct {
    agoraish_engine_t *engine;
    const char *name;
    int width, height;
    int pushed, refused;
} camera_t;

/* Colourful I420 pictures at 15 fps for CALL_MS: hue across, brightness down. */
static void *camera_thread(void *arg) {
    camera_t *c = arg;
    const size_t luma = (size_t)c->width * (size_t)c->height;
    uint8_t *planes = malloc(luma * 3 / 2);
    agoraish_external_video_frame frame;
    struct timespec start;
    int n, row, col;
    pthread_setname_np(pthread_self(), c->name);
    if (!planes) return NULL;
    for (row = 0; row < c->height; row++) {
        for (col = 0; col < c->width; col++) planes[row * c->width + col] = (uint8_t)(60 + 100 * row / c->height);
    }
    for (row = 0; row < c->height / 2; row++) {
        for (col = 0; col < c->width / 2; col++) {
            planes[luma + (size_t)(row * c->width / 2 + col)] = (uint8_t)(64 + 128 * col / (c->width / 2));
            planes[luma * 5 / 4 + (size_t)(row * c->width / 2 + col)] = (uint8_t)(192 - 128 * col / (c->width / 2));
        }
    }
    memset(&frame, 0, sizeof frame);
    frame.struct_size = sizeof frame;
    frame.format = AGORAISH_VIDEO_PIXEL_I420;
    frame.width = c->width;
    frame.height = c->height;
    frame.y_buffer = planes;
    frame.u_buffer = planes + luma;
    frame.v_buffer = planes + luma * 5 / 4;
    frame.y_stride = c->width;
    frame.u_stride = frame.v_stride = c->width / 2;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (n = 0; n < CALL_MS * FPS / 1000; n++) {
        int rc;
        frame.timestamp = (int64_t)n * 1000 / FPS;
        rc = agoraish_engine_push_external_video_frame(c->engine, &frame);
        if (rc != 0 && c->refused++ == 0) say(c->name, "push_external_video_frame(%d) = %d", n, rc);
        c->pushed++;
        sleep_until(&start, (long)(n + 1) * 1000 / FPS);
    }
    free(planes);
    return NULL;
}

static int set_encoder(agoraish_engine_t *engine, int width, int height) {
    agoraish_video_encoder_configuration encoder;
    memset(&encoder, 0, sizeof encoder);
    encoder.struct_size = sizeof encoder;
    encoder.width = width;
    encoder.height = height;
    encoder.frame_rate = FPS;
    encoder.min_bitrate = -1;
    encoder.codec_type = AGORAISH_VIDEO_CODEC_VP8;
    return agoraish_engine_set_video_encoder_configuration(engine, &encoder);
}

static void report(const char *position, const position_t *p) {
    say("local", "%-26s %3d pictures of %dx%d on thread \"%s\"", position, p->pictures, p->width, p->height,
        p->thread);
}

int main(void) {
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    agoraish_video_frame_observer observer;
    observer_state_t state;
    example_user local, remote;
    view_t local_view = {"local's view", PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    view_t remote_view = {"remote's view", PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    camera_t local_camera, remote_camera;
    pthread_t local_thread, remote_thread;
    struct timespec start;
    char url[128];
    int ok = 0, rc;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);
    memset(&state, 0, sizeof state);
    pthread_mutex_init(&state.mutex, NULL);

    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(&local, "local", url);
    remote_engine = create_user(&remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;

    /* A video-only call: no microphone, no speaker. Both push their pictures. */
    agoraish_engine_disable_audio(local_engine);
    agoraish_engine_disable_audio(remote_engine);
    agoraish_engine_enable_video(local_engine);
    agoraish_engine_enable_video(remote_engine);
    agoraish_engine_set_external_video_source(local_engine, 1);
    agoraish_engine_set_external_video_source(remote_engine, 1);
    say("local", "set_video_encoder_configuration(480x270) = %d", set_encoder(local_engine, 480, 270));
    set_encoder(remote_engine, 320, 240);

    /* local's observer, before joining. The struct is copied; `state` is what it points to. */
    memset(&observer, 0, sizeof observer);
    observer.struct_size = sizeof observer;
    observer.observed_position = AGORAISH_VIDEO_POSITION_POST_CAPTURER | AGORAISH_VIDEO_POSITION_PRE_ENCODER |
                                 AGORAISH_VIDEO_POSITION_PRE_RENDERER;
    observer.on_capture_video_frame = on_capture_video_frame;
    observer.on_pre_encode_video_frame = on_pre_encode_video_frame;
    observer.on_render_video_frame = on_render_video_frame;
    observer.user_data = &state;
    rc = agoraish_engine_register_video_frame_observer(local_engine, &observer);
    say("local", "register_video_frame_observer(POST_CAPTURER | PRE_ENCODER | PRE_RENDERER) = %d", rc);
    if (rc != 0) goto done;

    bind_view(local_engine, REMOTE_UID, &local_view);
    bind_view(remote_engine, LOCAL_UID, &remote_view);
    if (example_meet(CHANNEL, local_engine, &local, LOCAL_UID, remote_engine, &remote, REMOTE_UID) != 0) {
        goto done;
    }

    local_camera = (camera_t){local_engine, "local-camera", 640, 360, 0, 0};
    remote_camera = (camera_t){remote_engine, "remote-camera", 320, 240, 0, 0};
    say("both", "pushing for %d s: local 640x360 (sent at 480x270), remote 320x240", CALL_MS / 1000);
    clock_gettime(CLOCK_MONOTONIC, &start);
    pthread_create(&local_thread, NULL, camera_thread, &local_camera);
    pthread_create(&remote_thread, NULL, camera_thread, &remote_camera);
    pthread_join(local_thread, NULL);
    pthread_join(remote_thread, NULL);
    sleep_until(&start, (long)CALL_MS + SETTLE_MS);

    /* After this returns no render callback of the observer runs. */
    say("local", "register_video_frame_observer(NULL) = %d",
        agoraish_engine_register_video_frame_observer(local_engine, NULL));
    bind_view(local_engine, REMOTE_UID, NULL);
    bind_view(remote_engine, LOCAL_UID, NULL);

    pthread_mutex_lock(&state.mutex);
    report("on_capture_video_frame", &state.capture);
    say("local", "  %d of them dropped (returned 0)", state.capture.dropped);
    report("on_pre_encode_video_frame", &state.pre_encode);
    report("on_render_video_frame", &state.render);
    pthread_mutex_unlock(&state.mutex);
    say("remote", "showed %d pictures of %dx%d; the white square in %d, from x = %d to x = %d (moved right %d times, "
                  "wrapped %d)",
        remote_view.pictures, remote_view.width, remote_view.height, remote_view.with_square, remote_view.first_x,
        remote_view.last_x, remote_view.moved_right, remote_view.moved_left);
    say("local", "showed %d pictures of remote at %dx%d; colour left after on_render_video_frame: %.1f",
        local_view.pictures, local_view.width, local_view.height, local_view.colour);

    if (!example_part(local_engine, &local, remote_engine, &remote)) goto done;

    ok = local_camera.refused == 0 && remote_camera.refused == 0 && state.capture.pictures == local_camera.pushed &&
         state.capture.width == 640 && state.capture.dropped == local_camera.pushed / 10 &&
         state.pre_encode.pictures == state.capture.pictures - state.capture.dropped && state.pre_encode.width == 480 &&
         state.pre_encode.height == 270 && strcmp(state.capture.thread, "local-camera") == 0 &&
         strncmp(state.render.thread, "agoraish-vid", 12) == 0 && state.render.pictures >= remote_camera.pushed * 8 / 10 &&
         remote_view.pictures >= state.pre_encode.pictures * 8 / 10 &&
         remote_view.pictures <= state.pre_encode.pictures && remote_view.with_square == remote_view.pictures &&
         remote_view.moved_right > remote_view.pictures / 2 && local_view.pictures > 0 && local_view.colour < 1.0;

done:
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local);
    example_user_destroy(&remote);
    pthread_mutex_destroy(&state.mutex);
    return example_finish(ok, "done: the observer drew on local's pictures and took the colour out of remote's");
}
