/*
 * Unit tests: every implemented firmware command, with the driver's good inputs and with bad
 * ones (out-of-range sizes, unknown handles, wrong states), checking the architected status.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-test.h"
#include "mlx5_internal.h"
#include "mlx5_cmd.h"
#include "hw/rdma/mlx5/mlx5_cong_prm.h"

#define ST_OK       MLX5_CMD_STAT_OK
#define ST_PARAM    MLX5_CMD_STAT_BAD_PARAM_ERR
#define ST_RES      MLX5_CMD_STAT_BAD_RES_ERR
#define ST_BUSY     MLX5_CMD_STAT_RES_BUSY
#define ST_LIM      MLX5_CMD_STAT_LIM_ERR
#define ST_STATE    MLX5_CMD_STAT_BAD_SYS_STATE_ERR
#define ST_QPSTATE  MLX5_CMD_STAT_BAD_QP_STATE_ERR

static TDrv *up(void)
{
    TDrv *d = tdrv_new();

    tdrv_bringup(d);
    return d;
}

static void test_bringup_reload(void)
{
    TDrv *d = tdrv_new();
    uint8_t out[16];
    int i;

    for (i = 0; i < 5; i++) {
        tdrv_bringup(d);
        tdrv_alloc_pd(d);       /* left behind on purpose: DISABLE_HCA must drop it */
        tdrv_teardown(d);
        /* back to the pre-ENABLE state */
        g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_ISSI, 0, 0, 0, out, 16), ==,
                        ST_STATE);
        g_assert_cmpuint(d->c->pds.count, ==, 0);
        g_assert_cmpuint(d->c->eqs.count, ==, 0);
        g_assert_cmpuint(d->c->uars.count, ==, 0);
    }
    tdrv_free(d);
}

static void test_caps(void)
{
    TDrv *d = up();
    uint8_t out[QUERY_HCA_CAP_OUT_SIZE];
    const uint8_t *cap = out + HCA_CAP_OFF;

    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(cap, CAP_port_type), ==, 0);
    g_assert_cmpuint(MLX5_GET(cap, CAP_ib_virt), ==, 0);
    g_assert_cmpuint(MLX5_GET(cap, CAP_xrc), ==, 1);
    g_assert_cmpuint(MLX5_GET(cap, CAP_atomic), ==, 1);
    g_assert_cmpuint(MLX5_GET(cap, CAP_bf), ==, 1);
    g_assert_cmpuint(MLX5_GET(cap, CAP_cqe_version), ==, 1);
    g_assert_cmpuint(MLX5_GET(cap, CAP_log_max_qp), ==, d->c->cfg.log_max_qp);
    g_assert_cmpuint(MLX5_GET(cap, CAP_num_ports), ==, 1);
    /* the atomic endianness mode written by SET_HCA_CAP is visible in cur */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 7, 0, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(cap, ATOMIC_CAP_atomic_req_8B_endianness_mode), ==, 1);
    g_assert_cmpuint(MLX5_GET(cap, ATOMIC_CAP_atomic_operations), ==, 3);
    /* a type this device does not have: all zero, status OK */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 0x9, 0, 0, out, sizeof(out)),
                    ==, 0);
    for (unsigned i = 0; i < HCA_CAP_SIZE; i++) {
        g_assert_cmpuint(cap[i], ==, 0);
    }
    /* SET_HCA_CAP after INIT_HCA */
    {
        uint8_t in[0x10 + HCA_CAP_SIZE] = { 0 };
        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_HCA_CAP);
        g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, ST_STATE);
    }
    tdrv_free(d);
}

/* QUERY_CONG_PARAMS of @node into @blk; returns the status */
static int cong_params(TDrv *d, unsigned node, uint8_t *blk)
{
    uint8_t out[CONG_PARAMS_OUT_BLOCK + CONG_PARAMS_BLOCK_SIZE];
    int st = tdrv_simple(d, MLX5_CMD_OP_QUERY_CONG_PARAMS, 0, node, 0, out, sizeof(out));

    memcpy(blk, out + CONG_PARAMS_OUT_BLOCK, CONG_PARAMS_BLOCK_SIZE);
    return st;
}

/* MODIFY_CONG_PARAMS of @node: @sel of @blk; returns the status */
static int cong_modify(TDrv *d, unsigned node, uint32_t sel, const uint8_t *blk)
{
    uint8_t in[CONG_PARAMS_MOD_BLOCK + CONG_PARAMS_BLOCK_SIZE] = { 0 }, out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MODIFY_CONG_PARAMS);
    MLX5_SET(in, CONG_PARAMS_IN_cong_protocol, node);
    MLX5_SET(in, CONG_PARAMS_MOD_field_select, sel);
    memcpy(in + CONG_PARAMS_MOD_BLOCK, blk, CONG_PARAMS_BLOCK_SIZE);
    return tdrv_exec(d, in, sizeof(in), out, sizeof(out));
}

/*
 * Congestion control (mlx5_cong.c): the caps, CONG_STATUS per node and priority, the parameter
 * blocks with mlx5_ib's field selects, ranges, the statistics with clear, and what a firmware
 * reset restores.
 */
