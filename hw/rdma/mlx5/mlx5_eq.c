/*
 * mlx5 HCA core: event queues (CREATE/DESTROY/QUERY_EQ), EQE posting, EQ
 * doorbells, MSI-X.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "trace.h"

void mlx5_eq_free(Mlx5Core *c, void *obj)
{
    Mlx5Eq *eq = obj;

    mlx5_buf_free(&eq->buf);
    g_free(eq);
}

Mlx5Eq *mlx5_eq_find_by_event(Mlx5Core *c, uint8_t type)
{
    uint32_t i;

    for (i = 0; i < c->eqs.size && type < 64; i++) {
        Mlx5Eq *eq = c->eqs.slot[i];
        if (eq && (eq->event_bitmask & (1ull << type))) {
            return eq;
        }
    }
    return NULL;
}

static void mlx5_eq_fire(Mlx5Core *c, Mlx5Eq *eq)
{
    if (eq->armed) {
        eq->armed = false;
        trace_mlx5_eq_irq(eq->eqn, eq->intr);
        c->ops->irq(c->opaque, eq->intr);
    }
}

int mlx5_eq_post(Mlx5Core *c, Mlx5Eq *eq, uint8_t type, uint8_t sub_type,
                 const uint8_t *data, size_t data_len)
{
    uint8_t eqe[MLX5_EQE_SIZE] = { 0 };
    uint32_t nent, idx;

    if (!eq) {
        return -1;
    }
    nent = 1u << eq->log_eq_size;
    if (((eq->pi - eq->ci) & 0xffffff) >= nent) {
        /* the driver did not consume: the event is lost, as on an overrun EQ */
        if (!eq->overrun) {
            trace_mlx5_err_eq_overrun(eq->eqn, eq->pi, eq->ci);
        }
        eq->overrun = true;
        return -1;
    }
    idx = eq->pi & (nent - 1);
    eqe[MLX5_EQE_type] = type;
    eqe[MLX5_EQE_sub_type] = sub_type;
    memcpy(eqe + MLX5_EQE_data, data, MIN(data_len, 28));
    eqe[MLX5_EQE_owner] = (eq->pi >> eq->log_eq_size) & 1;
    /* everything but the owner byte first, then the owner byte */
    if (mlx5_buf_write(c, &eq->buf, (uint64_t)idx * MLX5_EQE_SIZE, eqe,
                       MLX5_EQE_SIZE - 1) ||
        mlx5_buf_write(c, &eq->buf,
                       (uint64_t)idx * MLX5_EQE_SIZE + MLX5_EQE_owner,
                       &eqe[MLX5_EQE_owner], 1)) {
        mlx5_health_fatal(c, 0x2);
        return -1;
    }
    trace_mlx5_eqe(eq->eqn, type, sub_type, eq->pi, eqe[MLX5_EQE_owner]);
    eq->pi = (eq->pi + 1) & 0xffffff;
    mlx5_eq_fire(c, eq);
    return 0;
}

void mlx5_eq_post_async(Mlx5Core *c, uint8_t type, uint8_t sub_type,
                        const uint8_t *data, size_t data_len)
{
    Mlx5Eq *eq = mlx5_eq_find_by_event(c, type);

    if (eq) {
        mlx5_eq_post(c, eq, type, sub_type, data, data_len);
    } else {
        trace_mlx5_eq_event_dropped(type, sub_type);
    }
}

void mlx5_eq_doorbell(Mlx5Core *c, uint32_t val, bool arm)
{
    uint32_t eqn = val >> 24;
    Mlx5Eq *eq = mlx5_table_get(&c->eqs, eqn);

    trace_mlx5_eq_doorbell(eqn, val & 0xffffff, arm);
    if (!eq) {
        trace_mlx5_ub_eq_doorbell(eqn);
        return;
    }
    eq->ci = val & 0xffffff;
    if (((eq->pi - eq->ci) & 0xffffff) < (1u << eq->log_eq_size)) {
        eq->overrun = false;
    }
    if (arm) {
        eq->armed = true;
        if (eq->pi != eq->ci) {
            mlx5_eq_fire(c, eq);
        }
    }
}

