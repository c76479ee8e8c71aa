/*
 * Vendor-neutral IB fabric services: the subnet administrator (SA, IBA chapter
 * 15).
 *
 * The port that the fabric elected master SM (ib_sm.c) answers the SUBN_ADM
 * class for the whole fabric: requests are GSI MADs sent to its LID and QP1, as
 * to any SA, and never reach its guest's QP1. Replies leave from QP1 like the
 * SA's. What it knows of the fabric is the directory of announced ports;
 * multicast groups live here while this port is master (a new master starts
 * empty, and every port asks its driver to reregister, so members rejoin).
 *
 * Answered: ClassPortInfo (Get); PathRecord (Get, GetTable); MCMemberRecord
 * (Set = join or create, Delete = leave, Get, GetTable); NodeRecord and
 * PortInfoRecord (Get, GetTable). GetTableResp goes out with RMPP (segments
 * within the receiver's window, IBA 13.6). Caps: IB_SA_MAX_GROUPS groups,
 * IB_SA_MAX_MEMBERS members each, IB_SA_MAX_RMPP transfers at once,
 * IB_SA_MAX_TABLE bytes in one table. Anything else gets the architected MAD
 * status.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "ib_sa_internal.h"
#include "trace.h"

static const uint8_t ib_sa_zero_gid[16];

static const uint8_t ib_ipoib_bcast_mgid[16] = {
    0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
    0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
};

/* ---- lifetime ------------------------------------------------------------ */

void ib_sa_init(IbPort *port)
{
    port->sa = NULL;            /* allocated while this port is the master */
}

static void ib_sa_free(IbPort *port)
{
    unsigned i;

    if (!port->sa) {
        return;
    }
    for (i = 0; i < IB_SA_MAX_RMPP; i++) {
        g_free(port->sa->rmpp[i].data);
    }
    g_free(port->sa);
    port->sa = NULL;
}

void ib_sa_cleanup(IbPort *port)
{
    ib_sa_free(port);
}

/*
 * The groups a new SA starts with: IPoIB's broadcast group of the default
 * partition
 */
static void ib_sa_create_defaults(IbSa *sa)
{
    IbSaGroup *g = &sa->group[0];

    memset(g, 0, sizeof(*g));
    g->used = g->permanent = true;
    memcpy(g->mgid, ib_ipoib_bcast_mgid, 16);
    g->mlid = sa->next_mlid++;
    g->qkey = IB_IPOIB_QKEY;
    g->pkey = IB_DEFAULT_PKEY;
    /* IPoIB MTU 2044, as opensm's default partition */
    g->mtu = IB_MTU_ENUM_2048;
    g->rate = IB_RATE_10_GBPS;
    g->plt = IB_SA_PACKET_LIFE;
    g->scope = 2;                       /* link-local */
}

void ib_sa_master_changed(IbPort *port, bool master)
{
    ib_sa_free(port);
    if (master) {
        port->sa = g_new0(IbSa, 1);
        port->sa->next_mlid = IB_SA_MLID_BASE;
        ib_sa_create_defaults(port->sa);
    }
}

/* ---- sending ------------------------------------------------------------- */

/*
 * Send @mad from QP1 to the requester of @p (its LID and QP; with a GRH if it
 * used one).
 */
void ib_sa_send(IbPort *port, uint16_t dlid, uint32_t dqpn, uint16_t pkey,
                uint8_t sl, const IbPacket *req, const uint8_t *mad)
{
    IbPacket r;
    IbAv av = { .dlid = dlid, .sl = sl };

    if (req && req->grh) {
        av.grh = true;
        av.hop_limit = req->hop_limit;
        av.tclass = req->tclass;
        av.flow_label = req->flow_label;
        memcpy(av.dgid, req->sgid, 16);
    }
    memset(&r, 0, sizeof(r));
    ib_port_fill_av(port, &av, &r);
    r.opcode = IB_TRANSPORT_UD | IB_OP_SEND_ONLY;
    r.pkey = pkey;
    r.dest_qpn = dqpn & IB_QPN_MASK;
    r.deth_qkey = IB_GSI_QKEY;
    r.deth_src_qpn = 1;
    r.udp_sport = 1;
    trace_ib_sa_reply(dlid, ib_ld16(mad + IB_MAD_ATTR_ID), mad[IB_MAD_METHOD],
                      ib_ld16(mad + IB_MAD_STATUS));
    ib_port_send(port, &r, mad, IB_MAD_SIZE);
}

/*
 * Reply header: the request's, with the response method and @status; no RMPP.
 */
static uint8_t *ib_sa_reply_hdr(IbSa *sa, uint8_t method, uint16_t status)
{
    uint8_t *m = sa->mad;

    memset(m, 0, IB_MAD_SIZE);
    memcpy(m, sa->req, IB_MAD_HDR_LEN);
    m[IB_MAD_METHOD] = method;
    ib_st16(m + IB_MAD_STATUS, status);
    ib_st16(m + IB_MAD_CLASS_SPECIFIC, 0);
    memcpy(m + IB_SA_COMP_MASK, sa->req + IB_SA_COMP_MASK, 8);
    return m;
}

