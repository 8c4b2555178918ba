# SPDX-License-Identifier: GPL-2.0-only
#
# simgpu: a kernel patch series kept as an overlay of a Linux 7.2 tree.
#
#   make run          build, boot simgpu in UML and x86_64, run a load, show
#                     fdinfo, drmtop and perf stat of the PMU
#   make check        every test and static check; last line "N passed, N failed"
#   make vm-run CMD='...' [BOOTARGS='...']
#   make qemu-run CMD='...' [BOOTARGS='...']  the same in an x86_64 SMP guest
#   make qemu-debug-run CMD='...'  ... whose kernel has KASAN, lockdep, kmemleak
#   make series       the series to send, one directory each, in build/series/
#   make stack        git am every series into build/stack (a git tree)
#   make series-absorb  take edits of new files into the patches that added them
#   make series-squash  fold fixup! commits of build/stack, then export
#   make series-export  write build/stack back to series/ and the new files
#   make series-check build and run KUnit after each patch of the series
#   make bench        benchmarks, one "bench: ..." line per figure
#   make fuzz [SEED=n] [SECONDS=s]  the uAPI fuzzer in the VM
#   make docs         the rendered pages of our documentation in build/docs/
#   make dkms-src     the DKMS source tree of simgpu, for stock kernels
#   make dkms-check   build it against Debian's 6.12 headers and our kernel
#   make deb          Debian packages simgpu-dkms and simgpu-tools in build/deb/
#
# KERNEL_SRC=/path/to/linux uses your own (clean) tree instead of Debian's
# linux-source-7.2.

REPO		:= $(CURDIR)
# The base: Debian's linux-source-$(BASE), from the machine's apt sources
# or Debian's unstable suite (devtools/fetch-base.sh).
BASE		:= 7.2
# TREE holds series/ and the files the series add.
TREE		:= $(REPO)
BUILD		:= $(REPO)/build
BASE_PKG	:= linux-source-$(BASE)
BASE_DIR	:= $(REPO)/.base
ifeq ($(KERNEL_SRC),)
KERNEL_SRC	:= $(BASE_DIR)/$(BASE_PKG)
FETCH_BASE	:= $(KERNEL_SRC)/Makefile
endif
SRC		:= $(BUILD)/src
UML_OUT		:= $(BUILD)/uml
KUNIT_OUT	:= $(BUILD)/kunit
BIN		:= $(BUILD)/bin
JOBS		?= $(shell nproc)
KMAKE		:= $(MAKE) -s -C $(SRC) O=$(UML_OUT) ARCH=um -j$(JOBS)
VMLINUX		:= $(UML_OUT)/linux

HOST_PKGS	:= build-essential bc bison flex libelf-dev libssl-dev \
		   libncurses-dev pkg-config python3 git patch sparse \
		   coccinelle perl valgrind rsync kmod qemu-system-x86 \
		   gcc-s390x-linux-gnu gcc-i686-linux-gnu linux-perf
# Debian's own kernel images boot with a busybox-static initramfs
# (devtools/stock-kernel.sh); unstable's 7.2 headers are used in a root of
# unstable (devtools/debian-root.sh).
HOST_PKGS	+= busybox-static cpio mmdebstrap
# The drmtop host tests: promtool checks its Prometheus output, tmux drives
# its interactive view.
HOST_PKGS	+= prometheus tmux
# The docs build (make docs, make check): Sphinx and what the kernel's
# Documentation/sphinx/requirements.txt asks for, from Debian.
HOST_PKGS	+= python3-sphinx python3-alabaster python3-yaml
# The series: git-absorb finds the patch an edit belongs to; b4 is
# dri-devel's tool to send and fetch series (b4 send, b4 am).
HOST_PKGS	+= git-absorb b4
# drmtop's unit tests under clang's UBSan, which checks every bool load.
HOST_PKGS	+= clang
# llvm-ar, to build perf from the base tree (make perf).
HOST_PKGS	+= llvm

export REPO TREE BUILD SRC UML_OUT KUNIT_OUT BIN JOBS KERNEL_SRC \
	VMLINUX BZIMAGE BZIMAGE_DEBUG

