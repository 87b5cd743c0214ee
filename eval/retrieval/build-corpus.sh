#!/bin/sh
# Renders the corpus from the manual pages Debian's openssl and curl packages install
# (Apache-2.0 and the curl licence; see README.md). Section headings become "## ", option
# entries "### ", so the pages carry the markdown structure the chunker follows.
set -e
out="$(dirname "$0")/corpus"
mkdir -p "$out"
render() {
  MANWIDTH=100 man -l "$1" 2>/dev/null | col -bx | awk '
    NR <= 1 { next }
    /^[A-Z][A-Z0-9 ,()-]+$/ { print ""; print "## " substr($0, 1, 1) tolower(substr($0, 2)); print ""; next }
    /^       -[A-Za-z]/ { sub(/^ +/, ""); print ""; print "### " $0; print ""; next }
    { sub(/^ +/, ""); print }
  ' | cat -s | sed '$d'
}
for page in /usr/share/man/man1/openssl-*.1ssl.gz; do
  name=$(basename "$page" .1ssl.gz)
  { echo "# $name"; render "$page"; } > "$out/$name.md"
done
{ echo "# curl"; render /usr/share/man/man1/curl.1.gz; } > "$out/curl.md"
