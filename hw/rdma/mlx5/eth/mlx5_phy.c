/*
 * mlx5 HCA core, Ethernet port: the physical layer's registers (PRM "Port
 * Registers"): PPLM (forward error correction: `ethtool --show-fec`,
 * `--set-fec`), PFCC (pause and priority flow control: `ethtool -a/-A`) and
 * PPCNT's counter groups (`ethtool -S`'s *_phy counters).
 *
 * The port runs one link mode, 10GBASE-CR (PTYS). Its FEC choices are those
 * of a 10G lane: none or FireCode (BASE-R); the faster link modes a
 * ConnectX-5 has (25G, 50G, 100G: RS too) are offered and stored as on a
 * card, but not running. The emulated link has no bit errors, so FEC and
 * pause change no frame: the registers keep and report what the driver
 * sets, and the counters count the port's frames.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "trace.h"

/* the FEC modes (bits of the PPLM cap, admin and active fields) */
enum {
    FEC_NONE = 1 << 0,
    FEC_FIRECODE = 1 << 1,
    FEC_RS_528 = 1 << 2,
};

/* the legacy link modes' 4-bit cap and admin fields: dword, shift */
static const uint8_t pplm_shift[MLX5_PHY_FEC_MODES] = {
    [MLX5_PHY_FEC_10G_40G] = 0,
    [MLX5_PHY_FEC_25G] = 4,
    [MLX5_PHY_FEC_50G] = 8,
    [MLX5_PHY_FEC_100G] = 12,
    [MLX5_PHY_FEC_56G] = 16,
};

static const uint8_t pplm_cap[MLX5_PHY_FEC_MODES] = {
    [MLX5_PHY_FEC_10G_40G] = FEC_NONE | FEC_FIRECODE,
    [MLX5_PHY_FEC_25G] = FEC_NONE | FEC_FIRECODE | FEC_RS_528,
    [MLX5_PHY_FEC_50G] = FEC_NONE | FEC_FIRECODE | FEC_RS_528,
    [MLX5_PHY_FEC_100G] = FEC_NONE | FEC_RS_528,
    [MLX5_PHY_FEC_56G] = 0,
};

void mlx5_phy_reset(Mlx5Eth *e)
{
    memset(e->fec_admin, 0, sizeof(e->fec_admin));      /* auto */
    e->pause_tx = e->pause_rx = true;
    e->pfc_tx = e->pfc_rx = 0;
    e->link_down_events = 0;
}

/* The running link mode's FEC: what its admin field asks, auto = none. */
static uint32_t mlx5_phy_fec_active(Mlx5Eth *e)
{
    uint8_t a = e->fec_admin[MLX5_PHY_FEC_10G_40G];

    return a ? a : FEC_NONE;
}

static void mlx5_phy_pplm(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg,
                          bool write)
{
    Mlx5Eth *e = c->eth;
    uint32_t cap = 0, admin = 0;
    unsigned i;

    if (write) {
        uint32_t want = mlx5_ld32(reg + PPLM_fec_override_admin_OFF);
        uint8_t a[MLX5_PHY_FEC_MODES];

        /* one mode per link mode (or auto), and one it can run */
        for (i = 0; i < MLX5_PHY_FEC_MODES; i++) {
            a[i] = want >> pplm_shift[i] & 0xf;
            if ((a[i] & (a[i] - 1)) || (a[i] & ~pplm_cap[i])) {
                mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                              MLX5_SYND_BAD_REGISTER);
                return;
            }
        }
        memcpy(e->fec_admin, a, sizeof(a));
        trace_mlx5_phy_fec(want, mlx5_phy_fec_active(e));
    }
    for (i = 0; i < MLX5_PHY_FEC_MODES; i++) {
        cap |= (uint32_t)pplm_cap[i] << pplm_shift[i];
        admin |= (uint32_t)e->fec_admin[i] << pplm_shift[i];
    }
    memset(reg + 4, 0, PPLM_SIZE - 4);
    MLX5_SET(reg, PPLM_fec_mode_active, mlx5_phy_fec_active(e));
    mlx5_st32(reg + PPLM_fec_override_cap_OFF, cap);
    mlx5_st32(reg + PPLM_fec_override_admin_OFF, admin);
}

