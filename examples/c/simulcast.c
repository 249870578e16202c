/*
 * simulcast.c — Agora's Simulcast case in C: a host sends its video at
 * several sizes at once, and each viewer receives the one it asks for.
 *
 *   set_channel_profile(LIVE_BROADCASTING) -> set_client_role(BROADCASTER | AUDIENCE)
 *   host:    enable_video -> set_video_encoder_configuration(640x360)
 *            -> set_simulcast_config(LAYER_1 480x270, LAYER_2 320x180, STREAM_LOW 160x90)
 *            -> join_channel -> push_external_video_frame at 15 fps
 *   viewers: enable_video -> join_channel -> on_user_joined(host) -> setup_remote_video(host)
 *            -> set_remote_video_stream_type(host, LAYER_1 | LAYER_2 | LOW)
 *   viewer3: set_remote_video_stream_type(host, LAYER_1)   (a switch, mid-show)
 *   -> leave_channel -> release
 *
 * "host" pushes 640x360 pictures at 15 fps through an external source (this
 * machine has no camera). Its simulcast configuration adds three streams
 * besides the high one, each the same picture fitted into its box at its
 * frame rate: LAYER_1 480x270, LAYER_2 320x180 and STREAM_LOW 160x90, all at
 * 15 fps. "viewer1", "viewer2" and "viewer3" join as audience, render the
 * host in a view and ask for stream types 4 (LAYER_1), 5 (LAYER_2) and 1
 * (LOW); the channel server forwards each the stream it asked for, switching
 * at that stream's next keyframe. The example prints the size each viewer
 * settles on (ten pictures in a row of one size) and checks it: 480, 320 and
 * 160 wide. Then viewer3 asks for LAYER_1 and the example waits until its
 * pictures are 480 wide.
 *
 *   make hosts && build/examples/simulcast
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "simulcast"
#define HOST_UID 100
#define WIDTH 640
#define HEIGHT 360
#define FPS 15
#define SETTLED 10 /* pictures in a row of one size: the stream a viewer receives */
#define VIEWERS 3

/* What each viewer asks for, and the size of the host's stream of that type. */
static const struct {
    const char *name;
    int stream_type;
    int width, height;
} asked[VIEWERS] = {
    {"viewer1", AGORAISH_VIDEO_STREAM_LAYER_1, 480, 270},
    {"viewer2", AGORAISH_VIDEO_STREAM_LAYER_2, 320, 180},
    {"viewer3", AGORAISH_VIDEO_STREAM_LOW, 160, 90},
};
/* viewer3's second choice. */
#define SWITCH_TYPE AGORAISH_VIDEO_STREAM_LAYER_1
#define SWITCH_WIDTH 480
#define SWITCH_HEIGHT 270

/* The name of an agoraish_video_stream_type value. */
static const char *stream_type_name(int type) {
    static const char *const names[] = {"HIGH", "LOW", "?", "?", "LAYER_1", "LAYER_2",
                                        "LAYER_3", "LAYER_4", "LAYER_5", "LAYER_6"};
    return type >= 0 && type < 10 ? names[type] : "?";
}

/* ---- a viewer: its events and its view of the host ------------------------------ */

typedef struct {
    example_user base; /* first, so the handler's user_data is both */
    agoraish_engine_t *engine;
    /* Guarded by base.mutex. */
    int want_width, want_height; /* the size of the stream asked for */
    int width, height;           /* the last picture's size */
    int in_a_row;                /* pictures of that size in a row */
    int pictures;                /* every picture rendered */
} viewer_t;

static void on_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    viewer_t *v = ud;
    (void)e, (void)uid;
    example_lock(&v->base);
    if (f->width == v->width && f->height == v->height) {
        v->in_a_row++;
    } else {
        v->width = f->width;
        v->height = f->height;
        v->in_a_row = 1;
    }
    v->pictures++;
    example_changed(&v->base);
}

static void on_video_size_changed(agoraish_engine_t *e, void *ud, uint32_t uid, int width, int height, int rotation) {
    example_user *u = ud;
    (void)e, (void)rotation;
    say(u->name, "on_video_size_changed uid %u: %dx%d", uid, width, height);
}

/* Ten pictures in a row of the size asked for. */
static int receives_wanted(const example_user *u) {
    const viewer_t *v = (const viewer_t *)u;
    return v->in_a_row >= SETTLED && v->width == v->want_width && v->height == v->want_height;
}

/* Asks for `type` (whose stream is width x height) and waits until it arrives;
 * returns whether it did. `was` gets the size received before. */
