/*
 * mlx5 HCA core, Ethernet port: the flow meter (general object type
 * FLOW_METER, the legacy meter a ConnectX-5 has before ASO meters; rdma-core's
 * mlx5dv_dr_action_create_flow_meter, DPDK's rte_mtr on its DV engine). A
 * meter is a single-rate three-colour marker (RFC 2697, colour blind): a
 * committed bucket of cbs filled at cir and an excess bucket of ebs that
 * takes the committed bucket's overflow (bucket_overflow; without it, it
 * fills at eir). A steering entry that goes to the meter's ICM address
 * (QUERY_GENERAL_OBJECT: sw_steering_icm_address_rx/tx) colours the frame
 * into reg_c[return_reg_id] (green 2, yellow 1, red 0) and the frame goes on
 * in the meter's destination table, which matches the colour.
 *
 * Rates and sizes as the PRM encodes them: cir = 10^9 * mantissa /
 * 2^exponent bytes per second, cbs = mantissa * 2^exponent bytes (packets in
 * packet mode, meter_mode 1). A frame conforms while its bucket is not below
 * zero and then takes its size from it, so a bucket may go one frame below
 * zero and a committed bucket of size 0 still passes the committed rate
 * [inferred: rdma-core's test_flow_meter sets cbs and ebs to 0 and expects
 * green and red frames at twice the rate]; an excess bucket of size 0 is off
 * (no yellow: DPDK gives the legacy meter ebs 0 and expects no yellow). A
 * meter not active, or with parameters not valid, colours every frame green.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "hw/rdma/mlx5/mlx5_ste_prm.h"
#include "hw/rdma/mlx5/mlx5_qos_prm.h"
#include "trace.h"

/* a table type without software steering, a register not offered, no table */
#define MLX5_SYND_METER_PARAM       0x30000063
/* a modify of a field the meter does not let change */
#define MLX5_SYND_METER_MODIFY      0x30000064

/* the registers a meter may colour into: reg_c_3 to reg_c_5 [inferred] */
#define MLX5_METER_REGS             0x38
#define MLX5_METER_LOG_MAX          12
/* a bucket's size at most 2^48 units; time added at most 2^40 ns at once */
#define MLX5_METER_MAX_SHIFT        40
#define MLX5_METER_MAX_NS           (1ll << 40)

void mlx5_meter_caps(const Mlx5CoreConfig *cfg, uint8_t *cap)
{
    if (!mlx5_sw_icm_offered(cfg)) {
        return;     /* (only a software steering entry goes to a meter) */
    }
    MLX5_SET(cap, QOS_CAP_flow_meter_old, 1);
    MLX5_SET(cap, QOS_CAP_log_max_flow_meter, MLX5_METER_LOG_MAX);
    MLX5_SET(cap, QOS_CAP_flow_meter_reg_id, MLX5_METER_REGS);
}

/* The bucket sizes of parameters @p: committed, excess (bounded). */
static void mlx5_meter_sizes(const uint8_t *p, int64_t *cbs, int64_t *ebs)
{
    *cbs = (int64_t)MLX5_GET(p, FMP_cbs_mantissa)
           << MIN(MLX5_GET(p, FMP_cbs_exponent), MLX5_METER_MAX_SHIFT);
    *ebs = (int64_t)MLX5_GET(p, FMP_ebs_mantissa)
           << MIN(MLX5_GET(p, FMP_ebs_exponent), MLX5_METER_MAX_SHIFT);
}

/* Add @add tokens to @b of @size; what did not fit. */
static uint64_t mlx5_meter_add(Mlx5MeterBucket *b, uint64_t add, int64_t size)
{
    if (b->tokens >= size) {
        b->tokens = size;
        return add;
    }
    if (add <= (uint64_t)(size - b->tokens)) {
        b->tokens += add;
        return 0;
    }
    add -= size - b->tokens;
    b->tokens = size;
    return add;
}

