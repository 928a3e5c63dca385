/* The ipc family's channels and their peer thread (ipc_transport.h). The
 * peer takes one job a sample from the benchmark thread, by a hand-over
 * under a mutex that stays outside the timed region, and then knows how
 * many messages of what size are coming: it reads each one whole, never
 * more, so no message is ever split between two jobs. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "suite/ipc_transport.h"
#include "suite/suite.h"

/* The benchmark's reads give up after this long without a byte: only a
 * UDP datagram can vanish (a full receive buffer drops it), and a lost one
 * must fail its row rather than hang the run. */
#define UDP_TIMEOUT_S 5

static int is_sock(const vn__ipc *t) { return t->kind != VN__IPC_PIPE; }

/* All n bytes to fd, whatever the kernel takes a call. */
static int write_all(int fd, int sock, const unsigned char *p, size_t n)
{
    while (n > 0) {
        /* MSG_NOSIGNAL: a closed peer is an error to report, not SIGPIPE. */
        ssize_t k = sock ? send(fd, p, n, MSG_NOSIGNAL) : write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -errno;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static long read_all(int fd, unsigned char *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, p + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -errno;
        if (k == 0)
            break;
        got += (size_t)k;
    }
    return (long)got;
}

/* A message out of fd: one datagram for UDP; else whole, in two writes
 * when split (its first 8 bytes, where a length-prefixed protocol puts its
 * header, or half of a message under 16 bytes; then the rest). */
static int put(const vn__ipc *t, int fd, const unsigned char *p, size_t n, int split)
{
    if (t->kind == VN__IPC_UDP) {
        for (;;) {
            ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
            if (k < 0 && errno == EINTR)
                continue;
            return k < 0 ? -errno : (size_t)k == n ? 0 : -EMSGSIZE;
        }
    }
    size_t first = split && n > 1 ? (n >= 16 ? 8 : n / 2) : 0;
    int rc = first ? write_all(fd, is_sock(t), p, first) : 0;
    return rc ? rc : write_all(fd, is_sock(t), p + first, n - first);
}

static long get(const vn__ipc *t, int fd, unsigned char *p, size_t n)
{
    if (t->kind != VN__IPC_UDP)
        return read_all(fd, p, n);
    for (;;) {
        /* MSG_TRUNC: the datagram's real length, so a longer one is seen. */
        ssize_t k = recv(fd, p, n, MSG_TRUNC);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return errno == EWOULDBLOCK ? -EAGAIN : -errno;
        return (size_t)k == n ? (long)k : -EMSGSIZE;
    }
}

int vn__ipc_send(vn__ipc *t, const void *p, size_t n)
{
    return put(t, t->out, p, n, t->split && t->job.mode == VN__IPC_ECHO);
}

long vn__ipc_recv(vn__ipc *t, void *p, size_t n) { return get(t, t->in, p, n); }

void vn__ipc_fill(unsigned char *p, size_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = (x + i) * 0xd6e8feb86659fd93ull;
        w ^= w >> 32;
        memcpy(p + i, &w, n - i < 8 ? n - i : 8);
    }
}

void vn__ipc_stamp(unsigned char *p, size_t n, uint64_t i) { memcpy(p, &i, n < 8 ? n : 8); }

int vn__ipc_check(const unsigned char *got, const unsigned char *want, size_t n, char *msg, size_t nmsg)
{
    if (memcmp(got, want, n) == 0)
        return 0;
    size_t i = 0;
    while (got[i] == want[i])
        i++;
    snprintf(msg, nmsg, "byte %zu differs: sent 0x%02x, got 0x%02x", i, want[i], got[i]);
    return 1;
}

static void peer_say(vn__ipc *t, const char *what, long rc, size_t n)
{
    if (rc < 0)
        snprintf(t->peer_error, sizeof t->peer_error, "the peer's %s: %s", what, strerror((int)-rc));
    else
        snprintf(t->peer_error, sizeof t->peer_error, "the peer's %s: %ld of %zu bytes, then the end",
                 what, rc, n);
}

/* Each message back as it came (one byte flipped under the test hook). */
static int peer_echo(vn__ipc *t, const vn__ipc_job *job)
{
    for (uint64_t i = 0; i < job->count; i++) {
        long got = get(t, t->peer_in, t->pbuf, job->size);
        if (got != (long)job->size) {
            peer_say(t, "read", got, job->size);
            return -1;
        }
        if (t->corrupt)
            t->pbuf[job->size / 2] ^= 0xff;
        int rc = put(t, t->peer_out, t->pbuf, job->size, t->split);
        if (rc) {
            peer_say(t, "write", rc, job->size);
            return -1;
        }
    }
    return 0;
}