static int ask_for(viewer_t *v, int type, int width, int height, int was[2]) {
    int rc;
    example_lock(&v->base);
    v->want_width = width;
    v->want_height = height;
    was[0] = v->width;
    was[1] = v->height;
    example_unlock(&v->base);
    rc = agoraish_engine_set_remote_video_stream_type(v->engine, HOST_UID, type);
    say(v->base.name, "set_remote_video_stream_type(%u, %d %s) = %d", HOST_UID, type, stream_type_name(type), rc);
    return rc == 0 && example_wait(&v->base, receives_wanted, "pictures of the stream asked for");
}

static agoraish_engine_t *create_user(example_user *u, const char *name, const char *server_url, int role) {
    agoraish_event_handler handler;
    agoraish_engine_t *engine;
    example_user_init(u, name);
    example_handler(&handler, u);
    /* The audience's user is the base of a viewer_t. */
    if (role == AGORAISH_CLIENT_ROLE_AUDIENCE) handler.on_video_size_changed = on_video_size_changed;
    engine = example_create_engine(u, &handler, server_url);
    if (engine) {
        agoraish_engine_set_channel_profile(engine, AGORAISH_CHANNEL_PROFILE_LIVE_BROADCASTING);
        agoraish_engine_set_client_role(engine, role);
        agoraish_engine_disable_audio(engine); /* a video-only show */
        agoraish_engine_enable_video(engine);
    }
    return engine;
}

/* ---- the host's "camera": 640x360 pictures at 15 fps until stopped -------------------- */

typedef struct {
    agoraish_engine_t *engine;
    pthread_mutex_t mutex;
    int stop;    /* guarded by mutex */
    int refused; /* pushes refused; read after the thread ended */
} camera_t;

static void *push_pictures(void *arg) {
    static uint8_t planes[WIDTH * HEIGHT * 3 / 2];
    camera_t *c = arg;
    agoraish_external_video_frame frame;
    struct timespec start;
    memset(&frame, 0, sizeof frame);
    frame.struct_size = sizeof frame;
    frame.format = AGORAISH_VIDEO_PIXEL_I420;
    frame.width = WIDTH;
    frame.height = HEIGHT;
    frame.y_buffer = planes;
    frame.u_buffer = planes + WIDTH * HEIGHT;
    frame.v_buffer = planes + WIDTH * HEIGHT * 5 / 4;
    frame.y_stride = WIDTH;
    frame.u_stride = frame.v_stride = WIDTH / 2;
    memset(planes + WIDTH * HEIGHT, 128, WIDTH * HEIGHT / 2);
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long n = 0;; n++) {
        int stop, rc;
        pthread_mutex_lock(&c->mutex);
        stop = c->stop;
        pthread_mutex_unlock(&c->mutex);
        if (stop) break;
        for (int row = 0; row < HEIGHT; row++) {
            for (int col = 0; col < WIDTH; col++) {
                planes[row * WIDTH + col] = (uint8_t)(((col + 8 * n) / 40 + row / 40) % 2 ? 200 : 60); /* moving squares */
            }
        }
        frame.timestamp = n * 1000 / FPS;
        rc = agoraish_engine_push_external_video_frame(c->engine, &frame);
        if (rc != 0 && c->refused++ == 0) say("host", "push_external_video_frame(%ld) = %d", n, rc);
        sleep_until(&start, (n + 1) * 1000 / FPS);
    }
    return NULL;
}

/* The simulcast configuration of the story: three streams besides the high one. */
static agoraish_simulcast_config host_layers(void) {
    static const struct {
        int index, width, height;
    } layers[] = {
        {AGORAISH_STREAM_LAYER_1, 480, 270},
        {AGORAISH_STREAM_LAYER_2, 320, 180},
        {AGORAISH_STREAM_LOW, 160, 90},
    };
    agoraish_simulcast_config config;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++) {
        agoraish_stream_layer_config *layer = &config.configs[layers[i].index];
        layer->width = layers[i].width;
        layer->height = layers[i].height;
        layer->framerate = FPS;
        layer->enable = 1;
    }
    return config;
}

