/*
 * The seed recorder (hw/rdma/mlx5/mlx5_record.c): with Mlx5CoreOps.record the core hands over each
 * guest input as one record in the format of its fuzz target (tests/fuzz/fuzz-*.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-testqp.h"
#include "mlx5_internal.h"
#include "hw/rdma/ib/ib_wire.h"

static GPtrArray *recs[MLX5_RECORD_KINDS];

static void rec_record(void *opaque, unsigned kind, const void *rec, size_t len)
{
    g_assert_cmpuint(kind, <, MLX5_RECORD_KINDS);
    g_ptr_array_add(recs[kind], g_bytes_new(rec, len));
}

static TDrv *rec_node(uint8_t last)
{
    static Mlx5CoreOps ops;
    const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, last };
    Mlx5CoreConfig cfg;
    TDrv *d;

    ops = fake_host_ops;
    ops.record = rec_record;
    mlx5_core_config_default(&cfg, mac);
    cfg.sm = false;
    d = tdrv_new_ops(&cfg, &ops);
    tdrv_bringup(d);
    return d;
}

static void rec_reset(void)
{
    for (int k = 0; k < MLX5_RECORD_KINDS; k++) {
        if (recs[k]) {
            g_ptr_array_free(recs[k], true);
        }
        recs[k] = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
    }
}

static const uint8_t *rec_get(unsigned kind, unsigned i, size_t *len)
{
    gsize n;
    const uint8_t *p = g_bytes_get_data(recs[kind]->pdata[i], &n);

    *len = n;
    return p;
}

/* Commands (mode 0, inlen, outlen, input), MAD_IFC's MAD (kind 3), BAR0 writes. */
static void test_record_cmd_mmio(void)
{
    TDrv *d;
    const uint8_t *r;
    size_t len;
    uint8_t mad[MLX5_MAD_SIZE];

    rec_reset();
    d = rec_node(1);
    /* one record per command executed, the first ENABLE_HCA with its 16-byte input */
    g_assert_cmpuint(recs[MLX5_RECORD_CMD]->len, ==, d->c->cmd_count);
    r = rec_get(MLX5_RECORD_CMD, 0, &len);
    g_assert_cmpuint(len, ==, 5 + 16);
    g_assert_cmpuint(r[0], ==, 0);
    g_assert_cmpuint(mlx5_ld16(r + 1), ==, 16);
    g_assert_cmpuint(mlx5_ld16(r + 5), ==, MLX5_CMD_OP_ENABLE_HCA);
    /* the first BAR0 writes: the command queue's address, 4 bytes each */
    r = rec_get(MLX5_RECORD_MMIO, 0, &len);
    g_assert_cmpuint(len, ==, 14);
    g_assert_cmpuint(r[0], ==, 0);
    g_assert_cmpuint(r[1], ==, 2);
    g_assert_cmphex(mlx5_ld32(r + 2), ==, MLX5_ISEG_CMDQ_ADDR_H);
    r = rec_get(MLX5_RECORD_MMIO, 1, &len);
    g_assert_cmphex(mlx5_ld32(r + 2), ==, MLX5_ISEG_CMDQ_ADDR_L_SZ);
    g_assert_cmphex(mlx5_ld64(r + 6), ==, (uint32_t)d->cmdq_pa);
    /* MAD_IFC: the command, and its MAD for fuzz-mad */
    g_assert_cmpuint(recs[MLX5_RECORD_MAD]->len, ==, 0);
    g_assert_cmpint(tdrv_mad(d, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 0, mad), ==, 0);
    g_assert_cmpuint(recs[MLX5_RECORD_MAD]->len, ==, 1);
    r = rec_get(MLX5_RECORD_MAD, 0, &len);
    g_assert_cmpuint(len, ==, 3 + MLX5_MAD_SIZE);
    g_assert_cmpuint(r[0], ==, 3);
    g_assert_cmphex(mlx5_ld16(r + 3 + IB_MAD_attr_id), ==, IB_SMP_ATTR_NODE_INFO);
    tdrv_free(d);
}

/* WQEs (send and receive, by queue selector) and the frames the peer received. */
static void test_record_datapath(void)
{
    TDrv *a, *b;
    TQp qa, qb;
    uint8_t seg[16], cqe[64];
    const uint8_t *r;
    size_t len;
    unsigned i, found = 0;

    rec_reset();
    a = rec_node(1);
    b = rec_node(2);
    tqp_create(&qa, a, MLX5_QP_ST_RC, 0);
    tqp_create(&qb, b, MLX5_QP_ST_RC, 0);
    tqp_connect(&qa, b->c->cfg.lid, qb.qpn, 0);
    tqp_connect(&qb, a->c->cfg.lid, qa.qpn, 0);
    g_ptr_array_set_size(recs[MLX5_RECORD_WQE], 0);
    g_ptr_array_set_size(recs[MLX5_RECORD_FRAME], 0);
    tqp_post_recv(&qb, 100, qb.mem);
    data_seg(seg, 100, qa.key, qa.mem);
    tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, seg, 1, true, true);
    run_pair(a, b, 1000);
    g_assert_true(tqp_poll(&qa, cqe));
    /* the send WQE (RC: selector 0, flags 0x23, one WQEBB), then the receive WQE (0x80) */
    g_assert_cmpuint(recs[MLX5_RECORD_WQE]->len, ==, 2);
    r = rec_get(MLX5_RECORD_WQE, 0, &len);
    g_assert_cmpuint(len, ==, 5 + 64);
    g_assert_cmpuint(r[0], ==, 0);
    g_assert_cmpuint(r[1], ==, 0x23);
    g_assert_cmpuint(r[4], ==, 0);
    g_assert_cmpuint(r[5 + 3], ==, MLX5_OPCODE_SEND);
    g_assert_cmphex(mlx5_ld32(r + 5 + 16 + 4), ==, qa.key);
    r = rec_get(MLX5_RECORD_WQE, 1, &len);
    g_assert_cmpuint(len, ==, 5 + 64);
    g_assert_cmpuint(r[0], ==, 0x80);
    g_assert_cmpuint(mlx5_ld32(r + 5), ==, 100);
    /* frames: flags 7, length, the frame as it came (the SEND at b, the ACK at a) */
    for (i = 0; i < recs[MLX5_RECORD_FRAME]->len; i++) {
        IbPacket p;
        r = rec_get(MLX5_RECORD_FRAME, i, &len);
        g_assert_cmpuint(r[0], ==, 7);
        g_assert_cmpuint(mlx5_ld16(r + 1), ==, len - 3);
        g_assert_cmpint(ib_wire_decode(r + 3, len - 3, &p), ==, 0);
        found += p.opcode == (IB_TRANSPORT_RC | IB_OP_SEND_ONLY) && p.dest_qpn == qb.qpn;
    }
    g_assert_cmpuint(found, ==, 1);
    tdrv_free(a);
    tdrv_free(b);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/record/cmd-mmio", test_record_cmd_mmio);
    g_test_add_func("/mlx5/record/datapath", test_record_datapath);
    return g_test_run();
}
