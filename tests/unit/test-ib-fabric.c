/*
 * Unit tests of the vendor-neutral fabric services: SM election over port announcements
 * (ib_sm.c), the subnet administrator (ib_sa.c) and multicast delivery (ib_mcast.c). Three
 * ports share a fake hub (every frame reaches every other port); each has QP0, QP1 and one UD
 * QP, and records what they receive. Time is virtual: announcements and expiries run as the
 * tests advance it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-test.h"
#include "hw/rdma/ib/ib_transport.h"
#include "hw/rdma/ib/ib_wire.h"
#include "hw/rdma/ib/ib_mad.h"

#define NNODES      3
#define MEM         (64 * 1024)
#define MAX_RX      64
#define RX_BUF      (4096 + 64)
#define MAX_FRAMES  1024
#define UD_QPN      0x10
#define UD_QKEY     0x0b1b
#define MS          1000000ll

typedef struct Fab Fab;

typedef struct Rx {
    uint32_t qpn;               /* the receiving QP (wire QPN) */
    IbRecvCompletion rc;
    uint8_t data[RX_BUF];       /* GRH area (40) + payload */
} Rx;

typedef struct FNode {
    IbPort port;
    IbQp smi, gsi, ud;
    Fab *fab;
    int idx;
    bool mute;                  /* its frames do not leave (a stopped machine) */
    uint8_t mem[MEM];
    Rx rx[MAX_RX];
    unsigned nrx;
    unsigned sm_changes;
    int64_t deadline;
} FNode;

struct Fab {
    FNode *node[NNODES];
    uint8_t *frame[MAX_FRAMES];
    size_t len[MAX_FRAMES];
    int src[MAX_FRAMES];
    unsigned count;
    int64_t now;
};

static FNode *fnode(IbPort *port)
{
    return port->dev;
}

static IbWcStatus fk_gather(IbQp *qp, const IbSendWr *wr, uint64_t off, void *buf, uint32_t len)
{
    FNode *n = fnode(qp->port);

    g_assert_cmpuint(wr->cookie + off + len, <=, MEM);
    memcpy(buf, n->mem + wr->cookie + off, len);
    return IB_WC_SUCCESS;
}

static void fk_send_done(IbQp *qp, const IbSendWr *wr, IbWcStatus st)
{
    g_assert_cmpint(st, ==, IB_WC_SUCCESS);
}

static bool fk_recv_get(IbQp *qp, IbRecvWr *rwr, const void *msg,
                        uint32_t msg_len)
{
    FNode *n = fnode(qp->port);

    if (n->nrx == MAX_RX) {
        return false;
    }
    memset(&n->rx[n->nrx], 0, sizeof(Rx));
    rwr->cookie = n->nrx;
    rwr->capacity = RX_BUF;
    return true;
}

static IbWcStatus fk_recv_scatter(IbQp *qp, const IbRecvWr *rwr, uint64_t off, const void *buf,
                                  uint32_t len)
{
    FNode *n = fnode(qp->port);

    g_assert_cmpuint(off + len, <=, RX_BUF);
    memcpy(n->rx[rwr->cookie].data + off, buf, len);
    return IB_WC_SUCCESS;
}

static void fk_recv_done(IbQp *qp, const IbRecvWr *rwr, const IbRecvCompletion *rc)
{
    FNode *n = fnode(qp->port);

    n->rx[rwr->cookie].qpn = qp->qpn;
    n->rx[rwr->cookie].rc = *rc;
    n->nrx++;
}

static bool fk_link_tx(IbPort *port, const struct iovec *iov, int iovcnt, bool best_effort)
{
    FNode *n = fnode(port);
    Fab *f = n->fab;
    uint8_t *buf;
    size_t len = 0;

    if (n->mute) {
        return true;
    }
    g_assert_cmpuint(f->count, <, MAX_FRAMES);
    buf = g_malloc(IB_MAX_FRAME + 64);
    for (int i = 0; i < iovcnt; i++) {
        memcpy(buf + len, iov[i].iov_base, iov[i].iov_len);
        len += iov[i].iov_len;
    }
    f->frame[f->count] = buf;
    f->len[f->count] = len;
    f->src[f->count++] = n->idx;
    return true;
}

static IbQp *fk_qp_lookup(IbPort *port, uint32_t qpn)
{
    FNode *n = fnode(port);

    return qpn == 0 ? &n->smi : qpn == 1 ? &n->gsi : qpn == UD_QPN ? &n->ud : NULL;
}

static int64_t fk_now(IbPort *port)
{
    return fnode(port)->fab->now;
}

static void fk_set_deadline(IbPort *port, int64_t when)
{
    fnode(port)->deadline = when;
}

static void fk_kick(IbPort *port)
{
}

static void fk_sm_change(IbPort *port)
{
    fnode(port)->sm_changes++;
}

static const IbDevOps fk_ops = {
    .gather = fk_gather,
    .send_done = fk_send_done,
    .recv_get = fk_recv_get,
    .recv_scatter = fk_recv_scatter,
    .recv_done = fk_recv_done,
    .link_tx = fk_link_tx,
    .qp_lookup = fk_qp_lookup,
    .now_ns = fk_now,
    .set_deadline = fk_set_deadline,
    .kick = fk_kick,
    .sm_change = fk_sm_change,
};

static void qp_up(FNode *n, IbQp *qp, uint32_t qpn, IbQpType type, uint32_t qkey)
{
    ib_qp_init(qp, &n->port, qpn, type, 64);
    qp->qkey = qkey;
    qp->mtu = 4096;
    ib_qp_set_state(qp, IB_QPS_INIT);
    ib_qp_set_state(qp, IB_QPS_RTR);
    ib_qp_set_state(qp, IB_QPS_RTS);
}

static Fab *fab_new(const uint8_t prio[NNODES])
{
    Fab *f = g_new0(Fab, 1);

    for (int i = 0; i < NNODES; i++) {
        FNode *n = g_new0(FNode, 1);
        n->fab = f;
        n->idx = i;
        n->deadline = INT64_MAX;
        f->node[i] = n;
        ib_port_init(&n->port, &fk_ops, n);
        n->port.guid = 0x0002c90300001000ull + i;
        n->port.lid = i + 1;
        n->port.link_up = true;
        n->port.node.node_guid = n->port.guid;
        n->port.node.sys_guid = n->port.guid;
        n->port.node.device_id = 0x1017;
        n->port.node.vendor_id = 0x2c9;
        snprintf(n->port.node.desc, sizeof(n->port.node.desc), "node %d", i);
        n->port.sm_priority = prio ? prio[i] : 0;
        qp_up(n, &n->smi, 0, IB_QPT_SMI, 0);
        qp_up(n, &n->gsi, 1, IB_QPT_GSI, IB_GSI_QKEY);
        qp_up(n, &n->ud, UD_QPN, IB_QPT_UD, UD_QKEY);
        ib_port_announce_soon(&n->port);
    }
    return f;
}

