/*
 * The Arrow C stream interface of libboltcodec: PULL responses built byte by byte,
 * decoded with bc_arrow_decode and bc_arrow_stream_*, and the resulting ArrowSchema /
 * ArrowArray walked by hand (validity bitmaps, int64 / float64 values, utf8 offsets and
 * data) and checked against the values written; errors with their offsets; NULL
 * pointers; streams that outlive their handle.
 */
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"

static const bc_version V58 = {5, 8, 0, {0}, 0};
static const char *const NAMES[] = {"i", "f", "s"};

/* A growable byte buffer of chunked messages. */
typedef struct {
    uint8_t data[4096];
    size_t len;
} wire;

/* Appends `msg` as one chunk and the end marker. */
static void frame(wire *w, const uint8_t *msg, size_t n) {
    w->data[w->len++] = (uint8_t)(n >> 8);
    w->data[w->len++] = (uint8_t)n;
    memcpy(w->data + w->len, msg, n);
    w->len += n;
    w->data[w->len++] = 0;
    w->data[w->len++] = 0;
}

/* RECORD [i, f, s]; a NULL `s` or `has_*` false writes a null. */
static size_t record(uint8_t *out, int has_i, int8_t i, int has_f, double f, const char *s) {
    size_t n = 0;
    out[n++] = 0xB1;
    out[n++] = 0x71;
    out[n++] = 0x93;
    if (has_i) out[n++] = (uint8_t)i; /* tiny int: -16 .. 127 */
    else out[n++] = 0xC0;
    if (has_f) {
        uint64_t bits;
        memcpy(&bits, &f, 8);
        out[n++] = 0xC1;
        for (int k = 7; k >= 0; k--) out[n++] = (uint8_t)(bits >> (8 * k));
    } else {
        out[n++] = 0xC0;
    }
    if (s) {
        size_t l = strlen(s); /* < 16 */
        out[n++] = (uint8_t)(0x80 | l);
        memcpy(out + n, s, l);
        n += l;
    } else {
        out[n++] = 0xC0;
    }
    return n;
}

static void add_record(wire *w, int has_i, int8_t i, int has_f, double f, const char *s) {
    uint8_t msg[64];
    frame(w, msg, record(msg, has_i, i, has_f, f, s));
}

static void add_success(wire *w, int has_more) {
    static const uint8_t done[] = {0xB1, 0x70, 0xA0};
    static const uint8_t more[] = {0xB1, 0x70, 0xA1, 0x88, 'h', 'a', 's', '_',
                                   'm',  'o',  'r',  'e', 0xC3};
    if (has_more) frame(w, more, sizeof more);
    else frame(w, done, sizeof done);
}

static int is_valid(const struct ArrowArray *a, int64_t row) {
    const uint8_t *bits = (const uint8_t *)a->buffers[0];
    int64_t at = a->offset + row;
    return bits == NULL || ((bits[at / 8] >> (at % 8)) & 1);
}

static int64_t int64_at(const struct ArrowArray *a, int64_t row) {
    return ((const int64_t *)a->buffers[1])[a->offset + row];
}

static double float64_at(const struct ArrowArray *a, int64_t row) {
    return ((const double *)a->buffers[1])[a->offset + row];
}

/* 1 if utf8 row `row` of `a` is `want`. */
static int utf8_is(const struct ArrowArray *a, int64_t row, const char *want) {
    const int32_t *offsets = (const int32_t *)a->buffers[1];
    const char *data = (const char *)a->buffers[2];
    int32_t start = offsets[a->offset + row], end = offsets[a->offset + row + 1];
    return (size_t)(end - start) == strlen(want) && memcmp(data + start, want, strlen(want)) == 0;
}

