/*
 * custom_pcm_audio_source.c — Agora's CustomPcmAudioSource case in C: the
 * host supplies the audio a user sends, instead of a microphone.
 *
 *   set_audio_profile -> set_external_audio_source(rate, channels) -> join_channel
 *   -> push_external_audio_frame every 10 ms, in real time
 *   -> on_local_audio_state_changed, on_first_local_audio_frame_published,
 *      on_local_audio_stats -> leave_channel -> release
 *
 * "local" pushes a 16-bit PCM WAV file at the file's own rate and channels
 * (8, 16, 32, 44.1 or 48 kHz, mono or stereo); the engine converts it to
 * 48 kHz, encodes 20 ms Opus frames and sends them. "remote", a second
 * engine in the same process, listens through an external sink and reports
 * what it heard. Without an argument the example first writes its own WAV,
 * demo-out/custom_pcm_audio_source.wav: three notes (A4, C#5, E5) of one
 * second each, 44.1 kHz stereo, and checks that remote heard them in order.
 *
 *   make hosts && build/examples/custom_pcm_audio_source [file.wav]
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

#define CHANNEL "custom-pcm-audio-source"
#define SINK_RATE 48000
#define SINK_FRAME (SINK_RATE / 100)
#define PI 3.14159265358979323846
#define MAX_SECONDS 30            /* longest file pushed */
#define NOTE_SECONDS 1

static const double notes[] = {440.0, 554.37, 659.26}; /* A4, C#5, E5 */
#define NOTE_COUNT ((int)(sizeof notes / sizeof notes[0]))

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

static void on_first_remote_audio_decoded(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_remote_audio_decoded uid %u, %d ms", uid, elapsed);
}

static void on_remote_audio_state_changed(agoraish_engine_t *e, void *ud, uint32_t uid, int state, int reason,
                                          int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_remote_audio_state_changed uid %u %s (reason %d), %d ms", uid, remote_state_name(state),
        reason, elapsed);
}

static void on_local_audio_stats(agoraish_engine_t *e, void *ud, const agoraish_local_audio_stats *s) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_local_audio_stats: %d ch, %d Hz, %d kbps", s->num_channels, s->sent_sample_rate,
        s->sent_bitrate);
}

static void on_remote_audio_stats(agoraish_engine_t *e, void *ud, const agoraish_remote_audio_stats *s) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_remote_audio_stats uid %u: %d ch, %d Hz, %d kbps, loss %d %%, jitter buffer %d ms", s->uid,
        s->num_channels, s->received_sample_rate, s->received_bitrate, s->audio_loss_rate, s->jitter_buffer_delay);
}

static agoraish_engine_t *create_user(user_t *u, const char *name, const char *server_url) {
    agoraish_event_handler handler;

    memset(u, 0, sizeof *u);
    example_user_init(&u->base, name);
    example_handler(&handler, &u->base);
    handler.on_local_audio_state_changed = on_local_audio_state_changed;
    handler.on_first_local_audio_frame_published = on_first_local_audio_frame_published;
    handler.on_user_mute_audio = on_user_mute_audio;
    handler.on_first_remote_audio_decoded = on_first_remote_audio_decoded;
    handler.on_remote_audio_state_changed = on_remote_audio_state_changed;
    handler.on_local_audio_stats = on_local_audio_stats;
    handler.on_remote_audio_stats = on_remote_audio_stats;
    return example_create_engine(&u->base, &handler, server_url);
}

/* ---- WAV files ----------------------------------------------------------------- */

typedef struct {
    int rate, channels;
    long frames;      /* samples per channel */
    int16_t *samples; /* interleaved */
} pcm_t;

static void put_le(FILE *f, uint32_t v, int bytes) {
    for (int i = 0; i < bytes; i++) fputc((int)((v >> (8 * i)) & 0xFF), f);
}

