/*
 * mlx5 HCA core: the firmware reset (PRM "MFRL - Management Firmware Reset
 * Level"), as `devlink dev reload ... action fw_activate` (mlx5_core's
 * fw_reset.c) and mstfwreset run it. docs/fw-reset-notes.md has the driver's
 * side.
 *
 * A reset is armed by writing a level to MFRL (3: at the next PCI reset, 6: at
 * the next reboot; the device tells them apart no further, both come as a
 * reset of the function) and happens at that reset (mlx5_fw_reset_pci): the
 * pending image and the stored configuration run, as after mlx5_core's SW
 * reset (mlx5_fw_sw_reset).
 *
 * The synchronized reset of one PF (mlx5_core 6.12):
 *   1. the driver writes MFRL start=1 (level 3): the negotiation starts
 *      (reset_state IN_NEGOTIATION) and the device posts the general event
 *      PCI_SYNC_FOR_FW_UPDATE with state REQUEST;
 *   2. the driver answers by MFRL resp: ACK arms the reset (RESET_IN_PROGRESS)
 *      and the device posts NOW; NACK ends it (reset_state NACK, ABORT
 *      posted), as firmware does when a host refuses;
 *   3. on NOW the driver tears the function down fast (TEARDOWN_HCA profile
 *      2, then NIC interface DISABLED) and toggles the PCI link (the
 *      link-toggle method: Link Disable on the bridge above, 500 ms). A card
 *      resets when its link goes down; QEMU's root ports drop Link Disable,
 *      so the device takes the end of the fast teardown for that moment and
 *      resets then (mlx5_fw_reset_teardown), showing NIC interface DISABLED
 *      as after a reset, until the driver loads from scratch. reset_state
 *      then reads IDLE.
 * The hot-reset method (pcie_reset_using_hotreset_method) is not offered: a
 * ConnectX-5 does not have it, and mlx5_core 6.12's pci_reset_bus cannot take
 * the device lock devlink's reload holds (-EAGAIN). A secondary bus reset
 * (mstfwreset's own) still resets the firmware when a level is armed. The
 * driver refuses the link toggle when the bridge above has hot-plug
 * interrupts on ("FW reset is not supported as HotPlug is enabled"), as on a
 * server: the root port needs hotplug=off.
 * The events go only to a driver that asked for them (SET_HCA_CAP
 * pci_sync_for_fw_update_event) and subscribed to the general event; a start
 * without one is refused, as is one while a negotiation runs (the driver then
 * reads reset_state: "still in progress"), an answer without a request and a
 * level the device does not offer (live patch).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "hw/rdma/mlx5/mlx5_fw_prm.h"
#include "trace.h"

/* the levels a reset can be armed at, and the one sync reset */
#define MLX5_MFRL_LEVELS        (MLX5_MFRL_LEVEL3 | MLX5_MFRL_LEVEL6)

enum {
    MLX5_SYND_MFRL_LEVEL = 0x40000030,      /* a level not offered */
    MLX5_SYND_MFRL_STATE = 0x40000031,      /* not in this state */
    MLX5_SYND_MFRL_NO_SYNC = 0x40000032,    /* no driver takes the events */
};

void mlx5_fw_reset_caps(uint8_t *cap, bool cur)
{
    MLX5_SET(cap, CAP_fast_teardown, 1);
    MLX5_SET(cap, CAP_general_notification_event, 1);
    /* the driver's to set: off until it does */
    MLX5_SET(cap, CAP_pci_sync_for_fw_update_event, !cur);
}

static void mlx5_fw_reset_event(Mlx5Core *c, uint8_t state)
{
    uint8_t data[4] = { 0, 0, 0, state };

    trace_mlx5_fw_reset_event(state);
    mlx5_eq_post_async(c, MLX5_EVENT_TYPE_GENERAL_EVENT,
                       MLX5_GENERAL_SUBTYPE_PCI_SYNC_FOR_FW_UPDATE, data,
                       sizeof(data));
}

/* Does a driver take the sync events (asked for them, subscribed)? */
static bool mlx5_fw_reset_sync_driver(Mlx5Core *c)
{
    return MLX5_GET(c->cap_general_cur, CAP_pci_sync_for_fw_update_event) &&
           mlx5_eq_find_by_event(c, MLX5_EVENT_TYPE_GENERAL_EVENT);
}

/* Is a sync reset being negotiated or carried out? */
static bool mlx5_fw_reset_negotiating(Mlx5Core *c)
{
    return c->mfrl_state == MLX5_MFRL_STATE_IN_NEGOTIATION ||
           c->mfrl_state == MLX5_MFRL_STATE_RESET_IN_PROGRESS;
}

