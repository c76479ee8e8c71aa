/*
 * Stand-in for QEMU's qemu/osdep.h when the device core is compiled into the unit tests
 * without QEMU. The core only relies on what is declared here (C library + glib).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MLX5_TEST_OSDEP_H
#define MLX5_TEST_OSDEP_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
/* QEMU's config-host.h names the host architecture */
#if defined(__x86_64__)
#define HOST_X86_64 1
#endif
/*
 * QEMU's own headers that the core uses (net/checksum.h's net_toeplitz_*,
 * qemu/bswap.h) come from the unpacked QEMU tree (subprojects/qemu/include,
 * after this directory on the include path); they need these two.
 */
#define HOST_BIG_ENDIAN (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
#include "qemu/compiler.h"
#ifndef container_of
#define container_of(ptr, type, member) \
    ((type *)((char *)(ptr) - offsetof(type, member)))
#endif

#endif
