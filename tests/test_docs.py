# SPDX-License-Identifier: GPL-2.0-or-later
"""scripts/check-docs (make check-docs): every section citation in the code, tests, scripts
and docs resolves to a heading of a document in docs/.

The citations planted here are spelt with SECT (the section sign as an escape) and split
names, so that this file itself cites nothing when the script reads the real tree."""
import re
import shutil
import sys

import pytest

from conftest import ROOT, make_check_runs, run

SCRIPT = ROOT / "scripts" / "check-docs"
SECT = "\u00a7"
FS2 = "fs2-format.md"
FS3 = "fs3-" + "format" + ".md"


def check(folder=None):
    return run([sys.executable, SCRIPT] + ([folder] if folder else []))


@pytest.fixture
def tree(tmp_path):
    """A small project: burner/image/, whose comments cite only the FS2 and the FS3 format
    documents, and those documents' headings (their text names other documents, which
    this tree does not have)."""
    (tmp_path / "docs").mkdir()
    for doc in (FS2, FS3):
        text = (ROOT / "docs" / doc).read_text()
        (tmp_path / "docs" / doc).write_text("".join(line + "\n\n" for line in text.split("\n")
                                                     if line.startswith("#")))
    shutil.copytree(ROOT / "burner" / "image", tmp_path / "burner" / "image")
    return tmp_path


def plant(tree, rel, text):
    """Append text as lines of a file (made if new); returns the first planted line's number."""
    path = tree / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    before = path.read_text() if path.exists() else ""
    if before and not before.endswith("\n"):
        before += "\n"
    path.write_text(before + text + "\n")
    return before.count("\n") + 1


def bad_lines(r):
    """The per-citation lines of a failing run, without its summary line."""
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.strip().split("\n")
    assert lines[-1].startswith("check-docs: ") and "bad citation" in lines[-1]
    return lines[:-1]


def test_real_tree_passes():
    """make check-docs, which make check runs after check-layers: every citation of the clone
    resolves (this needs all of docs/: hw-access.md, design.md, field-notes.md and
    build-notes.md beside fs2-format.md)."""
    r = run(["make", "-s", "-C", ROOT, "check-docs"])
    lines = r.stdout.strip().split("\n")
    assert r.returncode == 0 and len(lines) == 1, r.stdout + r.stderr
    assert re.match(r"check-docs: \d+ citations in \d+ files resolve to headings", lines[0])
    checks = make_check_runs()
    assert "check-layers" in checks and "check-docs" in checks[checks.index("check-layers"):], \
        "make check does not run check-docs after check-layers"


def test_small_tree_passes(tree):
    r = check(tree)
    assert r.returncode == 0, r.stdout
    assert re.match(r"check-docs: \d+ citations in \d+ files resolve to headings of the 2 documents",
                    r.stdout)


def test_planted_bad_citation(tree):
    """A C comment citing a section the document does not have: exit 1, FILE:LINE, the citation."""
    line = plant(tree, "burner/image/crc16.c", "/* see %s %s99.9 */" % (FS2, SECT))
    assert bad_lines(check(tree)) == [
        "burner/image/crc16.c:%d: %s %s99.9: docs/%s has no heading 99.9" % (line, FS2, SECT, FS2)]


def test_every_bad_citation_named(tree):
    """Each bad citation is one line; the good ones around them are not."""
    a = plant(tree, "burner/image/a.c", "/* %s %s4.2, %s98, %s1.5 */" % (FS2, SECT, SECT, SECT))
    b = plant(tree, "burner/image/b.py", "# %s%s2.1 and %s97.1" % (FS2 + " ", SECT, SECT))
    lines = bad_lines(check(tree))
    assert lines == ["burner/image/a.c:%d: %s %s98: docs/%s has no heading 98" % (a, FS2, SECT, FS2),
                     "burner/image/b.py:%d: %s %s97.1: docs/%s has no heading 97.1" % (b, FS2, SECT, FS2)]


def test_range_checks_both_ends(tree):
    line = plant(tree, "notes.txt", "As %s %s2.1\u20132.9 says." % (FS2, SECT))
    assert bad_lines(check(tree)) == ["notes.txt:%d: %s %s2.9: docs/%s has no heading 2.9" % (line, FS2, SECT, FS2)]


