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
    MLX5_SET(reg, MCQS_component_update_state, MLX5_MCQS_UPDATE_STATE_IDLE);
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
    char ver[32];

    if (MLX5_GET(reg, MCQI_component_index)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_FW_COMPONENT);
        return;
    }
    if (MLX5_GET(reg, MCQI_read_pending_component)) {
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

static void mlx5_reg_mcam(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg);

/* The read-only management registers, the cable module's too. */
static const struct {
    uint16_t id;
    uint16_t need;              /* bytes of register the access must have */
    void (*fn)(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg);
} mlx5_fw_regs[] = {
    { MLX5_REG_PMLP, PMLP_SIZE, mlx5_module_pmlp },
    { MLX5_REG_MCIA, MCIA_DATA_OFF + MCIA_MAX_BYTES, mlx5_module_mcia },
    { MLX5_REG_MCQS, MCQS_SIZE, mlx5_reg_mcqs },
    { MLX5_REG_MCQI, MCQI_DATA_OFF, mlx5_reg_mcqi },
    { MLX5_REG_MCAM, MCAM_SIZE, mlx5_reg_mcam },
    { MLX5_REG_DTOR, DTOR_SIZE, mlx5_reg_dtor },
};

/* MCAM announces the registers of the table in its group 0 (0x9000..0x907f). */
static void mlx5_reg_mcam(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    uint8_t fg = MLX5_GET(reg, MCAM_feature_group);
    uint8_t ag = MLX5_GET(reg, MCAM_access_reg_group);
    unsigned i;

    memset(reg + 4, 0, MCAM_SIZE - 4);
    if (fg || ag) {
        return;             /* the other groups: nothing announced */
    }
    for (i = 0; i < G_N_ELEMENTS(mlx5_fw_regs); i++) {
        unsigned r = mlx5_fw_regs[i].id - 0x9000;

        if (r < 0x80) {
            reg[MCAM_access_regs_OFF + 15 - r / 8] |= 1u << (r % 8);
        }
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
        /* all read-only (the module's lanes are fixed, its EEPROM read here) */
        if (write || len < mlx5_fw_regs[i].need) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_BAD_REGISTER);
        } else {
            mlx5_fw_regs[i].fn(c, cmd, reg);
        }
        return true;
    }
    return false;
}
