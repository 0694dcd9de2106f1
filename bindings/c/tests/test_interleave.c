/*
 * Interleaving property test of the C API (issue 13: one bad call must never touch
 * another). Random good and bad inputs go to several decoders, dechunkers and
 * connections in a random order, and:
 *
 *  - every call is checked against a fresh handle given the same settings and the same
 *    input (for the stream handles: the whole stream so far, in one piece): same status,
 *    same error (status, offset, message), same values, messages and events;
 *  - after every call, everything each handle handed out earlier and documents as still
 *    valid (the values of its last successful decode, the messages of its last feed, the
 *    current event) is checked against a snapshot taken when it was handed out: a failed
 *    call, or a call on another handle, never changes it.
 *
 * Deterministic: BOLTCODEC_INTERLEAVE_SEED (default 13) and BOLTCODEC_INTERLEAVE_OPS
 * (default 5000, a fraction of a second; the long run uses 1,000,000 or more) set the run. The last line is
 * `N passed, M failed` (one test per 1,000 operations, and one for the whole run).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#include "buf.h"
#include "harness.h"

/* ---------------------------------------------------------------------------------- */
/* Randomness and buffers                                                             */

static uint64_t rng_state;

static uint64_t rnd64(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static size_t rnd(size_t n) { return n ? (size_t)(rnd64() % n) : 0; }

static int buf_eq(const buf *a, const buf *b) {
    return a->len == b->len && (a->len == 0 || memcmp(a->p, b->p, a->len) == 0);
}
/* A heap copy of `n` bytes (at least 1 byte allocated, so never NULL). */
static uint8_t *dup_bytes(const uint8_t *p, size_t n) {
    uint8_t *q = malloc(n ? n : 1);
    if (!q) { fprintf(stderr, "out of memory\n"); exit(2); }
    if (n) memcpy(q, p, n);
    return q;
}
static char *dup_str(const char *s) { return s ? (char *)dup_bytes((const uint8_t *)s, strlen(s) + 1) : NULL; }
static int str_eq(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

/* ---------------------------------------------------------------------------------- */
/* Random values                                                                       */

static bc_encoder *gen; /* writes generated values */
static bc_encoder *canon; /* re-encodes values for comparisons */

static void gen_value(int depth) {
    static const char *texts[] = {"", "a", "name", "Alice", "\xC3\xA9t\xC3\xA9", "k", "fields", "x"};
    size_t kind = rnd(depth < 3 ? 12 : 7);
    switch (kind) {
    case 0: bc_encoder_write_null(gen); break;
    case 1: bc_encoder_write_bool(gen, rnd(2)); break;
    case 2: bc_encoder_write_int(gen, (int64_t)rnd(300) - 150); break;
    case 3: bc_encoder_write_int(gen, (int64_t)rnd64()); break;
    case 4: bc_encoder_write_float(gen, (double)(int64_t)rnd64() / 3.0); break;
    case 5: {
        const char *t = texts[rnd(8)];
        bc_encoder_write_string(gen, t, strlen(t));
        break;
    }
    case 6: {
        uint8_t b[20];
        size_t n = rnd(sizeof b);
        for (size_t i = 0; i < n; i++) b[i] = (uint8_t)rnd64();
        bc_encoder_write_bytes(gen, b, n);
        break;
    }
    case 7:
    case 10: {
        size_t n = rnd(4);
        bc_encoder_write_list_header(gen, n);
        for (size_t i = 0; i < n; i++) gen_value(depth + 1);
        break;
    }
    case 8: {
        size_t n = rnd(4);
        bc_encoder_write_map_header(gen, n);
        for (size_t i = 0; i < n; i++) {
            const char *t = texts[rnd(8)];
            bc_encoder_write_string(gen, t, strlen(t));
            gen_value(depth + 1);
        }
        break;
    }
    case 9: {
        static const uint8_t tags[] = {0x01, 0x4E, 0x44, 0x58, 0x71};
        size_t n = rnd(4);
        bc_encoder_write_struct_header(gen, tags[rnd(sizeof tags)], n);
        for (size_t i = 0; i < n; i++) gen_value(depth + 1);
        break;
    }
    default: {
        uint8_t u[16];
        for (int i = 0; i < 16; i++) u[i] = (uint8_t)rnd64();
        bc_encoder_write_uuid(gen, u);
        break;
    }
    }
}

/* One random value's bytes, appended to `out`. */
static void put_value(buf *out) {
    CHECK_OK(bc_encoder_clear(gen));
    gen_value(0);
    const uint8_t *p;
    size_t n;
    CHECK_OK(bc_encoder_data(gen, &p, &n));
    buf_put(out, p, n);
}

/* Makes `b` bad (or, now and then, different but still good): cut, extended, a byte
 * changed, or garbage. */
static void spoil(buf *b) {
    switch (rnd(4)) {
    case 0: if (b->len) b->len = rnd(b->len); break;
    case 1: buf_byte(b, (uint8_t)rnd64()); break;
    case 2:
        if (b->len) b->p[rnd(b->len)] = rnd(2) ? (uint8_t)(0xC4 + rnd(4)) : (uint8_t)rnd64();
        break;
    default: {
        b->len = 0;
        size_t n = 1 + rnd(12);
        for (size_t i = 0; i < n; i++) buf_byte(b, (uint8_t)rnd64());
    }
    }
}

/* The canonical bytes of a value (re-encoded); 0 if the encoder refuses it. */
static int canonical(const bc_value *v, buf *out) {
    out->len = 0;
    CHECK_OK(bc_encoder_clear(canon));
    if (bc_encoder_write_value(canon, v) != BC_OK) return 0;
    const uint8_t *p;
    size_t n;
    CHECK_OK(bc_encoder_data(canon, &p, &n));
    buf_put(out, p, n);
    return 1;
}

/* A handle's last error, copied. */
typedef struct {
    bc_status status;
    int64_t offset;
    char *message;
} err_copy;

static void err_free(err_copy *e) { free(e->message); e->message = NULL; }
static int err_eq(const err_copy *a, const err_copy *b) {
    return a->status == b->status && a->offset == b->offset && str_eq(a->message, b->message);
}
#define TAKE_ERROR(fn, h, out)                                                             \
    do {                                                                                   \
        bc_error e_;                                                                       \
        CHECK_OK(fn((h), &e_));                                                            \
        (out)->status = e_.status;                                                         \
        (out)->offset = e_.offset;                                                         \
        (out)->message = dup_str(e_.message);                                              \
    } while (0)

static uint64_t op_index;
/* What the run did, printed at the end: calls made and calls that failed, per kind. */
static uint64_t n_decode, n_decode_err, n_feed, n_feed_err, n_msgs, n_receive, n_receive_err, n_events;
#define WHERE_FMT " (operation %" PRIu64 ")"

/* ---------------------------------------------------------------------------------- */
/* Decoders                                                                           */

#define NDEC 3

typedef struct {
    bc_decoder *h;
    uint32_t flags;
    bc_decode_limits limits;
    /* The last successful decode: its root, the input it may point into (kept alive and
     * unchanged while it is valid), and its canonical bytes when it was returned. */
    const bc_value *root;
    uint8_t *kept;
    buf snapshot;
} dec_model;

static dec_model decs[NDEC];

typedef enum { D_DECODE, D_PREFIX, D_ALL, D_MESSAGES } dec_call;

/* Runs one decode entry point; returns its status, `*root` and `*used`. */
static bc_status dec_run(bc_decoder *h, dec_call call, const uint8_t *p, size_t n, const bc_message *msgs,
                         size_t count, const bc_value **root, size_t *used) {
    *used = 0;
    switch (call) {
    case D_DECODE: return bc_decoder_decode(h, p, n, root);
    case D_PREFIX: return bc_decoder_decode_prefix(h, p, n, root, used);
    case D_ALL: return bc_decoder_decode_all(h, p, n, root);
    default: return bc_decoder_decode_messages(h, msgs, count, root);
    }
}

static void dec_settings(dec_model *m) {
    if (rnd(2)) {
        static const uint32_t depths[] = {1, 2, 3, 1024};
        m->limits.max_depth = depths[rnd(4)];
        m->limits.max_container_len = rnd(2) ? 3 : 0x7FFFFFFF;
        CHECK_OK(bc_decoder_set_limits(m->h, &m->limits));
    } else {
        m->flags = (uint32_t)rnd(8);
        CHECK_OK(bc_decoder_set_options(m->h, m->flags));
    }
}

static void dec_reset(dec_model *m) {
    CHECK_OK(bc_decoder_reset(m->h));
    m->root = NULL;
    free(m->kept);
    m->kept = NULL;
    m->snapshot.len = 0;
}

/* Decodes a random good or bad input with `m` and with a fresh decoder; compares. */
static void dec_op(dec_model *m) {
    dec_call call = (dec_call)rnd(4);
    buf in = {0};
    size_t nvalues = call == D_ALL || call == D_MESSAGES ? rnd(4) : 1;
    size_t ends[4] = {0};
    for (size_t i = 0; i < nvalues; i++) {
        put_value(&in);
        ends[i] = in.len;
    }
    int bad = rnd(3) == 0;
    if (bad) {
        spoil(&in);
        for (size_t i = 0; i < nvalues; i++) if (ends[i] > in.len) ends[i] = in.len;
        if (nvalues) ends[nvalues - 1] = in.len;
    }
    if (call == D_PREFIX && rnd(2)) put_value(&in); /* a next value after it */
    uint8_t *input = dup_bytes(in.p, in.len);
    bc_message msgs[4];
    for (size_t i = 0, start = 0; i < nvalues; start = ends[i], i++) {
        msgs[i].data = input + start;
        msgs[i].len = ends[i] - start;
        msgs[i].stream_offset = start;
        msgs[i].chunk_count = 1;
        msgs[i].copied = false;
    }

    /* The reference: a fresh decoder, the same settings, its own copy of the input. */
    bc_decoder *fresh = NULL;
    CHECK_OK(bc_decoder_new(&fresh));
    CHECK_OK(bc_decoder_set_limits(fresh, &m->limits));
    CHECK_OK(bc_decoder_set_options(fresh, m->flags));
    uint8_t *input2 = dup_bytes(in.p, in.len);
    bc_message msgs2[4];
    for (size_t i = 0; i < nvalues; i++) {
        msgs2[i] = msgs[i];
        msgs2[i].data = input2 + (msgs[i].data - input);
    }
    const bc_value *want = NULL, *got = NULL;
    size_t want_used, got_used;
    bc_status want_st = dec_run(fresh, call, input2, in.len, msgs2, nvalues, &want, &want_used);
    bc_status got_st = dec_run(m->h, call, input, in.len, msgs, nvalues, &got, &got_used);

    n_decode++;
    n_decode_err += got_st != BC_OK;
    if (got_st != want_st) {
        FAILF("decoder call %d: %s, a fresh decoder %s" WHERE_FMT, (int)call, bc_status_name(got_st),
              bc_status_name(want_st), op_index);
    } else if (got_st == BC_OK) {
        buf a = {0}, b = {0};
        CHECK(canonical(got, &a) && canonical(want, &b));
        if (!buf_eq(&a, &b) || got_used != want_used) FAILF("decoder call %d: another value" WHERE_FMT, (int)call, op_index);
        /* The new values replace the old ones; the input stays with them. */
        free(m->kept);
        m->kept = NULL;
        if (m->flags & BC_OPT_COPY_INPUT) {
            memset(input, 0xEE, in.len); /* the values must not read it any more */
            free(input);
        } else {
            m->kept = input;
        }
        input = NULL;
        m->root = got;
        buf_free(&m->snapshot);
        m->snapshot = a;
        buf_free(&b);
    } else {
        err_copy e1, e2;
        TAKE_ERROR(bc_decoder_last_error, m->h, &e1);
        TAKE_ERROR(bc_decoder_last_error, fresh, &e2);
        if (!err_eq(&e1, &e2))
            FAILF("decoder error %s at %" PRId64 " \"%s\", a fresh decoder's %s at %" PRId64 " \"%s\"" WHERE_FMT,
                  bc_status_name(e1.status), e1.offset, e1.message ? e1.message : "", bc_status_name(e2.status),
                  e2.offset, e2.message ? e2.message : "", op_index);
        err_free(&e1);
        err_free(&e2);
    }
    bc_decoder_free(fresh);
    free(input);
    free(input2);
    buf_free(&in);
}

/* ---------------------------------------------------------------------------------- */
/* Dechunkers                                                                         */

#define NCH 2

typedef struct {
    bc_dechunker *h;
    size_t max_size;
    uint32_t max_chunks;
    buf history; /* everything fed since the last reset */
    buf pending; /* the stream still to feed */
    size_t delivered; /* messages delivered since the last reset */
    int poisoned;
    /* The last feed's messages, the piece they may point into, and their bytes. */
    bc_message msgs[64];
    buf msg_bytes[64];
    size_t nmsgs;
    uint8_t *kept;
} ch_model;

static ch_model chs[NCH];

/* Appends one message to `out` in chunks of random sizes, NOOPs now and then. */
static void put_chunked(buf *out, const uint8_t *msg, size_t len, size_t max_chunk) {
    if (rnd(4) == 0) buf_put(out, "\0\0", 2);
    size_t off = 0;
    while (off < len) {
        size_t n = 1 + rnd(max_chunk);
        if (n > len - off) n = len - off;
        buf_byte(out, (uint8_t)(n >> 8));
        buf_byte(out, (uint8_t)n);
        buf_put(out, msg + off, n);
        off += n;
    }
    buf_put(out, "\0\0", 2);
}

static void ch_clear_feed(ch_model *m) {
    for (size_t i = 0; i < m->nmsgs; i++) buf_free(&m->msg_bytes[i]);
    m->nmsgs = 0;
    free(m->kept);
    m->kept = NULL;
}

static void ch_reset(ch_model *m, int new_limits) {
    if (new_limits) {
        m->max_size = rnd(2) ? 0 : 16 + rnd(200);
        m->max_chunks = rnd(2) ? 0 : (uint32_t)(1 + rnd(8));
        CHECK_OK(bc_dechunker_set_limits(m->h, m->max_size, m->max_chunks));
    } else {
        CHECK_OK(bc_dechunker_reset(m->h));
    }
    ch_clear_feed(m);
    m->history.len = 0;
    m->pending.len = 0;
    m->delivered = 0;
    m->poisoned = 0;
}

/* Feeds the next piece of the stream (refilled with good or spoilt messages) to `m` and
 * checks the messages and status against a fresh dechunker fed the whole stream so far. */
static void ch_op(ch_model *m) {
    if (m->history.len > 4096 || (m->poisoned && rnd(2))) ch_reset(m, rnd(2));
    if (m->pending.len == 0) {
        size_t n = 1 + rnd(3);
        for (size_t i = 0; i < n; i++) {
            buf v = {0};
            put_value(&v);
            if (rnd(5) == 0) spoil(&v);
            if (v.len == 0) buf_byte(&v, 0xC0);
            put_chunked(&m->pending, v.p, v.len, rnd(2) ? 4 : 300);
            buf_free(&v);
        }
        if (rnd(6) == 0) spoil(&m->pending);
    }
    size_t n = rnd(m->pending.len + 1);
    uint8_t *piece = dup_bytes(m->pending.p, n);
    memmove(m->pending.p, m->pending.p + n, m->pending.len - n);
    m->pending.len -= n;
    buf_put(&m->history, piece, n);

    ch_clear_feed(m);
    size_t count = 0;
    bc_status st = bc_dechunker_feed(m->h, piece, n, &count);
    m->kept = piece;

    bc_dechunker *fresh = NULL;
    CHECK_OK(bc_dechunker_new(&fresh));
    CHECK_OK(bc_dechunker_set_limits(fresh, m->max_size, m->max_chunks));
    n_feed++;
    n_feed_err += st != BC_OK;
    n_msgs += count;
    size_t want_count = 0;
    bc_status want_st = bc_dechunker_feed(fresh, m->history.p, m->history.len, &want_count);
    if (st != want_st) {
        FAILF("feed: %s, a fresh dechunker %s" WHERE_FMT, bc_status_name(st), bc_status_name(want_st), op_index);
    } else if (st != BC_OK) {
        err_copy e1, e2;
        TAKE_ERROR(bc_dechunker_last_error, m->h, &e1);
        TAKE_ERROR(bc_dechunker_last_error, fresh, &e2);
        /* A poisoned dechunker repeats its error; the fresh one reports it once. */
        if (!err_eq(&e1, &e2)) FAILF("feed error differs from a fresh dechunker's" WHERE_FMT, op_index);
        err_free(&e1);
        err_free(&e2);
    }
    if (m->poisoned && count != 0) FAILF("a poisoned dechunker delivered messages" WHERE_FMT, op_index);
    if (m->delivered + count != want_count && !(m->poisoned && st != BC_OK))
        FAILF("feed: %zu + %zu messages, a fresh dechunker %zu" WHERE_FMT, m->delivered, count, want_count, op_index);
    for (size_t i = 0; i < count && i < 64; i++) {
        bc_message a, b;
        CHECK_OK(bc_dechunker_message(m->h, i, &a));
        m->msgs[i] = a;
        memset(&m->msg_bytes[i], 0, sizeof(buf));
        buf_put(&m->msg_bytes[i], a.data, a.len);
        if (m->delivered + i < want_count) {
            CHECK_OK(bc_dechunker_message(fresh, m->delivered + i, &b));
            if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0 || a.stream_offset != b.stream_offset ||
                a.chunk_count != b.chunk_count)
                FAILF("message %zu differs from a fresh dechunker's" WHERE_FMT, m->delivered + i, op_index);
        }
    }
    m->nmsgs = count < 64 ? count : 64;
    m->delivered += count;
    if (st != BC_OK) m->poisoned = 1;
    bc_dechunker_free(fresh);
}

/* ---------------------------------------------------------------------------------- */
/* Connections                                                                        */

#define NCONN 2
#define MAX_EVENTS 4096

typedef struct {
    int kind, request;
    buf value; /* canonical bytes, empty without a value */
    char *code, *message;
} event_copy;

typedef struct {
    bc_connection *h;
    uint32_t max_depth;
    int sends[256]; /* requests sent (BC_REQUEST_*), replayed on the fresh connection */
    size_t nsends;
    buf history; /* bytes received since the handshake reply, included */
    buf pending; /* server bytes not yet received */
    size_t polled; /* events taken so far */
    int defunct;
    /* The current event, as returned, and its copy. */
    bc_event current;
    event_copy current_copy;
} conn_model;

static conn_model conns[NCONN];

static void event_free(event_copy *e) {
    buf_free(&e->value);
    free(e->code);
    free(e->message);
    memset(e, 0, sizeof *e);
}

static void event_take(const bc_event *ev, event_copy *out) {
    memset(out, 0, sizeof *out);
    out->kind = ev->kind;
    out->request = ev->request;
    if (ev->value) CHECK(canonical(ev->value, &out->value));
    out->code = dup_str(ev->code);
    out->message = dup_str(ev->message);
}

static int event_eq(const event_copy *a, const event_copy *b) {
    return a->kind == b->kind && a->request == b->request && buf_eq(&a->value, &b->value) &&
           str_eq(a->code, b->code) && str_eq(a->message, b->message);
}

static bc_status conn_send(bc_connection *c, int kind) {
    switch (kind) {
    case BC_REQUEST_HELLO: return bc_connection_send_hello(c, "interleave/1", 12, NULL, 0);
    case BC_REQUEST_RUN: return bc_connection_send_run(c, "RETURN 1", 8, NULL, 0, NULL, 0);
    default: return bc_connection_send_pull(c, -1, -1);
    }
}

static bc_connection *conn_new(uint32_t max_depth) {
    static const bc_version v44 = {4, 4, 0, {0}, 0};
    bc_connection_config cfg;
    CHECK_OK(bc_connection_config_default(&cfg));
    cfg.flags = BC_HANDSHAKE_LEGACY;
    cfg.supported = &v44;
    cfg.supported_len = 1;
    cfg.decode_limits.max_depth = max_depth;
    bc_connection *c = NULL;
    CHECK_OK(bc_connection_new(&cfg, &c));
    return c;
}

static void conn_drain(bc_connection *c) {
    const uint8_t *o;
    size_t n;
    CHECK_OK(bc_connection_output(c, &o, &n));
    CHECK_OK(bc_connection_consume_output(c, n));
}

/* A new connection for slot `m`, its handshake reply waiting in `pending`. */
static void conn_open(conn_model *m) {
    if (m->h) bc_connection_free(m->h);
    event_free(&m->current_copy);
    memset(&m->current, 0, sizeof m->current);
    m->max_depth = rnd(4) ? 1024 : 4;
    m->h = conn_new(m->max_depth);
    conn_drain(m->h);
    m->nsends = 0;
    m->history.len = 0;
    m->pending.len = 0;
    buf_put(&m->pending, "\0\0\4\4", 4);
    m->polled = 0;
    m->defunct = 0;
}

/* One server message, chunked: SUCCESS {} (what 0), SUCCESS {fields: ["x"]} (1), a
 * RECORD of one random field (2), or a FAILURE without its metadata, which is invalid (3). */
static void srv_message(buf *out, int what) {
    buf msg = {0};
    switch (what) {
    case 0: buf_put(&msg, "\xB1\x70\xA0", 3); break;
    case 1: buf_put(&msg, "\xB1\x70\xA1\x86" "fields\x91\x81x", 13); break;
    case 2:
        buf_put(&msg, "\xB1\x71\x91", 3);
        put_value(&msg);
        break;
    default: buf_put(&msg, "\xB0\x7F", 2);
    }
    put_chunked(out, msg.p, msg.len, rnd(2) ? 5 : 1000);
    buf_free(&msg);
}

/* Sends the next requests (HELLO first, then RUN + PULL) and queues the server's
 * answers, a few records among them, now and then spoilt. */
static void conn_next_exchange(conn_model *m) {
    int kinds[2];
    size_t n = 0;
    if (m->nsends == 0) kinds[n++] = BC_REQUEST_HELLO;
    kinds[n++] = BC_REQUEST_RUN;
    if (m->nsends + 3 > 256) return;
    for (size_t i = 0; i < n; i++) {
        if (conn_send(m->h, kinds[i]) != BC_OK) return;
        m->sends[m->nsends++] = kinds[i];
    }
    if (conn_send(m->h, BC_REQUEST_PULL) == BC_OK) m->sends[m->nsends++] = BC_REQUEST_PULL;
    conn_drain(m->h);
    buf srv = {0};
    if (kinds[0] == BC_REQUEST_HELLO) srv_message(&srv, 0);
    srv_message(&srv, 1);
    size_t records = rnd(4);
    for (size_t i = 0; i < records; i++) srv_message(&srv, 2);
    if (rnd(16) == 0) srv_message(&srv, 3);
    srv_message(&srv, 0);
    if (rnd(12) == 0) spoil(&srv);
    buf_put(&m->pending, srv.p, srv.len);
    buf_free(&srv);
}

/* A fresh connection given the same requests and everything `m` received, in one
 * piece; returns its receive status (and its connection, to poll). */
static bc_status conn_fresh(const conn_model *m, bc_connection **out) {
    bc_connection *c = conn_new(m->max_depth);
    conn_drain(c);
    bc_status st = BC_OK;
    if (m->history.len >= 4) {
        st = bc_connection_receive(c, m->history.p, 4);
        for (size_t i = 0; st == BC_OK && i < m->nsends; i++) CHECK_OK(conn_send(c, m->sends[i]));
        if (st == BC_OK) st = bc_connection_receive(c, m->history.p + 4, m->history.len - 4);
    }
    *out = c;
    return st;
}

static void conn_receive_op(conn_model *m) {
    /* Bounds the cost of replaying the stream on a fresh connection. */
    if (m->history.len > 16384 || m->polled > 200 || (m->defunct && rnd(2))) conn_open(m);
    if (m->pending.len == 0) {
        if (m->history.len >= 4 && !m->defunct) conn_next_exchange(m);
        if (m->pending.len == 0) return;
    }
    size_t n = 1 + rnd(m->pending.len < 200 ? m->pending.len : 200);
    if (n > m->pending.len) n = m->pending.len;
    /* The handshake reply is fed on its own, so that the requests follow it. */
    if (m->history.len < 4 && n > 4 - m->history.len) n = 4 - m->history.len;
    uint8_t *piece = dup_bytes(m->pending.p, n);
    memmove(m->pending.p, m->pending.p + n, m->pending.len - n);
    m->pending.len -= n;
    buf_put(&m->history, piece, n);
    bc_status st = bc_connection_receive(m->h, piece, n);
    memset(piece, 0xEE, n); /* not kept: the connection copies what it needs */
    free(piece);
    n_receive++;
    n_receive_err += st != BC_OK;
    bc_connection *fresh;
    bc_status want = conn_fresh(m, &fresh);
    if (m->defunct) {
        if (st != BC_ERR_DEFUNCT && st != want) FAILF("receive after defunct: %s" WHERE_FMT, bc_status_name(st), op_index);
    } else if (st != want) {
        FAILF("receive: %s, a fresh connection %s" WHERE_FMT, bc_status_name(st), bc_status_name(want), op_index);
    } else if (st != BC_OK) {
        err_copy e1, e2;
        TAKE_ERROR(bc_connection_last_error, m->h, &e1);
        TAKE_ERROR(bc_connection_last_error, fresh, &e2);
        if (!err_eq(&e1, &e2))
            FAILF("receive error \"%s\" at %" PRId64 ", a fresh connection's \"%s\" at %" PRId64 WHERE_FMT,
                  e1.message ? e1.message : "", e1.offset, e2.message ? e2.message : "", e2.offset, op_index);
        err_free(&e1);
        err_free(&e2);
    }
    if (st != BC_OK) m->defunct = 1;
    bc_connection_free(fresh);
}

static void conn_poll_op(conn_model *m) {
    bc_event ev;
    CHECK_OK(bc_connection_poll_event(m->h, &ev));
    event_copy got;
    event_take(&ev, &got);
    /* The fresh connection's event at the same index. */
    bc_connection *fresh;
    conn_fresh(m, &fresh);
    bc_event fev;
    memset(&fev, 0, sizeof fev);
    for (size_t i = 0; i <= m->polled; i++) CHECK_OK(bc_connection_poll_event(fresh, &fev));
    event_copy want;
    event_take(&fev, &want);
    if (!event_eq(&got, &want))
        FAILF("event %zu: kind %d, a fresh connection's kind %d" WHERE_FMT, m->polled, got.kind, want.kind, op_index);
    event_free(&want);
    bc_connection_free(fresh);
    if (ev.kind != BC_EVENT_NONE) {
        m->polled++;
        n_events++;
    }
    event_free(&m->current_copy);
    m->current_copy = got;
    m->current = ev;
}

/* ---------------------------------------------------------------------------------- */
/* The invariant checked after every operation                                        */

static void check_everything_handed_out(void) {
    buf now = {0};
    for (int i = 0; i < NDEC; i++) {
        if (!decs[i].root) continue;
        if (!canonical(decs[i].root, &now) || !buf_eq(&now, &decs[i].snapshot))
            FAILF("decoder %d: the values of its last successful decode changed" WHERE_FMT, i, op_index);
    }
    for (int i = 0; i < NCH; i++) {
        for (size_t k = 0; k < chs[i].nmsgs; k++) {
            const bc_message *msg = &chs[i].msgs[k];
            if (msg->len != chs[i].msg_bytes[k].len || memcmp(msg->data, chs[i].msg_bytes[k].p, msg->len) != 0)
                FAILF("dechunker %d: message %zu of its last feed changed" WHERE_FMT, i, k, op_index);
        }
    }
    for (int i = 0; i < NCONN; i++) {
        event_copy e;
        event_take(&conns[i].current, &e);
        if (!event_eq(&e, &conns[i].current_copy))
            FAILF("connection %d: its current event changed" WHERE_FMT, i, op_index);
        event_free(&e);
    }
    buf_free(&now);
}

/* ---------------------------------------------------------------------------------- */

static void one_operation(void) {
    size_t what = rnd(100);
    if (what < 30) {
        dec_op(&decs[rnd(NDEC)]);
    } else if (what < 36) {
        dec_settings(&decs[rnd(NDEC)]);
    } else if (what < 38) {
        dec_reset(&decs[rnd(NDEC)]);
    } else if (what < 58) {
        ch_op(&chs[rnd(NCH)]);
    } else if (what < 60) {
        ch_reset(&chs[rnd(NCH)], rnd(2));
    } else if (what < 78) {
        conn_receive_op(&conns[rnd(NCONN)]);
    } else if (what < 98) {
        conn_poll_op(&conns[rnd(NCONN)]);
    } else {
        conn_model *m = &conns[rnd(NCONN)];
        if (m->defunct || m->history.len > 8192 || rnd(4) == 0) conn_open(m);
    }
    check_everything_handed_out();
}

int main(void) {
    const char *s = getenv("BOLTCODEC_INTERLEAVE_SEED");
    const char *o = getenv("BOLTCODEC_INTERLEAVE_OPS");
    uint64_t seed = s ? strtoull(s, NULL, 10) : 13;
    uint64_t ops = o ? strtoull(o, NULL, 10) : 5000;
    rng_state = seed;
    fprintf(stderr, "interleave: seed %" PRIu64 ", %" PRIu64 " operations\n", seed, ops);

    h_current = "setup";
    CHECK_OK(bc_encoder_new(&gen));
    CHECK_OK(bc_encoder_set_options(gen, BC_OPT_UUID | BC_OPT_LEGACY_STRUCTS));
    CHECK_OK(bc_encoder_new(&canon));
    CHECK_OK(bc_encoder_set_options(canon, BC_OPT_UUID | BC_OPT_LEGACY_STRUCTS));
    for (int i = 0; i < NDEC; i++) {
        CHECK_OK(bc_decoder_new(&decs[i].h));
        CHECK_OK(bc_decoder_limits(decs[i].h, &decs[i].limits));
    }
    for (int i = 0; i < NCH; i++) CHECK_OK(bc_dechunker_new(&chs[i].h));
    for (int i = 0; i < NCONN; i++) conn_open(&conns[i]);

    int any_failed = 0;
    char name[64];
    for (op_index = 0; op_index < ops;) {
        uint64_t end = op_index + 1000 < ops ? op_index + 1000 : ops;
        snprintf(name, sizeof name, "operations %" PRIu64 "..%" PRIu64, op_index, end - 1);
        CASE_BEGIN(name);
        for (; op_index < end && !h_current_failed; op_index++) one_operation();
        op_index = end;
        any_failed |= h_current_failed;
        CASE_END();
        if (any_failed) break; /* the first failure is the one to read */
    }

    for (int i = 0; i < NDEC; i++) { bc_decoder_free(decs[i].h); free(decs[i].kept); buf_free(&decs[i].snapshot); }
    for (int i = 0; i < NCH; i++) {
        ch_clear_feed(&chs[i]);
        bc_dechunker_free(chs[i].h);
        buf_free(&chs[i].history);
        buf_free(&chs[i].pending);
    }
    for (int i = 0; i < NCONN; i++) {
        bc_connection_free(conns[i].h);
        event_free(&conns[i].current_copy);
        buf_free(&conns[i].history);
        buf_free(&conns[i].pending);
    }
    bc_encoder_free(gen);
    bc_encoder_free(canon);
    fprintf(stderr,
            "interleave: %" PRIu64 " decodes (%" PRIu64 " failed), %" PRIu64 " feeds (%" PRIu64
            " failed, %" PRIu64 " messages), %" PRIu64 " receives (%" PRIu64 " failed), %" PRIu64 " events\n",
            n_decode, n_decode_err, n_feed, n_feed_err, n_msgs, n_receive, n_receive_err, n_events);
    h_current = "the whole run";
    h_current_failed = any_failed;
    CASE_END();
    return h_finish();
}
