/*
 * query: run one Cypher query against a Bolt server and print the rows, using only the
 * boltcodec C API and plain POSIX sockets.
 *
 *   query [options] "CYPHER"
 *     -h HOST      server host (default 127.0.0.1)
 *     -p PORT      Bolt port (default $NEO4J_BOLT_PORT, else 7687)
 *     -u USER      user (default $NEO4J_USER, else neo4j)
 *     -w PASSWORD  password (default $NEO4J_PASSWORD)
 *     -d DATABASE  database (default: the user's home database)
 *     -c BYTES     move at most BYTES per read()/write() call (default 65536), to show
 *                  that short reads and writes are handled
 *
 * Output: a header line with the column names, then one line per row; columns are
 * separated by tabs and values printed with bc_value_format. Exit status 0 on success,
 * 1 on a server FAILURE or protocol error, 2 on bad usage or a network error.
 *
 * The connection is sans-IO: bc_connection never touches the socket. The loop below
 * writes its output, reads what the server sends, feeds it back and handles events.
 */
#define _POSIX_C_SOURCE 200112L
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boltcodec.h"

static size_t io_chunk = 65536;

static void die_status(const char *what, bc_connection *c, bc_status st) {
    bc_error err;
    bc_connection_last_error(c, &err);
    fprintf(stderr, "query: %s: %s (%s)\n", what, bc_status_name((int32_t)st), err.message);
    exit(1);
}

/* Writes all pending output; handles partial writes and EINTR. */
static void flush_output(int fd, bc_connection *c) {
    for (;;) {
        const uint8_t *p;
        size_t n;
        bc_status st = bc_connection_output(c, &p, &n);
        if (st != BC_OK) die_status("output", c, st);
        if (n == 0) return;
        ssize_t w = send(fd, p, n < io_chunk ? n : io_chunk, 0);
        if (w < 0) {
            if (errno == EINTR) continue;
            perror("query: send");
            exit(2);
        }
        st = bc_connection_consume_output(c, (size_t)w);
        if (st != BC_OK) die_status("consume_output", c, st);
    }
}

/* Reads whatever the server sent (possibly a single byte) and feeds it. */
static void read_input(int fd, bc_connection *c) {
    static uint8_t buf[65536];
    ssize_t r;
    do {
        r = recv(fd, buf, io_chunk < sizeof buf ? io_chunk : sizeof buf, 0);
    } while (r < 0 && errno == EINTR);
    if (r < 0) {
        perror("query: recv");
        exit(2);
    }
    if (r == 0) {
        fprintf(stderr, "query: the server closed the connection\n");
        exit(2);
    }
    bc_status st = bc_connection_receive(c, buf, (size_t)r);
    if (st != BC_OK) die_status("receive", c, st);
}

static int connect_to(const char *host, const char *port) {
    struct addrinfo hints, *res, *ai;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        fprintf(stderr, "query: %s:%s: %s\n", host, port, gai_strerror(rc));
        exit(2);
    }
    int fd = -1;
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0) continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        fprintf(stderr, "query: cannot connect to %s:%s\n", host, port);
        exit(2);
    }
    return fd;
}

/* Prints a value with bc_value_format, growing the buffer when needed. */
static void print_value(const bc_value *v, const bc_version *version) {
    static char *buf;
    static size_t cap;
    size_t needed = 0;
    bc_status st = bc_value_format(v, version, buf, cap, &needed);
    if (st == BC_ERR_BUFFER_TOO_SMALL) {
        free(buf);
        cap = needed * 2;
        buf = malloc(cap);
        if (!buf) exit(2);
        st = bc_value_format(v, version, buf, cap, &needed);
    }
    if (st != BC_OK) {
        fprintf(stderr, "query: format: %s\n", bc_status_name((int32_t)st));
        exit(1);
    }
    fputs(buf, stdout);
}

/* Encodes a map of string entries (key, value, key, value, …, NULL) for HELLO / RUN. */
static void encode_str_map(bc_encoder *e, const char *const *kv) {
    size_t n = 0;
    while (kv[2 * n]) n++;
    bc_encoder_clear(e);
    bc_encoder_write_map_header(e, n);
    for (size_t i = 0; i < 2 * n; i++) bc_encoder_write_string(e, kv[i], strlen(kv[i]));
}

