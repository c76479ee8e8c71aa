/*
 * libqos driver for the mlx5-hca device (an NVIDIA/Mellanox ConnectX HCA):
 * BAR0's initialization segment and the command queue.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef QOS_MLX5_HCA_H
#define QOS_MLX5_HCA_H

#include "qgraph.h"
#include "pci.h"

typedef struct QMlx5Hca {
    QPCIDevice *pdev;
    QPCIBar bar0;
    uint64_t cmdq;          /* the command queue page (guest physical) */
    uint64_t mbox_in;       /* one input and one output mailbox */
    uint64_t mbox_out;
    uint8_t token;
} QMlx5Hca;

/* the node's object: what a qos test consuming "mlx5-hca" gets */
typedef struct QMlx5HcaPCI {
    QOSGraphObject obj;
    QPCIDevice pci_dev;
    QMlx5Hca hca;
} QMlx5HcaPCI;

/* A dword of the initialization segment (big-endian on the bus, as read). */
uint32_t qmlx5_iseg_readl(QMlx5Hca *d, uint32_t off);
/*
 * Execute one command in slot 0, polling: @in (@inlen bytes, at most 16 +
 * 512) and @out (@outlen bytes, at most 16 + 512) as the PRM lays them out.
 * Returns the delivery status (0: the device took the command; @out then
 * holds its status in byte 0 and the syndrome in bytes 4..7).
 */
int qmlx5_cmd(QMlx5Hca *d, const void *in, uint32_t inlen, void *out,
              uint32_t outlen);

#endif
