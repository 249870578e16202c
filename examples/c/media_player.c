/*
 * media_player.c — Agora's MediaPlayer case in C: a user plays a video file
 * and publishes it into the channel instead of a camera and a microphone.
 *
 *   create_media_player -> register_player_source_observer -> set_view
 *   -> open(path) -> OPEN_COMPLETED -> get_duration, get_stream_info
 *   -> join_channel_with_options(publish_media_player_audio_track/_video_track,
 *      publish_media_player_id, no camera, no microphone)
 *   -> play -> PLAYING -> pause -> PAUSED -> resume -> seek -> SEEK_COMPLETE
 *   -> PLAYBACK_COMPLETED, PLAYBACK_ALL_LOOPS_COMPLETED, on_completed
 *   -> leave_channel -> destroy_media_player -> release
 *
 * "local" opens a 4 s MP4 (H.264 pictures of FFmpeg's moving test pattern
 * and an AAC 1 kHz tone) that the example makes first with the ffmpeg
 * command-line tool in demo-out/media_player.mp4, and publishes its
 * player's audio and pictures. "remote", a second engine in the same
 * process, pulls what it hears from its external sink and renders what it
 * receives; local's own playout (its external sink) plays the file too.
 * The example checks that remote heard the tone and saw the pictures move,
 * that pausing silenced and froze both, and that after a seek back the file
 * played to its end.
 *
 *   make hosts && build/examples/media_player
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "media-player"
#define MOVIE "demo-out/media_player.mp4"
#define WIDTH 320
#define HEIGHT 240
#define FPS 15
#define TONE_HZ 1000
#define SECONDS 4
#define SEEK_TO_MS 1000
#define PLAYER_WAIT_SECONDS 10 /* for the player's events */

/* ---- one user's events, the player's events, and canvases ----------------------------- */

typedef struct {
    example_user base; /* first, so the handler's user_data is both */
} user_t;

/* The player's states and events (on local's event thread), guarded by `lock` of local's user. */
typedef struct {
    example_user *owner; /* whose lock and condition guard these */
    int states[64], reasons[64], state_count;
    unsigned events; /* bit per agoraish_media_player_event seen */
    int completed;
} player_events_t;

/* A canvas: pictures counted, their size, and how many differ from the one before. */
typedef struct {
    const char *who, *what;
    pthread_mutex_t mutex;
    /* Guarded by mutex. */
    int pictures, width, height, other_sizes, changes;
    uint8_t last[WIDTH];
} screen_t;

static void on_first_local_video_frame_published(agoraish_engine_t *e, void *ud, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_local_video_frame_published, %d ms", elapsed);
}

static void on_first_local_audio_frame_published(agoraish_engine_t *e, void *ud, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_local_audio_frame_published, %d ms", elapsed);
}

static void on_first_remote_video_decoded(agoraish_engine_t *e, void *ud, uint32_t uid, int width, int height,
                                          int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_remote_video_decoded uid %u, %dx%d, %d ms", uid, width, height, elapsed);
}

static void on_first_remote_audio_decoded(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_remote_audio_decoded uid %u, %d ms", uid, elapsed);
}

static agoraish_engine_t *create_user(user_t *u, const char *name, const char *server_url) {
    agoraish_event_handler handler;
    memset(u, 0, sizeof *u);
    example_user_init(&u->base, name);
    example_handler(&handler, &u->base);
    handler.on_first_local_video_frame_published = on_first_local_video_frame_published;
    handler.on_first_local_audio_frame_published = on_first_local_audio_frame_published;
    handler.on_first_remote_video_decoded = on_first_remote_video_decoded;
    handler.on_first_remote_audio_decoded = on_first_remote_audio_decoded;
    return example_create_engine(&u->base, &handler, server_url);
}

static void on_player_state(agoraish_engine_t *e, void *ud, int player_id, int state, int reason) {
    player_events_t *p = ud;
    (void)e;
    say("player", "on_player_source_state_changed(player %d) %s (%s)", player_id, player_state_name(state),
        player_reason_name(reason));
    example_lock(p->owner);
    if (p->state_count < 64) {
        p->states[p->state_count] = state;
        p->reasons[p->state_count++] = reason;
    }
    example_changed(p->owner);
}

static void on_player_event(agoraish_engine_t *e, void *ud, int player_id, int event, int64_t elapsed,
                            const char *message) {
    player_events_t *p = ud;
    (void)e;
    (void)player_id;
    say("player", "on_player_event %s at %lld ms%s%s", player_event_name(event), (long long)elapsed,
        *message ? " " : "", message);
    example_lock(p->owner);
    if (event >= 0 && event < 32) p->events |= 1u << event;
    example_changed(p->owner);
}

