/*
 * Vendor-neutral IB fabric services: the fabric directory and the subnet
 * manager election.
 *
 * Every port announces itself once a second (docs/fabric.md, "Address
 * announcements"): its LID, port GUID, node identity and whether it offers to
 * be the subnet manager, with which priority. Every port keeps a directory of
 * the ports it hears (at most IB_FABRIC_MAX_PEERS, each forgotten
 * IB_PEER_TTL_NS after its last announcement) and runs the same election over
 * it as IBA 14.4.1 does between SMs: the highest priority wins, then the lowest
 * port GUID. All ports of a fabric therefore agree on one master SM once they
 * have heard each other, and the master's device answers the subnet
 * administration class (ib_sa.c) for the whole fabric. A change of master is a
 * new SM for every port: the device tells its driver (client reregistration),
 * whose ULPs then rejoin their multicast groups at the new SA.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "ib_internal.h"
#include "hw/rdma/ib/ib_mad.h"
#include "trace.h"

#define IB_PEER_TTL_NS (3 * IB_ANNOUNCE_PERIOD_NS + IB_ANNOUNCE_PERIOD_NS / 2)

static const char ib_announce_magic[16] = "QEMU-IB-ANNOUNCE";

/* announcement payload (version 2; version 1 was the first 32 bytes) */
enum {
    IB_ANN_GUID = 16,
    IB_ANN_LID = 24,
    IB_ANN_VERSION = 26,
    IB_ANN_FLAGS = 27,
    IB_ANN_NONCE = 28,
    IB_ANN_NODE_GUID = 32,
    IB_ANN_SYS_GUID = 40,
    IB_ANN_DEVICE_ID = 48,
    IB_ANN_VENDOR_ID = 50,
    IB_ANN_LMC = 53,
    IB_ANN_MTU = 54,
    IB_ANN_PORT_NUM = 55,
    IB_ANN_GID_PREFIX = 56,
    IB_ANN_REVISION = 64,
    IB_ANN_DESC = 68,
    /* version 3 */
    IB_ANN_NALIAS = 132,
    IB_ANN_ALIASES = 136,
};
#define IB_ANN_V1_LEN       32
#define IB_ANN_FLAG_SM      0x01        /* bits 7:4 SM priority */


/* ---- the directory ------------------------------------------------------- */

void ib_sm_init(IbPort *port)
{
    port->peers = g_new0(IbPeer, IB_FABRIC_MAX_PEERS);
    port->sm_enabled = true;
}

void ib_sm_cleanup(IbPort *port)
{
    g_free(port->peers);
    port->peers = NULL;
}

/* This port as a directory entry (what it announces). */
void ib_sm_self(const IbPort *port, IbPeer *e)
{
    memset(e, 0, sizeof(*e));
    e->guid = port->guid;
    e->node = port->node;
    e->gid_prefix = port->gid_prefix;
    e->lid = port->lid;
    e->lmc = port->lmc;
    e->mtu = IB_MTU_ENUM_4096;
    e->sm = port->sm_enabled;
    e->sm_priority = port->sm_priority;
    e->nonce = port->nonce;
    e->naliases = port->naliases;
    memcpy(e->aliases, port->aliases, sizeof(e->aliases));
}

/* @guid among @e's aliases */
static bool ib_sm_has_alias(const IbPeer *e, uint64_t guid)
{
    unsigned i;

    for (i = 0; guid && i < e->naliases; i++) {
        if (e->aliases[i] == guid) {
            return true;
        }
    }
    return false;
}

const IbPeer *ib_sm_find_lid(const IbPort *port, uint16_t lid, IbPeer *self)
{
    unsigned i;

    ib_sm_self(port, self);
    if (ib_port_owns_lid(port, lid)) {
        return self;
    }
    for (i = 0; i < IB_FABRIC_MAX_PEERS; i++) {
        const IbPeer *e = &port->peers[i];
        uint16_t mask = (1u << e->lmc) - 1;
        if (e->guid && e->lid && (lid & ~mask) == (e->lid & ~mask)) {
            return e;
        }
    }
    return NULL;
}

