/*
 * custom_video_source_push.c — Agora's CustomVideoSourcePush case in C: the
 * host supplies the pictures a user sends, instead of a camera.
 *
 *   set_external_video_source(1) -> enable_video -> set_video_encoder_configuration
 *   -> join_channel -> push_external_video_frame at 15 fps, in real time
 *   -> on_first_local_video_frame_published -> leave_channel -> release
 *
 * "local" pushes 45 generated RGBA pictures of 320x240 (three seconds): a
 * moving colour gradient with the picture's number drawn on it in seven-
 * segment digits. Each row of the buffer is 64 bytes longer than the
 * picture (y_stride 1344 instead of 1280) and the padding holds junk, as
 * the rows of a camera or a decoder often do; the engine converts the
 * pixels to I420, encodes them with VP8 and sends them. "remote", a second
 * engine in the same process, renders them through a sink bound with
 * setup_remote_video, reads the number back out of each decoded picture,
 * and the example checks that the pictures arrived, at their size, with the
 * numbers in order. Audio is off on both engines: this is a video-only call.
 *
 *   make hosts && build/examples/custom_video_source_push
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "custom-video-source-push"
#define WIDTH 320
#define HEIGHT 240
#define STRIDE (WIDTH * 4 + 64) /* bytes per row: the picture's 1280 and 64 of padding */
#define FPS 15
#define PUSHED 45               /* three seconds */
#define SETTLE_MS 500           /* after the last push, for the last pictures to be rendered */

/* ---- the number in a picture: three seven-segment digits ---------------------- */

/* Segments a..g of a 32x56 digit cell, as x0, y0, x1, y1 (8 pixels thick):
 *
 *     aa
 *    f  b
 *     gg
 *    e  c
 *     dd
 */
static const int segment_box[7][4] = {
    {8, 0, 24, 8}, {24, 8, 32, 24}, {24, 32, 32, 48}, {8, 48, 24, 56}, {0, 32, 8, 48}, {0, 8, 8, 24}, {8, 24, 24, 32},
};
/* The segments lit for 0..9 (bit 0 is a). */
static const unsigned char digit_segments[10] = {0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x7D, 0x07, 0x7F, 0x6F};

#define DIGITS 3
#define CELL_W 32
#define CELL_H 56
#define CELL_GAP 12
#define BOX_X 16 /* the black box the digits are drawn on, 8 pixels of margin around them */
#define BOX_Y 16
#define BOX_W (8 + DIGITS * CELL_W + (DIGITS - 1) * CELL_GAP + 8)
#define BOX_H (8 + CELL_H + 8)

static int cell_x(int digit) { return BOX_X + 8 + digit * (CELL_W + CELL_GAP); }

/* Fills a rectangle of the RGBA picture with one colour. */
static void fill_rgba(uint8_t *rgba, int x0, int y0, int x1, int y1, uint8_t r, uint8_t g, uint8_t b) {
    for (int y = y0; y < y1; y++) {
        uint8_t *p = rgba + (size_t)y * STRIDE + (size_t)x0 * 4;
        for (int x = x0; x < x1; x++, p += 4) {
            p[0] = r;
            p[1] = g;
            p[2] = b;
            p[3] = 255;
        }
    }
}

/* Picture `n`: a gradient that moves 4 pixels per picture, the number in white
 * on black, and junk in the padding of every row. */
static void draw_picture(uint8_t *rgba, int n) {
    for (int y = 0; y < HEIGHT; y++) {
        uint8_t *row = rgba + (size_t)y * STRIDE;
        for (int x = 0; x < WIDTH; x++) {
            row[4 * x + 0] = (uint8_t)((x + 4 * n) & 0xFF);
            row[4 * x + 1] = (uint8_t)(y * 255 / (HEIGHT - 1));
            row[4 * x + 2] = 160;
            row[4 * x + 3] = 255;
        }
        memset(row + WIDTH * 4, 0xA5, STRIDE - WIDTH * 4); /* not part of the picture */
    }
    fill_rgba(rgba, BOX_X, BOX_Y, BOX_X + BOX_W, BOX_Y + BOX_H, 0, 0, 0);
    for (int d = 0, value = n; d < DIGITS; d++) {
        int digit = value / (d == 0 ? 100 : d == 1 ? 10 : 1) % 10;
        for (int s = 0; s < 7; s++) {
            if (digit_segments[digit] >> s & 1) {
                const int *b = segment_box[s];
                fill_rgba(rgba, cell_x(d) + b[0], BOX_Y + 8 + b[1], cell_x(d) + b[2], BOX_Y + 8 + b[3], 255, 255, 255);
            }
        }
    }
}

