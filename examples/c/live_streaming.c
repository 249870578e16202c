/*
 * live_streaming.c — Agora's LiveStreaming case in C: a host broadcasts
 * video with dual stream on; the audience watches, and one viewer switches
 * to the low stream.
 *
 *   set_channel_profile(LIVE_BROADCASTING) -> set_client_role(BROADCASTER | AUDIENCE)
 *   host:     enable_video -> enable_dual_stream_mode(1) -> setup_local_video -> join_channel
 *   audience: enable_video -> join_channel -> on_user_joined(host) -> setup_remote_video(host)
 *             -> set_remote_video_stream_type(host, 1)   (one viewer, in the middle of the show)
 *   -> on_remote_video_stats (rx_stream_type), on_local_video_stats, on_video_size_changed
 *   -> leave_channel -> release
 *
 * "host" pushes 640x360 pictures at 15 fps for four seconds (this machine
 * has no camera): the engine sends them as they are (the high stream) and a
 * second time fitted inside 320x180 at half the frame rate (the low stream).
 * In live broadcasting STANDARD_BITRATE is twice Agora's base rate. "viewer1"
 * and "viewer2" join as audience: invisible to the host (no on_user_joined
 * there), they each render the host in a view. After 1.5 s viewer1 asks for
 * the low stream; the server switches it at the low stream's next keyframe,
 * while viewer2 keeps the high one. The example prints each view's sizes and
 * the statistics as they come.
 *
 *   make hosts && build/examples/live_streaming
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "live-streaming"
#define HOST_UID 100
#define FPS 15
#define SHOW_MS 4000
#define SWITCH_MS 1500 /* when viewer1 asks for the low stream */
#define SETTLE_MS 300

/* ---- one user: its events and its view of the host -------------------------------- */

typedef struct {
    example_user base;             /* first, so the handler's user_data is both */
    agoraish_engine_t *engine;
    /* Guarded by base.mutex. */
    int users_joined;
    uint32_t host;                 /* the broadcaster seen (audience) */
    int high, low, other;          /* pictures rendered at 640x360, 320x180, another size */
    double first_low_at;           /* seconds: the first 320x180 picture */
    int last_width, last_height;
    int local_pictures;            /* the host's local view */
} user_t;

static void on_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    user_t *u = ud;
    (void)e;
    example_lock(&u->base);
    if (uid == 0) {
        u->local_pictures++;
    } else if (f->width == 640 && f->height == 360) {
        u->high++;
    } else if (f->width == 320 && f->height == 180) {
        if (u->low++ == 0) u->first_low_at = seconds();
    } else {
        u->other++;
    }
    u->last_width = f->width;
    u->last_height = f->height;
    example_unlock(&u->base);
}

static int bind_view(agoraish_engine_t *engine, uint32_t uid, user_t *u) {
    agoraish_video_canvas canvas;
    memset(&canvas, 0, sizeof canvas);
    canvas.struct_size = sizeof canvas;
    canvas.uid = uid;
    canvas.on_frame = u ? on_frame : NULL;
    canvas.user_data = u;
    return uid == 0 ? agoraish_engine_setup_local_video(engine, &canvas)
                    : agoraish_engine_setup_remote_video(engine, &canvas);
}

/* A broadcaster joined (the audience is never announced): watch it. */
static void on_user_joined(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    user_t *u = ud;
    say(u->base.name, "on_user_joined uid %u, %d ms: setup_remote_video = %d", uid, elapsed, bind_view(e, uid, u));
    example_lock(&u->base);
    u->users_joined++;
    u->host = uid;
    example_changed(&u->base);
}

static void on_user_offline(agoraish_engine_t *e, void *ud, uint32_t uid, int reason) {
    user_t *u = ud;
    say(u->base.name, "on_user_offline uid %u, reason %d: setup_remote_video(NULL) = %d", uid, reason,
        bind_view(e, uid, NULL));
    example_lock(&u->base);
    if (u->host == uid) u->host = 0;
    example_changed(&u->base);
}

static void on_client_role_changed(agoraish_engine_t *e, void *ud, int old_role, int new_role) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_client_role_changed %d -> %d", old_role, new_role);
}

static void on_video_size_changed(agoraish_engine_t *e, void *ud, uint32_t uid, int width, int height, int rotation) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_video_size_changed uid %u: %dx%d, rotation %d", uid, width, height, rotation);
}

static void on_local_video_stats(agoraish_engine_t *e, void *ud, const agoraish_local_video_stats *s) {
    user_t *u = ud;
    (void)e;
    if (s->sent_bitrate == 0) return; /* the audience sends nothing */
    say(u->base.name, "on_local_video_stats: sent %d Kbps (both streams) at %d fps, target %d Kbps, encoded %dx%d",
        s->sent_bitrate, s->sent_frame_rate, s->target_bitrate, s->encoded_frame_width, s->encoded_frame_height);
}

