/*
 * custom_video_render.c — Agora's CustomVideoRender case in C: the host
 * draws what a user sees, instead of a view the SDK draws into.
 *
 *   enable_video -> join_channel -> on_user_joined
 *   -> setup_remote_video(uid, render sink) -> on_first_remote_video_decoded
 *   -> the sink gets every decoded picture, on the engine's video thread
 *   -> setup_remote_video(uid, NULL) -> leave_channel -> release
 *
 * "local" renders: its sink gets each decoded picture of the remote user as
 * I420 planes the library owns for the duration of the call, with strides
 * wider than the picture (the decoder's own buffers). It copies them row by
 * row, honoring those strides, into demo-out/custom_video_render.y4m
 * (YUV4MPEG2, which ffplay, mpv or VLC play) and measures the average luma
 * of each. "remote", a second engine in the same process, pushes 45 NV12
 * pictures of 320x240 at 15 fps (three seconds): stripes and a white square
 * that move, over a background that brightens from dark to light, so the
 * first and the last pictures differ. At the end the example prints the
 * count, the size and the average luma of the first and the last picture,
 * and reads the file back.
 *
 *   make hosts && build/examples/custom_video_render
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "custom-video-render"
#define Y4M_PATH "demo-out/custom_video_render.y4m"
#define WIDTH 320
#define HEIGHT 240
#define STRIDE (WIDTH + 32) /* bytes per row of both NV12 planes: the picture's 320 and 32 of padding */
#define FPS 15
#define PUSHED 45           /* three seconds */
#define SETTLE_MS 500       /* after the last push, for the last pictures to be rendered */

/* ---- one user's events, and local's render sink --------------------------------- */

typedef struct {
    example_user base; /* first, so the handler's user_data is both */
    /* Guarded by base.mutex. */
    /* What the render sink saw (local only). */
    FILE *y4m;
    int rendered, width, height, other_sizes;
    double first_luma, last_luma;
} user_t;

static void on_first_local_video_frame_published(agoraish_engine_t *e, void *ud, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_local_video_frame_published, %d ms", elapsed);
}

static void on_first_remote_video_decoded(agoraish_engine_t *e, void *ud, uint32_t uid, int width, int height,
                                          int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_remote_video_decoded uid %u, %dx%d, %d ms", uid, width, height, elapsed);
}

static void on_video_size_changed(agoraish_engine_t *e, void *ud, uint32_t uid, int width, int height, int rotation) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_video_size_changed uid %u, %dx%d, rotation %d", uid, width, height, rotation);
}

/* The average of a plane of `width` x `height` bytes, rows `stride` bytes apart. */
static double average(const uint8_t *plane, int stride, int width, int height) {
    uint64_t sum = 0;
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) sum += plane[(size_t)y * (size_t)stride + (size_t)x];
    }
    return width > 0 && height > 0 ? (double)sum / ((double)width * height) : 0;
}

/* Writes `rows` rows of `width` bytes, `stride` bytes apart: the padding stays out of the file. */
static void write_plane(FILE *f, const uint8_t *plane, int stride, int width, int rows) {
    for (int r = 0; r < rows; r++) fwrite(plane + (size_t)r * (size_t)stride, 1, (size_t)width, f);
}

/* local's render sink, on its engine's video thread: one YUV4MPEG2 frame per
 * picture. The planes are the library's and only valid during the call. */
static void on_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    user_t *u = ud;
    double luma = average(f->y_buffer, f->y_stride, f->width, f->height);
    (void)e;
    (void)uid;
    example_lock(&u->base);
    if (u->rendered == 0) {
        u->width = f->width;
        u->height = f->height;
        u->first_luma = luma;
        say(u->base.name, "first picture: %dx%d, strides %d/%d/%d, average luma %.1f", f->width, f->height, f->y_stride,
            f->u_stride, f->v_stride, luma);
        if (u->y4m) fprintf(u->y4m, "YUV4MPEG2 W%d H%d F%d:1 Ip A1:1 C420jpeg\n", f->width, f->height, FPS);
    }
    if (f->width == u->width && f->height == u->height) {
        if (u->y4m) {
            fputs("FRAME\n", u->y4m);
            write_plane(u->y4m, f->y_buffer, f->y_stride, f->width, f->height);
            write_plane(u->y4m, f->u_buffer, f->u_stride, (f->width + 1) / 2, (f->height + 1) / 2);
            write_plane(u->y4m, f->v_buffer, f->v_stride, (f->width + 1) / 2, (f->height + 1) / 2);
        }
        u->last_luma = luma;
        u->rendered++;
    } else {
        u->other_sizes++; /* a YUV4MPEG2 file has one size */
    }
    example_unlock(&u->base);
}

