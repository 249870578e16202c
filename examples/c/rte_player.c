/*
 * rte_player.c — Agora's RtePlayer case in C: a stream played from a URL,
 * with its states, positions and buffer, and relayed into the channel.
 *
 *   create_media_player -> register_player_source_observer -> set_view
 *   -> open(url) -> OPENING -> OPEN_COMPLETED (or FAILED with its reason)
 *   -> play -> PLAYING -> on_position_changed, on_play_buffer_updated every second
 *   -> PLAYBACK_COMPLETED, PLAYBACK_ALL_LOOPS_COMPLETED, on_completed
 *   -> destroy_media_player
 *
 * The stream is HLS over http://: the example makes a playlist of 1 s
 * segments (H.264 pictures of FFmpeg's moving test pattern and an AAC 880 Hz
 * tone, 5 s) with the ffmpeg command-line tool in demo-out/rte_player/ and
 * serves that directory on 127.0.0.1 with a small HTTP/1.0 server of its own,
 * on a thread (one request per connection, GET of a file or 404). "local"
 * first opens a URL the server does not have (FAILED, URL_NOT_FOUND), then
 * the playlist, shows it in its player's view, and relays it into the
 * channel as its audio and video tracks (publish_media_player_*); "remote",
 * a second engine in the same process, hears the tone and sees the pictures.
 * The example checks the states in order, the position and buffer reports,
 * what remote received, and that the server served the playlist and its
 * segments.
 *
 *   make hosts && build/examples/rte_player
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "rte-player"
#define STREAM_DIR "demo-out/rte_player"
#define PLAYLIST "index.m3u8"
#define WIDTH 320
#define HEIGHT 240
#define FPS 15
#define TONE_HZ 880
#define SECONDS 5
#define PLAYER_WAIT_SECONDS 15 /* for the player's events (opening a URL may take a while) */
#define MAX_SERVED 32

/* ---- the HTTP server -------------------------------------------------------------------- */

typedef struct {
    int fd; /* the listening socket */
    int port;
    pthread_t thread;
    int started;
    pthread_mutex_t mutex;
    /* Guarded by mutex. */
    int stopping;
    char served[MAX_SERVED][64]; /* paths served with 200, in order */
    int served_count;
} http_server_t;

static int send_all(int fd, const char *data, size_t size) {
    while (size > 0) {
        ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
        if (n <= 0) return -1;
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

/* One request of one connection: GET of a file of STREAM_DIR, or 404. */
static void http_answer(http_server_t *s, int client) {
    char request[4096], method[8], path[256], file[512], header[256];
    size_t used = 0;
    struct timeval timeout = {2, 0};
    FILE *f = NULL;
    long size = 0;
    int code = 404;
    setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    while (used < sizeof request - 1) { /* the request line and headers, up to the blank line */
        ssize_t n = recv(client, request + used, sizeof request - 1 - used, 0);
        if (n <= 0) return;
        used += (size_t)n;
        request[used] = '\0';
        if (strstr(request, "\r\n\r\n")) break;
    }
    if (sscanf(request, "%7s %255s", method, path) != 2) return;
    path[strcspn(path, "?")] = '\0';
    /* Only plain names of the directory: no "..", no odd characters. */
    if (strcmp(method, "GET") == 0 && path[0] == '/' && !strstr(path, "..") &&
        strspn(path + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == strlen(path + 1) &&
        snprintf(file, sizeof file, "%s%s", STREAM_DIR, path) < (int)sizeof file && (f = fopen(file, "rb")) != NULL &&
        fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        code = 200;
    }
    if (code == 200) {
        const char *type = strstr(path, ".m3u8") ? "application/vnd.apple.mpegurl" : "video/mp2t";
        char chunk[16384];
        size_t n;
        snprintf(header, sizeof header,
                 "HTTP/1.0 200 OK\r\nContent-Type: %s\r\nContent-Length: %ld\r\nConnection: close\r\n\r\n", type, size);
        if (send_all(client, header, strlen(header)) == 0) {
            while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && send_all(client, chunk, n) == 0) {}
        }
        pthread_mutex_lock(&s->mutex);
        if (s->served_count < MAX_SERVED) snprintf(s->served[s->served_count++], sizeof s->served[0], "%.63s", path);
        pthread_mutex_unlock(&s->mutex);
    } else {
        const char *not_found = "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        send_all(client, not_found, strlen(not_found));
    }
    if (f) fclose(f);
    say("http", "\"%s %s\" %d, %ld bytes", method, path, code, code == 200 ? size : 0L);
}

static void *http_serve(void *arg) {
    http_server_t *s = arg;
    for (;;) {
        int client = accept(s->fd, NULL, NULL), stopping;
        pthread_mutex_lock(&s->mutex);
        stopping = s->stopping;
        pthread_mutex_unlock(&s->mutex);
        if (client < 0) {
            if (stopping || errno != EINTR) return NULL;
            continue;
        }
        if (!stopping) http_answer(s, client);
        close(client);
        if (stopping) return NULL;
    }
}

/* Listens on 127.0.0.1, a free port, and serves on a thread; 0, or -1 said. */
static int http_start(http_server_t *s) {
    struct sockaddr_in address;
    socklen_t length = sizeof address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&address, sizeof address) != 0 || listen(s->fd, 16) != 0 ||
        getsockname(s->fd, (struct sockaddr *)&address, &length) != 0) {
        perror("http server");
        return -1;
    }
    s->port = ntohs(address.sin_port);
    s->started = pthread_create(&s->thread, NULL, http_serve, s) == 0;
    return s->started ? 0 : -1;
}

