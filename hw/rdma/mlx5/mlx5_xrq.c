/*
 * mlx5 HCA core: hardware tag matching, the XRQ (CREATE/QUERY/DESTROY_XRQ)
 * with a tag list, as a ConnectX-5 offers it to mlx5_ib's TM-SRQs
 * (IBV_SRQT_TM) and to UCX and MPI.
 *
 * An XRQ is an SRQ (one table, one number space) with a list of 2^n tag
 * entries. libmlx5 changes the list through its command QP: TAG_MATCHING send
 * WQEs (APPEND at the device's append index, REMOVE by index, NOP), each with
 * a NO_PACKET CQE on the XRQ's CQ when asked for.
 *
 * A SEND arriving on a QP attached to the XRQ starts with a TMH (opcode, app
 * context, tag). EAGER and RNDV messages are matched against the eligible
 * entries, first appended first: ((tag ^ entry tag) & entry mask) == 0.
 *  - EAGER, matched: the payload after the TMH lands in the entry's buffer,
 *    CONSUMED_MSG; the entry is used up (no removal CQE).
 *  - RNDV, matched, on a QP with rendezvous offload (no send queue, QPC
 *    offload_type RNDV): CONSUMED, then the device reads the RVH's va/rkey/len
 *    from the sender into the entry's buffer on the same QP, EXPECTED when the
 *    read completes, and sends the sender a FIN (a SEND of the TMH with opcode
 *    FIN). Without offload, or a buffer too small, or no room to start the
 *    read: the headers land in the buffer, CONSUMED_MSG_SW_RDNV (the software
 *    finishes it).
 *  - not matched: the whole message goes to the next SRQ WQE, UNEXPECTED, and
 *    the hardware's phase count goes up; entries appended while the software's
 *    count (sw_cnt of an op with the SW_CNT flag) differs from it never match.
 *  - NO_TAG (and FIN, any other opcode, a message shorter than a TMH): the
 *    next SRQ WQE, NO_TAG.
 * Tag-matching CQEs carry the XRQ's user index and go to its CQ.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "hw/rdma/mlx5/mlx5_xrq_prm.h"
#include "trace.h"

/* the list sizes a ConnectX-5 reports: 2^7 - 1 tags */
#define MLX5_TM_LOG_LIST_SZ     7
#define MLX5_TM_MAX_RNDV_MSG    64      /* max_rndv_hdr_size */
/* rendezvous reads in flight per QP; an internal WR's cookie */
#define MLX5_TM_RNDV_MAX        4
#define MLX5_TM_COOKIE          (1ull << 62)

typedef struct Mlx5TmEntry {
    bool valid;
    bool eligible;              /* appended with the phases in step */
    uint32_t seq;               /* append order */
    uint64_t tag, mask;
    Mlx5Sge sge;
} Mlx5TmEntry;

typedef struct Mlx5Xrq {
    uint8_t log_list_sz;
    bool rndv;                  /* xrqc offload RNDV */
    uint16_t append_next;
    uint16_t sw_phase, hw_phase;
    uint32_t seq;
    Mlx5TmEntry *list;
} Mlx5Xrq;

typedef struct Mlx5TmRndv {
    bool busy;
    bool fin;                   /* the read is done, the FIN is on its way */
    uint16_t slot;
    uint32_t len;
    uint32_t srqn;
    Mlx5Sge sge;
    uint8_t fin_hdr[MLX5_TMH_SIZE];
} Mlx5TmRndv;

void mlx5_caps_tm(uint8_t *cap)
{
    MLX5_SET(cap, CAP_tag_matching, 1);
    MLX5_SET(cap, CAP_rndv_offload_rc, 1);
    MLX5_SET(cap, CAP_log_tag_matching_list_sz, MLX5_TM_LOG_LIST_SZ);
    MLX5_SET(cap, CAP_log_max_xrq, MLX5_GET(cap, CAP_log_max_srq));
}

void mlx5_xrq_free(Mlx5Srq *srq)
{
    if (srq->tm) {
        g_free(srq->tm->list);
        g_free(srq->tm);
        srq->tm = NULL;
    }
}

