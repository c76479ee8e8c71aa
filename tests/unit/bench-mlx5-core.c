/*
 * Benchmark of the device core alone (issue 9): two mlx5 cores in one process, linked by the
 * in-memory wire of the unit tests, with flat fake guest memory (DMA is a pointer offset and a
 * memcpy, as in QEMU's RAM). It measures RDMA WRITE bandwidth with 1 MiB messages and the
 * SEND message rate with 64-byte messages, beside memcpy bandwidth measured in the same
 * process, and prints each as the median of several repetitions with min and max. It also
 * measures what every payload byte must go through on this design (a copy into a frame and
 * out of it, at packet size, and the ICRC's CRC-32 on each side) and prints the bound that
 * sets: the core cannot be faster than two 4 KiB copies plus two CRCs of every byte. And it
 * measures the link between two QEMUs alone (a Unix stream socket carrying 4 KiB frames the way
 * -netdev stream does), the ceiling of the two-guest path.
 *
 *   bench-mlx5-core [--smoke] [--json FILE]
 *
 * --smoke runs each figure once for a moment (CI: it only asserts that every figure is
 * produced, never a timing). Built with -O2 and without the sanitizers of the unit tests.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-testqp.h"
#include "mlx5_internal.h"
#include <time.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <arpa/inet.h>
#include <unistd.h>

#define MIB         (1u << 20)
#define REPS        5

static double min_time = 0.4;       /* seconds per repetition */
static int reps = REPS;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct Figure {
    const char *name, *unit;
    double v[REPS];
    double median, min, max;
} Figure;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static void settle(Figure *f)
{
    double s[REPS];

    memcpy(s, f->v, sizeof(s));
    qsort(s, reps, sizeof(double), cmp_double);
    f->min = s[0];
    f->max = s[reps - 1];
    f->median = s[reps / 2];
}

/* memcpy of 1 MiB in @block-sized copies (1 MiB; 4 KiB, a packet's payload), GB/s */
static double run_memcpy(size_t block)
{
    g_autofree uint8_t *src = g_malloc(MIB), *dst = g_malloc(MIB);
    double t0 = now_s(), t;
    uint64_t bytes = 0;

    memset(src, 0x5a, MIB);
    memset(dst, 0, MIB);
    do {
        for (int i = 0; i < 16; i++) {
            for (size_t off = 0; off < MIB; off += block) {
                memcpy(dst + off, src + off, block);
            }
            src[i] ^= dst[MIB - 1 - i];     /* keep the copies observable */
            bytes += MIB;
        }
        t = now_s() - t0;
    } while (t < min_time);
    return bytes / t / 1e9;
}

/* the ICRC's CRC-32 (ib_crc32) over 4 KiB payloads within 1 MiB, GB/s */
static double run_crc_4k(void)
{
    g_autofree uint8_t *buf = g_malloc(MIB);
    double t0 = now_s(), t;
    uint64_t bytes = 0;
    uint32_t crc = 0;

    memset(buf, 0x5a, MIB);
    do {
        for (unsigned off = 0; off < MIB; off += 4096) {
            crc = ib_crc32(crc, buf + off, 4096);
        }
        buf[crc & 0xfff] ^= 1;
        bytes += MIB;
        t = now_s() - t0;
    } while (t < min_time);
    return bytes / t / 1e9;
}

/*
 * The fabric link between two QEMUs (-netdev stream), alone: 4 KiB-payload RoCE-sized frames
 * through a Unix stream socket the way QEMU's net/stream.c moves them (one writev of a 4-byte
 * length and the frame per packet; the reader takes up to NET_BUFSIZE per read and copies
 * each frame out of it, as net_fill_rstate does). Payload GB/s: the ceiling of the two-guest
 * path before any guest, TCG or device work.
 */
#define FRAME_HDR   58                  /* Eth + IPv4 + UDP + BTH + RETH... as ib_wire sends */
#define FRAME_LEN   (FRAME_HDR + 4096 + 4)
#define STREAM_BUF  (4096 + 65536)      /* NET_BUFSIZE */

typedef struct Stream {
    int fd;
    uint64_t frames;
} Stream;

