#!/usr/bin/env bash
# checkpatch.sh - QEMU's own scripts/checkpatch.pl over every C file of the device (hw/rdma and
# include/hw/rdma), as a QEMU maintainer would run it on a submission. No exceptions list:
# any error or warning fails.
#
#   scripts/checkpatch.sh [FILE...]     (default: every .c and .h under hw/rdma, include/hw/rdma,
#                                        and the libqos driver and qos tests in tests/qtest)
#
# The script is the one of the QEMU tree that scripts/build-qemu.sh unpacks (subprojects/qemu);
# perl and its modules come from scripts/host-deps.sh (group style). Prints each file's
# problems, then "N passed, N failed" (files); exits 1 if any file has a problem.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
cp=subprojects/qemu/scripts/checkpatch.pl
[ -f "$cp" ] || { echo "checkpatch.sh: $cp missing: run scripts/build-qemu.sh first" >&2
                  echo "0 passed, 1 failed"; exit 1; }
scripts/host-deps.sh style || { echo "0 passed, 1 failed"; exit 1; }

if [ $# -eq 0 ]; then
  mapfile -t files < <({ find hw/rdma include/hw/rdma -name '*.[ch]'
                         ls tests/qtest/libqos/mlx5-hca.[ch] tests/qtest/mlx5-hca-test.c; } | sort)
else
  files=("$@")
fi
pass=0 fail=0
for f in "${files[@]}"; do
  out=$(perl "$cp" --no-tree --color=never -f "$f" 2>&1)
  rc=$?
  # a clean file: exit 0 and "total: 0 errors, 0 warnings" (anything else, a run that did not
  # get that far included, is a failure)
  if [ $rc -ne 0 ] || ! grep -qE '^total: 0 errors, 0 warnings' <<<"$out"; then
    fail=$((fail + 1))
    echo "== $f"
    grep -E -A3 '^(ERROR|WARNING):' <<<"$out" || tail -n 5 <<<"$out"
    echo
  else
    pass=$((pass + 1))
  fi
done
echo "checkpatch: ${#files[@]} files, $fail with errors or warnings"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
