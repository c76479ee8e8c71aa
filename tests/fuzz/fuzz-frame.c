/*
 * Fuzz target: frames from the fabric. Every BTH opcode and extension header (XRCETH, DCETH,
 * DETH, RETH, AtomicETH, AETH, ImmDt, IETH) over IPv4 and IPv6 (GRH), into QPs of every
 * transport in every stage of a message, with requests, responses, ACKs and NAKs; announcements
 * and multicast to the permissive and multicast LIDs.
 *
 * Record: flags u8, len u16, frame[len] (at most IB_MAX_FRAME).
 *   flags: 1 = recompute the IP/UDP lengths and the ICRC (else a mutated frame is dropped by
 *          its ICRC, which is also worth testing); 2 = address the frame to this port (DLID
 *          and the fabric's MAC prefix); 4 = a destination QPN above 1 names one of this
 *          node's QPs (RC, UC, UD, RC on SRQ, QP1, DCI, DCT) by its value modulo 7;
 *          8 = let the timers run afterwards.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz.h"
#include "hw/rdma/ib/ib_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Fz f = { data, size };
    FzNode *n = fz_node_new(false, true);
    g_autofree uint8_t *frame = g_malloc(IB_MAX_FRAME);

    for (unsigned r = 0; r < FZ_MAX_RECORDS && fz_more(&f) && !n->d->c->health_fatal; r++) {
        uint8_t flags = fz_u8(&f);
        size_t len = fz_u16(&f);
        size_t bth = IB_ETH_HLEN + IB_UDP_HLEN;

        len = MIN(len, IB_MAX_FRAME);
        fz_bytes(&f, frame, len);
        bth += len > 13 && ib_ld16(frame + 12) == IB_ETHERTYPE_IPV6 ? IB_IPV6_HLEN
                                                                    : IB_IPV4_HLEN;
        if ((flags & 2) && len >= 12) {
            ib_wire_lid_mac(n->d->c->port.lid, frame[9] & 0xf, frame);
            frame[6] = IB_MAC_OUI0;
            frame[7] = IB_MAC_OUI1;
            frame[8] = IB_MAC_OUI2;
        }
        if ((flags & 4) && len >= bth + IB_BTH_LEN) {
            fz_map_qpn(n, frame + bth);
        }
        if (flags & 1) {
            fz_fix_frame(frame, len);
        }
        fz_link_rx(n, frame, len, flags & 8);
    }
    fz_check(n);
    fz_node_free(n);
    return 0;
}