static void test_cong(void)
{
    TDrv *d = up();
    uint8_t out[QUERY_HCA_CAP_OUT_SIZE], blk[CONG_PARAMS_BLOCK_SIZE];
    const uint8_t *cap = out + HCA_CAP_OFF;
    IbCongStats *st = &d->c->ib.cong_stats;

    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(cap, CAP_cc_query_allowed), ==, 1);
    g_assert_cmpuint(MLX5_GET(cap, CAP_cc_modify_allowed), ==, 1);
    /* every priority of both nodes on; off for one */
    for (unsigned node = 1; node <= 2; node++) {
        for (unsigned prio = 0; prio < 8; prio++) {
            g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_CONG_STATUS, 0,
                                        prio << 4 | node, 0, out, 16), ==, 0);
            g_assert_cmpuint(MLX5_GET(out, CONG_STATUS_OUT_enable), ==, 1);
        }
    }
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_MODIFY_CONG_STATUS, 0, 3 << 4 | 2, 1u << 30,
                                out, 16), ==, 0);
    g_assert_cmphex(d->c->ib.cong.np_enable, ==, 0xf7);
    g_assert_cmphex(d->c->ib.cong.rp_enable, ==, 0xff);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_CONG_STATUS, 0, 3 << 4 | 2, 0, out, 16),
                    ==, 0);
    g_assert_cmpuint(MLX5_GET(out, CONG_STATUS_OUT_enable), ==, 0);
    g_assert_cmpuint(MLX5_GET(out, CONG_STATUS_OUT_tag_enable), ==, 1);
    /* no such node (the general one of newer adapters) or priority */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_CONG_STATUS, 0, 3, 0, out, 16), ==,
                    ST_PARAM);
    g_assert_cmphex(tdrv_syndrome(out), ==, MLX5_SYND_BAD_CONG);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_MODIFY_CONG_STATUS, 0, 8 << 4 | 1, 0, out, 16),
                    ==, ST_PARAM);
    g_assert_cmphex(d->c->ib.cong.rp_enable, ==, 0xff);
    g_assert_cmpint(cong_params(d, 0, blk), ==, ST_PARAM);

    /* the defaults, as mlx5_ib's cc_params shows them */
    g_assert_cmpint(cong_params(d, 1, blk), ==, 0);
    g_assert_cmpuint(MLX5_GET(blk, CONG_RP_rpg_time_reset), ==, 300);
    g_assert_cmpuint(MLX5_GET(blk, CONG_RP_rpg_gd), ==, 11);
    g_assert_cmpuint(MLX5_GET(blk, CONG_RP_initial_alpha_value), ==, 1023);
    g_assert_cmpuint(MLX5_GET(blk, CONG_RP_clamp_tgt_rate_after_time_inc), ==, 1);
    g_assert_cmpint(cong_params(d, 2, blk), ==, 0);
    g_assert_cmpuint(MLX5_GET(blk, CONG_NP_cnp_dscp), ==, 48);
    g_assert_cmpuint(MLX5_GET(blk, CONG_NP_cnp_802p_prio), ==, 6);
    g_assert_cmpuint(MLX5_GET(blk, CONG_NP_min_time_between_cnps), ==, 4);
    /* a change of the selected fields only; np_cnp_prio's select carries the mode too */
    memset(blk, 0, sizeof(blk));
    MLX5_SET(blk, CONG_NP_cnp_dscp, 26);
    MLX5_SET(blk, CONG_NP_cnp_802p_prio, 3);
    MLX5_SET(blk, CONG_NP_min_time_between_cnps, 77);
    g_assert_cmpint(cong_modify(d, 2, MLX5_CONG_NP_SEL_CNP_DSCP | MLX5_CONG_NP_SEL_CNP_PRIO,
                                blk), ==, 0);
    g_assert_cmpuint(d->c->ib.cong.cnp_dscp, ==, 26);
    g_assert_cmpuint(d->c->ib.cong.cnp_802p_prio, ==, 3);
    g_assert_cmpuint(d->c->ib.cong.min_time_between_cnps, ==, 4);
    memset(blk, 0, sizeof(blk));
    MLX5_SET(blk, CONG_RP_rpg_ai_rate, 10);
    MLX5_SET(blk, CONG_RP_rpg_gd, 7);
    g_assert_cmpint(cong_modify(d, 1, MLX5_CONG_RP_SEL_AI_RATE | MLX5_CONG_RP_SEL_GD, blk),
                    ==, 0);
    g_assert_cmpint(cong_params(d, 1, blk), ==, 0);
    g_assert_cmpuint(MLX5_GET(blk, CONG_RP_rpg_ai_rate), ==, 10);
    g_assert_cmpuint(MLX5_GET(blk, CONG_RP_rpg_gd), ==, 7);
    g_assert_cmpuint(MLX5_GET(blk, CONG_RP_rpg_hai_rate), ==, 50);
    /* one value out of range: refused, and nothing of the command applied */
    MLX5_SET(blk, CONG_RP_rpg_ai_rate, 20);
    MLX5_SET(blk, CONG_RP_rpg_min_dec_fac, 101);
    g_assert_cmpint(cong_modify(d, 1, MLX5_CONG_RP_SEL_AI_RATE | MLX5_CONG_RP_SEL_MIN_DEC_FAC,
                                blk), ==, ST_PARAM);
    g_assert_cmpint(cong_params(d, 1, blk), ==, 0);
    g_assert_cmpuint(MLX5_GET(blk, CONG_RP_rpg_ai_rate), ==, 10);
    MLX5_SET(blk, CONG_NP_min_time_between_cnps, 5000);
    g_assert_cmpint(cong_modify(d, 2, MLX5_CONG_NP_SEL_MIN_TIME, blk), ==, ST_PARAM);
    /* a short input is refused */
    {
        uint8_t in[0x20] = { 0 };
        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MODIFY_CONG_PARAMS);
        MLX5_SET(in, CONG_PARAMS_IN_cong_protocol, 1);
        g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), !=, 0);
    }

    /* the statistics, 64 bits each; clear zeroes them after the read */
    st->rp_cnp_ignored = 1;
    st->rp_cnp_handled = 0x100000002ull;
    st->np_ecn_marked_roce_packets = 3;
    st->np_cnp_sent = 4;
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_CONG_STATISTICS, 0, 1u << 31, 0, out,
                                CONG_STATS_OUT_SIZE), ==, 0);
    g_assert_cmpuint(mlx5_ld64(out + CONG_STATS_OUT_rp_cnp_ignored_OFF), ==, 1);
    g_assert_cmpuint(mlx5_ld64(out + CONG_STATS_OUT_rp_cnp_handled_OFF), ==, 0x100000002ull);
    g_assert_cmpuint(mlx5_ld64(out + CONG_STATS_OUT_np_ecn_marked_roce_packets_OFF), ==, 3);
    g_assert_cmpuint(mlx5_ld64(out + CONG_STATS_OUT_np_cnp_sent_OFF), ==, 4);
    g_assert_cmpuint(st->rp_cnp_handled + st->np_cnp_sent, ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_CONG_STATISTICS, 0, 0, 0, out, 0x40), !=,
                    0);

    /* a driver reload keeps the firmware's state; a firmware reset restores the defaults */
    st->np_cnp_sent = 9;
    tdrv_teardown(d);
    tdrv_bringup(d);
    g_assert_cmpuint(d->c->ib.cong.cnp_dscp, ==, 26);
    g_assert_cmpuint(st->np_cnp_sent, ==, 9);
    mlx5_core_reset(d->c, MLX5_RESET_SYSTEM);
    g_assert_cmpuint(d->c->ib.cong.cnp_dscp, ==, 48);
    g_assert_cmphex(d->c->ib.cong.np_enable, ==, 0xff);
    g_assert_cmpuint(st->np_cnp_sent, ==, 0);
    g_assert_cmpuint(MLX5_GET(d->c->cong_rp, CONG_RP_rpg_ai_rate), ==, 5);
    tdrv_free(d);
}

static void test_set_hca_cap_bad(void)
{
    TDrv *d = tdrv_new();
    uint8_t in[0x10 + HCA_CAP_SIZE], out[QUERY_HCA_CAP_OUT_SIZE];

    tdrv_simple(d, MLX5_CMD_OP_ENABLE_HCA, 0, 0, 0, NULL, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, out, sizeof(out)), ==, 0);
    memcpy(in, out, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_HCA_CAP);
    MLX5_SET(in, CMD_IN_op_mod, 0);
    MLX5_SET(in + HCA_CAP_OFF, CAP_log_max_qp, d->c->cfg.log_max_qp + 1);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, ST_PARAM);
    MLX5_SET(in + HCA_CAP_OFF, CAP_log_max_qp, 10);
    MLX5_SET(in + HCA_CAP_OFF, CAP_uar_4k, 1);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, ST_PARAM);
    MLX5_SET(in + HCA_CAP_OFF, CAP_uar_4k, 0);
    MLX5_SET(in + HCA_CAP_OFF, CAP_log_uar_page_sz, 9);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, ST_PARAM);
    MLX5_SET(in + HCA_CAP_OFF, CAP_log_uar_page_sz, 0);
    g_assert_cmpint(tdrv_exec(d, in, 0x20, out, 16), ==, MLX5_CMD_STAT_BAD_INP_LEN_ERR);
    /* a valid lower QP limit is applied to cur */
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(out + HCA_CAP_OFF, CAP_log_max_qp), ==, 10);
    /* unknown cap type, bad atomic mode */
    MLX5_SET(in, CMD_IN_op_mod, 0x9 << 1);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, ST_PARAM);
    memset(in + HCA_CAP_OFF, 0, HCA_CAP_SIZE);
    MLX5_SET(in, CMD_IN_op_mod, MLX5_CAP_ATOMIC << 1);
    MLX5_SET(in + HCA_CAP_OFF, ATOMIC_CAP_atomic_req_8B_endianness_mode, 3);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, ST_PARAM);
    tdrv_free(d);
}

static void test_issi_pages(void)
{
    TDrv *d = tdrv_new();
    uint8_t out[QUERY_ISSI_OUT_SIZE];

    tdrv_simple(d, MLX5_CMD_OP_ENABLE_HCA, 0, 0, 0, NULL, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_SET_ISSI, 0, 2, 0, out, 16), ==, ST_PARAM);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_SET_ISSI, 0, 1, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_SET_ISSI, 0, 0, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_ISSI, 0, 0, 0, out, 16), ==,
                    MLX5_CMD_STAT_BAD_OUTP_LEN_ERR);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_PAGES, 0, 0, 0, out, 16), ==, ST_PARAM);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_PAGES, 4, 0, 0, out, 16), ==, ST_PARAM);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_MANAGE_PAGES, 7, 0, 0, out, 16), ==, ST_PARAM);
    /* GIVE claims more entries than the input carries */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_MANAGE_PAGES, MLX5_PAGES_GIVE, 0, 100, out, 16),
                    ==, MLX5_CMD_STAT_BAD_INP_LEN_ERR);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_MANAGE_PAGES, MLX5_PAGES_GIVE, 0, 0x7fffffff,
                                out, 16), ==, ST_PARAM);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_MANAGE_PAGES, MLX5_PAGES_TAKE, 0, 768, out, 16),
                    ==, 0);
    g_assert_cmpint(MLX5_GET(out, MANAGE_PAGES_OUT_output_num_entries), ==, 0);
    tdrv_free(d);
}

static void access_reg(TDrv *d, uint16_t reg_id, bool write, uint8_t *data, int want)
{
    uint8_t in[0x10 + 0x40] = { 0 }, out[0x10 + 0x40];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_ACCESS_REG);
    MLX5_SET(in, CMD_IN_op_mod, write ? MLX5_ACCESS_REG_WRITE : MLX5_ACCESS_REG_READ);
    MLX5_SET(in, ACCESS_REG_IN_register_id, reg_id);
    memcpy(in + 0x10, data, 0x40);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, want);
    memcpy(data, out + 0x10, 0x40);
}

