#!/usr/bin/env python3
"""Renders GNOME Help's Mallard pages as markdown help articles (see README.md).

Usage: mallard-to-markdown.py <folder of .page files> <output folder> <sources.tsv>
Each topic page becomes <page id>.md: its title as "# ", its summary line, sections as "## ".
Guide pages (menus of links) are kept only when they carry text of their own. Conditional
text for the "GNOME Classic" variant is dropped in favour of the default desktop's text.
Python standard library only.
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

MAL = "{http://projectmallard.org/1.0/}"
IF = "{http://projectmallard.org/if/1.0/}"
SKIP = {"info", "links", "comment", "media", "rules", "thumb"}
INLINE = {"gui", "key", "em", "app", "link", "file", "cmd", "sys", "code", "input", "output",
          "span", "cite", "var", "hi", "em", "guiseq", "keyseq", "name", "email", "date"}
MIN_GUIDE_TEXT = 400

titles = {}


def local(tag):
    return tag.split("}", 1)[-1] if isinstance(tag, str) else ""


def squeeze(text):
    return re.sub(r"\s+", " ", text).strip()


def inner(el):
    """The text of an element without its tail: shortcut keys joined with '+', menu paths with '>'."""
    name = local(el.tag)
    if name in SKIP:
        return ""
    if name in ("keyseq", "guiseq"):
        parts = [squeeze(inner(k)) for k in el if local(k.tag) in ("key", "gui")]
        return ("+" if name == "keyseq" else " > ").join(p for p in parts if p)
    text = (el.text or "") + "".join(inline(child) for child in el)
    if name == "link" and not squeeze(text):
        xref = el.get("xref")
        text = titles.get(xref.split("#")[0], "") if xref else el.get("href", "")
    return text


def inline(el):
    return inner(el) + (el.tail or "")


def chosen(el):
    """Children of an if:choose: the default branch, not the GNOME Classic one."""
    whens = [c for c in el if c.tag == IF + "when"]
    rest = [c for c in el if c.tag != IF + "when"]
    default = [c for c in whens if "classic" not in (c.get("test") or "")]
    picked = []
    for c in default[:1] + rest:
        if c.tag == IF + "else":
            picked.extend(list(c))
        else:
            picked.append(c)
    return picked


def blocks(el, depth, out):
    """Appends markdown lines for the block children of el."""
    for child in el:
        name = local(child.tag)
        if name in SKIP or name == "title" and depth > 0:
            continue
        if child.tag == IF + "choose":
            holder = ET.Element("holder")
            holder.extend(chosen(child))
            blocks(holder, depth, out)
        elif child.tag in (IF + "if", IF + "when", IF + "else"):
            if "classic" not in (child.get("test") or ""):
                blocks(child, depth, out)
        elif name == "section":
            title = child.find(MAL + "title")
            out += ["", "#" * min(depth + 2, 4) + " " + squeeze(inner(title) if title is not None else "")]
            blocks(child, depth + 1, out)
        elif name in ("p", "desc", "subtitle"):
            text = squeeze(inner(child))
            if text:
                out += ["", text]
        elif name in ("steps", "list", "terms", "tree"):
            numbered = name == "steps" or child.get("type") == "numbered"
            title = child.find(MAL + "title")
            if title is not None:
                out += ["", squeeze(inner(title))]
            number = 0
            out.append("")
            for item in child:
                if local(item.tag) != "item":
                    continue
                number += 1
                marker = f"{number}. " if numbered else "- "
                sub = []
                for term in item.findall(MAL + "title"):
                    sub += ["", squeeze(inner(term))]
                blocks(item, depth + 1, sub)
                lines = [line for line in sub if line]
                if lines:
                    out.append(marker + lines[0])
                    out += ["   " + line for line in lines[1:]]
            out.append("")
        elif name in ("note", "example", "figure", "quote", "synopsis", "item"):
            sub = []
            title = child.find(MAL + "title")
            if title is not None:
                sub += ["", squeeze(inner(title))]
            blocks(child, depth + 1, sub)
            out += sub
        elif name in ("code", "screen"):
            text = "".join(child.itertext()).strip("\n")
            if text.strip():
                out += ["", "```", text, "```"]
        elif name == "table":
            title = child.find(MAL + "title")
            out += ["", squeeze(inner(title))] if title is not None else [""]
            for row in child.iter(MAL + "tr"):
                cells = []
                for cell in row:
                    sub = []
                    blocks(cell, depth + 1, sub)
                    cells.append(" ".join(line for line in sub if line))
                if any(cells):
                    out.append("- " + " | ".join(cells))
            out.append("")
        elif name in INLINE:
            text = squeeze(inner(child))
            if text:
                out += ["", text]


def render(root):
    title = squeeze(inner(root.find(MAL + "title")))
    out = ["# " + title]
    desc = root.find(MAL + "info/" + MAL + "desc")
    if desc is not None:
        summary = squeeze(inner(desc))
        if summary:
            out += ["", summary]
    blocks(root, 0, out)
    text = "\n".join(out)
    text = re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
    return title, text


def main():
    source, target, sources_tsv = sys.argv[1:4]
    pages = {}
    for path in sorted(glob.glob(os.path.join(source, "*.page"))):
        root = ET.parse(path).getroot()
        pages[root.get("id")] = (path, root)
        title = root.find(MAL + "title")
        titles[root.get("id")] = squeeze("".join(title.itertext())) if title is not None else ""
    os.makedirs(target, exist_ok=True)
    rows = []
    for page_id, (path, root) in sorted(pages.items()):
        title, text = render(root)
        body = text.split("\n", 1)[1] if "\n" in text else ""
        if root.get("type") == "guide" and len(squeeze(body)) < MIN_GUIDE_TEXT:
            continue
        with open(os.path.join(target, page_id + ".md"), "w", encoding="utf-8") as f:
            f.write(text)
        rows.append(f"{page_id}\t{os.path.basename(path)}\t{title}")
    with open(sources_tsv, "w", encoding="utf-8") as f:
        f.write("# document\tMallard page (gnome-user-docs, /usr/share/help/C/gnome-help)\ttitle\n")
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
