/*
 * stream_encryption.c — Agora's StreamEncryption case in C: media and data
 * encrypted end to end, with the built-in cipher and with the host's own
 * packet observer.
 *
 *   enable_encryption(1, {AES_128_GCM2, key, 32-byte KDF salt})   (before joining; the
 *                                             same mode, key and salt for every user)
 *   -> register_packet_observer(observer)     (the host's own transform of each payload)
 *   -> join_channel -> audio, video and data flow encrypted; the server forwards
 *      what it cannot read
 *   -> on_encryption_error(type) when a payload cannot be decrypted (another key ...)
 *   -> leave_channel -> register_packet_observer(NULL) -> release
 *
 * Both users enable AES-128-GCM2 with the same key and salt (a real app
 * gets them from its own server, the salt from 32 random bytes). Both also
 * register a packet observer, the way Agora's case shows custom encryption:
 * it XORs each audio payload with a key byte on the way out and again on the
 * way in. On the way out the observer runs first and the cipher encrypts
 * what it made; on the way in the cipher decrypts first and the observer
 * undoes its XOR. "local" pushes two seconds of a 440 Hz tone through an
 * external source; "remote", a second engine in the same process, pulls
 * what it hears through an external sink. Each sends the other a message on
 * a data stream (data payloads are encrypted too). The example checks that
 * remote heard the tone, that both messages crossed, that both observers saw
 * the audio, and that no encryption error was reported.
 *
 *   make hosts && build/examples/stream_encryption
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"
#include "example_support.h"

#define CHANNEL "stream-encryption"
#define KEY "3f8a61c2d95e4b07a1c6e2f0b8d4973a"
#define XOR_KEY 0x55
#define RATE 48000
#define FRAME (RATE / 100) /* 10 ms */
#define TONE_HZ 440.0
#define PUSH_MS 2000
#define LISTEN_MS (PUSH_MS + 600)
#define PI 3.14159265358979323846

/* ---- one user's events ---------------------------------------------------------- */

typedef struct {
    example_user base; /* first, so the handler's user_data is both */
    /* Guarded by base.mutex. */
    int encryption_errors;
    char message[64];
    /* The packet observer's counts and buffers (a callback's payload may point at
     * the host's memory until it returns; sending and receiving run on different
     * threads, so each has its own). */
    int sent_audio, received_audio;
    uint8_t send_buffer[2048], receive_buffer[2048];
} user_t;

static void on_first_remote_audio_decoded(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_first_remote_audio_decoded uid %u, %d ms", uid, elapsed);
}

/* A payload could not be encrypted or decrypted (at most once a second per type). */
static void on_encryption_error(agoraish_engine_t *e, void *ud, int error_type) {
    static const char *const names[] = {"INTERNAL_FAILURE", "DECRYPTION_FAILURE", "ENCRYPTION_FAILURE",
                                        "DATASTREAM_DECRYPTION_FAILURE", "DATASTREAM_ENCRYPTION_FAILURE"};
    user_t *u = ud;
    (void)e;
    say(u->base.name, "on_encryption_error %s", error_type >= 0 && error_type < 5 ? names[error_type] : "?");
    example_lock(&u->base);
    u->encryption_errors++;
    example_unlock(&u->base);
}

static void on_stream_message(agoraish_engine_t *e, void *ud, uint32_t uid, int stream_id, const uint8_t *data,
                              size_t length, uint64_t sent_ts) {
    user_t *u = ud;
    const int shown = length < 63 ? (int)length : 63;
    (void)e;
    (void)sent_ts;
    say(u->base.name, "on_stream_message uid %u, stream %d: \"%.*s\"", uid, stream_id, shown, (const char *)data);
    example_lock(&u->base);
    memcpy(u->message, data, (size_t)shown);
    u->message[shown] = '\0';
    example_changed(&u->base);
}

