/*
 * mlx5 HCA core, Ethernet port: the receive side. A frame from the link is
 * parsed, steered through the NIC flow tables to a TIR, from the TIR (and its
 * RQT, by RSS hash) to an RQ; the RQ's next WQE (a list of data segments) takes
 * it, with the C-tag stripped unless the RQ keeps it, and a CQE reports its
 * length, checksum, hash and tag.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "trace.h"

#define MLX5_CQE_L3_HDR_IPV6    1
#define MLX5_CQE_L3_HDR_IPV4    2
#define MLX5_CQE_L4_HDR_TCP     1
#define MLX5_CQE_L4_HDR_UDP     2

/* ---- match parameters ---------------------------------------------------- */

/*
 * The header match parameters (outer_headers' layout, at @ms) of frame @f
 * parsed in @h.
 */
static void mlx5_eth_match_hdrs(const uint8_t *f, const IbEthHdr *h,
                                uint8_t *ms)
{
    memcpy(ms + MS_smac_47_16_OFF, f + 6, 4);
    mlx5_st16(ms + MS_smac_47_16_OFF + 4, mlx5_ld16(f + 10));
    MLX5_SET(ms, MS_ethertype, h->ethertype);
    memcpy(ms + MS_dmac_47_16_OFF, f, 4);
    mlx5_st16(ms + MS_dmac_47_16_OFF + 4, mlx5_ld16(f + 4));
    if (h->cvlan || h->svlan) {
        MLX5_SET(ms, MS_first_prio, h->tci >> 13);
        MLX5_SET(ms, MS_first_cfi, (h->tci >> 12) & 1);
        MLX5_SET(ms, MS_first_vid, h->tci & 0xfff);
        MLX5_SET(ms, MS_cvlan_tag, h->cvlan);
        MLX5_SET(ms, MS_svlan_tag, h->svlan);
    }
    if (!h->ip_version) {
        return;
    }
    MLX5_SET(ms, MS_ip_version, h->ip_version);
    MLX5_SET(ms, MS_ip_protocol, h->proto);
    MLX5_SET(ms, MS_frag, h->frag);
    if (h->ip_version == 4) {
        MLX5_SET(ms, MS_ip_dscp, f[h->l3 + 1] >> 2);
        MLX5_SET(ms, MS_ip_ecn, f[h->l3 + 1] & 3);
        MLX5_SET(ms, MS_ttl_hoplimit, f[h->l3 + 8]);
        memcpy(ms + MS_src_ip_OFF + 12, h->src, 4);
        memcpy(ms + MS_dst_ip_OFF + 12, h->dst, 4);
    } else {
        uint8_t tc = (mlx5_ld16(f + h->l3) >> 4) & 0xff;
        MLX5_SET(ms, MS_ip_dscp, tc >> 2);
        MLX5_SET(ms, MS_ip_ecn, tc & 3);
        MLX5_SET(ms, MS_ttl_hoplimit, f[h->l3 + 7]);
        memcpy(ms + MS_src_ip_OFF, h->src, 16);
        memcpy(ms + MS_dst_ip_OFF, h->dst, 16);
    }
    if (h->l4 && h->proto == 6) {
        MLX5_SET(ms, MS_tcp_sport, h->sport);
        MLX5_SET(ms, MS_tcp_dport, h->dport);
        MLX5_SET(ms, MS_tcp_flags, mlx5_ld16(f + h->l4 + 12) & 0x1ff);
    } else if (h->l4 && h->proto == 17) {
        MLX5_SET(ms, MS_udp_sport, h->sport);
        MLX5_SET(ms, MS_udp_dport, h->dport);
    }
}

void mlx5_eth_match_set(const Mlx5Eth *e, const uint8_t *f, size_t len,
                        const IbEthHdr *h, uint8_t *ms)
{
    IbEthHdr in;
    size_t off;

    memset(ms, 0, MLX5_FTE_MATCH_PARAM_SIZE);
    mlx5_eth_match_hdrs(f, h, ms);
    off = mlx5_vxlan_inner(e, f, len, h, &in);
    if (off) {
        MLX5_SET(ms, MS_vxlan_vni, mlx5_ld32(f + off - 4) >> 8);
        mlx5_eth_match_hdrs(f + off, &in, ms + MS_INNER_OFF);
    }
    if (h->l4 && h->proto == 17 && h->dport == MLX5_GENEVE_PORT &&
        h->l4 + 16u <= len) {
        /* GENEVE's header (the flex parser's) */
        const uint8_t *g = f + h->l4 + 8;

        MLX5_SET(ms, MS_geneve_opt_len, g[0] & 0x3f);
        MLX5_SET(ms, MS_geneve_oam, g[1] >> 7);
        MLX5_SET(ms, MS_geneve_protocol_type, mlx5_ld16(g + 2));
        MLX5_SET(ms, MS_geneve_vni, mlx5_ld32(g + 4) >> 8);
    }
}

