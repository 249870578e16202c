/*
 * load_time.c — one sample of library load time, measured inside the process:
 * dlopen(path, RTLD_NOW) followed by dlsym of every symbol named on the
 * command line, timed with CLOCK_MONOTONIC. Run by bench/benchmarks/lib_load.py
 * in many fresh processes.
 *
 *   load_time PATH SYMBOL...    ->  {"ms": 12.345, "symbols": 11}
 *
 * Exit status 1 (and a message on stderr) if the library or a symbol is missing.
 */
#define _POSIX_C_SOURCE 200809L

#include "bench_support.h"

int main(int argc, char **argv) {
    double start, end;
    void *lib;
    int i;
    if (argc < 2) {
        fprintf(stderr, "usage: load_time PATH SYMBOL...\n");
        return 2;
    }
    start = now_ms();
    if (!(lib = open_library(argv[1]))) return 1;
    for (i = 2; i < argc; i++) {
        if (!dlsym(lib, argv[i])) {
            fprintf(stderr, "dlsym %s: missing\n", argv[i]);
            return 1;
        }
    }
    end = now_ms();
    printf("{\"ms\": %.4f, \"symbols\": %d}\n", end - start, argc - 2);
    return 0;
}
