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