/*
 * Are the IPv4 header checksum and the TCP/UDP checksum of @f right? (The CQE's
 * L3/L4_OK.)
 */
static uint8_t mlx5_eth_csum_ok(const uint8_t *f, const IbEthHdr *h)
{
    uint32_t sum;
    uint8_t ok = 0;

    if (h->ip_version == 4) {
        if (ib_csum_fold(ib_csum_add(0, f + h->l3, (f[h->l3] & 0xf) * 4)) !=
            0xffff) {
            return 0;
        }
        ok |= MLX5_CQE_L3_OK;
    } else if (h->ip_version == 6) {
        ok |= MLX5_CQE_L3_OK;
    }
    if (h->l4 && h->l3_len >= h->l4 - h->l3) {
        uint32_t l4len = h->l3_len - (h->l4 - h->l3);
        size_t alen = h->ip_version == 4 ? 4 : 16;
        if (h->proto == 17 && h->ip_version == 4 && !mlx5_ld16(f + h->l4 + 6)) {
            return ok | MLX5_CQE_L4_OK;         /* no UDP checksum */
        }
        sum = ib_csum_add(ib_csum_add(0, h->src, alen), h->dst, alen);
        sum = ib_csum_fold(sum + h->proto + (l4len >> 16) + (l4len & 0xffff));
        if (ib_csum_fold(ib_csum_add(sum, f + h->l4, l4len)) == 0xffff) {
            ok |= MLX5_CQE_L4_OK;
        }
    }
    return ok;
}

/* ---- receive ------------------------------------------------------------- */

/*
 * The CQE fields of a received frame that do not depend on where it went:
 * checksum, hash, header types, the stripped tag, the flow tag.
 */
static void mlx5_eth_rx_cqe(Mlx5Qp *rq, uint8_t *cqe, const uint8_t *f,
                            size_t len, const IbEthHdr *h, bool stripped,
                            uint16_t tci, uint32_t hash, uint8_t hash_type,
                            uint32_t flow_tag)
{
    memset(cqe, 0, MLX5_CQE_SIZE);
    mlx5_st32(cqe + MLX5_CQE_srqn_uidx, rq->user_index & 0xffffff);
    mlx5_st32(cqe + MLX5_CQE_rss_hash_result, hash);
    cqe[MLX5_CQE_rss_hash_type] = hash_type;
    /*
     * cqe_checksum_full: the ones' complement sum of everything after the
     * Ethernet header
     */
    mlx5_st16(
        cqe + MLX5_CQE_check_sum,
        ib_csum_fold(ib_csum_add(0, f + IB_ETH_HLEN, len - IB_ETH_HLEN)));
    cqe[MLX5_CQE_hds_ip_ext] = mlx5_eth_csum_ok(f, h);
    cqe[MLX5_CQE_l4_l3_hdr_type] =
        (h->l4
             ? (h->proto == 6 ? MLX5_CQE_L4_HDR_TCP : MLX5_CQE_L4_HDR_UDP) << 4
             : 0) |
        (h->ip_version == 4   ? MLX5_CQE_L3_HDR_IPV4 << 2
         : h->ip_version == 6 ? MLX5_CQE_L3_HDR_IPV6 << 2
                              : 0) |
        stripped;
    if (stripped) {
        mlx5_st16(cqe + MLX5_CQE_vlan_info, tci);
    }
    mlx5_st32(cqe + MLX5_CQE_sop_drop_qpn, flow_tag & 0xffffff);
    cqe[MLX5_CQE_op_own] = MLX5_CQE_RESP_SEND << 4;
}

/*
 * The data segments of @rq's WQE @idx into @wqe (MLX5_MAX_RECV_SGE * 16 bytes):
 * how many there are, and the bytes they hold in *@room. 0 if it cannot be
 * read.
 */
