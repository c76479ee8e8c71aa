/*
 * Unit tests of on-demand paging (hw/rdma/mlx5/mlx5_odp.c): MTT entries without their read/write
 * bits fault; the device posts the PAGE_FAULT event the 6.12 driver parses (odp.c), pauses or
 * NAKs, and goes on after PAGE_FAULT_RESUME once the test, as the driver would, has mapped
 * the pages. Every transfer's bytes are checked.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-test.h"
#include "mlx5_internal.h"

#include "mlx5-testqp.h"

#define ODP_VA  0x7f0000000000ull

typedef struct PfEq {
    uint64_t pa;
    uint32_t eqn, ci;
} PfEq;

static void pf_eq_create(TDrv *d, PfEq *q)
{
    q->eqn = tdrv_create_eq(d, 1ull << MLX5_EVENT_TYPE_PAGE_FAULT, 6, 0, &q->pa);
    q->ci = 0;
}

/* The next PAGE_FAULT EQE, or false. */
static bool pf_eq_next(TDrv *d, PfEq *q, uint8_t *eqe)
{
    tdrv_eqe(d, q->pa, q->ci % 64, eqe);
    if ((eqe[MLX5_EQE_owner] & 1) != ((q->ci / 64) & 1)) {
        return false;
    }
    q->ci++;
    g_assert_cmpuint(eqe[MLX5_EQE_type], ==, MLX5_EVENT_TYPE_PAGE_FAULT);
    return true;
}

/* What the driver's fault handler does with UMR: the pages become present (read, write). */
static void map_pages(TDrv *d, uint32_t key, uint64_t bits)
{
    Mlx5Mkey *mk = mlx5_table_get(&d->c->mkeys, key >> 8);

    for (uint64_t i = 0; i < mk->nmtt; i++) {
        mk->mtt[i] |= bits;
    }
}

static int resume(TDrv *d, unsigned type, uint32_t wq, uint32_t token, bool error)
{
    uint8_t out[16];

    return tdrv_simple(d, MLX5_CMD_OP_PAGE_FAULT_RESUME, 0,
                       (error ? 1u << 31 : 0) | (type << 24) | wq, token, out, sizeof(out));
}

/* The caps the 6.12 driver reads: pg and the transport scheme's services. */
static void test_caps(void)
{
    TDrv *d = new_node(1);
    uint8_t out[HCA_CAP_OFF + HCA_CAP_SIZE];
    const uint8_t *cap = out + HCA_CAP_OFF;

    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_GENERAL << 1, 0, 0,
                                out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(cap, CAP_pg), ==, 1);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, (MLX5_CAP_ODP << 1) | 1, 0, 0,
                                out, sizeof(out)), ==, 0);
    g_assert_cmphex(mlx5_ld32(cap + ODP_CAP_rc_OFF), ==, 0xfc000000);
    g_assert_cmphex(mlx5_ld32(cap + ODP_CAP_ud_OFF), ==, MLX5_ODP_SEND | MLX5_ODP_SRQ_RECEIVE);
    g_assert_cmpuint(MLX5_GET(cap, ODP_CAP_mem_page_fault), ==, 0);
    tdrv_free(d);
}

/* SET_HCA_CAP(ODP) as handle_hca_cap_odp sends it: only services the max page has. */
static void test_set_cap(void)
{
    TDrv *d = tdrv_new();
    uint8_t in[0x10 + HCA_CAP_SIZE] = { 0 }, out[HCA_CAP_OFF + HCA_CAP_SIZE];
    uint8_t *cap = in + HCA_CAP_OFF;

    tdrv_simple(d, MLX5_CMD_OP_ENABLE_HCA, 0, 0, 0, NULL, 0);
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_SET_HCA_CAP);
    MLX5_SET(in, CMD_IN_op_mod, MLX5_CAP_ODP << 1);
    mlx5_st32(cap + ODP_CAP_ud_OFF, MLX5_ODP_SEND | MLX5_ODP_WRITE);       /* no UD write */
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    mlx5_st32(cap + ODP_CAP_ud_OFF, MLX5_ODP_SEND);
    MLX5_SET(cap, ODP_CAP_mem_page_fault, 1);                             /* no memory scheme */
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    MLX5_SET(cap, ODP_CAP_mem_page_fault, 0);
    mlx5_st32(cap + ODP_CAP_rc_OFF, MLX5_ODP_SEND | MLX5_ODP_SRQ_RECEIVE);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_QUERY_HCA_CAP, (MLX5_CAP_ODP << 1) | 1, 0, 0,
                                out, sizeof(out)), ==, 0);
    g_assert_cmphex(mlx5_ld32(out + HCA_CAP_OFF + ODP_CAP_rc_OFF), ==,
                    MLX5_ODP_SEND | MLX5_ODP_SRQ_RECEIVE);
    g_assert_cmphex(mlx5_ld32(out + HCA_CAP_OFF + ODP_CAP_ud_OFF), ==, MLX5_ODP_SEND);
    tdrv_free(d);
}

