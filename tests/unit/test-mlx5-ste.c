/*
 * Unit tests of software steering (sw-steering=on, an Ethernet port): the caps, SW ICM general
 * objects and their mkeys (mlx5_sw_icm.c), and the STE v0 engine (eth/mlx5_ste.c) walking
 * entries laid out as rdma-core's mlx5dv_dr writes them: hash tables, collision chains, anchors,
 * terminals, counters and flow tags, on receive and transmit; loops and stray addresses drop.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-testeth.h"
#include "hw/rdma/mlx5/mlx5_ste_prm.h"
#include "hw/rdma/mlx5/mlx5_qos_prm.h"

static const uint8_t my_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t peer_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };

#define BASE    MLX5_ICM_STEERING_BASE

static TDrv *ste_node(bool sw_steering)
{
    Mlx5CoreConfig cfg;
    TDrv *d;

    mlx5_core_config_default(&cfg, my_mac);
    cfg.sm = false;
    cfg.eth = true;
    cfg.sw_steering = sw_steering;
    d = tdrv_new_cfg(&cfg);
    tdrv_bringup(d);
    mlx5_core_link_set_up(d->c, 1, true);
    return d;
}

static int caps(TDrv *d, unsigned type, uint8_t *cap)
{
    return tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, type << 1 | 1, 0, 0, cap,
                       HCA_CAP_OFF + HCA_CAP_SIZE);
}

static int icm_destroy(TDrv *d, uint32_t id)
{
    uint8_t in[GOBJ_HDR_SIZE] = { 0 }, out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_DESTROY_GENERAL_OBJECT);
    MLX5_SET(in, GOBJ_IN_obj_type, MLX5_OBJ_TYPE_SW_ICM);
    MLX5_SET(in, GOBJ_IN_obj_id, id);
    return tdrv_exec(d, in, sizeof(in), out, sizeof(out));
}

/* An mkey of access mode SW_ICM over [start, start + len); the status, the key in *@key. */
static int icm_mkey(TDrv *d, uint32_t pd, uint64_t start, uint64_t len, uint32_t *key)
{
    uint8_t in[MLX5_PAS_OFF] = { 0 }, out[16] = { 0 };
    uint8_t *mkc = in + CREATE_MKEY_MKC_OFF;
    int st;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_MKEY);
    MLX5_SET(mkc, MKC_access_mode_4_2, MLX5_MKC_ACCESS_MODE_SW_ICM >> 2);
    MLX5_SET(mkc, MKC_access_mode_1_0, MLX5_MKC_ACCESS_MODE_SW_ICM & 3);
    MLX5_SET(mkc, MKC_lr, 1);
    MLX5_SET(mkc, MKC_lw, 1);
    MLX5_SET(mkc, MKC_rr, 1);
    MLX5_SET(mkc, MKC_rw, 1);
    MLX5_SET(mkc, MKC_pd, pd);
    MLX5_SET(mkc, MKC_qpn, 0xffffff);
    MLX5_SET(mkc, MKC_mkey_7_0, 0x77);
    MLX5_SET64(mkc, MKC_start_addr_OFF, start);
    MLX5_SET64(mkc, MKC_len_OFF, len);
    st = tdrv_exec(d, in, sizeof(in), out, sizeof(out));
    *key = (MLX5_GET(out, MKEY_IN_mkey_index) << 8) | 0x77;
    return st;
}

/*
 * The caps are offered only with sw-steering on an Ethernet port, as rdma-core's domains need
 * them; SW ICM objects are checked against the regions and each other, an mkey maps one
 * object's range and holds it, and an access through the mkey reaches ICM, zero based.
 */