static uint8_t ib_sa_resp_method(uint8_t method)
{
    switch (method) {
    case IB_METHOD_GET_TABLE:
        return IB_METHOD_GET_TABLE | IB_METHOD_RESP;
    case IB_METHOD_DELETE:
        return IB_METHOD_DELETE | IB_METHOD_RESP;
    default:
        return IB_METHOD_GET | IB_METHOD_RESP;
    }
}

void ib_sa_error(IbPort *port, const IbPacket *p, uint16_t status)
{
    IbSa *sa = port->sa;

    trace_ib_sa_error(p->slid, ib_ld16(sa->req + IB_MAD_ATTR_ID),
                      sa->req[IB_MAD_METHOD], status);
    ib_sa_reply_hdr(sa, ib_sa_resp_method(sa->req[IB_MAD_METHOD]), status);
    ib_sa_send(port, p->slid, p->deth_src_qpn, p->pkey, p->sl, p, sa->mad);
}

/* One record: Get/Set/Delete responses */
void ib_sa_reply_one(IbPort *port, const IbPacket *p, const uint8_t *rec,
                     uint32_t len)
{
    IbSa *sa = port->sa;
    uint8_t *m = ib_sa_reply_hdr(sa, ib_sa_resp_method(sa->req[IB_MAD_METHOD]),
                                 0);

    ib_st16(m + IB_SA_ATTR_OFFSET, (len + 7) / 8);
    memcpy(m + IB_SA_DATA, rec, MIN(len, IB_SA_DATA_LEN));
    ib_sa_send(port, p->slid, p->deth_src_qpn, p->pkey, p->sl, p, m);
}

/*
 * The answer to a Get or GetTable whose @n records (@len bytes each, 8-byte
 * aligned) are in sa->table: GetTable gets them all; Get exactly one, else "no
 * records" or "too many".
 */
void ib_sa_reply_records(IbPort *port, const IbPacket *p, uint8_t method,
                         unsigned n, uint32_t len)
{
    if (method == IB_METHOD_GET_TABLE) {
        ib_sa_reply_table(port, p, n, len);
    } else if (n != 1) {
        ib_sa_error(port, p,
                    n ? IB_SA_STATUS_TOO_MANY_RECORDS
                      : IB_SA_STATUS_NO_RECORDS);
    } else {
        ib_sa_reply_one(port, p, port->sa->table, len);
    }
}

/* Send the segments of transfer @t that the receiver's window allows. */
static void ib_sa_rmpp_push(IbPort *port, IbSaRmpp *t, uint32_t window_last)
{
    IbSa *sa = port->sa;
    uint32_t last = MIN(window_last, t->nseg);
    IbPacket req = { .grh = t->grh, .hop_limit = t->hop_limit,
                     .tclass = t->tclass, .flow_label = t->flow_label };

    memcpy(req.sgid, t->sgid, 16);
    while (t->sent < last) {
        uint32_t seg = ++t->sent, off = (seg - 1) * IB_SA_SEG_DATA;
        uint32_t n = MIN(IB_SA_SEG_DATA, t->len - MIN(off, t->len));
        uint8_t *m = sa->mad;
        uint8_t flags = IB_RMPP_FLAG_ACTIVE;

        memset(m, 0, IB_MAD_SIZE);
        memcpy(m, t->hdr, IB_SA_DATA);
        if (seg == 1) {
            flags |= IB_RMPP_FLAG_FIRST;
            ib_st32(m + IB_RMPP_PAYLEN,
                    t->nseg * (IB_RMPP_SEG_PAYLOAD - IB_SA_SEG_DATA) + t->len);
        }
        if (seg == t->nseg) {
            flags |= IB_RMPP_FLAG_LAST;
            ib_st32(m + IB_RMPP_PAYLEN,
                    IB_RMPP_SEG_PAYLOAD - IB_SA_SEG_DATA + n);
        }
        m[IB_RMPP_VERSION] = 1;
        m[IB_RMPP_TYPE] = IB_RMPP_TYPE_DATA;
        m[IB_RMPP_FLAGS] = (0x1f << 3) | flags;    /* RRespTime: none given */
        ib_st32(m + IB_RMPP_SEG_NUM, seg);
        memcpy(m + IB_SA_DATA, t->data + off, n);
        ib_sa_send(port, t->dlid, t->dqpn, t->pkey, t->sl,
                   t->grh ? &req : NULL, m);
    }
}

