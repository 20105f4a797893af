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