/* Requester SEND from an ODP buffer: the SQ pauses at the WQE until the resume. */
static void test_requester_send(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    TQp qa, qb;
    PfEq pf;
    uint8_t segs[16], cqe[64], eqe[64];
    uint32_t key;
    uint16_t idx;

    tqp_rc_pair(&qa, a, &qb, b);
    pf_eq_create(a, &pf);
    key = create_odp_mkey(a, qa.pd, ODP_VA, 0x4000, qa.mem);
    tqp_pattern(a, qa.mem, 0x4000, 3);
    tqp_post_recv(&qb, 0x4000, qb.mem);
    data_seg(segs, 0x3000, key, ODP_VA + 0x800);
    tqp_post_send(&qa, MLX5_OPCODE_NOP, 0, segs, 0, false, true);   /* WQE index 0 */
    idx = tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(a, b, 2000);
    g_assert_false(tqp_poll(&qa, cqe));
    g_assert_true(pf_eq_next(a, &pf, eqe));
    g_assert_cmpuint(eqe[MLX5_EQE_sub_type], ==, MLX5_PFAULT_SUBTYPE_WQE);
    g_assert_cmphex(mlx5_ld32(eqe + MLX5_EQE_data + PF_EQE_WQE_pftype_wq), ==,
                    (MLX5_PF_TYPE_REQ_SEND_OR_WRITE << 24) | qa.qpn);
    g_assert_cmpuint(mlx5_ld16(eqe + MLX5_EQE_data + PF_EQE_WQE_wqe_index), ==, idx);
    g_assert_cmphex(mlx5_ld32(eqe + MLX5_EQE_data + PF_EQE_WQE_token), ==, qa.qpn);
    g_assert_false(pf_eq_next(a, &pf, eqe));     /* one event per fault */

    map_pages(a, key, MLX5_MTT_RD_EN | MLX5_MTT_WR_EN);
    g_assert_cmpint(resume(a, MLX5_PF_TYPE_REQ_SEND_OR_WRITE, qa.qpn, qa.qpn, false), ==, 0);
    run_pair(a, b, 2000);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_cmpuint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, idx);
    g_assert_true(tqp_poll(&qb, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 0x3000);
    g_assert_true(tqp_same(a, qa.mem + 0x800, b, qb.mem, 0x3000));
    /* a resume with nothing outstanding changes nothing; an unknown QP is BAD_PARAM */
    g_assert_cmpint(resume(a, MLX5_PF_TYPE_REQ_SEND_OR_WRITE, qa.qpn, qa.qpn, false), ==, 0);
    g_assert_cmpint(resume(a, MLX5_PF_TYPE_REQ_SEND_OR_WRITE, 0xfffff, 0, false), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    tdrv_free(a);
    tdrv_free(b);
}

/* Responder: a SEND into an ODP receive buffer is RNR NAKed until the resume. */
static void test_responder_recv(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    TQp qa, qb;
    PfEq pf;
    uint8_t segs[16], cqe[64], eqe[64];
    uint32_t key;

    tqp_rc_pair(&qa, a, &qb, b);
    pf_eq_create(b, &pf);
    key = create_odp_mkey(b, qb.pd, ODP_VA, 0x4000, qb.mem);
    tqp_pattern(a, qa.mem, 0x2800, 9);
    tqp_post_recv_key(&qb, 0x4000, key, ODP_VA);
    data_seg(segs, 0x2800, qa.key, qa.mem);
    tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(a, b, 300);
    g_assert_false(tqp_poll(&qa, cqe));
    g_assert_false(tqp_poll(&qb, cqe));
    g_assert_true(pf_eq_next(b, &pf, eqe));
    g_assert_cmpuint(eqe[MLX5_EQE_sub_type], ==, MLX5_PFAULT_SUBTYPE_WQE);
    g_assert_cmphex(mlx5_ld32(eqe + MLX5_EQE_data + PF_EQE_WQE_pftype_wq), ==,
                    (MLX5_PF_TYPE_RESP << 24) | qb.qpn);
    g_assert_cmpuint(mlx5_ld16(eqe + MLX5_EQE_data + PF_EQE_WQE_wqe_index), ==, 0);
    g_assert_false(pf_eq_next(b, &pf, eqe));     /* RNR retries post nothing more */

    map_pages(b, key, MLX5_MTT_RD_EN | MLX5_MTT_WR_EN);
    g_assert_cmpint(resume(b, MLX5_PF_TYPE_RESP, qb.qpn, qb.qpn, false), ==, 0);
    run_pair(a, b, 2000);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_poll(&qb, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 0x2800);
    g_assert_cmpuint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, 0);
    g_assert_true(tqp_same(a, qa.mem, b, qb.mem, 0x2800));
    tdrv_free(a);
    tdrv_free(b);
}

