/*
 * Fuzz target: the Ethernet NIC data path (an Ethernet node, fz_node_new_eth without the RDMA
 * objects, with what mlx5e and mlx5_ib make for receive and send: mlx5-testeth.c's channel of
 * one SQ and one RQ in transport domain 1, and here a second transport domain with its own
 * direct TIR on the same RQ, an RSS TIR (Toeplitz over addresses and ports) through an RQT, and
 * two chained flow tables):
 *   root table (level 1, misses to the MAC table): UDP source port 4000 -> TIR 2 and on into
 *     the MAC table (a "don't trap" rule), 4001 -> the RSS TIR, 4002 -> drop;
 *   MAC table (level 5): the node's MAC -> the direct TIR; any multicast -> the RSS TIR.
 * Frames come from the link and from the SQ, whose frames to the node's MAC or to a group come
 * back through the same steering (local loopback; TIR 1 refuses its own domain's frames unless
 * its self-loopback bits are set).
 *
 * Input: a setup byte (% 3: the channel's CQ does not compress CQEs, or compresses them with
 * hash or checksum mini CQEs; the drain below takes compressed sessions apart; / 3 % 2: the RQ
 * is cyclic, or striding (DPDK's MPRQ: WQEs of 256 strides of 64 bytes, refilled to 4 as the
 * device finishes them), then records.
 * Record: kind u8, then by kind % 3:
 *   0 a frame from the link: flags u8, len u16, frame[len] (at most MLX5_ETH_MAX_FRAME + 64).
 *     flags: 1 = to the node's MAC (2: and with the group bit set); 4 = fix the IPv4 total
 *     length and header checksum and the UDP length or the TCP checksum (an untagged IPv4
 *     frame); 8 = the UDP source
 *     port 4000 + (flags >> 4) % 4 (one of the root table's rules, or none).
 *   1 a send WQE on the SQ: flags u8, n u8, then 64 * (1 + n % 4) bytes.
 *     flags: 1 = the ctrl segment's WQE index and SQ number set to the queue's, and its DS
 *     count to the WQE's size; 2 = data segments after the inline headers point into the
 *     node's memory through the PA key (length mod 4 KiB, within 48 KiB); 4 = first bring the SQ back from
 *     error (ERR -> RST -> RDY, as mlx5e recovers it).
 *   2 a steering change: op u8, a u8, b u8, action u16, then 2 * (b % 4) bytes of destinations.
 *     op % 3: 0 = update (SET_FLOW_TABLE_ENTRY op_mod 1, modify_enable_mask a) root entry b % 3
 *     to the action and destinations (type byte: even a TIR, odd a table; id byte: which of
 *     TIR 1, TIR 2, the RSS TIR, or which table); 1 = MODIFY_TIR of TIR a % 2 with
 *     self_lb_block b, and if b & 4 LRO: packet_merge_mask (b >> 3) & 7, the IP payload limit
 *     action & 0xff (256-byte units), the timeout action >> 8 us; 2 = the root table becomes
 *     table a % 2 (0 = the root table as built).
 * After each record the device runs, 10 us pass (LRO sessions time out), the CQ is drained and
 * the RQ is refilled to 8 WQEs.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz.h"
#include "mlx5-testeth.h"

#define FZ_ETH_RQ_WQES  8               /* receive WQEs kept posted (the ring has 16) */
#define FZ_ETH_MPW_WQES 4               /* striding: WQEs kept posted, ... */
#define FZ_ETH_MPW_LOG_STRIDES 8
#define FZ_ETH_MPW_BYTES (64u << FZ_ETH_MPW_LOG_STRIDES)    /* ... of 16 KiB */

typedef struct FzEth {
    FzNode *n;
    TEth t;
    uint32_t td2, tir[3], ft[2], fg0;   /* tir: direct (TD 1), direct (TD 2), RSS (TD 1) */
    unsigned rq_posted;                 /* receive WQEs posted and not completed */
    bool striding;                      /* the RQ is a cyclic striding one */
} FzEth;