static void test_icm(void)
{
    uint8_t cap[HCA_CAP_OFF + HCA_CAP_SIZE], *c = cap + HCA_CAP_OFF, buf[64], back[64];
    uint8_t in[GOBJ_HDR_SIZE] = { 0 }, out[GOBJ_HDR_SIZE + SW_ICM_SIZE];
    uint32_t id, id2, key, bad, pd;
    TDrv *d = ste_node(false);

    g_assert_cmpint(caps(d, MLX5_CAP_FLOW_TABLE, cap), ==, 0);
    g_assert_cmpint(MLX5_GET(c, FT_CAP_nic_rx_sw_owner), ==, 0);
    g_assert_cmpint(teth_icm_create(d, MLX5_OBJ_TYPE_SW_ICM, BASE, 16, &id), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    tdrv_free(d);

    d = ste_node(true);
    g_assert_cmpint(caps(d, MLX5_CAP_FLOW_TABLE, cap), ==, 0);
    g_assert_cmpint(MLX5_GET(c, FT_CAP_nic_rx_sw_owner), ==, 1);
    g_assert_cmpint(MLX5_GET(c, FT_CAP_nic_tx_sw_owner), ==, 1);
    g_assert_cmphex(mlx5_ld64(c + FT_CAP_sw_steering_nic_rx_action_drop_icm_address_OFF), ==,
                    mlx5_icm_term(MLX5_ICM_T_RX_DROP, 0));
    g_assert_cmphex(mlx5_ld64(c + FT_CAP_sw_steering_nic_tx_action_allow_icm_address_OFF), ==,
                    mlx5_icm_term(MLX5_ICM_T_TX_ALLOW, 0));
    g_assert_cmpint(caps(d, MLX5_CAP_DEV_MEM, cap), ==, 0);
    g_assert_cmphex(mlx5_ld64(c + DEV_MEM_CAP_steering_sw_icm_start_address_OFF), ==, BASE);
    /* rdma-core's minimums: 2^26 of STEs, 2^15 of header-modify actions */
    g_assert_cmpint(MLX5_GET(c, DEV_MEM_CAP_log_steering_sw_icm_size), >=, 26);
    g_assert_cmpint(MLX5_GET(c, DEV_MEM_CAP_log_header_modify_sw_icm_size), >=, 15);
    g_assert_cmpint(caps(d, MLX5_CAP_GENERAL, cap), ==, 0);
    g_assert_true(mlx5_ld64(c + CAP_general_obj_types_OFF) & (1ull << MLX5_OBJ_TYPE_SW_ICM));
    g_assert_cmpint(MLX5_GET(c, CAP_device_memory), ==, 1);
    g_assert_cmpint(caps(d, MLX5_CAP_ROCE, cap), ==, 0);
    g_assert_cmpint(MLX5_GET(c, ROCE_CAP_fl_rc_qp_when_roce_enabled), ==, 1);

    /* objects: in a region, page aligned, not overlapping; other types are not offered */
    g_assert_cmpint(teth_icm_create(d, MLX5_OBJ_TYPE_SW_ICM, BASE, 16, &id), ==, 0);
    g_assert_cmpint(teth_icm_create(d, MLX5_OBJ_TYPE_SW_ICM, BASE + 0x8000, 12, &bad), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(teth_icm_create(d, MLX5_OBJ_TYPE_SW_ICM, BASE + 0x10800, 12, &bad), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(teth_icm_create(d, MLX5_OBJ_TYPE_SW_ICM, 0x1000, 12, &bad), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(teth_icm_create(d, MLX5_OBJ_TYPE_SW_ICM,
                               BASE + (1ull << MLX5_ICM_LOG_STEERING) - 0x1000, 13, &bad), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(teth_icm_create(d, 0x20, BASE + 0x20000, 12, &bad), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(teth_icm_create(d, MLX5_OBJ_TYPE_SW_ICM, MLX5_ICM_MODHDR_BASE, 12, &id2), ==, 0);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_QUERY_GENERAL_OBJECT);
    MLX5_SET(in, GOBJ_IN_obj_type, MLX5_OBJ_TYPE_SW_ICM);
    MLX5_SET(in, GOBJ_IN_obj_id, id);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, 0);
    g_assert_cmphex(mlx5_ld64(out + GOBJ_HDR_SIZE + SW_ICM_start_addr_OFF), ==, BASE);
    g_assert_cmpint(MLX5_GET(out + GOBJ_HDR_SIZE, SW_ICM_log_sw_icm_size), ==, 16);

    /* an mkey maps a range of one object, zero based, and holds it */
    pd = tdrv_alloc_pd(d);
    g_assert_cmpint(icm_mkey(d, pd, BASE + 0x8000, 0x10000, &bad), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(icm_mkey(d, pd, BASE + 0x1000, 0x2000, &key), ==, 0);
    for (unsigned i = 0; i < sizeof(buf); i++) {
        buf[i] = i ^ 0x5a;
    }
    g_assert_cmpint(mlx5_mkey_copy(d->c, key, UINT32_MAX, MLX5_MKEY_RW, 0x40, buf, 64, true),
                    ==, 0);
    g_assert_cmpint(mlx5_icm_rw(d->c, BASE + 0x1040, back, 64, false), ==, 0);
    g_assert_cmpmem(back, 64, buf, 64);
    g_assert_cmpint(mlx5_mkey_copy(d->c, key, UINT32_MAX, MLX5_MKEY_RR, 0x1fc0, back, 65,
                                   false), !=, 0);
    g_assert_cmpint(icm_destroy(d, id), ==, MLX5_CMD_STAT_RES_BUSY);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_MKEY, 0, key >> 8, 0, out, 16), ==, 0);
    g_assert_cmpint(icm_destroy(d, id), ==, 0);
    /* a new object reads zero where the old one was written */
    g_assert_cmpint(teth_icm_create(d, MLX5_OBJ_TYPE_SW_ICM, BASE, 16, &id), ==, 0);
    g_assert_cmpint(mlx5_icm_rw(d->c, BASE + 0x1040, back, 64, false), ==, 0);
    g_assert_cmpint(back[0] | back[63], ==, 0);
    g_assert_cmpint(icm_destroy(d, id2), ==, 0);
    g_assert_cmpint(icm_destroy(d, id2), ==, MLX5_CMD_STAT_BAD_RES_ERR);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_SYNC_STEERING, 0, 0, 0, out, 16), ==, 0);
    tdrv_free(d);
}

/* The hash is rdma-core's: its dr_crc32_slice8_calc() gives these (computed from its source). */
static void test_hash(void)
{
    uint8_t t1[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
    uint8_t t2[16] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
    uint8_t t3[16], k[16];

    for (unsigned i = 0; i < 16; i++) {
        t3[i] = i * 17 + 3;
    }
    g_assert_cmphex(mlx5_ste_crc32(t1, 16), ==, 0xda84ac51);
    g_assert_cmphex(mlx5_ste_crc32(t2, 16), ==, 0xa3fa2e46);
    g_assert_cmphex(mlx5_ste_crc32(t3, 16), ==, 0xd7c05d8f);
    /* the byte mask selects the key bytes (bit 15: byte 0); one entry or no mask: entry 0 */
    memcpy(k, t1, 16);
    k[6] = 0x99;
    g_assert_cmpuint(mlx5_ste_hash(k, 0xfc00, 1024), ==, 0xda84ac51 % 1024);
    g_assert_cmpuint(mlx5_ste_hash(k, 0xfc00, 1), ==, 0);
    g_assert_cmpuint(mlx5_ste_hash(k, 0, 1024), ==, 0);
}

/* ---- entries, as mlx5dv_dr lays them out ---------------------------------------------- */

static void ste_hit(uint8_t *s, uint64_t addr, uint32_t n, unsigned next_lu, uint16_t bm)
{
    uint64_t v = (addr >> 5) | n;

    MLX5_SET(s, STE_next_table_base_39_32_size, v >> 27);
    MLX5_SET(s, STE_next_table_base_31_5_size, v);
    MLX5_SET(s, STE_next_lu_type, next_lu);
    MLX5_SET(s, STE_byte_mask, bm);
}

static void ste_miss(uint8_t *s, uint64_t addr)
{
    MLX5_SET(s, STE_miss_address_39_32, addr >> 32);
    MLX5_SET(s, STE_miss_address_31_6, addr >> 6);
}

static void ste_put(TDrv *d, uint64_t addr, const uint8_t *s)
{
    g_assert_cmpint(mlx5_icm_rw(d->c, addr, (void *)s, MLX5_STE_SIZE, true), ==, 0);
}

/* An always-miss entry (tag 0xdc, no mask) to @miss. */
static void ste_always_miss(TDrv *d, uint64_t addr, unsigned type, uint64_t miss)
{
    uint8_t s[MLX5_STE_SIZE] = { 0 };

    MLX5_SET(s, STE_entry_type, type);
    MLX5_SET(s, STE_entry_sub_type, MLX5_STE_LU_DONT_CARE);
    MLX5_SET(s, STE_next_lu_type, MLX5_STE_LU_DONT_CARE);
    s[MLX5_STE_TAG_OFF] = 0xdc;
    ste_miss(s, miss);
    ste_put(d, addr, s);
}

/* A match on source MAC @smac (lookup @lu): hit to @hit (one entry), miss to @miss. */
static void ste_smac(TDrv *d, uint64_t addr, unsigned type, unsigned lu, const uint8_t *smac,
                     uint64_t hit, uint64_t miss, uint32_t counter, uint32_t tag)
{
    uint8_t s[MLX5_STE_SIZE] = { 0 };

    MLX5_SET(s, STE_entry_type, type);
    MLX5_SET(s, STE_entry_sub_type, lu);
    ste_hit(s, hit, 1, MLX5_STE_LU_DONT_CARE, 0);
    ste_miss(s, miss);
    if (type == MLX5_STE_TYPE_RX) {
        MLX5_SET(s, STE_RX_counter_trigger_15_0, counter);
        if (tag) {
            MLX5_SET(s, STE_RX_qp_list_pointer, MLX5_STE_FLOW_TAG_EN | tag);
        }
    } else {
        MLX5_SET(s, STE_RX_counter_trigger_15_0, counter);   /* (the same bits) */
    }
    MLX5_SET(s, STE_counter_trigger_23_16, counter >> 16);
    memcpy(s + MLX5_STE_TAG_OFF, smac, 6);
    memset(s + MLX5_STE_MASK_OFF, 0xff, 6);
    ste_put(d, addr, s);
}

/* The table anchor: always hit to the hash table at @htbl of @n entries, SMAC lookups. */
static void ste_anchor(TDrv *d, uint64_t addr, unsigned type, unsigned lu, uint64_t htbl,
                       uint32_t n)
{
    uint8_t s[MLX5_STE_SIZE] = { 0 };

    MLX5_SET(s, STE_entry_type, type);
    MLX5_SET(s, STE_entry_sub_type, MLX5_STE_LU_DONT_CARE);
    ste_hit(s, htbl, n, lu, 0xfc00);
    ste_put(d, addr, s);
}

/* The hash table entry of source MAC @smac in a table of @n (lookup @lu's key). */
static uint32_t smac_index(const uint8_t *smac, unsigned lu, uint32_t n)
{
    uint8_t ms[MLX5_FTE_MATCH_PARAM_SIZE] = { 0 }, key[16];

    memcpy(ms + MS_smac_47_16_OFF, smac, 6);
    g_assert_true(mlx5_ste_key(lu, ms, key));
    return mlx5_ste_hash(key, 0xfc00, n);
}

/* A flow table of @type, software owned from @root (0: a firmware table); its id. QUERY_FLOW_TABLE
 * gives the root, or a firmware table's anchor, in *@anchor. */
static uint32_t sw_table(TDrv *d, unsigned type, uint64_t root, uint64_t *anchor)
{
    uint8_t in[0x40] = { 0 }, qout[FT_CTX_OFF + 0x28] = { 0 };
    uint32_t ft = teth_table(d, type, root ? 126 : 63, root);

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_QUERY_FLOW_TABLE);
    MLX5_SET(in, FT_IN_table_type, type);
    MLX5_SET(in, FT_IN_table_id, ft);
    g_assert_cmpint(tdrv_exec(d, in, 0x18, qout, sizeof(qout)), ==, 0);
    g_assert_cmpint(MLX5_GET(qout + FT_CTX_OFF, FTC_sw_owner), ==, root != 0);
    *anchor = mlx5_ld64(qout + FT_CTX_OFF + FTC_sw_owner_icm_root_0_OFF);
    g_assert_cmphex(*anchor, ==, root ? root : mlx5_icm_term(MLX5_ICM_T_FT, ft));
    return ft;
}

/* A UDP frame from @smac to @dmac. */
static size_t frame(uint8_t *f, const uint8_t *dmac, const uint8_t *smac)
{
    memset(f, 0, 64);
    memcpy(f, dmac, 6);
    memcpy(f + 6, smac, 6);
    mlx5_st16(f + 12, 0x0800);
    f[14] = 0x45;
    mlx5_st16(f + 16, 20 + 8 + 22);
    f[22] = 64;
    f[23] = 17;
    mlx5_st16(f + 34, 4000);
    mlx5_st16(f + 36, 5000);
    mlx5_st16(f + 38, 8 + 22);
    return 64;
}

/* Receive a frame from @smac to @dmac: the CQEs it made; the last one's flow tag in *@tag. */
static unsigned rx(TEth *t, const uint8_t *dmac, const uint8_t *smac, uint32_t *tag)
{
    uint8_t f[64], cqe[64];
    size_t len = frame(f, dmac, smac);
    unsigned n = 0;

    teth_post_recv(t, 2048, t->mem);
    teth_post_recv(t, 2048, t->mem + 2048);
    g_assert_true(mlx5_core_link_rx(t->d->c, 1, f, len));
    while (teth_poll_cqe(t, cqe)) {
        g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
        *tag = mlx5_ld32(cqe + MLX5_CQE_sop_drop_qpn) & 0xffffff;
        n++;
    }
    t->rq_pi -= 2 - n;
    fake_wr32(t->d->h, t->rq_dbr, t->rq_pi);
    return n;
}

static uint64_t fc_packets(TEth *t, uint32_t id)
{
    uint8_t in[0x20] = { 0 }, out[QUERY_FC_OUT_STATS_OFF + 16] = { 0 };

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_QUERY_FLOW_COUNTER);
    MLX5_SET(in, QUERY_FC_IN_flow_counter_id, id);
    g_assert_cmpint(tdrv_exec(t->d, in, sizeof(in), out, sizeof(out)), ==, 0);
    return mlx5_ld64(out + QUERY_FC_OUT_STATS_OFF);
}

