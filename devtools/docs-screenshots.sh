#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# docs-screenshots.sh HTML OUT PAGE...: pictures of each PAGE (a path under
# the HTML output directory of make docs) in OUT, taken by headless
# Chromium: the whole page, cut into 1280x1600 tiles NAME-1.png, NAME-2.png
# ... (an image viewer shrinks a taller one past reading).
set -eu
html=$(cd "$1" && pwd) out=$2
shift 2
mkdir -p "$out"
rm -f "$out"/*.png
for p in "$@"; do
	name=$(echo "$p" | sed 's|/|-|g; s|\.html$||')
	# --no-sandbox: Chromium's sandbox refuses to run as root
	chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=1280,40000 --screenshot="$out/$name.full.png" \
		"file://$html/$p" > "$out/chromium.log" 2>&1 ||
		{ cat "$out/chromium.log"; exit 1; }
	/usr/bin/python3 - "$out/$name.full.png" "$out/$name" <<'PY'
import sys
from PIL import Image, ImageOps

full, name = sys.argv[1], sys.argv[2]
im = Image.open(full).convert("RGB")
# the page ends where the last non-white row is
box = ImageOps.invert(im.convert("L")).getbbox()
bottom = box[3] if box else 1
n = 0
for top in range(0, bottom, 1600):
    n += 1
    im.crop((0, top, im.width, min(top + 1600, bottom))).save(f"{name}-{n}.png")
    print(f"screenshot: {name}-{n}.png")
PY
	rm -f "$out/$name.full.png"
done
