/*
 * Vendor-neutral IB transport: definitions shared by the ib_*.c files.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_IB_INTERNAL_H
#define HW_RDMA_IB_INTERNAL_H

#include "hw/rdma/ib/ib_transport.h"
#include "hw/rdma/ib/ib_wire.h"

/* ib_port.c */
uint32_t ib_packet_octets(size_t frame_len, bool grh);
void ib_port_send(IbPort *port, IbPacket *p, const void *payload,
                  uint32_t payload_len);

/*
 * ib_rc.c: requester (RC, UC; transmit of every QP type), RC timers, RC receive
 * entry
 */
unsigned ib_qp_tx(IbQp *qp, unsigned budget);
void ib_rc_rx(IbQp *qp, const IbPacket *p);
void ib_rc_ack_timeout(IbQp *qp);
void ib_rc_rnr_expired(IbQp *qp);
/* BTH transport bits of a connected QP's packets (RC, UC, XRC or DC) */
uint8_t ib_transport_bits(const IbQp *qp);

/* ib_resp.c: the RC/UC responder */
void ib_resp_rx(IbQp *qp, const IbPacket *p);
/* send the QP's coalesced ACK, if one waits */
void ib_resp_ack_flush(IbQp *qp);
/* ... every QP's (ib_port.c) */
void ib_port_flush_acks(IbPort *port);
void ib_uc_rx(IbQp *qp, const IbPacket *p);
/* READ responses to transmit; returns packets sent */
unsigned ib_resp_tx(IbQp *qp, unsigned budget);
/* a request the responder cannot take: NAK (RC), error state, event @ev */
void ib_resp_error(IbQp *qp, uint8_t nak, IbQpEvent ev);
/* READ responses still to send (a responder context that is not idle) */
bool ib_resp_tx_busy(const IbQp *qp);
/* on-demand paging: page faults resolved (ib_qp_page_fault_resume) */
void ib_resp_page_fault_resume(IbQp *qp, IbPfSide side, bool error);
void ib_req_page_fault_resume(IbQp *qp, bool error);
void ib_ud_page_fault_resume(IbQp *qp, bool error);

/* ib_dc.c: dynamically connected transport */
bool ib_dc_same_target(const IbQp *dci, const IbSendWr *wr);
void ib_dc_connect(IbQp *dci, const IbSendWr *wr);
void ib_dct_rx(IbQp *dct, const IbPacket *p);
void ib_dct_cleanup(IbQp *dct);
void ib_qp_link(IbQp *qp);
void ib_qp_unlink(IbQp *qp);

/* ib_apm.c: automatic path migration of RC/UC QPs */
/*
 * a packet for @qp arrived: false = drop it (MigReq from a path that is not the
 * alternate)
 */
bool ib_apm_rx(IbQp *qp, const IbPacket *p);
/*
 * the requester's retries ran out: true if the QP migrated instead (retries
 * renewed)
 */
bool ib_apm_retry_exhausted(IbQp *qp);

/*
 * Is @lid one of the port's 2^LMC LIDs (its LID with the low LMC bits free,
 * IBA 7.11.1)?
 */
/* Count a transport event of @qp, where its device keeps count. */
static inline void ib_qp_stat(IbQp *qp, IbQpStat stat)
{
    if (qp->port->ops->qp_stat) {
        qp->port->ops->qp_stat(qp, stat);
    }
}

static inline bool ib_port_owns_lid(const IbPort *port, uint16_t lid)
{
    uint16_t mask = (1u << port->lmc) - 1;

    return port->lid && !IB_LID_IS_MCAST(lid) && lid != IB_LID_PERMISSIVE &&
           (lid & ~mask) == (port->lid & ~mask);
}

/*
 * A multicast GID: ff00::/8, and on a RoCE port also an IPv4-mapped multicast
 * address
 * (::ffff:224.0.0.0/4), as RDMA CM joins IPv4 groups there.
 */
static inline bool ib_gid_is_mcast(const IbPort *port, const uint8_t gid[16])
{

    return gid[0] == 0xff ||
           (port->roce && ib_gid_is_v4mapped(gid) && (gid[12] & 0xf0) == 0xe0);
}

/* The path bits of a packet's DLID under the port's LMC (0 for multicast). */
static inline uint8_t ib_port_path_bits(const IbPort *port, uint16_t dlid)
{
    return IB_LID_IS_MCAST(dlid) ? 0 : dlid & ((1u << port->lmc) - 1);
}

/* ib_fault.c: frames held back by the fault injection */
int64_t ib_fault_deadline(const IbPort *port);
void ib_fault_expire(IbPort *port, int64_t now);
void ib_fault_cleanup(IbPort *port);

/* ib_ud.c */
void ib_ud_rx(IbQp *qp, const IbPacket *p);
unsigned ib_ud_tx(IbQp *qp, unsigned budget);

/* ib_sm.c */
void ib_sm_init(IbPort *port);
void ib_sm_cleanup(IbPort *port);
void ib_sm_elect(IbPort *port);
/* true if @p was a port announcement (then it is consumed) */
bool ib_port_rx_announce(IbPort *port, const IbPacket *p);
bool ib_sm_rx_smp(IbPort *port, const IbPacket *p);

/*
 * ib_sa.c: the subnet administrator (answers while this port is the master SM)
 */
void ib_sa_init(IbPort *port);
void ib_sa_cleanup(IbPort *port);
void ib_sa_master_changed(IbPort *port, bool master);
/*
 * a port joined or left the fabric's directory: traps 64/65 to the SA's
 * subscribers
 */
void ib_sa_gid_event(IbPort *port, uint64_t gid_prefix, uint64_t guid,
                     bool in_service);
/*
 * A GSI MAD for QP1: true if the SA took it (an SA request while we are the
 * master)
 */
bool ib_sa_rx(IbPort *port, const IbPacket *p);

/* ib_mcast.c: deliver a packet to a multicast LID to the QPs attached here */
void ib_mcast_rx(IbPort *port, const IbPacket *p);

/*
 * ib_cong.c: RoCE congestion control. ib_cong_tx() marks a frame about to be
 * sent ECN-capable (RP enabled for its priority); ib_cong_rx() takes a received
 * unicast frame: true if it was a CNP (consumed); a CE-marked one is counted
 * and answered with a CNP, then goes on to its QP.
 */
void ib_cong_tx(const IbPort *port, IbPacket *p);
bool ib_cong_rx(IbPort *port, const IbPacket *p);
/*
 * for ib_fault.c: whether a RoCE frame (@h parsed from it) is ECN-capable and
 * not yet marked; ib_cong_mark_ce() marks such a frame Congestion Experienced
 */
bool ib_cong_ect(const uint8_t *frame, size_t len, const IbEthHdr *h);
void ib_cong_mark_ce(uint8_t *frame, const IbEthHdr *h);

/* ib_roce.c: RoCE v2 addressing (port->roce) */
void ib_roce_fill_av(const IbPort *port, const IbAv *av, IbPacket *p);
bool ib_roce_rx_ok(IbPort *port, const IbPacket *p);

/*
 * LRH/GRH fields of a packet from an address vector (the source GID is the
 * port's).
 */
void ib_port_fill_av(const IbPort *port, const IbAv *av, IbPacket *p);

/* Common packet header for a QP's connected path. */
void ib_qp_fill_hdr(const IbQp *qp, IbPacket *p, uint8_t opcode, uint32_t psn);

#endif
