# cmdline.sh — the cxrescue.* options of the kernel command line, as shell variables.
# Sourced by /init after consoles.sh: unknown cxrescue.* options are said on every console
# (say), not fatal.
#
#   cxrescue.media=usb|iso|pxe   what booted us (the boot menus set it)     CXR_MEDIA
#   cxrescue.shell=1             a shell instead of the front end           CXR_SHELL
#   cxrescue.wait=SECONDS        how long to wait for the boot medium (10)  CXR_WAIT
# Unattended mode (burner/rescue/jobs.h), passed on to `cxflash rescue`:
#   cxrescue.job=inventory|backup|update|crossflash|restore|verify|settings  CXR_JOB
#   cxrescue.card=BDF|all        which cards (all)                           CXR_CARD
#   cxrescue.yes=1               the job may write cards                     CXR_YES
#   cxrescue.allow_risky=1       RISKY targets are written too               CXR_ALLOW_RISKY
#   cxrescue.device_data=1       a restore job writes a ConnectX-4/4 Lx/5 bundle's
#                                device data (GUIDs, MACs) too when it differs  CXR_DEVICE_DATA
#   cxrescue.rom=keep|image|none|NAME  the boot ROM of an update or crossflash
#                                (NAME: a ROM file in the data folder's firmware/)  CXR_ROM
#   cxrescue.settings=NAME=VALUE,...  the card settings an update, crossflash or
#                                settings job sets (burner/rescue/job_settings.c)  CXR_SETTINGS
#   cxrescue.expect=GUID:PSID:FW:OLD,...  what job=verify checks each card against
#                                (burner/rescue/job_verify.c; pxe-serve writes it)  CXR_EXPECT
# PXE (pxe.sh; scripts/pxe-serve writes them):
#   cxrescue.server=ADDRESS      the server backups and reports go to        CXR_SERVER_ARG
#   cxrescue.bundle=kept/F       the bundle a restore job fetches from it    CXR_BUNDLE_REMOTE
#   cxrescue.bundle_sha256=HEX   ... and its SHA-256, recorded by the server when the
#                                upload was whole; any other bundle is refused CXR_BUNDLE_SHA256
#   cxrescue.upload=optional     a card may be written when its backup did
#                                not reach the server (required)             CXR_UPLOAD_MODE
CXR_MEDIA=unknown
CXR_SHELL=0
CXR_WAIT=10
CXR_JOB= CXR_CARD=all CXR_YES=0 CXR_ALLOW_RISKY=0 CXR_DEVICE_DATA=0 CXR_ROM= CXR_EXPECT= CXR_SETTINGS=
CXR_SERVER_ARG= CXR_BUNDLE_REMOTE= CXR_BUNDLE_SHA256= CXR_UPLOAD_MODE=required
for word in $(cat /proc/cmdline); do
	case "$word" in
	cxrescue.media=*) CXR_MEDIA=${word#*=} ;;
	cxrescue.shell=*) CXR_SHELL=${word#*=} ;;
	cxrescue.wait=*)  CXR_WAIT=${word#*=} ;;
	cxrescue.job=*)   CXR_JOB=${word#*=} ;;
	cxrescue.card=*)  CXR_CARD=${word#*=} ;;
	cxrescue.yes=*)   CXR_YES=${word#*=} ;;
	cxrescue.allow_risky=*) CXR_ALLOW_RISKY=${word#*=} ;;
	cxrescue.device_data=*) CXR_DEVICE_DATA=${word#*=} ;;
	cxrescue.rom=*)   CXR_ROM=${word#*=} ;;
	cxrescue.expect=*) CXR_EXPECT=${word#*=} ;;
	cxrescue.settings=*) CXR_SETTINGS=${word#*=} ;;
	cxrescue.server=*) CXR_SERVER_ARG=${word#*=} ;;
	cxrescue.bundle=*) CXR_BUNDLE_REMOTE=${word#*=} ;;
	cxrescue.bundle_sha256=*) CXR_BUNDLE_SHA256=${word#*=} ;;
	cxrescue.upload=*) CXR_UPLOAD_MODE=${word#*=} ;;
	cxrescue.*)       say "unknown boot option '$word' ignored" ;;
	esac
