/*
 * Mini mlx5 driver for the unit tests: command queue with mailbox chains, events mode with
 * command-completion EQEs, and the Linux 6.12 bring-up sequence.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-test.h"
#include "hw/rdma/mlx5/mlx5_fw_prm.h"
#include "mlx5_internal.h"             /* (tdrv_lid: the core's configured LID) */

#define MBOX_ALIGN 1024

TDrv *tdrv_new_cfg(const Mlx5CoreConfig *cfg)
{
    return tdrv_new_ops(cfg, &fake_host_ops);
}

static void tdrv_setup_cmdq(TDrv *d)
{
    uint32_t sz;

    d->cmdq_pa = fake_alloc(d->h, 4096, 4096);
    /* the driver reads the queue geometry before writing the address */
    sz = tdrv_mmio_rd32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ);
    g_assert_cmphex(sz & 0xff, ==, 0x56);
    tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_H, d->cmdq_pa >> 32);
    tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ, (uint32_t)d->cmdq_pa);
}

TDrv *tdrv_new_ops(const Mlx5CoreConfig *cfg, const Mlx5CoreOps *ops)
{
    TDrv *d = g_new0(TDrv, 1);

    d->h = fake_host_new();
    d->c = mlx5_core_new(cfg, ops, d->h);
    mlx5_core_link_set_up(d->c, 1, true);     /* cable plugged in */
    tdrv_setup_cmdq(d);
    return d;
}

TDrv *tdrv_new_remote(const FakeRemoteOps *ops, void *opaque, uint16_t lid, uint64_t ram_lo,
                      uint64_t ram_hi)
{
    TDrv *d = g_new0(TDrv, 1);

    d->lid = lid;
    d->h = fake_host_new();
    d->h->remote = ops;
    d->h->remote_opaque = opaque;
    d->h->brk = ram_lo;
    d->h->brk_hi = ram_hi;
    tdrv_setup_cmdq(d);
    return d;
}

uint16_t tdrv_lid(TDrv *d)
{
    return d->c ? d->c->cfg.lid : d->lid;
}

TDrv *tdrv_new(void)
{
    static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x01 };
    Mlx5CoreConfig cfg;

    mlx5_core_config_default(&cfg, mac);
    cfg.sm = false;         /* no SM election events in the EQs (tests of the SM turn it on) */
    g_assert_null(mlx5_core_config_check(&cfg));
    return tdrv_new_cfg(&cfg);
}

void tdrv_free(TDrv *d)
{
    if (d->c) {
        mlx5_core_free(d->c);
    }
    fake_host_free(d->h);
    g_free(d);
}

void tdrv_mmio_wr32(TDrv *d, uint64_t off, uint32_t v)
{
    if (d->h->remote) {
        d->h->remote->mmio_write(d->h->remote_opaque, off, v, 4);
        return;
    }
    mlx5_core_mmio_write(d->c, off, v, 4);
}

void tdrv_mmio_wr64(TDrv *d, uint64_t off, uint64_t v)
{
    if (d->h->remote) {
        d->h->remote->mmio_write(d->h->remote_opaque, off, v, 8);
        return;
    }
    mlx5_core_mmio_write(d->c, off, v, 8);
}

uint32_t tdrv_mmio_rd32(TDrv *d, uint64_t off)
{
    if (d->h->remote) {
        return d->h->remote->mmio_read(d->h->remote_opaque, off, 4);
    }
    return mlx5_core_mmio_read(d->c, off, 4);
}

unsigned tdrv_irqs(TDrv *d, unsigned vector)
{
    g_assert_cmpuint(vector, <, FAKE_MAX_VECTORS);
    if (d->h->remote) {
        d->h->irqs[vector] += d->h->remote->irqs(d->h->remote_opaque, vector);
    }
    return d->h->irqs[vector];
}

