/*
 * mlx5 HCA core: the port's performance management agent (PerfMgt class,
 * IBA 16.1), reached through MAD_IFC like the SMA: ClassPortInfo, PortCounters
 * and PortCountersExtended with the port's real traffic (ib_port.c counts every
 * packet and its octets, LRH to VCRC), and Set of either to clear the data and
 * packet counters (perfquery -r). perfquery and the kernel's
 * /sys/class/infiniband/<dev>/ports/1/counters read them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "trace.h"

/* 24-byte MAD header, 40 reserved */
#define PMA_DATA                    64
#define PMA_ATTR_CLASS_PORT_INFO    0x0001
#define PMA_ATTR_PORT_COUNTERS      0x0012
#define PMA_ATTR_PORT_COUNTERS_EXT  0x001d
/* PortCountersExtended supported */
#define PMA_CAP_EXT_WIDTH           (1u << 9)
#define PMA_CAP_EXT_WIDTH_NOIETF    (1u << 10)

/* counters since the last clear (or reset) */
static void mlx5_pma_now(Mlx5Core *c, Mlx5PmaCounters *n)
{
    const Mlx5PmaCounters *b = &c->port.pma_base;

    n->tx_bytes = c->ib.stat_tx_bytes - b->tx_bytes;
    n->rx_bytes = c->ib.stat_rx_bytes - b->rx_bytes;
    n->tx_pkts = c->ib.stat_tx - b->tx_pkts;
    n->rx_pkts = c->ib.stat_rx - b->rx_pkts;
    n->tx_mcast = c->ib.stat_tx_mcast - b->tx_mcast;
    n->rx_mcast = c->ib.stat_rx_mcast - b->rx_mcast;
    n->rx_bad = c->ib.stat_rx_bad - b->rx_bad;
}

void mlx5_pma_clear(Mlx5Core *c)
{
    Mlx5PmaCounters *b = &c->port.pma_base;

    b->tx_bytes = c->ib.stat_tx_bytes;
    b->rx_bytes = c->ib.stat_rx_bytes;
    b->tx_pkts = c->ib.stat_tx;
    b->rx_pkts = c->ib.stat_rx;
    b->tx_mcast = c->ib.stat_tx_mcast;
    b->rx_mcast = c->ib.stat_rx_mcast;
    b->rx_bad = c->ib.stat_rx_bad;
}

static uint32_t sat32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : v;
}

/* Answer one PerfMgt MAD in place. Returns the MAD status. */
uint16_t mlx5_pma_process(Mlx5Core *c, uint8_t *mad)
{
    uint8_t method = mad[IB_MAD_method];
    uint16_t attr = mlx5_ld16(mad + IB_MAD_attr_id);
    uint8_t *d = mad + PMA_DATA;
    uint8_t port_select = d[1];
    Mlx5PmaCounters n;

    if (method != IB_MGMT_METHOD_GET && method != IB_MGMT_METHOD_SET) {
        return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
    }
    switch (attr) {
    case PMA_ATTR_CLASS_PORT_INFO:
        if (method != IB_MGMT_METHOD_GET) {
            return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
        }
        memset(d, 0, MLX5_MAD_SIZE - PMA_DATA);
        d[0] = 1;                               /* BaseVersion */
        d[1] = 1;                               /* ClassVersion */
        mlx5_st16(d + 2, PMA_CAP_EXT_WIDTH | PMA_CAP_EXT_WIDTH_NOIETF);
        mlx5_st32(d + 4, 18);                   /* RespTimeValue */
        return 0;
    case PMA_ATTR_PORT_COUNTERS:
    case PMA_ATTR_PORT_COUNTERS_EXT:
        if (port_select != 1 && port_select != 0xff && port_select != 0) {
            return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
        }
        if (method == IB_MGMT_METHOD_SET) {
            trace_mlx5_pma_clear(attr);
            mlx5_pma_clear(c);
        }
        mlx5_pma_now(c, &n);
        memset(d, 0, MLX5_MAD_SIZE - PMA_DATA);
        d[1] = port_select;
        if (attr == PMA_ATTR_PORT_COUNTERS) {
            mlx5_st16(d + 8, MIN(n.rx_bad, 0xffff));    /* PortRcvErrors */
            /* PortXmitData, 32-bit words */
            mlx5_st32(d + 24, sat32(n.tx_bytes / 4));
            mlx5_st32(d + 28, sat32(n.rx_bytes / 4));
            mlx5_st32(d + 32, sat32(n.tx_pkts));
            mlx5_st32(d + 36, sat32(n.rx_pkts));
        } else {
            mlx5_st64(d + 8, n.tx_bytes / 4);
            mlx5_st64(d + 16, n.rx_bytes / 4);
            mlx5_st64(d + 24, n.tx_pkts);
            mlx5_st64(d + 32, n.rx_pkts);
            mlx5_st64(d + 40, n.tx_pkts - n.tx_mcast);  /* unicast */
            mlx5_st64(d + 48, n.rx_pkts - n.rx_mcast);
            mlx5_st64(d + 56, n.tx_mcast);
            mlx5_st64(d + 64, n.rx_mcast);
        }
        return 0;
    default:
        trace_mlx5_unimp_pma_attr(attr);
        return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
    }
}
