/*
 * custom_audio_render.c — Agora's CustomAudioRender case in C: the host
 * plays what a user hears, instead of a speaker.
 *
 *   set_external_audio_sink(rate, channels) -> join_channel
 *   -> pull_playback_audio_frame every 10 ms, in real time
 *   -> on_first_remote_audio_decoded, on_user_mute_audio,
 *      on_remote_audio_state_changed -> leave_channel -> release
 *
 * "local" renders: it pulls 10 ms of 44.1 kHz stereo every 10 ms (the pull
 * cadence is its playout clock; the engine mixes every remote user, converts
 * the 48 kHz mix to the sink's format and conceals losses) and writes what it
 * pulled to demo-out/custom_audio_render.wav, as a player would hand it to a
 * sound card. "remote", a second engine in the same process, talks: it pushes
 * a 523 Hz tone (C5) and mutes itself for one second in the middle
 * (mute_local_audio_stream), which the WAV shows as a gap. At the end the
 * example reads the WAV's tone, level and gap.
 *
 *   make hosts && build/examples/custom_audio_render
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

#define CHANNEL "custom-audio-render"
#define PI 3.14159265358979323846
#define SINK_RATE 44100               /* what local renders */
#define SINK_CHANNELS 2
#define SINK_FRAME (SINK_RATE / 100)  /* 10 ms, per channel */
#define TONE_HZ 523.25                /* what remote says */
#define TONE_AMPLITUDE 8000.0
#define TALK_MS 4000
#define MUTE_FROM_MS 1500             /* remote mutes itself from here ... */
#define MUTE_TO_MS 2500               /* ... to here */
#define LISTEN_MS 4500

/* ---- one user's events ----------------------------------------------------- */

typedef struct {
    example_user base; /* first, so the handler's user_data is both */
    /* Guarded by base.mutex. */
} user_t;

static void on_local_audio_state_changed(agoraish_engine_t *e, void *ud, int state, int error) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_local_audio_state_changed %s (error %d)", local_state_name(state), error);
}

static void on_first_local_audio_frame_published(agoraish_engine_t *e, void *ud, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_local_audio_frame_published, %d ms", elapsed);
}

static void on_user_mute_audio(agoraish_engine_t *e, void *ud, uint32_t uid, int muted) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_user_mute_audio uid %u %s", uid, muted ? "muted" : "unmuted");
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

static void on_remote_audio_stats(agoraish_engine_t *e, void *ud, const agoraish_remote_audio_stats *s) {
    user_t *u = ud;
    (void)e;
    say(u->base.name,
        "on_remote_audio_stats uid %u: %d kbps, loss %d %%, jitter buffer %d ms, end to end %d ms, "
        "concealed %d, active %d ms, frozen %d ms",
        s->uid, s->received_bitrate, s->audio_loss_rate, s->jitter_buffer_delay, s->end_to_end_delay,
        s->concealed_frames, s->total_active_time, s->total_frozen_time);
}

static agoraish_engine_t *create_user(user_t *u, const char *name, const char *server_url) {
    agoraish_event_handler handler;

    memset(u, 0, sizeof *u);
    example_user_init(&u->base, name);
    example_handler(&handler, &u->base);
    handler.on_local_audio_state_changed = on_local_audio_state_changed;
    handler.on_first_local_audio_frame_published = on_first_local_audio_frame_published;
    handler.on_user_mute_audio = on_user_mute_audio;
    handler.on_first_remote_audio_frame = on_first_remote_audio_frame;
    handler.on_first_remote_audio_decoded = on_first_remote_audio_decoded;
    handler.on_remote_audio_state_changed = on_remote_audio_state_changed;
    handler.on_remote_audio_stats = on_remote_audio_stats;
    return example_create_engine(&u->base, &handler, server_url);
}

/* ---- the remote user: 10 ms of tone every 10 ms, muted for a while --------------- */