/* GetTableResp of @n records of @rec_len bytes in sa->table */
void ib_sa_reply_table(IbPort *port, const IbPacket *p, unsigned n,
                       uint32_t rec_len)
{
    IbSa *sa = port->sa;
    uint32_t stride = (rec_len + 7) & ~7u, len = n * stride;
    uint8_t *hdr = ib_sa_reply_hdr(sa, IB_METHOD_GET_TABLE | IB_METHOD_RESP, 0);
    IbSaRmpp one, *t = &one;
    unsigned i;

    ib_st16(hdr + IB_SA_ATTR_OFFSET, stride / 8);
    memset(&one, 0, sizeof(one));
    if (len > IB_SA_SEG_DATA) {
        /*
         * several segments: a transfer that lives until the last ACK (or is the
         * oldest)
         */
        t = NULL;
        for (i = 0; i < IB_SA_MAX_RMPP; i++) {
            IbSaRmpp *c = &sa->rmpp[i];
            if (!c->used) {
                t = c;
                break;
            }
            if (!t || c->age < t->age) {
                t = c;
            }
        }
        if (t->used) {
            trace_ib_sa_rmpp_evict(t->dlid, t->tid);
        }
        if (!t->data) {
            t->data = g_malloc(IB_SA_MAX_TABLE);
        }
        t->used = true;
        t->age = ++sa->rmpp_age;
    } else {
        t->data = sa->table;
    }
    memcpy(t->hdr, hdr, IB_SA_DATA);
    t->tid = ib_ld64(hdr + IB_MAD_TID);
    t->dlid = p->slid;
    t->dqpn = p->deth_src_qpn;
    t->pkey = p->pkey;
    t->sl = p->sl;
    t->grh = p->grh;
    memcpy(t->sgid, p->sgid, 16);
    t->hop_limit = p->hop_limit;
    t->tclass = p->tclass;
    t->flow_label = p->flow_label;
    t->len = len;
    t->nseg = MAX(1, (len + IB_SA_SEG_DATA - 1) / IB_SA_SEG_DATA);
    t->acked = t->sent = 0;
    if (t != &one) {
        memcpy(t->data, sa->table, len);
    }
    trace_ib_sa_table(p->slid, ib_ld16(hdr + IB_MAD_ATTR_ID), n, t->nseg);
    /* the receiver's window starts at one segment */
    ib_sa_rmpp_push(port, t, 1);
}

/* An RMPP ACK/STOP/ABORT from a receiver of one of our tables */
static void ib_sa_rmpp_rx(IbPort *port, const IbPacket *p)
{
    IbSa *sa = port->sa;
    const uint8_t *m = sa->req;
    uint64_t tid = ib_ld64(m + IB_MAD_TID);
    unsigned i;

    for (i = 0; i < IB_SA_MAX_RMPP; i++) {
        IbSaRmpp *t = &sa->rmpp[i];
        if (!t->used || t->tid != tid || t->dlid != p->slid ||
            t->grh != p->grh || (p->grh && memcmp(t->sgid, p->sgid, 16))) {
            continue;
        }
        if (m[IB_RMPP_TYPE] == IB_RMPP_TYPE_ACK) {
            uint32_t seg = ib_ld32(m + IB_RMPP_SEG_NUM),
                     win = ib_ld32(m + IB_RMPP_PAYLEN);
            if (seg > t->sent || win < seg) {
                trace_ib_sa_rmpp_bad_ack(p->slid, seg, win);
                t->used = false;
                return;
            }
            t->acked = MAX(t->acked, seg);
            if (t->acked >= t->nseg) {
                t->used = false;        /* complete */
                return;
            }
            if (t->sent > t->acked && seg == t->acked && win == t->acked) {
                return;                 /* window closed for now */
            }
            if (t->sent > t->acked && win <= t->sent) {
                /* a resend request: go back to what it has */
                t->sent = t->acked;
            }
            ib_sa_rmpp_push(port, t, win);
        } else {
            t->used = false;            /* STOP or ABORT */
        }
        return;
    }
}

/* ---- ClassPortInfo ------------------------------------------------------- */

static void ib_sa_class_port_info(IbPort *port, const IbPacket *p,
                                  uint8_t method)
{
    uint8_t rec[IB_CPI_LEN] = { 0 };

    if (method != IB_METHOD_GET) {
        ib_sa_error(port, p, IB_MAD_STATUS_METHOD_ATTR_UNSUPP);
        return;
    }
    rec[0] = 1;                                     /* BaseVersion */
    rec[1] = IB_SA_CLASS_VERSION;
    ib_st16(rec + IB_CPI_CAP_MASK, 0);
    ib_st32(rec + IB_CPI_RESP_TIME,
            (IB_SA_CAP2_SENDONLY_FULL << 5) | IB_SA_RESP_TIME);
    ib_sa_reply_one(port, p, rec, IB_CPI_LEN);
}

/* ---- PathRecord ---------------------------------------------------------- */

/* IBA rate enum -> Gb/s * 10 (for the rate selectors) */
static unsigned ib_rate_tenths(uint8_t r)
{
    static const uint16_t t[] = {
        0, 0, 25, 100, 300, 50, 200, 400, 600, 800, 1200, 1680, 560, 1120,
        1680, 250, 1000, 2000, 3000, 1000, 3000
    };

    return r < G_N_ELEMENTS(t) ? t[r] : 0;
}

/*
 * Apply a selector (0 >, 1 <, 2 =, 3 largest) to what the path has; 0 = no such
 * path
 */
static uint8_t ib_sa_select(uint8_t sel, uint8_t want, uint8_t have, bool rate)
{
    unsigned w = rate ? ib_rate_tenths(want) : want,
             h = rate ? ib_rate_tenths(have) : have;

    switch (sel & 3) {
    case 0:
        return h > w ? have : 0;
    case 1:
        if (h < w) {
            return have;
        }
        /*
         * a smaller MTU always exists below the port's (not so for rates: no
         * records)
         */
        return !rate && want > 1 ? want - 1 : 0;
    case 2:
        return w <= h ? want : 0;
    default:
        return have;
    }
}

