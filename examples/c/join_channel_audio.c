/*
 * join_channel_audio.c — Agora's JoinChannelAudio case in C: a voice call
 * with an audio profile, volume indication and the recording volume, against
 * a channel server inside this process.
 *
 *   set_audio_profile -> enable_audio_volume_indication -> join_channel
 *   -> on_join_channel_success, on_user_joined, on_local_audio_state_changed,
 *      on_first_remote_audio_decoded, on_audio_volume_indication, ...
 *   -> adjust_recording_signal_volume: 100, then 200, then 50
 *   -> leave_channel -> on_leave_channel -> release
 *
 * "local" is the user of the case: it captures from an ALSA device and plays
 * to one, as an application with a microphone and a speaker does. This
 * machine may have no sound card, so the example points both at ALSA file
 * plugins it defines in its own configuration: the "microphone" reads a
 * 440 Hz tone from a raw file and the "speaker" writes what it plays to
 * another (docs/audio.md, "Testing without a sound card"). On a machine with
 * a sound card, leave out the two set_*_device calls and the engine uses
 * ALSA's "default".
 *
 * "remote" is a second engine in the same process. It talks through an
 * external source (a 660 Hz tone) and listens through an external sink, so
 * the example can tell what reached it from local, and how loud.
 *
 *   make hosts && build/examples/join_channel_audio
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
#include <unistd.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "join-channel-audio"
#define LOCAL_UID 1001
#define REMOTE_UID 2002
#define RATE 48000
#define FRAME (RATE / 100)          /* 10 ms */
#define PI 3.14159265358979323846
#define MIC_HZ 440.0                /* what local's microphone hears */
#define MIC_AMPLITUDE 8000.0
#define MIC_SECONDS 12              /* longer than the call */
#define REMOTE_HZ 660.0             /* what remote says */
#define REMOTE_AMPLITUDE 6000.0
#define PHASES 3
#define PHASE_MS 2000

static const int phase_volume[PHASES] = {100, 200, 50};

/* ---- printing -------------------------------------------------------------- */

static const char *local_error_name(int error) {
    static const char *const names[] = {"OK", "FAILURE", "DEVICE_NO_PERMISSION", "DEVICE_BUSY",
                                        "RECORD_FAILURE", "ENCODE_FAILURE", "NO_RECORDING_DEVICE",
                                        "NO_PLAYOUT_DEVICE"};
    return error >= 0 && error < 8 ? names[error] : "?";
}

/* ---- one user's events ----------------------------------------------------- */

typedef struct {
    example_user base;           /* first, so the handler's user_data is both */
    int verbose;                 /* print statistics and volumes too */
    /* Guarded by base.mutex. */
    int local_volume, local_vad; /* the last local volume report */
    agoraish_rtc_stats leave_stats;
} user_t;

static void on_leave_channel(agoraish_engine_t *e, void *ud, const agoraish_rtc_stats *stats) {
    user_t *u = ud;
    (void)e;
    say(u->base.name,
        "on_leave_channel after %u s: sent %llu bytes (%llu of audio), received %llu bytes (%llu of audio)",
        stats->duration, (unsigned long long)stats->tx_bytes, (unsigned long long)stats->tx_audio_bytes,
        (unsigned long long)stats->rx_bytes, (unsigned long long)stats->rx_audio_bytes);
    example_lock(&u->base);
    u->base.left = 1;
    memcpy(&u->leave_stats, stats,
           stats->struct_size < sizeof u->leave_stats ? stats->struct_size : sizeof u->leave_stats);
    example_changed(&u->base);
}

static void on_first_local_audio_frame_published(agoraish_engine_t *e, void *ud, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_local_audio_frame_published, %d ms", elapsed);
}

static void on_local_audio_state_changed(agoraish_engine_t *e, void *ud, int state, int error) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_local_audio_state_changed %s (%s)", local_state_name(state), local_error_name(error));
}

static void on_first_remote_audio_frame(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_remote_audio_frame uid %u, %d ms", uid, elapsed);
}

static void on_first_remote_audio_decoded(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_remote_audio_decoded uid %u, %d ms", uid, elapsed);
}

static void on_remote_audio_state_changed(agoraish_engine_t *e, void *ud, uint32_t uid, int state, int reason,
                                          int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_remote_audio_state_changed uid %u %s (%s), %d ms", uid, remote_state_name(state),
        remote_reason_name(reason), elapsed);
}

/* A local report (one speaker, uid 0) comes first; in a call a remote report
 * (up to three loudest remote users) follows at once: print them as one line. */
