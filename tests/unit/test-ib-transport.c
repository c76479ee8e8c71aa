/*
 * Unit tests of the vendor-neutral IB transport: two ports linked in-process through a fake
 * wire that can drop, duplicate and reorder frames. The "device" here is a minimal one: flat
 * memory regions addressed by rkey, a receive queue of buffers, and recorded completions.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-test.h"
#include "hw/rdma/ib_transport.h"
#include "hw/rdma/ib_wire.h"

#define MEM_SIZE    (2 << 20)
#define MAX_RECV    64
#define MAX_DONE    512
#define MAX_FRAMES  4096

typedef struct FakeNode FakeNode;

typedef struct Wire {
    /* frames in flight: [node index][n] */
    uint8_t *frame[MAX_FRAMES];
    size_t len[MAX_FRAMES];
    int dst[MAX_FRAMES];
    unsigned count;
    unsigned drop_every, dup_every, swap_every;  /* fault injection: every Nth frame */
    unsigned seq;
    uint32_t rng;               /* faults hit pseudo-random frames, about 1 in N */
    unsigned dropped;
    uint16_t dead_dlid;         /* frames to this LID are lost (a path that broke) */
    int64_t now;
    FakeNode *node[2];
} Wire;

typedef struct RecvBuf {
    uint64_t va;
    uint32_t len;
} RecvBuf;

struct FakeNode {
    IbPort port;
    IbQp qp;
    Wire *wire;
    int idx;
    uint8_t *mem;           /* rkey 0x1234 (and lkey) covers [0, MEM_SIZE) */
    RecvBuf rq[MAX_RECV];
    unsigned rq_head, rq_tail;
    IbWcStatus send_status[MAX_DONE];
    uint64_t send_cookie[MAX_DONE];
    unsigned nsend;
    IbRecvCompletion recv[MAX_DONE];
    uint64_t recv_cookie[MAX_DONE];
    unsigned nrecv;
    unsigned events[8];
    int64_t deadline;
    uint32_t xrc_srqn_seen[MAX_DONE];   /* XRC target: the SRQ each receive was taken for */
};

#define XRC_SRQN 0x77       /* the only XRC SRQ of the fake target's domain */

#define RKEY 0x1234

static FakeNode *node_of(IbQp *qp)
{
    return qp->port->dev;           /* also for a DCT's responder contexts */
}

static IbWcStatus fk_gather(IbQp *qp, const IbSendWr *wr, uint64_t off, void *buf,
                            uint32_t len)
{
    FakeNode *n = node_of(qp);
    uint64_t va = wr->cookie >> 32;     /* tests put the local buffer address there */

    memcpy(buf, n->mem + va + off, len);
    return IB_WC_SUCCESS;
}

static IbWcStatus fk_scatter(IbQp *qp, const IbSendWr *wr, uint64_t off, const void *buf,
                             uint32_t len)
{
    FakeNode *n = node_of(qp);
    uint64_t va = wr->cookie >> 32;

    memcpy(n->mem + va + off, buf, len);
    return IB_WC_SUCCESS;
}

static void fk_send_done(IbQp *qp, const IbSendWr *wr, IbWcStatus st)
{
    FakeNode *n = node_of(qp);

    g_assert_cmpuint(n->nsend, <, MAX_DONE);
    n->send_status[n->nsend] = st;
    n->send_cookie[n->nsend++] = wr->cookie;
}

static bool fk_recv_get(IbQp *qp, IbRecvWr *rwr)
{
    FakeNode *n = node_of(qp);

    if (n->rq_head == n->rq_tail) {
        return false;
    }
    rwr->cookie = n->rq_head;
    rwr->capacity = n->rq[n->rq_head % MAX_RECV].len;
    n->xrc_srqn_seen[n->rq_head % MAX_DONE] = qp->xrc_srqn;
    n->rq_head++;
    return true;
}

static bool fk_xrc_srq_ok(IbQp *qp, uint32_t srqn)
{
    return srqn == XRC_SRQN;
}

static IbWcStatus fk_recv_scatter(IbQp *qp, const IbRecvWr *rwr, uint64_t off, const void *buf,
                                  uint32_t len)
{
    FakeNode *n = node_of(qp);

    memcpy(n->mem + n->rq[rwr->cookie % MAX_RECV].va + off, buf, len);
    return IB_WC_SUCCESS;
}

static void fk_recv_done(IbQp *qp, const IbRecvWr *rwr, const IbRecvCompletion *rc)
{
    FakeNode *n = node_of(qp);

    g_assert_cmpuint(n->nrecv, <, MAX_DONE);
    n->recv[n->nrecv] = *rc;
    n->recv_cookie[n->nrecv++] = rwr->cookie;
}

static IbWcStatus fk_rkey_check(IbQp *qp, uint32_t rkey, uint64_t va, uint64_t len,
                                unsigned access)
{
    return rkey == RKEY && va + len <= MEM_SIZE && va + len >= va ? IB_WC_SUCCESS
                                                                   : IB_WC_REM_ACCESS_ERR;
}

static IbWcStatus fk_rkey_write(IbQp *qp, uint32_t rkey, uint64_t va, const void *buf,
                                uint32_t len)
{
    if (fk_rkey_check(qp, rkey, va, len, 0)) {
        return IB_WC_REM_ACCESS_ERR;
    }
    memcpy(node_of(qp)->mem + va, buf, len);
    return IB_WC_SUCCESS;
}

static IbWcStatus fk_rkey_read(IbQp *qp, uint32_t rkey, uint64_t va, void *buf, uint32_t len)
{
    if (fk_rkey_check(qp, rkey, va, len, 0)) {
        return IB_WC_REM_ACCESS_ERR;
    }
    memcpy(buf, node_of(qp)->mem + va, len);
    return IB_WC_SUCCESS;
}

static IbWcStatus fk_rkey_atomic(IbQp *qp, uint32_t rkey, uint64_t va, bool cmp_swp,
                                 uint64_t compare_add, uint64_t swap, uint64_t *orig)
{
    uint64_t v;

    if (fk_rkey_check(qp, rkey, va, 8, 0)) {
        return IB_WC_REM_ACCESS_ERR;
    }
    memcpy(&v, node_of(qp)->mem + va, 8);
    *orig = v;
    if (cmp_swp) {
        if (v == compare_add) {
            v = swap;
        }
    } else {
        v += compare_add;
    }
    memcpy(node_of(qp)->mem + va, &v, 8);
    return IB_WC_SUCCESS;
}

static IbWcStatus fk_invalidate(IbQp *qp, uint32_t rkey)
{
    return IB_WC_SUCCESS;
}

static void fk_qp_event(IbQp *qp, IbQpEvent ev)
{
    node_of(qp)->events[ev]++;
}

static FakeNode *port_node(IbPort *port)
{
    return port->dev;
}

