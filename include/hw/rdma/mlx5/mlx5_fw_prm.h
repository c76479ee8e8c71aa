/*
 * mlx5 PRM layouts of the management (firmware) plane: the access registers
 * of firmware components (MCAM, MCQS, MCQI) and of the cable module (PMLP,
 * MCIA). Offsets as MLX5_FIELD(dword, hi,
 * lo) from the start of the register; names follow mlx5_ifc.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_MLX5_FW_PRM_H
#define HW_RDMA_MLX5_FW_PRM_H

#include "hw/rdma/mlx5/mlx5_prm.h"

/* the hardware ID of a ConnectX-5 (MGIR, the CR space at 0xf0014) */
#define MLX5_HW_ID_CX5                      0x20d

/* cmd_hca_cap: the management capability registers */
#define CAP_mcam_reg                        MLX5_FIELD(13, 22, 22)
#define CAP_pcam_reg                        MLX5_FIELD(13, 21, 21)

/*
 * cmd_hca_cap: the synchronized firmware reset (mlx5_core's fw_reset.c): the
 * fast teardown, the general events, and the driver's "I take the sync events"
 * and "reset me with a hot reset", set by SET_HCA_CAP when the max has them
 */
#define CAP_fast_teardown                   MLX5_FIELD(7, 4, 4)
#define CAP_general_notification_event      MLX5_FIELD(14, 13, 13)
#define CAP_pci_sync_for_fw_update_event    MLX5_FIELD(15, 14, 14)
#define CAP_pcie_reset_using_hotreset_method MLX5_FIELD(25, 10, 10)

/* TEARDOWN_HCA profiles */
enum {
    MLX5_TEARDOWN_GRACEFUL_CLOSE = 0,
    MLX5_TEARDOWN_FORCE_CLOSE = 1,
    MLX5_TEARDOWN_PREPARE_FAST = 2,
};

/* the general event (0x22) and its sub-types */
#define MLX5_EVENT_TYPE_GENERAL_EVENT       0x22
#define MLX5_GENERAL_SUBTYPE_PCI_SYNC_FOR_FW_UPDATE 0x08
/* its data: sync_rst_state in byte 3 (EQE byte 0x23) */
enum {
    MLX5_SYNC_RST_STATE_REQUEST = 0,
    MLX5_SYNC_RST_STATE_NOW = 1,
    MLX5_SYNC_RST_STATE_ABORT = 2,
    MLX5_SYNC_RST_STATE_UNLOAD = 3,
};

/*
 * MFRL (0x9028), the firmware reset level register: the levels and types the
 * device offers, the reset armed (a level written), the sync reset's start and
 * the driver's answer, and the state of the negotiation
 */
#define MFRL_pci_sync_for_fw_update_start   MLX5_FIELD(1, 29, 29)
#define MFRL_pci_sync_for_fw_update_resp    MLX5_FIELD(1, 28, 27)
#define MFRL_rst_type_sel                   MLX5_FIELD(1, 26, 24)
#define MFRL_pci_reset_req_method           MLX5_FIELD(1, 23, 21)
#define MFRL_reset_state                    MLX5_FIELD(1, 19, 16)
#define MFRL_reset_type                     MLX5_FIELD(1, 15, 8)
#define MFRL_reset_level                    MLX5_FIELD(1, 7, 0)
#define MFRL_SIZE                           0x08
enum {
    MLX5_MFRL_LEVEL0 = 0x01,            /* live patch */
    MLX5_MFRL_LEVEL3 = 0x08,            /* at the next PCI reset */
    MLX5_MFRL_LEVEL6 = 0x40,            /* at the next reboot */
    MLX5_MFRL_TYPE_FULL_CHIP = 0x01,
    MLX5_MFRL_TYPE_NET_PORT_ALIVE = 0x02,
    MLX5_MFRL_RESP_ACK = 1,
    MLX5_MFRL_RESP_NACK = 2,
    MLX5_MFRL_METHOD_LINK_TOGGLE = 0,
    MLX5_MFRL_METHOD_HOT_RESET = 1,
    MLX5_MFRL_STATE_IDLE = 0,
    MLX5_MFRL_STATE_IN_NEGOTIATION = 1,
    MLX5_MFRL_STATE_RESET_IN_PROGRESS = 2,
    MLX5_MFRL_STATE_NEG_TIMEOUT = 3,
    MLX5_MFRL_STATE_NACK = 4,
};
/*
 * MROQ (0x902f), the reset options of a level and type: which sync owners
 * (bit 0 the tool, 1 the driver, 2 the firmware) and PCI reset methods (bit 0
 * link disable, 1 hot reset) there are; mstfwreset reads it
 */
