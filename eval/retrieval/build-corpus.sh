#!/bin/sh
# Renders the corpus from the manual pages Debian's openssl and curl packages install
# (Apache-2.0 and the curl licence; see README.md). Section headings become "## ", option
# entries "### ", so the pages carry the markdown structure the chunker follows.
set -e
out="$(dirname "$0")/corpus"
mkdir -p "$out"
. "$(dirname "$0")/../render-manual.sh"
for page in /usr/share/man/man1/openssl-*.1ssl.gz; do
  name=$(basename "$page" .1ssl.gz)
  { echo "# $name"; render "$page"; } > "$out/$name.md"
done
{ echo "# curl"; render /usr/share/man/man1/curl.1.gz; } > "$out/curl.md"