static bool fk_link_tx(IbPort *port, const struct iovec *iov, int iovcnt, bool best_effort)
{
    FakeNode *n = port_node(port);
    Wire *w = n->wire;
    uint8_t *f = g_malloc(IB_MAX_FRAME);
    size_t len = 0;
    int i, copies = 1;

    for (i = 0; i < iovcnt; i++) {
        if (!iov[i].iov_len) {
            continue;
        }
        memcpy(f + len, iov[i].iov_base, iov[i].iov_len);
        len += iov[i].iov_len;
    }
    w->seq++;
    if (w->dead_dlid && ((f[4] << 8) | f[5]) == w->dead_dlid) {   /* DLID: dst MAC 4-5 */
        w->dropped++;
        g_free(f);
        return true;
    }
    w->rng = w->rng * 1103515245u + 12345u;
    if (w->drop_every && (w->rng >> 8) % w->drop_every == 0) {
        w->dropped++;
        g_free(f);
        return true;
    }
    if (w->dup_every && (w->rng >> 12) % w->dup_every == 0) {
        copies = 2;
    }
    for (i = 0; i < copies; i++) {
        g_assert_cmpuint(w->count, <, MAX_FRAMES);
        w->frame[w->count] = i ? g_memdup2(f, len) : f;
        w->len[w->count] = len;
        w->dst[w->count] = !n->idx;
        w->count++;
    }
    if (w->swap_every && (w->rng >> 16) % w->swap_every == 0 && w->count >= 2) {
        unsigned a = w->count - 1, b = w->count - 2;
        uint8_t *tf = w->frame[a]; size_t tl = w->len[a]; int td = w->dst[a];
        w->frame[a] = w->frame[b]; w->len[a] = w->len[b]; w->dst[a] = w->dst[b];
        w->frame[b] = tf; w->len[b] = tl; w->dst[b] = td;
    }
    return true;
}

static IbQp *fk_qp_lookup(IbPort *port, uint32_t qpn)
{
    FakeNode *n = port_node(port);

    return n->qp.qpn == qpn ? &n->qp : NULL;
}

static int64_t fk_now(IbPort *port)
{
    return port_node(port)->wire->now;
}

static void fk_set_deadline(IbPort *port, int64_t when)
{
    port_node(port)->deadline = when;
}

static void fk_kick(IbPort *port)
{
}

static const IbDevOps fk_ops = {
    .gather = fk_gather,
    .scatter = fk_scatter,
    .send_done = fk_send_done,
    .recv_get = fk_recv_get,
    .recv_scatter = fk_recv_scatter,
    .recv_done = fk_recv_done,
    .rkey_check = fk_rkey_check,
    .rkey_write = fk_rkey_write,
    .rkey_read = fk_rkey_read,
    .rkey_atomic = fk_rkey_atomic,
    .invalidate = fk_invalidate,
    .xrc_srq_ok = fk_xrc_srq_ok,
    .qp_event = fk_qp_event,
    .link_tx = fk_link_tx,
    .qp_lookup = fk_qp_lookup,
    .now_ns = fk_now,
    .set_deadline = fk_set_deadline,
    .kick = fk_kick,
};

/* Two nodes, LIDs 1 and 2, one QP each (QPN 0x10 / 0x20) connected to each other. */
static Wire *wire_new(IbQpType type, unsigned mtu_enum)
{
    Wire *w = g_new0(Wire, 1);
    int i;

    for (i = 0; i < 2; i++) {
        FakeNode *n = g_new0(FakeNode, 1);
        n->wire = w;
        n->idx = i;
        n->mem = g_malloc0(MEM_SIZE);
        ib_port_init(&n->port, &fk_ops, n);
        n->port.lid = i + 1;
        n->port.guid = 0x1000 + i;
        n->port.link_up = true;
        n->deadline = INT64_MAX;
        ib_qp_init(&n->qp, &n->port, 0x10 * (i + 1), type, 256);
        n->qp.dest_qpn = 0x10 * (2 - i);
        n->qp.av.dlid = 2 - i;
        n->qp.mtu = ib_mtu_bytes(mtu_enum);
        n->qp.retry_cnt = 7;
        n->qp.rnr_retry = 7;
        n->qp.timeout = 14;
        n->qp.min_rnr_timer = 1;
        n->qp.max_rd_atomic = 4;
        n->qp.max_dest_rd_atomic = 4;
        n->qp.rre = n->qp.rwe = n->qp.rae = true;
        n->qp.qkey = 0x11111111;
        n->qp.sq_psn = 0x100 * (i + 1);
        n->qp.rq_psn = 0x100 * (2 - i);
        ib_qp_set_state(&n->qp, IB_QPS_INIT);
        ib_qp_set_state(&n->qp, IB_QPS_RTR);
        ib_qp_set_state(&n->qp, IB_QPS_RTS);
        w->node[i] = n;
    }
    return w;
}

static void wire_free(Wire *w)
{
    for (unsigned i = 0; i < w->count; i++) {
        g_free(w->frame[i]);
    }
    for (int i = 0; i < 2; i++) {
        ib_qp_cleanup(&w->node[i]->qp);
        ib_port_cleanup(&w->node[i]->port);
        g_free(w->node[i]->mem);
        g_free(w->node[i]);
    }
    g_free(w);
}

/* Run both nodes and the wire until quiet; advance the clock to fire timers. */
static void wire_run(Wire *w, unsigned max_rounds)
{
    for (unsigned round = 0; round < max_rounds; round++) {
        bool busy = false;
        for (int i = 0; i < 2; i++) {
            busy |= ib_port_run(&w->node[i]->port, 64);
        }
        while (w->count) {
            uint8_t *f = w->frame[0];
            size_t len = w->len[0];
            int dst = w->dst[0];
            memmove(w->frame, w->frame + 1, (w->count - 1) * sizeof(w->frame[0]));
            memmove(w->len, w->len + 1, (w->count - 1) * sizeof(w->len[0]));
            memmove(w->dst, w->dst + 1, (w->count - 1) * sizeof(w->dst[0]));
            w->count--;
            ib_port_link_rx(&w->node[dst]->port, f, len);
            g_free(f);
            busy = true;
        }
        if (!busy) {
            int64_t next = MIN(w->node[0]->deadline, w->node[1]->deadline);
            if (next == INT64_MAX) {
                return;
            }
            w->now = MAX(w->now, next);
            for (int i = 0; i < 2; i++) {
                ib_port_expire(&w->node[i]->port, w->now);
            }
        }
    }
}

static void post_recv(FakeNode *n, uint64_t va, uint32_t len)
{
    n->rq[n->rq_tail % MAX_RECV].va = va;
    n->rq[n->rq_tail % MAX_RECV].len = len;
    n->rq_tail++;
}

static void post_send(FakeNode *n, IbWrOpcode op, uint64_t local_va, uint32_t len,
                      uint64_t remote_va, unsigned id)
{
    IbSendWr wr = {
        .cookie = (local_va << 32) | id,
        .opcode = op,
        .length = len,
        .remote_addr = remote_va,
        .rkey = RKEY,
        .signaled = true,
        .imm = 0x78563412,
    };
    g_assert_true(ib_qp_post_send(&n->qp, &wr));
}

static void fill(uint8_t *p, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++) {
        p[i] = (uint8_t)(i * 7 + seed * 13 + (i >> 8));
    }
}

/* SEND of many sizes across MTUs, with faults on the wire: delivered intact, in order, once */
static void run_send_test(unsigned mtu_enum, unsigned drop, unsigned dup, unsigned swap)
{
    static const uint32_t sizes[] = { 0, 1, 255, 256, 257, 1024, 4095, 4096, 4097, 65536,
                                      100000 };
    Wire *w = wire_new(IB_QPT_RC, mtu_enum);
    FakeNode *a = w->node[0], *b = w->node[1];
    unsigned i, n = G_N_ELEMENTS(sizes);

    w->drop_every = drop;
    w->dup_every = dup;
    w->swap_every = swap;
    for (i = 0; i < n; i++) {
        fill(a->mem + i * 131072, sizes[i], i);
        post_recv(b, i * 131072, 131072);
        post_send(a, IB_WR_SEND, i * 131072, sizes[i], 0, i);
    }
    wire_run(w, 100000);
    g_assert_cmpuint(a->nsend, ==, n);
    g_assert_cmpuint(b->nrecv, ==, n);
    for (i = 0; i < n; i++) {
        g_assert_cmpint(a->send_status[i], ==, IB_WC_SUCCESS);
        g_assert_cmpuint(a->send_cookie[i] & 0xffffffff, ==, i);
        g_assert_cmpint(b->recv[i].status, ==, IB_WC_SUCCESS);
        g_assert_cmpuint(b->recv[i].byte_len, ==, sizes[i]);
        g_assert_cmpuint(b->recv_cookie[i], ==, i);
        g_assert_cmpint(memcmp(a->mem + i * 131072, b->mem + i * 131072, sizes[i]), ==, 0);
        g_assert_cmpuint(b->recv[i].src_qpn, ==, a->qp.qpn);
    }
    wire_free(w);
}