.PHONY: all run check vm-run kernel src deps base tools series series-check \
	stack series-export series-absorb series-squash series-each \
	bench qemu-kernel qemu-run qemu-debug-kernel qemu-debug-run kunit \
	headers clean distclean help fuzz docs docs-screenshots perf perf-drm \
	dkms-src dkms-check deb

all: kernel tools

help:
	@sed -n '3,25p' Makefile | sed 's/^# \{0,1\}//'

# --- host packages -----------------------------------------------------------
# install-pkgs STAMP, PACKAGES: install what is missing (as root), then touch
# the stamp.
define install-pkgs
	@missing=""; \
	for p in $(2); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | \
			grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "deps: installing$$missing"; \
			apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
				$$missing >/dev/null || exit 1; \
		else \
			echo "deps: missing packages, run as root:"; \
			echo "  apt-get install$$missing"; \
			exit 1; \
		fi; \
	fi
	@mkdir -p $(BUILD) && touch $(1)
endef

# A failed recipe leaves no target behind (a .config that failed its
# check, say).
.DELETE_ON_ERROR:

# The stamp is redone when the package lists here change.
deps: $(BUILD)/.deps
$(BUILD)/.deps: $(REPO)/Makefile
	$(call install-pkgs,$@,$(HOST_PKGS))

# --- base kernel -------------------------------------------------------------
base: $(FETCH_BASE)
	@echo "base: Linux $$($(MAKE) -s -C $(KERNEL_SRC) kernelversion) from $(KERNEL_SRC)"

ifneq ($(FETCH_BASE),)
$(FETCH_BASE): | $(BUILD)/.deps
	@$(REPO)/devtools/fetch-base.sh $(BASE_PKG) $(BASE_DIR)
	@test -f $@
endif

# --- the overlaid tree and the UML kernel ------------------------------------
src: base
	@$(REPO)/devtools/prepare-src.sh $(KERNEL_SRC) $(SRC) $(TREE)

$(UML_OUT)/.config: $(REPO)/devtools/uml.config | src
	@$(REPO)/devtools/make-config.sh $(SRC) $(UML_OUT) um defconfig $^

kernel: src $(UML_OUT)/.config
	@echo "  BUILD   $(VMLINUX)"
	@$(KMAKE) linux modules
	@$(KMAKE) modules_install INSTALL_MOD_PATH=$(UML_OUT)/mod >/dev/null

# --- userspace: the tools, the load generator, selftests ---------------------
# Each directory builds with "make -C DIR OUTPUT=$(BIN)/ MANDIR=$(BUILD)/man"
# into $(BIN), and its man page, if it has one, into $(BUILD)/man.
USER_DIRS	:= tools/gpu/simgpu-load tools/gpu/simgpu-perf
DRMTOP		:= $(REPO)/tools/gpu/drmtop

# The selftests build as kselftests, in the overlaid tree, so that
# "make -C $(SRC)/tools/testing/selftests TARGETS=drivers/gpu/simgpu
# run_tests" in a VM (whose root is the host's, read-only) finds them up to
# date and only runs them. Their programs are copied to $(BIN) too.
KSFT_TARGET	:= drivers/gpu/simgpu
KSFT_DIR	:= $(SRC)/tools/testing/selftests/$(KSFT_TARGET)

# The uAPI headers of the overlaid tree, for userspace (kselftest style).
HDR		:= $(BUILD)/hdr/usr/include

tools: $(BIN)/vm-poweroff headers
	@$(MAKE) -s -C $(DRMTOP) all install bindir=$(BIN) \
		mandir=$(BUILD)/man >/dev/null
	@install -m 0755 $(DRMTOP)/drmtop-bench $(BIN)/
	@for d in $(USER_DIRS); do \
		[ ! -f $(TREE)/$$d/Makefile ] || \
		$(MAKE) -s -C $(TREE)/$$d OUTPUT=$(BIN)/ \
			MANDIR=$(BUILD)/man \
			KHDR_INCLUDES="-isystem $(HDR)" \
			TOOLS_INCLUDE=$(SRC)/tools/include || exit 1; \
	done
	@$(MAKE) -s -C $(SRC)/tools/testing/selftests TARGETS=$(KSFT_TARGET) \
		KHDR_INCLUDES="-isystem $(HDR)" >/dev/null
	@find $(KSFT_DIR) -maxdepth 1 -type f -name 'simgpu_*' \
		-exec install -m 0755 {} $(BIN)/ \;

