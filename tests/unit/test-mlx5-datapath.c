/*
 * Unit tests of the mlx5 data path: two device cores (each with the mini driver and fake guest
 * memory) linked in-process. The test posts WQEs the way libmlx5 does (ring buffers, doorbell
 * records, UAR doorbells) and checks CQEs and memory.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-test.h"
#include "mlx5_internal.h"

#include "mlx5-testqp.h"
#include "hw/rdma/mlx5/mlx5_eth_prm.h"

static void test_rc_send(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    TQp qa, qb;
    uint8_t segs[32], cqe[64];
    static const uint32_t sizes[] = { 0, 100, 10000 };

    tqp_create(&qa, a, MLX5_QP_ST_RC, 0x777);
    tqp_create(&qb, b, MLX5_QP_ST_RC, 0x888);
    tqp_connect(&qa, b->c->cfg.lid, qb.qpn, 0);
    tqp_connect(&qb, a->c->cfg.lid, qa.qpn, 0);
    for (unsigned i = 0; i < 3; i++) {
        uint64_t src = qa.mem + i * 0x10000, dst = qb.mem + i * 0x10000;
        uint16_t idx;
        tqp_pattern(a, src, 20000, i);
        tqp_post_recv(&qb, 20000, dst);
        /* two SGEs: the payload is gathered in order */
        data_seg(segs, sizes[i] / 3, qa.key, src);
        data_seg(segs + 16, sizes[i] - sizes[i] / 3, qa.key, src + sizes[i] / 3);
        idx = tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 2, true, true);
        run_pair(a, b, 1000);
        g_assert_true(tqp_poll(&qa, cqe));
        g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
        g_assert_cmpuint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, idx);
        g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_sop_drop_qpn), ==,
                        (MLX5_OPCODE_SEND << 24) | qa.qpn);
        g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_srqn_uidx), ==, 0x777);
        g_assert_true(tqp_poll(&qb, cqe));
        g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
        g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, sizes[i]);
        g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_srqn_uidx), ==, 0x888);
        g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_flags_rqpn) & 0xffffff, ==, qa.qpn);
        g_assert_cmphex(mlx5_ld16(cqe + MLX5_CQE_slid), ==, a->c->cfg.lid);
        g_assert_cmpuint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, i);
        g_assert_true(tqp_same(a, src, b, dst, sizes[i]));
    }
    /* the CQs were armed: completion events reached the EQs' vectors */
    g_assert_cmpuint(a->h->irqs[1], >=, 1);
    g_assert_cmpuint(b->h->irqs[1], >=, 1);
    tdrv_free(a);
    tdrv_free(b);
}

static void test_rc_write_read_atomic(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    TQp qa, qb;
    uint8_t segs[48], cqe[64], v[8];
    uint32_t rkey;
    uint64_t val;

    tqp_rc_pair(&qa, a, &qb, b);
    /* b exposes a user MR at a virtual address (MTT) */
    rkey = create_mtt_mkey(b, qb.pd, 0x7f0000001000ull, 0x40000, qb.mem, true);
    tqp_pattern(a, qa.mem, 0x20000, 7);
    raddr_seg(segs, 0x7f0000001000ull + 0x100, rkey);
    data_seg(segs + 16, 0x20000, qa.key, qa.mem);
    tqp_post_send(&qa, MLX5_OPCODE_RDMA_WRITE, 0, segs, 2, true, true);
    /* read it back into another buffer */
    raddr_seg(segs, 0x7f0000001000ull + 0x100, rkey);
    data_seg(segs + 16, 0x20000, qa.key, qa.mem + 0x40000);
    tqp_post_send(&qa, MLX5_OPCODE_RDMA_READ, 0, segs, 2, true, true);
    /* fetch-and-add on a counter in the MR */
    mlx5_st64(v, 0);
    v[0] = 5;                                   /* little-endian 5 */
    fake_write(b->h, qb.mem + 0x30000, v, 8);
    raddr_seg(segs, 0x7f0000001000ull + 0x30000, rkey);
    memset(segs + 16, 0, 16);
    mlx5_st64(segs + 16, 10);                   /* add */
    data_seg(segs + 32, 8, qa.key, qa.mem + 0x80000);
    tqp_post_send(&qa, MLX5_OPCODE_ATOMIC_FA, 0, segs, 3, true, true);
    run_pair(a, b, 5000);
    for (int i = 0; i < 3; i++) {
        g_assert_true(tqp_poll(&qa, cqe));
        g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    }
    g_assert_true(tqp_same(a, qa.mem, b, qb.mem + 0x100, 0x20000));
    g_assert_true(tqp_same(a, qa.mem, a, qa.mem + 0x40000, 0x20000));
    fake_read(a->h, qa.mem + 0x80000, v, 8);
    g_assert_cmpuint(v[0], ==, 5);              /* the original value comes back */
    fake_read(b->h, qb.mem + 0x30000, v, 8);
    val = v[0] | ((uint64_t)v[1] << 8);
    g_assert_cmpuint(val, ==, 15);
    g_assert_false(tqp_poll(&qb, cqe));         /* no receive completions on b */
    tdrv_free(a);
    tdrv_free(b);
}

