#!/usr/bin/env python3
"""List the device core's sources for the unit tests (tests/unit/meson.build).

The core is every .c file of hw/rdma/mlx5, hw/rdma/mlx5/eth and hw/rdma/ib: all of the
device but the PCI shell (hw/rdma/mlx5_pci.c). Each folder's meson.build lists its files
for QEMU's build; a file there that the list does not name (or a name with no file) would
build in one place and not the other, so this stops with an error instead.

Usage: core-files.py REPO_ROOT   (prints one path a line, relative to REPO_ROOT)
"""
import glob
import os
import re
import sys

root = sys.argv[1]
dirs = ['hw/rdma/mlx5', 'hw/rdma/mlx5/eth', 'hw/rdma/ib']
out = []
for d in dirs:
    have = sorted(os.path.basename(f) for f in glob.glob(os.path.join(root, d, '*.c')))
    listed = sorted(re.findall(r"'([\w-]+\.c)'", open(os.path.join(root, d, 'meson.build')).read()))
    if have != listed:
        sys.exit(f'core-files.py: {d}/meson.build lists {sorted(set(listed) - set(have))} '
                 f'without a file, and not {sorted(set(have) - set(listed))}')
    out += [f'{d}/{f}' for f in have]
print('\n'.join(out))
