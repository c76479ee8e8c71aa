/*
 * Unit tests of DevX user contexts and uid isolation: CREATE_UCTX/DESTROY_UCTX, the commands a
 * uid may issue, and which objects a uid may operate on or refer to.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-test.h"
#include "mlx5_internal.h"
#include "hw/rdma/mlx5/mlx5_xrq_prm.h"
#include "mlx5_cmd.h"

#define ST_PARAM MLX5_CMD_STAT_BAD_PARAM_ERR
#define ST_RES MLX5_CMD_STAT_BAD_RES_ERR

static TDrv *up(void)
{
    TDrv *d = tdrv_new();

    tdrv_bringup(d);
    return d;
}

/* A 16-byte command (opcode, op_mod, dw2, dw3) issued with header uid @uid. */
static int cmd_uid(TDrv *d, uint16_t uid, uint16_t opcode, uint32_t dw2, uint8_t *out,
                   uint32_t outlen)
{
    uint8_t in[0x20] = { 0 }, tmp[16];

    MLX5_SET(in, CMD_IN_opcode, opcode);
    MLX5_SET(in, CMD_IN_uid, uid);
    mlx5_st32(in + 8, dw2);
    if (!out) {
        out = tmp;
        outlen = sizeof(tmp);
    }
    return tdrv_exec(d, in, sizeof(in), out, outlen);
}

static uint16_t create_uctx(TDrv *d)
{
    uint8_t out[16];

    g_assert_cmpint(cmd_uid(d, 0, MLX5_CMD_OP_CREATE_UCTX, 0, out, sizeof(out)), ==, 0);
    return MLX5_GET(out, CREATE_UCTX_OUT_uid);
}

static uint32_t alloc_pd_uid(TDrv *d, uint16_t uid)
{
    uint8_t out[16];

    g_assert_cmpint(cmd_uid(d, uid, MLX5_CMD_OP_ALLOC_PD, 0, out, sizeof(out)), ==, 0);
    return mlx5_ld32(out + 8) & 0xffffff;
}

/* CREATE_MKEY of a free, UMR-enabled KLM mkey (what mlx5dv_create_mkey sends) */
static int create_klm_mkey(TDrv *d, uint16_t uid, uint32_t pd, bool umem_valid, uint8_t mode,
                           uint32_t *index)
{
    uint8_t in[MLX5_PAS_OFF] = { 0 }, out[16];
    uint8_t *mkc = in + CREATE_MKEY_MKC_OFF;
    int r;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_MKEY);
    MLX5_SET(in, CMD_IN_uid, uid);
    MLX5_SET(in, CREATE_MKEY_IN_mkey_umem_valid, umem_valid);
    MLX5_SET(mkc, MKC_access_mode_1_0, mode);
    MLX5_SET(mkc, MKC_free, 1);
    MLX5_SET(mkc, MKC_umr_en, 1);
    MLX5_SET(mkc, MKC_lr, 1);
    MLX5_SET(mkc, MKC_pd, pd);
    MLX5_SET(mkc, MKC_qpn, 0xffffff);
    MLX5_SET(mkc, MKC_log_page_size, 12);
    MLX5_SET(mkc, MKC_translations_octword_size, 4);
    r = tdrv_exec(d, in, sizeof(in), out, sizeof(out));
    if (!r && index) {
        *index = MLX5_GET(out, MKEY_IN_mkey_index);
    }
    return r;
}