static void test_ud_send(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    TQp qa, qb;
    uint8_t segs[64], cqe[64];

    tqp_create(&qa, a, MLX5_QP_ST_UD, 1);
    tqp_create(&qb, b, MLX5_QP_ST_UD, 2);
    tqp_connect(&qa, 0, 0, 0x11111111);
    tqp_connect(&qb, 0, 0, 0x11111111);
    tqp_pattern(a, qa.mem, 2048, 1);
    tqp_post_recv(&qb, 4096, qb.mem);
    memset(segs, 0, 48);
    mlx5_st32(segs, 0x11111111);                               /* Q_Key */
    mlx5_st32(segs + 8, MLX5_EXTENDED_UD_AV | qb.qpn);
    mlx5_st16(segs + 14, b->c->cfg.lid);
    data_seg(segs + 48, 2048, qa.key, qa.mem);
    tqp_post_send(&qa, MLX5_OPCODE_SEND_IMM, 0x01020304, segs, 4, true, true);
    run_pair(a, b, 1000);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_poll(&qb, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND_IMM);
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, 2048 + 40);
    g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_imm_inval_pkey), ==, 0x01020304);
    g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_flags_rqpn) & 0xffffff, ==, qa.qpn);
    g_assert_true(tqp_same(a, qa.mem, b, qb.mem + 40, 2048));
    tdrv_free(a);
    tdrv_free(b);
}