/* MFRL written: arm a level, start a sync reset, or answer its request. */
static uint32_t mlx5_mfrl_write(Mlx5Core *c, const uint8_t *reg)
{
    uint8_t level = MLX5_GET(reg, MFRL_reset_level);
    uint8_t resp = MLX5_GET(reg, MFRL_pci_sync_for_fw_update_resp);
    bool start = MLX5_GET(reg, MFRL_pci_sync_for_fw_update_start);

    if (resp) {
        if (c->mfrl_state != MLX5_MFRL_STATE_IN_NEGOTIATION || start) {
            return MLX5_SYND_MFRL_STATE;
        }
        if (resp == MLX5_MFRL_RESP_ACK) {
            c->mfrl_state = MLX5_MFRL_STATE_RESET_IN_PROGRESS;
            c->fw_reset_armed = true;
            mlx5_fw_reset_event(c, MLX5_SYNC_RST_STATE_NOW);
        } else if (resp == MLX5_MFRL_RESP_NACK) {
            c->mfrl_state = MLX5_MFRL_STATE_NACK;
            mlx5_fw_reset_event(c, MLX5_SYNC_RST_STATE_ABORT);
        } else {
            return MLX5_SYND_MFRL_STATE;
        }
        return 0;
    }
    /* one level, of those offered; the network port does not stay alive */
    if (!level || (level & (level - 1)) || !(level & MLX5_MFRL_LEVELS) ||
        MLX5_GET(reg, MFRL_rst_type_sel)) {
        return MLX5_SYND_MFRL_LEVEL;
    }
    if (mlx5_fw_reset_negotiating(c)) {
        return MLX5_SYND_MFRL_STATE;
    }
    if (start) {
        if (level != MLX5_MFRL_LEVEL3) {
            return MLX5_SYND_MFRL_LEVEL;
        }
        if (!mlx5_fw_reset_sync_driver(c)) {
            return MLX5_SYND_MFRL_NO_SYNC;
        }
        c->mfrl_state = MLX5_MFRL_STATE_IN_NEGOTIATION;
        mlx5_fw_reset_event(c, MLX5_SYNC_RST_STATE_REQUEST);
        return 0;
    }
    /* the tool's own reset (mstfwreset without the driver's sync) */
    c->mfrl_state = MLX5_MFRL_STATE_IDLE;
    c->fw_reset_armed = true;
    return 0;
}

void mlx5_reg_mfrl(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    bool write = cmd->op_mod == MLX5_ACCESS_REG_WRITE;
    uint32_t synd = 0;

    if (write) {
        synd = mlx5_mfrl_write(c, reg);
    }
    trace_mlx5_fw_reset_mfrl(write, mlx5_ld32(reg + 4), c->mfrl_state,
                             c->fw_reset_armed, synd);
    if (synd) {
        mlx5_cmd_fail(cmd, synd == MLX5_SYND_MFRL_LEVEL ?
                      MLX5_CMD_STAT_BAD_PARAM_ERR :
                      MLX5_CMD_STAT_BAD_SYS_STATE_ERR, synd);
        return;
    }
    memset(reg, 0, MFRL_SIZE);
    MLX5_SET(reg, MFRL_reset_level, MLX5_MFRL_LEVELS);
    MLX5_SET(reg, MFRL_reset_type, MLX5_MFRL_TYPE_FULL_CHIP);
    MLX5_SET(reg, MFRL_pci_reset_req_method, MLX5_MFRL_METHOD_LINK_TOGGLE);
    MLX5_SET(reg, MFRL_reset_state, c->mfrl_state);
}

/*
 * The firmware's own request (another host's, in a card's world): REQUEST
 * without a start by this driver, which then takes the non-requester path.
 */
char *mlx5_fw_reset_request(Mlx5Core *c)
{
    if (mlx5_fw_reset_negotiating(c)) {
        return g_strdup("a firmware reset is being negotiated already");
    }
    if (!mlx5_fw_reset_sync_driver(c)) {
        return g_strdup("no driver takes the sync reset events");
    }
    c->mfrl_state = MLX5_MFRL_STATE_IN_NEGOTIATION;
    mlx5_fw_reset_event(c, MLX5_SYNC_RST_STATE_REQUEST);
    return NULL;
}

bool mlx5_fw_reset_teardown(Mlx5Core *c)
{
    if (c->mfrl_state != MLX5_MFRL_STATE_RESET_IN_PROGRESS) {
        return false;
    }
    mlx5_core_reset(c, MLX5_RESET_SYSTEM);      /* the armed reset runs */
    c->nic_interface = MLX5_NIC_IFC_DISABLED;
    return true;
}

/*
 * MROQ: what mstfwreset may ask for at level 3. The driver owns the reset
 * (sync 1: the tool starts it through MFRL, mlx5_core carries it out as for
 * fw_activate) with the link-toggle method. The tool's own reset (sync 0)
 * disables the link from the bridge above, which QEMU's root port does not
 * carry out, so it is not offered: mstfwreset takes the driver's by default.
 * The one reset type (full chip) has these options whatever the query names.
 */
void mlx5_reg_mroq(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    uint8_t level = MLX5_GET(reg, MROQ_reset_trigger);
    uint8_t type = MLX5_GET(reg, MROQ_reset_type);

    memset(reg, 0, MROQ_SIZE);
    MLX5_SET(reg, MROQ_reset_trigger, level);
    MLX5_SET(reg, MROQ_reset_type, type);
    MLX5_SET(reg, MROQ_query_is_valid, 1);
    MLX5_SET(reg, MROQ_pci_sync_for_fw_update_start, MLX5_MROQ_SYNC_DRIVER);
    MLX5_SET(reg, MROQ_pci_reset_req_method, MLX5_MROQ_METHOD_LINK_DISABLE);
}

void mlx5_fw_reset_pci(Mlx5Core *c)
{
    bool armed = c->fw_reset_armed;

    trace_mlx5_fw_reset_pci(armed, c->mfrl_state);
    c->fw_reset_armed = false;
    c->mfrl_state = MLX5_MFRL_STATE_IDLE;
    if (armed) {
        mlx5_flash_boot(c, false);
    }
}
