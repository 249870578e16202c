/*
 * join_channel_video.c — Agora's JoinChannelVideo case in C: a video call
 * with a local view, a preview before joining, and a view per remote user.
 *
 *   enable_video -> set_video_encoder_configuration
 *   -> setup_local_video(local sink) -> start_preview   (the local view, uid 0)
 *   -> join_channel -> on_join_channel_success, on_user_joined(uid)
 *   -> setup_remote_video(uid, remote sink)             (a view per remote user)
 *   -> on_first_remote_video_frame, on_remote_video_state_changed,
 *      on_local_video_stats, on_remote_video_stats, ...
 *   -> leave_channel -> stop_preview -> release
 *
 * A view is a render sink here: a callback that gets each picture as I420
 * planes, on the engine's video thread. This machine has no camera, so both
 * users push their pictures through an external source (on a machine with a
 * camera, leave out set_external_video_source and the pushes: start_preview
 * starts the camera). "local" sends 640x360 and sees its own pictures in its
 * local view (mirrored, as Agora's front camera preview is) before and during
 * the call; "remote", a second engine in the same process, sends 320x240.
 * Each view counts its pictures and remembers their size; at the end the
 * example prints what each view showed and the last statistics.
 *
 *   make hosts && build/examples/join_channel_video
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "join-channel-video"
#define FPS 15
#define PREVIEW_MS 1000 /* local alone, before joining */
#define CALL_MS 3000    /* both in the call */
#define SETTLE_MS 300

/* ---- a view: counts pictures and remembers the last one's size ---------------- */

typedef struct {
    const char *name;
    pthread_mutex_t mutex;
    /* Guarded by mutex. */
    int pictures, width, height;
    uint32_t uid;
    int left, right; /* average luma of the top band's left and right ends (the picture is darker on its left) */
} view_t;

static void view_init(view_t *v, const char *name) {
    memset(v, 0, sizeof *v);
    v->name = name;
    pthread_mutex_init(&v->mutex, NULL);
}

static int band_luma(const agoraish_video_frame *f, int x0, int x1) {
    long sum = 0;
    int rows = f->height / 10, y, x;
    for (y = 0; y < rows; y++) {
        for (x = x0; x < x1; x++) sum += f->y_buffer[(size_t)y * (size_t)f->y_stride + (size_t)x];
    }
    return rows * (x1 - x0) > 0 ? (int)(sum / (rows * (x1 - x0))) : 0;
}

/* The render sink of a view, on the engine's video thread. */
static void on_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    view_t *v = ud;
    const int left = band_luma(f, 0, f->width / 8), right = band_luma(f, f->width - f->width / 8, f->width);
    (void)e;
    pthread_mutex_lock(&v->mutex);
    if (v->pictures == 0) say(v->name, "first picture: uid %u, %dx%d", uid, f->width, f->height);
    v->pictures++;
    v->uid = uid;
    v->width = f->width;
    v->height = f->height;
    v->left = left;
    v->right = right;
    pthread_mutex_unlock(&v->mutex);
}

static int bind_view(agoraish_engine_t *engine, uint32_t uid, view_t *v, int local) {
    agoraish_video_canvas canvas;
    memset(&canvas, 0, sizeof canvas);
    canvas.struct_size = sizeof canvas;
    canvas.uid = uid;
    canvas.on_frame = v ? on_frame : NULL;
    canvas.user_data = v;
    canvas.render_mode = 1;  /* HIDDEN */
    canvas.mirror_mode = 0;  /* AUTO: the local view mirrored, remote views not */
    return local ? agoraish_engine_setup_local_video(engine, &canvas) : agoraish_engine_setup_remote_video(engine, &canvas);
}

/* ---- one user's events ---------------------------------------------------------- */

typedef struct {
    example_user base; /* first, so the handler's user_data is both */
    agoraish_engine_t *engine;
    view_t *remote_view;
    /* Guarded by base.mutex. */
    agoraish_local_video_stats local_stats;
    agoraish_remote_video_stats remote_stats;
} user_t;

/* A user joined: bind a view for it (Agora's case does setupRemoteVideo here). */
static void on_user_joined(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    user_t *u = ud;
    int rc;
    say(u->base.name, "on_user_joined uid %u, %d ms", uid, elapsed);
    rc = bind_view(e, uid, u->remote_view, 0);
    say(u->base.name, "setup_remote_video(uid %u) = %d", uid, rc);
    example_lock(&u->base);
    u->base.peer = uid;
    example_changed(&u->base);
}

static void on_user_offline(agoraish_engine_t *e, void *ud, uint32_t uid, int reason) {
    user_t *u = ud;
    say(u->base.name, "on_user_offline uid %u, reason %d: setup_remote_video(uid %u, NULL) = %d", uid, reason, uid,
        bind_view(e, uid, NULL, 0));
    example_lock(&u->base);
    if (u->base.peer == uid) u->base.peer = 0;
    example_changed(&u->base);
}

static void on_first_local_video_frame(agoraish_engine_t *e, void *ud, int width, int height, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_local_video_frame %dx%d, %d ms", width, height, elapsed);
}

