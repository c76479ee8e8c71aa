/*
 * mlx5 HCA core, Ethernet port: LRO (PRM "Large Receive Offload"; the TIR's
 * packet_merge_mask, lro_max_ip_payload_size and lro_timeout_period_usecs).
 *
 * A TIR with LRO on for a frame's IP version lets the RQ it picks coalesce a
 * TCP stream's in-order segments. An RQ has one session at a time: the first
 * segment's frame with the payloads of the segments that continued it
 * appended. The session is delivered as one frame with one CQE when
 *  - a frame for the RQ does not continue it (another flow, not in order, TCP
 *    flags other than ACK and PSH, other TCP options, IP options or a
 *    fragment, a checksum that is wrong, no payload); that frame follows it;
 *  - a segment with PSH joins it, or it has lro_num_seg's 255 segments;
 *  - the next segment would take its IP payload past the TIR's
 *    lro_max_ip_payload_size (256-byte units, from the TCP header: the
 *    lro_max_msg_sz_mode 0 of a ConnectX-5) or the frame past what one receive
 *    WQE holds (a striding RQ's whole WQE, a cyclic RQ's next WQE) or 64 KiB;
 *  - the TIR's timeout has passed since its first segment (the core's
 *    deadline; a timeout of 0 is the shortest period offered);
 * and it is dropped unreported when the RQ leaves RDY or is destroyed.
 *
 * The CQE is the first segment's, with lro_num_seg (srqn bits 31:24) and
 * byte_cnt of the whole frame, check_sum the ones' complement sum of the TCP
 * payload alone, l4_hdr_type TCP_ACK_AND_DATA, and from the segments the
 * smallest TTL (hop limit), the last ACK number and window, and whether any
 * had PSH. The headers in the buffer stay the first segment's: the driver
 * rewrites the IP length and checksum, TTL and TCP fields from the CQE
 * (mlx5e_lro_update_hdr, DPDK's mlx5_lro_update_hdr), as on the hardware. A
 * session of one segment is delivered as the ordinary frame it was.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "trace.h"

#define MLX5_LRO_MAX_FRAME      0xffff  /* byte_cnt's 16 bits (striding) */
#define MLX5_LRO_MAX_SEGS       255
#define TCP_FLAG_PSH            0x08
#define TCP_FLAG_ACK            0x10

struct Mlx5Lro {
    bool open;
    uint8_t cqe[MLX5_CQE_SIZE];  /* the first segment's */
    uint16_t l3, l4, hlen;      /* its header offsets; hlen: to the payload */
    uint8_t ip_version;
    uint32_t len;               /* bytes of buf in use */
    uint32_t limit;             /* the frame may grow to this */
    uint32_t next_seq;
    uint8_t nseg, min_ttl, psh;
    uint8_t ack[4], win[2];     /* the last segment's, as on the wire */
    int64_t deadline;
    uint8_t buf[MLX5_LRO_MAX_FRAME];
};

/* lro_timer_supported_periods, in microseconds */
static const uint32_t mlx5_lro_periods[4] = { 8, 16, 32, 1024 };

void mlx5_lro_caps(uint8_t *cap)
{
    unsigned i;

    MLX5_SET(cap, ETH_CAP_lro_cap, 1);
    MLX5_SET(cap, ETH_CAP_lro_psh_flag, 1);     /* PSH segments join */
    MLX5_SET(cap, ETH_CAP_lro_time_stamp, 1);   /* so do timestamped ones */
    for (i = 0; i < G_N_ELEMENTS(mlx5_lro_periods); i++) {
        mlx5_st32(cap + ETH_CAP_lro_timer_period_OFF + 4 * i,
                  mlx5_lro_periods[i]);
    }
}

