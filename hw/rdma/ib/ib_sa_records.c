/*
 * Vendor-neutral IB fabric services: the subnet administrator's node-level
 * records, services and event subscriptions. NodeRecord, PortInfoRecord and
 * GUIDInfoRecord come from the fabric directory; ServiceRecords are registered
 * by clients (Set, with a lease), found (Get, GetTable, by any component the
 * request names) and removed (Delete); InformInfo Set subscribes a client to
 * traps 64/65 (a port's GID in or out of service), which the SA then reports
 * (Report(Notice)) as ports join or leave the directory. Caps:
 * IB_SA_MAX_SERVICES records and IB_SA_MAX_INFORMS subscriptions; the tables
 * are the SA's and go with it when another port becomes master.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "ib_sa_internal.h"
#include "trace.h"

/* ---- NodeRecord, PortInfoRecord and GUIDInfoRecord ----------------------- */

#define IB_NR_CM_SYS_GUID   (1ull << 6)
#define IB_NR_CM_NODE_GUID  (1ull << 7)
#define IB_NR_CM_PORT_GUID  (1ull << 8)

static void ib_sa_node_rec(const IbPeer *e, uint8_t *rec)
{
    uint8_t *ni = rec + IB_NR_NODE_INFO;

    memset(rec, 0, IB_NR_LEN);
    ib_st16(rec + IB_NR_LID, e->lid);
    ni[0] = 1;                          /* BaseVersion */
    ni[1] = 1;                          /* ClassVersion */
    ni[IB_NI_NODE_TYPE] = 1;            /* channel adapter */
    ni[IB_NI_NUM_PORTS] = 1;
    ib_st64(ni + IB_NI_SYS_GUID, e->node.sys_guid);
    ib_st64(ni + IB_NI_NODE_GUID, e->node.node_guid);
    ib_st64(ni + IB_NI_PORT_GUID, e->guid);
    ib_st16(ni + IB_NI_PARTITION_CAP, 128);
    ib_st16(ni + IB_NI_DEVICE_ID, e->node.device_id);
    ib_st32(ni + IB_NI_REVISION, e->node.revision);
    ni[IB_NI_LOCAL_PORT] = 1;
    ni[IB_NI_VENDOR_ID] = e->node.vendor_id >> 16;
    ni[IB_NI_VENDOR_ID + 1] = e->node.vendor_id >> 8;
    ni[IB_NI_VENDOR_ID + 2] = e->node.vendor_id;
    memcpy(rec + IB_NR_NODE_DESC, e->node.desc, 64);
}

/*
 * PortInfo (IBA 14.2.5.6) of a port in the directory, as its SMA would say it
 */
static void ib_sa_port_info(const IbPort *port, const IbPeer *e, uint8_t *pi)
{
    memset(pi, 0, 64);
    ib_st64(pi + 8, e->gid_prefix);
    ib_st16(pi + 16, e->lid);
    ib_st16(pi + 18, port->sm_lid);
    /*
     * CapabilityMask: IsSM (the master), IsTrap, IsSLMapping,
     * IsSystemImageGUID, IsCM, IsDeviceManagement, IsClientReregistration
     * supported
     */
    ib_st32(pi + 20, (e->guid == port->sm_guid ? 0x2 : 0) | 0x02090848);
    pi[29] = 2;                         /* LinkWidthEnabled 4X */
    pi[30] = 3;                         /* LinkWidthSupported 1X | 4X */
    pi[31] = 2;                         /* LinkWidthActive 4X */
    /* LinkSpeedSupported SDR-QDR | PortState ACTIVE */
    pi[32] = (7 << 4) | 4;
    /* PortPhysicalState LinkUp | LinkDownDefault polling */
    pi[33] = (5 << 4) | 2;
    pi[34] = e->lmc & 7;
    /* LinkSpeedActive QDR | LinkSpeedEnabled */
    pi[35] = (4 << 4) | 7;
    pi[36] = e->mtu << 4;               /* NeighborMTU | MasterSMSL 0 */
    pi[37] = 4 << 4;                    /* VLCap VL0-7 */
    pi[41] = e->mtu;                    /* MTUCap */
    pi[43] = 1 << 4;                    /* OperationalVLs */
    pi[51] = 18;                        /* SubnetTimeOut */
}

/*
 * GUIDInfoRecord (IBA 15.2.5.18): LID, block, 8 GUIDs; one GUID per port, in
 * block 0
 */
#define IB_GIR_LEN              72
#define IB_GIR_CM_BLOCK         (1ull << 1)

/*
 * Get/GetTable of NodeRecords, PortInfoRecords or GUIDInfoRecords: one per
 * directory entry
 */
