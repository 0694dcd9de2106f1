/*
 * The language-neutral test vectors (tests/vectors/packstream.json, see its README)
 * through the C API. For every case:
 *
 *   valid        decode(bytes) gives the value, exactly one value, consuming every byte
 *                (also with BC_OPT_COPY_INPUT and through bc_decoder_decode_prefix);
 *                encoding the value with the bc_encoder calls gives the bytes; writing the
 *                decoded tree back (bc_encoder_write_value) gives the bytes.
 *   decode_only  decode(bytes) gives the value; encoding gives canonical_hex, and so does
 *                writing the decoded tree back.
 *   invalid      decode(bytes) fails with the vector's error kind (bc_status_name) at its
 *                byte offset (bc_decoder_last_error).
 *
 *   test_vectors [PATH]     (default: $BOLTCODEC_VECTORS, else ../../tests/vectors/...)
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "json.h"

/* ---------------------------------------------------------------------------------- */
/* Bytes                                                                              */

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Appends the bytes of a hex string; returns the new length. */
static size_t put_hex(uint8_t *out, size_t n, const char *hex) {
    for (size_t i = 0; hex[i] && hex[i + 1]; i += 2)
        out[n++] = (uint8_t)(hex_digit(hex[i]) * 16 + hex_digit(hex[i + 1]));
    return n;
}

/* The bytes of `key` ("hex") or `key`_parts ("hex_parts"); NULL if the case has neither. */
static uint8_t *case_bytes(const json *c, const char *key, size_t *len) {
    const char *hex = json_get_str(c, key);
    if (hex) {
        size_t n = strlen(hex) / 2;
        uint8_t *out = malloc(n ? n : 1);
        *len = put_hex(out, 0, hex);
        return out;
    }
    char parts_key[64];
    snprintf(parts_key, sizeof parts_key, "%s_parts", key);
    const json *parts = json_get(c, parts_key);
    if (!parts) return NULL;
    size_t total = 0;
    for (size_t i = 0; i < parts->len; i++)
        total += strlen(parts->items[i].items[0].str) / 2 * (size_t)parts->items[i].items[1].number;
    uint8_t *out = malloc(total ? total : 1);
    size_t n = 0;
    for (size_t i = 0; i < parts->len; i++) {
        const char *h = parts->items[i].items[0].str;
        size_t reps = (size_t)parts->items[i].items[1].number;
        for (size_t r = 0; r < reps; r++) n = put_hex(out, n, h);
    }
    *len = n;
    return out;
}

static void print_hex_diff(const uint8_t *got, size_t glen, const uint8_t *want, size_t wlen) {
    size_t i = 0;
    while (i < glen && i < wlen && got[i] == want[i]) i++;
    FAILF("bytes differ at offset %zu (got %zu bytes, want %zu): got %02x, want %02x", i, glen,
          wlen, i < glen ? got[i] : 0, i < wlen ? want[i] : 0);
}

/* ---------------------------------------------------------------------------------- */
/* Expected values (the vectors' value notation)                                       */

static uint64_t parse_bits(const char *hex) {
    uint64_t v = 0;
    for (; *hex; hex++) v = (v << 4) | (uint64_t)hex_digit(*hex);
    return v;
}

static void parse_uuid(const char *s, uint8_t out[16]) {
    int n = 0;
    for (; *s && n < 32; s++) {
        int d = hex_digit(*s);
        if (d < 0) continue;
        if (n % 2 == 0) out[n / 2] = (uint8_t)(d << 4);
        else out[n / 2] |= (uint8_t)d;
        n++;
    }
}

/* Compares a decoded value with the notation; reports the first difference at `path`. */
static int match(const json *spec, const bc_value *v, const char *path);

static int match_str(const json *spec, const bc_value *v, const char *path) {
    if (v->kind != BC_TYPE_STRING) { FAILF("%s: expected a string, found kind %d", path, v->kind); return 0; }
    const json *lit = json_get(spec, "v");
    if (lit) {
        if (v->len != lit->len || memcmp(v->data.s, lit->str, lit->len) != 0) {
            FAILF("%s: string differs (len %u, want %zu)", path, v->len, lit->len);
            return 0;
        }
        return 1;
    }
    const char *rep = json_get_str(spec, "repeat");
    size_t count = (size_t)json_get_num(spec, "count", 0), rl = strlen(rep);
    if (v->len != rl * count) { FAILF("%s: string length %u, want %zu", path, v->len, rl * count); return 0; }
    for (size_t i = 0; i < count; i++)
        if (memcmp(v->data.s + i * rl, rep, rl) != 0) { FAILF("%s: repeat %zu differs", path, i); return 0; }
    return 1;
}

