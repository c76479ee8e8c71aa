/*
 * Fuzz target: software steering's entries (eth/mlx5_ste.c, mlx5_ste_action.c, mlx5_sampler.c,
 * mlx5_meter.c).
 * An Ethernet node with sw-steering, one mlx5e-like channel (a TIR on an RQ, an SQ), steering
 * ICM (a 64 KiB block of entries at MLX5_ICM_STEERING_BASE, 4 KiB of header-modify actions),
 * a software-owned NIC RX table rooted at the block's first entry and a NIC TX one at 0x8000,
 * each the target of its root table's one entry; and what entries may name: the TIR (1), a
 * firmware table forwarding to it, a flow counter, packet reformat contexts (L2 and L3 tunnel
 * headers), a flow sampler (1 in 2 to the firmware table) and two flow meters (1: NIC RX, 2: NIC
 * TX, each on to its own software table: a loop the hop limit ends). The node is an E-Switch
 * manager (two VFs offered, none enabled) with a software-owned FDB table (mlx5_fdb.c) rooted
 * at slot 256 for frames from the link and at slot 768 for those from the PF; a record makes it
 * the FDB's root (or takes it away), so frames go through it before the NIC tables: to vport 0
 * (the PF, its NIC RX then), a VF that is not there, the link, a firmware FDB table or a drop.
 * The input writes entries and actions and sends frames through them: loops, stray addresses,
 * rewrites beyond the frame, encaps beyond the buffer must end in a drop or a skipped action,
 * never a hang or a crash.
 *
 * Record: op u8 (mod 8; 5-7 as op & 3), then
 *   0: entry: slot u16 (mod 1024: the entry at BASE + 64 * slot), 64 bytes;
 *   1: rewrite action: index u16 (mod 512), 8 bytes;
 *   2: receive: len u8, frame[len] (from the link);
 *   3: send: len u8, frame[len] (from the SQ, inline headers up to 64 bytes);
 *   4: the FDB table becomes the FDB's root, or (if it is) none is.
 * The seed corpus holds walks built as mlx5dv_dr lays them out (tests/fuzz/corpus/ste).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz.h"
#include "mlx5-testeth.h"
#include "hw/rdma/mlx5/mlx5_ste_prm.h"

static const uint8_t fz_ste_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

static uint32_t fz_ste_exec(TDrv *d, uint8_t *in, uint32_t inlen, unsigned field)
{
    uint8_t out[0x40] = { 0 };

    g_assert_cmpint(tdrv_exec(d, in, inlen, out, sizeof(out)), ==, 0);
    return field == 2 ? MLX5_GET(out, GOBJ_OUT_obj_id)
                      : MLX5_GET(out, OBJ_OUT_handle);
}

static void fz_ste_icm(TDrv *d, uint64_t start, unsigned log)
{
    uint8_t in[GOBJ_HDR_SIZE + SW_ICM_SIZE] = { 0 };

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
    MLX5_SET(in, GOBJ_IN_obj_type, MLX5_OBJ_TYPE_SW_ICM);
    MLX5_SET(in + GOBJ_HDR_SIZE, SW_ICM_log_sw_icm_size, log);
    MLX5_SET64(in + GOBJ_HDR_SIZE, SW_ICM_start_addr_OFF, start);
    fz_ste_exec(d, in, sizeof(in), 2);
}

static void fz_ste_reformat(TDrv *d, unsigned type, unsigned size)
{
    uint8_t in[0x100] = { 0 };
    uint8_t *h = in + REFORMAT_IN_data_OFF;

    memcpy(h, fz_ste_mac, 6);
    mlx5_st16(h + 12, 0x0800);
    h[14] = 0x45;
    h[23] = type == MLX5_REFORMAT_TYPE_L2_TO_L3_TUNNEL ? 47 : 17;
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_ALLOC_PACKET_REFORMAT_CONTEXT);
    MLX5_SET(in, REFORMAT_IN_type, type);
    MLX5_SET(in, REFORMAT_IN_data_size, size);
    fz_ste_exec(d, in, REFORMAT_IN_data_OFF + size, 0);
}

static void fz_ste_sampler(TDrv *d, uint32_t ft)
{
    uint8_t in[GOBJ_HDR_SIZE + SAMPLER_SIZE] = { 0 };

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
    MLX5_SET(in, GOBJ_IN_obj_type, MLX5_OBJ_TYPE_FLOW_SAMPLER);
    MLX5_SET(in + GOBJ_HDR_SIZE, SAMPLER_sample_ratio, 2);
    MLX5_SET(in + GOBJ_HDR_SIZE, SAMPLER_sample_table_id, ft);
    MLX5_SET(in + GOBJ_HDR_SIZE, SAMPLER_default_table_id, ft);
    fz_ste_exec(d, in, sizeof(in), 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Fz f = { data, size };
    Mlx5CoreConfig cfg;
    uint8_t buf[256], cqe[64], in[16] = { 0 }, out[16], rin[0x40];
    unsigned posted = 0;
    uint32_t fw, swrx, swtx, fdb, id;
    bool fdb_on = false;
    TEth t;

    mlx5_core_config_default(&cfg, fz_ste_mac);
    cfg.sm = false;
    cfg.eth = true;
    cfg.sw_steering = true;
    cfg.num_vfs = 2;
    cfg.esw_manager = true;
    t.d = tdrv_new_cfg(&cfg);
    tdrv_bringup(t.d);
    mlx5_core_link_set_up(t.d->c, 1, true);
    teth_setup(&t, t.d);
    fz_ste_icm(t.d, MLX5_ICM_STEERING_BASE, 16);
    fz_ste_icm(t.d, MLX5_ICM_MODHDR_BASE, 12);
    fw = teth_table(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, 63, 0);
    teth_forward(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, fw, MLX5_FLOW_DEST_TYPE_TIR, t.tirn);
    swrx = teth_table(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, 126,
                      MLX5_ICM_STEERING_BASE);
    swtx = teth_table(t.d, MLX5_FLOW_TABLE_TYPE_NIC_TX, 126,
                      MLX5_ICM_STEERING_BASE + 0x8000);
    teth_root_to(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, swrx);
    teth_root_to(t.d, MLX5_FLOW_TABLE_TYPE_NIC_TX, swtx);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_ALLOC_FLOW_COUNTER);
    g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), out, sizeof(out)), ==, 0);
    fz_ste_reformat(t.d, MLX5_REFORMAT_TYPE_L2_TO_L2_TUNNEL, 50);
    fz_ste_reformat(t.d, MLX5_REFORMAT_TYPE_L2_TO_L3_TUNNEL, 38);
    fz_ste_sampler(t.d, fw);
    g_assert_cmpint(teth_meter(t.d, MLX5_FLOW_TABLE_TYPE_NIC_RX, swrx, 3, 1, 6, 128, &id),
                    ==, 0);
    g_assert_cmpint(teth_meter(t.d, MLX5_FLOW_TABLE_TYPE_NIC_TX, swtx, 3, 1, 6, 128, &id),
                    ==, 0);
    teth_sw_fdb_in(rin, MLX5_ICM_STEERING_BASE + 0x4000, MLX5_ICM_STEERING_BASE + 0xc000);
    fdb = teth_obj_create(t.d, MLX5_CMD_OP_CREATE_FLOW_TABLE, rin, sizeof(rin));

    for (unsigned r = 0; r < FZ_MAX_RECORDS && fz_more(&f); r++) {
        uint8_t op = fz_u8(&f) & 7;
        unsigned len, ihs, i;

        op = op > 4 ? op & 3 : op;

        switch (op) {
        case 0:
            i = fz_u16(&f) % 1024;
            fz_bytes(&f, buf, MLX5_STE_SIZE);
            mlx5_icm_rw(t.d->c, MLX5_ICM_STEERING_BASE + 64 * i, buf, MLX5_STE_SIZE,
                        true);
            break;
        case 1:
            i = fz_u16(&f) % 512;
            fz_bytes(&f, buf, 8);
            mlx5_icm_rw(t.d->c, MLX5_ICM_MODHDR_BASE + 8 * i, buf, 8, true);
            break;
        case 2:
            len = fz_u8(&f);
            len = MAX(len, 14u);
            fz_bytes(&f, buf, len);
            if (!posted) {
                teth_post_recv(&t, 2048, t.mem);    /* (one at a time) */
                posted = 1;
            }
            mlx5_core_link_rx(t.d->c, 1, buf, len);
            while (teth_poll_cqe(&t, cqe)) {
                posted -= (cqe[63] >> 4) == MLX5_CQE_RESP_SEND && posted;
            }
            break;
        case 4:
            fdb_on = !fdb_on;
            memset(rin, 0, sizeof(rin));
            MLX5_SET(rin, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_FDB);
            MLX5_SET(rin, FT_IN_table_id, fdb_on ? fdb : 0);
            teth_obj_create(t.d, MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, rin, sizeof(rin));
            break;
        default:
            len = fz_u8(&f);
            len = MAX(len, 14u);
            fz_bytes(&f, buf, len);
            ihs = MIN(len, 64u);
            fake_write(t.d->h, t.mem + 8192, buf + ihs, len - ihs);
            teth_post_send(&t, MLX5_OPCODE_SEND, 0, 0, buf, ihs, len - ihs,
                           t.mem + 8192, -1);
            while (teth_poll_cqe(&t, cqe)) {
                posted -= (cqe[63] >> 4) == MLX5_CQE_RESP_SEND && posted;
            }
            break;
        }
    }
    tdrv_free(t.d);
    return 0;
}