/*
 * RDMA through an ODP rkey (WRITE: RNR NAK; READ: responses held) and a READ into an ODP
 * buffer of the requester (the response is dropped and asked for again).
 */
static void test_rdma(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    TQp qa, qb;
    PfEq pfa, pfb;
    uint8_t segs[48], cqe[64], eqe[64], v[8];
    uint32_t rkey, lkey;

    tqp_rc_pair(&qa, a, &qb, b);
    pf_eq_create(a, &pfa);
    pf_eq_create(b, &pfb);
    rkey = create_odp_mkey(b, qb.pd, ODP_VA, 0x10000, qb.mem);

    /* WRITE 0x5000 bytes at +0x1000 */
    tqp_pattern(a, qa.mem, 0x5000, 1);
    raddr_seg(segs, ODP_VA + 0x1000, rkey);
    data_seg(segs + 16, 0x5000, qa.key, qa.mem);
    tqp_post_send(&qa, MLX5_OPCODE_RDMA_WRITE, 0, segs, 2, true, true);
    run_pair(a, b, 300);
    g_assert_false(tqp_poll(&qa, cqe));
    g_assert_true(pf_eq_next(b, &pfb, eqe));
    g_assert_cmpuint(eqe[MLX5_EQE_sub_type], ==, MLX5_PFAULT_SUBTYPE_RDMA);
    g_assert_cmphex(mlx5_ld32(eqe + MLX5_EQE_data + PF_EQE_RDMA_r_key), ==, rkey);
    g_assert_cmphex(mlx5_ld64(eqe + MLX5_EQE_data + PF_EQE_RDMA_rdma_va), ==, ODP_VA + 0x1000);
    g_assert_cmpuint(mlx5_ld32(eqe + MLX5_EQE_data + PF_EQE_RDMA_rdma_op_len), ==, 0x5000);
    g_assert_cmphex(mlx5_ld32(eqe + MLX5_EQE_data + PF_EQE_RDMA_pftype_token), ==,
                    (MLX5_PF_TYPE_RDMA_WRITE << 24) | qb.qpn);
    map_pages(b, rkey, MLX5_MTT_RD_EN | MLX5_MTT_WR_EN);
    g_assert_cmpint(resume(b, MLX5_PF_TYPE_RDMA_WRITE, qb.qpn, qb.qpn, false), ==, 0);
    run_pair(a, b, 3000);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_same(a, qa.mem, b, qb.mem + 0x1000, 0x5000));

    /* READ it back into an ODP buffer of a: the first response faults (type 3) */
    lkey = create_odp_mkey(a, qa.pd, ODP_VA, 0x8000, qa.mem + 0x10000);
    raddr_seg(segs, ODP_VA + 0x1000, rkey);
    data_seg(segs + 16, 0x5000, lkey, ODP_VA + 0x2000);
    tqp_post_send(&qa, MLX5_OPCODE_RDMA_READ, 0, segs, 2, true, true);
    /* and a fetch-and-add whose result lands in the same ODP buffer, after it */
    mlx5_st64(v, 0);
    v[0] = 40;
    fake_write(b->h, qb.mem + 0x8000, v, 8);
    raddr_seg(segs, ODP_VA + 0x8000, rkey);
    memset(segs + 16, 0, 16);
    mlx5_st64(segs + 16, 2);
    data_seg(segs + 32, 8, lkey, ODP_VA);
    tqp_post_send(&qa, MLX5_OPCODE_ATOMIC_FA, 0, segs, 3, true, true);
    run_pair(a, b, 1000);
    g_assert_false(tqp_poll(&qa, cqe));
    g_assert_true(pf_eq_next(a, &pfa, eqe));
    g_assert_cmphex(mlx5_ld32(eqe + MLX5_EQE_data + PF_EQE_WQE_pftype_wq), ==,
                    (MLX5_PF_TYPE_REQ_READ_OR_ATOMIC << 24) | qa.qpn);
    map_pages(a, lkey, MLX5_MTT_RD_EN | MLX5_MTT_WR_EN);
    g_assert_cmpint(resume(a, MLX5_PF_TYPE_REQ_READ_OR_ATOMIC, qa.qpn, qa.qpn, false), ==, 0);
    run_pair(a, b, 3000);
    for (int i = 0; i < 2; i++) {
        g_assert_true(tqp_poll(&qa, cqe));
        g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    }
    g_assert_true(tqp_same(a, qa.mem + 0x12000, b, qb.mem + 0x1000, 0x5000));
    fake_read(a->h, qa.mem + 0x10000, v, 8);
    g_assert_cmpuint(v[0], ==, 40);
    fake_read(b->h, qb.mem + 0x8000, v, 8);
    g_assert_cmpuint(v[0], ==, 42);             /* executed once */

    /* READ from a part of b's MR that was taken away again: responses wait for the resume */
    {
        Mlx5Mkey *mk = mlx5_table_get(&b->c->mkeys, rkey >> 8);
        mk->mtt[12] &= ~3ull;                   /* the driver zapped page 12 (UMR) */
    }
    tqp_pattern(b, qb.mem + 0xb000, 0x3000, 5);
    raddr_seg(segs, ODP_VA + 0xb000, rkey);
    data_seg(segs + 16, 0x3000, qa.key, qa.mem + 0x40000);
    tqp_post_send(&qa, MLX5_OPCODE_RDMA_READ, 0, segs, 2, true, true);
    run_pair(a, b, 4);                          /* (no time passes: the driver is quick) */
    g_assert_true(pf_eq_next(b, &pfb, eqe));
    g_assert_cmpuint(eqe[MLX5_EQE_sub_type], ==, MLX5_PFAULT_SUBTYPE_RDMA);
    g_assert_cmphex(mlx5_ld64(eqe + MLX5_EQE_data + PF_EQE_RDMA_rdma_va), ==, ODP_VA + 0xc000);
    g_assert_cmpuint(mlx5_ld32(eqe + MLX5_EQE_data + PF_EQE_RDMA_rdma_op_len), ==, 0x2000);
    map_pages(b, rkey, MLX5_MTT_RD_EN | MLX5_MTT_WR_EN);
    g_assert_cmpint(resume(b, MLX5_PF_TYPE_RDMA, qb.qpn, qb.qpn, false), ==, 0);
    run_pair(a, b, 3000);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmphex(cqe[MLX5_CQE_syndrome], ==, 0);
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_same(a, qa.mem + 0x40000, b, qb.mem + 0xb000, 0x3000));
    tdrv_free(a);
    tdrv_free(b);
}