static void test_rc_send_clean(void)
{
    for (unsigned mtu = 1; mtu <= 5; mtu++) {
        run_send_test(mtu, 0, 0, 0);
    }
}

static void test_rc_send_lossy(void)
{
    run_send_test(3, 7, 0, 0);
    run_send_test(1, 0, 5, 0);
    run_send_test(2, 0, 0, 3);
    run_send_test(5, 11, 13, 4);
}

static void test_rc_write_read_atomic(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];
    uint64_t v;

    w->drop_every = 9;
    w->dup_every = 7;
    fill(a->mem, 200000, 1);
    fill(b->mem + 400000, 300000, 2);
    post_send(a, IB_WR_RDMA_WRITE, 0, 200000, 0x10000, 1);
    post_send(a, IB_WR_RDMA_READ, 700000, 300000, 400000, 2);
    v = 40;
    memcpy(b->mem + 0x80, &v, 8);
    {
        IbSendWr wr = { .cookie = (1100000ull << 32) | 3, .opcode = IB_WR_ATOMIC_FETCH_ADD,
                        .length = 8, .remote_addr = 0x80, .rkey = RKEY, .compare_add = 2 };
        g_assert_true(ib_qp_post_send(&a->qp, &wr));
        wr.cookie = (1100008ull << 32) | 4;
        wr.opcode = IB_WR_ATOMIC_CMP_SWP;
        wr.compare_add = 42;
        wr.swap = 1000;
        g_assert_true(ib_qp_post_send(&a->qp, &wr));
    }
    wire_run(w, 100000);
    g_assert_cmpuint(a->nsend, ==, 4);
    for (unsigned i = 0; i < 4; i++) {
        g_assert_cmpint(a->send_status[i], ==, IB_WC_SUCCESS);
        g_assert_cmpuint(a->send_cookie[i] & 0xffffffff, ==, i + 1);
    }
    g_assert_cmpint(memcmp(a->mem, b->mem + 0x10000, 200000), ==, 0);
    for (unsigned i = 0; i < 300000; i++) {
        if (a->mem[700000 + i] != b->mem[400000 + i]) {
            g_test_message("READ data differs first at offset %u", i);
            break;
        }
    }
    g_assert_cmpint(memcmp(a->mem + 700000, b->mem + 400000, 300000), ==, 0);
    /* atomics ran exactly once each, despite duplicates on the wire */
    memcpy(&v, b->mem + 0x80, 8);
    g_assert_cmpuint(v, ==, 1000);
    memcpy(&v, a->mem + 1100000, 8);
    g_assert_cmpuint(v, ==, 40);
    memcpy(&v, a->mem + 1100008, 8);
    g_assert_cmpuint(v, ==, 42);
    g_assert_cmpuint(b->nrecv, ==, 0);      /* plain WRITE/READ consume no receive */
    wire_free(w);
}

static void test_rc_write_imm(void)
{
    Wire *w = wire_new(IB_QPT_RC, 5);
    FakeNode *a = w->node[0], *b = w->node[1];

    post_recv(b, 0, 16);
    post_send(a, IB_WR_RDMA_WRITE_IMM, 0, 10000, 0x20000, 1);
    wire_run(w, 10000);
    g_assert_cmpuint(b->nrecv, ==, 1);
    g_assert_cmpint(b->recv[0].opcode, ==, IB_RECV_WRITE_IMM);
    g_assert_cmpuint(b->recv[0].byte_len, ==, 10000);
    g_assert_cmphex(b->recv[0].imm, ==, 0x78563412);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
    wire_free(w);
}

/* RNR: the send waits until a receive is posted, then goes through */
static void test_rc_rnr(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];

    post_send(a, IB_WR_SEND, 0, 3000, 0, 1);
    wire_run(w, 20);                        /* a few RNR rounds */
    g_assert_cmpuint(a->nsend, ==, 0);
    g_assert_cmpuint(a->qp.stat_rnr, >=, 1);
    post_recv(b, 0, 4096);
    wire_run(w, 1000);
    g_assert_cmpuint(a->nsend, ==, 1);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
    g_assert_cmpuint(b->nrecv, ==, 1);
    wire_free(w);
}

/* RNR retries exhausted: RNR_RETRY_EXC_ERR, then the rest flushed */
static void test_rc_rnr_exhausted(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0];

    a->qp.rnr_retry = a->qp.rnr_retries_left = 2;
    post_send(a, IB_WR_SEND, 0, 100, 0, 1);
    post_send(a, IB_WR_SEND, 0, 100, 0, 2);
    wire_run(w, 1000);
    g_assert_cmpuint(a->nsend, ==, 2);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_RNR_RETRY_EXC_ERR);
    g_assert_cmpint(a->send_status[1], ==, IB_WC_WR_FLUSH_ERR);
    g_assert_cmpint(a->qp.state, ==, IB_QPS_ERR);
    wire_free(w);
}

/* Nobody answers: RETRY_EXC_ERR after retry_cnt timeouts */
static void test_rc_retry_exhausted(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0];

    a->qp.retry_cnt = a->qp.retries_left = 3;
    w->drop_every = 1;                      /* a cut cable */
    post_send(a, IB_WR_RDMA_WRITE, 0, 100, 0, 1);
    wire_run(w, 1000);
    g_assert_cmpuint(a->nsend, ==, 1);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_RETRY_EXC_ERR);
    g_assert_cmpuint(w->dropped, ==, 4);    /* first try + 3 retries */
    wire_free(w);
}

static void test_rc_remote_access_error(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];
    IbSendWr wr = { .cookie = 1, .opcode = IB_WR_RDMA_WRITE, .length = 64,
                    .remote_addr = 0, .rkey = 0x999 };

    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wire_run(w, 1000);
    g_assert_cmpuint(a->nsend, ==, 1);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_REM_ACCESS_ERR);
    g_assert_cmpuint(b->events[IB_EV_QP_ACCESS_ERR], ==, 1);
    g_assert_cmpuint(b->events[IB_EV_COMM_EST], ==, 0);     /* b was already RTS */
    wire_free(w);
}

static void test_rc_recv_too_small(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];

    post_recv(b, 0, 100);
    post_send(a, IB_WR_SEND, 0, 101, 0, 1);
    wire_run(w, 1000);
    g_assert_cmpuint(b->nrecv, ==, 1);
    g_assert_cmpint(b->recv[0].status, ==, IB_WC_LOC_LEN_ERR);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_REM_INV_REQ_ERR);
    wire_free(w);
}

