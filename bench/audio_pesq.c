/*
 * audio_pesq.c — speech through two engines over a lossy media path, for
 * wide-band PESQ (bench/benchmarks/audio_pesq.py scores the output).
 *
 * Engine mode: an embedded server whose advertised media address is a relay
 * in this process (audio_support.h): the relay drops RTP datagrams the
 * engines send and forwards STUN and RTCP untouched; SRTP stays end to end
 * between engine and server. The loss is random, each datagram with
 * probability LOSS_PERCENT/100, or with --burst BAD_TO_GOOD_PERCENT bursty
 * (a Gilbert-Elliott chain whose long-run loss is LOSS_PERCENT and whose
 * bursts last 100/BAD_TO_GOOD_PERCENT datagrams on average). The draws
 * come from SEED per sending engine and per datagram, so the same SEED
 * drops the same packets of the sender in every run. (The loss is made on
 * the media path rather than with the engine's rtc.network_simulation so
 * that the relay can count what it dropped.) The sender pushes IN (16 kHz
 * mono S16LE; the engine's source converts to 48 kHz) 10 ms every 10 ms
 * after 0.5 s of silence and before 0.5 s of silence; the receiver pulls
 * 10 ms every 10 ms at 16 kHz (the engine's sink converts) and everything it
 * pulled goes to OUT. With --no-recovery both engines get
 * {"rtc.audio_loss_recovery": false} before they join: no in-band FEC from
 * the sender, no FEC and no PLC at the receiver (gaps play as silence).
 *
 *   audio_pesq PATH LOG_DIR IN OUT LOSS_PERCENT SEED [--burst BAD_TO_GOOD_PERCENT] [--no-recovery]
 *     -> {"rtp_forwarded": n, "rtp_dropped": n, "bursts": n, "longest_burst": n, "fec_recovered": n,
 *         "concealed": n, ...}
 *
 * (fec_recovered and concealed are the receiver's counters as of its last
 * on_remote_audio_stats, which comes every 2 s: they may miss the last
 * seconds.)
 *
 * Codec mode: the same speech through bare libopus with the engine's default
 * settings (VOIP, 18 kbps, in-band FEC for 10 % loss, complexity 9, 20 ms),
 * at 16 kHz, dropping each packet with the same probability, and decoded the
 * way the engine's jitter buffer decodes: a packet that is there is decoded;
 * a missing one is rebuilt from the next packet's in-band FEC when that one
 * is there; otherwise it is concealed (PLC): the codec alone with a perfect
 * transport, as a reference for the engine's figures.
 *
 *   audio_pesq --codec IN OUT LOSS_PERCENT SEED
 *     -> {"packets": n, "dropped": n, "fec_recovered": n, "concealed": n}
 */
#define _POSIX_C_SOURCE 200809L

#include <opus/opus.h>

#include "audio_support.h"

#define RATE 16000
#define FRAME 160               /* 10 ms at 16 kHz */
#define OPUS_FRAME 320          /* 20 ms at 16 kHz */
#define PAD_MS 500
#define TAIL_MS 700

static int16_t *read_raw(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    long size;
    int16_t *s;
    if (!f) { perror(path); return NULL; }
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    s = malloc((size_t)size + 2);
    if (!s || fread(s, 1, (size_t)size, f) != (size_t)size) { fclose(f); free(s); return NULL; }
    fclose(f);
    *n = (size_t)size / 2;
    return s;
}