headers: src
	@$(MAKE) -s -C $(SRC) O=$(BUILD)/hdr ARCH=x86 headers_install

$(BIN)/vm-poweroff: $(REPO)/devtools/poweroff.c
	@mkdir -p $(BIN)
	$(CC) -O2 -Wall -o $@ $<

# --- running things in the VM ------------------------------------------------
# CMD and BOOTARGS reach the script through the environment, so quotes in
# them need no escaping; as in any make variable, write $$ for a $.
export CMD BOOTARGS
vm-run: kernel tools
	@$(REPO)/devtools/vm-run.sh $(VMLINUX) $(BIN) "$$CMD" "$$BOOTARGS"

# The demo in both guests: UML (one CPU, no perf events), then the x86_64
# guest, where perf stat reads simgpu's PMU beside drmtop's engine header.
run: kernel qemu-kernel tools
	@echo "=== the UML guest"
	@$(REPO)/devtools/vm-run.sh $(VMLINUX) $(BIN) \
		'sh $(REPO)/devtools/demo.sh' "$$BOOTARGS"
	@echo "=== the x86_64 guest, two vCPUs, with perf events"
	@$(REPO)/devtools/vm-run.sh $(BZIMAGE) $(BIN) \
		'sh $(REPO)/devtools/demo.sh' "$$BOOTARGS"

# The uAPI fuzzer of the selftests, longer than in "make check" and with a
# new seed each time unless SEED is given: the seed it prints reproduces a
# failure (make fuzz SEED=<n>).
SEED		?= random
SECONDS		?= 120
fuzz: kernel tools
	@$(REPO)/devtools/vm-run.sh $(VMLINUX) $(BIN) \
		'simgpu_fuzz_test --seed $(SEED) --seconds $(SECONDS)' \
		"$$BOOTARGS"

# --- tests --------------------------------------------------------------------
# UML-only options, as arguments: the .kunitconfig stays arch-neutral
# (series-each.sh takes KUNIT_UML too). The larger stacks are for
# the host's XSAVE area in UML's signal frames (devtools/uml.config).
KUNIT_UML	:= --kconfig_add CONFIG_KERNEL_STACK_ORDER=4
KUNIT_FLAGS	:= --arch=um --kunitconfig=drivers/gpu/drm/simgpu/.kunitconfig \
		   --kunitconfig=drivers/gpu/drm/tests/.kunitconfig \
		   --build_dir=$(KUNIT_OUT) $(KUNIT_UML)
# The suites that run, one boot per glob (kunit.py takes one): simgpu's and,
# of the DRM core's, the ones of the series' changes: the drm_file.c helpers,
# the syncobj ioctls' handle counts and the seq_file printer. The other
# DRM core suites test code the series does not change, and any kernel
# warning of theirs would fail "make check".
KUNIT_GLOBS	:= simgpu* drm_memory_stats drm_syncobj drm_print
export KUNIT_FLAGS KUNIT_UML KUNIT_GLOBS

kunit: src
	cd $(SRC) && ./tools/testing/kunit/kunit.py build $(KUNIT_FLAGS) \
		--jobs=$(JOBS)
	cd $(SRC) && set -f && for g in $(KUNIT_GLOBS); do \
		./tools/testing/kunit/kunit.py exec $(KUNIT_FLAGS) "$$g" || \
			exit 1; \
	done

# The selftests on two CPUs run in the x86_64 guest with debugging options;
# the one without them is for the benchmarks only.
check: kernel qemu-debug-kernel tools perf $(BUILD)/.deps-deb
	@$(REPO)/devtools/check.sh

