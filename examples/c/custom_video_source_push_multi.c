/*
 * custom_video_source_push_multi.c — Agora's CustomVideoSourcePushMulti case
 * in C: one engine sends several custom video streams at once, each a custom
 * video track published by a connection of its own, so each is a user of
 * the channel.
 *
 *   create_custom_video_track (one per stream)
 *   -> join_channel_ex({channel, uid}, options: publish_custom_video_track + custom_video_track_id)
 *   -> set_video_encoder_configuration_ex -> push_external_video_frame_by_id at 15 fps, in real time
 *   -> leave_channel_ex -> destroy_custom_video_track -> release
 *
 * "local" creates two tracks and publishes them as uid 101 and uid 102: a
 * bright landscape stream of 320x240 and a dark portrait one of 240x320,
 * each with its picture's number drawn as a row of eight black and white
 * bars. It pushes 45 I420 pictures into each (three seconds); each
 * connection encodes its track with its own encoder. "viewer", a second
 * engine in the same process, renders both users through a sink per uid
 * (setup_remote_video), reads the numbers back, and the example checks that
 * each uid arrived at its own size and brightness, with the numbers in
 * order. Audio is off on both engines: this is a video-only call.
 *
 *   make hosts && build/examples/custom_video_source_push_multi
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "custom-video-source-push-multi"
#define TRACKS 2
#define FPS 15
#define PUSHED 45     /* pictures per track: three seconds */
#define SETTLE_MS 500 /* after the last push, for the last pictures to be rendered */
#define BITS 8        /* the number's bars */

/* What each stream looks like, and the uid that publishes it. */
static const struct {
    uint32_t uid;
    int width, height;
    int luma; /* the background */
    const char *look;
} streams[TRACKS] = {
    {101, 320, 240, 200, "bright, landscape"},
    {102, 240, 320, 60, "dark, portrait"},
};

/* ---- the pictures ----------------------------------------------------------------- */

/* Picture `n` of stream `s` in `y` (the U and V planes stay grey): the
 * stream's background, and the number as BITS bars across the middle rows,
 * black for 1 and white for 0. */
static void draw_picture(uint8_t *y, int s, int n) {
    const int w = streams[s].width, h = streams[s].height;
    memset(y, streams[s].luma, (size_t)w * h);
    for (int row = h / 2 - 8; row < h / 2 + 8; row++) {
        for (int bit = 0; bit < BITS; bit++) {
            memset(y + (size_t)row * w + bit * w / BITS, (n >> bit) & 1 ? 16 : 235, (size_t)(w / BITS));
        }
    }
}

/* The number in a decoded picture: each bar is 1 when the middle of it is dark. */
static int read_number(const agoraish_video_frame *f) {
    int n = 0;
    for (int bit = 0; bit < BITS; bit++) {
        if (f->y_buffer[(f->height / 2) * f->y_stride + bit * f->width / BITS + f->width / (2 * BITS)] < 128) {
            n |= 1 << bit;
        }
    }
    return n;
}

/* The mean luma of the top quarter of a decoded picture: the background. */
static int background(const agoraish_video_frame *f) {
    long sum = 0, count = 0;
    for (int row = 0; row < f->height / 4; row++) {
        for (int x = 0; x < f->width; x++, count++) sum += f->y_buffer[row * f->y_stride + x];
    }
    return count ? (int)(sum / count) : -1;
}

/* ---- local: the connections' events (agoraish_event_handler_ex) ---------------------- */

typedef struct {
    example_user base; /* first, so the handlers' user_data is both */
    /* Guarded by base.mutex. */
    int connected, disconnected; /* connections joined and left */
} local_t;

static void ex_on_join_channel_success(agoraish_engine_t *e, void *ud, const agoraish_rtc_connection *connection,
                                       uint32_t uid, int elapsed) {
    local_t *l = ud;
    (void)e;
    say(l->base.name, "on_join_channel_success {\"%s\", %u}: uid %u, %d ms", connection->channel_id,
        connection->local_uid, uid, elapsed);
    example_lock(&l->base);
    l->connected++;
    example_changed(&l->base);
}

