#!/usr/bin/env python3
"""Splits The Debian Administrator's Handbook (XHTML) into one markdown document per section.

Usage: html-to-markdown.py <folder of the en-US html pages> <output folder> <sources.tsv>
Every numbered section (6.2, A.1, …) becomes <number>-<title words>.md with its title as "# "
and its subsections as "## " and "### "; a chapter's introduction becomes a document of its
own when it has at least 400 characters of text. Sidebars ("BACK TO BASICS", "TIP", …) and
examples stay in place with their titles; images, index anchors and tables of contents are
dropped. Python standard library only.
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

X = "{http://www.w3.org/1999/xhtml}"
BLOCK = {"div", "p", "pre", "ul", "ol", "li", "dl", "dt", "dd", "table", "tr", "h1", "h2", "h3",
         "h4", "h5", "blockquote"}
DROP_CLASSES = {"toc", "highlights", "mediaobject", "docnav", "docnav top", "indexterm"}
NUMBERED = re.compile(r"^(?:Chapter\s+)?([0-9]+|[A-Z])(\.[0-9]+)*\.\s")
MIN_INTRO_TEXT = 400


def tag(el):
    return el.tag.replace(X, "") if isinstance(el.tag, str) else ""


def squeeze(text):
    return re.sub(r"\s+", " ", text).strip()


def heading_text(el):
    return squeeze("".join(el.itertext()))


def dropped(el):
    return el.get("class") in DROP_CLASSES or tag(el) in ("img", "script", "style")


def inline_text(el):
    """The text of an inline element, without what is dropped, plus its tail."""
    if dropped(el):
        return el.tail or ""
    return (el.text or "") + "".join(inline_text(c) for c in el) + (el.tail or "")


class Writer:
    def __init__(self, depth):
        self.lines = []
        self.depth = depth  # heading level of the document's own title (h2 -> 1)
        self.buffer = ""

    def flush(self):
        text = squeeze(self.buffer)
        self.buffer = ""
        if text:
            self.lines += ["", text]

    def block(self, el, indent=""):
        name = tag(el)
        cls = el.get("class") or ""
        if dropped(el):
            return
        if name in ("h2", "h3", "h4", "h5"):
            level = int(name[1]) - self.depth
            title = NUMBERED.sub("", heading_text(el))
            self.lines += ["", "#" * max(level, 2) + " " + title]
        elif name == "p" and cls == "title":
            self.lines += ["", squeeze("".join(el.itertext()))]
        elif name == "pre":
            text = "".join(el.itertext()).strip("\n")
            if text.strip():
                self.lines += ["", "```", text, "```"]
        elif name in ("ul", "ol"):
            self.lines.append("")
            number = 0
            for item in el:
                if tag(item) != "li":
                    continue
                number += 1
                sub = Writer(self.depth)
                sub.children(item)
                body = [line for line in sub.lines if line]
                if body:
                    marker = f"{number}. " if name == "ol" else "- "
                    self.lines.append(marker + body[0])
                    self.lines += ["   " + line for line in body[1:]]
            self.lines.append("")
        elif name == "dl":
            self.lines.append("")
            term = ""
            for item in el:
                if tag(item) == "dt":
                    term = squeeze(inline_text(item).replace(item.tail or "", ""))
                elif tag(item) == "dd":
                    sub = Writer(self.depth)
                    sub.children(item)
                    body = [line for line in sub.lines if line]
                    first = f"{term}: {body[0]}" if body else term
                    self.lines.append("- " + first)
                    self.lines += ["   " + line for line in body[1:]]
            self.lines.append("")
        elif name == "table":
            self.lines.append("")
            for row in el.iter(X + "tr"):
                cells = []
                for cell in row:
                    sub = Writer(self.depth)
                    sub.children(cell)
                    cells.append(" ".join(line for line in sub.lines if line))
                if any(cells):
                    self.lines.append("- " + " | ".join(cells))
            self.lines.append("")
        else:
            self.children(el)

    def children(self, el):
        """Renders mixed content: inline text is gathered into paragraphs, blocks break them."""
        self.buffer += el.text or ""
        for child in el:
            if tag(child) in BLOCK and not dropped(child):
                self.flush()
                self.block(child)
                self.buffer += child.tail or ""
            else:
                self.buffer += inline_text(child)
        self.flush()


def slug(number, title):
    words = re.findall(r"[a-z0-9]+", title.lower())
    return number + "-" + "-".join(words[:6])


def sections(body):
    """(number, title, element) of each numbered h2 section, and chapter introductions."""
    found = []
    for chapter in body.iter(X + "div"):
        if chapter.get("class") in ("chapter", "appendix"):
            h1 = chapter.find(f".//{X}h1")
            title = heading_text(h1) if h1 is not None else ""
            match = re.match(r"^(?:Chapter|Appendix)\s+([0-9A-Z]+)\.\s+(.*)$", title)
            if match:
                intro = ET.Element("div")
                intro.extend(c for c in chapter if c.get("class") not in ("section", "titlepage"))
                found.append((match.group(1), match.group(2), intro, True))
    for section in body.iter(X + "div"):
        if section.get("class") != "section":
            continue
        titlepage = section.find(X + "div")
        h2 = titlepage.find(f".//{X}h2") if titlepage is not None else None
        if h2 is None:
            continue
        match = re.match(r"^([0-9A-Z]+\.[0-9]+)\.\s+(.*)$", heading_text(h2))
        if match:
            found.append((match.group(1), match.group(2), section, False))
    return found


def main():
    source, target, sources_tsv = sys.argv[1:4]
    os.makedirs(target, exist_ok=True)
    rows = []
    for path in sorted(glob.glob(os.path.join(source, "*.html"))):
        body = ET.parse(path).getroot().find(X + "body")
        for number, title, element, is_intro in sections(body):
            writer = Writer(1)
            if is_intro:
                writer.children(element)
            else:
                for child in element:
                    if child.get("class") != "titlepage":
                        writer.block(child) if tag(child) in BLOCK else writer.children(child)
            text = "\n".join(writer.lines)
            if is_intro and len(squeeze(text)) < MIN_INTRO_TEXT:
                continue
            name = slug(number, title)
            text = re.sub(r"\n{3,}", "\n\n", f"# {title}\n{text}").strip() + "\n"
            with open(os.path.join(target, name + ".md"), "w", encoding="utf-8") as f:
                f.write(text)
            rows.append((number, name, os.path.basename(path), title))

    def order(row):
        return [int(p) if p.isdigit() else ord(p) - 1000 for p in row[0].split(".")]

    with open(sources_tsv, "w", encoding="utf-8") as f:
        f.write("# document\thandbook page (debian-handbook, html/en-US)\tsection\n")
        for number, name, page, title in sorted(rows, key=order):
            f.write(f"{name}\t{page}\t{number if '.' in number else 'Chapter ' + number} {title}\n")


if __name__ == "__main__":
    main()
