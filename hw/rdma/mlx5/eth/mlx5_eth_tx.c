/*
 * mlx5 HCA core, Ethernet port: the send side. An SQ's WQEs (NOP, SEND, LSO,
 * enhanced multi-packet sends, UMR on mlx5e's ICOSQ) are copied in; the frame
 * is the eth segment's inline headers followed by the gathered data; checksums
 * are filled in as cs_flags ask, an LSO WQE is cut into mss-sized TCP or UDP
 * segments, and each frame goes out on the link. CQEs are written for
 * signalled WQEs; an SQ in error flushes.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "trace.h"

/*
 * Fill the IPv4 header checksum and/or the TCP/UDP checksum of frame @f as
 * parsed in @h.
 */
static void mlx5_eth_fill_csum(uint8_t *f, size_t len, const IbEthHdr *h,
                               bool l3, bool l4)
{
    uint32_t sum;
    size_t l4len;
    unsigned off;

    if (l3 && h->ip_version == 4) {
        unsigned ihl = (f[h->l3] & 0xf) * 4;
        mlx5_st16(f + h->l3 + 10, 0);
        mlx5_st16(f + h->l3 + 10,
                  ~ib_csum_fold(ib_csum_add(0, f + h->l3, ihl)));
    }
    if (!l4 || !h->l4 || h->frag || (h->proto != 6 && h->proto != 17)) {
        return;
    }
    l4len = MIN(len, (size_t)h->l3 + h->l3_len) - h->l4;
    off = h->l4 + (h->proto == 6 ? 16 : 6);
    if (off + 2 > len) {
        return;
    }
    mlx5_st16(f + off, 0);
    sum = h->ip_version == 4 ? ib_csum_add(0, h->src, 4)
                             : ib_csum_add(0, h->src, 16);
    sum = h->ip_version == 4 ? ib_csum_add(sum, h->dst, 4)
                             : ib_csum_add(sum, h->dst, 16);
    sum = ib_csum_fold(sum + h->proto + (uint32_t)(l4len >> 16) +
                         (uint32_t)(l4len & 0xffff));
    sum = (uint16_t)~ib_csum_fold(ib_csum_add(sum, f + h->l4, l4len));
    if (h->proto == 17 && sum == 0) {
        sum = 0xffff;
    }
    mlx5_st16(f + off, sum);
}

/* ---- frames out ---------------------------------------------------------- */

/*
 * Send @f from @sq (room for MLX5_ETH_MIN_FRAME bytes): through the NIC TX
 * tables, then back to this function (mlx5_eth_loopback), out on the link, or
 * both.
 */
static void mlx5_eth_xmit(Mlx5Core *c, Mlx5Qp *sq, uint8_t *f, size_t len)
{
    Mlx5Eth *e = c->eth;
    Mlx5Tis *tis = sq->tisn ? mlx5_table_get(&e->tises, sq->tisn) : NULL;
    g_autofree uint8_t *owned = NULL;
    struct iovec iov;

    /* the NIC TX tables (mlx5_flow_tx.c) may drop, rewrite or encap it */
    if (!mlx5_flow_steer_tx(c, sq->qpn, &f, &len, &owned)) {
        return;
    }

    if (len < MLX5_ETH_MIN_FRAME) {
        memset(f + len, 0, MLX5_ETH_MIN_FRAME - len);
        len = MLX5_ETH_MIN_FRAME;
    }
    mlx5_eth_count(&e->cnt.tx, f, len);
    mlx5_pp_charge(c, sq, len);
    trace_mlx5_eth_tx(len, mlx5_ld16(f + 12));
    /*
     * an SQ without a TIS has no transport domain: no TIR counts it as its own
     */
    if (mlx5_eth_loopback(c, tis ? tis->td : UINT32_MAX, f, len)) {
        return;
    }
    if (!e->oper_up) {
        return;                 /* the port is down: the frame is lost */
    }
    iov.iov_base = f;
    iov.iov_len = len;
    if (!mlx5_port_tx(c, sq->qpn, &iov, 1, false)) {
        e->tx_blocked = true;   /* taken; the next waits for link_tx_ready */
    }
}

/*
 * Fill the checksums the eth segment's cs_flags @cs ask for in frame @f. In a
 * VXLAN tunnel (mlx5_vxlan.c) the inner flags are the inner frame's IPv4 header
 * and TCP/UDP checksums, filled first, and the outer ones the outer headers';
 * outside one the inner flags mean nothing.
 */
