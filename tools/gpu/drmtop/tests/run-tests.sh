#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests for drmtop and drm-fdinfo-check. Prints one TAP line per test
# ("ok N - ..." / "not ok N - ...") and exits 1 if any failed.
# Run through "make check" (needs the programs and the -asan builds).

cd "$(dirname "$0")/.." || exit 2
T=tests/tmp
F=tests/fixtures
rm -rf "$T"
mkdir -p "$T"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
CHK=./drm-fdinfo-check-asan
TOP=./drmtop-asan

n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
t() { # description, command...
	d=$1; shift
	if "$@"; then ok "$d"; else notok "$d"; fi
}
has() { grep -qF -- "$2" "$1"; }
lacks() { ! grep -qF -- "$2" "$1"; }
# sanitizer reports go to stderr and change the exit status to 99
clean() { ! grep -q 'Sanitizer\|runtime error' "$1"; }

# --- unit tests, plain and under ASan+UBSan (leaks included) ---
run_tap() { # label, command...
	label=$1; shift
	"$@" >"$T/tap.out" 2>"$T/tap.err"
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "$label: ${line#* - }" ;;
		"not ok "*) notok "$label: ${line#* - }" ;;
		esac
	done <"$T/tap.out"
	if [ $rc -eq 0 ] && clean "$T/tap.err"; then
		ok "$label: exit status 0, no sanitizer report"
	else
		notok "$label: exit status $rc"
		sed 's/^/# /' "$T/tap.err" | head -40
	fi
}
run_tap unit tests/unit-test "$F"
run_tap unit-asan tests/unit-test-asan "$F"
run_tap unit-ubsan tests/unit-test-ubsan "$F"

# --- drm-fdinfo-check ---
for f in xe i915 msm panfrost v3d simgpu; do
	$CHK -q "$F/$f.txt" >"$T/c.out" 2>"$T/c.err"
	rc=$?
	t "check: $f fixture is clean (exit $rc)" \
		test $rc -eq 0 -a ! -s "$T/c.out"
done
$CHK "$F/amdgpu.txt" >"$T/c.out" 2>"$T/c.err"
rc=$?
t "check: amdgpu 'pasid:' reported, exit 1 (exit $rc)" test $rc -eq 1
t "check: amdgpu exactly one violation" \
	test "$(wc -l <"$T/c.out")" -eq 1 -a "$(grep -c 'line 8: key .pasid.' "$T/c.out")" -eq 1

$CHK "$F/bad.txt" >"$T/c.out" 2>"$T/c.err"
rc=$?
t "check: bad fixture exit 1 (exit $rc)" test $rc -eq 1
t "check: no sanitizer report" clean "$T/c.err"
while IFS='|' read -r what msg; do
	t "check: detects $what" has "$T/c.out" "bad.txt: $msg"
done <<'EOM'
missing drm-driver|line 0: mandatory key drm-driver is missing
non-integer value|line 1: drm-client-id: value 'abc' is not an unsigned integer
whitespace in key|line 2: key 'drm engine-rcs' contains whitespace
key without prefix|line 3: key 'pasid' has neither the drm- prefix
unknown drm- key|line 4: 'drm-foo' is not a key of drm-usage-stats
no whitespace after colon|line 5: drm-engine-rcs: no whitespace between ':' and the value
wrong engine unit|line 6: drm-engine-rcs: unit 'us' is not allowed
duplicate key|line 6: duplicate key 'drm-engine-rcs' (first on line 5)
total-cycles and maxfreq|line 9: both drm-total-cycles-rcs and drm-maxfreq-rcs
cycles alone|line 10: drm-cycles-bcs without drm-total-cycles-bcs or drm-maxfreq-bcs
total-cycles alone|line 11: drm-total-cycles-vcs without drm-cycles-vcs
capacity without engine|line 12: drm-engine-capacity-ccs without drm-engine-ccs
zero capacity|line 13: drm-engine-capacity-rcs: capacity must be greater than zero
wrong memory unit|line 14: drm-total-vram0: unit 'GB' is not allowed
64 bit overflow|line 15: drm-engine-vecs: value does not fit in 64 bits
missing colon|line 16: no ':' between key and value
wrong frequency unit|line 17: drm-maxfreq-vecs: unit 'GHz' is not allowed
bad drm-pdev|line 18: drm-pdev: '0000:03:00' is not a PCI address
empty line|line 19: empty line
missing engine unit|line 20: drm-engine-bcs: unit missing (<uint> ns)
EOM

{ cat "$F/simgpu.txt"; i=0; while [ $i -lt 200 ]; do
	echo "simgpu-debug-$i:	$i"; i=$((i + 1)); done; } >"$T/big.txt"
$CHK -q "$T/big.txt" >"$T/c.out" 2>&1
rc=$?
t "check: >4 KiB file is a warning only (exit $rc)" test $rc -eq 0
t "check: >4 KiB warning printed" has "$T/c.out" "line 0: warning: "
$CHK -q -W "$T/big.txt" >/dev/null 2>&1
t "check: --strict turns the warning into a violation" test $? -eq 1
printf 'drm-driver:\tx\0y\n' >"$T/nul.txt"
$CHK "$T/nul.txt" >"$T/c.out" 2>&1
rc=$?
t "check: NUL byte reported (exit $rc)" test $rc -eq 1 -a \
	-n "$(grep 'line 1: line contains a NUL byte' "$T/c.out")"
head -c 300000 /dev/urandom >"$T/garbage.bin"
$CHK "$T/garbage.bin" >/dev/null 2>"$T/c.err"
rc=$?
t "check: random binary input, exit 1 without crash (exit $rc)" test $rc -eq 1
t "check: random binary input, no sanitizer report" clean "$T/c.err"

$CHK >/dev/null 2>&1
t "check: no argument is a usage error (exit 2)" test $? -eq 2
$CHK --bogus x >/dev/null 2>"$T/c.err"
t "check: unknown option exit 2 with a message" test $? -eq 2 -a -s "$T/c.err"
$CHK --interval abc x >/dev/null 2>&1
t "check: bad --interval exit 2" test $? -eq 2
$CHK "$T/does-not-exist" >"$T/c.out" 2>&1
t "check: unreadable file reported, exit 1" test $? -eq 1

# 2^64 bytes in KiB or MiB: out of range, for the checker as for drmtop
printf 'drm-driver:\tx\ndrm-total-a:\t%s KiB\ndrm-total-b:\t%s MiB\ndrm-total-c:\t%s KiB\n' \
	18014398509481984 17592186044416 18014398509481983 >"$T/big64.txt"
$CHK "$T/big64.txt" >"$T/c.out" 2>&1
rc=$?
t "check: 2^64 bytes as KiB and MiB out of range (exit $rc)" test $rc -eq 1 -a \
	"$(grep -c 'value does not fit in 64 bits as bytes' "$T/c.out")" -eq 2
t "check: 2^64 - 1 KiB bytes in range" lacks "$T/c.out" "line 4:"

mkdir -p "$T/proc/42/fdinfo"
cp "$F/simgpu.txt" "$T/proc/42/fdinfo/3"
$CHK -q --proc-root "$T/proc" 42:3 >/dev/null 2>&1
t "check: PID:FD form reads <proc-root>/PID/fdinfo/FD" test $? -eq 0

# --interval: the file is a FIFO fed twice, so the two reads are exact (the
# writer pauses after the first sample so that the first read has closed)
ctr() { # ns cycles total-cycles
	printf 'drm-driver:\tsimgpu\ndrm-engine-rcs:\t%s ns\n' "$1"
	printf 'drm-cycles-rcs:\t%s\ndrm-total-cycles-rcs:\t%s\n' "$2" "$3"
}
mkfifo "$T/ctr"
(timeout -s KILL 20 sh -c "printf '%s\n' \"$(ctr 500 200 1000)\" >$T/ctr; sleep 0.1;
	printf '%s\n' \"$(ctr 600 100 2000)\" >$T/ctr") &
timeout -s KILL 30 $CHK -q --interval 0.3 "$T/ctr" >"$T/c.out" 2>"$T/c.err"
rc=$?
wait
t "check: --interval detects a backwards counter (exit $rc)" test $rc -eq 1
t "check: --interval message names the counter" \
	has "$T/c.out" "line 3: drm-cycles-rcs went backwards: 200 -> 100"
t "check: --interval does not flag counters that advanced" lacks "$T/c.out" "drm-engine-rcs"
(timeout -s KILL 20 sh -c "printf '%s\n' \"$(ctr 500 200 1000)\" >$T/ctr; sleep 0.1;
	printf '%s\n' \"$(ctr 600 300 2000)\" >$T/ctr") &
timeout -s KILL 30 $CHK -q --interval 0.3 "$T/ctr" >"$T/c.out" 2>&1
rc=$?
wait
t "check: --interval with monotonic counters is clean (exit $rc)" test $rc -eq 0

# --- drmtop: options ---
$TOP --bogus >/dev/null 2>"$T/e"
t "drmtop: unknown option exit 2 with a message" test $? -eq 2 -a -s "$T/e"
$TOP -n 0 >/dev/null 2>"$T/e"
t "drmtop: -n 0 rejected (exit 2)" test $? -eq 2
$TOP -d abc >/dev/null 2>"$T/e"
t "drmtop: -d abc rejected (exit 2)" test $? -eq 2
$TOP -b extra >/dev/null 2>"$T/e"
t "drmtop: stray argument rejected (exit 2)" test $? -eq 2
$TOP -o x >/dev/null 2>"$T/e"
t "drmtop: --output without --prometheus rejected (exit 2)" test $? -eq 2
$TOP -b --per-client >/dev/null 2>"$T/e"
t "drmtop: --per-client without --prometheus rejected (exit 2)" test $? -eq 2
$TOP --help >"$T/h" 2>&1
t "drmtop: --help exit 0, documents metrics" test $? -eq 0 -a \
	-n "$(grep drm_client_engine_cycles_total "$T/h")"
