/*
 * QEMU NVIDIA/Mellanox ConnectX (mlx5) HCA: what the PF's shell (mlx5_pci.c)
 * and its virtual functions' (mlx5_vf.c) share.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_MLX5_PCI_H
#define HW_RDMA_MLX5_PCI_H

#include "hw/pci/pci_device.h"
#include "hw/rdma/mlx5/mlx5_core.h"

#define TYPE_MLX5_VF        "mlx5-vf"

/* the VFs' BARs: BAR0 (init segment, UARs) and the MSI-X table's */
#define MLX5_VF_MSIX_BAR    2
#define MLX5_VF_MSIX_SIZE   4096

/* The core of the PF of VF @vf (NULL if none). */
Mlx5Core *mlx5_hca_pf_core(PCIDevice *vf);

#endif