/*
 * Let the device run until the command in @slot_pa is back (ownership bit clear). The core here
 * finishes a command in one run; a remote device does in its own time (bounded here).
 */
static void tdrv_wait_cmd(TDrv *d, uint64_t slot_pa)
{
    uint8_t own;

    if (!d->h->remote) {
        mlx5_core_run(d->c, 1000);
        return;
    }
    for (unsigned i = 0; i < 10000; i++) {
        fake_read(d->h, slot_pa + MLX5_CMD_LAY_STATUS_OWN, &own, 1);
        if (!(own & 1)) {
            return;
        }
        d->h->remote->run(d->h->remote_opaque);
    }
}

/* Build a mailbox chain carrying @len bytes of @data (NULL: zeroes). Returns its address. */
static uint64_t tdrv_chain(TDrv *d, const uint8_t *data, uint32_t len)
{
    uint32_t nblk = (len + MLX5_CMD_MBOX_DATA - 1) / MLX5_CMD_MBOX_DATA, i;
    uint64_t first = 0, prev = 0;

    for (i = 0; i < nblk; i++) {
        uint8_t blk[MLX5_CMD_MBOX_SIZE] = { 0 };
        uint64_t pa = fake_alloc(d->h, MLX5_CMD_MBOX_SIZE, MBOX_ALIGN);
        uint32_t n = MIN(len - i * MLX5_CMD_MBOX_DATA, MLX5_CMD_MBOX_DATA);

        if (data) {
            memcpy(blk, data + i * MLX5_CMD_MBOX_DATA, n);
        }
        mlx5_st32(blk + MLX5_CMD_MBOX_BLOCK_NUM, i);
        fake_write(d->h, pa, blk, sizeof(blk));
        if (prev) {
            uint8_t next[8];
            mlx5_st64(next, pa);
            fake_write(d->h, prev + MLX5_CMD_MBOX_NEXT, next, 8);
        } else {
            first = pa;
        }
        prev = pa;
    }
    return first;
}

static void tdrv_chain_read(TDrv *d, uint64_t pa, uint8_t *data, uint32_t len)
{
    uint32_t done = 0;

    while (done < len && pa) {
        uint8_t blk[MLX5_CMD_MBOX_SIZE];
        uint32_t n = MIN(len - done, MLX5_CMD_MBOX_DATA);
        fake_read(d->h, pa, blk, sizeof(blk));
        memcpy(data + done, blk, n);
        done += n;
        pa = mlx5_ld64(blk + MLX5_CMD_MBOX_NEXT);
    }
}

/* Events mode: consume the command-completion EQE like mlx5_eq_async_int does. */
static void tdrv_consume_cmd_eqe(TDrv *d, unsigned slot)
{
    uint8_t eqe[MLX5_EQE_SIZE];
    unsigned nent = 256;

    tdrv_eqe(d, d->cmd_eq_pa, d->cmd_eq_ci % nent, eqe);
    g_assert_cmpuint(eqe[MLX5_EQE_owner] & 1, ==, (d->cmd_eq_ci / nent) & 1);
    g_assert_cmpuint(eqe[MLX5_EQE_type], ==, MLX5_EVENT_TYPE_CMD);
    g_assert_cmphex(mlx5_ld32(eqe + MLX5_EQE_data), ==, 1u << slot);
    d->cmd_eq_ci++;
    tdrv_mmio_wr32(d, ((uint64_t)d->uar << 12) + MLX5_UAR_EQ_DB_ARM,
                   (d->cmd_eqn << 24) | (d->cmd_eq_ci & 0xffffff));
}

