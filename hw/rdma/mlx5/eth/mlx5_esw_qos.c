/*
 * mlx5 HCA core: the E-Switch's scheduling elements, as mlx5_core's esw/qos.c
 * uses them for a VF's rate limit (`ip link set PF vf N max_tx_rate M`): a
 * root TSAR (DWRR) and under it an element per vport with its
 * max_average_bw. The device enforces the limit on what the vport's function
 * sends from its SQs and its RDMA transport: together they send no faster
 * than the element's rate, or its TSAR's if that is lower (mlx5_pp.c's pacer
 * holds an SQ whose WQE would run ahead of it, and the transport after a
 * packet that did). What a ConnectX-5's QoS page offers beyond this is
 * not claimed: no bandwidth shares (min_tx_rate), no rate groups (scheduling
 * depth 0), no NIC hierarchy.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "hw/rdma/mlx5/mlx5_qos_prm.h"
#include "trace.h"

enum {
    /* not the E-Switch hierarchy, or not its manager's kernel */
    MLX5_SYND_SCHED_HIERARCHY = 0x30000070,
    /* an element type, TSAR type, parent or vport the caps do not offer */
    MLX5_SYND_SCHED_ELEMENT = 0x30000071,
    /* no such element */
    MLX5_SYND_SCHED_ID = 0x30000072,
    /* a TSAR with elements under it */
    MLX5_SYND_SCHED_BUSY = 0x30000073,
    /* a bandwidth share (esw_bw_share is not offered) */
    MLX5_SYND_SCHED_BW_SHARE = 0x30000074,
    /* every element slot in use */
    MLX5_SYND_SCHED_FULL = 0x30000075,
};

void mlx5_esw_qos_caps(const Mlx5CoreConfig *cfg, uint8_t *cap)
{
    if (!mlx5_esw_manager_cfg(cfg)) {
        return;
    }
    MLX5_SET(cap, QOS_CAP_esw_scheduling, 1);
    MLX5_SET(cap, QOS_CAP_esw_rate_limit, 1);
    MLX5_SET(cap, QOS_CAP_esw_element_type,
             1u << MLX5_SCHED_ELEM_TSAR | 1u << MLX5_SCHED_ELEM_VPORT);
    MLX5_SET(cap, QOS_CAP_esw_tsar_type, 1u << MLX5_SCHED_TSAR_DWRR);
}

/* Each function's rate limit from the elements now (the PF's and VFs'). */
static void mlx5_esw_qos_apply(Mlx5Core *pf)
{
    Mlx5EswSched *s = pf->eth->sched;
    unsigned n, i;

    for (n = 0; n <= pf->cfg.num_vfs; n++) {
        Mlx5Core *f = mlx5_esw_function(pf, n);
        uint32_t rate = 0;

        for (i = 0; i < MLX5_ESW_SCHED_MAX; i++) {
            if (s[i].id && s[i].type == MLX5_SCHED_ELEM_VPORT &&
                s[i].vport == n) {
                const Mlx5EswSched *t = &s[s[i].parent - 1];

                rate = s[i].max_bw;
                if (t->max_bw && (!rate || t->max_bw < rate)) {
                    rate = t->max_bw;
                }
                break;
            }
        }
        if (f && f->esw_max_mbps != rate) {
            trace_mlx5_esw_qos_rate(n, rate);
            f->esw_max_mbps = rate;
        }
    }
}

void mlx5_esw_qos_reset(Mlx5Core *c)
{
    memset(c->eth->sched, 0, sizeof(c->eth->sched));
    if (!c->cfg.vf) {
        /* (a VF's limit is its manager's: kept across the VF's resets) */
        c->esw_max_mbps = 0;
        c->esw_tx_next = 0;
    }
}

/*
 * The manager's command in the E-Switch hierarchy, and the element it names
 * (@id: its id field; NULL, none); false: failed.
 */
static bool mlx5_esw_sched_cmd(Mlx5Core *c, Mlx5CmdCtx *cmd, bool id,
                               Mlx5EswSched **e)
{
    /* (CREATE and MODIFY carry a context; DESTROY and QUERY an id only) */
    bool ctx = cmd->opcode == MLX5_CMD_OP_CREATE_SCHEDULING_ELEMENT ||
               cmd->opcode == MLX5_CMD_OP_MODIFY_SCHEDULING_ELEMENT;
    uint32_t n;

    if (!mlx5_cmd_in_ok(cmd, ctx ? SCHED_IN_SIZE : SCHED_IN_ID_SIZE)) {
        return false;
    }
    if (!mlx5_esw_manager_cfg(&c->cfg) || cmd->uid ||
        MLX5_GET(cmd->in, SCHED_IN_hierarchy) !=
            MLX5_SCHED_HIERARCHY_E_SWITCH) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_SCHED_HIERARCHY);
        return false;
    }
    *e = NULL;
    if (id) {
        n = MLX5_GET(cmd->in, SCHED_IN_element_id);
        if (n == 0 || n > MLX5_ESW_SCHED_MAX ||
            !c->eth->sched[n - 1].id) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_SCHED_ID);
            return false;
        }
        *e = &c->eth->sched[n - 1];
    }
    return true;
}

