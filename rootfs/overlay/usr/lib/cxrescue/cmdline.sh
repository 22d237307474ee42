# cmdline.sh — the cxrescue.* options of the kernel command line, as shell variables.
# Sourced by /init. Unknown cxrescue.* options are reported, not fatal.
#
#   cxrescue.media=usb|iso|pxe   what booted us (the boot menus set it)     CXR_MEDIA
#   cxrescue.shell=1             a shell instead of the front end           CXR_SHELL
#   cxrescue.wait=SECONDS        how long to wait for the boot medium (10)  CXR_WAIT
CXR_MEDIA=unknown
CXR_SHELL=0
CXR_WAIT=10
for word in $(cat /proc/cmdline); do
	case "$word" in
	cxrescue.media=*) CXR_MEDIA=${word#*=} ;;
	cxrescue.shell=*) CXR_SHELL=${word#*=} ;;
	cxrescue.wait=*)  CXR_WAIT=${word#*=} ;;
	cxrescue.*)       echo "cxrescue: unknown boot option '$word' ignored" >/dev/console ;;
	esac
done
case "$CXR_WAIT" in ''|*[!0-9]*) CXR_WAIT=10 ;; esac
case "$CXR_MEDIA" in usb|iso|pxe) ;; *) CXR_MEDIA=unknown ;; esac