static void test_access_reg(void)
{
    TDrv *d = up();
    uint8_t reg[0x40] = { 0 };

    reg[1] = 1;
    mlx5_st32(reg + 4, 0x02091848 | IB_PORT_CM_SUP);
    access_reg(d, MLX5_REG_PCAP, true, reg, 0);
    memset(reg + 4, 0, 4);
    access_reg(d, MLX5_REG_PCAP, false, reg, 0);
    g_assert_cmphex(mlx5_ld32(reg + 4), ==, 0x02091848 | IB_PORT_CM_SUP);
    reg[1] = 2;
    access_reg(d, MLX5_REG_PCAP, true, reg, ST_PARAM);
    access_reg(d, MLX5_REG_NODE_DESC, false, reg, 0);
    g_assert_cmpstr((char *)reg, ==, "qemu-mlx5 HCA-1");
    access_reg(d, 0x1234, false, reg, ST_PARAM);
    tdrv_free(d);
}

static void test_simple_objects(void)
{
    TDrv *d = up();
    uint8_t out[16];
    uint32_t pd, xrcd, uars = 0;

    pd = tdrv_alloc_pd(d);
    g_assert_cmpuint(pd, !=, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DEALLOC_PD, 0, pd, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DEALLOC_PD, 0, pd, 0, out, 16), ==, ST_RES);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DEALLOC_PD, 0, 0xffffff, 0, out, 16), ==, ST_RES);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_ALLOC_XRCD, 0, 0, 0, out, 16), ==, 0);
    xrcd = MLX5_GET(out, ALLOC_OUT_handle);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DEALLOC_XRCD, 0, xrcd, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, 0, 0, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN, 0,
                                MLX5_GET(out, ALLOC_OUT_handle), 0, out, 16), ==, 0);
    /* UARs: exactly max_uar of them (one is in use by the driver), never below page 8 */
    while (tdrv_simple(d, MLX5_CMD_OP_ALLOC_UAR, 0, 0, 0, out, 16) == 0) {
        g_assert_cmpuint(MLX5_GET(out, ALLOC_OUT_handle), >=, MLX5_FIRST_UAR);
        g_assert_cmpuint((uint64_t)MLX5_GET(out, ALLOC_OUT_handle) << 12, <, MLX5_BAR0_SIZE);
        uars++;
    }
    g_assert_cmpint(out[0], ==, ST_LIM);
    g_assert_cmpuint(uars + 1, ==, d->c->cfg.max_uar);
    tdrv_free(d);
}

static void test_eq(void)
{
    TDrv *d = up();
    uint32_t inlen = MLX5_PAS_OFF + 8;
    uint8_t in[MLX5_PAS_OFF + 8] = { 0 }, out[QUERY_EQ_OUT_SIZE];
    uint8_t *eqc = in + CREATE_EQ_EQC_OFF;
    uint32_t eqn, cqn;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_EQ);
    MLX5_SET(eqc, EQC_log_eq_size, 6);
    MLX5_SET(eqc, EQC_uar_page, d->uar);
    mlx5_st64(in + MLX5_PAS_OFF, fake_alloc(d->h, 4096, 4096));
    MLX5_SET(eqc, EQC_intr, d->c->cfg.msix_vectors);
    g_assert_cmpint(tdrv_exec(d, in, inlen, out, 16), ==, ST_PARAM);
    MLX5_SET(eqc, EQC_intr, 1);
    MLX5_SET(eqc, EQC_uar_page, 3);
    g_assert_cmpint(tdrv_exec(d, in, inlen, out, 16), ==, ST_PARAM);
    MLX5_SET(eqc, EQC_uar_page, d->uar);
    MLX5_SET(eqc, EQC_log_eq_size, 23);
    g_assert_cmpint(tdrv_exec(d, in, inlen, out, 16), ==, ST_PARAM);
    /* 2^7 EQEs = 8 KiB do not fit in one 4 KiB page */
    MLX5_SET(eqc, EQC_log_eq_size, 7);
    g_assert_cmpint(tdrv_exec(d, in, inlen, out, 16), ==, ST_PARAM);
    /* misaligned page address */
    MLX5_SET(eqc, EQC_log_eq_size, 6);
    mlx5_st64(in + MLX5_PAS_OFF, fake_alloc(d->h, 8192, 4096) + 0x800);
    g_assert_cmpint(tdrv_exec(d, in, inlen, out, 16), ==, 0);
    /* (low 12 bits are ignored flags; the page itself is used) */
    eqn = MLX5_GET(out, CREATE_EQ_OUT_eq_number);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_EQ, 0, eqn, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(out + QUERY_EQ_OUT_EQC_OFF, EQC_log_eq_size), ==, 6);
    g_assert_cmpuint(MLX5_GET(out + QUERY_EQ_OUT_EQC_OFF, EQC_intr), ==, 1);
    /* an EQ with a CQ bound to it is busy */
    cqn = tdrv_create_cq(d, eqn, 4, NULL, NULL);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_EQ, 0, eqn, 0, out, 16), ==, ST_BUSY);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_CQ, 0, cqn, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_EQ, 0, eqn, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_EQ, 0, eqn, 0, out, 16), ==, ST_RES);
    tdrv_free(d);
}

/* QUERY_CQ's last_notified_index */
static uint32_t tdrv_query_cq_notified(TDrv *d, uint32_t cqn)
{
    uint8_t out[QUERY_CQ_OUT_SIZE];

    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_CQ, 0, cqn, 0, out,
                                sizeof(out)), ==, 0);
    return MLX5_GET(out + CREATE_CQ_CQC_OFF, CQC_last_notified_index);
}

/* CQE posting, owner bit, arming, completion events, overrun */
static void test_cq_events(void)
{
    TDrv *d = up();
    uint64_t eq_pa, cq_pa, dbr;
    uint32_t eqn = tdrv_create_eq(d, 0, 6, 3, &eq_pa);
    uint32_t cqn = tdrv_create_cq(d, eqn, 2, &cq_pa, &dbr);
    Mlx5Cq *cq = mlx5_table_get(&d->c->cqs, cqn);
    Mlx5Eq *eq = mlx5_table_get(&d->c->eqs, eqn);
    uint8_t cqe[64], eqe[64];
    unsigned i;

    g_assert_nonnull(cq);
    memset(cqe, 0, sizeof(cqe));
    cqe[63] = 0x00;
    /* not armed: no event */
    g_assert_cmpint(mlx5_cq_post(d->c, cq, cqe, false), ==, 0);
    g_assert_cmpuint(d->h->irqs[3], ==, 0);     /* arming an empty EQ does not fire */
    fake_read(d->h, cq_pa, cqe, 64);
    g_assert_cmpuint(cqe[63] & 1, ==, 0);       /* first pass: owner 0 */
    /* arm with ci 0 while a CQE is pending: event at once */
    tdrv_mmio_wr32(d, ((uint64_t)d->uar << 12) + MLX5_UAR_CQ_DB, 0);
    tdrv_mmio_wr32(d, ((uint64_t)d->uar << 12) + MLX5_UAR_CQ_DB + 4, cqn);
    tdrv_eqe(d, eq_pa, 0, eqe);
    g_assert_cmpuint(eqe[MLX5_EQE_type], ==, MLX5_EVENT_TYPE_COMP);
    g_assert_cmphex(mlx5_ld32(eqe + 0x38) & 0xffffff, ==, cqn);
    g_assert_cmpuint(eqe[MLX5_EQE_owner], ==, 0);
    g_assert_cmpuint(eq->pi, ==, 1);
    /*
     * armed again before that CQE is polled (ibv_get_cq_event, then
     * ibv_req_notify_cq, then ibv_poll_cq): the event reported it already
     */
    tdrv_mmio_wr32(d, ((uint64_t)d->uar << 12) + MLX5_UAR_CQ_DB, 0);
    tdrv_mmio_wr32(d, ((uint64_t)d->uar << 12) + MLX5_UAR_CQ_DB + 4, cqn);
    g_assert_cmpuint(eq->pi, ==, 1);
    g_assert_cmpuint(tdrv_query_cq_notified(d, cqn), ==, 0);
    /* fill the CQ: 4 entries; the 5th overruns (consumer index still 0) */
    for (i = 1; i < 4; i++) {
        g_assert_cmpint(mlx5_cq_post(d->c, cq, cqe, false), ==, 0);
    }
    /* the first of them, written while armed, raised the next event */
    g_assert_cmpuint(eq->pi, ==, 2);
    g_assert_cmpuint(tdrv_query_cq_notified(d, cqn), ==, 1);
    g_assert_cmpint(mlx5_cq_post(d->c, cq, cqe, false), ==, -1);
    g_assert_cmpuint(trace_count("mlx5_err_cq_overrun"), ==, 1);
    /* CQ_ERROR went to the async EQ */
    tdrv_eqe(d, d->async_eq_pa, 0, eqe);
    g_assert_cmpuint(eqe[MLX5_EQE_type], ==, MLX5_EVENT_TYPE_CQ_ERROR);
    /* consume everything, then the next CQE wraps with owner 1 */
    fake_wr32(d->h, dbr, 4);
    g_assert_cmpint(mlx5_cq_post(d->c, cq, cqe, false), ==, 0);
    fake_read(d->h, cq_pa, cqe, 64);
    g_assert_cmpuint(cqe[63] & 1, ==, 1);
    /* solicited-only arm ignores an unsolicited CQE */
    tdrv_mmio_wr32(d, ((uint64_t)d->uar << 12) + MLX5_UAR_CQ_DB, (1u << 24) | 5);
    tdrv_mmio_wr32(d, ((uint64_t)d->uar << 12) + MLX5_UAR_CQ_DB + 4, cqn);
    fake_wr32(d->h, dbr, 5);
    /* (the EQ's consumer has taken both events) */
    tdrv_mmio_wr32(d, ((uint64_t)d->uar << 12) + MLX5_UAR_EQ_DB_ARM, (eqn << 24) | 2);
    i = d->h->irqs[3];
    g_assert_cmpint(mlx5_cq_post(d->c, cq, cqe, false), ==, 0);
    g_assert_cmpuint(d->h->irqs[3], ==, i);
    g_assert_cmpint(mlx5_cq_post(d->c, cq, cqe, true), ==, 0);
    g_assert_cmpuint(d->h->irqs[3], ==, i + 1);
    /* doorbell for an unknown CQ is ignored (and traced) */
    mlx5_core_mmio_write(d->c, ((uint64_t)d->uar << 12) + MLX5_UAR_CQ_DB, 0x999, 8);
    g_assert_cmpuint(trace_count("mlx5_ub_cq_doorbell"), ==, 1);
    tdrv_free(d);
}