static void fab_free(Fab *f)
{
    for (unsigned i = 0; i < f->count; i++) {
        g_free(f->frame[i]);
    }
    for (int i = 0; i < NNODES; i++) {
        FNode *n = f->node[i];
        ib_qp_cleanup(&n->smi);
        ib_qp_cleanup(&n->gsi);
        ib_qp_cleanup(&n->ud);
        ib_port_cleanup(&n->port);
        g_free(n);
    }
    g_free(f);
}

/* Run everything until the fabric is idle and @ns of virtual time have passed. */
static void fab_run(Fab *f, int64_t ns)
{
    int64_t end = f->now + ns;

    for (unsigned round = 0; round < 100000; round++) {
        bool busy = false;
        for (int i = 0; i < NNODES; i++) {
            busy |= ib_port_run(&f->node[i]->port, 64);
        }
        while (f->count) {
            uint8_t *fr = f->frame[0];
            size_t len = f->len[0];
            int src = f->src[0];
            memmove(f->frame, f->frame + 1, (f->count - 1) * sizeof(f->frame[0]));
            memmove(f->len, f->len + 1, (f->count - 1) * sizeof(f->len[0]));
            memmove(f->src, f->src + 1, (f->count - 1) * sizeof(f->src[0]));
            f->count--;
            for (int i = 0; i < NNODES; i++) {
                if (i != src) {
                    ib_port_rx(&f->node[i]->port, fr, len);
                }
            }
            g_free(fr);
            busy = true;
        }
        if (!busy) {
            int64_t next = INT64_MAX;
            for (int i = 0; i < NNODES; i++) {
                next = MIN(next, f->node[i]->deadline);
            }
            if (next > end) {
                f->now = end;
                return;
            }
            f->now = MAX(f->now, next);
            for (int i = 0; i < NNODES; i++) {
                if (f->node[i]->deadline <= f->now) {
                    ib_port_expire(&f->node[i]->port, f->now);
                }
            }
        }
    }
    g_assert_not_reached();
}

/* ---- MADs ----------------------------------------------------------------------------- */

static uint64_t next_tid = 0x1000;


static uint64_t sa_mad(uint8_t *m, uint8_t method, uint16_t attr, uint64_t comp_mask)
{
    uint64_t tid = next_tid++;

    memset(m, 0, IB_MAD_SIZE);
    m[IB_MAD_BASE_VERSION] = 1;
    m[IB_MAD_MGMT_CLASS] = IB_MGMT_CLASS_SUBN_ADM;
    m[IB_MAD_CLASS_VERSION] = IB_SA_CLASS_VERSION;
    m[IB_MAD_METHOD] = method;
    ib_st64(m + IB_MAD_TID, tid);
    ib_st16(m + IB_MAD_ATTR_ID, attr);
    ib_st64(m + IB_SA_COMP_MASK, comp_mask);
    return tid;
}

/* Send @len bytes of @mad from @n's QP @src_qpn to @dlid's QP @dqpn (qkey: "the QP's own"). */
static void send_mad_len(FNode *n, IbQp *qp, uint16_t dlid, uint32_t dqpn, const uint8_t *mad,
                         uint32_t len)
{
    static uint32_t slot;
    uint64_t off = (slot++ % 64) * 512;
    IbSendWr wr = { 0 };

    memcpy(n->mem + off, mad, len);
    wr.cookie = off;
    wr.opcode = IB_WR_SEND;
    wr.length = len;
    wr.signaled = true;
    wr.av.dlid = dlid;
    wr.dest_qpn = dqpn;
    wr.qkey = 0x80000000u;
    g_assert_true(ib_qp_post_send(qp, &wr));
}

static void send_sa(FNode *n, const uint8_t *mad)
{
    send_mad_len(n, &n->gsi, n->port.sm_lid, 1, mad, IB_MAD_SIZE);
}

/* The newest MAD @n's QP @qpn received with TID @tid, or NULL. */
static const uint8_t *rx_mad(FNode *n, uint32_t qpn, uint64_t tid)
{
    for (int i = n->nrx - 1; i >= 0; i--) {
        const uint8_t *m = n->rx[i].data + IB_GRH_LEN;
        if (n->rx[i].qpn == qpn && n->rx[i].rc.byte_len >= IB_GRH_LEN + IB_MAD_HDR_LEN &&
            ib_ld64(m + IB_MAD_TID) == tid) {
            return m;
        }
    }
    return NULL;
}

static unsigned count_tid(FNode *n, uint64_t tid)
{
    unsigned k = 0;

    for (unsigned i = 0; i < n->nrx; i++) {
        if (n->rx[i].qpn == 1 && ib_ld64(n->rx[i].data + IB_GRH_LEN + IB_MAD_TID) == tid) {
            k++;
        }
    }
    return k;
}

/* Ask the SA and return its (single-MAD) answer */
static const uint8_t *sa_ask(Fab *f, FNode *n, const uint8_t *mad)
{
    if (n->nrx > MAX_RX - 8) {
        n->nrx = 0;             /* room for the answer (earlier ones are not looked at) */
    }
    send_sa(n, mad);
    fab_run(f, 10 * MS);
    return rx_mad(n, 1, ib_ld64(mad + IB_MAD_TID));
}

static Fab *fab_ready(const uint8_t prio[NNODES])
{
    Fab *f = fab_new(prio);

    fab_run(f, 3000 * MS);      /* announcements heard, master elected */
    return f;
}

/* ---- election ------------------------------------------------------------------------- */

static void test_election(void)
{
    Fab *f = fab_ready(NULL);
    FNode *m;

    /* equal priorities: the lowest port GUID (node 0, LID 1) is master everywhere */
    for (int i = 0; i < NNODES; i++) {
        g_assert_cmphex(f->node[i]->port.sm_lid, ==, 1);
        g_assert_true(ib_sm_is_master(&f->node[i]->port) == (i == 0));
    }
    /* the master goes silent: after the directory forgets it, node 1 takes over */
    m = f->node[0];
    m->mute = true;
    fab_run(f, 5000 * MS);
    g_assert_cmphex(f->node[1]->port.sm_lid, ==, 2);
    g_assert_cmphex(f->node[2]->port.sm_lid, ==, 2);
    g_assert_true(ib_sm_is_master(&f->node[1]->port));
    g_assert_cmpuint(f->node[2]->sm_changes, >=, 2);
    /* it comes back: the lowest GUID wins again */
    m->mute = false;
    fab_run(f, 2000 * MS);
    g_assert_cmphex(f->node[2]->port.sm_lid, ==, 1);
    fab_free(f);

    /* priority beats GUID; a port that does not offer to be SM never wins */
    {
        const uint8_t prio[NNODES] = { 0, 3, 9 };
        f = fab_new(prio);
        f->node[2]->port.sm_enabled = false;
        fab_run(f, 3000 * MS);
        for (int i = 0; i < NNODES; i++) {
            g_assert_cmphex(f->node[i]->port.sm_lid, ==, 2);
        }
        fab_free(f);
    }
}

