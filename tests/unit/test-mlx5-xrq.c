/*
 * Unit tests of hardware tag matching (hw/rdma/mlx5/mlx5_xrq.c), driven as libmlx5 56.1 drives a
 * TM-SRQ: CREATE_XRQ, a command QP posting TAG_MATCHING list operations, a peer sending
 * messages that start with a TMH (EAGER, RNDV, NO_TAG), and the CQEs libmlx5's cq.c decodes.
 * Every placed byte is checked.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-test.h"
#include "mlx5_internal.h"
#include "hw/rdma/mlx5/mlx5_xrq_prm.h"

#include "mlx5-testqp.h"

#define MASK    0xffffull
#define LOG_XRQ 4                   /* 16 SRQ WQEs of 32 bytes */

typedef struct Tm {
    TDrv *a, *b;
    TQp qa;                         /* the sender */
    TQp qx;                         /* b: owns the PD, key, memory and the XRQ's CQ */
    TQp qc;                         /* b: libmlx5's command QP, looped to itself */
    TQp qb;                         /* b: the receiving QP, attached to the XRQ */
    uint32_t xrqn;
    uint64_t wq, wq_dbr;
    uint16_t srq_pi;
} Tm;

static int create_xrq(TDrv *d, uint32_t pd, uint32_t cqn, unsigned topology, unsigned log_list,
                      uint64_t wq, uint64_t dbr, uint32_t inlen, uint32_t *xrqn)
{
    g_autofree uint8_t *in = g_malloc0(CREATE_XRQ_PAS_OFF + 8);
    uint8_t *xrqc = in + CREATE_XRQ_XRQC_OFF, *w = in + CREATE_XRQ_WQ_OFF, out[16];
    int r;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_XRQ);
    MLX5_SET(xrqc, XRQC_topology, topology);
    MLX5_SET(xrqc, XRQC_offload, MLX5_XRQC_OFFLOAD_RNDV);
    MLX5_SET(xrqc, XRQC_user_index, 0x77);
    MLX5_SET(xrqc, XRQC_cqn, cqn);
    MLX5_SET(xrqc, XRQC_log_matching_list_sz, log_list);
    MLX5_SET(w, WQ_pd, pd);
    MLX5_SET64(w, WQ_dbr_addr_OFF, dbr);
    MLX5_SET(w, WQ_log_wq_stride, 5);
    MLX5_SET(w, WQ_log_wq_sz, LOG_XRQ);
    mlx5_st64(in + CREATE_XRQ_PAS_OFF, wq);
    r = tdrv_exec(d, in, inlen, out, sizeof(out));
    if (!r) {
        *xrqn = MLX5_GET(out, ALLOC_OUT_handle);
    }
    return r;
}

static void tm_setup(Tm *t)
{
    memset(t, 0, sizeof(*t));
    t->a = new_node(1);
    t->b = new_node(2);
    tqp_create(&t->qa, t->a, MLX5_QP_ST_RC, 1);
    tqp_create(&t->qx, t->b, MLX5_QP_ST_RC, 5);
    t->wq = fake_alloc(t->b->h, 4096, 4096);
    t->wq_dbr = fake_alloc(t->b->h, 64, 64);
    g_assert_cmpint(create_xrq(t->b, t->qx.pd, t->qx.cqn, MLX5_XRQC_TOPOLOGY_TAG_MATCHING, 4,
                               t->wq, t->wq_dbr, CREATE_XRQ_PAS_OFF + 8, &t->xrqn), ==, 0);
    tqp_create_on(&t->qc, t->b, MLX5_QP_ST_RC, 3, t->xrqn, t->qx.pd);
    tqp_connect(&t->qc, tdrv_lid(t->b), t->qc.qpn, 0);
    tqp_create_ex(&t->qb, t->b, MLX5_QP_ST_RC, 4, t->xrqn, t->qx.pd, TQP_NO_SQ | TQP_RNDV);
    tqp_connect(&t->qa, tdrv_lid(t->b), t->qb.qpn, 0);
    tqp_connect(&t->qb, tdrv_lid(t->a), t->qa.qpn, 0);
}

static void tm_free(Tm *t)
{
    tdrv_free(t->a);
    tdrv_free(t->b);
}

