/*
 * Test support for an Ethernet port (link-type=eth): the objects mlx5e makes for one channel
 * and its queues, shared by the unit tests (test-mlx5-eth.c) and the eth fuzz target.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-testeth.h"
#include "hw/rdma/mlx5/mlx5_ste_prm.h"

TDrv *teth_node(const uint8_t *mac)
{
    Mlx5CoreConfig cfg;
    TDrv *d;

    mlx5_core_config_default(&cfg, mac);
    cfg.sm = false;
    cfg.eth = true;
    d = tdrv_new_cfg(&cfg);
    tdrv_bringup(d);
    mlx5_core_link_set_up(d->c, 1, true);
    return d;
}

uint32_t teth_obj_create(TDrv *d, uint16_t op, uint8_t *in, uint32_t inlen)
{
    uint8_t out[16];

    MLX5_SET(in, CMD_IN_opcode, op);
    g_assert_cmpint(tdrv_exec(d, in, inlen, out, sizeof(out)), ==, 0);
    return MLX5_GET(out, OBJ_OUT_handle);
}

void teth_wq_ctx(TEth *t, uint8_t *in, unsigned log_stride, unsigned log_sz, uint64_t buf,
                 uint64_t dbr)
{
    uint8_t *wq = in + OBJ_CTX_OFF + WQC_OFF;

    MLX5_SET(wq, WQ_wq_type, MLX5_WQ_TYPE_CYCLIC);
    MLX5_SET(wq, WQ_pd, t->pd);
    MLX5_SET(wq, WQ_uar_page, t->d->uar);
    MLX5_SET(wq, WQ_log_wq_stride, log_stride);
    MLX5_SET(wq, WQ_log_wq_sz, log_sz);
    MLX5_SET64(wq, WQ_dbr_addr_OFF, dbr);
    mlx5_st64(in + WQ_CREATE_PAS_OFF, buf);
}

int teth_modify_wq(TEth *t, uint16_t op, uint32_t n, uint8_t cur, uint8_t next)
{
    uint8_t in[WQ_CREATE_PAS_OFF] = { 0 }, out[16];

    MLX5_SET(in, CMD_IN_opcode, op);
    MLX5_SET(in, OBJ_IN_handle, n);
    MLX5_SET(in, OBJ_IN_state, cur);
    MLX5_SET(in + OBJ_CTX_OFF, SQC_state, next);      /* (the same bits in rqc) */
    return tdrv_exec(t->d, in, sizeof(in), out, sizeof(out));
}

void teth_setup(TEth *t, TDrv *d)
{
    teth_setup_comp(t, d, -1);
}

void teth_setup_comp(TEth *t, TDrv *d, int mini_fmt)
{
    teth_setup_ex(t, d, mini_fmt, 0, 0);
}

void teth_setup_ex(TEth *t, TDrv *d, int mini_fmt, unsigned wq_type, int log_strides)
{
    teth_setup_cqe(t, d, mini_fmt, wq_type, log_strides, MLX5_CQE_SZ_64);
}

uint64_t teth_cqe(const TEth *t, uint32_t idx)
{
    unsigned slot = t->cqe_sz == MLX5_CQE_SZ_64 ? 64 : 128;

    return t->cq_buf + (uint64_t)(idx & ((1u << LOG_CQ) - 1)) * slot + slot - 64;
}

