/*
 * raw_audio_data.c — Agora's RawAudioData case in C: a raw audio observer
 * sees the audio at the four positions of the audio path, and changes what
 * is sent.
 *
 *   set_recording_audio_frame_parameters, set_playback_audio_frame_parameters,
 *   set_mixed_audio_frame_parameters, set_playback_audio_frame_before_mixing_parameters
 *   -> register_audio_frame_observer(all four positions) -> join_channel
 *   -> on_record_audio_frame (read-write), on_playback_audio_frame,
 *      on_playback_audio_frame_before_mixing, on_mixed_audio_frame
 *   -> register_audio_frame_observer(NULL) -> leave_channel -> release
 *
 * "local" observes. Its "microphone" is a 440 Hz tone it pushes through an
 * external source from a thread named "local-mic"; it plays what it hears on
 * ALSA's "null" device, so the playback positions run on the engine's audio
 * device thread. "remote", a second engine in the same process, says 660 Hz
 * and listens through an external sink.
 *
 * Each position asks for its own format (rate, channels, samples per call),
 * and the example reports what each saw: the format, the callback period,
 * the thread, and which of the two tones (and their octave) the audio holds.
 * The record observer runs in read-write mode and rectifies the wave
 * (|x| minus its mean): local's 440 Hz tone leaves an octave higher, and
 * remote hears 880 Hz.
 *
 *   make hosts && build/examples/raw_audio_data
 */
#define _GNU_SOURCE /* pthread_setname_np, pthread_getname_np */

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "raw-audio-data"
#define LOCAL_UID 1001
#define REMOTE_UID 2002
#define PI 3.14159265358979323846
#define LOCAL_HZ 440.0
#define REMOTE_HZ 660.0
#define AMPLITUDE 8000.0
#define CALL_MS 3000

/* ---- one user's events ----------------------------------------------------- */

typedef struct {
    example_user base; /* first, so the handler's user_data is both */
    /* Guarded by base.mutex. */
} user_t;

static agoraish_engine_t *create_user(user_t *u, const char *name, const char *server_url) {
    agoraish_event_handler handler;

    memset(u, 0, sizeof *u);
    example_user_init(&u->base, name);
    example_handler(&handler, &u->base);
    return example_create_engine(&u->base, &handler, server_url);
}

/* ---- tones in a frame ------------------------------------------------------------ */

#define TONES 3
static const double tones[TONES] = {LOCAL_HZ, REMOTE_HZ, 2 * LOCAL_HZ};

/* What frames with sound held: the mean amplitude of each tone and the mean power. */
typedef struct {
    double amplitude[TONES];
    double power;
    int frames;
} spectrum_t;

/* Adds one frame (channel 0 of `channels` interleaved) if it is not silent. The
 * amplitude of each tone is a Hann-windowed DFT at its frequency (Goertzel). */
static void measure(spectrum_t *s, const int16_t *pcm, int count, int channels, int rate) {
    double power = 0;
    for (int i = 0; i < count; i++) power += (double)pcm[i * channels] * pcm[i * channels];
    power /= count;
    if (count < 2 || power < 100.0 * 100.0) return;
    for (int t = 0; t < TONES; t++) {
        double w = 2 * PI * tones[t] / rate, c = 2 * cos(w), s1 = 0, s2 = 0, gain = 0;
        for (int i = 0; i < count; i++) {
            double hann = 0.5 - 0.5 * cos(2 * PI * i / (count - 1)), s0 = hann * pcm[i * channels] + c * s1 - s2;
            gain += hann;
            s2 = s1;
            s1 = s0;
        }
        s->amplitude[t] += 2 * sqrt(fmax(0, s1 * s1 + s2 * s2 - c * s1 * s2)) / gain;
    }
    s->power += power;
    s->frames++;
}

/* "660 Hz at -17.8 dBFS", or several tones joined with " + ": the tones
 * within 10 dB of the frames' whole level. */
