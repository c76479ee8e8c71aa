/*
 * rdma-verify - RDMA data-integrity test between two hosts, libibverbs only.
 *
 *   server:  rdma-verify [-d mlx5_0] [-i ib_port] [-p tcp_port] [-r rounds] [-U]
 *   client:  rdma-verify [-d mlx5_0] [-i ib_port] [-p tcp_port] [-r rounds] [-U] SERVER_IP
 *
 * The two sides exchange LID, QP numbers, PSN, rkey and the address of a "window" MR over TCP
 * (as ibv_rc_pingpong does), then run two rounds, the server active in the first and the client
 * in the second. Each round moves patterned data (every byte a function of a per-message seed
 * and its offset) with RC SEND (sizes 1 B .. 1 MiB, with immediate, multi-SGE gather and
 * scatter, inline), RC RDMA WRITE into the peer's window at unaligned offsets (the last one
 * with immediate, which tells the peer to check the whole window), RC RDMA READ from the peer's
 * window, 8-byte fetch-and-add and compare-and-swap, and UD SEND (40-byte GRH area). Every
 * received byte is checked, and so are canary bytes around it (no overrun). Every verbs call,
 * completion status, opcode, wr_id and length is checked; a completion that does not come
 * within 60 s is a failure. Exit 0 only after printing
 *   rdma-verify: N messages, M bytes verified, OK
 */
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_S 60                   /* per completion */
#define MAX_MSG   (1u << 20)
#define BUF_SIZE  (MAX_MSG + (1u << 17)) /* send/recv buffers and the RDMA window */
#define AUX_SIZE  (1u << 17)           /* second MR: SGE pieces, atomic results */
#define GAP       61                   /* bytes between the pieces of an SGE list */
#define MAX_SGE   4
#define EXTRA     256                  /* canary bytes checked after received data */
#define GRH_LEN   40
#define QKEY      0x11111111u
#define ATOM_OFF  (BUF_SIZE - 64)      /* 8-byte atomic target in the window */

struct cqw { struct ibv_comp_channel *ch; struct ibv_cq *cq; int armed; };
struct dest { unsigned lid, rcqpn, udqpn, psn, rkey, mtu, rc_inline, ud_inline; uint64_t addr; };
/* a message's logical bytes [0, total) split over SGEs */
struct layout { int n; struct ibv_sge sge[MAX_SGE]; uint32_t moff[MAX_SGE + 1]; };
struct region { struct ibv_mr *mr; uint32_t cur; };   /* allocation cursor in an MR */
struct span { uint32_t off, len; uint64_t seed; };     /* written part of the window */

static struct {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct cqw scq, rcq;
    struct ibv_qp *rc, *ud;
    struct ibv_ah *ah;
    struct ibv_mr *smr, *rmr, *wmr, *amr;      /* send, recv, window (remote access), aux */
    uint8_t *win, *aux;
    uint32_t rc_inline, ud_inline, mtu_bytes;
    int rd_atom, dest_rd_atom, ib_port, sock;
    struct dest me, peer;
    unsigned long msgs;
    unsigned long long bytes;
} g;

