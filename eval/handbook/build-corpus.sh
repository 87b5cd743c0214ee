#!/bin/sh
# Renders the handbook corpus (see README.md) from The Debian Administrator's Handbook as
# Debian 12 ships it in the debian-handbook package (11.20220922; GPL-2+ or CC-BY-SA 3.0):
# the English XHTML edition, one markdown document per numbered section (title "# ",
# subsections "## "), chapter introductions of some length as documents of their own.
# Needs apt-get and python3.
set -e
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
chmod 777 "$work"  # apt-get download writes as the _apt user
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download debian-handbook=11.20220922 >/dev/null)
dpkg-deb -x "$work"/debian-handbook_*.deb "$work/root"
rm -rf "$here/corpus"
python3 "$here/html-to-markdown.py" "$work/root/usr/share/doc/debian-handbook/html/en-US" "$here/corpus" "$here/sources.tsv"