static void describe(const spectrum_t *s, char *out, size_t size) {
    double total;
    size_t used = 0;
    if (s->frames == 0) {
        snprintf(out, size, "silence");
        return;
    }
    total = 10 * log10(s->power / s->frames) - 20 * log10(32768.0);
    out[0] = '\0';
    for (int t = 0; t < TONES && used < size; t++) {
        double dbfs = 20 * log10(s->amplitude[t] / s->frames / sqrt(2.0) / 32768.0);
        if (dbfs > total - 10) {
            used += (size_t)snprintf(out + used, size - used, "%s%.0f Hz at %.1f dBFS", used ? " + " : "", tones[t],
                                     dbfs);
        }
    }
    if (used == 0) snprintf(out, size, "no known tone (%.1f dBFS)", total);
}

/* Whether the description names exactly the tone `hz`. */
static int only_tone(const spectrum_t *s, double hz) {
    char text[160], want[16];
    describe(s, text, sizeof text);
    snprintf(want, sizeof want, "%.0f Hz", hz);
    return strncmp(text, want, strlen(want)) == 0 && !strstr(text, " + ");
}

/* ---- the observer ------------------------------------------------------------------ */

/* What one position saw. Written only by that position's callbacks, which never
 * overlap; main reads it after unregistering the observer. */
typedef struct {
    const char *name;
    int calls;
    int rate, channels, samples; /* the first frame's format */
    int64_t first_ms, last_ms;   /* render_time_ms of the first and last frames */
    char thread[16];
    uint32_t uid;                /* before mixing: the user */
    spectrum_t heard;
    spectrum_t written;          /* record: what the observer handed back */
    int nested_push;             /* record: a push from inside the callback */
} position_t;

typedef struct {
    agoraish_engine_t *engine;
    position_t record, playback, mixed, before_mixing;
} observed_t;

static void saw(position_t *p, const agoraish_audio_frame *f) {
    if (p->calls++ == 0) {
        p->rate = f->samples_per_sec;
        p->channels = f->channels;
        p->samples = f->samples_per_channel;
        p->first_ms = f->render_time_ms;
        pthread_getname_np(pthread_self(), p->thread, sizeof p->thread);
    }
    p->last_ms = f->render_time_ms;
    /* The first half second is the path starting up. */
    if (f->render_time_ms - p->first_ms >= 500) {
        measure(&p->heard, f->buffer, f->samples_per_channel, f->channels, f->samples_per_sec);
    }
}

/* Local audio before encoding, read-write: rectified, an octave up. */
static int on_record_audio_frame(agoraish_engine_t *engine, void *ud, agoraish_audio_frame *f) {
    observed_t *o = ud;
    int16_t *pcm = f->buffer;
    int n = f->samples_per_channel * f->channels;
    double mean = 0;
    saw(&o->record, f);
    if (o->record.calls == 1) {
        /* Pushing from inside a callback is refused (-5); other calls are allowed. */
        o->record.nested_push = agoraish_engine_push_external_audio_frame(engine, NULL, 0);
    }
    for (int i = 0; i < n; i++) mean += abs(pcm[i]);
    mean /= n;
    for (int i = 0; i < n; i++) {
        double y = 2 * (abs(pcm[i]) - mean);
        pcm[i] = (int16_t)(y > 32767 ? 32767 : y < -32768 ? -32768 : y);
    }
    if (f->render_time_ms - o->record.first_ms >= 500) {
        measure(&o->record.written, pcm, f->samples_per_channel, f->channels, f->samples_per_sec);
    }
    return 1; /* keep the frame: what was written is sent */
}

static int on_playback_audio_frame(agoraish_engine_t *engine, void *ud, agoraish_audio_frame *f) {
    observed_t *o = ud;
    (void)engine;
    saw(&o->playback, f);
    return 1;
}

static int on_mixed_audio_frame(agoraish_engine_t *engine, void *ud, agoraish_audio_frame *f) {
    observed_t *o = ud;
    (void)engine;
    saw(&o->mixed, f);
    return 1;
}

static int on_playback_audio_frame_before_mixing(agoraish_engine_t *engine, void *ud, uint32_t uid,
                                                 agoraish_audio_frame *f) {
    observed_t *o = ud;
    (void)engine;
    o->before_mixing.uid = uid;
    saw(&o->before_mixing, f);
    return 1;
}

