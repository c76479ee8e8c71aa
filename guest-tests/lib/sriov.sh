# SR-IOV helpers for the tests that make VFs (sriov.sh, switchdev.sh). Use after common.sh.

# vfs: the PCI addresses of the enabled VFs (15b3:1018)
vfs() {
  for _d in /sys/bus/pci/devices/*; do
    [ "$(cat "$_d/vendor"):$(cat "$_d/device")" = 0x15b3:0x1018 ] && echo "${_d##*/}"
  done
}
# vf_ready BDF: the VF is bound to mlx5_core with a netdev and an RDMA device
vf_ready() {
  [ "$(basename "$(readlink "/sys/bus/pci/devices/$1/driver")")" = mlx5_core ] &&
    ls "/sys/bus/pci/devices/$1/net/"* >/dev/null 2>&1 &&
    ls "/sys/bus/pci/devices/$1/infiniband/"* >/dev/null 2>&1
}
# all_ready N: N VFs exist and each is ready
all_ready() {
  [ "$(vfs | wc -l)" = "$1" ] || return 1
  for _v in $(vfs); do vf_ready "$_v" || return 1; done
}
