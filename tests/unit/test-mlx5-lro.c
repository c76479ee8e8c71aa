/*
 * Unit tests of LRO (hw/rdma/mlx5/eth/mlx5_lro.c): the caps and the TIR fields, sessions on a
 * striding and on a cyclic RQ, what ends a session (timeout, PSH, a frame that does not
 * continue it, the payload limit, the WQE's room), the CQE's LRO fields and the merged data,
 * and a session dropped when its RQ leaves RDY.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-testeth.h"

static const uint8_t my_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t peer_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };

#define HDR     (14 + 20 + 32)          /* Ethernet, IPv4, TCP with a timestamp option */

static TDrv *eth_node(void)
{
    return teth_node(my_mac);
}

/* Payload byte @i of a segment at sequence number @seq. */
static uint8_t pay(uint32_t seq, unsigned i)
{
    return (seq + i) * 13 + 5;
}

/*
 * An Ethernet/IPv4/TCP segment from port 4000 to 5000 at @seq with @n payload bytes, TCP
 * flags @flags, TTL @ttl, ACK number @ack and window @win, a timestamp option @tsval; the
 * checksums right unless @bad.
 */
static size_t tcp_seg(uint8_t *f, uint32_t seq, unsigned n, uint8_t flags, uint8_t ttl,
                      uint32_t ack, uint16_t win, uint32_t tsval, bool bad)
{
    size_t len = HDR + n, i;
    uint32_t s;

    memset(f, 0, len);
    memcpy(f, my_mac, 6);
    memcpy(f + 6, peer_mac, 6);
    mlx5_st16(f + 12, 0x0800);
    f[14] = 0x45;
    mlx5_st16(f + 16, 20 + 32 + n);
    mlx5_st16(f + 20, 0x4000);                  /* DF */
    f[22] = ttl;
    f[23] = 6;
    memcpy(f + 26, "\x0a\x00\x00\x02\x0a\x00\x00\x01", 8);
    mlx5_st16(f + 24, ~ib_csum_fold(ib_csum_add(0, f + 14, 20)));
    mlx5_st16(f + 34, 4000);
    mlx5_st16(f + 36, 5000);
    mlx5_st32(f + 38, seq);
    mlx5_st32(f + 42, ack);
    f[46] = 8 << 4;                             /* 32 bytes */
    f[47] = flags;
    mlx5_st16(f + 48, win);
    f[54] = 1;                                  /* NOP NOP TS */
    f[55] = 1;
    f[56] = 8;
    f[57] = 10;
    mlx5_st32(f + 58, tsval);
    for (i = 0; i < n; i++) {
        f[HDR + i] = pay(seq, i);
    }
    s = ib_csum_add(0, f + 26, 8) + 6 + 32 + n;
    s = ib_csum_add(s, f + 34, 32 + n);
    mlx5_st16(f + 50, ~ib_csum_fold(s) ^ (bad ? 0x5a5a : 0));
    return len;
}

#define ACK     0x10
#define PSH     0x08

static void seg_in(TEth *t, uint32_t seq, unsigned n, uint8_t flags, uint8_t ttl, uint32_t ack)
{
    uint8_t f[HDR + 2048];
    size_t len = tcp_seg(f, seq, n, flags, ttl, ack, 500 + ack, 77, false);

    g_assert_true(mlx5_core_link_rx(t->d->c, 1, f, len));
}

/* MODIFY_TIR of the channel's TIR: LRO mask @mask, @max_payload bytes, @timeout us. */
static int lro_on(TEth *t, unsigned mask, unsigned max_payload, unsigned timeout)
{
    uint8_t in[OBJ_CTX_OFF + TIRC_SIZE] = { 0 }, out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MODIFY_TIR);
    MLX5_SET(in, OBJ_IN_handle, t->tirn);
    MLX5_SET(in, MODIFY_TIR_bitmask_packet_merge, 1);
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_packet_merge_mask, mask);
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_lro_max_ip_payload_size, max_payload >> 8);
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_lro_timeout_period_usecs, timeout);
    return tdrv_exec(t->d, in, sizeof(in), out, sizeof(out));
}

/* Let the core's deadline pass. */
static void expire(TEth *t)
{
    FakeHost *h = t->d->h;

    g_assert_cmpint(h->deadline, <, INT64_MAX);
    h->now = MAX(h->now, h->deadline);
    mlx5_core_expire(t->d->c, h->now);
}

