/*
 * mlx5 PRM: software steering on a ConnectX-5 (STE format v0): the general
 * object commands and the SW ICM object, the caps that offer steering ICM
 * (device memory page, NIC flow table page, RoCE force-loopback bits), the
 * flow table context's ICM roots, and the 64-byte steering entry (STE) the
 * software writes into ICM. Same conventions as mlx5_prm.h: (dword, high bit,
 * low bit) triples named after mlx5_ifc.h (the kernel's; the STE and its
 * lookup layouts after rdma-core's providers/mlx5/mlx5_ifc.h), relative to
 * the named structure. docs/sw-steering-notes.md has the sources.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_MLX5_STE_PRM_H
#define HW_RDMA_MLX5_STE_PRM_H

#include "hw/rdma/mlx5/mlx5_prm.h"

enum {
    MLX5_CMD_OP_CREATE_GENERAL_OBJECT = 0xa00,
    MLX5_CMD_OP_MODIFY_GENERAL_OBJECT = 0xa01,
    MLX5_CMD_OP_QUERY_GENERAL_OBJECT = 0xa02,
    MLX5_CMD_OP_DESTROY_GENERAL_OBJECT = 0xa03,
    MLX5_CMD_OP_SYNC_STEERING = 0xb00,
};

/* general object types (general_obj_in_cmd_hdr.obj_type) */
enum {
    MLX5_OBJ_TYPE_SW_ICM = 0x0008,
    MLX5_OBJ_TYPE_FLOW_METER = 0x000a,
    MLX5_OBJ_TYPE_FLOW_SAMPLER = 0x0020,
};

/* general_obj_in_cmd_hdr / general_obj_out_cmd_hdr */
#define GOBJ_IN_obj_type                    MLX5_FIELD(1, 15, 0)
#define GOBJ_IN_obj_id                      MLX5_FIELD(2, 31, 0)
#define GOBJ_OUT_obj_id                     MLX5_FIELD(2, 31, 0)
#define GOBJ_HDR_SIZE                       0x10
/* sw_icm, after the header (create in, query out) */
#define SW_ICM_log_sw_icm_size              MLX5_FIELD(2, 7, 0)
#define SW_ICM_start_addr_OFF               0x10
#define SW_ICM_SIZE                         0x40

/* flow_sampler, after the header (create in, query out) */
#define SAMPLER_table_type                  MLX5_FIELD(2, 31, 24)
#define SAMPLER_level                       MLX5_FIELD(2, 23, 16)
#define SAMPLER_sample_ratio                MLX5_FIELD(3, 31, 0)
#define SAMPLER_sample_table_id             MLX5_FIELD(4, 23, 0)
#define SAMPLER_default_table_id            MLX5_FIELD(5, 23, 0)
#define SAMPLER_icm_rx_OFF                  0x18
#define SAMPLER_icm_tx_OFF                  0x20
#define SAMPLER_SIZE                        0x28

/*
 * flow_meter (the legacy meter object, before ASO meters), after the header
 * (create and modify in, query out); its parameters at METER_PARAMS_OFF
 */
#define METER_modify_field_select_31_0      MLX5_FIELD(1, 31, 0)
#define METER_active                        MLX5_FIELD(2, 31, 31)
#define METER_return_reg_id                 MLX5_FIELD(2, 27, 24)
#define METER_table_type                    MLX5_FIELD(2, 23, 16)
#define METER_destination_table_id          MLX5_FIELD(3, 23, 0)
#define METER_PARAMS_OFF                    0x20
#define METER_icm_rx_OFF                    0x70
#define METER_icm_tx_OFF                    0x78
#define METER_SIZE                          0x80
/* MODIFY_GENERAL_OBJECT's modify_field_select bits */
enum {
    MLX5_METER_MODIFY_ACTIVE = 1u << 0,
    MLX5_METER_MODIFY_CBS = 1u << 1,
    MLX5_METER_MODIFY_CIR = 1u << 2,
    MLX5_METER_MODIFY_EBS = 1u << 3,
    MLX5_METER_MODIFY_EIR = 1u << 4,
};
/* flow_meter_parameters */
#define FMP_valid                           MLX5_FIELD(0, 31, 31)
#define FMP_bucket_overflow                 MLX5_FIELD(0, 30, 30)
#define FMP_start_color                     MLX5_FIELD(0, 29, 28)
#define FMP_both_buckets_on_green           MLX5_FIELD(0, 27, 27)
#define FMP_meter_mode                      MLX5_FIELD(0, 25, 24)
#define FMP_cbs_exponent                    MLX5_FIELD(2, 31, 24)
#define FMP_cbs_mantissa                    MLX5_FIELD(2, 23, 16)
#define FMP_cir_exponent                    MLX5_FIELD(2, 12, 8)
#define FMP_cir_mantissa                    MLX5_FIELD(2, 7, 0)
#define FMP_ebs_exponent                    MLX5_FIELD(4, 31, 24)
#define FMP_ebs_mantissa                    MLX5_FIELD(4, 23, 16)
#define FMP_eir_exponent                    MLX5_FIELD(4, 12, 8)
#define FMP_eir_mantissa                    MLX5_FIELD(4, 7, 0)
/* the colours a meter writes into its return register */
enum {
    MLX5_METER_RED = 0,
    MLX5_METER_YELLOW = 1,
    MLX5_METER_GREEN = 2,
};

