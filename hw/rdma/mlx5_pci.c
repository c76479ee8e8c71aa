/*
 * QEMU NVIDIA/Mellanox ConnectX (mlx5) HCA: the PCI/QOM shell.
 *
 * This is the only file of the device that touches PCI, MSI-X, NICState, bottom
 * halves and timers. All HCA behaviour lives in the core (mlx5_core.c and
 * friends), reached through include/hw/rdma/mlx5/mlx5_core.h. User
 * documentation: docs/user-guide.md.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/iov.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "hw/core/cpu.h"
#include "hw/pci/msix.h"
#include "hw/pci/pcie.h"
#include "hw/pci/pcie_sriov.h"
#include "hw/pci/pci_device.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "net/net.h"
#include "system/dma.h"
#include "system/reset.h"
#include "hw/rdma/mlx5/mlx5_core.h"
#include "hw/rdma/mlx5/mlx5_prm.h"
#include "mlx5_pci.h"
#include "trace.h"

#define TYPE_MLX5_HCA "mlx5-hca"
OBJECT_DECLARE_SIMPLE_TYPE(Mlx5Hca, MLX5_HCA)

#define MLX5_MSIX_BAR       2
/* the extended capabilities: AER, ARI, SR-IOV */
#define MLX5_PCI_AER_OFFSET 0x100
#define MLX5_PCI_ARI_OFFSET 0x150
#define MLX5_PCI_SRIOV_OFFSET 0x160
#define MLX5_RUN_BUDGET     256
/* WQEs a queue's doorbell runs in the vCPU that rang it (mlx5_pci.h) */
#define MLX5_DOORBELL_BUDGET    16

/* one kind of fuzz-record output */
typedef struct Mlx5HcaRecorder {
    int fd;                     /* the file being filled, -1 before the first */
    unsigned files, records;
} Mlx5HcaRecorder;

struct Mlx5Hca {
    PCIDevice parent_obj;

    NICConf conf;
    uint64_t node_guid;
    uint64_t sys_image_guid;
    uint32_t lid;
    uint8_t lmc;
    uint32_t sm_lid;
    bool sm;
    uint8_t sm_priority;
    uint32_t msix_vectors;
    uint16_t num_vfs;
    bool eswitch;
    uint32_t memic_size;
    uint32_t cmd_timeout_ms;
    bool odp;
    bool sw_steering;
    char *link_type;            /* "ib" (default) or "eth" */
    uint8_t log_max_qp;
    uint8_t log_max_cq;
    uint8_t log_max_mkey;
    uint8_t log_max_uctx;
    char *node_desc;
    uint8_t fault_drop, fault_dup, fault_reorder, fault_corrupt, fault_ecn;
    uint32_t fault_delay;
    uint64_t fault_seed;
    /* directory of the seed recorder (mlx5_record.c), or NULL */
    char *fuzz_record;
    char *flash;                /* the flash's file (docs/firmware-image.md) */

    uint8_t vsc;                /* vendor-specific capability offset */

    MemoryRegion bar0;
    NICState *nic;
    bool rx_held;               /* QEMU holds frames for it (rx_resume) */
    size_t sent;                /* bytes a doorbell's run sent (bar0_write) */
    Mlx5Doorbell db;            /* its bh is the device's bottom half */
    QEMUTimer *timer;
    /* a frame the backend has not taken yet (see link_tx) */
    QEMUTimer *tx_stall;
    /*
     * a frame waited MLX5_TX_STALL_NS on a hub with no other port: until the
     * backend takes frames again, what it cannot take at once is dropped at
     * once (mlx5_hca_tx_stall)
     */
    bool tx_void;
    Mlx5Core *core;
    /* mlx5_hca_core_ops, plus the recorder with fuzz-record */
    Mlx5CoreOps core_ops;
    Mlx5HcaRecorder rec[MLX5_RECORD_KINDS];
};

/* bytes a doorbell served in the vCPU must send before that thread yields */
#define MLX5_YIELD_BYTES    8192

/*
 * How long a frame may wait for the backend before it is dropped (virtual
 * time).
 */
#define MLX5_TX_STALL_NS    (100 * 1000 * 1000)

/* (the PF's and its VFs' core ops: @opaque is the function's PCIDevice) */
Mlx5DmaResult mlx5_pci_dma_read(void *opaque, uint64_t pa, void *buf,
                                size_t len)
{
    return pci_dma_read(PCI_DEVICE(opaque), pa, buf, len) == MEMTX_OK ? 0 : -1;
}

Mlx5DmaResult mlx5_pci_dma_write(void *opaque, uint64_t pa, const void *buf,
                                 size_t len)
{
    return pci_dma_write(PCI_DEVICE(opaque), pa, buf, len) == MEMTX_OK ? 0
                                                                        : -1;
}

void mlx5_pci_irq(void *opaque, unsigned vector)
{
    PCIDevice *d = PCI_DEVICE(opaque);

    if (msix_enabled(d) && vector < msix_nr_vectors_allocated(d)) {
        msix_notify(d, vector);
    }
}

int64_t mlx5_pci_now_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

void mlx5_pci_deadline(QEMUTimer *t, int64_t when_ns)
{
    if (when_ns == INT64_MAX) {
        timer_del(t);
    } else {
        timer_mod(t, when_ns);
    }
}

void mlx5_pci_kick(Mlx5Doorbell *db)
{
    if (db->ringing) {
        db->kicked = true;
    } else {
        qemu_bh_schedule(db->bh);
    }
}

/*
 * How long a doorbell whose BlueFlame copy is under way may wait for it before
 * the bottom half runs it from the ring (virtual time; a torn copy, or a driver
 * that rang a plain doorbell where libmlx5 would have copied)
 */
#define MLX5_BF_SAFETY_NS   (2 * SCALE_MS)

static void mlx5_pci_bf_safety(void *opaque)
{
    Mlx5Doorbell *db = opaque;

    trace_mlx5_pci_bf_check(db->waiting);
    if (db->waiting) {
        qemu_bh_schedule(db->bh);
    }
}