static uint32_t get_le(const unsigned char *p, int bytes) {
    uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static int write_wav(const char *path, const pcm_t *pcm) {
    uint32_t bytes = (uint32_t)(pcm->frames * pcm->channels * 2);
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    fputs("RIFF", f);
    put_le(f, 36 + bytes, 4);
    fputs("WAVEfmt ", f);
    put_le(f, 16, 4);
    put_le(f, 1, 2); /* PCM */
    put_le(f, (uint32_t)pcm->channels, 2);
    put_le(f, (uint32_t)pcm->rate, 4);
    put_le(f, (uint32_t)(pcm->rate * pcm->channels * 2), 4);
    put_le(f, (uint32_t)(pcm->channels * 2), 2);
    put_le(f, 16, 2);
    fputs("data", f);
    put_le(f, bytes, 4);
    for (long i = 0; i < pcm->frames * pcm->channels; i++) put_le(f, (uint16_t)pcm->samples[i], 2);
    return fclose(f);
}

/* Reads a 16-bit PCM WAV at a rate and channel count the engine accepts. */
static int read_wav(const char *path, pcm_t *pcm) {
    unsigned char head[12], chunk[8], fmt[16];
    int have_fmt = 0;
    FILE *f = fopen(path, "rb");
    memset(pcm, 0, sizeof *pcm);
    if (!f) return -1;
    if (fread(head, 1, 12, f) != 12 || memcmp(head, "RIFF", 4) != 0 || memcmp(head + 8, "WAVE", 4) != 0) goto bad;
    while (fread(chunk, 1, 8, f) == 8) {
        uint32_t size = get_le(chunk + 4, 4);
        if (memcmp(chunk, "fmt ", 4) == 0 && size >= 16) {
            if (fread(fmt, 1, 16, f) != 16) goto bad;
            if (get_le(fmt, 2) != 1 || get_le(fmt + 14, 2) != 16) goto bad; /* 16-bit PCM only */
            pcm->channels = (int)get_le(fmt + 2, 2);
            pcm->rate = (int)get_le(fmt + 4, 4);
            have_fmt = 1;
            fseek(f, (long)(size - 16 + (size & 1)), SEEK_CUR);
        } else if (memcmp(chunk, "data", 4) == 0 && have_fmt) {
            long frames = (long)size / 2 / (pcm->channels > 0 ? pcm->channels : 1);
            if (pcm->channels < 1 || pcm->channels > 2) goto bad;
            if (frames > (long)MAX_SECONDS * pcm->rate) frames = (long)MAX_SECONDS * pcm->rate;
            pcm->samples = malloc((size_t)(frames * pcm->channels) * sizeof *pcm->samples);
            if (!pcm->samples) goto bad;
            for (long i = 0; i < frames * pcm->channels; i++) {
                unsigned char b[2];
                if (fread(b, 1, 2, f) != 2) break;
                pcm->samples[i] = (int16_t)(uint16_t)get_le(b, 2);
            }
            pcm->frames = frames;
            fclose(f);
            return 0;
        } else {
            fseek(f, (long)(size + (size & 1)), SEEK_CUR);
        }
    }
bad:
    fclose(f);
    free(pcm->samples);
    pcm->samples = NULL;
    return -1;
}

/* Three notes, one second each, the same in both channels, with 20 ms fades. */
static int make_notes(pcm_t *pcm) {
    long per_note = (long)NOTE_SECONDS * 44100;
    pcm->rate = 44100;
    pcm->channels = 2;
    pcm->frames = per_note * NOTE_COUNT;
    pcm->samples = malloc((size_t)(pcm->frames * 2) * sizeof *pcm->samples);
    if (!pcm->samples) return -1;
    for (long i = 0; i < pcm->frames; i++) {
        long j = i % per_note;
        double fade = fmin(1.0, fmin((double)j, (double)(per_note - j)) / (0.02 * 44100));
        double s = 9000 * fade * sin(2 * PI * notes[i / per_note] * (double)j / 44100);
        pcm->samples[2 * i] = pcm->samples[2 * i + 1] = (int16_t)s;
    }
    return 0;
}

/* ---- the pushing thread: 10 ms of the file every 10 ms --------------------------- */

typedef struct {
    agoraish_engine_t *engine;
    const pcm_t *pcm;
    int returned[6]; /* what the first pushes returned */
} pusher_t;

static void *push_file(void *arg) {
    pusher_t *p = arg;
    const long chunk = p->pcm->rate / 100; /* 10 ms, e.g. 441 samples per channel at 44.1 kHz */
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 0; k * chunk < p->pcm->frames; k++) {
        long n = p->pcm->frames - k * chunk < chunk ? p->pcm->frames - k * chunk : chunk;
        int rc = agoraish_engine_push_external_audio_frame(p->engine, p->pcm->samples + k * chunk * p->pcm->channels,
                                                           (int)n);
        if (k < 6) p->returned[k] = rc;
        sleep_until(&start, (k + 1) * 10);
    }
    return NULL;
}

/* ---- what remote heard --------------------------------------------------------- */

/* Frequency and level of a tone (example_support.h). */
typedef example_tone tone_t;

static tone_t analyze(const int16_t *pcm, size_t count) { return example_analyze_tone(pcm, count, SINK_RATE); }

