# Sourced by the manual-page sets' build-corpus.sh scripts: render <page.gz> prints a manual page as
# markdown, section headings as "## " and option entries as "### ", the structure the chunker follows.
render() {
  MANWIDTH=100 man -l "$1" 2>/dev/null | col -bx | awk '
    NR <= 1 { next }
    /^[A-Z][A-Z0-9 ,()-]+$/ { print ""; print "## " substr($0, 1, 1) tolower(substr($0, 2)); print ""; next }
    /^       -[A-Za-z]/ { sub(/^ +/, ""); print ""; print "### " $0; print ""; next }
    { sub(/^ +/, ""); print }
  ' | cat -s | sed '$d'
}
