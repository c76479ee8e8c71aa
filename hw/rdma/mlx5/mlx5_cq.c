/*
 * mlx5 HCA core: completion queues (CREATE/DESTROY/QUERY_CQ), CQE posting, CQ
 * arming and completion events.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "trace.h"

#define MLX5_CQ_DB_REQ_NOT_SOL  (1u << 24)
#define MLX5_CQE_OWNER_MASK     1

void mlx5_cq_free(Mlx5Core *c, void *obj)
{
    Mlx5Cq *cq = obj;

    mlx5_cqe_comp_free(c, cq);
    mlx5_buf_free(&cq->buf);
    g_free(cq);
}

/* the first half of a padded 128-byte CQE */
static const uint8_t mlx5_zero_cqe[64];

uint32_t mlx5_cqe_size(const Mlx5Cq *cq)
{
    return cq->cqe_sz != MLX5_CQE_SZ_64 ? 128 : 64;
}

static void mlx5_cq_event(Mlx5Core *c, Mlx5Cq *cq)
{
    uint8_t data[28] = { 0 };
    Mlx5Eq *eq = mlx5_table_get(&c->eqs, cq->c_eqn);

    cq->armed = false;
    cq->armed_solicited = false;
    cq->notified_pi = cq->pi;
    mlx5_st32(data + (0x38 - MLX5_EQE_data), cq->cqn);
    trace_mlx5_cq_event(cq->cqn, cq->c_eqn);
    mlx5_eq_post(c, eq, MLX5_EVENT_TYPE_COMP, 0, data, sizeof(data));
}

/*
 * The consumer counter counts modulo twice the ring (what the owner bit
 * tells): DPDK keeps it in 16 bits, and a full 24-bit difference would see an
 * overrun each time it wraps.
 */
int64_t mlx5_cq_used(Mlx5Core *c, Mlx5Cq *cq)
{
    uint32_t mask = ((2u << cq->log_cq_size) - 1) & 0xffffff;
    uint8_t dbr[4];

    if (mlx5_dma_read(c, cq->dbr_addr, dbr, sizeof(dbr))) {
        return -1;
    }
    return (cq->pi - mlx5_ld32(dbr)) & mask;
}

void mlx5_cq_notify(Mlx5Core *c, Mlx5Cq *cq, bool solicited)
{
    if (cq->armed && (!cq->armed_solicited || solicited)) {
        mlx5_cq_event(c, cq);
    }
}

/*
 * Write one CQE (@cqe holds the 64-byte CQE; for 128-byte CQEs it is the second
 * half) and raise a completion event if the CQ is armed for it. Returns -1 on
 * CQ overrun.
 */
int mlx5_cq_write(Mlx5Core *c, Mlx5Cq *cq, uint8_t *cqe, bool solicited)
{
    uint32_t nent = 1u << cq->log_cq_size, size = mlx5_cqe_size(cq);
    int64_t used = mlx5_cq_used(c, cq);
    uint64_t off;

    if (used < 0) {
        return -1;
    }
    if (!cq->oi && used >= nent) {
        uint8_t data[28] = { 0 };
        trace_mlx5_err_cq_overrun(cq->cqn, cq->pi, (cq->pi - used) & 0xffffff);
        mlx5_st32(data, cq->cqn);
        data[0x2b - MLX5_EQE_data] = 1;     /* CQ overrun */
        cq->status = 0x9;
        mlx5_eq_post_async(c, MLX5_EVENT_TYPE_CQ_ERROR, 0, data, sizeof(data));
        return -1;
    }
    off = (uint64_t)(cq->pi & (nent - 1)) * size + (size - 64);
    cqe[63] = (cqe[63] & ~MLX5_CQE_OWNER_MASK) |
              ((cq->pi >> cq->log_cq_size) & 1);
    /* a padded 128-byte CQE is written whole: zeros, then the CQE */
    if ((cq->cqe_sz == MLX5_CQE_SZ_128_PAD &&
         mlx5_buf_write(c, &cq->buf, off - 64, mlx5_zero_cqe, 64)) ||
        mlx5_buf_write(c, &cq->buf, off, cqe, 63) ||
        mlx5_buf_write(c, &cq->buf, off + 63, &cqe[63], 1)) {
        return -1;
    }
    trace_mlx5_cqe(cq->cqn, cq->pi, cqe[63] >> 4, cqe[63] & 1);
    cq->pi = (cq->pi + 1) & 0xffffff;
    mlx5_cq_notify(c, cq, solicited);
    return 0;
}

/*
 * Post one CQE: a compression session the CQ gathers goes first, so the CQEs
 * reach the ring in the order they completed.
 */
int mlx5_cq_post(Mlx5Core *c, Mlx5Cq *cq, uint8_t *cqe, bool solicited)
{
    mlx5_cqe_comp_flush(c, cq);
    return mlx5_cq_write(c, cq, cqe, solicited);
}