/*
 * Build the path @src -> @dst into @rec from the request's constraints; false =
 * no path
 */
static bool ib_sa_path(const uint8_t *req, uint64_t cm, const IbPeer *src,
                       const IbPeer *dst, uint8_t *rec)
{
    uint8_t mtu = MIN(src->mtu, dst->mtu), rate = IB_RATE_40_GBPS;
    uint16_t pkey = IB_DEFAULT_PKEY;

    memset(rec, 0, IB_PR_LEN);
    if (cm & IB_PR_CM_PKEY) {
        pkey = ib_ld16(req + IB_PR_PKEY);
        if ((pkey & 0x7fff) != 0x7fff) {
            return false;               /* only the default partition exists */
        }
    }
    if (cm & IB_PR_CM_MTU) {
        mtu = ib_sa_select(cm & IB_PR_CM_MTU_SELECTOR ? req[IB_PR_MTU] >> 6 : 2,
                           req[IB_PR_MTU] & 0x3f, mtu, false);
        if (!mtu || mtu > 5) {
            return false;
        }
    }
    if (cm & IB_PR_CM_RATE) {
        rate = ib_sa_select(cm & IB_PR_CM_RATE_SELECTOR ? req[IB_PR_RATE] >> 6
                                                        : 2,
                            req[IB_PR_RATE] & 0x3f, rate, true);
        if (!rate) {
            return false;
        }
    }
    if ((cm & IB_PR_CM_PLT) && (req[IB_PR_PLT] & 0x3f) < IB_SA_PACKET_LIFE &&
        (!(cm & IB_PR_CM_PLT_SELECTOR) || (req[IB_PR_PLT] >> 6) == 1 ||
         (req[IB_PR_PLT] >> 6) == 2)) {
        /* the fabric's packet lifetime is longer */
        return false;
    }
    if ((cm & IB_PR_CM_NUMB_PATH) && !(req[IB_PR_REV_NUMB] & 0x7f)) {
        return false;
    }
    if (cm & IB_PR_CM_QOS_CLASS && (ib_ld16(req + IB_PR_QOS_SL) >> 4)) {
        return false;                   /* no QoS classes */
    }
    if (cm & IB_PR_CM_SERVICE_ID) {
        memcpy(rec + IB_PR_SERVICE_ID, req + IB_PR_SERVICE_ID, 8);
    }
    ib_st64(rec + IB_PR_DGID, dst->gid_prefix);
    ib_st64(rec + IB_PR_DGID + 8, dst->guid);
    ib_st64(rec + IB_PR_SGID, src->gid_prefix);
    ib_st64(rec + IB_PR_SGID + 8, src->guid);
    ib_st16(rec + IB_PR_DLID,
            (cm & IB_PR_CM_DLID) ? ib_ld16(req + IB_PR_DLID) : dst->lid);
    ib_st16(rec + IB_PR_SLID,
            (cm & IB_PR_CM_SLID) ? ib_ld16(req + IB_PR_SLID) : src->lid);
    ib_st32(rec + IB_PR_FLOW_HOP,
            ((cm & IB_PR_CM_FLOW_LABEL)
                 ? ib_ld32(req + IB_PR_FLOW_HOP) & 0x0fffff00
                 : 0) |
                /*
                 * a vport's GID (an alias GUID): HopLimit 1, so that the path's
                 * address has a GRH (a VF requires one, and is found by it)
                 */
                ((cm & IB_PR_CM_HOP_LIMIT) ? req[IB_PR_FLOW_HOP + 3]
                 : src->alias || dst->alias ? 1 : 0));
    rec[IB_PR_TCLASS] = (cm & IB_PR_CM_TCLASS) ? req[IB_PR_TCLASS] : 0;
    rec[IB_PR_REV_NUMB] = 0x80 | 1;     /* reversible, one path */
    ib_st16(rec + IB_PR_PKEY, pkey);
    ib_st16(rec + IB_PR_QOS_SL,
            (cm & IB_PR_CM_SL) ? ib_ld16(req + IB_PR_QOS_SL) & 0xf : 0);
    rec[IB_PR_MTU] = (2 << 6) | mtu;
    rec[IB_PR_RATE] = (2 << 6) | rate;
    rec[IB_PR_PLT] = (2 << 6) | IB_SA_PACKET_LIFE;
    return true;
}

/*
 * The port a PathRecord names by GID or LID (@gid_bit/@lid_bit); NULL and
 * *named = false if it names none
 */
static const IbPeer *ib_sa_path_end(const IbPort *port, const uint8_t *req,
                                    uint64_t cm, uint64_t gid_bit,
                                    uint64_t lid_bit, unsigned gid_off,
                                    unsigned lid_off, IbPeer *scratch,
                                    bool *named)
{
    *named = true;
    if (cm & gid_bit) {
        const uint8_t *gid = req + gid_off;
        const IbPeer *e = ib_sm_find_guid(port, ib_ld64(gid + 8), scratch);
        return e && e->gid_prefix == ib_ld64(gid) ? e : NULL;
    }
    if (cm & lid_bit) {
        return ib_sm_find_lid(port, ib_ld16(req + lid_off), scratch);
    }
    *named = false;
    return NULL;
}