static int write_raw(const char *path, const int16_t *s, size_t n) {
    FILE *f = fopen(path, "wb");
    int ok;
    if (!f) { perror(path); return 1; }
    ok = fwrite(s, sizeof *s, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : 1;
}

/* ---- codec mode ---- */

static int run_codec(const char *in, const char *out, double loss, uint64_t seed) {
    size_t n, frames, f;
    int16_t *x = read_raw(in, &n), *y;
    unsigned char *packets;
    int *sizes, err, dropped = 0, fec = 0, concealed = 0;
    char *lost;
    OpusEncoder *encoder;
    OpusDecoder *decoder;
    if (!x) return 1;
    frames = (n + OPUS_FRAME - 1) / OPUS_FRAME;
    x = realloc(x, frames * OPUS_FRAME * sizeof *x);
    y = calloc(frames * OPUS_FRAME, sizeof *y);
    packets = malloc(frames * 1500);
    sizes = calloc(frames, sizeof *sizes);
    lost = calloc(frames, 1);
    if (!x || !y || !packets || !sizes || !lost) return 1;
    memset(x + n, 0, (frames * OPUS_FRAME - n) * sizeof *x);
    encoder = opus_encoder_create(RATE, 1, OPUS_APPLICATION_VOIP, &err);
    decoder = opus_decoder_create(RATE, 1, &err);
    if (!encoder || !decoder) return 1;
    opus_encoder_ctl(encoder, OPUS_SET_BITRATE(18000));
    opus_encoder_ctl(encoder, OPUS_SET_MAX_BANDWIDTH(OPUS_BANDWIDTH_SUPERWIDEBAND));
    opus_encoder_ctl(encoder, OPUS_SET_INBAND_FEC(1));
    opus_encoder_ctl(encoder, OPUS_SET_PACKET_LOSS_PERC(10));
    opus_encoder_ctl(encoder, OPUS_SET_DTX(0));
    opus_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(9));
    for (f = 0; f < frames; f++) {
        sizes[f] = opus_encode(encoder, x + f * OPUS_FRAME, OPUS_FRAME, packets + f * 1500, 1500);
        if (sizes[f] < 0) return 1;
        if (loss > 0 && next_uniform(&seed) < loss) { lost[f] = 1; dropped++; }
    }
    for (f = 0; f < frames; f++) {
        int16_t *o = y + f * OPUS_FRAME;
        int got;
        if (!lost[f]) {
            got = opus_decode(decoder, packets + f * 1500, sizes[f], o, OPUS_FRAME, 0);
        } else if (f + 1 < frames && !lost[f + 1]) {
            got = opus_decode(decoder, packets + (f + 1) * 1500, sizes[f + 1], o, OPUS_FRAME, 1);
            fec++;
        } else {
            got = opus_decode(decoder, NULL, 0, o, OPUS_FRAME, 0);
            concealed++;
        }
        if (got != OPUS_FRAME) return 1;
    }
    if (write_raw(out, y, frames * OPUS_FRAME) != 0) return 1;
    printf("{\"packets\": %zu, \"dropped\": %d, \"fec_recovered\": %d, \"concealed\": %d}\n",
           frames, dropped, fec, concealed);
    opus_encoder_destroy(encoder);
    opus_decoder_destroy(decoder);
    return 0;
}

/* ---- engine mode ---- */

typedef struct run_ctx {
    agoraish_engine_t *tx_engine, *rx_engine;
    const int16_t *tx;
    size_t tx_frames;
    int16_t *rx;
    size_t rx_frames, rx_cap;
    double t0;
    volatile int push_done;
    int push_errors, pull_errors;
} run_ctx;

static void *push_thread(void *arg) {
    run_ctx *x = arg;
    size_t f;
    for (f = 0; f < x->tx_frames; f++) {
        sleep_until_ms(x->t0 + (double)f * 10);
        if (api.push_external_audio_frame(x->tx_engine, x->tx + f * FRAME, FRAME) < 0) x->push_errors++;
    }
    x->push_done = 1;
    return NULL;
}

static void *pull_thread(void *arg) {
    run_ctx *x = arg;
    double end = 0;
    size_t k;
    for (k = 0; k < x->rx_cap; k++) {
        double at;
        sleep_until_ms(x->t0 + 5 + (double)k * 10);
        if (api.pull_playback_audio_frame(x->rx_engine, x->rx + k * FRAME, FRAME) != 0) x->pull_errors++;
        x->rx_frames = k + 1;
        at = now_ms();
        if (x->push_done && end == 0) end = at + TAIL_MS;
        if (end != 0 && at >= end) break;
    }
    return NULL;
}

