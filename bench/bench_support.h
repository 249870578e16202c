/*
 * bench_support.h — what the benchmarks that open the library with dlopen
 * share (bench/create_release.c, bench/join_latency.c, bench/load_time.c):
 * opening the library under test, looking its functions up, CLOCK_MONOTONIC
 * time, and nearest-rank quantiles of sorted samples (as
 * bench/benchmarks/_common.py).
 *
 * Header-only (static inline), so that every benchmark stays one source file
 * (bench/run.py compiles bench/<name>.c alone). Define _POSIX_C_SOURCE before
 * any include; link with -ldl.
 */
#ifndef AGORAISH_BENCH_SUPPORT_H
#define AGORAISH_BENCH_SUPPORT_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/** CLOCK_MONOTONIC in milliseconds. */
static inline double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/** dlopen(path, RTLD_NOW | RTLD_LOCAL); NULL (and the reason on stderr) when it fails. */
static inline void *open_library(const char *path) {
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) fprintf(stderr, "dlopen: %s\n", dlerror());
    return lib;
}

/**
 * Looks `name` up in `lib` into the function pointer `fn`; when the library
 * lacks it, says so on stderr and returns 1 from the calling function (main).
 * (The cast through void ** is how POSIX turns dlsym's result into a function
 * pointer without a pedantic warning.)
 */
#define LOOKUP(lib, fn, name)                                                 \
    do {                                                                      \
        *(void **)&(fn) = dlsym((lib), (name));                               \
        if (!(fn)) {                                                          \
            fprintf(stderr, "dlsym: the library lacks %s\n", (name));         \
            return 1;                                                         \
        }                                                                     \
    } while (0)

static inline int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/** Sorts `n` samples in place, for quantile(). */
static inline void sort_samples(double *samples, int n) { qsort(samples, (size_t)n, sizeof *samples, compare_doubles); }

/** The q-quantile of `n` sorted samples (nearest rank). */
static inline double quantile(const double *sorted, int n, double q) {
    int rank = (int)(q * n + 0.999999);
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return sorted[rank - 1];
}

#endif /* AGORAISH_BENCH_SUPPORT_H */
