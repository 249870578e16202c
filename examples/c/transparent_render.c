/*
 * transparent_render.c — Agora's TransparentRender case in C: pictures with
 * an alpha channel, from a video file and from the host, reach their
 * canvases with their alpha planes.
 *
 *   create_media_player -> media_player_set_view -> open(WebM VP8 with alpha) -> play
 *   -> the view gets each picture with alpha_buffer
 *   set_external_video_source -> setup_local_video -> start_preview
 *   -> push_external_video_frame(frame with alpha_buffer) -> the local canvas gets it with alpha_buffer
 *   -> remote users get the picture without alpha (VP8 over RTP carries none)
 *
 * "local" plays a 3 s WebM (VP8 with an alpha channel: FFmpeg's moving test
 * pattern inside an opaque disc of radius 70 that moves to the right, fully
 * transparent around it) that the example makes first with the ffmpeg
 * command-line tool in demo-out/transparent_render.webm; its player's view
 * counts the transparent and opaque pixels of each picture and follows the
 * disc. At the same time local sends pictures of its own through an external
 * video source, each with an alpha plane (its left quarter opaque, the next
 * quarter half transparent, the right half transparent), and watches them in
 * its preview (setup_local_video, start_preview), mirrored as a preview is:
 * the alpha plane is mirrored with the picture. "remote", a second engine in
 * the same process, receives local's pictures in the call: without alpha.
 *
 *   make hosts && build/examples/transparent_render
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "transparent-render"
#define MOVIE "demo-out/transparent_render.webm"
#define WIDTH 320
#define HEIGHT 240
#define FPS 15
#define RADIUS 70
#define SECONDS 3
#define PUSHED 30 /* two seconds of local's own pictures */
#define PLAYER_WAIT_SECONDS 10

/* ---- one user's events, the player's, and canvases that read alpha planes ---------------- */

typedef struct {
    example_user base; /* first, so the handler's user_data is both */
    /* Guarded by base.mutex: the player's states (local only). */
    int opened, completed;
} user_t;

/* A canvas: per picture, the share of its pixels that are transparent (alpha
 * below 16), half transparent (112..143) and opaque (above 239), and the mean
 * column of the opaque ones (a share of the width). Keeps the sums and the
 * first and last picture's figures. */
typedef struct {
    const char *who, *what;
    pthread_mutex_t mutex;
    /* Guarded by mutex. */
    int pictures, with_alpha;
    double shares[3]; /* transparent, half, opaque: summed over the pictures with alpha */
    double first_x, last_x; /* -1: none */
} alpha_canvas_t;

static void on_first_local_video_frame(agoraish_engine_t *e, void *ud, int width, int height, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_local_video_frame %dx%d, %d ms", width, height, elapsed);
}

static void on_first_remote_video_decoded(agoraish_engine_t *e, void *ud, uint32_t uid, int width, int height,
                                          int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_remote_video_decoded uid %u, %dx%d, %d ms", uid, width, height, elapsed);
}

static agoraish_engine_t *create_user(user_t *u, const char *name, const char *server_url) {
    agoraish_event_handler handler;
    memset(u, 0, sizeof *u);
    example_user_init(&u->base, name);
    example_handler(&handler, &u->base);
    handler.on_first_local_video_frame = on_first_local_video_frame;
    handler.on_first_remote_video_decoded = on_first_remote_video_decoded;
    return example_create_engine(&u->base, &handler, server_url);
}

static void on_player_state(agoraish_engine_t *e, void *ud, int player_id, int state, int reason) {
    user_t *u = ud;
    (void)e;
    (void)player_id;
    say("player", "on_player_source_state_changed %s (%s)", player_state_name(state), player_reason_name(reason));
    example_lock(&u->base);
    if (state == AGORAISH_PLAYER_STATE_OPEN_COMPLETED) u->opened = 1;
    if (state == AGORAISH_PLAYER_STATE_FAILED) u->opened = -1;
    if (state == AGORAISH_PLAYER_STATE_PLAYBACK_ALL_LOOPS_COMPLETED) u->completed = 1;
    example_changed(&u->base);
}

static int player_opened(const example_user *u) { return ((const user_t *)u)->opened != 0; }
static int player_completed(const example_user *u) { return ((const user_t *)u)->completed; }

