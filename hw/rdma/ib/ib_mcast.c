/*
 * Vendor-neutral IB transport: multicast. QPs are attached to groups by MGID
 * (the device's ATTACH_TO_MCG); a UD packet to a multicast LID carries the
 * group's MGID as its GRH destination and is delivered to every QP of this port
 * attached to that MGID, each with its own Q_Key check (ib_ud_rx). The fabric
 * link carries such a packet to every port, and the sending port delivers it to
 * its own attached QPs too (IBA 10.5.2.3). At most IB_MCAST_MAX_ATTACH
 * attachments per port; the device says how many QPs a group may have.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "ib_internal.h"
#include "hw/rdma/ib/ib_mad.h"
#include "trace.h"

struct IbMcastAttach {
    uint8_t mgid[16];
    uint32_t qpn;
    bool used;
};

IbMcastStatus ib_mcast_attach(IbPort *port, const uint8_t mgid[16],
                              uint32_t qpn, unsigned max_group_qps)
{
    IbMcastAttach *free_slot = NULL;
    unsigned i, in_group = 0;

    if (!ib_gid_is_mcast(port, mgid)) {
        return IB_MCAST_BAD_GID;
    }
    if (!port->mcast) {
        port->mcast = g_new0(IbMcastAttach, IB_MCAST_MAX_ATTACH);
    }
    for (i = 0; i < IB_MCAST_MAX_ATTACH; i++) {
        IbMcastAttach *a = &port->mcast[i];
        if (!a->used) {
            free_slot = free_slot ? free_slot : a;
            continue;
        }
        if (!memcmp(a->mgid, mgid, 16)) {
            if (a->qpn == qpn) {
                return IB_MCAST_EXISTS;
            }
            in_group++;
        }
    }
    if (!free_slot || in_group >= max_group_qps) {
        return IB_MCAST_FULL;
    }
    memcpy(free_slot->mgid, mgid, 16);
    free_slot->qpn = qpn;
    free_slot->used = true;
    port->mcast_count++;
    trace_ib_mcast_attach(qpn, ib_ld64(mgid), ib_ld64(mgid + 8));
    return IB_MCAST_OK;
}

IbMcastStatus ib_mcast_detach(IbPort *port, const uint8_t mgid[16],
                              uint32_t qpn)
{
    unsigned i;

    for (i = 0; port->mcast && i < IB_MCAST_MAX_ATTACH; i++) {
        IbMcastAttach *a = &port->mcast[i];
        if (a->used && a->qpn == qpn && !memcmp(a->mgid, mgid, 16)) {
            a->used = false;
            port->mcast_count--;
            trace_ib_mcast_detach(qpn, ib_ld64(mgid), ib_ld64(mgid + 8));
            return IB_MCAST_OK;
        }
    }
    return IB_MCAST_NOENT;
}

/* A QP goes away (destroyed, or reset): its attachments go with it */
void ib_mcast_detach_qp(IbPort *port, uint32_t qpn)
{
    unsigned i;

    for (i = 0; port->mcast && i < IB_MCAST_MAX_ATTACH; i++) {
        if (port->mcast[i].used && port->mcast[i].qpn == qpn) {
            port->mcast[i].used = false;
            port->mcast_count--;
        }
    }
}

void ib_mcast_rx(IbPort *port, const IbPacket *p)
{
    unsigned i, delivered = 0;

    if ((!p->grh && !p->roce) || !ib_gid_is_mcast(port, p->dgid) ||
        (p->opcode & 0xe0) != IB_TRANSPORT_UD || p->dest_qpn != IB_QPN_MASK) {
        /*
         * IBA 10.5.2: multicast is UD with a GRH and the destination QP
         * 0xFFFFFF
         */
        port->stat_rx_drop++;
        trace_ib_mcast_drop(p->dlid, p->dest_qpn);
        return;
    }
    for (i = 0; port->mcast_count && i < IB_MCAST_MAX_ATTACH; i++) {
        IbMcastAttach *a = &port->mcast[i];
        IbQp *qp;
        if (!a->used || memcmp(a->mgid, p->dgid, 16)) {
            continue;
        }
        qp = port->ops->qp_lookup(port, a->qpn);
        if (qp && qp->block_self_mcast && qp->qpn == p->deth_src_qpn &&
            (port->roce ? ib_roce_find_gid(port, p->sgid) >= 0
                        : ib_port_owns_lid(port, p->slid))) {
            continue;                   /* its own send, looped back: blocked */
        }
        if (qp && qp->type == IB_QPT_UD && qp->state >= IB_QPS_RTR &&
            qp->state != IB_QPS_ERR) {
            qp->stat_rx++;
            ib_ud_rx(qp, p);
            delivered++;
        }
    }
    trace_ib_mcast_rx(p->dlid, p->slid, delivered);
}