int main(int argc, char **argv) {
    static const char generated[] = "demo-out/custom_pcm_audio_source.wav";
    const char *path = argc > 1 ? argv[1] : generated;
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    user_t local, remote;
    pcm_t pcm;
    pusher_t pusher;
    pthread_t pusher_thread;
    struct timespec start;
    int16_t *heard = NULL;
    long listen_frames = 0, onset = 0;
    char url[128];
    int ok = 0, rc, pushing = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);
    memset(&pcm, 0, sizeof pcm);
    if (argc <= 1) {
        mkdir("demo-out", 0755);
        if (make_notes(&pcm) != 0 || write_wav(generated, &pcm) != 0) {
            fprintf(stderr, "cannot write %s\n", generated);
            free(pcm.samples);
            return 1;
        }
        free(pcm.samples);
        say("local", "wrote %s: A4, C#5, E5, %d s each", generated, NOTE_SECONDS);
    }
    if (read_wav(path, &pcm) != 0) {
        fprintf(stderr, "%s: not a 16-bit PCM WAV file, or unreadable\n", path);
        return 1;
    }
    say("local", "%s: %d Hz, %d channel%s, %.2f s", path, pcm.rate, pcm.channels, pcm.channels == 1 ? "" : "s",
        (double)pcm.frames / pcm.rate);
    listen_frames = (long)((double)pcm.frames / pcm.rate * 100) + 60; /* the file and 600 ms more */
    heard = calloc((size_t)(listen_frames * SINK_FRAME), sizeof *heard);
    if (!heard) goto done;

    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(&local, "local", url);
    remote_engine = create_user(&remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;

    /* local sends the file: a music profile, stereo when the file is. Nothing
     * it would hear matters here, so its playout goes to ALSA's "null". */
    rc = agoraish_engine_set_audio_profile(local_engine, pcm.channels == 2
                                                             ? AGORAISH_AUDIO_PROFILE_MUSIC_STANDARD_STEREO
                                                             : AGORAISH_AUDIO_PROFILE_MUSIC_STANDARD);
    say("local", "set_audio_profile(MUSIC_STANDARD%s) = %d", pcm.channels == 2 ? "_STEREO" : "", rc);
    rc = agoraish_engine_set_external_audio_source(local_engine, 1, pcm.rate, pcm.channels);
    say("local", "set_external_audio_source(%d Hz, %d ch) = %d", pcm.rate, pcm.channels, rc);
    if (rc != 0) goto done;
    agoraish_engine_set_playback_device(local_engine, "null");

    /* remote only listens: it pulls what it hears and sends nothing. */
    agoraish_engine_set_external_audio_sink(remote_engine, 1, SINK_RATE, 1);
    agoraish_engine_enable_local_audio(remote_engine, 0);

    if (example_meet(CHANNEL, local_engine, &local.base, 0, remote_engine, &remote.base, 0) != 0) goto done;

    /* local pushes the file in real time while remote pulls 10 ms every 10 ms. */
    memset(&pusher, 0, sizeof pusher);
    pusher.engine = local_engine;
    pusher.pcm = &pcm;
    pushing = pthread_create(&pusher_thread, NULL, push_file, &pusher) == 0;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 0; k < listen_frames; k++) {
        agoraish_engine_pull_playback_audio_frame(remote_engine, heard + k * SINK_FRAME, SINK_FRAME);
        sleep_until(&start, (k + 1) * 10);
    }
    if (pushing) pthread_join(pusher_thread, NULL);
    say("local", "the first pushes of %d samples per channel returned %d, %d, %d, %d, %d, %d (at 48 kHz, not yet sent)",
        pcm.rate / 100, pusher.returned[0], pusher.returned[1], pusher.returned[2], pusher.returned[3],
        pusher.returned[4], pusher.returned[5]);

    if (!example_part(local_engine, &local.base, remote_engine, &remote.base)) goto done;

    /* What remote heard, second by second from the moment sound arrived. */
    while (onset < listen_frames * SINK_FRAME && abs(heard[onset]) < 500) onset++;
    ok = onset < listen_frames * SINK_FRAME;
    for (int s = 0; ok && onset + (long)(s + 1) * SINK_RATE <= listen_frames * SINK_FRAME; s++) {
        /* Each second without its first and last 150 ms. */
        tone_t t = analyze(heard + onset + (long)s * SINK_RATE + SINK_RATE * 15 / 100, SINK_RATE * 70 / 100);
        if (argc > 1) {
            say("remote", "second %d: %.0f Hz at %.1f dBFS", s + 1, t.hz, t.dbfs);
        } else if (s < NOTE_COUNT) {
            say("remote", "note %d: heard %.0f Hz at %.1f dBFS (the file has %.0f Hz)", s + 1, t.hz, t.dbfs, notes[s]);
            ok = ok && fabs(t.hz - notes[s]) < 10;
        }
    }
    if (onset >= listen_frames * SINK_FRAME) say("remote", "heard nothing");

done:
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local.base);
    example_user_destroy(&remote.base);
    free(pcm.samples);
    free(heard);
    return example_finish(ok, "done: remote heard what local pushed");
}
