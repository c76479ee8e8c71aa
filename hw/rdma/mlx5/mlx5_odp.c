/*
 * mlx5 HCA core: on-demand paging (ODP), the transport page-fault scheme of a
 * ConnectX-5.
 *
 * With the `pg` capability, an MTT entry's bits 0 and 1 say whether its page
 * may be read and written. The driver registers an ODP memory region with only
 * the pages already present, zaps entries when the kernel takes a page away
 * (UMR) and fills them when the device asks. The device asks with a PAGE_FAULT
 * event when a memory access meets an entry without the bit it needs:
 *
 * - requester, gathering a SEND/WRITE or placing a READ/atomic response:
 * subtype WQE, type 1 or 3, the QP and the WQE index. The send queue stops at
 * that WQE (a response that could not be placed is dropped and asked for again)
 * until PAGE_FAULT_RESUME;
 * - responder, scattering a SEND into a receive WQE: subtype WQE, type 2 (the
 * QP's RQ, the WQE index) or 0 (an SRQ: the SRQ number and its WQE index). RC
 * answers RNR NAK; the requester sends again after the RNR timer;
 * - responder, a remote access through an rkey (WRITE, READ, atomic): subtype
 * RDMA with the rkey, address and length, token = QPN. WRITE and atomics answer
 * RNR NAK; READ responses wait for the resume.
 *
 * The driver reads the WQE (or the rkey range), maps the pages with UMR, and
 * answers PAGE_FAULT_RESUME with the type, the WQ number and the token; with
 * `error` set the access fails as it would have without ODP (local protection
 * error, remote access error). One event per work queue and type is outstanding
 * at a time: faults repeated before the resume (RNR retries) post nothing.
 * Without an event queue that takes page faults the access fails at once, so a
 * missing mapping never hangs a queue.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "trace.h"

/*
 * What the transport scheme covers, per service (as a ConnectX-5 reports it).
 */
#define MLX5_ODP_ALL                                                     \
    (MLX5_ODP_SEND | MLX5_ODP_RECEIVE | MLX5_ODP_WRITE | MLX5_ODP_READ | \
     MLX5_ODP_ATOMIC | MLX5_ODP_SRQ_RECEIVE)

static const struct {
    uint32_t off, bits;
} mlx5_odp_services[] = {
    { ODP_CAP_rc_OFF, MLX5_ODP_ALL },
    { ODP_CAP_ud_OFF, MLX5_ODP_SEND | MLX5_ODP_SRQ_RECEIVE },
    { ODP_CAP_xrc_OFF, MLX5_ODP_ALL },
    { ODP_CAP_dc_OFF, MLX5_ODP_ALL & ~MLX5_ODP_RECEIVE },
};

void mlx5_caps_odp(const Mlx5CoreConfig *cfg, uint8_t *cap)
{
    if (!cfg->odp) {
        return;
    }
    for (unsigned i = 0; i < G_N_ELEMENTS(mlx5_odp_services); i++) {
        mlx5_st32(cap + mlx5_odp_services[i].off, mlx5_odp_services[i].bits);
    }
}

/*
 * SET_HCA_CAP(ODP): the services the driver enables, each within what the
 * device has.
 */
uint32_t mlx5_set_cap_odp(Mlx5Core *c, const uint8_t *in)
{
    uint8_t max[HCA_CAP_SIZE];

    mlx5_caps_build(&c->cfg, MLX5_CAP_ODP, max, false);
    if (!c->cfg.odp || MLX5_GET(in, ODP_CAP_mem_page_fault)) {
        return MLX5_SYND_UNSUPPORTED;
    }
    for (unsigned i = 0; i < G_N_ELEMENTS(mlx5_odp_services); i++) {
        uint32_t off = mlx5_odp_services[i].off;
        if (mlx5_ld32(in + off) & ~mlx5_ld32(max + off)) {
            return MLX5_SYND_UNSUPPORTED;
        }
    }
    for (unsigned i = 0; i < G_N_ELEMENTS(mlx5_odp_services); i++) {
        uint32_t off = mlx5_odp_services[i].off;
        mlx5_st32(c->cap_odp_cur + off, mlx5_ld32(in + off));
    }
    return 0;
}

static bool mlx5_odp_post(Mlx5Core *c, uint8_t subtype, const uint8_t *data)
{
    Mlx5Eq *eq = mlx5_eq_find_by_event(c, MLX5_EVENT_TYPE_PAGE_FAULT);

    return eq && mlx5_eq_post(c, eq, MLX5_EVENT_TYPE_PAGE_FAULT, subtype, data,
                              28) == 0;
}

