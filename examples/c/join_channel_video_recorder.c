/*
 * join_channel_video_recorder.c — Agora's JoinChannelVideo(Recorder) case in
 * C: a video call in which each user records a stream of it to an MP4 file
 * with the media recorder.
 *
 *   join_channel -> create_media_recorder(channel, uid) -> media_recorder_set_observer
 *   -> media_recorder_start_recording(config) -> on_recorder_state_changed(START)
 *   -> on_recorder_info_updated every second -> media_recorder_stop_recording
 *      (the file is complete) -> on_recorder_state_changed(STOP)
 *   -> destroy_media_recorder -> leave_channel -> release
 *
 * "local" sends what its "camera" and "microphone" give: a thread pushes a
 * 320x240 picture with a bright square moving across it 15 times a second
 * through an external video source, and a 440 Hz tone 10 ms every 10 ms
 * through an external audio source. local records itself (uid 0: what it
 * sends) into demo-out/join_channel_video_recorder_local.mp4; "remote", a
 * second engine in the same process, watches and listens (its playout is an
 * external sink, pulled in real time) and records local as received (local's
 * uid) into demo-out/join_channel_video_recorder_remote.mp4. After four
 * seconds both stop; the example checks each file with ffprobe: an H.264
 * stream of 320x240 with its pictures and an AAC stream, about four seconds
 * long, and with ffmpeg that the tone is in the sound.
 *
 *   make hosts && build/examples/join_channel_video_recorder
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "join-channel-video-recorder"
#define PI 3.14159265358979323846
#define WIDTH 320
#define HEIGHT 240
#define FPS 15
#define TONE_HZ 440
#define RECORD_MS 4000
#define LOCAL_FILE "demo-out/join_channel_video_recorder_local.mp4"
#define REMOTE_FILE "demo-out/join_channel_video_recorder_remote.mp4"

/* ---- one user's events, and its recorder's ----------------------------------------------- */

typedef struct {
    example_user base; /* first, so the handler's user_data is both */
    /* Guarded by base.mutex. */
    int pictures;                         /* of the remote user, on remote's canvas */
    int started, stopped, stop_reason, updates; /* of its recorder */
} user_t;

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

static const char *recorder_state_name(int state) {
    return state == AGORAISH_RECORDER_STATE_START ? "START" : state == AGORAISH_RECORDER_STATE_STOP ? "STOP"
         : state == AGORAISH_RECORDER_STATE_ERROR ? "ERROR" : "?";
}

static const char *recorder_reason_name(int reason) {
    static const char *const names[] = {"NONE", "WRITE_FAILED", "NO_STREAM", "OVER_MAX_DURATION", "CONFIG_CHANGED"};
    return reason >= 0 && reason < 5 ? names[reason] : "?";
}

static void on_recorder_state_changed(agoraish_engine_t *e, void *ud, int recorder_id, const char *channel_id,
                                      uint32_t uid, int state, int reason) {
    user_t *u = ud;
    (void)e;
    (void)recorder_id;
    say(u->base.name, "on_recorder_state_changed \"%s\" uid %u: %s (%s)", channel_id, uid, recorder_state_name(state),
        recorder_reason_name(reason));
    example_lock(&u->base);
    if (state == AGORAISH_RECORDER_STATE_START) u->started = 1;
    if (state == AGORAISH_RECORDER_STATE_STOP || state == AGORAISH_RECORDER_STATE_ERROR) {
        u->stopped = state == AGORAISH_RECORDER_STATE_STOP ? 1 : -1;
        u->stop_reason = reason;
    }
    example_changed(&u->base);
}

static void on_recorder_info_updated(agoraish_engine_t *e, void *ud, int recorder_id, const char *channel_id,
                                     uint32_t uid, const agoraish_recorder_info *info) {
    user_t *u = ud;
    (void)e;
    (void)recorder_id;
    (void)channel_id;
    say(u->base.name, "on_recorder_info_updated uid %u: %s, %u ms, %u bytes", uid, info->file_name, info->duration_ms,
        info->file_size);
    example_lock(&u->base);
    u->updates++;
    example_changed(&u->base);
}

static int recorder_started(const example_user *u) { return ((const user_t *)u)->started; }
static int recorder_stopped(const example_user *u) { return ((const user_t *)u)->stopped != 0; }