static void test_uctx_lifetime(void)
{
    TDrv *d = up();
    uint8_t in[0x20] = { 0 }, out[16];
    uint16_t a = create_uctx(d), b = create_uctx(d);
    uint32_t pd;

    g_assert_cmpuint(a, !=, 0);
    g_assert_cmpuint(b, !=, 0);
    g_assert_cmpuint(a, !=, b);
    /* the caps say DevX, and no special rights */
    g_assert_cmpuint(MLX5_GET(d->c->cap_general_cur, CAP_log_max_uctx), ==, 8);
    g_assert_cmpuint(MLX5_GET(d->c->cap_general_cur, CAP_uctx_cap), ==, 0);
    /* a right the caps do not offer */
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_UCTX);
    MLX5_SET(in, CREATE_UCTX_IN_cap, 1);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, ST_PARAM);
    /* only the kernel creates contexts */
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_CREATE_UCTX, 0, out, sizeof(out)), ==, ST_PARAM);
    g_assert_cmphex(tdrv_syndrome(out), ==, MLX5_SYND_BAD_UID);
    /* a context owning a PD is busy */
    pd = alloc_pd_uid(d, a);
    g_assert_cmpint(cmd_uid(d, 0, MLX5_CMD_OP_DESTROY_UCTX, a, NULL, 0), ==,
                    MLX5_CMD_STAT_RES_BUSY);
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DEALLOC_PD, pd, NULL, 0), ==, 0);
    g_assert_cmpint(cmd_uid(d, 0, MLX5_CMD_OP_DESTROY_UCTX, a, NULL, 0), ==, 0);
    g_assert_cmpint(cmd_uid(d, 0, MLX5_CMD_OP_DESTROY_UCTX, a, NULL, 0), ==, ST_RES);
    /* a uid that does not exist (any more) issues nothing */
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_ALLOC_PD, 0, out, sizeof(out)), ==, ST_PARAM);
    g_assert_cmphex(tdrv_syndrome(out), ==, MLX5_SYND_BAD_UID);
    g_assert_cmpint(cmd_uid(d, 0x1234, MLX5_CMD_OP_ALLOC_PD, 0, NULL, 0), ==, ST_PARAM);
    g_assert_cmpint(cmd_uid(d, 0, MLX5_CMD_OP_DESTROY_UCTX, b, NULL, 0), ==, 0);
    tdrv_free(d);
}