/* ---- SA records ----------------------------------------------------------------------- */

static void test_sa_class_port_info_and_path(void)
{
    Fab *f = fab_ready(NULL);
    FNode *c = f->node[2];
    uint8_t m[IB_MAD_SIZE];
    const uint8_t *r, *pr;

    sa_mad(m, IB_METHOD_GET, IB_SA_ATTR_CLASS_PORT_INFO, 0);
    r = sa_ask(f, c, m);
    g_assert_nonnull(r);
    g_assert_cmphex(r[IB_MAD_METHOD], ==, 0x81);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, 0);
    g_assert_cmpuint(ib_ld32(r + IB_SA_DATA + IB_CPI_RESP_TIME) & 0x1f, ==, 18);

    /* PathRecord by DGID (the kernel's form) from node 2 to node 1 */
    sa_mad(m, IB_METHOD_GET, IB_SA_ATTR_PATH_REC,
           IB_PR_CM_DGID | IB_PR_CM_SGID | IB_PR_CM_NUMB_PATH | IB_PR_CM_REVERSIBLE |
           IB_PR_CM_PKEY);
    ib_st64(m + IB_SA_DATA + IB_PR_DGID, 0xfe80000000000000ull);
    ib_st64(m + IB_SA_DATA + IB_PR_DGID + 8, f->node[1]->port.guid);
    ib_st64(m + IB_SA_DATA + IB_PR_SGID, 0xfe80000000000000ull);
    ib_st64(m + IB_SA_DATA + IB_PR_SGID + 8, c->port.guid);
    m[IB_SA_DATA + IB_PR_REV_NUMB] = 0x80 | 1;
    ib_st16(m + IB_SA_DATA + IB_PR_PKEY, 0xffff);
    r = sa_ask(f, c, m);
    g_assert_nonnull(r);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, 0);
    pr = r + IB_SA_DATA;
    g_assert_cmphex(ib_ld16(pr + IB_PR_DLID), ==, 2);
    g_assert_cmphex(ib_ld16(pr + IB_PR_SLID), ==, 3);
    g_assert_cmphex(ib_ld64(pr + IB_PR_DGID + 8), ==, f->node[1]->port.guid);
    g_assert_cmphex(ib_ld16(pr + IB_PR_PKEY), ==, 0xffff);
    g_assert_cmphex(pr[IB_PR_MTU], ==, 0x80 | IB_MTU_ENUM_4096);
    g_assert_cmphex(pr[IB_PR_RATE], ==, 0x80 | IB_RATE_40_GBPS);
    g_assert_cmphex(pr[IB_PR_REV_NUMB], ==, 0x81);

    /* MTU selector "less than 4096": 2048 */
    ib_st64(m + IB_SA_COMP_MASK, ib_ld64(m + IB_SA_COMP_MASK) | IB_PR_CM_MTU | IB_PR_CM_MTU_SELECTOR);
    m[IB_SA_DATA + IB_PR_MTU] = (1 << 6) | IB_MTU_ENUM_4096;
    ib_st64(m + IB_MAD_TID, next_tid++);
    r = sa_ask(f, c, m);
    g_assert_cmphex(r[IB_SA_DATA + IB_PR_MTU] & 0x3f, ==, IB_MTU_ENUM_2048);
    /* a partition that does not exist, an unknown destination: no records */
    ib_st64(m + IB_SA_COMP_MASK, ib_ld64(m + IB_SA_COMP_MASK) & ~(IB_PR_CM_MTU | IB_PR_CM_MTU_SELECTOR));
    ib_st16(m + IB_SA_DATA + IB_PR_PKEY, 0x8001);
    ib_st64(m + IB_MAD_TID, next_tid++);
    r = sa_ask(f, c, m);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, IB_SA_STATUS_NO_RECORDS);
    ib_st16(m + IB_SA_DATA + IB_PR_PKEY, 0xffff);
    ib_st64(m + IB_SA_DATA + IB_PR_DGID + 8, 0x1234);
    ib_st64(m + IB_MAD_TID, next_tid++);
    r = sa_ask(f, c, m);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, IB_SA_STATUS_NO_RECORDS);
    /* Get without a destination cannot pick one */
    sa_mad(m, IB_METHOD_GET, IB_SA_ATTR_PATH_REC, 0);
    r = sa_ask(f, c, m);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, IB_SA_STATUS_INSUFFICIENT_COMPS);
    fab_free(f);
}

/*
 * Alias GUIDs (a port's vports, docs/sriov-ib-notes.md): announced (version 3), the SA resolves
 * paths to them (the port's LID, HopLimit 1 for a GRH) and lists them in GUIDInfoRecords; gone
 * when the port drops them.
 */