void mlx5_cq_doorbell(Mlx5Core *c, uint32_t hi, uint32_t cqn)
{
    Mlx5Cq *cq = mlx5_table_get(&c->cqs, cqn);
    uint32_t ci = hi & 0xffffff;

    trace_mlx5_cq_doorbell(cqn, hi);
    if (!cq) {
        trace_mlx5_ub_cq_doorbell(cqn);
        return;
    }
    cq->arm_sn = hi >> 28;
    cq->arm_ci = ci;
    cq->armed = true;
    cq->armed_solicited = !!(hi & MLX5_CQ_DB_REQ_NOT_SOL);
    /*
     * A completion written while the CQ was not armed, and not consumed yet,
     * raises the event at once (the kernel's re-arm after a poll relies on
     * it). One that an event already reported does not: libibverbs' usual
     * loop (ibv_get_cq_event, ibv_req_notify_cq, then ibv_poll_cq) re-arms
     * before it polls the CQE its event was for, and an event for that CQE
     * again would be one with nothing new to poll (perftest's -e runs then
     * fall a completion behind and overflow their send queue). The device
     * keeps cqc's last_notified_index for this.
     */
    if (!cq->armed_solicited && ((cq->pi - ci) & 0xffffff) != 0 &&
        ((cq->pi - cq->notified_pi) & 0xffffff) != 0) {
        mlx5_cq_event(c, cq);
    }
}

void mlx5_cmd_create_cq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *cqc = cmd->in + CREATE_CQ_CQC_OFF;
    uint32_t log_cq_size, cqe_sz, uar_page, c_eqn, cqn, synd;
    Mlx5Eq *eq;
    Mlx5Cq *cq;

    bool umem = cmd->inlen >= MLX5_PAS_OFF &&
                MLX5_GET(cmd->in, CREATE_CQ_cq_umem_valid);

    if (!mlx5_cmd_in_ok(cmd, MLX5_PAS_OFF + (umem ? 0 : 8)) ||
        !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    log_cq_size = MLX5_GET(cqc, CQC_log_cq_size);
    cqe_sz = MLX5_GET(cqc, CQC_cqe_sz);
    uar_page = MLX5_GET(cqc, CQC_uar_page);
    c_eqn = MLX5_GET(cqc, CQC_c_eqn);
    eq = mlx5_table_get(&c->eqs, c_eqn);

    /*
     * 64 or 128 bytes, or 128 padded (cqe_128_always: the 64-byte CQE in the
     * second half of a line written whole, as for 128-byte cache lines)
     */
    if (log_cq_size > c->cfg.log_max_cq_sz || cqe_sz > MLX5_CQE_SZ_128_PAD) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_SIZE);
        return;
    }
    if (!mlx5_cmd_ref(cmd, &c->uars, uar_page)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_UAR);
        return;
    }
    if (!eq) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_EQ);
        return;
    }
    /* from the event or from the first CQE; 2 and 3 are reserved */
    if (MLX5_GET(cqc, CQC_cq_period_mode) > 1) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    cq = g_new0(Mlx5Cq, 1);
    cq->cqe_sz = cqe_sz;
    synd = mlx5_cqe_comp_create(cq, cqc);
    if (synd) {
        g_free(cq);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return;
    }
    cq->dbr_addr = MLX5_GET64(cqc, CQC_dbr_addr_OFF);
    if (umem) {
        /*
         * DevX: the CQE buffer is a UMEM range (its own page list, not the
         * command's)
         */
        synd = mlx5_umem_buf(c, cmd, MLX5_GET(cmd->in, CREATE_CQ_cq_umem_id),
                             mlx5_ld64(cmd->in + CREATE_CQ_cq_umem_offset_OFF),
                             (uint64_t)mlx5_cqe_size(cq) << log_cq_size,
                             &cq->buf);
    } else {
        synd = mlx5_buf_init(&cq->buf, cmd->in + MLX5_PAS_OFF,
                             (cmd->inlen - MLX5_PAS_OFF) / 8,
                             MLX5_GET(cqc, CQC_log_page_size) + 12,
                             MLX5_GET(cqc, CQC_page_offset),
                             (uint64_t)mlx5_cqe_size(cq) << log_cq_size);
    }
    if (!synd && MLX5_GET(cqc, CQC_dbr_umem_valid)) {
        synd = mlx5_umem_addr(c, cmd, MLX5_GET(cqc, CQC_dbr_umem_id),
                              cq->dbr_addr, &cq->dbr_addr);
    }
    if (synd) {
        mlx5_cq_free(c, cq);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return;
    }
    if (mlx5_table_alloc(&c->cqs, cq, &cqn)) {
        mlx5_cq_free(c, cq);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    mlx5_cmd_own(cmd, &c->cqs, cqn);
    cq->cqn = cqn;
    cq->uid = cmd->uid;
    cq->log_cq_size = log_cq_size;
    cq->cqe_sz = cqe_sz;
    cq->oi = MLX5_GET(cqc, CQC_oi);
    cq->period_mode = MLX5_GET(cqc, CQC_cq_period_mode);
    cq->period = MLX5_GET(cqc, CQC_cq_period);
    cq->max_count = MLX5_GET(cqc, CQC_cq_max_count);
    cq->uar_page = uar_page;
    cq->c_eqn = c_eqn;
    eq->refcount++;
    mlx5_cmd_handle_out(cmd, cqn);
    trace_mlx5_cq_create(cqn, log_cq_size, c_eqn, cqe_sz);
}

