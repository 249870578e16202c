/*
 * cipher_bare.c — OpenSSL's AES-128-GCM alone, per packet, beside the
 * built-in media encryption (agoraish-bench encryption, MediaCipher): what
 * the cipher costs without the wrapper around it.
 *
 * Each packet is one EVP encryption of the payload into a buffer allocated
 * once: IV (12 bytes: 4 fixed, then a counter), EVP_EncryptUpdate,
 * EVP_EncryptFinal_ex, the 16-byte tag read back. Two ways of setting up each
 * packet:
 *   - "iv": the key is set once, each packet sets only its IV (the cheapest
 *     correct use of EVP for GCM);
 *   - "rekey": each packet resets the context and sets key and IV again
 *     (EVP_CIPHER_CTX_reset + EVP_CipherInit_ex2 with the key), as
 *     MediaCipher does: the key schedule runs for every packet.
 * Both run on a 1000-byte (video-sized) and a 100-byte (audio-sized)
 * payload, interleaved round by round like agoraish-bench; each figure is the
 * median over ROUNDS rounds of PACKETS packets of the mean ns per packet.
 *
 *   cipher_bare PACKETS ROUNDS
 *     -> {"openssl": "...", "cases": [{"name": "...", "bytes": n, "rekey": 0|1,
 *         "median_ns": x, "min_ns": x, "max_ns": x}, ...]}
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "bench_support.h"

typedef struct bare_case {
    const char *name;
    int bytes;
    int rekey;
    double *samples;
} bare_case;

static const unsigned char key[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                      0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Encrypts `packets` packets of `bytes` bytes; returns a checksum of the tags (0 after an EVP failure is fine, -1 is not). */
static long run_case(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *cipher, const bare_case *c, const unsigned char *payload,
                     unsigned char *out, int packets, uint64_t *counter) {
    unsigned char iv[12] = {0xA1, 0xB2, 0xC3, 0xD4};
    unsigned char tag[16];
    long sum = 0;
    int i, j, n, m;
    if (!c->rekey && EVP_EncryptInit_ex2(ctx, cipher, key, NULL, NULL) != 1) return -1;
    for (i = 0; i < packets; i++) {
        uint64_t nonce = ++*counter;
        for (j = 0; j < 8; j++) iv[4 + j] = (unsigned char)(nonce >> (56 - 8 * j));
        if (c->rekey) {
            if (EVP_CIPHER_CTX_reset(ctx) != 1 || EVP_CipherInit_ex2(ctx, cipher, key, iv, 1, NULL) != 1) return -1;
        } else if (EVP_EncryptInit_ex2(ctx, NULL, NULL, iv, NULL) != 1) {
            return -1;
        }
        if (EVP_EncryptUpdate(ctx, out, &n, payload, c->bytes) != 1 || EVP_EncryptFinal_ex(ctx, out + n, &m) != 1 ||
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag) != 1) {
            return -1;
        }
        sum += tag[0] + n + m;
    }
    return sum;
}

int main(int argc, char **argv) {
    bare_case cases[] = {
        {"aes_128_gcm", 1000, 0, NULL},
        {"aes_128_gcm", 1000, 1, NULL},
        {"aes_128_gcm", 100, 0, NULL},
        {"aes_128_gcm", 100, 1, NULL},
    };
    const int count = (int)(sizeof cases / sizeof cases[0]);
    unsigned char payload[1000], out[1000 + 32];
    uint64_t counter = 0x0123456789ull;
    long sink = 0;
    EVP_CIPHER_CTX *ctx;
    EVP_CIPHER *cipher;
    int packets, rounds, round, i;

    if (argc != 3 || (packets = atoi(argv[1])) <= 0 || (rounds = atoi(argv[2])) <= 0) {
        fprintf(stderr, "usage: cipher_bare PACKETS ROUNDS\n");
        return 2;
    }
    for (i = 0; i < (int)sizeof payload; i++) payload[i] = (unsigned char)(i * 131 + 7);
    if (!(cipher = EVP_CIPHER_fetch(NULL, "AES-128-GCM", NULL)) || !(ctx = EVP_CIPHER_CTX_new())) {
        fprintf(stderr, "OpenSSL has no AES-128-GCM\n");
        return 1;
    }
    for (i = 0; i < count; i++) {
        if (!(cases[i].samples = calloc((size_t)rounds, sizeof(double)))) return 1;
    }
    /* Round 0 warms up and is not kept. */
    for (round = 0; round <= rounds; round++) {
        for (i = 0; i < count; i++) {
            double start = now_ns();
            long sum = run_case(ctx, cipher, &cases[i], payload, out, packets, &counter);
            double elapsed = now_ns() - start;
            if (sum < 0) {
                fprintf(stderr, "EVP failed (%s, %d bytes)\n", cases[i].rekey ? "rekey" : "iv", cases[i].bytes);
                return 1;
            }
            sink += sum;
            if (round > 0) cases[i].samples[round - 1] = elapsed / packets;
        }
    }
    printf("{\"openssl\": \"%s\", \"checksum\": %ld, \"packets\": %d, \"rounds\": %d, \"cases\": [\n",
           OpenSSL_version(OPENSSL_VERSION), sink, packets, rounds);
    for (i = 0; i < count; i++) {
        sort_samples(cases[i].samples, rounds);
        printf("  {\"name\": \"%s\", \"bytes\": %d, \"rekey\": %d, \"median_ns\": %.1f, \"min_ns\": %.1f, "
               "\"max_ns\": %.1f}%s\n",
               cases[i].name, cases[i].bytes, cases[i].rekey, quantile(cases[i].samples, rounds, 0.5),
               cases[i].samples[0], cases[i].samples[rounds - 1], i + 1 < count ? "," : "");
        free(cases[i].samples);
    }
    printf("]}\n");
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(cipher);
    return 0;
}