static void test_ud(void)
{
    Wire *w = wire_new(IB_QPT_UD, 5);
    FakeNode *a = w->node[0], *b = w->node[1];
    IbSendWr wr = { .cookie = 7, .opcode = IB_WR_SEND_IMM, .length = 2000, .dest_qpn = 0x20,
                    .qkey = 0x11111111, .imm = 0xaabbccdd, .av = { .dlid = 2 } };

    fill(a->mem, 2000, 5);
    post_recv(b, 0x1000, 4096);
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    /* wrong Q_Key: dropped */
    wr.cookie = 8;
    wr.qkey = 0x22222222;
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    /* too big for the MTU: local length error */
    wr.cookie = 9;
    wr.length = 5000;
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wire_run(w, 1000);
    g_assert_cmpuint(a->nsend, ==, 3);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
    g_assert_cmpint(a->send_status[1], ==, IB_WC_SUCCESS);
    g_assert_cmpint(a->send_status[2], ==, IB_WC_LOC_LEN_ERR);
    g_assert_cmpuint(b->nrecv, ==, 1);
    g_assert_cmpuint(b->recv[0].byte_len, ==, 2040);            /* + 40 bytes of GRH area */
    g_assert_cmpuint(b->recv[0].src_qpn, ==, 0x10);
    g_assert_cmpuint(b->recv[0].slid, ==, 1);
    g_assert_cmphex(b->recv[0].imm, ==, 0xaabbccdd);
    g_assert_cmpint(memcmp(a->mem, b->mem + 0x1000 + 40, 2000), ==, 0);
    wire_free(w);
}

static void test_uc_loss(void)
{
    Wire *w = wire_new(IB_QPT_UC, 1);
    FakeNode *a = w->node[0], *b = w->node[1];

    post_recv(b, 0, 8192);
    post_recv(b, 8192, 8192);
    w->drop_every = 3;                          /* the first message loses a packet */
    post_send(a, IB_WR_SEND, 0, 1024, 0, 1);   /* 4 packets of 256 */
    wire_run(w, 100);
    w->drop_every = 0;
    post_send(a, IB_WR_SEND, 0, 200, 0, 2);
    wire_run(w, 100);
    g_assert_cmpuint(a->nsend, ==, 2);          /* UC completes on transmission */
    g_assert_cmpuint(b->nrecv, ==, 1);          /* the damaged message is gone */
    g_assert_cmpuint(b->recv[0].byte_len, ==, 200);
    wire_free(w);
}

static void test_wire_roundtrip(void)
{
    IbPacket p = { 0 }, q;
    uint8_t frame[IB_MAX_HDR_LEN + 64 + 8];
    uint8_t payload[13];
    size_t hlen;
    uint32_t crc;

    fill(payload, sizeof(payload), 3);
    p.dlid = 0x3402;
    p.slid = 0x3401;
    p.sl = 3;
    p.opcode = IB_TRANSPORT_RC | IB_OP_WRITE_ONLY_IMM;
    p.se = true;
    p.pkey = 0xffff;
    p.dest_qpn = 0xabcdef;
    p.ack_req = true;
    p.psn = 0xfffffe;
    p.reth_va = 0x1122334455667788ull;
    p.reth_rkey = 0x99aabbcc;
    p.reth_len = 13;
    p.imm = 0x01020304;
    p.pad = 3;
    hlen = ib_wire_encode_hdr(&p, frame, sizeof(payload));
    memcpy(frame + hlen, payload, sizeof(payload));
    memset(frame + hlen + sizeof(payload), 0, 3);
    crc = ib_wire_icrc(frame, hlen, payload, sizeof(payload), 3);
    for (int i = 0; i < 4; i++) {
        frame[hlen + sizeof(payload) + 3 + i] = crc >> (8 * i);
    }
    g_assert_cmpint(ib_wire_decode(frame, hlen + sizeof(payload) + 7, &q), ==, 0);
    g_assert_cmphex(q.dlid, ==, 0x3402);
    g_assert_cmphex(q.slid, ==, 0x3401);
    g_assert_cmpuint(q.sl, ==, 3);
    g_assert_cmphex(q.dest_qpn, ==, 0xabcdef);
    g_assert_cmphex(q.psn, ==, 0xfffffe);
    g_assert_true(q.se && q.ack_req);
    g_assert_cmphex(q.reth_va, ==, 0x1122334455667788ull);
    g_assert_cmphex(q.reth_rkey, ==, 0x99aabbcc);
    g_assert_cmphex(q.imm, ==, 0x01020304);
    g_assert_cmpuint(q.payload_len, ==, 13);
    g_assert_cmpint(memcmp(q.payload, payload, 13), ==, 0);
    /* a flipped payload bit fails the ICRC; a truncated frame is rejected */
    frame[hlen + 2] ^= 1;
    g_assert_cmpint(ib_wire_decode(frame, hlen + sizeof(payload) + 7, &q), <, 0);
    frame[hlen + 2] ^= 1;
    for (size_t cut = 0; cut < hlen + sizeof(payload) + 7; cut++) {
        g_assert_cmpint(ib_wire_decode(frame, cut, &q), <, 0);
    }
    /* PSN arithmetic wraps at 24 bits */
    g_assert_cmpint(ib_psn_diff(0x000001, 0xffffff), ==, 2);
    g_assert_cmpint(ib_psn_diff(0xffffff, 0x000001), ==, -2);
}

/*
 * XRC: the initiator's requests carry the XRC transport opcodes and an XRCETH naming the
 * target's XRC SRQ; the target takes each receive for that SRQ, answers with XRC ACKs, and
 * refuses a request naming an SRQ outside its domain with NAK invalid request.
 */
static void test_xrc(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];
    IbSendWr wr = { .opcode = IB_WR_SEND, .length = 3000, .signaled = true,
                    .xrc_srqn = XRC_SRQN };
    IbPacket p = { 0 }, q;
    uint8_t frame[IB_MAX_HDR_LEN + 8];
    size_t hlen;
    uint32_t crc;

    /* XRCETH on the wire: after the BTH, before the RETH */
    p.opcode = IB_TRANSPORT_XRC | IB_OP_WRITE_ONLY;
    p.dest_qpn = 0x123;
    p.xrc_srqn = 0xabcdef;
    p.reth_rkey = 0x55;
    p.pkey = 0xffff;
    hlen = ib_wire_encode_hdr(&p, frame, 0);
    g_assert_cmphex(ib_ld32(frame + hlen - IB_RETH_LEN - IB_XRCETH_LEN), ==, 0xabcdef);
    crc = ib_wire_icrc(frame, hlen, NULL, 0, 0);
    for (int i = 0; i < 4; i++) {
        frame[hlen + i] = crc >> (8 * i);
    }
    g_assert_cmpint(ib_wire_decode(frame, hlen + 4, &q), ==, 0);
    g_assert_cmphex(q.xrc_srqn, ==, 0xabcdef);
    g_assert_cmphex(q.reth_rkey, ==, 0x55);
    /* responses carry no XRCETH */
    g_assert_false(ib_opcode_headers(IB_TRANSPORT_XRC | IB_OP_ACKNOWLEDGE) & IB_HDR_XRCETH);
    g_assert_true(ib_opcode_headers(IB_TRANSPORT_XRC | IB_OP_READ_REQUEST) & IB_HDR_XRCETH);

    a->qp.xrc = b->qp.xrc = true;
    fill(a->mem, 3000, 9);
    post_recv(b, 0x10000, 4096);
    post_recv(b, 0x20000, 4096);
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wr.opcode = IB_WR_RDMA_WRITE;
    wr.remote_addr = 0x30000;
    wr.rkey = RKEY;
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wire_run(w, 10000);
    g_assert_cmpuint(a->nsend, ==, 2);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
    g_assert_cmpint(a->send_status[1], ==, IB_WC_SUCCESS);
    g_assert_cmpuint(b->nrecv, ==, 1);
    g_assert_cmphex(b->xrc_srqn_seen[0], ==, XRC_SRQN);
    g_assert_cmpint(memcmp(b->mem + 0x10000, a->mem, 3000), ==, 0);
    g_assert_cmpint(memcmp(b->mem + 0x30000, a->mem, 3000), ==, 0);
    /* an SRQ outside the target's domain: NAK invalid request, the initiator fails */
    wr.opcode = IB_WR_SEND;
    wr.xrc_srqn = XRC_SRQN + 1;
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wire_run(w, 10000);
    g_assert_cmpuint(a->nsend, ==, 3);
    g_assert_cmpint(a->send_status[2], ==, IB_WC_REM_INV_REQ_ERR);
    g_assert_cmpuint(b->nrecv, ==, 1);
    wire_free(w);
}

