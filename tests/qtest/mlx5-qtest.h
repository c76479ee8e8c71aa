/*
 * The mini driver of the unit tests (tests/unit/mlx5-test.h) on the real device: a QEMU with
 * the mlx5-hca device, started with -machine accel=qtest and driven through QEMU's qtest
 * protocol (guest memory, port I/O for PCI configuration, BAR accesses, the virtual clock).
 * No guest runs; the test is the guest's driver. This reaches what the unit tests cannot: the
 * PCI shell (mlx5_pci.c), QEMU's DMA and MSI-X paths, FLR and machine reset.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MLX5_QTEST_H
#define MLX5_QTEST_H

#include "mlx5-test.h"
#include <fcntl.h>
#include <unistd.h>

#define bswap32(x) __builtin_bswap32(x)
#define bswap64(x) __builtin_bswap64(x)

#define QT_LID         0x42                   /* the device's LID (lid=, no subnet manager) */
#define QT_RAM_BYTES   (UINT64_C(256) << 20)   /* -m 256M */
#define QT_BAR0        UINT64_C(0xc0000000)   /* where the test places BAR0 (32 MiB) */
#define QT_MSIX_BAR    UINT64_C(0xc2000000)   /* and the MSI-X table BAR */
#define QT_MSI_PA      UINT64_C(0x00f00000)   /* the MSI-X messages land here, 4 bytes each */
#define QT_ALLOC_LO    UINT64_C(0x01000000)   /* the driver's allocations: 16 MiB .. 240 MiB */
#define QT_ALLOC_HI    UINT64_C(0x0f000000)

typedef struct Qt {
    GPid pid;
    int fd;
    FILE *in;
    char *dir, *stderr_path;
    unsigned devfn;                 /* of the mlx5-hca on bus 0 (a VF view: the VF's) */
    /* where this function's BAR0 and MSI-X BAR are, and where its MSI-X messages land */
    uint64_t bar0, msix_bar, msi_pa;
    bool view;                      /* a VF's view of its PF's QEMU (qt_vf) */
    bool ecam;                      /* MMCONFIG enabled (for extended config space) */
    unsigned pcie_cap, msix_cap;    /* config-space offsets of the capabilities */
    unsigned nvec;
} Qt;

/* Start QEMU (the binary in $MLX5_QTEST_QEMU) with @extra_args: ",PROP=V..." for the device,
 * other QEMU arguments after; $MLX5_QTEST_ARGS is appended (e.g. "-trace mlx5_*"). QEMU's stderr
 * is kept in a temporary directory until qt_quit. */
Qt *qt_start(const char *extra_args);
/* Stop QEMU (SIGTERM, as a user would) and return its stderr. */
char *qt_quit(Qt *q);

/* qtest commands; each returns the reply after "OK" (g_free it) or fails the test. */
char *qt_cmd(Qt *q, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
void qt_write(Qt *q, uint64_t pa, const void *buf, size_t len);
void qt_read(Qt *q, uint64_t pa, void *buf, size_t len);
uint32_t qt_readl(Qt *q, uint64_t addr);
void qt_writel(Qt *q, uint64_t addr, uint32_t v);
void qt_clock_step(Qt *q, int64_t ns);

/* PCI configuration space of the device (port I/O 0xcf8/0xcfc) */
uint32_t qt_cfg_rd(Qt *q, unsigned off, unsigned size);
void qt_cfg_wr(Qt *q, unsigned off, unsigned size, uint32_t v);

/*
 * Find the device, place its BARs, enable memory decoding, bus mastering and MSI-X with vector
 * v's message going to guest RAM at QT_MSI_PA + 4 * v (polled by tdrv_irqs).
 */
void qt_pci_enable(Qt *q);
/*
 * SR-IOV: the PF's driver makes @n VFs (NumVFs, VF BAR0 at @bar0 and the MSI-X BAR at @msix,
 * each VF's at its index times the BAR's size, VF Enable and VF MSE).
 */
void qt_sriov_enable(Qt *q, unsigned n, uint64_t bar0, uint64_t msix);
/*
 * A view of VF @i (made by qt_sriov_enable) on the same QEMU: its config space, BARs (which
 * its command register enables) and MSI-X (messages at @msi_pa); g_free it, never qt_quit.
 */
Qt *qt_vf(Qt *pf, unsigned i, uint64_t msi_pa);
/* Point MSI-X vector @v at @addr with @data (the test's own misuse of the table). */
void qt_msix_vector(Qt *q, unsigned v, uint64_t addr, uint32_t data, bool masked);

/* A mini driver on this device (tdrv_new_remote) allocating from @ram_lo (QT_ALLOC_LO, or
 * beyond an earlier driver's memory), and the FakeRemoteOps behind it. */
TDrv *qt_tdrv(Qt *q, uint64_t ram_lo);
extern const FakeRemoteOps qt_remote_ops;

#endif