int tdrv_exec(TDrv *d, const void *in, uint32_t inlen, void *out, uint32_t outlen)
{
    uint64_t slot_pa = d->cmdq_pa + d->slot * MLX5_CMD_LAYOUT_SIZE;
    uint8_t lay[MLX5_CMD_LAYOUT_SIZE] = { 0 };
    uint64_t out_ptr = 0;
    unsigned irq0 = tdrv_irqs(d, 0);

    lay[MLX5_CMD_LAY_TYPE] = MLX5_PCI_CMD_XPORT;
    mlx5_st32(lay + MLX5_CMD_LAY_INLEN, inlen);
    memcpy(lay + MLX5_CMD_LAY_IN, in, MIN(inlen, MLX5_CMD_INLINE_BYTES));
    if (inlen > MLX5_CMD_INLINE_BYTES) {
        mlx5_st64(lay + MLX5_CMD_LAY_IN_PTR,
                  tdrv_chain(d, (const uint8_t *)in + MLX5_CMD_INLINE_BYTES,
                             inlen - MLX5_CMD_INLINE_BYTES));
    }
    if (outlen > MLX5_CMD_INLINE_BYTES) {
        out_ptr = tdrv_chain(d, NULL, outlen - MLX5_CMD_INLINE_BYTES);
        mlx5_st64(lay + MLX5_CMD_LAY_OUT_PTR, out_ptr);
    }
    mlx5_st32(lay + MLX5_CMD_LAY_OUTLEN, outlen);
    lay[MLX5_CMD_LAY_TOKEN] = 0x5a;
    lay[MLX5_CMD_LAY_STATUS_OWN] = 1;
    fake_write(d->h, slot_pa, lay, sizeof(lay));

    tdrv_mmio_wr32(d, MLX5_ISEG_CMD_DBELL, 1u << d->slot);
    tdrv_wait_cmd(d, slot_pa);

    fake_read(d->h, slot_pa, lay, sizeof(lay));
    g_assert_cmpuint(lay[MLX5_CMD_LAY_STATUS_OWN] & 1, ==, 0);
    d->last_delivery = lay[MLX5_CMD_LAY_STATUS_OWN] >> 1;
    if (d->events) {
        for (unsigned i = 0; d->h->remote && i < 1000 && tdrv_irqs(d, 0) == irq0; i++) {
            d->h->remote->run(d->h->remote_opaque);     /* (the MSI-X message may trail) */
        }
        g_assert_cmpuint(tdrv_irqs(d, 0), >, irq0);
        tdrv_consume_cmd_eqe(d, d->slot);
    }
    d->slot = (d->slot + 1) % (MLX5_CMDQ_ENTRIES - 1);
    if (d->last_delivery) {
        return 0x100 | d->last_delivery;
    }
    memset(out, 0, outlen);
    memcpy(out, lay + MLX5_CMD_LAY_OUT, MIN(outlen, MLX5_CMD_INLINE_BYTES));
    if (outlen > MLX5_CMD_INLINE_BYTES) {
        tdrv_chain_read(d, out_ptr, (uint8_t *)out + MLX5_CMD_INLINE_BYTES,
                        outlen - MLX5_CMD_INLINE_BYTES);
    }
    return ((uint8_t *)out)[0];
}

int tdrv_simple(TDrv *d, uint16_t opcode, uint16_t op_mod, uint32_t dw2, uint32_t dw3,
                void *out, uint32_t outlen)
{
    uint8_t in[16] = { 0 };
    uint8_t tmp[16];

    MLX5_SET(in, CMD_IN_opcode, opcode);
    MLX5_SET(in, CMD_IN_op_mod, op_mod);
    mlx5_st32(in + 8, dw2);
    mlx5_st32(in + 12, dw3);
    if (!out) {
        out = tmp;
        outlen = sizeof(tmp);
    }
    return tdrv_exec(d, in, sizeof(in), out, outlen);
}

uint32_t tdrv_syndrome(const void *out)
{
    return mlx5_ld32((const uint8_t *)out + 4);
}

void tdrv_eqe(TDrv *d, uint64_t pa, unsigned idx, uint8_t *eqe)
{
    fake_read(d->h, pa + idx * MLX5_EQE_SIZE, eqe, MLX5_EQE_SIZE);
}