static void test_sa_aliases(void)
{
    Fab *f = fab_ready(NULL);
    FNode *c = f->node[2], *v = f->node[1];
    const uint64_t a[2] = { 0x0011223344556601ull, 0x0011223344556602ull };
    const uint64_t b = 0x0011223344556603ull;
    uint8_t m[IB_MAD_SIZE];
    const uint8_t *r, *pr;

    ib_port_set_aliases(&v->port, a, 2);
    ib_port_set_aliases(&f->node[0]->port, &b, 1);      /* the master's own */
    fab_run(f, 2000 * MS);
    for (int i = 0; i < 3; i++) {
        uint64_t dst = i < 2 ? a[i] : b;

        sa_mad(m, IB_METHOD_GET, IB_SA_ATTR_PATH_REC,
               IB_PR_CM_DGID | IB_PR_CM_SGID | IB_PR_CM_NUMB_PATH | IB_PR_CM_PKEY);
        ib_st64(m + IB_SA_DATA + IB_PR_DGID, 0xfe80000000000000ull);
        ib_st64(m + IB_SA_DATA + IB_PR_DGID + 8, dst);
        ib_st64(m + IB_SA_DATA + IB_PR_SGID, 0xfe80000000000000ull);
        ib_st64(m + IB_SA_DATA + IB_PR_SGID + 8, c->port.guid);
        m[IB_SA_DATA + IB_PR_REV_NUMB] = 1;
        ib_st16(m + IB_SA_DATA + IB_PR_PKEY, 0xffff);
        r = sa_ask(f, c, m);
        g_assert_nonnull(r);
        g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, 0);
        pr = r + IB_SA_DATA;
        g_assert_cmphex(ib_ld16(pr + IB_PR_DLID), ==, i < 2 ? 2 : 1);
        g_assert_cmphex(ib_ld64(pr + IB_PR_DGID + 8), ==, dst);
        g_assert_cmphex(pr[IB_PR_FLOW_HOP + 3], ==, 1);
    }
    /* the port's own GUID: no GRH needed */
    ib_st64(m + IB_SA_DATA + IB_PR_DGID + 8, v->port.guid);
    ib_st64(m + IB_MAD_TID, next_tid++);
    r = sa_ask(f, c, m);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, 0);
    g_assert_cmphex(r[IB_SA_DATA + IB_PR_FLOW_HOP + 3], ==, 0);
    /* GUIDInfoRecord of LID 2, block 0: the port GUID, then its aliases */
    sa_mad(m, IB_METHOD_GET, IB_SA_ATTR_GUID_INFO_REC, 1 | 2);
    ib_st16(m + IB_SA_DATA, 2);
    r = sa_ask(f, c, m);
    g_assert_nonnull(r);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, 0);
    g_assert_cmphex(ib_ld64(r + IB_SA_DATA + 8), ==, v->port.guid);
    g_assert_cmphex(ib_ld64(r + IB_SA_DATA + 16), ==, a[0]);
    g_assert_cmphex(ib_ld64(r + IB_SA_DATA + 24), ==, a[1]);
    g_assert_cmphex(ib_ld64(r + IB_SA_DATA + 32), ==, 0);
    /* dropped: no path any more */
    ib_port_set_aliases(&v->port, a, 1);
    fab_run(f, 2000 * MS);
    sa_mad(m, IB_METHOD_GET, IB_SA_ATTR_PATH_REC,
           IB_PR_CM_DGID | IB_PR_CM_SGID | IB_PR_CM_NUMB_PATH | IB_PR_CM_PKEY);
    ib_st64(m + IB_SA_DATA + IB_PR_DGID, 0xfe80000000000000ull);
    ib_st64(m + IB_SA_DATA + IB_PR_DGID + 8, a[1]);
    ib_st64(m + IB_SA_DATA + IB_PR_SGID, 0xfe80000000000000ull);
    ib_st64(m + IB_SA_DATA + IB_PR_SGID + 8, c->port.guid);
    m[IB_SA_DATA + IB_PR_REV_NUMB] = 1;
    ib_st16(m + IB_SA_DATA + IB_PR_PKEY, 0xffff);
    r = sa_ask(f, c, m);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, IB_SA_STATUS_NO_RECORDS);
    ib_st64(m + IB_SA_DATA + IB_PR_DGID + 8, a[0]);
    ib_st64(m + IB_MAD_TID, next_tid++);
    r = sa_ask(f, c, m);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, 0);
    fab_free(f);
}

/* GetTable of NodeRecords: 3 x 112 bytes = 2 RMPP segments; the test is the RMPP receiver */
static void test_sa_get_table_rmpp(void)
{
    Fab *f = fab_ready(NULL);
    FNode *c = f->node[1];
    uint8_t m[IB_MAD_SIZE], ack[IB_MAD_SIZE], table[2 * IB_SA_DATA_LEN];
    const uint8_t *seg;
    uint64_t tid;
    bool seen[NNODES] = { false };

    tid = sa_mad(m, IB_METHOD_GET_TABLE, IB_SA_ATTR_NODE_REC, 0);
    seg = sa_ask(f, c, m);
    g_assert_nonnull(seg);
    g_assert_cmphex(seg[IB_MAD_METHOD], ==, 0x92);
    g_assert_cmpuint(seg[IB_RMPP_TYPE], ==, IB_RMPP_TYPE_DATA);
    g_assert_cmphex(seg[IB_RMPP_FLAGS] & 7, ==, IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST);
    g_assert_cmpuint(ib_ld32(seg + IB_RMPP_SEG_NUM), ==, 1);
    /* first segment: the whole payload (2 x 20 bytes of SA header + 3 x 112 of records) */
    g_assert_cmpuint(ib_ld32(seg + IB_RMPP_PAYLEN), ==, 2 * 20 + 3 * 112);
    g_assert_cmpuint(ib_ld16(seg + IB_SA_ATTR_OFFSET), ==, 112 / 8);
    memcpy(table, seg + IB_SA_DATA, IB_SA_DATA_LEN);
    /* only one segment until the receiver opens its window */
    g_assert_cmpuint(count_tid(c, tid), ==, 1);
    memcpy(ack, seg, IB_MAD_SIZE);
    ack[IB_MAD_METHOD] ^= IB_METHOD_RESP;           /* as the kernel's ACK */
    ack[IB_RMPP_TYPE] = IB_RMPP_TYPE_ACK;
    ack[IB_RMPP_FLAGS] = IB_RMPP_FLAG_ACTIVE;
    ib_st32(ack + IB_RMPP_SEG_NUM, 1);
    ib_st32(ack + IB_RMPP_PAYLEN, 65);                 /* NewWindowLast */
    send_sa(c, ack);
    fab_run(f, 10 * MS);
    seg = rx_mad(c, 1, tid);
    g_assert_cmpuint(ib_ld32(seg + IB_RMPP_SEG_NUM), ==, 2);
    g_assert_cmphex(seg[IB_RMPP_FLAGS] & 7, ==, IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_LAST);
    g_assert_cmpuint(ib_ld32(seg + IB_RMPP_PAYLEN), ==, 20 + 3 * 112 - IB_SA_DATA_LEN);
    memcpy(table + IB_SA_DATA_LEN, seg + IB_SA_DATA, IB_SA_DATA_LEN);
    for (int i = 0; i < NNODES; i++) {
        const uint8_t *rec = table + i * 112;
        uint16_t lid = ib_ld16(rec + IB_NR_LID);
        g_assert_cmpuint(lid, >=, 1);
        g_assert_cmpuint(lid, <=, NNODES);
        g_assert_false(seen[lid - 1]);
        seen[lid - 1] = true;
        g_assert_cmphex(ib_ld64(rec + IB_NR_NODE_INFO + IB_NI_PORT_GUID), ==,
                        f->node[lid - 1]->port.guid);
        g_assert_cmphex(ib_ld16(rec + IB_NR_NODE_INFO + IB_NI_DEVICE_ID), ==, 0x1017);
    }
    /* the last ACK ends the transfer; a stray ACK for it afterwards is ignored */
    ib_st32(ack + IB_RMPP_SEG_NUM, 2);
    send_sa(c, ack);
    send_sa(c, ack);
    fab_run(f, 10 * MS);

    /* a single-MAD table (PortInfoRecord of LID 3) is one segment, FIRST | LAST */
    tid = sa_mad(m, IB_METHOD_GET_TABLE, IB_SA_ATTR_PORT_INFO_REC, IB_PIR_CM_LID);
    ib_st16(m + IB_SA_DATA + IB_PIR_LID, 3);
    seg = sa_ask(f, c, m);
    g_assert_cmphex(seg[IB_RMPP_FLAGS] & 7, ==, 7);
    g_assert_cmphex(ib_ld16(seg + IB_SA_DATA + IB_PIR_PORT_INFO + 16), ==, 3);    /* LID */
    g_assert_cmphex(ib_ld16(seg + IB_SA_DATA + IB_PIR_PORT_INFO + 18), ==, 1);    /* SM LID */
    fab_free(f);
}

