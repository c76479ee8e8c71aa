/*
 * mlx5 HCA core: the queue counters (PRM "Q Counters": ALLOC_Q_COUNTER,
 * DEALLOC_Q_COUNTER, QUERY_Q_COUNTER), on both port types.
 *
 * A counter set counts for the QPs whose context names it (counter_set_id, at
 * RST2INIT or later by the optional parameter) and the Ethernet RQs whose
 * context does: the transport's events (IbQpStat, counted by ib/), the error
 * and flush CQEs of the QP's send and receive queues, and the frames an RQ
 * dropped for want of a WQE (out_of_buffer). mlx5_ib reads them as the port's
 * hw_counters (`rdma statistic`): max_qp_cnt offers the sets, out_of_seq_cnt,
 * retransmission_q_counters and enhanced_error_q_counters the counter groups
 * beyond the basic one, as a ConnectX-5 does. Set 0 is the default set of a QP
 * bound to none; it counts nothing.
 *
 * A DevX context sees and frees its own sets only; the kernel (uid 0) reads
 * and clears any.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "hw/rdma/mlx5/mlx5_eth_prm.h"
#include "trace.h"

/* where QUERY_Q_COUNTER shows each counter */
static const uint16_t mlx5_qc_off[MLX5_QC_N] = {
    [MLX5_QC_RX_WRITE] = Q_COUNTER_OUT_rx_write_requests_OFF,
    [MLX5_QC_RX_READ] = Q_COUNTER_OUT_rx_read_requests_OFF,
    [MLX5_QC_RX_ATOMIC] = Q_COUNTER_OUT_rx_atomic_requests_OFF,
    [MLX5_QC_OUT_OF_BUFFER] = Q_COUNTER_OUT_out_of_buffer_OFF,
    [MLX5_QC_OUT_OF_SEQUENCE] = Q_COUNTER_OUT_out_of_sequence_OFF,
    [MLX5_QC_DUPLICATE_REQUEST] = Q_COUNTER_OUT_duplicate_request_OFF,
    [MLX5_QC_RESP_REMOTE_INVALID] =
        Q_COUNTER_OUT_resp_remote_invalid_request_OFF,
    [MLX5_QC_RESP_REMOTE_ACCESS] = Q_COUNTER_OUT_resp_remote_access_errors_OFF,
    [MLX5_QC_RNR_NAK_RETRY] = Q_COUNTER_OUT_rnr_nak_retry_err_OFF,
    [MLX5_QC_PACKET_SEQ] = Q_COUNTER_OUT_packet_seq_err_OFF,
    [MLX5_QC_IMPLIED_NAK_SEQ] = Q_COUNTER_OUT_implied_nak_seq_err_OFF,
    [MLX5_QC_LOCAL_ACK_TIMEOUT] = Q_COUNTER_OUT_local_ack_timeout_err_OFF,
    [MLX5_QC_REQ_REMOTE_INVALID] = Q_COUNTER_OUT_req_remote_invalid_request_OFF,
    [MLX5_QC_REQ_REMOTE_ACCESS] = Q_COUNTER_OUT_req_remote_access_errors_OFF,
    [MLX5_QC_REQ_REMOTE_OPERATION] =
        Q_COUNTER_OUT_req_remote_operation_errors_OFF,
    [MLX5_QC_RESP_LOCAL_LENGTH] = Q_COUNTER_OUT_resp_local_length_error_OFF,
    [MLX5_QC_RESP_CQE_ERROR] = Q_COUNTER_OUT_resp_cqe_error_OFF,
    [MLX5_QC_REQ_CQE_ERROR] = Q_COUNTER_OUT_req_cqe_error_OFF,
    [MLX5_QC_RESP_CQE_FLUSH] = Q_COUNTER_OUT_resp_cqe_flush_error_OFF,
    [MLX5_QC_REQ_CQE_FLUSH] = Q_COUNTER_OUT_req_cqe_flush_error_OFF,
};

/* the transport's events, as the counters they are */
static const uint8_t mlx5_qc_of_stat[IB_STAT_N] = {
    [IB_STAT_RX_WRITE] = MLX5_QC_RX_WRITE,
    [IB_STAT_RX_READ] = MLX5_QC_RX_READ,
    [IB_STAT_RX_ATOMIC] = MLX5_QC_RX_ATOMIC,
    [IB_STAT_OUT_OF_BUFFER] = MLX5_QC_OUT_OF_BUFFER,
    [IB_STAT_OUT_OF_SEQUENCE] = MLX5_QC_OUT_OF_SEQUENCE,
    [IB_STAT_DUPLICATE_REQUEST] = MLX5_QC_DUPLICATE_REQUEST,
    [IB_STAT_RESP_REMOTE_INVALID] = MLX5_QC_RESP_REMOTE_INVALID,
    [IB_STAT_RESP_REMOTE_ACCESS] = MLX5_QC_RESP_REMOTE_ACCESS,
    [IB_STAT_RNR_NAK] = MLX5_QC_RNR_NAK_RETRY,
    [IB_STAT_SEQ_NAK] = MLX5_QC_PACKET_SEQ,
    [IB_STAT_IMPLIED_NAK] = MLX5_QC_IMPLIED_NAK_SEQ,
    [IB_STAT_ACK_TIMEOUT] = MLX5_QC_LOCAL_ACK_TIMEOUT,
    [IB_STAT_REQ_REMOTE_INVALID] = MLX5_QC_REQ_REMOTE_INVALID,
    [IB_STAT_REQ_REMOTE_ACCESS] = MLX5_QC_REQ_REMOTE_ACCESS,
    [IB_STAT_REQ_REMOTE_OPERATION] = MLX5_QC_REQ_REMOTE_OPERATION,
};

