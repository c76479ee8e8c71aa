/*
 * Unit-test support: QPs driven the way libmlx5 drives them (see mlx5-testqp.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-testqp.h"
#include "mlx5_internal.h"



uint32_t create_pa_mkey(TDrv *d, uint32_t pd)
{
    uint8_t in[MLX5_PAS_OFF] = { 0 }, out[16];
    uint8_t *mkc = in + CREATE_MKEY_MKC_OFF;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_MKEY);
    MLX5_SET(mkc, MKC_access_mode_1_0, MLX5_MKC_ACCESS_MODE_PA);
    MLX5_SET(mkc, MKC_lr, 1);
    MLX5_SET(mkc, MKC_lw, 1);
    MLX5_SET(mkc, MKC_rr, 1);
    MLX5_SET(mkc, MKC_rw, 1);
    MLX5_SET(mkc, MKC_a, 1);
    MLX5_SET(mkc, MKC_length64, 1);
    MLX5_SET(mkc, MKC_pd, pd);
    MLX5_SET(mkc, MKC_qpn, 0xffffff);
    MLX5_SET(mkc, MKC_mkey_7_0, 0x5a);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, 0);
    return (MLX5_GET(out, MKEY_IN_mkey_index) << 8) | 0x5a;
}

/*
 * An MTT mkey over [va, va + len) backed by guest pages starting at @pa (contiguous). With
 * @pg_access the entries' read/write bits count, and they are clear: no page is present (ODP).
 */
static uint32_t mtt_mkey(TDrv *d, uint32_t pd, uint64_t va, uint64_t len, uint64_t pa,
                         bool remote, bool pg_access, uint8_t variant)
{
    uint32_t npages = ((va & 4095) + len + 4095) / 4096, i;
    uint32_t inlen = MLX5_PAS_OFF + 8 * ((npages + 1) & ~1u);
    g_autofree uint8_t *in = g_malloc0(inlen);
    uint8_t *mkc = in + CREATE_MKEY_MKC_OFF, out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_MKEY);
    MLX5_SET(in, CREATE_MKEY_IN_pg_access, pg_access);
    MLX5_SET(mkc, MKC_access_mode_1_0, MLX5_MKC_ACCESS_MODE_MTT);
    MLX5_SET(mkc, MKC_lr, 1);
    MLX5_SET(mkc, MKC_lw, 1);
    MLX5_SET(mkc, MKC_rr, remote);
    MLX5_SET(mkc, MKC_rw, remote);
    MLX5_SET(mkc, MKC_a, remote);
    MLX5_SET(mkc, MKC_pd, pd);
    MLX5_SET(mkc, MKC_qpn, 0xffffff);
    MLX5_SET(mkc, MKC_mkey_7_0, variant);
    MLX5_SET64(mkc, MKC_start_addr_OFF, va);
    MLX5_SET64(mkc, MKC_len_OFF, len);
    MLX5_SET(mkc, MKC_log_page_size, 12);
    MLX5_SET(mkc, MKC_translations_octword_size, (npages + 1) / 2);
    MLX5_SET(in, CREATE_MKEY_IN_translations_octword_actual_size, (npages + 1) / 2);
    for (i = 0; i < npages; i++) {
        mlx5_st64(in + MLX5_PAS_OFF + 8 * i, pa + 4096ull * i);
    }
    g_assert_cmpint(tdrv_exec(d, in, inlen, out, sizeof(out)), ==, 0);
    return (MLX5_GET(out, MKEY_IN_mkey_index) << 8) | variant;
}

uint32_t create_mtt_mkey(TDrv *d, uint32_t pd, uint64_t va, uint64_t len, uint64_t pa,
                         bool remote)
{
    return mtt_mkey(d, pd, va, len, pa, remote, false, 0x33);
}

uint32_t create_odp_mkey(TDrv *d, uint32_t pd, uint64_t va, uint64_t len, uint64_t pa)
{
    return mtt_mkey(d, pd, va, len, pa, true, true, 0x44);
}

