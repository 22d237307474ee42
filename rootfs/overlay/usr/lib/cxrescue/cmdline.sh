# cmdline.sh — the cxrescue.* options of the kernel command line, as shell variables.
# Sourced by /init. Unknown cxrescue.* options are reported, not fatal.
#
#   cxrescue.media=usb|iso|pxe   what booted us (the boot menus set it)     CXR_MEDIA
#   cxrescue.shell=1             a shell instead of the front end           CXR_SHELL
#   cxrescue.wait=SECONDS        how long to wait for the boot medium (10)  CXR_WAIT
# Unattended mode (burner/rescue/unattended.c), passed on to `cxflash rescue`:
#   cxrescue.job=inventory|backup|update|crossflash                          CXR_JOB
#   cxrescue.card=BDF|all        which cards (all)                           CXR_CARD
#   cxrescue.yes=1               the job may write cards                     CXR_YES
#   cxrescue.allow_risky=1       RISKY targets are written too               CXR_ALLOW_RISKY
CXR_MEDIA=unknown
CXR_SHELL=0
CXR_WAIT=10
CXR_JOB= CXR_CARD=all CXR_YES=0 CXR_ALLOW_RISKY=0
for word in $(cat /proc/cmdline); do
	case "$word" in
	cxrescue.media=*) CXR_MEDIA=${word#*=} ;;
	cxrescue.shell=*) CXR_SHELL=${word#*=} ;;
	cxrescue.wait=*)  CXR_WAIT=${word#*=} ;;
	cxrescue.job=*)   CXR_JOB=${word#*=} ;;
	cxrescue.card=*)  CXR_CARD=${word#*=} ;;
	cxrescue.yes=*)   CXR_YES=${word#*=} ;;
	cxrescue.allow_risky=*) CXR_ALLOW_RISKY=${word#*=} ;;
	cxrescue.*)       echo "cxrescue: unknown boot option '$word' ignored" >/dev/console ;;
	esac
done
case "$CXR_WAIT" in ''|*[!0-9]*) CXR_WAIT=10 ;; esac
case "$CXR_MEDIA" in usb|iso|pxe) ;; *) CXR_MEDIA=unknown ;; esac
case "$CXR_JOB" in
''|inventory|backup|update|crossflash) ;;
*) echo "cxrescue: unknown job 'cxrescue.job=$CXR_JOB' ignored (inventory, backup, update, crossflash)" >/dev/console
   CXR_JOB= ;;
esac
case "$CXR_CARD" in *[!0-9a-fA-F:.all]*|'') CXR_CARD=all ;; esac
[ "$CXR_YES" = 1 ] || CXR_YES=0
[ "$CXR_ALLOW_RISKY" = 1 ] || CXR_ALLOW_RISKY=0

# The job's words for `cxflash rescue`, or nothing.
cxr_job_args() {
	[ -n "$CXR_JOB" ] || return 0
	echo "job=$CXR_JOB card=$CXR_CARD yes=$CXR_YES allow_risky=$CXR_ALLOW_RISKY"
}
