/*
 * A hostile guest, scenario by scenario (issue 10): each input ends in the architected error
 * (command status and syndrome, error CQE, async event) and the device stays usable, at once or
 * after a reset. The fuzz targets (tests/fuzz) search the same ground at random; these are the
 * cases named, with their expected answers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-testqp.h"
#include "mlx5_internal.h"
#include "mlx5_cmd.h"

/* A new RC QP on @d works end to end (loopback to itself): the device is still usable. */
static void assert_usable(TDrv *d)
{
    TQp q;
    uint8_t seg[16], cqe[64];

    tqp_create(&q, d, MLX5_QP_ST_RC, 0);
    tqp_connect(&q, d->c->port.lid, q.qpn, 0);
    tqp_pattern(d, q.mem, 256, 7);
    tqp_post_recv(&q, 256, q.mem + 4096);
    data_seg(seg, 256, q.key, q.mem);
    tqp_post_send(&q, MLX5_OPCODE_SEND, 0, seg, 1, true, true);
    run_pair(d, NULL, 1000);
    /* one CQ: the receive completes before the ACK completes the send */
    g_assert_true(tqp_poll(&q, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_RESP_SEND);
    g_assert_true(tqp_poll(&q, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ);
    g_assert_true(tqp_same(d, q.mem, d, q.mem + 4096, 256));
}

/* Queue sizes beyond the advertised maxima are BAD_PARAM, for every queue kind. */
static void test_log_sizes(void)
{
    TDrv *d = new_node(1);
    uint32_t pd = tdrv_alloc_pd(d), cqn = tdrv_create_cq(d, d->async_eqn, 4, NULL, NULL);
    uint8_t in[MLX5_PAS_OFF + 8] = { 0 }, out[16];

    /* EQ */
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_EQ);
    MLX5_SET(in + CREATE_EQ_EQC_OFF, EQC_log_eq_size, 31);
    mlx5_st64(in + MLX5_PAS_OFF, fake_alloc(d->h, 4096, 4096));
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    /* CQ */
    memset(in, 0, sizeof(in));
    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_CREATE_CQ);
    MLX5_SET(in + CREATE_CQ_CQC_OFF, CQC_log_cq_size, 31);
    MLX5_SET(in + CREATE_CQ_CQC_OFF, CQC_c_eqn, d->async_eqn);
    mlx5_st64(in + MLX5_PAS_OFF, fake_alloc(d->h, 4096, 4096));
    g_assert_cmpint(tdrv_exec(d, in, sizeof(in), out, sizeof(out)), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    /* SRQ */
    g_assert_cmpint(tdrv_create_srq(d, pd, cqn, 31, 2, NULL), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    g_assert_cmpint(tdrv_create_srq(d, pd, cqn, 4, 31, NULL), ==, MLX5_CMD_STAT_BAD_PARAM_ERR);
    /* QP: SQ beyond log_max_qp_sz */
    {
        uint8_t qin[MLX5_PAS_OFF + 8] = { 0 };
        uint8_t *qpc = qin + QP_QPC_OFF;
        MLX5_SET(qin, CMD_IN_opcode, MLX5_CMD_OP_CREATE_QP);
        MLX5_SET(qpc, QPC_st, MLX5_QP_ST_RC);
        MLX5_SET(qpc, QPC_pd, pd);
        MLX5_SET(qpc, QPC_log_sq_size, 31);
        MLX5_SET(qpc, QPC_uar_page, d->uar);
        MLX5_SET(qpc, QPC_cqn_snd, cqn);
        MLX5_SET(qpc, QPC_cqn_rcv, cqn);
        mlx5_st64(qin + MLX5_PAS_OFF, fake_alloc(d->h, 4096, 4096));
        g_assert_cmpint(tdrv_exec(d, qin, sizeof(qin), out, sizeof(out)), ==,
                        MLX5_CMD_STAT_BAD_PARAM_ERR);
    }
    assert_usable(d);
    tdrv_free(d);
}

/* Destroying what is in use is RES_BUSY (-EBUSY to the driver); destroying twice is BAD_RES. */
static void test_destroy_in_use(void)
{
    TDrv *d = new_node(1);
    TQp q;
    uint8_t out[16];

    tqp_create(&q, d, MLX5_QP_ST_RC, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_CQ, 0, q.cqn, 0, out, 16), ==,
                    MLX5_CMD_STAT_RES_BUSY);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DEALLOC_PD, 0, q.pd, 0, out, 16), ==,
                    MLX5_CMD_STAT_RES_BUSY);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_QP, 0, q.qpn, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_QP, 0, q.qpn, 0, out, 16), ==,
                    MLX5_CMD_STAT_BAD_RES_ERR);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_CQ, 0, q.cqn, 0, out, 16), ==, 0);
    g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_CQ, 0, q.cqn, 0, out, 16), ==,
                    MLX5_CMD_STAT_BAD_RES_ERR);
    assert_usable(d);
    tdrv_free(d);
}

