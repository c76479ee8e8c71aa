/*
 * Fuzz target: work queue entries. Send WQEs of every opcode (SEND, RDMA, atomics, UMR, ...)
 * on RC, UC, UD, RC-on-SRQ, QP1 and DC initiator QPs, receive WQEs on their RQs and the SRQ,
 * the doorbell records behind them, executed against the node's memory keys; the frames they
 * produce loop back into the same device.
 *
 * Record: sel u8, flags u8, dbr u16, n u8, then 64 * (1 + n % 4) bytes of WQE.
 *   sel bit 7 clear: a send WQE of (1 + n % 4) basic blocks on QP sel % 6 (RC, UC, UD, RC on
 *   the SRQ, QP1, DCI). Set: 1 + n % 4 receive WQEs on the RQ of QP sel % 6 (5: the SRQ).
 *   flags: 1 = set the WQE index and QPN of the ctrl segment to the queue's;
 *          2 = the doorbell record counts exactly these WQEs (else it is set to dbr);
 *          4 = ring the send doorbell in two 4-byte halves; 8 = first bring the QP back from
 *          error; 16 = let the timers run (retries, timeouts); 32 = point a UD/DC address
 *          vector at this node (its LID, one of its QPs or the DCT, the DC key).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz.h"

#define NSEL 6

static uint32_t sel_qpn(FzNode *n, unsigned sel)
{
    return sel < FZ_NQP ? n->q[sel].qpn : n->dci;
}

static void post_recv(FzNode *n, unsigned sel, uint8_t flags, uint16_t dbr, unsigned cnt,
                      const uint8_t *wqe)
{
    TDrv *d = n->d;

    if (sel < FZ_NQP) {
        TQp *q = &n->q[sel];
        for (unsigned k = 0; k < cnt; k++) {
            uint16_t slot = q->rq_pi++ & ((1u << LOG_RQ) - 1);
            fake_write(d->h, q->buf + slot * 64, wqe + 64 * k, 64);
        }
        fake_wr32(d->h, q->dbr, flags & 2 ? q->rq_pi : dbr);
    } else {
        Mlx5Srq *srq = mlx5_table_get(&d->c->srqs, n->srqn);
        if (!srq) {
            return;
        }
        for (unsigned k = 0; k < cnt; k++) {
            uint16_t slot = (srq->head + k) & ((1u << srq->log_srq_size) - 1);
            fake_write(d->h, mlx5_buf_addr(&srq->buf, (uint64_t)slot << (srq->log_rq_stride + 4)),
                       wqe + 64 * k, 16u << MIN(srq->log_rq_stride, 2));
        }
        n->srq_pi += cnt;
        fake_wr32(d->h, srq->dbr_addr, flags & 2 ? n->srq_pi : dbr);
    }
}

static void post_send(FzNode *n, unsigned sel, uint8_t flags, uint16_t dbr, unsigned nbb,
                      uint8_t *wqe)
{
    TDrv *d = n->d;
    uint32_t qpn = sel_qpn(n, sel);
    uint64_t uar = ((uint64_t)d->uar << 12) + 0x800;
    Mlx5Qp *qp;

    if (flags & 8) {
        fz_qp_recover(n, qpn);
    }
    qp = mlx5_table_get(&d->c->qps, qpn);
    if (!qp) {
        return;
    }
    if (flags & 1) {
        mlx5_st16(wqe + 1, qp->sq_ci);
        mlx5_st32(wqe + 4, (qpn << 8) | wqe[7]);
    }
    if ((flags & 32) && (qp->st == MLX5_QP_ST_UD || qp->st == MLX5_QP_ST_DCI ||
                         qp->st == MLX5_QP_ST_QP1)) {
        uint8_t *av = wqe + 16;
        if (qp->st == MLX5_QP_ST_DCI) {
            mlx5_st64(av, 0x1234);
            mlx5_st32(av + 8, 0x80000000u | n->dctn);
        } else {
            mlx5_st32(av + 8, n->q[av[8] % FZ_NQP].qpn);
        }
        mlx5_st16(av + 14, d->c->port.lid);
    }
    for (unsigned b = 0; b < nbb; b++) {
        unsigned slot = (qp->sq_ci + b) & (qp->sq_cnt - 1);
        fake_write(d->h, mlx5_buf_addr(&qp->buf, qp->sq_off + slot * 64), wqe + 64 * b, 64);
    }
    fake_wr32(d->h, qp->dbr_addr + 4, flags & 2 ? (uint16_t)(qp->sq_ci + nbb) : dbr);
    if (flags & 4) {
        mlx5_core_mmio_write(d->c, uar, mlx5_ld32(wqe), 4);
        mlx5_core_mmio_write(d->c, uar + 4, mlx5_ld32(wqe + 4), 4);
    } else {
        mlx5_core_mmio_write(d->c, uar, mlx5_ld64(wqe), 8);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Fz f = { data, size };
    FzNode *n = fz_node_new(false, true);

    for (unsigned r = 0; r < FZ_MAX_RECORDS && fz_more(&f) && !n->d->c->health_fatal; r++) {
        uint8_t sel = fz_u8(&f), flags = fz_u8(&f);
        uint16_t dbr = fz_u16(&f);
        unsigned cnt = 1 + fz_u8(&f) % 4;
        uint8_t wqe[256];

        fz_bytes(&f, wqe, 64 * cnt);
        if (sel & 0x80) {
            post_recv(n, sel % NSEL, flags, dbr, cnt, wqe);
        } else {
            post_send(n, sel % NSEL, flags, dbr, cnt, wqe);
        }
        fz_settle(n, 32);
        if (flags & 16) {
            n->d->h->now += 100000000;      /* 100 ms */
            mlx5_core_expire(n->d->c, n->d->h->now);
            fz_settle(n, 32);
        }
    }
    fz_check(n);
    fz_node_free(n);
    return 0;
}
