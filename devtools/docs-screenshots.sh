#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# docs-screenshots.sh HTML OUT PAGE...: a PNG of each PAGE (a path under the
# HTML output directory of make docs, optionally with a #anchor) in OUT,
# taken by headless Chromium; simgpu's page also at its uAPI section.
set -eu
html=$1 out=$2
shift 2
mkdir -p "$out"
for p in "$@"; do
	case $p in
	gpu/simgpu.html) set -- "$@" "$p#uapi" ;;
	esac
done
for p in "$@"; do
	png=$out/$(echo "$p" | sed 's|/|-|g; s|\.html||; s|#|-|').png
	rm -f "$png"
	# --no-sandbox: Chromium's sandbox refuses to run as root
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=1280,1600 --screenshot="$png" \
		"file://$html/$p" > "$out/chromium.log" 2>&1 ||
		{ cat "$out/chromium.log"; exit 1; }
	test -s "$png"
	echo "screenshot: $png"
done
