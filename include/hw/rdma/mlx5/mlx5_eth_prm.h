/*
 * mlx5 PRM layouts of the Ethernet port (docs/ethernet-plan.md): the Ethernet
 * offload and flow table capability pages, transport objects (TIS, TIR, RQT,
 * SQ, RQ), NIC flow steering, the NIC vport commands, the port registers and
 * the Ethernet WQE/CQE fields. Same conventions as mlx5_prm.h: (dword, high
 * bit, low bit) triples named after mlx5_ifc.h, relative to the named
 * structure, big endian.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_MLX5_ETH_PRM_H
#define HW_RDMA_MLX5_ETH_PRM_H

/* ---- opcodes ------------------------------------------------------------- */
enum {
    MLX5_CMD_OP_MODIFY_VPORT_STATE = 0x751,
    MLX5_CMD_OP_QUERY_ESW_VPORT_CONTEXT = 0x752,
    MLX5_CMD_OP_MODIFY_ESW_VPORT_CONTEXT = 0x753,
    MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT = 0x754,
    MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT = 0x755,
    MLX5_CMD_OP_QUERY_VPORT_COUNTER = 0x770,
    MLX5_CMD_OP_ALLOC_Q_COUNTER = 0x771,
    MLX5_CMD_OP_DEALLOC_Q_COUNTER = 0x772,
    MLX5_CMD_OP_QUERY_Q_COUNTER = 0x773,
    MLX5_CMD_OP_CREATE_TIR = 0x900,
    MLX5_CMD_OP_MODIFY_TIR = 0x901,
    MLX5_CMD_OP_DESTROY_TIR = 0x902,
    MLX5_CMD_OP_QUERY_TIR = 0x903,
    MLX5_CMD_OP_CREATE_SQ = 0x904,
    MLX5_CMD_OP_MODIFY_SQ = 0x905,
    MLX5_CMD_OP_DESTROY_SQ = 0x906,
    MLX5_CMD_OP_QUERY_SQ = 0x907,
    MLX5_CMD_OP_CREATE_RQ = 0x908,
    MLX5_CMD_OP_MODIFY_RQ = 0x909,
    MLX5_CMD_OP_DESTROY_RQ = 0x90a,
    MLX5_CMD_OP_QUERY_RQ = 0x90b,
    MLX5_CMD_OP_CREATE_TIS = 0x912,
    MLX5_CMD_OP_MODIFY_TIS = 0x913,
    MLX5_CMD_OP_DESTROY_TIS = 0x914,
    MLX5_CMD_OP_QUERY_TIS = 0x915,
    MLX5_CMD_OP_CREATE_RQT = 0x916,
    MLX5_CMD_OP_MODIFY_RQT = 0x917,
    MLX5_CMD_OP_DESTROY_RQT = 0x918,
    MLX5_CMD_OP_QUERY_RQT = 0x919,
    MLX5_CMD_OP_SET_FLOW_TABLE_ROOT = 0x92f,
    MLX5_CMD_OP_CREATE_FLOW_TABLE = 0x930,
    MLX5_CMD_OP_DESTROY_FLOW_TABLE = 0x931,
    MLX5_CMD_OP_QUERY_FLOW_TABLE = 0x932,
    MLX5_CMD_OP_CREATE_FLOW_GROUP = 0x933,
    MLX5_CMD_OP_DESTROY_FLOW_GROUP = 0x934,
    MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY = 0x936,
    MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY = 0x938,
    MLX5_CMD_OP_ADD_VXLAN_UDP_DPORT = 0x827,
    MLX5_CMD_OP_DELETE_VXLAN_UDP_DPORT = 0x828,
    MLX5_CMD_OP_SET_L2_TABLE_ENTRY = 0x829,
    MLX5_CMD_OP_DELETE_L2_TABLE_ENTRY = 0x82b,
    MLX5_CMD_OP_ALLOC_FLOW_COUNTER = 0x939,
    MLX5_CMD_OP_DEALLOC_FLOW_COUNTER = 0x93a,
    MLX5_CMD_OP_QUERY_FLOW_COUNTER = 0x93b,
    MLX5_CMD_OP_MODIFY_FLOW_TABLE = 0x93c,
    MLX5_CMD_OP_ALLOC_PACKET_REFORMAT_CONTEXT = 0x93d,
    MLX5_CMD_OP_DEALLOC_PACKET_REFORMAT_CONTEXT = 0x93e,
    MLX5_CMD_OP_ALLOC_MODIFY_HEADER_CONTEXT = 0x940,
    MLX5_CMD_OP_DEALLOC_MODIFY_HEADER_CONTEXT = 0x941,
    MLX5_CMD_OP_QUERY_ROCE_ADDRESS = 0x760,
    MLX5_CMD_OP_SET_ROCE_ADDRESS = 0x761,
};

/* roce_cap (cap type 4) */
/* bit 1 IPv4, bit 2 IPv6 */
#define ROCE_CAP_l3_type                    MLX5_FIELD(4, 19, 16)
/* bit 0 v1, bit 2 v2 */
#define ROCE_CAP_roce_version               MLX5_FIELD(4, 7, 0)
#define ROCE_CAP_r_roce_dest_udp_port       MLX5_FIELD(5, 15, 0)
#define ROCE_CAP_r_roce_max_src_udp_port    MLX5_FIELD(6, 31, 16)
#define ROCE_CAP_r_roce_min_src_udp_port    MLX5_FIELD(6, 15, 0)
#define ROCE_CAP_roce_address_table_size    MLX5_FIELD(7, 15, 0)
#define MLX5_ROCE_VERSION_2                 2
#define MLX5_ROCE_L3_TYPE_IPV4              0
#define MLX5_ROCE_L3_TYPE_IPV6              1

/*
 * SET_ROCE_ADDRESS in / QUERY_ROCE_ADDRESS in (index), roce_addr_layout at
 * in/out + 0x10
 */