/* a verbs/libc call that returns NULL and sets errno on failure */
#define MUST(ptr, call) \
    do { if (!((ptr) = (call))) die("%s: %s", #call, strerror(errno)); } while (0)

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "rdma-verify: FAIL: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the data pattern: byte `off` of the message with seed `seed` ---------------------------- */
static uint64_t mix(uint64_t x)                 /* splitmix64 finalizer */
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
static uint8_t pat(uint64_t seed, uint64_t off)
{
    return mix(seed ^ (off >> 3)) >> ((off & 7) * 8);
}
static uint64_t mkseed(int kind, int round, int i, uint32_t len)
{
    return mix(((uint64_t)kind << 56) ^ ((uint64_t)round << 48) ^ ((uint64_t)i << 32) ^ len);
}
static uint64_t canary(uint64_t seed) { return mix(seed ^ 0xca11ab1e5eedull); }

/* Split `total` logical bytes into n pieces, each at the cursor of `r` (piece 1 in `alt` if
 * given, to mix two MRs), GAP bytes apart, so no two pieces are adjacent in memory. */
static void layout(struct layout *lo, int n, uint32_t total, struct region *r, struct region *alt)
{
    lo->n = total ? n : 0;                      /* a zero-length message has no SGE */
    for (int i = 0; i <= n; i++)
        lo->moff[i] = i == n ? total : (uint32_t)((uint64_t)total * i / n) + i;
    for (int i = 0; i < lo->n; i++) {
        struct region *m = (alt && i == 1) ? alt : r;
        uint32_t len = lo->moff[i + 1] - lo->moff[i];
        if (lo->moff[i + 1] <= lo->moff[i] || m->cur + len > m->mr->length)
            die("internal: layout of %u bytes in %d pieces does not fit", total, n);
        lo->sge[i].addr = (uintptr_t)m->mr->addr + m->cur;
        lo->sge[i].length = len;
        lo->sge[i].lkey = m->mr->lkey;
        m->cur += len + GAP;
    }
}

/* Expected byte at logical position p: below `skip` anything (GRH area), then `len` data bytes
 * pat(seed, base + ...), then canary bytes pat(cseed, p). */
#define EXPECT(p) ((p) < skip + len ? pat(seed, base + (p) - skip) : pat(cseed, (p)))
static void lo_fill(struct layout *lo, uint64_t seed, uint64_t base, uint32_t skip, uint32_t len,
                    uint64_t cseed)
{
    for (int i = 0; i < lo->n; i++) {
        uint8_t *b = (uint8_t *)(uintptr_t)lo->sge[i].addr;
        for (uint32_t p = lo->moff[i]; p < lo->moff[i + 1]; p++)
            b[p - lo->moff[i]] = p < skip ? 0xee : EXPECT(p);
    }
}

static void lo_check(struct layout *lo, uint64_t seed, uint64_t base, uint32_t skip, uint32_t len,
                     uint64_t cseed, const char *what)
{
    unsigned long bad = 0;
    uint32_t first = 0;
    uint8_t exp = 0, got = 0;
    for (int i = 0; i < lo->n; i++) {
        uint8_t *b = (uint8_t *)(uintptr_t)lo->sge[i].addr;
        for (uint32_t p = lo->moff[i] > skip ? lo->moff[i] : skip; p < lo->moff[i + 1]; p++)
            if (b[p - lo->moff[i]] != EXPECT(p) && !bad++) {
                first = p; exp = EXPECT(p); got = b[p - lo->moff[i]];
            }
    }
    if (bad) {
        int i = 0;
        while (first >= lo->moff[i + 1])
            i++;
        die("%s: data mismatch at offset %u (%s, SGE %d of %d, +%u): expected 0x%02x, "
            "got 0x%02x; %lu bad bytes", what, first - skip,
            first < skip + len ? "payload" : "after the payload", i, lo->n, first - lo->moff[i],
            exp, got, bad);
    }
    g.msgs++;
    g.bytes += len;
}

/* ---- verbs helpers --------------------------------------------------------------------- */
static void next_wc(struct cqw *c, struct ibv_wc *wc, const char *what)
{
    double deadline = now() + TIMEOUT_S;
    for (;;) {
        int n = ibv_poll_cq(c->cq, 1, wc);
        if (n < 0)
            die("%s: ibv_poll_cq failed (%d)", what, n);
        if (n == 1)
            return;
        if (!c->armed) {              /* arm, then poll once more before sleeping */
            int ret = ibv_req_notify_cq(c->cq, 0);
            if (ret)
                die("%s: ibv_req_notify_cq: %s", what, strerror(ret));
            c->armed = 1;
            continue;
        }
        double left = deadline - now();
        if (left <= 0)
            die("%s: no completion within %d s", what, TIMEOUT_S);
        struct pollfd pfd = { .fd = c->ch->fd, .events = POLLIN };
        int r = poll(&pfd, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno != EINTR)
            die("%s: poll: %s", what, strerror(errno));
        if (r > 0) {
            struct ibv_cq *ev_cq;
            void *ev_ctx;
            if (ibv_get_cq_event(c->ch, &ev_cq, &ev_ctx)) {
                if (errno == EAGAIN)
                    continue;
                die("%s: ibv_get_cq_event: %s", what, strerror(errno));
            }
            ibv_ack_cq_events(ev_cq, 1);
            c->armed = 0;
        }
    }
}

/* the next completion must be good and be (qp, wr_id, opcode) */
static void expect_wc(struct cqw *c, struct ibv_qp *qp, uint64_t id, enum ibv_wc_opcode op,
                      struct ibv_wc *wc, const char *what)
{
    next_wc(c, wc, what);
    if (wc->status != IBV_WC_SUCCESS)
        die("%s: completion with status %s (%d), vendor_err 0x%x, wr_id %" PRIu64 ", opcode %d",
            what, ibv_wc_status_str(wc->status), wc->status, wc->vendor_err, wc->wr_id, wc->opcode);
    if (wc->wr_id != id || wc->opcode != op || wc->qp_num != qp->qp_num)
        die("%s: unexpected completion: wr_id %" PRIu64 " opcode %d qp 0x%x, expected wr_id %"
            PRIu64 " opcode %d qp 0x%x", what, wc->wr_id, wc->opcode, wc->qp_num, id, op,
            qp->qp_num);
}

static void check_imm(struct ibv_wc *wc, int want, uint32_t imm, const char *what)
{
    int has = !!(wc->wc_flags & IBV_WC_WITH_IMM);
    if (has != want || (want && ntohl(wc->imm_data) != imm))
        die("%s: immediate: flag %d value 0x%x, expected flag %d value 0x%x", what, has,
            has ? ntohl(wc->imm_data) : 0, want, imm);
}

static void post_recv(struct ibv_qp *qp, uint64_t id, struct layout *lo, const char *what)
{
    struct ibv_recv_wr wr = { .wr_id = id, .sg_list = lo->sge, .num_sge = lo->n }, *bad;
    int ret = ibv_post_recv(qp, &wr, &bad);
    if (ret)
        die("%s: ibv_post_recv: %s", what, strerror(ret));
}

static void post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, const char *what)
{
    struct ibv_send_wr *bad;
    wr->send_flags |= IBV_SEND_SIGNALED;
    int ret = ibv_post_send(qp, wr, &bad);
    if (ret)
        die("%s: ibv_post_send: %s", what, strerror(ret));
}

/* Inline data is copied at post time: scribble over the source afterwards to prove it. */
static void scribble(struct layout *lo)
{
    for (int i = 0; i < lo->n; i++)
        memset((void *)(uintptr_t)lo->sge[i].addr, 0x5a, lo->sge[i].length);
}

static void sync_peer(char tag)
{
    char c;
    ssize_t r;
    if (write(g.sock, &tag, 1) != 1)
        die("sync '%c': write to peer: %s", tag, strerror(errno));
    r = read(g.sock, &c, 1);
    if (r != 1)
        die("sync '%c': the peer closed the connection (it failed?) or timed out (%s)", tag,
            r == 0 ? "EOF" : strerror(errno));
    if (c != tag)
        die("sync: expected '%c', peer sent '%c' (out of step)", tag, c);
}

/* ---- the tests; `act`: this side posts the sends/RDMA, else it checks -------------------- */
static void test_send(int act, int round)
{
    struct { uint32_t len; int ssge, rsge, inl, imm; uint32_t soff, roff; } c[] = {
        /* len, SGEs at the sender / receiver, inline, immediate, sender / receiver offset */
        { 0, 1, 1, 0, 1, 0, 0 },       { 1, 1, 1, 0, 0, 0, 0 },       { 4095, 1, 1, 0, 0, 1, 3 },
        { 4096, 1, 1, 0, 0, 0, 0 },    { 4097, 1, 1, 0, 1, 4093, 7 }, { 65536, 3, 1, 0, 0, 5, 0 },
        { 65536 + 13, 1, 3, 0, 0, 0, 11 },    { 4097, 4, 4, 0, 0, 1, 1 },
        { MAX_MSG, 1, 1, 0, 1, 0, 0 },
        { g.rc_inline, 1, 1, 1, 0, 3, 5 },
        { g.rc_inline < 100 ? g.rc_inline : 100, 2, 1, 1, 1, 0, 0 },
    };
    int n = sizeof(c) / sizeof(c[0]);
    for (int i = 0; i < n; i++) {
        char what[96];
        struct layout lo;
        struct ibv_wc wc;
        uint64_t seed = mkseed('S', round, i, c[i].len), cseed = canary(seed);
        uint32_t imm = 0x1e000000u + i + round;
        if (c[i].inl && c[i].len < 4u * c[i].ssge)
            continue;                             /* inline send, no inline support */
        snprintf(what, sizeof(what), "SEND %u bytes%s%s, %d/%d SGEs", c[i].len, c[i].inl ?
                 " inline" : "", c[i].imm ? " with immediate" : "", c[i].ssge, c[i].rsge);
        if (!act) {
            struct region r = { g.rmr, c[i].roff }, a = { g.amr, 64 + i };
            layout(&lo, c[i].rsge, c[i].len + EXTRA, &r, &a);
            lo_fill(&lo, seed, 0, 0, 0, cseed);
            post_recv(g.rc, i, &lo, what);
            sync_peer('s');
            expect_wc(&g.rcq, g.rc, i, IBV_WC_RECV, &wc, what);
            if (wc.byte_len != c[i].len)
                die("%s: byte_len %u, expected %u", what, wc.byte_len, c[i].len);
            check_imm(&wc, c[i].imm, imm, what);
            lo_check(&lo, seed, 0, 0, c[i].len, cseed, what);
        } else {
            struct region r = { g.smr, c[i].soff }, a = { g.amr, 64 + i };
            struct ibv_send_wr wr = { .wr_id = i, .imm_data = htonl(imm),
                .opcode = c[i].imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
                .send_flags = c[i].inl ? IBV_SEND_INLINE : 0 };
            layout(&lo, c[i].ssge, c[i].len, &r, &a);
            lo_fill(&lo, seed, 0, 0, c[i].len, 0);
            wr.sg_list = lo.sge;
            wr.num_sge = lo.n;
            sync_peer('s');
            post_send(g.rc, &wr, what);
            if (c[i].inl)
                scribble(&lo);
            expect_wc(&g.scq, g.rc, i, IBV_WC_SEND, &wc, what);
        }
    }
}

/* 256 small SENDs in batches of 16: the send, receive and completion rings wrap around */
static void test_burst(int act, int round)
{
    enum { BATCH = 16, BATCHES = 16 };
    struct layout lo[BATCH];
    struct ibv_wc wc;
    for (int b = 0; b < BATCHES; b++) {
        struct region r = { act ? g.smr : g.rmr, b };
        for (int i = 0; i < BATCH; i++) {
            int k = b * BATCH + i;
            uint32_t len = 1 + (k * 397u) % 2000;
            uint64_t seed = mkseed('B', round, k, len);
            layout(&lo[i], 1, act ? len : len + EXTRA, &r, NULL);
            lo_fill(&lo[i], seed, 0, 0, act ? len : 0, canary(seed));
            if (!act)
                post_recv(g.rc, 700 + k, &lo[i], "SEND burst: receive");
        }
        sync_peer('b');
        for (int i = 0; act && i < BATCH; i++) {
            struct ibv_send_wr wr = { .wr_id = 700 + b * BATCH + i, .opcode = IBV_WR_SEND,
                                      .sg_list = lo[i].sge, .num_sge = 1 };
            post_send(g.rc, &wr, "SEND burst");
        }
        for (int i = 0; i < BATCH; i++) {
            int k = b * BATCH + i;
            uint32_t len = 1 + (k * 397u) % 2000;
            char what[64];
            snprintf(what, sizeof(what), "SEND burst, message %d (%u bytes)", k, len);
            if (act) {
                expect_wc(&g.scq, g.rc, 700 + k, IBV_WC_SEND, &wc, what);
                continue;
            }
            expect_wc(&g.rcq, g.rc, 700 + k, IBV_WC_RECV, &wc, what);
            if (wc.byte_len != len)
                die("%s: byte_len %u, expected %u", what, wc.byte_len, len);
            check_imm(&wc, 0, 0, what);
            uint64_t seed = mkseed('B', round, k, len);
            lo_check(&lo[i], seed, 0, 0, len, canary(seed), what);
        }
    }
}

/* ibv_resize_cq with completions waiting: 8 receive completions pile up unpolled, the target
 * grows its receive CQ (the device ends the old buffer with a RESIZE CQE, libmlx5 moves the 8
 * across), checks them, receives 8 more through the new buffer, shrinks it, receives 8 more,
 * and restores the original size */
static void test_resize(int act, int round)
{
    enum { BATCH = 8 };
    static const int sizes[] = { 256, 32 };
    struct layout lo[BATCH];
    struct ibv_wc wc;
    for (int step = 0; step < 3; step++) {
        struct region r = { act ? g.smr : g.rmr, step };
        for (int i = 0; i < BATCH; i++) {
            int k = step * BATCH + i;
            uint32_t len = 1 + (k * 613u) % 3000;
            uint64_t seed = mkseed('Z', round, k, len);
            layout(&lo[i], 1, act ? len : len + EXTRA, &r, NULL);
            lo_fill(&lo[i], seed, 0, 0, act ? len : 0, canary(seed));
            if (!act)
                post_recv(g.rc, 900 + k, &lo[i], "resize: receive");
        }
        sync_peer('z');
        for (int i = 0; act && i < BATCH; i++) {
            struct ibv_send_wr wr = { .wr_id = 900 + step * BATCH + i, .opcode = IBV_WR_SEND,
                                      .sg_list = lo[i].sge, .num_sge = 1 };
            post_send(g.rc, &wr, "resize: SEND");
        }
        for (int i = 0; act && i < BATCH; i++)
            expect_wc(&g.scq, g.rc, 900 + step * BATCH + i, IBV_WC_SEND, &wc, "resize: SEND");
        sync_peer('Z');     /* every receive completion is written, none polled yet */
        if (!act && step < 2) {
            int ret = ibv_resize_cq(g.rcq.cq, sizes[step]);
            if (ret)
                die("ibv_resize_cq(%d) with %d completions waiting: %s", sizes[step], BATCH,
                    strerror(ret));
            if (g.rcq.cq->cqe < sizes[step])
                die("ibv_resize_cq(%d): the CQ has %d entries", sizes[step], g.rcq.cq->cqe);
        }
        for (int i = 0; !act && i < BATCH; i++) {
            int k = step * BATCH + i;
            uint32_t len = 1 + (k * 613u) % 3000;
            char what[64];
            snprintf(what, sizeof(what), "resize step %d, message %d (%u bytes)", step, k, len);
            expect_wc(&g.rcq, g.rc, 900 + k, IBV_WC_RECV, &wc, what);
            if (wc.byte_len != len)
                die("%s: byte_len %u, expected %u", what, wc.byte_len, len);
            uint64_t seed = mkseed('Z', round, k, len);
            lo_check(&lo[i], seed, 0, 0, len, canary(seed), what);
        }
    }
    if (!act && ibv_resize_cq(g.rcq.cq, 64))        /* as it was, for the next round */
        die("ibv_resize_cq(64): %s", strerror(errno));
}

static void check_window(struct span *sp, int n, uint64_t fill, const char *what)
{
    unsigned long bad = 0;
    uint32_t first = 0;
    uint8_t exp = 0, got = 0;
    int j = 0;
    for (uint32_t off = 0; off < BUF_SIZE; off++) {
        while (j < n && off >= sp[j].off + sp[j].len)
            j++;
        uint8_t e = (j < n && off >= sp[j].off) ? pat(sp[j].seed, off - sp[j].off) : pat(fill, off);
        if (g.win[off] != e && !bad++) {
            first = off; exp = e; got = g.win[off];
        }
    }
    if (bad) {
        for (j = 0; j < n && first >= sp[j].off + sp[j].len; j++)
            ;
        if (j < n && first >= sp[j].off)
            die("%s: window offset %u = byte %u of write %d (%u bytes at %u): expected 0x%02x, "
                "got 0x%02x; %lu bad bytes", what, first, first - sp[j].off, j, sp[j].len,
                sp[j].off, exp, got, bad);
        die("%s: window offset %u (not written): expected 0x%02x, got 0x%02x; %lu bad bytes",
            what, first, exp, got, bad);
    }
    for (j = 0; j < n; j++) {
        g.msgs += sp[j].len > 0;
        g.bytes += sp[j].len;
    }
}

static void test_write(int act, int round)
{
    /* ascending, disjoint window offsets, from the first to the last byte of the peer's MR;
     * the last write carries the immediate */
    struct { uint32_t off, len; int nsge, inl; } c[] = {
        { 0, 1, 1, 0 },          { 13, 4095, 1, 0 },      { 8193, 4097, 2, 0 },
        { 20003, 65536, 1, 0 },  { 131075, 100003, 3, 0 }, { 300001, 7, 1, 0 },
        { 310007, g.rc_inline, 1, 1 },                     { BUF_SIZE - 300001, 300001, 1, 0 },
    };
    int n = sizeof(c) / sizeof(c[0]);
    uint64_t fill = mkseed('C', round, 0, 0);
    uint32_t imm = 0x3e000000u + round;
    struct span sp[8];
    struct ibv_wc wc;
    for (int i = 0; i < n; i++)
        sp[i] = (struct span){ c[i].off, c[i].len, mkseed('W', round, i, c[i].len) };
    if (!act) {
        struct region r = { g.rmr, 0 };
        struct layout lo;
        for (uint32_t off = 0; off < BUF_SIZE; off++)
            g.win[off] = pat(fill, off);
        layout(&lo, 1, 64, &r, NULL);
        post_recv(g.rc, 100, &lo, "RDMA WRITE with immediate: receive");
        sync_peer('w');
        expect_wc(&g.rcq, g.rc, 100, IBV_WC_RECV_RDMA_WITH_IMM, &wc, "RDMA WRITE with immediate");
        check_imm(&wc, 1, imm, "RDMA WRITE with immediate");
        if (wc.byte_len != c[n - 1].len)
            die("RDMA WRITE with immediate: byte_len %u, expected %u", wc.byte_len, c[n - 1].len);
        check_window(sp, n, fill, "RDMA WRITE");
        sync_peer('W');
        return;
    }
    struct region r = { g.smr, 0 }, a = { g.amr, 64 };
    struct layout lo[8];
    struct ibv_send_wr wr[8];
    sync_peer('w');
    for (int i = 0; i < n; i++) {
        char what[64];
        snprintf(what, sizeof(what), "RDMA WRITE %u bytes at +%u", c[i].len, c[i].off);
        if (!c[i].len)
            continue;                             /* inline write, no inline support */
        layout(&lo[i], c[i].nsge, c[i].len, &r, &a);
        lo_fill(&lo[i], sp[i].seed, 0, 0, c[i].len, 0);
        wr[i] = (struct ibv_send_wr){ .wr_id = 200 + i, .sg_list = lo[i].sge, .num_sge = lo[i].n,
            .opcode = i == n - 1 ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE,
            .send_flags = c[i].inl ? IBV_SEND_INLINE : 0, .imm_data = htonl(imm),
            .wr.rdma = { .remote_addr = g.peer.addr + c[i].off, .rkey = g.peer.rkey } };
        post_send(g.rc, &wr[i], what);
        if (c[i].inl)
            scribble(&lo[i]);
    }
    for (int i = 0; i < n; i++)
        if (c[i].len)
            expect_wc(&g.scq, g.rc, 200 + i, IBV_WC_RDMA_WRITE, &wc, "RDMA WRITE");
    sync_peer('W');
}

static void test_read(int act, int round)
{
    struct { uint32_t off, len; int nsge; } c[] = {
        { 3, 1, 1 },         { 4097, 4095, 1 },      { 12289, 4097, 2 },
        { 65537, 65536, 1 }, { 200001, 150001, 3 },  { BUF_SIZE - 65543, 65543, 1 },
    };
    int n = sizeof(c) / sizeof(c[0]);
    uint64_t fill = mkseed('R', round, 0, 0);
    if (!act) {
        for (uint32_t off = 0; off < BUF_SIZE; off++)
            g.win[off] = pat(fill, off);
        sync_peer('r');
        sync_peer('R');
        return;
    }
    struct region r = { g.rmr, 1 }, a = { g.amr, 64 };
    struct layout lo[8];
    struct ibv_send_wr wr[8];
    struct ibv_wc wc;
    for (int i = 0; i < n; i++) {
        layout(&lo[i], c[i].nsge, c[i].len + EXTRA, &r, &a);
        lo_fill(&lo[i], fill, 0, 0, 0, canary(fill + i));
        lo[i].sge[lo[i].n - 1].length -= EXTRA;   /* the canary stays outside the SGE list */
        wr[i] = (struct ibv_send_wr){ .wr_id = 300 + i, .sg_list = lo[i].sge, .num_sge = lo[i].n,
            .opcode = IBV_WR_RDMA_READ,
            .wr.rdma = { .remote_addr = g.peer.addr + c[i].off, .rkey = g.peer.rkey } };
    }
    sync_peer('r');
    for (int i = 0; i < n; i++)
        post_send(g.rc, &wr[i], "RDMA READ");
    for (int i = 0; i < n; i++) {
        char what[64];
        snprintf(what, sizeof(what), "RDMA READ %u bytes at +%u, %d SGEs", c[i].len, c[i].off,
                 c[i].nsge);
        expect_wc(&g.scq, g.rc, 300 + i, IBV_WC_RDMA_READ, &wc, what);
        lo[i].sge[lo[i].n - 1].length += EXTRA;
        lo_check(&lo[i], fill, c[i].off, 0, c[i].len, canary(fill + i), what);
    }
    sync_peer('R');
}

static void test_atomic(int act, int round)
{
    uint64_t *slot = (uint64_t *)(g.win + ATOM_OFF);
    uint64_t v0 = 0x0123456789abcdefull + round, add = 0x1000000010000001ull;
    uint64_t s = 0xfedcba98f6543210ull - round, c1 = 0x1111111111111111ull, c2 = ~c1;
    uint64_t final = s + 0xffffffffull;        /* the last add carries into the high word */
    if (!act) {
        slot[-1] = c1; slot[0] = v0; slot[1] = c2;
        sync_peer('a');
        sync_peer('A');
        if (slot[-1] != c1 || slot[0] != final || slot[1] != c2)
            die("atomics: target memory [%016" PRIx64 " %016" PRIx64 " %016" PRIx64 "], "
                "expected [%016" PRIx64 " %016" PRIx64 " %016" PRIx64 "]", slot[-1], slot[0],
                slot[1], c1, final, c2);
        g.msgs++; g.bytes += 8;
        return;
    }
    uint64_t *res = (uint64_t *)g.aux;
    uint64_t want[7] = { v0, v0 + add, s, s, c1, final, c2 };
    const char *name[5] = { "FETCH_ADD", "CMP_SWAP (equal)", "CMP_SWAP (not equal)",
                            "FETCH_ADD (carry)", "RDMA READ" };
    struct ibv_sge sge[5];
    struct ibv_send_wr wr[5];
    struct ibv_wc wc;
    uint64_t raddr = g.peer.addr + ATOM_OFF;
    for (int i = 0; i < 7; i++)
        res[i] = 0xdeadbeefdeadbeefull;
    for (int i = 0; i < 5; i++) {
        sge[i] = (struct ibv_sge){ (uintptr_t)&res[i], i == 4 ? 24 : 8, g.amr->lkey };
        wr[i] = (struct ibv_send_wr){ .wr_id = 400 + i, .sg_list = &sge[i], .num_sge = 1 };
        wr[i].opcode = (i == 0 || i == 3) ? IBV_WR_ATOMIC_FETCH_AND_ADD : IBV_WR_ATOMIC_CMP_AND_SWP;
        wr[i].wr.atomic.remote_addr = raddr;
        wr[i].wr.atomic.rkey = g.peer.rkey;
    }
    wr[0].wr.atomic.compare_add = add;
    wr[1].wr.atomic.compare_add = v0 + add;  wr[1].wr.atomic.swap = s;
    wr[2].wr.atomic.compare_add = v0;        wr[2].wr.atomic.swap = 0x2222;
    wr[3].wr.atomic.compare_add = 0xffffffffull;
    wr[4].opcode = IBV_WR_RDMA_READ;          /* the target and its neighbours */
    wr[4].wr.rdma.remote_addr = raddr - 8;
    wr[4].wr.rdma.rkey = g.peer.rkey;
    sync_peer('a');
    for (int i = 0; i < 5; i++)
        post_send(g.rc, &wr[i], name[i]);
    for (int i = 0; i < 5; i++)
        expect_wc(&g.scq, g.rc, 400 + i, i == 4 ? IBV_WC_RDMA_READ :
                  (i == 0 || i == 3) ? IBV_WC_FETCH_ADD : IBV_WC_COMP_SWAP, &wc, name[i]);
    for (int i = 0; i < 7; i++) {
        if (res[i] != want[i])
            die("atomics: %s returned %016" PRIx64 ", expected %016" PRIx64, name[i < 4 ? i : 4],
                res[i], want[i]);
        g.msgs += i < 5; g.bytes += 8;
    }
    sync_peer('A');
}

static void test_ud(int act, int round)
{
    struct { uint32_t len; int nsge, inl, imm; } c[] = {
        { 1, 1, 0, 0 }, { 300, 2, 0, 0 }, { g.ud_inline < 60 ? g.ud_inline : 60, 1, 1, 0 },
        { g.mtu_bytes - 1, 1, 0, 0 }, { g.mtu_bytes, 1, 0, 1 },
    };
    int n = sizeof(c) / sizeof(c[0]);
    struct layout lo[8];
    struct ibv_wc wc;
    uint32_t imm = 0x5d000000u + round;
    if (!act) {
        struct region r = { g.rmr, 0 }, a = { g.amr, 64 };
        for (int i = 0; i < n; i++) {
            if (!c[i].len)
                continue;                         /* inline send, no inline support */
            layout(&lo[i], c[i].nsge, GRH_LEN + c[i].len + EXTRA, &r, &a);
            lo_fill(&lo[i], 0, 0, 0, 0, mkseed('u', round, i, 0));
            post_recv(g.ud, 500 + i, &lo[i], "UD receive");
        }
        sync_peer('u');
        for (int i = 0; i < n; i++) {
            char what[64];
            snprintf(what, sizeof(what), "UD SEND %u bytes%s", c[i].len, c[i].inl ? " inline" : "");
            if (!c[i].len)
                continue;
            expect_wc(&g.rcq, g.ud, 500 + i, IBV_WC_RECV, &wc, what);
            if (wc.byte_len != GRH_LEN + c[i].len || wc.src_qp != g.peer.udqpn ||
                wc.slid != g.peer.lid || (wc.wc_flags & IBV_WC_GRH))
                die("%s: byte_len %u src_qp 0x%x slid 0x%x GRH %d, expected %u 0x%x 0x%x 0", what,
                    wc.byte_len, wc.src_qp, wc.slid, !!(wc.wc_flags & IBV_WC_GRH),
                    GRH_LEN + c[i].len, g.peer.udqpn, g.peer.lid);
            check_imm(&wc, c[i].imm, imm, what);
            lo_check(&lo[i], mkseed('U', round, i, c[i].len), 0, GRH_LEN, c[i].len,
                     mkseed('u', round, i, 0), what);
        }
        sync_peer('U');
        return;
    }
    struct region r = { g.smr, 3 }, a = { g.amr, 64 };
    sync_peer('u');
    for (int i = 0; i < n; i++) {
        struct ibv_send_wr wr = { .wr_id = 600 + i, .imm_data = htonl(imm),
            .opcode = c[i].imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
            .send_flags = c[i].inl ? IBV_SEND_INLINE : 0,
            .wr.ud = { .ah = g.ah, .remote_qpn = g.peer.udqpn, .remote_qkey = QKEY } };
        if (!c[i].len)
            continue;                              /* no inline support */
        layout(&lo[i], c[i].nsge, c[i].len, &r, &a);
        lo_fill(&lo[i], mkseed('U', round, i, c[i].len), 0, 0, c[i].len, 0);
        wr.sg_list = lo[i].sge;
        wr.num_sge = lo[i].n;
        post_send(g.ud, &wr, "UD SEND");
        if (c[i].inl)
            scribble(&lo[i]);
        expect_wc(&g.scq, g.ud, 600 + i, IBV_WC_SEND, &wc, "UD SEND");
    }
    sync_peer('U');
}

/* ---- setup ------------------------------------------------------------------------------- */
static struct ibv_mr *alloc_mr(size_t size, int access)
{
    void *p;
    if (posix_memalign(&p, 4096, size))
        die("out of memory");
    memset(p, 0, size);
    struct ibv_mr *mr;
    MUST(mr, ibv_reg_mr(g.pd, p, size, access));
    return mr;
}

static void make_cq(struct cqw *c, int depth)
{
    MUST(c->ch, ibv_create_comp_channel(g.ctx));
    if (fcntl(c->ch->fd, F_SETFL, fcntl(c->ch->fd, F_GETFL) | O_NONBLOCK))
        die("fcntl: %s", strerror(errno));
    MUST(c->cq, ibv_create_cq(g.ctx, depth, NULL, c->ch, 0));
}

static void modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, const char *what)
{
    int ret = ibv_modify_qp(qp, a, mask);
    if (ret)
        die("ibv_modify_qp to %s: %s", what, strerror(ret));
}