void ib_sa_directory(IbPort *port, const IbPacket *p, uint8_t method,
                     uint16_t attr)
{
    IbSa *sa = port->sa;
    const uint8_t *req = sa->req + IB_SA_DATA;
    uint64_t cm = ib_ld64(sa->req + IB_SA_COMP_MASK);
    uint32_t len = attr == IB_SA_ATTR_NODE_REC ? IB_NR_LEN :
                   attr == IB_SA_ATTR_PORT_INFO_REC ? IB_PIR_LEN : IB_GIR_LEN;
    uint32_t stride = (len + 7) & ~7u;
    IbPeer self;
    unsigned i, n = 0, b, k;

    if (method != IB_METHOD_GET && method != IB_METHOD_GET_TABLE) {
        ib_sa_error(port, p, IB_MAD_STATUS_METHOD_ATTR_UNSUPP);
        return;
    }
    ib_sm_self(port, &self);
    for (i = 0; i <= IB_FABRIC_MAX_PEERS && (n + 1) * stride <= IB_SA_MAX_TABLE;
         i++) {
        const IbPeer *e = i == IB_FABRIC_MAX_PEERS ? &self : &port->peers[i];
        uint8_t *rec = sa->table + n * stride;
        const uint8_t *ni = req + IB_NR_NODE_INFO;
        if (!e->guid || ((cm & 1) && ib_ld16(req) != e->lid)) {
            /* bit 0 is the LID in all three records */
            continue;
        }
        switch (attr) {
        case IB_SA_ATTR_NODE_REC:
            if (((cm & IB_NR_CM_SYS_GUID) &&
                 ib_ld64(ni + IB_NI_SYS_GUID) != e->node.sys_guid) ||
                ((cm & IB_NR_CM_NODE_GUID) &&
                 ib_ld64(ni + IB_NI_NODE_GUID) != e->node.node_guid) ||
                ((cm & IB_NR_CM_PORT_GUID) &&
                 ib_ld64(ni + IB_NI_PORT_GUID) != e->guid)) {
                continue;
            }
            ib_sa_node_rec(e, rec);
            break;
        case IB_SA_ATTR_PORT_INFO_REC:
            if ((cm & IB_PIR_CM_PORT_NUM) && req[IB_PIR_PORT_NUM] > 1) {
                continue;
            }
            memset(rec, 0, stride);
            ib_st16(rec + IB_PIR_LID, e->lid);
            rec[IB_PIR_PORT_NUM] = 1;
            ib_sa_port_info(port, e, rec + IB_PIR_PORT_INFO);
            break;
        default:
            /*
             * GUIDInfo: the port GUID at index 0, its aliases (its vports')
             * from 1, 8 a block
             */
            for (b = 0; b * 8 < 1 + e->naliases &&
                        (n + 1) * stride <= IB_SA_MAX_TABLE; b++) {
                if ((cm & IB_GIR_CM_BLOCK) && req[2] != b) {
                    continue;
                }
                rec = sa->table + n * stride;
                memset(rec, 0, stride);
                ib_st16(rec, e->lid);
                rec[2] = b;
                for (k = 0; k < 8 && b * 8 + k <= e->naliases; k++) {
                    ib_st64(rec + 8 + 8 * k,
                            b * 8 + k ? e->aliases[b * 8 + k - 1] : e->guid);
                }
                n++;
            }
            continue;
        }
        n++;
    }
    ib_sa_reply_records(port, p, method, n, len);
}

/* ---- ServiceRecord (IBA 15.2.5.14) --------------------------------------- */

#define IB_SR_LEN               176
#define IB_SR_GID               8
#define IB_SR_PKEY              24
#define IB_SR_LEASE             28
#define IB_SR_KEY               32
#define IB_SR_NAME              48
#define IB_SR_CM_ID             (1ull << 0)
#define IB_SR_CM_GID            (1ull << 1)
#define IB_SR_CM_PKEY           (1ull << 2)
#define IB_SR_CM_LEASE          (1ull << 4)
#define IB_SR_INFINITE          0xffffffffu

/* The fields a request's component mask can name: bit, offset, length */
static const struct { uint8_t bit, off, len;
} ib_sr_fields[] = {
    { 0, 0, 8 },
    { 1, IB_SR_GID, 16 },
    { 2, IB_SR_PKEY, 2 },
    { 5, IB_SR_KEY, 16 },
    { 6, IB_SR_NAME, 64 },
    /* ServiceData8[16], ServiceData16[8], ServiceData32[4], ServiceData64[2] */
#define D8(i) { 7 + (i), 112 + (i), 1 }
    D8(0),
    D8(1),
    D8(2),
    D8(3),
    D8(4),
    D8(5),
    D8(6),
    D8(7),
    D8(8),
    D8(9),
    D8(10),
    D8(11),
    D8(12),
    D8(13),
    D8(14),
    D8(15),
#define D16(i) { 23 + (i), 128 + 2 * (i), 2 }
    D16(0),
    D16(1),
    D16(2),
    D16(3),
    D16(4),
    D16(5),
    D16(6),
    D16(7),
    { 31, 144, 4 },
    { 32, 148, 4 },
    { 33, 152, 4 },
    { 34, 156, 4 },
    { 35, 160, 8 },
    { 36, 168, 8 },
};

