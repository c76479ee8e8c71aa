# The RDS test of rds.sh and storage-roce.sh, between the addresses IB_ME and IB_PEER (IPoIB or
# RoCE): rds-check (guest-tests/src/rds-check.c) on AF_RDS sockets forced onto rds_rdma.
rds_test() {
  run modprobe -a rds rds_rdma || fail "modprobe rds_rdma failed"
  barrier rds-up 6600
  _msgs=56
  if [ "$IDX" = 0 ]; then
    rds-check server "$IB_ME" 18634 $_msgs > /tmp/rds.out 2>&1 ||
      { cat /tmp/rds.out; fail "rds-check server"; }
  else
    sleep 1     # (the server's socket first: RDS drops what comes to an unbound port)
    rds-check client "$IB_ME" "$IB_PEER" 18634 $_msgs > /tmp/rds.out 2>&1 ||
      { cat /tmp/rds.out; fail "rds-check client"; }
  fi
  cat /tmp/rds.out
  grep -q "bytes verified, OK" /tmp/rds.out || fail "rds-check"
  barrier rds-done 6610
  echo "rds: OK"
}
