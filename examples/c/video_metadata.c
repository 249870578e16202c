/*
 * video_metadata.c — Agora's VideoMetadata case in C: a few bytes of the
 * host's own (subtitles, scores, a cue) travel with each video picture and
 * reach the others with that picture's timestamp.
 *
 *   register_media_metadata_observer(observer, AGORAISH_METADATA_TYPE_VIDEO)
 *   -> get_max_metadata_size                 (asked once, when registered)
 *   -> enable_video -> join_channel
 *   -> on_ready_to_send_metadata(metadata)   (each picture sent: fill the buffer, return 1)
 *   -> on_metadata_received(metadata) on the others, with the picture's timestamp
 *   -> leave_channel -> register_media_metadata_observer(NULL) -> release
 *
 * Both users register the same observer (Agora's IMetadataObserver is one
 * object for both directions). "local" pushes 20 pictures of 320x240 at
 * 15 fps through an external source (no camera here), and its observer
 * attaches "frame <timestamp>" to each one it sends; "remote", a second
 * engine in the same process, renders the pictures and prints each piece of
 * metadata as it arrives. The metadata travels reliably beside the video
 * (on the media path, as a data stream does) and carries the timestamp the
 * picture was pushed with. The example checks that what arrived names its
 * own timestamp, in order, and that most pictures brought some. Audio is off
 * on both engines.
 *
 *   make hosts && build/examples/video_metadata
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "video-metadata"
#define WIDTH 320
#define HEIGHT 240
#define FPS 15
#define PUSHED 20
#define MAX_METADATA 64 /* what this host's metadata needs (Agora's case asks for 1024) */
#define SETTLE_MS 500

/* ---- one user's events, and what its observer and view saw ------------------------- */

typedef struct {
    example_user base; /* first, so the handler's user_data is both */
    /* Guarded by base.mutex. */
    int attached;                  /* metadata its observer attached to pictures sent */
    int received, mismatched, out_of_order;
    int64_t last_timestamp;
    uint32_t sender;
    int pictures;                  /* pictures its remote view rendered */
} user_t;

static void on_leave_channel(agoraish_engine_t *e, void *ud, const agoraish_rtc_stats *stats) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_leave_channel after %u s", stats->duration);
    example_lock(&u->base);
    u->base.left = 1;
    example_changed(&u->base);
}

static void on_first_remote_video_frame(agoraish_engine_t *e, void *ud, uint32_t uid, int width, int height,
                                        int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_remote_video_frame uid %u, %dx%d, %d ms", uid, width, height, elapsed);
}

/* The remote view: a render sink that counts pictures (engine's video thread). */
static void on_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    user_t *u = ud;
    (void)e;
    (void)uid;
    (void)f;
    example_lock(&u->base);
    u->pictures++;
    example_unlock(&u->base);
}

static int bind_view(agoraish_engine_t *engine, uint32_t uid, user_t *u) {
    agoraish_video_canvas canvas;
    memset(&canvas, 0, sizeof canvas);
    canvas.struct_size = sizeof canvas;
    canvas.uid = uid;
    canvas.on_frame = u ? on_frame : NULL;
    canvas.user_data = u;
    return agoraish_engine_setup_remote_video(engine, &canvas);
}

/* A user joined: a view for it. */
static void on_user_joined(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    user_t *u = ud;
    say(u->base.name, "on_user_joined uid %u, %d ms: setup_remote_video = %d", uid, elapsed, bind_view(e, uid, u));
    example_lock(&u->base);
    u->base.peer = uid;
    example_changed(&u->base);
}

/* ---- the metadata observer ----------------------------------------------------------- */

/* How many bytes a picture's metadata may take: asked once, when the observer is registered. */
static int get_max_metadata_size(agoraish_engine_t *e, void *ud) {
    (void)e;
    (void)ud;
    return MAX_METADATA;
}