#define MROQ_pci_reset_req_method           MLX5_FIELD(0, 31, 24)
#define MROQ_pci_sync_for_fw_update_start   MLX5_FIELD(0, 20, 17)
#define MROQ_query_is_valid                 MLX5_FIELD(0, 16, 16)
#define MROQ_reset_type                     MLX5_FIELD(0, 15, 8)
#define MROQ_reset_trigger                  MLX5_FIELD(0, 7, 0)
#define MROQ_SIZE                           0x04
enum {
    MLX5_MROQ_SYNC_DRIVER = 1u << 1,
    MLX5_MROQ_METHOD_LINK_DISABLE = 1u << 0,
};

/*
 * MCAM's feature mask (128 bits, big-endian; offsets from its first bit):
 * MFRL's reset_state is there (0x6a), and the driver may own the PCI reset
 * of level 3 (0x6c, bit 19 from the end: mstfwreset's "reset sync 1")
 */
#define MCAM_feature_reset_state_BYTE       (MCAM_features_OFF + 0x6a / 8)
#define MCAM_feature_reset_state_BIT        (7 - 0x6a % 8)
#define MCAM_feature_sync_driver_BYTE       (MCAM_features_OFF + 0x6c / 8)
#define MCAM_feature_sync_driver_BIT        (7 - 0x6c % 8)

enum {
    MLX5_REG_PMLP = 0x5002,
    MLX5_REG_MCIA = 0x9014,
    MLX5_REG_MGIR = 0x9020,
    MLX5_REG_MNVDA = 0x9024,
    MLX5_REG_MNVDI = 0x9025,
    MLX5_REG_MFRL = 0x9028,
    MLX5_REG_MROQ = 0x902f,
    MLX5_REG_MNVQC = 0x9030,
    MLX5_REG_MNVIA = 0x9033,
    MLX5_REG_MNVGC = 0x9034,
    MLX5_REG_MCQS = 0x9060,
    MLX5_REG_MCQI = 0x9061,
    MLX5_REG_MCC = 0x9062,
    MLX5_REG_MCDA = 0x9063,
    MLX5_REG_MQIS = 0x9064,
    MLX5_REG_MCAM = 0x907f,
    MLX5_REG_DTOR = 0xc00e,
};

/*
 * DTOR: the firmware's default timeouts, one dword each: multiplier [31:29]
 * (0 ms, 1 s, 2 min, 3 h) and value [19:0]; 0 leaves the driver's own
 */
#define DTOR_pcie_toggle_to_DW              1
#define DTOR_health_poll_to_DW              5
#define DTOR_reset_unload_to_DW             14
#define DTOR_SIZE                           0x40

/*
 * MCAM: which management registers and features there are. Group 0 of the
 * access registers is 0x9000..0x907f, register 0x9000 + r at bit r of the
 * 128-bit mask (big-endian).
 */
#define MCAM_feature_group                  MLX5_FIELD(0, 23, 16)
#define MCAM_access_reg_group               MLX5_FIELD(0, 7, 0)
#define MCAM_access_regs_OFF                0x08
#define MCAM_features_OFF                   0x28
#define MCAM_SIZE                           0x48
/* PCAM (0x507f): the same layout for the port registers (0x5000..0x507f) */
#define PCAM_SIZE                           0x50

/* MCQS: component status, by index */
#define MCQS_last_index_flag                MLX5_FIELD(0, 31, 31)
#define MCQS_component_index                MLX5_FIELD(0, 15, 0)
#define MCQS_identifier                     MLX5_FIELD(1, 15, 0)
#define MCQS_component_status               MLX5_FIELD(2, 8, 4)
#define MCQS_component_update_state         MLX5_FIELD(2, 3, 0)
#define MCQS_SIZE                           0x10
enum {
    MLX5_MCQS_IDENTIFIER_BOOT_IMG = 1,
    MLX5_MCQS_STATUS_PRESENT = 1,
    MLX5_MCQS_UPDATE_STATE_IDLE = 0,
    MLX5_MCQS_UPDATE_STATE_ACTIVE_PENDING_RESET = 4,
};

