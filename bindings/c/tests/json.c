/* A tiny JSON reader; see json.h. */
#include "json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *p, *end;
    char *err;
    size_t err_len;
    int failed;
} parser;

static void fail(parser *ps, const char *what) {
    if (!ps->failed) snprintf(ps->err, ps->err_len, "%s", what);
    ps->failed = 1;
}

static void skip_ws(parser *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
        ps->p++;
}

static int hex4(parser *ps, unsigned *out) {
    if (ps->end - ps->p < 4) return 0;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = *ps->p++;
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

/* Appends code point `cp` as UTF-8. */
static size_t put_utf8(char *out, unsigned long cp) {
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) { out[0] = (char)(0xC0 | (cp >> 6)); out[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12)); out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F)); return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18)); out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static char *parse_string(parser *ps, size_t *len_out) {
    /* ps->p is just after the opening quote. The output is never longer than the input. */
    const char *start = ps->p;
    const char *q = start;
    while (q < ps->end && *q != '"') q += (*q == '\\') ? 2 : 1;
    char *out = malloc((size_t)(q - start) + 1);
    if (!out) { fail(ps, "out of memory"); return NULL; }
    size_t n = 0;
    while (ps->p < ps->end && *ps->p != '"') {
        char c = *ps->p++;
        if (c != '\\') { out[n++] = c; continue; }
        if (ps->p >= ps->end) break;
        char e = *ps->p++;
        switch (e) {
        case '"': out[n++] = '"'; break;
        case '\\': out[n++] = '\\'; break;
        case '/': out[n++] = '/'; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case 'u': {
            unsigned hi, lo;
            if (!hex4(ps, &hi)) { fail(ps, "bad \\u escape"); free(out); return NULL; }
            unsigned long cp = hi;
            if (hi >= 0xD800 && hi <= 0xDBFF && ps->end - ps->p >= 6 && ps->p[0] == '\\' &&
                ps->p[1] == 'u') {
                ps->p += 2;
                if (!hex4(ps, &lo)) { fail(ps, "bad \\u escape"); free(out); return NULL; }
                cp = 0x10000 + (((unsigned long)hi - 0xD800) << 10) + (lo - 0xDC00);
            }
            n += put_utf8(out + n, cp);
            break;
        }
        default: fail(ps, "bad escape"); free(out); return NULL;
        }
    }
    if (ps->p >= ps->end) { fail(ps, "unterminated string"); free(out); return NULL; }
    ps->p++; /* closing quote */
    out[n] = 0;
    *len_out = n;
    return out;
}

static void parse_value(parser *ps, json *v);

static void parse_container(parser *ps, json *v, int object) {
    size_t cap = 4;
    v->items = malloc(cap * sizeof(json));
    if (object) v->keys = malloc(cap * sizeof(char *));
    v->len = 0;
    skip_ws(ps);
    char close = object ? '}' : ']';
    if (ps->p < ps->end && *ps->p == close) { ps->p++; return; }
    for (;;) {
        if (v->len == cap) {
            cap *= 2;
            v->items = realloc(v->items, cap * sizeof(json));
            if (object) v->keys = realloc(v->keys, cap * sizeof(char *));
        }
        if (object) {
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != '"') { fail(ps, "expected a key"); return; }
            ps->p++;
            size_t klen;
            v->keys[v->len] = parse_string(ps, &klen);
            if (ps->failed) return;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') { fail(ps, "expected ':'"); free(v->keys[v->len]); return; }
            ps->p++;
        }
        memset(&v->items[v->len], 0, sizeof(json));
        parse_value(ps, &v->items[v->len]);
        v->len++;
        if (ps->failed) return;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') { ps->p++; continue; }
        if (ps->p < ps->end && *ps->p == close) { ps->p++; return; }
        fail(ps, "expected ',' or a closing bracket");
        return;
    }
}

static void parse_value(parser *ps, json *v) {
    skip_ws(ps);
    if (ps->p >= ps->end) { fail(ps, "unexpected end"); return; }
    char c = *ps->p;
    if (c == '{') { ps->p++; v->type = JSON_OBJECT; parse_container(ps, v, 1); }
    else if (c == '[') { ps->p++; v->type = JSON_ARRAY; parse_container(ps, v, 0); }
    else if (c == '"') { ps->p++; v->type = JSON_STRING; v->str = parse_string(ps, &v->len); }
    else if (ps->end - ps->p >= 4 && memcmp(ps->p, "true", 4) == 0) { ps->p += 4; v->type = JSON_BOOL; v->boolean = true; }
    else if (ps->end - ps->p >= 5 && memcmp(ps->p, "false", 5) == 0) { ps->p += 5; v->type = JSON_BOOL; }
    else if (ps->end - ps->p >= 4 && memcmp(ps->p, "null", 4) == 0) { ps->p += 4; v->type = JSON_NULL; }
    else {
        char *endp;
        v->type = JSON_NUMBER;
        v->number = strtod(ps->p, &endp);
        if (endp == ps->p) { fail(ps, "unexpected character"); return; }
        ps->p = endp;
    }
}

json *json_parse(const char *text, size_t len, char *err, size_t err_len) {
    parser ps = {text, text + len, err, err_len, 0};
    json *v = calloc(1, sizeof(json));
    if (!v) return NULL;
    parse_value(&ps, v);
    if (ps.failed) { json_free(v); return NULL; }
    return v;
}

static void free_inner(json *v) {
    if (v->type == JSON_STRING) free(v->str);
    if (v->type == JSON_ARRAY || v->type == JSON_OBJECT) {
        for (size_t i = 0; i < v->len; i++) {
            free_inner(&v->items[i]);
            if (v->type == JSON_OBJECT) free(v->keys[i]);
        }
        free(v->items);
        free(v->keys);
    }
}

void json_free(json *v) {
    if (!v) return;
    free_inner(v);
    free(v);
}

const json *json_get(const json *obj, const char *key) {
    if (!obj || obj->type != JSON_OBJECT) return NULL;
    for (size_t i = 0; i < obj->len; i++)
        if (strcmp(obj->keys[i], key) == 0) return &obj->items[i];
    return NULL;
}

const char *json_get_str(const json *obj, const char *key) {
    const json *v = json_get(obj, key);
    return v && v->type == JSON_STRING ? v->str : NULL;
}

double json_get_num(const json *obj, const char *key, double fallback) {
    const json *v = json_get(obj, key);
    return v && v->type == JSON_NUMBER ? v->number : fallback;
}
