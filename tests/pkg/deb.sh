#!/usr/bin/env bash
# pkg-deb: roceprobe's Debian package, built from the tree, in a fresh Debian 12.
#
#   the tree (without build*/, results/, .git) -> CACHE/work/src (a fixed path: ccache hits)
#     dpkg-buildpackage -b -us -uc                        -> roceprobe_VERSION_amd64.deb
#   debootstrap --variant=minbase --include=man-db bookworm (once; kept as CACHE/bookworm-base.tar)
#     -> CACHE/work/root, a fresh chroot each run
#   in a private mount namespace (proc, the apt caches bind-mounted; undone when it ends):
#     apt-get install ./roceprobe_*.deb                   (its dependencies from Debian's archive)
#     roceprobe lab /usr/share/roceprobe/profiles/incast-8to1.yaml -o /tmp/lab   (the quickstart's job)
#     man roceprobe-run
#
# Asserts: the package's version is the project's (debian/changelog = meson.build); it
# installs; the lab job exits 0 with the README's numbers (8 flows of 1600 packets, every one
# received, goodput 97.983 Gbit/s, no loss, no drops); `man roceprobe-run` renders its NAME line
# and options; the man pages, completion, profiles and roceprobe-plot are where `meson install`
# puts them under /usr. Prints how long each step took.
# CACHE is /var/cache/roceprobe-pkg (ROCEPROBE_PKG_CACHE): the debootstrap base, apt's
# downloaded packages and lists, and ccache, kept between runs.
set -euo pipefail
src=${1:?usage: deb.sh SOURCE_DIR}
cache=${ROCEPROBE_PKG_CACHE:-/var/cache/roceprobe-pkg}
fail() { echo "pkg-deb: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot)"
for t in dpkg-buildpackage dh debootstrap unshare chroot; do
	command -v "$t" >/dev/null || fail "no $t: run tools/bootstrap.sh --tests"
done
mkdir -p "$cache/ccache" "$cache/apt-archives/partial" "$cache/apt-lists/partial"
# One run at a time: the build path is fixed.
exec 9>"$cache/lock"
flock 9
work=$cache/work
rm -rf "$work"
mkdir -p "$work/src"
t0=$(date +%s%N)
step() {
	local t ms
	t=$(date +%s%N) ms=$(((t - t0) / 1000000))
	printf 'pkg-deb: %-52s %4d.%d s\n' "$1" $((ms / 1000)) $((ms % 1000 / 100))
	t0=$t
}
trap 'echo "pkg-deb: logs in $work" >&2' ERR

tar -C "$src" --exclude=./build --exclude='./build-*' --exclude=./results --exclude=./.git \
	--exclude='./obj-*' --exclude=./debian/roceprobe --exclude=./debian/.debhelper -cf - . | tar -C "$work/src" -xf -
version=$(sed -n "s/^  version : '\(.*\)',$/\1/p" "$src/meson.build")
debver=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
[ "$version" = "$debver" ] || fail "debian/changelog says $debver, meson.build $version"
# The test's build skips what it does not install: the -dbgsym package, and xz (dpkg-deb's
# default: about 40 s here for the 40 MB binary) for gzip; the package's files are the same.
(cd "$work/src" && CCACHE_DIR=$cache/ccache DEB_BUILD_OPTIONS="noautodbgsym nocheck" \
	DPKG_DEB_COMPRESSOR_TYPE=gzip dpkg-buildpackage -b -us -uc) >"$work/build.log" 2>&1 ||
	{ tail -n 30 "$work/build.log"; fail "dpkg-buildpackage"; }
deb=$work/roceprobe_${version}_amd64.deb
[ -f "$deb" ] || fail "no $deb"
step "dpkg-buildpackage -b -us -uc ($(du -m "$deb" | cut -f1) MB .deb)"

# Debian's archive, as this machine's apt reaches it.
mirror=$(sed -n 's/^URIs: *\([^ ]*\/debian\)\/*$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || fail "no Debian archive in /etc/apt/sources.list{,.d}"
base=$cache/bookworm-base.tar
if [ ! -f "$base" ]; then
	debootstrap --variant=minbase --include=man-db bookworm "$work/base" "$mirror" >"$work/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$work/debootstrap.log"; fail "debootstrap"; }
	tar -C "$work/base" -cf "$base.tmp" . && mv "$base.tmp" "$base"
	rm -rf "$work/base"
	step "debootstrap bookworm (minbase, man-db)"
fi
root=$work/root
mkdir -p "$root"
tar -C "$root" -xf "$base"
cp "$deb" "$root/tmp/"
cp /etc/resolv.conf "$root/etc/resolv.conf"
step "a fresh chroot from the cached base"

# Everything that mounts happens in this namespace and goes with it.
unshare --mount --propagation private -- bash -euo pipefail -c '
	root=$1 cache=$2 deb=${3##*/}
	mount -t proc proc "$root/proc"
	mount --bind "$cache/apt-archives" "$root/var/cache/apt/archives"
	mount --bind "$cache/apt-lists" "$root/var/lib/apt/lists"
	export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin
	chroot "$root" apt-get update -q >"$root/tmp/apt.log" 2>&1
	chroot "$root" apt-get install -y -q --no-install-recommends "/tmp/$deb" >>"$root/tmp/apt.log" 2>&1
	chroot "$root" roceprobe lab /usr/share/roceprobe/profiles/incast-8to1.yaml -o /tmp/lab -q \
		>"$root/tmp/lab.txt" 2>"$root/tmp/lab.err"
	MANWIDTH=100 chroot "$root" man roceprobe-run >"$root/tmp/man-run.txt" 2>"$root/tmp/man.err"
	chroot "$root" man -w roceprobe-ep >"$root/tmp/man-where.txt"
' _ "$root" "$cache" "$deb" || { tail -n 20 "$root"/tmp/*.log "$root"/tmp/*.err 2>/dev/null; fail "install and run in the chroot"; }
step "apt-get install the .deb, lab, man (chroot)"

[ -x "$root/usr/bin/roceprobe" ] || fail "no /usr/bin/roceprobe"
[ -x "$root/usr/bin/roceprobe-plot" ] || fail "no /usr/bin/roceprobe-plot"
[ -f "$root/usr/share/roceprobe/profiles/incast-8to1.yaml" ] || fail "no profiles in /usr/share/roceprobe"
[ -f "$root/usr/share/bash-completion/completions/roceprobe" ] || fail "no bash completion"
[ -f "$root/usr/share/doc/roceprobe/docs/results.md.gz" ] || fail "no docs in /usr/share/doc/roceprobe (dh_compress'd)"
[ "$(cat "$root/tmp/man-where.txt")" = /usr/share/man/man1/roceprobe-ep.1.gz ] ||
	fail "man -w roceprobe-ep: $(cat "$root/tmp/man-where.txt")"
grep -q '^ROCEPROBE-RUN(1) ' "$root/tmp/man-run.txt" || fail "man roceprobe-run: no header"
grep -q '^ *roceprobe-run - send and receive a profile on DPDK ports' "$root/tmp/man-run.txt" ||
	fail "man roceprobe-run: no NAME line"
grep -q -- '--duration S' "$root/tmp/man-run.txt" || fail "man roceprobe-run: no --duration"
[ ! -s "$root/tmp/man.err" ] || { cat "$root/tmp/man.err"; fail "man roceprobe-run wrote to stderr"; }

# The quickstart's numbers (README.md, "Set up and run"): 8 flows of 1600 packets, all
# received, 12.248 Gbit/s each; loss 0, no switch drops, goodput 97.983 Gbit/s.
python3 - "$root/tmp/lab/result.json" <<'PY' || fail "the lab job's result.json"
import json, sys
j = json.load(open(sys.argv[1]))
flows, h = j["flows"], j["headline"]
bad = []
if len(flows) != 8:
    bad.append(f"{len(flows)} flows, want 8")
for f in flows:
    if (f["tx_packets"], f["rx_packets"], f["lost"]) != (1600, 1600, 0):
        bad.append(f"flow {f['id']}: tx {f['tx_packets']} rx {f['rx_packets']} lost {f['lost']}")
if (h["lost"], h["drops"]) != (0, 0) or round(h["goodput_gbps"], 3) != 97.983:
    bad.append(f"headline lost {h['lost']} drops {h['drops']} goodput {h['goodput_gbps']}")
for b in bad:
    print("pkg-deb:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
echo "pkg-deb: in the chroot: $(head -n 1 "$root/tmp/lab.txt")"
rm -rf "$root" "$work/src"
echo "pkg-deb: PASS"