static void http_stop(http_server_t *s) {
    if (s->started) {
        pthread_mutex_lock(&s->mutex);
        s->stopping = 1;
        pthread_mutex_unlock(&s->mutex);
        shutdown(s->fd, SHUT_RDWR); /* wakes accept() */
        pthread_join(s->thread, NULL);
        s->started = 0;
    }
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
}

/* ---- one user's events, the player's events, and canvases ----------------------------- */

typedef struct {
    example_user base; /* first, so the handler's user_data is both */
} user_t;

/* The player's states and reports (on local's event thread), guarded by local's lock. */
typedef struct {
    example_user *owner;
    int states[64], reasons[64], state_count;
    int64_t positions[32];
    int position_count, buffer_count, completed;
} player_events_t;

/* A canvas: pictures counted, their size, and how many differ from the one before. */
typedef struct {
    const char *who, *what;
    pthread_mutex_t mutex;
    /* Guarded by mutex. */
    int pictures, width, height, changes;
    uint8_t last[WIDTH];
} screen_t;

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
    handler.on_first_remote_video_decoded = on_first_remote_video_decoded;
    handler.on_first_remote_audio_decoded = on_first_remote_audio_decoded;
    return example_create_engine(&u->base, &handler, server_url);
}

static void on_player_state(agoraish_engine_t *e, void *ud, int player_id, int state, int reason) {
    player_events_t *p = ud;
    (void)e;
    (void)player_id;
    say("player", "on_player_source_state_changed %s (%s)", player_state_name(state), player_reason_name(reason));
    example_lock(p->owner);
    if (p->state_count < 64) {
        p->states[p->state_count] = state;
        p->reasons[p->state_count++] = reason;
    }
    example_changed(p->owner);
}

static void on_player_event(agoraish_engine_t *e, void *ud, int player_id, int event, int64_t elapsed,
                            const char *message) {
    (void)e;
    (void)ud;
    (void)player_id;
    say("player", "on_player_event %s at %lld ms%s%s", player_event_name(event), (long long)elapsed,
        *message ? " " : "", message);
}

static void on_position_changed(agoraish_engine_t *e, void *ud, int player_id, int64_t position, int64_t timestamp) {
    player_events_t *p = ud;
    (void)e;
    (void)player_id;
    (void)timestamp;
    say("player", "on_position_changed %lld ms", (long long)position);
    example_lock(p->owner);
    if (p->position_count < 32) p->positions[p->position_count++] = position;
    example_changed(p->owner);
}

