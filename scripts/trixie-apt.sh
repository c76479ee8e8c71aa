#!/usr/bin/env bash
# Private apt configuration for Debian trixie, derived from this machine's own apt sources.
# Usage: scripts/trixie-apt.sh DIR   -> prints the path of an apt.conf to pass with `apt-get -c`.
# The mirror is taken from the system configuration (never hard-coded): scripts/debian-mirror.sh.
set -euo pipefail
dir=$(realpath -m "${1:?usage: trixie-apt.sh DIR}")
suite=${TRIXIE_SUITE:-trixie}
mkdir -p "$dir"/{state/lists/partial,cache/archives/partial,etc/preferences.d,etc/apt.conf.d}

mirror=$("$(dirname "${BASH_SOURCE[0]}")/debian-mirror.sh")

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
cat > "$dir/etc/sources.list" <<S
deb [signed-by=$keyring] $mirror $suite main
deb-src [signed-by=$keyring] $mirror $suite main
S
cat > "$dir/apt.conf" <<C
Dir::State "$dir/state";
Dir::State::status "$dir/state/status";
Dir::Cache "$dir/cache";
Dir::Etc::sourcelist "$dir/etc/sources.list";
Dir::Etc::sourceparts "-";
Dir::Etc::preferencesparts "$dir/etc/preferences.d";
Dir::Etc::parts "$dir/etc/apt.conf.d";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
Acquire::Languages "none";
C
touch "$dir/state/status"
stamp="$dir/state/updated"
if [ ! -e "$stamp" ] || [ -n "$(find "$stamp" -mmin +720 2>/dev/null)" ]; then
  apt-get -c "$dir/apt.conf" -q update >&2
  touch "$stamp"
fi
echo "$dir/apt.conf"