static void on_remote_video_stats(agoraish_engine_t *e, void *ud, const agoraish_remote_video_stats *s) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_remote_video_stats uid %u: %s stream, %dx%d, %d Kbps, %d fps rendered", s->uid,
        s->rx_stream_type ? "low" : "high", s->width, s->height, s->received_bitrate, s->renderer_output_frame_rate);
}

static agoraish_engine_t *create_user(user_t *u, const char *name, const char *server_url, int role) {
    agoraish_event_handler handler;
    int rc;

    memset(u, 0, sizeof *u);
    example_user_init(&u->base, name);
    example_handler(&handler, &u->base);
    handler.on_user_joined = on_user_joined;
    handler.on_user_offline = on_user_offline;
    handler.on_client_role_changed = on_client_role_changed;
    handler.on_video_size_changed = on_video_size_changed;
    handler.on_local_video_stats = on_local_video_stats;
    handler.on_remote_video_stats = on_remote_video_stats;

    if (!(u->engine = example_create_engine(&u->base, &handler, server_url))) return NULL;
    /* Live broadcasting, with this user's role; a video-only show. */
    rc = agoraish_engine_set_channel_profile(u->engine, AGORAISH_CHANNEL_PROFILE_LIVE_BROADCASTING);
    say(name, "set_channel_profile(LIVE_BROADCASTING) = %d, set_client_role(%s) = %d", rc,
        role == AGORAISH_CLIENT_ROLE_BROADCASTER ? "BROADCASTER" : "AUDIENCE",
        agoraish_engine_set_client_role(u->engine, role));
    agoraish_engine_disable_audio(u->engine);
    agoraish_engine_enable_video(u->engine);
    return u->engine;
}

static int sees_host(const example_user *b) { return ((const user_t *)b)->host != 0; }
static int sees_no_host(const example_user *b) { return ((const user_t *)b)->host == 0; }

static void report(user_t *u) {
    example_lock(&u->base);
    if (u->low > 0) {
        say(u->base.name,
            "rendered %d pictures at 640x360 (high), then %d at 320x180 (low, from %.2f s), %d of another size", u->high,
            u->low, u->first_low_at, u->other);
    } else {
        say(u->base.name, "rendered %d pictures at 640x360 (high), %d at 320x180 (low), %d of another size", u->high,
            u->low, u->other);
    }
    example_unlock(&u->base);
}

