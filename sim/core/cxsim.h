/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cxsim.h — the card model: a ConnectX-2 / ConnectX-3 / ConnectX-3 Pro as seen
 * from PCI, at the register level; a ConnectX-4 / 4 Lx / 5 in flash-recovery
 * ("livefish") mode (the 5th-generation flash gateway) or, with a valid image, running
 * its firmware (ICMD over the VSEC and the access registers mstflint and mstconfig use,
 * hw-access.md §3.14; sim/core/fw5.h). The manual of the hardware is
 * docs/hw-access.md (section numbers below refer to it).
 *
 * The model is front-end agnostic: it has no I/O but the two state files it
 * loads and saves. Front ends (the in-process C interface used by tests and
 * benchmarks, the FUSE fake sysfs, later a QEMU device) call
 * cxsim_cfg_read()/cxsim_cfg_write() for PCI config space, which is where the
 * 0x58/0x5c crspace window lives (§2.3) and, when params.vsec_spaces is set,
 * the VSEC gateway (§2.4), and cxsim_bar0_read()/write() for the memory BAR.
 * By default BAR0 reads as all-ones (memory decode off), so tools fall back to
 * config cycles (§2.2); with params.bar0_crspace (the QEMU device) BAR0
 * decodes crspace.
 *
 * It shares no code with cxflash: a misreading of the spec must not cancel
 * itself out between burner and model.
 *
 * ConnectX-3 and 3 Pro also run the firmware's "tools HCR", the command
 * interface through which mstconfig reads and writes the card's settings
 * (hw-access.md §8): see "The settings interface" below.
 *
 * Time: the model keeps its own clock. Every config access costs
 * CXSIM_CFG_ACCESS_NS; a front end adds the time its client spends sleeping
 * with cxsim_advance(). Flash operations finish when the clock passes their
 * datasheet duration (the status register's WIP bit stays set until then).
 * Nothing depends on the wall clock, so a run is repeatable.
 */
#ifndef CXSIM_H
#define CXSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CXSIM_CFG_SIZE 256          /* conventional PCI config space */
#define CXSIM_BAR0_SIZE (1u << 20)  /* 1 MiB BAR0, §2.2 */
#define CXSIM_CFG_ACCESS_NS 1000    /* one config read or write: 1 µs (issue 3's cost model) */
/* One BAR0 read or write when BAR0 decodes crspace: priced like a config access. The
 * cost model counts register accesses, not transports; a real non-posted MMIO read
 * over PCIe is of the same order (~1 µs). Not tuned. */
#define CXSIM_BAR0_ACCESS_NS CXSIM_CFG_ACCESS_NS

/* VSEC gateway address spaces (mtcr's AS_*, §2.4), as bits of params.vsec_spaces. */
#define CXSIM_AS_ICMD_EXT 0x1
#define CXSIM_AS_CR_SPACE 0x2       /* crspace, as the window reaches it */
#define CXSIM_AS_ICMD 0x3           /* CX4 and later with firmware: the ICMD interface (§3.14) */
#define CXSIM_AS_SEMAPHORE 0xA
#define CXSIM_VSEC_BIT(space) (1u << (space))
/* What mtcr requires before it uses the VSEC (VSEC_MIN_SUPPORT_UL, §2.4). */
#define CXSIM_VSEC_FULL (CXSIM_VSEC_BIT(CXSIM_AS_CR_SPACE) | CXSIM_VSEC_BIT(CXSIM_AS_ICMD_EXT) | \
			 CXSIM_VSEC_BIT(CXSIM_AS_SEMAPHORE))
#define CXSIM_VSEC_CRSPACE_ONLY CXSIM_VSEC_BIT(CXSIM_AS_CR_SPACE)

/* CX4, CX4LX, CX5: their flash holds FS3 (CX4, 4 Lx) or FS4 (CX5) images
 * (docs/fs3-format.md); with a valid one their firmware runs (ICMD and access registers,
 * hw-access.md §3.14), unless params.recovery holds them in recovery mode. */
enum cxsim_chip { CXSIM_CX2, CXSIM_CX3, CXSIM_CX3PRO, CXSIM_CX4, CXSIM_CX4LX, CXSIM_CX5 };

