/*
 * Vendor-neutral IB transport: the dynamically connected (DC) service of mlx5
 * HCAs.
 *
 * A DC initiator (DCI) is an RC requester whose work requests each name their
 * target (address vector, DCT number, DC access key). It is connected to one
 * target at a time: it moves to another target only when every earlier WR has
 * completed, and each move starts a new connection (a new connection id, the
 * current PSN as its first PSN).
 *
 * A DC target (DCT) answers any number of initiators through a fixed pool of
 * responder contexts. Each context is an ordinary RC responder (ib_rc.c) bound
 * to one initiator's connection (its LID, DCI number and connection id); the
 * device sees the DCT behind it (dc_parent). A context is rebound when its
 * initiator starts a new connection, and reused for another initiator when it
 * is idle (no message half received, no READ response left to send), least
 * recently used first. Requests that find no context are dropped: the initiator
 * retries, as it would after a lost packet.
 *
 * Wire: RC's operations under transport bits 0xC0 (manufacturer specific);
 * requests carry a DCETH (docs/fabric.md).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "ib_internal.h"
#include "trace.h"

bool ib_dc_same_target(const IbQp *dci, const IbSendWr *wr)
{
    const IbAv *a = &dci->av, *b = &wr->av;
    /* RoCE: always a global route, and a next hop MAC */
    bool roce = dci->port->roce;

    return dci->dest_qpn == wr->dest_qpn && dci->dc_key == wr->dc_key &&
           a->dlid == b->dlid && a->sl == b->sl &&
           a->src_path_bits == b->src_path_bits && a->grh == b->grh &&
           (!roce || !memcmp(a->dmac, b->dmac, 6)) &&
           ((!a->grh && !roce) ||
            (!memcmp(a->dgid, b->dgid, 16) && a->sgid_index == b->sgid_index &&
             a->hop_limit == b->hop_limit && a->tclass == b->tclass &&
             a->flow_label == b->flow_label));
}

/*
 * The DCI's next WR goes to another target (all earlier ones have completed).
 */
void ib_dc_connect(IbQp *dci, const IbSendWr *wr)
{
    dci->av = wr->av;
    dci->dest_qpn = wr->dest_qpn & IB_QPN_MASK;
    dci->dc_key = wr->dc_key;
    dci->dc_conn_id++;
    dci->dc_conn_psn = dci->next_psn;
    dci->dc_connected = true;
    trace_ib_dc_connect(dci->qpn, dci->dest_qpn, dci->av.dlid, dci->dc_conn_id,
                        dci->dc_conn_psn);
}

void ib_dct_init(IbQp *dct, unsigned nctx)
{
    unsigned i;

    nctx = MAX(1u, MIN(nctx, IB_DCT_MAX_CTX));
    dct->dc_ctx = g_new0(IbQp, nctx);
    dct->dc_nctx = nctx;
    for (i = 0; i < nctx; i++) {
        IbQp *ctx = &dct->dc_ctx[i];
        ib_qp_init(ctx, dct->port, dct->qpn, IB_QPT_RC, 1);
        ctx->dc_parent = dct;
        ctx->dc_index = i;
    }
}

/* Forget the context's initiator; a message half received is lost with it. */
static void ib_dct_unbind(IbQp *ctx)
{
    if (!ctx->dc_bound) {
        return;
    }
    trace_ib_dct_unbind(ctx->qpn, ctx->dc_index, ctx->dc_slid, ctx->dc_src_qpn);
    if (ctx->have_rwr) {
        IbRecvCompletion rc = { .status = IB_WC_WR_FLUSH_ERR };
        ctx->have_rwr = false;
        ctx->port->ops->recv_done(ctx, &ctx->rwr, &rc);
    }
    ib_qp_set_state(ctx, IB_QPS_RESET);
    ctx->dc_bound = false;
}

void ib_dct_cleanup(IbQp *dct)
{
    unsigned i;

    for (i = 0; i < dct->dc_nctx; i++) {
        IbQp *ctx = &dct->dc_ctx[i];
        /* the DCT is gone: no completions any more */
        ctx->have_rwr = false;
        ib_dct_unbind(ctx);
        ib_qp_cleanup(ctx);
    }
    g_free(dct->dc_ctx);
    dct->dc_ctx = NULL;
    dct->dc_nctx = 0;
}

void ib_dct_drain(IbQp *dct)
{
    unsigned i;

    dct->dc_draining = true;
    for (i = 0; i < dct->dc_nctx; i++) {
        ib_dct_unbind(&dct->dc_ctx[i]);
    }
}

static bool ib_dct_ctx_idle(const IbQp *ctx)
{
    return !ctx->dc_bound || ctx->state == IB_QPS_ERR ||
           (!ctx->in_send && !ctx->in_write && !ctx->have_rwr &&
            !ib_resp_tx_busy(ctx));
}