static bool ib_sr_matches(const uint8_t *rec, const uint8_t *req, uint64_t cm)
{
    unsigned i;

    for (i = 0; i < G_N_ELEMENTS(ib_sr_fields); i++) {
        if ((cm >> ib_sr_fields[i].bit) & 1 &&
            memcmp(rec + ib_sr_fields[i].off, req + ib_sr_fields[i].off,
                   ib_sr_fields[i].len)) {
            return false;
        }
    }
    return true;
}

/* forget the records whose lease ran out */
static void ib_sr_expire(IbPort *port)
{
    int64_t now = port->ops->now_ns(port);
    unsigned i;

    for (i = 0; i < IB_SA_MAX_SERVICES; i++) {
        IbSaService *s = &port->sa->service[i];
        if (s->used && s->expires <= now) {
            trace_ib_sa_service(ib_ld64(s->rec), "lease expired");
            s->used = false;
        }
    }
}

void ib_sa_service(IbPort *port, const IbPacket *p, uint8_t method)
{
    IbSa *sa = port->sa;
    const uint8_t *req = sa->req + IB_SA_DATA;
    uint64_t cm = ib_ld64(sa->req + IB_SA_COMP_MASK);
    const uint64_t id_cm = IB_SR_CM_ID | IB_SR_CM_GID | IB_SR_CM_PKEY;
    IbSaService *s, *free_slot = NULL;
    uint8_t rec[IB_SR_LEN];
    IbPeer scratch;
    unsigned i, n = 0;

    ib_sr_expire(port);
    memcpy(rec, req, IB_SR_LEN);
    if (!(cm & IB_SR_CM_PKEY)) {
        ib_st16(rec + IB_SR_PKEY, IB_DEFAULT_PKEY);
    }
    switch (method) {
    case IB_METHOD_SET:
    case IB_METHOD_DELETE:
        if ((cm & (IB_SR_CM_ID | IB_SR_CM_GID)) !=
            (IB_SR_CM_ID | IB_SR_CM_GID)) {
            ib_sa_error(port, p, IB_SA_STATUS_INSUFFICIENT_COMPS);
            return;
        }
        for (i = 0, s = NULL; i < IB_SA_MAX_SERVICES && !s; i++) {
            IbSaService *c = &sa->service[i];
            if (c->used && ib_sr_matches(c->rec, rec, id_cm)) {
                s = c;
            } else if (!c->used && !free_slot) {
                free_slot = c;
            }
        }
        if (method == IB_METHOD_DELETE) {
            if (!s) {
                ib_sa_error(port, p, IB_SA_STATUS_NO_RECORDS);
                return;
            }
            s->used = false;
            trace_ib_sa_service(ib_ld64(s->rec), "deleted");
            ib_sa_reply_one(port, p, s->rec, IB_SR_LEN);
            return;
        }
        if (!ib_sm_find_guid(port, ib_ld64(rec + IB_SR_GID + 8), &scratch)) {
            /* not a port of the fabric */
            ib_sa_error(port, p, IB_SA_STATUS_INVALID_GID);
            return;
        }
        s = s ? s : free_slot;
        if (!s) {
            ib_sa_error(port, p, IB_SA_STATUS_NO_RESOURCES);
            return;
        }
        if (!(cm & IB_SR_CM_LEASE)) {
            ib_st32(rec + IB_SR_LEASE, IB_SR_INFINITE);
        }
        memcpy(s->rec, rec, IB_SR_LEN);
        s->used = true;
        s->expires = ib_ld32(rec + IB_SR_LEASE) == IB_SR_INFINITE
                         ? INT64_MAX
                         : port->ops->now_ns(port) +
                               ib_ld32(rec + IB_SR_LEASE) * 1000000000ll;
        trace_ib_sa_service(ib_ld64(s->rec), "registered");
        ib_sa_reply_one(port, p, s->rec, IB_SR_LEN);
        return;
    case IB_METHOD_GET:
    case IB_METHOD_GET_TABLE:
        for (i = 0; i < IB_SA_MAX_SERVICES; i++) {
            s = &sa->service[i];
            if (s->used && ib_sr_matches(s->rec, rec, cm)) {
                memcpy(sa->table + n++ * IB_SR_LEN, s->rec, IB_SR_LEN);
            }
        }
        ib_sa_reply_records(port, p, method, n, IB_SR_LEN);
        return;
    default:
        ib_sa_error(port, p, IB_MAD_STATUS_METHOD_ATTR_UNSUPP);
    }
}

