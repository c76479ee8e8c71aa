/*
 * Unit tests of the Ethernet port (link-type=eth): caps and the eth-only commands, receive
 * steering (flow table -> TIR -> RQ, VLAN strip, the full-frame checksum, out-of-buffer drops;
 * chained tables, entry updates, several TIRs, local loopback and self-loopback blocking),
 * the send side (checksum offload, LSO), hostile WQEs and frames, and the Toeplitz hash.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-testeth.h"

static const uint8_t my_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t peer_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };

static TDrv *eth_node(void)
{
    return teth_node(my_mac);
}

static void eth_setup(TEth *t)
{
    teth_setup(t, eth_node());
}

static void eth_free(TEth *t)
{
    tdrv_free(t->d);
}

/* An Ethernet/IPv4/UDP frame of @payload bytes (checksums right unless @zero_csum). */
static size_t udp_frame(uint8_t *f, const uint8_t *dmac, size_t payload, bool zero_csum)
{
    size_t len = 14 + 20 + 8 + payload, i;
    IbEthHdr h;

    memset(f, 0, len);
    memcpy(f, dmac, 6);
    memcpy(f + 6, peer_mac, 6);
    mlx5_st16(f + 12, 0x0800);
    f[14] = 0x45;
    mlx5_st16(f + 16, 20 + 8 + payload);
    f[22] = 64;
    f[23] = 17;
    memcpy(f + 26, "\x0a\x00\x00\x02\x0a\x00\x00\x01", 8);
    mlx5_st16(f + 34, 4000);
    mlx5_st16(f + 36, 5000);
    mlx5_st16(f + 38, 8 + payload);
    for (i = 0; i < payload; i++) {
        f[42 + i] = i * 7 + 1;
    }
    if (!zero_csum) {
        g_assert_true(ib_eth_parse(f, len, &h));
        mlx5_st16(f + 24, ~ib_csum_fold(ib_csum_add(0, f + 14, 20)));
        /* UDP: pseudo header + segment, computed here independently of the device */
        uint32_t s = ib_csum_add(0, f + 26, 8) + 17 + 8 + payload;
        s = ib_csum_add(s, f + 34, 8 + payload);
        mlx5_st16(f + 40, ~ib_csum_fold(s) ? ~ib_csum_fold(s) : 0xffff);
    }
    return len;
}

static void test_caps(void)
{
    TDrv *ib = new_node(9);
    TEth t;
    uint8_t out[HCA_CAP_OFF + HCA_CAP_SIZE];

    /* an InfiniBand port has no Ethernet commands or pages */
    g_assert_cmpint(tdrv_simple(ib, MLX5_CMD_OP_QUERY_VPORT_STATE, 0, 0, 0, out, 16), ==,
                    MLX5_CMD_STAT_BAD_OP_ERR);
    g_assert_cmpint(tdrv_simple(ib, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_GENERAL << 1 | 1, 0, 0,
                                out, sizeof(out)), ==, 0);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, CAP_port_type), ==, 0);
    /* QUERY_LAG: no link aggregation (lag_state 0), as a single-port ConnectX-5 */
    memset(out, 0xff, 16);
    g_assert_cmpint(tdrv_simple(ib, MLX5_CMD_OP_QUERY_LAG, 0, 0, 0, out, 16), ==, 0);
    g_assert_cmphex(mlx5_ld32(out + 8), ==, 0);
    g_assert_cmphex(mlx5_ld32(out + 12), ==, 0);
    g_assert_cmpint(tdrv_simple(ib, MLX5_CMD_OP_QUERY_LAG, 0, 0, 0, out, 8), ==,
                    MLX5_CMD_STAT_BAD_OUTP_LEN_ERR);
    tdrv_free(ib);

    eth_setup(&t);
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_GENERAL << 1 | 1, 0, 0,
                                out, sizeof(out)), ==, 0);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, CAP_port_type), ==, 1);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, CAP_eth_net_offloads), ==, 1);
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_HCA_CAP,
                                MLX5_CAP_ETHERNET_OFFLOADS << 1 | 1, 0, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, ETH_CAP_csum_cap), ==, 1);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, ETH_CAP_max_lso_cap), ==, 18);
    /* the vport is up (link up, PAOS admin up), with our MAC */
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_VPORT_STATE, 0, 0, 0, out, 16), ==, 0);
    g_assert_cmpint(MLX5_GET(out, QUERY_VPORT_STATE_OUT_state), ==, 1);
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT, 0, 0, 0, out,
                                QUERY_NIC_VPORT_OUT_CTX_OFF + NVC_SIZE), ==, 0);
    g_assert_cmpmem(out + QUERY_NIC_VPORT_OUT_CTX_OFF + NVC_permanent_address_OFF, 6, my_mac, 6);
    /* a TIS with SQs on it is busy; an RQT of an SQ is refused */
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_DESTROY_TIS, 0, t.tisn, 0, out, 16), ==,
                    MLX5_CMD_STAT_RES_BUSY);
    g_assert_cmpint(teth_modify_wq(&t, MLX5_CMD_OP_MODIFY_SQ, t.sqn, 0, 1), ==,
                    MLX5_CMD_STAT_BAD_RES_STATE_ERR);       /* it is RDY, not RST */
    eth_free(&t);
}

static void test_rx(void)
{
    uint8_t f[256], cqe[64], got[256], out[Q_COUNTER_OUT_SIZE];
    TEth t;
    size_t len;
    uint32_t counter;

    eth_setup(&t);
    len = udp_frame(f, my_mac, 100, false);
    teth_post_recv(&t, 2048, t.mem);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
    g_assert_cmpint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, len);
    g_assert_cmpint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, 0);
    g_assert_cmpint(mlx5_ld32(cqe + MLX5_CQE_sop_drop_qpn) & 0xffffff, ==, 0x77);   /* flow tag */
    /* IP and UDP checksums are right, and check_sum is the sum of the bytes after the MACs
     * and type: a correct IPv4 header sums to 0xffff, so it is that plus the rest */
    g_assert_cmpint(cqe[MLX5_CQE_hds_ip_ext], ==, MLX5_CQE_L3_OK | MLX5_CQE_L4_OK);
    g_assert_cmpint(mlx5_ld16(cqe + MLX5_CQE_check_sum), ==,
                    ib_csum_fold(0xffff + ib_csum_add(0, f + 34, len - 34)));
    fake_read(t.d->h, t.mem, got, len);
    g_assert_cmpmem(got, len, f, len);

    /* another MAC: no rule takes it */
    len = udp_frame(f, peer_mac, 10, false);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_false(teth_poll_cqe(&t, cqe));

    /* C-tagged: delivered without the tag, which the CQE carries */
    len = udp_frame(f + 4, my_mac, 20, false);
    memmove(f, f + 4, 12);
    mlx5_st16(f + 12, 0x8100);
    mlx5_st16(f + 14, 0x2005);                  /* prio 1, VID 5 */
    teth_post_recv(&t, 2048, t.mem + 4096);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len + 4));
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, len);
    g_assert_cmpint(cqe[MLX5_CQE_l4_l3_hdr_type] & 1, ==, 1);
    g_assert_cmpint(mlx5_ld16(cqe + MLX5_CQE_vlan_info), ==, 0x2005);
    fake_read(t.d->h, t.mem + 4096 + 12, got, 2);
    g_assert_cmpint(mlx5_ld16(got), ==, 0x0800);

    /* too long for the posted buffer: dropped, the WQE stays */
    len = udp_frame(f, my_mac, 200, false);
    teth_post_recv(&t, 64, t.mem);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_false(teth_poll_cqe(&t, cqe));

    /* out of buffer: counted in the RQ's Q counter */
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_ALLOC_Q_COUNTER, 0, 0, 0, out, 16), ==, 0);
    counter = MLX5_GET(out, ALLOC_Q_COUNTER_OUT_counter_set_id);
    {
        uint8_t in[WQ_CREATE_PAS_OFF] = { 0 };
        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MODIFY_RQ);
        MLX5_SET(in, OBJ_IN_handle, t.rqn);
        MLX5_SET(in, OBJ_IN_state, 1);
        MLX5_SET(in + OBJ_CTX_OFF, RQC_state, 1);
        MLX5_SET(in + OBJ_CTX_OFF, RQC_counter_set_id, counter);
        mlx5_st64(in + OBJ_IN_modify_bitmask_OFF, MLX5_RQ_BITMASK_COUNTER_SET_ID);
        g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), out, 16), ==, 0);
    }
    len = udp_frame(f, my_mac, 10, false);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));   /* takes the 64-byte WQE */
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_false(teth_poll_cqe(&t, cqe));
    {
        uint8_t in[0x20] = { 0 };
        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_QUERY_Q_COUNTER);
        MLX5_SET(in, Q_COUNTER_IN_counter_set_id, counter);
        g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), out, sizeof(out)), ==, 0);
    }
    g_assert_cmpint(mlx5_ld32(out + Q_COUNTER_OUT_out_of_buffer_OFF), ==, 2);
    /* DEALLOC_Q_COUNTER: a 16-byte input naming the set in dword 2; the set is gone after */
    {
        uint8_t in[0x10] = { 0 }, q[0x20] = { 0 };
        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_DEALLOC_Q_COUNTER);
        MLX5_SET(in, DEALLOC_Q_COUNTER_IN_counter_set_id, counter);
        g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), out, 16), ==, 0);
        g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), out, 16), ==, MLX5_CMD_STAT_BAD_RES_ERR);
        MLX5_SET(q, CMD_IN_opcode, MLX5_CMD_OP_QUERY_Q_COUNTER);
        MLX5_SET(q, Q_COUNTER_IN_counter_set_id, counter);
        g_assert_cmpint(tdrv_exec(t.d, q, sizeof(q), out, sizeof(out)), ==,
                        MLX5_CMD_STAT_BAD_RES_ERR);
    }

    /* malformed frames from the fabric: dropped, nothing breaks */
    for (len = 0; len < 80; len++) {
        memset(f, 0xff, sizeof(f));
        memcpy(f, my_mac, 6);
        g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
        mlx5_st16(f + 12, 0x0800);
        f[14] = 0x4f;
        g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
        mlx5_st16(f + 12, 0x86dd);
        g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    }
    eth_free(&t);
}

/*
 * Poll the channel's CQ as mlx5e does with rx_cqe_compress on: a title CQE (format 3) stands
 * for byte_cnt CQEs, its mini CQEs (format @fmt) in the slot after it and every 8th slot
 * from the 8th. Each CQE comes out whole in @out (at most @max); @sessions counts the titles.
 * The slots a session took get an invalid owner byte, as the driver leaves them.
 */
static unsigned poll_comp(TEth *t, int fmt, bool striding, uint8_t (*out)[64], unsigned max,
                          unsigned *sessions)
{
    static const uint8_t zero64[64];
    unsigned nent = 1u << LOG_CQ, got = 0, i;
    uint8_t cqe[64], arr[64];

    mlx5_core_run(t->d->c, 1000);
    for (;;) {
        fake_read(t->d->h, teth_cqe(t, t->cq_ci), cqe, 64);
        if ((cqe[63] >> 4) == MLX5_CQE_INVALID || (cqe[63] & 1) != ((t->cq_ci / nent) & 1)) {
            break;
        }
        if (t->cqe_sz == MLX5_CQE_SZ_128_PAD) {
            /* a padded CQE's first half: zeros (the test wrote 0xee there) */
            fake_read(t->d->h, teth_cqe(t, t->cq_ci) - 64, arr, 64);
            g_assert_cmpmem(arr, 64, zero64, 64);
        }
        if (((cqe[63] >> 2) & 3) != MLX5_CQE_FORMAT_COMPRESSED) {
            g_assert_cmpuint(got, <, max);
            memcpy(out[got++], cqe, 64);
            t->cq_ci++;
            continue;
        }
        unsigned n = mlx5_ld32(cqe + MLX5_CQE_byte_cnt);
        uint16_t wc = mlx5_ld16(cqe + MLX5_CQE_wqe_counter);

        g_assert_cmpuint(n, >=, 2);
        g_assert_cmpuint(n, <=, MLX5_CQE_COMP_MAX);
        /* a session never crosses the end of the ring */
        g_assert_cmpuint((t->cq_ci & (nent - 1)) + n, <=, nent);
        (*sessions)++;
        for (i = 0; i < n; i++) {
            uint8_t *o = out[got];
            if (i % 8 == 0) {
                fake_read(t->d->h, teth_cqe(t, t->cq_ci + (i ? i : 1)), arr, 64);
            }
            g_assert_cmpuint(got, <, max);
            memcpy(o, cqe, 64);
            o[63] &= 0xf0;
            memcpy(o + MLX5_CQE_byte_cnt, arr + (i % 8) * 8 + 4, 4);
            if (fmt == MLX5_MINI_CQE_HASH) {
                memcpy(o + MLX5_CQE_rss_hash_result, arr + (i % 8) * 8, 4);
            } else {
                memcpy(o + MLX5_CQE_check_sum, arr + (i % 8) * 8, 2);
            }
            /*
             * the WQE counter, or (striding) the stride after the last one's; a stride-index
             * mini CQE names it
             */
            if (fmt == MLX5_MINI_CQE_CSUM_STRIDX) {
                g_assert_cmpint(mlx5_ld16(arr + (i % 8) * 8 + 2), ==, wc);
            }
            mlx5_st16(o + MLX5_CQE_wqe_counter, wc);
            wc += striding ? (mlx5_ld32(o + MLX5_CQE_byte_cnt) >> 16) & 0x7fff : 1;
            got++;
        }
        for (i = 0; i < n; i++) {
            uint8_t inv = 0xf0 | (((t->cq_ci + i) / nent) & 1);
            fake_write(t->d->h, teth_cqe(t, t->cq_ci + i) + 63, &inv, 1);
        }
        t->cq_ci += n;
    }
    fake_wr32(t->d->h, t->cq_dbr, t->cq_ci & 0xffffff);
    return got;
}

/*
 * CQE compression: the receive CQEs of one burst that agree but for what a mini CQE carries
 * come as one session; what breaks the agreement, the end of the burst, a query of the CQ and
 * the ring's free room end a session; every CQE comes out as it would uncompressed. The same
 * with 128-byte CQEs (cqe_compression_128: the title and the mini CQE arrays in the slots'
 * second halves) and padded ones (cqe_128_always: each CQE's line written whole, zeros first).
 */