# --- the SMP guests: x86_64, two vCPUs, in QEMU ------------------------------
# build/x86, no debugging options: for the benchmarks (make bench) and
# make qemu-run.
X86_OUT		:= $(BUILD)/x86
XMAKE		:= $(MAKE) -s -C $(SRC) O=$(X86_OUT) ARCH=x86_64 -j$(JOBS)
BZIMAGE		:= $(X86_OUT)/arch/x86/boot/bzImage

$(X86_OUT)/.config: $(REPO)/devtools/x86_64.config | src
	@$(REPO)/devtools/make-config.sh $(SRC) $(X86_OUT) x86_64 tinyconfig $^

qemu-kernel: src $(X86_OUT)/.config
	@echo "  BUILD   $(BZIMAGE)"
	@$(XMAKE) bzImage

qemu-run: qemu-kernel tools
	@$(REPO)/devtools/vm-run.sh $(BZIMAGE) $(BIN) "$$CMD" "$$BOOTARGS"

# build/x86-debug, the same kernel with KASAN, lockdep, kmemleak and
# DEBUG_OBJECTS (x86_64-debug.config over x86_64.config) and simgpu as a
# module, installed in mod/ like UML's: for the selftests on two CPUs
# (make check) and make qemu-debug-run.
X86_DEBUG_OUT	:= $(BUILD)/x86-debug
XDMAKE		:= $(MAKE) -s -C $(SRC) O=$(X86_DEBUG_OUT) ARCH=x86_64 -j$(JOBS)
BZIMAGE_DEBUG	:= $(X86_DEBUG_OUT)/arch/x86/boot/bzImage

$(X86_DEBUG_OUT)/.config: $(REPO)/devtools/x86_64.config \
			  $(REPO)/devtools/x86_64-debug.config \
			  | src
	@$(REPO)/devtools/make-config.sh $(SRC) $(X86_DEBUG_OUT) x86_64 \
		tinyconfig $^

qemu-debug-kernel: src $(X86_DEBUG_OUT)/.config
	@echo "  BUILD   $(BZIMAGE_DEBUG)"
	@$(XDMAKE) bzImage modules
	@$(XDMAKE) modules_install INSTALL_MOD_PATH=$(X86_DEBUG_OUT)/mod \
		>/dev/null

qemu-debug-run: qemu-debug-kernel tools
	@$(REPO)/devtools/vm-run.sh $(BZIMAGE_DEBUG) $(BIN) "$$CMD" \
		"$$BOOTARGS"

# perf from the base tree, for its own DRM PMU (tools/perf/util/drm_pmu.c,
# 7.2 and later), which reads the fdinfo of every DRM client: make check
# compares it with simgpu's known load in the x86_64 debug guest
# (devtools/perf-drm.sh). Debian 12's ar aborts on perf's archives through
# the LLVMgold plugin; llvm-ar does not. Only what perf stat needs.
PERF_OUT	:= $(BUILD)/perf
PERF		:= $(PERF_OUT)/perf
PERF_OPTS	:= AR=llvm-ar NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBTRACEEVENT=1 \
		   NO_JEVENTS=1 NO_LIBBPF=1 NO_BPF_SKEL=1 NO_LIBDW=1 \
		   NO_LIBUNWIND=1 NO_SLANG=1 NO_GTK2=1 NO_LIBNUMA=1 NO_LIBCAP=1 \
		   NO_DEMANGLE=1 NO_LIBCRYPTO=1 NO_LIBZSTD=1 NO_LZMA=1 \
		   NO_AUXTRACE=1 NO_LIBBABELTRACE=1 NO_SDT=1 NO_JVMTI=1 \
		   NO_LIBLLVM=1 NO_CAPSTONE=1 NO_LIBPFM4=1 NO_SHELLCHECK=1
export PERF

perf: src
	@echo "  BUILD   $(PERF)"
	@mkdir -p $(PERF_OUT)
	@$(MAKE) -s -C $(SRC)/tools/perf O=$(PERF_OUT) $(PERF_OPTS) \
		> $(PERF_OUT)/build.log 2>&1 || \
		{ tail -n 30 $(PERF_OUT)/build.log; exit 1; }

