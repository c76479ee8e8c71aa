/*
 * libqos driver for the mlx5-hca device: finds it on the PCI bus, maps BAR0,
 * waits for the initialization segment to report the device ready and hands
 * it a command queue, the way mlx5_core's probe starts (mlx5_function_enable:
 * wait_fw_init, mlx5_cmd_init).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "../libqtest.h"
#include "qemu/bswap.h"
#include "qemu/module.h"
#include "hw/rdma/mlx5/mlx5_prm.h"
#include "libqos-malloc.h"
#include "qgraph.h"
#include "mlx5-hca.h"

#define MLX5_HCA_MBOX_ALIGN     1024
#define MLX5_HCA_CMD_POLLS      10000

uint32_t qmlx5_iseg_readl(QMlx5Hca *d, uint32_t off)
{
    return be32_to_cpu(qpci_io_readl(d->pdev, d->bar0, off));
}

static void qmlx5_iseg_writel(QMlx5Hca *d, uint32_t off, uint32_t val)
{
    qpci_io_writel(d->pdev, d->bar0, off, cpu_to_be32(val));
}

int qmlx5_cmd(QMlx5Hca *d, const void *in, uint32_t inlen, void *out,
              uint32_t outlen)
{
    QTestState *qts = d->pdev->bus->qts;
    uint8_t lay[MLX5_CMD_LAYOUT_SIZE] = { 0 };
    uint8_t mbox[MLX5_CMD_MBOX_SIZE];
    unsigned i;

    g_assert(inlen <= MLX5_CMD_INLINE_BYTES + MLX5_CMD_MBOX_DATA);
    g_assert(outlen <= MLX5_CMD_INLINE_BYTES + MLX5_CMD_MBOX_DATA);
    d->token++;
    lay[MLX5_CMD_LAY_TYPE] = MLX5_PCI_CMD_XPORT;
    stl_be_p(lay + MLX5_CMD_LAY_INLEN, inlen);
    memcpy(lay + MLX5_CMD_LAY_IN, in, MIN(inlen, MLX5_CMD_INLINE_BYTES));
    if (inlen > MLX5_CMD_INLINE_BYTES) {
        memset(mbox, 0, sizeof(mbox));
        memcpy(mbox, (const uint8_t *)in + MLX5_CMD_INLINE_BYTES,
               inlen - MLX5_CMD_INLINE_BYTES);
        mbox[MLX5_CMD_MBOX_TOKEN] = d->token;
        qtest_memwrite(qts, d->mbox_in, mbox, sizeof(mbox));
        stq_be_p(lay + MLX5_CMD_LAY_IN_PTR, d->mbox_in);
    }
    if (outlen > MLX5_CMD_INLINE_BYTES) {
        memset(mbox, 0, sizeof(mbox));
        mbox[MLX5_CMD_MBOX_TOKEN] = d->token;
        qtest_memwrite(qts, d->mbox_out, mbox, sizeof(mbox));
        stq_be_p(lay + MLX5_CMD_LAY_OUT_PTR, d->mbox_out);
    }
    stl_be_p(lay + MLX5_CMD_LAY_OUTLEN, outlen);
    lay[MLX5_CMD_LAY_TOKEN] = d->token;
    lay[MLX5_CMD_LAY_STATUS_OWN] = 1;
    qtest_memwrite(qts, d->cmdq, lay, sizeof(lay));

    qmlx5_iseg_writel(d, MLX5_ISEG_CMD_DBELL, 1);
    for (i = 0; i < MLX5_HCA_CMD_POLLS; i++) {
        if (!(qtest_readb(qts, d->cmdq + MLX5_CMD_LAY_STATUS_OWN) & 1)) {
            break;
        }
        qtest_clock_step(qts, 1000);
    }
    g_assert_cmpuint(i, <, MLX5_HCA_CMD_POLLS);

    qtest_memread(qts, d->cmdq, lay, sizeof(lay));
    if (lay[MLX5_CMD_LAY_STATUS_OWN] >> 1) {
        return lay[MLX5_CMD_LAY_STATUS_OWN] >> 1;
    }
    memset(out, 0, outlen);
    memcpy(out, lay + MLX5_CMD_LAY_OUT, MIN(outlen, MLX5_CMD_INLINE_BYTES));
    if (outlen > MLX5_CMD_INLINE_BYTES) {
        qtest_memread(qts, d->mbox_out, mbox, sizeof(mbox));
        memcpy((uint8_t *)out + MLX5_CMD_INLINE_BYTES, mbox,
               outlen - MLX5_CMD_INLINE_BYTES);
    }
    return 0;
}

static void mlx5_hca_foreach_callback(QPCIDevice *dev, int devfn, void *data)
{
    QPCIDevice *res = data;

    memcpy(res, dev, sizeof(QPCIDevice));
    g_free(dev);
}

static void mlx5_hca_pci_start_hw(QOSGraphObject *obj)
{
    QMlx5HcaPCI *p = (QMlx5HcaPCI *)obj;
    QMlx5Hca *d = &p->hca;
    uint32_t sz;
    unsigned i;

    qpci_device_enable(&p->pci_dev);
    /* the interface revision, then "initializing" clear (wait_fw_init) */
    g_assert_cmpuint(qmlx5_iseg_readl(d, MLX5_ISEG_CMDIF_REV_FW_SUB) >> 16, ==,
                     MLX5_CMD_IF_REV);
    for (i = 0; i < 1000; i++) {
        if (!(qmlx5_iseg_readl(d, MLX5_ISEG_INITIALIZING) >> 31)) {
            break;
        }
        qtest_clock_step(p->pci_dev.bus->qts, 1000000);
    }
    g_assert_cmpuint(i, <, 1000);
    /* the queue's geometry is the device's; the driver gives its address */
    sz = qmlx5_iseg_readl(d, MLX5_ISEG_CMDQ_ADDR_L_SZ);
    g_assert_cmpuint((sz >> 4) & 0xf, ==, MLX5_LOG_CMDQ_SIZE);
    g_assert_cmpuint(sz & 0xf, ==, MLX5_LOG_CMDQ_STRIDE);
    qmlx5_iseg_writel(d, MLX5_ISEG_CMDQ_ADDR_H, d->cmdq >> 32);
    qmlx5_iseg_writel(d, MLX5_ISEG_CMDQ_ADDR_L_SZ, (uint32_t)d->cmdq);
}