/* ---- InformInfo (IBA 13.4.8.3) and Reports ------------------------------- */

#define IB_II_LEN               36
#define IB_II_GID               0
#define IB_II_IS_GENERIC        22
#define IB_II_SUBSCRIBE         23
#define IB_II_TRAP              26
/* QPN(24) reserved(3) RespTimeValue(5) */
#define IB_II_QPN               28
#define IB_NOTICE_LEN           80
#define IB_TRAP_GID_IN          64
#define IB_TRAP_GID_OUT         65

void ib_sa_inform(IbPort *port, const IbPacket *p, uint8_t method)
{
    IbSa *sa = port->sa;
    const uint8_t *req = sa->req + IB_SA_DATA;
    uint16_t trap = ib_ld16(req + IB_II_TRAP);
    IbSaInform *in = NULL, *free_slot = NULL;
    unsigned i;

    if (method != IB_METHOD_SET) {
        ib_sa_error(port, p, IB_MAD_STATUS_METHOD_ATTR_UNSUPP);
        return;
    }
    if (!req[IB_II_IS_GENERIC] ||
        (trap != IB_TRAP_GID_IN && trap != IB_TRAP_GID_OUT && trap != 0xffff)) {
        /* only the generic traps this SA produces can be subscribed to */
        ib_sa_error(port, p, IB_SA_STATUS_REQ_INVALID);
        return;
    }
    for (i = 0; i < IB_SA_MAX_INFORMS; i++) {
        IbSaInform *c = &sa->inform[i];
        if (c->used && c->lid == p->slid && c->trap == trap) {
            in = c;
        } else if (!c->used && !free_slot) {
            free_slot = c;
        }
    }
    if (req[IB_II_SUBSCRIBE]) {
        in = in ? in : free_slot;
        if (!in) {
            ib_sa_error(port, p, IB_SA_STATUS_NO_RESOURCES);
            return;
        }
        in->used = true;
        in->lid = p->slid;
        in->qpn = ib_ld32(req + IB_II_QPN) >> 8;
        in->trap = trap;
        memcpy(in->gid, p->grh ? p->sgid : req + IB_II_GID, 16);
    } else if (in) {
        in->used = false;
    } else {
        ib_sa_error(port, p, IB_SA_STATUS_REQ_INVALID);
        return;
    }
    trace_ib_sa_inform(p->slid, trap, req[IB_II_SUBSCRIBE]);
    ib_sa_reply_one(port, p, req, IB_II_LEN);
}

/*
 * A port joined (in) or left the directory: Report(Notice) trap 64/65 to the
 * subscribers
 */
void ib_sa_gid_event(IbPort *port, uint64_t gid_prefix, uint64_t guid,
                     bool in_service)
{
    IbSa *sa = port->sa;
    uint16_t trap = in_service ? IB_TRAP_GID_IN : IB_TRAP_GID_OUT;
    uint8_t *m, *d;
    unsigned i;

    if (!sa || !ib_sm_is_master(port)) {
        return;
    }
    for (i = 0; i < IB_SA_MAX_INFORMS; i++) {
        IbSaInform *in = &sa->inform[i];
        if (!in->used || (in->trap != trap && in->trap != 0xffff)) {
            continue;
        }
        m = sa->mad;
        memset(m, 0, IB_MAD_SIZE);
        m[IB_MAD_BASE_VERSION] = 1;
        m[IB_MAD_MGMT_CLASS] = IB_MGMT_CLASS_SUBN_ADM;
        m[IB_MAD_CLASS_VERSION] = IB_SA_CLASS_VERSION;
        m[IB_MAD_METHOD] = IB_METHOD_REPORT;
        ib_st64(m + IB_MAD_TID, 0x5341000000000000ull | ++sa->notice_count);
        ib_st16(m + IB_MAD_ATTR_ID, IB_SA_ATTR_NOTICE);
        d = m + IB_SA_DATA;
        /* generic, informational, class manager */
        ib_st32(d, (1u << 31) | (4u << 24) | 4);
        ib_st16(d + 4, trap);
        ib_st16(d + 6, port->lid);                  /* IssuerLID: the SM */
        ib_st16(d + 8, sa->notice_count & 0x7fff);
        /* DataDetails: the GID, at offset 6 */
        ib_st64(d + 16, gid_prefix);
        ib_st64(d + 24, guid);
        ib_st64(d + 64, port->gid_prefix);          /* IssuerGID */
        ib_st64(d + 72, port->guid);
        trace_ib_sa_report(in->lid, trap, guid);
        ib_sa_send(port, in->lid, in->qpn ? in->qpn : 1, IB_DEFAULT_PKEY, 0,
                   NULL, m);
    }
}
