/*
 * mlx5 HCA core: DC targets (CREATE/DESTROY/DRAIN/QUERY_DCT). A DCT is a
 * QP-numbered object that receives from an SRQ and answers any DC initiator
 * presenting its access key; the transport side is ib_dc.c. DCIs are QPs of
 * type DCI (mlx5_qp.c); their WQEs carry the target (mlx5_exec.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "trace.h"

/* The DCT a DCT command names. */
static Mlx5Qp *mlx5_dct_obj(Mlx5CmdCtx *cmd, Mlx5Core *c)
{
    Mlx5Qp *qp = mlx5_cmd_obj(cmd, &c->qps, MLX5_GET(cmd->in, DCT_IN_dctn));

    if (!qp || qp->st != MLX5_QP_ST_DCT) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return NULL;
    }
    return qp;
}

/* Check a DCT context. Returns a syndrome (status BAD_PARAM) or 0. */
static uint32_t mlx5_dct_check(Mlx5Core *c, Mlx5CmdCtx *cmd,
                               const uint8_t *dctc)
{
    Mlx5Srq *srq;
    uint32_t mtu = MLX5_GET(dctc, DCTC_mtu);

    if (!mlx5_cmd_obj(cmd, &c->pds, MLX5_GET(dctc, DCTC_pd))) {
        return MLX5_SYND_BAD_PD;
    }
    if (!mlx5_cmd_ref(cmd, &c->cqs, MLX5_GET(dctc, DCTC_cqn))) {
        return MLX5_SYND_BAD_CQ;
    }
    srq = mlx5_cmd_ref(cmd, &c->srqs, MLX5_GET(dctc, DCTC_srqn_xrqn));
    if (!srq || srq->xrc) {
        return MLX5_SYND_BAD_SRQ;       /* a DCT receives from a basic SRQ */
    }
    if (MLX5_GET(dctc, DCTC_port) != 1) {
        return MLX5_SYND_BAD_PORT;
    }
    if (mtu < 1 || mtu > 5) {
        return MLX5_SYND_BAD_MTU;
    }
    if (MLX5_GET(dctc, DCTC_pkey_index) >= MLX5_MAX_PKEY_INDEX) {
        return MLX5_SYND_BAD_PKEY_INDEX;
    }
    return 0;
}

