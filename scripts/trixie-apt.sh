#!/usr/bin/env bash
# Private apt configuration for Debian trixie, derived from this machine's own apt sources.
# Usage: scripts/trixie-apt.sh DIR   -> prints the path of an apt.conf to pass with `apt-get -c`.
# The mirror is taken from the system configuration (never hard-coded): the first "deb" URI
# of a non-security Debian suite in /etc/apt/sources.list{,.d/*.sources,.d/*.list}.
set -euo pipefail
dir=$(realpath -m "${1:?usage: trixie-apt.sh DIR}")
suite=${TRIXIE_SUITE:-trixie}
mkdir -p "$dir"/{state/lists/partial,cache/archives/partial,etc/preferences.d,etc/apt.conf.d}

mirror=${DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -e "$f" ] || continue
    # deb822 stanzas: pick URIs of a stanza whose Suites has no "-security"
    mirror=$(awk 'BEGIN{RS="";FS="\n"} {u="";s="";t=""
      for(i=1;i<=NF;i++){ if($i~/^URIs:/){sub(/^URIs:[ \t]*/,"",$i);split($i,a," ");u=a[1]}
        if($i~/^Suites:/){s=$i} if($i~/^Types:/){t=$i} }
      if(u!="" && t~/deb/ && s!~/security/ && u!~/security/){print u; exit}}' "$f")
    [ -n "$mirror" ] && break
  done
fi
if [ -z "$mirror" ]; then
  # (cat fails when a glob matches nothing; with pipefail that must not end the script)
  mirror=$( (cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true) |
           awk '$1=="deb" && $0!~/security/ {for(i=2;i<=NF;i++) if($i ~ /^[a-z]+:\/\//){print $i; exit}}' | head -n1)
fi
[ -n "$mirror" ] || { echo "trixie-apt: no Debian mirror found in the apt configuration" >&2; exit 1; }

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