void mlx5_q_counter_caps(uint8_t *cap)
{
    MLX5_SET(cap, CAP_max_qp_cnt, MLX5_MAX_Q_COUNTERS - 1);
    MLX5_SET(cap, CAP_out_of_seq_cnt, 1);
    MLX5_SET(cap, CAP_retransmission_q_counters, 1);
    MLX5_SET(cap, CAP_enhanced_error_q_counters, 1);
}

void mlx5_q_counter_reset(Mlx5Core *c)
{
    memset(c->qcnt, 0, sizeof(c->qcnt));
}

void mlx5_q_count(Mlx5Core *c, uint32_t set, Mlx5QcField field)
{
    if (set && set < MLX5_MAX_Q_COUNTERS && c->qcnt[set].used &&
        field < MLX5_QC_N) {
        c->qcnt[set].v[field]++;
        trace_mlx5_q_count(set, field);
    }
}

void mlx5_qp_count(Mlx5Core *c, Mlx5Qp *qp, Mlx5QcField field)
{
    mlx5_q_count(c, qp->st == MLX5_QP_ST_DCT ?
                 MLX5_GET(qp->qpc, DCTC_counter_set_id) :
                 MLX5_GET(qp->qpc, QPC_counter_set_id), field);
}

void mlx5_ib_qp_stat(IbQp *ib, IbQpStat stat)
{
    if (stat < IB_STAT_N) {
        mlx5_qp_count(core_of(ib), qp_of(ib), mlx5_qc_of_stat[stat]);
    }
}

void mlx5_cmd_alloc_q_counter(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    unsigned i;

    if (!mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    for (i = 1; i < MLX5_MAX_Q_COUNTERS; i++) {
        if (!c->qcnt[i].used) {
            memset(&c->qcnt[i], 0, sizeof(c->qcnt[i]));
            c->qcnt[i].used = true;
            c->qcnt[i].owner = cmd->uid;
            MLX5_SET(cmd->out, ALLOC_Q_COUNTER_OUT_counter_set_id, i);
            trace_mlx5_obj_create("q counter", i);
            return;
        }
    }
    mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
}

/*
 * The counter set a QUERY_Q_COUNTER (@dealloc false) or DEALLOC_Q_COUNTER
 * names, or -1.
 */
static int mlx5_q_counter_in(Mlx5Core *c, Mlx5CmdCtx *cmd, bool dealloc)
{
    unsigned id;

    if (!mlx5_cmd_in_ok(cmd, dealloc ? 0x10 : 0x20)) {
        return -1;
    }
    id = dealloc ? MLX5_GET(cmd->in, DEALLOC_Q_COUNTER_IN_counter_set_id)
                 : MLX5_GET(cmd->in, Q_COUNTER_IN_counter_set_id);
    /* a DevX context (DPDK's port counters) sees its own sets only */
    if (id >= MLX5_MAX_Q_COUNTERS || !c->qcnt[id].used ||
        (cmd->uid && c->qcnt[id].owner != cmd->uid)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return -1;
    }
    return id;
}

void mlx5_cmd_dealloc_q_counter(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    int id = mlx5_q_counter_in(c, cmd, true);

    if (id >= 0) {
        c->qcnt[id].used = false;
        trace_mlx5_obj_destroy("q counter", id);
    }
}

void mlx5_cmd_query_q_counter(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    int id = mlx5_q_counter_in(c, cmd, false);
    Mlx5QCounter *q;
    unsigned i;

    if (id < 0 || !mlx5_cmd_out_ok(cmd, Q_COUNTER_OUT_SIZE)) {
        return;
    }
    q = &c->qcnt[id];
    /* 32-bit counters: they wrap, as the hardware's do */
    for (i = 0; i < MLX5_QC_N; i++) {
        mlx5_st32(cmd->out + mlx5_qc_off[i], (uint32_t)q->v[i]);
    }
    if (MLX5_GET(cmd->in, Q_COUNTER_IN_clear)) {
        memset(q->v, 0, sizeof(q->v));
    }
}
