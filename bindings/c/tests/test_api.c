/*
 * Tests of the whole C API: every accessor on every value type, every status code,
 * NULL handling, lifetimes, the encoder's state rules and framing, the dechunker, both
 * handshake roles, the sans-IO connection against a scripted server built from the same
 * API, the typed views of Bolt structures, and hostile input.
 *
 * Each TEST is one counted test; the last line is `N passed, M failed`.
 */
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"

/* ---------------------------------------------------------------------------------- */
/* Helpers                                                                            */

/* Hex (spaces allowed) to bytes; returns the length. */
static size_t hx(const char *hex, uint8_t *out) {
    size_t n = 0;
    int hi = -1;
    for (; *hex; hex++) {
        int d = (*hex >= '0' && *hex <= '9')   ? *hex - '0'
                : (*hex >= 'a' && *hex <= 'f') ? *hex - 'a' + 10
                : (*hex >= 'A' && *hex <= 'F') ? *hex - 'A' + 10
                                               : -1;
        if (d < 0) continue;
        if (hi < 0) hi = d;
        else { out[n++] = (uint8_t)(hi * 16 + d); hi = -1; }
    }
    return n;
}

static bc_encoder *enc_new(uint32_t flags) {
    bc_encoder *e = NULL;
    CHECK_OK(bc_encoder_new(&e));
    CHECK_OK(bc_encoder_set_options(e, flags));
    return e;
}

static bc_decoder *dec_new(uint32_t flags) {
    bc_decoder *d = NULL;
    CHECK_OK(bc_decoder_new(&d));
    CHECK_OK(bc_decoder_set_options(d, flags | BC_OPT_COPY_INPUT));
    return d;
}

/* Decodes a copy of what `e` holds with `d` (values independent of `e`). */
static const bc_value *decode_enc(bc_decoder *d, bc_encoder *e) {
    const uint8_t *p;
    size_t n;
    const bc_value *v = NULL;
    CHECK_OK(bc_encoder_data(e, &p, &n));
    bc_status st = bc_decoder_decode(d, p, n, &v);
    if (st != BC_OK) {
        bc_error err;
        bc_decoder_last_error(d, &err);
        FAILF("decode_enc: %s (%s)", bc_status_name(st), err.message);
    }
    return v;
}

static void w_str(bc_encoder *e, const char *s) { CHECK_OK(bc_encoder_write_string(e, s, strlen(s))); }

static int bytes_eq(bc_encoder *e, const char *hex) {
    uint8_t want[4096];
    size_t wlen = hx(hex, want);
    const uint8_t *p;
    size_t n;
    bc_encoder_data(e, &p, &n);
    if (n != wlen || memcmp(p, want, n) != 0) {
        fprintf(stderr, "  got:");
        for (size_t i = 0; i < n; i++) fprintf(stderr, " %02x", p[i]);
        fprintf(stderr, "\n");
        return 0;
    }
    return 1;
}

static const bc_version V44 = {4, 4, 0, {0}, 0};
static const bc_version V50 = {5, 0, 0, {0}, 0};
static const bc_version V58 = {5, 8, 0, {0}, 0};
static const bc_version V60 = {6, 0, 0, {0}, 0};

/* ---------------------------------------------------------------------------------- */
/* Status codes, panic guard, NULLs                                                    */

static void test_status_names(void) {
    const char *seen[BC_STATUS_MAX + 1];
    for (int s = 0; s <= BC_STATUS_MAX; s++) {
        seen[s] = bc_status_name(s);
        CHECK(seen[s] != NULL && strcmp(seen[s], "unknown_status") != 0);
        for (int t = 0; t < s; t++) CHECK(strcmp(seen[s], seen[t]) != 0);
    }
    CHECK(strcmp(bc_status_name(BC_OK), "ok") == 0);
    CHECK(strcmp(bc_status_name(BC_ERR_UNEXPECTED_END), "unexpected_end") == 0);
    CHECK(strcmp(bc_status_name(BC_ERR_TRAILING_BYTES), "trailing_bytes") == 0);
    CHECK(strcmp(bc_status_name(BC_STATUS_MAX + 1), "unknown_status") == 0);
    CHECK(strcmp(bc_status_name(-1), "unknown_status") == 0);
    CHECK(strcmp(bc_status_name(INT32_MIN), "unknown_status") == 0);
    const char *v = bc_library_version();
    CHECK(v && strchr(v, '.') != NULL);
}

/* BC_ERR_INTERNAL: a panic inside the library becomes a status. */
static void test_panic_guard(void) { CHECK_ST(bc_selftest_panic(), BC_ERR_INTERNAL); }