static void on_first_remote_video_frame(agoraish_engine_t *e, void *ud, uint32_t uid, int width, int height,
                                        int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_remote_video_frame uid %u, %dx%d, %d ms", uid, width, height, elapsed);
}

static void on_local_video_state_changed(agoraish_engine_t *e, void *ud, int state, int error) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_local_video_state_changed %s, error %d", local_video_state_name(state), error);
}

static void on_remote_video_state_changed(agoraish_engine_t *e, void *ud, uint32_t uid, int state, int reason,
                                          int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_remote_video_state_changed uid %u: %s (%s), %d ms", uid, remote_state_name(state),
        remote_reason_name(reason), elapsed);
}

static void on_local_video_stats(agoraish_engine_t *e, void *ud, const agoraish_local_video_stats *s) {
    user_t *u = ud;
    (void)e;
    example_lock(&u->base);
    u->local_stats = *s;
    example_unlock(&u->base);
}

static void on_remote_video_stats(agoraish_engine_t *e, void *ud, const agoraish_remote_video_stats *s) {
    user_t *u = ud;
    (void)e;
    example_lock(&u->base);
    u->remote_stats = *s;
    example_unlock(&u->base);
}

static agoraish_engine_t *create_user(user_t *u, const char *name, view_t *remote_view, const char *server_url) {
    agoraish_event_handler handler;

    memset(u, 0, sizeof *u);
    example_user_init(&u->base, name);
    u->remote_view = remote_view;
    example_handler(&handler, &u->base);
    handler.on_user_joined = on_user_joined;
    handler.on_user_offline = on_user_offline;
    handler.on_first_local_video_frame = on_first_local_video_frame;
    handler.on_first_remote_video_frame = on_first_remote_video_frame;
    handler.on_local_video_state_changed = on_local_video_state_changed;
    handler.on_remote_video_state_changed = on_remote_video_state_changed;
    handler.on_local_video_stats = on_local_video_stats;
    handler.on_remote_video_stats = on_remote_video_stats;
    return u->engine = example_create_engine(&u->base, &handler, server_url);
}

/* ---- the "cameras": I420 pictures pushed through an external source ------------- */

typedef struct {
    int width, height;
    uint8_t *planes;
    int refused;
} camera_t;

/* Picture `n`: dark on the left, bright on the right, with a bar that moves down. */
static void push_picture(agoraish_engine_t *engine, camera_t *c, int n, const char *who) {
    agoraish_external_video_frame frame;
    uint8_t *y = c->planes, *u = y + c->width * c->height, *v = u + c->width * c->height / 4;
    const int bar_top = n * 4 % c->height;
    int row, col, rc;
    for (row = 0; row < c->height; row++) {
        const int bar = row >= bar_top && row < bar_top + 8;
        for (col = 0; col < c->width; col++) y[row * c->width + col] = (uint8_t)(bar ? 235 : 40 + 160 * col / c->width);
    }
    memset(u, 128, (size_t)(c->width * c->height / 4));
    memset(v, 128, (size_t)(c->width * c->height / 4));
    memset(&frame, 0, sizeof frame);
    frame.struct_size = sizeof frame;
    frame.format = AGORAISH_VIDEO_PIXEL_I420;
    frame.width = c->width;
    frame.height = c->height;
    frame.y_buffer = y;
    frame.u_buffer = u;
    frame.v_buffer = v;
    frame.y_stride = c->width;
    frame.u_stride = frame.v_stride = c->width / 2;
    frame.timestamp = (int64_t)n * 1000 / FPS;
    rc = agoraish_engine_push_external_video_frame(engine, &frame);
    if (rc != 0 && c->refused++ == 0) say(who, "push_external_video_frame(%d) = %d", n, rc);
}

static int set_encoder(agoraish_engine_t *engine, int width, int height) {
    agoraish_video_encoder_configuration encoder;
    memset(&encoder, 0, sizeof encoder);
    encoder.struct_size = sizeof encoder;
    encoder.width = width;
    encoder.height = height;
    encoder.frame_rate = FPS;
    encoder.bitrate = 0; /* STANDARD_BITRATE */
    encoder.min_bitrate = -1;
    encoder.codec_type = AGORAISH_VIDEO_CODEC_VP8;
    return agoraish_engine_set_video_encoder_configuration(engine, &encoder);
}

static void report_view(view_t *v) {
    pthread_mutex_lock(&v->mutex);
    say(v->name, "%d pictures, the last of uid %u at %dx%d; top band %d on the left, %d on the right", v->pictures,
        v->uid, v->width, v->height, v->left, v->right);
    pthread_mutex_unlock(&v->mutex);
}