static const uint8_t bcast_mgid[16] = {
    0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
};

static void mcr(uint8_t *m, uint8_t method, uint64_t cm, const uint8_t *mgid, FNode *n,
                uint8_t join)
{
    uint8_t *r = m + IB_SA_DATA;

    sa_mad(m, method, IB_SA_ATTR_MC_MEMBER_REC, cm);
    if (mgid) {
        memcpy(r + IB_MCR_MGID, mgid, 16);
    }
    ib_st64(r + IB_MCR_PORT_GID, 0xfe80000000000000ull);
    ib_st64(r + IB_MCR_PORT_GID + 8, n->port.guid);
    ib_st16(r + IB_MCR_PKEY, 0xffff);
    r[IB_MCR_SCOPE_JOIN] = (2 << 4) | join;
}

#define JOIN_CM (IB_MCR_CM_MGID | IB_MCR_CM_PORT_GID | IB_MCR_CM_PKEY | IB_MCR_CM_JOIN_STATE)
#define CREATE_CM (JOIN_CM | IB_MCR_CM_QKEY | IB_MCR_CM_SL | IB_MCR_CM_FLOW_LABEL | \
                   IB_MCR_CM_TCLASS)

static void test_sa_mcmember(void)
{
    Fab *f = fab_ready(NULL);
    FNode *a = f->node[1], *b = f->node[2];
    uint8_t m[IB_MAD_SIZE], mgid[16] = { 0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0,
                                          0, 0, 0, 0, 0, 0, 0, 0x42 };
    const uint8_t *r;
    uint16_t mlid;
    int i;

    /* IPoIB's broadcast join: no create parameters, the SA has the group */
    mcr(m, IB_METHOD_SET, JOIN_CM, bcast_mgid, a, IB_MC_JOIN_FULL);
    r = sa_ask(f, a, m);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, 0);
    g_assert_cmphex(ib_ld16(r + IB_SA_DATA + IB_MCR_MLID), ==, 0xc000);
    g_assert_cmphex(ib_ld32(r + IB_SA_DATA + IB_MCR_QKEY), ==, IB_IPOIB_QKEY);
    g_assert_cmphex(r[IB_SA_DATA + IB_MCR_MTU] & 0x3f, ==, IB_MTU_ENUM_2048);
    g_assert_cmphex(r[IB_SA_DATA + IB_MCR_SCOPE_JOIN] & 0xf, ==, IB_MC_JOIN_FULL);
    g_assert_cmphex(ib_ld64(r + IB_SA_DATA + IB_MCR_PORT_GID + 8), ==, a->port.guid);

    /* a new group needs its parameters */
    mcr(m, IB_METHOD_SET, JOIN_CM, mgid, a, IB_MC_JOIN_FULL);
    r = sa_ask(f, a, m);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, IB_SA_STATUS_INSUFFICIENT_COMPS);
    mcr(m, IB_METHOD_SET, CREATE_CM, mgid, a, IB_MC_JOIN_FULL);
    ib_st32(m + IB_SA_DATA + IB_MCR_QKEY, 0x1234);
    r = sa_ask(f, a, m);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, 0);
    mlid = ib_ld16(r + IB_SA_DATA + IB_MCR_MLID);
    g_assert_cmphex(mlid, >, 0xc000);
    /* the second member gets the same group; a mismatching Q_Key is refused */
    mcr(m, IB_METHOD_SET, JOIN_CM, mgid, b, IB_MC_JOIN_FULL);
    r = sa_ask(f, b, m);
    g_assert_cmphex(ib_ld16(r + IB_SA_DATA + IB_MCR_MLID), ==, mlid);
    g_assert_cmphex(ib_ld32(r + IB_SA_DATA + IB_MCR_QKEY), ==, 0x1234);
    mcr(m, IB_METHOD_SET, JOIN_CM | IB_MCR_CM_QKEY, mgid, b, IB_MC_JOIN_FULL);
    ib_st32(m + IB_SA_DATA + IB_MCR_QKEY, 0x9999);
    r = sa_ask(f, b, m);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, IB_SA_STATUS_REQ_INVALID);
    /* a non-multicast MGID */
    mgid[0] = 0xfe;
    mcr(m, IB_METHOD_SET, CREATE_CM, mgid, b, IB_MC_JOIN_FULL);
    r = sa_ask(f, b, m);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, IB_SA_STATUS_INVALID_GID);
    mgid[0] = 0xff;

    /* Get by MGID finds it; both leave, the group is gone; leaving twice is invalid */
    mcr(m, IB_METHOD_GET, IB_MCR_CM_MGID, mgid, a, 0);
    r = sa_ask(f, a, m);
    g_assert_cmphex(ib_ld16(r + IB_SA_DATA + IB_MCR_MLID), ==, mlid);
    mcr(m, IB_METHOD_DELETE, JOIN_CM, mgid, a, IB_MC_JOIN_FULL);
    g_assert_cmphex(ib_ld16(sa_ask(f, a, m) + IB_MAD_STATUS), ==, 0);
    mcr(m, IB_METHOD_DELETE, JOIN_CM, mgid, a, IB_MC_JOIN_FULL);
    g_assert_cmphex(ib_ld16(sa_ask(f, a, m) + IB_MAD_STATUS), ==, IB_SA_STATUS_REQ_INVALID);
    mcr(m, IB_METHOD_DELETE, JOIN_CM, mgid, b, IB_MC_JOIN_FULL);
    g_assert_cmphex(ib_ld16(sa_ask(f, b, m) + IB_MAD_STATUS), ==, 0);
    mcr(m, IB_METHOD_GET, IB_MCR_CM_MGID, mgid, a, 0);
    g_assert_cmphex(ib_ld16(sa_ask(f, a, m) + IB_MAD_STATUS), ==, IB_SA_STATUS_NO_RECORDS);

    /* a flood of creates: the group table is capped, the SA says so and keeps working */
    for (i = 0; i < 80; i++) {
        mgid[15] = i;
        mcr(m, IB_METHOD_SET, CREATE_CM, mgid, a, IB_MC_JOIN_FULL);
        r = sa_ask(f, a, m);
        g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, i < 63 ? 0 : IB_SA_STATUS_NO_RESOURCES);
    }
    mcr(m, IB_METHOD_SET, JOIN_CM, bcast_mgid, b, IB_MC_JOIN_FULL);
    g_assert_cmphex(ib_ld16(sa_ask(f, b, m) + IB_MAD_STATUS), ==, 0);

    /* a new master starts over: groups gone, the broadcast group there again */
    f->node[0]->mute = true;
    fab_run(f, 5000 * MS);
    g_assert_true(ib_sm_is_master(&a->port));
    mgid[15] = 1;
    mcr(m, IB_METHOD_GET, IB_MCR_CM_MGID, mgid, b, 0);
    g_assert_cmphex(ib_ld16(sa_ask(f, b, m) + IB_MAD_STATUS), ==, IB_SA_STATUS_NO_RECORDS);
    mcr(m, IB_METHOD_SET, JOIN_CM, bcast_mgid, b, IB_MC_JOIN_FULL);
    g_assert_cmphex(ib_ld16(sa_ask(f, b, m) + IB_MAD_STATUS), ==, 0);
    fab_free(f);
}