/* One list operation on the command QP (libmlx5's mlx5_post_srq_ops). */
static void tm_op(Tm *t, unsigned op, uint8_t flags, uint16_t index, uint16_t sw_cnt,
                  uint64_t tag, uint32_t len, uint64_t addr)
{
    uint8_t segs[48] = { 0 };

    segs[0] = op << 4;
    segs[1] = flags;
    mlx5_st16(segs + 2, index);
    mlx5_st16(segs + 6, sw_cnt);
    mlx5_st64(segs + 16, tag);
    mlx5_st64(segs + 24, MASK);
    data_seg(segs + 32, len, t->qx.key, addr);
    tqp_post_send(&t->qc, MLX5_OPCODE_TAG_MATCHING, 0, segs,
                  op == MLX5_TM_OPCODE_APPEND ? 3 : 2, false, true);
    run_pair(t->a, t->b, 50);
}

/* The next CQE of the XRQ's CQ: tag matching, @opcode and @app_op; returns app_info. */
static uint16_t tm_cqe(Tm *t, uint8_t *cqe, uint8_t opcode, uint8_t app_op)
{
    g_assert_true(tqp_poll(&t->qx, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, opcode);
    g_assert_cmpuint(cqe[MLX5_CQE_app], ==, MLX5_CQE_APP_TAG_MATCHING);
    g_assert_cmphex(cqe[MLX5_CQE_app_op], ==, app_op);
    g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_srqn_uidx), ==, 0x77);
    g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_flags_rqpn) >> 28, ==, 0);  /* no GRH flag */
    return mlx5_ld16(cqe + MLX5_CQE_app_info);
}

/* An ADD as libmlx5 makes it (signaled): the entry goes to the device's append index. */
static uint16_t tm_add(Tm *t, uint16_t next, uint16_t sw_cnt, bool sync, uint64_t tag,
                       uint32_t len, uint64_t addr, uint16_t hw_phase)
{
    uint8_t cqe[64];
    uint16_t slot;

    tm_op(t, MLX5_TM_OPCODE_APPEND, MLX5_TM_FLAG_CQE_REQ | (sync ? MLX5_TM_FLAG_SW_CNT : 0),
          next, sw_cnt, tag, len, addr);
    slot = tm_cqe(t, cqe, MLX5_CQE_NO_PACKET, MLX5_CQE_APP_OP_TM_APPEND);
    g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_tm_success), ==, 1u << 31);
    g_assert_cmpuint(mlx5_ld16(cqe + MLX5_CQE_tm_hw_phase_cnt), ==, hw_phase);
    return slot;
}