static void ib_sa_path_record(IbPort *port, const IbPacket *p, uint8_t method)
{
    IbSa *sa = port->sa;
    const uint8_t *req = sa->req + IB_SA_DATA;
    uint64_t cm = ib_ld64(sa->req + IB_SA_COMP_MASK);
    IbPeer s_scratch, d_scratch, r_scratch;
    const IbPeer *src, *dst;
    bool src_named, dst_named;
    unsigned n = 0, i;

    if (method != IB_METHOD_GET && method != IB_METHOD_GET_TABLE) {
        ib_sa_error(port, p, IB_MAD_STATUS_METHOD_ATTR_UNSUPP);
        return;
    }
    src = ib_sa_path_end(port, req, cm, IB_PR_CM_SGID, IB_PR_CM_SLID,
                         IB_PR_SGID, IB_PR_SLID, &s_scratch, &src_named);
    if (!src_named) {
        /* the requester's own port */
        src = ib_sm_find_lid(port, p->slid, &s_scratch);
    }
    dst = ib_sa_path_end(port, req, cm, IB_PR_CM_DGID, IB_PR_CM_DLID,
                         IB_PR_DGID, IB_PR_DLID, &d_scratch, &dst_named);
    if ((cm & IB_PR_CM_DGID) && req[IB_PR_DGID] == 0xff) {
        /* multicast paths come from MCMemberRecords */
        dst = NULL;
    }
    if (!src || (dst_named && !dst)) {
        trace_ib_sa_path_none(p->slid, ib_ld64(req + IB_PR_SGID + 8),
                              ib_ld64(req + IB_PR_DGID + 8), cm, !src);
        if (method == IB_METHOD_GET) {
            ib_sa_error(port, p, IB_SA_STATUS_NO_RECORDS);
        } else {
            ib_sa_reply_table(port, p, 0, IB_PR_LEN);      /* an empty table */
        }
        return;
    }
    if (dst) {
        n = ib_sa_path(req, cm, src, dst, sa->table) ? 1 : 0;
    } else if (method == IB_METHOD_GET_TABLE) {
        /* every port of the fabric as destination */
        for (i = 0;
             i <= IB_FABRIC_MAX_PEERS && (n + 1) * IB_PR_LEN <= IB_SA_MAX_TABLE;
             i++) {
            const IbPeer *d = i == IB_FABRIC_MAX_PEERS
                                  ? (ib_sm_self(port, &r_scratch), &r_scratch)
                                  : &port->peers[i];
            if (d->guid &&
                ib_sa_path(req, cm, src, d, sa->table + n * IB_PR_LEN)) {
                n++;
            }
        }
    } else {
        ib_sa_error(port, p, IB_SA_STATUS_INSUFFICIENT_COMPS);
        return;
    }
    trace_ib_sa_path(p->slid, src->lid, dst ? dst->lid : 0, n);
    ib_sa_reply_records(port, p, method, n, IB_PR_LEN);
}

/* ---- MCMemberRecord ------------------------------------------------------ */

static IbSaGroup *ib_sa_group_by_mgid(IbSa *sa, const uint8_t *mgid)
{
    unsigned i;

    for (i = 0; i < IB_SA_MAX_GROUPS; i++) {
        if (sa->group[i].used && !memcmp(sa->group[i].mgid, mgid, 16)) {
            return &sa->group[i];
        }
    }
    return NULL;
}

static IbSaMember *ib_sa_member(IbSaGroup *g, const uint8_t *gid, bool add)
{
    IbSaMember *free_slot = NULL;
    unsigned i;

    for (i = 0; i < IB_SA_MAX_MEMBERS; i++) {
        IbSaMember *m = &g->member[i];
        if (m->join && !memcmp(m->gid, gid, 16)) {
            return m;
        }
        if (!m->join && !free_slot) {
            free_slot = m;
        }
    }
    if (add && free_slot) {
        memcpy(free_slot->gid, gid, 16);
    }
    return add ? free_slot : NULL;
}

static bool ib_sa_group_empty(const IbSaGroup *g)
{
    unsigned i;

    for (i = 0; i < IB_SA_MAX_MEMBERS; i++) {
        if (g->member[i].join) {
            return false;
        }
    }
    return true;
}

static void ib_sa_mcr_fill(const IbSaGroup *g, const uint8_t *port_gid,
                           uint8_t join, uint8_t *rec)
{
    memset(rec, 0, IB_MCR_LEN);
    memcpy(rec + IB_MCR_MGID, g->mgid, 16);
    if (port_gid) {
        memcpy(rec + IB_MCR_PORT_GID, port_gid, 16);
    }
    ib_st32(rec + IB_MCR_QKEY, g->qkey);
    ib_st16(rec + IB_MCR_MLID, g->mlid);
    rec[IB_MCR_MTU] = (2 << 6) | g->mtu;
    rec[IB_MCR_TCLASS] = g->tclass;
    ib_st16(rec + IB_MCR_PKEY, g->pkey);
    rec[IB_MCR_RATE] = (2 << 6) | g->rate;
    rec[IB_MCR_PLT] = (2 << 6) | g->plt;
    ib_st32(rec + IB_MCR_SL_FLOW_HOP,
            ((uint32_t)g->sl << 28) | (g->flow_label << 8) | g->hop_limit);
    rec[IB_MCR_SCOPE_JOIN] = (g->scope << 4) | (join & 0xf);
}