done
case "$CXR_WAIT" in ''|*[!0-9]*) CXR_WAIT=10 ;; esac
case "$CXR_MEDIA" in usb|iso|pxe) ;; *) CXR_MEDIA=unknown ;; esac
case "$CXR_JOB" in
''|inventory|backup|update|crossflash|restore|verify|settings) ;;
*) say "unknown job 'cxrescue.job=$CXR_JOB' ignored (inventory, backup, update, crossflash, restore, verify, settings)"
   CXR_JOB= ;;
esac
case "$CXR_CARD" in *[!0-9a-fA-F:.all]*|'') CXR_CARD=all ;; esac
[ "$CXR_YES" = 1 ] || CXR_YES=0
[ "$CXR_ALLOW_RISKY" = 1 ] || CXR_ALLOW_RISKY=0
[ "$CXR_DEVICE_DATA" = 1 ] || CXR_DEVICE_DATA=0
case "$CXR_ROM" in .* | *[!A-Za-z0-9._-]*) say "cxrescue.rom=$CXR_ROM ignored (keep, image, none or a file name)"
	CXR_ROM= ;;
esac
# cxflash checks the items; here only that they stay one word of safe characters
case "$CXR_EXPECT" in *[!0-9A-Za-z_.:,-]*) say "cxrescue.expect=$CXR_EXPECT ignored"
	CXR_EXPECT= ;;
esac
# settings the job cannot take safely are not dropped (the job would write without them):
# the word left in their place makes cxflash refuse the job, with a report
case "$CXR_SETTINGS" in *[!0-9A-Za-z_.=,]*) say "cxrescue.settings=$CXR_SETTINGS has unsafe characters: the job refuses"
	CXR_SETTINGS=unsafe-characters ;;
esac
[ "$CXR_UPLOAD_MODE" = optional ] || CXR_UPLOAD_MODE=required
case "$CXR_SERVER_ARG" in *[!0-9.]*) say "cxrescue.server=$CXR_SERVER_ARG is not an IPv4 address: ignored"
	CXR_SERVER_ARG= ;;
esac
case "$CXR_BUNDLE_REMOTE" in *..* | *[!A-Za-z0-9._/-]*) say "cxrescue.bundle=$CXR_BUNDLE_REMOTE ignored"
	CXR_BUNDLE_REMOTE= ;;
esac
case "$CXR_BUNDLE_SHA256" in *[!0-9a-f]*) CXR_BUNDLE_SHA256= ;; esac

# The job's words for `cxflash rescue`, or nothing.
cxr_job_args() {
	[ -n "$CXR_JOB" ] || return 0
	local extra=
	# rom= goes with the jobs that burn an image, expect= with verify (cxflash rescue
	# refuses them elsewhere)
	case "$CXR_JOB" in update | crossflash) extra=${CXR_ROM:+ rom=$CXR_ROM} ;; verify) extra=" expect=$CXR_EXPECT" ;; esac
	# settings= with the jobs that take it; job=settings without it: cxflash says so
	case "$CXR_JOB" in update | crossflash | settings) extra="$extra${CXR_SETTINGS:+ settings=$CXR_SETTINGS}" ;; esac
	# device_data= with restore only (cxflash rescue refuses it elsewhere)
	[ "$CXR_JOB" != restore ] || [ "$CXR_DEVICE_DATA" != 1 ] || extra="$extra device_data=1"
	echo "job=$CXR_JOB card=$CXR_CARD yes=$CXR_YES allow_risky=$CXR_ALLOW_RISKY upload=$CXR_UPLOAD_MODE$extra"
}
