#!/bin/sh
# Renders the config-manuals corpus (see README.md) from the manual pages of section 5 (file
# formats and configuration files) that this Debian 12 machine installs: every page in
# /usr/share/man/man5 that is a file, not a symlink, and renders to at least 300 bytes. Rendered by
# eval/render-manual.sh, as eval/command-manuals does: section headings become "## ", option entries "### ",
# the markdown structure the chunker follows. At most 400 pages: past that bound the pages the
# questions name are kept and the rest, sorted by name, fill up to it (there are fewer today).
# sources.tsv says which package each page comes from (its licence: README.md).
set -e
here="$(dirname "$0")"
out="$here/corpus"
rm -rf "$out"
mkdir -p "$out"
max=400
. "$(dirname "$0")/../render-manual.sh"
targets=""
[ -f "$here/questions.tsv" ] && targets=$(grep -v '^#' "$here/questions.tsv" | cut -f2 | tr ',' ' ')
targets=" $(echo $targets) "
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for page in $(find /usr/share/man/man5 -maxdepth 1 -name '*.5*.gz' ! -type l | sort); do
  name=$(basename "$page" | sed -E 's/\.5[a-z]*\.gz$//')
  [ -e "$tmp/$name.md" ] && continue
  { echo "# $name"; render "$page"; } > "$tmp/$name.md" || { rm -f "$tmp/$name.md"; continue; }
  [ "$(wc -c < "$tmp/$name.md")" -ge 300 ] || { rm -f "$tmp/$name.md"; continue; }
  echo "$name	$page" >> "$tmp/rendered.tsv"
done
# The questions' targets first, then the other pages by name, up to the bound.
{
  while IFS='	' read -r name page; do
    case "$targets" in *" $name "*) echo "$name	$page" ;; esac
  done < "$tmp/rendered.tsv"
  while IFS='	' read -r name page; do
    case "$targets" in *" $name "*) ;; *) echo "$name	$page" ;; esac
  done < "$tmp/rendered.tsv"
} | head -n "$max" | sort > "$tmp/kept.tsv"
echo "# page	Debian package" > "$here/sources.tsv"
while IFS='	' read -r name page; do
  mv "$tmp/$name.md" "$out/$name.md"
  package=$(dpkg -S "$page" 2>/dev/null | head -n 1 | cut -d: -f1)
  echo "$name	${package:-unknown}" >> "$here/sources.tsv"
done < "$tmp/kept.tsv"
