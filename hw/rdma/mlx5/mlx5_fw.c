/*
 * mlx5 HCA core: the firmware components as the management registers show
 * them (PRM "Management Registers": MCAM, MCQS, MCQI).
 *
 * The device has one component, the boot image (identifier BOOT_IMG, index 0,
 * the last), whose running version is the firmware version of the
 * initialization segment and QUERY_ADAPTER (cfg.fw_major.minor.subminor).
 * mlx5_core reads it for `devlink dev info` (fw.version, running and stored):
 * MCAM must announce MCQS and MCQI (mcam_reg), MCQS finds the boot image's
 * index, MCQI type VERSION reads its version. No image is pending (update
 * state IDLE), so the stored version is the running one.
 *
 * mlx5_fw_reg dispatches the read-only management registers, the cable
 * module's (PMLP, MCIA: mlx5_module.c) too.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "hw/rdma/mlx5/mlx5_fw_prm.h"
#include "hw/rdma/mlx5/mlx5_eth_prm.h"
#include "trace.h"

/* what MQIS names the model */
#define MLX5_MODEL_NAME         "QEMU-MLX5-HCA"
#define MLX5_MODEL_DESCRIPTION  "QEMU emulated ConnectX-5 VPI adapter; " \
                                "single-port QSFP28; EDR IB and 100GbE"

enum {
    MLX5_SYND_FW_COMPONENT = 0x40000001,    /* no such component */
    MLX5_SYND_FW_NOT_PENDING = 0x40000002,  /* no pending image to read */
    MLX5_SYND_FW_INFO_TYPE = 0x40000003,    /* an info type not offered */
};

void mlx5_fw_caps(uint8_t *cap)
{
    MLX5_SET(cap, CAP_mcam_reg, 1);
    MLX5_SET(cap, CAP_pcam_reg, 1);
    /* the cable module's plug events (mlx5_module_event) */
    MLX5_SET(cap, CAP_port_module_event, 1);
}

static void mlx5_reg_mcqs(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    if (MLX5_GET(reg, MCQS_component_index)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_FW_COMPONENT);
        return;
    }
    memset(reg, 0, MCQS_SIZE);
    MLX5_SET(reg, MCQS_last_index_flag, 1);
    MLX5_SET(reg, MCQS_identifier, MLX5_MCQS_IDENTIFIER_BOOT_IMG);
    MLX5_SET(reg, MCQS_component_status, MLX5_MCQS_STATUS_PRESENT);
    MLX5_SET(reg, MCQS_component_update_state,
             c->flash.pending ? MLX5_MCQS_UPDATE_STATE_ACTIVE_PENDING_RESET :
                                MLX5_MCQS_UPDATE_STATE_IDLE);
}

/*
 * The data comes back beyond the register sent (mlx5_reg_mcqi_query sends the
 * header alone): as much as the output takes.
 */