/*
 * A receive table as test_tbl_qp_rule and test_dest_array build it: the anchor hits a
 * 4-entry SMAC hash table; rule A (counter, flow tag) goes to the TIR, rule B (the same hash
 * entry, in a collision chain behind A) to a firmware table (the MAC table: the TIR again);
 * every miss ends at the matcher's end anchor, which misses to the RX drop.
 */
static void test_walk_rx(void)
{
    const uint64_t anchor = BASE, htbl = BASE + 0x1000, coll = BASE + 0x2000,
                   end = BASE + 0x2040, loop = BASE + 0x3000;
    uint8_t a[6] = { 0x02, 0xaa, 0, 0, 0, 1 }, b[6] = { 0x02, 0xbb, 0, 0, 0, 0 };
    uint8_t other[6] = { 0x02, 0xcc, 0, 0, 0, 9 }, in[16] = { 0 }, out[16];
    uint32_t id, fc, ia, tag = 0, sw, fw;
    uint64_t fw_anchor, sw_root;
    unsigned i, drops;
    TEth t;

    teth_setup(&t, ste_node(true));
    g_assert_cmpint(teth_icm_create(t.d, MLX5_OBJ_TYPE_SW_ICM, BASE, 16, &id), ==, 0);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_ALLOC_FLOW_COUNTER);
    g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), out, sizeof(out)), ==, 0);
    fc = MLX5_GET(out, ALLOC_FC_OUT_flow_counter_id);

    /* a firmware table (a copy of the MAC table's forward) and the software table */
    fw = sw_table(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, 0, &fw_anchor);
    sw = sw_table(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, anchor, &sw_root);
    (void)sw;
    /* B hashes to A's entry: find such a MAC */
    ia = smac_index(a, MLX5_STE_LU_ETHL2_SRC_D, 4);
    while (smac_index(b, MLX5_STE_LU_ETHL2_SRC_D, 4) != ia) {
        b[5]++;
    }
    g_assert_cmpuint(smac_index(other, MLX5_STE_LU_ETHL2_SRC_D, 4), !=, ia);
    ste_anchor(t.d, anchor, MLX5_STE_TYPE_RX, MLX5_STE_LU_ETHL2_SRC_D, htbl, 4);
    for (i = 0; i < 4; i++) {
        ste_always_miss(t.d, htbl + 64 * i, MLX5_STE_TYPE_RX, end);
    }
    ste_smac(t.d, htbl + 64 * ia, MLX5_STE_TYPE_RX, MLX5_STE_LU_ETHL2_SRC_D, a,
             mlx5_icm_term(MLX5_ICM_T_TIR, t.tirn), coll, fc, 0x123);
    ste_smac(t.d, coll, MLX5_STE_TYPE_RX, MLX5_STE_LU_ETHL2_SRC_D, b, fw_anchor, end, 0, 0);
    ste_always_miss(t.d, end, MLX5_STE_TYPE_RX, mlx5_icm_term(MLX5_ICM_T_RX_DROP, 0));

    /* the firmware table forwards to the channel's TIR; a software-owned table takes no group */
    teth_forward(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, fw, MLX5_FLOW_DEST_TYPE_TIR, t.tirn);
    {
        uint8_t fin[0x400] = { 0 };

        MLX5_SET(fin, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
        MLX5_SET(fin, FT_IN_table_id, sw);
        MLX5_SET(fin, FG_IN_end_flow_index, 1);
        g_assert_cmpint(tdrv_exec(t.d, fin, sizeof(fin), out, 16), ==,
                        MLX5_CMD_STAT_BAD_PARAM_ERR);
    }
    teth_root_to(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, sw);

    g_assert_cmpuint(rx(&t, my_mac, a, &tag), ==, 1);
    g_assert_cmphex(tag, ==, 0x123);
    g_assert_cmpuint(fc_packets(&t, fc), ==, 1);
    g_assert_cmpuint(rx(&t, my_mac, b, &tag), ==, 1);
    g_assert_cmphex(tag, ==, 0);
    g_assert_cmpuint(fc_packets(&t, fc), ==, 1);
    g_assert_cmpuint(rx(&t, my_mac, other, &tag), ==, 0);       /* the default: drop */

    /* hostile entries: a miss chain that loops, a hit to nowhere, an unknown entry type */
    drops = trace_count("mlx5_ste_drop");
    ste_smac(t.d, coll, MLX5_STE_TYPE_RX, MLX5_STE_LU_ETHL2_SRC_D, b, fw_anchor, loop, 0, 0);
    ste_always_miss(t.d, loop, MLX5_STE_TYPE_RX, loop);
    g_assert_cmpuint(rx(&t, my_mac, other, &tag), ==, 0);
    g_assert_cmpuint(rx(&t, my_mac, peer_mac, &tag), ==, 0);
    ste_smac(t.d, htbl + 64 * ia, MLX5_STE_TYPE_RX, MLX5_STE_LU_ETHL2_SRC_D, a,
             BASE + 0x100000, coll, 0, 0);
    g_assert_cmpuint(rx(&t, my_mac, a, &tag), ==, 0);
    ste_smac(t.d, htbl + 64 * ia, 0xf, MLX5_STE_LU_ETHL2_SRC_D, a,
             mlx5_icm_term(MLX5_ICM_T_TIR, t.tirn), coll, 0, 0);
    g_assert_cmpuint(rx(&t, my_mac, a, &tag), ==, 0);
    g_assert_cmpuint(trace_count("mlx5_ste_drop"), >, drops);
    /* the loop ended: B (in the chain) still arrives once the chain is mended */
    ste_smac(t.d, htbl + 64 * ia, MLX5_STE_TYPE_RX, MLX5_STE_LU_ETHL2_SRC_D, a,
             mlx5_icm_term(MLX5_ICM_T_TIR, t.tirn), coll, fc, 0x123);
    ste_smac(t.d, coll, MLX5_STE_TYPE_RX, MLX5_STE_LU_ETHL2_SRC_D, b, fw_anchor, end, 0, 0);
    g_assert_cmpuint(rx(&t, my_mac, b, &tag), ==, 1);
    tdrv_free(t.d);
}

