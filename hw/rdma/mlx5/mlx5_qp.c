/*
 * mlx5 HCA core: queue pairs (CREATE/DESTROY/QUERY_QP) and the QP state machine
 * (RST2INIT ... 2RST), with per-transition mandatory fields and opt_param_mask.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "eth/mlx5_eth.h"
#include "trace.h"

/* 16 << 5 = 512 bytes = max_wqe_sz_rq */
#define MLX5_MAX_LOG_RQ_STRIDE  5
#define MLX5_QP_ADS_DW          (QPC_ADS_OFF / 4)

typedef Mlx5Field Mlx5QpcField;

#define QPCF(f)     (f)
/* address-path fields live at qpc + 0x18 */
#define ADSF(f)     ((f) + (MLX5_QP_ADS_DW << 16))

static const Mlx5QpcField f_rre = QPCF(QPC_rre), f_rwe = QPCF(QPC_rwe),
                          f_rae = QPCF(QPC_rae);
static const Mlx5QpcField f_q_key = QPCF(QPC_q_key);
static const Mlx5QpcField f_pkey_index = ADSF(ADS_pkey_index);
static const Mlx5QpcField f_port = ADSF(ADS_vhca_port_num);
static const Mlx5QpcField f_counter_set_id = QPCF(QPC_counter_set_id);
static const Mlx5QpcField f_min_rnr_nak = QPCF(QPC_min_rnr_nak);
static const Mlx5QpcField f_log_sra_max = QPCF(QPC_log_sra_max);
static const Mlx5QpcField f_log_rra_max = QPCF(QPC_log_rra_max);
static const Mlx5QpcField f_retry_count = QPCF(QPC_retry_count);
static const Mlx5QpcField f_rnr_retry = QPCF(QPC_rnr_retry);
static const Mlx5QpcField f_ack_timeout = ADSF(ADS_ack_timeout);
static const Mlx5QpcField f_mtu = QPCF(QPC_mtu);
static const Mlx5QpcField f_log_msg_max = QPCF(QPC_log_msg_max);
static const Mlx5QpcField f_remote_qpn = QPCF(QPC_remote_qpn);
static const Mlx5QpcField f_next_rcv_psn = QPCF(QPC_next_rcv_psn);
static const Mlx5QpcField f_next_send_psn = QPCF(QPC_next_send_psn);
static const Mlx5QpcField f_atomic_mode = QPCF(QPC_atomic_mode);
static const Mlx5QpcField f_log_ack_req_freq = QPCF(QPC_log_ack_req_freq);
static const Mlx5QpcField f_drain_sigerr = QPCF(QPC_drain_sigerr);

/* opt_param_mask bit -> field (the address path is handled as a whole) */
static const struct {
    uint32_t bit;
    const Mlx5QpcField *f;
} mlx5_qp_optpar[] = {
    { MLX5_QP_OPTPAR_RRE, &f_rre },
    { MLX5_QP_OPTPAR_RAE, &f_rae },
    { MLX5_QP_OPTPAR_RWE, &f_rwe },
    { MLX5_QP_OPTPAR_PKEY_INDEX, &f_pkey_index },
    { MLX5_QP_OPTPAR_Q_KEY, &f_q_key },
    { MLX5_QP_OPTPAR_RNR_TIMEOUT, &f_min_rnr_nak },
    { MLX5_QP_OPTPAR_SRA_MAX, &f_log_sra_max },
    { MLX5_QP_OPTPAR_RRA_MAX, &f_log_rra_max },
    { MLX5_QP_OPTPAR_RETRY_COUNT, &f_retry_count },
    { MLX5_QP_OPTPAR_RNR_RETRY, &f_rnr_retry },
    { MLX5_QP_OPTPAR_ACK_TIMEOUT, &f_ack_timeout },
    { MLX5_QP_OPTPAR_PRI_PORT, &f_port },
    { MLX5_QP_OPTPAR_COUNTER_SET_ID, &f_counter_set_id },
    { MLX5_QP_OPTPAR_DRAIN_SIGERR, &f_drain_sigerr },
};

typedef struct Mlx5QpTransition {
    uint16_t opcode;
    /* bit per MLX5_QP_STATE_* accepted as current state */
    uint8_t from_mask;
    uint8_t to;
    /* carries the primary address path (connected QPs) */
    bool path;
    const Mlx5QpcField *const *mandatory;
} Mlx5QpTransition;