static void mlx5_pci_bf_check(CPUState *cpu, run_on_cpu_data data)
{
    Mlx5Doorbell *db = data.host_ptr;
    Object *owner = db->owner;
    bool late = db->waiting && DEVICE(owner)->realized;

    db->check_queued = false;
    if (late && db->core && mlx5_core_copy_coming(db->core)) {
        /*
         * A copy under way: the vCPU left its code between two of the copy's
         * stores (QEMU's TCG ends a translation block at each MMIO store), and
         * its last store runs the doorbell. Only if it never comes does the
         * bottom half, after a while; arming the timer only when it is not
         * armed keeps the main loop asleep for the copies that do come.
         */
        if (!db->safety) {
            db->safety = timer_new_ns(QEMU_CLOCK_VIRTUAL, mlx5_pci_bf_safety,
                                      db);
        }
        if (!timer_pending(db->safety)) {
            timer_mod(db->safety, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                                      MLX5_BF_SAFETY_NS);
        }
        late = false;
    }
    trace_mlx5_pci_bf_check(late);
    if (late) {
        /* no copy coming: the bottom half runs the doorbell */
        qemu_bh_schedule(db->bh);
    }
    object_unref(owner);
}

void mlx5_pci_db_cleanup(Mlx5Doorbell *db)
{
    qemu_bh_delete(db->bh);
    db->bh = NULL;
    db->core = NULL;
    if (db->safety) {
        timer_free(db->safety);
        db->safety = NULL;
    }
}

/*
 * A doorbell waits for the BlueFlame copy that may follow it (mlx5_bf.c). The
 * copy's stores come next from the same vCPU, and its last store runs the
 * doorbell. The fallback, for a doorbell without a copy, is checked when that
 * vCPU next leaves its translated code (under TCG right after the doorbell's
 * store, as each MMIO store ends a translation block): a doorbell whose copy
 * is not under way then goes to the bottom half; one whose copy is, waits for
 * it (mlx5_pci_bf_check). Scheduling the bottom half at once would wake the
 * main loop (an eventfd write and a context switch) for every BlueFlame post,
 * only for it to find the work done.
 */
static void mlx5_pci_bf_wait(Mlx5Doorbell *db)
{
    db->waiting = true;
    if (!current_cpu || !db->owner) {
        qemu_bh_schedule(db->bh);       /* (qtest: no vCPU) */
        return;
    }
    if (!db->check_queued) {
        db->check_queued = true;
        object_ref(db->owner);
        async_run_on_cpu(current_cpu, mlx5_pci_bf_check,
                         RUN_ON_CPU_HOST_PTR(db));
    }
}

bool mlx5_pci_bar0_write(Mlx5Doorbell *db, Mlx5Core *c, hwaddr addr,
                         uint64_t val, unsigned size)
{
    bool more;

    /*
     * The initialization segment (command doorbell, reset) stays with the
     * bottom half: a command may take long, a doorbell's WQEs do not.
     */
    if (!db->budget || addr < MLX5_ISEG_SIZE || db->ringing) {
        mlx5_core_mmio_write(c, addr, val, size);
        return false;
    }
    db->ringing = true;
    db->kicked = false;
    db->core = c;
    mlx5_core_mmio_write(c, addr, val, size);
    if (!db->kicked || mlx5_core_doorbell_waits(c)) {
        /* nothing to run, or its BlueFlame copy may follow: not yet */
        db->ringing = false;
        if (db->kicked) {
            mlx5_pci_bf_wait(db);
        }
        return false;
    }
    db->waiting = false;                /* (this run serves it) */
    /*
     * Kicks while the core runs are for work the run does; what is left
     * over (commands among it), the run reports, and the bottom half takes it.
     */
    more = mlx5_core_run_queues(c, db->budget);
    db->ringing = false;
    db->left = more;
    trace_mlx5_pci_doorbell_run(addr, more);
    if (more) {
        qemu_bh_schedule(db->bh);
    }
    return true;
}

/*
 * The device's re-entrancy guard, engaged around the core's work from timers
 * and link-status changes as QEMU engages it around MMIO, network receive and
 * the guarded bottom half. That work may DMA (CQEs, EQEs, retransmitted
 * payload) and send MSI-X messages, and a guest can aim any of them at this
 * device's own BARs (an mkey, a CQ buffer, a vector's address). With the guard
 * engaged QEMU refuses such an access (MEMTX_ACCESS_ERROR: a DMA error for the
 * core, a lost message) instead of running the core again from inside itself.
 */
bool mlx5_pci_guard(void *dev)
{
    MemReentrancyGuard *g = &DEVICE(dev)->mem_reentrancy_guard;
    bool was = g->engaged_in_io;

    g->engaged_in_io = true;
    return was;
}

void mlx5_pci_unguard(void *dev, bool was)
{
    DEVICE(dev)->mem_reentrancy_guard.engaged_in_io = was;
}

static void mlx5_hca_kick(void *opaque)
{
    Mlx5Hca *s = opaque;

    mlx5_pci_kick(&s->db);
}

static void mlx5_hca_link_sent(NetClientState *nc, ssize_t len)
{
    Mlx5Hca *s = qemu_get_nic_opaque(nc);

    timer_del(s->tx_stall);
    s->tx_void = false;
    mlx5_core_link_tx_ready(s->core, 1);
}

/* Is NIC @nc's peer a hub port with no other port on its hub? */
static bool mlx5_hca_link_nowhere(NetClientState *nc)
{
    NetClientState *ncs[64];
    int hub, other, n, i;

    if (!nc->peer || nc->peer->info->type != NET_CLIENT_DRIVER_HUBPORT ||
        net_hub_id_for_client(nc->peer, &hub) < 0) {
        return false;
    }
    n = qemu_find_net_clients_except(NULL, ncs, NET_CLIENT_DRIVER_NIC,
                                     ARRAY_SIZE(ncs));
    for (i = 0; i < MIN(n, (int)ARRAY_SIZE(ncs)); i++) {
        if (ncs[i] != nc->peer &&
            ncs[i]->info->type == NET_CLIENT_DRIVER_HUBPORT &&
            net_hub_id_for_client(ncs[i], &other) == 0 && other == hub) {
            return false;
        }
    }
    return true;
}

