/*
 * A growable byte buffer for the C tests that build their input bytes by hand
 * (test_deep.c, test_interleave.c).
 */
#ifndef BOLTCODEC_TEST_BUF_H
#define BOLTCODEC_TEST_BUF_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t *p;
    size_t len, cap;
} buf;

/* Appends `n` bytes (`p` may be NULL when `n` is 0); exits the test on out of memory. */
static inline void buf_put(buf *b, const void *p, size_t n) {
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n) cap *= 2;
        uint8_t *q = realloc(b->p, cap);
        if (!q) { fprintf(stderr, "out of memory\n"); exit(2); }
        b->p = q;
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->len, p, n);
    b->len += n;
}
static inline void buf_byte(buf *b, uint8_t x) { buf_put(b, &x, 1); }
static inline void buf_free(buf *b) { free(b->p); memset(b, 0, sizeof *b); }

#endif
