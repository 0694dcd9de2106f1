/*
 * Stack safety of the C API: values nested 1,000,000 deep under a raised max_depth,
 * through every entry point that walks a value (decode, decode_prefix, decode_all,
 * decode_messages, format, the structure views, the encoder, the connection fed by a
 * server), and the same entry points at the default limit on a thread whose stack is
 * only 256 KiB. A stack overflow kills the process, which scripts/test.sh reports as a
 * suite without its closing line; every result is also checked, level by level.
 *
 * Each TEST is one counted test; the last line is `N passed, M failed`.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "buf.h"
#include "harness.h"

/* A string literal and its length (without the NUL). */
#define LIT(s) s, sizeof(s) - 1

/* The deep nesting, and the limit raised to allow it (plus a few levels around it). */
#define DEEP 1000000u
#define RAISED (DEEP + 16u)
/* The default max_depth. */
#define DEFAULT_DEPTH 1024u

static const bc_version V44 = {4, 4, 0, {0}, 0};
static const bc_version V50 = {5, 0, 0, {0}, 0};
static const bc_version V60 = {6, 0, 0, {0}, 0};

/* ---------------------------------------------------------------------------------- */
/* Building and checking deep values                                                  */

typedef enum { NEST_LIST, NEST_MAP, NEST_STRUCT } nest_kind;

/* The bytes that open one level: [x], {k: x}, Structure(0x01, [x]). */
static const uint8_t *level_bytes(nest_kind k, size_t *n) {
    static const uint8_t list[] = {0x91};
    static const uint8_t map[] = {0xA1, 0x81, 'k'};
    static const uint8_t st[] = {0xB1, 0x01};
    switch (k) {
    case NEST_LIST: *n = sizeof list; return list;
    case NEST_MAP: *n = sizeof map; return map;
    default: *n = sizeof st; return st;
    }
}

/* Appends `depth` levels of `k` around the integer 1. */
static void put_deep(buf *b, nest_kind k, size_t depth) {
    size_t n;
    const uint8_t *lv = level_bytes(k, &n);
    for (size_t i = 0; i < depth; i++) buf_put(b, lv, n);
    buf_byte(b, 0x01);
}

static buf deep_bytes(nest_kind k, size_t depth) {
    buf b = {0};
    put_deep(&b, k, depth);
    return b;
}

/* Walks `depth` levels of `k` down from `v` (without recursion); checks every level and
 * the integer 1 at the bottom. Returns 1 if all is as built. */
static int check_deep(const bc_value *v, nest_kind k, size_t depth) {
    static const bc_type kinds[] = {BC_TYPE_LIST, BC_TYPE_MAP, BC_TYPE_STRUCT};
    for (size_t i = 0; i < depth; i++) {
        if (!v || v->kind != kinds[k] || v->len != 1) {
            FAILF("level %zu: kind %d len %u", i, v ? v->kind : -1, v ? v->len : 0);
            return 0;
        }
        if (k == NEST_MAP) {
            if (!value_is_str(&v->data.items[0], "k")) { FAILF("level %zu: key", i); return 0; }
            v = &v->data.items[1];
        } else {
            if (k == NEST_STRUCT && v->tag != 0x01) { FAILF("level %zu: tag", i); return 0; }
            v = &v->data.items[0];
        }
    }
    if (!v || v->kind != BC_TYPE_INT || v->data.i != 1) { FAILF("bottom is not the integer 1"); return 0; }
    return 1;
}

static bc_decoder *dec_with_depth(uint32_t max_depth, uint32_t flags) {
    bc_decoder *d = NULL;
    CHECK_OK(bc_decoder_new(&d));
    bc_decode_limits l;
    CHECK_OK(bc_decode_limits_default(&l));
    l.max_depth = max_depth;
    CHECK_OK(bc_decoder_set_limits(d, &l));
    CHECK_OK(bc_decoder_set_options(d, flags));
    return d;
}

