# cxrescue — the one entry point. Local overrides go into an untracked config.mak.
#
#   make deps      install the Debian packages the build needs (apt-get, idempotent)
#   make           the rescue image: images/cxrescue-usb.img, cxrescue.iso, pxe/, SHA256SUMS
#   make run       build everything (deps too) and boot the USB image in QEMU with a simulated card
#                  (CARD=cx4lx: a ConnectX-4 Lx instead of the default ConnectX-3)
#   make burner    build burner/cxflash, static with musl, libpci and zlib
#   make kernel    the rescue kernel (cached by input hash in CXR_CACHE, see scripts/build-kernel.sh)
#   make qemu      QEMU with the simulated card device (cached likewise, scripts/build-qemu.sh)
#   make check     build and run every test; the last line is "N passed, N failed"
#   make check-static  the checks that take no build (make check runs them first):
#   make check-layers  fail on an #include in burner/ that goes up the layer order
#   make check-calls   fail when two files of burner/rescue/ call each other in a loop (or up)
#   make check-docs    fail on a § citation that resolves to no heading of docs/
#   make check-man     fail on any groff warning about the man page, docs/cxflash.1
#   make check-functions  fail on a C function in burner/ or sim/ (not their tests) over 80 lines
#   make mkfs2, make mkfs3  the synthetic FS2 / FS3+FS4 image generators for the tests (sim/mkfs2, sim/mkfs3)
#   make fuzz      run the image-parser fuzzer (FUZZ_SECONDS, default 60)
#   make bench     measure cxflash's size and speed, and a 100-node PXE rack (reported, never asserted)
#   make test-traces  record tests/traces/ again (when cxflash's register sequence changes)
#   make cxsim     build the card simulator; make bench-mstflint: every verb, mstflint beside cxflash, on it
#   make clean     remove build output

-include config.mak

B        ?= build
PYTHON   ?= /usr/bin/python3
HOSTCC   ?= gcc
CLANG    ?= clang
WARN     := -std=c11 -Wall -Wextra -Werror -D_DEFAULT_SOURCE
OPT      ?= -Os

SYSROOT  := $(B)/sysroot
MUSLCC   := musl-gcc