int main(void) {
    agoraish_server_t *server = NULL;
    agoraish_engine_t *host_engine = NULL;
    agoraish_video_encoder_configuration encoder;
    agoraish_simulcast_config simulcast;
    agoraish_video_canvas canvas;
    example_user host;
    viewer_t viewers[VIEWERS];
    camera_t camera;
    pthread_t camera_thread;
    char url[128];
    int ok = 0, pushing = 0, rc, was[2];
    double switch_at;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&host, 0, sizeof host);
    memset(viewers, 0, sizeof viewers);
    memset(&camera, 0, sizeof camera);
    pthread_mutex_init(&camera.mutex, NULL);
    if (!(server = example_start_server(url, sizeof url))) goto done;

    /* The host: 640x360 at 15 fps, and three streams besides. */
    if (!(host_engine = create_user(&host, "host", url, AGORAISH_CLIENT_ROLE_BROADCASTER))) goto done;
    memset(&encoder, 0, sizeof encoder);
    encoder.struct_size = sizeof encoder;
    encoder.width = WIDTH;
    encoder.height = HEIGHT;
    encoder.frame_rate = FPS;
    encoder.min_bitrate = -1;
    encoder.codec_type = AGORAISH_VIDEO_CODEC_VP8;
    say("host", "set_video_encoder_configuration(%dx%d, %d fps) = %d", WIDTH, HEIGHT, FPS,
        agoraish_engine_set_video_encoder_configuration(host_engine, &encoder));
    say("host", "set_external_video_source(1) = %d (no camera here)",
        agoraish_engine_set_external_video_source(host_engine, 1));
    simulcast = host_layers();
    rc = agoraish_engine_set_simulcast_config(host_engine, &simulcast);
    say("host", "set_simulcast_config(LAYER_1 480x270, LAYER_2 320x180, STREAM_LOW 160x90, %d fps) = %d", FPS, rc);
    if (rc != 0) goto done;
    if ((rc = agoraish_engine_join_channel(host_engine, NULL, CHANNEL, NULL, HOST_UID)) != 0 ||
        !example_wait(&host, example_is_joined, "join")) {
        goto done;
    }
    camera.engine = host_engine;
    pushing = pthread_create(&camera_thread, NULL, push_pictures, &camera) == 0;
    if (!pushing) goto done;

    /* The viewers: join, watch the host, and ask each for its stream. */
    for (int i = 0; i < VIEWERS; i++) {
        viewer_t *v = &viewers[i];
        if (!(v->engine = create_user(&v->base, asked[i].name, url, AGORAISH_CLIENT_ROLE_AUDIENCE))) goto done;
        if ((rc = agoraish_engine_join_channel(v->engine, NULL, CHANNEL, NULL, 0)) != 0 ||
            !example_wait(&v->base, example_is_joined, "join") ||
            !example_wait(&v->base, example_sees_peer, "host")) {
            goto done;
        }
        memset(&canvas, 0, sizeof canvas);
        canvas.struct_size = sizeof canvas;
        canvas.uid = HOST_UID;
        canvas.on_frame = on_frame;
        canvas.user_data = v;
        say(v->base.name, "setup_remote_video(%u) = %d", HOST_UID, agoraish_engine_setup_remote_video(v->engine, &canvas));
    }
    ok = 1;
    for (int i = 0; i < VIEWERS; i++) {
        viewer_t *v = &viewers[i];
        int width, height;
        ok = ask_for(v, asked[i].stream_type, asked[i].width, asked[i].height, was) && ok;
        example_lock(&v->base);
        width = v->width;
        height = v->height;
        example_unlock(&v->base);
        say(v->base.name, "asked for %d (%s), receives %dx%d", asked[i].stream_type,
            stream_type_name(asked[i].stream_type), width, height);
    }

    /* viewer3 changes its mind: LAYER_1 instead of the low stream. */
    if (ok) {
        viewer_t *v = &viewers[VIEWERS - 1];
        int width, height;
        switch_at = seconds();
        ok = ask_for(v, SWITCH_TYPE, SWITCH_WIDTH, SWITCH_HEIGHT, was);
        example_lock(&v->base);
        width = v->width;
        height = v->height;
        example_unlock(&v->base);
        say(v->base.name, "switched to %d (%s), receives %dx%d (was %dx%d) %.2f s after asking", SWITCH_TYPE,
            stream_type_name(SWITCH_TYPE), width, height, was[0], was[1], seconds() - switch_at);
    }

    /* The show ends: the viewers leave, then the host. */
    for (int i = 0; i < VIEWERS; i++) {
        agoraish_engine_leave_channel(viewers[i].engine);
        ok = example_wait(&viewers[i].base, example_has_left, "leave") && ok;
    }
    agoraish_engine_leave_channel(host_engine);
    ok = example_wait(&host, example_has_left, "leave") && ok;

done:
    if (pushing) {
        pthread_mutex_lock(&camera.mutex);
        camera.stop = 1;
        pthread_mutex_unlock(&camera.mutex);
        pthread_join(camera_thread, NULL);
        ok = ok && camera.refused == 0;
    }
    /* Releasing leaves the channel and waits for running callbacks. */
    for (int i = 0; i < VIEWERS; i++) {
        if (viewers[i].engine) agoraish_engine_release(viewers[i].engine, 1);
        example_user_destroy(&viewers[i].base);
    }
    if (host_engine) agoraish_engine_release(host_engine, 1);
    agoraish_server_release(server);
    pthread_mutex_destroy(&camera.mutex);
    example_user_destroy(&host);
    return example_finish(ok, "done: each viewer received the stream it asked for, and viewer3 its new one");
}
