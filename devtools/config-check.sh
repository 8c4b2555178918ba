#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# config-check.sh FRAGMENT CONFIG: every option of FRAGMENT took effect.
set -eu
bad=0
grep -E '^CONFIG_[A-Z0-9_]+=' "$1" | while IFS== read -r opt val; do
	if [ "$val" = n ]; then
		! grep -q "^$opt=" "$2" || { echo "config: $opt is set, want n"; exit 1; }
	elif ! grep -qx "$opt=$val" "$2"; then
		echo "config: $opt=$val did not take effect (dependency missing?)"
		exit 1
	fi
done || bad=1
exit $bad