/*
 * Check merged CQE @cqe of @nseg segments from @seq (@n payload bytes each), its data at @pa:
 * the first segment's headers and the payloads in order.
 */
static void check_merged(TEth *t, const uint8_t *cqe, uint64_t pa, unsigned nseg, uint32_t seq,
                         unsigned n, uint8_t min_ttl, uint32_t last_ack, bool psh)
{
    size_t len = HDR + nseg * n, i;
    g_autofree uint8_t *got = g_malloc(len);
    uint8_t first[HDR];

    g_assert_cmpint(cqe[MLX5_CQE_op_own] >> 4, ==, MLX5_CQE_RESP_SEND);
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_srqn_uidx) >> 24, ==, nseg > 1 ? nseg : 0);
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt) & 0xffff, ==, len);
    fake_read(t->d->h, pa, got, len);
    tcp_seg(first, seq, 0, 0, 0, 0, 0, 77, false);
    /* MACs, ethertype; addresses, ports, the first sequence number; TCP options */
    g_assert_cmpmem(got, 14, first, 14);
    g_assert_cmpmem(got + 26, 16, first + 26, 16);
    g_assert_cmpmem(got + 54, 12, first + 54, 12);
    for (i = 0; i < nseg * n; i++) {
        g_assert_cmpint(got[HDR + i], ==, pay(seq, i));
    }
    if (nseg > 1) {
        g_assert_cmpint(cqe[MLX5_CQE_lro_min_ttl], ==, min_ttl);
        g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_lro_ack_seq_num), ==, last_ack);
        g_assert_cmpuint(mlx5_ld16(cqe + MLX5_CQE_lro_tcp_win), ==, (500 + last_ack) & 0xffff);
        g_assert_cmpint(cqe[MLX5_CQE_lro_tcppsh], ==, psh ? MLX5_CQE_LRO_PSH : 0);
        g_assert_cmpint((cqe[MLX5_CQE_l4_l3_hdr_type] >> 4) & 7, ==,
                        MLX5_CQE_L4_HDR_TCP_ACK_AND_DATA);
        /* the TCP payload's sum alone */
        g_assert_cmphex(mlx5_ld16(cqe + MLX5_CQE_check_sum), ==,
                        ib_csum_fold(ib_csum_add(0, got + HDR, nseg * n)));
        g_assert_true(cqe[MLX5_CQE_hds_ip_ext] & MLX5_CQE_L4_OK);
    }
}