static void test_uid_isolation(void)
{
    TDrv *d = up();
    uint16_t a = create_uctx(d), b = create_uctx(d);
    uint32_t pda = alloc_pd_uid(d, a), pdb = alloc_pd_uid(d, b), pdk = tdrv_alloc_pd(d);
    uint32_t mk, cqn, qpn;
    uint8_t out[QUERY_MKEY_OUT_SIZE];
    uint64_t buf, dbr;

    /* privileged commands are not for users */
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_CREATE_EQ, 0, out, 16), ==, ST_PARAM);
    g_assert_cmphex(tdrv_syndrome(out), ==, MLX5_SYND_BAD_UID);
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_MAD_IFC, 0, out, 16), ==, ST_PARAM);
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_MANAGE_PAGES, 0, out, 16), ==, ST_PARAM);
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_INIT_HCA, 0, out, 16), ==, ST_PARAM);
    /* the kernel's shared uid (0xffff, its completion EQs) is not a user context */
    g_assert_cmpint(cmd_uid(d, MLX5_SHARED_RESOURCE_UID, MLX5_CMD_OP_ALLOC_PD, 0, out, 16), ==, 0);
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DEALLOC_PD, mlx5_ld32(out + 8) & 0xffffff, NULL,
                            0), ==, ST_RES);

    /* mkeys: only in the uid's own PDs */
    g_assert_cmpint(create_klm_mkey(d, a, pda, false, MLX5_MKC_ACCESS_MODE_KLMS, &mk), ==, 0);
    g_assert_cmpint(create_klm_mkey(d, a, pdb, false, MLX5_MKC_ACCESS_MODE_KLMS, NULL), ==,
                    ST_PARAM);
    g_assert_cmpint(create_klm_mkey(d, a, pdk, false, MLX5_MKC_ACCESS_MODE_KLMS, NULL), ==,
                    ST_PARAM);
    /* DevX marks MTT mkeys umem-backed; there is no UMEM to take translations from */
    g_assert_cmpint(create_klm_mkey(d, a, pda, true, MLX5_MKC_ACCESS_MODE_KLMS, NULL), ==, 0);
    /* another uid can neither see nor destroy it; its owner and the kernel can */
    g_assert_cmpint(cmd_uid(d, b, MLX5_CMD_OP_QUERY_MKEY, mk, out, sizeof(out)), ==, ST_RES);
    g_assert_cmpint(cmd_uid(d, b, MLX5_CMD_OP_DESTROY_MKEY, mk, NULL, 0), ==, ST_RES);
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_QUERY_MKEY, mk, out, sizeof(out)), ==, 0);
    g_assert_cmpint(cmd_uid(d, 0, MLX5_CMD_OP_QUERY_MKEY, mk, out, sizeof(out)), ==, 0);
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DESTROY_MKEY, mk, NULL, 0), ==, 0);
    /* PDs: not another uid's, not the kernel's */
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DEALLOC_PD, pdb, NULL, 0), ==, ST_RES);
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DEALLOC_PD, pdk, NULL, 0), ==, ST_RES);

    /* a CQ of uid a (on the kernel's EQ and UAR: shared objects a may refer to) */
    {
        uint8_t in[MLX5_PAS_OFF + 8] = { 0 }, o[16];
        uint8_t *cqc = in + CREATE_CQ_CQC_OFF;

        buf = fake_alloc(d->h, 4096, 4096);
        dbr = fake_alloc(d->h, 64, 64);
        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_CQ);
        MLX5_SET(in, CMD_IN_uid, a);
        MLX5_SET(cqc, CQC_log_cq_size, 6);
        MLX5_SET(cqc, CQC_uar_page, d->uar);
        MLX5_SET(cqc, CQC_c_eqn, 0);
        MLX5_SET64(cqc, CQC_dbr_addr_OFF, dbr);
        mlx5_st64(in + MLX5_PAS_OFF, buf);
        g_assert_cmpint(tdrv_exec(d, in, sizeof(in), o, sizeof(o)), ==, 0);
        cqn = mlx5_ld32(o + 8) & 0xffffff;
    }
    g_assert_cmpint(cmd_uid(d, b, MLX5_CMD_OP_DESTROY_CQ, cqn, NULL, 0), ==, ST_RES);
    /* uid b cannot build a QP on a's CQ, nor a REG_UMR QP at all; a can build an RC QP */
    {
        uint8_t in[MLX5_PAS_OFF + 8] = { 0 }, o[16];
        uint8_t *qpc = in + QP_QPC_OFF;

        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_QP);
        MLX5_SET(in, CMD_IN_uid, b);
        MLX5_SET(qpc, QPC_st, MLX5_QP_ST_RC);
        MLX5_SET(qpc, QPC_pd, pdb);
        MLX5_SET(qpc, QPC_log_sq_size, 2);
        MLX5_SET(qpc, QPC_rq_type, MLX5_RQ_TYPE_ZERO_SIZE_RQ);
        MLX5_SET(qpc, QPC_uar_page, d->uar);
        MLX5_SET(qpc, QPC_cqn_snd, cqn);
        MLX5_SET(qpc, QPC_cqn_rcv, cqn);
        MLX5_SET64(qpc, QPC_dbr_addr_OFF, dbr);
        mlx5_st64(in + MLX5_PAS_OFF, fake_alloc(d->h, 4096, 4096));
        g_assert_cmpint(tdrv_exec(d, in, sizeof(in), o, sizeof(o)), ==, ST_PARAM);
        g_assert_cmphex(tdrv_syndrome(o), ==, MLX5_SYND_BAD_CQ);
        MLX5_SET(in, CMD_IN_uid, a);
        MLX5_SET(qpc, QPC_st, MLX5_QP_ST_REG_UMR);
        g_assert_cmpint(tdrv_exec(d, in, sizeof(in), o, sizeof(o)), ==, ST_PARAM);
        MLX5_SET(qpc, QPC_st, MLX5_QP_ST_RC);
        g_assert_cmpint(tdrv_exec(d, in, sizeof(in), o, sizeof(o)), ==, ST_PARAM); /* pdb */
        MLX5_SET(qpc, QPC_pd, pda);
        g_assert_cmpint(tdrv_exec(d, in, sizeof(in), o, sizeof(o)), ==, 0);
        qpn = mlx5_ld32(o + 8) & 0xffffff;
    }
    {
        uint8_t o[QP_QPC_OFF + MLX5_QPC_SIZE];
        g_assert_cmpint(cmd_uid(d, b, MLX5_CMD_OP_QUERY_QP, qpn, o, sizeof(o)), ==, ST_RES);
        g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_QUERY_QP, qpn, o, sizeof(o)), ==, 0);
    }
    g_assert_cmpint(cmd_uid(d, b, MLX5_CMD_OP_DESTROY_QP, qpn, NULL, 0), ==, ST_RES);
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DESTROY_QP, qpn, NULL, 0), ==, 0);
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DESTROY_CQ, cqn, NULL, 0), ==, 0);
    tdrv_free(d);
}

