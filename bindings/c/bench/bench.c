/*
 * The C-ABI cost benchmark (scripts/bench.sh).
 *
 * For each workload of the Rust criterion bench (benches/src/lib.rs; the bytes come from
 * the bench_baseline library, built from that very code) one iteration decodes every
 * value and walks every node:
 *
 *   C     through the C API: bc_decoder_decode / bc_decoder_decode_prefix, then a C walk
 *         over the bc_value tree (reading its public fields);
 *   Rust  the packstream crate called directly from Rust (ValueRef::decode, then a walk
 *         of the ValueRef tree): bcb_rust_decode_walk, one call per iteration.
 *
 * Both fold every value into a checksum in the same order; equal checksums prove equal
 * work. The two are timed in alternating short batches in this one process, so both see
 * the same machine load; the fastest batch of each is reported (interference only ever
 * adds time), with the medians alongside.
 *
 *   bench [TOTAL_MS_PER_WORKLOAD [WORKLOAD]]
 *   bench --icount ITERATIONS WORKLOAD SIDE     (SIDE: c, c-batch or rust)
 *
 * The --icount form runs ITERATIONS iterations of one side of one workload and nothing
 * else, for an instruction counter (`scripts/bench.sh --icount` runs it under callgrind,
 * once with ITERATIONS and once with 0, and divides the difference): numbers that do not
 * move with the machine's load.
 *
 * Output: one line per workload,
 *   name bytes c_best_ns rust_best_ns ratio c_median_ns rust_median_ns checksum
 * where ratio = c_best / rust_best (below 1: the C API is faster). For the record streams
 * a second line `name/batch ...` times the C side with one bc_decoder_decode_all call for
 * all records instead of one call per record (the Rust side is unchanged).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "boltcodec.h"

/* Exported by the bench_baseline library (bench/baseline.rs). */
size_t bcb_workload_count(void);
int bcb_workload(size_t i, const char **name, const uint8_t **bytes, size_t *len, int *stream);
uint64_t bcb_rust_decode_walk(const uint8_t *bytes, size_t len, int stream);

/* Target length of one timed batch. Short batches are more often undisturbed. */
#define BATCH_NS 2e6
#define MAX_ROUNDS 4096

static inline uint64_t mix(uint64_t h, uint64_t x) { return (h ^ x) * 0x00000100000001B3ull; }

/* Folds every value into h, pre-order, as walk() in baseline.rs. Reads the public fields
 * of bc_value directly: that is how C walks a tree. */
static uint64_t walk(const bc_value *v, uint64_t h) {
    switch (v->kind) {
    case BC_TYPE_NULL:
        return mix(h, 1);
    case BC_TYPE_BOOL:
        return mix(h, 2 + (uint64_t)v->data.b);
    case BC_TYPE_INT:
        return mix(h, (uint64_t)v->data.i);
    case BC_TYPE_FLOAT: {
        uint64_t bits;
        memcpy(&bits, &v->data.f, sizeof bits);
        return mix(h, bits);
    }
    case BC_TYPE_STRING:
        return mix(h, v->len + (v->len ? (uint64_t)(unsigned char)v->data.s[0] : 0));
    case BC_TYPE_BYTES:
        return mix(h, v->len);
    case BC_TYPE_UUID:
        return mix(h, v->data.bytes[0]);
    case BC_TYPE_LIST:
        h = mix(h, v->len);
        for (uint32_t i = 0; i < v->len; i++) h = walk(&v->data.items[i], h);
        return h;
    case BC_TYPE_MAP:
        h = mix(h, v->len);
        for (uint32_t i = 0; i < v->len; i++) {
            h = mix(h, v->data.items[2 * i].len);
            h = walk(&v->data.items[2 * i + 1], h);
        }
        return h;
    case BC_TYPE_STRUCT:
        h = mix(h, v->tag);
        for (uint32_t i = 0; i < v->len; i++) h = walk(&v->data.items[i], h);
        return h;
    default:
        return h;
    }
}

/* One iteration through the C API, batch form for streams: bc_decoder_decode_all decodes
 * every record in one call (the values are the items of a list). */
static uint64_t c_batch_decode_walk(bc_decoder *dec, const uint8_t *bytes, size_t len) {
    uint64_t h = 0xCBF29CE484222325ull;
    const bc_value *list;
    if (bc_decoder_decode_all(dec, bytes, len, &list) != BC_OK) return 0;
    for (uint32_t i = 0; i < list->len; i++) h = walk(&list->data.items[i], h);
    return h;
}