/* The formatted text of `v` (malloc'd, NUL-terminated), or NULL on failure. */
static char *format_of(const bc_value *v, const bc_version *version) {
    size_t needed = 0;
    CHECK_ST(bc_value_format(v, version, NULL, 0, &needed), BC_ERR_BUFFER_TOO_SMALL);
    char *text = malloc(needed ? needed : 1);
    if (!text) return NULL;
    size_t again = 0;
    bc_status st = bc_value_format(v, version, text, needed, &again);
    if (st != BC_OK || again != needed || strlen(text) + 1 != needed) {
        FAILF("format: %s, needed %zu then %zu", bc_status_name((int32_t)st), needed, again);
        free(text);
        return NULL;
    }
    return text;
}

/* Checks that the formatting of `depth` levels of `k` around 1 is P^depth "1" S^depth,
 * where P and S are what one level formats as (learned from a one-level value, and
 * checked on two levels first); for structures, see below. */
static void check_format(const bc_value *deep, nest_kind k, size_t depth, const bc_version *version) {
    bc_decoder *d = dec_with_depth(4, 0);
    buf one = deep_bytes(k, 1), two = deep_bytes(k, 2);
    const bc_value *v1, *v2;
    CHECK_OK(bc_decoder_decode(d, one.p, one.len, &v1));
    char *t1 = format_of(v1, version);
    CHECK_OK(bc_decoder_decode(d, two.p, two.len, &v2));
    char *t2 = format_of(v2, version);
    char *tn = format_of(deep, version);
    if (t1 && t2 && tn) {
        const char *one_at = strrchr(t1, '1');
        size_t plen = (size_t)(one_at - t1), slen = strlen(one_at + 1);
        const char *pre = t1, *suf = one_at + 1;
        /* Two levels: P P 1 S S. */
        CHECK(strlen(t2) == 2 * (plen + slen) + 1);
        CHECK(memcmp(t2, pre, plen) == 0 && memcmp(t2 + plen, pre, plen) == 0 && t2[2 * plen] == '1');
        CHECK(memcmp(t2 + 2 * plen + 1, suf, slen) == 0 && memcmp(t2 + 2 * plen + 1 + slen, suf, slen) == 0);
        size_t want = depth * (plen + slen) + 1;
        if (k == NEST_STRUCT) {
            /* Structures deep down may be rendered more briefly than the outer ones
             * (their Bolt reading is not repeated): one [ and one ] per level, the
             * outermost level as on its own. */
            size_t open = 0, close = 0, len = strlen(tn);
            for (const char *c = tn; *c; c++) {
                open += *c == '[';
                close += *c == ']';
            }
            CHECK(open == depth && close == depth);
            CHECK(len > plen + slen && memcmp(tn, pre, plen) == 0 && memcmp(tn + len - slen, suf, slen) == 0);
        } else if (strlen(tn) != want) {
            FAILF("deep format: %zu characters, expected %zu", strlen(tn), want);
        } else {
            int same = 1;
            for (size_t i = 0; same && i < depth; i++)
                same = memcmp(tn + i * plen, pre, plen) == 0 &&
                       memcmp(tn + depth * plen + 1 + i * slen, suf, slen) == 0;
            CHECK(same && tn[depth * plen] == '1');
        }
    }
    free(t1);
    free(t2);
    free(tn);
    buf_free(&one);
    buf_free(&two);
    bc_decoder_free(d);
}

/* Re-encodes `v` and checks that the bytes are `want`. */
static void check_reencode(const bc_value *v, const buf *want) {
    bc_encoder *e = NULL;
    CHECK_OK(bc_encoder_new(&e));
    CHECK_OK(bc_encoder_write_value(e, v));
    const uint8_t *p;
    size_t n;
    CHECK_OK(bc_encoder_data(e, &p, &n));
    CHECK(n == want->len && memcmp(p, want->p, n) == 0);
    bc_encoder_free(e);
}

/* Appends `msg` to `out` in Bolt chunks of at most 65 535 bytes, then the 00 00 end. */
static void put_chunked(buf *out, const uint8_t *msg, size_t len) {
    for (size_t off = 0; off < len; off += 65535) {
        size_t n = len - off < 65535 ? len - off : 65535;
        buf_byte(out, (uint8_t)(n >> 8));
        buf_byte(out, (uint8_t)n);
        buf_put(out, msg + off, n);
    }
    buf_byte(out, 0);
    buf_byte(out, 0);
}

/* ---------------------------------------------------------------------------------- */
/* Decoding, formatting and re-encoding                                               */