static void test_caps_tir(void)
{
    uint8_t out[HCA_CAP_OFF + HCA_CAP_SIZE];
    uint8_t in[16] = { 0 }, q[OBJ_QUERY_OUT_CTX_OFF + TIRC_SIZE];
    const uint8_t *cap = out + HCA_CAP_OFF;
    TEth t;

    teth_setup(&t, eth_node());
    g_assert_cmpint(tdrv_simple(t.d, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_ETHERNET_OFFLOADS << 1,
                                0, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpint(MLX5_GET(cap, ETH_CAP_lro_cap), ==, 1);
    g_assert_cmpint(MLX5_GET(cap, ETH_CAP_lro_psh_flag), ==, 1);
    g_assert_cmpint(MLX5_GET(cap, ETH_CAP_lro_time_stamp), ==, 1);
    /* the periods ascend; mlx5e picks the first of at least its 32 us */
    g_assert_cmpuint(mlx5_ld32(cap + ETH_CAP_lro_timer_period_OFF), ==, 8);
    g_assert_cmpuint(mlx5_ld32(cap + ETH_CAP_lro_timer_period_OFF + 8), ==, 32);

    /* a mask bit that is not IPv4 or IPv6: refused, nothing changes */
    g_assert_cmpint(lro_on(&t, 4 | 1, 4096, 32), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(lro_on(&t, 3, 65280, 32), ==, 0);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_QUERY_TIR);
    MLX5_SET(in, OBJ_IN_handle, t.tirn);
    g_assert_cmpint(tdrv_exec(t.d, in, sizeof(in), q, sizeof(q)), ==, 0);
    g_assert_cmpint(MLX5_GET(q + OBJ_QUERY_OUT_CTX_OFF, TIRC_packet_merge_mask), ==, 3);
    g_assert_cmpint(MLX5_GET(q + OBJ_QUERY_OUT_CTX_OFF, TIRC_lro_max_ip_payload_size), ==, 255);
    g_assert_cmpint(MLX5_GET(q + OBJ_QUERY_OUT_CTX_OFF, TIRC_lro_timeout_period_usecs), ==, 32);
    tdrv_free(t.d);
}

/* The next CQE of a striding RQ that is not a filler, and where its data is (WQE i at mem + 4 KiB * i). */
static uint64_t next_frame(TEth *t, uint8_t *cqe)
{
    do {
        g_assert_true(teth_poll_cqe(t, cqe));
    } while (mlx5_ld32(cqe + MLX5_CQE_byte_cnt) & 0x80000000u);
    return t->mem + 4096 * mlx5_ld16(cqe + 2) + 64 * mlx5_ld16(cqe + MLX5_CQE_wqe_counter);
}

static void test_striding(void)
{
    uint8_t cqe[64], f[HDR + 2048];
    uint64_t pa;
    size_t len;
    unsigned i;
    TEth t;

    /* 64 strides of 64 bytes: a WQE holds 4 KiB */
    teth_setup_ex(&t, eth_node(), -1, MLX5_WQ_TYPE_LL_STRIDING, 6);
    teth_post_mpwqe(&t, 1, 4096, t.mem);
    teth_post_mpwqe(&t, 2, 4096, t.mem + 4096);
    teth_post_mpwqe(&t, 3, 4096, t.mem + 8192);

    /* LRO off: every segment has its CQE */
    seg_in(&t, 1000, 100, ACK, 64, 7);
    check_merged(&t, cqe, next_frame(&t, cqe), 1, 1000, 100, 64, 7, false);

    /* three segments in order: one CQE when the session times out */
    g_assert_cmpint(lro_on(&t, MLX5_TIRC_LRO_IPV4, 65280, 32), ==, 0);
    seg_in(&t, 2000, 100, ACK, 64, 8);
    seg_in(&t, 2100, 100, ACK, 60, 9);
    seg_in(&t, 2200, 100, ACK, 62, 10);
    g_assert_false(teth_poll_cqe(&t, cqe));
    g_assert_cmpint(t.d->h->deadline - t.d->h->now, <=, 32000);
    expire(&t);
    pa = next_frame(&t, cqe);
    check_merged(&t, cqe, pa, 3, 2000, 100, 60, 10, false);
    g_assert_cmpuint(pa, ==, t.mem + 3 * 64);
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt) >> 16, ==, (HDR + 300 + 63) / 64);

    /* PSH joins and ends it at once */
    seg_in(&t, 3000, 50, ACK, 64, 1);
    seg_in(&t, 3050, 50, ACK | PSH, 64, 2);
    check_merged(&t, cqe, next_frame(&t, cqe), 2, 3000, 50, 64, 2, true);

    /* a gap ends it: the lone first segment is an ordinary frame, the next starts again */
    seg_in(&t, 4000, 40, ACK, 64, 1);
    seg_in(&t, 4100, 40, ACK, 64, 1);
    check_merged(&t, cqe, next_frame(&t, cqe), 1, 4000, 40, 64, 1, false);
    /* a frame of another kind (a bad checksum) for the RQ: the session first, then it */
    len = tcp_seg(f, 4140, 40, ACK, 64, 1, 501, 77, true);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    check_merged(&t, cqe, next_frame(&t, cqe), 1, 4100, 40, 64, 1, false);
    next_frame(&t, cqe);
    g_assert_false(cqe[MLX5_CQE_hds_ip_ext] & MLX5_CQE_L4_OK);
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_srqn_uidx) >> 24, ==, 0);
    /* other TCP options (a new timestamp) do not join */
    seg_in(&t, 5000, 40, ACK, 64, 1);
    len = tcp_seg(f, 5040, 40, ACK, 64, 1, 501, 78, false);
    g_assert_true(mlx5_core_link_rx(t.d->c, 1, f, len));
    check_merged(&t, cqe, next_frame(&t, cqe), 1, 5000, 40, 64, 1, false);
    expire(&t);
    next_frame(&t, cqe);
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_srqn_uidx) >> 24, ==, 0);

    /*
     * a session grows to a whole WQE: 66 + 6 * 600 = 3666 bytes fit in 4 KiB, the seventh
     * segment would not; the strides left in WQE 0 cannot take six (a filler, then WQE 1)
     */
    for (i = 0; i < 7; i++) {
        seg_in(&t, 6000 + 600 * i, 600, ACK, 64, i);
    }
    pa = next_frame(&t, cqe);
    g_assert_cmpuint(pa, ==, t.mem + 4096);
    check_merged(&t, cqe, pa, 6, 6000, 600, 64, 5, false);
    expire(&t);
    check_merged(&t, cqe, next_frame(&t, cqe), 1, 9600, 600, 64, 6, false);

    /* the payload limit: 1024 bytes of IP payload (32 of TCP header) take one 600 only */
    g_assert_cmpint(lro_on(&t, MLX5_TIRC_LRO_IPV4, 1024, 32), ==, 0);
    seg_in(&t, 20000, 600, ACK, 64, 7);
    seg_in(&t, 20600, 600, ACK, 64, 7);
    check_merged(&t, cqe, next_frame(&t, cqe), 1, 20000, 600, 64, 7, false);
    expire(&t);
    check_merged(&t, cqe, next_frame(&t, cqe), 1, 20600, 600, 64, 7, false);
    g_assert_false(teth_poll_cqe(&t, cqe));
    /* IPv6 only: IPv4 segments are not held */
    g_assert_cmpint(lro_on(&t, MLX5_TIRC_LRO_IPV6, 65280, 32), ==, 0);
    seg_in(&t, 21000, 100, ACK, 64, 1);
    check_merged(&t, cqe, next_frame(&t, cqe), 1, 21000, 100, 64, 1, false);

    /* an RQ that leaves RDY drops its session: nothing is written for it */
    g_assert_cmpint(lro_on(&t, MLX5_TIRC_LRO_IPV4, 65280, 32), ==, 0);
    seg_in(&t, 22000, 100, ACK, 64, 1);
    seg_in(&t, 22100, 100, ACK, 64, 1);
    g_assert_cmpuint(t.d->c->eth->n_lro, ==, 1);
    g_assert_cmpint(teth_modify_wq(&t, MLX5_CMD_OP_MODIFY_RQ, t.rqn, MLX5_WQ_STATE_RDY,
                                   MLX5_WQ_STATE_ERR), ==, 0);
    t.d->h->now += 1000000;
    mlx5_core_expire(t.d->c, t.d->h->now);
    g_assert_false(teth_poll_cqe(&t, cqe));
    g_assert_cmpuint(t.d->c->eth->n_lro, ==, 0);
    tdrv_free(t.d);
}

