# Sourced by the benches (tx.sh, rx.sh, lcores.sh, capture.sh): the small
# statistics they share, one copy each.

# The median of the numbers on stdin, one a line (0 when there are none).
median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }

# Their mean, as a whole number.
mean() { awk '{ s += $1 } END { print NR ? int(s / NR) : 0 }'; }

# testpmd's rate from its log ($2; --stats-period 1 prints it every second):
# the median of the $1 readings ("Rx-pps:" or "Tx-pps:") but the first and the
# last, which are partial seconds.
testpmd_rate() {
	awk -v k="$1" '$1 == k { print $2 }' "$2" | awk '{ v[NR] = $1 } END { for (i = 2; i < NR; i++) print v[i] }' |
		median
}