#define ROCE_ADDR_IN_index                  MLX5_FIELD(2, 31, 16)
#define ROCE_ADDR_IN_vhca_port_num          MLX5_FIELD(2, 3, 0)
#define ROCE_ADDR_OFF                       0x10
#define ROCE_ADDR_SIZE                      0x20
#define ROCE_ADDR_l3_OFF                    0x00        /* 16 bytes */
#define ROCE_ADDR_vlan_valid                MLX5_FIELD(4, 28, 28)
#define ROCE_ADDR_vlan_id                   MLX5_FIELD(4, 27, 16)
#define ROCE_ADDR_mac_OFF                   0x12        /* 6 bytes */
#define ROCE_ADDR_l3_type                   MLX5_FIELD(6, 11, 8)
#define ROCE_ADDR_version                   MLX5_FIELD(6, 7, 0)

/* cap types (QUERY_HCA_CAP op_mod >> 1) */
enum {
    MLX5_CAP_ETHERNET_OFFLOADS = 0x1,
    MLX5_CAP_FLOW_TABLE = 0x7,
    /* E-Switch (eth/mlx5_eswitch.c): its flow tables' caps and its own */
    MLX5_CAP_ESWITCH_FLOW_TABLE = 0x8,
    MLX5_CAP_ESWITCH = 0x9,
    MLX5_CAP_ROCE = 0x4,
};

/* cmd_hca_cap, the Ethernet port's fields */
#define CAP_rq_delay_drop                   MLX5_FIELD(12, 26, 26)
#define CAP_modify_rq_counter_set_id        MLX5_FIELD(12, 27, 27)
#define CAP_vport_counters                  MLX5_FIELD(12, 30, 30)
#define CAP_nic_flow_table                  MLX5_FIELD(13, 25, 25)
#define CAP_striding_rq                     MLX5_FIELD(16, 30, 30)
#define CAP_umr_ptr_rlky                    MLX5_FIELD(17, 15, 15)
#define CAP_ext_stride_num_range            MLX5_FIELD(29, 31, 31)
#define CAP_eth_net_offloads                MLX5_FIELD(16, 3, 3)
#define CAP_roce                            MLX5_FIELD(16, 2, 2)
#define CAP_log_max_rq                      MLX5_FIELD(27, 28, 24)
#define CAP_log_max_sq                      MLX5_FIELD(27, 20, 16)
#define CAP_log_max_tir                     MLX5_FIELD(27, 12, 8)
#define CAP_log_max_tis                     MLX5_FIELD(27, 4, 0)
#define CAP_log_max_rqt                     MLX5_FIELD(28, 20, 16)
#define CAP_log_max_rqt_size                MLX5_FIELD(28, 12, 8)
#define CAP_log_max_tis_per_sq              MLX5_FIELD(28, 4, 0)
#define CAP_log_max_wq_sz                   MLX5_FIELD(30, 4, 0)
#define CAP_log_max_current_mc_list         MLX5_FIELD(31, 12, 8)
#define CAP_log_max_current_uc_list         MLX5_FIELD(31, 4, 0)
/* flow counters */
#define CAP_max_flow_counter_31_16          MLX5_FIELD(22, 31, 16)
#define CAP_flow_counter_bulk_alloc         MLX5_FIELD(24, 15, 8)
#define CAP_log_max_flow_counter_bulk       MLX5_FIELD(26, 23, 16)
#define CAP_max_flow_counter_15_0           MLX5_FIELD(26, 15, 0)
#define CAP_flow_counters_dump              MLX5_FIELD(27, 30, 30)

/* per_protocol_networking_offload_caps */
#define ETH_CAP_csum_cap                    MLX5_FIELD(0, 31, 31)
#define ETH_CAP_vlan_cap                    MLX5_FIELD(0, 30, 30)
#define ETH_CAP_lro_cap                     MLX5_FIELD(0, 29, 29)
#define ETH_CAP_lro_psh_flag                MLX5_FIELD(0, 28, 28)
#define ETH_CAP_lro_time_stamp              MLX5_FIELD(0, 27, 27)
#define ETH_CAP_lro_min_mss_size            MLX5_FIELD(2, 15, 0)
/* lro_timer_supported_periods[4]: dwords 12..15, ascending */
#define ETH_CAP_lro_timer_period_OFF        0x30
#define ETH_CAP_self_lb_en_modifiable       MLX5_FIELD(0, 23, 23)
#define ETH_CAP_max_lso_cap                 MLX5_FIELD(0, 20, 16)
#define ETH_CAP_wqe_inline_mode             MLX5_FIELD(0, 13, 12)
#define ETH_CAP_multi_pkt_send_wqe          MLX5_FIELD(0, 15, 14)
#define ETH_CAP_reg_umr_sq                  MLX5_FIELD(0, 7, 7)
#define ETH_CAP_enhanced_multi_pkt_send_wqe MLX5_FIELD(0, 5, 5)
#define ETH_CAP_rss_ind_tbl_cap             MLX5_FIELD(0, 11, 8)
#define ETH_CAP_cqe_checksum_full           MLX5_FIELD(1, 28, 28)
#define ETH_CAP_tunnel_stateless_vxlan      MLX5_FIELD(0, 0, 0)
#define ETH_CAP_max_vxlan_udp_ports         MLX5_FIELD(1, 15, 8)