#define DC_KEY 0x0123456789abcdefull

/* Node b's QP becomes a DCT with @nctx contexts, node a's a DCI. */
static void dc_setup(Wire *w, unsigned nctx)
{
    FakeNode *a = w->node[0], *b = w->node[1];

    ib_qp_cleanup(&b->qp);
    ib_qp_init(&b->qp, &b->port, 0x20, IB_QPT_DCT, 1);
    b->qp.mtu = a->qp.mtu;
    b->qp.rre = b->qp.rwe = b->qp.rae = true;
    b->qp.min_rnr_timer = 1;
    b->qp.max_dest_rd_atomic = 4;
    b->qp.dc_key = DC_KEY;
    ib_dct_init(&b->qp, nctx);
    ib_qp_set_state(&b->qp, IB_QPS_INIT);
    ib_qp_set_state(&b->qp, IB_QPS_RTR);
    a->qp.dci = true;
}

static IbSendWr dc_wr(IbWrOpcode op, uint64_t va, uint32_t len, uint64_t remote, unsigned sl)
{
    IbSendWr wr = {
        .cookie = (va << 32) | op,
        .opcode = op,
        .length = len,
        .remote_addr = remote,
        .rkey = RKEY,
        .compare_add = 5,
        .signaled = true,
        .dest_qpn = 0x20,
        .dc_key = DC_KEY,
    };
    wr.av.dlid = 2;
    wr.av.sl = sl;
    return wr;
}

/* DC: DCETH on the wire, every operation through a DCT, new connections, loss, a wrong key */
static void test_dc(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];
    IbPacket p = { 0 }, q;
    uint8_t frame[IB_MAX_HDR_LEN + 8];
    IbSendWr wr;
    size_t hlen;
    uint32_t crc, conn0;
    unsigned i;

    p.opcode = IB_TRANSPORT_DC | IB_OP_COMPARE_SWAP;
    p.dest_qpn = 0x123;
    p.dc_key = DC_KEY;
    p.dc_conn_id = 0xfeedf00d;
    p.dc_conn_psn = 0xabcdef;
    p.dc_src_qpn = 0x456;
    p.atomic_rkey = 0x55;
    p.pkey = 0xffff;
    hlen = ib_wire_encode_hdr(&p, frame, 0);
    crc = ib_wire_icrc(frame, hlen, NULL, 0, 0);
    for (i = 0; i < 4; i++) {
        frame[hlen + i] = crc >> (8 * i);
    }
    g_assert_cmpint(ib_wire_decode(frame, hlen + 4, &q), ==, 0);
    g_assert_cmphex(q.dc_key, ==, DC_KEY);
    g_assert_cmphex(q.dc_conn_id, ==, 0xfeedf00d);
    g_assert_cmphex(q.dc_conn_psn, ==, 0xabcdef);
    g_assert_cmphex(q.dc_src_qpn, ==, 0x456);
    g_assert_cmphex(q.atomic_rkey, ==, 0x55);
    g_assert_false(ib_opcode_headers(IB_TRANSPORT_DC | IB_OP_ACKNOWLEDGE) & IB_HDR_DCETH);

    dc_setup(w, 2);
    conn0 = a->qp.dc_conn_id;
    w->drop_every = 9;
    /* SENDs alternating between two paths (a new connection each time), WRITE, READ, atomic */
    for (i = 0; i < 12; i++) {
        fill(a->mem + i * 0x4000, 3000 + i, i);
        post_recv(b, i * 0x4000, 0x4000);
        wr = dc_wr(IB_WR_SEND, i * 0x4000, 3000 + i, 0, (i / 3) & 1);
        g_assert_true(ib_qp_post_send(&a->qp, &wr));
    }
    fill(a->mem + 0x100000, 9000, 77);
    wr = dc_wr(IB_WR_RDMA_WRITE, 0x100000, 9000, 0x110000, 0);
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    fill(b->mem + 0x120000, 5000, 78);
    wr = dc_wr(IB_WR_RDMA_READ, 0x130000, 5000, 0x120000, 1);
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    memset(b->mem + 0x140000, 0, 8);
    b->mem[0x140000] = 37;
    wr = dc_wr(IB_WR_ATOMIC_FETCH_ADD, 0x150000, 8, 0x140000, 0);
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wire_run(w, 100000);
    g_assert_cmpuint(a->nsend, ==, 15);
    for (i = 0; i < 15; i++) {
        g_assert_cmpint(a->send_status[i], ==, IB_WC_SUCCESS);
    }
    g_assert_cmpuint(b->nrecv, ==, 12);
    for (i = 0; i < 12; i++) {
        g_assert_cmpint(b->recv[i].status, ==, IB_WC_SUCCESS);
        g_assert_cmpuint(b->recv[i].byte_len, ==, 3000 + i);
        g_assert_cmpuint(b->recv[i].src_qpn, ==, a->qp.qpn);
        g_assert_cmpint(memcmp(a->mem + i * 0x4000, b->mem + i * 0x4000, 3000 + i), ==, 0);
    }
    g_assert_cmpint(memcmp(a->mem + 0x100000, b->mem + 0x110000, 9000), ==, 0);
    g_assert_cmpint(memcmp(a->mem + 0x130000, b->mem + 0x120000, 5000), ==, 0);
    g_assert_cmpuint(a->mem[0x150000], ==, 37);
    g_assert_cmpuint(b->mem[0x140000], ==, 42);
    /* seven connections (each change of path), all served by one context */
    g_assert_cmpuint(a->qp.dc_conn_id - conn0, ==, 7);
    g_assert_true(b->qp.dc_ctx[0].dc_bound);
    g_assert_cmphex(b->qp.dc_ctx[0].dc_conn_id, ==, a->qp.dc_conn_id);
    g_assert_false(b->qp.dc_ctx[1].dc_bound);
    g_assert_cmpuint(b->events[IB_EV_COMM_EST], ==, 0);

    /* a wrong access key: the DCT drops the request, the DCI runs out of retries */
    w->drop_every = 0;
    a->qp.retry_cnt = 2;
    a->qp.retries_left = 2;
    post_recv(b, 0x160000, 0x1000);
    wr = dc_wr(IB_WR_SEND, 0, 16, 0, 0);
    wr.dc_key = DC_KEY + 1;
    g_assert_true(ib_qp_post_send(&a->qp, &wr));
    wire_run(w, 100000);
    g_assert_cmpuint(a->nsend, ==, 16);
    g_assert_cmpint(a->send_status[15], ==, IB_WC_RETRY_EXC_ERR);
    g_assert_cmpuint(b->nrecv, ==, 12);
    g_assert_cmpuint(b->qp.stat_dc_key_violations, ==, 3);

    /* draining forgets the initiators and takes nothing more */
    ib_dct_drain(&b->qp);
    for (i = 0; i < b->qp.dc_nctx; i++) {
        g_assert_false(b->qp.dc_ctx[i].dc_bound);
    }
    wire_free(w);
}