/* Loopback: two QPs on one device talk to each other through the port. */
static void test_loopback_inline(void)
{
    TDrv *a = new_node(1);
    TQp q1, q2;
    uint8_t segs[64], cqe[64];
    const char msg[] = "inline payload through the loopback path";

    tqp_rc_pair(&q1, a, &q2, a);
    tqp_post_recv(&q2, 256, q2.mem);
    memset(segs, 0, sizeof(segs));
    mlx5_st32(segs, MLX5_INLINE_SEG | sizeof(msg));
    memcpy(segs + 4, msg, sizeof(msg));
    tqp_post_send(&q1, MLX5_OPCODE_SEND, 0, segs, (4 + sizeof(msg) + 15) / 16, true, true);
    run_pair(a, NULL, 1000);
    g_assert_true(tqp_poll(&q1, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_poll(&q2, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
    {
        char got[sizeof(msg)];
        fake_read(a->h, q2.mem, got, sizeof(got));
        g_assert_cmpstr(got, ==, msg);
    }
    tdrv_free(a);
}

/*
 * Loopback of messages longer than the loopback ring (IB_LOOPBACK_FRAMES packets): the sender is
 * paced by the ring instead of overrunning it, so nothing is lost and no retransmission timeout
 * is needed (the test never moves the clock). Found by tests/qtest: a 100 KB SEND to the device's own LID
 * lost every packet past the 64th and waited a 67 ms timeout.
 */
static void test_loopback_long(void)
{
    TDrv *a = new_node(1);
    TQp q1, q2;
    uint8_t segs[32], cqe[64];
    const uint32_t len = 300000;       /* 293 packets of 1 KiB */

    tqp_rc_pair(&q1, a, &q2, a);
    tqp_pattern(a, q1.mem, len, 4);
    tqp_post_recv(&q2, len, q2.mem);
    data_seg(segs, len, q1.key, q1.mem);
    tqp_post_send(&q1, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    raddr_seg(segs, q2.mem + len, q2.key);
    data_seg(segs + 16, len, q1.key, q1.mem);
    tqp_post_send(&q1, MLX5_OPCODE_RDMA_WRITE, 0, segs, 2, true, true);
    /* run as QEMU's bottom half does (budget 256, more than the ring), never moving the clock */
    for (unsigned n = 0; n < 100000 && mlx5_core_run(a->c, 256); n++) {
    }
    g_assert_true(tqp_poll(&q1, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_poll(&q1, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_poll(&q2, cqe));
    g_assert_cmpuint(mlx5_ld32(cqe + MLX5_CQE_byte_cnt), ==, len);
    g_assert_true(tqp_same(a, q1.mem, a, q2.mem, len));
    g_assert_true(tqp_same(a, q1.mem, a, q2.mem + len, len));
    g_assert_cmpuint(a->c->ib.stat_rx_drop, ==, 0);
    tdrv_free(a);
}

/* A bad lkey: LOCAL_PROT error CQE, the QP goes to error, later WQEs flush */
static void test_local_error_and_flush(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    TQp qa, qb;
    uint8_t segs[16], cqe[64], out[QP_QPC_OFF + MLX5_QPC_SIZE];
    uint16_t i1, i2;

    tqp_rc_pair(&qa, a, &qb, b);
    tqp_post_recv(&qb, 4096, qb.mem);
    data_seg(segs, 64, 0xdead00, qa.mem);
    i1 = tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, false);
    data_seg(segs, 64, qa.key, qa.mem);
    i2 = tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, false, true);  /* unsignaled */
    run_pair(a, b, 1000);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    g_assert_cmphex(cqe[MLX5_CQE_syndrome], ==, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
    g_assert_cmpuint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, i1);
    /* flushed even though unsignaled */
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    g_assert_cmphex(cqe[MLX5_CQE_syndrome], ==, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
    g_assert_cmpuint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, i2);
    g_assert_cmpint(tdrv_simple(a, MLX5_CMD_OP_QUERY_QP, 0, qa.qpn, 0, out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(out + QP_QPC_OFF, QPC_state), ==, MLX5_QP_STATE_ERR);
    /* a receive posted in error is flushed by polling (drain) */
    tqp_post_recv(&qa, 64, qa.mem);
    run_pair(a, b, 1000);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_RESP_ERR);
    g_assert_cmphex(cqe[MLX5_CQE_syndrome], ==, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
    tdrv_free(a);
    tdrv_free(b);
}

/* Remote access error: the requester gets REMOTE_ACCESS_ERR, the responder an async event */
static void test_remote_access_error(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    TQp qa, qb;
    uint8_t segs[32], cqe[64], eqe[64];
    uint32_t rkey;

    tqp_rc_pair(&qa, a, &qb, b);
    rkey = create_mtt_mkey(b, qb.pd, 0x1000, 0x1000, qb.mem, false);   /* local only */
    raddr_seg(segs, 0x1000, rkey);
    data_seg(segs + 16, 64, qa.key, qa.mem);
    tqp_post_send(&qa, MLX5_OPCODE_RDMA_WRITE, 0, segs, 2, true, true);
    run_pair(a, b, 1000);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    g_assert_cmphex(cqe[MLX5_CQE_syndrome], ==, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
    tdrv_eqe(b, b->async_eq_pa, 0, eqe);
    g_assert_cmpuint(eqe[MLX5_EQE_type], ==, MLX5_EVENT_TYPE_WQ_ACCESS_ERROR);
    g_assert_cmphex(mlx5_ld32(eqe + MLX5_EQE_qp_srq_n) & 0xffffff, ==, qb.qpn);
    tdrv_free(a);
    tdrv_free(b);
}

/* A doorbell record claiming more WQEs than the ring holds: QP fatal, no runaway */
static void test_bad_doorbell_record(void)
{
    TDrv *a = new_node(1);
    TQp q;
    uint8_t dbr[4], eqe[64];

    tqp_create(&q, a, MLX5_QP_ST_RC, 1);
    tqp_connect(&q, a->c->cfg.lid, q.qpn, 0);
    mlx5_st32(dbr, 0x8000);
    fake_write(a->h, q.dbr + 4, dbr, 4);
    mlx5_core_mmio_write(a->c, ((uint64_t)a->uar << 12) + 0x800, (uint64_t)q.qpn << 8 | 1, 8);
    run_pair(a, NULL, 100);
    tdrv_eqe(a, a->async_eq_pa, 0, eqe);
    g_assert_cmpuint(eqe[MLX5_EQE_type], ==, MLX5_EVENT_TYPE_WQ_CATAS_ERROR);
    g_assert_cmpuint(trace_count("mlx5_err_sq_counter"), >=, 1);
    tdrv_free(a);
}

/* Two ports with the same LID: both see the clash, leave ACTIVE, and recover once it ends */
static void test_lid_clash(void)
{
    TDrv *a = new_node(7), *b = new_node(7);    /* same MAC: same LID and GUID */
    uint8_t mad[MLX5_MAD_SIZE], eqe[64];

    run_pair(a, b, 10);
    g_assert_cmpuint(trace_count("mlx5_err_port_clash"), >=, 2);
    g_assert_cmpint(tdrv_mad(a, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO, 1, mad), ==, 0);
    g_assert_cmpuint(mad[IB_SMP_data + 32] & 0xf, ==, IB_PORT_STATE_INIT);
    tdrv_eqe(a, a->async_eq_pa, 0, eqe);
    g_assert_cmpuint(eqe[MLX5_EQE_type], ==, MLX5_EVENT_TYPE_PORT_CHANGE);
    g_assert_cmpuint(eqe[MLX5_EQE_sub_type], ==, MLX5_PORT_CHANGE_SUBTYPE_DOWN);
    /* b leaves the fabric (link down): a's port comes back after the hold time */
    mlx5_core_link_set_up(b->c, 1, false);
    for (int i = 0; i < 10; i++) {
        a->h->now += IB_ANNOUNCE_PERIOD_NS;
        mlx5_core_expire(a->c, a->h->now);
        run_pair(a, NULL, 10);
    }
    g_assert_cmpint(tdrv_mad(a, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO, 1, mad), ==, 0);
    g_assert_cmpuint(mad[IB_SMP_data + 32] & 0xf, ==, IB_PORT_STATE_ACTIVE);
    tdrv_eqe(a, a->async_eq_pa, 1, eqe);
    g_assert_cmpuint(eqe[MLX5_EQE_sub_type], ==, MLX5_PORT_CHANGE_SUBTYPE_ACTIVE);
    tdrv_free(a);
    tdrv_free(b);
}

/* SRQ: linked-list consumption, WQE index in the CQE, limit event, last-WQE-reached */
static void test_srq_limit_and_last_wqe(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    uint8_t in[MLX5_PAS_OFF + 8] = { 0 }, out[16], cqe[64], eqe[64], segs[16], dbr[4];
    uint8_t *srqc = in + CREATE_SRQ_SRQC_OFF;
    uint64_t srq_buf = fake_alloc(b->h, 4096, 4096), srq_dbr = fake_alloc(b->h, 64, 64);
    uint32_t pd = tdrv_alloc_pd(b), srqn, i;
    TQp qa, qb;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_SRQ);
    MLX5_SET(srqc, SRQC_log_srq_size, 3);
    MLX5_SET(srqc, SRQC_log_rq_stride, 1);             /* 32-byte WQEs: next + 1 data seg */
    MLX5_SET(srqc, SRQC_pd, pd);
    MLX5_SET64(srqc, SRQC_dbr_addr_OFF, srq_dbr);
    mlx5_st64(in + MLX5_PAS_OFF, srq_buf);
    g_assert_cmpint(tdrv_exec(b, in, sizeof(in), out, sizeof(out)), ==, 0);
    srqn = MLX5_GET(out, ALLOC_OUT_handle);
    tqp_create(&qa, a, MLX5_QP_ST_RC, 1);
    tqp_create_on(&qb, b, MLX5_QP_ST_RC, 0x55, srqn, pd);
    tqp_connect(&qa, b->c->cfg.lid, qb.qpn, 0);
    tqp_connect(&qb, a->c->cfg.lid, qa.qpn, 0);
    /* free list 0 -> 1 -> ... -> 7; four WQEs posted */
    for (i = 0; i < 8; i++) {
        uint8_t w[32] = { 0 };
        mlx5_st16(w + 2, (i + 1) % 8);
        data_seg(w + 16, 256, qb.key, qb.mem + i * 256);
        fake_write(b->h, srq_buf + i * 32, w, 32);
    }
    mlx5_st32(dbr, 4);
    fake_write(b->h, srq_dbr, dbr, 4);
    g_assert_cmpint(tdrv_simple(b, MLX5_CMD_OP_ARM_RQ, 1, srqn, 3, out, 16), ==, 0);
    for (i = 0; i < 2; i++) {
        tqp_pattern(a, qa.mem, 100, i);
        data_seg(segs, 100, qa.key, qa.mem);
        tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
        run_pair(a, b, 1000);
        g_assert_true(tqp_poll(&qb, cqe));
        g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
        g_assert_cmpuint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, i);    /* SRQ WQE index */
        g_assert_cmphex(mlx5_ld32(cqe + MLX5_CQE_srqn_uidx), ==, 0x55);
        g_assert_true(tqp_same(a, qa.mem, b, qb.mem + i * 256, 100));
    }
    /* 2 left < limit 3: SRQ_RQ_LIMIT, once */
    tdrv_eqe(b, b->async_eq_pa, 0, eqe);
    g_assert_cmpuint(eqe[MLX5_EQE_type], ==, MLX5_EVENT_TYPE_SRQ_RQ_LIMIT);
    g_assert_cmphex(mlx5_ld32(eqe + MLX5_EQE_qp_srq_n) & 0xffffff, ==, srqn);
    /* QP on the SRQ to error: last WQE reached */
    g_assert_cmpint(tdrv_modify_qp(b, MLX5_CMD_OP_2ERR_QP, qb.qpn, NULL, 0), ==, 0);
    run_pair(a, b, 100);
    tdrv_eqe(b, b->async_eq_pa, 1, eqe);
    g_assert_cmpuint(eqe[MLX5_EQE_type], ==, MLX5_EVENT_TYPE_SRQ_LAST_WQE);
    g_assert_cmphex(mlx5_ld32(eqe + MLX5_EQE_qp_srq_n) & 0xffffff, ==, qb.qpn);
    tdrv_free(a);
    tdrv_free(b);
}

/* MODIFY_CQ: resize with CQEs outstanding (the RESIZE CQE ends the old buffer, later CQEs go
 * to the new one with its own owner-bit phase), moderation, and refused requests */
static int modify_cq(TDrv *d, uint32_t cqn, uint16_t op_mod, uint32_t select, unsigned log_size,
                     uint64_t buf, uint32_t npages, uint16_t period)
{
    uint32_t inlen = MLX5_PAS_OFF + 8 * npages;
    g_autofree uint8_t *in = g_malloc0(inlen);
    uint8_t *cqc = in + CREATE_CQ_CQC_OFF, out[16];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MODIFY_CQ);
    MLX5_SET(in, CMD_IN_op_mod, op_mod);
    mlx5_st32(in + 8, cqn);
    mlx5_st32(in + 12, select);
    MLX5_SET(cqc, CQC_log_cq_size, log_size);
    MLX5_SET(cqc, CQC_cq_period, period);
    for (uint32_t i = 0; i < npages; i++) {
        mlx5_st64(in + MLX5_PAS_OFF + 8 * i, buf + 4096 * i);
    }
    return tdrv_exec(d, in, inlen, out, sizeof(out));
}

static void test_cq_resize(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    TQp qa, qb;
    uint8_t segs[16], cqe[64], out[QUERY_CQ_OUT_SIZE] = { 0 }, in[16] = { 0 };
    uint64_t nbuf;
    unsigned i;

    tqp_create(&qa, a, MLX5_QP_ST_RC, 0x777);
    tqp_create(&qb, b, MLX5_QP_ST_RC, 0x888);
    tqp_connect(&qa, b->c->cfg.lid, qb.qpn, 0);
    tqp_connect(&qb, a->c->cfg.lid, qa.qpn, 0);
    for (i = 0; i < 3; i++) {           /* three send completions, not consumed */
        tqp_post_recv(&qb, 64, qb.mem);
        data_seg(segs, 16, qa.key, qa.mem);
        tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
        run_pair(a, b, 1000);
    }
    /* too small for what is outstanding, other op_mods and field selects: refused */
    nbuf = fake_alloc(a->h, 2 * 4096, 4096);
    g_assert_cmpint(modify_cq(a, qa.cqn, 1, 7, 1, nbuf, 1, 0), !=, 0);
    g_assert_cmpint(modify_cq(a, qa.cqn, 2, 7, 6, nbuf, 1, 0), !=, 0);
    g_assert_cmpint(modify_cq(a, qa.cqn, 1, 1, 6, nbuf, 1, 0), !=, 0);
    g_assert_cmpint(modify_cq(a, 0x7777, 1, 7, 6, nbuf, 1, 0), !=, 0);
    /* resize 128 -> 64 entries (one page) */
    g_assert_cmpint(modify_cq(a, qa.cqn, 1, 7, 6, nbuf, 1, 0), ==, 0);
    fake_read(a->h, qa.cq_buf + 3 * 64, cqe, 64);
    g_assert_cmpuint(cqe[63] >> 4, ==, 5);                 /* MLX5_CQE_RESIZE_CQ */
    g_assert_cmpuint(cqe[63] & 1, ==, 0);                  /* first pass of the old ring */
    /* the next completion: index 4 of the new buffer, owner bit of its first pass */
    tqp_post_recv(&qb, 64, qb.mem);
    tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(a, b, 1000);
    fake_read(a->h, nbuf + 4 * 64, cqe, 64);
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_cmpuint(cqe[63] & 1, ==, 0);
    g_assert_cmpuint(mlx5_ld16(cqe + MLX5_CQE_wqe_counter), ==, 3);
    /* the old three are still where the driver copies them from */
    fake_read(a->h, qa.cq_buf + 2 * 64, cqe, 64);
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    /* moderation is kept and reported; an unknown field select is refused */
    g_assert_cmpint(modify_cq(a, qa.cqn, 0, 1, 0, 0, 0, 16), ==, 0);
    g_assert_cmpint(modify_cq(a, qa.cqn, 0, 1u << 5, 0, 0, 0, 16), !=, 0);
    /* the period mode with them (mlx5e's ethtool -C): 1, from the first CQE; 2 is reserved */
    {
        uint8_t mi[MLX5_PAS_OFF] = { 0 }, mo[16];

        MLX5_SET(mi, CMD_IN_opcode, MLX5_CMD_OP_MODIFY_CQ);
        mlx5_st32(mi + 8, qa.cqn);
        mlx5_st32(mi + 12, 0x13);
        MLX5_SET(mi + CREATE_CQ_CQC_OFF, CQC_cq_period, 16);
        MLX5_SET(mi + CREATE_CQ_CQC_OFF, CQC_cq_period_mode, 2);
        g_assert_cmpint(tdrv_exec(a, mi, sizeof(mi), mo, sizeof(mo)), !=, 0);
        MLX5_SET(mi + CREATE_CQ_CQC_OFF, CQC_cq_period_mode, 1);
        g_assert_cmpint(tdrv_exec(a, mi, sizeof(mi), mo, sizeof(mo)), ==, 0);
    }
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_QUERY_CQ);
    mlx5_st32(in + 8, qa.cqn);
    g_assert_cmpint(tdrv_exec(a, in, sizeof(in), out, sizeof(out)), ==, 0);
    g_assert_cmpuint(MLX5_GET(out + CREATE_CQ_CQC_OFF, CQC_cq_period), ==, 16);
    g_assert_cmpuint(MLX5_GET(out + CREATE_CQ_CQC_OFF, CQC_cq_period_mode), ==, 1);
    g_assert_cmpuint(MLX5_GET(out + CREATE_CQ_CQC_OFF, CQC_log_cq_size), ==, 6);
    tdrv_free(a);
    tdrv_free(b);
}

/* ATTACH/DETACH_FROM_MCG: bad QPs and GIDs are refused with a status, not taken */
static int mcg(TDrv *d, uint16_t opcode, uint32_t qpn, const uint8_t *gid)
{
    uint8_t in[0x20] = { 0 }, out[16];

    MLX5_SET(in, CMD_IN_opcode, opcode);
    mlx5_st32(in + 8, qpn);
    memcpy(in + 0x10, gid, 16);
    return tdrv_exec(d, in, sizeof(in), out, sizeof(out));
}

/* one PerfMgt MAD through MAD_IFC; returns the MAD status, @data gets the attribute data */
static uint16_t pma(TDrv *d, uint8_t method, uint16_t attr, uint8_t port_select, uint8_t *data)
{
    uint8_t in[MAD_IFC_SIZE] = { 0 }, out[MAD_IFC_SIZE];
    uint8_t *mad = in + MAD_IFC_MAD_OFF;

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MAD_IFC);
    MLX5_SET(in, MAD_IFC_IN_port, 1);
    mad[IB_MAD_base_version] = 1;
    mad[IB_MAD_mgmt_class] = IB_MGMT_CLASS_PERF_MGMT;
    mad[IB_MAD_class_version] = 1;
    mad[IB_MAD_method] = method;
    mlx5_st16(mad + IB_MAD_attr_id, attr);
    mad[64 + 1] = port_select;
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, 0);
    memcpy(data, out + MAD_IFC_MAD_OFF + 64, 64);
    return mlx5_ld16(out + MAD_IFC_MAD_OFF + IB_MAD_status);
}