/* GUIDInfoRecord, ServiceRecord (register, lease, find, delete, caps), InformInfo + Report */
static void sr_rec(uint8_t *m, uint8_t method, uint64_t cm, uint64_t id, uint64_t guid,
                   const char *name, uint32_t lease)
{
    uint8_t *r = m + IB_SA_DATA;

    sa_mad(m, method, IB_SA_ATTR_SERVICE_REC, cm);
    ib_st64(r, id);
    ib_st64(r + 8, 0xfe80000000000000ull);
    ib_st64(r + 16, guid);
    ib_st16(r + 24, 0xffff);
    ib_st32(r + 28, lease);
    strncpy((char *)r + 48, name, 64);
}

static void test_sa_services_and_informs(void)
{
    Fab *f = fab_ready(NULL);
    FNode *a = f->node[1], *b = f->node[2];
    uint8_t m[IB_MAD_SIZE];
    const uint8_t *r;
    const uint64_t ID_GID = 3, ID_GID_LEASE = 3 | (1 << 4), NAME = 1 << 6;
    int i;

    /* GUIDInfoRecord of LID 2: its port GUID in block 0 */
    sa_mad(m, IB_METHOD_GET, IB_SA_ATTR_GUID_INFO_REC, 1);
    ib_st16(m + IB_SA_DATA, 2);
    r = sa_ask(f, a, m);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, 0);
    g_assert_cmphex(ib_ld64(r + IB_SA_DATA + 8), ==, a->port.guid);

    /* register, find by ID and by name, refuse an unknown GID or a missing GID */
    sr_rec(m, IB_METHOD_SET, ID_GID | NAME, 0x1000, a->port.guid, "svc-a", 0);
    g_assert_cmphex(ib_ld16(sa_ask(f, a, m) + IB_MAD_STATUS), ==, 0);
    sr_rec(m, IB_METHOD_SET, ID_GID, 0x1001, 0x4242, "x", 0);
    g_assert_cmphex(ib_ld16(sa_ask(f, a, m) + IB_MAD_STATUS), ==, IB_SA_STATUS_INVALID_GID);
    sr_rec(m, IB_METHOD_SET, 1, 0x1001, a->port.guid, "x", 0);
    g_assert_cmphex(ib_ld16(sa_ask(f, a, m) + IB_MAD_STATUS), ==, IB_SA_STATUS_INSUFFICIENT_COMPS);
    sr_rec(m, IB_METHOD_GET, 1, 0x1000, 0, "", 0);
    r = sa_ask(f, b, m);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, 0);
    g_assert_cmpstr((const char *)r + IB_SA_DATA + 48, ==, "svc-a");
    g_assert_cmphex(ib_ld32(r + IB_SA_DATA + 28), ==, 0xffffffff);   /* no lease: forever */
    sr_rec(m, IB_METHOD_GET, NAME, 0, 0, "svc-a", 0);
    g_assert_cmphex(ib_ld64(sa_ask(f, b, m) + IB_SA_DATA), ==, 0x1000);
    /* a one-second lease runs out */
    sr_rec(m, IB_METHOD_SET, ID_GID_LEASE, 0x2000, b->port.guid, "short", 1);
    g_assert_cmphex(ib_ld16(sa_ask(f, b, m) + IB_MAD_STATUS), ==, 0);
    fab_run(f, 1500 * MS);
    sr_rec(m, IB_METHOD_GET, 1, 0x2000, 0, "", 0);
    g_assert_cmphex(ib_ld16(sa_ask(f, b, m) + IB_MAD_STATUS), ==, IB_SA_STATUS_NO_RECORDS);
    /* delete; deleting again finds nothing */
    sr_rec(m, IB_METHOD_DELETE, ID_GID, 0x1000, a->port.guid, "", 0);
    g_assert_cmphex(ib_ld16(sa_ask(f, a, m) + IB_MAD_STATUS), ==, 0);
    g_assert_cmphex(ib_ld16(sa_ask(f, a, m) + IB_MAD_STATUS), ==, IB_SA_STATUS_NO_RECORDS);
    /* the table is capped */
    for (i = 0; i < 70; i++) {
        sr_rec(m, IB_METHOD_SET, ID_GID, 0x3000 + i, a->port.guid, "many", 0);
        g_assert_cmphex(ib_ld16(sa_ask(f, a, m) + IB_MAD_STATUS), ==,
                        i < 64 ? 0 : IB_SA_STATUS_NO_RESOURCES);
    }

    /* InformInfo: B subscribes to trap 65; A goes silent; B gets Report(Notice) 65 for A */
    sa_mad(m, IB_METHOD_SET, IB_SA_ATTR_INFORM_INFO, 0);
    m[IB_SA_DATA + 22] = 1;                         /* IsGeneric */
    m[IB_SA_DATA + 23] = 1;                         /* Subscribe */
    ib_st16(m + IB_SA_DATA + 26, 65);
    ib_st32(m + IB_SA_DATA + 28, 1 << 8);           /* QPN 1 */
    g_assert_cmphex(ib_ld16(sa_ask(f, b, m) + IB_MAD_STATUS), ==, 0);
    ib_st16(m + IB_SA_DATA + 26, 123);              /* a trap this SA never produces */
    ib_st64(m + IB_MAD_TID, next_tid++);
    g_assert_cmphex(ib_ld16(sa_ask(f, b, m) + IB_MAD_STATUS), ==, IB_SA_STATUS_REQ_INVALID);
    b->nrx = 0;
    a->mute = true;
    fab_run(f, 5000 * MS);
    {
        bool seen = false;
        for (unsigned k = 0; k < b->nrx; k++) {
            const uint8_t *n = b->rx[k].data + IB_GRH_LEN;
            if (b->rx[k].qpn == 1 && n[IB_MAD_METHOD] == IB_METHOD_REPORT &&
                ib_ld16(n + IB_MAD_ATTR_ID) == IB_SA_ATTR_NOTICE) {
                g_assert_cmpuint(ib_ld16(n + IB_SA_DATA + 4), ==, 65);
                g_assert_cmphex(ib_ld64(n + IB_SA_DATA + 24), ==, a->port.guid);
                seen = true;
            }
        }
        g_assert_true(seen);
    }
    fab_free(f);
}