/* Write @ds (and the rest of one WQEBB from @body) as the next send WQE of @q and ring. */
static void post_raw(TQp *q, uint8_t opcode, uint8_t ds, const uint8_t *body, uint32_t dbr_add)
{
    Mlx5Qp *qp = mlx5_table_get(&q->d->c->qps, q->qpn);
    uint8_t wqe[64] = { 0 };

    mlx5_st16(wqe + 1, qp->sq_ci);
    wqe[3] = opcode;
    mlx5_st32(wqe + 4, (q->qpn << 8) | ds);
    wqe[11] = 0x08;
    memcpy(wqe + 16, body, 48);
    fake_write(q->d->h, mlx5_buf_addr(&qp->buf, qp->sq_off + (qp->sq_ci & (qp->sq_cnt - 1)) * 64),
               wqe, 64);
    fake_wr32(q->d->h, qp->dbr_addr + 4, (uint16_t)(qp->sq_ci + dbr_add));
    mlx5_core_mmio_write(q->d->c, ((uint64_t)q->d->uar << 12) + 0x800, mlx5_ld64(wqe), 8);
    run_pair(q->d, NULL, 1000);
}

static uint8_t error_syndrome(TQp *q)
{
    uint8_t cqe[64];

    g_assert_true(tqp_poll(q, cqe));
    g_assert_cmpuint(cqe[63] >> 4, ==, MLX5_CQE_REQ_ERR);
    return cqe[MLX5_CQE_syndrome];
}