const IbPeer *ib_sm_find_guid(const IbPort *port, uint64_t guid, IbPeer *self)
{
    unsigned i;

    ib_sm_self(port, self);
    if (guid == port->guid) {
        return self;
    }
    for (i = 0; guid && i < IB_FABRIC_MAX_PEERS; i++) {
        if (port->peers[i].guid == guid) {
            return &port->peers[i];
        }
    }
    /* a vport's: its port's entry under that GUID */
    if (!ib_sm_has_alias(self, guid)) {
        for (i = 0; i < IB_FABRIC_MAX_PEERS; i++) {
            if (port->peers[i].guid && ib_sm_has_alias(&port->peers[i], guid)) {
                *self = port->peers[i];
                break;
            }
        }
        if (i == IB_FABRIC_MAX_PEERS) {
            return NULL;
        }
    }
    self->guid = guid;
    self->alias = true;
    return self;
}

/* The SA's traps for the aliases in @now and not in @was (@in), and back. */
static void ib_sm_alias_events(IbPort *port, uint64_t prefix,
                               const IbPeer *was, const IbPeer *now)
{
    unsigned i;

    for (i = 0; i < was->naliases; i++) {
        if (!ib_sm_has_alias(now, was->aliases[i])) {
            ib_sa_gid_event(port, prefix, was->aliases[i], false);
        }
    }
    for (i = 0; i < now->naliases; i++) {
        if (!ib_sm_has_alias(was, now->aliases[i])) {
            ib_sa_gid_event(port, prefix, now->aliases[i], true);
        }
    }
}

void ib_port_set_aliases(IbPort *port, const uint64_t *guids, unsigned n)
{
    IbPeer was, now;

    n = MIN(n, IB_MAX_ALIASES);
    if (n == port->naliases &&
        !memcmp(guids, port->aliases, n * sizeof(*guids))) {
        return;
    }
    ib_sm_self(port, &was);
    memset(port->aliases, 0, sizeof(port->aliases));
    memcpy(port->aliases, guids, n * sizeof(*guids));
    port->naliases = n;
    ib_sm_self(port, &now);
    trace_ib_port_aliases(port->guid, n);
    ib_sm_alias_events(port, port->gid_prefix, &was, &now);
    if (port->link_up && port->lid) {
        ib_port_announce_soon(port);
    }
}

/* ---- election ------------------------------------------------------------ */

static bool ib_sm_better(uint8_t prio, uint64_t guid, uint8_t best_prio,
                         uint64_t best_guid)
{
    return prio > best_prio || (prio == best_prio && guid < best_guid);
}

void ib_sm_elect(IbPort *port)
{
    uint16_t lid = 0;
    uint64_t guid = 0;
    uint8_t prio = 0;
    bool found = false;
    unsigned i;

    if (port->link_up && port->lid && port->sm_enabled) {
        lid = port->lid;
        guid = port->guid;
        prio = port->sm_priority;
        found = true;
    }
    for (i = 0; i < IB_FABRIC_MAX_PEERS; i++) {
        const IbPeer *e = &port->peers[i];
        if (e->guid && e->sm && e->lid &&
            (!found || ib_sm_better(e->sm_priority, e->guid, prio, guid))) {
            lid = e->lid;
            guid = e->guid;
            prio = e->sm_priority;
            found = true;
        }
    }
    if (lid == port->sm_lid && guid == port->sm_guid) {
        return;
    }
    trace_ib_sm_elect(port->sm_lid, lid, guid, guid == port->guid && lid);
    port->sm_lid = lid;
    port->sm_guid = guid;
    ib_sa_master_changed(port, lid && guid == port->guid);
    if (port->ops->sm_change) {
        port->ops->sm_change(port);
    }
}