static void on_audio_volume_indication(agoraish_engine_t *e, void *ud, const agoraish_audio_volume_info *speakers,
                                       unsigned int count, int total_volume) {
    user_t *u = ud;
    char line[256];
    int n;
    (void)e;
    if (count == 1 && speakers[0].uid == 0) {
        example_lock(&u->base);
        u->local_volume = (int)speakers[0].volume;
        u->local_vad = (int)speakers[0].vad;
        example_unlock(&u->base);
        return;
    }
    example_lock(&u->base);
    n = snprintf(line, sizeof line, "on_audio_volume_indication: local %3d (vad %d); remote", u->local_volume,
                 u->local_vad);
    example_unlock(&u->base);
    for (unsigned int i = 0; i < count && n < (int)sizeof line; i++) {
        n += snprintf(line + n, sizeof line - (size_t)n, " uid %u %3u", speakers[i].uid, speakers[i].volume);
    }
    if (count == 0 && n < (int)sizeof line) n += snprintf(line + n, sizeof line - (size_t)n, " (nobody)");
    if (n < (int)sizeof line) snprintf(line + n, sizeof line - (size_t)n, ", total %d", total_volume);
    say(u->base.name, "%s", line);
}

static void on_active_speaker(agoraish_engine_t *e, void *ud, uint32_t uid) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_active_speaker uid %u", uid);
}

static void on_rtc_stats(agoraish_engine_t *e, void *ud, const agoraish_rtc_stats *s) {
    user_t *u = ud;
    (void)e;
    if (!u->verbose) return;
    say(u->base.name, "on_rtc_stats: %u s, %u users, tx %u kbps (audio %u), rx %u kbps (audio %u), cpu %.1f %%, %u MB",
        s->duration, s->user_count, s->tx_kbitrate, s->tx_audio_kbitrate, s->rx_kbitrate, s->rx_audio_kbitrate,
        s->cpu_app_usage, s->memory_app_usage_kb / 1024);
}

static void on_local_audio_stats(agoraish_engine_t *e, void *ud, const agoraish_local_audio_stats *s) {
    user_t *u = ud;
    (void)e;
    if (!u->verbose) return;
    say(u->base.name, "on_local_audio_stats: %d ch, %d Hz, %d kbps, upstream loss %d %%", s->num_channels,
        s->sent_sample_rate, s->sent_bitrate, s->tx_packet_loss_rate);
}

static void on_remote_audio_stats(agoraish_engine_t *e, void *ud, const agoraish_remote_audio_stats *s) {
    user_t *u = ud;
    (void)e;
    if (!u->verbose) return;
    say(u->base.name,
        "on_remote_audio_stats uid %u: quality %d, %d kbps, loss %d %%, jitter buffer %d ms, end to end %d ms, "
        "active %d ms, frozen %d ms",
        s->uid, s->quality, s->received_bitrate, s->audio_loss_rate, s->jitter_buffer_delay, s->end_to_end_delay,
        s->total_active_time, s->total_frozen_time);
}

static agoraish_engine_t *create_user(user_t *u, const char *name, int verbose, const char *server_url) {
    agoraish_event_handler handler;

    memset(u, 0, sizeof *u);
    example_user_init(&u->base, name);
    u->verbose = verbose;
    example_handler(&handler, &u->base);
    handler.on_leave_channel = on_leave_channel;
    handler.on_first_local_audio_frame_published = on_first_local_audio_frame_published;
    handler.on_local_audio_state_changed = on_local_audio_state_changed;
    handler.on_first_remote_audio_frame = on_first_remote_audio_frame;
    handler.on_first_remote_audio_decoded = on_first_remote_audio_decoded;
    handler.on_remote_audio_state_changed = on_remote_audio_state_changed;
    handler.on_audio_volume_indication = on_audio_volume_indication;
    handler.on_active_speaker = on_active_speaker;
    handler.on_rtc_stats = on_rtc_stats;
    handler.on_local_audio_stats = on_local_audio_stats;
    handler.on_remote_audio_stats = on_remote_audio_stats;
    return example_create_engine(&u->base, &handler, server_url);
}

/* ---- audio helpers ----------------------------------------------------------- */

/* Frequency and level of a tone (example_support.h). */
typedef example_tone tone_t;

static tone_t analyze(const int16_t *pcm, size_t count) { return example_analyze_tone(pcm, count, RATE); }

/* ---- the remote user: talks through an external source ------------------------ */

