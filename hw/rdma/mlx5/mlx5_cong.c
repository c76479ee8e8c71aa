/*
 * mlx5 HCA core: RoCE congestion control, the firmware's side of DCQCN (PRM
 * "Congestion Control": QUERY/MODIFY_CONG_STATUS, QUERY/MODIFY_CONG_PARAMS,
 * QUERY_CONG_STATISTICS).
 *
 * cc_query_allowed and cc_modify_allowed announce the commands, as on a
 * ConnectX-5: mlx5_ib then lists the congestion counters (rp_cnp_ignored,
 * rp_cnp_handled, np_ecn_marked_roce_packets, np_cnp_sent) among the port's
 * hw_counters and offers the parameters in debugfs (mlx5/<BDF>/cc_params).
 * The reaction point (RP, cong_protocol 1) and the notification point (NP, 2)
 * are enabled per priority (CONG_STATUS); the transport does the work
 * (ib/ib_cong.c): ECN-capable frames out, CNPs for frames marked Congestion
 * Experienced, CNPs taken. The NP's parameters are the transport's; the RP's
 * rate parameters are kept and reported, but no QP is slowed down (the
 * emulated link has no line rate to share; docs/fabric.md).
 *
 * The state is the firmware's: a driver reload keeps it, a firmware or PCI
 * reset brings back the defaults and clears the counters.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "hw/rdma/mlx5/mlx5_cong_prm.h"
#include "trace.h"

void mlx5_cong_caps(uint8_t *cap)
{
    MLX5_SET(cap, CAP_cc_query_allowed, 1);
    MLX5_SET(cap, CAP_cc_modify_allowed, 1);
}

void mlx5_cong_reset(Mlx5Core *c)
{
    uint8_t *rp = c->cong_rp;

    ib_cong_defaults(&c->ib.cong);
    memset(&c->ib.cong_stats, 0, sizeof(c->ib.cong_stats));
    memset(c->cong_tag, 0, sizeof(c->cong_tag));
    /* the DCQCN defaults Mellanox documents for its adapters */
    memset(rp, 0, sizeof(c->cong_rp));
    MLX5_SET(rp, CONG_RP_clamp_tgt_rate_after_time_inc, 1);
    MLX5_SET(rp, CONG_RP_rpg_time_reset, 300);
    MLX5_SET(rp, CONG_RP_rpg_byte_reset, 32767);
    MLX5_SET(rp, CONG_RP_rpg_threshold, 1);
    MLX5_SET(rp, CONG_RP_rpg_ai_rate, 5);
    MLX5_SET(rp, CONG_RP_rpg_hai_rate, 50);
    MLX5_SET(rp, CONG_RP_rpg_gd, 11);
    MLX5_SET(rp, CONG_RP_rpg_min_dec_fac, 50);
    MLX5_SET(rp, CONG_RP_rpg_min_rate, 1);
    MLX5_SET(rp, CONG_RP_dce_tcp_g, 1019);
    MLX5_SET(rp, CONG_RP_dce_tcp_rtt, 1);
    MLX5_SET(rp, CONG_RP_rate_reduce_monitor_period, 4);
    MLX5_SET(rp, CONG_RP_initial_alpha_value, 1023);
}

/*
 * The node (0: RP, 1: NP) a command names at @field, or -1 (failed: the
 * general node of newer adapters, RTT responses, is not a ConnectX-5's). The
 * input must have 0x10 bytes, the output room for @outlen.
 */
static int mlx5_cong_node(Mlx5CmdCtx *cmd, uint32_t inlen, uint32_t outlen,
                          uint32_t field)
{
    unsigned node;

    if (!mlx5_cmd_in_ok(cmd, inlen) || !mlx5_cmd_out_ok(cmd, outlen)) {
        return -1;
    }
    node = MLX5_GET(cmd->in, field);
    if (node != MLX5_CONG_RROCE_ECN_RP && node != MLX5_CONG_RROCE_ECN_NP) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_CONG);
        return -1;
    }
    return node - MLX5_CONG_RROCE_ECN_RP;
}

/* The node and priority a CONG_STATUS command names; false if it failed. */
static bool mlx5_cong_status_in(Mlx5CmdCtx *cmd, int *node, unsigned *prio)
{
    *node = mlx5_cong_node(cmd, 0x10, 0x10, CONG_STATUS_IN_cong_protocol);
    if (*node < 0) {
        return false;
    }
    *prio = MLX5_GET(cmd->in, CONG_STATUS_IN_priority);
    if (*prio > 7) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_CONG);
        return false;
    }
    return true;
}