bool ib_sm_is_master(const IbPort *port)
{
    return port->sm_lid && port->sm_guid == port->guid &&
           port->sm_lid == port->lid;
}

/* forget the ports that went silent (the caller then runs the election) */
static void ib_sm_expire(IbPort *port, int64_t now)
{
    unsigned i;

    for (i = 0; i < IB_FABRIC_MAX_PEERS; i++) {
        IbPeer *e = &port->peers[i];
        if (e->guid && now - e->last_seen > IB_PEER_TTL_NS) {
            IbPeer none = { 0 };

            trace_ib_peer_gone(e->lid, e->guid);
            ib_sa_gid_event(port, e->gid_prefix, e->guid, false);
            ib_sm_alias_events(port, e->gid_prefix, e, &none);
            memset(e, 0, sizeof(*e));
        }
    }
}

/* ---- announcements ------------------------------------------------------- */

/*
 * A UD SEND to the permissive LID and QP0 carrying our port GUID, LID and node
 * identity. Every port on the fabric sees it; one that owns the same LID or
 * GUID reports a clash.
 */
void ib_port_announce(IbPort *port)
{
    uint8_t *b = port->ann;
    int64_t now = port->ops->now_ns(port);
    IbPacket p;
    unsigned len = IB_ANNOUNCE_LEN, i;

    port->announce_deadline = 0;
    if (port->vport) {
        return;                     /* the port's own function speaks for it */
    }
    ib_sm_expire(port, now);
    /* ports went silent, or our own address or link changed */
    ib_sm_elect(port);
    if (!port->link_up || !port->lid) {
        ib_port_update_deadline(port);
        return;
    }
    memset(&p, 0, sizeof(p));
    p.dlid = IB_LID_PERMISSIVE;
    p.opcode = IB_TRANSPORT_UD | IB_OP_SEND_ONLY;
    p.pkey = IB_DEFAULT_PKEY;
    memset(b, 0, IB_ANNOUNCE_MAX_LEN);
    memcpy(b, ib_announce_magic, 16);
    ib_st64(b + IB_ANN_GUID, port->guid);
    ib_st16(b + IB_ANN_LID, port->lid);
    b[IB_ANN_VERSION] = port->naliases ? 3 : 2;
    b[IB_ANN_FLAGS] = (port->sm_enabled ? IB_ANN_FLAG_SM : 0) |
                      (port->sm_priority << 4);
    ib_st32(b + IB_ANN_NONCE, port->nonce);
    ib_st64(b + IB_ANN_NODE_GUID, port->node.node_guid);
    ib_st64(b + IB_ANN_SYS_GUID, port->node.sys_guid);
    ib_st16(b + IB_ANN_DEVICE_ID, port->node.device_id);
    b[IB_ANN_VENDOR_ID] = port->node.vendor_id >> 16;
    b[IB_ANN_VENDOR_ID + 1] = port->node.vendor_id >> 8;
    b[IB_ANN_VENDOR_ID + 2] = port->node.vendor_id;
    b[IB_ANN_LMC] = port->lmc;
    b[IB_ANN_MTU] = IB_MTU_ENUM_4096;
    b[IB_ANN_PORT_NUM] = 1;
    ib_st64(b + IB_ANN_GID_PREFIX, port->gid_prefix);
    ib_st32(b + IB_ANN_REVISION, port->node.revision);
    memcpy(b + IB_ANN_DESC, port->node.desc, sizeof(port->node.desc));
    if (port->naliases) {
        ib_st16(b + IB_ANN_NALIAS, port->naliases);
        for (i = 0; i < port->naliases; i++) {
            ib_st64(b + IB_ANN_ALIASES + 8 * i, port->aliases[i]);
        }
        len = IB_ANN_ALIASES + 8 * port->naliases;
    }
    ib_port_send(port, &p, b, len);
    port->announcements++;
    port->announce_deadline = now + IB_ANNOUNCE_PERIOD_NS;
    ib_port_update_deadline(port);
}

