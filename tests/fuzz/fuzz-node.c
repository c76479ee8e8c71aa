/*
 * The fuzzed device: a fresh core per input, brought up like Linux's mlx5_core, with the
 * objects the data-path targets aim at (see fuzz.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz.h"
#include "hw/rdma/ib/ib_wire.h"
#include "mlx5_eth.h"

#define FZ_MAX_LOOPED   4096        /* frames looped back per input, at most */

static void fz_dct(FzNode *n)
{
    uint8_t in[0x80] = { 0 }, out[16];
    uint8_t *dctc = in + DCT_DCTC_OFF;
    uint32_t cqn = n->q[FZ_RC].cqn;

    g_assert_cmpint(tdrv_create_srq(n->d, n->pd, cqn, 4, 2, &n->srqn), ==, 0);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_DCT);
    MLX5_SET(dctc, DCTC_pd, n->pd);
    MLX5_SET(dctc, DCTC_cqn, cqn);
    MLX5_SET(dctc, DCTC_srqn_xrqn, n->srqn);
    MLX5_SET(dctc, DCTC_mtu, 3);
    MLX5_SET(dctc, DCTC_port, 1);
    MLX5_SET(dctc, DCTC_rwe, 1);
    MLX5_SET(dctc, DCTC_rre, 1);
    MLX5_SET(dctc, DCTC_rae, 1);
    mlx5_st64(dctc + DCTC_dc_access_key_OFF, 0x1234);
    g_assert_cmpint(tdrv_exec(n->d, in, sizeof(in), out, sizeof(out)), ==, 0);
    n->dctn = MLX5_GET(out, CREATE_DCT_OUT_dctn);
    g_assert_cmpint(tdrv_create_qp(n->d, MLX5_QP_ST_DCI, n->pd, cqn, n->srqn, &n->dci), ==, 0);
}

const uint8_t fz_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x01 };
const uint8_t fz_peer_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x02 };
const uint8_t fz_gid_v6[16] = { 0xfe, 0x80, [15] = 1 };
const uint8_t fz_gid_v4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
static const uint8_t fz_peer_gid[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };

/* RoCE: the path from our IPv4 GID to the peer's IP and MAC (the LID is 0 on Ethernet) */
static void fz_roce_path(uint8_t *ads)
{
    MLX5_SET(ads, ADS_src_addr_index, FZ_GID_V4);
    MLX5_SET(ads, ADS_hop_limit, 64);
    MLX5_SET(ads, ADS_udp_sport, 0xc000);
    memcpy(ads + ADS_rgid_OFF, fz_peer_gid, 16);
    memcpy(ads + ADS_rmac_OFF, fz_peer_mac, 6);
}

/* tqp_connect, with the RoCE path on an Ethernet node */
static void fz_connect(FzNode *n, TQp *q, uint32_t dqpn)
{
    uint8_t path[MLX5_ADS_SIZE] = { 0 };

    if (!n->eth) {
        tqp_connect(q, n->d->c->port.lid, dqpn, 0x11111111);
        return;
    }
    fz_roce_path(path);
    tqp_connect_path(q, path, dqpn, 0x11111111);
}

int fz_set_roce_en(FzNode *n, bool on)
{
    uint8_t in[MODIFY_NIC_VPORT_IN_CTX_OFF + NVC_SIZE] = { 0 }, out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT);
    MLX5_SET(in, MODIFY_NIC_VPORT_IN_field_select, MLX5_NVC_FS_ROCE_EN);
    MLX5_SET(in + MODIFY_NIC_VPORT_IN_CTX_OFF, NVC_roce_en, on);
    return tdrv_exec(n->d, in, sizeof(in), out, sizeof(out));
}

int fz_set_gid(FzNode *n, unsigned index, bool set)
{
    uint8_t in[ROCE_ADDR_OFF + ROCE_ADDR_SIZE] = { 0 }, out[16];
    uint8_t *a = in + ROCE_ADDR_OFF;
    bool v4 = index == FZ_GID_V4;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_ROCE_ADDRESS);
    MLX5_SET(in, ROCE_ADDR_IN_index, index);
    MLX5_SET(in, ROCE_ADDR_IN_vhca_port_num, 1);
    if (set) {                          /* (an all-zero address deletes the entry) */
        memcpy(a + ROCE_ADDR_l3_OFF, v4 ? fz_gid_v4 : fz_gid_v6, 16);
        memcpy(a + ROCE_ADDR_mac_OFF, fz_mac, 6);
        MLX5_SET(a, ROCE_ADDR_version, MLX5_ROCE_VERSION_2);
        MLX5_SET(a, ROCE_ADDR_l3_type, v4 ? MLX5_ROCE_L3_TYPE_IPV4 : MLX5_ROCE_L3_TYPE_IPV6);
    }
    return tdrv_exec(n->d, in, sizeof(in), out, sizeof(out));
}