void mlx5_cmd_destroy_cq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t cqn;
    Mlx5Cq *cq;
    Mlx5Eq *eq;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    cqn = mlx5_cmd_handle_in(cmd);
    cq = mlx5_cmd_obj(cmd, &c->cqs, cqn);
    if (!cq) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    if (cq->refcount) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_RES_BUSY, MLX5_SYND_BUSY);
        return;
    }
    eq = mlx5_table_get(&c->eqs, cq->c_eqn);
    if (eq) {
        mlx5_ref_put(&eq->refcount);
    }
    mlx5_table_remove(&c->cqs, cqn);
    mlx5_cq_free(c, cq);
    trace_mlx5_obj_destroy("cq", cqn);
}

void mlx5_cmd_query_cq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint8_t *cqc = cmd->out + CREATE_CQ_CQC_OFF;
    Mlx5Cq *cq;

    if (!mlx5_cmd_in_ok(cmd, 0x10) ||
        !mlx5_cmd_out_ok(cmd, QUERY_CQ_OUT_SIZE)) {
        return;
    }
    cq = mlx5_cmd_obj(cmd, &c->cqs, mlx5_cmd_handle_in(cmd));
    if (!cq) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    /* the producer counter counts every CQE completed so far */
    mlx5_cqe_comp_flush(c, cq);
    MLX5_SET(cqc, CQC_status, cq->status);
    MLX5_SET(cqc, CQC_cqe_sz, cq->cqe_sz);
    MLX5_SET(cqc, CQC_oi, cq->oi);
    MLX5_SET(cqc, CQC_cq_period_mode, cq->period_mode);
    mlx5_cqe_comp_query(cq, cqc);
    MLX5_SET(cqc, CQC_st, cq->armed ? 0x9 : 0xa);
    MLX5_SET(cqc, CQC_log_cq_size, cq->log_cq_size);
    MLX5_SET(cqc, CQC_uar_page, cq->uar_page);
    MLX5_SET(cqc, CQC_cq_period, cq->period);
    MLX5_SET(cqc, CQC_cq_max_count, cq->max_count);
    MLX5_SET(cqc, CQC_c_eqn, cq->c_eqn);
    MLX5_SET(cqc, CQC_log_page_size, cq->buf.log_page_size - 12);
    MLX5_SET(cqc, CQC_producer_counter, cq->pi);
    MLX5_SET(cqc, CQC_last_notified_index, (cq->notified_pi - 1) & 0xffffff);
    MLX5_SET64(cqc, CQC_dbr_addr_OFF, cq->dbr_addr);
}

/* ---- MODIFY_CQ: moderation (op_mod 0) and resize (op_mod 1) -------------- */

#define MODIFY_CQ_select            MLX5_FIELD(3, 31, 0)
#define MODIFY_CQ_cq_umem_valid     MLX5_FIELD(23, 31, 31)
#define MLX5_CQ_MODIFY_PERIOD       (1u << 0)
#define MLX5_CQ_MODIFY_COUNT        (1u << 1)
#define MLX5_CQ_MODIFY_PERIOD_MODE  (1u << 4)
#define MLX5_CQ_RESIZE_LOG_SIZE     (1u << 0)
#define MLX5_CQ_RESIZE_PG_OFFSET    (1u << 1)
#define MLX5_CQ_RESIZE_PG_SIZE      (1u << 2)
#define MLX5_CQ_OPMOD_MODERATE      0
#define MLX5_CQ_OPMOD_RESIZE        1
#define MLX5_CQE_RESIZE_CQ          5

/*
 * Resize (PRM "RESIZE_CQ"): the device ends the old buffer with a RESIZE CQE at
 * its producer index, counts it, and writes every later CQE into the new
 * buffer; the driver moves the CQEs it has not consumed yet across (mlx5_ib
 * copy_resize_cqes, libmlx5's resize copy). The new buffer must hold what is
 * outstanding, and the CQE size stays.
 */
