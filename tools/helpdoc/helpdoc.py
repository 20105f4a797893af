#!/usr/bin/env python3
"""roceprobe's --help texts -> man pages and bash completion, at build time.

usage: helpdoc.py ROCEPROBE VERSION PROFILES_DIR DOC_DIR OUTDIR COMMAND...

The help texts are the one source: `roceprobe --help` names the commands and
what each does, `roceprobe COMMAND --help` its usage lines, text and options.
Writes OUTDIR/roceprobe.1, OUTDIR/roceprobe-COMMAND.1 for every COMMAND and
OUTDIR/roceprobe (the bash completion, named as bash-completion looks it up: commands, each command's options from a
table read out of its help, profile paths for a PROFILE argument).

COMMAND... is the list meson installs; it must be exactly the commands this
binary's --help lists (a command added without its page fails the build).
Exit 2 with one line on any mismatch or a help text that cannot be read.
"""
import re
import subprocess
import sys

# An option line of a help text: indented, options first, two spaces, text.
OPT_LINE = re.compile(r"^\s+(-\S.*?)(?:\s{2,}(\S.*))?$")
OPT_TOKEN = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)(=?)")
HEADING = re.compile(r"^[a-z][a-z ()/,-]*$")


def die(msg):
    print(f"helpdoc: {msg}", file=sys.stderr)
    sys.exit(2)


def help_text(binary, *args):
    try:
        p = subprocess.run([binary, *args, "--help"], capture_output=True, text=True, timeout=30)
    except OSError as e:
        die(f"cannot run {binary}: {e}")
    if p.returncode != 0 or not p.stdout.strip():
        die(f"'{' '.join(['roceprobe', *args, '--help'])}' exited {p.returncode} with no help")
    return p.stdout


def commands_of(top):
    """(name, summary) of every command `roceprobe --help` lists."""
    out, inside = [], False
    for line in top.splitlines():
        if line == "commands:":
            inside = True
        elif inside and line.startswith("  "):
            name, summary = line.split(None, 1)
            out.append((name, summary.strip()))
        elif inside and line.strip():
            break
    return out


def split_help(text):
    """usage lines (without 'usage: ') and the body's blank-separated blocks."""
    lines = text.rstrip("\n").splitlines()
    usage = []
    while lines and (lines[0].startswith("usage:") or (usage and lines[0].startswith("       "))):
        usage.append(lines.pop(0).removeprefix("usage:").strip())
    blocks, cur = [], []
    for line in lines:
        if line.strip():
            cur.append(line.rstrip())
        elif cur:
            blocks.append(cur)
            cur = []
    if cur:
        blocks.append(cur)
    return usage, blocks


