# The configure options of this project's QEMU builds, sourced by scripts/build-qemu.sh and
# scripts/patch-series.sh (which builds the patch series the same way, so that ccache serves
# both). Defines the array qemu_flags; $python must be set.
# shellcheck shell=bash
qemu_flags=(--python="$python" --target-list=x86_64-softmmu
            --without-default-features --enable-tcg --enable-kvm --enable-trace-backends=log
            --disable-docs --disable-werror --disable-download --disable-install-blobs
            --disable-fdt    # fdt is 'auto' even without default features: keep builds alike everywhere
            --enable-slirp   # -netdev user / -nic user (Debian's libslirp): hostfwd into test guests
            --enable-vde)    # -netdev vde: a VDE switch links 3+ QEMUs into one fabric
# configure hands meson an explicit compiler (c = ['cc']), so meson's own ccache auto-detection
# never applies: name ccache in the compiler command instead (meson then recognises it).
qemu_flags+=(--cc="ccache cc")