static void *talk(void *engine) {
    int16_t frame[480];
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 0; k < TALK_MS / 10; k++) {
        if (k * 10 == MUTE_FROM_MS || k * 10 == MUTE_TO_MS) {
            int mute = k * 10 == MUTE_FROM_MS;
            int rc = agoraish_engine_mute_local_audio_stream((agoraish_engine_t *)engine, mute);
            say("remote", "mute_local_audio_stream(%d) = %d", mute, rc);
        }
        for (int i = 0; i < 480; i++) {
            frame[i] = (int16_t)(TONE_AMPLITUDE * sin(2 * PI * TONE_HZ * (double)(k * 480 + i) / 48000));
        }
        agoraish_engine_push_external_audio_frame((agoraish_engine_t *)engine, frame, 480);
        sleep_until(&start, (k + 1) * 10);
    }
    return NULL;
}

/* ---- the WAV file and what is in it --------------------------------------------- */

static void put_le(FILE *f, uint32_t v, int bytes) {
    for (int i = 0; i < bytes; i++) fputc((int)((v >> (8 * i)) & 0xFF), f);
}

/* A 16-bit PCM WAV file (RIFF), interleaved. */
static int write_wav(const char *path, const int16_t *samples, long frames, int rate, int channels) {
    uint32_t bytes = (uint32_t)(frames * channels * 2);
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    fputs("RIFF", f);
    put_le(f, 36 + bytes, 4);
    fputs("WAVEfmt ", f);
    put_le(f, 16, 4);
    put_le(f, 1, 2);
    put_le(f, (uint32_t)channels, 2);
    put_le(f, (uint32_t)rate, 4);
    put_le(f, (uint32_t)(rate * channels * 2), 4);
    put_le(f, (uint32_t)(channels * 2), 2);
    put_le(f, 16, 2);
    fputs("data", f);
    put_le(f, bytes, 4);
    for (long i = 0; i < frames * channels; i++) put_le(f, (uint16_t)samples[i], 2);
    return fclose(f);
}

typedef struct {
    double hz, dbfs;
} tone_t;

/* Frequency (upward crossings of a hysteresis band) and level of one channel
 * (`count` frames of `channels` interleaved, starting at `pcm`). */
static tone_t analyze(const int16_t *pcm, long count, int channels) {
    tone_t t = {0, -120};
    double energy = 0, band;
    long crossings = 0;
    int high = 0;
    for (long i = 0; i < count; i++) energy += (double)pcm[i * channels] * pcm[i * channels];
    if (count <= 0 || energy <= 0) return t;
    band = sqrt(energy / (double)count) / 4;
    for (long i = 0; i < count; i++) {
        int16_t s = pcm[i * channels];
        if (!high && s > band) {
            high = 1;
            crossings++;
        } else if (high && s < -band) {
            high = 0;
        }
    }
    t.hz = (double)crossings / ((double)count / SINK_RATE);
    t.dbfs = 10 * log10(energy / (double)count) - 20 * log10(32768.0);
    return t;
}

/* Peak of the 10 ms block `k` (both channels). */
static int block_peak(const int16_t *pcm, long k) {
    int peak = 0;
    for (long i = k * SINK_FRAME * SINK_CHANNELS; i < (k + 1) * SINK_FRAME * SINK_CHANNELS; i++) {
        if (abs(pcm[i]) > peak) peak = abs(pcm[i]);
    }
    return peak;
}

