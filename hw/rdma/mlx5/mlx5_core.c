/*
 * mlx5 HCA core: lifetime, BAR0 (initialization segment and UAR doorbells),
 * work loop.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "eth/mlx5_eth.h"
#include "trace.h"

int mlx5_dma_read(Mlx5Core *c, uint64_t pa, void *buf, size_t len)
{
    int r = c->ops->dma_read(c->opaque, pa, buf, len);

    if (r) {
        trace_mlx5_err_dma(pa, len, 0);
    }
    return r;
}

int mlx5_dma_write(Mlx5Core *c, uint64_t pa, const void *buf, size_t len)
{
    int r = c->ops->dma_write(c->opaque, pa, buf, len);

    if (r) {
        trace_mlx5_err_dma(pa, len, 1);
    }
    return r;
}

/*
 * Device-fatal error found by the device itself (a DMA fault on the command
 * queue, an EQ overrun): a fatal health syndrome, as firmware asserts do.
 * The driver's health poll sees it, enters the error state and recovers with
 * a firmware reset (mlx5_inject.c).
 */
void mlx5_health_fatal(Mlx5Core *c, uint8_t synd)
{
    if (!c->health_fatal) {
        trace_mlx5_err_health(synd);
    }
    mlx5_health_raise(c, synd ? synd : 1, 0, true);
}

void mlx5_core_config_default(Mlx5CoreConfig *cfg, const uint8_t mac[6])
{
    uint64_t guid = 0;
    unsigned i;

    memset(cfg, 0, sizeof(*cfg));
    cfg->pci_device_id = MLX5_PCI_DEVICE_ID_CX5;
    cfg->fw_major = 16;
    cfg->fw_minor = 35;
    cfg->fw_subminor = 2000;
    /* EUI-64 from the MAC, as a vendor derives GUIDs from its OUI */
    {
        uint8_t e[8] = {
            mac[0] ^ 0x02, mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4], mac[5]
        };
        for (i = 0; i < 8; i++) {
            guid = (guid << 8) | e[i];
        }
    }
    cfg->node_guid = guid;
    memcpy(cfg->mac, mac, 6);
    cfg->port_guid = guid;
    cfg->sys_image_guid = guid;
    cfg->lid = ((mac[4] << 8) | mac[5]) & 0xbfff;
    if (cfg->lid == 0) {
        cfg->lid = 1;
    }
    cfg->sm_lid = 0;
    cfg->sm = true;
    cfg->sm_priority = 0;
    cfg->log_max_qp = 16;
    cfg->log_max_cq = 16;
    cfg->log_max_srq = 16;
    cfg->log_max_mkey = 16;
    cfg->log_max_pd = 16;
    cfg->log_max_xrcd = 16;
    cfg->log_max_uctx = 8;
    cfg->log_max_eq = 6;
    cfg->log_max_qp_sz = 15;
    cfg->log_max_srq_sz = 15;
    cfg->log_max_cq_sz = 22;
    cfg->log_max_eq_sz = 22;
    cfg->log_max_msg = 30;
    cfg->max_uar = MLX5_MEMIC_BAR_OFF / 4096 - MLX5_FIRST_UAR;
    cfg->memic_size = 256 * 1024;           /* a ConnectX-5's 256 KiB */
    cfg->odp = true;
    /* (on an Ethernet port: a ConnectX-5's software steering, STE v0) */
    cfg->sw_steering = true;
    cfg->msix_vectors = 64;
    snprintf(cfg->node_desc, sizeof(cfg->node_desc), "qemu-mlx5 HCA-1");
    snprintf(cfg->board_id, sizeof(cfg->board_id), "MT_0000000008");
}