/*
 * 100 ms after now (virtual time): frames then leave only once the machine
 * runs, and not before a just-started -netdev stream server has set up its
 * listener (QEMU 10.0 crashes when a frame reaches a stream server whose
 * listener is still being created).
 */
#define IB_ANNOUNCE_DELAY_NS    100000000ll

void ib_port_announce_soon(IbPort *port)
{
    port->announce_deadline = port->ops->now_ns(port) + IB_ANNOUNCE_DELAY_NS;
    ib_port_update_deadline(port);
}

static IbPeer *ib_sm_peer_slot(IbPort *port, uint64_t guid, uint32_t nonce)
{
    IbPeer *free_slot = NULL;
    unsigned i;

    for (i = 0; i < IB_FABRIC_MAX_PEERS; i++) {
        IbPeer *e = &port->peers[i];
        if (e->guid == guid && e->nonce == nonce) {
            return e;
        }
        if (!e->guid && !free_slot) {
            free_slot = e;
        }
    }
    return free_slot;
}

bool ib_port_rx_announce(IbPort *port, const IbPacket *p)
{
    const uint8_t *b = p->payload;
    IbPeer *e, old;
    uint64_t guid;
    uint32_t nonce;
    uint16_t lid;

    if (p->opcode != (IB_TRANSPORT_UD | IB_OP_SEND_ONLY) || p->dest_qpn != 0 ||
        p->payload_len < IB_ANN_V1_LEN || memcmp(b, ib_announce_magic, 16)) {
        /* not an announcement (a directed-route SMP?) */
        return false;
    }
    guid = ib_ld64(b + IB_ANN_GUID);
    lid = ib_ld16(b + IB_ANN_LID);
    nonce = ib_ld32(b + IB_ANN_NONCE);
    if (nonce == port->nonce) {
        /* our own, reflected by a shared segment */
        return true;
    }
    trace_ib_announce_rx(lid, guid);
    if ((lid == port->lid || guid == port->guid) && port->ops->addr_clash) {
        port->ops->addr_clash(port, lid, guid);
        /* a clashing port is no member of our directory */
        return true;
    }
    if (!guid || !lid || IB_LID_IS_MCAST(lid) || lid == IB_LID_PERMISSIVE) {
        return true;
    }
    e = ib_sm_peer_slot(port, guid, nonce);
    if (!e) {
        trace_ib_peer_table_full(lid, guid);
        return true;
    }
    old = *e;
    memset(e, 0, sizeof(*e));
    e->guid = guid;
    e->lid = lid;
    e->nonce = nonce;
    e->last_seen = port->ops->now_ns(port);
    e->mtu = IB_MTU_ENUM_4096;
    e->gid_prefix = 0xfe80000000000000ull;
    e->node.node_guid = guid;
    e->node.sys_guid = guid;
    if (b[IB_ANN_VERSION] >= 2 && p->payload_len >= IB_ANNOUNCE_LEN) {
        e->sm = b[IB_ANN_FLAGS] & IB_ANN_FLAG_SM;
        e->sm_priority = b[IB_ANN_FLAGS] >> 4;
        e->node.node_guid = ib_ld64(b + IB_ANN_NODE_GUID);
        e->node.sys_guid = ib_ld64(b + IB_ANN_SYS_GUID);
        e->node.device_id = ib_ld16(b + IB_ANN_DEVICE_ID);
        e->node.vendor_id = (b[IB_ANN_VENDOR_ID] << 16) |
                            (b[IB_ANN_VENDOR_ID + 1] << 8) |
                            b[IB_ANN_VENDOR_ID + 2];
        e->lmc = MIN(b[IB_ANN_LMC], 7);
        e->mtu = b[IB_ANN_MTU] >= 1 && b[IB_ANN_MTU] <= 5 ? b[IB_ANN_MTU]
                                                          : IB_MTU_ENUM_2048;
        e->gid_prefix = ib_ld64(b + IB_ANN_GID_PREFIX);
        e->node.revision = ib_ld32(b + IB_ANN_REVISION);
        memcpy(e->node.desc, b + IB_ANN_DESC, sizeof(e->node.desc));
    }
    if (b[IB_ANN_VERSION] >= 3 && p->payload_len >= IB_ANN_ALIASES) {
        unsigned n = MIN(ib_ld16(b + IB_ANN_NALIAS), IB_MAX_ALIASES), i;

        n = MIN(n, (p->payload_len - IB_ANN_ALIASES) / 8);
        for (i = 0; i < n; i++) {
            uint64_t a = ib_ld64(b + IB_ANN_ALIASES + 8 * i);

            /* (no zero, no repeat, not the port's own GUID) */
            if (a && a != guid && !ib_sm_has_alias(e, a)) {
                e->aliases[e->naliases++] = a;
            }
        }
    }
    if (old.guid != e->guid || old.lid != e->lid || old.sm != e->sm ||
        old.sm_priority != e->sm_priority) {
        trace_ib_peer_new(lid, guid, e->sm, e->sm_priority);
        ib_sm_elect(port);
        if (old.guid != e->guid) {
            ib_sa_gid_event(port, e->gid_prefix, e->guid, true);
        }
    }
    if (old.guid != e->guid) {
        memset(&old, 0, sizeof(old));       /* (a new port: all its aliases) */
    }
    ib_sm_alias_events(port, e->gid_prefix, &old, e);
    return true;
}