$TOP -c relative/path -n 1 >/dev/null 2>"$T/e"
t "drmtop: --cgroup needs a path from / (exit 2)" test $? -eq 2 -a -s "$T/e"
t "drmtop: --help documents --cgroup and the cgroup series" test -n \
	"$(grep -- '--cgroup PATH' "$T/h")" -a -n "$(grep drm_cgroup_engine_seconds_total "$T/h")"
$TOP -p "$T/nope" -n 1 >/dev/null 2>"$T/e"
t "drmtop: missing proc root is an error (exit 1)" test $? -eq 1
timeout 30 $TOP -b -n 2 -d 0.05 >"$T/o" 2>"$T/e"
t "drmtop: batch mode on the real /proc" \
	test $? -eq 0 -a "$(grep -c '^drmtop: refresh' "$T/o")" -eq 2

# --- drmtop: fake proc tree, two refreshes, counters advance between ---
P=$T/fake
mkpid() {
	mkdir -p "$P/$1/fd" "$P/$1/fdinfo"
	echo "$2" >"$P/$1/comm"
}
sim() { # id cycles-rcs total cycles-ccs
	printf 'pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t911\n'
	printf 'drm-driver:\tsimgpu\ndrm-client-id:\t%s\ndrm-pdev:\t0000:00:04.0\n' "$1"
	printf 'drm-engine-rcs:\t0 ns\ndrm-cycles-rcs:\t%s\ndrm-total-cycles-rcs:\t%s\n' "$2" "$3"
	printf 'drm-engine-ccs:\t0 ns\ndrm-cycles-ccs:\t%s\ndrm-total-cycles-ccs:\t%s\n' "$4" "$3"
	printf 'drm-engine-capacity-ccs:\t4\n'
	printf 'drm-total-memory:\t8 KiB\ndrm-resident-memory:\t4 KiB\ndrm-total-vram0:\t1 MiB\n'
}
mkpid 200 render
ln -s /dev/null "$P/200/fd/0"
printf 'pos:\t0\nflags:\t02\n' >"$P/200/fdinfo/0"
ln -s /dev/dri/renderD128 "$P/200/fd/3"
mkfifo "$P/200/fdinfo/3"
mkpid 201 child
ln -s /dev/dri/renderD128 "$P/201/fd/4"
sim 7 2370355 99887766 0 >"$P/201/fdinfo/4"
mkpid 202 hot
ln -s /dev/dri/renderD128 "$P/202/fd/3"
mkfifo "$P/202/fdinfo/3"
mkpid 204 v3dapp	# no drm-pdev: grouped by its node, ns based
ln -s /dev/dri/renderD129 "$P/204/fd/3"
printf 'drm-driver:\tv3d\ndrm-client-id:\t5\ndrm-engine-render: \t100 ns\n' >"$P/204/fdinfo/3"
mkpid 203 secret
rmdir "$P/203/fd"
: >"$P/203/fd"
chmod 0 "$P/203/fd"

# Each FIFO is opened once per refresh (full scan, then a cheap refresh).
# The second sample is only offered once drmtop has printed refresh 1,
# i.e. has read and closed every FIFO, so the test is exact, not timed.
feed() { # file that becomes non-empty after refresh 1
	rm -f "$1"
	(timeout -s KILL 20 sh -c "printf '%s\n' \"$(sim 7 2370355 99887766 0)\" >$P/200/fdinfo/3;
		while [ ! -s $1 ]; do sleep 0.01; done;
		printf '%s\n' \"$(sim 7 2375355 99897766 20000)\" >$P/200/fdinfo/3") &
	(timeout -s KILL 20 sh -c "printf '%s\n' \"$(sim 9 1000 5000 0)\" >$P/202/fdinfo/3;
		while [ ! -s $1 ]; do sleep 0.01; done;
		printf '%s\n' \"$(sim 9 16000 15000 0)\" >$P/202/fdinfo/3") &
}

feed "$T/batch"
timeout -s KILL 30 $TOP -b -n 2 -d 0.1 -p "$P" >"$T/batch" 2>"$T/e"
rc=$?
wait
t "drmtop batch: exit 0 (exit $rc)" test $rc -eq 0
t "drmtop batch: no sanitizer report" clean "$T/e"
t "drmtop batch: unreadable process reported" has "$T/batch" "1 processes not readable: run as root"
t "drmtop batch: 2 clients per refresh" test "$(grep -c '^0000:00:04.0 simgpu' "$T/batch")" -eq 4
t "drmtop batch: shared client listed once with both pids" \
	has "$T/batch" "client=7 pids=200,201 comm=render"
t "drmtop batch: first sample has no value" \
	has "$T/batch" "client=7 pids=200,201 comm=render rcs=- ccs=-"
t "drmtop batch: rcs 5000/10000 cycles = 50.0%, ccs 20000/10000/4 = 50.0%" \
	has "$T/batch" "client=7 pids=200,201 comm=render rcs=50.0% ccs=50.0%"
t "drmtop batch: 150% shown and flagged" \
	has "$T/batch" "client=9 pids=202 comm=hot rcs=150.0%! ccs=0.0%"
t "drmtop batch: memory shown" has "$T/batch" "mem.memory=8.0K/res:4.0K mem.vram0=1.0M"
t "drmtop batch: client without drm-pdev shown under its node" \
	has "$T/batch" "renderD129 v3d client=5 pids=204 comm=v3dapp render=0.0%"
t "drmtop batch: clients grouped per device" awk '
	/^drmtop: refresh/ { delete seen; last = ""; next }
	{ if ($1 != last && ($1 in seen)) bad = 1; seen[$1] = 1; last = $1 }
	END { exit bad }' "$T/batch"

feed "$T/json"
timeout -s KILL 30 $TOP --json -n 2 -d 0.1 -p "$P" >"$T/json" 2>"$T/e"
rc=$?
wait
t "drmtop json: exit 0 (exit $rc)" test $rc -eq 0
t "drmtop json: no sanitizer report" clean "$T/e"
t "drmtop json: one object per client per refresh" \
	test "$(grep -c '"record":"client"' "$T/json")" -eq 6
if command -v python3 >/dev/null 2>&1; then
	python3 - "$T/json" >"$T/py" 2>&1 <<'EOPY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
rows = [r for r in rows if r["record"] == "client"]
by = {(r["refresh"], r["client_id"]): r for r in rows}
a1, a2, b2 = by[(1, 7)], by[(2, 7)], by[(2, 9)]
assert a1["engines"]["rcs"]["utilization"] is None
assert a1["engines"]["rcs"]["status"] == "first-sample"
e = a2["engines"]["rcs"]
assert e["utilization"] == 50.0, e
assert e["delta"] == 5000 and e["delta_total"] == 10000, e
assert e["cycles"] == 2375355 and e["total_cycles"] == 99897766, e
assert e["method"] == "cycles/total-cycles"
c = a2["engines"]["ccs"]
assert c["utilization"] == 50.0 and c["capacity"] == 4, c
assert a2["pids"] == [200, 201], a2["pids"]
assert a2["timestamp_ns"] > a1["timestamp_ns"]
assert isinstance(e["dt_ns"], int) and e["dt_ns"] > 0
assert a2["memory"]["vram0"]["total"] == 1048576
assert a2["memory"]["memory"]["resident"] == 4096
assert b2["engines"]["rcs"]["utilization"] == 150.0
assert b2["engines"]["rcs"]["over_100"] is True
assert a2["unreadable_processes"] == 1
print("json ok")
EOPY
	t "drmtop json: valid JSON with the expected numbers" has "$T/py" "json ok"
	grep -v 'json ok' "$T/py" | sed 's/^/# /'
else
	ok "drmtop json: # SKIP python3 not available"
fi

feed "$T/drm.prom"
timeout -s KILL 30 $TOP --prometheus --per-client -n 2 -d 0.1 -p "$P" -o "$T/drm.prom" \
	>"$T/po" 2>"$T/e"
rc=$?
wait
t "drmtop prometheus: exit 0 (exit $rc)" test $rc -eq 0
t "drmtop prometheus: no sanitizer report" clean "$T/e"
t "drmtop prometheus: -o writes the file, nothing on stdout" test -s "$T/drm.prom" -a ! -s "$T/po"
t "drmtop prometheus: no temporary file left" test -z "$(ls "$T" | grep 'drm.prom.tmp')"
L='driver="simgpu",device="0000:00:04.0",client_id="7",pid="200",pids="200,201",comm="render"'
t "drmtop prometheus: utilisation ratio" has "$T/drm.prom" \
	"drm_client_engine_utilization_ratio{$L,engine=\"rcs\"} 0.500000"
L9='driver="simgpu",device="0000:00:04.0",client_id="9",pid="202",pids="202",comm="hot"'
t "drmtop prometheus: ratio above 1 kept" has "$T/drm.prom" \
	"drm_client_engine_utilization_ratio{$L9,engine=\"rcs\"} 1.500000"