/* Does the join request's component @cm fit the existing group? */
static bool ib_sa_mcr_compatible(const IbSaGroup *g, const uint8_t *req,
                                 uint64_t cm)
{
    uint32_t sfh = ib_ld32(req + IB_MCR_SL_FLOW_HOP);

    if ((cm & IB_MCR_CM_QKEY) && ib_ld32(req + IB_MCR_QKEY) != g->qkey) {
        return false;
    }
    if ((cm & IB_MCR_CM_PKEY) &&
        (ib_ld16(req + IB_MCR_PKEY) & 0x7fff) != (g->pkey & 0x7fff)) {
        return false;
    }
    if ((cm & IB_MCR_CM_MLID) && ib_ld16(req + IB_MCR_MLID) != g->mlid) {
        return false;
    }
    if ((cm & IB_MCR_CM_MTU) &&
        ib_sa_select(cm & IB_MCR_CM_MTU_SELECTOR ? req[IB_MCR_MTU] >> 6 : 2,
                     req[IB_MCR_MTU] & 0x3f, g->mtu, false) != g->mtu) {
        return false;
    }
    if ((cm & IB_MCR_CM_RATE) &&
        ib_sa_select(cm & IB_MCR_CM_RATE_SELECTOR ? req[IB_MCR_RATE] >> 6 : 2,
                     req[IB_MCR_RATE] & 0x3f, g->rate, true) != g->rate) {
        return false;
    }
    if ((cm & IB_MCR_CM_SL) && (sfh >> 28) != g->sl) {
        return false;
    }
    if ((cm & IB_MCR_CM_FLOW_LABEL) &&
        ((sfh >> 8) & 0xfffff) != g->flow_label) {
        return false;
    }
    if ((cm & IB_MCR_CM_TCLASS) && req[IB_MCR_TCLASS] != g->tclass) {
        return false;
    }
    return true;
}

static IbSaGroup *ib_sa_mcr_create(IbSa *sa, const uint8_t *req, uint64_t cm,
                                   const uint8_t *mgid, uint16_t *status)
{
    const uint64_t need = IB_MCR_CM_QKEY | IB_MCR_CM_PKEY | IB_MCR_CM_SL |
                          IB_MCR_CM_FLOW_LABEL | IB_MCR_CM_TCLASS;
    IbSaGroup *g = NULL;
    uint32_t sfh = ib_ld32(req + IB_MCR_SL_FLOW_HOP);
    unsigned i;

    if ((cm & need) != need) {
        *status = IB_SA_STATUS_INSUFFICIENT_COMPS;
        return NULL;
    }
    if ((ib_ld16(req + IB_MCR_PKEY) & 0x7fff) != 0x7fff) {
        /* only the default partition exists */
        *status = IB_SA_STATUS_REQ_INVALID;
        return NULL;
    }
    for (i = 0; i < IB_SA_MAX_GROUPS && !g; i++) {
        if (!sa->group[i].used) {
            g = &sa->group[i];
        }
    }
    if (!g || sa->next_mlid > IB_MLID_LAST) {
        *status = IB_SA_STATUS_NO_RESOURCES;
        return NULL;
    }
    memset(g, 0, sizeof(*g));
    g->used = true;
    memcpy(g->mgid, mgid, 16);
    /* reuse the lowest free MLID */
    g->mlid = IB_SA_MLID_BASE;
    for (i = 0; i < IB_SA_MAX_GROUPS; i++) {
        if (&sa->group[i] != g && sa->group[i].used &&
            sa->group[i].mlid == g->mlid) {
            g->mlid++;
            /* restart: bounded by IB_SA_MAX_GROUPS MLIDs */
            i = -1;
        }
    }
    g->qkey = ib_ld32(req + IB_MCR_QKEY);
    g->pkey = ib_ld16(req + IB_MCR_PKEY) | 0x8000;
    g->mtu = IB_MTU_ENUM_4096;
    if (cm & IB_MCR_CM_MTU) {
        g->mtu = ib_sa_select(cm & IB_MCR_CM_MTU_SELECTOR ? req[IB_MCR_MTU] >> 6
                                                          : 2,
                              req[IB_MCR_MTU] & 0x3f, IB_MTU_ENUM_4096, false);
    }
    g->rate = IB_RATE_40_GBPS;
    if (cm & IB_MCR_CM_RATE) {
        g->rate = ib_sa_select(
            cm & IB_MCR_CM_RATE_SELECTOR ? req[IB_MCR_RATE] >> 6 : 2,
            req[IB_MCR_RATE] & 0x3f, IB_RATE_40_GBPS, true);
    }
    if (!g->mtu || g->mtu > 5 || !g->rate) {
        g->used = false;
        *status = IB_SA_STATUS_REQ_INVALID;
        return NULL;
    }
    g->plt = IB_SA_PACKET_LIFE;
    g->sl = sfh >> 28;
    g->flow_label = (sfh >> 8) & 0xfffff;
    g->hop_limit = (cm & IB_MCR_CM_HOP_LIMIT) ? sfh & 0xff : 0;
    g->tclass = req[IB_MCR_TCLASS];
    g->scope = (cm & IB_MCR_CM_SCOPE) ? req[IB_MCR_SCOPE_JOIN] >> 4
                                      : (mgid[1] & 0xf);
    trace_ib_sa_mcast_create(g->mlid, ib_ld64(mgid), ib_ld64(mgid + 8));
    return g;
}