/* page_offset is quantized in page_size / 64 units: 32 KiB steps for 2 MiB pages */
static void test_cq_page_offset(void)
{
    TDrv *d = up();
    uint8_t in[MLX5_PAS_OFF + 8] = { 0 }, out[16], cqe[64] = { 0 }, got[64];
    uint8_t *cqc = in + CREATE_CQ_CQC_OFF;
    uint64_t page = fake_alloc(d->h, 2 << 20, 2 << 20), dbr = fake_alloc(d->h, 64, 64);
    Mlx5Cq *cq;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_CQ);
    MLX5_SET(cqc, CQC_log_cq_size, 4);
    MLX5_SET(cqc, CQC_uar_page, d->uar);
    MLX5_SET(cqc, CQC_c_eqn, d->async_eqn);
    MLX5_SET(cqc, CQC_log_page_size, 21 - 12);
    MLX5_SET(cqc, CQC_page_offset, 3);
    MLX5_SET64(cqc, CQC_dbr_addr_OFF, dbr);
    mlx5_st64(in + MLX5_PAS_OFF, page);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, 0);
    cq = mlx5_table_get(&d->c->cqs, MLX5_GET(out, ALLOC_OUT_handle));
    cqe[0] = 0xab;
    g_assert_cmpint(mlx5_cq_post(d->c, cq, cqe, false), ==, 0);
    fake_read(d->h, page + 3 * 32768, got, 64);
    g_assert_cmpuint(got[0], ==, 0xab);
    tdrv_free(d);
}

static void test_cq_bad(void)
{
    TDrv *d = up();
    uint8_t in[MLX5_PAS_OFF + 8] = { 0 }, out[QUERY_CQ_OUT_SIZE];
    uint8_t *cqc = in + CREATE_CQ_CQC_OFF;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_CQ);
    MLX5_SET(cqc, CQC_log_cq_size, 4);
    MLX5_SET(cqc, CQC_uar_page, d->uar);
    MLX5_SET(cqc, CQC_c_eqn, 63);
    mlx5_st64(in + MLX5_PAS_OFF, fake_alloc(d->h, 4096, 4096));
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, ST_PARAM);      /* no EQ */
    MLX5_SET(cqc, CQC_c_eqn, d->async_eqn);
    MLX5_SET(cqc, CQC_cqe_sz, 3);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, ST_PARAM);
    MLX5_SET(cqc, CQC_cqe_sz, 0);
    MLX5_SET(cqc, CQC_log_cq_size, 7);                                         /* 8 KiB */
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, ST_PARAM);
    MLX5_SET(cqc, CQC_log_cq_size, 31);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, ST_PARAM);
    MLX5_SET(cqc, CQC_log_cq_size, 4);
    MLX5_SET(in, CREATE_CQ_cq_umem_valid, 1);                                  /* no DevX */
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, ST_PARAM);
    MLX5_SET(in, CREATE_CQ_cq_umem_valid, 0);
    g_assert_cmpint(tdrv_exec(d, in, MLX5_PAS_OFF, out, 16),
                    ==, MLX5_CMD_STAT_BAD_INP_LEN_ERR);                        /* no PAS */
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_CQ, 0, MLX5_GET(out, ALLOC_OUT_handle), 0,
                                out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(out + CREATE_CQ_CQC_OFF, CQC_log_cq_size), ==, 4);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_CQ, 0, 0xabcd, 0, out, sizeof(out)), ==,
                    ST_RES);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_CQ, 0, 0xabcd, 0, out, 16), ==, ST_RES);
    tdrv_free(d);
}

static int create_mkey(TDrv *d, uint8_t mode, uint32_t pd, uint64_t start, uint64_t len,
                       uint32_t nmtt, uint32_t actual_octwords, uint32_t *key)
{
    uint32_t inlen = MLX5_PAS_OFF + 8 * nmtt;
    g_autofree uint8_t *in = g_malloc0(inlen);
    uint8_t *mkc = in + CREATE_MKEY_MKC_OFF, out[16];
    uint32_t i;
    int r;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_MKEY);
    MLX5_SET(mkc, MKC_access_mode_1_0, mode & 3);
    MLX5_SET(mkc, MKC_access_mode_4_2, mode >> 2);
    MLX5_SET(mkc, MKC_lr, 1);
    MLX5_SET(mkc, MKC_lw, 1);
    MLX5_SET(mkc, MKC_pd, pd);
    MLX5_SET(mkc, MKC_qpn, 0xffffff);
    MLX5_SET(mkc, MKC_mkey_7_0, 0x42);
    MLX5_SET(mkc, MKC_length64, mode == MLX5_MKC_ACCESS_MODE_PA);
    MLX5_SET64(mkc, MKC_start_addr_OFF, start);
    MLX5_SET64(mkc, MKC_len_OFF, len);
    MLX5_SET(mkc, MKC_log_page_size, 12);
    MLX5_SET(mkc, MKC_translations_octword_size, actual_octwords);
    MLX5_SET(in, CREATE_MKEY_IN_translations_octword_actual_size, actual_octwords);
    for (i = 0; i < nmtt; i++) {
        mlx5_st64(in + MLX5_PAS_OFF + 8 * i, 0x40000000ull + 4096ull * i);
    }
    r = tdrv_exec(d, in, inlen, out, sizeof(out));
    if (r == 0 && key) {
        *key = (MLX5_GET(out, MKEY_IN_mkey_index) << 8) | 0x42;
    }
    return r;
}