/* flow_table_nic_cap: flow_table_properties_nic_receive at byte 0x40 */
#define FT_CAP_nic_rx_ft_support            MLX5_FIELD(16, 31, 31)
#define FT_CAP_nic_rx_flow_counter          MLX5_FIELD(16, 29, 29)
#define FT_CAP_nic_rx_flow_modify_en        MLX5_FIELD(16, 28, 28)
#define FT_CAP_nic_rx_modify_root           MLX5_FIELD(16, 27, 27)
#define FT_CAP_nic_rx_identified_miss_table_mode MLX5_FIELD(16, 26, 26)
#define FT_CAP_nic_rx_reformat              MLX5_FIELD(16, 24, 24)
#define FT_CAP_nic_rx_decap                 MLX5_FIELD(16, 23, 23)
/* (at the FDB's properties: TC's VLAN actions) */
#define FT_CAP_nic_rx_pop_vlan              MLX5_FIELD(16, 21, 21)
#define FT_CAP_nic_rx_push_vlan             MLX5_FIELD(16, 20, 20)
/* (a second tag: QinQ) */
#define FT_CAP_nic_rx_pop_vlan_2            MLX5_FIELD(16, 18, 18)
#define FT_CAP_nic_rx_push_vlan_2           MLX5_FIELD(16, 17, 17)
#define FT_CAP_nic_rx_reformat_l3_tunnel_to_l2 MLX5_FIELD(16, 13, 13)
#define FT_CAP_nic_rx_flow_table_modify     MLX5_FIELD(16, 25, 25)
#define FT_CAP_nic_rx_log_max_ft_size       MLX5_FIELD(17, 29, 24)
#define FT_CAP_nic_rx_max_ft_level          MLX5_FIELD(17, 7, 0)
#define FT_CAP_nic_rx_log_max_modify_header_context MLX5_FIELD(17, 23, 16)
#define FT_CAP_nic_rx_max_modify_header_actions MLX5_FIELD(17, 15, 8)
#define FT_CAP_nic_rx_log_max_ft_num        MLX5_FIELD(19, 7, 0)
#define FT_CAP_nic_rx_log_max_flow_counter  MLX5_FIELD(20, 15, 8)
#define FT_CAP_nic_rx_log_max_destination   MLX5_FIELD(20, 7, 0)
#define FT_CAP_nic_rx_log_max_flow          MLX5_FIELD(21, 7, 0)
/* the NIC RX properties' ft_field_support: VXLAN's and GENEVE's fields */
#define FT_CAP_nic_rx_outer_vxlan_vni       MLX5_FIELD(24, 6, 6)
#define FT_CAP_nic_rx_outer_geneve_vni      MLX5_FIELD(24, 5, 5)
#define FT_CAP_nic_rx_outer_geneve_oam      MLX5_FIELD(24, 4, 4)
#define FT_CAP_nic_rx_outer_geneve_protocol_type MLX5_FIELD(24, 3, 3)
#define FT_CAP_nic_rx_outer_geneve_opt_len  MLX5_FIELD(24, 2, 2)
/*
 * flow_table_properties_nic_receive_rdma at byte 0x80, the same layout: the
 * RDMA RX tables (table type 7) that decide which RoCE frames a function's
 * transport takes; table_miss_action_domain: a table's miss may hand the frame
 * back to the Ethernet side (MLX5_FT_MISS_ACTION_SWITCH_DOMAIN)
 */
#define FT_CAP_rdma_rx_ft_support           MLX5_FIELD(32, 31, 31)
#define FT_CAP_rdma_rx_table_miss_action_domain MLX5_FIELD(32, 8, 8)
#define FT_CAP_rdma_rx_log_max_ft_size      MLX5_FIELD(33, 29, 24)
#define FT_CAP_rdma_rx_max_ft_level         MLX5_FIELD(33, 7, 0)
#define FT_CAP_rdma_rx_log_max_ft_num       MLX5_FIELD(35, 7, 0)
#define FT_CAP_rdma_rx_log_max_destination  MLX5_FIELD(36, 7, 0)
#define FT_CAP_rdma_rx_log_max_flow         MLX5_FIELD(37, 7, 0)
/* flow_table_properties_nic_transmit at byte 0x100: the same layout */
#define FT_CAP_nic_tx_ft_support            MLX5_FIELD(64, 31, 31)
#define FT_CAP_nic_tx_flow_counter          MLX5_FIELD(64, 29, 29)
#define FT_CAP_nic_tx_flow_modify_en        MLX5_FIELD(64, 28, 28)
#define FT_CAP_nic_tx_modify_root           MLX5_FIELD(64, 27, 27)
#define FT_CAP_nic_tx_identified_miss_table_mode MLX5_FIELD(64, 26, 26)
#define FT_CAP_nic_tx_flow_table_modify     MLX5_FIELD(64, 25, 25)
#define FT_CAP_nic_tx_reformat              MLX5_FIELD(64, 24, 24)
#define FT_CAP_nic_tx_reformat_l2_to_l3_tunnel MLX5_FIELD(64, 12, 12)
#define FT_CAP_nic_tx_log_max_ft_size       MLX5_FIELD(65, 29, 24)
#define FT_CAP_nic_tx_log_max_modify_header_context MLX5_FIELD(65, 23, 16)
#define FT_CAP_nic_tx_max_modify_header_actions MLX5_FIELD(65, 15, 8)
#define FT_CAP_nic_tx_max_ft_level          MLX5_FIELD(65, 7, 0)
#define FT_CAP_nic_tx_log_max_ft_num        MLX5_FIELD(67, 7, 0)
#define FT_CAP_nic_tx_log_max_flow_counter  MLX5_FIELD(68, 15, 8)
#define FT_CAP_nic_tx_log_max_destination   MLX5_FIELD(68, 7, 0)
#define FT_CAP_nic_tx_log_max_flow          MLX5_FIELD(69, 7, 0)
/* flow_table_nic_cap's own: packet reformat contexts (any header: mlx5_ib) */
#define FT_CAP_encap_general_header         MLX5_FIELD(1, 31, 31)
#define FT_CAP_log_max_packet_reformat_context MLX5_FIELD(1, 20, 16)
#define FT_CAP_max_encap_header_size        MLX5_FIELD(1, 9, 0)

/* ---- common object command layout ---------------------------------------- */
/* sqc, rqc, tirc, tisc, rqtc in create/modify */
#define OBJ_CTX_OFF                         0x20
#define OBJ_OUT_handle                      MLX5_FIELD(2, 23, 0)
/* sqn, rqn, tirn, tisn, rqtn */
#define OBJ_IN_handle                       MLX5_FIELD(2, 23, 0)
/* modify: the current state */
#define OBJ_IN_state                        MLX5_FIELD(2, 31, 28)
#define OBJ_IN_modify_bitmask_OFF           0x10        /* 64 bits */
#define OBJ_QUERY_OUT_CTX_OFF               0x20

/* tisc */
#define TISC_prio                           MLX5_FIELD(0, 19, 16)
#define TISC_transport_domain               MLX5_FIELD(9, 23, 0)
#define TISC_pd                             MLX5_FIELD(11, 23, 0)
#define TISC_SIZE                           0xa0