/* Is @parent the id of a TSAR? */
static bool mlx5_esw_sched_tsar(Mlx5Core *c, uint32_t parent)
{
    return parent && parent <= MLX5_ESW_SCHED_MAX &&
           c->eth->sched[parent - 1].id &&
           c->eth->sched[parent - 1].type == MLX5_SCHED_ELEM_TSAR;
}

void mlx5_cmd_create_scheduling_element(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *ctx = cmd->in + SCHED_IN_CTX_OFF;
    Mlx5EswSched *e, *s;
    unsigned type, parent, vport, i, slot = MLX5_ESW_SCHED_MAX;
    bool ok;

    if (!mlx5_esw_sched_cmd(c, cmd, false, &e) ||
        !mlx5_cmd_out_ok(cmd, 0x14)) {
        return;
    }
    s = c->eth->sched;
    type = MLX5_GET(ctx, SCHED_CTX_element_type);
    parent = MLX5_GET(ctx, SCHED_CTX_parent_element_id);
    vport = MLX5_GET(ctx, SCHED_CTX_vport_number);
    if (MLX5_GET(ctx, SCHED_CTX_bw_share)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_SCHED_BW_SHARE);
        return;
    }
    if (type == MLX5_SCHED_ELEM_TSAR) {
        /* a DWRR root: no parent (scheduling depth 0, no rate groups) */
        ok = !parent && MLX5_GET(ctx, SCHED_CTX_tsar_type) ==
                            MLX5_SCHED_TSAR_DWRR;
    } else {
        /* a vport of the E-Switch, once, under a TSAR */
        ok = type == MLX5_SCHED_ELEM_VPORT && mlx5_esw_sched_tsar(c, parent) &&
             vport <= c->cfg.num_vfs;
        for (i = 0; ok && i < MLX5_ESW_SCHED_MAX; i++) {
            ok = !(s[i].id && s[i].type == MLX5_SCHED_ELEM_VPORT &&
                   s[i].vport == vport);
        }
    }
    if (!ok) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_SCHED_ELEMENT);
        return;
    }
    for (i = 0; i < MLX5_ESW_SCHED_MAX && slot == MLX5_ESW_SCHED_MAX; i++) {
        if (!s[i].id) {
            slot = i;
        }
    }
    if (slot == MLX5_ESW_SCHED_MAX) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_SCHED_FULL);
        return;
    }
    s[slot] = (Mlx5EswSched) {
        .id = slot + 1, .type = type, .parent = parent,
        .vport = type == MLX5_SCHED_ELEM_VPORT ? vport : 0,
        .max_bw = MLX5_GET(ctx, SCHED_CTX_max_average_bw),
    };
    MLX5_SET(cmd->out, SCHED_OUT_element_id, slot + 1);
    trace_mlx5_esw_sched_create(slot + 1, type, parent, s[slot].vport,
                                s[slot].max_bw);
    mlx5_esw_qos_apply(c);
}

void mlx5_cmd_destroy_scheduling_element(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5EswSched *e;
    unsigned i;

    if (!mlx5_esw_sched_cmd(c, cmd, true, &e)) {
        return;
    }
    for (i = 0; i < MLX5_ESW_SCHED_MAX; i++) {
        if (c->eth->sched[i].id && c->eth->sched[i].parent == e->id) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
                          MLX5_SYND_SCHED_BUSY);
            return;
        }
    }
    trace_mlx5_esw_sched_destroy(e->id);
    *e = (Mlx5EswSched) { 0 };
    mlx5_esw_qos_apply(c);
}

void mlx5_cmd_query_scheduling_element(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint8_t *ctx = cmd->out + SCHED_OUT_CTX_OFF;
    Mlx5EswSched *e;

    if (!mlx5_esw_sched_cmd(c, cmd, true, &e) ||
        !mlx5_cmd_out_ok(cmd, SCHED_OUT_CTX_OFF + SCHED_CTX_SIZE)) {
        return;
    }
    MLX5_SET(ctx, SCHED_CTX_element_type, e->type);
    if (e->type == MLX5_SCHED_ELEM_VPORT) {
        MLX5_SET(ctx, SCHED_CTX_vport_number, e->vport);
    }
    MLX5_SET(ctx, SCHED_CTX_parent_element_id, e->parent);
    MLX5_SET(ctx, SCHED_CTX_max_average_bw, e->max_bw);
}

void mlx5_cmd_modify_scheduling_element(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *ctx = cmd->in + SCHED_IN_CTX_OFF;
    Mlx5EswSched *e;
    uint32_t mask;

    if (!mlx5_esw_sched_cmd(c, cmd, true, &e)) {
        return;
    }
    mask = MLX5_GET(cmd->in, SCHED_IN_modify_bitmask);
    if ((mask & MLX5_SCHED_MODIFY_BW_SHARE) &&
        MLX5_GET(ctx, SCHED_CTX_bw_share)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_SCHED_BW_SHARE);
        return;
    }
    if (mask & MLX5_SCHED_MODIFY_MAX_AVERAGE_BW) {
        e->max_bw = MLX5_GET(ctx, SCHED_CTX_max_average_bw);
        trace_mlx5_esw_sched_modify(e->id, e->max_bw);
        mlx5_esw_qos_apply(c);
    }
}
