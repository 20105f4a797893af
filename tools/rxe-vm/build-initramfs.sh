#!/usr/bin/env bash
# Builds the kernel + busybox initramfs of the Soft-RoCE (rdma_rxe) VM lab from Debian's
# package archive. See tools/rxe-vm/README.md.
#
# usage: build-initramfs.sh [--out DIR] [--extra FILE]... [--mpi] [--quiet]
#
# Idempotent. The packages, their extracted tree and the base initramfs are cached in
# $RXE_VM_DIR (default: <repo>/build/rxe-vm) and rebuilt only when the kernel version, the
# package list or the guest files change. Every --extra FILE (a program, or a shared library
# named *.so*) is added with the libraries `ldd` finds for it: programs go to
# /usr/local/bin, libraries to /usr/lib/x86_64-linux-gnu. Extras go into a second cpio
# appended to the base one (the kernel unpacks both), so adding them costs a second or two.
# --mpi appends a third, cached layer: this host's Open MPI (openmpi-bin, libopenmpi3 and
# libpmix2 as Debian installed them: mpirun, orted, every MCA and PMIx plugin with its
# libraries, help texts, /etc/openmpi) and dropbear (server, dbclient, dropbearkey) from its
# Debian package, with a root key pair made at build time (/root/.ssh/id_dropbear, its public
# half in authorized_keys): every VM of the image trusts every other.
#
# Writes DIR/vmlinuz and DIR/initramfs.cpio.gz (DIR defaults to the cache directory) and
# prints two lines: "kernel=PATH" and "initrd=PATH".
# Needs: apt-get (with package lists), dpkg-deb, depmod (kmod), cpio, gzip, flock, ldd.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${RXE_VM_DIR:-$repo/build/rxe-vm}
out=
quiet=0
mpi=0
extras=()

die() {
	echo "build-initramfs: $*" >&2
	exit 2
}
log() {
	[ "$quiet" = 1 ] || echo "build-initramfs: $*" >&2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--out)
		[ $# -ge 2 ] || die "--out needs a directory"
		out=$2
		shift 2
		;;
	--extra)
		[ $# -ge 2 ] || die "--extra needs a file"
		[ -f "$2" ] || die "--extra $2: no such file"
		extras+=("$(realpath "$2")")
		shift 2
		;;
	--quiet)
		quiet=1
		shift
		;;
	--mpi)
		mpi=1
		shift
		;;
	-h | --help)
		sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

export PATH=$PATH:/usr/sbin:/sbin # depmod, for users whose PATH lacks sbin
for tool in apt-get apt-cache dpkg-deb depmod cpio gzip flock ldd; do
	command -v "$tool" >/dev/null || die "$tool not found; run tools/bootstrap.sh as root"
done

mkdir -p "$cache"
cache=$(realpath "$cache")
out=${out:-$cache}
mkdir -p "$out"
out=$(realpath "$out")

# One builder at a time per cache directory.
exec 9>"$cache/.lock"
flock 9

arch_libdir=usr/lib/x86_64-linux-gnu

# The kernel package that linux-image-amd64 depends on, e.g. linux-image-6.1.0-57-amd64.
kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }') || true
if [ -z "$kpkg" ]; then
	# No package lists (yet): reuse what the cache has, or fetch the lists.
	kpkg=$(cat "$cache/kernel-package" 2>/dev/null) || true
	if [ -z "$kpkg" ]; then
		[ "$(id -u)" -eq 0 ] || die "apt-cache knows no linux-image-amd64; run 'apt-get update' as root"
		log "apt-get update"
		apt-get update -q >&2
		kpkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
		[ -n "$kpkg" ] || die "cannot resolve the package linux-image-amd64 depends on"
	fi
