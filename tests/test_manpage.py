# SPDX-License-Identifier: GPL-2.0-or-later
"""docs/cxflash.1, the man page, and the program kept in step (issue 28): every command and
every option `cxflash --help` names has its entry in the page's COMMANDS and OPTIONS, and every
entry there is in --help; the rescue command's key=value parameters are the same in the code,
--help and the page; the EXIT STATUS table is burner/util/status.h's (codes, names, meanings)
with status.c's JSON words; and --help ends with where the manual is. `make check-man` (run by
make check) is groff's side: no warning from groff -man -ww."""
import os
import re
import shlex

from conftest import ROOT, cx, run

PAGE = ROOT / "docs" / "cxflash.1"
STATUS_H = ROOT / "burner" / "util" / "status.h"
STATUS_C = ROOT / "burner" / "util" / "status.c"
RESCUE_C = ROOT / "burner" / "cli" / "cmd_rescue.c"


def plain(s):
    """roff text as it reads: escapes and font changes gone."""
    s = s.replace("\\-", "-").replace("\\e", "\\").replace("\\&", "").replace("\\(bu", "*")
    return re.sub(r"\\f[BIRP]", "", s)


def macro_text(line):
    """The words a font macro line (.B, .BR, .IR, ...) shows, or the line itself."""
    m = re.match(r"^\.(B|I|BR|RB|BI|IB|IR|RI)\s+(.*)$", line)
    if not m:
        return plain(line)
    args = shlex.split(m.group(2).replace("\\", "\\\\"), posix=True)
    return plain((" " if m.group(1) in ("B", "I") else "").join(args))


def section(name):
    """The page's source lines of .SH name, up to the next .SH."""
    lines = PAGE.read_text().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln in (f".SH {name}", f'.SH "{name}"')) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith(".SH ")), len(lines))
    return lines[start:end]


def entries(lines, depth=0):
    """(tag, body lines) of every .TP entry at this .RS depth: nested lists are their entries' body."""
    out, d, cur = [], 0, None
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(".RS"):
            d += 1
        elif line.startswith(".RE"):
            d -= 1
        if d == depth and line.startswith(".TP"):
            cur = (macro_text(lines[i + 1]), [])
            out.append(cur)
            i += 2
            continue
        if d == depth and (line.startswith(".SS") or (line.startswith(".PP") and depth == 0)):
            cur = None
        elif cur is not None:
            cur[1].append(line)
        i += 1
    return out


def help_text():
    return cx("--help").stdout


def help_commands():
    """name -> its usage column ("q [full]"), from --help's commands: section
    (commands.c prints "  %-58s %s")."""
    text = help_text().split("commands:\n")[1].split("\n\n")[0]
    usages = [ln[2:60].rstrip() for ln in text.splitlines() if ln.startswith("  ")]
    return {u.split()[0]: u for u in usages}


def help_options():
    """The option column of --help ("-i, --image FILE"), one per option (options.c prints
    "  %-20s " and continues a long help under itself)."""
    text = help_text().split("options:\n")[1].split("\n\n")[0]
    return {ln[2:22].rstrip() for ln in text.splitlines() if ln[2:22].strip()}


def page_commands():
    """command name -> the text of its entries (tag and body) in COMMANDS."""
    cmds = {}
    for tag, body in entries(section("COMMANDS")):
        m = re.match(r"^(\w+)(?:, (\w+))?", tag)
        assert m, f"a COMMANDS entry that names no command: {tag!r}"
        for name in filter(None, m.groups()):
            cmds[name] = cmds.get(name, "") + " " + tag + " " + plain(" ".join(body))
    return cmds


def test_every_command_of_help_is_in_the_page_and_back():
    helped, paged = help_commands(), page_commands()
    assert {"burn", "v", "verify", "q", "query", "ri", "config", "rescue"} <= set(helped)
    assert set(helped) == set(paged), (set(helped) ^ set(paged))
    # Each verb and keyword of the usage (library list|check, config set, ...) is in the entry.
    for name, usage in helped.items():
        words = set(re.findall(r"(?<![\w-])[a-z][a-z_]*", usage))
        missing = {w for w in words if not re.search(rf"(?<![\w]){w}(?![\w])", paged[name])}
        assert not missing, f"{name}: the page's entry lacks {sorted(missing)} of '{usage}'"


def test_every_option_of_help_is_in_the_page_and_back():
    helped = help_options()
    paged = {tag for tag, _ in entries(section("OPTIONS"))}
    assert len(helped) == 38 and {"-i, --image FILE", "--json", "-h, --help"} <= helped, helped
    assert helped == paged, (sorted(helped - paged), sorted(paged - helped))


