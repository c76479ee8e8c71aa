/*
 * mlx5 HCA core, Ethernet port: capabilities, the NIC vport (context, state,
 * counters), Q counters, the port registers mlx5e reads and writes (PAOS, PMTU,
 * PTYS, PPCNT, PFCC), and the link as the driver sees it (vport state and
 * PORT_CHANGE events).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "trace.h"

/* ---- capabilities -------------------------------------------------------- */

/*
 * The Ethernet port's fields of the general cap page (mlx5_caps.c calls this).
 */
static void mlx5_eth_caps_general(const Mlx5CoreConfig *cfg, uint8_t *cap)
{
    MLX5_SET(cap, CAP_port_type, 1);                /* Ethernet */
    if (mlx5_esw_manager_cfg(cfg)) {
        MLX5_SET(cap, CAP_eswitch_manager, 1);
        MLX5_SET(cap, CAP_log_max_l2_table, MLX5_ESW_LOG_L2_TABLE);
    }
    MLX5_SET(cap, CAP_eth_net_offloads, 1);
    MLX5_SET(cap, CAP_nic_flow_table, 1);
    MLX5_SET(cap, CAP_vport_counters, 1);
    MLX5_SET(cap, CAP_log_max_transport_domain, 16);
    MLX5_SET(cap, CAP_log_max_tis, 8);
    MLX5_SET(cap, CAP_log_max_tir, 10);
    MLX5_SET(cap, CAP_log_max_rqt, 8);
    MLX5_SET(cap, CAP_log_max_rqt_size, MLX5_ETH_LOG_MAX_RQT_SIZE);
    MLX5_SET(cap, CAP_log_max_tis_per_sq, 0);
    MLX5_SET(cap, CAP_log_max_rq, 12);
    MLX5_SET(cap, CAP_log_max_sq, 12);
    MLX5_SET(cap, CAP_log_max_wq_sz, 15);
    MLX5_SET(cap, CAP_log_max_current_uc_list, 6);   /* MLX5_NVC_MAX_LIST */
    MLX5_SET(cap, CAP_log_max_current_mc_list, 6);
    /*
     * striding RQs (mlx5_mpwqe.c) down to 8 strides a WQE, their buffers
     * mapped by UMR WQEs on an SQ (mlx5e's ICOSQ): as a ConnectX-5, which makes
     * them mlx5e's default receive queue
     */
    MLX5_SET(cap, CAP_striding_rq, 1);
    MLX5_SET(cap, CAP_ext_stride_num_range, 1);
    MLX5_SET(cap, CAP_umr_ptr_rlky, 1);
    MLX5_SET(cap, CAP_roce, 1);                     /* RoCE v2 (mlx5_roce.c) */
    /*
     * the flex parser profile a ConnectX-5 has by default: GENEVE's header
     * (VNI, OAM, protocol type, option length) for flow matching; no TLV
     * options (max_geneve_tlv_options 0)
     */
    MLX5_SET(cap, CAP_flex_parser_protocols, MLX5_FLEX_PROTO_GENEVE);
    /* flow counters (mlx5_flow_counter.c), single and in bulks */
    MLX5_SET(cap, CAP_max_flow_counter_15_0, MLX5_ETH_MAX_FLOW_COUNTERS);
    MLX5_SET(cap, CAP_flow_counter_bulk_alloc, MLX5_ETH_FC_BULK_ALLOC);
    MLX5_SET(cap, CAP_log_max_flow_counter_bulk, MLX5_ETH_LOG_FC_BULK_QUERY);
    /* ranges read into memory (DPDK's counter pools, not its fall-back) */
    MLX5_SET(cap, CAP_flow_counters_dump, 1);
}