/*
 * Transmit: a software NIC TX root (as test_tbl_drop_action's TX side): frames from one source
 * MAC hit the TX drop, the others miss to the TX allow and go out.
 */
static void test_walk_tx(void)
{
    const uint64_t anchor = BASE, htbl = BASE + 0x1000;
    uint8_t drop_mac[6] = { 0x02, 0xdd, 0, 0, 0, 1 }, f[64], cqe[64];
    uint32_t id, sw, idx;
    uint64_t root;
    unsigned before;
    TEth t;

    teth_setup(&t, ste_node(true));
    g_assert_cmpint(teth_icm_create(t.d, MLX5_OBJ_TYPE_SW_ICM, BASE, 16, &id), ==, 0);
    sw = sw_table(t.d, MLX5_FLOW_TABLE_TYPE_NIC_TX, anchor, &root);
    idx = smac_index(drop_mac, MLX5_STE_LU_ETHL2_SRC_O, 1);
    g_assert_cmpuint(idx, ==, 0);
    ste_anchor(t.d, anchor, MLX5_STE_TYPE_TX, MLX5_STE_LU_ETHL2_SRC_O, htbl, 1);
    ste_smac(t.d, htbl, MLX5_STE_TYPE_TX, MLX5_STE_LU_ETHL2_SRC_O, drop_mac,
             mlx5_icm_term(MLX5_ICM_T_TX_DROP, 0), mlx5_icm_term(MLX5_ICM_T_TX_ALLOW, 0),
             0, 0);
    teth_root_to(t.d, MLX5_FLOW_TABLE_TYPE_NIC_TX, sw);

    for (int dropped = 0; dropped < 2; dropped++) {
        frame(f, peer_mac, dropped ? drop_mac : my_mac);
        fake_write(t.d->h, t.mem + 8192, f + 42, 22);
        before = t.d->h->tx->len;
        teth_post_send(&t, MLX5_OPCODE_SEND, 0, 0, f, 42, 22, t.mem + 8192, -1);
        g_assert_true(teth_poll_cqe(&t, cqe));
        g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
        g_assert_cmpuint(t.d->h->tx->len - before, ==, dropped ? 0 : 1);
    }
    tdrv_free(t.d);
}

/* A v0 rewrite action: SET/ADD (@op 2/3) of @n bits at @shift of container @hw to @data. */
static void v0_act(uint8_t *a, unsigned op, unsigned hw, unsigned shift, unsigned n,
                   uint32_t data)
{
    a[0] = op;
    a[1] = hw;
    a[2] = shift;
    a[3] = n == 32 ? 0 : n;
    mlx5_st32(a + 4, data);
}

/* A rule entry of @type on lookup @lu, key @tag/@mask (@klen bytes), hit to @hit (@n entries,
 * then lookup @next_lu over byte mask @bm), miss to @miss. */
static void ste_rule(uint8_t *s, unsigned type, unsigned lu, const uint8_t *tag, unsigned klen,
                     uint64_t hit, uint32_t n, unsigned next_lu, uint16_t bm, uint64_t miss)
{
    memset(s, 0, MLX5_STE_SIZE);
    MLX5_SET(s, STE_entry_type, type);
    MLX5_SET(s, STE_entry_sub_type, lu);
    ste_hit(s, hit, n, next_lu, bm);
    ste_miss(s, miss);
    memcpy(s + MLX5_STE_TAG_OFF, tag, klen);
    memset(s + MLX5_STE_MASK_OFF, 0xff, klen);
}

/* The frame the channel's RQ received last (at t->mem): its length. */
static size_t rx_frame(TEth *t, const uint8_t *f, size_t len, uint8_t *got)
{
    uint8_t cqe[64];
    size_t n = 0;

    teth_post_recv(t, 2048, t->mem);
    g_assert_true(mlx5_core_link_rx(t->d->c, 1, f, len));
    while (teth_poll_cqe(t, cqe)) {
        g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
        n = mlx5_ld32(cqe + MLX5_CQE_byte_cnt);
        fake_read(t->d->h, t->mem, got, MIN(n, 256));
    }
    if (!n) {
        t->rq_pi--;
        fake_wr32(t->d->h, t->rq_dbr, t->rq_pi);
    }
    return n;
}

/*
 * Actions on receive, as test_metadata_modify_action_set_copy_match and
 * test_packet_reformat_l3_gre use them: a modify-packet rule rewrites the source MAC, takes 1
 * off the TTL (the IPv4 checksum follows), sets reg_c_0 and copies its low half into reg_c_1,
 * and goes to a second table that matches reg_c_0 (the register persists within the walk);
 * an L3 tunnel decap rule replaces the outer headers up to the inner IP packet with the
 * Ethernet header its list builds.
 */