/* ---- hostile input -------------------------------------------------------------------- */

static void test_sa_bad_input(void)
{
    Fab *f = fab_ready(NULL);
    FNode *c = f->node[2], *sm = f->node[0];
    uint8_t m[IB_MAD_SIZE];
    const uint8_t *r;
    unsigned before;
    uint32_t rng = 12345;

    /* wrong class version, unknown method, unknown attribute */
    sa_mad(m, IB_METHOD_GET, IB_SA_ATTR_NODE_REC, 0);
    m[IB_MAD_CLASS_VERSION] = 1;
    g_assert_cmphex(ib_ld16(sa_ask(f, c, m) + IB_MAD_STATUS), ==, IB_MAD_STATUS_BAD_VERSION);
    sa_mad(m, IB_METHOD_TRAP, IB_SA_ATTR_NODE_REC, 0);
    g_assert_cmphex(ib_ld16(sa_ask(f, c, m) + IB_MAD_STATUS), ==, IB_MAD_STATUS_METHOD_UNSUPP);
    sa_mad(m, IB_METHOD_GET, 0x7777, 0);
    g_assert_cmphex(ib_ld16(sa_ask(f, c, m) + IB_MAD_STATUS), ==, IB_MAD_STATUS_METHOD_ATTR_UNSUPP);
    sa_mad(m, IB_METHOD_SET, IB_SA_ATTR_PATH_REC, 0);
    g_assert_cmphex(ib_ld16(sa_ask(f, c, m) + IB_MAD_STATUS), ==, IB_MAD_STATUS_METHOD_ATTR_UNSUPP);
    /* a multi-segment RMPP request (GetMulti-style) is refused */
    sa_mad(m, IB_METHOD_GET_TABLE, IB_SA_ATTR_NODE_REC, 0);
    m[IB_RMPP_VERSION] = 1;
    m[IB_RMPP_TYPE] = IB_RMPP_TYPE_DATA;
    m[IB_RMPP_FLAGS] = IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST;
    g_assert_cmphex(ib_ld16(sa_ask(f, c, m) + IB_MAD_STATUS), ==, IB_MAD_STATUS_METHOD_ATTR_UNSUPP);
    /* truncated MADs are dropped without an answer */
    sa_mad(m, IB_METHOD_GET, IB_SA_ATTR_CLASS_PORT_INFO, 0);
    send_mad_len(c, &c->gsi, 1, 1, m, 100);
    fab_run(f, 10 * MS);
    g_assert_null(rx_mad(c, 1, ib_ld64(m + IB_MAD_TID)));
    /* RMPP ACKs for transfers that do not exist, with absurd windows: nothing happens */
    sa_mad(m, IB_METHOD_GET_TABLE, IB_SA_ATTR_NODE_REC, 0);
    m[IB_RMPP_VERSION] = 1;
    m[IB_RMPP_TYPE] = IB_RMPP_TYPE_ACK;
    m[IB_RMPP_FLAGS] = IB_RMPP_FLAG_ACTIVE;
    ib_st32(m + IB_RMPP_SEG_NUM, 0xffffffff);
    ib_st32(m + IB_RMPP_PAYLEN, 0xffffffff);
    before = c->nrx;
    send_sa(c, m);
    fab_run(f, 10 * MS);
    g_assert_cmpuint(c->nrx, ==, before);
    /* responses are no requests: they go on to the guest's QP1 (the master's own port here) */
    before = sm->nrx;
    sa_mad(m, IB_METHOD_GET | IB_METHOD_RESP, IB_SA_ATTR_NODE_REC, 0);
    send_sa(c, m);
    fab_run(f, 10 * MS);
    g_assert_cmpuint(sm->nrx, ==, before + 1);

    /* random SA MADs: every request gets a 256-byte response or nothing; the SA survives */
    for (int i = 0; i < 3000; i++) {
        for (int j = 0; j < IB_MAD_SIZE; j++) {
            rng = rng * 1103515245 + 12345;
            m[j] = rng >> 16;
        }
        m[IB_MAD_MGMT_CLASS] = IB_MGMT_CLASS_SUBN_ADM;
        if (i & 1) {
            m[IB_MAD_BASE_VERSION] = 1;
            m[IB_MAD_CLASS_VERSION] = 2;
            m[IB_MAD_METHOD] &= 0x17;
            ib_st16(m + IB_MAD_ATTR_ID, (const uint16_t[]){ 0x01, 0x11, 0x12, 0x35, 0x38 }[(rng >> 8) % 5]);
        }
        c->nrx = 0;
        send_sa(c, m);
        fab_run(f, 2 * MS);
        for (unsigned k = 0; k < c->nrx; k++) {
            g_assert_cmpuint(c->rx[k].rc.byte_len, ==, IB_GRH_LEN + IB_MAD_SIZE);
        }
    }
    sa_mad(m, IB_METHOD_GET, IB_SA_ATTR_CLASS_PORT_INFO, 0);
    c->nrx = 0;
    r = sa_ask(f, c, m);
    g_assert_nonnull(r);
    g_assert_cmphex(ib_ld16(r + IB_MAD_STATUS), ==, 0);
    fab_free(f);
}

/* ---- SMInfo and multicast ------------------------------------------------------------- */

static void test_sm_info(void)
{
    Fab *f = fab_ready(NULL);
    FNode *c = f->node[2];
    uint8_t m[IB_MAD_SIZE] = { 0 };
    const uint8_t *r;
    unsigned before = f->node[1]->nrx;

    m[IB_MAD_BASE_VERSION] = 1;
    m[IB_MAD_MGMT_CLASS] = IB_MGMT_CLASS_SUBN_LID;
    m[IB_MAD_CLASS_VERSION] = 1;
    m[IB_MAD_METHOD] = IB_METHOD_GET;
    ib_st64(m + IB_MAD_TID, 0x5151);
    ib_st16(m + IB_MAD_ATTR_ID, 0x0020);
    send_mad_len(c, &c->smi, 1, 0, m, IB_MAD_SIZE);
    fab_run(f, 10 * MS);
    r = rx_mad(c, 0, 0x5151);
    g_assert_nonnull(r);
    g_assert_cmphex(r[IB_MAD_METHOD], ==, 0x81);
    g_assert_cmphex(ib_ld64(r + 64), ==, f->node[0]->port.guid);
    g_assert_cmphex(r[64 + 20] & 0xf, ==, 3);                   /* MASTER */
    /* to a port that is no SM: its own QP0 (the guest's SMA) gets the SMP */
    send_mad_len(c, &c->smi, 2, 0, m, IB_MAD_SIZE);
    fab_run(f, 10 * MS);
    g_assert_cmpuint(f->node[1]->nrx, ==, before + 1);
    g_assert_cmpuint(f->node[1]->rx[before].qpn, ==, 0);
    fab_free(f);
}