/*
 * A frame waited MLX5_TX_STALL_NS for the backend: nothing is taking frames (a
 * hub port with no other port, a frame to a LID nobody has on such a hub). Drop
 * it, as a switch drops what it cannot forward, and go on: the transport
 * recovers what was lost. Without this one frame to nowhere would stop the port
 * for good. On a hub with no other port (a cable to nowhere: one guest alone),
 * until the backend takes a frame again the frames it cannot take at once are
 * dropped at once (tx_void): such a port sends at its own pace, not one frame
 * per MLX5_TX_STALL_NS. A peer that is only slow (a stream socket, a hub with
 * other ports) keeps the frames waiting, as before.
 */
static void mlx5_hca_tx_stall(void *opaque)
{
    Mlx5Hca *s = opaque;
    NetClientState *nc = qemu_get_queue(s->nic);
    bool was;

    trace_mlx5_pci_tx_stall();
    /* calls mlx5_hca_link_sent for the frame */
    qemu_purge_queued_packets(nc);
    s->tx_void = mlx5_hca_link_nowhere(nc);
    was = mlx5_pci_guard(s);
    mlx5_core_link_tx_ready(s->core, 1);
    mlx5_pci_unguard(s, was);
}

/*
 * A frame the backend cannot take now is queued by QEMU's net layer; we then
 * stop sending until it has been delivered (mlx5_hca_link_sent), so nothing is
 * dropped for lack of room.
 */
static bool mlx5_hca_link_tx(void *opaque, unsigned port,
                             const struct iovec *iov, int iovcnt,
                             bool best_effort)
{
    Mlx5Hca *s = opaque;

    NetClientState *nc;

    if (port != 1 || !s->nic) {
        return true;
    }
    nc = qemu_get_queue(s->nic);
    /*
     * An announcement nobody can take now (the machine is stopped, a hub port
     * without other ports, a peer busy this instant) is lost like a broadcast
     * on a cable to nowhere; waiting for it could stall the port for good. Data
     * frames wait: QEMU queues them and calls mlx5_hca_link_sent when they are
     * delivered.
     */
    if ((best_effort || s->tx_void) && !qemu_can_send_packet(nc)) {
        trace_mlx5_pci_tx_drop(iov_size(iov, iovcnt));
        return true;
    }
    s->tx_void = false;
    if (s->db.ringing) {
        s->sent += iov_size(iov, iovcnt);
    }
    if (qemu_sendv_packet_async(nc, iov, iovcnt, mlx5_hca_link_sent) != 0) {
        return true;
    }
    if (!timer_pending(s->tx_stall)) {
        timer_mod(s->tx_stall,
                  qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + MLX5_TX_STALL_NS);
    }
    return false;
}

static void mlx5_hca_set_deadline(void *opaque, int64_t when_ns)
{
    mlx5_pci_deadline(MLX5_HCA(opaque)->timer, when_ns);
}

/*
 * Host configuration problems found at run time (e.g. a LID clash on the
 * fabric).
 */
static void mlx5_hca_report(void *opaque, const char *msg)
{
    warn_report("%s: %s", DEVICE(opaque)->id ? DEVICE(opaque)->id : "mlx5-hca",
                msg);
}

/*
 * The seed recorder (fuzz-record=DIR): each kind's records go to
 * DIR/KIND/PID-N, a new file every MLX5_RECORDS_PER_FILE records; each file is
 * one input of that fuzz target. Written unbuffered, as QEMU may end without
 * unrealizing the device.
 */
#define MLX5_RECORDS_PER_FILE 32

static void mlx5_hca_record(void *opaque, unsigned kind, const void *rec,
                            size_t len)
{
    Mlx5Hca *s = opaque;
    Mlx5HcaRecorder *r = &s->rec[kind];

    if (r->fd >= 0 && r->records >= MLX5_RECORDS_PER_FILE) {
        close(r->fd);
        r->fd = -1;
    }
    if (r->fd < 0) {
        g_autofree char *dir = g_build_filename(s->fuzz_record,
                                                mlx5_record_names[kind], NULL);
        g_autofree char *name = g_strdup_printf("%s/%d-%u", dir, (int)getpid(),
                                                r->files++);

        g_mkdir_with_parents(dir, 0755);
        r->fd = qemu_create(name, O_WRONLY | O_TRUNC, 0644, NULL);
        r->records = 0;
        if (r->fd < 0) {
            return;
        }
    }
    if (qemu_write_full(r->fd, rec, len) == len) {
        r->records++;
    }
}

/*
 * The flash's file (docs/firmware-image.md): a 64-byte header ("MLX5QFLS",
 * format version 1, the image's length, the configuration's length), the
 * firmware image an update wrote, the non-volatile configuration.
 */
#define MLX5_FLASH_MAGIC        "MLX5QFLS"
#define MLX5_FLASH_HDR          64

static void mlx5_hca_flash_write(void *opaque, const void *img, size_t len,
                                 const void *nv, size_t nv_len)
{
    Mlx5Hca *s = opaque;
    g_autofree uint8_t *buf = g_malloc0(MLX5_FLASH_HDR + len + nv_len);
    g_autoptr(GError) err = NULL;

    if (!s->flash) {
        return;                 /* no file: the flash lives as long as QEMU */
    }
    memcpy(buf, MLX5_FLASH_MAGIC, 8);
    stl_be_p(buf + 8, 1);
    stl_be_p(buf + 12, len);
    stl_be_p(buf + 16, nv_len);
    if (len) {
        memcpy(buf + MLX5_FLASH_HDR, img, len);
    }
    if (nv_len) {
        memcpy(buf + MLX5_FLASH_HDR + len, nv, nv_len);
    }
    if (!g_file_set_contents(s->flash, (const char *)buf,
                             MLX5_FLASH_HDR + len + nv_len, &err)) {
        warn_report("mlx5-hca: flash %s: %s", s->flash, err->message);
    }
}

