#pragma once
#include <srtp2/srtp.h>
#include <srtp2/cipher.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

/*
 * AES-GCM for libsrtp2 through OpenSSL's EVP interface.
 *
 * Debian builds libsrtp2 against NSS, whose GCM sets up a PKCS #11 context
 * (allocations and locks) for every packet. libsrtp2's documented extension
 * point, srtp_replace_cipher_type(), takes another implementation of a
 * cipher type, checked against the built-in one's test vectors; this one
 * keeps one EVP context per cipher and only sets the IV per packet, as
 * libsrtp2's own OpenSSL build does.
 */

enum { AGSH_GCM_TAG_16 = 16, AGSH_GCM_TAG_8 = 8 };

typedef struct agsh_gcm_state {
    int key_size;
    int tag_len;
    EVP_CIPHER_CTX *ctx;
    srtp_cipher_direction_t dir;
} agsh_gcm_state;

/* Exported by libsrtp2, declared in its private headers. */
extern const srtp_cipher_type_t srtp_aes_gcm_128;
srtp_err_status_t srtp_crypto_kernel_alloc_cipher(srtp_cipher_type_id_t id, srtp_cipher_pointer_t *cp, int key_len,
                                                  int tag_len);
extern const srtp_cipher_type_t srtp_aes_gcm_256;

/* The two cipher types (0: AES-128-GCM, 1: AES-256-GCM), filled in by agsh_srtp_use_openssl_gcm(). */
static inline srtp_cipher_type_t *agsh_gcm_type(int which) {
    static srtp_cipher_type_t types[2];
    return &types[which];
}

static inline srtp_err_status_t agsh_gcm_alloc(srtp_cipher_t **c, int key_len, int tlen) {
    if (c == NULL) return srtp_err_status_bad_param;
    *c = NULL;
    if (key_len != SRTP_AES_GCM_128_KEY_LEN_WSALT && key_len != SRTP_AES_GCM_256_KEY_LEN_WSALT)
        return srtp_err_status_bad_param;
    if (tlen != AGSH_GCM_TAG_16 && tlen != AGSH_GCM_TAG_8) return srtp_err_status_bad_param;
    srtp_cipher_t *cipher = calloc(1, sizeof *cipher);
    agsh_gcm_state *gcm = calloc(1, sizeof *gcm);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (cipher == NULL || gcm == NULL || ctx == NULL) {
        free(cipher);
        free(gcm);
        EVP_CIPHER_CTX_free(ctx);
        return srtp_err_status_alloc_fail;
    }
    gcm->ctx = ctx;
    gcm->tag_len = tlen;
    gcm->dir = srtp_direction_any;
    if (key_len == SRTP_AES_GCM_128_KEY_LEN_WSALT) {
        cipher->type = agsh_gcm_type(0);
        cipher->algorithm = SRTP_AES_GCM_128;
        gcm->key_size = SRTP_AES_128_KEY_LEN;
    } else {
        cipher->type = agsh_gcm_type(1);
        cipher->algorithm = SRTP_AES_GCM_256;
        gcm->key_size = SRTP_AES_256_KEY_LEN;
    }
    cipher->state = gcm;
    cipher->key_len = key_len;
    *c = cipher;
    return srtp_err_status_ok;
}

static inline srtp_err_status_t agsh_gcm_dealloc(srtp_cipher_t *c) {
    if (c == NULL) return srtp_err_status_bad_param;
    agsh_gcm_state *gcm = (agsh_gcm_state *)c->state;
    if (gcm != NULL) {
        EVP_CIPHER_CTX_free(gcm->ctx);
        memset(gcm, 0, sizeof *gcm);
        free(gcm);
    }
    free(c);
    return srtp_err_status_ok;
}

static inline srtp_err_status_t agsh_gcm_init(void *state, const uint8_t *key) {
    agsh_gcm_state *gcm = (agsh_gcm_state *)state;
    gcm->dir = srtp_direction_any;
    const EVP_CIPHER *evp = gcm->key_size == SRTP_AES_256_KEY_LEN ? EVP_aes_256_gcm() : EVP_aes_128_gcm();
    EVP_CIPHER_CTX_reset(gcm->ctx);
    if (!EVP_CipherInit_ex(gcm->ctx, evp, NULL, key, NULL, 0)) return srtp_err_status_init_fail;
    return srtp_err_status_ok;
}

static inline srtp_err_status_t agsh_gcm_set_iv(void *state, uint8_t *iv, srtp_cipher_direction_t direction) {
    agsh_gcm_state *gcm = (agsh_gcm_state *)state;
    if (direction != srtp_direction_encrypt && direction != srtp_direction_decrypt) return srtp_err_status_bad_param;
    gcm->dir = direction;
    if (!EVP_CipherInit_ex(gcm->ctx, NULL, NULL, NULL, NULL, direction == srtp_direction_encrypt ? 1 : 0))
        return srtp_err_status_init_fail;
    if (!EVP_CIPHER_CTX_ctrl(gcm->ctx, EVP_CTRL_GCM_SET_IV_FIXED, -1, iv)) return srtp_err_status_init_fail;
    return srtp_err_status_ok;
}

static inline srtp_err_status_t agsh_gcm_set_aad(void *state, const uint8_t *aad, uint32_t aad_len) {
    agsh_gcm_state *gcm = (agsh_gcm_state *)state;
    /* OpenSSL wants a tag set before the AAD when decrypting; the real one comes with the payload. */
    unsigned char placeholder[AGSH_GCM_TAG_16] = {0};
    if (gcm->dir == srtp_direction_decrypt) EVP_CIPHER_CTX_ctrl(gcm->ctx, EVP_CTRL_GCM_SET_TAG, gcm->tag_len, placeholder);
    if (EVP_Cipher(gcm->ctx, NULL, aad, aad_len) != (int)aad_len) return srtp_err_status_algo_fail;
    return srtp_err_status_ok;
}