/* cmd_hca_cap */
#define CAP_fl_rc_qp_when_roce_disabled     MLX5_FIELD(18, 23, 23)
#define CAP_general_obj_types_OFF           0x80    /* 64 bit */
/* roce_cap */
#define ROCE_CAP_fl_rc_qp_when_roce_disabled MLX5_FIELD(0, 26, 26)
#define ROCE_CAP_fl_rc_qp_when_roce_enabled MLX5_FIELD(0, 25, 25)

/* device_mem_cap: the SW ICM regions */
#define DEV_MEM_CAP_steering_sw_icm_start_address_OFF 0x18
#define DEV_MEM_CAP_log_header_modify_sw_icm_size MLX5_FIELD(8, 23, 16)
#define DEV_MEM_CAP_log_sw_icm_alloc_granularity MLX5_FIELD(8, 13, 8)
#define DEV_MEM_CAP_log_steering_sw_icm_size MLX5_FIELD(8, 7, 0)
#define DEV_MEM_CAP_header_modify_sw_icm_start_address_OFF 0x28

/* flow_table_nic_cap: the tables may be software owned */
#define FT_CAP_nic_rx_sw_owner              MLX5_FIELD(16, 14, 14)
#define FT_CAP_nic_tx_sw_owner              MLX5_FIELD(64, 14, 14)
#define FT_CAP_sw_steering_nic_rx_action_drop_icm_address_OFF 0x400
#define FT_CAP_sw_steering_nic_tx_action_drop_icm_address_OFF 0x408
#define FT_CAP_sw_steering_nic_tx_action_allow_icm_address_OFF 0x410

/*
 * flow_table_eswitch_cap: the FDB may be software owned (at the NIC RX place,
 * FT_CAP_nic_rx_sw_owner) and where its entries drop or reach the uplink
 */
#define ESW_FT_CAP_sw_steering_fdb_action_drop_icm_address_rx_OFF 0x300
#define ESW_FT_CAP_sw_steering_fdb_action_drop_icm_address_tx_OFF 0x308
#define ESW_FT_CAP_sw_steering_uplink_icm_address_rx_OFF 0x310
#define ESW_FT_CAP_sw_steering_uplink_icm_address_tx_OFF 0x318
/* esw_vport_context: where the FDB's entries reach the vport */
#define ESWC_sw_steering_vport_icm_address_rx_OFF 0xf0
#define ESWC_sw_steering_vport_icm_address_tx_OFF 0xf8

/* flow_table_context (at FT_CTX_OFF of CREATE in and QUERY out) */
#define FTC_sw_owner                        MLX5_FIELD(0, 29, 29)
#define FTC_sw_owner_icm_root_1_OFF         0x18
#define FTC_sw_owner_icm_root_0_OFF         0x20
/* create_flow_table_out and create_tir_out: the object's ICM address */
#define ICM_OUT_63_40                       MLX5_FIELD(0, 23, 0)
#define ICM_OUT_39_32                       MLX5_FIELD(2, 31, 24)
#define ICM_OUT_31_0                        MLX5_FIELD(3, 31, 0)

/* mkey context access mode: steering ICM, zero based */
#define MLX5_MKC_ACCESS_MODE_SW_ICM         4

/* ---- the steering entry, STE v0 (64 bytes) ---------------------------- */

#define MLX5_STE_SIZE                       64
#define MLX5_STE_CTRL_SIZE                  32
#define MLX5_STE_TAG_OFF                    32
#define MLX5_STE_MASK_OFF                   48
#define MLX5_STE_TAG_SIZE                   16

enum {
    MLX5_STE_TYPE_TX = 1,
    MLX5_STE_TYPE_RX = 2,
    MLX5_STE_TYPE_MODIFY_PKT = 6,
};