/* SET_FLOW_TABLE_ENTRY @op_mod of root entry @index: UDP source port 4000 + @index. */
static int fz_fte(FzEth *e, uint32_t index, uint16_t op_mod, uint8_t mask, uint16_t action,
                  unsigned nd, const uint8_t *types, const uint32_t *ids)
{
    return teth_set_fte(&e->t, e->ft[0], e->fg0, index, 4000 + index, action, nd, types, ids,
                        op_mod, mask);
}

static void fz_root(FzEth *e, uint32_t ft)
{
    uint8_t in[0x40] = { 0 };

    MLX5_SET(in, FT_IN_table_id, ft);
    teth_obj_create(e->t.d, MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, in, sizeof(in));
}

/* The objects beyond teth_setup's channel (see the top of the file). */
static void fz_eth_objects(FzEth *e)
{
    static const uint8_t mc[6] = { 0x01 };
    uint8_t in[0x400] = { 0 }, out[16];
    const uint8_t dt[2] = { MLX5_FLOW_DEST_TYPE_TIR, MLX5_FLOW_DEST_TYPE_FLOW_TABLE };
    uint32_t di[2], rqt;

    e->ft[1] = e->t.ft;
    e->tir[0] = e->t.tirn;
    g_assert_cmpint(tdrv_simple(e->t.d, MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, 0, 0, 0, out, 16), ==,
                    0);
    e->td2 = MLX5_GET(out, ALLOC_OUT_handle);
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_transport_domain, e->td2);
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_inline_rqn, e->t.rqn);
    e->tir[1] = teth_obj_create(e->t.d, MLX5_CMD_OP_CREATE_TIR, in, OBJ_CTX_OFF + TIRC_SIZE);

    memset(in, 0, sizeof(in));
    MLX5_SET(in + OBJ_CTX_OFF, RQTC_rqt_max_size, 2);
    MLX5_SET(in + OBJ_CTX_OFF, RQTC_rqt_actual_size, 2);
    mlx5_st32(in + OBJ_CTX_OFF + RQTC_LIST_OFF, e->t.rqn);
    mlx5_st32(in + OBJ_CTX_OFF + RQTC_LIST_OFF + 4, e->t.rqn);
    rqt = teth_obj_create(e->t.d, MLX5_CMD_OP_CREATE_RQT, in, OBJ_CTX_OFF + RQTC_LIST_OFF + 8);
    memset(in, 0, sizeof(in));
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_transport_domain, e->t.td);
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_disp_type, MLX5_TIRC_DISP_INDIRECT);
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_indirect_table, rqt);
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_rx_hash_fn, MLX5_RX_HASH_FN_TOEPLITZ);
    memset(in + OBJ_CTX_OFF + TIRC_toeplitz_key_OFF, 0x6d, 40);
    MLX5_SET(in + OBJ_CTX_OFF, TIRC_hash_outer, HASH_SEL_l4_prot_type | HASH_SEL_SRC_IP |
             HASH_SEL_DST_IP | HASH_SEL_L4_SPORT | HASH_SEL_L4_DPORT);
    e->tir[2] = teth_obj_create(e->t.d, MLX5_CMD_OP_CREATE_TIR, in, OBJ_CTX_OFF + TIRC_SIZE);

    /* the MAC table's second group: the group bit -> the RSS TIR */
    memset(in, 0, sizeof(in));
    MLX5_SET(in, FT_IN_table_id, e->ft[1]);
    MLX5_SET(in, FG_IN_start_flow_index, 8);
    MLX5_SET(in, FG_IN_end_flow_index, 8);
    MLX5_SET(in, FG_IN_match_criteria_enable, 1);
    in[FG_IN_criteria_OFF + MS_dmac_47_16_OFF] = 0x01;
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
    g_assert_cmpint(tdrv_exec(e->t.d, in, sizeof(in), out, sizeof(out)), ==, 0);
    {
        g_autofree uint8_t *fte = g_malloc0(FTE_CTX_OFF + FC_dest_OFF + 8);
        uint8_t *fc = fte + FTE_CTX_OFF;

        MLX5_SET(fte, FT_IN_table_id, e->ft[1]);
        MLX5_SET(fte, FTE_IN_flow_index, 8);
        MLX5_SET(fc, FC_group_id, MLX5_GET(out, FG_OUT_group_id));
        MLX5_SET(fc, FC_action, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST);
        MLX5_SET(fc, FC_destination_list_size, 1);
        memcpy(fc + FC_match_value_OFF + MS_dmac_47_16_OFF, mc, 6);
        MLX5_SET(fc + FC_dest_OFF, DEST_type, MLX5_FLOW_DEST_TYPE_TIR);
        MLX5_SET(fc + FC_dest_OFF, DEST_id, e->tir[2]);
        teth_obj_create(e->t.d, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY, fte,
                        FTE_CTX_OFF + FC_dest_OFF + 8);
    }

    /* the root table: UDP source ports 4000..4002 */
    memset(in, 0, sizeof(in));
    MLX5_SET(in + FT_CTX_OFF, FTC_level, 1);
    MLX5_SET(in + FT_CTX_OFF, FTC_log_size, 2);
    MLX5_SET(in + FT_CTX_OFF, FTC_table_miss_action, MLX5_FT_MISS_ACTION_FWD);
    MLX5_SET(in + FT_CTX_OFF, FTC_table_miss_id, e->ft[1]);
    e->ft[0] = teth_obj_create(e->t.d, MLX5_CMD_OP_CREATE_FLOW_TABLE, in, 0x40);
    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
    MLX5_SET(in, FT_IN_table_id, e->ft[0]);
    MLX5_SET(in, FG_IN_end_flow_index, 3);
    MLX5_SET(in, FG_IN_match_criteria_enable, 1);
    MLX5_SET(in + FG_IN_criteria_OFF, MS_ip_protocol, 0xff);
    MLX5_SET(in + FG_IN_criteria_OFF, MS_udp_sport, 0xffff);
    g_assert_cmpint(tdrv_exec(e->t.d, in, sizeof(in), out, sizeof(out)), ==, 0);
    e->fg0 = MLX5_GET(out, FG_OUT_group_id);
    di[0] = e->tir[1];
    di[1] = e->ft[1];
    g_assert_cmpint(fz_fte(e, 0, 0, 0, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 2, dt, di), ==, 0);
    g_assert_cmpint(fz_fte(e, 1, 0, 0, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, 1, dt, &e->tir[2]), ==,
                    0);
    g_assert_cmpint(fz_fte(e, 2, 0, 0, MLX5_FLOW_CONTEXT_ACTION_DROP, 0, NULL, NULL), ==, 0);
    fz_root(e, e->ft[0]);
}