static void mlx5_reg_mcqi(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    uint32_t len = cmd->outlen - ACCESS_REG_DATA_OFF;
    uint8_t info[MCQI_VER_SIZE] = { 0 };
    uint32_t size, want = MLX5_GET(reg, MCQI_data_size);
    uint8_t type = MLX5_GET(reg, MCQI_info_type);
    Mlx5FwImage img = {
        .major = c->cfg.fw_major, .minor = c->cfg.fw_minor,
        .subminor = c->cfg.fw_subminor, .date = c->fw_date,
    };
    char ver[32];

    if (MLX5_GET(reg, MCQI_component_index)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_FW_COMPONENT);
        return;
    }
    if (MLX5_GET(reg, MCQI_read_pending_component) &&
        !mlx5_flash_pending(c, &img)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_FW_NOT_PENDING);
        return;
    }
    switch (type) {
    case MLX5_MCQI_INFO_CAPABILITIES:
        size = MCQI_CAP_SIZE;
        MLX5_SET(info, MCQI_CAP_supported_info_bitmask,
                 1u << MLX5_MCQI_INFO_CAPABILITIES |
                     1u << MLX5_MCQI_INFO_VERSION |
                     1u << MLX5_MCQI_INFO_ACTIVATION_METHOD);
        MLX5_SET(info, MCQI_CAP_component_size, c->flash.image_len);
        MLX5_SET(info, MCQI_CAP_max_component_size, MLX5_FLASH_MAX);
        /* blocks of whole dwords, up to MLX5_MCDA_MAX_WRITE bytes */
        MLX5_SET(info, MCQI_CAP_log_mcda_word_size, 2);
        MLX5_SET(info, MCQI_CAP_mcda_max_write_size, MLX5_MCDA_MAX_WRITE);
        MLX5_SET(info, MCQI_CAP_match_psid, 1);
        break;
    case MLX5_MCQI_INFO_VERSION:
        size = MCQI_VER_SIZE;
        snprintf(ver, sizeof(ver), "%u.%u.%04u", img.major, img.minor,
                 img.subminor);
        MLX5_SET(info, MCQI_VER_version, (uint32_t)img.major << 24 |
                 (uint32_t)img.minor << 16 | img.subminor);
        MLX5_SET(info, MCQI_VER_version_string_length, strlen(ver));
        memcpy(info + MCQI_VER_version_string_OFF, ver, strlen(ver));
        break;
    case MLX5_MCQI_INFO_ACTIVATION_METHOD:
        size = 4;
        MLX5_SET(info, MCQI_ACT_pending_fw_reset, 1);
        break;
    default:
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_FW_INFO_TYPE);
        return;
    }
    /* as much as was asked for and fits in the output */
    want = MIN(MIN(want, size), len > MCQI_DATA_OFF ? len - MCQI_DATA_OFF : 0);
    MLX5_SET(reg, MCQI_info_size, size);
    MLX5_SET(reg, MCQI_data_size, want);
    memcpy(reg + MCQI_DATA_OFF, info, want);
    trace_mlx5_fw_mcqi(type, want);
}

/*
 * DTOR, read by mlx5_core when the init segment offers timeouts
 * (cfg.cmd_timeout_ms): the default timeouts of pcie_toggle .. reset_unload,
 * in ms, the values mlx5_core 6.12 would use on its own (lib/tout.c).
 */
static void mlx5_reg_dtor(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    static const uint32_t ms[] = {
        [DTOR_pcie_toggle_to_DW] = 2000,
        /* health_poll, then full_crdump .. reclaim_vfs_pages */
        [DTOR_health_poll_to_DW] = 2000,
        60000, 60000, 2000, 5000, 3000, 5000, 5000, 120000,
        [DTOR_reset_unload_to_DW] = 300000,
    };
    unsigned i;

    memset(reg, 0, DTOR_SIZE);
    for (i = 0; i < G_N_ELEMENTS(ms); i++) {
        mlx5_st32(reg + 4 * i, ms[i]);
    }
}

/*
 * MGIR: the hardware (PCI device ID, ConnectX-5's hardware ID, one port, the
 * base MAC, seconds since the last firmware reset) and the running firmware
 * (its version, build date and PSID), as mstflint's query prints them.
 */