/* Malformed send WQEs: a local QP operation error CQE, the QP in error; a reset revives it. */
static void test_bad_wqes(void)
{
    TDrv *d = new_node(1);
    static const struct {
        const char *what;
        uint8_t opcode, ds;
        uint8_t inl[16];
    } cases[] = {
        { "zero DS count", MLX5_OPCODE_SEND, 0, { 0 } },
        { "RDMA WRITE without its remote address segment", MLX5_OPCODE_RDMA_WRITE, 1, { 0 } },
        { "inline data beyond the WQE", MLX5_OPCODE_SEND, 2, { 0x80, 0, 0x10, 0 } },  /* 4 KiB */
        { "an opcode that does not exist", 0x1f, 1, { 0 } },
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(cases); i++) {
        TQp q;
        uint8_t body[48] = { 0 }, cqe[64];
        Mlx5Qp *qp;

        tqp_create(&q, d, MLX5_QP_ST_RC, 0);
        tqp_connect(&q, d->c->port.lid, q.qpn, 0);
        memcpy(body, cases[i].inl, 16);
        post_raw(&q, cases[i].opcode, cases[i].ds, body, 1);
        g_test_message("%s", cases[i].what);
        g_assert_cmphex(error_syndrome(&q), ==, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
        qp = mlx5_table_get(&d->c->qps, q.qpn);
        g_assert_cmpuint(qp->state, ==, MLX5_QP_STATE_ERR);
        g_assert_false(tqp_poll(&q, cqe));
        g_assert_cmpint(tdrv_simple(d, MLX5_CMD_OP_DESTROY_QP, 0, q.qpn, 0, cqe, 16), ==, 0);
    }
    assert_usable(d);
    tdrv_free(d);
}

/* A doorbell record far past the ring: a WQ catastrophic error event, the QP in error. */
static void test_doorbell_jump(void)
{
    TDrv *d = new_node(1);
    TQp q;
    uint8_t body[48] = { 0 }, cqe[64], eqe[MLX5_EQE_SIZE];
    Mlx5Qp *qp;
    bool event = false;

    tqp_create(&q, d, MLX5_QP_ST_RC, 0);
    tqp_connect(&q, d->c->port.lid, q.qpn, 0);
    post_raw(&q, MLX5_OPCODE_NOP, 1, body, 5000);
    qp = mlx5_table_get(&d->c->qps, q.qpn);
    g_assert_cmpuint(qp->state, ==, MLX5_QP_STATE_ERR);
    g_assert_false(tqp_poll(&q, cqe));          /* nothing was executed */
    for (unsigned i = 0; i < 64 && !event; i++) {
        tdrv_eqe(d, d->async_eq_pa, i, eqe);
        event = eqe[MLX5_EQE_type] == MLX5_EVENT_TYPE_WQ_CATAS_ERROR &&
                (mlx5_ld32(eqe + MLX5_EQE_qp_srq_n) & 0xffffff) == q.qpn;
    }
    g_assert_true(event);
    assert_usable(d);
    tdrv_free(d);
}

/* Completions the driver never consumes: a CQ error event (overrun) once the CQ is full. */
static void test_cq_overrun(void)
{
    TDrv *d = new_node(1);
    TQp q;
    uint8_t body[48] = { 0 }, eqe[MLX5_EQE_SIZE];
    Mlx5Cq *cq;
    bool event = false;

    tqp_create(&q, d, MLX5_QP_ST_RC, 0);
    tqp_connect(&q, d->c->port.lid, q.qpn, 0);
    for (unsigned i = 0; i < (1u << LOG_CQ) + 8; i++) {
        post_raw(&q, MLX5_OPCODE_NOP, 1, body, 1);
    }
    cq = mlx5_table_get(&d->c->cqs, q.cqn);
    g_assert_cmpuint(cq->pi, ==, 1u << LOG_CQ);     /* full, and nothing overwritten */
    for (unsigned i = 0; i < 64 && !event; i++) {
        tdrv_eqe(d, d->async_eq_pa, i, eqe);
        event = eqe[MLX5_EQE_type] == MLX5_EVENT_TYPE_CQ_ERROR &&
                (mlx5_ld32(eqe + MLX5_EQE_data) & 0xffffff) == q.cqn &&
                eqe[0x2b] == 1;                     /* syndrome: overrun */
    }
    g_assert_true(event);
    assert_usable(d);
    tdrv_free(d);
}

/*
 * Events the driver never consumes: once the EQ is full further events are lost, never written
 * over unconsumed EQEs, and the device goes on; once the driver consumes, events flow again.
 */
static void test_eq_overrun(void)
{
    TDrv *d = new_node(1);
    TQp q;
    uint8_t body[48] = { 0 }, first[MLX5_EQE_SIZE], eqe[MLX5_EQE_SIZE];
    uint8_t cqe[64] = { 0 };
    Mlx5Cq *cq;
    Mlx5Eq *eq;
    unsigned nent;

    tqp_create(&q, d, MLX5_QP_ST_RC, 0);
    tqp_connect(&q, d->c->port.lid, q.qpn, 0);
    post_raw(&q, MLX5_OPCODE_NOP, 1, body, 1);  /* one completion, left in the CQ */
    cq = mlx5_table_get(&d->c->cqs, q.cqn);
    eq = mlx5_table_get(&d->c->eqs, cq->c_eqn);
    nent = 1u << eq->log_eq_size;
    /*
     * each arm with a completion no event reported yet raises one at once (the
     * consumer keeps up with the CQ; the arms claim consumer index 0)
     */
    for (unsigned i = 0; i < nent + 10; i++) {
        g_assert_cmpint(mlx5_cq_post(d->c, cq, cqe, false), ==, 0);
        fake_wr32(d->h, cq->dbr_addr, cq->pi);
        tdrv_mmio_wr64(d, ((uint64_t)d->uar << 12) + MLX5_UAR_CQ_DB, q.cqn);
    }
    g_assert_cmpuint(eq->pi, ==, nent);         /* full */
    g_assert_true(eq->overrun);
    g_assert_cmpuint(trace_count("mlx5_err_eq_overrun"), ==, 1);
    fake_read(d->h, mlx5_buf_addr(&eq->buf, 0), first, sizeof(first));
    g_assert_cmpuint(first[MLX5_EQE_type], ==, MLX5_EVENT_TYPE_COMP);
    g_assert_cmpuint(first[MLX5_EQE_owner], ==, 0);     /* the first pass's, not overwritten */
    assert_usable(d);
    /* the driver consumes them all and re-arms: the next event lands in entry 0, second pass */
    tdrv_mmio_wr32(d, ((uint64_t)d->uar << 12) + MLX5_UAR_EQ_DB_ARM, (eq->eqn << 24) | nent);
    g_assert_false(eq->overrun);
    tdrv_mmio_wr64(d, ((uint64_t)d->uar << 12) + MLX5_UAR_CQ_DB, q.cqn);
    g_assert_cmpuint(eq->pi, ==, nent);     /* (every CQE was reported) */
    g_assert_cmpint(mlx5_cq_post(d->c, cq, cqe, false), ==, 0);
    g_assert_cmpuint(eq->pi, ==, nent + 1);
    fake_read(d->h, mlx5_buf_addr(&eq->buf, 0), eqe, sizeof(eqe));
    g_assert_cmpuint(eqe[MLX5_EQE_type], ==, MLX5_EVENT_TYPE_COMP);
    g_assert_cmpuint(eqe[MLX5_EQE_owner], ==, 1);
    tdrv_free(d);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mlx5/hostile/log-sizes", test_log_sizes);
    g_test_add_func("/mlx5/hostile/destroy-in-use", test_destroy_in_use);
    g_test_add_func("/mlx5/hostile/bad-wqes", test_bad_wqes);
    g_test_add_func("/mlx5/hostile/doorbell-jump", test_doorbell_jump);
    g_test_add_func("/mlx5/hostile/cq-overrun", test_cq_overrun);
    g_test_add_func("/mlx5/hostile/eq-overrun", test_eq_overrun);
    return g_test_run();
}
