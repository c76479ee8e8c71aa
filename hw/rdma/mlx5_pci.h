/*
 * QEMU NVIDIA/Mellanox ConnectX (mlx5) HCA: what the PF's shell (mlx5_pci.c)
 * and its virtual functions' (mlx5_vf.c) share.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_MLX5_PCI_H
#define HW_RDMA_MLX5_PCI_H

#include "hw/pci/pci_device.h"
#include "qemu/timer.h"
#include "hw/rdma/mlx5/mlx5_core.h"

#define TYPE_MLX5_VF        "mlx5-vf"

/* the VFs' BARs: BAR0 (init segment, UARs) and the MSI-X table's */
#define MLX5_VF_MSIX_BAR    2
#define MLX5_VF_MSIX_SIZE   4096

/* The core of the PF of VF @vf (NULL if none). */
Mlx5Core *mlx5_hca_pf_core(PCIDevice *vf);

/* Mlx5CoreOps of both (@opaque: the function's PCIDevice) */
Mlx5DmaResult mlx5_pci_dma_read(void *opaque, uint64_t pa, void *buf,
                                size_t len);
Mlx5DmaResult mlx5_pci_dma_write(void *opaque, uint64_t pa, const void *buf,
                                 size_t len);
void mlx5_pci_irq(void *opaque, unsigned vector);
int64_t mlx5_pci_now_ns(void *opaque);
void mlx5_pci_port_type(void *opaque, bool eth);
/* the device's re-entrancy guard (mlx5_pci.c): engage, and back as it was */
bool mlx5_pci_guard(void *dev);
void mlx5_pci_unguard(void *dev, bool was);
/* the core's deadline on timer @t (INT64_MAX: none) */
void mlx5_pci_deadline(QEMUTimer *t, int64_t when_ns);

#endif