fi
kver=${kpkg#linux-image-}

# Userspace: busybox, rdma-core (verbs + the rxe provider), the `rdma` tool (iproute2),
# perftest, ibverbs-utils, and the libraries they link that a minimal host may not have.
packages=(
	"$kpkg" busybox-static
	libibverbs1 ibverbs-providers librdmacm1 ibverbs-utils perftest iproute2
	libnl-3-200 libnl-route-3-200 libpci3 libudev1 zlib1g libmnl0 libbsd0 libmd0 libcap2
	libelf1 libbpf1 libibumad3
)

debs=$cache/debs
mkdir -p "$debs"
deb_of() { # the cached .deb of package $1, if any
	local f
	for f in "$debs/${1}"_*.deb; do
		[ -f "$f" ] && {
			echo "$f"
			return 0
		}
	done
	return 1
}
need=()
for p in "${packages[@]}"; do
	deb_of "$p" >/dev/null || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	# A new kernel ABI replaces the old one in the cache.
	for f in "$debs"/linux-image-*.deb; do
		[ -f "$f" ] && [ "${f##*/}" = "${f##*/"$kpkg"_}" ] && rm -f "$f"
	done
	log "apt-get download ${need[*]}"
	if ! (cd "$debs" && apt-get download -q -o APT::Sandbox::User=root "${need[@]}" >&2); then
		[ "$(id -u)" -eq 0 ] || die "apt-get download failed; run 'apt-get update' as root"
		log "apt-get update, then download again"
		apt-get update -q >&2
		(cd "$debs" && apt-get download -q -o APT::Sandbox::User=root "${need[@]}" >&2) ||
			die "apt-get download ${need[*]} failed"
	fi
fi
deb_files=()
for p in "${packages[@]}"; do
	f=$(deb_of "$p") || die "no .deb for $p in $debs"
	deb_files+=("$f")
done

# Stamp: the .deb names, this script and the guest files. Same stamp -> base is current.
stamp=$(
	{
		printf '%s\n' "${deb_files[@]##*/}"
		cat "$0" "$here"/guest/*
	} | sha256sum | cut -d' ' -f1
)
stage=$cache/stage
root=$cache/root
base=$cache/base.cpio.gz
ldd_path=$stage/$arch_libdir:$stage/lib/x86_64-linux-gnu

# Copies the libraries ldd lists for $2 into root $1, flattened into usr/lib/x86_64-linux-gnu
# under the names the loader asks for; the ELF interpreter also goes to its own path.
# $3: LD_LIBRARY_PATH for ldd (the staging tree for packaged programs, empty for host ones).
copy_libs() {
	local dst=$1 bin=$2 lpath=$3 line name path out_ldd
	out_ldd=$(LD_LIBRARY_PATH=$lpath ldd "$bin" 2>&1) || {
		case "$out_ldd" in
		*"not a dynamic executable"* | *"statically linked"*) return 0 ;;
		*) die "ldd $bin failed: $out_ldd" ;;
		esac
	}
	while IFS= read -r line; do
		line=${line#"${line%%[![:space:]]*}"}
		case "$line" in
		linux-vdso.so* | "") continue ;;
		*"=> not found"*) die "ldd $bin: ${line%% *} not found (install its package on this host)" ;;
		*" => "*)
			name=${line%% => *}
			path=${line#* => }
			path=${path%% (*}
			[ -n "$path" ] || continue
			;;
		/*)
			path=${line%% (*}
			mkdir -p "$dst/$(dirname "$path")"
			[ -e "$dst/$path" ] || cp -L "$path" "$dst/$path"
			name=${path##*/}
			;;
		*"statically linked"*) continue ;;
		*) continue ;;
		esac
		[ -e "$dst/$arch_libdir/$name" ] || cp -L "$path" "$dst/$arch_libdir/$name"
	done <<<"$out_ldd"
}

