/*
 * mlx5 HCA core: HCA capability pages, generated from Mlx5CoreConfig.
 *
 * The caps reported here are the limits the object tables enforce: both come
 * from the same Mlx5CoreConfig. See docs/prm-subset.md for why each value is
 * what it is.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "eth/mlx5_eth.h"

static void mlx5_caps_general(const Mlx5CoreConfig *cfg, uint8_t *cap)
{
    MLX5_SET(cap, CAP_log_max_srq_sz, cfg->log_max_srq_sz);
    MLX5_SET(cap, CAP_log_max_qp_sz, cfg->log_max_qp_sz);
    MLX5_SET(cap, CAP_log_max_qp, cfg->log_max_qp);
    MLX5_SET(cap, CAP_log_max_srq, cfg->log_max_srq);
    MLX5_SET(cap, CAP_log_max_cq_sz, cfg->log_max_cq_sz);
    MLX5_SET(cap, CAP_log_max_cq, cfg->log_max_cq);
    MLX5_SET(cap, CAP_log_max_eq_sz, cfg->log_max_eq_sz);
    MLX5_SET(cap, CAP_log_max_mkey, cfg->log_max_mkey);
    MLX5_SET(cap, CAP_log_max_eq, cfg->log_max_eq);
    MLX5_SET(cap, CAP_max_indirection, MLX5_MAX_INDIRECTION);
    MLX5_SET(cap, CAP_log_max_mrw_sz, 64);
    MLX5_SET(cap, CAP_log_max_klm_list_size, 16);
    MLX5_SET(cap, CAP_log_max_ra_req_qp, 4);
    MLX5_SET(cap, CAP_log_max_ra_res_qp, 4);
    /* DC (ib_dc.c, mlx5_dct.c): DCIs are QPs; DCTs share their number space */
    MLX5_SET(cap, CAP_dct, 1);
    MLX5_SET(cap, CAP_log_max_ra_req_dc, 4);
    MLX5_SET(cap, CAP_log_max_ra_res_dc, 4);
    MLX5_SET(cap, CAP_max_wqe_sz_sq_dc, 1024);
    /* 128 entries (encoding 0) */
    MLX5_SET(cap, CAP_pkey_table_size, 0);
    /*
     * a PF reads its port through MAD_IFC; a VF's InfiniBand port is an HCA
     * vport of its PF's (mlx5_vport_ib.c)
     */
    MLX5_SET(cap, CAP_ib_virt, cfg->vf && !cfg->eth);
    MLX5_SET(cap, CAP_local_ca_ack_delay, 16);
    MLX5_SET(cap, CAP_port_type, 0);                /* InfiniBand */
    MLX5_SET(cap, CAP_vhca_id, cfg->vhca_id);
    /*
     * a PF manages its VFs' vports (mlx5_sriov.c): on an Ethernet port their
     * NIC vport contexts (mlx5_core's vport manager: the VFs' MACs and GUIDs,
     * `ip link show`'s VF list, their counters), on both their HCA vport
     * contexts (GUIDs, state policy), as on a ConnectX-5
     */
    MLX5_SET(cap, CAP_vport_group_manager, !cfg->vf);
    MLX5_SET(cap, CAP_num_ports, 1);
    MLX5_SET(cap, CAP_log_max_msg, cfg->log_max_msg);
    MLX5_SET(cap, CAP_cqe_version, 1);
    /*
     * UMR (mlx5_umr.c) may change every mkey field the drivers use, so the
     * kernel's MR cache, rereg and fast registration run through it. With
     * umr_extended_translation_offset (a UMR's translation offset has 48 bits)
     * mlx5_ib loads MRs of 2^16 pages or more through UMR too, into a free mkey
     * created with their size: CREATE_MKEY and UMR both keep a translation
     * table within MLX5_MAX_PAS entries. With it, null_mkey (QUERY_SPECIAL_
     * CONTEXTS) and fixed_buffer_size, mlx5_ib offers implicit ODP
     * (mlx5_odp.c), as on a ConnectX-5.
     */
    MLX5_SET(cap, CAP_umr_extended_translation_offset, 1);
    MLX5_SET(cap, CAP_null_mkey, 1);
    MLX5_SET(cap, CAP_fixed_buffer_size, 1);
    MLX5_SET(cap, CAP_umr_modify_entity_size_disabled, 0);
    MLX5_SET(cap, CAP_umr_modify_atomic_disabled, 0);
    MLX5_SET(cap, CAP_umr_indirect_mkey_disabled, 0);
    MLX5_SET(cap, CAP_atomic, 1);
    /*
     * Signature offload (mlx5_sig.c): block T10-DIF and CRC32 on signature
     * mkeys, the SIG_ERR CQE with domain and type, and signature pipelining
     * (drain_sigerr: SQD).
     */
    MLX5_SET(cap, CAP_sho, 1);
    MLX5_SET(cap, CAP_sigerr_cqe, 1);
    MLX5_SET(cap, CAP_sigerr_domain_and_sig_type, 1);
    MLX5_SET(cap, CAP_drain_sigerr, 1);
    MLX5_SET(cap, CAP_cq_oi, 1);
    MLX5_SET(cap, CAP_cq_resize, 1);            /* MODIFY_CQ op_mod 1 */
    MLX5_SET(cap, CAP_cq_moderation, 1);        /* MODIFY_CQ op_mod 0 */
    /*
     * both period modes, switchable on a live CQ (kept, QUERY_CQ reports
     * them; events are raised for every CQE whatever the mode): mlx5e's
     * rx_cqe_moder and tx_cqe_moder flags, and in 6.12 ethtool -C and DIM
     * need cq_period_mode_modify
     */
    MLX5_SET(cap, CAP_cq_period_mode_modify, 1);
    MLX5_SET(cap, CAP_cq_period_start_from_cqe, 1);
    /*
     * CQE compression (mlx5_cqe_comp.c), the basic layout with hash, checksum
     * and checksum-and-stride-index mini CQEs (mini_cqe_resp_stride_index:
     * DPDK's Multi-Packet RQ, made for a ConnectX-5, compresses with them;
     * mlx5e then keeps its striding RQ with compression on) of 64- and
     * 128-byte CQEs, and padded 128-byte CQEs (cqe_128_always): as a
     * ConnectX-5 (DPDK and mlx5e use the last two on hosts with 128-byte
     * cache lines: POWER9 with ConnectX-5). A session ends with its burst, so
     * no timeout is reported.
     */
    MLX5_SET(cap, CAP_cqe_compression, 1);
    MLX5_SET(cap, CAP_cqe_compression_128, 1);
    MLX5_SET(cap, CAP_cqe_128_always, 1);
    MLX5_SET(cap, CAP_mini_cqe_resp_stride_index, 1);
    MLX5_SET(cap, CAP_cqe_compression_max_num, MLX5_CQE_COMP_MAX);
    MLX5_SET(cap, CAP_xrc, 1);
    /* alternate paths, MigReq (ib_apm.c) */
    MLX5_SET(cap, CAP_apm, 1);
    /* qpc.block_lb_mc (ib_mcast.c) */
    MLX5_SET(cap, CAP_block_lb_mc, 1);
    /* memory windows: binds are UMRs */
    MLX5_SET(cap, CAP_imaicl, 1);
    MLX5_SET(cap, CAP_ud, 1);
    MLX5_SET(cap, CAP_uc, 1);
    MLX5_SET(cap, CAP_rc, 1);
    MLX5_SET(cap, CAP_log_pg_sz, 12);
    /*
     * BlueFlame (mlx5_bf.c): mlx5_core's write-combining test passes, so
     * libmlx5 copies small inline WQEs and DPDK and UCX get BF UARs
     */
    MLX5_SET(cap, CAP_bf, 1);
    MLX5_SET(cap, CAP_driver_version, 1);
    MLX5_SET(cap, CAP_log_bf_reg_size, MLX5_LOG_BF_REG_SIZE);
    MLX5_SET(cap, CAP_max_wqe_sz_sq, 1024);
    MLX5_SET(cap, CAP_max_wqe_sz_rq, 512);
    MLX5_SET(cap, CAP_max_qp_mcg, 64);
    /* = IB_MCAST_MAX_ATTACH groups at most */
    MLX5_SET(cap, CAP_log_max_mcg, 10);
    MLX5_SET(cap, CAP_log_max_transport_domain, 0);
    MLX5_SET(cap, CAP_log_max_pd, cfg->log_max_pd);
    MLX5_SET(cap, CAP_log_max_xrcd, cfg->log_max_xrcd);
    /* DevX (mlx5_devx.c) */
    MLX5_SET(cap, CAP_log_max_uctx, cfg->log_max_uctx);
    /* no raw-TX or internal-resource rights */
    MLX5_SET(cap, CAP_uctx_cap, 0);
    MLX5_SET(cap, CAP_log_uar_page_sz, 0);
    /* internal_timer counts nanoseconds */
    MLX5_SET(cap, CAP_device_frequency_mhz, 1000);
    MLX5_SET(cap, CAP_device_frequency_khz, 1000000);
    MLX5_SET(cap, CAP_native_port_num, 1);
    /* MEMIC (mlx5_memic.c); steering ICM sets it too (mlx5_sw_icm.c) */
    MLX5_SET(cap, CAP_device_memory, cfg->memic_size != 0);
    /* page faults, ODP cap page (mlx5_odp.c) */
    MLX5_SET(cap, CAP_pg, cfg->odp);
    /* the management registers of the firmware components (mlx5_fw.c) */
    mlx5_fw_caps(cap);
    /* the queue counters (mlx5_q_counter.c) */
    mlx5_q_counter_caps(cap);
    /* the congestion control commands (mlx5_cong.c) */
    mlx5_cong_caps(cap);
    /* tag matching with rendezvous offload on RC (mlx5_xrq.c) */
    mlx5_caps_tm(cap);
}