/* Reads the schema; checks it is a struct of the three columns with these formats. */
static void check_schema(struct ArrowArrayStream *st, const char *fi, const char *ff,
                         const char *fs) {
    struct ArrowSchema schema;
    CHECK(st->get_schema(st, &schema) == 0);
    if (h_current_failed) return;
    CHECK(strcmp(schema.format, "+s") == 0);
    CHECK(schema.n_children == 3);
    if (schema.n_children == 3) {
        const char *want[3] = {fi, ff, fs};
        for (int c = 0; c < 3; c++) {
            CHECK(strcmp(schema.children[c]->name, NAMES[c]) == 0);
            if (strcmp(schema.children[c]->format, want[c]) != 0)
                FAILF("column %d: format %s, expected %s", c, schema.children[c]->format, want[c]);
            CHECK(schema.children[c]->flags & ARROW_FLAG_NULLABLE);
        }
    }
    schema.release(&schema);
}

static void test_decode_walks_the_buffers(void) {
    wire w = {{0}, 0};
    add_record(&w, 1, 1, 1, 1.5, "a");
    add_record(&w, 0, 0, 1, 2.5, "bc");
    add_record(&w, 1, -3, 0, 0, NULL);
    add_success(&w, 0);

    struct ArrowArrayStream st;
    bc_arrow_error err;
    CHECK_OK(bc_arrow_decode(w.data, w.len, NAMES, 3, V58, &st, &err));
    if (h_current_failed) return;
    check_schema(&st, "l", "g", "u");

    struct ArrowArray batch;
    CHECK(st.get_next(&st, &batch) == 0);
    CHECK(batch.release != NULL);
    if (batch.release == NULL) {
        st.release(&st);
        return;
    }
    CHECK(batch.length == 3);
    CHECK(batch.n_children == 3);
    const struct ArrowArray *ci = batch.children[0], *cf = batch.children[1],
                            *cs = batch.children[2];
    CHECK(ci->length == 3 && ci->null_count == 1);
    CHECK(is_valid(ci, 0) && !is_valid(ci, 1) && is_valid(ci, 2));
    CHECK(int64_at(ci, 0) == 1 && int64_at(ci, 2) == -3);
    CHECK(cf->null_count == 1);
    CHECK(is_valid(cf, 0) && is_valid(cf, 1) && !is_valid(cf, 2));
    CHECK(float64_at(cf, 0) == 1.5 && float64_at(cf, 1) == 2.5);
    CHECK(cs->n_buffers == 3 && cs->null_count == 1);
    CHECK(utf8_is(cs, 0, "a") && utf8_is(cs, 1, "bc") && !is_valid(cs, 2));
    batch.release(&batch);

    /* End of stream: a released (NULL) array. */
    CHECK(st.get_next(&st, &batch) == 0);
    CHECK(batch.release == NULL);
    st.release(&st);
}

static void test_integers_and_floats_mixed_are_float64(void) {
    static const uint8_t r1[] = {0xB1, 0x71, 0x91, 0x07};
    static const uint8_t r2[] = {0xB1, 0x71, 0x91, 0xC1, 0x3F, 0xE0, 0, 0, 0, 0, 0, 0};
    wire w = {{0}, 0};
    frame(&w, r1, sizeof r1);
    frame(&w, r2, sizeof r2);
    add_success(&w, 0);
    const char *name[] = {"x"};
    struct ArrowArrayStream st;
    CHECK_OK(bc_arrow_decode(w.data, w.len, name, 1, V58, &st, NULL));
    if (h_current_failed) return;
    struct ArrowSchema schema;
    CHECK(st.get_schema(&st, &schema) == 0);
    CHECK(strcmp(schema.children[0]->format, "g") == 0);
    schema.release(&schema);
    struct ArrowArray batch;
    CHECK(st.get_next(&st, &batch) == 0 && batch.release != NULL);
    if (batch.release) {
        CHECK(float64_at(batch.children[0], 0) == 7.0);
        CHECK(float64_at(batch.children[0], 1) == 0.5);
        batch.release(&batch);
    }
    st.release(&st);
}