static void mlx5_hca_pci_destructor(QOSGraphObject *obj)
{
    QMlx5HcaPCI *p = (QMlx5HcaPCI *)obj;

    qpci_iounmap(&p->pci_dev, p->hca.bar0);
}

static void *mlx5_hca_pci_get_driver(void *obj, const char *interface)
{
    QMlx5HcaPCI *p = obj;

    if (!g_strcmp0(interface, "pci-device")) {
        return &p->pci_dev;
    }
    fprintf(stderr, "%s not present in mlx5-hca\n", interface);
    g_assert_not_reached();
}

static void *mlx5_hca_pci_create(void *pci_bus, QGuestAllocator *alloc,
                                 void *addr)
{
    QMlx5HcaPCI *p = g_new0(QMlx5HcaPCI, 1);
    QPCIAddress *address = addr;
    uint64_t mbox;

    qpci_device_foreach(pci_bus, address->vendor_id, address->device_id,
                        mlx5_hca_foreach_callback, &p->pci_dev);
    p->hca.pdev = &p->pci_dev;
    p->hca.bar0 = qpci_iomap(&p->pci_dev, 0, NULL);
    /* page-aligned (the pc allocator's unit); mailboxes 1 KiB-aligned */
    p->hca.cmdq = guest_alloc(alloc, 4096);
    mbox = guest_alloc(alloc, 4096);
    g_assert(p->hca.cmdq && mbox && !(mbox % MLX5_HCA_MBOX_ALIGN));
    p->hca.mbox_in = mbox;
    p->hca.mbox_out = mbox + MLX5_HCA_MBOX_ALIGN;

    p->obj.get_driver = mlx5_hca_pci_get_driver;
    p->obj.start_hw = mlx5_hca_pci_start_hw;
    p->obj.destructor = mlx5_hca_pci_destructor;
    return &p->obj;
}

static void mlx5_hca_register_nodes(void)
{
    QPCIAddress addr = {
        .vendor_id = PCI_VENDOR_ID_MELLANOX,
        .device_id = MLX5_PCI_DEVICE_ID_CX5,
    };
    /* an id: the tests reach the device's properties by it (qom-set) */
    QOSGraphEdgeOptions opts = { .extra_device_opts = "id=hca0" };

    add_qpci_address(&opts, &addr);
    qos_node_create_driver("mlx5-hca", mlx5_hca_pci_create);
    qos_node_consumes("mlx5-hca", "pci-bus", &opts);
}

libqos_init(mlx5_hca_register_nodes);