static void tdrv_init_eq_buf(TDrv *d, uint64_t pa, unsigned nent)
{
    unsigned i;
    uint8_t one = 1;

    for (i = 0; i < nent; i++) {
        fake_write(d->h, pa + i * MLX5_EQE_SIZE + MLX5_EQE_owner, &one, 1);
    }
}

uint32_t tdrv_create_eq(TDrv *d, uint64_t mask, unsigned log_size, unsigned intr, uint64_t *pa)
{
    uint64_t bytes = (uint64_t)MLX5_EQE_SIZE << log_size;
    uint64_t npages = (bytes + 4095) / 4096, i;
    uint32_t inlen = MLX5_PAS_OFF + 8 * npages;
    g_autofree uint8_t *in = g_malloc0(inlen);
    uint8_t out[16];
    uint8_t *eqc = in + CREATE_EQ_EQC_OFF;
    uint64_t buf = fake_alloc(d->h, npages * 4096, 4096);

    tdrv_init_eq_buf(d, buf, 1u << log_size);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_EQ);
    MLX5_SET(eqc, EQC_log_eq_size, log_size);
    MLX5_SET(eqc, EQC_uar_page, d->uar);
    MLX5_SET(eqc, EQC_intr, intr);
    MLX5_SET(eqc, EQC_log_page_size, 0);
    mlx5_st64(in + CREATE_EQ_event_bitmask_OFF, mask);
    for (i = 0; i < npages; i++) {
        mlx5_st64(in + MLX5_PAS_OFF + 8 * i, buf + 4096 * i);
    }
    g_assert_cmpint(tdrv_exec(d, in, inlen, out, sizeof(out)), ==, 0);
    if (pa) {
        *pa = buf;
    }
    /* arm it, as mlx5_eq_enable does */
    tdrv_mmio_wr32(d, ((uint64_t)d->uar << 12) + MLX5_UAR_EQ_DB_ARM,
                   MLX5_GET(out, CREATE_EQ_OUT_eq_number) << 24);
    return MLX5_GET(out, CREATE_EQ_OUT_eq_number);
}