/* Long transfer across the PSN wrap point */
/*
 * Automatic path migration with LMC 1: node A has LIDs 2-3, node B 4-5. Primary paths use the
 * base LIDs, alternate paths the second LID of each port (source path bits 1).
 */
static Wire *apm_wire(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];

    a->port.lid = 2;
    b->port.lid = 4;
    a->port.lmc = b->port.lmc = 1;
    a->qp.av.dlid = 4;
    b->qp.av.dlid = 2;
    a->qp.alt_av.dlid = 5;
    a->qp.alt_av.src_path_bits = 1;
    b->qp.alt_av.dlid = 3;
    b->qp.alt_av.src_path_bits = 1;
    a->qp.alt_timeout = b->qp.alt_timeout = 12;
    a->qp.mig_state = b->qp.mig_state = IB_MIG_REARM;
    return w;
}

/* One SEND from @from to @to, checked; returns the receive completion. */
static IbRecvCompletion apm_send(Wire *w, FakeNode *from, FakeNode *to, unsigned id)
{
    unsigned ns = from->nsend, nr = to->nrecv;

    fill(from->mem + 0x1000, 300, id);
    post_recv(to, 0x8000 + id * 0x400, 0x400);
    post_send(from, IB_WR_SEND, 0x1000, 300, 0, id);
    wire_run(w, 10000);
    g_assert_cmpuint(from->nsend, ==, ns + 1);
    g_assert_cmpint(from->send_status[ns], ==, IB_WC_SUCCESS);
    g_assert_cmpuint(to->nrecv, ==, nr + 1);
    g_assert_cmpint(to->recv[nr].status, ==, IB_WC_SUCCESS);
    g_assert_cmpint(memcmp(from->mem + 0x1000, to->mem + 0x8000 + id * 0x400, 300), ==, 0);
    return to->recv[nr];
}

static void test_apm(void)
{
    Wire *w = apm_wire();
    FakeNode *a = w->node[0], *b = w->node[1];
    IbRecvCompletion rc;

    /* arming: each side arms on the other's first packet with MigReq clear */
    rc = apm_send(w, a, b, 1);
    g_assert_cmpuint(rc.slid, ==, 2);
    g_assert_cmpuint(rc.dlid_path_bits, ==, 0);
    g_assert_cmpint(a->qp.mig_state, ==, IB_MIG_ARMED);
    g_assert_cmpint(b->qp.mig_state, ==, IB_MIG_ARMED);

    /* software migrates A; B follows on A's first packet over the alternate path */
    ib_apm_migrate(&a->qp);
    g_assert_cmpint(a->qp.mig_state, ==, IB_MIG_MIGRATED);
    g_assert_cmpuint(a->qp.av.dlid, ==, 5);
    g_assert_cmpuint(a->qp.timeout, ==, 12);
    g_assert_cmpuint(a->events[IB_EV_PATH_MIG], ==, 1);
    rc = apm_send(w, a, b, 2);
    g_assert_cmpuint(rc.slid, ==, 3);               /* A's second LID */
    g_assert_cmpuint(rc.dlid_path_bits, ==, 1);     /* to B's second LID */
    g_assert_cmpint(b->qp.mig_state, ==, IB_MIG_MIGRATED);
    g_assert_cmpuint(b->qp.av.dlid, ==, 3);
    g_assert_cmpuint(b->events[IB_EV_PATH_MIG], ==, 1);
    rc = apm_send(w, b, a, 3);
    g_assert_cmpuint(rc.slid, ==, 5);
    g_assert_cmpuint(rc.dlid_path_bits, ==, 1);
    /* migrated QPs send MigReq set: a migrated QP does not migrate again */
    ib_apm_migrate(&a->qp);
    g_assert_cmpuint(a->events[IB_EV_PATH_MIG], ==, 1);
    wire_free(w);

    /* a rearming QP ignores MigReq set (the peer has not rearmed) and stays unarmed */
    w = apm_wire();
    a = w->node[0];
    b = w->node[1];
    b->qp.mig_state = IB_MIG_MIGRATED;
    apm_send(w, b, a, 1);
    g_assert_cmpint(a->qp.mig_state, ==, IB_MIG_REARM);
    ib_apm_migrate(&a->qp);                         /* not armed: nothing happens */
    g_assert_cmpuint(a->qp.av.dlid, ==, 4);
    g_assert_cmpuint(a->events[IB_EV_PATH_MIG], ==, 0);
    wire_free(w);

    /* MigReq set from a LID that is not the alternate path's: dropped, no migration */
    w = apm_wire();
    a = w->node[0];
    b = w->node[1];
    apm_send(w, a, b, 1);
    a->qp.alt_av.src_path_bits = 0;                 /* A's alternate path leaves from LID 2 */
    ib_apm_migrate(&a->qp);
    a->qp.retry_cnt = a->qp.retries_left = 1;
    post_recv(b, 0x8000, 0x400);
    post_send(a, IB_WR_SEND, 0x1000, 300, 0, 9);
    wire_run(w, 10000);
    g_assert_cmpint(a->send_status[a->nsend - 1], ==, IB_WC_RETRY_EXC_ERR);
    g_assert_cmpint(b->qp.mig_state, ==, IB_MIG_ARMED);
    g_assert_cmpuint(b->events[IB_EV_PATH_MIG], ==, 0);
    g_assert_cmpuint(b->port.stat_rx_drop, >=, 2);
    wire_free(w);
}

/* The primary path breaks: retries run out, the QP migrates and the transfer completes */
static void test_apm_failover(void)
{
    Wire *w = apm_wire();
    FakeNode *a = w->node[0], *b = w->node[1];
    IbRecvCompletion rc;

    apm_send(w, a, b, 1);
    a->qp.retry_cnt = a->qp.retries_left = 2;
    w->dead_dlid = 4;                               /* B's base LID is unreachable */
    fill(a->mem, 20000, 5);
    post_send(a, IB_WR_RDMA_WRITE, 0, 20000, 0x40000, 2);
    wire_run(w, 10000);
    g_assert_cmpuint(a->nsend, ==, 2);
    g_assert_cmpint(a->send_status[1], ==, IB_WC_SUCCESS);
    g_assert_cmpint(memcmp(a->mem, b->mem + 0x40000, 20000), ==, 0);
    g_assert_cmpuint(w->dropped, >=, 3);            /* the first try and two retries */
    g_assert_cmpint(a->qp.mig_state, ==, IB_MIG_MIGRATED);
    g_assert_cmpuint(a->qp.av.dlid, ==, 5);
    g_assert_cmpuint(a->events[IB_EV_PATH_MIG], ==, 1);
    g_assert_cmpint(b->qp.mig_state, ==, IB_MIG_MIGRATED);   /* followed A */
    g_assert_cmpuint(b->events[IB_EV_PATH_MIG], ==, 1);
    rc = apm_send(w, b, a, 3);                      /* and B answers over its new path */
    g_assert_cmpuint(rc.dlid_path_bits, ==, 1);
    g_assert_cmpuint(a->events[IB_EV_QP_FATAL], ==, 0);

    /* no alternate path left: when that one breaks too, the WR ends in RETRY_EXC */
    w->dead_dlid = 5;
    post_send(a, IB_WR_RDMA_WRITE, 0, 100, 0x40000, 4);
    wire_run(w, 10000);
    g_assert_cmpint(a->send_status[a->nsend - 1], ==, IB_WC_RETRY_EXC_ERR);
    g_assert_cmpuint(a->events[IB_EV_PATH_MIG], ==, 1);
    wire_free(w);
}