void teth_setup_cqe(TEth *t, TDrv *d, int mini_fmt, unsigned wq_type, int log_strides,
                    unsigned cqe_sz)
{
    uint8_t in[0x400] = { 0 }, out[16];
    uint64_t eq_pa;
    uint32_t eqn;

    memset(t, 0, sizeof(*t));
    t->d = d;
    t->cqe_sz = cqe_sz;
    t->pd = tdrv_alloc_pd(t->d);
    t->key = create_pa_mkey(t->d, t->pd);
    g_assert_cmpint(tdrv_simple(t->d, MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, 0, 0, 0, out, 16),
                    ==, 0);
    t->td = MLX5_GET(out, ALLOC_OUT_handle);
    eqn = tdrv_create_eq(t->d, 0, 7, 1, &eq_pa);
    t->cqn = tdrv_create_cq_ex(t->d, eqn, LOG_CQ, &t->cq_buf, &t->cq_dbr, mini_fmt, cqe_sz);
    t->mem = fake_alloc(t->d->h, 64 * 1024, 4096);

    MLX5_SET(in + OBJ_CTX_OFF, TISC_transport_domain, t->td);
    t->tisn = teth_obj_create(t->d, MLX5_CMD_OP_CREATE_TIS, in, OBJ_CTX_OFF + TISC_SIZE);

    memset(in, 0, sizeof(in));
    t->rq_buf = fake_alloc(t->d->h, 4096, 4096);
    t->rq_dbr = fake_alloc(t->d->h, 64, 64);
    MLX5_SET(in + OBJ_CTX_OFF, RQC_cqn, t->cqn);
    teth_wq_ctx(t, in, 5, 4, t->rq_buf, t->rq_dbr);       /* 16 WQEs of 2 segments */
    if (wq_type) {
        /* striding: 16 WQEs (next and data segment) of 2^log_strides 64-byte strides */
        uint8_t *wq = in + OBJ_CTX_OFF + WQC_OFF;
        MLX5_SET(wq, WQ_wq_type, wq_type);
        MLX5_SET(wq, WQ_log_wqe_num_of_strides, (log_strides - 9) & 0xf);
        MLX5_SET(wq, WQ_log_wqe_stride_size, 0);
    }
    /* the ring starts 1 KiB into its page: page_offset counts page_size / 64 (64-byte units
     * of a 4 KiB page), as mlx5_ib quantizes user buffers (raw-packet QPs) */
    MLX5_SET(in + OBJ_CTX_OFF + WQC_OFF, WQ_page_offset, TETH_RQ_RING_OFF / 64);
    t->rqn = teth_obj_create(t->d, MLX5_CMD_OP_CREATE_RQ, in, WQ_CREATE_PAS_OFF + 8);
    g_assert_cmpint(teth_modify_wq(t, MLX5_CMD_OP_MODIFY_RQ, t->rqn, 0, 1), ==, 0);

    memset(in, 0, sizeof(in));
    t->sq_buf = fake_alloc(t->d->h, 4096, 4096);
    t->sq_dbr = fake_alloc(t->d->h, 64, 64);
    MLX5_SET(in + OBJ_CTX_OFF, SQC_cqn, t->cqn);
    MLX5_SET(in + OBJ_CTX_OFF, SQC_tis_lst_sz, 1);
    MLX5_SET(in + OBJ_CTX_OFF, SQC_tis_num_0, t->tisn);
    MLX5_SET(in + OBJ_CTX_OFF, SQC_flush_in_error_en, 1);
    teth_wq_ctx(t, in, 6, 6, t->sq_buf, t->sq_dbr);       /* 64 WQEBBs */
    t->sqn = teth_obj_create(t->d, MLX5_CMD_OP_CREATE_SQ, in, WQ_CREATE_PAS_OFF + 8);
    g_assert_cmpint(teth_modify_wq(t, MLX5_CMD_OP_MODIFY_SQ, t->sqn, 0, 1), ==, 0);

    memset(in, 0, sizeof(in));
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_transport_domain, t->td);
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_disp_type, MLX5_TIRC_DISP_DIRECT);
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_inline_rqn, t->rqn);
    t->tirn = teth_obj_create(t->d, MLX5_CMD_OP_CREATE_TIR, in, OBJ_CTX_OFF + TIRC_SIZE);

    memset(in, 0, sizeof(in));
    MLX5_SET(in + FT_CTX_OFF, FTC_level, 5);
    MLX5_SET(in + FT_CTX_OFF, FTC_log_size, 4);
    t->ft = teth_obj_create(t->d, MLX5_CMD_OP_CREATE_FLOW_TABLE, in, 0x40);

    memset(in, 0, sizeof(in));
    MLX5_SET(in, FT_IN_table_id, t->ft);
    MLX5_SET(in, FG_IN_start_flow_index, 0);
    MLX5_SET(in, FG_IN_end_flow_index, 7);
    MLX5_SET(in, FG_IN_match_criteria_enable, 1);
    memset(in + FG_IN_criteria_OFF + MS_dmac_47_16_OFF, 0xff, 6);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
    g_assert_cmpint(tdrv_exec(t->d, in, sizeof(in), out, sizeof(out)), ==, 0);
    t->fg = MLX5_GET(out, FG_OUT_group_id);

    {
        g_autofree uint8_t *fte = g_malloc0(FTE_CTX_OFF + FC_dest_OFF + 8);
        uint8_t *fc = fte + FTE_CTX_OFF;
        MLX5_SET(fte, CMD_IN_opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
        MLX5_SET(fte, FT_IN_table_id, t->ft);
        MLX5_SET(fte, FTE_IN_flow_index, 3);
        MLX5_SET(fc, FC_group_id, t->fg);
        MLX5_SET(fc, FC_flow_tag, 0x77);
        MLX5_SET(fc, FC_action, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST);
        MLX5_SET(fc, FC_destination_list_size, 1);
        memcpy(fc + FC_match_value_OFF + MS_dmac_47_16_OFF, d->c->eth->mac, 6);
        MLX5_SET(fc + FC_dest_OFF, DEST_type, MLX5_FLOW_DEST_TYPE_TIR);
        MLX5_SET(fc + FC_dest_OFF, DEST_id, t->tirn);
        g_assert_cmpint(tdrv_exec(t->d, fte, FTE_CTX_OFF + FC_dest_OFF + 8, out, 16), ==, 0);
        /* the same index again: taken */
        g_assert_cmpint(tdrv_exec(t->d, fte, FTE_CTX_OFF + FC_dest_OFF + 8, out, 16), ==,
                        MLX5_CMD_STAT_BAD_PARAM_ERR);
    }
    memset(in, 0, sizeof(in));
    MLX5_SET(in, FT_IN_table_id, t->ft);
    teth_obj_create(t->d, MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, in, 0x40);
}