/* ---- The settings interface (hw-access.md §8; sim/core/tools_hcr.h has the register
 * map, tools_cmds.c the answers, reg_access.c the register framing, nv_store.c the store).
 *
 * The running firmware's tools HCR at crspace 0x80780 (7 dwords; go bit 23 cleared when
 * the command is done, on the model's clock; status in 31:24), its semaphore 0xf03bc
 * (read-to-lock), the CR mailbox at 0xe0000 (288 bytes; absent with params.no_cr_mbox,
 * so mstflint's 0xbadb00f probe fails and the 8-byte MBOX_WRITE 0x70 / MBOX_READ 0x71
 * path is used), and the opcodes QUERY_DEV_CAP 0x3, QUERY_DEF_PARAMS 0x73 and
 * ACCESS_REGISTER 0x3b with the registers MNVA 0x9024 and MNVIA 0x9029. What the
 * firmware reports comes from params.tools; what MNVA stores is kept in the settings
 * store, saved as STEM.nv beside STEM.conf, and survives power cycles. A ConnectX-2 has
 * no such interface (its crspace there is unmodelled, as mstconfig refuses the chip by its
 * HW ID before it sends anything); a card without running firmware (recovery mode) never
 * clears the go bit; firmware older than 2.31.5000 answers every command with BAD_OP. */

/* QUERY_DEV_CAP's tool capability bits at mailbox 0xc0 (mlxcfg_param_lib.cpp@4.25, the
 * SRIOV_MASK.. enum): which settings the firmware lets mlxconfig change. */
#define CXSIM_CAP_SRIOV 0x01
#define CXSIM_CAP_WOL_P1 0x02
#define CXSIM_CAP_WOL_P2 0x04
#define CXSIM_CAP_VPI_P1 0x08
#define CXSIM_CAP_VPI_P2 0x10
#define CXSIM_CAP_BAR_SIZE 0x20
#define CXSIM_CAP_ALL 0x3F

/* Support bits QUERY_DEF_PARAMS announces (tools_open_layouts.h@4.25
 * tools_open_query_def_params_global/_per_port): whether mlxconfig shows the settings
 * that depend on them. The per-port ones apply to every port the card has. */
#define CXSIM_SUPP_CQ_TIMESTAMP 0x001     /* global nv_cq_timestamp_supported: CQ_TIMESTAMP */
#define CXSIM_SUPP_STEER_FORCE_VLAN 0x002 /* global: STEER_FORCE_VLAN */
#define CXSIM_SUPP_PHY_PARAM_MODE 0x004   /* global nv_config_phy_param_mode: PHY_PARAMETER_MODE */
#define CXSIM_SUPP_CLOCK_MAP 0x008        /* global nv_config_clock_map_to_user: INT_CLOCK_TO_USER */
#define CXSIM_SUPP_BOOT_IP_VER 0x010      /* global boot_ip_ver: IP_VER_Pn */
#define CXSIM_SUPP_VPI 0x020              /* per port nv_config_vpi */
#define CXSIM_SUPP_WOL 0x040              /* per port nv_config_wol */
#define CXSIM_SUPP_VPI_FORCE_MODE 0x080   /* per port: PHY_TYPE_Pn, XFI_MODE_Pn, FORCE_MODE_Pn */
#define CXSIM_SUPP_IB_BOOT 0x100          /* per port nv_config_infiniband_boot_settings: BOOT_PKEY_Pn */
#define CXSIM_SUPP_BOOT_PARAMS 0x200      /* per port nv_config_boot_parameters */

/* What the firmware's settings interface reports for a card: the "profile". Saved in
 * STEM.conf as tools_* keys, each written only when it differs from the chip's default
 * (cxsim_params_default). Both ports share the per-port defaults. */