/* MCQI: component information */
#define MCQI_read_pending_component         MLX5_FIELD(0, 31, 31)
#define MCQI_component_index                MLX5_FIELD(0, 15, 0)
#define MCQI_info_type                      MLX5_FIELD(2, 4, 0)
#define MCQI_info_size                      MLX5_FIELD(3, 31, 0)
#define MCQI_offset                         MLX5_FIELD(4, 31, 0)
#define MCQI_data_size                      MLX5_FIELD(5, 15, 0)
#define MCQI_DATA_OFF                       0x18
enum {
    MLX5_MCQI_INFO_CAPABILITIES = 0,
    MLX5_MCQI_INFO_VERSION = 1,
    MLX5_MCQI_INFO_ACTIVATION_METHOD = 5,
};
/* mcqi_cap (from MCQI_DATA_OFF) */
#define MCQI_CAP_supported_info_bitmask     MLX5_FIELD(0, 31, 0)
#define MCQI_CAP_component_size             MLX5_FIELD(1, 31, 0)
#define MCQI_CAP_max_component_size         MLX5_FIELD(2, 31, 0)
#define MCQI_CAP_log_mcda_word_size         MLX5_FIELD(3, 31, 28)
#define MCQI_CAP_mcda_max_write_size        MLX5_FIELD(3, 15, 0)
#define MCQI_CAP_rd_en                      MLX5_FIELD(4, 31, 31)
#define MCQI_CAP_match_psid                 MLX5_FIELD(4, 28, 28)
#define MCQI_CAP_SIZE                       0x14
/* mcqi_version */
#define MCQI_VER_build_time_valid           MLX5_FIELD(0, 29, 29)
#define MCQI_VER_version_string_length      MLX5_FIELD(0, 7, 0)
#define MCQI_VER_version                    MLX5_FIELD(1, 31, 0)
#define MCQI_VER_build_time_OFF             0x08
#define MCQI_VER_version_string_OFF         0x20
#define MCQI_VER_SIZE                       0x7c
/* mcqi_activation_method */
#define MCQI_ACT_pending_fw_reset           MLX5_FIELD(0, 28, 28)

/* MGIR: general information (hardware, firmware) */
#define MGIR_hw_device_hw_revision          MLX5_FIELD(0, 31, 16)
#define MGIR_hw_device_id                   MLX5_FIELD(0, 15, 0)
#define MGIR_hw_num_ports                   MLX5_FIELD(1, 23, 16)
#define MGIR_hw_hw_dev_id                   MLX5_FIELD(2, 15, 0)
#define MGIR_hw_base_mac_47_32              MLX5_FIELD(4, 15, 0)
#define MGIR_hw_base_mac_31_0               MLX5_FIELD(5, 31, 0)
#define MGIR_hw_uptime                      MLX5_FIELD(7, 31, 0)
#define MGIR_fw_major                       MLX5_FIELD(8, 23, 16)
#define MGIR_fw_minor                       MLX5_FIELD(8, 15, 8)
#define MGIR_fw_sub_minor                   MLX5_FIELD(8, 7, 0)
#define MGIR_fw_build_id                    MLX5_FIELD(9, 31, 0)
#define MGIR_fw_month                       MLX5_FIELD(10, 31, 24)
#define MGIR_fw_day                         MLX5_FIELD(10, 23, 16)
#define MGIR_fw_year                        MLX5_FIELD(10, 15, 0)
#define MGIR_fw_hour                        MLX5_FIELD(11, 15, 0)
#define MGIR_fw_psid_OFF                    0x30
#define MGIR_fw_extended_major              MLX5_FIELD(17, 31, 0)
#define MGIR_fw_extended_minor              MLX5_FIELD(18, 31, 0)
#define MGIR_fw_extended_sub_minor          MLX5_FIELD(19, 31, 0)
#define MGIR_SIZE                           0xa0

/*
 * MQIS: the device's strings (name, description, VSDs), read 8 bytes or
 * more at a time from read_offset
 */
#define MQIS_info_type                      MLX5_FIELD(0, 7, 0)
#define MQIS_info_length                    MLX5_FIELD(1, 15, 0)
#define MQIS_read_offset                    MLX5_FIELD(2, 31, 16)
#define MQIS_read_length                    MLX5_FIELD(2, 15, 0)
#define MQIS_DATA_OFF                       0x10
#define MQIS_SIZE                           0x18
enum {
    MLX5_MQIS_MODEL_NAME = 1,
    MLX5_MQIS_MODEL_DESCRIPTION = 2,
    MLX5_MQIS_IMAGE_VSD = 3,
    MLX5_MQIS_DEVICE_VSD = 4,
    MLX5_MQIS_ROM_INFO = 5,
};

/*
 * MCC: the component update's control (an update handle, the state of its
 * state machine and the error of the last step)
 */