static void fz_settle_eth(FzEth *e)
{
    TEth *t = &e->t;
    uint8_t cqe[64];

    mlx5_core_run(t->d->c, 256);
    /* 10 us pass per record: LRO sessions time out */
    t->d->h->now += 10000;
    if (t->d->h->deadline <= t->d->h->now) {
        mlx5_core_expire(t->d->c, t->d->h->now);
    }
    while (teth_poll_cqe(t, cqe)) {
        uint8_t op = cqe[63] >> 4;
        unsigned n = 1, i;

        if (((cqe[63] >> 2) & 3) == MLX5_CQE_FORMAT_COMPRESSED) {
            /* a compressed session: its slots are consumed, their owner bytes invalidated as
             * mlx5e does */
            n = MIN(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), (uint32_t)MLX5_CQE_COMP_MAX);
            for (i = 1; i < n; i++, t->cq_ci++) {
                uint8_t inv = 0xf0 | ((t->cq_ci >> LOG_CQ) & 1);
                fake_write(t->d->h, t->cq_buf + (t->cq_ci & ((1u << LOG_CQ) - 1)) * 64 + 63,
                           &inv, 1);
            }
            fake_wr32(t->d->h, t->cq_dbr, t->cq_ci & 0xffffff);
        }
        if (op == MLX5_CQE_RESP_SEND || op == MLX5_CQE_RESP_ERR) {
            e->rq_posted -= MIN(n, e->rq_posted);
        }
    }
    g_ptr_array_set_size(t->d->h->tx, 0);       /* the link takes everything */
    if (e->striding) {
        Mlx5Qp *rq = mlx5_table_get(&t->d->c->qps, t->rqn);

        /* the device's count of WQEs it is done with: keep 4 beyond it */
        while (rq && (uint16_t)(t->rq_pi - rq->rq_ci) < FZ_ETH_MPW_WQES) {
            teth_post_mpwqe(t, 0, FZ_ETH_MPW_BYTES,
                            t->mem + FZ_ETH_MPW_BYTES * (t->rq_pi % FZ_ETH_MPW_WQES));
        }
        return;
    }
    while (e->rq_posted < FZ_ETH_RQ_WQES) {
        teth_post_recv(t, 2048, t->mem + 2048 * (t->rq_pi % 16));
        e->rq_posted++;
    }
}

