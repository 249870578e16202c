/*
 * speex_aec.c — speexdsp's echo canceller (MDF, speex_echo_cancellation) with
 * its preprocessor's residual echo suppression and denoiser, on the same
 * far-end and echo signals the engine's WebRTC AEC gets: the echo return
 * loss enhancement of the common open-source alternative, to set beside the
 * engine's.
 *
 * Per 10 ms: speex_echo_cancellation(capture, far end) then
 * speex_preprocess_run on its output (the preprocessor knows the echo state:
 * SPEEX_PREPROCESS_SET_ECHO_STATE; denoise on, AGC off, the default
 * suppression levels). The echo canceller's filter covers TAIL_MS (default
 * 250 ms: it has no delay estimation, so the echo path's delay has to fit in
 * it). At -r 16000 both signals are first resampled to 16 kHz with speexdsp's
 * resampler (quality 5), and the AEC runs on 160-sample blocks; at 48000 on
 * 480-sample blocks.
 *
 * The inputs are raw 48 kHz s16le files: the far end (the playout, stereo by
 * default, downmixed to mono) and the capture (mono: the echo of the far end,
 * with no near end for the ERLE to mean anything). ERLE = 10·log10(energy of
 * the capture / energy of the output) over everything after WARMUP seconds.
 * The CPU time of the AEC and preprocessor (getrusage, user + system) goes
 * to stderr.
 *
 *   speex_aec [-r 48000|16000] [-t TAIL_MS=250] [-w WARMUP_S=3] [-c FAR_CHANNELS=2] FAR.s16 CAPTURE.s16
 *     -> {"speexdsp_aec_erle_db": x}
 *
 * Build: gcc -std=c99 -O2 speex_aec.c -o speex_aec -lm $(pkg-config --cflags --libs speexdsp)
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <speex/speex_echo.h>
#include <speex/speex_preprocess.h>
#include <speex/speex_resampler.h>

#define INPUT_RATE 48000

/* A growable array of samples. */
typedef struct samples {
    int16_t *data;
    size_t count;
} samples;

/* Reads the whole file at `path` as 16-bit samples (host order: little-endian on x86 and arm64); 0 on success. */
static int read_s16(const char *path, samples *out) {
    FILE *f = fopen(path, "rb");
    size_t capacity = 1 << 16, n;
    if (!f) return 1;
    out->count = 0;
    out->data = malloc(capacity * sizeof(int16_t));
    while (out->data) {
        if (out->count == capacity) {
            int16_t *grown = realloc(out->data, 2 * capacity * sizeof(int16_t));
            if (!grown) break;
            out->data = grown;
            capacity *= 2;
        }
        n = fread(out->data + out->count, sizeof(int16_t), capacity - out->count, f);
        if (n == 0) break;
        out->count += n;
    }
    n = (size_t)ferror(f);
    fclose(f);
    return out->data == NULL || n != 0;
}

/* `in` (mono, INPUT_RATE) at `rate`, through speexdsp's resampler; 0 on success. */
static int resample(const samples *in, int rate, samples *out) {
    int err = 0;
    spx_uint32_t in_len, out_len;
    SpeexResamplerState *rs = speex_resampler_init(1, INPUT_RATE, (spx_uint32_t)rate, 5, &err);
    if (!rs || err != RESAMPLER_ERR_SUCCESS) return 1;
    out->count = in->count * (size_t)rate / INPUT_RATE;
    out->data = calloc(out->count + 1, sizeof(int16_t));
    in_len = (spx_uint32_t)in->count;
    out_len = (spx_uint32_t)out->count;
    if (out->data) err = speex_resampler_process_int(rs, 0, in->data, &in_len, out->data, &out_len);
    speex_resampler_destroy(rs);
    out->count = out_len;
    return out->data == NULL || err != RESAMPLER_ERR_SUCCESS;
}

static double cpu_ms(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 + ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
}