/* Every decode entry point, format and the encoder on `depth` levels of `k`, with
 * max_depth `limit` (depth <= limit). */
static void deep_value_roundtrip(nest_kind k, size_t depth, uint32_t limit) {
    buf in = deep_bytes(k, depth);
    for (uint32_t copy = 0; copy <= BC_OPT_COPY_INPUT; copy += BC_OPT_COPY_INPUT) {
        bc_decoder *d = dec_with_depth(limit, copy);
        const bc_value *v = NULL;
        CHECK_OK(bc_decoder_decode(d, in.p, in.len, &v));
        if (v && check_deep(v, k, depth)) {
            if (!copy) {
                check_format(v, k, depth, NULL);
                check_format(v, k, depth, &V50);
            }
            check_reencode(v, &in);
        }
        /* decode_prefix with a second value after it. */
        buf two = {0};
        put_deep(&two, k, depth);
        buf_byte(&two, 0x02);
        size_t used = 0;
        CHECK_OK(bc_decoder_decode_prefix(d, two.p, two.len, &v, &used));
        CHECK(used == in.len && v && check_deep(v, k, depth));
        /* decode_all: two deep values in a row. */
        buf both = {0};
        put_deep(&both, k, depth);
        put_deep(&both, k, depth);
        CHECK_OK(bc_decoder_decode_all(d, both.p, both.len, &v));
        CHECK(v && v->kind == BC_TYPE_LIST && v->len == 2);
        if (v && v->len == 2) CHECK(check_deep(&v->data.items[0], k, depth) && check_deep(&v->data.items[1], k, depth));
        buf_free(&two);
        buf_free(&both);
        bc_decoder_free(d);
    }
    buf_free(&in);
}

static void deep_list_of_a_million_levels(void) { deep_value_roundtrip(NEST_LIST, DEEP, RAISED); }
static void deep_map_of_a_million_levels(void) { deep_value_roundtrip(NEST_MAP, DEEP, RAISED); }
static void deep_struct_of_a_million_levels(void) { deep_value_roundtrip(NEST_STRUCT, DEEP, RAISED); }

/* At the default limit a million levels are refused at the first level too many, with
 * its offset; a value at the limit decodes. */
static void million_levels_at_the_default_limit_are_refused_with_an_offset(void) {
    buf in = deep_bytes(NEST_LIST, DEEP);
    bc_decoder *d = NULL;
    CHECK_OK(bc_decoder_new(&d));
    const bc_value *v = NULL;
    CHECK_ST(bc_decoder_decode(d, in.p, in.len, &v), BC_ERR_LIMIT_EXCEEDED);
    bc_error err;
    CHECK_OK(bc_decoder_last_error(d, &err));
    CHECK(err.status == BC_ERR_LIMIT_EXCEEDED && err.offset == DEFAULT_DEPTH);
    buf at = deep_bytes(NEST_LIST, DEFAULT_DEPTH);
    CHECK_OK(bc_decoder_decode(d, at.p, at.len, &v));
    CHECK(v && check_deep(v, NEST_LIST, DEFAULT_DEPTH));
    bc_decoder_free(d);
    buf_free(&in);
    buf_free(&at);
}

/* The same value decoded from dechunked messages (bc_decoder_decode_messages). */
static void deep_messages_through_the_dechunker(void) {
    buf msg = {0};
    buf_put(&msg, "\xB1\x71", 2); /* RECORD */
    buf_byte(&msg, 0x91);
    put_deep(&msg, NEST_LIST, DEEP);
    buf stream = {0};
    put_chunked(&stream, msg.p, msg.len);
    put_chunked(&stream, msg.p, msg.len);
    bc_dechunker *ch = NULL;
    CHECK_OK(bc_dechunker_new(&ch));
    size_t count = 0;
    CHECK_OK(bc_dechunker_feed(ch, stream.p, stream.len, &count));
    CHECK(count == 2);
    bc_message m[2];
    for (size_t i = 0; i < count && i < 2; i++) CHECK_OK(bc_dechunker_message(ch, i, &m[i]));
    bc_decoder *d = dec_with_depth(RAISED + 2, 0);
    const bc_value *v = NULL;
    if (count == 2) {
        CHECK_OK(bc_decoder_decode_messages(d, m, 2, &v));
        CHECK(v && v->kind == BC_TYPE_LIST && v->len == 2);
        for (size_t i = 0; v && i < v->len && i < 2; i++) {
            const bc_value *rec = &v->data.items[i];
            CHECK(rec->kind == BC_TYPE_STRUCT && rec->tag == 0x71 && rec->len == 1);
            CHECK(rec->data.items[0].kind == BC_TYPE_LIST && rec->data.items[0].len == 1);
            CHECK(check_deep(&rec->data.items[0].data.items[0], NEST_LIST, DEEP));
        }
    }
    bc_decoder_free(d);
    bc_dechunker_free(ch);
    buf_free(&stream);
    buf_free(&msg);
}

