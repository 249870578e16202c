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

#include <string.h>

#include "agoraish.h"
#include "bench_support.h"

#define WARMUP 10

typedef agoraish_engine_t *(*create_fn)(const agoraish_engine_config *);
typedef int (*release_fn)(agoraish_engine_t *, int);
typedef int (*last_error_fn)(void);

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
    if (!(lib = open_library(argv[1]))) return 1;
    LOOKUP(lib, create, "agoraish_engine_create");
    LOOKUP(lib, release, "agoraish_engine_release");
    LOOKUP(lib, last_error, "agoraish_get_last_error");
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.app_id = "bench-create-release";
    config.log_file = argv[2];

    samples = calloc((size_t)cycles, sizeof *samples);
    if (!samples) return 1;
    for (i = -WARMUP; i < cycles; i++) {
        double start = now_ms();
        agoraish_engine_t *engine = create(&config);
        if (!engine) {
            fprintf(stderr, "create failed: %d\n", last_error());
            return 1;
        }
        if (release(engine, 1) != 0) {
            fprintf(stderr, "release failed\n");
            return 1;
        }
        if (i >= 0) samples[i] = (now_ms() - start) * 1e3; /* microseconds */
    }
    sort_samples(samples, cycles);
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