/* A picture is being sent (on the thread that pushes it): its metadata, "frame <timestamp>". */
static int on_ready_to_send_metadata(agoraish_engine_t *e, void *ud, agoraish_metadata *metadata) {
    user_t *u = ud;
    int n = snprintf((char *)metadata->buffer, metadata->size, "frame %" PRId64, metadata->timestamp_ms);
    (void)e;
    if (n < 0 || (uint32_t)n >= metadata->size) return 0; /* does not fit: nothing for this picture */
    metadata->size = (uint32_t)n;
    example_lock(&u->base);
    u->attached++;
    example_unlock(&u->base);
    return 1;
}

/* Metadata of another user's picture (event thread); the buffer is valid during the call only. */
static void on_metadata_received(agoraish_engine_t *e, void *ud, const agoraish_metadata *metadata) {
    user_t *u = ud;
    char expected[32];
    const int shown = metadata->size < 63 ? (int)metadata->size : 63;
    (void)e;
    snprintf(expected, sizeof expected, "frame %" PRId64, metadata->timestamp_ms);
    say(u->base.name, "on_metadata_received uid %u, picture of %" PRId64 " ms: \"%.*s\"", metadata->uid,
        metadata->timestamp_ms, shown, (const char *)metadata->buffer);
    example_lock(&u->base);
    if (metadata->size != strlen(expected) || memcmp(metadata->buffer, expected, metadata->size) != 0) u->mismatched++;
    if (u->received > 0 && metadata->timestamp_ms <= u->last_timestamp) u->out_of_order++;
    u->last_timestamp = metadata->timestamp_ms;
    u->sender = metadata->uid;
    u->received++;
    example_changed(&u->base);
}

static int register_observer(agoraish_engine_t *engine, user_t *u) {
    agoraish_metadata_observer observer;
    memset(&observer, 0, sizeof observer);
    observer.struct_size = sizeof observer;
    observer.user_data = u;
    observer.get_max_metadata_size = get_max_metadata_size;
    observer.on_ready_to_send_metadata = on_ready_to_send_metadata;
    observer.on_metadata_received = on_metadata_received;
    return agoraish_engine_register_media_metadata_observer(engine, &observer, AGORAISH_METADATA_TYPE_VIDEO);
}

/* ---- engines --------------------------------------------------------------------------- */

static agoraish_engine_t *create_user(user_t *u, const char *name, const char *server_url) {
    agoraish_event_handler handler;

    memset(u, 0, sizeof *u);
    example_user_init(&u->base, name);
    example_handler(&handler, &u->base);
    handler.on_user_joined = on_user_joined;
    handler.on_leave_channel = on_leave_channel;
    handler.on_first_remote_video_frame = on_first_remote_video_frame;
    return example_create_engine(&u->base, &handler, server_url);
}

/* ---- local's "camera" ------------------------------------------------------------------- */

/* Picture `n`: a grey gradient with a bright bar that moves down. */
static int push_picture(agoraish_engine_t *engine, uint8_t *planes, int n) {
    agoraish_external_video_frame frame;
    uint8_t *y = planes, *u = y + WIDTH * HEIGHT, *v = u + WIDTH * HEIGHT / 4;
    const int bar_top = n * 8 % HEIGHT;
    for (int row = 0; row < HEIGHT; row++) {
        const int bar = row >= bar_top && row < bar_top + 8;
        for (int col = 0; col < WIDTH; col++) y[row * WIDTH + col] = (uint8_t)(bar ? 235 : 40 + 160 * col / WIDTH);
    }
    memset(u, 128, WIDTH * HEIGHT / 4);
    memset(v, 128, WIDTH * HEIGHT / 4);
    memset(&frame, 0, sizeof frame);
    frame.struct_size = sizeof frame;
    frame.format = AGORAISH_VIDEO_PIXEL_I420;
    frame.width = WIDTH;
    frame.height = HEIGHT;
    frame.y_buffer = y;
    frame.u_buffer = u;
    frame.v_buffer = v;
    frame.y_stride = WIDTH;
    frame.u_stride = frame.v_stride = WIDTH / 2;
    frame.timestamp = (int64_t)n * 1000 / FPS; /* what the metadata will carry */
    return agoraish_engine_push_external_video_frame(engine, &frame);
}