static agoraish_engine_t *create_user(user_t *u, const char *name, const char *server_url) {
    agoraish_event_handler handler;

    memset(u, 0, sizeof *u);
    example_user_init(&u->base, name);
    example_handler(&handler, &u->base);
    handler.on_first_remote_audio_decoded = on_first_remote_audio_decoded;
    handler.on_encryption_error = on_encryption_error;
    handler.on_stream_message = on_stream_message;
    return example_create_engine(&u->base, &handler, server_url);
}

static int has_message(const example_user *b) { return ((const user_t *)b)->message[0] != '\0'; }

/* ---- the packet observer: XOR of each audio payload ------------------------------ */

/* Copies the payload into `buffer` with every byte XORed, and points the packet at it. */
static void xor_into(agoraish_packet *packet, uint8_t *buffer, size_t capacity) {
    if (packet->size > capacity) packet->size = (uint32_t)capacity;
    for (uint32_t i = 0; i < packet->size; i++) buffer[i] = packet->buffer[i] ^ XOR_KEY;
    packet->buffer = buffer;
}

/* Sending (the thread that encodes audio): before the built-in cipher. Nonzero: send it. */
static int on_send_audio_packet(agoraish_engine_t *e, void *ud, agoraish_packet *packet) {
    user_t *u = ud;
    (void)e;
    xor_into(packet, u->send_buffer, sizeof u->send_buffer);
    example_lock(&u->base);
    u->sent_audio++;
    example_unlock(&u->base);
    return 1;
}

/* Receiving (the engine's network thread): after the built-in cipher. Nonzero: keep it. */
static int on_receive_audio_packet(agoraish_engine_t *e, void *ud, agoraish_packet *packet) {
    user_t *u = ud;
    (void)e;
    xor_into(packet, u->receive_buffer, sizeof u->receive_buffer);
    example_lock(&u->base);
    u->received_audio++;
    example_unlock(&u->base);
    return 1;
}

/* The built-in encryption and the packet observer, before joining. */
static int protect(agoraish_engine_t *engine, user_t *u) {
    agoraish_encryption_config config;
    agoraish_packet_observer observer;
    int rc;

    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.encryption_mode = AGORAISH_ENCRYPTION_MODE_AES_128_GCM2;
    config.encryption_key = KEY;
    for (int i = 0; i < 32; i++) config.encryption_kdf_salt[i] = (uint8_t)(0xA5 ^ (i * 29)); /* not all zero */
    rc = agoraish_engine_enable_encryption(engine, 1, &config);
    say(u->base.name, "enable_encryption(AES_128_GCM2, key of %zu bytes, 32-byte salt) = %d", strlen(KEY), rc);
    if (rc != 0) return rc;

    memset(&observer, 0, sizeof observer);
    observer.struct_size = sizeof observer;
    observer.user_data = u;
    observer.on_send_audio_packet = on_send_audio_packet;
    observer.on_receive_audio_packet = on_receive_audio_packet;
    rc = agoraish_engine_register_packet_observer(engine, &observer);
    say(u->base.name, "register_packet_observer(XOR 0x%02X on audio) = %d", XOR_KEY, rc);
    return rc;
}

/* ---- the tone and what remote heard ------------------------------------------------- */

static int send_message(agoraish_engine_t *engine, user_t *u, const char *text) {
    int stream = 0, rc = agoraish_engine_create_data_stream(engine, &stream, 1, 1);
    if (rc == 0) rc = agoraish_engine_send_stream_message(engine, stream, text, strlen(text));
    say(u->base.name, "create_data_stream, send_stream_message(%d, \"%s\") = %d", stream, text, rc);
    return rc;
}

