/*
 * QEMU NVIDIA/Mellanox ConnectX (mlx5) HCA: a virtual function's PCI shell.
 *
 * The PF (mlx5_pci.c, property num-vfs) makes its VFs with QEMU's SR-IOV
 * support; each is a PCIe function 15b3:1018 with its own BAR0 (initialization
 * segment and UAR pages, MLX5_VF_BAR0_SIZE), MSI-X table and FLR, and a core of
 * its own attached to the PF's (mlx5_sriov.c). Its frames go through the PF's
 * embedded switch, so a VF has no network backend.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "hw/pci/msix.h"
#include "hw/pci/pcie.h"
#include "hw/pci/pcie_sriov.h"
#include "migration/vmstate.h"
#include "system/dma.h"
#include "hw/rdma/mlx5/mlx5_prm.h"
#include "mlx5_pci.h"
#include "trace.h"

OBJECT_DECLARE_SIMPLE_TYPE(Mlx5Vf, MLX5_VF)

#define MLX5_VF_RUN_BUDGET  256
#define MLX5_VF_ARI_OFFSET  0x100

struct Mlx5Vf {
    PCIDevice parent_obj;

    MemoryRegion bar0;
    Mlx5Doorbell db;                    /* its bh is the VF's bottom half */
    QEMUTimer *timer;
    Mlx5Core *core;
};

static void mlx5_vf_kick(void *opaque)
{
    mlx5_pci_kick(&MLX5_VF(opaque)->db);
}

/* never called: a VF's frames go through its PF's switch (mlx5_eswitch.c) */
static bool mlx5_vf_link_tx(void *opaque, unsigned port,
                            const struct iovec *iov, int iovcnt,
                            bool best_effort)
{
    return true;
}

static void mlx5_vf_set_deadline(void *opaque, int64_t when_ns)
{
    mlx5_pci_deadline(MLX5_VF(opaque)->timer, when_ns);
}

static void mlx5_vf_report(void *opaque, const char *msg)
{
    warn_report("mlx5-vf %s: %s", PCI_DEVICE(opaque)->name, msg);
}

static const Mlx5CoreOps mlx5_vf_core_ops = {
    .dma_read = mlx5_pci_dma_read,
    .dma_write = mlx5_pci_dma_write,
    .irq = mlx5_pci_irq,
    .kick = mlx5_vf_kick,
    .link_tx = mlx5_vf_link_tx,
    .now_ns = mlx5_pci_now_ns,
    .set_deadline = mlx5_vf_set_deadline,
    .report = mlx5_vf_report,
    .port_type = mlx5_pci_port_type,
};

