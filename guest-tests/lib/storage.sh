# Helpers of the storage ULP tests (srp.sh, iser.sh, nfs-rdma.sh).

# pattern FILE SEED: $MB MiB of pseudo-random bytes, the same on both instances
pattern() {
  awk -v seed="$2" -v mb="$MB" 'BEGIN { srand(seed); n = mb * 1024 * 1024 / 16
    for (i = 0; i < n; i++) printf "%08x%07x\n", int(rand() * 4294967295), i % 268435456 }' > "$1"
}

# scsi_disk PROC_NAME: /dev/sdX of the first disk on a SCSI host of that driver
scsi_disk() {
  for _b in /sys/block/sd*; do
    [ -e "$_b" ] || continue
    _h=$(readlink -f "$_b/device"); _h=${_h#*/host}; _h=${_h%%/*}
    [ "$(cat "/sys/class/scsi_host/host$_h/proc_name" 2>/dev/null)" = "$1" ] &&
      { echo "/dev/${_b##*/}"; return 0; }
  done
  return 1
}

# md5_of FILE BS SKIP COUNT [FLAG]: md5 of COUNT blocks of BS at SKIP blocks into FILE
# (FLAG: dd's iflag, e.g. direct)
md5_of() {
  dd if="$1" bs="$2" skip="$3" count="$4" ${5:+iflag=$5} 2>/dev/null | md5sum | cut -d' ' -f1
}

# send_value PORT VALUE: give the other instance a line; recv_value PORT: get it
send_value() { _try "$2" nc -w 1 "$PEER_IP" "$1"; }
recv_value() { timeout 120 nc -l -p "$1" | head -n 1; }

# disk_write_read DEV SEED WHAT: the fresh $MB MiB RAM disk DEV (through protocol WHAT) reads as
# zeros; pattern SEED (kept in /tmp/a.bin) goes to it in 1 MiB direct writes and reads back
# with 1 MiB, 128 KiB and 8 MiB requests (all of it), 4 KiB (the first MiB) and 512 B (one
# 64 KiB stretch), each checked by md5
disk_write_read() {
  _zero=$(dd if=/dev/zero bs=1M count=1 2>/dev/null | md5sum | cut -d' ' -f1)
  [ "$(md5_of "$1" 1M 0 1 direct)" = "$_zero" ] || fail "the new disk does not read as zeros"
  pattern /tmp/a.bin "$2"
  _sum=$(md5sum < /tmp/a.bin | cut -d' ' -f1)
  dd if=/tmp/a.bin of="$1" bs=1M count="$MB" oflag=direct 2>/tmp/dd.err ||
    { cat /tmp/dd.err; fail "1 MiB writes over $3 failed"; }
  for _bs in 1M 128k 8M; do
    case $_bs in 1M) _n=$MB ;; 128k) _n=$((MB * 8)) ;; 8M) _n=$((MB / 8)) ;; esac
    _got=$(md5_of "$1" $_bs 0 $_n direct)
    echo "read back with bs=$_bs: $_got"
    [ "$_got" = "$_sum" ] || fail "reads with bs=$_bs differ (want $_sum)"
  done
  [ "$(md5_of "$1" 4k 0 256 direct)" = "$(md5_of /tmp/a.bin 4k 0 256)" ] ||
    fail "4 KiB reads differ"
  [ "$(md5_of "$1" 512 1000 128 direct)" = "$(md5_of /tmp/a.bin 512 1000 128)" ] ||
    fail "512 B reads differ"
}