static void fz_up(FzNode *n, uint32_t qpn)
{
    TDrv *d = n->d;
    uint8_t qpc[MLX5_QPC_SIZE] = { 0 };

    MLX5_SET(qpc, QPC_rre, 1);
    MLX5_SET(qpc, QPC_rwe, 1);
    MLX5_SET(qpc, QPC_rae, 1);
    MLX5_SET(qpc, QPC_q_key, 0x11111111);

    MLX5_SET(qpc + QPC_ADS_OFF, ADS_vhca_port_num, 1);
    MLX5_SET(qpc + QPC_ADS_OFF, ADS_rlid, d->c->port.lid);
    if (n->eth) {
        fz_roce_path(qpc + QPC_ADS_OFF);
    }
    MLX5_SET(qpc, QPC_mtu, 3);
    MLX5_SET(qpc, QPC_log_msg_max, 30);
    MLX5_SET(qpc, QPC_remote_qpn, qpn);
    g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_RST2INIT_QP, qpn, qpc, 0), ==, 0);
    g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_INIT2RTR_QP, qpn, qpc, 0), ==, 0);
    g_assert_cmpint(tdrv_modify_qp(d, MLX5_CMD_OP_RTR2RTS_QP, qpn, qpc, 0), ==, 0);
}

void fz_qp_recover(FzNode *n, uint32_t qpn)
{
    Mlx5Qp *qp = mlx5_table_get(&n->d->c->qps, qpn);

    if (!qp || qp->state != MLX5_QP_STATE_ERR) {
        return;
    }
    g_assert_cmpint(tdrv_modify_qp(n->d, MLX5_CMD_OP_2RST_QP, qpn, NULL, 0), ==, 0);
    fake_wr32(n->d->h, qp->dbr_addr, 0);           /* as libmlx5 does on reset */
    fake_wr32(n->d->h, qp->dbr_addr + 4, 0);
    for (int i = 0; i < FZ_NQP; i++) {
        if (n->q[i].qpn == qpn) {
            n->q[i].rq_pi = n->q[i].sq_pi = 0;
        }
    }
    fz_up(n, qpn);
}

static FzNode *fz_node_make(bool sm, bool objects, bool eth)
{
    FzNode *n = g_new0(FzNode, 1);
    Mlx5CoreConfig cfg;

    /* as QEMU's disabled trace points: a branch (FUZZ_TRACE=1: printed, as MLX5_TEST_TRACE) */
    mlx5_test_trace_off = !getenv("FUZZ_TRACE");
    mlx5_core_config_default(&cfg, fz_mac);
    cfg.sm = sm;
    cfg.eth = eth;
    n->eth = eth;
    n->d = tdrv_new_cfg(&cfg);
    n->d->h->ram_hi = FZ_RAM_BYTES;
    tdrv_bringup(n->d);
    if (eth) {
        /* as mlx5e and mlx5_ib bring an Ethernet port up: carrier, roce_en, the GID table */
        mlx5_core_link_set_up(n->d->c, 1, true);
        g_assert_cmpint(fz_set_roce_en(n, true), ==, 0);
        g_assert_cmpint(fz_set_gid(n, FZ_GID_V6, true), ==, 0);
        g_assert_cmpint(fz_set_gid(n, FZ_GID_V4, true), ==, 0);
    }
    if (!objects) {
        n->d->events = false;
        return n;
    }
    n->pd = tdrv_alloc_pd(n->d);
    n->lkey = create_pa_mkey(n->d, n->pd);
    for (int i = 0; i < FZ_NQP; i++) {
        static const uint8_t st[FZ_NQP] = {
            [FZ_RC] = MLX5_QP_ST_RC, [FZ_UC] = MLX5_QP_ST_UC, [FZ_UD] = MLX5_QP_ST_UD,
            [FZ_SRQ_RC] = MLX5_QP_ST_RC, [FZ_QP1] = MLX5_QP_ST_QP1,
        };
        tqp_create_on(&n->q[i], n->d, st[i], i, 0, n->pd);
        fz_connect(n, &n->q[i], n->q[i].qpn);
    }
    n->rkey = create_mtt_mkey(n->d, n->pd, 0x10000000, 1 << 20, n->q[FZ_RC].mem, true);
    for (int k = 0; k < FZ_NKEYS; k++) {       /* MTT, KLM, KSM, each twice */
        n->keys[k] = create_free_umr_mkey(n->d, n->pd, 1 + k % 3, 4 << (k / 3), 0);
    }
    fz_dct(n);
    fz_up(n, n->dci);
    /* receive buffers on every RQ, so that frames land somewhere */
    for (int i = 0; i < FZ_NQP; i++) {
        for (int k = 0; k < 8; k++) {
            tqp_post_recv(&n->q[i], 4096, n->q[i].mem + 4096 * k);
        }
    }
    /* from here on commands are polled: inputs may overrun or destroy the EQs */
    n->d->events = false;
    return n;
}