# perf's DRM PMU against simgpu's load, in the x86_64 debug guest.
perf-drm: qemu-debug-kernel tools perf
	@$(REPO)/devtools/vm-run.sh $(BZIMAGE_DEBUG) $(BIN) \
		'sh $(REPO)/devtools/perf-drm.sh $(PERF)' "$$BOOTARGS"

# The benchmarks run twice: in the UML guest of the tests (one CPU, the
# debugging kernel; 1,000 processes holding simgpu fds need mem=1G) and in
# an x86_64 guest with two vCPUs and no debugging options, emulated by
# qemu. Each figure's name ends in @uml or @x86_64-smp2.
bench: kernel qemu-kernel tools
	@$(REPO)/devtools/vm-run.sh $(VMLINUX) $(BIN) \
		'sh $(REPO)/devtools/bench.sh uml' "mem=1G $$BOOTARGS"
	@$(REPO)/devtools/vm-run.sh $(BZIMAGE) $(BIN) \
		'sh $(REPO)/devtools/bench.sh x86_64-smp2' "$$BOOTARGS"

# --- documentation ----------------------------------------------------------
# The kernel's htmldocs of the directories our pages are in (Sphinx shares
# the machine: two jobs at most), incremental, into build/docs; its
# warnings, the base tree's included, are in build/docs/htmldocs.log
# (make check counts ours).
DOCS_OUT	:= $(BUILD)/docs
DOCS_HTML	:= $(DOCS_OUT)/Documentation/output
DOCS_DIRS	:= gpu translations/zh_CN
DOCS_PAGES	:= gpu/simgpu.html translations/zh_CN/gpu/drm-usage-stats.html \
		   translations/zh_CN/gpu/simgpu.html
export DOCS_DIRS

docs: src
	@echo "  DOCS    $(DOCS_DIRS)"
	@mkdir -p $(DOCS_OUT)
	@PYTHONDONTWRITEBYTECODE=1 $(MAKE) -s -C $(SRC) O=$(DOCS_OUT) htmldocs \
		SPHINXDIRS="$(DOCS_DIRS)" SPHINXOPTS="-j$(if $(filter 1,$(JOBS)),1,2) -q" \
		> $(DOCS_OUT)/htmldocs.log 2>&1 || \
		{ tail -n 20 $(DOCS_OUT)/htmldocs.log; exit 1; }
	@for p in $(DOCS_PAGES); do echo "docs: $(DOCS_HTML)/$$p"; done

# Screenshots of those pages with headless Chromium, which only this
# target installs (it is big; make check does not need it), with CJK fonts
# for the zh_CN pages.
SCREENSHOT_PKGS	:= chromium fonts-noto-cjk python3-pil
$(BUILD)/.deps-screenshots: $(REPO)/Makefile
	$(call install-pkgs,$@,$(SCREENSHOT_PKGS))

docs-screenshots: docs $(BUILD)/.deps-screenshots
	@$(REPO)/devtools/docs-screenshots.sh $(DOCS_HTML) \
		$(DOCS_OUT)/screenshots $(DOCS_PAGES)

# --- the patch series --------------------------------------------------------
# The sender signs the series and is named in MAINTAINERS: SIGNOFF='Name
# <addr>', or git's user.name and user.email. COPYRIGHT names the holder
# in the new files' copyright lines: the sender unless set (an employer).
GIT_IDENT	= $(shell n="$$(git config user.name)" && \
		    e="$$(git config user.email)" && echo "$$n <$$e>")
SIGNOFF		?= $(GIT_IDENT)

STACK		:= $(BUILD)/stack
STACK_PY	:= $(REPO)/devtools/stack.py --repo $(TREE) --base $(KERNEL_SRC) \
		   --stack $(STACK)

series: base
	@if [ -z "$(strip $(SIGNOFF))" ]; then \
		echo "make series: who signs the patches? Set git config" \
		     "user.name and user.email, or run" \
		     "make series SIGNOFF='Your Name <you@example.org>'" >&2; \
		exit 1; \
	fi
	@ver=$$($(MAKE) -s -C $(KERNEL_SRC) kernelversion) && \
	base='$(BASE_COMMIT)' && \
	$(STACK_PY) generate --out $(BUILD)/series --signoff '$(SIGNOFF)' \
		--version "Linux $$ver" --base-commit "$${base:-v$$ver}" \
		--copyright '$(COPYRIGHT)'