/* A fault the driver cannot resolve, and a fault with no event queue to report it. */
static void test_errors(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    TQp qa, qb;
    PfEq pf;
    uint8_t segs[16], cqe[64], eqe[64];
    uint32_t key;

    tqp_rc_pair(&qa, a, &qb, b);
    key = create_odp_mkey(a, qa.pd, ODP_VA, 0x1000, qa.mem);
    tqp_post_recv(&qb, 0x1000, qb.mem);
    data_seg(segs, 0x100, key, ODP_VA);
    /* no PAGE_FAULT event queue yet: the access fails at once */
    tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(a, b, 1000);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    g_assert_cmphex(cqe[MLX5_CQE_syndrome], ==, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
    tdrv_free(a);
    tdrv_free(b);

    /* resume with error: the WR fails with a local protection error, the rest flush */
    a = new_node(1);
    b = new_node(2);
    tqp_rc_pair(&qa, a, &qb, b);
    pf_eq_create(a, &pf);
    key = create_odp_mkey(a, qa.pd, ODP_VA, 0x1000, qa.mem);
    tqp_post_recv(&qb, 0x1000, qb.mem);
    data_seg(segs, 0x100, key, ODP_VA);
    tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(a, b, 1000);
    g_assert_true(pf_eq_next(a, &pf, eqe));
    g_assert_false(tqp_poll(&qa, cqe));
    g_assert_cmpint(resume(a, MLX5_PF_TYPE_REQ_SEND_OR_WRITE, qa.qpn, qa.qpn, true), ==, 0);
    run_pair(a, b, 1000);
    tqp_expect_req_err(&qa, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
    tqp_expect_req_err(&qa, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
    g_assert_false(tqp_poll(&qb, cqe));
    tdrv_free(a);
    tdrv_free(b);
}

/* A receive from an SRQ that faults: type 0 (RMP, the SRQ); resumed with error, it fails. */
static void test_srq(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    TQp qa, qb;
    PfEq pf;
    uint8_t segs[16], cqe[64], eqe[64], wqe[64] = { 0 }, dbr[4];
    uint32_t key, srqn, pd, cqn;
    uint64_t cq_buf, cq_dbr, srq_buf = 0, srq_dbr = 0;
    int st;

    tqp_create(&qa, a, MLX5_QP_ST_RC, 1);
    pd = tdrv_alloc_pd(b);
    cqn = tdrv_create_cq(b, tdrv_create_eq(b, 0, 6, 1, NULL), 6, &cq_buf, &cq_dbr);
    st = tdrv_create_srq(b, pd, cqn, 4, 2, &srqn);      /* 16 WQEs of 64 bytes */
    g_assert_cmpint(st, ==, 0);
    {
        Mlx5Srq *s = mlx5_table_get(&b->c->srqs, srqn);
        srq_buf = s->buf.pas ? s->buf.pas[0] : 0;
        srq_dbr = s->dbr_addr;
    }
    tqp_create_on(&qb, b, MLX5_QP_ST_RC, 2, srqn, pd);
    tqp_connect(&qa, b->c->cfg.lid, qb.qpn, 0);
    tqp_connect(&qb, a->c->cfg.lid, qa.qpn, 0);
    pf_eq_create(b, &pf);
    key = create_odp_mkey(b, pd, ODP_VA, 0x1000, qb.mem);
    /* SRQ WQE 0: next 1, one data segment in the ODP MR */
    mlx5_st16(wqe + 2, 1);
    data_seg(wqe + 16, 0x1000, key, ODP_VA);
    data_seg(wqe + 32, 0, MLX5_INVALID_LKEY, 0);
    fake_write(b->h, srq_buf, wqe, 64);
    mlx5_st32(dbr, 1);
    fake_write(b->h, srq_dbr, dbr, 4);
    data_seg(segs, 0x200, qa.key, qa.mem);
    tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(a, b, 300);
    g_assert_true(pf_eq_next(b, &pf, eqe));
    g_assert_cmphex(mlx5_ld32(eqe + MLX5_EQE_data + PF_EQE_WQE_pftype_wq), ==,
                    (MLX5_PF_TYPE_RMP << 24) | srqn);
    g_assert_cmpuint(mlx5_ld16(eqe + MLX5_EQE_data + PF_EQE_WQE_wqe_index), ==, 0);
    g_assert_cmpint(resume(b, MLX5_PF_TYPE_RMP, srqn, srqn, true), ==, 0);
    run_pair(a, b, 3000);
    /* the receive failed: the responder NAKed, the requester's SEND failed too */
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    g_assert_cmpint(resume(b, MLX5_PF_TYPE_RMP, 0xfffff, 0, false), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    tdrv_free(a);
    tdrv_free(b);
}

/*
 * Implicit ODP as mlx5_ib 6.12 builds it (odp.c): the whole address space as one KSM key of
 * 1 GiB entries, every entry the null mkey (QUERY_SPECIAL_CONTEXTS) until an access faults
 * there; the driver then creates the piece (a 1 GiB MTT key), points the entry at it (UMR at a
 * translation offset beyond 16 bits) and resumes.
 */
#define IMR_SHIFT   30

static void mkc_rights(uint8_t *mkc)
{
    MLX5_SET(mkc, MKC_lr, 1);
    MLX5_SET(mkc, MKC_lw, 1);
    MLX5_SET(mkc, MKC_rr, 1);
    MLX5_SET(mkc, MKC_rw, 1);
    MLX5_SET(mkc, MKC_a, 1);
}

/* The parent's entries [@first, @first + @n) name @key (the null mkey: va 0). */
static void imr_set(TQp *q, uint32_t imr, uint64_t first, unsigned n, uint32_t key,
                    bool enable)
{
    g_autofree uint8_t *x = g_malloc0(n * 16);
    Umr u = { 0 };

    for (unsigned i = 0; i < n; i++) {
        klm(x + 16 * i, 1u << IMR_SHIFT, key,
            key == MLX5_NULL_MKEY ? 0 : (first + i) << IMR_SHIFT);
    }
    u.key = imr;
    u.flags = F_INLINE;
    u.xlt = x;
    u.n16 = n;
    u.off16 = first;
    if (enable) {
        /* mlx5r_umr_final_update_xlt: enabled, length64 (ibmr.length 0), access, page size */
        u.mask = M_FREE | M_LEN | M_PAGE_SIZE | M_START | M_ACCESS;
        MLX5_SET(u.mkc, MKC_length64, 1);
        MLX5_SET(u.mkc, MKC_log_page_size, IMR_SHIFT);
        mkc_rights(u.mkc);
    }
    g_assert_cmpuint(umr_run(q, &u, NULL), ==, MLX5_CQE_REQ);
}

/*
 * implicit_get_child_mr: the 1 GiB piece @idx as an MTT key, its 4 KiB pages from @va mapped to
 * @pa (read and write), the rest not present; returns its key.
 */
static uint32_t imr_child(TQp *q, uint64_t idx, uint64_t va, uint64_t pa, unsigned pages)
{
    uint32_t key = create_free_umr_mkey(q->d, q->pd, MLX5_MKC_ACCESS_MODE_MTT,
                                        1u << (IMR_SHIFT - 12 - 1), 0x5a);
    uint64_t first = (va - (idx << IMR_SHIFT)) >> 12;
    g_autofree uint8_t *x = g_malloc0(16 * ((pages + 1) / 2 + 1));
    Umr u = { 0 };

    g_assert_cmpuint(first % 2, ==, 0);
    for (unsigned i = 0; i < pages; i++) {
        mlx5_st64(x + 8 * i, (pa + 4096ull * i) | MLX5_MTT_RD_EN | MLX5_MTT_WR_EN);
    }
    u.key = key;
    u.flags = F_INLINE;
    u.xlt = x;
    u.n16 = (pages + 1) / 2;
    u.off16 = first / 2;
    u.mask = M_FREE | M_LEN | M_PAGE_SIZE | M_START | M_ACCESS;
    MLX5_SET(u.mkc, MKC_length64, 1);
    MLX5_SET(u.mkc, MKC_log_page_size, 12);
    MLX5_SET64(u.mkc, MKC_start_addr_OFF, idx << IMR_SHIFT);
    mkc_rights(u.mkc);
    g_assert_cmpuint(umr_run(q, &u, NULL), ==, MLX5_CQE_REQ);
    return key;
}

/*
 * A user address space of @va_bits (47 with 4-level paging: 2^17 entries; 56 with 5-level:
 * 2^26 entries, a sparse table). The peer writes at @rva.
 */
static void implicit_run(unsigned va_bits, uint64_t rva)
{
    TDrv *a = new_node(1), *b = new_node(2);
    uint8_t out[HCA_CAP_OFF + HCA_CAP_SIZE], segs[32], cqe[64], eqe[64], buf[64];
    const uint64_t va = ODP_VA, idx = ODP_VA >> IMR_SHIFT, ridx = rva >> IMR_SHIFT;
    const uint32_t entries = 1u << (va_bits - IMR_SHIFT);
    uint32_t imr, child, child2;
    TQp qa, qb, qu;
    PfEq pfa;

    /* the caps mlx5_ib's implicit ODP needs, and the null mkey */
    g_assert_cmpint(tdrv_simple(a, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_GENERAL << 1, 0, 0,
                                out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(out + HCA_CAP_OFF, CAP_fixed_buffer_size), ==, 1);
    g_assert_cmpuint(MLX5_GET(out + HCA_CAP_OFF, CAP_null_mkey), ==, 1);
    g_assert_cmpuint(MLX5_GET(out + HCA_CAP_OFF, CAP_umr_extended_translation_offset), ==, 1);
    g_assert_cmpuint(MLX5_GET(out + HCA_CAP_OFF, CAP_umr_indirect_mkey_disabled), ==, 0);
    g_assert_cmpint(tdrv_simple(a, MLX5_CMD_OP_QUERY_SPECIAL_CONTEXTS, 0, 0, 0, out,
                                QUERY_SPECIAL_CONTEXTS_OUT_SIZE), ==, 0);
    g_assert_cmphex(MLX5_GET(out, QUERY_SPECIAL_CONTEXTS_OUT_null_mkey), ==, MLX5_NULL_MKEY);

    tqp_rc_pair(&qa, a, &qb, b);
    /* the driver's UMR QP (the send queue of qa pauses at a fault) */
    tqp_create_on(&qu, a, MLX5_QP_ST_REG_UMR, 3, 0, qa.pd);
    tqp_connect(&qu, 0, 0, 0);
    pf_eq_create(a, &pfa);
    /* mlx5_ib_alloc_implicit_mr: a free KSM key with room for every entry, zapped and enabled */
    imr = create_free_umr_mkey(a, qa.pd, MLX5_MKC_ACCESS_MODE_KSM, entries, 0x33);
    imr_set(&qu, imr, idx - 4, 8, MLX5_NULL_MKEY, true);    /* (offset > 16 bits) */
    imr_set(&qu, imr, ridx, 1, MLX5_NULL_MKEY, false);
    g_assert_cmpint(mlx5_mkey_copy(a->c, imr, qa.pd, MLX5_MKEY_LR, va, buf, 64, false), ==,
                    MLX5_XLATE_FAULT);

    /* a SEND gathered through the implicit key faults on the WQE (type 1) */
    tqp_pattern(a, qa.mem, 0x3000, 4);
    tqp_post_recv(&qb, 0x3000, qb.mem);
    data_seg(segs, 0x3000, imr, va);
    tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(a, b, 2000);
    g_assert_false(tqp_poll(&qa, cqe));
    g_assert_true(pf_eq_next(a, &pfa, eqe));
    g_assert_cmpuint(eqe[MLX5_EQE_sub_type], ==, MLX5_PFAULT_SUBTYPE_WQE);
    g_assert_cmphex(mlx5_ld32(eqe + MLX5_EQE_data + PF_EQE_WQE_pftype_wq), ==,
                    (MLX5_PF_TYPE_REQ_SEND_OR_WRITE << 24) | qa.qpn);
    /* the driver: the piece with the pages touched, then the parent's entry */
    child = imr_child(&qu, idx, ODP_VA, qa.mem, 4);
    imr_set(&qu, imr, idx, 1, child, false);
    g_assert_cmpint(resume(a, MLX5_PF_TYPE_REQ_SEND_OR_WRITE, qa.qpn, qa.qpn, false), ==, 0);
    run_pair(a, b, 2000);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_poll(&qb, cqe));
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 0x3000);
    g_assert_true(tqp_same(a, qa.mem, b, qb.mem, 0x3000));

    /* an RDMA WRITE from the peer through the implicit rkey into a piece not there yet */
    tqp_pattern(b, qb.mem + 0x10000, 0x1800, 8);
    raddr_seg(segs, rva, imr);
    data_seg(segs + 16, 0x1800, qb.key, qb.mem + 0x10000);
    tqp_post_send(&qb, MLX5_OPCODE_RDMA_WRITE, 0, segs, 2, true, true);
    run_pair(a, b, 300);
    g_assert_false(tqp_poll(&qb, cqe));
    g_assert_true(pf_eq_next(a, &pfa, eqe));
    g_assert_cmpuint(eqe[MLX5_EQE_sub_type], ==, MLX5_PFAULT_SUBTYPE_RDMA);
    g_assert_cmphex(mlx5_ld32(eqe + MLX5_EQE_data + PF_EQE_RDMA_r_key), ==, imr);
    g_assert_cmphex(mlx5_ld64(eqe + MLX5_EQE_data + PF_EQE_RDMA_rdma_va), ==, rva);
    child2 = imr_child(&qu, ridx, rva & ~0x1fffull, qa.mem + 0x20000, 4);
    imr_set(&qu, imr, ridx, 1, child2, false);
    g_assert_cmpint(resume(a, MLX5_PF_TYPE_RDMA_WRITE, qa.qpn, qa.qpn, false), ==, 0);
    run_pair(a, b, 3000);
    g_assert_true(tqp_poll(&qb, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_same(b, qb.mem + 0x10000, a, qa.mem + 0x20000 + (rva & 0x1fff), 0x1800));

    /* the piece is taken away again (free_implicit_child_mr_work): the entry faults again */
    imr_set(&qu, imr, ridx, 1, MLX5_NULL_MKEY, false);
    g_assert_cmpint(mlx5_mkey_copy(a->c, imr, qa.pd, MLX5_MKEY_LR, rva, buf, 64, false), ==,
                    MLX5_XLATE_FAULT);
    g_assert_cmpint(mlx5_mkey_copy(a->c, imr, qa.pd, MLX5_MKEY_LR, va, buf, 64, false), ==, 0);
    /* without page faults the null mkey is a bad key; an entry never written is out of range */
    a->c->cfg.odp = false;
    g_assert_cmpint(mlx5_mkey_copy(a->c, imr, qa.pd, MLX5_MKEY_LR, rva, buf, 64, false), ==,
                    MLX5_XLATE_BAD_KEY);
    a->c->cfg.odp = true;
    if (va_bits == 47) {
        g_assert_cmpint(mlx5_mkey_copy(a->c, imr, qa.pd, MLX5_MKEY_LR,
                                       (idx + 8) << IMR_SHIFT, buf, 64, false), ==,
                        MLX5_XLATE_BOUNDS);
    } else {
        uint64_t tbl = fake_alloc(a->h, 16ull * MLX5_KSM_SPARSE_SET, 64);
        g_autofree uint8_t *x = g_malloc0(16ull * MLX5_KSM_SPARSE_SET);
        Umr u = { 0 };
        uint8_t synd;

        /* a sparse table: every entry the null mkey until written, none past 2^56 */
        g_assert_cmpint(mlx5_mkey_copy(a->c, imr, qa.pd, MLX5_MKEY_LR,
                                       (idx + 8) << IMR_SHIFT, buf, 64, false), ==,
                        MLX5_XLATE_FAULT);
        g_assert_cmpint(mlx5_mkey_copy(a->c, imr, qa.pd, MLX5_MKEY_LR, 1ull << 56, buf, 64,
                                       false), ==, MLX5_XLATE_BOUNDS);
        /* at most MLX5_KSM_SPARSE_SET entries name a key: one more fails, nothing written */
        for (unsigned i = 0; i < MLX5_KSM_SPARSE_SET; i++) {
            klm(x + 16 * i, 1u << IMR_SHIFT, child, (uint64_t)idx << IMR_SHIFT);
        }
        fake_write(a->h, tbl, x, 16ull * MLX5_KSM_SPARSE_SET);
        u.key = imr;
        u.ptr_lkey = qu.key;
        u.ptr_addr = tbl;
        u.n16 = MLX5_KSM_SPARSE_SET - 1;            /* with idx: the limit */
        u.off16 = 1ull << 20;
        g_assert_cmpuint(umr_run(&qu, &u, NULL), ==, MLX5_CQE_REQ);
        u.n16 = 2;
        u.off16 = 1ull << 21;
        g_assert_cmpuint(umr_run(&qu, &u, &synd), ==, MLX5_CQE_REQ_ERR);
        g_assert_cmpint(mlx5_mkey_copy(a->c, imr, qa.pd, MLX5_MKEY_LR,
                                       (1ull << 21) << IMR_SHIFT, buf, 64, false), ==,
                        MLX5_XLATE_FAULT);
        /* an entry that names the null mkey again makes room */
        g_assert_cmpint(mlx5_mkey_copy(a->c, imr, qa.pd, MLX5_MKEY_LR,
                                       ((1ull << 20) << IMR_SHIFT) + 0x100, buf, 64, false),
                        ==, 0);
    }
    tdrv_free(a);
    tdrv_free(b);
}

static void test_implicit(void)
{
    implicit_run(47, ODP_VA + (3ull << IMR_SHIFT) + 0x2000);    /* three pieces further */
}

static void test_implicit_57(void)
{
    implicit_run(56, (1ull << 52) + 0x2000);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/odp/caps", test_caps);
    g_test_add_func("/mlx5/odp/set-cap", test_set_cap);
    g_test_add_func("/mlx5/odp/requester-send", test_requester_send);
    g_test_add_func("/mlx5/odp/responder-recv", test_responder_recv);
    g_test_add_func("/mlx5/odp/rdma", test_rdma);
    g_test_add_func("/mlx5/odp/errors", test_errors);
    g_test_add_func("/mlx5/odp/srq", test_srq);
    g_test_add_func("/mlx5/odp/implicit", test_implicit);
    g_test_add_func("/mlx5/odp/implicit-57", test_implicit_57);
    return g_test_run();
}