void teth_post_recv(TEth *t, uint32_t len, uint64_t addr)
{
    uint8_t wqe[32] = { 0 };

    mlx5_st32(wqe, len | 0x80000000u);          /* (mlx5e's start-padding bit) */
    mlx5_st32(wqe + 4, t->key);
    mlx5_st64(wqe + 8, addr);
    mlx5_st32(wqe + 20, MLX5_INVALID_LKEY);     /* terminator */
    fake_write(t->d->h, t->rq_buf + TETH_RQ_RING_OFF + (t->rq_pi & 15) * 32, wqe, 32);
    t->rq_pi++;
    fake_wr32(t->d->h, t->rq_dbr, t->rq_pi);
}

void teth_post_mpwqe(TEth *t, uint16_t next, uint32_t bytes, uint64_t addr)
{
    uint8_t wqe[32] = { 0 };

    mlx5_st16(wqe + 2, next);
    mlx5_st32(wqe + 16, bytes);
    mlx5_st32(wqe + 20, t->key);
    mlx5_st64(wqe + 24, addr);
    fake_write(t->d->h, t->rq_buf + TETH_RQ_RING_OFF + (t->rq_pi & 15) * 32, wqe, 32);
    t->rq_pi++;
    fake_wr32(t->d->h, t->rq_dbr, t->rq_pi);
}

bool teth_poll_cqe(TEth *t, uint8_t *cqe)
{
    unsigned n = 1u << LOG_CQ;

    mlx5_core_run(t->d->c, 1000);
    fake_read(t->d->h, teth_cqe(t, t->cq_ci), cqe, 64);
    if ((cqe[63] >> 4) == MLX5_CQE_INVALID || (cqe[63] & 1) != ((t->cq_ci / n) & 1)) {
        return false;
    }
    t->cq_ci++;
    fake_wr32(t->d->h, t->cq_dbr, t->cq_ci & 0xffffff);
    return true;
}

uint8_t teth_fm_ce_se = MLX5_WQE_CTRL_CE_MASK;

void teth_post_send(TEth *t, uint8_t opcode, uint8_t cs, uint16_t mss, const uint8_t *hdr,
                    unsigned ihs, uint32_t dlen, uint64_t daddr, int force_ds)
{
    uint8_t wqe[256] = { 0 };
    unsigned inl_ds = ihs > 2 ? (ihs - 2 + 15) / 16 : 0;
    unsigned ds = 2 + inl_ds + (dlen ? 1 : 0), i, nbb;
    uint8_t *es = wqe + MLX5_ESEG_OFF;

    mlx5_st32(wqe, ((uint32_t)t->sq_pi << 8) | opcode);
    mlx5_st32(wqe + 4, (t->sqn << 8) | (force_ds >= 0 ? force_ds : ds));
    wqe[11] = teth_fm_ce_se;
    es[MLX5_ESEG_cs_flags] = cs;
    mlx5_st16(es + MLX5_ESEG_mss, mss);
    mlx5_st16(es + MLX5_ESEG_inline_sz, ihs);
    if (ihs) {
        memcpy(es + MLX5_ESEG_inline, hdr, ihs);
    }
    if (dlen) {
        data_seg(wqe + 16 * (2 + inl_ds), dlen, t->key, daddr);
    }
    nbb = MAX(1, ((force_ds >= 0 ? force_ds : ds) * 16 + 63) / 64);
    for (i = 0; i < nbb; i++) {
        fake_write(t->d->h, t->sq_buf + ((t->sq_pi + i) & 63) * 64, wqe + 64 * i, 64);
    }
    t->sq_pi += nbb;
    fake_wr32(t->d->h, t->sq_dbr + 4, t->sq_pi);
    mlx5_exec_sq_doorbell(t->d->c, (uint64_t)t->sqn << 8);
}