static void mlx5_reg_mgir(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    int64_t up = (c->ops->now_ns(c->opaque) - c->start_ns) / 1000000000;
    const uint8_t *mac = c->cfg.mac;

    memset(reg, 0, MGIR_SIZE);
    MLX5_SET(reg, MGIR_hw_device_id, c->cfg.pci_device_id);
    MLX5_SET(reg, MGIR_hw_device_hw_revision, c->cfg.pci_revision);
    MLX5_SET(reg, MGIR_hw_num_ports, 1);
    MLX5_SET(reg, MGIR_hw_hw_dev_id, MLX5_HW_ID_CX5);
    MLX5_SET(reg, MGIR_hw_base_mac_47_32, mac[0] << 8 | mac[1]);
    MLX5_SET(reg, MGIR_hw_base_mac_31_0, (uint32_t)mac[2] << 24 |
             mac[3] << 16 | mac[4] << 8 | mac[5]);
    MLX5_SET(reg, MGIR_hw_uptime, (uint32_t)MIN(MAX(up, 0), UINT32_MAX));
    /* the 8-bit fields take what fits; the extended ones the whole */
    MLX5_SET(reg, MGIR_fw_major, c->cfg.fw_major & 0xff);
    MLX5_SET(reg, MGIR_fw_minor, c->cfg.fw_minor & 0xff);
    MLX5_SET(reg, MGIR_fw_sub_minor, c->cfg.fw_subminor & 0xff);
    MLX5_SET(reg, MGIR_fw_extended_major, c->cfg.fw_major);
    MLX5_SET(reg, MGIR_fw_extended_minor, c->cfg.fw_minor);
    MLX5_SET(reg, MGIR_fw_extended_sub_minor, c->cfg.fw_subminor);
    MLX5_SET(reg, MGIR_fw_year, c->fw_date.year);
    MLX5_SET(reg, MGIR_fw_month, c->fw_date.month);
    MLX5_SET(reg, MGIR_fw_day, c->fw_date.day);
    MLX5_SET(reg, MGIR_fw_hour, c->fw_date.hour << 8 | c->fw_date.minute);
    memcpy(reg + MGIR_fw_psid_OFF, c->cfg.board_id,
           strnlen(c->cfg.board_id, 16));
}

/* MQIS: the model's name and description; no VSDs, no expansion ROM. */
static void mlx5_reg_mqis(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    uint32_t off = MLX5_GET(reg, MQIS_read_offset);
    uint32_t want = MLX5_GET(reg, MQIS_read_length);
    uint32_t room = cmd->outlen - ACCESS_REG_DATA_OFF - MQIS_DATA_OFF;
    const char *s;
    uint32_t len, n;

    switch (MLX5_GET(reg, MQIS_info_type)) {
    case MLX5_MQIS_MODEL_NAME:
        s = MLX5_MODEL_NAME;
        break;
    case MLX5_MQIS_MODEL_DESCRIPTION:
        s = MLX5_MODEL_DESCRIPTION;
        break;
    case MLX5_MQIS_IMAGE_VSD:
    case MLX5_MQIS_DEVICE_VSD:
    case MLX5_MQIS_ROM_INFO:
        s = "";
        break;
    default:
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_FW_INFO_TYPE);
        return;
    }
    len = strlen(s);
    n = off < len ? MIN(MIN(want, len - off), room) : 0;
    memset(reg + 4, 0, MQIS_SIZE - 4);
    MLX5_SET(reg, MQIS_info_length, len);
    MLX5_SET(reg, MQIS_read_offset, off);
    MLX5_SET(reg, MQIS_read_length, n);
    memcpy(reg + MQIS_DATA_OFF, s + off, n);
}

static void mlx5_reg_mcam(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg);

/*
 * MCAM and PCAM: clear what comes back; true if the access asks for group 0
 * of the registers and the features (the others announce nothing).
 */
static bool mlx5_cam_group0(uint8_t *reg, unsigned size)
{
    bool g0 = !MLX5_GET(reg, MCAM_feature_group) &&
              !MLX5_GET(reg, MCAM_access_reg_group);

    memset(reg + 4, 0, size - 4);
    return g0;
}

/* Announce register @id of the group from @base (bit id - base of 128). */
static void mlx5_cam_announce(uint8_t *reg, uint16_t base, uint16_t id)
{
    unsigned r = (uint16_t)(id - base);

    if (r < 0x80) {
        reg[MCAM_access_regs_OFF + 15 - r / 8] |= 1u << (r % 8);
    }
}

/*
 * PCAM: the port registers there are (group 0: 0x5000..0x507f); on an
 * Ethernet port the link's (PMTU, PTYS, PAOS), pause (PFCC), counters
 * (PPCNT) and FEC (PPLM), besides the module's lanes (PMLP); no feature bits
 */
