/*
 * mlx5 HCA device core: the API seen by the PCI shell and by the unit tests.
 *
 * The core is passive: it never creates timers, bottom halves or threads. It
 * reaches the outside world only through Mlx5CoreOps. Everything here is
 * independent of QEMU's device layer so the core can be compiled into unit
 * tests with fake guest memory and a fake clock.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_MLX5_CORE_H
#define HW_RDMA_MLX5_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "hw/rdma/ib/ib_transport.h"   /* IbFaultConfig */

typedef struct Mlx5Core Mlx5Core;

/* Result of a DMA access: 0 = OK, anything else = the bus reported an error. */
typedef int Mlx5DmaResult;

typedef struct Mlx5CoreOps {
    Mlx5DmaResult (*dma_read)(void *opaque, uint64_t pa, void *buf, size_t len);
    Mlx5DmaResult (*dma_write)(void *opaque, uint64_t pa, const void *buf,
                               size_t len);
    void (*irq)(void *opaque, unsigned vector);       /* MSI-X vector notify */
    /* call mlx5_core_run() soon */
    void (*kick)(void *opaque);
    /*
     * Send a frame; false = taken, but the link is full: wait for
     * mlx5_core_link_tx_ready. A @best_effort frame (a fabric-wide
     * announcement) may instead be dropped when nobody can take it, so that it
     * never stalls the port.
     */
    bool (*link_tx)(void *opaque, unsigned port, const struct iovec *iov,
                    int iovcnt, bool best_effort);
    int64_t (*now_ns)(void *opaque);                  /* virtual clock */
    void (*set_deadline)(void *opaque, int64_t when_ns); /* INT64_MAX = none */
    /*
     * a problem of the host's configuration (not the guest's), e.g. a LID
     * clash; optional
     */
    void (*report)(void *opaque, const char *msg);
    /*
     * Optional: the guest's inputs as they arrive, one record at a time, in the
     * input formats of the fuzz targets (tests/fuzz; the seeds of their
     * corpora). @kind: Mlx5RecordKind.
     */
    void (*record)(void *opaque, unsigned kind, const void *rec, size_t len);
    /*
     * Optional: the flash's new content (the firmware image, empty for the
     * built-in one, and the non-volatile configuration), to keep beyond the
     * process (the `flash` property's file)
     */
    void (*flash_write)(void *opaque, const void *img, size_t img_len,
                        const void *nv, size_t nv_len);
    /*
     * Optional: a reboot made the port Ethernet (@eth) or InfiniBand
     * (mstconfig's LINK_TYPE_P1): the PCI class code follows
     */
    void (*port_type)(void *opaque, bool eth);
} Mlx5CoreOps;

/* What Mlx5CoreOps.record hands over; the names are the fuzz targets'. */
typedef enum Mlx5RecordKind {
    MLX5_RECORD_CMD,            /* a command as delivered (fuzz-cmd) */
    /* a send or receive WQE as fetched (fuzz-wqe) */
    MLX5_RECORD_WQE,
    MLX5_RECORD_FRAME,          /* a frame from the fabric (fuzz-frame) */
    MLX5_RECORD_MAD,            /* a MAD to QP0/QP1, or of MAD_IFC (fuzz-mad) */
    MLX5_RECORD_MMIO,           /* a BAR0 write (fuzz-mmio) */
    MLX5_RECORD_KINDS
} Mlx5RecordKind;
extern const char *const mlx5_record_names[MLX5_RECORD_KINDS];

/*
 * Device-owned limits and identity. The capabilities reported to the guest are
 * generated from this structure and every allocator enforces the same numbers.
 */