/* ste_general and the control words every entry type shares */
#define STE_entry_type                      MLX5_FIELD(0, 31, 28)
#define STE_entry_sub_type                  MLX5_FIELD(0, 23, 16)
#define STE_byte_mask                       MLX5_FIELD(0, 15, 0)
#define STE_next_lu_type                    MLX5_FIELD(1, 15, 8)
#define STE_next_table_base_39_32_size      MLX5_FIELD(1, 7, 0)
#define STE_next_table_base_31_5_size       MLX5_FIELD(2, 31, 5)
#define STE_counter_trigger_23_16           MLX5_FIELD(6, 15, 8)
#define STE_miss_address_39_32              MLX5_FIELD(6, 7, 0)
#define STE_miss_address_31_6               MLX5_FIELD(7, 31, 6)
/* ste_rx_steering_mult (and ste_modify_packet) */
#define STE_RX_qp_list_pointer              MLX5_FIELD(4, 31, 0)
#define STE_RX_tunneling_action             MLX5_FIELD(5, 30, 28)
#define STE_RX_action_description           MLX5_FIELD(5, 27, 24)
/* (at the same place in TX entries) */
#define STE_RX_counter_trigger_15_0         MLX5_FIELD(5, 15, 0)
/* ste_modify_packet */
#define STE_MOD_number_of_re_write_actions  MLX5_FIELD(3, 31, 16)
#define STE_MOD_header_re_write_actions_pointer MLX5_FIELD(4, 31, 0)
/* ste_sx_transmit */
#define STE_TX_action_type                  MLX5_FIELD(3, 25, 23)
#define STE_TX_action_description           MLX5_FIELD(3, 21, 16)
#define STE_TX_encap_pointer_vlan_data      MLX5_FIELD(4, 31, 0)
/* qp_list_pointer: the flow tag is valid */
#define MLX5_STE_FLOW_TAG_EN                0x80000000u

/* lookup types (entry_sub_type, next_lu_type): _O outer TX, _D outer RX */
enum {
    MLX5_STE_LU_SRC_GVMI_AND_QP = 0x05,
    MLX5_STE_LU_ETHL2_DST_O = 0x06,
    MLX5_STE_LU_ETHL2_DST_I = 0x07,
    MLX5_STE_LU_ETHL2_SRC_O = 0x08,
    MLX5_STE_LU_ETHL2_SRC_I = 0x09,
    /* the inner L2 header and the VXLAN VNI (ste_eth_l2_tnl) */
    MLX5_STE_LU_ETHL2_TUNNELING_I = 0x0a,
    MLX5_STE_LU_ETHL3_IPV6_DST_O = 0x0d,
    MLX5_STE_LU_ETHL3_IPV6_DST_I = 0x0e,
    /* = ETHL3_IPV6_SRC_O; tag and mask 0 (anchors, empty matchers) */
    MLX5_STE_LU_DONT_CARE = 0x0f,
    MLX5_STE_LU_ETHL3_IPV6_SRC_I = 0x10,
    MLX5_STE_LU_ETHL3_IPV4_5_TUPLE_O = 0x11,
    MLX5_STE_LU_ETHL3_IPV4_5_TUPLE_I = 0x12,
    MLX5_STE_LU_ETHL4_O = 0x13,
    MLX5_STE_LU_ETHL4_I = 0x14,
    MLX5_STE_LU_GENERAL_PURPOSE = 0x18,
    /* the flex parser's tunnel header: GENEVE's (flex_parser_protocols) */
    MLX5_STE_LU_FLEX_PARSER_TNL_HEADER = 0x19,
    MLX5_STE_LU_ETHL2_DST_D = 0x1b,
    MLX5_STE_LU_ETHL2_SRC_D = 0x1c,
    MLX5_STE_LU_ETHL3_IPV6_DST_D = 0x1e,
    MLX5_STE_LU_ETHL3_IPV6_SRC_D = 0x1f,
    MLX5_STE_LU_ETHL3_IPV4_5_TUPLE_D = 0x20,
    MLX5_STE_LU_ETHL4_D = 0x21,
    MLX5_STE_LU_ETHL3_IPV4_MISC_O = 0x29,
    MLX5_STE_LU_ETHL3_IPV4_MISC_I = 0x2a,
    MLX5_STE_LU_ETHL3_IPV4_MISC_D = 0x2b,
    MLX5_STE_LU_STEERING_REGISTERS_0 = 0x2f,
    MLX5_STE_LU_STEERING_REGISTERS_1 = 0x30,
    MLX5_STE_LU_ETHL2_SRC_DST_O = 0x36,
    MLX5_STE_LU_ETHL2_SRC_DST_I = 0x37,
    MLX5_STE_LU_ETHL2_SRC_DST_D = 0x38,
};