struct cxsim_tools_profile {
	uint8_t ports;             /* 1 or 2: a port-2 QUERY_DEF_PARAMS or TLV on a 1-port card fails */
	uint8_t max_vfs;           /* the VFs mlxconfig may enable, 0..254 (QUERY_DEV_CAP 0x38) */
	uint8_t bar_size;          /* default LOG_BAR_SIZE (log2 MiB), 1..64 (QUERY_DEV_CAP 0x48) */
	uint8_t max_bar_size;      /* largest LOG_BAR_SIZE, 0..63 (QUERY_DEV_CAP 0xc8) */
	uint8_t caps;              /* CXSIM_CAP_* (QUERY_DEV_CAP 0xc0); port 2's bits count only on 2 ports */
	uint16_t supp;             /* CXSIM_SUPP_* */
	/* The defaults QUERY_DEF_PARAMS returns (mstconfig's names in comments). */
	uint8_t def_sriov_en;      /* SRIOV_EN */
	uint8_t def_num_vfs;       /* NUM_OF_VFS */
	uint8_t def_link_type;     /* LINK_TYPE_Pn: 1 IB, 2 ETH, 3 VPI */
	uint8_t def_phy_type;      /* PHY_TYPE_Pn (with CXSIM_SUPP_VPI_FORCE_MODE) */
	uint8_t def_xfi_mode;      /* XFI_MODE_Pn */
	uint8_t def_force_mode;    /* FORCE_MODE_Pn */
	uint8_t def_wol_magic;     /* WOL_MAGIC_EN_Pn */
	uint8_t def_boot_rom;      /* BOOT_OPTION_ROM_EN_Pn */
	uint8_t def_boot_vlan_en;  /* BOOT_VLAN_EN_Pn */
	uint8_t def_boot_retry;    /* BOOT_RETRY_CNT_Pn */
	uint8_t def_boot_protocol; /* LEGACY_BOOT_PROTOCOL_Pn */
	uint16_t def_boot_vlan;    /* BOOT_VLAN_Pn */
	uint16_t def_boot_pkey;    /* BOOT_PKEY_Pn */
	uint8_t def_ip_ver;        /* IP_VER_Pn */
	uint8_t def_cq_timestamp;  /* CQ_TIMESTAMP */
	uint8_t def_steer_force_vlan; /* STEER_FORCE_VLAN */
	uint8_t def_phy_param_mode;   /* PHY_PARAMETER_MODE */
	uint8_t def_clock_map;        /* INT_CLOCK_TO_USER */
};

/* Faults of the settings interface (`cxsim fault --hcr`). */
enum cxsim_hcr_fault {
	CXSIM_HCR_OK,            /* "none" */
	CXSIM_HCR_NOT_STARTED,   /* "not-started": every command ends with status 4 (BAD_SYS), as
				  * mstflint expects when the driver has not started the firmware */
	CXSIM_HCR_OLD_FW,        /* "old-fw": every command ends with status 2 (BAD_OP), as from
				  * firmware older than 2.31.5000 */
	CXSIM_HCR_NV_CORRUPT,    /* "nv-corrupt": MNVA answers register status 0x22 (CONF_CORRUPT);
				  * MNVIA still empties the store, and the fault stays */
	CXSIM_HCR_SEM_HELD,      /* "sem-held": another agent holds 0xf03bc for good (writing 0
				  * does not free it) */
	CXSIM_HCR_GO_STUCK,      /* "go-stuck": the go bit never clears, no command runs */
	CXSIM_HCR_NFAULTS
};

/* Faults of the 5th generation's ICMD interface (`cxsim fault --icmd`, hw-access.md §3.14). */
enum cxsim_icmd_fault {
	CXSIM_ICMD_OK,           /* "none" */
	CXSIM_ICMD_BUSY,         /* "busy": the go bit never clears, no command runs */
	CXSIM_ICMD_NOT_STARTED,  /* "not-started": 0xb0004/0xb5e04 bit 31 (static configuration
				  * not done) stays set; a command sent all the same fails (status 3) */
	CXSIM_ICMD_SEM_HELD,     /* "sem-held": another agent holds the ICMD semaphore (VSEC
				  * SEMAPHORE space dword 0) until someone writes 0 to it */
	CXSIM_ICMD_SECURE_FW,    /* "secure-fw": MGIR reports secure (and signed) firmware */
	CXSIM_ICMD_NFAULTS
};