t "drmtop prometheus: raw cycle counters" has "$T/drm.prom" \
	"drm_client_engine_cycles_total{$L,engine=\"rcs\"} 2375355"
t "drmtop prometheus: capacity" has "$T/drm.prom" "drm_client_engine_capacity{$L,engine=\"ccs\"} 4"
t "drmtop prometheus: memory" has "$T/drm.prom" \
	"drm_client_memory_bytes{$L,region=\"vram0\",kind=\"total\"} 1048576"
t "drmtop prometheus: unreadable gauge" has "$T/drm.prom" "drmtop_unreadable_processes 1"
t "drmtop prometheus: HELP and TYPE lines" has "$T/drm.prom" \
	"# TYPE drm_client_engine_cycles_total counter"
t "drmtop prometheus: every sample line is well formed" \
	test -z "$(grep -v '^#' "$T/drm.prom" |
		grep -Ev '^[a-z_]+(\{([a-z_]+="[^"]*",?)+\})? [0-9.]+$')"

# Default series: sums per device and engine class and per command name,
# no pid or client_id label (node_exporter's textfile collector).
# client 7 (render) 50% rcs and 50% ccs, client 9 (hot) 150% rcs, 0% ccs
feed "$T/agg.prom"
timeout -s KILL 30 $TOP --prometheus -n 2 -d 0.1 -p "$P" -o "$T/agg.prom" >"$T/po" 2>"$T/e"
rc=$?
wait
t "prometheus default: exit 0, no sanitizer report (exit $rc)" \
	test $rc -eq 0 -a -z "$(grep 'Sanitizer\|runtime error' "$T/e")"
t "prometheus default: no per-client series, no pid or client_id label" \
	test -z "$(grep 'drm_client_\|pid=\|client_id=' "$T/agg.prom")"
D='driver="simgpu",device="0000:00:04.0"'
while IFS='|' read -r what line; do
	t "prometheus default: $what" has "$T/agg.prom" "$line"
done <<EOM
clients per device|drm_clients{$D} 2
engine class summed over clients|drm_engine_utilization_ratio{$D,engine="rcs"} 2.000000
class with capacity summed|drm_engine_utilization_ratio{$D,engine="ccs"} 0.500000
memory summed per region and kind|drm_memory_bytes{$D,region="vram0",kind="total"} 2097152
clients per command|drm_command_clients{$D,comm="render"} 1
engine per command|drm_command_engine_utilization_ratio{$D,comm="hot",engine="rcs"} 1.500000
memory per command|drm_command_memory_bytes{$D,comm="render",region="memory",kind="resident"} 4096
device without drm-pdev|drm_clients{driver="v3d",device="renderD129"} 1
PMU metrics kept|# TYPE drmtop_engine_utilization_ratio gauge
EOM
t "prometheus default: one series per device, class and kind" \
	test "$(grep -c '^drm_memory_bytes{' "$T/agg.prom")" -eq 3 -a \
	"$(grep -v '^#' "$T/agg.prom" | sed 's/ [^ ]*$//' | sort | uniq -d | wc -l)" -eq 0
# promtool (Debian's prometheus package) parses and lints both forms
if command -v promtool >/dev/null 2>&1; then
	for pf in agg.prom drm.prom; do
		promtool check metrics <"$T/$pf" >"$T/pt" 2>&1
		rc=$?
		t "promtool check metrics: $pf is valid and lint-clean (exit $rc)" \
			test $rc -eq 0 -a ! -s "$T/pt"
		sed 's/^/# /' "$T/pt"
	done
else
	ok "promtool check metrics: # SKIP promtool not installed (Debian package prometheus)"
fi

feed "$T/filt"
timeout -s KILL 30 $TOP -b -n 2 -d 0.1 -p "$P" -f pid=202 >"$T/filt" 2>"$T/e"
wait
t "drmtop: --filter pid=202 keeps only that client" \
	test "$(grep -c 'simgpu' "$T/filt")" -eq 2 -a -z "$(grep 'client=7' "$T/filt")"

# --- warnings: a key outside drm- (amdgpu's pasid) is no malformed line,
# a broken drm- key is ---
A=$T/amd
mkdir -p "$A/70/fd" "$A/70/fdinfo" "$A/71/fd" "$A/71/fdinfo"
echo amdapp >"$A/70/comm"
echo badapp >"$A/71/comm"
ln -s /dev/dri/renderD130 "$A/70/fd/3"
cp "$F/amdgpu.txt" "$A/70/fdinfo/3"
timeout -s KILL 30 $TOP -b -n 1 -p "$A" >"$T/amd.out" 2>"$T/e"
t "warnings: amdgpu fixture listed, exit 0" \
	has "$T/amd.out" "0000:0b:00.0 amdgpu client=112 pids=70 comm=amdapp gfx=-"
t "warnings: amdgpu's pasid: is no malformed line" lacks "$T/amd.out" "malformed"
ln -s /dev/dri/renderD130 "$A/71/fd/3"
printf 'drm-driver:\tamdgpu\ndrm-client-id:\t113\ndrm-engine-gfx:\t5 us\n' \
	>"$A/71/fdinfo/3"
timeout -s KILL 30 $TOP -b -n 1 -p "$A" >"$T/amd.out" 2>"$T/e"
t "warnings: a drm- key with a wrong unit is one malformed line" \
	has "$T/amd.out" "drmtop: refresh 1: 2 clients, 1 malformed fdinfo lines"

# --- what processes control: names escaped in every output mode ---
# Each comm, driver, device, engine and region name below is shown with
# control characters (C0, DEL, C1) and invalid UTF-8 bytes as \xNN and a
# backslash as \\ in text; JSON escapes as \u00XX and turns invalid bytes
# into U+FFFD; Prometheus label values hold the text form.
# no_ctl FILE: valid UTF-8 without control characters but newlines
no_ctl() {
	python3 -c '
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8")
bad = [c for c in t if c != "\n" and (ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f)]
sys.exit(1 if bad else 0)' "$1" 2>/dev/null
}
H=$T/hostile
hpid() { # pid comm(printf format) client-id driver pdev engine region
	mkdir -p "$H/$1/fd" "$H/$1/fdinfo"
	printf "$2\n" >"$H/$1/comm"
	ln -s /dev/dri/renderD128 "$H/$1/fd/3"
	printf "drm-driver:\t$4\ndrm-client-id:\t$3\ndrm-pdev:\t$5\n" >"$H/$1/fdinfo/3"
	printf "drm-engine-$6:\t100 ns\ndrm-total-$7:\t4 KiB\n" >>"$H/$1/fdinfo/3"
}
hpid 300 '\033]0;pwned\007' 30 simgpu 0000:00:05.0 rcs vram0
hpid 301 'a\nb"c\\d' 31 simgpu 0000:00:05.0 rcs vram0
hpid 302 '\302\2332J\233' 32 simgpu 0000:00:05.0 'r\302\205s' 'v\377ram'
hpid 303 'caf\303\251 \345\233\276\345\275\242' 33 simgpu 0000:00:05.0 rcs vram0
hpid 304 '\377\300\257\355\240\200\345\233' 34 '\033[2Jevil' '0000:00:05.0\033[H' rcs vram0
LC_ALL=C.UTF-8 timeout -s KILL 30 $TOP -b -n 1 -p "$H" >"$T/hb" 2>"$T/e"
rc=$?
t "escape batch: exit 0, 5 clients (exit $rc)" \
	test $rc -eq 0 -a "$(grep -c 'client=3' "$T/hb")" -eq 5
t "escape batch: no sanitizer report" clean "$T/e"
t "escape batch: valid UTF-8 without control characters" no_ctl "$T/hb"
while IFS='|' read -r what text; do
	t "escape batch: $what" has "$T/hb" "$text"