int main(void) {
    static uint8_t planes[640 * 360 * 3 / 2];
    agoraish_server_t *server = NULL;
    agoraish_video_encoder_configuration encoder;
    agoraish_external_video_frame frame;
    user_t host, viewer1, viewer2;
    struct timespec start;
    char url[128];
    int ok = 0, rc, n, refused = 0, switched = 0;
    double switch_at = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&host, 0, sizeof host);
    memset(&viewer1, 0, sizeof viewer1);
    memset(&viewer2, 0, sizeof viewer2);

    if (!(server = example_start_server(url, sizeof url))) goto done;
    if (!create_user(&host, "host", url, AGORAISH_CLIENT_ROLE_BROADCASTER) ||
        !create_user(&viewer1, "viewer1", url, AGORAISH_CLIENT_ROLE_AUDIENCE) ||
        !create_user(&viewer2, "viewer2", url, AGORAISH_CLIENT_ROLE_AUDIENCE)) {
        goto done;
    }

    /* The host: 640x360 at 15 fps, STANDARD_BITRATE, dual stream, its own view. */
    memset(&encoder, 0, sizeof encoder);
    encoder.struct_size = sizeof encoder;
    encoder.width = 640;
    encoder.height = 360;
    encoder.frame_rate = FPS;
    encoder.bitrate = 0; /* STANDARD_BITRATE: twice the base rate in live broadcasting */
    encoder.min_bitrate = -1;
    encoder.codec_type = AGORAISH_VIDEO_CODEC_VP8;
    say("host", "set_video_encoder_configuration(640x360, %d fps, STANDARD_BITRATE) = %d", FPS,
        agoraish_engine_set_video_encoder_configuration(host.engine, &encoder));
    say("host", "enable_dual_stream_mode(1) = %d", agoraish_engine_enable_dual_stream_mode(host.engine, 1));
    say("host", "set_external_video_source(1) = %d (no camera here)",
        agoraish_engine_set_external_video_source(host.engine, 1));
    say("host", "setup_local_video = %d", bind_view(host.engine, 0, &host));

    if ((rc = agoraish_engine_join_channel(host.engine, NULL, CHANNEL, NULL, HOST_UID)) != 0 ||
        !example_wait(&host.base, example_is_joined, "join") ||
        (rc = agoraish_engine_join_channel(viewer1.engine, NULL, CHANNEL, NULL, 0)) != 0 ||
        (rc = agoraish_engine_join_channel(viewer2.engine, NULL, CHANNEL, NULL, 0)) != 0 ||
        !example_wait(&viewer1.base, example_is_joined, "join") ||
        !example_wait(&viewer2.base, example_is_joined, "join") ||
        !example_wait(&viewer1.base, sees_host, "host") || !example_wait(&viewer2.base, sees_host, "host")) {
        fprintf(stderr, "the show did not start: %d (%s)\n", rc, agoraish_get_error_description(rc));
        goto done;
    }

    /* The show: a picture every 1/15 s; viewer1 switches to the low stream on the way. */
    say("host", "broadcasting 640x360 pictures for %d s", SHOW_MS / 1000);
    memset(&frame, 0, sizeof frame);
    frame.struct_size = sizeof frame;
    frame.format = AGORAISH_VIDEO_PIXEL_I420;
    frame.width = 640;
    frame.height = 360;
    frame.y_buffer = planes;
    frame.u_buffer = planes + 640 * 360;
    frame.v_buffer = planes + 640 * 360 * 5 / 4;
    frame.y_stride = 640;
    frame.u_stride = frame.v_stride = 320;
    memset(planes + 640 * 360, 128, 640 * 360 / 2);
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (n = 0; n < SHOW_MS * FPS / 1000; n++) {
        for (int row = 0; row < 360; row++) {
            for (int col = 0; col < 640; col++) {
                planes[row * 640 + col] = (uint8_t)(((col + 8 * n) / 40 + row / 40) % 2 ? 200 : 60); /* moving squares */
            }
        }
        frame.timestamp = (int64_t)n * 1000 / FPS;
        rc = agoraish_engine_push_external_video_frame(host.engine, &frame);
        if (rc != 0 && refused++ == 0) say("host", "push_external_video_frame(%d) = %d", n, rc);
        if (!switched && n * 1000 / FPS >= SWITCH_MS) {
            uint32_t uid;
            example_lock(&viewer1.base);
            uid = viewer1.host;
            example_unlock(&viewer1.base);
            switch_at = seconds();
            say("viewer1", "set_remote_video_stream_type(uid %u, low) = %d", uid,
                agoraish_engine_set_remote_video_stream_type(viewer1.engine, uid, 1));
            switched = 1;
        }
        sleep_until(&start, (long)(n + 1) * 1000 / FPS);
    }
    sleep_until(&start, (long)SHOW_MS + SETTLE_MS);

    report(&viewer1);
    report(&viewer2);
    example_lock(&host.base);
    say("host", "its local view showed %d pictures; users it saw join: %d (the audience is invisible)",
        host.local_pictures, host.users_joined);
    example_unlock(&host.base);

    agoraish_engine_leave_channel(host.engine);
    if (!example_wait(&host.base, example_has_left, "leave") ||
        !example_wait(&viewer1.base, sees_no_host, "host offline") ||
        !example_wait(&viewer2.base, sees_no_host, "host offline")) {
        goto done;
    }
    agoraish_engine_leave_channel(viewer1.engine);
    agoraish_engine_leave_channel(viewer2.engine);
    if (!example_wait(&viewer1.base, example_has_left, "leave") ||
        !example_wait(&viewer2.base, example_has_left, "leave")) {
        goto done;
    }
    bind_view(host.engine, 0, NULL);

    /* viewer1: high, then low after the switch and nothing else; viewer2: high throughout. */
    ok = refused == 0 && host.users_joined == 0 && host.local_pictures > 0 && viewer1.high > 0 &&
         viewer1.low > 0 && viewer1.first_low_at >= switch_at && viewer1.last_width == 320 && viewer1.other == 0 &&
         viewer2.high >= SHOW_MS * FPS / 1000 * 8 / 10 && viewer2.low == 0 && viewer2.other == 0;

done:
    if (host.engine) agoraish_engine_release(host.engine, 1);
    if (viewer1.engine) agoraish_engine_release(viewer1.engine, 1);
    if (viewer2.engine) agoraish_engine_release(viewer2.engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&host.base);
    example_user_destroy(&viewer1.base);
    example_user_destroy(&viewer2.base);
    printf("%s\n", ok ? "done: viewer1 switched to the low stream, viewer2 kept the high one"
                      : "the show did not go as expected");
    return ok ? 0 : 1;
}