static void mlx5_eth_tx_csum(Mlx5Eth *e, uint8_t *f, size_t len, uint8_t cs)
{
    IbEthHdr h, in;
    size_t off = 0;

    if (!(cs & MLX5_ETH_WQE_CSUM_ALL) || !ib_eth_parse(f, len, &h)) {
        return;
    }
    if (cs & (MLX5_ETH_WQE_L3_INNER_CSUM | MLX5_ETH_WQE_L4_INNER_CSUM)) {
        off = mlx5_vxlan_inner(e, f, len, &h, &in);
    }
    if (off) {
        mlx5_eth_fill_csum(f + off, len - off, &in,
                           cs & MLX5_ETH_WQE_L3_INNER_CSUM,
                           cs & MLX5_ETH_WQE_L4_INNER_CSUM);
    }
    mlx5_eth_fill_csum(f, len, &h, cs & MLX5_ETH_WQE_L3_CSUM,
                       cs & MLX5_ETH_WQE_L4_CSUM);
}

/*
 * Cut the LSO frame @f (@hlen header bytes, then the payload) into @mss-byte
 * segments and send them, each with its IP length, IPv4 id and checksum, TCP
 * sequence number and flags (FIN and PSH on the last only, CWR on the first
 * only) or UDP length, and L4 checksum. With inner flags in @cs and a VXLAN
 * tunnel, the inner frame's TCP or UDP is cut, and each segment's outer IP
 * length, IPv4 id and header checksum and UDP length follow it; the outer UDP
 * checksum stays as the driver wrote it (GSO_PARTIAL: computed for one
 * segment).
 */
static IbWcStatus mlx5_eth_lso(Mlx5Core *c, Mlx5Qp *sq, uint8_t *f, size_t len,
                               uint16_t mss, uint8_t cs)
{
    g_autofree uint8_t *seg = NULL;
    IbEthHdr oh, h;
    size_t base = 0, hlen, off, n, l3, l4;
    uint32_t seq = 0;
    uint16_t id = 0, oid = 0;
    unsigned i = 0;

    if (!ib_eth_parse(f, len, &oh)) {
        return IB_WC_LOC_QP_OP_ERR;
    }
    h = oh;
    if (cs & (MLX5_ETH_WQE_L3_INNER_CSUM | MLX5_ETH_WQE_L4_INNER_CSUM)) {
        base = mlx5_vxlan_inner(c->eth, f, len, &oh, &h);
        if (!base) {
            h = oh;
        }
    }
    if (!h.l4 || h.frag || (h.proto != 6 && h.proto != 17) || mss == 0) {
        return IB_WC_LOC_QP_OP_ERR;
    }
    l3 = base + h.l3;
    l4 = base + h.l4;
    hlen = h.proto == 6 ? l4 + (size_t)(f[l4 + 12] >> 4) * 4 : l4 + 8u;
    if (hlen > len || hlen + mss > MLX5_ETH_MAX_FRAME) {
        return IB_WC_LOC_QP_OP_ERR;
    }
    if (h.proto == 6) {
        seq = mlx5_ld32(f + l4 + 4);
    }
    if (h.ip_version == 4) {
        id = mlx5_ld16(f + l3 + 4);
    }
    if (base && oh.ip_version == 4) {
        oid = mlx5_ld16(f + oh.l3 + 4);
    }
    seg = g_malloc(hlen + mss + MLX5_ETH_MIN_FRAME);
    for (off = hlen; off < len || (off == hlen && len == hlen); off += n, i++) {
        size_t slen;
        IbEthHdr sh;

        n = MIN((size_t)mss, len - off);
        slen = hlen + n;
        memcpy(seg, f, hlen);
        memcpy(seg + hlen, f + off, n);
        if (h.ip_version == 4) {
            mlx5_st16(seg + l3 + 2, slen - l3);
            mlx5_st16(seg + l3 + 4, id + i);
        } else {
            mlx5_st16(seg + l3 + 4, slen - l3 - 40);
        }
        if (h.proto == 6) {
            uint8_t *fl = seg + l4 + 13;
            mlx5_st32(seg + l4 + 4, seq + (uint32_t)(off - hlen));
            if (off + n < len) {
                *fl &= ~0x09;           /* FIN, PSH */
            }
            if (i) {
                *fl &= ~0x80;           /* CWR */
            }
        } else {
            mlx5_st16(seg + l4 + 4, slen - l4);
        }
        if (base) {
            if (oh.ip_version == 4) {
                mlx5_st16(seg + oh.l3 + 2, slen - oh.l3);
                mlx5_st16(seg + oh.l3 + 4, oid + i);
            } else {
                mlx5_st16(seg + oh.l3 + 4, slen - oh.l3 - 40);
            }
            mlx5_st16(seg + oh.l4 + 4, slen - oh.l4);
        }
        if (!ib_eth_parse(seg + base, slen - base, &sh)) {
            return IB_WC_LOC_QP_OP_ERR;
        }
        mlx5_eth_fill_csum(seg + base, slen - base, &sh, true, true);
        if (base && ib_eth_parse(seg, slen, &sh)) {
            mlx5_eth_fill_csum(seg, slen, &sh, true, false);
        }
        mlx5_eth_xmit(c, sq, seg, slen);
        if (n == 0) {
            break;
        }
    }
    if (base) {
        trace_mlx5_eth_tunnel_lso(sq->qpn, i, mss);
    }
    return IB_WC_SUCCESS;
}

