#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# vm-shuffled.sh SEED EXPECTED_SKIPS: run inside a VM by "make check", every
# test of the simgpu selftest programs, each in a process of its own, in
# an order shuffled with SEED: a test that leaves work running behind it,
# or needs another to have run first, fails then where the kselftest
# runner's fixed order hides it. The fuzzer, a program of its own TAP
# and not of the harness, is one entry of the shuffle: its cases run
# together, where the shuffle puts it, numbered as the others.
#
# Prints TAP: "ok N program fixture.test", "not ok N ..." for a failure
# and for a skip whose reason does not match the extended regular
# expression EXPECTED_SKIPS.
seed=${1:?usage: vm-shuffled.sh SEED EXPECTED_SKIPS}
expected=${2:-^$}
progs="simgpu_ioctl_test simgpu_stress_test simgpu_mem_test
simgpu_debugfs_test simgpu_fdinfo_test simgpu_pmu_test simgpu_perfmon_test
simgpu_observation_test"

# "program fixture[.variant].test" of each test: the harness's -l lists a
# fixture's variants and tests side by side, in fixed-width columns.
list() {
	for p in $progs; do
		"$p" -l 2>&1 | awk -v prog="$p" '
		function flush(  i, j) {
			for (j = 0; j < nt; j++)
				if (!nv)
					print prog, fix "." t[j]
				else
					for (i = 0; i < nv; i++)
						print prog, fix "." v[i] "." t[j]
			nv = nt = 0
		}
		/^# FIXTURE/ { table = 1; next }
		!table { next }
		/^-----/ { flush(); next }
		{
			f = substr($0, 1, 20); gsub(/ /, "", f)
			vv = substr($0, 22, 25); gsub(/ /, "", vv)
			tt = substr($0, 48); gsub(/ /, "", tt)
			if (f != "") fix = f
			if (vv != "") v[nv++] = vv
			if (tt != "") t[nt++] = tt
		}
		END { flush() }'
	done
}

tests=$( (list; echo "simgpu_fuzz_test -") | awk -v seed="$seed" 'BEGIN { srand(seed) }
	{ print rand() "\t" $0 }' | sort -n | cut -f2-)
echo "# seed $seed, $(echo "$tests" | wc -l) tests"
n=0
echo "$tests" | while read -r prog name; do
	if [ "$name" = - ]; then
		# a whole program: each of its cases is a test
		out=$("$prog" 2>&1)
		status=$?
		echo "$out" | grep -vE '^(not )?ok [0-9]+ ' | sed 's/^/# /'
		bad=
		while read -r res num rest; do
			[ -n "$res" ] || continue
			if [ "$res" = not ]; then
				res="not ok" rest=${rest#* }
				bad=1
			fi
			case $rest in
			*"# SKIP"*)
				echo "${rest#*# SKIP}" | grep -Eq -- "$expected" ||
					res="not ok" rest="$rest # unexpected SKIP" ;;
			esac
			n=$((n + 1))
			echo "$res $n $prog $rest"
		done <<-EOF
		$(echo "$out" | grep -E '^(not )?ok [0-9]+ ')
		EOF
		if [ $status != 0 ] && [ -z "$bad" ]; then
			n=$((n + 1))
			echo "not ok $n $prog # exit status $status"
		fi
		continue
	fi
	n=$((n + 1))
	out=$("$prog" -r "$name" 2>&1)
	status=$?
	line=$(echo "$out" | grep -E '^(not )?ok 1 ' | tail -n 1)
	case $line in
	"ok 1 "*"# SKIP"*)
		why=${line#*# SKIP}
		if echo "$why" | grep -Eq -- "$expected"; then
			echo "ok $n $prog $name # SKIP$why"
		else
			echo "not ok $n $prog $name # unexpected SKIP$why"
		fi ;;
	"ok 1 "*)
		if [ $status = 0 ]; then
			echo "ok $n $prog $name"
		else
			echo "not ok $n $prog $name # exit status $status"
		fi ;;
	*)
		echo "$out" | sed 's/^/# /'
		echo "not ok $n $prog $name # exit status $status" ;;
	esac
done