/* remote's canvas of local: counts the pictures. */
static void on_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const agoraish_video_frame *f) {
    user_t *u = ud;
    (void)e;
    (void)uid;
    (void)f;
    example_lock(&u->base);
    u->pictures++;
    example_unlock(&u->base);
}

/* ---- local's camera and microphone -------------------------------------------------------- */

typedef struct {
    agoraish_engine_t *engine;
    pthread_mutex_t mutex;
    int stopping, failures; /* guarded by mutex */
} devices_t;

/* Pushes 10 ms of the tone every 10 ms and a picture FPS times a second, in real time, until stopped. */
static void *devices(void *arg) {
    devices_t *d = arg;
    static uint8_t luma[WIDTH * HEIGHT], chroma[WIDTH * HEIGHT / 4];
    int16_t chunk[480];
    agoraish_external_video_frame frame;
    struct timespec start;
    long sent = 0;
    memset(chroma, 128, sizeof chroma);
    memset(&frame, 0, sizeof frame);
    frame.struct_size = sizeof frame;
    frame.format = AGORAISH_VIDEO_PIXEL_I420;
    frame.width = WIDTH;
    frame.height = HEIGHT;
    frame.y_buffer = luma;
    frame.u_buffer = frame.v_buffer = chroma;
    frame.y_stride = WIDTH;
    frame.u_stride = frame.v_stride = WIDTH / 2;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 0;; k++) {
        int stopping, failed = 0;
        pthread_mutex_lock(&d->mutex);
        stopping = d->stopping;
        pthread_mutex_unlock(&d->mutex);
        if (stopping) return NULL;
        for (int i = 0; i < 480; i++) {
            chunk[i] = (int16_t)(8000 * sin(2 * PI * TONE_HZ * (double)(k * 480 + i) / 48000));
        }
        failed += agoraish_engine_push_external_audio_frame(d->engine, chunk, 480) < 0;
        if (k * FPS / 100 >= sent) {
            /* Grey, with a bright 40x40 square moving right 8 pixels a picture. */
            int left = (int)(sent * 8 % (WIDTH - 40));
            memset(luma, 90, sizeof luma);
            for (int y = 100; y < 140; y++) memset(luma + y * WIDTH + left, 235, 40);
            frame.timestamp = sent * 1000 / FPS;
            failed += agoraish_engine_push_external_video_frame(d->engine, &frame) != 0;
            sent++;
        }
        if (failed) {
            pthread_mutex_lock(&d->mutex);
            d->failures += failed;
            pthread_mutex_unlock(&d->mutex);
        }
        sleep_until(&start, (k + 1) * 10);
    }
}

/* ---- the files ---------------------------------------------------------------------------- */

/* The value of `key` in a line of ffprobe's compact output ("stream|key=value|..."), or "". */
static void field(const char *line, const char *key, char *value, size_t size) {
    char pattern[64];
    const char *at;
    size_t length;
    snprintf(pattern, sizeof pattern, "|%s=", key);
    value[0] = '\0';
    if (!(at = strstr(line, pattern))) return;
    at += strlen(pattern);
    length = strcspn(at, "|\r\n");
    if (length >= size) length = size - 1;
    memcpy(value, at, length);
    value[length] = '\0';
}

/* What ffprobe says of a recording, and the tone ffmpeg decodes from it, said; whether it holds
 * H.264 320x240 (at least three pictures in four seconds) and AAC with the tone, about RECORD_MS long. */