static void mlx5_phy_pfcc(Mlx5Core *c, uint8_t *reg, bool write)
{
    Mlx5Eth *e = c->eth;

    if (write) {
        uint8_t mtx = MLX5_GET(reg, PFCC_prio_mask_tx);
        uint8_t mrx = MLX5_GET(reg, PFCC_prio_mask_rx);

        if (!MLX5_GET(reg, PFCC_pptx_mask_n)) {
            e->pause_tx = MLX5_GET(reg, PFCC_pptx);
        }
        if (!MLX5_GET(reg, PFCC_pprx_mask_n)) {
            e->pause_rx = MLX5_GET(reg, PFCC_pprx);
        }
        e->pfc_tx = (e->pfc_tx & ~mtx) | (MLX5_GET(reg, PFCC_pfctx) & mtx);
        e->pfc_rx = (e->pfc_rx & ~mrx) | (MLX5_GET(reg, PFCC_pfcrx) & mrx);
        trace_mlx5_phy_pause(e->pause_tx, e->pause_rx, e->pfc_tx, e->pfc_rx);
    }
    memset(reg + 4, 0, PFCC_SIZE - 4);
    MLX5_SET(reg, PFCC_pptx, e->pause_tx);
    MLX5_SET(reg, PFCC_pprx, e->pause_rx);
    MLX5_SET(reg, PFCC_pfctx, e->pfc_tx);
    MLX5_SET(reg, PFCC_pfcrx, e->pfc_rx);
}

/* PPCNT: a counter group, 64-bit counters from PPCNT_DATA_OFF. */
static void mlx5_phy_ppcnt(Mlx5Core *c, uint8_t *reg, uint32_t len)
{
    Mlx5Eth *e = c->eth;
    const Mlx5EthTraffic *rx = &e->cnt.rx, *tx = &e->cnt.tx;
    uint64_t rx_pkts = rx->ucast_pkts + rx->mcast_pkts + rx->bcast_pkts;
    uint64_t tx_pkts = tx->ucast_pkts + tx->mcast_pkts + tx->bcast_pkts;
    uint64_t rx_bytes = rx->ucast_bytes + rx->mcast_bytes + rx->bcast_bytes;
    uint64_t tx_bytes = tx->ucast_bytes + tx->mcast_bytes + tx->bcast_bytes;
    uint8_t d[PPCNT_GROUP_SIZE] = { 0 };

    switch (MLX5_GET(reg, PPCNT_grp)) {
    case MLX5_PPCNT_IEEE_802_3:
        mlx5_st64(d + 0x00, tx_pkts);
        mlx5_st64(d + 0x08, rx_pkts);
        mlx5_st64(d + 0x20, tx_bytes);
        mlx5_st64(d + 0x28, rx_bytes);
        mlx5_st64(d + 0x30, tx->mcast_pkts);
        mlx5_st64(d + 0x38, tx->bcast_pkts);
        mlx5_st64(d + 0x40, rx->mcast_pkts);
        mlx5_st64(d + 0x48, rx->bcast_pkts);
        mlx5_st64(d + 0x60, e->cnt.rx_errors);      /* frame too long */
        break;
    case MLX5_PPCNT_RFC_2863:
        mlx5_st64(d + 0x00, rx_bytes);
        mlx5_st64(d + 0x08, rx->ucast_pkts);
        mlx5_st64(d + 0x18, e->cnt.rx_errors);
        mlx5_st64(d + 0x28, tx_bytes);
        mlx5_st64(d + 0x30, tx->ucast_pkts);
        mlx5_st64(d + 0x40, e->cnt.tx_errors);
        mlx5_st64(d + 0x48, rx->mcast_pkts);
        mlx5_st64(d + 0x50, rx->bcast_pkts);
        mlx5_st64(d + 0x58, tx->mcast_pkts);
        mlx5_st64(d + 0x60, tx->bcast_pkts);
        break;
    case MLX5_PPCNT_PHYSICAL_LAYER:
        mlx5_st32(d + PPCNT_PHY_link_down_events_OFF, e->link_down_events);
        break;
    default:
        break;      /* the other groups: nothing counted */
    }
    /* as much of the group as the access has room for */
    memcpy(reg + PPCNT_DATA_OFF, d, MIN(len - PPCNT_DATA_OFF, sizeof(d)));
}

bool mlx5_phy_reg(Mlx5Core *c, Mlx5CmdCtx *cmd, uint32_t reg_id, uint8_t *reg,
                  uint32_t len, bool write)
{
    switch (reg_id) {
    case MLX5_REG_PPLM:
        if (len < PPLM_SIZE || MLX5_GET(reg, PPLM_local_port) != 1) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_BAD_REGISTER);
        } else {
            mlx5_phy_pplm(c, cmd, reg, write);
        }
        return true;
    case MLX5_REG_PFCC:
        if (len < PFCC_SIZE) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_BAD_REGISTER);
        } else {
            mlx5_phy_pfcc(c, reg, write);
        }
        return true;
    case MLX5_REG_PPCNT:
        if (!write) {
            mlx5_phy_ppcnt(c, reg, len);
        }
        return true;
    default:
        return false;
    }
}
