/*
 * Vendor-neutral IB transport: RoCE v2, the transport on an Ethernet port.
 *
 * The port's GID table (programmed by the device's driver: every entry an IP
 * address of the interface, with its MAC and VLAN) takes the place of the LID:
 * packets leave as standard RoCE v2 frames (Ethernet | [802.1Q] | IPv4 or IPv6
 * | UDP 4791 | BTH ... | ICRC) from the address vector's source GID entry to
 * its destination GID and MAC, and a frame from the link is ours when it is
 * sent to our MAC and one of our GIDs. There is no subnet manager, SA or
 * announcement on Ethernet: the port's LID stays 0 (docs/fabric.md, "RoCE v2").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "ib_internal.h"
#include "trace.h"

void ib_roce_enable(IbPort *port, const uint8_t mac[6])
{
    port->roce = true;
    memcpy(port->mac, mac, 6);
    if (!port->gids) {
        port->gids = g_new0(IbRoceGid, IB_ROCE_MAX_GIDS);
    }
    memset(port->gids, 0, IB_ROCE_MAX_GIDS * sizeof(*port->gids));
    port->gid_end = 0;
    port->lid = 0;
    port->lmc = 0;
}

bool ib_roce_set_gid(IbPort *port, unsigned index, const IbRoceGid *gid)
{
    IbRoceGid *e;

    if (!port->roce || index >= IB_ROCE_MAX_GIDS) {
        return false;
    }
    e = &port->gids[index];
    if (gid) {
        *e = *gid;
        e->valid = true;
        port->gid_end = MAX(port->gid_end, index + 1);
    } else {
        memset(e, 0, sizeof(*e));
        while (port->gid_end && !port->gids[port->gid_end - 1].valid) {
            port->gid_end--;
        }
    }
    trace_ib_roce_gid(index, e->valid, e->ipv4, e->gid[12], e->gid[13],
                      e->gid[14], e->gid[15]);
    return true;
}

int ib_roce_find_gid(const IbPort *port, const uint8_t gid[16])
{
    unsigned i;

    for (i = 0; port->roce && i < port->gid_end; i++) {
        if (port->gids[i].valid && !memcmp(port->gids[i].gid, gid, 16)) {
            return i;
        }
    }
    return -1;
}

/*
 * A frame from the Ethernet link, with headers @h, is a RoCE v2 packet for this
 * port if it is sent to UDP port 4791 of one of our GIDs, at the port's MAC or
 * the GID's own (its netdev's: a changed address, a macvlan, a VF's random
 * one). (Only a look at the headers: ib_port_rx checks the rest.)
 */
bool ib_roce_frame_is_ours(const IbPort *port, const uint8_t *f,
                           const IbEthHdr *h)
{
    uint8_t gid[16] = { [10] = 0xff, [11] = 0xff };
    /* a multicast MAC: for our groups (ib_mcast.c) */
    bool group = f[0] & 1;
    int idx;

    if (!port->roce || !h->l4 ||
        h->proto != 17 || h->dport != IB_ROCE_UDP_PORT) {
        return false;
    }
    if (h->ip_version == 4) {
        memcpy(gid + 12, h->dst, 4);
    } else {
        memcpy(gid, h->dst, 16);
    }
    if (group) {
        return port->mcast_count && ib_gid_is_mcast(port, gid);
    }
    idx = ib_roce_find_gid(port, gid);
    return idx >= 0 && (!memcmp(f, port->mac, 6) ||
                        !memcmp(f, port->gids[idx].mac, 6));
}

/*
 * The Ethernet and IP addresses of a packet from an address vector
 * (ib_port_fill_av).
 */
void ib_roce_fill_av(const IbPort *port, const IbAv *av, IbPacket *p)
{
    const IbRoceGid *g = &port->gids[av->sgid_index % IB_ROCE_MAX_GIDS];
    int i;

    p->roce = true;
    if (av->fl) {
        /*
         * force loopback: the frame never leaves, addressed from and to a GID
         * of ours if there is one (the path names none); it needs none, nor
         * the link: the receive path takes it as the port's own (the kernel's
         * steering ring writes while mlx5_core re-creates the netdev and GIDs)
         */
        p->fl = true;
        for (i = 0; i < IB_ROCE_MAX_GIDS && !g->valid; i++) {
            g = &port->gids[i];
        }
        if (!g->valid) {
            p->grh = true;
            p->hop_limit = 64;
            return;
        }
        memcpy(p->dmac, g->mac, 6);
        memcpy(p->smac, g->mac, 6);
        p->vlan = g->vlan;
        p->vlan_tci = g->vlan_id & 0xfff;
        p->ipv4 = g->ipv4;
        p->grh = !g->ipv4;
        p->hop_limit = 64;
        memcpy(p->sgid, g->gid, 16);
        memcpy(p->dgid, g->gid, 16);
        return;
    }
    if (av->sgid_index >= IB_ROCE_MAX_GIDS || !g->valid) {
        p->no_route = true;             /* ib_port_send drops it */
        return;
    }
    memcpy(p->dmac, av->dmac, 6);
    memcpy(p->smac, g->mac, 6);
    p->vlan = g->vlan;
    p->vlan_tci = g->vlan_id & 0xfff;
    p->ipv4 = g->ipv4;
    p->grh = !g->ipv4;
    p->sl = av->sl;
    p->tclass = av->tclass;
    p->flow_label = av->flow_label;
    p->hop_limit = av->hop_limit;
    p->udp_sport = av->udp_sport;
    memcpy(p->sgid, g->gid, 16);
    memcpy(p->dgid, av->dgid, 16);
}

/* A decoded unicast RoCE frame: is it to one of our GIDs? */
bool ib_roce_rx_ok(IbPort *port, const IbPacket *p)
{
    if (p->ipv4 != ib_gid_is_v4mapped(p->dgid) ||
        ib_roce_find_gid(port, p->dgid) < 0) {
        return false;
    }
    return true;
}