static void test_empty_result_has_null_columns_and_no_batch(void) {
    wire w = {{0}, 0};
    add_success(&w, 0);
    struct ArrowArrayStream st;
    CHECK_OK(bc_arrow_decode(w.data, w.len, NAMES, 3, V58, &st, NULL));
    if (h_current_failed) return;
    check_schema(&st, "n", "n", "n");
    struct ArrowArray batch;
    CHECK(st.get_next(&st, &batch) == 0);
    CHECK(batch.release == NULL);
    st.release(&st);
}

static void test_decode_errors_carry_offsets(void) {
    wire w = {{0}, 0};
    add_record(&w, 1, 1, 1, 1.0, "a");
    size_t second = w.len;
    /* [1, 2.0, "ab…"] whose string claims 5 bytes and has 1: the value at byte 14. */
    static const uint8_t bad[] = {0xB1, 0x71, 0x93, 0x01, 0xC1, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x85, 'a'};
    frame(&w, bad, sizeof bad);
    add_success(&w, 0);
    struct ArrowArrayStream st;
    st.release = NULL;
    bc_arrow_error err;
    CHECK_ST(bc_arrow_decode(w.data, w.len, NAMES, 3, V58, &st, &err), BC_ERR_UNEXPECTED_END);
    CHECK(err.status == BC_ERR_UNEXPECTED_END);
    CHECK(strcmp(err.kind, "unexpected_end") == 0);
    if (err.offset != (int64_t)second) FAILF("offset %lld, expected %zu", (long long)err.offset, second);
    CHECK(err.message_offset >= 13 && err.message_offset <= (int64_t)sizeof bad);
    CHECK(strlen(err.message) > 0);
    CHECK(st.release == NULL); /* not written */

    /* Bytes that end before the summary. */
    wire w2 = {{0}, 0};
    add_record(&w2, 1, 1, 1, 1.0, "a");
    CHECK_ST(bc_arrow_decode(w2.data, w2.len, NAMES, 3, V58, &st, &err), BC_ERR_UNEXPECTED_END);
    CHECK(err.offset == (int64_t)w2.len);

    /* Two columns named, three fields sent. */
    CHECK_ST(bc_arrow_decode(w2.data, w2.len, NAMES, 2, V58, &st, &err), BC_ERR_PROTOCOL);
    CHECK(strcmp(err.kind, "field_count") == 0);
    CHECK(err.offset == 0);

    /* A server FAILURE. */
    static const uint8_t failure[] = {0xB1, 0x7F, 0xA2, 0x84, 'c', 'o', 'd', 'e', 0x81, 'X',
                                      0x87, 'm',  'e',  's',  's', 'a', 'g', 'e', 0x81, 'Y'};
    wire w3 = {{0}, 0};
    frame(&w3, failure, sizeof failure);
    CHECK_ST(bc_arrow_decode(w3.data, w3.len, NAMES, 3, V58, &st, &err), BC_ERR_PROTOCOL);
    CHECK(strcmp(err.kind, "failure") == 0);
    CHECK(strstr(err.message, "X") != NULL);

    /* A chunk header beyond the stream's message limit is a broken stream: a message of
       64 MiB + 1 would need more bytes, so use a truncated chunk instead: incomplete. */
    static const uint8_t truncated[] = {0x00, 0x10, 0xB1};
    CHECK_ST(bc_arrow_decode(truncated, sizeof truncated, NAMES, 3, V58, &st, &err),
             BC_ERR_UNEXPECTED_END);
    CHECK(err.offset == (int64_t)sizeof truncated);
}

/* Regression: an unknown version gave BC_ERR_INVALID_ARGUMENT here, where the version
 * lists of the handshake and connection give BC_ERR_UNKNOWN_VERSION. Nothing is made. */