static void on_position_changed(agoraish_engine_t *e, void *ud, int player_id, int64_t position, int64_t timestamp) {
    (void)e;
    (void)ud;
    (void)player_id;
    (void)timestamp;
    say("player", "on_position_changed %lld ms", (long long)position);
}

static void on_completed(agoraish_engine_t *e, void *ud, int player_id) {
    player_events_t *p = ud;
    (void)e;
    (void)player_id;
    say("player", "on_completed");
    example_lock(p->owner);
    p->completed = 1;
    example_changed(p->owner);
}

/* Waits for `state` among the states from index `after` on; 1 when it came. */
static int wait_state(player_events_t *p, int state, int after) {
    struct timespec deadline;
    int seen = 0;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += PLAYER_WAIT_SECONDS;
    example_lock(p->owner);
    for (;;) {
        for (int i = after; i < p->state_count && !seen; i++) seen = p->states[i] == state;
        if (seen || pthread_cond_timedwait(&p->owner->cond, &p->owner->mutex, &deadline) == ETIMEDOUT) break;
    }
    example_unlock(p->owner);
    if (!seen) say("player", "no %s within %d s", player_state_name(state), PLAYER_WAIT_SECONDS);
    return seen;
}

/* Waits for `event` (or, with event -1, for on_completed); 1 when it came. */
static int wait_event(player_events_t *p, int event) {
    struct timespec deadline;
    int seen;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += PLAYER_WAIT_SECONDS;
    example_lock(p->owner);
    while (!(seen = event < 0 ? p->completed : (int)(p->events >> event & 1u))) {
        if (pthread_cond_timedwait(&p->owner->cond, &p->owner->mutex, &deadline) == ETIMEDOUT) break;
    }
    example_unlock(p->owner);
    if (!seen) say("player", "no %s within %d s", event < 0 ? "on_completed" : player_event_name(event),
                   PLAYER_WAIT_SECONDS);
    return seen;
}

static int state_mark(player_events_t *p) {
    int mark;
    example_lock(p->owner);
    mark = p->state_count;
    example_unlock(p->owner);
    return mark;
}

/* A canvas's on_frame: the player's view (on the player's thread) or remote's canvas (on its video thread). */
static void on_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    screen_t *s = ud;
    const uint8_t *row = f->y_buffer + (size_t)(f->height / 2) * (size_t)f->y_stride;
    int width = f->width < WIDTH ? f->width : WIDTH;
    (void)e;
    (void)uid;
    pthread_mutex_lock(&s->mutex);
    if (s->pictures == 0) {
        say(s->who, "%s: first picture %dx%d", s->what, f->width, f->height);
        s->width = f->width;
        s->height = f->height;
    } else if (f->width != s->width || f->height != s->height) {
        s->other_sizes++;
    }
    s->pictures++;
    if (memcmp(s->last, row, (size_t)width) != 0) s->changes++;
    memcpy(s->last, row, (size_t)width);
    pthread_mutex_unlock(&s->mutex);
}

static int screen_count(screen_t *s) {
    int n;
    pthread_mutex_lock(&s->mutex);
    n = s->pictures;
    pthread_mutex_unlock(&s->mutex);
    return n;
}

/* What remote and local hear of the tone in the next `ms`, said; levels in dBFS into `levels`. */
static int16_t heard_remote[EXAMPLE_EARS_RATE * 2], heard_local[EXAMPLE_EARS_RATE * 2];
static int hear(example_ears *ears, int ms, const char *what, double levels[2]) {
    int16_t *const heard[2] = {heard_local, heard_remote};
    size_t count = (size_t)ms * (EXAMPLE_EARS_RATE / 1000);
    if (!example_ears_listen(ears, ms, heard)) return 0;
    if (!what) return 1;
    levels[0] = example_tone_level(heard_remote, count, TONE_HZ, EXAMPLE_EARS_RATE);
    levels[1] = example_tone_level(heard_local, count, TONE_HZ, EXAMPLE_EARS_RATE);
    say("remote", "%s: %d Hz at %.1f dBFS (local's own playout: %.1f dBFS)", what, TONE_HZ, levels[0], levels[1]);
    return 1;
}

