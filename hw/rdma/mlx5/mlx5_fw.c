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
#include "trace.h"

/* the component's largest image: what MCQI reports (no flash writes yet) */
#define MLX5_FW_MAX_COMPONENT   (32u << 20)

enum {
    MLX5_SYND_FW_COMPONENT = 0x40000001,    /* no such component */
    MLX5_SYND_FW_NOT_PENDING = 0x40000002,  /* no pending image to read */
    MLX5_SYND_FW_INFO_TYPE = 0x40000003,    /* an info type not offered */
};

void mlx5_fw_caps(uint8_t *cap)
{
    MLX5_SET(cap, CAP_mcam_reg, 1);
}

/* The 32-bit version of the boot image: major.minor.subminor. */
static uint32_t mlx5_fw_version(const Mlx5Core *c)
{
    return (uint32_t)c->cfg.fw_major << 24 | (uint32_t)c->cfg.fw_minor << 16 |
           c->cfg.fw_subminor;
}

static void mlx5_reg_mcam(uint8_t *reg)
{
    static const uint16_t regs[] = { MLX5_REG_MCIA, MLX5_REG_MCQS,
                                     MLX5_REG_MCQI };
    uint8_t fg = MLX5_GET(reg, MCAM_feature_group);
    uint8_t ag = MLX5_GET(reg, MCAM_access_reg_group);
    unsigned i;

    memset(reg + 4, 0, MCAM_SIZE - 4);
    if (fg || ag) {
        return;             /* the other groups: nothing announced */
    }
    for (i = 0; i < G_N_ELEMENTS(regs); i++) {
        unsigned r = regs[i] - 0x9000;

        reg[MCAM_access_regs_OFF + 15 - r / 8] |= 1u << (r % 8);
    }
}

static bool mlx5_reg_mcqs(Mlx5CmdCtx *cmd, uint8_t *reg)
{
    if (MLX5_GET(reg, MCQS_component_index)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_FW_COMPONENT);
        return false;
    }
    memset(reg, 0, MCQS_SIZE);
    MLX5_SET(reg, MCQS_last_index_flag, 1);
    MLX5_SET(reg, MCQS_identifier, MLX5_MCQS_IDENTIFIER_BOOT_IMG);
    MLX5_SET(reg, MCQS_component_status, MLX5_MCQS_STATUS_PRESENT);
    MLX5_SET(reg, MCQS_component_update_state, MLX5_MCQS_UPDATE_STATE_IDLE);
    return true;
}

static bool mlx5_reg_mcqi(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg,
                          uint32_t len)
{
    uint8_t info[MCQI_VER_SIZE] = { 0 };
    uint32_t size, want = MLX5_GET(reg, MCQI_data_size);
    uint8_t type = MLX5_GET(reg, MCQI_info_type);
    char ver[32];

    if (MLX5_GET(reg, MCQI_component_index)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_FW_COMPONENT);
        return false;
    }
    if (MLX5_GET(reg, MCQI_read_pending_component)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_FW_NOT_PENDING);
        return false;
    }
    switch (type) {
    case MLX5_MCQI_INFO_CAPABILITIES:
        size = MCQI_CAP_SIZE;
        MLX5_SET(info, MCQI_CAP_supported_info_bitmask,
                 1u << MLX5_MCQI_INFO_CAPABILITIES |
                     1u << MLX5_MCQI_INFO_VERSION |
                     1u << MLX5_MCQI_INFO_ACTIVATION_METHOD);
        MLX5_SET(info, MCQI_CAP_max_component_size, MLX5_FW_MAX_COMPONENT);
        MLX5_SET(info, MCQI_CAP_match_psid, 1);
        break;
    case MLX5_MCQI_INFO_VERSION:
        size = MCQI_VER_SIZE;
        snprintf(ver, sizeof(ver), "%u.%u.%04u", c->cfg.fw_major,
                 c->cfg.fw_minor, c->cfg.fw_subminor);
        MLX5_SET(info, MCQI_VER_version, mlx5_fw_version(c));
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
        return false;
    }
    /* as much as was asked for and fits in the output */
    want = MIN(MIN(want, size), len > MCQI_DATA_OFF ? len - MCQI_DATA_OFF : 0);
    MLX5_SET(reg, MCQI_info_size, size);
    MLX5_SET(reg, MCQI_data_size, want);
    memcpy(reg + MCQI_DATA_OFF, info, want);
    trace_mlx5_fw_mcqi(type, want);
    return true;
}

bool mlx5_fw_reg(Mlx5Core *c, Mlx5CmdCtx *cmd, uint32_t reg_id, uint8_t *reg,
                 uint32_t len, bool write)
{
    uint32_t need;

    switch (reg_id) {
    case MLX5_REG_PMLP:
        need = PMLP_SIZE;
        break;
    case MLX5_REG_MCIA:
        need = MCIA_DATA_OFF + MCIA_MAX_BYTES;
        break;
    case MLX5_REG_MCAM:
        need = MCAM_SIZE;
        break;
    case MLX5_REG_MCQS:
        need = MCQS_SIZE;
        break;
    case MLX5_REG_MCQI:
        need = MCQI_DATA_OFF;
        break;
    default:
        return false;
    }
    /* all read-only (the module's lanes are fixed, its EEPROM read here) */
    if (write || len < need) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_BAD_REGISTER);
        return true;
    }
    switch (reg_id) {
    case MLX5_REG_PMLP:
        mlx5_module_pmlp(reg);
        break;
    case MLX5_REG_MCIA:
        mlx5_module_mcia(cmd, reg);
        break;
    case MLX5_REG_MCAM:
        mlx5_reg_mcam(reg);
        break;
    case MLX5_REG_MCQS:
        mlx5_reg_mcqs(cmd, reg);
        break;
    default:
        /* the data comes back beyond the register sent (mlx5_reg_mcqi_query) */
        mlx5_reg_mcqi(c, cmd, reg, cmd->outlen - ACCESS_REG_DATA_OFF);
        break;
    }
    return true;
}
