/*
 * Unit tests: BAR0 initialization segment and the command-queue protocol (descriptors,
 * mailbox chains, ownership, delivery status, events mode, fatal DMA errors).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-test.h"

static void test_iseg_identity(void)
{
    TDrv *d = tdrv_new();
    uint32_t hc1, hc2;

    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_FW_REV), ==, (35u << 16) | 16);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_CMDIF_REV_FW_SUB) >> 16, ==, 5);
    /* initialized (bit 31 clear); bit 30: a firmware reset may be asked for */
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_INITIALIZING), ==, 1u << 30);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_CMD_Q_INIT_TO), ==, 0);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_HEALTH_FW_VER), !=, 0xffffffff);
    /* the address written is read back with the geometry and NIC mode FULL */
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ), ==,
                    ((uint32_t)d->cmdq_pa & 0xfffff000) | 0x56);
    /* the health counter is never 0 and moves with time */
    hc1 = tdrv_mmio_rd32(d, MLX5_ISEG_HEALTH_COUNTER);
    d->h->now += 2000000000ll;
    hc2 = tdrv_mmio_rd32(d, MLX5_ISEG_HEALTH_COUNTER);
    g_assert_cmpuint(hc1, !=, 0);
    g_assert_cmpuint(hc2, !=, hc1);
    /* internal timer counts virtual nanoseconds */
    g_assert_cmpuint(tdrv_mmio_rd32(d, MLX5_ISEG_INTERNAL_TIMER_L), ==, (uint32_t)d->h->now);
    /* 1-byte reads of the health syndrome (ioread8) */
    g_assert_cmpuint(mlx5_core_mmio_read(d->c, MLX5_ISEG_HEALTH_SYND, 1), ==, 0);
    g_assert_cmpuint(mlx5_core_mmio_read(d->c, MLX5_ISEG_CMDIF_REV_FW_SUB + 1, 1), ==, 5);
    /* unknown offsets read as 0 and writes to read-only fields are ignored */
    tdrv_mmio_wr32(d, MLX5_ISEG_FW_REV, 0xdeadbeef);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_FW_REV), ==, (35u << 16) | 16);
    g_assert_cmphex(tdrv_mmio_rd32(d, 0x2ff0), ==, 0);
    tdrv_free(d);
}

static void test_cmd_before_enable(void)
{
    TDrv *d = tdrv_new();
    uint8_t out[QUERY_ISSI_OUT_SIZE];

    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_ISSI, 0, 0, 0, out, sizeof(out)), ==,
                    MLX5_CMD_STAT_BAD_SYS_STATE_ERR);
    g_assert_cmphex(tdrv_syndrome(out), !=, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DISABLE_HCA, 0, 0, 0, out, 16), ==,
                    MLX5_CMD_STAT_BAD_SYS_STATE_ERR);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_ENABLE_HCA, 0, 0, 0, out, 16), ==, 0);
    /* object commands need INIT_HCA */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_ALLOC_PD, 0, 0, 0, out, 16), ==,
                    MLX5_CMD_STAT_BAD_SYS_STATE_ERR);
    /* ENABLE_HCA of another function */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_ENABLE_HCA, 0, 5, 0, out, 16), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    tdrv_free(d);
}

static void test_unknown_opcode(void)
{
    TDrv *d = tdrv_new();
    uint8_t out[16];

    tdrv_bringup(d);
    g_assert_cmpint(tdrv_simple(d, 0x9999, 0, 0, 0, out, 16), ==, MLX5_CMD_STAT_BAD_OP_ERR);
    g_assert_cmpint(d->last_delivery, ==, 0);
    g_assert_cmphex(tdrv_syndrome(out), !=, 0);
    /* a command of the PRM this device does not have: CREATE_SCHEDULING_ELEMENT */
    g_assert_cmpint(tdrv_simple(d, 0x782, 0, 0, 0, out, 16), ==, MLX5_CMD_STAT_BAD_OP_ERR);
    g_assert_cmpuint(trace_count("mlx5_unimp_cmd"), >=, 2);
    tdrv_free(d);
}