const char *mlx5_core_config_check(const Mlx5CoreConfig *cfg)
{
    if (cfg->log_max_qp < 4 || cfg->log_max_qp > 18) {
        return "log-max-qp must be in 4..18";
    }
    if ((uint64_t)(cfg->num_vfs + 1) << cfg->log_max_qp > 0xffffff) {
        /* each function its own QPN range, all below the multicast QPN */
        return "(num-vfs + 1) << log-max-qp must stay below 0xffffff";
    }
    if (cfg->log_max_cq < 4 || cfg->log_max_cq > 20) {
        return "log-max-cq must be in 4..20";
    }
    if (cfg->log_max_mkey < 4 || cfg->log_max_mkey > 20) {
        return "log-max-mkey must be in 4..20";
    }
    if (cfg->log_max_uctx > 15) {
        /* uid 0xffff means "shared" */
        return "log-max-uctx must be in 0..15";
    }
    if (cfg->msix_vectors < 2 || cfg->msix_vectors > 2048) {
        return "msix-vectors must be in 2..2048";
    }
    if (cfg->lmc > 7) {
        return "lmc must be in 0..7";
    }
    if (cfg->lid == 0 || cfg->lid + (1u << cfg->lmc) - 1 >= 0xc000) {
        return "lid must be a unicast LID (1..0xbfff), with its 2^lmc LIDs "
               "below 0xc000";
    }
    if (cfg->lid & ((1u << cfg->lmc) - 1)) {
        return "lid must be a multiple of 2^lmc";
    }
    if (cfg->sm_lid >= 0xc000) {
        return "sm-lid must be 0 or a unicast LID";
    }
    if (cfg->fault.drop > 100 || cfg->fault.dup > 100 ||
        cfg->fault.reorder > 100 || cfg->fault.corrupt > 100 ||
        cfg->fault.ecn > 100) {
        return "fault-drop, fault-dup, fault-reorder, fault-corrupt and "
               "fault-ecn are percentages (0..100)";
    }
    if (cfg->fault.delay_us > 10000000) {
        return "fault-delay must be at most 10000000 microseconds";
    }
    if (cfg->sm_priority > 15) {
        return "sm-priority must be in 0..15";
    }
    if (cfg->node_guid == 0) {
        return "node-guid must not be 0";
    }
    if (cfg->max_uar == 0 ||
        cfg->max_uar > MLX5_MEMIC_BAR_OFF / 4096 - MLX5_FIRST_UAR) {
        return "too many UARs for BAR0";
    }
    if (cfg->cmd_timeout_ms > MLX5_CMD_TIMEOUT_MAX) {
        return "cmd-timeout-ms must be at most 1048575";
    }
    if (cfg->num_vfs > MLX5_MAX_VFS) {
        return "num-vfs must be at most 64";
    }
    if (cfg->memic_size > MLX5_MEMIC_MAX || cfg->memic_size % 4096) {
        return "memic-size must be a multiple of 4 KiB, at most 1 MiB";
    }
    return NULL;
}

Mlx5Core *mlx5_core_new(const Mlx5CoreConfig *cfg, const Mlx5CoreOps *ops,
                        void *opaque)
{
    Mlx5Core *c = g_new0(Mlx5Core, 1);

    c->cfg = *cfg;
    c->ops = ops;
    c->opaque = opaque;
    c->start_ns = ops->now_ns(opaque);
    c->fw_date = (Mlx5FwDate){ .year = 2022, .month = 12, .day = 20 };
    mlx5_nv_reset(c);
    mlx5_table_init(&c->eqs, "eq", 1u << cfg->log_max_eq, 0);
    mlx5_table_init(&c->cqs, "cq", 1u << cfg->log_max_cq, 1);
    mlx5_table_init(&c->pds, "pd", 1u << cfg->log_max_pd, 1);
    mlx5_table_init(&c->uars, "uar", MLX5_FIRST_UAR + cfg->max_uar,
                    MLX5_FIRST_UAR);
    mlx5_table_init(&c->xrcds, "xrcd", 1u << cfg->log_max_xrcd, 1);
    /* uid 0 is the kernel's: DevX uids start at 1 */
    mlx5_table_init(&c->uctxs, "uctx",
                    cfg->log_max_uctx ? 1u << cfg->log_max_uctx : 1, 1);
    mlx5_table_init(&c->umems, "umem", 1u << 16, 1);
    mlx5_table_init(&c->tds, "td", 1u << 16, 1);
    /*
     * mkey index 0 and 1 are reserved (0x100 is the terminate-scatter-list
     * lkey)
     */
    mlx5_table_init(&c->mkeys, "mkey", 1u << cfg->log_max_mkey, 0x10);
    mlx5_table_init(&c->srqs, "srq", 1u << cfg->log_max_srq, 1);
    mlx5_table_init(&c->psvs, "psv", 1u << 16, 1);
    /* QPN 0/1 are the wire QP0/QP1; ordinary QPs start above them */
    mlx5_table_init(&c->qps, "qp", 1u << cfg->log_max_qp, 2);
    if (cfg->vf) {
        /*
         * QPNs (and RQ, SQ, DCT numbers) unique on the port the functions
         * share: function f's from f << log_max_qp (a frame without GRH finds
         * its function by its destination QP)
         */
        mlx5_table_set_base(&c->qps, cfg->vhca_id << cfg->log_max_qp);
    }
    c->work = g_new0(uint32_t, c->qps.size);
    c->comp_pending = g_array_new(false, false, sizeof(uint32_t));
    ib_port_init(&c->ib, &mlx5_ib_ops, c);
    c->ib.guid = cfg->port_guid;
    c->ib.node.node_guid = cfg->node_guid;
    c->ib.node.sys_guid = cfg->sys_image_guid;
    c->ib.node.device_id = cfg->pci_device_id;
    c->ib.node.vendor_id = MLX5_IEEE_VENDOR_ID;
    c->ib.node.revision = cfg->pci_revision;
    memcpy(c->ib.node.desc, cfg->node_desc, sizeof(c->ib.node.desc));
    c->ib.sm_enabled = cfg->sm;
    c->ib.sm_priority = cfg->sm_priority;
    ib_fault_configure(&c->ib, &cfg->fault);
    mlx5_memic_init(c);
    mlx5_sw_icm_init(c);
    mlx5_sriov_init(c);
    if (cfg->eth) {
        mlx5_eth_init(c);
    }
    mlx5_core_reset(c, MLX5_RESET_SYSTEM);
    return c;
}