static void test_cyclic(void)
{
    uint8_t cqe[64];
    TEth t;

    /* a cyclic RQ: a session grows to the next WQE's buffer (400 bytes) */
    teth_setup(&t, eth_node());
    teth_post_recv(&t, 400, t.mem);
    teth_post_recv(&t, 400, t.mem + 1024);
    g_assert_cmpint(lro_on(&t, MLX5_TIRC_LRO_IPV4, 65280, 16), ==, 0);
    seg_in(&t, 100, 100, ACK, 64, 1);
    seg_in(&t, 200, 100, ACK, 64, 2);
    seg_in(&t, 300, 100, ACK, 64, 3);           /* 366: fits */
    seg_in(&t, 400, 100, ACK, 64, 4);           /* 466: the session ends at three */
    g_assert_true(teth_poll_cqe(&t, cqe));
    check_merged(&t, cqe, t.mem, 3, 100, 100, 64, 3, false);
    g_assert_cmpuint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, 0);
    expire(&t);
    g_assert_true(teth_poll_cqe(&t, cqe));
    check_merged(&t, cqe, t.mem + 1024, 1, 400, 100, 64, 4, false);
    /* no WQE left: a segment is not held, and is dropped as any frame */
    seg_in(&t, 500, 100, ACK, 64, 5);
    g_assert_false(teth_poll_cqe(&t, cqe));
    g_assert_cmpuint(t.d->c->eth->n_lro, ==, 0);
    /* the RQ destroyed with a session open: gone with it */
    teth_post_recv(&t, 400, t.mem);
    seg_in(&t, 600, 100, ACK, 64, 5);
    g_assert_cmpuint(t.d->c->eth->n_lro, ==, 1);
    tdrv_free(t.d);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/lro/caps-tir", test_caps_tir);
    g_test_add_func("/mlx5/lro/striding", test_striding);
    g_test_add_func("/mlx5/lro/cyclic", test_cyclic);
    return g_test_run();
}