/* ---- the send queue ------------------------------------------------------ */

static int mlx5_eth_sq_fetch(Mlx5Core *c, Mlx5Qp *sq, uint16_t idx,
                             uint8_t *wqe, unsigned nbb)
{
    unsigned i;

    for (i = 0; i < nbb; i++) {
        uint64_t off = (uint64_t)((idx + i) & (sq->sq_cnt - 1)) *
                       MLX5_SEND_WQE_BB;
        if (mlx5_buf_read(c, &sq->buf, off, wqe + i * MLX5_SEND_WQE_BB,
                          MLX5_SEND_WQE_BB)) {
            return -1;
        }
    }
    return 0;
}

static void mlx5_eth_sq_cqe(Mlx5Core *c, Mlx5Qp *sq, uint16_t idx,
                            uint8_t opcode, IbWcStatus st)
{
    uint8_t cqe[MLX5_CQE_SIZE] = { 0 };

    mlx5_st32(cqe + MLX5_CQE_srqn_uidx, sq->user_index & 0xffffff);
    mlx5_st32(cqe + MLX5_CQE_sop_drop_qpn, ((uint32_t)opcode << 24) | sq->qpn);
    mlx5_st16(cqe + MLX5_CQE_wqe_counter, idx);
    if (st == IB_WC_SUCCESS) {
        cqe[MLX5_CQE_op_own] = MLX5_CQE_REQ << 4;
    } else {
        cqe[MLX5_CQE_syndrome] = mlx5_syndrome(st);
        cqe[MLX5_CQE_op_own] = MLX5_CQE_REQ_ERR << 4;
        if (st != IB_WC_WR_FLUSH_ERR) {
            trace_mlx5_err_send_cqe(sq->qpn, idx, cqe[MLX5_CQE_syndrome]);
        }
    }
    mlx5_cqe_post(c, sq->cqn_snd, cqe, st != IB_WC_SUCCESS);
}

/*
 * Build and send the frame of a SEND or LSO WQE of @nds 16-byte segments. The
 * frame is the inline headers, then the data segments' bytes read through their
 * lkeys.
 */
static IbWcStatus mlx5_eth_send(Mlx5Core *c, Mlx5Qp *sq, const uint8_t *wqe,
                                unsigned nds, bool lso)
{
    const uint8_t *es = wqe + MLX5_ESEG_OFF;
    uint8_t cs = es[MLX5_ESEG_cs_flags];
    uint16_t mss = mlx5_ld16(es + MLX5_ESEG_mss);
    size_t ihs = mlx5_ld16(es + MLX5_ESEG_inline_sz) & 0x3ff;
    size_t max = lso ? MLX5_ETH_MAX_TSO : MLX5_ETH_MAX_FRAME;
    uint8_t *f = c->eth->frame;
    size_t len, first;
    unsigned d;

    /*
     * ctrl, eth segment (2 inline bytes), the inline rest, then data segments
     */
    first = 2 + (ihs > 2 ? (ihs - 2 + 15) / 16 : 0);
    if (nds < 2 || first > nds ||
        MLX5_ESEG_OFF + MLX5_ESEG_inline + ihs > nds * 16u) {
        return IB_WC_LOC_LEN_ERR;       /* inline headers beyond the WQE */
    }
    memcpy(f, es + MLX5_ESEG_inline, ihs);
    len = ihs;
    for (d = first; d < nds; d++) {
        const uint8_t *ds = wqe + d * 16;
        uint32_t bc = mlx5_ld32(ds) & 0x7fffffff;
        int r;

        if (mlx5_ld32(ds) & 0x80000000u) {
            /* inline data segments: not for these opcodes */
            return IB_WC_LOC_QP_OP_ERR;
        }
        if (bc > max - len) {
            return IB_WC_LOC_LEN_ERR;
        }
        r = mlx5_mkey_copy(c, mlx5_ld32(ds + 4), sq->pdn, MLX5_MKEY_LR,
                           mlx5_ld64(ds + 8), f + len, bc, false);
        if (r) {
            return mlx5_xlate_status(r, false);
        }
        len += bc;
    }
    if (len < IB_ETH_HLEN) {
        return IB_WC_LOC_LEN_ERR;
    }
    if (lso) {
        return mlx5_eth_lso(c, sq, f, len, mss, cs);
    }
    mlx5_eth_tx_csum(c->eth, f, len, cs);
    mlx5_eth_xmit(c, sq, f, len);
    return IB_WC_SUCCESS;
}