static void test_mcg_and_pma(void)
{
    static const uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
                                      0xff, 0xff, 0xff, 0xff };
    static const uint8_t ucast[16] = { 0xfe, 0x80 };
    TDrv *a = new_node(1), *b = new_node(2);
    TQp ud, qa, qb;
    uint8_t segs[16], cqe[64], d[64];

    tqp_create(&ud, a, MLX5_QP_ST_UD, 3);
    tqp_create(&qa, a, MLX5_QP_ST_RC, 1);
    tqp_create(&qb, b, MLX5_QP_ST_RC, 2);
    g_assert_cmpint(mcg(a, MLX5_CMD_OP_ATTACH_TO_MCG, ud.qpn, mgid), ==, 0);
    g_assert_cmpint(mcg(a, MLX5_CMD_OP_ATTACH_TO_MCG, ud.qpn, mgid), ==, 0);   /* twice */
    g_assert_cmpint(mcg(a, MLX5_CMD_OP_ATTACH_TO_MCG, ud.qpn, ucast), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(mcg(a, MLX5_CMD_OP_ATTACH_TO_MCG, qa.qpn, mgid), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);                           /* not UD */
    g_assert_cmpint(mcg(a, MLX5_CMD_OP_ATTACH_TO_MCG, 0x7777, mgid), ==,
                    MLX5_CMD_STAT_BAD_RES_ERR);
    g_assert_cmpint(mcg(a, MLX5_CMD_OP_DETACH_FROM_MCG, ud.qpn, ucast), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);                           /* not attached */
    g_assert_cmpint(mcg(a, MLX5_CMD_OP_DETACH_FROM_MCG, ud.qpn, mgid), ==, 0);
    g_assert_cmpint(mcg(a, MLX5_CMD_OP_DETACH_FROM_MCG, ud.qpn, mgid), ==,
                    MLX5_CMD_STAT_BAD_PARAM_ERR);

    /* PerfMgt: ClassPortInfo says PortCountersExtended; counters follow traffic; Set clears */
    g_assert_cmphex(pma(b, IB_MGMT_METHOD_GET, 0x0001, 0, d), ==, 0);
    g_assert_cmphex(mlx5_ld16(d + 2) & (1u << 9), !=, 0);
    g_assert_cmphex(pma(b, IB_MGMT_METHOD_SET, 0x001d, 1, d), ==, 0);        /* clear */
    tqp_connect(&qa, b->c->cfg.lid, qb.qpn, 0);
    tqp_connect(&qb, a->c->cfg.lid, qa.qpn, 0);
    tqp_post_recv(&qb, 4096, qb.mem);
    data_seg(segs, 4000, qa.key, qa.mem);
    tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(a, b, 1000);
    g_assert_true(tqp_poll(&qa, cqe));
    g_assert_cmphex(pma(b, IB_MGMT_METHOD_GET, 0x001d, 1, d), ==, 0);
    g_assert_cmpuint(mlx5_ld64(d + 32), >=, 1);                             /* PortRcvPkts */
    g_assert_cmpuint(mlx5_ld64(d + 16), >=, 4000 / 4);                      /* PortRcvData */
    g_assert_cmphex(pma(b, IB_MGMT_METHOD_GET, 0x0012, 1, d), ==, 0);
    g_assert_cmpuint(mlx5_ld32(d + 36), >=, 1);                             /* 32-bit form */
    g_assert_cmphex(pma(b, IB_MGMT_METHOD_SET, 0x0012, 1, d), ==, 0);
    g_assert_cmpuint(mlx5_ld32(d + 28), ==, 0);                             /* cleared */
    /* bad port, unknown attribute, Set of ClassPortInfo: MAD status, command OK */
    g_assert_cmphex(pma(b, IB_MGMT_METHOD_GET, 0x0012, 2, d), ==, 0x001c);
    g_assert_cmphex(pma(b, IB_MGMT_METHOD_GET, 0x0013, 1, d), ==, 0x000c);
    g_assert_cmphex(pma(b, IB_MGMT_METHOD_SET, 0x0001, 0, d), ==, 0x000c);
    tdrv_free(a);
    tdrv_free(b);
}