/* tirc */
#define TIRC_disp_type                      MLX5_FIELD(1, 31, 28)
#define TIRC_lro_timeout_period_usecs       MLX5_FIELD(4, 27, 12)
#define TIRC_packet_merge_mask              MLX5_FIELD(4, 11, 8)
#define TIRC_lro_max_ip_payload_size        MLX5_FIELD(4, 7, 0)
#define TIRC_inline_rqn                     MLX5_FIELD(7, 23, 0)
#define TIRC_rx_hash_symmetric              MLX5_FIELD(8, 31, 31)
#define TIRC_indirect_table                 MLX5_FIELD(8, 23, 0)
#define TIRC_rx_hash_fn                     MLX5_FIELD(9, 31, 28)
#define TIRC_self_lb_block                  MLX5_FIELD(9, 25, 24)
#define TIRC_transport_domain               MLX5_FIELD(9, 23, 0)
#define TIRC_toeplitz_key_OFF               0x28        /* 40 bytes */
#define TIRC_hash_outer                     MLX5_FIELD(20, 31, 0)
#define TIRC_SIZE                           0xf0
/* (of the command input) */
#define MODIFY_TIR_bitmask_self_lb_en       MLX5_FIELD(5, 4, 4)
#define MODIFY_TIR_bitmask_hash             MLX5_FIELD(5, 2, 2)
#define MODIFY_TIR_bitmask_packet_merge     MLX5_FIELD(5, 0, 0)
enum {
    MLX5_TIRC_DISP_DIRECT = 0,
    MLX5_TIRC_DISP_INDIRECT = 1,
    MLX5_RX_HASH_FN_NONE = 0,
    MLX5_RX_HASH_FN_INVERTED_XOR8 = 1,
    MLX5_RX_HASH_FN_TOEPLITZ = 2,
};
/* rx_hash_field_select */
#define HASH_SEL_l3_prot_type               (1u << 31)  /* 0 IPv4, 1 IPv6 */
#define HASH_SEL_l4_prot_type               (1u << 30)  /* 0 TCP, 1 UDP */
#define HASH_SEL_SRC_IP                     (1u << 0)
#define HASH_SEL_DST_IP                     (1u << 1)
#define HASH_SEL_L4_SPORT                   (1u << 2)
#define HASH_SEL_L4_DPORT                   (1u << 3)

/* rqtc: the RQ list follows the context */
#define RQTC_rqt_max_size                   MLX5_FIELD(5, 15, 0)
#define RQTC_rqt_actual_size                MLX5_FIELD(6, 15, 0)
#define RQTC_LIST_OFF                       0xf0
#define MODIFY_RQT_bitmask_rqn_list         MLX5_FIELD(5, 0, 0)

/* sqc / rqc and their wq (at ctx + 0x30) */
#define SQC_flush_in_error_en               MLX5_FIELD(0, 28, 28)
#define SQC_allow_multi_pkt_send_wqe        MLX5_FIELD(0, 27, 27)
#define SQC_min_wqe_inline_mode             MLX5_FIELD(0, 26, 24)
#define SQC_reg_umr                         MLX5_FIELD(0, 19, 19)
#define SQC_state                           MLX5_FIELD(0, 23, 20)
#define SQC_user_index                      MLX5_FIELD(1, 23, 0)
#define SQC_cqn                             MLX5_FIELD(2, 23, 0)
#define SQC_tis_lst_sz                      MLX5_FIELD(8, 31, 16)
#define SQC_tis_num_0                       MLX5_FIELD(11, 23, 0)
#define RQC_vsd                             MLX5_FIELD(0, 28, 28)
#define RQC_mem_rq_type                     MLX5_FIELD(0, 27, 24)
#define RQC_state                           MLX5_FIELD(0, 23, 20)
#define RQC_flush_in_error_en               MLX5_FIELD(0, 18, 18)
#define RQC_user_index                      MLX5_FIELD(1, 23, 0)
#define RQC_cqn                             MLX5_FIELD(2, 23, 0)
#define RQC_counter_set_id                  MLX5_FIELD(3, 31, 24)
/* the wq in sqc/rqc (WQ_* of mlx5_prm.h) */
#define WQC_OFF                             0x30
#define WQ_uar_page                         MLX5_FIELD(3, 23, 0)
/* striding RQs: 2^(9 + n) strides (n signed, 4 bits), of 2^(6 + m) bytes */
#define WQ_log_wqe_num_of_strides           MLX5_FIELD(9, 11, 8)
#define WQ_two_byte_shift_en                MLX5_FIELD(9, 7, 7)
#define WQ_log_wqe_stride_size              MLX5_FIELD(9, 2, 0)
#define WQ_hw_counter_OFF                   0x18
#define WQ_dbr_umem_id_OFF                  0x28
#define WQ_wq_umem_id_OFF                   0x2c
#define WQ_wq_umem_offset_OFF               0x30
#define WQ_CREATE_PAS_OFF                   (OBJ_CTX_OFF + WQC_OFF + 0xc0)
#define WQ_QUERY_OUT_SIZE (OBJ_QUERY_OUT_CTX_OFF + WQC_OFF + 0xc0)
#define MLX5_RQ_BITMASK_VSD                 (1ull << 1)
#define MLX5_RQ_BITMASK_COUNTER_SET_ID      (1ull << 3)
enum {
    MLX5_WQ_TYPE_CYCLIC = 1,
    MLX5_WQ_TYPE_LL_STRIDING = 2,
    MLX5_WQ_TYPE_CYCLIC_STRIDING = 3,
    MLX5_WQ_STATE_RST = 0,
    MLX5_WQ_STATE_RDY = 1,
    MLX5_WQ_STATE_ERR = 3,
    MLX5_RQC_MEM_RQ_TYPE_INLINE = 0,
};