void mlx5_cmd_query_cong_status(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    unsigned prio;
    uint8_t en;
    int node;

    if (!mlx5_cong_status_in(cmd, &node, &prio)) {
        return;
    }
    en = node ? c->ib.cong.np_enable : c->ib.cong.rp_enable;
    MLX5_SET(cmd->out, CONG_STATUS_OUT_enable, (en >> prio) & 1);
    MLX5_SET(cmd->out, CONG_STATUS_OUT_tag_enable,
             (c->cong_tag[node] >> prio) & 1);
}

void mlx5_cmd_modify_cong_status(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    unsigned prio;
    uint8_t *en;
    int node;

    if (!mlx5_cong_status_in(cmd, &node, &prio)) {
        return;
    }
    en = node ? &c->ib.cong.np_enable : &c->ib.cong.rp_enable;
    *en &= ~(1u << prio);
    *en |= MLX5_GET(cmd->in, CONG_STATUS_IN_enable) << prio;
    c->cong_tag[node] &= ~(1u << prio);
    c->cong_tag[node] |= MLX5_GET(cmd->in, CONG_STATUS_IN_tag_enable) << prio;
    trace_mlx5_cong_status(node ? "NP" : "RP", prio,
                           MLX5_GET(cmd->in, CONG_STATUS_IN_enable));
}

void mlx5_cmd_query_cong_params(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const IbCongConfig *cfg = &c->ib.cong;
    int node = mlx5_cong_node(cmd, 0x10,
                              CONG_PARAMS_OUT_BLOCK + CONG_PARAMS_BLOCK_SIZE,
                              CONG_PARAMS_IN_cong_protocol);
    uint8_t *b;

    if (node < 0) {
        return;
    }
    b = cmd->out + CONG_PARAMS_OUT_BLOCK;
    if (!node) {
        memcpy(b, c->cong_rp, CONG_PARAMS_BLOCK_SIZE);
        return;
    }
    MLX5_SET(b, CONG_NP_min_time_between_cnps, cfg->min_time_between_cnps);
    MLX5_SET(b, CONG_NP_cnp_dscp, cfg->cnp_dscp);
    MLX5_SET(b, CONG_NP_cnp_prio_mode, cfg->cnp_prio_mode);
    MLX5_SET(b, CONG_NP_cnp_802p_prio, cfg->cnp_802p_prio);
}

/* the RP fields MODIFY_CONG_PARAMS can select, and their ranges */
static const struct {
    uint32_t sel, field, min, max;
} mlx5_cong_rp_fields[] = {
    { MLX5_CONG_RP_SEL_CLAMP_TGT_RATE, CONG_RP_clamp_tgt_rate, 0, 1 },
    { MLX5_CONG_RP_SEL_CLAMP_TGT_RATE_ATI,
      CONG_RP_clamp_tgt_rate_after_time_inc, 0, 1 },
    { MLX5_CONG_RP_SEL_TIME_RESET, CONG_RP_rpg_time_reset, 1, 32767 },
    { MLX5_CONG_RP_SEL_BYTE_RESET, CONG_RP_rpg_byte_reset, 0, 32767 },
    { MLX5_CONG_RP_SEL_THRESHOLD, CONG_RP_rpg_threshold, 1, 31 },
    { MLX5_CONG_RP_SEL_MAX_RATE, CONG_RP_rpg_max_rate, 0, UINT32_MAX },
    { MLX5_CONG_RP_SEL_AI_RATE, CONG_RP_rpg_ai_rate, 1, UINT32_MAX },
    { MLX5_CONG_RP_SEL_HAI_RATE, CONG_RP_rpg_hai_rate, 1, UINT32_MAX },
    { MLX5_CONG_RP_SEL_MIN_DEC_FAC, CONG_RP_rpg_min_dec_fac, 0, 100 },
    { MLX5_CONG_RP_SEL_MIN_RATE, CONG_RP_rpg_min_rate, 0, UINT32_MAX },
    { MLX5_CONG_RP_SEL_RATE_FIRST_CNP, CONG_RP_rate_to_set_on_first_cnp, 0,
      UINT32_MAX },
    { MLX5_CONG_RP_SEL_DCE_TCP_G, CONG_RP_dce_tcp_g, 0, 1023 },
    { MLX5_CONG_RP_SEL_DCE_TCP_RTT, CONG_RP_dce_tcp_rtt, 0, UINT32_MAX },
    { MLX5_CONG_RP_SEL_REDUCE_PERIOD, CONG_RP_rate_reduce_monitor_period, 0,
      UINT32_MAX },
    { MLX5_CONG_RP_SEL_INITIAL_ALPHA, CONG_RP_initial_alpha_value, 0, 1023 },
    { MLX5_CONG_RP_SEL_GD, CONG_RP_rpg_gd, 0, 15 },
};