/* The stream in, message by message: every message's stamp and every byte
 * of the last one checked, then one byte back, 0 when all was right. A
 * wrong message is reported and the stream read on to its end, so the
 * next job starts where it should. */
static int peer_sink(vn__ipc *t, const vn__ipc_job *job)
{
    unsigned char ack = 0, want[8];
    size_t n = job->size, ns = n < 8 ? n : 8;
    for (uint64_t i = 0; i < job->count; i++) {
        long got = get(t, t->peer_in, t->pbuf, n);
        if (got != (long)n) {
            peer_say(t, "read", got, n);
            return -1;
        }
        if (ack)
            continue;
        char msg[96];
        if (i + 1 == job->count) {
            vn__ipc_fill(t->pwant, n, job->seed);
            vn__ipc_stamp(t->pwant, n, i);
            if (t->corrupt)
                t->pbuf[n / 2] ^= 0xff;
            ack = (unsigned char)vn__ipc_check(t->pbuf, t->pwant, n, msg, sizeof msg);
        } else {
            vn__ipc_stamp(want, ns, i);
            ack = (unsigned char)vn__ipc_check(t->pbuf, want, ns, msg, sizeof msg);
        }
        if (ack)
            snprintf(t->peer_error, sizeof t->peer_error, "message %llu of %llu: %s",
                     (unsigned long long)i, (unsigned long long)job->count, msg);
    }
    int rc = write_all(t->peer_out, is_sock(t), &ack, 1);
    if (rc)
        peer_say(t, "reply", rc, 1);
    return rc ? -1 : 0;
}

static void *peer_main(void *arg)
{
    vn__ipc *t = arg;
    uint64_t seen = 0;
    int rc = 0;
    for (;;) {
        pthread_mutex_lock(&t->mu);
        while (!t->stop && t->gen == seen)
            pthread_cond_wait(&t->cv, &t->mu);
        if (t->stop) {
            pthread_mutex_unlock(&t->mu);
            break;
        }
        vn__ipc_job job = t->job;
        seen = t->took = t->gen;
        pthread_cond_broadcast(&t->cv);
        pthread_mutex_unlock(&t->mu);
        rc = job.mode == VN__IPC_ECHO ? peer_echo(t, &job) : peer_sink(t, &job);
        if (rc)
            break;
    }
    pthread_mutex_lock(&t->mu);
    t->dead = 1;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    /* A broken peer says so by closing its side, so that the benchmark's
     * read ends rather than waits; it reads on until the benchmark closes
     * its side, so that the benchmark's writes never block either. */
    if (rc && t->kind != VN__IPC_UDP) {
        if (is_sock(t))
            shutdown(t->peer_out, SHUT_WR);
        else {
            close(t->peer_out);
            t->peer_out = -1;
        }
        while (read_all(t->peer_in, t->pbuf, t->max) > 0)
            ;
    }
    return NULL;
}

int vn__ipc_start(vn__ipc *t, const vn__ipc_job *job)
{
    pthread_mutex_lock(&t->mu);
    if (!t->dead) {
        t->job = *job;
        t->gen++;
        pthread_cond_broadcast(&t->cv);
        while (t->took != t->gen && !t->dead)
            pthread_cond_wait(&t->cv, &t->mu);
    }
    int rc = t->took == t->gen && !t->dead ? 0 : -EPIPE;
    pthread_mutex_unlock(&t->mu);
    return rc;
}

static int fail(char *why, size_t nwhy, const char *what)
{
    int e = errno;
    snprintf(why, nwhy, "%s: %s", what, strerror(e));
    return -e;
}

/* Two ends over loopback: TCP (a listener, a connection and the accepted
 * side) or UDP (two sockets bound and connected to each other). */