int main(int argc, char **argv) {
    const char *host = "127.0.0.1";
    const char *port = getenv("NEO4J_BOLT_PORT") ? getenv("NEO4J_BOLT_PORT") : "7687";
    const char *user = getenv("NEO4J_USER") ? getenv("NEO4J_USER") : "neo4j";
    const char *password = getenv("NEO4J_PASSWORD") ? getenv("NEO4J_PASSWORD") : "";
    const char *database = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "h:p:u:w:d:c:")) != -1) {
        switch (opt) {
        case 'h': host = optarg; break;
        case 'p': port = optarg; break;
        case 'u': user = optarg; break;
        case 'w': password = optarg; break;
        case 'd': database = optarg; break;
        case 'c': io_chunk = (size_t)strtoul(optarg, NULL, 10); break;
        default: return 2;
        }
    }
    if (optind != argc - 1 || io_chunk == 0) {
        fprintf(stderr, "usage: %s [-h host] [-p port] [-u user] [-w password] [-d db] [-c bytes] CYPHER\n",
                argv[0]);
        return 2;
    }
    const char *cypher = argv[optind];

    int fd = connect_to(host, port);
    bc_connection *c;
    bc_encoder *e;
    if (bc_connection_new(NULL, &c) != BC_OK || bc_encoder_new(&e) != BC_OK) return 2;

    /* 1. Handshake: the connection's first output is the handshake. */
    bc_event ev;
    bc_version version = {0, 0, 0, {0}, 0};
    while (version.major == 0) {
        flush_output(fd, c);
        read_input(fd, c);
        bc_status st = bc_connection_poll_event(c, &ev);
        if (st != BC_OK) die_status("poll", c, st);
        if (ev.kind == BC_EVENT_NEGOTIATED) version = ev.version;
    }

    /* 2. Pipeline HELLO, LOGON (Bolt 5.1+; before that the auth goes into HELLO), RUN and
     *    PULL, then write them all at once. From Bolt 5.3 servers require bolt_agent. */
    bool has_logon = version.major > 5 || (version.major == 5 && version.minor >= 1);
    bc_encoder_clear(e);
    bc_encoder_write_map_header(e, has_logon ? 1 : 4);
    bc_encoder_write_string(e, "bolt_agent", 10);
    bc_encoder_write_map_header(e, 1);
    bc_encoder_write_string(e, "product", 7);
    bc_encoder_write_string(e, "boltcodec-c-example/0.1", 23);
    if (!has_logon) {
        const char *auth[] = {"scheme", "basic", "principal", user, "credentials", password};
        for (int i = 0; i < 6; i++) bc_encoder_write_string(e, auth[i], strlen(auth[i]));
    }
    const uint8_t *extra;
    size_t extra_len;
    bc_encoder_data(e, &extra, &extra_len);
    bc_status st = bc_connection_send_hello(c, "boltcodec-c-example/0.1", 23, extra, extra_len);
    if (st != BC_OK) die_status("HELLO", c, st);
    if (has_logon) {
        st = bc_connection_send_logon_basic(c, user, strlen(user), password, strlen(password));
        if (st != BC_OK) die_status("LOGON", c, st);
    }
    const char *db_extra[] = {"db", database, NULL};
    if (database) {
        encode_str_map(e, db_extra);
        bc_encoder_data(e, &extra, &extra_len);
    } else {
        extra = NULL;
        extra_len = 0;
    }
    st = bc_connection_send_run(c, cypher, strlen(cypher), NULL, 0, extra, extra_len);
    if (st != BC_OK) die_status("RUN", c, st);
    st = bc_connection_send_pull(c, -1, -1);
    if (st != BC_OK) die_status("PULL", c, st);

    /* 3. Events until the PULL's summary. */
    int done = 0, failed = 0;
    while (!done) {
        flush_output(fd, c);
        read_input(fd, c);
        for (;;) {
            st = bc_connection_poll_event(c, &ev);
            if (st != BC_OK) die_status("poll", c, st);
            if (ev.kind == BC_EVENT_NONE) break;
            if (ev.kind == BC_EVENT_SUCCESS && ev.request == BC_REQUEST_RUN) {
                const bc_value *fields;
                if (bc_value_map_get(ev.value, "fields", 6, &fields) == BC_OK) {
                    for (uint32_t i = 0; i < fields->len; i++) {
                        const bc_value *f = &fields->data.items[i];
                        if (i) putchar('\t');
                        if (f->kind == BC_TYPE_STRING) fwrite(f->data.s, 1, f->len, stdout);
                    }
                    putchar('\n');
                }
            } else if (ev.kind == BC_EVENT_RECORD) {
                for (uint32_t i = 0; i < ev.value->len; i++) {
                    if (i) putchar('\t');
                    print_value(&ev.value->data.items[i], &version);
                }
                putchar('\n');
            } else if (ev.kind == BC_EVENT_SUCCESS && ev.request == BC_REQUEST_PULL) {
                done = 1;
            } else if (ev.kind == BC_EVENT_FAILURE) {
                fprintf(stderr, "query: %s failed: %s: %s\n",
                        ev.request == BC_REQUEST_RUN ? "RUN" : "request",
                        ev.code ? ev.code : "?", ev.message ? ev.message : "?");
                failed = 1;
                bc_server_state state;
                if (bc_connection_state(c, &state) == BC_OK && state == BC_STATE_DEFUNCT) done = 1;
            } else if (ev.kind == BC_EVENT_IGNORED) {
                done = 1; /* the PULL after a failed request */
            }
        }
    }

    /* 4. A polite goodbye. */
    if (bc_connection_send_goodbye(c) == BC_OK) flush_output(fd, c);
    close(fd);
    fflush(stdout);
    bc_encoder_free(e);
    bc_connection_free(c);
    return failed ? 1 : 0;
}