/*
 * Read the flash's file (missing or empty: a blank flash) into @buf: the
 * image (@img_len bytes) at MLX5_FLASH_HDR, the configuration (@nv_len)
 * behind it.
 */
static bool mlx5_hca_flash_read(Mlx5Hca *s, char **buf, uint32_t *img_len,
                                uint32_t *nv_len, Error **errp)
{
    g_autoptr(GError) err = NULL;
    gsize len = 0;

    *img_len = *nv_len = 0;
    if (!s->flash || !g_file_test(s->flash, G_FILE_TEST_EXISTS)) {
        return true;
    }
    if (!g_file_get_contents(s->flash, buf, &len, &err)) {
        error_setg(errp, "mlx5-hca: flash %s: %s", s->flash, err->message);
        return false;
    }
    if (!len) {
        return true;
    }
    if (len < MLX5_FLASH_HDR || memcmp(*buf, MLX5_FLASH_MAGIC, 8) ||
        ldl_be_p(*buf + 8) != 1 ||
        ldl_be_p(*buf + 12) > len - MLX5_FLASH_HDR ||
        ldl_be_p(*buf + 16) != len - MLX5_FLASH_HDR - ldl_be_p(*buf + 12)) {
        error_setg(errp, "mlx5-hca: flash %s: not an mlx5-hca flash file",
                   s->flash);
        return false;
    }
    *img_len = ldl_be_p(*buf + 12);
    *nv_len = ldl_be_p(*buf + 16);
    return true;
}

/*
 * TotalVFs (and InitialVFs) as the flash's configuration says (mstconfig's
 * SRIOV_EN, NUM_OF_VFS; at most num-vfs, the VFs QEMU made), read by the
 * host at enumeration: set at the start and at each reboot.
 */
static void mlx5_hca_sriov_total(Mlx5Hca *s)
{
    PCIDevice *d = PCI_DEVICE(s);
    uint16_t n;

    if (!d->exp.sriov_cap) {
        return;
    }
    n = mlx5_core_sriov_total(s->core);
    pci_set_word(d->config + d->exp.sriov_cap + PCI_SRIOV_TOTAL_VF, n);
    pci_set_word(d->config + d->exp.sriov_cap + PCI_SRIOV_INITIAL_VF, n);
}

/*
 * A reboot changed the port's type (mstconfig's LINK_TYPE_P1): a
 * ConnectX-5 with an Ethernet port is an Ethernet controller, else an
 * InfiniBand one (its VFs too: they follow their PF's port)
 */
void mlx5_pci_port_type(void *opaque, bool eth)
{
    pci_config_set_class(PCI_DEVICE(opaque)->config,
                         eth ? PCI_CLASS_NETWORK_ETHERNET : MLX5_PCI_CLASS_IB);
}

/*
 * The machine's reset (a guest reboot; QEMU's own at start): as PERST# on a
 * server, the adapter's firmware restarts with what is stored (a new image,
 * the non-volatile configuration and the port type), as flint and mstconfig
 * tell their users ("reboot machine to load"). Runs besides the device's own
 * reset (mlx5_hca_reset_hold), which bus and function resets also make.
 */
static void mlx5_hca_reboot(void *opaque)
{
    Mlx5Hca *s = opaque;

    timer_del(s->timer);
    mlx5_core_reboot(s->core);
    mlx5_hca_sriov_total(s);
}

static const Mlx5CoreOps mlx5_hca_core_ops = {
    .dma_read = mlx5_pci_dma_read,
    .dma_write = mlx5_pci_dma_write,
    .irq = mlx5_pci_irq,
    .kick = mlx5_hca_kick,
    .link_tx = mlx5_hca_link_tx,
    .now_ns = mlx5_pci_now_ns,
    .set_deadline = mlx5_hca_set_deadline,
    .report = mlx5_hca_report,
    .flash_write = mlx5_hca_flash_write,
    .port_type = mlx5_pci_port_type,
};

/*
 * Frames QEMU held back while the core was busy go in after its run. Only
 * then: a flush, even of an empty queue, wakes the main loop (it tells it to
 * poll the backend again), which would cost an eventfd write and a context
 * switch for every doorbell the vCPU serves.
 */
static void mlx5_hca_rx_resume(Mlx5Hca *s)
{
    if (s->rx_held && s->nic && mlx5_core_link_can_rx(s->core, 1)) {
        s->rx_held = false;
        qemu_flush_queued_packets(qemu_get_queue(s->nic));
    }
}

static void mlx5_hca_bh(void *opaque)
{
    Mlx5Hca *s = opaque;

    if (mlx5_core_run(s->core, MLX5_RUN_BUDGET)) {
        qemu_bh_schedule(s->db.bh);
    }
    mlx5_hca_rx_resume(s);
}

