/*
 * mlx5 HCA core: the seed recorder. With Mlx5CoreOps.record set (the device's
 * fuzz-record property), the guest's inputs are handed over as they arrive,
 * each as one record in the input format of a fuzz target (tests/fuzz/fuzz-*.c,
 * docs/hardening.md): commands, send and receive WQEs, frames and the MADs in
 * them, BAR0 writes. Recorded from real guest runs, they are the seed corpora
 * of the fuzz targets. Without the op every function here is a test and a
 * return.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_internal.h"
#include "mlx5_cmd.h"
#include "hw/rdma/ib/ib_wire.h"

const char *const mlx5_record_names[MLX5_RECORD_KINDS] = {
    [MLX5_RECORD_CMD] = "cmd",
    [MLX5_RECORD_WQE] = "wqe",
    [MLX5_RECORD_FRAME] = "frame",
    [MLX5_RECORD_MAD] = "mad",
    [MLX5_RECORD_MMIO] = "mmio",
};

/* fuzz-wqe's queue selectors */
enum { SEL_RC, SEL_UC, SEL_UD, SEL_RC_SRQ, SEL_QP1, SEL_DCI_OR_SRQ };

static void mlx5_record(Mlx5Core *c, Mlx5RecordKind kind, const uint8_t *hdr,
                        size_t hlen, const void *body, size_t blen)
{
    g_autofree uint8_t *rec = g_malloc(hlen + blen);

    memcpy(rec, hdr, hlen);
    memcpy(rec + hlen, body, blen);
    c->ops->record(c->opaque, kind, rec, hlen + blen);
}

/* fuzz-mad: kind, slid, MAD */
static void mlx5_record_mad(Mlx5Core *c, uint8_t kind, uint16_t slid,
                            const uint8_t *mad)
{
    uint8_t hdr[3] = { kind, slid >> 8, slid & 0xff };

    mlx5_record(c, MLX5_RECORD_MAD, hdr, sizeof(hdr), mad, MLX5_MAD_SIZE);
}

/* fuzz-cmd: mode 0 (delivered intact), inlen, outlen, the input */
void mlx5_record_cmd(Mlx5Core *c, const uint8_t *in, uint32_t inlen,
                     uint32_t outlen)
{
    uint16_t olen = MIN(outlen, 0xffff);
    uint8_t hdr[5] = { 0, inlen >> 8, inlen & 0xff, olen >> 8, olen & 0xff };

    if (!c->ops->record || inlen > 0xffff) {
        return;
    }
    mlx5_record(c, MLX5_RECORD_CMD, hdr, sizeof(hdr), in, inlen);
    if (MLX5_GET(in, CMD_IN_opcode) == MLX5_CMD_OP_MAD_IFC &&
        inlen >= MAD_IFC_SIZE) {
        mlx5_record_mad(c, 3, MLX5_GET(in, MAD_IFC_IN_remote_lid),
                        in + MAD_IFC_MAD_OFF);
    }
}

static uint8_t mlx5_record_sel(const Mlx5Qp *qp)
{
    switch (qp->st) {
    case MLX5_QP_ST_UC:
        return SEL_UC;
    case MLX5_QP_ST_UD:
        return SEL_UD;
    case MLX5_QP_ST_QP1:
        return SEL_QP1;
    case MLX5_QP_ST_DCI:
        return SEL_DCI_OR_SRQ;
    default:
        return qp->rq_type == MLX5_RQ_TYPE_SRQ ? SEL_RC_SRQ : SEL_RC;
    }
}

/*
 * fuzz-wqe, a send WQE: its queue's selector, flags (set the ctrl segment's
 * index and QPN, count exactly this WQE, aim the address vector at the fuzzed
 * node), up to 4 WQEBBs
 */
void mlx5_record_send_wqe(Mlx5Core *c, const Mlx5Qp *qp, const uint8_t *wqe,
                          unsigned nbb)
{
    uint8_t hdr[5] = { mlx5_record_sel(qp), 0x23, 0, 0, 0 };

    if (c->ops->record) {
        nbb = MIN(MAX(nbb, 1u), 4u);
        hdr[4] = nbb - 1;
        mlx5_record(c, MLX5_RECORD_WQE, hdr, sizeof(hdr), wqe,
                    nbb * MLX5_SEND_WQE_BB);
    }
}

/* fuzz-wqe, a receive WQE (its first 64 bytes) of a QP's RQ or of the SRQ */
void mlx5_record_recv_wqe(Mlx5Core *c, const Mlx5Qp *qp, bool srq,
                          const uint8_t *wqe, uint32_t stride)
{
    uint8_t hdr[5] = { 0x80 | (srq ? SEL_DCI_OR_SRQ : mlx5_record_sel(qp)),
                       0x02, 0, 0, 0 };
    uint8_t w[64] = { 0 };

    if (c->ops->record) {
        memcpy(w, wqe, MIN(stride, sizeof(w)));
        mlx5_record(c, MLX5_RECORD_WQE, hdr, sizeof(hdr), w, sizeof(w));
    }
}

/*
 * fuzz-frame: flags (fix the lengths and ICRC, address it to the fuzzed port,
 * map the QPN), the frame; and, for a MAD to QP0/QP1, fuzz-mad's record of it
 */
void mlx5_record_frame(Mlx5Core *c, const uint8_t *frame, size_t len)
{
    uint16_t flen = MIN(len, 0xffff);
    uint8_t hdr[3] = { 0x07, flen >> 8, flen & 0xff };
    IbPacket p;

    if (!c->ops->record) {
        return;
    }
    mlx5_record(c, MLX5_RECORD_FRAME, hdr, sizeof(hdr), frame, flen);
    if (ib_wire_decode(frame, len, &p) == 0 && p.dest_qpn <= 1 &&
        p.opcode == (IB_TRANSPORT_UD | IB_OP_SEND_ONLY) &&
        p.payload_len == MLX5_MAD_SIZE) {
        uint8_t kind = p.dest_qpn ? 2 : p.dlid == IB_LID_PERMISSIVE ? 1 : 0;
        mlx5_record_mad(c, kind | (p.grh ? 4 : 0), p.slid, p.payload);
    }
}

/* fuzz-mmio: kind 0 (write), size index, offset, value */
void mlx5_record_mmio(Mlx5Core *c, uint64_t off, uint64_t val, unsigned size)
{
    uint8_t rec[14] = { 0, size == 8 ? 3 : size == 4 ? 2 : size == 2 ? 1 : 0 };

    if (c->ops->record) {
        mlx5_st32(rec + 2, off);
        mlx5_st64(rec + 6, val);
        c->ops->record(c->opaque, MLX5_RECORD_MMIO, rec, sizeof(rec));
    }
}