static void test_cqe_comp(void)
{
    static const int fmts[] = { MLX5_MINI_CQE_CSUM, MLX5_MINI_CQE_HASH };
    static const unsigned szs[] = { MLX5_CQE_SZ_64, MLX5_CQE_SZ_128, MLX5_CQE_SZ_128_PAD };
    uint8_t f[300], out[64][64], ref[64][64], q[QUERY_CQ_OUT_SIZE], in[0x10] = { 0 };
    uint8_t junk[128];
    unsigned k, i, n, sessions, nref;
    size_t len[16];

    memset(junk, 0xee, sizeof(junk));
    for (k = 0; k < G_N_ELEMENTS(fmts) * G_N_ELEMENTS(szs); k++) {
        unsigned fmt = fmts[k % G_N_ELEMENTS(fmts)], sz = szs[k / G_N_ELEMENTS(fmts)];
        TEth t, u;

        /* the same burst of 12 frames, uncompressed (the reference) and compressed */
        teth_setup_cqe(&u, eth_node(), -1, 0, 0, sz);
        teth_setup_cqe(&t, eth_node(), fmt, 0, 0, sz);
        if (sz == MLX5_CQE_SZ_128_PAD) {
            for (i = 0; i < 1u << LOG_CQ; i++) {
                fake_write(t.d->h, teth_cqe(&t, i) - 64, junk, 64);
                fake_write(u.d->h, teth_cqe(&u, i) - 64, junk, 64);
            }
        }
        for (i = 0; i < 12; i++) {
            teth_post_recv(&u, 2048, u.mem + 2048 * (i & 7));
            teth_post_recv(&t, 2048, t.mem + 2048 * (i & 7));
        }
        for (i = 0; i < 12; i++) {
            len[i] = udp_frame(f, my_mac, 10 + 17 * i, false);
            g_assert_true(mlx5_core_link_rx(u.d->c, 1, f, len[i]));
            g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len[i]));
        }
        sessions = 0;
        nref = poll_comp(&u, fmt, false, ref, 64, &sessions);
        g_assert_cmpuint(nref, ==, 12);
        g_assert_cmpuint(sessions, ==, 0);
        n = poll_comp(&t, fmt, false, out, 64, &sessions);
        g_assert_cmpuint(n, ==, 12);
        g_assert_cmpuint(sessions, ==, 1);
        for (i = 0; i < n; i++) {
            g_assert_cmpint(mlx5_ld32(out[i] + MLX5_CQE_byte_cnt), ==, len[i]);
            /* equal but for the timestamp, and the field the mini CQE format drops */
            mlx5_st64(out[i] + MLX5_CQE_timestamp, 0);
            mlx5_st64(ref[i] + MLX5_CQE_timestamp, 0);
            if (fmt == MLX5_MINI_CQE_HASH) {
                mlx5_st16(out[i] + MLX5_CQE_check_sum, 0);
                mlx5_st16(ref[i] + MLX5_CQE_check_sum, 0);
            }
            g_assert_cmpmem(out[i], 63, ref[i], 63);
        }
        /* QUERY_CQ counts the CQEs of a session still being gathered */
        for (i = 0; i < 3; i++) {
            teth_post_recv(&t, 2048, t.mem);
            len[i] = udp_frame(f, my_mac, 40, false);
            g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len[i]));
        }
        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_QUERY_CQ);
        MLX5_SET(in, DEALLOC_IN_handle, t.cqn);
        g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), q, sizeof(q)), ==, 0);
        g_assert_cmpint(MLX5_GET(q + CREATE_CQ_CQC_OFF, CQC_producer_counter), ==, 15);
        g_assert_cmpint(MLX5_GET(q + CREATE_CQ_CQC_OFF, CQC_cqe_comp_en), ==, 1);
        g_assert_cmpint(MLX5_GET(q + CREATE_CQ_CQC_OFF, CQC_mini_cqe_res_format), ==, fmt);
        g_assert_cmpint(MLX5_GET(q + CREATE_CQ_CQC_OFF, CQC_cqe_sz), ==, sz);
        sessions = 0;
        g_assert_cmpuint(poll_comp(&t, fmt, false, out, 64, &sessions), ==, 3);
        g_assert_cmpuint(sessions, ==, 1);

        /* a C-tagged frame differs (tag, header flags): A A B A is a session, B, A */
        for (i = 0; i < 4; i++) {
            teth_post_recv(&t, 2048, t.mem + 2048 * i);
            if (i == 2) {
                len[i] = udp_frame(f + 4, my_mac, 20, false);
                memmove(f, f + 4, 12);
                mlx5_st16(f + 12, 0x8100);
                mlx5_st16(f + 14, 0x0005);
                g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len[i] + 4));
            } else {
                len[i] = udp_frame(f, my_mac, 20 + i, false);
                g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len[i]));
            }
        }
        sessions = 0;
        g_assert_cmpuint(poll_comp(&t, fmt, false, out, 64, &sessions), ==, 4);
        g_assert_cmpuint(sessions, ==, 1);
        for (i = 0; i < 4; i++) {
            g_assert_cmpint(mlx5_ld32(out[i] + MLX5_CQE_byte_cnt), ==, len[i]);
            g_assert_cmpint(mlx5_ld16(out[i] + MLX5_CQE_wqe_counter), ==, (15 + i) & 0xffff);
        }
        g_assert_cmpint(mlx5_ld16(out[2] + MLX5_CQE_vlan_info), ==, 5);
        /* bursts of 12 around the ring's end (128 CQEs): all come, sessions end there */
        for (n = 0, i = 0; i < 12 * 10; i++) {
            teth_post_recv(&t, 2048, t.mem + 2048 * (i & 7));
            len[0] = udp_frame(f, my_mac, 10 + i % 50, false);
            g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len[0]));
            if (i % 12 == 11) {
                n += poll_comp(&t, fmt, false, out, 64, &sessions);
            }
        }
        g_assert_cmpuint(n, ==, 120);
        /* a lone CQE is written as it is */
        teth_post_recv(&t, 2048, t.mem);
        g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len[3]));
        sessions = 0;
        g_assert_cmpuint(poll_comp(&t, fmt, false, out, 64, &sessions), ==, 1);
        g_assert_cmpuint(sessions, ==, 0);
        eth_free(&t);
        eth_free(&u);
    }

    /* what a ConnectX-5 does not compress: flow-tag mini CQEs, the enhanced layout, the L3/L4
     * mini CQE extension */
    {
        TDrv *d = eth_node();
        uint8_t cin[MLX5_PAS_OFF + 8] = { 0 }, cout[16];
        uint8_t *cqc = cin + CREATE_CQ_CQC_OFF;
        uint32_t eqn = tdrv_create_eq(d, 0, 7, 1, NULL);
        static const struct { unsigned sz, fmt, layout, ext; } bad[] = {
            { 0, 2, 0, 0 }, { 0, 0, 1, 0 }, { 0, 0, 0, 1 },
        };

        for (i = 0; i < G_N_ELEMENTS(bad); i++) {
            memset(cin, 0, sizeof(cin));
            MLX5_SET(cin, CMD_IN_opcode, MLX5_CMD_OP_CREATE_CQ);
            MLX5_SET(cqc, CQC_log_cq_size, 4);
            MLX5_SET(cqc, CQC_uar_page, d->uar);
            MLX5_SET(cqc, CQC_c_eqn, eqn);
            MLX5_SET(cqc, CQC_cqe_comp_en, 1);
            MLX5_SET(cqc, CQC_cqe_sz, bad[i].sz);
            MLX5_SET(cqc, CQC_mini_cqe_res_format, bad[i].fmt);
            MLX5_SET(cqc, CQC_cqe_comp_layout, bad[i].layout);
            MLX5_SET(cqc, CQC_mini_cqe_res_format_ext, bad[i].ext);
            MLX5_SET64(cqc, CQC_dbr_addr_OFF, fake_alloc(d->h, 64, 64));
            mlx5_st64(cin + MLX5_PAS_OFF, fake_alloc(d->h, 4096, 4096));
            g_assert_cmpint(tdrv_exec(d, cin, sizeof(cin), cout, sizeof(cout)), ==,
                            MLX5_CMD_STAT_BAD_PARAM_ERR);
            g_assert_cmphex(mlx5_ld32(cout + 4), ==, MLX5_SYND_UNSUPPORTED);
        }
        tdrv_free(d);
    }
}

/*
 * Striding RQs: frames fill a WQE's 64-byte strides in order, each CQE names the WQE, its first
 * stride and the strides it took; one that does not fit ends the WQE with a filler CQE; the
 * linked list's next WQE is the one the finished WQE's next_wqe_index names (the cyclic RQ's,
 * the next in the ring); a frame longer than a WQE is dropped; with compression the CQEs of a
 * burst come as a session whose stride indexes follow from the strides each took.
 */
static void test_striding(void)
{
    uint8_t f[600], cqe[64], got[600], out[16][64];
    unsigned sessions, n, i, type, k;
    size_t len;
    TEth t;

    for (type = MLX5_WQ_TYPE_LL_STRIDING; type <= MLX5_WQ_TYPE_CYCLIC_STRIDING; type++) {
        bool ll = type == MLX5_WQ_TYPE_LL_STRIDING;

        teth_setup_ex(&t, eth_node(), -1, type, 3);       /* 8 strides of 64 bytes */
        /* WQE 0 is followed by WQE 2 (linked list), WQE 1 never gets a frame there */
        teth_post_mpwqe(&t, 2, 512, t.mem);
        teth_post_mpwqe(&t, 2, 512, t.mem + 4096);
        teth_post_mpwqe(&t, 1, 512, t.mem + 8192);
        /* three frames of 2 strides each: strides 0, 2, 4 of WQE 0 */
        for (i = 0; i < 3; i++) {
            len = udp_frame(f, my_mac, 60 + i, false);
            g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
            g_assert_true(teth_poll_cqe(&t, cqe));
            g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
            g_assert_cmpint(mlx5_ld16(cqe + 2), ==, 0);
            g_assert_cmpint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, 2 * i);
            g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 2u << 16 | len);
            fake_read(t.d->h, t.mem + 128 * i, got, len);
            g_assert_cmpmem(got, len, f, len);
        }
        /* 4 strides do not fit in the 2 left: a filler for them, then the next WQE */
        len = udp_frame(f, my_mac, 200, false);
        g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
        g_assert_true(teth_poll_cqe(&t, cqe));
        g_assert_cmpint(mlx5_ld16(cqe + 2), ==, 0);
        g_assert_cmpint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, 6);
        g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 0x80000000u | 2u << 16);
        g_assert_true(teth_poll_cqe(&t, cqe));
        g_assert_cmpint(mlx5_ld16(cqe + 2), ==, ll ? 2 : 1);
        g_assert_cmpint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, 0);
        g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 4u << 16 | len);
        fake_read(t.d->h, t.mem + (ll ? 8192 : 4096), got, len);
        g_assert_cmpmem(got, len, f, len);
        /* longer than a whole WQE (512 bytes): dropped */
        len = udp_frame(f, my_mac, 500, false);
        g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
        g_assert_false(teth_poll_cqe(&t, cqe));
        g_assert_cmpint(t.d->c->eth->cnt.rx_errors, ==, 1);

        /* out of WQEs: the current WQE has 4 strides left (two frames of 2), the last posted
         * one (WQE 1, which WQE 2 names; the ring's next, WQE 2) takes four, then none is left */
        for (i = 0; i < 7; i++) {
            len = udp_frame(f, my_mac, 60, false);
            g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
        }
        for (n = 0; teth_poll_cqe(&t, cqe); n++) {
            g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 2u << 16 | len);
            g_assert_cmpint(mlx5_ld16(cqe + 2), ==, n < 2 ? (ll ? 2 : 1) : (ll ? 1 : 2));
            g_assert_cmpint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, n < 2 ? 4 + 2 * n
                                                                              : 2 * (n - 2));
        }
        g_assert_cmpuint(n, ==, 6);
        eth_free(&t);
    }

    /* contexts out of range: 4 strides (under ext_stride_num_range's 8), a 16-byte WQE (no
     * room for the next and data segments) */
    {
        static const struct { unsigned nfield, log_stride; uint32_t synd; } bad[] = {
            { 9, 5, MLX5_SYND_BAD_SIZE }, { 10, 4, MLX5_SYND_BAD_STRIDE },
        };
        eth_setup(&t);
        for (i = 0; i < G_N_ELEMENTS(bad); i++) {
            uint8_t in[WQ_CREATE_PAS_OFF + 8] = { 0 }, out[16];
            uint8_t *wq = in + OBJ_CTX_OFF + WQC_OFF;

            MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_RQ);
            MLX5_SET(in + OBJ_CTX_OFF, RQC_cqn, t.cqn);
            teth_wq_ctx(&t, in, bad[i].log_stride, 4, t.rq_buf, t.rq_dbr);
            MLX5_SET(wq, WQ_wq_type, MLX5_WQ_TYPE_LL_STRIDING);
            MLX5_SET(wq, WQ_log_wqe_num_of_strides, bad[i].nfield);
            g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), out, sizeof(out)), ==,
                            MLX5_CMD_STAT_BAD_PARAM_ERR);
            g_assert_cmphex(mlx5_ld32(out + 4), ==, bad[i].synd);
        }
        eth_free(&t);
    }

    /*
     * a compressing CQ: the burst's CQEs come as one session, strides following (checksum mini
     * CQEs, and those with the stride index: mini_cqe_resp_stride_index)
     */
    for (k = 0; k < 2; k++) {
        unsigned fmt = k ? MLX5_MINI_CQE_CSUM_STRIDX : MLX5_MINI_CQE_CSUM;

        teth_setup_ex(&t, eth_node(), fmt, MLX5_WQ_TYPE_LL_STRIDING, 4);
        teth_post_mpwqe(&t, 1, 1024, t.mem);
        teth_post_mpwqe(&t, 2, 1024, t.mem + 4096);
        for (i = 0; i < 5; i++) {
            len = udp_frame(f, my_mac, 30 + 40 * i, false);
            g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
        }
        sessions = 0;
        n = poll_comp(&t, fmt, true, out, 16, &sessions);
        g_assert_cmpuint(sessions, ==, 1);
        g_assert_cmpuint(n, ==, 5);
        for (i = 0, len = 0; i < 5; i++) {
            size_t flen = 14 + 20 + 8 + 30 + 40 * i;
            unsigned strides = (flen + 63) / 64;
            g_assert_cmpint(mlx5_ld16(out[i] + 2), ==, 0);
            g_assert_cmpint(mlx5_ld16(out[i] + MLX5_CQE_wqe_counter), ==, len);
            g_assert_cmphex(mlx5_ld32(out[i] + MLX5_CQE_byte_cnt), ==, strides << 16 | flen);
            udp_frame(f, my_mac, 30 + 40 * i, false);
            fake_read(t.d->h, t.mem + 64 * len, got, flen);
            g_assert_cmpmem(got, flen, f, flen);
            len += strides;
        }
        eth_free(&t);
    }
}

static GByteArray *tx_frame(TEth *t, unsigned i)
{
    g_assert_cmpuint(t->d->h->tx->len, >, i);
    return g_ptr_array_index(t->d->h->tx, i);
}

static bool sums_ok(const uint8_t *f, size_t len)
{
    IbEthHdr h;
    uint32_t s;
    size_t l4len;

    g_assert_true(ib_eth_parse(f, len, &h));
    if (ib_csum_fold(ib_csum_add(0, f + h.l3, 20)) != 0xffff) {
        return false;
    }
    l4len = h.l3_len - 20;
    s = ib_csum_add(ib_csum_add(0, h.src, 4), h.dst, 4) + h.proto + l4len;
    return ib_csum_fold(ib_csum_add(s, f + h.l4, l4len)) == 0xffff;
}