void mlx5_eth_caps(const Mlx5CoreConfig *cfg, unsigned type, uint8_t *cap)
{
    switch (type) {
    case MLX5_CAP_GENERAL:
        mlx5_eth_caps_general(cfg, cap);
        mlx5_pp_caps(type, cap);
        break;
    case MLX5_CAP_ESWITCH_FLOW_TABLE:
    case MLX5_CAP_ESWITCH:
        mlx5_esw_caps(cfg, type, cap);
        break;
    case MLX5_CAP_QOS:
        mlx5_pp_caps(type, cap);
        mlx5_esw_qos_caps(cfg, cap);
        mlx5_meter_caps(cfg, cap);
        break;
    case MLX5_CAP_ETHERNET_OFFLOADS:
        MLX5_SET(cap, ETH_CAP_csum_cap, 1);
        MLX5_SET(cap, ETH_CAP_vlan_cap, 1);
        MLX5_SET(cap, ETH_CAP_self_lb_en_modifiable, 1);
        /* 256 KiB: MLX5_ETH_MAX_TSO */
        MLX5_SET(cap, ETH_CAP_max_lso_cap, 18);
        /* no inline headers required */
        MLX5_SET(cap, ETH_CAP_wqe_inline_mode, 2);
        /* UMR WQEs on SQs of sqc.reg_umr (the striding RQs' buffers) */
        MLX5_SET(cap, ETH_CAP_reg_umr_sq, 1);
        /*
         * enhanced multi-packet send WQEs (a frame per data or inline
         * segment): mlx5e's default send path, DPDK's eMPW; the legacy MPW
         * opcode is not offered, though multi_pkt_send_wqe says multi-packet
         * sends are allowed (mlx5_ib's MLX5_IB_ALLOW_MPW, which libmlx5 users
         * check first), as on a ConnectX-5
         */
        MLX5_SET(cap, ETH_CAP_multi_pkt_send_wqe, 1);
        MLX5_SET(cap, ETH_CAP_enhanced_multi_pkt_send_wqe, 1);
        MLX5_SET(cap, ETH_CAP_rss_ind_tbl_cap, MLX5_ETH_LOG_MAX_RQT_SIZE);
        /* check_sum covers the whole frame */
        MLX5_SET(cap, ETH_CAP_cqe_checksum_full, 1);
        /*
         * VXLAN stateless offloads (mlx5_vxlan.c): inner checksums and LSO
         * of tunnelled frames to the ports of the table; no GRE, IP-in-IP or
         * GENEVE, so mlx5e builds no inner TTC tables and its TIRs ask for no
         * tunnel parsing on receive
         */
        MLX5_SET(cap, ETH_CAP_tunnel_stateless_vxlan, 1);
        MLX5_SET(cap, ETH_CAP_max_vxlan_udp_ports, MLX5_ETH_MAX_VXLAN_PORTS);
        /*
         * LRO (mlx5_lro.c), not for tunnels (tunnel_lro_vxlan/gre 0): mlx5e
         * offers NETIF_F_LRO (off by default), DPDK RTE_ETH_RX_OFFLOAD_TCP_LRO
         */
        mlx5_lro_caps(cap);
        break;
    case MLX5_CAP_FLOW_TABLE:
        MLX5_SET(cap, FT_CAP_nic_rx_ft_support, 1);
        MLX5_SET(cap, FT_CAP_nic_rx_modify_root, 1);
        /*
         * the chaining caps: entries updated in place (SET_FLOW_TABLE_ENTRY
         * op_mod 1), miss tables named, MODIFY_FLOW_TABLE; with them mlx5_core
         * adds the bypass (mlx5_ib's ibv_create_flow), ethtool (ethtool -N),
         * offloads, leftovers and LAG priorities
         */
        MLX5_SET(cap, FT_CAP_nic_rx_flow_modify_en, 1);
        /* COUNT actions (DPDK's and mlx5_ib's flow rules with counters) */
        MLX5_SET(cap, FT_CAP_nic_rx_flow_counter, 1);
        MLX5_SET(cap, FT_CAP_nic_rx_log_max_flow_counter,
                 MLX5_ETH_LOG_FTE_COUNTERS);
        MLX5_SET(cap, FT_CAP_nic_rx_identified_miss_table_mode, 1);
        /*
         * DECAP of VXLAN frames (mlx5_reformat.c): DPDK's vxlan_decap; and
         * encap on receive too (reformat), as on NIC TX
         */
        MLX5_SET(cap, FT_CAP_nic_rx_decap, 1);
        MLX5_SET(cap, FT_CAP_nic_rx_reformat, 1);
        /*
         * L3 tunnels (GRE, GENEVE carrying IP) as a ConnectX-5 has them:
         * decap with a new Ethernet header on receive, encap replacing the
         * Ethernet header on transmit (mlx5_ib's L3_TUNNEL_TO_L2 and
         * L2_TO_L3_TUNNEL reformats)
         */
        MLX5_SET(cap, FT_CAP_nic_rx_reformat_l3_tunnel_to_l2, 1);
        MLX5_SET(cap, FT_CAP_nic_tx_reformat_l2_to_l3_tunnel, 1);
        /* GENEVE's header fields (misc_parameters) on receive */
        MLX5_SET(cap, FT_CAP_nic_rx_outer_geneve_vni, 1);
        MLX5_SET(cap, FT_CAP_nic_rx_outer_geneve_oam, 1);
        MLX5_SET(cap, FT_CAP_nic_rx_outer_geneve_protocol_type, 1);
        MLX5_SET(cap, FT_CAP_nic_rx_outer_geneve_opt_len, 1);
        /* header rewrites (mlx5_modify_hdr.c) */
        MLX5_SET(cap, FT_CAP_nic_rx_log_max_modify_header_context,
                 MLX5_ETH_LOG_MAX_MODHDR);
        MLX5_SET(cap, FT_CAP_nic_rx_max_modify_header_actions,
                 MLX5_MODHDR_MAX_ACTIONS);
        /*
         * NIC TX tables (mlx5_flow_tx.c) with the same limits, counters,
         * header rewrites and encap (mlx5_reformat.c): mlx5_ib's egress
         * flows, DPDK's egress rules (vxlan_encap)
         */
        MLX5_SET(cap, FT_CAP_nic_tx_ft_support, 1);
        MLX5_SET(cap, FT_CAP_nic_tx_flow_counter, 1);
        MLX5_SET(cap, FT_CAP_nic_tx_flow_modify_en, 1);
        MLX5_SET(cap, FT_CAP_nic_tx_modify_root, 1);
        MLX5_SET(cap, FT_CAP_nic_tx_identified_miss_table_mode, 1);
        MLX5_SET(cap, FT_CAP_nic_tx_flow_table_modify, 1);
        MLX5_SET(cap, FT_CAP_nic_tx_reformat, 1);
        MLX5_SET(cap, FT_CAP_nic_tx_log_max_ft_size, MLX5_ETH_LOG_MAX_FT_SIZE);
        MLX5_SET(cap, FT_CAP_nic_tx_max_ft_level, MLX5_ETH_MAX_FT_LEVEL);
        MLX5_SET(cap, FT_CAP_nic_tx_log_max_ft_num, 10);
        MLX5_SET(cap, FT_CAP_nic_tx_log_max_destination, 4);
        MLX5_SET(cap, FT_CAP_nic_tx_log_max_flow, 12);
        MLX5_SET(cap, FT_CAP_nic_tx_log_max_flow_counter,
                 MLX5_ETH_LOG_FTE_COUNTERS);
        MLX5_SET(cap, FT_CAP_nic_tx_log_max_modify_header_context,
                 MLX5_ETH_LOG_MAX_MODHDR);
        MLX5_SET(cap, FT_CAP_nic_tx_max_modify_header_actions,
                 MLX5_MODHDR_MAX_ACTIONS);
        /* the header is the caller's (mlx5_ib's L2_TO_L2_TUNNEL on NIC TX) */
        MLX5_SET(cap, FT_CAP_encap_general_header, 1);
        MLX5_SET(cap, FT_CAP_log_max_packet_reformat_context,
                 MLX5_ETH_LOG_MAX_REFORMAT);
        MLX5_SET(cap, FT_CAP_max_encap_header_size, MLX5_ETH_MAX_ENCAP_HDR);
        MLX5_SET(cap, FT_CAP_nic_rx_flow_table_modify, 1);
        MLX5_SET(cap, FT_CAP_nic_rx_log_max_ft_size, MLX5_ETH_LOG_MAX_FT_SIZE);
        MLX5_SET(cap, FT_CAP_nic_rx_max_ft_level, MLX5_ETH_MAX_FT_LEVEL);
        MLX5_SET(cap, FT_CAP_nic_rx_log_max_ft_num, 10);
        /* MLX5_ETH_MAX_DEST */
        MLX5_SET(cap, FT_CAP_nic_rx_log_max_destination, 4);
        /* MLX5_ETH_MAX_FTES */
        MLX5_SET(cap, FT_CAP_nic_rx_log_max_flow, 12);
        /*
         * RDMA RX tables: entries match a RoCE frame's headers and its source
         * vport and ALLOW it to the transport or DROP it; a miss may hand it
         * back to the Ethernet side (table_miss_action_domain). mlx5_core's
         * switchdev mode lets the PF's RoCE take only its own vport's frames
         * this way (mlx5_rdma_enable_roce); without them it refuses the mode
         */
        MLX5_SET(cap, FT_CAP_rdma_rx_ft_support, 1);
        MLX5_SET(cap, FT_CAP_rdma_rx_table_miss_action_domain, 1);
        MLX5_SET(cap, FT_CAP_rdma_rx_log_max_ft_size,
                 MLX5_ETH_LOG_MAX_FT_SIZE);
        MLX5_SET(cap, FT_CAP_rdma_rx_max_ft_level, MLX5_ETH_MAX_FT_LEVEL);
        MLX5_SET(cap, FT_CAP_rdma_rx_log_max_ft_num, 10);
        MLX5_SET(cap, FT_CAP_rdma_rx_log_max_destination, 4);
        MLX5_SET(cap, FT_CAP_rdma_rx_log_max_flow, 12);
        /* software-owned NIC tables (mlx5_ste.c), when offered */
        mlx5_ste_caps(cfg, type, cap);
        break;
    case MLX5_CAP_ROCE:
        mlx5_roce_caps(cap);
        mlx5_ste_caps(cfg, type, cap);
        break;
    default:
        break;
    }
}