static int open_inet(vn__ipc *t, char *why, size_t nwhy)
{
    int tcp = t->kind == VN__IPC_TCP, type = (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int l = socket(AF_INET, type, 0);
    if (l < 0)
        return fail(why, nwhy, tcp ? "socket(AF_INET, SOCK_STREAM) refused" : "socket(AF_INET, SOCK_DGRAM) refused");
    int rc = 0;
    if (bind(l, (struct sockaddr *)&a, sizeof a) || getsockname(l, (struct sockaddr *)&a, &len))
        rc = fail(why, nwhy, "no loopback: cannot bind 127.0.0.1");
    else if (tcp && listen(l, 1))
        rc = fail(why, nwhy, "listen on 127.0.0.1");
    int c = rc ? -1 : socket(AF_INET, type, 0);
    if (!rc && c < 0)
        rc = fail(why, nwhy, "socket(AF_INET) refused");
    struct sockaddr_in b = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    len = sizeof b;
    if (!rc && !tcp &&
        (bind(c, (struct sockaddr *)&b, sizeof b) || getsockname(c, (struct sockaddr *)&b, &len) ||
         connect(l, (struct sockaddr *)&b, sizeof b)))
        rc = fail(why, nwhy, "no loopback: UDP over 127.0.0.1");
    if (!rc && connect(c, (struct sockaddr *)&a, sizeof a))
        rc = fail(why, nwhy, "no loopback: cannot connect to 127.0.0.1");
    if (rc) {
        if (c >= 0)
            close(c);
        close(l);
        return rc;
    }
    int peer = l;
    if (tcp) {
        peer = accept4(l, NULL, NULL, SOCK_CLOEXEC);
        close(l);
        if (peer < 0) {
            rc = fail(why, nwhy, "accept on 127.0.0.1");
            close(c);
            return rc;
        }
        /* TCP_NODELAY unless --nagle: a message goes out when written. */
        int nodelay = !t->split;
        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof nodelay);
        setsockopt(peer, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof nodelay);
    } else {
        /* Room for a datagram of the largest size each way (the kernel
         * caps what is asked at its maximum), and a time limit on the
         * benchmark's reads, since a datagram can be lost. */
        int buf = 4 * VN__IPC_UDP_MAX;
        struct timeval tv = {UDP_TIMEOUT_S, 0};
        for (int k = 0; k < 2; k++) {
            setsockopt(k ? peer : c, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
            setsockopt(k ? peer : c, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
        }
        setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    }
    t->out = t->in = c;
    t->peer_in = t->peer_out = peer;
    return 0;
}

static int open_fds(vn__ipc *t, char *why, size_t nwhy)
{
    if (t->kind == VN__IPC_PIPE) {
        int a[2], b[2];
        if (pipe2(a, O_CLOEXEC))
            return fail(why, nwhy, "pipe");
        if (pipe2(b, O_CLOEXEC)) {
            int rc = fail(why, nwhy, "pipe");
            close(a[0]), close(a[1]);
            return rc;
        }
        t->out = a[1], t->peer_in = a[0], t->peer_out = b[1], t->in = b[0];
        return 0;
    }
    if (t->kind == VN__IPC_UNIX) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
            return fail(why, nwhy, "socketpair(AF_UNIX, SOCK_STREAM) refused");
        t->out = t->in = sv[0];
        t->peer_in = t->peer_out = sv[1];
        return 0;
    }
    return open_inet(t, why, nwhy);
}

static int start_peer(vn__ipc *t, char *why, size_t nwhy)
{
    int rc = vn__suite_thread(&t->thread, t->cpu, peer_main, t);
    if (rc) {
        errno = rc;
        char what[64];
        snprintf(what, sizeof what, "cannot start the peer on CPU %d", t->cpu);
        return fail(why, nwhy, t->cpu >= 0 ? what : "cannot start the peer thread");
    }
    t->started = 1;
    return 0;
}

int vn__ipc_open(vn__ipc *t, vn__ipc_kind kind, size_t max, int cpu, int split, int corrupt, char *why,
                 size_t nwhy)
{
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->max = max;
    t->cpu = cpu;
    t->split = split;
    t->corrupt = corrupt;
    t->out = t->in = t->peer_in = t->peer_out = -1;
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    t->pbuf = malloc(max);
    t->pwant = malloc(max);
    if (!t->pbuf || !t->pwant) {
        snprintf(why, nwhy, "out of memory for messages of %zu bytes", max);
        vn__ipc_close(t);
        return VN_ENOMEM;
    }
    int rc = open_fds(t, why, nwhy);
    if (!rc)
        rc = start_peer(t, why, nwhy);
    if (rc)
        vn__ipc_close(t);
    return rc;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

void vn__ipc_close(vn__ipc *t)
{
    if (t->started) {
        pthread_mutex_lock(&t->mu);
        t->stop = 1;
        pthread_cond_broadcast(&t->cv);
        pthread_mutex_unlock(&t->mu);
        /* A peer in the middle of a job (its row failed) reads the end of
         * the stream; one waiting for a datagram needs the shutdown. */
        if (t->in == t->out)
            t->in = -1;
        close_fd(&t->out);
        close_fd(&t->in);
        if (is_sock(t))
            shutdown(t->peer_in, SHUT_RDWR);
        pthread_join(t->thread, NULL);
        t->started = 0;
    }
    if (t->in == t->out)
        t->in = -1;
    if (t->peer_in == t->peer_out)
        t->peer_out = -1;
    close_fd(&t->out);
    close_fd(&t->in);
    close_fd(&t->peer_in);
    close_fd(&t->peer_out);
    pthread_mutex_destroy(&t->mu);
    pthread_cond_destroy(&t->cv);
    free(t->pbuf);
    free(t->pwant);
    t->pbuf = t->pwant = NULL;
}