/* The sender's message: a TMH (@op, @tag), then @len bytes of pattern (at qa.mem + 0x100). */
static void tm_send(Tm *t, uint8_t op, uint64_t tag, uint32_t len, unsigned seed)
{
    uint8_t tmh[16] = { 0 }, segs[16];

    tmh[0] = op;
    mlx5_st32(tmh + 4, 0xc0ffee);
    mlx5_st64(tmh + 8, tag);
    fake_write(t->a->h, t->qa.mem, tmh, 16);
    tqp_pattern(t->a, t->qa.mem + 16, len, seed);
    data_seg(segs, 16 + len, t->qa.key, t->qa.mem);
    tqp_post_send(&t->qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(t->a, t->b, 3000);
}

/* Post SRQ WQE @i of the XRQ (a linked list, 32-byte WQEs) for @len bytes at @addr. */
static void tm_post_srq(Tm *t, uint32_t len, uint64_t addr)
{
    uint8_t wqe[32] = { 0 }, dbr[4];
    uint16_t i = t->srq_pi++;

    mlx5_st16(wqe + 2, (i + 1) & ((1u << LOG_XRQ) - 1));
    data_seg(wqe + 16, len, t->qx.key, addr);
    fake_write(t->b->h, t->wq + 32 * (i & ((1u << LOG_XRQ) - 1)), wqe, 32);
    mlx5_st32(dbr, t->srq_pi);
    fake_write(t->b->h, t->wq_dbr, dbr, 4);
}

static void test_caps_and_create(void)
{
    Tm t;
    uint8_t out[HCA_CAP_OFF + HCA_CAP_SIZE], q[CREATE_XRQ_WQ_OFF + 64];
    const uint8_t *cap = out + HCA_CAP_OFF;
    uint32_t xrqn;

    tm_setup(&t);
    /* what mlx5_ib's query_device turns into tm_caps (RC rendezvous, 127 tags) */
    g_assert_cmpint(tdrv_simple(t.b, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CAP_GENERAL << 1, 0, 0,
                                out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(cap, CAP_tag_matching), ==, 1);
    g_assert_cmpuint(MLX5_GET(cap, CAP_rndv_offload_rc), ==, 1);
    g_assert_cmpuint(MLX5_GET(cap, CAP_log_tag_matching_list_sz), ==, 7);
    /* refused: no tag-matching topology, a list beyond the cap, a short input */
    g_assert_cmpint(create_xrq(t.b, t.qx.pd, t.qx.cqn, 0, 4, t.wq, t.wq_dbr,
                               CREATE_XRQ_PAS_OFF + 8, &xrqn), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(create_xrq(t.b, t.qx.pd, t.qx.cqn, 1, 8, t.wq, t.wq_dbr,
                               CREATE_XRQ_PAS_OFF + 8, &xrqn), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(create_xrq(t.b, t.qx.pd, t.qx.cqn, 1, 4, t.wq, t.wq_dbr,
                               CREATE_XRQ_PAS_OFF, &xrqn), ==, MLX5_CMD_STAT_BAD_INP_LEN_ERR);
    /* QUERY_XRQ reports the list and the phases */
    tm_add(&t, 1, 0, false, 5, 64, t.qx.mem, 0);
    g_assert_cmpint(tdrv_simple(t.b, MLX5_CMD_OP_QUERY_XRQ, 0, t.xrqn, 0, q, sizeof(q)), ==, 0);
    g_assert_cmpuint(MLX5_GET(q + CREATE_XRQ_XRQC_OFF, XRQC_topology), ==, 1);
    g_assert_cmpuint(MLX5_GET(q + CREATE_XRQ_XRQC_OFF, XRQC_log_matching_list_sz), ==, 4);
    g_assert_cmpuint(MLX5_GET(q + CREATE_XRQ_XRQC_OFF, XRQC_append_next_index), ==, 1);
    g_assert_cmpuint(MLX5_GET(q + CREATE_XRQ_WQ_OFF, WQ_log_wq_sz), ==, LOG_XRQ);
    /* an XRQ in use cannot go; QUERY_RMP does not know it */
    g_assert_cmpint(tdrv_simple(t.b, MLX5_CMD_OP_DESTROY_XRQ, 0, t.xrqn, 0, out, 16), ==,
                    MLX5_CMD_STAT_RES_BUSY);
    g_assert_cmpint(tdrv_simple(t.b, MLX5_CMD_OP_QUERY_RMP, 0, t.xrqn, 0, q, sizeof(q)), ==,
                    MLX5_CMD_STAT_BAD_RES_ERR);
    tm_free(&t);
}

/*
 * Eager messages: matched into the tag's buffer (TMH stripped, one completion, the entry used
 * up), unexpected into the SRQ (whole message, the hardware's phase counts it), entries added
 * out of phase never match, a SYNC brings the phases together; NO_TAG; REMOVE.
 */
static void test_eager_unexpected_sync(void)
{
    Tm t;
    uint8_t cqe[64], buf[16];
    uint16_t s5, s7;

    tm_setup(&t);
    s5 = tm_add(&t, 1, 0, false, 5, 0x400, t.qx.mem, 0);
    s7 = tm_add(&t, 2, 0, false, 7, 0x400, t.qx.mem + 0x1000, 0);
    g_assert_cmpuint(s5, ==, 0);
    g_assert_cmpuint(s7, ==, 1);

    /* matched: the payload after the TMH, CONSUMED_MSG with the TMH and the entry */
    tm_send(&t, MLX5_TMH_EAGER, 0x10007, 300, 1);       /* (bits beyond the mask differ) */
    g_assert_cmpuint(tm_cqe(&t, cqe, MLX5_CQE_RESP_SEND, MLX5_CQE_APP_OP_TM_CONSUMED_MSG), ==,
                     s7);
    g_assert_cmphex(mlx5_ld64(cqe + 8), ==, 0x10007);
    g_assert_cmphex(mlx5_ld32(cqe + 4), ==, 0xc0ffee);
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 300);
    g_assert_true(tqp_same(t.a, t.qa.mem + 16, t.b, t.qx.mem + 0x1000, 300));
    g_assert_true(tqp_poll(&t.qa, cqe));                 /* the sender's SEND is done */
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);

    /* the same tag again: the entry was used up, so it is unexpected (SRQ WQE 0) */
    tm_post_srq(&t, 0x800, t.qx.mem + 0x8000);
    tm_post_srq(&t, 0x800, t.qx.mem + 0x9000);
    tm_post_srq(&t, 0x800, t.qx.mem + 0xa000);
    tm_send(&t, MLX5_TMH_EAGER, 7, 200, 2);
    tm_cqe(&t, cqe, MLX5_CQE_RESP_SEND, MLX5_CQE_APP_OP_TM_UNEXPECTED);
    g_assert_cmpuint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, 0);
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 216);
    g_assert_cmphex(mlx5_ld64(cqe + 8), ==, 0);
    g_assert_true(tqp_same(t.a, t.qa.mem, t.b, t.qx.mem + 0x8000, 216));  /* TMH included */
    g_assert_true(tqp_poll(&t.qa, cqe));

    /* added while the software has not seen that unexpected one: never matched */
    g_assert_cmpuint(tm_add(&t, 3, 0, false, 9, 0x400, t.qx.mem + 0x2000, 1), ==, 2);
    tm_send(&t, MLX5_TMH_EAGER, 9, 100, 3);
    tm_cqe(&t, cqe, MLX5_CQE_RESP_SEND, MLX5_CQE_APP_OP_TM_UNEXPECTED);
    g_assert_cmpuint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, 1);
    g_assert_true(tqp_poll(&t.qa, cqe));
    /* SYNC with both unexpected counted; an entry added now matches */
    tm_op(&t, MLX5_TM_OPCODE_NOP, MLX5_TM_FLAG_CQE_REQ | MLX5_TM_FLAG_SW_CNT, 0, 2, 0, 0, 0);
    tm_cqe(&t, cqe, MLX5_CQE_NO_PACKET, MLX5_CQE_APP_OP_TM_NOOP);
    g_assert_cmpuint(tm_add(&t, 4, 2, true, 9, 0x400, t.qx.mem + 0x3000, 2), ==, 3);
    tm_send(&t, MLX5_TMH_EAGER, 9, 120, 4);
    g_assert_cmpuint(tm_cqe(&t, cqe, MLX5_CQE_RESP_SEND, MLX5_CQE_APP_OP_TM_CONSUMED_MSG), ==,
                     3);
    g_assert_true(tqp_same(t.a, t.qa.mem + 16, t.b, t.qx.mem + 0x3000, 120));
    g_assert_true(tqp_poll(&t.qa, cqe));

    /* NO_TAG: to the SRQ, whatever its tag, without counting as unexpected */
    tm_send(&t, MLX5_TMH_NO_TAG, 5, 64, 5);
    tm_cqe(&t, cqe, MLX5_CQE_RESP_SEND, MLX5_CQE_APP_OP_TM_NO_TAG);
    g_assert_cmpuint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, 2);
    g_assert_true(tqp_same(t.a, t.qa.mem, t.b, t.qx.mem + 0xa000, 80));
    g_assert_true(tqp_poll(&t.qa, cqe));

    /* REMOVE: the entry of tag 5 goes (success), a second REMOVE of it fails */
    tm_op(&t, MLX5_TM_OPCODE_REMOVE, MLX5_TM_FLAG_CQE_REQ, s5, 0, 0, 0, 0);
    tm_cqe(&t, cqe, MLX5_CQE_NO_PACKET, MLX5_CQE_APP_OP_TM_REMOVE);
    g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_tm_success), ==, 1u << 31);
    g_assert_cmpuint(mlx5_ld16(cqe + MLX5_CQE_tm_hw_phase_cnt), ==, 2);
    tm_op(&t, MLX5_TM_OPCODE_REMOVE, MLX5_TM_FLAG_CQE_REQ, s5, 0, 0, 0, 0);
    tm_cqe(&t, cqe, MLX5_CQE_NO_PACKET, MLX5_CQE_APP_OP_TM_REMOVE);
    g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_tm_success), ==, 0);
    /* an unsignaled op completes nothing */
    tm_op(&t, MLX5_TM_OPCODE_NOP, 0, 0, 0, 0, 0, 0);
    g_assert_false(tqp_poll(&t.qx, cqe));
    fake_read(t.b->h, t.qx.mem + 0x8000, buf, 16);
    g_assert_cmpuint(buf[0], ==, MLX5_TMH_EAGER);
    tm_free(&t);
}