static int match_bytes(const json *spec, const bc_value *v, const char *path) {
    if (v->kind != BC_TYPE_BYTES) { FAILF("%s: expected bytes, found kind %d", path, v->kind); return 0; }
    const char *hex = json_get_str(spec, "hex");
    size_t want_len;
    uint8_t *want;
    if (hex) {
        want = malloc(strlen(hex) / 2 + 1);
        want_len = put_hex(want, 0, hex);
    } else {
        const char *rep = json_get_str(spec, "repeat_hex");
        size_t count = (size_t)json_get_num(spec, "count", 0);
        want = malloc(strlen(rep) / 2 * count + 1);
        want_len = 0;
        for (size_t i = 0; i < count; i++) want_len = put_hex(want, want_len, rep);
    }
    int ok = v->len == want_len && (want_len == 0 || memcmp(v->data.bytes, want, want_len) == 0);
    if (!ok) FAILF("%s: bytes differ (len %u, want %zu)", path, v->len, want_len);
    free(want);
    return ok;
}

static int match(const json *spec, const bc_value *v, const char *path) {
    const char *t = json_get_str(spec, "t");
    char sub[256];
    if (strcmp(t, "null") == 0) {
        if (v->kind != BC_TYPE_NULL) { FAILF("%s: expected null, found kind %d", path, v->kind); return 0; }
        return 1;
    }
    if (strcmp(t, "bool") == 0) {
        int want = json_get(spec, "v")->boolean;
        if (v->kind != BC_TYPE_BOOL || v->data.b != want) { FAILF("%s: expected bool %d", path, want); return 0; }
        return 1;
    }
    if (strcmp(t, "int") == 0) {
        long long want = strtoll(json_get_str(spec, "v"), NULL, 10);
        if (v->kind != BC_TYPE_INT || v->data.i != want) { FAILF("%s: expected int %lld", path, want); return 0; }
        return 1;
    }
    if (strcmp(t, "float") == 0) {
        uint64_t want = parse_bits(json_get_str(spec, "bits")), got;
        if (v->kind != BC_TYPE_FLOAT) { FAILF("%s: expected a float", path); return 0; }
        memcpy(&got, &v->data.f, 8);
        if (got != want) { FAILF("%s: float bits %016" PRIx64 ", want %016" PRIx64, path, got, want); return 0; }
        return 1;
    }
    if (strcmp(t, "str") == 0) return match_str(spec, v, path);
    if (strcmp(t, "bytes") == 0) return match_bytes(spec, v, path);
    if (strcmp(t, "uuid") == 0) {
        uint8_t want[16];
        parse_uuid(json_get_str(spec, "v"), want);
        if (v->kind != BC_TYPE_UUID || v->len != 16 || memcmp(v->data.bytes, want, 16) != 0) {
            FAILF("%s: uuid differs", path);
            return 0;
        }
        return 1;
    }
    if (strcmp(t, "list") == 0) {
        const json *items = json_get(spec, "items");
        size_t n = items ? items->len : (size_t)json_get_num(spec, "count", 0);
        if (v->kind != BC_TYPE_LIST || v->len != n) { FAILF("%s: expected a list of %zu", path, n); return 0; }
        for (size_t i = 0; i < n; i++) {
            snprintf(sub, sizeof sub, "%.200s[%zu]", path, i);
            if (!match(items ? &items->items[i] : json_get(spec, "repeat"), &v->data.items[i], sub)) return 0;
        }
        return 1;
    }
    if (strcmp(t, "map") == 0) {
        const json *entries = json_get(spec, "entries");
        const json *gen = json_get(spec, "gen_keys");
        size_t n = entries ? entries->len : (size_t)json_get_num(gen, "count", 0);
        if (v->kind != BC_TYPE_MAP || v->len != n) { FAILF("%s: expected a map of %zu", path, n); return 0; }
        int width = gen ? (int)json_get_num(gen, "width", 0) : 0;
        for (size_t i = 0; i < n; i++) {
            char key[64];
            const char *k;
            const json *val;
            if (entries) {
                k = entries->items[i].items[0].str;
                val = &entries->items[i].items[1];
            } else {
                snprintf(key, sizeof key, "%0*zu", width, i);
                k = key;
                val = json_get(spec, "value");
            }
            const bc_value *kv = &v->data.items[2 * i];
            size_t klen = entries ? entries->items[i].items[0].len : strlen(k);
            if (kv->kind != BC_TYPE_STRING || kv->len != klen || memcmp(kv->data.s, k, klen) != 0) {
                FAILF("%s: key %zu differs", path, i);
                return 0;
            }
            snprintf(sub, sizeof sub, "%.200s.%.40s", path, k);
            if (!match(val, &v->data.items[2 * i + 1], sub)) return 0;
        }
        return 1;
    }
    if (strcmp(t, "struct") == 0) {
        const json *fields = json_get(spec, "fields");
        int tag = (int)json_get_num(spec, "tag", -1);
        if (v->kind != BC_TYPE_STRUCT || v->tag != tag || v->len != fields->len) {
            FAILF("%s: expected a structure %02x of %zu fields", path, tag, fields->len);
            return 0;
        }
        for (size_t i = 0; i < fields->len; i++) {
            snprintf(sub, sizeof sub, "%.200s<%zu>", path, i);
            if (!match(&fields->items[i], &v->data.items[i], sub)) return 0;
        }
        return 1;
    }
    FAILF("%s: unknown notation %s", path, t);
    return 0;
}