void mlx5_core_free(Mlx5Core *c)
{
    if (!c) {
        return;
    }
    mlx5_sriov_free(c);
    mlx5_res_teardown(c);
    if (c->eth) {
        mlx5_eth_free(c);
    }
    mlx5_memic_free(c);
    mlx5_sw_icm_free(c);
    mlx5_flash_free(c);
    ib_port_cleanup(&c->ib);
    g_free(c->work);
    g_array_free(c->comp_pending, true);
    g_free(c);
}

void mlx5_function_reset(Mlx5Core *c)
{
    mlx5_res_reset(c);
    mlx5_memic_reset(c);
    mlx5_sw_icm_reset(c);
    mlx5_bf_reset(c);
    g_array_set_size(c->comp_pending, 0);
    mlx5_esw_flush(c);
    c->nwork = c->work_head = 0;
    c->ib.lb_count = 0;
    c->ib.tx_blocked = false;
    c->ib_deadline = c->poll_deadline = c->port_deadline = INT64_MAX;
    c->lro_deadline = INT64_MAX;
    c->pp_deadline = INT64_MAX;
    c->esw_rdma_held = false;           /* (with ib.tx_blocked) */
    c->hca_enabled = false;
    c->hca_initialized = false;
    c->issi = 0;
    c->pages_given = 0;
    c->host_endianness_set = false;
    if (!c->cfg.vf) {
        c->vport_arm = 0;       /* (a VF's is its manager's to drop) */
    }
    mlx5_caps_reset(c);
    mlx5_port_reset(c);
    mlx5_q_counter_reset(c);
    /*
     * QP timers are gone with the QPs; the port's own (announcements) survive
     */
    ib_port_update_deadline(&c->ib);
}

/*
 * The port's type changes at a reboot (the stored LINK_TYPE_P1): the
 * Ethernet port's state comes or goes, the capabilities follow, and the
 * shell's class code with them. The function has just been reset.
 */
void mlx5_core_set_port_type(Mlx5Core *c, bool eth)
{
    if (eth == (c->eth != NULL)) {
        return;
    }
    trace_mlx5_core_port_type(eth);
    if (c->eth) {
        mlx5_eth_free(c);
    } else {
        mlx5_eth_init(c);
    }
    c->cfg.eth = eth;
    mlx5_function_reset(c);
    if (c->ops->port_type) {
        c->ops->port_type(c->opaque, eth);
    }
    /* the VFs' ports are the PF's */
    for (unsigned i = 0; i < c->cfg.num_vfs; i++) {
        if (c->vfs[i]) {
            mlx5_core_set_port_type(c->vfs[i], eth);
        }
    }
    mlx5_sriov_pf_link(c);
}