/* ---- NIC flow steering --------------------------------------------------- */
#define FT_IN_table_type                    MLX5_FIELD(4, 31, 24)
#define FT_IN_table_id                      MLX5_FIELD(5, 23, 0)
#define FT_CTX_OFF                          0x18        /* flow_table_context */
#define FTC_table_miss_action               MLX5_FIELD(0, 27, 24)
#define FTC_level                           MLX5_FIELD(0, 23, 16)
#define FTC_log_size                        MLX5_FIELD(0, 7, 0)
#define FTC_table_miss_id                   MLX5_FIELD(1, 23, 0)
#define FT_OUT_table_id                     MLX5_FIELD(2, 23, 0)
#define MODIFY_FT_modify_field_select       MLX5_FIELD(3, 15, 0)
#define FG_IN_start_flow_index              MLX5_FIELD(7, 31, 0)
#define FG_IN_end_flow_index                MLX5_FIELD(9, 31, 0)
#define FG_IN_match_criteria_enable         MLX5_FIELD(15, 7, 0)
#define FG_IN_criteria_OFF                  0x40
#define FG_OUT_group_id                     MLX5_FIELD(2, 23, 0)
#define FG_IN_group_id                      MLX5_FIELD(6, 31, 0) /* destroy */
#define FTE_IN_op_mod                       MLX5_FIELD(1, 15, 0)
#define FTE_IN_modify_enable_mask           MLX5_FIELD(6, 7, 0)
#define FTE_IN_flow_index                   MLX5_FIELD(8, 31, 0)
#define FTE_CTX_OFF                         0x40        /* flow_context */
/* the VLAN_PUSH tag: ethertype, prio, cfi, vid (a 32-bit tag as on the wire) */
#define FC_push_vlan                        MLX5_FIELD(0, 31, 0)
#define FC_group_id                         MLX5_FIELD(1, 31, 0)
#define FC_flow_tag                         MLX5_FIELD(2, 23, 0)
#define FC_action                           MLX5_FIELD(3, 15, 0)
#define FC_destination_list_size            MLX5_FIELD(4, 23, 0)
#define FC_flow_counter_list_size           MLX5_FIELD(5, 23, 0)
#define FC_packet_reformat_id               MLX5_FIELD(6, 31, 0)
#define FC_modify_header_id                 MLX5_FIELD(7, 31, 0)
/* (FDB) which side's frames the entry is for: MLX5_FLOW_SOURCE_* */
#define FC_flow_source                      MLX5_FIELD(4, 29, 28)
/* the VLAN_PUSH_2 tag, pushed after (outside) push_vlan's */
#define FC_push_vlan_2                      MLX5_FIELD(8, 31, 0)
#define FC_match_value_OFF                  0x40
#define FC_dest_OFF                         0x300
#define DEST_type                           MLX5_FIELD(0, 31, 24)
#define DEST_id                             MLX5_FIELD(0, 23, 0)
#define MLX5_FTE_MATCH_PARAM_SIZE           0x200
#define MLX5_FTE_MATCH_SET_SIZE             0x40
enum {
    MLX5_FLOW_TABLE_TYPE_NIC_RX = 0,
    MLX5_FLOW_TABLE_TYPE_NIC_TX = 1,
    MLX5_FLOW_TABLE_TYPE_ESW_EGRESS_ACL = 2,
    MLX5_FLOW_TABLE_TYPE_ESW_INGRESS_ACL = 3,
    MLX5_FLOW_TABLE_TYPE_FDB = 4,
    MLX5_FLOW_TABLE_TYPE_RDMA_RX = 7,
    /* a destination vport (the FDB's); 0xffff: the uplink */
    MLX5_FLOW_DEST_TYPE_VPORT = 0,
    MLX5_VPORT_UPLINK = 0xffff,
    MLX5_FT_MISS_ACTION_DEF = 0,
    MLX5_FT_MISS_ACTION_FWD = 1,
    /* (RDMA RX) a miss goes on as an Ethernet frame */
    MLX5_FT_MISS_ACTION_SWITCH_DOMAIN = 2,
    MLX5_FT_MODIFY_MISS_TABLE_ID = 1 << 0,
    MLX5_FLOW_CONTEXT_ACTION_ALLOW = 1 << 0,
    MLX5_FLOW_CONTEXT_ACTION_DROP = 1 << 1,
    MLX5_FLOW_CONTEXT_ACTION_FWD_DEST = 1 << 2,
    MLX5_FLOW_CONTEXT_ACTION_COUNT = 1 << 3,
    MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT = 1 << 4,
    MLX5_FLOW_CONTEXT_ACTION_DECAP = 1 << 5,
    MLX5_FLOW_CONTEXT_ACTION_MOD_HDR = 1 << 6,
    MLX5_FLOW_CONTEXT_ACTION_VLAN_POP = 1 << 7,
    MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH = 1 << 8,
    MLX5_FLOW_CONTEXT_ACTION_VLAN_POP_2 = 1 << 10,
    MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH_2 = 1 << 11,
    /* an FDB entry's flow_source (the E-Switch flow-table cap flow_source) */
    MLX5_FLOW_SOURCE_ANY = 0,
    MLX5_FLOW_SOURCE_UPLINK = 1,
    MLX5_FLOW_SOURCE_LOCAL_VPORT = 2,
    MLX5_FLOW_DEST_TYPE_FLOW_TABLE = 1,
    MLX5_FLOW_DEST_TYPE_TIR = 2,
    /* (in the counter list, not a destination) */
    MLX5_FLOW_DEST_TYPE_COUNTER = 0x100,
};
/* ALLOC/DEALLOC_MODIFY_HEADER_CONTEXT (actions: 8 bytes each from 0x10) */
#define MODHDR_IN_table_type                MLX5_FIELD(3, 31, 24)
#define MODHDR_IN_num_of_actions            MLX5_FIELD(3, 7, 0)
#define MODHDR_IN_id                        MLX5_FIELD(2, 31, 0)
#define MODHDR_OUT_id                       MLX5_FIELD(2, 31, 0)

/* ALLOC/DEALLOC_PACKET_REFORMAT_CONTEXT (context at 0x1c, data at 0x22) */
#define REFORMAT_IN_type                    MLX5_FIELD(7, 31, 24)
#define REFORMAT_IN_data_size               MLX5_FIELD(7, 9, 0)
#define REFORMAT_IN_data_OFF                0x22
#define REFORMAT_IN_id                      MLX5_FIELD(2, 31, 0)
#define REFORMAT_OUT_id                     MLX5_FIELD(2, 31, 0)
enum {
    MLX5_REFORMAT_TYPE_L2_TO_VXLAN = 0,
    MLX5_REFORMAT_TYPE_L2_TO_L2_TUNNEL = 2,
    /* an L3 tunnel's outer headers replaced by an Ethernet header (RX) */
    MLX5_REFORMAT_TYPE_L3_TUNNEL_TO_L2 = 3,
    /* the frame's Ethernet header replaced by the tunnel's headers (TX) */
    MLX5_REFORMAT_TYPE_L2_TO_L3_TUNNEL = 4,
};
/* misc_parameters.source_sqn: the SQ a frame is sent from (NIC TX) */
#define MS_source_sqn                       MLX5_FIELD(16, 23, 0)

