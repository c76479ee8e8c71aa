#!/usr/bin/env python3
"""mlx5-fw-image.py - make a firmware image for QEMU's mlx5-hca, packed as mlx5_core flashes it.

    scripts/mlx5-fw-image.py --version 16.36.1000 -o fw.mfa2 [--psid MT_0000000008]
                             [--date 2024-05-01T12:30] [--payload-size BYTES] [--raw img.bin]
                             [--mfa2-psid PSID] [--break digest|format]

The image (docs/firmware-image.md) is the device's own format: a 64-byte header (magic
"MLX5QFW1", PSID, version, build date, CRC-32s) and a payload. `-o` writes it as an MFA2
package (the format `devlink dev flash` takes: mlxfw's fingerprint, a package descriptor, one
device descriptor with the PSID and one component, and an XZ component block); `--raw` writes the
bare image. Copy the package to the guest's /lib/firmware and run
`devlink dev flash pci/<BDF> file <name>`.

For testing the error paths: --mfa2-psid puts another PSID in the package (mlxfw refuses it
before touching the device); --break digest spoils the payload after its CRC was taken, --break
format the magic (the device's verify rejects both; nothing is written).
"""
import argparse
import lzma
import re
import struct
import sys
import zlib

HDR = 0x40


def image(psid, ver, date, payload_size, brk):
    payload = bytes((i * 131 + 7) & 0xff for i in range(payload_size))
    hdr = bytearray(HDR)
    hdr[0:8] = b"MLX5QFW1"
    struct.pack_into(">II", hdr, 8, HDR, len(payload))
    hdr[0x10:0x20] = psid.encode().ljust(16, b"\0")[:16]
    struct.pack_into(">HHH", hdr, 0x20, *ver)
    struct.pack_into(">HBBBB", hdr, 0x28, *date)
    struct.pack_into(">I", hdr, 0x30, zlib.crc32(payload))
    struct.pack_into(">I", hdr, 0x34, zlib.crc32(bytes(hdr[:0x34])))
    if brk == "format":
        hdr[0:8] = b"NOTANIMG"
    img = bytes(hdr) + payload
    if brk == "digest":
        img = img[:-1] + bytes([img[-1] ^ 0xff])
    return img


def align4(b):
    return b + b"\0" * (-len(b) % 4)


def tlv(typ, payload):
    """An MFA2 TLV: version, type, length (of the payload), the payload padded to 4."""
    return align4(struct.pack(">BBH", 0, typ, len(payload)) + payload)


def multi(children):
    """A multi-part TLV: its header (extensions = children - 1, their total length), children."""
    body = b"".join(children)
    return tlv(0x01, struct.pack(">HH", len(children) - 1, len(body))) + body


def mfa2(psid, img):
    comp = b"#BIN.COMPONENT!#" + img
    cb = lzma.compress(comp, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32,
                       filters=[{"id": lzma.FILTER_LZMA2, "preset": 6}])
    dev = multi([tlv(0x2a, psid.encode()),
                 tlv(0x22, struct.pack(">HHI", 0, 0, 0))])      # storage, component 0
    # component descriptor: classification, identifier (the device's component index 0,
    # its boot image), offset of the component in the block (64-bit), its size
    cdesc = multi([tlv(0x04, struct.pack(">HHIII", 0, 0, 0, 0, len(img)))])

    def package(cb_offset):
        return multi([tlv(0x02, struct.pack(">HHIIII3xBI", 1, 1, cb_offset, len(cb), 0,
                                            len(comp), 1, 0))])

    head_len = 16 + len(package(0)) + len(dev) + len(cdesc)
    return b"MLNX.MFA2.XZ.00!" + package(head_len) + dev + cdesc + cb


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--version", required=True, help="MAJOR.MINOR.SUBMINOR, e.g. 16.36.1000")
    ap.add_argument("--psid", default="MT_0000000008", help="the device's PSID (board_id)")
    ap.add_argument("--mfa2-psid", help="the PSID the package names (default: --psid)")
    ap.add_argument("--date", default="2024-01-01T00:00", help="build date, YYYY-MM-DDTHH:MM")
    ap.add_argument("--payload-size", type=int, default=64 * 1024)
    ap.add_argument("--break", dest="brk", choices=("digest", "format"))
    ap.add_argument("-o", "--output", help="the MFA2 package")
    ap.add_argument("--raw", help="the bare image")
    a = ap.parse_args()
    m = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", a.version)
    d = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)", a.date)
    if not m or not d or max(map(int, m.groups())) > 0xffff:
        ap.error("--version is MAJOR.MINOR.SUBMINOR (each < 65536), --date YYYY-MM-DDTHH:MM")
    if a.payload_size < 0 or a.payload_size % 4 or a.payload_size > (8 << 20) - HDR:
        ap.error("--payload-size is a multiple of 4, at most 8 MiB less the header")
    if len(a.psid) > 16 or not (a.output or a.raw):
        ap.error("the PSID has at most 16 characters; give -o or --raw")
    img = image(a.psid, tuple(map(int, m.groups())), tuple(map(int, d.groups())),
                a.payload_size, a.brk)
    if a.raw:
        open(a.raw, "wb").write(img)
    if a.output:
        open(a.output, "wb").write(mfa2(a.mfa2_psid or a.psid, img))
    return 0


if __name__ == "__main__":
    sys.exit(main())