# BASE_COMMIT: the upstream commit the base tree is, for the base-commit:
# line of each series (the stack's own base commit is not one anyone else
# has): by default the release tag of the base's version, v7.2.13 say,
# as b4 names a base; format-patch's prerequisite-patch-id: lines name the
# patches of the series below.
BASE_COMMIT	?=
COPYRIGHT	?=

# The stack: every series of series/ applied with git am onto the files of
# the base they change, a commit a patch, a branch s/<series> at the end of
# each. Change patches there with git, then write them back with
# series-export; series-absorb does both for edits of the new files made in
# the repository (README, "Changing the series").
stack: base $(BUILD)/.deps
	@$(STACK_PY) apply $(if $(FORCE),--force)

series-export: base
	@$(STACK_PY) export

series-squash: base
	@$(STACK_PY) squash

series-absorb: base $(BUILD)/.deps
	@[ -d $(STACK)/.git ] || $(STACK_PY) apply
	@$(STACK_PY) absorb

# Each patch on its own: the objects it touches built with W=1 and sparse,
# the tool it changes built, the KUnit suites of the code it changes run
# (make check runs it); EACH_FROM=N EACH_TO=M check patches N to M only;
# EACH_KUNIT=all runs KUnit after every patch of covered code, not only
# after those that change tests.
export EACH_FROM EACH_TO EACH_KUNIT
series-each: base
	@$(REPO)/devtools/series-each.sh

series-check: base
	@$(REPO)/devtools/series-check.sh

# --- simgpu out of tree, for stock kernels (DKMS) ----------------------------
# dkms/: the DKMS source tree, as /usr/src/simgpu-<version>/ holds it, is
# the driver's directory and uAPI header verbatim with dkms/'s Kbuild,
# compat header and probes (dkms/assemble.sh). dkms-check (make check runs
# it) builds it with dkms.conf's probes and make command against the
# headers of Debian 12's oldest and newest 6.12 kernels, downloaded into
# .base/dkms/, and against the debug x86_64 kernel of this tree, where no
# fallback may be used.
DKMS_VERSION	:= $(shell cat $(REPO)/dkms/VERSION)
DKMS_SRC	:= $(BUILD)/dkms-src/simgpu-$(DKMS_VERSION)

dkms-src:
	@$(REPO)/dkms/assemble.sh $(REPO) $(DKMS_SRC) > /dev/null
	@echo "dkms: $(DKMS_SRC)"

dkms-check: qemu-debug-kernel
	@$(REPO)/devtools/dkms-check.sh

# The Debian packages, as a Debian 12 user installs them (README, "Try
# simgpu on your own kernel"): simgpu-dkms, the DKMS source tree for
# dh_dkms, and simgpu-tools, built from a source package that
# dkms/make-deb.sh assembles in build/deb/ (dkms/debian/ and copies of the
# tools and of the base tree's headers they need). Only this target
# installs the packaging tools: dkms/debian/control's Build-Depends and
# lintian.
DEB_OUT		:= $(BUILD)/deb
DEB_PKGS	:= build-essential debhelper dh-dkms help2man libncurses-dev \
		   lintian
$(BUILD)/.deps-deb: $(REPO)/Makefile $(REPO)/dkms/debian/control
	$(call install-pkgs,$@,$(DEB_PKGS))

# The base tree is only read for a few uAPI headers: it is downloaded
# without the packages the kernel builds need.
deb: $(BUILD)/.deps-deb
	@[ -z "$(FETCH_BASE)" ] || [ -f $(FETCH_BASE) ] || \
		$(REPO)/devtools/fetch-base.sh $(BASE_PKG) $(BASE_DIR)
	@$(REPO)/dkms/make-deb.sh $(REPO) $(KERNEL_SRC) $(DEB_OUT)

clean:
	rm -rf $(BUILD)

distclean: clean
	rm -rf $(BASE_DIR)