static void test_mkey(void)
{
    TDrv *d = up();
    uint32_t pd = tdrv_alloc_pd(d), key, key2;
    uint8_t out[QUERY_MKEY_OUT_SIZE];

    g_assert_cmpint(create_mkey(d, MLX5_MKC_ACCESS_MODE_PA, pd, 0, 0, 0, 0, &key), ==, 0);
    /* never index 0 or 1 (0x100 is the terminate-scatter-list lkey) */
    g_assert_cmphex(key >> 8, >=, 0x10);
    /* user MR: 3 pages starting mid-page need 4 MTTs (2 octwords) */
    g_assert_cmpint(create_mkey(d, MLX5_MKC_ACCESS_MODE_MTT, pd, 0x7f0000000800ull,
                                3 * 4096, 4, 2, &key2), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_MKEY, 0, key2 >> 8, 0, out, sizeof(out)),
                    ==, 0);
    g_assert_cmphex(MLX5_GET64(out + CREATE_MKEY_MKC_OFF, MKC_len_OFF), ==, 3 * 4096);
    g_assert_cmphex(MLX5_GET(out + CREATE_MKEY_MKC_OFF, MKC_mkey_7_0), ==, 0x42);
    /* too few translations */
    g_assert_cmpint(create_mkey(d, MLX5_MKC_ACCESS_MODE_MTT, pd, 0x7f0000000800ull,
                                3 * 4096, 2, 1, NULL), ==, ST_PARAM);
    /* octword count claims more than the input carries */
    g_assert_cmpint(create_mkey(d, MLX5_MKC_ACCESS_MODE_MTT, pd, 0x1000, 8 * 4096, 2, 4, NULL),
                    ==, MLX5_CMD_STAT_BAD_INP_LEN_ERR);
    /* wrapping range */
    g_assert_cmpint(create_mkey(d, MLX5_MKC_ACCESS_MODE_MTT, pd, UINT64_MAX - 100, 4096, 2, 1,
                                NULL), ==, ST_PARAM);
    /* unknown PD, unknown access mode */
    g_assert_cmpint(create_mkey(d, MLX5_MKC_ACCESS_MODE_PA, 0x777, 0, 0, 0, 0, NULL), ==,
                    ST_PARAM);
    /* MEMIC outside any ALLOC_MEMIC piece (test_memic) */
    g_assert_cmpint(create_mkey(d, MLX5_MKC_ACCESS_MODE_MEMIC, pd, 0, 64, 0, 0, NULL), ==,
                    ST_PARAM);
    g_assert_cmpint(create_mkey(d, 7, pd, 0, 0, 0, 0, NULL), ==, ST_PARAM);
    /* a PD with mkeys is busy */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DEALLOC_PD, 0, pd, 0, out, 16), ==, ST_BUSY);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_MKEY, 0, key >> 8, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_MKEY, 0, key >> 8, 0, out, 16), ==,
                    ST_RES);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_MKEY, 0, key2 >> 8, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DEALLOC_PD, 0, pd, 0, out, 16), ==, 0);
    tdrv_free(d);
}

static int alloc_memic(TDrv *d, uint64_t range, uint32_t range_size, uint32_t size,
                       unsigned log_align, uint64_t *start)
{
    uint8_t in[0x20] = { 0 }, out[0x10];
    int r;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_ALLOC_MEMIC);
    MLX5_SET(in, ALLOC_MEMIC_IN_log_memic_addr_alignment, log_align);
    MLX5_SET64(in, ALLOC_MEMIC_IN_range_start_addr_OFF, range);
    MLX5_SET(in, ALLOC_MEMIC_IN_range_size, range_size);
    MLX5_SET(in, ALLOC_MEMIC_IN_memic_size, size);
    r = tdrv_exec(d, in, sizeof(in), out, sizeof(out));
    if (r == 0 && start) {
        *start = MLX5_GET64(out, ALLOC_MEMIC_OUT_memic_start_addr_OFF);
    }
    return r;
}

static int dealloc_memic(TDrv *d, uint64_t start, uint32_t size)
{
    uint8_t in[0x20] = { 0 }, out[0x10];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_DEALLOC_MEMIC);
    MLX5_SET64(in, DEALLOC_MEMIC_IN_memic_start_addr_OFF, start);
    MLX5_SET(in, DEALLOC_MEMIC_IN_memic_size, size);
    return tdrv_exec(d, in, sizeof(in), out, sizeof(out));
}

/*
 * Device memory: the DEV_MEM caps, ALLOC_MEMIC placement (alignment, a full range answers
 * NO_RESOURCES so the driver tries the next), BAR0 access, MEMIC mkeys confined to one piece,
 * a piece held by its mkey, zeroed when handed out again.
 */
static void test_memic(void)
{
    TDrv *d = up();
    uint32_t pd = tdrv_alloc_pd(d), key;
    const uint64_t base = MLX5_MEMIC_BAR_OFF;
    uint8_t out[HCA_CAP_OFF + HCA_CAP_SIZE], buf[8];
    const uint8_t *cap = out + HCA_CAP_OFF;
    uint64_t a, b, c2;

    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, (MLX5_CAP_GENERAL << 1) | 1, 0, 0,
                                out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(cap, CAP_device_memory), ==, 1);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, (MLX5_CAP_DEV_MEM << 1) | 1, 0, 0,
                                out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(cap, DEV_MEM_CAP_memic), ==, 1);
    g_assert_cmphex(MLX5_GET64(cap, DEV_MEM_CAP_memic_bar_start_addr_OFF), ==, base);
    g_assert_cmpuint(MLX5_GET(cap, DEV_MEM_CAP_memic_bar_size), ==, 256 * 1024);
    g_assert_cmpuint(MLX5_GET(cap, DEV_MEM_CAP_max_memic_size), ==, 256 * 1024);

    /* bad sizes, alignment, ranges */
    g_assert_cmpint(alloc_memic(d, base, 4096, 100, 0, NULL), ==, ST_PARAM);
    g_assert_cmpint(alloc_memic(d, base, 4096, 0, 0, NULL), ==, ST_PARAM);
    g_assert_cmpint(alloc_memic(d, base, 4096, 64, 7, NULL), ==, ST_PARAM);
    g_assert_cmpint(alloc_memic(d, base - 4096, 4096, 64, 0, NULL), ==, ST_PARAM);
    g_assert_cmpint(alloc_memic(d, base + 256 * 1024 - 4096, 8192, 64, 0, NULL), ==, ST_PARAM);
    g_assert_cmpint(alloc_memic(d, base, 64, 128, 0, NULL), ==, ST_PARAM);
    /* placement: first fit, aligned */
    g_assert_cmpint(alloc_memic(d, base, 4096, 192, 0, &a), ==, 0);
    g_assert_cmphex(a, ==, base);
    g_assert_cmpint(alloc_memic(d, base, 4096, 64, 2, &b), ==, 0);    /* 256-byte aligned */
    g_assert_cmphex(b, ==, base + 256);
    g_assert_cmpint(alloc_memic(d, base, 4096, 4096, 0, NULL), ==, MLX5_CMD_STAT_NO_RES_ERR);
    g_assert_cmpint(alloc_memic(d, base + 4096, 4096, 4096, 0, &c2), ==, 0);
    g_assert_cmphex(c2, ==, base + 4096);

    /* BAR0 access (big-endian numbers, as the shell declares BAR0) */
    tdrv_mmio_wr32(d, a + 4, 0x11223344);
    g_assert_cmphex(tdrv_mmio_rd32(d, a + 4), ==, 0x11223344);
    g_assert_cmphex(mlx5_core_mmio_read(d->c, a + 5, 1), ==, 0x22);

    /* MEMIC mkeys: zero based, inside one piece of the caller */
    g_assert_cmpint(create_mkey(d, MLX5_MKC_ACCESS_MODE_MEMIC, pd, a + 64, 192, 0, 0, NULL), ==,
                    ST_PARAM);                                      /* runs past piece a */
    g_assert_cmpint(create_mkey(d, MLX5_MKC_ACCESS_MODE_MEMIC, pd, base + 192, 64, 0, 0, NULL),
                    ==, ST_PARAM);                                  /* the gap */
    g_assert_cmpint(create_mkey(d, MLX5_MKC_ACCESS_MODE_MEMIC, pd, a + 192, 0, 0, 0, &key), ==,
                    0);                                             /* empty, at its end */
    g_assert_cmpint(dealloc_memic(d, a, 192), ==, ST_BUSY);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_MKEY, 0, key >> 8, 0, out, 16), ==, 0);
    g_assert_cmpint(create_mkey(d, MLX5_MKC_ACCESS_MODE_MEMIC, pd, a, 192, 0, 0, &key), ==, 0);
    g_assert_cmpint(mlx5_mkey_copy(d->c, key, UINT32_MAX, MLX5_MKEY_LR, 4, buf, 4, false), ==,
                    0);
    g_assert_cmphex(mlx5_ld32(buf), ==, 0x11223344);
    mlx5_st32(buf, 0xa5a5a5a5);
    g_assert_cmpint(mlx5_mkey_copy(d->c, key, UINT32_MAX, MLX5_MKEY_LW, 188, buf, 4, true), ==,
                    0);
    g_assert_cmphex(tdrv_mmio_rd32(d, a + 188), ==, 0xa5a5a5a5);
    g_assert_cmpint(mlx5_mkey_copy(d->c, key, UINT32_MAX, MLX5_MKEY_LW, 190, buf, 4, true), ==,
                    MLX5_XLATE_BOUNDS);
    /* the piece is held while mapped */
    g_assert_cmpint(dealloc_memic(d, a, 192), ==, ST_BUSY);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_MKEY, 0, key >> 8, 0, out, 16), ==, 0);
    g_assert_cmpint(dealloc_memic(d, a, 128), ==, ST_PARAM);        /* not its size */
    g_assert_cmpint(dealloc_memic(d, a, 192), ==, 0);
    g_assert_cmpint(dealloc_memic(d, a, 192), ==, ST_PARAM);
    /* handed out again: zeroed */
    g_assert_cmpint(alloc_memic(d, base, 4096, 128, 0, &a), ==, 0);
    g_assert_cmphex(a, ==, base);
    g_assert_cmphex(tdrv_mmio_rd32(d, a + 4), ==, 0);
    g_assert_cmpint(dealloc_memic(d, a, 128), ==, 0);
    g_assert_cmpint(dealloc_memic(d, b, 64), ==, 0);
    g_assert_cmpint(dealloc_memic(d, c2, 4096), ==, 0);
    tdrv_free(d);
}