/* Write a raw descriptor in slot 0, ring, run; returns status_own. */
static uint8_t raw_cmd(TDrv *d, uint8_t *lay)
{
    fake_write(d->h, d->cmdq_pa, lay, MLX5_CMD_LAYOUT_SIZE);
    tdrv_mmio_wr32(d, MLX5_ISEG_CMD_DBELL, 1);
    mlx5_core_run(d->c, 100);
    fake_read(d->h, d->cmdq_pa, lay, MLX5_CMD_LAYOUT_SIZE);
    return lay[MLX5_CMD_LAY_STATUS_OWN];
}

static void raw_layout(uint8_t *lay, uint16_t opcode, uint32_t inlen, uint32_t outlen)
{
    memset(lay, 0, MLX5_CMD_LAYOUT_SIZE);
    lay[MLX5_CMD_LAY_TYPE] = MLX5_PCI_CMD_XPORT;
    mlx5_st32(lay + MLX5_CMD_LAY_INLEN, inlen);
    mlx5_st32(lay + MLX5_CMD_LAY_OUTLEN, outlen);
    MLX5_SET(lay + MLX5_CMD_LAY_IN, CMD_IN_opcode, opcode);
    lay[MLX5_CMD_LAY_STATUS_OWN] = 1;
}

static void test_bad_descriptor(void)
{
    TDrv *d = tdrv_new();
    uint8_t lay[MLX5_CMD_LAYOUT_SIZE];

    raw_layout(lay, MLX5_CMD_OP_ENABLE_HCA, 16, 16);
    lay[MLX5_CMD_LAY_TYPE] = 3;
    g_assert_cmphex(raw_cmd(d, lay), ==, MLX5_CMD_DELIVERY_INVALID_COMMAND << 1);

    raw_layout(lay, MLX5_CMD_OP_ENABLE_HCA, 4, 16);
    g_assert_cmphex(raw_cmd(d, lay), ==, MLX5_CMD_DELIVERY_IN_LENGTH_ERR << 1);
    raw_layout(lay, MLX5_CMD_OP_ENABLE_HCA, 0x7fffffff, 16);
    g_assert_cmphex(raw_cmd(d, lay), ==, MLX5_CMD_DELIVERY_IN_LENGTH_ERR << 1);
    raw_layout(lay, MLX5_CMD_OP_ENABLE_HCA, 16, 0xffffffff);
    g_assert_cmphex(raw_cmd(d, lay), ==, MLX5_CMD_DELIVERY_OUT_LENGTH_ERR << 1);

    /* input beyond 16 bytes but no mailbox */
    raw_layout(lay, MLX5_CMD_OP_ENABLE_HCA, 64, 16);
    g_assert_cmphex(raw_cmd(d, lay), ==, MLX5_CMD_DELIVERY_IN_PTR_ALIGN_ERR << 1);
    /* misaligned mailbox */
    raw_layout(lay, MLX5_CMD_OP_ENABLE_HCA, 64, 16);
    mlx5_st64(lay + MLX5_CMD_LAY_IN_PTR, fake_alloc(d->h, 2048, 1024) + 8);
    g_assert_cmphex(raw_cmd(d, lay), ==, MLX5_CMD_DELIVERY_IN_PTR_ALIGN_ERR << 1);
    /* output beyond 16 bytes but no output mailbox */
    raw_layout(lay, MLX5_CMD_OP_ENABLE_HCA, 16, 64);
    g_assert_cmphex(raw_cmd(d, lay), ==, MLX5_CMD_DELIVERY_OUT_PTR_ALIGN_ERR << 1);
    g_assert_cmpuint(trace_count("mlx5_err_cmd_delivery"), >=, 7);

    /* the device still works afterwards */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_ENABLE_HCA, 0, 0, 0, NULL, 0), ==, 0);
    tdrv_free(d);
}