/* CREATE_UMEM of @n pages at @pa (4 KiB each), for uid @uid */
static int create_umem(TDrv *d, uint16_t uid, uint64_t pa, unsigned n, uint32_t *id)
{
    uint8_t in[CREATE_UMEM_IN_MTT_OFF + 8 * 8] = { 0 }, out[16];
    int r;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_UMEM);
    MLX5_SET(in, CMD_IN_uid, uid);
    mlx5_st64(in + CREATE_UMEM_IN_num_of_mtt_OFF, n);
    for (unsigned i = 0; i < n; i++) {
        mlx5_st64(in + CREATE_UMEM_IN_MTT_OFF + 8 * i, (pa + 4096ull * (n - 1 - i)) | 3);
    }
    r = tdrv_exec(d, in, CREATE_UMEM_IN_MTT_OFF + 8 * n, out, sizeof(out));
    if (!r && id) {
        *id = MLX5_GET(out, UMEM_OUT_umem_id);
    }
    return r;
}

/* A CQ whose CQE buffer and doorbell record live in UMEMs (what pyverbs' DevX tests build) */
static int create_umem_cq(TDrv *d, uint16_t uid, uint32_t umem, uint64_t off, uint32_t dbr_umem,
                          uint64_t dbr_off, uint32_t *cqn)
{
    uint8_t in[MLX5_PAS_OFF] = { 0 }, out[16];
    uint8_t *cqc = in + CREATE_CQ_CQC_OFF;
    int r;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_CQ);
    MLX5_SET(in, CMD_IN_uid, uid);
    MLX5_SET(in, CREATE_CQ_cq_umem_valid, 1);
    MLX5_SET(in, CREATE_CQ_cq_umem_id, umem);
    mlx5_st64(in + CREATE_CQ_cq_umem_offset_OFF, off);
    MLX5_SET(cqc, CQC_log_cq_size, 6);          /* 64 x 64 B: one page */
    MLX5_SET(cqc, CQC_uar_page, d->uar);
    MLX5_SET(cqc, CQC_dbr_umem_valid, 1);
    MLX5_SET(cqc, CQC_dbr_umem_id, dbr_umem);
    MLX5_SET64(cqc, CQC_dbr_addr_OFF, dbr_off);
    r = tdrv_exec(d, in, sizeof(in), out, sizeof(out));
    if (!r && cqn) {
        *cqn = mlx5_ld32(out + 8) & 0xffffff;
    }
    return r;
}