static void test_tx(void)
{
    uint8_t f[4096], cqe[64];
    GByteArray *g;
    TEth t;
    size_t len;
    unsigned i;

    eth_setup(&t);
    /* checksum offload: headers inline, the payload through the PA key */
    len = udp_frame(f, peer_mac, 300, true);
    fake_write(t.d->h, t.mem, f + 42, 300);
    teth_post_send(&t, MLX5_OPCODE_SEND, MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM, 0, f, 42,
                   300, t.mem, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_cmpint(mlx5_ld32(cqe + MLX5_CQE_sop_drop_qpn) & 0xffffff, ==, t.sqn);
    g = tx_frame(&t, 0);
    g_assert_cmpint(g->len, ==, len);
    g_assert_true(sums_ok(g->data, g->len));
    g_assert_cmpmem(g->data + 42, 300, f + 42, 300);

    /* LSO: a TCP frame of 2500 payload bytes, mss 1000 -> 1000, 1000, 500 */
    memset(f, 0, 66);
    memcpy(f, peer_mac, 6);
    memcpy(f + 6, my_mac, 6);
    mlx5_st16(f + 12, 0x0800);
    f[14] = 0x45;
    mlx5_st16(f + 16, 52 + 2500);               /* the whole super-packet, as Linux sends it */
    mlx5_st16(f + 18, 0x1234);
    f[22] = 64;
    f[23] = 6;
    memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
    mlx5_st32(f + 38, 1000000);
    f[46] = 0x80;                               /* doff 8: 32-byte TCP header */
    f[47] = 0x19;                               /* FIN, PSH, ACK */
    for (i = 0; i < 2500; i++) {
        f[66 + i] = i * 13;
    }
    fake_write(t.d->h, t.mem, f + 66, 2500);
    teth_post_send(&t, MLX5_OPCODE_LSO, 0, 1000, f, 66, 2500, t.mem, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_cmpuint(t.d->h->tx->len, ==, 4);
    for (i = 0; i < 3; i++) {
        size_t n = i < 2 ? 1000 : 500;
        g = tx_frame(&t, 1 + i);
        g_assert_cmpint(g->len, ==, 66 + n);
        g_assert_true(sums_ok(g->data, g->len));
        g_assert_cmpint(mlx5_ld16(g->data + 16), ==, 52 + n);          /* IP length */
        g_assert_cmpint(mlx5_ld16(g->data + 18), ==, 0x1234 + i);      /* IP id */
        g_assert_cmpint(mlx5_ld32(g->data + 38), ==, 1000000 + 1000 * i);
        g_assert_cmpint(g->data[47], ==, i < 2 ? 0x10 : 0x19);
        g_assert_cmpmem(g->data + 66, n, f + 66 + 1000 * i, n);
    }

    /* completion modes: CE 1 (DPDK's "first error only") and 0 give no CQE on success; the
     * next WQE with CE 2 gives one, for itself */
    for (i = 0; i < 2; i++) {
        teth_fm_ce_se = i << 2;
        teth_post_send(&t, MLX5_OPCODE_SEND, 0, 0, f, 66, 0, 0, -1);
        g_assert_false(teth_poll_cqe(&t, cqe));
    }
    teth_fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
    teth_post_send(&t, MLX5_OPCODE_SEND, 0, 0, f, 66, 0, 0, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_cmpint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, t.sq_pi - 2);
    g_assert_false(teth_poll_cqe(&t, cqe));
    g_assert_cmpuint(t.d->h->tx->len, ==, 7);
    /* ... and an error gives its CQE whatever the mode */
    teth_fm_ce_se = 1 << 2;

    /* hostile: inline headers reaching beyond the WQE's segments -> error CQE, SQ in error */
    teth_post_send(&t, MLX5_OPCODE_SEND, 0, 0, f, 60, 0, 0, 3);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    g_assert_cmpint(cqe[MLX5_CQE_syndrome], ==, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
    teth_fm_ce_se = MLX5_WQE_CTRL_CE_MASK;
    /* what follows is flushed */
    teth_post_send(&t, MLX5_OPCODE_NOP, 0, 0, NULL, 0, 0, 0, 1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[MLX5_CQE_syndrome], ==, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
    g_assert_cmpuint(t.d->h->tx->len, ==, 7);
    /* recovery as mlx5e does it: ERR -> RST -> RDY, then a zero-DS WQE is refused */
    g_assert_cmpint(teth_modify_wq(&t, MLX5_CMD_OP_MODIFY_SQ, t.sqn, 3, 0), ==, 0);
    g_assert_cmpint(teth_modify_wq(&t, MLX5_CMD_OP_MODIFY_SQ, t.sqn, 0, 1), ==, 0);
    t.sq_pi = 0;
    teth_post_send(&t, MLX5_OPCODE_SEND, 0, 0, f, 42, 0, 0, 0);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    g_assert_cmpint(cqe[MLX5_CQE_syndrome], ==, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);

    /* fault injection (mlx5_inject.c): the next WQE of this SQ fails as asked, nothing sent */
    g_assert_cmpint(teth_modify_wq(&t, MLX5_CMD_OP_MODIFY_SQ, t.sqn, 3, 0), ==, 0);
    g_assert_cmpint(teth_modify_wq(&t, MLX5_CMD_OP_MODIFY_SQ, t.sqn, 0, 1), ==, 0);
    t.sq_pi = 0;
    {
        g_autofree char *req = g_strdup_printf("wqe-error qpn=0x%x syndrome=0x1", t.sqn);

        g_assert_null(mlx5_core_inject(t.d->c, req));
    }
    teth_post_send(&t, MLX5_OPCODE_SEND, 0, 0, f, 66, 0, 0, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    g_assert_cmpint(cqe[MLX5_CQE_syndrome], ==, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
    g_assert_cmpuint(t.d->h->tx->len, ==, 7);
    /* and after mlx5e's recovery the SQ sends again */
    g_assert_cmpint(teth_modify_wq(&t, MLX5_CMD_OP_MODIFY_SQ, t.sqn, 3, 0), ==, 0);
    g_assert_cmpint(teth_modify_wq(&t, MLX5_CMD_OP_MODIFY_SQ, t.sqn, 0, 1), ==, 0);
    t.sq_pi = 0;
    teth_post_send(&t, MLX5_OPCODE_SEND, 0, 0, f, 66, 0, 0, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_cmpuint(t.d->h->tx->len, ==, 8);
    eth_free(&t);
}

/* ---- VXLAN: the UDP port table, inner checksums and LSO of tunnelled frames ---------------- */

/* A VXLAN frame to UDP port @dport: outer Ethernet, IPv4, UDP, VXLAN, inner Ethernet, IPv4 and
 * a 20-byte TCP header (104 header bytes; IP lengths for @payload bytes after them), the
 * checksums left 0 but the outer UDP one, set to 0xabcd. */
static void vxlan_hdr(uint8_t *f, uint16_t dport, size_t payload)
{
    memset(f, 0, 104);
    memcpy(f, peer_mac, 6);
    memcpy(f + 6, my_mac, 6);
    mlx5_st16(f + 12, 0x0800);
    f[14] = 0x45;
    mlx5_st16(f + 16, 90 + payload);
    mlx5_st16(f + 18, 0x4000);
    f[22] = 64;
    f[23] = 17;
    memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
    mlx5_st16(f + 34, 50000);
    mlx5_st16(f + 36, dport);
    mlx5_st16(f + 38, 70 + payload);
    mlx5_st16(f + 40, 0xabcd);
    f[42] = 0x08;                               /* VXLAN: I flag, VNI 42 */
    mlx5_st32(f + 46, 42 << 8);
    memcpy(f + 50, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
    mlx5_st16(f + 62, 0x0800);
    f[64] = 0x45;
    mlx5_st16(f + 66, 40 + payload);
    mlx5_st16(f + 68, 0x1111);
    f[72] = 64;
    f[73] = 6;
    memcpy(f + 76, "\xc0\xa8\x01\x01\xc0\xa8\x01\x02", 8);
    mlx5_st16(f + 84, 1234);
    mlx5_st16(f + 86, 80);
    mlx5_st32(f + 88, 7000);
    f[96] = 0x50;                               /* doff 5 */
    f[97] = 0x18;                               /* PSH, ACK */
}

static bool ipv4_hdr_ok(const uint8_t *f)
{
    return ib_csum_fold(ib_csum_add(0, f + 14, 20)) == 0xffff;
}

static void test_vxlan(void)
{
    uint8_t cap[HCA_CAP_OFF + HCA_CAP_SIZE], f[4096], cqe[64], out[16];
    const uint8_t cs = MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L3_INNER_CSUM |
                       MLX5_ETH_WQE_L4_INNER_CSUM;
    GByteArray *g;
    unsigned i, sent;
    TEth t;

    eth_setup(&t);
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_HCA_CAP,
                                MLX5_CAP_ETHERNET_OFFLOADS << 1 | 1, 0, 0, cap, sizeof(cap)), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, ETH_CAP_tunnel_stateless_vxlan), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, ETH_CAP_max_vxlan_udp_ports), ==, 4);

    /* the table: 4789 from power-on (added again: no change), three more, then full */
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_ADD_VXLAN_UDP_DPORT, 0, 0, 4789, out,
                                sizeof(out)), ==, 0);
    for (i = 0; i < 3; i++) {
        g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_ADD_VXLAN_UDP_DPORT, 0, 0, 8472 + i, out,
                                    sizeof(out)), ==, 0);
    }
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_ADD_VXLAN_UDP_DPORT, 0, 0, 9000, out,
                                sizeof(out)), ==, MLX5_CMD_STAT_NO_RES_ERR);
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_ADD_VXLAN_UDP_DPORT, 0, 0, 0, out,
                                sizeof(out)), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_DELETE_VXLAN_UDP_DPORT, 0, 0, 9000, out,
                                sizeof(out)), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    for (i = 0; i < 3; i++) {
        g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_DELETE_VXLAN_UDP_DPORT, 0, 0, 8472 + i, out,
                                    sizeof(out)), ==, 0);
    }

    /* checksums: the outer IPv4 header and the inner IPv4 and TCP; the outer UDP one stays */
    vxlan_hdr(f, 4789, 300);
    for (i = 0; i < 300; i++) {
        f[104 + i] = i * 7;
    }
    fake_write(t.d->h, t.mem, f + 104, 300);
    teth_post_send(&t, MLX5_OPCODE_SEND, cs, 0, f, 104, 300, t.mem, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g = tx_frame(&t, 0);
    g_assert_cmpint(g->len, ==, 404);
    g_assert_true(ipv4_hdr_ok(g->data));
    g_assert_cmpint(mlx5_ld16(g->data + 40), ==, 0xabcd);
    g_assert_true(sums_ok(g->data + 50, g->len - 50));
    g_assert_cmpmem(g->data + 104, 300, f + 104, 300);

    /* the same to a port not in the table: no tunnel, the inner flags do nothing */
    vxlan_hdr(f, 8472, 300);
    teth_post_send(&t, MLX5_OPCODE_SEND, cs, 0, f, 104, 300, t.mem, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g = tx_frame(&t, 1);
    g_assert_true(ipv4_hdr_ok(g->data));
    g_assert_false(sums_ok(g->data + 50, g->len - 50));

    /* LSO of the inner TCP: 2500 bytes, mss 1000; the outer headers follow each segment */
    vxlan_hdr(f, 4789, 2500);
    for (i = 0; i < 2500; i++) {
        f[104 + i] = i * 11;
    }
    fake_write(t.d->h, t.mem, f + 104, 2500);
    teth_post_send(&t, MLX5_OPCODE_LSO, cs, 1000, f, 104, 2500, t.mem, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_cmpuint(t.d->h->tx->len, ==, 5);
    for (i = 0; i < 3; i++) {
        size_t n = i < 2 ? 1000 : 500;
        g = tx_frame(&t, 2 + i);
        g_assert_cmpint(g->len, ==, 104 + n);
        g_assert_true(ipv4_hdr_ok(g->data));
        g_assert_cmpint(mlx5_ld16(g->data + 16), ==, 90 + n);          /* outer IP length */
        g_assert_cmpint(mlx5_ld16(g->data + 18), ==, 0x4000 + i);      /* outer IP id */
        g_assert_cmpint(mlx5_ld16(g->data + 38), ==, 70 + n);          /* UDP length */
        g_assert_cmpint(mlx5_ld16(g->data + 40), ==, 0xabcd);
        g_assert_true(sums_ok(g->data + 50, g->len - 50));
        g_assert_cmpint(mlx5_ld16(g->data + 66), ==, 40 + n);          /* inner IP length */
        g_assert_cmpint(mlx5_ld16(g->data + 68), ==, 0x1111 + i);
        g_assert_cmpint(mlx5_ld32(g->data + 88), ==, 7000 + 1000 * i);
        g_assert_cmpint(g->data[97], ==, i < 2 ? 0x10 : 0x18);
        g_assert_cmpmem(g->data + 104, n, f + 104 + 1000 * i, n);
    }

    /* hostile: a tunnel whose inner frame is cut short is no tunnel (an LSO of it cuts the
     * outer UDP); an LSO of a tunnel whose inner frame has no TCP or UDP is an error CQE */
    sent = t.d->h->tx->len;
    vxlan_hdr(f, 4789, 0);
    teth_post_send(&t, MLX5_OPCODE_SEND, cs, 0, f, 56, 0, 0, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    teth_post_send(&t, MLX5_OPCODE_LSO, cs, 1000, f, 56, 0, 0, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_cmpuint(t.d->h->tx->len, ==, sent + 2);
    g = tx_frame(&t, sent + 1);
    g_assert_cmpint(mlx5_ld16(g->data + 38), ==, 8 + 14);
    vxlan_hdr(f, 4789, 0);
    f[73] = 1;                                  /* inner ICMP */
    teth_post_send(&t, MLX5_OPCODE_LSO, cs, 1000, f, 104, 0, 0, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    g_assert_cmpuint(t.d->h->tx->len, ==, sent + 2);
    eth_free(&t);
}

/*
 * A root table (missing to the MAC table) with one entry: frames matching @value under
 * @criteria (match_criteria_enable @mce; NULL and 0: every frame) are decapped (DECAP, or with
 * @reformat the packet reformat context @reformat) and go to the TIR.
 */
static void decap_root_as(TEth *t, unsigned mce, const uint8_t *criteria, const uint8_t *value,
                          uint32_t reformat)
{
    uint8_t in[0x400] = { 0 }, out[16];
    uint32_t ft, fg;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_TABLE);
    MLX5_SET(in + FT_CTX_OFF, FTC_level, 1);
    MLX5_SET(in + FT_CTX_OFF, FTC_log_size, 1);
    MLX5_SET(in + FT_CTX_OFF, FTC_table_miss_action, MLX5_FT_MISS_ACTION_FWD);
    MLX5_SET(in + FT_CTX_OFF, FTC_table_miss_id, t->ft);
    ft = teth_obj_create(t->d, MLX5_CMD_OP_CREATE_FLOW_TABLE, in, 0x40);
    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in, FG_IN_end_flow_index, 1);
    MLX5_SET(in, FG_IN_match_criteria_enable, mce);
    if (criteria) {
        memcpy(in + FG_IN_criteria_OFF, criteria, MLX5_FTE_MATCH_PARAM_SIZE);
    }
    g_assert_cmpint(tdrv_exec(t->d, in, sizeof(in), out, 16), ==, 0);
    fg = MLX5_GET(out, FG_OUT_group_id);
    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in + FTE_CTX_OFF, FC_group_id, fg);
    MLX5_SET(in + FTE_CTX_OFF, FC_action, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST |
             (reformat ? MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT
                       : MLX5_FLOW_CONTEXT_ACTION_DECAP));
    MLX5_SET(in + FTE_CTX_OFF, FC_packet_reformat_id, reformat);
    MLX5_SET(in + FTE_CTX_OFF, FC_destination_list_size, 1);
    if (value) {
        memcpy(in + FTE_CTX_OFF + FC_match_value_OFF, value, MLX5_FTE_MATCH_PARAM_SIZE);
    }
    MLX5_SET(in + FTE_CTX_OFF + FC_dest_OFF, DEST_type, MLX5_FLOW_DEST_TYPE_TIR);
    MLX5_SET(in + FTE_CTX_OFF + FC_dest_OFF, DEST_id, t->tirn);
    g_assert_cmpint(tdrv_exec(t->d, in, FTE_CTX_OFF + FC_dest_OFF + 8, out, 16), ==, 0);
    memset(in, 0, sizeof(in));
    MLX5_SET(in, FT_IN_table_id, ft);
    teth_obj_create(t->d, MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, in, 0x40);
}

static void decap_root(TEth *t, unsigned mce, const uint8_t *criteria, const uint8_t *value)
{
    decap_root_as(t, mce, criteria, value, 0);
}

/*
 * DECAP: a root table whose group matches the VNI and the inner IP protocol (misc and inner
 * headers); its entry for VNI 42 / inner TCP takes the tunnel headers off and forwards to the
 * TIR; other frames miss to the MAC table and arrive whole.
 */
static void test_decap(void)
{
    uint8_t cap[HCA_CAP_OFF + HCA_CAP_SIZE], out[16], f[512], got[512], cqe[64];
    uint8_t crit[MLX5_FTE_MATCH_PARAM_SIZE] = { 0 }, val[MLX5_FTE_MATCH_PARAM_SIZE] = { 0 };
    size_t len = 104 + 40;
    TEth t;

    eth_setup(&t);
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_FLOW_TABLE << 1 | 1, 0,
                                0, cap, sizeof(cap)), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_decap), ==, 1);
    MLX5_SET(crit, MS_vxlan_vni, 0xffffff);                     /* misc, inner */
    MLX5_SET(crit + MS_INNER_OFF, MS_ip_protocol, 0xff);
    MLX5_SET(val, MS_vxlan_vni, 42);
    MLX5_SET(val + MS_INNER_OFF, MS_ip_protocol, 6);
    decap_root(&t, 6, crit, val);

    /* VNI 42, inner TCP: the inner frame arrives */
    vxlan_hdr(f, 4789, 40);
    memcpy(f, my_mac, 6);
    memcpy(f + 6, peer_mac, 6);
    memset(f + 104, 0x5a, 40);
    teth_post_recv(&t, 2048, t.mem);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
    g_assert_cmpint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, len - 50);
    fake_read(t.d->h, t.mem, got, len - 50);
    g_assert_cmpmem(got, len - 50, f + 50, len - 50);
    /* VNI 43: no decap, the MAC table takes it whole */
    mlx5_st32(f + 46, 43 << 8);
    teth_post_recv(&t, 2048, t.mem);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, len);
    /* VNI 42 to a UDP port not in the table: no tunnel, nothing to match the VNI on */
    mlx5_st32(f + 46, 42 << 8);
    mlx5_st16(f + 36, 4790);
    teth_post_recv(&t, 2048, t.mem);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, len);
    /* ... until the port is added */
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_ADD_VXLAN_UDP_DPORT, 0, 0, 4790, out,
                                sizeof(out)), ==, 0);
    teth_post_recv(&t, 2048, t.mem);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, len - 50);
    /* hostile: a tunnel cut short inside its inner Ethernet header is no tunnel */
    teth_post_recv(&t, 2048, t.mem);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, 56));
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 56);
    eth_free(&t);
}

/* Outer Ethernet and IPv4 (protocol @proto, @l4 bytes after it) in front of an L2 tunnel. */
static size_t tunnel_outer(uint8_t *f, uint8_t proto, size_t l4)
{
    memset(f, 0, 34);
    memcpy(f, my_mac, 6);
    memcpy(f + 6, peer_mac, 6);
    mlx5_st16(f + 12, 0x0800);
    f[14] = 0x45;
    mlx5_st16(f + 16, 20 + l4);
    f[22] = 64;
    f[23] = proto;
    memcpy(f + 26, "\x0a\x00\x00\x02\x0a\x00\x00\x01", 8);
    return 34;
}