/* ---------------------------------------------------------------------------------- */
/* Structure views                                                                    */

/* A structure `head` (its header and the fields before the deep one) followed by
 * `depth` list levels, then `tail`; decoded with `d`. */
static const bc_value *struct_with_deep_field(bc_decoder *d, buf *b, const char *head, size_t head_len,
                                              size_t depth, const char *tail, size_t tail_len) {
    b->len = 0;
    buf_put(b, head, head_len);
    put_deep(b, NEST_LIST, depth);
    buf_put(b, tail, tail_len);
    const bc_value *v = NULL;
    CHECK_OK(bc_decoder_decode(d, b->p, b->len, &v));
    return v;
}

/* Every view over structures whose properties (or other fields) hold `depth` levels. */
static void views_of_structures_with_deep_fields(size_t depth, uint32_t limit) {
    bc_decoder *d = dec_with_depth(limit, 0);
    buf b = {0};
    const bc_value *v, *p;

    /* Node (5.0): id, labels, {p: deep}, element id. */
    v = struct_with_deep_field(d, &b, LIT("\xB4\x4E\x07\x91\x81L\xA1\x81p"), depth, LIT("\x81" "e"));
    bc_node node;
    bc_struct_kind kind = 0;
    CHECK_OK(bc_value_struct_kind(v, V50, &kind));
    CHECK(kind == BC_STRUCT_NODE);
    CHECK_OK(bc_value_as_node(v, V50, &node));
    CHECK(node.id == 7 && node.element_id.len == 1 && node.element_id.ptr[0] == 'e');
    CHECK(node.labels == &v->data.items[1] && node.properties == &v->data.items[2]);
    CHECK_OK(bc_value_map_get(node.properties, "p", 1, &p));
    CHECK(p && check_deep(p, NEST_LIST, depth));
    CHECK_ST(bc_value_as_temporal(v, V50, &(bc_temporal){0}), BC_ERR_WRONG_TYPE);
    char reason[128];
    CHECK_ST(bc_value_broken_reason(v, V50, reason, sizeof reason, NULL), BC_ERR_WRONG_TYPE);
    /* Read for 4.4 the same node has a field too many: broken, with a reason. */
    CHECK_OK(bc_value_struct_kind(v, V44, &kind));
    CHECK(kind == BC_STRUCT_BROKEN);
    CHECK_ST(bc_value_as_node(v, V44, &node), BC_ERR_BROKEN_STRUCT);
    CHECK_OK(bc_value_broken_reason(v, V44, reason, sizeof reason, NULL));
    CHECK(strlen(reason) > 0);

    /* Relationship (4.4): id, start, end, type, {p: deep}. */
    v = struct_with_deep_field(d, &b, LIT("\xB5\x52\x01\x02\x03\x81T\xA1\x81p"), depth, LIT(""));
    bc_relationship rel;
    CHECK_OK(bc_value_as_relationship(v, V44, &rel));
    CHECK(rel.id == 1 && rel.start_node_id == 2 && rel.end_node_id == 3 && rel.type_name.len == 1);
    CHECK_OK(bc_value_map_get(rel.properties, "p", 1, &p));
    CHECK(p && check_deep(p, NEST_LIST, depth));

    /* UnboundRelationship (4.4): id, type, {p: deep}. */
    v = struct_with_deep_field(d, &b, LIT("\xB3\x72\x01\x81T\xA1\x81p"), depth, LIT(""));
    bc_unbound_relationship ur;
    CHECK_OK(bc_value_as_unbound_relationship(v, V44, &ur));
    CHECK_OK(bc_value_map_get(ur.properties, "p", 1, &p));
    CHECK(p && check_deep(p, NEST_LIST, depth));

    /* Path (4.4): one node with {p: deep}, no relationships, no indices. */
    v = struct_with_deep_field(d, &b, LIT("\xB3\x50\x91\xB3\x4E\x05\x90\xA1\x81p"), depth, LIT("\x90\x90"));
    bc_path path;
    CHECK_OK(bc_value_as_path(v, V44, &path));
    CHECK(path.length == 0 && path.nodes && path.nodes->len == 1);
    bc_path_segment seg;
    CHECK_ST(bc_path_get_segment(v, V44, 0, &seg), BC_ERR_OUT_OF_RANGE);
    if (path.nodes && path.nodes->len == 1) {
        CHECK_OK(bc_value_as_node(&path.nodes->data.items[0], V44, &node));
        CHECK(node.id == 5);
        CHECK_OK(bc_value_map_get(node.properties, "p", 1, &p));
        CHECK(p && check_deep(p, NEST_LIST, depth));
    }

    /* UnsupportedType (6.0): name, 6, 1, {x: deep}. */
    v = struct_with_deep_field(d, &b, LIT("\xB4\x3F\x84UUID\x06\x01\xA1\x81x"), depth, LIT(""));
    bc_unsupported un;
    CHECK_OK(bc_value_as_unsupported(v, V60, &un));
    CHECK(un.name.len == 4 && un.minimum_version.major == 6 && un.minimum_version.minor == 1);
    CHECK_OK(bc_value_map_get(un.extra, "x", 1, &p));
    CHECK(p && check_deep(p, NEST_LIST, depth));

    /* A Point2D whose x is the deep list: broken, not a crash. */
    v = struct_with_deep_field(d, &b, LIT("\xB3\x58\x01"), depth, LIT("\x01"));
    CHECK_ST(bc_value_as_point(v, V44, &(bc_point){0}), BC_ERR_BROKEN_STRUCT);
    CHECK_ST(bc_value_as_vector(v, V60, &(bc_vector){0}), BC_ERR_WRONG_TYPE);

    buf_free(&b);
    bc_decoder_free(d);
}