/* ---- lifetime ------------------------------------------------------------ */

void mlx5_eth_init(Mlx5Core *c)
{
    Mlx5Eth *e = g_new0(Mlx5Eth, 1);

    mlx5_table_init(&e->tises, "tis", 1u << 8, 1);
    mlx5_table_init(&e->tirs, "tir", 1u << 10, 1);
    mlx5_table_init(&e->rqts, "rqt", 1u << 8, 1);
    mlx5_table_init(&e->fts, "flow table", 1u << 10, 1);
    mlx5_table_init(&e->fgs, "flow group", 1u << 12, 1);
    mlx5_table_init(&e->modhdrs, "modify header", 1u << MLX5_ETH_LOG_MAX_MODHDR,
                    1);
    mlx5_table_init(&e->reformats, "packet reformat",
                    1u << MLX5_ETH_LOG_MAX_REFORMAT, 1);
    mlx5_table_init(&e->samplers, "flow sampler", 1u << 8, 1);
    mlx5_table_init(&e->meters, "flow meter", 1u << 12, 1);
    e->frame = g_malloc(MLX5_ETH_MAX_FRAME + MLX5_ETH_MAX_TSO);
    e->fcs = g_new0(Mlx5FlowCounter, MLX5_ETH_MAX_FLOW_COUNTERS);
    c->eth = e;
}