/* The next frame @t receives: @want of @n bytes? */
static void rx_is(TEth *t, const uint8_t *want, size_t n)
{
    uint8_t cqe[64], got[512];

    g_assert_true(teth_poll_cqe(t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
    g_assert_cmpint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, n);
    fake_read(t->d->h, t->mem, got, n);
    g_assert_cmpmem(got, n, want, n);
    teth_post_recv(t, 2048, t->mem);
}

/*
 * DECAP of GENEVE and GRE L2 tunnels (pyverbs test_mlx5_dr's root-table l2_gre and l2_geneve
 * reformats): an entry matching every frame decaps and forwards to the TIR; a GENEVE tunnel
 * (with options) and a GRE tunnel (with a key) arrive as their inner frames; GRE of IPv4 (no
 * inner Ethernet) and a tunnel cut short inside the inner Ethernet header arrive whole.
 */
static void test_decap_l2(void)
{
    uint8_t f[512], inner[54];
    size_t o, n;
    TEth t;

    eth_setup(&t);
    decap_root(&t, 0, NULL, NULL);
    /* the inner frame: Ethernet, 40 bytes */
    memcpy(inner, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x88\xb5", 14);
    memset(inner + 14, 0x6b, 40);
    teth_post_recv(&t, 2048, t.mem);

    /* GENEVE: UDP 6081, 8 bytes of options (opt_len 2), protocol TEB, VNI 7 */
    o = tunnel_outer(f, 17, 8 + 16 + sizeof(inner));
    mlx5_st16(f + o, 50000);
    mlx5_st16(f + o + 2, 6081);
    mlx5_st16(f + o + 4, 8 + 16 + sizeof(inner));
    f[o + 8] = 2;
    f[o + 9] = 0;
    mlx5_st16(f + o + 10, 0x6558);
    mlx5_st32(f + o + 12, 7 << 8);
    memset(f + o + 16, 0xee, 8);
    memcpy(f + o + 24, inner, sizeof(inner));
    n = o + 24 + sizeof(inner);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, n));
    rx_is(&t, inner, sizeof(inner));
    /* ... cut short inside the inner Ethernet header: whole */
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, o + 24 + 10));
    rx_is(&t, f, o + 24 + 10);

    /* GRE with a key (K), version 1 (as pyverbs sends it), protocol TEB */
    o = tunnel_outer(f, 47, 8 + sizeof(inner));
    mlx5_st16(f + o, 0x2001);
    mlx5_st16(f + o + 2, 0x6558);
    mlx5_st32(f + o + 4, 0x1234);
    memcpy(f + o + 8, inner, sizeof(inner));
    n = o + 8 + sizeof(inner);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, n));
    rx_is(&t, inner, sizeof(inner));
    /* GRE of IPv4 (no inner Ethernet): whole */
    mlx5_st16(f + o + 2, 0x0800);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, n));
    rx_is(&t, f, n);
    eth_free(&t);
}

/*
 * L3 tunnels (pyverbs test_mlx5_dr's root-table l3_gre and l3_geneve reformats): the caps offer
 * reformat_l3_tunnel_to_l2 (NIC RX) and reformat_l2_to_l3_tunnel (NIC TX); an L3_TUNNEL_TO_L2
 * context holds an Ethernet header (14 or 18 bytes, else refused), and an RX entry with it
 * gives the TIR that header followed by the inner IP packet of a GRE or GENEVE tunnel carrying
 * IPv4; a frame that is no L3 tunnel arrives whole. A NIC TX entry may not use such a context.
 */
static void test_decap_l3(void)
{
    uint8_t cap[HCA_CAP_OFF + HCA_CAP_SIZE], f[512], l2[18], want[512], inner[60];
    uint32_t rid, bad;
    size_t o, n;
    TEth t;

    eth_setup(&t);
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_FLOW_TABLE << 1 | 1, 0,
                                0, cap, sizeof(cap)), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_reformat_l3_tunnel_to_l2), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_tx_reformat_l2_to_l3_tunnel), ==, 1);
    memcpy(l2, "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x09\x08\x00", 14);
    g_assert_cmpint(teth_reformat(t.d, MLX5_REFORMAT_TYPE_L3_TUNNEL_TO_L2, l2, 16, &bad), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(teth_reformat(t.d, MLX5_REFORMAT_TYPE_L3_TUNNEL_TO_L2, l2, 14, &rid), ==, 0);
    decap_root_as(&t, 0, NULL, NULL, rid);
    teth_post_recv(&t, 2048, t.mem);
    /* the inner IPv4 packet: 20 bytes of header, 40 of payload */
    memset(inner, 0x5c, sizeof(inner));
    inner[0] = 0x45;
    mlx5_st16(inner + 2, sizeof(inner));
    memcpy(want, l2, 14);
    memcpy(want + 14, inner, sizeof(inner));

    /* GRE with a key, protocol IPv4 */
    o = tunnel_outer(f, 47, 8 + sizeof(inner));
    mlx5_st16(f + o, 0x2000);
    mlx5_st16(f + o + 2, 0x0800);
    mlx5_st32(f + o + 4, 0x1234);
    memcpy(f + o + 8, inner, sizeof(inner));
    n = o + 8 + sizeof(inner);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, n));
    rx_is(&t, want, 14 + sizeof(inner));
    /* GENEVE (UDP 6081, no options), protocol IPv4 */
    o = tunnel_outer(f, 17, 8 + 8 + sizeof(inner));
    mlx5_st16(f + o, 50000);
    mlx5_st16(f + o + 2, 6081);
    mlx5_st16(f + o + 4, 8 + 8 + sizeof(inner));
    memset(f + o + 8, 0, 8);
    mlx5_st16(f + o + 10, 0x0800);
    memcpy(f + o + 16, inner, sizeof(inner));
    n = o + 16 + sizeof(inner);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, n));
    rx_is(&t, want, 14 + sizeof(inner));
    /* GRE of an Ethernet frame (an L2 tunnel): whole */
    o = tunnel_outer(f, 47, 4 + sizeof(inner));
    mlx5_st16(f + o, 0);
    mlx5_st16(f + o + 2, 0x6558);
    memcpy(f + o + 4, inner, sizeof(inner));
    n = o + 4 + sizeof(inner);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, n));
    rx_is(&t, f, n);
    eth_free(&t);
}

static uint32_t sport_root_table(TEth *t, uint32_t *fg);

/* ALLOC_MODIFY_HEADER_CONTEXT of @n actions (8 bytes each) for table type @tt; the status. */
static int modhdr_alloc(TEth *t, unsigned tt, const uint8_t *acts, unsigned n, uint32_t *id)
{
    uint8_t in[0x10 + 8 * 40] = { 0 }, out[16] = { 0 };
    int st;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_ALLOC_MODIFY_HEADER_CONTEXT);
    MLX5_SET(in, MODHDR_IN_table_type, tt);
    MLX5_SET(in, MODHDR_IN_num_of_actions, n);
    memcpy(in + 0x10, acts, 8 * MIN(n, 40u));
    st = tdrv_exec(t->d, in, 0x10 + 8 * MIN(n, 40u), out, sizeof(out));
    *id = MLX5_GET(out, MODHDR_OUT_id);
    return st;
}

static void modhdr_act(uint8_t *a, unsigned type, unsigned field, unsigned off, unsigned len,
                       uint32_t data)
{
    mlx5_st16(a, type << 12 | field);
    a[2] = off;
    a[3] = len;
    mlx5_st32(a + 4, data);
}

/*
 * MOD_HDR: a context rewriting the destination MAC, the source IPv4 address, the UDP
 * destination port and decrementing the TTL (ADD 0xff), on an entry forwarding to the TIR:
 * the frame arrives rewritten with its IPv4 and UDP checksums right. Contexts that are not
 * NIC RX, empty, too long, of unknown fields or ranges beyond a field are refused; one in use
 * cannot be freed.
 */
static void test_modhdr(void)
{
    uint8_t cap[HCA_CAP_OFF + HCA_CAP_SIZE], acts[40 * 8] = { 0 }, f[256], got[256], cqe[64];
    uint8_t in[0x400] = { 0 }, out[16];
    const uint8_t tir_t[1] = { MLX5_FLOW_DEST_TYPE_TIR };
    uint32_t ft, fg, id, bad;
    size_t len;
    TEth t;

    eth_setup(&t);
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_FLOW_TABLE << 1 | 1, 0,
                                0, cap, sizeof(cap)), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_max_modify_header_actions), ==, 32);
    modhdr_act(acts, 1, 0x04, 0, 0, 0x02aabbcc);            /* DMAC_47_16 */
    modhdr_act(acts + 8, 1, 0x05, 0, 16, 0xddee);           /* DMAC_15_0 */
    modhdr_act(acts + 16, 1, 0x15, 0, 0, 0x0a010101);       /* SIPV4 */
    modhdr_act(acts + 24, 2, 0x0a, 0, 0, 0xff);             /* TTL - 1 */
    modhdr_act(acts + 32, 1, 0x0c, 0, 16, 9999);            /* UDP_DPORT */
    g_assert_cmpint(modhdr_alloc(&t, 0, acts, 5, &id), ==, 0);
    g_assert_cmpint(modhdr_alloc(&t, 2, acts, 5, &bad), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(modhdr_alloc(&t, 0, acts, 0, &bad), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(modhdr_alloc(&t, 0, acts, 33, &bad), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    modhdr_act(acts + 40, 1, 0x60, 0, 0, 0);                /* (a field we do not have) */
    g_assert_cmpint(modhdr_alloc(&t, 0, acts, 6, &bad), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    modhdr_act(acts + 40, 1, 0x0a, 4, 8, 0);                /* bits 4..11 of an 8-bit TTL */
    g_assert_cmpint(modhdr_alloc(&t, 0, acts, 6, &bad), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    modhdr_act(acts + 40, 7, 0x0a, 0, 0, 0);                /* an unknown action type */
    g_assert_cmpint(modhdr_alloc(&t, 0, acts, 6, &bad), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);

    ft = sport_root_table(&t, &fg);
    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in + FTE_CTX_OFF, FC_group_id, fg);
    MLX5_SET(in + FTE_CTX_OFF, FC_action, MLX5_FLOW_CONTEXT_ACTION_MOD_HDR |
             MLX5_FLOW_CONTEXT_ACTION_FWD_DEST);
    MLX5_SET(in + FTE_CTX_OFF, FC_destination_list_size, 1);
    MLX5_SET(in + FTE_CTX_OFF, FC_modify_header_id, id + 100);  /* no such context */
    MLX5_SET(in + FTE_CTX_OFF + FC_match_value_OFF, MS_ip_protocol, 17);
    MLX5_SET(in + FTE_CTX_OFF + FC_match_value_OFF, MS_udp_sport, 4000);
    MLX5_SET(in + FTE_CTX_OFF + FC_dest_OFF, DEST_type, MLX5_FLOW_DEST_TYPE_TIR);
    MLX5_SET(in + FTE_CTX_OFF + FC_dest_OFF, DEST_id, t.tirn);
    g_assert_cmpint(tdrv_exec(t.d, in, FTE_CTX_OFF + FC_dest_OFF + 8, out, 16), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    MLX5_SET(in + FTE_CTX_OFF, FC_modify_header_id, id);
    g_assert_cmpint(tdrv_exec(t.d, in, FTE_CTX_OFF + FC_dest_OFF + 8, out, 16), ==, 0);

    len = udp_frame(f, my_mac, 30, false);
    teth_post_recv(&t, 2048, t.mem);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
    g_assert_cmpint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, len);
    fake_read(t.d->h, t.mem, got, len);
    g_assert_cmpmem(got, 6, "\x02\xaa\xbb\xcc\xdd\xee", 6);
    g_assert_cmpmem(got + 26, 4, "\x0a\x01\x01\x01", 4);
    g_assert_cmpint(got[22], ==, 63);
    g_assert_cmpint(mlx5_ld16(got + 36), ==, 9999);
    g_assert_true(sums_ok(got, len));
    g_assert_cmpmem(got + 42, 30, f + 42, 30);
    /* a rewrite of the MACs alone leaves the checksums as they were, right or not (pyverbs'
     * test_root_tbl_modify_header_rule sends an IPv4 header checksum of 0) */
    {
        uint8_t mac_only[8], g2[256];
        uint32_t id2;

        modhdr_act(mac_only, 1, 0x02, 0, 16, 0x7777);       /* SMAC_15_0 */
        g_assert_cmpint(modhdr_alloc(&t, 0, mac_only, 1, &id2), ==, 0);
        g_assert_cmpint(teth_set_fte(&t, ft, fg, 1, 4001, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 1,
                                     tir_t, &t.tirn, 0, 0), ==, 0);
        memset(in, 0, sizeof(in));
        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
        MLX5_SET(in, FTE_IN_op_mod, 1);
        MLX5_SET(in, FTE_IN_modify_enable_mask, 1);
        MLX5_SET(in, FT_IN_table_id, ft);
        MLX5_SET(in, FTE_IN_flow_index, 1);
        MLX5_SET(in + FTE_CTX_OFF, FC_group_id, fg);
        MLX5_SET(in + FTE_CTX_OFF, FC_action, MLX5_FLOW_CONTEXT_ACTION_MOD_HDR |
                 MLX5_FLOW_CONTEXT_ACTION_FWD_DEST);
        MLX5_SET(in + FTE_CTX_OFF, FC_destination_list_size, 1);
        MLX5_SET(in + FTE_CTX_OFF, FC_modify_header_id, id2);
        MLX5_SET(in + FTE_CTX_OFF + FC_match_value_OFF, MS_ip_protocol, 17);
        MLX5_SET(in + FTE_CTX_OFF + FC_match_value_OFF, MS_udp_sport, 4001);
        MLX5_SET(in + FTE_CTX_OFF + FC_dest_OFF, DEST_type, MLX5_FLOW_DEST_TYPE_TIR);
        MLX5_SET(in + FTE_CTX_OFF + FC_dest_OFF, DEST_id, t.tirn);
        g_assert_cmpint(tdrv_exec(t.d, in, FTE_CTX_OFF + FC_dest_OFF + 8, out, 16), ==, 0);
        mlx5_st16(f + 34, 4001);
        mlx5_st16(f + 24, 0);                               /* a wrong IPv4 checksum */
        teth_post_recv(&t, 2048, t.mem);
        g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
        g_assert_true(teth_poll_cqe(&t, cqe));
        fake_read(t.d->h, t.mem, g2, len);
        g_assert_cmpint(mlx5_ld16(g2 + 10), ==, 0x7777);
        g_assert_cmpmem(g2 + 12, len - 12, f + 12, len - 12);
        udp_frame(f, my_mac, 30, false);
    }

    /* the rewrite changed the match set: an update of the entry keeps its context */
    g_assert_cmpint(teth_set_fte(&t, ft, fg, 0, 4000, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 1,
                                 tir_t, &t.tirn, 1, 1 << 2), ==, 0);
    teth_post_recv(&t, 2048, t.mem);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_true(teth_poll_cqe(&t, cqe));
    fake_read(t.d->h, t.mem, got, len);
    g_assert_cmpint(mlx5_ld16(got + 36), ==, 9999);

    /* in use: not freed; after the entry is gone it is */
    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_DEALLOC_MODIFY_HEADER_CONTEXT);
    MLX5_SET(in, MODHDR_IN_id, id);
    g_assert_cmpint(tdrv_exec(t.d, in, 0x10, out, 16), ==, MLX5_CMD_STAT_BAD_RES_STATE_ERR);
    /* an update replacing the action drops the context */
    g_assert_cmpint(teth_set_fte(&t, ft, fg, 0, 4000, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 1,
                                 tir_t, &t.tirn, 1, 1 << 0), ==, 0);
    g_assert_cmpint(tdrv_exec(t.d, in, 0x10, out, 16), ==, 0);
    g_assert_cmpint(tdrv_exec(t.d, in, 0x10, out, 16), ==, MLX5_CMD_STAT_BAD_RES_ERR);
    eth_free(&t);
}

/* A NIC TX table at @level whose one group matches the UDP destination port; the root if
 * @root. */
static uint32_t tx_table(TEth *t, unsigned level, bool root, uint32_t *fg)
{
    uint8_t in[0x400] = { 0 }, out[16];
    uint32_t ft;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_TABLE);
    MLX5_SET(in, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_NIC_TX);
    MLX5_SET(in + FT_CTX_OFF, FTC_level, level);
    MLX5_SET(in + FT_CTX_OFF, FTC_log_size, 2);
    ft = teth_obj_create(t->d, MLX5_CMD_OP_CREATE_FLOW_TABLE, in, 0x40);
    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
    MLX5_SET(in, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_NIC_TX);
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in, FG_IN_end_flow_index, 3);
    MLX5_SET(in, FG_IN_match_criteria_enable, 1);
    MLX5_SET(in + FG_IN_criteria_OFF, MS_udp_dport, 0xffff);
    g_assert_cmpint(tdrv_exec(t->d, in, sizeof(in), out, 16), ==, 0);
    *fg = MLX5_GET(out, FG_OUT_group_id);
    if (root) {
        memset(in, 0, sizeof(in));
        MLX5_SET(in, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_NIC_TX);
        MLX5_SET(in, FT_IN_table_id, ft);
        teth_obj_create(t->d, MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, in, 0x40);
    }
    return ft;
}

/* A NIC TX entry at @index for UDP destination port @dport; the status. */
static int tx_fte(TEth *t, uint32_t ft, uint32_t fg, uint32_t index, uint16_t dport,
                  uint16_t action, uint32_t reformat, int dest_ft)
{
    uint8_t in[FTE_CTX_OFF + FC_dest_OFF + 8] = { 0 }, out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
    MLX5_SET(in, FT_IN_table_type, MLX5_FLOW_TABLE_TYPE_NIC_TX);
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in, FTE_IN_flow_index, index);
    MLX5_SET(in + FTE_CTX_OFF, FC_group_id, fg);
    MLX5_SET(in + FTE_CTX_OFF, FC_action, action);
    MLX5_SET(in + FTE_CTX_OFF, FC_packet_reformat_id, reformat);
    MLX5_SET(in + FTE_CTX_OFF + FC_match_value_OFF, MS_udp_dport, dport);
    if (dest_ft >= 0) {
        MLX5_SET(in + FTE_CTX_OFF, FC_destination_list_size, 1);
        MLX5_SET(in + FTE_CTX_OFF + FC_dest_OFF, DEST_type, dest_ft ? MLX5_FLOW_DEST_TYPE_FLOW_TABLE :
                 MLX5_FLOW_DEST_TYPE_TIR);
        MLX5_SET(in + FTE_CTX_OFF + FC_dest_OFF, DEST_id, dest_ft ? dest_ft : t->tirn);
    }
    return tdrv_exec(t->d, in, sizeof(in), out, sizeof(out));
}