static void ex_on_leave_channel(agoraish_engine_t *e, void *ud, const agoraish_rtc_connection *connection,
                                const agoraish_rtc_stats *stats) {
    local_t *l = ud;
    (void)e;
    say(l->base.name, "on_leave_channel {\"%s\", %u} after %u s: sent %llu bytes", connection->channel_id,
        connection->local_uid, stats->duration, (unsigned long long)stats->tx_bytes);
    example_lock(&l->base);
    l->disconnected++;
    example_changed(&l->base);
}

static int all_connected(const example_user *u) { return ((const local_t *)u)->connected == TRACKS; }
static int all_disconnected(const example_user *u) { return ((const local_t *)u)->disconnected == TRACKS; }

/* ---- viewer: its events and render sink ------------------------------------------------ */

/* What viewer saw of one stream. */
typedef struct {
    int present;
    int rendered, width, height, other_sizes, out_of_order, last, luma;
} view_t;

typedef struct {
    example_user base;
    /* Guarded by base.mutex. */
    view_t views[TRACKS];
} viewer_t;

/* The stream `uid` publishes, or -1. */
static int stream_of(uint32_t uid) {
    for (int s = 0; s < TRACKS; s++) {
        if (streams[s].uid == uid) return s;
    }
    return -1;
}

static void viewer_on_user_joined(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    viewer_t *v = ud;
    int s = stream_of(uid);
    (void)e;
    say(v->base.name, "on_user_joined uid %u, %d ms", uid, elapsed);
    example_lock(&v->base);
    if (s >= 0) v->views[s].present = 1;
    example_changed(&v->base);
}

static void viewer_on_user_offline(agoraish_engine_t *e, void *ud, uint32_t uid, int reason) {
    viewer_t *v = ud;
    int s = stream_of(uid);
    (void)e;
    say(v->base.name, "on_user_offline uid %u, reason %d", uid, reason);
    example_lock(&v->base);
    if (s >= 0) v->views[s].present = 0;
    example_changed(&v->base);
}

static void viewer_on_first_remote_video_decoded(agoraish_engine_t *e, void *ud, uint32_t uid, int width, int height,
                                                 int elapsed) {
    viewer_t *v = ud;
    (void)e;
    say(v->base.name, "on_first_remote_video_decoded uid %u, %dx%d, %d ms", uid, width, height, elapsed);
}

static int sees_all(const example_user *u) {
    const viewer_t *v = (const viewer_t *)u;
    for (int s = 0; s < TRACKS; s++) {
        if (!v->views[s].present) return 0;
    }
    return 1;
}

static int sees_none(const example_user *u) {
    const viewer_t *v = (const viewer_t *)u;
    for (int s = 0; s < TRACKS; s++) {
        if (v->views[s].present) return 0;
    }
    return 1;
}

/* viewer's render sink for every stream, on its engine's video thread; the planes are valid during the call only. */
static void on_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    viewer_t *v = ud;
    int s = stream_of(uid);
    int number = read_number(f), luma = background(f);
    view_t *view;
    (void)e;
    if (s < 0) return;
    example_lock(&v->base);
    view = &v->views[s];
    if (view->rendered == 0) {
        view->width = f->width;
        view->height = f->height;
        say(v->base.name, "first picture of uid %u: %dx%d, background %d, number %d", uid, f->width, f->height, luma,
            number);
    } else if (f->width != view->width || f->height != view->height) {
        view->other_sizes++;
    }
    if (view->rendered > 0 && number <= view->last) view->out_of_order++;
    view->last = number;
    view->luma = luma;
    view->rendered++;
    example_unlock(&v->base);
}

