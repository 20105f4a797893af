#!/usr/bin/env bash
# pkg-install: `meson install` installs roceprobe like a tool (issue 34). Into a temporary
# DESTDIR from the build directory:
#   PREFIX/bin/roceprobe, PREFIX/bin/roceprobe-plot (tools/plot; --help works)
#   PREFIX/share/roceprobe/profiles/   every profiles/*.yaml of the tree, byte for byte
#   PREFIX/share/doc/roceprobe/        README.md and every docs/*.md
#   PREFIX/share/man/man1/             roceprobe.1 and roceprobe-CMD.1 for every command
#                                      `roceprobe --help` lists; groff reads each without a
#                                      warning, man renders its NAME line with the command's
#                                      summary and its options
#   PREFIX/share/bash-completion/completions/roceprobe
#                                      commands, a command's options, directories after -o,
#                                      nothing after an option that takes a value, profiles
#                                      (the installed ones) for a PROFILE
# The truths are the tree (profiles/, docs/) and the binary's own --help.
set -euo pipefail
build=${1:?usage: install.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: install.sh BUILD_DIR SOURCE_DIR}
work=$(mktemp -d /tmp/pkg-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "pkg-install: FAIL: $*" >&2; exit 1; }

meson install -C "$build" --no-rebuild --destdir "$work/root" --quiet >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "meson install"; }
bin=$(find "$work/root" -path '*/bin/roceprobe' -type f)
[ -n "$bin" ] || fail "no bin/roceprobe installed"
prefix=${bin%/bin/roceprobe}
share=$prefix/share
echo "pkg-install: prefix ${prefix#"$work/root"}"

[ -x "$prefix/bin/roceprobe-plot" ] || fail "no bin/roceprobe-plot"
"$prefix/bin/roceprobe-plot" --help >"$work/plot.txt" 2>&1 || { cat "$work/plot.txt"; fail "roceprobe-plot --help"; }
grep -qi "result dir" "$work/plot.txt" || fail "roceprobe-plot --help is not the plot tool's"

n=0
for p in "$src"/profiles/*.yaml; do
	cmp -s "$p" "$share/roceprobe/profiles/${p##*/}" || fail "profile ${p##*/} not installed as in the tree"
	n=$((n + 1))
done
echo "pkg-install: $n profiles"
cmp -s "$src/README.md" "$share/doc/roceprobe/README.md" || fail "README.md not in share/doc/roceprobe"
for d in "$src"/docs/*.md; do
	cmp -s "$d" "$share/doc/roceprobe/docs/${d##*/}" || fail "docs/${d##*/} not in share/doc/roceprobe/docs"
done

# The commands and their summaries, as the binary says them.
mapfile -t cmds < <("$bin" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
[ ${#cmds[@]} -ge 10 ] || fail "'roceprobe --help' lists ${#cmds[@]} commands"
man1=$share/man/man1
for page in roceprobe "${cmds[@]/#/roceprobe-}"; do
	f=$man1/$page.1
	[ -f "$f" ] || fail "no man page $page(1)"
	groff -man -ww -z "$f" 2>"$work/groff.txt"
	[ ! -s "$work/groff.txt" ] || { cat "$work/groff.txt"; fail "groff warns on $page.1"; }
	MANWIDTH=100 man -l "$f" 2>/dev/null >"$work/$page.txt"
	head -n 1 "$work/$page.txt" | grep -q "^${page^^}(1) " || fail "$page.1 renders no ${page^^}(1) header"
done
for c in "${cmds[@]}"; do
	summary=$("$bin" --help | sed -n "s/^  $c  *//p")
	name=$(awk '/^NAME/ { f = 1; next } f && /^$/ { exit } f { sub(/^ +/, ""); printf "%s%s", sep, $0; sep = " " }' \
		"$work/roceprobe-$c.txt")
	[ "$name" = "roceprobe-$c - $summary" ] || fail "roceprobe-$c(1) NAME is '$name', want 'roceprobe-$c - $summary'"
	grep -q "roceprobe-$c(1)" "$work/roceprobe.txt" || fail "roceprobe(1) does not name roceprobe-$c(1)"
done
grep -q -- "--duration S" "$work/roceprobe-run.txt" || fail "roceprobe-run(1) has no --duration"
grep -q -- "-s, --size" "$work/roceprobe-ep.txt" || fail "roceprobe-ep(1) has no -s, --size"
echo "pkg-install: $((${#cmds[@]} + 1)) man pages, groff clean"
# A command without its page (meson's list behind the binary's) stops the build: one line, exit 2.
mkdir "$work/hd"
rc=0
python3 "$src/tools/helpdoc/helpdoc.py" "$bin" 0 /p /d "$work/hd" lab plan >/dev/null 2>"$work/hd.err" || rc=$?
want="helpdoc: 'roceprobe --help' lists ${cmds[*]}; meson installs pages for lab plan"
[ $rc = 2 ] && [ "$(cat "$work/hd.err")" = "$want" ] || fail "helpdoc with two commands: exit $rc, '$(cat "$work/hd.err")'"

# Completion, as bash-completion loads it. COMPREPLY for a command line, cursor at its end.
comp=$share/bash-completion/completions/roceprobe
[ -f "$comp" ] || fail "no bash completion"
mkdir -p "$work/cwd/outdir" && touch "$work/cwd/mine.yaml" "$work/cwd/notes.txt"
complete_line() {
	(cd "$work/cwd" && bash -c '
		[ -f /usr/share/bash-completion/bash_completion ] && . /usr/share/bash-completion/bash_completion
		. "$1"; _roceprobe_profiles=$2; shift 2
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_roceprobe; if ((${#COMPREPLY[@]})); then printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "; fi' _ "$comp" "$share/roceprobe/profiles" "$@")
}
expect() {
	local want=$1; shift
	local got; got=$(complete_line "$@")
	[ "$got" = "$want" ] || fail "completing '$*': got '$got', want '$want'"
}
expect "lab " roceprobe la
expect "$(printf '%s\n' "${cmds[@]}" | grep '^c' | sort | tr '\n' ' ')" roceprobe c
expect "--report_gbits " roceprobe ep --rep
expect "-s " roceprobe ep -s
expect "--capture --capture-max --capture-rotate " roceprobe lab --capt
expect "outdir " roceprobe lab p.yaml -o ""
expect "" roceprobe ep -d ""
expect "mine.yaml notes.txt outdir " roceprobe ep --key-file ""
if [[ " ${cmds[*]} " == *" run "* ]]; then
	expect "" roceprobe run p.yaml --capture-filter ""
fi
expect "$share/roceprobe/profiles/incast-32to1-ecn.yaml $share/roceprobe/profiles/incast-8to1.yaml " \
	roceprobe lab "$share/roceprobe/profiles/incast"
expect "$share/roceprobe/profiles/incast-32to1-ecn.yaml $share/roceprobe/profiles/incast-8to1.yaml " \
	roceprobe certify incast
expect "$(printf '%s ' "$share"/roceprobe/profiles/*.yaml)mine.yaml outdir " roceprobe plan ""
echo "pkg-install: completion of commands, options, directories and profiles"
echo "pkg-install: PASS"
