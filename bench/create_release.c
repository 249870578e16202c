/*
 * create_release.c — engine create + release(sync=1) cycles in one process.
 * The library is opened with dlopen so that the harness decides which copy
 * is measured (AGORAISH_LIBRARY). Each cycle is timed with CLOCK_MONOTONIC;
 * a few warm-up cycles are not counted. Prints the figures as JSON:
 *
 *   create_release PATH LOG_FILE CYCLES
 *     -> {"figures": [{"name": "engine_create_release_c_us", ...}, ...]}
 */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agoraish.h"

#define WARMUP 10

typedef agoraish_engine_t *(*create_fn)(const agoraish_engine_config *);
typedef int (*release_fn)(agoraish_engine_t *, int);
typedef int (*last_error_fn)(void);

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of sorted samples (nearest rank). */
static double quantile(const double *sorted, int n, double q) {
    int rank = (int)(q * n + 0.999999);
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return sorted[rank - 1];
}

int main(int argc, char **argv) {
    void *lib;
    create_fn create;
    release_fn release;
    last_error_fn last_error;
    agoraish_engine_config config;
    double *samples;
    int cycles, i;

    if (argc != 4 || (cycles = atoi(argv[3])) < 1) {
        fprintf(stderr, "usage: create_release PATH LOG_FILE CYCLES\n");
        return 2;
    }
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    *(void **)&create = dlsym(lib, "agoraish_engine_create");
    *(void **)&release = dlsym(lib, "agoraish_engine_release");
    *(void **)&last_error = dlsym(lib, "agoraish_get_last_error");
    if (!create || !release || !last_error) {
        fprintf(stderr, "dlsym: the library lacks agoraish_engine_create/release/get_last_error\n");
        return 1;
    }
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.app_id = "bench-create-release";
    config.log_file = argv[2];

    samples = calloc((size_t)cycles, sizeof *samples);
    if (!samples) return 1;
    for (i = -WARMUP; i < cycles; i++) {
        double start = now_us();
        agoraish_engine_t *engine = create(&config);
        if (!engine) {
            fprintf(stderr, "create failed: %d\n", last_error());
            return 1;
        }
        if (release(engine, 1) != 0) {
            fprintf(stderr, "release failed\n");
            return 1;
        }
        if (i >= 0) samples[i] = now_us() - start;
    }
    qsort(samples, (size_t)cycles, sizeof *samples, compare);
    printf("{\"figures\": [\n");
    printf("  {\"name\": \"engine_create_release_c_us\", \"value\": %.2f, \"unit\": \"us\", "
           "\"note\": \"median of N=%d create+release(sync=1) cycles in one process, C\"},\n",
           quantile(samples, cycles, 0.5), cycles);
    printf("  {\"name\": \"engine_create_release_c_p99_us\", \"value\": %.2f, \"unit\": \"us\", "
           "\"note\": \"p99 of the same N=%d cycles\"}\n",
           quantile(samples, cycles, 0.99), cycles);
    printf("]}\n");
    free(samples);
    return 0;
}