uint32_t create_free_umr_mkey(TDrv *d, uint32_t pd, unsigned access_mode, unsigned octwords,
                              uint8_t variant)
{
    uint8_t in[MLX5_PAS_OFF] = { 0 }, out[16];
    uint8_t *mkc = in + CREATE_MKEY_MKC_OFF;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_MKEY);
    MLX5_SET(mkc, MKC_free, 1);
    MLX5_SET(mkc, MKC_umr_en, 1);
    MLX5_SET(mkc, MKC_access_mode_1_0, access_mode);
    MLX5_SET(mkc, MKC_lr, 1);
    MLX5_SET(mkc, MKC_pd, pd);
    MLX5_SET(mkc, MKC_qpn, 0xffffff);
    MLX5_SET(mkc, MKC_log_page_size, 12);
    MLX5_SET(mkc, MKC_mkey_7_0, variant);
    MLX5_SET(mkc, MKC_translations_octword_size, octwords);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, 0);
    return (MLX5_GET(out, MKEY_IN_mkey_index) << 8) | variant;
}

int64_t query_free(TDrv *d, uint32_t key)
{
    uint8_t out[QUERY_MKEY_OUT_SIZE];

    if (tdrv_simple(d, MLX5_CMD_OP_QUERY_MKEY, 0, key >> 8, 0, out, sizeof(out))) {
        return -1;
    }
    return MLX5_GET(out + CREATE_MKEY_MKC_OFF, MKC_free);
}

void tqp_pattern(TDrv *d, uint64_t pa, size_t len, unsigned seed)
{
    g_autofree uint8_t *b = g_malloc(len);

    for (size_t i = 0; i < len; i++) {
        b[i] = (uint8_t)(i * 3 + seed + (i >> 9));
    }
    fake_write(d->h, pa, b, len);
}

bool tqp_same(TDrv *da, uint64_t pa, TDrv *db, uint64_t pb, size_t len)
{
    g_autofree uint8_t *x = g_malloc(len + 1);
    g_autofree uint8_t *y = g_malloc(len + 1);

    fake_read(da->h, pa, x, len);
    fake_read(db->h, pb, y, len);
    return memcmp(x, y, len) == 0;
}

void init_cq_buf(TDrv *d, uint64_t buf, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint8_t own = 0xf1;
        fake_write(d->h, buf + 64 * i + 63, &own, 1);
    }
}

void tqp_create_on(TQp *q, TDrv *d, uint8_t st, uint32_t user_index, uint32_t srqn,
                   uint32_t pd)
{
    tqp_create_ex(q, d, st, user_index, srqn, pd, 0);
}

