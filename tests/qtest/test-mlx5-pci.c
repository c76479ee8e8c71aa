/*
 * The hostile-guest cases that need the real device in QEMU (issue 10): the test is the guest's
 * driver (the unit tests' mini driver over qtest, see mlx5-qtest.h), so the PCI shell, QEMU's
 * DMA and MSI-X paths and the reset paths run as under a guest, ASan/UBSan included when the
 * QEMU is the sanitizer build (scripts/build-qemu.sh --sanitize).
 *
 *  - bring-up and teardown with command completions as MSI-X messages, then loopback RC traffic;
 *  - mkeys whose pages are the device's own BAR0 or beyond guest RAM: the access fails like a
 *    DMA error (error CQE), nothing reaches the device's registers, the device goes on;
 *  - MSI-X misuse: a vector aimed at the device's own command doorbell (fired from the
 *    retransmission timer), masked vectors (pending bit, delivery on unmask), MSI-X disabled;
 *  - FLR (PCIe Initiate Function Level Reset) and machine reset in the middle of traffic:
 *    no DMA afterwards, and the device comes up again for a new driver;
 *  - hostile VFs (SR-IOV through the PF's capability, MMCONFIG): another function's commands
 *    and objects, the PF's keys, a VF's FLR and VF Enable off under the VFs' drivers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-qtest.h"
#include "mlx5-testqp.h"

/*
 * QEMU's stderr must hold no sanitizer report and only the lines a test expects (besides its
 * goodbye on SIGTERM and ASan's note on QEMU's ucontext coroutines, printed at every start).
 */
static void check_stderr(const char *err, const char *const *allowed)
{
    g_auto(GStrv) lines = g_strsplit(err, "\n", -1);

    for (char **l = lines; *l; l++) {
        bool ok = !**l || strstr(*l, "terminating on signal") ||
                  strstr(*l, "ASan doesn't fully support makecontext/swapcontext");
        for (const char *const *a = allowed; a && *a && !ok; a++) {
            ok = strstr(*l, *a) != NULL;
        }
        if (!ok) {
            g_error("unexpected QEMU stderr line: %s\n(all of it:\n%s)", *l, err);
        }
    }
}

static void quit(Qt *q, const char *const *allowed)
{
    g_autofree char *err = qt_quit(q);

    check_stderr(err, allowed);
}

static Qt *start(const char *args)
{
    Qt *q = qt_start(args);

    qt_pci_enable(q);
    return q;
}

static TDrv *driver(Qt *q)
{
    TDrv *d = qt_tdrv(q, QT_ALLOC_LO);

    tdrv_bringup(d);
    return d;
}

/* Wait (virtual time @step_ns per try, @tries) for the next CQE of @qp. */
static bool wait_cqe(Qt *q, TQp *qp, uint8_t *cqe, int64_t step_ns, unsigned tries)
{
    for (unsigned i = 0; i < tries; i++) {
        if (tqp_poll(qp, cqe)) {
            return true;
        }
        qt_clock_step(q, step_ns);
    }
    return false;
}

static uint8_t cqe_opcode(const uint8_t *cqe)
{
    return cqe[63] >> 4;
}

/* Post @nsegs segments of @opcode on @qp and expect its error CQE with @syndrome. */
static void expect_error(Qt *q, TQp *qp, uint8_t opcode, const uint8_t *segs, unsigned nsegs,
                         uint8_t syndrome)
{
    uint8_t cqe[64];

    tqp_post_send(qp, opcode, 0, segs, nsegs, true, true);
    g_assert_true(wait_cqe(q, qp, cqe, 1000, 2000));
    g_assert_cmpuint(cqe_opcode(cqe), ==, MLX5_CQE_REQ_ERR);
    g_assert_cmpuint(cqe[MLX5_CQE_syndrome], ==, syndrome);
}