/* What a card is. Saved beside the flash in a small key=value text file. */
struct cxsim_params {
	enum cxsim_chip chip;
	uint16_t pci_device;        /* normal PCI device ID (CX2 0x673c, CX3 0x1003, Pro 0x1007) */
	uint8_t hw_rev;             /* crspace 0xf0014 bits 23:16: CX2 0xB0, CX3 0 or 1, Pro 0 */
	/* 0: the chip's HW ID. Else the HW ID 0xf0014 reports in its place: how a chip the
	 * model lacks (ConnectX-4 and later, Connect-IB) looks to a tool that reads its
	 * identity first and should stop there. Nothing else of that chip is modelled. */
	uint16_t hw_id;
	uint16_t subsys_vendor, subsys_device;
	char flash_part[32];        /* a name from the SPI NOR table, e.g. "W25Q16" */
	bool wo_addr_window;        /* 0x58 is write-only: reads back 0xbadacce5, §2.3 */
	uint64_t seed;              /* makes "undefined" flash bytes deterministic */
	/* BAR0 decodes crspace (big-endian dwords on the bus, §2.2) instead of reading
	 * all-ones. A front end's choice, not a property of the card: not saved in
	 * STEM.conf, false by default (the FUSE front end: mstflint uses config cycles). */
	bool bar0_crspace;
	/* A vendor-specific capability (ID 9) after MSI-X: the VSEC gateway of §2.4,
	 * supporting the address spaces whose bits are set (CXSIM_VSEC_BIT). 0, the
	 * default up to CX3 Pro, means no VSEC: whether CX2/CX3 have one is UNCONFIRMED
	 * (§2.1), and tools then use the window. The window works either way. CX4 and
	 * later default to CXSIM_VSEC_FULL (what mtcr needs, hw-access.md §2.4). */
	uint32_t vsec_spaces;

	/* Faults. */
	uint64_t power_cut_after;   /* lose power after this many config (or BAR0) accesses; 0 = never */
	bool stuck_busy;            /* the gateway BUSY bit never clears */
	bool sem_held_gpio;         /* 0xf03fc is held by another agent */
	bool sem_held_flashprog;    /* 0xf03a0 is held by another agent (CX3/Pro) */
	bool sem_held_vsec;         /* the VSEC gateway's semaphore is held by another agent */
	bool write_protect;         /* the flash powers on with its block-protect bits set */
	uint32_t stuck_addr;        /* with stuck_mask: a flash byte with bits that never change */
	uint8_t stuck_mask;         /* those bits (erase and program leave them as they are); 0 = none */

	/* The settings interface (CX3/Pro only; ignored on CX2). */
	struct cxsim_tools_profile tools;
	bool no_cr_mbox;            /* no CR mailbox at 0xe0000: tools use MBOX_WRITE/MBOX_READ */
	enum cxsim_hcr_fault hcr_fault;

	/* CX4, 4 Lx, 5. The card is strapped for flash recovery: it stays in recovery mode
	 * whatever its flash holds (the model of these chips before it had firmware). */
	bool recovery;
	enum cxsim_icmd_fault icmd_fault;
	/* CX4, 4 Lx, 5: another agent holds the gateway lock (0xf0400 bit 31) from power-on
	 * until a client writes the command register with bit 31 clear (a forced release). */
	bool gw_lock_held;
};