static const Mlx5QpcField *const rst2init_f[] = {
    &f_pkey_index, &f_port,           &f_rre, &f_rwe, &f_rae,
    &f_q_key,      &f_counter_set_id, NULL
};
static const Mlx5QpcField *const init2rtr_f[] = {
    &f_mtu,         &f_log_msg_max, &f_remote_qpn,  &f_next_rcv_psn,
    &f_log_rra_max, &f_min_rnr_nak, &f_atomic_mode, NULL
};
static const Mlx5QpcField *const rtr2rts_f[] = {
    &f_next_send_psn, &f_retry_count,      &f_rnr_retry, &f_log_sra_max,
    &f_ack_timeout,   &f_log_ack_req_freq, NULL
};
static const Mlx5QpcField *const none_f[] = { NULL };

#define S(x) (1u << MLX5_QP_STATE_##x)
static const Mlx5QpTransition mlx5_qp_transitions[] = {
    { MLX5_CMD_OP_RST2INIT_QP, S(RST), MLX5_QP_STATE_INIT, false, rst2init_f },
    { MLX5_CMD_OP_INIT2INIT_QP, S(INIT), MLX5_QP_STATE_INIT, false, none_f },
    { MLX5_CMD_OP_INIT2RTR_QP, S(INIT), MLX5_QP_STATE_RTR, true, init2rtr_f },
    { MLX5_CMD_OP_RTR2RTS_QP, S(RTR), MLX5_QP_STATE_RTS, false, rtr2rts_f },
    { MLX5_CMD_OP_RTS2RTS_QP, S(RTS), MLX5_QP_STATE_RTS, false, none_f },
    { MLX5_CMD_OP_SQERR2RTS_QP, S(SQER), MLX5_QP_STATE_RTS, false, none_f },
    { MLX5_CMD_OP_SQD_RTS_QP, S(SQD), MLX5_QP_STATE_RTS, false, none_f },
    { MLX5_CMD_OP_2ERR_QP, 0x7f, MLX5_QP_STATE_ERR, false, none_f },
    { MLX5_CMD_OP_2RST_QP, 0x7f, MLX5_QP_STATE_RST, false, none_f },
};
#undef S

static void mlx5_qpc_copy(uint8_t *dst, const uint8_t *src,
                          const Mlx5QpcField *f)
{
    mlx5_field_set(dst, *f, mlx5_field_get(src, *f));
}

static bool mlx5_qp_connected(const Mlx5Qp *qp)
{
    return qp->st == MLX5_QP_ST_RC || qp->st == MLX5_QP_ST_UC ||
           qp->st == MLX5_QP_ST_XRC || qp->st == MLX5_QP_ST_DCI;
}

/*
 * The QP a QP command names (DCTs share the number space but have their own
 * commands).
 */
static Mlx5Qp *mlx5_qp_obj(Mlx5CmdCtx *cmd, Mlx5Core *c, uint32_t qpn)
{
    Mlx5Qp *qp = mlx5_cmd_obj(cmd, &c->qps, qpn);

    return qp && qp->st != MLX5_QP_ST_DCT && !mlx5_is_wq(qp) ? qp : NULL;
}

void mlx5_qp_free(Mlx5Core *c, void *obj)
{
    Mlx5Qp *qp = obj;
    Mlx5Cq *scq = mlx5_table_get(&c->cqs, qp->cqn_snd);
    Mlx5Cq *rcq = mlx5_table_get(&c->cqs, qp->cqn_rcv);
    Mlx5Srq *srq = mlx5_table_get(&c->srqs, qp->srqn);
    Mlx5Pd *pd = mlx5_table_get(&c->pds, qp->pdn);

    if (mlx5_is_wq(qp)) {
        mlx5_wq_free(c, qp);
        return;
    }

    if (scq) {
        mlx5_ref_put(&scq->refcount);
    }
    if (rcq) {
        mlx5_ref_put(&rcq->refcount);
    }
    if (srq && qp->rq_type == MLX5_RQ_TYPE_SRQ) {
        mlx5_ref_put(&srq->refcount);
    }
    if (pd) {
        mlx5_ref_put(&pd->refcount);
    }
    mlx5_exec_qp_fini(c, qp);
    mlx5_buf_free(&qp->buf);
    g_free(qp);
}

static bool mlx5_qp_st_supported(uint8_t st)
{
    switch (st) {
    case MLX5_QP_ST_RC:
    case MLX5_QP_ST_UC:
    case MLX5_QP_ST_UD:
    case MLX5_QP_ST_XRC:
    case MLX5_QP_ST_DCI:
    case MLX5_QP_ST_QP0:
    case MLX5_QP_ST_QP1:
    case MLX5_QP_ST_REG_UMR:
        return true;
    default:
        return false;
    }
}