int main(void) {
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    agoraish_video_encoder_configuration encoder;
    agoraish_channel_media_options options;
    agoraish_media_player_observer observer;
    agoraish_video_canvas canvas;
    player_events_t events;
    screen_t view = {"local", "player's view", PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, 0, {0}};
    screen_t screen = {"remote", "remote canvas", PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, 0, {0}};
    example_ears ears;
    user_t local, remote;
    char url[128];
    int ok = 0, rc, player = 0, listening = 0, mark, moving = 0, frozen = 0, codecs = 0, completed = 0;
    double playing[2] = {-120, -120}, paused[2] = {0, 0}, resumed[2] = {-120, -120};
    int64_t duration = 0, count = 0, position = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);
    memset(&ears, 0, sizeof ears);
    memset(&events, 0, sizeof events);
    events.owner = &local.base;

    say("ffmpeg", "making %s: %d s of H.264 test pattern and a %d Hz AAC tone", MOVIE, SECONDS, TONE_HZ);
    if (!example_ffmpeg(MOVIE, "-f lavfi -i testsrc2=size=320x240:rate=15:duration=4 "
                               "-f lavfi -i sine=frequency=1000:sample_rate=48000:duration=4 "
                               "-c:v libx264 -preset veryfast -g 15 -pix_fmt yuv420p -c:a aac -b:a 96k -shortest")) {
        return example_finish(0, "");
    }

    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(&local, "local", url);
    remote_engine = create_user(&remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;
    events.owner = &local.base; /* create_user cleared local */

    /* Both users hear through external sinks, pulled by the example's "sound cards" (ears). */
    agoraish_engine_set_external_audio_sink(local_engine, 1, EXAMPLE_EARS_RATE, 1);
    agoraish_engine_set_external_audio_sink(remote_engine, 1, EXAMPLE_EARS_RATE, 1);
    agoraish_engine_enable_video(local_engine);
    agoraish_engine_enable_video(remote_engine);
    agoraish_engine_enable_local_audio(remote_engine, 0); /* remote only watches and listens */
    memset(&encoder, 0, sizeof encoder);
    encoder.struct_size = sizeof encoder;
    encoder.width = WIDTH;
    encoder.height = HEIGHT;
    encoder.frame_rate = FPS;
    encoder.min_bitrate = -1;
    agoraish_engine_set_video_encoder_configuration(local_engine, &encoder);

    /* local's player: its events, its own view, and the file. */
    rc = agoraish_engine_create_media_player(local_engine, &player);
    say("local", "create_media_player() = %d, player %d", rc, player);
    if (rc != 0) goto done;
    memset(&observer, 0, sizeof observer);
    observer.struct_size = sizeof observer;
    observer.user_data = &events;
    observer.on_player_source_state_changed = on_player_state;
    observer.on_player_event = on_player_event;
    observer.on_position_changed = on_position_changed;
    observer.on_completed = on_completed;
    agoraish_media_player_register_player_source_observer(local_engine, player, &observer);
    memset(&canvas, 0, sizeof canvas);
    canvas.struct_size = sizeof canvas;
    canvas.on_frame = on_frame;
    canvas.user_data = &view;
    agoraish_media_player_set_view(local_engine, player, &canvas);
    rc = agoraish_media_player_open(local_engine, player, MOVIE, 0);
    say("local", "open(\"%s\") = %d", MOVIE, rc);
    if (rc != 0 || !wait_state(&events, AGORAISH_PLAYER_STATE_OPEN_COMPLETED, 0)) goto done;
    agoraish_media_player_get_duration(local_engine, player, &duration);
    agoraish_media_player_get_stream_count(local_engine, player, &count);
    say("local", "get_duration() = %lld ms, %lld streams:", (long long)duration, (long long)count);
    for (int64_t i = 0; i < count; i++) {
        agoraish_player_stream_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        if (agoraish_media_player_get_stream_info(local_engine, player, i, &info) != 0) continue;
        if (info.stream_type == AGORAISH_MEDIA_STREAM_TYPE_VIDEO) {
            say("local", "  stream %d: VIDEO %s, %dx%d at %d fps, %lld ms", info.stream_index, info.codec_name,
                info.video_width, info.video_height, info.video_frame_rate, (long long)info.duration);
            codecs |= strcmp(info.codec_name, "h264") == 0;
        } else if (info.stream_type == AGORAISH_MEDIA_STREAM_TYPE_AUDIO) {
            say("local", "  stream %d: AUDIO %s, %d Hz, %d channel%s, %lld ms", info.stream_index, info.codec_name,
                info.audio_sample_rate, info.audio_channels, info.audio_channels == 1 ? "" : "s",
                (long long)info.duration);
            codecs |= (strcmp(info.codec_name, "aac") == 0) << 1;
        }
    }

    /* local publishes the player instead of a camera and a microphone. */
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.has_publish_camera_track = 1;
    options.publish_camera_track = 0;
    options.has_publish_microphone_track = 1;
    options.publish_microphone_track = 0;
    options.has_publish_media_player_audio_track = 1;
    options.publish_media_player_audio_track = 1;
    options.has_publish_media_player_video_track = 1;
    options.publish_media_player_video_track = 1;
    options.has_publish_media_player_id = 1;
    options.publish_media_player_id = player;
    rc = agoraish_engine_join_channel_with_options(local_engine, NULL, CHANNEL, 0, &options);
    say("local", "join_channel_with_options(publish_media_player_audio_track, _video_track, id %d) = %d", player,
        rc);
    if (rc != 0 || !example_wait(&local.base, example_is_joined, "join")) goto done;
    rc = agoraish_engine_join_channel(remote_engine, NULL, CHANNEL, NULL, 0);
    if (rc != 0 || !example_wait(&remote.base, example_is_joined, "join") ||
        !example_wait(&remote.base, example_sees_peer, "remote user") ||
        !example_wait(&local.base, example_sees_peer, "remote user")) {
        goto done;
    }
    canvas.uid = example_peer(&remote.base);
    canvas.user_data = &screen;
    agoraish_engine_setup_remote_video(remote_engine, &canvas);

    {
        agoraish_engine_t *const engines[2] = {local_engine, remote_engine};
        listening = example_ears_start(&ears, engines, 2) == 0;
        if (!listening) goto done;
    }

    mark = state_mark(&events);
    agoraish_media_player_play(local_engine, player);
    if (!wait_state(&events, AGORAISH_PLAYER_STATE_PLAYING, mark)) goto done;
    hear(&ears, 500, NULL, NULL); /* the first audio on its way */
    if (!hear(&ears, 1000, "playing", playing)) goto done;
    moving = screen_count(&screen);

    mark = state_mark(&events);
    agoraish_media_player_pause(local_engine, player);
    if (!wait_state(&events, AGORAISH_PLAYER_STATE_PAUSED, mark)) goto done;
    agoraish_media_player_get_play_position(local_engine, player, &position);
    say("local", "pause() at %lld ms", (long long)position);
    hear(&ears, 300, NULL, NULL); /* what was on its way */
    frozen = screen_count(&screen);
    if (!hear(&ears, 700, "paused", paused)) goto done;
    frozen = screen_count(&screen) - frozen;
    say("remote", "%d pictures while paused", frozen);

    mark = state_mark(&events);
    agoraish_media_player_resume(local_engine, player);
    if (!wait_state(&events, AGORAISH_PLAYER_STATE_PLAYING, mark)) goto done;
    agoraish_media_player_seek(local_engine, player, SEEK_TO_MS);
    if (!wait_event(&events, AGORAISH_PLAYER_EVENT_SEEK_BEGIN) ||
        !wait_event(&events, AGORAISH_PLAYER_EVENT_SEEK_COMPLETE)) {
        goto done;
    }
    agoraish_media_player_get_play_position(local_engine, player, &position);
    say("local", "seek(%d): position %lld ms", SEEK_TO_MS, (long long)position);
    if (!hear(&ears, 1000, "after resume and seek", resumed)) goto done;
    completed = wait_state(&events, AGORAISH_PLAYER_STATE_PLAYBACK_COMPLETED, 0) &&
                wait_state(&events, AGORAISH_PLAYER_STATE_PLAYBACK_ALL_LOOPS_COMPLETED, 0) && wait_event(&events, -1);
    {
        int state = 0;
        agoraish_media_player_get_play_position(local_engine, player, &position);
        agoraish_media_player_get_state(local_engine, player, &state);
        say("local", "the end: position %lld ms, state %s", (long long)position, player_state_name(state));
    }
    example_ears_stop(&ears);

    canvas.on_frame = NULL; /* unbinding waits for a picture being rendered */
    agoraish_engine_setup_remote_video(remote_engine, &canvas);
    say("remote", "rendered %d pictures of %dx%d (%d of another size), %d of them different from the one before "
        "(%d by the pause)", screen.pictures, screen.width, screen.height, screen.other_sizes, screen.changes,
        moving);
    say("local", "the player's view showed %d pictures", screen_count(&view));
    if (!example_part(local_engine, &local.base, remote_engine, &remote.base)) goto done;
    rc = agoraish_engine_destroy_media_player(local_engine, player);
    say("local", "destroy_media_player(%d) = %d", player, rc);
    player = 0;

    ok = codecs == 3 && playing[0] > -40 && playing[1] > -40 /* remote heard the file, local played it */
         && paused[0] < -60 && frozen <= 2                    /* pause silenced and froze it */
         && resumed[0] > -40 && screen.pictures >= 2 * FPS && screen.width == WIDTH && screen.height == HEIGHT &&
         screen.other_sizes == 0 && screen.changes >= FPS && screen_count(&view) >= 2 * FPS && completed;

done:
    example_ears_stop(&ears);
    if (local_engine) agoraish_engine_release(local_engine, 1); /* also destroys the player */
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local.base);
    example_user_destroy(&remote.base);
    return example_finish(
        ok, "done: remote heard and saw the file local's player published, through pause, resume and seek");
}