void tqp_create_ex(TQp *q, TDrv *d, uint8_t st, uint32_t user_index, uint32_t srqn,
                   uint32_t pd, unsigned flags)
{
    uint32_t npages = 4, inlen = MLX5_PAS_OFF + 8 * npages, i;
    g_autofree uint8_t *in = g_malloc0(inlen);
    uint8_t *qpc = in + QP_QPC_OFF, out[16];
    uint64_t eq_pa;
    uint32_t eqn;

    memset(q, 0, sizeof(*q));
    q->d = d;
    q->st = st;
    q->pd = pd ? pd : tdrv_alloc_pd(d);
    q->key = create_pa_mkey(d, q->pd);
    eqn = tdrv_create_eq(d, 0, 7, 1, &eq_pa);
    q->cqn = tdrv_create_cq(d, eqn, LOG_CQ, &q->cq_buf, &q->cq_dbr);
    init_cq_buf(d, q->cq_buf, 1u << LOG_CQ);
    q->buf = fake_alloc(d->h, npages * 4096, 4096);
    q->dbr = fake_alloc(d->h, 64, 64);
    q->mem = fake_alloc(d->h, 1 << 20, 4096);

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_QP);
    MLX5_SET(qpc, QPC_st, st);
    if (st != MLX5_QP_ST_REG_UMR) {
        MLX5_SET(qpc, QPC_pd, q->pd);   /* the kernel gives its UMR QP no PD */
    }
    MLX5_SET(qpc, QPC_log_rq_size, LOG_RQ);
    MLX5_SET(qpc, QPC_log_rq_stride, RQ_STRIDE_LOG);
    MLX5_SET(qpc, QPC_log_sq_size, LOG_SQ);
    MLX5_SET(qpc, QPC_uar_page, d->uar);
    MLX5_SET(qpc, QPC_cqn_snd, q->cqn);
    MLX5_SET(qpc, QPC_cqn_rcv, q->cqn);
    MLX5_SET(qpc, QPC_user_index, user_index);
    q->sq_off = (1u << LOG_RQ) << (RQ_STRIDE_LOG + 4);
    if (srqn) {
        MLX5_SET(qpc, QPC_rq_type, MLX5_RQ_TYPE_SRQ);
        MLX5_SET(qpc, QPC_srqn_rmpn_xrqn, srqn);
        q->sq_off = 0;
    }
    if (flags & TQP_NO_SQ) {
        MLX5_SET(qpc, QPC_no_sq, 1);
        MLX5_SET(qpc, QPC_log_sq_size, 0);
    }
    if (flags & TQP_RNDV) {
        MLX5_SET(qpc, MLX5_FIELD(0, 7, 4), 1);      /* offload_type RNDV */
    }
    MLX5_SET64(qpc, QPC_dbr_addr_OFF, q->dbr);
    for (i = 0; i < npages; i++) {
        mlx5_st64(in + MLX5_PAS_OFF + 8 * i, q->buf + 4096 * i);
    }
    g_assert_cmpint(tdrv_exec(d, in, inlen, out, sizeof(out)), ==, 0);
    q->qpn = MLX5_GET(out, ALLOC_OUT_handle);
    /* arm the CQ, as the kernel and libmlx5 do before waiting */
    tdrv_mmio_wr64(d, ((uint64_t)d->uar << 12) + MLX5_UAR_CQ_DB, q->cqn);
}

void tqp_create(TQp *q, TDrv *d, uint8_t st, uint32_t user_index)
{
    tqp_create_on(q, d, st, user_index, 0, 0);
}

void tqp_connect(TQp *q, uint16_t dlid, uint32_t dqpn, uint32_t qkey)
{
    uint8_t path[MLX5_ADS_SIZE] = { 0 };

    MLX5_SET(path, ADS_rlid, dlid);
    tqp_connect_path(q, path, dqpn, qkey);
}

void tqp_connect_path(TQp *q, const uint8_t *path, uint32_t dqpn, uint32_t qkey)
{
    uint8_t qpc[MLX5_QPC_SIZE] = { 0 };
    uint8_t *ads = qpc + QPC_ADS_OFF;

    MLX5_SET(ads, ADS_vhca_port_num, 1);
    MLX5_SET(qpc, QPC_rre, 1);
    MLX5_SET(qpc, QPC_rwe, 1);
    MLX5_SET(qpc, QPC_rae, 1);
    MLX5_SET(qpc, QPC_q_key, qkey);
    g_assert_cmpint(tdrv_modify_qp(q->d, MLX5_CMD_OP_RST2INIT_QP, q->qpn, qpc, 0), ==, 0);
    MLX5_SET(qpc, QPC_mtu, q->mtu ? q->mtu : 3);    /* default 1024 */
    MLX5_SET(qpc, QPC_log_msg_max, 30);
    MLX5_SET(qpc, QPC_remote_qpn, dqpn);
    memcpy(ads, path, MLX5_ADS_SIZE);
    MLX5_SET(ads, ADS_vhca_port_num, 1);
    MLX5_SET(qpc, QPC_next_rcv_psn, 0x123);
    MLX5_SET(qpc, QPC_log_rra_max, 2);
    MLX5_SET(qpc, QPC_min_rnr_nak, 1);
    g_assert_cmpint(tdrv_modify_qp(q->d, MLX5_CMD_OP_INIT2RTR_QP, q->qpn, qpc, 0), ==, 0);
    MLX5_SET(qpc, QPC_next_send_psn, 0x123);
    MLX5_SET(qpc, QPC_retry_count, 7);
    MLX5_SET(qpc, QPC_rnr_retry, 7);
    MLX5_SET(qpc, QPC_log_sra_max, 2);
    MLX5_SET(ads, ADS_ack_timeout, 14);
    g_assert_cmpint(tdrv_modify_qp(q->d, MLX5_CMD_OP_RTR2RTS_QP, q->qpn, qpc, 0), ==, 0);
}