/* the lookup keys (16 bytes, the tag's layout), ste_eth_l2_src/dst */
#define STE_L2_l3_ethertype                 MLX5_FIELD(1, 15, 0)
#define STE_L2_first_priority               MLX5_FIELD(2, 19, 17)
#define STE_L2_first_cfi                    MLX5_FIELD(2, 16, 16)
#define STE_L2_first_vlan_qualifier         MLX5_FIELD(2, 15, 14)
#define STE_L2_first_vlan_id                MLX5_FIELD(2, 11, 0)
#define STE_L2_ip_fragmented                MLX5_FIELD(3, 31, 31)
#define STE_L2_l3_type                      MLX5_FIELD(3, 27, 26)
/* ste_eth_l2_tnl: ste_eth_l2_dst's with the VNI in dword 2 */
#define STE_L2TNL_network_id                MLX5_FIELD(2, 31, 0)
#define STE_L2TNL_ip_fragmented             MLX5_FIELD(3, 31, 31)
#define STE_L2TNL_l3_type                   MLX5_FIELD(3, 27, 26)
#define STE_L2TNL_first_priority            MLX5_FIELD(3, 23, 21)
#define STE_L2TNL_first_cfi                 MLX5_FIELD(3, 20, 20)
#define STE_L2TNL_first_vlan_qualifier      MLX5_FIELD(3, 15, 14)
#define STE_L2TNL_first_vlan_id             MLX5_FIELD(3, 11, 0)
/* ste_eth_l2_src_dst */
#define STE_L2SD_l3_type                    MLX5_FIELD(3, 27, 26)
#define STE_L2SD_first_priority             MLX5_FIELD(3, 19, 17)
#define STE_L2SD_first_cfi                  MLX5_FIELD(3, 16, 16)
#define STE_L2SD_first_vlan_qualifier       MLX5_FIELD(3, 15, 14)
#define STE_L2SD_first_vlan_id              MLX5_FIELD(3, 11, 0)
/* ste_eth_l3_ipv4_5_tuple */
#define STE_L3V4_source_port                MLX5_FIELD(2, 31, 16)
#define STE_L3V4_destination_port           MLX5_FIELD(2, 15, 0)
#define STE_L3V4_fragmented                 MLX5_FIELD(3, 31, 31)
#define STE_L3V4_ecn                        MLX5_FIELD(3, 26, 25)
#define STE_L3V4_tcp_flags                  MLX5_FIELD(3, 24, 16)
#define STE_L3V4_dscp                       MLX5_FIELD(3, 15, 10)
#define STE_L3V4_protocol                   MLX5_FIELD(3, 7, 0)
/* ste_eth_l4 */
#define STE_L4_fragmented                   MLX5_FIELD(0, 31, 31)
#define STE_L4_protocol                     MLX5_FIELD(0, 23, 16)
#define STE_L4_dst_port                     MLX5_FIELD(0, 15, 0)
#define STE_L4_ipv6_version                 MLX5_FIELD(1, 31, 28)
#define STE_L4_ecn                          MLX5_FIELD(1, 26, 25)
#define STE_L4_tcp_flags                    MLX5_FIELD(1, 24, 16)
#define STE_L4_src_port                     MLX5_FIELD(1, 15, 0)
#define STE_L4_ipv6_hop_limit               MLX5_FIELD(2, 15, 8)
#define STE_L4_dscp                         MLX5_FIELD(2, 7, 2)
/* ste_eth_l3_ipv4_misc */
#define STE_L3MISC_time_to_live             MLX5_FIELD(2, 31, 24)
/* ste_src_gvmi_qp */
#define STE_SRCQP_source_gvmi               MLX5_FIELD(0, 15, 0)
#define STE_SRCQP_source_qp                 MLX5_FIELD(1, 23, 0)

/* ste_flex_parser_tnl_geneve */
#define STE_GENEVE_opt_len                  MLX5_FIELD(0, 29, 24)
#define STE_GENEVE_oam                      MLX5_FIELD(0, 23, 23)
#define STE_GENEVE_protocol_type            MLX5_FIELD(0, 15, 0)
#define STE_GENEVE_vni                      MLX5_FIELD(1, 31, 8)

/* first_vlan_qualifier values, l3_type values */
enum {
    MLX5_STE_SVLAN = 1,
    MLX5_STE_CVLAN = 2,
    MLX5_STE_IPV4 = 1,
    MLX5_STE_IPV6 = 2,
};

#endif