/*
 * NIC TX tables: a VXLAN packet reformat context in front of UDP to port 5000 (an ALLOW entry
 * of the root), port 5001 forwarded to a second table that drops it, other frames (a miss) go
 * out as they are. The encap header gets the IP and UDP lengths and the IPv4 checksum. TX
 * entries take no TIRs and no DECAP; an RX entry's PACKET_REFORMAT puts the header in front of
 * what its TIR gets; contexts in use stay.
 */
static void test_encap(void)
{
    uint8_t cap[HCA_CAP_OFF + HCA_CAP_SIZE], in[0x400] = { 0 }, out[16], f[256], cqe[64];
    uint32_t ft, fg, ft2, fg2, rid, bad, n0;
    GByteArray *g;
    size_t len;
    TEth t;

    eth_setup(&t);
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_FLOW_TABLE << 1 | 1, 0,
                                0, cap, sizeof(cap)), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_tx_ft_support), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_tx_reformat), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_max_encap_header_size), ==, 128);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_encap_general_header), ==, 1);

    /* the context: outer Ethernet, IPv4 (lengths and checksum 0), UDP to 4789, VXLAN VNI 7 */
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_ALLOC_PACKET_REFORMAT_CONTEXT);
    MLX5_SET(in, REFORMAT_IN_type, MLX5_REFORMAT_TYPE_L2_TO_L2_TUNNEL);
    MLX5_SET(in, REFORMAT_IN_data_size, 50);
    vxlan_hdr(f, 4789, 0);
    mlx5_st16(f + 16, 0);
    mlx5_st16(f + 38, 0);
    mlx5_st32(f + 46, 7 << 8);
    memcpy(in + REFORMAT_IN_data_OFF, f, 50);
    g_assert_cmpint(tdrv_exec(t.d, in, REFORMAT_IN_data_OFF + 50, out, 16), ==, 0);
    rid = MLX5_GET(out, REFORMAT_OUT_id);
    MLX5_SET(in, REFORMAT_IN_data_size, 129);
    g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    MLX5_SET(in, REFORMAT_IN_data_size, 50);
    MLX5_SET(in, REFORMAT_IN_type, 3);          /* L3_TUNNEL_TO_L2: an L2 header, not 50 */
    g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);

    ft = tx_table(&t, 1, true, &fg);
    ft2 = tx_table(&t, 2, false, &fg2);
    g_assert_cmpint(tx_fte(&t, ft, fg, 0, 5000, MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT |
                           MLX5_FLOW_CONTEXT_ACTION_ALLOW, rid, -1), ==, 0);
    g_assert_cmpint(tx_fte(&t, ft, fg, 1, 5001, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 0, ft2), ==, 0);
    g_assert_cmpint(tx_fte(&t, ft2, fg2, 0, 5001, MLX5_FLOW_CONTEXT_ACTION_DROP, 0, -1), ==, 0);
    /* refused: a TIR from a TX table, DECAP on TX, an unknown context, a table of the other
     * direction */
    g_assert_cmpint(tx_fte(&t, ft, fg, 2, 5002, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 0, 0), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(tx_fte(&t, ft, fg, 2, 5002, MLX5_FLOW_CONTEXT_ACTION_DECAP |
                           MLX5_FLOW_CONTEXT_ACTION_ALLOW, 0, -1), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(tx_fte(&t, ft, fg, 2, 5002, MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT |
                           MLX5_FLOW_CONTEXT_ACTION_ALLOW, rid + 1, -1), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(tx_fte(&t, ft, fg, 2, 5002, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 0, t.ft), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    /* ... and an L3 tunnel's decap (L3_TUNNEL_TO_L2: receive only) */
    memcpy(f, "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x09\x08\x00", 14);
    g_assert_cmpint(teth_reformat(t.d, MLX5_REFORMAT_TYPE_L3_TUNNEL_TO_L2, f, 14, &bad), ==, 0);
    g_assert_cmpint(tx_fte(&t, ft, fg, 2, 5002, MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT |
                           MLX5_FLOW_CONTEXT_ACTION_ALLOW, bad, -1), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    /* UDP to 5000: encapsulated */
    len = udp_frame(f, peer_mac, 100, false);
    fake_write(t.d->h, t.mem, f + 42, 100);
    n0 = t.d->h->tx->len;
    teth_post_send(&t, MLX5_OPCODE_SEND, 0, 0, f, 42, 100, t.mem, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_cmpuint(t.d->h->tx->len, ==, n0 + 1);
    g = tx_frame(&t, n0);
    g_assert_cmpint(g->len, ==, len + 50);
    g_assert_cmpint(mlx5_ld16(g->data + 16), ==, len + 50 - 14);     /* IP length */
    g_assert_cmpint(mlx5_ld16(g->data + 38), ==, len + 50 - 34);     /* UDP length */
    g_assert_cmpint(mlx5_ld16(g->data + 40), ==, 0);
    g_assert_true(ipv4_hdr_ok(g->data));
    g_assert_cmpint(mlx5_ld32(g->data + 46) >> 8, ==, 7);
    g_assert_cmpmem(g->data + 50, len, f, len);
    /* 5001: dropped in the second table (a completion all the same); 5002 (a miss): sent */
    mlx5_st16(f + 36, 5001);
    teth_post_send(&t, MLX5_OPCODE_SEND, 0, 0, f, 42, 100, t.mem, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_cmpuint(t.d->h->tx->len, ==, n0 + 1);
    mlx5_st16(f + 36, 5002);
    teth_post_send(&t, MLX5_OPCODE_SEND, 0, 0, f, 42, 100, t.mem, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpuint(t.d->h->tx->len, ==, n0 + 2);
    g_assert_cmpint(tx_frame(&t, n0 + 1)->len, ==, len);

    /* on receive too (nic_rx reformat): an RX entry puts the header in front of what the TIR
     * gets */
    bad = sport_root_table(&t, &fg2);
    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
    MLX5_SET(in, FT_IN_table_id, bad);
    MLX5_SET(in + FTE_CTX_OFF, FC_group_id, fg2);
    MLX5_SET(in + FTE_CTX_OFF, FC_action, MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT |
             MLX5_FLOW_CONTEXT_ACTION_FWD_DEST);
    MLX5_SET(in + FTE_CTX_OFF, FC_packet_reformat_id, rid);
    MLX5_SET(in + FTE_CTX_OFF, FC_destination_list_size, 1);
    MLX5_SET(in + FTE_CTX_OFF + FC_match_value_OFF, MS_ip_protocol, 17);
    MLX5_SET(in + FTE_CTX_OFF + FC_match_value_OFF, MS_udp_sport, 4000);
    MLX5_SET(in + FTE_CTX_OFF + FC_dest_OFF, DEST_type, MLX5_FLOW_DEST_TYPE_TIR);
    MLX5_SET(in + FTE_CTX_OFF + FC_dest_OFF, DEST_id, t.tirn);
    g_assert_cmpint(tdrv_exec(t.d, in, FTE_CTX_OFF + FC_dest_OFF + 8, out, 16), ==, 0);
    len = udp_frame(f, my_mac, 100, false);
    teth_post_recv(&t, 2048, t.mem);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
    g_assert_cmpint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, len + 50);
    {
        uint8_t got[256];

        fake_read(t.d->h, t.mem, got, len + 50);
        g_assert_cmpint(mlx5_ld16(got + 16), ==, len + 50 - 14);
        g_assert_true(ipv4_hdr_ok(got));
        g_assert_cmpmem(got + 50, len, f, len);
    }

    /* in use: the context stays */
    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_DEALLOC_PACKET_REFORMAT_CONTEXT);
    MLX5_SET(in, REFORMAT_IN_id, rid);
    g_assert_cmpint(tdrv_exec(t.d, in, 0x10, out, 16), ==, MLX5_CMD_STAT_BAD_RES_STATE_ERR);
    eth_free(&t);
}

/* ---- steering beyond one table: chained priorities, updates, several TIRs, loopback -------- */

/* How many CQEs a frame of UDP source port @sport to @dmac from the link gives. */
static unsigned rx_count(TEth *t, const uint8_t *dmac, uint16_t sport)
{
    uint8_t f[256], cqe[64];
    size_t len = udp_frame(f, dmac, 30, false);
    unsigned n = 0;

    mlx5_st16(f + 34, sport);
    mlx5_st16(f + 40, 0);                       /* (no UDP checksum: the port changed) */
    teth_post_recv(t, 2048, t->mem);
    teth_post_recv(t, 2048, t->mem + 2048);
    g_assert_true(mlx5_core_link_rx(t->d->c, 1, f, len));
    while (teth_poll_cqe(t, cqe)) {
        g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
        n++;
    }
    /* the RQ gives back what was not taken */
    t->rq_pi -= 2 - n;
    fake_wr32(t->d->h, t->rq_dbr, t->rq_pi);
    return n;
}

/* Send a UDP frame of source port @sport to @dmac from the SQ; returns the CQEs its loopback
 * gave (the send completion is consumed) and adds the frames put on the link to *@wire. */
static unsigned lb_count(TEth *t, const uint8_t *dmac, uint16_t sport, unsigned *wire)
{
    uint8_t f[256], cqe[64];
    unsigned n = 0, sent = 0, before = t->d->h->tx->len;

    udp_frame(f, dmac, 30, false);
    mlx5_st16(f + 34, sport);
    mlx5_st16(f + 40, 0);
    teth_post_recv(t, 2048, t->mem);
    teth_post_recv(t, 2048, t->mem + 2048);
    fake_write(t->d->h, t->mem + 8192, f + 42, 30);
    teth_post_send(t, MLX5_OPCODE_SEND, 0, 0, f, 42, 30, t->mem + 8192, -1);
    while (teth_poll_cqe(t, cqe)) {
        if (cqe[63] >> 4 == MLX5_CQE_REQ) {
            sent++;
        } else {
            g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
            n++;
        }
    }
    g_assert_cmpint(sent, ==, 1);
    t->rq_pi -= 2 - n;
    fake_wr32(t->d->h, t->rq_dbr, t->rq_pi);
    *wire += t->d->h->tx->len - before;
    return n;
}

/* Post an enhanced multi-packet send WQE of @nds segments (@segs: those after the eth segment). */
static void post_mpw(TEth *t, uint8_t cs, uint16_t ihs, const uint8_t *segs, unsigned nds)
{
    uint8_t wqe[1024] = { 0 };
    unsigned nbb = (nds * 16 + 63) / 64, i;

    mlx5_st32(wqe, ((uint32_t)t->sq_pi << 8) | MLX5_OPCODE_ENHANCED_MPSW);
    mlx5_st32(wqe + 4, (t->sqn << 8) | nds);
    wqe[11] = MLX5_WQE_CTRL_CE_MASK;
    wqe[MLX5_ESEG_OFF + MLX5_ESEG_cs_flags] = cs;
    mlx5_st16(wqe + MLX5_ESEG_OFF + MLX5_ESEG_inline_sz, ihs);
    memcpy(wqe + 32, segs, (nds - 2) * 16);
    for (i = 0; i < nbb; i++) {
        fake_write(t->d->h, t->sq_buf + ((t->sq_pi + i) & 63) * 64, wqe + 64 * i, 64);
    }
    t->sq_pi += nbb;
    fake_wr32(t->d->h, t->sq_dbr + 4, t->sq_pi);
    mlx5_exec_sq_doorbell(t->d->c, (uint64_t)t->sqn << 8);
}


/* ---- BlueFlame ---------------------------------------------------------------------------- */

/* Write @len bytes of @wqe to BlueFlame buffer @buf (0..7) of UAR @uar, @step (4 or 8) bytes
 * at a time, in order; @skip: leave out that offset's write. */
static void bf_copy_uar(TEth *t, uint32_t uar, unsigned buf, const uint8_t *wqe, unsigned len,
                        unsigned step, int skip)
{
    uint64_t base = ((uint64_t)uar << 12) + MLX5_UAR_BF_BASE + buf * 256;
    unsigned o;

    for (o = 0; o < len; o += step) {
        if ((int)o == skip) {
            continue;
        }
        if (step == 8) {
            tdrv_mmio_wr64(t->d, base + o, mlx5_ld64(wqe + o));
        } else {
            tdrv_mmio_wr32(t->d, base + o, mlx5_ld32(wqe + o));
        }
    }
}

/* The same through the node's UAR, the SQ's. */
static void bf_copy(TEth *t, unsigned buf, const uint8_t *wqe, unsigned len, unsigned step,
                    int skip)
{
    bf_copy_uar(t, t->d->uar, buf, wqe, len, step, skip);
}

/* A NOP at the SQ's next index, in the ring asking for a CQE if @ring_ce; the same NOP asking
 * for one in @copy (64 bytes); the doorbell record counts it. */
static void bf_nop(TEth *t, bool ring_ce, uint8_t *copy)
{
    uint8_t wqe[64] = { 0 };

    mlx5_st32(wqe, ((uint32_t)t->sq_pi << 8) | MLX5_OPCODE_NOP);
    mlx5_st32(wqe + 4, (t->sqn << 8) | 1);
    wqe[11] = ring_ce ? MLX5_WQE_CTRL_CE_MASK : 0;
    fake_write(t->d->h, t->sq_buf + (t->sq_pi & 63) * 64, wqe, 64);
    memcpy(copy, wqe, 64);
    copy[11] = MLX5_WQE_CTRL_CE_MASK;
    t->sq_pi++;
    fake_wr32(t->d->h, t->sq_dbr + 4, t->sq_pi);
}

/*
 * BlueFlame: a complete copy runs instead of the ring's WQE (mlx5_core's write-combining test:
 * the ring's NOP is unsignaled, its copy signaled); a torn copy (a write missing, out of order),
 * one the engine reaches after it ran the WQE from the ring, or one written through another
 * UAR page than the SQ's, does not; a SEND whose ring slot holds nothing valid runs from its
 * copy, written 4 bytes at a time.
 */
static void test_blueflame(void)
{
    uint8_t copy[256], cqe[64], f[400], wqe[256], out[16];
    uint32_t other_uar;
    GByteArray *g;
    size_t len;
    TEth t;

    eth_setup(&t);
    g_assert_cmpint(MLX5_GET(t.d->c->cap_general_cur, CAP_bf), ==, 1);
    g_assert_cmpint(MLX5_GET(t.d->c->cap_general_cur, CAP_log_bf_reg_size), ==, 9);

    /* complete: the copy's CQE request counts */
    bf_nop(&t, false, copy);
    bf_copy(&t, 0, copy, 64, 8, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_cmpint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, 0);

    /* torn: a write missing, then writes out of order; both run from the ring (no CQE) */
    bf_nop(&t, false, copy);
    bf_copy(&t, 1, copy, 64, 8, 24);
    g_assert_false(teth_poll_cqe(&t, cqe));
    bf_nop(&t, false, copy);
    bf_copy(&t, 0, copy, 16, 8, -1);
    bf_copy(&t, 0, copy, 64, 8, 0);             /* 8, 16 again, 24 ... */
    g_assert_false(teth_poll_cqe(&t, cqe));

    /* the engine runs the WQE from the ring before its copy is complete: the copy is dropped */
    bf_nop(&t, false, copy);
    bf_copy(&t, 1, copy, 8, 8, -1);
    g_assert_false(teth_poll_cqe(&t, cqe));
    bf_copy(&t, 1, copy, 64, 8, 0);
    g_assert_false(teth_poll_cqe(&t, cqe));
    bf_nop(&t, true, copy);                     /* the next, from the ring, signaled */
    mlx5_exec_sq_doorbell(t.d->c, (uint64_t)t.sqn << 8);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, 4);
    /* a complete copy through another UAR page (another process's) is not the SQ's: the ring
     * runs (unsignaled), and the next, signaled, from the ring */
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_ALLOC_UAR, 0, 0, 0, out, 16), ==, 0);
    other_uar = MLX5_GET(out, ALLOC_OUT_handle);
    bf_nop(&t, false, copy);
    bf_copy_uar(&t, other_uar, 0, copy, 64, 8, -1);
    g_assert_false(teth_poll_cqe(&t, cqe));
    bf_nop(&t, true, copy);
    mlx5_exec_sq_doorbell(t.d->c, (uint64_t)t.sqn << 8);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, 6);

    /* a SEND of 128 bytes, the ring's slots zeroed: sent from the copy */
    len = udp_frame(f, peer_mac, 300, false);
    fake_write(t.d->h, t.mem, f + 42, 300);
    teth_post_send(&t, MLX5_OPCODE_SEND, 0, 0, f, 42, 300, t.mem, -1);
    fake_read(t.d->h, t.sq_buf + 7 * 64, wqe, 128);
    g_assert_cmpint(wqe[7] & 0x3f, >, 4);
    memset(copy, 0, 128);
    fake_write(t.d->h, t.sq_buf + 7 * 64, copy, 128);
    bf_copy(&t, 0, wqe, 128, 4, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_cmpint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, 7);
    g = tx_frame(&t, 0);
    g_assert_cmpint(g->len, ==, len);
    g_assert_cmpmem(g->data, len, f, len);
    eth_free(&t);
}

/*
 * When a send doorbell served in the vCPU runs (mlx5_bf.c): a doorbell that its BlueFlame copy
 * may follow waits for it, unless the buffer's last doorbell came without one; a complete copy
 * makes the buffer wait again; a new UAR starts out waiting (mlx5_core's write-combining test
 * runs on one). A waiting doorbell's copy is coming (the shell does not wake the bottom half)
 * only for the engine's next WQE.
 */
static void test_blueflame_wait(void)
{
    uint8_t copy[64], cqe[64], out[16];
    uint32_t uar2;
    TEth t;

    eth_setup(&t);
    bf_nop(&t, true, copy);
    bf_copy(&t, 0, copy, 8, 8, -1);             /* first doorbell on buffer 0: may get a copy */
    g_assert_true(mlx5_core_doorbell_waits(t.d->c));
    g_assert_false(mlx5_core_doorbell_waits(t.d->c));   /* (read once) */
    /* its copy is under way as libmlx5 writes one: a post of one WQE, the engine's next */
    g_assert_true(mlx5_core_copy_coming(t.d->c));
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_false(mlx5_core_copy_coming(t.d->c));      /* (the engine ran it from the ring) */
    bf_nop(&t, true, copy);
    bf_copy(&t, 1, copy, 8, 8, -1);             /* buffer 1 has its own history */
    g_assert_true(mlx5_core_doorbell_waits(t.d->c));
    g_assert_true(teth_poll_cqe(&t, cqe));
    bf_nop(&t, true, copy);
    bf_copy(&t, 0, copy, 8, 8, -1);             /* buffer 0's last came without a copy */
    g_assert_false(mlx5_core_doorbell_waits(t.d->c));
    g_assert_true(teth_poll_cqe(&t, cqe));
    bf_nop(&t, false, copy);                    /* a complete copy: buffer 0 waits again */
    bf_copy(&t, 0, copy, 64, 8, -1);
    g_assert_true(teth_poll_cqe(&t, cqe));
    bf_nop(&t, true, copy);
    bf_copy(&t, 0, copy, 8, 8, -1);
    g_assert_true(mlx5_core_doorbell_waits(t.d->c));
    g_assert_true(teth_poll_cqe(&t, cqe));
    /* the doorbell of the second of two new WQEs (libmlx5's plain doorbell for a post of
     * several): no copy is coming */
    bf_nop(&t, false, copy);
    bf_nop(&t, true, copy);
    bf_copy(&t, 1, copy, 8, 8, -1);
    g_assert_false(mlx5_core_copy_coming(t.d->c));
    g_assert_true(teth_poll_cqe(&t, cqe));
    /* a CQ doorbell never waits */
    tdrv_mmio_wr64(t.d, ((uint64_t)t.d->uar << 12) + MLX5_UAR_CQ_DB, (uint64_t)t.cqn);
    g_assert_false(mlx5_core_doorbell_waits(t.d->c));
    /* a new UAR: its buffers know nothing yet */
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_ALLOC_UAR, 0, 0, 0, out, 16), ==, 0);
    uar2 = MLX5_GET(out, ALLOC_OUT_handle);
    bf_copy_uar(&t, uar2, 0, copy, 8, 8, -1);
    g_assert_true(mlx5_core_doorbell_waits(t.d->c));
    eth_free(&t);
}