/* Fill @b of @size for @ns at mantissa/2^exponent units per ns; overflow. */
static uint64_t mlx5_meter_fill(Mlx5MeterBucket *b, unsigned mantissa,
                                unsigned exponent, int64_t ns, int64_t size)
{
    uint64_t add;

    b->frac += (uint64_t)ns * mantissa;
    add = b->frac >> exponent;
    b->frac &= (1ull << exponent) - 1;
    return mlx5_meter_add(b, add, size);
}

/* The colour of a frame of @len bytes at @now (ns), the buckets charged. */
static unsigned mlx5_meter_color(Mlx5Meter *m, int64_t now, size_t len)
{
    const uint8_t *p = m->params;
    int64_t ns = MIN(MAX(now - m->last, 0), MLX5_METER_MAX_NS);
    int64_t cbs, ebs;
    int64_t unit = MLX5_GET(p, FMP_meter_mode) == 1 ? 1 : (int64_t)len;
    uint64_t spill;

    if (!m->active || !MLX5_GET(p, FMP_valid)) {
        return MLX5_METER_GREEN;
    }
    m->last = now;
    mlx5_meter_sizes(p, &cbs, &ebs);
    spill = mlx5_meter_fill(&m->c, MLX5_GET(p, FMP_cir_mantissa),
                            MLX5_GET(p, FMP_cir_exponent), ns, cbs);
    if (MLX5_GET(p, FMP_bucket_overflow)) {
        mlx5_meter_add(&m->e, spill, ebs);      /* the committed overflow */
    } else {
        mlx5_meter_fill(&m->e, MLX5_GET(p, FMP_eir_mantissa),
                        MLX5_GET(p, FMP_eir_exponent), ns, ebs);
    }
    if (m->c.tokens >= 0) {
        m->c.tokens -= unit;
        return MLX5_METER_GREEN;
    }
    if (ebs && m->e.tokens >= 0) {
        m->e.tokens -= unit;
        return MLX5_METER_YELLOW;
    }
    return MLX5_METER_RED;
}

/* Both buckets full (a new meter, or new sizes). */
static void mlx5_meter_fill_up(Mlx5Meter *m)
{
    mlx5_meter_sizes(m->params, &m->c.tokens, &m->e.tokens);
    m->c.frac = m->e.frac = 0;
}

void mlx5_meter_create(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *in = cmd->in + GOBJ_HDR_SIZE;
    unsigned type = MLX5_GET(in, METER_table_type);
    unsigned reg = MLX5_GET(in, METER_return_reg_id);
    Mlx5FlowTable *dt;
    Mlx5Meter *m;
    uint32_t id;

    if (!mlx5_cmd_in_ok(cmd, GOBJ_HDR_SIZE + METER_SIZE)) {
        return;
    }
    dt = mlx5_cmd_ref(cmd, &c->eth->fts,
                      MLX5_GET(in, METER_destination_table_id));
    if ((type != MLX5_FLOW_TABLE_TYPE_NIC_RX &&
         type != MLX5_FLOW_TABLE_TYPE_NIC_TX) ||
        !(MLX5_METER_REGS & (1u << reg)) || !dt || dt->type != type) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_METER_PARAM);
        return;
    }
    m = g_new0(Mlx5Meter, 1);
    m->table_type = type;
    m->reg = reg;
    m->active = MLX5_GET(in, METER_active);
    m->dest = dt->id;
    memcpy(m->params, in + METER_PARAMS_OFF, sizeof(m->params));
    mlx5_meter_fill_up(m);
    m->last = c->ops->now_ns(c->opaque);
    if (mlx5_table_alloc(&c->eth->meters, m, &id)) {
        g_free(m);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    mlx5_cmd_own(cmd, &c->eth->meters, id);
    MLX5_SET(cmd->out, GOBJ_OUT_obj_id, id);
    trace_mlx5_meter(id, m->active, reg, m->dest,
                     mlx5_ld32(m->params + 8), mlx5_ld32(m->params + 16));
}

static Mlx5Meter *mlx5_meter_in(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Meter *m = mlx5_cmd_obj(cmd, &c->eth->meters,
                                MLX5_GET(cmd->in, GOBJ_IN_obj_id));

    if (!m) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
    }
    return m;
}