int main(void) {
    static uint8_t planes[TRACKS][320 * 320];
    static uint8_t chroma[160 * 160];
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *viewer_engine = NULL;
    agoraish_event_handler handler;
    agoraish_event_handler_ex handler_ex;
    agoraish_rtc_connection connections[TRACKS];
    agoraish_external_video_frame frames[TRACKS];
    agoraish_video_canvas canvas;
    int32_t tracks[TRACKS] = {0};
    local_t local;
    viewer_t viewer;
    struct timespec start;
    char url[128];
    int ok = 0, rc, failed_pushes = 0, s;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&viewer, 0, sizeof viewer);
    memset(chroma, 128, sizeof chroma);

    if (!(server = example_start_server(url, sizeof url))) goto done;
    example_user_init(&local.base, "local");
    example_handler(&handler, &local.base);
    local_engine = example_create_engine(&local.base, &handler, url);
    example_user_init(&viewer.base, "viewer");
    example_handler(&handler, &viewer.base);
    handler.on_user_joined = viewer_on_user_joined;
    handler.on_user_offline = viewer_on_user_offline;
    handler.on_first_remote_video_decoded = viewer_on_first_remote_video_decoded;
    viewer_engine = example_create_engine(&viewer.base, &handler, url);
    if (!local_engine || !viewer_engine) goto done;

    /* A video-only call: no microphone, no speaker. viewer decodes what it receives. */
    agoraish_engine_disable_audio(local_engine);
    agoraish_engine_disable_audio(viewer_engine);
    agoraish_engine_enable_video(viewer_engine);
    rc = agoraish_engine_join_channel(viewer_engine, NULL, CHANNEL, NULL, 10);
    say("viewer", "join_channel(\"%s\", 10) = %d", CHANNEL, rc);
    if (rc != 0 || !example_wait(&viewer.base, example_is_joined, "join")) goto done;

    /* local: a custom video track per stream, each published by a connection of its own. */
    memset(&handler_ex, 0, sizeof handler_ex);
    handler_ex.struct_size = sizeof handler_ex;
    handler_ex.on_join_channel_success = ex_on_join_channel_success;
    handler_ex.on_leave_channel = ex_on_leave_channel;
    for (s = 0; s < TRACKS; s++) {
        agoraish_channel_media_options options;
        rc = agoraish_engine_create_custom_video_track(local_engine, &tracks[s]);
        say("local", "create_custom_video_track() = %d: track %d", rc, tracks[s]);
        if (rc != 0) goto done;
        memset(&options, 0, sizeof options);
        options.struct_size = sizeof options;
        options.has_publish_microphone_track = 1, options.publish_microphone_track = 0;
        options.has_publish_custom_video_track = 1, options.publish_custom_video_track = 1;
        options.has_custom_video_track_id = 1, options.custom_video_track_id = tracks[s];
        options.has_auto_subscribe_audio = 1, options.auto_subscribe_audio = 0;
        options.has_auto_subscribe_video = 1, options.auto_subscribe_video = 0; /* local only sends */
        memset(&connections[s], 0, sizeof connections[s]);
        connections[s].struct_size = sizeof connections[s];
        connections[s].channel_id = CHANNEL;
        connections[s].local_uid = streams[s].uid;
        rc = agoraish_engine_join_channel_ex(local_engine, NULL, &connections[s], &options, &handler_ex, &local);
        say("local", "join_channel_ex({\"%s\", %u}, track %d) = %d", CHANNEL, streams[s].uid, tracks[s], rc);
        if (rc != 0) goto done;
    }
    if (!example_wait(&local.base, all_connected, "join of every connection")) goto done;

    /* Each connection's own encoder: its stream's size, 15 fps. */
    for (s = 0; s < TRACKS; s++) {
        agoraish_video_encoder_configuration encoder;
        memset(&encoder, 0, sizeof encoder);
        encoder.struct_size = sizeof encoder;
        encoder.width = streams[s].width;
        encoder.height = streams[s].height;
        encoder.frame_rate = FPS;
        encoder.bitrate = 0; /* STANDARD_BITRATE */
        encoder.min_bitrate = -1;
        encoder.codec_type = AGORAISH_VIDEO_CODEC_VP8;
        rc = agoraish_engine_set_video_encoder_configuration_ex(local_engine, &encoder, &connections[s]);
        say("local", "set_video_encoder_configuration_ex(%dx%d, uid %u) = %d", encoder.width, encoder.height,
            streams[s].uid, rc);
        if (rc != 0) goto done;
    }

    /* viewer sees a user per stream, and renders each. */
    if (!example_wait(&viewer.base, sees_all, "user of every stream")) goto done;
    memset(&canvas, 0, sizeof canvas);
    canvas.struct_size = sizeof canvas;
    canvas.on_frame = on_frame;
    canvas.user_data = &viewer;
    for (s = 0; s < TRACKS; s++) {
        canvas.uid = streams[s].uid;
        rc = agoraish_engine_setup_remote_video(viewer_engine, &canvas);
        say("viewer", "setup_remote_video(uid %u) = %d", canvas.uid, rc);
        if (rc != 0) goto done;
    }

    /* local's "cameras": a picture into each track every 1/15 s, in real time. */
    for (s = 0; s < TRACKS; s++) {
        memset(&frames[s], 0, sizeof frames[s]);
        frames[s].struct_size = sizeof frames[s];
        frames[s].format = AGORAISH_VIDEO_PIXEL_I420;
        frames[s].width = streams[s].width;
        frames[s].height = streams[s].height;
        frames[s].y_buffer = planes[s];
        frames[s].u_buffer = frames[s].v_buffer = chroma;
        frames[s].y_stride = streams[s].width;
        frames[s].u_stride = frames[s].v_stride = streams[s].width / 2;
        say("local", "pushing %d pictures of %dx%d (%s) into track %d", PUSHED, streams[s].width, streams[s].height,
            streams[s].look, tracks[s]);
    }
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int n = 0; n < PUSHED; n++) {
        for (s = 0; s < TRACKS; s++) {
            draw_picture(planes[s], s, n);
            frames[s].timestamp = (int64_t)n * 1000 / FPS;
            rc = agoraish_engine_push_external_video_frame_by_id(local_engine, &frames[s], tracks[s]);
            if (rc != 0 && failed_pushes++ == 0) say("local", "push_external_video_frame_by_id(%d) = %d", n, rc);
        }
        sleep_until(&start, (long)(n + 1) * 1000 / FPS);
    }
    sleep_until(&start, (long)PUSHED * 1000 / FPS + SETTLE_MS);

    /* Unbinding waits for a picture being rendered: afterwards the counts stay put. */
    canvas.on_frame = NULL;
    for (s = 0; s < TRACKS; s++) {
        canvas.uid = streams[s].uid;
        agoraish_engine_setup_remote_video(viewer_engine, &canvas);
    }

    /* Each connection leaves; viewer sees its users go. */
    for (s = 0; s < TRACKS; s++) {
        rc = agoraish_engine_leave_channel_ex(local_engine, &connections[s]);
        say("local", "leave_channel_ex({\"%s\", %u}) = %d", CHANNEL, streams[s].uid, rc);
    }
    if (!example_wait(&local.base, all_disconnected, "leave of every connection") ||
        !example_wait(&viewer.base, sees_none, "user offline")) {
        goto done;
    }
    for (s = 0; s < TRACKS; s++) {
        rc = agoraish_engine_destroy_custom_video_track(local_engine, tracks[s]);
        say("local", "destroy_custom_video_track(%d) = %d", tracks[s], rc);
    }
    agoraish_engine_leave_channel(viewer_engine);
    if (!example_wait(&viewer.base, example_has_left, "leave")) goto done;

    /* What arrived of each stream: how many, at what size and brightness, the numbers in order. */
    say("local", "pushed %d pictures into each of %d tracks, %d refused", PUSHED, TRACKS, failed_pushes);
    ok = failed_pushes == 0;
    for (s = 0; s < TRACKS; s++) {
        const view_t *v = &viewer.views[s];
        int good = v->rendered >= PUSHED * 9 / 10 && v->width == streams[s].width && v->height == streams[s].height &&
                   v->other_sizes == 0 && v->out_of_order == 0 && abs(v->luma - streams[s].luma) < 16;
        say("viewer", "uid %u: %d pictures of %dx%d (%d of another size), background %d (%s), numbers %s, last %d",
            streams[s].uid, v->rendered, v->width, v->height, v->other_sizes, v->luma, streams[s].look,
            v->out_of_order ? "NOT in order" : "in order", v->last);
        ok = ok && good;
    }

done:
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (viewer_engine) agoraish_engine_release(viewer_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local.base);
    example_user_destroy(&viewer.base);
    return example_finish(ok, "done: viewer received both custom video tracks, each as its own user");
}