void tqp_rc_pair(TQp *qa, TDrv *a, TQp *qb, TDrv *b)
{
    tqp_create(qa, a, MLX5_QP_ST_RC, 1);
    tqp_create(qb, b, MLX5_QP_ST_RC, 2);
    tqp_connect(qa, tdrv_lid(b), qb->qpn, 0);
    tqp_connect(qb, tdrv_lid(a), qa->qpn, 0);
}

/* Write one send WQE (@segs: @nsegs 16-byte segments after ctrl) and ring the doorbell. */
uint16_t tqp_post_send(TQp *q, uint8_t opcode, uint32_t imm, const uint8_t *segs,
                       unsigned nsegs, bool signaled, bool ring)
{
    uint8_t wqe[1024] = { 0 };
    unsigned ds = 1 + nsegs, nbb = (ds + 3) / 4, k;
    uint16_t idx = q->sq_pi;
    uint64_t sq = q->buf + q->sq_off;
    uint8_t dbr[4];

    wqe[0] = 0;
    mlx5_st16(wqe + 1, idx);
    wqe[3] = opcode;
    mlx5_st32(wqe + 4, (q->qpn << 8) | ds);
    wqe[11] = signaled ? 0x08 : 0;
    mlx5_st32(wqe + 12, imm);
    memcpy(wqe + 16, segs, nsegs * 16);
    for (k = 0; k < nbb; k++) {
        uint16_t slot = (idx + k) & ((1u << LOG_SQ) - 1);
        fake_write(q->d->h, sq + slot * 64, wqe + k * 64, 64);
    }
    q->sq_pi += nbb;
    mlx5_st32(dbr, q->sq_pi);
    fake_write(q->d->h, q->dbr + 4, dbr, 4);
    if (ring) {
        tdrv_mmio_wr64(q->d, ((uint64_t)q->d->uar << 12) + 0x800, mlx5_ld64(wqe));
    }
    return idx;
}

void data_seg(uint8_t *seg, uint32_t len, uint32_t lkey, uint64_t addr)
{
    mlx5_st32(seg, len);
    mlx5_st32(seg + 4, lkey);
    mlx5_st64(seg + 8, addr);
}

void raddr_seg(uint8_t *seg, uint64_t raddr, uint32_t rkey)
{
    memset(seg, 0, 16);
    mlx5_st64(seg, raddr);
    mlx5_st32(seg + 8, rkey);
}

void tqp_post_recv_key(TQp *q, uint32_t len, uint32_t lkey, uint64_t addr)
{
    uint8_t wqe[64] = { 0 }, dbr[4];
    uint16_t slot = q->rq_pi & ((1u << LOG_RQ) - 1);

    data_seg(wqe, len, lkey, addr);
    data_seg(wqe + 16, 0, MLX5_INVALID_LKEY, 0);
    fake_write(q->d->h, q->buf + slot * 64, wqe, 64);
    q->rq_pi++;
    mlx5_st32(dbr, q->rq_pi);
    fake_write(q->d->h, q->dbr, dbr, 4);
}

void tqp_post_recv(TQp *q, uint32_t len, uint64_t addr)
{
    tqp_post_recv_key(q, len, q->key, addr);
}