struct cxsim_counters {
	uint64_t cfg_reads, cfg_writes;
	uint64_t cr_reads, cr_writes;       /* crspace accesses (window and BAR0) */
	uint64_t bar0_reads, bar0_writes;   /* BAR0 accesses (decoded or not) */
	uint64_t unmodelled;                /* crspace accesses to addresses the model lacks */
	uint64_t gw_cmds;                   /* gateway transactions started */
	uint64_t gw_by_opcode[256];         /* ... by SPI opcode (transactions with a command phase) */
	uint64_t bytes_programmed, bytes_erased, bytes_read;
	uint64_t erases;
	uint64_t gw_without_sem;            /* gateway transactions while 0xf03fc (5th generation:
					     * the lock bit 31 of 0xf0400) was not held */
	uint64_t gw_cache_rep_on;           /* 5th generation: transactions while cache
					     * replacement (0xf0420 bit 0) was enabled */
	uint64_t hw_sem_takes;              /* 5th generation: the HW semaphore (0xe250c/0xe74e0) taken */
	uint64_t vsec_sem_takes;            /* VSEC semaphore space: a free semaphore taken */
	uint64_t vsec_accesses;             /* VSEC gateway accesses started (ADDR writes) */
	uint64_t vsec_without_sem;          /* ... while the client did not hold the VSEC semaphore */
	uint64_t tools_cmds;                /* tools HCR commands the firmware executed (any status) */
	uint64_t tools_by_opcode[4];        /* ... QUERY_DEV_CAP, QUERY_DEF_PARAMS, ACCESS_REGISTER,
					     * MBOX_WRITE/READ (CXSIM_TOOLS_OP_*) */
	uint64_t tools_without_sem;         /* commands started while the client did not hold 0xf03bc */
	uint64_t nv_write_cmds;             /* settings-writing commands received: MNVA SET, MNVIA */
	uint64_t nv_writes;                 /* ... of them the firmware carried out (store written) */
	uint64_t icmd_cmds;                 /* 5th generation: ICMD commands started (go set) */
	uint64_t icmd_without_sem;          /* ... while the ICMD semaphore (SEMAPHORE dword 0) was free */
	uint64_t icmd_reg_access;           /* ... of them ACCESS_REGISTER (0x9001) that ran */
	uint64_t fw_flash_cmds;             /* flash registers (MFBA/MFBE) the firmware carried out */
	uint64_t time_ns;                   /* the model's clock */
};

/* What the boot-ROM model found at the last power-on. */
struct cxsim_boot {
	/* false: no valid image, the card is in recovery mode. true: an image that would
	 * boot; a CX4, 4 Lx or 5 strapped with params.recovery stays in recovery mode all
	 * the same (cxsim_fw_running). */
	bool booted;
	uint32_t start;         /* physical start of the image that boots */
	unsigned slot;          /* 0 or 1 */
	bool failsafe;
	unsigned nvalid;        /* valid images found */
	uint16_t fw_ver[3];
	uint16_t dev_type;
	unsigned fs;            /* image format found or looked for: 2, 3 (FS3) or 4 (FS4) */
	unsigned slot_log;      /* FS3/FS4: log2 of the slot size */
	char psid[17];
	char vsd[209];
	int nguids;             /* 4 or 6 entries in the GUID section */
	uint64_t guids[4];
	uint64_t macs[2];       /* derived from port GUIDs on 4-entry images */
	char why[160];          /* when !booted: why no image is valid */
};

/* Indexes of cxsim_counters.tools_by_opcode. */
enum { CXSIM_TOOLS_OP_DEV_CAP, CXSIM_TOOLS_OP_DEF_PARAMS, CXSIM_TOOLS_OP_REG_ACCESS,
       CXSIM_TOOLS_OP_MBOX };

/* One setting as the store holds it for the next boot: mstconfig's name (per-port ones
 * with _P1/_P2), its value, and the TLV it lives in (a TLV without a setting mstconfig
 * knows is listed once, with name "TLV_<type>" and value its first dword). */
struct cxsim_setting {
	char name[32];
	uint32_t value;
	const char *text;       /* the value's name as mstconfig prints it ("ETH"), or NULL */
	uint32_t tlv_type;      /* CX4 and later: NVDA's type dword */
	uint8_t type_mod;       /* the port, 0 for global TLVs */
};

struct cxsim_card;

/* Defaults for a chip: IDs, revision, its flash part (a 2 MiB W25Q16 up to CX3 Pro, a
 * 16 MiB W25Q128JV from CX4 on), its VSEC (none up to CX3 Pro, CXSIM_VSEC_FULL from
 * CX4 on), seed 1, no faults, and the chip's settings profile (profile.c: guesses, not measured on a card). */
void cxsim_params_default(struct cxsim_params *p, enum cxsim_chip chip);