static void test_mbox_block_num(void)
{
    TDrv *d = tdrv_new();
    uint8_t lay[MLX5_CMD_LAYOUT_SIZE], blk[MLX5_CMD_MBOX_SIZE] = { 0 };
    uint64_t b0 = fake_alloc(d->h, 1024, 1024), b1 = fake_alloc(d->h, 1024, 1024);

    tdrv_simple(d, MLX5_CMD_OP_ENABLE_HCA, 0, 0, 0, NULL, 0);
    /* two blocks, the second one numbered 7 */
    mlx5_st64(blk + MLX5_CMD_MBOX_NEXT, b1);
    fake_write(d->h, b0, blk, sizeof(blk));
    memset(blk, 0, sizeof(blk));
    mlx5_st32(blk + MLX5_CMD_MBOX_BLOCK_NUM, 7);
    fake_write(d->h, b1, blk, sizeof(blk));
    raw_layout(lay, MLX5_CMD_OP_QUERY_ISSI, 16 + 600, 16);
    mlx5_st64(lay + MLX5_CMD_LAY_IN_PTR, b0);
    g_assert_cmphex(raw_cmd(d, lay), ==, MLX5_CMD_DELIVERY_BAD_BLK_NUM_ERR << 1);

    /* a chain looping on itself ends at inlen: bounded work, no hang */
    memset(blk, 0, sizeof(blk));
    mlx5_st64(blk + MLX5_CMD_MBOX_NEXT, b0);
    fake_write(d->h, b0, blk, sizeof(blk));
    raw_layout(lay, MLX5_CMD_OP_QUERY_ISSI, 16 + 3 * 512, 16);
    mlx5_st64(lay + MLX5_CMD_LAY_IN_PTR, b0);
    g_assert_cmphex(raw_cmd(d, lay), ==, MLX5_CMD_DELIVERY_BAD_BLK_NUM_ERR << 1);
    tdrv_free(d);
}

static void test_short_output(void)
{
    TDrv *d = tdrv_new();
    uint8_t out[16 + 64], full[QUERY_HCA_CAP_OUT_SIZE];

    tdrv_bringup(d);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, out, 12), ==,
                    MLX5_CMD_STAT_BAD_OUTP_LEN_ERR);
    /* a caller asking for part of the page (DevX users) gets that part */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, out, sizeof(out)), ==,
                    0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, full, sizeof(full)), ==,
                    0);
    g_assert_cmpmem(out + HCA_CAP_OFF, 64, full + HCA_CAP_OFF, 64);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_MAD_IFC, 3, 1, 0, out, 16), ==,
                    MLX5_CMD_STAT_BAD_INP_LEN_ERR);
    tdrv_free(d);
}

static void test_not_owned(void)
{
    TDrv *d = tdrv_new();
    uint8_t lay[MLX5_CMD_LAYOUT_SIZE];

    raw_layout(lay, MLX5_CMD_OP_ENABLE_HCA, 16, 16);
    lay[MLX5_CMD_LAY_STATUS_OWN] = 0;
    fake_write(d->h, d->cmdq_pa, lay, sizeof(lay));
    tdrv_mmio_wr32(d, MLX5_ISEG_CMD_DBELL, 1);
    mlx5_core_run(d->c, 100);
    g_assert_cmpuint(trace_count("mlx5_ub_cmd_not_owned"), >=, 1);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_ISSI, 0, 0, 0, NULL, 0), ==,
                    MLX5_CMD_STAT_BAD_SYS_STATE_ERR);
    tdrv_free(d);
}