/*
 * Rendezvous: the device reads the sender's data into the tag's buffer on the receiving QP
 * (CONSUMED, then EXPECTED) and sends the FIN; with a buffer too small, the software finishes
 * it (CONSUMED_MSG_SW_RDNV, the headers in the buffer).
 */
static void test_rndv(void)
{
    Tm t;
    uint8_t cqe[64], hdr[32] = { 0 }, segs[16], fin[16];
    uint16_t slot;

    tm_setup(&t);
    slot = tm_add(&t, 1, 0, false, 11, 0x2000, t.qx.mem + 0x4000, 0);
    tqp_pattern(t.a, t.qa.mem + 0x10000, 0x1800, 6);
    tqp_post_recv(&t.qa, 64, t.qa.mem + 0x20000);        /* for the FIN */
    hdr[0] = MLX5_TMH_RNDV;
    mlx5_st32(hdr + 4, 0xabc);
    mlx5_st64(hdr + 8, 11);
    mlx5_st64(hdr + 16, t.qa.mem + 0x10000);
    mlx5_st32(hdr + 24, t.qa.key);
    mlx5_st32(hdr + 28, 0x1800);
    fake_write(t.a->h, t.qa.mem, hdr, 32);
    data_seg(segs, 32, t.qa.key, t.qa.mem);
    tqp_post_send(&t.qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(t.a, t.b, 5000);
    g_assert_cmpuint(tm_cqe(&t, cqe, MLX5_CQE_NO_PACKET, MLX5_CQE_APP_OP_TM_CONSUMED), ==,
                     slot);
    g_assert_cmphex(mlx5_ld64(cqe + 8), ==, 11);
    g_assert_cmpuint(tm_cqe(&t, cqe, MLX5_CQE_RESP_SEND, MLX5_CQE_APP_OP_TM_EXPECTED), ==,
                     slot);
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 0x1800);
    g_assert_true(tqp_same(t.a, t.qa.mem + 0x10000, t.b, t.qx.mem + 0x4000, 0x1800));
    g_assert_false(tqp_poll(&t.qx, cqe));                /* no requester CQE for the device's */
    /* the sender: its SEND done, then the FIN (a SEND of the TMH, opcode FIN) */
    g_assert_true(tqp_poll(&t.qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_poll(&t.qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 16);
    fake_read(t.a->h, t.qa.mem + 0x20000, fin, 16);
    g_assert_cmpuint(fin[0], ==, MLX5_TMH_FIN);
    g_assert_cmphex(mlx5_ld64(fin + 8), ==, 11);
    g_assert_cmphex(mlx5_ld32(fin + 4), ==, 0xabc);

    /* 0x1800 bytes for a buffer of 0x100: the headers land there, the software reads */
    slot = tm_add(&t, 2, 0, false, 12, 0x100, t.qx.mem + 0x7000, 0);
    mlx5_st64(hdr + 8, 12);
    fake_write(t.a->h, t.qa.mem, hdr, 32);
    tqp_post_send(&t.qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(t.a, t.b, 3000);
    g_assert_cmpuint(tm_cqe(&t, cqe, MLX5_CQE_RESP_SEND,
                            MLX5_CQE_APP_OP_TM_CONSUMED_MSG_SW_RDNV), ==, slot);
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 32);
    g_assert_true(tqp_same(t.a, t.qa.mem, t.b, t.qx.mem + 0x7000, 32));
    tm_free(&t);
}

/* Hostile list operations: the QP fails them as a ConnectX does (local QP operation error). */
static void test_bad_ops(void)
{
    Tm t;
    TQp qn;
    uint8_t cqe[64], segs[32] = { 0 };

    tm_setup(&t);
    /* an index beyond the list */
    tm_op(&t, MLX5_TM_OPCODE_REMOVE, MLX5_TM_FLAG_CQE_REQ, 16, 0, 0, 0, 0);
    tqp_expect_req_err(&t.qc, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
    g_assert_false(tqp_poll(&t.qx, cqe));
    /* a list operation on a QP with no XRQ */
    tqp_create(&qn, t.b, MLX5_QP_ST_RC, 9);
    tqp_connect(&qn, tdrv_lid(t.b), qn.qpn, 0);
    segs[0] = MLX5_TM_OPCODE_NOP << 4;
    tqp_post_send(&qn, MLX5_OPCODE_TAG_MATCHING, 0, segs, 2, false, true);
    run_pair(t.b, NULL, 50);
    tqp_expect_req_err(&qn, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
    tm_free(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/xrq/caps-and-create", test_caps_and_create);
    g_test_add_func("/mlx5/xrq/eager-unexpected-sync", test_eager_unexpected_sync);
    g_test_add_func("/mlx5/xrq/rndv", test_rndv);
    g_test_add_func("/mlx5/xrq/bad-ops", test_bad_ops);
    return g_test_run();
}