static void test_an_unknown_version_gave_invalid_argument_not_unknown_version(void) {
    static const uint8_t done[] = {0x00, 0x03, 0xB1, 0x70, 0xA0, 0x00, 0x00};
    const bc_version unknown[] = {{5, 5, 0, {0}, 0}, {7, 0, 0, {0}, 0}, {9, 9, 0, {0}, 0}};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        struct ArrowArrayStream st;
        st.release = NULL;
        bc_arrow_error err;
        CHECK_ST(bc_arrow_decode(done, sizeof done, NAMES, 3, unknown[i], &st, &err),
                 BC_ERR_UNKNOWN_VERSION);
        CHECK(st.release == NULL);
        bc_arrow_stream *s = NULL;
        CHECK_ST(bc_arrow_stream_new(NAMES, 3, unknown[i], &s), BC_ERR_UNKNOWN_VERSION);
        CHECK(s == NULL);
    }
    /* A known version is accepted by both. */
    struct ArrowArrayStream st;
    bc_arrow_error err;
    CHECK_OK(bc_arrow_decode(done, sizeof done, NAMES, 3, V58, &st, &err));
    st.release(&st);
    bc_arrow_stream *s = NULL;
    CHECK_OK(bc_arrow_stream_new(NAMES, 3, V58, &s));
    bc_arrow_stream_free(s);
}

