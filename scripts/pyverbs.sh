#!/usr/bin/env bash
# pyverbs.sh - rdma-core's test suite (Debian's python3-pyverbs, run_tests.py) in a guest on the
# device. Builds build/guest-pyverbs (the test image plus Python, pyverbs, scapy and the tests),
# boots one guest, runs the modules and prints the per-module totals:
#   module                 passed skipped failed errors
# and the skip reasons. Exit status 0 when the modules of CLEAN have no failures or errors.
#
#   scripts/pyverbs.sh [MODULE...]      default: the modules of issue 8's acceptance list
#
# Logs: build/pyverbs/serial-0.log (every test's outcome and the tracebacks).
# PYVERBS_DEVICE_ARGS: extra -device mlx5-hca properties (scripts/fuzz.sh --record uses it;
# link-type=eth runs the suite on an Ethernet port: RoCE v2, the Ethernet-only tests). PYVERBS_LOGS:
# the log directory (default build/pyverbs). PYVERBS_PASSES: "MODULE=N ..." - each MODULE must
# pass at least N tests (so that a feature's tests cannot turn into skips unnoticed).
# PYVERBS_SWITCHDEV=1 (with link-type=eth): the E-Switch in switchdev mode before the tests.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export MLX5T_ACCEL=${MLX5T_ACCEL:-tcg}
MODULES=${*:-test_mlx5_mkey test_mlx5_devx test_mlx5_dc test_qpex test_mr test_cq test_cqex test_atomic test_srq test_qp test_odp test_tag_matching test_mlx5_cq test_cq_events test_device test_fork test_mlx5_huge_page test_mlx5_query_port test_parent_domain test_pd test_relaxed_ordering test_shared_pd test_rdmacm test_addr}
# modules that must have no failures or errors (the others are reported only); grows as the
# features they test land
CLEAN=${PYVERBS_CLEAN-test_atomic test_cq test_cqex test_mlx5_dc test_mlx5_devx test_mlx5_mkey test_mr test_odp test_qp test_qpex test_srq test_tag_matching test_mlx5_cq test_cq_events test_device test_fork test_mlx5_huge_page test_mlx5_query_port test_parent_domain test_pd test_relaxed_ordering test_shared_pd test_rdmacm test_addr}

qemu=${MLX5T_QEMU:-$(scripts/build-qemu.sh | tail -n1)}   # (meson sets it: the build's -Dqemu, e.g. the sanitizer build)
EXTRA_PACKAGES="python3-pyverbs python3-scapy python3 python3-minimal python3.13 python3.13-minimal
  libpython3.13-minimal libpython3.13-stdlib libpython3.13" \
KEEP_PATHS="usr/share/doc/rdma-core/tests" OUT=build/guest-pyverbs scripts/build-image.sh >&2
logs=${PYVERBS_LOGS:-build/pyverbs}
rc=0
python3 scripts/guest-run.py --test guest-tests/pyverbs.sh --qemu "$qemu" \
  --kernel build/guest-pyverbs/vmlinuz --initrd build/guest-pyverbs/base.cpio --log-dir "$logs" \
  --extra-device-args "${PYVERBS_DEVICE_ARGS:-}" \
  --append "mlx5t.pyverbs_modules=$(echo $MODULES | tr ' ' ,) mlx5t.pyverbs_clean=$(echo $CLEAN | tr ' ' ,)${PYVERBS_SWITCHDEV:+ mlx5t.pyverbs_switchdev=$PYVERBS_SWITCHDEV}" >&2 ||
  rc=$?
printf '%-22s %7s %7s %7s %7s\n' module passed skipped failed errors
sed -n 's/^@@PYVERBS module=\(\S*\) passed=\([0-9]*\) skipped=\([0-9]*\) failed=\([0-9]*\) errors=\([0-9]*\).*/\1 \2 \3 \4 \5/p' \
  "$logs/serial-0.log" | sort -u | awk '{printf "%-22s %7d %7d %7d %7d\n", $1, $2, $3, $4, $5;
    P += $2; S += $3; F += $4; E += $5} END {printf "%-22s %7d %7d %7d %7d\n", "total", P, S, F, E}'
echo "skip reasons:"
sed -n 's/^@@PYVERBS-SKIP /  /p' "$logs/serial-0.log" | sort -u
for want in ${PYVERBS_PASSES:-}; do
  m=${want%=*} n=${want#*=}
  got=$(sed -n "s/^@@PYVERBS module=$m passed=\([0-9]*\) .*/\1/p" "$logs/serial-0.log" | head -n1)
  if [ "${got:-0}" -lt "$n" ]; then
    echo "pyverbs: $m passed ${got:-0} tests, fewer than the $n required (PYVERBS_PASSES)"
    rc=1
  fi
done
exit $rc