static void send_mcast(FNode *n, const uint8_t *mgid, uint16_t mlid, uint32_t qkey,
                       const char *text)
{
    IbSendWr wr = { 0 };

    memcpy(n->mem, text, strlen(text) + 1);
    wr.opcode = IB_WR_SEND;
    wr.length = strlen(text) + 1;
    wr.signaled = true;
    wr.av.dlid = mlid;
    wr.av.grh = true;
    wr.av.hop_limit = 1;
    memcpy(wr.av.dgid, mgid, 16);
    wr.dest_qpn = 0xffffff;
    wr.qkey = qkey;
    g_assert_true(ib_qp_post_send(&n->ud, &wr));
}

static unsigned ud_rx_count(FNode *n, const char *text)
{
    unsigned k = 0;

    for (unsigned i = 0; i < n->nrx; i++) {
        if (n->rx[i].qpn == UD_QPN && !strcmp((char *)n->rx[i].data + IB_GRH_LEN, text)) {
            g_assert_true(n->rx[i].rc.grh);
            k++;
        }
    }
    return k;
}

static void test_mcast_delivery(void)
{
    Fab *f = fab_ready(NULL);
    FNode *a = f->node[0], *b = f->node[1], *c = f->node[2];
    const uint8_t *g = bcast_mgid;
    uint8_t bad[16] = { 0xfe, 0x80 };

    g_assert_cmpint(ib_mcast_attach(&a->port, g, UD_QPN, 64), ==, IB_MCAST_OK);
    g_assert_cmpint(ib_mcast_attach(&a->port, g, UD_QPN, 64), ==, IB_MCAST_EXISTS);
    g_assert_cmpint(ib_mcast_attach(&b->port, g, UD_QPN, 64), ==, IB_MCAST_OK);
    g_assert_cmpint(ib_mcast_attach(&b->port, bad, UD_QPN, 64), ==, IB_MCAST_BAD_GID);
    g_assert_cmpint(ib_mcast_attach(&b->port, g, UD_QPN + 1, 1), ==, IB_MCAST_FULL);
    /* from C (not attached): A and B get it once each */
    send_mcast(c, g, 0xc000, UD_QKEY, "hello");
    fab_run(f, 10 * MS);
    g_assert_cmpuint(ud_rx_count(a, "hello"), ==, 1);
    g_assert_cmpuint(ud_rx_count(b, "hello"), ==, 1);
    g_assert_cmpuint(ud_rx_count(c, "hello"), ==, 0);
    /* from A (attached): B, and A's own QP through its port (IBA 10.5.2.3) */
    send_mcast(a, g, 0xc000, UD_QKEY, "from-a");
    fab_run(f, 10 * MS);
    g_assert_cmpuint(ud_rx_count(a, "from-a"), ==, 1);
    g_assert_cmpuint(ud_rx_count(b, "from-a"), ==, 1);
    /* a QP that blocks self multicast loopback does not get its own, the others still do */
    a->ud.block_self_mcast = true;
    send_mcast(a, g, 0xc000, UD_QKEY, "blocked");
    fab_run(f, 10 * MS);
    g_assert_cmpuint(ud_rx_count(a, "blocked"), ==, 0);
    g_assert_cmpuint(ud_rx_count(b, "blocked"), ==, 1);
    send_mcast(c, g, 0xc000, UD_QKEY, "to-blocker");      /* others' sends still arrive */
    fab_run(f, 10 * MS);
    g_assert_cmpuint(ud_rx_count(a, "to-blocker"), ==, 1);
    a->ud.block_self_mcast = false;
    /* a wrong Q_Key is dropped at each receiver */
    send_mcast(c, g, 0xc000, 0x4444, "badkey");
    fab_run(f, 10 * MS);
    g_assert_cmpuint(ud_rx_count(a, "badkey") + ud_rx_count(b, "badkey"), ==, 0);
    /* a packet of another partition is dropped and counted; a limited member of ours is not */
    g_assert_true(ib_pkey_match(0xffff, 0x7fff));
    g_assert_false(ib_pkey_match(0x7fff, 0x7fff));
    g_assert_false(ib_pkey_match(0x8001, 0xffff));
    g_assert_false(ib_pkey_match(0x8000, 0x8000));
    c->ud.pkey = 0x8001;
    send_mcast(c, g, 0xc000, UD_QKEY, "other-partition");
    fab_run(f, 10 * MS);
    g_assert_cmpuint(ud_rx_count(a, "other-partition") + ud_rx_count(b, "other-partition"), ==, 0);
    g_assert_cmpuint(a->port.stat_pkey_violations, ==, 1);
    g_assert_cmpuint(b->port.stat_pkey_violations, ==, 1);
    c->ud.pkey = 0x7fff;
    send_mcast(c, g, 0xc000, UD_QKEY, "limited");
    fab_run(f, 10 * MS);
    g_assert_cmpuint(ud_rx_count(a, "limited") + ud_rx_count(b, "limited"), ==, 2);
    g_assert_cmpuint(a->port.stat_qkey_violations, ==, 1);     /* "badkey" above */
    c->ud.pkey = 0xffff;
    /* detached: no more */
    g_assert_cmpint(ib_mcast_detach(&b->port, g, UD_QPN), ==, IB_MCAST_OK);
    g_assert_cmpint(ib_mcast_detach(&b->port, g, UD_QPN), ==, IB_MCAST_NOENT);
    ib_mcast_detach_qp(&a->port, UD_QPN);
    send_mcast(c, g, 0xc000, UD_QKEY, "gone");
    fab_run(f, 10 * MS);
    g_assert_cmpuint(ud_rx_count(a, "gone") + ud_rx_count(b, "gone"), ==, 0);
    fab_free(f);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/ib/fabric/election", test_election);
    g_test_add_func("/ib/sa/class-port-info-and-path", test_sa_class_port_info_and_path);
    g_test_add_func("/ib/sa/get-table-rmpp", test_sa_get_table_rmpp);
    g_test_add_func("/ib/sa/aliases", test_sa_aliases);
    g_test_add_func("/ib/sa/mcmember", test_sa_mcmember);
    g_test_add_func("/ib/sa/services-and-informs", test_sa_services_and_informs);
    g_test_add_func("/ib/sa/bad-input", test_sa_bad_input);
    g_test_add_func("/ib/sm/sminfo", test_sm_info);
    g_test_add_func("/ib/mcast/delivery", test_mcast_delivery);
    return g_test_run();
}