/* ADD/DELETE_VXLAN_UDP_DPORT */
#define VXLAN_IN_udp_port                   MLX5_FIELD(3, 15, 0)

/* ALLOC/DEALLOC/QUERY_FLOW_COUNTER */
#define ALLOC_FC_IN_flow_counter_bulk_log_size MLX5_FIELD(3, 12, 8)
#define ALLOC_FC_IN_flow_counter_bulk       MLX5_FIELD(3, 7, 0)
#define ALLOC_FC_OUT_flow_counter_id        MLX5_FIELD(2, 31, 0)
#define DEALLOC_FC_IN_flow_counter_id       MLX5_FIELD(2, 31, 0)
#define QUERY_FC_IN_mkey                    MLX5_FIELD(3, 31, 0)
#define QUERY_FC_IN_address_OFF             0x10        /* 64 bits */
#define QUERY_FC_IN_clear                   MLX5_FIELD(6, 31, 31)
#define QUERY_FC_IN_dump_to_memory          MLX5_FIELD(6, 30, 30)
#define QUERY_FC_IN_num_of_counters         MLX5_FIELD(6, 29, 0)
#define QUERY_FC_IN_flow_counter_id         MLX5_FIELD(7, 31, 0)
/* traffic_counter (packets, octets: 8 bytes each) per counter */
#define QUERY_FC_OUT_STATS_OFF              0x10
/* fte_match_set_lyr_2_4 (outer headers, byte 0 of fte_match_param) */
#define MS_smac_47_16_OFF                   0x00
#define MS_ethertype                        MLX5_FIELD(1, 15, 0)
#define MS_dmac_47_16_OFF                   0x08
#define MS_first_prio                       MLX5_FIELD(3, 15, 13)
#define MS_first_cfi                        MLX5_FIELD(3, 12, 12)
#define MS_first_vid                        MLX5_FIELD(3, 11, 0)
#define MS_ip_protocol                      MLX5_FIELD(4, 31, 24)
#define MS_ip_dscp                          MLX5_FIELD(4, 23, 18)
#define MS_ip_ecn                           MLX5_FIELD(4, 17, 16)
#define MS_cvlan_tag                        MLX5_FIELD(4, 15, 15)
#define MS_svlan_tag                        MLX5_FIELD(4, 14, 14)
#define MS_frag                             MLX5_FIELD(4, 13, 13)
#define MS_ip_version                       MLX5_FIELD(4, 12, 9)
#define MS_tcp_flags                        MLX5_FIELD(4, 8, 0)
#define MS_tcp_sport                        MLX5_FIELD(5, 31, 16)
#define MS_tcp_dport                        MLX5_FIELD(5, 15, 0)
#define MS_ttl_hoplimit                     MLX5_FIELD(6, 7, 0)
#define MS_udp_sport                        MLX5_FIELD(7, 31, 16)
#define MS_udp_dport                        MLX5_FIELD(7, 15, 0)
#define MS_src_ip_OFF                       0x20
#define MS_dst_ip_OFF                       0x30
/* misc_parameters (match_criteria_enable bit 1) */
#define MS_vxlan_vni                        MLX5_FIELD(21, 31, 8)
#define MS_geneve_vni                       MLX5_FIELD(22, 31, 8)
#define MS_geneve_oam                       MLX5_FIELD(22, 0, 0)
#define MS_geneve_opt_len                   MLX5_FIELD(25, 21, 16)
#define MS_geneve_protocol_type             MLX5_FIELD(25, 15, 0)
/* inner_headers (bit 2): the outer headers' layout */
#define MS_INNER_OFF                        0x80
/* misc_parameters_2 (section 3, at 0xc0): the metadata registers */
#define MS_MISC2_reg_c_1_OFF                0xe8
#define MS_MISC2_reg_c_0_OFF                0xec

/* ---- NIC vport ----------------------------------------------------------- */
#define QUERY_VPORT_STATE_OUT_admin_state   MLX5_FIELD(3, 7, 4)
#define QUERY_VPORT_STATE_OUT_state         MLX5_FIELD(3, 3, 0)
#define VPORT_IN_other_vport                MLX5_FIELD(2, 31, 31)
#define VPORT_IN_vport_number               MLX5_FIELD(2, 15, 0)
/* MODIFY_VPORT_STATE (op_mod 1: the E-Switch vport's admin state) */
#define MODIFY_VPORT_STATE_IN_admin_state   MLX5_FIELD(3, 7, 4)
enum {
    MLX5_VPORT_STATE_OP_MOD_VNIC = 0,
    MLX5_VPORT_STATE_OP_MOD_ESW = 1,
    MLX5_VPORT_ADMIN_DOWN = 0,
    MLX5_VPORT_ADMIN_UP = 1,
    MLX5_VPORT_ADMIN_AUTO = 2,
};
/* NIC vport context dword 1: the change event's arming (one shot) */
#define NVC_arm_change_event                MLX5_FIELD(1, 31, 31)
#define NVC_event_on                        MLX5_FIELD(1, 4, 0)
enum {
    MLX5_NVC_EV_UC = 1 << 0,
    MLX5_NVC_EV_MC = 1 << 1,
    MLX5_NVC_EV_PROMISC = 1 << 3,
    MLX5_NVC_EV_MTU = 1 << 4,
};
/* the E-Switch flow table caps: the ingress and egress ACLs' properties */
#define ESW_FT_CAP_acl_in_ft_support        MLX5_FIELD(32, 31, 31)
#define ESW_FT_CAP_acl_in_log_max_ft_size   MLX5_FIELD(33, 29, 24)
#define ESW_FT_CAP_acl_in_max_ft_level      MLX5_FIELD(33, 7, 0)
#define ESW_FT_CAP_acl_in_log_max_modify_header_context MLX5_FIELD(33, 23, 16)
#define ESW_FT_CAP_acl_in_max_modify_header_actions MLX5_FIELD(33, 15, 8)
#define ESW_FT_CAP_acl_out_ft_support       MLX5_FIELD(48, 31, 31)
#define ESW_FT_CAP_acl_out_log_max_ft_size  MLX5_FIELD(49, 29, 24)
#define ESW_FT_CAP_acl_out_max_ft_level     MLX5_FIELD(49, 7, 0)
/* the E-Switch caps (page 0x9): the vport context's C-VLAN strip and insert */
#define ESW_CAP_vport_cvlan_strip           MLX5_FIELD(0, 30, 30)
#define ESW_CAP_esw_uplink_ingress_acl      MLX5_FIELD(0, 23, 23)
/* flow_table_eswitch_cap: the registers the FDB passes on to a vport */
#define ESW_FT_CAP_fdb_to_vport_reg_c_id    MLX5_FIELD(0, 31, 24)
/* an FDB entry may name the side it is for (its flow context's flow_source) */
#define ESW_FT_CAP_flow_source              MLX5_FIELD(0, 8, 8)
/* the E-Switch caps' encap: VXLAN tunnels in the FDB, its reformat contexts */
#define ESW_CAP_vxlan_encap_decap           MLX5_FIELD(1, 31, 31)
#define ESW_CAP_log_max_packet_reformat_context MLX5_FIELD(1, 20, 16)
#define ESW_CAP_max_encap_header_size       MLX5_FIELD(1, 9, 0)
#define ESW_CAP_vport_cvlan_insert_if_not_exist MLX5_FIELD(0, 28, 28)
/*
 * QUERY/MODIFY_ESW_VPORT_CONTEXT (other_vport, vport_number as VPORT_IN_*):
 * MODIFY's field select and the context (at ESW_VPORT_IN_CTX_OFF in MODIFY's
 * input, ESW_VPORT_OUT_CTX_OFF in QUERY's output)
 */