static void test_actions_rx(void)
{
    const uint64_t a1 = BASE, h1 = BASE + 0x1000, a2 = BASE + 0x2000, h2 = BASE + 0x3000;
    const uint64_t drop = mlx5_icm_term(MLX5_ICM_T_RX_DROP, 0);
    uint8_t smac_a[6] = { 0x02, 0xaa, 0, 0, 0, 1 }, smac_d[6] = { 0x02, 0xdd, 0, 0, 0, 4 };
    uint8_t new_smac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
    uint8_t acts[8 * 8], s[MLX5_STE_SIZE], f[128], got[256];
    uint32_t id, mid, sw;
    uint64_t root;
    size_t len;
    TEth t;

    teth_setup(&t, ste_node(true));
    g_assert_cmpint(teth_icm_create(t.d, MLX5_OBJ_TYPE_SW_ICM, BASE, 16, &id), ==, 0);
    g_assert_cmpint(teth_icm_create(t.d, MLX5_OBJ_TYPE_SW_ICM, MLX5_ICM_MODHDR_BASE, 12, &mid), ==,
                    0);
    sw = sw_table(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, a1, &root);
    teth_root_to(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, sw);

    /* table 1: the anchor hits a 2-entry SMAC table */
    ste_anchor(t.d, a1, MLX5_STE_TYPE_RX, MLX5_STE_LU_ETHL2_SRC_D, h1, 2);
    ste_always_miss(t.d, h1, MLX5_STE_TYPE_RX, drop);
    ste_always_miss(t.d, h1 + 64, MLX5_STE_TYPE_RX, drop);
    /* rule A: rewrite list at header-modify index 1 (64 bytes in), then table 2 */
    v0_act(acts, 2, 0x01, 16, 32, mlx5_ld32(new_smac));
    v0_act(acts + 8, 2, 0x01, 0, 16, mlx5_ld16(new_smac + 4));
    v0_act(acts + 16, 3, 0x04, 8, 8, 0xff);                     /* TTL - 1 */
    v0_act(acts + 24, 2, 0x0c, 32, 32, 0xcafe0001);             /* reg_c_0 */
    acts[32] = 1;                                               /* COPY reg_c_0 15:0 */
    acts[33] = 0x0c;                                            /* to reg_c_1 15:0 */
    acts[34] = 0;
    acts[35] = 16;
    mlx5_st32(acts + 36, 0x000c2000);                           /* from REG_0 bit 32 */
    g_assert_cmpint(mlx5_icm_rw(t.d->c, MLX5_ICM_MODHDR_BASE + 64, acts, 40, true), ==, 0);
    ste_rule(s, MLX5_STE_TYPE_MODIFY_PKT, MLX5_STE_LU_ETHL2_SRC_D, smac_a, 6, a2, 1,
             MLX5_STE_LU_DONT_CARE, 0, drop);
    MLX5_SET(s, STE_MOD_number_of_re_write_actions, 5);
    MLX5_SET(s, STE_MOD_header_re_write_actions_pointer, 1);
    ste_put(t.d, h1 + 64 * smac_index(smac_a, MLX5_STE_LU_ETHL2_SRC_D, 2), s);
    /* table 2: registers reg_c_0 == 0xcafe0001 and reg_c_1 == 0x0001 go to the TIR */
    ste_anchor(t.d, a2, MLX5_STE_TYPE_RX, MLX5_STE_LU_STEERING_REGISTERS_0, h2, 1);
    {
        uint8_t k[8] = { 0xca, 0xfe, 0x00, 0x01, 0, 0, 0, 1 };
        ste_rule(s, MLX5_STE_TYPE_RX, MLX5_STE_LU_STEERING_REGISTERS_0, k, 8,
                 mlx5_icm_term(MLX5_ICM_T_TIR, t.tirn), 1, MLX5_STE_LU_DONT_CARE, 0, drop);
        ste_put(t.d, h2, s);
    }

    len = frame(f, my_mac, smac_a);
    mlx5_st16(f + 24, ~ib_csum_fold(ib_csum_add(0, f + 14, 20)));
    g_assert_cmpuint(rx_frame(&t, f, len, got), ==, len);
    g_assert_cmpmem(got + 6, 6, new_smac, 6);
    g_assert_cmpint(got[22], ==, 63);
    g_assert_cmphex(ib_csum_fold(ib_csum_add(0, got + 14, 20)), ==, 0xffff);
    /* another value in reg_c_0: table 2 misses, the frame is dropped */
    v0_act(acts + 24, 2, 0x0c, 32, 32, 0xcafe0002);
    g_assert_cmpint(mlx5_icm_rw(t.d->c, MLX5_ICM_MODHDR_BASE + 64, acts, 40, true), ==, 0);
    g_assert_cmpuint(rx_frame(&t, f, len, got), ==, 0);

    /* rule D (in the other entry): L3 decap of Ethernet / IPv4 / GRE (IPv4) / IPv4 / UDP */
    while (smac_index(smac_d, MLX5_STE_LU_ETHL2_SRC_D, 2) ==
           smac_index(smac_a, MLX5_STE_LU_ETHL2_SRC_D, 2)) {
        smac_d[5]++;
    }
    {
        static const uint8_t new_dmac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
        uint8_t inner[64];
        size_t il = frame(inner, my_mac, smac_d) - 14;

        memmove(inner, inner + 14, il);
        len = frame(f, my_mac, smac_d);
        f[23] = 47;                                             /* GRE */
        mlx5_st16(f + 16, 20 + 4 + il);
        mlx5_st16(f + 34, 0);                                   /* GRE: no flags */
        mlx5_st16(f + 36, 0x0800);                              /* IPv4 inside */
        memcpy(f + 38, inner, il);
        len = 38 + il;
        v0_act(acts, 2, 0x00, 16, 32, mlx5_ld32(new_dmac));
        v0_act(acts + 8, 2, 0x01, 16, 32, 0x02777777);
        v0_act(acts + 16, 2, 0x00, 0, 16, mlx5_ld16(new_dmac + 4));
        v0_act(acts + 24, 2, 0x02, 32, 16, 0x0800);
        v0_act(acts + 32, 2, 0x01, 0, 16, 0x7777);
        g_assert_cmpint(mlx5_icm_rw(t.d->c, MLX5_ICM_MODHDR_BASE + 128, acts, 40, true), ==,
                        0);
        ste_rule(s, MLX5_STE_TYPE_MODIFY_PKT, MLX5_STE_LU_ETHL2_SRC_D, smac_d, 6,
                 mlx5_icm_term(MLX5_ICM_T_TIR, t.tirn), 1, MLX5_STE_LU_DONT_CARE, 0, drop);
        MLX5_SET(s, STE_RX_tunneling_action, 3);
        MLX5_SET(s, STE_MOD_number_of_re_write_actions, 5);
        MLX5_SET(s, STE_MOD_header_re_write_actions_pointer, 2);
        ste_put(t.d, h1 + 64 * smac_index(smac_d, MLX5_STE_LU_ETHL2_SRC_D, 2), s);
        g_assert_cmpuint(rx_frame(&t, f, len, got), ==, 14 + il);
        g_assert_cmpmem(got, 6, new_dmac, 6);
        g_assert_cmpmem(got + 6, 6, "\x02\x77\x77\x77\x77\x77", 6);
        g_assert_cmphex(mlx5_ld16(got + 12), ==, 0x0800);
        g_assert_cmpmem(got + 14, il, inner, il);
    }
    tdrv_free(t.d);
}

/*
 * Actions on transmit (test_push_vlan, test_packet_reformat_l3_gre): a VLAN push puts the tag
 * after the MACs; an L3 encap with a reformat context of type L2_TO_L3_TUNNEL replaces the
 * Ethernet header with the context's (Ethernet / IPv4 / GRE), the IPv4 length filled in.
 */
static void test_actions_tx(void)
{
    const uint64_t anchor = BASE, htbl = BASE + 0x1000;
    const uint64_t allow = mlx5_icm_term(MLX5_ICM_T_TX_ALLOW, 0);
    uint8_t vmac[6] = { 0x02, 0x0a, 0, 0, 0, 1 }, emac[6] = { 0x02, 0x0e, 0, 0, 0, 2 };
    uint8_t s[MLX5_STE_SIZE], f[64], cqe[64], hdr[38] = { 0 };
    uint32_t id, sw, rid;
    uint64_t root;
    TEth t;

    teth_setup(&t, ste_node(true));
    g_assert_cmpint(teth_icm_create(t.d, MLX5_OBJ_TYPE_SW_ICM, BASE, 16, &id), ==, 0);
    sw = sw_table(t.d, MLX5_FLOW_TABLE_TYPE_NIC_TX, anchor, &root);
    teth_root_to(t.d, MLX5_FLOW_TABLE_TYPE_NIC_TX, sw);
    /* the L3 tunnel header: Ethernet, IPv4 (GRE), GRE carrying IPv4 */
    teth_tunnel_hdr(hdr, peer_mac, my_mac, 47);
    mlx5_st16(hdr + 36, 0x0800);
    g_assert_cmpint(teth_reformat(t.d, MLX5_REFORMAT_TYPE_L2_TO_L3_TUNNEL, hdr, sizeof(hdr),
                                  &rid), ==, 0);

    ste_anchor(t.d, anchor, MLX5_STE_TYPE_TX, MLX5_STE_LU_ETHL2_SRC_O, htbl, 2);
    ste_always_miss(t.d, htbl, MLX5_STE_TYPE_TX, allow);
    ste_always_miss(t.d, htbl + 64, MLX5_STE_TYPE_TX, allow);
    g_assert_cmpuint(smac_index(vmac, MLX5_STE_LU_ETHL2_SRC_O, 2), !=,
                     smac_index(emac, MLX5_STE_LU_ETHL2_SRC_O, 2));
    ste_rule(s, MLX5_STE_TYPE_TX, MLX5_STE_LU_ETHL2_SRC_O, vmac, 6, allow, 1,
             MLX5_STE_LU_DONT_CARE, 0, allow);
    MLX5_SET(s, STE_TX_action_type, 1);
    MLX5_SET(s, STE_TX_encap_pointer_vlan_data, 0x81002005);
    ste_put(t.d, htbl + 64 * smac_index(vmac, MLX5_STE_LU_ETHL2_SRC_O, 2), s);
    ste_rule(s, MLX5_STE_TYPE_TX, MLX5_STE_LU_ETHL2_SRC_O, emac, 6, allow, 1,
             MLX5_STE_LU_DONT_CARE, 0, allow);
    MLX5_SET(s, STE_TX_action_type, 3);
    MLX5_SET(s, STE_TX_action_description, sizeof(hdr) / 2);
    MLX5_SET(s, STE_TX_encap_pointer_vlan_data, rid);
    ste_put(t.d, htbl + 64 * smac_index(emac, MLX5_STE_LU_ETHL2_SRC_O, 2), s);

    for (int k = 0; k < 2; k++) {
        const GByteArray *w;

        frame(f, peer_mac, k ? emac : vmac);
        fake_write(t.d->h, t.mem + 8192, f + 42, 22);
        teth_post_send(&t, MLX5_OPCODE_SEND, 0, 0, f, 42, 22, t.mem + 8192, -1);
        g_assert_true(teth_poll_cqe(&t, cqe));
        g_assert_cmpuint(t.d->h->tx->len, >=, 1);
        w = g_ptr_array_index(t.d->h->tx, t.d->h->tx->len - 1);
        if (!k) {
            g_assert_cmpuint(w->len, >=, 68);
            g_assert_cmphex(mlx5_ld32(w->data + 12), ==, 0x81002005);
            g_assert_cmpmem(w->data + 16, 48, f + 12, 48);
        } else {
            g_assert_cmpuint(w->len, >=, sizeof(hdr) + 50);
            g_assert_cmpmem(w->data, 14, hdr, 14);
            g_assert_cmpuint(mlx5_ld16(w->data + 16), ==, 20 + 4 + 50);
            g_assert_cmpmem(w->data + sizeof(hdr), 50, f + 14, 50);
        }
    }
    tdrv_free(t.d);
}