static int create_dct(TDrv *d, uint32_t pd, uint32_t cqn, uint32_t srqn, unsigned mtu,
                      unsigned port, uint32_t *dctn)
{
    uint8_t in[0x80] = { 0 }, out[16];
    uint8_t *dctc = in + DCT_DCTC_OFF;
    int r;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_DCT);
    MLX5_SET(dctc, DCTC_pd, pd);
    MLX5_SET(dctc, DCTC_cqn, cqn);
    MLX5_SET(dctc, DCTC_srqn_xrqn, srqn);
    MLX5_SET(dctc, DCTC_mtu, mtu);
    MLX5_SET(dctc, DCTC_port, port);
    MLX5_SET(dctc, DCTC_rwe, 1);
    MLX5_SET(dctc, DCTC_user_index, 0x1234);
    mlx5_st64(dctc + DCTC_dc_access_key_OFF, 0xfeedfacecafebeefull);
    r = tdrv_exec(d, in, sizeof(in), out, sizeof(out));
    if (r == 0 && dctn) {
        *dctn = MLX5_GET(out, CREATE_DCT_OUT_dctn);
    }
    return r;
}

/* DCTs: checked create, QP number space shared with QPs, QUERY, DRAIN with its event, DESTROY */
static void test_dct(void)
{
    TDrv *d = up();
    uint32_t pd = tdrv_alloc_pd(d), cqn = tdrv_create_cq(d, d->async_eqn, 4, NULL, NULL);
    uint32_t srqn, dctn, qpn;
    uint64_t eq_pa;
    uint8_t out[0x400], eqe[64];

    tdrv_create_eq(d, 1ull << MLX5_EVENT_TYPE_DCT_DRAINED, 4, 0, &eq_pa);
    g_assert_cmpint(tdrv_create_srq(d, pd, cqn, 4, 2, &srqn), ==, 0);
    g_assert_cmpint(create_dct(d, pd + 1, cqn, srqn, 3, 1, NULL), ==, ST_PARAM);   /* PD */
    g_assert_cmpint(create_dct(d, pd, cqn + 1, srqn, 3, 1, NULL), ==, ST_PARAM);   /* CQ */
    g_assert_cmpint(create_dct(d, pd, cqn, srqn + 1, 3, 1, NULL), ==, ST_PARAM);   /* SRQ */
    g_assert_cmpint(create_dct(d, pd, cqn, srqn, 0, 1, NULL), ==, ST_PARAM);       /* MTU */
    g_assert_cmpint(create_dct(d, pd, cqn, srqn, 3, 2, NULL), ==, ST_PARAM);       /* port */
    g_assert_cmpint(create_dct(d, pd, cqn, srqn, 3, 1, &dctn), ==, 0);
    g_assert_cmpint(tdrv_create_qp(d, MLX5_QP_ST_DCI, pd, cqn, srqn, &qpn), ==, 0);
    g_assert_cmpuint(qpn, !=, dctn);
    /* QP commands do not take a DCT, DCT commands do not take a QP */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_QP, 0, dctn, 0, out, sizeof(out)), ==,
                    ST_RES);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_DCT, 0, qpn, 0, out, sizeof(out)), ==,
                    ST_RES);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_DCT, 0, dctn, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(out + DCT_DCTC_OFF, DCTC_state), ==, MLX5_DCTC_STATE_ACTIVE);
    g_assert_cmphex(mlx5_ld64(out + DCT_DCTC_OFF + DCTC_dc_access_key_OFF), ==,
                    0xfeedfacecafebeefull);
    g_assert_cmphex(MLX5_GET(out + DCT_DCTC_OFF, DCTC_user_index), ==, 0x1234);
    /* its SRQ, CQ and PD are in use */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_SRQ, 0, srqn, 0, out, 16), ==, ST_BUSY);
    /* drain: the DCT_DRAINED event names it; draining twice is a state error */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DRAIN_DCT, 0, dctn, 0, out, 16), ==, 0);
    tdrv_eqe(d, eq_pa, 0, eqe);
    g_assert_cmpuint(eqe[MLX5_EQE_type], ==, MLX5_EVENT_TYPE_DCT_DRAINED);
    g_assert_cmphex(mlx5_ld32(eqe + 0x38) & 0xffffff, ==, dctn);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DRAIN_DCT, 0, dctn, 0, out, 16), ==,
                    MLX5_CMD_STAT_BAD_RES_STATE_ERR);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_DCT, 0, dctn, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(out + DCT_DCTC_OFF, DCTC_state), ==, MLX5_DCTC_STATE_DRAINED);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_QP, 0, dctn, 0, out, 16), ==, ST_RES);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_DCT, 0, dctn, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_DCT, 0, dctn, 0, out, 16), ==, ST_RES);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_QP, 0, qpn, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_SRQ, 0, srqn, 0, out, 16), ==, 0);
    tdrv_free(d);
}

static void test_srq(void)
{
    TDrv *d = up();
    uint32_t pd = tdrv_alloc_pd(d), cqn = tdrv_create_cq(d, d->async_eqn, 4, NULL, NULL);
    uint32_t srqn, qpn;
    uint8_t out[QUERY_SRQ_OUT_SIZE];

    g_assert_cmpint(tdrv_create_srq(d, pd, cqn, 4, 2, &srqn), ==, 0);
    g_assert_cmpint(tdrv_create_srq(d, pd, cqn, 4, 6, NULL), ==, ST_PARAM);        /* stride */
    g_assert_cmpint(tdrv_create_srq(d, pd, cqn, 8, 2, NULL), ==, ST_PARAM);        /* > 4 KiB */
    g_assert_cmpint(tdrv_create_srq(d, 0x555, cqn, 4, 2, NULL), ==, ST_PARAM);     /* PD */
    g_assert_cmpint(tdrv_create_srq(d, pd, 0x555, 4, 2, NULL), ==, ST_PARAM);      /* CQ */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_SRQ, 0, srqn, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(out + CREATE_SRQ_SRQC_OFF, SRQC_log_srq_size), ==, 4);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_ARM_RQ, 1, srqn, 4, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_ARM_RQ, 0, srqn, 4, out, 16), ==, ST_PARAM);
    /* a QP on the SRQ keeps it busy */
    g_assert_cmpint(tdrv_create_qp(d, MLX5_QP_ST_RC, pd, cqn, srqn, &qpn), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_SRQ, 0, srqn, 0, out, 16), ==, ST_BUSY);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_QP, 0, qpn, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_SRQ, 0, srqn, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_SRQ, 0, srqn, 0, out, 16), ==, ST_RES);
    tdrv_free(d);
}

