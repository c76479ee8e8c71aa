#!/bin/sh
# rdma-core's own test suite (pyverbs, Debian's python3-pyverbs: /usr/share/doc/rdma-core/tests)
# on the device, run by its run_tests.py, unmodified. Prints every test's outcome, then one line
# per module: "@@PYVERBS module=M passed=P skipped=S failed=F errors=E", the skip reasons, and
# the tracebacks of failures and errors. Passes when the modules named by
# mlx5t.pyverbs_clean=... (comma separated; scripts/pyverbs.sh sets them) have no failures or
# errors; the others are reported only.
# mlx5t-instances: 1
# mlx5t-timeout: 1500
. /test/lib/common.sh
MODULES=$(sed -n 's/.*mlx5t.pyverbs_modules=\([^ ]*\).*/\1/p' /proc/cmdline | tr ',' ' ')
CLEAN=$(sed -n 's/.*mlx5t.pyverbs_clean=\([^ ]*\).*/\1/p' /proc/cmdline | tr ',' ' ')
load_mlx5
# an Ethernet port (PYVERBS_DEVICE_ARGS=link-type=eth): the mlx5e interface up with an address,
# so that the port is ACTIVE and the GID table has a RoCE v2 GID with an IP (the tests pick it)
wait_for 30 test -d /sys/class/infiniband/mlx5_0/ports/1 || fail "no mlx5_0"
if [ "$(cat /sys/class/infiniband/mlx5_0/ports/1/link_layer)" = Ethernet ]; then
  wait_for 30 mlx5_netdev || fail "no mlx5e interface"
  E=$(mlx5_netdev)
  ip link set "$E" up && ip addr add 192.168.77.1/24 dev "$E" || fail "cannot bring up $E"
  echo "Ethernet port: $E 192.168.77.1"
  if grep -q "mlx5t.pyverbs_switchdev=1" /proc/cmdline; then
    # the E-Switch in switchdev mode (PYVERBS_SWITCHDEV=1): mlx5_core's FDB through its own
    # software steering (SMFS), the tests that need "Eswitch on" run (test_mlx5_dr's
    # test_dest_vport, test_dest_ib_port: an FDB domain of the library's own)
    BDF=$(basename "$(readlink "/sys/class/net/$E/device")")
    # encap off first, as rdma-core's tests ask of a card in switchdev mode ("Encap must be
    # disabled over switchdev mode"; mlx5_core's default is basic, the FDB having reformat
    # and decap)
    devlink dev eswitch set "pci/$BDF" encap-mode none || fail "devlink: cannot set encap-mode none"
    devlink dev eswitch set "pci/$BDF" mode switchdev || fail "devlink: no switchdev mode"
    echo "devlink: $(devlink dev eswitch show "pci/$BDF")"
    echo "devlink: $(devlink dev param show "pci/$BDF" name flow_steering_mode | tr -s ' \n' ' ')"
    # (mlx5_ib registers the representors' RDMA device in its place: a port per vport, the
    # uplink representor's, on the PF's netdev, last)
    wait_for 30 sh -c "rdma link show | grep -q 'netdev $E *\$'" || fail "no RDMA port on $E in switchdev mode"
    rdma link show
    PORT=$(rdma link show | sed -n "s|^link mlx5_0/\([0-9]*\) .*netdev $E *\$|\1|p")
    [ -n "$PORT" ] || fail "the uplink representor's port is not on mlx5_0"
    ip link set "$E" up
    ip addr show dev "$E" | grep -q 192.168.77.1/ || ip addr add 192.168.77.1/24 dev "$E"
  fi
fi
PORT=${PORT:-1}
wait_ib_active mlx5_0 "$PORT" 90
# an InfiniBand port: IPoIB up with an address, as a host with a card has it, so that the RDMA
# CM tests (test_rdmacm, test_mlx5_rdmacm) find the port's net interface and resolve addresses
# and paths (through the fabric's SA) instead of skipping
if [ "$(cat /sys/class/infiniband/mlx5_0/ports/1/link_layer)" = InfiniBand ]; then
  run modprobe -a ib_ipoib rdma_ucm || fail "modprobe ib_ipoib failed"
  ip link set ib0 up || fail "ib0 missing"
  wait_for 60 grep -qx 1 /sys/class/net/ib0/carrier || fail "ib0 has no carrier"
  ip addr add 192.168.78.1/24 dev ib0 || fail "cannot give ib0 its address"
  echo "InfiniBand port: ib0 192.168.78.1"
fi
# test_odp's huge-page tests register an ODP MR on a 2 MiB page (MAP_HUGETLB)
echo 8 > /proc/sys/vm/nr_hugepages || true
echo "huge pages: $(cat /proc/sys/vm/nr_hugepages)" 
T=/usr/share/doc/rdma-core/tests
[ -f $T/run_tests.py ] || fail "no pyverbs tests in the image ($T)"
args=
for m in $MODULES; do args="$args tests.$m"; done
echo "+ python3 run_tests.py --dev mlx5_0 --port $PORT -v$args"
(cd $T && timeout 1300 python3 run_tests.py --dev mlx5_0 --port "$PORT" -v $args) > /tmp/pv.out 2>&1
rc=$?
cat /tmp/pv.out
# Verbose unittest output: each test starts with "test_x (tests.MODULE.Class.test_x)" (its
# docstring and " ... result" may follow on the next line, with other output in between); the
# final report lists every failure and error as "FAIL: test_x (tests.MODULE...)" /
# "ERROR: ...". Tests are counted by their id lines, skips by the "skipped '...'" result that
# follows (after " ... ", or at the start of a line when pyverbs' clean-up tracebacks came in
# between), failures and errors by the report; the rest passed.
awk '
  function modof(line) { match(line, /\(tests\.[a-z0-9_]+\./); return substr(line, RSTART + 7, RLENGTH - 8) }
  /^(FAIL|ERROR): test[^ ]* \(tests\./ { m = modof($0); if ($1 == "FAIL:") f[m]++; else e[m]++; next }
  /^test[^ ]* \(tests\.[a-z0-9_]+\.[^ ]*\)/ { cur = modof($0); n[cur]++; mods[cur] = 1; done = 0 }
  (/ \.\.\. skipped / || /^skipped [\x27"]/) && cur != "" && !done {
    s[cur]++; done = 1; r = $0; sub(/.*\.\.\. skipped /, "", r); sub(/^skipped /, "", r); why[cur ": " r]++ }
  END {
    for (m in mods) printf "@@PYVERBS module=%s passed=%d skipped=%d failed=%d errors=%d\n", m, n[m] - s[m] - f[m] - e[m], s[m], f[m], e[m]
    for (k in why) printf "@@PYVERBS-SKIP %s x%d\n", k, why[k]
  }' /tmp/pv.out | sort > /tmp/pv.sum
cat /tmp/pv.sum
grep -E "^(Ran|OK|FAILED)" /tmp/pv.out
grep -q "^@@PYVERBS module=" /tmp/pv.sum || fail "run_tests.py ran no test (exit $rc)"
bad=
for m in $CLEAN; do
  line=$(grep "^@@PYVERBS module=$m " /tmp/pv.sum) || { bad="$bad $m(not run)"; continue; }
  case $line in *" failed=0 errors=0") ;; *) bad="$bad $m" ;; esac
done
[ -z "$bad" ] || fail "pyverbs modules with failures or errors:$bad"
echo "pyverbs: OK (clean:$CLEAN)"
