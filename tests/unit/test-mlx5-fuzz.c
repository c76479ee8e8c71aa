/*
 * Randomized robustness tests of the device core (run under ASan/UBSan): every command of the
 * dispatch table with random inputs, random send WQEs and doorbell records, random frames on
 * the link. The device may refuse anything, but must never crash, hang, or stop answering.
 * Seeds are fixed, so a failure reproduces; MLX5_FUZZ_ITERS raises the iteration count.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-testqp.h"
#include "mlx5_internal.h"
#include "mlx5_cmd.h"

static unsigned fuzz_iters(unsigned dflt)
{
    const char *e = getenv("MLX5_FUZZ_ITERS");

    return e ? (unsigned)strtoul(e, NULL, 0) : dflt;
}

/* The device still executes a simple command correctly. */
static void assert_alive(TDrv *d)
{
    uint8_t out[QUERY_ISSI_OUT_SIZE];
    int r = tdrv_simple(d, MLX5_CMD_OP_QUERY_ISSI, 0, 0, 0, out, sizeof(out));

    g_assert_true(r == 0 || r == MLX5_CMD_STAT_BAD_SYS_STATE_ERR);
}

static void test_fuzz_commands(void)
{
    const char *names[256];
    uint16_t ops[256];
    size_t nops = MIN(mlx5_cmd_table(names, ops, G_N_ELEMENTS(names)), G_N_ELEMENTS(ops));
    GRand *rnd = g_rand_new_with_seed(0x5eed);
    unsigned iters = fuzz_iters(3000), i;
    TDrv *d = tdrv_new();

    tdrv_bringup(d);
    /* random commands may destroy or add EQs: poll instead of expecting command EQEs */
    d->events = false;
    for (i = 0; i < iters; i++) {
        uint32_t inlen = g_rand_int_range(rnd, 8, 0x2000);
        uint32_t outlen = g_rand_int_range(rnd, 8, 0x2000);
        g_autofree uint8_t *in = g_malloc(inlen);
        g_autofree uint8_t *out = g_malloc(outlen);
        uint16_t opcode = g_rand_int_range(rnd, 0, 8) ? ops[g_rand_int_range(rnd, 0, nops)]
                                                      : g_rand_int_range(rnd, 0, 0x1000);
        uint32_t k;

        for (k = 0; k < inlen; k++) {
            in[k] = g_rand_int(rnd);
        }
        /* small numbers in the handle words make the lookups hit real objects */
        if (inlen >= 16 && g_rand_boolean(rnd)) {
            mlx5_st32(in + 8, g_rand_int_range(rnd, 0, 32));
        }
        /* leave the function alone: disabling it is legal but ends the session */
        if (opcode == MLX5_CMD_OP_DISABLE_HCA || opcode == MLX5_CMD_OP_TEARDOWN_HCA) {
            continue;
        }
        MLX5_SET(in, CMD_IN_opcode, opcode);
        MLX5_SET(in, CMD_IN_op_mod, g_rand_int_range(rnd, 0, 16));
        tdrv_exec(d, in, inlen, out, outlen);
        if (d->c->health_fatal) {
            break;
        }
    }
    g_assert_false(d->c->health_fatal);     /* input errors are never device-fatal */
    assert_alive(d);
    g_test_message("%u random commands", i);
    tdrv_free(d);
    g_rand_free(rnd);
}

/* Random frames, and random mutations of real frames, fed to the link. */
static void test_fuzz_frames(void)
{
    GRand *rnd = g_rand_new_with_seed(0xf4a3e);
    unsigned iters = fuzz_iters(20000), i;
    TDrv *d = tdrv_new();
    uint8_t frame[IB_MAX_FRAME];

    tdrv_bringup(d);
    for (i = 0; i < iters; i++) {
        IbPacket p = { 0 };
        size_t len, hlen;
        uint32_t crc, plen = g_rand_int_range(rnd, 0, 600);

        /* a well-formed header of a random opcode to a low QPN, then maybe corrupted */
        p.dlid = d->c->port.lid;
        p.slid = g_rand_int_range(rnd, 1, 0x100);
        p.opcode = g_rand_int_range(rnd, 0, 256);
        if (!ib_opcode_headers(p.opcode)) {
            p.opcode = IB_TRANSPORT_RC | g_rand_int_range(rnd, 0, 0x17);
        }
        p.dest_qpn = g_rand_int_range(rnd, 0, 8);
        p.psn = g_rand_int(rnd) & IB_PSN_MASK;
        p.pkey = 0xffff;
        p.reth_va = g_rand_int(rnd);
        p.reth_rkey = g_rand_int(rnd);
        p.reth_len = g_rand_int_range(rnd, 0, 1 << 20);
        p.pad = (4 - (plen & 3)) & 3;
        hlen = ib_wire_encode_hdr(&p, frame, plen);
        for (uint32_t k = 0; k < plen + p.pad; k++) {
            frame[hlen + k] = g_rand_int(rnd);
        }
        crc = ib_wire_icrc(frame, hlen, frame + hlen, plen + p.pad, 0);
        for (int k = 0; k < 4; k++) {
            frame[hlen + plen + p.pad + k] = crc >> (8 * k);
        }
        len = hlen + plen + p.pad + 4;
        if (g_rand_int_range(rnd, 0, 4) == 0) {
            frame[g_rand_int_range(rnd, 0, len)] ^= 1u << g_rand_int_range(rnd, 0, 8);
        }
        if (g_rand_int_range(rnd, 0, 8) == 0) {
            len = g_rand_int_range(rnd, 0, len);
        }
        mlx5_core_link_rx(d->c, 1, frame, len);
        mlx5_core_run(d->c, 64);
    }
    assert_alive(d);
    g_test_message("%u frames taken, %u rejected as malformed", trace_count("ib_rx"),
                   trace_count("ib_rx_bad"));
    g_assert_cmpuint(trace_count("ib_rx"), >, 0);
    tdrv_free(d);
    g_rand_free(rnd);
}