/*
 * An enhanced multi-packet send WQE of @nds segments: the eth segment (no
 * inline headers) applies to every frame; each data segment after it is a
 * frame read through its lkey, each inline segment (byte_count bit 31) a frame
 * in the WQE itself, padded to 16 bytes.
 */
static IbWcStatus mlx5_eth_mpw_send(Mlx5Core *c, Mlx5Qp *sq,
                                    const uint8_t *wqe, unsigned nds)
{
    const uint8_t *es = wqe + MLX5_ESEG_OFF;
    uint8_t cs = es[MLX5_ESEG_cs_flags];
    uint8_t *f = c->eth->frame;
    unsigned d = 2, n = 0;

    if (nds < 3 || mlx5_ld16(es + MLX5_ESEG_inline_sz) & 0x3ff) {
        return IB_WC_LOC_QP_OP_ERR;
    }
    while (d < nds) {
        const uint8_t *ds = wqe + d * 16;
        uint32_t bc = mlx5_ld32(ds);
        size_t len = bc & ~MLX5_INLINE_SEG;

        if (len < IB_ETH_HLEN || len > MLX5_ETH_MAX_FRAME) {
            return IB_WC_LOC_LEN_ERR;
        }
        if (bc & MLX5_INLINE_SEG) {
            unsigned segs = (4 + len + 15) / 16;
            if (d + segs > nds) {
                return IB_WC_LOC_LEN_ERR;   /* beyond the WQE */
            }
            memcpy(f, ds + 4, len);
            d += segs;
        } else {
            int r = mlx5_mkey_copy(c, mlx5_ld32(ds + 4), sq->pdn, MLX5_MKEY_LR,
                                   mlx5_ld64(ds + 8), f, len, false);
            if (r) {
                return mlx5_xlate_status(r, false);
            }
            d++;
        }
        mlx5_eth_tx_csum(c->eth, f, len, cs);
        mlx5_eth_xmit(c, sq, f, len);
        n++;
    }
    trace_mlx5_eth_mpw(sq->qpn, n);
    return IB_WC_SUCCESS;
}