/* The number read from a decoded luma plane (`stride` bytes per row), or -1
 * when a digit is not one: each segment is lit when the middle of it is bright. */
static int read_number(const uint8_t *luma, int stride) {
    int number = 0;
    for (int d = 0; d < DIGITS; d++) {
        int lit = 0, digit = -1;
        for (int s = 0; s < 7; s++) {
            const int *b = segment_box[s];
            int sum = 0, count = 0;
            for (int y = BOX_Y + 8 + b[1] + 2; y < BOX_Y + 8 + b[3] - 2; y++) {
                for (int x = cell_x(d) + b[0] + 2; x < cell_x(d) + b[2] - 2; x++, count++) sum += luma[y * stride + x];
            }
            if (sum > 128 * count) lit |= 1 << s;
        }
        for (int i = 0; i < 10; i++) {
            if (digit_segments[i] == lit) digit = i;
        }
        if (digit < 0) return -1;
        number = number * 10 + digit;
    }
    return number;
}

/* ---- one user's events, and remote's render sink -------------------------------- */

typedef struct {
    example_user base; /* first, so the handler's user_data is both */
    /* Guarded by base.mutex. */
    /* What the render sink saw (remote only). */
    int rendered, width, height, other_sizes, unreadable, out_of_order, first, last;
    unsigned char seen[PUSHED];
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

/* remote's render sink, on its engine's video thread: reads the number out of
 * every picture; the planes are only valid during the call. */
static void on_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    user_t *u = ud;
    int number = f->width == WIDTH && f->height == HEIGHT ? read_number(f->y_buffer, f->y_stride) : -1;
    (void)e;
    (void)uid;
    example_lock(&u->base);
    if (u->rendered == 0) {
        u->width = f->width;
        u->height = f->height;
        say(u->base.name, "first picture: %dx%d, strides %d/%d/%d, number %d", f->width, f->height, f->y_stride,
            f->u_stride, f->v_stride, number);
    } else if (f->width != u->width || f->height != u->height) {
        u->other_sizes++;
    }
    if (number < 0) {
        u->unreadable++;
    } else {
        if (u->last >= 0 && number <= u->last) u->out_of_order++;
        if (u->first < 0) u->first = number;
        if (number < PUSHED) u->seen[number] = 1;
        u->last = number;
    }
    u->rendered++;
    example_unlock(&u->base);
}

static agoraish_engine_t *create_user(user_t *u, const char *name, const char *server_url) {
    agoraish_event_handler handler;

    memset(u, 0, sizeof *u);
    example_user_init(&u->base, name);
    u->first = u->last = -1;
    example_handler(&handler, &u->base);
    handler.on_first_local_video_frame_published = on_first_local_video_frame_published;
    handler.on_first_remote_video_decoded = on_first_remote_video_decoded;
    handler.on_video_size_changed = on_video_size_changed;
    return example_create_engine(&u->base, &handler, server_url);
}