/*
 * A root table at level 1 missing to the MAC table (level 5), with one group over entries 0..3
 * matching the IP protocol and the UDP source port: the group's id in *@fg, the table's returned.
 */
static uint32_t sport_root_table(TEth *t, uint32_t *fg)
{
    uint8_t in[0x400] = { 0 }, out[16];
    uint32_t ft;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_TABLE);
    MLX5_SET(in + FT_CTX_OFF, FTC_level, 1);
    MLX5_SET(in + FT_CTX_OFF, FTC_log_size, 2);
    MLX5_SET(in + FT_CTX_OFF, FTC_table_miss_action, MLX5_FT_MISS_ACTION_FWD);
    MLX5_SET(in + FT_CTX_OFF, FTC_table_miss_id, t->ft);
    ft = teth_obj_create(t->d, MLX5_CMD_OP_CREATE_FLOW_TABLE, in, 0x40);
    memset(in, 0, sizeof(in));
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in, FG_IN_end_flow_index, 3);
    MLX5_SET(in, FG_IN_match_criteria_enable, 1);
    MLX5_SET(in + FG_IN_criteria_OFF, MS_ip_protocol, 0xff);
    MLX5_SET(in + FG_IN_criteria_OFF, MS_udp_sport, 0xffff);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
    g_assert_cmpint(tdrv_exec(t->d, in, sizeof(in), out, 16), ==, 0);
    *fg = MLX5_GET(out, FG_OUT_group_id);
    memset(in, 0, sizeof(in));
    MLX5_SET(in, FT_IN_table_id, ft);
    teth_obj_create(t->d, MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, in, 0x40);
    return ft;
}

/*
 * Enhanced multi-packet send: each data segment after the eth segment is a frame (read through
 * its lkey), each inline segment a frame in the WQE; the eth segment's checksum flags apply to
 * all; one CQE for the WQE. An inline frame reaching past the WQE, inline headers in the eth
 * segment, a runt frame: an error CQE.
 */
static void test_mpw(void)
{
    uint8_t f[3][400], segs[60 * 16] = { 0 }, cqe[64];
    size_t len[3];
    unsigned i, nds;
    TEth t;

    eth_setup(&t);
    for (i = 0; i < 3; i++) {
        len[i] = udp_frame(f[i], peer_mac, 100 + 50 * i, true);
    }
    /* frames 0 and 2 by pointer, frame 1 inline between them */
    fake_write(t.d->h, t.mem, f[0], len[0]);
    fake_write(t.d->h, t.mem + 2048, f[2], len[2]);
    data_seg(segs, len[0], t.key, t.mem);
    mlx5_st32(segs + 16, len[1] | MLX5_INLINE_SEG);
    memcpy(segs + 20, f[1], len[1]);
    nds = 1 + (4 + len[1] + 15) / 16;
    data_seg(segs + 16 * nds, len[2], t.key, t.mem + 2048);
    nds += 1;
    post_mpw(&t, MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM, 0, segs, 2 + nds);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_cmpint(mlx5_ld32(cqe + MLX5_CQE_sop_drop_qpn) >> 24, ==, MLX5_OPCODE_ENHANCED_MPSW);
    g_assert_cmpint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, 0);
    g_assert_cmpuint(t.d->h->tx->len, ==, 3);
    for (i = 0; i < 3; i++) {
        GByteArray *g = tx_frame(&t, i);
        g_assert_cmpint(g->len, ==, len[i]);
        g_assert_true(sums_ok(g->data, g->len));
        g_assert_cmpmem(g->data + 42, len[i] - 42, f[i] + 42, len[i] - 42);
    }
    /* an inline frame claiming more than the WQE holds */
    memset(segs, 0, sizeof(segs));
    mlx5_st32(segs, 300 | MLX5_INLINE_SEG);
    memcpy(segs + 4, f[0], 60);
    post_mpw(&t, 0, 0, segs, 2 + 4);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    g_assert_cmpuint(t.d->h->tx->len, ==, 3);
    eth_free(&t);

    /* inline headers in the eth segment; a runt frame */
    for (i = 0; i < 2; i++) {
        eth_setup(&t);
        memset(segs, 0, sizeof(segs));
        data_seg(segs, i ? 10 : len[0], t.key, t.mem);
        post_mpw(&t, 0, i ? 0 : 18, segs, 3);
        g_assert_true(teth_poll_cqe(&t, cqe));
        g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
        g_assert_cmpuint(t.d->h->tx->len, ==, 0);
        eth_free(&t);
    }
}

static void test_steering(void)
{
    static const uint8_t mc_mac[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x09 };
    uint8_t in[0x400] = { 0 }, out[FT_CTX_OFF + 8], cap[HCA_CAP_OFF + HCA_CAP_SIZE];
    const uint8_t both_t[2] = { MLX5_FLOW_DEST_TYPE_TIR, MLX5_FLOW_DEST_TYPE_FLOW_TABLE };
    const uint8_t tir_t[1] = { MLX5_FLOW_DEST_TYPE_TIR };
    uint32_t td2, tir2, ft0, fg0, both_i[2];
    unsigned wire = 0;
    TEth t;

    eth_setup(&t);
    /* the chaining caps are offered, with levels for every priority of mlx5_core */
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_FLOW_TABLE << 1 | 1, 0,
                                0, cap, sizeof(cap)), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_flow_modify_en), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_identified_miss_table_mode), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_flow_table_modify), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_max_ft_level), ==, 127);

    /* a second transport domain and a TIR of it on the same RQ (mlx5_ib's raw-packet QP) */
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, 0, 0, 0, out, 16), ==, 0);
    td2 = MLX5_GET(out, ALLOC_OUT_handle);
    memset(in, 0, sizeof(in));
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_transport_domain, td2);
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_disp_type, MLX5_TIRC_DISP_DIRECT);
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_inline_rqn, t.rqn);
    tir2 = teth_obj_create(t.d, MLX5_CMD_OP_CREATE_TIR, in, OBJ_CTX_OFF + TIRC_SIZE);

    /* a table at a level beyond max_ft_level is refused; one at level 1 misses to the MAC
     * table (level 5) and becomes the root */
    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_TABLE);
    MLX5_SET(in + FT_CTX_OFF, FTC_level, 128);
    MLX5_SET(in + FT_CTX_OFF, FTC_log_size, 2);
    g_assert_cmpint(tdrv_exec(t.d, in, 0x40, out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    ft0 = sport_root_table(&t, &fg0);

    /* a "don't trap" entry: sport 4000 goes to TIR 2 and on to the MAC table (-> TIR 1) */
    both_i[0] = tir2;
    both_i[1] = t.ft;
    g_assert_cmpint(teth_set_fte(&t, ft0, fg0, 0, 4000, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 2, both_t,
                            both_i, 0, 0), ==, 0);
    /* a COUNT action naming no counter is refused */
    g_assert_cmpint(teth_set_fte(&t, ft0, fg0, 1, 4001, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST |
                            MLX5_FLOW_CONTEXT_ACTION_COUNT, 1, tir_t, &tir2, 0, 0), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(rx_count(&t, my_mac, 4000), ==, 2);
    g_assert_cmpint(rx_count(&t, my_mac, 4001), ==, 1);     /* missed to the MAC table */
    g_assert_cmpint(rx_count(&t, peer_mac, 4000), ==, 1);   /* TIR 2 only; the MAC table drops */
    g_assert_cmpint(rx_count(&t, peer_mac, 4001), ==, 0);

    /* updates (op_mod 1): only what the mask names changes; an update that would leave a
     * forward without destinations, or of an empty index, is refused and changes nothing */
    g_assert_cmpint(teth_set_fte(&t, ft0, fg0, 0, 4000, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 1, tir_t,
                            &tir2, 1, 1 << 2), ==, 0);
    g_assert_cmpint(rx_count(&t, my_mac, 4000), ==, 1);
    g_assert_cmpint(teth_set_fte(&t, ft0, fg0, 0, 4000, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 0, NULL,
                            NULL, 1, 1 << 2), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(teth_set_fte(&t, ft0, fg0, 2, 4000, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 1, tir_t,
                            &tir2, 1, 1 << 2), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(teth_set_fte(&t, ft0, fg0, 0, 4000, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 1, tir_t,
                            &tir2, 1, 1 << 6), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(rx_count(&t, my_mac, 4000), ==, 1);
    g_assert_cmpint(teth_set_fte(&t, ft0, fg0, 0, 4000, MLX5_FLOW_CONTEXT_ACTION_DROP, 0, NULL, NULL,
                            1, 1 << 0 | 1 << 2), ==, 0);
    g_assert_cmpint(rx_count(&t, my_mac, 4000), ==, 0);
    g_assert_cmpint(teth_set_fte(&t, ft0, fg0, 0, 4000, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 2, both_t,
                            both_i, 1, 1 << 0 | 1 << 2), ==, 0);

    /* local loopback: the SQ (transport domain 1) sends to our own MAC: nothing goes on the
     * link; TIR 2 (another domain) takes it, TIR 1 (its own) only once self loopback is on */
    g_assert_cmpint(lb_count(&t, my_mac, 4000, &wire), ==, 1);
    g_assert_cmpint(lb_count(&t, my_mac, 4001, &wire), ==, 0);
    g_assert_cmpint(wire, ==, 0);
    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MODIFY_TIR);
    MLX5_SET(in, OBJ_IN_handle, t.tirn);
    MLX5_SET(in, MODIFY_TIR_bitmask_self_lb_en, 1);
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_self_lb_block, 1);      /* unicast */
    g_assert_cmpint(tdrv_exec(t.d, in, OBJ_CTX_OFF + TIRC_SIZE, out, 16), ==, 0);
    g_assert_cmpint(lb_count(&t, my_mac, 4000, &wire), ==, 2);
    g_assert_cmpint(lb_count(&t, my_mac, 4001, &wire), ==, 1);
    g_assert_cmpint(wire, ==, 0);
    /* multicast goes out on the link and comes back to TIR 2 (the MAC table does not take it) */
    g_assert_cmpint(lb_count(&t, mc_mac, 4000, &wire), ==, 1);
    g_assert_cmpint(wire, ==, 1);
    /* another station's unicast only goes out */
    g_assert_cmpint(lb_count(&t, peer_mac, 4000, &wire), ==, 0);
    g_assert_cmpint(wire, ==, 2);
    eth_free(&t);
}


/* ---- flow counters ------------------------------------------------------------------------- */

/* SET_FLOW_TABLE_ENTRY of @ft at @index (group @fg) for UDP source port @sport: @action, TIR
 * @tir if FWD_DEST, the @nc counters @cnt; @op_mod 1 updates with @mask. Returns the status. */
static int fc_fte(TEth *t, uint32_t ft, uint32_t fg, uint32_t index, uint16_t sport,
                  uint16_t action, uint32_t tir, unsigned nc, const uint32_t *cnt,
                  uint16_t op_mod, uint8_t mask)
{
    const uint8_t tir_t[1] = { MLX5_FLOW_DEST_TYPE_TIR };

    return teth_set_fte_cnt(t, ft, fg, index, sport, action,
                            (action & MLX5_FLOW_CONTEXT_ACTION_FWD_DEST) ? 1 : 0, tir_t, &tir,
                            nc, cnt, op_mod, mask);
}

/* ALLOC_FLOW_COUNTER of bulk @bulk (log size @log): the status; the id in *@id. */
static int fc_alloc(TEth *t, unsigned bulk, unsigned log, uint32_t *id)
{
    uint8_t in[16] = { 0 }, out[16] = { 0 };
    int st;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_ALLOC_FLOW_COUNTER);
    MLX5_SET(in, ALLOC_FC_IN_flow_counter_bulk, bulk);
    MLX5_SET(in, ALLOC_FC_IN_flow_counter_bulk_log_size, log);
    st = tdrv_exec(t->d, in, sizeof(in), out, sizeof(out));
    *id = MLX5_GET(out, ALLOC_FC_OUT_flow_counter_id);
    return st;
}

static int fc_dealloc(TEth *t, uint32_t id)
{
    uint8_t in[16] = { 0 }, out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_DEALLOC_FLOW_COUNTER);
    MLX5_SET(in, DEALLOC_FC_IN_flow_counter_id, id);
    return tdrv_exec(t->d, in, sizeof(in), out, sizeof(out));
}

/* QUERY_FLOW_COUNTER of @num from @id (0: just @id); counter @k's packets and bytes in
 * @pk/@by. Returns the status. */
static int fc_query(TEth *t, uint32_t id, uint32_t num, bool clear, bool dump, unsigned k,
                    uint64_t *pk, uint64_t *by)
{
    uint8_t in[0x20] = { 0 }, out[QUERY_FC_OUT_STATS_OFF + 16 * 16] = { 0 };
    int st;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_QUERY_FLOW_COUNTER);
    MLX5_SET(in, QUERY_FC_IN_flow_counter_id, id);
    MLX5_SET(in, QUERY_FC_IN_num_of_counters, num);
    MLX5_SET(in, QUERY_FC_IN_clear, clear);
    MLX5_SET(in, QUERY_FC_IN_dump_to_memory, dump);
    st = tdrv_exec(t->d, in, sizeof(in), out,
                   MIN(QUERY_FC_OUT_STATS_OFF + 16 * MAX(num, 1), sizeof(out)));
    *pk = mlx5_ld64(out + QUERY_FC_OUT_STATS_OFF + 16 * k);
    *by = mlx5_ld64(out + QUERY_FC_OUT_STATS_OFF + 16 * k + 8);
    return st;
}