static void node_relationship_path_views_of_a_million_levels(void) {
    views_of_structures_with_deep_fields(DEEP, RAISED);
}

/* ---------------------------------------------------------------------------------- */
/* The connection, fed as a server would                                               */

/* A 4.4 connection with max_depth `limit`, negotiated, with HELLO, RUN and PULL sent;
 * then the server's SUCCESS, SUCCESS {fields}, a RECORD whose one field is `depth`
 * list levels, SUCCESS, fed in socket-sized reads. Returns the receive status. */
static bc_status connection_with_deep_record(size_t depth, uint32_t limit, bc_connection **out) {
    bc_connection_config cfg;
    CHECK_OK(bc_connection_config_default(&cfg));
    cfg.flags = BC_HANDSHAKE_LEGACY;
    cfg.supported = &V44;
    cfg.supported_len = 1;
    cfg.decode_limits.max_depth = limit;
    cfg.max_message_size = 64u << 20;
    bc_connection *c = NULL;
    CHECK_OK(bc_connection_new(&cfg, &c));
    *out = c;
    const uint8_t *o;
    size_t n;
    CHECK_OK(bc_connection_output(c, &o, &n));
    CHECK(n == 20);
    CHECK_OK(bc_connection_consume_output(c, n));
    static const uint8_t reply[4] = {0, 0, 4, 4};
    CHECK_OK(bc_connection_receive(c, reply, 4));
    bc_event ev;
    CHECK_OK(bc_connection_poll_event(c, &ev));
    CHECK(ev.kind == BC_EVENT_NEGOTIATED && ev.version.major == 4 && ev.version.minor == 4);
    CHECK_OK(bc_connection_send_hello(c, "deep/1.0", 8, NULL, 0));
    CHECK_OK(bc_connection_send_run(c, "RETURN 1", 8, NULL, 0, NULL, 0));
    CHECK_OK(bc_connection_send_pull(c, -1, -1));
    CHECK_OK(bc_connection_output(c, &o, &n));
    CHECK_OK(bc_connection_consume_output(c, n));

    buf stream = {0}, msg = {0};
    put_chunked(&stream, (const uint8_t *)"\xB1\x70\xA0", 3);
    put_chunked(&stream, (const uint8_t *)"\xB1\x70\xA1\x86" "fields\x91\x81x", 13);
    buf_put(&msg, "\xB1\x71\x91", 3);
    put_deep(&msg, NEST_LIST, depth);
    put_chunked(&stream, msg.p, msg.len);
    put_chunked(&stream, (const uint8_t *)"\xB1\x70\xA0", 3);
    bc_status st = BC_OK;
    for (size_t off = 0; off < stream.len && st == BC_OK; off += 65536) {
        size_t k = stream.len - off < 65536 ? stream.len - off : 65536;
        st = bc_connection_receive(c, stream.p + off, k);
    }
    buf_free(&stream);
    buf_free(&msg);
    return st;
}