static unsigned mlx5_eth_rq_wqe(Mlx5Core *c, Mlx5Qp *rq, uint16_t idx,
                                uint8_t *wqe, uint64_t *room)
{
    unsigned nseg = MIN(rq->rq_stride / 16, MLX5_MAX_RECV_SGE), i;

    *room = 0;
    if (mlx5_buf_read(c, &rq->buf,
                      (uint64_t)(idx & (rq->rq_cnt - 1)) * rq->rq_stride, wqe,
                      nseg * 16)) {
        return 0;
    }
    for (i = 0; i < nseg; i++) {
        if (mlx5_ld32(wqe + 16 * i + 4) == MLX5_INVALID_LKEY) {
            break;
        }
        *room += mlx5_ld32(wqe + 16 * i) & 0x7fffffff;
    }
    return i;
}

int mlx5_eth_rq_posted(Mlx5Core *c, Mlx5Qp *rq)
{
    uint8_t dbr[4];
    uint16_t n;

    if (mlx5_dma_read(c, rq->dbr_addr, dbr, 4)) {
        return -1;
    }
    n = mlx5_ld32(dbr) - rq->rq_ci;
    return n > rq->rq_cnt ? -1 : n;
}

static bool mlx5_eth_rq_striding(const Mlx5Qp *rq)
{
    return rq->wq_type == MLX5_WQ_TYPE_LL_STRIDING ||
           rq->wq_type == MLX5_WQ_TYPE_CYCLIC_STRIDING;
}

uint32_t mlx5_eth_rq_room(Mlx5Core *c, Mlx5Qp *rq)
{
    uint8_t wqe[MLX5_MAX_RECV_SGE * 16];
    uint64_t room;

    if (mlx5_eth_rq_striding(rq)) {
        return ((1u << rq->log_strides) << rq->log_stride_sz) -
               (rq->two_byte_shift ? 2 : 0);
    }
    if (mlx5_eth_rq_posted(c, rq) <= 0) {
        return 0;
    }
    mlx5_eth_rq_wqe(c, rq, rq->rq_ci, wqe, &room);
    return MIN(room, UINT32_MAX);
}

/*
 * Put @f into @rq's next WQE and complete it with @cqe (the frame's fields
 * filled in). Returns false if the frame was dropped (no WQE, too long for the
 * buffer).
 */
static bool mlx5_eth_rq_deliver(Mlx5Core *c, Mlx5Qp *rq, const uint8_t *f,
                                size_t len, uint8_t *cqe)
{
    uint8_t wqe[MLX5_MAX_RECV_SGE * 16];
    unsigned nseg, i;
    uint64_t room = 0;
    size_t done = 0;
    uint16_t idx = rq->rq_ci;
    IbWcStatus st = IB_WC_SUCCESS;
    int posted = mlx5_eth_rq_posted(c, rq);

    if (posted < 0) {
        return false;
    }
    if (!posted) {
        mlx5_q_count(c, rq->counter_set, MLX5_QC_OUT_OF_BUFFER);
        trace_mlx5_eth_rx_drop(rq->qpn, len, "no receive WQE");
        return false;
    }
    if (mlx5_inject_wqe_hit(c, rq->qpn, true, &st)) {
        /* fault injection: the WQE completes in error, the RQ goes to ERR */
        rq->rq_ci = idx + 1;
        mlx5_st16(cqe + MLX5_CQE_wqe_counter, idx);
        mlx5_eth_rx_err_cqe(c, rq, cqe, st);
        rq->wq_state = MLX5_WQ_STATE_ERR;
        trace_mlx5_eth_rx_drop(rq->qpn, len, "injected WQE error");
        return false;
    }
    nseg = mlx5_eth_rq_wqe(c, rq, idx, wqe, &room);
    if (room < len) {
        c->eth->cnt.rx_errors++;
        trace_mlx5_eth_rx_drop(rq->qpn, len, "longer than the receive buffer");
        return false;
    }
    for (i = 0; i < nseg && done < len; i++) {
        const uint8_t *ds = wqe + 16 * i;
        size_t n = MIN((size_t)(mlx5_ld32(ds) & 0x7fffffff), len - done);
        int r = mlx5_mkey_copy(c, mlx5_ld32(ds + 4), rq->pdn, MLX5_MKEY_LW,
                               mlx5_ld64(ds + 8), (uint8_t *)f + done, n, true);
        if (r) {
            st = mlx5_xlate_status(r, false);
            break;
        }
        done += n;
    }
    rq->rq_ci = idx + 1;
    mlx5_st16(cqe + MLX5_CQE_wqe_counter, idx);
    if (st != IB_WC_SUCCESS) {
        mlx5_eth_rx_err_cqe(c, rq, cqe, st);
        trace_mlx5_eth_rx_drop(rq->qpn, len, "receive buffer fault");
        return false;
    }
    mlx5_st32(cqe + MLX5_CQE_byte_cnt, len);
    trace_mlx5_eth_rx(rq->qpn, idx, len,
                      mlx5_ld32(cqe + MLX5_CQE_rss_hash_result));
    mlx5_cqe_post_rx(c, rq->cqn_rcv, cqe, false);
    return true;
}