static void mlx5_caps_atomic(uint8_t *cap)
{
    MLX5_SET(cap, ATOMIC_CAP_supported_atomic_req_8B_endianness_mode_1, 1);
    MLX5_SET(cap, ATOMIC_CAP_atomic_operations, 0x3);  /* CMP_SWAP, FETCH_ADD */
    MLX5_SET(cap, ATOMIC_CAP_atomic_size_qp, 0x8);     /* 8 bytes */
    MLX5_SET(cap, ATOMIC_CAP_atomic_size_dc, 0x8);
}

void mlx5_caps_build(const Mlx5CoreConfig *cfg, unsigned type, uint8_t *cap,
                     bool cur)
{
    memset(cap, 0, HCA_CAP_SIZE);
    switch (type) {
    case MLX5_CAP_GENERAL:
        mlx5_caps_general(cfg, cap);
        mlx5_fw_reset_caps(cap, cur);
        if (cfg->eth) {
            mlx5_eth_caps(cfg, type, cap);
        }
        mlx5_sw_icm_caps(cfg, type, cap);
        break;
    case MLX5_CAP_ETHERNET_OFFLOADS:
    case MLX5_CAP_FLOW_TABLE:
    case MLX5_CAP_ESWITCH_FLOW_TABLE:
    case MLX5_CAP_ESWITCH:
    case MLX5_CAP_ROCE:
    case MLX5_CAP_QOS:
        if (cfg->eth) {
            mlx5_eth_caps(cfg, type, cap);
        }
        break;
    case MLX5_CAP_ATOMIC:
        mlx5_caps_atomic(cap);
        break;
    case MLX5_CAP_DEV_MEM:
        mlx5_caps_dev_mem(cfg, cap);
        mlx5_sw_icm_caps(cfg, type, cap);
        break;
    case MLX5_CAP_ODP:
        mlx5_caps_odp(cfg, cap);
        break;
    default:
        break;          /* every other type: all zero (feature absent) */
    }
}

void mlx5_caps_reset(Mlx5Core *c)
{
    mlx5_caps_build(&c->cfg, MLX5_CAP_GENERAL, c->cap_general_cur, true);
    mlx5_caps_build(&c->cfg, MLX5_CAP_ATOMIC, c->cap_atomic_cur, true);
    mlx5_caps_build(&c->cfg, MLX5_CAP_ODP, c->cap_odp_cur, true);
}