void mlx5_cmd_create_eq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *eqc = cmd->in + CREATE_EQ_EQC_OFF;
    uint32_t log_eq_size, uar_page, intr, log_page_size, page_offset, eqn, synd;
    uint64_t npas;
    Mlx5Eq *eq;

    if (!mlx5_cmd_in_ok(cmd, MLX5_PAS_OFF + 8) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    log_eq_size = MLX5_GET(eqc, EQC_log_eq_size);
    uar_page = MLX5_GET(eqc, EQC_uar_page);
    intr = MLX5_GET(eqc, EQC_intr);
    log_page_size = MLX5_GET(eqc, EQC_log_page_size) + 12;
    page_offset = MLX5_GET(eqc, EQC_page_offset);
    npas = (cmd->inlen - MLX5_PAS_OFF) / 8;

    if (log_eq_size > c->cfg.log_max_eq_sz) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_SIZE);
        return;
    }
    if (intr >= c->cfg.msix_vectors) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_INTR);
        return;
    }
    if (!mlx5_table_get(&c->uars, uar_page)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_UAR);
        return;
    }
    eq = g_new0(Mlx5Eq, 1);
    synd = mlx5_buf_init(&eq->buf, cmd->in + MLX5_PAS_OFF, npas, log_page_size,
                         page_offset, (uint64_t)MLX5_EQE_SIZE << log_eq_size);
    if (synd) {
        g_free(eq);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return;
    }
    if (mlx5_table_alloc(&c->eqs, eq, &eqn)) {
        mlx5_eq_free(c, eq);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    eq->eqn = eqn;
    eq->log_eq_size = log_eq_size;
    eq->uar_page = uar_page;
    eq->intr = intr;
    eq->event_bitmask = mlx5_ld64(cmd->in + CREATE_EQ_event_bitmask_OFF);
    MLX5_SET(cmd->out, CREATE_EQ_OUT_eq_number, eqn);
    trace_mlx5_eq_create(eqn, log_eq_size, intr, eq->event_bitmask);
}

void mlx5_cmd_destroy_eq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t eqn;
    Mlx5Eq *eq;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return;
    }
    eqn = MLX5_GET(cmd->in, DESTROY_EQ_IN_eq_number);
    eq = mlx5_table_get(&c->eqs, eqn);
    if (!eq) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    if (eq->refcount) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_RES_BUSY, MLX5_SYND_BUSY);
        return;
    }
    mlx5_table_remove(&c->eqs, eqn);
    mlx5_eq_free(c, eq);
    trace_mlx5_obj_destroy("eq", eqn);
}

void mlx5_cmd_query_eq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint8_t *eqc = cmd->out + QUERY_EQ_OUT_EQC_OFF;
    Mlx5Eq *eq;

    if (!mlx5_cmd_in_ok(cmd, 0x10) ||
        !mlx5_cmd_out_ok(cmd, QUERY_EQ_OUT_SIZE)) {
        return;
    }
    eq = mlx5_table_get(&c->eqs, MLX5_GET(cmd->in, DESTROY_EQ_IN_eq_number));
    if (!eq) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    MLX5_SET(eqc, EQC_st, eq->armed ? 0x9 : 0xa);
    MLX5_SET(eqc, EQC_log_eq_size, eq->log_eq_size);
    MLX5_SET(eqc, EQC_uar_page, eq->uar_page);
    MLX5_SET(eqc, EQC_intr, eq->intr);
    MLX5_SET(eqc, EQC_log_page_size, eq->buf.log_page_size - 12);
    MLX5_SET(eqc, EQC_consumer_counter, eq->ci);
    MLX5_SET(eqc, EQC_producer_counter, eq->pi);
}