void mlx5_core_reboot(Mlx5Core *c)
{
    trace_mlx5_core_reboot();
    mlx5_core_reset(c, MLX5_RESET_SYSTEM);
    mlx5_flash_boot(c, true);
}

void mlx5_core_reset(Mlx5Core *c, Mlx5ResetKind kind)
{
    trace_mlx5_core_reset(kind);
    mlx5_function_reset(c);
    if (kind == MLX5_RESET_SYSTEM) {
        c->cmdq_addr_h = 0;
        c->cmdq_addr_l = 0;
        c->db_pending = 0;
        c->nic_interface = MLX5_NIC_IFC_FULL;
        c->health_fatal = false;
        c->health_synd = 0;
        c->health_ext_synd = 0;
        c->health_rfr_sev = 0;
        /* held-back commands are gone with the command interface */
        c->cmd_late = c->cmd_late_run = 0;
        c->cmd_late_deadline = INT64_MAX;
        c->start_ns = c->ops->now_ns(c->opaque);
        mlx5_flash_reset(c);
        mlx5_fw_reset_pci(c);
        mlx5_cong_reset(c);
        mlx5_sriov_pf_reset(c);
    }
}

static uint32_t mlx5_health_counter(Mlx5Core *c)
{
    int64_t ms = (c->ops->now_ns(c->opaque) - c->start_ns) / 1000000;

    /* ticks every 100 ms of virtual time; never 0 or all-ones */
    return (uint32_t)(ms / 100) % 0xfffffff0u + 1;
}

static uint32_t mlx5_iseg_read32(Mlx5Core *c, uint64_t off)
{
    uint64_t now;

    switch (off) {
    case MLX5_ISEG_FW_REV:
        return ((uint32_t)c->cfg.fw_minor << 16) | c->cfg.fw_major;
    case MLX5_ISEG_CMDIF_REV_FW_SUB:
        return (MLX5_CMD_IF_REV << 16) | c->cfg.fw_subminor;
    case MLX5_ISEG_CMDQ_ADDR_H:
        return c->cmdq_addr_h;
    case MLX5_ISEG_CMDQ_ADDR_L_SZ:
        return (c->cmdq_addr_l & 0xfffff000u) |
               ((uint32_t)c->nic_interface << 8) | (MLX5_LOG_CMDQ_SIZE << 4) |
               MLX5_LOG_CMDQ_STRIDE;
    case MLX5_ISEG_CMD_DBELL:
        return 0;
    case MLX5_ISEG_INITIALIZING:
        /*
         * initialized (a VF: once its PF enabled it); a firmware reset may be
         * asked for (mlx5_inject.c)
         */
        return (mlx5_sriov_initializing(c) ? 1u << 31 : 0) |
               1u << MLX5_ISEG_FW_RESET_SUPPORTED;
    case MLX5_ISEG_HEALTH_FW_VER:
        return ((uint32_t)c->cfg.fw_major << 24) |
               ((uint32_t)c->cfg.fw_minor << 16) | c->cfg.fw_subminor;
    case MLX5_ISEG_HEALTH_HW_ID:
        return c->cfg.pci_device_id;
    case MLX5_ISEG_HEALTH_RFR_SEVERITY:
        /* rfr_severity byte 0x238 (bit7 RFR), irisc_index 0x23c, synd 0x23d */
        return (uint32_t)c->health_rfr_sev << 24;
    case MLX5_ISEG_HEALTH_RFR_SEVERITY + 4:
        return (uint32_t)c->health_synd << 16 | c->health_ext_synd;
    case MLX5_ISEG_CMD_EXEC_TO:
        /* milliseconds (multiplier 0); offered with the init timeout */
        return c->cfg.cmd_timeout_ms;
    case MLX5_ISEG_CMD_Q_INIT_TO:
        return c->cfg.cmd_timeout_ms ? MLX5_FW_INIT_TIMEOUT_MS : 0;
    case MLX5_ISEG_INTERNAL_TIMER_H:
        now = c->ops->now_ns(c->opaque);
        return now >> 32;
    case MLX5_ISEG_INTERNAL_TIMER_L:
        now = c->ops->now_ns(c->opaque);
        return (uint32_t)now;
    case MLX5_ISEG_HEALTH_COUNTER:
        return mlx5_health_counter(c);
    default:
        return 0;
    }
}