/* Polls the four events and checks them; the record's field is `depth` levels. */
static void check_deep_record_events(bc_connection *c, size_t depth) {
    bc_event ev;
    CHECK_OK(bc_connection_poll_event(c, &ev));
    CHECK(ev.kind == BC_EVENT_SUCCESS && ev.request == BC_REQUEST_HELLO);
    CHECK_OK(bc_connection_poll_event(c, &ev));
    CHECK(ev.kind == BC_EVENT_SUCCESS && ev.request == BC_REQUEST_RUN);
    CHECK_OK(bc_connection_poll_event(c, &ev));
    CHECK(ev.kind == BC_EVENT_RECORD && ev.value && ev.value->kind == BC_TYPE_LIST && ev.value->len == 1);
    if (ev.kind == BC_EVENT_RECORD && ev.value && ev.value->len == 1) {
        CHECK(check_deep(&ev.value->data.items[0], NEST_LIST, depth));
        check_format(&ev.value->data.items[0], NEST_LIST, depth, &V44);
    }
    CHECK_OK(bc_connection_poll_event(c, &ev));
    CHECK(ev.kind == BC_EVENT_SUCCESS && ev.request == BC_REQUEST_PULL);
    CHECK_OK(bc_connection_poll_event(c, &ev));
    CHECK(ev.kind == BC_EVENT_NONE);
}

static void connection_receives_a_record_nested_a_million_deep(void) {
    bc_connection *c = NULL;
    /* The RECORD structure and its field list are two levels above the value. */
    CHECK_OK(connection_with_deep_record(DEEP, RAISED + 2, &c));
    check_deep_record_events(c, DEEP);
    bc_connection_free(c);
}

static void connection_refuses_a_million_levels_at_the_default_limit(void) {
    bc_connection *c = NULL;
    CHECK_ST(connection_with_deep_record(DEEP, DEFAULT_DEPTH, &c), BC_ERR_PROTOCOL);
    bc_event ev;
    /* The events before the RECORD are still delivered; then nothing. */
    CHECK_OK(bc_connection_poll_event(c, &ev));
    CHECK(ev.kind == BC_EVENT_SUCCESS && ev.request == BC_REQUEST_HELLO);
    CHECK_OK(bc_connection_poll_event(c, &ev));
    CHECK(ev.kind == BC_EVENT_SUCCESS && ev.request == BC_REQUEST_RUN);
    CHECK_OK(bc_connection_poll_event(c, &ev));
    CHECK(ev.kind == BC_EVENT_NONE);
    bc_connection_free(c);
}

/* RUN with parameters {p: `depth` list levels}, sent on a negotiated 4.4 connection:
 * `want` is the status; on success the RUN message the connection wrote carries the
 * parameters unchanged. (Request maps from C are read with the default limits.) */