static void test_umem(void)
{
    TDrv *d = up();
    uint16_t a = create_uctx(d), b = create_uctx(d);
    uint64_t pages = fake_alloc(d->h, 4 * 4096, 4096);
    uint32_t um, dbr, cqn;
    uint8_t out[16];
    Mlx5Cq *cq;

    /* a QP on UMEMs (the command's page list is empty) */
    {
        uint32_t qum, qdbr, qcq, pd = alloc_pd_uid(d, a);
        uint8_t in[MLX5_PAS_OFF] = { 0 }, o[16];
        uint8_t *qpc = in + QP_QPC_OFF;
        Mlx5Qp *qp;

        g_assert_cmpint(create_umem(d, a, pages, 2, &qum), ==, 0);
        g_assert_cmpint(create_umem(d, a, pages + 3 * 4096, 1, &qdbr), ==, 0);
        g_assert_cmpint(create_umem_cq(d, a, qum, 0, qdbr, 0, &qcq), ==, 0);
        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_QP);
        MLX5_SET(in, CMD_IN_uid, a);
        MLX5_SET(qpc, QPC_st, MLX5_QP_ST_RC);
        MLX5_SET(qpc, QPC_pd, pd);
        MLX5_SET(qpc, QPC_log_sq_size, 5);          /* 32 x 64 B */
        MLX5_SET(qpc, QPC_log_rq_size, 4);
        MLX5_SET(qpc, QPC_log_rq_stride, 2);        /* 16 x 64 B */
        MLX5_SET(qpc, QPC_uar_page, d->uar);
        MLX5_SET(qpc, QPC_cqn_snd, qcq);
        MLX5_SET(qpc, QPC_cqn_rcv, qcq);
        MLX5_SET(qpc, QPC_dbr_umem_valid, 1);
        MLX5_SET(qpc, QPC_dbr_umem_id, qdbr);
        MLX5_SET64(qpc, QPC_dbr_addr_OFF, 8);
        MLX5_SET(in, CREATE_QP_wq_umem_valid, 1);
        MLX5_SET(in, CREATE_QP_wq_umem_id, qum);
        g_assert_cmpint(tdrv_exec(d, in, sizeof(in), o, sizeof(o)), ==, 0);
        qp = mlx5_table_get(&d->c->qps, mlx5_ld32(o + 8) & 0xffffff);
        g_assert_cmphex(qp->buf.pas[0], ==, pages + 4096);  /* UMEM page 0 */
        g_assert_cmphex(qp->dbr_addr, ==, pages + 3 * 4096 + 8);
        g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DESTROY_QP, qp->qpn, NULL, 0), ==, 0);
        g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DESTROY_CQ, qcq, NULL, 0), ==, 0);
        g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DESTROY_UMEM, qum, NULL, 0), ==, 0);
        g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DESTROY_UMEM, qdbr, NULL, 0), ==, 0);
        g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DEALLOC_PD, pd, NULL, 0), ==, 0);
    }
    /* UCX's tag-matching XRQ: its linked-list WQ and doorbell record in UMEMs, no page list */
    {
        uint32_t xum, xdbr, xcq, xrqn, pd = alloc_pd_uid(d, a);
        uint8_t in[CREATE_XRQ_PAS_OFF] = { 0 }, o[16];
        uint8_t *xrqc = in + CREATE_XRQ_XRQC_OFF, *wq = in + CREATE_XRQ_WQ_OFF;
        Mlx5Srq *srq;

        g_assert_cmpint(create_umem(d, a, pages, 2, &xum), ==, 0);
        g_assert_cmpint(create_umem(d, a, pages + 3 * 4096, 1, &xdbr), ==, 0);
        g_assert_cmpint(create_umem_cq(d, a, xum, 0, xdbr, 0, &xcq), ==, 0);
        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_XRQ);
        MLX5_SET(in, CMD_IN_uid, a);
        MLX5_SET(xrqc, XRQC_topology, MLX5_XRQC_TOPOLOGY_TAG_MATCHING);
        MLX5_SET(xrqc, XRQC_offload, MLX5_XRQC_OFFLOAD_RNDV);
        MLX5_SET(xrqc, XRQC_log_matching_list_sz, 7);
        MLX5_SET(xrqc, XRQC_cqn, xcq);
        MLX5_SET(wq, WQ_pd, pd);
        MLX5_SET(wq, WQ_log_wq_stride, 6);
        MLX5_SET(wq, WQ_log_wq_sz, 6);              /* 64 x 64 B: the UMEM's second page */
        MLX5_SET(wq, WQ_dbr_umem_valid, 1);
        MLX5_SET(wq, WQ_wq_umem_valid, 1);
        MLX5_SET(wq, WQ_dbr_umem_id, xdbr);
        MLX5_SET64(wq, WQ_dbr_addr_OFF, 0x10);
        MLX5_SET(wq, WQ_wq_umem_id, xum);
        MLX5_SET64(wq, WQ_wq_umem_offset_OFF, 4096);
        g_assert_cmpint(tdrv_exec(d, in, sizeof(in), o, sizeof(o)), ==, 0);
        xrqn = mlx5_ld32(o + 8) & 0xffffff;
        srq = mlx5_table_get(&d->c->srqs, xrqn);
        g_assert_nonnull(srq->tm);
        g_assert_cmphex(srq->buf.pas[0], ==, pages);        /* UMEM page 1 */
        g_assert_cmphex(srq->dbr_addr, ==, pages + 3 * 4096 + 0x10);
        /* the other context may not touch it */
        g_assert_cmpint(cmd_uid(d, b, MLX5_CMD_OP_DESTROY_XRQ, xrqn, NULL, 0), ==, ST_RES);
        /* without a UMEM, a page list must follow */
        MLX5_SET(wq, WQ_wq_umem_valid, 0);
        g_assert_cmpint(tdrv_exec(d, in, sizeof(in), o, sizeof(o)), ==,
                        MLX5_CMD_STAT_BAD_INP_LEN_ERR);
        g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DESTROY_XRQ, xrqn, NULL, 0), ==, 0);
        g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DESTROY_CQ, xcq, NULL, 0), ==, 0);
        g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DESTROY_UMEM, xum, NULL, 0), ==, 0);
        g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DESTROY_UMEM, xdbr, NULL, 0), ==, 0);
        g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DEALLOC_PD, pd, NULL, 0), ==, 0);
    }
    /* two pages, listed in reverse; the doorbell record at offset 0x40 of a one-page UMEM */
    g_assert_cmpint(create_umem(d, a, pages, 2, &um), ==, 0);
    g_assert_cmpint(create_umem(d, a, pages + 2 * 4096, 1, &dbr), ==, 0);
    g_assert_cmpint(create_umem_cq(d, a, um, 4096, dbr, 0x40, &cqn), ==, 0);
    cq = mlx5_table_get(&d->c->cqs, cqn);
    g_assert_cmphex(cq->buf.pas[0], ==, pages);            /* UMEM page 1 = pages + 0 */
    g_assert_cmphex(cq->dbr_addr, ==, pages + 2 * 4096 + 0x40);
    /* another uid's UMEM, an unknown one, a range past its end, a record crossing a page */
    g_assert_cmpint(create_umem_cq(d, b, um, 0, dbr, 0, NULL), ==, ST_PARAM);
    g_assert_cmpint(create_umem_cq(d, a, 0x777, 0, dbr, 0, NULL), ==, ST_PARAM);
    g_assert_cmpint(create_umem_cq(d, a, um, 8192, dbr, 0, NULL), ==, ST_PARAM);
    g_assert_cmpint(create_umem_cq(d, a, um, 0, dbr, 4092, NULL), ==, ST_PARAM);
    /* bad UMEMs: no pages, an offset past the page, more entries than the input carries */
    {
        uint8_t in[CREATE_UMEM_IN_MTT_OFF + 8] = { 0 };
        MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_UMEM);
        MLX5_SET(in, CMD_IN_uid, a);
        g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, ST_PARAM);
        mlx5_st64(in + CREATE_UMEM_IN_num_of_mtt_OFF, 1);
        MLX5_SET(in, CREATE_UMEM_IN_page_offset, 4096);
        g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, ST_PARAM);
        MLX5_SET(in, CREATE_UMEM_IN_page_offset, 0);
        mlx5_st64(in + CREATE_UMEM_IN_num_of_mtt_OFF, 5);
        g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==,
                        MLX5_CMD_STAT_BAD_INP_LEN_ERR);
    }
    /* only its owner destroys a UMEM; a context owning one is busy */
    g_assert_cmpint(cmd_uid(d, b, MLX5_CMD_OP_DESTROY_UMEM, um, NULL, 0), ==, ST_RES);
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DESTROY_CQ, cqn, NULL, 0), ==, 0);
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DESTROY_UMEM, um, NULL, 0), ==, 0);
    g_assert_cmpint(cmd_uid(d, 0, MLX5_CMD_OP_DESTROY_UCTX, a, NULL, 0), ==,
                    MLX5_CMD_STAT_RES_BUSY);
    g_assert_cmpint(cmd_uid(d, a, MLX5_CMD_OP_DESTROY_UMEM, dbr, NULL, 0), ==, 0);
    g_assert_cmpint(cmd_uid(d, 0, MLX5_CMD_OP_DESTROY_UCTX, a, NULL, 0), ==, 0);
    tdrv_free(d);
}