int teth_set_fte_cnt(TEth *t, uint32_t ft, uint32_t fg, uint32_t index, uint16_t sport,
                     uint16_t action, unsigned nd, const uint8_t *dt, const uint32_t *di,
                     unsigned nc, const uint32_t *cnt, uint16_t op_mod, uint8_t mask)
{
    g_autofree uint8_t *in = g_malloc0(FTE_CTX_OFF + FC_dest_OFF + 8 * 8);
    uint8_t *fc = in + FTE_CTX_OFF, out[16];
    unsigned i;

    g_assert_cmpuint(nd + nc, <=, 8);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
    MLX5_SET(in, FTE_IN_op_mod, op_mod);
    MLX5_SET(in, FTE_IN_modify_enable_mask, mask);
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in, FTE_IN_flow_index, index);
    MLX5_SET(fc, FC_group_id, fg);
    MLX5_SET(fc, FC_action, action);
    MLX5_SET(fc, FC_destination_list_size, nd);
    MLX5_SET(fc, FC_flow_counter_list_size, nc);
    MLX5_SET(fc + FC_match_value_OFF, MS_ip_protocol, 17);
    MLX5_SET(fc + FC_match_value_OFF, MS_udp_sport, sport);
    for (i = 0; i < nd; i++) {
        MLX5_SET(fc + FC_dest_OFF + 8 * i, DEST_type, dt[i]);
        MLX5_SET(fc + FC_dest_OFF + 8 * i, DEST_id, di[i]);
    }
    /* the counters after the destinations */
    for (i = 0; i < nc; i++) {
        mlx5_st32(fc + FC_dest_OFF + 8 * (nd + i), cnt[i]);
    }
    return tdrv_exec(t->d, in, FTE_CTX_OFF + FC_dest_OFF + 8 * 8, out, sizeof(out));
}

int teth_set_fte(TEth *t, uint32_t ft, uint32_t fg, uint32_t index, uint16_t sport,
                 uint16_t action, unsigned nd, const uint8_t *dt, const uint32_t *di,
                 uint16_t op_mod, uint8_t mask)
{
    return teth_set_fte_cnt(t, ft, fg, index, sport, action, nd, dt, di, 0, NULL, op_mod,
                            mask);
}

uint32_t teth_table(TDrv *d, unsigned type, unsigned level, uint64_t sw_root)
{
    uint8_t in[0x40] = { 0 }, out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_TABLE);
    MLX5_SET(in, FT_IN_table_type, type);
    MLX5_SET(in + FT_CTX_OFF, FTC_level, level);
    MLX5_SET(in + FT_CTX_OFF, FTC_log_size, 1);
    if (sw_root) {
        MLX5_SET(in + FT_CTX_OFF, FTC_sw_owner, 1);
        MLX5_SET64(in + FT_CTX_OFF, FTC_sw_owner_icm_root_0_OFF, sw_root);
    }
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, 0);
    return MLX5_GET(out, FT_OUT_table_id);
}

void teth_forward(TDrv *d, unsigned type, uint32_t ft, unsigned dest_type, uint32_t dest)
{
    uint8_t in[0x400] = { 0 }, out[16];
    uint32_t fg;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
    MLX5_SET(in, FT_IN_table_type, type);
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in, FG_IN_end_flow_index, 1);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, 0);
    fg = MLX5_GET(out, FG_OUT_group_id);
    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
    MLX5_SET(in, FT_IN_table_type, type);
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in + FTE_CTX_OFF, FC_group_id, fg);
    MLX5_SET(in + FTE_CTX_OFF, FC_action, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST);
    MLX5_SET(in + FTE_CTX_OFF, FC_destination_list_size, 1);
    MLX5_SET(in + FTE_CTX_OFF + FC_dest_OFF, DEST_type, dest_type);
    MLX5_SET(in + FTE_CTX_OFF + FC_dest_OFF, DEST_id, dest);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, 0);
}