static void run_with_deep_parameters(size_t depth, bc_status want) {
    bc_connection_config cfg;
    CHECK_OK(bc_connection_config_default(&cfg));
    cfg.flags = BC_HANDSHAKE_LEGACY;
    cfg.supported = &V44;
    cfg.supported_len = 1;
    bc_connection *c = NULL;
    CHECK_OK(bc_connection_new(&cfg, &c));
    const uint8_t *o;
    size_t n;
    CHECK_OK(bc_connection_output(c, &o, &n));
    CHECK_OK(bc_connection_consume_output(c, n));
    static const uint8_t reply[4] = {0, 0, 4, 4};
    CHECK_OK(bc_connection_receive(c, reply, 4));
    CHECK_OK(bc_connection_send_hello(c, "deep/1.0", 8, NULL, 0));
    CHECK_OK(bc_connection_output(c, &o, &n));
    CHECK_OK(bc_connection_consume_output(c, n));
    buf params = {0};
    buf_put(&params, "\xA1\x81p", 3);
    put_deep(&params, NEST_LIST, depth);
    CHECK_ST(bc_connection_send_run(c, "RETURN $p", 9, params.p, params.len, NULL, 0), want);
    if (want == BC_OK) {
        CHECK_OK(bc_connection_output(c, &o, &n));
        bc_dechunker *ch = NULL;
        CHECK_OK(bc_dechunker_new(&ch));
        size_t count = 0;
        CHECK_OK(bc_dechunker_feed(ch, o, n, &count));
        bc_message m;
        CHECK(count == 1);
        if (count == 1) {
            CHECK_OK(bc_dechunker_message(ch, 0, &m));
            /* B3 10, the query, the parameters, then the extra map. */
            size_t at = 2 + 1 + 9;
            CHECK(m.len > at + params.len && m.data[0] == 0xB3 && m.data[1] == 0x10);
            CHECK(m.len > at + params.len && memcmp(m.data + at, params.p, params.len) == 0);
        }
        bc_dechunker_free(ch);
    }
    buf_free(&params);
    bc_connection_free(c);
}

static void request_parameters_a_million_deep_are_refused_and_at_the_limit_sent(void) {
    run_with_deep_parameters(DEEP, BC_ERR_LIMIT_EXCEEDED);
    run_with_deep_parameters(DEFAULT_DEPTH - 1, BC_OK);
}

/* ---------------------------------------------------------------------------------- */
/* The default limit on a 256 KiB thread stack                                        */

static void small_stack_work(void) {
    /* Values at the default limit: each kind, every decode path, format, encoder. */
    deep_value_roundtrip(NEST_LIST, DEFAULT_DEPTH, DEFAULT_DEPTH);
    deep_value_roundtrip(NEST_MAP, DEFAULT_DEPTH, DEFAULT_DEPTH);
    deep_value_roundtrip(NEST_STRUCT, DEFAULT_DEPTH, DEFAULT_DEPTH);
    /* Views: the structure and its properties map take two levels, the deep field the
     * rest (a path's node, three more). */
    views_of_structures_with_deep_fields(DEFAULT_DEPTH - 4, DEFAULT_DEPTH);
    million_levels_at_the_default_limit_are_refused_with_an_offset();
    /* The connection: a RECORD exactly at the limit, then a million levels refused. */
    bc_connection *c = NULL;
    CHECK_OK(connection_with_deep_record(DEFAULT_DEPTH - 2, DEFAULT_DEPTH, &c));
    check_deep_record_events(c, DEFAULT_DEPTH - 2);
    bc_connection_free(c);
    connection_refuses_a_million_levels_at_the_default_limit();
    request_parameters_a_million_deep_are_refused_and_at_the_limit_sent();
}

static void *small_stack_thread(void *arg) {
    (void)arg;
    small_stack_work();
    return NULL;
}

static void default_limit_on_a_256_kib_thread_stack(void) {
    pthread_attr_t attr;
    pthread_t t;
    CHECK(pthread_attr_init(&attr) == 0);
    CHECK(pthread_attr_setstacksize(&attr, 256 * 1024) == 0);
    CHECK(pthread_create(&t, &attr, small_stack_thread, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    pthread_attr_destroy(&attr);
}

int main(void) {
    RUN(deep_list_of_a_million_levels);
    RUN(deep_map_of_a_million_levels);
    RUN(deep_struct_of_a_million_levels);
    RUN(million_levels_at_the_default_limit_are_refused_with_an_offset);
    RUN(deep_messages_through_the_dechunker);
    RUN(node_relationship_path_views_of_a_million_levels);
    RUN(connection_receives_a_record_nested_a_million_deep);
    RUN(connection_refuses_a_million_levels_at_the_default_limit);
    RUN(request_parameters_a_million_deep_are_refused_and_at_the_limit_sent);
    RUN(default_limit_on_a_256_kib_thread_stack);
    return h_finish();
}