/*
 * Check the create-time QP context. Returns a syndrome (status BAD_PARAM) or 0.
 */
static uint32_t mlx5_qp_check_create(Mlx5Core *c, Mlx5CmdCtx *cmd,
                                     const uint8_t *qpc, Mlx5Qp *qp)
{
    uint32_t max_sz = MLX5_GET(c->cap_general_cur, CAP_log_max_qp_sz);

    if (!mlx5_qp_st_supported(qp->st)) {
        return MLX5_SYND_BAD_ST;
    }
    if (qp->log_sq_size > max_sz || qp->log_rq_size > max_sz ||
        qp->log_rq_stride > MLX5_MAX_LOG_RQ_STRIDE) {
        return MLX5_SYND_BAD_SIZE;
    }
    if (qp->st == MLX5_QP_ST_REG_UMR && cmd->uid) {
        /* the UMR QP is privileged: it may change any mkey */
        return MLX5_SYND_BAD_ST;
    }
    if (qp->st != MLX5_QP_ST_REG_UMR && !mlx5_cmd_obj(cmd, &c->pds, qp->pdn)) {
        return MLX5_SYND_BAD_PD;
    }
    /* a QP without a send queue (an XRC target) rings no doorbells: no UAR */
    if ((!qp->no_sq || MLX5_GET(qpc, QPC_uar_page)) &&
        !mlx5_cmd_ref(cmd, &c->uars, MLX5_GET(qpc, QPC_uar_page))) {
        return MLX5_SYND_BAD_UAR;
    }
    if (qp->st == MLX5_QP_ST_XRC && !mlx5_cmd_ref(cmd, &c->xrcds, qp->xrcd)) {
        return MLX5_SYND_BAD_XRCD;
    }
    if ((qp->cqn_snd && !mlx5_cmd_ref(cmd, &c->cqs, qp->cqn_snd)) ||
        (qp->cqn_rcv && !mlx5_cmd_ref(cmd, &c->cqs, qp->cqn_rcv))) {
        return MLX5_SYND_BAD_CQ;
    }
    if (qp->rq_type == MLX5_RQ_TYPE_SRQ &&
        !mlx5_cmd_ref(cmd, &c->srqs, qp->srqn)) {
        return MLX5_SYND_BAD_SRQ;
    }
    if (qp->rq_type != MLX5_RQ_TYPE_REGULAR &&
        qp->rq_type != MLX5_RQ_TYPE_SRQ &&
        qp->rq_type != MLX5_RQ_TYPE_ZERO_SIZE_RQ) {
        return MLX5_SYND_UNSUPPORTED;
    }
    return 0;
}