#define ESW_VPORT_IN_field_select           MLX5_FIELD(3, 4, 0)
#define ESW_VPORT_IN_CTX_OFF                0x10
#define ESW_VPORT_OUT_CTX_OFF               0x10
#define ESW_VPORT_CTX_SIZE                  0x100
#define ESWC_fdb_to_vport_reg_c             MLX5_FIELD(0, 31, 31)
#define ESWC_vport_svlan_strip              MLX5_FIELD(0, 28, 28)
#define ESWC_vport_cvlan_strip              MLX5_FIELD(0, 27, 27)
#define ESWC_vport_svlan_insert             MLX5_FIELD(0, 26, 26)
#define ESWC_vport_cvlan_insert             MLX5_FIELD(0, 25, 24)
#define ESWC_fdb_to_vport_reg_c_id          MLX5_FIELD(0, 23, 16)
#define ESWC_cvlan_cfi                      MLX5_FIELD(2, 15, 15)
#define ESWC_cvlan_pcp                      MLX5_FIELD(2, 14, 12)
#define ESWC_cvlan_id                       MLX5_FIELD(2, 11, 0)
enum {
    MLX5_ESWC_FS_SVLAN_STRIP = 1 << 0,
    MLX5_ESWC_FS_CVLAN_STRIP = 1 << 1,
    MLX5_ESWC_FS_SVLAN_INSERT = 1 << 2,
    MLX5_ESWC_FS_CVLAN_INSERT = 1 << 3,
    MLX5_ESWC_FS_REG_C_ID = 1 << 4,
    MLX5_ESWC_CVLAN_INSERT_WHEN_NO_CVLAN = 1,
};
/* SET/DELETE_L2_TABLE_ENTRY */
#define L2_IN_table_index                   MLX5_FIELD(5, 23, 0)
/* the misc match set's source vport (in the match parameters) */
#define MS_MISC_source_port_OFF             (MLX5_FTE_MATCH_SET_SIZE + 6)
#define QUERY_NIC_VPORT_IN_allowed_list_type MLX5_FIELD(3, 26, 24)
#define QUERY_NIC_VPORT_OUT_CTX_OFF         0x10
#define MODIFY_NIC_VPORT_IN_field_select    MLX5_FIELD(3, 31, 0)
#define MODIFY_NIC_VPORT_IN_CTX_OFF         0x100
#define NVC_min_wqe_inline_mode             MLX5_FIELD(0, 26, 24)
#define NVC_roce_en                         MLX5_FIELD(0, 0, 0)
#define NVC_mtu                             MLX5_FIELD(9, 15, 0)
#define NVC_system_image_guid_OFF           0x28
#define NVC_port_guid_OFF                   0x30
#define NVC_node_guid_OFF                   0x38
#define NVC_promisc_uc                      MLX5_FIELD(60, 31, 31)
#define NVC_promisc_mc                      MLX5_FIELD(60, 30, 30)
#define NVC_promisc_all                     MLX5_FIELD(60, 29, 29)
#define NVC_allowed_list_type               MLX5_FIELD(60, 26, 24)
#define NVC_allowed_list_size               MLX5_FIELD(60, 11, 0)
#define NVC_permanent_address_OFF           0xf6        /* 6 bytes */
#define NVC_SIZE                            0x100
/* 8 bytes per entry, MAC at +2 */
#define NVC_LIST_OFF                        0x100
enum {
    MLX5_NVC_FS_ROCE_EN = 1 << 1,
    MLX5_NVC_FS_ADDRESSES_LIST = 1 << 2,
    MLX5_NVC_FS_PERMANENT_ADDRESS = 1 << 3,
    MLX5_NVC_FS_PROMISC = 1 << 4,
    MLX5_NVC_FS_CHANGE_EVENT = 1 << 5,
    MLX5_NVC_FS_MTU = 1 << 6,
    MLX5_NVC_FS_NODE_GUID = 1 << 9,
    MLX5_NVC_LIST_UC = 0,
    MLX5_NVC_LIST_MC = 1,
    MLX5_NVC_LIST_VLAN = 2,
};
#define MLX5_NVC_MAX_LIST                   64
#define ALLOC_Q_COUNTER_OUT_counter_set_id  MLX5_FIELD(2, 7, 0)
/* QUERY_Q_COUNTER (in 0x20 bytes) */
#define Q_COUNTER_IN_counter_set_id         MLX5_FIELD(7, 7, 0)
/* DEALLOC_Q_COUNTER (in 0x10 bytes) */
#define DEALLOC_Q_COUNTER_IN_counter_set_id MLX5_FIELD(2, 7, 0)
#define Q_COUNTER_IN_clear                  MLX5_FIELD(6, 31, 31)
#define Q_COUNTER_OUT_SIZE                  0x100
#define VPORT_COUNTER_OUT_SIZE              0x210
#define VPORT_COUNTER_IN_clear              MLX5_FIELD(6, 31, 31)
/*
 * query_vport_counter_out: 16-byte traffic_counter pairs (packets, octets) from
 * byte 0x10
 */