/*
 * Device memory is the kernel's to hand out (ALLOC_MEMIC is not a DevX command), and a DevX
 * user cannot map a piece with a MEMIC mkey of its own: it would read another process's data.
 */
static void test_memic_isolation(void)
{
    TDrv *d = up();
    uint16_t a = create_uctx(d);
    uint32_t pda = alloc_pd_uid(d, a);
    uint8_t in[MLX5_PAS_OFF] = { 0 }, out[16];
    uint8_t *mkc = in + CREATE_MKEY_MKC_OFF;
    uint64_t piece;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_ALLOC_MEMIC);
    MLX5_SET64(in, ALLOC_MEMIC_IN_range_start_addr_OFF, MLX5_MEMIC_BAR_OFF);
    MLX5_SET(in, ALLOC_MEMIC_IN_range_size, 4096);
    MLX5_SET(in, ALLOC_MEMIC_IN_memic_size, 64);
    MLX5_SET(in, CMD_IN_uid, a);
    g_assert_cmpint(tdrv_exec(d, in, 0x20, out, sizeof(out)), ==, ST_PARAM);
    g_assert_cmphex(tdrv_syndrome(out), ==, MLX5_SYND_BAD_UID);
    MLX5_SET(in, CMD_IN_uid, 0);
    g_assert_cmpint(tdrv_exec(d, in, 0x20, out, sizeof(out)), ==, 0);
    piece = MLX5_GET64(out, ALLOC_MEMIC_OUT_memic_start_addr_OFF);

    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_MKEY);
    MLX5_SET(in, CMD_IN_uid, a);
    MLX5_SET(mkc, MKC_access_mode_1_0, MLX5_MKC_ACCESS_MODE_MEMIC & 3);
    MLX5_SET(mkc, MKC_access_mode_4_2, MLX5_MKC_ACCESS_MODE_MEMIC >> 2);
    MLX5_SET(mkc, MKC_lr, 1);
    MLX5_SET(mkc, MKC_pd, pda);
    MLX5_SET(mkc, MKC_qpn, 0xffffff);
    MLX5_SET64(mkc, MKC_start_addr_OFF, piece);
    MLX5_SET64(mkc, MKC_len_OFF, 64);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, ST_PARAM);
    g_assert_cmphex(tdrv_syndrome(out), ==, MLX5_SYND_BAD_MKEY_RANGE);
    tdrv_free(d);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/devx/uctx-lifetime", test_uctx_lifetime);
    g_test_add_func("/mlx5/devx/uid-isolation", test_uid_isolation);
    g_test_add_func("/mlx5/devx/umem", test_umem);
    g_test_add_func("/mlx5/devx/memic-isolation", test_memic_isolation);
    return g_test_run();
}