/*
 * Drop every Ethernet object and return the port to its power-on state (the
 * link stays).
 */
void mlx5_eth_reset(Mlx5Core *c)
{
    Mlx5Eth *e = c->eth;

    if (!e) {
        return;
    }
    mlx5_table_destroy(&e->fts, mlx5_ft_free, c);
    mlx5_table_destroy(&e->fgs, mlx5_fg_free, c);
    /* (after the flow entries that used them) */
    mlx5_table_destroy(&e->modhdrs, mlx5_plain_free, c);
    mlx5_table_destroy(&e->reformats, mlx5_plain_free, c);
    mlx5_table_destroy(&e->samplers, mlx5_plain_free, c);
    mlx5_table_destroy(&e->meters, mlx5_plain_free, c);
    mlx5_table_destroy(&e->tirs, mlx5_tir_free, c);
    mlx5_table_destroy(&e->rqts, mlx5_rqt_free, c);
    mlx5_table_destroy(&e->tises, mlx5_plain_free, c);
    e->root_ft = 0;
    e->root_ft_tx = 0;
    e->root_ft_fdb = 0;
    e->root_ft_rdma = 0;
    if (!c->cfg.vf) {
        /* (the ACL roots went with their tables: mlx5_esw_acl_gone) */
        c->esw_regc_pass = 0;
    }
    memset(e->l2_used, 0, sizeof(e->l2_used));
    e->nftes = 0;
    /* (after the flow entries that held them) */
    memset(e->fcs, 0, sizeof(*e->fcs) * MLX5_ETH_MAX_FLOW_COUNTERS);
    memcpy(e->mac, c->cfg.mac, 6);
    e->vport_mtu = 0;
    e->promisc_uc = e->promisc_mc = e->promisc_all = e->roce_en = false;
    e->n_uc = e->n_mc = 0;
    mlx5_pp_reset(e);
    mlx5_esw_qos_reset(c);
    e->admin_status = MLX5_PORT_STATUS_UP;
    e->admin_mtu = 1500 + 22;
    e->oper_up = c->port.link_up;
    mlx5_phy_reset(e);
    memset(&e->cnt, 0, sizeof(e->cnt));
    e->tx_blocked = false;
    mlx5_vxlan_reset(e);
    memset(e->roce_addr, 0, sizeof(e->roce_addr));
    /*
     * RoCE: the transport's port addressed by the GID table (emptied), up with
     * the vport
     */
    ib_roce_enable(&c->ib, c->cfg.mac);
    c->ib.link_up = e->oper_up;
}