static void ib_sa_mcmember(IbPort *port, const IbPacket *p, uint8_t method)
{
    IbSa *sa = port->sa;
    const uint8_t *req = sa->req + IB_SA_DATA;
    uint64_t cm = ib_ld64(sa->req + IB_SA_COMP_MASK);
    uint8_t join = req[IB_MCR_SCOPE_JOIN] & 0xf, mgid[16];
    uint8_t rec[IB_MCR_LEN];
    uint16_t status = 0;
    IbSaGroup *g;
    IbSaMember *m;
    unsigned i, n;

    switch (method) {
    case IB_METHOD_SET:                 /* join (and create) */
        if (!(cm & IB_MCR_CM_PORT_GID) || !(cm & IB_MCR_CM_JOIN_STATE) ||
            !join) {
            ib_sa_error(port, p, IB_SA_STATUS_INSUFFICIENT_COMPS);
            return;
        }
        memcpy(mgid, req + IB_MCR_MGID, 16);
        g = NULL;
        if (!(cm & IB_MCR_CM_MGID) || !memcmp(mgid, ib_sa_zero_gid, 16)) {
            /*
             * the SA picks the MGID (IBA 15.2.5.17.2):
             * ff1<scope>:a01b:<pkey>::<mlid-ish>
             */
            memset(mgid, 0, 16);
            mgid[0] = 0xff;
            mgid[1] = 0x10 |
                      ((cm & IB_MCR_CM_SCOPE) ? req[IB_MCR_SCOPE_JOIN] >> 4
                                              : 2);
            mgid[2] = 0xa0;
            mgid[3] = 0x1b;
            ib_st16(mgid + 4, ib_ld16(req + IB_MCR_PKEY) | 0x8000);
            ib_st32(mgid + 12, ++sa->mgid_serial);
        } else if (mgid[0] != 0xff) {
            ib_sa_error(port, p, IB_SA_STATUS_INVALID_GID);
            return;
        } else {
            g = ib_sa_group_by_mgid(sa, mgid);
        }
        if (g && !ib_sa_mcr_compatible(g, req, cm)) {
            trace_ib_sa_mcast_mismatch(p->slid, g->mlid);
            ib_sa_error(port, p, IB_SA_STATUS_REQ_INVALID);
            return;
        }
        if (!g) {
            g = ib_sa_mcr_create(sa, req, cm, mgid, &status);
            if (!g) {
                ib_sa_error(port, p, status);
                return;
            }
        }
        m = ib_sa_member(g, req + IB_MCR_PORT_GID, true);
        if (!m) {
            if (ib_sa_group_empty(g) && !g->permanent) {
                g->used = false;
            }
            ib_sa_error(port, p, IB_SA_STATUS_NO_RESOURCES);
            return;
        }
        m->join |= join;
        trace_ib_sa_mcast_join(p->slid, g->mlid, m->join);
        ib_sa_mcr_fill(g, m->gid, m->join, rec);
        ib_sa_reply_one(port, p, rec, IB_MCR_LEN);
        return;
    case IB_METHOD_DELETE:              /* leave */
        if (!(cm & IB_MCR_CM_MGID) || !(cm & IB_MCR_CM_PORT_GID) ||
            !(cm & IB_MCR_CM_JOIN_STATE)) {
            ib_sa_error(port, p, IB_SA_STATUS_INSUFFICIENT_COMPS);
            return;
        }
        g = ib_sa_group_by_mgid(sa, req + IB_MCR_MGID);
        m = g ? ib_sa_member(g, req + IB_MCR_PORT_GID, false) : NULL;
        if (!m || !(m->join & join)) {
            ib_sa_error(port, p, IB_SA_STATUS_REQ_INVALID);
            return;
        }
        m->join &= ~join;
        ib_sa_mcr_fill(g, req + IB_MCR_PORT_GID, m->join, rec);
        trace_ib_sa_mcast_leave(p->slid, g->mlid, m->join);
        if (!m->join) {
            memset(m, 0, sizeof(*m));
        }
        if (ib_sa_group_empty(g) && !g->permanent) {
            trace_ib_sa_mcast_delete(g->mlid);
            g->used = false;
        }
        ib_sa_reply_one(port, p, rec, IB_MCR_LEN);
        return;
    case IB_METHOD_GET:
    case IB_METHOD_GET_TABLE:
        n = 0;
        for (i = 0; i < IB_SA_MAX_GROUPS; i++) {
            g = &sa->group[i];
            if (!g->used ||
                ((cm & IB_MCR_CM_MGID) &&
                 memcmp(g->mgid, req + IB_MCR_MGID, 16)) ||
                ((cm & IB_MCR_CM_MLID) &&
                 g->mlid != ib_ld16(req + IB_MCR_MLID)) ||
                ((cm & IB_MCR_CM_PKEY) &&
                 (g->pkey & 0x7fff) != (ib_ld16(req + IB_MCR_PKEY) & 0x7fff))) {
                continue;
            }
            m = (cm & IB_MCR_CM_PORT_GID)
                    ? ib_sa_member(g, req + IB_MCR_PORT_GID, false)
                    : NULL;
            if ((cm & IB_MCR_CM_PORT_GID) && !m) {
                continue;
            }
            ib_sa_mcr_fill(g, m ? m->gid : NULL, m ? m->join : 0,
                           sa->table + n * 56);
            n++;
        }
        ib_sa_reply_records(port, p, method, n, IB_MCR_LEN);
        return;
    default:
        ib_sa_error(port, p, IB_MAD_STATUS_METHOD_ATTR_UNSUPP);
    }
}