/* Fault injection on the receiving links: every byte still arrives, once, in order */
static void run_fault_test(const IbFaultConfig *cfg, IbFaultStats *st_out)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];
    IbFaultStats st[2];
    unsigned i, n = 40;

    ib_fault_configure(&a->port, cfg);
    ib_fault_configure(&b->port, cfg);
    for (i = 0; i < n; i++) {
        fill(a->mem + i * 8192, 5000 + i, i);
        if (i % 3 == 0) {
            post_recv(b, 0x100000 + i * 8192, 8192);
            post_send(a, IB_WR_SEND, i * 8192, 5000 + i, 0, i);
        } else if (i % 3 == 1) {
            post_send(a, IB_WR_RDMA_WRITE, i * 8192, 5000 + i, 0x100000 + i * 8192, i);
        } else {
            fill(b->mem + 0x100000 + i * 8192, 5000 + i, i + 100);
            post_send(a, IB_WR_RDMA_READ, i * 8192, 5000 + i, 0x100000 + i * 8192, i);
        }
    }
    wire_run(w, 200000);
    g_assert_cmpuint(a->nsend, ==, n);
    for (i = 0; i < n; i++) {
        g_assert_cmpint(a->send_status[i], ==, IB_WC_SUCCESS);
        if (memcmp(a->mem + i * 8192, b->mem + 0x100000 + i * 8192, 5000 + i)) {
            unsigned k = 0;
            while (a->mem[i * 8192 + k] == b->mem[0x100000 + i * 8192 + k]) {
                k++;
            }
            g_test_message("message %u (op %u) differs at %u: %02x vs %02x", i, i % 3, k,
                           a->mem[i * 8192 + k], b->mem[0x100000 + i * 8192 + k]);
        }
        g_assert_cmpint(memcmp(a->mem + i * 8192, b->mem + 0x100000 + i * 8192, 5000 + i), ==,
                        0);
    }
    g_assert_cmpuint(b->nrecv, ==, (n + 2) / 3);
    g_assert_true(ib_fault_stats(&a->port, &st[0]));
    g_assert_true(ib_fault_stats(&b->port, &st[1]));
    st_out->drop = st[0].drop + st[1].drop;
    st_out->dup = st[0].dup + st[1].dup;
    st_out->reorder = st[0].reorder + st[1].reorder;
    st_out->corrupt = st[0].corrupt + st[1].corrupt;
    /* a corrupted frame fails its ICRC: dropped as a link error */
    g_assert_cmpuint(a->port.stat_rx_bad + b->port.stat_rx_bad, ==, st_out->corrupt);
    wire_free(w);
}

/* Many READs of many sizes in flight on a lossy link (partial responses, re-requests). */
static void test_fault_reads(void)
{
    static const uint32_t len[] = { 1, 4095, 4097, 65536, 150001, 65543, 30000, 9000 };
    IbFaultConfig cfg = { .drop = 5, .reorder = 5, .dup = 2 };

    for (unsigned seed = 1; seed <= 64; seed++) {
        Wire *w = wire_new(IB_QPT_RC, 5);
        FakeNode *a = w->node[0], *b = w->node[1];
        unsigned i, n = G_N_ELEMENTS(len);
        uint64_t off[G_N_ELEMENTS(len)], o = 0;

        cfg.seed = seed;
        ib_fault_configure(&a->port, &cfg);
        ib_fault_configure(&b->port, &cfg);
        for (i = 0; i < n; i++) {
            off[i] = o;                     /* within [0, 1 MiB) here, + 1 MiB there */
            o = (o + len[i] + 4095) & ~4095ull;
            fill(b->mem + 0x100000 + off[i], len[i], i + 7);
            fill(a->mem + off[i], len[i], i + 7);
            /* WRITEs and READs of the same bytes: duplicates of either are answered */
            post_send(a, i % 3 == 1 ? IB_WR_RDMA_WRITE : IB_WR_RDMA_READ, off[i], len[i],
                      0x100000 + off[i], i);
        }
        wire_run(w, 400000);
        g_assert_cmpuint(a->nsend, ==, n);
        for (i = 0; i < n; i++) {
            g_assert_cmpint(a->send_status[i], ==, IB_WC_SUCCESS);
            g_assert_cmpint(memcmp(a->mem + off[i], b->mem + 0x100000 + off[i], len[i]), ==, 0);
        }
        wire_free(w);
    }
}

static void test_fault_injection(void)
{
    IbFaultConfig cfg = { .drop = 5, .dup = 5, .reorder = 10, .corrupt = 5, .seed = 42 };
    IbFaultConfig none = { 0 };
    IbFaultStats s1, s2;
    Wire *w;

    run_fault_test(&cfg, &s1);
    g_assert_cmpuint(s1.drop, >, 0);
    g_assert_cmpuint(s1.dup, >, 0);
    g_assert_cmpuint(s1.reorder, >, 0);
    g_assert_cmpuint(s1.corrupt, >, 0);
    /* the same seed gives the same run */
    run_fault_test(&cfg, &s2);
    g_assert_cmpuint(s1.drop, ==, s2.drop);
    g_assert_cmpuint(s1.reorder, ==, s2.reorder);
    cfg.delay_us = 300;
    run_fault_test(&cfg, &s2);
    /* reordering alone, seed 42: a late duplicate READ response was once taken as the ACK of
     * a WRITE the responder had not executed (the WRITE completed, its bytes never landed) */
    run_fault_test(&(IbFaultConfig){ .reorder = 10, .seed = 42 }, &s2);
    g_assert_cmpuint(s2.reorder, >, 0);

    /* delay alone: the frames arrive that much later */
    w = wire_new(IB_QPT_RC, 3);
    cfg = (IbFaultConfig){ .delay_us = 500 };
    ib_fault_configure(&w->node[1]->port, &cfg);
    post_recv(w->node[1], 0, 4096);
    post_send(w->node[0], IB_WR_SEND, 0, 100, 0, 1);
    wire_run(w, 1000);
    g_assert_cmpuint(w->node[1]->nrecv, ==, 1);
    g_assert_cmpuint(w->node[0]->nsend, ==, 1);
    g_assert_cmpint(w->now, >=, 500000);
    /* configured off again: nothing held, no statistics */
    ib_fault_configure(&w->node[1]->port, &none);
    g_assert_false(ib_fault_stats(&w->node[1]->port, &s1));
    wire_free(w);
}

/*
 * Deliver the frames in flight one round: each frame's fate is @fate(opcode, psn, n) where n
 * counts the frames with that opcode and PSN so far: 0 drop, 1 deliver, 2 deliver twice.
 * Returns the number of frames seen.
 */
static uint8_t pumped[32][IB_MAX_FRAME];    /* the last frame of each RC opcode */
static size_t pumped_len[32];

static unsigned pump(Wire *w, int (*fate)(uint8_t op, uint32_t psn, unsigned n))
{
    static unsigned seen[256][64];
    unsigned count = 0;

    for (int i = 0; i < 2; i++) {
        ib_port_run(&w->node[i]->port, 64);
    }
    while (w->count) {
        uint8_t *f = w->frame[0];
        size_t len = w->len[0];
        int dst = w->dst[0], k;
        IbPacket p;
        memmove(w->frame, w->frame + 1, (w->count - 1) * sizeof(w->frame[0]));
        memmove(w->len, w->len + 1, (w->count - 1) * sizeof(w->len[0]));
        memmove(w->dst, w->dst + 1, (w->count - 1) * sizeof(w->dst[0]));
        w->count--;
        g_assert_cmpint(ib_wire_decode(f, len, &p), ==, 0);
        memcpy(pumped[p.opcode & 31], f, len);
        pumped_len[p.opcode & 31] = len;
        k = fate(p.opcode, p.psn, seen[p.opcode][p.psn & 63]++);
        for (int j = 0; j < k; j++) {
            ib_port_rx(&w->node[dst]->port, f, len);
        }
        g_free(f);
        count++;
    }
    return count;
}