static void mlx5_hca_timer(void *opaque)
{
    Mlx5Hca *s = opaque;
    bool was = mlx5_pci_guard(s);

    mlx5_core_expire(s->core, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    mlx5_pci_unguard(s, was);
    qemu_bh_schedule(s->db.bh);
}

static uint64_t mlx5_hca_bar0_read(void *opaque, hwaddr addr, unsigned size)
{
    Mlx5Hca *s = opaque;

    return mlx5_core_mmio_read(s->core, addr, size);
}

static void mlx5_hca_bar0_write(void *opaque, hwaddr addr, uint64_t val,
                                unsigned size)
{
    Mlx5Hca *s = opaque;

    s->sent = 0;
    if (mlx5_pci_bar0_write(&s->db, s->core, addr, val, size)) {
        mlx5_hca_rx_resume(s);
        if (s->sent >= MLX5_YIELD_BYTES && !s->db.left) {
            /*
             * The run sent a whole message and finished: the guest will
             * likely spin on its CQ now. Each frame's sendmsg woke the
             * peer's main loop synchronously, so the host's wake-affine rule
             * often put it on this CPU, where it would wait behind this
             * spinning vCPU for the rest of its time slice. Hand the CPU
             * over (docs/benchmarks.md: 64 KiB ib_write_lat median 354 to
             * 179 us). Small messages do not yield: their rate would pay.
             */
            g_thread_yield();
        }
    }
}

static const MemoryRegionOps mlx5_hca_bar0_ops = {
    .read = mlx5_hca_bar0_read,
    .write = mlx5_hca_bar0_write,
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

static bool mlx5_hca_nc_can_receive(NetClientState *nc)
{
    Mlx5Hca *s = qemu_get_nic_opaque(nc);
    bool ok = mlx5_core_link_can_rx(s->core, 1);

    s->rx_held |= !ok;                  /* QEMU queues the frame */
    return ok;
}

static ssize_t mlx5_hca_nc_receive(NetClientState *nc, const uint8_t *buf,
                                   size_t size)
{
    Mlx5Hca *s = qemu_get_nic_opaque(nc);

    if (!mlx5_core_link_rx(s->core, 1, buf, size)) {
        /* QEMU keeps the frame; flushed after the run */
        s->rx_held = true;
        qemu_bh_schedule(s->db.bh);
        return 0;
    }
    return size;
}

static void mlx5_hca_nc_link_status(NetClientState *nc)
{
    Mlx5Hca *s = qemu_get_nic_opaque(nc);
    bool was = mlx5_pci_guard(s);

    mlx5_core_link_set_up(s->core, 1, !nc->link_down);
    mlx5_pci_unguard(s, was);
}

static NetClientInfo mlx5_hca_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = mlx5_hca_nc_can_receive,
    .receive = mlx5_hca_nc_receive,
    .link_status_changed = mlx5_hca_nc_link_status,
};

/*
 * Vendor-specific capability (the "VSC" gateway of ConnectX): the header is
 * QEMU's; the dwords behind it are the core's (mlx5_vsc.c: the gateway, its
 * semaphore, the CR, ICMD and semaphore spaces mstflint's tools and the
 * driver's SW-reset lock use).
 */
#define MLX5_VSC_SIZE           0x18
#define MLX5_VSC_REGS           0x04    /* CTRL .. DATA */

static void mlx5_hca_vsc_init(Mlx5Hca *s, Error **errp)
{
    PCIDevice *d = PCI_DEVICE(s);
    int off = pci_add_capability(d, PCI_CAP_ID_VNDR, 0, MLX5_VSC_SIZE, errp);

    if (off < 0) {
        return;
    }
    s->vsc = off;
    d->config[off + 2] = MLX5_VSC_SIZE;         /* type 0: functional */
}

/* Is [address, +len) a dword of the VSC's registers? */
static bool mlx5_hca_vsc_reg(Mlx5Hca *s, uint32_t address, int len)
{
    return s->vsc && s->core && len == 4 && !(address & 3) &&
           address >= s->vsc + MLX5_VSC_REGS &&
           address < s->vsc + MLX5_VSC_SIZE;
}

static uint32_t mlx5_hca_read_config(PCIDevice *dev, uint32_t address, int len)
{
    Mlx5Hca *s = MLX5_HCA(dev);

    if (mlx5_hca_vsc_reg(s, address, len)) {
        return mlx5_core_vsc_read(s->core, address - s->vsc);
    }
    return pci_default_read_config(dev, address, len);
}

static void mlx5_hca_write_config(PCIDevice *dev, uint32_t address,
                                  uint32_t val, int len)
{
    Mlx5Hca *s = MLX5_HCA(dev);

    if (mlx5_hca_vsc_reg(s, address, len)) {
        /* an ICMD command may run here: the core's guard, as for MMIO */
        bool was = mlx5_pci_guard(s);

        mlx5_core_vsc_write(s->core, address - s->vsc, val);
        mlx5_pci_unguard(s, was);
        return;
    }
    pci_default_write_config(dev, address, val, len);
    pcie_cap_flr_write_config(dev, address, val, len);
}

/*
 * SR-IOV (num-vfs > 0): ARI and the SR-IOV capability with the VFs' device ID
 * and BARs, the VFs at functions 1.. num-vfs (QEMU realizes them all now and
 * enables them with VF Enable); each attaches its core to ours (mlx5_vf.c).
 */
static bool mlx5_hca_sriov_init(Mlx5Hca *s, Error **errp)
{
    PCIDevice *d = PCI_DEVICE(s);

    pcie_ari_init(d, MLX5_PCI_ARI_OFFSET);
    if (!pcie_sriov_pf_init(d, MLX5_PCI_SRIOV_OFFSET, TYPE_MLX5_VF,
                            MLX5_PCI_DEVICE_ID_CX5_VF, s->num_vfs, s->num_vfs,
                            1, 1, errp)) {
        return false;
    }
    pcie_sriov_pf_init_vf_bar(d, 0,
                              PCI_BASE_ADDRESS_SPACE_MEMORY |
                                  PCI_BASE_ADDRESS_MEM_TYPE_64 |
                                  PCI_BASE_ADDRESS_MEM_PREFETCH,
                              MLX5_VF_BAR0_SIZE);
    pcie_sriov_pf_init_vf_bar(d, MLX5_VF_MSIX_BAR,
                              PCI_BASE_ADDRESS_SPACE_MEMORY,
                              MLX5_VF_MSIX_SIZE);
    return true;
}

/* the mlx5-hca whose VF @vf is, or NULL */
static Mlx5Hca *mlx5_hca_pf_of(PCIDevice *vf)
{
    PCIDevice *pf = pcie_sriov_get_pf(vf);

    return pf && object_dynamic_cast(OBJECT(pf), TYPE_MLX5_HCA) ? MLX5_HCA(pf)
                                                                : NULL;
}

Mlx5Core *mlx5_hca_pf_core(PCIDevice *vf)
{
    Mlx5Hca *pf = mlx5_hca_pf_of(vf);

    return pf ? pf->core : NULL;
}

uint32_t mlx5_hca_pf_doorbell_budget(PCIDevice *vf)
{
    Mlx5Hca *pf = mlx5_hca_pf_of(vf);

    return pf ? pf->db.budget : 0;
}

static void mlx5_hca_realize(PCIDevice *pci_dev, Error **errp)
{
    Mlx5Hca *s = MLX5_HCA(pci_dev);
    DeviceState *dev = DEVICE(pci_dev);
    Mlx5CoreConfig cfg;
    g_autofree char *fbuf = NULL;
    uint32_t img_len, nv_len;
    const char *bad;
    unsigned i;

    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    mlx5_core_config_default(&cfg, s->conf.macaddr.a);
    if (s->node_guid) {
        cfg.node_guid = s->node_guid;
        cfg.port_guid = s->node_guid;
        cfg.sys_image_guid = s->node_guid;
    }
    if (s->sys_image_guid) {
        cfg.sys_image_guid = s->sys_image_guid;
    }
    cfg.lmc = s->lmc;
    if (s->lid) {
        cfg.lid = s->lid;
    } else if (s->lmc <= 7) {
        /* the MAC's LID, spaced for 2^lmc LIDs per port */
        cfg.lid <<= s->lmc;
    }
    cfg.sm_lid = s->sm_lid;
    cfg.fault = (IbFaultConfig){ .drop = s->fault_drop,
                                 .dup = s->fault_dup,
                                 .reorder = s->fault_reorder,
                                 .corrupt = s->fault_corrupt,
                                 .ecn = s->fault_ecn,
                                 .delay_us = s->fault_delay,
                                 .seed = s->fault_seed };
    cfg.sm = s->sm;
    cfg.sm_priority = s->sm_priority;
    cfg.log_max_qp = s->log_max_qp;
    cfg.log_max_cq = s->log_max_cq;
    cfg.log_max_mkey = s->log_max_mkey;
    cfg.log_max_uctx = s->log_max_uctx;
    cfg.msix_vectors = s->msix_vectors;
    cfg.num_vfs = s->num_vfs;
    cfg.esw_manager = s->eswitch;
    cfg.memic_size = s->memic_size;
    cfg.cmd_timeout_ms = s->cmd_timeout_ms;
    cfg.odp = s->odp;
    cfg.sw_steering = s->sw_steering;
    if (s->link_type && !strcmp(s->link_type, "eth")) {
        cfg.eth = cfg.eth_default = true;
    } else if (s->link_type && strcmp(s->link_type, "ib")) {
        error_setg(errp, "mlx5-hca: link-type must be ib or eth");
        return;
    }
    /* the flash's configuration (mstconfig's LINK_TYPE_P1) over the default */
    if (!mlx5_hca_flash_read(s, &fbuf, &img_len, &nv_len, errp)) {
        return;
    }
    switch (fbuf ? mlx5_nv_link_type(fbuf + MLX5_FLASH_HDR + img_len, nv_len)
                 : 0) {
    case 1:
        cfg.eth = false;
        break;
    case 2:
        cfg.eth = true;
        break;
    }
    if (s->node_desc) {
        pstrcpy(cfg.node_desc, sizeof(cfg.node_desc), s->node_desc);
    }
    bad = mlx5_core_config_check(&cfg);
    if (bad) {
        error_setg(errp, "mlx5-hca: %s", bad);
        return;
    }

    pci_config_set_vendor_id(pci_dev->config, PCI_VENDOR_ID_MELLANOX);
    pci_config_set_device_id(pci_dev->config, MLX5_PCI_DEVICE_ID_CX5);
    mlx5_pci_port_type(s, cfg.eth);
    pci_dev->config[PCI_INTERRUPT_PIN] = 1;

    if (pcie_endpoint_cap_init(pci_dev, 0x80) < 0) {
        error_setg(errp, "mlx5-hca: failed to add the PCIe capability");
        return;
    }
    /* a ConnectX-5 is a PCIe Gen3 x16 endpoint */
    pcie_cap_fill_link_ep_usp(pci_dev, QEMU_PCI_EXP_LNK_X16,
                              QEMU_PCI_EXP_LNK_8GT);
    pcie_cap_flr_init(pci_dev);
    pcie_cap_deverr_init(pci_dev);
    /*
     * Advanced Error Reporting, as on a card: QEMU's pcie_aer_inject_error
     * reaches mlx5_core's PCI error handlers through it
     */
    if (pcie_aer_init(pci_dev, PCI_ERR_VER, MLX5_PCI_AER_OFFSET, PCI_ERR_SIZEOF,
                      errp) < 0) {
        return;
    }
    mlx5_hca_vsc_init(s, errp);
    if (!s->vsc) {
        pcie_aer_exit(pci_dev);
        return;
    }

    memory_region_init_io(&s->bar0, OBJECT(s), &mlx5_hca_bar0_ops, s,
                          "mlx5-bar0", MLX5_BAR0_SIZE);
    pci_register_bar(pci_dev, 0,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                         PCI_BASE_ADDRESS_MEM_TYPE_64 |
                         PCI_BASE_ADDRESS_MEM_PREFETCH,
                     &s->bar0);
    if (msix_init_exclusive_bar(pci_dev, s->msix_vectors, MLX5_MSIX_BAR,
                                errp)) {
        pcie_aer_exit(pci_dev);
        return;
    }
    for (i = 0; i < s->msix_vectors; i++) {
        msix_vector_use(pci_dev, i);
    }

    s->db.bh = qemu_bh_new_guarded(mlx5_hca_bh, s, &dev->mem_reentrancy_guard);
    s->db.owner = OBJECT(s);
    s->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, mlx5_hca_timer, s);
    s->tx_stall = timer_new_ns(QEMU_CLOCK_VIRTUAL, mlx5_hca_tx_stall, s);
    for (i = 0; i < MLX5_RECORD_KINDS; i++) {
        s->rec[i].fd = -1;
    }
    s->core_ops = mlx5_hca_core_ops;
    if (s->fuzz_record) {
        /* a developer's option: a file per 32 */
        s->core_ops.record = mlx5_hca_record;
    }
    s->core = mlx5_core_new(&cfg, &s->core_ops, s);
    bad = fbuf ? mlx5_core_flash_load(s->core, fbuf + MLX5_FLASH_HDR, img_len,
                                      fbuf + MLX5_FLASH_HDR + img_len, nv_len)
               : NULL;
    if (bad) {
        error_setg(errp, "mlx5-hca: flash %s: %s", s->flash, bad);
    }
    if (bad || (s->num_vfs && !mlx5_hca_sriov_init(s, errp))) {
        mlx5_core_free(s->core);
        s->core = NULL;
        timer_free(s->timer);
        timer_free(s->tx_stall);
        mlx5_pci_db_cleanup(&s->db);
        msix_unuse_all_vectors(pci_dev);
        msix_uninit_exclusive_bar(pci_dev);
        pcie_aer_exit(pci_dev);
        return;
    }
    mlx5_hca_sriov_total(s);
    s->nic = qemu_new_nic(&mlx5_hca_net_info, &s->conf,
                          object_get_typename(OBJECT(s)), dev->id,
                          &dev->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);
    mlx5_core_link_set_up(s->core, 1, !qemu_get_queue(s->nic)->link_down);
    qemu_register_reset(mlx5_hca_reboot, s);
    trace_mlx5_pci_realize(cfg.node_guid, cfg.lid);
}