/* CREATE_XRQ: an RMP-like linked-list WQ with a tag list (topology 1) */
void mlx5_cmd_create_xrq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *xrqc = cmd->in + CREATE_XRQ_XRQC_OFF;
    uint32_t log_sz;
    Mlx5Srq *srq;
    Mlx5Xrq *x;

    if (!mlx5_cmd_in_ok(cmd, CREATE_XRQ_PAS_OFF) ||
        !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    log_sz = MLX5_GET(xrqc, XRQC_log_matching_list_sz);
    if (MLX5_GET(xrqc, XRQC_topology) != MLX5_XRQC_TOPOLOGY_TAG_MATCHING ||
        MLX5_GET(xrqc, XRQC_offload) > MLX5_XRQC_OFFLOAD_RNDV ||
        log_sz == 0 || log_sz > MLX5_TM_LOG_LIST_SZ) {
        trace_mlx5_xrq_bad(MLX5_GET(xrqc, XRQC_topology), log_sz);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    srq = mlx5_rmp_create(c, cmd, cmd->in + CREATE_XRQ_WQ_OFF,
                          CREATE_XRQ_PAS_OFF, MLX5_GET(xrqc, XRQC_cqn),
                          MLX5_GET(xrqc, XRQC_user_index));
    if (!srq) {
        return;
    }
    x = g_new0(Mlx5Xrq, 1);
    x->log_list_sz = log_sz;
    x->rndv = MLX5_GET(xrqc, XRQC_offload) == MLX5_XRQC_OFFLOAD_RNDV;
    x->list = g_new0(Mlx5TmEntry, 1u << log_sz);
    srq->tm = x;
    trace_mlx5_xrq_create(srq->srqn, log_sz, x->rndv);
}

void mlx5_cmd_query_xrq(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint8_t *xrqc = cmd->out + CREATE_XRQ_XRQC_OFF;
    Mlx5Srq *srq;

    if (!mlx5_cmd_in_ok(cmd, 0x10) ||
        !mlx5_cmd_out_ok(cmd, CREATE_XRQ_WQ_OFF + 64)) {
        return;
    }
    srq = mlx5_cmd_obj(cmd, &c->srqs, mlx5_cmd_handle_in(cmd));
    if (!srq || !srq->tm) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    MLX5_SET(xrqc, XRQC_topology, MLX5_XRQC_TOPOLOGY_TAG_MATCHING);
    MLX5_SET(xrqc, XRQC_offload, srq->tm->rndv);
    MLX5_SET(xrqc, XRQC_user_index, srq->user_index);
    MLX5_SET(xrqc, XRQC_cqn, srq->cqn);
    MLX5_SET(xrqc, XRQC_log_matching_list_sz, srq->tm->log_list_sz);
    MLX5_SET(xrqc, XRQC_append_next_index, srq->tm->append_next);
    MLX5_SET(xrqc, XRQC_sw_phase_cnt, srq->tm->sw_phase);
    MLX5_SET(xrqc, XRQC_hw_phase_cnt, srq->tm->hw_phase);
    mlx5_rmp_query_wq(srq, cmd->out + CREATE_XRQ_WQ_OFF);
}

/*
 * A tag-matching CQE to the XRQ's CQ: @head is its first 16 bytes (a TMH, or a
 * list operation's result).
 */
static void mlx5_xrq_cqe(Mlx5Core *c, const Mlx5Srq *srq, uint32_t qpn,
                         uint8_t opcode, uint8_t app_op, uint16_t info,
                         uint16_t wqe_counter, uint32_t byte_cnt,
                         const uint8_t *head, const uint32_t *imm)
{
    uint8_t cqe[MLX5_CQE_SIZE] = { 0 };

    if (head) {
        memcpy(cqe, head, 16);
    }
    if (imm) {
        memcpy(cqe + MLX5_CQE_imm_inval_pkey, imm, 4);  /* wire order */
    }
    mlx5_st32(cqe + MLX5_CQE_srqn_uidx, srq->user_index & 0xffffff);
    cqe[MLX5_CQE_app] = MLX5_CQE_APP_TAG_MATCHING;
    cqe[MLX5_CQE_app_op] = app_op;
    mlx5_st16(cqe + MLX5_CQE_app_info, info);
    mlx5_st32(cqe + MLX5_CQE_byte_cnt, byte_cnt);
    mlx5_st32(cqe + MLX5_CQE_sop_drop_qpn, qpn & 0xffffff);
    mlx5_st16(cqe + MLX5_CQE_wqe_counter, wqe_counter);
    cqe[MLX5_CQE_op_own] = opcode << 4;
    trace_mlx5_xrq_cqe(srq->srqn, qpn, app_op, info, byte_cnt);
    mlx5_cqe_post(c, srq->cqn, cqe, false);
}

static Mlx5Srq *mlx5_xrq_of(Mlx5Core *c, const Mlx5Qp *qp)
{
    Mlx5Srq *srq = qp->rq_type == MLX5_RQ_TYPE_SRQ
                       ? mlx5_table_get(&c->srqs, qp->srqn)
                       : NULL;

    return srq && srq->tm ? srq : NULL;
}

/* A TAG_MATCHING WQE of the command QP: one list operation. */
IbWcStatus mlx5_xrq_list_op(Mlx5Core *c, Mlx5Qp *qp, const uint8_t *wqe,
                            unsigned nbb, uint16_t idx)
{
    Mlx5Srq *srq = mlx5_xrq_of(c, qp);
    const uint8_t *seg = wqe + MLX5_TM_SEG;
    unsigned ds = wqe[7] & 0x3f, op = seg[MLX5_TM_SEG_opcode] >> 4;
    uint8_t flags = seg[MLX5_TM_SEG_flags], head[16] = { 0 }, app_op;
    uint16_t index = mlx5_ld16(seg + MLX5_TM_SEG_index), info = index;
    bool ok = true;
    Mlx5Xrq *x;
    uint32_t n;

    if (!srq || ds < 3 || (op == MLX5_TM_OPCODE_APPEND && ds < 4)) {
        trace_mlx5_xrq_op_bad(qp->qpn, op, index);
        return IB_WC_LOC_QP_OP_ERR;
    }
    x = srq->tm;
    n = 1u << x->log_list_sz;
    if (op > MLX5_TM_OPCODE_REMOVE ||
        (op != MLX5_TM_OPCODE_NOP && index >= n) ||
        (op == MLX5_TM_OPCODE_APPEND && x->list[x->append_next].valid)) {
        trace_mlx5_xrq_op_bad(qp->qpn, op, index);
        return IB_WC_LOC_QP_OP_ERR;
    }
    if (flags & MLX5_TM_FLAG_SW_CNT) {
        x->sw_phase = mlx5_ld16(seg + MLX5_TM_SEG_sw_cnt);
    }
    switch (op) {
    case MLX5_TM_OPCODE_APPEND: {
        Mlx5TmEntry *e = &x->list[x->append_next];
        const uint8_t *d = seg + MLX5_TM_SEG_data;

        info = x->append_next;
        e->valid = true;
        e->eligible = x->sw_phase == x->hw_phase;
        e->seq = x->seq++;
        e->tag = mlx5_ld64(seg + MLX5_TM_SEG_append_tag);
        e->mask = mlx5_ld64(seg + MLX5_TM_SEG_append_mask);
        e->sge.len = mlx5_ld32(d) & 0x7fffffff;
        e->sge.lkey = mlx5_ld32(d + 4);
        e->sge.addr = mlx5_ld64(d + 8);
        if (e->sge.lkey == MLX5_INVALID_LKEY) {
            e->sge.len = 0;
        }
        x->append_next = index;
        app_op = MLX5_CQE_APP_OP_TM_APPEND;
        break;
    }
    case MLX5_TM_OPCODE_REMOVE:
        /* fails if the entry was used up (or never there) */
        ok = x->list[index].valid;
        x->list[index].valid = false;
        app_op = MLX5_CQE_APP_OP_TM_REMOVE;
        break;
    default:
        app_op = MLX5_CQE_APP_OP_TM_NOOP;
        break;
    }
    trace_mlx5_xrq_op(srq->srqn, op, info, x->sw_phase, x->hw_phase);
    if (flags & MLX5_TM_FLAG_CQE_REQ) {
        mlx5_st32(head + MLX5_CQE_tm_success, ok ? 1u << 31 : 0);
        mlx5_st16(head + MLX5_CQE_tm_hw_phase_cnt, x->hw_phase);
        mlx5_xrq_cqe(c, srq, qp->qpn, MLX5_CQE_NO_PACKET, app_op, info, idx, 0,
                     head, NULL);
    }
    return IB_WC_SUCCESS;
}

/* The eligible entry @tag matches, first appended first, or -1. */
static int mlx5_xrq_match(const Mlx5Xrq *x, uint64_t tag)
{
    int best = -1;

    for (uint32_t i = 0; i < (1u << x->log_list_sz); i++) {
        const Mlx5TmEntry *e = &x->list[i];

        if (e->valid && e->eligible && !((tag ^ e->tag) & e->mask) &&
            (best < 0 || (int32_t)(e->seq - x->list[best].seq) < 0)) {
            best = i;
        }
    }
    return best;
}

/*
 * A SEND's first packet (@msg) on a QP attached to XRQ @srq: placed in a
 * matched entry (true: @rcv and @rwr describe it), or to go to the next SRQ WQE
 * (false: @rcv->tm_op says how it completes).
 */
bool mlx5_xrq_recv_get(Mlx5Core *c, Mlx5Qp *qp, Mlx5Srq *srq,
                       Mlx5RecvCtx *rcv, const uint8_t *msg, uint32_t len,
                       IbRecvWr *rwr)
{
    uint8_t op = len >= MLX5_TMH_SIZE ? msg[MLX5_TMH_opcode] : MLX5_TMH_NO_TAG;
    Mlx5TmEntry *e;
    int slot;

    memset(rcv->tm_hdr, 0, sizeof(rcv->tm_hdr));
    memcpy(rcv->tm_hdr, msg, MIN(len, sizeof(rcv->tm_hdr)));
    rcv->tm_skip = 0;
    rcv->cqn = srq->cqn;
    rcv->uidx = srq->user_index;
    if (op != MLX5_TMH_EAGER && op != MLX5_TMH_RNDV) {
        rcv->tm_op = MLX5_CQE_APP_OP_TM_NO_TAG;
        return false;
    }
    slot = mlx5_xrq_match(srq->tm, mlx5_ld64(rcv->tm_hdr + MLX5_TMH_tag));
    if (slot < 0 || (op == MLX5_TMH_RNDV && len < MLX5_RNDV_HDR_SIZE)) {
        rcv->tm_op = MLX5_CQE_APP_OP_TM_UNEXPECTED;
        return false;
    }
    e = &srq->tm->list[slot];
    e->valid = false;                   /* used up */
    rcv->tm_slot = slot;
    rcv->srqn = UINT32_MAX;
    rcv->pdn = srq->pdn;
    rcv->wqe_counter = 0;
    rcv->nsge = e->sge.len ? 1 : 0;
    rcv->sge[0] = e->sge;
    rwr->cookie = 0;
    if (op == MLX5_TMH_EAGER) {
        rcv->tm_op = MLX5_CQE_APP_OP_TM_CONSUMED_MSG;
        rcv->tm_skip = MLX5_TMH_SIZE;
        rwr->capacity = (uint64_t)e->sge.len + MLX5_TMH_SIZE;
    } else {
        /* the headers were kept; the data comes by the device's read */
        rcv->tm_op = MLX5_CQE_APP_OP_TM_CONSUMED;
        rcv->tm_skip = UINT32_MAX;
        rwr->capacity = MLX5_TM_MAX_RNDV_MSG;
    }
    trace_mlx5_xrq_match(srq->srqn, qp->qpn, op, slot);
    return true;
}

/* Rendezvous: read the sender's data into the entry's buffer, or hand over. */
static void mlx5_xrq_rndv(Mlx5Core *c, Mlx5Qp *qp, Mlx5Srq *srq,
                          const Mlx5RecvCtx *rcv, uint32_t byte_len)
{
    uint32_t len = mlx5_ld32(rcv->tm_hdr + MLX5_RVH_len);
    uint64_t cap = rcv->nsge ? rcv->sge[0].len : 0;
    Mlx5TmRndv *r = NULL;
    IbSendWr wr = { 0 };
    unsigned i;

    if (qp->tm_rndv && srq->tm->rndv && len <= cap &&
        qp->ib.swq_size - ib_qp_outstanding(&qp->ib) >= 2) {
        for (i = 0; i < MLX5_TM_RNDV_MAX && !r; i++) {
            r = qp->tm_rndv_ctx[i].busy ? NULL : &qp->tm_rndv_ctx[i];
        }
    }
    if (!r) {
        /* the software finishes it: the headers land in the buffer */
        uint32_t n = MIN(MIN(byte_len, MLX5_RNDV_HDR_SIZE), cap);

        if (n) {
            mlx5_sgl_copy(c, rcv->pdn, rcv->sge, 1, 1, 0, 0,
                          (void *)rcv->tm_hdr, n, true);
        }
        mlx5_xrq_cqe(c, srq, qp->qpn, MLX5_CQE_RESP_SEND,
                     MLX5_CQE_APP_OP_TM_CONSUMED_MSG_SW_RDNV, rcv->tm_slot, 0,
                     n, rcv->tm_hdr, NULL);
        return;
    }
    /* (the first of two completions: libmlx5 decodes it as a NO_PACKET's) */
    mlx5_xrq_cqe(c, srq, qp->qpn, MLX5_CQE_NO_PACKET,
                 MLX5_CQE_APP_OP_TM_CONSUMED, rcv->tm_slot, 0, 0, rcv->tm_hdr,
                 NULL);
    *r = (Mlx5TmRndv){
        .busy = true, .slot = rcv->tm_slot, .len = len, .srqn = srq->srqn,
        .sge = rcv->sge[0],
    };
    memcpy(r->fin_hdr, rcv->tm_hdr, MLX5_TMH_SIZE);
    r->fin_hdr[MLX5_TMH_opcode] = MLX5_TMH_FIN;
    wr.cookie = MLX5_TM_COOKIE | (r - qp->tm_rndv_ctx);
    wr.opcode = IB_WR_RDMA_READ;
    wr.length = len;
    wr.remote_addr = mlx5_ld64(rcv->tm_hdr + MLX5_RVH_va);
    wr.rkey = mlx5_ld32(rcv->tm_hdr + MLX5_RVH_rkey);
    ib_qp_post_send(&qp->ib, &wr);      /* (room checked above) */
    trace_mlx5_xrq_rndv(qp->qpn, r->slot, wr.remote_addr, wr.rkey, len);
    mlx5_exec_queue(c, qp);
}

/*
 * A message's own completion: its opcode (SEND, with immediate or invalidate)
 * and immediate, as any receive's (UCX's eager protocol sends with immediate).
 */
static void mlx5_xrq_msg_cqe(Mlx5Core *c, const Mlx5Srq *srq, uint32_t qpn,
                             const IbRecvCompletion *rc, uint8_t app_op,
                             uint16_t info, uint16_t wqe_counter,
                             uint32_t byte_cnt, const uint8_t *head)
{
    uint8_t opcode = rc->opcode == IB_RECV_SEND_IMM ? MLX5_CQE_RESP_SEND_IMM
                     : rc->opcode == IB_RECV_SEND_INV ? MLX5_CQE_RESP_SEND_INV
                                                       : MLX5_CQE_RESP_SEND;

    mlx5_xrq_cqe(c, srq, qpn, opcode, app_op, info, wqe_counter, byte_cnt,
                 head, opcode != MLX5_CQE_RESP_SEND ? &rc->imm : NULL);
}

bool mlx5_xrq_recv_done(Mlx5Core *c, Mlx5Qp *qp, Mlx5RecvCtx *rcv,
                        const IbRecvCompletion *rc)
{
    Mlx5Srq *srq = mlx5_xrq_of(c, qp);
    static const uint8_t zero[16];

    if (!rcv->tm_op || !srq || rc->status != IB_WC_SUCCESS) {
        return false;                   /* an ordinary (error) completion */
    }
    switch (rcv->tm_op) {
    case MLX5_CQE_APP_OP_TM_UNEXPECTED:
        srq->tm->hw_phase++;
        /* fall through */
    case MLX5_CQE_APP_OP_TM_NO_TAG:
        mlx5_xrq_msg_cqe(c, srq, qp->qpn, rc, rcv->tm_op, 0, rcv->wqe_counter,
                         rc->byte_len, zero);
        break;
    case MLX5_CQE_APP_OP_TM_CONSUMED_MSG:
        mlx5_xrq_msg_cqe(c, srq, qp->qpn, rc, rcv->tm_op, rcv->tm_slot, 0,
                         rc->byte_len - MLX5_TMH_SIZE, rcv->tm_hdr);
        break;
    default:
        mlx5_xrq_rndv(c, qp, srq, rcv, rc->byte_len);
        break;
    }
    rcv->tm_op = 0;
    return true;
}

/* The part of a matched message that lands in the entry's buffer. */
bool mlx5_xrq_recv_skip(const Mlx5RecvCtx *rcv, uint64_t *off,
                        const uint8_t **buf, uint32_t *len)
{
    uint64_t skip = rcv->tm_skip;

    if (skip == UINT32_MAX || *off + *len <= skip) {
        return false;
    }
    if (*off < skip) {
        *buf += skip - *off;
        *len -= skip - *off;
        *off = 0;
    } else {
        *off -= skip;
    }
    return true;
}

/* ---- the device's own rendezvous WRs (the read, then the FIN) ------------ */

bool mlx5_xrq_internal(const IbSendWr *wr)
{
    return wr->cookie & MLX5_TM_COOKIE;
}

static Mlx5TmRndv *mlx5_xrq_rndv_of(Mlx5Qp *qp, const IbSendWr *wr)
{
    uint32_t i = wr->cookie & 0xff;

    return qp->tm_rndv_ctx && i < MLX5_TM_RNDV_MAX ? &qp->tm_rndv_ctx[i]
                                                   : NULL;
}

IbWcStatus mlx5_xrq_gather(Mlx5Qp *qp, const IbSendWr *wr, uint64_t off,
                           void *buf, uint32_t len)
{
    Mlx5TmRndv *r = mlx5_xrq_rndv_of(qp, wr);

    if (!r || off + len > sizeof(r->fin_hdr)) {
        return IB_WC_LOC_LEN_ERR;
    }
    memcpy(buf, r->fin_hdr + off, len);
    return IB_WC_SUCCESS;
}

IbWcStatus mlx5_xrq_scatter(Mlx5Core *c, Mlx5Qp *qp, const IbSendWr *wr,
                            uint64_t off, const void *buf, uint32_t len)
{
    Mlx5TmRndv *r = mlx5_xrq_rndv_of(qp, wr);
    Mlx5Srq *srq = r ? mlx5_table_get(&c->srqs, r->srqn) : NULL;
    IbWcStatus st;

    if (!srq) {
        return IB_WC_LOC_PROT_ERR;
    }
    st = mlx5_sgl_copy(c, srq->pdn, &r->sge, 1, 1, 0, off, (void *)buf, len,
                       true);
    /* (no page faults for the device's own reads) */
    return st == IB_WC_PAGE_FAULT ? IB_WC_LOC_PROT_ERR : st;
}

/* The read done: EXPECTED and the FIN; the FIN done: the context is free. */
void mlx5_xrq_send_done(Mlx5Core *c, Mlx5Qp *qp, const IbSendWr *wr,
                        IbWcStatus st)
{
    Mlx5TmRndv *r = mlx5_xrq_rndv_of(qp, wr);
    Mlx5Srq *srq = r ? mlx5_table_get(&c->srqs, r->srqn) : NULL;
    static const uint8_t zero[16];
    IbSendWr fin = { 0 };

    if (!r || !r->busy) {
        return;
    }
    if (!r->fin && srq) {
        mlx5_xrq_cqe(c, srq, qp->qpn, MLX5_CQE_RESP_SEND,
                     st == IB_WC_SUCCESS
                         ? MLX5_CQE_APP_OP_TM_EXPECTED
                         : MLX5_CQE_APP_OP_TM_MSG_COMPLETION_CANCELED,
                     r->slot, 0, st == IB_WC_SUCCESS ? r->len : 0, zero, NULL);
    }
    if (!r->fin && st == IB_WC_SUCCESS) {
        r->fin = true;
        fin.cookie = wr->cookie;
        fin.opcode = IB_WR_SEND;
        fin.length = sizeof(r->fin_hdr);
        ib_qp_post_send(&qp->ib, &fin);  /* (the read's room) */
        mlx5_exec_queue(c, qp);
        return;
    }
    r->busy = false;
    if (st != IB_WC_SUCCESS && st != IB_WC_WR_FLUSH_ERR &&
        qp->state != MLX5_QP_STATE_ERR) {
        qp->to_error = true;
        mlx5_exec_queue(c, qp);
    }
}

/*
 * At CREATE_QP: a QP with no send queue that asks for rendezvous offload on a
 * tag-matching XRQ gets the device's read and FIN contexts. Returns the send
 * queue entries the transport needs for them.
 */
uint32_t mlx5_xrq_qp_init(Mlx5Core *c, Mlx5Qp *qp, const uint8_t *qpc)
{
    qp->tm_rndv =
        qp->no_sq && mlx5_xrq_of(c, qp) &&
        MLX5_GET(qpc, QPC_offload_type) == MLX5_QPC_OFFLOAD_TYPE_RNDV;
    if (!qp->tm_rndv) {
        return 0;
    }
    qp->tm_rndv_ctx = g_new0(Mlx5TmRndv, MLX5_TM_RNDV_MAX);
    return 2 * MLX5_TM_RNDV_MAX;
}

void mlx5_xrq_qp_fini(Mlx5Qp *qp)
{
    g_free(qp->tm_rndv_ctx);
    qp->tm_rndv_ctx = NULL;
}