/* QUERY_FLOW_COUNTER of @num counters from @id with dump_to_memory through @key at @addr. */
static int fc_dump(TEth *t, uint32_t id, uint32_t num, bool clear, uint32_t key, uint64_t addr)
{
    uint8_t in[0x20] = { 0 }, out[QUERY_FC_OUT_STATS_OFF];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_QUERY_FLOW_COUNTER);
    MLX5_SET(in, QUERY_FC_IN_flow_counter_id, id);
    MLX5_SET(in, QUERY_FC_IN_num_of_counters, num);
    MLX5_SET(in, QUERY_FC_IN_clear, clear);
    MLX5_SET(in, QUERY_FC_IN_dump_to_memory, 1);
    MLX5_SET(in, QUERY_FC_IN_mkey, key);
    MLX5_SET64(in, QUERY_FC_IN_address_OFF, addr);
    return tdrv_exec(t->d, in, sizeof(in), out, sizeof(out));
}

/*
 * Flow counters: the caps; single and bulk allocation (bulk sizes outside the bitmask, the
 * log size field: refused); a COUNT entry counts the frames it matches (72 bytes each), drop
 * or forward; a query (one, or an aligned range showing free ids as zeros; misaligned
 * refused), into memory through an mkey (a range only), and its clear; a counter an entry counts into cannot be freed; an
 * entry naming an unknown counter is refused; an update may move an entry to another counter.
 */
static void test_flow_counters(void)
{
    uint8_t cap[HCA_CAP_OFF + HCA_CAP_SIZE], in[0x400] = { 0 }, out[16];
    uint32_t single, bulk, other, bad = 4000, ft, fg, both[2];
    uint64_t pk, by;
    TEth t;

    eth_setup(&t);
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_FLOW_TABLE << 1 | 1, 0,
                                0, cap, sizeof(cap)), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_flow_counter), ==, 1);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, FT_CAP_nic_rx_log_max_flow_counter), ==, 2);
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, cap, sizeof(cap)), ==, 0);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, CAP_max_flow_counter_15_0), ==, 4096);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, CAP_flow_counter_bulk_alloc), ==, 7);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, CAP_log_max_flow_counter_bulk), ==, 10);
    g_assert_cmpint(MLX5_GET(cap + HCA_CAP_OFF, CAP_flow_counters_dump), ==, 1);

    g_assert_cmpint(fc_alloc(&t, 0, 0, &single), ==, 0);
    g_assert_cmpint(single, !=, 0);
    g_assert_cmpint(fc_alloc(&t, 0, 0, &other), ==, 0);
    g_assert_cmpint(other, !=, single);
    g_assert_cmpint(fc_alloc(&t, 2, 0, &bulk), ==, 0);         /* 256, aligned */
    g_assert_cmpint(bulk % 128, ==, 0);
    g_assert_cmpint(fc_alloc(&t, 8, 0, &bad), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(fc_alloc(&t, 0, 3, &bad), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);

    /* a root table of one group (UDP source port), above the MAC table */
    ft = sport_root_table(&t, &fg);

    /* sport 4000 dropped and counted; 4001 forwarded and counted in two counters */
    g_assert_cmpint(fc_fte(&t, ft, fg, 0, 4000, MLX5_FLOW_CONTEXT_ACTION_DROP |
                           MLX5_FLOW_CONTEXT_ACTION_COUNT, 0, 1, &single, 0, 0), ==, 0);
    both[0] = other;
    both[1] = bulk + 5;
    g_assert_cmpint(fc_fte(&t, ft, fg, 1, 4001, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST |
                           MLX5_FLOW_CONTEXT_ACTION_COUNT, t.tirn, 2, both, 0, 0), ==, 0);
    /* an unknown counter; COUNT without counters; counters without COUNT */
    g_assert_cmpint(fc_fte(&t, ft, fg, 2, 4002, MLX5_FLOW_CONTEXT_ACTION_DROP |
                           MLX5_FLOW_CONTEXT_ACTION_COUNT, 0, 1, &bad, 0, 0), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(fc_fte(&t, ft, fg, 2, 4002, MLX5_FLOW_CONTEXT_ACTION_DROP |
                           MLX5_FLOW_CONTEXT_ACTION_COUNT, 0, 0, NULL, 0, 0), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(fc_fte(&t, ft, fg, 2, 4002, MLX5_FLOW_CONTEXT_ACTION_DROP, 0, 1, &single, 0,
                           0), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);

    g_assert_cmpint(rx_count(&t, my_mac, 4000), ==, 0);
    g_assert_cmpint(rx_count(&t, my_mac, 4000), ==, 0);
    g_assert_cmpint(rx_count(&t, my_mac, 4001), ==, 1);
    g_assert_cmpint(rx_count(&t, my_mac, 4002), ==, 1);        /* missed: not counted */
    g_assert_cmpint(fc_query(&t, single, 0, false, false, 0, &pk, &by), ==, 0);
    g_assert_cmpuint(pk, ==, 2);
    g_assert_cmpuint(by, ==, 144);
    g_assert_cmpint(fc_query(&t, bulk + 4, 4, false, false, 1, &pk, &by), ==, 0);
    g_assert_cmpuint(pk, ==, 1);
    g_assert_cmpuint(by, ==, 72);
    /* the aligned range holding both singles (and free ids: zeros) */
    g_assert_cmpint(fc_query(&t, other & ~3u, 4, false, false, other & 3, &pk, &by), ==, 0);
    g_assert_cmpuint(pk, ==, 1);
    g_assert_cmpint(fc_query(&t, single, 0, true, false, 0, &pk, &by), ==, 0);
    g_assert_cmpuint(pk, ==, 2);
    g_assert_cmpint(fc_query(&t, single, 0, false, false, 0, &pk, &by), ==, 0);
    g_assert_cmpuint(pk, ==, 0);
    g_assert_cmpint(fc_query(&t, bulk + 1, 4, false, false, 0, &pk, &by), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(fc_query(&t, bulk, 4096, false, false, 0, &pk, &by), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    /* dump_to_memory: a range only, through a valid mkey */
    g_assert_cmpint(fc_query(&t, single, 0, false, true, 0, &pk, &by), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    {
        uint8_t mem[16 * 8];

        memset(mem, 0xee, sizeof(mem));
        fake_write(t.d->h, t.mem, mem, sizeof(mem));
        g_assert_cmpint(fc_dump(&t, bulk, 8, false, t.key ^ 0x55, t.mem), ==,
                        MLX5_CMD_STAT_BAD_PARAM_ERR);
        g_assert_cmpint(fc_dump(&t, bulk, 8, true, t.key, t.mem), ==, 0);
        fake_read(t.d->h, t.mem, mem, sizeof(mem));
        /* counter bulk + 5 has the forwarded frame; the others of the range zeros */
        for (unsigned k = 0; k < 8; k++) {
            g_assert_cmpuint(mlx5_ld64(mem + 16 * k), ==, k == 5);
            g_assert_cmpuint(mlx5_ld64(mem + 16 * k + 8), ==, k == 5 ? 72 : 0);
        }
        /* and it was cleared */
        g_assert_cmpint(fc_query(&t, bulk + 4, 4, false, false, 1, &pk, &by), ==, 0);
        g_assert_cmpuint(pk, ==, 0);
    }
    g_assert_cmpint(fc_query(&t, bad, 0, false, false, 0, &pk, &by), ==,
                    MLX5_CMD_STAT_BAD_RES_ERR);

    /* counted into: not freed; a bulk only as a whole */
    g_assert_cmpint(fc_dealloc(&t, single), ==, MLX5_CMD_STAT_BAD_RES_STATE_ERR);
    g_assert_cmpint(fc_dealloc(&t, bulk), ==, MLX5_CMD_STAT_BAD_RES_STATE_ERR);
    g_assert_cmpint(fc_dealloc(&t, bulk + 5), ==, MLX5_CMD_STAT_BAD_RES_ERR);
    /* the drop entry moves to the bulk's counter 6: the single one is free to go */
    both[0] = bulk + 6;
    g_assert_cmpint(fc_fte(&t, ft, fg, 0, 4000, MLX5_FLOW_CONTEXT_ACTION_DROP |
                           MLX5_FLOW_CONTEXT_ACTION_COUNT, 0, 1, both, 1, 1 << 3), ==, 0);
    g_assert_cmpint(rx_count(&t, my_mac, 4000), ==, 0);
    g_assert_cmpint(fc_query(&t, bulk + 4, 4, false, false, 2, &pk, &by), ==, 0);
    g_assert_cmpuint(pk, ==, 1);
    g_assert_cmpint(fc_dealloc(&t, single), ==, 0);
    g_assert_cmpint(fc_query(&t, single, 0, false, false, 0, &pk, &by), ==,
                    MLX5_CMD_STAT_BAD_RES_ERR);
    /* once the entries are gone, so may the bulk */
    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY);
    MLX5_SET(in, FT_IN_table_id, ft);
    MLX5_SET(in, FTE_IN_flow_index, 0);
    g_assert_cmpint(tdrv_exec(t.d, in, 0x40, out, 16), ==, 0);
    MLX5_SET(in, FTE_IN_flow_index, 1);
    g_assert_cmpint(tdrv_exec(t.d, in, 0x40, out, 16), ==, 0);
    g_assert_cmpint(fc_dealloc(&t, bulk), ==, 0);
    g_assert_cmpint(fc_dealloc(&t, other), ==, 0);
    eth_free(&t);
}

/* Microsoft's RSS verification suite (the first IPv4 vector). */
static void test_toeplitz(void)
{
    static uint8_t key[40] = {
        0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
        0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
        0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
    };
    /* src 66.9.149.187:2794, dst 161.142.100.80:1766 */
    static uint8_t in[12] = { 66, 9, 149, 187, 161, 142, 100, 80, 0x0a, 0xea, 0x06, 0xe6 };

    g_assert_cmphex(mlx5_toeplitz(key, in, 8), ==, 0x323e8fc2);
    g_assert_cmphex(mlx5_toeplitz(key, in, 12), ==, 0x51ccc178);
}

/* SET_ROCE_ADDRESS of entry @index: @ip (IPv4, 4 bytes) as a v4-mapped RoCE v2 GID */
static int set_roce_addr(TEth *t, unsigned index, const uint8_t *ip, unsigned version,
                         unsigned l3, unsigned port)
{
    uint8_t in[ROCE_ADDR_OFF + ROCE_ADDR_SIZE] = { 0 }, out[16];
    uint8_t *a = in + ROCE_ADDR_OFF;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_ROCE_ADDRESS);
    MLX5_SET(in, ROCE_ADDR_IN_index, index);
    MLX5_SET(in, ROCE_ADDR_IN_vhca_port_num, port);
    if (ip) {
        a[10] = a[11] = 0xff;
        memcpy(a + 12, ip, 4);
        memcpy(a + ROCE_ADDR_mac_OFF, my_mac, 6);
    }
    MLX5_SET(a, ROCE_ADDR_version, version);
    MLX5_SET(a, ROCE_ADDR_l3_type, l3);
    return tdrv_exec(t->d, in, sizeof(in), out, sizeof(out));
}

static void set_roce_en(TEth *t, bool on)
{
    uint8_t in[MODIFY_NIC_VPORT_IN_CTX_OFF + NVC_SIZE] = { 0 }, out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT);
    MLX5_SET(in, MODIFY_NIC_VPORT_IN_field_select, MLX5_NVC_FS_ROCE_EN);
    MLX5_SET(in + MODIFY_NIC_VPORT_IN_CTX_OFF, NVC_roce_en, on);
    g_assert_cmpint(tdrv_exec(t->d, in, sizeof(in), out, sizeof(out)), ==, 0);
}

/* RoCE v2: the ROCE cap page, the GID table, and which frames go to RDMA rather than mlx5e */
static void test_roce(void)
{
    static const uint8_t my_ip[4] = { 10, 0, 0, 1 };
    uint8_t out[HCA_CAP_OFF + HCA_CAP_SIZE], f[256], cqe[64];
    uint8_t in[0x10] = { 0 };
    IbPacket p = { 0 };
    uint64_t before;
    size_t len, hlen;
    TEth t;

    eth_setup(&t);
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_GENERAL << 1 | 1, 0, 0,
                                out, sizeof(out)), ==, 0);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, CAP_roce), ==, 1);
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_ROCE << 1 | 1, 0, 0,
                                out, sizeof(out)), ==, 0);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, ROCE_CAP_l3_type), ==, 6);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, ROCE_CAP_roce_version), ==, 4);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, ROCE_CAP_r_roce_dest_udp_port), ==, 4791);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, ROCE_CAP_roce_address_table_size), ==,
                    IB_ROCE_MAX_GIDS);

    /* the GID table: what is refused, what is kept */
    g_assert_cmpint(set_roce_addr(&t, IB_ROCE_MAX_GIDS, my_ip, 2, 0, 0), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(set_roce_addr(&t, 1, my_ip, 0, 0, 0), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(set_roce_addr(&t, 1, my_ip, 2, 1, 0), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(set_roce_addr(&t, 1, my_ip, 2, 0, 2), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(set_roce_addr(&t, 1, my_ip, 2, 0, 1), ==, 0);
    {
        /*
         * mlx5_core's switchdev mode: index 0, its fe80:: default GID with l3_type 0 (IPv4)
         * and no MAC, as firmware takes it (an IPv6 address)
         */
        uint8_t rin[ROCE_ADDR_OFF + ROCE_ADDR_SIZE] = { 0 };
        uint8_t *a = rin + ROCE_ADDR_OFF;

        MLX5_SET(rin, CMD_IN_opcode, MLX5_CMD_OP_SET_ROCE_ADDRESS);
        a[ROCE_ADDR_l3_OFF] = 0xfe;
        a[ROCE_ADDR_l3_OFF + 1] = 0x80;
        a[ROCE_ADDR_l3_OFF + 15] = 1;
        MLX5_SET(a, ROCE_ADDR_version, 2);
        g_assert_cmpint(tdrv_exec(t.d, rin, sizeof(rin), out, 16), ==, 0);
    }
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_QUERY_ROCE_ADDRESS);
    MLX5_SET(in, ROCE_ADDR_IN_index, 1);
    g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), out, ROCE_ADDR_OFF + ROCE_ADDR_SIZE), ==, 0);
    g_assert_cmpmem(out + ROCE_ADDR_OFF + 12, 4, my_ip, 4);
    g_assert_cmpmem(out + ROCE_ADDR_OFF + ROCE_ADDR_mac_OFF, 6, my_mac, 6);
    g_assert_cmpint(MLX5_GET(out + ROCE_ADDR_OFF, ROCE_ADDR_version), ==, 2);

    /* a RoCE v2 SEND to our MAC and 10.0.0.1, for a QP that does not exist */
    p.roce = p.ipv4 = true;
    memcpy(p.dmac, my_mac, 6);
    memcpy(p.smac, peer_mac, 6);
    p.sgid[10] = p.sgid[11] = p.dgid[10] = p.dgid[11] = 0xff;
    memcpy(p.sgid + 12, "\x0a\x00\x00\x02", 4);
    memcpy(p.dgid + 12, my_ip, 4);
    p.opcode = IB_TRANSPORT_RC | IB_OP_SEND_ONLY;
    p.pkey = 0xffff;
    p.dest_qpn = 0x999;
    hlen = ib_wire_encode_hdr(&p, f, 0);
    {
        uint32_t crc = ib_wire_icrc(f, hlen, NULL, 0, 0);
        for (int i = 0; i < 4; i++) {
            f[hlen + i] = crc >> (8 * i);
        }
    }
    len = hlen + 4;
    /* roce_en off (as before mlx5_ib loads): the NIC takes it */
    teth_post_recv(&t, 2048, t.mem);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, len);
    /* roce_en on: the RDMA transport takes it (and drops it: no such QP) */
    set_roce_en(&t, true);
    before = t.d->c->ib.stat_rx_drop;
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_false(teth_poll_cqe(&t, cqe));
    g_assert_cmpuint(t.d->c->ib.stat_rx_drop, ==, before + 1);
    /* a damaged one is counted as bad, still not the NIC's */
    f[len - 1] ^= 1;
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_false(teth_poll_cqe(&t, cqe));
    g_assert_cmpuint(t.d->c->ib.stat_rx_bad, ==, 1);
    f[len - 1] ^= 1;
    /* the address deleted (all-zero address): the NIC's again */
    g_assert_cmpint(set_roce_addr(&t, 1, NULL, 2, 1, 0), ==, 0);
    teth_post_recv(&t, 2048, t.mem);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_true(teth_poll_cqe(&t, cqe));
    eth_free(&t);
}