static agoraish_engine_t *create_user(user_t *u, const char *name, const char *server_url) {
    agoraish_event_handler handler;

    memset(u, 0, sizeof *u);
    example_user_init(&u->base, name);
    example_handler(&handler, &u->base);
    handler.on_first_local_video_frame_published = on_first_local_video_frame_published;
    handler.on_first_remote_video_decoded = on_first_remote_video_decoded;
    handler.on_video_size_changed = on_video_size_changed;
    return example_create_engine(&u->base, &handler, server_url);
}

/* ---- remote's pictures: NV12 with padded rows ------------------------------------- */

/* Picture `n`: a background from luma 40 (n = 0) to 190 (the last), stripes
 * that move 3 pixels per picture, a white square that moves across, and
 * chroma that varies from left to right and top to bottom. The padding at
 * the end of each row holds junk. */
static void draw_picture(uint8_t *y_plane, uint8_t *uv_plane, int n) {
    int base = 40 + 150 * n / (PUSHED - 1);
    int left = 8 + n * (WIDTH - 64) / (PUSHED - 1), top = HEIGHT / 2 - 24;
    for (int y = 0; y < HEIGHT; y++) {
        uint8_t *row = y_plane + (size_t)y * STRIDE;
        for (int x = 0; x < WIDTH; x++) {
            int inside = x >= left && x < left + 48 && y >= top && y < top + 48;
            row[x] = (uint8_t)(inside ? 235 : base + ((x + 3 * n) % 32 < 16 ? 12 : -12));
        }
        memset(row + WIDTH, 0x5A, STRIDE - WIDTH);
    }
    for (int y = 0; y < HEIGHT / 2; y++) {
        uint8_t *row = uv_plane + (size_t)y * STRIDE;
        for (int x = 0; x < WIDTH / 2; x++) {
            row[2 * x] = (uint8_t)(96 + x * 64 / (WIDTH / 2));     /* U */
            row[2 * x + 1] = (uint8_t)(96 + y * 64 / (HEIGHT / 2)); /* V */
        }
        memset(row + WIDTH, 0x5A, STRIDE - WIDTH);
    }
}

/* Reads the file back: the header, the frame count, and the average luma of
 * the first frame. Returns the number of frames, -1 when it is not what was written. */
static int read_y4m(const char *path, int *width, int *height, double *first_luma) {
    char header[128];
    long size;
    int frames = -1;
    uint8_t *luma;
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    if (fgets(header, sizeof header, f) && sscanf(header, "YUV4MPEG2 W%d H%d", width, height) == 2 && *width > 0
        && *height > 0 && (luma = malloc((size_t)*width * (size_t)*height)) != NULL) {
        long frame_size = 6 + (long)*width * *height + 2L * ((*width + 1) / 2) * ((*height + 1) / 2);
        long start = ftell(f);
        char tag[6];
        fseek(f, 0, SEEK_END);
        size = ftell(f) - start;
        fseek(f, start, SEEK_SET);
        if (size % frame_size == 0 && fread(tag, 1, 6, f) == 6 && memcmp(tag, "FRAME\n", 6) == 0
            && fread(luma, 1, (size_t)*width * (size_t)*height, f) == (size_t)*width * (size_t)*height) {
            frames = (int)(size / frame_size);
            *first_luma = average(luma, *width, *width, *height);
        }
        free(luma);
    }
    fclose(f);
    return frames;
}