static void *stream_writer(void *opaque)
{
    Stream *s = opaque;
    uint8_t frame[FRAME_LEN];
    uint32_t len = htonl(FRAME_LEN);
    struct iovec iov[2] = { { &len, 4 }, { frame, FRAME_LEN } };

    memset(frame, 0x5a, sizeof(frame));
    for (uint64_t i = 0; i < s->frames; i++) {
        size_t left = 4 + FRAME_LEN;
        struct iovec v[2] = { iov[0], iov[1] };
        struct iovec *cur = v;
        int n = 2;

        frame[i % FRAME_LEN] ^= 1;
        while (left) {
            ssize_t w = writev(s->fd, cur, n);
            if (w <= 0) {
                return NULL;
            }
            left -= w;
            while (n && (size_t)w >= cur->iov_len) {
                w -= cur->iov_len;
                cur++;
                n--;
            }
            if (n) {
                cur->iov_base = (uint8_t *)cur->iov_base + w;
                cur->iov_len -= w;
            }
        }
    }
    return NULL;
}

static double run_stream(void)
{
    g_autofree uint8_t *buf = g_malloc(STREAM_BUF), *frame = g_malloc(FRAME_LEN);
    int sv[2];
    Stream s;
    pthread_t th;
    uint64_t got = 0, want;
    unsigned have = 0, need = 4;        /* the parser: a 4-byte length, then the frame */
    bool in_len = true;
    uint8_t lenb[4];
    double t0, t;

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
        return 0;
    }
    s.fd = sv[0];
    s.frames = want = (uint64_t)(min_time * 2e5) + 64;
    t0 = now_s();
    pthread_create(&th, NULL, stream_writer, &s);
    while (got < want) {
        ssize_t r = read(sv[1], buf, STREAM_BUF);

        if (r <= 0) {
            break;
        }
        for (ssize_t i = 0; i < r; ) {
            unsigned take = MIN(need - have, (unsigned)(r - i));

            memcpy((in_len ? lenb : frame) + have, buf + i, take);
            have += take;
            i += take;
            if (have < need) {
                continue;
            }
            if (in_len) {
                memcpy(&need, lenb, 4);
                need = ntohl(need);
                if (need != FRAME_LEN) {
                    goto out;
                }
                in_len = false;
            } else {
                got++;
                need = 4;
                in_len = true;
            }
            have = 0;
        }
    }
out:
    t = now_s() - t0;
    pthread_join(th, NULL);
    close(sv[0]);
    close(sv[1]);
    return got == want ? got * 4096.0 / t / 1e9 : 0;
}

typedef struct Pair {
    TDrv *a, *b;
    TQp qa, qb;
} Pair;

static void pair_up(Pair *p)
{
    fake_flat_bytes = 64ull * MIB;
    p->a = new_node(1);
    p->b = new_node(2);
    tqp_create(&p->qa, p->a, MLX5_QP_ST_RC, 1);
    tqp_create(&p->qb, p->b, MLX5_QP_ST_RC, 2);
    p->qa.mtu = p->qb.mtu = 5;      /* 4096, the port's MTU, as perftest uses it */
    tqp_connect(&p->qa, p->b->c->cfg.lid, p->qb.qpn, 0);
    tqp_connect(&p->qb, p->a->c->cfg.lid, p->qa.qpn, 0);
}

static void pair_down(Pair *p)
{
    tdrv_free(p->a);
    tdrv_free(p->b);
    fake_flat_bytes = 0;
}

/* run both cores until @q has a CQE (bounded: a lost completion is a failure) */
static void wait_cqe(Pair *p, TQp *q, uint8_t *cqe)
{
    for (unsigned i = 0; !tqp_poll(q, cqe); i++) {
        if (i > 10000000) {
            fprintf(stderr, "bench: no completion\n");
            exit(1);
        }
        run_pair(p->a, p->b, 1);
    }
    if ((cqe[63] >> 4) != MLX5_CQE_REQ && (cqe[63] >> 4) != MLX5_CQE_RESP_SEND) {
        fprintf(stderr, "bench: bad completion opcode %u\n", cqe[63] >> 4);
        exit(1);
    }
}

/* RDMA WRITE of 1 MiB, one at a time, GB/s */
static double run_write(Pair *p)
{
    uint8_t segs[32], cqe[64];
    double t0 = now_s(), t;
    uint64_t bytes = 0;

    do {
        raddr_seg(segs, p->qb.mem, p->qb.key);
        data_seg(segs + 16, MIB, p->qa.key, p->qa.mem);
        tqp_post_send(&p->qa, MLX5_OPCODE_RDMA_WRITE, 0, segs, 2, true, true);
        wait_cqe(p, &p->qa, cqe);
        bytes += MIB;
        t = now_s() - t0;
    } while (t < min_time);
    return bytes / t / 1e9;
}