/* A card whose flash is flash_size bytes of 0xFF; then power it on. */
struct cxsim_card *cxsim_new(const struct cxsim_params *p);

/* Load a card from STEM.conf and STEM.flash; NULL with *err set on failure. */
struct cxsim_card *cxsim_load(const char *stem, char *err, size_t errlen);

/* The two halves of cxsim_load, for front ends that adjust the params in between:
 * parse a STEM.conf file into *p (over cx3 defaults; 0, or -1 with *err set), and
 * make a powered-on card with params *p whose flash is read from path (which must
 * hold exactly the part's size; NULL with *err set). */
int cxsim_read_conf(const char *path, struct cxsim_params *p, char *err, size_t errlen);
struct cxsim_card *cxsim_load_flash(const struct cxsim_params *p, const char *path, char *err,
				    size_t errlen);

/* Save params and flash (only if changed) to STEM.conf / STEM.flash, and the settings
 * store to STEM.nv when it changed. 0 or -1. */
int cxsim_save(struct cxsim_card *c, const char *stem, char *err, size_t errlen);

/* The settings store's file (cxsim_load reads STEM.nv when it exists; a card without one
 * has an empty store). Text, one TLV a line: "TYPE:TYPE_MOD VERSION DWORD..." in hex,
 * each DWORD as the layouts of mlxconfig_4th_gen_layouts.h@4.25 number its bits (bit 31
 * of SRIOV's first dword is SRIOV_EN). Load: 0, or -1 with *err set (the store is then
 * empty); a missing file is an empty store. Save: writes the file atomically. */
int cxsim_nv_load(struct cxsim_card *c, const char *path, char *err, size_t errlen);
int cxsim_nv_save(struct cxsim_card *c, const char *path, char *err, size_t errlen);
/* sink(ctx) is called after every change of the store (MNVA SET, MNVIA), so a front end
 * that does not save on exit (the QEMU device) can write it through. NULL removes it. */
void cxsim_set_nv_sink(struct cxsim_card *c, void (*sink)(void *ctx), void *ctx);
/* The next-boot settings, decoded: up to max of them into out; returns how many there
 * are (0: nothing stored, the firmware's defaults apply). */
size_t cxsim_nv_settings(const struct cxsim_card *c, struct cxsim_setting *out, size_t max);
/* The number of TLVs stored. */
size_t cxsim_nv_count(const struct cxsim_card *c);

void cxsim_free(struct cxsim_card *c);

/* A deep copy: the same flash, registers, chip state and clock. Power-cut
 * campaigns clone the card at a cut point and power-cycle the clone, which
 * is what cutting the power at that instant would do, without re-running
 * the client from the start for every cut. NULL when out of memory. */
struct cxsim_card *cxsim_clone(const struct cxsim_card *c);

/* Power-on: in-flight flash operations are lost (see cxsim_power_off), the
 * boot ROM scans the flash and the card takes its normal or recovery PCI ID. */
void cxsim_power_cycle(struct cxsim_card *c);
bool cxsim_powered(const struct cxsim_card *c);

/* PCI config space: len 1, 2 or 4, off aligned to len, off + len <= 256.
 * Values are the little-endian register values (as pread of sysfs config
 * gives them). Each call counts as one config access. */
uint32_t cxsim_cfg_read(struct cxsim_card *c, unsigned off, unsigned len);
void cxsim_cfg_write(struct cxsim_card *c, unsigned off, uint32_t val, unsigned len);

/* BAR0, one dword at off (4-aligned, below CXSIM_BAR0_SIZE). Without
 * params.bar0_crspace: reads all-ones, writes ignored (memory decode off, §2.2),
 * and no clock tick. With it: the crspace dword at off, as the natural register
 * value (the bus shows it big-endian: the front end swaps, §2.2); each access
 * counts as a crspace access, ticks CXSIM_BAR0_ACCESS_NS and counts towards
 * power_cut_after. A powered-off card or a bad offset reads all-ones. The
 * model does not gate on COMMAND's memory-enable bit: the front end does. */
uint32_t cxsim_bar0_read(struct cxsim_card *c, unsigned off);
void cxsim_bar0_write(struct cxsim_card *c, unsigned off, uint32_t val);

