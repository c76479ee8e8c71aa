/*
 * Fuzz target: the vendor-specific capability in configuration space (mlx5_vsc.c), mstflint's
 * gateway: the gateway registers at any value (space selection, semaphore, address with and
 * without the flag, data), so every space is read and written at any address, and the ICMD
 * mailbox and control word run commands: access register (any register ID, method and TLV
 * lengths through ACCESS_REG's handlers), QUERY_CAP, unknown opcodes; on a node with live
 * queues, whose command interface must still work afterwards (fz_check).
 *
 * Record: kind u8, val u32.
 *   kind % 8: 0..4 = write val to CTRL, COUNTER, SEMAPHORE, ADDR, DATA; 5 = read the register
 *   val % 5; 6 = a gateway write of val to ICMD mailbox dword (kind >> 3) (an access-register
 *   request is assembled there quickly); 7 = ICMD go with opcode val >> 16 (0x9001 if bit 0 of
 *   kind >> 3 is set).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz.h"

static void gw_write(TDrv *d, uint16_t space, uint32_t addr, uint32_t val)
{
    mlx5_core_vsc_write(d->c, 4, space);
    mlx5_core_vsc_write(d->c, 0x14, val);
    mlx5_core_vsc_write(d->c, 0x10, addr | 0x80000000u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Fz f = { data, size };
    FzNode *n = fz_node_new(false, true);
    TDrv *d = n->d;

    for (unsigned r = 0; r < FZ_MAX_RECORDS && fz_more(&f) && !d->c->health_fatal; r++) {
        uint8_t kind = fz_u8(&f);
        uint32_t val = fz_u32(&f);

        switch (kind % 8) {
        case 5:
            mlx5_core_vsc_read(d->c, 4 + 4 * (val % 5));
            break;
        case 6:
            gw_write(d, 3, 0x100000 + 4 * (kind >> 3), val);
            break;
        case 7:
            gw_write(d, 3, 0, (kind >> 3) & 1 ? 0x90010001u : val | 1);
            break;
        default:
            mlx5_core_vsc_write(d->c, 4 + 4 * (kind % 8), val);
            break;
        }
        fz_settle(n, 8);
    }
    fz_check(n);
    fz_node_free(n);
    return 0;
}
