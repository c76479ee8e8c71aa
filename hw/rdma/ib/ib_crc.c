/*
 * CRC-32 for the ICRC (the IEEE 802.3 polynomial, reflected, as zlib's
 * crc32()).
 *
 * The ICRC covers every byte of every packet, twice (sent and checked), and
 * zlib's table-driven crc32() was more than half of the device core's
 * instructions for bulk RDMA WRITE (docs/benchmarks.md). On x86-64 hosts with
 * PCLMULQDQ this folds 64 bytes per step with carry-less multiplication (Gopal
 * et al., "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ
 * Instruction", Intel 2009; the constants are the paper's for the bit-reflected
 * CRC-32, as in Chromium's zlib crc32_simd.c), chosen at run time by the CPU's
 * feature bits; runs of 16 to 63 bytes fold in one lane, and the last few bytes
 * go through a byte table. Hosts without it use zlib's crc32().
 *
 * Copyright (c) 2026 The qemu-mlx5 authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <zlib.h>

#include "hw/rdma/ib/ib_wire.h"

uint32_t ib_crc32_generic(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;

    /* zlib takes uInt lengths: feed it in slices that always fit */
    while (len) {
        size_t n = MIN(len, (size_t)1 << 30);

        crc = (uint32_t)crc32(crc, p, (uInt)n);
        p += n;
        len -= n;
    }
    return crc;
}

#ifdef HOST_X86_64
#include <immintrin.h>

#define IB_CRC_CLMUL_MIN 16

/*
 * byte at a time, for the few bytes the folding leaves (zlib's per-call cost is
 * far higher)
 */
static uint32_t ib_crc_table[256];

static void ib_crc_table_init(void)
{
    for (unsigned i = 0; i < 256; i++) {
        uint32_t c = i;

        for (int k = 0; k < 8; k++) {
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        }
        ib_crc_table[i] = c;
    }
}

static uint32_t ib_crc32_bytes(uint32_t crc, const uint8_t *p, size_t len)
{
    crc = ~crc;
    while (len--) {
        crc = ib_crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    }
    return ~crc;
}

/*
 * @crc is the internal (inverted) register; @len >= 16 and a multiple of 16.
 * From 64 bytes on, four 128-bit lanes are folded in parallel; shorter runs
 * start with one lane.
 */
static __attribute__((target("pclmul,sse4.1"))) uint32_t
ib_crc32_fold(uint32_t crc, const uint8_t *buf, size_t len)
{
    static const uint64_t k1k2[] = { 0x0154442bd4ULL, 0x01c6e41596ULL };
    static const uint64_t k3k4[] = { 0x01751997d0ULL, 0x00ccaa009eULL };
    static const uint64_t k5k0[] = { 0x0163cd6124ULL, 0x0000000000ULL };
    static const uint64_t poly[] = { 0x01db710641ULL, 0x01f7011641ULL };
    __m128i x0, x1, x2, x3, x4, x5, x6, x7, x8, y5, y6, y7, y8;

    if (len < 64) {
        x1 = _mm_loadu_si128((const __m128i *)buf);
        x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
        x0 = _mm_loadu_si128((const __m128i *)k3k4);
        buf += 16;
        len -= 16;
        goto single;
    }
    x1 = _mm_loadu_si128((const __m128i *)(buf + 0x00));
    x2 = _mm_loadu_si128((const __m128i *)(buf + 0x10));
    x3 = _mm_loadu_si128((const __m128i *)(buf + 0x20));
    x4 = _mm_loadu_si128((const __m128i *)(buf + 0x30));
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
    x0 = _mm_loadu_si128((const __m128i *)k1k2);
    buf += 64;
    len -= 64;

    /* fold four 128-bit lanes over each further 64 bytes */
    while (len >= 64) {
        x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
        x6 = _mm_clmulepi64_si128(x2, x0, 0x00);
        x7 = _mm_clmulepi64_si128(x3, x0, 0x00);
        x8 = _mm_clmulepi64_si128(x4, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x2 = _mm_clmulepi64_si128(x2, x0, 0x11);
        x3 = _mm_clmulepi64_si128(x3, x0, 0x11);
        x4 = _mm_clmulepi64_si128(x4, x0, 0x11);
        y5 = _mm_loadu_si128((const __m128i *)(buf + 0x00));
        y6 = _mm_loadu_si128((const __m128i *)(buf + 0x10));
        y7 = _mm_loadu_si128((const __m128i *)(buf + 0x20));
        y8 = _mm_loadu_si128((const __m128i *)(buf + 0x30));
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x5), y5);
        x2 = _mm_xor_si128(_mm_xor_si128(x2, x6), y6);
        x3 = _mm_xor_si128(_mm_xor_si128(x3, x7), y7);
        x4 = _mm_xor_si128(_mm_xor_si128(x4, x8), y8);
        buf += 64;
        len -= 64;
    }

    /* fold the four lanes into one */
    x0 = _mm_loadu_si128((const __m128i *)k3k4);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x3), x5);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x4), x5);

single:
    /* single folds over the remaining 16-byte blocks */
    while (len >= 16) {
        x2 = _mm_loadu_si128((const __m128i *)buf);
        x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
        buf += 16;
        len -= 16;
    }

    /* 128 bits to 64 */
    x2 = _mm_clmulepi64_si128(x1, x0, 0x10);
    x3 = _mm_setr_epi32(~0, 0, ~0, 0);
    x1 = _mm_srli_si128(x1, 8);
    x1 = _mm_xor_si128(x1, x2);
    x0 = _mm_loadl_epi64((const __m128i *)k5k0);
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_and_si128(x1, x3);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_xor_si128(x1, x2);

    /* Barrett reduction to 32 bits */
    x0 = _mm_loadu_si128((const __m128i *)poly);
    x2 = _mm_and_si128(x1, x3);
    x2 = _mm_clmulepi64_si128(x2, x0, 0x10);
    x2 = _mm_and_si128(x2, x3);
    x2 = _mm_clmulepi64_si128(x2, x0, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    return (uint32_t)_mm_extract_epi32(x1, 1);
}

/* decided once, on first use, with the byte table the folded path needs */
bool ib_crc32_have_clmul(void)
{
    static int have = -1;

    if (have < 0) {
        ib_crc_table_init();
        __builtin_cpu_init();
        have = __builtin_cpu_supports("pclmul") &&
               __builtin_cpu_supports("sse4.1");
    }
    return have;
}

uint32_t ib_crc32(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;

    if (!ib_crc32_have_clmul()) {
        return ib_crc32_generic(crc, buf, len);
    }
    if (len >= IB_CRC_CLMUL_MIN) {
        size_t n = len & ~(size_t)15;

        crc = ~ib_crc32_fold(~crc, p, n);
        p += n;
        len -= n;
    }
    return len ? ib_crc32_bytes(crc, p, len) : crc;
}

#else

bool ib_crc32_have_clmul(void)
{
    return false;
}

uint32_t ib_crc32(uint32_t crc, const void *buf, size_t len)
{
    return ib_crc32_generic(crc, buf, len);
}

#endif