int main(void) {
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    agoraish_video_encoder_configuration encoder;
    user_t local, remote;
    uint8_t *planes = malloc((size_t)WIDTH * HEIGHT * 3 / 2);
    struct timespec start;
    char url[128];
    int ok = 0, rc, refused = 0, attached = 0;
    uint32_t local_uid = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);
    if (!planes) goto done;

    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(&local, "local", url);
    remote_engine = create_user(&remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;

    /* Both: the observer, video on, audio off. */
    say("local", "register_media_metadata_observer(VIDEO) = %d", register_observer(local_engine, &local));
    say("remote", "register_media_metadata_observer(VIDEO) = %d", register_observer(remote_engine, &remote));
    agoraish_engine_disable_audio(local_engine);
    agoraish_engine_disable_audio(remote_engine);
    agoraish_engine_enable_video(local_engine);
    agoraish_engine_enable_video(remote_engine);

    /* local sends what it pushes: 320x240 at 15 fps. */
    memset(&encoder, 0, sizeof encoder);
    encoder.struct_size = sizeof encoder;
    encoder.width = WIDTH;
    encoder.height = HEIGHT;
    encoder.frame_rate = FPS;
    encoder.min_bitrate = -1;
    encoder.codec_type = AGORAISH_VIDEO_CODEC_VP8;
    say("local", "set_video_encoder_configuration(%dx%d, %d fps) = %d", WIDTH, HEIGHT, FPS,
        agoraish_engine_set_video_encoder_configuration(local_engine, &encoder));
    say("local", "set_external_video_source(1) = %d (no camera here)",
        agoraish_engine_set_external_video_source(local_engine, 1));

    if (example_meet(CHANNEL, local_engine, &local.base, 0, remote_engine, &remote.base, 0) != 0) goto done;
    local_uid = example_peer(&remote.base);

    say("local", "pushing %d pictures of %dx%d at %d fps", PUSHED, WIDTH, HEIGHT, FPS);
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int n = 0; n < PUSHED; n++) {
        if ((rc = push_picture(local_engine, planes, n)) != 0 && refused++ == 0) {
            say("local", "push_external_video_frame(%d) = %d", n, rc);
        }
        sleep_until(&start, (long)(n + 1) * 1000 / FPS);
    }
    sleep_until(&start, (long)PUSHED * 1000 / FPS + SETTLE_MS);

    bind_view(remote_engine, local_uid, NULL); /* waits for a picture being rendered */
    if (!example_part(local_engine, &local.base, remote_engine, &remote.base)) goto done;
    agoraish_engine_register_media_metadata_observer(local_engine, NULL, AGORAISH_METADATA_TYPE_VIDEO);
    agoraish_engine_register_media_metadata_observer(remote_engine, NULL, AGORAISH_METADATA_TYPE_VIDEO);

    example_lock(&local.base);
    attached = local.attached;
    example_unlock(&local.base);
    say("local", "pushed %d pictures (%d refused), attached metadata to %d", PUSHED, refused, attached);
    ok = refused == 0 && attached >= PUSHED * 3 / 4;
    example_lock(&remote.base);
    say("remote", "rendered %d pictures; %d metadata from uid %u, %d not naming their picture, %d out of order",
        remote.pictures, remote.received, remote.sender, remote.mismatched, remote.out_of_order);
    ok = ok && remote.received >= PUSHED * 3 / 4 && remote.received <= attached && remote.sender == local_uid &&
         remote.mismatched == 0 && remote.out_of_order == 0 && remote.pictures >= PUSHED / 2;
    example_unlock(&remote.base);

done:
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local.base);
    example_user_destroy(&remote.base);
    free(planes);
    return example_finish(ok, "done: remote got each picture's metadata with its timestamp, in order");
}