void mlx5_cmd_create_qp(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *qpc = cmd->in + QP_QPC_OFF;
    uint64_t rq_bytes, sq_bytes;
    uint32_t synd, qpn;
    Mlx5Qp *qp;

    if (!mlx5_cmd_in_ok(cmd, MLX5_PAS_OFF) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    if (c->qps.count >= (1u << MLX5_GET(c->cap_general_cur, CAP_log_max_qp))) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    qp = g_new0(Mlx5Qp, 1);
    qp->st = MLX5_GET(qpc, QPC_st);
    qp->pdn = MLX5_GET(qpc, QPC_pd);
    qp->cqn_snd = MLX5_GET(qpc, QPC_cqn_snd);
    qp->cqn_rcv = MLX5_GET(qpc, QPC_cqn_rcv);
    qp->rq_type = MLX5_GET(qpc, QPC_rq_type);
    qp->srqn = MLX5_GET(qpc, QPC_srqn_rmpn_xrqn);
    qp->xrcd = MLX5_GET(qpc, QPC_xrcd);
    qp->log_rq_size = MLX5_GET(qpc, QPC_log_rq_size);
    qp->log_rq_stride = MLX5_GET(qpc, QPC_log_rq_stride);
    qp->log_sq_size = MLX5_GET(qpc, QPC_log_sq_size);
    qp->no_sq = MLX5_GET(qpc, QPC_no_sq);
    qp->user_index = MLX5_GET(qpc, QPC_user_index);
    qp->dbr_addr = MLX5_GET64(qpc, QPC_dbr_addr_OFF);
    synd = mlx5_qp_check_create(c, cmd, qpc, qp);

    rq_bytes = qp->rq_type == MLX5_RQ_TYPE_REGULAR ?
               (16ull << qp->log_rq_stride) << qp->log_rq_size : 0;
    sq_bytes = qp->no_sq ? 0 : 64ull << qp->log_sq_size;
    if (!synd && rq_bytes + sq_bytes &&
        MLX5_GET(cmd->in, CREATE_QP_wq_umem_valid)) {
        /* DevX: the work queues are a UMEM range */
        synd = mlx5_umem_buf(c, cmd, MLX5_GET(cmd->in, CREATE_QP_wq_umem_id),
                             mlx5_ld64(cmd->in + CREATE_QP_wq_umem_offset_OFF),
                             rq_bytes + sq_bytes, &qp->buf);
    } else if (!synd && rq_bytes + sq_bytes) {
        synd = mlx5_buf_init(
            &qp->buf, cmd->in + MLX5_PAS_OFF, (cmd->inlen - MLX5_PAS_OFF) / 8,
            MLX5_GET(qpc, QPC_log_page_size) + 12,
            MLX5_GET(qpc, QPC_page_offset), rq_bytes + sq_bytes);
    }
    if (!synd && MLX5_GET(qpc, QPC_dbr_umem_valid)) {
        synd = mlx5_umem_addr(c, cmd, MLX5_GET(qpc, QPC_dbr_umem_id),
                              qp->dbr_addr, &qp->dbr_addr);
    }
    if (synd) {
        mlx5_buf_free(&qp->buf);
        g_free(qp);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return;
    }
    if (mlx5_table_alloc(&c->qps, qp, &qpn)) {
        mlx5_buf_free(&qp->buf);
        g_free(qp);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    qp->qpn = qpn;
    qp->tm_swq = mlx5_xrq_qp_init(c, qp, qpc);
    if (mlx5_exec_qp_init(c, qp)) {
        /* a second SMI/GSI QP for the port */
        mlx5_table_remove(&c->qps, qpn);
        mlx5_exec_qp_fini(c, qp);
        mlx5_buf_free(&qp->buf);
        g_free(qp);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_ST);
        return;
    }
    mlx5_cmd_own(cmd, &c->qps, qpn);
    qp->ib.block_self_mcast = MLX5_GET(qpc, QPC_block_lb_mc);
    qp->uid = cmd->uid;
    qp->state = MLX5_QP_STATE_RST;
    memcpy(qp->qpc, qpc, MLX5_QPC_SIZE);
    MLX5_SET(qp->qpc, QPC_state, MLX5_QP_STATE_RST);
    qp->uar = MLX5_GET(qpc, QPC_uar_page);
    if (qp->st != MLX5_QP_ST_REG_UMR || mlx5_table_get(&c->pds, qp->pdn)) {
        Mlx5Pd *pd = mlx5_table_get(&c->pds, qp->pdn);
        if (pd) {
            pd->refcount++;
        }
    }
    if (qp->cqn_snd) {
        ((Mlx5Cq *)mlx5_table_get(&c->cqs, qp->cqn_snd))->refcount++;
    }
    if (qp->cqn_rcv) {
        ((Mlx5Cq *)mlx5_table_get(&c->cqs, qp->cqn_rcv))->refcount++;
    }
    if (qp->rq_type == MLX5_RQ_TYPE_SRQ) {
        ((Mlx5Srq *)mlx5_table_get(&c->srqs, qp->srqn))->refcount++;
    }
    mlx5_cmd_handle_out(cmd, qpn);
    trace_mlx5_qp_create(qpn, qp->st, qp->log_sq_size, qp->log_rq_size,
                         qp->cqn_snd, qp->cqn_rcv);
}

void mlx5_cmd_destroy_qp(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t qpn;
    Mlx5Qp *qp;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    qpn = MLX5_GET(cmd->in, QP_IN_qpn);
    qp = mlx5_qp_obj(cmd, c, qpn);
    if (!qp) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    mlx5_table_remove(&c->qps, qpn);
    mlx5_qp_free(c, qp);
    trace_mlx5_obj_destroy("qp", qpn);
}

static const Mlx5QpTransition *mlx5_qp_transition(uint16_t opcode)
{
    size_t i;

    for (i = 0; i < G_N_ELEMENTS(mlx5_qp_transitions); i++) {
        if (mlx5_qp_transitions[i].opcode == opcode) {
            return &mlx5_qp_transitions[i];
        }
    }
    return NULL;
}

/* Check the new context image for values the device cannot honour. */
static uint32_t mlx5_qp_check_ctx(Mlx5Core *c, const Mlx5Qp *qp,
                                  const uint8_t *qpc)
{
    const uint8_t *ads = qpc + QPC_ADS_OFF;
    uint32_t mtu = MLX5_GET(qpc, QPC_mtu);

    if (MLX5_GET(ads, ADS_vhca_port_num) != 1) {
        return MLX5_SYND_BAD_PORT;
    }
    if (MLX5_GET(ads, ADS_pkey_index) >= MLX5_MAX_PKEY_INDEX) {
        return MLX5_SYND_BAD_PKEY_INDEX;
    }
    if (qp->state >= MLX5_QP_STATE_RTR && qp->state != MLX5_QP_STATE_ERR &&
        mlx5_qp_connected(qp) && (mtu < 1 || mtu > 5)) {
        return MLX5_SYND_BAD_MTU;
    }
    return 0;
}

/* A secondary (alternate) address path being loaded. */
static uint32_t mlx5_qp_check_alt_path(const Mlx5Qp *qp, const uint8_t *ads)
{
    if (qp->st != MLX5_QP_ST_RC && qp->st != MLX5_QP_ST_UC &&
        qp->st != MLX5_QP_ST_XRC) {
        return MLX5_SYND_BAD_ST;        /* only connected QPs migrate */
    }
    if (MLX5_GET(ads, ADS_vhca_port_num) != 1) {
        return MLX5_SYND_BAD_PORT;
    }
    if (MLX5_GET(ads, ADS_pkey_index) >= MLX5_MAX_PKEY_INDEX) {
        return MLX5_SYND_BAD_PKEY_INDEX;
    }
    return 0;
}

/*
 * A path migration state asked of transition @t (IBA 17.2.8, as rdmavt enforces
 * it): REARM loads the alternate path for arming unless the QP is armed
 * already; MIGRATED migrates an armed QP now (a no-op when already migrated,
 * refused while rearming); ARMED is reached only through the peer, never by
 * command. Both only on the way to RTS.
 */
static uint32_t mlx5_qp_check_pm(const Mlx5Qp *qp, const Mlx5QpTransition *t,
                                 int pm)
{
    IbMigState cur = qp->ib.mig_state;

    if (t->to != MLX5_QP_STATE_RTS) {
        return MLX5_SYND_BAD_PM_STATE;
    }
    switch (pm) {
    case MLX5_QP_PM_REARM:
        if (qp->st != MLX5_QP_ST_RC && qp->st != MLX5_QP_ST_UC &&
            qp->st != MLX5_QP_ST_XRC) {
            return MLX5_SYND_BAD_ST;
        }
        return cur == IB_MIG_ARMED ? MLX5_SYND_BAD_PM_STATE : 0;
    case MLX5_QP_PM_MIGRATED:
        return cur == IB_MIG_REARM ? MLX5_SYND_BAD_PM_STATE : 0;
    default:
        return MLX5_SYND_BAD_PM_STATE;
    }
}

/* qpc.pm_state of a QP's current migration state */
static uint8_t mlx5_qp_pm_state(const Mlx5Qp *qp)
{
    switch (qp->ib.mig_state) {
    case IB_MIG_ARMED:
        return MLX5_QP_PM_ARMED;
    case IB_MIG_REARM:
        return MLX5_QP_PM_REARM;
    default:
        return MLX5_QP_PM_MIGRATED;
    }
}

void mlx5_cmd_modify_qp(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const Mlx5QpTransition *t = mlx5_qp_transition(cmd->opcode);
    const uint8_t *in_qpc = cmd->in + QP_QPC_OFF;
    uint8_t qpc[MLX5_QPC_SIZE];
    uint32_t optpar, synd;
    uint8_t old_state;
    /* the path migration state software asks for, if any */
    int pm = -1;
    Mlx5Qp *qp;
    size_t i;

    if (!t || !mlx5_cmd_in_ok(cmd, 0x10) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    qp = mlx5_qp_obj(cmd, c, MLX5_GET(cmd->in, QP_IN_qpn));
    if (!qp) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    if (!(t->from_mask & (1u << qp->state))) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_QP_STATE_ERR, MLX5_SYND_BAD_STATE);
        return;
    }
    old_state = qp->state;
    memcpy(qpc, qp->qpc, sizeof(qpc));
    if (t->to != MLX5_QP_STATE_ERR && t->to != MLX5_QP_STATE_RST) {
        if (!mlx5_cmd_in_ok(cmd, QP_QPC_OFF + MLX5_QPC_SIZE)) {
            return;
        }
        optpar = mlx5_ld32(cmd->in + QP_IN_opt_param_mask_OFF);
        for (i = 0; t->mandatory[i]; i++) {
            mlx5_qpc_copy(qpc, in_qpc, t->mandatory[i]);
        }
        for (i = 0; i < G_N_ELEMENTS(mlx5_qp_optpar); i++) {
            if (optpar & mlx5_qp_optpar[i].bit) {
                mlx5_qpc_copy(qpc, in_qpc, mlx5_qp_optpar[i].f);
            }
        }
        if ((t->path && mlx5_qp_connected(qp)) ||
            (optpar & MLX5_QP_OPTPAR_PRIMARY_ADDR_PATH)) {
            /*
             * the whole primary path, keeping port and pkey_index unless
             * flagged
             */
            uint8_t keep[MLX5_QPC_SIZE];
            memcpy(keep, qpc, sizeof(keep));
            memcpy(qpc + QPC_ADS_OFF, in_qpc + QPC_ADS_OFF, MLX5_ADS_SIZE);
            if (!(optpar & MLX5_QP_OPTPAR_PRI_PORT)) {
                mlx5_qpc_copy(qpc, keep, &f_port);
            }
            if (!(optpar & MLX5_QP_OPTPAR_PKEY_INDEX)) {
                mlx5_qpc_copy(qpc, keep, &f_pkey_index);
            }
        }
        if (optpar & MLX5_QP_OPTPAR_ALT_ADDR_PATH) {
            memcpy(qpc + QPC_ADS2_OFF, in_qpc + QPC_ADS2_OFF, MLX5_ADS_SIZE);
        }
        qp->state = t->to;
        synd = mlx5_qp_check_ctx(c, qp, qpc);
        if (!synd && (optpar & MLX5_QP_OPTPAR_ALT_ADDR_PATH)) {
            synd = mlx5_qp_check_alt_path(qp, qpc + QPC_ADS2_OFF);
        }
        if (!synd && (optpar & MLX5_QP_OPTPAR_PM_STATE)) {
            pm = MLX5_GET(in_qpc, QPC_pm_state);
            synd = mlx5_qp_check_pm(qp, t, pm);
        }
        if (synd) {
            qp->state = old_state;
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
            return;
        }
    }
    qp->state = t->to;
    MLX5_SET(qpc, QPC_state, t->to);
    memcpy(qp->qpc, qpc, sizeof(qpc));
    trace_mlx5_qp_modify(qp->qpn, mlx5_cmd_name(cmd->opcode), old_state, t->to);
    mlx5_exec_modify(c, qp, old_state);
    if (pm == MLX5_QP_PM_REARM) {
        qp->ib.mig_state = IB_MIG_REARM;
    } else if (pm == MLX5_QP_PM_MIGRATED) {
        /* if armed: the alternate path becomes the primary */
        ib_apm_migrate(&qp->ib);
    }
}