/* IPv4 total length, header checksum and UDP length of an untagged IPv4 frame. */
static void fz_fix_ipv4(uint8_t *f, size_t len)
{
    uint8_t *ip = f + 14;

    if (len < 14 + 20 + 8 || mlx5_ld16(f + 12) != 0x0800 || (ip[0] & 0xf) != 5) {
        return;
    }
    ip[0] = 0x45;
    mlx5_st16(ip + 2, len - 14);
    mlx5_st16(ip + 10, 0);
    mlx5_st16(ip + 10, ~ib_csum_fold(ib_csum_add(0, ip, 20)));
    if (ip[9] == 17) {
        mlx5_st16(ip + 24, len - 34);
    } else if (ip[9] == 6 && len >= 14 + 20 + 20) {
        /* a TCP segment with its checksum right (LRO takes no other) */
        uint32_t s = ib_csum_add(0, ip + 12, 8) + 6 + len - 34;

        mlx5_st16(ip + 36, 0);
        mlx5_st16(ip + 36, ~ib_csum_fold(ib_csum_add(s, ip + 20, len - 34)));
    }
}

static void fz_frame(FzEth *e, Fz *f, uint8_t *frame)
{
    uint8_t flags = fz_u8(f);
    size_t len = fz_u16(f);

    len = MIN(len, MLX5_ETH_MAX_FRAME + 64);
    fz_bytes(f, frame, len);
    if ((flags & 1) && len >= 6) {
        memcpy(frame, e->t.d->c->eth->mac, 6);
        frame[0] |= flags & 2 ? 1 : 0;
    }
    if ((flags & 8) && len >= 14 + 20 + 4) {
        mlx5_st16(frame + 34, 4000 + (flags >> 4) % 4);
    }
    if (flags & 4) {
        fz_fix_ipv4(frame, len);
    }
    mlx5_core_link_rx(e->t.d->c, 1, frame, len);
}

static void fz_send(FzEth *e, Fz *f)
{
    TEth *t = &e->t;
    uint8_t flags = fz_u8(f), n = fz_u8(f), wqe[256];
    unsigned nbb = 1 + n % 4, ds;

    fz_bytes(f, wqe, 64 * nbb);
    if (flags & 4) {
        Mlx5Qp *sq = mlx5_table_get(&t->d->c->qps, t->sqn);
        if (sq && sq->wq_state == MLX5_WQ_STATE_ERR) {
            teth_modify_wq(t, MLX5_CMD_OP_MODIFY_SQ, t->sqn, MLX5_WQ_STATE_ERR, 0);
            teth_modify_wq(t, MLX5_CMD_OP_MODIFY_SQ, t->sqn, 0, MLX5_WQ_STATE_RDY);
            t->sq_pi = 0;
        }
    }
    if (flags & 1) {
        mlx5_st32(wqe, ((uint32_t)t->sq_pi << 8) | (wqe[3]));
        mlx5_st32(wqe + 4, (t->sqn << 8) | (nbb * 4));
    }
    if (flags & 2) {
        /* after ctrl, eth segment and its inline headers */
        size_t ihs = mlx5_ld16(wqe + MLX5_ESEG_OFF + MLX5_ESEG_inline_sz) & 0x3ff;
        for (ds = 2 + (ihs > 2 ? (ihs - 2 + 15) / 16 : 0); ds < nbb * 4; ds++) {
            uint8_t *seg = wqe + 16 * ds;
            data_seg(seg, mlx5_ld32(seg) & 0xfff, t->key,
                     t->mem + 32768 + (mlx5_ld32(seg + 12) & 0x3fff));
        }
    }
    for (unsigned i = 0; i < nbb; i++) {
        fake_write(t->d->h, t->sq_buf + ((t->sq_pi + i) & 63) * 64, wqe + 64 * i, 64);
    }
    t->sq_pi += nbb;
    fake_wr32(t->d->h, t->sq_dbr + 4, t->sq_pi);
    mlx5_exec_sq_doorbell(t->d->c, (uint64_t)t->sqn << 8);
}