static int run_engines(const char *lib, const char *log_dir, const char *in, const char *out, double loss,
                       uint64_t seed, double bad_to_good, int recovery) {
    char url[128], json[256], log_a[4096], log_b[4096], tag[64];
    agoraish_server_t *server;
    relay r;
    peer a, b;
    run_ctx x;
    pthread_t tp, tr;
    size_t n, pad = (size_t)PAD_MS * RATE / 1000, total;
    int16_t *clip, *tx;
    int rc = 0, attempt;
    if (load_audio_api(lib) != 0 || !(clip = read_raw(in, &n))) return 1;
    total = (pad + n + pad + FRAME - 1) / FRAME * FRAME;
    if (!(tx = calloc(total, sizeof *tx))) return 1;
    memcpy(tx + pad, clip, n * sizeof *clip);

    if (bad_to_good > 0 && (loss <= 0 || loss >= 1)) {
        fprintf(stderr, "--burst needs a loss between 0 and 100 %%\n");
        return 1;
    }
    /* The server's media port is the relay's port number on 127.0.0.1, which another socket may hold (other
     * runs at the same time): then the server cannot start, and the relay tries another port. */
    for (attempt = 0;; attempt++) {
        if (relay_open(&r, loss, seed) != 0) return 1;
        if (bad_to_good > 0) relay_set_burst(&r, bad_to_good * loss / (1 - loss), bad_to_good);
        snprintf(json, sizeof json, "{\"listen\": {\"media_port\": %u, \"media_host\": \"127.0.0.2\"}}",
                 (unsigned)r.port);
        if ((server = start_embedded_server(json, url, sizeof url)) != NULL) break;
        close(r.listen_fd);
        if (attempt == 4) return 1;
    }
    if (relay_start(&r) != 0) return 1;
    snprintf(tag, sizeof tag, "%s%g%s", bad_to_good > 0 ? "burst" : "loss", loss * 100, recovery ? "" : "_off");
    snprintf(log_a, sizeof log_a, "%s/audio_pesq_%s_sender.log", log_dir, tag);
    snprintf(log_b, sizeof log_b, "%s/audio_pesq_%s_receiver.log", log_dir, tag);
    if (!peer_create(&a, url, log_a, RATE) || !peer_create(&b, url, log_b, RATE)) return 1;
    if (!recovery && (api.set_parameters(a.engine, "{\"rtc.audio_loss_recovery\": false}") != 0 ||
                      api.set_parameters(b.engine, "{\"rtc.audio_loss_recovery\": false}") != 0)) {
        fprintf(stderr, "set_parameters rtc.audio_loss_recovery failed\n");
        return 1;
    }
    if (peer_join(&a, "bench-audio-pesq", 4001) || peer_join(&b, "bench-audio-pesq", 4002) ||
        !peer_wait(&b, &b.remote_joined)) {
        fprintf(stderr, "the engines did not meet in the channel\n");
        rc = 1;
    } else {
        memset(&x, 0, sizeof x);
        x.tx_engine = a.engine;
        x.rx_engine = b.engine;
        x.tx = tx;
        x.tx_frames = total / FRAME;
        x.rx_cap = x.tx_frames + TAIL_MS / 10 + 100;
        x.rx = calloc(x.rx_cap * FRAME, sizeof *x.rx);
        if (!x.rx) return 1;
        x.t0 = now_ms() + 20;
        pthread_create(&tp, NULL, push_thread, &x);
        pthread_create(&tr, NULL, pull_thread, &x);
        pthread_join(tp, NULL);
        pthread_join(tr, NULL);
        if (x.push_errors || x.pull_errors) {
            fprintf(stderr, "%d pushes and %d pulls failed\n", x.push_errors, x.pull_errors);
            rc = 1;
        } else if (write_raw(out, x.rx, x.rx_frames * FRAME) != 0) {
            rc = 1;
        }
        free(x.rx);
    }
    api.engine_release(a.engine, 1);
    api.engine_release(b.engine, 1);
    relay_stop(&r);
    api.server_release(server);
    if (rc == 0) {
        printf("{\"rtp_forwarded\": %lu, \"rtp_dropped\": %lu, \"bursts\": %lu, \"longest_burst\": %lu, "
               "\"other_forwarded\": %lu, \"stats_seen\": %d, \"fec_recovered\": %d, \"concealed\": %d, "
               "\"jitter_buffer_delay\": %d, \"end_to_end_delay\": %d}\n",
               r.rtp_forwarded, r.rtp_dropped, r.bursts, r.longest_burst, r.other_forwarded, b.stats_count,
               b.remote_stats.fec_recovered_frames,
               b.remote_stats.concealed_frames, b.remote_stats.jitter_buffer_delay, b.remote_stats.end_to_end_delay);
    }
    free(clip);
    free(tx);
    return rc;
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    if (argc == 6 && strcmp(argv[1], "--codec") == 0) {
        return run_codec(argv[2], argv[3], atof(argv[4]) / 100, strtoull(argv[5], NULL, 10));
    }
    if (argc >= 7 && argv[1][0] != '-') {
        double bad_to_good = 0;
        int recovery = 1, i, ok = 1;
        for (i = 7; i < argc && ok; i++) {
            if (strcmp(argv[i], "--burst") == 0 && i + 1 < argc) {
                bad_to_good = atof(argv[++i]) / 100;
                ok = bad_to_good > 0 && bad_to_good <= 1;
            } else if (strcmp(argv[i], "--no-recovery") == 0) {
                recovery = 0;
            } else {
                ok = 0;
            }
        }
        if (ok) {
            return run_engines(argv[1], argv[2], argv[3], argv[4], atof(argv[5]) / 100, strtoull(argv[6], NULL, 10),
                               bad_to_good, recovery);
        }
    }
    fprintf(stderr, "usage: audio_pesq PATH LOG_DIR IN OUT LOSS_PERCENT SEED [--burst BAD_TO_GOOD_PERCENT] "
                    "[--no-recovery]\n"
                    "       audio_pesq --codec IN OUT LOSS_PERCENT SEED\n");
    return 2;
}