static int probe(const char *who, const char *path) {
    static int16_t pcm[10 * 48000];
    char command[512], line[512], type[16], codec[16], value[32], video[16] = "", audio[16] = "";
    int width = 0, height = 0, pictures = 0, rate = 0;
    double duration = 0, level;
    size_t samples;
    struct stat st;
    FILE *out;
    snprintf(command, sizeof command,
             "ffprobe -v error -count_frames -show_entries "
             "stream=codec_type,codec_name,width,height,sample_rate,nb_read_frames:format=duration -of compact '%s'",
             path);
    if (!(out = popen(command, "r"))) return 0;
    while (fgets(line, sizeof line, out)) {
        if (strncmp(line, "format|", 7) == 0) {
            field(line, "duration", value, sizeof value);
            duration = atof(value);
            continue;
        }
        field(line, "codec_type", type, sizeof type);
        field(line, "codec_name", codec, sizeof codec);
        if (strcmp(type, "video") == 0 && !video[0]) {
            snprintf(video, sizeof video, "%s", codec);
            field(line, "width", value, sizeof value);
            width = atoi(value);
            field(line, "height", value, sizeof value);
            height = atoi(value);
            field(line, "nb_read_frames", value, sizeof value);
            pictures = atoi(value);
        } else if (strcmp(type, "audio") == 0 && !audio[0]) {
            snprintf(audio, sizeof audio, "%s", codec);
            field(line, "sample_rate", value, sizeof value);
            rate = atoi(value);
        }
    }
    pclose(out);
    /* The sound, as 48 kHz mono 16-bit little-endian samples (this host's order). */
    snprintf(command, sizeof command,
             "ffmpeg -nostdin -v error -i '%s' -map 0:a:0 -ac 1 -ar 48000 -f s16le -", path);
    if (!(out = popen(command, "r"))) return 0;
    samples = fread(pcm, sizeof pcm[0], sizeof pcm / sizeof pcm[0], out);
    pclose(out);
    level = example_tone_level(pcm + samples / 4, samples / 2, TONE_HZ, 48000); /* the middle half */
    say(who, "%s: video %s %dx%d, %d pictures, audio %s %d Hz; %.2f s, %lld bytes; %d Hz at %.1f dBFS", path, video,
        width, height, pictures, audio, rate, duration, stat(path, &st) == 0 ? (long long)st.st_size : -1LL, TONE_HZ,
        level);
    return strcmp(video, "h264") == 0 && width == WIDTH && height == HEIGHT && pictures >= RECORD_MS * FPS * 3 / 4000 &&
           strcmp(audio, "aac") == 0 && fabs(duration * 1000 - RECORD_MS) < 1000 && level > -40;
}

/* Creates `engine`'s recorder of `uid` with `u`'s observer and starts it into `path`; its id, or 0. */
static int start_recorder(agoraish_engine_t *engine, user_t *u, uint32_t uid, const char *path) {
    agoraish_recorder_stream_info info;
    agoraish_media_recorder_observer observer;
    agoraish_media_recorder_configuration config;
    int id = 0, rc;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    info.channel_id = CHANNEL;
    info.uid = uid;
    if ((rc = agoraish_engine_create_media_recorder(engine, &info, &id)) != 0) {
        say(u->base.name, "create_media_recorder(uid %u) = %d", uid, rc);
        return 0;
    }
    memset(&observer, 0, sizeof observer);
    observer.struct_size = sizeof observer;
    observer.user_data = u;
    observer.on_recorder_state_changed = on_recorder_state_changed;
    observer.on_recorder_info_updated = on_recorder_info_updated;
    agoraish_media_recorder_set_observer(engine, id, &observer);
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.storage_path = path;
    config.container_format = 1; /* MP4 */
    config.stream_type = AGORAISH_MEDIA_RECORDER_STREAM_BOTH;
    config.width = WIDTH;
    config.height = HEIGHT;
    config.fps = FPS;
    config.recorder_info_update_interval = 1000;
    rc = agoraish_media_recorder_start_recording(engine, id, &config);
    say(u->base.name, "create_media_recorder(\"%s\", uid %u) = recorder %d, start_recording(%s) = %d", CHANNEL, uid, id,
        path, rc);
    return rc == 0 ? id : 0;
}