void mlx5_eth_free(Mlx5Core *c)
{
    Mlx5Eth *e = c->eth;
    Mlx5Table *all[] = { &e->tises, &e->tirs, &e->rqts, &e->fts, &e->fgs,
                         &e->modhdrs, &e->reformats, &e->samplers,
                         &e->meters };
    size_t i;

    mlx5_eth_reset(c);
    for (i = 0; i < G_N_ELEMENTS(all); i++) {
        g_free(all[i]->slot);
        g_free(all[i]->owner);
    }
    g_free(e->frame);
    g_free(e->fcs);
    g_free(e);
    c->eth = NULL;
}

/* ---- link ---------------------------------------------------------------- */

/*
 * The vport is up when the port is administratively up and the link is up
 * (PAOS, the wire).
 */
static void mlx5_eth_update_oper(Mlx5Core *c)
{
    Mlx5Eth *e = c->eth;
    bool up = c->port.link_up && e->admin_status == MLX5_PORT_STATUS_UP;

    if (up == e->oper_up) {
        return;
    }
    e->oper_up = up;
    c->ib.link_up = up;
    if (!up) {
        e->link_down_events++;
    }
    trace_mlx5_eth_link(up);
    mlx5_port_event(c, up ? MLX5_PORT_CHANGE_SUBTYPE_ACTIVE
                          : MLX5_PORT_CHANGE_SUBTYPE_DOWN);
}

void mlx5_eth_set_link(Mlx5Core *c, bool up)
{
    c->port.link_up = up;
    mlx5_eth_update_oper(c);
    if (up) {
        mlx5_eth_tx_ready(c);
    }
}

/* ---- registers ----------------------------------------------------------- */

/*
 * The Ethernet port's registers. Returns false if @reg_id is not one of them.
 * @reg holds the input and becomes the output (@len bytes).
 */