FzNode *fz_node_new(bool sm, bool objects)
{
    return fz_node_make(sm, objects, false);
}

FzNode *fz_node_new_eth(bool objects)
{
    return fz_node_make(false, objects, true);
}

/*
 * A VF of a PF (Ethernet with @eth, else InfiniBand: its port an HCA vport of
 * the PF's, mlx5_vport_ib.c), enabled by its PF and brought up; on Ethernet
 * with roce_en and two GIDs
 */
static FzNode *fz_node_make_vf(bool eth)
{
    FzNode *n = g_new0(FzNode, 1);
    Mlx5CoreConfig cfg;
    uint8_t out[16];

    mlx5_test_trace_off = !getenv("FUZZ_TRACE");
    mlx5_core_config_default(&cfg, fz_peer_mac);
    cfg.sm = false;
    cfg.eth = eth;
    cfg.num_vfs = 2;
    n->pf = tdrv_new_cfg(&cfg);
    tdrv_bringup(n->pf);
    mlx5_core_link_set_up(n->pf->c, 1, true);
    mlx5_core_vf_config(n->pf->c, 0, &cfg);
    if (eth) {
        memcpy(cfg.mac, fz_mac, 6);
    }
    n->eth = eth;
    n->d = tdrv_new_cfg(&cfg);
    n->d->h->ram_hi = FZ_RAM_BYTES;
    mlx5_core_vf_attach(n->pf->c, 0, n->d->c);
    g_assert_cmpint(tdrv_simple(n->pf, MLX5_CMD_OP_ENABLE_HCA, 0, 1, 0, out, 16), ==, 0);
    tdrv_bringup(n->d);
    if (eth) {
        g_assert_cmpint(fz_set_roce_en(n, true), ==, 0);
        g_assert_cmpint(fz_set_gid(n, FZ_GID_V6, true), ==, 0);
        g_assert_cmpint(fz_set_gid(n, FZ_GID_V4, true), ==, 0);
    }
    n->d->events = false;
    return n;
}

FzNode *fz_node_new_vf(void)
{
    return fz_node_make_vf(true);
}

FzNode *fz_node_new_vf_ib(void)
{
    return fz_node_make_vf(false);
}

FzNode *fz_node_new_esw(void)
{
    FzNode *n = g_new0(FzNode, 1);
    Mlx5CoreConfig cfg;
    uint8_t out[16];

    mlx5_test_trace_off = !getenv("FUZZ_TRACE");
    mlx5_core_config_default(&cfg, fz_mac);
    cfg.sm = false;
    cfg.eth = true;
    cfg.num_vfs = 2;
    cfg.esw_manager = true;
    n->eth = true;
    n->d = tdrv_new_cfg(&cfg);
    n->d->h->ram_hi = FZ_RAM_BYTES;
    tdrv_bringup(n->d);
    mlx5_core_link_set_up(n->d->c, 1, true);
    g_assert_cmpint(fz_set_roce_en(n, true), ==, 0);
    g_assert_cmpint(fz_set_gid(n, FZ_GID_V6, true), ==, 0);
    g_assert_cmpint(fz_set_gid(n, FZ_GID_V4, true), ==, 0);
    for (unsigned i = 0; i < 2; i++) {
        Mlx5CoreConfig v;

        mlx5_core_vf_config(n->d->c, i, &v);
        v.mac[0] = 0x02;
        v.mac[5] = 0x10 + i;
        n->vf[i] = tdrv_new_cfg(&v);
        mlx5_core_vf_attach(n->d->c, i, n->vf[i]->c);
        g_assert_cmpint(tdrv_simple(n->d, MLX5_CMD_OP_ENABLE_HCA, 0, i + 1, 0, out, 16), ==,
                        0);
        tdrv_bringup(n->vf[i]);
    }
    n->d->events = false;
    return n;
}

void fz_node_free(FzNode *n)
{
    for (unsigned i = 0; i < 2; i++) {
        if (n->vf[i]) {
            mlx5_core_vf_detach(n->vf[i]->c);
            tdrv_free(n->vf[i]);
        }
    }
    if (n->pf) {
        mlx5_core_vf_detach(n->d->c);
    }
    tdrv_free(n->d);
    if (n->pf) {
        tdrv_free(n->pf);
    }
    g_free(n);
}

/* Drain a CQ the lazy way: the consumer index record says everything was read. */
static void fz_drain_cq(FzNode *n, uint32_t cqn)
{
    Mlx5Cq *cq = mlx5_table_get(&n->d->c->cqs, cqn);

    if (cq) {
        fake_wr32(n->d->h, cq->dbr_addr, cq->pi & 0xffffff);
    }
}