if [ "$(cat "$cache/stamp" 2>/dev/null || true)" != "$stamp" ] || [ ! -f "$base" ] || [ ! -f "$cache/vmlinuz" ]; then
	log "building the base initramfs for kernel $kver"
	rm -rf "$stage" "$root"
	mkdir -p "$stage" "$root"
	for f in "${deb_files[@]}"; do
		dpkg-deb -x "$f" "$stage"
	done
	depmod -b "$stage" "$kver"

	# Tree: real /usr, with /lib, /bin and /sbin as symlinks into it (as Debian 12 does).
	mkdir -p "$root"/{usr/bin,usr/sbin,usr/local/bin,$arch_libdir,lib64,etc,proc,sys,dev,tmp,run,rp,share,root}
	ln -s usr/lib "$root/lib"
	ln -s usr/bin "$root/bin"
	ln -s usr/sbin "$root/sbin"

	cp "$stage/bin/busybox" "$root/usr/bin/busybox"
	for applet in $("$root/usr/bin/busybox" --list); do
		case "$applet" in busybox) continue ;; esac
		[ -e "$root/usr/bin/$applet" ] || ln -s busybox "$root/usr/bin/$applet"
	done

	# Programs from the packages. They replace busybox's ip (iproute2's knows more).
	progs=(usr/bin/rdma bin/ip usr/bin/ibv_devinfo usr/bin/ibv_devices usr/bin/ibv_rc_pingpong)
	for p in "$stage"/usr/bin/ib_{write,read,send,atomic}_{lat,bw}; do
		progs+=("${p#"$stage"/}")
	done
	for p in "${progs[@]}"; do
		[ -f "$stage/$p" ] || die "$p missing from the packages"
		rm -f "$root/usr/bin/${p##*/}"
		cp "$stage/$p" "$root/usr/bin/${p##*/}"
		copy_libs "$root" "$stage/$p" "$ldd_path"
	done
	# The rxe verbs provider, dlopen()ed by libibverbs.
	mkdir -p "$root/$arch_libdir/libibverbs" "$root/etc/libibverbs.d"
	cp "$stage/$arch_libdir/libibverbs/librxe-rdmav34.so" "$root/$arch_libdir/libibverbs/"
	copy_libs "$root" "$stage/$arch_libdir/libibverbs/librxe-rdmav34.so" "$ldd_path"
	cp "$stage/etc/libibverbs.d/rxe.driver" "$root/etc/libibverbs.d/"

	# Kernel modules: the ones init loads and everything they depend on.
	mods=(virtio_pci virtio_net 9pnet_virtio 9p crc32_generic crc32-pclmul rdma_rxe ib_uverbs rdma_ucm)
	mdir=lib/modules/$kver
	want=$(awk -v list="${mods[*]}" '
		BEGIN { n = split(list, m, " "); for (i = 1; i <= n; i++) { x = m[i]; gsub("-", "_", x); w[x] = 1 } }
		{
			f = $1; sub(":$", "", f); k = f; sub(".*/", "", k); sub("\\.ko.*", "", k); gsub("-", "_", k)
			dep[k] = $0; file[k] = f
		}
		function add(k,   parts, n, i, d) {
			if (k in seen || !(k in file)) return
			seen[k] = 1; print file[k]
			n = split(dep[k], parts, " ")
			for (i = 2; i <= n; i++) { d = parts[i]; sub(".*/", "", d); sub("\\.ko.*", "", d); gsub("-", "_", d); add(d) }
		}
		END { for (k in w) { if (!(k in file)) { print "MISSING " k; continue } add(k) } }
	' "$stage/$mdir/modules.dep")
	if grep -q '^MISSING' <<<"$want"; then
		die "modules not in $kpkg: $(grep '^MISSING' <<<"$want" | cut -d' ' -f2 | tr '\n' ' ')"
	fi
	while IFS= read -r m; do
		mkdir -p "$root/usr/$mdir/$(dirname "$m")"
		cp "$stage/$mdir/$m" "$root/usr/$mdir/$m"
	done <<<"$want"
	for f in modules.builtin modules.builtin.modinfo modules.order; do
		[ -f "$stage/$mdir/$f" ] && cp "$stage/$mdir/$f" "$root/usr/$mdir/"
	done
	depmod -b "$root" "$kver"

	install -m 0755 "$here/guest/init" "$root/init"
	install -m 0755 "$here/guest/rp-gid" "$root/usr/bin/rp-gid"
	install -m 0755 "$here/guest/rp-retry" "$root/usr/bin/rp-retry"
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
	printf 'root:x:0:\n' >"$root/etc/group"
	printf '127.0.0.1 localhost\n' >"$root/etc/hosts"
	printf 'export PS1="\\h:\\w# "\nexport IBV_DRIVERS=rxe\n' >"$root/etc/profile"

	(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --owner=0:0 --quiet) |
		gzip -1 >"$base.tmp"
	mv "$base.tmp" "$base"
	cp "$stage/boot/vmlinuz-$kver" "$cache/vmlinuz"
	echo "$kpkg" >"$cache/kernel-package"
	echo "$stamp" >"$cache/stamp"
	rm -rf "$stage" # 500 MB of modules; the .debs stay for the next rebuild
	log "base initramfs: $(du -h "$base" | cut -f1), kernel $kver"
fi

# The MPI layer (--mpi): Open MPI as this host has it, dropbear from its package.
mpi_layer=$cache/mpi.cpio.gz
if [ "$mpi" = 1 ]; then
	for p in openmpi-bin libopenmpi3 libpmix2; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			die "--mpi copies this host's Open MPI: install $p (tools/bootstrap.sh)"
	done
	mpi_debs=(dropbear-bin libtomcrypt1 libtommath1)
	mneed=()
	for p in "${mpi_debs[@]}"; do
		deb_of "$p" >/dev/null || mneed+=("$p")
	done
	if [ ${#mneed[@]} -gt 0 ]; then
		log "apt-get download ${mneed[*]}"
		(cd "$debs" && apt-get download -q -o APT::Sandbox::User=root "${mneed[@]}" >&2) ||
			die "apt-get download ${mneed[*]} failed (run 'apt-get update' as root)"
	fi
	mstamp=$(
		{
			dpkg-query -W openmpi-bin libopenmpi3 libpmix2
			for p in "${mpi_debs[@]}"; do basename "$(deb_of "$p")"; done
			sed -n '/^# The MPI layer/,/^# The output/p' "$0"
		} | sha256sum | cut -d' ' -f1
	)
	if [ "$(cat "$cache/mpi.stamp" 2>/dev/null || true)" != "$mstamp" ] || [ ! -f "$mpi_layer" ]; then
		log "building the MPI layer (Open MPI $(dpkg-query -W -f='${Version}' openmpi-bin), dropbear)"
		mroot=$(mktemp -d "$cache/mpi.XXXXXX")
		mstage=$(mktemp -d "$cache/mpistage.XXXXXX")
		trap 'rm -rf "$mroot" "$mstage"' EXIT
		mkdir -p "$mroot/usr/bin" "$mroot/usr/sbin" "$mroot/$arch_libdir" "$mroot/etc" "$mroot/usr/share" \
			"$mroot/root/.ssh" "$mroot/etc/dropbear"
		for b in orterun orted ompi_info; do
			cp "/usr/bin/$b" "$mroot/usr/bin/$b"
			copy_libs "$mroot" "/usr/bin/$b" ""
		done
		ln -s orterun "$mroot/usr/bin/mpirun"
		ln -s orterun "$mroot/usr/bin/mpiexec"
		# The plugin trees as installed (symlinks kept), each plugin with its libraries.
		for d in openmpi pmix2; do
			cp -a "/$arch_libdir/$d" "$mroot/$arch_libdir/"
		done
		rm -rf "$mroot/$arch_libdir/openmpi/include" "$mroot/$arch_libdir/pmix2/include"
		while IFS= read -r so; do
			copy_libs "$mroot" "$so" ""
		done < <(find "$mroot/$arch_libdir/openmpi" "$mroot/$arch_libdir/pmix2" -name '*.so' -type f)
		for d in openmpi pmix; do
			[ -d "/usr/share/$d" ] && cp -a "/usr/share/$d" "$mroot/usr/share/"
		done
		cp -a /etc/openmpi "$mroot/etc/"
		[ -d /etc/pmix ] && cp -a /etc/pmix "$mroot/etc/"
		# dropbear: server, client, key tool.
		for p in "${mpi_debs[@]}"; do
			dpkg-deb -x "$(deb_of "$p")" "$mstage"
		done
		mlpath=$mstage/$arch_libdir:$mstage/lib/x86_64-linux-gnu
		for b in usr/sbin/dropbear usr/bin/dbclient usr/bin/dropbearkey; do
			[ -f "$mstage/$b" ] || die "$b missing from dropbear-bin"
			cp "$mstage/$b" "$mroot/$b"
			copy_libs "$mroot" "$mstage/$b" "$mlpath"
		done
		# One root key for the image: every VM's dbclient logs in to every VM's dropbear.
		LD_LIBRARY_PATH=$mlpath "$mstage/usr/bin/dropbearkey" -t ed25519 -f "$mroot/root/.ssh/id_dropbear" >/dev/null 2>&1 ||
			die "dropbearkey could not make the image's key"
		LD_LIBRARY_PATH=$mlpath "$mstage/usr/bin/dropbearkey" -y -f "$mroot/root/.ssh/id_dropbear" |
			grep '^ssh-' >"$mroot/root/.ssh/authorized_keys"
		chmod 700 "$mroot/root/.ssh"
		chmod 600 "$mroot/root/.ssh/id_dropbear" "$mroot/root/.ssh/authorized_keys"
		printf '/bin/sh\n' >"$mroot/etc/shells"
		# What the base has already stays out (same Debian release, same files).
		(cd "$mroot" && find . -type f | while IFS= read -r f; do
			[ -e "$root/$f" ] && rm -f "$f"
		done)
		(cd "$mroot" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --owner=0:0 --quiet) |
			gzip -1 >"$mpi_layer.tmp"
		mv "$mpi_layer.tmp" "$mpi_layer"
		echo "$mstamp" >"$cache/mpi.stamp"
		log "MPI layer: $(du -h "$mpi_layer" | cut -f1) ($(find "$mroot" -type f | wc -l) files)"
		rm -rf "$mroot" "$mstage"
		trap - EXIT
	fi
fi

# The output: the base, plus a second archive with the extras.
if [ "$out" != "$cache" ]; then
	cp "$cache/vmlinuz" "$out/vmlinuz.tmp"
	mv "$out/vmlinuz.tmp" "$out/vmlinuz"
fi
layers=("$base")
[ "$mpi" = 1 ] && layers+=("$mpi_layer")
if [ ${#extras[@]} -gt 0 ]; then
	xroot=$(mktemp -d "$cache/extra.XXXXXX")
	trap 'rm -rf "$xroot"' EXIT
	mkdir -p "$xroot/usr/local/bin" "$xroot/$arch_libdir"
	for f in "${extras[@]}"; do
		case "${f##*/}" in
		*.so | *.so.*) cp -L "$f" "$xroot/$arch_libdir/${f##*/}" ;;
		*) install -m 0755 "$f" "$xroot/usr/local/bin/${f##*/}" ;;
		esac
		copy_libs "$xroot" "$f" ""
	done
	# Libraries the base already has stay out (same Debian release, same files).
	(cd "$xroot" && find . -type f | while IFS= read -r f; do
		[ -e "$root/$f" ] && [ "${f#./usr/local/bin/}" = "$f" ] && rm -f "$f"
	done)
	log "extras: $(find "$xroot" -type f | wc -l) files, $(du -sh "$xroot" | cut -f1)"
	{
		cat "${layers[@]}"
		(cd "$xroot" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --owner=0:0 --quiet) | gzip -1
	} >"$out/initramfs.cpio.gz.tmp"
	mv "$out/initramfs.cpio.gz.tmp" "$out/initramfs.cpio.gz"
elif [ "$out" != "$cache" ]; then
	cat "${layers[@]}" >"$out/initramfs.cpio.gz.tmp"
	mv "$out/initramfs.cpio.gz.tmp" "$out/initramfs.cpio.gz"
elif [ "$mpi" = 1 ]; then
	die "--mpi needs --out DIR (the cache's initramfs.cpio.gz is the base alone)"
else
	ln -sf base.cpio.gz "$cache/initramfs.cpio.gz"
fi
echo "kernel=$out/vmlinuz"
echo "initrd=$out/initramfs.cpio.gz"
