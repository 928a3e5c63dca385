/* The transports of the ipc family: a channel to a peer thread over a pipe
 * pair, a Unix socketpair, TCP or UDP over loopback, and the peer's two
 * jobs: echo each message back, or take a stream of them in (a sink). The
 * benchmarks (ipc.c) move the bytes and time them; this file opens, runs
 * and closes the channels. */
#ifndef VN_SUITE_IPC_TRANSPORT_H
#define VN_SUITE_IPC_TRANSPORT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { VN__IPC_PIPE, VN__IPC_UNIX, VN__IPC_TCP, VN__IPC_UDP } vn__ipc_kind;

/* What the peer does for one sample. */
typedef enum { VN__IPC_ECHO = 1, VN__IPC_SINK } vn__ipc_mode;

/* UDP over IPv4: 65535 bytes of IP packet less its 20-byte header and the
 * 8-byte UDP header. */
#define VN__IPC_UDP_MAX 65507

typedef struct vn__ipc_job {
    vn__ipc_mode mode;
    size_t size;          /* bytes a message */
    uint64_t count;       /* messages */
    uint64_t seed;        /* of the sample's pattern (the sink checks it) */
} vn__ipc_job;

typedef struct vn__ipc {
    vn__ipc_kind kind;
    int split;            /* write each message in two parts (see vn__ipc_send) */
    int corrupt;          /* test hook: the peer flips one byte a message */
    int out, in;          /* the benchmark's ends (one socket: both the same) */
    int peer_in, peer_out;
    size_t max;           /* the largest message */
    unsigned char *pbuf, *pwant; /* the peer's: what it read, what the sink expects */
    pthread_t thread;
    int started, cpu;
    /* The hand-over of a job (guarded by mu): the benchmark bumps gen and
     * waits until the peer has taken it (took == gen) or died. */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t gen, took;
    vn__ipc_job job;
    int stop, dead;
    /* The peer's word on a job that failed: written before its reply, so
     * the benchmark reads it after the reply arrived. */
    char peer_error[160];
} vn__ipc;

/* Opens a channel of kind with a peer thread (pinned to cpu unless it is
 * -1) for messages of up to max bytes; split and corrupt as above, and
 * TCP with Nagle's algorithm on when split is set. 0, or a negative
 * VN_E* code or -errno with the reason, for a skipped row, in why. */
int vn__ipc_open(vn__ipc *t, vn__ipc_kind kind, size_t max, int cpu, int split, int corrupt,
                 char *why, size_t nwhy);
/* Stops the peer, joins it and closes everything; t may be half open. */
void vn__ipc_close(vn__ipc *t);

/* Hands the peer its next job and waits until it took it. 0, or -EPIPE
 * when the peer has stopped (peer_error says why). */
int vn__ipc_start(vn__ipc *t, const vn__ipc_job *job);

/* One whole message, n bytes, however many calls it takes (EINTR and
 * partial writes retried); for UDP, one datagram. 0 or -errno. */
int vn__ipc_send(vn__ipc *t, const void *p, size_t n);
/* Reads one whole message of n bytes: n, fewer when the other end closed
 * first, or -errno (-EAGAIN: a UDP datagram lost, no reply in time; -EMSGSIZE:
 * a datagram of another size). */
long vn__ipc_recv(vn__ipc *t, void *p, size_t n);

/* The pattern of a message: n bytes from seed, different for every seed,
 * so a stale, shifted or truncated buffer never passes. */
void vn__ipc_fill(unsigned char *p, size_t n, uint64_t seed);
/* Stamps the first bytes of a message with its number in a stream. */
void vn__ipc_stamp(unsigned char *p, size_t n, uint64_t i);
/* 0 when got equals want; else 1 and a message naming the first byte
 * that differs. */
int vn__ipc_check(const unsigned char *got, const unsigned char *want, size_t n, char *msg,
                  size_t nmsg);

#endif