void mlx5_cmd_query_qp(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Qp *qp;

    if (!mlx5_cmd_in_ok(cmd, 0x10) ||
        !mlx5_cmd_out_ok(cmd, QP_QPC_OFF + MLX5_QPC_SIZE)) {
        return;
    }
    qp = mlx5_qp_obj(cmd, c, MLX5_GET(cmd->in, QP_IN_qpn));
    if (!qp) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    memcpy(cmd->out + QP_QPC_OFF, qp->qpc, MLX5_QPC_SIZE);
    MLX5_SET(cmd->out + QP_QPC_OFF, QPC_state, qp->state);
    MLX5_SET(cmd->out + QP_QPC_OFF, QPC_pm_state, mlx5_qp_pm_state(qp));
    if (qp->state >= MLX5_QP_STATE_RTS && qp->state != MLX5_QP_STATE_ERR) {
        MLX5_SET(cmd->out + QP_QPC_OFF, QPC_next_send_psn, qp->ib.next_psn);
    }
    if (qp->state >= MLX5_QP_STATE_RTR && qp->state != MLX5_QP_STATE_ERR) {
        MLX5_SET(cmd->out + QP_QPC_OFF, QPC_next_rcv_psn, qp->ib.epsn);
    }
    MLX5_SET(cmd->out + QP_QPC_OFF, QPC_hw_sq_wqebb_counter, qp->sq_ci);
    MLX5_SET(cmd->out + QP_QPC_OFF, QPC_hw_rq_counter, qp->rq_ci);
}