bool mlx5_eth_rq_place(Mlx5Core *c, Mlx5Qp *rq, const uint8_t *f, size_t len,
                       uint8_t *cqe)
{
    return mlx5_eth_rq_striding(rq) ? mlx5_mpwqe_deliver(c, rq, f, len, cqe)
                                    : mlx5_eth_rq_deliver(c, rq, f, len, cqe);
}

void mlx5_eth_rx_err_cqe(Mlx5Core *c, Mlx5Qp *rq, uint8_t *cqe, IbWcStatus st)
{
    uint8_t err[MLX5_CQE_SIZE] = { 0 };

    memcpy(err + 2, cqe + 2, 2);                /* wqe_id (striding RQs) */
    memcpy(err + MLX5_CQE_wqe_counter, cqe + MLX5_CQE_wqe_counter, 2);
    mlx5_st32(err + MLX5_CQE_srqn_uidx, rq->user_index & 0xffffff);
    mlx5_st32(err + MLX5_CQE_sop_drop_qpn, rq->qpn);
    err[MLX5_CQE_syndrome] = mlx5_syndrome(st);
    err[MLX5_CQE_op_own] = MLX5_CQE_RESP_ERR << 4;
    mlx5_cqe_post(c, rq->cqn_rcv, err, true);
}

/*
 * Give @frame to the RQs steering finds for it. @lb_td is the transport domain
 * of the SQ that sent it when it comes back to this function (local loopback),
 * or -1 when it came from the link. A TIR does not take its own transport
 * domain's frames unless its self_lb_block bits (despite the name, mlx5_ib and
 * mlx5e set them to allow self loopback: 1 unicast, 2 multicast) say so. Drops
 * of looped-back frames are not counted: they never were received.
 */