BURNER_SRC := $(sort $(filter-out burner/tests/% burner/fuzz/%,$(wildcard burner/*.c burner/*/*.c)))
BURNER_LIB := $(filter-out burner/main.c,$(BURNER_SRC))
BURNER_HDR := $(wildcard burner/*.h burner/*/*.h)
MANPAGE    ?= docs/cxflash.1
MKFS2_SRC  := $(wildcard sim/mkfs2/*.c)
MKFS2_HDR  := $(wildcard sim/mkfs2/*.h)
# mkfs3 (FS3/FS4 images) reuses mkfs2's CRC16, number parser, filler, buffer, map and ROM builder.
MKFS3_SRC  := $(wildcard sim/mkfs3/*.c) $(addprefix sim/mkfs2/,crc16.c number.c rng.c buf.c map.c rom.c)
MKFS3_HDR  := $(wildcard sim/mkfs3/*.h) $(MKFS2_HDR)
UNIT_SRC   := $(wildcard burner/tests/test_*.c)
UNIT_BINS  := $(patsubst burner/tests/%.c,$(B)/tests/%,$(UNIT_SRC))

# cxsim: the card model (sim/core), its command line and FUSE front end (sim/cli),
# and a preload shim that turns a client's sleeps into model time (sim/shim).
SIM_CORE   := $(wildcard sim/core/*.c)
SIM_HDR    := $(wildcard sim/core/*.h sim/cli/*.h)
SIM_CLI    := $(wildcard sim/cli/*.c)
# From mkfs2, for cxsim too: the FS2 CRC16 (its image patcher, sim/cli/fs2patch.c) and the
# parser of typed numbers (both programs read a number alike).
SIM_MKFS2  := sim/mkfs2/crc16.c sim/mkfs2/number.c
SIM_TESTS  := $(wildcard sim/tests/test_*.c)
SIM_UNIT   := $(patsubst sim/tests/test_%.c,$(B)/tests/test_sim_%,$(SIM_TESTS))
UNIT_BINS  += $(SIM_UNIT)
FUSE_FLAGS  = $(shell pkg-config --cflags --libs fuse3 2>/dev/null)

.PHONY: all deps burner check check-static check-layers check-calls check-docs check-man check-functions check-unit test-traces bench bench-pxe bench-mstflint fuzz clean libs mkfs2 mkfs3 asan cxsim \
        kernel busybox qemu initramfs images run pxe-serve pxe-report pxe-cycle

all: burner images

deps:
	scripts/deps.sh

libs: $(SYSROOT)/.stamp

$(SYSROOT)/.stamp: scripts/build-musl-libs.sh
	scripts/build-musl-libs.sh $(B)

burner: burner/cxflash

# The shipped binary: static, musl, stripped, at most 384 KiB (393,216 bytes) for ConnectX-2/3
# (issue 2 began at 300 KiB; with ConnectX-4/5 it may take 512 KiB, issue 32). No unwind tables
# (C never unwinds; they were 29 KB of .eh_frame) and no page padding between the code and
# the read-only data (-z noseparate-code: 4 KB): the wizard took it to 327 KiB with them.
# -flto lets the compiler inline and drop across files: 4,096 bytes (issue 20's settings
# took the binary to 391,976 of its 393,216).
burner/cxflash: $(BURNER_SRC) $(BURNER_HDR) $(SYSROOT)/.stamp
	$(MUSLCC) $(WARN) $(OPT) -flto=auto -static -isystem $(SYSROOT)/include -Iburner \
	  -fno-asynchronous-unwind-tables -fno-unwind-tables \
	  -ffunction-sections -fdata-sections -Wl,--gc-sections -Wl,-z,noseparate-code -s \
	  -o $@ $(BURNER_SRC) -L$(SYSROOT)/lib -lpci -lz

# The same code with AddressSanitizer + UBSan (glibc, system zlib), used by the tests.
asan: $(B)/asan/cxflash
$(B)/asan/cxflash: $(BURNER_SRC) $(BURNER_HDR)
	@mkdir -p $(@D)
	$(HOSTCC) $(WARN) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	  -Iburner -o $@ $(BURNER_SRC) -lpci -lz

mkfs2: $(B)/host/mkfs2
$(B)/host/mkfs2: $(MKFS2_SRC) $(MKFS2_HDR)
	@mkdir -p $(@D)
	$(HOSTCC) $(WARN) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	  -o $@ $(MKFS2_SRC) -lz

mkfs3: $(B)/host/mkfs3
$(B)/host/mkfs3: $(MKFS3_SRC) $(MKFS3_HDR)
	@mkdir -p $(@D)
	$(HOSTCC) $(WARN) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	  -Isim/mkfs3 -Isim/mkfs2 -o $@ $(MKFS3_SRC) -lz

# FS3/FS4 images from the unit tests' builder (burner/tests/fs3_builder.h): fuzz seeds, CLI tests.
$(B)/host/fs3seed: burner/tests/fs3seed.c burner/tests/fs3_builder.h
	@mkdir -p $(@D)
	$(HOSTCC) $(WARN) -O1 -g -o $@ $< -lz

cxsim: $(B)/host/cxsim $(B)/host/cxsim-sleep.so $(B)/host/cxsim-sleep-trace
$(B)/host/cxsim: $(SIM_CORE) $(SIM_CLI) $(SIM_MKFS2) $(SIM_HDR) sim/mkfs2/crc16.h sim/mkfs2/number.h sim/mkfs2/be.h
	@mkdir -p $(@D)
	$(HOSTCC) $(WARN) -O2 -g -Isim/core -Isim/cli -o $@ $(SIM_CORE) $(SIM_CLI) $(SIM_MKFS2) $(FUSE_FLAGS) -lpthread -lz

# libpci as cxflash links it (static, musl), listing a tree: proves the served tree is one libpci reads.
$(B)/host/pci-list: tests/helpers/pci_list.c $(SYSROOT)/.stamp
	@mkdir -p $(@D)
	$(MUSLCC) $(WARN) -Os -static -isystem $(SYSROOT)/include -o $@ $< -L$(SYSROOT)/lib -lpci -lz

$(B)/host/cxsim-sleep.so: sim/shim/sleep_shim.c
	@mkdir -p $(@D)
	$(HOSTCC) $(WARN) -O2 -fPIC -shared -o $@ $< -ldl

# The same for a static client (cxflash), which takes no preload: ptrace and seccomp.
$(B)/host/cxsim-sleep-trace: sim/shim/sleep_trace.c
	@mkdir -p $(@D)
	$(HOSTCC) $(WARN) -O2 -o $@ $<

# Test builds: every library source is compiled once with the sanitizers into
# $(B)/tobj and archived, and each test binary links what it uses. (Compiling
# the whole library into each of ~25 binaries took minutes of a cold check.)
SANITIZE := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all
TOBJ     := $(B)/tobj
TEST_SUPPORT := $(wildcard burner/tests/support/*.c)
TEST_SUPPORT_HDR := $(wildcard burner/tests/support/*.h)
BURNER_TOBJ  := $(patsubst %.c,$(TOBJ)/%.o,$(BURNER_LIB))
SUPPORT_TOBJ := $(patsubst %.c,$(TOBJ)/%.o,$(TEST_SUPPORT))
SIM_TOBJ     := $(patsubst %.c,$(TOBJ)/%.o,$(SIM_CORE))
BURNER_TLIB  := $(TOBJ)/libburner.a
SUPPORT_TLIB := $(TOBJ)/libsupport.a
SIM_TLIB     := $(TOBJ)/libcxsim.a
-include $(BURNER_TOBJ:.o=.d) $(SUPPORT_TOBJ:.o=.d) $(SIM_TOBJ:.o=.d)

$(TOBJ)/sim/core/%.o: sim/core/%.c
	@mkdir -p $(@D)
	$(HOSTCC) $(WARN) $(SANITIZE) -MMD -MP -Isim/core -c -o $@ $<
$(TOBJ)/burner/%.o: burner/%.c
	@mkdir -p $(@D)
	$(HOSTCC) $(WARN) $(SANITIZE) -MMD -MP -Iburner -Iburner/tests/support -Isim/core -c -o $@ $<
$(BURNER_TLIB): $(BURNER_TOBJ)
	rm -f $@ && ar rcs $@ $^
$(SUPPORT_TLIB): $(SUPPORT_TOBJ)
	rm -f $@ && ar rcs $@ $^
$(SIM_TLIB): $(SIM_TOBJ)
	rm -f $@ && ar rcs $@ $^

# The model's tests put images on their cards with the tests' one installer (card_image.h).
$(B)/tests/test_sim_%: sim/tests/test_%.c $(SUPPORT_TLIB) $(SIM_TLIB) $(SIM_HDR) $(TEST_SUPPORT_HDR)
	@mkdir -p $(@D)
	$(HOSTCC) $(WARN) $(SANITIZE) -Isim/core -Iburner/tests/support -o $@ $< $(SUPPORT_TLIB) $(SIM_TLIB) -lcmocka

# Burner tests may drive a simulated card in process (burner/tests/support + sim/core); each
# takes from the support archive what it uses (the wizard's rig only goes into its sessions).
$(B)/tests/test_%: burner/tests/test_%.c $(SUPPORT_TLIB) $(BURNER_TLIB) $(SIM_TLIB) $(BURNER_HDR) $(SIM_HDR) \
                   $(TEST_SUPPORT_HDR)
	@mkdir -p $(@D)
	$(HOSTCC) $(WARN) $(SANITIZE) -Iburner -Iburner/tests/support -Isim/core -o $@ $< $(SUPPORT_TLIB) \
	  $(BURNER_TLIB) $(SIM_TLIB) -lcmocka -lpci -lz

$(B)/fuzz/fuzz_image: burner/fuzz/fuzz_image.c $(BURNER_LIB) $(BURNER_HDR)
	@mkdir -p $(@D)
	$(CLANG) -std=c11 -D_DEFAULT_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=all -Iburner -o $@ $< $(BURNER_LIB) -lpci -lz

# --- the rescue image (issue 5): kernel, BusyBox, initramfs, media -----------------------
# The kernel and QEMU take minutes; their scripts cache the result outside the clone,
# keyed by a hash of their inputs (CXR_CACHE, default /var/cache/cxrescue).
KERNEL   := $(B)/kernel/bzImage
GENCPIO  := $(B)/kernel/gen_init_cpio
KMODINFO := $(B)/kernel/modules.builtin.modinfo
BUSYBOX  := $(B)/busybox/busybox
QEMU     := $(B)/qemu/qemu-system-x86_64
INITRD   := $(B)/initrd.gz
IMAGES   := images
ROOTFS_FILES := $(shell find rootfs/overlay -type f 2>/dev/null)
FIRMWARE_DIR ?= library/firmware
export FIRMWARE_DIR

kernel: $(KERNEL)
$(KERNEL) $(GENCPIO) $(KMODINFO) &: scripts/build-kernel.sh $(wildcard kernel-config/*.config)
	scripts/build-kernel.sh $(B)

busybox: $(BUSYBOX)
$(BUSYBOX): scripts/build-busybox.sh rootfs/busybox.fragment $(SYSROOT)/.stamp
	scripts/build-busybox.sh $(B)

qemu: $(QEMU)
$(QEMU): scripts/build-qemu.sh $(wildcard sim/qemu/*) $(SIM_CORE) $(wildcard sim/core/*.h)
	scripts/build-qemu.sh $(B)

# The NIC firmware files of rootfs/nic-firmware.txt, from Debian's non-free-firmware .debs.
NICFW_STAMP := $(B)/nic-firmware/.stamp
$(NICFW_STAMP): scripts/nic-firmware.sh rootfs/nic-firmware.txt
	scripts/nic-firmware.sh $(B)

initramfs: $(INITRD)
$(INITRD): scripts/mkinitramfs.sh $(ROOTFS_FILES) burner/cxflash $(MANPAGE) $(BUSYBOX) $(GENCPIO) $(SYSROOT)/.stamp $(NICFW_STAMP) \
           library/boards.txt $(wildcard $(FIRMWARE_DIR)/*.bin $(FIRMWARE_DIR)/*.BIN)
	scripts/mkinitramfs.sh $(B) $@

images: $(IMAGES)/SHA256SUMS
$(IMAGES)/SHA256SUMS: scripts/mkmedia.sh rootfs/syslinux/menu.cfg.in $(wildcard rootfs/grub/*) \
                      rootfs/stick/firmware-README.txt rootfs/stick/stick-id.txt $(KERNEL) $(INITRD) burner/cxflash $(MANPAGE)
	scripts/mkmedia.sh $(KERNEL) $(INITRD) $(IMAGES)

# Boot the USB image in QEMU (TCG; KVM only when the CPU has vmx/svm) with one simulated
# OEM card, on the serial console in this terminal. deps first: a fresh machine has
# nothing yet. FIRMWARE=uefi boots it through OVMF instead of SeaBIOS. CARD=cx4lx: an HPE
# ConnectX-4 Lx with an FS3 image instead of the HP ConnectX-3 (scripts/run-qemu.sh).
FIRMWARE ?= bios
CARD ?= cx3
run:
	scripts/deps.sh
	$(MAKE) images $(QEMU) $(B)/host/cxsim $(B)/host/mkfs2 $(B)/host/mkfs3
	CXR_FIRMWARE=$(FIRMWARE) CXR_CARD=$(CARD) scripts/run-qemu.sh $(B) $(IMAGES)

# A rack over PXE (docs/rack.md), as root:
#   make pxe-serve IFACE=eth1 (DHCP=FIRST,LAST | PROXY=1) [JOBS=rack.jobs] [PXE_ROOT=/srv/cxrescue]
#                  [PXE_FIRMWARE=dir] [DRY_RUN=1]   serve images/pxe/ to the rack; Ctrl-C stops
#   make pxe-report [JOBS=rack.jobs] [PXE_ROOT=...]  one table of the nodes' reports
#   make pxe-cycle [PXE_ROOT=...] [BOUND=900]       beside pxe-serve: the written nodes' BMCs
#                  power them on again for their verify (scripts/pxe-cycle)
PXE_ROOT ?= /srv/cxrescue
pxe-serve:
	@[ -n "$(IFACE)" ] && [ -n "$(DHCP)$(PROXY)" ] || { echo "usage: make pxe-serve IFACE=eth1 (DHCP=FIRST,LAST | PROXY=1) [JOBS=file] [PXE_ROOT=dir] [PXE_FIRMWARE=dir] [DRY_RUN=1]" >&2; exit 2; }
	scripts/deps.sh
	$(MAKE) images
	scripts/pxe-serve --interface $(IFACE) $(if $(DHCP),--dhcp $(DHCP)) $(if $(PROXY),--proxy) \
	  $(if $(JOBS),--jobs $(JOBS)) --root $(PXE_ROOT) --images $(IMAGES) \
	  $(if $(PXE_FIRMWARE),--firmware $(PXE_FIRMWARE)) $(if $(DRY_RUN),--dry-run)

pxe-report:
	scripts/pxe-report $(if $(JOBS),--jobs $(JOBS)) $(PXE_ROOT)

pxe-cycle:
	scripts/pxe-cycle $(if $(BOUND),--bound $(BOUND)) $(PXE_ROOT)

CHECK_BINS := burner/cxflash $(B)/asan/cxflash $(B)/host/mkfs2 $(B)/host/mkfs3 $(B)/host/fs3seed $(UNIT_BINS) $(B)/tests/cxflash_sim $(B)/fuzz/fuzz_image \
              $(B)/host/cxsim $(B)/host/cxsim-sleep.so $(B)/host/cxsim-sleep-trace $(B)/host/pci-list \
              $(IMAGES)/SHA256SUMS $(QEMU)

# Every test; pytest's summary ("N passed ...") is the last line. Two workers when
# pytest-xdist is there (make deps installs it): the FUSE tests mostly wait on I/O while
# the power-cut campaigns compute. PYTEST_JOBS= runs them one by one. The static checks
# run first (they take no build): an include up the order, two files of rescue/ that call
# each other, a function over 80 lines, a citation of a section docs/ does not have, or a man page groff warns about
# fails make check at once.
PYTEST_JOBS ?= $(shell $(PYTHON) -c 'import xdist' 2>/dev/null && echo '-n 2')
check: check-static $(CHECK_BINS)
	@CXR_BUILD=$(B) CXR_IMAGES=$(IMAGES) $(PYTHON) -m pytest -q -rs -p no:cacheprovider $(PYTEST_JOBS) \
	  tests/ qemu-tests/

# The committed recordings of tests/traces/ (docs/traces.md), made again from cxsim: run it
# when a change of cxflash's register sequence is intended, and commit them with it. Root (FUSE).
test-traces: burner/cxflash $(B)/host/cxsim $(B)/host/mkfs2
	CXR_BUILD=$(B) $(PYTHON) scripts/make-test-traces

bench: burner/cxflash $(B)/host/mkfs2 $(B)/host/mkfs3 $(B)/tests/bench_burn cxsim
	scripts/bench.sh $(B)
	CXR_BUILD=$(B) $(B)/tests/bench_burn
	scripts/bench-cx4.sh $(B)
	scripts/bench-pxe $(B) $(IMAGES)

# The rack bench alone, its images built first: 100 simulated nodes against pxe-serve in a
# network namespace of its own (root; docs/rack.md). make bench runs it when the
# images are there, and says why not when they are not.
bench-pxe: $(IMAGES)/SHA256SUMS $(BUSYBOX)
	scripts/bench-pxe $(B) $(IMAGES)

# A burn's modelled cost against its floor, on the in-process card model (not a unit test:
# its name does not start with test_). Optimised, no sanitizers: the numbers are the model's.
# cmocka: the card fixture (tests/support/card_fixture.c) checks its setup with it.
$(B)/tests/bench_burn: burner/tests/bench_burn.c $(BURNER_LIB) $(BURNER_HDR) $(TEST_SUPPORT) $(SIM_CORE) $(SIM_HDR)
	@mkdir -p $(@D)
	$(HOSTCC) $(WARN) -O2 -g -Iburner -Iburner/tests/support -Isim/core -o $@ $< $(BURNER_LIB) \
	  $(TEST_SUPPORT) $(SIM_CORE) -lcmocka -lpci -lz

# cxflash's command line on a `cxsim create` card in process (burner/tests/cxflash_sim.c): no
# FUSE, so whole-flash reads through the VSEC take seconds, not minutes (test_oracle_restore_fs3.py).
# Not a unit test (its name does not start with test_). --wrap: the two calls of device_open()
# that reach sysfs (pci_find, cfg_open_sysfs) go to the model instead.
$(B)/tests/cxflash_sim: burner/tests/cxflash_sim.c $(SUPPORT_TLIB) $(BURNER_TLIB) $(SIM_TLIB) $(BURNER_HDR) \
                        $(SIM_HDR) $(TEST_SUPPORT_HDR)
	@mkdir -p $(@D)
	$(HOSTCC) $(WARN) $(SANITIZE) -Iburner -Iburner/tests/support -Isim/core \
	  -Wl,--wrap=pci_find,--wrap=cfg_open_sysfs -o $@ $< $(SUPPORT_TLIB) $(BURNER_TLIB) $(SIM_TLIB) -lcmocka -lpci -lz

# Every verb, Debian's mstflint 4.21 (and mstconfig) beside cxflash, on fresh copies of one
# simulated ConnectX-3 with a 0.96 MiB image (slow: FUSE; root). BENCH_JSON=FILE: the numbers as JSON.
bench-mstflint: $(B)/host/mkfs2 $(B)/host/cxsim $(B)/host/cxsim-sleep.so $(B)/host/cxsim-sleep-trace burner/cxflash
	scripts/bench-mstflint.sh $(B)

# util -> image -> dev -> flash -> ops -> library -> cli | rescue -> main.c (scripts/check-layers),
# and inside rescue/: records -> state -> steps -> flows | jobs -> menu.
check-layers:
	@$(PYTHON) scripts/check-layers burner

# From the calls, not the includes: no two files of rescue/ call each other in a loop,
# and none calls up its sub-layers.
check-calls:
	@$(PYTHON) scripts/check-calls burner/rescue

# Every § citation in the code, tests, scripts and docs names a heading of docs/ (scripts/check-docs).
check-docs:
	@$(PYTHON) scripts/check-docs

# The man page (docs/cxflash.1, man(7) macros): groff -man -ww -z prints nothing for a
# page it has no warning about, and anything it prints fails the check; -Tascii, the device
# the rescue image renders it for (scripts/mkinitramfs.sh), which lacks some glyphs the
# default device has. groff-base (deps.sh).
check-man:
	@out=$$(groff -man -ww -z -Tascii $(MANPAGE) 2>&1) && [ -z "$$out" ] || \
	  { printf '%s\n' "$$out" >&2; echo "check-man: $(MANPAGE): groff warns (above)" >&2; exit 1; }

# No production function over 80 lines, brace line to brace line (scripts/check-functions).
check-functions:
	@$(PYTHON) scripts/check-functions

check-static: check-layers check-calls check-functions check-docs check-man

check-unit: $(UNIT_BINS) $(B)/host/mkfs2 $(B)/host/fs3seed
	@for t in $(UNIT_BINS); do $$t || exit 1; done

FUZZ_SECONDS ?= 60
fuzz: $(B)/fuzz/fuzz_image $(B)/host/mkfs2 $(B)/host/mkfs3 $(B)/host/fs3seed
	tests/fuzz-corpus.sh $(B) && $(B)/fuzz/fuzz_image -max_total_time=$(FUZZ_SECONDS) \
	  $(B)/fuzz/corpus

clean:
	rm -rf $(B) burner/cxflash $(IMAGES)/cxrescue-usb.img $(IMAGES)/cxrescue.iso $(IMAGES)/pxe \
	  $(IMAGES)/SHA256SUMS $(IMAGES)/sizes.txt