static void mlx5_reg_pcam(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    static const uint16_t eth[] = { 0x5003, 0x5004, 0x5006, MLX5_REG_PFCC,
                                    MLX5_REG_PPCNT, MLX5_REG_PPLM };
    unsigned i;

    if (!mlx5_cam_group0(reg, PCAM_SIZE)) {
        return;
    }
    mlx5_cam_announce(reg, 0x5000, MLX5_REG_PMLP);
    for (i = 0; c->eth && i < G_N_ELEMENTS(eth); i++) {
        mlx5_cam_announce(reg, 0x5000, eth[i]);
    }
}

/* The management registers, the cable module's too. */
static const struct {
    uint16_t id;
    uint16_t need;              /* bytes of register the access must have */
    bool rw;                    /* written too (else read only) */
    void (*fn)(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg);
} mlx5_fw_regs[] = {
    { MLX5_REG_PMLP, PMLP_SIZE, false, mlx5_module_pmlp },
    { MLX5_REG_MCIA, MCIA_DATA_OFF + MCIA_MAX_BYTES, false, mlx5_module_mcia },
    { MLX5_REG_MGIR, MGIR_SIZE, false, mlx5_reg_mgir },
    { MLX5_REG_MNVDA, MNVDA_DATA_OFF, true, mlx5_reg_mnvda },
    { MLX5_REG_MNVDI, MNVDI_SIZE, true, mlx5_reg_mnvdi },
    { MLX5_REG_MFRL, MFRL_SIZE, true, mlx5_reg_mfrl },
    { MLX5_REG_MROQ, MROQ_SIZE, false, mlx5_reg_mroq },
    { MLX5_REG_MNVQC, MNVQC_SIZE, false, mlx5_reg_mnvqc },
    { MLX5_REG_MNVIA, MNVIA_SIZE, true, mlx5_reg_mnvia },
    { MLX5_REG_MNVGC, MNVGC_SIZE, false, mlx5_reg_mnvgc },
    { MLX5_REG_MCQS, MCQS_SIZE, false, mlx5_reg_mcqs },
    { MLX5_REG_MCQI, MCQI_DATA_OFF, false, mlx5_reg_mcqi },
    { MLX5_REG_MCC, MCC_SIZE, true, mlx5_reg_mcc },
    { MLX5_REG_MCDA, MCDA_DATA_OFF, true, mlx5_reg_mcda },
    { MLX5_REG_MQIS, MQIS_DATA_OFF, false, mlx5_reg_mqis },
    { MLX5_REG_MCAM, MCAM_SIZE, false, mlx5_reg_mcam },
    { MLX5_REG_PCAM, PCAM_SIZE, false, mlx5_reg_pcam },
    { MLX5_REG_DTOR, DTOR_SIZE, false, mlx5_reg_dtor },
};

/*
 * MCAM announces the registers of the table in its group 0 (0x9000..0x907f),
 * and among the features MFRL's reset_state and the driver's ownership of the
 * level-3 reset (mlx5_fw_reset.c).
 */
static void mlx5_reg_mcam(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    unsigned i;

    if (!mlx5_cam_group0(reg, MCAM_SIZE)) {
        return;
    }
    reg[MCAM_feature_reset_state_BYTE] |= 1u << MCAM_feature_reset_state_BIT;
    reg[MCAM_feature_sync_driver_BYTE] |= 1u << MCAM_feature_sync_driver_BIT;
    for (i = 0; i < G_N_ELEMENTS(mlx5_fw_regs); i++) {
        mlx5_cam_announce(reg, 0x9000, mlx5_fw_regs[i].id);
    }
}

bool mlx5_fw_reg(Mlx5Core *c, Mlx5CmdCtx *cmd, uint32_t reg_id, uint8_t *reg,
                 uint32_t len, bool write)
{
    unsigned i;

    for (i = 0; i < G_N_ELEMENTS(mlx5_fw_regs); i++) {
        if (mlx5_fw_regs[i].id != reg_id) {
            continue;
        }
        if ((write && !mlx5_fw_regs[i].rw) || len < mlx5_fw_regs[i].need) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_BAD_REGISTER);
        } else {
            mlx5_fw_regs[i].fn(c, cmd, reg);
        }
        return true;
    }
    return false;
}
