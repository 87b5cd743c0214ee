#!/bin/sh
# Renders the policy corpus (see README.md) from the Debian Policy Manual as Debian 12 ships it
# in the debian-policy package (4.6.2.0, GPL-2+): its plain-text edition, one markdown
# document per numbered section (title "# ", subsections "## "). Needs apt-get and python3.
set -e
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
chmod 777 "$work"  # apt-get download writes as the _apt user
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download debian-policy=4.6.2.0 >/dev/null)
dpkg-deb -x "$work"/debian-policy_*.deb "$work/root"
zcat "$work/root/usr/share/doc/debian-policy/policy.txt.gz" > "$work/policy.txt"
rm -rf "$here/corpus"
python3 "$here/policy-to-markdown.py" "$work/policy.txt" "$here/corpus" "$here/sources.tsv"