/* Bind a context to the connection request @p starts. */
static void ib_dct_bind(IbQp *dct, IbQp *ctx, const IbPacket *p)
{
    ib_dct_unbind(ctx);
    ctx->dc_bound = true;
    ctx->dc_slid = p->slid;
    memcpy(ctx->dc_sgid, p->sgid, 16);
    ctx->dc_src_qpn = p->dc_src_qpn;
    ctx->dc_conn_id = p->dc_conn_id;
    /*
     * the responder's side of the connection: the DCT's attributes, the
     * initiator's path
     */
    ctx->mtu = dct->mtu;
    ctx->pkey = dct->pkey;
    ctx->rre = dct->rre;
    ctx->rwe = dct->rwe;
    ctx->rae = dct->rae;
    ctx->min_rnr_timer = dct->min_rnr_timer;
    ctx->max_dest_rd_atomic = dct->max_dest_rd_atomic;
    ctx->dest_qpn = p->dc_src_qpn;
    memset(&ctx->av, 0, sizeof(ctx->av));
    ctx->av.dlid = p->slid;
    ctx->av.sl = p->sl;
    if (p->grh) {
        ctx->av.grh = true;
        ctx->av.hop_limit = dct->av.hop_limit ? dct->av.hop_limit : 64;
        ctx->av.tclass = dct->av.tclass;
        ctx->av.flow_label = dct->av.flow_label;
        memcpy(ctx->av.dgid, p->sgid, 16);
    }
    if (p->roce) {
        /*
         * RoCE: back to the initiator's address and MAC, from the GID it was
         * sent to
         */
        int g = ib_roce_find_gid(dct->port, p->dgid);
        ctx->av.hop_limit = dct->av.hop_limit ? dct->av.hop_limit : 64;
        ctx->av.tclass = dct->av.tclass;
        memcpy(ctx->av.dgid, p->sgid, 16);
        memcpy(ctx->av.dmac, p->smac, 6);
        ctx->av.sgid_index = g < 0 ? 0 : g;
        ctx->av.udp_sport = p->udp_sport;
    }
    ctx->rq_psn = p->dc_conn_psn;
    ib_qp_set_state(ctx, IB_QPS_INIT);
    ib_qp_set_state(ctx, IB_QPS_RTR);
    /* a responder only: no requester state to set up */
    ctx->state = IB_QPS_RTS;
    ctx->comm_est = true;
    trace_ib_dct_bind(dct->qpn, ctx->dc_index, p->slid, p->dc_src_qpn,
                      p->dc_conn_id, p->dc_conn_psn);
}

static IbQp *ib_dct_context(IbQp *dct, const IbPacket *p)
{
    IbQp *ctx = NULL, *victim = NULL;
    unsigned i;

    for (i = 0; i < dct->dc_nctx; i++) {
        IbQp *c = &dct->dc_ctx[i];
        if (c->dc_bound && c->dc_slid == p->slid &&
            c->dc_src_qpn == p->dc_src_qpn &&
            !memcmp(c->dc_sgid, p->sgid, 16)) {
            ctx = c;
            break;
        }
    }
    if (ctx && ctx->dc_conn_id == p->dc_conn_id) {
        /*
         * a context in error waits for its initiator to start over (a new
         * connection)
         */
        return ctx->state == IB_QPS_ERR ? NULL : ctx;
    }
    if (!ctx) {
        for (i = 0; i < dct->dc_nctx; i++) {
            IbQp *c = &dct->dc_ctx[i];
            if (!c->dc_bound) {
                victim = c;
                break;
            }
            if (ib_dct_ctx_idle(c) &&
                (!victim || c->dc_last_use < victim->dc_last_use)) {
                victim = c;
            }
        }
        if (!victim) {
            trace_ib_dct_busy(dct->qpn, p->slid, p->dc_src_qpn);
            return NULL;
        }
        ctx = victim;
    }
    /*
     * a new connection (the initiator only starts one when it is done with the
     * last)
     */
    ib_dct_bind(dct, ctx, p);
    return ctx;
}

void ib_dct_rx(IbQp *dct, const IbPacket *p)
{
    IbQp *ctx;

    if (!(ib_opcode_headers(p->opcode) & IB_HDR_DCETH) || dct->dc_draining) {
        /* a response sent to a DCT, or the DCT is going */
        return;
    }
    if (p->dc_key != dct->dc_key) {
        /* a DC access key violation: dropped (the initiator times out) */
        dct->stat_dc_key_violations++;
        trace_ib_dct_key_violation(dct->qpn, p->slid, p->dc_src_qpn);
        return;
    }
    ctx = ib_dct_context(dct, p);
    if (!ctx) {
        dct->port->stat_rx_drop++;
        return;
    }
    ctx->dc_last_use = ++dct->dc_clock;
    ctx->stat_rx++;
    ib_rc_rx(ctx, p);
}
