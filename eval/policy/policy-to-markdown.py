#!/usr/bin/env python3
"""Splits the Debian Policy Manual (its plain-text edition) into one markdown document per section.

Usage: policy-to-markdown.py <policy.txt> <output folder> <sources.tsv>
The text edition underlines chapter titles with '*', sections with '=', subsections with '-'
and theirs with '~'. Every numbered section (3.1, 5.6, …) becomes <number>-<title words>.md with
its title as "# " and its subsections as "## " and "### "; a chapter's introduction becomes a
document of its own when it has at least 400 characters of text, and an appendix without
sections is one document. Left out: sections that only point elsewhere ("See Time Stamps.")
or were deleted, the table of contents, the upgrading checklist (a list of changes between
versions) and the licence appendix. Python standard library only.
"""
import os
import re
import sys

UNDERLINE = {"*": 0, "=": 1, "-": 2, "~": 3}
NUMBERED = re.compile(r"^((?:[0-9]+\.)+)\s+(.*)$")
LEFT_OUT_APPENDICES = {"10", "11"}  # the upgrading checklist and the licence
MIN_INTRO_TEXT = 400
STUB = re.compile(r"^(See [^.]*\.|This section has (been deleted|moved to [^.]*)\.)?$")  # pointers left by moves


def headings(lines):
    """(line index, level, number, title) of every underlined numbered heading."""
    found = []
    for i in range(len(lines) - 1):
        title, rule = lines[i], lines[i + 1]
        if not rule or rule[0] not in UNDERLINE or set(rule) != {rule[0]} or len(rule) != len(title):
            continue
        match = NUMBERED.match(title)
        if match:
            found.append((i, UNDERLINE[rule[0]], match.group(1).rstrip("."), match.group(2)))
    return found


def slug(name, title):
    words = re.findall(r"[a-z0-9]+", title.lower())
    return name + "-" + "-".join(words[:6])


def main():
    source, target, sources_tsv = sys.argv[1:4]
    with open(source, encoding="utf-8") as f:
        lines = f.read().split("\n")
    found = headings(lines)
    # The appendices number their chapters from 1 again: the second chapter "1" starts them.
    appendices_start = [line for line, level, number, _ in found if level == 0 and number == "1"][1]
    os.makedirs(target, exist_ok=True)
    documents = []  # [name, title, source heading, body lines]
    current = None
    for index, (line, level, number, title) in enumerate(found):
        end = found[index + 1][0] if index + 1 < len(found) else len(lines)
        body = lines[line + 2:end]
        appendix = line >= appendices_start
        chapter = number.split(".")[0]
        if appendix and chapter in LEFT_OUT_APPENDICES:
            current = None
            continue
        prefix = "appendix-" if appendix else ""
        if level <= 1:
            current = [slug(prefix + number, title), title, ("Appendix " if appendix else "") + number, body]
            documents.append(current)
        elif current is not None:
            current[3] = current[3] + ["#" * level + " " + title, ""] + body
    rows = []
    for name, title, heading, body in documents:
        text = "\n".join(body).strip()
        if STUB.match(re.sub(r"\s+", " ", text)):
            continue
        is_chapter = "." not in heading
        if is_chapter and len(re.sub(r"\s+", " ", text)) < MIN_INTRO_TEXT:
            next_is_section = any(h.startswith(heading + ".") for _, _, h, _ in documents)
            if next_is_section or not text:
                continue
        text = re.sub(r"\n{3,}", "\n\n", f"# {title}\n\n{text}").strip() + "\n"
        with open(os.path.join(target, name + ".md"), "w", encoding="utf-8") as f:
            f.write(text)
        rows.append(f"{name}\t{heading} {title}")
    with open(sources_tsv, "w", encoding="utf-8") as f:
        f.write("# document\tsection of the Debian Policy Manual 4.6.2.0\n")
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