int main(void) {
    static const char wav_path[] = "demo-out/custom_audio_render.wav";
    static int16_t played[LISTEN_MS / 10 * SINK_FRAME * SINK_CHANNELS];
    const long blocks = LISTEN_MS / 10;
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    user_t local, remote;
    pthread_t talker;
    struct timespec start;
    char url[128];
    int ok = 0, rc, talking = 0, same = 1;
    long onset = -1, gap_from = -1, gap_blocks = 0, run = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);

    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(&local, "local", url);
    remote_engine = create_user(&remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;

    /* local renders what it hears itself, and sends nothing. */
    rc = agoraish_engine_set_external_audio_sink(local_engine, 1, SINK_RATE, SINK_CHANNELS);
    say("local", "set_external_audio_sink(%d Hz, %d ch) = %d", SINK_RATE, SINK_CHANNELS, rc);
    if (rc != 0) goto done;
    agoraish_engine_enable_local_audio(local_engine, 0);

    /* remote talks through an external source; what it would hear goes to ALSA's "null". */
    agoraish_engine_set_external_audio_source(remote_engine, 1, 48000, 1);
    agoraish_engine_set_playback_device(remote_engine, "null");

    if (example_meet(CHANNEL, local_engine, &local.base, 0, remote_engine, &remote.base, 0) != 0) goto done;

    /* The render loop: 10 ms every 10 ms, as a sound card would ask for it. */
    talking = pthread_create(&talker, NULL, talk, remote_engine) == 0;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 0; k < blocks; k++) {
        rc = agoraish_engine_pull_playback_audio_frame(local_engine, played + k * SINK_FRAME * SINK_CHANNELS,
                                                       SINK_FRAME);
        if (rc != 0) say("local", "pull_playback_audio_frame = %d", rc);
        sleep_until(&start, (k + 1) * 10);
    }
    if (talking) pthread_join(talker, NULL);

    if (!example_part(local_engine, &local.base, remote_engine, &remote.base)) goto done;

    mkdir("demo-out", 0755);
    if (write_wav(wav_path, played, blocks * SINK_FRAME, SINK_RATE, SINK_CHANNELS) == 0) {
        say("local", "wrote what it rendered to %s (%d Hz, %d channels, %.1f s)", wav_path, SINK_RATE, SINK_CHANNELS,
            LISTEN_MS / 1000.0);
    }

    /* The WAV: where sound starts, the longest silence after it (the mute),
     * the tone before and after, and whether both channels are the same. */
    for (long k = 0; k < blocks; k++) {
        int loud = block_peak(played, k) > 1000;
        if (onset < 0) {
            if (loud) onset = k;
            continue;
        }
        run = loud ? 0 : run + 1;
        if (run > gap_blocks) {
            gap_blocks = run;
            gap_from = k - run + 1;
        }
    }
    for (long i = 0; i < blocks * SINK_FRAME; i++) same = same && played[2 * i] == played[2 * i + 1];
    if (onset >= 0 && gap_from > onset + 50) {
        tone_t before = analyze(played + (onset + 20) * SINK_FRAME * SINK_CHANNELS, (gap_from - onset - 40) * SINK_FRAME,
                                SINK_CHANNELS);
        long after_from = gap_from + gap_blocks + 20, after_count = blocks - after_from - 60;
        tone_t after = analyze(played + after_from * SINK_FRAME * SINK_CHANNELS,
                               after_count > 0 ? after_count * SINK_FRAME : 0, SINK_CHANNELS);
        say("local", "sound from %.2f s of the render: %.0f Hz at %.1f dBFS (remote sent %.0f Hz at %.1f dBFS)",
            onset / 100.0, before.hz, before.dbfs, TONE_HZ, 20 * log10(TONE_AMPLITUDE / sqrt(2.0) / 32768.0));
        say("local", "then %.2f s of silence from %.2f s (remote was muted for %.2f s), then %.0f Hz at %.1f dBFS",
            gap_blocks / 100.0, gap_from / 100.0, (MUTE_TO_MS - MUTE_FROM_MS) / 1000.0, after.hz, after.dbfs);
        say("local", "left and right channels are %s", same ? "the same (the mix is mono)" : "different");
        ok = fabs(before.hz - TONE_HZ) < 10 && fabs(after.hz - TONE_HZ) < 10
             && labs(gap_blocks * 10 - (MUTE_TO_MS - MUTE_FROM_MS)) < 300;
    } else {
        say("local", "rendered no tone with a gap");
    }

done:
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local.base);
    example_user_destroy(&remote.base);
    return example_finish(ok, "done: local rendered remote's tone and its mute");
}