/* Writes a value in the notation with the encoder. */
static bc_status encode_spec(bc_encoder *e, const json *spec) {
    const char *t = json_get_str(spec, "t");
    bc_status st = BC_OK;
    if (strcmp(t, "null") == 0) return bc_encoder_write_null(e);
    if (strcmp(t, "bool") == 0) return bc_encoder_write_bool(e, json_get(spec, "v")->boolean);
    if (strcmp(t, "int") == 0) return bc_encoder_write_int(e, strtoll(json_get_str(spec, "v"), NULL, 10));
    if (strcmp(t, "float") == 0) {
        uint64_t bits = parse_bits(json_get_str(spec, "bits"));
        double f;
        memcpy(&f, &bits, 8);
        return bc_encoder_write_float(e, f);
    }
    if (strcmp(t, "str") == 0) {
        const json *lit = json_get(spec, "v");
        if (lit) return bc_encoder_write_string(e, lit->str, lit->len);
        const char *rep = json_get_str(spec, "repeat");
        size_t count = (size_t)json_get_num(spec, "count", 0), rl = strlen(rep);
        char *buf = malloc(rl * count + 1);
        for (size_t i = 0; i < count; i++) memcpy(buf + i * rl, rep, rl);
        st = bc_encoder_write_string(e, buf, rl * count);
        free(buf);
        return st;
    }
    if (strcmp(t, "bytes") == 0) {
        const char *hex = json_get_str(spec, "hex");
        const char *rep = json_get_str(spec, "repeat_hex");
        size_t count = hex ? 1 : (size_t)json_get_num(spec, "count", 0);
        const char *h = hex ? hex : rep;
        uint8_t *buf = malloc(strlen(h) / 2 * count + 1);
        size_t n = 0;
        for (size_t i = 0; i < count; i++) n = put_hex(buf, n, h);
        st = bc_encoder_write_bytes(e, buf, n);
        free(buf);
        return st;
    }
    if (strcmp(t, "uuid") == 0) {
        uint8_t u[16];
        parse_uuid(json_get_str(spec, "v"), u);
        return bc_encoder_write_uuid(e, u);
    }
    if (strcmp(t, "list") == 0) {
        const json *items = json_get(spec, "items");
        size_t n = items ? items->len : (size_t)json_get_num(spec, "count", 0);
        if ((st = bc_encoder_write_list_header(e, n)) != BC_OK) return st;
        for (size_t i = 0; i < n; i++)
            if ((st = encode_spec(e, items ? &items->items[i] : json_get(spec, "repeat"))) != BC_OK) return st;
        return BC_OK;
    }
    if (strcmp(t, "map") == 0) {
        const json *entries = json_get(spec, "entries");
        const json *gen = json_get(spec, "gen_keys");
        size_t n = entries ? entries->len : (size_t)json_get_num(gen, "count", 0);
        int width = gen ? (int)json_get_num(gen, "width", 0) : 0;
        if ((st = bc_encoder_write_map_header(e, n)) != BC_OK) return st;
        for (size_t i = 0; i < n; i++) {
            if (entries) {
                const json *k = &entries->items[i].items[0];
                if ((st = bc_encoder_write_string(e, k->str, k->len)) != BC_OK) return st;
                if ((st = encode_spec(e, &entries->items[i].items[1])) != BC_OK) return st;
            } else {
                char key[64];
                int kl = snprintf(key, sizeof key, "%0*zu", width, i);
                if ((st = bc_encoder_write_string(e, key, (size_t)kl)) != BC_OK) return st;
                if ((st = encode_spec(e, json_get(spec, "value"))) != BC_OK) return st;
            }
        }
        return BC_OK;
    }
    if (strcmp(t, "struct") == 0) {
        const json *fields = json_get(spec, "fields");
        st = bc_encoder_write_struct_header(e, (uint8_t)json_get_num(spec, "tag", 0), fields->len);
        if (st != BC_OK) return st;
        for (size_t i = 0; i < fields->len; i++)
            if ((st = encode_spec(e, &fields->items[i])) != BC_OK) return st;
        return BC_OK;
    }
    return BC_ERR_INVALID_ARGUMENT;
}