int main(void) {
    static int16_t heard[RECORD_MS * 48];
    int16_t *const ears_buffers[1] = {heard};
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    agoraish_video_encoder_configuration encoder;
    agoraish_video_canvas canvas;
    devices_t devices_state = {NULL, PTHREAD_MUTEX_INITIALIZER, 0, 0};
    pthread_t pusher;
    example_ears ears;
    user_t local, remote;
    char url[128];
    int ok = 0, pushing = 0, local_recorder = 0, remote_recorder = 0, recorded = 0, files = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);
    memset(&ears, 0, sizeof ears);

    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(&local, "local", url);
    remote_engine = create_user(&remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;

    /* local sends its pushed pictures and tone; remote receives, and hears through an external sink. */
    agoraish_engine_set_external_audio_source(local_engine, 1, 48000, 1);
    agoraish_engine_set_external_video_source(local_engine, 1);
    agoraish_engine_enable_video(local_engine);
    memset(&encoder, 0, sizeof encoder);
    encoder.struct_size = sizeof encoder;
    encoder.width = WIDTH;
    encoder.height = HEIGHT;
    encoder.frame_rate = FPS;
    encoder.min_bitrate = -1;
    agoraish_engine_set_video_encoder_configuration(local_engine, &encoder);
    agoraish_engine_enable_video(remote_engine);
    agoraish_engine_enable_local_audio(remote_engine, 0);
    agoraish_engine_set_external_audio_sink(remote_engine, 1, EXAMPLE_EARS_RATE, 1);
    if (example_meet(CHANNEL, local_engine, &local.base, 0, remote_engine, &remote.base, 0) != 0) goto done;
    memset(&canvas, 0, sizeof canvas);
    canvas.struct_size = sizeof canvas;
    canvas.uid = example_peer(&remote.base);
    canvas.on_frame = on_frame;
    canvas.user_data = &remote;
    agoraish_engine_setup_remote_video(remote_engine, &canvas);

    devices_state.engine = local_engine;
    pushing = pthread_create(&pusher, NULL, devices, &devices_state) == 0;
    if (!pushing || example_ears_start(&ears, &remote_engine, 1) != 0) goto done;
    example_ears_listen(&ears, 500, ears_buffers); /* the first pictures and audio arrive */

    mkdir("demo-out", 0755);
    local_recorder = start_recorder(local_engine, &local, 0, LOCAL_FILE);
    remote_recorder = start_recorder(remote_engine, &remote, canvas.uid, REMOTE_FILE);
    if (!local_recorder || !remote_recorder || !example_wait(&local.base, recorder_started, "recorder START") ||
        !example_wait(&remote.base, recorder_started, "recorder START")) {
        goto done;
    }
    example_ears_listen(&ears, RECORD_MS, ears_buffers);
    say("local", "stop_recording() = %d", agoraish_media_recorder_stop_recording(local_engine, local_recorder));
    say("remote", "stop_recording() = %d", agoraish_media_recorder_stop_recording(remote_engine, remote_recorder));
    recorded = example_wait(&local.base, recorder_stopped, "recorder STOP") &&
               example_wait(&remote.base, recorder_stopped, "recorder STOP");
    for (user_t *u = &local; recorded && u; u = u == &local ? &remote : NULL) {
        example_lock(&u->base);
        recorded = u->stopped == 1 && u->stop_reason == AGORAISH_RECORDER_REASON_NONE && u->updates >= 2;
        example_unlock(&u->base);
    }
    agoraish_engine_destroy_media_recorder(local_engine, local_recorder);
    agoraish_engine_destroy_media_recorder(remote_engine, remote_recorder);

    example_ears_stop(&ears);
    pthread_mutex_lock(&devices_state.mutex);
    devices_state.stopping = 1;
    pthread_mutex_unlock(&devices_state.mutex);
    pthread_join(pusher, NULL);
    pushing = 0;
    canvas.on_frame = NULL;
    agoraish_engine_setup_remote_video(remote_engine, &canvas);
    example_lock(&remote.base);
    say("remote", "rendered %d pictures of local; %d pushes failed", remote.pictures, devices_state.failures);
    example_unlock(&remote.base);
    if (!example_part(local_engine, &local.base, remote_engine, &remote.base)) goto done;

    files = probe("local", LOCAL_FILE);
    files = probe("remote", REMOTE_FILE) && files;
    ok = recorded && files && devices_state.failures == 0;

done:
    example_ears_stop(&ears);
    if (pushing) {
        pthread_mutex_lock(&devices_state.mutex);
        devices_state.stopping = 1;
        pthread_mutex_unlock(&devices_state.mutex);
        pthread_join(pusher, NULL);
    }
    if (local_engine) agoraish_engine_release(local_engine, 1); /* also destroys the recorders */
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local.base);
    example_user_destroy(&remote.base);
    return example_finish(ok, "done: each user recorded the call to MP4, H.264 and AAC as ffprobe reads them");
}