static void test_qp_state_machine(void)
{
    TDrv *d = up();
    uint32_t pd = tdrv_alloc_pd(d), cqn = tdrv_create_cq(d, d->async_eqn, 4, NULL, NULL);
    uint8_t qpc[MLX5_QPC_SIZE] = { 0 }, out[QP_QPC_OFF + MLX5_QPC_SIZE];
    uint32_t qpn;

    g_assert_cmpint(tdrv_create_qp(d, MLX5_QP_ST_RC, pd, cqn, 0, &qpn), ==, 0);
    g_assert_cmpuint(qpn, >=, 2);
    /* RST -> RTR is illegal */
    g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_INIT2RTR_QP, qpn, qpc, 0), ==, ST_QPSTATE);
    /* RST2INIT needs port 1 */
    MLX5_SET(qpc + QPC_ADS_OFF, ADS_vhca_port_num, 2);
    g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_RST2INIT_QP, qpn, qpc, 0), ==, ST_PARAM);
    MLX5_SET(qpc + QPC_ADS_OFF, ADS_vhca_port_num, 1);
    MLX5_SET(qpc, QPC_rre, 1);
    g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_RST2INIT_QP, qpn, qpc, 0), ==, 0);
    /* INIT2RTR: mtu 6 is not an IB MTU */
    MLX5_SET(qpc, QPC_mtu, 6);
    MLX5_SET(qpc, QPC_remote_qpn, 0x1234);
    MLX5_SET(qpc + QPC_ADS_OFF, ADS_rlid, 7);
    g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_INIT2RTR_QP, qpn, qpc, 0), ==, ST_PARAM);
    MLX5_SET(qpc, QPC_mtu, 5);
    MLX5_SET(qpc, QPC_next_rcv_psn, 0x777);
    g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_INIT2RTR_QP, qpn, qpc, 0), ==, 0);
    MLX5_SET(qpc, QPC_next_send_psn, 0x555);
    MLX5_SET(qpc, QPC_retry_count, 7);
    g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_RTR2RTS_QP, qpn, qpc, 0), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_QP, 0, qpn, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(out + QP_QPC_OFF, QPC_state), ==, MLX5_QP_STATE_RTS);
    g_assert_cmphex(MLX5_GET(out + QP_QPC_OFF, QPC_remote_qpn), ==, 0x1234);
    g_assert_cmphex(MLX5_GET(out + QP_QPC_OFF, QPC_next_rcv_psn), ==, 0x777);
    g_assert_cmphex(MLX5_GET(out + QP_QPC_OFF, QPC_next_send_psn), ==, 0x555);
    g_assert_cmpuint(MLX5_GET(out + QP_QPC_OFF + QPC_ADS_OFF, ADS_rlid), ==, 7);
    g_assert_cmpuint(MLX5_GET(out + QP_QPC_OFF, QPC_rre), ==, 1);
    /* an optional field is only taken when flagged */
    MLX5_SET(qpc, QPC_min_rnr_nak, 12);
    MLX5_SET(qpc, QPC_rre, 0);
    g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_RTS2RTS_QP, qpn, qpc, MLX5_QP_OPTPAR_RNR_TIMEOUT),
                    ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_QP, 0, qpn, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(out + QP_QPC_OFF, QPC_min_rnr_nak), ==, 12);
    g_assert_cmpuint(MLX5_GET(out + QP_QPC_OFF, QPC_rre), ==, 1);
    /* to ERR and back to RST from anywhere; CQ busy while the QP exists */
    g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_2ERR_QP, qpn, NULL, 0), ==, 0);
    g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_RTS2RTS_QP, qpn, qpc, 0), ==, ST_QPSTATE);
    g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_2RST_QP, qpn, NULL, 0), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_CQ, 0, cqn, 0, out, 16), ==, ST_BUSY);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_QP, 0, qpn, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_2RST_QP, qpn, NULL, 0), ==, ST_RES);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_CQ, 0, cqn, 0, out, 16), ==, 0);
    tdrv_free(d);
}

static void test_qp_bad_create(void)
{
    TDrv *d = up();
    uint32_t pd = tdrv_alloc_pd(d), cqn = tdrv_create_cq(d, d->async_eqn, 4, NULL, NULL);
    uint32_t qpn, n = 0;

    g_assert_cmpint(tdrv_create_qp(d, MLX5_QP_ST_DCT, pd, cqn, 0, NULL), ==, ST_PARAM);
    g_assert_cmpint(tdrv_create_qp(d, 0xf, pd, cqn, 0, NULL), ==, ST_PARAM);
    g_assert_cmpint(tdrv_create_qp(d, MLX5_QP_ST_RC, 0x999, cqn, 0, NULL), ==, ST_PARAM);
    g_assert_cmpint(tdrv_create_qp(d, MLX5_QP_ST_RC, pd, 0x999, 0, NULL), ==, ST_PARAM);
    g_assert_cmpint(tdrv_create_qp(d, MLX5_QP_ST_RC, pd, cqn, 0x999, NULL), ==, ST_PARAM);
    /* special QPs of the GSI and SMI */
    g_assert_cmpint(tdrv_create_qp(d, MLX5_QP_ST_QP0, pd, cqn, 0, &qpn), ==, 0);
    g_assert_cmpint(tdrv_create_qp(d, MLX5_QP_ST_QP1, pd, cqn, 0, &qpn), ==, 0);
    tdrv_free(d);

    /* the QP table enforces exactly the advertised log_max_qp */
    {
        static const uint8_t mac[6] = { 0x52, 0x54, 0, 0, 0, 9 };
        Mlx5CoreConfig cfg;
        mlx5_core_config_default(&cfg, mac);
        cfg.log_max_qp = 4;
        d = tdrv_new_cfg(&cfg);
        tdrv_bringup(d);
        pd = tdrv_alloc_pd(d);
        cqn = tdrv_create_cq(d, d->async_eqn, 4, NULL, NULL);
        while (tdrv_create_qp(d, MLX5_QP_ST_UD, pd, cqn, 0, &qpn) == 0) {
            n++;
            g_assert_cmpuint(qpn, <, 16);
        }
        g_assert_cmpuint(n, ==, 14);    /* 16 minus the wire QP0/QP1 numbers */
        tdrv_free(d);
    }
}

static void test_mad_ifc(void)
{
    TDrv *d = up();
    uint8_t mad[MLX5_MAD_SIZE];
    const uint8_t *smp = mad + IB_SMP_data;
    uint8_t in[16] = { 0 }, out[MAD_IFC_SIZE];

    g_assert_cmpint(tdrv_mad(d, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 0, mad), ==, 0);
    g_assert_cmphex(mad[IB_MAD_method], ==, IB_MGMT_METHOD_GET_RESP);
    g_assert_cmphex(mlx5_ld16(mad + IB_MAD_status), ==, 0);
    g_assert_cmpuint(smp[2], ==, 1);                       /* CA */
    g_assert_cmphex(mlx5_ld64(smp + 12), ==, d->c->cfg.node_guid);
    g_assert_cmphex(mlx5_ld32(smp + 36) & 0xffffff, ==, MLX5_IEEE_VENDOR_ID);
    g_assert_cmphex(mlx5_ld16(smp + 30), ==, 0x1017);

    g_assert_cmpint(tdrv_mad(d, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO, 1, mad), ==, 0);
    g_assert_cmpuint(smp[32] & 0xf, ==, IB_PORT_STATE_ACTIVE);
    g_assert_cmpuint(smp[33] >> 4, ==, IB_PORT_PHYS_STATE_LINK_UP);
    g_assert_cmphex(mlx5_ld16(smp + 16), ==, d->c->cfg.lid);
    g_assert_cmpuint(smp[50], >=, 1);                      /* GUIDCap */

    g_assert_cmpint(tdrv_mad(d, IB_MGMT_METHOD_GET, IB_SMP_ATTR_GUID_INFO, 0, mad), ==, 0);
    g_assert_cmphex(mlx5_ld64(smp), ==, d->c->cfg.port_guid);
    g_assert_cmpint(tdrv_mad(d, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PKEY_TABLE, 0, mad), ==, 0);
    g_assert_cmphex(mlx5_ld16(smp), ==, 0xffff);
    g_assert_cmpint(tdrv_mad(d, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_DESC, 0, mad), ==, 0);
    g_assert_cmpstr((const char *)smp, ==, "qemu-mlx5 HCA-1");
    /* Mellanox ExtendedPortInfo: answered, no FDR10 (byte 15 bit 0: LinkSpeedActive) */
    g_assert_cmpint(tdrv_mad(d, IB_MGMT_METHOD_GET, IB_SMP_ATTR_EXT_PORT_INFO, 0, mad), ==, 0);
    g_assert_cmphex(mlx5_ld16(mad + IB_MAD_status), ==, 0);
    g_assert_cmphex(smp[15], ==, 0);
    /* unsupported attribute: command OK, MAD status "unsupported method/attribute" */
    g_assert_cmpint(tdrv_mad(d, IB_MGMT_METHOD_GET, 0xff01, 0, mad), ==, 0);
    g_assert_cmphex(mlx5_ld16(mad + IB_MAD_status), ==, 0x000c);
    g_assert_cmpint(tdrv_mad(d, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PKEY_TABLE, 5, mad), ==, 0);
    g_assert_cmphex(mlx5_ld16(mad + IB_MAD_status), ==, 0x001c);
    /* bad port */
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MAD_IFC);
    {
        uint8_t full[MAD_IFC_SIZE] = { 0 };
        memcpy(full, in, 16);
        MLX5_SET(full, MAD_IFC_IN_port, 2);
        g_assert_cmpint(tdrv_exec(d, full, sizeof(full), out, sizeof(out)), ==, ST_PARAM);
    }
    /* Set(PortInfo) from a local SM: new LID -> PORT_CHANGE(LID) on the async EQ */
    g_assert_cmpint(tdrv_mad(d, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO, 1, mad), ==, 0);
    mlx5_st16(mad + IB_SMP_data + 16, 0x42);
    mlx5_st16(mad + IB_SMP_data + 18, 0x1);
    g_assert_cmpint(tdrv_mad(d, IB_MGMT_METHOD_SET, IB_SMP_ATTR_PORT_INFO, 1, mad), ==, 0);
    g_assert_cmphex(mlx5_ld16(mad + IB_SMP_data + 16), ==, 0x42);
    g_assert_cmphex(mlx5_ld16(mad + IB_SMP_data + 18), ==, 0x1);
    {
        uint8_t eqe[64];
        tdrv_eqe(d, d->async_eq_pa, 0, eqe);
        g_assert_cmpuint(eqe[MLX5_EQE_type], ==, MLX5_EVENT_TYPE_PORT_CHANGE);
        g_assert_cmpuint(eqe[MLX5_EQE_sub_type], ==, MLX5_PORT_CHANGE_SUBTYPE_LID);
        g_assert_cmpuint(eqe[0x28] >> 4, ==, 1);
    }
    tdrv_free(d);
}