static void mlx5_cq_resize(Mlx5Core *c, Mlx5CmdCtx *cmd, Mlx5Cq *cq,
                           uint32_t select)
{
    const uint8_t *cqc = cmd->in + CREATE_CQ_CQC_OFF;
    uint32_t log_size = MLX5_GET(cqc, CQC_log_cq_size),
             old_nent = 1u << cq->log_cq_size;
    uint8_t cqe[64] = { 0 };
    int64_t outstanding;
    uint32_t synd;
    Mlx5Buf nb;

    if (select != (MLX5_CQ_RESIZE_LOG_SIZE | MLX5_CQ_RESIZE_PG_OFFSET |
                   MLX5_CQ_RESIZE_PG_SIZE) ||
        MLX5_GET(cmd->in, MODIFY_CQ_cq_umem_valid)) {
        /* the new buffer is described whole, as the drivers do (no umem) */
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    if (log_size > c->cfg.log_max_cq_sz ||
        MLX5_GET(cqc, CQC_cqe_sz) != cq->cqe_sz) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_SIZE);
        return;
    }
    /* (the CQEs of a compression session count as outstanding) */
    mlx5_cqe_comp_flush(c, cq);
    outstanding = mlx5_cq_used(c, cq);
    if (outstanding < 0) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PAS);
        return;
    }
    if (outstanding >= old_nent || outstanding + 1 > (1u << log_size)) {
        /*
         * no room for the RESIZE CQE, or the CQEs waiting would not fit the new
         * buffer
         */
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_SIZE);
        return;
    }
    synd = mlx5_buf_init(
        &nb, cmd->in + MLX5_PAS_OFF,
        cmd->inlen > MLX5_PAS_OFF ? (cmd->inlen - MLX5_PAS_OFF) / 8 : 0,
        MLX5_GET(cqc, CQC_log_page_size) + 12, MLX5_GET(cqc, CQC_page_offset),
        (uint64_t)mlx5_cqe_size(cq) << log_size);
    if (synd) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return;
    }
    /* the RESIZE CQE ends the old buffer (owner bit of the old size) */
    cqe[63] = (MLX5_CQE_RESIZE_CQ << 4) | ((cq->pi >> cq->log_cq_size) & 1);
    if (mlx5_buf_write(c, &cq->buf,
                       (uint64_t)(cq->pi & (old_nent - 1)) * mlx5_cqe_size(cq) +
                           (mlx5_cqe_size(cq) - 64),
                       cqe, 64)) {
        mlx5_buf_free(&nb);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PAS);
        return;
    }
    trace_mlx5_cq_resize(cq->cqn, cq->log_cq_size, log_size, cq->pi);
    cq->pi = (cq->pi + 1) & 0xffffff;
    mlx5_buf_free(&cq->buf);
    cq->buf = nb;
    cq->log_cq_size = log_size;
}

void mlx5_cmd_modify_cq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *cqc = cmd->in + CREATE_CQ_CQC_OFF;
    uint32_t select;
    Mlx5Cq *cq;

    if (!mlx5_cmd_in_ok(cmd, CREATE_CQ_CQC_OFF + 0x40)) {
        return;
    }
    cq = mlx5_cmd_obj(cmd, &c->cqs, mlx5_cmd_handle_in(cmd));
    if (!cq) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    select = MLX5_GET(cmd->in, MODIFY_CQ_select);
    switch (cmd->op_mod) {
    case MLX5_CQ_OPMOD_MODERATE:
        /*
         * completion events are raised for every CQE, i.e. never later than
         * moderation asks; the values are kept and reported by QUERY_CQ
         */
        /* the period mode too (cq_period_mode_modify: mlx5e's DIM) */
        if (select & ~(MLX5_CQ_MODIFY_PERIOD | MLX5_CQ_MODIFY_COUNT |
                       MLX5_CQ_MODIFY_PERIOD_MODE) ||
            ((select & MLX5_CQ_MODIFY_PERIOD_MODE) &&
             MLX5_GET(cqc, CQC_cq_period_mode) > 1)) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_UNSUPPORTED);
            return;
        }
        if (select & MLX5_CQ_MODIFY_PERIOD_MODE) {
            cq->period_mode = MLX5_GET(cqc, CQC_cq_period_mode);
        }
        if (select & MLX5_CQ_MODIFY_PERIOD) {
            cq->period = MLX5_GET(cqc, CQC_cq_period);
        }
        if (select & MLX5_CQ_MODIFY_COUNT) {
            cq->max_count = MLX5_GET(cqc, CQC_cq_max_count);
        }
        trace_mlx5_cq_moderate(cq->cqn, cq->period, cq->max_count);
        break;
    case MLX5_CQ_OPMOD_RESIZE:
        mlx5_cq_resize(c, cmd, cq, select);
        break;
    default:
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_OP_MOD);
    }
}
