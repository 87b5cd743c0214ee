#!/bin/sh
# Renders the search benchmark's corpus (see README.md) from the manual pages Debian 12 installs:
# the everyday commands the questions are about, and every other page of sections 1 and 8 of the
# same packages that is short (at most 12,000 bytes of troff), so that the questions' terms
# also occur in pages that do not answer them. Rendered by eval/render-manual.sh:
# section headings become "## ", option entries "### ", the markdown structure the chunker follows.
# sources.tsv says which package each page comes from (its licence: README.md).
set -e
here="$(dirname "$0")"
out="$here/corpus"
rm -rf "$out"
mkdir -p "$out"
everyday=" basename bzip2 cat chgrp chmod chown cmp comm cp cut date dd df diff dirname du echo env expr file
  find free fuser grep gzip head hostname id install join journalctl kill killall less ln ls md5sum mkdir
  mkfifo mktemp mv nice nl nohup od paste pgrep printenv printf ps pwd readlink realpath renice rm
  rmdir sed seq sha256sum shred shuf sleep sort split stat strings sync tail tar tee test timedatectl
  timeout top touch tr truncate uname uniq uptime w watch wc whereis which who whoami xargs zip "
packages="coreutils util-linux procps psmisc findutils diffutils grep sed tar gzip bzip2 systemd file
  hostname debianutils bsdutils bsdextrautils binutils-common zip less"
. "$(dirname "$0")/../render-manual.sh"
echo "# page	Debian package" > "$here/sources.tsv"
for package in $packages; do
  for page in $(dpkg -L "$package" | grep -E '^/usr/share/man/man[18]/[^/]+\.[18][a-z]*\.gz$' | sort); do
    [ -L "$page" ] && continue
    name=$(basename "$page" | sed -E 's/(\.debianutils)?\.[18][a-z]*\.gz$//')
    [ -e "$out/$name.md" ] && continue
    case " $(echo $everyday) " in
      *" $name "*) ;;
      *) [ "$(zcat "$page" | wc -c)" -le 12000 ] || continue ;;
    esac
    { echo "# $name"; render "$page"; } > "$out/$name.md"
    echo "$name	$package" >> "$here/sources.tsv"
  done
done