static bool mlx5_cong_modify_rp(Mlx5Core *c, const uint8_t *b, uint32_t sel)
{
    unsigned i;
    uint32_t v;

    /* all or nothing: check every selected field first */
    for (i = 0; i < G_N_ELEMENTS(mlx5_cong_rp_fields); i++) {
        v = MLX5_GET(b, mlx5_cong_rp_fields[i].field);
        if ((sel & mlx5_cong_rp_fields[i].sel) &&
            (v < mlx5_cong_rp_fields[i].min ||
             v > mlx5_cong_rp_fields[i].max)) {
            return false;
        }
    }
    for (i = 0; i < G_N_ELEMENTS(mlx5_cong_rp_fields); i++) {
        if (sel & mlx5_cong_rp_fields[i].sel) {
            MLX5_SET(c->cong_rp, mlx5_cong_rp_fields[i].field,
                     MLX5_GET(b, mlx5_cong_rp_fields[i].field));
        }
    }
    return true;
}

static bool mlx5_cong_modify_np(Mlx5Core *c, const uint8_t *b, uint32_t sel)
{
    IbCongConfig *cfg = &c->ib.cong;
    uint32_t t = MLX5_GET(b, CONG_NP_min_time_between_cnps);

    if ((sel & MLX5_CONG_NP_SEL_MIN_TIME) && t > 4095) {
        return false;
    }
    if (sel & MLX5_CONG_NP_SEL_MIN_TIME) {
        cfg->min_time_between_cnps = t;
    }
    if (sel & MLX5_CONG_NP_SEL_CNP_DSCP) {
        cfg->cnp_dscp = MLX5_GET(b, CONG_NP_cnp_dscp);
    }
    if (sel & MLX5_CONG_NP_SEL_CNP_PRIO) {
        cfg->cnp_prio_mode = MLX5_GET(b, CONG_NP_cnp_prio_mode);
        cfg->cnp_802p_prio = MLX5_GET(b, CONG_NP_cnp_802p_prio);
    }
    return true;
}

void mlx5_cmd_modify_cong_params(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *b = cmd->in + CONG_PARAMS_MOD_BLOCK;
    int node = mlx5_cong_node(cmd,
                              CONG_PARAMS_MOD_BLOCK + CONG_PARAMS_BLOCK_SIZE,
                              0x10, CONG_PARAMS_IN_cong_protocol);
    uint32_t sel;
    bool ok;

    if (node < 0) {
        return;
    }
    sel = MLX5_GET(cmd->in, CONG_PARAMS_MOD_field_select);
    ok = node ? mlx5_cong_modify_np(c, b, sel) : mlx5_cong_modify_rp(c, b, sel);
    if (!ok) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_CONG);
        return;
    }
    trace_mlx5_cong_params(node ? "NP" : "RP", sel);
}

void mlx5_cmd_query_cong_statistics(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    IbCongStats *st = &c->ib.cong_stats;

    if (!mlx5_cmd_in_ok(cmd, 0x10) ||
        !mlx5_cmd_out_ok(cmd, CONG_STATS_OUT_SIZE)) {
        return;
    }
    MLX5_SET64(cmd->out, CONG_STATS_OUT_rp_cnp_ignored_OFF, st->rp_cnp_ignored);
    MLX5_SET64(cmd->out, CONG_STATS_OUT_rp_cnp_handled_OFF, st->rp_cnp_handled);
    MLX5_SET64(cmd->out, CONG_STATS_OUT_np_ecn_marked_roce_packets_OFF,
               st->np_ecn_marked_roce_packets);
    MLX5_SET64(cmd->out, CONG_STATS_OUT_np_cnp_sent_OFF, st->np_cnp_sent);
    MLX5_SET64(cmd->out, CONG_STATS_OUT_time_stamp_OFF,
               c->ops->now_ns(c->opaque));
    if (MLX5_GET(cmd->in, CONG_STATS_IN_clear)) {
        memset(st, 0, sizeof(*st));
    }
}