/* One iteration through the C API: one call per value, as the Rust side. */
static uint64_t c_decode_walk(bc_decoder *dec, const uint8_t *bytes, size_t len, int stream) {
    uint64_t h = 0xCBF29CE484222325ull;
    const bc_value *v;
    if (stream) {
        size_t pos = 0, used = 0;
        while (pos < len) {
            if (bc_decoder_decode_prefix(dec, bytes + pos, len - pos, &v, &used) != BC_OK) return 0;
            h = walk(v, h);
            pos += used;
        }
    } else {
        if (bc_decoder_decode(dec, bytes, len, &v) != BC_OK) return 0;
        h = walk(v, h);
    }
    return h;
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Keeps the optimiser from dropping the work. */
static volatile uint64_t sink;

static double c_samples[MAX_ROUNDS], rust_samples[MAX_ROUNDS];

/* The --icount form: `iters` iterations of one side of one workload. */
static int icount(long iters, const char *only, const char *side) {
    bc_decoder *dec;
    if (bc_decoder_new(&dec) != BC_OK) return 1;
    int found = 0;
    for (size_t w = 0; w < bcb_workload_count(); w++) {
        const char *name;
        const uint8_t *bytes;
        size_t len;
        int stream;
        if (bcb_workload(w, &name, &bytes, &len, &stream) != 0) return 1;
        if (strcmp(only, name) != 0) continue;
        found = 1;
        for (long i = 0; i < iters; i++) {
            if (strcmp(side, "c") == 0) sink = c_decode_walk(dec, bytes, len, stream);
            else if (strcmp(side, "c-batch") == 0 && stream) sink = c_batch_decode_walk(dec, bytes, len);
            else if (strcmp(side, "rust") == 0) sink = bcb_rust_decode_walk(bytes, len, stream);
            else return 2;
        }
    }
    bc_decoder_free(dec);
    return found ? 0 : 2;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "--icount") == 0) return icount(atol(argv[2]), argv[3], argv[4]);
    double total_ms = argc > 1 ? atof(argv[1]) : 3000.0;
    const char *only = argc > 2 ? argv[2] : NULL;
    bc_decoder *dec;
    if (bc_decoder_new(&dec) != BC_OK) return 1;
    int failed = 0;
    for (size_t w = 0; w < bcb_workload_count(); w++) {
        const char *name;
        const uint8_t *shared;
        size_t len;
        int stream;
        if (bcb_workload(w, &name, &shared, &len, &stream) != 0) return 1;
        if (only && strcmp(only, name) != 0) continue;
        /* Both sides read the same private copy. */
        uint8_t *bytes = malloc(len);
        if (!bytes) return 1;
        memcpy(bytes, shared, len);

        for (int batch_mode = 0; batch_mode <= stream; batch_mode++) {
            uint64_t c_sum = batch_mode ? c_batch_decode_walk(dec, bytes, len)
                                        : c_decode_walk(dec, bytes, len, stream);
            uint64_t r_sum = bcb_rust_decode_walk(bytes, len, stream);
            if (c_sum == 0 || c_sum != r_sum) {
                fprintf(stderr, "%s: checksums differ (C %016llx, Rust %016llx)\n", name,
                        (unsigned long long)c_sum, (unsigned long long)r_sum);
                failed = 1;
            }
            /* Calibrate the batch size on the C side. */
            double start = now_ns();
            uint64_t n = 0;
            while (now_ns() - start < 20e6) {
                sink = batch_mode ? c_batch_decode_walk(dec, bytes, len)
                                  : c_decode_walk(dec, bytes, len, stream);
                n++;
            }
            double per = (now_ns() - start) / (double)n;
            uint64_t batch = (uint64_t)(BATCH_NS / per);
            if (batch < 1) batch = 1;
            int rounds = (int)(total_ms * 1e6 / (2.0 * BATCH_NS));
            if (rounds < 10) rounds = 10;
            if (rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
            for (int r = 0; r < rounds; r++) {
                double t = now_ns();
                if (batch_mode) {
                    for (uint64_t i = 0; i < batch; i++) sink = c_batch_decode_walk(dec, bytes, len);
                } else {
                    for (uint64_t i = 0; i < batch; i++)
                        sink = c_decode_walk(dec, bytes, len, stream);
                }
                c_samples[r] = (now_ns() - t) / (double)batch;
                t = now_ns();
                for (uint64_t i = 0; i < batch; i++) sink = bcb_rust_decode_walk(bytes, len, stream);
                rust_samples[r] = (now_ns() - t) / (double)batch;
            }
            qsort(c_samples, (size_t)rounds, sizeof(double), cmp_double);
            qsort(rust_samples, (size_t)rounds, sizeof(double), cmp_double);
            printf("%s%s %zu %.1f %.1f %.3f %.1f %.1f %016llx\n", name, batch_mode ? "/batch" : "",
                   len, c_samples[0], rust_samples[0], c_samples[0] / rust_samples[0],
                   c_samples[rounds / 2], rust_samples[rounds / 2], (unsigned long long)c_sum);
            fflush(stdout);
        }
        free(bytes);
    }
    bc_decoder_free(dec);
    return failed;
}
