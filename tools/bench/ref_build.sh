# Sourced by tools/bench/lab.sh and lab-same.sh: ref_build NAME REF prints the path of
# a roceprobe binary built from commit REF (a git worktree of it and its build, cached by
# commit under REF_CACHE, default /tmp/rp-labref); one line "NAME: ..." and exit 2 when
# REF is no commit or does not build. REF may also be a roceprobe binary (a path):
# that binary, as it is. Needs $root (the repository).
ref_build() {
	case $2 in */*) [ -f "$2" ] && [ -x "$2" ] && { echo "$2"; return 0; } ;; esac
	commit=$(git -C "$root" rev-parse --verify "$2^{commit}" 2>/dev/null) || { echo "$1: no commit $2" >&2; exit 2; }
	cache=${REF_CACHE:-/tmp/rp-labref}/$(echo "$commit" | cut -c1-12)
	if [ ! -x "$cache/build/app/roceprobe" ]; then
		mkdir -p "$(dirname "$cache")"
		[ -d "$cache/src" ] || git -C "$root" worktree add --detach "$cache/src" "$commit" >/dev/null 2>&1 ||
			{ echo "$1: cannot make a worktree of $commit in $cache/src" >&2; exit 2; }
		meson setup "$cache/build" "$cache/src" -Dtests=disabled >/dev/null &&
			ninja -C "$cache/build" app/roceprobe >/dev/null ||
			{ echo "$1: building $commit in $cache/build failed" >&2; exit 2; }
	fi
	echo "$cache/build/app/roceprobe"
}