static void mlx5_hca_exit(PCIDevice *pci_dev)
{
    Mlx5Hca *s = MLX5_HCA(pci_dev);

    qemu_unregister_reset(mlx5_hca_reboot, s);
    pcie_sriov_pf_exit(pci_dev);
    qemu_del_nic(s->nic);
    s->nic = NULL;
    timer_free(s->timer);
    timer_free(s->tx_stall);
    mlx5_pci_db_cleanup(&s->db);
    mlx5_core_free(s->core);
    s->core = NULL;
    for (int i = 0; i < MLX5_RECORD_KINDS; i++) {
        if (s->rec[i].fd >= 0) {
            close(s->rec[i].fd);
            s->rec[i].fd = -1;
        }
    }
    msix_unuse_all_vectors(pci_dev);
    msix_uninit_exclusive_bar(pci_dev);
    pcie_aer_exit(pci_dev);
}

static void mlx5_hca_reset_hold(Object *obj, ResetType type)
{
    Mlx5Hca *s = MLX5_HCA(obj);

    trace_mlx5_pci_reset();
    if (s->core) {
        mlx5_core_vsc_reset(s->core);
        timer_del(s->timer);
        mlx5_core_reset(s->core, MLX5_RESET_SYSTEM);
    }
}

static const VMStateDescription mlx5_hca_vmstate = {
    .name = "mlx5-hca",
    .unmigratable = 1,
};