/* SEND, RDMA WRITE and RDMA READ of @len bytes a -> b, every byte checked. */
static void traffic(Qt *q, TDrv *d, TQp *a, TQp *b, size_t len)
{
    uint8_t segs[32], cqe[64];

    tqp_pattern(d, a->mem, len, 3);
    tqp_post_recv(b, len, b->mem);
    data_seg(segs, len, a->key, a->mem);
    tqp_post_send(a, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    g_assert_true(wait_cqe(q, a, cqe, 1000, 2000));
    g_assert_cmpuint(cqe_opcode(cqe), ==, MLX5_CQE_REQ);
    g_assert_true(wait_cqe(q, b, cqe, 1000, 2000));
    g_assert_cmpuint(cqe_opcode(cqe), ==, MLX5_CQE_RESP_SEND);
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, len);
    g_assert_true(tqp_same(d, a->mem, d, b->mem, len));

    tqp_pattern(d, a->mem, len, 9);
    raddr_seg(segs, b->mem + len, b->key);
    data_seg(segs + 16, len, a->key, a->mem);
    tqp_post_send(a, MLX5_OPCODE_RDMA_WRITE, 0, segs, 2, true, true);
    g_assert_true(wait_cqe(q, a, cqe, 1000, 2000));
    g_assert_cmpuint(cqe_opcode(cqe), ==, MLX5_CQE_REQ);
    g_assert_true(tqp_same(d, a->mem, d, b->mem + len, len));

    raddr_seg(segs, b->mem + len, b->key);
    data_seg(segs + 16, len, a->key, a->mem + 2 * len);
    tqp_post_send(a, MLX5_OPCODE_RDMA_READ, 0, segs, 2, true, true);
    g_assert_true(wait_cqe(q, a, cqe, 1000, 2000));
    g_assert_cmpuint(cqe_opcode(cqe), ==, MLX5_CQE_REQ);
    g_assert_true(tqp_same(d, a->mem + 2 * len, d, b->mem + len, len));
}

/*
 * -device mlx5-hca,help explains every property of the device's own (those of
 * PCIDevice, which every PCI device shares, are QEMU's), and -device help lists
 * the device in the network category.
 */
static void test_help(void)
{
    static const char *const inherited[] = {
        "acpi-index", "addr", "busnr", "failover_pair_id", "multifunction",
        "rombar", "romfile", "romsize", NULL
    };
    const char *qemu = g_getenv("MLX5_QTEST_QEMU");
    g_autofree char *out = NULL, *cmd = NULL, *list = NULL;
    g_auto(GStrv) lines = NULL;
    char *net, *end;
    GError *err = NULL;
    unsigned n = 0;
    int status;

    g_assert_nonnull(qemu);
    cmd = g_strdup_printf("%s -device mlx5-hca,help", qemu);
    g_assert_true(g_spawn_command_line_sync(cmd, &out, NULL, &status, &err));
    g_assert_no_error(err);
    g_assert_cmpint(status, ==, 0);
    lines = g_strsplit(out, "\n", -1);
    for (char **l = lines; *l; l++) {
        g_autofree char *name = NULL;
        const char *eq = strchr(*l, '='), *dash;

        if (!g_str_has_prefix(*l, "  ") || !eq) {
            continue;
        }
        name = g_strndup(*l + 2, eq - (*l + 2));
        if (g_str_has_prefix(name, "x-") ||
            g_strv_contains(inherited, name)) {
            continue;
        }
        dash = strstr(eq, " - ");
        while (dash && dash[2] == ' ') {
            dash++;
        }
        /* no text, or only QEMU's "(default: ...)" */
        if (!dash || dash[2] == '(' || !dash[2]) {
            g_error("property %s has no description: %s", name, *l);
        }
        n++;
    }
    /* link-type ... fuzz-record, mac and netdev */
    g_assert_cmpuint(n, >=, 25);
    g_free(cmd);
    cmd = g_strdup_printf("%s -device help", qemu);
    g_assert_true(g_spawn_command_line_sync(cmd, &list, NULL, &status, &err));
    g_assert_no_error(err);
    net = strstr(list, "Network devices:");
    g_assert_nonnull(net);
    end = strstr(net, "\n\n");
    if (end) {
        *end = 0;       /* the category ends at the blank line */
    }
    g_assert_nonnull(strstr(net, "name \"mlx5-hca\""));
}

static void test_bringup_traffic(void)
{
    Qt *q = start("");
    TDrv *d = driver(q);
    TQp a, b;

    /* every command completed with an MSI-X message on vector 0 (tdrv_exec checks each) */
    g_assert_cmpuint(tdrv_irqs(d, 0), >=, 1);
    /* driver unload and load, as rmmod/modprobe */
    tdrv_teardown(d);
    tdrv_bringup(d);
    tqp_rc_pair(&a, d, &b, d);
    traffic(q, d, &a, &b, 100000);
    /* completion events of the armed CQs reached vector 1 */
    g_assert_cmpuint(tdrv_irqs(d, 1), >=, 1);
    tdrv_free(d);
    quit(q, NULL);
}