static void report(const position_t *p, const char *what) {
    char text[160];
    double period = p->calls > 1 ? (double)(p->last_ms - p->first_ms) / (p->calls - 1) : 0;
    if (p->calls == 0) {
        say("local", "%-14s no callback", p->name);
        return;
    }
    describe(&p->heard, text, sizeof text);
    say("local", "%-14s %4d calls on %-13s %5d Hz, %d ch, %4d samples every %3.0f ms; %s%s", p->name, p->calls,
        p->thread, p->rate, p->channels, p->samples, period, what, text);
}

/* ---- the users' voices -------------------------------------------------------------- */

typedef struct {
    agoraish_engine_t *engine;
    const char *thread_name;
    double hz;
} voice_t;

/* 10 ms of tone every 10 ms at 48 kHz, for the whole call. */
static void *talk(void *arg) {
    const voice_t *v = arg;
    int16_t frame[480];
    struct timespec start;
    pthread_setname_np(pthread_self(), v->thread_name);
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 0; k < CALL_MS / 10; k++) {
        for (int i = 0; i < 480; i++) frame[i] = (int16_t)(AMPLITUDE * sin(2 * PI * v->hz * (double)(k * 480 + i) / 48000));
        agoraish_engine_push_external_audio_frame(v->engine, frame, 480);
        sleep_until(&start, (k + 1) * 10);
    }
    return NULL;
}