int main(void) {
    static uint8_t y_plane[STRIDE * HEIGHT], uv_plane[STRIDE * HEIGHT / 2];
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    agoraish_video_encoder_configuration encoder;
    agoraish_external_video_frame frame;
    agoraish_video_canvas canvas;
    user_t local, remote;
    struct timespec start;
    char url[128];
    double pushed_first = 0, pushed_last = 0, file_luma = 0;
    int ok = 0, rc, failed_pushes = 0, file_frames, file_width = 0, file_height = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);
    memset(&canvas, 0, sizeof canvas);

    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(&local, "local", url);
    remote_engine = create_user(&remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;

    /* A video-only call: no microphone, no speaker. */
    agoraish_engine_disable_audio(local_engine);
    agoraish_engine_disable_audio(remote_engine);

    /* local only watches: video on to decode, nothing pushed. */
    agoraish_engine_enable_video(local_engine);

    /* remote sends what it pushes: 320x240 at 15 fps, Agora's standard bitrate. */
    agoraish_engine_set_external_video_source(remote_engine, 1);
    agoraish_engine_enable_video(remote_engine);
    memset(&encoder, 0, sizeof encoder);
    encoder.struct_size = sizeof encoder;
    encoder.width = WIDTH;
    encoder.height = HEIGHT;
    encoder.frame_rate = FPS;
    encoder.bitrate = 0; /* STANDARD_BITRATE */
    encoder.min_bitrate = -1;
    encoder.codec_type = AGORAISH_VIDEO_CODEC_VP8;
    rc = agoraish_engine_set_video_encoder_configuration(remote_engine, &encoder);
    say("remote", "set_video_encoder_configuration(%dx%d, %d fps, standard bitrate) = %d", WIDTH, HEIGHT, FPS, rc);
    if (rc != 0) goto done;

    if (example_meet(CHANNEL, local_engine, &local.base, 0, remote_engine, &remote.base, 0) != 0) goto done;

    /* local renders the remote user into the file. */
    mkdir("demo-out", 0755);
    local.y4m = fopen(Y4M_PATH, "wb");
    if (!local.y4m) {
        fprintf(stderr, "cannot write %s\n", Y4M_PATH);
        goto done;
    }
    canvas.struct_size = sizeof canvas;
    canvas.uid = local.base.peer;
    canvas.on_frame = on_frame;
    canvas.user_data = &local;
    rc = agoraish_engine_setup_remote_video(local_engine, &canvas);
    say("local", "setup_remote_video(uid %u) = %d", canvas.uid, rc);
    if (rc != 0) goto done;

    /* remote's "camera": a picture every 1/15 s, in real time. */
    say("remote", "pushing %d NV12 pictures of %dx%d, %d bytes per row, at %d fps", PUSHED, WIDTH, HEIGHT, STRIDE, FPS);
    memset(&frame, 0, sizeof frame);
    frame.struct_size = sizeof frame;
    frame.format = AGORAISH_VIDEO_PIXEL_NV12;
    frame.width = WIDTH;
    frame.height = HEIGHT;
    frame.y_buffer = y_plane;
    frame.u_buffer = uv_plane; /* interleaved U and V */
    frame.y_stride = STRIDE;
    frame.u_stride = STRIDE;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int n = 0; n < PUSHED; n++) {
        draw_picture(y_plane, uv_plane, n);
        if (n == 0) pushed_first = average(y_plane, STRIDE, WIDTH, HEIGHT);
        if (n == PUSHED - 1) pushed_last = average(y_plane, STRIDE, WIDTH, HEIGHT);
        frame.timestamp = (int64_t)n * 1000 / FPS;
        rc = agoraish_engine_push_external_video_frame(remote_engine, &frame);
        if (rc != 0 && failed_pushes++ == 0) say("remote", "push_external_video_frame(%d) = %d", n, rc);
        sleep_until(&start, (long)(n + 1) * 1000 / FPS);
    }
    sleep_until(&start, (long)PUSHED * 1000 / FPS + SETTLE_MS);

    /* Unbinding waits for a picture being rendered: afterwards the file can be closed. */
    canvas.on_frame = NULL;
    agoraish_engine_setup_remote_video(local_engine, &canvas);
    fclose(local.y4m);
    local.y4m = NULL;

    if (!example_part(local_engine, &local.base, remote_engine, &remote.base)) goto done;

    say("remote", "pushed %d pictures (%d refused), average luma %.1f in the first, %.1f in the last", PUSHED,
        failed_pushes, pushed_first, pushed_last);
    say("local", "rendered %d pictures of %dx%d (%d of another size, left out)", local.rendered, local.width,
        local.height, local.other_sizes);
    say("local", "average luma %.1f in the first picture, %.1f in the last", local.first_luma, local.last_luma);
    file_frames = read_y4m(Y4M_PATH, &file_width, &file_height, &file_luma);
    if (file_frames >= 0) {
        say("local", "%s: %d frames of %dx%d, average luma %.1f in the first", Y4M_PATH, file_frames, file_width,
            file_height, file_luma);
    } else {
        say("local", "%s is not the YUV4MPEG2 file that was written", Y4M_PATH);
    }
    /* The first picture may be a few pictures in (it is the first decoded),
     * the last one is the last pushed; both within a few luma steps of theirs. */
    ok = failed_pushes == 0 && local.rendered >= PUSHED * 9 / 10 && local.width == WIDTH && local.height == HEIGHT
         && local.first_luma > pushed_first - 6 && local.first_luma < pushed_first + 20
         && local.last_luma > pushed_last - 6 && local.last_luma < pushed_last + 6 && file_frames == local.rendered
         && file_width == WIDTH && file_height == HEIGHT && file_luma == local.first_luma;

done:
    if (local.y4m) {
        canvas.on_frame = NULL;
        agoraish_engine_setup_remote_video(local_engine, &canvas);
        fclose(local.y4m);
    }
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local.base);
    example_user_destroy(&remote.base);
    printf("%s\n", ok ? "done: local rendered remote's pictures into " Y4M_PATH : "the call did not go as expected");
    return ok ? 0 : 1;
}