/* CREATE_UCTX: a DevX user's uid. */
static uint16_t uctx(TDrv *d)
{
    uint8_t in[0x20] = { 0 }, out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_UCTX);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, 0);
    return MLX5_GET(out, CREATE_UCTX_OUT_uid);
}

/*
 * DevX users are kept apart: a user's SW ICM object is its own (another user neither queries
 * nor destroys it), and a walk of a user's software table reads only ICM, counters and
 * destinations of that user or the kernel: a root in another user's ICM drops the frame, and
 * another user's flow counter does not count.
 */
static void test_uid(void)
{
    const uint64_t mine = BASE + 0x10000, htbl = mine + 0x1000;
    uint8_t in[GOBJ_HDR_SIZE + SW_ICM_SIZE] = { 0 }, out[GOBJ_HDR_SIZE + SW_ICM_SIZE];
    uint8_t smac[6] = { 0x02, 0xab, 0, 0, 0, 1 }, fin[0x40] = { 0 };
    uint32_t ida, idb, fc_a, fc_b, tb_other, tb_mine, tag = 0;
    uint16_t a, b;
    TEth t;

    teth_setup(&t, ste_node(true));
    a = uctx(t.d);
    b = uctx(t.d);
    /* A's block at BASE, B's after it */
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
    MLX5_SET(in, CMD_IN_uid, a);
    MLX5_SET(in, GOBJ_IN_obj_type, MLX5_OBJ_TYPE_SW_ICM);
    MLX5_SET(in + GOBJ_HDR_SIZE, SW_ICM_log_sw_icm_size, 16);
    MLX5_SET64(in + GOBJ_HDR_SIZE, SW_ICM_start_addr_OFF, BASE);
    g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), out, sizeof(out)), ==, 0);
    ida = MLX5_GET(out, GOBJ_OUT_obj_id);
    MLX5_SET(in, CMD_IN_uid, b);
    MLX5_SET64(in + GOBJ_HDR_SIZE, SW_ICM_start_addr_OFF, mine);
    g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), out, sizeof(out)), ==, 0);
    idb = MLX5_GET(out, GOBJ_OUT_obj_id);
    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_uid, b);
    MLX5_SET(in, GOBJ_IN_obj_type, MLX5_OBJ_TYPE_SW_ICM);
    MLX5_SET(in, GOBJ_IN_obj_id, ida);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_QUERY_GENERAL_OBJECT);
    g_assert_cmpint(tdrv_exec(t.d, in, GOBJ_HDR_SIZE, out, sizeof(out)), ==,
                    MLX5_CMD_STAT_BAD_RES_ERR);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_DESTROY_GENERAL_OBJECT);
    g_assert_cmpint(tdrv_exec(t.d, in, GOBJ_HDR_SIZE, out, 16), ==, MLX5_CMD_STAT_BAD_RES_ERR);
    MLX5_SET(in, GOBJ_IN_obj_id, idb);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_QUERY_GENERAL_OBJECT);
    g_assert_cmpint(tdrv_exec(t.d, in, GOBJ_HDR_SIZE, out, sizeof(out)), ==, 0);

    /* counters: one of A's, one of B's */
    memset(fin, 0, sizeof(fin));
    MLX5_SET(fin, CMD_IN_opcode, MLX5_CMD_OP_ALLOC_FLOW_COUNTER);
    MLX5_SET(fin, CMD_IN_uid, a);
    g_assert_cmpint(tdrv_exec(t.d, fin, 16, out, 16), ==, 0);
    fc_a = MLX5_GET(out, ALLOC_FC_OUT_flow_counter_id);
    MLX5_SET(fin, CMD_IN_uid, b);
    g_assert_cmpint(tdrv_exec(t.d, fin, 16, out, 16), ==, 0);
    fc_b = MLX5_GET(out, ALLOC_FC_OUT_flow_counter_id);

    /* B's entries, in A's ICM and in its own: an SMAC rule to the (kernel's) TIR */
    ste_anchor(t.d, BASE, MLX5_STE_TYPE_RX, MLX5_STE_LU_ETHL2_SRC_D, BASE + 0x1000, 1);
    ste_smac(t.d, BASE + 0x1000, MLX5_STE_TYPE_RX, MLX5_STE_LU_ETHL2_SRC_D, smac,
             mlx5_icm_term(MLX5_ICM_T_TIR, t.tirn), mlx5_icm_term(MLX5_ICM_T_RX_DROP, 0), fc_b,
             0);
    ste_anchor(t.d, mine, MLX5_STE_TYPE_RX, MLX5_STE_LU_ETHL2_SRC_D, htbl, 1);
    ste_smac(t.d, htbl, MLX5_STE_TYPE_RX, MLX5_STE_LU_ETHL2_SRC_D, smac,
             mlx5_icm_term(MLX5_ICM_T_TIR, t.tirn), mlx5_icm_term(MLX5_ICM_T_RX_DROP, 0), fc_b,
             0);
    memset(fin, 0, sizeof(fin));
    MLX5_SET(fin, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_TABLE);
    MLX5_SET(fin, CMD_IN_uid, b);
    MLX5_SET(fin + FT_CTX_OFF, FTC_level, 126);
    MLX5_SET(fin + FT_CTX_OFF, FTC_sw_owner, 1);
    MLX5_SET64(fin + FT_CTX_OFF, FTC_sw_owner_icm_root_0_OFF, BASE);
    g_assert_cmpint(tdrv_exec(t.d, fin, sizeof(fin), out, 16), ==, 0);
    tb_other = MLX5_GET(out, FT_OUT_table_id);
    MLX5_SET64(fin + FT_CTX_OFF, FTC_sw_owner_icm_root_0_OFF, mine);
    g_assert_cmpint(tdrv_exec(t.d, fin, sizeof(fin), out, 16), ==, 0);
    tb_mine = MLX5_GET(out, FT_OUT_table_id);

    teth_root_to(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, tb_other);
    g_assert_cmpuint(rx(&t, my_mac, smac, &tag), ==, 0);       /* A's ICM: dropped */
    teth_root_to(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, tb_mine);
    g_assert_cmpuint(rx(&t, my_mac, smac, &tag), ==, 1);
    g_assert_cmpuint(fc_packets(&t, fc_b), ==, 1);
    /* A's counter in B's rule: the frame passes, the counter stays */
    ste_smac(t.d, htbl, MLX5_STE_TYPE_RX, MLX5_STE_LU_ETHL2_SRC_D, smac,
             mlx5_icm_term(MLX5_ICM_T_TIR, t.tirn), mlx5_icm_term(MLX5_ICM_T_RX_DROP, 0), fc_a,
             0);
    g_assert_cmpuint(rx(&t, my_mac, smac, &tag), ==, 1);
    g_assert_cmpuint(fc_packets(&t, fc_a), ==, 0);
    tdrv_free(t.d);
}

