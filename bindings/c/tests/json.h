/*
 * A tiny JSON reader for the test suite: just enough for tests/vectors/packstream.json.
 * Parses a whole document into a tree; strings are decoded to UTF-8 (with \uXXXX and
 * surrogate pairs); numbers are kept as doubles. Not for untrusted input.
 */
#ifndef BOLTCODEC_TEST_JSON_H
#define BOLTCODEC_TEST_JSON_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json {
    json_type type;
    bool boolean;
    double number;
    char *str;           /* JSON_STRING: UTF-8, NUL-terminated (may contain NULs: see len) */
    size_t len;          /* JSON_STRING: bytes; JSON_ARRAY / JSON_OBJECT: items */
    struct json *items;  /* JSON_ARRAY / JSON_OBJECT: values */
    char **keys;         /* JSON_OBJECT: keys (NUL-terminated) */
} json;

/* Parses `text`; returns NULL and fills `err` on a syntax error. Free with json_free. */
json *json_parse(const char *text, size_t len, char *err, size_t err_len);
void json_free(json *v);

/* Object member by key, or NULL. */
const json *json_get(const json *obj, const char *key);
/* String member, or NULL when absent or not a string. */
const char *json_get_str(const json *obj, const char *key);
/* Number member, or `fallback`. */
double json_get_num(const json *obj, const char *key, double fallback);

#endif