/* ---- dispatch ------------------------------------------------------------ */

/*
 * An RMPP ACK, STOP or ABORT (as receivers of our tables send; an ACK flips the
 * data's response bit, so it comes with the request's method)
 */
static bool ib_sa_is_rmpp_ctl(const uint8_t *m, uint32_t len)
{
    return len >= IB_SA_DATA && m[IB_RMPP_VERSION] == 1 &&
           (m[IB_RMPP_FLAGS] & IB_RMPP_FLAG_ACTIVE) &&
           m[IB_RMPP_TYPE] != IB_RMPP_TYPE_DATA;
}

bool ib_sa_rx(IbPort *port, const IbPacket *p)
{
    IbSa *sa = port->sa;
    const uint8_t *m = p->payload;
    bool ctl;
    uint8_t method;
    uint16_t attr;

    if (p->payload_len < IB_MAD_HDR_LEN ||
        m[IB_MAD_MGMT_CLASS] != IB_MGMT_CLASS_SUBN_ADM || !sa ||
        !ib_sm_is_master(port)) {
        /* not for the SA: the guest's QP1 takes it */
        return false;
    }
    ctl = ib_sa_is_rmpp_ctl(m, p->payload_len);
    if (!ctl && (m[IB_MAD_METHOD] & IB_METHOD_RESP)) {
        /* a response is for a client: our own replies to our own port's QP1 */
        return false;
    }
    if (p->payload_len < IB_MAD_SIZE || p->deth_qkey != IB_GSI_QKEY) {
        trace_ib_sa_drop(p->slid, p->payload_len, p->deth_qkey);
        return true;
    }
    memcpy(sa->req, m, IB_MAD_SIZE);
    method = sa->req[IB_MAD_METHOD];
    attr = ib_ld16(sa->req + IB_MAD_ATTR_ID);
    trace_ib_sa_request(p->slid, attr, method,
                        ib_ld64(sa->req + IB_SA_COMP_MASK));
    if (sa->req[IB_RMPP_VERSION]) {
        trace_ib_sa_rmpp(p->slid, sa->req[IB_RMPP_TYPE], sa->req[IB_RMPP_FLAGS],
                         ib_ld32(sa->req + IB_RMPP_SEG_NUM),
                         ib_ld32(sa->req + IB_RMPP_PAYLEN));
    }
    if (ctl) {
        ib_sa_rmpp_rx(port, p);
        return true;
    }
    if (sa->req[IB_MAD_BASE_VERSION] != 1 ||
        sa->req[IB_MAD_CLASS_VERSION] != IB_SA_CLASS_VERSION) {
        ib_sa_error(port, p, IB_MAD_STATUS_BAD_VERSION);
        return true;
    }
    if (sa->req[IB_RMPP_VERSION] &&
        (sa->req[IB_RMPP_FLAGS] & IB_RMPP_FLAG_ACTIVE) &&
        (sa->req[IB_RMPP_FLAGS] & (IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST)) !=
            (IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST)) {
        /*
         * no request we answer needs more than one MAD (GetMulti is not
         * answered)
         */
        ib_sa_error(port, p, IB_MAD_STATUS_METHOD_ATTR_UNSUPP);
        return true;
    }
    switch (method) {
    case IB_METHOD_GET:
    case IB_METHOD_SET:
    case IB_METHOD_GET_TABLE:
    case IB_METHOD_DELETE:
        break;
    default:
        ib_sa_error(port, p, IB_MAD_STATUS_METHOD_UNSUPP);
        return true;
    }
    switch (attr) {
    case IB_SA_ATTR_CLASS_PORT_INFO:
        ib_sa_class_port_info(port, p, method);
        break;
    case IB_SA_ATTR_PATH_REC:
        ib_sa_path_record(port, p, method);
        break;
    case IB_SA_ATTR_MC_MEMBER_REC:
        ib_sa_mcmember(port, p, method);
        break;
    case IB_SA_ATTR_NODE_REC:
    case IB_SA_ATTR_PORT_INFO_REC:
    case IB_SA_ATTR_GUID_INFO_REC:
        ib_sa_directory(port, p, method, attr);
        break;
    case IB_SA_ATTR_SERVICE_REC:
        ib_sa_service(port, p, method);
        break;
    case IB_SA_ATTR_INFORM_INFO:
        ib_sa_inform(port, p, method);
        break;
    default:
        ib_sa_error(port, p, IB_MAD_STATUS_METHOD_ATTR_UNSUPP);
        break;
    }
    return true;
}
