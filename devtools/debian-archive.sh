# SPDX-License-Identifier: GPL-2.0-only
#
# debian-archive.sh, sourced: debian_archive sets uri and keyring to the
# machine's own Debian archive entry as apt sees it, its URI and its
# keyring (Signed-By, deb822 or one-line, else Debian's), and security_uri
# to its security archive's URI (or nothing), so that other Debian suites
# are reached through the mirrors and keys the machine already trusts: no
# mirror is named here. It returns 1, with uri empty, where the machine's
# apt sources name no Debian archive.
debian_archive() {
	local entry src file
	entry=$(apt-get indextargets 'Identifier: Packages' 'Label: Debian' \
		--format '$(REPO_URI) $(SOURCESENTRY)' 2>/dev/null | head -n 1)
	uri=${entry%% *}
	security_uri=$(apt-get indextargets 'Identifier: Packages' \
		'Label: Debian-Security' --format '$(REPO_URI)' 2>/dev/null |
		head -n 1)
	keyring=
	[ -n "$uri" ] || return 1
	src=${entry#* }
	file=${src%:*}
	keyring=$(sed -n 's/^Signed-By: *//p; s/.*signed-by=\([^] ]*\).*/\1/p' \
		"$file" 2>/dev/null | head -n 1)
	[ -n "$keyring" ] || keyring=/usr/share/keyrings/debian-archive-keyring.gpg
}