static void usage(void) {
    fprintf(stderr, "usage: speex_aec [-r 48000|16000] [-t TAIL_MS] [-w WARMUP_S] [-c FAR_CHANNELS] FAR.s16 CAPTURE.s16\n");
}

int main(int argc, char **argv) {
    int rate = 48000, tail_ms = 250, far_channels = 2, opt, denoise = 1, agc = 0;
    double warmup = 3, in_energy = 0, out_energy = 0, used;
    samples far_raw, far48, far, capture48, capture;
    size_t i, frame, frames, start;
    SpeexEchoState *echo;
    SpeexPreprocessState *pre;
    int16_t *out;

    while ((opt = getopt(argc, argv, "r:t:w:c:")) != -1) {
        switch (opt) {
        case 'r': rate = atoi(optarg); break;
        case 't': tail_ms = atoi(optarg); break;
        case 'w': warmup = atof(optarg); break;
        case 'c': far_channels = atoi(optarg); break;
        default: usage(); return 2;
        }
    }
    if (argc - optind != 2 || (rate != 48000 && rate != 16000) || tail_ms < 10 || warmup < 0 ||
        (far_channels != 1 && far_channels != 2)) {
        usage();
        return 2;
    }
    if (read_s16(argv[optind], &far_raw) || read_s16(argv[optind + 1], &capture48)) {
        fprintf(stderr, "speex_aec: cannot read the input files\n");
        return 1;
    }
    /* The far end to mono. */
    far48.count = far_raw.count / (size_t)far_channels;
    far48.data = malloc((far48.count + 1) * sizeof(int16_t));
    if (!far48.data) return 1;
    for (i = 0; i < far48.count; i++)
        far48.data[i] = far_channels == 1 ? far_raw.data[i]
                                          : (int16_t)(((int32_t)far_raw.data[2 * i] + far_raw.data[2 * i + 1]) / 2);
    if (rate == INPUT_RATE) {
        far = far48;
        capture = capture48;
    } else if (resample(&far48, rate, &far) || resample(&capture48, rate, &capture)) {
        fprintf(stderr, "speex_aec: resampling failed\n");
        return 1;
    }

    frame = (size_t)rate / 100;
    frames = (far.count < capture.count ? far.count : capture.count) / frame;
    start = (size_t)(warmup * 100);
    if (frames <= start) {
        fprintf(stderr, "speex_aec: the inputs are not longer than the warm-up\n");
        return 1;
    }
    echo = speex_echo_state_init((int)frame, rate * tail_ms / 1000);
    pre = speex_preprocess_state_init((int)frame, rate);
    out = malloc(frame * sizeof(int16_t));
    if (!echo || !pre || !out) return 1;
    speex_echo_ctl(echo, SPEEX_ECHO_SET_SAMPLING_RATE, &rate);
    speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_ECHO_STATE, echo);
    speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_DENOISE, &denoise);
    speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_AGC, &agc);

    used = cpu_ms();
    for (i = 0; i < frames; i++) {
        const int16_t *rec = capture.data + i * frame;
        size_t k;
        speex_echo_cancellation(echo, rec, far.data + i * frame, out);
        speex_preprocess_run(pre, out);
        if (i < start) continue;
        for (k = 0; k < frame; k++) {
            in_energy += (double)rec[k] * rec[k];
            out_energy += (double)out[k] * out[k];
        }
    }
    used = cpu_ms() - used;
    fprintf(stderr, "speex_aec: %d Hz, tail %d ms, %.1f s of audio, %.2f ms CPU per s\n", rate, tail_ms,
            (double)frames / 100, used / ((double)frames / 100));
    speex_preprocess_state_destroy(pre);
    speex_echo_state_destroy(echo);
    printf("{\"speexdsp_aec_erle_db\": %.2f}\n", 10 * log10((in_energy + 1) / (out_energy + 1)));
    return 0;
}