typedef struct Mlx5CoreConfig {
    uint16_t pci_device_id;     /* 0x1017 */
    uint8_t  pci_revision;
    uint16_t fw_major, fw_minor, fw_subminor;
    uint64_t node_guid;         /* host order */
    uint64_t sys_image_guid;
    uint64_t port_guid;
    uint16_t lid;
    /* 0..7: the port has the 2^lmc LIDs from lid (IBA LMC) */
    uint8_t  lmc;
    /* fixed SM LID, or 0: the fabric's elected master SM */
    uint16_t sm_lid;
    /* offer to be the fabric's subnet manager (and SA) */
    bool     sm;
    uint8_t  sm_priority;       /* 0..15, IBA SM election priority */
    uint8_t  log_max_qp;        /* objects: log2 of the table size */
    uint8_t  log_max_cq;
    uint8_t  log_max_srq;
    uint8_t  log_max_mkey;
    uint8_t  log_max_pd;
    uint8_t  log_max_xrcd;
    uint8_t  log_max_uctx;      /* DevX user contexts (0: no DevX) */
    uint8_t  log_max_eq;
    uint8_t  log_max_qp_sz;     /* WQEs per queue */
    uint8_t  log_max_srq_sz;
    uint8_t  log_max_cq_sz;
    uint8_t  log_max_eq_sz;
    uint8_t  log_max_msg;
    /* UAR pages available in BAR0 (first usable = MLX5_FIRST_UAR) */
    uint16_t max_uar;
    /* device memory (MEMIC) bytes, 0 = none; <= MLX5_MEMIC_MAX */
    uint32_t memic_size;
    /* on-demand paging: page faults (cap pg, mlx5_odp.c) */
    bool     odp;
    /*
     * software steering on an Ethernet port: steering ICM (mlx5_sw_icm.c),
     * software-owned NIC tables walked by the STE engine (eth/mlx5_ste.c)
     */
    bool     sw_steering;
    /* the port is Ethernet (mlx5e, RoCE), not InfiniBand */
    bool     eth;
    /* the port type the configuration's default names (LINK_TYPE_P1) */
    bool     eth_default;
    uint8_t  mac[6];            /* Ethernet port: the permanent MAC address */
    uint16_t msix_vectors;
    /* fault injection on frames from the link (ib_fault.c) */
    IbFaultConfig fault;
    char     node_desc[65];
    char     board_id[17];      /* PSID */
    /*
     * the command timeout the init segment tells the driver (ms, at most
     * MLX5_CMD_TIMEOUT_MAX); 0: none, the driver's own (60 s)
     */
    uint32_t cmd_timeout_ms;
    /*
     * SR-IOV (mlx5_sriov.c): a PF's number of virtual functions (PCI
     * TotalVFs; their cores are attached with mlx5_core_vf_attach), or this
     * core is a VF's (@vf: made from its PF's with mlx5_core_vf_config)
     */
    uint16_t num_vfs;
    bool     vf;
    uint16_t vhca_id;           /* the function's id (a VF: its index + 1) */
    /*
     * a PF with VFs is the E-Switch manager: the legacy FDB the driver
     * programs switches the functions' frames (eth/mlx5_eswitch.c)
     */
    bool     esw_manager;
} Mlx5CoreConfig;

#define MLX5_CMD_TIMEOUT_MAX    0xfffff

typedef enum Mlx5ResetKind {
    MLX5_RESET_SYSTEM,          /* power-on / system reset / FLR */
    MLX5_RESET_DISABLE_HCA,     /* function returned to pre-ENABLE_HCA state */
} Mlx5ResetKind;

void mlx5_core_config_default(Mlx5CoreConfig *cfg, const uint8_t mac[6]);
/* NULL if the config is usable, else a message saying what is out of range. */
const char *mlx5_core_config_check(const Mlx5CoreConfig *cfg);

Mlx5Core *mlx5_core_new(const Mlx5CoreConfig *cfg, const Mlx5CoreOps *ops,
                        void *opaque);
void mlx5_core_free(Mlx5Core *c);
void mlx5_core_reset(Mlx5Core *c, Mlx5ResetKind kind);
/* The port becomes Ethernet (@eth) or InfiniBand (at a reboot). */
void mlx5_core_set_port_type(Mlx5Core *c, bool eth);
/*
 * The machine reset (a reboot: PERST): the device resets, and the stored
 * firmware and configuration run, the port type included.
 */
void mlx5_core_reboot(Mlx5Core *c);

/*
 * BAR0 accesses; values are numeric (the shell declares the region big endian).
 */
uint64_t mlx5_core_mmio_read(Mlx5Core *c, uint64_t off, unsigned size);
void mlx5_core_mmio_write(Mlx5Core *c, uint64_t off, uint64_t val,
                          unsigned size);

/*
 * Do pending work, at most @budget units. Returns true if more work is pending.
 */
bool mlx5_core_run(Mlx5Core *c, unsigned budget);
/*
 * The data path's part of mlx5_core_run(), for a doorbell served in the thread
 * that rang it: queues, the switch, the transport; commands are left for
 * mlx5_core_run(). Returns true if anything is left.
 */
bool mlx5_core_run_queues(Mlx5Core *c, unsigned budget);
/*
 * Whether the send doorbell just written may be followed by its BlueFlame copy
 * (mlx5_bf.c), so should not run yet; the copy's completion kicks. Clears it.
 */