/* Next valid CQE, or false. Updates the consumer index record like the drivers. */
bool tqp_poll(TQp *q, uint8_t *cqe)
{
    unsigned n = 1u << LOG_CQ;
    uint8_t dbr[4];

    fake_read(q->d->h, q->cq_buf + (q->cq_ci & (n - 1)) * 64, cqe, 64);
    if ((cqe[63] >> 4) == MLX5_CQE_INVALID || (cqe[63] & 1) != ((q->cq_ci / n) & 1)) {
        return false;
    }
    q->cq_ci++;
    mlx5_st32(dbr, q->cq_ci & 0xffffff);
    fake_write(q->d->h, q->cq_dbr, dbr, 4);
    return true;
}

/* Run two cores and carry frames between them until quiet. */
void run_pair(TDrv *a, TDrv *b, unsigned rounds)
{
    TDrv *d[2] = { a, b };

    for (unsigned r = 0; r < rounds; r++) {
        bool busy = false;
        for (int i = 0; i < 2; i++) {
            if (!d[i]) {
                continue;
            }
            busy |= mlx5_core_run(d[i]->c, 64);
            while (d[i]->h->tx->len) {
                GByteArray *f = g_ptr_array_steal_index(d[i]->h->tx, 0);
                TDrv *peer = d[!i] ? d[!i] : d[i];
                mlx5_core_link_rx(peer->c, 1, f->data, f->len);
                g_byte_array_unref(f);
                busy = true;
            }
        }
        if (!busy) {
            int64_t next = MIN(a->h->deadline, b ? b->h->deadline : INT64_MAX);
            if (next == INT64_MAX) {
                return;
            }
            for (int i = 0; i < 2; i++) {
                if (d[i]) {
                    d[i]->h->now = MAX(d[i]->h->now, next);
                    mlx5_core_expire(d[i]->c, d[i]->h->now);
                }
            }
        }
    }
}

TDrv *new_node(uint8_t last)
{
    const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, last };
    Mlx5CoreConfig cfg;
    TDrv *d;

    mlx5_core_config_default(&cfg, mac);
    cfg.sm = false;         /* no SM election events in the EQs (the SA test turns it on) */
    d = tdrv_new_cfg(&cfg);
    tdrv_bringup(d);
    return d;
}


void tqp_expect_req_err(TQp *q, uint8_t synd)
{
    uint8_t cqe[64];

    g_assert_true(tqp_poll(q, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    g_assert_cmphex(cqe[MLX5_CQE_syndrome], ==, synd);
}

uint16_t post_umr(TQp *q, const Umr *u, bool signaled)
{
    uint8_t segs[62 * 16] = { 0 };
    unsigned n = 7;

    segs[0] = u->flags | (u->off16 ? F_OFFSET : 0);
    mlx5_st16(segs + 4, u->n16);
    mlx5_st16(segs + 6, u->off16 & 0xffff);
    mlx5_st64(segs + 8, u->mask);
    mlx5_st32(segs + 16, u->off16 >> 16);
    memcpy(segs + 48, u->mkc, 64);
    if (u->n16 && (u->flags & F_INLINE)) {
        g_assert_cmpuint(u->n16, <=, 55);
        memcpy(segs + 112, u->xlt, u->n16 * 16);
        n += u->n16;
    } else if (u->n16) {
        data_seg(segs + 112, u->n16 * 16, u->ptr_lkey, u->ptr_addr);
        n++;
    }
    return tqp_post_send(q, MLX5_OPCODE_UMR, u->key, segs, n, signaled, true);
}

unsigned umr_run(TQp *q, const Umr *u, uint8_t *synd)
{
    uint8_t cqe[64];
    uint16_t idx = post_umr(q, u, true);

    run_pair(q->d, NULL, 100);
    g_assert_true(tqp_poll(q, cqe));
    g_assert_cmpuint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, idx);
    g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_sop_drop_qpn) >> 24, ==, MLX5_OPCODE_UMR);
    if (synd) {
        *synd = cqe[MLX5_CQE_syndrome];
    }
    return cqe[63] >> 4;
}

void klm(uint8_t *e, uint32_t bcount, uint32_t key, uint64_t va)
{
    mlx5_st32(e, bcount);
    mlx5_st32(e + 4, key);
    mlx5_st64(e + 8, va);
}