static void test_null_pointers(void) {
    bc_decoder *d = dec_new(0);
    bc_encoder *e = enc_new(0);
    const bc_value *v;
    size_t n;
    uint8_t one = 0x01;
    bc_error err;
    /* Handles. */
    CHECK_ST(bc_decoder_new(NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_encoder_new(NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_dechunker_new(NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_connection_new(NULL, NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_client_handshake_new(NULL, 0, 0, NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_server_handshake_new(NULL, 0, 0, NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_decoder_decode(NULL, &one, 1, &v), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_decoder_decode_prefix(NULL, &one, 1, &v, &n), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_decoder_decode_all(NULL, &one, 1, &v), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_decoder_reset(NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_decoder_set_limits(NULL, NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_decoder_set_limits(d, NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_decoder_last_error(NULL, &err), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_decoder_last_error(d, NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_encoder_write_int(NULL, 1), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_encoder_data(e, NULL, &n), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_encoder_last_error(NULL, &err), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_dechunker_feed(NULL, &one, 1, &n), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_connection_receive(NULL, &one, 1), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_connection_poll_event(NULL, NULL), BC_ERR_NULL_POINTER);
    /* Outputs and data. */
    CHECK_ST(bc_decoder_decode(d, &one, 1, NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_decoder_decode(d, NULL, 1, &v), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_decoder_decode(d, NULL, 0, &v), BC_ERR_UNEXPECTED_END); /* empty input */
    CHECK_ST(bc_decoder_decode_prefix(d, &one, 1, &v, NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_encoder_write_string(e, NULL, 3), BC_ERR_NULL_POINTER);
    CHECK_OK(bc_encoder_write_string(e, NULL, 0)); /* "" */
    CHECK_ST(bc_encoder_write_bytes(e, NULL, 2), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_encoder_write_uuid(e, NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_encoder_write_value(e, NULL), BC_ERR_NULL_POINTER);
    /* Accessors. */
    int64_t i;
    CHECK_ST(bc_value_as_int(NULL, &i), BC_ERR_NULL_POINTER);
    CHECK_OK(bc_decoder_decode(d, &one, 1, &v));
    CHECK_ST(bc_value_as_int(v, NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_value_len(NULL, &n), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_value_map_get(NULL, "k", 1, &v), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_value_as_node(NULL, V58, NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_value_format(NULL, NULL, NULL, 0, NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_vector_get_int(NULL, 0, &i), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_decode_limits_default(NULL), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_connection_config_default(NULL), BC_ERR_NULL_POINTER);
    bool known;
    CHECK_ST(bc_version_is_known(V58, NULL), BC_ERR_NULL_POINTER);
    CHECK_OK(bc_version_is_known(V58, &known));
    CHECK(known);
    /* Freeing NULL is a no-op. */
    bc_decoder_free(NULL);
    bc_encoder_free(NULL);
    bc_dechunker_free(NULL);
    bc_connection_free(NULL);
    bc_client_handshake_free(NULL);
    bc_server_handshake_free(NULL);
    bc_decoder_free(d);
    bc_encoder_free(e);
}

/* ---------------------------------------------------------------------------------- */
/* Values and accessors                                                                */

/* Every scalar type: its own accessor works, every other one says BC_ERR_WRONG_TYPE and
 * leaves the output untouched. */
static void test_scalar_accessors(void) {
    bc_decoder *d = dec_new(BC_OPT_UUID);
    uint8_t buf[64];
    const bc_value *v;
    bool b = true;
    int64_t i = 77;
    double f = 7.5;
    const char *s = (const char *)buf;
    const uint8_t *bp = buf;
    size_t n = 77;
    uint8_t u[16] = {0};

    CHECK_OK(bc_decoder_decode(d, buf, hx("C0", buf), &v));
    CHECK(v->kind == BC_TYPE_NULL);
    CHECK_ST(bc_value_as_bool(v, &b), BC_ERR_WRONG_TYPE);
    CHECK_ST(bc_value_len(v, &n), BC_ERR_WRONG_TYPE);
    CHECK(b == true && n == 77);

    CHECK_OK(bc_decoder_decode(d, buf, hx("C2", buf), &v));
    CHECK_OK(bc_value_as_bool(v, &b));
    CHECK(b == false && v->kind == BC_TYPE_BOOL && v->data.b == false);
    CHECK_ST(bc_value_as_int(v, &i), BC_ERR_WRONG_TYPE);
    CHECK(i == 77);

    CHECK_OK(bc_decoder_decode(d, buf, hx("CB 80 00 00 00 00 00 00 00", buf), &v));
    CHECK_OK(bc_value_as_int(v, &i));
    CHECK(i == INT64_MIN && v->data.i == INT64_MIN);
    CHECK_ST(bc_value_as_float(v, &f), BC_ERR_WRONG_TYPE); /* no implicit conversion */
    CHECK(f == 7.5);

    CHECK_OK(bc_decoder_decode(d, buf, hx("C1 3F F8 00 00 00 00 00 00", buf), &v));
    CHECK_OK(bc_value_as_float(v, &f));
    CHECK(f == 1.5);
    CHECK_ST(bc_value_as_string(v, &s, &n), BC_ERR_WRONG_TYPE);

    CHECK_OK(bc_decoder_decode(d, buf, hx("85 68 C3 A9 6C 6C", buf), &v)); /* "héll" */
    CHECK_OK(bc_value_as_string(v, &s, &n));
    CHECK(n == 5 && memcmp(s, "h\xc3\xa9ll", 5) == 0);
    CHECK_OK(bc_value_len(v, &n));
    CHECK(n == 5);
    CHECK_ST(bc_value_as_bytes(v, &bp, &n), BC_ERR_WRONG_TYPE);

    CHECK_OK(bc_decoder_decode(d, buf, hx("CC 03 01 02 03", buf), &v));
    CHECK_OK(bc_value_as_bytes(v, &bp, &n));
    CHECK(n == 3 && bp[0] == 1 && bp[2] == 3);
    CHECK_ST(bc_value_as_uuid(v, u), BC_ERR_WRONG_TYPE);

    CHECK_OK(bc_decoder_decode(d, buf, hx("E0 550e8400e29b41d4a716446655440000", buf), &v));
    CHECK_OK(bc_value_as_uuid(v, u));
    CHECK(u[0] == 0x55 && u[15] == 0x00 && u[6] == 0x41 && v->len == 16);
    CHECK_OK(bc_value_len(v, &n));
    CHECK(n == 16);
    CHECK_ST(bc_value_list_get(v, 0, &v), BC_ERR_WRONG_TYPE);
    bc_decoder_free(d);
}

static void test_container_accessors(void) {
    bc_decoder *d = dec_new(0);
    uint8_t buf[128];
    const bc_value *v, *item = NULL, *val;
    const char *k;
    size_t n, kl;
    int64_t i;
    uint8_t tag;
    /* [1, "a", [], {}] */
    CHECK_OK(bc_decoder_decode(d, buf, hx("94 01 81 61 90 A0", buf), &v));
    CHECK_OK(bc_value_len(v, &n));
    CHECK(n == 4 && v->kind == BC_TYPE_LIST);
    CHECK_OK(bc_value_list_get(v, 0, &item));
    CHECK_OK(bc_value_as_int(item, &i));
    CHECK(i == 1);
    CHECK_OK(bc_value_list_get(v, 2, &item));
    CHECK(item->kind == BC_TYPE_LIST && item->len == 0);
    const bc_value *before = item;
    CHECK_ST(bc_value_list_get(v, 4, &item), BC_ERR_OUT_OF_RANGE);
    CHECK_ST(bc_value_list_get(v, SIZE_MAX, &item), BC_ERR_OUT_OF_RANGE);
    CHECK(item == before);
    CHECK_ST(bc_value_map_entry(v, 0, &k, &kl, &val), BC_ERR_WRONG_TYPE);
    CHECK_ST(bc_value_struct_tag(v, &tag), BC_ERR_WRONG_TYPE);

    /* {"a": 1, "b": 2, "a": 3}: duplicates kept in wire order; lookups: last wins. */
    CHECK_OK(bc_decoder_decode(d, buf, hx("A3 81 61 01 81 62 02 81 61 03", buf), &v));
    CHECK(v->len == 3 && v->kind == BC_TYPE_MAP);
    CHECK_OK(bc_value_map_entry(v, 2, &k, &kl, &val));
    CHECK(kl == 1 && k[0] == 'a' && val->data.i == 3);
    CHECK_OK(bc_value_map_entry(v, 1, NULL, NULL, &val)); /* key not wanted */
    CHECK(val->data.i == 2);
    CHECK_OK(bc_value_map_entry(v, 0, &k, &kl, NULL)); /* value not wanted */
    CHECK(k[0] == 'a');
    CHECK_ST(bc_value_map_entry(v, 0, &k, NULL, &val), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_value_map_entry(v, 3, &k, &kl, &val), BC_ERR_OUT_OF_RANGE);
    CHECK_ST(bc_value_map_entry(v, SIZE_MAX, &k, &kl, &val), BC_ERR_OUT_OF_RANGE);
    CHECK_OK(bc_value_map_get(v, "a", 1, &val));
    CHECK(val->data.i == 3);
    CHECK_OK(bc_value_map_get(v, "b", 1, &val));
    CHECK(val->data.i == 2);
    CHECK_ST(bc_value_map_get(v, "c", 1, &val), BC_ERR_NOT_FOUND);
    CHECK_ST(bc_value_map_get(v, "ab", 2, &val), BC_ERR_NOT_FOUND);
    CHECK_ST(bc_value_map_get(v, "b!", 2, &val), BC_ERR_NOT_FOUND);
    CHECK_ST(bc_value_map_get(v, NULL, 0, &val), BC_ERR_NOT_FOUND);
    CHECK_ST(bc_value_map_get(v, NULL, 1, &val), BC_ERR_NULL_POINTER);
    CHECK_ST(bc_value_list_get(v, 0, &val), BC_ERR_WRONG_TYPE);
    /* Raw layout: key, value, key, value. */
    CHECK(value_is_str(&v->data.items[2], "b") && v->data.items[3].data.i == 2);

    /* Structure 0x4E with 2 fields. */
    CHECK_OK(bc_decoder_decode(d, buf, hx("B2 4E 01 C3", buf), &v));
    CHECK_OK(bc_value_struct_tag(v, &tag));
    CHECK(tag == 0x4E && v->tag == 0x4E && v->len == 2);
    CHECK_OK(bc_value_struct_field(v, 1, &val));
    CHECK(val->kind == BC_TYPE_BOOL && val->data.b);
    CHECK_ST(bc_value_struct_field(v, 2, &val), BC_ERR_OUT_OF_RANGE);
    CHECK_OK(bc_value_len(v, &n));
    CHECK(n == 2);
    CHECK_ST(bc_value_map_get(v, "a", 1, &val), BC_ERR_WRONG_TYPE);
    bc_decoder_free(d);
}

static void test_copy_string_and_format(void) {
    bc_decoder *d = dec_new(0);
    uint8_t buf[128];
    const bc_value *v;
    char out[64];
    size_t needed = 0;
    CHECK_OK(bc_decoder_decode(d, buf, hx("85 68 65 6C 6C 6F", buf), &v)); /* "hello" */
    CHECK_ST(bc_value_copy_string(v, NULL, 0, &needed), BC_ERR_BUFFER_TOO_SMALL);
    CHECK(needed == 6);
    memset(out, 'x', sizeof out);
    CHECK_ST(bc_value_copy_string(v, out, 5, &needed), BC_ERR_BUFFER_TOO_SMALL);
    CHECK(out[0] == 'x'); /* not written */
    CHECK_OK(bc_value_copy_string(v, out, 6, &needed));
    CHECK(strcmp(out, "hello") == 0);
    CHECK_ST(bc_value_copy_string(v, NULL, 6, NULL), BC_ERR_NULL_POINTER);
    /* Formatting: {born: date("1990-05-17"), `first name`: "Bob", n: [1, 2.5, null]} */
    CHECK_OK(bc_decoder_decode(
        d, buf,
        hx("A3 84 62 6F 72 6E B1 44 C9 1D 11 8A 66 69 72 73 74 20 6E 61 6D 65 83 42 6F 62"
           " 81 6E 93 01 C1 40 04 00 00 00 00 00 00 C0",
           buf),
        &v));
    const char *want = "{born: date(\"1990-05-17\"), `first name`: \"Bob\", n: [1, 2.5, null]}";
    CHECK_ST(bc_value_format(v, NULL, NULL, 0, &needed), BC_ERR_BUFFER_TOO_SMALL);
    CHECK(needed == strlen(want) + 1);
    char big[256];
    CHECK_OK(bc_value_format(v, &V58, big, sizeof big, &needed));
    if (strcmp(big, want) != 0) FAILF("format: %s", big);
    bc_version bad = {5, 5, 0, {0}, 0};
    CHECK_ST(bc_value_format(v, &bad, big, sizeof big, NULL), BC_ERR_UNKNOWN_VERSION);
    bc_decoder_free(d);
}

/* ---------------------------------------------------------------------------------- */
/* Decoder                                                                             */

static void test_decoder_settings_and_errors(void) {
    bc_decoder *d = dec_new(0);
    bc_decode_limits lim, got;
    CHECK_OK(bc_decode_limits_default(&lim));
    CHECK(lim.max_depth == 1024 && lim.max_string_len == 2147483647u &&
          lim.max_total_elements == (1ull << 26));
    lim.max_depth = 2;
    CHECK_OK(bc_decoder_set_limits(d, &lim));
    CHECK_OK(bc_decoder_limits(d, &got));
    CHECK(got.max_depth == 2 && got.max_container_len == lim.max_container_len);
    CHECK_ST(bc_decoder_set_options(d, 8), BC_ERR_INVALID_ARGUMENT);
    CHECK_ST(bc_decoder_set_options(d, 0xFFFFFFFFu), BC_ERR_INVALID_ARGUMENT);
    uint8_t buf[32];
    const bc_value *v;
    bc_error err;
    CHECK_OK(bc_decoder_last_error(d, &err));
    CHECK(err.status == BC_ERR_INVALID_ARGUMENT && err.offset == -1 && strlen(err.message) > 0);
    /* [[[]]] is 3 deep. */
    CHECK_ST(bc_decoder_decode(d, buf, hx("91 91 90", buf), &v), BC_ERR_LIMIT_EXCEEDED);
    CHECK_OK(bc_decoder_last_error(d, &err));
    CHECK(err.status == BC_ERR_LIMIT_EXCEEDED && err.offset == 2);
    /* Success does not clear the last error; reset does. */
    CHECK_OK(bc_decoder_decode(d, buf, hx("91 90", buf), &v));
    CHECK_OK(bc_decoder_last_error(d, &err));
    CHECK(err.status == BC_ERR_LIMIT_EXCEEDED);
    CHECK_OK(bc_decoder_reset(d));
    CHECK_OK(bc_decoder_last_error(d, &err));
    CHECK(err.status == BC_OK && err.offset == -1 && err.message[0] == '\0');
    /* Prefix decoding stops after one value; exact decoding refuses the rest. */
    size_t used = 0;
    CHECK_OK(bc_decoder_decode_prefix(d, buf, hx("01 02 03", buf), &v, &used));
    CHECK(used == 1 && v->data.i == 1);
    CHECK_ST(bc_decoder_decode(d, buf, 3, &v), BC_ERR_TRAILING_BYTES);
    /* A cut-off value: unexpected end (a streaming caller waits for more). */
    CHECK_ST(bc_decoder_decode_prefix(d, buf, hx("85 68 65", buf), &v, &used),
             BC_ERR_UNEXPECTED_END);
    bc_decoder_free(d);
}

static void test_decode_all(void) {
    bc_decoder *d = dec_new(0);
    uint8_t buf[64];
    const bc_value *v;
    /* Three RECORDs end to end: B1 71 [i] for i = 1..3 */
    size_t n = hx("B1 71 91 01 B1 71 91 02 B1 71 91 03", buf);
    CHECK_OK(bc_decoder_decode_all(d, buf, n, &v));
    CHECK(v->kind == BC_TYPE_LIST && v->len == 3);
    for (uint32_t i = 0; i < 3; i++) {
        const bc_value *r = &v->data.items[i];
        CHECK(r->kind == BC_TYPE_STRUCT && r->tag == 0x71 && r->data.items[0].data.items[0].data.i == i + 1);
    }
    CHECK_OK(bc_decoder_decode_all(d, buf, 0, &v));
    CHECK(v->kind == BC_TYPE_LIST && v->len == 0);
    /* An error in the third value: offset counted from the start of the input. */
    n = hx("01 02 92 01", buf);
    CHECK_ST(bc_decoder_decode_all(d, buf, n, &v), BC_ERR_UNEXPECTED_END);
    bc_error err;
    bc_decoder_last_error(d, &err);
    CHECK(err.offset == 2 && strstr(err.message, "value 2") != NULL);
    /* With copied input. */
    CHECK_OK(bc_decoder_set_options(d, BC_OPT_COPY_INPUT));
    n = hx("81 61 81 62", buf);
    CHECK_OK(bc_decoder_decode_all(d, buf, n, &v));
    memset(buf, 0, sizeof buf);
    CHECK(v->len == 2 && value_is_str(&v->data.items[1], "b"));
    bc_decoder_free(d);
}

/* Lifetimes: a tree stays valid across calls on other handles and until the decoder
 * decodes again; with BC_OPT_COPY_INPUT it does not depend on the caller's buffer (the
 * buffer is freed here, and AddressSanitizer checks nothing reads it). Using a value
 * after the next decode, a reset or a free is documented as invalid and not done. */
static void test_lifetimes(void) {
    bc_decoder *d = dec_new(0); /* dec_new sets BC_OPT_COPY_INPUT */
    bc_decoder *other = dec_new(0);
    uint8_t *heap = malloc(16);
    size_t n = hx("92 85 61 62 63 64 65 CC 01 FF", heap);
    const bc_value *v, *w;
    CHECK_OK(bc_decoder_decode(d, heap, n, &v));
    free(heap);
    CHECK_OK(bc_decoder_decode(other, (const uint8_t *)"\x01", 1, &w));
    CHECK(v->len == 2 && value_is_str(&v->data.items[0], "abcde"));
    CHECK(v->data.items[1].data.bytes[0] == 0xFF);
    /* Zero copy: the strings point into the input. */
    CHECK_OK(bc_decoder_set_options(other, 0));
    uint8_t in[8];
    n = hx("83 61 62 63", in);
    CHECK_OK(bc_decoder_decode(other, in, n, &w));
    CHECK((const uint8_t *)w->data.s == in + 1);
    bc_decoder_free(d);
    bc_decoder_free(other);
}

/* Hostile input: deep nesting, huge claimed sizes and random bytes never crash. */
static void test_hostile_input(void) {
    bc_decoder *d = dec_new(0);
    const bc_value *v;
    size_t n = 1000000;
    uint8_t *deep = malloc(n);
    memset(deep, 0x91, n);
    CHECK_ST(bc_decoder_decode(d, deep, n, &v), BC_ERR_LIMIT_EXCEEDED);
    bc_decode_limits lim;
    bc_decode_limits_default(&lim);
    lim.max_depth = UINT32_MAX; /* no depth limit: still no stack overflow */
    CHECK_OK(bc_decoder_set_limits(d, &lim));
    CHECK_ST(bc_decoder_decode(d, deep, n, &v), BC_ERR_UNEXPECTED_END);
    deep[n - 1] = 0x90;
    CHECK_OK(bc_decoder_decode(d, deep, n, &v));
    size_t depth = 0;
    while (v->kind == BC_TYPE_LIST && v->len == 1) { v = &v->data.items[0]; depth++; }
    CHECK(depth == n - 1);
    free(deep);
    /* Nested headers that each claim nearly the whole input. */
    uint8_t claim[64 * 5];
    for (int i = 0; i < 64; i++) {
        claim[5 * i] = 0xD6;
        uint32_t c = (uint32_t)(sizeof claim - 5 * (size_t)i - 5);
        claim[5 * i + 1] = (uint8_t)(c >> 24);
        claim[5 * i + 2] = (uint8_t)(c >> 16);
        claim[5 * i + 3] = (uint8_t)(c >> 8);
        claim[5 * i + 4] = (uint8_t)c;
    }
    CHECK_ST(bc_decoder_decode(d, claim, sizeof claim, &v), BC_ERR_UNEXPECTED_END);
    /* A list that claims 2^31 - 1 items: above the default total, else cut short. */
    uint8_t big[] = {0xD6, 0x7F, 0xFF, 0xFF, 0xFF, 0x01};
    CHECK_ST(bc_decoder_decode(d, big, sizeof big, &v), BC_ERR_LIMIT_EXCEEDED);
    lim.max_total_elements = UINT64_MAX;
    CHECK_OK(bc_decoder_set_limits(d, &lim));
    CHECK_ST(bc_decoder_decode(d, big, sizeof big, &v), BC_ERR_UNEXPECTED_END);
    /* Random bytes: any status is fine, a crash is not. */
    uint32_t seed = 12345;
    uint8_t rnd[64];
    bc_dechunker *dc;
    CHECK_OK(bc_dechunker_new(&dc));
    for (int round = 0; round < 20000; round++) {
        size_t len = (size_t)(seed % 64);
        for (size_t i = 0; i < len; i++) {
            seed = seed * 1103515245u + 12345u;
            rnd[i] = (uint8_t)(seed >> 16);
        }
        seed = seed * 1103515245u + 12345u;
        if (bc_decoder_decode(d, rnd, len, &v) == BC_OK) CHECK(v != NULL);
        size_t count;
        if (bc_dechunker_feed(dc, rnd, len, &count) != BC_OK) bc_dechunker_reset(dc);
    }
    bc_dechunker_free(dc);
    bc_decoder_free(d);
}

/* ---------------------------------------------------------------------------------- */
/* Encoder and framing                                                                 */

static void test_encoder_values(void) {
    bc_encoder *e = enc_new(0);
    CHECK_OK(bc_encoder_write_map_header(e, 2));
    w_str(e, "name");
    w_str(e, "Alice");
    w_str(e, "age");
    CHECK_OK(bc_encoder_write_int(e, 33));
    CHECK(bytes_eq(e, "A2 84 6E 61 6D 65 85 41 6C 69 63 65 83 61 67 65 21"));
    CHECK_OK(bc_encoder_clear(e));
    /* Smallest integer forms, as the official drivers. */
    int64_t ints[] = {-16, -17, 127, 128, -129, 32768, INT64_MIN};
    for (size_t i = 0; i < 7; i++) CHECK_OK(bc_encoder_write_int(e, ints[i]));
    CHECK(bytes_eq(e, "F0 C8 EF 7F C9 00 80 C9 FF 7F CA 00 00 80 00 CB 80 00 00 00 00 00 00 00"));
    CHECK_OK(bc_encoder_clear(e));
    CHECK_OK(bc_encoder_write_null(e));
    CHECK_OK(bc_encoder_write_bool(e, true));
    CHECK_OK(bc_encoder_write_float(e, -0.0));
    CHECK_OK(bc_encoder_write_bytes(e, (const uint8_t *)"", 0));
    CHECK_OK(bc_encoder_write_struct_header(e, 0x44, 1));
    CHECK_OK(bc_encoder_write_int(e, 0));
    CHECK(bytes_eq(e, "C0 C3 C1 80 00 00 00 00 00 00 00 CC 00 B1 44 00"));
    bc_encoder_free(e);
}

/* The encoder's statuses: BC_ERR_NON_STRING_KEY, BC_ERR_INVALID_UTF8,
 * BC_ERR_SIZE_TOO_LARGE, BC_ERR_TOO_MANY_FIELDS, BC_ERR_UUID_NOT_ENABLED,
 * BC_ERR_INVALID_STATE, BC_ERR_EMPTY_MESSAGE, BC_ERR_INVALID_ARGUMENT,
 * BC_ERR_OUT_OF_RANGE; nothing is written on error. */
static void test_encoder_errors(void) {
    bc_encoder *e = enc_new(0);
    bc_error err;
    size_t depth;
    CHECK_OK(bc_encoder_write_map_header(e, 1));
    CHECK_ST(bc_encoder_write_int(e, 1), BC_ERR_NON_STRING_KEY);
    CHECK_ST(bc_encoder_write_list_header(e, 0), BC_ERR_NON_STRING_KEY);
    CHECK(bytes_eq(e, "A1"));
    CHECK_ST(bc_encoder_write_string(e, "ok\xff", 3), BC_ERR_INVALID_UTF8);
    CHECK_OK(bc_encoder_last_error(e, &err));
    CHECK(err.status == BC_ERR_INVALID_UTF8 && err.offset == 2);
    w_str(e, "k");
    CHECK_OK(bc_encoder_depth(e, &depth));
    CHECK(depth == 1);
    CHECK_ST(bc_encoder_begin_message(e), BC_ERR_INVALID_STATE); /* value incomplete */
    CHECK_OK(bc_encoder_write_list_header(e, 1));
    CHECK_OK(bc_encoder_depth(e, &depth));
    CHECK(depth == 2);
    CHECK_OK(bc_encoder_write_int(e, 5));
    CHECK_OK(bc_encoder_depth(e, &depth));
    CHECK(depth == 0);
    CHECK(bytes_eq(e, "A1 81 6B 91 05"));
    CHECK_ST(bc_encoder_write_list_header(e, (size_t)1 << 31), BC_ERR_SIZE_TOO_LARGE);
    CHECK_ST(bc_encoder_write_map_header(e, SIZE_MAX), BC_ERR_SIZE_TOO_LARGE);
    CHECK_ST(bc_encoder_write_struct_header(e, 0x10, 16), BC_ERR_TOO_MANY_FIELDS);
    uint8_t u[16] = {1};
    CHECK_ST(bc_encoder_write_uuid(e, u), BC_ERR_UUID_NOT_ENABLED);
    CHECK_ST(bc_encoder_set_options(e, 64), BC_ERR_INVALID_ARGUMENT);
    CHECK(bytes_eq(e, "A1 81 6B 91 05"));
    CHECK_OK(bc_encoder_set_options(e, BC_OPT_UUID | BC_OPT_LEGACY_STRUCTS));
    CHECK_OK(bc_encoder_write_uuid(e, u));
    CHECK_OK(bc_encoder_write_struct_header(e, 0x10, 16));
    for (int i = 0; i < 16; i++) CHECK_OK(bc_encoder_write_null(e));
    CHECK(bytes_eq(e, "A1 81 6B 91 05 E0 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
                      " DC 10 10 C0 C0 C0 C0 C0 C0 C0 C0 C0 C0 C0 C0 C0 C0 C0 C0"));
    CHECK_ST(bc_encoder_consume(e, 1000), BC_ERR_OUT_OF_RANGE);
    CHECK_OK(bc_encoder_consume(e, 5));
    const uint8_t *p;
    size_t n;
    CHECK_OK(bc_encoder_data(e, &p, &n));
    CHECK(n == 17 + 19 && p[0] == 0xE0);
    bc_encoder_free(e);
}

static void test_framing(void) {
    bc_encoder *e = enc_new(0);
    /* In place: RESET */
    CHECK_ST(bc_encoder_end_message(e, 0), BC_ERR_INVALID_STATE);
    CHECK_OK(bc_encoder_begin_message(e));
    CHECK_ST(bc_encoder_begin_message(e), BC_ERR_INVALID_STATE);
    CHECK_ST(bc_encoder_write_noop(e), BC_ERR_INVALID_STATE);
    CHECK_ST(bc_encoder_consume(e, 0), BC_ERR_INVALID_STATE);
    CHECK_OK(bc_encoder_write_struct_header(e, 0x0F, 0));
    CHECK_ST(bc_encoder_end_message(e, 70000), BC_ERR_INVALID_ARGUMENT);
    CHECK_OK(bc_encoder_end_message(e, 0));
    CHECK(bytes_eq(e, "00 02 B0 0F 00 00"));
    /* An empty message is dropped. */
    CHECK_OK(bc_encoder_begin_message(e));
    CHECK_ST(bc_encoder_end_message(e, 0), BC_ERR_EMPTY_MESSAGE);
    CHECK(bytes_eq(e, "00 02 B0 0F 00 00"));
    /* A message split into chunks of at most 4 bytes: PULL {"n": -1} */
    CHECK_OK(bc_encoder_begin_message(e));
    CHECK_OK(bc_encoder_write_struct_header(e, 0x3F, 1));
    CHECK_OK(bc_encoder_write_map_header(e, 1));
    w_str(e, "n");
    CHECK_OK(bc_encoder_write_int(e, -1));
    CHECK_OK(bc_encoder_end_message(e, 4));
    CHECK(bytes_eq(e, "00 02 B0 0F 00 00 00 04 B1 3F A1 81 00 02 6E FF 00 00"));
    CHECK_OK(bc_encoder_write_noop(e));
    /* Framing finished bytes. */
    uint8_t msg[] = {0xB0, 0x02};
    CHECK_ST(bc_encoder_write_framed(e, msg, 0, 0), BC_ERR_EMPTY_MESSAGE);
    CHECK_ST(bc_encoder_write_framed(e, msg, 2, 65536), BC_ERR_INVALID_ARGUMENT);
    CHECK_OK(bc_encoder_write_framed(e, msg, 2, 1));
    CHECK(bytes_eq(e, "00 02 B0 0F 00 00 00 04 B1 3F A1 81 00 02 6E FF 00 00 00 00"
                      " 00 01 B0 00 01 02 00 00"));
    CHECK_OK(bc_encoder_write_list_header(e, 1));
    CHECK_ST(bc_encoder_write_framed(e, msg, 2, 0), BC_ERR_INVALID_STATE);
    bc_encoder_free(e);
}

/* ---------------------------------------------------------------------------------- */
/* Dechunker                                                                           */

static void test_dechunker(void) {
    bc_dechunker *d;
    CHECK_OK(bc_dechunker_new(&d));
    uint8_t wire[64];
    /* RESET (one chunk), NOOP, PULL {"n": -1} in two chunks. */
    size_t n = hx("00 02 B0 0F 00 00 00 00 00 04 B1 3F A1 81 00 02 6E FF 00 00", wire);
    size_t count = 0;
    bc_message m;
    /* Fed in two pieces that split the second message. */
    CHECK_OK(bc_dechunker_feed(d, wire, 9, &count));
    CHECK(count == 1);
    CHECK_OK(bc_dechunker_message(d, 0, &m));
    CHECK(m.len == 2 && m.data == wire + 2 && !m.copied && m.stream_offset == 0 && m.chunk_count == 1);
    CHECK_ST(bc_dechunker_message(d, 1, &m), BC_ERR_OUT_OF_RANGE);
    CHECK_ST(bc_dechunker_end_of_stream(d), BC_ERR_TRUNCATED);
    bc_error err;
    bc_dechunker_last_error(d, &err);
    CHECK(err.status == BC_ERR_TRUNCATED && err.offset == 9);
    CHECK_OK(bc_dechunker_feed(d, wire + 9, n - 9, &count));
    CHECK(count == 1);
    CHECK_OK(bc_dechunker_message(d, 0, &m));
    CHECK(m.len == 6 && m.copied && m.chunk_count == 2 && m.stream_offset == 8);
    CHECK(m.data[0] == 0xB1 && m.data[5] == 0xFF);
    uint64_t noops = 0;
    CHECK_OK(bc_dechunker_noop_count(d, &noops));
    CHECK(noops == 1);
    CHECK_OK(bc_dechunker_end_of_stream(d));
    /* Decode the messages of one feed in one call. */
    CHECK_OK(bc_dechunker_feed(d, wire, n, &count));
    CHECK(count == 2);
    bc_message ms[2];
    CHECK_OK(bc_dechunker_message(d, 0, &ms[0]));
    CHECK_OK(bc_dechunker_message(d, 1, &ms[1]));
    bc_decoder *dec = dec_new(0);
    CHECK_OK(bc_decoder_set_options(dec, 0));
    const bc_value *v;
    CHECK_OK(bc_decoder_decode_messages(dec, ms, 2, &v));
    CHECK(v->len == 2 && v->data.items[0].tag == 0x0F && v->data.items[1].tag == 0x3F);
    CHECK(v->data.items[1].data.items[0].data.items[1].data.i == -1);
    CHECK_OK(bc_decoder_set_options(dec, BC_OPT_COPY_INPUT));
    CHECK_OK(bc_decoder_decode_messages(dec, ms, 2, &v));
    CHECK(v->len == 2 && v->data.items[1].data.items[0].data.items[1].data.i == -1);
    ms[1].len = 3; /* cut: B1 3F A1 */
    CHECK_ST(bc_decoder_decode_messages(dec, ms, 2, &v), BC_ERR_UNEXPECTED_END);
    CHECK_ST(bc_decoder_decode_messages(dec, NULL, 1, &v), BC_ERR_NULL_POINTER);
    CHECK_OK(bc_decoder_decode_messages(dec, NULL, 0, &v));
    CHECK(v->len == 0);
    bc_decoder_free(dec);

    /* Limits: a message above 4 bytes, a message of more than 1 chunk. */
    CHECK_OK(bc_dechunker_set_limits(d, 4, 0));
    CHECK_ST(bc_dechunker_feed(d, wire, n, &count), BC_ERR_MESSAGE_TOO_LARGE);
    CHECK(count == 1); /* RESET came before the error */
    bc_dechunker_last_error(d, &err);
    CHECK(err.offset == 14); /* the second chunk header of the third message */
    /* Poisoned until reset. */
    CHECK_ST(bc_dechunker_feed(d, wire, 6, &count), BC_ERR_MESSAGE_TOO_LARGE);
    CHECK_OK(bc_dechunker_reset(d));
    CHECK_OK(bc_dechunker_feed(d, wire, 6, &count));
    CHECK(count == 1);
    CHECK_OK(bc_dechunker_set_limits(d, 0, 1));
    CHECK_ST(bc_dechunker_feed(d, wire, n, &count), BC_ERR_TOO_MANY_CHUNKS);
    bc_dechunker_free(d);
}

/* ---------------------------------------------------------------------------------- */
/* Handshake                                                                           */

static void test_handshake_manifest(void) {
    bc_client_handshake *c;
    bc_server_handshake *s;
    CHECK_OK(bc_client_handshake_new(NULL, 0, 0, &c));
    CHECK_OK(bc_server_handshake_new(NULL, 0, 0, &s));
    uint8_t hello[20];
    CHECK_OK(bc_client_handshake_hello(c, hello));
    CHECK(hello[0] == 0x60 && hello[3] == 0x17 && hello[6] == 0x01 && hello[7] == 0xFF);
    bc_handshake_step st;
    /* Byte by byte: short reads are fine. */
    for (int i = 0; i < 19; i++) {
        CHECK_OK(bc_server_handshake_receive(s, hello + i, 1, &st));
        CHECK(st.kind == BC_STEP_NEED_MORE);
    }
    CHECK_OK(bc_server_handshake_receive(s, hello + 19, 1, &st));
    CHECK(st.kind == BC_STEP_CONTINUE && st.send_len > 4 && st.consumed == 1);
    uint8_t offer[1100];
    size_t offer_len = st.send_len;
    memcpy(offer, st.send, offer_len);
    CHECK_OK(bc_client_handshake_receive(c, offer, offer_len, &st));
    CHECK(st.kind == BC_STEP_NEGOTIATED && st.version.major == 6 && st.version.minor == 1);
    CHECK(st.consumed == offer_len);
    uint8_t pick[16];
    size_t pick_len = st.send_len;
    memcpy(pick, st.send, pick_len);
    CHECK_OK(bc_server_handshake_receive(s, pick, pick_len, &st));
    CHECK(st.kind == BC_STEP_NEGOTIATED && st.version.major == 6 && st.version.minor == 1);
    /* Finished: more bytes belong to the message stream. */
    CHECK_ST(bc_client_handshake_receive(c, pick, 1, &st), BC_ERR_INVALID_STATE);
    CHECK_ST(bc_server_handshake_receive(s, pick, 1, &st), BC_ERR_INVALID_STATE);
    bc_client_handshake_free(c);
    bc_server_handshake_free(s);
}

static void test_handshake_legacy_and_errors(void) {
    bc_client_handshake *c;
    bc_server_handshake *s;
    bc_version only44[] = {V44};
    CHECK_OK(bc_client_handshake_new(NULL, 0, BC_HANDSHAKE_LEGACY, &c));
    CHECK_OK(bc_server_handshake_new(only44, 1, BC_HANDSHAKE_LEGACY, &s));
    uint8_t hello[20];
    bc_handshake_step st;
    CHECK_OK(bc_client_handshake_hello(c, hello));
    CHECK(hello[7] == 0x06); /* 6.1-6.0 first, no manifest */
    CHECK_OK(bc_server_handshake_receive(s, hello, 20, &st));
    CHECK(st.kind == BC_STEP_NEGOTIATED && st.version.major == 4 && st.version.minor == 4 && st.send_len == 4);
    uint8_t reply[4];
    memcpy(reply, st.send, 4);
    /* The reply and the first message bytes in one read. */
    uint8_t more[6] = {reply[0], reply[1], reply[2], reply[3], 0x00, 0x00};
    CHECK_OK(bc_client_handshake_receive(c, more, 6, &st));
    CHECK(st.kind == BC_STEP_NEGOTIATED && st.version.minor == 4 && st.consumed == 4 && st.send_len == 0);
    bc_client_handshake_free(c);
    bc_server_handshake_free(s);

    /* Nothing in common: a server that only knows 3.0. */
    bc_version only30[] = {{3, 0, 0, {0}, 0}};
    CHECK_OK(bc_client_handshake_new(NULL, 0, 0, &c));
    CHECK_OK(bc_server_handshake_new(only30, 1, BC_HANDSHAKE_LEGACY, &s));
    CHECK_OK(bc_client_handshake_hello(c, hello));
    CHECK_OK(bc_server_handshake_receive(s, hello, 20, &st));
    CHECK(st.kind == BC_STEP_REJECTED && st.send_len == 4);
    memcpy(reply, st.send, 4);
    CHECK_OK(bc_client_handshake_receive(c, reply, 4, &st));
    CHECK(st.kind == BC_STEP_REJECTED);
    bc_client_handshake_free(c);
    bc_server_handshake_free(s);

    /* BC_ERR_HANDSHAKE: an HTTP server; bad magic; poisoned afterwards. */
    CHECK_OK(bc_client_handshake_new(NULL, 0, 0, &c));
    CHECK_ST(bc_client_handshake_receive(c, (const uint8_t *)"HTTP/1.1 400", 12, &st), BC_ERR_HANDSHAKE);
    CHECK_ST(bc_client_handshake_receive(c, reply, 4, &st), BC_ERR_HANDSHAKE);
    bc_error err;
    CHECK_OK(bc_client_handshake_last_error(c, &err));
    CHECK(err.status == BC_ERR_HANDSHAKE && err.offset == 0 && strstr(err.message, "HTTP"));
    bc_client_handshake_free(c);
    CHECK_OK(bc_server_handshake_new(NULL, 0, 0, &s));
    CHECK_ST(bc_server_handshake_receive(s, (const uint8_t *)"\x60\x60\xB0\x18", 4, &st), BC_ERR_HANDSHAKE);
    CHECK_OK(bc_server_handshake_last_error(s, &err));
    CHECK(err.offset == 3);
    bc_server_handshake_free(s);

    /* BC_ERR_INVALID_ARGUMENT: unknown flags; BC_ERR_UNKNOWN_VERSION: versions the
     * library does not know. */
    bc_version v55[] = {{5, 5, 0, {0}, 0}};
    CHECK_ST(bc_client_handshake_new(NULL, 0, 2, &c), BC_ERR_INVALID_ARGUMENT);
    CHECK_ST(bc_client_handshake_new(v55, 1, 0, &c), BC_ERR_UNKNOWN_VERSION);
    CHECK_ST(bc_server_handshake_new(v55, 1, 0, &s), BC_ERR_UNKNOWN_VERSION);
    CHECK_ST(bc_client_handshake_new(NULL, 1, 0, &c), BC_ERR_NULL_POINTER);
    bool known = true;
    CHECK_OK(bc_version_is_known(v55[0], &known));
    CHECK(!known);
}

/* Regression: a client given a version list with the manifest on offered the default
 * ranges (6.1-6.0, 5.8-5.0, 4.4) but accepted only the list, so a server without the
 * manifest picked a version of those ranges (5.8 here) and the client refused it with
 * BC_ERR_HANDSHAKE. It now offers the manifest, then the list's versions exactly, and a
 * server without the manifest can only pick one of them. */
static void test_handshake_list_offered_versions_the_client_refused(void) {
    bc_version only54[] = {{5, 4, 0, {0}, 0}};
    bc_version old_server_list[] = {V58, {5, 4, 0, {0}, 0}};
    bc_client_handshake *c;
    bc_server_handshake *s;
    CHECK_OK(bc_client_handshake_new(only54, 1, 0, &c));
    CHECK_OK(bc_server_handshake_new(old_server_list, 2, BC_HANDSHAKE_LEGACY, &s));
    uint8_t hello[20];
    CHECK_OK(bc_client_handshake_hello(c, hello));
    const uint8_t want[20] = {0x60, 0x60, 0xB0, 0x17, 0x00, 0x00, 0x01, 0xFF, 0x00, 0x00,
                              0x04, 0x05, 0, 0, 0, 0, 0, 0, 0, 0};
    CHECK(memcmp(hello, want, 20) == 0);
    bc_handshake_step st;
    CHECK_OK(bc_server_handshake_receive(s, hello, 20, &st));
    CHECK(st.kind == BC_STEP_NEGOTIATED && st.version.major == 5 && st.version.minor == 4);
    CHECK(st.send_len == 4);
    uint8_t reply[4];
    memcpy(reply, st.send, 4);
    CHECK_OK(bc_client_handshake_receive(c, reply, 4, &st));
    CHECK(st.kind == BC_STEP_NEGOTIATED && st.version.major == 5 && st.version.minor == 4);
    bc_client_handshake_free(c);
    bc_server_handshake_free(s);

    /* A server that picks a version the client did not offer is refused. */
    const uint8_t pick58[4] = {0x00, 0x00, 0x08, 0x05};
    CHECK_OK(bc_client_handshake_new(only54, 1, 0, &c));
    CHECK_ST(bc_client_handshake_receive(c, pick58, 4, &st), BC_ERR_HANDSHAKE);
    bc_error err;
    CHECK_OK(bc_client_handshake_last_error(c, &err));
    CHECK(err.status == BC_ERR_HANDSHAKE && err.offset >= 0);
    bc_client_handshake_free(c);

    /* The connection offers the same and agrees on 5.4 with that server; 5.8 is refused. */
    bc_connection_config cfg;
    CHECK_OK(bc_connection_config_default(&cfg));
    cfg.supported = only54;
    cfg.supported_len = 1;
    bc_connection *conn;
    CHECK_OK(bc_connection_new(&cfg, &conn));
    const uint8_t *p;
    size_t n;
    CHECK_OK(bc_connection_output(conn, &p, &n));
    CHECK(n == 20 && memcmp(p, want, 20) == 0);
    CHECK_OK(bc_server_handshake_new(old_server_list, 2, BC_HANDSHAKE_LEGACY, &s));
    CHECK_OK(bc_server_handshake_receive(s, p, n, &st));
    CHECK(st.kind == BC_STEP_NEGOTIATED && st.version.minor == 4 && st.send_len == 4);
    CHECK_OK(bc_connection_consume_output(conn, n));
    CHECK_OK(bc_connection_receive(conn, st.send, st.send_len));
    bc_event ev;
    CHECK_OK(bc_connection_poll_event(conn, &ev));
    CHECK(ev.kind == BC_EVENT_NEGOTIATED && ev.version.major == 5 && ev.version.minor == 4);
    bc_server_handshake_free(s);
    bc_connection_free(conn);
    CHECK_OK(bc_connection_new(&cfg, &conn));
    CHECK_ST(bc_connection_receive(conn, pick58, 4), BC_ERR_HANDSHAKE);
    bc_connection_free(conn);
}

/* Empty and unknown version lists are refused in every role with the core's kinds
 * (no_versions, unknown_version), as the Python and Node bindings refuse them; NULL
 * stands for the defaults. */
static void test_handshake_version_lists_refused_in_every_role(void) {
    bc_version list[] = {V58, {5, 5, 0, {0}, 0}};
    bc_version v99[] = {{9, 9, 0, {0}, 0}};
    bc_client_handshake *c = NULL;
    bc_server_handshake *s = NULL;
    bc_connection *conn = NULL;
    bc_connection_config cfg;
    CHECK_OK(bc_connection_config_default(&cfg));
    for (uint32_t flags = 0; flags <= BC_HANDSHAKE_LEGACY; flags++) {
        /* Empty: a list pointer with no entries. */
        CHECK_ST(bc_client_handshake_new(list, 0, flags, &c), BC_ERR_NO_VERSIONS);
        CHECK_ST(bc_server_handshake_new(list, 0, flags, &s), BC_ERR_NO_VERSIONS);
        cfg.flags = flags;
        cfg.supported = list;
        cfg.supported_len = 0;
        CHECK_ST(bc_connection_new(&cfg, &conn), BC_ERR_NO_VERSIONS);
        /* Unknown: 5.5 after a known version, and 9.9. */
        CHECK_ST(bc_client_handshake_new(list, 2, flags, &c), BC_ERR_UNKNOWN_VERSION);
        CHECK_ST(bc_server_handshake_new(list, 2, flags, &s), BC_ERR_UNKNOWN_VERSION);
        cfg.supported_len = 2;
        CHECK_ST(bc_connection_new(&cfg, &conn), BC_ERR_UNKNOWN_VERSION);
        CHECK_ST(bc_client_handshake_new(v99, 1, flags, &c), BC_ERR_UNKNOWN_VERSION);
        CHECK_ST(bc_server_handshake_new(v99, 1, flags, &s), BC_ERR_UNKNOWN_VERSION);
        cfg.supported = v99;
        cfg.supported_len = 1;
        CHECK_ST(bc_connection_new(&cfg, &conn), BC_ERR_UNKNOWN_VERSION);
        /* NULL: the defaults. */
        CHECK_OK(bc_client_handshake_new(NULL, 0, flags, &c));
        CHECK_OK(bc_server_handshake_new(NULL, 0, flags, &s));
        cfg.supported = NULL;
        cfg.supported_len = 0;
        CHECK_OK(bc_connection_new(&cfg, &conn));
        bc_client_handshake_free(c);
        bc_server_handshake_free(s);
        bc_connection_free(conn);
        c = NULL;
        s = NULL;
        conn = NULL;
    }
    CHECK(strcmp(bc_status_name(BC_ERR_NO_VERSIONS), "no_versions") == 0);
    CHECK(strcmp(bc_status_name(BC_ERR_UNKNOWN_VERSION), "unknown_version") == 0);
}

/* ---------------------------------------------------------------------------------- */
/* Connection against a scripted server                                                */

typedef struct {
    bc_connection *c;
    bc_server_handshake *hs;
    bc_dechunker *dch;
    bc_decoder *dec;
    bc_encoder *out;
    int negotiated;
    uint8_t requests[64]; /* signatures received, in order */
    int nreq;
} rig;

/* Feeds `n` bytes to the server side. */
static void server_receive(rig *r, const uint8_t *p, size_t n) {
    if (!r->negotiated) {
        bc_handshake_step st;
        CHECK_OK(bc_server_handshake_receive(r->hs, p, n, &st));
        if (st.kind == BC_STEP_CONTINUE || st.kind == BC_STEP_NEGOTIATED) {
            CHECK_OK(bc_connection_receive(r->c, st.send, st.send_len));
        }
        if (st.kind != BC_STEP_NEGOTIATED) return;
        r->negotiated = 1;
        p += st.consumed;
        n -= st.consumed;
    }
    size_t count = 0;
    CHECK_OK(bc_dechunker_feed(r->dch, p, n, &count));
    for (size_t i = 0; i < count; i++) {
        bc_message m;
        const bc_value *v;
        CHECK_OK(bc_dechunker_message(r->dch, i, &m));
        CHECK_OK(bc_decoder_decode(r->dec, m.data, m.len, &v));
        if (v && v->kind == BC_TYPE_STRUCT && r->nreq < 64) r->requests[r->nreq++] = v->tag;
    }
}

/* Moves the client's output to the server, as a socket would (in pieces of `piece`). */
static void pump(rig *r, size_t piece) {
    const uint8_t *p;
    size_t n;
    CHECK_OK(bc_connection_output(r->c, &p, &n));
    uint8_t copy[4096];
    if (n > sizeof copy) { FAILF("output too long"); return; }
    memcpy(copy, p, n);
    CHECK_OK(bc_connection_consume_output(r->c, n));
    for (size_t off = 0; off < n; off += piece) server_receive(r, copy + off, n - off < piece ? n - off : piece);
}

/* Sends what the server encoder holds to the client (in pieces of `piece`). */
static bc_status flush_server(rig *r, size_t piece) {
    const uint8_t *p;
    size_t n;
    bc_encoder_data(r->out, &p, &n);
    bc_status st = BC_OK;
    for (size_t off = 0; off < n && st == BC_OK; off += piece)
        st = bc_connection_receive(r->c, p + off, n - off < piece ? n - off : piece);
    bc_encoder_clear(r->out);
    return st;
}

static void srv_begin(rig *r, uint8_t sig, size_t fields) {
    CHECK_OK(bc_encoder_begin_message(r->out));
    CHECK_OK(bc_encoder_write_struct_header(r->out, sig, fields));
}
static void srv_end(rig *r) { CHECK_OK(bc_encoder_end_message(r->out, 0)); }

static void srv_success_empty(rig *r) {
    srv_begin(r, 0x70, 1);
    CHECK_OK(bc_encoder_write_map_header(r->out, 0));
    srv_end(r);
}

static void rig_open(rig *r, const bc_version *only) {
    memset(r, 0, sizeof *r);
    bc_connection_config cfg;
    CHECK_OK(bc_connection_config_default(&cfg));
    CHECK_OK(bc_connection_new(&cfg, &r->c));
    CHECK_OK(bc_server_handshake_new(only, only ? 1 : 0, 0, &r->hs));
    CHECK_OK(bc_dechunker_new(&r->dch));
    r->dec = dec_new(BC_OPT_UUID);
    r->out = enc_new(0);
}

static void rig_close(rig *r) {
    bc_connection_free(r->c);
    bc_server_handshake_free(r->hs);
    bc_dechunker_free(r->dch);
    bc_decoder_free(r->dec);
    bc_encoder_free(r->out);
}

static bc_event next_event(rig *r) {
    bc_event ev;
    CHECK_OK(bc_connection_poll_event(r->c, &ev));
    return ev;
}

static void test_connection_query(void) {
    rig r;
    rig_open(&r, NULL);
    bc_server_state state;
    CHECK_OK(bc_connection_state(r.c, &state));
    CHECK(state == BC_STATE_HANDSHAKE);
    CHECK_ST(bc_connection_send_reset(r.c), BC_ERR_NOT_NEGOTIATED);
    bc_version v;
    CHECK_ST(bc_connection_version(r.c, &v), BC_ERR_NOT_NEGOTIATED);
    pump(&r, 3); /* handshake, in 3-byte writes */
    pump(&r, 1); /* the manifest pick */
    bc_event ev = next_event(&r);
    CHECK(ev.kind == BC_EVENT_NEGOTIATED && ev.version.major == 6 && ev.version.minor == 1);
    CHECK(next_event(&r).kind == BC_EVENT_NONE);
    CHECK_OK(bc_connection_version(r.c, &v));
    CHECK(v.major == 6 && v.minor == 1);
    /* RUN before HELLO is refused before anything is written. */
    CHECK_ST(bc_connection_send_run(r.c, "RETURN 1", 8, NULL, 0, NULL, 0), BC_ERR_ILLEGAL_REQUEST);
    bool ok = true;
    CHECK_OK(bc_connection_can_send(r.c, BC_REQUEST_RUN, &ok));
    CHECK(!ok);
    CHECK_ST(bc_connection_can_send(r.c, 999, &ok), BC_ERR_INVALID_ARGUMENT);
    /* HELLO with extra entries (a bolt_agent map), LOGON, RUN with parameters, PULL. */
    bc_encoder *x = enc_new(0);
    CHECK_OK(bc_encoder_write_map_header(x, 1));
    w_str(x, "bolt_agent");
    CHECK_OK(bc_encoder_write_map_header(x, 1));
    w_str(x, "product");
    w_str(x, "boltcodec-c-test/1.0");
    const uint8_t *xp;
    size_t xn;
    CHECK_OK(bc_encoder_data(x, &xp, &xn));
    CHECK_OK(bc_connection_send_hello(r.c, "test/1.0", 8, xp, xn));
    CHECK_OK(bc_connection_send_logon_basic(r.c, "neo4j", 5, "secret", 6));
    CHECK_OK(bc_encoder_clear(x));
    CHECK_OK(bc_encoder_write_map_header(x, 1));
    w_str(x, "n");
    CHECK_OK(bc_encoder_write_int(x, 2));
    CHECK_OK(bc_encoder_data(x, &xp, &xn));
    CHECK_OK(bc_connection_send_run(r.c, "UNWIND range(1, $n) AS x RETURN x", 33, xp, xn, NULL, 0));
    CHECK_OK(bc_connection_send_pull(r.c, -1, -1));
    size_t pending = 0;
    CHECK_OK(bc_connection_pending_requests(r.c, &pending));
    CHECK(pending == 4);
    pump(&r, 5);
    CHECK(r.nreq == 4 && r.requests[0] == 0x01 && r.requests[1] == 0x6A && r.requests[2] == 0x10 &&
          r.requests[3] == 0x3F);
    /* The server answers; the client reads the bytes one at a time. */
    srv_success_empty(&r);
    srv_success_empty(&r);
    srv_begin(&r, 0x70, 1);
    CHECK_OK(bc_encoder_write_map_header(r.out, 1));
    w_str(r.out, "fields");
    CHECK_OK(bc_encoder_write_list_header(r.out, 1));
    w_str(r.out, "x");
    srv_end(&r);
    for (int i = 1; i <= 2; i++) {
        srv_begin(&r, 0x71, 1);
        CHECK_OK(bc_encoder_write_list_header(r.out, 1));
        CHECK_OK(bc_encoder_write_int(r.out, i));
        srv_end(&r);
    }
    srv_begin(&r, 0x70, 1);
    CHECK_OK(bc_encoder_write_map_header(r.out, 1));
    w_str(r.out, "type");
    w_str(r.out, "r");
    srv_end(&r);
    CHECK_OK(flush_server(&r, 1));

    ev = next_event(&r);
    CHECK(ev.kind == BC_EVENT_SUCCESS && ev.request == BC_REQUEST_HELLO && ev.value->kind == BC_TYPE_MAP);
    ev = next_event(&r);
    CHECK(ev.kind == BC_EVENT_SUCCESS && ev.request == BC_REQUEST_LOGON);
    ev = next_event(&r);
    CHECK(ev.kind == BC_EVENT_SUCCESS && ev.request == BC_REQUEST_RUN);
    const bc_value *fields;
    CHECK_OK(bc_value_map_get(ev.value, "fields", 6, &fields));
    CHECK(fields->len == 1 && value_is_str(&fields->data.items[0], "x"));
    for (int i = 1; i <= 2; i++) {
        ev = next_event(&r);
        CHECK(ev.kind == BC_EVENT_RECORD && ev.request == BC_REQUEST_PULL);
        CHECK(ev.value->kind == BC_TYPE_LIST && ev.value->len == 1 && ev.value->data.items[0].data.i == i);
    }
    /* An event stays valid across calls other than poll_event. */
    const bc_value *last_record = ev.value;
    CHECK_OK(bc_connection_state(r.c, &state));
    CHECK_OK(bc_connection_pending_requests(r.c, &pending));
    CHECK(last_record->data.items[0].data.i == 2);
    ev = next_event(&r);
    CHECK(ev.kind == BC_EVENT_SUCCESS && ev.request == BC_REQUEST_PULL);
    CHECK(next_event(&r).kind == BC_EVENT_NONE);
    CHECK_OK(bc_connection_state(r.c, &state));
    CHECK(state == BC_STATE_READY);
    CHECK_OK(bc_connection_can_send(r.c, BC_REQUEST_RUN, &ok));
    CHECK(ok);
    /* A transaction, then GOODBYE: the connection is defunct afterwards. */
    CHECK_OK(bc_connection_send_begin(r.c, NULL, 0));
    CHECK_OK(bc_connection_send_run(r.c, "RETURN 1", 8, NULL, 0, NULL, 0));
    CHECK_OK(bc_connection_send_discard(r.c, -1, -1));
    CHECK_OK(bc_connection_send_commit(r.c));
    CHECK_ST(bc_connection_send_rollback(r.c), BC_ERR_ILLEGAL_REQUEST);
    CHECK_OK(bc_connection_send_goodbye(r.c));
    CHECK_ST(bc_connection_send_reset(r.c), BC_ERR_DEFUNCT);
    CHECK_ST(bc_connection_consume_output(r.c, 100000), BC_ERR_OUT_OF_RANGE);
    pump(&r, 64);
    CHECK(r.nreq == 9 && r.requests[8] == 0x02);
    bc_encoder_free(x);
    rig_close(&r);
}

static void test_connection_failures(void) {
    rig r;
    rig_open(&r, NULL);
    pump(&r, 100);
    pump(&r, 100);
    CHECK(next_event(&r).kind == BC_EVENT_NEGOTIATED);
    CHECK_OK(bc_connection_send_hello(r.c, "t", 1, NULL, 0));
    CHECK_OK(bc_connection_send_logon_basic(r.c, "u", 1, "p", 1));
    CHECK_OK(bc_connection_send_run(r.c, "RETURN", 6, NULL, 0, NULL, 0));
    CHECK_OK(bc_connection_send_pull(r.c, 10, -1));
    pump(&r, 100);
    srv_success_empty(&r);
    srv_success_empty(&r);
    /* RUN fails, PULL is ignored. */
    srv_begin(&r, 0x7F, 1);
    CHECK_OK(bc_encoder_write_map_header(r.out, 2));
    w_str(r.out, "neo4j_code");
    w_str(r.out, "Neo.ClientError.Statement.SyntaxError");
    w_str(r.out, "message");
    w_str(r.out, "Invalid input");
    srv_end(&r);
    srv_begin(&r, 0x7E, 0);
    srv_end(&r);
    CHECK_OK(flush_server(&r, 7));
    CHECK(next_event(&r).kind == BC_EVENT_SUCCESS);
    CHECK(next_event(&r).kind == BC_EVENT_SUCCESS);
    bc_event ev = next_event(&r);
    CHECK(ev.kind == BC_EVENT_FAILURE && ev.request == BC_REQUEST_RUN);
    CHECK(ev.code && strcmp(ev.code, "Neo.ClientError.Statement.SyntaxError") == 0);
    CHECK(ev.message && strcmp(ev.message, "Invalid input") == 0);
    CHECK(ev.value && ev.value->kind == BC_TYPE_MAP && ev.value->len == 2);
    ev = next_event(&r);
    CHECK(ev.kind == BC_EVENT_IGNORED && ev.request == BC_REQUEST_PULL && ev.value == NULL);
    bc_server_state state;
    CHECK_OK(bc_connection_state(r.c, &state));
    CHECK(state == BC_STATE_FAILED);
    CHECK_OK(bc_connection_send_reset(r.c));
    CHECK_OK(bc_connection_state(r.c, &state));
    CHECK(state == BC_STATE_INTERRUPTED);
    /* Requests the library checks before sending them. */
    CHECK_ST(bc_connection_send_run(r.c, "\xff", 1, NULL, 0, NULL, 0), BC_ERR_INVALID_UTF8);
    uint8_t notmap[] = {0x91, 0x01};
    CHECK_ST(bc_connection_send_begin(r.c, notmap, 2), BC_ERR_WRONG_TYPE);
    uint8_t cut[] = {0xA1, 0x81};
    CHECK_ST(bc_connection_send_begin(r.c, cut, 2), BC_ERR_UNEXPECTED_END);
    uint8_t garbage[] = {0xB0, 0x55};
    CHECK_ST(bc_connection_send_message(r.c, garbage, 2), BC_ERR_PROTOCOL);
    uint8_t rollback[] = {0xB0, 0x13};
    CHECK_ST(bc_connection_send_message(r.c, rollback, 2), BC_ERR_ILLEGAL_REQUEST); /* READY after RESET */
    uint8_t run[] = {0xB3, 0x10, 0x80, 0xA0, 0xA0}; /* RUN "" {} {} */
    CHECK_OK(bc_connection_send_message(r.c, run, sizeof run));
    /* The server answers something nobody asked for: BC_ERR_PROTOCOL, then defunct. */
    srv_success_empty(&r); /* RESET */
    srv_success_empty(&r); /* RUN */
    srv_success_empty(&r); /* unexpected */
    CHECK_ST(flush_server(&r, 1000), BC_ERR_PROTOCOL);
    bc_error err;
    CHECK_OK(bc_connection_last_error(r.c, &err));
    CHECK(err.status == BC_ERR_PROTOCOL && err.offset > 0 && strstr(err.message, "SUCCESS"));
    CHECK(next_event(&r).kind == BC_EVENT_SUCCESS); /* events before the error are kept */
    CHECK_ST(bc_connection_receive(r.c, (const uint8_t *)"\x00\x00", 2), BC_ERR_DEFUNCT);
    CHECK_OK(bc_connection_state(r.c, &state));
    CHECK(state == BC_STATE_DEFUNCT);
    rig_close(&r);

    /* BC_ERR_NO_COMMON_VERSION and BC_ERR_HANDSHAKE through the connection. */
    bc_connection *c;
    CHECK_OK(bc_connection_new(NULL, &c));
    CHECK_ST(bc_connection_receive(c, (const uint8_t *)"\x00\x00\x00\x00", 4), BC_ERR_NO_COMMON_VERSION);
    bc_connection_free(c);
    CHECK_OK(bc_connection_new(NULL, &c));
    CHECK_ST(bc_connection_receive(c, (const uint8_t *)"HTTP", 4), BC_ERR_HANDSHAKE);
    bc_connection_free(c);
    /* Config errors. */
    bc_connection_config cfg;
    CHECK_OK(bc_connection_config_default(&cfg));
    cfg.flags = 4;
    CHECK_ST(bc_connection_new(&cfg, &c), BC_ERR_INVALID_ARGUMENT);
}

/* BC_ERR_NOT_IN_VERSION: TELEMETRY does not exist in Bolt 5.0. Also a legacy (4.4)
 * connection and the message-size limit (BC_ERR_MESSAGE_TOO_LARGE). */
static void test_connection_versions(void) {
    rig r;
    bc_version only50[] = {V50};
    rig_open(&r, only50);
    pump(&r, 100);
    pump(&r, 100);
    bc_event ev = next_event(&r);
    CHECK(ev.kind == BC_EVENT_NEGOTIATED && ev.version.major == 5 && ev.version.minor == 0);
    CHECK_OK(bc_connection_send_hello(r.c, "t", 1, NULL, 0));
    pump(&r, 100);
    srv_success_empty(&r);
    CHECK_OK(flush_server(&r, 100));
    CHECK(next_event(&r).kind == BC_EVENT_SUCCESS);
    uint8_t telemetry[] = {0xB1, 0x54, 0x01};
    CHECK_ST(bc_connection_send_message(r.c, telemetry, 3), BC_ERR_NOT_IN_VERSION);
    rig_close(&r);

    bc_connection_config cfg;
    CHECK_OK(bc_connection_config_default(&cfg));
    cfg.max_message_size = 8;
    bc_version only44[] = {V44};
    cfg.supported = only44;
    cfg.supported_len = 1;
    cfg.flags = BC_HANDSHAKE_LEGACY;
    bc_connection *c;
    CHECK_OK(bc_connection_new(&cfg, &c));
    const uint8_t *p;
    size_t n;
    CHECK_OK(bc_connection_output(c, &p, &n));
    /* A legacy client with a list offers its versions exactly: 4.4 alone. */
    CHECK(n == 20 && p[4] == 0 && p[6] == 4 && p[7] == 4 && p[8] == 0 && p[11] == 0);
    CHECK_OK(bc_connection_consume_output(c, 20));
    CHECK_OK(bc_connection_receive(c, (const uint8_t *)"\x00\x00\x04\x04", 4));
    bc_event e2;
    CHECK_OK(bc_connection_poll_event(c, &e2));
    CHECK(e2.kind == BC_EVENT_NEGOTIATED && e2.version.minor == 4);
    CHECK_OK(bc_connection_send_hello(c, "t", 1, NULL, 0));
    uint8_t big[] = {0x00, 0x10};
    CHECK_ST(bc_connection_receive(c, big, 2), BC_ERR_MESSAGE_TOO_LARGE);
    bc_connection_free(c);
}

/* ---------------------------------------------------------------------------------- */
/* Typed views of Bolt structures                                                      */

static void test_views_graph(void) {
    bc_decoder *d = dec_new(0);
    bc_encoder *e = enc_new(0);
    bc_node node;
    /* Node 5.x: (id, labels, properties, element_id) */
    CHECK_OK(bc_encoder_write_struct_header(e, 0x4E, 4));
    CHECK_OK(bc_encoder_write_int(e, 42));
    CHECK_OK(bc_encoder_write_list_header(e, 1));
    w_str(e, "Person");
    CHECK_OK(bc_encoder_write_map_header(e, 1));
    w_str(e, "name");
    w_str(e, "Alice");
    w_str(e, "4:db:42");
    const bc_value *v = decode_enc(d, e);
    CHECK_OK(bc_value_as_node(v, V58, &node));
    CHECK(node.id == 42 && node.labels->len == 1 && value_is_str(&node.labels->data.items[0], "Person"));
    const bc_value *name;
    CHECK_OK(bc_value_map_get(node.properties, "name", 4, &name));
    CHECK(value_is_str(name, "Alice"));
    CHECK(node.element_id.len == 7 && memcmp(node.element_id.ptr, "4:db:42", 7) == 0);
    bc_struct_kind kind = 0;
    CHECK_OK(bc_value_struct_kind(v, V58, &kind));
    CHECK(kind == BC_STRUCT_NODE);
    /* The same 4 fields are one too many for Bolt 4.4: broken there. */
    CHECK_ST(bc_value_as_node(v, V44, &node), BC_ERR_BROKEN_STRUCT);
    CHECK_OK(bc_value_struct_kind(v, V44, &kind));
    CHECK(kind == BC_STRUCT_BROKEN);
    char why[128];
    size_t needed;
    CHECK_OK(bc_value_broken_reason(v, V44, why, sizeof why, &needed));
    CHECK(strstr(why, "field") != NULL);
    CHECK_ST(bc_value_broken_reason(v, V44, why, 3, &needed), BC_ERR_BUFFER_TOO_SMALL);
    CHECK_ST(bc_value_broken_reason(v, V58, why, sizeof why, &needed), BC_ERR_WRONG_TYPE);
    /* Another kind, not a structure, unknown version. */
    bc_relationship rel;
    CHECK_ST(bc_value_as_relationship(v, V58, &rel), BC_ERR_WRONG_TYPE);
    CHECK_ST(bc_value_as_node(node.labels, V58, &node), BC_ERR_WRONG_TYPE);
    bc_version v70 = {7, 0, 0, {0}, 0};
    CHECK_ST(bc_value_as_node(v, v70, &node), BC_ERR_UNKNOWN_VERSION);
    CHECK_ST(bc_value_struct_kind(node.labels, V58, &kind), BC_ERR_WRONG_TYPE);

    /* Relationship 5.x */
    bc_encoder_clear(e);
    CHECK_OK(bc_encoder_write_struct_header(e, 0x52, 8));
    CHECK_OK(bc_encoder_write_int(e, 11));
    CHECK_OK(bc_encoder_write_int(e, 2));
    CHECK_OK(bc_encoder_write_int(e, 3));
    w_str(e, "KNOWS");
    CHECK_OK(bc_encoder_write_map_header(e, 0));
    w_str(e, "r11");
    w_str(e, "n2");
    w_str(e, "n3");
    v = decode_enc(d, e);
    CHECK_OK(bc_value_as_relationship(v, V58, &rel));
    CHECK(rel.id == 11 && rel.start_node_id == 2 && rel.end_node_id == 3);
    CHECK(rel.type_name.len == 5 && memcmp(rel.type_name.ptr, "KNOWS", 5) == 0);
    CHECK(rel.properties->kind == BC_TYPE_MAP && rel.end_node_element_id.len == 2);

    /* Path 4.4: nodes (1), (2), (3); rels r1, r2; indices: 1,1,-2,2 =
     * (1)-[r1]->(2)<-[r2]-(3). */
    bc_encoder_clear(e);
    CHECK_OK(bc_encoder_write_struct_header(e, 0x50, 3));
    CHECK_OK(bc_encoder_write_list_header(e, 3));
    for (int i = 1; i <= 3; i++) {
        CHECK_OK(bc_encoder_write_struct_header(e, 0x4E, 3));
        CHECK_OK(bc_encoder_write_int(e, i));
        CHECK_OK(bc_encoder_write_list_header(e, 0));
        CHECK_OK(bc_encoder_write_map_header(e, 0));
    }
    CHECK_OK(bc_encoder_write_list_header(e, 2));
    for (int i = 1; i <= 2; i++) {
        CHECK_OK(bc_encoder_write_struct_header(e, 0x72, 3));
        CHECK_OK(bc_encoder_write_int(e, 100 + i));
        w_str(e, i == 1 ? "A" : "B");
        CHECK_OK(bc_encoder_write_map_header(e, 0));
    }
    CHECK_OK(bc_encoder_write_list_header(e, 4));
    CHECK_OK(bc_encoder_write_int(e, 1));
    CHECK_OK(bc_encoder_write_int(e, 1));
    CHECK_OK(bc_encoder_write_int(e, -2));
    CHECK_OK(bc_encoder_write_int(e, 2));
    v = decode_enc(d, e);
    bc_path path;
    CHECK_OK(bc_value_as_path(v, V44, &path));
    CHECK(path.length == 2 && path.nodes->len == 3 && path.relationships->len == 2 && path.indices->len == 4);
    bc_path_segment seg;
    CHECK_OK(bc_path_get_segment(v, V44, 1, &seg));
    bc_node start, end;
    bc_unbound_relationship ur;
    CHECK_OK(bc_value_as_node(seg.start, V44, &start));
    CHECK_OK(bc_value_as_node(seg.end, V44, &end));
    CHECK_OK(bc_value_as_unbound_relationship(seg.relationship, V44, &ur));
    CHECK(start.id == 2 && end.id == 3 && ur.id == 102 && seg.reversed);
    CHECK(start.element_id.ptr == NULL); /* no element ids before 5.0 */
    CHECK_ST(bc_path_get_segment(v, V44, 2, &seg), BC_ERR_OUT_OF_RANGE);
    bc_encoder_free(e);
    bc_decoder_free(d);
}

static void test_views_temporal_spatial(void) {
    bc_decoder *d = dec_new(0);
    bc_encoder *e = enc_new(0);
    bc_temporal t;
    const bc_value *v;
    /* Date 1990-05-17 */
    CHECK_OK(bc_encoder_write_struct_header(e, 0x44, 1));
    CHECK_OK(bc_encoder_write_int(e, 7441));
    v = decode_enc(d, e);
    CHECK_OK(bc_value_as_temporal(v, V58, &t));
    CHECK(t.kind == BC_STRUCT_DATE && t.days == 7441 && t.year == 1990 && t.month == 5 && t.day == 17);
    /* DateTime (UTC seconds) 2024-02-29T12:34:56.5+01:00 = 1709206496 - 3600 UTC */
    bc_encoder_clear(e);
    CHECK_OK(bc_encoder_write_struct_header(e, 0x49, 3));
    CHECK_OK(bc_encoder_write_int(e, 1709210096 - 3600));
    CHECK_OK(bc_encoder_write_int(e, 500000000));
    CHECK_OK(bc_encoder_write_int(e, 3600));
    v = decode_enc(d, e);
    CHECK_OK(bc_value_as_temporal(v, V58, &t));
    CHECK(t.kind == BC_STRUCT_DATE_TIME && t.has_tz_offset && t.tz_offset_seconds == 3600);
    CHECK(t.year == 2024 && t.month == 2 && t.day == 29 && t.hour == 12 && t.minute == 34 && t.second == 56);
    CHECK(t.nanosecond == 500000000);
    /* The UTC DateTime does not exist in 4.4 without the utc patch; with it, it does. */
    CHECK_ST(bc_value_as_temporal(v, V44, &t), BC_ERR_BROKEN_STRUCT);
    bc_version v44utc = {4, 4, 1, {0}, 0};
    CHECK_OK(bc_value_as_temporal(v, v44utc, &t));
    /* DateTimeZoneId, LocalTime, Time, Duration, LocalDateTime, legacy DateTime on 4.4. */
    bc_encoder_clear(e);
    CHECK_OK(bc_encoder_write_struct_header(e, 0x69, 3));
    CHECK_OK(bc_encoder_write_int(e, 0));
    CHECK_OK(bc_encoder_write_int(e, 0));
    w_str(e, "Europe/Stockholm");
    v = decode_enc(d, e);
    CHECK_OK(bc_value_as_temporal(v, V58, &t));
    CHECK(t.kind == BC_STRUCT_DATE_TIME_ZONE_ID && t.tz_id.len == 16 && !t.has_tz_offset && t.year == 1970);
    bc_encoder_clear(e);
    CHECK_OK(bc_encoder_write_struct_header(e, 0x74, 1));
    CHECK_OK(bc_encoder_write_int(e, 45296789000000LL)); /* 12:34:56.789 */
    v = decode_enc(d, e);
    CHECK_OK(bc_value_as_temporal(v, V58, &t));
    CHECK(t.kind == BC_STRUCT_LOCAL_TIME && t.hour == 12 && t.minute == 34 && t.second == 56 &&
          t.nanosecond == 789000000);
    bc_encoder_clear(e);
    CHECK_OK(bc_encoder_write_struct_header(e, 0x54, 2));
    CHECK_OK(bc_encoder_write_int(e, 3600000000000LL));
    CHECK_OK(bc_encoder_write_int(e, -30600));
    v = decode_enc(d, e);
    CHECK_OK(bc_value_as_temporal(v, V58, &t));
    CHECK(t.kind == BC_STRUCT_TIME && t.hour == 1 && t.tz_offset_seconds == -30600);
    bc_encoder_clear(e);
    CHECK_OK(bc_encoder_write_struct_header(e, 0x45, 4));
    CHECK_OK(bc_encoder_write_int(e, 14));
    CHECK_OK(bc_encoder_write_int(e, 3));
    CHECK_OK(bc_encoder_write_int(e, 14706));
    CHECK_OK(bc_encoder_write_int(e, 789000000));
    v = decode_enc(d, e);
    CHECK_OK(bc_value_as_temporal(v, V58, &t));
    CHECK(t.kind == BC_STRUCT_DURATION && t.months == 14 && t.days == 3 && t.seconds == 14706);
    char text[64];
    CHECK_OK(bc_value_format(v, &V58, text, sizeof text, NULL));
    CHECK(strcmp(text, "duration(\"P1Y2M3DT4H5M6.789S\")") == 0);
    bc_encoder_clear(e);
    CHECK_OK(bc_encoder_write_struct_header(e, 0x64, 2));
    CHECK_OK(bc_encoder_write_int(e, -2208988800LL)); /* 1900-01-01 */
    CHECK_OK(bc_encoder_write_int(e, 0));
    v = decode_enc(d, e);
    CHECK_OK(bc_value_as_temporal(v, V58, &t));
    CHECK(t.kind == BC_STRUCT_LOCAL_DATE_TIME && t.year == 1900 && t.month == 1 && t.day == 1);
    bc_encoder_clear(e);
    CHECK_OK(bc_encoder_write_struct_header(e, 0x46, 3));
    CHECK_OK(bc_encoder_write_int(e, 8100));
    CHECK_OK(bc_encoder_write_int(e, 42));
    CHECK_OK(bc_encoder_write_int(e, 3600));
    v = decode_enc(d, e);
    CHECK_OK(bc_value_as_temporal(v, V44, &t));
    CHECK(t.kind == BC_STRUCT_LEGACY_DATE_TIME && t.hour == 2 && t.minute == 15 && t.nanosecond == 42);
    CHECK_ST(bc_value_as_temporal(v, V50, &t), BC_ERR_BROKEN_STRUCT);
    bc_point p;
    CHECK_ST(bc_value_as_point(v, V44, &p), BC_ERR_WRONG_TYPE);
    /* Points. */
    bc_encoder_clear(e);
    CHECK_OK(bc_encoder_write_struct_header(e, 0x59, 4));
    CHECK_OK(bc_encoder_write_int(e, 4979));
    CHECK_OK(bc_encoder_write_float(e, -122.5));
    CHECK_OK(bc_encoder_write_float(e, 37.75));
    CHECK_OK(bc_encoder_write_float(e, 15.5));
    v = decode_enc(d, e);
    CHECK_OK(bc_value_as_point(v, V58, &p));
    CHECK(p.srid == 4979 && p.x == -122.5 && p.y == 37.75 && p.z == 15.5 && p.has_z);
    bc_encoder_clear(e);
    CHECK_OK(bc_encoder_write_struct_header(e, 0x58, 3));
    CHECK_OK(bc_encoder_write_int(e, 7203));
    CHECK_OK(bc_encoder_write_float(e, 1.0));
    CHECK_OK(bc_encoder_write_float(e, 2.0));
    v = decode_enc(d, e);
    CHECK_OK(bc_value_as_point(v, V58, &p));
    CHECK(p.srid == 7203 && !p.has_z && p.y == 2.0);
    CHECK_ST(bc_value_as_temporal(v, V58, &t), BC_ERR_WRONG_TYPE);
    bc_encoder_free(e);
    bc_decoder_free(d);
}

static void test_views_vector_unsupported(void) {
    bc_decoder *d = dec_new(0);
    bc_encoder *e = enc_new(0);
    bc_vector vec;
    int64_t i;
    double f;
    /* Vector<i16> [1, -2] */
    CHECK_OK(bc_encoder_write_struct_header(e, 0x56, 2));
    uint8_t marker = 0xC9;
    CHECK_OK(bc_encoder_write_bytes(e, &marker, 1));
    uint8_t data[] = {0x00, 0x01, 0xFF, 0xFE};
    CHECK_OK(bc_encoder_write_bytes(e, data, 4));
    const bc_value *v = decode_enc(d, e);
    CHECK_OK(bc_value_as_vector(v, V60, &vec));
    CHECK(vec.element_type == BC_VECTOR_I16 && vec.len == 2 && vec.data_len == 4);
    CHECK_OK(bc_vector_get_int(&vec, 1, &i));
    CHECK(i == -2);
    CHECK_ST(bc_vector_get_int(&vec, 2, &i), BC_ERR_OUT_OF_RANGE);
    CHECK_ST(bc_vector_get_float(&vec, 0, &f), BC_ERR_WRONG_TYPE);
    bc_vector forged = vec;
    forged.element_type = 99;
    CHECK_ST(bc_vector_get_int(&forged, 0, &i), BC_ERR_INVALID_ARGUMENT);
    CHECK_ST(bc_value_as_vector(v, V58, &vec), BC_ERR_BROKEN_STRUCT); /* Vector is 6.0+ */
    /* Vector<f32> [1.5] and Vector<f64> [-0.25] */
    uint8_t types[] = {0xC6, 0xC1};
    uint8_t f32[] = {0x3F, 0xC0, 0x00, 0x00};
    uint8_t f64[] = {0xBF, 0xD0, 0, 0, 0, 0, 0, 0};
    for (int k = 0; k < 2; k++) {
        bc_encoder_clear(e);
        CHECK_OK(bc_encoder_write_struct_header(e, 0x56, 2));
        CHECK_OK(bc_encoder_write_bytes(e, &types[k], 1));
        CHECK_OK(bc_encoder_write_bytes(e, k ? f64 : f32, k ? 8 : 4));
        v = decode_enc(d, e);
        CHECK_OK(bc_value_as_vector(v, V60, &vec));
        CHECK_OK(bc_vector_get_float(&vec, 0, &f));
        CHECK(f == (k ? -0.25 : 1.5));
    }
    /* An element type marker that does not exist. */
    bc_encoder_clear(e);
    CHECK_OK(bc_encoder_write_struct_header(e, 0x56, 2));
    marker = 0x01;
    CHECK_OK(bc_encoder_write_bytes(e, &marker, 1));
    CHECK_OK(bc_encoder_write_bytes(e, data, 4));
    v = decode_enc(d, e);
    CHECK_ST(bc_value_as_vector(v, V60, &vec), BC_ERR_BROKEN_STRUCT);
    /* UnsupportedType("UUID", 6, 1, {message: "needs Bolt 6.1"}) */
    bc_encoder_clear(e);
    CHECK_OK(bc_encoder_write_struct_header(e, 0x3F, 4));
    w_str(e, "UUID");
    CHECK_OK(bc_encoder_write_int(e, 6));
    CHECK_OK(bc_encoder_write_int(e, 1));
    CHECK_OK(bc_encoder_write_map_header(e, 1));
    w_str(e, "message");
    w_str(e, "needs Bolt 6.1");
    v = decode_enc(d, e);
    bc_unsupported u;
    CHECK_OK(bc_value_as_unsupported(v, V60, &u));
    CHECK(u.name.len == 4 && u.minimum_version.major == 6 && u.minimum_version.minor == 1);
    CHECK(u.message.len == 14 && u.extra->len == 1);
    bc_struct_kind kind;
    CHECK_OK(bc_value_struct_kind(v, V60, &kind));
    CHECK(kind == BC_STRUCT_UNSUPPORTED);
    /* An unknown tag is broken, and not any kind. */
    bc_encoder_clear(e);
    CHECK_OK(bc_encoder_write_struct_header(e, 0x5A, 0));
    v = decode_enc(d, e);
    CHECK_OK(bc_value_struct_kind(v, V60, &kind));
    CHECK(kind == BC_STRUCT_BROKEN);
    bc_node node;
    CHECK_ST(bc_value_as_node(v, V60, &node), BC_ERR_WRONG_TYPE);
    bc_encoder_free(e);
    bc_decoder_free(d);
}

/* Every value type survives decode -> write_value -> decode. */
/* Regression: the functions that take one version (the structure views,
 * bc_value_format) returned BC_ERR_INVALID_ARGUMENT for a version the library does not
 * know, where the version lists of the handshake and connection give
 * BC_ERR_UNKNOWN_VERSION. The version is checked first: a structure of any kind, even
 * one of another kind than the view's, gives the same status, and nothing is written. */
static void test_single_version_functions_gave_invalid_argument_for_an_unknown_version(void) {
    bc_decoder *d = dec_new(0);
    bc_encoder *e = enc_new(0);
    /* Node 5.x: (id, labels, properties, element_id) */
    CHECK_OK(bc_encoder_write_struct_header(e, 0x4E, 4));
    CHECK_OK(bc_encoder_write_int(e, 42));
    CHECK_OK(bc_encoder_write_list_header(e, 0));
    CHECK_OK(bc_encoder_write_map_header(e, 0));
    w_str(e, "4:db:42");
    const bc_value *v = decode_enc(d, e);
    const bc_version unknown[] = {{5, 5, 0, {0}, 0}, {7, 0, 0, {0}, 0}, {9, 9, 0, {0}, 0}};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const bc_version u = unknown[i];
        bool known = true;
        CHECK_OK(bc_version_is_known(u, &known));
        CHECK(!known);
        bc_struct_kind kind = 0xEE;
        CHECK_ST(bc_value_struct_kind(v, u, &kind), BC_ERR_UNKNOWN_VERSION);
        char why[64];
        size_t needed = 0;
        CHECK_ST(bc_value_broken_reason(v, u, why, sizeof why, &needed), BC_ERR_UNKNOWN_VERSION);
        bc_node node;
        CHECK_ST(bc_value_as_node(v, u, &node), BC_ERR_UNKNOWN_VERSION);
        bc_relationship rel;
        CHECK_ST(bc_value_as_relationship(v, u, &rel), BC_ERR_UNKNOWN_VERSION);
        bc_unbound_relationship urel;
        CHECK_ST(bc_value_as_unbound_relationship(v, u, &urel), BC_ERR_UNKNOWN_VERSION);
        bc_path path;
        CHECK_ST(bc_value_as_path(v, u, &path), BC_ERR_UNKNOWN_VERSION);
        bc_path_segment seg;
        CHECK_ST(bc_path_get_segment(v, u, 0, &seg), BC_ERR_UNKNOWN_VERSION);
        bc_temporal t;
        CHECK_ST(bc_value_as_temporal(v, u, &t), BC_ERR_UNKNOWN_VERSION);
        bc_point p;
        CHECK_ST(bc_value_as_point(v, u, &p), BC_ERR_UNKNOWN_VERSION);
        bc_vector vec;
        CHECK_ST(bc_value_as_vector(v, u, &vec), BC_ERR_UNKNOWN_VERSION);
        bc_unsupported uns;
        CHECK_ST(bc_value_as_unsupported(v, u, &uns), BC_ERR_UNKNOWN_VERSION);
        char text[64];
        memset(text, 'x', sizeof text);
        CHECK_ST(bc_value_format(v, &u, text, sizeof text, NULL), BC_ERR_UNKNOWN_VERSION);
        CHECK(text[0] == 'x'); /* not written */
        CHECK(kind == 0xEE);    /* not written */
    }
    /* The same calls with a known version. */
    bc_struct_kind kind = 0;
    CHECK_OK(bc_value_struct_kind(v, V58, &kind));
    CHECK(kind == BC_STRUCT_NODE);
    bc_node node;
    CHECK_OK(bc_value_as_node(v, V58, &node));
    CHECK(node.id == 42);
    char text[64];
    CHECK_OK(bc_value_format(v, &V58, text, sizeof text, NULL));
    bc_encoder_free(e);
    bc_decoder_free(d);
}

static void test_write_value_roundtrip(void) {
    bc_decoder *d = dec_new(BC_OPT_UUID);
    bc_encoder *e = enc_new(BC_OPT_UUID);
    uint8_t buf[128];
    size_t n = hx("B4 4E 94 C0 C3 C9 01 00 C1 3F F0 00 00 00 00 00 00 A2 81 61 CC 02 00 01"
                  " 81 62 E0 00112233445566778899AABBCCDDEEFF 93 90 A0 B0 7F 83 78 79 7A",
                  buf);
    const bc_value *v;
    CHECK_OK(bc_decoder_decode(d, buf, n, &v));
    CHECK_OK(bc_encoder_write_list_header(e, 1));
    CHECK_OK(bc_encoder_write_value(e, v));
    const uint8_t *p;
    size_t m;
    CHECK_OK(bc_encoder_data(e, &p, &m));
    CHECK(m == n + 1 && p[0] == 0x91 && memcmp(p + 1, buf, n) == 0);
    /* A non-string value where a key is due writes nothing. */
    CHECK_OK(bc_encoder_clear(e));
    CHECK_OK(bc_encoder_write_map_header(e, 1));
    CHECK_ST(bc_encoder_write_value(e, v), BC_ERR_NON_STRING_KEY);
    /* A UUID inside a value without the option: the whole write is undone. */
    CHECK_OK(bc_encoder_clear(e));
    CHECK_OK(bc_encoder_set_options(e, 0));
    CHECK_ST(bc_encoder_write_value(e, v), BC_ERR_UUID_NOT_ENABLED);
    CHECK_OK(bc_encoder_data(e, &p, &m));
    CHECK(m == 0);
    /* The same inside an open list: the list still needs both of its items. */
    CHECK_OK(bc_encoder_write_list_header(e, 2));
    CHECK_ST(bc_encoder_write_value(e, v), BC_ERR_UUID_NOT_ENABLED);
    size_t depth = 0;
    CHECK_OK(bc_encoder_depth(e, &depth));
    CHECK(depth == 1);
    CHECK_OK(bc_encoder_write_int(e, 1));
    CHECK_OK(bc_encoder_write_int(e, 2));
    CHECK_OK(bc_encoder_depth(e, &depth));
    CHECK(depth == 0);
    CHECK_OK(bc_encoder_data(e, &p, &m));
    CHECK(m == 3 && p[0] == 0x92 && p[1] == 0x01 && p[2] == 0x02);
    /* Encoder errors carry no offset. */
    CHECK_OK(bc_encoder_write_map_header(e, 1));
    CHECK_ST(bc_encoder_write_int(e, 1), BC_ERR_NON_STRING_KEY);
    bc_error err;
    CHECK_OK(bc_encoder_last_error(e, &err));
    CHECK(err.status == BC_ERR_NON_STRING_KEY && err.offset == -1);
    bc_encoder_free(e);
    bc_decoder_free(d);
}

int main(void) {
    RUN(test_status_names);
    RUN(test_panic_guard);
    RUN(test_null_pointers);
    RUN(test_scalar_accessors);
    RUN(test_container_accessors);
    RUN(test_copy_string_and_format);
    RUN(test_decoder_settings_and_errors);
    RUN(test_decode_all);
    RUN(test_lifetimes);
    RUN(test_hostile_input);
    RUN(test_encoder_values);
    RUN(test_encoder_errors);
    RUN(test_framing);
    RUN(test_dechunker);
    RUN(test_handshake_manifest);
    RUN(test_handshake_legacy_and_errors);
    RUN(test_handshake_list_offered_versions_the_client_refused);
    RUN(test_handshake_version_lists_refused_in_every_role);
    RUN(test_connection_query);
    RUN(test_connection_failures);
    RUN(test_connection_versions);
    RUN(test_views_graph);
    RUN(test_views_temporal_spatial);
    RUN(test_views_vector_unsupported);
    RUN(test_single_version_functions_gave_invalid_argument_for_an_unknown_version);
    RUN(test_write_value_roundtrip);
    return h_finish();
}