int main(void) {
    agoraish_server_t *server = NULL;
    user_t local, remote;
    view_t local_view, local_sees_remote, remote_sees_local;
    camera_t local_camera = {640, 360, NULL, 0}, remote_camera = {320, 240, NULL, 0};
    struct timespec start;
    char url[128];
    int ok = 0, n, preview_pictures = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);
    view_init(&local_view, "local view");
    view_init(&local_sees_remote, "local's remote view");
    view_init(&remote_sees_local, "remote's remote view");
    local_camera.planes = malloc((size_t)640 * 360 * 3 / 2);
    remote_camera.planes = malloc((size_t)320 * 240 * 3 / 2);
    if (!local_camera.planes || !remote_camera.planes) goto done;

    if (!(server = example_start_server(url, sizeof url))) goto done;
    if (!create_user(&local, "local", &local_sees_remote, url) ||
        !create_user(&remote, "remote", &remote_sees_local, url)) {
        goto done;
    }

    /* A video-only call: no microphone, no speaker. */
    agoraish_engine_disable_audio(local.engine);
    agoraish_engine_disable_audio(remote.engine);

    /* local: video on, 640x360, its local view, and the preview before joining. */
    say("local", "enable_video = %d", agoraish_engine_enable_video(local.engine));
    say("local", "set_video_encoder_configuration(640x360, %d fps) = %d", FPS, set_encoder(local.engine, 640, 360));
    say("local", "set_external_video_source(1) = %d (no camera here)",
        agoraish_engine_set_external_video_source(local.engine, 1));
    say("local", "setup_local_video = %d", bind_view(local.engine, 0, &local_view, 1));
    say("local", "start_preview = %d", agoraish_engine_start_preview(local.engine));
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (n = 0; n < PREVIEW_MS * FPS / 1000; n++) {
        push_picture(local.engine, &local_camera, n, "local");
        sleep_until(&start, (long)(n + 1) * 1000 / FPS);
    }
    pthread_mutex_lock(&local_view.mutex);
    preview_pictures = local_view.pictures;
    pthread_mutex_unlock(&local_view.mutex);
    say("local", "the preview showed %d pictures before joining", preview_pictures);

    /* remote: video on, 320x240. */
    agoraish_engine_enable_video(remote.engine);
    set_encoder(remote.engine, 320, 240);
    agoraish_engine_set_external_video_source(remote.engine, 1);

    if (example_meet(CHANNEL, local.engine, &local.base, 0, remote.engine, &remote.base, 0) != 0) goto done;

    /* Both "cameras" at 15 fps, in real time. */
    say("both", "pushing for %d s: local 640x360, remote 320x240", CALL_MS / 1000);
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int k = 0; k < CALL_MS * FPS / 1000; k++, n++) {
        push_picture(local.engine, &local_camera, n, "local");
        push_picture(remote.engine, &remote_camera, n, "remote");
        sleep_until(&start, (long)(k + 1) * 1000 / FPS);
    }
    sleep_until(&start, (long)CALL_MS + SETTLE_MS);

    report_view(&local_view);
    report_view(&local_sees_remote);
    report_view(&remote_sees_local);
    example_lock(&local.base);
    say("local", "on_local_video_stats: sent %d Kbps at %d fps, encoded %dx%d, %d frames",
        local.local_stats.sent_bitrate, local.local_stats.sent_frame_rate, local.local_stats.encoded_frame_width,
        local.local_stats.encoded_frame_height, local.local_stats.encoded_frame_count);
    say("local", "on_remote_video_stats uid %u: %dx%d, %d Kbps, %d fps decoded, %d%% lost", local.remote_stats.uid,
        local.remote_stats.width, local.remote_stats.height, local.remote_stats.received_bitrate,
        local.remote_stats.decoder_output_frame_rate, local.remote_stats.packet_loss_rate);
    example_unlock(&local.base);

    if (!example_part(local.engine, &local.base, remote.engine, &remote.base)) goto done;
    say("local", "stop_preview = %d", agoraish_engine_stop_preview(local.engine));
    bind_view(local.engine, 0, NULL, 1); /* waits for a picture being shown */

    /* The local view is mirrored (the bright right side shows on the left); remote views are not. */
    ok = preview_pictures >= PREVIEW_MS * FPS / 1000 / 2 && local_view.width == 640 && local_view.height == 360 &&
         local_view.uid == 0 && local_view.left > local_view.right &&
         local_sees_remote.pictures >= CALL_MS * FPS / 1000 / 2 && local_sees_remote.width == 320 &&
         local_sees_remote.height == 240 && local_sees_remote.left < local_sees_remote.right &&
         remote_sees_local.pictures >= CALL_MS * FPS / 1000 / 2 && remote_sees_local.width == 640 &&
         remote_sees_local.height == 360 && local_camera.refused == 0 && remote_camera.refused == 0;

done:
    if (local.engine) agoraish_engine_release(local.engine, 1);
    if (remote.engine) agoraish_engine_release(remote.engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local.base);
    example_user_destroy(&remote.base);
    free(local_camera.planes);
    free(remote_camera.planes);
    pthread_mutex_destroy(&local_view.mutex);
    pthread_mutex_destroy(&local_sees_remote.mutex);
    pthread_mutex_destroy(&remote_sees_local.mutex);
    return example_finish(ok, "done: the local view showed local's pictures mirrored, each user saw the other's size");
}