typedef struct {
    agoraish_engine_t *engine;
    long duration_ms;
} talker_t;

static void *talk(void *arg) {
    const talker_t *t = arg;
    int16_t frame[FRAME];
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 0; k < t->duration_ms / 10; k++) {
        for (int i = 0; i < FRAME; i++) {
            frame[i] = (int16_t)(REMOTE_AMPLITUDE * sin(2 * PI * REMOTE_HZ * (double)(k * FRAME + i) / RATE));
        }
        agoraish_engine_push_external_audio_frame(t->engine, frame, FRAME);
        sleep_until(&start, (k + 1) * 10);
    }
    return NULL;
}

/* ---- the ALSA devices of this example ---------------------------------------- */

/* Writes the microphone's raw file and an ALSA configuration defining
 * "agoraish_mic" and "agoraish_speaker" into `dir`, and has ALSA load it:
 * alsa.conf reads $XDG_CONFIG_HOME/alsa/asoundrc after the system's files. */
static int make_devices(const char *dir) {
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/mic.raw", dir);
    if (!(f = fopen(path, "wb"))) return -1;
    for (long i = 0; i < (long)MIC_SECONDS * RATE; i++) {
        int16_t s = (int16_t)(MIC_AMPLITUDE * sin(2 * PI * MIC_HZ * (double)i / RATE));
        fputc(s & 0xFF, f);
        fputc((s >> 8) & 0xFF, f);
    }
    if (fclose(f) != 0) return -1;
    snprintf(path, sizeof path, "%s/alsa", dir);
    if (mkdir(path, 0700) != 0) return -1;
    snprintf(path, sizeof path, "%s/alsa/asoundrc", dir);
    if (!(f = fopen(path, "w"))) return -1;
    fprintf(f,
            "pcm.agoraish_mic {\n"
            "    type file\n    slave.pcm null\n    file \"/dev/null\"\n    infile \"%s/mic.raw\"\n    format raw\n"
            "    hint { show on description \"440 Hz tone read from a file\" }\n}\n"
            "pcm.agoraish_speaker {\n"
            "    type file\n    slave.pcm null\n    file \"%s/speaker.raw\"\n    format raw\n"
            "    hint { show on description \"what is played, written to a file\" }\n}\n",
            dir, dir);
    if (fclose(f) != 0) return -1;
    return setenv("XDG_CONFIG_HOME", dir, 1);
}

/* Removes what make_devices wrote, and the speaker's file. */
static void remove_devices(const char *dir) {
    static const char *const files[] = {"mic.raw", "speaker.raw", "alsa/asoundrc", "alsa"};
    char path[512];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        remove(path);
    }
    remove(dir);
}

/* Reads what the speaker played (raw 16-bit mono at 48 kHz) and finds the
 * remote's tone in it: from 300 ms after it starts, for up to 2 s. */
static tone_t analyze_speaker(const char *dir) {
    static int16_t played[30 * RATE];
    tone_t none = {0, -120};
    char path[512];
    size_t count = 0, first = 0;
    unsigned char b[2];
    FILE *f;
    snprintf(path, sizeof path, "%s/speaker.raw", dir);
    if (!(f = fopen(path, "rb"))) return none;
    while (count < sizeof played / sizeof played[0] && fread(b, 1, 2, f) == 2) {
        played[count++] = (int16_t)(uint16_t)(b[0] | b[1] << 8);
    }
    fclose(f);
    while (first < count && abs(played[first]) < 1000) first++;
    first += RATE * 3 / 10;
    if (first >= count) return none;
    return analyze(played + first, count - first < 2 * RATE ? count - first : 2 * RATE);
}

/* The ALSA devices the engine lists (the PCMs with a hint, "default" first). */
static void list_devices(agoraish_engine_t *engine) {
    static const char *const kinds[] = {"playback", "recording"};
    for (int type = AGORAISH_AUDIO_PLAYOUT_DEVICE; type <= AGORAISH_AUDIO_RECORDING_DEVICE; type++) {
        char line[1024] = "";
        size_t used = 0;
        int n = agoraish_engine_get_audio_device_count(engine, type);
        for (int i = 0; i < n && used < sizeof line; i++) {
            agoraish_audio_device_info info;
            if (agoraish_engine_get_audio_device(engine, type, i, &info) == 0) {
                used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", i ? ", " : "", info.id);
            }
        }
        say("local", "%s devices: %s", kinds[type], n > 0 ? line : "none");
    }
}