void tdrv_bringup(TDrv *d)
{
    uint8_t out[QUERY_HCA_CAP_OUT_SIZE];
    uint8_t in[0x10 + HCA_CAP_SIZE];
    uint8_t reg[0x20] = { 0 };

    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_ENABLE_HCA, 0, 0, 0, NULL, 0), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_ISSI, 0, 0, 0, out, QUERY_ISSI_OUT_SIZE),
                    ==, 0);
    g_assert_cmphex(MLX5_GET(out, QUERY_ISSI_OUT_supported_issi_dw0), ==, 3);
    /* like mlx5_core: the highest ISSI both know, 1 (SRQs become RMPs and XRC SRQs) */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_SET_ISSI, 0, 1, 0, NULL, 0), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_PAGES, 1, 0, 0, out, 16), ==, 0);
    g_assert_cmpint(MLX5_GET(out, QUERY_PAGES_OUT_num_pages), ==, 0);
    /* HOST_ENDIANNESS write */
    MLX5_SET(reg, CMD_IN_opcode, MLX5_CMD_OP_ACCESS_REG);
    MLX5_SET(reg, CMD_IN_op_mod, MLX5_ACCESS_REG_WRITE);
    MLX5_SET(reg, ACCESS_REG_IN_register_id, MLX5_REG_HOST_ENDIANNESS);
    g_assert_cmpint(tdrv_exec(d, reg, sizeof(reg), out, sizeof(reg)), ==, 0);
    /* general caps: cur, max, then SET with the driver's edits */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, out, sizeof(out)), ==, 0);
    memset(in, 0, sizeof(in));
    memcpy(in + HCA_CAP_OFF, out + HCA_CAP_OFF, HCA_CAP_SIZE);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 0, 0, 0, out, sizeof(out)), ==, 0);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_HCA_CAP);
    MLX5_SET(in + HCA_CAP_OFF, CAP_log_max_qp, MIN(18, MLX5_GET(out + HCA_CAP_OFF,
                                                                CAP_log_max_qp)));
    MLX5_SET(in + HCA_CAP_OFF, CAP_cmdif_checksum, 0);
    MLX5_SET(in + HCA_CAP_OFF, CAP_log_uar_page_sz, 0);
    /* handle_hca_cap: the sync reset's events and hot-reset method when the max has them */
    MLX5_SET(in + HCA_CAP_OFF, CAP_pci_sync_for_fw_update_event,
             MLX5_GET(out + HCA_CAP_OFF, CAP_pci_sync_for_fw_update_event));
    MLX5_SET(in + HCA_CAP_OFF, CAP_pcie_reset_using_hotreset_method,
             MLX5_GET(out + HCA_CAP_OFF, CAP_pcie_reset_using_hotreset_method));
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, 0);
    /* atomic caps */
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, 7, 0, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF,
                             ATOMIC_CAP_supported_atomic_req_8B_endianness_mode_1), ==, 1);
    memset(in, 0, sizeof(in));
    memcpy(in + HCA_CAP_OFF, out + HCA_CAP_OFF, HCA_CAP_SIZE);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_HCA_CAP);
    MLX5_SET(in, CMD_IN_op_mod, MLX5_CAP_ATOMIC << 1);
    MLX5_SET(in + HCA_CAP_OFF, ATOMIC_CAP_atomic_req_8B_endianness_mode, 1);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_PAGES, 2, 0, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_INIT_HCA, 0, 0, 0, NULL, 0), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_ADAPTER, 0, 0, 0, out,
                                QUERY_ADAPTER_OUT_SIZE), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_ALLOC_UAR, 0, 0, 0, out, 16), ==, 0);
    d->uar = MLX5_GET(out, ALLOC_OUT_handle);
    /* EQs: cmd (polled), then events mode for async and pages */
    d->cmd_eq_ci = 0;
    d->cmd_eqn = tdrv_create_eq(d, 1ull << MLX5_EVENT_TYPE_CMD, 8, 0, &d->cmd_eq_pa);
    d->events = true;
    d->async_eqn = tdrv_create_eq(d, 0x1f02be, 13, 0, &d->async_eq_pa);
    tdrv_create_eq(d, 1ull << MLX5_EVENT_TYPE_PAGE_REQUEST, 8, 0, NULL);
}

void tdrv_teardown(TDrv *d)
{
    uint8_t out[16];
    uint32_t eqn;

    /* destroy every EQ but the command EQ in events mode, then it while polling */
    for (eqn = 0; eqn < 64; eqn++) {
        if (eqn != d->cmd_eqn &&
            tdrv_simple(d, MLX5_CMD_OP_DESTROY_EQ, 0, eqn, 0, out, 16) != 0) {
            g_assert_cmpint(out[0], ==, MLX5_CMD_STAT_BAD_RES_ERR);
        }
    }
    d->events = false;
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_EQ, 0, d->cmd_eqn, 0, NULL, 0), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DEALLOC_UAR, 0, d->uar, 0, NULL, 0), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_TEARDOWN_HCA, 0, 0, 0, NULL, 0), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DISABLE_HCA, 0, 0, 0, NULL, 0), ==, 0);
}

uint32_t tdrv_alloc_pd(TDrv *d)
{
    uint8_t out[16];

    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_ALLOC_PD, 0, 0, 0, out, 16), ==, 0);
    return MLX5_GET(out, ALLOC_OUT_handle);
}

uint32_t tdrv_create_cq(TDrv *d, uint32_t eqn, unsigned log_size, uint64_t *buf_pa,
                        uint64_t *dbr_pa)
{
    return tdrv_create_cq_comp(d, eqn, log_size, buf_pa, dbr_pa, -1);
}