static void on_play_buffer_updated(agoraish_engine_t *e, void *ud, int player_id, int64_t cached) {
    player_events_t *p = ud;
    (void)e;
    (void)player_id;
    say("player", "on_play_buffer_updated %lld ms decoded ahead", (long long)cached);
    example_lock(p->owner);
    p->buffer_count++;
    example_changed(p->owner);
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

/* Waits for the first state from index `after` on that is `a` or `b`; its index, or -1. */
static int wait_state(player_events_t *p, int a, int b, int after) {
    struct timespec deadline;
    int found = -1;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += PLAYER_WAIT_SECONDS;
    example_lock(p->owner);
    for (;;) {
        for (int i = after; i < p->state_count && found < 0; i++) {
            if (p->states[i] == a || p->states[i] == b) found = i;
        }
        if (found >= 0 || pthread_cond_timedwait(&p->owner->cond, &p->owner->mutex, &deadline) == ETIMEDOUT) break;
    }
    example_unlock(p->owner);
    if (found < 0) say("player", "no %s within %d s", player_state_name(a), PLAYER_WAIT_SECONDS);
    return found;
}

static player_events_t *completion_of; /* the events has_completed reads */
static int has_completed(const example_user *u) {
    (void)u;
    return completion_of->completed;
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
    size_t width = (size_t)(f->width < WIDTH ? f->width : WIDTH);
    (void)e;
    (void)uid;
    pthread_mutex_lock(&s->mutex);
    if (s->pictures++ == 0) say(s->who, "%s: first picture %dx%d", s->what, f->width, f->height);
    s->width = f->width;
    s->height = f->height;
    if (memcmp(s->last, row, width) != 0) s->changes++;
    memcpy(s->last, row, width);
    pthread_mutex_unlock(&s->mutex);
}

/* Whether the server served the playlist, then each segment it lists, in order (and nothing else). */
static int served_everything(http_server_t *http) {
    char line[256];
    int index = 1, ok;
    FILE *playlist = fopen(STREAM_DIR "/" PLAYLIST, "r");
    if (!playlist) return 0;
    pthread_mutex_lock(&http->mutex);
    ok = http->served_count > 0 && strcmp(http->served[0], "/" PLAYLIST) == 0;
    while (ok && fgets(line, sizeof line, playlist)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0' || line[0] == '#') continue;
        ok = index < http->served_count && http->served[index][0] == '/' && strcmp(http->served[index] + 1, line) == 0;
        index++;
    }
    ok = ok && index == http->served_count;
    pthread_mutex_unlock(&http->mutex);
    fclose(playlist);
    return ok;
}

int main(void) {
    http_server_t http;
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    agoraish_video_encoder_configuration encoder;
    agoraish_channel_media_options options;
    agoraish_media_player_observer observer;
    agoraish_video_canvas canvas;
    player_events_t events;
    screen_t view = {"local", "player's view", PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, {0}};
    screen_t screen = {"remote", "remote canvas", PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, {0}};
    static int16_t heard_local[2 * EXAMPLE_EARS_RATE], heard_remote[2 * EXAMPLE_EARS_RATE];
    int16_t *const heard[2] = {heard_local, heard_remote};
    example_ears ears;
    user_t local, remote;
    char url[128], stream_url[128], missing_url[128];
    int ok = 0, rc, player = 0, mark, missing = -1, opened = -1, ended = -1, completed = 0, played_in_order = 0;
    int64_t duration = 0, count = 0;
    double remote_level = -120, local_level = -120;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);
    memset(&ears, 0, sizeof ears);
    memset(&events, 0, sizeof events);
    memset(&http, 0, sizeof http);
    http.fd = -1;
    pthread_mutex_init(&http.mutex, NULL);

    mkdir("demo-out", 0755);
    mkdir(STREAM_DIR, 0755);
    say("ffmpeg", "making %s/%s: HLS, 1 s segments of H.264 test pattern and a %d Hz AAC tone, %d s", STREAM_DIR,
        PLAYLIST, TONE_HZ, SECONDS);
    if (!example_ffmpeg(STREAM_DIR "/" PLAYLIST,
                        "-f lavfi -i testsrc2=size=320x240:rate=15:duration=5 "
                        "-f lavfi -i sine=frequency=880:sample_rate=48000:duration=5 "
                        "-c:v libx264 -preset veryfast -g 15 -pix_fmt yuv420p -c:a aac -b:a 96k -shortest "
                        "-f hls -hls_time 1 -hls_playlist_type vod -hls_segment_filename " STREAM_DIR "/seg%03d.ts")) {
        return example_finish(0, "");
    }
    if (http_start(&http) != 0) goto done;
    say("http", "serving %s at http://127.0.0.1:%d/", STREAM_DIR, http.port);
    snprintf(stream_url, sizeof stream_url, "http://127.0.0.1:%d/%s", http.port, PLAYLIST);
    snprintf(missing_url, sizeof missing_url, "http://127.0.0.1:%d/missing.m3u8", http.port);

    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(&local, "local", url);
    remote_engine = create_user(&remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;
    events.owner = &local.base;
    completion_of = &events;

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

    if ((rc = agoraish_engine_create_media_player(local_engine, &player)) != 0) {
        say("local", "create_media_player() = %d", rc);
        goto done;
    }
    memset(&observer, 0, sizeof observer);
    observer.struct_size = sizeof observer;
    observer.user_data = &events;
    observer.on_player_source_state_changed = on_player_state;
    observer.on_player_event = on_player_event;
    observer.on_position_changed = on_position_changed;
    observer.on_play_buffer_updated = on_play_buffer_updated;
    observer.on_completed = on_completed;
    agoraish_media_player_register_player_source_observer(local_engine, player, &observer);
    memset(&canvas, 0, sizeof canvas);
    canvas.struct_size = sizeof canvas;
    canvas.on_frame = on_frame;
    canvas.user_data = &view;
    agoraish_media_player_set_view(local_engine, player, &canvas);

    /* A URL the server does not have: FAILED with URL_NOT_FOUND (HTTP 404). */
    mark = state_mark(&events);
    say("local", "open(%s) = %d", missing_url, agoraish_media_player_open(local_engine, player, missing_url, 0));
    missing = wait_state(&events, AGORAISH_PLAYER_STATE_OPEN_COMPLETED, AGORAISH_PLAYER_STATE_FAILED, mark);

    /* The playlist. */
    mark = state_mark(&events);
    say("local", "open(%s) = %d", stream_url, agoraish_media_player_open(local_engine, player, stream_url, 0));
    opened = wait_state(&events, AGORAISH_PLAYER_STATE_OPEN_COMPLETED, AGORAISH_PLAYER_STATE_FAILED, mark);
    if (opened < 0 || events.states[opened] != AGORAISH_PLAYER_STATE_OPEN_COMPLETED) goto done;
    agoraish_media_player_get_duration(local_engine, player, &duration);
    agoraish_media_player_get_stream_count(local_engine, player, &count);
    for (int64_t i = 0; i < count; i++) {
        agoraish_player_stream_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        if (agoraish_media_player_get_stream_info(local_engine, player, i, &info) == 0) {
            say("local", "  stream %d: %s %s", info.stream_index,
                info.stream_type == AGORAISH_MEDIA_STREAM_TYPE_VIDEO ? "VIDEO" : "AUDIO", info.codec_name);
        }
    }
    say("local", "get_duration() = %lld ms, %lld streams", (long long)duration, (long long)count);

    /* local relays the stream into the channel as its audio and video tracks. */
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.has_publish_camera_track = 1;
    options.has_publish_microphone_track = 1;
    options.has_publish_media_player_audio_track = 1;
    options.publish_media_player_audio_track = 1;
    options.has_publish_media_player_video_track = 1;
    options.publish_media_player_video_track = 1;
    options.has_publish_media_player_id = 1;
    options.publish_media_player_id = player;
    if (agoraish_engine_join_channel_with_options(local_engine, NULL, CHANNEL, 0, &options) != 0 ||
        !example_wait(&local.base, example_is_joined, "join") ||
        agoraish_engine_join_channel(remote_engine, NULL, CHANNEL, NULL, 0) != 0 ||
        !example_wait(&remote.base, example_is_joined, "join") ||
        !example_wait(&remote.base, example_sees_peer, "remote user") ||
        !example_wait(&local.base, example_sees_peer, "remote user")) {
        goto done;
    }
    canvas.uid = example_peer(&remote.base);
    canvas.user_data = &screen;
    agoraish_engine_setup_remote_video(remote_engine, &canvas);

    {
        agoraish_engine_t *const engines[2] = {local_engine, remote_engine};
        if (example_ears_start(&ears, engines, 2) != 0) goto done;
    }
    mark = state_mark(&events);
    agoraish_media_player_play(local_engine, player);
    if (wait_state(&events, AGORAISH_PLAYER_STATE_PLAYING, AGORAISH_PLAYER_STATE_PLAYING, mark) != mark) goto done;
    if (!example_ears_listen(&ears, 1000, heard) || !example_ears_listen(&ears, 2000, heard)) goto done;
    remote_level = example_tone_level(heard_remote, 2 * EXAMPLE_EARS_RATE, TONE_HZ, EXAMPLE_EARS_RATE);
    local_level = example_tone_level(heard_local, 2 * EXAMPLE_EARS_RATE, TONE_HZ, EXAMPLE_EARS_RATE);
    say("remote", "hears %d Hz at %.1f dBFS (local's own playout: %.1f dBFS)", TONE_HZ, remote_level, local_level);
    ended = wait_state(&events, AGORAISH_PLAYER_STATE_PLAYBACK_ALL_LOOPS_COMPLETED, AGORAISH_PLAYER_STATE_FAILED, mark);
    completed = example_wait(&local.base, has_completed, "on_completed");
    example_ears_stop(&ears);

    canvas.on_frame = NULL; /* unbinding waits for a picture being rendered */
    agoraish_engine_setup_remote_video(remote_engine, &canvas);
    say("remote", "rendered %d pictures of %dx%d, %d different from the one before", screen.pictures, screen.width,
        screen.height, screen.changes);
    example_lock(&local.base);
    {
        int in_order = events.position_count >= 3;
        for (int i = 1; i < events.position_count; i++) {
            in_order = in_order && events.positions[i] > events.positions[i - 1];
        }
        played_in_order = in_order && events.buffer_count >= 3 && mark + 3 <= events.state_count &&
                          events.states[mark + 1] == AGORAISH_PLAYER_STATE_PLAYBACK_COMPLETED;
        say("local", "%d position reports (%s), %d buffer reports", events.position_count,
            in_order ? "increasing" : "NOT increasing", events.buffer_count);
    }
    example_unlock(&local.base);
    pthread_mutex_lock(&view.mutex);
    say("local", "the player's view showed %d pictures", view.pictures);
    pthread_mutex_unlock(&view.mutex);
    if (!example_part(local_engine, &local.base, remote_engine, &remote.base)) goto done;
    say("local", "destroy_media_player(%d) = %d", player, agoraish_engine_destroy_media_player(local_engine, player));
    http_stop(&http);
    pthread_mutex_lock(&http.mutex);
    for (int i = 0; i < http.served_count; i++) say("http", "served %s", http.served[i]);
    pthread_mutex_unlock(&http.mutex);

    ok = missing >= 0 && events.states[missing] == AGORAISH_PLAYER_STATE_FAILED &&
         events.reasons[missing] == AGORAISH_PLAYER_REASON_URL_NOT_FOUND && llabs(duration - SECONDS * 1000) <= 300 &&
         ended >= 0 && events.states[ended] == AGORAISH_PLAYER_STATE_PLAYBACK_ALL_LOOPS_COMPLETED && completed &&
         played_in_order && remote_level > -40 && local_level > -40 && screen.pictures >= 3 * FPS &&
         screen.changes >= 2 * FPS && screen.width == WIDTH && screen.height == HEIGHT && served_everything(&http);

done:
    example_ears_stop(&ears);
    if (local_engine) agoraish_engine_release(local_engine, 1); /* also destroys the player */
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    http_stop(&http);
    example_user_destroy(&local.base);
    example_user_destroy(&remote.base);
    return example_finish(ok, "done: remote heard and saw the stream local played from its URL");
}