int main(void) {
    static int16_t heard[PHASES * PHASE_MS / 10 * FRAME];
    char dir[] = "/tmp/agoraish-join-channel-audio-XXXXXX";
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    user_t local, remote;
    talker_t talker;
    pthread_t talker_thread;
    struct timespec start;
    char url[128];
    int ok = 0, rc, talking = 0;
    tone_t phase_tone[PHASES], played;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);
    if (!mkdtemp(dir) || make_devices(dir) != 0) {
        perror("cannot write the example's ALSA devices");
        return 1;
    }

    /* A channel server inside this process: 127.0.0.1, a free port, any app id. */
    if (!(server = example_start_server(url, sizeof url))) goto done;

    local_engine = create_user(&local, "local", 1, url);
    remote_engine = create_user(&remote, "remote", 0, url);
    if (!local_engine || !remote_engine) goto done;

    /* The case's calls, before joining. */
    list_devices(local_engine);
    agoraish_engine_set_recording_device(local_engine, "agoraish_mic");
    agoraish_engine_set_playback_device(local_engine, "agoraish_speaker");
    rc = agoraish_engine_set_audio_profile(local_engine, AGORAISH_AUDIO_PROFILE_MUSIC_STANDARD);
    say("local", "set_audio_profile(MUSIC_STANDARD) = %d", rc);
    rc = agoraish_engine_enable_audio_volume_indication(local_engine, 500, 3, 1);
    say("local", "enable_audio_volume_indication(500 ms, smooth 3, vad) = %d", rc);

    /* The remote user speaks and listens through the host. */
    agoraish_engine_set_external_audio_source(remote_engine, 1, RATE, 1);
    agoraish_engine_set_external_audio_sink(remote_engine, 1, RATE, 1);

    if (example_meet(CHANNEL, local_engine, &local.base, LOCAL_UID, remote_engine, &remote.base, REMOTE_UID) != 0) {
        goto done;
    }

    /* The call: remote talks all along; local changes its recording volume
     * every PHASE_MS while remote listens (pulls 10 ms every 10 ms). */
    talker.engine = remote_engine;
    talker.duration_ms = PHASES * PHASE_MS + 500;
    talking = pthread_create(&talker_thread, NULL, talk, &talker) == 0;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int p = 0; p < PHASES; p++) {
        rc = agoraish_engine_adjust_recording_signal_volume(local_engine, phase_volume[p]);
        say("local", "adjust_recording_signal_volume(%d) = %d", phase_volume[p], rc);
        for (int k = 0; k < PHASE_MS / 10; k++) {
            long frame = (long)p * (PHASE_MS / 10) + k;
            agoraish_engine_pull_playback_audio_frame(remote_engine, heard + frame * FRAME, FRAME);
            sleep_until(&start, (frame + 1) * 10);
        }
    }
    if (talking) pthread_join(talker_thread, NULL);

    if (!example_part(local_engine, &local.base, remote_engine, &remote.base)) goto done;

    /* What remote heard of local in each phase (from 600 ms into it, past the
     * path's delay), and what local's speaker played of remote. */
    ok = 1;
    for (int p = 0; p < PHASES; p++) {
        size_t from = ((size_t)p * PHASE_MS + 600) / 10 * FRAME, to = (size_t)(p + 1) * PHASE_MS / 10 * FRAME;
        phase_tone[p] = analyze(heard + from, to - from);
        say("remote", "heard %.0f Hz at %.1f dBFS (%+.1f dB) while local's recording volume was %d",
            phase_tone[p].hz, phase_tone[p].dbfs, phase_tone[p].dbfs - phase_tone[0].dbfs, phase_volume[p]);
        ok = ok && fabs(phase_tone[p].hz - MIC_HZ) < 10
             && fabs(phase_tone[p].dbfs - phase_tone[0].dbfs - 20 * log10(phase_volume[p] / 100.0)) < 1.5;
    }
    played = analyze_speaker(dir);
    say("local", "its speaker played %.0f Hz at %.1f dBFS (remote sent %.0f Hz at %.1f dBFS)", played.hz,
        played.dbfs, REMOTE_HZ, 20 * log10(REMOTE_AMPLITUDE / sqrt(2.0) / 32768.0));
    ok = ok && fabs(played.hz - REMOTE_HZ) < 10;

done:
    /* release(sync = 1): afterwards no callback runs, so the user_t may go. */
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local.base);
    example_user_destroy(&remote.base);
    remove_devices(dir);
    return example_finish(ok, "done: local was heard at each recording volume and heard remote");
}