static void on_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    alpha_canvas_t *c = ud;
    long counts[3] = {0, 0, 0}, size = (long)f->width * f->height, columns = 0, sum = 0;
    double x = -1;
    (void)e;
    (void)uid;
    if (!f->alpha_buffer) {
        pthread_mutex_lock(&c->mutex);
        c->pictures++;
        pthread_mutex_unlock(&c->mutex);
        return;
    }
    for (int y = 0; y < f->height; y++) {
        const uint8_t *row = f->alpha_buffer + (size_t)y * (size_t)f->alpha_stride;
        for (int i = 0; i < f->width; i++) {
            counts[0] += row[i] < 16;
            counts[1] += row[i] >= 112 && row[i] < 144;
            counts[2] += row[i] >= 240;
            if (y % 4 == 0 && row[i] >= 240) {
                sum += i;
                columns++;
            }
        }
    }
    if (columns) x = (double)sum / (double)columns / f->width;
    pthread_mutex_lock(&c->mutex);
    if (c->with_alpha == 0) {
        say(c->who, "%s: first picture %dx%d with alpha: %.0f %% transparent, %.0f %% opaque", c->what, f->width,
            f->height, 100.0 * (double)counts[0] / (double)size, 100.0 * (double)counts[2] / (double)size);
        c->first_x = x;
    }
    c->pictures++;
    c->with_alpha++;
    for (int i = 0; i < 3; i++) c->shares[i] += (double)counts[i] / (double)size;
    c->last_x = x;
    pthread_mutex_unlock(&c->mutex);
}

/* Says what a canvas saw; the average shares into `shares`. */
static void report(alpha_canvas_t *c, double shares[3]) {
    pthread_mutex_lock(&c->mutex);
    for (int i = 0; i < 3; i++) shares[i] = c->with_alpha ? c->shares[i] / c->with_alpha : 0;
    if (c->with_alpha == 0) {
        say(c->who, "%s: %d pictures, none with alpha", c->what, c->pictures);
    } else {
        say(c->who, "%s: %d pictures, %d with alpha; on average %.1f %% transparent, %.1f %% half, %.1f %% opaque, "
            "the opaque part centred from %.2f to %.2f of the width", c->what, c->pictures, c->with_alpha,
            100 * shares[0], 100 * shares[1], 100 * shares[2], c->first_x, c->last_x);
    }
    pthread_mutex_unlock(&c->mutex);
}