int main(void) {
    static int16_t heard[CALL_MS / 10 * 480];
    static observed_t observed;
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    agoraish_audio_frame_observer observer;
    user_t local, remote;
    voice_t local_voice, remote_voice;
    pthread_t local_thread, remote_thread;
    struct timespec start, pause = {0, 300000000L};
    char url[128];
    int ok = 0, rc, talking = 0, calls_after;
    double remote_heard;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&local, 0, sizeof local);
    memset(&remote, 0, sizeof remote);
    observed.record.name = "record";
    observed.playback.name = "playback";
    observed.mixed.name = "mixed";
    observed.before_mixing.name = "before mixing";

    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(&local, "local", url);
    remote_engine = create_user(&remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;
    observed.engine = local_engine;

    /* The formats each position delivers, as the case sets them. */
    rc = agoraish_engine_set_recording_audio_frame_parameters(local_engine, 44100, 1,
                                                              AGORAISH_RAW_AUDIO_FRAME_OP_MODE_READ_WRITE, 4410);
    say("local", "set_recording_audio_frame_parameters(44100 Hz, 1 ch, READ_WRITE, 4410) = %d", rc);
    rc = agoraish_engine_set_playback_audio_frame_parameters(local_engine, 16000, 2,
                                                             AGORAISH_RAW_AUDIO_FRAME_OP_MODE_READ_ONLY, 0);
    say("local", "set_playback_audio_frame_parameters(16000 Hz, 2 ch, READ_ONLY, 10 ms) = %d", rc);
    rc = agoraish_engine_set_mixed_audio_frame_parameters(local_engine, 44100, 1, 4410);
    say("local", "set_mixed_audio_frame_parameters(44100 Hz, 1 ch, 4410) = %d", rc);
    rc = agoraish_engine_set_playback_audio_frame_before_mixing_parameters(local_engine, 32000, 1);
    say("local", "set_playback_audio_frame_before_mixing_parameters(32000 Hz, 1 ch) = %d", rc);

    memset(&observer, 0, sizeof observer);
    observer.struct_size = sizeof observer;
    observer.user_data = &observed;
    observer.observed_position = AGORAISH_AUDIO_FRAME_POSITION_PLAYBACK | AGORAISH_AUDIO_FRAME_POSITION_RECORD
                                 | AGORAISH_AUDIO_FRAME_POSITION_MIXED | AGORAISH_AUDIO_FRAME_POSITION_BEFORE_MIXING;
    observer.on_record_audio_frame = on_record_audio_frame;
    observer.on_playback_audio_frame = on_playback_audio_frame;
    observer.on_mixed_audio_frame = on_mixed_audio_frame;
    observer.on_playback_audio_frame_before_mixing = on_playback_audio_frame_before_mixing;
    rc = agoraish_engine_register_audio_frame_observer(local_engine, &observer);
    say("local", "register_audio_frame_observer(all four positions) = %d", rc);
    if (rc != 0) goto done;

    /* local pushes its voice and plays on "null"; remote pushes and pulls. */
    agoraish_engine_set_external_audio_source(local_engine, 1, 48000, 1);
    agoraish_engine_set_playback_device(local_engine, "null");
    agoraish_engine_set_external_audio_source(remote_engine, 1, 48000, 1);
    agoraish_engine_set_external_audio_sink(remote_engine, 1, 48000, 1);

    if (example_meet(CHANNEL, local_engine, &local.base, LOCAL_UID, remote_engine, &remote.base, REMOTE_UID) != 0) {
        goto done;
    }

    local_voice.engine = local_engine;
    local_voice.thread_name = "local-mic";
    local_voice.hz = LOCAL_HZ;
    remote_voice.engine = remote_engine;
    remote_voice.thread_name = "remote-mic";
    remote_voice.hz = REMOTE_HZ;
    talking = pthread_create(&local_thread, NULL, talk, &local_voice) == 0;
    if (talking && pthread_create(&remote_thread, NULL, talk, &remote_voice) != 0) {
        pthread_join(local_thread, NULL);
        talking = 0;
    }
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long k = 0; k < CALL_MS / 10; k++) {
        agoraish_engine_pull_playback_audio_frame(remote_engine, heard + k * 480, 480);
        sleep_until(&start, (k + 1) * 10);
    }
    if (talking) {
        pthread_join(local_thread, NULL);
        pthread_join(remote_thread, NULL);
    }

    /* After this returns no callback runs: the counts can be read. */
    rc = agoraish_engine_register_audio_frame_observer(local_engine, NULL);
    calls_after = observed.record.calls + observed.playback.calls + observed.mixed.calls + observed.before_mixing.calls;
    say("local", "register_audio_frame_observer(NULL) = %d", rc);
    nanosleep(&pause, NULL);

    if (!example_part(local_engine, &local.base, remote_engine, &remote.base)) goto done;

    /* What each position saw. */
    {
        char text[160];
        report(&observed.record, "");
        describe(&observed.record.written, text, sizeof text);
        say("local", "%-14s the observer sent %s", "", text);
        report(&observed.before_mixing, "");
        say("local", "%-14s (uid %u)", "", observed.before_mixing.uid);
        report(&observed.playback, "");
        report(&observed.mixed, "");
        say("local", "push_external_audio_frame from inside on_record_audio_frame returned %d (%s)",
            observed.record.nested_push, agoraish_get_error_description(observed.record.nested_push));
        calls_after = observed.record.calls + observed.playback.calls + observed.mixed.calls
                      + observed.before_mixing.calls - calls_after;
        say("local", "callbacks after unregistering: %d", calls_after);
    }
    remote_heard = example_analyze_tone(heard + 100 * 480, (size_t)((CALL_MS / 10 - 100) * 480), 48000).hz;
    say("remote", "heard %.0f Hz from local (local's microphone: %.0f Hz)", remote_heard, LOCAL_HZ);

    ok = only_tone(&observed.record.heard, LOCAL_HZ) && only_tone(&observed.record.written, 2 * LOCAL_HZ)
         && only_tone(&observed.playback.heard, REMOTE_HZ) && only_tone(&observed.before_mixing.heard, REMOTE_HZ)
         && observed.before_mixing.uid == REMOTE_UID && observed.mixed.heard.frames > 0
         && observed.record.nested_push == -AGORAISH_ERR_REFUSED && calls_after == 0
         && fabs(remote_heard - 2 * LOCAL_HZ) < 10;

done:
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    example_user_destroy(&local.base);
    example_user_destroy(&remote.base);
    return example_finish(ok, "done: every position saw its audio, and remote heard the changed recording");
}
