/*
 * Vendor-neutral IB transport: automatic path migration (APM, IBA 17.2.8) of RC
 * and UC QPs.
 *
 * A connected QP may hold an alternate path beside its primary one, and a
 * migration state: MIGRATED  no armed alternate path (the initial state); its
 * packets carry BTH MigReq = 1. REARM     software loaded an alternate path;
 * packets carry MigReq = 0. The first packet from the peer with MigReq = 0 (the
 * peer has rearmed too) arms the QP. ARMED     ready to migrate; packets carry
 * MigReq = 0. The QP migrates when software commands it (ib_apm_migrate), when
 * its retries on the primary path run out, or when a packet from the peer
 * arrives with MigReq = 1 over the alternate path (the peer migrated).
 * Migrating swaps the alternate path in (it becomes the primary), returns to
 * MIGRATED and raises IB_EV_PATH_MIG, whatever triggered it. The rules for what
 * software may command are the device's (e.g. mlx5_qp.c); they follow the IBA:
 * REARM only from MIGRATED, MIGRATED only from ARMED (or as a no-op), never
 * ARMED.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "ib_internal.h"
#include "trace.h"

static bool ib_apm_capable(const IbQp *qp)
{
    return (qp->type == IB_QPT_RC || qp->type == IB_QPT_UC) && !qp->dci &&
           !qp->dc_parent;
}

void ib_apm_migrate(IbQp *qp)
{
    if (qp->mig_state != IB_MIG_ARMED || !ib_apm_capable(qp)) {
        return;
    }
    trace_ib_apm_migrate(qp->qpn, qp->av.dlid, qp->alt_av.dlid,
                         qp->alt_av.src_path_bits);
    qp->av = qp->alt_av;
    qp->timeout = qp->alt_timeout;
    qp->mig_state = IB_MIG_MIGRATED;
    qp->port->ops->qp_event(qp, IB_EV_PATH_MIG);
}

bool ib_apm_rx(IbQp *qp, const IbPacket *p)
{
    switch (qp->mig_state) {
    case IB_MIG_REARM:
        if (!p->migreq) {
            qp->mig_state = IB_MIG_ARMED;
            trace_ib_apm_armed(qp->qpn, p->slid);
        }
        return true;
    case IB_MIG_ARMED:
        if (!p->migreq) {
            return true;
        }
        /*
         * the peer migrated: its packets must come from our alternate path's
         * end
         */
        if (p->slid != qp->alt_av.dlid) {
            trace_ib_apm_bad_path(qp->qpn, p->slid, qp->alt_av.dlid);
            qp->port->stat_rx_drop++;
            return false;
        }
        ib_apm_migrate(qp);
        return true;
    default:
        return true;
    }
}

bool ib_apm_retry_exhausted(IbQp *qp)
{
    if (qp->mig_state != IB_MIG_ARMED || !ib_apm_capable(qp)) {
        return false;
    }
    ib_apm_migrate(qp);
    qp->retries_left = qp->retry_cnt;
    return true;
}