/* the device's re-entrancy guard around timer work (as mlx5_pci.c's) */
static void mlx5_vf_timer(void *opaque)
{
    Mlx5Vf *s = opaque;
    bool was = mlx5_pci_guard(s);

    mlx5_core_expire(s->core, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    mlx5_pci_unguard(s, was);
    qemu_bh_schedule(s->db.bh);
}

static void mlx5_vf_bh(void *opaque)
{
    Mlx5Vf *s = opaque;

    if (mlx5_core_run(s->core, MLX5_VF_RUN_BUDGET)) {
        qemu_bh_schedule(s->db.bh);
    }
}

static uint64_t mlx5_vf_bar0_read(void *opaque, hwaddr addr, unsigned size)
{
    return mlx5_core_mmio_read(MLX5_VF(opaque)->core, addr, size);
}

static void mlx5_vf_bar0_write(void *opaque, hwaddr addr, uint64_t val,
                               unsigned size)
{
    Mlx5Vf *s = MLX5_VF(opaque);

    mlx5_pci_bar0_write(&s->db, s->core, addr, val, size);
}

static const MemoryRegionOps mlx5_vf_bar0_ops = {
    .read = mlx5_vf_bar0_read,
    .write = mlx5_vf_bar0_write,
    .endianness = DEVICE_BIG_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
};

static void mlx5_vf_write_config(PCIDevice *dev, uint32_t address,
                                 uint32_t val, int len)
{
    pci_default_write_config(dev, address, val, len);
    pcie_cap_flr_write_config(dev, address, val, len);
}

static void mlx5_vf_realize(PCIDevice *pci_dev, Error **errp)
{
    Mlx5Vf *s = MLX5_VF(pci_dev);
    Mlx5Core *pf = mlx5_hca_pf_core(pci_dev);
    unsigned idx = pcie_sriov_vf_number(pci_dev);
    Mlx5CoreConfig cfg;
    unsigned i;

    if (!pf) {
        error_setg(errp, "mlx5-vf: made by an mlx5-hca (its num-vfs), not "
                   "on its own");
        return;
    }
    mlx5_core_vf_config(pf, idx, &cfg);
    mlx5_pci_port_type(pci_dev, cfg.eth);
    if (pcie_endpoint_cap_init(pci_dev, 0x80) < 0) {
        error_setg(errp, "mlx5-vf: failed to add the PCIe capability");
        return;
    }
    pcie_cap_flr_init(pci_dev);
    pcie_ari_init(pci_dev, MLX5_VF_ARI_OFFSET);

    memory_region_init_io(&s->bar0, OBJECT(s), &mlx5_vf_bar0_ops, s,
                          "mlx5-vf-bar0", MLX5_VF_BAR0_SIZE);
    pci_register_bar(pci_dev, 0,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                         PCI_BASE_ADDRESS_MEM_TYPE_64 |
                         PCI_BASE_ADDRESS_MEM_PREFETCH,
                     &s->bar0);
    if (msix_init_exclusive_bar(pci_dev, cfg.msix_vectors, MLX5_VF_MSIX_BAR,
                                errp)) {
        pcie_cap_exit(pci_dev);
        return;
    }
    for (i = 0; i < cfg.msix_vectors; i++) {
        msix_vector_use(pci_dev, i);
    }
    s->db.bh = qemu_bh_new_guarded(mlx5_vf_bh, s,
                                &DEVICE(s)->mem_reentrancy_guard);
    s->db.owner = OBJECT(s);
    s->db.budget = mlx5_hca_pf_doorbell_budget(pci_dev);
    s->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, mlx5_vf_timer, s);
    s->core = mlx5_core_new(&cfg, &mlx5_vf_core_ops, s);
    mlx5_core_vf_attach(pf, idx, s->core);
}

static void mlx5_vf_exit(PCIDevice *pci_dev)
{
    Mlx5Vf *s = MLX5_VF(pci_dev);

    mlx5_core_vf_detach(s->core);
    timer_free(s->timer);
    mlx5_pci_db_cleanup(&s->db);
    mlx5_core_free(s->core);
    s->core = NULL;
    msix_unuse_all_vectors(pci_dev);
    msix_uninit_exclusive_bar(pci_dev);
    pcie_cap_exit(pci_dev);
}

/*
 * A reset of the VF (its FLR, VF Enable cleared, the machine's): the
 * function's state goes; whether its PF enabled it stays the PF's.
 */
static void mlx5_vf_reset_hold(Object *obj, ResetType type)
{
    Mlx5Vf *s = MLX5_VF(obj);

    if (s->core) {
        timer_del(s->timer);
        mlx5_core_reset(s->core, MLX5_RESET_SYSTEM);
    }
}

static const VMStateDescription mlx5_vf_vmstate = {
    .name = "mlx5-vf",
    .unmigratable = 1,
};

static void mlx5_vf_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(oc);
    ResettableClass *rc = RESETTABLE_CLASS(oc);

    pc->realize = mlx5_vf_realize;
    pc->exit = mlx5_vf_exit;
    pc->config_write = mlx5_vf_write_config;
    pc->vendor_id = PCI_VENDOR_ID_MELLANOX;
    pc->device_id = MLX5_PCI_DEVICE_ID_CX5_VF;
    pc->class_id = PCI_CLASS_NETWORK_ETHERNET;
    rc->phases.hold = mlx5_vf_reset_hold;
    dc->desc = "NVIDIA/Mellanox ConnectX-5 virtual function (made by "
               "mlx5-hca's num-vfs)";
    dc->vmsd = &mlx5_vf_vmstate;
    dc->user_creatable = false;
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo mlx5_vf_types[] = {
    {
        .name = TYPE_MLX5_VF,
        .parent = TYPE_PCI_DEVICE,
        .instance_size = sizeof(Mlx5Vf),
        .class_init = mlx5_vf_class_init,
        .interfaces = (InterfaceInfo[]) {
            { INTERFACE_PCIE_DEVICE },
            { },
        },
    },
};

DEFINE_TYPES(mlx5_vf_types)