#define MCC_time_elapsed_since_last_cmd     MLX5_FIELD(0, 27, 16)
#define MCC_instruction                     MLX5_FIELD(0, 7, 0)
#define MCC_component_index                 MLX5_FIELD(1, 15, 0)
#define MCC_update_handle                   MLX5_FIELD(2, 23, 0)
#define MCC_control_progress                MLX5_FIELD(3, 22, 16)
#define MCC_error_code                      MLX5_FIELD(3, 15, 8)
#define MCC_control_state                   MLX5_FIELD(3, 3, 0)
#define MCC_component_size                  MLX5_FIELD(4, 31, 0)
#define MCC_SIZE                            0x20
enum {
    MLX5_MCC_QUERY = 0,
    MLX5_MCC_LOCK_UPDATE_HANDLE = 1,
    MLX5_MCC_RELEASE_UPDATE_HANDLE = 2,
    MLX5_MCC_UPDATE_COMPONENT = 3,
    MLX5_MCC_VERIFY_COMPONENT = 4,
    MLX5_MCC_ACTIVATE = 6,
    MLX5_MCC_CANCEL = 8,
};
enum {
    MLX5_FSM_IDLE = 0,
    MLX5_FSM_LOCKED = 1,
    MLX5_FSM_INITIALIZE = 2,
    MLX5_FSM_DOWNLOAD = 3,
    MLX5_FSM_VERIFY = 4,
    MLX5_FSM_APPLY = 5,
    MLX5_FSM_ACTIVATE = 6,
};
enum {
    MLX5_FSM_OK = 0,
    MLX5_FSM_ERROR = 1,
    MLX5_FSM_REJECTED_DIGEST_ERR = 2,
    MLX5_FSM_REJECTED_NOT_APPLICABLE = 3,
    MLX5_FSM_REJECTED_BAD_FORMAT = 8,
};

/* MCDA: a block of the component, dwords byte-swapped as mlx5_core sends */
#define MCDA_update_handle                  MLX5_FIELD(0, 23, 0)
#define MCDA_offset                         MLX5_FIELD(1, 31, 0)
#define MCDA_size                           MLX5_FIELD(2, 15, 0)
#define MCDA_DATA_OFF                       0x10

/*
 * The non-volatile configuration: MNVQC (dword 0 a TLV type; dword 1
 * [0] readable, [1] writable, [7:4] version), MNVDA (a 12-byte header, then
 * the TLV's value), MNVDI (the header: reset one TLV), MNVIA (reset all)
 */
#define MNVQC_SIZE                          0x08
#define MNVDA_LENGTH_MASK                   0x1ffu
#define MNVDA_READ_CURRENT                  (1u << 22)
#define MNVDA_DEFAULT                       (1u << 23)
#define MNVDA_RD_EN                         (1u << 24)
#define MNVDA_OVER_EN                       (1u << 25)
#define MNVDA_DATA_OFF                      0x0c
#define MNVDI_SIZE                          0x0c
#define MNVIA_SIZE                          0x08
/* MNVGC: dword 0 [0] factory (default) values readable, [1] current ones */
#define MNVGC_SIZE                          0x10

/* PMLP: the port's lanes and the module they go to */
#define PMLP_local_port                     MLX5_FIELD(0, 23, 16)
#define PMLP_width                          MLX5_FIELD(0, 7, 0)
#define PMLP_lane_OFF                       0x04        /* 4 bytes a lane */
#define PMLP_lane_rx_lane                   MLX5_FIELD(0, 27, 24)
#define PMLP_lane_tx_lane                   MLX5_FIELD(0, 19, 16)
#define PMLP_lane_module                    MLX5_FIELD(0, 7, 0)
#define PMLP_SIZE                           0x40

/* MCIA: read the module's EEPROM (its I2C device, page, offset) */
#define MCIA_l                              MLX5_FIELD(0, 31, 31)
#define MCIA_module                         MLX5_FIELD(0, 23, 16)
#define MCIA_status                         MLX5_FIELD(0, 7, 0)
#define MCIA_i2c_device_address             MLX5_FIELD(1, 31, 24)
#define MCIA_page_number                    MLX5_FIELD(1, 23, 16)
#define MCIA_device_address                 MLX5_FIELD(1, 15, 0)
#define MCIA_size                           MLX5_FIELD(2, 15, 0)
#define MCIA_DATA_OFF                       0x10
/* 12 dwords a read (mcam mcia_32dwords, which allows 32, is not offered) */
#define MCIA_MAX_BYTES                      48
enum {
    MLX5_MCIA_STATUS_GOOD = 0,
    MLX5_MCIA_STATUS_NOT_CONNECTED = 3,
    MLX5_MCIA_STATUS_I2C_ERROR = 9,
};
#define MLX5_I2C_ADDR_LOW                   0x50
/* PORT_MODULE_EVENT's module status */
enum {
    MLX5_MODULE_STATUS_PLUGGED = 1,
    MLX5_MODULE_STATUS_UNPLUGGED = 2,
};

#endif