int main(void) {
    agoraish_server_t *server = NULL;
    agoraish_engine_t *local_engine = NULL, *remote_engine = NULL;
    user_t *local = calloc(1, sizeof *local), *remote = calloc(1, sizeof *remote);
    int16_t tone[FRAME], *heard = calloc((size_t)LISTEN_MS / 10 * FRAME, sizeof *heard);
    struct timespec start;
    char url[128];
    size_t onset = 0, total = (size_t)LISTEN_MS / 10 * FRAME;
    int ok = 0;
    double hz = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!local || !remote || !heard) goto done;

    if (!(server = example_start_server(url, sizeof url))) goto done;
    local_engine = create_user(local, "local", url);
    remote_engine = create_user(remote, "remote", url);
    if (!local_engine || !remote_engine) goto done;
    if (protect(local_engine, local) != 0 || protect(remote_engine, remote) != 0) goto done;

    /* local sends a pushed tone and hears nothing; remote pulls what it hears and sends no audio. */
    agoraish_engine_set_external_audio_source(local_engine, 1, RATE, 1);
    agoraish_engine_set_playback_device(local_engine, "null");
    agoraish_engine_set_external_audio_sink(remote_engine, 1, RATE, 1);
    agoraish_engine_enable_local_audio(remote_engine, 0);

    if (example_meet(CHANNEL, local_engine, &local->base, 0, remote_engine, &remote->base, 0) != 0) goto done;

    /* A message each way, encrypted like the audio. */
    if (send_message(local_engine, local, "hello from local") != 0 ||
        send_message(remote_engine, remote, "hello from remote") != 0) {
        goto done;
    }

    /* 10 ms of the tone pushed, 10 ms pulled, every 10 ms. */
    say("local", "pushing %d ms of %.0f Hz", PUSH_MS, TONE_HZ);
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int k = 0; k < LISTEN_MS / 10; k++) {
        if (k < PUSH_MS / 10) {
            for (int i = 0; i < FRAME; i++) tone[i] = (int16_t)(8000 * sin(2 * PI * TONE_HZ * (k * FRAME + i) / RATE));
            agoraish_engine_push_external_audio_frame(local_engine, tone, FRAME);
        }
        agoraish_engine_pull_playback_audio_frame(remote_engine, heard + (size_t)k * FRAME, FRAME);
        sleep_until(&start, (long)(k + 1) * 10);
    }
    if (!example_wait(&remote->base, has_message, "message") || !example_wait(&local->base, has_message, "message")) {
        goto done;
    }

    if (!example_part(local_engine, &local->base, remote_engine, &remote->base)) goto done;
    agoraish_engine_register_packet_observer(local_engine, NULL);
    agoraish_engine_register_packet_observer(remote_engine, NULL);

    /* What remote heard: one second from 150 ms after the sound began. */
    while (onset < total && abs(heard[onset]) < 500) onset++;
    if (onset + RATE * 115 / 100 <= total) {
        hz = example_analyze_tone(heard + onset + RATE * 15 / 100, RATE, RATE).hz;
    }
    say("remote", "heard %.0f Hz (local pushed %.0f Hz)", hz, TONE_HZ);

    example_lock(&local->base);
    example_lock(&remote->base);
    say("local", "observer: %d audio payloads XORed before encryption; message \"%s\"; %d encryption errors",
        local->sent_audio, local->message, local->encryption_errors);
    say("remote", "observer: %d audio payloads XORed back after decryption; message \"%s\"; %d encryption errors",
        remote->received_audio, remote->message, remote->encryption_errors);
    ok = fabs(hz - TONE_HZ) < 10 && local->sent_audio >= PUSH_MS / 20 / 2 &&
         remote->received_audio >= PUSH_MS / 20 / 2 && strcmp(local->message, "hello from remote") == 0 &&
         strcmp(remote->message, "hello from local") == 0 && local->encryption_errors == 0 &&
         remote->encryption_errors == 0;
    example_unlock(&remote->base);
    example_unlock(&local->base);

done:
    if (local_engine) agoraish_engine_release(local_engine, 1);
    if (remote_engine) agoraish_engine_release(remote_engine, 1);
    agoraish_server_release(server);
    if (local) example_user_destroy(&local->base);
    if (remote) example_user_destroy(&remote->base);
    free(local);
    free(remote);
    free(heard);
    return example_finish(ok, "done: the tone and a message each way crossed encrypted, through both packet observers");
}