IbWcStatus mlx5_odp_wqe_fault(Mlx5Core *c, Mlx5Qp *qp, Mlx5Srq *srq,
                              uint8_t type, uint16_t wqe_index, uint32_t len)
{
    uint32_t wq = srq ? srq->srqn : qp->qpn;
    uint8_t data[28] = { 0 };

    if (srq ? srq->pf_pending : (qp->pf_pending & (1u << type))) {
        return IB_WC_PAGE_FAULT;        /* already asked; wait for the resume */
    }
    if (srq && srq->pf_error) {
        /* the driver could not map it: the receive fails */
        srq->pf_error = false;
        return IB_WC_LOC_PROT_ERR;
    }
    mlx5_st16(data + PF_EQE_WQE_wqe_index, wqe_index);
    mlx5_st16(data + PF_EQE_WQE_packet_length, MIN(len, 0xffffu));
    mlx5_st32(data + PF_EQE_WQE_token, wq);
    mlx5_st32(data + PF_EQE_WQE_pftype_wq, ((uint32_t)type << 24) | wq);
    trace_mlx5_odp_fault(MLX5_PFAULT_SUBTYPE_WQE, type, wq, wqe_index, 0, len);
    if (!mlx5_odp_post(c, MLX5_PFAULT_SUBTYPE_WQE, data)) {
        return IB_WC_LOC_PROT_ERR;
    }
    if (srq) {
        srq->pf_pending = true;
    } else {
        qp->pf_pending |= 1u << type;
    }
    return IB_WC_PAGE_FAULT;
}

IbWcStatus mlx5_odp_rdma_fault(Mlx5Core *c, Mlx5Qp *qp, uint32_t rkey,
                               uint64_t va, uint32_t op_len, uint32_t pkt_len,
                               bool write)
{
    uint8_t type = write ? MLX5_PF_TYPE_RDMA_WRITE : MLX5_PF_TYPE_RDMA;
    uint8_t data[28] = { 0 };

    if (qp->pf_pending & (1u << MLX5_PF_TYPE_RDMA)) {
        return IB_WC_PAGE_FAULT;
    }
    mlx5_st32(data + PF_EQE_RDMA_r_key, rkey);
    mlx5_st16(data + PF_EQE_RDMA_packet_length, MIN(pkt_len, 0xffffu));
    mlx5_st32(data + PF_EQE_RDMA_rdma_op_len, op_len);
    mlx5_st64(data + PF_EQE_RDMA_rdma_va, va);
    mlx5_st32(data + PF_EQE_RDMA_pftype_token,
              ((uint32_t)type << 24) | qp->qpn);
    trace_mlx5_odp_fault(MLX5_PFAULT_SUBTYPE_RDMA, type, qp->qpn, rkey, va,
                         op_len);
    if (!mlx5_odp_post(c, MLX5_PFAULT_SUBTYPE_RDMA, data)) {
        return IB_WC_REM_ACCESS_ERR;
    }
    qp->pf_pending |= 1u << MLX5_PF_TYPE_RDMA;
    return IB_WC_PAGE_FAULT;
}

/*
 * PAGE_FAULT_RESUME: the driver has handled the fault of (type, wq_number). A
 * work queue that does not exist (destroyed meanwhile) is BAD_PARAM; a resume
 * with nothing outstanding is accepted and changes nothing.
 */
void mlx5_cmd_page_fault_resume(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t type, wq, token;
    bool error;
    Mlx5Qp *qp;

    if (!mlx5_cmd_in_ok(cmd, 0x10) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    if (!c->cfg.odp) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_OP_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    type = MLX5_GET(cmd->in, PAGE_FAULT_RESUME_IN_page_fault_type);
    wq = MLX5_GET(cmd->in, PAGE_FAULT_RESUME_IN_wq_number);
    token = MLX5_GET(cmd->in, PAGE_FAULT_RESUME_IN_fault_token);
    error = MLX5_GET(cmd->in, PAGE_FAULT_RESUME_IN_error);
    trace_mlx5_odp_resume(type, wq, token, error);

    if (type == MLX5_PF_TYPE_RMP) {
        Mlx5Srq *srq = mlx5_table_get(&c->srqs, wq);
        if (!srq) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_SRQ);
            return;
        }
        /*
         * The requester sends again after its RNR timer. Which QP's receive it
         * was is not in the resume: a failure fails the next receive from this
         * SRQ that faults.
         */
        srq->pf_pending = false;
        srq->pf_error = error;
        return;
    }
    qp = mlx5_table_get(&c->qps, wq);
    if (!qp) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_QPN);
        return;
    }
    if (type & MLX5_PF_TYPE_RDMA) {
        type = MLX5_PF_TYPE_RDMA;
    } else if (type > MLX5_PF_TYPE_REQ_READ_OR_ATOMIC) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    if (!(qp->pf_pending & (1u << type))) {
        return;
    }
    qp->pf_pending &= ~(1u << type);
    ib_qp_page_fault_resume(&qp->ib,
                            type & 1                    ? IB_PF_REQUESTER
                            : type == MLX5_PF_TYPE_RESP ? IB_PF_RECV
                                                        : IB_PF_RDMA,
                            error);
    if (qp->to_error || error) {
        mlx5_exec_queue(c, qp);
    }
}