bool mlx5_eth_sq_process(Mlx5Core *c, Mlx5Qp *sq, unsigned budget)
{
    uint8_t wqe[MLX5_SEND_WQE_MAX_WQEBBS * MLX5_SEND_WQE_BB];
    uint8_t dbr[4];
    uint16_t pi;

    if (sq->wq_state == MLX5_WQ_STATE_RST || !c->eth) {
        return false;
    }
    if (mlx5_dma_read(c, sq->dbr_addr + 4, dbr, 4)) {
        sq->wq_state = MLX5_WQ_STATE_ERR;
        return false;
    }
    pi = mlx5_ld32(dbr) & 0xffff;
    if ((uint16_t)(pi - sq->sq_ci) > sq->sq_cnt) {
        trace_mlx5_err_sq_counter(sq->qpn, pi, sq->sq_ci);
        sq->wq_state = MLX5_WQ_STATE_ERR;
        sq->sq_ci = pi;
        return false;
    }
    /*
     * steering entries written before these WQEs were posted take effect
     * first: mlx5dv_dr's RDMA WRITEs through its force-loopback QPs may still
     * wait in the port's loopback ring (its bottom half has not run), and on a
     * card they land long before the next frame is steered
     */
    if (mlx5_sw_icm_offered(&c->cfg)) {
        for (unsigned i = 0; i < 4 && c->ib.lb_count; i++) {
            ib_port_run(&c->ib, IB_LOOPBACK_FRAMES);
        }
    }
    while (sq->sq_ci != pi && budget--) {
        uint16_t idx = sq->sq_ci;
        unsigned nds, nbb, bf;
        uint8_t opcode;
        IbWcStatus st;

        if (c->eth->tx_blocked && sq->wq_state == MLX5_WQ_STATE_RDY) {
            return false;               /* mlx5_eth_tx_ready requeues us */
        }
        if (sq->wq_state == MLX5_WQ_STATE_RDY && !mlx5_pp_may_send(c, sq)) {
            return false;               /* paced: mlx5_pp_expire requeues us */
        }
        /* a BlueFlame copy of the whole WQE (mlx5_bf.c), else the ring */
        bf = mlx5_bf_take(c, sq, idx, wqe);
        if (!bf && mlx5_eth_sq_fetch(c, sq, idx, wqe, 1)) {
            sq->wq_state = MLX5_WQ_STATE_ERR;
            return false;
        }
        opcode = wqe[3];
        nds = wqe[7] & 0x3f;
        nbb = MAX(1u, (nds * 16 + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB);
        if (nbb > MLX5_SEND_WQE_MAX_WQEBBS || (uint16_t)(pi - idx) < nbb) {
            nbb = 1;
        }
        if (sq->wq_state == MLX5_WQ_STATE_ERR) {
            /* (one CQE per WQE, whatever it holds) */
            st = IB_WC_WR_FLUSH_ERR;
        } else if (mlx5_ld16(wqe + 1) != idx || nds == 0 || nds > nbb * 4 ||
                   (nbb > MAX(bf, 1) &&
                    mlx5_eth_sq_fetch(c, sq, idx + MAX(bf, 1),
                                      wqe + MAX(bf, 1) * MLX5_SEND_WQE_BB,
                                      nbb - MAX(bf, 1)))) {
            trace_mlx5_err_sq_wqe(sq->qpn, idx);
            st = IB_WC_LOC_QP_OP_ERR;
            nbb = 1;
        } else if (mlx5_inject_wqe_hit(c, sq->qpn, false, &st)) {
            /* fault injection: as a WQE found malformed */
        } else if (opcode == MLX5_OPCODE_NOP) {
            st = IB_WC_SUCCESS;
        } else if (opcode == MLX5_OPCODE_SEND || opcode == MLX5_OPCODE_LSO) {
            st = mlx5_eth_send(c, sq, wqe, nds, opcode == MLX5_OPCODE_LSO);
        } else if (opcode == MLX5_OPCODE_ENHANCED_MPSW) {
            st = mlx5_eth_mpw_send(c, sq, wqe, nds);
        } else if (opcode == MLX5_OPCODE_UMR && sq->reg_umr) {
            /* (mlx5e's ICOSQ maps striding RQ buffers) */
            st = mlx5_umr_execute(c, sq, wqe, nbb);
        } else {
            st = IB_WC_LOC_QP_OP_ERR;
        }
        trace_mlx5_eth_sq_wqe(sq->qpn, idx, opcode, nds, st);
        sq->sq_ci = idx + nbb;
        if (st == IB_WC_SUCCESS) {
            if (wqe[11] & MLX5_WQE_CTRL_CQ_UPDATE) {
                mlx5_eth_sq_cqe(c, sq, idx, opcode, st);
            }
            continue;
        }
        if (st != IB_WC_WR_FLUSH_ERR) {
            c->eth->cnt.tx_errors++;
            sq->wq_state = MLX5_WQ_STATE_ERR;
        }
        if (st != IB_WC_WR_FLUSH_ERR || sq->flush_in_error) {
            mlx5_eth_sq_cqe(c, sq, idx, opcode, st);
        }
    }
    return sq->sq_ci != pi;
}

/* The link takes frames again: the SQs that stopped for it go on. */
void mlx5_eth_tx_ready(Mlx5Core *c)
{
    Mlx5Qp *qp;

    if (!c->eth || !c->eth->tx_blocked) {
        return;
    }
    c->eth->tx_blocked = false;
    MLX5_TABLE_FOREACH(&c->qps, qp) {
        if (qp->st == MLX5_QP_ST_ETH_SQ && qp->wq_state == MLX5_WQ_STATE_RDY) {
            mlx5_exec_queue(c, qp);
        }
    }
}