static void test_vport_and_link(void)
{
    TDrv *d = up();
    uint8_t out[QUERY_HCA_VPORT_CONTEXT_OUT_SIZE], eqe[64], mad[MLX5_MAD_SIZE];
    const uint8_t *ctx = out + HCA_VPORT_CTX_OFF;

    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT, 0, 0, 0, out,
                                sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(ctx, HCA_VPORT_CTX_port_state), ==, IB_PORT_STATE_ACTIVE);
    g_assert_cmpuint(MLX5_GET(ctx, HCA_VPORT_CTX_has_smi), ==, 1);
    g_assert_cmpuint(MLX5_GET(ctx, HCA_VPORT_CTX_grh_required), ==, 0);
    g_assert_cmphex(MLX5_GET(ctx, HCA_VPORT_CTX_lid), ==, d->c->cfg.lid);
    g_assert_cmphex(MLX5_GET64(ctx, HCA_VPORT_CTX_node_guid_OFF), ==, d->c->cfg.node_guid);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT, 0, 1u << 31, 0, out,
                                sizeof(out)), ==, ST_PARAM);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_VPORT_GID, 0, 0, 0, out, 0x20), ==, 0);
    g_assert_cmphex(mlx5_ld64(out + 0x18), ==, d->c->cfg.port_guid);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_VPORT_PKEY, 0, 0, 0, out, 0x14), ==, 0);
    g_assert_cmphex(mlx5_ld32(out + 0x10), ==, 0xffff);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_VPORT_PKEY, 0, 0, 99, out, 0x14), ==,
                    ST_PARAM);
    /* link down: DOWN event, PortInfo shows Down/Polling; link up again: ACTIVE event */
    mlx5_core_link_set_up(d->c, 1, false);
    tdrv_eqe(d, d->async_eq_pa, 0, eqe);
    g_assert_cmpuint(eqe[MLX5_EQE_sub_type], ==, MLX5_PORT_CHANGE_SUBTYPE_DOWN);
    g_assert_cmpint(tdrv_mad(d, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO, 1, mad), ==, 0);
    g_assert_cmpuint(mad[IB_SMP_data + 32] & 0xf, ==, IB_PORT_STATE_DOWN);
    g_assert_cmpuint(mad[IB_SMP_data + 33] >> 4, ==, IB_PORT_PHYS_STATE_POLLING);
    mlx5_core_link_set_up(d->c, 1, true);
    tdrv_eqe(d, d->async_eq_pa, 1, eqe);
    g_assert_cmpuint(eqe[MLX5_EQE_sub_type], ==, MLX5_PORT_CHANGE_SUBTYPE_ACTIVE);
    tdrv_free(d);
}

/* The device can be reset in any state and brought up again. */
static void test_reset_anywhere(void)
{
    for (int stop = 0; stop < 4; stop++) {
        TDrv *d = tdrv_new();
        if (stop >= 1) {
            tdrv_simple(d, MLX5_CMD_OP_ENABLE_HCA, 0, 0, 0, NULL, 0);
        }
        if (stop >= 2) {
            tdrv_free(d);
            d = up();
        }
        if (stop >= 3) {
            uint32_t pd = tdrv_alloc_pd(d);
            uint32_t cqn = tdrv_create_cq(d, d->async_eqn, 4, NULL, NULL);
            g_assert_cmpint(tdrv_create_qp(d, MLX5_QP_ST_RC, pd, cqn, 0, NULL), ==, 0);
        }
        mlx5_core_reset(d->c, MLX5_RESET_SYSTEM);
        g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ), ==, 0x56);
        g_assert_cmpuint(d->c->qps.count + d->c->cqs.count + d->c->eqs.count, ==, 0);
        d->events = false;
        d->cmd_eq_ci = 0;
        tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_H, d->cmdq_pa >> 32);
        tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ, (uint32_t)d->cmdq_pa);
        tdrv_bringup(d);
        tdrv_teardown(d);
        tdrv_free(d);
    }
}

static void test_config_check(void)
{
    static const uint8_t mac[6] = { 0x52, 0x54, 0, 0, 0, 0 };
    Mlx5CoreConfig cfg;

    mlx5_core_config_default(&cfg, mac);
    g_assert_cmpuint(cfg.lid, ==, 1);           /* LID 0 is invalid: mapped to 1 */
    g_assert_null(mlx5_core_config_check(&cfg));
    cfg.log_max_qp = 19;
    g_assert_nonnull(mlx5_core_config_check(&cfg));
    mlx5_core_config_default(&cfg, mac);
    cfg.lid = 0xc000;                           /* multicast range */
    g_assert_nonnull(mlx5_core_config_check(&cfg));
    mlx5_core_config_default(&cfg, mac);
    cfg.msix_vectors = 1;
    g_assert_nonnull(mlx5_core_config_check(&cfg));
    /* EUI-64 GUID from the MAC: U/L bit flipped, ff:fe in the middle */
    g_assert_cmphex(cfg.node_guid, ==, 0x505400fffe000000ull);
}

/* docs/prm-subset.md lists every command of the dispatch table (the docs cannot drift). */
static void test_docs_command_table(void)
{
    const char *names[256];
    uint16_t opcodes[256];
    const char *docs = getenv("MLX5_DOCS_DIR");
    g_autofree char *path = NULL, *text = NULL;
    size_t n, i;

    if (!docs) {
        g_test_skip("MLX5_DOCS_DIR not set");
        return;
    }
    path = g_build_filename(docs, "prm-subset.md", NULL);
    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    n = mlx5_cmd_table(names, opcodes, G_N_ELEMENTS(names));
    g_assert_cmpuint(n, <=, G_N_ELEMENTS(names));
    for (i = 0; i < n; i++) {
        g_autofree char *hex = g_strdup_printf("0x%x", opcodes[i]);
        /* the dispatch table is binary-searched: it must stay sorted by opcode */
        if (i) {
            g_assert_cmphex(opcodes[i - 1], <, opcodes[i]);
        }
        if (!strstr(text, names[i])) {
            g_test_message("command %s (%s) missing from %s", names[i], hex, path);
            g_test_fail();
        }
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/hca/bringup-reload", test_bringup_reload);
    g_test_add_func("/mlx5/hca/caps", test_caps);
    g_test_add_func("/mlx5/hca/set-hca-cap-bad", test_set_hca_cap_bad);
    g_test_add_func("/mlx5/hca/cong", test_cong);
    g_test_add_func("/mlx5/hca/issi-pages", test_issi_pages);
    g_test_add_func("/mlx5/hca/access-reg", test_access_reg);
    g_test_add_func("/mlx5/hca/config-check", test_config_check);
    g_test_add_func("/mlx5/res/simple-objects", test_simple_objects);
    g_test_add_func("/mlx5/eq/create-destroy", test_eq);
    g_test_add_func("/mlx5/cq/events", test_cq_events);
    g_test_add_func("/mlx5/cq/bad", test_cq_bad);
    g_test_add_func("/mlx5/cq/page-offset", test_cq_page_offset);
    g_test_add_func("/mlx5/mkey/create", test_mkey);
    g_test_add_func("/mlx5/mkey/memic", test_memic);
    g_test_add_func("/mlx5/srq/create", test_srq);
    g_test_add_func("/mlx5/qp/state-machine", test_qp_state_machine);
    g_test_add_func("/mlx5/qp/bad-create", test_qp_bad_create);
    g_test_add_func("/mlx5/dct", test_dct);
    g_test_add_func("/mlx5/port/mad-ifc", test_mad_ifc);
    g_test_add_func("/mlx5/port/vport-and-link", test_vport_and_link);
    g_test_add_func("/mlx5/reset/anywhere", test_reset_anywhere);
    g_test_add_func("/mlx5/docs/command-table", test_docs_command_table);
    return g_test_run();
}
