/*
 * mlx5 HCA core, Ethernet port: striding RQs (PRM "Striding RQ", multi-packet
 * receive WQEs), wq_type 2 (linked list: mlx5e's default receive queue) and
 * 3 (cyclic: DPDK's Multi-Packet Rx Queue).
 *
 * A WQE is a next segment (16 bytes: next_wqe_index for the linked list) and a
 * data segment naming one buffer of 2^log_strides strides of 2^log_stride_sz
 * bytes each. Frames fill the strides in order: a frame takes the strides from
 * the current one that its length (plus 2 with two_byte_shift_en, which starts
 * it 2 bytes into its first stride) needs, and its CQE says which: wqe_id is
 * the WQE's ring index, wqe_counter the first stride, byte_cnt the strides
 * consumed (bits 30:16) and the length (15:0). A frame that does not fit in
 * the strides left ends the WQE with a filler CQE (bit 31) for them and goes
 * to the next WQE. A WQE whose strides are all used is done: the RQ's counter
 * (the doorbell record counts posted WQEs against it) moves on, and the next
 * WQE is the one its next segment names (linked list; read when needed, as the
 * driver appends a freed WQE by writing the tail's next_wqe_index) or the next
 * in the ring (cyclic). A frame longer than a whole WQE is dropped.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "trace.h"

#define MLX5_MPWQE_LOG_STRIDES_MIN      3       /* ext_stride_num_range */
#define MLX5_MPWQE_LOG_STRIDES_MAX      16
#define MLX5_MPWQE_LOG_STRIDE_SZ_MIN    6
#define MLX5_MPWQE_LOG_STRIDE_SZ_MAX    13
#define MLX5_MPWQE_FILLER               0x80000000u

uint32_t mlx5_mpwqe_load(Mlx5Core *c, Mlx5Qp *rq, const uint8_t *wq)
{
    /* 2^(9 + n) strides, n a 4-bit two's complement number */
    int n = MLX5_GET(wq, WQ_log_wqe_num_of_strides);
    int log_strides = 9 + (n >= 8 ? n - 16 : n);
    int log_sz = MLX5_MPWQE_LOG_STRIDE_SZ_MIN +
                 MLX5_GET(wq, WQ_log_wqe_stride_size);

    if (log_strides < MLX5_MPWQE_LOG_STRIDES_MIN ||
        log_strides > MLX5_MPWQE_LOG_STRIDES_MAX ||
        log_sz > MLX5_MPWQE_LOG_STRIDE_SZ_MAX) {
        return MLX5_SYND_BAD_SIZE;
    }
    /* the next segment and one data segment at least */
    if (MLX5_GET(wq, WQ_log_wq_stride) < 5) {
        return MLX5_SYND_BAD_STRIDE;
    }
    rq->log_strides = log_strides;
    rq->log_stride_sz = log_sz;
    rq->two_byte_shift = MLX5_GET(wq, WQ_two_byte_shift_en);
    mlx5_mpwqe_reset(rq);
    return 0;
}

void mlx5_mpwqe_query(const Mlx5Qp *rq, uint8_t *wq)
{
    MLX5_SET(wq, WQ_log_wqe_num_of_strides, (rq->log_strides - 9) & 0xf);
    MLX5_SET(wq, WQ_log_wqe_stride_size,
             rq->log_stride_sz - MLX5_MPWQE_LOG_STRIDE_SZ_MIN);
    MLX5_SET(wq, WQ_two_byte_shift_en, rq->two_byte_shift);
}

void mlx5_mpwqe_reset(Mlx5Qp *rq)
{
    rq->mpw_wqe = 0;
    rq->mpw_stride = 0;
    rq->mpw_next = false;
}

/* The current WQE's first 32 bytes (next and data segments). */
static bool mlx5_mpwqe_read(Mlx5Core *c, Mlx5Qp *rq, uint8_t *wqe)
{
    return !mlx5_buf_read(c, &rq->buf, (uint64_t)rq->mpw_wqe * rq->rq_stride,
                          wqe, 32);
}

/*
 * Move to the WQE after the one just done: the linked list's next pointer,
 * read now (the driver may have written it since), or the next in the ring.
 */
static bool mlx5_mpwqe_advance(Mlx5Core *c, Mlx5Qp *rq)
{
    uint8_t wqe[32];

    if (rq->wq_type == MLX5_WQ_TYPE_LL_STRIDING) {
        if (!mlx5_mpwqe_read(c, rq, wqe)) {
            return false;
        }
        rq->mpw_wqe = mlx5_ld16(wqe + 2) & (rq->rq_cnt - 1);
    } else {
        rq->mpw_wqe = rq->rq_ci & (rq->rq_cnt - 1);
    }
    rq->mpw_stride = 0;
    rq->mpw_next = false;
    return true;
}

