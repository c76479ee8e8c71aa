/*
 * mlx5 HCA core: the port's cable module (PRM "Port Module Registers": PMLP,
 * MCIA), as `ethtool -m` reads it through mlx5e.
 *
 * The port's four lanes go to module 0 (PMLP), a QSFP28 100GBASE-SR4 optical
 * transceiver of the kind sold with ConnectX-5 cards: its SFF-8636 memory map
 * has the lower page (identifier, status, live monitors: temperature, supply
 * voltage, and per lane RX power, TX bias and TX power), upper page 00h
 * (identification: vendor, part and serial number, OUI, date code,
 * wavelength, lengths, compliance codes, the CC_BASE and CC_EXT checksums) and
 * upper page 03h (alarm and warning thresholds; the module is paged, not flat
 * memory). MCIA reads up to 48 bytes from I2C address 0x50 within one
 * 256-byte window (the lower page and the upper page selected); another
 * module, I2C address, page or a read across the window gets the register's
 * status (not connected, I2C error), as a module that is not there or NACKs.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "hw/rdma/mlx5/mlx5_fw_prm.h"
#include "trace.h"

#define SFF8636_ID_QSFP28       0x11
#define MLX5_MODULE_LANES       4

static void put16(uint8_t *p, unsigned off, uint16_t v)
{
    p[off] = v >> 8;
    p[off + 1] = v;
}

static void putstr(uint8_t *p, unsigned off, unsigned len, const char *s)
{
    memset(p + off, ' ', len);
    memcpy(p + off, s, MIN(strlen(s), len));
}

static uint8_t cc(const uint8_t *p, unsigned from, unsigned to)
{
    uint8_t sum = 0;
    unsigned i;

    for (i = from; i <= to; i++) {
        sum += p[i];
    }
    return sum;
}

/* The lower page: bytes 0..127 of every window. */
static void mlx5_module_lower(uint8_t *m, uint8_t page)
{
    unsigned lane;

    m[0] = SFF8636_ID_QSFP28;
    m[1] = 0x08;                /* SFF-8636 revision 2.10a */
    m[2] = 0x00;                /* paged memory, data ready */
    put16(m, 22, 0x2380);       /* temperature: 35.5 C (1/256 C) */
    put16(m, 26, 33000);        /* supply: 3.3 V (100 uV) */
    for (lane = 0; lane < MLX5_MODULE_LANES; lane++) {
        put16(m, 34 + 2 * lane, 8000 - 100 * lane);  /* RX power (0.1 uW) */
        put16(m, 42 + 2 * lane, 3750);               /* TX bias (2 uA) */
        put16(m, 50 + 2 * lane, 9000);               /* TX power (0.1 uW) */
    }
    m[127] = page;              /* page select */
}

/* Upper page 00h: identification (bytes 128..255). */
static void mlx5_module_page0(uint8_t *m)
{
    m[128] = SFF8636_ID_QSFP28;
    m[129] = 0xc0;              /* power class 4 (3.5 W) */
    m[130] = 0x0c;              /* connector: MPO 1x12 */
    m[131] = 0x80;              /* extended compliance: byte 192 */
    m[139] = 0x05;              /* encoding: 64B/66B */
    m[140] = 0xff;              /* nominal rate: byte 222 */
    m[143] = 35;                /* OM3: 70 m (2 m units) */
    m[146] = 50;                /* OM4: 100 m (2 m units) */
    m[147] = 0x00;              /* 850 nm VCSEL */
    putstr(m, 148, 16, "Mellanox");
    m[165] = 0x00;              /* OUI 00:02:c9 */
    m[166] = 0x02;
    m[167] = 0xc9;
    putstr(m, 168, 16, "MMA1B00-C100D");
    putstr(m, 184, 2, "B1");
    put16(m, 186, 850 * 20);    /* wavelength (nm / 20) */
    put16(m, 188, 10 * 200);    /* tolerance (nm / 200) */
    m[190] = 70;                /* max case temperature */
    m[191] = cc(m, 128, 190);
    m[192] = 0x02;              /* 100GBASE-SR4 */
    putstr(m, 196, 16, "MT2025FT00001");
    putstr(m, 212, 8, "250115");
    m[220] = 0x0c;              /* average RX power, TX power monitored */
    m[222] = 103;               /* 25.78 Gb/s a lane (250 Mb/s units) */
    m[223] = cc(m, 192, 222);
}