uint32_t mlx5_lro_tir_load(Mlx5Tir *tir, const uint8_t *ctx)
{
    uint8_t mask = MLX5_GET(ctx, TIRC_packet_merge_mask);

    if (mask & ~(MLX5_TIRC_LRO_IPV4 | MLX5_TIRC_LRO_IPV6)) {
        return MLX5_SYND_UNSUPPORTED;
    }
    tir->lro_mask = mask;
    tir->lro_max_payload = MLX5_GET(ctx, TIRC_lro_max_ip_payload_size) << 8;
    tir->lro_timeout_us = MAX(MLX5_GET(ctx, TIRC_lro_timeout_period_usecs),
                              mlx5_lro_periods[0]);
    return 0;
}

void mlx5_lro_tir_query(const Mlx5Tir *tir, uint8_t *ctx)
{
    MLX5_SET(ctx, TIRC_packet_merge_mask, tir->lro_mask);
    MLX5_SET(ctx, TIRC_lro_max_ip_payload_size, tir->lro_max_payload >> 8);
    if (tir->lro_mask) {
        MLX5_SET(ctx, TIRC_lro_timeout_period_usecs, tir->lro_timeout_us);
    }
}

/* ---- the list of open sessions and their deadline ------------------------ */

static void mlx5_lro_unlist(Mlx5Core *c, uint32_t rqn)
{
    Mlx5Eth *e = c->eth;
    unsigned i;

    for (i = 0; i < e->n_lro; i++) {
        if (e->lro_rq[i] == rqn) {
            memmove(&e->lro_rq[i], &e->lro_rq[i + 1],
                    (e->n_lro - i - 1) * sizeof(e->lro_rq[0]));
            e->n_lro--;
            return;
        }
    }
}

static void mlx5_lro_close(Mlx5Core *c, Mlx5Qp *rq)
{
    rq->lro->open = false;
    mlx5_lro_unlist(c, rq->qpn);
}

void mlx5_lro_drop(Mlx5Core *c, Mlx5Qp *rq)
{
    if (rq->lro && rq->lro->open) {
        trace_mlx5_eth_lro_flush(rq->qpn, rq->lro->nseg, rq->lro->len,
                                 "dropped");
        mlx5_lro_close(c, rq);
    }
}

void mlx5_lro_free(Mlx5Core *c, Mlx5Qp *rq)
{
    mlx5_lro_drop(c, rq);
    g_free(rq->lro);
    rq->lro = NULL;
}

/* ---- sessions ------------------------------------------------------------ */

/* Deliver @rq's session and end it. */
static void mlx5_lro_flush(Mlx5Core *c, Mlx5Qp *rq, const char *why)
{
    Mlx5Lro *s = rq->lro;
    uint8_t *cqe = s->cqe;

    mlx5_lro_close(c, rq);
    trace_mlx5_eth_lro_flush(rq->qpn, s->nseg, s->len, why);
    if (s->nseg > 1) {
        mlx5_st32(cqe + MLX5_CQE_srqn_uidx,
                  (uint32_t)s->nseg << 24 |
                      (mlx5_ld32(cqe + MLX5_CQE_srqn_uidx) & 0xffffff));
        cqe[MLX5_CQE_lro_tcppsh] = s->psh ? MLX5_CQE_LRO_PSH : 0;
        cqe[MLX5_CQE_lro_min_ttl] = s->min_ttl;
        memcpy(cqe + MLX5_CQE_lro_tcp_win, s->win, 2);
        memcpy(cqe + MLX5_CQE_lro_ack_seq_num, s->ack, 4);
        cqe[MLX5_CQE_l4_l3_hdr_type] =
            (cqe[MLX5_CQE_l4_l3_hdr_type] & 0x8f) |
            MLX5_CQE_L4_HDR_TCP_ACK_AND_DATA << 4;
        mlx5_st16(cqe + MLX5_CQE_check_sum,
                  ib_csum_fold(ib_csum_add(0, s->buf + s->hlen,
                                           s->len - s->hlen)));
    }
    mlx5_eth_rq_place(c, rq, s->buf, s->len, cqe);
}

/*
 * The TCP segment in frame @f (@len bytes, parsed in @h) if LRO may take it:
 * its header length (IP and TCP together from @h->l3) and payload length.
 */