/* A node whose port has LMC 1: LIDs 2*last and 2*last + 1. */
static TDrv *new_lmc_node(uint8_t last)
{
    const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, last };
    Mlx5CoreConfig cfg;
    TDrv *d;

    mlx5_core_config_default(&cfg, mac);
    cfg.sm = false;
    cfg.lmc = 1;
    cfg.lid = 2 * last;
    g_assert_null(mlx5_core_config_check(&cfg));
    d = tdrv_new_cfg(&cfg);
    tdrv_bringup(d);
    return d;
}

/* PATH_MIG events for @qpn on the node's async EQ */
static unsigned path_mig_events(TDrv *d, uint32_t qpn)
{
    unsigned n = 0;
    uint8_t eqe[64];

    for (unsigned i = 0; i < (1u << 13); i++) {
        tdrv_eqe(d, d->async_eq_pa, i, eqe);
        n += eqe[MLX5_EQE_type] == MLX5_EVENT_TYPE_PATH_MIG &&
             (mlx5_ld32(eqe + MLX5_EQE_qp_srq_n) & 0xffffff) == qpn;
    }
    return n;
}

static uint8_t *query_qpc(TQp *q, uint8_t *out)
{
    g_assert_cmpint(tdrv_simple(q->d, MLX5_CMD_OP_QUERY_QP, 0, q->qpn, 0, out,
                                QP_QPC_OFF + MLX5_QPC_SIZE), ==, 0);
    return out + QP_QPC_OFF;
}