bool mlx5_core_doorbell_waits(Mlx5Core *c);
/*
 * Whether a waiting doorbell's BlueFlame copy is under way as libmlx5 writes
 * one: its first 8 bytes in, and its WQE the next the engine takes (a post of
 * one WQE; a post of several rings a plain doorbell), so its last store will
 * run it (mlx5_bf.c).
 */
bool mlx5_core_copy_coming(Mlx5Core *c);
/* Timers: the core's deadline (set through ops->set_deadline) has passed. */
void mlx5_core_expire(Mlx5Core *c, int64_t now_ns);
/*
 * The flash's content at start (what flash_write wrote before; an empty
 * image: the built-in firmware): NULL if it runs, else what is wrong with it.
 */
const char *mlx5_core_flash_load(Mlx5Core *c, const void *img, size_t len,
                                 const void *nv, size_t nv_len);
/*
 * The port type a flash's configuration names (LINK_TYPE_P1): 1 InfiniBand,
 * 2 Ethernet, 0 none (the device's default). For the shell, which chooses
 * the port type (Mlx5CoreConfig.eth) before the core exists.
 */
int mlx5_nv_link_type(const void *nv, size_t len);

/*
 * The Mellanox vendor-specific capability in configuration space (mlx5_vsc.c):
 * a dword at @off bytes from the capability's start (CTRL 4 .. DATA 0x14).
 */
uint32_t mlx5_core_vsc_read(Mlx5Core *c, unsigned off);
void mlx5_core_vsc_write(Mlx5Core *c, unsigned off, uint32_t val);
/* A PCI reset: the gateway and its semaphores free, no space selected. */
void mlx5_core_vsc_reset(Mlx5Core *c);

/*
 * Fault injection (mlx5_inject.c; the requests are listed in
 * docs/user-guide.md): carry out one request such as "cmd-fail opcode=0x102
 * status=0x4". NULL when done, else what is wrong with it (g_free it); a bad
 * request changes nothing.
 */
char *mlx5_core_inject(Mlx5Core *c, const char *request);
/* What is armed, as the requests that would arm it ("" if nothing; g_free). */
char *mlx5_core_inject_state(Mlx5Core *c);

/*
 * SR-IOV (mlx5_sriov.c). A virtual function is a core of its own (its
 * objects, command queue, EQs, UARs and DMA are its function's), made from
 * @pf's configuration by mlx5_core_vf_config for VF @idx (0-based) and
 * attached to it: the PF enables and disables it (ENABLE/DISABLE_HCA with
 * function_id idx + 1), and its frames are switched by the PF's embedded
 * switch (eth/mlx5_eswitch.c) between the functions and the PF's link. A VF
 * core's own link_tx is never called. Detach before freeing either core.
 */
#define MLX5_MAX_VFS        64
#define MLX5_VF_BAR0_SIZE   (1024u * 1024)
#define MLX5_VF_MSIX        8
void mlx5_core_vf_config(Mlx5Core *pf, unsigned idx, Mlx5CoreConfig *cfg);
/*
 * The PF's TotalVFs (PCI): what the current non-volatile configuration says
 * (mstconfig's SRIOV_EN and NUM_OF_VFS, default num-vfs), at most num-vfs.
 * The shell sets it at the start and at each reboot (mlx5_nvconf.c).
 */
unsigned mlx5_core_sriov_total(Mlx5Core *c);
void mlx5_core_vf_attach(Mlx5Core *pf, unsigned idx, Mlx5Core *vf);
void mlx5_core_vf_detach(Mlx5Core *vf);

/* Fabric link. */
/*
 * Frames are not taken while the core is itself running (a frame delivered
 * synchronously back to us from inside our own transmit, e.g. through a hub):
 * can_rx is then false and link_rx returns false; the shell lets QEMU queue the
 * frame and flushes it after the run.
 */
bool mlx5_core_link_can_rx(Mlx5Core *c, unsigned port);
bool mlx5_core_link_rx(Mlx5Core *c, unsigned port, const uint8_t *frame,
                       size_t len);
void mlx5_core_link_set_up(Mlx5Core *c, unsigned port, bool up);
void mlx5_core_link_tx_ready(Mlx5Core *c, unsigned port);

/*
 * Size of BAR0 (init segment, UAR pages, then the device memory window at its
 * top).
 */
#define MLX5_BAR0_SIZE      (32u * 1024 * 1024)
#define MLX5_FIRST_UAR      8u
/* the driver tracks at most 256 pages */
#define MLX5_MEMIC_MAX      (1024u * 1024)
#define MLX5_MEMIC_BAR_OFF  (MLX5_BAR0_SIZE - MLX5_MEMIC_MAX)

#endif