static void mlx5_eth_rx_steer(Mlx5Core *c, const uint8_t *frame, size_t len,
                              const IbEthHdr *hdr, int64_t lb_td,
                              const Mlx5SwMeta *m)
{
    Mlx5Eth *e = c->eth;
    uint8_t cqe[MLX5_CQE_SIZE];
    Mlx5SteerHit hits[MLX5_ETH_MAX_DEST];
    uint8_t lb_bit = frame[0] & 1 ? 2 : 1;
    uint32_t flow_tag;
    unsigned n, i, k, taken = 0;

    if (len > MLX5_ETH_MAX_FRAME + 8 || !hdr) {
        e->cnt.rx_dropped += lb_td < 0;
        trace_mlx5_eth_rx_drop(0, len, "not an Ethernet frame we take");
        return;
    }
    /* the vport counts what it receives, once, whatever steering does */
    mlx5_eth_count(&e->cnt.rx, frame, len);
    n = mlx5_flow_steer(c, frame, len, hdr, m, hits, &flow_tag);
    for (i = 0; i < n; i++) {
        /* (software steering's rewritten frame, if any: ours to free) */
        g_autofree uint8_t *copy = hits[i].frame;
        const uint8_t *f = frame;
        size_t flen = len;
        IbEthHdr fh = *hdr;
        uint16_t tci;
        uint32_t hash, rqn;
        uint8_t hash_type;
        bool stripped = false;
        Mlx5Qp *rq;

        if (lb_td >= 0 && hits[i].tir->td == lb_td &&
            !(hits[i].tir->self_lb_block & lb_bit)) {
            trace_mlx5_eth_rx_drop(hits[i].tir->tirn, len,
                                   "self loopback not allowed by the TIR");
            continue;
        }
        if (copy) {
            /* as software steering's entries left it (mlx5_ste.c) */
            f = copy;
            flen = hits[i].len;
            if (!ib_eth_parse(f, flen, &fh)) {
                trace_mlx5_eth_rx_drop(hits[i].tir->tirn, flen,
                                       "not an Ethernet frame after steering");
                continue;
            }
        } else if (hits[i].nops) {
            /* what the entries on its way did to it (mlx5_reformat.c) */
            copy = g_malloc(MLX5_ETH_RX_ROOM);
            memcpy(copy, frame, len);
            for (k = 0; k < hits[i].nops; k++) {
                mlx5_eth_transform(c, hits[i].ops[k], copy, &flen, &fh);
            }
            f = copy;
        }
        rqn = mlx5_tir_select(c, hits[i].tir, &fh, &hash, &hash_type);
        rq = mlx5_table_get(&c->qps, rqn);
        if (!rq || rq->st != MLX5_QP_ST_ETH_RQ ||
            rq->wq_state != MLX5_WQ_STATE_RDY) {
            trace_mlx5_eth_rx_drop(rqn, len, "RQ not ready");
            continue;
        }
        tci = fh.tci;
        if (fh.cvlan && !rq->vsd && flen >= IB_ETH_HLEN + 4) {
            /* strip the outer C-tag: the CQE carries it */
            if (!copy) {
                copy = g_memdup2(frame, len);
            }
            memmove(copy + 12, copy + 16, flen - 16);
            f = copy;
            flen -= 4;
            stripped = true;
            ib_eth_hdr_untag(&fh, f);
        }
        mlx5_eth_rx_cqe(rq, cqe, f, flen, &fh, stripped, tci, hash,
                        hash_type, flow_tag);
        taken++;
        /* an LRO session takes it, or it follows the session (mlx5_lro.c) */
        if (!mlx5_lro_rx(c, rq, hits[i].tir, f, flen, &fh, cqe)) {
            mlx5_eth_rq_place(c, rq, f, flen, cqe);
        }
    }
    if (!taken && lb_td < 0) {
        e->cnt.rx_dropped++;
        trace_mlx5_eth_rx_drop(
            0, len, n ? "no RQ takes it" : "no steering rule takes it");
    }
}

void mlx5_eth_rx(Mlx5Core *c, const uint8_t *frame, size_t len,
                 const Mlx5SwMeta *m)
{
    Mlx5Eth *e = c->eth;
    IbEthHdr h;
    bool eth;

    if (!c->hca_initialized || !e->oper_up) {
        return;
    }
    /* the one parse of the frame: for the RoCE receive and the steering */
    eth = ib_eth_parse(frame, len, &h);
    if (e->roce_en && eth && ib_roce_frame_is_ours(&c->ib, frame, &h) &&
        mlx5_flow_rdma_rx(c, frame, len, &h, m)) {
        /*
         * RoCE v2 to our MAC and one of our GIDs: the RDMA transport's
         * (mlx5_roce.c), unless the RDMA RX tables hand it back
         */
        trace_mlx5_roce_rx(len);
        ib_port_link_rx(&c->ib, frame, len, &h);
        return;
    }
    mlx5_eth_rx_steer(c, frame, len, eth ? &h : NULL, -1, m);
}

/*
 * A frame an SQ of transport domain @td sent, when it comes back to this
 * function: a multicast or broadcast frame (which also goes out on the link) or
 * one to this function's own address (which does not). The NIC vport's local
 * loopback is always on (disable_local_lb_uc/mc are not offered); the TIRs
 * decide about their own transport domain. Returns true if the frame stays here
 * (unicast to ourselves).
 */
bool mlx5_eth_loopback(Mlx5Core *c, uint32_t td, const uint8_t *frame,
                       size_t len)
{
    Mlx5Eth *e = c->eth;
    bool own = !memcmp(frame, e->mac, 6);
    unsigned i;

    for (i = 0; i < e->n_uc && !own; i++) {
        own = !memcmp(frame, e->uc_list[i], 6);
    }
    if (!(frame[0] & 1) && !own) {
        return false;
    }
    if (c->hca_initialized) {
        Mlx5SwMeta m = { .src = mlx5_esw_vport_of(c) };
        IbEthHdr h;
        bool eth = ib_eth_parse(frame, len, &h);

        trace_mlx5_eth_loopback(td, len, own);
        mlx5_eth_rx_steer(c, frame, len, eth ? &h : NULL, td, &m);
    }
    return own;
}