static inline srtp_err_status_t agsh_gcm_encrypt(void *state, uint8_t *buf, unsigned int *len) {
    agsh_gcm_state *gcm = (agsh_gcm_state *)state;
    if (gcm->dir != srtp_direction_encrypt && gcm->dir != srtp_direction_decrypt) return srtp_err_status_bad_param;
    EVP_Cipher(gcm->ctx, buf, buf, *len);
    return srtp_err_status_ok;
}

static inline srtp_err_status_t agsh_gcm_get_tag(void *state, uint8_t *tag, uint32_t *len) {
    agsh_gcm_state *gcm = (agsh_gcm_state *)state;
    EVP_Cipher(gcm->ctx, NULL, NULL, 0);
    if (!EVP_CIPHER_CTX_ctrl(gcm->ctx, EVP_CTRL_GCM_GET_TAG, gcm->tag_len, tag)) return srtp_err_status_algo_fail;
    *len = (uint32_t)gcm->tag_len;
    return srtp_err_status_ok;
}

static inline srtp_err_status_t agsh_gcm_decrypt(void *state, uint8_t *buf, unsigned int *len) {
    agsh_gcm_state *gcm = (agsh_gcm_state *)state;
    if (gcm->dir != srtp_direction_encrypt && gcm->dir != srtp_direction_decrypt) return srtp_err_status_bad_param;
    if (*len < (unsigned int)gcm->tag_len) return srtp_err_status_auth_fail;
    unsigned int body = *len - (unsigned int)gcm->tag_len;
    if (!EVP_CIPHER_CTX_ctrl(gcm->ctx, EVP_CTRL_GCM_SET_TAG, gcm->tag_len, buf + body)) return srtp_err_status_auth_fail;
    EVP_Cipher(gcm->ctx, buf, buf, body);
    if (EVP_Cipher(gcm->ctx, NULL, NULL, 0) < 0) return srtp_err_status_auth_fail;
    *len = body;
    return srtp_err_status_ok;
}

/*
 * Puts the OpenSSL implementation in place of libsrtp2's AES-GCM (128 and
 * 256), once, after srtp_init(). libsrtp2 runs the built-in type's test
 * vectors against it first and keeps its own if they fail. Sessions made
 * before keep the cipher they were made with. Returns 1 when both are in place.
 */
static inline int agsh_srtp_use_openssl_gcm(void) {
    const srtp_cipher_type_t base = {
        agsh_gcm_alloc, agsh_gcm_dealloc, agsh_gcm_init, agsh_gcm_set_aad, agsh_gcm_encrypt,
        agsh_gcm_decrypt, agsh_gcm_set_iv, agsh_gcm_get_tag, NULL, NULL, 0,
    };
    srtp_cipher_type_t *t128 = agsh_gcm_type(0), *t256 = agsh_gcm_type(1);
    *t128 = base;
    t128->description = "AES-128-GCM (OpenSSL EVP)";
    t128->test_data = srtp_aes_gcm_128.test_data;
    t128->id = SRTP_AES_GCM_128;
    *t256 = base;
    t256->description = "AES-256-GCM (OpenSSL EVP)";
    t256->test_data = srtp_aes_gcm_256.test_data;
    t256->id = SRTP_AES_GCM_256;
    int ok = srtp_replace_cipher_type(t128, SRTP_AES_GCM_128) == srtp_err_status_ok;
    ok &= srtp_replace_cipher_type(t256, SRTP_AES_GCM_256) == srtp_err_status_ok;
    return ok;
}

/*
 * libsrtp2 built on NSS (Debian's) opens an NSS context for every AES-ICM
 * cipher it allocates (the key derivation of every session uses one) and
 * closes it when the cipher is freed. With no other context open, each open
 * starts NSS from nothing (modules loaded, randomness seeded, about 1.5 ms)
 * and each close shuts it down again: a few ms per session made. One context
 * held for the life of the process makes the others a reference count.
 * Declared as nss.h declares them (NSSInitContext is opaque there too), so
 * the module needs no NSS include path; the flags are the ones libsrtp2 uses.
 */
typedef struct NSSInitContextStr NSSInitContext;
extern NSSInitContext *NSS_InitContext(const char *configdir, const char *certPrefix, const char *keyPrefix,
                                       const char *secmodName, void *initParams, unsigned int flags);

/* Opens the process's lasting NSS context (once; later calls do nothing). 1 when one is open. */
static inline int agsh_srtp_hold_nss(void) {
    static NSSInitContext *held = NULL;
    if (held == NULL) {
        /* NSS_INIT_READONLY | NOCERTDB | NOMODDB | FORCEOPEN | NOROOTINIT */
        held = NSS_InitContext("", "", "", "", NULL, 0x1 | 0x2 | 0x4 | 0x8 | 0x10);
    }
    return held != NULL;
}

/* Whether a cipher of libsrtp2's AES-128-GCM is now this implementation. */
static inline int agsh_srtp_gcm_is_openssl(void) {
    srtp_cipher_t *c = NULL;
    if (srtp_crypto_kernel_alloc_cipher(SRTP_AES_GCM_128, &c, SRTP_AES_GCM_128_KEY_LEN_WSALT, AGSH_GCM_TAG_16)
        != srtp_err_status_ok || c == NULL) return 0;
    int ours = c->type == agsh_gcm_type(0);
    srtp_cipher_dealloc(c);
    return ours;
}