uint32_t tdrv_create_cq_comp(TDrv *d, uint32_t eqn, unsigned log_size, uint64_t *buf_pa,
                             uint64_t *dbr_pa, int mini_fmt)
{
    return tdrv_create_cq_ex(d, eqn, log_size, buf_pa, dbr_pa, mini_fmt, MLX5_CQE_SZ_64);
}

uint32_t tdrv_create_cq_ex(TDrv *d, uint32_t eqn, unsigned log_size, uint64_t *buf_pa,
                           uint64_t *dbr_pa, int mini_fmt, unsigned cqe_sz)
{
    unsigned slot = cqe_sz == MLX5_CQE_SZ_64 ? 64 : 128;
    uint64_t bytes = (uint64_t)slot << log_size, npages = (bytes + 4095) / 4096, i;
    uint32_t inlen = MLX5_PAS_OFF + 8 * npages;
    g_autofree uint8_t *in = g_malloc0(inlen);
    uint8_t *cqc = in + CREATE_CQ_CQC_OFF;
    uint8_t out[16];
    uint64_t buf = fake_alloc(d->h, npages * 4096, 4096);
    uint64_t dbr = fake_alloc(d->h, 64, 64);

    for (i = 0; i < (1u << log_size); i++) {
        uint8_t own = 0xf1;     /* MLX5_CQE_INVALID << 4 | owner 1 */
        fake_write(d->h, buf + slot * i + slot - 1, &own, 1);
    }
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_CQ);
    MLX5_SET(cqc, CQC_log_cq_size, log_size);
    MLX5_SET(cqc, CQC_cqe_sz, cqe_sz);
    MLX5_SET(cqc, CQC_uar_page, d->uar);
    MLX5_SET(cqc, CQC_c_eqn, eqn);
    MLX5_SET64(cqc, CQC_dbr_addr_OFF, dbr);
    if (mini_fmt >= 0) {
        MLX5_SET(cqc, CQC_cqe_comp_en, 1);
        MLX5_SET(cqc, CQC_mini_cqe_res_format, mini_fmt);
    }
    for (i = 0; i < npages; i++) {
        mlx5_st64(in + MLX5_PAS_OFF + 8 * i, buf + 4096 * i);
    }
    g_assert_cmpint(tdrv_exec(d, in, inlen, out, sizeof(out)), ==, 0);
    if (buf_pa) {
        *buf_pa = buf;
    }
    if (dbr_pa) {
        *dbr_pa = dbr;
    }
    return MLX5_GET(out, ALLOC_OUT_handle);
}

/* A basic SRQ of 2^@log_size WQEs of 16 << @stride bytes. */
int tdrv_create_srq(TDrv *d, uint32_t pd, uint32_t cqn, unsigned log_size, unsigned stride,
                    uint32_t *srqn)
{
    uint8_t in[MLX5_PAS_OFF + 8] = { 0 }, out[16];
    uint8_t *srqc = in + CREATE_SRQ_SRQC_OFF;
    int r;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_SRQ);
    MLX5_SET(srqc, SRQC_log_srq_size, log_size);
    MLX5_SET(srqc, SRQC_log_rq_stride, stride);
    MLX5_SET(srqc, SRQC_pd, pd);
    MLX5_SET(srqc, SRQC_cqn, cqn);
    MLX5_SET64(srqc, SRQC_dbr_addr_OFF, fake_alloc(d->h, 64, 64));
    mlx5_st64(in + MLX5_PAS_OFF, fake_alloc(d->h, 4096, 4096));
    r = tdrv_exec(d, in, sizeof(in), out, sizeof(out));
    if (r == 0 && srqn) {
        *srqn = MLX5_GET(out, ALLOC_OUT_handle);
    }
    return r;
}

