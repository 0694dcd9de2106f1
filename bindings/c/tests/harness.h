/*
 * A minimal test harness: TEST functions run by RUN, checks that record failures with
 * file and line, and a closing line `N passed, M failed` that scripts/test.sh sums up.
 */
#ifndef BOLTCODEC_TEST_HARNESS_H
#define BOLTCODEC_TEST_HARNESS_H

#include <stdio.h>
#include <string.h>

#include "boltcodec.h"

static int h_passed, h_failed, h_current_failed;
static const char *h_current = "";

#define FAILF(...)                                                                         \
    do {                                                                                   \
        fprintf(stderr, "FAIL %s (%s:%d): ", h_current, __FILE__, __LINE__);               \
        fprintf(stderr, __VA_ARGS__);                                                      \
        fputc('\n', stderr);                                                               \
        h_current_failed = 1;                                                              \
    } while (0)

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) FAILF("%s", #cond);                                                   \
    } while (0)

/* Checks that `expr` returns the status `want`. */
#define CHECK_ST(expr, want)                                                               \
    do {                                                                                   \
        bc_status st_ = (expr);                                                            \
        if (st_ != (want))                                                                 \
            FAILF("%s returned %s, expected %s", #expr, bc_status_name((int32_t)st_),      \
                  bc_status_name((int32_t)(want)));                                        \
    } while (0)

#define CHECK_OK(expr) CHECK_ST(expr, BC_OK)

/* Runs one test function. */
#define RUN(fn)                                                                            \
    do {                                                                                   \
        h_current = #fn;                                                                   \
        h_current_failed = 0;                                                              \
        fn();                                                                              \
        if (h_current_failed) h_failed++;                                                  \
        else h_passed++;                                                                   \
    } while (0)

/* Counts a named case checked inline (e.g. one test vector). */
#define CASE_BEGIN(name)                                                                   \
    do {                                                                                   \
        h_current = (name);                                                                \
        h_current_failed = 0;                                                              \
    } while (0)
#define CASE_END()                                                                         \
    do {                                                                                   \
        if (h_current_failed) h_failed++;                                                  \
        else h_passed++;                                                                   \
    } while (0)

/* The closing line; returns the exit status. */
static int h_finish(void) {
    printf("%d passed, %d failed\n", h_passed, h_failed);
    return h_failed ? 1 : 0;
}

/* True if a string value equals the C string `s`. */
static inline int value_is_str(const bc_value *v, const char *s) {
    return v && v->kind == BC_TYPE_STRING && v->len == strlen(s) &&
           memcmp(v->data.s, s, v->len) == 0;
}

#endif
