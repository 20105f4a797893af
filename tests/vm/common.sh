# Shared by the VM tests (sourced after they define `fail` and `work`).

vm_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
vm_run=$vm_repo/tools/rxe-vm/run.sh

# sch_netem.ko of exactly the VMs' kernel, from the cached kernel package; prints its path.
vm_netem_module() {
	"$vm_repo/tools/rxe-vm/build-initramfs.sh" --quiet >/dev/null
	local cache=${RXE_VM_DIR:-$vm_repo/build/rxe-vm} kdeb netem
	kdeb=$(ls "$cache"/debs/linux-image-*.deb | head -n 1)
	dpkg-deb --fsys-tarfile "$kdeb" | tar -x -C "$work" --wildcards './lib/modules/*/kernel/net/sched/sch_netem.ko'
	netem=$(find "$work/lib" -name sch_netem.ko | head -n 1)
	[ -n "$netem" ] || fail "no sch_netem.ko in $kdeb"
	echo "$netem"
}

# Kernel modules of exactly the VMs' kernel (the base image holds only what its init loads),
# from the cached kernel package: vm_kernel_modules NAME... extracts each named module and,
# recursively, every module it depends on (the .ko's own `depends`, the list depmod writes to
# modules.dep; modules the kernel has built in are not in the package and need nothing) into
# $work/kmod, and prints their paths one a line in load order, dependencies first. Give the
# paths to run.sh as --extra (they land in /usr/local/bin) and insmod them in that order.
vm_kernel_modules() {
	"$vm_repo/tools/rxe-vm/build-initramfs.sh" --quiet >/dev/null
	local cache=${RXE_VM_DIR:-$vm_repo/build/rxe-vm} kdeb dir=$work/kmod PATH=$PATH:/usr/sbin:/sbin # modinfo
	kdeb=$(ls "$cache"/debs/linux-image-*.deb | head -n 1)
	mkdir -p "$dir"
	# name (dashes as underscores) -> path in the package, for every module it holds
	declare -A path=() deps=() seen=()
	local f k
	while IFS= read -r f; do
		k=${f##*/}
		k=${k%.ko}
		path[${k//-/_}]=$f
	done < <(dpkg-deb -c "$kdeb" | awk '{ print $NF }' | grep '/kernel/.*\.ko$')
	local want=() todo=() m
	for m in "$@"; do todo+=("${m//-/_}"); done
	# Extract in passes: what the last pass's modules depend on and is not there yet.
	while [ ${#todo[@]} -gt 0 ]; do
		local pass=()
		for m in "${todo[@]}"; do
			[ -z "${seen[$m]:-}" ] || continue
			seen[$m]=1
			[ -n "${path[$m]:-}" ] || {
				# named by the caller: it must exist; a dependency may be built in
				[[ " $* " == *" $m "* || " ${*//-/_} " == *" $m "* ]] && fail "no module $m in $kdeb"
				continue
			}
			pass+=("${path[$m]}")
			want+=("$m")
		done
		todo=()
		[ ${#pass[@]} -gt 0 ] || break
		dpkg-deb --fsys-tarfile "$kdeb" | tar -x -C "$dir" "${pass[@]}" || fail "cannot extract ${pass[*]} from $kdeb"
		for f in "${pass[@]}"; do
			k=${f##*/}
			k=${k%.ko}
			k=${k//-/_}
			deps[$k]=$(modinfo -F depends "$dir/$f" | tr ',' ' ')
			for m in ${deps[$k]}; do todo+=("${m//-/_}"); done
		done
	done
	# Load order: depth first, a module after everything it depends on.
	declare -A done_=()
	_vm_kmod_visit() {
		local m=$1 d
		[ -z "${done_[$m]:-}" ] && [ -n "${deps[$m]+x}" ] || return 0
		done_[$m]=1
		for d in ${deps[$m]}; do _vm_kmod_visit "${d//-/_}"; done
		echo "$dir/${path[$m]}"
	}
	for m in "${want[@]}"; do _vm_kmod_visit "$m"; done
}

# Two VMs run $work/server.sh and $work/client.sh (outputs in $work/out); on failure the
# jobs' logs go to stderr and the test fails. Extra arguments go to run.sh.
vm_run_pair() {
	local rc=0
	"$vm_run" --vms 2 --job0 "$work/server.sh" --job1 "$work/client.sh" --out "$work/out" "$@" || rc=$?
	if [ "$rc" != 0 ]; then
		for f in "$work"/out/vm*/{stdout,stderr,*.txt}; do
			[ -s "$f" ] && { echo "== $f"; tail -n 30 "$f"; }
		done >&2
		fail "run.sh exited $rc"
	fi
}

# After a failed run.sh: the tail of every VM's output and of vm0's job notes, on stderr
# (dbclient's "skipping hostkey" chatter left out). $1 = run.sh's --out directory.
vm_dump_logs() {
	local f
	for f in "$1"/vm*/{stdout,stderr} "$1"/vm0/*.txt; do
		[ -s "$f" ] && { echo "== $f"; grep -v 'skipping hostkey' "$f" | tail -n 30; }
	done >&2
}