/* Let time pass (the client slept). */
void cxsim_advance(struct cxsim_card *c, uint64_t ns);

const struct cxsim_counters *cxsim_counters(const struct cxsim_card *c);
void cxsim_counters_reset(struct cxsim_card *c);
const struct cxsim_boot *cxsim_boot_info(const struct cxsim_card *c);
const struct cxsim_params *cxsim_get_params(const struct cxsim_card *c);
struct cxsim_params *cxsim_params_mut(struct cxsim_card *c); /* faults may change at run time */

/* The flash array, for create/inspect tools and tests (not for front ends). */
uint8_t *cxsim_flash(struct cxsim_card *c, size_t *size);
void cxsim_flash_changed(struct cxsim_card *c); /* after writing it directly */

/* Write-through: sink(ctx, off, len) is called right after every change the model
 * makes to the flash array (program, erase, an operation cut short by a power
 * loss; cxsim_flash_changed reports the whole array) with a range covering the
 * changed bytes, so a front end can copy cxsim_flash()[off, off + len) to its
 * backing file as it happens. NULL removes it. Not copied by cxsim_clone. */
void cxsim_set_flash_sink(struct cxsim_card *c, void (*sink)(void *ctx, size_t off, size_t len),
			  void *ctx);

/* Does firmware run now (a valid image booted on a chip whose firmware is modelled)?
 * Else the card is in recovery mode. */
bool cxsim_fw_running(const struct cxsim_card *c);

/* The PCI IDs the card shows now. */
uint16_t cxsim_pci_device_now(const struct cxsim_card *c);
uint32_t cxsim_class_now(const struct cxsim_card *c);   /* 0x028000 or 0x050000 */

/* The VSEC's spaces from a front end's words: "none", "full" (CXSIM_VSEC_FULL),
 * "crspace-only", or a comma list of space names (icmd_ext, cr_space, icmd,
 * nodnic_init_seg, expansion_rom, nd_crspace, scan_crspace, semaphore,
 * recovery, mac) or numbers 0..31. 0 or -1. */
int cxsim_vsec_parse(const char *s, uint32_t *spaces);

/* ICMD faults by name (the enum's comments). 0 or -1. */
const char *cxsim_icmd_fault_name(enum cxsim_icmd_fault f);
int cxsim_icmd_fault_parse(const char *s, enum cxsim_icmd_fault *f);

/* Settings-interface faults by name (the enum's comments), and the capability bits
 * from a comma list of sriov, wol_p1, wol_p2, vpi_p1, vpi_p2, bar_size, or "all"/"none".
 * 0 or -1. */
const char *cxsim_hcr_fault_name(enum cxsim_hcr_fault f);
int cxsim_hcr_fault_parse(const char *s, enum cxsim_hcr_fault *f);
int cxsim_caps_parse(const char *s, uint8_t *caps);
/* Does the chip have the settings interface at all (CX3, CX3 Pro)? */
bool cxsim_chip_has_tools(enum cxsim_chip chip);

/* The VSEC capability (hw-access.md §2.4) of the card's config space: its header dword
 * (ID 9 in 7:0, next 15:8, length 23:16, VSC type 31:24) with *off set to its offset, or 0
 * when the card has none (params.vsec_spaces 0). For a front end that builds its own
 * capability list (the QEMU device) and forwards the registers after the header to
 * cxsim_cfg_read/write at the same offsets. No access is counted and no time passes. */
uint32_t cxsim_vsec_header(const struct cxsim_card *c, unsigned *off);

/* Chip names and parsing for front ends: "cx2", "cx3", "cx3pro", "cx4", "cx4lx", "cx5". */
const char *cxsim_chip_name(enum cxsim_chip chip);
unsigned cxsim_chip_format(enum cxsim_chip chip); /* its image format: 2 (FS2), 3 or 4 */
int cxsim_chip_parse(const char *s, enum cxsim_chip *chip);

/* Messages about unmodelled accesses etc. go here (default: none). */
void cxsim_set_log(struct cxsim_card *c, void (*log)(void *ctx, const char *msg), void *ctx);

#endif