bool mlx5_eth_reg(Mlx5Core *c, Mlx5CmdCtx *cmd, uint32_t reg_id, uint8_t *reg,
                  uint32_t len, bool write)
{
    Mlx5Eth *e = c->eth;

    switch (reg_id) {
    case MLX5_REG_PAOS:
        if (write) {
            uint8_t st = MLX5_GET(reg, PAOS_admin_status);
            if (MLX5_GET(reg, PAOS_ase) && (st == MLX5_PORT_STATUS_UP ||
                                            st == MLX5_PORT_STATUS_DOWN)) {
                e->admin_status = st;
                mlx5_eth_update_oper(c);
            }
        }
        MLX5_SET(reg, PAOS_admin_status, e->admin_status);
        MLX5_SET(reg, PAOS_oper_status,
                 e->oper_up ? MLX5_PORT_STATUS_UP : MLX5_PORT_STATUS_DOWN);
        return true;
    case MLX5_REG_PMTU:
        if (write) {
            uint16_t mtu = MLX5_GET(reg, PMTU_admin_mtu);
            if (mtu < 64 || mtu > MLX5_ETH_MAX_FRAME) {
                mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                              MLX5_SYND_BAD_MTU);
                return true;
            }
            e->admin_mtu = mtu;
        }
        MLX5_SET(reg, PMTU_max_mtu, MLX5_ETH_MAX_FRAME);
        MLX5_SET(reg, PMTU_admin_mtu, e->admin_mtu);
        MLX5_SET(reg, PMTU_oper_mtu, e->admin_mtu);
        return true;
    case MLX5_REG_PTYS:
        if (len < 0x30 || !(MLX5_GET(reg, PTYS_proto_mask) & MLX5_PTYS_EN)) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_BAD_REGISTER);
            return true;
        }
        /*
         * a 10GBase-CR port (the speed mlx5_ib reports for RoCE); writes change
         * nothing
         */
        memset(reg + 4, 0, len - 4);
        mlx5_st32(reg + PTYS_eth_proto_capability_OFF, MLX5_ETH_10GBASE_CR);
        mlx5_st32(reg + PTYS_eth_proto_admin_OFF, MLX5_ETH_10GBASE_CR);
        mlx5_st32(reg + PTYS_eth_proto_oper_OFF,
                  e->oper_up ? MLX5_ETH_10GBASE_CR : 0);
        MLX5_SET(reg, PTYS_connector_type, MLX5_PORT_CONNECTOR_DA);
        return true;
    default:
        return mlx5_phy_reg(c, cmd, reg_id, reg, len, write);
    }
}

/* ---- NIC vport commands -------------------------------------------------- */

/*
 * The function whose NIC vport a command names: our own, or with other_vport
 * (a PF, the vport group manager) vport 0 (itself) or vport N, its VF N - 1
 * (mlx5_sriov.c). NULL (and @cmd failed) for anything else: a VF manages no
 * vport but its own, and a DevX context (a user) none.
 */
static Mlx5Core *mlx5_vport_target(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    unsigned n;
    Mlx5Core *t;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return NULL;
    }
    if (!MLX5_GET(cmd->in, VPORT_IN_other_vport)) {
        return c;
    }
    n = MLX5_GET(cmd->in, VPORT_IN_vport_number);
    t = c->cfg.vf || cmd->uid ? NULL
        : n == 0 ? c : n <= c->cfg.num_vfs ? c->vfs[n - 1] : NULL;
    if (!t || !t->eth) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PORT);
        return NULL;
    }
    trace_mlx5_eth_vport_other(cmd->opcode, n);
    return t;
}