/*
 * MODIFY_GENERAL_OBJECT: the fields modify_field_select names (active, the
 * bucket sizes, the rates); new sizes fill the buckets.
 */
void mlx5_meter_modify(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *in = cmd->in + GOBJ_HDR_SIZE, *p;
    Mlx5Meter *m = mlx5_meter_in(c, cmd);
    uint32_t sel;

    if (!m || !mlx5_cmd_in_ok(cmd, GOBJ_HDR_SIZE + METER_SIZE)) {
        return;
    }
    sel = MLX5_GET(in, METER_modify_field_select_31_0);
    if (sel & ~(MLX5_METER_MODIFY_ACTIVE | MLX5_METER_MODIFY_CBS |
                MLX5_METER_MODIFY_CIR | MLX5_METER_MODIFY_EBS |
                MLX5_METER_MODIFY_EIR) ||
        mlx5_ld32(in)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_METER_MODIFY);
        return;
    }
    p = in + METER_PARAMS_OFF;
    if (sel & MLX5_METER_MODIFY_ACTIVE) {
        m->active = MLX5_GET(in, METER_active);
    }
    /* (a rate or size names its word; the first word comes with any) */
    if (sel & ~MLX5_METER_MODIFY_ACTIVE) {
        memcpy(m->params, p, 4);
    }
    if (sel & (MLX5_METER_MODIFY_CBS | MLX5_METER_MODIFY_CIR)) {
        memcpy(m->params + 8, p + 8, 4);
    }
    if (sel & (MLX5_METER_MODIFY_EBS | MLX5_METER_MODIFY_EIR)) {
        memcpy(m->params + 16, p + 16, 4);
    }
    if (sel & (MLX5_METER_MODIFY_CBS | MLX5_METER_MODIFY_EBS)) {
        mlx5_meter_fill_up(m);
    }
    trace_mlx5_meter(MLX5_GET(cmd->in, GOBJ_IN_obj_id), m->active, m->reg,
                     m->dest, mlx5_ld32(m->params + 8),
                     mlx5_ld32(m->params + 16));
}

void mlx5_meter_destroy(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Meter *m = mlx5_meter_in(c, cmd);
    uint32_t id = MLX5_GET(cmd->in, GOBJ_IN_obj_id);

    if (m) {
        mlx5_table_remove(&c->eth->meters, id);
        trace_mlx5_obj_destroy("flow meter", id);
        g_free(m);
    }
}

void mlx5_meter_query(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Meter *m = mlx5_meter_in(c, cmd);
    uint8_t *out = cmd->out + GOBJ_HDR_SIZE;
    uint64_t a;

    if (!m || !mlx5_cmd_out_ok(cmd, GOBJ_HDR_SIZE + METER_SIZE)) {
        return;
    }
    a = mlx5_icm_term(MLX5_ICM_T_METER, MLX5_GET(cmd->in, GOBJ_IN_obj_id));
    MLX5_SET(out, METER_active, m->active);
    MLX5_SET(out, METER_return_reg_id, m->reg);
    MLX5_SET(out, METER_table_type, m->table_type);
    MLX5_SET(out, METER_destination_table_id, m->dest);
    memcpy(out + METER_PARAMS_OFF, m->params, sizeof(m->params));
    MLX5_SET64(out, METER_icm_rx_OFF, a);
    MLX5_SET64(out, METER_icm_tx_OFF, a);
}

Mlx5FlowTable *mlx5_meter_take(Mlx5Core *c, uint32_t id, size_t len,
                               uint8_t *ms)
{
    Mlx5Meter *m = mlx5_table_get(&c->eth->meters, id);
    unsigned color;

    if (!m) {
        return NULL;
    }
    color = mlx5_meter_color(m, c->ops->now_ns(c->opaque), len);
    mlx5_st32(ms + MLX5_MS_REG_C(m->reg), color);
    trace_mlx5_meter_color(id, len, color);
    return mlx5_ft_get(c, m->dest);
}