#define VC_received_errors_OFF              0x10
#define VC_transmit_errors_OFF              0x20
#define VC_rx_ib_ucast_OFF                  0x30
#define VC_tx_ib_ucast_OFF                  0x40
#define VC_rx_ib_mcast_OFF                  0x50
#define VC_tx_ib_mcast_OFF                  0x60
#define VC_rx_bcast_OFF                     0x70
#define VC_tx_bcast_OFF                     0x80
#define VC_rx_ucast_OFF                     0x90
#define VC_tx_ucast_OFF                     0xa0
#define VC_rx_mcast_OFF                     0xb0
#define VC_tx_mcast_OFF                     0xc0

/* ---- port registers (ACCESS_REG) ----------------------------------------- */
enum {
    MLX5_REG_PFCC = 0x5007,
    MLX5_REG_PPCNT = 0x5008,
    MLX5_REG_PPLM = 0x5023,
    MLX5_REG_PCAM = 0x507f,
};
/*
 * PPLM: the port's FEC. The legacy link modes' 4-bit fields (10G/40G,
 * 25G, 50G, 100G, 56G from bit 0) of the cap and admin dwords; the active
 * mode's bit in fec_mode_active
 */
#define PPLM_local_port                     MLX5_FIELD(0, 23, 16)
#define PPLM_fec_mode_active                MLX5_FIELD(3, 23, 0)
#define PPLM_fec_override_cap_OFF           0x10
#define PPLM_fec_override_admin_OFF         0x14
#define PPLM_SIZE                           0x50
/* PFCC: global pause and priority flow control */
#define PFCC_prio_mask_tx                   MLX5_FIELD(1, 23, 16)
#define PFCC_prio_mask_rx                   MLX5_FIELD(1, 7, 0)
#define PFCC_pptx                           MLX5_FIELD(2, 31, 31)
#define PFCC_pptx_mask_n                    MLX5_FIELD(2, 29, 29)
#define PFCC_pfctx                          MLX5_FIELD(2, 23, 16)
#define PFCC_pprx                           MLX5_FIELD(3, 31, 31)
#define PFCC_pprx_mask_n                    MLX5_FIELD(3, 29, 29)
#define PFCC_pfcrx                          MLX5_FIELD(3, 23, 16)
#define PFCC_SIZE                           0x20
/* PPCNT's counter groups (0xf8 bytes of counters) */
enum {
    MLX5_PPCNT_IEEE_802_3 = 0x00,
    MLX5_PPCNT_RFC_2863 = 0x01,
    MLX5_PPCNT_PHYSICAL_LAYER = 0x12,
};
#define PPCNT_GROUP_SIZE                    0xf8
#define PPCNT_PHY_link_down_events_OFF      0xc0
#define PMTU_max_mtu                        MLX5_FIELD(1, 31, 16)
#define PMTU_admin_mtu                      MLX5_FIELD(2, 31, 16)
#define PMTU_oper_mtu                       MLX5_FIELD(3, 31, 16)
#define PAOS_admin_status                   MLX5_FIELD(0, 11, 8)
#define PAOS_oper_status                    MLX5_FIELD(0, 3, 0)
#define PAOS_ase                            MLX5_FIELD(1, 31, 31)
#define PTYS_local_port                     MLX5_FIELD(0, 23, 16)
#define PTYS_proto_mask                     MLX5_FIELD(0, 2, 0)
#define PTYS_eth_proto_capability_OFF       0x0c
#define PTYS_eth_proto_admin_OFF            0x18
#define PTYS_eth_proto_oper_OFF             0x24
#define PTYS_connector_type                 MLX5_FIELD(11, 3, 0)
#define PPCNT_grp                           MLX5_FIELD(0, 5, 0)
#define PPCNT_DATA_OFF                      0x08
enum {
    MLX5_PTYS_EN = 1 << 2,
    MLX5_PORT_STATUS_UP = 1,
    MLX5_PORT_STATUS_DOWN = 2,
    MLX5_ETH_10GBASE_CR = 1u << 12,     /* (10GBase-CR, legacy PTYS bit 12) */
    MLX5_PORT_CONNECTOR_DA = 7,
};

/* ---- Ethernet WQEs and CQEs ---------------------------------------------- */
#define MLX5_OPCODE_LSO                     0x0e
/* enhanced multi-packet send: one data segment (or inline segment) per frame */
#define MLX5_OPCODE_ENHANCED_MPSW           0x29
#define MLX5_INLINE_SEG                     0x80000000u
/* in the WQE, after the ctrl segment */
#define MLX5_ESEG_OFF                       0x10
#define MLX5_ESEG_cs_flags                  0x04
#define MLX5_ESEG_mss                       0x06        /* be16 */
#define MLX5_ESEG_inline_sz                 0x0c        /* be16 */
/* first 2 inline header bytes */
#define MLX5_ESEG_inline                    0x0e
#define MLX5_ETH_WQE_L3_INNER_CSUM          0x10
#define MLX5_ETH_WQE_L4_INNER_CSUM          0x20
#define MLX5_ETH_WQE_L3_CSUM                0x40
#define MLX5_ETH_WQE_L4_CSUM                0x80
#define MLX5_ETH_WQE_CSUM_ALL               0xf0
#define MLX5_CQE_hds_ip_ext                 0x1c
#define MLX5_CQE_L3_OK                      (1u << 1)
#define MLX5_CQE_L4_OK                      (1u << 2)
/* an LRO CQE (lro_num_seg in srqn_uidx bits 31:24) */
#define MLX5_CQE_lro_tcppsh                 0x04        /* bit 6: PSH */
#define MLX5_CQE_lro_min_ttl                0x05
#define MLX5_CQE_lro_tcp_win                0x06        /* be16 */
#define MLX5_CQE_lro_ack_seq_num            0x08        /* be32 */
#define MLX5_CQE_LRO_PSH                    0x40
#define MLX5_CQE_L4_HDR_TCP_ACK_AND_DATA    4
/* TIR packet_merge_mask */
#define MLX5_TIRC_LRO_IPV4                  1
#define MLX5_TIRC_LRO_IPV6                  2

#endif