done <<'EOM'
ESC and BEL of an OSC sequence as \xNN|client=30 pids=300 comm=\x1b]0;pwned\x07 rcs=
newline as \x0a, backslash doubled, quote kept|client=31 pids=301 comm=a\x0ab"c\\d rcs=
C1 CSI and a lone 0x9b byte|client=32 pids=302 comm=\xc2\x9b2J\x9b r\xc2\x85s=
C1 and invalid byte in engine and region names| r\xc2\x85s=- mem.v\xffram=4.0K
valid UTF-8 kept in a UTF-8 locale|client=33 pids=303 comm=café 图形 rcs=
overlong, surrogate, truncated and 0xff bytes|comm=\xff\xc0\xaf\xed\xa0\x80\xe5\x9b rcs=
CSI in the driver and the device name|0000:00:05.0\x1b[H \x1b[2Jevil client=34
EOM
LC_ALL=C timeout -s KILL 30 $TOP -b -n 1 -p "$H" >"$T/hbc" 2>"$T/e"
t "escape batch: bytes >= 0x80 as \\xNN in the C locale" has "$T/hbc" \
	'comm=caf\xc3\xa9 \xe5\x9b\xbe\xe5\xbd\xa2 rcs='
t "escape batch: C locale output is ASCII without control characters" \
	test -z "$(LC_ALL=C tr -d '\n -~' <"$T/hbc")"

timeout -s KILL 30 $TOP --json -n 1 -p "$H" >"$T/hj" 2>"$T/e"
rc=$?
t "escape json: exit 0 (exit $rc)" test $rc -eq 0
t "escape json: valid UTF-8 without control characters" no_ctl "$T/hj"
t "escape json: valid UTF-8 passes through byte for byte" \
	has "$T/hj" '"comm":"café 图形"'
t "escape json: C1 as \\u009b, invalid bytes as \\ufffd each, never \\u00XX" \
	test -n "$(grep -F '"comm":"\u009b2J\ufffd"' "$T/hj")" -a \
	-z "$(grep -F '\u00c' "$T/hj")"
python3 - "$T/hj" >"$T/py" 2>&1 <<'EOPY'
import json, sys
rows = {r["client_id"]: r for r in map(json.loads, open(sys.argv[1], "rb"))
        if r["record"] == "client"}
def comm(i):
    return rows[i]["fds"][0]["comm"]
assert comm(30) == "\x1b]0;pwned\x07", comm(30)
assert comm(31) == 'a\nb"c\\d', comm(31)
assert comm(32) == "\x9b2J\ufffd", comm(32)
assert list(rows[32]["engines"]) == ["r\x85s"], rows[32]["engines"]
assert list(rows[32]["memory"]) == ["v\ufffdram"], rows[32]["memory"]
assert comm(33) == "caf\u00e9 \u56fe\u5f62", comm(33)
assert comm(34) == "\ufffd" * 8, comm(34)
assert rows[34]["driver"] == "\x1b[2Jevil", rows[34]["driver"]
assert rows[34]["pdev"] == "0000:00:05.0\x1b[H", rows[34]["pdev"]
print("json ok")
EOPY
t "escape json: names decode to the original text, U+FFFD for bad bytes" \
	has "$T/py" "json ok"
grep -v 'json ok' "$T/py" | sed 's/^/# /'

timeout -s KILL 30 $TOP --prometheus -C -n 1 -p "$H" -o "$T/h.prom" >/dev/null 2>"$T/e"
rc=$?
t "escape prometheus: exit 0 (exit $rc)" test $rc -eq 0
t "escape prometheus: valid UTF-8 without control characters" no_ctl "$T/h.prom"
python3 - "$T/h.prom" "$T/hb" >"$T/py" 2>&1 <<'EOPY'
import re, sys
val = r'"((?:[^"\\\n]|\\[\\"n])*)"'
line = re.compile(r'^[a-z_]+(?:\{((?:[a-z_]+=' + val + r',?)+)\})? [0-9.]+$')
lab = re.compile(r'([a-z_]+)=' + val)
unesc = lambda v: re.sub(r'\\(.)', lambda m: "\n" if m[1] == "n" else m[1], v)
comms = set()
for l in open(sys.argv[1], encoding="utf-8").read().splitlines():
    if l.startswith("#"):
        continue
    assert line.match(l), l
    for k, v in lab.findall(l):
        if k == "comm":
            comms.add(unesc(v))
batch = open(sys.argv[2], encoding="utf-8").read()
for c in comms:
    assert " comm=" + c + " " in batch, c
assert "\\x1b]0;pwned\\x07" in comms, comms
assert 'a\\x0ab"c\\\\d' in comms, comms
assert len(comms) == 5, comms
print("prom ok")
EOPY
t "escape prometheus: label values well formed, hold the batch text" \
	has "$T/py" "prom ok"
grep -v 'prom ok' "$T/py" | sed 's/^/# /'
t "escape prometheus: ESC in a label" has "$T/h.prom" 'comm="\\x1b]0;pwned\\x07"'
t "escape prometheus: newline, quote, backslash in a label" \
	has "$T/h.prom" 'comm="a\\x0ab\"c\\\\d"'

# drm-fdinfo-check: messages quote keys, values and file names escaped
E=$(printf '\033')
printf 'drm-driver:\tsimgpu\ndrm-pdev:\t\033[2J\ndrm-caf\303\251:\t1\n' >"$T/h$E[2J.txt"
printf 'drm-engine-r\302\233s:\t5 us\ndrm-foo\377:\t1\n' >>"$T/h$E[2J.txt"
$CHK "$T/h$E[2J.txt" >"$T/c.out" 2>"$T/c.err"
rc=$?
t "escape check: exit 1 (exit $rc)" test $rc -eq 1
t "escape check: messages are valid UTF-8 without control characters" \
	no_ctl "$T/c.out"
while IFS='|' read -r what text; do
	t "escape check: $what" has "$T/c.out" "$text"
done <<'EOM'
file name escaped|h\x1b[2J.txt: line 2:
CSI in a value|line 2: drm-pdev: '\x1b[2J' is not a PCI address
valid UTF-8 in a key kept|line 3: 'drm-café' is not a key of drm-usage-stats
C1 in a key|line 4: drm-engine-r\xc2\x9bs: unit 'us' is not allowed
invalid byte in a key|line 5: 'drm-foo\xff' is not a key of drm-usage-stats
EOM
hctr() { # cycles
	printf 'drm-driver:\tsimgpu\ndrm-cycles-r\302\233s:\t%s\n' "$1"
	printf 'drm-total-cycles-r\302\233s:\t%s\n' "$1"
}
mkfifo "$T/hctr"
(timeout -s KILL 20 sh -c "printf '%s\n' \"$(hctr 200)\" >$T/hctr; sleep 0.1;
	printf '%s\n' \"$(hctr 100)\" >$T/hctr") &
timeout -s KILL 30 $CHK -q --interval 0.3 "$T/hctr" >"$T/c.out" 2>&1
wait
t "escape check: counter name escaped in --interval messages" has "$T/c.out" \
	'line 2: drm-cycles-r\xc2\x9bs went backwards: 200 -> 100'
t "escape check: --interval messages without control characters" \
	no_ctl "$T/c.out"

# --- what a test tree controls: endless files and FIFOs ---
# Plain builds under a memory limit (the sanitizers need more address
# space): at most 64 KiB of a file are read, a FIFO without a writer is
# waited for 2 seconds, not forever.
Z=$T/zero
mkdir -p "$Z/42/fdinfo" "$Z/43/fdinfo"
ln -s /dev/zero "$Z/42/fdinfo/3"
mkfifo "$Z/43/fdinfo/3"
(ulimit -v 400000; exec timeout -s KILL 20 ./drm-fdinfo-check -p "$Z" 42:3) \
	>"$T/c.out" 2>&1
rc=$?
t "cap check: /dev/zero as fdinfo: exit 1, no hang (exit $rc)" test $rc -eq 1
t "cap check: says that only 64 KiB were checked" has "$T/c.out" \
	"42:3: line 0: more than 65536 bytes: the rest is not checked"
(ulimit -v 400000; exec timeout -s KILL 20 ./drm-fdinfo-check -p "$Z" 43:3) \
	>"$T/c.out" 2>&1
rc=$?
t "cap check: FIFO without a writer: exit 1, no hang (exit $rc)" test $rc -eq 1
t "cap check: FIFO without a writer reported" has "$T/c.out" \
	"43:3: line 0: cannot read $Z/43/fdinfo/3: nothing to read"

cp -r "$P/201" "$P/204" "$Z/"
mkdir -p "$Z/44/fd" "$Z/44/fdinfo" "$Z/45/fd" "$Z/45/fdinfo" "$Z/46/fd" \
	"$Z/46/fdinfo" "$Z/42/fd" "$Z/43/fd"
echo zero >"$Z/42/comm"
echo fifo >"$Z/43/comm"
echo big >"$Z/44/comm"
mkfifo "$Z/45/comm"
echo fifo2 >"$Z/46/comm"
for p in 42 43 44 45 46; do ln -s /dev/dri/renderD128 "$Z/$p/fd/3"; done
printf 'drm-driver:\tsimgpu\ndrm-client-id:\t44\ndrm-engine-rcs:\t1 ns\n' \
	>"$Z/44/fdinfo/3"
truncate -s 2G "$Z/44/fdinfo/3"
printf 'drm-driver:\tsimgpu\ndrm-client-id:\t45\n' >"$Z/45/fdinfo/3"
mkfifo "$Z/46/fdinfo/3"
exec 9<>"$Z/46/fdinfo/3"	# a writer that never writes
(ulimit -v 400000; exec timeout -s KILL 30 ./drmtop -b -n 1 -p "$Z") \
	>"$T/z" 2>&1
rc=$?
exec 9>&-
t "cap drmtop: /dev/zero, 2 GiB file, FIFOs: exit 0, no hang (exit $rc)" \
	test $rc -eq 0
t "cap drmtop: 2 GiB fdinfo: its first 64 KiB read" has "$T/z" \
	"renderD128 simgpu client=44 pids=44 comm=big rcs=-"
t "cap drmtop: the rest counts as a malformed line" has "$T/z" \
	", 1 malformed fdinfo lines"
t "cap drmtop: a FIFO as comm gives '?'" has "$T/z" "client=45 pids=45 comm=?"
t "cap drmtop: the other clients are listed" test \
	"$(grep -c 'client=7 pids=201 \|client=5 pids=204 ' "$T/z")" -eq 2

# --- what users of other drivers see: i915 and panfrost (profiling off) ---
# tests/proc-tree.py "engines" writes their fdinfo files; "feed" advances
# the i915 client's counters every 0.1 s until DIR/stop exists.
EN=$T/eng
# fed_wait DIR: until the feeder has written its second sample
fed_wait() {
	i=0
	rm -f "$1/step"
	while [ "$(cat "$1/step" 2>/dev/null || echo 0)" -lt 2 ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}
python3 tests/proc-tree.py engines "$EN"
rm -f "$EN/stop"
python3 tests/proc-tree.py feed "$EN" &
fed_wait "$EN"
timeout -s KILL 60 $TOP -b -n 2 -d 0.3 -p "$EN" >"$T/eng.batch" 2>"$T/e"
rc=$?
touch "$EN/stop"
wait
t "engines batch: exit 0 (exit $rc)" test $rc -eq 0
t "engines batch: a first sample has no value yet ('-')" \
	grep -q '^0000:00:02.0 i915 .* video-enhance=- ' "$T/eng.batch"
t "engines batch: no counter at all is 'n/a', from the first sample on" \
	test "$(grep -c 'comm=glmark2 fragment=n/a vertex-tiler=n/a' "$T/eng.batch")" -eq 2
t "engines batch: video-enhance and video per capacity" \
	grep -q 'video=50.0% video-enhance=40.0% compute=0.0%' "$T/eng.batch"

./drmtop-bench --make-tree "$T/bench2" --pids 5 --fds 2 --dup

# --- interactive mode: smoke test in a pseudo terminal ---
if command -v script >/dev/null 2>&1; then
	(sleep 1; printf '>'; sleep 0.3; printf 'h'; sleep 0.3; printf 'x';
	 sleep 0.3; printf 'r '; sleep 0.3; printf 'fcomm=hot\n'; sleep 0.5;
	 printf 'q') | TERM=vt100 timeout -s KILL 30 script -qfec \
		"stty cols 120 rows 30; $TOP -p $T/bench2 -d 0.2 2>$T/tui.err" \
		"$T/tui.log" >/dev/null 2>&1
	rc=$?
	t "drmtop tui: runs, sorts, helps, filters and quits with 'q' (exit $rc)" \
		test $rc -eq 0
	t "drmtop tui: screen shows the clients" has "$T/tui.log" "bench1001"
	t "drmtop tui: no sanitizer report" clean "$T/tui.err"
	(sleep 1; printf 'q') | LC_ALL=C.UTF-8 TERM=vt100 timeout -s KILL 30 \
		script -qfec "stty cols 120 rows 30; $TOP -p $H -d 0.2 2>$T/tui.err" \
		"$T/tuih.log" >/dev/null 2>&1
	rc=$?
	t "escape tui: exit 0 (exit $rc)" test $rc -eq 0
	t "escape tui: ESC shown as \\x1b" has "$T/tuih.log" '\x1b]0;pwned'
	t "escape tui: a name is cut before an escape, not in it" \
		lacks "$T/tuih.log" 'pwned\x0'
	t "escape tui: newline, quote and backslash" has "$T/tuih.log" 'a\x0ab"c\\d'
	t "escape tui: C1 and invalid bytes" has "$T/tuih.log" '\xc2\x9b2J\x9b'
	t "escape tui: valid UTF-8 kept" has "$T/tuih.log" 'café 图形'
	t "escape tui: CSI in the device and driver names" has "$T/tuih.log" \
		'0000:00:05.0\x1b[H (\x1b[2Jevil)'
	t "escape tui: no raw escape sequence of a name" \
		lacks "$T/tuih.log" "$(printf '\033]0;pwned')"
	t "escape tui: no sanitizer report" clean "$T/tui.err"
else
	ok "drmtop tui: # SKIP script(1) not available"
	ok "escape tui: # SKIP script(1) not available"
fi

# --- cgroups: a tree of services, a container and user sessions ---
# tests/proc-tree.py writes the tree, the sums drmtop must show of it
# (expected.json) and, with "feed", advances each client's counters by its
# duty every 0.1 s until DIR/stop exists: the figures are exact in any window.
CG=$T/cg
python3 tests/proc-tree.py make "$CG"
DEV="driver=\"simgpu\",device=\"0000:00:04.0\""
DB="$DEV,cgroup=\"/system.slice/db.service\""
GAME="$DEV,cgroup=\"/user.slice/user-1000.slice/user@1000.service/app.slice"
GAME="$GAME/app-game.scope\""
cg_feed() {
	rm -f "$CG/stop"
	python3 tests/proc-tree.py feed "$CG" &
	fed_wait "$CG"
}
cg_stop() { touch "$CG/stop"; wait; }
cg_feed
timeout -s KILL 60 $TOP --prometheus -n 4 -d 0.3 -p "$CG" >"$T/cg.prom" 2>"$T/e"
rc=$?
timeout -s KILL 60 $TOP --json -n 3 -d 0.3 -p "$CG" >"$T/cg.json" 2>>"$T/e"
rc=$((rc + $?))
timeout -s KILL 60 $TOP -b -n 2 -d 0.3 -p "$CG" --cgroup /user.slice >"$T/cg.batch" 2>>"$T/e"
rc=$((rc + $?))
cg_stop
t "cgroup: prometheus, json, batch exit 0 (exit $rc)" test $rc -eq 0
t "cgroup: no sanitizer report" clean "$T/e"
awk -v d="$T" '/^# HELP drm_clients /{n++} {print > (d "/cg" n ".prom")}' "$T/cg.prom"
while IFS='|' read -r what line; do
	t "cgroup prometheus: $what" has "$T/cg4.prom" "$line"
done <<EOM
clients per cgroup|drm_cgroup_clients{$DB} 2
processes per cgroup|drm_cgroup_processes{$DB} 2
utilisation per cgroup and class|drm_cgroup_engine_utilization_ratio{$DB,engine="rcs"} 0.250000
memory per cgroup|drm_cgroup_memory_bytes{$DB,region="vram0",kind="total"} 3145728
a shared client counts in its first process's cgroup|drm_cgroup_processes{$GAME} 2
the counter's type|# TYPE drm_cgroup_engine_seconds_total counter
EOM
t "cgroup prometheus: one seconds series per cgroup and class (5)" \
	test "$(grep -c '^drm_cgroup_engine_seconds_total{' "$T/cg4.prom")" -eq 5
t "cgroup prometheus: one gauge per cgroup and class, not per client" \
	test "$(grep -c '^drm_cgroup_engine_utilization_ratio{' "$T/cg4.prom")" -eq 5
# the counter only grows
python3 - "$T" >"$T/py" 2>&1 <<'EOPY'
import re, sys
d = sys.argv[1]
vals = []
for i in (1, 2, 3, 4):
    txt = open("%s/cg%d.prom" % (d, i)).read()
    m = re.search(r'^drm_cgroup_engine_seconds_total\{[^}]*'
                  r'cgroup="/system.slice/db.service"[^}]*\} (\S+)$', txt, re.M)
    vals.append(float(m[1]) if m else None)
# none before a client's second sample
assert vals[0] is None and None not in vals[1:], vals
assert vals[1:] == sorted(vals[1:]) and vals[3] > vals[1] > 0, vals
EOPY
t "cgroup prometheus: engine seconds never go back, and grow" test $? -eq 0
sed 's/^/# /' "$T/py"
if command -v promtool >/dev/null 2>&1; then
	promtool check metrics <"$T/cg4.prom" >"$T/pt" 2>&1
	rc=$?
	t "promtool check metrics: the cgroup series are valid and lint-clean (exit $rc)" \
		test $rc -eq 0 -a ! -s "$T/pt"
	sed 's/^/# /' "$T/pt"
else
	ok "promtool check metrics: cgroup series # SKIP promtool not installed"
fi
python3 - "$T/cg.json" "$CG/expected.json" >"$T/py" 2>&1 <<'EOPY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
exp = json.load(open(sys.argv[2]))["cgroups"]
cl = [r for r in rows if r["record"] == "client" and r["refresh"] == 3]
cg = {r["cgroup"]: r for r in rows if r["record"] == "cgroup" and r["refresh"] == 3}
assert len(cl) == 9 and all(r["cgroup"] for r in cl), cl
assert set(cg) == set(exp), (set(cg), set(exp))
for path, e in exp.items():
    r = cg[path]
    assert r["name"] == e["name"] and r["clients"] == e["clients"], r
    assert r["processes"] == e["processes"], r
    assert abs(r["engines"]["rcs"]["utilization"] - e["rcs"]) < 1e-6, r
    assert r["engines"]["rcs"]["engine_seconds"] > 0, r
    assert r["memory"]["vram0"]["total"] == e["vram0"] << 20, r
EOPY
t "cgroup json: each client's cgroup, a record per cgroup with the tree's sums" \
	test $? -eq 0
sed 's/^/# /' "$T/py"
t "cgroup batch: --cgroup /user.slice keeps the clients of the user's cgroups" \
	test "$(grep -c ' cgroup=/user.slice/' "$T/cg.batch")" -eq 6 -a \
	"$(grep -c ' cgroup=/system.slice' "$T/cg.batch")" -eq 0

# --- interactive mode: navigation over 300 clients, in tmux ---
# The pane is the terminal: capture-pane gives exactly what is on screen.
# 300 clients sorted by pid take 303 rows (blank, device, column header,
# clients); the title line is above them, the key line with "rows N-M of
# T" below.
if command -v tmux >/dev/null 2>&1; then
	./drmtop-bench --make-tree "$T/nav" --pids 300 --fds 1 >/dev/null
	TM="tmux -S $T/tmux.sock -f /dev/null"
	# wait_pane PATTERN: until the pane shows it (10 s), then capture it
	wait_pane() {
		i=0
		while [ $i -lt 100 ]; do
			$TM capture-pane -p >"$T/pane" 2>/dev/null
			grep -Eq -- "$1" "$T/pane" && return 0
			sleep 0.1
			i=$((i + 1))
		done
		sed 's/^/# pane: /' "$T/pane"
		return 1
	}
	# screen_ok LINES FIRST_PID: the pane has LINES lines, ends with the key
	# line and its indicator, and shows the clients of the rows it names,
	# from FIRST_PID on, consecutive, nothing past the indicator's rows
	screen_ok() {
		python3 - "$T/pane" "$1" "$2" <<'EOPY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
if lines and lines[-1] == "":
    lines.pop()
h, first = int(sys.argv[2]), int(sys.argv[3])
assert len(lines) == h, (len(lines), h)
m = re.search(r"rows (\d+)-(\d+) of (\d+)$", lines[-1].rstrip())
assert lines[-1].startswith("q quit") and m, lines[-1]
a, b, t = map(int, m.groups())
assert t == 303 and b - a + 1 == min(h - 2, t), (a, b, t)
pids = [int(re.match(r"\s+(\d+) bench", l)[1]) for l in lines
        if re.match(r"\s+\d+ bench", l)]
# content row r >= 4 is the client of pid 1000 + r - 4
assert pids == list(range(1000 + max(a, 4) - 4, 1000 + b - 3)), (a, b, pids)
assert pids[0] == first, (pids[0], first)
EOPY
	}
	$TM new-session -d -x 80 -y 24 "$TOP -p $T/nav -d 0.2 -s pid \
		2>$T/nav.err; echo \$? >$T/nav.rc"
	t "tui nav 80x24: starts at the first rows" wait_pane 'rows 1-22 of 303$'
	t "tui nav 80x24: 24 lines, indicator, the rows it names" screen_ok 24 1000
	# bench clients: 8 KiB total and 4 KiB resident "memory", 1 MiB total vram0
	t "tui mem: a column per region, totals" test -n \
		"$(grep -E '^ +PID COMM .* memory +vram0( |$)' "$T/pane")" -a -n \
		"$(grep -E '^ +1000 bench1000 .* 8\.0K +1\.0M *$' "$T/pane")"
	t "tui mem: the title says total" has "$T/pane" "mem total"
	$TM send-keys m
	t "tui mem: 'm' shows resident memory" wait_pane 'mem resident'
	t "tui mem: resident per region, '-' for a region without" \
		grep -Eq '^ +1000 bench1000 .* 4\.0K +- *$' "$T/pane"
	$TM send-keys m
	t "tui mem: 'm' again shows totals" wait_pane 'mem total'
	$TM send-keys End
	t "tui nav 80x24: End shows the last rows" wait_pane 'rows 282-303 of 303$'
	t "tui nav 80x24: the last client is on screen" screen_ok 24 1278
	t "tui nav 80x24: the last client is bench1299" has "$T/pane" " 1299 bench1299"
	$TM send-keys Home
	t "tui nav 80x24: Home goes back" wait_pane 'rows 1-22 of 303$'
	$TM send-keys NPage
	t "tui nav 80x24: PgDn scrolls a page" wait_pane 'rows 21-42 of 303$'
	t "tui nav 80x24: PgDn screen" screen_ok 24 1017
	$TM send-keys PPage
	t "tui nav 80x24: PgUp scrolls back" wait_pane 'rows 1-22 of 303$'
	$TM send-keys Home
	$TM send-keys -N 3 Down
	sleep 0.5
	$TM capture-pane -p -e >"$T/pane.e"
	t "tui nav 80x24: Down moves the selection bar to the 4th client" \
		test "$(grep -c "$(printf '\033')\[7m" "$T/pane.e")" -ge 2 -a \
		-n "$(grep "$(printf '\033')\[7m *1003 bench1003" "$T/pane.e")"
	$TM send-keys -N 25 Down
	t "tui nav 80x24: Down past the screen scrolls" wait_pane 'rows 11-32 of 303$'
	$TM send-keys h
	t "tui nav 80x24: help" wait_pane '^any key returns'
	t "tui nav 80x24: help names the navigation keys" has "$T/pane" "PgUp PgDn"
	t "tui nav 80x24: help fits" test "$(wc -l <"$T/pane")" -eq 24
	$TM send-keys x
	t "tui nav 80x24: any key leaves the help" wait_pane 'rows 11-32 of 303$'
	$TM resize-window -x 200 -y 50
	t "tui nav resize to 200x50: same first row, more rows" \
		wait_pane 'rows 11-58 of 303$'
	t "tui nav resize to 200x50: 50 lines, the rows it names" screen_ok 50 1007
	$TM send-keys End
	t "tui nav 200x50: End shows the last rows" wait_pane 'rows 256-303 of 303$'
	t "tui nav 200x50: the last client is on screen" screen_ok 50 1252
	$TM resize-window -x 80 -y 24
	t "tui nav resize back to 80x24: still at the end" \
		wait_pane 'rows 282-303 of 303$'
	t "tui nav resize back to 80x24: screen" screen_ok 24 1278
	$TM send-keys q
	i=0
	while [ ! -s "$T/nav.rc" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	t "tui nav: 'q' quits with status 0" test "$(cat "$T/nav.rc" 2>/dev/null)" = 0
	t "tui nav: no sanitizer report" clean "$T/nav.err"
	$TM kill-server 2>/dev/null

	# views: 2 processes of 3 clients each (8 KiB total, 1 MiB vram0 each)
	./drmtop-bench --make-tree "$T/views" --pids 2 --fds 3 >/dev/null
	$TM new-session -d -x 100 -y 24 "$TOP -p $T/views -d 0.2 -s pid \
		2>$T/views.err; echo \$? >$T/views.rc"
	t "tui views: starts in the client view, 6 clients" \
		wait_pane 'rows 1-9 of 9$'
	$TM send-keys v
	t "tui views: 'v' shows the process view" wait_pane 'view processes .*sort'
	t "tui views: one row per process, rows 1-5 of 5" \
		has "$T/pane" "rows 1-5 of 5"
	t "tui views: a process's 3 clients summed in one row" \
		grep -Eq '^ +1000 bench1000 +3 .* 24\.0K +3\.0M *$' "$T/pane"
	t "tui views: the title counts 6 clients" has "$T/pane" "clients 6 "
	$TM send-keys v
	t "tui views: 'v' again shows the device view" \
		wait_pane 'view devices .*sort'
	t "tui views: one device row summing its 6 clients" \
		grep -Eq '^ +all +\(device\) +6 .* 48\.0K +6\.0M *$' "$T/pane"
	$TM send-keys h
	t "tui views: help names 'v'" wait_pane 'v +view: clients'
	$TM send-keys x
	$TM send-keys v
	t "tui views: 'v' a third time shows the cgroup view" \
		wait_pane 'view cgroups .*sort'
	t "tui views: no cgroup known: one row '-' of 2 processes, 6 clients" \
		grep -Eq '^- +2 +6 .* 48\.0K +6\.0M *$' "$T/pane"
	$TM send-keys v
	t "tui views: 'v' a fourth time returns to the client view" \
		wait_pane 'rows 1-9 of 9$'
	t "tui views: client rows again" \
		grep -Eq '^ +1000 bench1000 .* 8\.0K +1\.0M *$' "$T/pane"
	$TM send-keys q
	i=0
	while [ ! -s "$T/views.rc" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	t "tui views: 'q' quits with status 0" \
		test "$(cat "$T/views.rc" 2>/dev/null)" = 0
	t "tui views: no sanitizer report" clean "$T/views.err"
	$TM kill-server 2>/dev/null

	# history: a client whose rcs counters a loop advances, first idle
	# then at 90%; the device view draws a sparkline of the last minute
	./drmtop-bench --make-tree "$T/hist" --pids 1 --fds 1 >/dev/null
	HF=$T/hist/1000/fdinfo/3
	# The feeder, in the background until $HF.stop exists: a sample every
	# 0.1 s, $HF.busy of its 1000 cycles busy. One process that does not
	# fork: a refresh that sees no new sample ends the graph there.
	hist_busy() { echo "$1" >"$HF.busy.tmp"; mv "$HF.busy.tmp" "$HF.busy"; }
	hist_busy 0
	python3 - "$HF" <<'EOPY' &
import os, sys, time
hf = sys.argv[1]
c, tot = 0, 0
while not os.path.exists(hf + ".stop"):
    c += int(open(hf + ".busy").read())
    tot += 1000
    with open(hf + ".tmp", "w") as f:
        f.write("drm-driver:\tsimgpu\ndrm-client-id:\t2\n"
                "drm-pdev:\t0000:00:04.0\ndrm-cycles-rcs:\t%d\n"
                "drm-total-cycles-rcs:\t%d\ndrm-total-memory:\t8 KiB\n"
                % (c, tot))
    os.rename(hf + ".tmp", hf)
    if tot == 1000:
        open(hf + ".started", "w").close()
    time.sleep(0.1)
EOPY
	# its first sample replaces drmtop-bench's before drmtop reads it
	i=0
	while [ ! -e "$HF.started" ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	# hist_line COLS LEVELS: the pane's rcs history line is COLS - 1
	# columns wide, its graph ends with LEVELS (a regex: idle, at most
	# one column that straddles the change, busy), no line is wider than
	# the pane
	hist_line() {
		python3 - "$T/pane" "$1" "$2" <<'EOPY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
w, levels = int(sys.argv[2]), sys.argv[3]
assert all(len(l) <= w for l in lines), max(len(l) for l in lines)
h = [l for l in lines if re.match(r"  rcs +", l)]
assert len(h) == 1, h
assert len(h[0]) == w - 1, (len(h[0]), w - 1)
graph = h[0][10:w - 8]
assert re.fullmatch(r" *" + levels, graph), graph
EOPY
	}
	for loc in C.UTF-8 C; do
		hist_busy 0
		$TM new-session -d -x 100 -y 24 "LC_ALL=$loc $TOP -p $T/hist \
			-d 0.3 2>$T/hist.err; echo \$? >$T/hist.rc"
		wait_pane 'rows 1-' >/dev/null
		$TM send-keys v v
		wait_pane 'view devices' >/dev/null
		# idle, then busy while the pane is looked at
		sleep 1.5
		hist_busy 900
		wait_pane '^  rcs .* 90\.0%$' >/dev/null
		if [ $loc = C ]; then
			t "tui history ($loc): ASCII sparkline, 99 of 100 cols" \
				hist_line 100 '_+[.,=+*-]?[#*]+'
		else
			t "tui history ($loc): block sparkline, 99 of 100 cols" \
				hist_line 100 '▁+[▂▃▄▅▆]?[█▇]+'
			$TM resize-window -x 150 -y 24
			sleep 0.8
			$TM capture-pane -p >"$T/pane"
			t "tui history ($loc): resized, 149 of 150 cols" \
				hist_line 150 '▁+[▂▃▄▅▆]?[█▇]+'
			$TM send-keys v
			wait_pane '^ +PID COMM' >/dev/null
			t "tui history ($loc): no history row outside the device view" \
				test -z "$(grep '^  rcs ' "$T/pane")"
		fi
		$TM send-keys q
		i=0
		while [ ! -s "$T/hist.rc" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		t "tui history ($loc): 'q' quits with status 0" \
			test "$(cat "$T/hist.rc" 2>/dev/null)" = 0
		t "tui history ($loc): no sanitizer report" clean "$T/hist.err"
		rm -f "$T/hist.rc"
		$TM kill-server 2>/dev/null
	done
	touch "$HF.stop"
	wait
	# i915's five engine classes and long names, panfrost without data
	rm -rf "$EN"
	python3 tests/proc-tree.py engines "$EN"
	python3 tests/proc-tree.py feed "$EN" &
	fed_wait "$EN"
	$TM new-session -d -x 80 -y 24 "LC_ALL=C.UTF-8 $TOP -p $EN -d 0.3 2>$T/en.err; \
		echo \$? >$T/en.rc"
	t "tui engines 80x24: busy engines shown first, percentages only" \
		wait_pane '^ +4000 media +50\.0% +40\.0% '
	t "tui engines 80x24: labels whole, capacity shown" \
		grep -Eq '^ +PID COMM +video×2 +video-enhance ' "$T/pane"
	t "tui engines 80x24: what does not fit is said" \
		has "$T/pane" "(+3 idle engines)"
	t "tui engines 80x24: no data is n/a" \
		grep -Eq '^ +4001 glmark2 .* n/a .* n/a ' "$T/pane"
	$TM resize-window -x 200 -y 50
	b='\[[| ]+\] +'	# a bar
	t "tui engines 200x50: all engines with their bars" wait_pane \
		"^ +4000 media +(${b}[0-9.]+% +){2}${b}50\.0% +${b}40\.0% +${b}0\.0% +36\.0M +0B"
	t "tui engines 200x50: region labels whole" \
		grep -Eq '^ +PID COMM .* system0 stolen-system0 *$' "$T/pane"
	$TM send-keys v v
	t "tui engines 200x50: history labels whole" \
		wait_pane '^  video-enhance +▄▄▄+ +40\.0%$'
	touch "$EN/stop"
	wait
	# counters that stop: '-' in the rows, and in the history's value,
	# whose graph ends where its values did
	t "tui engines 200x50: stopped counters: '-' in the rows" \
		wait_pane '^ +all \(device\) +1 +(\[ +\] +- +){5}'
	t "tui engines 200x50: stopped counters: the history agrees" \
		python3 - "$T/pane" <<'EOPY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
h = [l for l in lines if l.startswith("  video-enhance ")]
assert len(h) == 1, h
graph, value = h[0][:-7], h[0][-7:]
assert value.strip() == "-", value
assert graph.rstrip() != graph and graph.strip() != "video-enhance", graph
EOPY
	$TM send-keys q
	i=0
	while [ ! -s "$T/en.rc" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	t "tui engines: 'q' quits with status 0" test "$(cat "$T/en.rc" 2>/dev/null)" = 0
	t "tui engines: no sanitizer report" clean "$T/en.err"
	$TM kill-server 2>/dev/null
	# cgroups: the tree of tests/proc-tree.py fed at its duties; each
	# cgroup row must show the sums of the tree (its expected.json)
	rm -rf "$CG"
	python3 tests/proc-tree.py make "$CG"
	cg_feed
	# cg_pane VIEW: within 10 s, the pane shows what the tree says
	cg_pane() {
		i=0
		while [ $i -lt 50 ]; do
			$TM capture-pane -p >"$T/pane"
			python3 tests/proc-tree.py check "$T/pane" "$CG" "$1" \
				>"$T/cgcheck" && return 0
			sleep 0.2
			i=$((i + 1))
		done
		sed 's/^/# /' "$T/cgcheck"
		sed 's/^/# pane: /' "$T/pane"
		return 1
	}
	DPATH=4f1c2d3e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d
	DPATH=/system.slice/docker-$DPATH.scope
	# pane_width: the widest line of the pane
	pane_width() {
		awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' "$T/pane"
	}
	for size in 80x24 200x50; do
		$TM new-session -d -x ${size%x*} -y ${size#*x} "$TOP -p $CG \
			-d 0.3 2>$T/cgv.err; echo \$? >$T/cgv.rc"
		wait_pane 'rows 1-' >/dev/null
		$TM send-keys v
		t "tui cgroup $size: the process view has a cgroup column" \
			wait_pane '^ +PID COMM +CL +CGROUP '
		t "tui cgroup $size: each process's cgroup name" cg_pane processes
		$TM send-keys v v
		t "tui cgroup $size: 'v' a third time shows the cgroup view" \
			wait_pane 'view cgroups .*sort'
		t "tui cgroup $size: a row per cgroup with the tree's sums" \
			cg_pane cgroups
		t "tui cgroup $size: no line wider than the pane" \
			test "$(pane_width)" -le ${size%x*}
		# sorted busiest first: the container's row is selected
		t "tui cgroup $size: the selected row's full path" \
			test "$(sed -n '/^cgroup /{N;s/\n//;p}' "$T/pane" |
				sed 's/^cgroup //; s/q quit.*//; s/ *$//')" = "$DPATH"
		$TM send-keys C
		sleep 0.3
		$TM send-keys /user.slice Enter
		t "tui cgroup $size: 'C' filters by a cgroup's path" \
			wait_pane 'rows 1-5 of 5$'
		t "tui cgroup $size: the filter in the title" \
			has "$T/pane" "cgroup /user.slice"
		t "tui cgroup $size: only the user's cgroups" test -n \
			"$(grep '^session-3.scope' "$T/pane")" -a -z \
			"$(grep '^db.service' "$T/pane")"
		$TM send-keys c
		t "tui cgroup $size: 'c' clears it" wait_pane 'rows 1-8 of 8$'
		$TM send-keys v
		t "tui cgroup $size: 'v' a fourth time returns to the client view" \
			wait_pane 'clients 9  devices 1  delay'
		t "tui cgroup $size: the client view has the cgroup column" \
			cg_pane processes
		$TM send-keys q
		i=0
		while [ ! -s "$T/cgv.rc" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		t "tui cgroup $size: 'q' quits with status 0" \
			test "$(cat "$T/cgv.rc" 2>/dev/null)" = 0
		t "tui cgroup $size: no sanitizer report" clean "$T/cgv.err"
		rm -f "$T/cgv.rc"
		$TM kill-server 2>/dev/null
	done
	$TM new-session -d -x 200 -y 50 "$TOP -p $CG -d 0.3 --cgroup \
		/system.slice 2>$T/cgv.err; echo \$? >$T/cgv.rc"
	wait_pane 'rows 1-' >/dev/null
	$TM send-keys v v v
	t "tui cgroup: --cgroup /system.slice, its 3 cgroups" \
		wait_pane 'view cgroups +cgroup /system.slice '
	t "tui cgroup: --cgroup /system.slice rows" wait_pane 'rows 1-6 of 6$'
	$TM send-keys q
	cg_stop
	$TM kill-server 2>/dev/null

else
	ok "tui nav: # SKIP tmux not installed"
fi

# --- engine busyness from the PMU of a device, over a fake sysfs tree ---
# This host's perf_event_open() does not know the fake PMU type: ENOENT
# (or EACCES/EPERM where perf is not allowed). drmtop must say so in one
# line, once, and go on with fdinfo; the figures of a PMU that answers
# are tested by the unit tests, with perf_event_open() replaced.
S=$T/sys
mkdev() { # DEVICE MINOR: a platform device of simgpu with a render node
	mkdir -p "$S/devices/platform/$1/drm/renderD$2" "$S/class/drm" \
		"$S/dev/char" "$S/bus/platform/drivers/simgpu"
	ln -s ../../../bus/platform/drivers/simgpu "$S/devices/platform/$1/driver"
	ln -s ../../../$1 "$S/devices/platform/$1/drm/renderD$2/device"
	ln -s ../../devices/platform/$1/drm/renderD$2 "$S/class/drm/renderD$2"
	ln -s ../../devices/platform/$1/drm/renderD$2 "$S/dev/char/226:$2"
}
mkpmu() { # DEVICE NAME: simgpu's PMU under the device
	d=$S/devices/platform/$1/$2
	mkdir -p "$d/format" "$d/events" "$S/bus/event_source/devices"
	echo 4242 >"$d/type"
	echo 0 >"$d/cpumask"
	echo config:0-11 >"$d/format/event"
	echo config:12-19 >"$d/format/engine_instance"
	echo config:20-27 >"$d/format/engine_class"
	echo config:60-63 >"$d/format/gt"
	echo event=0x02 >"$d/events/engine-active-ticks"
	echo event=0x03 >"$d/events/engine-total-ticks"
	ln -s "../../../devices/platform/$1/$2" "$S/bus/event_source/devices/$2"
}
mkdev simgpu.0 128
mkpmu simgpu.0 simgpu_0
mkdev simgpu.1 129
mkpmu simgpu.1 "$(printf 'evil\033[2J')"
Q=$T/pmuproc
mkdir -p "$Q/60/fd" "$Q/60/fdinfo" "$Q/sys/kernel"
echo 2 >"$Q/sys/kernel/perf_event_paranoid"
echo app >"$Q/60/comm"
ln -s /dev/dri/renderD128 "$Q/60/fd/3"
printf 'drm-driver:\tsimgpu\ndrm-client-id:\t3\ndrm-engine-rcs:\t10 ns\n' >"$Q/60/fdinfo/3"
PMSG='engine header from PMU off'
timeout -s KILL 30 $TOP -b -n 6 -d 0.02 -p "$Q" -S "$S" >"$T/pb" 2>"$T/e"
rc=$?
sed 's/^/# /' "$T/e"
t "pmu batch: exit 0 (exit $rc)" test $rc -eq 0
t "pmu batch: no sanitizer report" clean "$T/e"
t "pmu batch: the client is on the device named by --sys-root" \
	test "$(grep -c '^simgpu.0 simgpu client=3 pids=60 comm=app rcs=' "$T/pb")" -eq 6
t "pmu batch: one line on stderr per PMU not read, once in 6 refreshes" \
	test "$(grep -c "^drmtop: PMU simgpu_0: .*, $PMSG\$" "$T/e")" -eq 1 -a \
	"$(grep -c "^drmtop: PMU evil.x1b.2J: .*, $PMSG\$" "$T/e")" -eq 1 -a \
	"$(wc -l <"$T/e")" -eq 2
t "pmu batch: a PMU name from sysfs is escaped" no_ctl "$T/e"
t "pmu batch: nothing of the PMUs on stdout" lacks "$T/pb" "PMU"

timeout -s KILL 30 $TOP --json -n 1 -p "$Q" -S "$S" >"$T/pj" 2>"$T/e"
rc=$?
t "pmu json: exit 0 (exit $rc)" test $rc -eq 0
python3 - "$T/pj" >"$T/py" 2>&1 <<'EOPY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["record"] for r in rows] == ["device", "device", "client",
                                      "cgroup"], rows
d = rows[0]
assert d["device"] == "simgpu.0" and d["driver"] == "simgpu", d
assert d["pmu"] == "simgpu_0" and d["engines"] == [], d
assert d["status"] in ("no-engines", "no-permission", "error"), d
assert d["message"].startswith("PMU simgpu_0: "), d
assert rows[1]["pmu"] == "evil\x1b[2J", rows[1]
assert rows[2]["device"] == "simgpu.0" and rows[2]["pids"] == [60], rows[2]
print("json ok")
EOPY
t "pmu json: a device record per PMU, status and message, before the client" \
	has "$T/py" "json ok"
grep -v 'json ok' "$T/py" | sed 's/^/# /'

timeout -s KILL 30 $TOP --prometheus -n 1 -p "$Q" -S "$S" >"$T/pp" 2>"$T/e"
rc=$?
t "pmu prometheus: exit 0 (exit $rc)" test $rc -eq 0
t "pmu prometheus: drmtop_engine_pmu_up 0" has "$T/pp" \
	'drmtop_engine_pmu_up{device="simgpu.0",driver="simgpu",pmu="simgpu_0"} 0'
t "pmu prometheus: HELP and TYPE of the engine metrics" has "$T/pp" \
	"# TYPE drmtop_engine_utilization_ratio gauge"
t "pmu prometheus: every sample line is well formed" \
	test -z "$(grep -v '^#' "$T/pp" |
		grep -Ev '^[a-z_]+(\{([a-z_]+="[^"]*",?)+\})? [0-9.]+$')"

$TOP -b -n 1 -p "$Q" -S "$T/nope" >/dev/null 2>"$T/e"
t "pmu: a missing --sys-root is an error (exit 1)" test $? -eq 1 -a -s "$T/e"
$TOP --help >"$T/h" 2>&1
t "pmu: --help documents --sys-root and the engine metrics" test \
	"$(grep -c 'sys-root\|drmtop_engine_active_ticks_total' "$T/h")" -ge 2

# The real perf_event_open() and group read: the software PMU (type 1)
# stands in, its events 2 and 3 (page faults, context switches) as active
# and total ticks; other classes, instances and gts have configs it
# answers with ENOENT. Skipped where perf is not allowed.
echo 1 >"$S/devices/platform/simgpu.0/simgpu_0/type"
timeout -s KILL 30 $TOP -b -n 2 -d 0.1 -p "$Q" -S "$S" >"$T/pl" 2>"$T/e"
rc=$?
if grep -q "PMU simgpu_0: no permission\|PMU simgpu_0: perf_event_open" "$T/e"; then
	ok "pmu live: # SKIP $(grep 'PMU simgpu_0' "$T/e")"
else
	t "pmu live: exit 0, no sanitizer report (exit $rc)" \
		test $rc -eq 0 -a -z "$(grep 'Sanitizer\|runtime error' "$T/e")"
	L='^simgpu.0 simgpu pmu=simgpu_0 rcs0=([0-9.]+%!?|-)$'
	t "pmu live: one engine, rcs0, before the client on each refresh" \
		test "$(grep -Ec "$L" "$T/pl")" -eq 2 -a \
		"$(sed -n '2p;5p' "$T/pl" | cut -d' ' -f3 | uniq)" = pmu=simgpu_0
fi
echo 4242 >"$S/devices/platform/simgpu.0/simgpu_0/type"

if command -v script >/dev/null 2>&1; then
	(sleep 1; printf 'q') | TERM=vt100 timeout -s KILL 30 script -qfec \
		"stty cols 80 rows 24; $TOP -p $Q -S $S -d 0.2 2>$T/tui.err" \
		"$T/tuip.log" >/dev/null 2>&1
	rc=$?
	t "pmu tui: exit 0 (exit $rc)" test $rc -eq 0
	t "pmu tui: says in one line that the PMU is not read" \
		grep -q "PMU simgpu_0: .*, $PMSG" "$T/tuip.log"
	t "pmu tui: the device without a client is shown for its PMU" \
		has "$T/tuip.log" 'PMU evil\x1b[2J: '
	t "pmu tui: the client is listed" has "$T/tuip.log" "app"
	t "pmu tui: no sanitizer report" clean "$T/tui.err"
	rm "$S/devices/platform/simgpu.0/simgpu_0/events/engine-total-ticks"
	rm -r "$S/devices/platform/simgpu.1"
	(sleep 1; printf 'q') | TERM=vt100 timeout -s KILL 30 script -qfec \
		"stty cols 80 rows 24; $TOP -p $Q -S $S -d 0.2 2>$T/tui.err" \
		"$T/tuin.log" >/dev/null 2>&1
	t "pmu tui: a PMU without engine-total-ticks is no PMU, said in one line" \
		has "$T/tuin.log" "no PMU with engine-active-ticks for simgpu.0"
else
	ok "pmu tui: # SKIP script(1) not available"
fi

# --- bench helper on 1000 pids x 2 DRM fds ---
./drmtop-bench --make-tree "$T/bench" --pids 1000 --fds 2
t "bench: fake tree of 1000 pids created" test "$(ls "$T/bench" | wc -l)" -eq 1000
# Only that the bench works: its ratios are figures for "make bench",
# never pass/fail criteria of a test.
./drmtop-bench -p "$T/bench" -r 2 >"$T/bench.out" 2>&1
sed 's/^/# /' "$T/bench.out"
t "bench: prints the refresh/read ratio line" \
	grep -Eq '^bench: drmtop_refresh_vs_read ratio=[0-9.]+ target=<=1$' "$T/bench.out"
t "bench: prints the idle/full discovery ratio line" grep -Eq \
	'^bench: drmtop_idle_refresh_vs_full_discovery ratio=[0-9.]+ target=<=0.3$' \
	"$T/bench.out"
t "bench: prints the dearest refresh/median line" grep -Eq \
	'^bench: drmtop_max_refresh_vs_median ratio=[0-9.]+ target=<=1.5$' \
	"$T/bench.out"
t "bench: prints the interactive/batch line" grep -Eq \
	'^bench: drmtop_interactive_vs_batch ratio=[0-9.]+ target=<=1.1$' \
	"$T/bench.out"

echo "1..$n"
[ $fail -eq 0 ] || { echo "# $fail of $n tests failed"; exit 1; }
rm -rf "$T"
exit 0