static void fz_steer(FzEth *e, Fz *f)
{
    uint8_t op = fz_u8(f), a = fz_u8(f), b = fz_u8(f), types[3];
    uint16_t action = fz_u16(f);
    uint32_t ids[3];
    unsigned nd = b % 4;

    for (unsigned i = 0; i < nd; i++) {
        uint8_t type = fz_u8(f), id = fz_u8(f);
        types[i] = type & 1 ? MLX5_FLOW_DEST_TYPE_FLOW_TABLE : MLX5_FLOW_DEST_TYPE_TIR;
        ids[i] = type & 1 ? e->ft[id % 2] : e->tir[id % 3];
    }
    switch (op % 3) {
    case 0:
        fz_fte(e, b % 3, 1, a, action, nd, types, ids);
        break;
    case 1: {
        uint8_t in[OBJ_CTX_OFF + TIRC_SIZE] = { 0 }, out[16];

        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MODIFY_TIR);
        MLX5_SET(in, OBJ_IN_handle, e->tir[a % 2]);
        MLX5_SET(in, MODIFY_TIR_bitmask_self_lb_en, 1);
        MLX5_SET(in + OBJ_CTX_OFF, TIRC_self_lb_block, b & 3);
        /* LRO: the mask (4 is not a valid bit), the payload limit and the timeout */
        MLX5_SET(in, MODIFY_TIR_bitmask_packet_merge, (b >> 2) & 1);
        MLX5_SET(in + OBJ_CTX_OFF, TIRC_packet_merge_mask, (b >> 3) & 7);
        MLX5_SET(in + OBJ_CTX_OFF, TIRC_lro_max_ip_payload_size, action & 0xff);
        MLX5_SET(in + OBJ_CTX_OFF, TIRC_lro_timeout_period_usecs, action >> 8);
        tdrv_exec(e->t.d, in, sizeof(in), out, sizeof(out));
        break;
    }
    default:
        fz_root(e, e->ft[a % 2]);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Fz f = { data, size };
    FzEth e = { .n = fz_node_new_eth(false) };
    g_autofree uint8_t *frame = g_malloc(MLX5_ETH_MAX_FRAME + 64);

    /* the first byte: the channel's CQ compresses (hash or checksum mini CQEs) or not, and
     * the RQ is cyclic or striding */
    static const int comp[3] = { -1, MLX5_MINI_CQE_HASH, MLX5_MINI_CQE_CSUM };
    uint8_t setup = fz_u8(&f);

    e.striding = setup / 3 % 2;
    teth_setup_ex(&e.t, e.n->d, comp[setup % 3],
                  e.striding ? MLX5_WQ_TYPE_CYCLIC_STRIDING : 0,
                  FZ_ETH_MPW_LOG_STRIDES);
    fz_eth_objects(&e);
    fz_settle_eth(&e);
    for (unsigned r = 0; r < FZ_MAX_RECORDS && fz_more(&f) && !e.n->d->c->health_fatal; r++) {
        switch (fz_u8(&f) % 3) {
        case 0:
            fz_frame(&e, &f, frame);
            break;
        case 1:
            fz_send(&e, &f);
            break;
        default:
            fz_steer(&e, &f);
            break;
        }
        fz_settle_eth(&e);
    }
    fz_check(e.n);
    fz_node_free(e.n);
    return 0;
}