def test_document_not_in_docs(tree):
    """A § of a document docs/ does not have fails, and so does naming it."""
    other = "flint-formats" + ".md"
    line = plant(tree, "burner/image/c.c", "/* %s %s1 */" % (other, SECT))
    lines = bad_lines(check(tree))
    assert "burner/image/c.c:%d: %s: not in docs/ (nor a file of the repository)" % (line, other) in lines
    assert "burner/image/c.c:%d: %s %s1: %s is not in docs/" % (line, other, SECT, other) in lines


def test_outside_the_clone(tree):
    path = "../shared/" + "docs/" + FS2
    line = plant(tree, "sim/x.h", "/* The format: %s (sections below refer to it). */" % path)
    assert bad_lines(check(tree)) == [
        "sim/x.h:%d: %s: outside the clone; the documents are in docs/ (docs/%s)" % (line, path, FS2)]


def test_bare_section_follows_the_last_citation(tree):
    """Rule 2b: a bare § belongs to the document of the last explicit citation before it."""
    plant(tree, "d.c", "/* the header: %s %s1.5 */" % (FS2, SECT))
    line = plant(tree, "d.c", "#define X 1 /* (%s96) */" % SECT)
    assert bad_lines(check(tree)) == ["d.c:%d: %s %s96: docs/%s has no heading 96" % (line, FS2, SECT, FS2)]


def test_bare_section_with_no_document(tree):
    line = plant(tree, "e.c", "#define X 1 /* (%s4.2) */" % SECT)
    assert bad_lines(check(tree)) == ["e.c:%d: %s4.2: names no document (nor does the file, "
                                      "its header or its folder's README.md)" % (line, SECT)]


def test_bare_section_takes_the_header(tree):
    """Rule 2e: x.c that names no document takes the document x.h names."""
    plant(tree, "f.h", "/* f.h (%s %s4.2) */" % (FS2, SECT))
    plant(tree, "f.c", "#define X 1 /* (%s4.5) */" % SECT)
    assert check(tree).returncode == 0
    line = plant(tree, "f.c", "#define Y 1 /* (%s95) */" % SECT)
    assert bad_lines(check(tree)) == ["f.c:%d: %s %s95: docs/%s has no heading 95" % (line, FS2, SECT, FS2)]


def test_a_document_cites_itself(tree):
    """Rule 2c: in docs/, a bare § with no citation before it in its paragraph is the document's own."""
    plant(tree, "docs/" + FS2, "\nSee %s3.3.\n\nAnd %s94.\n" % (SECT, SECT))
    lines = bad_lines(check(tree))
    assert len(lines) == 1 and lines[0].endswith(": %s %s94: docs/%s has no heading 94" % (FS2, SECT, FS2))


def test_standards_are_not_ours(tree):
    plant(tree, "g.py", "# RFC 2131 %s4.4.1, IPMI 2.0 %s13.1.1, PCI Firmware Spec %s5.1.1" % (SECT, SECT, SECT))
    assert check(tree).returncode == 0


def test_heading_by_name(tree):
    """A document named with a quoted heading has a heading with those words."""
    plant(tree, "h.c", '/* %s "Checksums" */' % FS2)
    assert check(tree).returncode == 0
    line = plant(tree, "h.c", '/* %s "No such heading" */' % FS2)
    assert bad_lines(check(tree)) == ['h.c:%d: %s "No such heading": docs/%s has no heading with those words'
                                      % (line, FS2, FS2)]


def test_man_page(tree):
    """The man page writes the section sign as groff's \\(sc: it is read as one."""
    plant(tree, "docs/cxflash.1", ".TH CXFLASH 1\n.SH SEE ALSO\n%s \\(sc4.2" % FS2)
    assert check(tree).returncode == 0
    line = plant(tree, "docs/cxflash.1", "%s \\[sc]93" % FS2)
    assert bad_lines(check(tree)) == ["docs/cxflash.1:%d: %s %s93: docs/%s has no heading 93" % (line, FS2, SECT, FS2)]