/* RTS2RTS loading an alternate path to @dlid (source path bits 1) and/or a PM state */
static int load_alt(TQp *q, uint16_t dlid, uint8_t port, int pm)
{
    uint8_t qpc[MLX5_QPC_SIZE] = { 0 };
    uint8_t *ads2 = qpc + QPC_ADS2_OFF;
    uint32_t optpar = 0;

    if (dlid) {
        MLX5_SET(ads2, ADS_rlid, dlid);
        MLX5_SET(ads2, ADS_mlid, 1);
        MLX5_SET(ads2, ADS_vhca_port_num, port);
        MLX5_SET(ads2, ADS_ack_timeout, 12);
        optpar |= MLX5_QP_OPTPAR_ALT_ADDR_PATH;
    }
    if (pm >= 0) {
        MLX5_SET(qpc, QPC_pm_state, pm);
        optpar |= MLX5_QP_OPTPAR_PM_STATE;
    }
    return tdrv_modify_qp(q->d, MLX5_CMD_OP_RTS2RTS_QP, q->qpn, qpc, optpar);
}

/* SEND @from -> @to; returns the responder CQE */
static void apm_send(TQp *from, TQp *to, uint8_t *cqe)
{
    uint8_t segs[16];

    tqp_post_recv(to, 4096, to->mem);
    data_seg(segs, 100, from->key, from->mem);
    tqp_post_send(from, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(from->d, to->d, 1000);
    g_assert_true(tqp_poll(from, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_poll(to, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
}

/* Alternate paths and path migration through the QP commands (apm cap, LMC 1 ports) */
static void test_apm(void)
{
    TDrv *a = new_lmc_node(1), *b = new_lmc_node(2);
    uint8_t out[QP_QPC_OFF + MLX5_QPC_SIZE], cqe[64], *qpc;
    TQp qa, qb;

    g_assert_cmpuint(MLX5_GET(a->c->cap_general_cur, CAP_apm), ==, 1);
    tqp_create(&qa, a, MLX5_QP_ST_RC, 1);
    tqp_create(&qb, b, MLX5_QP_ST_RC, 2);
    tqp_connect(&qa, 4, qb.qpn, 0);
    tqp_connect(&qb, 2, qa.qpn, 0);
    g_assert_cmpuint(MLX5_GET(query_qpc(&qa, out), QPC_pm_state), ==, MLX5_QP_PM_MIGRATED);

    /* what software may not do: arm directly, migrate before arming, a second port */
    g_assert_cmpint(load_alt(&qa, 5, 1, MLX5_QP_PM_ARMED), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(load_alt(&qa, 5, 2, MLX5_QP_PM_REARM), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(load_alt(&qa, 5, 1, MLX5_QP_PM_REARM), ==, 0);
    g_assert_cmpint(load_alt(&qa, 0, 0, MLX5_QP_PM_MIGRATED), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    qpc = query_qpc(&qa, out);
    g_assert_cmpuint(MLX5_GET(qpc, QPC_pm_state), ==, MLX5_QP_PM_REARM);
    g_assert_cmpuint(MLX5_GET(qpc + QPC_ADS2_OFF, ADS_rlid), ==, 5);
    g_assert_cmpuint(MLX5_GET(qpc + QPC_ADS_OFF, ADS_rlid), ==, 4);
    g_assert_cmpint(load_alt(&qb, 3, 1, MLX5_QP_PM_REARM), ==, 0);

    /* traffic arms both; rearming an armed QP is refused */
    apm_send(&qa, &qb, cqe);
    g_assert_cmpuint(MLX5_GET(query_qpc(&qa, out), QPC_pm_state), ==, MLX5_QP_PM_ARMED);
    g_assert_cmpuint(MLX5_GET(query_qpc(&qb, out), QPC_pm_state), ==, MLX5_QP_PM_ARMED);
    g_assert_cmpint(load_alt(&qa, 0, 0, MLX5_QP_PM_REARM), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);

    /* software migrates A: its primary path is the old alternate, PATH_MIG on A's EQ */
    g_assert_cmpuint(path_mig_events(a, qa.qpn), ==, 0);
    g_assert_cmpint(load_alt(&qa, 0, 0, MLX5_QP_PM_MIGRATED), ==, 0);
    qpc = query_qpc(&qa, out);
    g_assert_cmpuint(MLX5_GET(qpc, QPC_pm_state), ==, MLX5_QP_PM_MIGRATED);
    g_assert_cmpuint(MLX5_GET(qpc + QPC_ADS_OFF, ADS_rlid), ==, 5);
    g_assert_cmpuint(MLX5_GET(qpc + QPC_ADS_OFF, ADS_ack_timeout), ==, 12);
    g_assert_cmpuint(path_mig_events(a, qa.qpn), ==, 1);

    /* B follows when A's packets arrive over the alternate path */
    apm_send(&qa, &qb, cqe);
    g_assert_cmphex(mlx5_ld16(cqe + MLX5_CQE_slid), ==, 3);
    g_assert_cmpuint(cqe[MLX5_CQE_ml_path], ==, 1);
    qpc = query_qpc(&qb, out);
    g_assert_cmpuint(MLX5_GET(qpc, QPC_pm_state), ==, MLX5_QP_PM_MIGRATED);
    g_assert_cmpuint(MLX5_GET(qpc + QPC_ADS_OFF, ADS_rlid), ==, 3);
    g_assert_cmpuint(path_mig_events(b, qb.qpn), ==, 1);
    apm_send(&qb, &qa, cqe);
    g_assert_cmphex(mlx5_ld16(cqe + MLX5_CQE_slid), ==, 5);
    g_assert_cmpuint(cqe[MLX5_CQE_ml_path], ==, 1);

    /* migrated: migrating again is a no-op, rearming is allowed */
    g_assert_cmpint(load_alt(&qa, 0, 0, MLX5_QP_PM_MIGRATED), ==, 0);
    g_assert_cmpuint(path_mig_events(a, qa.qpn), ==, 1);
    g_assert_cmpint(load_alt(&qa, 4, 1, MLX5_QP_PM_REARM), ==, 0);
    /* a UD QP has no alternate path */
    {
        TQp qu;
        uint8_t qpcu[MLX5_QPC_SIZE] = { 0 };
        tqp_create(&qu, a, MLX5_QP_ST_UD, 3);
        tqp_connect(&qu, 0, 0, 0x1111);
        MLX5_SET(qpcu + QPC_ADS2_OFF, ADS_vhca_port_num, 1);
        g_assert_cmpint(tdrv_modify_qp(a, MLX5_CMD_OP_RTS2RTS_QP, qu.qpn, qpcu,
                                       MLX5_QP_OPTPAR_ALT_ADDR_PATH), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    }
    tdrv_free(a);
    tdrv_free(b);
}

/* ---- queue counters (mlx5_q_counter.c): the transport's events where the QP's set counts ---- */

static uint32_t alloc_q_counter(TDrv *d)
{
    uint8_t out[16];

    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_ALLOC_Q_COUNTER, 0, 0, 0, out, 16), ==, 0);
    return MLX5_GET(out, ALLOC_Q_COUNTER_OUT_counter_set_id);
}

/* QUERY_Q_COUNTER of @set (cleared after if @clear): the 32-bit counter at @off */
static uint32_t q_counter(TDrv *d, uint32_t set, unsigned off, bool clear)
{
    uint8_t in[0x20] = { 0 }, out[Q_COUNTER_OUT_SIZE];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_QUERY_Q_COUNTER);
    MLX5_SET(in, Q_COUNTER_IN_counter_set_id, set);
    MLX5_SET(in, Q_COUNTER_IN_clear, clear);
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, 0);
    return mlx5_ld32(out + off);
}

/* bind @q to counter set @set (RTS2RTS with the optional counter_set_id, as rdma statistic) */
static void bind_q_counter(TQp *q, uint32_t set)
{
    uint8_t qpc[MLX5_QPC_SIZE] = { 0 };

    MLX5_SET(qpc, QPC_counter_set_id, set);
    g_assert_cmpint(tdrv_modify_qp(q->d, MLX5_CMD_OP_RTS2RTS_QP, q->qpn, qpc,
                                   MLX5_QP_OPTPAR_COUNTER_SET_ID), ==, 0);
}

static void test_q_counters(void)
{
    TDrv *a = new_node(1), *b = new_node(2);
    TQp qa, qb;
    uint8_t segs[48], cqe[64], out[16], in[0x20];
    uint32_t rkey, bad, sa, sb;

    sa = alloc_q_counter(a);
    sb = alloc_q_counter(b);
    g_assert_cmpuint(sa, !=, 0);
    tqp_rc_pair(&qa, a, &qb, b);
    bind_q_counter(&qa, sa);
    bind_q_counter(&qb, sb);

    /* requests executed by b's responder */
    rkey = create_mtt_mkey(b, qb.pd, 0x10000, 0x10000, qb.mem, true);
    raddr_seg(segs, 0x10000, rkey);
    data_seg(segs + 16, 64, qa.key, qa.mem);
    tqp_post_send(&qa, MLX5_OPCODE_RDMA_WRITE, 0, segs, 2, true, false);
    tqp_post_send(&qa, MLX5_OPCODE_RDMA_WRITE, 0, segs, 2, true, false);
    tqp_post_send(&qa, MLX5_OPCODE_RDMA_READ, 0, segs, 2, true, true);
    run_pair(a, b, 2000);
    for (int i = 0; i < 3; i++) {
        g_assert_true(tqp_poll(&qa, cqe));
        g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    }
    g_assert_cmpuint(q_counter(b, sb, Q_COUNTER_OUT_rx_write_requests_OFF, false), ==, 2);
    g_assert_cmpuint(q_counter(b, sb, Q_COUNTER_OUT_rx_read_requests_OFF, false), ==, 1);
    g_assert_cmpuint(q_counter(a, sa, Q_COUNTER_OUT_rx_write_requests_OFF, false), ==, 0);

    /* a SEND with no receive posted: b answers RNR NAK (out_of_buffer), a counts it */
    data_seg(segs, 64, qa.key, qa.mem);
    tqp_post_send(&qa, MLX5_OPCODE_SEND, 0, segs, 1, true, true);
    run_pair(a, b, 200);
    g_assert_cmpuint(q_counter(b, sb, Q_COUNTER_OUT_out_of_buffer_OFF, false), >=, 1);
    g_assert_cmpuint(q_counter(a, sa, Q_COUNTER_OUT_rnr_nak_retry_err_OFF, false), >=, 1);
    tqp_post_recv(&qb, 64, qb.mem + 0x8000);
    for (int i = 0; i < 100 && !tqp_poll(&qa, cqe); i++) {
        b->h->now += 10000000;          /* the RNR timer */
        a->h->now += 10000000;
        mlx5_core_expire(a->c, a->h->now);
        run_pair(a, b, 200);
    }
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);

    /* a remote access error: NAKed by b, an error CQE on a, the rest flushed */
    bad = create_mtt_mkey(b, qb.pd, 0x20000, 0x1000, qb.mem, false);   /* local only */
    raddr_seg(segs, 0x20000, bad);
    data_seg(segs + 16, 64, qa.key, qa.mem);
    tqp_post_send(&qa, MLX5_OPCODE_RDMA_WRITE, 0, segs, 2, true, false);
    tqp_post_send(&qa, MLX5_OPCODE_RDMA_WRITE, 0, segs, 2, true, true);
    run_pair(a, b, 2000);
    tqp_expect_req_err(&qa, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
    g_assert_cmpuint(q_counter(b, sb, Q_COUNTER_OUT_resp_remote_access_errors_OFF, false), ==,
                     1);
    g_assert_cmpuint(q_counter(a, sa, Q_COUNTER_OUT_req_remote_access_errors_OFF, false), ==,
                     1);
    g_assert_cmpuint(q_counter(a, sa, Q_COUNTER_OUT_req_cqe_error_OFF, false), ==, 1);
    g_assert_cmpuint(q_counter(a, sa, Q_COUNTER_OUT_req_cqe_flush_error_OFF, false), ==, 1);

    /* clear: read once more (the refused WRITE was not executed), then zero */
    g_assert_cmpuint(q_counter(b, sb, Q_COUNTER_OUT_rx_write_requests_OFF, true), ==, 2);
    g_assert_cmpuint(q_counter(b, sb, Q_COUNTER_OUT_rx_write_requests_OFF, false), ==, 0);
    /* a set nobody allocated, and a freed one */
    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_QUERY_Q_COUNTER);
    MLX5_SET(in, Q_COUNTER_IN_counter_set_id, 60);
    g_assert_cmpint(tdrv_exec(a, in, sizeof(in), out, sizeof(out)), ==,
                    MLX5_CMD_STAT_BAD_RES_ERR);
    g_assert_cmpint(tdrv_simple(a, MLX5_CMD_OP_DEALLOC_Q_COUNTER, 0, sa, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(a, MLX5_CMD_OP_DEALLOC_Q_COUNTER, 0, sa, 0, out, 16), ==,
                    MLX5_CMD_STAT_BAD_RES_ERR);
    tdrv_free(a);
    tdrv_free(b);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/datapath/rc-send", test_rc_send);
    g_test_add_func("/mlx5/datapath/rc-write-read-atomic", test_rc_write_read_atomic);
    g_test_add_func("/mlx5/datapath/ud-send", test_ud_send);
    g_test_add_func("/mlx5/datapath/loopback-inline", test_loopback_inline);
    g_test_add_func("/mlx5/datapath/loopback-long", test_loopback_long);
    g_test_add_func("/mlx5/datapath/local-error-flush", test_local_error_and_flush);
    g_test_add_func("/mlx5/datapath/remote-access-error", test_remote_access_error);
    g_test_add_func("/mlx5/datapath/bad-doorbell-record", test_bad_doorbell_record);
    g_test_add_func("/mlx5/port/lid-clash", test_lid_clash);
    g_test_add_func("/mlx5/datapath/cq-resize", test_cq_resize);
    g_test_add_func("/mlx5/datapath/mcg-and-pma", test_mcg_and_pma);
    g_test_add_func("/mlx5/datapath/srq-limit-last-wqe", test_srq_limit_and_last_wqe);
    g_test_add_func("/mlx5/datapath/apm", test_apm);
    g_test_add_func("/mlx5/datapath/q-counters", test_q_counters);
    return g_test_run();
}