static void test_two_slots_one_doorbell(void)
{
    TDrv *d = tdrv_new();
    uint8_t lay[MLX5_CMD_LAYOUT_SIZE];

    raw_layout(lay, MLX5_CMD_OP_ENABLE_HCA, 16, 16);
    fake_write(d->h, d->cmdq_pa, lay, sizeof(lay));
    raw_layout(lay, MLX5_CMD_OP_QUERY_PAGES, 16, 16);
    MLX5_SET(lay + MLX5_CMD_LAY_IN, CMD_IN_op_mod, 1);
    fake_write(d->h, d->cmdq_pa + 5 * 64, lay, sizeof(lay));
    tdrv_mmio_wr32(d, MLX5_ISEG_CMD_DBELL, (1u << 0) | (1u << 5));
    g_assert_cmpuint(d->h->kicks, >=, 1);
    mlx5_core_run(d->c, 100);
    fake_read(d->h, d->cmdq_pa, lay, sizeof(lay));
    g_assert_cmphex(lay[MLX5_CMD_LAY_STATUS_OWN], ==, 0);
    g_assert_cmphex(lay[MLX5_CMD_LAY_OUT], ==, 0);
    /* slot 5 ran after slot 0 (lowest bit first), so the function was enabled */
    fake_read(d->h, d->cmdq_pa + 5 * 64, lay, sizeof(lay));
    g_assert_cmphex(lay[MLX5_CMD_LAY_STATUS_OWN], ==, 0);
    g_assert_cmphex(lay[MLX5_CMD_LAY_OUT], ==, 0);
    tdrv_free(d);
}

static void test_dma_fault_is_fatal(void)
{
    TDrv *d = tdrv_new();

    tdrv_simple(d, MLX5_CMD_OP_ENABLE_HCA, 0, 0, 0, NULL, 0);
    d->h->poison_lo = d->cmdq_pa;
    d->h->poison_hi = d->cmdq_pa + 4096;
    tdrv_mmio_wr32(d, MLX5_ISEG_CMD_DBELL, 1);
    mlx5_core_run(d->c, 100);
    /* health buffer: rfr bit and a non-zero syndrome; further doorbells are ignored */
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_HEALTH_RFR_SEVERITY) >> 31, ==, 1);
    g_assert_cmpuint(mlx5_core_mmio_read(d->c, MLX5_ISEG_HEALTH_SYND, 1), !=, 0);
    g_assert_cmpuint(trace_count("mlx5_err_health"), >=, 1);
    /* a system reset (FLR) recovers */
    mlx5_core_reset(d->c, MLX5_RESET_SYSTEM);
    d->h->poison_lo = d->h->poison_hi = 0;
    g_assert_cmpuint(mlx5_core_mmio_read(d->c, MLX5_ISEG_HEALTH_SYND, 1), ==, 0);
    tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_H, d->cmdq_pa >> 32);
    tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ, (uint32_t)d->cmdq_pa);
    tdrv_bringup(d);
    tdrv_free(d);
}

static void test_events_mode(void)
{
    TDrv *d = tdrv_new();
    unsigned irq0;

    tdrv_bringup(d);
    /* every command after the cmd EQ completes with an EQE and MSI-X 0 (checked by tdrv) */
    irq0 = d->h->irqs[0];
    tdrv_alloc_pd(d);
    tdrv_alloc_pd(d);
    g_assert_cmpuint(d->h->irqs[0], ==, irq0 + 2);
    /* many commands: the EQ wraps and the owner bit flips (256 entries) */
    for (unsigned i = 0; i < 300; i++) {
        g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_PAGES, 3, 0, 0, NULL, 0), ==, 0);
    }
    tdrv_teardown(d);
    tdrv_free(d);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/iseg/identity", test_iseg_identity);
    g_test_add_func("/mlx5/cmdq/before-enable", test_cmd_before_enable);
    g_test_add_func("/mlx5/cmdq/unknown-opcode", test_unknown_opcode);
    g_test_add_func("/mlx5/cmdq/bad-descriptor", test_bad_descriptor);
    g_test_add_func("/mlx5/cmdq/mbox-block-num", test_mbox_block_num);
    g_test_add_func("/mlx5/cmdq/short-output", test_short_output);
    g_test_add_func("/mlx5/cmdq/not-owned", test_not_owned);
    g_test_add_func("/mlx5/cmdq/two-slots", test_two_slots_one_doorbell);
    g_test_add_func("/mlx5/cmdq/dma-fault-fatal", test_dma_fault_is_fatal);
    g_test_add_func("/mlx5/cmdq/events-mode", test_events_mode);
    return g_test_run();
}