/* ---- SMInfo: the master SM answers for itself ---------------------------- */

#define IB_SMP_ATTR_SM_INFO     0x0020
#define IB_SMP_DATA             64
#define IB_SM_STATE_MASTER      3

/*
 * An SMP for QP0 of this port: true if the SM took it. Only SubnGet(SMInfo) is
 * the SM's own (IBA 14.4.1); every other SMP belongs to the node's SMA, i.e.
 * the guest's QP0.
 */
bool ib_sm_rx_smp(IbPort *port, const IbPacket *p)
{
    const uint8_t *m = p->payload;
    uint8_t *r = port->sm_reply;
    IbPacket rp;
    IbAv av = { .dlid = p->slid, .sl = p->sl };

    if (p->payload_len < IB_MAD_SIZE ||
        m[IB_MAD_MGMT_CLASS] != IB_MGMT_CLASS_SUBN_LID ||
        m[IB_MAD_METHOD] != IB_METHOD_GET ||
        ib_ld16(m + IB_MAD_ATTR_ID) != IB_SMP_ATTR_SM_INFO ||
        !ib_sm_is_master(port)) {
        return false;
    }
    memcpy(r, m, IB_MAD_SIZE);
    r[IB_MAD_METHOD] = IB_METHOD_GET | IB_METHOD_RESP;
    ib_st16(r + IB_MAD_STATUS, 0);
    memset(r + IB_SMP_DATA, 0, 64);
    ib_st64(r + IB_SMP_DATA, port->guid);
    /* SM_Key 0; ActCount: announcements sent (the SM's heartbeat) */
    ib_st32(r + IB_SMP_DATA + 16, port->announcements);
    r[IB_SMP_DATA + 20] = (port->sm_priority << 4) | IB_SM_STATE_MASTER;
    trace_ib_sm_info(p->slid);
    memset(&rp, 0, sizeof(rp));
    ib_port_fill_av(port, &av, &rp);
    rp.opcode = IB_TRANSPORT_UD | IB_OP_SEND_ONLY;
    rp.pkey = p->pkey;
    rp.dest_qpn = p->deth_src_qpn;
    rp.deth_src_qpn = 0;
    ib_port_send(port, &rp, r, IB_MAD_SIZE);
    return true;
}
