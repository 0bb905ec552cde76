#!/bin/sh
# install.sh — put the UgcCapture plugin into an Unreal Engine 5.5 project:
# copies engine/UE5/UgcCapture to PROJECT/Plugins/UgcCapture and the capture
# library's sources (capture/ugc_*.c, ugc_capture.h, ugc_internal.h) into its
# module's Private/ folder, where the engine's build compiles them as C.
# Usage: engine/UE5/install.sh PROJECT_DIR   (the folder holding the .uproject)
set -e
usage() {
	echo "usage: engine/UE5/install.sh PROJECT_DIR"
	echo "Copies the UgcCapture plugin and the capture library into PROJECT_DIR/Plugins/UgcCapture."
}
case "$1" in --help | -h) usage; exit 0 ;; esac
[ $# -eq 1 ] || { usage >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
dest="$1/Plugins/UgcCapture"
if [ ! -d "$1" ]; then
	echo "install.sh: $1: no such directory" >&2
	exit 1
fi
mkdir -p "$1/Plugins"
rm -rf "$dest"
cp -R "$here/UgcCapture" "$dest"
cp "$top"/capture/ugc_*.c "$top/capture/ugc_capture.h" "$top/capture/ugc_internal.h" "$dest/Source/UgcCapture/Private/"
echo "installed $dest; enable UgcCapture in the project's plugins and rebuild"