static void mlx5_iseg_write32(Mlx5Core *c, uint64_t off, uint32_t val)
{
    switch (off) {
    case MLX5_ISEG_CMDQ_ADDR_H:
        c->cmdq_addr_h = val;
        break;
    case MLX5_ISEG_CMDQ_ADDR_L_SZ:
        c->cmdq_addr_l = val & 0xfffff000u;
        /*
         * the NIC interface field: the driver's mode (full, or disabled after
         * a fast teardown), or its request for a firmware reset
         */
        if (((val >> 8) & 7) == MLX5_NIC_IFC_DISABLED &&
            c->nic_interface == MLX5_NIC_IFC_FULL) {
            /* the fast teardown: the objects and the HCA are gone at once */
            trace_mlx5_fast_teardown();
            if (mlx5_fw_reset_teardown(c)) {
                break;
            }
            mlx5_res_reset(c);
            c->hca_initialized = false;
        }
        c->nic_interface = (val >> 8) & 7;
        if (c->nic_interface == MLX5_NIC_IFC_SW_RESET) {
            mlx5_fw_sw_reset(c);
        }
        break;
    case MLX5_ISEG_CMD_DBELL:
        trace_mlx5_cmd_doorbell(val);
        if (c->health_fatal) {
            break;
        }
        c->db_pending |= val;
        c->ops->kick(c->opaque);
        break;
    default:
        trace_mlx5_ub_iseg_write(off, val);
        break;
    }
}

/*
 * Size-generic access to the (big-endian) init segment built from aligned
 * dwords.
 */
static uint64_t mlx5_iseg_read(Mlx5Core *c, uint64_t off, unsigned size)
{
    uint64_t dw_off = off & ~3ull;
    uint64_t v;

    if (size == 8) {
        return ((uint64_t)mlx5_iseg_read32(c, dw_off) << 32) |
               mlx5_iseg_read32(c, dw_off + 4);
    }
    v = mlx5_iseg_read32(c, dw_off);
    /* byte b of a big-endian dword is bits [31-8b : 24-8b] */
    return (v >> (8 * (4 - size - (off & 3)))) & ((1ull << (8 * size)) - 1);
}

static uint32_t mlx5_uar_index(Mlx5Core *c, uint64_t off, uint64_t *page_off)
{
    unsigned shift = 12 + MLX5_GET(c->cap_general_cur, CAP_log_uar_page_sz);

    *page_off = off & ((1ull << shift) - 1);
    return off >> shift;
}

static void mlx5_uar_write(Mlx5Core *c, uint64_t off, uint64_t val,
                           unsigned size)
{
    uint64_t po;
    uint32_t uar = mlx5_uar_index(c, off, &po);

    if (!mlx5_table_get(&c->uars, uar)) {
        trace_mlx5_ub_uar_write(uar, po, val);
        return;
    }
    if (po == MLX5_UAR_CQ_DB && size == 8) {
        mlx5_cq_doorbell(c, val >> 32, val & 0xffffff);
    } else if (po == MLX5_UAR_CQ_DB && size == 4) {
        c->cq_db_hi_latch = val;
    } else if (po == MLX5_UAR_CQ_DB + 4 && size == 4) {
        mlx5_cq_doorbell(c, c->cq_db_hi_latch, val & 0xffffff);
    } else if ((po == MLX5_UAR_EQ_DB_ARM || po == MLX5_UAR_EQ_DB_NOARM) &&
               size == 4) {
        mlx5_eq_doorbell(c, val, po == MLX5_UAR_EQ_DB_ARM);
    } else if (po >= MLX5_UAR_BF_BASE) {
        mlx5_bf_write(c, uar, po, val, size);
    } else {
        trace_mlx5_ub_uar_write(uar, po, val);
    }
}