static void test_null_pointers_and_bad_arguments(void) {
    struct ArrowArrayStream st;
    bc_arrow_error err;
    const char *with_null[] = {"a", NULL};
    const bc_version v55 = {5, 5, 0, {0}, 0};
    static const uint8_t done[] = {0x00, 0x03, 0xB1, 0x70, 0xA0, 0x00, 0x00};
    CHECK_ST(bc_arrow_decode(NULL, 4, NAMES, 3, V58, &st, &err), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_arrow_decode(done, sizeof done, NULL, 3, V58, &st, &err), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_arrow_decode(done, sizeof done, with_null, 2, V58, &st, &err),
             BC_ERR_NULL_POINTER);
    CHECK_ST(bc_arrow_decode(done, sizeof done, NAMES, 3, V58, NULL, &err), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_arrow_decode(done, sizeof done, NAMES, 3, v55, &st, &err),
             BC_ERR_UNKNOWN_VERSION);
    const char *bad_utf8[] = {"\xff"};
    CHECK_ST(bc_arrow_decode(done, sizeof done, bad_utf8, 1, V58, &st, &err),
             BC_ERR_INVALID_UTF8);

    bc_arrow_stream *s = NULL;
    size_t rows = 0;
    bool flag = false;
    CHECK_ST(bc_arrow_stream_new(NAMES, 3, V58, NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_arrow_stream_new(NAMES, 3, v55, &s), BC_ERR_UNKNOWN_VERSION);
    CHECK_ST(bc_arrow_stream_feed(NULL, done, sizeof done, &rows), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_arrow_stream_finish(NULL, &st), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_arrow_stream_is_done(NULL, &flag), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_arrow_stream_take_has_more(NULL, &flag), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_arrow_stream_last_error(NULL, &err), BC_ERR_NULL_POINTER);
    CHECK_OK(bc_arrow_stream_new(NAMES, 3, V58, &s));
    CHECK_ST(bc_arrow_stream_feed(s, NULL, 3, &rows), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_arrow_stream_feed(s, done, sizeof done, NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_arrow_stream_finish(s, NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_arrow_stream_last_error(s, NULL), BC_ERR_NULL_POINTER);
    bc_arrow_stream_free(s);
    bc_arrow_stream_free(NULL);
}

static void test_stream_batch_by_batch_with_has_more(void) {
    bc_arrow_stream *s = NULL;
    CHECK_OK(bc_arrow_stream_new(NAMES, 3, V58, &s));
    if (!s) return;
    wire w = {{0}, 0};
    add_record(&w, 1, 5, 1, 0.25, "xy");
    add_success(&w, 1);
    size_t rows = 99;
    bool flag = false;
    /* Split inside the record's chunk: nothing completes, then the rest. */
    CHECK_OK(bc_arrow_stream_feed(s, w.data, 7, &rows));
    CHECK(rows == 0);
    CHECK_OK(bc_arrow_stream_feed(s, w.data + 7, w.len - 7, &rows));
    CHECK(rows == 1);
    CHECK_OK(bc_arrow_stream_take_has_more(s, &flag));
    CHECK(flag);
    CHECK_OK(bc_arrow_stream_take_has_more(s, &flag));
    CHECK(!flag);
    CHECK_OK(bc_arrow_stream_is_done(s, &flag));
    CHECK(!flag);

    struct ArrowArrayStream first;
    CHECK_OK(bc_arrow_stream_finish(s, &first));

    /* The next PULL's reply: a string in the integer column fails, nothing is kept. */
    wire w2 = {{0}, 0};
    add_record(&w2, 1, 6, 1, 0.5, "z");
    size_t bad_at = w.len + w2.len;
    static const uint8_t bad[] = {0xB1, 0x71, 0x93, 0x81, 'q', 0xC0, 0xC0};
    frame(&w2, bad, sizeof bad);
    CHECK_ST(bc_arrow_stream_feed(s, w2.data, w2.len, &rows), BC_ERR_WRONG_TYPE);
    bc_arrow_error err;
    CHECK_OK(bc_arrow_stream_last_error(s, &err));
    CHECK(err.status == BC_ERR_WRONG_TYPE);
    CHECK(strcmp(err.kind, "type_changed") == 0);
    if (err.offset != (int64_t)bad_at) FAILF("offset %lld, expected %zu", (long long)err.offset, bad_at);
    CHECK(err.message_offset == 3);

    /* Fed again without the bad record, then the end. */
    wire w3 = {{0}, 0};
    add_record(&w3, 1, 6, 0, 0, "z");
    add_success(&w3, 0);
    CHECK_OK(bc_arrow_stream_feed(s, w3.data, w3.len, &rows));
    CHECK(rows == 1);
    CHECK_OK(bc_arrow_stream_is_done(s, &flag));
    CHECK(flag);
    struct ArrowArrayStream second;
    CHECK_OK(bc_arrow_stream_finish(s, &second));
    /* A message after the final summary. */
    CHECK_ST(bc_arrow_stream_feed(s, w3.data, w3.len, &rows), BC_ERR_PROTOCOL);
    /* The streams handed out outlive the handle. */
    bc_arrow_stream_free(s);

    struct ArrowArray batch;
    check_schema(&first, "l", "g", "u");
    CHECK(first.get_next(&first, &batch) == 0 && batch.release != NULL);
    if (batch.release) {
        CHECK(batch.length == 1);
        CHECK(int64_at(batch.children[0], 0) == 5);
        CHECK(float64_at(batch.children[1], 0) == 0.25);
        CHECK(utf8_is(batch.children[2], 0, "xy"));
        batch.release(&batch);
    }
    CHECK(first.get_next(&first, &batch) == 0 && batch.release == NULL);
    first.release(&first);

    check_schema(&second, "l", "g", "u");
    CHECK(second.get_next(&second, &batch) == 0 && batch.release != NULL);
    if (batch.release) {
        CHECK(batch.length == 1);
        CHECK(int64_at(batch.children[0], 0) == 6);
        CHECK(!is_valid(batch.children[1], 0));
        CHECK(utf8_is(batch.children[2], 0, "z"));
        batch.release(&batch);
    }
    second.release(&second);
}

int main(void) {
    RUN(test_decode_walks_the_buffers);
    RUN(test_integers_and_floats_mixed_are_float64);
    RUN(test_empty_result_has_null_columns_and_no_batch);
    RUN(test_decode_errors_carry_offsets);
    RUN(test_null_pointers_and_bad_arguments);
    RUN(test_an_unknown_version_gave_invalid_argument_not_unknown_version);
    RUN(test_stream_batch_by_batch_with_has_more);
    return h_finish();
}