int tdrv_create_qp(TDrv *d, uint8_t st, uint32_t pd, uint32_t cqn, uint32_t srqn,
                   uint32_t *qpn)
{
    uint32_t inlen = MLX5_PAS_OFF + 8 * 2;
    g_autofree uint8_t *in = g_malloc0(inlen);
    uint8_t *qpc = in + QP_QPC_OFF;
    uint8_t out[16];
    uint64_t buf = fake_alloc(d->h, 8192, 4096);
    int r;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_QP);
    MLX5_SET(qpc, QPC_st, st);
    MLX5_SET(qpc, QPC_pd, pd);
    MLX5_SET(qpc, QPC_log_rq_size, 4);          /* 16 x 64 B */
    MLX5_SET(qpc, QPC_log_rq_stride, 2);
    MLX5_SET(qpc, QPC_log_sq_size, 6);          /* 64 x 64 B */
    MLX5_SET(qpc, QPC_uar_page, d->uar);
    MLX5_SET(qpc, QPC_cqn_snd, cqn);
    MLX5_SET(qpc, QPC_cqn_rcv, cqn);
    if (srqn) {
        MLX5_SET(qpc, QPC_rq_type, MLX5_RQ_TYPE_SRQ);
        MLX5_SET(qpc, QPC_srqn_rmpn_xrqn, srqn);
        MLX5_SET(qpc, QPC_log_rq_size, 0);
    }
    MLX5_SET64(qpc, QPC_dbr_addr_OFF, fake_alloc(d->h, 64, 64));
    mlx5_st64(in + MLX5_PAS_OFF, buf);
    mlx5_st64(in + MLX5_PAS_OFF + 8, buf + 4096);
    r = tdrv_exec(d, in, inlen, out, sizeof(out));
    if (r == 0 && qpn) {
        *qpn = MLX5_GET(out, ALLOC_OUT_handle);
    }
    return r;
}

int tdrv_modify_qp(TDrv *d, uint16_t opcode, uint32_t qpn, const uint8_t *qpc, uint32_t optpar)
{
    uint8_t in[QP_QPC_OFF + MLX5_QPC_SIZE + 0x10] = { 0 };
    uint8_t out[16];

    MLX5_SET(in, CMD_IN_opcode, opcode);
    MLX5_SET(in, QP_IN_qpn, qpn);
    mlx5_st32(in + QP_IN_opt_param_mask_OFF, optpar);
    if (qpc) {
        memcpy(in + QP_QPC_OFF, qpc, MLX5_QPC_SIZE);
    }
    return tdrv_exec(d, in, sizeof(in), out, sizeof(out));
}

int tdrv_mad(TDrv *d, uint8_t method, uint16_t attr_id, uint32_t attr_mod, uint8_t *mad_out)
{
    uint8_t in[MAD_IFC_SIZE] = { 0 }, out[MAD_IFC_SIZE];
    uint8_t *mad = in + MAD_IFC_MAD_OFF;
    int r;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MAD_IFC);
    MLX5_SET(in, CMD_IN_op_mod, 3);
    MLX5_SET(in, MAD_IFC_IN_port, 1);
    mad[IB_MAD_base_version] = 1;
    mad[IB_MAD_mgmt_class] = IB_MGMT_CLASS_SUBN_LID_ROUTED;
    mad[IB_MAD_class_version] = 1;
    mad[IB_MAD_method] = method;
    mlx5_st16(mad + IB_MAD_attr_id, attr_id);
    mlx5_st32(mad + IB_MAD_attr_mod, attr_mod);
    if (mad_out && method == IB_MGMT_METHOD_SET) {
        memcpy(mad + IB_SMP_data, mad_out + IB_SMP_data, IB_SMP_DATA_SIZE);
    }
    r = tdrv_exec(d, in, sizeof(in), out, sizeof(out));
    if (mad_out) {
        memcpy(mad_out, out + MAD_IFC_MAD_OFF, MLX5_MAD_SIZE);
    }
    return r;
}