uint64_t mlx5_core_mmio_read(Mlx5Core *c, uint64_t off, unsigned size)
{
    uint64_t v = 0;

    if (off < MLX5_ISEG_SIZE) {
        v = mlx5_iseg_read(c, off, size);
    } else if (mlx5_memic_mmio_read(c, off, size, &v)) {
        return v;
    }
    trace_mlx5_mmio_read(off, size, v);
    return v;
}

void mlx5_core_mmio_write(Mlx5Core *c, uint64_t off, uint64_t val,
                          unsigned size)
{
    mlx5_record_mmio(c, off, val, size);
    c->db_wait_copy = false;            /* (this write's, if it rings) */
    if (mlx5_memic_mmio_write(c, off, val, size)) {
        /* device memory: not traced, libmlx5 copies 4 bytes at a time */
        return;
    }
    trace_mlx5_mmio_write(off, size, val);
    if (off < MLX5_ISEG_SIZE) {
        if (size == 4 && !(off & 3)) {
            mlx5_iseg_write32(c, off, val);
        } else if (size == 8 && !(off & 7)) {
            mlx5_iseg_write32(c, off, val >> 32);
            mlx5_iseg_write32(c, off + 4, (uint32_t)val);
        } else {
            trace_mlx5_ub_iseg_write(off, val);
        }
        return;
    }
    if (off < MLX5_BAR0_SIZE) {
        mlx5_uar_write(c, off, val, size);
    }
}

bool mlx5_core_doorbell_waits(Mlx5Core *c)
{
    bool w = c->db_wait_copy;

    c->db_wait_copy = false;
    return w;
}

bool mlx5_core_run_queues(Mlx5Core *c, unsigned budget)
{
    bool more;

    if (c->health_fatal) {
        return false;
    }
    c->busy++;
    more = mlx5_esw_rx_run(c);
    more |= mlx5_exec_run(c, budget);
    /* what the last burst of frames completed, compressed */
    mlx5_cqe_comp_flush_all(c);
    c->busy--;
    return more || c->db_pending;
}

bool mlx5_core_run(Mlx5Core *c, unsigned budget)
{
    if (c->health_fatal) {
        return false;
    }
    c->busy++;
    mlx5_cmdq_process(c);
    c->busy--;
    return mlx5_core_run_queues(c, budget);
}

void mlx5_core_expire(Mlx5Core *c, int64_t now_ns)
{
    trace_mlx5_core_expire(now_ns);
    c->busy++;
    mlx5_exec_expire(c, now_ns);
    c->busy--;
}

bool mlx5_core_link_can_rx(Mlx5Core *c, unsigned port)
{
    return !c->busy;
}

bool mlx5_core_link_rx(Mlx5Core *c, unsigned port, const uint8_t *frame,
                       size_t len)
{
    if (c->busy) {
        return false;
    }
    trace_mlx5_link_rx(port, len);
    mlx5_record_frame(c, frame, len);
    /*
     * the port is on the fabric whether or not a driver runs (address
     * announcements)
     */
    if (port == 1 && !c->health_fatal) {
        c->busy++;
        if (c->eth && mlx5_esw_uplink_rx(c, frame, len)) {
            /* a VF's: switched to it */
        } else if (c->eth) {
            Mlx5SwMeta m = { .src = MLX5_VPORT_UPLINK };

            mlx5_eth_rx(c, frame, len, &m);
        } else {
            ib_port_link_rx(&c->ib, frame, len, NULL);
        }
        c->busy--;
        if (c->nwork) {
            c->ops->kick(c->opaque);
        }
    }
    return true;
}

void mlx5_core_link_tx_ready(Mlx5Core *c, unsigned port)
{
    if (port == 1 && c->eth) {
        mlx5_eth_tx_ready(c);
        ib_port_tx_ready(&c->ib);       /* RoCE shares the link */
        mlx5_esw_tx_ready(c);           /* and so do the VFs */
    } else if (port == 1) {
        ib_port_tx_ready(&c->ib);
        mlx5_ib_vport_tx_ready(c);      /* the VFs share the link */
    }
}

void mlx5_core_link_set_up(Mlx5Core *c, unsigned port, bool up)
{
    if (port == 1) {
        c->link_cable = up;
        mlx5_port_set_link(c, mlx5_link_wanted(c));
        mlx5_sriov_pf_link(c);
    }
}