/*
 * Data whose pages are the device's own BAR0 or no memory at all: the DMA fails, the WQE ends
 * in an error CQE, nothing is written to (or read from) the device's registers, and a new QP
 * works afterwards.
 */
static void test_mkey_into_bar(void)
{
    static const struct {
        const char *what;
        uint64_t pa;
    } bad[] = {
        { "BAR0: the initialization segment", QT_BAR0 },
        { "BAR0: the command doorbell", QT_BAR0 + MLX5_ISEG_CMD_DBELL },
        { "the MSI-X table", QT_MSIX_BAR },
        { "beyond guest RAM", 0x40000000ull },
    };
    Qt *q = start("");
    TDrv *d = driver(q);
    uint8_t segs[32];

    for (unsigned i = 0; i < G_N_ELEMENTS(bad); i++) {
        TQp a, b;
        uint32_t msix0 = qt_readl(q, QT_MSIX_BAR), fw = tdrv_mmio_rd32(d, MLX5_ISEG_FW_REV);

        g_test_message("%s", bad[i].what);
        tqp_rc_pair(&a, d, &b, d);
        /* the requester reads its payload there */
        data_seg(segs, 256, a.key, bad[i].pa);
        expect_error(q, &a, MLX5_OPCODE_SEND, segs, 1, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);

        /* the responder writes an RDMA WRITE's data there (a new pair: a is in error) */
        tqp_rc_pair(&a, d, &b, d);
        tqp_pattern(d, a.mem, 4096, 5);
        raddr_seg(segs, bad[i].pa, b.key);
        data_seg(segs + 16, 4096, a.key, a.mem);
        expect_error(q, &a, MLX5_OPCODE_RDMA_WRITE, segs, 2, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);

        /* nothing reached the registers: MSI-X table entry 0 and the FW revision unchanged */
        g_assert_cmphex(qt_readl(q, QT_MSIX_BAR), ==, msix0);
        g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_FW_REV), ==, fw);
    }
    /* the device goes on */
    {
        TQp a, b;
        tqp_rc_pair(&a, d, &b, d);
        traffic(q, d, &a, &b, 8192);
    }
    tdrv_free(d);
    quit(q, (const char *const[]){ "Blocked re-entrant IO", NULL });
}

/*
 * An MSI-X vector aimed at the device's own command doorbell, fired from the retransmission
 * timer (an RC SEND to a QP nobody has: RETRY_EXC after 8 timeouts). The message must not ring
 * the doorbell re-entrantly: a command left owned by the device in that slot stays unexecuted
 * until the driver rings it.
 */
