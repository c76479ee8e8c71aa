/*
 * The fake wire of the IB transport's unit tests (ib-fakewire.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "ib-fakewire.h"

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

static bool fk_recv_get(IbQp *qp, IbRecvWr *rwr, const void *msg,
                        uint32_t msg_len)
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
Wire *wire_new(IbQpType type, unsigned mtu_enum)
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

void wire_free(Wire *w)
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
void wire_run(Wire *w, unsigned max_rounds)
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
            ib_port_link_rx(&w->node[dst]->port, f, len, NULL);
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

void post_recv(FakeNode *n, uint64_t va, uint32_t len)
{
    n->rq[n->rq_tail % MAX_RECV].va = va;
    n->rq[n->rq_tail % MAX_RECV].len = len;
    n->rq_tail++;
}

void post_send(FakeNode *n, IbWrOpcode op, uint64_t local_va, uint32_t len,
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

void fill(uint8_t *p, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++) {
        p[i] = (uint8_t)(i * 7 + seed * 13 + (i >> 8));
    }
}

void roce_gid(uint8_t gid[16], unsigned node, bool ipv4)
{
    memset(gid, 0, 16);
    if (ipv4) {
        gid[10] = gid[11] = 0xff;
        gid[12] = 192; gid[13] = 168; gid[14] = 77; gid[15] = node + 1;
    } else {
        gid[0] = 0xfe; gid[1] = 0x80;
        gid[15] = node + 1;
    }
}

void wire_roce(Wire *w, unsigned sgid_index, bool vlan, uint16_t vlan_id)
{
    for (int i = 0; i < 2; i++) {
        FakeNode *n = w->node[i];
        uint8_t mac[6] = { 0x02, 0, 0, 0, 0, i + 1 };
        IbRoceGid g = { .mac = { 0x02, 0, 0, 0, 0, i + 1 }, .vlan = vlan, .vlan_id = vlan_id };

        ib_roce_enable(&n->port, mac);
        roce_gid(g.gid, i, false);
        g_assert_true(ib_roce_set_gid(&n->port, 0, &g));
        roce_gid(g.gid, i, true);
        g.ipv4 = true;
        g_assert_true(ib_roce_set_gid(&n->port, 1, &g));
        memset(&n->qp.av, 0, sizeof(n->qp.av));
        n->qp.av.sgid_index = sgid_index;
        n->qp.av.hop_limit = 64;
        roce_gid(n->qp.av.dgid, 1 - i, sgid_index == 1);
        memcpy(n->qp.av.dmac, mac, 6);
        n->qp.av.dmac[5] = 2 - i;
    }
}