int main(void) {
    static uint8_t luma[WIDTH * HEIGHT], cb[WIDTH * HEIGHT / 4], cr[WIDTH * HEIGHT / 4], alpha[WIDTH * HEIGHT];
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    agoraish_video_encoder_configuration encoder;
    agoraish_media_player_observer observer;
    agoraish_video_canvas canvas, view_canvas;
    agoraish_external_video_frame frame;
    alpha_canvas_t view = {"local", "player's view", PTHREAD_MUTEX_INITIALIZER, 0, 0, {0, 0, 0}, -1, -1};
    alpha_canvas_t preview = {"local", "preview", PTHREAD_MUTEX_INITIALIZER, 0, 0, {0, 0, 0}, -1, -1};
    alpha_canvas_t received = {"remote", "remote canvas", PTHREAD_MUTEX_INITIALIZER, 0, 0, {0, 0, 0}, -1, -1};
    double shown[3], own[3], got[3], disc;
    struct timespec start;
    user_t local, remote;
    char url[128];
    int ok = 0, rc, player = 0, refused = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);

    say("ffmpeg", "making %s: %d s of VP8 with alpha, a moving opaque disc on a transparent ground", MOVIE, SECONDS);
    if (!example_ffmpeg(MOVIE, "-f lavfi -i \"testsrc2=size=320x240:rate=15:duration=3,format=yuva420p,"
                               "geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':"
                               "a='if(lt(hypot(X-90-50*T\\,Y-120)\\,70)\\,255\\,0)'\" "
                               "-c:v libvpx -pix_fmt yuva420p -auto-alt-ref 0 -metadata:s:v:0 alpha_mode=1 "
                               "-deadline realtime -cpu-used 8 -b:v 400k")) {
        return example_finish(0, "");
    }

    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(&local, "local", url);
    remote_engine = create_user(&remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;

    agoraish_engine_disable_audio(local_engine); /* a video-only call */
    agoraish_engine_disable_audio(remote_engine);
    agoraish_engine_enable_video(local_engine);
    agoraish_engine_enable_video(remote_engine);
    agoraish_engine_set_external_video_source(local_engine, 1);
    memset(&encoder, 0, sizeof encoder);
    encoder.struct_size = sizeof encoder;
    encoder.width = WIDTH;
    encoder.height = HEIGHT;
    encoder.frame_rate = FPS;
    encoder.min_bitrate = -1;
    agoraish_engine_set_video_encoder_configuration(local_engine, &encoder);
    memset(&canvas, 0, sizeof canvas);
    canvas.struct_size = sizeof canvas;
    canvas.on_frame = on_frame;
    canvas.user_data = &preview; /* mirror_mode 0 (AUTO): the preview is mirrored */
    agoraish_engine_setup_local_video(local_engine, &canvas);
    agoraish_engine_start_preview(local_engine);
    say("local", "set_external_video_source, setup_local_video, start_preview");
    if (example_meet(CHANNEL, local_engine, &local.base, 0, remote_engine, &remote.base, 0) != 0) goto done;
    canvas.uid = example_peer(&remote.base);
    canvas.user_data = &received;
    agoraish_engine_setup_remote_video(remote_engine, &canvas);

    if ((rc = agoraish_engine_create_media_player(local_engine, &player)) != 0) {
        say("local", "create_media_player() = %d", rc);
        goto done;
    }
    memset(&observer, 0, sizeof observer);
    observer.struct_size = sizeof observer;
    observer.user_data = &local;
    observer.on_player_source_state_changed = on_player_state;
    agoraish_media_player_register_player_source_observer(local_engine, player, &observer);
    view_canvas = canvas;
    view_canvas.uid = 0;
    view_canvas.user_data = &view;
    agoraish_media_player_set_view(local_engine, player, &view_canvas);
    agoraish_media_player_open(local_engine, player, MOVIE, 0);
    if (!example_wait(&local.base, player_opened, "OPEN_COMPLETED") || local.opened != 1) goto done;
    {
        agoraish_player_stream_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        agoraish_media_player_get_stream_info(local_engine, player, 0, &info);
        say("local", "%s: %s %s %dx%d", MOVIE, info.stream_type == AGORAISH_MEDIA_STREAM_TYPE_VIDEO ? "VIDEO" : "?",
            info.codec_name, info.video_width, info.video_height);
    }
    agoraish_media_player_play(local_engine, player);

    /* local's own pictures, with their alpha plane, while the file plays: a blue-ish picture whose
     * left quarter is opaque, the next quarter half transparent (128), the right half transparent. */
    memset(luma, 100, sizeof luma);
    memset(cb, 180, sizeof cb);
    memset(cr, 100, sizeof cr);
    for (int y = 0; y < HEIGHT; y++) {
        memset(alpha + y * WIDTH, 255, WIDTH / 4);
        memset(alpha + y * WIDTH + WIDTH / 4, 128, WIDTH / 4);
        memset(alpha + y * WIDTH + WIDTH / 2, 0, WIDTH / 2);
    }
    memset(&frame, 0, sizeof frame);
    frame.struct_size = sizeof frame;
    frame.format = AGORAISH_VIDEO_PIXEL_I420;
    frame.width = WIDTH;
    frame.height = HEIGHT;
    frame.y_buffer = luma;
    frame.u_buffer = cb;
    frame.v_buffer = cr;
    frame.y_stride = WIDTH;
    frame.u_stride = frame.v_stride = WIDTH / 2;
    frame.alpha_buffer = alpha;
    frame.alpha_stride = WIDTH;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int n = 0; n < PUSHED; n++) {
        frame.timestamp = (int64_t)n * 1000 / FPS;
        rc = agoraish_engine_push_external_video_frame(local_engine, &frame);
        if (rc != 0 && refused++ == 0) say("local", "push_external_video_frame(%d) = %d", n, rc);
        sleep_until(&start, (long)(n + 1) * 1000 / FPS);
    }
    say("local", "pushed %d pictures with an alpha plane, %d refused", PUSHED, refused);
    if (!example_wait(&local.base, player_completed, "PLAYBACK_ALL_LOOPS_COMPLETED")) goto done;
    agoraish_engine_destroy_media_player(local_engine, player); /* no view callback runs afterwards */
    canvas.on_frame = NULL;
    agoraish_engine_setup_remote_video(remote_engine, &canvas); /* waits for a picture being rendered */
    agoraish_engine_stop_preview(local_engine);
    agoraish_engine_setup_local_video(local_engine, &canvas);

    report(&view, shown);
    report(&preview, own);
    report(&received, got);
    if (!example_part(local_engine, &local.base, remote_engine, &remote.base)) goto done;
    disc = 3.14159 * RADIUS * RADIUS / (WIDTH * HEIGHT); /* the disc's share of the picture */
    ok = view.pictures >= SECONDS * FPS * 3 / 4 && view.with_alpha == view.pictures && fabs(shown[2] - disc) < 0.03 &&
         fabs(shown[0] - (1 - disc)) < 0.03 && view.first_x >= 0 && view.last_x > view.first_x + 0.3 && /* it moved */
         preview.pictures >= PUSHED * 3 / 4 && preview.with_alpha == preview.pictures && fabs(own[0] - 0.5) < 0.02 &&
         fabs(own[1] - 0.25) < 0.02 && fabs(own[2] - 0.25) < 0.02 && preview.first_x > 0.75 && /* mirrored */
         received.pictures >= PUSHED / 2 && received.with_alpha == 0 && refused == 0;

done:
    if (local_engine) agoraish_engine_release(local_engine, 1); /* also destroys the player */
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local.base);
    example_user_destroy(&remote.base);
    return example_finish(ok, "done: both canvases got their pictures' alpha, and remote the pictures without it");
}