/* ACCESS_REG of an Ethernet port register, @len bytes in and out; the status. */
static int port_reg(TDrv *d, uint16_t id, bool write, uint8_t *reg, unsigned len)
{
    uint8_t in[0x10 + 0x100] = { 0 }, out[0x10 + 0x100] = { 0 };
    int st;

    g_assert_cmpuint(len, <=, 0x100);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_ACCESS_REG);
    MLX5_SET(in, CMD_IN_op_mod, write ? MLX5_ACCESS_REG_WRITE : MLX5_ACCESS_REG_READ);
    MLX5_SET(in, ACCESS_REG_IN_register_id, id);
    memcpy(in + 0x10, reg, len);
    st = tdrv_exec(d, in, 0x10 + len, out, 0x10 + len);
    memcpy(reg, out + 0x10, len);
    return st;
}

/* The physical layer (mlx5_phy.c): PCAM, PPLM (FEC), PFCC (pause), PPCNT's groups. */
/*
 * SET_PP_RATE_LIMIT of entry @index with header uid @uid: @kbps, @burst bytes; returns the status
 * (@synd: syndrome).
 */
static int set_pp_uid(TEth *t, uint16_t uid, uint32_t index, uint32_t kbps, uint32_t burst,
                      uint32_t *synd)
{
    uint8_t in[0x40] = { 0 }, out[16];
    int st;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_PP_RATE_LIMIT);
    MLX5_SET(in, CMD_IN_uid, uid);
    MLX5_SET(in, PP_IN_rate_limit_index, index);
    MLX5_SET(in + PP_IN_CTX_OFF, PP_CTX_rate_limit, kbps);
    MLX5_SET(in + PP_IN_CTX_OFF, PP_CTX_burst_upper_bound, burst);
    MLX5_SET(in + PP_IN_CTX_OFF, PP_CTX_typical_packet_size, burst ? 1500 : 0);
    st = tdrv_exec(t->d, in, sizeof(in), out, sizeof(out));
    if (synd) {
        *synd = tdrv_syndrome(out);
    }
    return st;
}

/* The same from the kernel (uid 0). */
static int set_pp(TEth *t, uint32_t index, uint32_t kbps, uint32_t burst, uint32_t *synd)
{
    return set_pp_uid(t, 0, index, kbps, burst, synd);
}

/* MODIFY_SQ RDY -> RDY naming rate limit entry @index, as mlx5e's tx_maxrate does. */
static int sq_rate_index(TEth *t, uint32_t index)
{
    uint8_t in[WQ_CREATE_PAS_OFF] = { 0 }, out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MODIFY_SQ);
    MLX5_SET(in, OBJ_IN_handle, t->sqn);
    MLX5_SET(in, OBJ_IN_state, MLX5_WQ_STATE_RDY);
    mlx5_st64(in + OBJ_IN_modify_bitmask_OFF, MLX5_MODIFY_SQ_BITMASK_PP_RATE_LIMIT_INDEX);
    MLX5_SET(in + OBJ_CTX_OFF, SQC_state, MLX5_WQ_STATE_RDY);
    MLX5_SET(in + OBJ_CTX_OFF, SQC_packet_pacing_rate_limit_index, index);
    return tdrv_exec(t->d, in, sizeof(in), out, sizeof(out));
}

/*
 * Packet pacing: the QoS page, the rate table's checks, and an SQ pointed at an entry sending
 * no faster than its rate (the fake clock stands still until the core's deadline is let pass).
 */
static void test_pp(void)
{
    uint8_t out[HCA_CAP_OFF + HCA_CAP_SIZE], f[2048], cqe[64], uctx_in[0x20] = { 0 };
    FakeHost *h;
    uint32_t synd;
    uint16_t uid;
    unsigned i;
    TEth t;

    eth_setup(&t);
    h = t.d->h;
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_GENERAL << 1 | 1, 0, 0,
                                out, sizeof(out)), ==, 0);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, CAP_qos), ==, 1);
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_QOS << 1 | 1, 0, 0,
                                out, sizeof(out)), ==, 0);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, QOS_CAP_packet_pacing), ==, 1);
    g_assert_cmpint(MLX5_GET(out + HCA_CAP_OFF, QOS_CAP_packet_pacing_rate_table_size), ==,
                    MLX5_PP_TABLE_SIZE);
    g_assert_cmpuint(MLX5_GET(out + HCA_CAP_OFF, QOS_CAP_packet_pacing_max_rate), ==,
                     MLX5_PP_MAX_RATE);

    /* the table: index 0 is no entry, nor is one beyond it; rates in range; 0 clears */
    g_assert_cmpint(set_pp(&t, 0, 1000, 0, &synd), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(set_pp(&t, MLX5_PP_TABLE_SIZE, 1000, 0, &synd), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(set_pp(&t, 1, MLX5_PP_MAX_RATE + 1, 0, &synd), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(set_pp(&t, MLX5_PP_TABLE_SIZE - 1, 100, 0, NULL), ==, 0);
    g_assert_cmpint(set_pp(&t, MLX5_PP_TABLE_SIZE - 1, 0, 0, NULL), ==, 0);
    /* packet_pacing_uid: an entry a DevX context set is its own until it clears it */
    MLX5_SET(uctx_in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_UCTX);
    g_assert_cmpint(tdrv_exec(t.d, uctx_in, sizeof(uctx_in), out, 16), ==, 0);
    uid = MLX5_GET(out, CREATE_UCTX_OUT_uid);
    g_assert_cmpint(uid, !=, 0);
    g_assert_cmpint(set_pp_uid(&t, uid, 2, 1000, 0, NULL), ==, 0);
    g_assert_cmpint(set_pp(&t, 2, 2000, 0, &synd), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(set_pp(&t, 2, 0, 0, &synd), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(set_pp_uid(&t, uid, 2, 0, 0, NULL), ==, 0);
    g_assert_cmpint(set_pp(&t, 2, 2000, 0, NULL), ==, 0);
    g_assert_cmpint(set_pp(&t, 2, 0, 0, NULL), ==, 0);
    /* an SQ may not name an index beyond the table */
    g_assert_cmpint(sq_rate_index(&t, MLX5_PP_TABLE_SIZE), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);

    /* 8000 kbps: 1000 bytes a millisecond; no burst: a frame at a time */
    g_assert_cmpint(set_pp(&t, 1, 8000, 0, NULL), ==, 0);
    g_assert_cmpint(sq_rate_index(&t, 1), ==, 0);
    memset(f, 0, sizeof(f));
    udp_frame(f, peer_mac, 1000 - 42, false);
    fake_write(h, t.mem, f + 42, 1000 - 42);
    for (i = 0; i < 3; i++) {
        teth_post_send(&t, MLX5_OPCODE_SEND, 0, 0, f, 42, 1000 - 42, t.mem, -1);
    }
    /* the first leaves at once, the others wait a millisecond each */
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_false(teth_poll_cqe(&t, cqe));
    g_assert_cmpuint(h->tx->len, ==, 1);
    g_assert_cmpint(h->deadline - h->now, ==, 1000000);
    h->now += 999999;
    mlx5_core_expire(t.d->c, h->now);
    g_assert_false(teth_poll_cqe(&t, cqe));
    g_assert_cmpuint(h->tx->len, ==, 1);
    for (i = 2; i <= 3; i++) {
        h->now = h->deadline;
        mlx5_core_expire(t.d->c, h->now);
        g_assert_true(teth_poll_cqe(&t, cqe));
        g_assert_cmpint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
        g_assert_cmpuint(h->tx->len, ==, i);
    }
    g_assert_cmpint(h->deadline, ==, INT64_MAX);

    /*
     * a burst of 3000 bytes: after an idle while three frames leave at once; the fourth as soon
     * as the first has left at the rate
     */
    g_assert_cmpint(set_pp(&t, 1, 8000, 3000, NULL), ==, 0);
    h->now += 10000000;
    for (i = 0; i < 5; i++) {
        teth_post_send(&t, MLX5_OPCODE_SEND, 0, 0, f, 42, 1000 - 42, t.mem, -1);
    }
    for (i = 0; i < 3; i++) {
        g_assert_true(teth_poll_cqe(&t, cqe));
    }
    g_assert_false(teth_poll_cqe(&t, cqe));
    g_assert_cmpuint(h->tx->len, ==, 3 + 3);
    g_assert_cmpint(h->deadline - h->now, ==, 1);
    h->now += 1000000;
    mlx5_core_expire(t.d->c, h->now);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_false(teth_poll_cqe(&t, cqe));
    g_assert_cmpuint(h->tx->len, ==, 3 + 4);

    /* back to no limit (index 0): the rest leaves at once */
    g_assert_cmpint(sq_rate_index(&t, 0), ==, 0);
    g_assert_true(teth_poll_cqe(&t, cqe));
    g_assert_cmpuint(h->tx->len, ==, 3 + 5);
    /* a cleared entry limits nothing either */
    g_assert_cmpint(sq_rate_index(&t, 1), ==, 0);
    g_assert_cmpint(set_pp(&t, 1, 0, 0, NULL), ==, 0);
    for (i = 0; i < 4; i++) {
        teth_post_send(&t, MLX5_OPCODE_SEND, 0, 0, f, 42, 1000 - 42, t.mem, -1);
    }
    for (i = 0; i < 4; i++) {
        g_assert_true(teth_poll_cqe(&t, cqe));
    }
    g_assert_cmpuint(h->tx->len, ==, 3 + 5 + 4);
    /* CREATE_SQ naming an entry beyond the table: BAD_PARAM with the index syndrome */
    {
        uint8_t in[WQ_CREATE_PAS_OFF + 8] = { 0 }, o[16];

        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_SQ);
        MLX5_SET(in + OBJ_CTX_OFF, SQC_cqn, t.cqn);
        MLX5_SET(in + OBJ_CTX_OFF, SQC_tis_lst_sz, 1);
        MLX5_SET(in + OBJ_CTX_OFF, SQC_tis_num_0, t.tisn);
        MLX5_SET(in + OBJ_CTX_OFF, SQC_packet_pacing_rate_limit_index, 128);
        teth_wq_ctx(&t, in, 6, 6, fake_alloc(t.d->h, 4096, 4096), fake_alloc(t.d->h, 64, 64));
        g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), o, sizeof(o)), ==,
                        MLX5_CMD_STAT_BAD_PARAM_ERR);
        g_assert_cmphex(tdrv_syndrome(o), ==, 0x30000050);
    }
    eth_free(&t);
}

static void test_phy(void)
{
    uint8_t reg[0x100], f[256], cqe[64];
    unsigned r;
    size_t len;
    TEth t;

    eth_setup(&t);
    /* PCAM announces PPLM, PFCC and PPCNT */
    memset(reg, 0, sizeof(reg));
    g_assert_cmpint(port_reg(t.d, MLX5_REG_PCAM, false, reg, 0x50), ==, 0);
    for (r = 0; r < 3; r++) {
        unsigned b = (uint16_t[]){ MLX5_REG_PPLM, MLX5_REG_PFCC, MLX5_REG_PPCNT }[r] - 0x5000;

        g_assert_true(reg[8 + 15 - b / 8] >> (b % 8) & 1);
    }

    /* PPLM: a 10G lane runs no FEC (auto); BASE-R when asked; RS refused at 10G */
    memset(reg, 0, sizeof(reg));
    MLX5_SET(reg, PPLM_local_port, 1);
    g_assert_cmpint(port_reg(t.d, MLX5_REG_PPLM, false, reg, PPLM_SIZE), ==, 0);
    g_assert_cmphex(MLX5_GET(reg, PPLM_fec_mode_active), ==, 1);
    g_assert_cmphex(mlx5_ld32(reg + PPLM_fec_override_cap_OFF) & 0xf, ==, 3);
    g_assert_cmphex(mlx5_ld32(reg + PPLM_fec_override_cap_OFF) >> 12 & 0xf, ==, 5);
    mlx5_st32(reg + PPLM_fec_override_admin_OFF, 2);
    g_assert_cmpint(port_reg(t.d, MLX5_REG_PPLM, true, reg, PPLM_SIZE), ==, 0);
    g_assert_cmphex(MLX5_GET(reg, PPLM_fec_mode_active), ==, 2);
    mlx5_st32(reg + PPLM_fec_override_admin_OFF, 4);        /* RS on the 10G lane */
    g_assert_cmpint(port_reg(t.d, MLX5_REG_PPLM, true, reg, PPLM_SIZE), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    mlx5_st32(reg + PPLM_fec_override_admin_OFF, 3);        /* two at once */
    g_assert_cmpint(port_reg(t.d, MLX5_REG_PPLM, true, reg, PPLM_SIZE), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    memset(reg, 0, sizeof(reg));
    MLX5_SET(reg, PPLM_local_port, 1);
    g_assert_cmpint(port_reg(t.d, MLX5_REG_PPLM, false, reg, PPLM_SIZE), ==, 0);
    g_assert_cmphex(MLX5_GET(reg, PPLM_fec_mode_active), ==, 2);    /* unchanged */
    MLX5_SET(reg, PPLM_local_port, 2);
    g_assert_cmpint(port_reg(t.d, MLX5_REG_PPLM, false, reg, PPLM_SIZE), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);

    /* PFCC: pause on; a write of pause off, PFC on priority 3 (masked to it) */
    memset(reg, 0, sizeof(reg));
    g_assert_cmpint(port_reg(t.d, MLX5_REG_PFCC, false, reg, PFCC_SIZE), ==, 0);
    g_assert_cmpint(MLX5_GET(reg, PFCC_pptx), ==, 1);
    g_assert_cmpint(MLX5_GET(reg, PFCC_pprx), ==, 1);
    memset(reg, 0, sizeof(reg));
    MLX5_SET(reg, PFCC_prio_mask_tx, 0x08);
    MLX5_SET(reg, PFCC_pfctx, 0xff);
    g_assert_cmpint(port_reg(t.d, MLX5_REG_PFCC, true, reg, PFCC_SIZE), ==, 0);
    g_assert_cmpint(MLX5_GET(reg, PFCC_pptx), ==, 0);
    g_assert_cmphex(MLX5_GET(reg, PFCC_pfctx), ==, 0x08);
    g_assert_cmphex(MLX5_GET(reg, PFCC_pfcrx), ==, 0);

    /* PPCNT: the 802.3 group counts a received frame; the physical layer the link drops */
    len = udp_frame(f, my_mac, 100, false);
    teth_post_recv(&t, 2048, t.mem);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    g_assert_true(teth_poll_cqe(&t, cqe));
    memset(reg, 0, sizeof(reg));
    MLX5_SET(reg, PPCNT_grp, MLX5_PPCNT_IEEE_802_3);
    g_assert_cmpint(port_reg(t.d, MLX5_REG_PPCNT, false, reg, 0x100), ==, 0);
    g_assert_cmpuint(mlx5_ld64(reg + PPCNT_DATA_OFF + 0x08), ==, 1);
    g_assert_cmpuint(mlx5_ld64(reg + PPCNT_DATA_OFF + 0x28), ==, len);
    mlx5_core_link_set_up(t.d->c, 1, false);
    mlx5_core_link_set_up(t.d->c, 1, true);
    memset(reg, 0, sizeof(reg));
    MLX5_SET(reg, PPCNT_grp, MLX5_PPCNT_PHYSICAL_LAYER);
    g_assert_cmpint(port_reg(t.d, MLX5_REG_PPCNT, false, reg, 0x100), ==, 0);
    g_assert_cmpuint(mlx5_ld32(reg + PPCNT_DATA_OFF + PPCNT_PHY_link_down_events_OFF), ==, 1);
    /* a short access: what fits */
    memset(reg, 0, sizeof(reg));
    MLX5_SET(reg, PPCNT_grp, MLX5_PPCNT_IEEE_802_3);
    g_assert_cmpint(port_reg(t.d, MLX5_REG_PPCNT, false, reg, 0x10), ==, 0);
    g_assert_cmpuint(mlx5_ld64(reg + PPCNT_DATA_OFF), ==, 0);        /* nothing sent */
    eth_free(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/eth/caps", test_caps);
    g_test_add_func("/mlx5/eth/rx", test_rx);
    g_test_add_func("/mlx5/eth/cqe-comp", test_cqe_comp);
    g_test_add_func("/mlx5/eth/striding", test_striding);
    g_test_add_func("/mlx5/eth/tx", test_tx);
    g_test_add_func("/mlx5/eth/mpw", test_mpw);
    g_test_add_func("/mlx5/eth/vxlan", test_vxlan);
    g_test_add_func("/mlx5/eth/decap", test_decap);
    g_test_add_func("/mlx5/eth/decap-l2", test_decap_l2);
    g_test_add_func("/mlx5/eth/decap-l3", test_decap_l3);
    g_test_add_func("/mlx5/eth/modify-header", test_modhdr);
    g_test_add_func("/mlx5/eth/encap", test_encap);
    g_test_add_func("/mlx5/eth/blueflame", test_blueflame);
    g_test_add_func("/mlx5/eth/blueflame-wait", test_blueflame_wait);
    g_test_add_func("/mlx5/eth/steering", test_steering);
    g_test_add_func("/mlx5/eth/flow-counters", test_flow_counters);
    g_test_add_func("/mlx5/eth/toeplitz", test_toeplitz);
    g_test_add_func("/mlx5/eth/roce", test_roce);
    g_test_add_func("/mlx5/eth/phy", test_phy);
    g_test_add_func("/mlx5/eth/packet-pacing", test_pp);
    return g_test_run();
}