/* ---------------------------------------------------------------------------------- */
/* Cases                                                                              */

static uint32_t case_flags(const json *c) {
    const json *o = json_get(c, "options");
    uint32_t f = 0;
    const json *u = json_get(o, "uuid"), *l = json_get(o, "legacy_structs");
    if (u && u->boolean) f |= BC_OPT_UUID;
    if (l && l->boolean) f |= BC_OPT_LEGACY_STRUCTS;
    return f;
}

static void case_limits(const json *c, bc_decode_limits *lim) {
    bc_decode_limits_default(lim);
    const json *l = json_get(c, "limits");
    if (!l) return;
    lim->max_depth = (uint32_t)json_get_num(l, "max_depth", lim->max_depth);
    lim->max_string_len = (uint32_t)json_get_num(l, "max_string_len", lim->max_string_len);
    lim->max_bytes_len = (uint32_t)json_get_num(l, "max_bytes_len", lim->max_bytes_len);
    lim->max_container_len = (uint32_t)json_get_num(l, "max_container_len", lim->max_container_len);
    lim->max_total_elements = (uint64_t)json_get_num(l, "max_total_elements", (double)lim->max_total_elements);
}

/* Encodes the case's value with a fresh encoder and compares with `want`. */
static void check_encode(const json *c, const uint8_t *want, size_t wlen) {
    bc_encoder *e;
    CHECK_OK(bc_encoder_new(&e));
    CHECK_OK(bc_encoder_set_options(e, case_flags(c)));
    bc_status st = encode_spec(e, json_get(c, "value"));
    if (st != BC_OK) {
        bc_error err;
        bc_encoder_last_error(e, &err);
        FAILF("encoding failed: %s (%s)", bc_status_name(st), err.message);
    } else {
        size_t depth = 99;
        CHECK_OK(bc_encoder_depth(e, &depth));
        CHECK(depth == 0);
        const uint8_t *got;
        size_t glen;
        CHECK_OK(bc_encoder_data(e, &got, &glen));
        if (glen != wlen || memcmp(got, want, wlen) != 0) print_hex_diff(got, glen, want, wlen);
    }
    bc_encoder_free(e);
}

/* Writes the decoded tree back and compares with `want`. */
static void check_rewrite(const json *c, const bc_value *v, const uint8_t *want, size_t wlen) {
    bc_encoder *e;
    CHECK_OK(bc_encoder_new(&e));
    CHECK_OK(bc_encoder_set_options(e, case_flags(c) | BC_OPT_LEGACY_STRUCTS));
    CHECK_OK(bc_encoder_write_value(e, v));
    const uint8_t *got;
    size_t glen;
    CHECK_OK(bc_encoder_data(e, &got, &glen));
    if (glen != wlen || memcmp(got, want, wlen) != 0) print_hex_diff(got, glen, want, wlen);
    bc_encoder_free(e);
}