static void test_msix_into_bar(void)
{
    Qt *q = start("");
    TDrv *d = driver(q);
    TQp a;
    uint8_t segs[16], cqe[64], own;
    const unsigned slot = 30;
    uint64_t slot_pa = d->cmdq_pa + slot * MLX5_CMD_LAYOUT_SIZE;
    uint8_t lay[MLX5_CMD_LAYOUT_SIZE] = { 0 };

    tqp_create(&a, d, MLX5_QP_ST_RC, 1);
    tqp_connect(&a, QT_LID, 0xabcdef, 0);      /* a QP nobody has */
    /* a NOP command (QUERY_ISSI) in slot 30, owned by the device, doorbell not rung */
    lay[MLX5_CMD_LAY_TYPE] = MLX5_PCI_CMD_XPORT;
    mlx5_st32(lay + MLX5_CMD_LAY_INLEN, 16);
    mlx5_st32(lay + MLX5_CMD_LAY_OUTLEN, 16);
    mlx5_st16(lay + MLX5_CMD_LAY_IN, MLX5_CMD_OP_QUERY_ISSI);
    lay[MLX5_CMD_LAY_STATUS_OWN] = 1;
    qt_write(q, slot_pa, lay, sizeof(lay));
    /* vector 1 (the CQs' EQ) now writes 1 << 30 to the command doorbell */
    qt_msix_vector(q, 1, QT_BAR0 + MLX5_ISEG_CMD_DBELL, bswap32(1u << slot), false);
    data_seg(segs, 64, a.key, a.mem);
    tqp_post_send(&a, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    g_assert_true(wait_cqe(q, &a, cqe, 20 * 1000 * 1000, 200));
    g_assert_cmpuint(cqe_opcode(cqe), ==, MLX5_CQE_REQ_ERR);
    g_assert_cmpuint(cqe[MLX5_CQE_syndrome], ==, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
    qt_clock_step(q, 1000000);
    qt_read(q, slot_pa + MLX5_CMD_LAY_STATUS_OWN, &own, 1);
    g_assert_cmpuint(own & 1, ==, 1);       /* not executed */
    /* the driver rings it itself: it runs */
    tdrv_mmio_wr32(d, MLX5_ISEG_CMD_DBELL, 1u << slot);
    for (unsigned i = 0; i < 1000 && (own & 1); i++) {
        qt_clock_step(q, 1000);
        qt_read(q, slot_pa + MLX5_CMD_LAY_STATUS_OWN, &own, 1);
    }
    g_assert_cmpuint(own, ==, 0);
    tdrv_free(d);
    quit(q, (const char *const[]){ "Blocked re-entrant IO", NULL });
}

/* A masked vector keeps its message pending (PBA) and delivers it on unmask; with MSI-X
 * disabled nothing is sent and nothing breaks. */
static void test_msix_mask(void)
{
    Qt *q = start("");
    TDrv *d = driver(q);
    TQp a, b;
    uint8_t segs[16], cqe[64];
    unsigned n;

    tqp_rc_pair(&a, d, &b, d);
    n = tdrv_irqs(d, 1);
    qt_msix_vector(q, 1, QT_MSI_PA + 4, 2, true);
    tqp_post_recv(&b, 64, b.mem);
    data_seg(segs, 64, a.key, a.mem);
    tqp_post_send(&a, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    g_assert_true(wait_cqe(q, &a, cqe, 1000, 2000));
    g_assert_true(wait_cqe(q, &b, cqe, 1000, 2000));
    qt_clock_step(q, 1000000);
    g_assert_cmpuint(tdrv_irqs(d, 1), ==, n);                       /* masked: nothing */
    g_assert_cmphex(qt_readl(q, QT_MSIX_BAR + 2048) & 2, ==, 2);    /* PBA bit 1 pending */
    qt_msix_vector(q, 1, QT_MSI_PA + 4, 2, false);
    qt_clock_step(q, 1000);
    g_assert_cmpuint(tdrv_irqs(d, 1), ==, n + 1);                   /* delivered on unmask */
    g_assert_cmphex(qt_readl(q, QT_MSIX_BAR + 2048) & 2, ==, 0);

    /* MSI-X off: traffic and commands (polled) go on, no message anywhere */
    qt_cfg_wr(q, q->msix_cap + 2, 2, 0);
    tqp_post_recv(&b, 64, b.mem);
    tqp_post_send(&a, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    g_assert_true(wait_cqe(q, &a, cqe, 1000, 2000));
    g_assert_cmpuint(cqe_opcode(cqe), ==, MLX5_CQE_REQ);
    g_assert_true(wait_cqe(q, &b, cqe, 1000, 2000));
    qt_clock_step(q, 1000000);
    g_assert_cmpuint(tdrv_irqs(d, 1), ==, n + 1);
    quit(q, NULL);
    tdrv_free(d);
}

/*
 * Reset in the middle of traffic: 16 RDMA WRITEs of 64 KiB posted, then the reset before they
 * can finish. Afterwards the device DMAs nothing into the old driver's memory, and a new driver
 * brings it up and moves data.
 */
static void reset_mid_traffic(bool flr)
{
    Qt *q = start("");
    TDrv *d = driver(q);
    TQp a, b;
    uint8_t segs[32];
    g_autofree uint8_t *before = NULL, *after = NULL;
    uint64_t used;

    tqp_rc_pair(&a, d, &b, d);
    tqp_pattern(d, a.mem, 65536, 1);
    for (unsigned i = 0; i < 16; i++) {
        raddr_seg(segs, b.mem + 65536 * (i % 8), b.key);
        data_seg(segs + 16, 65536, a.key, a.mem);
        tqp_post_send(&a, MLX5_OPCODE_RDMA_WRITE, 0, segs, 2, true, true);
    }
    if (flr) {
        unsigned devctl = q->pcie_cap + 8;
        g_assert_cmphex(qt_cfg_rd(q, q->pcie_cap + 4, 4) & (1u << 28), !=, 0);  /* FLR cap */
        qt_cfg_wr(q, devctl, 2, qt_cfg_rd(q, devctl, 2) | 0x8000);
    } else {
        g_free(qt_cmd(q, "outb 0xcf9 0x6"));      /* ICH9 reset control: system reset */
    }
    qt_clock_step(q, 1000);
    /* the old driver's memory: no DMA after the reset */
    used = d->h->brk - QT_ALLOC_LO;
    before = g_malloc(used);
    after = g_malloc(used);
    qt_read(q, QT_ALLOC_LO, before, used);
    qt_clock_step(q, 500 * 1000 * 1000);
    qt_read(q, QT_ALLOC_LO, after, used);
    g_assert_true(memcmp(before, after, used) == 0);
    /* BARs and MSI-X were reset with the function: a new driver sets it all up again */
    g_assert_cmphex(qt_cfg_rd(q, 0x10, 4) & ~0xfu, ==, 0);
    qt_pci_enable(q);
    g_assert_cmphex(tdrv_mmio_rd32(d, MLX5_ISEG_INITIALIZING) >> 31, ==, 0);
    tdrv_free(d);
    d = qt_tdrv(q, QT_ALLOC_LO + used);     /* in memory the old driver did not use */
    tdrv_bringup(d);
    tqp_rc_pair(&a, d, &b, d);
    traffic(q, d, &a, &b, 65536);
    tdrv_free(d);
    quit(q, NULL);
}

static void test_flr_mid_traffic(void)
{
    reset_mid_traffic(true);
}

static void test_system_reset_mid_traffic(void)
{
    reset_mid_traffic(false);
}

/* Where the VFs' BARs and driver memory go (the PF's driver keeps below VF_RAM). */
#define VF_BAR0     UINT64_C(0xc4000000)
#define VF_MSIX     UINT64_C(0xc8000000)
#define VF_RAM      UINT64_C(0x05000000)
#define VF_RAM_SIZE UINT64_C(0x04000000)

/* Command @op of @d with dword 2 @dw2 (a function id, a QPN, a CQN): its status. */
static int cmd_dw2(TDrv *d, uint16_t op, uint16_t op_mod, uint32_t dw2)
{
    g_autofree uint8_t *out = g_malloc0(1024);
    int st = tdrv_simple(d, op, op_mod, dw2, 0, out, 1024);

    g_test_message("command 0x%x dw2 0x%x: status 0x%x syndrome 0x%x", op, dw2, st,
                   tdrv_syndrome(out));
    return st;
}

/*
 * Hostile VFs (issue 29): two VFs made through the PF's SR-IOV capability, each driven by its
 * own mini driver over QEMU's PCI layer (its BARs, MSI-X and DMA), one of them hostile. It
 * cannot enable, disable or read another function, cannot name the PF's QPs, CQs or memory
 * keys (its commands fail; its SEND with the PF's lkey ends in a local protection error), and
 * its FLR, and the PF's taking the VFs away under their drivers, leave the PF and the other
 * VF working. (Which guest memory a function may reach by address is the IOMMU's to police;
 * a function's keys are its own by construction: each VF is a core of its own.)
 */
static void test_vf_isolation(void)
{
    Qt *q = start("");
    TDrv *d = tdrv_new_remote(&qt_remote_ops, q, QT_LID, QT_ALLOC_LO, VF_RAM);
    Qt *vq[2];
    TDrv *v[2];
    TQp a, b, va, vb;
    uint8_t segs[32];
    uint32_t pd;
    unsigned i, devctl;
    enum { BAD_PARAM = MLX5_CMD_STAT_BAD_PARAM_ERR, BAD_RES = MLX5_CMD_STAT_BAD_RES_ERR };

    tdrv_bringup(d);
    /* PF keys with indices beyond any the VF will have */
    pd = tdrv_alloc_pd(d);
    for (i = 0; i < 16; i++) {
        create_pa_mkey(d, pd);
    }
    tqp_rc_pair(&a, d, &b, d);
    traffic(q, d, &a, &b, 8192);

    qt_sriov_enable(q, 2, VF_BAR0, VF_MSIX);
    for (i = 0; i < 2; i++) {
        vq[i] = qt_vf(q, i, QT_MSI_PA + 0x1000 * (i + 1));
        v[i] = tdrv_new_remote(&qt_remote_ops, vq[i], 0, VF_RAM + i * VF_RAM_SIZE,
                               VF_RAM + (i + 1) * VF_RAM_SIZE);
        /* "initializing" until its PF enables it */
        g_assert_cmphex(tdrv_mmio_rd32(v[i], MLX5_ISEG_INITIALIZING) >> 31, ==, 1);
        g_assert_cmpint(cmd_dw2(d, MLX5_CMD_OP_ENABLE_HCA, 0, i + 1), ==, 0);
        g_assert_cmphex(tdrv_mmio_rd32(v[i], MLX5_ISEG_INITIALIZING) >> 31, ==, 0);
        tdrv_bringup(v[i]);
    }

    /* VF 0 may not enable, disable or read another function */
    g_assert_cmpint(cmd_dw2(v[0], MLX5_CMD_OP_ENABLE_HCA, 0, 2), ==, BAD_PARAM);
    g_assert_cmpint(cmd_dw2(v[0], MLX5_CMD_OP_DISABLE_HCA, 0, 2), ==, BAD_PARAM);
    g_assert_cmpint(cmd_dw2(v[0], MLX5_CMD_OP_QUERY_HCA_CAP, 1, 1u << 31 | 2), ==, BAD_PARAM);
    g_assert_cmpint(cmd_dw2(v[0], MLX5_CMD_OP_QUERY_HCA_CAP, 1, 1u << 31 | 0), ==, BAD_PARAM);
    g_assert_cmpint(cmd_dw2(v[1], MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0), ==, 0);
    /* nor name the PF's objects */
    g_assert_cmpint(cmd_dw2(v[0], MLX5_CMD_OP_QUERY_QP, 0, a.qpn), ==, BAD_RES);
    g_assert_cmpint(cmd_dw2(v[0], MLX5_CMD_OP_2RST_QP, 0, a.qpn), ==, BAD_RES);
    g_assert_cmpint(cmd_dw2(v[0], MLX5_CMD_OP_DESTROY_QP, 0, b.qpn), ==, BAD_RES);
    g_assert_cmpint(cmd_dw2(v[0], MLX5_CMD_OP_DESTROY_CQ, 0, a.cqn), ==, BAD_RES);
    g_assert_cmpint(cmd_dw2(v[0], MLX5_CMD_OP_DESTROY_MKEY, 0, a.key >> 8), ==, BAD_RES);
    traffic(q, d, &a, &b, 8192);
    /* nor use the PF's memory keys: its SEND with the PF's lkey fails locally */
    tqp_rc_pair(&va, v[0], &vb, v[0]);
    g_assert_cmphex(va.key >> 8, !=, a.key >> 8);
    g_assert_cmphex(vb.key >> 8, !=, a.key >> 8);
    data_seg(segs, 256, a.key, a.mem);
    expect_error(q, &va, MLX5_OPCODE_SEND, segs, 1, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);

    /* VF 0's FLR in the middle of the PF's traffic: the PF and VF 1 go on */
    for (i = 0; i < 4; i++) {
        raddr_seg(segs, b.mem, b.key);
        data_seg(segs + 16, 8192, a.key, a.mem);
        tqp_post_send(&a, MLX5_OPCODE_RDMA_WRITE, 0, segs, 2, false, true);
    }
    devctl = vq[0]->pcie_cap + 8;
    qt_cfg_wr(vq[0], devctl, 2, qt_cfg_rd(vq[0], devctl, 2) | 0x8000);
    qt_clock_step(q, 1000000);
    g_assert_cmphex(qt_cfg_rd(vq[0], 0x04, 2) & 0x6, ==, 0);     /* (it was reset) */
    traffic(q, d, &a, &b, 8192);
    g_assert_cmpint(cmd_dw2(v[1], MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0), ==, 0);

    /* the PF takes its VFs away under their drivers (VF Enable off): the PF goes on */
    qt_cfg_wr(q, 0x160 + 8, 2, 0);
    qt_clock_step(q, 1000000);
    traffic(q, d, &a, &b, 8192);
    for (i = 0; i < 2; i++) {
        tdrv_free(v[i]);
        g_free(vq[i]);
    }
    tdrv_free(d);
    quit(q, NULL);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5-pci/help", test_help);
    g_test_add_func("/mlx5-pci/bringup-traffic", test_bringup_traffic);
    g_test_add_func("/mlx5-pci/hostile/mkey-into-bar", test_mkey_into_bar);
    g_test_add_func("/mlx5-pci/hostile/msix-into-bar", test_msix_into_bar);
    g_test_add_func("/mlx5-pci/hostile/msix-mask", test_msix_mask);
    g_test_add_func("/mlx5-pci/hostile/flr-mid-traffic", test_flr_mid_traffic);
    g_test_add_func("/mlx5-pci/hostile/reset-mid-traffic", test_system_reset_mid_traffic);
    g_test_add_func("/mlx5-pci/hostile/vf-isolation", test_vf_isolation);
    return g_test_run();
}