def spelled(name):
    """flint's spelling and the dashed one are the same option (burner/cli/options.c)."""
    return name.replace("_", "-")


def test_the_page_names_no_option_help_lacks():
    """Anywhere in the page, prose and examples included: a --word is an option of --help."""
    known = {spelled(re.search(r"--([\w-]+)", o).group(1)) for o in help_options()}
    named = {spelled(n) for n in re.findall(r"(?<![\w-])--([a-z][\w-]*)", plain(PAGE.read_text()))}
    assert named - known == set(), sorted(named - known)


def test_rescue_parameters_are_the_same_in_code_help_and_page():
    code = set(re.findall(r'strncmp\(p, "(\w+)", k\)', RESCUE_C.read_text()))
    line = next(ln for ln in help_text().splitlines() if ln.startswith("  rescue "))
    helped = set(re.findall(r"\b([a-z_]+)=", line))
    (rescue,) = [body for tag, body in entries(section("COMMANDS")) if tag.startswith("rescue")]
    paged = {re.match(r"(\w+)=", tag).group(1) for tag, _ in entries(rescue, depth=1)}
    assert {"job", "card", "yes", "settings", "after"} <= code
    assert code == helped == paged, (code, helped, paged)


def header_codes():
    """code -> (name, what its comment says) from burner/util/status.h."""
    text = STATUS_H.read_text()
    out = {}
    for name, value, comment in re.findall(r"\b(CX_\w+) = (\d+),\s*(?:/\*(.*?)\*/)?", text, re.S):
        out[int(value)] = (name, " ".join(comment.split()))
    return out


def without_parentheses(text):
    """A meaning as its words run without what it says in parentheses, lower case."""
    while re.search(r"\([^()]*\)", text):
        text = re.sub(r"\s*\([^()]*\)", "", text)
    return " ".join(text.split()).lower()


def meaning_core(text):
    """What the header says of a code, up to its first ';': the page must say it."""
    return without_parentheses(text).split(";")[0].rstrip(".")


def page_exit_codes():
    """code -> (name, JSON word, meaning) from the page's EXIT STATUS."""
    out = {}
    for tag, body in entries(section("EXIT STATUS")):
        name, word = re.match(r"^(CX_\w+)$", macro_text(body[0])), re.match(r"^\((.+)\):$", macro_text(body[1]))
        assert tag.isdigit() and name and word, (tag, body[:2])
        out[int(tag)] = (name.group(1), word.group(1), " ".join(macro_text(b) for b in body[2:]))
    return out


def test_exit_status_is_status_h():
    header, page = header_codes(), page_exit_codes()
    words = dict(re.findall(r"case (CX_\w+): return \"([\w-]+)\";", STATUS_C.read_text()))
    assert header[0][0] == "CX_OK" and len(header) >= 23
    assert sorted(page) == sorted(header), (sorted(page), sorted(header))
    for code, (name, comment) in header.items():
        pname, pword, pmeaning = page[code]
        assert pname == name, (code, pname, name)
        assert pword == words[name], (code, pword, words[name])
        if comment:
            assert meaning_core(comment) in without_parentheses(pmeaning), \
                f"{code} {name}: the page's meaning does not say '{meaning_core(comment)}': {pmeaning}"


def test_help_ends_with_where_the_manual_is():
    last = help_text().rstrip("\n").splitlines()[-1]
    assert "man cxflash" in last and "docs/cxflash.1" in last, last
    assert (ROOT / "docs" / "cxflash.1").exists()


def make_alone(*args):
    """make ARGS as a user runs it: not as a child of the make that runs these tests (under
    `make -j2 check` it would inherit MAKEFLAGS and warn that the jobserver is unavailable)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    return run(["make", "-s", "-C", ROOT, *args], env=env)


def test_check_man_fails_on_a_warning(tmp_path):
    """make check-man is groff -man -ww -z: the page passes, a page with a warning does not."""
    r = make_alone("check-man")
    assert r.returncode == 0 and r.stdout == "" and r.stderr == "", r.stdout + r.stderr
    bad = tmp_path / "bad.1"
    bad.write_text(PAGE.read_text().replace(".SH NAME\n", ".SH NAME\n.XX an undefined macro\n", 1))
    r = make_alone("check-man", f"MANPAGE={bad}")
    assert r.returncode != 0 and "XX" in r.stderr, r.stdout + r.stderr
