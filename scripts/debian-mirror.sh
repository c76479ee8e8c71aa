#!/usr/bin/env bash
# debian-mirror.sh - print the Debian mirror this machine's own apt configuration uses (never a
# host name written into the repo): the first "deb" URI of a non-security Debian suite in
# /etc/apt/sources.list.d/*.sources (deb822), else in /etc/apt/sources.list{,.d/*.list}.
# DEBIAN_MIRROR=URI overrides it. Used by scripts/trixie-apt.sh and scripts/fresh-check.sh.
set -euo pipefail
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
[ -n "$mirror" ] || { echo "debian-mirror: no Debian mirror found in the apt configuration" >&2; exit 1; }
echo "$mirror"