/* Random send WQEs behind doorbells on an RC and a UD QP, with random DBR counters. */
static void test_fuzz_wqes(void)
{
    GRand *rnd = g_rand_new_with_seed(0x3e5);
    unsigned iters = fuzz_iters(2000), i;
    TDrv *d = tdrv_new();
    uint32_t pd, cqn, qpn[3], lkey, keys[6], srqn, dctn;
    uint8_t qpc[MLX5_QPC_SIZE] = { 0 };
    Mlx5Qp *qp;

    tdrv_bringup(d);
    pd = tdrv_alloc_pd(d);
    {
        /* a local DMA key (PA, whole address space) for the well-formed WQEs */
        uint8_t in[MLX5_PAS_OFF] = { 0 }, out[16];
        uint8_t *mkc = in + CREATE_MKEY_MKC_OFF;
        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_MKEY);
        MLX5_SET(mkc, MKC_lr, 1);
        MLX5_SET(mkc, MKC_lw, 1);
        MLX5_SET(mkc, MKC_length64, 1);
        MLX5_SET(mkc, MKC_pd, pd);
        g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, 0);
        lkey = MLX5_GET(out, MKEY_IN_mkey_index) << 8;
    }
    /* UMR targets: free, UMR-enabled mkeys of every translation mode, and nested ones */
    for (int k = 0; k < 6; k++) {
        keys[k] = create_free_umr_mkey(d, pd, 1 + k % 3, 4 << (k / 3), 0);
    }
    cqn = tdrv_create_cq(d, d->async_eqn, 6, NULL, NULL);
    g_assert_cmpint(tdrv_create_qp(d, MLX5_QP_ST_RC, pd, cqn, 0, &qpn[0]), ==, 0);
    g_assert_cmpint(tdrv_create_qp(d, MLX5_QP_ST_UD, pd, cqn, 0, &qpn[1]), ==, 0);
    /* DC: a DCI, and a DCT on an SRQ that its WQEs name (with the right key or not) */
    {
        uint8_t in[0x80] = { 0 }, out[16];
        uint8_t *dctc = in + DCT_DCTC_OFF;
        g_assert_cmpint(tdrv_create_srq(d, pd, cqn, 4, 2, &srqn), ==, 0);
        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_DCT);
        MLX5_SET(dctc, DCTC_pd, pd);
        MLX5_SET(dctc, DCTC_cqn, cqn);
        MLX5_SET(dctc, DCTC_srqn_xrqn, srqn);
        MLX5_SET(dctc, DCTC_mtu, 3);
        MLX5_SET(dctc, DCTC_port, 1);
        MLX5_SET(dctc, DCTC_rwe, 1);
        MLX5_SET(dctc, DCTC_rre, 1);
        mlx5_st64(dctc + DCTC_dc_access_key_OFF, 0x1234);
        g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, 0);
        dctn = MLX5_GET(out, CREATE_DCT_OUT_dctn);
        g_assert_cmpint(tdrv_create_qp(d, MLX5_QP_ST_DCI, pd, cqn, srqn, &qpn[2]), ==, 0);
    }
    MLX5_SET(qpc + QPC_ADS_OFF, ADS_vhca_port_num, 1);
    MLX5_SET(qpc, QPC_mtu, 3);
    MLX5_SET(qpc + QPC_ADS_OFF, ADS_rlid, d->c->port.lid);
    for (int q = 0; q < 3; q++) {
        MLX5_SET(qpc, QPC_remote_qpn, qpn[q]);
        g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_RST2INIT_QP, qpn[q], qpc, 0), ==, 0);
        g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_INIT2RTR_QP, qpn[q], qpc, 0), ==, 0);
        g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_RTR2RTS_QP, qpn[q], qpc, 0), ==, 0);
    }
    for (i = 0; i < iters; i++) {
        uint8_t wqe[256], dbr[4];
        unsigned nbb = 2;
        uint32_t n = qpn[g_rand_int_range(rnd, 0, 3)];
        uint64_t sq_pa;
        unsigned slot;

        qp = mlx5_table_get(&d->c->qps, n);
        if (qp->state == MLX5_QP_STATE_ERR && g_rand_int_range(rnd, 0, 4) == 0) {
            /* bring it back: 2RST, then up again */
            tdrv_modify_qp(d, MLX5_CMD_OP_2RST_QP, n, NULL, 0);
            fake_wr32(d->h, qp->dbr_addr + 4, 0);  /* as libmlx5 does on reset */
            MLX5_SET(qpc, QPC_remote_qpn, n);
            tdrv_modify_qp(d, MLX5_CMD_OP_RST2INIT_QP, n, qpc, 0);
            tdrv_modify_qp(d, MLX5_CMD_OP_INIT2RTR_QP, n, qpc, 0);
            tdrv_modify_qp(d, MLX5_CMD_OP_RTR2RTS_QP, n, qpc, 0);
            qp = mlx5_table_get(&d->c->qps, n);
        }
        for (int k = 0; k < 256; k++) {
            wqe[k] = g_rand_int(rnd);
        }
        switch (g_rand_int_range(rnd, 0, 5)) {
        case 0:                                     /* a well-formed SEND */
            memset(wqe, 0, sizeof(wqe));
            mlx5_st16(wqe + 1, qp->sq_ci);
            wqe[3] = MLX5_OPCODE_SEND;
            wqe[7] = 2 + (qp->st == MLX5_QP_ST_UD || qp->st == MLX5_QP_ST_DCI ? 3 : 0);
            wqe[11] = 0x08;
            if (qp->st == MLX5_QP_ST_UD) {
                mlx5_st32(wqe + 16 + 8, n);
                mlx5_st16(wqe + 16 + 14, d->c->port.lid);
            }
            if (qp->st == MLX5_QP_ST_DCI) {         /* the DCT (or another), right key or not */
                mlx5_st64(wqe + 16, g_rand_int_range(rnd, 0, 4) ? 0x1234 : g_rand_int(rnd));
                mlx5_st32(wqe + 16 + 8, 0x80000000u |
                          (g_rand_int_range(rnd, 0, 4) ? dctn : g_rand_int_range(rnd, 0, 40)));
                mlx5_st16(wqe + 16 + 14, d->c->port.lid);
                wqe[16 + 12] = g_rand_int_range(rnd, 0, 2);     /* SL: a new connection */
            }
            mlx5_st32(wqe + 16 * (wqe[7] - 1), g_rand_int_range(rnd, 0, 2000));
            mlx5_st32(wqe + 16 * (wqe[7] - 1) + 4, lkey);
            mlx5_st64(wqe + 16 * (wqe[7] - 1) + 8, 0x100000);
            break;
        case 1:                                     /* plausible header, random body */
            mlx5_st16(wqe + 1, qp->sq_ci);
            wqe[3] = g_rand_int_range(rnd, 0, 0x13);
            wqe[7] = (wqe[7] & 0xc0) | g_rand_int_range(rnd, 1, 5);
            break;
        case 2:                                     /* a UMR on one of the test mkeys */
        case 3: {
            /* random flags, mask, offset and inline entries naming these keys (nesting,
             * repeat blocks, loops); or a pointer to random memory */
            uint32_t target = keys[g_rand_int_range(rnd, 0, 6)] | (wqe[12] & 1 ? wqe[13] : 0);
            unsigned n16 = g_rand_int_range(rnd, 0, 9);
            mlx5_st16(wqe + 1, qp->sq_ci);
            wqe[3] = MLX5_OPCODE_UMR;
            mlx5_st32(wqe + 12, target);
            wqe[16] &= 0xf8;
            mlx5_st16(wqe + 20, n16);
            mlx5_st16(wqe + 22, g_rand_int_range(rnd, 0, 4));
            mlx5_st32(wqe + 32, g_rand_int_range(rnd, 0, 8) ? 0 : g_rand_int(rnd));
            mlx5_st64(wqe + 24, g_rand_int_range(rnd, 0, 2) ? (0x203e20c3ull & g_rand_int(rnd))
                                                            : ((uint64_t)g_rand_int(rnd) << 32 |
                                                               g_rand_int(rnd)));
            wqe[64] &= 0x40;                        /* free or not */
            for (unsigned e = 0; e < 8; e++) {
                uint8_t *x = wqe + 128 + 16 * e;
                if (g_rand_int_range(rnd, 0, 2)) {
                    mlx5_st32(x + 4, g_rand_int_range(rnd, 0, 8) ? keys[g_rand_int_range(rnd, 0, 6)]
                                                                  : (e ? lkey : 0x400));
                }
            }
            if (wqe[16] & 0x80) {
                wqe[7] = 8 + MIN(n16, 8u);
            } else {
                wqe[7] = 9;
                mlx5_st32(wqe + 128, n16 * 16);
                mlx5_st32(wqe + 132, g_rand_int_range(rnd, 0, 2) ? lkey : g_rand_int(rnd));
                mlx5_st64(wqe + 136, 0x100000 + g_rand_int_range(rnd, 0, 0x10000));
            }
            nbb = (wqe[7] + 3) / 4;
            break;
        }
        default:                                    /* noise */
            break;
        }
        if (g_rand_int_range(rnd, 0, 6) == 0) {
            /* an RDMA WRITE/READ through one of the test mkeys, to itself */
            memset(wqe, 0, 64);
            mlx5_st16(wqe + 1, qp->sq_ci);
            wqe[3] = g_rand_int_range(rnd, 0, 2) ? MLX5_OPCODE_RDMA_WRITE : MLX5_OPCODE_RDMA_READ;
            wqe[7] = 3;
            wqe[11] = 0x08;
            mlx5_st64(wqe + 16, g_rand_int_range(rnd, 0, 0x3000));
            mlx5_st32(wqe + 24, keys[g_rand_int_range(rnd, 0, 6)]);
            mlx5_st32(wqe + 32, g_rand_int_range(rnd, 1, 9000));
            mlx5_st32(wqe + 36, lkey);
            mlx5_st64(wqe + 40, 0x200000);
            nbb = 1;
        }
        for (int b = 0; b < (int)nbb; b++) {    /* the WQE's basic blocks */
            slot = (qp->sq_ci + b) & (qp->sq_cnt - 1);
            sq_pa = mlx5_buf_addr(&qp->buf, qp->sq_off + slot * 64);
            fake_write(d->h, sq_pa, wqe + 64 * b, 64);
        }
        mlx5_st32(dbr, g_rand_int_range(rnd, 0, 4) ? (uint16_t)(qp->sq_ci + MAX(nbb, 1u + (wqe[7] > 4)))
                                                   : g_rand_int(rnd));
        fake_write(d->h, qp->dbr_addr + 4, dbr, 4);
        mlx5_core_mmio_write(d->c, ((uint64_t)d->uar << 12) + 0x800,
                             ((uint64_t)mlx5_ld32(wqe) << 32) | (n << 8), 8);
        for (int r = 0; r < 4 && mlx5_core_run(d->c, 64); r++) {
            /* bounded: the device must settle within a few runs */
        }
        /* deliver what it sent to itself (loopback) and let timers fire */
        while (d->h->tx->len) {
            GByteArray *f = g_ptr_array_steal_index(d->h->tx, 0);
            mlx5_core_link_rx(d->c, 1, f->data, f->len);
            g_byte_array_unref(f);
        }
        d->h->now += 10000000;
        mlx5_core_expire(d->c, d->h->now);
        /* consume the CQ so it never overruns for long */
        fake_wr32(d->h, ((Mlx5Cq *)mlx5_table_get(&d->c->cqs, cqn))->dbr_addr,
                  ((Mlx5Cq *)mlx5_table_get(&d->c->cqs, cqn))->pi);
    }
    g_assert_false(d->c->health_fatal);
    assert_alive(d);
    g_test_message("%u WQEs accepted, %u malformed, %u send completions", trace_count("mlx5_sq_wqe"),
                   trace_count("mlx5_err_sq_wqe"), trace_count("mlx5_send_done"));
    g_assert_cmpuint(trace_count("mlx5_sq_wqe"), >, 0);
    g_assert_cmpuint(trace_count("mlx5_err_sq_wqe"), >, 0);
    g_test_message("%u UMRs, %u applied, %u refused", trace_count("mlx5_umr"),
                   trace_count("mlx5_umr_done"), trace_count("mlx5_err_umr"));
    g_assert_cmpuint(trace_count("mlx5_umr_done"), >, 0);
    g_assert_cmpuint(trace_count("mlx5_err_umr"), >, 0);
    g_test_message("DC: %u connections, %u bound at the DCT, %u wrong keys",
                   trace_count("ib_dc_connect"), trace_count("ib_dct_bind"),
                   trace_count("ib_dct_key_violation"));
    g_assert_cmpuint(trace_count("ib_dct_bind"), >, 0);
    tdrv_free(d);
    g_rand_free(rnd);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/fuzz/commands", test_fuzz_commands);
    g_test_add_func("/mlx5/fuzz/frames", test_fuzz_frames);
    g_test_add_func("/mlx5/fuzz/wqes", test_fuzz_wqes);
    return g_test_run();
}