/* SEND of 64 bytes in batches of 16, million messages/s */
static double run_send(Pair *p)
{
    enum { BATCH = 16 };
    uint8_t segs[16], cqe[64];
    double t0 = now_s(), t;
    uint64_t msgs = 0;

    do {
        for (int i = 0; i < BATCH; i++) {
            tqp_post_recv(&p->qb, 64, p->qb.mem + i * 64);
        }
        for (int i = 0; i < BATCH; i++) {
            data_seg(segs, 64, p->qa.key, p->qa.mem + i * 64);
            tqp_post_send(&p->qa, MLX5_OPCODE_SEND, 0, segs, 1, true, i == BATCH - 1);
        }
        for (int i = 0; i < BATCH; i++) {
            wait_cqe(p, &p->qb, cqe);
            wait_cqe(p, &p->qa, cqe);
        }
        msgs += BATCH;
        t = now_s() - t0;
    } while (t < min_time);
    return msgs / t / 1e6;
}

int main(int argc, char **argv)
{
    Figure f[] = {
        { .name = "memcpy, 1 MiB blocks", .unit = "GB/s" },
        { .name = "core: RDMA WRITE 1 MiB", .unit = "GB/s" },
        { .name = "core: SEND 64 B", .unit = "Mmsg/s" },
        { .name = "memcpy, 4 KiB blocks", .unit = "GB/s" },
        { .name = "CRC-32 (ICRC), 4 KiB", .unit = "GB/s" },
        { .name = "stream socket, 4 KiB", .unit = "GB/s" },
    };
    double ceiling;
    const char *json = NULL;
    bool smoke = false;
    Pair p;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--smoke")) {
            smoke = true;
        } else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
            json = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--smoke] [--json FILE]\n", argv[0]);
            return 2;
        }
    }
    if (smoke) {
        min_time = 0.01;
        reps = 1;
    }
    mlx5_test_trace_off = true;     /* QEMU's disabled trace points cost a branch, not a count */
    for (int r = 0; r < reps; r++) {
        f[0].v[r] = run_memcpy(MIB);
        f[3].v[r] = run_memcpy(4096);
        f[4].v[r] = run_crc_4k();
        f[5].v[r] = run_stream();
        pair_up(&p);
        f[1].v[r] = run_write(&p);
        f[2].v[r] = run_send(&p);
        pair_down(&p);
    }
    printf("%-26s %10s %10s %10s %s\n", "figure", "median", "min", "max", "unit");
    for (unsigned i = 0; i < G_N_ELEMENTS(f); i++) {
        settle(&f[i]);
        printf("%-26s %10.3f %10.3f %10.3f %s\n", f[i].name, f[i].median, f[i].min, f[i].max,
               f[i].unit);
        if (!(f[i].median > 0)) {
            fprintf(stderr, "bench: %s produced no figure\n", f[i].name);
            return 1;
        }
    }
    printf("%-26s %10.1f %%\n", "core WRITE / memcpy", 100 * f[1].median / f[0].median);
    /* every payload byte: copied into a frame and out of it, CRC'd when sent and received */
    ceiling = 1 / (2 / f[3].median + 2 / f[4].median);
    printf("%-26s %10.3f GB/s, %.1f %% of memcpy\n", "bound: 2 copies + 2 CRCs", ceiling,
           100 * ceiling / f[0].median);
    /* two guests: every byte also crosses the -netdev stream socket */
    printf("%-26s %10.1f %%\n", "bound: stream / memcpy", 100 * f[5].median / f[0].median);
    if (json) {
        FILE *o = fopen(json, "w");
        if (!o) {
            perror(json);
            return 1;
        }
        fprintf(o, "{\n  \"repetitions\": %d,\n  \"figures\": [\n", reps);
        for (unsigned i = 0; i < G_N_ELEMENTS(f); i++) {
            fprintf(o, "    {\"name\": \"%s\", \"unit\": \"%s\", \"median\": %.4f, \"min\": %.4f, "
                    "\"max\": %.4f}%s\n", f[i].name, f[i].unit, f[i].median, f[i].min, f[i].max,
                    i + 1 < G_N_ELEMENTS(f) ? "," : "");
        }
        fprintf(o, "  ],\n  \"core_write_over_memcpy\": %.4f,\n"
                "  \"bound_copies_crcs_gbs\": %.4f,\n  \"bound_over_memcpy\": %.4f,\n"
                "  \"stream_over_memcpy\": %.4f\n}\n",
                f[1].median / f[0].median, ceiling, ceiling / f[0].median,
                f[5].median / f[0].median);
        fclose(o);
    }
    return 0;
}