static bool mlx5_lro_segment(const uint8_t *f, size_t len, const IbEthHdr *h,
                             const uint8_t *cqe, uint32_t *hlen,
                             uint32_t *payload)
{
    uint32_t thl;

    if (h->proto != 6 || !h->l4 || h->l3_len > len - h->l3 ||
        (cqe[MLX5_CQE_hds_ip_ext] & (MLX5_CQE_L3_OK | MLX5_CQE_L4_OK)) !=
            (MLX5_CQE_L3_OK | MLX5_CQE_L4_OK)) {
        return false;
    }
    if (h->ip_version == 4) {
        /* no options, not a fragment (DF alone may be set) */
        if (f[h->l3] != 0x45 || (mlx5_ld16(f + h->l3 + 6) & 0xbfff)) {
            return false;
        }
    } else if (h->ip_version != 6 || h->l4 != h->l3 + 40) {
        return false;                   /* IPv6 extension headers */
    }
    thl = (f[h->l4 + 12] >> 4) * 4;
    if (thl < 20 || h->l4 - h->l3 + thl >= h->l3_len ||
        (f[h->l4 + 13] & ~TCP_FLAG_PSH) != TCP_FLAG_ACK) {
        return false;
    }
    *hlen = h->l4 - h->l3 + thl;
    *payload = h->l3_len - *hlen;
    return true;
}

static uint8_t mlx5_lro_ttl(const uint8_t *f, const IbEthHdr *h)
{
    return f[h->l3 + (h->ip_version == 4 ? 8 : 7)];
}

/* Does segment @f (parsed in @h, @hlen header bytes from l3) continue @s? */
static bool mlx5_lro_continues(const Mlx5Lro *s, const uint8_t *f,
                               const IbEthHdr *h, const uint8_t *cqe,
                               uint32_t hlen)
{
    const uint8_t *g = s->buf;
    unsigned alen = h->ip_version == 4 ? 4 : 16;

    if (h->l3 != s->l3 || h->l4 != s->l4 || h->l3 + hlen != s->hlen ||
        h->ip_version != s->ip_version ||
        /* the L2 header and what the CQE says of it (tag, flow tag) */
        memcmp(f, g, h->l3) ||
        memcmp(cqe + MLX5_CQE_l4_l3_hdr_type, s->cqe + MLX5_CQE_l4_l3_hdr_type,
               3) ||
        memcmp(cqe + MLX5_CQE_sop_drop_qpn, s->cqe + MLX5_CQE_sop_drop_qpn,
               4) ||
        mlx5_ld32(f + h->l4 + 4) != s->next_seq) {
        return false;
    }
    if (h->ip_version == 4) {
        /* TOS; DF; addresses */
        if (f[h->l3 + 1] != g[s->l3 + 1] ||
            memcmp(f + h->l3 + 6, g + s->l3 + 6, 2) ||
            memcmp(f + h->l3 + 12, g + s->l3 + 12, 2 * alen)) {
            return false;
        }
    } else if (memcmp(f + h->l3, g + s->l3, 4) ||
               memcmp(f + h->l3 + 8, g + s->l3 + 8, 2 * alen)) {
        return false;                   /* traffic class, flow label */
    }
    /* ports, and the options byte for byte (timestamps included, as GRO) */
    return !memcmp(f + h->l4, g + s->l4, 4) &&
           !memcmp(f + h->l4 + 20, g + s->l4 + 20,
                   s->hlen - s->l4 - 20);
}

static void mlx5_lro_take(Mlx5Lro *s, const uint8_t *f, const IbEthHdr *h)
{
    s->nseg++;
    s->min_ttl = MIN(s->min_ttl, mlx5_lro_ttl(f, h));
    s->psh |= !!(f[h->l4 + 13] & TCP_FLAG_PSH);
    memcpy(s->ack, f + h->l4 + 8, 4);
    memcpy(s->win, f + h->l4 + 14, 2);
}