static struct ibv_qp *make_qp(enum ibv_qp_type type, uint32_t *inl)
{
    struct ibv_qp_init_attr ia = {
        .send_cq = g.scq.cq, .recv_cq = g.rcq.cq, .qp_type = type,
        .cap = { .max_send_wr = 32, .max_recv_wr = 16, .max_send_sge = MAX_SGE,
                 .max_recv_sge = MAX_SGE, .max_inline_data = type == IBV_QPT_UD ? 64 : 128 } };
    struct ibv_qp *qp;
    MUST(qp, ibv_create_qp(g.pd, &ia));
    *inl = ia.cap.max_inline_data;
    struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = g.ib_port,
        .qkey = QKEY, .qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                         IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC };
    modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
           (type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS), "INIT");
    return qp;
}

static void connect_qps(void)
{
    struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR,
        .path_mtu = g.me.mtu < g.peer.mtu ? g.me.mtu : g.peer.mtu, .dest_qp_num = g.peer.rcqpn,
        .rq_psn = g.peer.psn, .max_dest_rd_atomic = g.dest_rd_atom, .min_rnr_timer = 12,
        .ah_attr = { .dlid = g.peer.lid, .port_num = g.ib_port } };
    modify(g.rc, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
           IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, "RTR (RC)");
    a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7,
        .rnr_retry = 7, .sq_psn = g.me.psn, .max_rd_atomic = g.rd_atom };
    modify(g.rc, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
           IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC, "RTS (RC)");
    a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
    modify(g.ud, &a, IBV_QP_STATE, "RTR (UD)");
    a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .sq_psn = g.me.psn };
    modify(g.ud, &a, IBV_QP_STATE | IBV_QP_SQ_PSN, "RTS (UD)");
    struct ibv_ah_attr ah = { .dlid = g.peer.lid, .port_num = g.ib_port };
    MUST(g.ah, ibv_create_ah(g.pd, &ah));
}