void mlx5_cmd_create_dct(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *dctc = cmd->in + DCT_DCTC_OFF;
    uint32_t synd, dctn;
    Mlx5Qp *qp;
    IbQp *ib;

    if (!mlx5_cmd_in_ok(cmd, DCT_DCTC_OFF + MLX5_DCTC_SIZE) ||
        !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    if (!MLX5_GET(c->cap_general_cur, CAP_dct)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_OP_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    if (c->qps.count >= (1u << MLX5_GET(c->cap_general_cur, CAP_log_max_qp))) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    synd = mlx5_dct_check(c, cmd, dctc);
    if (synd) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return;
    }
    qp = g_new0(Mlx5Qp, 1);
    qp->st = MLX5_QP_ST_DCT;
    qp->pdn = MLX5_GET(dctc, DCTC_pd);
    qp->cqn_rcv = MLX5_GET(dctc, DCTC_cqn);
    qp->srqn = MLX5_GET(dctc, DCTC_srqn_xrqn);
    qp->rq_type = MLX5_RQ_TYPE_SRQ;
    qp->no_sq = true;
    qp->user_index = MLX5_GET(dctc, DCTC_user_index);
    qp->port = 1;
    if (mlx5_table_alloc(&c->qps, qp, &dctn)) {
        g_free(qp);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    qp->qpn = dctn;
    mlx5_exec_qp_init(c, qp);
    mlx5_cmd_own(cmd, &c->qps, dctn);
    qp->uid = cmd->uid;
    memcpy(qp->qpc, dctc, MLX5_DCTC_SIZE);
    MLX5_SET(qp->qpc, DCTC_state, MLX5_DCTC_STATE_ACTIVE);
    ((Mlx5Pd *)mlx5_table_get(&c->pds, qp->pdn))->refcount++;
    ((Mlx5Cq *)mlx5_table_get(&c->cqs, qp->cqn_rcv))->refcount++;
    ((Mlx5Srq *)mlx5_table_get(&c->srqs, qp->srqn))->refcount++;

    /* the transport's view: a responder that is ready at once */
    ib = &qp->ib;
    ib->dc_key = mlx5_ld64(dctc + DCTC_dc_access_key_OFF);
    ib->mtu = ib_mtu_bytes(MLX5_GET(dctc, DCTC_mtu));
    ib->pkey = c->port.pkeys[0];
    ib->rre = MLX5_GET(dctc, DCTC_rre);
    ib->rwe = MLX5_GET(dctc, DCTC_rwe);
    ib->rae = MLX5_GET(dctc, DCTC_rae);
    ib->min_rnr_timer = MLX5_GET(dctc, DCTC_min_rnr_nak);
    ib->max_dest_rd_atomic = 1u << MLX5_GET(c->cap_general_cur,
                                            CAP_log_max_ra_res_dc);
    ib->av.tclass = MLX5_GET(dctc, DCTC_tclass);
    ib->av.flow_label = MLX5_GET(dctc, DCTC_flow_label);
    ib->av.hop_limit = MLX5_GET(dctc, DCTC_hop_limit);
    ib_qp_set_state(ib, IB_QPS_INIT);
    ib_qp_set_state(ib, IB_QPS_RTR);
    qp->state = MLX5_QP_STATE_RTR;

    mlx5_st32(cmd->out + 8, dctn & 0xffffff);
    trace_mlx5_dct_create(dctn, qp->srqn, qp->cqn_rcv, qp->pdn);
}

void mlx5_cmd_destroy_dct(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Qp *qp;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    qp = mlx5_dct_obj(cmd, c);
    if (!qp) {
        return;
    }
    mlx5_table_remove(&c->qps, qp->qpn);
    trace_mlx5_obj_destroy("dct", qp->qpn);
    mlx5_qp_free(c, qp);
}

/*
 * DRAIN_DCT: take no more requests, forget every initiator, and tell the driver
 * with a DCT_DRAINED event (it waits for that event before DESTROY_DCT).
 */
void mlx5_cmd_drain_dct(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint8_t data[28] = { 0 };
    Mlx5Qp *qp;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    qp = mlx5_dct_obj(cmd, c);
    if (!qp) {
        return;
    }
    if (MLX5_GET(qp->qpc, DCTC_state) != MLX5_DCTC_STATE_ACTIVE) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
                      MLX5_SYND_BAD_STATE);
        return;
    }
    ib_dct_drain(&qp->ib);
    MLX5_SET(qp->qpc, DCTC_state, MLX5_DCTC_STATE_DRAINED);
    mlx5_st32(data + (MLX5_EQE_qp_srq_n - MLX5_EQE_data), qp->qpn & 0xffffff);
    trace_mlx5_dct_drained(qp->qpn);
    mlx5_eq_post_async(c, MLX5_EVENT_TYPE_DCT_DRAINED, 0, data, sizeof(data));
}

void mlx5_cmd_query_dct(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Qp *qp;

    if (!mlx5_cmd_in_ok(cmd, 0x10) ||
        !mlx5_cmd_out_ok(cmd, DCT_DCTC_OFF + MLX5_DCTC_SIZE)) {
        return;
    }
    qp = mlx5_dct_obj(cmd, c);
    if (!qp) {
        return;
    }
    memcpy(cmd->out + DCT_DCTC_OFF, qp->qpc, MLX5_DCTC_SIZE);
    MLX5_SET(cmd->out + DCT_DCTC_OFF, DCTC_dc_access_key_violation_count,
             (uint32_t)qp->ib.stat_dc_key_violations);
}
