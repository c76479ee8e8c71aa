/*
 * Fuzz target: management datagrams. SMPs (LID-routed and directed-route, to the port's SMA
 * and to the subnet manager this node runs), GSI MADs to QP1 (SA queries of every record type
 * and method, PMA, CM and other classes the device passes on to the driver's QP1), and the
 * MAD_IFC command through which the driver asks its own port.
 *
 * Record: kind u8, slid u16, mad[256].
 *   kind % 4: 0 = a UD SEND to QP0 at this port's LID; 1 = the same at the permissive LID
 *   (directed route); 2 = to QP1 with the GSI Q_Key; 3 = MAD_IFC with this MAD.
 *   kind bit 2: the frame carries a GRH (IPv6).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz.h"
#include "hw/rdma/ib/ib_wire.h"

static void send_mad(FzNode *n, uint8_t kind, uint16_t slid, const uint8_t *mad)
{
    uint8_t frame[IB_MAX_HDR_LEN + MLX5_MAD_SIZE + IB_ICRC_LEN];
    IbPacket p = { 0 };
    size_t hlen;
    uint32_t crc;

    p.dlid = kind % 4 == 1 ? IB_LID_PERMISSIVE : n->d->c->port.lid;
    p.slid = slid;
    p.grh = kind & 4;
    p.hop_limit = 1;
    p.opcode = IB_TRANSPORT_UD | IB_OP_SEND_ONLY;
    p.pkey = IB_DEFAULT_PKEY;
    p.dest_qpn = kind % 4 == 2;
    p.deth_qkey = kind % 4 == 2 ? IB_GSI_QKEY : 0;
    p.deth_src_qpn = p.dest_qpn;
    hlen = ib_wire_encode_hdr(&p, frame, MLX5_MAD_SIZE);
    memcpy(frame + hlen, mad, MLX5_MAD_SIZE);
    crc = ib_wire_icrc(frame, hlen, frame + hlen, MLX5_MAD_SIZE, 0);
    for (int k = 0; k < 4; k++) {
        frame[hlen + MLX5_MAD_SIZE + k] = crc >> (8 * k);
    }
    mlx5_core_link_rx(n->d->c, 1, frame, hlen + MLX5_MAD_SIZE + IB_ICRC_LEN);
}

static void mad_ifc(FzNode *n, uint16_t slid, const uint8_t *mad)
{
    uint8_t in[MAD_IFC_SIZE] = { 0 }, out[MAD_IFC_SIZE];

    MLX5_SET(in, CMD_IN_opcode, MLX5_CMD_OP_MAD_IFC);
    MLX5_SET(in, MAD_IFC_IN_port, 1);
    MLX5_SET(in, MAD_IFC_IN_remote_lid, slid);
    memcpy(in + MAD_IFC_MAD_OFF, mad, MLX5_MAD_SIZE);
    tdrv_exec(n->d, in, sizeof(in), out, sizeof(out));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Fz f = { data, size };
    FzNode *n = fz_node_new(true, true);

    for (unsigned r = 0; r < FZ_MAX_RECORDS && fz_more(&f) && !n->d->c->health_fatal; r++) {
        uint8_t kind = fz_u8(&f);
        uint16_t slid = fz_u16(&f);
        uint8_t mad[MLX5_MAD_SIZE];

        fz_bytes(&f, mad, sizeof(mad));
        if (kind % 4 == 3) {
            mad_ifc(n, slid, mad);
        } else {
            send_mad(n, kind, slid, mad);
        }
        fz_settle(n, 16);
    }
    fz_check(n);
    fz_node_free(n);
    return 0;
}
