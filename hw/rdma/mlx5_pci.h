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
/* the doorbell budget of the PF of VF @vf (its doorbell-budget) */
uint32_t mlx5_hca_pf_doorbell_budget(PCIDevice *vf);

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

/*
 * A doorbell served where it is rung: a write to a UAR page runs the work it
 * asks for (up to @budget WQEs a queue, then the bottom half goes on) in the
 * thread that wrote it, the guest's vCPU, instead of handing it to the main
 * loop (docs/benchmarks.md, "Small messages"). Budget 0: every doorbell goes
 * to the bottom half.
 */
typedef struct Mlx5Doorbell {
    QEMUBH *bh;
    Object *owner;      /* the function (its realized state, a reference) */
    uint32_t budget;
    bool ringing;       /* in a UAR write: a kick is served there */
    bool kicked;
    /* a doorbell waits for its BlueFlame copy (mlx5_pci_bf_wait) */
    bool waiting;
    bool check_queued;
    bool left;          /* the last run left work to the bottom half */
    Mlx5Core *core;     /* (the BAR0 writes' core) */
    /* runs a doorbell whose expected copy did not come (mlx5_pci_bf_check) */
    QEMUTimer *safety;
} Mlx5Doorbell;

/* Free what the doorbell holds (its bottom half, its timer). */
void mlx5_pci_db_cleanup(Mlx5Doorbell *db);

/* the core's kick: the bottom half, or the UAR write being served */
void mlx5_pci_kick(Mlx5Doorbell *db);
/* a BAR0 write; true if it ran the core (its work is done or scheduled) */
bool mlx5_pci_bar0_write(Mlx5Doorbell *db, Mlx5Core *c, hwaddr addr,
                         uint64_t val, unsigned size);

#endif