def esc(s):
    """Text as roff reads it: backslashes, minus signs, a leading dot or quote."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + s if s[:1] in (".", "'") else s


def bold_options(line):
    """An option line with its option names in bold."""
    m = OPT_LINE.match(line)
    if not m:
        return esc(line)
    head = m.group(1)
    lead = line[: len(line) - len(line.lstrip())]
    rest = line[len(lead) + len(head):]
    parts = re.split(r"(--?[A-Za-z][\w-]*)", head)
    out = "".join(f"\\fB{esc(p)}\\fR" if re.fullmatch(r"--?[A-Za-z][\w-]*", p) else esc(p) for p in parts)
    return esc(lead) + out + esc(rest)


def roff_blocks(blocks):
    out = []
    for b in blocks:
        indented = [ln for ln in b if ln.startswith(" ")]
        if not indented:
            out += [".PP", esc(" ".join(ln.strip() for ln in b))]
            continue
        if not b[0].startswith(" ") and HEADING.match(b[0]) and all(ln.startswith(" ") for ln in b[1:]):
            out.append(f".SS {esc(b[0])}")
            b = b[1:]
        else:
            out.append(".PP")
        out.append(".nf")
        out += [bold_options(ln) for ln in b]
        out.append(".fi")
    return out


def man_page(name, section_title, summary, usage, blocks, version, extra):
    title = name.upper()
    lines = [
        f'.TH {title} 1 "" "roceprobe {version}" "roceprobe"',
        ".nh",
        ".ad l",
        ".SH NAME",
        f"{esc(name)} \\- {esc(summary)}",
        ".SH SYNOPSIS",
        ".nf",
    ]
    for u in usage:
        cmd = "roceprobe " + name.split("-", 1)[1] if "-" in name else "roceprobe"
        args = u[len(cmd):] if u.startswith(cmd) else " " + u
        lines.append(f"\\fB{esc(cmd)}\\fR{esc(args)}")
    lines += [".fi", f".SH {section_title}"]
    lines += roff_blocks(blocks)
    lines += extra
    return "\n".join(lines) + "\n"


def options_of(text):
    """Every option a help text's option lines name, those that take a value (with
    the value's word: DIR, FILE, N, ...), and each one's long name (-o: --out)."""
    opts, values, twin = [], {}, {}
    for line in text.splitlines():
        m = OPT_LINE.match(line)
        if not m:
            continue
        head = m.group(1)
        for t in re.finditer(r"(--?[A-Za-z][\w-]*)(?:[ =]([A-Z][A-Z0-9_=.,\[\]]*|[a-z]+\|[a-z|]+))?", head):
            o = t.group(1)
            if o not in opts:
                opts.append(o)
            if t.group(2):
                values[o] = t.group(2)
        # "-s, --size N": the short one takes the long one's value, and is named by it
        names = re.findall(r"(--?[A-Za-z][\w-]*)", head)
        longs = [o for o in names if o.startswith("--")]
        for o in names:
            for other in names:
                if other in values and o not in values:
                    values[o] = values[other]
            if longs:
                twin[o] = longs[0]
    return opts, values, twin


def value_kind(opt, word):
    """dir, file or value: what an option's value word (DIR, FILE, N, ...) asks for.
    A bare F is a file only for an option named so (--key-file F, not --capture-filter F)."""
    w = word.rstrip(".,")
    if w == "DIR":
        return "dir"
    if w in ("FILE", "PATH", "PCAP", "PROFILE") or w.endswith("FILE") or (w == "F" and opt.endswith("-file")):
        return "file"
    return "value"


def completion(cmds, tables, profiles_dir):
    q = lambda s: "'" + s.replace("'", "'\\''") + "'"  # noqa: E731
    out = [
        "# bash completion for roceprobe: generated from its --help texts (tools/helpdoc).",
        "# Commands, each command's options, files or directories for the options that",
        "# take them, and profiles (./*.yaml and the installed ones) for a PROFILE.",
        f"_roceprobe_profiles={q(profiles_dir)}",
        f"_roceprobe_commands={q(' '.join(c for c, _ in cmds))}",
        "declare -gA _roceprobe_opts=() _roceprobe_dir_opts=() _roceprobe_file_opts=() _roceprobe_val_opts=() _roceprobe_arg=()",
    ]
    for c, t in tables.items():
        out.append(f"_roceprobe_opts[{c}]={q(' '.join(t['opts']))}")
        for kind in ("dir", "file", "val"):
            names = [o for o, k in t["kinds"].items() if k == kind]
            if names:
                out.append(f"_roceprobe_{kind}_opts[{c}]={q(' '.join(names))}")
        out.append(f"_roceprobe_arg[{c}]={q(t['arg'])}")
    out.append(r'''
_roceprobe()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion || return
	else
		cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
	fi
	if ((cword == 1)); then
		COMPREPLY=($(compgen -W "$_roceprobe_commands --help --version" -- "$cur"))
		return
	fi
	local cmd=${words[1]}
	[[ -n ${_roceprobe_opts[$cmd]+set} ]] || return
	if [[ " ${_roceprobe_dir_opts[$cmd]} " == *" $prev "* ]]; then
		COMPREPLY=($(compgen -d -- "$cur"))
		return
	fi
	if [[ " ${_roceprobe_file_opts[$cmd]} " == *" $prev "* ]]; then
		COMPREPLY=($(compgen -f -- "$cur"))
		return
	fi
	[[ " ${_roceprobe_val_opts[$cmd]} " == *" $prev "* ]] && return
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "${_roceprobe_opts[$cmd]} --help" -- "$cur"))
		return
	fi
	case ${_roceprobe_arg[$cmd]} in
	profile)
		local p
		COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.y*ml' -- "$cur"))
		# the installed profiles by path (once: compgen found them already when cur
		# is inside their directory), or by name: `lab inc<TAB>`
		if [[ $cur != "$_roceprobe_profiles"/* ]]; then
			for p in "$_roceprobe_profiles"/*.yaml; do
				[[ -e $p && ($p == "$cur"* || ${p##*/} == "$cur"?*) ]] && COMPREPLY+=("$p")
			done
		fi
		;;
	file) COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}
complete -F _roceprobe -o filenames roceprobe''')
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) < 7:
        die("usage: helpdoc.py ROCEPROBE VERSION PROFILES_DIR DOC_DIR OUTDIR COMMAND...")
    binary, version, profiles_dir, doc_dir, outdir, *want = argv[1:]
    top = help_text(binary)
    cmds = commands_of(top)
    have = [c for c, _ in cmds]
    if sorted(have) != sorted(want):
        die(f"'roceprobe --help' lists {' '.join(have) or 'no commands'}; meson installs pages for {' '.join(want)}")
    usage, blocks = split_help(top)
    blocks = [b for b in blocks if b[0] != "commands:" and not b[0].startswith("'roceprobe COMMAND")]
    extra = [".SH COMMANDS"]
    for c, s in cmds:
        extra += [".TP", f"\\fBroceprobe {esc(c)}\\fR", f"{esc(s)} (\\fBroceprobe\\-{esc(c)}\\fR(1))"]
    extra += [
        ".PP",
        "\\fBroceprobe\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR prints a command's page as text.",
        ".SH FILES",
        ".TP",
        esc(profiles_dir),
        "profiles to start from (\\fBroceprobe lab " + esc(profiles_dir) + "/incast\\-8to1.yaml \\-o DIR\\fR)",
        ".TP",
        esc(doc_dir),
        "README.md and docs/: every option, result.json key (results.md), lab, certify, verbs",
        ".TP",
        "\\fBroceprobe\\-plot\\fR \\fIDIR\\fR",
        "plots of a result directory (latency CDF, PFC timeline, goodput) as PNGs",
        ".SH EXIT STATUS",
        "0 done; 1 the run happened and found a problem; 2 bad input (one line on stderr says what).",
        ".SH SEE ALSO",
        ", ".join(f"\\fBroceprobe\\-{esc(c)}\\fR(1)" for c in have),
    ]
    with open(f"{outdir}/roceprobe.1", "w") as f:
        f.write(man_page("roceprobe", "DESCRIPTION", "RoCEv2 / InfiniBand fabric prober", usage, blocks, version, extra))
    tables = {}
    for c, summary in cmds:
        text = help_text(binary, c)
        usage, blocks = split_help(text)
        if not usage:
            die(f"'roceprobe {c} --help' has no usage line")
        see = [".SH SEE ALSO", "\\fBroceprobe\\fR(1); " + esc(doc_dir)]
        with open(f"{outdir}/roceprobe-{c}.1", "w") as f:
            f.write(man_page(f"roceprobe-{c}", "DESCRIPTION", summary, usage, blocks, version, see))
        opts, values, twin = options_of(text)
        kinds = {}
        for o, v in values.items():
            k = value_kind(twin.get(o, o), v)
            kinds[o] = "val" if k == "value" else k
        arg = "profile" if any("PROFILE" in u for u in usage) else (
            "file" if any(re.search(r"\b(PCAP|FILE)\b", u) for u in usage) else "")
        tables[c] = {"opts": opts, "kinds": kinds, "arg": arg}
    with open(f"{outdir}/roceprobe", "w") as f:
        f.write(completion(cmds, tables, profiles_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