int main(void) {
    static uint8_t rgba[STRIDE * HEIGHT];
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    agoraish_video_encoder_configuration encoder;
    agoraish_external_video_frame frame;
    agoraish_video_canvas canvas;
    user_t local, remote;
    struct timespec start;
    char url[128];
    int ok = 0, rc, failed_pushes = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);

    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(&local, "local", url);
    remote_engine = create_user(&remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;

    /* A video-only call: no microphone, no speaker. */
    agoraish_engine_disable_audio(local_engine);
    agoraish_engine_disable_audio(remote_engine);

    /* local sends what it pushes: 320x240 at 15 fps, Agora's standard bitrate. */
    rc = agoraish_engine_set_external_video_source(local_engine, 1);
    say("local", "set_external_video_source(1) = %d", rc);
    if (rc != 0) goto done;
    agoraish_engine_enable_video(local_engine);
    memset(&encoder, 0, sizeof encoder);
    encoder.struct_size = sizeof encoder;
    encoder.width = WIDTH;
    encoder.height = HEIGHT;
    encoder.frame_rate = FPS;
    encoder.bitrate = 0; /* STANDARD_BITRATE */
    encoder.min_bitrate = -1;
    encoder.codec_type = AGORAISH_VIDEO_CODEC_VP8;
    rc = agoraish_engine_set_video_encoder_configuration(local_engine, &encoder);
    say("local", "set_video_encoder_configuration(%dx%d, %d fps, standard bitrate) = %d", WIDTH, HEIGHT, FPS, rc);
    if (rc != 0) goto done;

    /* remote decodes what it receives. */
    agoraish_engine_enable_video(remote_engine);

    if (example_meet(CHANNEL, local_engine, &local.base, 0, remote_engine, &remote.base, 0) != 0) goto done;

    /* remote renders local's pictures. */
    memset(&canvas, 0, sizeof canvas);
    canvas.struct_size = sizeof canvas;
    canvas.uid = remote.base.peer;
    canvas.on_frame = on_frame;
    canvas.user_data = &remote;
    rc = agoraish_engine_setup_remote_video(remote_engine, &canvas);
    say("remote", "setup_remote_video(uid %u) = %d", canvas.uid, rc);
    if (rc != 0) goto done;

    /* local's "camera": a picture every 1/15 s, in real time. */
    say("local", "pushing %d RGBA pictures of %dx%d, %d bytes per row, at %d fps", PUSHED, WIDTH, HEIGHT, STRIDE, FPS);
    memset(&frame, 0, sizeof frame);
    frame.struct_size = sizeof frame;
    frame.format = AGORAISH_VIDEO_PIXEL_RGBA;
    frame.width = WIDTH;
    frame.height = HEIGHT;
    frame.y_buffer = rgba;
    frame.y_stride = STRIDE;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int n = 0; n < PUSHED; n++) {
        draw_picture(rgba, n);
        frame.timestamp = (int64_t)n * 1000 / FPS;
        rc = agoraish_engine_push_external_video_frame(local_engine, &frame);
        if (rc != 0 && failed_pushes++ == 0) say("local", "push_external_video_frame(%d) = %d", n, rc);
        sleep_until(&start, (long)(n + 1) * 1000 / FPS);
    }
    sleep_until(&start, (long)PUSHED * 1000 / FPS + SETTLE_MS);

    /* Unbinding waits for a picture being rendered: afterwards the counts stay put. */
    canvas.on_frame = NULL;
    agoraish_engine_setup_remote_video(remote_engine, &canvas);

    if (!example_part(local_engine, &local.base, remote_engine, &remote.base)) goto done;

    /* What arrived: how many, at what size, and the numbers in them. */
    {
        char missing[128] = "none";
        size_t used = 0;
        for (int n = 0, listed = 0; n < PUSHED; n++) {
            if (remote.seen[n]) continue;
            if (listed++ == 8) {
                snprintf(missing + used, sizeof missing - used, ", ...");
                break;
            }
            used += (size_t)snprintf(missing + used, sizeof missing - used, "%s%d", used ? ", " : "", n);
        }
        say("local", "pushed %d pictures, %d refused", PUSHED, failed_pushes);
        say("remote", "rendered %d pictures of %dx%d (%d of another size, %d unreadable)", remote.rendered,
            remote.width, remote.height, remote.other_sizes, remote.unreadable);
        if (remote.first >= 0) {
            say("remote", "numbers %d to %d, %s; not seen: %s", remote.first, remote.last,
                remote.out_of_order ? "NOT in order" : "in order", missing);
        } else {
            say("remote", "no number could be read");
        }
    }
    ok = failed_pushes == 0 && remote.rendered >= PUSHED * 9 / 10 && remote.width == WIDTH && remote.height == HEIGHT
         && remote.other_sizes == 0 && remote.out_of_order == 0 && remote.unreadable == 0;

done:
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local.base);
    example_user_destroy(&remote.base);
    return example_finish(ok, "done: remote rendered local's pictures in order");
}