void fz_settle(FzNode *n, unsigned rounds)
{
    TDrv *d = n->d;

    for (unsigned r = 0; r < rounds && !d->c->health_fatal; r++) {
        bool more = mlx5_core_run(d->c, 64);
        unsigned k;

        for (k = 0; k < 64 && d->h->tx->len; k++) {
            GByteArray *f = g_ptr_array_steal_index(d->h->tx, 0);
            if (n->frames_looped++ < FZ_MAX_LOOPED) {
                mlx5_core_link_rx(d->c, 1, f->data, f->len);
            }
            g_byte_array_unref(f);
        }
        for (int i = 0; i < FZ_NQP; i++) {
            fz_drain_cq(n, n->q[i].cqn);
        }
        if (!more && !k) {
            if (d->h->deadline == INT64_MAX) {
                break;
            }
            d->h->now = MAX(d->h->now + 1, d->h->deadline);
            mlx5_core_expire(d->c, d->h->now);
        }
    }
    /* what is still queued is lost on the wire */
    g_ptr_array_set_size(d->h->tx, 0);
}

void fz_map_qpn(FzNode *n, uint8_t *bth)
{
    uint32_t qpn = ib_ld24(bth + 5);

    if (qpn > 1) {
        const uint32_t qpns[7] = { n->q[0].qpn, n->q[1].qpn, n->q[2].qpn, n->q[3].qpn,
                                   n->q[4].qpn, n->dci, n->dctn };
        ib_st24(bth + 5, qpns[qpn % 7]);
    }
}

void fz_link_rx(FzNode *n, const uint8_t *frame, size_t len, bool timers)
{
    mlx5_core_link_rx(n->d->c, 1, frame, len);
    fz_settle(n, 16);
    if (timers) {
        n->d->h->now += 100000000;      /* 100 ms */
        mlx5_core_expire(n->d->c, n->d->h->now);
        fz_settle(n, 16);
    }
}

void fz_check(FzNode *n)
{
    TDrv *d = n->d;
    uint8_t out[QUERY_ISSI_OUT_SIZE];
    int r;

    if (d->c->health_fatal) {
        /* only the bus failing the device's own DMA (queues, EQs) is fatal */
        g_assert_cmpuint(d->h->dma_errors, >, 0);
        /* and a reset brings it back: the driver's recovery is a full probe */
        mlx5_core_reset(d->c, MLX5_RESET_SYSTEM);
        g_assert_false(d->c->health_fatal);
        d->cmdq_pa = fake_alloc(d->h, 4096, 4096);
        tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_H, d->cmdq_pa >> 32);
        tdrv_mmio_wr32(d, MLX5_ISEG_CMDQ_ADDR_L_SZ, (uint32_t)d->cmdq_pa);
        d->slot = 0;
        d->events = false;
        tdrv_bringup(d);
        return;
    }
    /* otherwise it answers a command (refusing it only if the input disabled the HCA) */
    d->events = false;
    r = tdrv_simple(d, MLX5_CMD_OP_QUERY_ISSI, 0, 0, 0, out, sizeof(out));
    g_assert_true(r == 0 || r == MLX5_CMD_STAT_BAD_SYS_STATE_ERR);
}

void fz_fix_frame(uint8_t *f, size_t len)
{
    size_t ip_len, udp_len;
    uint8_t *ip = f + IB_ETH_HLEN;
    uint32_t crc;

    if (len < IB_ETH_HLEN + 2) {
        return;
    }
    ip_len = ib_ld16(f + 12) == IB_ETHERTYPE_IPV6 ? IB_IPV6_HLEN : IB_IPV4_HLEN;
    if (len < IB_ETH_HLEN + ip_len + IB_UDP_HLEN + IB_BTH_LEN + IB_ICRC_LEN) {
        return;
    }
    if (ip_len == IB_IPV6_HLEN) {
        ib_st16(ip + 4, len - IB_ETH_HLEN - ip_len);
    } else {
        ib_st16(ip + 2, len - IB_ETH_HLEN);
    }
    udp_len = len - IB_ETH_HLEN - ip_len;
    ib_st16(ip + ip_len + 4, udp_len);
    crc = ib_wire_icrc(f, IB_ETH_HLEN + ip_len + IB_UDP_HLEN + IB_BTH_LEN,
                       f + IB_ETH_HLEN + ip_len + IB_UDP_HLEN + IB_BTH_LEN,
                       udp_len - IB_UDP_HLEN - IB_BTH_LEN - IB_ICRC_LEN, 0);
    for (int k = 0; k < 4; k++) {
        f[len - 4 + k] = crc >> (8 * k);
    }
}