static void tcp_connect(const char *server, int port)
{
    struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM,
                              .ai_flags = server ? 0 : AI_PASSIVE }, *res;
    char service[16];
    int one = 1, fd = -1;
    snprintf(service, sizeof(service), "%d", port);
    int ret = getaddrinfo(server, service, &hints, &res);
    if (ret)
        die("getaddrinfo %s:%d: %s", server ? server : "*", port, gai_strerror(ret));
    if ((fd = socket(res->ai_family, res->ai_socktype, 0)) < 0)
        die("socket: %s", strerror(errno));
    if (server) {
        if (connect(fd, res->ai_addr, res->ai_addrlen)) {
            fprintf(stderr, "Couldn't connect to %s:%d (%s)\n", server, port, strerror(errno));
            exit(1);
        }
        g.sock = fd;
    } else {
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 1))
            die("bind/listen on port %d: %s", port, strerror(errno));
        if ((g.sock = accept(fd, NULL, NULL)) < 0)
            die("accept: %s", strerror(errno));
        close(fd);
    }
    freeaddrinfo(res);
    struct timeval tv = { .tv_sec = 3 * TIMEOUT_S };   /* a silent peer is a failure too */
    setsockopt(g.sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

static void exchange(void)
{
    char msg[80], in[80];
    size_t got = 0;
    memset(msg, 0, sizeof(msg));
    snprintf(msg, sizeof(msg), "%04x:%06x:%06x:%06x:%08x:%016" PRIx64 ":%x:%x:%x", g.me.lid,
             g.me.rcqpn, g.me.udqpn, g.me.psn, g.me.rkey, g.me.addr, g.me.mtu, g.me.rc_inline,
             g.me.ud_inline);
    if (write(g.sock, msg, sizeof(msg)) != sizeof(msg))
        die("sending the local address: %s", strerror(errno));
    while (got < sizeof(in)) {
        ssize_t r = read(g.sock, in + got, sizeof(in) - got);
        if (r <= 0)
            die("reading the remote address: %s", r ? strerror(errno) : "EOF");
        got += r;
    }
    in[sizeof(in) - 1] = 0;
    if (sscanf(in, "%x:%x:%x:%x:%x:%" SCNx64 ":%x:%x:%x", &g.peer.lid, &g.peer.rcqpn,
               &g.peer.udqpn, &g.peer.psn, &g.peer.rkey, &g.peer.addr, &g.peer.mtu,
               &g.peer.rc_inline, &g.peer.ud_inline) != 9)
        die("bad remote address message '%s'", in);
    /* both sides must agree on the sizes of the inline test messages */
    if (g.peer.rc_inline < g.rc_inline)
        g.rc_inline = g.peer.rc_inline;
    if (g.peer.ud_inline < g.ud_inline)
        g.ud_inline = g.peer.ud_inline;
}

int main(int argc, char **argv)
{
    const char *devname = NULL, *server = NULL;
    int port = 18540, opt, n, rounds = 2, no_ud = 0;
    g.ib_port = 1;
    while ((opt = getopt(argc, argv, "d:i:p:r:Uh")) != -1) {
        switch (opt) {
        case 'd': devname = optarg; break;
        case 'i': g.ib_port = atoi(optarg); break;
        case 'p': port = atoi(optarg); break;
        case 'r': rounds = 2 * atoi(optarg); break;
        case 'U': no_ud = 1; break;
        default:
            fprintf(stderr, "usage: rdma-verify [-d DEVICE] [-i IB_PORT] [-p TCP_PORT] "
                    "[-r ROUNDS] [-U] [SERVER]\n"
                    "  -r N  N rounds each way (default 1)\n"
                    "  -U    no UD SEND (a lossy fabric loses datagrams; both sides alike)\n");
            return 2;
        }
    }
    if (rounds < 2 || rounds > 200)
        die("-r wants 1..100");
    if (optind < argc)
        server = argv[optind];
    setvbuf(stdout, NULL, _IOLBF, 0);

    struct ibv_device **list, *dev = NULL;
    MUST(list, ibv_get_device_list(&n));
    for (int i = 0; i < n && !dev; i++)
        if (!devname || !strcmp(ibv_get_device_name(list[i]), devname))
            dev = list[i];
    if (!dev)
        die("IB device %s not found", devname ? devname : "(any)");
    MUST(g.ctx, ibv_open_device(dev));
    struct ibv_device_attr da;
    struct ibv_port_attr pa;
    int ret = ibv_query_device(g.ctx, &da);
    if (ret)
        die("ibv_query_device: %s", strerror(ret));
    if ((ret = ibv_query_port(g.ctx, g.ib_port, &pa)))
        die("ibv_query_port(%d): %s", g.ib_port, strerror(ret));
    if (pa.state != IBV_PORT_ACTIVE || !pa.lid)
        die("port %d is not active (state %s, lid %u)", g.ib_port,
            ibv_port_state_str(pa.state), pa.lid);
    if (da.atomic_cap == IBV_ATOMIC_NONE)
        die("device reports no atomic support (atomic_cap IBV_ATOMIC_NONE)");
    g.rd_atom = da.max_qp_init_rd_atom < 4 ? da.max_qp_init_rd_atom : 4;
    g.dest_rd_atom = da.max_qp_rd_atom < 4 ? da.max_qp_rd_atom : 4;
    MUST(g.pd, ibv_alloc_pd(g.ctx));
    g.smr = alloc_mr(BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
    g.rmr = alloc_mr(BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
    g.amr = alloc_mr(AUX_SIZE, IBV_ACCESS_LOCAL_WRITE);
    g.wmr = alloc_mr(BUF_SIZE, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                               IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
    g.win = g.wmr->addr;
    g.aux = g.amr->addr;
    make_cq(&g.scq, 128);
    make_cq(&g.rcq, 64);
    g.rc = make_qp(IBV_QPT_RC, &g.rc_inline);
    g.ud = make_qp(IBV_QPT_UD, &g.ud_inline);
    g.mtu_bytes = 128u << pa.active_mtu;

    srand48(getpid() * time(NULL));
    g.me = (struct dest){ .lid = pa.lid, .rcqpn = g.rc->qp_num, .udqpn = g.ud->qp_num,
        .psn = lrand48() & 0xffffff, .rkey = g.wmr->rkey, .mtu = pa.active_mtu,
        .rc_inline = g.rc_inline, .ud_inline = g.ud_inline, .addr = (uintptr_t)g.win };
    tcp_connect(server, port);
    exchange();
    printf("rdma-verify: %s port %d: local LID 0x%04x RC QPN 0x%06x UD QPN 0x%06x PSN 0x%06x, "
           "remote LID 0x%04x RC QPN 0x%06x UD QPN 0x%06x PSN 0x%06x\n", ibv_get_device_name(dev),
           g.ib_port, g.me.lid, g.me.rcqpn, g.me.udqpn, g.me.psn, g.peer.lid, g.peer.rcqpn,
           g.peer.udqpn, g.peer.psn);
    printf("rdma-verify: MTU %u, max inline RC %u UD %u, rd_atomic %d/%d\n", g.mtu_bytes,
           g.rc_inline, g.ud_inline, g.rd_atom, g.dest_rd_atom);
    connect_qps();
    sync_peer('c');

    double t0 = now();
    static const struct { const char *name; void (*fn)(int act, int round); } tests[] = {
        { "RC SEND", test_send },      { "RC SEND burst", test_burst }, { "RC WRITE", test_write },
        { "RC READ", test_read },      { "RC atomics", test_atomic },   { "UD SEND", test_ud },
        { "CQ resize", test_resize } };
    for (int round = 0; round < rounds; round++) {
        int act = (round % 2 == 0) == !server;    /* the server is active first */
        for (unsigned t = 0; t < sizeof(tests) / sizeof(tests[0]); t++) {
            unsigned long m0 = g.msgs;
            unsigned long long b0 = g.bytes;
            if (no_ud && tests[t].fn == test_ud)
                continue;
            tests[t].fn(act, round);
            printf("rdma-verify: round %d, %s: %s, %lu messages / %llu bytes checked here\n",
                   round, tests[t].name, act ? "initiator" : "target", g.msgs - m0, g.bytes - b0);
        }
    }
    sync_peer('e');
    printf("rdma-verify: %lu messages, %llu bytes verified, OK (%.1f s)\n", g.msgs, g.bytes,
           now() - t0);
    return 0;
}