static const Property mlx5_hca_props[] = {
    DEFINE_NIC_PROPERTIES(Mlx5Hca, conf),
    DEFINE_PROP_UINT64("node-guid", Mlx5Hca, node_guid, 0),
    DEFINE_PROP_UINT64("sys-image-guid", Mlx5Hca, sys_image_guid, 0),
    DEFINE_PROP_UINT32("lid", Mlx5Hca, lid, 0),
    DEFINE_PROP_UINT8("lmc", Mlx5Hca, lmc, 0),
    DEFINE_PROP_UINT32("sm-lid", Mlx5Hca, sm_lid, 0),
    DEFINE_PROP_BOOL("sm", Mlx5Hca, sm, true),
    DEFINE_PROP_UINT8("sm-priority", Mlx5Hca, sm_priority, 0),
    DEFINE_PROP_UINT32("msix-vectors", Mlx5Hca, msix_vectors, 64),
    DEFINE_PROP_UINT16("num-vfs", Mlx5Hca, num_vfs, 8),
    DEFINE_PROP_BOOL("eswitch", Mlx5Hca, eswitch, true),
    DEFINE_PROP_UINT32("memic-size", Mlx5Hca, memic_size, 256 * 1024),
    DEFINE_PROP_UINT32("cmd-timeout-ms", Mlx5Hca, cmd_timeout_ms, 0),
    DEFINE_PROP_BOOL("odp", Mlx5Hca, odp, true),
    DEFINE_PROP_BOOL("sw-steering", Mlx5Hca, sw_steering, true),
    DEFINE_PROP_STRING("link-type", Mlx5Hca, link_type),
    DEFINE_PROP_UINT8("log-max-qp", Mlx5Hca, log_max_qp, 16),
    DEFINE_PROP_UINT8("log-max-cq", Mlx5Hca, log_max_cq, 16),
    DEFINE_PROP_UINT8("log-max-mkey", Mlx5Hca, log_max_mkey, 16),
    DEFINE_PROP_UINT8("log-max-uctx", Mlx5Hca, log_max_uctx, 8),
    DEFINE_PROP_STRING("node-desc", Mlx5Hca, node_desc),
    /* fault injection on the frames the port receives (docs/fabric.md) */
    DEFINE_PROP_UINT8("fault-drop", Mlx5Hca, fault_drop, 0),
    DEFINE_PROP_UINT8("fault-dup", Mlx5Hca, fault_dup, 0),
    DEFINE_PROP_UINT8("fault-reorder", Mlx5Hca, fault_reorder, 0),
    DEFINE_PROP_UINT8("fault-corrupt", Mlx5Hca, fault_corrupt, 0),
    DEFINE_PROP_UINT8("fault-ecn", Mlx5Hca, fault_ecn, 0),
    DEFINE_PROP_UINT32("fault-delay", Mlx5Hca, fault_delay, 0),
    DEFINE_PROP_UINT64("fault-seed", Mlx5Hca, fault_seed, 0),
    DEFINE_PROP_STRING("fuzz-record", Mlx5Hca, fuzz_record),
    DEFINE_PROP_STRING("flash", Mlx5Hca, flash),
    DEFINE_PROP_UINT32("doorbell-budget", Mlx5Hca, db.budget,
                       MLX5_DOORBELL_BUDGET),
};