/* The current WQE is done (all its strides used). */
static void mlx5_mpwqe_done(Mlx5Qp *rq)
{
    rq->rq_ci++;
    rq->mpw_next = true;
}

bool mlx5_mpwqe_deliver(Mlx5Core *c, Mlx5Qp *rq, const uint8_t *f, size_t len,
                        uint8_t *cqe)
{
    uint32_t nstrides = 1u << rq->log_strides, ssz = 1u << rq->log_stride_sz;
    uint32_t shift = rq->two_byte_shift ? 2 : 0;
    uint32_t need = (len + shift + ssz - 1) >> rq->log_stride_sz;
    int avail = mlx5_eth_rq_posted(c, rq);
    uint8_t wqe[32];
    IbWcStatus st;
    int r;

    if (need > nstrides || len > 0xffff) {
        c->eth->cnt.rx_errors++;
        trace_mlx5_eth_rx_drop(rq->qpn, len, "longer than a striding WQE");
        return false;
    }
    if (avail <= 0) {
        mlx5_q_count(c, rq->counter_set, MLX5_QC_OUT_OF_BUFFER);
        trace_mlx5_eth_rx_drop(rq->qpn, len, "no receive WQE");
        return false;
    }
    if (rq->mpw_next && !mlx5_mpwqe_advance(c, rq)) {
        return false;
    }
    if (rq->mpw_stride + need > nstrides) {
        /* the rest of this WQE: a filler CQE, then the next WQE */
        uint8_t fill[MLX5_CQE_SIZE] = { 0 };

        mlx5_st16(fill + 2, rq->mpw_wqe);
        mlx5_st16(fill + MLX5_CQE_wqe_counter, rq->mpw_stride);
        mlx5_st32(fill + MLX5_CQE_byte_cnt,
                  MLX5_MPWQE_FILLER | (nstrides - rq->mpw_stride) << 16);
        mlx5_st32(fill + MLX5_CQE_srqn_uidx, rq->user_index & 0xffffff);
        fill[MLX5_CQE_op_own] = MLX5_CQE_RESP_SEND << 4;
        trace_mlx5_eth_mpwqe_filler(rq->qpn, rq->mpw_wqe, rq->mpw_stride);
        mlx5_cqe_post_rx(c, rq->cqn_rcv, fill, true);
        mlx5_mpwqe_done(rq);
        if (avail == 1) {
            mlx5_q_count(c, rq->counter_set, MLX5_QC_OUT_OF_BUFFER);
            trace_mlx5_eth_rx_drop(rq->qpn, len, "no receive WQE");
            return false;
        }
        if (!mlx5_mpwqe_advance(c, rq)) {
            return false;
        }
    }
    if (!mlx5_mpwqe_read(c, rq, wqe)) {
        return false;
    }
    mlx5_st16(cqe + 2, rq->mpw_wqe);
    mlx5_st16(cqe + MLX5_CQE_wqe_counter, rq->mpw_stride);
    if (mlx5_inject_wqe_hit(c, rq->qpn, true, &st)) {
        /* fault injection: the WQE completes in error, the RQ goes to ERR */
        mlx5_mpwqe_done(rq);
        mlx5_eth_rx_err_cqe(c, rq, cqe, st);
        rq->wq_state = MLX5_WQ_STATE_ERR;
        trace_mlx5_eth_rx_drop(rq->qpn, len, "injected WQE error");
        return false;
    }
    r = mlx5_mkey_copy(c, mlx5_ld32(wqe + 16 + 4), rq->pdn, MLX5_MKEY_LW,
                       mlx5_ld64(wqe + 16 + 8) +
                           ((uint64_t)rq->mpw_stride << rq->log_stride_sz) +
                           shift,
                       (uint8_t *)f, len, true);
    trace_mlx5_eth_mpwqe_rx(rq->qpn, rq->mpw_wqe, rq->mpw_stride, need, len);
    rq->mpw_stride += need;
    if (rq->mpw_stride == nstrides) {
        mlx5_mpwqe_done(rq);
    }
    if (r) {
        mlx5_eth_rx_err_cqe(c, rq, cqe, mlx5_xlate_status(r, false));
        trace_mlx5_eth_rx_drop(rq->qpn, len, "receive buffer fault");
        return false;
    }
    mlx5_st32(cqe + MLX5_CQE_byte_cnt, need << 16 | len);
    mlx5_cqe_post_rx(c, rq->cqn_rcv, cqe, true);
    return true;
}