/* A rule on reg_c_3 == @color: hit to @hit counting into @fc, miss to @miss. */
static void ste_color(TDrv *d, uint64_t addr, uint32_t color, uint64_t hit, uint64_t miss,
                      uint32_t fc)
{
    uint8_t s[MLX5_STE_SIZE], k[16] = { 0 };

    mlx5_st32(k + 12, color);
    ste_rule(s, MLX5_STE_TYPE_RX, MLX5_STE_LU_STEERING_REGISTERS_0, k, 16, hit, 1,
             MLX5_STE_LU_DONT_CARE, 0, miss);
    memset(s + MLX5_STE_MASK_OFF, 0, 12);
    MLX5_SET(s, STE_RX_counter_trigger_15_0, fc);
    MLX5_SET(s, STE_counter_trigger_23_16, fc >> 16);
    ste_put(d, addr, s);
}

/*
 * The flow meter, as test_flow_meter's receive side uses it: a rule sends every frame to the
 * meter, which colours it into reg_c_3 and goes on in a second table that counts green and red
 * frames and passes the green ones. At 15.625 MB/s with buckets of 0 bytes a 64-byte frame
 * conforms every 4.096 us: of frames at one instant the first is green, the rest red (an
 * excess bucket of 0 is off). The caps offer the meter's registers; a meter on a register
 * not offered, a table type without software steering or another type's table is refused, as
 * is a MODIFY of a field it does not let change; a meter made inactive colours everything green.
 */
static void test_meter(void)
{
    const uint64_t a1 = BASE, a2 = BASE + 0x1000, h2 = BASE + 0x2000, red = BASE + 0x2040;
    const uint64_t drop = mlx5_icm_term(MLX5_ICM_T_RX_DROP, 0);
    uint8_t cap[HCA_CAP_OFF + HCA_CAP_SIZE], s[MLX5_STE_SIZE], k[16] = { 0 };
    uint8_t smac[6] = { 0x02, 0xaa, 0, 0, 0, 1 }, in[GOBJ_HDR_SIZE + METER_SIZE] = { 0 };
    uint8_t out[GOBJ_HDR_SIZE + METER_SIZE], fin[16] = { 0 };
    uint32_t id, mid, t1, t2, ftx, fc[2], tag = 0;
    uint64_t root;
    unsigned i, got;
    TEth t;

    teth_setup(&t, ste_node(true));
    g_assert_cmpint(caps(t.d, MLX5_CAP_QOS, cap), ==, 0);
    g_assert_cmpuint(MLX5_GET(cap + HCA_CAP_OFF, QOS_CAP_flow_meter_old), ==, 1);
    g_assert_cmphex(MLX5_GET(cap + HCA_CAP_OFF, QOS_CAP_flow_meter_reg_id), ==, 0x38);
    g_assert_cmpint(teth_icm_create(t.d, MLX5_OBJ_TYPE_SW_ICM, BASE, 16, &id), ==, 0);
    for (i = 0; i < 2; i++) {
        MLX5_SET(fin, CMD_IN_opcode, MLX5_CMD_OP_ALLOC_FLOW_COUNTER);
        g_assert_cmpint(tdrv_exec(t.d, fin, sizeof(fin), out, 16), ==, 0);
        fc[i] = MLX5_GET(out, ALLOC_FC_OUT_flow_counter_id);
    }
    t1 = sw_table(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, a1, &root);
    t2 = sw_table(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, a2, &root);
    ftx = teth_table(t.d, MLX5_FLOW_TABLE_TYPE_NIC_TX, 63, 0);
    g_assert_cmpint(teth_meter(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, t2, 1, 1, 6, 0, &mid), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(teth_meter(t.d, MLX5_FLOW_TABLE_TYPE_FDB, t2, 3, 1, 6, 0, &mid), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(teth_meter(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, ftx, 3, 1, 6, 0, &mid), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(teth_meter(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, t2, 3, 1, 6, 0, &mid), ==, 0);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_QUERY_GENERAL_OBJECT);
    MLX5_SET(in, GOBJ_IN_obj_type, MLX5_OBJ_TYPE_FLOW_METER);
    MLX5_SET(in, GOBJ_IN_obj_id, mid);
    g_assert_cmpint(tdrv_exec(t.d, in, GOBJ_HDR_SIZE, out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(out + GOBJ_HDR_SIZE, METER_return_reg_id), ==, 3);
    g_assert_cmphex(mlx5_ld64(out + GOBJ_HDR_SIZE + METER_icm_rx_OFF), ==,
                    mlx5_icm_term(MLX5_ICM_T_METER, mid));

    /* table 1: everything to the meter; table 2: green to the TIR, red to the drop, counted */
    ste_rule(s, MLX5_STE_TYPE_RX, MLX5_STE_LU_DONT_CARE, k, 0,
             mlx5_icm_term(MLX5_ICM_T_METER, mid), 1, MLX5_STE_LU_DONT_CARE, 0, drop);
    ste_put(t.d, a1, s);
    ste_anchor(t.d, a2, MLX5_STE_TYPE_RX, MLX5_STE_LU_STEERING_REGISTERS_0, h2, 1);
    ste_color(t.d, h2, MLX5_METER_GREEN, mlx5_icm_term(MLX5_ICM_T_TIR, t.tirn), red, fc[0]);
    ste_color(t.d, red, MLX5_METER_RED, drop, drop, fc[1]);
    teth_root_to(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, t1);

    for (got = i = 0; i < 4; i++) {
        got += rx(&t, my_mac, smac, &tag);
    }
    g_assert_cmpuint(got, ==, 1);
    g_assert_cmpuint(fc_packets(&t, fc[0]), ==, 1);
    g_assert_cmpuint(fc_packets(&t, fc[1]), ==, 3);
    /* 4.096 us later one more frame's worth: green, then red; 2 us later still red */
    t.d->h->now += 4096;
    g_assert_cmpuint(rx(&t, my_mac, smac, &tag), ==, 1);
    g_assert_cmpuint(rx(&t, my_mac, smac, &tag), ==, 0);
    t.d->h->now += 2000;
    g_assert_cmpuint(rx(&t, my_mac, smac, &tag), ==, 0);
    g_assert_cmpuint(fc_packets(&t, fc[1]), ==, 5);
    /* a long pause: the bucket holds no more than its size, one frame green again */
    t.d->h->now += 1000000;
    g_assert_cmpuint(rx(&t, my_mac, smac, &tag), ==, 1);
    g_assert_cmpuint(rx(&t, my_mac, smac, &tag), ==, 0);
    g_assert_cmpuint(fc_packets(&t, fc[0]), ==, 3);
    g_assert_cmpuint(fc_packets(&t, fc[1]), ==, 6);

    /* MODIFY: inactive, every frame green */
    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MODIFY_GENERAL_OBJECT);
    MLX5_SET(in, GOBJ_IN_obj_type, MLX5_OBJ_TYPE_FLOW_METER);
    MLX5_SET(in, GOBJ_IN_obj_id, mid);
    MLX5_SET(in + GOBJ_HDR_SIZE, METER_modify_field_select_31_0, 1u << 5);
    g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    MLX5_SET(in + GOBJ_HDR_SIZE, METER_modify_field_select_31_0, MLX5_METER_MODIFY_ACTIVE);
    g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), out, 16), ==, 0);
    for (got = i = 0; i < 3; i++) {
        got += rx(&t, my_mac, smac, &tag);
    }
    g_assert_cmpuint(got, ==, 3);
    /* gone: its frames are dropped */
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_DESTROY_GENERAL_OBJECT);
    g_assert_cmpint(tdrv_exec(t.d, in, GOBJ_HDR_SIZE, out, 16), ==, 0);
    g_assert_cmpuint(rx(&t, my_mac, smac, &tag), ==, 0);
    g_assert_cmpuint(fc_packets(&t, fc[1]), ==, 6);
    tdrv_free(t.d);
}