/* what -device mlx5-hca,help says of each property (docs/user-guide.md) */
static const struct {
    const char *name, *desc;
} mlx5_hca_prop_desc[] = {
    { "link-type", "port type: ib (InfiniBand, default) or eth (Ethernet, "
      "mlx5e and RoCE v2)" },
    { "node-guid", "node, port and system image GUID; 0: the EUI-64 of "
      "mac" },
    { "sys-image-guid", "system image GUID; 0: node-guid" },
    { "lid", "port base LID, 1..0xbfff, a multiple of 2^lmc; 0: from the "
      "low bytes of mac" },
    { "lmc", "LID mask control 0..7: the port answers 2^lmc LIDs" },
    { "sm-lid", "SM LID reported in PortInfo (0: the fabric's elected "
      "master SM)" },
    { "sm", "take part in the fabric's SM election and serve the SA" },
    { "sm-priority", "SM election priority 0..15 (highest wins)" },
    { "msix-vectors", "MSI-X table size, 2..2048" },
    { "num-vfs", "SR-IOV virtual functions (PCI TotalVFs, 0..64; 0: no "
      "SR-IOV capability)" },
    { "eswitch", "the PF is the E-Switch manager (Ethernet port with VFs): "
      "mlx5_core's legacy FDB switches the functions' frames" },
    { "memic-size", "device memory (MEMIC) in bytes, a multiple of 4 KiB "
      "up to 1 MiB; 0 = none" },
    { "odp", "on-demand paging (page faults on MTT entries)" },
    { "sw-steering", "software steering on an Ethernet port (mlx5dv_dr: "
      "steering ICM, software-owned NIC tables, STE format v0)" },
    { "cmd-timeout-ms", "command timeout the device tells the driver, in "
      "ms (0: none, the driver's 60 s)" },
    { "log-max-qp", "log2 of the QP table size (caps and limit)" },
    { "log-max-cq", "log2 of the CQ table size (caps and limit)" },
    { "log-max-mkey", "log2 of the memory key table size (caps and limit)" },
    { "log-max-uctx", "log2 of the DevX user context table size" },
    { "node-desc", "NodeDescription string (default: qemu-mlx5 HCA-1)" },
    { "fault-drop", "percent of received frames dropped (testing)" },
    { "fault-dup", "percent of received frames duplicated (testing)" },
    { "fault-reorder", "percent of received frames held back behind the "
      "next one (testing)" },
    { "fault-corrupt", "percent of received frames corrupted, so dropped "
      "for their ICRC (testing)" },
    { "fault-ecn", "percent of received ECN-capable RoCE frames marked "
      "Congestion Experienced (testing)" },
    { "fault-delay", "microseconds every received frame is delayed" },
    { "fault-seed", "seed of the fault injection's generator" },
    { "flash", "file holding the flash: the firmware image and the "
      "non-volatile configuration (default: none, the process's)" },
    { "fuzz-record", "directory to record guest inputs to, in the fuzz "
      "targets' formats (slows the device)" },
    { "doorbell-budget", "WQEs a queue's doorbell runs in the vCPU that "
      "rang it, the rest in the main loop (0: all in the main loop)" },
};

/*
 * Fault injection at run time (docs/user-guide.md): qom-set on "inject" carries
 * out one request; reading it lists what is armed.
 */
static char *mlx5_hca_get_inject(Object *obj, Error **errp)
{
    Mlx5Hca *s = MLX5_HCA(obj);

    return s->core ? mlx5_core_inject_state(s->core) : g_strdup("");
}

static void mlx5_hca_set_inject(Object *obj, const char *value, Error **errp)
{
    Mlx5Hca *s = MLX5_HCA(obj);
    g_autofree char *err = NULL;

    if (!s->core) {
        error_setg(errp, "mlx5-hca: inject needs a realized device");
        return;
    }
    err = mlx5_core_inject(s->core, value);
    if (err) {
        error_setg(errp, "mlx5-hca inject: %s", err);
    }
}

static void mlx5_hca_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(oc);
    ResettableClass *rc = RESETTABLE_CLASS(oc);

    pc->realize = mlx5_hca_realize;
    pc->exit = mlx5_hca_exit;
    pc->config_write = mlx5_hca_write_config;
    pc->config_read = mlx5_hca_read_config;
    pc->vendor_id = PCI_VENDOR_ID_MELLANOX;
    pc->device_id = MLX5_PCI_DEVICE_ID_CX5;
    pc->class_id = MLX5_PCI_CLASS_IB;
    pc->revision = 0;
    rc->phases.hold = mlx5_hca_reset_hold;
    dc->desc = "NVIDIA/Mellanox ConnectX-5 (mlx5) InfiniBand HCA";
    dc->vmsd = &mlx5_hca_vmstate;
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
    device_class_set_props(dc, mlx5_hca_props);
    object_class_property_add_str(oc, "inject", mlx5_hca_get_inject,
                                  mlx5_hca_set_inject);
    object_class_property_set_description(oc, "inject",
        "fault injection request, set at run time with qom-set "
        "(docs/user-guide.md); reads back what is armed");
    for (size_t i = 0; i < ARRAY_SIZE(mlx5_hca_prop_desc); i++) {
        object_class_property_set_description(oc, mlx5_hca_prop_desc[i].name,
                                              mlx5_hca_prop_desc[i].desc);
    }
}

static const TypeInfo mlx5_hca_types[] = {
    {
        .name = TYPE_MLX5_HCA,
        .parent = TYPE_PCI_DEVICE,
        .instance_size = sizeof(Mlx5Hca),
        .class_init = mlx5_hca_class_init,
        .interfaces = (InterfaceInfo[]) {
            { INTERFACE_PCIE_DEVICE },
            { },
        },
    },
};

DEFINE_TYPES(mlx5_hca_types)