/* the READ's last two response packets are lost, and so is its first re-request */
static uint8_t saved_write[IB_MAX_FRAME];
static size_t saved_write_len;

static int fate_read_ack(uint8_t op, uint32_t psn, unsigned n)
{
    if ((op == IB_OP_READ_RESPONSE_MIDDLE || op == IB_OP_READ_RESPONSE_LAST) && n == 0) {
        return 0;
    }
    if (op == IB_OP_READ_REQUEST && psn != 0x101 && n == 0) {
        return 0;                       /* the re-request (from a later PSN) */
    }
    return 1;
}

/*
 * An ACK that covers a READ whose responses are missing (the responder's answer to a late
 * duplicate of the WRITE before it): the requester asks for them again, and when that
 * re-request is lost too, its timeout asks once more.
 */
static void test_rc_read_ack_past_missing(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];

    fill(b->mem + 0x10000, 3000, 3);
    post_send(a, IB_WR_RDMA_WRITE, 0x30000, 100, 0x40000, 1);
    post_send(a, IB_WR_RDMA_READ, 0x20000, 3000, 0x10000, 2);
    /* the WRITE's frame, to deliver it again later */
    ib_port_run(&a->port, 64);
    g_assert_cmpuint(w->count, ==, 2);
    saved_write_len = w->len[0];
    memcpy(saved_write, w->frame[0], saved_write_len);
    for (unsigned r = 0; r < 1000 && a->nsend < 2; r++) {
        if (!pump(w, fate_read_ack)) {
            int64_t next = MIN(a->deadline, b->deadline);
            g_assert_cmpint(next, !=, INT64_MAX);   /* no timer left: the QP hangs */
            w->now = MAX(w->now, next);
            ib_port_expire(&a->port, w->now);
            ib_port_expire(&b->port, w->now);
        }
        if (r == 1) {
            ib_port_rx(&b->port, saved_write, saved_write_len);   /* a late duplicate */
        }
    }
    g_assert_cmpuint(a->nsend, ==, 2);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
    g_assert_cmpint(a->send_status[1], ==, IB_WC_SUCCESS);
    g_assert_cmpint(memcmp(a->mem + 0x20000, b->mem + 0x10000, 3000), ==, 0);
    wire_free(w);
}

/* the READ's middle response is late: it arrives after the last one */
static int fate_read_late(uint8_t op, uint32_t psn, unsigned n)
{
    return op == IB_OP_READ_RESPONSE_MIDDLE && n == 0 ? 0 : 1;
}

/*
 * A READ whose missing response the requester was about to ask for again, completed by the
 * responses still in flight before the re-request left, once never retired: no completion,
 * and the QP hung (found by the faults guest test).
 */
static void test_rc_read_completed_before_rerequest(void)
{
    Wire *w = wire_new(IB_QPT_RC, 3);
    FakeNode *a = w->node[0], *b = w->node[1];

    fill(b->mem + 0x10000, 3000, 5);
    post_send(a, IB_WR_RDMA_READ, 0x20000, 3000, 0x10000, 1);
    pump(w, fate_read_late);            /* the request */
    pump(w, fate_read_late);            /* FIRST, (MIDDLE lost), LAST: a rewind to MIDDLE */
    g_assert_cmpuint(a->nsend, ==, 0);
    /* before the requester sends anything: the late MIDDLE, then LAST again */
    ib_port_rx(&a->port, pumped[IB_OP_READ_RESPONSE_MIDDLE],
               pumped_len[IB_OP_READ_RESPONSE_MIDDLE]);
    ib_port_rx(&a->port, pumped[IB_OP_READ_RESPONSE_LAST], pumped_len[IB_OP_READ_RESPONSE_LAST]);
    g_assert_cmpuint(a->nsend, ==, 1);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
    g_assert_cmpint(memcmp(a->mem + 0x20000, b->mem + 0x10000, 3000), ==, 0);
    /* and the QP goes on: a WRITE after it */
    post_send(a, IB_WR_RDMA_WRITE, 0x30000, 100, 0x40000, 2);
    wire_run(w, 1000);
    g_assert_cmpuint(a->nsend, ==, 2);
    g_assert_cmpint(a->send_status[1], ==, IB_WC_SUCCESS);
    wire_free(w);
}

static void test_rc_psn_wrap(void)
{
    Wire *w = wire_new(IB_QPT_RC, 1);
    FakeNode *a = w->node[0], *b = w->node[1];

    ib_qp_set_state(&a->qp, IB_QPS_RESET);
    ib_qp_set_state(&b->qp, IB_QPS_RESET);
    a->qp.sq_psn = b->qp.rq_psn = 0xffff00;
    for (int i = 0; i < 2; i++) {
        ib_qp_set_state(&w->node[i]->qp, IB_QPS_INIT);
        ib_qp_set_state(&w->node[i]->qp, IB_QPS_RTR);
        ib_qp_set_state(&w->node[i]->qp, IB_QPS_RTS);
    }
    fill(a->mem, 300000, 9);
    post_send(a, IB_WR_RDMA_WRITE, 0, 300000, 0x80000, 1);   /* 1172 packets */
    w->drop_every = 101;
    wire_run(w, 100000);
    g_assert_cmpint(a->send_status[0], ==, IB_WC_SUCCESS);
    g_assert_cmpint(memcmp(a->mem, b->mem + 0x80000, 300000), ==, 0);
    g_assert_cmpuint(a->qp.next_psn, <, 0x1000);
    wire_free(w);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/ib/wire/roundtrip", test_wire_roundtrip);
    g_test_add_func("/ib/xrc", test_xrc);
    g_test_add_func("/ib/dc", test_dc);
    g_test_add_func("/ib/apm", test_apm);
    g_test_add_func("/ib/apm/failover", test_apm_failover);
    g_test_add_func("/ib/fault-injection", test_fault_injection);
    g_test_add_func("/ib/fault-injection/reads", test_fault_reads);
    g_test_add_func("/ib/rc/send-clean", test_rc_send_clean);
    g_test_add_func("/ib/rc/send-lossy", test_rc_send_lossy);
    g_test_add_func("/ib/rc/write-read-atomic", test_rc_write_read_atomic);
    g_test_add_func("/ib/rc/write-imm", test_rc_write_imm);
    g_test_add_func("/ib/rc/rnr", test_rc_rnr);
    g_test_add_func("/ib/rc/rnr-exhausted", test_rc_rnr_exhausted);
    g_test_add_func("/ib/rc/retry-exhausted", test_rc_retry_exhausted);
    g_test_add_func("/ib/rc/remote-access-error", test_rc_remote_access_error);
    g_test_add_func("/ib/rc/recv-too-small", test_rc_recv_too_small);
    g_test_add_func("/ib/rc/psn-wrap", test_rc_psn_wrap);
    g_test_add_func("/ib/rc/read-ack-past-missing", test_rc_read_ack_past_missing);
    g_test_add_func("/ib/rc/read-completed-before-rerequest",
                    test_rc_read_completed_before_rerequest);
    g_test_add_func("/ib/ud/send", test_ud);
    g_test_add_func("/ib/uc/loss", test_uc_loss);
    return g_test_run();
}
