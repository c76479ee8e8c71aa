/*
 * mlx5 HCA core, Ethernet port: the flow sampler (general object type
 * FLOW_SAMPLER, rdma-core's mlx5dv_dr_action_create_flow_sampler on a NIC RX
 * domain). It names two firmware flow tables of one type: a sample table (a
 * termination table whose entry forwards to TIRs and counts) and a default
 * table. A steering entry that goes to the sampler's ICM address
 * (QUERY_GENERAL_OBJECT: sw_steering_icm_address_rx) gives one frame in
 * sample_ratio to the sample table's entry, and every frame goes on in the
 * default table. The device samples deterministically, each ratio-th frame
 * (a card draws at random at that rate).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "hw/rdma/mlx5/mlx5_ste_prm.h"
#include "trace.h"

/* a table type other than NIC RX, a ratio of 0, or a table not there */
#define MLX5_SYND_SAMPLER_PARAM     0x30000062

void mlx5_sampler_create(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *in = cmd->in + GOBJ_HDR_SIZE;
    Mlx5FlowTable *dt, *st;
    Mlx5Sampler *s;
    uint32_t id;

    if (!mlx5_cmd_in_ok(cmd, GOBJ_HDR_SIZE + SAMPLER_SIZE)) {
        return;
    }
    dt = mlx5_cmd_ref(cmd, &c->eth->fts,
                      MLX5_GET(in, SAMPLER_default_table_id));
    st = mlx5_cmd_ref(cmd, &c->eth->fts,
                      MLX5_GET(in, SAMPLER_sample_table_id));
    if (MLX5_GET(in, SAMPLER_table_type) != MLX5_FLOW_TABLE_TYPE_NIC_RX ||
        !MLX5_GET(in, SAMPLER_sample_ratio) || !dt || !st ||
        dt->type != MLX5_FLOW_TABLE_TYPE_NIC_RX ||
        st->type != MLX5_FLOW_TABLE_TYPE_NIC_RX) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_SAMPLER_PARAM);
        return;
    }
    s = g_new0(Mlx5Sampler, 1);
    s->table_type = MLX5_GET(in, SAMPLER_table_type);
    s->level = MLX5_GET(in, SAMPLER_level);
    s->ratio = MLX5_GET(in, SAMPLER_sample_ratio);
    s->default_table = dt->id;
    s->sample_table = st->id;
    if (mlx5_table_alloc(&c->eth->samplers, s, &id)) {
        g_free(s);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    mlx5_cmd_own(cmd, &c->eth->samplers, id);
    MLX5_SET(cmd->out, GOBJ_OUT_obj_id, id);
    trace_mlx5_sampler(id, s->ratio, s->sample_table, s->default_table);
}

static Mlx5Sampler *mlx5_sampler_in(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Sampler *s = mlx5_cmd_obj(cmd, &c->eth->samplers,
                                  MLX5_GET(cmd->in, GOBJ_IN_obj_id));

    if (!s) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
    }
    return s;
}

void mlx5_sampler_destroy(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Sampler *s = mlx5_sampler_in(c, cmd);
    uint32_t id = MLX5_GET(cmd->in, GOBJ_IN_obj_id);

    if (s) {
        mlx5_table_remove(&c->eth->samplers, id);
        trace_mlx5_obj_destroy("flow sampler", id);
        g_free(s);
    }
}

void mlx5_sampler_query(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Sampler *s = mlx5_sampler_in(c, cmd);
    uint8_t *out = cmd->out + GOBJ_HDR_SIZE;
    uint64_t a;

    if (!s || !mlx5_cmd_out_ok(cmd, GOBJ_HDR_SIZE + SAMPLER_SIZE)) {
        return;
    }
    a = mlx5_icm_term(MLX5_ICM_T_SAMPLER, MLX5_GET(cmd->in, GOBJ_IN_obj_id));
    MLX5_SET(out, SAMPLER_table_type, s->table_type);
    MLX5_SET(out, SAMPLER_level, s->level);
    MLX5_SET(out, SAMPLER_sample_ratio, s->ratio);
    MLX5_SET(out, SAMPLER_sample_table_id, s->sample_table);
    MLX5_SET(out, SAMPLER_default_table_id, s->default_table);
    MLX5_SET64(out, SAMPLER_icm_rx_OFF, a);
    MLX5_SET64(out, SAMPLER_icm_tx_OFF, a);
}

Mlx5FlowTable *mlx5_sampler_take(Mlx5Core *c, uint32_t id, Mlx5FlowTable **st)
{
    Mlx5Sampler *s = mlx5_table_get(&c->eth->samplers, id);

    *st = NULL;
    if (!s) {
        return NULL;
    }
    if (++s->seen >= s->ratio) {
        s->seen = 0;
        *st = mlx5_ft_get(c, s->sample_table);
    }
    return mlx5_ft_get(c, s->default_table);
}