/* Upper page 03h: thresholds (high/low alarm, high/low warning). */
static void mlx5_module_page3(uint8_t *m)
{
    static const struct {
        uint8_t off;
        uint16_t v[4];
    } thr[] = {
        { 128, { 0x4b00, 0xfb00, 0x4600, 0x0000 } },  /* temperature */
        { 144, { 36300, 29700, 34650, 31350 } },      /* supply */
        { 176, { 34000, 500, 24000, 1000 } },         /* RX power */
        { 184, { 6000, 1000, 5500, 1500 } },          /* TX bias */
        { 192, { 34000, 800, 24000, 1600 } },         /* TX power */
    };
    unsigned i, k;

    for (i = 0; i < G_N_ELEMENTS(thr); i++) {
        for (k = 0; k < 4; k++) {
            put16(m, thr[i].off + 2 * k, thr[i].v[k]);
        }
    }
}

/* The 256-byte window of upper page @page; false if the module has none. */
static bool mlx5_module_window(uint8_t page, uint8_t *m)
{
    memset(m, 0, 256);
    if (page == 0) {
        mlx5_module_page0(m);
    } else if (page == 3) {
        mlx5_module_page3(m);
    } else {
        return false;
    }
    mlx5_module_lower(m, page);
    return true;
}

void mlx5_module_pmlp(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    uint8_t port = MLX5_GET(reg, PMLP_local_port);
    unsigned lane;

    memset(reg, 0, PMLP_SIZE);
    MLX5_SET(reg, PMLP_local_port, port);
    MLX5_SET(reg, PMLP_width, MLX5_MODULE_LANES);
    for (lane = 0; lane < MLX5_MODULE_LANES; lane++) {
        uint8_t *l = reg + PMLP_lane_OFF + 4 * lane;

        MLX5_SET(l, PMLP_lane_rx_lane, lane);
        MLX5_SET(l, PMLP_lane_tx_lane, lane);
        MLX5_SET(l, PMLP_lane_module, 0);
    }
}

void mlx5_module_mcia(Mlx5Core *c, Mlx5CmdCtx *cmd, uint8_t *reg)
{
    uint8_t module = MLX5_GET(reg, MCIA_module);
    uint8_t i2c = MLX5_GET(reg, MCIA_i2c_device_address);
    uint8_t page = MLX5_GET(reg, MCIA_page_number);
    uint32_t off = MLX5_GET(reg, MCIA_device_address);
    uint32_t size = MLX5_GET(reg, MCIA_size);
    uint8_t m[256], status = MLX5_MCIA_STATUS_GOOD;

    if (size > MCIA_MAX_BYTES) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                      MLX5_SYND_BAD_REGISTER);
        return;
    }
    memset(reg + MCIA_DATA_OFF, 0, MCIA_MAX_BYTES);
    if (module != 0 || c->inject_module_out) {
        status = MLX5_MCIA_STATUS_NOT_CONNECTED;
    } else if (i2c != MLX5_I2C_ADDR_LOW || off + size > 256 ||
               !mlx5_module_window(page, m)) {
        status = MLX5_MCIA_STATUS_I2C_ERROR;
    } else {
        memcpy(reg + MCIA_DATA_OFF, m + off, size);
    }
    MLX5_SET(reg, MCIA_status, status);
    trace_mlx5_module_read(module, i2c, page, off, size, status);
}

/*
 * The module was pulled out (@out) or put in: the port module event (module
 * 0, status UNPLUGGED or PLUGGED_ENABLED) that mlx5_core counts and logs
 * ("Port module event: module 0, Cable unplugged").
 */
void mlx5_module_event(Mlx5Core *c, bool out)
{
    uint8_t data[28] = { 0 };

    trace_mlx5_module_event(out);
    if (!c->hca_initialized) {
        return;
    }
    data[1] = 0;                            /* module */
    data[3] = out ? MLX5_MODULE_STATUS_UNPLUGGED : MLX5_MODULE_STATUS_PLUGGED;
    mlx5_eq_post_async(c, MLX5_EVENT_TYPE_PORT_MODULE_EVENT, 0, data,
                       sizeof(data));
}