static void run_valid(bc_decoder *dec, const json *c, int decode_only) {
    CASE_BEGIN(json_get_str(c, "name"));
    size_t len, clen = 0;
    uint8_t *bytes = case_bytes(c, "hex", &len);
    uint8_t *canon = decode_only ? case_bytes(c, "canonical_hex", &clen) : NULL;
    const uint8_t *want = decode_only ? canon : bytes;
    size_t wlen = decode_only ? clen : len;
    bc_decode_limits lim;
    case_limits(c, &lim);
    CHECK_OK(bc_decoder_set_limits(dec, &lim));

    /* Zero copy. */
    CHECK_OK(bc_decoder_set_options(dec, case_flags(c)));
    const bc_value *v = NULL;
    bc_status st = bc_decoder_decode(dec, bytes, len, &v);
    if (st != BC_OK) {
        bc_error err;
        bc_decoder_last_error(dec, &err);
        FAILF("decode failed: %s at %lld (%s)", bc_status_name(st), (long long)err.offset, err.message);
    } else {
        match(json_get(c, "value"), v, "$");
        check_rewrite(c, v, want, wlen);
    }
    /* Prefix form: the same value, every byte used. */
    size_t used = 0;
    if (bc_decoder_decode_prefix(dec, bytes, len, &v, &used) == BC_OK) {
        CHECK(used == len);
        match(json_get(c, "value"), v, "$prefix");
    } else {
        FAILF("decode_prefix failed");
    }
    /* Copied input: the value must not depend on the caller's buffer. */
    CHECK_OK(bc_decoder_set_options(dec, case_flags(c) | BC_OPT_COPY_INPUT));
    uint8_t *scratch = malloc(len ? len : 1);
    memcpy(scratch, bytes, len);
    if (bc_decoder_decode(dec, scratch, len, &v) == BC_OK) {
        memset(scratch, 0xC0, len); /* overwrite the caller's buffer */
        match(json_get(c, "value"), v, "$copy");
    } else {
        FAILF("decode with BC_OPT_COPY_INPUT failed");
    }
    free(scratch);

    check_encode(c, want, wlen);
    free(bytes);
    free(canon);
    CASE_END();
}

static void run_invalid(bc_decoder *dec, const json *c) {
    CASE_BEGIN(json_get_str(c, "name"));
    size_t len;
    uint8_t *bytes = case_bytes(c, "hex", &len);
    bc_decode_limits lim;
    case_limits(c, &lim);
    CHECK_OK(bc_decoder_set_limits(dec, &lim));
    CHECK_OK(bc_decoder_set_options(dec, case_flags(c)));
    const char *kind = json_get_str(c, "error");
    long long offset = (long long)json_get_num(c, "offset", -1);
    const bc_value *v = (const bc_value *)&v; /* must stay untouched */
    const bc_value *sentinel = v;
    bc_status st = bc_decoder_decode(dec, bytes, len, &v);
    bc_error err;
    CHECK_OK(bc_decoder_last_error(dec, &err));
    if (st == BC_OK) {
        FAILF("decoded, expected %s at %lld", kind, offset);
    } else if (strcmp(bc_status_name(st), kind) != 0 || err.offset != offset) {
        FAILF("got %s at %lld (%s), expected %s at %lld", bc_status_name(st), (long long)err.offset,
              err.message, kind, offset);
    } else {
        CHECK(err.status == st);
        CHECK(err.message && err.message[0] != '\0');
        CHECK(v == sentinel);
    }
    free(bytes);
    CASE_END();
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); fclose(f); return NULL; }
    fclose(f);
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : getenv("BOLTCODEC_VECTORS");
    if (!path) path = "../../tests/vectors/packstream.json";
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        fprintf(stderr, "cannot read %s\n", path);
        return 2;
    }
    char err[256];
    json *doc = json_parse(text, len, err, sizeof err);
    free(text);
    if (!doc) {
        fprintf(stderr, "%s: %s\n", path, err);
        return 2;
    }
    if (strcmp(json_get_str(doc, "format"), "boltcodec-packstream-vectors/1") != 0) {
        fprintf(stderr, "%s: unknown format\n", path);
        return 2;
    }
    bc_decoder *dec;
    if (bc_decoder_new(&dec) != BC_OK) return 2;
    const json *valid = json_get(doc, "valid"), *only = json_get(doc, "decode_only"),
               *invalid = json_get(doc, "invalid");
    for (size_t i = 0; i < valid->len; i++) run_valid(dec, &valid->items[i], 0);
    for (size_t i = 0; i < only->len; i++) run_valid(dec, &only->items[i], 1);
    for (size_t i = 0; i < invalid->len; i++) run_invalid(dec, &invalid->items[i]);
    fprintf(stderr, "vectors: %zu valid, %zu decode_only, %zu invalid\n", valid->len, only->len,
            invalid->len);
    bc_decoder_free(dec);
    json_free(doc);
    return h_finish();
}