bool mlx5_lro_rx(Mlx5Core *c, Mlx5Qp *rq, const Mlx5Tir *tir,
                 const uint8_t *f, size_t len, const IbEthHdr *h,
                 const uint8_t *cqe)
{
    Mlx5Eth *e = c->eth;
    Mlx5Lro *s = rq->lro;
    uint32_t hlen, payload, room;
    bool seg;

    if (!(s && s->open) && !tir->lro_mask) {
        return false;
    }
    seg = (tir->lro_mask & (h->ip_version == 4 ? MLX5_TIRC_LRO_IPV4
                                               : MLX5_TIRC_LRO_IPV6)) &&
          mlx5_lro_segment(f, len, h, cqe, &hlen, &payload);
    if (s && s->open) {
        if (seg && mlx5_lro_continues(s, f, h, cqe, hlen) &&
            s->len + payload <= s->limit) {
            memcpy(s->buf + s->len, f + h->l3 + hlen, payload);
            s->len += payload;
            s->next_seq += payload;
            mlx5_lro_take(s, f, h);
            trace_mlx5_eth_lro_add(rq->qpn, s->nseg, payload);
            if (s->psh || s->nseg == MLX5_LRO_MAX_SEGS) {
                mlx5_lro_flush(c, rq, s->psh ? "PSH" : "segments");
            }
            return true;
        }
        mlx5_lro_flush(c, rq, seg ? "not in sequence or full" : "not LRO");
    }
    if (!seg || h->l3 + hlen + payload - h->l4 > tir->lro_max_payload ||
        (f[h->l4 + 13] & TCP_FLAG_PSH)) {
        return false;
    }
    room = MIN(mlx5_eth_rq_room(c, rq), MLX5_LRO_MAX_FRAME);
    if (h->l3 + hlen + payload > room) {
        return false;
    }
    if (!s) {
        s = rq->lro = g_new0(Mlx5Lro, 1);
    }
    if (e->n_lro == MLX5_LRO_MAX_OPEN) {
        /* the oldest session makes room */
        mlx5_lro_flush(c, mlx5_table_get(&c->qps, e->lro_rq[0]), "sessions");
    }
    s->open = true;
    memcpy(s->cqe, cqe, MLX5_CQE_SIZE);
    s->l3 = h->l3;
    s->l4 = h->l4;
    s->hlen = h->l3 + hlen;
    s->ip_version = h->ip_version;
    s->len = s->hlen + payload;
    memcpy(s->buf, f, s->len);          /* no Ethernet padding */
    s->limit = MIN(room, s->l4 + tir->lro_max_payload);
    s->next_seq = mlx5_ld32(f + h->l4 + 4) + payload;
    s->nseg = 0;
    s->psh = 0;
    s->min_ttl = 0xff;
    mlx5_lro_take(s, f, h);
    s->deadline = c->ops->now_ns(c->opaque) +
                  (int64_t)tir->lro_timeout_us * 1000;
    e->lro_rq[e->n_lro++] = rq->qpn;
    if (s->deadline < c->lro_deadline) {
        c->lro_deadline = s->deadline;
        mlx5_exec_set_deadline(c);
    }
    trace_mlx5_eth_lro_add(rq->qpn, 1, payload);
    return true;
}

void mlx5_lro_expire(Mlx5Core *c, int64_t now)
{
    Mlx5Eth *e = c->eth;
    unsigned i = 0;

    c->lro_deadline = INT64_MAX;
    while (e && i < e->n_lro) {
        Mlx5Qp *rq = mlx5_table_get(&c->qps, e->lro_rq[i]);

        if (!rq || !rq->lro) {
            mlx5_lro_unlist(c, e->lro_rq[i]);   /* cannot happen */
            continue;
        }
        if (rq->lro->deadline <= now) {
            mlx5_lro_flush(c, rq, "timeout");   /* unlists it */
            continue;
        }
        c->lro_deadline = MIN(c->lro_deadline, rq->lro->deadline);
        i++;
    }
}