void mlx5_cmd_query_vport_state(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Eth *e;

    c = mlx5_vport_target(c, cmd);
    if (!c || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    e = c->eth;
    MLX5_SET(cmd->out, QUERY_VPORT_STATE_OUT_admin_state,
             e->admin_status == MLX5_PORT_STATUS_UP ? 1 : 2);
    MLX5_SET(cmd->out, QUERY_VPORT_STATE_OUT_state, e->oper_up ? 1 : 0);
}

void mlx5_cmd_query_nic_vport_context(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Eth *e;
    uint8_t *nvc = cmd->out + QUERY_NIC_VPORT_OUT_CTX_OFF;
    unsigned type, n, i;

    c = mlx5_vport_target(c, cmd);
    if (!c || !mlx5_cmd_out_ok(cmd, QUERY_NIC_VPORT_OUT_CTX_OFF + NVC_SIZE)) {
        return;
    }
    e = c->eth;
    MLX5_SET(nvc, NVC_roce_en, e->roce_en);
    MLX5_SET(nvc, NVC_mtu, e->vport_mtu);
    MLX5_SET64(nvc, NVC_system_image_guid_OFF, c->cfg.sys_image_guid);
    MLX5_SET64(nvc, NVC_port_guid_OFF, c->cfg.port_guid);
    MLX5_SET64(nvc, NVC_node_guid_OFF, c->cfg.node_guid);
    MLX5_SET(nvc, NVC_promisc_uc, e->promisc_uc);
    MLX5_SET(nvc, NVC_promisc_mc, e->promisc_mc);
    MLX5_SET(nvc, NVC_promisc_all, e->promisc_all);
    memcpy(nvc + NVC_permanent_address_OFF, e->mac, 6);
    /* the address list asked for, as far as the output has room */
    type = MLX5_GET(cmd->in, QUERY_NIC_VPORT_IN_allowed_list_type);
    if (type != MLX5_NVC_LIST_UC && type != MLX5_NVC_LIST_MC) {
        return;                 /* (VLAN lists: none kept) */
    }
    n = type == MLX5_NVC_LIST_UC ? e->n_uc : e->n_mc;
    n = MIN(n, (cmd->outlen - QUERY_NIC_VPORT_OUT_CTX_OFF - NVC_LIST_OFF) / 8);
    MLX5_SET(nvc, NVC_allowed_list_type, type);
    MLX5_SET(nvc, NVC_allowed_list_size, n);
    for (i = 0; i < n; i++) {
        memcpy(nvc + NVC_LIST_OFF + 8 * i + 2,
               type == MLX5_NVC_LIST_UC ? e->uc_list[i] : e->mc_list[i], 6);
    }
}

void mlx5_cmd_modify_nic_vport_context(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Core *self = c;
    Mlx5Eth *e;
    const uint8_t *nvc = cmd->in + MODIFY_NIC_VPORT_IN_CTX_OFF;
    uint32_t fs;
    unsigned i, n, type;

    c = mlx5_vport_target(c, cmd);
    if (!c || !mlx5_cmd_in_ok(cmd, MODIFY_NIC_VPORT_IN_CTX_OFF + NVC_SIZE)) {
        return;
    }
    e = c->eth;
    fs = MLX5_GET(cmd->in, MODIFY_NIC_VPORT_IN_field_select);
    trace_mlx5_eth_vport_modify(fs);
    if (fs & MLX5_NVC_FS_ADDRESSES_LIST) {
        type = MLX5_GET(nvc, NVC_allowed_list_type);
        n = MLX5_GET(nvc, NVC_allowed_list_size);
        if ((type != MLX5_NVC_LIST_UC && type != MLX5_NVC_LIST_MC &&
             type != MLX5_NVC_LIST_VLAN) ||
            n > MLX5_NVC_MAX_LIST ||
            !mlx5_cmd_in_ok(cmd, MODIFY_NIC_VPORT_IN_CTX_OFF + NVC_LIST_OFF +
                                     8 * n)) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_SIZE);
            return;
        }
        for (i = 0; i < n && type != MLX5_NVC_LIST_VLAN; i++) {
            memcpy(type == MLX5_NVC_LIST_UC ? e->uc_list[i] : e->mc_list[i],
                   nvc + NVC_LIST_OFF + 8 * i + 2, 6);
        }
        if (type == MLX5_NVC_LIST_UC) {
            e->n_uc = n;
        } else if (type == MLX5_NVC_LIST_MC) {
            e->n_mc = n;
        }
    }
    if (fs & MLX5_NVC_FS_PERMANENT_ADDRESS) {
        memcpy(e->mac, nvc + NVC_permanent_address_OFF, 6);
        if (c != self) {
            /*
             * the manager's administrative MAC of a VF (`ip link set ... vf N
             * mac`): the VF's own from its next load on, across its resets
             */
            memcpy(c->cfg.mac, e->mac, 6);
        }
    }
    if ((fs & MLX5_NVC_FS_NODE_GUID) && c != self) {
        /* (a function's own node GUID is the device's) */
        c->cfg.node_guid = mlx5_ld64(nvc + NVC_node_guid_OFF);
    }
    if (fs & MLX5_NVC_FS_PROMISC) {
        e->promisc_uc = MLX5_GET(nvc, NVC_promisc_uc);
        e->promisc_mc = MLX5_GET(nvc, NVC_promisc_mc);
        e->promisc_all = MLX5_GET(nvc, NVC_promisc_all);
    }
    if (fs & MLX5_NVC_FS_MTU) {
        uint16_t mtu = MLX5_GET(nvc, NVC_mtu);
        if (mtu > MLX5_ETH_MAX_FRAME) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_MTU);
            return;
        }
        e->vport_mtu = mtu;
    }
    if (fs & MLX5_NVC_FS_ROCE_EN) {
        e->roce_en = MLX5_GET(nvc, NVC_roce_en);
    }
    if ((fs & MLX5_NVC_FS_CHANGE_EVENT) && (c != self || !c->cfg.vf)) {
        /* (the manager's: a VF arms nothing of its own) */
        c->vport_arm = MLX5_GET(nvc, NVC_arm_change_event)
                           ? MLX5_GET(nvc, NVC_event_on) : 0;
    }
    mlx5_esw_vport_changed(c,
                           (fs & MLX5_NVC_FS_ADDRESSES_LIST
                                ? (MLX5_GET(nvc, NVC_allowed_list_type) ==
                                           MLX5_NVC_LIST_UC
                                       ? MLX5_NVC_EV_UC
                                       : MLX5_NVC_EV_MC)
                                : 0) |
                               (fs & MLX5_NVC_FS_PROMISC
                                    ? MLX5_NVC_EV_PROMISC : 0) |
                               (fs & MLX5_NVC_FS_MTU ? MLX5_NVC_EV_MTU : 0));
}