void teth_root_to(TDrv *d, unsigned type, uint32_t to)
{
    uint32_t root = teth_table(d, type, 0, 0);
    uint8_t in[0x40] = { 0 };

    teth_forward(d, type, root, MLX5_FLOW_DEST_TYPE_FLOW_TABLE, to);
    MLX5_SET(in, FT_IN_table_type, type);
    MLX5_SET(in, FT_IN_table_id, root);
    teth_obj_create(d, MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, in, sizeof(in));
}

int teth_meter(TDrv *d, unsigned type, uint32_t dest, unsigned reg, unsigned cir_m,
               unsigned cir_e, unsigned ebs, uint32_t *id)
{
    uint8_t in[GOBJ_HDR_SIZE + METER_SIZE] = { 0 }, out[16] = { 0 };
    uint8_t *m = in + GOBJ_HDR_SIZE, *p = m + METER_PARAMS_OFF;
    int st;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
    MLX5_SET(in, GOBJ_IN_obj_type, MLX5_OBJ_TYPE_FLOW_METER);
    MLX5_SET(m, METER_active, 1);
    MLX5_SET(m, METER_return_reg_id, reg);
    MLX5_SET(m, METER_table_type, type);
    MLX5_SET(m, METER_destination_table_id, dest);
    MLX5_SET(p, FMP_valid, 1);
    MLX5_SET(p, FMP_bucket_overflow, 1);
    MLX5_SET(p, FMP_start_color, MLX5_METER_GREEN);
    MLX5_SET(p, FMP_cir_mantissa, cir_m);
    MLX5_SET(p, FMP_cir_exponent, cir_e);
    MLX5_SET(p, FMP_ebs_mantissa, ebs);
    st = tdrv_exec(d, in, sizeof(in), out, sizeof(out));
    *id = MLX5_GET(out, GOBJ_OUT_obj_id);
    return st;
}

int teth_icm_create(TDrv *d, uint16_t type, uint64_t start, unsigned log, uint32_t *id)
{
    uint8_t in[GOBJ_HDR_SIZE + SW_ICM_SIZE] = { 0 }, out[16] = { 0 };
    int st;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
    MLX5_SET(in, GOBJ_IN_obj_type, type);
    MLX5_SET(in + GOBJ_HDR_SIZE, SW_ICM_log_sw_icm_size, log);
    MLX5_SET64(in + GOBJ_HDR_SIZE, SW_ICM_start_addr_OFF, start);
    st = tdrv_exec(d, in, sizeof(in), out, sizeof(out));
    *id = MLX5_GET(out, GOBJ_OUT_obj_id);
    return st;
}

void teth_sw_fdb_in(uint8_t *in, uint64_t rx, uint64_t tx)
{
    memset(in, 0, 0x40);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_TABLE);
    MLX5_SET(in, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_FDB);
    MLX5_SET(in + FT_CTX_OFF, FTC_level, 1);
    MLX5_SET(in + FT_CTX_OFF, FTC_sw_owner, 1);
    MLX5_SET64(in + FT_CTX_OFF, FTC_sw_owner_icm_root_0_OFF, rx);
    MLX5_SET64(in + FT_CTX_OFF, FTC_sw_owner_icm_root_1_OFF, tx);
}

int teth_reformat(TDrv *d, unsigned type, const uint8_t *data, unsigned n, uint32_t *id)
{
    uint8_t in[0x100] = { 0 }, out[16] = { 0 };
    int st;

    g_assert_cmpuint(n, <=, sizeof(in) - REFORMAT_IN_data_OFF);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_ALLOC_PACKET_REFORMAT_CONTEXT);
    MLX5_SET(in, REFORMAT_IN_type, type);
    MLX5_SET(in, REFORMAT_IN_data_size, n);
    memcpy(in + REFORMAT_IN_data_OFF, data, n);
    st = tdrv_exec(d, in, REFORMAT_IN_data_OFF + n, out, sizeof(out));
    *id = MLX5_GET(out, REFORMAT_OUT_id);
    return st;
}

void teth_tunnel_hdr(uint8_t *hdr, const uint8_t *dmac, const uint8_t *smac, uint8_t proto)
{
    memcpy(hdr, dmac, 6);
    memcpy(hdr + 6, smac, 6);
    mlx5_st16(hdr + 12, 0x0800);
    hdr[14] = 0x45;
    hdr[22] = 64;
    hdr[23] = proto;
}
