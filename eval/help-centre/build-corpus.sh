#!/bin/sh
# Renders the help-centre corpus (see README.md) from GNOME Help as Debian 12 ships it in the
# gnome-user-docs package (43.0-2, CC-BY-SA 3.0): every topic page of
# /usr/share/help/C/gnome-help, and the guide pages that carry text of their own, one markdown
# article per page (title "# ", summary line, sections "## "). Needs apt-get and python3.
set -e
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
chmod 777 "$work"  # apt-get download writes as the _apt user
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download gnome-user-docs=43.0-2 >/dev/null)
dpkg-deb -x "$work"/gnome-user-docs_*.deb "$work/root"
rm -rf "$here/corpus"
python3 "$here/mallard-to-markdown.py" "$work/root/usr/share/help/C/gnome-help" "$here/corpus" "$here/sources.tsv"