static void mlx5_traffic(uint8_t *out, unsigned off, uint64_t pkts,
                         uint64_t bytes)
{
    mlx5_st64(out + off, pkts);
    mlx5_st64(out + off + 8, bytes);
}

void mlx5_cmd_query_vport_counter(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5EthCounters *n;

    /*
     * (the input's clear bit is in its seventh dword: query_vport_counter_in is
     * 0x20 bytes)
     */
    if (!mlx5_cmd_in_ok(cmd, 0x20)) {
        return;
    }
    if (!c->eth) {
        mlx5_ib_query_vport_counter(c, cmd);    /* (an InfiniBand port's) */
        return;
    }
    c = mlx5_vport_target(c, cmd);
    if (!c || !mlx5_cmd_out_ok(cmd, VPORT_COUNTER_OUT_SIZE)) {
        return;
    }
    n = &c->eth->cnt;
    mlx5_traffic(cmd->out, VC_received_errors_OFF, n->rx_errors, 0);
    mlx5_traffic(cmd->out, VC_transmit_errors_OFF, n->tx_errors, 0);
    mlx5_traffic(cmd->out, VC_rx_bcast_OFF, n->rx.bcast_pkts,
                 n->rx.bcast_bytes);
    mlx5_traffic(cmd->out, VC_tx_bcast_OFF, n->tx.bcast_pkts,
                 n->tx.bcast_bytes);
    mlx5_traffic(cmd->out, VC_rx_ucast_OFF, n->rx.ucast_pkts,
                 n->rx.ucast_bytes);
    mlx5_traffic(cmd->out, VC_tx_ucast_OFF, n->tx.ucast_pkts,
                 n->tx.ucast_bytes);
    mlx5_traffic(cmd->out, VC_rx_mcast_OFF, n->rx.mcast_pkts,
                 n->rx.mcast_bytes);
    mlx5_traffic(cmd->out, VC_tx_mcast_OFF, n->tx.mcast_pkts,
                 n->tx.mcast_bytes);
    /* (a DevX context reads the counters; only the kernel clears them) */
    if (MLX5_GET(cmd->in, VPORT_COUNTER_IN_clear) && !cmd->uid) {
        memset(n, 0, sizeof(*n));
    }
}

/* Count a frame (destination MAC at @f) in one direction's traffic. */
void mlx5_eth_count(Mlx5EthTraffic *t, const uint8_t *f, size_t len)
{
    if (!memcmp(f, "\xff\xff\xff\xff\xff\xff", 6)) {
        t->bcast_pkts++;
        t->bcast_bytes += len;
    } else if (f[0] & 1) {
        t->mcast_pkts++;
        t->mcast_bytes += len;
    } else {
        t->ucast_pkts++;
        t->ucast_bytes += len;
    }
}