/*
 * GENEVE's header through the flex parser (a ConnectX-5's default profile): the caps offer it
 * (flex_parser_protocols, the NIC RX ft_field_support bits rdma-core checks), a GENEVE frame's
 * match set has its option length, OAM bit, protocol type and VNI (what root tables match), and
 * the FLEX_PARSER_TNL_HEADER lookup's key is them (software tables); another UDP frame has none.
 */
static void test_geneve(void)
{
    uint8_t cap[HCA_CAP_OFF + HCA_CAP_SIZE], f[80] = { 0 }, ms[MLX5_FTE_MATCH_PARAM_SIZE], key[16];
    TDrv *d = ste_node(true);
    size_t len = frame(f, peer_mac, my_mac) + 16;
    IbEthHdr h;

    g_assert_cmpint(caps(d, MLX5_CAP_GENERAL, cap), ==, 0);
    g_assert_cmphex(MLX5_GET(cap + HCA_CAP_OFF, CAP_flex_parser_protocols), ==,
                    MLX5_FLEX_PROTO_GENEVE);
    g_assert_cmpint(caps(d, MLX5_CAP_FLOW_TABLE, cap), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_outer_geneve_vni), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_outer_geneve_oam), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_outer_geneve_protocol_type), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_outer_geneve_opt_len), ==, 1);
    /* UDP to 6081: GENEVE with 2 words of options, OAM, protocol TEB, VNI 0x123456 */
    mlx5_st16(f + 36, MLX5_GENEVE_PORT);
    f[42] = 2;
    f[43] = 0x80;
    mlx5_st16(f + 44, 0x6558);
    mlx5_st32(f + 46, 0x123456 << 8);
    g_assert_true(ib_eth_parse(f, len, &h));
    mlx5_eth_match_set(d->c->eth, f, len, &h, ms);
    g_assert_cmpint(MLX5_GET(ms, MS_geneve_opt_len), ==, 2);
    g_assert_cmpint(MLX5_GET(ms, MS_geneve_oam), ==, 1);
    g_assert_cmphex(MLX5_GET(ms, MS_geneve_protocol_type), ==, 0x6558);
    g_assert_cmphex(MLX5_GET(ms, MS_geneve_vni), ==, 0x123456);
    g_assert_true(mlx5_ste_key(MLX5_STE_LU_FLEX_PARSER_TNL_HEADER, ms, key));
    g_assert_cmpint(MLX5_GET(key, STE_GENEVE_opt_len), ==, 2);
    g_assert_cmpint(MLX5_GET(key, STE_GENEVE_oam), ==, 1);
    g_assert_cmphex(MLX5_GET(key, STE_GENEVE_protocol_type), ==, 0x6558);
    g_assert_cmphex(MLX5_GET(key, STE_GENEVE_vni), ==, 0x123456);
    mlx5_st16(f + 36, 5000);
    g_assert_true(ib_eth_parse(f, len, &h));
    mlx5_eth_match_set(d->c->eth, f, len, &h, ms);
    g_assert_cmphex(MLX5_GET(ms, MS_geneve_vni), ==, 0);
    g_assert_cmphex(MLX5_GET(ms, MS_geneve_protocol_type), ==, 0);
    tdrv_free(d);
}

/*
 * VXLAN's VNI with the inner L2 header (ETHL2_TUNNELING_I, what mlx5dv_dr and SMFS build for a
 * rule on misc vxlan_vni: TC's tunnel decap rules): the inner destination MAC, ethertype and
 * first tag, the VNI in the top 24 bits of the network id; a frame to another UDP port has no
 * VNI.
 */
static void test_vxlan_key(void)
{
    uint8_t f[128] = { 0 }, ms[MLX5_FTE_MATCH_PARAM_SIZE], key[16], *in = f + 50;
    static const uint8_t inner_dst[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
    TDrv *d = ste_node(true);
    size_t len;
    IbEthHdr h;

    frame(f, peer_mac, my_mac);
    mlx5_st16(f + 36, 4789);
    f[42] = 0x08;
    mlx5_st32(f + 46, 0x654321 << 8);
    /* the inner frame: tagged (prio 3, VID 5), IPv4 */
    memcpy(in, inner_dst, 6);
    memcpy(in + 6, peer_mac, 6);
    mlx5_st32(in + 12, 0x81000000 | 3 << 13 | 5);
    mlx5_st16(in + 16, 0x0800);
    in[18] = 0x45;
    mlx5_st16(in + 20, 20);
    in[26] = 64;
    in[27] = 6;
    len = 50 + 18 + 20;
    mlx5_st16(f + 16, len - 14);
    mlx5_st16(f + 38, len - 34);
    g_assert_true(ib_eth_parse(f, len, &h));
    mlx5_eth_match_set(d->c->eth, f, len, &h, ms);
    g_assert_cmphex(MLX5_GET(ms, MS_vxlan_vni), ==, 0x654321);
    g_assert_true(mlx5_ste_key(MLX5_STE_LU_ETHL2_TUNNELING_I, ms, key));
    g_assert_cmpmem(key, 6, inner_dst, 6);
    g_assert_cmphex(MLX5_GET(key, STE_L2_l3_ethertype), ==, 0x0800);
    g_assert_cmphex(MLX5_GET(key, STE_L2TNL_network_id), ==, 0x65432100);
    g_assert_cmpint(MLX5_GET(key, STE_L2TNL_l3_type), ==, MLX5_STE_IPV4);
    g_assert_cmpint(MLX5_GET(key, STE_L2TNL_first_priority), ==, 3);
    g_assert_cmpint(MLX5_GET(key, STE_L2TNL_first_cfi), ==, 0);
    g_assert_cmpint(MLX5_GET(key, STE_L2TNL_first_vlan_qualifier), ==, MLX5_STE_CVLAN);
    g_assert_cmpint(MLX5_GET(key, STE_L2TNL_first_vlan_id), ==, 5);
    g_assert_cmpint(MLX5_GET(key, STE_L2TNL_ip_fragmented), ==, 0);
    mlx5_st16(f + 36, 5000);
    g_assert_true(ib_eth_parse(f, len, &h));
    mlx5_eth_match_set(d->c->eth, f, len, &h, ms);
    g_assert_true(mlx5_ste_key(MLX5_STE_LU_ETHL2_TUNNELING_I, ms, key));
    g_assert_cmphex(MLX5_GET(key, STE_L2TNL_network_id), ==, 0);
    tdrv_free(d);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/ste/icm", test_icm);
    g_test_add_func("/mlx5/ste/hash", test_hash);
    g_test_add_func("/mlx5/ste/walk-rx", test_walk_rx);
    g_test_add_func("/mlx5/ste/walk-tx", test_walk_tx);
    g_test_add_func("/mlx5/ste/actions-rx", test_actions_rx);
    g_test_add_func("/mlx5/ste/actions-tx", test_actions_tx);
    g_test_add_func("/mlx5/ste/uid", test_uid);
    g_test_add_func("/mlx5/ste/meter", test_meter);
    g_test_add_func("/mlx5/ste/geneve", test_geneve);
    g_test_add_func("/mlx5/ste/vxlan-key", test_vxlan_key);
    return g_test_run();
}
